/* energy.c: seed CalcKineticEnergy, K = ½·Σ_B V_WB·L_WBo with L_WBo = M_Bo_W·V_WB
 * (= ½·vᵀ·M(q)·v), by local nodes: K = ½·Σ V_M·(I_Mo_M·V_M) with V_M = [w; v_Mo] at Mo expressed
 * in M (mbt__node_momentum_M; the bodies welded to the world do not move). */
#include "algorithms/algorithms_internal.h"

int mbt_calc_kinetic_energy(const mbt_tree* tree, mbt_context* ctx, mbt_real* K) {
  int st = mbt__check_tree_context(tree, ctx, "calc_kinetic_energy");
  if (st) return st;
  if (!K) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_kinetic_energy: K is NULL");
  mbt__ensure_velocity_kinematics(tree, ctx);
  mbt_real twice = 0;
  for (int i = 1; i < tree->num_local_nodes; ++i) {
    mbt_vec3 w, v, h, l;
    mbt__node_momentum_M(ctx, &ctx->I_Mo_M[i], i, &w, &v, &h, &l);
    twice += mbt_vec3_dot(w, h) + mbt_vec3_dot(v, l);
  }
  *K = 0.5 * twice;
  return MBT_OK;
}
