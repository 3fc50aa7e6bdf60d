/* derivatives_chain_product.c: ∂v̇/∂q = −M⁻¹·∂tau/∂q and ∂v̇/∂v = −M⁻¹·∂tau/∂v on a long revolute
 * chain by structured products, without forming ∂tau (docs/derivatives.md, "Structured products
 * on a chain"). On a chain velocity j is an ancestor of k exactly when j ≤ k, so from the rows of
 * ws->J (Φ_k, Ω_k, P_j = [Ycᵀ·S_j (3); Ic·S_j (6)]) and S_k, W_k, B_k, G_k:
 *   j ≤ k:  ∂tau_j/∂q_k = S_j·Φ_k,                  ∂tau_j/∂v_k = S_j·Ω_k,
 *   j > k:  ∂tau_j/∂q_k = P_j·[W_k (angular); B_k],  ∂tau_j/∂v_k = P_j·[−S_k (angular); G_k],
 * plus damping D_k on ∂tau_k/∂v_k and spring stiffness K_k on ∂tau_k/∂q_k. With A = M⁻¹
 * (symmetric: column j is row j) and the prefix and suffix sums
 *   C_k = Σ_{j ≤ k} A[:, j]·S_jᵀ (nv×6),  E_k = Σ_{j > k} A[:, j]·P_jᵀ (nv×9),
 *   ∂v̇/∂q[:, k] = −(C_k·Φ_k + E_k·[W_k; B_k] + A[:, k]·K_k),
 *   ∂v̇/∂v[:, k] = −(C_k·Ω_k + E_k·[−S_k; G_k] + A[:, k]·D_k):
 * 45·nv² multiply-adds against the dense products' 2·nv³ and the nv² entries of ∂tau.
 * Locked velocities have zero rows and columns in A, so the same sums hold. */
#include "algorithms/derivatives_internal.h"

/* From 16 velocities with AVX-512 (its 32 registers hold a strip's sums, the broadcasts fold into
 * the multiply-adds), from 24 with AVX2 alone (the rows of ws->J by velocity fit ws->T2 from
 * MBT__JT = 24), from 28 on the baseline: where the products measured faster than the dense ones
 * (docs/benchmarks.md). */
bool mbt__chain_products(const mbt_derivatives_workspace* ws) {
  return ws->revolute_chain && ws->nv >= (!ws->avx2 ? 28 : ws->avx512 ? 16 : 24);
}

/* Row i of both products, one number at a time: E_k tip to base (row i of the E part, with
 * damping, into Yq and Yv), then C_k base to tip (its part added, the sum negated). */
static void chain_products_row(const mbt_derivatives_workspace* ws, const mbt_real* D, int i, const mbt_real* Minv,
                               mbt_real* Yq, mbt_real* Yv) {
  const size_t nv = (size_t)ws->nv;
  const mbt_real* J = ws->J;
  mbt_real *yq = Yq + (size_t)i * nv, *yv = Yv + (size_t)i * nv;
  mbt_real e[9] = {0}, c[6] = {0};
  for (size_t k = nv; k-- > 0;) {
    const mbt_real a = Minv[k * nv + (size_t)i], *W = ws->Wk[k], *B = ws->Bk[k], *S = ws->S[k], *G = ws->Gk[k];
    mbt_real q = 0, v = a * D[k];
    for (int r = 0; r < 3; ++r) q += e[r] * W[r], v -= e[r] * S[r];
    for (int r = 0; r < 6; ++r) q += e[3 + r] * B[r], v += e[3 + r] * G[r];
    yq[k] = q, yv[k] = v;
    for (int r = 0; r < 9; ++r) e[r] += a * J[(size_t)(MBT_J_SY + r) * nv + k];
  }
  for (size_t k = 0; k < nv; ++k) {
    const mbt_real a = Minv[k * nv + (size_t)i];
    mbt_real q = yq[k], v = yv[k];
    for (int r = 0; r < 6; ++r) {
      c[r] += a * ws->S[k][r];
      q += c[r] * J[(size_t)(MBT_J_PHI + r) * nv + k], v += c[r] * J[(size_t)(MBT_J_OMEGA + r) * nv + k];
    }
    yq[k] = -q, yv[k] = -v;
  }
}

