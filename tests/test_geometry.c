/* Tests of visual and collision geometry (mbt/geometry.h) and of the URDF loader's
 * <visual>, <collision> and <material> (mbt/urdf.h): the builder's checks (a failed call
 * changes nothing), the queries, the shipped models' geometry (counts, poses, colours, file
 * names, resolved paths), mesh path resolution and the loader's errors. */
#include "support/test_util.h"

#define SRC "test.urdf"
#define MODELS MBT_SOURCE_DIR "/models/"
#define INERTIAL                                                                  \
  "<inertial><mass value=\"1\"/>"                                                 \
  "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/></inertial>"

/* A tree with bodies "a" (1) and "b" (2) on revolute joints, not finalized. */
static mbt_tree* two_bodies(void) {
  mbt_tree* t = mbt_tree_create();
  const mbt_spatial_inertia M = tu_rand_inertia();
  const int a = mbt_tree_add_rigid_body(t, "a", &M);
  const int b = mbt_tree_add_rigid_body(t, "b", &M);
  assert_int_equal(a, 1);
  assert_int_equal(b, 2);
  const mbt_vec3 z = mbt_vec3_make(0, 0, 1);
  assert_true(mbt_tree_add_revolute_joint(t, "ja", 0, NULL, a, NULL, z, 0) >= 0);
  assert_true(mbt_tree_add_revolute_joint(t, "jb", a, NULL, b, NULL, z, 0) >= 0);
  return t;
}

/* Adding `d` fails with `status` and a message holding `frag`; the tree's geometry is as before. */
static void expect_add_error(mbt_tree* t, int body, mbt_geometry_role role, const mbt_geometry_desc* d, int status,
                             const char* frag) {
  const int nv = mbt_tree_num_geometries(t, MBT_ROLE_VISUAL), nc = mbt_tree_num_geometries(t, MBT_ROLE_COLLISION);
  const int s = mbt_tree_add_geometry(t, body, role, d);
  if (s != status || !strstr(mbt_tree_last_error(t), frag))
    print_error("status %d (expected %d), error \"%s\" (expected \"%s\")\n", s, status, mbt_tree_last_error(t), frag);
  assert_int_equal(s, status);
  assert_non_null(strstr(mbt_tree_last_error(t), frag));
  assert_int_equal(mbt_tree_num_geometries(t, MBT_ROLE_VISUAL), nv);
  assert_int_equal(mbt_tree_num_geometries(t, MBT_ROLE_COLLISION), nc);
}

