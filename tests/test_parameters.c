/* test_parameters.c: mbt/parameters.h. A context whose body mass, center of mass or gravity is
 * set gives the inverse dynamics, mass matrix, forward dynamics and energy of a tree built with
 * those values (the UR5 with a changed wrist and arm link, through its URDF text), while the
 * tree's other contexts keep theirs; clones and batches carry the parameters; refused values
 * change nothing and name the body. */
#include "support/test_util.h"

#define NV 6

/* The UR5's URDF with `from` replaced by `to` (each must occur once). */
static char* ur5_text_with(const char* from, const char* to) {
  char path[1024];
  tu_model_path(path, sizeof path, "ur5");
  char* text = tu_read_file(path, NULL);
  char* at = strstr(text, from);
  assert_non_null(at);
  assert_null(strstr(at + 1, from));
  const size_t head = (size_t)(at - text), n = strlen(text) + strlen(to) + 1;
  char* out = malloc(n);
  assert_non_null(out);
  snprintf(out, n, "%.*s%s%s", (int)head, text, to, at + strlen(from));
  free(text);
  return out;
}

static mbt_tree* load_text(const char* text) {
  mbt_urdf_result r;
  assert_int_equal(mbt_urdf_load_string(text, strlen(text), "ur5_modified.urdf", 0, &r), MBT_OK);
  mbt_tree* tree = r.tree;
  r.tree = NULL;
  mbt_urdf_result_free(&r);
  return tree;
}

typedef struct {
  mbt_real tau[NV], M[NV * NV], vdot[NV], U;
} dynamics;

/* At a fixed state: ID with gravity at v̇, M, FD with tau, the potential energy. */
static dynamics dynamics_at(const mbt_tree* tree, mbt_context* ctx) {
  const mbt_real x[2 * NV] = {0.3, -1.1, 1.4, -0.6, 0.9, 0.2, 0.5, -0.4, 0.3, 0.8, -0.7, 1.1};
  const mbt_real vd[NV] = {0.2, 0.1, -0.3, 0.5, -0.2, 0.4};
  dynamics d;
  assert_int_equal(mbt_tree_num_velocities(tree), NV);
  assert_int_equal(mbt_context_set_x(ctx, x, 2 * NV), MBT_OK);
  assert_int_equal(mbt_calc_inverse_dynamics_with_gravity(tree, ctx, vd, d.tau), MBT_OK);
  assert_int_equal(mbt_calc_mass_matrix(tree, ctx, d.M), MBT_OK);
  assert_int_equal(mbt_calc_forward_dynamics(tree, ctx, vd, NULL, d.vdot), MBT_OK);
  assert_int_equal(mbt_calc_potential_energy(tree, ctx, &d.U), MBT_OK);
  return d;
}

static void assert_dynamics_near(const dynamics* a, const dynamics* b, double tol) {
  for (int i = 0; i < NV; ++i) tu_assert_rel(a->tau[i], b->tau[i], fabs(b->tau[i]), tol, "tau");
  for (int i = 0; i < NV * NV; ++i) tu_assert_rel(a->M[i], b->M[i], fabs(b->M[i]), tol, "M");
  for (int i = 0; i < NV; ++i) tu_assert_rel(a->vdot[i], b->vdot[i], fabs(b->vdot[i]), tol, "vdot");
  tu_assert_rel(a->U, b->U, fabs(b->U), tol, "U");
}

