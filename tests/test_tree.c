/* Tests of mbt/tree.h: building (bodies, frames, mobilizers), every error case (status,
 * message, tree unchanged), and the topology computed by finalize (seed MultibodyTree:
 * counts, get_tree_height; DESIGN: depth-first body-node order, levels, q/v slices). */
#include "support/test_util.h"

#include "tree/context_internal.h"

#define assert_error_contains(tree, text) assert_contains(mbt_tree_last_error(tree), text)

/* Everything a failed call must leave unchanged. */
typedef struct {
  int bodies, frames, mobilizers, joints, forces, nq, nv;
  bool finalized;
} counts;

static counts snapshot(const mbt_tree* t) {
  counts c = {mbt_tree_num_bodies(t), mbt_tree_num_frames(t), mbt_tree_num_mobilizers(t), mbt_tree_num_joints(t),
              mbt_tree_num_force_elements(t), mbt_tree_num_positions(t), mbt_tree_num_velocities(t),
              mbt_tree_is_finalized(t)};
  return c;
}

static void assert_unchanged(const mbt_tree* t, counts before) {
  counts now = snapshot(t);
  assert_int_equal(now.bodies, before.bodies);
  assert_int_equal(now.frames, before.frames);
  assert_int_equal(now.mobilizers, before.mobilizers);
  assert_int_equal(now.joints, before.joints);
  assert_int_equal(now.forces, before.forces);
  assert_int_equal(now.nq, before.nq);
  assert_int_equal(now.nv, before.nv);
  assert_int_equal(now.finalized, before.finalized);
}

static mbt_spatial_inertia unit_sphere(void) {
  /* 1 kg solid sphere of radius 0.1 m centered 0.5 m below Bo. */
  mbt_rotational_inertia I = {0.004, 0.004, 0.004, 0, 0, 0};
  return mbt_spatial_inertia_from_com(1.0, mbt_vec3_make(0, 0, -0.5), &I);
}

static mbt_vec3 ez(void) { return mbt_vec3_make(0, 0, 1); }

/* ---- creation ----------------------------------------------------------------------------- */
static void test_new_tree_holds_world_and_gravity(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  assert_non_null(t);
  assert_int_equal(mbt_tree_num_bodies(t), 1);
  assert_int_equal(mbt_tree_num_frames(t), 1);
  assert_int_equal(mbt_tree_num_mobilizers(t), 0);
  assert_int_equal(mbt_tree_num_joints(t), 0);
  assert_int_equal(mbt_tree_num_force_elements(t), 1);
  assert_int_equal(mbt_force_element_type_of(t, 0), MBT_FORCE_UNIFORM_GRAVITY);
  assert_string_equal(mbt_tree_body_name(t, 0), "world");
  assert_string_equal(mbt_tree_frame_name(t, 0), "world");
  assert_int_equal(mbt_tree_world_body(t), 0);
  assert_int_equal(mbt_tree_world_frame(t), 0);
  assert_int_equal(mbt_tree_body_frame(t, 0), 0);
  assert_false(mbt_tree_is_finalized(t));
  assert_string_equal(mbt_tree_last_error(t), "");
  /* The world alone: height 1, no state. */
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  assert_int_equal(mbt_tree_height(t), 1);
  assert_int_equal(mbt_tree_num_states(t), 0);
  mbt_context* ctx = mbt_context_create(t);
  assert_non_null(ctx);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(t);
}

static void test_bodies_and_frames(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  int a = mbt_tree_add_rigid_body(t, "a", &M);
  int b = mbt_tree_add_rigid_body(t, "b", &M);
  assert_int_equal(a, 1);
  assert_int_equal(b, 2);
  assert_int_equal(mbt_tree_body_by_name(t, "b"), b);
  assert_int_equal(mbt_tree_body_by_name(t, "nope"), MBT_ERR_NOT_FOUND);
  assert_error_contains(t, "nope");
  /* Body frames share the body's name and count among the frames. */
  assert_int_equal(mbt_tree_num_frames(t), 3);
  assert_int_equal(mbt_tree_frame_by_name(t, "a"), mbt_tree_body_frame(t, a));
  assert_int_equal(mbt_tree_frame_body(t, mbt_tree_body_frame(t, b)), b);
  assert_near(mbt_tree_body_spatial_inertia(t, a)->mass, 1.0, 0);
  assert_near(mbt_tree_total_mass(t), 2.0, 1e-15);

  /* A frame on a frame: X_BG = X_BF·X_FG. */
  mbt_transform X_AF = {mbt_rotation_from_rpy(mbt_vec3_make(0, 0, TU_PI / 2)), {{1, 0, 0}}};
  mbt_transform X_FG = {mbt_mat3_identity(), {{2, 0, 0}}};
  int F = mbt_tree_add_fixed_offset_frame(t, "F", mbt_tree_body_frame(t, a), &X_AF);
  int G = mbt_tree_add_fixed_offset_frame(t, "G", F, &X_FG);
  assert_true(F >= 3 && G == F + 1);
  assert_int_equal(mbt_tree_frame_body(t, G), a);
  mbt_transform X_BG;
  assert_int_equal(mbt_tree_frame_pose_in_body(t, G, &X_BG), MBT_OK);
  /* F is rotated 90° about z, so 2 m along F's x is 2 m along a's y. */
  assert_near(X_BG.p.v[0], 1, 1e-15);
  assert_near(X_BG.p.v[1], 2, 1e-15);
  assert_near(X_BG.p.v[2], 0, 1e-15);
  assert_near(X_BG.R.m[1][0], 1, 1e-15);
  assert_int_equal(mbt_tree_num_frames(t), 5);
  mbt_tree_destroy(t);
}

/* ---- error cases: status, message naming the element, tree unchanged ----------------------- */
static void test_error_add_after_finalize(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  int a = mbt_tree_add_rigid_body(t, "a", &M);
  assert_int_equal(mbt_tree_add_revolute_joint(t, "pin", 0, NULL, a, NULL, ez(), 0), 0);
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  counts before = snapshot(t);
  mbt_transform X = mbt_transform_identity();

  assert_int_equal(mbt_tree_add_rigid_body(t, "late", &M), MBT_ERR_FINALIZED);
  assert_error_contains(t, "body 'late'");
  assert_error_contains(t, "finalized");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_fixed_offset_frame(t, "late_frame", 0, &X), MBT_ERR_FINALIZED);
  assert_error_contains(t, "frame 'late_frame'");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_mobilizer(t, "late_mob", MBT_MOBILIZER_WELD, 0, 1, NULL, 0), MBT_ERR_FINALIZED);
  assert_error_contains(t, "mobilizer 'late_mob'");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_weld_joint(t, "late_joint", 0, NULL, a, NULL), MBT_ERR_FINALIZED);
  assert_error_contains(t, "joint 'late_joint'");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_revolute_spring(t, "late_spring", 0, 0, 1), MBT_ERR_FINALIZED);
  assert_error_contains(t, "late_spring");
  assert_unchanged(t, before);
  mbt_tree_destroy(t);
}

