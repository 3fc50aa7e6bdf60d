/* Tests of mbt/joints.h: the joint builders (seed MultibodyTree::AddJoint), the Joint
 * interface and RevoluteJoint (seed page 004), prismatic and floating accessors, default
 * poses, damping, AddInOneForce/AddInDamping/AddInTorque, and locks. */
#include "support/test_util.h"

#include "tree/context_internal.h"

/* One joint of each type hanging from the world (a star), built but not finalized. */
typedef struct {
  mbt_tree* t;
  int j[MBT_JOINT_NUM_TYPES];
} star;

static star make_star(void) {
  star s;
  s.t = mbt_tree_create();
  mbt_spatial_inertia M = tu_body_inertia();
  mbt_transform X_PF = {mbt_rotation_from_rpy(mbt_vec3_make(0.3, -0.2, 0.1)), {{0.1, 0.2, 0.3}}};
  mbt_transform X_BM = {mbt_rotation_from_rpy(mbt_vec3_make(-0.1, 0.4, 0.2)), {{0, 0, 0.25}}};
  int b[MBT_JOINT_NUM_TYPES];
  for (int k = 0; k < MBT_JOINT_NUM_TYPES; ++k) {
    char name[32];
    snprintf(name, sizeof name, "body%d", k);
    b[k] = mbt_tree_add_rigid_body(s.t, name, &M);
  }
  const mbt_vec3 axis = mbt_vec3_make(1, 2, 2);
  s.j[MBT_JOINT_WELD] = mbt_tree_add_weld_joint(s.t, "weld", 0, &X_PF, b[0], &X_BM);
  s.j[MBT_JOINT_REVOLUTE] = mbt_tree_add_revolute_joint(s.t, "revolute", 0, &X_PF, b[1], &X_BM, axis, 0.5);
  s.j[MBT_JOINT_PRISMATIC] = mbt_tree_add_prismatic_joint(s.t, "prismatic", 0, &X_PF, b[2], &X_BM, axis, 0.25);
  s.j[MBT_JOINT_UNIVERSAL] = mbt_tree_add_universal_joint(s.t, "universal", 0, &X_PF, b[3], &X_BM, NULL);
  s.j[MBT_JOINT_PLANAR] = mbt_tree_add_planar_joint(s.t, "planar", 0, &X_PF, b[4], &X_BM, NULL);
  s.j[MBT_JOINT_BALL_RPY] = mbt_tree_add_ball_rpy_joint(s.t, "ball", 0, &X_PF, b[5], &X_BM, NULL);
  s.j[MBT_JOINT_QUATERNION_FLOATING] =
      mbt_tree_add_quaternion_floating_joint(s.t, "floating", 0, &X_PF, b[6], &X_BM, NULL);
  s.j[MBT_JOINT_SCREW] = mbt_tree_add_screw_joint(s.t, "screw", 0, &X_PF, b[7], &X_BM, axis, 0.05, 0);
  for (int k = 0; k < MBT_JOINT_NUM_TYPES; ++k) assert_int_equal(s.j[k], k);
  return s;
}

