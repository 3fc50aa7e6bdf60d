/* Forward dynamics: ABA and the mass-matrix/Cholesky path.
 *   - FD(ID(v̇)) = v̇ to 1e-10 relative at random states, on a branched tree built from the
 *     joint builders with every joint (and so every mobilizer) type, and on the shipped URDFs;
 *   - ABA = Cholesky path; the shipped models' qdd against the reference data (Pinocchio);
 *   - the position cache forward dynamics fills holds the forward kinematics' numbers;
 *   - bodies with repeated or zero principal moments (the inertias' central form);
 *   - locked joints: v̇ = 0, and the rest equals the model with those joints welded;
 *   - singular articulated inertia: MBT_ERR_SINGULAR naming the body, vdot unchanged;
 *   - translation invariance: v̇ and M unchanged to round-off when the model is moved by 1 km;
 *   - no heap allocation in the Calc functions; dense Cholesky on its own. */
#include "support/test_util.h"

#include <cjson/cJSON.h>

#define REFS MBT_SOURCE_DIR "/tests/reference/"

TU_DEFINE_HEAP_COUNTER();

/* ---- a branched tree with every joint type, from the joint builders ------------------- */
typedef struct {
  const char* name;
  const char* parent;       /* NULL: no joint (a floating mobilizer is added at finalize) */
  mbt_joint_type type;
} body_spec;

static const body_spec SPECS[] = {
    {"A", "world", MBT_JOINT_QUATERNION_FLOATING}, {"B", "A", MBT_JOINT_REVOLUTE},
    {"C", "B", MBT_JOINT_UNIVERSAL},               {"D", "C", MBT_JOINT_PRISMATIC},
    {"E", "A", MBT_JOINT_BALL_RPY},                {"F", "E", MBT_JOINT_SCREW},
    {"G", "A", MBT_JOINT_PLANAR},                  {"H", "G", MBT_JOINT_WELD},
    {"I", "H", MBT_JOINT_REVOLUTE},                {"J", "world", MBT_JOINT_REVOLUTE},
    {"K", "J", MBT_JOINT_PRISMATIC},               {"L", NULL, MBT_JOINT_WELD}};
#define NUM_SPECS ((int)(sizeof SPECS / sizeof SPECS[0]))

typedef struct {
  mbt_spatial_inertia M;
  mbt_transform X_PF, X_BM;
  mbt_vec3 axis;
  mbt_real pitch;
  mbt_real damping[6];
} body_params;

static void make_params(uint64_t seed, body_params* p) {
  tu_seed(seed);
  for (int i = 0; i < NUM_SPECS; ++i) {
    p[i].M = tu_rand_inertia();
    p[i].X_PF = tu_rand_transform(0.5);
    p[i].X_BM = tu_rand_transform(0.5);
    p[i].axis = tu_rand_unit();
    p[i].pitch = 0.4 * tu_rand();
    for (int k = 0; k < 6; ++k) p[i].damping[k] = 0.2 * (1 + tu_rand());
  }
}

/* Adds the joint of SPECS[i]; `weld_X_PF` non-NULL replaces it by a weld at that pose. */
static int add_joint(mbt_tree* tree, int i, const body_params* p, int parent, int child,
                     const mbt_transform* weld_X_PF) {
  const char* name = SPECS[i].name;
  char jn[32];
  snprintf(jn, sizeof jn, "j%s", name);
  const mbt_transform* F = &p->X_PF;
  const mbt_transform* M = &p->X_BM;
  if (weld_X_PF) return mbt_tree_add_weld_joint(tree, jn, parent, weld_X_PF, child, M);
  switch (SPECS[i].type) {
    case MBT_JOINT_WELD: return mbt_tree_add_weld_joint(tree, jn, parent, F, child, M);
    case MBT_JOINT_REVOLUTE: return mbt_tree_add_revolute_joint(tree, jn, parent, F, child, M, p->axis, p->damping[0]);
    case MBT_JOINT_PRISMATIC: return mbt_tree_add_prismatic_joint(tree, jn, parent, F, child, M, p->axis, p->damping[0]);
    case MBT_JOINT_UNIVERSAL: return mbt_tree_add_universal_joint(tree, jn, parent, F, child, M, p->damping);
    case MBT_JOINT_PLANAR: return mbt_tree_add_planar_joint(tree, jn, parent, F, child, M, p->damping);
    case MBT_JOINT_BALL_RPY: return mbt_tree_add_ball_rpy_joint(tree, jn, parent, F, child, M, p->damping);
    case MBT_JOINT_QUATERNION_FLOATING:
      return mbt_tree_add_quaternion_floating_joint(tree, jn, parent, F, child, M, p->damping);
    case MBT_JOINT_SCREW:
      return mbt_tree_add_screw_joint(tree, jn, parent, F, child, M, p->axis, p->pitch, p->damping[0]);
    default: return MBT_ERR_INVALID_ARGUMENT;
  }
}

static void user_force(const mbt_tree* tree, mbt_context* ctx, void* user_data, mbt_multibody_forces* forces) {
  (void)ctx;
  const int body = *(const int*)user_data;
  const mbt_spatial_force F = mbt_spatial_force_make6(0.3, -0.2, 0.1, 1.0, 0.5, -2.0);
  mbt_multibody_forces_add_body_force(tree, forces, body, &F);
}
static int g_user_force_body;

/* The tree of SPECS with params p, force elements (gravity, a spring-damper, a revolute
 * spring, a user force), finalized. welded[i] non-NULL welds body i's joint at that X_PF. */
static mbt_tree* build_tree(const body_params* p, const mbt_transform* const* welded) {
  mbt_tree* tree = mbt_tree_create();
  assert_non_null(tree);
  int body[NUM_SPECS];
  for (int i = 0; i < NUM_SPECS; ++i) {
    body[i] = mbt_tree_add_rigid_body(tree, SPECS[i].name, &p[i].M);
    assert_true(body[i] > 0);
    if (!SPECS[i].parent) continue;
    const int parent = mbt_tree_body_by_name(tree, SPECS[i].parent);
    assert_true(parent >= 0);
    const int j = add_joint(tree, i, &p[i], parent, body[i], welded ? welded[i] : NULL);
    if (j < 0) fail_msg("joint of %s: %s", SPECS[i].name, mbt_tree_last_error(tree));
  }
  /* C and K are in different subtrees of the world. */
  assert_true(mbt_tree_add_linear_spring_damper(tree, "spring", body[2], mbt_vec3_make(0.1, 0, 0.2), body[10],
                                                mbt_vec3_make(0, -0.1, 0), 0.3, 20.0, 0.7) >= 0);
  if (!(welded && welded[8]))
    assert_true(mbt_tree_add_revolute_spring(tree, "torsion", mbt_tree_joint_by_name(tree, "jI"), 0.2, 3.0) >= 0);
  g_user_force_body = body[5];
  assert_true(mbt_tree_add_user_force(tree, "push", user_force, &g_user_force_body) >= 0);
  if (mbt_tree_finalize(tree) != MBT_OK) fail_msg("finalize: %s", mbt_tree_last_error(tree));
  return tree;
}