static void test_builder_and_queries(void** state) {
  (void)state;
  mbt_tree* t = two_bodies();
  mbt_geometry_desc d = mbt_geometry_desc_default();
  d.shape = mbt_shape_box(0.1, 0.2, 0.3);
  d.X_BG = tu_rand_transform(1);
  d.has_rgba = true;
  d.rgba[0] = 1, d.rgba[1] = 0.5, d.rgba[2] = 0, d.rgba[3] = 0.25;
  d.material = "orange";
  assert_int_equal(mbt_tree_add_geometry(t, 2, MBT_ROLE_VISUAL, &d), 0);
  mbt_geometry_desc c = mbt_geometry_desc_default();
  c.shape = mbt_shape_capsule(0.05, 0.4);
  c.name = "shin";
  assert_int_equal(mbt_tree_add_geometry(t, 2, MBT_ROLE_COLLISION, &c), 0);
  c.shape = mbt_shape_mesh(2, 2, 2);
  c.name = NULL;
  c.mesh_file = "package://p/m.stl";
  c.mesh_path = "/some/where/m.stl";
  assert_int_equal(mbt_tree_add_geometry(t, 1, MBT_ROLE_COLLISION, &c), 1);
  c.shape = mbt_shape_half_space();
  assert_int_equal(mbt_tree_add_geometry(t, 0, MBT_ROLE_COLLISION, &c), 2);
  /* Counts, per body, by index. */
  assert_int_equal(mbt_tree_num_geometries(t, MBT_ROLE_VISUAL), 1);
  assert_int_equal(mbt_tree_num_geometries(t, MBT_ROLE_COLLISION), 3);
  assert_int_equal(mbt_tree_body_num_geometries(t, 2, MBT_ROLE_COLLISION), 1);
  assert_int_equal(mbt_tree_body_num_geometries(t, 1, MBT_ROLE_VISUAL), 0);
  assert_int_equal(mbt_tree_body_geometry(t, 1, MBT_ROLE_COLLISION, 0), 1);
  assert_int_equal(mbt_tree_body_geometry(t, 1, MBT_ROLE_COLLISION, 1), MBT_ERR_NOT_FOUND);
  assert_int_equal(mbt_tree_body_geometry(t, 2, MBT_ROLE_VISUAL, -1), MBT_ERR_NOT_FOUND);
  assert_int_equal(mbt_tree_geometry_by_name(t, 2, MBT_ROLE_COLLISION, "shin"), 0);
  assert_int_equal(mbt_tree_geometry_by_name(t, 1, MBT_ROLE_COLLISION, "shin"), MBT_ERR_NOT_FOUND);
  assert_null(mbt_tree_geometry(t, MBT_ROLE_VISUAL, 1));
  assert_null(mbt_tree_geometry(t, (mbt_geometry_role)7, 0));
  /* Stored as given; automatic names "<body>_<role>_<k>"; strings copied. */
  const mbt_geometry* g = mbt_tree_geometry(t, MBT_ROLE_VISUAL, 0);
  assert_string_equal(g->name, "b_visual_0");
  assert_int_equal(g->body, 2);
  assert_int_equal(g->shape.type, MBT_SHAPE_BOX);
  /* Field by field: mbt_shape has padding after its type, which no copy must preserve. */
  assert_true(g->shape.radius == d.shape.radius && g->shape.length == d.shape.length);
  assert_memory_equal(&g->shape.size, &d.shape.size, sizeof d.shape.size);
  assert_memory_equal(&g->shape.scale, &d.shape.scale, sizeof d.shape.scale);
  assert_memory_equal(&g->X_BG, &d.X_BG, sizeof d.X_BG);
  assert_true(g->has_rgba && g->rgba[1] == 0.5 && g->rgba[3] == 0.25);
  assert_string_equal(g->material, "orange");
  assert_string_equal(g->mesh_file, "");
  g = mbt_tree_geometry(t, MBT_ROLE_COLLISION, 1);
  assert_string_equal(g->name, "a_collision_0");
  assert_string_equal(g->mesh_file, "package://p/m.stl");
  assert_string_equal(g->mesh_path, "/some/where/m.stl");
  assert_true(g->shape.scale.v[0] == 2 && !g->has_rgba && g->rgba[0] == 0.9);
  assert_string_equal(mbt_tree_geometry(t, MBT_ROLE_COLLISION, 0)->name, "shin");
  assert_int_equal(mbt_tree_geometry(t, MBT_ROLE_COLLISION, 2)->shape.type, MBT_SHAPE_HALF_SPACE);
  /* Geometry does not change the dynamics: finalize and masses as without it. */
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  assert_int_equal(mbt_tree_num_positions(t), 2);
  /* After finalize: refused, nothing changed. */
  d.name = "late";
  expect_add_error(t, 1, MBT_ROLE_VISUAL, &d, MBT_ERR_FINALIZED, "already finalized");
  mbt_tree_destroy(t);
}

