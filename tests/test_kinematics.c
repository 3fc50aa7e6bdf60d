/* test_kinematics.c: position, velocity and acceleration kinematics, frame queries,
 * Jacobians, q̇ ↔ v maps, center of mass and momentum, on a branched tree with
 * every mobilizer type, against independent compositions and central differences. */
#include "support/test_util.h"
#include "tree/context_internal.h"

static int setup(void** state) { return tu_fixture_setup(state, 4242, tu_make_branched_tree); }

/* X_WB of every body composed independently: X_WB = X_WP·X_PF·X_FM(q)·X_BM⁻¹. */
static void test_position_kinematics(void** state) {
  tu_fixture* f = *state;
  const mbt_tree* T = f->tree;
  for (int trial = 0; trial < 5; ++trial) {
    tu_rand_state(T, f->ctx);
    assert_int_equal(mbt_calc_position_kinematics_cache(T, f->ctx), MBT_OK);
    mbt_transform X_W[64];
    X_W[0] = mbt_transform_identity();
    /* Bodies in node order so parents come first. */
    for (int node = 1; node < f->nb; ++node) {
      const int b = mbt_tree_node_body(T, node);
      const int m = mbt_tree_body_mobilizer(T, b);
      const int P = mbt_tree_body_parent(T, b);
      assert_true(mbt_tree_body_node(T, P) < node);
      mbt_transform X_PF, X_BM, X_FM;
      assert_int_equal(mbt_tree_frame_pose_in_body(T, mbt_mobilizer_inboard_frame(T, m), &X_PF), MBT_OK);
      assert_int_equal(mbt_tree_frame_pose_in_body(T, mbt_mobilizer_outboard_frame(T, m), &X_BM), MBT_OK);
      mbt_mobilizer_calc_across_mobilizer_transform(T, m, mbt_context_q(f->ctx) + mbt_mobilizer_position_start_in_q(T, m),
                                                    &X_FM);
      const mbt_transform X_MB = mbt_transform_inverse(&X_BM);
      mbt_transform X = mbt_transform_compose(&X_W[P], &X_PF);
      X = mbt_transform_compose(&X, &X_FM);
      X_W[b] = mbt_transform_compose(&X, &X_MB);
      mbt_transform X_WB;
      assert_int_equal(mbt_context_body_pose_in_world(T, f->ctx, b, &X_WB), MBT_OK);
      for (int i = 0; i < 3; ++i) {
        tu_assert_close(X_WB.p.v[i], X_W[b].p.v[i], 1e-14, "p_WBo");
        for (int j = 0; j < 3; ++j) tu_assert_close(X_WB.R.m[i][j], X_W[b].R.m[i][j], 1e-14, "R_WB");
      }
      /* Center of mass and the spatial inertia in W. */
      const mbt_spatial_inertia* M_B = mbt_tree_body_spatial_inertia(T, b);
      mbt_spatial_inertia M_W;
      assert_int_equal(mbt_context_body_spatial_inertia_in_world(T, f->ctx, b, &M_W), MBT_OK);
      const mbt_vec3 p_cm = mbt_transform_apply(&X_WB, M_B->p_PScm_E);
      for (int i = 0; i < 3; ++i)
        tu_assert_close(X_WB.p.v[i] + M_W.p_PScm_E.v[i], p_cm.v[i], 1e-14, "p_WBcm = p_WBo + R_WB·p_BoBcm_B");
      tu_assert_close(M_W.mass, M_B->mass, 0, "mass");
      /* Re-expressed rotational inertia: w_Wᵀ·G_W·w_W = w_Bᵀ·G_B·w_B. */
      const mbt_vec3 wB = tu_rand_vec3(1), wW = mbt_mat3_mul_vec(&X_WB.R, wB);
      const mbt_unit_inertia* G = &M_B->G_SP_E, *GW = &M_W.G_SP_E;
      const double eB = G->xx * wB.v[0] * wB.v[0] + G->yy * wB.v[1] * wB.v[1] + G->zz * wB.v[2] * wB.v[2] +
                        2 * (G->xy * wB.v[0] * wB.v[1] + G->xz * wB.v[0] * wB.v[2] + G->yz * wB.v[1] * wB.v[2]);
      const double eW = GW->xx * wW.v[0] * wW.v[0] + GW->yy * wW.v[1] * wW.v[1] + GW->zz * wW.v[2] * wW.v[2] +
                        2 * (GW->xy * wW.v[0] * wW.v[1] + GW->xz * wW.v[0] * wW.v[2] + GW->yz * wW.v[1] * wW.v[2]);
      tu_assert_close(eW, eB, 1e-14, "G_Bo_W");
    }
    /* Relative transform of two random frames and points positions. */
    const int nf = mbt_tree_num_frames(T);
    for (int k = 0; k < 10; ++k) {
      const int A = (int)((tu_rand() + 1) * 0.5 * (nf - 1)), B = (int)((tu_rand() + 1) * 0.5 * (nf - 1));
      mbt_transform X_AB, X_BFa, X_BFb;
      assert_int_equal(mbt_calc_relative_transform(T, f->ctx, A, B, &X_AB), MBT_OK);
      assert_int_equal(mbt_tree_frame_pose_in_body(T, A, &X_BFa), MBT_OK);
      assert_int_equal(mbt_tree_frame_pose_in_body(T, B, &X_BFb), MBT_OK);
      const mbt_transform X_WA = mbt_transform_compose(&X_W[mbt_tree_frame_body(T, A)], &X_BFa);
      const mbt_transform X_WB = mbt_transform_compose(&X_W[mbt_tree_frame_body(T, B)], &X_BFb);
      const mbt_transform X_WB2 = mbt_transform_compose(&X_WA, &X_AB);
      for (int i = 0; i < 3; ++i) {
        tu_assert_close(X_WB2.p.v[i], X_WB.p.v[i], 1e-14, "X_AB.p");
        for (int j = 0; j < 3; ++j) tu_assert_close(X_WB2.R.m[i][j], X_WB.R.m[i][j], 1e-14, "X_AB.R");
      }
      mbt_real pB[6] = {0.1, 0.2, 0.3, -1, 0.5, 2}, pA[6];
      assert_int_equal(mbt_calc_points_positions(T, f->ctx, B, pB, 2, A, pA, 2), MBT_OK);
      for (int c = 0; c < 2; ++c) {
        const mbt_vec3 p = mbt_transform_apply(&X_AB, mbt_vec3_make(pB[3 * c], pB[3 * c + 1], pB[3 * c + 2]));
        for (int i = 0; i < 3; ++i) tu_assert_close(pA[3 * c + i], p.v[i], 1e-14, "p_AQi");
      }
    }
  }
}

