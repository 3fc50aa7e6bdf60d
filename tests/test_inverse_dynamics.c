/* test_inverse_dynamics.c: seed CalcInverseDynamics (RNEA) on branched trees with every joint
 * type: tau = M·v̇ + C·v − tau_app − Σ J_WBᵀ·Fapp; power balance; Newton-Euler for every
 * body about its center of mass; aliasing of outputs with inputs; dK/dt = vᵀ·tau by central
 * differences; closed forms (simple pendulum, double pendulum, Spong's acrobot, torque-free
 * rigid body). */
#include "support/test_util.h"

#define NMAX 64

/* tau = M·v̇ + C·v − tau_app − Σ J_WBᵀ·Fapp_Bo_W, at random states and inputs. */
static void check_id_vs_matrix_form(tu_fixture* f) {
  const mbt_tree* T = f->tree;
  static mbt_real M[NMAX * NMAX], J[6 * NMAX];
  mbt_real vd[NMAX], ta[NMAX], tau[NMAX], Cv[NMAX], rhs[NMAX];
  mbt_spatial_force Fapp[NMAX];
  for (int trial = 0; trial < 10; ++trial) {
    tu_rand_state(T, f->ctx);
    tu_rand_array(vd, f->nv, 2);
    tu_rand_array(ta, f->nv, 2);
    for (int n = 0; n < f->nb; ++n)
      for (int i = 0; i < 6; ++i) Fapp[n].coeffs[i] = n == 0 ? 0 : 2 * tu_rand();
    assert_int_equal(mbt_calc_inverse_dynamics(T, f->ctx, vd, Fapp, ta, NULL, NULL, tau), MBT_OK);
    assert_int_equal(mbt_calc_mass_matrix(T, f->ctx, M), MBT_OK);
    assert_int_equal(mbt_calc_bias_term(T, f->ctx, Cv), MBT_OK);
    for (int i = 0; i < f->nv; ++i) {
      rhs[i] = Cv[i] - ta[i];
      for (int j = 0; j < f->nv; ++j) rhs[i] += M[i * f->nv + j] * vd[j];
    }
    for (int b = 1; b < f->nb; ++b) {
      assert_int_equal(mbt_calc_jacobian_spatial_velocity(T, f->ctx, mbt_tree_body_frame(T, b), mbt_vec3_zero(), J),
                       MBT_OK);
      const mbt_spatial_force* F = &Fapp[mbt_tree_body_node(T, b)];
      for (int c = 0; c < f->nv; ++c)
        for (int r = 0; r < 6; ++r) rhs[c] -= J[r * f->nv + c] * F->coeffs[r];
    }
    const double scale = tu_max_abs(rhs, f->nv);
    for (int i = 0; i < f->nv; ++i) tu_assert_rel(tau[i], rhs[i], scale, 1e-12, "tau_ID vs M·v̇ + C·v − tau_app − ΣJᵀF");
  }
}

static void check_newton_euler(tu_fixture* f);

/* Every shipped model at random states: the matrix form and the Newton-Euler/power checks. */
static void test_shipped_models(void** s) {
  (void)s;
  tu_seed(18);
  for (int k = 0; k < TU_NUM_MODELS; ++k) {
    tu_fixture* f = tu_fixture_create(tu_load_model(tu_models[k]));
    check_id_vs_matrix_form(f);
    check_newton_euler(f);
    tu_fixture_destroy(f);
  }
}

static void test_id_matrix_form(void** s) {
  (void)s;
  tu_seed(11);
  tu_fixture* a = tu_fixture_create(tu_make_branched_tree());
  check_id_vs_matrix_form(a);
  tu_fixture_destroy(a);
  tu_fixture* b = tu_fixture_create(tu_make_joint_tree());
  check_id_vs_matrix_form(b);
  tu_fixture_destroy(b);
}

