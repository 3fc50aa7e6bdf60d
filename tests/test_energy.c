/* test_energy.c: CalcKineticEnergy, CalcPotentialEnergy, CalcConservativePower and
 * CalcForceElementsContribution on a tree with every joint type, gravity, linear
 * spring-dampers, a revolute spring, joint damping and a user force element:
 *   K = ½·vᵀ·M·v = ½·Σ V_WB·L_WBo; dU/dt = −Pc (central differences);
 *   power of the force elements = Pc − c·ℓ̇² − Σ d·v²;
 *   along the motion (v̇ from M·v̇ = tau_forces − C·v) d(K + U)/dt = the dissipated power. */
#include "support/test_util.h"
#include "tree/context_internal.h"

#define NMAX 64

static int setup(void** state) { return tu_fixture_setup(state, 31, tu_make_joint_tree); }

/* Σ_B F_BBo_W·V_WB + tau·v: the power of the force elements' forces in f->forces. */
static double force_elements_power(const tu_fixture* f, const mbt_real* v) {
  double P = 0;
  for (int b = 0; b < f->nb; ++b) {
    mbt_spatial_velocity V;
    mbt_context_body_spatial_velocity_in_world(f->tree, f->ctx, b, &V);
    const mbt_spatial_force* F = &f->forces->F_BBo_W[mbt_tree_body_node(f->tree, b)];
    P += mbt_vec3_dot(F->tau, V.w) + mbt_vec3_dot(F->f, V.v);
  }
  for (int i = 0; i < f->nv; ++i) P += f->forces->tau[i] * v[i];
  return P;
}

/* K = ½·vᵀ·M·v = ½·Σ V_WB·(M_Bo_W·V_WB), the latter formed here from the public queries. */
static void test_kinetic_energy(void** state) {
  tu_fixture* f = *state;
  static mbt_real M[NMAX * NMAX];
  for (int trial = 0; trial < 10; ++trial) {
    tu_rand_state(f->tree, f->ctx);
    mbt_real K;
    assert_int_equal(mbt_calc_kinetic_energy(f->tree, f->ctx, &K), MBT_OK);
    assert_int_equal(mbt_calc_mass_matrix(f->tree, f->ctx, M), MBT_OK);
    const mbt_real* v = mbt_context_v(f->ctx);
    double vMv = 0, VL = 0;
    for (int i = 0; i < f->nv; ++i)
      for (int j = 0; j < f->nv; ++j) vMv += v[i] * M[i * f->nv + j] * v[j];
    for (int b = 1; b < f->nb; ++b) {
      mbt_spatial_velocity V;
      mbt_transform X;
      mbt_context_body_spatial_velocity_in_world(f->tree, f->ctx, b, &V);
      mbt_context_body_pose_in_world(f->tree, f->ctx, b, &X);
      /* In B: K_B = ½·(m·|v_Bcm|² + w_Bᵀ·I_Bcm·w_B). */
      const mbt_spatial_inertia* Mb = mbt_tree_body_spatial_inertia(f->tree, b);
      const mbt_vec3 wB = mbt_mat3_tmul_vec(&X.R, V.w), vB = mbt_mat3_tmul_vec(&X.R, V.v);
      const mbt_vec3 c = Mb->p_PScm_E;
      const mbt_vec3 vcm = mbt_vec3_add(vB, mbt_vec3_cross(wB, c));
      const mbt_mat3 I = tu_inertia_about_com(Mb);
      VL += Mb->mass * mbt_vec3_dot(vcm, vcm) + mbt_vec3_dot(wB, mbt_mat3_mul_vec(&I, wB));
    }
    tu_assert_rel(K, 0.5 * vMv, K, 1e-13, "K = ½vᵀMv");
    tu_assert_rel(K, 0.5 * VL, K, 1e-13, "K = ½ΣV·L");
  }
}

/* dU/dt along q̇ = N(q)·v equals −Pc. */
static void test_potential_energy_rate(void** state) {
  tu_fixture* f = *state;
  mbt_real q[NMAX], qdot[NMAX];
  for (int trial = 0; trial < 10; ++trial) {
    tu_rand_state(f->tree, f->ctx);
    memcpy(q, mbt_context_q(f->ctx), sizeof(mbt_real) * f->nq);
    assert_int_equal(mbt_map_velocity_to_qdot(f->tree, f->ctx, mbt_context_v(f->ctx), qdot), MBT_OK);
    mbt_real Pc, U[2];
    assert_int_equal(mbt_calc_conservative_power(f->tree, f->ctx, &Pc), MBT_OK);
    const double h = 1e-5;
    for (int sg = 0; sg < 2; ++sg) {
      tu_fixture_set_state_along(f, q, qdot, NULL, NULL, sg ? h : -h);
      assert_int_equal(mbt_calc_potential_energy(f->tree, f->ctx, &U[sg]), MBT_OK);
    }
    mbt_context_set_q(f->ctx, q, f->nq);
    tu_assert_rel(-(U[1] - U[0]) / (2 * h), Pc, fabs(Pc), 1e-8, "dU/dt = −Pc");
  }
}