/* Size and index errors are reported, with a message, and leave the outputs unchanged. */
static void test_errors(void** state) {
  tu_fixture* f = *state;
  mbt_real pB[6] = {0}, pA[6] = {7, 7, 7, 7, 7, 7};
  assert_int_equal(mbt_calc_points_positions(f->tree, f->ctx, 0, pB, 2, 0, pA, 1), MBT_ERR_SIZE);
  assert_true(strstr(mbt_context_last_error(f->ctx), "columns") != NULL);
  for (int i = 0; i < 6; ++i) assert_true(pA[i] == 7);
  mbt_transform X;
  assert_int_equal(mbt_calc_relative_transform(f->tree, f->ctx, 0, 9999, &X), MBT_ERR_NOT_FOUND);
  mbt_spatial_velocity V;
  assert_int_equal(mbt_context_body_spatial_velocity_in_world(f->tree, f->ctx, -1, &V), MBT_ERR_NOT_FOUND);
  /* A context of another tree. */
  mbt_tree* other = tu_make_branched_tree();
  assert_non_null(other);
  assert_int_equal(mbt_calc_position_kinematics_cache(other, f->ctx), MBT_ERR_INVALID_ARGUMENT);
  mbt_tree_destroy(other);
}

/* Poses of all bodies at q + s·q̇. */
static void poses_at(tu_fixture* f, const mbt_real* q, const mbt_real* qdot, double s, mbt_transform* X) {
  mbt_real* qc = mbt_context_mutable_q(f->ctx);
  for (int i = 0; i < f->nq; ++i) qc[i] = q[i] + s * qdot[i];
  for (int b = 0; b < f->nb; ++b) assert_int_equal(mbt_context_body_pose_in_world(f->tree, f->ctx, b, &X[b]), MBT_OK);
}

