/* inverse_dynamics.c: seed CalcInverseDynamics by the recursive Newton-Euler algorithm
 * [Featherstone 2008, §5.3], in the seed's (Drake's) world-frame form:
 *   tau = M(q)·v̇ + C(q,v)·v − tau_app − Σ J_WBᵀ·Fapp_Bo_W. */
#include "algorithms/algorithms_internal.h"

void mbt__inverse_dynamics(const mbt_tree* tree, mbt_context* ctx, bool use_v, const mbt_real* vdot,
                           const mbt_spatial_force* Fapp_Bo_W, const mbt_real* tau_app,
                           mbt_spatial_acceleration* A_WB, mbt_spatial_force* F_BBo_W, mbt_real* tau) {
  /* Base to tip: A_WB = A_WP composed with A_PB_W (kinematics.c). */
  mbt__calc_spatial_accelerations(tree, ctx, use_v, vdot, A_WB);
  const mbt_position_cache* pc = &ctx->pc;
  const mbt_velocity_cache* vc = &ctx->vc;
  mbt_spatial_force* Fc = ctx->scratch_F;   /* Σ over children of F_CMc_W shifted to Bo */
  for (int node = 0; node < tree->num_nodes; ++node)
    for (int i = 0; i < 6; ++i) Fc[node].coeffs[i] = 0;

  /* Tip to base: F_BBo_W = M_Bo_W·A_WB + Fb_Bo_W − Fapp_Bo_W + Σ_children F_CCo_W shifted to Bo,
   * with the gyroscopic bias Fb_Bo_W = [w × (I_Bo·w); m·w × (w × p_BoBcm)];
   * tau = H_PB_Wᵀ·F_BBo_W − tau_app. */
  for (int node = tree->num_nodes - 1; node > 0; --node) {
    const mbt_node* n = &tree->nodes[node];
    const mbt_spatial_inertia* M = &pc->M_Bo_W[node];
    const mbt_spatial_acceleration* A = &A_WB[node];
    mbt_spatial_force F;
    mbt__spatial_inertia_mul(M, A->alpha, A->a, &F.tau, &F.f);
    if (use_v) {
      const mbt_vec3 w = vc->V_WB[node].w;
      const mbt_real m = M->mass;
      const mbt_vec3 Iw = mbt_vec3_scale(mbt__unit_inertia_mul(&M->G_SP_E, w), m);
      F.tau = mbt_vec3_add(F.tau, mbt_vec3_cross(w, Iw));
      F.f = mbt_vec3_axpy(F.f, m, mbt_vec3_cross(w, mbt_vec3_cross(w, M->p_PScm_E)));
    }
    for (int i = 0; i < 6; ++i) F.coeffs[i] += Fc[node].coeffs[i];
    if (Fapp_Bo_W)
      for (int i = 0; i < 6; ++i) F.coeffs[i] -= Fapp_Bo_W[node].coeffs[i];
    F_BBo_W[node] = F;
    if (n->parent_node > 0) mbt__spatial_force_add_shifted(&Fc[n->parent_node], &F, pc->p_PoBo_W[node]);
    const mbt_spatial_velocity* H = &pc->H_PB_W[n->v_start];
    mbt_real* t = tau + n->v_start;
    const mbt_real* ta = tau_app ? tau_app + n->v_start : NULL;
    for (int k = 0; k < n->nv; ++k) {
      const mbt_real tk = mbt__spatial_dot(H[k].coeffs, F.coeffs);
      t[k] = ta ? tk - ta[k] : tk;
    }
  }
  for (int i = 0; i < 6; ++i) F_BBo_W[0].coeffs[i] = 0;
}

int mbt_calc_inverse_dynamics(const mbt_tree* tree, mbt_context* ctx, const mbt_real* known_vdot,
                              const mbt_spatial_force* Fapp_Bo_W_array, const mbt_real* tau_applied,
                              mbt_spatial_acceleration* A_WB_array, mbt_spatial_force* F_BMo_W_array,
                              mbt_real* tau) {
  int st = mbt__check_tree_context(tree, ctx, "calc_inverse_dynamics");
  if (st) return st;
  if (!tau && tree->nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_inverse_dynamics: tau is NULL");
  mbt_spatial_acceleration* A_WB = A_WB_array ? A_WB_array : ctx->scratch_A;
  mbt_spatial_force* F_BBo_W = F_BMo_W_array ? F_BMo_W_array : ctx->scratch_F2;
  mbt__ensure_velocity_kinematics(tree, ctx);
  mbt__inverse_dynamics(tree, ctx, true, known_vdot, Fapp_Bo_W_array, tau_applied, A_WB, F_BBo_W, tau);
  if (F_BMo_W_array) {
    /* F_BMo_W: shift from Bo to Mo, tau_Mo = tau_Bo + p_MoBo_W × f. */
    for (int node = 1; node < tree->num_nodes; ++node) {
      const mbt_node* n = &tree->nodes[node];
      if (n->X_MB_is_identity) continue;
      mbt_spatial_force* F = &F_BMo_W_array[node];
      F->tau = mbt_vec3_add(F->tau, mbt_vec3_cross(mbt__p_MoBo_W(ctx, n, node), F->f));
    }
  }
  return MBT_OK;
}
