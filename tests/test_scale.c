/* test_scale.c: models of 100,000 bodies (urdf.h, tree.h, geometry.h, context.h, dynamics.h and
 * the mbt command): a serial chain and a complete binary tree, each link with a visual and a
 * collision shape, are written as URDF files, loaded, finalized, given a context; inverse
 * dynamics of forward dynamics returns the applied torques, and `mbt info` prints every body.
 * Nothing may recurse once per level (the chain is 100,000 levels deep) or cost O(n²) (the
 * suite would not finish). */
#include "support/test_util.h"

#include <float.h>
#include <sys/wait.h>

static int kBodies = 100000;

/* URDF of n links "l<i>" hanging from the world: link i's parent is i − 1 in the chain, and
 * (i − 1)/2 in the binary tree (link 0 is on the world). Revolute axes z, y, x in turn. */
static void write_model(const char* path, int n, bool binary) {
  FILE* f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f, "<?xml version=\"1.0\"?>\n<robot name=\"%s\">\n<link name=\"world\"/>\n", binary ? "binary" : "chain");
  static const char* const axes[3] = {"0 0 1", "0 1 0", "1 0 0"};
  for (int i = 0; i < n; ++i) {
    const int parent = i == 0 ? -1 : binary ? (i - 1) / 2 : i - 1;
    char pname[32];
    snprintf(pname, sizeof pname, parent < 0 ? "world" : "l%d", parent);
    fprintf(f,
            "<link name=\"l%d\"><inertial><origin xyz=\"0 0 0.05\"/><mass value=\"%g\"/>"
            "<inertia ixx=\"0.01\" iyy=\"0.012\" izz=\"0.008\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial>"
            "<visual><geometry><sphere radius=\"0.02\"/></geometry></visual>"
            "<collision name=\"hull\"><geometry><box size=\"0.04 0.04 0.1\"/></geometry></collision></link>\n"
            "<joint name=\"j%d\" type=\"revolute\"><parent link=\"%s\"/><child link=\"l%d\"/>"
            "<origin xyz=\"0 0 0.1\" rpy=\"0.6283185307179586 0 0\"/><axis xyz=\"%s\"/></joint>\n",
            i, 0.5 + 0.001 * (i % 1000), i, pname, i, axes[i % 3]);
  }
  fputs("</robot>\n", f);
  assert_int_equal(fclose(f), 0);
}

