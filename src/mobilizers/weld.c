/* weld.c: the weld mobilizer, nq = nv = 0: X_FM = I, no H_FM columns, V_FM = A_FM = 0. */
#include "mobilizers/mobilizer_types.h"

void mbt__weld_calc_X_FM(const mbt_node* n, const mbt_real* q, mbt_transform* X_FM) {
  (void)n; (void)q;
  *X_FM = mbt_transform_identity();
}
void mbt__weld_calc_H_FM(const mbt_node* n, const mbt_real* q, mbt_spatial_velocity* H) {
  (void)n; (void)q; (void)H;
}
void mbt__weld_calc_V_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, mbt_spatial_velocity* V_FM) {
  (void)n; (void)q; (void)v;
  for (int i = 0; i < 6; ++i) V_FM->coeffs[i] = 0;
}
void mbt__weld_calc_A_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, const mbt_real* vdot,
                         mbt_spatial_acceleration* A_FM) {
  (void)n; (void)q; (void)v; (void)vdot;
  for (int i = 0; i < 6; ++i) A_FM->coeffs[i] = 0;
}
void mbt__weld_project_spatial_force(const mbt_node* n, const mbt_real* q, const mbt_spatial_force* F_Mo_F,
                                     mbt_real* tau) {
  (void)n; (void)q; (void)F_Mo_F; (void)tau;
}
