/* mbt/joints.h: joints (seed: Joint, RevoluteJoint) and their state in a context.
 *
 * A joint connects frame F on the parent body P to frame M on the child body B and
 * creates the mobilizer that grants their relative motion. X_PF gives F's pose in P, or
 * NULL for the body frame of P itself; X_BM likewise for M (the joint then adds fixed
 * frames named "<joint>_parent" and "<joint>_child"). Axes are expressed in F (= in M at
 * the zero configuration); any length, only the direction is used.
 *
 * Limits, default positions and default damping are model data (set before finalize);
 * damping and locks also live per context (mbt_joint_set_damping, mbt_joint_lock). */
#ifndef MBT_JOINTS_H
#define MBT_JOINTS_H

#include "mbt/forces.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  MBT_JOINT_WELD = 0,            /* 0 dofs */
  MBT_JOINT_REVOLUTE,            /* 1: angle about axis */
  MBT_JOINT_PRISMATIC,           /* 1: translation along axis */
  MBT_JOINT_UNIVERSAL,           /* 2: about F's x, then M's y */
  MBT_JOINT_PLANAR,              /* 3: x, y, θ in F's xy plane */
  MBT_JOINT_BALL_RPY,            /* 3: roll, pitch, yaw (SpaceXYZ) */
  MBT_JOINT_QUATERNION_FLOATING, /* 7 positions, 6 velocities */
  MBT_JOINT_SCREW,               /* 1: rotation about axis with coupled translation */
  MBT_JOINT_NUM_TYPES
} mbt_joint_type;

/* Largest nq and nv of any joint. */
#define MBT_JOINT_MAX_NQ 7
#define MBT_JOINT_MAX_NV 6

/* ---- adding joints (before finalize) -------------------------------------------------- */
/* Seed RevoluteJoint, first constructor: no position limits (±∞), damping >= 0 in N·m·s. */
int mbt_tree_add_revolute_joint(mbt_tree* tree, const char* name, int parent_body,
                                const mbt_transform* X_PF, int child_body, const mbt_transform* X_BM,
                                mbt_vec3 axis, mbt_real damping);
/* Seed RevoluteJoint, second constructor: position limits lower <= upper (may be ±∞). */
int mbt_tree_add_revolute_joint_with_limits(mbt_tree* tree, const char* name, int parent_body,
                                            const mbt_transform* X_PF, int child_body,
                                            const mbt_transform* X_BM, mbt_vec3 axis,
                                            mbt_real pos_lower_limit, mbt_real pos_upper_limit,
                                            mbt_real damping);
int mbt_tree_add_prismatic_joint(mbt_tree* tree, const char* name, int parent_body,
                                 const mbt_transform* X_PF, int child_body, const mbt_transform* X_BM,
                                 mbt_vec3 axis, mbt_real damping);
int mbt_tree_add_weld_joint(mbt_tree* tree, const char* name, int parent_body,
                            const mbt_transform* X_PF, int child_body, const mbt_transform* X_BM);
/* damping: nv values (>= 0) or NULL for none. */
int mbt_tree_add_universal_joint(mbt_tree* tree, const char* name, int parent_body,
                                 const mbt_transform* X_PF, int child_body, const mbt_transform* X_BM,
                                 const mbt_real* damping);
int mbt_tree_add_planar_joint(mbt_tree* tree, const char* name, int parent_body,
                              const mbt_transform* X_PF, int child_body, const mbt_transform* X_BM,
                              const mbt_real* damping);
int mbt_tree_add_ball_rpy_joint(mbt_tree* tree, const char* name, int parent_body,
                                const mbt_transform* X_PF, int child_body, const mbt_transform* X_BM,
                                const mbt_real* damping);
int mbt_tree_add_quaternion_floating_joint(mbt_tree* tree, const char* name, int parent_body,
                                           const mbt_transform* X_PF, int child_body,
                                           const mbt_transform* X_BM, const mbt_real* damping);
/* screw_pitch: translation along the axis per full revolution, in m. */
int mbt_tree_add_screw_joint(mbt_tree* tree, const char* name, int parent_body,
                             const mbt_transform* X_PF, int child_body, const mbt_transform* X_BM,
                             mbt_vec3 axis, mbt_real screw_pitch, mbt_real damping);

/* ---- the Joint interface -------------------------------------------------------------- */
int mbt_tree_num_joints(const mbt_tree* tree);
int mbt_tree_joint_by_name(const mbt_tree* tree, const char* name);
const char* mbt_joint_name(const mbt_tree* tree, int joint);
mbt_joint_type mbt_joint_type_of(const mbt_tree* tree, int joint);
/* "weld", "revolute", "prismatic", "universal", "planar", "ball_rpy",
 * "quaternion_floating", "screw" (RevoluteJoint::kTypeName is "revolute"). */