/* V_WB = d/dt X_WB along q̇ = N(q)·v and A_WB = d/dt V_WB along (q̇, v̇), by central
 * differences (error O(h²)); J_WFp·v = V_WFp; V_PB_W = H_PB_W·v_B. */
static void test_velocity_acceleration(void** state) {
  tu_fixture* f = *state;
  const mbt_tree* T = f->tree;
  mbt_real q[64], v[64], vd[64], qdot[64];
  for (int trial = 0; trial < 5; ++trial) {
    tu_rand_state(T, f->ctx);
    memcpy(q, mbt_context_q(f->ctx), sizeof(mbt_real) * f->nq);
    memcpy(v, mbt_context_v(f->ctx), sizeof(mbt_real) * f->nv);
    tu_rand_array(vd, f->nv, 1.0);
    assert_int_equal(mbt_map_velocity_to_qdot(T, f->ctx, v, qdot), MBT_OK);
    mbt_real v2[64];
    assert_int_equal(mbt_map_qdot_to_velocity(T, f->ctx, qdot, v2), MBT_OK);
    for (int i = 0; i < f->nv; ++i) tu_assert_close(v2[i], v[i], 1e-12, "N⁺·N·v");

    mbt_spatial_velocity V[64];
    for (int b = 0; b < f->nb; ++b)
      assert_int_equal(mbt_context_body_spatial_velocity_in_world(T, f->ctx, b, &V[b]), MBT_OK);
    assert_int_equal(mbt_calc_acceleration_kinematics_cache(T, f->ctx, vd), MBT_OK);
    mbt_spatial_acceleration A[64], A2[64];
    for (int b = 0; b < f->nb; ++b)
      assert_int_equal(mbt_context_body_spatial_acceleration_in_world(T, f->ctx, b, &A[b]), MBT_OK);
    assert_int_equal(mbt_calc_spatial_accelerations_from_vdot(T, f->ctx, vd, A2), MBT_OK);
    for (int b = 0; b < f->nb; ++b)
      for (int i = 0; i < 6; ++i) tu_assert_close(A2[mbt_tree_body_node(T, b)].coeffs[i], A[b].coeffs[i], 0, "A_WB arrays");

    /* H_PB_W */
    for (int b = 1; b < f->nb; ++b) {
      const int m = mbt_tree_body_mobilizer(T, b), nvb = mbt_mobilizer_num_velocities(T, m);
      const int vs = mbt_mobilizer_velocity_start_in_v(T, m);
      mbt_spatial_velocity H[6];
      assert_int_equal(mbt_context_body_H_PB_W(T, f->ctx, b, H), MBT_OK);
      /* V_PB_W = V_WB − V_WP shifted to Bo: [w_WB − w_WP; v_WBo − v_WPo − w_WP × p_PoBo_W]. */
      const int p = mbt_tree_body_parent(T, b);
      mbt_transform X_WP, X_WB;
      assert_int_equal(mbt_context_body_pose_in_world(T, f->ctx, p, &X_WP), MBT_OK);
      assert_int_equal(mbt_context_body_pose_in_world(T, f->ctx, b, &X_WB), MBT_OK);
      const mbt_vec3 p_PoBo = mbt_vec3_sub(X_WB.p, X_WP.p);
      mbt_spatial_velocity Vpb;
      Vpb.w = mbt_vec3_sub(V[b].w, V[p].w);
      Vpb.v = mbt_vec3_sub(mbt_vec3_sub(V[b].v, V[p].v), mbt_vec3_cross(V[p].w, p_PoBo));
      for (int i = 0; i < 6; ++i) {
        double s = 0;
        for (int k = 0; k < nvb; ++k) s += H[k].coeffs[i] * v[vs + k];
        tu_assert_close(s, Vpb.coeffs[i], 1e-13, "V_PB_W = H_PB_W·v");
      }
    }

    const double h = 1e-5;
    mbt_transform Xp[64], Xm[64], X0[64];
    poses_at(f, q, qdot, h, Xp);
    poses_at(f, q, qdot, -h, Xm);
    poses_at(f, q, qdot, 0, X0);
    for (int b = 1; b < f->nb; ++b) {
      mbt_mat3 Rdot;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) Rdot.m[i][j] = (Xp[b].R.m[i][j] - Xm[b].R.m[i][j]) / (2 * h);
      const mbt_mat3 S = mbt_mat3_mul_t(&Rdot, &X0[b].R);
      const mbt_vec3 w = mbt_vec3_make(S.m[2][1], S.m[0][2], S.m[1][0]);
      for (int i = 0; i < 3; ++i) {
        tu_assert_close(w.v[i], V[b].w.v[i], 1e-7, "w_WB");
        tu_assert_close((Xp[b].p.v[i] - Xm[b].p.v[i]) / (2 * h), V[b].v.v[i], 1e-7, "v_WBo");
      }
    }
    /* A_WB: V_WB at (q ± h·q̇, v ± h·v̇). */
    mbt_spatial_velocity Vp[64], Vm[64];
    for (int sgn = -1; sgn <= 1; sgn += 2) {
      mbt_real* qc = mbt_context_mutable_q(f->ctx);
      mbt_real* vc = mbt_context_mutable_v(f->ctx);
      for (int i = 0; i < f->nq; ++i) qc[i] = q[i] + sgn * h * qdot[i];
      for (int i = 0; i < f->nv; ++i) vc[i] = v[i] + sgn * h * vd[i];
      for (int b = 0; b < f->nb; ++b)
        assert_int_equal(mbt_context_body_spatial_velocity_in_world(T, f->ctx, b, sgn > 0 ? &Vp[b] : &Vm[b]), MBT_OK);
    }
    for (int b = 1; b < f->nb; ++b)
      for (int i = 0; i < 6; ++i) tu_assert_close((Vp[b].coeffs[i] - Vm[b].coeffs[i]) / (2 * h), A[b].coeffs[i], 1e-7, "A_WB");

    /* Restore the state; J_WFp·v = V_WFp for random frames and points. */
    assert_int_equal(mbt_context_set_q(f->ctx, q, f->nq), MBT_OK);
    assert_int_equal(mbt_context_set_v(f->ctx, v, f->nv), MBT_OK);
    static mbt_real J[6 * 64];
    for (int F = 0; F < mbt_tree_num_frames(T); ++F) {
      const mbt_vec3 p_FoFp_F = tu_rand_vec3(0.5);
      assert_int_equal(mbt_calc_jacobian_spatial_velocity(T, f->ctx, F, p_FoFp_F, J), MBT_OK);
      mbt_spatial_velocity V_WF;
      assert_int_equal(mbt_calc_frame_spatial_velocity_in_world(T, f->ctx, F, &V_WF), MBT_OK);
      mbt_transform X_WF;
      assert_int_equal(mbt_calc_relative_transform(T, f->ctx, 0, F, &X_WF), MBT_OK);
      const mbt_vec3 p_FoFp_W = mbt_mat3_mul_vec(&X_WF.R, p_FoFp_F);
      mbt_spatial_velocity V_WFp;
      V_WFp.w = V_WF.w;
      V_WFp.v = mbt_vec3_add(V_WF.v, mbt_vec3_cross(V_WF.w, p_FoFp_W));
      for (int r = 0; r < 6; ++r) {
        double s = 0;
        for (int c = 0; c < f->nv; ++c) s += J[r * f->nv + c] * v[c];
        tu_assert_close(s, V_WFp.coeffs[r], 1e-13, "J_WFp·v");
      }
      /* Frame velocity against the frame's pose derivative. */
      mbt_transform Xfp, Xfm;
      poses_at(f, q, qdot, h, Xp);
      assert_int_equal(mbt_calc_relative_transform(T, f->ctx, 0, F, &Xfp), MBT_OK);
      poses_at(f, q, qdot, -h, Xm);
      assert_int_equal(mbt_calc_relative_transform(T, f->ctx, 0, F, &Xfm), MBT_OK);
      for (int i = 0; i < 3; ++i) tu_assert_close((Xfp.p.v[i] - Xfm.p.v[i]) / (2 * h), V_WF.v.v[i], 1e-7, "v_WFo");
      assert_int_equal(mbt_context_set_q(f->ctx, q, f->nq), MBT_OK);
    }
  }
}

