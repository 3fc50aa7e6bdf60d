/* Tests of mbt/context.h: creation (every array allocated), the default context (seed
 * SetDefaultContext: joints' default positions or zero configurations, v = 0), q, v and
 * x = [q; v] accessors, cache invalidation, clone/copy_state, and independence of contexts. */
#include "support/test_util.h"

#include "tree/context_internal.h"

/* world → arm (revolute, default angle 0.6) → slider (prismatic, default 0.2);
 * world → drone (floating joint, default pose); loose (no joint: floating mobilizer). */
typedef struct {
  mbt_tree* t;
  int arm, slider, drone, loose;
  int j_arm, j_slider, j_drone;
  mbt_transform X_drone;
} model;

static model make_model(void) {
  model m;
  m.t = mbt_tree_create();
  mbt_spatial_inertia M = tu_body_inertia();
  m.arm = mbt_tree_add_rigid_body(m.t, "arm", &M);
  m.slider = mbt_tree_add_rigid_body(m.t, "slider", &M);
  m.drone = mbt_tree_add_rigid_body(m.t, "drone", &M);
  m.loose = mbt_tree_add_rigid_body(m.t, "loose", &M);
  m.j_arm = mbt_tree_add_revolute_joint(m.t, "shoulder", 0, NULL, m.arm, NULL, mbt_vec3_make(0, 1, 0), 0.4);
  m.j_slider = mbt_tree_add_prismatic_joint(m.t, "rail", m.arm, NULL, m.slider, NULL, mbt_vec3_make(1, 0, 0), 0.1);
  const mbt_real d6[6] = {1, 2, 3, 4, 5, 6};
  m.j_drone = mbt_tree_add_quaternion_floating_joint(m.t, "flight", 0, NULL, m.drone, NULL, d6);
  assert_int_equal(mbt_revolute_joint_set_default_angle(m.t, m.j_arm, 0.6), MBT_OK);
  const mbt_real x0 = 0.2;
  assert_int_equal(mbt_joint_set_default_positions(m.t, m.j_slider, &x0, 1), MBT_OK);
  m.X_drone.R = mbt_rotation_from_rpy(mbt_vec3_make(0.2, 0.3, -0.4));
  m.X_drone.p = mbt_vec3_make(1, 2, 3);
  assert_int_equal(mbt_joint_set_default_pose(m.t, m.j_drone, &m.X_drone), MBT_OK);
  assert_int_equal(mbt_tree_finalize(m.t), MBT_OK);
  return m;
}

