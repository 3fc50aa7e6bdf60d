/* mbt/kinematics.h: position, velocity and acceleration kinematics; frame queries;
 * Jacobians; center of mass; momentum.
 *
 * Every function reads a finalized tree and a context, writes into caller-owned outputs
 * or the context's caches, and never allocates. Per-body arrays are indexed by body node
 * (mbt_tree_body_node). Matrices are row-major: M[i*ncols + j]. Functions return MBT_OK or
 * a negative status with the message in mbt_context_last_error(). The kinematics caches
 * are computed on demand when stale, so the explicit Calc*Cache calls are only needed
 * to force a computation (for example in a benchmark). */
#ifndef MBT_KINEMATICS_H
#define MBT_KINEMATICS_H

#include "mbt/joints.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Forward kinematics: the position kinematics cache, from which mbt_context_body_pose_in_world
 * gives the pose X_WB of any body. */
int mbt_calc_forward_kinematics(const mbt_tree* tree, mbt_context* ctx);
/* Seed CalcPositionKinematicsCache: the pose and the mobilizer's H columns of every moving body
 * (welded bodies merged into their moving ancestor); a body's X_WB, H_PB_W, M_Bo_W are derived
 * from it by the mbt_context_body_* queries. */
int mbt_calc_position_kinematics_cache(const mbt_tree* tree, mbt_context* ctx);
/* Seed CalcVelocityKinematicsCache: the spatial velocity of every moving body (V_WB of any body
 * by mbt_context_body_spatial_velocity_in_world). */
int mbt_calc_velocity_kinematics_cache(const mbt_tree* tree, mbt_context* ctx);
/* Seed CalcAccelerationKinematicsCache: A_WB for every body from known_vdot (nv), kept in
 * the context (mbt_context_spatial_acceleration_in_world reads it). */
int mbt_calc_acceleration_kinematics_cache(const mbt_tree* tree, mbt_context* ctx,
                                           const mbt_real* known_vdot);
/* Seed CalcSpatialAccelerationsFromVdot: A_WB_array[node] from known_vdot. */
int mbt_calc_spatial_accelerations_from_vdot(const mbt_tree* tree, mbt_context* ctx,
                                             const mbt_real* known_vdot,
                                             mbt_spatial_acceleration* A_WB_array);

/* Cached per-body results (computed on demand). body is a body index. */
int mbt_context_body_pose_in_world(const mbt_tree* tree, mbt_context* ctx, int body, mbt_transform* X_WB);
int mbt_context_body_spatial_velocity_in_world(const mbt_tree* tree, mbt_context* ctx, int body,
                                               mbt_spatial_velocity* V_WB);
/* A_WB from the last mbt_calc_acceleration_kinematics_cache call. */
int mbt_context_body_spatial_acceleration_in_world(const mbt_tree* tree, const mbt_context* ctx,
                                                   int body, mbt_spatial_acceleration* A_WB);
/* H_PB_W: the nv columns of the body's inboard mobilizer, V_PB_W = H_PB_W·v_B. */
int mbt_context_body_H_PB_W(const mbt_tree* tree, mbt_context* ctx, int body, mbt_spatial_velocity* H_PB_W);
/* M_Bo_W: the body's spatial inertia about Bo expressed in W. */
int mbt_context_body_spatial_inertia_in_world(const mbt_tree* tree, mbt_context* ctx, int body,
                                              mbt_spatial_inertia* M_Bo_W);

/* Seed CalcRelativeTransform: X_AB, the pose of frame B in frame A. */
int mbt_calc_relative_transform(const mbt_tree* tree, mbt_context* ctx, int frame_A, int frame_B,
                                mbt_transform* X_AB);
/* Seed CalcPointsPositions: p_BQi is 3×n, column i the point Qi (stored column-major,
 * p_BQi[3*i + k]); p_AQi likewise with n_out columns. MBT_ERR_SIZE if n_out != n. */
int mbt_calc_points_positions(const mbt_tree* tree, mbt_context* ctx, int frame_B, const mbt_real* p_BQi,
                              int n, int frame_A, mbt_real* p_AQi, int n_out);
/* V_WF: spatial velocity of frame F (at its origin) in W, expressed in W. */
int mbt_calc_frame_spatial_velocity_in_world(const mbt_tree* tree, mbt_context* ctx, int frame_F,
                                             mbt_spatial_velocity* V_WF);
/* J_WFp (6×nv, row-major): the geometric Jacobian of point Fp (p_FoFp_F in frame F) such
 * that V_WFp_W = J_WFp·v; rows [w; v]. */
int mbt_calc_jacobian_spatial_velocity(const mbt_tree* tree, mbt_context* ctx, int frame_F,
                                       mbt_vec3 p_FoFp_F, mbt_real* J_WFp);
/* Seed MapVelocityToQDot / MapQDotToVelocity for the whole tree at the context's q. */
int mbt_map_velocity_to_qdot(const mbt_tree* tree, const mbt_context* ctx, const mbt_real* v, mbt_real* qdot);
int mbt_map_qdot_to_velocity(const mbt_tree* tree, const mbt_context* ctx, const mbt_real* qdot, mbt_real* v);
/* Center of mass of all bodies but the world: p_WScm and its velocity v_WScm. A system
 * without mass gives MBT_ERR_SINGULAR. */
int mbt_calc_center_of_mass_position(const mbt_tree* tree, mbt_context* ctx, mbt_vec3* p_WScm);
int mbt_calc_center_of_mass_velocity(const mbt_tree* tree, mbt_context* ctx, mbt_vec3* v_WScm);
/* L_WSP_W: spatial momentum of all bodies about point P (p_WoP_W), expressed in W. */
int mbt_calc_spatial_momentum_in_world_about_point(const mbt_tree* tree, mbt_context* ctx, mbt_vec3 p_WoP_W,
                                                   mbt_spatial_momentum* L_WSP_W);

#ifdef __cplusplus
}
#endif
#endif /* MBT_KINEMATICS_H */