/* Center of mass: velocity = d/dt position; momentum: l = m_total·v_Scm, h shifts as
 * h_P = h_Q + p_PQ × l, and about Scm equals Σ (I_Bcm·w_B + m_B·p_ScmBcm × v_Bcm). */
static void test_com_momentum(void** state) {
  tu_fixture* f = *state;
  const mbt_tree* T = f->tree;
  tu_rand_state(T, f->ctx);
  mbt_real q[64], v[64], qdot[64];
  memcpy(q, mbt_context_q(f->ctx), sizeof(mbt_real) * f->nq);
  memcpy(v, mbt_context_v(f->ctx), sizeof(mbt_real) * f->nv);
  assert_int_equal(mbt_map_velocity_to_qdot(T, f->ctx, v, qdot), MBT_OK);
  mbt_vec3 p, vcm, pp, pm;
  assert_int_equal(mbt_calc_center_of_mass_position(T, f->ctx, &p), MBT_OK);
  assert_int_equal(mbt_calc_center_of_mass_velocity(T, f->ctx, &vcm), MBT_OK);
  /* Independent: Σ m·p_WBcm over bodies. */
  double mt = 0;
  mbt_vec3 s = mbt_vec3_zero();
  for (int b = 1; b < f->nb; ++b) {
    mbt_transform X;
    mbt_context_body_pose_in_world(T, f->ctx, b, &X);
    const mbt_spatial_inertia* M = mbt_tree_body_spatial_inertia(T, b);
    mt += M->mass;
    s = mbt_vec3_axpy(s, M->mass, mbt_transform_apply(&X, M->p_PScm_E));
  }
  tu_assert_close(mt, mbt_tree_total_mass(T), 1e-14, "total mass");
  for (int i = 0; i < 3; ++i) tu_assert_close(p.v[i], s.v[i] / mt, 1e-14, "p_WScm");
  const double h = 1e-5;
  mbt_real qs[64];
  for (int i = 0; i < f->nq; ++i) qs[i] = q[i] + h * qdot[i];
  mbt_context_set_q(f->ctx, qs, f->nq);
  mbt_calc_center_of_mass_position(T, f->ctx, &pp);
  for (int i = 0; i < f->nq; ++i) qs[i] = q[i] - h * qdot[i];
  mbt_context_set_q(f->ctx, qs, f->nq);
  mbt_calc_center_of_mass_position(T, f->ctx, &pm);
  mbt_context_set_q(f->ctx, q, f->nq);
  for (int i = 0; i < 3; ++i) tu_assert_close((pp.v[i] - pm.v[i]) / (2 * h), vcm.v[i], 1e-8, "v_WScm");

  mbt_spatial_momentum L0, Lc;
  const mbt_vec3 P = tu_rand_vec3(2);
  assert_int_equal(mbt_calc_spatial_momentum_in_world_about_point(T, f->ctx, P, &L0), MBT_OK);
  assert_int_equal(mbt_calc_spatial_momentum_in_world_about_point(T, f->ctx, p, &Lc), MBT_OK);
  mbt_vec3 hc = mbt_vec3_zero();
  for (int b = 1; b < f->nb; ++b) {
    mbt_transform X;
    mbt_spatial_velocity V;
    mbt_context_body_pose_in_world(T, f->ctx, b, &X);
    mbt_context_body_spatial_velocity_in_world(T, f->ctx, b, &V);
    const mbt_spatial_inertia* M = mbt_tree_body_spatial_inertia(T, b);
    /* I_Bcm in B, by the parallel-axis theorem, then in W. */
    const mbt_vec3 c = M->p_PScm_E;
    const mbt_mat3 I = tu_inertia_about_com(M);
    const mbt_vec3 wB = mbt_mat3_tmul_vec(&X.R, V.w);
    const mbt_vec3 hB = mbt_mat3_mul_vec(&I, wB);
    const mbt_vec3 p_BoBcm_W = mbt_mat3_mul_vec(&X.R, c);
    const mbt_vec3 v_cm = mbt_vec3_add(V.v, mbt_vec3_cross(V.w, p_BoBcm_W));
    const mbt_vec3 p_ScmBcm = mbt_vec3_sub(mbt_vec3_add(X.p, p_BoBcm_W), p);
    hc = mbt_vec3_add(hc, mbt_vec3_add(mbt_mat3_mul_vec(&X.R, hB), mbt_vec3_scale(mbt_vec3_cross(p_ScmBcm, v_cm), M->mass)));
  }
  for (int i = 0; i < 3; ++i) {
    tu_assert_close(Lc.l.v[i], mt * vcm.v[i], 1e-13, "l = m·v_Scm");
    tu_assert_close(L0.l.v[i], Lc.l.v[i], 1e-13, "l independent of the point");
    tu_assert_close(Lc.h.v[i], hc.v[i], 1e-13, "h about Scm");
  }
  const mbt_vec3 h_shift = mbt_vec3_add(Lc.h, mbt_vec3_cross(mbt_vec3_sub(p, P), Lc.l));
  for (int i = 0; i < 3; ++i) tu_assert_close(L0.h.v[i], h_shift.v[i], 1e-13, "h_P = h_Scm + p_PScm × l");
}

