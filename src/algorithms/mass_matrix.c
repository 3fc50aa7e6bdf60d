/* mass_matrix.c: the mass matrix M(q) by the composite-rigid-body algorithm [Featherstone
 * 2008, §6.2] and by inverse dynamics (seed CalcMassMatrixViaInverseDynamics). */
#include <stdint.h>
#include <string.h>
#include "algorithms/algorithms_internal.h"
#include "mobilizers/mobilizer_types.h"
#if defined(MBT__MM_BLOCKS) && defined(MBT__AVX2)
#include <immintrin.h>
#define MBT__MM_STREAM 1
#endif

/* The upper triangle is stored with the lower one when M stays in the caches (row by row, nv ≤ 128:
 * 128 KiB in L2, measured 13–17 % faster than mirroring at nv = 6..30; four rows at a time in the
 * copy compiled for AVX2, nv ≤ 1024: each store down a column writes four entries, 1.0–1.5× faster
 * than mirroring at nv = 256 to 1024), or when M is sparse (fewer than nv²/16 nonzeros below the diagonal: a branched tree,
 * whose mirroring would copy mostly zeros); otherwise the stores down a column miss the cache (and
 * alias in it when nv·8 bytes is a multiple of 2 KiB), and the upper triangle is mirrored
 * afterwards by tiles, or, in the copy compiled for AVX2, M is streamed to memory: by 8×8 tiles and
 * their mirrors, each entry computed once, when nv is a multiple of 8 (tile_rows, tiles_fit), else
 * past nv = 1024 (and at nv = 512k ± 1) every line computed in place (lines_fit: eight lanes where
 * the processor has AVX-512, lines_shifted, else two halves of four, lines_shifted4), or, for an M
 * not aligned to 8 bytes, past nv = 1024 every row built whole (stream_rows). */
#define MBT__MASS_MATRIX_DIRECT_MAX_NV 128
#define MBT__MASS_MATRIX_DIRECT_MAX_NV_BLOCKS 1024

/* A dense M streamed by 8×8 tiles in the copy compiled for AVX2 (tile_rows): nv a multiple of 8, from
 * nv = 512 (M 2 MiB, past this machine's 1 MiB L2; chains of 384 and 192, in L2, lost: 0.32 → 0.40
 * and 0.38 → 0.51 ns per entry) and at nv = 256, where the rows' stores down the columns alias
 * (0.58 → 0.47). */
static inline bool tiles_fit(int nv) { return nv % 8 == 0 && (nv >= 512 || nv == 256); }

/* A dense M computed line by line (lines_shifted, lines_shifted4 without AVX-512): nv past 1024 not
 * a multiple of 8, and nv = 512k ± 1 from 511, where the rows' stores down a column, at a stride
 * within 8 bytes of a multiple of 4 KiB, alias in the caches (chains, ns per entry: 511 0.52, 513
 * 0.63, 1023 0.49–0.52 against 0.29–0.32 at 505–509, 515–521, 1015–1021). */
static inline bool lines_fit(int nv) {
  return (nv > MBT__MASS_MATRIX_DIRECT_MAX_NV_BLOCKS && nv % 8 != 0) || (nv >= 511 && (nv % 512 == 1 || nv % 512 == 511));
}

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
 *   the upper triangle is mirrored by tiles afterwards, or the rows are streamed (stream_rows).
 * Entries between nodes that are neither ancestor nor descendant of each other are zero. */
/* The node's column forces F_k = Ic·H_k at Mo shifted to Ro (above) into Ft (ctx->crba_F: component
 * r of F_k at r·nv + k). For a node with S = I (tree_internal.h: it hangs from the world, Ro = Mo)
 * H_k = e_k and F_k is column k of Ic: [K·e_k; −h × e_k] for k < 3, [h × e_j; m·e_j] for k = 3 + j,
 * written entry by entry (Ic is symmetric: component r of F_k is component k of F_r). */
MBT__ALWAYS_INLINE void column_forces(const mbt_local_node* L, const mbt_inertia_moments* I,
                                      const mbt_spatial_velocity* H, mbt_vec3 p_RoMo, size_t nv, mbt_real* Ft) {
  mbt_real* F0 = Ft + L->v_start;
  if (L->S_is_identity) {
    const mbt_real* K = I->K;
    const mbt_real hx = I->h.v[0], hy = I->h.v[1], hz = I->h.v[2], m = I->m;
    const mbt_real col[21] = {K[0], K[3], K[4], 0,  -hz, hy, K[1], K[5], hz, 0, -hx,
                              K[2], -hy,  hx,   0, m,   0,  0,  m,    0,    m};
    for (int k = 0, e = 0; k < 6; ++k)
      for (int r = k; r < 6; ++r, ++e) F0[(size_t)r * nv + (size_t)k] = F0[(size_t)k * nv + (size_t)r] = col[e];
    return;
  }
  for (int k = 0; k < L->nv; ++k) {
    const mbt_vec3 w = H[k].w;
    mbt_spatial_force F;
    if (L->type == MBT_MOBILIZER_REVOLUTE) { /* v_Mo = 0 */
      F.tau = mbt__moments_K_mul(I, w);
      F.f = mbt_vec3_cross(w, I->h);
    } else {
      mbt__moments_mul(I, w, mbt_vec3_sub(H[k].v, mbt_vec3_cross(p_RoMo, w)), &F.tau, &F.f);
    }
    F.tau = mbt_vec3_add(F.tau, mbt_vec3_cross(p_RoMo, F.f));
    for (int r = 0; r < 6; ++r) F0[(size_t)r * nv + (size_t)k] = F.coeffs[r];
  }
}

/* Row ck of M from F = F_ck: M[ck][c] = H_cᵀ·F along the path c = ck, λ(ck), ...: down the run of
 * consecutive velocities that ends at ck (ctx->v_run_start: λ(c) = c − 1 inside it, so that the
 * next c does not wait on a load of λ(c); the whole row on a chain), then by λ; on the unit
 * columns e_j at the top of the path (ctx->v_unit_end, consecutive) the entry is F's component j.
 * Column ck too when direct. (F's components as six scalars: as an array, the compiler reloaded
 * them after every store to M.) */