static void test_builders_create_frames_and_mobilizers(void** state) {
  (void)state;
  star s = make_star();
  mbt_tree* t = s.t;
  /* 9 body frames + a parent and a child frame per joint. */
  assert_int_equal(mbt_tree_num_frames(t), 9 + 2 * MBT_JOINT_NUM_TYPES);
  assert_int_equal(mbt_tree_num_joints(t), MBT_JOINT_NUM_TYPES);
  assert_int_equal(mbt_tree_num_mobilizers(t), MBT_JOINT_NUM_TYPES);
  const int nq[] = {0, 1, 1, 2, 3, 3, 7, 1}, nv[] = {0, 1, 1, 2, 3, 3, 6, 1};
  const mbt_mobilizer_type mtype[] = {MBT_MOBILIZER_WELD,      MBT_MOBILIZER_REVOLUTE,  MBT_MOBILIZER_PRISMATIC,
                                      MBT_MOBILIZER_UNIVERSAL, MBT_MOBILIZER_PLANAR,    MBT_MOBILIZER_SPACE_XYZ,
                                      MBT_MOBILIZER_QUATERNION_FLOATING, MBT_MOBILIZER_SCREW};
  const char* type_names[] = {"weld", "revolute", "prismatic", "universal", "planar", "ball_rpy",
                              "quaternion_floating", "screw"};
  for (int k = 0; k < MBT_JOINT_NUM_TYPES; ++k) {
    const int j = s.j[k];
    const char* name = mbt_joint_name(t, j);
    assert_int_equal(mbt_joint_type_of(t, j), k);
    assert_string_equal(mbt_joint_type_name(t, j), type_names[k]);
    assert_string_equal(mbt_joint_type_to_string((mbt_joint_type)k), type_names[k]);
    assert_int_equal(mbt_tree_joint_by_name(t, name), j);
    assert_int_equal(mbt_joint_num_positions(t, j), nq[k]);
    assert_int_equal(mbt_joint_num_velocities(t, j), nv[k]);
    assert_int_equal(mbt_joint_parent_body(t, j), 0);
    assert_int_equal(mbt_joint_child_body(t, j), k + 1);
    char fname[64];
    snprintf(fname, sizeof fname, "%s_parent", name);
    const int F = mbt_tree_frame_by_name(t, fname);
    snprintf(fname, sizeof fname, "%s_child", name);
    const int Mf = mbt_tree_frame_by_name(t, fname);
    assert_true(F > 0 && Mf > 0);
    assert_int_equal(mbt_joint_frame_on_parent(t, j), F);
    assert_int_equal(mbt_joint_frame_on_child(t, j), Mf);
    assert_int_equal(mbt_tree_frame_body(t, F), 0);
    assert_int_equal(mbt_tree_frame_body(t, Mf), k + 1);
    const int m = mbt_joint_mobilizer(t, j);
    assert_int_equal(mbt_mobilizer_joint(t, m), j);
    assert_int_equal(mbt_mobilizer_type_of(t, m), mtype[k]);
    assert_string_equal(mbt_mobilizer_name(t, m), name);
    assert_int_equal(mbt_mobilizer_inboard_frame(t, m), F);
    assert_int_equal(mbt_mobilizer_outboard_frame(t, m), Mf);
    assert_int_equal(mbt_joint_position_start(t, j), MBT_ERR_NOT_FINALIZED);
  }
  /* Axes are unit vectors along the given direction. */
  const mbt_vec3 a = mbt_joint_axis(t, s.j[MBT_JOINT_PRISMATIC]);
  assert_near(a.v[0], 1.0 / 3, 1e-15);
  assert_near(a.v[1], 2.0 / 3, 1e-15);
  assert_near(a.v[2], 2.0 / 3, 1e-15);
  assert_near(mbt_joint_screw_pitch(t, s.j[MBT_JOINT_SCREW]), 0.05, 0);

  /* can_rotate / can_translate. */
  const bool rot[] = {false, true, false, true, true, true, true, true};
  const bool tra[] = {false, false, true, false, true, false, true, true};
  for (int k = 0; k < MBT_JOINT_NUM_TYPES; ++k) {
    assert_int_equal(mbt_joint_can_rotate(t, s.j[k]), rot[k]);
    assert_int_equal(mbt_joint_can_translate(t, s.j[k]), tra[k]);
  }

  /* Without X_PF, X_BM the joint uses the body frames and adds none. */
  mbt_spatial_inertia M = tu_body_inertia();
  const int extra = mbt_tree_add_rigid_body(t, "extra", &M);
  const int frames = mbt_tree_num_frames(t);
  const int j = mbt_tree_add_revolute_joint(t, "plain", 1, NULL, extra, NULL, mbt_vec3_make(0, 0, 1), 0);
  assert_int_equal(mbt_tree_num_frames(t), frames);
  assert_int_equal(mbt_joint_frame_on_parent(t, j), mbt_tree_body_frame(t, 1));
  assert_int_equal(mbt_joint_frame_on_child(t, j), mbt_tree_body_frame(t, extra));
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  int q = 0;
  for (int n = 1; n < mbt_tree_num_bodies(t); ++n) {
    const int m = mbt_tree_body_mobilizer(t, mbt_tree_node_body(t, n));
    const int jj = mbt_mobilizer_joint(t, m);
    assert_int_equal(mbt_joint_position_start(t, jj), q);
    q += mbt_joint_num_positions(t, jj);
  }
  mbt_tree_destroy(t);
}

static void test_suffixes(void** state) {
  (void)state;
  star s = make_star();
  mbt_tree* t = s.t;
  assert_null(mbt_joint_position_suffix(t, s.j[MBT_JOINT_WELD], 0));
  assert_string_equal(mbt_joint_position_suffix(t, s.j[MBT_JOINT_REVOLUTE], 0), "q");
  assert_string_equal(mbt_joint_velocity_suffix(t, s.j[MBT_JOINT_REVOLUTE], 0), "w");
  assert_null(mbt_joint_position_suffix(t, s.j[MBT_JOINT_REVOLUTE], 1));
  assert_string_equal(mbt_joint_position_suffix(t, s.j[MBT_JOINT_PRISMATIC], 0), "x");
  assert_string_equal(mbt_joint_velocity_suffix(t, s.j[MBT_JOINT_PRISMATIC], 0), "v");
  assert_string_equal(mbt_joint_position_suffix(t, s.j[MBT_JOINT_PLANAR], 2), "qz");
  assert_string_equal(mbt_joint_velocity_suffix(t, s.j[MBT_JOINT_PLANAR], 0), "vx");
  assert_string_equal(mbt_joint_velocity_suffix(t, s.j[MBT_JOINT_PLANAR], 2), "wz");
  assert_string_equal(mbt_joint_position_suffix(t, s.j[MBT_JOINT_BALL_RPY], 1), "qy");
  assert_string_equal(mbt_joint_velocity_suffix(t, s.j[MBT_JOINT_BALL_RPY], 2), "wz");
  const char* fq[] = {"qw", "qx", "qy", "qz", "x", "y", "z"};
  const char* fv[] = {"wx", "wy", "wz", "vx", "vy", "vz"};
  for (int k = 0; k < 7; ++k)
    assert_string_equal(mbt_joint_position_suffix(t, s.j[MBT_JOINT_QUATERNION_FLOATING], k), fq[k]);
  for (int k = 0; k < 6; ++k)
    assert_string_equal(mbt_joint_velocity_suffix(t, s.j[MBT_JOINT_QUATERNION_FLOATING], k), fv[k]);
  assert_null(mbt_joint_velocity_suffix(t, s.j[MBT_JOINT_QUATERNION_FLOATING], 6));
  assert_null(mbt_joint_velocity_suffix(t, s.j[MBT_JOINT_UNIVERSAL], -1));
  mbt_tree_destroy(t);
}

