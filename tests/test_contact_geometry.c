/* Contact shapes from a tree's collision geometry (mbt_contact_model_add_collision_geometry):
 * primitives as they are, meshes as their convex hull (an OBJ cube with interior and face
 * points keeps its 8 corners; scale applied); the lowest point of the moving shapes computed
 * by hand; errors (a mesh without file, a flat mesh) leave the model unchanged. Model
 * instances (mbt_tree_add_model_instance): two copies of a URDF arm in one tree have the
 * source's names prefixed, its kinematics moved by X_WR, its mass matrix in diagonal blocks,
 * its geometry; a duplicate or bad instance leaves the tree unchanged. */
#define _POSIX_C_SOURCE 200809L
#include <unistd.h>

#include "support/test_util.h"
#include "contact/contact_internal.h"

/* A file in /tmp with this text; its path in buf. */
static void write_file(char* buf, size_t n, const char* name, const char* text) {
  snprintf(buf, n, "/tmp/mbt_test_contact_geometry_%d_%s", (int)getpid(), name);
  FILE* f = fopen(buf, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* A unit cube's corners, its centre and a face centre (not hull vertices). */
static const char* const kCubeObj =
    "v -0.5 -0.5 -0.5\nv 0.5 -0.5 -0.5\nv -0.5 0.5 -0.5\nv 0.5 0.5 -0.5\n"
    "v -0.5 -0.5 0.5\nv 0.5 -0.5 0.5\nv -0.5 0.5 0.5\nv 0.5 0.5 0.5\nv 0 0 0\nv 0 0 0.5\n"
    "f 1 2 4\nf 1 4 3\nf 5 6 8\nf 5 8 7\nf 1 2 6\nf 1 6 5\nf 3 4 8\nf 3 8 7\nf 1 3 7\nf 1 7 5\n"
    "f 2 4 8\nf 2 8 6\nf 9 10 1\n";

static mbt_urdf_result load(const char* xml) {
  mbt_urdf_result r;
  assert_int_equal(mbt_urdf_load_string(xml, strlen(xml), "/tmp/geometry_test.urdf", MBT_URDF_FLOATING, &r), MBT_OK);
  return r;
}

static void test_shapes_and_hull(void** state) {
  (void)state;
  if (!mbt__mesh_hulls_available()) skip();
  char obj[256], xml[2048];
  write_file(obj, sizeof obj, "cube.obj", kCubeObj);
  snprintf(xml, sizeof xml,
           "<robot name='r'><link name='b'><inertial><mass value='1'/><inertia ixx='1' iyy='1' izz='1' ixy='0' "
           "ixz='0' iyz='0'/></inertial>"
           "<collision><origin xyz='0 0 0.3'/><geometry><sphere radius='0.1'/></geometry></collision>"
           "<collision><geometry><box size='0.1 0.2 0.3'/></geometry></collision>"
           "<collision><geometry><capsule radius='0.05' length='0.2'/></geometry></collision>"
           "<collision><geometry><cylinder radius='0.05' length='0.2'/></geometry></collision>"
           "<collision><origin xyz='0 0 -1' rpy='0 1.5707963267948966 0'/>"
           "<geometry><mesh filename='%s' scale='2 1 1'/></geometry></collision></link></robot>",
           obj);
  mbt_urdf_result r = load(xml);
  mbt_contact_model* m = mbt_contact_model_create(r.tree);
  assert_int_equal(mbt_contact_model_add_collision_geometry(m, NULL), 5);
  assert_int_equal(m->geoms[0].shape.type, MBT__CSHAPE_SPHERE);
  assert_int_equal(m->geoms[2].shape.type, MBT__CSHAPE_CAPSULE);
  assert_int_equal(m->geoms[3].shape.type, MBT__CSHAPE_CYLINDER);
  assert_int_equal(m->geoms[4].shape.type, MBT__CSHAPE_POINTS);
  assert_int_equal(m->geoms[4].shape.num_points, 8); /* the corners only */
  for (int k = 0; k < 8; ++k) {
    const mbt_vec3 p = m->geoms[4].shape.points[k];
    assert_near(fabs(p.v[0]), 1.0, 1e-12); /* scaled by 2 along x */
    assert_near(fabs(p.v[1]), 0.5, 1e-12);
    assert_near(fabs(p.v[2]), 0.5, 1e-12);
  }
  /* Body at z = 2: the mesh's x (half extent 1) turned onto −z below z = 1: lowest z = 0. */
  mbt_context* ctx = mbt_context_create(r.tree);
  const mbt_real q[7] = {1, 0, 0, 0, 0.3, -0.2, 2};
  assert_int_equal(mbt_context_set_q(ctx, q, 7), MBT_OK);
  mbt_real z = -1;
  assert_int_equal(mbt_contact_model_calc_lowest_point(m, ctx, &z), MBT_OK);
  assert_near(z, 0.0, 1e-12);
  mbt_context_destroy(ctx);
  mbt_contact_model_destroy(m);
  mbt_urdf_result_free(&r);
  remove(obj);
}

static void test_errors_leave_the_model(void** state) {
  (void)state;
  char flat[256], xml[1024];
  write_file(flat, sizeof flat, "flat.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n");
  const char* fmt =
      "<robot name='r'><link name='b'><inertial><mass value='1'/><inertia ixx='1' iyy='1' izz='1' ixy='0' "
      "ixz='0' iyz='0'/></inertial><collision><geometry><box size='1 1 1'/></geometry></collision>"
      "<collision name='m'><geometry><mesh filename='%s'/></geometry></collision></link></robot>";
  for (int c = 0; c < 2; ++c) {
    snprintf(xml, sizeof xml, fmt, c == 0 ? "no_such_mesh.stl" : flat);
    mbt_urdf_result r = load(xml);
    mbt_contact_model* m = mbt_contact_model_create(r.tree);
    assert_int_equal(mbt_contact_model_add_sphere(m, 1, NULL, 0.1, NULL), 0);
    const int st = mbt_contact_model_add_collision_geometry(m, NULL);
    assert_int_equal(mbt_contact_model_num_shapes(m), 1); /* as it was */
    if (c == 0) {
      assert_int_equal(st, MBT_ERR_IO);
      assert_contains(mbt_contact_model_last_error(m), "mesh 'no_such_mesh.stl' does not resolve");
    } else if (mbt__mesh_hulls_available()) {
      assert_int_equal(st, MBT_ERR_INVALID_ARGUMENT);
      assert_contains(mbt_contact_model_last_error(m), "no convex hull");
    }
    assert_contains(mbt_contact_model_last_error(m), "body 'b'");
    mbt_contact_model_destroy(m);
    mbt_urdf_result_free(&r);
  }
  remove(flat);
  /* No shape on a moving body: no lowest point. */
  mbt_urdf_result r = load(
      "<robot name='r'><link name='b'><inertial><mass value='1'/><inertia ixx='1' iyy='1' izz='1' ixy='0' ixz='0' "
      "iyz='0'/></inertial></link></robot>");
  mbt_contact_model* m = mbt_contact_model_create(r.tree);
  assert_true(mbt_contact_model_add_ground(m, mbt_vec3_make(0, 0, 1), 0, NULL) >= 0);
  mbt_context* ctx = mbt_context_create(r.tree);
  mbt_real z = 7;
  assert_int_equal(mbt_contact_model_calc_lowest_point(m, ctx, &z), MBT_ERR_NOT_FOUND);
  assert_near(z, 7, 0);
  mbt_context_destroy(ctx);
  mbt_contact_model_destroy(m);
  mbt_urdf_result_free(&r);
}

/* Two links on revolute joints about y, welded to the world, with a collision sphere. */
static const char* const kArm =
    "<robot name='arm'><link name='world'/>"
    "<link name='l1'><inertial><origin xyz='0 0 0.25'/><mass value='2'/><inertia ixx='0.1' iyy='0.2' izz='0.3' "
    "ixy='0' ixz='0' iyz='0'/></inertial><collision><geometry><sphere radius='0.1'/></geometry></collision></link>"
    "<link name='l2'><inertial><origin xyz='0.1 0 0.2'/><mass value='1'/><inertia ixx='0.05' iyy='0.04' "
    "izz='0.03' ixy='0' ixz='0' iyz='0'/></inertial></link>"
    "<joint name='j1' type='revolute'><parent link='world'/><child link='l1'/><origin xyz='0 0 0.1'/>"
    "<axis xyz='0 1 0'/><limit lower='-2' upper='2' effort='1' velocity='1'/><dynamics damping='0.3'/></joint>"
    "<joint name='j2' type='revolute'><parent link='l1'/><child link='l2'/><origin xyz='0 0 0.5' rpy='0.2 0 0'/>"
    "<axis xyz='1 0 0'/><limit lower='-1' upper='1' effort='1' velocity='1'/></joint></robot>";

static void test_model_instances(void** state) {
  (void)state;
  mbt_urdf_result r;
  assert_int_equal(mbt_urdf_load_string(kArm, strlen(kArm), "arm.urdf", 0, &r), MBT_OK);
  mbt_tree* tree = mbt_tree_create();
  const mbt_mat3 R = mbt_rotation_from_rpy(mbt_vec3_make(0.1, -0.4, 1.2));
  const mbt_transform X[2] = {mbt_transform_make(&R, mbt_vec3_make(0.5, -1, 0.2)), mbt_transform_identity()};
  assert_int_equal(mbt_tree_add_model_instance(tree, r.tree, "left", &X[0]), 2);
  assert_int_equal(mbt_tree_add_model_instance(tree, r.tree, "right", &X[1]), 2);
  /* A duplicate and a bad name change nothing. */
  assert_int_equal(mbt_tree_add_model_instance(tree, r.tree, "left", NULL), MBT_ERR_DUPLICATE);
  assert_contains(mbt_tree_last_error(tree), "left::");
  assert_int_equal(mbt_tree_add_model_instance(tree, r.tree, "a::b", NULL), MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_tree_num_bodies(tree), 5);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  assert_int_equal(mbt_tree_num_velocities(tree), 4);
  assert_int_equal(mbt_tree_num_geometries(tree, MBT_ROLE_COLLISION), 2);
  const int j1 = mbt_tree_joint_by_name(tree, "right::j1");
  assert_true(j1 >= 0);
  assert_near(mbt_joint_position_upper_limits(tree, j1)[0], 2, 0);
  assert_near(mbt_joint_default_damping_vector(tree, j1)[0], 0.3, 0);
  /* Kinematics: X_W(inst::l2) = X_WR·X_W(l2) in the source, at the same joint angles. */
  const mbt_real qs[2] = {0.7, -0.3}, q[4] = {0.7, -0.3, 0.7, -0.3};
  mbt_context* cs = mbt_context_create(r.tree);
  mbt_context* c = mbt_context_create(tree);
  assert_int_equal(mbt_context_set_q(cs, qs, 2), MBT_OK);
  assert_int_equal(mbt_context_set_q(c, q, 4), MBT_OK);
  mbt_transform Xs, Xi;
  assert_int_equal(mbt_context_body_pose_in_world(r.tree, cs, mbt_tree_body_by_name(r.tree, "l2"), &Xs), MBT_OK);
  const char* names[2] = {"left::l2", "right::l2"};
  for (int k = 0; k < 2; ++k) {
    assert_int_equal(mbt_context_body_pose_in_world(tree, c, mbt_tree_body_by_name(tree, names[k]), &Xi), MBT_OK);
    const mbt_transform expected = mbt_transform_compose(&X[k], &Xs);
    tu_assert_transform_near(&Xi, &expected, 1e-14);
  }
  /* Mass matrix: the source's in both diagonal blocks, zero coupling. */
  mbt_real Ms[4], M[16];
  assert_int_equal(mbt_calc_mass_matrix(r.tree, cs, Ms), MBT_OK);
  assert_int_equal(mbt_calc_mass_matrix(tree, c, M), MBT_OK);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j)
      assert_near(M[4 * i + j], i / 2 == j / 2 ? Ms[2 * (i % 2) + j % 2] : 0, 1e-14);
  mbt_context_destroy(cs);
  mbt_context_destroy(c);
  mbt_tree_destroy(tree);
  mbt_urdf_result_free(&r);
  /* A floating model placed at X_WR starts there, its q the world pose. */
  const char* ball = "<robot name='b'><link name='b'><inertial><mass value='1'/><inertia ixx='1' iyy='1' izz='1' "
                     "ixy='0' ixz='0' iyz='0'/></inertial></link></robot>";
  assert_int_equal(mbt_urdf_load_string(ball, strlen(ball), "b.urdf", MBT_URDF_FLOATING, &r), MBT_OK);
  tree = mbt_tree_create();
  assert_int_equal(mbt_tree_add_model_instance(tree, r.tree, "ball", &X[0]), 1);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  c = mbt_context_create(tree);
  assert_int_equal(mbt_context_body_pose_in_world(tree, c, 1, &Xi), MBT_OK);
  tu_assert_transform_near(&Xi, &X[0], 1e-15);
  for (int k = 0; k < 3; ++k) assert_near(mbt_context_q(c)[4 + k], X[0].p.v[k], 1e-15);
  mbt_context_destroy(c);
  mbt_tree_destroy(tree);
  mbt_urdf_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shapes_and_hull),
      cmocka_unit_test(test_errors_leave_the_model),
      cmocka_unit_test(test_model_instances),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
