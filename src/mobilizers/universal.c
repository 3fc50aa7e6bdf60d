/* universal.c: Drake's UniversalMobilizer, R_FM = Rx(q0)·Ry(q1), p_FoMo = 0:
 *   w_FM_F = q̇0·x̂ + q̇1·Rx(q0)·ŷ, H_FM = [[x̂; 0], [(0, c0, s0); 0]],
 *   Ḣ_FM·v = [q̇0·q̇1·(x̂ × Rx(q0)·ŷ); 0] = [q̇0·q̇1·(0, −s0, c0); 0], N = I. */
#include "mobilizers/mobilizer_types.h"

void mbt__universal_calc_X_FM(const mbt_node* n, const mbt_real* q, mbt_transform* X_FM) {
  (void)n;
  const mbt_real s0 = mbt_sin(q[0]), c0 = mbt_cos(q[0]), s1 = mbt_sin(q[1]), c1 = mbt_cos(q[1]);
  /* Rx(q0)·Ry(q1) */
  mbt_mat3 R = {{{c1, 0, s1}, {s0 * s1, c0, -s0 * c1}, {-c0 * s1, s0, c0 * c1}}};
  X_FM->R = R;
  X_FM->p = mbt_vec3_zero();
}
void mbt__universal_calc_H_FM(const mbt_node* n, const mbt_real* q, mbt_spatial_velocity* H) {
  (void)n;
  H[0].w = mbt_vec3_make(1, 0, 0);
  H[0].v = mbt_vec3_zero();
  H[1].w = mbt_vec3_make(0, mbt_cos(q[0]), mbt_sin(q[0]));
  H[1].v = mbt_vec3_zero();
}
void mbt__universal_calc_V_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, mbt_spatial_velocity* V_FM) {
  (void)n;
  V_FM->w = mbt_vec3_make(v[0], v[1] * mbt_cos(q[0]), v[1] * mbt_sin(q[0]));
  V_FM->v = mbt_vec3_zero();
}
void mbt__universal_calc_A_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, const mbt_real* vdot,
                              mbt_spatial_acceleration* A_FM) {
  (void)n;
  const mbt_real s0 = mbt_sin(q[0]), c0 = mbt_cos(q[0]);
  const mbt_real w01 = v[0] * v[1];
  const mbt_real vd0 = vdot ? vdot[0] : 0, vd1 = vdot ? vdot[1] : 0;
  A_FM->alpha = mbt_vec3_make(vd0, vd1 * c0 - w01 * s0, vd1 * s0 + w01 * c0);
  A_FM->a = mbt_vec3_zero();
}
void mbt__universal_project_spatial_force(const mbt_node* n, const mbt_real* q, const mbt_spatial_force* F_Mo_F,
                                          mbt_real* tau) {
  (void)n;
  const mbt_vec3 t = F_Mo_F->tau;
  tau[0] = t.v[0];
  tau[1] = mbt_cos(q[0]) * t.v[1] + mbt_sin(q[0]) * t.v[2];
}