/* Every array of the context exists and has its size (ASan checks the extent). */
static void test_create_allocates_everything(void** state) {
  (void)state;
  model m = make_model();
  mbt_context* ctx = mbt_context_create(m.t);
  assert_non_null(ctx);
  assert_ptr_equal(mbt_context_tree(ctx), m.t);
  const int nn = m.t->num_nodes, nv = mbt_tree_num_velocities(m.t);
  assert_int_equal(nn, 5);
  assert_int_equal(nv, 1 + 1 + 6 + 6);
  assert_int_equal(mbt_tree_num_positions(m.t), 1 + 1 + 7 + 7);
  void* per_node[] = {ctx->ac.A_WB, ctx->scratch_F, ctx->M_BBo_B, ctx->mp_BoBcm_M, ctx->mp_BoBcm_W};
  void* per_local_node[] = {ctx->pc.X_WM, ctx->pc.p_WoRo, ctx->vc.V,  ctx->aba.I_Ro, ctx->aba.Ic_trace, ctx->aba.P,
                            ctx->aba.flags, ctx->vc.c,    ctx->aba.Z, ctx->aba.A,    ctx->I_Mo_M,       ctx->scratch_Ic,
                            ctx->aba.node_last_dof};
  for (size_t k = 0; k < sizeof per_local_node / sizeof per_local_node[0]; ++k) assert_non_null(per_local_node[k]);
  const int nl = m.t->num_local_nodes;
  for (size_t k = 0; k < sizeof per_node / sizeof per_node[0]; ++k) assert_non_null(per_node[k]);
  /* Write the last element of each array: out of bounds would be caught by AddressSanitizer. */
  ctx->ac.A_WB[nn - 1].coeffs[5] = 1;
  ctx->scratch_F[nn - 1].coeffs[5] = 1;
  ctx->pc.H[nv - 1].coeffs[5] = 1;
  ctx->aba.U[nv - 1].coeffs[5] = 1;
  ctx->aba.D_LLT[6 * nv - 1] = 1;
  ctx->aba.D_inv[nv - 1] = 1;
  ctx->aba.dof_parent[nv - 1] = -1;
  ctx->aba.M_diag[nv - 1] = 1;
  ctx->aba.e[nv - 1] = 1;
  ctx->aba.P[nl - 1].C.zz = 1;
  ctx->aba.Ic_trace[nl - 1] = 1;
  ctx->aba.I_Ro[nl - 1].m = 1;
  ctx->pc.p_WoRo[nl - 1] = mbt_vec3_zero();
  ctx->I_Mo_M[nl - 1].m = 1;
  ctx->pc.X_WM[nl - 1] = mbt_transform_identity();
  ctx->vc.V[nl - 1].coeffs[5] = 1;
  ctx->scratch_Ic[nl - 1].m = 1;
  ctx->vc.c[nl - 1].coeffs[5] = 1;
  ctx->aba.Z[nl - 1].coeffs[5] = 1;
  ctx->aba.flags[nl - 1] = 0;
  ctx->M_BBo_B[nn - 1].mass = 1;
  ctx->mp_BoBcm_M[nn - 1] = mbt_vec3_zero();
  ctx->mp_BoBcm_W[nn - 1] = mbt_vec3_zero();
  ctx->aba.node_last_dof[nl - 1] = -1;
  ctx->aba.A[nl - 1].coeffs[5] = 1;
  for (int i = 0; i < 4; ++i) ctx->scratch_nv[i][nv - 1] = 1;
  ctx->scratch_nvnv[nv * nv - 1] = 1;
  ctx->joint_locked[mbt_tree_num_joints(m.t) - 1] = false;
  ctx->v_locked[nv - 1] = false;
  ctx->damping[nv - 1] = 0;
  assert_non_null(ctx->forces);
  assert_int_equal(ctx->forces->num_bodies, nn);
  assert_int_equal(ctx->forces->nv, nv);
  assert_string_equal(mbt_context_last_error(ctx), "");
  mbt_context_destroy(ctx);
  mbt_tree_destroy(m.t);
}