static void test_builder_errors(void** state) {
  (void)state;
  mbt_tree* t = two_bodies();
  mbt_geometry_desc d = mbt_geometry_desc_default();
  d.name = "g";
  d.shape = mbt_shape_sphere(0.1);
  assert_int_equal(mbt_tree_add_geometry(t, 1, MBT_ROLE_VISUAL, &d), 0);
  expect_add_error(t, 1, MBT_ROLE_VISUAL, &d, MBT_ERR_DUPLICATE, "body 'a': visual geometry 'g': the name is already");
  assert_int_equal(mbt_tree_add_geometry(t, 2, MBT_ROLE_VISUAL, &d), 1); /* same name, other body */
  assert_int_equal(mbt_tree_add_geometry(t, 1, MBT_ROLE_COLLISION, &d), 0); /* other role */
  d.name = "h";
  expect_add_error(t, 9, MBT_ROLE_VISUAL, &d, MBT_ERR_NOT_FOUND, "body 9 does not exist");
  expect_add_error(t, -1, MBT_ROLE_VISUAL, &d, MBT_ERR_NOT_FOUND, "body -1");
  expect_add_error(t, 1, (mbt_geometry_role)5, &d, MBT_ERR_INVALID_ARGUMENT, "role 5");
  expect_add_error(t, 1, MBT_ROLE_VISUAL, NULL, MBT_ERR_INVALID_ARGUMENT, "no description");
  const struct {
    mbt_shape shape;
    const char* frag;
  } bad[] = {{mbt_shape_sphere(0), "sphere radius 0 is not positive"},
             {mbt_shape_sphere(NAN), "sphere radius nan"},
             {mbt_shape_box(1, -1, 1), "box size (1, -1, 1) is not positive"},
             {mbt_shape_cylinder(0.1, 0), "cylinder radius 0.1, length 0"},
             {mbt_shape_capsule(0, 1), "capsule radius 0, length 1"},
             {mbt_shape_capsule(1, -1), "the length >= 0"},
             {mbt_shape_mesh(1, 0, 1), "mesh scale (1, 0, 1)"},
             {mbt_shape_mesh(1, INFINITY, 1), "mesh scale (1, inf, 1)"}};
  d.mesh_file = "m.stl";
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    d.shape = bad[i].shape;
    expect_add_error(t, 1, MBT_ROLE_VISUAL, &d, MBT_ERR_INVALID_ARGUMENT, bad[i].frag);
  }
  d.shape = mbt_shape_capsule(1, 0); /* a sphere-like capsule is fine */
  assert_int_equal(mbt_tree_add_geometry(t, 1, MBT_ROLE_COLLISION, &d), 1);
  d.name = "i";
  d.shape.type = (mbt_shape_type)42;
  expect_add_error(t, 1, MBT_ROLE_VISUAL, &d, MBT_ERR_INVALID_ARGUMENT, "unknown shape type 42");
  d.shape = mbt_shape_mesh(1, 1, 1);
  d.mesh_file = "";
  expect_add_error(t, 1, MBT_ROLE_VISUAL, &d, MBT_ERR_INVALID_ARGUMENT, "a mesh needs a file name");
  d.shape = mbt_shape_sphere(1);
  d.X_BG.R.m[0][0] = 2;
  expect_add_error(t, 1, MBT_ROLE_VISUAL, &d, MBT_ERR_INVALID_ARGUMENT, "X_BG is not a rotation matrix");
  d.X_BG = mbt_transform_identity();
  d.X_BG.p.v[2] = NAN;
  expect_add_error(t, 1, MBT_ROLE_VISUAL, &d, MBT_ERR_INVALID_ARGUMENT, "X_BG has a non-finite position");
  d.X_BG = mbt_transform_identity();
  d.has_rgba = true;
  d.rgba[2] = 1.5;
  expect_add_error(t, 1, MBT_ROLE_VISUAL, &d, MBT_ERR_INVALID_ARGUMENT, "rgba (0.9, 0.9, 1.5, 1) is not within");
  d.rgba[2] = 1;
  expect_add_error(t, 1, MBT_ROLE_COLLISION, &d, MBT_ERR_INVALID_ARGUMENT, "a collision geometry has no colour");
  d.has_rgba = false;
  d.material = "steel";
  expect_add_error(t, 1, MBT_ROLE_COLLISION, &d, MBT_ERR_INVALID_ARGUMENT, "a collision geometry has no colour");
  assert_int_equal(mbt_tree_add_geometry(NULL, 1, MBT_ROLE_VISUAL, &d), MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_tree_num_geometries(NULL, MBT_ROLE_VISUAL), 0);
  mbt_tree_destroy(t);
}

static void test_names(void** state) {
  (void)state;
  assert_string_equal(mbt_shape_type_name(MBT_SHAPE_CAPSULE), "capsule");
  assert_string_equal(mbt_shape_type_name(MBT_SHAPE_HALF_SPACE), "half_space");
  assert_string_equal(mbt_shape_type_name((mbt_shape_type)-1), "unknown");
  assert_string_equal(mbt_geometry_role_name(MBT_ROLE_COLLISION), "collision");
  assert_string_equal(mbt_geometry_role_name((mbt_geometry_role)3), "unknown");
}

/* ---- the shipped models ----------------------------------------------------------------------- */
static const mbt_geometry* body_geometry(const mbt_tree* t, const char* body, mbt_geometry_role role, int k) {
  const int b = mbt_tree_body_by_name(t, body);
  assert_true(b >= 0);
  const int i = mbt_tree_body_geometry(t, b, role, k);
  assert_true(i >= 0);
  return mbt_tree_geometry(t, role, i);
}