/* Seed RevoluteJoint: both constructors, axis, limits, damping, default angle, kTypeName. */
static void test_revolute_joint_model(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = tu_body_inertia();
  const int a = mbt_tree_add_rigid_body(t, "a", &M);
  const int b = mbt_tree_add_rigid_body(t, "b", &M);
  const int j0 = mbt_tree_add_revolute_joint(t, "free_pin", 0, NULL, a, NULL, mbt_vec3_make(0, 0, -5), 0.3);
  const int j1 = mbt_tree_add_revolute_joint_with_limits(t, "limited", a, NULL, b, NULL, mbt_vec3_make(0, 3, 4),
                                                         -1.0, 2.0, 0.0);
  assert_true(j0 >= 0 && j1 >= 0);
  assert_string_equal(MBT_REVOLUTE_JOINT_TYPE_NAME, "revolute");
  assert_string_equal(mbt_joint_type_name(t, j0), MBT_REVOLUTE_JOINT_TYPE_NAME);
  mbt_vec3 axis;
  assert_int_equal(mbt_revolute_joint_revolute_axis(t, j0, &axis), MBT_OK);
  assert_near(axis.v[2], -1, 0);
  assert_int_equal(mbt_revolute_joint_revolute_axis(t, j1, &axis), MBT_OK);
  assert_near(axis.v[1], 0.6, 1e-15);
  assert_near(axis.v[2], 0.8, 1e-15);
  mbt_real value;
  assert_int_equal(mbt_revolute_joint_position_lower_limit(t, j0, &value), MBT_OK);
  assert_true(isinf(value) && value < 0);
  assert_int_equal(mbt_revolute_joint_position_upper_limit(t, j0, &value), MBT_OK);
  assert_true(isinf(value) && value > 0);
  assert_int_equal(mbt_revolute_joint_position_lower_limit(t, j1, &value), MBT_OK);
  assert_near(value, -1, 0);
  assert_int_equal(mbt_revolute_joint_position_upper_limit(t, j1, &value), MBT_OK);
  assert_near(value, 2, 0);
  assert_int_equal(mbt_revolute_joint_velocity_lower_limit(t, j1, &value), MBT_OK);
  assert_true(isinf(value) && value < 0);
  assert_int_equal(mbt_revolute_joint_velocity_upper_limit(t, j1, &value), MBT_OK);
  assert_true(isinf(value) && value > 0);
  assert_int_equal(mbt_revolute_joint_acceleration_lower_limit(t, j1, &value), MBT_OK);
  assert_true(isinf(value) && value < 0);
  assert_int_equal(mbt_revolute_joint_acceleration_upper_limit(t, j1, &value), MBT_OK);
  assert_true(isinf(value) && value > 0);

  /* Limit setters. */
  const mbt_real vlo = -3, vhi = 4, alo = -10, ahi = 10;
  assert_int_equal(mbt_joint_set_velocity_limits(t, j1, &vlo, &vhi, 1), MBT_OK);
  assert_int_equal(mbt_joint_set_acceleration_limits(t, j1, &alo, &ahi, 1), MBT_OK);
  assert_int_equal(mbt_revolute_joint_velocity_upper_limit(t, j1, &value), MBT_OK);
  assert_near(value, 4, 0);
  assert_near(mbt_joint_velocity_lower_limits(t, j1)[0], -3, 0);
  assert_near(mbt_joint_acceleration_upper_limits(t, j1)[0], 10, 0);
  assert_near(mbt_joint_acceleration_lower_limits(t, j1)[0], -10, 0);
  assert_int_equal(mbt_joint_set_velocity_limits(t, j1, &vhi, &vlo, 1), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_tree_last_error(t), "joint 'limited'");
  assert_contains(mbt_tree_last_error(t), "velocity lower limit 4 is above the upper limit -3");
  assert_near(mbt_joint_velocity_upper_limits(t, j1)[0], 4, 0); /* unchanged */
  assert_int_equal(mbt_joint_set_position_limits(t, j1, &vlo, &vhi, 2), MBT_ERR_SIZE);
  assert_contains(mbt_tree_last_error(t), "got 2 values, the joint has 1");
  const mbt_real nan = NAN;
  assert_int_equal(mbt_joint_set_position_limits(t, j1, &nan, &vhi, 1), MBT_ERR_INVALID_ARGUMENT);
  assert_near(mbt_joint_position_lower_limits(t, j1)[0], -1, 0);
  assert_int_equal(mbt_joint_set_position_limits(t, j1, &vlo, &vhi, 1), MBT_OK);
  assert_near(mbt_joint_position_upper_limits(t, j1)[0], 4, 0);

  /* Default damping. */
  assert_int_equal(mbt_revolute_joint_default_damping(t, j0, &value), MBT_OK);
  assert_near(value, 0.3, 0);
  assert_int_equal(mbt_revolute_joint_set_default_damping(t, j0, 0.7), MBT_OK);
  assert_near(mbt_joint_default_damping_vector(t, j0)[0], 0.7, 0);
  assert_int_equal(mbt_revolute_joint_set_default_damping(t, j0, -0.1), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_tree_last_error(t), "joint 'free_pin'");
  assert_near(mbt_joint_default_damping_vector(t, j0)[0], 0.7, 0);

  /* Default angle. */
  assert_int_equal(mbt_revolute_joint_get_default_angle(t, j0, &value), MBT_OK);
  assert_near(value, 0, 0);
  assert_int_equal(mbt_revolute_joint_set_default_angle(t, j0, 0.4), MBT_OK);
  assert_int_equal(mbt_revolute_joint_get_default_angle(t, j0, &value), MBT_OK);
  assert_near(value, 0.4, 0);
  assert_near(mbt_joint_default_positions(t, j0)[0], 0.4, 0);
  assert_int_equal(mbt_revolute_joint_set_default_angle(t, j0, INFINITY), MBT_ERR_INVALID_ARGUMENT);
  assert_near(mbt_joint_default_positions(t, j0)[0], 0.4, 0);

  /* Revolute-only functions on another type. */
  const int c = mbt_tree_add_rigid_body(t, "c", &M);
  const int p = mbt_tree_add_prismatic_joint(t, "slide", b, NULL, c, NULL, mbt_vec3_make(1, 0, 0), 0);
  assert_int_equal(mbt_revolute_joint_revolute_axis(t, p, &axis), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_tree_last_error(t), "joint 'slide' is prismatic, not revolute");
  assert_int_equal(mbt_revolute_joint_set_default_angle(t, p, 1), MBT_ERR_INVALID_ARGUMENT);
  assert_near(mbt_joint_default_positions(t, p)[0], 0, 0);

  /* Model data is frozen at finalize. */
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  assert_int_equal(mbt_revolute_joint_set_default_angle(t, j0, 1.0), MBT_ERR_FINALIZED);
  assert_contains(mbt_tree_last_error(t), "joint 'free_pin'");
  assert_int_equal(mbt_revolute_joint_set_default_damping(t, j0, 1.0), MBT_ERR_FINALIZED);
  assert_int_equal(mbt_joint_set_position_limits(t, j1, &vlo, &vhi, 1), MBT_ERR_FINALIZED);
  assert_near(mbt_joint_default_positions(t, j0)[0], 0.4, 0);
  mbt_tree_destroy(t);
}

