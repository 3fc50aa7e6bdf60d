/* inverse_dynamics.c: seed CalcInverseDynamics by the recursive Newton-Euler algorithm
 * [Featherstone 2008, §5.3], in the seed's (Drake's) world-frame form:
 *   tau = M(q)·v̇ + C(q,v)·v − tau_app − Σ J_WBᵀ·Fapp_Bo_W. */
#include "algorithms/algorithms_internal.h"

void mbt__inverse_dynamics(const mbt_tree* tree, mbt_context* ctx, bool use_v, const mbt_real* vdot,
                           const mbt_spatial_force* Fapp_Bo_W, const mbt_real* tau_app,
                           mbt_spatial_acceleration* A_WB, mbt_spatial_force* F_BBo_W, mbt_real* tau) {
  if (use_v) mbt__ensure_velocity_kinematics(tree, ctx);
  else mbt__ensure_position_kinematics(tree, ctx);
  const mbt_position_cache* pc = &ctx->pc;
  const mbt_velocity_cache* vc = &ctx->vc;
  const int nn = tree->num_nodes;

  /* Base to tip: A_WB = A_WP composed with A_PB_W (mbt__compose_A_WB), then the body's own
   * force F_BBo_W = M_Bo_W·A_WB + Fb_Bo_W − Fapp_Bo_W, with M_Bo_W = {m, p = p_BoBcm, G} and the
   * gyroscopic bias Fb_Bo_W = [w × (m·G·w); m·w × (w × p)]:
   *   tau_Bo = m·(G·alpha + w × (G·w) + p × a),  f = m·(a − p × alpha + w × (w × p)). */
  for (int i = 0; i < 6; ++i) A_WB[0].coeffs[i] = 0;
  for (int node = 1; node < nn; ++node) {
    const mbt_node* n = &tree->nodes[node];
    mbt_spatial_acceleration* A = &A_WB[node];
    mbt__compose_A_WB(ctx, n, node, use_v, vdot ? vdot + n->v_start : NULL, &A_WB[n->parent_node], A);
    const mbt_spatial_inertia* M = &pc->M_Bo_W[node];
    const mbt_real m = M->mass;
    const mbt_vec3 p = M->p_PScm_E;
    mbt_vec3 t = mbt_vec3_add(mbt__unit_inertia_mul(&M->G_SP_E, A->alpha), mbt_vec3_cross(p, A->a));
    mbt_vec3 f = mbt_vec3_sub(A->a, mbt_vec3_cross(p, A->alpha));
    if (use_v) {
      const mbt_vec3 w = vc->V_WB[node].w;
      t = mbt_vec3_add(t, mbt_vec3_cross(w, mbt__unit_inertia_mul(&M->G_SP_E, w)));
      f = mbt_vec3_add(f, mbt_vec3_cross(w, mbt_vec3_cross(w, p)));
    }
    mbt_spatial_force F;
    F.tau = mbt_vec3_scale(t, m);
    F.f = mbt_vec3_scale(f, m);
    if (Fapp_Bo_W)
      for (int i = 0; i < 6; ++i) F.coeffs[i] -= Fapp_Bo_W[node].coeffs[i];
    F_BBo_W[node] = F;
  }

  /* Tip to base: F_BBo_W += Σ_children F_CCo_W shifted to Bo (complete once every child, at
   * a higher node index, has been added); tau = H_PB_Wᵀ·F_BBo_W − tau_app. */
  for (int node = nn - 1; node > 0; --node) {
    const mbt_node* n = &tree->nodes[node];
    const mbt_spatial_force* F = &F_BBo_W[node];
    if (n->parent_node > 0) mbt__spatial_force_add_shifted(&F_BBo_W[n->parent_node], F, pc->p_PoBo_W[node]);
    const mbt_spatial_velocity* H = &pc->H_PB_W[n->v_start];
    mbt_real* t = tau + n->v_start;
    const mbt_real* ta = tau_app ? tau_app + n->v_start : NULL;
    if (n->type == MBT_MOBILIZER_REVOLUTE && n->X_MB_is_identity) {
      const mbt_real tk = mbt_vec3_dot(H->w, F->tau);  /* H_PB_W = [R_WF·â; 0] */
      t[0] = ta ? tk - ta[0] : tk;
    } else {
      for (int k = 0; k < n->nv; ++k) {
        const mbt_real tk = mbt__spatial_dot(H[k].coeffs, F->coeffs);
        t[k] = ta ? tk - ta[k] : tk;
      }
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