const char* mbt_joint_type_name(const mbt_tree* tree, int joint);
const char* mbt_joint_type_to_string(mbt_joint_type type);
int mbt_joint_parent_body(const mbt_tree* tree, int joint);
int mbt_joint_child_body(const mbt_tree* tree, int joint);
int mbt_joint_frame_on_parent(const mbt_tree* tree, int joint);   /* F */
int mbt_joint_frame_on_child(const mbt_tree* tree, int joint);    /* M */
int mbt_joint_mobilizer(const mbt_tree* tree, int joint);
int mbt_joint_position_start(const mbt_tree* tree, int joint);    /* after finalize */
int mbt_joint_velocity_start(const mbt_tree* tree, int joint);
int mbt_joint_num_positions(const mbt_tree* tree, int joint);
int mbt_joint_num_velocities(const mbt_tree* tree, int joint);
bool mbt_joint_can_rotate(const mbt_tree* tree, int joint);
bool mbt_joint_can_translate(const mbt_tree* tree, int joint);
/* Suffix naming position/velocity k: revolute "q"/"w", prismatic "x"/"v", planar "x","y",
 * "qz" / "vx","vy","wz", ball_rpy "qx","qy","qz" / "wx","wy","wz", quaternion floating
 * "qw","qx","qy","qz","x","y","z" / "wx","wy","wz","vx","vy","vz", ... NULL if out of range. */
const char* mbt_joint_position_suffix(const mbt_tree* tree, int joint, int k);
const char* mbt_joint_velocity_suffix(const mbt_tree* tree, int joint, int k);
/* The axis (unit) of a revolute, prismatic or screw joint. */
mbt_vec3 mbt_joint_axis(const mbt_tree* tree, int joint);
mbt_real mbt_joint_screw_pitch(const mbt_tree* tree, int joint);

/* Limits: arrays of nq (positions) or nv (velocities, accelerations). Default ±∞. */
const mbt_real* mbt_joint_position_lower_limits(const mbt_tree* tree, int joint);
const mbt_real* mbt_joint_position_upper_limits(const mbt_tree* tree, int joint);
const mbt_real* mbt_joint_velocity_lower_limits(const mbt_tree* tree, int joint);
const mbt_real* mbt_joint_velocity_upper_limits(const mbt_tree* tree, int joint);
const mbt_real* mbt_joint_acceleration_lower_limits(const mbt_tree* tree, int joint);
const mbt_real* mbt_joint_acceleration_upper_limits(const mbt_tree* tree, int joint);
/* Setters check sizes (n == nq or nv), NaN, and lower <= upper. */
int mbt_joint_set_position_limits(mbt_tree* tree, int joint, const mbt_real* lower, const mbt_real* upper, int n);
int mbt_joint_set_velocity_limits(mbt_tree* tree, int joint, const mbt_real* lower, const mbt_real* upper, int n);
int mbt_joint_set_acceleration_limits(mbt_tree* tree, int joint, const mbt_real* lower, const mbt_real* upper, int n);
/* Default positions q0 (nq); zero configuration unless set. */
const mbt_real* mbt_joint_default_positions(const mbt_tree* tree, int joint);
int mbt_joint_set_default_positions(mbt_tree* tree, int joint, const mbt_real* q0, int n);
/* Seed SetDefaultPose/GetDefaultPose: q0 whose X_FM best matches X_FM (exact for floating
 * joints; projected onto the joint's motion for the others). */
int mbt_joint_set_default_pose(mbt_tree* tree, int joint, const mbt_transform* X_FM);
int mbt_joint_get_default_pose(const mbt_tree* tree, int joint, mbt_transform* X_FM);
/* Default damping (nv values, >= 0). */
const mbt_real* mbt_joint_default_damping_vector(const mbt_tree* tree, int joint);
int mbt_joint_set_default_damping_vector(mbt_tree* tree, int joint, const mbt_real* damping, int n);

/* ---- joint state in a context ---------------------------------------------------------- */
const mbt_real* mbt_joint_positions(const mbt_context* ctx, int joint);    /* nq values */
const mbt_real* mbt_joint_velocities(const mbt_context* ctx, int joint);   /* nv values */
int mbt_joint_set_positions(mbt_context* ctx, int joint, const mbt_real* q, int n);
int mbt_joint_set_velocities(mbt_context* ctx, int joint, const mbt_real* v, int n);
/* Seed GetOnePosition/GetOneVelocity: for 1-dof joints only (NaN is never returned: the
 * status says). */
