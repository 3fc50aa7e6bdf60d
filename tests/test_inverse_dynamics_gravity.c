/* test_inverse_dynamics_gravity.c: the local-frame recursive Newton-Euler path
 * (mbt_calc_inverse_dynamics_with_gravity, and mbt_calc_inverse_dynamics, the bias term and the
 * gravity forces when they take it) against the world-frame inverse dynamics with the gravity
 * forces applied body by body, on every shipped model and on random trees with every mobilizer
 * type and chains of welds; it allocates nothing, leaves the kinematics caches as they were, and
 * reports bad arguments. */
#include "support/test_util.h"
#include "tree/context_internal.h"

TU_DEFINE_HEAP_COUNTER();

#define TOL 1e-12
#define TRIALS 8

/* Fg_Bo_W = [p_BoBcm_W × m·g; m·g] of every body, from the world-frame spatial inertias. */
static void gravity_forces(const mbt_tree* tree, mbt_context* ctx, mbt_vec3 g, mbt_spatial_force* F) {
  const int nb = mbt_tree_num_bodies(tree);
  for (int b = 0; b < nb; ++b) {
    mbt_spatial_inertia M;
    assert_int_equal(mbt_context_body_spatial_inertia_in_world(tree, ctx, b, &M), MBT_OK);
    const mbt_vec3 mg = mbt_vec3_scale(g, M.mass);
    mbt_spatial_force* Fb = &F[mbt_tree_body_node(tree, b)];
    Fb->tau = b == 0 ? mbt_vec3_zero() : mbt_vec3_cross(M.p_PScm_E, mg);
    Fb->f = b == 0 ? mbt_vec3_zero() : mg;
  }
}

static void assert_arrays_rel(const mbt_real* a, const mbt_real* b, int n, const char* what) {
  const double scale = tu_max_abs(b, n);
  for (int i = 0; i < n; ++i) tu_assert_rel(a[i], b[i], scale, TOL, what);
}

/* At random states: tau = M·v̇ + C·v − tau_g against the world-frame ID with Fg applied; the
 * fast path of mbt_calc_inverse_dynamics (tau aliasing tau_applied) against its world path;
 * bias term and gravity forces against the world-frame ID with v̇ = 0, resp. v = v̇ = 0. */
