/* Dense Cholesky factorization A = L·Lᵀ of a symmetric positive-definite matrix, in place,
 * row-oriented (Cholesky–Crout): for each row i and j < i
 *   L_ij = (A_ij − Σ_{k<j} L_ik·L_jk) / L_jj,   L_ii = sqrt(A_ii − Σ_{k<i} L_ik²)
 * [Golub & Van Loan, Matrix Computations, 4th ed., §4.2]. Row-major, so both rows of each
 * inner product are contiguous. No allocation. */
#include "algorithms/cholesky_internal.h"
#include "mbt/dynamics.h"

int mbt__cholesky_factor_ex(mbt_real* A, int n, int ld, const mbt_real* scale, int* failed_row) {
  for (int i = 0; i < n; ++i) {
    mbt_real* Li = A + (size_t)i * (size_t)ld;
    /* Off-diagonal pivots of row i, then its diagonal; the original A_ii is still in place
     * when the pivot is checked. */
    for (int j = 0; j < i; ++j) {
      const mbt_real* Lj = A + (size_t)j * (size_t)ld;
      mbt_real s = Li[j];
      for (int k = 0; k < j; ++k) s -= Li[k] * Lj[k];
      Li[j] = s / Lj[j];
    }
    mbt_real d = Li[i];
    for (int k = 0; k < i; ++k) d -= Li[k] * Li[k];
    const mbt_real ref = scale ? scale[i] : Li[i];
    /* Not positive, NaN, or lost to cancellation: singular. */
    if (!(mbt_lt(MBT__CHOLESKY_RTOL * mbt_abs(ref), d) && mbt_isfinite(d))) {
      if (failed_row) *failed_row = i;
      return MBT_ERR_SINGULAR;
    }
    Li[i] = mbt_sqrt(d);
  }
  return MBT_OK;
}

/* L·y = b (forward), then Lᵀ·x = y (backward). */
void mbt__cholesky_solve_ex(const mbt_real* L, int n, int ld, mbt_real* b) {
  for (int i = 0; i < n; ++i) {
    const mbt_real* Li = L + (size_t)i * (size_t)ld;
    mbt_real s = b[i];
    for (int k = 0; k < i; ++k) s -= Li[k] * b[k];
    b[i] = s / Li[i];
  }
  for (int i = n - 1; i >= 0; --i) {
    mbt_real s = b[i];
    for (int k = i + 1; k < n; ++k) s -= L[(size_t)k * (size_t)ld + (size_t)i] * b[k];
    b[i] = s / L[(size_t)i * (size_t)ld + (size_t)i];
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