int mbt_joint_get_one_position(const mbt_context* ctx, int joint, mbt_real* q);
int mbt_joint_get_one_velocity(const mbt_context* ctx, int joint, mbt_real* v);
/* Per-context damping (nv values). */
const mbt_real* mbt_joint_damping_vector(const mbt_context* ctx, int joint);
int mbt_joint_set_damping_vector(mbt_context* ctx, int joint, const mbt_real* damping, int n);
/* Seed AddInOneForce: forces.tau[velocity_start + joint_dof] += joint_tau. */
int mbt_joint_add_in_one_force(const mbt_context* ctx, int joint, int joint_dof, mbt_real joint_tau,
                               mbt_multibody_forces* forces);
/* Seed AddInDamping: forces.tau −= damping ⊙ v for this joint's velocities. */
int mbt_joint_add_in_damping(const mbt_context* ctx, int joint, mbt_multibody_forces* forces);
/* Lock: the joint's velocities are set to zero and stay zero in the dynamics. */
int mbt_joint_lock(mbt_context* ctx, int joint);
int mbt_joint_unlock(mbt_context* ctx, int joint);
bool mbt_joint_is_locked(const mbt_context* ctx, int joint);

/* ---- RevoluteJoint -------------------------------------------------------------------- */
/* All return MBT_ERR_INVALID_ARGUMENT if `joint` is not revolute. */
int mbt_revolute_joint_revolute_axis(const mbt_tree* tree, int joint, mbt_vec3* axis);
int mbt_revolute_joint_default_damping(const mbt_tree* tree, int joint, mbt_real* damping);
int mbt_revolute_joint_set_default_damping(mbt_tree* tree, int joint, mbt_real damping);
int mbt_revolute_joint_position_lower_limit(const mbt_tree* tree, int joint, mbt_real* value);
int mbt_revolute_joint_position_upper_limit(const mbt_tree* tree, int joint, mbt_real* value);
int mbt_revolute_joint_velocity_lower_limit(const mbt_tree* tree, int joint, mbt_real* value);
int mbt_revolute_joint_velocity_upper_limit(const mbt_tree* tree, int joint, mbt_real* value);
int mbt_revolute_joint_acceleration_lower_limit(const mbt_tree* tree, int joint, mbt_real* value);
int mbt_revolute_joint_acceleration_upper_limit(const mbt_tree* tree, int joint, mbt_real* value);
int mbt_revolute_joint_get_default_angle(const mbt_tree* tree, int joint, mbt_real* angle);
int mbt_revolute_joint_set_default_angle(mbt_tree* tree, int joint, mbt_real angle);
int mbt_revolute_joint_get_angle(const mbt_context* ctx, int joint, mbt_real* angle);
int mbt_revolute_joint_set_angle(mbt_context* ctx, int joint, mbt_real angle);
int mbt_revolute_joint_get_angular_rate(const mbt_context* ctx, int joint, mbt_real* theta_dot);
int mbt_revolute_joint_set_angular_rate(mbt_context* ctx, int joint, mbt_real theta_dot);
int mbt_revolute_joint_get_damping(const mbt_context* ctx, int joint, mbt_real* damping);
int mbt_revolute_joint_set_damping(mbt_context* ctx, int joint, mbt_real damping);
/* Torque about the axis, right-hand rule: a positive torque tends to increase the angle. */
int mbt_revolute_joint_add_in_torque(const mbt_context* ctx, int joint, mbt_real torque,
                                     mbt_multibody_forces* forces);
#define MBT_REVOLUTE_JOINT_TYPE_NAME "revolute"

/* Matching 1-dof accessors for prismatic and screw joints (translation / rotation). */
int mbt_prismatic_joint_get_translation(const mbt_context* ctx, int joint, mbt_real* x);
int mbt_prismatic_joint_set_translation(mbt_context* ctx, int joint, mbt_real x);
int mbt_prismatic_joint_get_translation_rate(const mbt_context* ctx, int joint, mbt_real* xdot);
int mbt_prismatic_joint_set_translation_rate(mbt_context* ctx, int joint, mbt_real xdot);
int mbt_prismatic_joint_add_in_force(const mbt_context* ctx, int joint, mbt_real force,
                                     mbt_multibody_forces* forces);
/* Floating joints: the pose X_FM and spatial velocity V_FM_F of M in F. */
int mbt_floating_joint_get_pose(const mbt_context* ctx, int joint, mbt_transform* X_FM);
int mbt_floating_joint_set_pose(mbt_context* ctx, int joint, const mbt_transform* X_FM);
int mbt_floating_joint_set_spatial_velocity(mbt_context* ctx, int joint, const mbt_spatial_velocity* V_FM_F);

#ifdef __cplusplus
}
#endif
#endif /* MBT_JOINTS_H */
