/* bias.c: seed CalcBiasTerm C(q,v)·v and the generalized forces of gravity tau_g(q), both by
 * the local-frame recursive Newton-Euler algorithm (mbt__inverse_dynamics_local). */
#include "algorithms/algorithms_internal.h"

/* C(q,v)·v = inverse dynamics with v̇ = 0, no gravity and no applied forces. */
int mbt_calc_bias_term(const mbt_tree* tree, mbt_context* ctx, mbt_real* Cv) {
  int st = mbt__check_tree_context(tree, ctx, "calc_bias_term");
  if (st) return st;
  if (!Cv && tree->nv > 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_bias_term: Cv is NULL");
  mbt__inverse_dynamics_local(tree, ctx, ctx->v, NULL, mbt_vec3_zero(), NULL, Cv);
  return MBT_OK;
}

/* tau_g = Σ_B J_WBcmᵀ·m_B·g = −(inverse dynamics with v = 0, v̇ = 0 and gravity as the base
 * acceleration −g [Featherstone 2008, §5.3]). */
int mbt_calc_gravity_generalized_forces(const mbt_tree* tree, mbt_context* ctx, mbt_real* tau_g) {
  int st = mbt__check_tree_context(tree, ctx, "calc_gravity_generalized_forces");
  if (st) return st;
  if (!tau_g && tree->nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_gravity_generalized_forces: tau_g is NULL");
  mbt__inverse_dynamics_local(tree, ctx, NULL, NULL, ctx->g_W, NULL, tau_g);
  for (int i = 0; i < tree->nv; ++i) tau_g[i] = -tau_g[i];
  return MBT_OK;
}
