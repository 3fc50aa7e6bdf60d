/* energy.c: seed CalcKineticEnergy, K = ½·Σ_B V_WB·L_WBo with L_WBo = M_Bo_W·V_WB
 * (= ½·vᵀ·M(q)·v). */
#include "algorithms/algorithms_internal.h"

int mbt_calc_kinetic_energy(const mbt_tree* tree, mbt_context* ctx, mbt_real* K) {
  int st = mbt__check_tree_context(tree, ctx, "calc_kinetic_energy");
  if (st) return st;
  if (!K) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_kinetic_energy: K is NULL");
  mbt__ensure_velocity_kinematics(tree, ctx);
  mbt_real twice = 0;
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_spatial_velocity* V = &ctx->vc.V_WB[node];
    mbt_spatial_momentum L;
    mbt__spatial_inertia_mul(&ctx->pc.M_Bo_W[node], V->w, V->v, &L.h, &L.l);
    twice += mbt__spatial_dot(V->coeffs, L.coeffs);
  }
  *K = 0.5 * twice;
  return MBT_OK;
}