/* Σ_B F on B at its center of mass equals the rate of change of its momentum, independently
 * formed about Bcm: F_Bcm = [I_Bcm·α + w × (I_Bcm·w); m·a_Bcm]; the forces on B are its
 * mobilizer's F_BMo_W (at Mo), −F_CMc_W of each child C (at Mc) and Fapp_Bo_W. Also the power
 * balance tau·v = Σ_B F_BMo_W·V_PB_W (V_PB_W at Mo), and the A_WB output. */
static void check_newton_euler(tu_fixture* f) {
  const mbt_tree* T = f->tree;
  mbt_real vd[NMAX], tau[NMAX];
  mbt_spatial_force Fapp[NMAX], F[NMAX];
  mbt_spatial_acceleration A[NMAX], A2[NMAX];
  tu_rand_state(T, f->ctx);
  tu_rand_array(vd, f->nv, 2);
  for (int n = 0; n < f->nb; ++n)
    for (int i = 0; i < 6; ++i) Fapp[n].coeffs[i] = n == 0 ? 0 : tu_rand();
  assert_int_equal(mbt_calc_inverse_dynamics(T, f->ctx, vd, Fapp, NULL, A, F, tau), MBT_OK);
  assert_int_equal(mbt_calc_spatial_accelerations_from_vdot(T, f->ctx, vd, A2), MBT_OK);
  for (int n = 0; n < f->nb; ++n)
    for (int i = 0; i < 6; ++i) tu_assert_rel(A[n].coeffs[i], A2[n].coeffs[i], 1, 0, "A_WB output");
  /* Mo of each body in W. */
  mbt_vec3 p_WMo[NMAX], p_WBo[NMAX];
  for (int b = 1; b < f->nb; ++b) {
    mbt_transform X_WM, X_WB;
    assert_int_equal(mbt_calc_relative_transform(T, f->ctx, 0, mbt_mobilizer_outboard_frame(T, mbt_tree_body_mobilizer(T, b)),
                                                 &X_WM), MBT_OK);
    assert_int_equal(mbt_context_body_pose_in_world(T, f->ctx, b, &X_WB), MBT_OK);
    p_WMo[b] = X_WM.p;
    p_WBo[b] = X_WB.p;
  }
  double power = 0;
  for (int b = 1; b < f->nb; ++b) {
    const int node = mbt_tree_body_node(T, b);
    mbt_transform X_WB;
    mbt_spatial_velocity V;
    mbt_context_body_pose_in_world(T, f->ctx, b, &X_WB);
    mbt_context_body_spatial_velocity_in_world(T, f->ctx, b, &V);
    const mbt_spatial_inertia* M = mbt_tree_body_spatial_inertia(T, b);
    const mbt_vec3 p_cm = mbt_mat3_mul_vec(&X_WB.R, M->p_PScm_E);
    const mbt_vec3 p_WBcm = mbt_vec3_add(X_WB.p, p_cm);
    /* Sum of forces about Bcm: tau_Bcm = tau_Q + p_BcmQ × f. */
    mbt_vec3 tau_s = mbt_vec3_zero(), f_s = mbt_vec3_zero();
#define ADD_FORCE(Fq, pQ, sgn)                                                                          \
  do {                                                                                                  \
    tau_s = mbt_vec3_axpy(tau_s, (sgn), mbt_vec3_add((Fq).tau, mbt_vec3_cross(mbt_vec3_sub((pQ), p_WBcm), (Fq).f))); \
    f_s = mbt_vec3_axpy(f_s, (sgn), (Fq).f);                                                            \
  } while (0)
    ADD_FORCE(F[node], p_WMo[b], 1.0);
    ADD_FORCE(Fapp[node], p_WBo[b], 1.0);
    for (int c = 1; c < f->nb; ++c)
      if (mbt_tree_body_parent(T, c) == b) ADD_FORCE(F[mbt_tree_body_node(T, c)], p_WMo[c], -1.0);
#undef ADD_FORCE
    /* I_Bcm in W. */
    const mbt_mat3 I = tu_inertia_about_com(M);
    const mbt_mat3 RI = mbt_mat3_mul(&X_WB.R, &I), IW = mbt_mat3_mul_t(&RI, &X_WB.R);
    const mbt_vec3 w = V.w, al = A[node].alpha;
    const mbt_vec3 hdot = mbt_vec3_add(mbt_mat3_mul_vec(&IW, al), mbt_vec3_cross(w, mbt_mat3_mul_vec(&IW, w)));
    const mbt_vec3 a_cm = mbt_vec3_add(mbt_vec3_add(A[node].a, mbt_vec3_cross(al, p_cm)),
                                       mbt_vec3_cross(w, mbt_vec3_cross(w, p_cm)));
    for (int i = 0; i < 3; ++i) {
      tu_assert_rel(tau_s.v[i], hdot.v[i], mbt_vec3_norm_inf(hdot), 1e-12, "Euler about Bcm");
      tu_assert_rel(f_s.v[i], M->mass * a_cm.v[i], M->mass * mbt_vec3_norm_inf(a_cm), 1e-12, "Newton");
    }
    /* Mobilizer power F_BMo_W·V_PB_W(Mo); V_PB_W = V_WB − V_WP shifted to Bo, then to Mo. */
    const int P = mbt_tree_body_parent(T, b);
    mbt_spatial_velocity VP;
    mbt_transform X_WP;
    mbt_context_body_spatial_velocity_in_world(T, f->ctx, P, &VP);
    mbt_context_body_pose_in_world(T, f->ctx, P, &X_WP);
    const mbt_vec3 w_PB = mbt_vec3_sub(V.w, VP.w);
    const mbt_vec3 v_PBo = mbt_vec3_sub(V.v, mbt_vec3_add(VP.v, mbt_vec3_cross(VP.w, mbt_vec3_sub(X_WB.p, X_WP.p))));
    const mbt_vec3 v_PMo = mbt_vec3_add(v_PBo, mbt_vec3_cross(w_PB, mbt_vec3_sub(p_WMo[b], X_WB.p)));
    power += mbt_vec3_dot(F[node].tau, w_PB) + mbt_vec3_dot(F[node].f, v_PMo);
  }
  double tv = 0;
  const mbt_real* v = mbt_context_v(f->ctx);
  for (int i = 0; i < f->nv; ++i) tv += tau[i] * v[i];
  tu_assert_rel(tv, power, fabs(power), 1e-12, "power balance tau·v = Σ F_BMo·V_PB");
}