MBT__ALWAYS_INLINE void store_row(const mbt_context* ctx, int nv, bool direct, int ck, const mbt_real* Ft, mbt_real* M,
                                   int row0) {
  const mbt_spatial_velocity* H_Ro = ctx->pc.H;
  const int unit_end = ctx->v_unit_end[ck], unit_start = unit_end - 6;
  const mbt_real f0 = Ft[ck], f1 = Ft[nv + ck], f2 = Ft[2 * nv + ck];
  const mbt_real f3 = Ft[3 * nv + ck], f4 = Ft[4 * nv + ck], f5 = Ft[5 * nv + ck];
  mbt_real* Mrow = M + (size_t)(ck - row0) * (size_t)nv;
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
    const mbt_real Mck = Ft[(size_t)(c - unit_start) * (size_t)nv + (size_t)ck];
    Mrow[c] = Mck;
    if (direct) M[(size_t)c * (size_t)nv + (size_t)ck] = Mck;
  }
}

#ifdef MBT__MM_BLOCKS
/* Up to four rows r0..r0+nr−1 of one run at a time (GCC's and clang's vector extensions, four
 * lanes: two SSE2 halves in the baseline code, one AVX2 register in the other): with Fv_r =
 * (F_r0[r], ..., F_r0+3[r]) the six vectors of their column forces' components, column c of the
 * rows is C_c = Σ_r H_c[r]·Fv_r (M[r0+a][c] in lane a, a < nr), which is also M[c][r0..r0+nr−1]
 * of the upper triangle, stored contiguously; four consecutive columns are transposed in
 * registers into the rows' entries, and on the six unit columns e_j at the top of the path
 * C_j = Fv_j. Every row shares its path below r0; the block on the diagonal takes lane a of
 * C_r0+b for b ≤ a and its transpose above. Per entry 1.5 vector multiply-adds against 6 scalar
 * ones. */
/* (Vectors by pointer: passed by value they change the ABI between the two compilations.) */
MBT__ALWAYS_INLINE void mm_column(const mbt_real* h, const mbt__v4* Fv, mbt__v4* C) {
  *C = ((h[0] * Fv[0] + h[3] * Fv[3]) + (h[1] * Fv[1] + h[4] * Fv[4])) + (h[2] * Fv[2] + h[5] * Fv[5]);
}

/* Lanes 0..nr−1 of C at p (2 ≤ nr ≤ 4). */
MBT__ALWAYS_INLINE void mm_store_lanes(mbt_real* p, const mbt__v4* C, int nr) {
  if (nr == 4) {
    *(mbt__v4u*)p = *C;
    return;
  }
  *(mbt__v2u*)p = __builtin_shufflevector(*C, *C, 0, 1);
  if (nr == 3) p[2] = (*C)[2];
}

/* Column c of the rows r0..r0+nr−1 (C = C_c): M[r0+a][c], and M[c][r0..r0+nr−1] when direct. */
MBT__ALWAYS_INLINE void mm_store_column(mbt_real* M, size_t nv, bool direct, int r0, int row0, int nr, int c,
                                        const mbt__v4* C) {
  if (direct) mm_store_lanes(M + (size_t)c * nv + (size_t)r0, C, nr);
  for (int a = 0; a < nr; ++a) M[(size_t)(r0 - row0 + a) * nv + (size_t)c] = (*C)[a];
}

/* The six unit columns e_j at us..us+5 (C_j = Fv_j): rows by two transposes. */
MBT__ALWAYS_INLINE void mm_store_unit_columns(mbt_real* M, size_t nv, bool direct, int r0, int row0, int nr, int us,
                                              const mbt__v4* Fv) {
  mbt__v4 R[4], R2[4];
  if (direct)
    for (int j = 0; j < 6; ++j) mm_store_lanes(M + (size_t)(us + j) * nv + (size_t)r0, &Fv[j], nr);
  const mbt__v4 F45[4] = {Fv[4], Fv[5], Fv[4], Fv[5]};
  mm_transpose(Fv, R);
  mm_transpose(F45, R2);
  for (int a = 0; a < nr; ++a) {
    mbt_real* row = M + (size_t)(r0 - row0 + a) * nv + (size_t)us;
    *(mbt__v4u*)row = R[a];
    *(mbt__v2u*)(row + 4) = __builtin_shufflevector(R2[a], R2[a], 0, 1);
  }
}

/* The block's columns below r0 along the shared path: the run (four at a time), then by λ, then
 * the unit columns. */
MBT__ALWAYS_INLINE void mm_store_path(const mbt_context* ctx, size_t n, bool direct, int r0, int row0, int nr,
                                      const mbt__v4* Fv, mbt_real* M) {
  const mbt_spatial_velocity* H_Ro = ctx->pc.H;
  const int unit_end = ctx->v_unit_end[r0], unit_start = unit_end - 6;
  const int stop = ctx->v_run_start[r0] > unit_end ? ctx->v_run_start[r0] : unit_end;
  mbt__v4 C[4], R[4];
  int c = r0 - 1;
  for (; c - 3 >= stop; c -= 4) {
    for (int b = 0; b < 4; ++b) mm_column(H_Ro[c - 3 + b].coeffs, Fv, &C[b]);
    if (direct)
      for (int b = 0; b < 4; ++b) mm_store_lanes(M + (size_t)(c - 3 + b) * n + (size_t)r0, &C[b], nr);
    mm_transpose(C, R);
    for (int a = 0; a < nr; ++a) *(mbt__v4u*)(M + (size_t)(r0 - row0 + a) * n + (size_t)(c - 3)) = R[a];
  }
  for (; c >= stop; --c) {
    mm_column(H_Ro[c].coeffs, Fv, &C[0]);
    mm_store_column(M, n, direct, r0, row0, nr, c, &C[0]);
  }
  if (stop > unit_end) c = ctx->v_parent[stop];
  for (; c >= unit_end; c = ctx->v_parent[c]) {
    mm_column(H_Ro[c].coeffs, Fv, &C[0]);
    mm_store_column(M, n, direct, r0, row0, nr, c, &C[0]);
  }
  if (c == unit_end - 1 && unit_start >= 0) {
    mm_store_unit_columns(M, n, direct, r0, row0, nr, unit_start, Fv);
    return;
  }
  for (; c >= unit_start && c >= 0; --c) mm_store_column(M, n, direct, r0, row0, nr, c, &Fv[c - unit_start]);
}

