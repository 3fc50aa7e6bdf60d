/* derivatives_simd.c: Y = −M⁻¹·X for X a ∂tau_ID/∂(q, v), the dense products of the forward
 * dynamics derivatives (∂v̇/∂q = −M⁻¹·∂tau/∂q, ∂v̇/∂v = −M⁻¹·∂tau/∂v), 2·nv³ multiply-adds on
 * a chain. The library is built for baseline x86-64 (SSE2); where the processor has AVX2 and
 * FMA (checked at run time, __builtin_cpu_supports) the product runs in 6×8 register blocks
 * of 256-bit fused multiply-adds (4×8 below 8 velocities), which agree with the baseline to round-off (one rounding
 * per multiply-add instead of two). */
#include "algorithms/derivatives_internal.h"

#ifdef MBT__AVX2
#include <immintrin.h>
#endif

/* The rows j of X that can be nonzero in columns [k, k + w): X_jk is zero unless j and k are on
 * one path to the root, so for j < k unless k is in j's subtree (end_j > k) and for j ≥ k
 * beyond the subtrees of the columns (j ≥ je); returns je. */
static inline int block_rows_end(const mbt_derivatives_workspace* ws, int k, int w) {
  int je = 0;
  for (int c = k; c < k + w; ++c) je = ws->end[c] > je ? ws->end[c] : je;
  return je;
}

/* Rows i, i+1 and columns k..k+7 of Y = −Minv·X, in registers. Minv is symmetric, so
 * Minv_ij = Minv_ji is read along row j next to X's row j. */
static void neg_product_block(const mbt_derivatives_workspace* ws, int i, int k, const mbt_real* Minv,
                              const mbt_real* X, mbt_real* Y) {
  const size_t nv = (size_t)ws->nv;
  const int je = block_rows_end(ws, k, 8);
  mbt_real a[2][8] = {{0}};
  for (int j = 0; j < je; ++j) {
    if (ws->end[j] <= k) continue;
    const mbt_real *x = X + (size_t)j * nv + k, *m = Minv + (size_t)j * nv + i;
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 8; ++c) a[r][c] += m[r] * x[c];
  }
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 8; ++c) Y[(size_t)(i + r) * nv + (size_t)(k + c)] = -a[r][c];
}

#ifdef MBT__AVX2
/* a_0 += Minv_ji·x_0 and, for w = 8, a_1 += Minv_ji·x_1 (one row of a block, m = &Minv_ji). */
MBT__ALWAYS_INLINE __attribute__((target("avx2,fma"))) void product_row_avx2(const mbt_real* m, __m256d x0,
                                                                             __m256d x1, int w, __m256d* a0,
                                                                             __m256d* a1) {
  const __m256d b = _mm256_broadcast_sd(m);
  *a0 = _mm256_fmadd_pd(b, x0, *a0);
  if (w == 8) *a1 = _mm256_fmadd_pd(b, x1, *a1);
}

/* Rows i..i+h−1 (h = 6 or 4) and columns k..k+w−1 (w = 8 or 4) of Y = −Minv·X: h·w/4 4-wide
 * accumulators (12 of the 16 registers at 6×8), per row j of X w/4 loads and h broadcasts of
 * Minv_ji. On a chain no row of X is zero (no test per row). */
