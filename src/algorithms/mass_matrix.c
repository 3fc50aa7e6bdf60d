/* mass_matrix.c: the mass matrix M(q) by the composite-rigid-body algorithm [Featherstone
 * 2008, §6.2] and by inverse dynamics (seed CalcMassMatrixViaInverseDynamics). */
#include <string.h>
#include "algorithms/algorithms_internal.h"
#include "mobilizers/mobilizer_types.h"

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

/* K' = R·K·Rᵀ, h' = R·h for the moments {m, h, K} of a body re-expressed by R: with A = R·K,
 * K'ᵢⱼ = Aᵢ·Rⱼ for the six entries i <= j (45 products). */
static inline void moments_reexpress(const mbt_inertia_moments* I, const mbt_mat3* R, mbt_inertia_moments* IR) {
  const mbt_real* K = I->K;
  const mbt_real k[3][3] = {{K[0], K[3], K[4]}, {K[3], K[1], K[5]}, {K[4], K[5], K[2]}};
  mbt_real A[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A[i][j] = R->m[i][0] * k[0][j] + R->m[i][1] * k[1][j] + R->m[i][2] * k[2][j];
#define MBT__ARt(i, j) (A[i][0] * R->m[j][0] + A[i][1] * R->m[j][1] + A[i][2] * R->m[j][2])
  IR->K[0] = MBT__ARt(0, 0), IR->K[1] = MBT__ARt(1, 1), IR->K[2] = MBT__ARt(2, 2);
  IR->K[3] = MBT__ARt(0, 1), IR->K[4] = MBT__ARt(0, 2), IR->K[5] = MBT__ARt(1, 2);
#undef MBT__ARt
  IR->h = mbt_mat3_mul_vec(R, I->h);
  IR->m = I->m;
}

/* The pose X_WM of a local node's frame M and its H columns at Wo in W, from its moving
 * ancestor's X_WA: R_WF = R_WA·R_AF, p_WFo = p_WAo + R_WA·p_AF, X_WM = X_WF·X_FM(q); a column
 * [w; v_Mo] of H_FM at Mo in F is [R_WF·w; R_WF·v_Mo + p_WoMo × R_WF·w] at Wo in W.
 * Revolute (about ẑ): R_WM = R_WF·R_z(q) (12 products), w = column z of R_WF, v_Mo = 0;
 * prismatic (along ẑ): R_WM = R_WF, p_FoMo = q·ẑ, w = 0, v_Mo = column z of R_WF. */
static inline void local_pose_and_H(const mbt_tree* tree, const mbt_context* ctx, const mbt_local_node* L,
                                    const mbt_transform* X_WA, mbt_transform* X_WM, mbt_spatial_velocity* H_Wo) {
  const mbt_mat3 R_WF = L->R_AF_is_identity ? X_WA->R : mbt_mat3_mul(&X_WA->R, &L->X_AF.R);
  const mbt_vec3 p_WFo = mbt_vec3_add(X_WA->p, mbt_mat3_mul_vec(&X_WA->R, L->X_AF.p));
  const mbt_vec3 z = mbt_vec3_make(R_WF.m[0][2], R_WF.m[1][2], R_WF.m[2][2]);
  const mbt_real* q = ctx->q + L->q_start;
  if (L->type == MBT_MOBILIZER_REVOLUTE) {
    const mbt_real sn = ctx->sin_q[L->q_start], cs = ctx->cos_q[L->q_start];
    for (int r = 0; r < 3; ++r) {
      X_WM->R.m[r][0] = cs * R_WF.m[r][0] + sn * R_WF.m[r][1];
      X_WM->R.m[r][1] = cs * R_WF.m[r][1] - sn * R_WF.m[r][0];
      X_WM->R.m[r][2] = R_WF.m[r][2];
    }
    X_WM->p = p_WFo;
    H_Wo->w = z;
    H_Wo->v = mbt_vec3_cross(p_WFo, z);
    return;
  }
  if (L->type == MBT_MOBILIZER_PRISMATIC) {
    X_WM->R = R_WF;
    X_WM->p = mbt_vec3_axpy(p_WFo, q[0], z);
    H_Wo->w = mbt_vec3_zero();
    H_Wo->v = z;
    return;
  }
  mbt_transform X_FM;
  mbt_spatial_velocity H_FM[6];
  const mbt_node* n = &tree->nodes[L->node];
  if (L->type == MBT_MOBILIZER_SCREW) {
    const mbt_real s = ctx->sin_q[L->q_start], c = ctx->cos_q[L->q_start];
    X_FM.R = n->axis_k ? mbt__rot_coord_axis(n->axis_k, s, c) : mbt__rot_axis_angle(n->axis, s, c);
    X_FM.p = mbt_vec3_scale(n->axis, n->pitch * q[0]);
  } else {
    mbt__mob_calc_X_FM(n, q, &X_FM);
  }
  mbt__mob_calc_H_FM(n, q, H_FM);
  X_WM->R = mbt_mat3_mul(&R_WF, &X_FM.R);
  X_WM->p = mbt_vec3_add(p_WFo, mbt_mat3_mul_vec(&R_WF, X_FM.p));
  for (int j = 0; j < L->nv; ++j) {
    const mbt_vec3 w = mbt_mat3_mul_vec(&R_WF, H_FM[j].w);
    H_Wo[j].w = w;
    H_Wo[j].v = mbt_vec3_add(mbt_mat3_mul_vec(&R_WF, H_FM[j].v), mbt_vec3_cross(X_WM->p, w));
  }
}

/* CRBA [Featherstone 2008, §6.2] in W over the local nodes (welded bodies merged into their
 * moving ancestor), composite inertias about each node's Mo, products about the world origin Wo:
 *   X_WM and the columns H_j at Wo of each node, base to tip (local_pose_and_H);
 *   Ic_M = I_Mo (re-expressed in W) + Σ_children Ic_C shifted from Co to Mo (tip to base);
 *   for each column j of the node: F_j = Ic_M·H_j at Mo = [K·w + h × v_Mo; m·v_Mo − h × w]
 *   (v_Mo = v_Wo − p_WoMo × w), shifted to Wo: tau += p_WoMo × f;
 *   M[i][j] = M[j][i] = H_iᵀ·F_j for i = j and the columns before j in the node and in its
 *   ancestors: the path λ(j), λ(λ(j)), ... of ctx->v_parent.
 * Entries between nodes that are neither ancestor nor descendant of each other are zero. */
int mbt_calc_mass_matrix(const mbt_tree* tree, mbt_context* ctx, mbt_real* M) {
  int st = mbt__check_tree_context(tree, ctx, "calc_mass_matrix");
  if (st) return st;
  if (!M && tree->nv > 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_mass_matrix: M is NULL");
  mbt__calc_joint_sincos(tree, ctx);
  const int nv = tree->nv, nl = tree->num_local_nodes;
  const mbt_local_node* nodes = tree->local_nodes;
  mbt_transform* X_WM = ctx->scratch_X_WM;
  mbt_inertia_moments* Ic = ctx->scratch_Ic;
  mbt_spatial_velocity* H_Wo = ctx->scratch_H;
  const int* v_parent = ctx->v_parent;
  /* Every entry is written below unless some velocity's λ is not the one before it (branches). */
  if (!ctx->v_parent_is_chain) memset(M, 0, sizeof(mbt_real) * (size_t)nv * (size_t)nv);
  X_WM[0] = mbt_transform_identity();
  for (int i = 1; i < nl; ++i) {
    const mbt_local_node* L = &nodes[i];
    local_pose_and_H(tree, ctx, L, &X_WM[L->parent], &X_WM[i], &H_Wo[L->v_start]);
    moments_reexpress(&ctx->I_Mo_M[i], &X_WM[i].R, &Ic[i]);
  }
  for (int i = nl - 1; i > 0; --i) {
    const mbt_local_node* L = &nodes[i];
    const mbt_inertia_moments* I = &Ic[i];  /* complete: the children have been added */
    const mbt_vec3 p_WoMo = X_WM[i].p;
    for (int k = 0; k < L->nv; ++k) {
      const int ck = L->v_start + k;
      const mbt_vec3 w = H_Wo[ck].w;
      const mbt_vec3 Kw = mbt_vec3_make(I->K[0] * w.v[0] + I->K[3] * w.v[1] + I->K[4] * w.v[2],
                                        I->K[3] * w.v[0] + I->K[1] * w.v[1] + I->K[5] * w.v[2],
                                        I->K[4] * w.v[0] + I->K[5] * w.v[1] + I->K[2] * w.v[2]);
      mbt_spatial_force F;
      if (L->type == MBT_MOBILIZER_REVOLUTE) { /* v_Mo = 0 */
        F.tau = Kw;
        F.f = mbt_vec3_cross(w, I->h);
      } else {
        const mbt_vec3 v = mbt_vec3_sub(H_Wo[ck].v, mbt_vec3_cross(p_WoMo, w));
        F.tau = mbt_vec3_add(Kw, mbt_vec3_cross(I->h, v));
        F.f = mbt_vec3_sub(mbt_vec3_scale(v, I->m), mbt_vec3_cross(I->h, w));
      }
      F.tau = mbt_vec3_add(F.tau, mbt_vec3_cross(p_WoMo, F.f));
      /* The diagonal, then the columns before it in the node and in its ancestors, along λ. */
      const mbt_real f0 = F.coeffs[0], f1 = F.coeffs[1], f2 = F.coeffs[2];
      const mbt_real f3 = F.coeffs[3], f4 = F.coeffs[4], f5 = F.coeffs[5];
      for (int c = ck; c >= 0; c = v_parent[c]) {
        const mbt_real* h = H_Wo[c].coeffs;
        const mbt_real Mck = (h[0] * f0 + h[3] * f3) + (h[1] * f1 + h[4] * f4) + (h[2] * f2 + h[5] * f5);
        M[(size_t)ck * (size_t)nv + c] = Mck;
        M[(size_t)c * (size_t)nv + ck] = Mck;
      }
    }
    if (L->parent > 0) moments_add_shifted(&Ic[L->parent], I, mbt_vec3_sub(p_WoMo, X_WM[L->parent].p));
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