/* RevoluteJoint state in a context: angle, rate, damping, AddInTorque. */
static void test_revolute_joint_context(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = tu_body_inertia();
  const int a = mbt_tree_add_rigid_body(t, "a", &M);
  const int b = mbt_tree_add_rigid_body(t, "b", &M);
  const int j0 = mbt_tree_add_revolute_joint(t, "j0", 0, NULL, a, NULL, mbt_vec3_make(0, 0, 1), 0.5);
  const int j1 = mbt_tree_add_universal_joint(t, "j1", a, NULL, b, NULL, (const mbt_real[]){0.1, 0.2});
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  mbt_context* ctx = mbt_context_create(t);
  mbt_real value;
  assert_int_equal(mbt_revolute_joint_set_angle(ctx, j0, 0.9), MBT_OK);
  assert_int_equal(mbt_revolute_joint_get_angle(ctx, j0, &value), MBT_OK);
  assert_near(value, 0.9, 0);
  assert_near(mbt_context_q(ctx)[mbt_joint_position_start(t, j0)], 0.9, 0);
  assert_int_equal(mbt_revolute_joint_set_angular_rate(ctx, j0, -1.25), MBT_OK);
  assert_int_equal(mbt_revolute_joint_get_angular_rate(ctx, j0, &value), MBT_OK);
  assert_near(value, -1.25, 0);
  assert_near(mbt_context_v(ctx)[mbt_joint_velocity_start(t, j0)], -1.25, 0);
  assert_int_equal(mbt_joint_get_one_position(ctx, j0, &value), MBT_OK);
  assert_near(value, 0.9, 0);
  assert_int_equal(mbt_joint_get_one_velocity(ctx, j0, &value), MBT_OK);
  assert_near(value, -1.25, 0);
  assert_int_equal(mbt_revolute_joint_get_angle(ctx, j1, &value), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_context_last_error(ctx), "joint 'j1' is universal, not revolute");
  assert_int_equal(mbt_revolute_joint_set_angle(ctx, 17, 0), MBT_ERR_NOT_FOUND);
  assert_contains(mbt_context_last_error(ctx), "unknown joint 17");
  assert_int_equal(mbt_joint_get_one_position(ctx, j1, &value), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_context_last_error(ctx), "joint 'j1'");

  /* Per-context damping starts at the default and is independent of it. */
  assert_int_equal(mbt_revolute_joint_get_damping(ctx, j0, &value), MBT_OK);
  assert_near(value, 0.5, 0);
  assert_int_equal(mbt_revolute_joint_set_damping(ctx, j0, 2.0), MBT_OK);
  assert_int_equal(mbt_revolute_joint_get_damping(ctx, j0, &value), MBT_OK);
  assert_near(value, 2.0, 0);
  assert_int_equal(mbt_revolute_joint_default_damping(t, j0, &value), MBT_OK);
  assert_near(value, 0.5, 0);
  assert_int_equal(mbt_revolute_joint_set_damping(ctx, j0, -1.0), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_context_last_error(ctx), "joint 'j0'");
  assert_near(mbt_joint_damping_vector(ctx, j0)[0], 2.0, 0);
  assert_near(mbt_joint_damping_vector(ctx, j1)[1], 0.2, 0);
  mbt_context* other = mbt_context_create(t);
  assert_near(mbt_joint_damping_vector(other, j0)[0], 0.5, 0);
  mbt_context_destroy(other);

  /* AddInTorque / AddInOneForce add into tau at the joint's velocity. */
  mbt_multibody_forces* forces = mbt_multibody_forces_create(t);
  forces->tau[0] = 1.0;
  assert_int_equal(mbt_revolute_joint_add_in_torque(ctx, j0, 3.0, forces), MBT_OK);
  assert_near(forces->tau[mbt_joint_velocity_start(t, j0)], 4.0, 0);
  assert_int_equal(mbt_joint_add_in_one_force(ctx, j1, 1, -2.5, forces), MBT_OK);
  assert_near(forces->tau[mbt_joint_velocity_start(t, j1) + 1], -2.5, 0);
  assert_near(forces->tau[mbt_joint_velocity_start(t, j1)], 0, 0);
  assert_int_equal(mbt_joint_add_in_one_force(ctx, j1, 2, 1.0, forces), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_context_last_error(ctx), "joint 'j1' has no dof 2");
  /* AddInDamping: tau −= d ⊙ v. */
  const mbt_real v1[2] = {0.5, -4.0};
  assert_int_equal(mbt_joint_set_velocities(ctx, j1, v1, 2), MBT_OK);
  mbt_multibody_forces_set_zero(forces);
  assert_int_equal(mbt_joint_add_in_damping(ctx, j1, forces), MBT_OK);
  assert_int_equal(mbt_joint_add_in_damping(ctx, j0, forces), MBT_OK);
  assert_near(forces->tau[mbt_joint_velocity_start(t, j1)], -0.1 * 0.5, 1e-16);
  assert_near(forces->tau[mbt_joint_velocity_start(t, j1) + 1], -0.2 * -4.0, 1e-16);
  assert_near(forces->tau[mbt_joint_velocity_start(t, j0)], -2.0 * -1.25, 1e-16);
  mbt_multibody_forces_destroy(forces);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(t);
}