static void test_newton_euler_power(void** s) {
  (void)s;
  tu_seed(12);
  for (int k = 0; k < 5; ++k) {
    tu_fixture* a = tu_fixture_create(tu_make_branched_tree());
    check_newton_euler(a);
    tu_fixture_destroy(a);
    tu_fixture* b = tu_fixture_create(tu_make_joint_tree());
    check_newton_euler(b);
    tu_fixture_destroy(b);
  }
}

/* dK/dt along (q̇ = N·v, v̇) equals vᵀ·ID(v̇) with no applied forces (the power of the inertial
 * forces), by central differences of the kinetic energy. */
static void test_kinetic_energy_rate(void** s) {
  (void)s;
  tu_seed(13);
  tu_fixture* f = tu_fixture_create(tu_make_joint_tree());
  const mbt_tree* T = f->tree;
  mbt_real q[NMAX], v[NMAX], vd[NMAX], qdot[NMAX], tau[NMAX];
  for (int trial = 0; trial < 5; ++trial) {
    tu_rand_state(T, f->ctx);
    memcpy(q, mbt_context_q(f->ctx), sizeof(mbt_real) * f->nq);
    memcpy(v, mbt_context_v(f->ctx), sizeof(mbt_real) * f->nv);
    tu_rand_array(vd, f->nv, 1);
    assert_int_equal(mbt_calc_inverse_dynamics(T, f->ctx, vd, NULL, NULL, NULL, NULL, tau), MBT_OK);
    double P = 0;
    for (int i = 0; i < f->nv; ++i) P += v[i] * tau[i];
    assert_int_equal(mbt_map_velocity_to_qdot(T, f->ctx, v, qdot), MBT_OK);
    const double h = 1e-5;
    double K[2];
    for (int sg = 0; sg < 2; ++sg) {
      tu_fixture_set_state_along(f, q, qdot, v, vd, sg ? h : -h);
      assert_int_equal(mbt_calc_kinetic_energy(T, f->ctx, &K[sg]), MBT_OK);
    }
    mbt_context_set_q(f->ctx, q, f->nq);
    mbt_context_set_v(f->ctx, v, f->nv);
    tu_assert_rel((K[1] - K[0]) / (2 * h), P, fabs(P), 1e-8, "dK/dt = vᵀ·tau");
  }
  tu_fixture_destroy(f);
}

