/* mass_matrix.c: the mass matrix M(q) by the composite-rigid-body algorithm [Featherstone
 * 2008, §6.2] and by inverse dynamics (seed CalcMassMatrixViaInverseDynamics). */
#include <string.h>
#include "algorithms/algorithms_internal.h"

/* CRBA in W about the body origins:
 *   Ic_B = M_Bo_W + Σ_children Ic_C shifted from Co to Bo (tip to base);
 *   for each column k of node i: F = Ic_i·H_k (a spatial force at Bo_i);
 *   M[k'][k] = M[k][k'] = H_k'ᵀ·F for the columns k' >= k of i, then, walking to the root, F is shifted to each
 *   ancestor's origin (tau += p_PoBo × f) and M[j][k] = M[k][j] = H_jᵀ·F for its columns j.
 * Entries between nodes that are neither ancestor nor descendant of each other are zero. */
int mbt_calc_mass_matrix(const mbt_tree* tree, mbt_context* ctx, mbt_real* M) {
  int st = mbt__check_tree_context(tree, ctx, "calc_mass_matrix");
  if (st) return st;
  if (!M && tree->nv > 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_mass_matrix: M is NULL");
  mbt__ensure_position_kinematics(tree, ctx);
  const mbt_position_cache* pc = &ctx->pc;
  const int nv = tree->nv;
  mbt_spatial_inertia* Ic = ctx->scratch_I;
  for (int node = 0; node < tree->num_nodes; ++node) Ic[node] = pc->M_Bo_W[node];
  for (int node = tree->num_nodes - 1; node > 0; --node) {
    const int parent = tree->nodes[node].parent_node;
    if (parent > 0) mbt__spatial_inertia_add_shifted(&Ic[parent], &Ic[node], pc->p_PoBo_W[node]);
  }
  if (nv > 0) memset(M, 0, sizeof(mbt_real) * (size_t)nv * (size_t)nv);
  const mbt_spatial_velocity* H = pc->H_PB_W;
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    for (int k = 0; k < n->nv; ++k) {
      const int ck = n->v_start + k;
      mbt_spatial_force F;
      mbt__spatial_inertia_mul(&Ic[node], H[ck].w, H[ck].v, &F.tau, &F.f);
      for (int kk = k; kk < n->nv; ++kk) {
        const int c = n->v_start + kk;
        const mbt_real Mck = mbt__spatial_dot(H[c].coeffs, F.coeffs);
        M[c * nv + ck] = Mck;
        M[ck * nv + c] = Mck;
      }
      int j = node;
      while (tree->nodes[j].parent_node > 0) {
        /* F at Bo_j → at Po_j (the parent's origin). */
        F.tau = mbt_vec3_add(F.tau, mbt_vec3_cross(pc->p_PoBo_W[j], F.f));
        j = tree->nodes[j].parent_node;
        const mbt_node* nj = &tree->nodes[j];
        for (int kj = 0; kj < nj->nv; ++kj) {
          const int c = nj->v_start + kj;
          const mbt_real Mjk = mbt__spatial_dot(H[c].coeffs, F.coeffs);
          M[c * nv + ck] = Mjk;
          M[ck * nv + c] = Mjk;
        }
      }
    }
  }
  return MBT_OK;
}

/* Column j of M = inverse dynamics with v̇ = e_j, v = 0 and no applied forces. */
int mbt_calc_mass_matrix_via_inverse_dynamics(const mbt_tree* tree, mbt_context* ctx, mbt_real* M) {
  int st = mbt__check_tree_context(tree, ctx, "calc_mass_matrix_via_inverse_dynamics");
  if (st) return st;
  const int nv = tree->nv;
  if (!M && nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_mass_matrix_via_inverse_dynamics: M is NULL");
  mbt__ensure_position_kinematics(tree, ctx);
  mbt_real* vdot = ctx->scratch_nv[0];
  mbt_real* col = ctx->scratch_nv[1];
  for (int i = 0; i < nv; ++i) vdot[i] = 0;
  for (int j = 0; j < nv; ++j) {
    vdot[j] = 1;
    mbt__inverse_dynamics(tree, ctx, false, vdot, NULL, NULL, ctx->scratch_A, ctx->scratch_F2, col);
    vdot[j] = 0;
    for (int i = 0; i < nv; ++i) M[i * nv + j] = col[i];
  }
  return MBT_OK;
}
