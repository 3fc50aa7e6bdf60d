/* space_xyz.c: Drake's SpaceXYZMobilizer, q = [r, p, y] (roll, pitch, yaw), v = w_FM_F:
 *   R_FM = Rz(y)·Ry(p)·Rx(r), p_FoMo = 0, H_FM = [I; 0], Ḣ_FM = 0, tau = tau_Mo_F.
 * With w_FM_F = E(q)·q̇, E = [Rz(y)Ry(p)x̂, Rz(y)ŷ, ẑ] =
 *   [[cy·cp, −sy, 0], [sy·cp, cy, 0], [−sp, 0, 1]],
 * N⁺(q) = E (defined everywhere) and N(q) = E⁻¹ (w → rpy rates):
 *   ṙ = (cy·wx + sy·wy)/cp, ṗ = −sy·wx + cy·wy, ẏ = sp·(cy·wx + sy·wy)/cp + wz,
 * undefined at cp = 0 (gimbal lock). */
#include "mobilizers/mobilizer_types.h"

void mbt__space_xyz_calc_X_FM(const mbt_node* n, const mbt_real* q, mbt_transform* X_FM) {
  (void)n;
  const mbt_real sr = mbt_sin(q[0]), cr = mbt_cos(q[0]);
  const mbt_real sp = mbt_sin(q[1]), cp = mbt_cos(q[1]);
  const mbt_real sy = mbt_sin(q[2]), cy = mbt_cos(q[2]);
  mbt_mat3 R = {{{cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr},
                 {sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr},
                 {-sp, cp * sr, cp * cr}}};
  X_FM->R = R;
  X_FM->p = mbt_vec3_zero();
}
void mbt__space_xyz_calc_H_FM(const mbt_node* n, const mbt_real* q, mbt_spatial_velocity* H) {
  (void)n; (void)q;
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < 6; ++i) H[k].coeffs[i] = 0;
    H[k].coeffs[k] = 1;
  }
}
void mbt__space_xyz_calc_V_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, mbt_spatial_velocity* V_FM) {
  (void)n; (void)q;
  V_FM->w = mbt_vec3_make(v[0], v[1], v[2]);
  V_FM->v = mbt_vec3_zero();
}
void mbt__space_xyz_calc_A_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, const mbt_real* vdot,
                              mbt_spatial_acceleration* A_FM) {
  (void)n; (void)q; (void)v;
  A_FM->alpha = vdot ? mbt_vec3_make(vdot[0], vdot[1], vdot[2]) : mbt_vec3_zero();
  A_FM->a = mbt_vec3_zero();
}
void mbt__space_xyz_project_spatial_force(const mbt_node* n, const mbt_real* q, const mbt_spatial_force* F_Mo_F,
                                          mbt_real* tau) {
  (void)n; (void)q;
  for (int i = 0; i < 3; ++i) tau[i] = F_Mo_F->tau.v[i];
}

/* q̇ = N(q)·w. At gimbal lock (|cp| < MBT__GIMBAL_LOCK_TOLERANCE) N is undefined; this void
 * kernel then divides by ±tolerance instead of cp (finite, never NaN) and callers that can
 * report a status check mbt__mob_velocity_to_qdot_is_singular() first. */
void mbt__space_xyz_map_velocity_to_qdot(const mbt_real* q, const mbt_real* v, mbt_real* qdot) {
  const mbt_real sp = mbt_sin(q[1]), sy = mbt_sin(q[2]), cy = mbt_cos(q[2]);
  mbt_real cp = mbt_cos(q[1]);
  if (mbt_lt(mbt_abs(cp), MBT__GIMBAL_LOCK_TOLERANCE))
    cp = mbt_lt(cp, 0) ? -MBT__GIMBAL_LOCK_TOLERANCE : MBT__GIMBAL_LOCK_TOLERANCE;
  const mbt_real wx = v[0], wy = v[1], wz = v[2];
  const mbt_real rdot = (cy * wx + sy * wy) / cp;
  qdot[0] = rdot;
  qdot[1] = -sy * wx + cy * wy;
  qdot[2] = sp * rdot + wz;
}

/* w = E(q)·q̇: defined for every q. */
int mbt__space_xyz_map_qdot_to_velocity(const mbt_real* q, const mbt_real* qdot, mbt_real* v) {
  const mbt_real sp = mbt_sin(q[1]), cp = mbt_cos(q[1]), sy = mbt_sin(q[2]), cy = mbt_cos(q[2]);
  const mbt_real rd = qdot[0], pd = qdot[1], yd = qdot[2];
  v[0] = cy * cp * rd - sy * pd;
  v[1] = sy * cp * rd + cy * pd;
  v[2] = -sp * rd + yd;
  return MBT_OK;
}
