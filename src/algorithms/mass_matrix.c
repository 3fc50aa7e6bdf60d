/* mass_matrix.c: the mass matrix M(q) by the composite-rigid-body algorithm [Featherstone
 * 2008, §6.2] and by inverse dynamics (seed CalcMassMatrixViaInverseDynamics). */
#include <string.h>
#include "algorithms/algorithms_internal.h"
#include "mobilizers/mobilizer_types.h"

/* The upper triangle is stored with the lower one when M (nv ≤ 128: 128 KiB) stays in the L2
 * cache (measured 13–17 % faster than mirroring at nv = 6..30), or when M is sparse (fewer than
 * nv²/16 nonzeros below the diagonal: a branched tree, whose mirroring would copy mostly zeros);
 * otherwise the stores down a column miss the cache (and alias in it when nv·8 bytes is a
 * multiple of 2 KiB), and the upper triangle is mirrored afterwards by tiles. */
#define MBT__MASS_MATRIX_DIRECT_MAX_NV 128

/* M[j][i] = M[i][j] for j > i, by 16×16 tiles transposed through a local buffer: every load and
 * store runs along a row (a store down a column, at the stride nv·8 bytes, maps to a few cache
 * sets when nv is a power of two). */
static void mirror_lower_triangle(mbt_real* M, int nv) {
  enum { T = 16 };
  mbt_real buf[T][T];
  for (int bi = 0; bi < nv; bi += T) {
    const int ni = bi + T < nv ? T : nv - bi;
    for (int bj = 0; bj <= bi; bj += T) {
      const int nj = bj + T < nv ? T : nv - bj;
      for (int i = 0; i < ni; ++i) {
        const mbt_real* row = M + (size_t)(bi + i) * (size_t)nv + bj;
        for (int j = 0; j < nj; ++j) buf[j][i] = row[j];
      }
      for (int j = 0; j < nj; ++j) {
        mbt_real* row = M + (size_t)(bj + j) * (size_t)nv + bi;
        for (int i = 0; i < ni; ++i)
          if (bj + j < bi + i) row[i] = buf[j][i];
      }
    }
  }
}

/* CRBA [Featherstone 2008, §6.2] in W over the local nodes (welded bodies merged into their
 * moving ancestor), composite inertias about each node's Mo, products about the reference point
 * Ro of the node's subtree hanging from the world (its first node's Mo; M is the same about any
 * point, and about Ro no digits are lost however far the bodies are from Wo):
 *   X_WM and the columns H_j at Ro of each node, base to tip: the position kinematics cache
 *   (computed in the same pass when q changed);
 *   Ic_M = I_Mo (re-expressed in W) + Σ_children Ic_C shifted from Co to Mo (tip to base);
 *   for each column j of the node: F_j = Ic_M·H_j at Mo = [K·w + h × v_Mo; m·v_Mo − h × w]
 *   (v_Mo = v_Ro − p_RoMo × w), shifted to Ro: tau += p_RoMo × f;
 *   M[j][i] = H_iᵀ·F_j for i = j and the columns before j in the node and in its ancestors
 *   (the path λ(j), λ(λ(j)), ... of ctx->v_parent): row j of the lower triangle, stored
 *   contiguously, and for a small or sparse M (above) column j of the upper one; otherwise
 *   the upper triangle is mirrored by tiles afterwards.
 * Entries between nodes that are neither ancestor nor descendant of each other are zero. */
/* F_k = Ic·H_k at Mo shifted to Ro (above). For a node with S = I (tree_internal.h: it hangs from
 * the world, Ro = Mo) H_k = e_k and F_k is column k of Ic: [K·e_k; −h × e_k] for k < 3,
 * [h × e_j; m·e_j] for k = 3 + j. */