static void test_default_context(void** state) {
  (void)state;
  model m = make_model();
  mbt_context* ctx = mbt_context_create(m.t);
  mbt_real value;
  assert_int_equal(mbt_revolute_joint_get_angle(ctx, m.j_arm, &value), MBT_OK);
  assert_near(value, 0.6, 0);
  assert_int_equal(mbt_prismatic_joint_get_translation(ctx, m.j_slider, &value), MBT_OK);
  assert_near(value, 0.2, 0);
  /* The floating joint at its default pose. */
  mbt_transform X;
  assert_int_equal(mbt_floating_joint_get_pose(ctx, m.j_drone, &X), MBT_OK);
  for (int i = 0; i < 3; ++i) {
    assert_near(X.p.v[i], m.X_drone.p.v[i], 1e-15);
    for (int k = 0; k < 3; ++k) assert_near(X.R.m[i][k], m.X_drone.R.m[i][k], 1e-14);
  }
  /* The body without a joint: identity quaternion, zero position. */
  const int mob = mbt_tree_body_mobilizer(m.t, m.loose);
  const mbt_real* q_loose = mbt_mobilizer_positions_from_array(m.t, mob, mbt_context_q(ctx));
  const mbt_real zero_state[7] = {1, 0, 0, 0, 0, 0, 0};
  for (int k = 0; k < 7; ++k) assert_near(q_loose[k], zero_state[k], 0);
  /* Velocities zero, time zero, damping at the defaults (0 for the floating mobilizer). */
  for (int k = 0; k < mbt_tree_num_velocities(m.t); ++k) assert_near(mbt_context_v(ctx)[k], 0, 0);
  assert_near(mbt_context_time(ctx), 0, 0);
  assert_near(mbt_joint_damping_vector(ctx, m.j_arm)[0], 0.4, 0);
  assert_near(mbt_joint_damping_vector(ctx, m.j_slider)[0], 0.1, 0);
  for (int k = 0; k < 6; ++k) assert_near(mbt_joint_damping_vector(ctx, m.j_drone)[k], k + 1, 0);
  const int v_loose = mbt_mobilizer_velocity_start_in_v(m.t, mob);
  for (int k = 0; k < 6; ++k) assert_near(ctx->damping[v_loose + k], 0, 0);

  /* SetDefaultContext restores all of it. */
  const int nq = mbt_tree_num_positions(m.t), nv = mbt_tree_num_velocities(m.t);
  mbt_real x[64];
  for (int k = 0; k < nq + nv; ++k) x[k] = 0.01 * (k + 1);
  assert_int_equal(mbt_context_set_x(ctx, x, nq + nv), MBT_OK);
  mbt_context_set_time(ctx, 3.5);
  assert_int_equal(mbt_revolute_joint_set_damping(ctx, m.j_arm, 9), MBT_OK);
  assert_int_equal(mbt_joint_lock(ctx, m.j_slider), MBT_OK);
  mbt_tree_set_default_context(m.t, ctx);
  assert_int_equal(mbt_revolute_joint_get_angle(ctx, m.j_arm, &value), MBT_OK);
  assert_near(value, 0.6, 0);
  for (int k = 0; k < 7; ++k) assert_near(q_loose[k], zero_state[k], 0);
  for (int k = 0; k < nv; ++k) assert_near(mbt_context_v(ctx)[k], 0, 0);
  assert_near(mbt_context_time(ctx), 0, 0);
  assert_near(mbt_joint_damping_vector(ctx, m.j_arm)[0], 0.4, 0);
  assert_false(mbt_joint_is_locked(ctx, m.j_slider));
  mbt_context_destroy(ctx);
  mbt_tree_destroy(m.t);
}

static void test_state_accessors(void** state) {
  (void)state;
  model m = make_model();
  mbt_context* ctx = mbt_context_create(m.t);
  const int nq = mbt_tree_num_positions(m.t), nv = mbt_tree_num_velocities(m.t);
  assert_int_equal(mbt_tree_num_states(m.t), nq + nv);
  mbt_real q[32], v[32], x[64], y[64];
  for (int k = 0; k < nq; ++k) q[k] = 0.5 + k;
  for (int k = 0; k < nv; ++k) v[k] = -1.0 - k;
  assert_int_equal(mbt_context_set_q(ctx, q, nq), MBT_OK);
  assert_int_equal(mbt_context_set_v(ctx, v, nv), MBT_OK);
  assert_int_equal(mbt_context_get_x(ctx, x, nq + nv), MBT_OK);
  for (int k = 0; k < nq; ++k) assert_near(x[k], q[k], 0);
  for (int k = 0; k < nv; ++k) assert_near(x[nq + k], v[k], 0);
  for (int k = 0; k < nq + nv; ++k) y[k] = 100 + k;
  assert_int_equal(mbt_context_set_x(ctx, y, nq + nv), MBT_OK);
  for (int k = 0; k < nq; ++k) assert_near(mbt_context_q(ctx)[k], 100 + k, 0);
  for (int k = 0; k < nv; ++k) assert_near(mbt_context_v(ctx)[k], 100 + nq + k, 0);

  /* Wrong sizes: MBT_ERR_SIZE, nothing changed. */
  assert_int_equal(mbt_context_set_q(ctx, q, nq - 1), MBT_ERR_SIZE);
  assert_contains(mbt_context_last_error(ctx), "mbt_context_set_q");
  assert_int_equal(mbt_context_set_q(ctx, q, nq + nv), MBT_ERR_SIZE);
  assert_int_equal(mbt_context_set_v(ctx, v, nq), MBT_ERR_SIZE);
  assert_contains(mbt_context_last_error(ctx), "v has");
  assert_int_equal(mbt_context_set_x(ctx, x, nq), MBT_ERR_SIZE);
  assert_int_equal(mbt_context_get_x(ctx, x, nv), MBT_ERR_SIZE);
  for (int k = 0; k < nq; ++k) assert_near(mbt_context_q(ctx)[k], 100 + k, 0);
  for (int k = 0; k < nv; ++k) assert_near(mbt_context_v(ctx)[k], 100 + nq + k, 0);

  /* Setters invalidate the caches that depend on what they set. */
  ctx->position_valid = ctx->velocity_valid = ctx->aba_position_valid = true;
  assert_int_equal(mbt_context_set_v(ctx, v, nv), MBT_OK);
  assert_true(ctx->position_valid);
  assert_false(ctx->velocity_valid);
  ctx->velocity_valid = true;
  mbt_context_mutable_q(ctx)[0] = 0.25;
  assert_false(ctx->position_valid);
  assert_false(ctx->velocity_valid);
  assert_false(ctx->aba_position_valid);
  ctx->position_valid = ctx->velocity_valid = ctx->aba_position_valid = true;
  mbt_context_mutable_v(ctx)[0] = 0.5;
  assert_true(ctx->position_valid);
  assert_false(ctx->velocity_valid);
  ctx->velocity_valid = true;
  assert_int_equal(mbt_revolute_joint_set_angle(ctx, m.j_arm, 0.1), MBT_OK);
  assert_false(ctx->position_valid);
  assert_false(ctx->velocity_valid);
  mbt_context_set_time(ctx, 1.5);
  assert_near(mbt_context_time(ctx), 1.5, 0);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(m.t);
}