/* AddInTorque's sign (right-hand rule): a positive torque about +z on a body at rest in zero
 * gravity gives a positive angular acceleration, and at the angle θ > 0 the body's x axis
 * has turned toward +y. */
static void test_revolute_torque_sign(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_rotational_inertia I = {0.1, 0.1, 0.2, 0, 0, 0};
  mbt_spatial_inertia M = mbt_spatial_inertia_from_com(1.0, mbt_vec3_make(0.5, 0, 0), &I);
  const int a = mbt_tree_add_rigid_body(t, "a", &M);
  const int j = mbt_tree_add_revolute_joint(t, "pin", 0, NULL, a, NULL, mbt_vec3_make(0, 0, 1), 0);
  assert_int_equal(mbt_tree_set_gravity(t, mbt_vec3_zero()), MBT_OK);
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  mbt_context* ctx = mbt_context_create(t);
  mbt_multibody_forces* forces = mbt_multibody_forces_create(t);
  assert_int_equal(mbt_revolute_joint_add_in_torque(ctx, j, 2.0, forces), MBT_OK);
  mbt_real vdot = 0;
  assert_int_equal(mbt_calc_forward_dynamics(t, ctx, forces->tau, NULL, &vdot), MBT_OK);
  /* I_zz about the axis = 0.2 + 1·0.5² = 0.45. */
  assert_near(vdot, 2.0 / 0.45, 1e-12);
  assert_int_equal(mbt_revolute_joint_set_angle(ctx, j, 0.3), MBT_OK);
  mbt_transform X_WA;
  assert_int_equal(mbt_context_body_pose_in_world(t, ctx, a, &X_WA), MBT_OK);
  assert_near(X_WA.R.m[1][0], sin(0.3), 1e-15);
  mbt_multibody_forces_destroy(forces);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(t);
}