/* ---- FD(ID(v̇)) and ABA vs Cholesky -------------------------------------------------- */
typedef struct {
  double fd_of_id;     /* worst ‖v̇_ABA − v̇‖∞ / max(‖v̇‖∞, 1) */
  double chol;         /* worst ‖v̇_chol − v̇_ABA‖∞ / max(‖v̇_ABA‖∞, 1) */
} fd_errors;

/* At the context's state: random v̇ and Fapp; tau = ID(v̇, Fapp + F_forces, tau_forces); then
 * FD(tau, Fapp) must give back v̇, by both paths. */
static void check_fd_of_id(const mbt_tree* tree, mbt_context* ctx, fd_errors* err) {
  const int nv = mbt_tree_num_velocities(tree), nb = mbt_tree_num_bodies(tree);
  mbt_real* vdot0 = calloc((size_t)nv + 1, sizeof *vdot0);
  mbt_real* tau = calloc((size_t)nv + 1, sizeof *tau);
  mbt_real* vdot = calloc((size_t)nv + 1, sizeof *vdot);
  mbt_real* vdot_chol = calloc((size_t)nv + 1, sizeof *vdot_chol);
  mbt_spatial_force* Fapp = calloc((size_t)nb, sizeof *Fapp);
  mbt_spatial_force* Ftot = calloc((size_t)nb, sizeof *Ftot);
  mbt_multibody_forces* forces = mbt_multibody_forces_create(tree);
  assert_non_null(forces);
  tu_rand_array(vdot0, nv, 2.0);
  for (int b = 1; b < nb; ++b) tu_rand_array(Fapp[b].coeffs, 6, 1.0);
  assert_int_equal(mbt_calc_force_elements_contribution(tree, ctx, forces), MBT_OK);
  for (int b = 0; b < nb; ++b)
    for (int i = 0; i < 6; ++i) Ftot[b].coeffs[i] = Fapp[b].coeffs[i] + forces->F_BBo_W[b].coeffs[i];
  assert_int_equal(mbt_calc_inverse_dynamics(tree, ctx, vdot0, Ftot, forces->tau, NULL, NULL, tau), MBT_OK);
  int st = mbt_calc_forward_dynamics(tree, ctx, tau, Fapp, vdot);
  if (st) fail_msg("FD: %s", mbt_context_last_error(ctx));
  assert_int_equal(mbt_calc_forward_dynamics_via_mass_matrix(tree, ctx, tau, Fapp, vdot_chol), MBT_OK);
  const double e1 = tu_max_abs_diff(vdot, vdot0, nv) / fmax(tu_max_abs(vdot0, nv), 1);
  const double e2 = tu_max_abs_diff(vdot_chol, vdot, nv) / fmax(tu_max_abs(vdot, nv), 1);
  err->fd_of_id = fmax(err->fd_of_id, e1);
  err->chol = fmax(err->chol, e2);
  mbt_multibody_forces_destroy(forces);
  free(vdot0);
  free(tau);
  free(vdot);
  free(vdot_chol);
  free(Fapp);
  free(Ftot);
}

static void set_random_damping(const mbt_tree* tree, mbt_context* ctx) {
  for (int j = 0; j < mbt_tree_num_joints(tree); ++j) {
    mbt_real d[6];
    const int nv = mbt_joint_num_velocities(tree, j);
    for (int k = 0; k < nv; ++k) d[k] = 0.5 * (1 + tu_rand());
    if (nv > 0) assert_int_equal(mbt_joint_set_damping_vector(ctx, j, d, nv), MBT_OK);
  }
}