/* Two contexts of one tree are independent; clone and copy_state copy state and parameters. */
static void test_contexts_independent(void** state) {
  (void)state;
  model m = make_model();
  mbt_context* a = mbt_context_create(m.t);
  mbt_context* b = mbt_context_create(m.t);
  assert_ptr_not_equal(a->q, b->q);
  assert_int_equal(mbt_revolute_joint_set_angle(a, m.j_arm, -1.0), MBT_OK);
  assert_int_equal(mbt_revolute_joint_set_angular_rate(a, m.j_arm, 2.0), MBT_OK);
  assert_int_equal(mbt_revolute_joint_set_damping(a, m.j_arm, 5.0), MBT_OK);
  assert_int_equal(mbt_joint_lock(a, m.j_slider), MBT_OK);
  mbt_context_set_time(a, 7);
  mbt_real value;
  assert_int_equal(mbt_revolute_joint_get_angle(b, m.j_arm, &value), MBT_OK);
  assert_near(value, 0.6, 0);
  assert_int_equal(mbt_revolute_joint_get_angular_rate(b, m.j_arm, &value), MBT_OK);
  assert_near(value, 0, 0);
  assert_int_equal(mbt_revolute_joint_get_damping(b, m.j_arm, &value), MBT_OK);
  assert_near(value, 0.4, 0);
  assert_false(mbt_joint_is_locked(b, m.j_slider));
  assert_near(mbt_context_time(b), 0, 0);

  mbt_context* c = mbt_context_clone(a);
  assert_non_null(c);
  assert_ptr_not_equal(c->q, a->q);
  assert_int_equal(mbt_revolute_joint_get_angle(c, m.j_arm, &value), MBT_OK);
  assert_near(value, -1.0, 0);
  assert_int_equal(mbt_revolute_joint_get_angular_rate(c, m.j_arm, &value), MBT_OK);
  assert_near(value, 2.0, 0);
  assert_int_equal(mbt_revolute_joint_get_damping(c, m.j_arm, &value), MBT_OK);
  assert_near(value, 5.0, 0);
  assert_true(mbt_joint_is_locked(c, m.j_slider));
  assert_true(c->any_locked);
  assert_near(mbt_context_time(c), 7, 0);
  /* Changing the clone leaves the original alone. */
  assert_int_equal(mbt_revolute_joint_set_angle(c, m.j_arm, 3.0), MBT_OK);
  assert_int_equal(mbt_revolute_joint_get_angle(a, m.j_arm, &value), MBT_OK);
  assert_near(value, -1.0, 0);

  assert_int_equal(mbt_context_copy_state(b, a), MBT_OK);
  assert_int_equal(mbt_revolute_joint_get_angle(b, m.j_arm, &value), MBT_OK);
  assert_near(value, -1.0, 0);
  assert_int_equal(mbt_revolute_joint_get_damping(b, m.j_arm, &value), MBT_OK);
  assert_near(value, 5.0, 0);
  assert_true(mbt_joint_is_locked(b, m.j_slider));
  assert_near(mbt_context_time(b), 7, 0);

  /* A context of another tree cannot be copied into. */
  model other = make_model();
  mbt_context* d = mbt_context_create(other.t);
  assert_int_equal(mbt_context_copy_state(d, a), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_context_last_error(d), "different trees");
  assert_int_equal(mbt_revolute_joint_get_angle(d, other.j_arm, &value), MBT_OK);
  assert_near(value, 0.6, 0);
  mbt_context_destroy(d);
  mbt_tree_destroy(other.t);

  mbt_context_destroy(c);
  mbt_context_destroy(b);
  mbt_context_destroy(a);
  mbt_tree_destroy(m.t);
}