/* Doubling a mass in the context is doubling it (and its inertia) in the model: bit for bit. */
static void test_mass_equals_rebuilt_tree(void** st) {
  (void)st;
  mbt_tree* tree = tu_load_model("ur5");
  char* text = ur5_text_with("<mass value=\"0.1879\"/>", "<mass value=\"0.3758\"/>");
  /* The URDF gives the inertia about the center of mass: doubling it keeps G_BBo_B. */
  const char* from = "ixx=\"0.0171364731454\" ixy=\"0.0\" ixz=\"0.0\" iyy=\"0.0171364731454\" iyz=\"0.0\" izz=\"0.033822\"";
  const char* to = "ixx=\"0.0342729462908\" ixy=\"0.0\" ixz=\"0.0\" iyy=\"0.0342729462908\" iyz=\"0.0\" izz=\"0.067644\"";
  char* at = strstr(text, from);
  assert_non_null(at);
  char* doubled = malloc(strlen(text) + 8);
  snprintf(doubled, strlen(text) + 8, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
  mbt_tree* heavy_tree = load_text(doubled);
  const int body = mbt_tree_body_by_name(tree, "wrist_3_link");
  mbt_context* ctx = mbt_context_create(tree);
  mbt_context* other = mbt_context_create(tree);
  mbt_context* heavy = mbt_context_create(heavy_tree);
  assert_true(body > 0 && ctx && other && heavy);
  const dynamics before = dynamics_at(tree, other);
  mbt_real m = 0;
  assert_int_equal(mbt_body_get_mass(ctx, body, &m), MBT_OK);
  assert_true(m == 0.1879);
  assert_int_equal(mbt_body_set_mass(ctx, body, 2 * m), MBT_OK);
  const dynamics got = dynamics_at(tree, ctx), want = dynamics_at(heavy_tree, heavy);
  assert_memory_equal(&got, &want, sizeof got);
  /* It changed something, and nothing in the tree's other context. */
  assert_true(tu_max_abs_diff(got.tau, before.tau, NV) > 1e-3);
  const dynamics after = dynamics_at(tree, other);
  assert_memory_equal(&after, &before, sizeof after);
  /* A clone and a batch carry the parameter. */
  mbt_context* clone = mbt_context_clone(ctx);
  const dynamics cloned = dynamics_at(tree, clone);
  assert_memory_equal(&cloned, &want, sizeof cloned);
  mbt_batch* b = mbt_batch_create(tree, 2);
  assert_int_equal(mbt_batch_set_parameters(b, ctx), MBT_OK);
  const mbt_real x[2 * NV] = {0.3, -1.1, 1.4, -0.6, 0.9, 0.2, 0.5, -0.4, 0.3, 0.8, -0.7, 1.1};
  const mbt_real vd[NV] = {0.2, 0.1, -0.3, 0.5, -0.2, 0.4};
  mbt_real tau[NV];
  assert_int_equal(mbt_batch_calc_inverse_dynamics(b, 1, x, vd, tau, NULL), MBT_OK);
  assert_memory_equal(tau, want.tau, sizeof tau);
  mbt_batch_destroy(b);
  mbt_context_destroy(clone);
  mbt_context_destroy(ctx);
  mbt_context_destroy(other);
  mbt_context_destroy(heavy);
  mbt_tree_destroy(heavy_tree);
  mbt_tree_destroy(tree);
  free(doubled);
  free(text);
}

/* Moving a center of mass (keeping the central inertia) is moving <inertial><origin> in the
 * URDF, on a link with a welded child (the merged inertia is recomputed) and one without. */
static void test_center_of_mass_equals_rebuilt_tree(void** st) {
  (void)st;
  mbt_tree* tree = tu_load_model("ur5");
  char* text = ur5_text_with("<mass value=\"0.1879\"/>\n      <origin rpy=\"0 0 0\" xyz=\"0.0 0.0 0.0\"/>",
                             "<mass value=\"0.1879\"/>\n      <origin rpy=\"0 0 0\" xyz=\"0.01 -0.02 0.03\"/>");
  mbt_tree* moved_tree = load_text(text);
  mbt_context* ctx = mbt_context_create(tree);
  mbt_context* moved = mbt_context_create(moved_tree);
  const int body = mbt_tree_body_by_name(tree, "wrist_3_link");
  const mbt_vec3 c = mbt_vec3_make(0.01, -0.02, 0.03);
  assert_int_equal(mbt_body_set_center_of_mass_preserving_central_inertia(ctx, body, c), MBT_OK);
  mbt_vec3 got_c;
  assert_int_equal(mbt_body_get_center_of_mass(ctx, body, &got_c), MBT_OK);
  tu_assert_vec3_near(got_c, c, 0);
  mbt_spatial_inertia M1, M2;
  assert_int_equal(mbt_body_get_spatial_inertia(ctx, body, &M1), MBT_OK);
  M2 = *mbt_tree_body_spatial_inertia(moved_tree, body);
  tu_assert_close(M1.G_SP_E.xx, M2.G_SP_E.xx, 1e-15, "G_xx");
  tu_assert_close(M1.G_SP_E.xy, M2.G_SP_E.xy, 1e-15, "G_xy");
  const dynamics got = dynamics_at(tree, ctx), want = dynamics_at(moved_tree, moved);
  assert_dynamics_near(&got, &want, 1e-13);
  /* The plain setter keeps G_BBo_B: a different inertia about the center of mass. */
  mbt_tree_set_default_context(tree, ctx);
  assert_int_equal(mbt_body_set_center_of_mass(ctx, body, c), MBT_OK);
  assert_int_equal(mbt_body_get_spatial_inertia(ctx, body, &M1), MBT_OK);
  tu_assert_close(M1.G_SP_E.xx, mbt_tree_body_spatial_inertia(tree, body)->G_SP_E.xx, 0, "G_xx kept");
  mbt_context_destroy(ctx);
  mbt_context_destroy(moved);
  mbt_tree_destroy(moved_tree);
  mbt_tree_destroy(tree);
  free(text);
}

static void test_gravity_equals_tree_gravity(void** st) {
  (void)st;
  mbt_tree* tree = tu_load_model("ur5");
  mbt_tree* tree2 = tu_load_model("ur5");
  const mbt_vec3 g = mbt_vec3_make(1.5, -2.0, -3.71);
  assert_int_equal(mbt_tree_set_gravity(tree2, g), MBT_OK);
  mbt_context* ctx = mbt_context_create(tree);
  mbt_context* other = mbt_context_create(tree);
  mbt_context* ctx2 = mbt_context_create(tree2);
  const dynamics before = dynamics_at(tree, other);
  assert_int_equal(mbt_context_set_gravity(ctx, g), MBT_OK);
  tu_assert_vec3_near(mbt_context_gravity(ctx), g, 0);
  const dynamics got = dynamics_at(tree, ctx), want = dynamics_at(tree2, ctx2);
  assert_memory_equal(&got, &want, sizeof got);
  const dynamics after = dynamics_at(tree, other);
  assert_memory_equal(&after, &before, sizeof after);
  tu_assert_vec3_near(mbt_context_gravity(other), mbt_vec3_make(0, 0, -9.81), 0);
  mbt_context_destroy(ctx);
  mbt_context_destroy(other);
  mbt_context_destroy(ctx2);
  mbt_tree_destroy(tree);
  mbt_tree_destroy(tree2);
}

/* Refused values: a status, a message naming the body, and no change. */
static void test_refused_values_change_nothing(void** st) {
  (void)st;
  mbt_tree* tree = tu_load_model("ur5");
  mbt_context* ctx = mbt_context_create(tree);
  const int body = mbt_tree_body_by_name(tree, "forearm_link");
  const dynamics before = dynamics_at(tree, ctx);
  assert_int_equal(mbt_body_set_mass(ctx, body, -1), MBT_ERR_NONPHYSICAL);
  assert_contains(mbt_context_last_error(ctx), "forearm_link");
  assert_int_equal(mbt_body_set_mass(ctx, body, NAN), MBT_ERR_NONPHYSICAL);
  assert_int_equal(mbt_body_set_center_of_mass(ctx, body, mbt_vec3_make(NAN, 0, 0)), MBT_ERR_NONPHYSICAL);
  assert_contains(mbt_context_last_error(ctx), "forearm_link");
  /* Keeping G_BBo_B while moving the center of mass far away breaks the triangle inequality. */
  assert_int_equal(mbt_body_set_center_of_mass(ctx, body, mbt_vec3_make(5, 0, 0)), MBT_ERR_NONPHYSICAL);
  mbt_spatial_inertia bad = *mbt_tree_body_spatial_inertia(tree, body);
  bad.G_SP_E.xx = -1;
  assert_int_equal(mbt_body_set_spatial_inertia(ctx, body, &bad), MBT_ERR_NONPHYSICAL);
  assert_int_equal(mbt_body_set_mass(ctx, 0, 1), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_context_last_error(ctx), "world");
  assert_int_equal(mbt_body_set_mass(ctx, 999, 1), MBT_ERR_NOT_FOUND);
  assert_int_equal(mbt_context_set_gravity(ctx, mbt_vec3_make(0, INFINITY, 0)), MBT_ERR_INVALID_ARGUMENT);
  const dynamics after = dynamics_at(tree, ctx);
  assert_memory_equal(&after, &before, sizeof after);
  mbt_real m;
  assert_int_equal(mbt_body_get_mass(ctx, body, &m), MBT_OK);
  assert_true(m == mbt_tree_body_spatial_inertia(tree, body)->mass);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mass_equals_rebuilt_tree),
      cmocka_unit_test(test_center_of_mass_equals_rebuilt_tree),
      cmocka_unit_test(test_gravity_equals_tree_gravity),
      cmocka_unit_test(test_refused_values_change_nothing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