static void test_error_finalize_twice(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  mbt_tree_add_rigid_body(t, "free", &M);
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  counts before = snapshot(t);
  int height = mbt_tree_height(t);
  assert_int_equal(mbt_tree_finalize(t), MBT_ERR_FINALIZED);
  assert_error_contains(t, "already finalized");
  assert_unchanged(t, before);
  assert_int_equal(mbt_tree_height(t), height);
  /* The floating mobilizer was added only once. */
  assert_int_equal(mbt_tree_num_mobilizers(t), 1);
  mbt_tree_destroy(t);
}

static void test_error_mobilizer_to_itself(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  int a = mbt_tree_add_rigid_body(t, "a", &M);
  mbt_transform X = mbt_transform_identity();
  X.p.v[0] = 1;
  int Fa = mbt_tree_add_fixed_offset_frame(t, "a_offset", mbt_tree_body_frame(t, a), &X);
  counts before = snapshot(t);

  assert_int_equal(mbt_tree_add_mobilizer(t, "self", MBT_MOBILIZER_REVOLUTE, Fa, Fa, &(mbt_vec3){{0, 0, 1}}, 0),
                   MBT_ERR_TOPOLOGY);
  assert_error_contains(t, "mobilizer 'self'");
  assert_error_contains(t, "frame 'a_offset' to itself");
  assert_unchanged(t, before);

  /* Two frames of one body. */
  assert_int_equal(mbt_tree_add_mobilizer(t, "same_body", MBT_MOBILIZER_WELD, mbt_tree_body_frame(t, a), Fa, NULL, 0),
                   MBT_ERR_TOPOLOGY);
  assert_error_contains(t, "mobilizer 'same_body'");
  assert_error_contains(t, "body 'a'");
  assert_unchanged(t, before);

  /* A joint with the same parent and child body. */
  assert_int_equal(mbt_tree_add_revolute_joint(t, "loop", a, NULL, a, &X, ez(), 0), MBT_ERR_TOPOLOGY);
  assert_error_contains(t, "joint 'loop'");
  assert_error_contains(t, "body 'a' to itself");
  assert_unchanged(t, before);
  mbt_tree_destroy(t);
}

static void test_error_two_mobilizers_between_same_bodies(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  int a = mbt_tree_add_rigid_body(t, "a", &M);
  int b = mbt_tree_add_rigid_body(t, "b", &M);
  assert_true(mbt_tree_add_revolute_joint(t, "ab", a, NULL, b, NULL, ez(), 0) >= 0);
  counts before = snapshot(t);
  mbt_transform X = mbt_transform_identity();
  X.p.v[1] = 0.3;
  /* Same direction, through other frames. */
  assert_int_equal(mbt_tree_add_prismatic_joint(t, "ab2", a, &X, b, &X, ez(), 0), MBT_ERR_TOPOLOGY);
  assert_error_contains(t, "joint 'ab2'");
  assert_error_contains(t, "'a' and 'b' are already connected by mobilizer 'ab'");
  assert_unchanged(t, before);
  assert_int_equal(mbt_tree_frame_by_name(t, "ab2_parent"), MBT_ERR_NOT_FOUND);
  /* Reverse direction. */
  assert_int_equal(mbt_tree_add_mobilizer(t, "ba", MBT_MOBILIZER_WELD, mbt_tree_body_frame(t, b),
                                          mbt_tree_body_frame(t, a), NULL, 0),
                   MBT_ERR_TOPOLOGY);
  assert_error_contains(t, "mobilizer 'ba'");
  assert_error_contains(t, "already connected");
  assert_unchanged(t, before);
  mbt_tree_destroy(t);
}

static void test_error_second_inboard_mobilizer(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  int a = mbt_tree_add_rigid_body(t, "a", &M);
  int b = mbt_tree_add_rigid_body(t, "b", &M);
  int c = mbt_tree_add_rigid_body(t, "c", &M);
  assert_true(mbt_tree_add_revolute_joint(t, "wa", 0, NULL, a, NULL, ez(), 0) >= 0);
  assert_true(mbt_tree_add_revolute_joint(t, "ab", a, NULL, b, NULL, ez(), 0) >= 0);
  assert_true(mbt_tree_add_revolute_joint(t, "wc", 0, NULL, c, NULL, ez(), 0) >= 0);
  counts before = snapshot(t);
  /* b already has inboard mobilizer ab: a second one from c closes a loop. */
  assert_int_equal(mbt_tree_add_revolute_joint(t, "cb", c, NULL, b, NULL, ez(), 0), MBT_ERR_TOPOLOGY);
  assert_error_contains(t, "joint 'cb'");
  assert_error_contains(t, "body 'b' already has inboard mobilizer 'ab'");
  assert_unchanged(t, before);
  mbt_tree_destroy(t);

  /* A loop among bodies not yet connected to the world: d → e → f → d. */
  t = mbt_tree_create();
  int d = mbt_tree_add_rigid_body(t, "d", &M);
  int e = mbt_tree_add_rigid_body(t, "e", &M);
  int f = mbt_tree_add_rigid_body(t, "f", &M);
  assert_true(mbt_tree_add_revolute_joint(t, "de", d, NULL, e, NULL, ez(), 0) >= 0);
  assert_true(mbt_tree_add_revolute_joint(t, "ef", e, NULL, f, NULL, ez(), 0) >= 0);
  before = snapshot(t);
  assert_int_equal(mbt_tree_add_revolute_joint(t, "fd", f, NULL, d, NULL, ez(), 0), MBT_ERR_TOPOLOGY);
  assert_error_contains(t, "joint 'fd'");
  assert_error_contains(t, "kinematic loop");
  assert_unchanged(t, before);
  /* The tree is still usable: d floats, e and f hang from it. */
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  assert_true(mbt_tree_body_is_floating(t, d));
  assert_int_equal(mbt_tree_body_parent(t, f), e);
  mbt_tree_destroy(t);
}

