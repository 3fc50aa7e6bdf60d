/* Tests of the model side of mbt/forces.h: the MultibodyForces container, gravity, and adding
 * force elements with their errors (the contributions are tested with the algorithms). */
#include "support/test_util.h"

#include "tree/tree_internal.h"

static int user_calls;
static void user_force(const mbt_tree* tree, mbt_context* ctx, void* user_data, mbt_multibody_forces* forces) {
  (void)tree;
  (void)ctx;
  (void)forces;
  user_calls += *(int*)user_data;
}

static void test_gravity(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_vec3 g = mbt_tree_gravity(t);
  assert_true(g.v[0] == 0 && g.v[1] == 0 && g.v[2] == -9.81);
  assert_string_equal(mbt_force_element_name(t, 0), "gravity");
  assert_int_equal(mbt_tree_set_gravity(t, mbt_vec3_make(0, -1.62, 0)), MBT_OK);
  assert_true(mbt_tree_gravity(t).v[1] == -1.62);
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  /* Settable after finalize; not to a non-finite value. */
  assert_int_equal(mbt_tree_set_gravity(t, mbt_vec3_make(0, 0, -3.71)), MBT_OK);
  assert_true(mbt_tree_gravity(t).v[2] == -3.71);
  assert_int_equal(mbt_tree_set_gravity(t, mbt_vec3_make(NAN, 0, 0)), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_tree_last_error(t), "gravity");
  assert_true(mbt_tree_gravity(t).v[2] == -3.71);
  mbt_tree_destroy(t);
}

static void test_add_force_elements(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = tu_body_inertia();
  const int a = mbt_tree_add_rigid_body(t, "a", &M);
  const int b = mbt_tree_add_rigid_body(t, "b", &M);
  const int ja = mbt_tree_add_revolute_joint(t, "ja", 0, NULL, a, NULL, mbt_vec3_make(0, 0, 1), 0);
  const int jb = mbt_tree_add_prismatic_joint(t, "jb", a, NULL, b, NULL, mbt_vec3_make(0, 0, 1), 0);
  const int s = mbt_tree_add_linear_spring_damper(t, "spring", a, mbt_vec3_make(0, 0, 1), b, mbt_vec3_zero(), 0.5,
                                                  100, 2);
  const int r = mbt_tree_add_revolute_spring(t, "torsion", ja, 0.3, 10);
  int calls = 2;
  const int u = mbt_tree_add_user_force(t, "user", user_force, &calls);
  assert_true(s == 1 && r == 2 && u == 3);
  assert_int_equal(mbt_tree_num_force_elements(t), 4);
  assert_int_equal(mbt_force_element_type_of(t, s), MBT_FORCE_LINEAR_SPRING_DAMPER);
  assert_int_equal(mbt_force_element_type_of(t, r), MBT_FORCE_REVOLUTE_SPRING);
  assert_int_equal(mbt_force_element_type_of(t, u), MBT_FORCE_USER);
  assert_string_equal(mbt_force_element_name(t, r), "torsion");
  assert_null(mbt_force_element_name(t, 4));
  assert_contains(mbt_tree_last_error(t), "unknown force element 4");
  assert_true(t->forces[s].u.spring.stiffness == 100 && t->forces[s].u.spring.free_length == 0.5);
  assert_int_equal(t->forces[r].u.revolute_spring.joint, ja);
  t->forces[u].u.user.fn(t, NULL, t->forces[u].u.user.user_data, NULL);
  assert_int_equal(user_calls, 2);

  /* Errors: status, message naming the element, nothing added. */
  const int n = mbt_tree_num_force_elements(t);
  assert_int_equal(mbt_tree_add_linear_spring_damper(t, "s2", a, mbt_vec3_zero(), b, mbt_vec3_zero(), 0, 1, 0),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_tree_last_error(t), "spring-damper 's2'");
  assert_contains(mbt_tree_last_error(t), "free length");
  assert_int_equal(mbt_tree_add_linear_spring_damper(t, "s2", a, mbt_vec3_zero(), b, mbt_vec3_zero(), 1, -1, 0),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_tree_last_error(t), "stiffness");
  assert_int_equal(mbt_tree_add_linear_spring_damper(t, "s2", a, mbt_vec3_zero(), b, mbt_vec3_zero(), 1, 1, NAN),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_tree_last_error(t), "damping");
  assert_int_equal(mbt_tree_add_linear_spring_damper(t, "s2", -1, mbt_vec3_zero(), b, mbt_vec3_zero(), 1, 1, 0),
                   MBT_ERR_NOT_FOUND);
  assert_contains(mbt_tree_last_error(t), "unknown body A -1");
  assert_int_equal(mbt_tree_add_revolute_spring(t, "r2", jb, 0, 1), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_tree_last_error(t), "revolute spring 'r2'");
  assert_contains(mbt_tree_last_error(t), "joint 'jb' is not revolute");
  assert_int_equal(mbt_tree_add_revolute_spring(t, "r2", ja, 0, -5), MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_tree_add_user_force(t, "u2", NULL, NULL), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_tree_last_error(t), "user force 'u2'");
  assert_int_equal(mbt_tree_add_user_force(t, "spring", user_force, NULL), MBT_ERR_DUPLICATE);
  assert_int_equal(mbt_tree_num_force_elements(t), n);
  mbt_tree_destroy(t);
}