/* Loads, checks the shape, and checks ID(FD(τ)) = τ at a random state. */
static void check_dynamics(const char* path, int n, int height) {
  mbt_urdf_result r;
  const int s = mbt_urdf_load_file(path, 0, &r);
  if (s) fail_msg("%s", r.error);
  const mbt_tree* tree = r.tree;
  assert_int_equal(mbt_tree_num_bodies(tree), n + 1); /* the world, l0 .. l(n−1) */
  assert_int_equal(mbt_tree_num_velocities(tree), n);
  assert_int_equal(mbt_tree_height(tree), height);
  char last[32];
  snprintf(last, sizeof last, "l%d", n - 1);
  const int b = mbt_tree_body_by_name(tree, last);
  assert_true(b > 0);
  assert_string_equal(mbt_tree_body_name(tree, b), last);
  /* One visual and one collision shape per link, found by body and name. */
  assert_int_equal(mbt_tree_num_geometries(tree, MBT_ROLE_VISUAL), n);
  assert_int_equal(mbt_tree_num_geometries(tree, MBT_ROLE_COLLISION), n);
  assert_int_equal(mbt_tree_body_num_geometries(tree, b, MBT_ROLE_COLLISION), 1);
  const int g = mbt_tree_geometry_by_name(tree, b, MBT_ROLE_COLLISION, "hull");
  assert_true(g >= 0);
  assert_int_equal(mbt_tree_geometry(tree, MBT_ROLE_COLLISION, g)->body, b);
  mbt_context* ctx = mbt_context_create(tree);
  assert_non_null(ctx);
  mbt_real* x = malloc(sizeof(mbt_real) * 2 * (size_t)n);
  mbt_real* tau = malloc(sizeof(mbt_real) * (size_t)n);
  mbt_real* vdot = malloc(sizeof(mbt_real) * (size_t)n);
  mbt_real* tau_id = malloc(sizeof(mbt_real) * (size_t)n);
  assert_true(x && tau && vdot && tau_id);
  tu_seed(14);
  tu_rand_array(x, 2 * n, 0.05);
  tu_rand_array(tau, n, 1.0);
  assert_int_equal(mbt_context_set_x(ctx, x, 2 * n), MBT_OK);
  assert_int_equal(mbt_calc_forward_dynamics(tree, ctx, tau, NULL, vdot), MBT_OK);
  assert_int_equal(mbt_calc_inverse_dynamics_with_gravity(tree, ctx, vdot, tau_id), MBT_OK);
  /* No damping in the model: ID returns M·v̇ + C·v − τ_g = τ. Each row sums the forces of the
   * whole subtree outboard of its joint (lever arms up to kilometres on the chain), so its
   * rounding error is relative to the size of those terms: |ID(v̇ = 0)| + |τ| (bias and gravity
   * plus the applied torque). Rounding grows with the depth d squared (each row through d
   * composed poses and articulated inertias) and with the n bodies summed into a row: measured
   * 3.5e-13, 3.2e-10, 9.5e-8 on chains of 10³, 10⁴, 10⁵ links, below (d² + n)·ε = 2.2e-10,
   * 2.2e-8, 2.2e-6, and 8.7e-13 on the binary tree of 10⁵ bodies (d = 17), below 2.2e-11. A
   * wrong recursion gives errors of order 1 in these units. */
  assert_int_equal(mbt_calc_inverse_dynamics_with_gravity(tree, ctx, NULL, vdot), MBT_OK);
  double rel = 0, err = 0;
  for (int k = 0; k < n; ++k) {
    err = fmax(err, fabs(tau_id[k] - tau[k]));
    rel = fmax(rel, fabs(tau_id[k] - tau[k]) / (fabs(vdot[k]) + fabs(tau[k])));
  }
  fprintf(stderr, "%s: max |ID(FD(tau)) - tau| = %g, relative to the terms' size %g\n", path, err, rel);
  const double depth = mbt_tree_height(tree) - 1;
  if (!(rel < (depth * depth + n) * DBL_EPSILON)) fail_msg("%s: |ID(FD(tau)) - tau| is %g of |ID(vdot = 0)| + |tau|", path, rel);
  free(x);
  free(tau);
  free(vdot);
  free(tau_id);
  mbt_context_destroy(ctx);
  mbt_urdf_result_free(&r);
}

/* `mbt info` prints the header, one line per body (the deepest included) and the counts. */
static void check_info(const char* path, int n) {
  char cmd[4096], out[1100];
  snprintf(out, sizeof out, "%s.info.txt", path);
  snprintf(cmd, sizeof cmd, "'%s/mbt' info '%s' > '%s'", MBT_BINARY_DIR, path, out);
  const int rc = system(cmd);
  assert_true(WIFEXITED(rc));
  assert_int_equal(WEXITSTATUS(rc), 0);
  FILE* f = fopen(out, "r");
  assert_non_null(f);
  char line[4096];
  int body_lines = 0;
  bool deepest = false, counts = false;
  while (fgets(line, sizeof line, f)) {
    if (strstr(line, " q[")) ++body_lines;
    char name[32], expect[64];
    snprintf(name, sizeof name, "─ l%d ", n - 1);
    if (strstr(line, name)) deepest = true;
    snprintf(expect, sizeof expect, "bodies: %d", n + 1);
    if (strstr(line, expect)) counts = true;
  }
  fclose(f);
  remove(out);
  assert_int_equal(body_lines, n);
  assert_true(deepest);
  assert_true(counts);
}

static void run(const char* name, bool binary, int height) {
  char path[1024];
  snprintf(path, sizeof path, "%s/tests/%s.urdf", MBT_BINARY_DIR, name);
  write_model(path, kBodies, binary);
  check_dynamics(path, kBodies, height);
  check_info(path, kBodies);
  remove(path);
}

static void test_chain_of_100000_links(void** state) {
  (void)state;
  /* l0 hangs from the world by j0: levels 0 (the world) to 100,000. */
  run("scale_chain", false, kBodies + 1);
}

static void test_binary_tree_of_100000_bodies(void** state) {
  (void)state;
  /* Link i is at depth floor(log2(i + 1)) below l0: 1 + 16 levels of links under the world. */
  int depth = 0; /* of the last link, floor(log2(n)) */
  while ((2 << depth) - 1 < kBodies) ++depth;
  run("scale_binary", true, depth + 2);
}

int main(int argc, char** argv) {
  if (argc > 1) kBodies = atoi(argv[1]);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_chain_of_100000_links),
      cmocka_unit_test(test_binary_tree_of_100000_bodies),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