/* F_BMo_W_array may alias Fapp_Bo_W_array and tau may alias tau_applied (seed). */
static void test_aliasing(void** s) {
  (void)s;
  tu_seed(14);
  tu_fixture* f = tu_fixture_create(tu_make_joint_tree());
  const mbt_tree* T = f->tree;
  tu_rand_state(T, f->ctx);
  mbt_real vd[NMAX], ta[NMAX], tau[NMAX];
  mbt_spatial_force Fapp[NMAX], F[NMAX];
  tu_rand_array(vd, f->nv, 1);
  tu_rand_array(ta, f->nv, 1);
  for (int n = 0; n < f->nb; ++n)
    for (int i = 0; i < 6; ++i) Fapp[n].coeffs[i] = n == 0 ? 0 : tu_rand();
  assert_int_equal(mbt_calc_inverse_dynamics(T, f->ctx, vd, Fapp, ta, NULL, F, tau), MBT_OK);
  assert_int_equal(mbt_calc_inverse_dynamics(T, f->ctx, vd, Fapp, ta, NULL, Fapp, ta), MBT_OK);
  for (int i = 0; i < f->nv; ++i) tu_assert_rel(ta[i], tau[i], 1, 0, "aliased tau");
  for (int n = 1; n < f->nb; ++n)
    for (int i = 0; i < 6; ++i) tu_assert_rel(Fapp[n].coeffs[i], F[n].coeffs[i], 1, 0, "aliased F_BMo_W");
  tu_fixture_destroy(f);
}

/* ---- closed forms --------------------------------------------------------------------- */
static const double g0 = 9.81;

/* Simple pendulum: point mass m at distance l below a pivot rotating about +y, with gravity:
 * tau = m·l²·θ̈ + m·g·l·sin θ; tau_g = −m·g·l·sin θ; C·v = 0. */
static void test_simple_pendulum(void** s) {
  (void)s;
  const double m = 1.3, l = 0.7;
  mbt_tree* tree = mbt_tree_create();
  assert_true(tu_add_link(tree, "bob", 0, 0, m, l, 0, 0, 0) > 0);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  tu_fixture* f = tu_fixture_create(tree);
  mbt_multibody_forces* forces = mbt_multibody_forces_create(tree);
  assert_non_null(forces);
  for (int k = 0; k < 8; ++k) {
    const double th = 0.9 * k - 3, thd = 0.3 * k - 1, thdd = 1.1 - 0.4 * k;
    mbt_context_mutable_q(f->ctx)[0] = th;
    mbt_context_mutable_v(f->ctx)[0] = thd;
    mbt_real tau, tg, Cv, M;
    assert_int_equal(mbt_calc_force_elements_contribution(tree, f->ctx, forces), MBT_OK);
    assert_int_equal(mbt_calc_inverse_dynamics(tree, f->ctx, &thdd, forces->F_BBo_W, forces->tau, NULL, NULL, &tau),
                     MBT_OK);
    tu_assert_rel(tau, m * l * l * thdd + m * g0 * l * sin(th), 10, 1e-14, "pendulum tau");
    assert_int_equal(mbt_calc_gravity_generalized_forces(tree, f->ctx, &tg), MBT_OK);
    tu_assert_rel(tg, -m * g0 * l * sin(th), 10, 1e-14, "pendulum tau_g");
    assert_int_equal(mbt_calc_bias_term(tree, f->ctx, &Cv), MBT_OK);
    tu_assert_rel(Cv, 0, 1, 1e-15, "pendulum C·v");
    assert_int_equal(mbt_calc_mass_matrix(tree, f->ctx, &M), MBT_OK);
    tu_assert_rel(M, m * l * l, 1, 1e-15, "pendulum M");
  }
  mbt_multibody_forces_destroy(forces);
  tu_fixture_destroy(f);
}

