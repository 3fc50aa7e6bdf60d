/* energy.c: seed CalcKineticEnergy, K = ½·Σ_B V_WB·L_WBo with L_WBo = M_Bo_W·V_WB
 * (= ½·vᵀ·M(q)·v), by local nodes: K = ½·Σ V_M·(I_Mo_W·V_M) with V_M = [w; v_Mo] at Mo and
 * I_Mo_W = I_Mo_M re-expressed by R_WM (the bodies welded to the world do not move). */
#include "algorithms/algorithms_internal.h"

int mbt_calc_kinetic_energy(const mbt_tree* tree, mbt_context* ctx, mbt_real* K) {
  int st = mbt__check_tree_context(tree, ctx, "calc_kinetic_energy");
  if (st) return st;
  if (!K) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_kinetic_energy: K is NULL");
  mbt__ensure_velocity_kinematics(tree, ctx);
  mbt_real twice = 0;
  for (int i = 1; i < tree->num_local_nodes; ++i) {
    const mbt_transform* X = &ctx->pc.X_WM[i];
    const mbt_spatial_velocity* V = &ctx->vc.V[i];
    mbt_inertia_moments I;
    mbt__moments_reexpress(&ctx->I_Mo_M[i], &X->R, &I);
    const mbt_vec3 v_Mo = mbt_vec3_add(V->v, mbt_vec3_cross(V->w, X->p));
    mbt_vec3 h, l;
    mbt__moments_mul(&I, V->w, v_Mo, &h, &l);
    twice += mbt_vec3_dot(V->w, h) + mbt_vec3_dot(v_Mo, l);
  }
  *K = 0.5 * twice;
  return MBT_OK;
}