/* Length of spring lsd1 from the public point queries. */
static double spring_length(tu_fixture* f, int body_A, mbt_vec3 p_AP, int body_B, mbt_vec3 p_BQ) {
  mbt_real pW[2][3];
  assert_int_equal(mbt_calc_points_positions(f->tree, f->ctx, mbt_tree_body_frame(f->tree, body_A), p_AP.v, 1, 0,
                                             pW[0], 1), MBT_OK);
  assert_int_equal(mbt_calc_points_positions(f->tree, f->ctx, mbt_tree_body_frame(f->tree, body_B), p_BQ.v, 1, 0,
                                             pW[1], 1), MBT_OK);
  const double d[3] = {pW[1][0] - pW[0][0], pW[1][1] - pW[0][1], pW[1][2] - pW[0][2]};
  return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* The power of the force elements, Σ_B F_BBo_W·V_WB + tau·v, equals Pc minus what the
 * dampers dissipate: c·ℓ̇² for the spring-damper (ℓ̇ by central differences) and Σ d·v². */
static void test_force_elements_power(void** state) {
  tu_fixture* f = *state;
  const mbt_tree* T = f->tree;
  const mbt_force_element* lsd = NULL;
  for (int e = 0; e < T->num_forces; ++e)
    if (T->forces[e].type == MBT_FORCE_LINEAR_SPRING_DAMPER && T->forces[e].u.spring.damping > 0) lsd = &T->forces[e];
  assert_non_null(lsd);
  mbt_real q[NMAX], qdot[NMAX];
  for (int trial = 0; trial < 10; ++trial) {
    tu_rand_state(T, f->ctx);
    assert_int_equal(mbt_calc_force_elements_contribution(T, f->ctx, f->forces), MBT_OK);
    mbt_real Pc;
    assert_int_equal(mbt_calc_conservative_power(T, f->ctx, &Pc), MBT_OK);
    const mbt_real* v = mbt_context_v(f->ctx);
    const double P = force_elements_power(f, v);
    double Pd = 0;
    for (int j = 0; j < mbt_tree_num_joints(T); ++j) {
      const mbt_real* d = mbt_joint_damping_vector(f->ctx, j);
      const mbt_real* vj = mbt_joint_velocities(f->ctx, j);
      for (int k = 0; k < mbt_joint_num_velocities(T, j); ++k) Pd += d[k] * vj[k] * vj[k];
    }
    memcpy(q, mbt_context_q(f->ctx), sizeof(mbt_real) * f->nq);
    assert_int_equal(mbt_map_velocity_to_qdot(T, f->ctx, v, qdot), MBT_OK);
    const double h = 1e-6;
    double l[2];
    for (int sg = 0; sg < 2; ++sg) {
      tu_fixture_set_state_along(f, q, qdot, NULL, NULL, sg ? h : -h);
      l[sg] = spring_length(f, lsd->u.spring.body_A, lsd->u.spring.p_AP, lsd->u.spring.body_B, lsd->u.spring.p_BQ);
    }
    mbt_context_set_q(f->ctx, q, f->nq);
    const double ldot = (l[1] - l[0]) / (2 * h);
    Pd += lsd->u.spring.damping * ldot * ldot;
    tu_assert_rel(P, Pc - Pd, fabs(Pc) + Pd, 1e-8, "force element power");
  }
}

/* Along the motion of the system under its force elements only (v̇ from M·v̇ = tau_f − C·v,
 * tau_f = Σ J_WBᵀ·F + tau of the force elements, via inverse dynamics), d(K + U)/dt equals
 * the (negative) power of the damping, by central differences. */
static void test_energy_balance(void** state) {
  tu_fixture* f = *state;
  const mbt_tree* T = f->tree;
  static mbt_real M[NMAX * NMAX];
  mbt_real q[NMAX], v[NMAX], vd[NMAX], qdot[NMAX], rhs[NMAX];
  for (int trial = 0; trial < 5; ++trial) {
    tu_rand_state(T, f->ctx);
    memcpy(q, mbt_context_q(f->ctx), sizeof(mbt_real) * f->nq);
    memcpy(v, mbt_context_v(f->ctx), sizeof(mbt_real) * f->nv);
    assert_int_equal(mbt_calc_force_elements_contribution(T, f->ctx, f->forces), MBT_OK);
    /* −rhs = ID(v̇ = 0, F, tau) = C·v − tau_f. */
    assert_int_equal(mbt_calc_inverse_dynamics(T, f->ctx, NULL, f->forces->F_BBo_W, f->forces->tau, NULL, NULL, rhs),
                     MBT_OK);
    assert_int_equal(mbt_calc_mass_matrix(T, f->ctx, M), MBT_OK);
    for (int i = 0; i < f->nv; ++i) vd[i] = -rhs[i];
    assert_int_equal(tu_solve(M, vd, f->nv), 0);
    /* Dissipated power: all non-conservative parts, from the contribution itself. */
    mbt_real Pc;
    assert_int_equal(mbt_calc_conservative_power(T, f->ctx, &Pc), MBT_OK);
    const double P = force_elements_power(f, v);
    assert_int_equal(mbt_map_velocity_to_qdot(T, f->ctx, v, qdot), MBT_OK);
    const double h = 1e-5;
    double E[2];
    for (int sg = 0; sg < 2; ++sg) {
      tu_fixture_set_state_along(f, q, qdot, v, vd, sg ? h : -h);
      mbt_real K, U;
      assert_int_equal(mbt_calc_kinetic_energy(T, f->ctx, &K), MBT_OK);
      assert_int_equal(mbt_calc_potential_energy(T, f->ctx, &U), MBT_OK);
      E[sg] = K + U;
    }
    mbt_context_set_q(f->ctx, q, f->nq);
    mbt_context_set_v(f->ctx, v, f->nv);
    tu_assert_rel((E[1] - E[0]) / (2 * h), P - Pc, fabs(P - Pc) + fabs(Pc), 1e-7, "d(K + U)/dt = dissipated power");
  }
}

/* Closed forms: U of gravity is −Σ m·g·p_WBcm, the revolute spring's torque is −k·(θ − θ0)
 * on its joint's dof, and joint damping −d·v on every dof of a joint without a spring. */
static void test_closed_forms(void** state) {
  tu_fixture* f = *state;
  const mbt_tree* T = f->tree;
  tu_rand_state(T, f->ctx);
  assert_int_equal(mbt_calc_force_elements_contribution(T, f->ctx, f->forces), MBT_OK);
  const int j2 = mbt_tree_joint_by_name(T, "j2"), j7 = mbt_tree_joint_by_name(T, "j7");
  mbt_real th, thd;
  assert_int_equal(mbt_revolute_joint_get_angle(f->ctx, j2, &th), MBT_OK);
  assert_int_equal(mbt_revolute_joint_get_angular_rate(f->ctx, j2, &thd), MBT_OK);
  const int v2 = mbt_joint_velocity_start(T, j2);
  tu_assert_rel(f->forces->tau[v2], -5.0 * (th - 0.3) - 0.3 * thd, 1, 1e-14, "revolute spring + damping");
  const int v7 = mbt_joint_velocity_start(T, j7);
  const mbt_real* d7 = mbt_joint_damping_vector(f->ctx, j7);
  for (int k = 0; k < 3; ++k)
    tu_assert_rel(f->forces->tau[v7 + k], -d7[k] * mbt_context_v(f->ctx)[v7 + k], 1, 1e-15, "damping");
  /* U = −Σ m·g·p_WBcm + Σ ½·k·(ℓ − ℓ0)² + ½·k·(θ − θ0)², from the public queries. */
  mbt_real U;
  assert_int_equal(mbt_calc_potential_energy(T, f->ctx, &U), MBT_OK);
  double Ug = 0, Us = 0;
  const mbt_vec3 g = mbt_tree_gravity(T);
  for (int b = 1; b < f->nb; ++b) {
    mbt_transform X;
    mbt_context_body_pose_in_world(T, f->ctx, b, &X);
    const mbt_spatial_inertia* Mb = mbt_tree_body_spatial_inertia(T, b);
    Ug -= Mb->mass * mbt_vec3_dot(g, mbt_transform_apply(&X, Mb->p_PScm_E));
  }
  for (int e = 0; e < T->num_forces; ++e) {
    const mbt_force_element* fe = &T->forces[e];
    if (fe->type == MBT_FORCE_LINEAR_SPRING_DAMPER) {
      const double x = spring_length(f, fe->u.spring.body_A, fe->u.spring.p_AP, fe->u.spring.body_B, fe->u.spring.p_BQ) -
                       fe->u.spring.free_length;
      Us += 0.5 * fe->u.spring.stiffness * x * x;
    }
  }
  Us += 0.5 * 5.0 * (th - 0.3) * (th - 0.3);
  tu_assert_rel(U, Ug + Us, fabs(U), 1e-13, "U");
}

/* A user element: adds a known force on one body and a generalized force. */
typedef struct { int body; int calls; } user_data;
static void user_force(const mbt_tree* tree, mbt_context* ctx, void* ud, mbt_multibody_forces* forces) {
  (void)ctx;
  user_data* u = ud;
  u->calls++;
  const mbt_spatial_force F = {{{{1, 2, 3}}, {{4, 5, 6}}}};
  mbt_multibody_forces_add_body_force(tree, forces, u->body, &F);
  forces->tau[0] += 10;
}
/* A zero-length spring is an error naming it, and the forces are left unchanged; a user
 * element's forces are added to gravity's and the spring's; forces of the wrong size are an
 * error. */
static void test_errors(void** state) {
  (void)state;
  mbt_tree* tree = mbt_tree_create();
  mbt_spatial_inertia M = tu_rand_inertia();
  const int b = mbt_tree_add_rigid_body(tree, "b", &M);
  assert_true(mbt_tree_add_linear_spring_damper(tree, "zero", 0, mbt_vec3_zero(), b, mbt_vec3_zero(), 1, 1, 1) >= 0);
  user_data ud = {b, 0};
  assert_true(mbt_tree_add_user_force(tree, "user", user_force, &ud) >= 0);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  mbt_context* ctx = mbt_context_create(tree);
  mbt_multibody_forces* forces = mbt_multibody_forces_create(tree);
  forces->tau[0] = 123;
  /* Identity pose: Bo at the world origin, the spring has zero length. */
  assert_int_equal(mbt_calc_force_elements_contribution(tree, ctx, forces), MBT_ERR_SINGULAR);
  assert_true(strstr(mbt_context_last_error(ctx), "zero") != NULL);
  assert_true(forces->tau[0] == 123);
  mbt_real Pc;
  assert_int_equal(mbt_calc_conservative_power(tree, ctx, &Pc), MBT_ERR_SINGULAR);
  /* Moved away, the user element adds its force to gravity's and the spring's. */
  mbt_context_mutable_q(ctx)[6] = 2.0;   /* z of the floating body */
  assert_int_equal(mbt_calc_force_elements_contribution(tree, ctx, forces), MBT_OK);
  assert_int_equal(ud.calls, 1);
  const mbt_spatial_force* F = &forces->F_BBo_W[mbt_tree_body_node(tree, b)];
  const double m = M.mass, g = -9.81;
  /* Spring from the world origin to Bo at (0, 0, 2): stretched by 1, pulls Bo down by k·1 = 1
   * (v = 0, no damping force). */
  const mbt_vec3 c = M.p_PScm_E;
  tu_assert_rel(F->f.v[0], 4, 1, 1e-14, "fx");
  tu_assert_rel(F->f.v[1], 5, 1, 1e-14, "fy");
  tu_assert_rel(F->f.v[2], 6 + m * g - 1, 1, 1e-14, "fz");
  tu_assert_rel(F->tau.v[0], 1 + c.v[1] * m * g, 1, 1e-14, "tx");
  tu_assert_rel(F->tau.v[1], 2 - c.v[0] * m * g, 1, 1e-14, "ty");
  tu_assert_rel(F->tau.v[2], 3, 1, 1e-14, "tz");
  tu_assert_rel(forces->tau[0], 10, 1, 0, "user tau");
  mbt_multibody_forces_destroy(forces);
  /* Wrong size. */
  mbt_tree* other = tu_make_joint_tree();
  mbt_multibody_forces* wrong = mbt_multibody_forces_create(other);
  assert_int_equal(mbt_calc_force_elements_contribution(tree, ctx, wrong), MBT_ERR_SIZE);
  mbt_multibody_forces_destroy(wrong);
  mbt_tree_destroy(other);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kinetic_energy),
      cmocka_unit_test(test_potential_energy_rate),
      cmocka_unit_test(test_force_elements_power),
      cmocka_unit_test(test_energy_balance),
      cmocka_unit_test(test_closed_forms),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}