/* The resolved path is the shipped copy under models/ and exists. */
static void expect_shipped_mesh(const mbt_geometry* g, const char* rest) {
  char want[512];
  snprintf(want, sizeof want, "package://example-robot-data/robots/%s", rest);
  assert_string_equal(g->mesh_file, want);
  snprintf(want, sizeof want, MODELS "example-robot-data/robots/%s", rest);
  assert_string_equal(g->mesh_path, want);
  FILE* f = fopen(g->mesh_path, "rb");
  assert_non_null(f);
  fclose(f);
}

static void test_shipped_counts(void** state) {
  (void)state;
  const struct {
    const char* label;
    int visual, collision, meshes;
  } cases[] = {{"double_pendulum", 3, 3, 6}, {"ur5", 7, 8, 14}, {"panda", 11, 17, 20}, {"solo12", 17, 17, 34}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    mbt_urdf_result r;
    tu_load_urdf(cases[i].label, 0, &r);
    assert_int_equal(mbt_tree_num_geometries(r.tree, MBT_ROLE_VISUAL), cases[i].visual);
    assert_int_equal(mbt_tree_num_geometries(r.tree, MBT_ROLE_COLLISION), cases[i].collision);
    int meshes = 0;
    for (int role = 0; role < MBT_ROLE_NUM; ++role)
      for (int k = 0; k < mbt_tree_num_geometries(r.tree, role); ++k) {
        const mbt_geometry* g = mbt_tree_geometry(r.tree, role, k);
        if (g->shape.type != MBT_SHAPE_MESH) continue;
        ++meshes;
        assert_true(g->mesh_path[0] != '\0'); /* every shipped mesh resolves */
      }
    assert_int_equal(meshes, cases[i].meshes);
    for (int w = 0; w < r.num_warnings; ++w) assert_null(strstr(r.warnings[w], "<mesh>"));
    mbt_urdf_result_free(&r);
  }
}