/* Spong's acrobot [Spong 1995; Spong, Hutchinson, Vidyasagar, "Robot Modeling and Control"]:
 * q1 from the downward vertical, q2 relative, links (m_i, l_i, lc_i, I_i about Bcm):
 *   M11 = I1 + I2 + m1·lc1² + m2·(l1² + lc2² + 2·l1·lc2·c2), M12 = I2 + m2·(lc2² + l1·lc2·c2),
 *   M22 = I2 + m2·lc2²;
 *   C·v = [−m2·l1·lc2·s2·(2·q̇1·q̇2 + q̇2²); m2·l1·lc2·s2·q̇1²];
 *   −tau_g = [(m1·lc1 + m2·l1)·g·s1 + m2·lc2·g·s12; m2·lc2·g·s12].
 * With I1 = I2 = 0 and lc = l this is the double pendulum of point masses. */
static void check_acrobot(double m1, double m2, double l1, double lc1, double lc2, double I1, double I2) {
  mbt_tree* tree = mbt_tree_create();
  const int b1 = tu_add_link(tree, "link1", 0, 0, m1, lc1, I1, I1, 0.2 * I1);
  assert_true(b1 > 0);
  assert_true(tu_add_link(tree, "link2", b1, l1, m2, lc2, I2, I2, 0.1 * I2) > 0);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  tu_fixture* f = tu_fixture_create(tree);
  mbt_multibody_forces* forces = mbt_multibody_forces_create(tree);
  tu_seed(15);
  for (int k = 0; k < 10; ++k) {
    mbt_real q[2] = {3 * tu_rand(), 3 * tu_rand()}, v[2] = {2 * tu_rand(), 2 * tu_rand()};
    mbt_real vd[2] = {2 * tu_rand(), 2 * tu_rand()};
    mbt_context_set_q(f->ctx, q, 2);
    mbt_context_set_v(f->ctx, v, 2);
    const double c2 = cos(q[1]), s1 = sin(q[0]), s2 = sin(q[1]), s12 = sin(q[0] + q[1]);
    const double M11 = I1 + I2 + m1 * lc1 * lc1 + m2 * (l1 * l1 + lc2 * lc2 + 2 * l1 * lc2 * c2);
    const double M12 = I2 + m2 * (lc2 * lc2 + l1 * lc2 * c2), M22 = I2 + m2 * lc2 * lc2;
    const double C1 = -m2 * l1 * lc2 * s2 * (2 * v[0] * v[1] + v[1] * v[1]);
    const double C2 = m2 * l1 * lc2 * s2 * v[0] * v[0];
    const double G1 = (m1 * lc1 + m2 * l1) * g0 * s1 + m2 * lc2 * g0 * s12, G2 = m2 * lc2 * g0 * s12;
    mbt_real M[4], Mid[4], Cv[2], tg[2], tau[2];
    assert_int_equal(mbt_calc_mass_matrix(tree, f->ctx, M), MBT_OK);
    assert_int_equal(mbt_calc_mass_matrix_via_inverse_dynamics(tree, f->ctx, Mid), MBT_OK);
    const double Me[4] = {M11, M12, M12, M22};
    for (int i = 0; i < 4; ++i) {
      tu_assert_rel(M[i], Me[i], M11, 1e-14, "acrobot M (CRBA)");
      tu_assert_rel(Mid[i], Me[i], M11, 1e-14, "acrobot M (ID)");
    }
    assert_int_equal(mbt_calc_bias_term(tree, f->ctx, Cv), MBT_OK);
    tu_assert_rel(Cv[0], C1, 10, 1e-14, "acrobot C·v 1");
    tu_assert_rel(Cv[1], C2, 10, 1e-14, "acrobot C·v 2");
    assert_int_equal(mbt_calc_gravity_generalized_forces(tree, f->ctx, tg), MBT_OK);
    tu_assert_rel(tg[0], -G1, 10, 1e-14, "acrobot tau_g 1");
    tu_assert_rel(tg[1], -G2, 10, 1e-14, "acrobot tau_g 2");
    assert_int_equal(mbt_calc_force_elements_contribution(tree, f->ctx, forces), MBT_OK);
    assert_int_equal(mbt_calc_inverse_dynamics(tree, f->ctx, vd, forces->F_BBo_W, forces->tau, NULL, NULL, tau), MBT_OK);
    tu_assert_rel(tau[0], M11 * vd[0] + M12 * vd[1] + C1 + G1, 10, 1e-13, "acrobot tau 1");
    tu_assert_rel(tau[1], M12 * vd[0] + M22 * vd[1] + C2 + G2, 10, 1e-13, "acrobot tau 2");
  }
  mbt_multibody_forces_destroy(forces);
  tu_fixture_destroy(f);
}