/* Nodes g..g+3 are revolute with one velocity each, consecutive (column_forces4). */
static inline bool revolute_quad(const mbt_tree* tree, int g) {
  const mbt_local_node* L = &tree->local_nodes[g];
  for (int l = 0; l < 4; ++l)
    if (L[l].type != MBT_MOBILIZER_REVOLUTE || L[l].nv != 1 || L[l].v_start != L[0].v_start + l) return false;
  return true;
}

/* column_forces of four revolute nodes g..g+3 with one velocity each, consecutive, at once (lane l
 * node g + l): F = [K·w + p_RoMo × f; f], f = w × h; stored four velocities at a time. */
MBT__ALWAYS_INLINE void column_forces4(const mbt_inertia_moments* I, const mbt_spatial_velocity* H,
                                       const mbt_transform* X, size_t nv, mbt_real* F0) {
  mbt__v4 mh[4], Ka[4], Kb[4], w[4], p[4];
  mm_load_moments4(I, mh, Ka, Kb);
  mm_load4(H->coeffs, sizeof *H / sizeof(mbt_real), w); /* w */
  mm_load4(&X->R.m[2][2], MBT__TRANSFORM_STRIDE, p);   /* R22 p */
  const mbt__v4 f[3] = {w[1] * mh[3] - w[2] * mh[2], w[2] * mh[1] - w[0] * mh[3], w[0] * mh[2] - w[1] * mh[1]};
  const mbt__v4 Kw[3] = {Ka[0] * w[0] + Ka[3] * w[1] + Kb[2] * w[2], Ka[3] * w[0] + Ka[1] * w[1] + Kb[3] * w[2],
                         Kb[2] * w[0] + Kb[3] * w[1] + Ka[2] * w[2]};
  *(mbt__v4u*)F0 = Kw[0] + (p[2] * f[2] - p[3] * f[1]);
  *(mbt__v4u*)(F0 + nv) = Kw[1] + (p[3] * f[0] - p[1] * f[2]);
  *(mbt__v4u*)(F0 + 2 * nv) = Kw[2] + (p[1] * f[1] - p[2] * f[0]);
  for (int r = 0; r < 3; ++r) *(mbt__v4u*)(F0 + (size_t)(3 + r) * nv) = f[r];
}

/* Rows r0..r0+nr−1 (2 ≤ nr ≤ 4, one run): the block on the diagonal, then the shared path. */
MBT__ALWAYS_INLINE void store_block(const mbt_context* ctx, int nv, bool direct, int r0, int row0, int nr,
                                    const mbt_real* Ft, mbt_real* M) {
  const mbt_spatial_velocity* H_Ro = ctx->pc.H;
  const size_t n = (size_t)nv;
  mbt__v4 Fv[6], C[4], R[4], D[4];
  for (int r = 0; r < 6; ++r) Fv[r] = *(const mbt__v4u*)(Ft + (size_t)r * n + (size_t)r0);
  for (int b = 0; b < 4; ++b) mm_column(H_Ro[r0 + (b < nr ? b : 0)].coeffs, Fv, &C[b]);
  mm_transpose(C, R);
  D[0] = __builtin_shufflevector(R[0], C[0], 0, 5, 6, 7);
  D[1] = __builtin_shufflevector(R[1], C[1], 0, 1, 6, 7);
  D[2] = __builtin_shufflevector(R[2], C[2], 0, 1, 2, 7);
  D[3] = R[3];
  for (int a = 0; a < nr; ++a) mm_store_lanes(M + (size_t)(r0 - row0 + a) * n + (size_t)r0, &D[a], nr);
  mm_store_path(ctx, n, direct, r0, row0, nr, Fv, M);
}
#endif

/* The rows of M from the column forces F_k (ctx->crba_F), last to first: with blocks (the copy
 * compiled for AVX2) up to four at a time inside a run (store_block), else one (store_row). */
MBT__ALWAYS_INLINE void store_rows(const mbt_context* ctx, int nv, bool direct, bool blocks, mbt_real* M) {
  const mbt_real* Ft = ctx->crba_F;
  for (int ck = nv - 1; ck >= 0;) {
#ifdef MBT__MM_BLOCKS
    const int len = blocks ? ck - ctx->v_run_start[ck] + 1 : 1;
    if (len >= 4) {
      store_block(ctx, nv, direct, ck - 3, 0, 4, Ft, M);
      ck -= 4;
      continue;
    }
    if (len >= 2) {
      len == 3 ? store_block(ctx, nv, direct, ck - 2, 0, 3, Ft, M) : store_block(ctx, nv, direct, ck - 1, 0, 2, Ft, M);
      ck -= len;
      continue;
    }
#endif
    store_row(ctx, nv, direct, ck, Ft, M, 0);
    --ck;
  }
}

#ifdef MBT__MM_STREAM
/* ---- a dense M past nv = 1024 (the copy compiled for AVX2): rows streamed to memory ----------
 * Stored with the rows, the upper triangle's entries go down the columns, a line and a page of M
 * each (at nv = 2048 a row is 16 KiB); mirrored, M is written, read back and written again.
 * Either way every line of M is read for ownership from memory once M is past the last-level
 * cache (32 MiB at nv = 2048). Here each row is built whole in ctx->crba_rows and written to M
 * once, whole 64-byte lines by non-temporal stores: the entries right of the diagonal are
 * computed again (the upper triangle's dot products), which costs less than the traffic. */

/* Lanes 0..k−1 of C at p (1 ≤ k ≤ 4). */
MBT__ALWAYS_INLINE void mm_store_first(mbt_real* p, const mbt__v4* C, int k) {
  if (k == 1)
    p[0] = (*C)[0];
  else
    mm_store_lanes(p, C, k);
}

/* Rows r0..r0+nr−1 of one run right of their diagonal block, into B (row a at B + a·nv):
 * M[r][c] = H_rᵀ·F_c for c a descendant of r (r < c < ctx->v_subtree_end[r], depth-first order),
 * four columns at a time from F by component, by mm_column: the lower triangle's M[c][r] is the
 * same product, so M stays symmetric bit for bit. The subtrees shrink down the run: the columns
 * of the last row's first, for all the rows, then each row's own. */
