/* planar.c: Drake's PlanarMobilizer, q = [x, y, θ], p_FoMo_F = (x, y, 0), R_FM = Rz(θ),
 * v = [ẋ, ẏ, θ̇]: V_FM = [(0, 0, θ̇); (ẋ, ẏ, 0)]. H_FM is constant in F, so Ḣ_FM = 0 and
 * A_FM = [(0, 0, θ̈); (ẍ, ÿ, 0)]; tau = (f_x, f_y, tau_z); N = I. */
#include "mobilizers/mobilizer_types.h"

void mbt__planar_calc_X_FM(const mbt_node* n, const mbt_real* q, mbt_transform* X_FM) {
  (void)n;
  X_FM->R = mbt__rot_z(mbt_sin(q[2]), mbt_cos(q[2]));
  X_FM->p = mbt_vec3_make(q[0], q[1], 0);
}
void mbt__planar_calc_H_FM(const mbt_node* n, const mbt_real* q, mbt_spatial_velocity* H) {
  (void)n; (void)q;
  for (int k = 0; k < 3; ++k)
    for (int i = 0; i < 6; ++i) H[k].coeffs[i] = 0;
  H[0].coeffs[3] = 1;
  H[1].coeffs[4] = 1;
  H[2].coeffs[2] = 1;
}
void mbt__planar_calc_V_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, mbt_spatial_velocity* V_FM) {
  (void)n; (void)q;
  V_FM->w = mbt_vec3_make(0, 0, v[2]);
  V_FM->v = mbt_vec3_make(v[0], v[1], 0);
}
void mbt__planar_calc_A_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, const mbt_real* vdot,
                           mbt_spatial_acceleration* A_FM) {
  (void)n; (void)q; (void)v;
  if (vdot) {
    A_FM->alpha = mbt_vec3_make(0, 0, vdot[2]);
    A_FM->a = mbt_vec3_make(vdot[0], vdot[1], 0);
  } else {
    A_FM->alpha = mbt_vec3_zero();
    A_FM->a = mbt_vec3_zero();
  }
}
void mbt__planar_project_spatial_force(const mbt_node* n, const mbt_real* q, const mbt_spatial_force* F_Mo_F,
                                       mbt_real* tau) {
  (void)n; (void)q;
  tau[0] = F_Mo_F->f.v[0];
  tau[1] = F_Mo_F->f.v[1];
  tau[2] = F_Mo_F->tau.v[2];
}