static void test_fd_of_id_every_joint_type(void** state) {
  (void)state;
  body_params p[NUM_SPECS];
  make_params(1234, p);
  mbt_tree* tree = build_tree(p, NULL);
  /* Every mobilizer type is present. */
  bool seen[MBT_MOBILIZER_NUM_TYPES] = {false};
  for (int m = 0; m < mbt_tree_num_mobilizers(tree); ++m) seen[mbt_mobilizer_type_of(tree, m)] = true;
  for (int t = 0; t < MBT_MOBILIZER_NUM_TYPES; ++t) assert_true(seen[t]);
  mbt_context* ctx = mbt_context_create(tree);
  fd_errors err = {0, 0};
  for (int s = 0; s < 50; ++s) {
    tu_rand_state(tree, ctx);
    set_random_damping(tree, ctx);
    check_fd_of_id(tree, ctx, &err);
    /* Same q, new v: the q-dependent ABA cache is reused. */
    tu_rand_array(mbt_context_mutable_v(ctx), mbt_tree_num_velocities(tree), 1.0);
    check_fd_of_id(tree, ctx, &err);
  }
  print_message("every joint type: FD(ID) worst relative error %.2e, ABA vs Cholesky %.2e\n", err.fd_of_id,
                err.chol);
  assert_true(err.fd_of_id <= 1e-10);
  assert_true(err.chol <= 1e-10);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

/* Long serial chains (30 and 60 bodies, revolute and mixed): errors that grow along a chain,
 * such as a wrong composite-inertia shift in the singularity check, show only there. */
static void test_fd_of_id_long_chains(void** state) {
  (void)state;
  const int sizes[] = {30, 60};
  for (int k = 0; k < 2; ++k)
    for (int mixed = 0; mixed <= 1; ++mixed) {
      tu_seed(900 + (unsigned)(2 * k + mixed));
      mbt_tree* tree = mbt_tree_create();
      tu_add_chain(tree, "c", sizes[k], mixed != 0);
      assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
      mbt_context* ctx = mbt_context_create(tree);
      assert_non_null(ctx);
      fd_errors err = {0, 0};
      for (int s = 0; s < 5; ++s) {
        tu_rand_state(tree, ctx);
        check_fd_of_id(tree, ctx, &err);
      }
      print_message("chain of %d (%s): FD(ID) %.2e, ABA vs Cholesky %.2e\n", sizes[k], mixed ? "mixed" : "revolute",
                    err.fd_of_id, err.chol);
      assert_true(err.fd_of_id <= 1e-10);
      assert_true(err.chol <= 1e-10);
      mbt_context_destroy(ctx);
      mbt_tree_destroy(tree);
    }
}

/* check_fd_of_id at `states` random states of a new context of `tree`: both errors <= 1e-10. */
static void expect_fd_of_id(const mbt_tree* tree, int states, const char* label) {
  mbt_context* ctx = mbt_context_create(tree);
  assert_non_null(ctx);
  fd_errors err = {0, 0};
  for (int s = 0; s < states; ++s) {
    tu_rand_state(tree, ctx);
    check_fd_of_id(tree, ctx, &err);
  }
  print_message("%s: FD(ID) %.2e, ABA vs Cholesky %.2e\n", label, err.fd_of_id, err.chol);
  assert_true(err.fd_of_id <= 1e-10);
  assert_true(err.chol <= 1e-10);
  mbt_context_destroy(ctx);
}

/* The position cache that forward dynamics fills (its own pose step) holds the forward kinematics'
 * numbers: every body's X_WB, H_PB_W and V_WB read after mbt_calc_forward_dynamics equal those of
 * a second context after mbt_calc_velocity_kinematics_cache (== on every entry), on revolute
 * chains (frames turned at finalize), the mixed chain and the shipped models. */
static void expect_same_kinematics(const mbt_tree* tree, mbt_context* fd, mbt_context* fk) {
  const int nv = mbt_tree_num_velocities(tree);
  mbt_real x[2 * 80], tau[80], vdot[80];
  assert_true(nv <= 80 && mbt_tree_num_positions(tree) <= 80);
  tu_rand_state(tree, fd);
  tu_rand_array(tau, nv, 1);
  assert_int_equal(mbt_context_get_x(fd, x, mbt_tree_num_positions(tree) + nv), MBT_OK);
  assert_int_equal(mbt_context_set_x(fk, x, mbt_tree_num_positions(tree) + nv), MBT_OK);
  assert_int_equal(mbt_calc_forward_dynamics(tree, fd, tau, NULL, vdot), MBT_OK);
  assert_int_equal(mbt_calc_velocity_kinematics_cache(tree, fk), MBT_OK);
  for (int b = 1; b < mbt_tree_num_bodies(tree); ++b) {
    mbt_transform X1, X2;
    mbt_spatial_velocity V1, V2, H1[6] = {0}, H2[6] = {0};
    assert_int_equal(mbt_context_body_pose_in_world(tree, fd, b, &X1), MBT_OK);
    assert_int_equal(mbt_context_body_pose_in_world(tree, fk, b, &X2), MBT_OK);
    assert_int_equal(mbt_context_body_spatial_velocity_in_world(tree, fd, b, &V1), MBT_OK);
    assert_int_equal(mbt_context_body_spatial_velocity_in_world(tree, fk, b, &V2), MBT_OK);
    assert_int_equal(mbt_context_body_H_PB_W(tree, fd, b, H1), MBT_OK);
    assert_int_equal(mbt_context_body_H_PB_W(tree, fk, b, H2), MBT_OK);
    for (int r = 0; r < 3; ++r) {
      assert_true(X1.p.v[r] == X2.p.v[r]);
      for (int c = 0; c < 3; ++c) assert_true(X1.R.m[r][c] == X2.R.m[r][c]);
    }
    for (int k = 0; k < 6; ++k) assert_true(V1.coeffs[k] == V2.coeffs[k]);
    for (int j = 0; j < 6; ++j)
      for (int k = 0; k < 6; ++k) assert_true(H1[j].coeffs[k] == H2[j].coeffs[k]);
  }
}

static void test_position_cache_as_forward_kinematics(void** state) {
  (void)state;
  tu_seed(905);
  for (int mixed = 0; mixed <= 1; ++mixed) {
    mbt_tree* tree = mbt_tree_create();
    tu_add_chain(tree, "c", 30, mixed != 0);
    assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
    mbt_context* fd = mbt_context_create(tree);
    mbt_context* fk = mbt_context_create(tree);
    for (int s = 0; s < 5; ++s) expect_same_kinematics(tree, fd, fk);
    mbt_context_destroy(fd);
    mbt_context_destroy(fk);
    mbt_tree_destroy(tree);
  }
  for (int i = 0; i < TU_NUM_MODELS; ++i) {
    mbt_urdf_result r;
    tu_load_urdf(tu_models[i], tu_model_flags(tu_models[i]), &r);
    mbt_context* fd = mbt_context_create(r.tree);
    mbt_context* fk = mbt_context_create(r.tree);
    for (int s = 0; s < 5; ++s) expect_same_kinematics(r.tree, fd, fk);
    mbt_context_destroy(fd);
    mbt_context_destroy(fk);
    mbt_urdf_result_free(&r);
  }
}

/* The mobilizer-level branched tree of support/test_util.h (random frames, a body left floating). */
static void test_fd_of_id_mobilizer_tree(void** state) {
  (void)state;
  tu_seed(77);
  mbt_tree* tree = tu_make_branched_tree();
  assert_non_null(tree);
  expect_fd_of_id(tree, 50, "mobilizer tree");
  mbt_tree_destroy(tree);
}

/* ---- the shipped models ------------------------------------------------------------------ */
/* Each model with its own root, and solo12 also with a fixed base. */
static void test_fd_of_id_shipped_models(void** state) {
  (void)state;
  tu_seed(99);
  for (int i = 0; i <= TU_NUM_MODELS; ++i) {
    const char* label = i < TU_NUM_MODELS ? tu_models[i] : "solo12";
    const int flags = i < TU_NUM_MODELS ? tu_model_flags(label) : 0;
    mbt_urdf_result r;
    tu_load_urdf(label, flags, &r);
    mbt_context* ctx = mbt_context_create(r.tree);
    fd_errors err = {0, 0};
    for (int s = 0; s < 20; ++s) {
      tu_rand_state(r.tree, ctx);
      check_fd_of_id(r.tree, ctx, &err);
    }
    print_message("%s%s: FD(ID) %.2e, ABA vs Cholesky %.2e\n", label, flags ? " (floating)" : "", err.fd_of_id,
                  err.chol);
    assert_true(err.fd_of_id <= 1e-10);
    assert_true(err.chol <= 1e-10);
    mbt_context_destroy(ctx);
    mbt_urdf_result_free(&r);
  }
}

/* ---- the reference data (Pinocchio, tests/reference/README.md) -------------------------- */
/* Copies a per-joint dict {"joint": [...]} into the whole-tree array (nq or nv sized). */
static void set_by_joint(const mbt_tree* tree, const cJSON* dict, mbt_real* out, bool positions) {
  const cJSON* item;
  cJSON_ArrayForEach(item, dict) {
    const int j = mbt_tree_joint_by_name(tree, item->string);
    if (j < 0) fail_msg("joint '%s' not in the tree", item->string);
    const int start = positions ? mbt_joint_position_start(tree, j) : mbt_joint_velocity_start(tree, j);
    const int n = positions ? mbt_joint_num_positions(tree, j) : mbt_joint_num_velocities(tree, j);
    assert_int_equal(cJSON_GetArraySize(item), n);
    for (int k = 0; k < n; ++k) out[start + k] = cJSON_GetArrayItem(item, k)->valuedouble;
  }
}

/* qdd = FD(tau) with gravity and without damping, against the reference qdd; the residual
 * check of the README (insensitive to conditioning) and a direct comparison with
 * rtol = max(1e-9, 1e-15·cond(M)). */
static void test_fd_against_reference(void** state) {
  (void)state;
  for (int i = 0; i < TU_NUM_MODELS; ++i) {
    const char* label = tu_models[i];
    char path[512];
    snprintf(path, sizeof path, REFS "%s.json", label);
    char* text = tu_read_file(path, NULL);
    cJSON* doc = cJSON_Parse(text);
    assert_non_null(doc);
    const bool floating = strcmp(cJSON_GetObjectItem(doc, "root")->valuestring, "floating") == 0;
    mbt_urdf_result r;
    tu_load_urdf(label, floating ? MBT_URDF_FLOATING : 0, &r);
    const mbt_tree* tree = r.tree;
    const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
    mbt_context* ctx = mbt_context_create(tree);
    tu_zero_joint_damping(tree, ctx);
    mbt_real* q = calloc((size_t)nq, sizeof *q);
    mbt_real* v = calloc((size_t)nv, sizeof *v);
    mbt_real* tau = calloc((size_t)nv, sizeof *tau);
    mbt_real* qdd_ref = calloc((size_t)nv, sizeof *qdd_ref);
    mbt_real* qdd = calloc((size_t)nv, sizeof *qdd);
    mbt_real* qdd_chol = calloc((size_t)nv, sizeof *qdd_chol);
    double worst = 0, worst_chol = 0;
    int checked = 0;
    const cJSON* st;
    cJSON_ArrayForEach(st, cJSON_GetObjectItem(doc, "states")) {
      const cJSON* qdd_json = cJSON_GetObjectItem(st, "qdd");
      if (cJSON_IsNull(qdd_json)) continue;
      set_by_joint(tree, cJSON_GetObjectItem(st, "q"), q, true);
      set_by_joint(tree, cJSON_GetObjectItem(st, "v"), v, false);
      set_by_joint(tree, cJSON_GetObjectItem(st, "tau"), tau, false);
      set_by_joint(tree, qdd_json, qdd_ref, false);
      assert_int_equal(mbt_context_set_q(ctx, q, nq), MBT_OK);
      assert_int_equal(mbt_context_set_v(ctx, v, nv), MBT_OK);
      assert_int_equal(mbt_calc_forward_dynamics(tree, ctx, tau, NULL, qdd), MBT_OK);
      assert_int_equal(mbt_calc_forward_dynamics_via_mass_matrix(tree, ctx, tau, NULL, qdd_chol), MBT_OK);
      const double cond = cJSON_GetObjectItem(st, "mass_matrix_condition")->valuedouble;
      const double rtol = fmax(1e-9, 1e-15 * cond);
      const double scale = fmax(tu_max_abs(qdd_ref, nv), 1e-3);
      worst = fmax(worst, tu_max_abs_diff(qdd, qdd_ref, nv) / scale / rtol);
      worst_chol = fmax(worst_chol, tu_max_abs_diff(qdd_chol, qdd_ref, nv) / scale / rtol);
      ++checked;
    }
    print_message("%s: %d states, worst |qdd − qdd_ref| / (rtol·‖qdd_ref‖) ABA %.2e, Cholesky %.2e\n", label,
                  checked, worst, worst_chol);
    assert_true(checked > 0);
    assert_true(worst <= 1);
    assert_true(worst_chol <= 1);
    free(q);
    free(v);
    free(tau);
    free(qdd_ref);
    free(qdd);
    free(qdd_chol);
    mbt_context_destroy(ctx);
    mbt_urdf_result_free(&r);
    cJSON_Delete(doc);
    free(text);
  }
}

/* ---- locked joints ------------------------------------------------------------------------- */
/* Copies the state of every body's inboard mobilizer from (t1, c1) to the body of the same
 * name in (t2, c2) (welded mobilizers have no state). */
static void copy_state_by_body(const mbt_tree* t1, const mbt_context* c1, const mbt_tree* t2, mbt_context* c2) {
  mbt_real* q2 = mbt_context_mutable_q(c2);
  mbt_real* v2 = mbt_context_mutable_v(c2);
  for (int b2 = 1; b2 < mbt_tree_num_bodies(t2); ++b2) {
    const int m2 = mbt_tree_body_mobilizer(t2, b2);
    const int b1 = mbt_tree_body_by_name(t1, mbt_tree_body_name(t2, b2));
    assert_true(b1 > 0);
    const int m1 = mbt_tree_body_mobilizer(t1, b1);
    const int nq = mbt_mobilizer_num_positions(t2, m2), nv = mbt_mobilizer_num_velocities(t2, m2);
    if (nq == 0) continue;
    assert_int_equal(mbt_mobilizer_num_positions(t1, m1), nq);
    const mbt_real* q1 = mbt_mobilizer_positions_from_array(t1, m1, mbt_context_q(c1));
    const mbt_real* v1 = mbt_mobilizer_velocities_from_array(t1, m1, mbt_context_v(c1));
    memcpy(mbt_mobilizer_mutable_positions_from_array(t2, m2, q2), q1, sizeof(mbt_real) * (size_t)nq);
    memcpy(mbt_mobilizer_mutable_velocities_from_array(t2, m2, v2), v1, sizeof(mbt_real) * (size_t)nv);
  }
}

static void test_locked_joints_act_as_welds(void** state) {
  (void)state;
  body_params p[NUM_SPECS];
  make_params(4321, p);
  mbt_tree* t1 = build_tree(p, NULL);
  mbt_context* c1 = mbt_context_create(t1);
  const int nv1 = mbt_tree_num_velocities(t1);
  mbt_real* vd_free = calloc((size_t)nv1, sizeof(mbt_real));
  mbt_real* vd = calloc((size_t)nv1, sizeof(mbt_real));
  mbt_real* vd_chol = calloc((size_t)nv1, sizeof(mbt_real));
  tu_seed(5);
  tu_rand_state(t1, c1);
  /* FD before locking: the q-dependent cache then holds the unlocked factorization. */
  assert_int_equal(mbt_calc_forward_dynamics(t1, c1, NULL, NULL, vd_free), MBT_OK);

  /* Lock B (revolute, with a subtree), E (ball_rpy, with a child) and I (a leaf). */
  const char* locked[] = {"jB", "jE", "jI"};
  const int locked_body[] = {1, 4, 8};
  for (int i = 0; i < 3; ++i) assert_int_equal(mbt_joint_lock(c1, mbt_tree_joint_by_name(t1, locked[i])), MBT_OK);
  assert_int_equal(mbt_calc_forward_dynamics(t1, c1, NULL, NULL, vd), MBT_OK);
  assert_int_equal(mbt_calc_forward_dynamics_via_mass_matrix(t1, c1, NULL, NULL, vd_chol), MBT_OK);
  for (int i = 0; i < 3; ++i) {
    const int j = mbt_tree_joint_by_name(t1, locked[i]);
    for (int k = 0; k < mbt_joint_num_velocities(t1, j); ++k) {
      assert_true(vd[mbt_joint_velocity_start(t1, j) + k] == 0);
      assert_true(vd_chol[mbt_joint_velocity_start(t1, j) + k] == 0);
      assert_true(mbt_context_v(c1)[mbt_joint_velocity_start(t1, j) + k] == 0);
    }
  }
  const double e_chol = tu_max_abs_diff(vd, vd_chol, nv1) / fmax(tu_max_abs(vd, nv1), 1);

  /* The same model with those joints welded at their current X_PF·X_FM(q). */
  mbt_transform X_PF_weld[3];
  const mbt_transform* welded[NUM_SPECS] = {NULL};
  for (int i = 0; i < 3; ++i) {
    const int j = mbt_tree_joint_by_name(t1, locked[i]);
    const int m = mbt_joint_mobilizer(t1, j);
    mbt_transform X_FM;
    mbt_mobilizer_calc_across_mobilizer_transform(t1, m, mbt_joint_positions(c1, j), &X_FM);
    X_PF_weld[i] = mbt_transform_compose(&p[locked_body[i]].X_PF, &X_FM);
    welded[locked_body[i]] = &X_PF_weld[i];
  }
  mbt_tree* t2 = build_tree(p, welded);
  mbt_context* c2 = mbt_context_create(t2);
  const int nv2 = mbt_tree_num_velocities(t2);
  assert_int_equal(nv2, nv1 - 1 - 3 - 1);
  copy_state_by_body(t1, c1, t2, c2);
  mbt_real* vd2 = calloc((size_t)nv2, sizeof(mbt_real));
  assert_int_equal(mbt_calc_forward_dynamics(t2, c2, NULL, NULL, vd2), MBT_OK);
  /* Compare by body: the unlocked mobilizers of t1 against t2. */
  double e_weld = 0, scale = 1;
  int compared = 0;
  for (int b2 = 1; b2 < mbt_tree_num_bodies(t2); ++b2) {
    const int m2 = mbt_tree_body_mobilizer(t2, b2);
    const int m1 = mbt_tree_body_mobilizer(t1, mbt_tree_body_by_name(t1, mbt_tree_body_name(t2, b2)));
    const int n = mbt_mobilizer_num_velocities(t2, m2);
    const mbt_real* a = mbt_mobilizer_velocities_from_array(t1, m1, vd);
    const mbt_real* b = mbt_mobilizer_velocities_from_array(t2, m2, vd2);
    for (int k = 0; k < n; ++k) {
      e_weld = fmax(e_weld, fabs(a[k] - b[k]));
      scale = fmax(scale, fabs(b[k]));
    }
    compared += n;
  }
  assert_int_equal(compared, nv2);
  e_weld /= scale;
  print_message("locked: ABA vs Cholesky %.2e, vs welded model %.2e\n", e_chol, e_weld);
  assert_true(e_chol <= 1e-10);
  assert_true(e_weld <= 1e-10);
  /* The locked solution differs from the free one (the test can fail). */
  assert_true(tu_max_abs_diff(vd, vd_free, nv1) > 1e-3);

  /* Unlocking restores the free dynamics (the cache follows the locks), at v = 0 of those. */
  for (int i = 0; i < 3; ++i) assert_int_equal(mbt_joint_unlock(c1, mbt_tree_joint_by_name(t1, locked[i])), MBT_OK);
  mbt_context* c3 = mbt_context_clone(c1);
  mbt_real* vd3 = calloc((size_t)nv1, sizeof(mbt_real));
  assert_int_equal(mbt_calc_forward_dynamics(t1, c1, NULL, NULL, vd), MBT_OK);
  assert_int_equal(mbt_calc_forward_dynamics(t1, c3, NULL, NULL, vd3), MBT_OK);
  assert_true(tu_max_abs_diff(vd, vd3, nv1) <= 1e-12 * fmax(tu_max_abs(vd3, nv1), 1));
  free(vd3);
  mbt_context_destroy(c3);
  free(vd2);
  free(vd_free);
  free(vd);
  free(vd_chol);
  mbt_context_destroy(c2);
  mbt_tree_destroy(t2);
  mbt_context_destroy(c1);
  mbt_tree_destroy(t1);
}

/* ---- singular articulated inertia -------------------------------------------------------- */
static mbt_spatial_inertia massless(void) {
  mbt_spatial_inertia M;
  memset(&M, 0, sizeof M);
  return M;
}

/* world → A (revolute) → Z; Z massless and inertia-free when `z_massless`; `coaxial` puts
 * both joints on the same axis through the same point and makes A massless instead. */
static mbt_tree* singular_tree(bool coaxial) {
  mbt_tree* tree = mbt_tree_create();
  tu_seed(11);
  mbt_spatial_inertia MA = coaxial ? massless() : tu_rand_inertia();
  mbt_spatial_inertia MZ = coaxial ? tu_rand_inertia() : massless();
  const int a = mbt_tree_add_rigid_body_unchecked(tree, "A", &MA);
  const int z = mbt_tree_add_rigid_body_unchecked(tree, "Z", &MZ);
  assert_true(a > 0 && z > 0);
  const mbt_transform X = tu_rand_transform(0.5);
  const mbt_vec3 axis = tu_rand_unit();
  assert_true(mbt_tree_add_revolute_joint(tree, "ja", 0, &X, a, NULL, axis, 0) >= 0);
  const mbt_transform X2 = tu_rand_transform(0.5);
  if (coaxial)
    assert_true(mbt_tree_add_revolute_joint(tree, "jz", a, NULL, z, NULL, axis, 0) >= 0);
  else
    assert_true(mbt_tree_add_revolute_joint(tree, "jz", a, &X2, z, NULL, tu_rand_unit(), 0) >= 0);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  return tree;
}

static void check_singular(bool coaxial, const char* body_text) {
  mbt_tree* tree = singular_tree(coaxial);
  mbt_context* ctx = mbt_context_create(tree);
  tu_rand_state(tree, ctx);
  mbt_real vdot[2] = {123.0, -456.0};
  assert_int_equal(mbt_calc_forward_dynamics(tree, ctx, NULL, NULL, vdot), MBT_ERR_SINGULAR);
  print_message("singular (%s): %s\n", coaxial ? "coaxial" : "leaf", mbt_context_last_error(ctx));
  assert_non_null(strstr(mbt_context_last_error(ctx), body_text));
  assert_non_null(strstr(mbt_context_last_error(ctx), "articulated inertia is singular"));
  assert_true(vdot[0] == 123.0 && vdot[1] == -456.0);
  /* Again (the failed factorization is not cached as valid). */
  assert_int_equal(mbt_calc_forward_dynamics(tree, ctx, NULL, NULL, vdot), MBT_ERR_SINGULAR);
  assert_true(vdot[0] == 123.0 && vdot[1] == -456.0);
  assert_int_equal(mbt_calc_forward_dynamics_via_mass_matrix(tree, ctx, NULL, NULL, vdot), MBT_ERR_SINGULAR);
  assert_non_null(strstr(mbt_context_last_error(ctx), "mass matrix is singular"));
  assert_true(vdot[0] == 123.0 && vdot[1] == -456.0);
  /* Locking the joint of the offending body removes the singularity (it becomes a weld). */
  const int j = mbt_tree_joint_by_name(tree, coaxial ? "ja" : "jz");
  assert_int_equal(mbt_joint_lock(ctx, j), MBT_OK);
  assert_int_equal(mbt_calc_forward_dynamics(tree, ctx, NULL, NULL, vdot), MBT_OK);
  assert_true(mbt_isfinite(vdot[0]) && mbt_isfinite(vdot[1]));
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

static void test_singular_articulated_inertia(void** state) {
  (void)state;
  check_singular(false, "body 'Z'");
  /* Exact singularity lost to rounding: D ≈ 1e-17 relative, caught by the relative pivot. */
  check_singular(true, "body 'A'");
}

/* A floating base (quaternion-floating from the world, S = I₆, its D factored as L·diag(d)·Lᵀ):
 * a point mass at Bo has no rotational inertia, so D is singular; a regular body on the same
 * joint gives v̇ = M⁻¹·(tau − C·v) as through the mass matrix. */
static void test_floating_base_pivots(void** state) {
  (void)state;
  for (int point_mass = 0; point_mass < 2; ++point_mass) {
    mbt_tree* tree = mbt_tree_create();
    tu_seed(13);
    mbt_spatial_inertia M = tu_rand_inertia();
    if (point_mass) {
      M = massless();
      M.mass = 2.5;
    }
    const int b = mbt_tree_add_rigid_body_unchecked(tree, "B", &M);
    assert_true(b > 0);
    assert_true(mbt_tree_add_quaternion_floating_joint(tree, "free", 0, NULL, b, NULL, NULL) >= 0);
    assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
    mbt_context* ctx = mbt_context_create(tree);
    tu_rand_state(tree, ctx);
    mbt_real vdot[6] = {1, 2, 3, 4, 5, 6}, vdot_M[6];
    if (point_mass) {
      assert_int_equal(mbt_calc_forward_dynamics(tree, ctx, NULL, NULL, vdot), MBT_ERR_SINGULAR);
      assert_non_null(strstr(mbt_context_last_error(ctx), "body 'B': articulated inertia is singular"));
      for (int k = 0; k < 6; ++k) assert_true(vdot[k] == k + 1);
    } else {
      const mbt_real tau[6] = {0.3, -1.2, 0.7, 2.0, -0.4, 1.1};
      assert_int_equal(mbt_calc_forward_dynamics(tree, ctx, tau, NULL, vdot), MBT_OK);
      assert_int_equal(mbt_calc_forward_dynamics_via_mass_matrix(tree, ctx, tau, NULL, vdot_M), MBT_OK);
      for (int k = 0; k < 6; ++k) assert_true(mbt_abs(vdot[k] - vdot_M[k]) <= 1e-12 * (1 + mbt_abs(vdot_M[k])));
    }
    mbt_context_destroy(ctx);
    mbt_tree_destroy(tree);
  }
}

/* A massless body between two joints with different axes is not singular. */
static void test_massless_intermediate_body_is_regular(void** state) {
  (void)state;
  mbt_tree* tree = mbt_tree_create();
  tu_seed(12);
  const mbt_spatial_inertia M0 = massless(), M1 = tu_rand_inertia();
  const int a = mbt_tree_add_rigid_body_unchecked(tree, "A", &M0);
  const int b = mbt_tree_add_rigid_body(tree, "B", &M1);
  const mbt_transform X = tu_rand_transform(0.5);
  assert_true(mbt_tree_add_revolute_joint(tree, "ja", 0, NULL, a, NULL, mbt_vec3_make(0, 0, 1), 0) >= 0);
  assert_true(mbt_tree_add_revolute_joint(tree, "jb", a, &X, b, NULL, mbt_vec3_make(1, 0, 0), 0) >= 0);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  mbt_context* ctx = mbt_context_create(tree);
  fd_errors err = {0, 0};
  for (int s = 0; s < 10; ++s) {
    tu_rand_state(tree, ctx);
    check_fd_of_id(tree, ctx, &err);
  }
  assert_true(err.fd_of_id <= 1e-10 && err.chol <= 1e-10);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

/* Bodies whose central inertia has repeated or zero principal moments (a sphere, a point mass off
 * the axis, a thin rod, a cylinder on a branch, a box welded to the rod): the central form of the merged
 * inertias (λ·1 + a·aᵀ + b·bᵀ, context_internal.h) with a = 0 or b = 0 gives ABA's v̇ = the mass
 * matrix path's (whose CRBA reads I_Mo_M, not the central form) and FD(ID) = v̇. */
static void test_degenerate_central_inertias(void** state) {
  (void)state;
  tu_seed(31);
  mbt_tree* tree = mbt_tree_create();
  mbt_unit_inertia G[5];
  G[0] = mbt_unit_inertia_solid_sphere(0.1);
  G[1] = mbt_unit_inertia_zero();
  assert_int_equal(mbt_unit_inertia_thin_rod(0.4, tu_rand_unit(), &G[2]), MBT_OK);
  assert_int_equal(mbt_unit_inertia_solid_cylinder(0.05, 0.3, tu_rand_unit(), &G[3]), MBT_OK);
  G[4] = mbt_unit_inertia_solid_box(0.1, 0.2, 0.3);
  const char* names[5] = {"sphere", "point", "rod", "cylinder", "box"};
  const int parent_of[5] = {-1, 0, 1, 1, 2}; /* world → sphere → point → rod (→ box, welded), point → cylinder */
  int body[5];
  for (int k = 0; k < 5; ++k) {
    const int parent = parent_of[k] < 0 ? 0 : body[parent_of[k]];
    const mbt_vec3 c = k == 0 ? mbt_vec3_zero() : mbt_vec3_scale(tu_rand_unit(), 0.2);
    const mbt_unit_inertia Gc = mbt_unit_inertia_shift_from_com(&G[k], mbt_vec3_neg(c));
    const mbt_spatial_inertia M = mbt_spatial_inertia_make(1 + k, c, &Gc);
    const int b = body[k] = mbt_tree_add_rigid_body(tree, names[k], &M);
    assert_true(b > 0);
    const mbt_transform X = tu_rand_transform(0.3);
    if (k == 4) assert_true(mbt_tree_add_weld_joint(tree, "weld", parent, &X, b, NULL) >= 0);
    else assert_true(mbt_tree_add_revolute_joint(tree, names[k], parent, &X, b, NULL, tu_rand_unit(), 0) >= 0);
  }
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  expect_fd_of_id(tree, 20, "degenerate central inertias");
  mbt_tree_destroy(tree);
}

/* ---- translation invariance ------------------------------------------------------------------- */
/* v̇ by both paths and M at the context's state, for tau and Fapp. */
typedef struct {
  mbt_real* vdot;
  mbt_real* vdot_chol;
  mbt_real* M;
} fd_outputs;

static void calc_fd_outputs(const mbt_tree* tree, mbt_context* ctx, const mbt_real* tau, const mbt_spatial_force* Fapp,
                            fd_outputs* out) {
  const int nv = mbt_tree_num_velocities(tree);
  out->vdot = calloc((size_t)nv, sizeof(mbt_real));
  out->vdot_chol = calloc((size_t)nv, sizeof(mbt_real));
  out->M = calloc((size_t)nv * (size_t)nv, sizeof(mbt_real));
  if (mbt_calc_forward_dynamics(tree, ctx, tau, Fapp, out->vdot)) fail_msg("FD: %s", mbt_context_last_error(ctx));
  assert_int_equal(mbt_calc_forward_dynamics_via_mass_matrix(tree, ctx, tau, Fapp, out->vdot_chol), MBT_OK);
  assert_int_equal(mbt_calc_mass_matrix(tree, ctx, out->M), MBT_OK);
}

static void free_fd_outputs(fd_outputs* out) {
  free(out->vdot);
  free(out->vdot_chol);
  free(out->M);
}

/* The outputs of a model and of the same model translated by 1 km agree to round-off relative to
 * their size: ‖Δv̇‖∞ <= tol·‖v̇‖∞ (both paths), ‖ΔM‖∞ <= tol·‖M‖∞. */
static void check_translated(const char* name, int nv, const fd_outputs* a, const fd_outputs* b, double tol) {
  const double e_aba = tu_max_abs_diff(a->vdot, b->vdot, nv) / tu_max_abs(a->vdot, nv);
  const double e_chol = tu_max_abs_diff(a->vdot_chol, b->vdot_chol, nv) / tu_max_abs(a->vdot_chol, nv);
  const double e_M = tu_max_abs_diff(a->M, b->M, nv * nv) / tu_max_abs(a->M, nv * nv);
  print_message("%s translated by 1 km: |v̇| %.3g, relative change of v̇ %.2g (ABA) %.2g (via M), of M %.2g\n",
                name, tu_max_abs(a->vdot, nv), e_aba, e_chol, e_M);
  if (!(e_aba <= tol && e_chol <= tol && e_M <= tol)) fail_msg("%s: not translation invariant (tol %g)", name, tol);
}

static const mbt_vec3 KM = {{600, -480, 640}}; /* |KM| = 1000 m */

static void add_vec3(mbt_real* x, mbt_vec3 d) {
  for (int k = 0; k < 3; ++k) x[k] += d.v[k];
}

/* The floating double pendulum (inertias ~1e-5 kg·m², |v̇| ~1e4) moved by its base's position
 * coordinates; the tree of every joint type (two subtrees of the world, one on a revolute joint,
 * gravity, a spring between the subtrees, damping, a user force) moved by the poses of its joints
 * to the world. Round-off at 1 km is 1e3·2⁻⁵² ≈ 2e-13 m in a position. */
static void test_translation_invariance(void** state) {
  (void)state;
  const double tol = 1e-11;
  mbt_urdf_result r;
  tu_load_urdf("double_pendulum", MBT_URDF_FLOATING, &r);
  mbt_tree* pend = r.tree;
  mbt_context* ctx = mbt_context_create(pend);
  tu_seed(5);
  tu_rand_state(pend, ctx);
  const int nq = mbt_tree_num_positions(pend), nv = mbt_tree_num_velocities(pend);
  mbt_real tau[64], q[64];
  assert_true(nv <= 64 && nq <= 64);
  tu_rand_array(tau, nv, 1e-3);
  fd_outputs a, b;
  calc_fd_outputs(pend, ctx, tau, NULL, &a);
  memcpy(q, mbt_context_q(ctx), sizeof(mbt_real) * (size_t)nq);
  add_vec3(q + mbt_joint_position_start(pend, mbt_tree_joint_by_name(pend, "root_joint")) + 4, KM);
  assert_int_equal(mbt_context_set_q(ctx, q, nq), MBT_OK);
  calc_fd_outputs(pend, ctx, tau, NULL, &b);
  check_translated("floating double pendulum", nv, &a, &b, tol);
  free_fd_outputs(&a);
  free_fd_outputs(&b);
  mbt_context_destroy(ctx);
  mbt_urdf_result_free(&r);

  body_params p[NUM_SPECS];
  make_params(7, p);
  mbt_tree* t1 = build_tree(p, NULL);
  for (int i = 0; i < NUM_SPECS; ++i)
    if (SPECS[i].parent && !strcmp(SPECS[i].parent, "world")) p[i].X_PF.p = mbt_vec3_add(p[i].X_PF.p, KM);
  mbt_tree* t2 = build_tree(p, NULL);
  mbt_context* c1 = mbt_context_create(t1);
  mbt_context* c2 = mbt_context_create(t2);
  tu_rand_state(t1, c1);
  const int n1q = mbt_tree_num_positions(t1), n1v = mbt_tree_num_velocities(t1);
  mbt_real* q2 = calloc((size_t)n1q, sizeof *q2);
  mbt_real* tau2 = calloc((size_t)n1v, sizeof *tau2);
  mbt_spatial_force* Fapp = calloc((size_t)mbt_tree_num_bodies(t1), sizeof *Fapp);
  for (int k = 1; k < mbt_tree_num_bodies(t1); ++k) tu_rand_array(Fapp[k].coeffs, 6, 1.0);
  tu_rand_array(tau2, n1v, 1.0);
  memcpy(q2, mbt_context_q(c1), sizeof(mbt_real) * (size_t)n1q);
  const int L = mbt_tree_body_mobilizer(t2, mbt_tree_body_by_name(t2, "L"));
  add_vec3(q2 + mbt_mobilizer_position_start_in_q(t2, L) + 4, KM);
  assert_int_equal(mbt_context_set_q(c2, q2, n1q), MBT_OK);
  assert_int_equal(mbt_context_set_v(c2, mbt_context_v(c1), n1v), MBT_OK);
  calc_fd_outputs(t1, c1, tau2, Fapp, &a);
  calc_fd_outputs(t2, c2, tau2, Fapp, &b);
  check_translated("tree of every joint type", n1v, &a, &b, tol);
  free_fd_outputs(&a);
  free_fd_outputs(&b);
  free(q2);
  free(tau2);
  free(Fapp);
  mbt_context_destroy(c1);
  mbt_context_destroy(c2);
  mbt_tree_destroy(t1);
  mbt_tree_destroy(t2);
}

/* ---- allocations ------------------------------------------------------------------------------ */
static void test_no_allocations(void** state) {
  (void)state;
  tu_require_heap_counter();
  body_params p[NUM_SPECS];
  make_params(99, p);
  mbt_tree* tree = build_tree(p, NULL);
  mbt_context* ctx = mbt_context_create(tree);
  const int nv = mbt_tree_num_velocities(tree);
  mbt_real* vdot = calloc((size_t)nv, sizeof *vdot);
  mbt_real* tau = calloc((size_t)nv, sizeof *tau);
  tu_rand_array(tau, nv, 1);
  tu_rand_state(tree, ctx);
  assert_int_equal(mbt_joint_lock(ctx, mbt_tree_joint_by_name(tree, "jC")), MBT_OK);
  tu_heap_count_begin();
  int s1 = mbt_calc_forward_dynamics(tree, ctx, tau, NULL, vdot);   /* all passes */
  int s2 = mbt_calc_forward_dynamics(tree, ctx, tau, NULL, vdot);   /* cached q part */
  int s3 = mbt_calc_forward_dynamics_via_mass_matrix(tree, ctx, tau, NULL, vdot);
  const long n = tu_heap_count_end();
  assert_int_equal(s1, MBT_OK);
  assert_int_equal(s2, MBT_OK);
  assert_int_equal(s3, MBT_OK);
  /* The counter does see allocations made in the same window. */
  tu_heap_count_begin();
  mbt_context* tmp = mbt_context_clone(ctx);
  const long n_clone = tu_heap_count_end();
  mbt_context_destroy(tmp);
  print_message("allocations: forward dynamics %ld, context clone %ld\n", n, n_clone);
  assert_int_equal(n, 0);
  assert_true(n_clone > 0);
  free(vdot);
  free(tau);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

/* ---- dense Cholesky --------------------------------------------------------------------------- */
static void test_cholesky(void** state) {
  (void)state;
  enum { N = 7 };
  tu_seed(3);
  mbt_real B[N * N], A[N * N], L[N * N], x[N], b[N];
  tu_rand_array(B, N * N, 1);
  /* A = B·Bᵀ + I (SPD) */
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      mbt_real s = i == j ? 1 : 0;
      for (int k = 0; k < N; ++k) s += B[i * N + k] * B[j * N + k];
      A[i * N + j] = s;
    }
  memcpy(L, A, sizeof A);
  assert_int_equal(mbt_cholesky_factor(L, N), MBT_OK);
  /* L·Lᵀ = A on the lower triangle; the strict upper triangle is untouched. */
  for (int i = 0; i < N; ++i)
    for (int j = 0; j <= i; ++j) {
      mbt_real s = 0;
      for (int k = 0; k <= j; ++k) s += L[i * N + k] * L[j * N + k];
      assert_true(fabs(s - A[i * N + j]) <= 1e-12);
    }
  for (int i = 0; i < N; ++i)
    for (int j = i + 1; j < N; ++j) assert_true(L[i * N + j] == A[i * N + j]);
  tu_rand_array(x, N, 1);
  for (int i = 0; i < N; ++i) {
    b[i] = 0;
    for (int j = 0; j < N; ++j) b[i] += A[i * N + j] * x[j];
  }
  mbt_cholesky_solve(L, N, b);
  assert_true(tu_max_abs_diff(b, x, N) <= 1e-12);
  /* Singular (rank-deficient) and indefinite matrices. */
  mbt_real S[9] = {1, 2, 3, 2, 4, 6, 3, 6, 10};
  assert_int_equal(mbt_cholesky_factor(S, 3), MBT_ERR_SINGULAR);
  mbt_real I[4] = {1, 0, 0, -1};
  assert_int_equal(mbt_cholesky_factor(I, 2), MBT_ERR_SINGULAR);
  mbt_real Nn[1] = {NAN};
  assert_int_equal(mbt_cholesky_factor(Nn, 1), MBT_ERR_SINGULAR);
  assert_int_equal(mbt_cholesky_factor(NULL, 2), MBT_ERR_INVALID_ARGUMENT);
}

/* ---- argument errors ---------------------------------------------------------------------- */
static void test_argument_errors(void** state) {
  (void)state;
  mbt_tree* tree = singular_tree(false);
  mbt_context* ctx = mbt_context_create(tree);
  assert_int_equal(mbt_calc_forward_dynamics(tree, ctx, NULL, NULL, NULL), MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_calc_forward_dynamics_via_mass_matrix(tree, ctx, NULL, NULL, NULL), MBT_ERR_INVALID_ARGUMENT);
  mbt_tree* other = singular_tree(true);
  mbt_real vdot[2];
  assert_int_equal(mbt_calc_forward_dynamics(other, ctx, NULL, NULL, vdot), MBT_ERR_INVALID_ARGUMENT);
  mbt_tree_destroy(other);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fd_of_id_every_joint_type),
      cmocka_unit_test(test_fd_of_id_mobilizer_tree),
      cmocka_unit_test(test_fd_of_id_long_chains),
      cmocka_unit_test(test_fd_of_id_shipped_models),
      cmocka_unit_test(test_position_cache_as_forward_kinematics),
      cmocka_unit_test(test_fd_against_reference),
      cmocka_unit_test(test_locked_joints_act_as_welds),
      cmocka_unit_test(test_singular_articulated_inertia),
      cmocka_unit_test(test_floating_base_pivots),
      cmocka_unit_test(test_massless_intermediate_body_is_regular),
      cmocka_unit_test(test_degenerate_central_inertias),
      cmocka_unit_test(test_translation_invariance),
      cmocka_unit_test(test_no_allocations),
      cmocka_unit_test(test_cholesky),
      cmocka_unit_test(test_argument_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