static void test_multibody_forces_container(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = tu_body_inertia();
  const int a = mbt_tree_add_rigid_body(t, "a", &M);
  const int b = mbt_tree_add_rigid_body(t, "b", &M);
  /* b is attached first, so b's node comes before a's. */
  assert_true(mbt_tree_add_revolute_joint(t, "jb", 0, NULL, b, NULL, mbt_vec3_make(0, 0, 1), 0) >= 0);
  assert_true(mbt_tree_add_revolute_joint(t, "ja", 0, NULL, a, NULL, mbt_vec3_make(0, 0, 1), 0) >= 0);
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  mbt_multibody_forces* f = mbt_multibody_forces_create(t);
  mbt_multibody_forces* g = mbt_multibody_forces_create(t);
  assert_non_null(f);
  assert_int_equal(f->num_bodies, 3);
  assert_int_equal(f->nv, 2);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 6; ++k) assert_true(f->F_BBo_W[i].coeffs[k] == 0);
  mbt_spatial_force F = {{{{1, 2, 3}}, {{4, 5, 6}}}};
  mbt_multibody_forces_add_body_force(t, f, a, &F);
  mbt_multibody_forces_add_body_force(t, f, a, &F);
  const int na = mbt_tree_body_node(t, a);
  assert_int_equal(na, 2);
  for (int k = 0; k < 6; ++k) {
    assert_true(f->F_BBo_W[na].coeffs[k] == 2 * F.coeffs[k]);
    assert_true(f->F_BBo_W[mbt_tree_body_node(t, b)].coeffs[k] == 0);
  }
  f->tau[1] = 3;
  g->tau[1] = 4;
  g->F_BBo_W[1].coeffs[0] = 1;
  mbt_multibody_forces_add_in(f, g);
  assert_true(f->tau[1] == 7);
  assert_true(f->F_BBo_W[1].coeffs[0] == 1);
  assert_true(f->F_BBo_W[na].coeffs[5] == 12);
  mbt_multibody_forces_add_body_force(t, f, 9, &F);
  assert_contains(mbt_tree_last_error(t), "unknown body 9");
  mbt_multibody_forces_set_zero(f);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 6; ++k) assert_true(f->F_BBo_W[i].coeffs[k] == 0);
  assert_true(f->tau[0] == 0 && f->tau[1] == 0);
  mbt_multibody_forces_destroy(g);
  mbt_multibody_forces_destroy(f);
  mbt_multibody_forces_destroy(NULL);
  mbt_tree_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gravity),
      cmocka_unit_test(test_add_force_elements),
      cmocka_unit_test(test_multibody_forces_container),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