static void test_error_world_as_child(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  int a = mbt_tree_add_rigid_body(t, "a", &M);
  counts before = snapshot(t);
  assert_int_equal(mbt_tree_add_revolute_joint(t, "upside_down", a, NULL, 0, NULL, ez(), 0), MBT_ERR_TOPOLOGY);
  assert_error_contains(t, "joint 'upside_down'");
  assert_error_contains(t, "world");
  assert_unchanged(t, before);
  mbt_tree_destroy(t);
}

static void test_error_unknown_index(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  int a = mbt_tree_add_rigid_body(t, "a", &M);
  counts before = snapshot(t);
  mbt_transform X = mbt_transform_identity();

  assert_int_equal(mbt_tree_add_revolute_joint(t, "j", 7, NULL, a, NULL, ez(), 0), MBT_ERR_NOT_FOUND);
  assert_error_contains(t, "joint 'j'");
  assert_error_contains(t, "unknown parent body 7");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_revolute_joint(t, "j", 0, NULL, -1, NULL, ez(), 0), MBT_ERR_NOT_FOUND);
  assert_error_contains(t, "unknown child body -1");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_fixed_offset_frame(t, "F", 42, &X), MBT_ERR_NOT_FOUND);
  assert_error_contains(t, "frame 'F'");
  assert_error_contains(t, "unknown parent frame 42");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_mobilizer(t, "m", MBT_MOBILIZER_WELD, 0, 9, NULL, 0), MBT_ERR_NOT_FOUND);
  assert_error_contains(t, "mobilizer 'm'");
  assert_error_contains(t, "unknown outboard frame 9");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_linear_spring_damper(t, "s", 0, mbt_vec3_zero(), 5, mbt_vec3_zero(), 1, 1, 0),
                   MBT_ERR_NOT_FOUND);
  assert_error_contains(t, "spring-damper 's'");
  assert_error_contains(t, "unknown body B 5");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_revolute_spring(t, "rs", 3, 0, 1), MBT_ERR_NOT_FOUND);
  assert_error_contains(t, "unknown joint 3");
  assert_unchanged(t, before);

  /* Queries. */
  assert_null(mbt_tree_body_name(t, 5));
  assert_error_contains(t, "unknown body 5");
  assert_null(mbt_tree_frame_name(t, -3));
  assert_error_contains(t, "unknown frame -3");
  assert_null(mbt_joint_name(t, 0));
  assert_error_contains(t, "unknown joint 0");
  assert_null(mbt_mobilizer_name(t, 0));
  assert_error_contains(t, "unknown mobilizer 0");
  assert_int_equal(mbt_tree_frame_body(t, 99), MBT_ERR_NOT_FOUND);
  mbt_transform X_BF;
  assert_int_equal(mbt_tree_frame_pose_in_body(t, 99, &X_BF), MBT_ERR_NOT_FOUND);
  assert_int_equal(mbt_joint_set_default_positions(t, 4, NULL, 0), MBT_ERR_NOT_FOUND);
  assert_error_contains(t, "unknown joint 4");
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  assert_int_equal(mbt_tree_body_node(t, 2), MBT_ERR_NOT_FOUND);
  assert_error_contains(t, "unknown body 2");
  assert_int_equal(mbt_tree_body_child(t, 0, 1), MBT_ERR_NOT_FOUND);
  assert_error_contains(t, "body 'world': no child 1");
  assert_int_equal(mbt_tree_num_bodies_at_level(t, 2), MBT_ERR_NOT_FOUND);
  assert_int_equal(mbt_tree_node_body(t, 2), MBT_ERR_NOT_FOUND);
  mbt_tree_destroy(t);
}

static void noop_force(const mbt_tree* tree, mbt_context* ctx, void* user_data, mbt_multibody_forces* forces) {
  (void)tree;
  (void)ctx;
  (void)user_data;
  (void)forces;
}

static void test_error_duplicate_names(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  int a = mbt_tree_add_rigid_body(t, "a", &M);
  int b = mbt_tree_add_rigid_body(t, "b", &M);
  int c = mbt_tree_add_rigid_body(t, "c", &M);
  mbt_transform X = mbt_transform_identity();
  assert_true(mbt_tree_add_fixed_offset_frame(t, "tool", mbt_tree_body_frame(t, a), &X) >= 0);
  assert_true(mbt_tree_add_revolute_joint(t, "hinge", 0, NULL, a, &X, ez(), 0) >= 0);
  assert_true(mbt_tree_add_mobilizer(t, "slider", MBT_MOBILIZER_PRISMATIC, mbt_tree_body_frame(t, a),
                                     mbt_tree_body_frame(t, b), &(mbt_vec3){{1, 0, 0}}, 0) >= 0);
  assert_true(mbt_tree_add_user_force(t, "push", noop_force, NULL) >= 0);
  counts before = snapshot(t);

  assert_int_equal(mbt_tree_add_rigid_body(t, "a", &M), MBT_ERR_DUPLICATE);
  assert_error_contains(t, "body 'a'");
  assert_error_contains(t, "a body with this name already exists");
  assert_unchanged(t, before);

  /* A body whose frame name would clash with a frame. */
  assert_int_equal(mbt_tree_add_rigid_body(t, "tool", &M), MBT_ERR_DUPLICATE);
  assert_error_contains(t, "body 'tool'");
  assert_error_contains(t, "a frame named 'tool' already exists");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_fixed_offset_frame(t, "tool", 0, &X), MBT_ERR_DUPLICATE);
  assert_error_contains(t, "frame 'tool'");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_revolute_joint(t, "hinge", a, NULL, c, NULL, ez(), 0), MBT_ERR_DUPLICATE);
  assert_error_contains(t, "joint 'hinge'");
  assert_error_contains(t, "a joint with this name already exists");
  assert_unchanged(t, before);

  /* A joint name that is already a mobilizer's (the joint's mobilizer takes its name). */
  assert_int_equal(mbt_tree_add_revolute_joint(t, "slider", a, NULL, c, NULL, ez(), 0), MBT_ERR_DUPLICATE);
  assert_error_contains(t, "joint 'slider'");
  assert_error_contains(t, "a mobilizer with this name already exists");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_mobilizer(t, "slider", MBT_MOBILIZER_WELD, mbt_tree_body_frame(t, b),
                                          mbt_tree_body_frame(t, c), NULL, 0),
                   MBT_ERR_DUPLICATE);
  assert_error_contains(t, "mobilizer 'slider'");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_user_force(t, "push", noop_force, NULL), MBT_ERR_DUPLICATE);
  assert_error_contains(t, "user force 'push'");
  assert_unchanged(t, before);

  /* A joint whose "<joint>_parent" frame name is taken. */
  assert_true(mbt_tree_add_fixed_offset_frame(t, "knee_parent", 0, &X) >= 0);
  before = snapshot(t);
  assert_int_equal(mbt_tree_add_revolute_joint(t, "knee", b, &X, c, NULL, ez(), 0), MBT_ERR_DUPLICATE);
  assert_error_contains(t, "joint 'knee'");
  assert_error_contains(t, "frame 'knee_parent' already exists");
  assert_unchanged(t, before);
  /* And one whose "<joint>_child" frame name is taken. */
  assert_true(mbt_tree_add_fixed_offset_frame(t, "ankle_child", 0, &X) >= 0);
  before = snapshot(t);
  assert_int_equal(mbt_tree_add_revolute_joint(t, "ankle", b, NULL, c, &X, ez(), 0), MBT_ERR_DUPLICATE);
  assert_error_contains(t, "frame 'ankle_child' already exists");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_revolute_spring(t, "gravity", 0, 0, 1), MBT_ERR_DUPLICATE);
  assert_error_contains(t, "revolute spring 'gravity'");
  assert_unchanged(t, before);

  /* Empty names. */
  assert_int_equal(mbt_tree_add_rigid_body(t, "", &M), MBT_ERR_INVALID_ARGUMENT);
  assert_error_contains(t, "name is empty");
  assert_int_equal(mbt_tree_add_rigid_body(t, NULL, &M), MBT_ERR_INVALID_ARGUMENT);
  assert_unchanged(t, before);
  mbt_tree_destroy(t);
}

