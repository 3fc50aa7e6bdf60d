/* quaternion_floating.c: Drake's QuaternionFloatingMobilizer, q = [qw qx qy qz x y z],
 * v = [w_FM_F; v_FMo_F]:
 *   R_FM = R(q_FM/|q_FM|), p_FoMo_F = (x, y, z), H_FM = I₆, Ḣ_FM = 0 (V_FM is expressed in F
 *   and taken at Mo, whose position in F is p), tau = F_Mo_F.
 *   N(q): q̇_FM = ½·(0, w_FM_F) ⊗ q_FM (w in F multiplies on the left), ṗ = v_FMo_F.
 *   N⁺(q): w_FM_F = 2·vec(q̇_FM ⊗ q_FM*)/|q_FM|², v = ṗ; with the division by |q_FM|²
 *   N⁺·N = I also for a quaternion that is not of unit length. */
#include "mobilizers/mobilizer_types.h"

void mbt__quaternion_floating_calc_X_FM(const mbt_node* n, const mbt_real* q, mbt_transform* X_FM) {
  (void)n;
  X_FM->R = mbt__rot_from_quat(q[0], q[1], q[2], q[3]);
  X_FM->p = mbt_vec3_make(q[4], q[5], q[6]);
}
void mbt__quaternion_floating_calc_H_FM(const mbt_node* n, const mbt_real* q, mbt_spatial_velocity* H) {
  (void)n; (void)q;
  for (int k = 0; k < 6; ++k) {
    for (int i = 0; i < 6; ++i) H[k].coeffs[i] = 0;
    H[k].coeffs[k] = 1;
  }
}
void mbt__quaternion_floating_calc_V_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v,
                                        mbt_spatial_velocity* V_FM) {
  (void)n; (void)q;
  for (int i = 0; i < 6; ++i) V_FM->coeffs[i] = v[i];
}
void mbt__quaternion_floating_calc_A_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v,
                                        const mbt_real* vdot, mbt_spatial_acceleration* A_FM) {
  (void)n; (void)q; (void)v;
  for (int i = 0; i < 6; ++i) A_FM->coeffs[i] = vdot ? vdot[i] : 0;
}
void mbt__quaternion_floating_project_spatial_force(const mbt_node* n, const mbt_real* q,
                                                    const mbt_spatial_force* F_Mo_F, mbt_real* tau) {
  (void)n; (void)q;
  for (int i = 0; i < 6; ++i) tau[i] = F_Mo_F->coeffs[i];
}

/* (0, w)⊗(qw, qv) = (−w·qv, qw·w + w × qv). */
void mbt__quaternion_floating_map_velocity_to_qdot(const mbt_real* q, const mbt_real* v, mbt_real* qdot) {
  const mbt_real qw = q[0], qx = q[1], qy = q[2], qz = q[3];
  const mbt_real wx = v[0], wy = v[1], wz = v[2];
  qdot[0] = -0.5 * (wx * qx + wy * qy + wz * qz);
  qdot[1] = 0.5 * (qw * wx + wy * qz - wz * qy);
  qdot[2] = 0.5 * (qw * wy + wz * qx - wx * qz);
  qdot[3] = 0.5 * (qw * wz + wx * qy - wy * qx);
  qdot[4] = v[3];
  qdot[5] = v[4];
  qdot[6] = v[5];
}

/* vec((ȧ, ḃ) ⊗ (qw, −qv)) = qw·ḃ − ȧ·qv + qv × ḃ; MBT_ERR_SINGULAR (v unchanged) for q_FM = 0. */
int mbt__quaternion_floating_map_qdot_to_velocity(const mbt_real* q, const mbt_real* qdot, mbt_real* v) {
  const mbt_real qw = q[0], qx = q[1], qy = q[2], qz = q[3];
  const mbt_real n2 = qw * qw + qx * qx + qy * qy + qz * qz;
  if (!mbt_lt(0, n2)) return MBT_ERR_SINGULAR;
  const mbt_real s = 2 / n2;
  const mbt_real a = qdot[0], bx = qdot[1], by = qdot[2], bz = qdot[3];
  v[0] = s * (qw * bx - a * qx + qy * bz - qz * by);
  v[1] = s * (qw * by - a * qy + qz * bx - qx * bz);
  v[2] = s * (qw * bz - a * qz + qx * by - qy * bx);
  v[3] = qdot[4];
  v[4] = qdot[5];
  v[5] = qdot[6];
  return MBT_OK;
}