#ifdef MBT__AVX2
/* mbt__store_transposed4 for the 8×4 block of 8-wide columns (of the halves). */
__attribute__((always_inline, target("avx512f,avx2,fma"))) static inline void store_transposed8(
    const __m512d* c, size_t n, mbt_real* y) {
  const __m256d lo[4] = {_mm512_castpd512_pd256(c[0]), _mm512_castpd512_pd256(c[1]), _mm512_castpd512_pd256(c[2]),
                         _mm512_castpd512_pd256(c[3])};
  const __m256d hi[4] = {_mm512_extractf64x4_pd(c[0], 1), _mm512_extractf64x4_pd(c[1], 1),
                         _mm512_extractf64x4_pd(c[2], 1), _mm512_extractf64x4_pd(c[3], 1)};
  mbt__store_transposed4(lo, n, y);
  mbt__store_transposed4(hi, n, y + 4 * n);
}

/* The rows of ws->J by velocity for the AVX2 strips, whose broadcasts then take constant offsets:
 * Jt[k·MBT__JT + r] = J[r·nv + k] (ws->T2, nv ≥ MBT__JT), by 4×4 blocks transposed in registers. */
enum { MBT__JT = MBT_J_ROWS + 3 };
__attribute__((target("avx2,fma"))) static void transpose_rows(const mbt_derivatives_workspace* ws) {
  const size_t nv = (size_t)ws->nv;
  const mbt_real* J = ws->J;
  mbt_real* Jt = ws->T2;
  size_t k = 0;
  for (; k + 4 <= nv; k += 4)
    for (int r = 0; r + 4 <= MBT_J_ROWS; r += 4) {
      const mbt_real* p = J + (size_t)r * nv + k;
      const __m256d c[4] = {_mm256_loadu_pd(p), _mm256_loadu_pd(p + nv), _mm256_loadu_pd(p + 2 * nv),
                            _mm256_loadu_pd(p + 3 * nv)};
      mbt__store_transposed4(c, MBT__JT, Jt + k * MBT__JT + (size_t)r);
    }
  for (size_t kk = 0; kk < nv; ++kk) /* the last row, and the last columns, fewer than four */
    for (int r = kk < k ? MBT_J_ROWS / 4 * 4 : 0; r < MBT_J_ROWS; ++r)
      Jt[kk * MBT__JT + (size_t)r] = J[(size_t)r * nv + kk];
}

/* acc + x·c and acc − x·c, c broadcast (pre: _mm256 or _mm512). */
#define MBT__CP_FMA(pre, x, c, acc) pre##_fmadd_pd(x, pre##_set1_pd(c), acc)
#define MBT__CP_FNMA(pre, x, c, acc) pre##_fnmadd_pd(x, pre##_set1_pd(c), acc)
/* Rows i0..i0 + L − 1 of both products in L-wide registers V (pre##_…_pd their intrinsics), lanes
 * over the rows (A[i0.., k] is row k of A from i0), row r of ws->J at velocity k read at
 * Jsrc[k·PK + r·PS]: E_k tip to base in 9 registers, minus the E part with damping stored per k
 * into ws->T1 (L numbers each for q, then for v); then C_k base to tip in 6 registers, its part
 * subtracted, four columns at a time transposed in registers (store_t) and stored by rows. */