static void test_double_pendulum(void** s) {
  (void)s;
  check_acrobot(1.0, 0.8, 1.1, 1.1, 0.9, 0, 0);
}

static void test_acrobot(void** s) {
  (void)s;
  /* Spong's parameters: m = 1, l1 = 1, lc = 0.5, I = 1/12 (uniform rods about the center)... */
  check_acrobot(1.0, 1.0, 1.0, 0.5, 0.5, 1.0 / 12, 1.0 / 12);
  /* ...and an asymmetric set. */
  check_acrobot(2.1, 0.7, 0.8, 0.3, 0.6, 0.11, 0.04);
}

/* A torque-free rigid body on a floating joint, center of mass away from Bo, inertia not
 * diagonal: v̇ solving M·v̇ = −C·v gives Euler's equations I·ẇ + w × (I·w) = 0 (in W) and
 * a_Bcm = 0; the angular momentum about Bcm is I_W·w and K = ½·m·|v_cm|² + ½·wᵀ·I_W·w. */
static void test_torque_free_body(void** s) {
  (void)s;
  tu_seed(16);
  mbt_tree* tree = mbt_tree_create();
  mbt_spatial_inertia Mb = tu_rand_inertia();
  const int b = mbt_tree_add_rigid_body(tree, "free", &Mb);
  assert_true(b > 0);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);   /* floating mobilizer added */
  tu_fixture* f = tu_fixture_create(tree);
  assert_int_equal(f->nv, 6);
  for (int trial = 0; trial < 5; ++trial) {
    tu_rand_state(tree, f->ctx);
    mbt_real M[36], Cv[6], vd[6];
    assert_int_equal(mbt_calc_mass_matrix(tree, f->ctx, M), MBT_OK);
    assert_int_equal(mbt_calc_bias_term(tree, f->ctx, Cv), MBT_OK);
    for (int i = 0; i < 6; ++i) vd[i] = -Cv[i];
    assert_int_equal(tu_solve(M, vd, 6), 0);
    /* Independent inertia about Bcm in W. */
    mbt_transform X;
    mbt_spatial_velocity V;
    mbt_context_body_pose_in_world(tree, f->ctx, b, &X);
    mbt_context_body_spatial_velocity_in_world(tree, f->ctx, b, &V);
    const mbt_vec3 c = Mb.p_PScm_E;
    const mbt_mat3 I = tu_inertia_about_com(&Mb);
    const mbt_mat3 RI = mbt_mat3_mul(&X.R, &I), IW = mbt_mat3_mul_t(&RI, &X.R);
    /* The floating mobilizer's F is W: v = [w_WB; v_WBo], v̇ = [ẇ; a_WBo]. */
    const mbt_vec3 w = mbt_vec3_make(V.w.v[0], V.w.v[1], V.w.v[2]);
    const mbt_vec3 wd = mbt_vec3_make(vd[0], vd[1], vd[2]), a = mbt_vec3_make(vd[3], vd[4], vd[5]);
    const mbt_vec3 euler = mbt_vec3_add(mbt_mat3_mul_vec(&IW, wd), mbt_vec3_cross(w, mbt_mat3_mul_vec(&IW, w)));
    const mbt_vec3 p = mbt_mat3_mul_vec(&X.R, c);
    const mbt_vec3 a_cm = mbt_vec3_add(mbt_vec3_add(a, mbt_vec3_cross(wd, p)), mbt_vec3_cross(w, mbt_vec3_cross(w, p)));
    for (int i = 0; i < 3; ++i) {
      tu_assert_rel(euler.v[i], 0, 1, 1e-13, "Euler's equations");
      tu_assert_rel(a_cm.v[i], 0, 1, 1e-13, "a_Bcm = 0");
    }
    mbt_vec3 p_cm;
    mbt_spatial_momentum L;
    assert_int_equal(mbt_calc_center_of_mass_position(tree, f->ctx, &p_cm), MBT_OK);
    assert_int_equal(mbt_calc_spatial_momentum_in_world_about_point(tree, f->ctx, p_cm, &L), MBT_OK);
    const mbt_vec3 h = mbt_mat3_mul_vec(&IW, w);
    const mbt_vec3 v_cm = mbt_vec3_add(V.v, mbt_vec3_cross(w, p));
    for (int i = 0; i < 3; ++i) {
      tu_assert_rel(L.h.v[i], h.v[i], 1, 1e-14, "h about Bcm");
      tu_assert_rel(L.l.v[i], Mb.mass * v_cm.v[i], 1, 1e-14, "l");
    }
    mbt_real K;
    assert_int_equal(mbt_calc_kinetic_energy(tree, f->ctx, &K), MBT_OK);
    tu_assert_rel(K, 0.5 * Mb.mass * mbt_vec3_dot(v_cm, v_cm) + 0.5 * mbt_vec3_dot(w, h), 1, 1e-14, "K");
  }
  tu_fixture_destroy(f);
}

/* Inputs that cannot be used are reported. */
static void test_errors(void** s) {
  (void)s;
  tu_seed(17);
  tu_fixture* f = tu_fixture_create(tu_make_joint_tree());
  assert_int_equal(mbt_calc_inverse_dynamics(f->tree, f->ctx, NULL, NULL, NULL, NULL, NULL, NULL),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_true(strlen(mbt_context_last_error(f->ctx)) > 0);
  mbt_tree* unfinal = mbt_tree_create();
  mbt_real tau[NMAX];
  assert_int_equal(mbt_calc_inverse_dynamics(unfinal, f->ctx, NULL, NULL, NULL, NULL, NULL, tau), MBT_ERR_NOT_FINALIZED);
  mbt_tree_destroy(unfinal);
  tu_fixture_destroy(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_id_matrix_form),
      cmocka_unit_test(test_newton_euler_power),
      cmocka_unit_test(test_shipped_models),
      cmocka_unit_test(test_kinetic_energy_rate),
      cmocka_unit_test(test_aliasing),
      cmocka_unit_test(test_simple_pendulum),
      cmocka_unit_test(test_double_pendulum),
      cmocka_unit_test(test_acrobot),
      cmocka_unit_test(test_torque_free_body),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