MBT__ALWAYS_INLINE void mm_upper_rows(const mbt_context* ctx, size_t n, int r0, int nr, const mbt_real* Ft,
                                      mbt_real* B) {
  const mbt_spatial_velocity* H_Ro = ctx->pc.H;
  const int* end = ctx->v_subtree_end;
  mbt__v4 Fv[6], C;
  int c = r0 + nr;
  for (; c + 4 <= end[r0 + nr - 1]; c += 4) {
    for (int k = 0; k < 6; ++k) Fv[k] = *(const mbt__v4u*)(Ft + (size_t)k * n + (size_t)c);
    for (int a = 0; a < nr; ++a) {
      mm_column(H_Ro[r0 + a].coeffs, Fv, &C);
      *(mbt__v4u*)(B + (size_t)a * n + (size_t)c) = C;
    }
  }
  for (int a = 0; a < nr; ++a)
    for (int j = c; j < end[r0 + a]; j += 4) { /* F's + 3 padding: the loads past nv are not stored */
      for (int k = 0; k < 6; ++k) Fv[k] = *(const mbt__v4u*)(Ft + (size_t)k * n + (size_t)j);
      mm_column(H_Ro[r0 + a].coeffs, Fv, &C);
      mm_store_first(B + (size_t)a * n + (size_t)j, &C, end[r0 + a] - j < 4 ? end[r0 + a] - j : 4);
    }
}

/* n entries from b to dst: whole 64-byte lines by non-temporal stores, the partial lines at either
 * end by ordinary ones (a call per block of rows, for both copies of stream_rows). */
__attribute__((target("avx2"))) static void mm_stream_row(mbt_real* dst, const mbt_real* b, size_t n) {
  size_t i = 0;
  for (; i < n && ((uintptr_t)(dst + i) & 63) != 0; ++i) dst[i] = b[i];
  for (; i + 8 <= n; i += 8) {
    _mm256_stream_pd(dst + i, _mm256_loadu_pd(b + i));
    _mm256_stream_pd(dst + i + 4, _mm256_loadu_pd(b + i + 4));
  }
  for (; i < n; ++i) dst[i] = b[i];
}

/* Rows r0..r0+nr−1 of one run whole (nr constant after inlining): zeros where the rows' paths and
 * subtrees leave gaps (a branched tree), the path and the diagonal block (store_block, store_row),
 * the subtrees (mm_upper_rows); then streamed to M. */
MBT__ALWAYS_INLINE void stream_block(const mbt_context* ctx, int nv, int r0, int nr, mbt_real* M) {
  const size_t n = (size_t)nv;
  mbt_real* B = ctx->crba_rows;
  if (!ctx->v_parent_is_chain) memset(B, 0, sizeof(mbt_real) * (size_t)nr * n);
  if (nr > 1)
    store_block(ctx, nv, false, r0, r0, nr, ctx->crba_F, B);
  else
    store_row(ctx, nv, false, r0, ctx->crba_F, B, r0);
  mm_upper_rows(ctx, n, r0, nr, ctx->crba_F, B);
  mm_stream_row(M + (size_t)r0 * n, B, (size_t)nr * n); /* the rows are consecutive in M and in B */
}

/* Every row of M, last to first, up to four of one run at a time (as store_rows). */
MBT__ALWAYS_INLINE void stream_rows(const mbt_context* ctx, int nv, mbt_real* M) {
  for (int ck = nv - 1; ck >= 0;) {
    const int len = ck - ctx->v_run_start[ck] + 1;
    if (len >= 4)
      stream_block(ctx, nv, ck - 3, 4, M);
    else if (len == 3)
      stream_block(ctx, nv, ck - 2, 3, M);
    else if (len == 2)
      stream_block(ctx, nv, ck - 1, 2, M);
    else
      stream_block(ctx, nv, ck, 1, M);
    ck -= len < 4 ? len : 4;
  }
  _mm_sfence(); /* the non-temporal stores ordered before the caller's */
}

/* ---- a dense M from nv = 512 (and 256), nv a multiple of 8: 8×8 tiles ----------------------------
 * Each entry below the diagonal computed once and written twice, every 64-byte line of M whole and
 * once: the indices are cut into blocks of eight whose rows' entries fill one line (the blocks
 * start where M's lines do: at s = −(M's address in entries) mod 8, the first block s − 8 when s >
 * 0, its lanes before 0 and the last block's past nv left out), and for a block of rows R and one
 * of columns C ≤ R the tile's 64 products give the lines of rows R at columns C and of rows C at
 * columns R (two tiles of M, 16 whole lines by non-temporal stores, or ordinary ones where the
 * block is cut). The tiles are visited by squares of 8×8 blocks, so that the rows of a square's
 * mirror (one page per line at nv ≥ 512) are reused while they are in the TLB. */

/* (Helpers with intrinsics compiled for AVX2, to be inlined into the AVX2 and AVX-512 copies.) */
#define MBT__MM_TILE_INLINE MBT__ALWAYS_INLINE __attribute__((target("avx2")))

/* Entries b..b+7 of a row of M (row = M + r·nv) from the halves V: whole by non-temporal stores,
 * or, where the block is cut (cut), the lanes inside [0, nv) alone (no address outside the row is
 * formed: b may be negative). */
MBT__MM_TILE_INLINE void mm_put_line(mbt_real* row, const mbt__v4* V, bool cut, int b, int nv) {
  if (!cut) {
    _mm256_stream_pd(row + b, V[0]);
    _mm256_stream_pd(row + b + 4, V[1]);
    return;
  }
  for (int l = 0; l < 8; ++l)
    if (b + l >= 0 && b + l < nv) row[b + l] = V[l / 4][l % 4];
}

/* The column forces of rows rb..rb+7 by component (Fv[h][k]: component k, rows rb + 4h..), zero
 * outside [0, nv). */
MBT__ALWAYS_INLINE void mm_tile_forces(const mbt_real* Ft, size_t n, int rb, bool cut, mbt__v4 Fv[2][6]) {
  for (int h = 0; h < 2; ++h)
    for (int k = 0; k < 6; ++k) {
      if (!cut) {
        Fv[h][k] = *(const mbt__v4u*)(Ft + (size_t)k * n + (size_t)(rb + 4 * h));
        continue;
      }
      for (int l = 0; l < 4; ++l) {
        const int r = rb + 4 * h + l;
        Fv[h][k][l] = r >= 0 && r < (int)n ? Ft[(size_t)k * n + (size_t)r] : 0;
      }
    }
}

/* The tile of rows rb..rb+7 and columns cb..cb+7 (cb ≤ rb): C_c = (M[r][c])_r = H_cᵀ·F_r (mm_column,
 * as the rows' lower triangle), zero where r is not in c's subtree (r ≥ v_subtree_end[c]); row c
 * of M at columns rb.. is C_c, rows rb.. at columns cb.. are the columns' transpose T; on the
 * diagonal (rb = cb) row r = cb + a takes C_r right of the diagonal and T left of it. */