static void test_shipped_details(void** state) {
  (void)state;
  mbt_urdf_result r;
  /* ur5: LightGrey meshes; ee_link's collision box at xyz="-0.01 0 0", 1 cm. */
  tu_load_urdf("ur5", 0, &r);
  const mbt_geometry* g = body_geometry(r.tree, "forearm_link", MBT_ROLE_VISUAL, 0);
  expect_shipped_mesh(g, "ur_description/meshes/ur5/visual/forearm.dae");
  assert_string_equal(g->material, "LightGrey");
  assert_true(g->has_rgba && g->rgba[0] == 0.7 && g->rgba[1] == 0.7 && g->rgba[2] == 0.7 && g->rgba[3] == 1);
  expect_shipped_mesh(body_geometry(r.tree, "forearm_link", MBT_ROLE_COLLISION, 0),
                      "ur_description/meshes/ur5/collision/forearm.stl");
  g = body_geometry(r.tree, "ee_link", MBT_ROLE_COLLISION, 0);
  assert_int_equal(g->shape.type, MBT_SHAPE_BOX);
  assert_true(g->shape.size.v[0] == 0.01 && g->shape.size.v[1] == 0.01 && g->shape.size.v[2] == 0.01);
  assert_true(g->X_BG.p.v[0] == -0.01 && g->X_BG.p.v[1] == 0 && g->X_BG.p.v[2] == 0);
  assert_int_equal(mbt_tree_body_num_geometries(r.tree, mbt_tree_body_by_name(r.tree, "ee_link"), MBT_ROLE_VISUAL), 0);
  mbt_urdf_result_free(&r);
  /* panda: the right finger's visual turned by rpy="0 0 π"; its third collision box at
   * rpy="-0.5235987755982988 0 0" xyz="0 -15.9e-3 28.35e-3". No material: the mesh's own. Both
   * fingers sit on prismatic joints; panda_hand is welded to panda_link8 and keeps its own
   * geometry. */
  tu_load_urdf("panda", 0, &r);
  g = body_geometry(r.tree, "panda_rightfinger", MBT_ROLE_VISUAL, 0);
  expect_shipped_mesh(g, "panda_description/meshes/visual/finger.dae");
  assert_false(g->has_rgba);
  assert_string_equal(g->material, "");
  const mbt_mat3 Rz = mbt_rotation_z(3.141592653589793);
  tu_assert_mat3_near(&g->X_BG.R, &Rz, 0);
  g = body_geometry(r.tree, "panda_rightfinger", MBT_ROLE_COLLISION, 2);
  const mbt_mat3 Rx = mbt_rotation_x(-0.5235987755982988);
  tu_assert_mat3_near(&g->X_BG.R, &Rx, 1e-15);
  tu_assert_vec3_near(g->X_BG.p, mbt_vec3_make(0, -15.9e-3, 28.35e-3), 0);
  tu_assert_vec3_near(g->shape.size, mbt_vec3_make(17.5e-3, 7e-3, 23.5e-3), 0);
  expect_shipped_mesh(body_geometry(r.tree, "panda_hand", MBT_ROLE_VISUAL, 0), "panda_description/meshes/visual/hand.dae");
  assert_int_equal(mbt_tree_body_num_geometries(r.tree, mbt_tree_body_by_name(r.tree, "panda_link8"), MBT_ROLE_VISUAL), 0);
  assert_int_equal(mbt_tree_body_num_geometries(r.tree, mbt_tree_body_by_name(r.tree, "panda_hand"), MBT_ROLE_COLLISION), 1);
  mbt_urdf_result_free(&r);
  /* solo12: grey visuals, the hip visual at xyz="0.0195 0 0"; a collision's <material> is
   * warned about and not kept. */
  tu_load_urdf("solo12", 0, &r);
  g = body_geometry(r.tree, "FL_SHOULDER", MBT_ROLE_VISUAL, 0);
  expect_shipped_mesh(g, "solo_description/meshes/stl/solo12/solo12_hip_fe_fl.stl");
  assert_string_equal(g->material, "grey");
  assert_true(g->has_rgba && g->rgba[0] == 0.8);
  assert_true(g->X_BG.p.v[0] == 0.0195);
  g = body_geometry(r.tree, "FL_SHOULDER", MBT_ROLE_COLLISION, 0);
  assert_false(g->has_rgba);
  int n = 0;
  for (int w = 0; w < r.num_warnings; ++w) n += strstr(r.warnings[w], "<collision><material> ignored") != NULL;
  assert_int_equal(n, 17);
  mbt_urdf_result_free(&r);
  /* double_pendulum: inline colours in an unnamed material. */
  tu_load_urdf("double_pendulum", 0, &r);
  g = body_geometry(r.tree, "base_link", MBT_ROLE_VISUAL, 0);
  assert_true(g->has_rgba && g->rgba[0] == 0.96078 && g->rgba[1] == 1 && g->rgba[2] == 0 && g->rgba[3] == 1);
  expect_shipped_mesh(g, "double_pendulum_description/meshes/base_link.stl");
  mbt_urdf_result_free(&r);
}

/* ---- hand-written URDFs ---------------------------------------------------------------------- */
static int load(const char* xml, const mbt_urdf_options* o, mbt_urdf_result* r) {
  return mbt_urdf_load_string_with_options(xml, strlen(xml), SRC, o, r);
}

static void load_ok(const char* xml, const mbt_urdf_options* o, mbt_urdf_result* r) {
  const int s = load(xml, o, r);
  if (s) print_error("%s\n", r->error);
  assert_int_equal(s, MBT_OK);
}