static void check_tree(mbt_tree* tree) {
  assert_non_null(tree);
  mbt_context* ctx = mbt_context_create(tree);
  assert_non_null(ctx);
  const int nv = mbt_tree_num_velocities(tree), nb = mbt_tree_num_bodies(tree);
  mbt_real* vd = calloc((size_t)nv + 1, sizeof(mbt_real));
  mbt_real* ta = calloc((size_t)nv + 1, sizeof(mbt_real));
  mbt_real* tau = calloc((size_t)nv + 1, sizeof(mbt_real));
  mbt_real* ref = calloc((size_t)nv + 1, sizeof(mbt_real));
  mbt_real* zero = calloc((size_t)nv + 1, sizeof(mbt_real));
  mbt_spatial_force* F = calloc((size_t)nb, sizeof *F);
  mbt_spatial_acceleration* A = calloc((size_t)nb, sizeof *A);
  assert_true(vd && ta && tau && ref && zero && F && A);
  for (int trial = 0; trial < TRIALS; ++trial) {
    const mbt_vec3 g = trial == 0 ? mbt_vec3_make(0, 0, -9.81) : tu_rand_vec3(10);
    assert_int_equal(mbt_tree_set_gravity(tree, g), MBT_OK);
    mbt_tree_set_default_context(tree, ctx); /* the context takes the tree's gravity */
    tu_rand_state(tree, ctx);
    tu_rand_array(vd, nv, 2);
    tu_rand_array(ta, nv, 1);

    gravity_forces(tree, ctx, g, F);
    assert_int_equal(mbt_calc_inverse_dynamics(tree, ctx, vd, F, NULL, A, NULL, ref), MBT_OK);
    assert_int_equal(mbt_calc_inverse_dynamics_with_gravity(tree, ctx, vd, tau), MBT_OK);
    assert_arrays_rel(tau, ref, nv, "M·v̇ + C·v − tau_g");

    assert_int_equal(mbt_calc_inverse_dynamics(tree, ctx, vd, NULL, ta, A, NULL, ref), MBT_OK);
    for (int i = 0; i < nv; ++i) tau[i] = ta[i];
    assert_int_equal(mbt_calc_inverse_dynamics(tree, ctx, vd, NULL, tau, NULL, NULL, tau), MBT_OK);
    assert_arrays_rel(tau, ref, nv, "M·v̇ + C·v − tau_app");

    assert_int_equal(mbt_calc_inverse_dynamics(tree, ctx, zero, NULL, NULL, A, NULL, ref), MBT_OK);
    assert_int_equal(mbt_calc_bias_term(tree, ctx, tau), MBT_OK);
    assert_arrays_rel(tau, ref, nv, "C·v");

    /* tau_g = −ID(v = 0, v̇ = 0, Fg applied). */
    mbt_context* c0 = mbt_context_clone(ctx);
    assert_non_null(c0);
    assert_int_equal(mbt_context_set_v(c0, zero, nv), MBT_OK);
    gravity_forces(tree, c0, g, F);
    assert_int_equal(mbt_calc_inverse_dynamics(tree, c0, zero, F, NULL, A, NULL, ref), MBT_OK);
    for (int i = 0; i < nv; ++i) ref[i] = -ref[i];
    assert_int_equal(mbt_calc_gravity_generalized_forces(tree, ctx, tau), MBT_OK);
    assert_arrays_rel(tau, ref, nv, "tau_g");
    mbt_context_destroy(c0);
  }
  free(vd);
  free(ta);
  free(tau);
  free(ref);
  free(zero);
  free(F);
  free(A);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

static void test_shipped_models(void** s) {
  (void)s;
  for (int m = 0; m < TU_NUM_MODELS; ++m) check_tree(tu_load_model(tu_models[m]));
}

static void test_random_trees(void** s) {
  (void)s;
  for (int rep = 0; rep < 4; ++rep) {
    check_tree(tu_make_branched_tree());
    check_tree(tu_make_joint_tree());
    mbt_tree* tree = mbt_tree_create();
    assert_non_null(tree);
    tu_add_chain(tree, "l", 12, true);
    assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
    check_tree(tree);
  }
}

/* Welds everywhere: to the world, in a row, between moving bodies, and a weld leaf; a welded
 * body with two moving children. The welded bodies are merged into their moving ancestor. */
static mbt_tree* make_weld_tree(void) {
  mbt_tree* tree = mbt_tree_create();
  if (!tree) return NULL;
  const mbt_mobilizer_type W = MBT_MOBILIZER_WELD, R = MBT_MOBILIZER_REVOLUTE;
  int b1 = tu_add_body_with_mobilizer(tree, "w1", 0, W, false);
  int b2 = tu_add_body_with_mobilizer(tree, "w2", b1, W, false);
  int b3 = tu_add_body_with_mobilizer(tree, "r3", b2, R, false);
  int b4 = tu_add_body_with_mobilizer(tree, "w4", b3, W, false);
  int b5 = tu_add_body_with_mobilizer(tree, "w5", b4, W, true);
  int b6 = tu_add_body_with_mobilizer(tree, "p6", b5, MBT_MOBILIZER_PRISMATIC, false);
  int b7 = tu_add_body_with_mobilizer(tree, "u7", b5, MBT_MOBILIZER_UNIVERSAL, false);
  int b8 = tu_add_body_with_mobilizer(tree, "w8", b7, W, false);
  int b9 = tu_add_body_with_mobilizer(tree, "r9", b6, R, true);
  int b10 = tu_add_body_with_mobilizer(tree, "w10", b9, W, false);
  if (b1 < 0 || b2 < 0 || b3 < 0 || b4 < 0 || b5 < 0 || b6 < 0 || b7 < 0 || b8 < 0 || b9 < 0 || b10 < 0 ||
      mbt_tree_finalize(tree) != MBT_OK) {
    mbt_tree_destroy(tree);
    return NULL;
  }
  return tree;
}

static void test_welds_merged(void** s) {
  (void)s;
  for (int rep = 0; rep < 4; ++rep) check_tree(make_weld_tree());
}

/* Every body's X_WB against the one composed from the frames the tree was given (the mobilizers'
 * X_PF, X_BM and revolute axes in F, in body order: parents first), which knows nothing of the
 * local nodes' frames: X_WB = X_WP·X_PF·R_axis(q)·X_BM⁻¹. */
static void check_poses_from_frames(const mbt_tree* tree) {
  mbt_context* ctx = mbt_context_create(tree);
  assert_non_null(ctx);
  tu_rand_state(tree, ctx);
  const int nb = tree->num_bodies;
  mbt_transform* X = calloc((size_t)nb, sizeof *X);
  assert_non_null(X);
  X[0] = mbt_transform_identity();
  for (int b = 1; b < nb; ++b) {
    const mbt_mobilizer* m = &tree->mobilizers[tree->bodies[b].mobilizer];
    mbt_transform X_FM = mbt_transform_identity();
    if (m->type == MBT_MOBILIZER_REVOLUTE) X_FM.R = mbt_rotation_from_axis_angle(m->axis, ctx->q[m->q_start]);
    else assert_int_equal(m->type, MBT_MOBILIZER_WELD);
    const mbt_transform X_MB = mbt_transform_inverse(&tree->frames[m->outboard_frame].X_BF);
    const mbt_transform X_WF = mbt_transform_compose(&X[m->inboard_body], &tree->frames[m->inboard_frame].X_BF);
    const mbt_transform X_WM = mbt_transform_compose(&X_WF, &X_FM);
    X[b] = mbt_transform_compose(&X_WM, &X_MB);
    mbt_transform X_WB;
    assert_int_equal(mbt_context_body_pose_in_world(tree, ctx, b, &X_WB), MBT_OK);
    tu_assert_transform_near(&X_WB, &X[b], 1e-12);
  }
  free(X);
  mbt_context_destroy(ctx);
}

/* A revolute chain with general frames, a body welded to each moving one and a welded leaf: the
 * frames of each revolute node with one revolute child turned about its axis and moved along it
 * (finalize.c, R_AF_is_xz, p_AF_y_is_zero), with the bodies welded to it; the chain must have
 * such nodes. */
static void test_turned_frames(void** s) {
  (void)s;
  for (int rep = 0; rep < 4; ++rep) {
    mbt_tree* tree = mbt_tree_create();
    assert_non_null(tree);
    int parent = 0;
    for (int i = 0; i < 6; ++i) {
      char name[32];
      snprintf(name, sizeof name, "r%d", i);
      parent = tu_add_body_with_mobilizer(tree, name, parent, MBT_MOBILIZER_REVOLUTE, false);
      snprintf(name, sizeof name, "w%d", i);
      assert_true(tu_add_body_with_mobilizer(tree, name, parent, MBT_MOBILIZER_WELD, false) > 0);
    }
    assert_true(tu_add_body_with_mobilizer(tree, "tip", parent, MBT_MOBILIZER_WELD, false) > 0);
    assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
    int turned = 0, moved = 0;
    for (int i = 1; i < tree->num_local_nodes; ++i) {
      turned += tree->local_nodes[i].R_AF_is_xz;
      moved += tree->local_nodes[i].p_AF_y_is_zero;
    }
    assert_int_equal(turned, 5); /* r1..r5 */
    assert_true(moved > 0);      /* origins moved along the axes: p_AF = (p_x, 0, p_z) */
    check_poses_from_frames(tree);
    check_tree(tree);
  }
}

/* No heap call; the caches computed before the call are still valid and unchanged after it. */
static void test_no_allocation_caches_untouched(void** s) {
  (void)s;
  tu_require_heap_counter();
  mbt_tree* tree = tu_make_joint_tree();
  assert_non_null(tree);
  mbt_context* ctx = mbt_context_create(tree);
  assert_non_null(ctx);
  const int nv = mbt_tree_num_velocities(tree), nb = mbt_tree_num_bodies(tree);
  mbt_real vd[TU_NMAX], tau[TU_NMAX];
  tu_rand_state(tree, ctx);
  tu_rand_array(vd, nv, 1);
  assert_int_equal(mbt_calc_velocity_kinematics_cache(tree, ctx), MBT_OK);
  mbt_transform X0[16];
  mbt_spatial_velocity V0[16];
  assert_true(nb <= 16);
  for (int b = 0; b < nb; ++b) {
    assert_int_equal(mbt_context_body_pose_in_world(tree, ctx, b, &X0[b]), MBT_OK);
    assert_int_equal(mbt_context_body_spatial_velocity_in_world(tree, ctx, b, &V0[b]), MBT_OK);
  }
  tu_heap_count_begin();
  int st = mbt_calc_inverse_dynamics_with_gravity(tree, ctx, vd, tau);
  st |= mbt_calc_inverse_dynamics(tree, ctx, vd, NULL, NULL, NULL, NULL, tau);
  st |= mbt_calc_bias_term(tree, ctx, tau);
  st |= mbt_calc_gravity_generalized_forces(tree, ctx, tau);
  assert_int_equal(tu_heap_count_end(), 0);
  assert_int_equal(st, MBT_OK);
  for (int b = 0; b < nb; ++b) {
    mbt_transform X;
    mbt_spatial_velocity V;
    assert_int_equal(mbt_context_body_pose_in_world(tree, ctx, b, &X), MBT_OK);
    assert_int_equal(mbt_context_body_spatial_velocity_in_world(tree, ctx, b, &V), MBT_OK);
    assert_memory_equal(&X, &X0[b], sizeof X);
    assert_memory_equal(&V, &V0[b], sizeof V);
  }
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

static void test_bad_arguments(void** s) {
  (void)s;
  mbt_tree* tree = tu_make_branched_tree();
  mbt_tree* other = tu_make_branched_tree();
  assert_non_null(tree);
  assert_non_null(other);
  mbt_context* ctx = mbt_context_create(tree);
  mbt_context* octx = mbt_context_create(other);
  assert_non_null(ctx);
  assert_non_null(octx);
  mbt_real tau[TU_NMAX];
  for (int i = 0; i < TU_NMAX; ++i) tau[i] = 7;
  assert_int_equal(mbt_calc_inverse_dynamics_with_gravity(tree, ctx, NULL, NULL), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_context_last_error(ctx), "tau is NULL");
  assert_int_equal(mbt_calc_inverse_dynamics_with_gravity(NULL, ctx, NULL, tau), MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_calc_inverse_dynamics_with_gravity(tree, NULL, NULL, tau), MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_calc_inverse_dynamics_with_gravity(tree, octx, NULL, tau), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_context_last_error(octx), "another tree");
  for (int i = 0; i < TU_NMAX; ++i) assert_true(tau[i] == 7);
  /* v̇ = NULL is v̇ = 0. */
  const int nv = mbt_tree_num_velocities(tree);
  mbt_real zero[TU_NMAX] = {0}, ref[TU_NMAX];
  tu_rand_state(tree, ctx);
  assert_int_equal(mbt_calc_inverse_dynamics_with_gravity(tree, ctx, NULL, tau), MBT_OK);
  assert_int_equal(mbt_calc_inverse_dynamics_with_gravity(tree, ctx, zero, ref), MBT_OK);
  assert_memory_equal(tau, ref, sizeof(mbt_real) * (size_t)nv);
  mbt_context_destroy(ctx);
  mbt_context_destroy(octx);
  mbt_tree_destroy(tree);
  mbt_tree_destroy(other);
}

int main(void) {
  tu_seed(20240707);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shipped_models),
      cmocka_unit_test(test_random_trees),
      cmocka_unit_test(test_welds_merged),
      cmocka_unit_test(test_turned_frames),
      cmocka_unit_test(test_no_allocation_caches_untouched),
      cmocka_unit_test(test_bad_arguments),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