/* A tree with no degrees of freedom still gives a usable context. */
static void test_context_without_dofs(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = tu_body_inertia();
  const int a = mbt_tree_add_rigid_body(t, "a", &M);
  assert_true(mbt_tree_add_weld_joint(t, "weld", 0, NULL, a, NULL) >= 0);
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  assert_int_equal(mbt_tree_num_states(t), 0);
  mbt_context* ctx = mbt_context_create(t);
  assert_non_null(ctx);
  assert_int_equal(mbt_context_set_x(ctx, NULL, 0), MBT_OK);
  assert_int_equal(mbt_context_get_x(ctx, NULL, 0), MBT_OK);
  mbt_context* c = mbt_context_clone(ctx);
  assert_non_null(c);
  mbt_context_destroy(c);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(t);
}


/* world → w0 (weld) → a (revolute) → a1 (weld) → a2 (weld) → c (revolute)
 *                                 → b (prismatic),  a1 → d (universal):
 * welds to the world and between moving bodies, random frames and inertias (seeded). */
static mbt_tree* make_welded_tree(uint64_t seed) {
  tu_seed(seed);
  mbt_tree* t = mbt_tree_create();
  const int w0 = tu_add_body_with_mobilizer(t, "w0", 0, MBT_MOBILIZER_WELD, false);
  const int a = tu_add_body_with_mobilizer(t, "a", w0, MBT_MOBILIZER_REVOLUTE, false);
  const int a1 = tu_add_body_with_mobilizer(t, "a1", a, MBT_MOBILIZER_WELD, false);
  const int a2 = tu_add_body_with_mobilizer(t, "a2", a1, MBT_MOBILIZER_WELD, false);
  assert_true(tu_add_body_with_mobilizer(t, "c", a2, MBT_MOBILIZER_REVOLUTE, false) > 0);
  assert_true(tu_add_body_with_mobilizer(t, "b", a, MBT_MOBILIZER_PRISMATIC, false) > 0);
  assert_true(tu_add_body_with_mobilizer(t, "d", a1, MBT_MOBILIZER_UNIVERSAL, false) > 0);
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  return t;
}

/* The body inertias, merged local-node inertias and gravity are context parameters: changing a
 * body's inertia in the context (mbt__context_update_body_inertia) gives, for every body, welded
 * or moving, the dynamics of a tree built with that inertia; another context is unaffected; the
 * tree's gravity reaches a context at creation and at mbt_tree_set_default_context. */
