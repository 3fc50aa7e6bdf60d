/* mass_matrix.c: the mass matrix M(q) by the composite-rigid-body algorithm [Featherstone
 * 2008, §6.2] and by inverse dynamics (seed CalcMassMatrixViaInverseDynamics). */
#include <string.h>
#include "algorithms/algorithms_internal.h"

/* Ic about Bo += Ic_C about Co shifted by d = p_BoCo (parallel-axis theorem by moments, as the
 * sum of m·(|r|²·1 − r·rᵀ) over the mass points at r = d + r_C from Bo):
 *   m += m_C, h += h_C + m_C·d, K += K_C + m_C·(|d|²·1 − d·dᵀ) + 2·(d·h_C)·1 − d·h_Cᵀ − h_C·dᵀ. */
static inline void moments_add_shifted(mbt_inertia_moments* Ic, const mbt_inertia_moments* C, mbt_vec3 d) {
  const mbt_vec3 h = C->h;
  const mbt_vec3 md = mbt_vec3_scale(d, C->m);
  const mbt_real s = mbt_vec3_dot(md, d) + 2 * mbt_vec3_dot(d, h);
  const mbt_real dx = d.v[0], dy = d.v[1], dz = d.v[2], hx = h.v[0], hy = h.v[1], hz = h.v[2];
  Ic->K[0] += C->K[0] + s - md.v[0] * dx - 2 * dx * hx;
  Ic->K[1] += C->K[1] + s - md.v[1] * dy - 2 * dy * hy;
  Ic->K[2] += C->K[2] + s - md.v[2] * dz - 2 * dz * hz;
  Ic->K[3] += C->K[3] - md.v[0] * dy - dx * hy - hx * dy;
  Ic->K[4] += C->K[4] - md.v[0] * dz - dx * hz - hx * dz;
  Ic->K[5] += C->K[5] - md.v[1] * dz - dy * hz - hy * dz;
  Ic->h = mbt_vec3_add(Ic->h, mbt_vec3_add(h, md));
  Ic->m += C->m;
}

/* CRBA [Featherstone 2008, §6.2] in W, composite inertias about the body origins, products
 * about the world origin Wo:
 *   Ic_B = M_Bo_W + Σ_children Ic_C shifted from Co to Bo (tip to base, moments_add_shifted);
 *   for each column j of B: F_j = Ic_B·H_j = [K·w + h × v; m·v − h × w] at Bo, shifted to Wo:
 *   tau += p_WoBo × f; every column i at Wo: H_i = [w; v + p_WoBo_i × w];
 *   M[i][j] = M[j][i] = H_iᵀ·F_j for i = j and the columns before j in B and in B's ancestors:
 *   the path λ(j), λ(λ(j)), ... of ctx->v_parent.
 * Entries between nodes that are neither ancestor nor descendant of each other are zero. */
int mbt_calc_mass_matrix(const mbt_tree* tree, mbt_context* ctx, mbt_real* M) {
  int st = mbt__check_tree_context(tree, ctx, "calc_mass_matrix");
  if (st) return st;
  if (!M && tree->nv > 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_mass_matrix: M is NULL");
  mbt__ensure_position_kinematics(tree, ctx);
  const mbt_position_cache* pc = &ctx->pc;
  const int nv = tree->nv, nn = tree->num_nodes;
  const mbt_node* nodes = tree->nodes;
  const mbt_spatial_velocity* H = pc->H_PB_W;
  mbt_inertia_moments* Ic = ctx->scratch_Ic;
  mbt_spatial_velocity* H_Wo = ctx->scratch_H;
  const int* v_parent = ctx->v_parent;
  for (int node = 1; node < nn; ++node) {
    const mbt_node* n = &nodes[node];
    const mbt_spatial_inertia* Mb = &pc->M_Bo_W[node];
    const mbt_real m = Mb->mass;
    const mbt_unit_inertia* G = &Mb->G_SP_E;
    mbt_inertia_moments* I = &Ic[node];
    I->m = m;
    I->h = mbt_vec3_scale(Mb->p_PScm_E, m);
    I->K[0] = m * G->xx, I->K[1] = m * G->yy, I->K[2] = m * G->zz;
    I->K[3] = m * G->xy, I->K[4] = m * G->xz, I->K[5] = m * G->yz;
    const mbt_vec3 p_WoBo = pc->X_WB[node].p;
    for (int k = 0; k < n->nv; ++k) {
      const mbt_spatial_velocity* h = &H[n->v_start + k];
      H_Wo[n->v_start + k].w = h->w;
      H_Wo[n->v_start + k].v = mbt_vec3_add(h->v, mbt_vec3_cross(p_WoBo, h->w));
    }
  }
  if (nv > 0) memset(M, 0, sizeof(mbt_real) * (size_t)nv * (size_t)nv);
  for (int node = nn - 1; node > 0; --node) {
    const mbt_node* n = &nodes[node];
    const mbt_inertia_moments* I = &Ic[node];  /* complete: the children have been added */
    const mbt_vec3 p_WoBo = pc->X_WB[node].p;
    for (int k = 0; k < n->nv; ++k) {
      const int ck = n->v_start + k;
      const mbt_vec3 w = H[ck].w, v = H[ck].v;
      const mbt_vec3 Kw = mbt_vec3_make(I->K[0] * w.v[0] + I->K[3] * w.v[1] + I->K[4] * w.v[2],
                                        I->K[3] * w.v[0] + I->K[1] * w.v[1] + I->K[5] * w.v[2],
                                        I->K[4] * w.v[0] + I->K[5] * w.v[1] + I->K[2] * w.v[2]);
      mbt_spatial_force F;
      if (n->type == MBT_MOBILIZER_REVOLUTE && n->X_MB_is_identity) { /* v = 0 */
        F.tau = Kw;
        F.f = mbt_vec3_cross(w, I->h);
      } else {
        F.tau = mbt_vec3_add(Kw, mbt_vec3_cross(I->h, v));
        F.f = mbt_vec3_sub(mbt_vec3_scale(v, I->m), mbt_vec3_cross(I->h, w));
      }
      F.tau = mbt_vec3_add(F.tau, mbt_vec3_cross(p_WoBo, F.f));
      /* The diagonal, then the columns before it in the node and in its ancestors, along λ. */
      for (int c = ck; c >= 0; c = v_parent[c]) {
        const mbt_real Mck = mbt__spatial_dot(H_Wo[c].coeffs, F.coeffs);
        M[c * nv + ck] = Mck;
        M[ck * nv + c] = Mck;
      }
    }
    if (n->parent_node > 0) moments_add_shifted(&Ic[n->parent_node], I, pc->p_PoBo_W[node]);
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