/* Prismatic accessors. */
static void test_prismatic_joint(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = tu_body_inertia();
  const int a = mbt_tree_add_rigid_body(t, "a", &M);
  const int b = mbt_tree_add_rigid_body(t, "b", &M);
  const int r = mbt_tree_add_revolute_joint(t, "r", 0, NULL, a, NULL, mbt_vec3_make(1, 0, 0), 0);
  const int p = mbt_tree_add_prismatic_joint(t, "p", a, NULL, b, NULL, mbt_vec3_make(0, 0, 2), 0);
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  mbt_context* ctx = mbt_context_create(t);
  mbt_real x;
  assert_int_equal(mbt_prismatic_joint_set_translation(ctx, p, 0.125), MBT_OK);
  assert_int_equal(mbt_prismatic_joint_get_translation(ctx, p, &x), MBT_OK);
  assert_near(x, 0.125, 0);
  assert_near(mbt_joint_positions(ctx, p)[0], 0.125, 0);
  assert_int_equal(mbt_prismatic_joint_set_translation_rate(ctx, p, -3), MBT_OK);
  assert_int_equal(mbt_prismatic_joint_get_translation_rate(ctx, p, &x), MBT_OK);
  assert_near(x, -3, 0);
  assert_near(mbt_joint_velocities(ctx, p)[0], -3, 0);
  assert_int_equal(mbt_prismatic_joint_get_translation(ctx, r, &x), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_context_last_error(ctx), "joint 'r' is revolute, not prismatic");
  mbt_multibody_forces* forces = mbt_multibody_forces_create(t);
  assert_int_equal(mbt_prismatic_joint_add_in_force(ctx, p, 7, forces), MBT_OK);
  assert_near(forces->tau[mbt_joint_velocity_start(t, p)], 7, 0);
  assert_near(forces->tau[mbt_joint_velocity_start(t, r)], 0, 0);
  mbt_multibody_forces_destroy(forces);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(t);
}

/* Floating joint pose and velocity in a context. */
static void test_floating_joint(void** state) {
  (void)state;
  mbt_tree* t = mbt_tree_create();
  mbt_spatial_inertia M = tu_body_inertia();
  const int a = mbt_tree_add_rigid_body(t, "a", &M);
  const int j = mbt_tree_add_quaternion_floating_joint(t, "free", 0, NULL, a, NULL, NULL);
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  assert_false(mbt_tree_body_is_floating(t, a)); /* a joint made its mobilizer */
  mbt_context* ctx = mbt_context_create(t);
  mbt_transform X = {mbt_rotation_from_rpy(mbt_vec3_make(0.4, -1.1, 2.9)), {{1, -2, 3}}};
  assert_int_equal(mbt_floating_joint_set_pose(ctx, j, &X), MBT_OK);
  const mbt_real* q = mbt_joint_positions(ctx, j);
  assert_near(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], 1, 1e-15);
  assert_true(q[0] >= 0);
  assert_near(q[4], 1, 0);
  assert_near(q[6], 3, 0);
  mbt_transform back;
  assert_int_equal(mbt_floating_joint_get_pose(ctx, j, &back), MBT_OK);
  tu_assert_transform_near(&back, &X, 1e-14);
  mbt_transform X_WA;
  assert_int_equal(mbt_context_body_pose_in_world(t, ctx, a, &X_WA), MBT_OK);
  tu_assert_transform_near(&X_WA, &X, 1e-14);

  mbt_spatial_velocity V = {{{{0.1, 0.2, 0.3}}, {{-1, -2, -3}}}};
  assert_int_equal(mbt_floating_joint_set_spatial_velocity(ctx, j, &V), MBT_OK);
  for (int k = 0; k < 6; ++k) assert_near(mbt_joint_velocities(ctx, j)[k], V.coeffs[k], 0);

  mbt_transform bad = X;
  bad.R.m[0][0] = 2;
  mbt_real q_before[7];
  memcpy(q_before, q, sizeof q_before);
  assert_int_equal(mbt_floating_joint_set_pose(ctx, j, &bad), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_context_last_error(ctx), "joint 'free'");
  for (int k = 0; k < 7; ++k) assert_near(q[k], q_before[k], 0);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(t);
}

