/* Dense Cholesky factorization A = L·Lᵀ of a symmetric positive-definite matrix, in place,
 * column by column (left-looking): for each column j
 *   L_jj = sqrt(A_jj − Σ_{k<j} L_jk²),   L_ij = (A_ij − Σ_{k<j} L_ik·L_jk) / L_jj  (i > j)
 * [Golub & Van Loan, Matrix Computations, 4th ed., §4.2]. Row-major, so both rows of each
 * inner product are contiguous, and the inner products of one column are independent of
 * each other. No allocation. */
#include "algorithms/cholesky_internal.h"
#include "mbt/dynamics.h"

/* Σ_{k<n} a_k·b_k with four partial sums (independent chains of additions). */
static inline mbt_real dot(const mbt_real* a, const mbt_real* b, int n) {
  mbt_real s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int k = 0;
  for (; k + 4 <= n; k += 4) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
    s2 += a[k + 2] * b[k + 2];
    s3 += a[k + 3] * b[k + 3];
  }
  for (; k < n; ++k) s0 += a[k] * b[k];
  return (s0 + s1) + (s2 + s3);
}

int mbt__cholesky_factor_ex(mbt_real* A, int n, int ld, const mbt_real* scale, int* failed_row) {
  for (int j = 0; j < n; ++j) {
    mbt_real* Lj = A + (size_t)j * (size_t)ld;
    /* The original A_jj is still in place when the pivot is checked. */
    const mbt_real d = Lj[j] - dot(Lj, Lj, j);
    const mbt_real ref = scale ? scale[j] : Lj[j];
    /* Not positive, NaN, or lost to cancellation: singular. */
    if (!(mbt_lt(MBT__CHOLESKY_RTOL * mbt_abs(ref), d) && mbt_isfinite(d))) {
      if (failed_row) *failed_row = j;
      return MBT_ERR_SINGULAR;
    }
    Lj[j] = mbt_sqrt(d);
    const mbt_real inv = 1 / Lj[j];
    for (int i = j + 1; i < n; ++i) {
      mbt_real* Li = A + (size_t)i * (size_t)ld;
      Li[j] = (Li[j] - dot(Li, Lj, j)) * inv;
    }
  }
  return MBT_OK;
}

/* The solve of a small system (n <= 6: the articulated-body algorithm's D), with the reciprocals
 * of the diagonal formed first, off the chain of dependent operations. */
static void solve_small(const mbt_real* L, int n, int ld, mbt_real* b) {
  mbt_real inv[6];
  for (int i = 0; i < n; ++i) inv[i] = 1 / L[(size_t)i * (size_t)ld + (size_t)i];
  for (int i = 0; i < n; ++i) b[i] = (b[i] - dot(L + (size_t)i * (size_t)ld, b, i)) * inv[i];
  for (int i = n - 1; i >= 0; --i) {
    const mbt_real* Li = L + (size_t)i * (size_t)ld;
    const mbt_real x = b[i] * inv[i];
    b[i] = x;
    for (int k = 0; k < i; ++k) b[k] -= Li[k] * x;
  }
}

/* L·y = b (forward, by rows), then Lᵀ·x = y (backward, by rows of L: x_i = y_i/L_ii, then
 * y_k −= L_ik·x_i for k < i). */
void mbt__cholesky_solve_ex(const mbt_real* L, int n, int ld, mbt_real* b) {
  if (n <= 6) {
    solve_small(L, n, ld, b);
    return;
  }
  for (int i = 0; i < n; ++i) {
    const mbt_real* Li = L + (size_t)i * (size_t)ld;
    b[i] = (b[i] - dot(Li, b, i)) / Li[i];
  }
  for (int i = n - 1; i >= 0; --i) {
    const mbt_real* Li = L + (size_t)i * (size_t)ld;
    const mbt_real x = b[i] / Li[i];
    b[i] = x;
    for (int k = 0; k < i; ++k) b[k] -= Li[k] * x;
  }
}

int mbt_cholesky_factor(mbt_real* A, int n) {
  if (!A || n < 0) return MBT_ERR_INVALID_ARGUMENT;
  return mbt__cholesky_factor_ex(A, n, n, NULL, NULL);
}

void mbt_cholesky_solve(const mbt_real* L, int n, mbt_real* b) {
  if (!L || !b || n <= 0) return;
  mbt__cholesky_solve_ex(L, n, n, b);
}

int mbt__ltdl_factor_ex(mbt_real* M, int n, const int* lambda, const mbt_real* scale, mbt_real rtol,
                        int* failed_row) {
  for (int k = n - 1; k >= 0; --k) {
    mbt_real* Mk = M + (size_t)k * (size_t)n;
    const mbt_real d = Mk[k];
    const bool regular = scale ? mbt_lt(rtol * mbt_abs(scale[k]), d) && mbt_isfinite(d) : mbt_lt(0, d);
    if (!regular) {
      if (failed_row) *failed_row = k;
      return MBT_ERR_SINGULAR;
    }
    for (int i = lambda[k]; i >= 0; i = lambda[i]) {
      const mbt_real a = Mk[i] / d;
      mbt_real* Mi = M + (size_t)i * (size_t)n;
      for (int j = i; j >= 0; j = lambda[j]) Mi[j] -= a * Mk[j];
      Mk[i] = a;
    }
  }
  return MBT_OK;
}