static void test_inertia_parameters(void** state) {
  (void)state;
  mbt_tree* t = make_welded_tree(11);
  mbt_context* ctx = mbt_context_create(t);
  mbt_context* other = mbt_context_create(t);
  const int nv = t->nv, nq = t->nq;
  mbt_real q[16], v[16], M1[256], M2[256], tau1[16], tau2[16], vd1[16], vd2[16], M0[256];
  assert_true(nv <= 16 && nq <= 16);
  tu_rand_state(t, ctx);
  mbt_context_get_x(ctx, q, nq + nv);
  for (int k = 0; k < nv; ++k) v[k] = q[nq + k];
  mbt_context_copy_state(other, ctx);
  assert_int_equal(mbt_calc_mass_matrix(t, other, M0), MBT_OK);
  for (int b = 1; b < t->num_bodies; ++b) {
    const mbt_spatial_inertia Mb = tu_rand_inertia();
    const int node = t->bodies[b].node;
    /* In the context ... */
    assert_int_equal(mbt_calc_forward_dynamics(t, ctx, NULL, NULL, vd1), MBT_OK); /* caches filled */
    ctx->M_BBo_B[node] = Mb;
    mbt__context_update_body_inertia(ctx, node);
    /* ... against a tree built with it. */
    mbt_tree* t2 = make_welded_tree(11);
    for (int b2 = 1; b2 < t2->num_bodies; ++b2) t2->bodies[b2].M_BBo_B = ctx->M_BBo_B[t->bodies[b2].node];
    mbt_context* c2 = mbt_context_create(t2);
    assert_int_equal(mbt_context_set_q(c2, q, nq), MBT_OK);
    assert_int_equal(mbt_context_set_v(c2, v, nv), MBT_OK);
    const mbt_inertia_moments* I1 = &ctx->I_Mo_M[t->nodes[node].host];
    const mbt_inertia_moments* I2 = &c2->I_Mo_M[t2->nodes[node].host];
    tu_assert_close(I1->m, I2->m, 1e-14, "merged mass");
    for (int i = 0; i < 6; ++i) tu_assert_close(I1->K[i], I2->K[i], 1e-13, "merged second moment");
    tu_assert_vec3_near(I1->h, I2->h, 1e-14);
    assert_int_equal(mbt_calc_mass_matrix(t, ctx, M1), MBT_OK);
    assert_int_equal(mbt_calc_mass_matrix(t2, c2, M2), MBT_OK);
    for (int i = 0; i < nv * nv; ++i) tu_assert_close(M1[i], M2[i], 1e-12, "M(q)");
    assert_int_equal(mbt_calc_inverse_dynamics_with_gravity(t, ctx, v, tau1), MBT_OK);
    assert_int_equal(mbt_calc_inverse_dynamics_with_gravity(t2, c2, v, tau2), MBT_OK);
    for (int i = 0; i < nv; ++i) tu_assert_close(tau1[i], tau2[i], 1e-12, "inverse dynamics");
    assert_int_equal(mbt_calc_forward_dynamics(t, ctx, NULL, NULL, vd1), MBT_OK);
    assert_int_equal(mbt_calc_forward_dynamics(t2, c2, NULL, NULL, vd2), MBT_OK);
    for (int i = 0; i < nv; ++i) tu_assert_rel(vd1[i], vd2[i], fabs(vd2[i]), 1e-10, "forward dynamics");
    mbt_real U1, U2;
    assert_int_equal(mbt_calc_potential_energy(t, ctx, &U1), MBT_OK);
    assert_int_equal(mbt_calc_potential_energy(t2, c2, &U2), MBT_OK);
    tu_assert_close(U1, U2, 1e-12, "potential energy");
    mbt_context_destroy(c2);
    mbt_tree_destroy(t2);
  }
  /* The other context keeps the tree's inertias. */
  assert_int_equal(mbt_calc_mass_matrix(t, other, M2), MBT_OK);
  for (int i = 0; i < nv * nv; ++i) assert_true(M2[i] == M0[i]);
  /* Gravity: the tree's value at creation and at set_default_context only. */
  assert_int_equal(mbt_tree_set_gravity(t, mbt_vec3_make(1, 2, 3)), MBT_OK);
  tu_assert_vec3_near(ctx->g_W, mbt_vec3_make(0, 0, -9.81), 0);
  mbt_tree_set_default_context(t, ctx);
  tu_assert_vec3_near(ctx->g_W, mbt_vec3_make(1, 2, 3), 0);
  mbt_context_destroy(other);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_create_allocates_everything),
      cmocka_unit_test(test_default_context),
      cmocka_unit_test(test_state_accessors),
      cmocka_unit_test(test_contexts_independent),
      cmocka_unit_test(test_context_without_dofs),
      cmocka_unit_test(test_inertia_parameters),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