static void test_urdf_shapes_and_materials(void** state) {
  (void)state;
  const char* xml =
      "<robot name=\"r\">\n"
      "<link name=\"a\">" INERTIAL "\n"
      "<visual name=\"v\"><origin xyz=\"1 2 3\" rpy=\"0 0 1.5\"/><geometry><cylinder radius=\"0.5\" length=\"2\"/>"
      "</geometry><material name=\"blue\"/></visual>\n"
      "<visual><geometry><sphere radius=\"0.25\"/></geometry><material name=\"red\"><color rgba=\"1 0 0 0.5\"/>"
      "</material></visual>\n"
      "<collision><geometry><capsule radius=\"0.1\" length=\"0.3\"/></geometry></collision>\n"
      "<collision><geometry><mesh filename=\"meshes/a.stl\" scale=\"0.001 0.001 0.002\"/></geometry></collision>\n"
      "</link>\n"
      "<material name=\"blue\"><color rgba=\"0 0 1 1\"/></material>\n"
      "</robot>";
  mbt_urdf_result r;
  load_ok(xml, NULL, &r);
  const mbt_tree* t = r.tree;
  assert_int_equal(mbt_tree_num_geometries(t, MBT_ROLE_VISUAL), 2);
  const mbt_geometry* g = mbt_tree_geometry(t, MBT_ROLE_VISUAL, 0);
  assert_string_equal(g->name, "v");
  assert_int_equal(g->shape.type, MBT_SHAPE_CYLINDER);
  assert_true(g->shape.radius == 0.5 && g->shape.length == 2);
  tu_assert_vec3_near(g->X_BG.p, mbt_vec3_make(1, 2, 3), 0);
  const mbt_mat3 Rz = mbt_rotation_z(1.5);
  tu_assert_mat3_near(&g->X_BG.R, &Rz, 1e-15);
  /* A robot-level material defined after the link that names it. */
  assert_string_equal(g->material, "blue");
  assert_true(g->has_rgba && g->rgba[0] == 0 && g->rgba[2] == 1 && g->rgba[3] == 1);
  g = mbt_tree_geometry(t, MBT_ROLE_VISUAL, 1);
  assert_string_equal(g->name, "a_visual_1");
  assert_true(g->shape.type == MBT_SHAPE_SPHERE && g->shape.radius == 0.25);
  assert_true(g->rgba[0] == 1 && g->rgba[3] == 0.5);
  g = mbt_tree_geometry(t, MBT_ROLE_COLLISION, 0);
  assert_true(g->shape.type == MBT_SHAPE_CAPSULE && g->shape.radius == 0.1 && g->shape.length == 0.3);
  g = mbt_tree_geometry(t, MBT_ROLE_COLLISION, 1);
  assert_string_equal(g->mesh_file, "meshes/a.stl");
  tu_assert_vec3_near(g->shape.scale, mbt_vec3_make(0.001, 0.001, 0.002), 0);
  /* No such file: unresolved, with a warning that names it. */
  assert_string_equal(g->mesh_path, "");
  assert_int_equal(r.num_warnings, 1);
  if (!strstr(r.warnings[0], SRC ":6")) print_error("%s\n", r.warnings[0]);
  assert_non_null(strstr(r.warnings[0], SRC ":6: <link 'a'>: <mesh> 'meshes/a.stl': no readable file"));
  mbt_urdf_result_free(&r);
}

/* Writes an empty file at `path`. */
static void touch(const char* path) {
  FILE* f = fopen(path, "wb");
  assert_non_null(f);
  fclose(f);
}