/* Gimbal lock: the whole-tree v → q̇ map reports MBT_ERR_SINGULAR and leaves q̇ unchanged. */
static void test_map_singular(void** state) {
  tu_fixture* f = *state;
  const mbt_tree* T = f->tree;
  tu_rand_state(T, f->ctx);
  for (int m = 0; m < mbt_tree_num_mobilizers(T); ++m)
    if (mbt_mobilizer_type_of(T, m) == MBT_MOBILIZER_SPACE_XYZ)
      mbt_context_mutable_q(f->ctx)[mbt_mobilizer_position_start_in_q(T, m) + 1] = TU_PI / 2;
  mbt_real qdot[64], v[64];
  for (int i = 0; i < f->nq; ++i) qdot[i] = 5;
  tu_rand_array(v, f->nv, 1);
  assert_int_equal(mbt_map_velocity_to_qdot(T, f->ctx, v, qdot), MBT_ERR_SINGULAR);
  assert_true(strstr(mbt_context_last_error(f->ctx), "b5_mob") != NULL);
  for (int i = 0; i < f->nq; ++i) assert_true(qdot[i] == 5);
  /* The other direction is defined. */
  assert_int_equal(mbt_map_qdot_to_velocity(T, f->ctx, qdot, v), MBT_OK);
}

