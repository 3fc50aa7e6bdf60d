/* bias.c: seed CalcBiasTerm C(q,v)·v and the generalized forces of gravity tau_g(q). */
#include "algorithms/algorithms_internal.h"

/* C(q,v)·v = inverse dynamics with v̇ = 0 and no applied forces. */
int mbt_calc_bias_term(const mbt_tree* tree, mbt_context* ctx, mbt_real* Cv) {
  int st = mbt__check_tree_context(tree, ctx, "calc_bias_term");
  if (st) return st;
  if (!Cv && tree->nv > 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_bias_term: Cv is NULL");
  mbt__ensure_velocity_kinematics(tree, ctx);
  mbt__inverse_dynamics(tree, ctx, true, NULL, NULL, NULL, ctx->scratch_A, ctx->scratch_F2, Cv);
  return MBT_OK;
}

/* tau_g = Σ_B J_WBcmᵀ·m_B·g, tip to base: Fg_Bo_W = [p_BoBcm_W × m·g; m·g], summed over the
 * subtree at Bo, then tau_g = H_PB_Wᵀ·F. */
int mbt_calc_gravity_generalized_forces(const mbt_tree* tree, mbt_context* ctx, mbt_real* tau_g) {
  int st = mbt__check_tree_context(tree, ctx, "calc_gravity_generalized_forces");
  if (st) return st;
  if (!tau_g && tree->nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_gravity_generalized_forces: tau_g is NULL");
  mbt__ensure_position_kinematics(tree, ctx);
  mbt_vec3 g = mbt_vec3_zero();
  for (int e = 0; e < tree->num_forces; ++e)
    if (tree->forces[e].type == MBT_FORCE_UNIFORM_GRAVITY) g = mbt_vec3_add(g, tree->forces[e].u.gravity.g_W);
  const mbt_position_cache* pc = &ctx->pc;
  mbt_spatial_force* Fs = ctx->scratch_F;
  for (int node = 0; node < tree->num_nodes; ++node)
    for (int i = 0; i < 6; ++i) Fs[node].coeffs[i] = 0;
  for (int node = tree->num_nodes - 1; node > 0; --node) {
    const mbt_node* n = &tree->nodes[node];
    const mbt_spatial_inertia* M = &pc->M_Bo_W[node];
    mbt_spatial_force* F = &Fs[node];
    const mbt_vec3 mg = mbt_vec3_scale(g, M->mass);
    F->tau = mbt_vec3_add(F->tau, mbt_vec3_cross(M->p_PScm_E, mg));
    F->f = mbt_vec3_add(F->f, mg);
    if (n->parent_node > 0) mbt__spatial_force_add_shifted(&Fs[n->parent_node], F, pc->p_PoBo_W[node]);
    const mbt_spatial_velocity* H = &pc->H_PB_W[n->v_start];
    for (int k = 0; k < n->nv; ++k) tau_g[n->v_start + k] = mbt__spatial_dot(H[k].coeffs, F->coeffs);
  }
  return MBT_OK;
}