static void test_urdf_mesh_paths(void** state) {
  (void)state;
  /* Files under build/geometry_paths: pkgdir/m.stl (a NAME=DIR package), model/mine/x.stl (the
   * package beside the model), model/rel.stl (relative). */
  const char* root = MBT_BINARY_DIR "/geometry_paths";
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "mkdir -p %s/pkgdir %s/model/mine", root, root);
  assert_int_equal(system(cmd), 0);
  char path[1024];
  snprintf(path, sizeof path, "%s/pkgdir/m.stl", root);
  touch(path);
  snprintf(path, sizeof path, "%s/model/mine/x.stl", root);
  touch(path);
  snprintf(path, sizeof path, "%s/model/rel.stl", root);
  touch(path);
  const char* xml =
      "<robot name=\"r\"><link name=\"a\">" INERTIAL
      "<visual><geometry><mesh filename=\"package://other/m.stl\"/></geometry></visual>"
      "<visual><geometry><mesh filename=\"package://mine/x.stl\"/></geometry></visual>"
      "<visual><geometry><mesh filename=\"rel.stl\"/></geometry></visual>"
      "<visual><geometry><mesh filename=\"package://model/rel.stl\"/></geometry></visual>"
      "</link></robot>";
  char dir[1024], pkg[1100];
  snprintf(dir, sizeof dir, "%s/model", root);
  snprintf(pkg, sizeof pkg, "other=%s/pkgdir", root);
  const char* packages[] = {pkg};
  mbt_urdf_options o = {0, packages, 1, dir};
  mbt_urdf_result r;
  load_ok(xml, &o, &r);
  assert_int_equal(r.num_warnings, 0);
  char want[1200];
  snprintf(want, sizeof want, "%s/pkgdir/m.stl", root);
  assert_string_equal(mbt_tree_geometry(r.tree, MBT_ROLE_VISUAL, 0)->mesh_path, want);
  snprintf(want, sizeof want, "%s/model/mine/x.stl", root);
  assert_string_equal(mbt_tree_geometry(r.tree, MBT_ROLE_VISUAL, 1)->mesh_path, want);
  snprintf(want, sizeof want, "%s/model/rel.stl", root);
  assert_string_equal(mbt_tree_geometry(r.tree, MBT_ROLE_VISUAL, 2)->mesh_path, want);
  /* package://model/...: the model's own folder is named "model". */
  assert_string_equal(mbt_tree_geometry(r.tree, MBT_ROLE_VISUAL, 3)->mesh_path, want);
  mbt_urdf_result_free(&r);
  /* Without the package path: "other" is not found, a warning says where it looked. */
  o.num_package_paths = 0;
  load_ok(xml, &o, &r);
  assert_string_equal(mbt_tree_geometry(r.tree, MBT_ROLE_VISUAL, 0)->mesh_path, "");
  assert_string_equal(mbt_tree_geometry(r.tree, MBT_ROLE_VISUAL, 0)->mesh_file, "package://other/m.stl");
  assert_int_equal(r.num_warnings, 1);
  assert_non_null(strstr(r.warnings[0], "'package://other/m.stl': no readable file in a package path 'other=DIR'"));
  mbt_urdf_result_free(&r);
  /* The same from a file: relative paths start at the file's folder. */
  snprintf(path, sizeof path, "%s/model/r.urdf", root);
  FILE* f = fopen(path, "wb");
  assert_non_null(f);
  fputs(xml, f);
  fclose(f);
  o.num_package_paths = 1;
  o.base_dir = NULL;
  assert_int_equal(mbt_urdf_load_file_with_options(path, &o, &r), MBT_OK);
  assert_string_equal(mbt_tree_geometry(r.tree, MBT_ROLE_VISUAL, 2)->mesh_path, want);
  assert_int_equal(r.num_warnings, 0);
  mbt_urdf_result_free(&r);
  /* Bad package paths. */
  const char* bad[] = {"noequals", "=dir", "name="};
  for (int k = 0; k < 3; ++k) {
    o.package_paths = &bad[k];
    assert_int_equal(load(xml, &o, &r), MBT_ERR_INVALID_ARGUMENT);
    assert_null(r.tree);
    assert_non_null(strstr(r.error, "expected NAME=DIR"));
    assert_non_null(strstr(r.error, bad[k]));
    mbt_urdf_result_free(&r);
  }
}

/* Loading `body` inside a link "a" fails with `status` at `line` with message fragment `frag`. */
static void expect_geometry_error(const char* body, int status, int line, const char* frag) {
  char xml[2048];
  snprintf(xml, sizeof xml, "<robot name=\"r\">\n<material name=\"m\"><color rgba=\"1 1 1 1\"/></material>\n"
                            "<link name=\"a\">\n%s</link>\n</robot>", body);
  mbt_urdf_result r;
  const int s = load(xml, NULL, &r);
  char prefix[64];
  snprintf(prefix, sizeof prefix, SRC ":%d: ", line);
  if (s != status || strncmp(r.error, prefix, strlen(prefix)) != 0 || !strstr(r.error, frag))
    print_error("status %d (expected %d), error \"%s\" (expected \"%s...%s\")\n", s, status, r.error, prefix, frag);
  assert_int_equal(s, status);
  assert_null(r.tree);
  assert_null(r.warnings);
  assert_true(strncmp(r.error, prefix, strlen(prefix)) == 0);
  assert_non_null(strstr(r.error, frag));
  mbt_urdf_result_free(&r);
}