/* SetDefaultPose / GetDefaultPose: for a pose the joint can reach, q0 reproduces it. */
static void test_default_pose_round_trip(void** state) {
  (void)state;
  star s = make_star();
  mbt_tree* t = s.t;
  const mbt_real q_ref[MBT_JOINT_NUM_TYPES][7] = {
      {0},
      {0.7},
      {-0.3},
      {0.4, -0.6},
      {0.2, -0.1, 2.5},
      {0.3, -0.5, 1.2},
      {0.5, 0.5, -0.5, 0.5, 1.0, 2.0, -3.0},
      {5.0}, /* beyond π: the translation picks the turn */
  };
  for (int k = 0; k < MBT_JOINT_NUM_TYPES; ++k) {
    const int j = s.j[k];
    const int m = mbt_joint_mobilizer(t, j);
    mbt_transform X_FM;
    mbt_mobilizer_calc_across_mobilizer_transform(t, m, q_ref[k], &X_FM);
    assert_int_equal(mbt_joint_set_default_pose(t, j, &X_FM), MBT_OK);
    const mbt_real* q0 = mbt_joint_default_positions(t, j);
    for (int i = 0; i < mbt_joint_num_positions(t, j); ++i) assert_near(q0[i], q_ref[k][i], 1e-12);
    mbt_transform back;
    assert_int_equal(mbt_joint_get_default_pose(t, j, &back), MBT_OK);
    tu_assert_transform_near(&back, &X_FM, 1e-12);
  }
  /* A revolute joint takes the rotation about its axis of any pose (projection). */
  const int jr = s.j[MBT_JOINT_REVOLUTE];
  const mbt_vec3 axis = mbt_joint_axis(t, jr);
  mbt_transform X = {mbt_rotation_from_rpy(mbt_vec3_make(0, 0, 0)), {{5, 5, 5}}};
  /* R = rotation by 1.1 about the axis, computed by Rodrigues' formula. */
  const double th = 1.1, c = cos(th), sn = sin(th);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) {
      const double skew[3][3] = {{0, -axis.v[2], axis.v[1]}, {axis.v[2], 0, -axis.v[0]}, {-axis.v[1], axis.v[0], 0}};
      X.R.m[i][k] = (i == k ? c : 0) + sn * skew[i][k] + (1 - c) * axis.v[i] * axis.v[k];
    }
  assert_int_equal(mbt_joint_set_default_pose(t, jr, &X), MBT_OK);
  assert_near(mbt_joint_default_positions(t, jr)[0], 1.1, 1e-14);
  /* Errors. */
  mbt_transform bad = X;
  bad.p.v[0] = NAN;
  assert_int_equal(mbt_joint_set_default_pose(t, jr, &bad), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_tree_last_error(t), "joint 'revolute'");
  assert_near(mbt_joint_default_positions(t, jr)[0], 1.1, 1e-14);
  assert_int_equal(mbt_joint_set_default_pose(t, 99, &X), MBT_ERR_NOT_FOUND);
  mbt_tree_destroy(t);
}

static void test_default_positions_setter(void** state) {
  (void)state;
  star s = make_star();
  mbt_tree* t = s.t;
  const int jf = s.j[MBT_JOINT_QUATERNION_FLOATING];
  const mbt_real* q0 = mbt_joint_default_positions(t, jf);
  assert_near(q0[0], 1, 0);
  for (int k = 1; k < 7; ++k) assert_near(q0[k], 0, 0);
  /* The quaternion is stored normalized. */
  const mbt_real qf[7] = {2, 0, 0, 0, 1, 2, 3};
  assert_int_equal(mbt_joint_set_default_positions(t, jf, qf, 7), MBT_OK);
  assert_near(q0[0], 1, 0);
  assert_near(q0[6], 3, 0);
  const mbt_real zero_quat[7] = {0, 0, 0, 0, 1, 2, 3};
  assert_int_equal(mbt_joint_set_default_positions(t, jf, zero_quat, 7), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_tree_last_error(t), "joint 'floating'");
  assert_int_equal(mbt_joint_set_default_positions(t, jf, qf, 6), MBT_ERR_SIZE);
  const int ju = s.j[MBT_JOINT_UNIVERSAL];
  const mbt_real qu[2] = {0.1, NAN};
  assert_int_equal(mbt_joint_set_default_positions(t, ju, qu, 2), MBT_ERR_INVALID_ARGUMENT);
  assert_near(mbt_joint_default_positions(t, ju)[0], 0, 0);
  const mbt_real d2[2] = {0.5, 0.25}, dneg[2] = {0.5, -0.25};
  assert_int_equal(mbt_joint_set_default_damping_vector(t, ju, d2, 2), MBT_OK);
  assert_near(mbt_joint_default_damping_vector(t, ju)[1], 0.25, 0);
  assert_int_equal(mbt_joint_set_default_damping_vector(t, ju, dneg, 2), MBT_ERR_INVALID_ARGUMENT);
  assert_near(mbt_joint_default_damping_vector(t, ju)[1], 0.25, 0);
  mbt_tree_destroy(t);
}

