/* cholesky_internal.h: dense and small Cholesky factorizations used by forward dynamics
 * (not installed). */
#ifndef MBT_CHOLESKY_INTERNAL_H
#define MBT_CHOLESKY_INTERNAL_H

#include "mbt/math.h"

/* Relative pivot threshold: pivot d_i = A_ii − Σ_k L_ik² is singular when
 * d_i <= MBT__CHOLESKY_RTOL·scale_i (scale_i = A_ii unless given). Since
 * d_i/A_ii >= λ_min/λ_max, only matrices with cond(A) > 1e13 are rejected. */
#define MBT__CHOLESKY_RTOL 1e-13

/* mbt_cholesky_factor on an n×n row-major matrix with row stride `ld`, reading and writing
 * the lower triangle only. `scale` (n, may be NULL for the diagonal of A) sets the pivot
 * threshold per row. On failure returns MBT_ERR_SINGULAR and the failing row in *failed_row
 * (may be NULL); the lower triangle is then partly overwritten (as LAPACK's dpotrf). */
int mbt__cholesky_factor_ex(mbt_real* A, int n, int ld, const mbt_real* scale, int* failed_row);
/* Solves L·Lᵀ·x = b in place with the factor of mbt__cholesky_factor_ex (row stride ld). */
void mbt__cholesky_solve_ex(const mbt_real* L, int n, int ld, mbt_real* b);

/* M = Lᵀ·D·L in place with the tree's sparsity [Featherstone, Rigid Body Dynamics Algorithms,
 * 2008, §6.5, "LTDL factorization"]: M (n×n row-major) holds M_kj for j = k and the ancestors of
 * k along lambda (lambda[k] < k the parent of k, −1 at a root; the rest is not read); tip to base,
 * for i an ancestor of k: L_ki = M_ki/d_k, M_ij −= L_ki·M_kj for j = i and its ancestors. D ends on
 * the diagonal, L below it. The pivot d_k is singular when not d_k > 0 (scale NULL), or when not
 * rtol·|scale_k| < d_k and finite; then returns MBT_ERR_SINGULAR with k in *failed_row (may be
 * NULL), M partly overwritten. O(n·depth²). */
int mbt__ltdl_factor_ex(mbt_real* M, int n, const int* lambda, const mbt_real* scale, mbt_real rtol,
                        int* failed_row);

#endif /* MBT_CHOLESKY_INTERNAL_H */