static void test_urdf_errors(void** state) {
  (void)state;
  expect_geometry_error("<visual/>\n", MBT_ERR_PARSE, 4, "<link 'a'>: <visual> is missing the required element <geometry>");
  expect_geometry_error("<collision><geometry/></collision>\n", MBT_ERR_PARSE, 4, "<collision><geometry> has no shape");
  expect_geometry_error("<visual><geometry>\n<cone radius=\"1\"/></geometry></visual>\n", MBT_ERR_PARSE, 5,
                        "unknown shape <cone>");
  expect_geometry_error("<visual><geometry><box size=\"1 1 1\"/>\n<sphere radius=\"1\"/></geometry></visual>", MBT_ERR_PARSE,
                        5, "a second shape <sphere> (first at line 4)");
  expect_geometry_error("<visual><geometry>\n<box size=\"1 1\"/></geometry></visual>", MBT_ERR_PARSE, 5,
                        "<link 'a'>: <box> attribute 'size' has 2 numbers, expected 3");
  expect_geometry_error("<visual><geometry>\n<sphere/></geometry></visual>", MBT_ERR_PARSE, 5,
                        "<sphere> is missing the required attribute 'radius'");
  expect_geometry_error("<visual><geometry>\n<cylinder radius=\"1\" length=\"x\"/></geometry></visual>", MBT_ERR_PARSE, 5,
                        "<cylinder> attribute 'length': 'x' is not a number");
  expect_geometry_error("<visual><geometry>\n<mesh/></geometry></visual>", MBT_ERR_PARSE, 5,
                        "<mesh> is missing the required attribute 'filename'");
  expect_geometry_error("<visual><geometry>\n<mesh filename=\"\"/></geometry></visual>", MBT_ERR_PARSE, 5,
                        "<mesh> attribute 'filename' is empty");
  expect_geometry_error("<visual><geometry>\n<mesh filename=\"a.stl\" scale=\"1\"/></geometry></visual>", MBT_ERR_PARSE, 5,
                        "<mesh> attribute 'scale' has 1 number, expected 3");
  expect_geometry_error("<visual><origin xyz=\"0 0\"/>\n<geometry><sphere radius=\"1\"/></geometry></visual>", MBT_ERR_PARSE,
                        4, "<origin> attribute 'xyz' has 2 numbers");
  expect_geometry_error("<visual><geometry><sphere radius=\"1\"/></geometry>\n<material name=\"nope\"/></visual>",
                        MBT_ERR_NOT_FOUND, 5, "<material 'nope'> has no <color> and no robot-level <material>");
  expect_geometry_error("<visual><geometry><sphere radius=\"1\"/></geometry><material>\n<color rgba=\"1 2 0 1\"/>"
                        "</material></visual>", MBT_ERR_INVALID_ARGUMENT, 5, "<color> rgba (1, 2, 0, 1) is not within [0, 1]");
  expect_geometry_error("<visual><geometry><sphere radius=\"1\"/></geometry>\n<origin/><origin/></visual>", MBT_ERR_PARSE, 5,
                        "<origin> appears twice");
  /* Values the tree refuses, reported at the <visual>/<collision> line with the tree's message. */
  expect_geometry_error("\n<visual><geometry><sphere radius=\"-1\"/></geometry></visual>", MBT_ERR_INVALID_ARGUMENT, 5,
                        "<link 'a'>: body 'a': visual geometry 'a_visual_0': sphere radius -1 is not positive");
  expect_geometry_error("\n<collision name=\"c\"><geometry><box size=\"1 0 1\"/></geometry></collision>",
                        MBT_ERR_INVALID_ARGUMENT, 5, "collision geometry 'c': box size (1, 0, 1) is not positive");
  expect_geometry_error("<visual name=\"v\"><geometry><sphere radius=\"1\"/></geometry></visual>\n"
                        "<visual name=\"v\"><geometry><sphere radius=\"1\"/></geometry></visual>",
                        MBT_ERR_DUPLICATE, 5, "visual geometry 'v': the name is already used");
  /* Robot-level materials: a name, unique. */
  mbt_urdf_result r;
  const char* dup = "<robot name=\"r\"><material name=\"m\"/>\n<material name=\"m\"/><link name=\"a\"/></robot>";
  assert_int_equal(load(dup, NULL, &r), MBT_ERR_DUPLICATE);
  assert_non_null(strstr(r.error, SRC ":2: <material 'm'>: a material with this name is already declared at line 1"));
  mbt_urdf_result_free(&r);
  const char* noname = "<robot name=\"r\">\n<material/><link name=\"a\"/></robot>";
  assert_int_equal(load(noname, NULL, &r), MBT_ERR_PARSE);
  assert_non_null(strstr(r.error, SRC ":2: <material>: <material> is missing the required attribute 'name'"));
  mbt_urdf_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_builder_and_queries), cmocka_unit_test(test_builder_errors),
      cmocka_unit_test(test_names),               cmocka_unit_test(test_shipped_counts),
      cmocka_unit_test(test_shipped_details),     cmocka_unit_test(test_urdf_shapes_and_materials),
      cmocka_unit_test(test_urdf_mesh_paths),     cmocka_unit_test(test_urdf_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
