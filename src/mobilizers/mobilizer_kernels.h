/* mobilizer_kernels.h: the per-type kinematics of a mobilizer (not installed).
 *
 * One function per quantity, each a switch on the mobilizer type with a specialized path
 * per type (src/mobilizers/<type>.c holds each type's code). Inputs are the mobilizer's
 * own slices q (nq) and v, v̇ (nv). Frames: F inboard, M outboard; spatial quantities at Mo,
 * expressed in F. The node carries the type, axis and pitch. */
#ifndef MBT_MOBILIZER_KERNELS_H
#define MBT_MOBILIZER_KERNELS_H

#include "tree/tree_internal.h"

/* q = zero configuration (identity quaternion for floating), v = 0. */
void mbt__mob_set_zero_state(const mbt_node* n, mbt_real* q, mbt_real* v);
/* X_FM(q). */
void mbt__mob_calc_X_FM(const mbt_node* n, const mbt_real* q, mbt_transform* X_FM);
/* H_FM(q): nv columns, column k = V_FM for v = e_k. */
void mbt__mob_calc_H_FM(const mbt_node* n, const mbt_real* q, mbt_spatial_velocity* H_FM);
/* V_FM = H_FM(q)·v. */
void mbt__mob_calc_V_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, mbt_spatial_velocity* V_FM);
/* A_FM = H_FM(q)·v̇ + Ḣ_FM(q,v)·v (vdot may be NULL for zero). */
void mbt__mob_calc_A_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, const mbt_real* vdot,
                        mbt_spatial_acceleration* A_FM);
/* tau = H_FM(q)ᵀ·F_Mo_F. */
void mbt__mob_project_spatial_force(const mbt_node* n, const mbt_real* q, const mbt_spatial_force* F_Mo_F,
                                    mbt_real* tau);
/* q̇ = N(q)·v. */
void mbt__mob_map_velocity_to_qdot(const mbt_node* n, const mbt_real* q, const mbt_real* v, mbt_real* qdot);
/* v = N⁺(q)·q̇; MBT_ERR_SINGULAR where N has no left inverse. */
int mbt__mob_map_qdot_to_velocity(const mbt_node* n, const mbt_real* q, const mbt_real* qdot, mbt_real* v);
bool mbt__mob_can_rotate(mbt_mobilizer_type type);
bool mbt__mob_can_translate(mbt_mobilizer_type type);
/* Normalizes the quaternion of a floating mobilizer in q (no-op for other types). */
void mbt__mob_normalize_q(const mbt_node* n, mbt_real* q);

#endif /* MBT_MOBILIZER_KERNELS_H */