#define MBT__CHAIN_PRODUCTS_ROWS(name, attributes, V, pre, L, store_t, Jsrc, PK, PS)                                \
  attributes static void name(const mbt_derivatives_workspace* ws, const mbt_real* D, int i0,                       \
                              const mbt_real* Minv, mbt_real* Yq, mbt_real* Yv) {                                   \
    const int nv = ws->nv;                                                                                          \
    const size_t n = (size_t)nv;                                                                                    \
    const mbt_real* J = Jsrc;                                                                                       \
    mbt_real *tq = ws->T1, *tv = ws->T1 + L * n;                                                                    \
    const V z = pre##_setzero_pd();                                                                                 \
    V e0 = z, e1 = e0, e2 = e0, e3 = e0, e4 = e0, e5 = e0, e6 = e0, e7 = e0, e8 = e0;                               \
    for (int k = nv - 1; k >= 0; --k) {                                                                             \
      const V a = pre##_loadu_pd(Minv + (size_t)k * n + (size_t)i0);                                                \
      const mbt_real *W = ws->Wk[k], *B = ws->Bk[k], *S = ws->S[k], *G = ws->Gk[k];                                 \
      const mbt_real* P = J + (size_t)k * PK;                                                                       \
      V q0 = MBT__CP_FNMA(pre, e0, W[0], z), q1 = MBT__CP_FNMA(pre, e1, W[1], z);                                   \
      V v0 = MBT__CP_FNMA(pre, a, D[k], z), v1 = MBT__CP_FNMA(pre, e3, G[0], z);                                    \
      q0 = MBT__CP_FNMA(pre, e2, W[2], q0), q1 = MBT__CP_FNMA(pre, e3, B[0], q1);                                   \
      q0 = MBT__CP_FNMA(pre, e4, B[1], q0), q1 = MBT__CP_FNMA(pre, e5, B[2], q1);                                   \
      q0 = MBT__CP_FNMA(pre, e6, B[3], q0), q1 = MBT__CP_FNMA(pre, e7, B[4], q1);                                   \
      q0 = MBT__CP_FNMA(pre, e8, B[5], q0);                                                                         \
      v0 = MBT__CP_FMA(pre, e0, S[0], v0), v1 = MBT__CP_FMA(pre, e1, S[1], v1);                                     \
      v0 = MBT__CP_FMA(pre, e2, S[2], v0), v1 = MBT__CP_FNMA(pre, e4, G[1], v1);                                    \
      v0 = MBT__CP_FNMA(pre, e5, G[2], v0), v1 = MBT__CP_FNMA(pre, e6, G[3], v1);                                   \
      v0 = MBT__CP_FNMA(pre, e7, G[4], v0), v1 = MBT__CP_FNMA(pre, e8, G[5], v1);                                   \
      pre##_storeu_pd(tq + L * k, pre##_add_pd(q0, q1));                                                            \
      pre##_storeu_pd(tv + L * k, pre##_add_pd(v0, v1));                                                            \
      e0 = MBT__CP_FMA(pre, a, P[MBT_J_SY * PS], e0), e1 = MBT__CP_FMA(pre, a, P[(MBT_J_SY + 1) * PS], e1);         \
      e2 = MBT__CP_FMA(pre, a, P[(MBT_J_SY + 2) * PS], e2), e3 = MBT__CP_FMA(pre, a, P[MBT_J_SI * PS], e3);         \
      e4 = MBT__CP_FMA(pre, a, P[(MBT_J_SI + 1) * PS], e4), e5 = MBT__CP_FMA(pre, a, P[(MBT_J_SI + 2) * PS], e5);   \
      e6 = MBT__CP_FMA(pre, a, P[(MBT_J_SI + 3) * PS], e6), e7 = MBT__CP_FMA(pre, a, P[(MBT_J_SI + 4) * PS], e7);   \
      e8 = MBT__CP_FMA(pre, a, P[(MBT_J_SI + 5) * PS], e8);                                                         \
    }                                                                                                               \
    V c0 = pre##_setzero_pd(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0;                                         \
    for (int k0 = 0; k0 < nv; k0 += 4) {                                                                            \
      const int w = nv - k0 < 4 ? nv - k0 : 4;                                                                      \
      V yq[4], yv[4];                                                                                               \
      for (int l = 0; l < w; ++l) {                                                                                 \
        const int k = k0 + l;                                                                                       \
        const V a = pre##_loadu_pd(Minv + (size_t)k * n + (size_t)i0);                                              \
        const mbt_real *S = ws->S[k], *P = J + (size_t)k * PK;                                                      \
        c0 = MBT__CP_FMA(pre, a, S[0], c0), c1 = MBT__CP_FMA(pre, a, S[1], c1);                                     \
        c2 = MBT__CP_FMA(pre, a, S[2], c2), c3 = MBT__CP_FMA(pre, a, S[3], c3);                                     \
        c4 = MBT__CP_FMA(pre, a, S[4], c4), c5 = MBT__CP_FMA(pre, a, S[5], c5);                                     \
        V q0 = pre##_loadu_pd(tq + L * k), v0 = pre##_loadu_pd(tv + L * k);                                         \
        V q1 = MBT__CP_FNMA(pre, c0, P[MBT_J_PHI * PS], z);                                                         \
        V v1 = MBT__CP_FNMA(pre, c0, P[MBT_J_OMEGA * PS], z);                                                       \
        q0 = MBT__CP_FNMA(pre, c1, P[(MBT_J_PHI + 1) * PS], q0);                                                    \
        v0 = MBT__CP_FNMA(pre, c1, P[(MBT_J_OMEGA + 1) * PS], v0);                                                  \
        q1 = MBT__CP_FNMA(pre, c2, P[(MBT_J_PHI + 2) * PS], q1);                                                    \
        v1 = MBT__CP_FNMA(pre, c2, P[(MBT_J_OMEGA + 2) * PS], v1);                                                  \
        q0 = MBT__CP_FNMA(pre, c3, P[(MBT_J_PHI + 3) * PS], q0);                                                    \
        v0 = MBT__CP_FNMA(pre, c3, P[(MBT_J_OMEGA + 3) * PS], v0);                                                  \
        q1 = MBT__CP_FNMA(pre, c4, P[(MBT_J_PHI + 4) * PS], q1);                                                    \
        v1 = MBT__CP_FNMA(pre, c4, P[(MBT_J_OMEGA + 4) * PS], v1);                                                  \
        q0 = MBT__CP_FNMA(pre, c5, P[(MBT_J_PHI + 5) * PS], q0);                                                    \
        v0 = MBT__CP_FNMA(pre, c5, P[(MBT_J_OMEGA + 5) * PS], v0);                                                  \
        yq[l] = pre##_add_pd(q0, q1), yv[l] = pre##_add_pd(v0, v1);                                                 \
      }                                                                                                             \
      if (w == 4) {                                                                                                 \
        store_t(yq, n, Yq + (size_t)i0 * n + (size_t)k0);                                                           \
        store_t(yv, n, Yv + (size_t)i0 * n + (size_t)k0);                                                           \
        continue;                                                                                                   \
      }                                                                                                             \
      for (int l = 0; l < w; ++l) { /* the last columns, fewer than four */                                         \
        mbt_real q[L], v[L];                                                                                        \
        pre##_storeu_pd(q, yq[l]), pre##_storeu_pd(v, yv[l]);                                                       \
        for (int r = 0; r < L; ++r)                                                                                 \
          Yq[(size_t)(i0 + r) * n + (size_t)(k0 + l)] = q[r], Yv[(size_t)(i0 + r) * n + (size_t)(k0 + l)] = v[r];   \
      }                                                                                                             \
    }                                                                                                               \
  }
