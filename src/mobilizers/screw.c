/* screw.c: rotation q about the unit axis â with translation h·q along â, where h is the
 * node's pitch per radian (screw_pitch/(2π)), Drake's ScrewMobilizer:
 *   R_FM = exp(q·[â]ₓ), p_FoMo_F = h·q·â, H_FM = [â; h·â], Ḣ_FM = 0,
 *   tau = â·tau_Mo_F + h·â·f_Mo_F, N = 1. */
#include "mobilizers/mobilizer_types.h"

void mbt__screw_calc_X_FM(const mbt_node* n, const mbt_real* q, mbt_transform* X_FM) {
  mbt_real s, c;
  mbt__sincos(q[0], &s, &c);
  X_FM->R = n->axis_k ? mbt__rot_coord_axis(n->axis_k, s, c) : mbt__rot_axis_angle(n->axis, s, c);
  X_FM->p = mbt_vec3_scale(n->axis, n->pitch * q[0]);
}
void mbt__screw_calc_H_FM(const mbt_node* n, const mbt_real* q, mbt_spatial_velocity* H) {
  (void)q;
  H[0].w = n->axis;
  H[0].v = mbt_vec3_scale(n->axis, n->pitch);
}
void mbt__screw_calc_V_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, mbt_spatial_velocity* V_FM) {
  (void)q;
  V_FM->w = mbt_vec3_scale(n->axis, v[0]);
  V_FM->v = mbt_vec3_scale(n->axis, n->pitch * v[0]);
}
void mbt__screw_calc_A_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, const mbt_real* vdot,
                          mbt_spatial_acceleration* A_FM) {
  (void)q; (void)v;
  const mbt_real vd = vdot ? vdot[0] : 0;
  A_FM->alpha = mbt_vec3_scale(n->axis, vd);
  A_FM->a = mbt_vec3_scale(n->axis, n->pitch * vd);
}
void mbt__screw_project_spatial_force(const mbt_node* n, const mbt_real* q, const mbt_spatial_force* F_Mo_F,
                                      mbt_real* tau) {
  (void)q;
  tau[0] = mbt_vec3_dot(n->axis, F_Mo_F->tau) + n->pitch * mbt_vec3_dot(n->axis, F_Mo_F->f);
}