static inline void column_force(const mbt_local_node* L, const mbt_inertia_moments* I, const mbt_spatial_velocity* H,
                         mbt_vec3 p_RoMo, int k, mbt_spatial_force* F) {
  if (L->S_is_identity) {
    const mbt_real* K = I->K;
    const mbt_real hx = I->h.v[0], hy = I->h.v[1], hz = I->h.v[2], m = I->m;
    const mbt_real col[6][6] = {{K[0], K[3], K[4], 0, -hz, hy}, {K[3], K[1], K[5], hz, 0, -hx},
                                {K[4], K[5], K[2], -hy, hx, 0}, {0, hz, -hy, m, 0, 0},
                                {-hz, 0, hx, 0, m, 0},          {hy, -hx, 0, 0, 0, m}};
    for (int r = 0; r < 6; ++r) F->coeffs[r] = col[k][r];
    return;
  }
  const mbt_vec3 w = H->w;
  if (L->type == MBT_MOBILIZER_REVOLUTE) { /* v_Mo = 0 */
    F->tau = mbt__moments_K_mul(I, w);
    F->f = mbt_vec3_cross(w, I->h);
  } else {
    mbt__moments_mul(I, w, mbt_vec3_sub(H->v, mbt_vec3_cross(p_RoMo, w)), &F->tau, &F->f);
  }
  F->tau = mbt_vec3_add(F->tau, mbt_vec3_cross(p_RoMo, F->f));
}

/* Row ck of M from F = F_ck: M[ck][c] = H_cᵀ·F along the path c = ck, λ(ck), ...: down the run of
 * consecutive velocities that ends at ck (ctx->v_run_start: λ(c) = c − 1 inside it, so that the
 * next c does not wait on a load of λ(c); the whole row on a chain), then by λ; on the unit
 * columns e_j at the top of the path (ctx->v_unit_end, consecutive) the entry is F's component j.
 * Column ck too when direct. (F's components as six scalars: as an array, the compiler reloaded
 * them after every store to M.) */
static inline void store_row(const mbt_context* ctx, int nv, bool direct, int ck, const mbt_spatial_force* F, mbt_real* M) {
  const mbt_spatial_velocity* H_Ro = ctx->pc.H;
  const int unit_end = ctx->v_unit_end[ck], unit_start = unit_end - 6;
  const mbt_real f0 = F->coeffs[0], f1 = F->coeffs[1], f2 = F->coeffs[2];
  const mbt_real f3 = F->coeffs[3], f4 = F->coeffs[4], f5 = F->coeffs[5];
  mbt_real* Mrow = M + (size_t)ck * (size_t)nv;
#define MBT__MM_ENTRY(c)                                                                                   \
  do {                                                                                                     \
    const mbt_real* h = H_Ro[c].coeffs;                                                                    \
    const mbt_real Mck = (h[0] * f0 + h[3] * f3) + (h[1] * f1 + h[4] * f4) + (h[2] * f2 + h[5] * f5);      \
    Mrow[c] = Mck;                                                                                         \
    if (direct) M[(size_t)(c) * (size_t)nv + (size_t)ck] = Mck;                                            \
  } while (0)
  const int stop = ctx->v_run_start[ck] > unit_end ? ctx->v_run_start[ck] : unit_end;
  int c = ck;
  for (; c >= stop; --c) MBT__MM_ENTRY(c);
  if (stop > unit_end) c = ctx->v_parent[stop];
  for (; c >= unit_end; c = ctx->v_parent[c]) MBT__MM_ENTRY(c);
#undef MBT__MM_ENTRY
  for (; c >= unit_start && c >= 0; --c) {
    const mbt_real Mck = F->coeffs[c - unit_start];
    Mrow[c] = Mck;
    if (direct) M[(size_t)c * (size_t)nv + (size_t)ck] = Mck;
  }
}

/* The CRBA's passes (above) after the poses, compiled for baseline x86-64 and, where the processor
 * has them (checked per call), for AVX2/FMA (algorithms_internal.h, MBT__AVX2_ATTRIBUTES). The
 * poses stay baseline: they fill the
 * position cache, which must not depend on which function computed it (and compiled for AVX2
 * with the vectorizer's pairing of scalars, the call was slower). */

/* The inertias re-expressed in W, then tip to base: the column forces, the rows of M (the nv²
 * part) and the composite inertias. */
