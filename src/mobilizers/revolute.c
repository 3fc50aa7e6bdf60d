/* revolute.c: rotation by q about the unit axis â (â_F = â_M), Drake's RevoluteMobilizer:
 *   R_FM = exp(q·[â]ₓ), p_FoMo = 0, H_FM = [â; 0], Ḣ_FM = 0, tau = â·tau_Mo_F, N = 1. */
#include "mobilizers/mobilizer_types.h"

void mbt__revolute_calc_X_FM(const mbt_node* n, const mbt_real* q, mbt_transform* X_FM) {
  mbt_real s, c;
  mbt__sincos(q[0], &s, &c);
  X_FM->R = n->axis_k ? mbt__rot_coord_axis(n->axis_k, s, c) : mbt__rot_axis_angle(n->axis, s, c);
  X_FM->p = mbt_vec3_zero();
}
void mbt__revolute_calc_H_FM(const mbt_node* n, const mbt_real* q, mbt_spatial_velocity* H) {
  (void)q;
  H[0].w = n->axis;
  H[0].v = mbt_vec3_zero();
}
void mbt__revolute_calc_V_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, mbt_spatial_velocity* V_FM) {
  (void)q;
  V_FM->w = mbt_vec3_scale(n->axis, v[0]);
  V_FM->v = mbt_vec3_zero();
}
void mbt__revolute_calc_A_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, const mbt_real* vdot,
                             mbt_spatial_acceleration* A_FM) {
  (void)q; (void)v;
  A_FM->alpha = vdot ? mbt_vec3_scale(n->axis, vdot[0]) : mbt_vec3_zero();
  A_FM->a = mbt_vec3_zero();
}
void mbt__revolute_project_spatial_force(const mbt_node* n, const mbt_real* q, const mbt_spatial_force* F_Mo_F,
                                         mbt_real* tau) {
  (void)q;
  tau[0] = mbt_vec3_dot(n->axis, F_Mo_F->tau);
}
