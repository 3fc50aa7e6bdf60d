/* prismatic.c: translation by q along the unit axis â, Drake's PrismaticMobilizer:
 *   R_FM = I, p_FoMo_F = q·â, H_FM = [0; â], Ḣ_FM = 0, tau = â·f_Mo_F, N = 1. */
#include "mobilizers/mobilizer_types.h"

void mbt__prismatic_calc_X_FM(const mbt_node* n, const mbt_real* q, mbt_transform* X_FM) {
  X_FM->R = mbt_mat3_identity();
  X_FM->p = mbt_vec3_scale(n->axis, q[0]);
}
void mbt__prismatic_calc_H_FM(const mbt_node* n, const mbt_real* q, mbt_spatial_velocity* H) {
  (void)q;
  H[0].w = mbt_vec3_zero();
  H[0].v = n->axis;
}
void mbt__prismatic_calc_V_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, mbt_spatial_velocity* V_FM) {
  (void)q;
  V_FM->w = mbt_vec3_zero();
  V_FM->v = mbt_vec3_scale(n->axis, v[0]);
}
void mbt__prismatic_calc_A_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, const mbt_real* vdot,
                              mbt_spatial_acceleration* A_FM) {
  (void)q; (void)v;
  A_FM->alpha = mbt_vec3_zero();
  A_FM->a = vdot ? mbt_vec3_scale(n->axis, vdot[0]) : mbt_vec3_zero();
}
void mbt__prismatic_project_spatial_force(const mbt_node* n, const mbt_real* q, const mbt_spatial_force* F_Mo_F,
                                          mbt_real* tau) {
  (void)q;
  tau[0] = mbt_vec3_dot(n->axis, F_Mo_F->f);
}