MBT__MM_TILE_INLINE void mm_tile(const mbt_context* ctx, int nv, int rb, int cb, bool cut, bool chain, mbt_real* M) {
  const size_t n = (size_t)nv;
  const bool rcut = cut && (rb < 0 || rb + 8 > nv), ccut = cut && (cb < 0 || cb + 8 > nv);
  mbt__v4 Fv[2][6], C[8][2], T[8][2];
  const __m256i ridx[2] = {_mm256_setr_epi64x(rb, rb + 1, rb + 2, rb + 3), /* the rows' indices */
                           _mm256_setr_epi64x(rb + 4, rb + 5, rb + 6, rb + 7)};
  mm_tile_forces(ctx->crba_F, n, rb, rcut, Fv);
  for (int j = 0; j < 8; ++j) {
    const int c = cb + j;
    if (ccut && (c < 0 || c >= nv)) {
      C[j][0] = C[j][1] = (mbt__v4){0, 0, 0, 0};
      continue;
    }
    for (int h = 0; h < 2; ++h) mm_column(ctx->pc.H[c].coeffs, Fv[h], &C[j][h]);
    if (!chain)
      for (int h = 0; h < 2; ++h)
        C[j][h] = _mm256_and_pd(C[j][h], _mm256_castsi256_pd(_mm256_cmpgt_epi64(
                                             _mm256_set1_epi64x(ctx->v_subtree_end[c]), ridx[h])));
    if (rb != cb) mm_put_line(M + (size_t)c * n, C[j], rcut, rb, nv);
  }
  for (int h = 0; h < 2; ++h)
    for (int g = 0; g < 2; ++g) {
      const mbt__v4 Q[4] = {C[4 * g][h], C[4 * g + 1][h], C[4 * g + 2][h], C[4 * g + 3][h]};
      mbt__v4 R[4];
      mm_transpose(Q, R);
      for (int a = 0; a < 4; ++a) T[4 * h + a][g] = R[a];
    }
  for (int a = 0; a < 8; ++a) {
    if (rcut && (rb + a < 0 || rb + a >= nv)) continue;
    if (rb == cb)
      for (int g = 0; g < 2; ++g) {
        const __m256d right = _mm256_castsi256_pd(_mm256_cmpgt_epi64(ridx[g], _mm256_set1_epi64x(rb + a)));
        T[a][g] = _mm256_blendv_pd(T[a][g], C[a][g], right);
      }
    mm_put_line(M + (size_t)(rb + a) * n, T[a], ccut, cb, nv);
  }
}

/* Every tile of the lower triangle, by squares of 8×8 blocks (above); the tiles of whole blocks and
 * an unbranched tree by their own copies of mm_tile (cut, chain constant). */
MBT__MM_TILE_INLINE void tile_rows(const mbt_context* ctx, int nv, mbt_real* M) {
  const int s = (int)((8 - ((uintptr_t)M / sizeof(mbt_real)) % 8) % 8);
  const int first = s > 0 ? s - 8 : 0;
  const bool chain = ctx->v_parent_is_chain;
  for (int R = first; R < nv; R += 64)
    for (int C = first; C <= R; C += 64)
      for (int rb = R; rb < R + 64 && rb < nv; rb += 8)
        for (int cb = C; cb < C + 64 && cb <= rb; cb += 8) {
          if (cb < 0 || rb + 8 > nv)
            mm_tile(ctx, nv, rb, cb, true, false, M);
          else if (chain)
            mm_tile(ctx, nv, rb, cb, false, true, M);
          else
            mm_tile(ctx, nv, rb, cb, false, false, M);
        }
  _mm_sfence(); /* the non-temporal stores ordered before the caller's */
}

/* ---- a dense M past nv = 1024, nv not a multiple of 8, or nv = 512k ± 1 (lines_fit; the copy
 * compiled for AVX-512, and lines_shifted4 below): every line computed where it lies ---------------
 * Row r's 64-byte lines start at the columns o_r + 8k, o_r = −(M's address in entries + r·nv) mod 8,
 * a shift that depends on r mod 8 alone, so a tile's mirror would not be whole lines. Here every
 * line of M is computed in place, eight lanes over its columns c: left of the diagonal M[r][c] =
 * H_cᵀ·F_r (H by component, loaded at the line's columns; F_r broadcast), right of it M[r][c] =
 * H_rᵀ·F_c (F by component loaded, H_r broadcast): the same products as the lower triangle, in the
 * same order, so M is symmetric bit for bit, each entry below the diagonal computed twice (eight
 * lanes: 0.75 multiply-adds per entry). The rows of one shift class (r, r + 8, ... < r + 64) share a
 * line's loads, and the lines of each row are streamed in order (eight rows at a time; up to nv =
 * 1024, where M stays in the last-level cache, stored: chain:511 0.50–0.51 → 0.46–0.47 s); the
 * partial lines at a row's ends, shared with the neighbouring rows, by masked ordinary stores. */
#define MBT__MM_SHIFT_INLINE MBT__ALWAYS_INLINE __attribute__((target("avx2,fma,avx512f,avx512vl")))

/* H by component into ctx->crba_H (component k of H_c at k·nv + c). */
MBT__ALWAYS_INLINE void mm_h_by_component(const mbt_context* ctx, size_t n) {
  mbt_real* Hs = ctx->crba_H;
  for (size_t c = 0; c < n; ++c)
    for (size_t k = 0; k < 6; ++k) Hs[k * n + c] = ctx->pc.H[c].coeffs[k];
}

/* Σ_k X[k]·y[k·stride] in the order of mm_column. */
MBT__MM_SHIFT_INLINE __m512d mm_dot8(const __m512d* X, const mbt_real* y, size_t stride) {
  return ((X[0] * y[0] + X[3] * y[3 * stride]) + (X[1] * y[stride] + X[4] * y[4 * stride])) +
         (X[2] * y[2 * stride] + X[5] * y[5 * stride]);
}

/* The line of columns s..s+7 (its lanes 0..k−1 inside M; partial: not all) of the rows r0, r0 + 8, ...
 * < r1, all with the line's shift: left of the diagonal (kind 0: all the line's columns below every
 * row) M[r][c] = H_cᵀ·F_r where r is in c's subtree (r < v_subtree_end[c]), right of it (kind 1:
 * above every row) M[r][c] = H_rᵀ·F_c where c < v_subtree_end[r], else (kind 2) each lane by its side. */