/* Locks: locking zeroes the joint's velocities and flags them; per context. */
static void test_locks(void** state) {
  (void)state;
  star s = make_star();
  mbt_tree* t = s.t;
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  mbt_context* ctx = mbt_context_create(t);
  mbt_context* other = mbt_context_create(t);
  const int nv = mbt_tree_num_velocities(t);
  mbt_real v[32];
  assert_true(nv <= 32);
  for (int k = 0; k < nv; ++k) v[k] = k + 1;
  assert_int_equal(mbt_context_set_v(ctx, v, nv), MBT_OK);
  assert_int_equal(mbt_context_set_v(other, v, nv), MBT_OK);
  const int jb = s.j[MBT_JOINT_BALL_RPY];
  const int v0 = mbt_joint_velocity_start(t, jb);
  assert_false(mbt_joint_is_locked(ctx, jb));
  assert_false(ctx->any_locked);
  ctx->velocity_valid = true;
  assert_int_equal(mbt_joint_lock(ctx, jb), MBT_OK);
  assert_false(ctx->velocity_valid);
  assert_true(mbt_joint_is_locked(ctx, jb));
  assert_true(ctx->any_locked);
  for (int k = 0; k < nv; ++k) {
    const bool in_joint = k >= v0 && k < v0 + 3;
    assert_near(mbt_context_v(ctx)[k], in_joint ? 0 : k + 1, 0);
    assert_int_equal(ctx->v_locked[k], in_joint);
  }
  /* The other context is untouched. */
  assert_false(mbt_joint_is_locked(other, jb));
  assert_false(other->any_locked);
  for (int k = 0; k < nv; ++k) assert_near(mbt_context_v(other)[k], k + 1, 0);
  /* Two locks, one unlock. */
  const int jr = s.j[MBT_JOINT_REVOLUTE];
  assert_int_equal(mbt_joint_lock(ctx, jr), MBT_OK);
  assert_int_equal(mbt_joint_unlock(ctx, jb), MBT_OK);
  assert_false(mbt_joint_is_locked(ctx, jb));
  assert_true(ctx->any_locked);
  for (int k = v0; k < v0 + 3; ++k) assert_false(ctx->v_locked[k]);
  assert_true(ctx->v_locked[mbt_joint_velocity_start(t, jr)]);
  assert_int_equal(mbt_joint_unlock(ctx, jr), MBT_OK);
  assert_false(ctx->any_locked);
  /* A weld has no velocities; locking it is harmless. */
  assert_int_equal(mbt_joint_lock(ctx, s.j[MBT_JOINT_WELD]), MBT_OK);
  assert_true(mbt_joint_is_locked(ctx, s.j[MBT_JOINT_WELD]));
  assert_int_equal(mbt_joint_lock(ctx, 42), MBT_ERR_NOT_FOUND);
  assert_contains(mbt_context_last_error(ctx), "unknown joint 42");
  /* The default context has no locks. */
  mbt_tree_set_default_context(t, ctx);
  assert_false(ctx->any_locked);
  assert_false(mbt_joint_is_locked(ctx, s.j[MBT_JOINT_WELD]));
  mbt_context_destroy(other);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(t);
}

/* Per-joint q/v accessors in a context, with size errors. */
static void test_joint_state_accessors(void** state) {
  (void)state;
  star s = make_star();
  mbt_tree* t = s.t;
  assert_int_equal(mbt_tree_finalize(t), MBT_OK);
  mbt_context* ctx = mbt_context_create(t);
  const int jp = s.j[MBT_JOINT_PLANAR];
  const mbt_real q[3] = {0.1, 0.2, 0.3}, v[3] = {-1, -2, -3};
  assert_int_equal(mbt_joint_set_positions(ctx, jp, q, 3), MBT_OK);
  assert_int_equal(mbt_joint_set_velocities(ctx, jp, v, 3), MBT_OK);
  for (int k = 0; k < 3; ++k) {
    assert_near(mbt_context_q(ctx)[mbt_joint_position_start(t, jp) + k], q[k], 0);
    assert_near(mbt_context_v(ctx)[mbt_joint_velocity_start(t, jp) + k], v[k], 0);
    assert_near(mbt_joint_positions(ctx, jp)[k], q[k], 0);
  }
  const mbt_real q4[4] = {9, 9, 9, 9};
  assert_int_equal(mbt_joint_set_positions(ctx, jp, q4, 4), MBT_ERR_SIZE);
  assert_contains(mbt_context_last_error(ctx), "joint 'planar' has 3 values, got 4");
  assert_near(mbt_joint_positions(ctx, jp)[0], 0.1, 0);
  assert_int_equal(mbt_joint_set_velocities(ctx, jp, v, 2), MBT_ERR_SIZE);
  assert_null(mbt_joint_positions(ctx, -1));
  assert_null(mbt_joint_velocities(ctx, 100));
  const mbt_real d3[3] = {1, 2, 3};
  assert_int_equal(mbt_joint_set_damping_vector(ctx, jp, d3, 3), MBT_OK);
  assert_near(mbt_joint_damping_vector(ctx, jp)[2], 3, 0);
  assert_near(mbt_joint_default_damping_vector(t, jp)[2], 0, 0);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_builders_create_frames_and_mobilizers),
      cmocka_unit_test(test_suffixes),
      cmocka_unit_test(test_revolute_joint_model),
      cmocka_unit_test(test_revolute_joint_context),
      cmocka_unit_test(test_revolute_torque_sign),
      cmocka_unit_test(test_prismatic_joint),
      cmocka_unit_test(test_floating_joint),
      cmocka_unit_test(test_default_pose_round_trip),
      cmocka_unit_test(test_default_positions_setter),
      cmocka_unit_test(test_locks),
      cmocka_unit_test(test_joint_state_accessors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