MBT__ALWAYS_INLINE void inertia_passes(const mbt_tree* tree, mbt_context* ctx, bool direct, mbt_real* M) {
  const mbt_transform* X_WM = ctx->pc.X_WM;
  mbt_inertia_moments* Ic = ctx->scratch_Ic;
  for (int i = 1; i < tree->num_local_nodes; ++i) mbt__moments_reexpress(&ctx->I_Mo_M[i], &X_WM[i].R, &Ic[i]);
  for (int i = tree->num_local_nodes - 1; i > 0; --i) {
    const mbt_local_node* L = &tree->local_nodes[i];
    const mbt_inertia_moments* I = &Ic[i];  /* complete: the children have been added */
    const mbt_vec3 p_RoMo = X_WM[i].p;
    for (int k = 0; k < L->nv; ++k) {
      mbt_spatial_force F;
      column_force(L, I, &ctx->pc.H[L->v_start + k], p_RoMo, k, &F);
      store_row(ctx, tree->nv, direct, L->v_start + k, &F, M);
    }
    if (L->parent > 0) mbt__moments_add_shifted(&Ic[L->parent], I, mbt_vec3_sub(p_RoMo, X_WM[L->parent].p));
  }
}
static void inertia_passes_base(const mbt_tree* tree, mbt_context* ctx, bool direct, mbt_real* M) {
  inertia_passes(tree, ctx, direct, M);
}

#ifdef MBT__AVX2
MBT__AVX2_ATTRIBUTES static void inertia_passes_avx2(const mbt_tree* tree, mbt_context* ctx, bool direct,
                                                     mbt_real* M) {
  inertia_passes(tree, ctx, direct, M);
}
#else
#define inertia_passes_avx2 inertia_passes_base
#endif

int mbt_calc_mass_matrix(const mbt_tree* tree, mbt_context* ctx, mbt_real* M) {
  int st = mbt__check_tree_context(tree, ctx, "calc_mass_matrix");
  if (st) return st;
  if (!M && tree->nv > 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_mass_matrix: M is NULL");
  const int nv = tree->nv;
  const bool pose = !ctx->position_valid;
  if (pose) mbt__calc_joint_sincos(tree, ctx);
  /* Every entry is written below unless some velocity's λ is not the one before it (branches). */
  const bool direct = nv <= MBT__MASS_MATRIX_DIRECT_MAX_NV || 16 * ctx->v_path_sum < (size_t)nv * (size_t)nv;
  if (!ctx->v_parent_is_chain) memset(M, 0, sizeof(mbt_real) * (size_t)nv * (size_t)nv);
  const bool avx2 = mbt__cpu_has_avx2_fma();
  if (pose)
    for (int i = 1; i < tree->num_local_nodes; ++i) mbt__position_kinematics_node(tree, ctx, i);
  ctx->position_valid = true;
  avx2 ? inertia_passes_avx2(tree, ctx, direct, M) : inertia_passes_base(tree, ctx, direct, M);
  if (!direct) mirror_lower_triangle(M, nv);
  return MBT_OK;
}

/* Column j of M = inverse dynamics with v̇ = e_j, v = 0 and no applied forces. */
int mbt_calc_mass_matrix_via_inverse_dynamics(const mbt_tree* tree, mbt_context* ctx, mbt_real* M) {
  int st = mbt__check_tree_context(tree, ctx, "calc_mass_matrix_via_inverse_dynamics");
  if (st) return st;
  const int nv = tree->nv;
  if (!M && nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_mass_matrix_via_inverse_dynamics: M is NULL");
  mbt_real* vdot = ctx->scratch_nv[0];
  mbt_real* col = ctx->scratch_nv[1];
  for (int i = 0; i < nv; ++i) vdot[i] = 0;
  for (int j = 0; j < nv; ++j) {
    vdot[j] = 1;
    mbt__inverse_dynamics_W(tree, ctx, false, vdot, NULL, NULL, col);
    vdot[j] = 0;
    for (int i = 0; i < nv; ++i) M[i * nv + j] = col[i];
  }
  return MBT_OK;
}