static void test_error_zero_axis(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  int a = mbt_tree_add_rigid_body(t, "a", &M);
  counts before = snapshot(t);
  const double below = 0.5 * sqrt(2.220446049250313e-16);
  mbt_vec3 tiny = mbt_vec3_make(below, 0, 0);
  mbt_transform X = mbt_transform_identity();

  assert_int_equal(mbt_tree_add_revolute_joint(t, "r", 0, &X, a, &X, mbt_vec3_zero(), 0), MBT_ERR_INVALID_ARGUMENT);
  assert_error_contains(t, "joint 'r'");
  assert_error_contains(t, "zero vector");
  assert_unchanged(t, before);
  assert_int_equal(mbt_tree_frame_by_name(t, "r_parent"), MBT_ERR_NOT_FOUND);

  assert_int_equal(mbt_tree_add_prismatic_joint(t, "p", 0, NULL, a, NULL, tiny, 0), MBT_ERR_INVALID_ARGUMENT);
  assert_error_contains(t, "joint 'p'");
  assert_error_contains(t, "zero vector");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_screw_joint(t, "s", 0, NULL, a, NULL, tiny, 0.1, 0), MBT_ERR_INVALID_ARGUMENT);
  assert_error_contains(t, "joint 's'");
  assert_unchanged(t, before);

  assert_int_equal(mbt_tree_add_mobilizer(t, "m", MBT_MOBILIZER_REVOLUTE, 0, mbt_tree_body_frame(t, a), &tiny, 0),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_error_contains(t, "mobilizer 'm'");
  assert_unchanged(t, before);
  assert_int_equal(mbt_tree_add_mobilizer(t, "m", MBT_MOBILIZER_REVOLUTE, 0, mbt_tree_body_frame(t, a), NULL, 0),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_error_contains(t, "axis is missing");
  assert_unchanged(t, before);

  mbt_vec3 nan_axis = mbt_vec3_make(NAN, 0, 1);
  assert_int_equal(mbt_tree_add_revolute_joint(t, "r", 0, NULL, a, NULL, nan_axis, 0), MBT_ERR_INVALID_ARGUMENT);
  assert_error_contains(t, "not finite");
  assert_unchanged(t, before);

  /* Just above √ε is a direction, and it is normalized. */
  mbt_vec3 small = mbt_vec3_make(0, 0, 4 * below);
  int j = mbt_tree_add_revolute_joint(t, "r", 0, NULL, a, NULL, small, 0);
  assert_true(j >= 0);
  mbt_vec3 axis;
  assert_int_equal(mbt_revolute_joint_revolute_axis(t, j, &axis), MBT_OK);
  assert_near(axis.v[2], 1, 1e-15);
  mbt_tree_destroy(t);
}

static void test_error_bad_damping(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  int a = mbt_tree_add_rigid_body(t, "a", &M);
  counts before = snapshot(t);
  assert_int_equal(mbt_tree_add_revolute_joint(t, "r", 0, NULL, a, NULL, ez(), -0.1), MBT_ERR_INVALID_ARGUMENT);
  assert_error_contains(t, "joint 'r'");
  assert_error_contains(t, "damping");
  assert_unchanged(t, before);
  assert_int_equal(mbt_tree_add_revolute_joint(t, "r", 0, NULL, a, NULL, ez(), NAN), MBT_ERR_INVALID_ARGUMENT);
  assert_error_contains(t, "damping");
  assert_unchanged(t, before);
  const mbt_real d3[3] = {0.1, -2, 0.3};
  assert_int_equal(mbt_tree_add_ball_rpy_joint(t, "ball", 0, NULL, a, NULL, d3), MBT_ERR_INVALID_ARGUMENT);
  assert_error_contains(t, "joint 'ball'");
  assert_error_contains(t, "damping[1]");
  assert_unchanged(t, before);
  mbt_tree_destroy(t);
}

static void test_error_limits(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  int a = mbt_tree_add_rigid_body(t, "a", &M);
  counts before = snapshot(t);
  assert_int_equal(mbt_tree_add_revolute_joint_with_limits(t, "r", 0, NULL, a, NULL, ez(), 1.0, -1.0, 0),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_error_contains(t, "joint 'r'");
  assert_error_contains(t, "lower limit 1 is above the upper limit -1");
  assert_unchanged(t, before);
  assert_int_equal(mbt_tree_add_revolute_joint_with_limits(t, "r", 0, NULL, a, NULL, ez(), NAN, 1.0, 0),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_error_contains(t, "NaN");
  assert_unchanged(t, before);
  /* A screw's pitch must be finite. */
  assert_int_equal(mbt_tree_add_screw_joint(t, "s", 0, NULL, a, NULL, ez(), NAN, 0), MBT_ERR_INVALID_ARGUMENT);
  assert_error_contains(t, "screw pitch");
  assert_unchanged(t, before);
  mbt_tree_destroy(t);
}

static void test_error_nonphysical_inertia(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  counts before = snapshot(t);
  mbt_spatial_inertia M = unit_sphere();
  M.mass = -1;
  assert_int_equal(mbt_tree_add_rigid_body(t, "neg", &M), MBT_ERR_NONPHYSICAL);
  assert_error_contains(t, "body 'neg'");
  assert_error_contains(t, "negative");
  assert_unchanged(t, before);
  assert_int_equal(mbt_tree_add_rigid_body_unchecked(t, "neg", &M), MBT_ERR_NONPHYSICAL);
  assert_error_contains(t, "body 'neg'");
  assert_unchanged(t, before);

  /* Principal moments (1, 1, 3) about the center of mass break the triangle inequality. */
  mbt_rotational_inertia I = {1, 1, 3, 0, 0, 0};
  mbt_spatial_inertia bad = mbt_spatial_inertia_from_com(2.0, mbt_vec3_make(0.1, 0, 0), &I);
  assert_int_equal(mbt_tree_add_rigid_body(t, "triangle", &bad), MBT_ERR_NONPHYSICAL);
  assert_error_contains(t, "body 'triangle'");
  assert_unchanged(t, before);
  /* A negative principal moment. */
  mbt_rotational_inertia In = {-0.1, 1, 1, 0, 0, 0};
  mbt_spatial_inertia neg_moment = mbt_spatial_inertia_from_com(1.0, mbt_vec3_zero(), &In);
  assert_int_equal(mbt_tree_add_rigid_body(t, "moment", &neg_moment), MBT_ERR_NONPHYSICAL);
  assert_unchanged(t, before);
  /* NaN. */
  mbt_spatial_inertia nan_inertia = unit_sphere();
  nan_inertia.p_PScm_E.v[1] = NAN;
  assert_int_equal(mbt_tree_add_rigid_body(t, "nan", &nan_inertia), MBT_ERR_NONPHYSICAL);
  assert_int_equal(mbt_tree_add_rigid_body_unchecked(t, "nan", &nan_inertia), MBT_ERR_NONPHYSICAL);
  assert_unchanged(t, before);

  /* The unchecked variant takes the triangle violation (models with such files exist). */
  assert_int_equal(mbt_tree_add_rigid_body_unchecked(t, "triangle", &bad), 1);
  /* A massless body is physical. */
  mbt_spatial_inertia zero = {0, {{0, 0, 0}}, {0, 0, 0, 0, 0, 0}};
  assert_int_equal(mbt_tree_add_rigid_body(t, "massless", &zero), 2);
  mbt_tree_destroy(t);
}

static void test_error_context_before_finalize(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  mbt_tree_add_rigid_body(t, "a", &M);
  counts before = snapshot(t);
  assert_null(mbt_context_create(t));
  assert_error_contains(t, "not finalized");
  assert_null(mbt_multibody_forces_create(t));
  assert_error_contains(t, "not finalized");
  assert_unchanged(t, before);
  /* Topology queries before finalize. */
  assert_int_equal(mbt_tree_height(t), MBT_ERR_NOT_FINALIZED);
  assert_int_equal(mbt_tree_body_node(t, 1), MBT_ERR_NOT_FINALIZED);
  assert_error_contains(t, "not finalized");
  mbt_tree_destroy(t);
}

/* ---- topology -------------------------------------------------------------------------------- */
/* Structural invariants of any finalized tree: node order (every body after its parent), each
 * subtree the contiguous range [n, subtree_end), levels, level lists, slices, v_node. */
static void check_topology_invariants(const mbt_tree* t) {
  const int nb = mbt_tree_num_bodies(t);
  assert_int_equal(t->num_nodes, nb);
  assert_int_equal(mbt_tree_num_mobilizers(t), nb - 1);
  assert_int_equal(mbt_tree_num_states(t), mbt_tree_num_positions(t) + mbt_tree_num_velocities(t));
  assert_int_equal(mbt_tree_node_body(t, 0), 0);
  int max_level = 0, q = 0, v = 0;
  for (int n = 0; n < nb; ++n) {
    const int body = mbt_tree_node_body(t, n);
    assert_int_equal(mbt_tree_body_node(t, body), n);
    const int level = mbt_tree_body_level(t, body);
    if (level > max_level) max_level = level;
    if (n == 0) continue;
    const int parent = mbt_tree_body_parent(t, body);
    assert_true(mbt_tree_body_node(t, parent) < n);
    assert_int_equal(level, mbt_tree_body_level(t, parent) + 1);
    assert_int_equal(t->nodes[n].parent_node, mbt_tree_body_node(t, parent));
    /* Slices in node order, contiguous. */
    const int m = mbt_tree_body_mobilizer(t, body);
    assert_int_equal(mbt_mobilizer_outboard_body(t, m), body);
    assert_int_equal(mbt_mobilizer_position_start_in_q(t, m), q);
    assert_int_equal(mbt_mobilizer_velocity_start_in_v(t, m), v);
    assert_int_equal(t->nodes[n].q_start, q);
    assert_int_equal(t->nodes[n].v_start, v);
    for (int k = 0; k < mbt_mobilizer_num_velocities(t, m); ++k) assert_int_equal(t->v_node[v + k], n);
    q += mbt_mobilizer_num_positions(t, m);
    v += mbt_mobilizer_num_velocities(t, m);
  }
  assert_int_equal(q, mbt_tree_num_positions(t));
  assert_int_equal(v, mbt_tree_num_velocities(t));
  assert_int_equal(mbt_tree_height(t), max_level + 1);
  /* Subtrees: m is in [n, subtree_end(n)) exactly when n is on m's inboard path. */
  for (int n = 0; n < nb; ++n)
    for (int m = 0; m < nb; ++m) {
      bool ancestor = false;
      for (int k = m; k >= 0; k = t->nodes[k].parent_node)
        if (k == n) ancestor = true;
      assert_int_equal(ancestor, m >= n && m < t->nodes[n].subtree_end);
    }
  /* Level lists: every body once, at its level, in node order within the level. */
  int total = 0;
  for (int l = 0; l < mbt_tree_height(t); ++l) {
    const int count = mbt_tree_num_bodies_at_level(t, l);
    for (int k = 0; k < count; ++k) {
      const int body = mbt_tree_body_at_level(t, l, k);
      assert_int_equal(mbt_tree_body_level(t, body), l);
      if (k > 0) assert_true(mbt_tree_body_node(t, mbt_tree_body_at_level(t, l, k - 1)) < mbt_tree_body_node(t, body));
    }
    total += count;
  }
  assert_int_equal(total, nb);
}

static void test_topology_chain(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  /* Bodies added tip first, joints root first: node order follows the joints, not the bodies. */
  int c = mbt_tree_add_rigid_body(t, "c", &M);
  int b = mbt_tree_add_rigid_body(t, "b", &M);
  int a = mbt_tree_add_rigid_body(t, "a", &M);
  mbt_transform X = mbt_transform_identity();
  X.p.v[2] = -1;
  int j0 = mbt_tree_add_revolute_joint(t, "j0", 0, NULL, a, NULL, ez(), 0);
  int j1 = mbt_tree_add_universal_joint(t, "j1", a, &X, b, NULL, NULL);
  int j2 = mbt_tree_add_prismatic_joint(t, "j2", b, &X, c, NULL, ez(), 0);
  assert_true(j0 == 0 && j1 == 1 && j2 == 2);
  assert_int_equal(mbt_tree_num_positions(t), 4); /* known before finalize too */
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  check_topology_invariants(t);
  assert_int_equal(mbt_tree_height(t), 4);
  assert_int_equal(mbt_tree_body_node(t, a), 1);
  assert_int_equal(mbt_tree_body_node(t, b), 2);
  assert_int_equal(mbt_tree_body_node(t, c), 3);
  assert_int_equal(mbt_tree_body_level(t, c), 3);
  assert_int_equal(mbt_tree_body_parent(t, a), 0);
  assert_int_equal(mbt_tree_body_parent(t, 0), -1);
  assert_int_equal(mbt_tree_body_mobilizer(t, 0), -1);
  assert_int_equal(mbt_joint_position_start(t, j0), 0);
  assert_int_equal(mbt_joint_position_start(t, j1), 1);
  assert_int_equal(mbt_joint_position_start(t, j2), 3);
  assert_int_equal(mbt_joint_velocity_start(t, j2), 3);
  assert_int_equal(mbt_tree_num_positions(t), 4);
  assert_int_equal(mbt_tree_num_velocities(t), 4);
  assert_int_equal(mbt_tree_num_states(t), 8);
  for (int n = 0; n < 4; ++n) assert_int_equal(t->nodes[n].subtree_end, 4);
  for (int l = 0; l < 4; ++l) assert_int_equal(mbt_tree_num_bodies_at_level(t, l), 1);
  assert_int_equal(mbt_tree_body_at_level(t, 2, 0), b);
  assert_int_equal(mbt_tree_body_num_children(t, b), 1);
  assert_int_equal(mbt_tree_body_child(t, b, 0), c);
  assert_int_equal(mbt_tree_body_num_children(t, c), 0);
  assert_false(mbt_tree_body_is_floating(t, a));
  /* Frames: 4 body frames + j1_parent + j2_parent. */
  assert_int_equal(mbt_tree_num_frames(t), 6);
  mbt_tree_destroy(t);
}

static void test_topology_branched(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  const int torso = mbt_tree_add_rigid_body(t, "torso", &M);
  const int lu = mbt_tree_add_rigid_body(t, "left_upper", &M);
  const int ru = mbt_tree_add_rigid_body(t, "right_upper", &M);
  const int ll = mbt_tree_add_rigid_body(t, "left_lower", &M);
  const int rl = mbt_tree_add_rigid_body(t, "right_lower", &M);
  const int head = mbt_tree_add_rigid_body(t, "head", &M);
  /* Joints out of body order; children of torso in mobilizer order: lu, ru, head. */
  assert_true(mbt_tree_add_revolute_joint(t, "left_knee", lu, NULL, ll, NULL, ez(), 0) >= 0);
  assert_true(mbt_tree_add_revolute_joint(t, "root", 0, NULL, torso, NULL, ez(), 0) >= 0);
  assert_true(mbt_tree_add_universal_joint(t, "left_hip", torso, NULL, lu, NULL, NULL) >= 0);
  assert_true(mbt_tree_add_prismatic_joint(t, "right_knee", ru, NULL, rl, NULL, ez(), 0) >= 0);
  assert_true(mbt_tree_add_revolute_joint(t, "right_hip", torso, NULL, ru, NULL, ez(), 0) >= 0);
  assert_true(mbt_tree_add_ball_rpy_joint(t, "neck", torso, NULL, head, NULL, NULL) >= 0);
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  check_topology_invariants(t);

  /* Depth-first: world, torso, left_upper, left_lower, right_upper, right_lower, head. */
  const int expected_order[] = {0, torso, lu, ll, ru, rl, head};
  for (int n = 0; n < 7; ++n) assert_int_equal(mbt_tree_node_body(t, n), expected_order[n]);
  const int expected_end[] = {7, 7, 4, 4, 6, 6, 7};
  for (int n = 0; n < 7; ++n) assert_int_equal(t->nodes[n].subtree_end, expected_end[n]);
  assert_int_equal(mbt_tree_height(t), 4);
  assert_int_equal(mbt_tree_num_bodies_at_level(t, 1), 1);
  assert_int_equal(mbt_tree_num_bodies_at_level(t, 2), 3);
  assert_int_equal(mbt_tree_body_at_level(t, 2, 0), lu);
  assert_int_equal(mbt_tree_body_at_level(t, 2, 1), ru);
  assert_int_equal(mbt_tree_body_at_level(t, 2, 2), head);
  assert_int_equal(mbt_tree_num_bodies_at_level(t, 3), 2);
  assert_int_equal(mbt_tree_body_at_level(t, 3, 0), ll);
  assert_int_equal(mbt_tree_body_at_level(t, 3, 1), rl);
  assert_int_equal(t->level_nodes[t->level_start[3]], 3);
  assert_int_equal(t->level_nodes[t->level_start[3] + 1], 5);
  assert_int_equal(mbt_tree_body_num_children(t, torso), 3);
  assert_int_equal(mbt_tree_body_child(t, torso, 0), lu);
  assert_int_equal(mbt_tree_body_child(t, torso, 1), ru);
  assert_int_equal(mbt_tree_body_child(t, torso, 2), head);
  /* q: root(1) left_hip(2) left_knee(1) right_hip(1) right_knee(1) neck(3). */
  const char* joints[] = {"root", "left_hip", "left_knee", "right_hip", "right_knee", "neck"};
  const int q_start[] = {0, 1, 3, 4, 5, 6};
  for (int k = 0; k < 6; ++k)
    assert_int_equal(mbt_joint_position_start(t, mbt_tree_joint_by_name(t, joints[k])), q_start[k]);
  assert_int_equal(mbt_tree_num_positions(t), 9);
  assert_int_equal(mbt_tree_num_velocities(t), 9);
  const int v_node[] = {1, 2, 2, 3, 4, 5, 6, 6, 6};
  for (int k = 0; k < 9; ++k) assert_int_equal(t->v_node[k], v_node[k]);
  mbt_tree_destroy(t);
}

static void test_topology_floating_forest(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  const char* names[] = {"rock", "paper", "scissors"};
  for (int k = 0; k < 3; ++k) assert_int_equal(mbt_tree_add_rigid_body(t, names[k], &M), k + 1);
  assert_int_equal(mbt_tree_num_mobilizers(t), 0);
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  check_topology_invariants(t);
  assert_int_equal(mbt_tree_num_mobilizers(t), 3);
  assert_int_equal(mbt_tree_num_joints(t), 0);
  assert_int_equal(mbt_tree_num_positions(t), 21);
  assert_int_equal(mbt_tree_num_velocities(t), 18);
  assert_int_equal(mbt_tree_num_states(t), 39);
  assert_int_equal(mbt_tree_height(t), 2);
  assert_int_equal(mbt_tree_num_bodies_at_level(t, 1), 3);
  for (int k = 0; k < 3; ++k) {
    const int body = k + 1;
    char name[32];
    snprintf(name, sizeof name, "%s_floating", names[k]);
    const int m = mbt_tree_body_mobilizer(t, body);
    assert_string_equal(mbt_mobilizer_name(t, m), name);
    assert_int_equal(mbt_mobilizer_type_of(t, m), MBT_MOBILIZER_QUATERNION_FLOATING);
    assert_string_equal(mbt_mobilizer_type_name(mbt_mobilizer_type_of(t, m)), "quaternion_floating");
    assert_int_equal(mbt_mobilizer_joint(t, m), -1);
    assert_int_equal(mbt_mobilizer_inboard_frame(t, m), 0);
    assert_int_equal(mbt_mobilizer_outboard_frame(t, m), mbt_tree_body_frame(t, body));
    assert_int_equal(mbt_mobilizer_num_positions(t, m), 7);
    assert_int_equal(mbt_mobilizer_num_velocities(t, m), 6);
    assert_int_equal(mbt_mobilizer_position_start_in_q(t, m), 7 * k);
    assert_int_equal(mbt_mobilizer_velocity_start_in_v(t, m), 6 * k);
    assert_true(mbt_tree_body_is_floating(t, body));
    assert_int_equal(mbt_tree_body_node(t, body), body);
  }
  assert_false(mbt_tree_body_is_floating(t, 0));
  /* Zero state: identity quaternions, everything else zero. */
  mbt_context* ctx = mbt_context_create(t);
  assert_non_null(ctx);
  const mbt_real* q = mbt_context_q(ctx);
  for (int i = 0; i < 21; ++i) assert_near(q[i], i % 7 == 0 ? 1 : 0, 0);
  for (int i = 0; i < 18; ++i) assert_near(mbt_context_v(ctx)[i], 0, 0);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(t);
}

static void test_topology_floating_base_with_limbs(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  const int base = mbt_tree_add_rigid_body(t, "base", &M);
  const int arm = mbt_tree_add_rigid_body(t, "arm", &M);
  const int pole = mbt_tree_add_rigid_body(t, "pole", &M);
  assert_true(mbt_tree_add_revolute_joint(t, "shoulder", base, NULL, arm, NULL, ez(), 0) >= 0);
  assert_true(mbt_tree_add_revolute_joint(t, "pivot", 0, NULL, pole, NULL, ez(), 0) >= 0);
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  check_topology_invariants(t);
  /* World's children: pole (joint added first), then base (floating, added at finalize). */
  assert_int_equal(mbt_tree_body_child(t, 0, 0), pole);
  assert_int_equal(mbt_tree_body_child(t, 0, 1), base);
  assert_int_equal(mbt_tree_node_body(t, 1), pole);
  assert_int_equal(mbt_tree_node_body(t, 2), base);
  assert_int_equal(mbt_tree_node_body(t, 3), arm);
  assert_true(mbt_tree_body_is_floating(t, base));
  assert_false(mbt_tree_body_is_floating(t, arm));
  assert_int_equal(mbt_tree_num_positions(t), 1 + 7 + 1);
  assert_int_equal(mbt_tree_num_velocities(t), 1 + 6 + 1);
  assert_int_equal(mbt_tree_height(t), 3);
  mbt_tree_destroy(t);
}

/* A body named so that its floating mobilizer's name is taken: finalize fails, unchanged. */
static void test_error_floating_name_taken(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  const int a = mbt_tree_add_rigid_body(t, "a", &M);
  const int b = mbt_tree_add_rigid_body(t, "b", &M);
  assert_true(mbt_tree_add_revolute_joint(t, "a_floating", 0, NULL, b, NULL, ez(), 0) >= 0);
  (void)a;
  counts before = snapshot(t);
  assert_int_equal(mbt_tree_finalize(t), MBT_ERR_DUPLICATE);
  assert_error_contains(t, "body 'a'");
  assert_error_contains(t, "'a_floating'");
  assert_unchanged(t, before);
  mbt_tree_destroy(t);
}

/* Node copies: X_PF = X_BF of the inboard frame, X_MB = X_BM⁻¹ of the outboard frame, with
 * the identity flags; screw pitch per radian. */
static void test_node_data(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  const int a = mbt_tree_add_rigid_body(t, "a", &M);
  const int b = mbt_tree_add_rigid_body(t, "b", &M);
  mbt_transform X_AF = {mbt_rotation_from_rpy(mbt_vec3_make(0.1, 0.2, 0.3)), {{0.5, -0.2, 0.1}}};
  mbt_transform X_BM = {mbt_rotation_from_rpy(mbt_vec3_make(-0.4, 0.0, 1.0)), {{0, 0, 0.7}}};
  assert_true(mbt_tree_add_revolute_joint(t, "pin", 0, NULL, a, NULL, mbt_vec3_make(1, 1, 0), 0) >= 0);
  const int j = mbt_tree_add_screw_joint(t, "screw", a, &X_AF, b, &X_BM, ez(), 0.02, 0);
  assert_true(j >= 0);
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  const mbt_node* na = &t->nodes[mbt_tree_body_node(t, a)];
  const mbt_node* nb = &t->nodes[mbt_tree_body_node(t, b)];
  assert_true(na->X_PF_is_identity);
  assert_true(na->X_MB_is_identity);
  assert_near(na->axis.v[0], 1 / sqrt(2.0), 1e-15);
  assert_near(na->axis.v[1], 1 / sqrt(2.0), 1e-15);
  assert_int_equal(na->type, MBT_MOBILIZER_REVOLUTE);
  assert_false(nb->X_PF_is_identity);
  assert_false(nb->X_MB_is_identity);
  assert_int_equal(nb->type, MBT_MOBILIZER_SCREW);
  assert_int_equal(nb->joint, j);
  assert_near(nb->pitch, 0.02 / (2 * TU_PI), 1e-17);
  assert_near(mbt_joint_screw_pitch(t, j), 0.02, 0);
  /* X_MB·X_BM = I and X_PF = X_AF. */
  mbt_transform I = mbt_transform_compose(&nb->X_MB, &X_BM);
  for (int r = 0; r < 3; ++r) {
    assert_near(I.p.v[r], 0, 1e-15);
    assert_near(nb->X_PF.p.v[r], X_AF.p.v[r], 1e-15);
    for (int c = 0; c < 3; ++c) {
      assert_near(I.R.m[r][c], r == c ? 1 : 0, 1e-15);
      assert_near(nb->X_PF.R.m[r][c], X_AF.R.m[r][c], 1e-15);
    }
  }
  mbt_tree_destroy(t);
}

/* The Mobilizer interface wrappers: slices of whole-tree arrays and the kernels through the
 * public functions (values checked against the closed form for a revolute mobilizer). */
static void test_mobilizer_interface(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = unit_sphere();
  const int a = mbt_tree_add_rigid_body(t, "a", &M);
  const int b = mbt_tree_add_rigid_body(t, "b", &M);
  const int m0 = mbt_tree_add_mobilizer(t, "slide", MBT_MOBILIZER_PRISMATIC, 0, mbt_tree_body_frame(t, a),
                                        &(mbt_vec3){{0, 2, 0}}, 0);
  const int m1 = mbt_tree_add_mobilizer(t, "turn", MBT_MOBILIZER_REVOLUTE, mbt_tree_body_frame(t, a),
                                        mbt_tree_body_frame(t, b), &(mbt_vec3){{0, 0, 3}}, 0);
  assert_true(m0 == 0 && m1 == 1);
  assert_int_equal(mbt_mobilizer_position_start_in_q(t, m1), MBT_ERR_NOT_FINALIZED);
  assert_null(mbt_mobilizer_positions_from_array(t, m1, (const mbt_real[2]){0, 0}));
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  assert_int_equal(mbt_mobilizer_joint(t, m1), -1);
  assert_int_equal(mbt_mobilizer_inboard_body(t, m1), a);
  assert_int_equal(mbt_mobilizer_outboard_body(t, m1), b);
  assert_true(mbt_mobilizer_can_rotate(t, m1));
  assert_false(mbt_mobilizer_can_translate(t, m1));
  assert_true(mbt_mobilizer_can_translate(t, m0));
  assert_false(mbt_mobilizer_can_rotate(t, m0));
  assert_string_equal(mbt_mobilizer_type_name(MBT_MOBILIZER_REVOLUTE), "revolute");

  mbt_real q[2] = {0.25, 0.7}, v[2] = {1.5, -2.0};
  assert_ptr_equal(mbt_mobilizer_positions_from_array(t, m1, q), q + 1);
  assert_ptr_equal(mbt_mobilizer_mutable_velocities_from_array(t, m1, v), v + 1);
  assert_ptr_equal(mbt_mobilizer_velocities_from_array(t, m0, v), v);
  *mbt_mobilizer_mutable_positions_from_array(t, m0, q) = 0.5;
  assert_near(q[0], 0.5, 0);

  mbt_transform X_FM;
  mbt_mobilizer_calc_across_mobilizer_transform(t, m1, q + 1, &X_FM);
  assert_near(X_FM.R.m[0][0], cos(0.7), 1e-15);
  assert_near(X_FM.R.m[1][0], sin(0.7), 1e-15); /* right-hand rule about +z */
  mbt_mobilizer_calc_across_mobilizer_transform(t, m0, q, &X_FM);
  assert_near(X_FM.p.v[1], 0.5, 1e-15);
  mbt_spatial_velocity V_FM;
  mbt_mobilizer_calc_across_mobilizer_spatial_velocity(t, m1, q + 1, v + 1, &V_FM);
  assert_near(V_FM.w.v[2], -2.0, 1e-15);
  mbt_spatial_force F = {{{{0, 0, 4}}, {{1, 1, 1}}}};
  mbt_real tau = 0;
  mbt_mobilizer_project_spatial_force(t, m1, q + 1, &F, &tau);
  assert_near(tau, 4, 1e-15);
  mbt_real qdot = 0, vback = 0;
  mbt_mobilizer_map_velocity_to_qdot(t, m1, q + 1, v + 1, &qdot);
  assert_near(qdot, -2.0, 1e-15);
  assert_int_equal(mbt_mobilizer_map_qdot_to_velocity(t, m1, q + 1, &qdot, &vback), MBT_OK);
  assert_near(vback, -2.0, 1e-15);
  mbt_real qz = 9, vz = 9;
  mbt_mobilizer_set_zero_state(t, m1, &qz, &vz);
  assert_near(qz, 0, 0);
  assert_near(vz, 0, 0);
  mbt_spatial_velocity H;
  mbt_mobilizer_calc_H_FM(t, m1, q + 1, &H);
  assert_near(H.w.v[2], 1, 1e-15);
  mbt_spatial_acceleration A;
  const mbt_real vdot = 3;
  mbt_mobilizer_calc_across_mobilizer_spatial_acceleration(t, m1, q + 1, v + 1, &vdot, &A);
  assert_near(A.alpha.v[2], 3, 1e-15);
  mbt_tree_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_new_tree_holds_world_and_gravity),
      cmocka_unit_test(test_bodies_and_frames),
      cmocka_unit_test(test_error_add_after_finalize),
      cmocka_unit_test(test_error_finalize_twice),
      cmocka_unit_test(test_error_mobilizer_to_itself),
      cmocka_unit_test(test_error_two_mobilizers_between_same_bodies),
      cmocka_unit_test(test_error_second_inboard_mobilizer),
      cmocka_unit_test(test_error_world_as_child),
      cmocka_unit_test(test_error_unknown_index),
      cmocka_unit_test(test_error_duplicate_names),
      cmocka_unit_test(test_error_zero_axis),
      cmocka_unit_test(test_error_bad_damping),
      cmocka_unit_test(test_error_limits),
      cmocka_unit_test(test_error_nonphysical_inertia),
      cmocka_unit_test(test_error_context_before_finalize),
      cmocka_unit_test(test_error_floating_name_taken),
      cmocka_unit_test(test_topology_chain),
      cmocka_unit_test(test_topology_branched),
      cmocka_unit_test(test_topology_floating_forest),
      cmocka_unit_test(test_topology_floating_base_with_limbs),
      cmocka_unit_test(test_node_data),
      cmocka_unit_test(test_mobilizer_interface),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