MBT__MM_SHIFT_INLINE void mm_class_line(const mbt_context* ctx, const mbt_real* Hs, int nv, int s, int k, int r0,
                                        int r1, int kind, bool partial, bool chain, mbt_real* M) {
  const size_t n = (size_t)nv;
  const __mmask8 lanes = (__mmask8)((1u << k) - 1);
  const mbt_real* Ft = ctx->crba_F;
  const int* end = ctx->v_subtree_end;
  __m512d Xl[6], Xu[6];
  for (size_t k = 0; k < 6; ++k) {
    const size_t i = k * n + (size_t)s;
    if (kind != 1) Xl[k] = partial ? _mm512_maskz_loadu_pd(lanes, Hs + i) : _mm512_loadu_pd(Hs + i);
    if (kind != 0) Xu[k] = partial ? _mm512_maskz_loadu_pd(lanes, Ft + i) : _mm512_loadu_pd(Ft + i);
  }
  const __m256i cidx = _mm256_add_epi32(_mm256_set1_epi32(s), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  __m256i endv = cidx; /* v_subtree_end of the line's columns (left of the diagonal, branched) */
  if (!chain && kind != 1)
    endv = partial ? _mm256_maskz_loadu_epi32(lanes, end + s) : _mm256_loadu_si256((const __m256i*)(end + s));
  for (int r = r0; r < r1; r += 8) {
    __m512d lo = _mm512_setzero_pd(), up = _mm512_setzero_pd();
    if (kind != 1) {
      lo = mm_dot8(Xl, Ft + r, n);
      if (!chain) lo = _mm512_maskz_mov_pd(_mm256_cmpgt_epi32_mask(endv, _mm256_set1_epi32(r)), lo);
    }
    if (kind != 0) {
      up = mm_dot8(Xu, ctx->pc.H[r].coeffs, 1);
      if (!chain) up = _mm512_maskz_mov_pd(_mm256_cmpgt_epi32_mask(_mm256_set1_epi32(end[r]), cidx), up);
    }
    const __m512d v =
        kind == 0 ? lo : kind == 1 ? up : _mm512_mask_blend_pd(_mm256_cmpgt_epi32_mask(cidx, _mm256_set1_epi32(r)), lo, up);
    mbt_real* p = M + (size_t)r * n + (size_t)s;
    if (partial)
      _mm512_mask_storeu_pd(p, lanes, v);
    else if (nv <= MBT__MASS_MATRIX_DIRECT_MAX_NV_BLOCKS) /* M (8 MiB) in the last-level cache */
      _mm512_store_pd(p, v);
    else
      _mm512_stream_pd(p, v);
  }
}

/* Every line of M, by bands of 64 rows and in each by shift class (the rows r0, r0 + 8, ... < r1,
 * o their shift), line by line: the partial lines at either end and the lines across the diagonal
 * by the general kind, the others by their own copies (left or right of every row's diagonal,
 * chain or branched); H by component first (ctx->crba_H). LINE is mm_class_line or, in the copy
 * for AVX2, mm_class_line4 (a macro: each copy inlines its own, compiled for its target). */
#define MBT__MM_EVERY_LINE(LINE, ctx, nv, M)                                                             \
  do {                                                                                                   \
    const size_t n_ = (size_t)(nv), e_ = (uintptr_t)(M) / sizeof(mbt_real);                             \
    const mbt_real* Hs = (ctx)->crba_H;                                                                  \
    const bool chain = (ctx)->v_parent_is_chain;                                                         \
    mm_h_by_component(ctx, n_);                                                                          \
    for (int R = 0; R < (nv); R += 64)                                                                   \
      for (int r0 = R; r0 < R + 8 && r0 < (nv); ++r0) {                                                  \
        const int o = (int)((0 - (e_ + (size_t)r0 * n_)) & 7), r1 = R + 64 < (nv) ? R + 64 : (nv);       \
        const int rlast = r0 + 8 * ((r1 - 1 - r0) / 8);                                                  \
        if (o > 0) LINE(ctx, Hs, nv, 0, o, r0, r1, 2, true, false, M);                                   \
        int s = o;                                                                                       \
        for (; s + 7 < r0 && s + 8 <= (nv); s += 8)                                                      \
          chain ? LINE(ctx, Hs, nv, s, 8, r0, r1, 0, false, true, M)                                     \
                : LINE(ctx, Hs, nv, s, 8, r0, r1, 0, false, false, M);                                   \
        for (; s <= rlast && s + 8 <= (nv); s += 8) LINE(ctx, Hs, nv, s, 8, r0, r1, 2, false, false, M); \
        for (; s + 8 <= (nv); s += 8)                                                                    \
          chain ? LINE(ctx, Hs, nv, s, 8, r0, r1, 1, false, true, M)                                     \
                : LINE(ctx, Hs, nv, s, 8, r0, r1, 1, false, false, M);                                   \
        if (s < (nv)) LINE(ctx, Hs, nv, s, (nv) - s, r0, r1, 2, true, false, M);                         \
      }                                                                                                  \
    _mm_sfence(); /* the non-temporal stores ordered before the caller's */                             \
  } while (0)

MBT__MM_SHIFT_INLINE void lines_shifted(const mbt_context* ctx, int nv, mbt_real* M) {
  MBT__MM_EVERY_LINE(mm_class_line, ctx, nv, M);
}

/* ---- the same lines in the copy compiled for AVX2 (a processor without AVX-512) ------------------
 * Each line as two halves of four lanes, in the same order of products (mm_dot4), so M is the same
 * symmetric matrix; the partial lines by masked loads and stores (lanes 0..k−1), the masks of
 * v_subtree_end by 64-bit compares. */
#define MBT__MM_LINE4_INLINE MBT__ALWAYS_INLINE __attribute__((target("avx2,fma")))

/* Σ_k X[k]·Y[k] in the order of mm_column (four lanes). */
MBT__MM_LINE4_INLINE __m256d mm_dot4(const __m256d* X, const __m256d* Y) {
  return ((X[0] * Y[0] + X[3] * Y[3]) + (X[1] * Y[1] + X[4] * Y[4])) + (X[2] * Y[2] + X[5] * Y[5]);
}

/* M[r][c] of half h of a line (columns cidx) for row r, the kinds of mm_class_line: Yl F_r's and Yu
 * H_r's components broadcast, endv the columns' v_subtree_end, end_r row r's. */
MBT__MM_LINE4_INLINE __m256d mm_half_entry(const __m256d* Xl, const __m256d* Xu, const __m256d* Yl, const __m256d* Yu,
                                           __m256i endv, __m256i cidx, __m256i rv, __m256i end_r, int kind, bool chain) {
  __m256d lo = _mm256_setzero_pd(), up = _mm256_setzero_pd();
  if (kind != 1) {
    lo = mm_dot4(Xl, Yl);
    if (!chain) lo = _mm256_and_pd(lo, _mm256_castsi256_pd(_mm256_cmpgt_epi64(endv, rv)));
  }
  if (kind != 0) {
    up = mm_dot4(Xu, Yu);
    if (!chain) up = _mm256_and_pd(up, _mm256_castsi256_pd(_mm256_cmpgt_epi64(end_r, cidx)));
  }
  if (kind != 2) return kind == 0 ? lo : up;
  return _mm256_blendv_pd(lo, up, _mm256_castsi256_pd(_mm256_cmpgt_epi64(cidx, rv)));
}

/* mm_class_line with four lanes: the line of columns s..s+7 (partial: its lanes 0..k−1 alone) of the
 * rows r0, r0 + 8, ... < r1. (The context's pointers read once: the stores to M could alias them.) */
MBT__MM_LINE4_INLINE void mm_class_line4(const mbt_context* ctx, const mbt_real* Hs, int nv, int s, int k, int r0,
                                         int r1, int kind, bool partial, bool chain, mbt_real* M) {
  const size_t n = (size_t)nv;
  const mbt_real* Ft = ctx->crba_F;
  const mbt_spatial_velocity* H = ctx->pc.H;
  const int* end = ctx->v_subtree_end;
  const bool stream = nv > MBT__MASS_MATRIX_DIRECT_MAX_NV_BLOCKS; /* else M in the last-level cache */
  __m256d Xl[2][6], Xu[2][6], Yl[6], Yu[6];
  __m256i cidx[2], endv[2], lanes[2];
  for (int h = 0; h < 2; ++h) {
    const __m128i l4 = _mm_setr_epi32(4 * h, 4 * h + 1, 4 * h + 2, 4 * h + 3);
    const __m128i in = _mm_cmpgt_epi32(_mm_set1_epi32(k), l4);
    const size_t c = (size_t)s + 4 * (size_t)h;
    lanes[h] = _mm256_cvtepi32_epi64(in);
    cidx[h] = _mm256_cvtepi32_epi64(_mm_add_epi32(_mm_set1_epi32(s), l4));
    for (size_t j = 0; j < 6; ++j) {
      if (kind != 1) Xl[h][j] = partial ? _mm256_maskload_pd(Hs + j * n + c, lanes[h]) : _mm256_loadu_pd(Hs + j * n + c);
      if (kind != 0) Xu[h][j] = partial ? _mm256_maskload_pd(Ft + j * n + c, lanes[h]) : _mm256_loadu_pd(Ft + j * n + c);
    }
    endv[h] = cidx[h];
    if (!chain && kind != 1)
      endv[h] = _mm256_cvtepi32_epi64(partial ? _mm_maskload_epi32(end + c, in) : _mm_loadu_si128((const __m128i*)(end + c)));
  }
  for (int r = r0; r < r1; r += 8) {
    for (size_t j = 0; j < 6; ++j) {
      if (kind != 1) Yl[j] = _mm256_set1_pd(Ft[j * n + (size_t)r]);
      if (kind != 0) Yu[j] = _mm256_set1_pd(H[r].coeffs[j]);
    }
    const __m256i rv = _mm256_set1_epi64x(r), end_r = _mm256_set1_epi64x(end[r]);
    mbt_real* p = M + (size_t)r * n + (size_t)s;
    for (int h = 0; h < 2; ++h) {
      const __m256d v = mm_half_entry(Xl[h], Xu[h], Yl, Yu, endv[h], cidx[h], rv, end_r, kind, chain);
      if (partial)
        _mm256_maskstore_pd(p + 4 * h, lanes[h], v);
      else if (stream)
        _mm256_stream_pd(p + 4 * h, v);
      else
        _mm256_store_pd(p + 4 * h, v);
    }
  }
}

/* lines_shifted with four lanes. */
MBT__MM_LINE4_INLINE void lines_shifted4(const mbt_context* ctx, int nv, mbt_real* M) {
  MBT__MM_EVERY_LINE(mm_class_line4, ctx, nv, M);
}

/* Compiled for AVX2/FMA and, where the processor has them, for AVX-512F and VL: the same four-lane
 * vectors with 32 registers (chain of 2048, 300 calls: 1.03–1.10 → 0.96–1.00 s). */
#if defined(__clang__)
#define MBT__MM_AVX512_ATTRIBUTES __attribute__((target("avx2,fma,avx512f,avx512vl")))
#else
#define MBT__MM_AVX512_ATTRIBUTES __attribute__((target("avx2,fma,avx512f,avx512vl"), optimize("fp-contract=fast")))
#endif
/* name_avx2 and name_avx512: the kernels avx2_kernel and avx512_kernel compiled for each target. */
#define MBT__MM_TWO_COPIES(name, avx2_kernel, avx512_kernel)                                      \
  MBT__AVX2_ATTRIBUTES static void name##_avx2(const mbt_context* ctx, int nv, mbt_real* M) {    \
    avx2_kernel(ctx, nv, M);                                                                     \
  }                                                                                              \
  MBT__MM_AVX512_ATTRIBUTES static void name##_avx512(const mbt_context* ctx, int nv, mbt_real* M) { \
    avx512_kernel(ctx, nv, M);                                                                   \
  }