MBT__ALWAYS_INLINE __attribute__((target("avx2,fma"))) void neg_product_block_avx2_body(
    const mbt_derivatives_workspace* ws, int h, int i, int k, int w, const mbt_real* Minv, const mbt_real* X,
    mbt_real* Y) {
  const size_t nv = (size_t)ws->nv;
  const int je = block_rows_end(ws, k, w);
  __m256d a00 = _mm256_setzero_pd(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00;
  __m256d a40 = a00, a41 = a00, a50 = a00, a51 = a00;
  const bool chain = ws->chain;
  for (int j = 0; j < je; ++j) {
    if (!chain && ws->end[j] <= k) continue;
    const mbt_real *x = X + (size_t)j * nv + k, *m = Minv + (size_t)j * nv + i;
    const __m256d x0 = _mm256_loadu_pd(x), x1 = w == 8 ? _mm256_loadu_pd(x + 4) : x0;
    product_row_avx2(m, x0, x1, w, &a00, &a01), product_row_avx2(m + 1, x0, x1, w, &a10, &a11);
    product_row_avx2(m + 2, x0, x1, w, &a20, &a21), product_row_avx2(m + 3, x0, x1, w, &a30, &a31);
    if (h == 6) product_row_avx2(m + 4, x0, x1, w, &a40, &a41), product_row_avx2(m + 5, x0, x1, w, &a50, &a51);
  }
  const __m256d z = _mm256_setzero_pd();
  const __m256d acc[6][2] = {{a00, a01}, {a10, a11}, {a20, a21}, {a30, a31}, {a40, a41}, {a50, a51}};
  for (int r = 0; r < h; ++r) {
    mbt_real* y = Y + (size_t)(i + r) * nv + (size_t)k;
    _mm256_storeu_pd(y, _mm256_sub_pd(z, acc[r][0]));
    if (w == 8) _mm256_storeu_pd(y + 4, _mm256_sub_pd(z, acc[r][1]));
  }
}
/* The four instances: h×w = 4×8, 4×4, 6×8, 6×4. */
#define MBT_NEG_PRODUCT_BLOCK(name, h, w)                                                                        \
  __attribute__((target("avx2,fma"))) static void name(const mbt_derivatives_workspace* ws, int i, int k,        \
                                                       const mbt_real* Minv, const mbt_real* X, mbt_real* Y) { \
    neg_product_block_avx2_body(ws, h, i, k, w, Minv, X, Y);                                                     \
  }
MBT_NEG_PRODUCT_BLOCK(neg_product_block8_avx2, 4, 8)
MBT_NEG_PRODUCT_BLOCK(neg_product_block4_avx2, 4, 4)
MBT_NEG_PRODUCT_BLOCK(neg_product_block6x8_avx2, 6, 8)
MBT_NEG_PRODUCT_BLOCK(neg_product_block6x4_avx2, 6, 4)

/* Y = −Minv·X and Y' = −Minv·X' with AVX2 for 4 ≤ nv < 8, a row at a time: columns [0, 4) and
 * [nv − 4, nv) in two accumulators each (one for nv = 4; the overlap is computed twice,
 * identically), per j one broadcast of Minv_ij for four fused multiply-adds with rows j of X and
 * X', which stay in the L1 cache. The 4×4 blocks below would load and broadcast each row of Minv
 * once per block of columns and product. */
__attribute__((target("avx2,fma"))) static void neg_products_rows_avx2(int nv, const mbt_real* Minv, const mbt_real* X,
                                                                       mbt_real* Y, const mbt_real* X2, mbt_real* Y2) {
  const size_t n = (size_t)nv, k1 = n - 4;
  const __m256d z = _mm256_setzero_pd();
  for (size_t i = 0; i < n; ++i) {
    const mbt_real* m = Minv + i * n;
    __m256d a0 = z, a1 = z, b0 = z, b1 = z;
    for (size_t j = 0; j < n; ++j) {
      const __m256d c = _mm256_broadcast_sd(m + j);
      a0 = _mm256_fmadd_pd(c, _mm256_loadu_pd(X + j * n), a0);
      a1 = _mm256_fmadd_pd(c, _mm256_loadu_pd(X + j * n + k1), a1);
      b0 = _mm256_fmadd_pd(c, _mm256_loadu_pd(X2 + j * n), b0);
      b1 = _mm256_fmadd_pd(c, _mm256_loadu_pd(X2 + j * n + k1), b1);
    }
    _mm256_storeu_pd(Y + i * n + k1, _mm256_sub_pd(z, a1));
    _mm256_storeu_pd(Y + i * n, _mm256_sub_pd(z, a0));
    _mm256_storeu_pd(Y2 + i * n + k1, _mm256_sub_pd(z, b1));
    _mm256_storeu_pd(Y2 + i * n, _mm256_sub_pd(z, b0));
  }
}

/* Y = −Minv·X with AVX2 (nv ≥ 4): rows by 6 (nv ≥ 8, else by 4), columns by 8 while 8 fit, then
 * more than 4 left by 8, else by 4, the last block of each shifted back to end at nv. */
static void neg_product_avx2(const mbt_derivatives_workspace* ws, const mbt_real* Minv, const mbt_real* X,
                             mbt_real* Y) {
  const int nv = ws->nv;
  if (nv >= 8) {  /* rows by 6: fewer rows computed twice (30 = 5·6, 18 = 3·6) */
    for (int i = 0; i < nv; i += 6) {
      const int i0 = i + 6 <= nv ? i : nv - 6;
      int k = 0;
      for (; k + 8 <= nv; k += 8) neg_product_block6x8_avx2(ws, i0, k, Minv, X, Y);
      if (nv - k > 4) {
        neg_product_block6x8_avx2(ws, i0, nv - 8, Minv, X, Y);
        continue;
      }
      if (k < nv) neg_product_block6x4_avx2(ws, i0, nv - 4, Minv, X, Y);
    }
    return;
  }
  for (int i = 0; i < nv; i += 4) {
    const int i0 = i + 4 <= nv ? i : nv - 4;
    int k = 0;
    for (; k + 8 <= nv; k += 8) neg_product_block8_avx2(ws, i0, k, Minv, X, Y);
    if (nv - k > 4 && nv >= 8) {
      neg_product_block8_avx2(ws, i0, nv - 8, Minv, X, Y);
      continue;
    }
    for (; k < nv; k += 4) neg_product_block4_avx2(ws, i0, k + 4 <= nv ? k : nv - 4, Minv, X, Y);
  }
}
#endif

/* Y = −Minv·X (nv×nv) for X a ∂tau_ID/∂(q, v): register blocks (2×8 baseline, 6×8, 6×4, 4×8 and
 * 4×4 AVX2), the last row and column of blocks shifted back to end at nv (overlapping entries are
 * computed twice, identically). */
void mbt__neg_minv_product(const mbt_derivatives_workspace* ws, const mbt_real* Minv, const mbt_real* X,
                           mbt_real* Y) {
  const int nv = ws->nv;
#ifdef MBT__AVX2
  if (ws->avx2 && nv >= 4) {
    neg_product_avx2(ws, Minv, X, Y);
    return;
  }
#endif
  if (nv < 8) {
    for (int i = 0; i < nv; ++i)
      for (int k = 0; k < nv; ++k) {
        mbt_real a = 0;
        for (int j = 0; j < nv; ++j) a += Minv[(size_t)i * nv + j] * X[(size_t)j * nv + k];
        Y[(size_t)i * nv + k] = -a;
      }
    return;
  }
  for (int i = 0; i < nv; i += 2)
    for (int k = 0; k < nv; k += 8)
      neg_product_block(ws, i + 2 <= nv ? i : nv - 2, k + 8 <= nv ? k : nv - 8, Minv, X, Y);
}

void mbt__neg_minv_products(const mbt_derivatives_workspace* ws, const mbt_real* Minv, const mbt_real* X,
                            mbt_real* Y, const mbt_real* X2, mbt_real* Y2) {
#ifdef MBT__AVX2
  if (ws->avx2 && ws->nv >= 4 && ws->nv < 8) {
    neg_products_rows_avx2(ws->nv, Minv, X, Y, X2, Y2);
    return;
  }
#endif
  mbt__neg_minv_product(ws, Minv, X, Y);
  mbt__neg_minv_product(ws, Minv, X2, Y2);
}