/* AVX2: strips of 4 rows (one broadcast, a load, per multiply-add) from the rows of J by velocity
 * (transpose_rows: constant offsets); AVX-512: strips of 8 in its 32 registers (no spills), the
 * broadcasts folded into the multiply-adds, from J itself. */
MBT__CHAIN_PRODUCTS_ROWS(chain_products_rows4, __attribute__((target("avx2,fma"))), __m256d, _mm256, 4,
                         mbt__store_transposed4, ws->T2, MBT__JT, 1)
MBT__CHAIN_PRODUCTS_ROWS(chain_products_rows8, __attribute__((target("avx512f,avx2,fma"))), __m512d, _mm512, 8,
                         store_transposed8, ws->J, 1, n)
#endif

/* Y = −M⁻¹·X and Y2 = −M⁻¹·X2 for X, X2 = ∂tau/∂(q, v) on a revolute chain (mbt__chain_products)
 * from the rows of ws->J and ws->S, Wk, Bk, Gk at v̇ (mbt__derivatives_rows_at_vdot). */
void mbt__chain_neg_minv_products(const mbt_tree* tree, const mbt_context* ctx, const mbt_derivatives_workspace* ws,
                                  const mbt_real* Minv, mbt_real* Yq, mbt_real* Yv) {
  const int nv = ws->nv;
  const mbt_real* D = ctx->damping;
#ifdef MBT__AVX2
  /* by strips of 8 or 4 rows, the last rows, fewer, in the strip ending at the last row (rows
     before them computed again, to the same numbers) */
  if (ws->avx2 && ws->avx512) {
    for (int i0 = 0; i0 < nv; i0 += 8) chain_products_rows8(ws, D, i0 + 8 <= nv ? i0 : nv - 8, Minv, Yq, Yv);
  } else if (ws->avx2) { /* nv ≥ 24 = MBT__JT (mbt__chain_products) */
    transpose_rows(ws);
    for (int i0 = 0; i0 < nv; i0 += 4) chain_products_rows4(ws, D, i0 + 4 <= nv ? i0 : nv - 4, Minv, Yq, Yv);
  } else
#endif
    for (int i = 0; i < nv; ++i) chain_products_row(ws, D, i, Minv, Yq, Yv);
  /* springs: ∂v̇/∂q[:, k] −= A[:, k]·K_k */
  for (int e = 0; e < tree->num_forces; ++e) {
    const mbt_force_element* fe = &tree->forces[e];
    if (fe->type != MBT_FORCE_REVOLUTE_SPRING) continue;
    const size_t k = (size_t)tree->mobilizers[tree->joints[fe->u.revolute_spring.joint].mobilizer].v_start;
    const mbt_real K = fe->u.revolute_spring.stiffness;
    for (int i = 0; i < nv; ++i) Yq[(size_t)i * (size_t)nv + k] -= Minv[k * (size_t)nv + (size_t)i] * K;
  }
}