MBT__MM_TWO_COPIES(stream_rows, stream_rows, stream_rows)
MBT__MM_TWO_COPIES(tile_rows, tile_rows, tile_rows)
MBT__MM_TWO_COPIES(lines_shifted, lines_shifted4, lines_shifted)
#endif

/* The CRBA's passes (above) after the poses, compiled for baseline x86-64 and, where the processor
 * has them (checked per call), for AVX2/FMA (algorithms_internal.h, MBT__AVX2_ATTRIBUTES). The
 * poses stay baseline: they fill the
 * position cache, which must not depend on which function computed it (and compiled for AVX2
 * with the vectorizer's pairing of scalars, the call was slower). */

/* The inertias re-expressed in W, then tip to base: the column forces (into ctx->crba_F) and the
 * composite inertias; then the rows of M (the nv² part). blocks: four nodes and rows at a time
 * (only in the copy compiled for AVX2: in baseline x86-64 GCC moves the four-lane vectors through
 * the stack, and the call was 3–4× slower). */
MBT__ALWAYS_INLINE void inertia_passes(const mbt_tree* tree, mbt_context* ctx, bool blocks) {
  const mbt_transform* X_WM = ctx->pc.X_WM;
  mbt_inertia_moments* Ic = ctx->scratch_Ic;
  const size_t nv = (size_t)tree->nv;
  mbt_real* Ft = ctx->crba_F;
  int i0 = 1;
#ifdef MBT__MM_BLOCKS
  if (blocks)
    for (; i0 + 3 < tree->num_local_nodes; i0 += 4) reexpress4(&ctx->I_Mo_M[i0], &X_WM[i0], &Ic[i0]);
#endif
  for (int i = i0; i < tree->num_local_nodes; ++i) mbt__moments_reexpress(&ctx->I_Mo_M[i], &X_WM[i].R, &Ic[i]);
  bool quad = false; /* node i is one of the four revolute nodes g..g+3, g = i − (i − 1) mod 4 */
  for (int i = tree->num_local_nodes - 1; i > 0; --i) {
    const mbt_local_node* L = &tree->local_nodes[i];
    const mbt_inertia_moments* I = &Ic[i];  /* complete: the children (and nodes after i) have been added */
    const mbt_vec3 p_RoMo = X_WM[i].p;
#ifdef MBT__MM_BLOCKS
    if (blocks && (i - 1) % 4 == 3) quad = revolute_quad(tree, i - 3);
    if (quad && (i - 1) % 4 == 0)
      column_forces4(I, &ctx->pc.H[L->v_start], &X_WM[i], nv, Ft + L->v_start);
    else if (!quad)
#endif
      column_forces(L, I, &ctx->pc.H[L->v_start], p_RoMo, nv, Ft);
    if (L->parent > 0) mbt__moments_add_shifted(&Ic[L->parent], I, mbt_vec3_sub(p_RoMo, X_WM[L->parent].p));
  }
}
static void inertia_passes_base(const mbt_tree* tree, mbt_context* ctx, bool direct, mbt_real* M) {
  inertia_passes(tree, ctx, false);
  store_rows(ctx, tree->nv, direct, false, M);
}