/* The joint angles' sin and cos (the vector batch of mbt__calc_joint_sincos, four or two lanes
 * and the remainder) against the C library's, on chains of 1 to 9 revolute joints: SLEEF's are
 * within 1 ulp and so are the C library's: the two within 3e-16 for |q| ≤ 10. */
static void test_joint_sincos(void** state) {
  (void)state;
  for (int n = 1; n <= 9; ++n) {
    mbt_tree* T = mbt_tree_create();
    assert_non_null(T);
    tu_add_chain(T, "c", n, false);
    assert_int_equal(mbt_tree_finalize(T), MBT_OK);
    mbt_context* ctx = mbt_context_create(T);
    assert_non_null(ctx);
    mbt_real q[9];
    for (int i = 0; i < n; ++i) q[i] = 10 * tu_rand();
    assert_int_equal(mbt_context_set_q(ctx, q, n), MBT_OK);
    assert_int_equal(mbt_calc_position_kinematics_cache(T, ctx), MBT_OK);
    assert_true(ctx->sincos_valid);
    for (int i = 0; i < n; ++i) {
      tu_assert_close(ctx->sin_q[i], sin(q[i]), 3e-16, "sin q");
      tu_assert_close(ctx->cos_q[i], cos(q[i]), 3e-16, "cos q");
    }
    mbt_context_destroy(ctx);
    mbt_tree_destroy(T);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_position_kinematics),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_velocity_acceleration),
      cmocka_unit_test(test_com_momentum),
      cmocka_unit_test(test_map_singular),
      cmocka_unit_test(test_joint_sincos),
  };
  return cmocka_run_group_tests(tests, setup, tu_fixture_teardown);
}