#ifdef MBT__AVX2
MBT__AVX2_ATTRIBUTES static void inertia_passes_avx2(const mbt_tree* tree, mbt_context* ctx, bool direct,
                                                     mbt_real* M) {
  inertia_passes(tree, ctx, true);
  store_rows(ctx, tree->nv, direct, true, M);
}
#else
#define inertia_passes_avx2 inertia_passes_base
#endif

#ifdef MBT__MM_STREAM
/* The passes of the AVX2 copy, then M streamed (tile_rows, lines_shifted, stream_rows) instead of mirrored. */
MBT__AVX2_ATTRIBUTES static void inertia_passes_streamed(const mbt_tree* tree, mbt_context* ctx, mbt_real* M) {
  inertia_passes(tree, ctx, true);
  const bool avx512 = mbt__cpu_mass_matrix_avx512();
  const bool aligned = (uintptr_t)M % sizeof(mbt_real) == 0;
  if (tiles_fit(tree->nv) && aligned)
    avx512 ? tile_rows_avx512(ctx, tree->nv, M) : tile_rows_avx2(ctx, tree->nv, M);
  else if (aligned && lines_fit(tree->nv))
    avx512 ? lines_shifted_avx512(ctx, tree->nv, M) : lines_shifted_avx2(ctx, tree->nv, M);
  else
    avx512 ? stream_rows_avx512(ctx, tree->nv, M) : stream_rows_avx2(ctx, tree->nv, M);
}

/* mbt_calc_mass_matrix for a dense M streamed (above) where the processor has AVX2 and FMA (the poses
 * baseline, as there). Apart, so that the call for a small M compiles as before (with this path
 * inside it the poses' registers moved: chain:30 +180 instructions, +2 % time). */
__attribute__((noinline)) static int calc_mass_matrix_streamed(const mbt_tree* tree, mbt_context* ctx,
                                                               mbt_real* M) {
  if (!ctx->position_valid) {
    mbt__calc_joint_sincos(tree, ctx);
    for (int i = 1; i < tree->num_local_nodes; ++i) mbt__position_kinematics_node(tree, ctx, i);
  }
  ctx->position_valid = true;
  inertia_passes_streamed(tree, ctx, M);
  return MBT_OK;
}
#endif

int mbt_calc_mass_matrix(const mbt_tree* tree, mbt_context* ctx, mbt_real* M) {
  int st = mbt__check_tree_context(tree, ctx, "calc_mass_matrix");
  if (st) return st;
  if (!M && tree->nv > 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_mass_matrix: M is NULL");
  const int nv = tree->nv;
#ifdef MBT__MM_STREAM
  if ((nv > MBT__MASS_MATRIX_DIRECT_MAX_NV_BLOCKS || tiles_fit(nv) || lines_fit(nv)) &&
      16 * ctx->v_path_sum >= (size_t)nv * (size_t)nv && mbt__cpu_has_avx2_fma())
    return calc_mass_matrix_streamed(tree, ctx, M);
#endif
  const bool pose = !ctx->position_valid;
  if (pose) mbt__calc_joint_sincos(tree, ctx);
  /* Every entry is written below unless some velocity's λ is not the one before it (branches). */
  const bool avx2 = mbt__cpu_has_avx2_fma();
#ifdef MBT__MM_BLOCKS
  const int direct_max = avx2 ? MBT__MASS_MATRIX_DIRECT_MAX_NV_BLOCKS : MBT__MASS_MATRIX_DIRECT_MAX_NV;
#else
  const int direct_max = MBT__MASS_MATRIX_DIRECT_MAX_NV;
#endif
  const bool direct = nv <= direct_max || 16 * ctx->v_path_sum < (size_t)nv * (size_t)nv;
  if (!ctx->v_parent_is_chain) memset(M, 0, sizeof(mbt_real) * (size_t)nv * (size_t)nv);
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
