/* derivatives_fd.c: derivatives of forward dynamics, the inverse mass matrix and ∂tau_g/∂q.
 *
 * Forward dynamics inverts inverse dynamics: tau_ID(q, v, FD(q, v, tau), tau) = 0 for all
 * (q, v, tau), so by the implicit function theorem [Carpentier & Mansard, RSS 2018, §IV]
 *   ∂v̇/∂q = −M⁻¹·∂tau_ID/∂q,  ∂v̇/∂v = −M⁻¹·∂tau_ID/∂v  at v̇ = FD,  ∂v̇/∂tau = M⁻¹.
 * M⁻¹ comes from the articulated-body recursion applied to the nv unit torques at once
 * [Carpentier, "Analytical inverse of the joint space inertia matrix", 2018], in W about Wo
 * (no transforms), O(nv²), without forming M: the velocities of a node are a chain of
 * virtual one-dof joints (the node's body on the last one), which has the same M. With
 * locked joints only the free block M_ff acts (v̇ of a locked joint is 0): a locked velocity
 * passes its articulated inertia on whole, as a weld, and its rows and columns of M⁻¹ are
 * zero (M_ff⁻¹ padded with zeros). Where the paths to the root hold few velocities (UR5, a
 * quadruped) M⁻¹ and v̇ come cheaper from the LᵀDL factor of M, formed from the same Ic·S
 * (ws->minv_ltdl, chosen per tree by operation counts), on a chain of 12 or more velocities by
 * dense blocks of rows (ws->minv_dense). */
#include <math.h>
#include <string.h>
#include "algorithms/cholesky_internal.h"
#include "algorithms/derivatives_internal.h"
#ifdef MBT__AVX2
#include <immintrin.h>
#endif

/* MBT_OK, or MBT_ERR_INVALID_ARGUMENT naming the first force element whose derivative is not
 * computed (a linear spring-damper, a user force with a callback). */
static int check_force_elements(const mbt_tree* tree, mbt_context* ctx, const char* what) {
  for (int e = 0; e < tree->num_forces; ++e) {
    const mbt_force_element* fe = &tree->forces[e];
    if (fe->type == MBT_FORCE_LINEAR_SPRING_DAMPER || (fe->type == MBT_FORCE_USER && fe->u.user.fn))
      return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT,
                                "%s: force element '%s' (%s) has no analytic derivative; only gravity, joint "
                                "damping and revolute springs are differentiated",
                                what, fe->name, fe->type == MBT_FORCE_USER ? "user force" : "linear spring-damper");
  }
  return MBT_OK;
}

static int singular_error(const mbt_tree* tree, mbt_context* ctx, int dof) {
  const mbt_node* n = &tree->nodes[tree->v_node[dof]];
  return mbt__context_error(ctx, MBT_ERR_SINGULAR,
                            "body '%s': mass matrix is singular at velocity %d (mobilizer '%s'): its inverse "
                            "and the forward dynamics derivatives are undefined",
                            tree->bodies[n->body].name, dof, tree->mobilizers[n->mobilizer].name);
}

/* Ia_k of every velocity: the body of a node on its last velocity, zero elsewhere. */
static void init_articulated(const mbt_tree* tree, mbt_derivatives_workspace* ws) {
  memset(ws->Ia, 0, (size_t)ws->nv * 36 * sizeof(mbt_real));
  for (int i = 1; i < ws->nl; ++i) {
    if (ws->last[i] < 0) continue;
    mbt_real P[36];
    mbt_real* Ia = ws->Ia + (size_t)ws->last[i] * 36;
    mbt__moments_matrix(&ws->Ib[i], P);
    for (int r = 0; r < 36; ++r) Ia[r] += P[r];
  }
  (void)tree;
}

/* One sweep over j in [j0, j1) of 6 rows X_r (stride nv):
 *   x_j = (add_row ? row_j : 0) + Σ_r c_r·X_r,j,  row_j = x_j,  Y_r,j = X_r,j + d_r·x_j
 * (Y may be X). Tip to base c = −S_k/D_k, d = U_k, X = P_k, Y = P_up; base to tip
 * c = −U_k/D_k, d = S_k, X = A_up, Y = A_k, add_row. */
MBT__ALWAYS_INLINE void minv_sweep_body(const mbt_real* c, const mbt_real* d, const mbt_real* X, mbt_real* Y, int nv,
                                        int j0, int j1, bool add_row, mbt_real* restrict row) {
  const mbt_real *x0 = X, *x1 = x0 + nv, *x2 = x1 + nv, *x3 = x2 + nv, *x4 = x3 + nv, *x5 = x4 + nv;
  mbt_real *y0 = Y, *y1 = y0 + nv, *y2 = y1 + nv, *y3 = y2 + nv, *y4 = y3 + nv, *y5 = y4 + nv;
  for (int j = j0; j < j1; ++j) {
    const mbt_real a0 = x0[j], a1 = x1[j], a2 = x2[j], a3 = x3[j], a4 = x4[j], a5 = x5[j];
    const mbt_real dot = (c[0] * a0 + c[3] * a3) + (c[1] * a1 + c[4] * a4) + (c[2] * a2 + c[5] * a5);
    const mbt_real x = add_row ? row[j] + dot : dot;
    row[j] = x;
    y0[j] = a0 + d[0] * x, y1[j] = a1 + d[1] * x, y2[j] = a2 + d[2] * x;
    y3[j] = a3 + d[3] * x, y4[j] = a4 + d[4] * x, y5[j] = a5 + d[5] * x;
  }
}

#ifdef MBT__AVX2
/* The same, four j at a time (the six loads of a group precede its stores, so Y may be X). */
__attribute__((target("avx2,fma"))) static void minv_sweep_avx2(const mbt_real* c, const mbt_real* d, const mbt_real* X,
                                                                mbt_real* Y, int nv, int j0, int j1, bool add_row,
                                                                mbt_real* restrict row) {
  __m256d cr[6], dr[6];
  for (int r = 0; r < 6; ++r) cr[r] = _mm256_broadcast_sd(c + r), dr[r] = _mm256_broadcast_sd(d + r);
  int j = j0;
  for (; j + 4 <= j1; j += 4) {
    __m256d a[6];
    for (int r = 0; r < 6; ++r) a[r] = _mm256_loadu_pd(X + (size_t)r * (size_t)nv + (size_t)j);
    __m256d x = _mm256_add_pd(_mm256_fmadd_pd(cr[0], a[0], _mm256_mul_pd(cr[3], a[3])),
                              _mm256_fmadd_pd(cr[1], a[1], _mm256_mul_pd(cr[4], a[4])));
    x = _mm256_add_pd(x, _mm256_fmadd_pd(cr[2], a[2], _mm256_mul_pd(cr[5], a[5])));
    if (add_row) x = _mm256_add_pd(_mm256_loadu_pd(row + j), x);
    _mm256_storeu_pd(row + j, x);
    for (int r = 0; r < 6; ++r) _mm256_storeu_pd(Y + (size_t)r * (size_t)nv + (size_t)j, _mm256_fmadd_pd(dr[r], x, a[r]));
  }
  minv_sweep_body(c, d, X, Y, nv, j, j1, add_row, row);
}
#endif

static void minv_sweep(const mbt_derivatives_workspace* ws, const mbt_real* c, const mbt_real* d, const mbt_real* X,
                       mbt_real* Y, int j0, int j1, bool add_row, mbt_real* row) {
#ifdef MBT__AVX2
  if (ws->avx2) {
    minv_sweep_avx2(c, d, X, Y, ws->nv, j0, j1, add_row, row);
    return;
  }
#endif
  minv_sweep_body(c, d, X, Y, ws->nv, j0, j1, add_row, row);
}

/* Ia_λ += Ia_k − U_k·U_kᵀ/D_k (6×6). */
MBT__ALWAYS_INLINE void articulated_pass_on_body(const mbt_derivatives_workspace* ws, const mbt_real* restrict Ia,
                                                const mbt_real* restrict U, mbt_real Dinv, mbt_real* restrict Iu) {
  (void)ws;
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 6; ++c) Iu[6 * r + c] += Ia[6 * r + c] - Dinv * U[r] * U[c];
}
MBT_DERIV_KERNEL(articulated_pass_on,
                 (const mbt_derivatives_workspace* ws, const mbt_real* Ia, const mbt_real* U, mbt_real Dinv,
                  mbt_real* Iu),
                 (ws, Ia, U, Dinv, Iu), (ws, Ia, U, Dinv, Iu))

/* Tip to base over the velocities, for the unit torques of k's subtree (columns j in
 * [k, end_k)) at once: U_k = Ia_k·S_k, D_k = S_kᵀ·U_k, the first part of row k of M⁻¹
 *   Minv_kj = (δ_kj − S_kᵀ·P_k,j)/D_k,
 * then Ia_λ += Ia_k − U_k·U_kᵀ/D_k and P_λ,j = P_k,j + U_k·Minv_kj (each column of P_λ comes
 * from one child: no accumulation). P_k is 6 rows of nv in ws->PA. */
static int minv_backward(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws, mbt_real* Minv) {
  const int nv = ws->nv;
  for (int k = nv - 1; k >= 0; --k) {
    const int up = ws->up[k], e = ws->end[k];
    const bool locked = ctx->any_locked && ctx->v_locked[k];
    mbt_real* Ia = ws->Ia + (size_t)k * 36;
    const mbt_real* S = ws->S[k];
    mbt_real* P = ws->PA + (size_t)k * 6 * nv;
    mbt_real* row = Minv + (size_t)k * nv;
    mbt_real* U = ws->U[k];
    if (locked) {
      for (int j = k; j < e; ++j) row[j] = 0;
      for (int r = 0; r < 6; ++r) U[r] = 0;
      ws->Dinv[k] = 0;
    } else {
      for (int r = 0; r < 6; ++r) U[r] = mbt__v6_dot(Ia + 6 * r, S);
      const mbt_real D = mbt__v6_dot(S, U), Mkk = mbt__v6_dot(S, ws->SI[k]);
      if (!(mbt_lt(MBT__CHOLESKY_RTOL * mbt_abs(Mkk), D) && mbt_isfinite(D))) return singular_error(tree, ctx, k);
      const mbt_real Dinv = 1 / D;
      ws->Dinv[k] = Dinv;
      row[k] = Dinv;
    }
    const mbt_real c[6] = {-ws->Dinv[k] * S[0], -ws->Dinv[k] * S[1], -ws->Dinv[k] * S[2],
                           -ws->Dinv[k] * S[3], -ws->Dinv[k] * S[4], -ws->Dinv[k] * S[5]};
    if (up < 0) {  /* nothing to pass on: P_k is overwritten */
      if (!locked) minv_sweep(ws, c, U, P, P, k + 1, e, false, row);
      continue;
    }
    articulated_pass_on(ws, Ia, U, ws->Dinv[k], ws->Ia + (size_t)up * 36);
    mbt_real* Pu = ws->PA + (size_t)up * 6 * nv;
    for (int r = 0; r < 6; ++r) Pu[(size_t)r * nv + k] = U[r] * row[k];
    if (locked) {
      for (int r = 0; r < 6; ++r)
        memcpy(Pu + (size_t)r * nv + k + 1, P + (size_t)r * nv + k + 1, (size_t)(e - k - 1) * sizeof(mbt_real));
    } else {
      minv_sweep(ws, c, U, P, Pu, k + 1, e, false, row);
    }
  }
  return MBT_OK;
}

/* Base to tip, the upper triangle (j ≥ k): with A_k,j the acceleration of k's virtual body
 * under the unit torque j (6 rows of nv in ws->PA, over P_k, which is no longer needed),
 *   Minv_kj −= U_kᵀ·A_λ,j/D_k,  A_k,j = A_λ,j + S_k·Minv_kj;
 * then the lower triangle by symmetry. */
static void minv_forward(mbt_derivatives_workspace* ws, mbt_real* Minv) {
  const int nv = ws->nv;
  for (int k = 0; k < nv; ++k) {
    const int up = ws->up[k], e = ws->end[k];
    const mbt_real* S = ws->S[k];
    mbt_real* row = Minv + (size_t)k * nv;
    mbt_real* Ak = ws->PA + (size_t)k * 6 * nv;
    for (int j = e; j < nv; ++j) row[j] = 0;
    if (up < 0) {
      for (int r = 0; r < 6; ++r)
        for (int j = k; j < nv; ++j) Ak[(size_t)r * nv + j] = S[r] * row[j];
      continue;
    }
    const mbt_real* U = ws->U[k];
    const mbt_real c[6] = {-ws->Dinv[k] * U[0], -ws->Dinv[k] * U[1], -ws->Dinv[k] * U[2],
                           -ws->Dinv[k] * U[3], -ws->Dinv[k] * U[4], -ws->Dinv[k] * U[5]};
    minv_sweep(ws, c, S, ws->PA + (size_t)up * 6 * nv, Ak, k, nv, true, row);
  }
  for (int k = 0; k < nv; ++k)
    for (int j = k + 1; j < nv; ++j) Minv[(size_t)j * nv + k] = Minv[(size_t)k * nv + j];
}

/* x = −M⁻¹·tau0 by the articulated factorization that minv_backward leaves (U_k, 1/D_k): tip
 * to base u_k = −tau0_k − S_kᵀ·p_k, x_k = u_k/D_k, p_λ += p_k + U_k·x_k; base to tip
 * x_k −= U_kᵀ·a_λ/D_k, a_k = a_λ + S_k·x_k. Locked velocities pass p and a on, x_k = 0. */
static void articulated_solve(const mbt_context* ctx, mbt_derivatives_workspace* ws, const mbt_real* tau0,
                              mbt_real* x) {
  const int nv = ws->nv;
  mbt_v6* p = ws->pa;  /* p_k tip to base, then a_k base to tip */
  memset(p, 0, (size_t)nv * sizeof(mbt_v6));
  for (int k = nv - 1; k >= 0; --k) {
    const int up = ws->up[k];
    const bool locked = ctx->any_locked && ctx->v_locked[k];
    x[k] = locked ? 0 : ws->Dinv[k] * (-tau0[k] - mbt__v6_dot(ws->S[k], p[k]));
    if (up >= 0)
      for (int r = 0; r < 6; ++r) p[up][r] += p[k][r] + ws->U[k][r] * x[k];
  }
  for (int k = 0; k < nv; ++k) {
    const int up = ws->up[k];
    const bool locked = ctx->any_locked && ctx->v_locked[k];
    if (up >= 0 && !locked) x[k] -= ws->Dinv[k] * mbt__v6_dot(ws->U[k], p[up]);
    for (int r = 0; r < 6; ++r) p[k][r] = (up >= 0 ? p[up][r] : 0) + ws->S[k][r] * x[k];
  }
}

/* ---- M⁻¹ and v̇ by the LᵀDL factor of M (ws->minv_ltdl: trees of few velocities per path) ----
 * M = Lᵀ·D·L with L unit lower triangular, L_kj ≠ 0 only for j an ancestor of k (ws->up),
 * factored tip to base [Featherstone, Rigid Body Dynamics Algorithms, 2008, §6.5]. Its pivots
 * d_k are the D_k = S_kᵀ·Ia_k·S_k of the articulated sweeps, so the singularity test is theirs.
 * A locked velocity's row and column of M are those of the identity: M_ff⁻¹ padded as above. */

bool mbt__minv_by_ltdl(mbt_derivatives_workspace* ws) {
  /* Multiply-adds per velocity k with d_k ancestors: M's row 6·(d_k + 1), the factor
   * f_k = Σ (d_i + 1) over its ancestors i, the inverse k·d_k; the sweeps 108 and 24 per velocity
   * of its subtree. The LᵀDL loops (lists of ancestors; v̇ refined once) take ~1.8 times longer
   * per multiply-add: timed on revolute chains, the two are equal at ~16 velocities. With
   * up_k < k, d_k = d_up + 1 and f_k = f_up + d_up + 1 (in ws->rhs and ws->rhs2, free here). */
  double ltdl = 0, sweeps = 0;
  mbt_real *d = ws->rhs, *f = ws->rhs2;
  for (int k = 0; k < ws->nv; ++k) {
    const int up = ws->up[k];
    d[k] = up < 0 ? 0 : d[up] + 1;
    f[k] = up < 0 ? 0 : f[up] + d[up] + 1;
    ltdl += 6 * (d[k] + 1) + f[k] + k * d[k];
    sweeps += 108 + 24.0 * (ws->end[k] - k);
  }
  /* By dense blocks on a chain ~nv³/2 multiply-adds at ~0.54 of the sweeps' time each: timed on
   * revolute chains, equal at ~52 velocities. */
  if (ws->minv_dense) return 0.54 * 0.5 * ws->nv * ws->nv * (double)ws->nv < sweeps;
  return 1.8 * ltdl < sweeps;
}

bool mbt__minv_dense(const mbt_derivatives_workspace* ws) {
  /* Below ~12 velocities the loops over lists of ancestors are faster (timed on revolute chains). */
  return ws->chain && ws->avx2 && ws->nv >= 12;
}

/* u where the first columns S_j, j < u ≤ 6, are the unit vectors e_j (a URDF floating base's). */
static int unit_run(const mbt_derivatives_workspace* ws) {
  int u = 0;
  for (; u < 6 && u < ws->nv; ++u) {
    bool unit = true;
    for (int r = 0; r < 6; ++r) unit &= ws->S[u][r] == (r == u);
    if (!unit) break;
  }
  return u;
}

/* M_kj = (Ic·S_k)·S_j for j an ancestor of k (zero where k or j is locked). */
static inline mbt_real mass_entry(const mbt_context* ctx, const mbt_derivatives_workspace* ws, bool locked,
                                  const mbt_real* SI, int j) {
  if (locked || (ctx->any_locked && ctx->v_locked[j])) return 0;
  return j < ws->unit_run ? SI[j] : mbt__v6_dot(SI, ws->S[j]);
}

/* M_kj = (Ic·S_k)·S_j for j = k and its ancestors into row k of L and of Mc (the rest of them is
 * not read); where S_j = e_j (ws->unit_run), M_kj is entry j of Ic·S_k (the dot product's value
 * exactly). */
static void ancestor_mass_rows(const mbt_context* ctx, mbt_derivatives_workspace* ws, mbt_real* L,
                               mbt_real* Mc) {
  const int nv = ws->nv;
  const bool any = ctx->any_locked;
  ws->unit_run = unit_run(ws);
  for (int k = 0; k < nv; ++k) {
    mbt_real *Lk = L + (size_t)k * nv, *Mk = Mc + (size_t)k * nv;
    const mbt_real* SI = ws->SI[k];
    const bool locked = any && ctx->v_locked[k];
    const int r = ws->root_run[k];
    Lk[k] = Mk[k] = locked ? 1 : mbt__v6_dot(SI, ws->S[k]);
    int j = ws->up[k];
    for (; j >= r; j = ws->up[j]) Lk[j] = Mk[j] = mass_entry(ctx, ws, locked, SI, j);
    const int u = any || j + 1 < ws->unit_run ? 0 : ws->unit_run;  /* [0, u): entries of Ic·S_k */
    for (; j >= u; --j) Lk[j] = Mk[j] = mass_entry(ctx, ws, locked, SI, j);  /* on the root run */
    for (int c = 0; c < u; ++c) Lk[c] = Mk[c] = SI[c];
  }
}

/* Li[j] −= a·Lk[j] for j in [0, n) (rows i ≠ k of L), two entries at a time where the compiler has
 * vector extensions (the compiler's own vector loop spent ~7 instructions per entry on these
 * short rows: its set-up and remainders). */
static inline void row_update(mbt_real* restrict Li, mbt_real a, const mbt_real* restrict Lk, int n) {
  int j = 0;
#ifdef MBT__MM_BLOCKS
  for (; j + 2 <= n; j += 2) *(mbt__v2u*)(Li + j) -= a * *(const mbt__v2u*)(Lk + j);
#endif
  if (j < n) Li[j] -= a * Lk[j];
#ifndef MBT__MM_BLOCKS
  for (++j; j < n; ++j) Li[j] -= a * Lk[j];
#endif
}

/* M = Lᵀ·D·L in place along ws->up (as mbt__ltdl_factor_ex, with L_ki = M_ki·(1/d_k)), pivots
 * against M's diagonal Mc; ws->Dinv = 1/d. The part of a path on the root run [0, r)
 * (ws->root_run) by contiguous loops. */
static int ltdl_factor(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws, mbt_real* L,
                       const mbt_real* Mc) {
  const int nv = ws->nv;
  const size_t n = (size_t)nv;
  for (int k = nv - 1; k >= 0; --k) {
    mbt_real* Lk = L + (size_t)k * n;
    const mbt_real d = Lk[k], Mkk = Mc[(size_t)k * n + (size_t)k];
    if (!(mbt_lt(MBT__CHOLESKY_RTOL * mbt_abs(Mkk), d) && mbt_isfinite(d))) return singular_error(tree, ctx, k);
    const mbt_real dinv = 1 / d;  /* one division per pivot, not per entry */
    ws->Dinv[k] = dinv;
    const int r = ws->root_run[k];
    int i = ws->up[k];
    for (; i >= r; i = ws->up[i]) {  /* ancestors off the run, then their paths' runs */
      const mbt_real a = Lk[i] * dinv;
      mbt_real* Li = L + (size_t)i * n;
      for (int j = i; j >= r; j = ws->up[j]) Li[j] -= a * Lk[j];
      row_update(Li, a, Lk, r);
      Lk[i] = a;
    }
    for (; i >= 0; --i) {  /* on the run: i's path is [0, i] */
      const mbt_real a = Lk[i] * dinv;
      row_update(L + (size_t)i * n, a, Lk, i + 1);
      Lk[i] = a;
    }
  }
  return MBT_OK;
}

/* X = M⁻¹ base to tip from L·X = D⁻¹·L⁻ᵀ, upper triangular with diagonal 1/d:
 *   X_kj = −Σ_{m ancestor of k} L_km·X_mj  (j < k),   X_kk = 1/d_k − Σ_{m ancestor of k} L_km·X_km,
 * each row mirrored into its column when done, so that the rows of k's ancestors are complete
 * on [0, k). A locked velocity's row is zero. */
MBT__ALWAYS_INLINE void ltdl_inverse_body(const mbt_context* ctx, const mbt_derivatives_workspace* ws,
                                          const mbt_real* L, mbt_real* X) {
  const int nv = ws->nv;
  for (int k = 0; k < nv; ++k) {
    mbt_real* restrict Xk = X + (size_t)k * nv;
    const mbt_real* Lk = L + (size_t)k * nv;
    for (int j = 0; j < k; ++j) Xk[j] = 0;
    for (int m = ws->up[k]; m >= 0; m = ws->up[m]) {
      const mbt_real c = Lk[m];
      const mbt_real* restrict Xm = X + (size_t)m * nv;
      for (int j = 0; j < k; ++j) Xk[j] -= c * Xm[j];
    }
    mbt_real xkk = ws->Dinv[k];
    for (int m = ws->up[k]; m >= 0; m = ws->up[m]) xkk -= Lk[m] * Xk[m];
    Xk[k] = ctx->any_locked && ctx->v_locked[k] ? 0 : xkk;
    for (int j = 0; j < k; ++j) X[(size_t)j * nv + k] = Xk[j];
  }
}
MBT_DERIV_KERNEL(ltdl_inverse,
                 (const mbt_context* ctx, const mbt_derivatives_workspace* ws, const mbt_real* L, mbt_real* X),
                 (ctx, ws, L, X), (ctx, ws, L, X))

#ifdef MBT__AVX2
/* nb 4-wide blocks of row k of X at columns c, c + 4, ... (the last ones shifted back to end at k),
 * X_kj = −Σ_m L_km·X_mj over k's ancestors m (in ws->up's order; the root run [0, r) without
 * walking ws->up), one accumulator per block. */
MBT__ALWAYS_INLINE MBT__AVX2_ATTRIBUTES void inverse_blocks_avx2(const mbt_derivatives_workspace* ws, int nb, int c,
                                                                int k, const mbt_real* Lk, const mbt_real* X,
                                                                mbt_real* Xk) {
  const size_t nv = (size_t)ws->nv;
  const int r = ws->root_run[k];
  int off[4];
  for (int b = 0; b < nb; ++b) off[b] = c + 4 * b + 4 <= k ? c + 4 * b : k - 4;
  __m256d a[4] = {_mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd()};
  int m = ws->up[k];
  for (; m >= r; m = ws->up[m]) {
    const __m256d l = _mm256_broadcast_sd(Lk + m);
    for (int b = 0; b < nb; ++b) a[b] = _mm256_fnmadd_pd(l, _mm256_loadu_pd(X + (size_t)m * nv + off[b]), a[b]);
  }
  for (; m >= 0; --m) {
    const __m256d l = _mm256_broadcast_sd(Lk + m);
    for (int b = 0; b < nb; ++b) a[b] = _mm256_fnmadd_pd(l, _mm256_loadu_pd(X + (size_t)m * nv + off[b]), a[b]);
  }
  for (int b = 0; b < nb; ++b) _mm256_storeu_pd(Xk + off[b], a[b]);
}

/* ltdl_inverse with AVX2 (nv ≥ 4): row k on [0, k) by 4-wide blocks, the last one shifted back to
 * end at k (overlapping entries are computed twice, identically), per ancestor m one broadcast
 * of L_km for up to four blocks (inverse_blocks_avx2) and one fused multiply-add per block (the
 * same numbers as ltdl_inverse's AVX2 version); rows k < 4 in one block masked to [0, k). The compiled loop spends most of its time
 * in the remainders of its short rows. */
MBT__AVX2_ATTRIBUTES static void ltdl_inverse_blocks_avx2(const mbt_context* ctx, const mbt_derivatives_workspace* ws,
                                                          const mbt_real* L, mbt_real* X) {
  const int nv = ws->nv;
  for (int k = 0; k < nv; ++k) {
    mbt_real* Xk = X + (size_t)k * nv;
    const mbt_real* Lk = L + (size_t)k * nv;
    mbt_real t[4];
    const mbt_real* xk = Xk;  /* row k on [0, k), read back below */
    if (k < 4) {  /* one block, masked to the lanes j < k (within the rows, as nv ≥ 4) */
      const __m256i lanes = _mm256_cmpgt_epi64(_mm256_set1_epi64x(k), _mm256_setr_epi64x(0, 1, 2, 3));
      __m256d a = _mm256_setzero_pd();
      for (int m = ws->up[k]; m >= 0; m = ws->up[m])
        a = _mm256_fnmadd_pd(_mm256_broadcast_sd(Lk + m), _mm256_maskload_pd(X + (size_t)m * nv, lanes), a);
      _mm256_maskstore_pd(Xk, lanes, a);
      _mm256_storeu_pd(t, a), xk = t;  /* not read back through the masked store */
    } else {
      for (int c = 0; c < k; c += 16) {  /* up to four blocks per walk of the ancestors */
        switch (k - c >= 16 ? 4 : (k - c + 3) / 4) {
          case 4: inverse_blocks_avx2(ws, 4, c, k, Lk, X, Xk); break;
          case 3: inverse_blocks_avx2(ws, 3, c, k, Lk, X, Xk); break;
          case 2: inverse_blocks_avx2(ws, 2, c, k, Lk, X, Xk); break;
          default: inverse_blocks_avx2(ws, 1, c, k, Lk, X, Xk); break;
        }
      }
    }
    mbt_real xkk = ws->Dinv[k];
    for (int m = ws->up[k]; m >= 0; m = ws->up[m]) xkk -= Lk[m] * xk[m];
    Xk[k] = ctx->any_locked && ctx->v_locked[k] ? 0 : xkk;
    for (int j = 0; j < k; ++j) X[(size_t)j * nv + k] = xk[j];
  }
}
#endif

#ifdef MBT__AVX2
/* nb 4-wide blocks of y = −X·b at columns o_b: y = −Σ_j b_j·(row j of X), one accumulator per
 * block, so that up to eight independent chains of fused multiply-adds run at once. */
MBT__ALWAYS_INLINE __attribute__((target("avx2,fma"))) void neg_dense_blocks_avx2(int nb, const size_t* o, size_t n,
                                                                                   const mbt_real* X,
                                                                                   const mbt_real* b, mbt_real* y) {
  __m256d a[8];
  for (int i = 0; i < nb; ++i) a[i] = _mm256_setzero_pd();
  for (size_t j = 0; j < n; ++j) {
    const __m256d bj = _mm256_broadcast_sd(b + j);
    for (int i = 0; i < nb; ++i) a[i] = _mm256_fmadd_pd(bj, _mm256_loadu_pd(X + j * n + o[i]), a[i]);
  }
  const __m256d z = _mm256_setzero_pd();
  for (int i = nb - 1; i >= 0; --i) _mm256_storeu_pd(y + o[i], _mm256_sub_pd(z, a[i]));
}

/* The same for 4 ≤ nv ≤ 8 in one pass of two blocks, the second shifted back (the dispatch below
 * and its frame cost UR5's ∂v̇ ~2 %). */
__attribute__((target("avx2,fma"))) static void neg_dense_mul8_avx2(int nv, const mbt_real* X, const mbt_real* b,
                                                                    mbt_real* y) {
  const size_t o[2] = {0, (size_t)nv - 4};
  neg_dense_blocks_avx2(2, o, (size_t)nv, X, b, y);
}

/* y = −X·b for X = M⁻¹ with AVX2 (nv > 8): by symmetry y = −Σ_j b_j·(row j of X), up to eight
 * 4-wide blocks of y per pass over the rows (with two, each pass waited on the latency of its
 * chains), the last block shifted back to end at nv (overlapping entries computed twice,
 * identically). */
__attribute__((target("avx2,fma"))) static void neg_dense_mul_avx2(int nv, const mbt_real* X, const mbt_real* b,
                                                                   mbt_real* y) {
  const size_t n = (size_t)nv;
  for (size_t c = 0; c < n; c += 32) {
    size_t o[8];
    const int nb = n - c >= 32 ? 8 : (int)(n - c + 3) / 4;
    for (int i = 0; i < nb; ++i) o[i] = c + 4 * (size_t)i + 4 <= n ? c + 4 * (size_t)i : n - 4;
    switch (nb) {
      case 8: neg_dense_blocks_avx2(8, o, n, X, b, y); break;
      case 7: neg_dense_blocks_avx2(7, o, n, X, b, y); break;
      case 6: neg_dense_blocks_avx2(6, o, n, X, b, y); break;
      case 5: neg_dense_blocks_avx2(5, o, n, X, b, y); break;
      case 4: neg_dense_blocks_avx2(4, o, n, X, b, y); break;
      case 3: neg_dense_blocks_avx2(3, o, n, X, b, y); break;
      case 2: neg_dense_blocks_avx2(2, o, n, X, b, y); break;
      default: neg_dense_blocks_avx2(1, o, n, X, b, y); break;
    }
  }
}
#endif

/* y = −X·b for X = M⁻¹ (a locked velocity's row of X is zero; y is not b). */
static void neg_dense_mul(const mbt_derivatives_workspace* ws, const mbt_real* X, const mbt_real* b, mbt_real* y) {
  const int nv = ws->nv;
#ifdef MBT__AVX2
  if (ws->avx2 && nv >= 4) {
    if (nv <= 8)
      neg_dense_mul8_avx2(nv, X, b, y);
    else
      neg_dense_mul_avx2(nv, X, b, y);
    return;
  }
#endif
  for (int k = 0; k < nv; ++k) {
    const mbt_real* Xk = X + (size_t)k * nv;
    mbt_real a = 0;
    for (int j = 0; j < nv; ++j) a += Xk[j] * b[j];
    y[k] = -a;
  }
}

/* r = tau0 + M·x on a chain from S and Ic·S alone: with M_kj = (Ic·S_k)·S_j for j ≤ k (the
 * entries of Mc),
 *   (M·x)_k = (Ic·S_k)·Σ_{j≤k} S_j·x_j + S_k·Σ_{j>k} (Ic·S_j)·x_j,
 * a suffix and a prefix sum of 6-vectors: 24 multiply-adds per velocity instead of nv (a locked
 * velocity's x_j is zero, its r_k not read). */
#ifdef MBT__AVX2
/* a·(b03, b45) for a 6-vector a (4 + 2 lanes). */
MBT__ALWAYS_INLINE __attribute__((target("avx2,fma"))) mbt_real v6_dot_avx2(const mbt_real* a, __m256d b03,
                                                                             __m128d b45) {
  const __m256d t = _mm256_mul_pd(_mm256_loadu_pd(a), b03);
  const __m128d u = _mm_fmadd_pd(_mm_loadu_pd(a + 4), b45, _mm_add_pd(_mm256_castpd256_pd128(t),
                                                                      _mm256_extractf128_pd(t, 1)));
  return _mm_cvtsd_f64(_mm_add_sd(u, _mm_unpackhi_pd(u, u)));
}

__attribute__((target("avx2,fma"))) static void chain_residual_avx2(const mbt_derivatives_workspace* ws,
                                                                    const mbt_real* tau0, const mbt_real* x,
                                                                    mbt_real* r) {
  __m256d p = _mm256_setzero_pd(), q = p;
  __m128d p2 = _mm_setzero_pd(), q2 = p2;
  for (int k = ws->nv - 1; k >= 0; --k) {
    const mbt_real* SI = ws->SI[k];
    r[k] = tau0[k] + v6_dot_avx2(ws->S[k], q, q2);
    const __m256d xk = _mm256_broadcast_sd(x + k);
    q = _mm256_fmadd_pd(_mm256_loadu_pd(SI), xk, q), q2 = _mm_fmadd_pd(_mm_loadu_pd(SI + 4), _mm256_castpd256_pd128(xk), q2);
  }
  for (int k = 0; k < ws->nv; ++k) {
    const mbt_real* S = ws->S[k];
    const __m256d xk = _mm256_broadcast_sd(x + k);
    p = _mm256_fmadd_pd(_mm256_loadu_pd(S), xk, p), p2 = _mm_fmadd_pd(_mm_loadu_pd(S + 4), _mm256_castpd256_pd128(xk), p2);
    r[k] += v6_dot_avx2(ws->SI[k], p, p2);
  }
}
#endif

static void chain_residual(const mbt_derivatives_workspace* ws, const mbt_real* tau0, const mbt_real* x,
                           mbt_real* r) {
#ifdef MBT__AVX2
  if (ws->avx2) {
    chain_residual_avx2(ws, tau0, x, r);
    return;
  }
#endif
  mbt_real p[6] = {0, 0, 0, 0, 0, 0}, q[6] = {0, 0, 0, 0, 0, 0};
  for (int k = ws->nv - 1; k >= 0; --k) {
    r[k] = tau0[k] + mbt__v6_dot(ws->S[k], q);
    for (int i = 0; i < 6; ++i) q[i] += ws->SI[k][i] * x[k];
  }
  for (int k = 0; k < ws->nv; ++k) {
    for (int i = 0; i < 6; ++i) p[i] += ws->S[k][i] * x[k];
    r[k] += mbt__v6_dot(ws->SI[k], p);
  }
}

/* x = −M⁻¹·tau0 with one step of refinement, x −= M⁻¹·(M·x + tau0) (M from its ancestor rows
 * Mc; on a chain from S and Ic·S, chain_residual), so that x agrees with the articulated-body
 * forward dynamics to round-off. */
static void ltdl_forward_dynamics(const mbt_derivatives_workspace* ws, const mbt_real* Minv, const mbt_real* Mc,
                                  const mbt_real* tau0, mbt_real* x, mbt_real* r) {
  const int nv = ws->nv;
  neg_dense_mul(ws, Minv, tau0, x);
  if (ws->minv_dense) {
    chain_residual(ws, tau0, x, r);
  } else {
    for (int k = 0; k < nv; ++k) r[k] = tau0[k] + Mc[(size_t)k * nv + k] * x[k];
    for (int k = 0; k < nv; ++k)
      for (int j = ws->up[k]; j >= 0; j = ws->up[j]) {
        const mbt_real m = Mc[(size_t)k * nv + j];
        r[k] += m * x[j], r[j] += m * x[k];
      }
  }
  neg_dense_mul(ws, Minv, r, r + nv);
  for (int k = 0; k < nv; ++k) x[k] += r[nv + k];
}

/* ---- The LᵀDL factor and M⁻¹ on a chain (ws->chain: the ancestors of k are all j < k) ----
 * M is dense and the factor and the inverse are row recursions over contiguous rows, each a
 * combination y = s·(b − Σ_m c_m·R_m) of earlier rows, held in registers 16 columns at a time
 * (row_combination). With M = Lᵀ·D·L, W = L⁻ᵀ (unit upper triangular) and
 * M⁻¹ = Wᵀ·D⁻¹·W [Golub & Van Loan, Matrix Computations, 4th ed., §4.1], tip to base
 *   d_k = M_kk − Σ_{m>k} d_m·L_mk²,   L_kj = (M_kj − Σ_{m>k} d_m·L_mk·L_mj)/d_k   (j < k),
 *   W_kj = −Σ_{k<m≤j} L_mk·W_mj   (j > k),
 * then M⁻¹_ij = Σ_{m≤i} (W_mi/d_m)·W_mj for j ≥ i and the lower triangle by symmetry: ~nv³/6
 * multiply-adds each, and no row reads an entry that a mirror has just stored (4-wide loads of
 * them stall on the stores). */

/* y_o = s·(b_o − Σ_{m∈[m0,m1)} c_m·R_m,o) for o in [0, n) with R_m = R + m·ld (b NULL for zero);
 * tri ≥ 0: the column of y_0, rows m > tri + o then adding zero to y_o (R_m,o = 0 stored). */
MBT__ALWAYS_INLINE void row_combination_body(mbt_real* restrict y, const mbt_real* b, mbt_real s,
                                             const mbt_real* c, const mbt_real* R, int ld, int m0, int m1, int n,
                                             int tri) {
  for (int o = 0; o < n; ++o) {
    const int me = tri >= 0 && tri + o + 1 < m1 ? tri + o + 1 : m1;
    mbt_real a = b ? b[o] : 0;
    for (int m = m0; m < me; ++m) a -= c[m] * R[(size_t)m * (size_t)ld + (size_t)o];
    y[o] = s * a;
  }
}

#ifdef MBT__AVX2
/* nb 4-wide blocks of row_combination at offsets o_b (computed from the same operands if two
 * overlap); rows up to me. */
MBT__ALWAYS_INLINE __attribute__((target("avx2,fma"))) void row_blocks_avx2(
    int nb, const int* o, mbt_real* y, const mbt_real* b, __m256d s, const mbt_real* c, const mbt_real* R, int ld,
    int m0, int me) {
  __m256d a[4], e[4];  /* rows m0, m0 + 2, ... and m0 + 1, m0 + 3, ...: two chains of additions */
  for (int i = 0; i < nb; ++i) a[i] = b ? _mm256_loadu_pd(b + o[i]) : _mm256_setzero_pd(), e[i] = _mm256_setzero_pd();
  int m = m0;
  for (; m + 2 <= me; m += 2) {
    const mbt_real *r = R + (size_t)m * (size_t)ld, *r1 = r + ld;
    const __m256d cm = _mm256_broadcast_sd(c + m), cm1 = _mm256_broadcast_sd(c + m + 1);
    for (int i = 0; i < nb; ++i) {
      a[i] = _mm256_fnmadd_pd(cm, _mm256_loadu_pd(r + o[i]), a[i]);
      e[i] = _mm256_fnmadd_pd(cm1, _mm256_loadu_pd(r1 + o[i]), e[i]);
    }
  }
  if (m < me) {
    const mbt_real* r = R + (size_t)m * (size_t)ld;
    const __m256d cm = _mm256_broadcast_sd(c + m);
    for (int i = 0; i < nb; ++i) a[i] = _mm256_fnmadd_pd(cm, _mm256_loadu_pd(r + o[i]), a[i]);
  }
  for (int i = 0; i < nb; ++i) _mm256_storeu_pd(y + o[i], _mm256_mul_pd(s, _mm256_add_pd(a[i], e[i])));
}

/* row_combination with AVX2 (y not among the rows read): 16 columns at a time in four
 * accumulators, the rest in as few blocks as cover it, the last shifted back to end at n. */
__attribute__((target("avx2,fma"))) static void row_combination_avx2(mbt_real* y, const mbt_real* b, mbt_real s,
                                                                     const mbt_real* c, const mbt_real* R, int ld,
                                                                     int m0, int m1, int n, int tri) {
  if (n < 4) {
    row_combination_body(y, b, s, c, R, ld, m0, m1, n, tri);
    return;
  }
  const __m256d vs = _mm256_set1_pd(s);
  for (int o = 0; o < n; o += 16) {
    const int nb = n - o >= 16 ? 4 : (n - o + 3) / 4;
    int off[4];
    for (int i = 0; i < 4; ++i) off[i] = o + 4 * i < n - 4 ? o + 4 * i : n - 4;
    const int me = tri >= 0 && tri + off[nb - 1] + 4 < m1 ? tri + off[nb - 1] + 4 : m1;
    switch (nb) {
      case 4: row_blocks_avx2(4, off, y, b, vs, c, R, ld, m0, me); break;
      case 3: row_blocks_avx2(3, off, y, b, vs, c, R, ld, m0, me); break;
      case 2: row_blocks_avx2(2, off, y, b, vs, c, R, ld, m0, me); break;
      default: row_blocks_avx2(1, off, y, b, vs, c, R, ld, m0, me); break;
    }
  }
}
#endif

static void row_combination(const mbt_derivatives_workspace* ws, mbt_real* y, const mbt_real* b, mbt_real s,
                            const mbt_real* c, const mbt_real* R, int m0, int m1, int n, int tri) {
#ifdef MBT__AVX2
  if (ws->avx2) {
    row_combination_avx2(y, b, s, c, R, ws->nv, m0, m1, n, tri);
    return;
  }
#endif
  row_combination_body(y, b, s, c, R, ws->nv, m0, m1, n, tri);
}

/* Row k of L (d_k on the diagonal, ws->Dinv_k = 1/d_k) and of W from the rows below it; g_m = L_mk
 * and w_m = d_m·L_mk gathered into t. */
static int chain_factor_row(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws, int k,
                            const mbt_real* Mc, mbt_real* L, mbt_real* W, mbt_real* t) {
  const int nv = ws->nv;
  const size_t n = (size_t)nv;
  mbt_real *g = t, *w = t + n;
  const mbt_real Mkk = Mc[(size_t)k * n + (size_t)k];
  mbt_real d0 = 0, d1 = 0;  /* Σ_{m>k} w_m·g_m in two chains of additions */
  for (int m = k + 1; m < nv; ++m) {
    g[m] = L[(size_t)m * n + (size_t)k], w[m] = L[(size_t)m * n + (size_t)m] * g[m];
    if ((m - k) & 1)
      d0 += w[m] * g[m];
    else
      d1 += w[m] * g[m];
  }
  const mbt_real d = Mkk - (d0 + d1);
  if (!(mbt_lt(MBT__CHOLESKY_RTOL * mbt_abs(Mkk), d) && mbt_isfinite(d))) return singular_error(tree, ctx, k);
  mbt_real *Lk = L + (size_t)k * n, *Wk = W + (size_t)k * n;
  Lk[k] = d, ws->Dinv[k] = 1 / d;
  row_combination(ws, Lk, Mc + (size_t)k * n, ws->Dinv[k], w, L, k + 1, nv, k, -1);
  memset(Wk, 0, (size_t)k * sizeof(mbt_real));  /* read as the zeros below W's diagonal */
  Wk[k] = 1;
  row_combination(ws, Wk + k + 1, NULL, 1, g, W + k + 1, k + 1, nv, nv - k - 1, k + 1);
  return MBT_OK;
}

#ifdef MBT__AVX2
/* y = (b or 0) − a (sub), else a, at Y + o. */
MBT__ALWAYS_INLINE __attribute__((target("avx2,fma"))) void rows4_store_avx2(bool sub, const mbt_real* B,
                                                                              mbt_real* Y, size_t o, __m256d a) {
  if (sub) a = _mm256_sub_pd(B ? _mm256_loadu_pd(B + o) : _mm256_setzero_pd(), a);
  _mm256_storeu_pd(Y + o, a);
}

/* Four rows y_r = Y + r·nv on the columns [c, c + w) (w = 8 or 4), with C_m,r = C[4m + r] and
 * R_m = R + m·nv: y_r = Σ_{m∈[m0,me)} C_m,r·R_m (sub false), else (b_r or 0) − that sum, b_r =
 * B + r·nv; with P, Σ_{m<6} P_m,r·Q_m added first (P_m,r = P[4m + r], Q_m = Q + m·nv); tri: R_mj
 * = 0 for m > j (stored), so the rows end at the block's last column. The accumulators are
 * named, not an array: indexed in the stores, GCC kept the array on the stack and stored it at
 * every term. */
MBT__ALWAYS_INLINE __attribute__((target("avx2,fma"))) void rows4_block_avx2(
    int w, bool sub, bool tri, const mbt_real* P, const mbt_real* Q, const mbt_real* C, const mbt_real* R, int nv,
    int m0, int me, const mbt_real* B, mbt_real* Y, int c) {
  const size_t n = (size_t)nv;
  if (tri && c + w < me) me = c + w;
  __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
  for (int s = P ? 0 : 1; s < 2; ++s) {  /* s = 0: the terms of P */
    const mbt_real *Cs = s ? C : P, *Rs = s ? R : Q;
    for (int m = s ? m0 : 0, e = s ? me : 6; m < e; ++m) {
      const mbt_real* x = Rs + (size_t)m * n + (size_t)c;
      const mbt_real* cm = Cs + 4 * m;
      const __m256d x0 = _mm256_loadu_pd(x), x1 = w == 8 ? _mm256_loadu_pd(x + 4) : x0;
      const __m256d c0 = _mm256_broadcast_sd(cm), c1 = _mm256_broadcast_sd(cm + 1);
      const __m256d c2 = _mm256_broadcast_sd(cm + 2), c3 = _mm256_broadcast_sd(cm + 3);
      a0 = _mm256_fmadd_pd(c0, x0, a0), a1 = _mm256_fmadd_pd(c1, x0, a1);
      a2 = _mm256_fmadd_pd(c2, x0, a2), a3 = _mm256_fmadd_pd(c3, x0, a3);
      if (w == 8) {
        b0 = _mm256_fmadd_pd(c0, x1, b0), b1 = _mm256_fmadd_pd(c1, x1, b1);
        b2 = _mm256_fmadd_pd(c2, x1, b2), b3 = _mm256_fmadd_pd(c3, x1, b3);
      }
    }
  }
  const size_t o = (size_t)c;
  rows4_store_avx2(sub, B, Y, o, a0), rows4_store_avx2(sub, B, Y, o + n, a1);
  rows4_store_avx2(sub, B, Y, o + 2 * n, a2), rows4_store_avx2(sub, B, Y, o + 3 * n, a3);
  if (w == 8) {
    rows4_store_avx2(sub, B, Y, o + 4, b0), rows4_store_avx2(sub, B, Y, o + n + 4, b1);
    rows4_store_avx2(sub, B, Y, o + 2 * n + 4, b2), rows4_store_avx2(sub, B, Y, o + 3 * n + 4, b3);
  }
}

/* rows4_block_avx2 on the columns [c0, c0 + len) (Y's rows not among R's or B's): by 8, the last
 * block shifted back to end at c0 + len (overlapping entries computed twice, identically); fewer
 * than four columns one by one. */
MBT__ALWAYS_INLINE __attribute__((target("avx2,fma"))) void rows4_span_avx2(
    bool sub, bool tri, const mbt_real* P, const mbt_real* Q, const mbt_real* C, const mbt_real* R, int nv, int m0,
    int me, const mbt_real* B, mbt_real* Y, int c0, int len) {
  const int e = c0 + len;
  const size_t n = (size_t)nv;
  if (len < 4) {
    for (int r = 0; r < 4; ++r)
      for (int j = c0; j < e; ++j) {
        const int mj = tri && j + 1 < me ? j + 1 : me;
        mbt_real a = 0;
        for (int m = 0; P && m < 6; ++m) a += P[4 * m + r] * Q[(size_t)m * n + (size_t)j];
        for (int m = m0; m < mj; ++m) a += C[4 * m + r] * R[(size_t)m * n + (size_t)j];
        Y[(size_t)r * n + (size_t)j] = !sub ? a : (B ? B[(size_t)r * n + (size_t)j] : 0) - a;
      }
    return;
  }
  int c = c0;
  for (; c + 8 <= e; c += 8) rows4_block_avx2(8, sub, tri, P, Q, C, R, nv, m0, me, B, Y, c);
  if (e - c > 4 && len >= 8) {
    rows4_block_avx2(8, sub, tri, P, Q, C, R, nv, m0, me, B, Y, e - 8);
  } else {
    if (e - c > 4) rows4_block_avx2(4, sub, tri, P, Q, C, R, nv, m0, me, B, Y, c);
    if (c < e) rows4_block_avx2(4, sub, tri, P, Q, C, R, nv, m0, me, B, Y, e - 4);
  }
}

/* rows4_span_avx2, compiled apart with and without the terms of P. */
__attribute__((target("avx2,fma"))) static void rows4_avx2(bool sub, bool tri, const mbt_real* P, const mbt_real* Q,
                                                           const mbt_real* C, const mbt_real* R, int nv, int m0,
                                                           int me, const mbt_real* B, mbt_real* Y, int c0, int len) {
  if (P)
    rows4_span_avx2(sub, tri, P, Q, C, R, nv, m0, me, B, Y, c0, len);
  else
    rows4_span_avx2(sub, tri, NULL, NULL, C, R, nv, m0, me, B, Y, c0, len);
}


/* X_i = Σ_{j≥i} C_ij·X_j for the four rows X_i = X + i·nv on the columns [o0, o1), in place (C
 * upper triangular, C_ij = C[4i + j]): every column on its own, 4-wide, the last o1 − o0 mod 4
 * in masked lanes (no entry outside them is read or written). */
__attribute__((target("avx2,fma"))) static void block_transform_avx2(const mbt_real* C, mbt_real* X, int nv,
                                                                     int o0, int o1) {
  const size_t n = (size_t)nv;
  mbt_real *x0 = X, *x1 = x0 + n, *x2 = x1 + n, *x3 = x2 + n;
  const __m256d c00 = _mm256_set1_pd(C[0]), c01 = _mm256_set1_pd(C[1]), c02 = _mm256_set1_pd(C[2]);
  const __m256d c03 = _mm256_set1_pd(C[3]), c11 = _mm256_set1_pd(C[5]), c12 = _mm256_set1_pd(C[6]);
  const __m256d c13 = _mm256_set1_pd(C[7]), c22 = _mm256_set1_pd(C[10]), c23 = _mm256_set1_pd(C[11]);
  const __m256d c33 = _mm256_set1_pd(C[15]);
  int o = o0;
  for (; o + 4 <= o1; o += 4) {
    const __m256d y0 = _mm256_loadu_pd(x0 + o), y1 = _mm256_loadu_pd(x1 + o);
    const __m256d y2 = _mm256_loadu_pd(x2 + o), y3 = _mm256_loadu_pd(x3 + o);
    const __m256d z0 = _mm256_fmadd_pd(c00, y0, _mm256_mul_pd(c01, y1));
    const __m256d z1 = _mm256_fmadd_pd(c11, y1, _mm256_mul_pd(c12, y2));
    _mm256_storeu_pd(x0 + o, _mm256_add_pd(z0, _mm256_fmadd_pd(c02, y2, _mm256_mul_pd(c03, y3))));
    _mm256_storeu_pd(x1 + o, _mm256_fmadd_pd(c13, y3, z1));
    _mm256_storeu_pd(x2 + o, _mm256_fmadd_pd(c22, y2, _mm256_mul_pd(c23, y3)));
    _mm256_storeu_pd(x3 + o, _mm256_mul_pd(c33, y3));
  }
  if (o < o1) {  /* the last o1 − o < 4 columns in masked lanes */
    const __m256i m = _mm256_cmpgt_epi64(_mm256_set1_epi64x(o1 - o), _mm256_setr_epi64x(0, 1, 2, 3));
    const __m256d y0 = _mm256_maskload_pd(x0 + o, m), y1 = _mm256_maskload_pd(x1 + o, m);
    const __m256d y2 = _mm256_maskload_pd(x2 + o, m), y3 = _mm256_maskload_pd(x3 + o, m);
    const __m256d z0 = _mm256_fmadd_pd(c00, y0, _mm256_mul_pd(c01, y1));
    const __m256d z1 = _mm256_fmadd_pd(c11, y1, _mm256_mul_pd(c12, y2));
    _mm256_maskstore_pd(x0 + o, m, _mm256_add_pd(z0, _mm256_fmadd_pd(c02, y2, _mm256_mul_pd(c03, y3))));
    _mm256_maskstore_pd(x1 + o, m, _mm256_fmadd_pd(c13, y3, z1));
    _mm256_maskstore_pd(x2 + o, m, _mm256_fmadd_pd(c22, y2, _mm256_mul_pd(c23, y3)));
    _mm256_maskstore_pd(x3 + o, m, _mm256_mul_pd(c33, y3));
  }
}

/* The block's pivots and its own entries, tip to base (k = kb + i): from Y_i = row k of L on
 * [kb, k], M's row less the terms of the rows below the block, with the numerators
 *   A_ij = Y_ij − Σ_{m>i} A_mi·N_mj  (j ≤ i),   d_k = A_ii,   N_ij = L_k,kb+j = A_ij/d_k  (j < i)
 * (A_mi = d_m·N_mi), then T = (I + N)⁻¹ (unit upper triangular), W's diagonal block. The pivots
 * form a chain, each waiting on the division of the one before: the terms of the older rows
 * m > i + 1 are summed first and the newest enters last as (A_i+1,i·A_i+1,j)·(1/d_i+1), one fused
 * multiply-add after that division (its product by 1/d_i+1, then by d_i+1 and a subtraction
 * were three operations on the chain). */
MBT__ALWAYS_INLINE __attribute__((target("avx2,fma"))) int chain_block_pivots(const mbt_tree* tree,
                                                                             mbt_context* ctx,
                                                                             mbt_derivatives_workspace* ws, int kb,
                                                                             const mbt_real* Mkk, mbt_real* L,
                                                                             mbt_real T[4][4]) {
  const size_t n = (size_t)ws->nv;
  /* in locals, every loop unrolled: registers, not memory, between the pivots */
  mbt_real A[4][4], N[4][4], d[4], dinv[4], U[4][4];
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i)
#pragma GCC unroll 4
    for (int j = 0; j <= i; ++j) A[i][j] = L[(size_t)(kb + i) * n + (size_t)(kb + j)];
#pragma GCC unroll 4
  for (int i = 3; i >= 0; --i) {
    const size_t k = (size_t)(kb + i);
#pragma GCC unroll 4
    for (int j = 0; j <= i; ++j) {
      mbt_real a = A[i][j];
#pragma GCC unroll 4
      for (int m = 3; m > i + 1; --m) a = fma(-A[m][i], N[m][j], a);
      if (i < 3) a = fma(-(A[i + 1][i] * A[i + 1][j]), dinv[i + 1], a);
      A[i][j] = a;
    }
    const mbt_real e = A[i][i];
    if (!(mbt_lt(MBT__CHOLESKY_RTOL * mbt_abs(Mkk[i]), e) && mbt_isfinite(e)))
      return singular_error(tree, ctx, (int)k);
    d[i] = e, dinv[i] = 1 / e;
#pragma GCC unroll 4
    for (int j = 0; j < i; ++j) N[i][j] = dinv[i] * A[i][j];
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
      mbt_real u = q == i ? 1 : 0;
#pragma GCC unroll 4
      for (int m = q; m > i; --m) u = fma(-N[m][i], U[m][q], u);
      U[i][q] = q < i ? 0 : u;
    }
  }
#pragma GCC unroll 4
  for (int i = 0; i < 4; ++i) {
    mbt_real* Lk = L + (size_t)(kb + i) * n + (size_t)kb;
#pragma GCC unroll 4
    for (int j = 0; j < i; ++j) Lk[j] = N[i][j];
    Lk[i] = d[i], ws->Dinv[kb + i] = dinv[i];
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) T[i][q] = U[i][q];
  }
  return MBT_OK;
}

/* The rows kb..kb+3 of L and W at once: the part of the rows below them (m > kb + 3) as 4-row
 * blocks, with g_m,r = L_m,kb+r and w_m,r = d_m·g_m,r gathered four at a time into t (8·nv); the
 * block's own pivots and entries (chain_block_pivots); then the terms of the block's rows in
 * each other row, L_k = (Y_k − Σ_{m>k} d_m·L_mk·L_m)/d_k and W_k = V_k − Σ_{m>k} L_mk·W_m over
 * the block, as L = D⁻¹·T·Y and W = T·V: every column on its own, not row after row. */
__attribute__((target("avx2,fma"))) static int chain_factor_block_avx2(const mbt_tree* tree, mbt_context* ctx,
                                                                       mbt_derivatives_workspace* ws, int kb,
                                                                       const mbt_real* St, mbt_real* L, mbt_real* W,
                                                                       mbt_real* t) {
  const int nv = ws->nv, k1 = kb + 3;
  const size_t n = (size_t)nv;
  mbt_real *G = t, *Gw = t + 4 * n, T[4][4], C[4][4], SI[24];
  for (int m = k1 + 1; m < nv; ++m) {
    const __m256d g = _mm256_loadu_pd(L + (size_t)m * n + (size_t)kb);
    _mm256_storeu_pd(G + 4 * m, g);
    _mm256_storeu_pd(Gw + 4 * m, _mm256_mul_pd(g, _mm256_set1_pd(-L[(size_t)m * n + (size_t)m])));
  }
  for (int m = 0; m < 6; ++m)
    for (int r = 0; r < 4; ++r) SI[4 * m + r] = ws->SI[kb + r][m];
  __m256d mkk = _mm256_mul_pd(_mm256_loadu_pd(SI), _mm256_loadu_pd(St + kb));  /* M_kk = (Ic·S_k)·S_k */
  for (int m = 1; m < 6; ++m) mkk = _mm256_fmadd_pd(_mm256_loadu_pd(SI + 4 * m), _mm256_loadu_pd(St + (size_t)m * n + kb), mkk);
  mbt_real Mkk[4];
  _mm256_storeu_pd(Mkk, mkk);
  /* L's rows on [0, k1] (a multiple of 4; the entries right of a row's diagonal are scratch, not
   * read; on the diagonal M_kk − Σ_{m>k1} d_m·L_mk²), M's entries (Ic·S_k)·S_j its first terms. */
  rows4_avx2(false, false, SI, St, Gw, L, nv, k1 + 1, nv, NULL, L + (size_t)kb * n, 0, k1 + 1);
  rows4_avx2(true, true, NULL, NULL, G, W, nv, k1 + 1, nv, NULL, W + (size_t)kb * n, k1 + 1, nv - k1 - 1);
  const int st = chain_block_pivots(tree, ctx, ws, kb, Mkk, L, T);
  if (st) return st;
  for (int i = 0; i < 4; ++i) {
    mbt_real* Wk = W + (size_t)(kb + i) * n;
    memset(Wk, 0, (size_t)kb * sizeof(mbt_real));
    for (int q = 0; q < 4; ++q) C[i][q] = ws->Dinv[kb + i] * T[i][q], Wk[kb + q] = T[i][q];
  }
  block_transform_avx2(C[0], L + (size_t)kb * n, nv, 0, kb);
  block_transform_avx2(T[0], W + (size_t)kb * n, nv, k1 + 1, nv);
  return MBT_OK;
}
#endif

/* L (d_k on the diagonal, ws->Dinv = 1/d) and W tip to base from M's lower triangle Mc (the
 * entries right of the diagonal not read): with AVX2 the nv mod 4 rows at the tip one by one,
 * then blocks of four rows, these with M's entries from the S_j transposed into six rows St (Mc
 * read only in the rows one by one); t holds 8·nv. */
static int chain_factor(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws, const mbt_real* Mc,
                        const mbt_real* St, mbt_real* L, mbt_real* W, mbt_real* t) {
  const int nv = ws->nv;
  int st, k = nv - 1, k_end = -1;  /* rows (k_end, k] one by one */
#ifdef MBT__AVX2
  if (ws->avx2) k_end = nv - 1 - nv % 4;
#endif
  for (; k > k_end; --k)
    if ((st = chain_factor_row(tree, ctx, ws, k, Mc, L, W, t))) return st;
#ifdef MBT__AVX2
  for (; k >= 3; k -= 4)
    if ((st = chain_factor_block_avx2(tree, ctx, ws, k - 3, St, L, W, t))) return st;
#else
  (void)St;
#endif
  return MBT_OK;
}

#ifdef MBT__AVX2
/* M⁻¹'s upper triangle (nv ≥ 4) by blocks of four rows i0..i0+3, the last shifted back to end at
 * nv, on the columns from i0: M⁻¹_ij = Σ_{m≤i0+3} (W_m,i/d_m)·W_mj (the entries left of the
 * diagonal come out right too, as W_mj = 0 for m > j). */
__attribute__((target("avx2,fma"))) static void chain_minv_upper_avx2(const mbt_derivatives_workspace* ws,
                                                                      const mbt_real* W, mbt_real* t,
                                                                      mbt_real* Minv) {
  const int nv = ws->nv;
  for (int i = 0; i < nv; i += 4) {
    const int i0 = i + 4 <= nv ? i : nv - 4;
    for (int m = 0; m <= i0 + 3; ++m) {
      const __m256d wm = _mm256_loadu_pd(W + (size_t)m * (size_t)nv + (size_t)i0);
      _mm256_storeu_pd(t + 4 * m, _mm256_mul_pd(wm, _mm256_broadcast_sd(ws->Dinv + m)));
    }
    rows4_avx2(false, false, NULL, NULL, t, W, nv, 0, i0 + 4, NULL, Minv + (size_t)i0 * (size_t)nv, i0, nv - i0);
  }
}
#endif

#ifdef MBT__AVX2
/* The 4×4 block of X at rows r, columns c transposed into the rows c, columns r. */
MBT__ALWAYS_INLINE __attribute__((target("avx2,fma"))) void transpose4_avx2(mbt_real* X, size_t n, size_t r,
                                                                             size_t c) {
  const mbt_real* a = X + r * n + c;
  const __m256d rows[4] = {_mm256_loadu_pd(a), _mm256_loadu_pd(a + n), _mm256_loadu_pd(a + 2 * n),
                           _mm256_loadu_pd(a + 3 * n)};
  mbt__store_transposed4(rows, n, X + c * n + r);
}

/* X's lower triangle from its upper one (nv ≥ 4): the 4×4 blocks off the diagonal on the grid of
 * four transposed in registers, the diagonal blocks one by one; the last nv mod 4 rows by blocks
 * shifted back to end at nv (the rows before them rewritten with the same values), the entries
 * of their own diagonal block one by one. */
__attribute__((target("avx2,fma"))) static void mirror_upper_avx2(int nv, mbt_real* X) {
  const size_t n = (size_t)nv, nb = n & ~(size_t)3;
  for (size_t i = 0; i < nb; i += 4) {
    for (size_t j = i + 4; j < nb; j += 4) transpose4_avx2(X, n, i, j);
    for (size_t r = i + 1; r < i + 4; ++r)
      for (size_t c = i; c < r; ++c) X[r * n + c] = X[c * n + r];
  }
  if (nb == n) return;
  for (size_t i = 0; i < nb; i += 4) transpose4_avx2(X, n, i, n - 4);
  for (size_t r = nb + 1; r < n; ++r)
    for (size_t c = nb; c < r; ++c) X[r * n + c] = X[c * n + r];
}
#endif

/* M_kj = (Ic·S_k)·S_j for j ≤ k into Mc from the S_j transposed into six rows St; with AVX2 four
 * rows at a time from k0 (the last four shifted back to end at nv; up to three entries right of
 * the diagonal written too, not read), their coefficients Ic·S interleaved in t after St. */
static void chain_mass_rows(const mbt_derivatives_workspace* ws, mbt_real* St, mbt_real* Mc, int k0) {
  const int nv = ws->nv;
  const size_t n = (size_t)nv;
#ifdef MBT__AVX2
  if (ws->avx2 && nv >= 4) {
    mbt_real* C = St + 6 * n;
    for (int k = k0; k < nv; k += 4) {
      const int k0 = k + 4 <= nv ? k : nv - 4;
      for (int m = 0; m < 6; ++m)
        for (int r = 0; r < 4; ++r) C[4 * m + r] = ws->SI[k0 + r][m];
      rows4_avx2(false, false, NULL, NULL, C, St, nv, 0, 6, NULL, Mc + (size_t)k0 * n, 0, k0 + 4);
    }
  } else
#endif
  {
    for (int k = k0; k < nv; ++k) row_combination(ws, Mc + (size_t)k * n, NULL, -1, ws->SI[k], St, 0, 6, k + 1, -1);
  }
}

#ifdef MBT__AVX2
/* St_r,k = S_k,r (S_k,r = S[6k + r]) for k in [0, k1), k1 a multiple of 4: four S_k at a time, entries
 * 0..3 by a 4×4 transpose in registers, 4 and 5 by two pair shuffles. */
__attribute__((target("avx2,fma"))) static void transpose_s_avx2(const mbt_real* S, int nv, int k1, mbt_real* St) {
  const size_t n = (size_t)nv;
  for (int k = 0; k < k1; k += 4) {
    const mbt_real* s = S + 6 * (size_t)k;
    const __m256d rows[4] = {_mm256_loadu_pd(s), _mm256_loadu_pd(s + 6), _mm256_loadu_pd(s + 12),
                             _mm256_loadu_pd(s + 18)};
    mbt_real* b = St + (size_t)k;
    mbt__store_transposed4(rows, n, b);
    const __m128d u0 = _mm_loadu_pd(s + 4), u1 = _mm_loadu_pd(s + 10);
    const __m128d u2 = _mm_loadu_pd(s + 16), u3 = _mm_loadu_pd(s + 22);
    _mm_storeu_pd(b + 4 * n, _mm_unpacklo_pd(u0, u1)), _mm_storeu_pd(b + 4 * n + 2, _mm_unpacklo_pd(u2, u3));
    _mm_storeu_pd(b + 5 * n, _mm_unpackhi_pd(u0, u1)), _mm_storeu_pd(b + 5 * n + 2, _mm_unpackhi_pd(u2, u3));
  }
}
#endif

/* The S_k transposed into six rows St (St_r,k = S_k,r). */
static void chain_transpose_s(const mbt_derivatives_workspace* ws, mbt_real* St) {
  const int nv = ws->nv;
  int k = 0;
#ifdef MBT__AVX2
  if (ws->avx2) {
    k = nv & ~3;
    transpose_s_avx2(ws->S[0], nv, k, St);
  }
#endif
  for (; k < nv; ++k)
    for (int r = 0; r < 6; ++r) St[(size_t)r * (size_t)nv + (size_t)k] = ws->S[k][r];
}

/* M⁻¹ on a chain without locked velocities: M_kj = (Ic·S_k)·S_j (j ≤ k) from the S_j transposed
 * into six rows (stored for the rows of the factor formed one by one; with AVX2 the blocks take
 * them as the first terms of their products), the factor, then M⁻¹'s upper triangle row by row
 * and its mirror. */
static int chain_minv(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws, mbt_real* Minv) {
  const int nv = ws->nv;
  const size_t n = (size_t)nv;
  mbt_real *L = ws->PA, *Mc = L + n * n, *W = Mc + n * n, *t = ws->Ia, *St = t + 8 * n;
  chain_transpose_s(ws, St);
  int k0 = 0;  /* M's rows from k0: with AVX2 those of the nv mod 4 rows at the tip (the blocks form theirs) */
#ifdef MBT__AVX2
  if (ws->avx2 && nv >= 4) k0 = nv % 4 ? nv - 4 : nv;
#endif
  chain_mass_rows(ws, St, Mc, k0);
  const int st = chain_factor(tree, ctx, ws, Mc, St, L, W, t);
  if (st) return st;
#ifdef MBT__AVX2
  if (ws->avx2 && nv >= 4) {
    chain_minv_upper_avx2(ws, W, t, Minv);
    mirror_upper_avx2(nv, Minv);
    return MBT_OK;
  }
#endif
  for (int i = 0; i < nv; ++i) {
    for (int m = 0; m <= i; ++m) t[m] = W[(size_t)m * n + (size_t)i] * ws->Dinv[m];
    row_combination(ws, Minv + (size_t)i * n + (size_t)i, NULL, -1, t, W + i, 0, i + 1, nv - i, -1);
  }
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j) Minv[j * n + i] = Minv[i * n + j];
  return MBT_OK;
}

/* M⁻¹ (nv×nv) at the state of the last pass of mbt__id_derivatives (S, Ib, Ic·S); with the legs
 * in lanes (derivatives_legs.c) also vdot = −M⁻¹·tau0 unless vdot is NULL, and then *vdot_done. */
static int minv_recursion(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws, mbt_real* Minv,
                          const mbt_real* tau0, mbt_real* vdot, bool* vdot_done) {
  if (ws->minv_ltdl && ws->minv_dense && !ctx->any_locked) return chain_minv(tree, ctx, ws, Minv);
  if (ws->minv_ltdl) {  /* the factor in ws->PA, M after it */
    if (ws->legs && ws->avx2 && !ctx->any_locked && mbt__minv_legs(ws, Minv, tau0, vdot)) {
      if (vdot) *vdot_done = true;  /* a floating base with equal legs (derivatives_legs.c) */
      return MBT_OK;
    }
    ancestor_mass_rows(ctx, ws, ws->PA, ws->PA + (size_t)ws->nv * (size_t)ws->nv);
    const int st = ltdl_factor(tree, ctx, ws, ws->PA, ws->PA + (size_t)ws->nv * (size_t)ws->nv);
    if (st) return st;
#ifdef MBT__AVX2
    if (ws->avx2 && ws->nv >= 4) {
      ltdl_inverse_blocks_avx2(ctx, ws, ws->PA, Minv);
      return MBT_OK;
    }
#endif
    ltdl_inverse(ctx, ws, ws->PA, Minv);
    return MBT_OK;
  }
  init_articulated(tree, ws);
  const int st = minv_backward(tree, ctx, ws, Minv);
  if (st) return st;
  minv_forward(ws, Minv);
  return MBT_OK;
}

int mbt_calc_mass_matrix_inverse(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                 mbt_real* Minv) {
  const char* what = "calc_mass_matrix_inverse";
  int st = mbt__derivatives_check(tree, ctx, ws, what);
  if (st) return st;
  if (!Minv && tree->nv > 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: Minv is NULL", what);
  mbt__id_derivatives(tree, ctx, ws, NULL, NULL, mbt_vec3_zero(), false, NULL, NULL, NULL, NULL, NULL);
  return minv_recursion(tree, ctx, ws, Minv, NULL, NULL, NULL);
}

int mbt_calc_forward_dynamics_derivatives(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                          const mbt_real* tau_app, mbt_real* vdot, mbt_real* dvdot_dq,
                                          mbt_real* dvdot_dv, mbt_real* dvdot_dtau) {
  const char* what = "calc_forward_dynamics_derivatives";
  int st = mbt__derivatives_check(tree, ctx, ws, what);
  if (st) return st;
  const int nv = tree->nv;
  if ((!dvdot_dq || !dvdot_dv) && nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: dvdot_dq and dvdot_dv are required", what);
  if ((st = check_force_elements(tree, ctx, what))) return st;
  /* v̇ = −M⁻¹·tau0 with tau0 = tau_ID(q, v, 0) − tau_app, then ∂tau_ID/∂(q, v) at that v̇. */
  mbt__derivatives_bias(tree, ctx, ws, tau_app, ws->rhs);
  mbt_real* Minv = dvdot_dtau ? dvdot_dtau : ws->T3;
  bool vdot_done = false;
  if ((st = minv_recursion(tree, ctx, ws, Minv, ws->rhs, ws->vdot, &vdot_done))) return st;
  if (!vdot_done) {  /* else v̇ came with M⁻¹ from the legs' factor */
    if (ws->minv_ltdl)
      ltdl_forward_dynamics(ws, Minv, ws->PA + (size_t)nv * (size_t)nv, ws->rhs, ws->vdot, ws->pa[0]);
    else
      articulated_solve(ctx, ws, ws->rhs, ws->vdot);
  }
  if (mbt__chain_products(ws)) { /* −M⁻¹·∂tau from ∂tau's factors (derivatives_chain_product.c) */
    mbt__derivatives_rows_at_vdot(tree, ws, ws->vdot, ws->T1, ws->T2);
    mbt__chain_neg_minv_products(tree, ctx, ws, Minv, dvdot_dq, dvdot_dv);
  } else {
    mbt__derivatives_at_vdot(tree, ctx, ws, ws->vdot, tau_app, ws->T1, ws->T2);
    mbt__neg_minv_products(ws, Minv, ws->T1, dvdot_dq, ws->T2, dvdot_dv);
  }
  if (vdot) memcpy(vdot, ws->vdot, (size_t)nv * sizeof(mbt_real));
  return MBT_OK;
}

int mbt_calc_gravity_generalized_forces_derivatives(const mbt_tree* tree, mbt_context* ctx,
                                                    mbt_derivatives_workspace* ws, mbt_real* dtau_g_dq) {
  const char* what = "calc_gravity_generalized_forces_derivatives";
  int st = mbt__derivatives_check(tree, ctx, ws, what);
  if (st) return st;
  const int nv = tree->nv;
  if (!dtau_g_dq && nv > 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: dtau_g_dq is NULL", what);
  /* tau_g = −tau_ID(q, v = 0, v̇ = 0) with gravity alone. */
  mbt__id_derivatives(tree, ctx, ws, NULL, NULL, ctx->g_W, false, NULL, NULL, ws->T1, ws->T2, NULL);
  for (size_t i = 0; i < (size_t)nv * (size_t)nv; ++i) dtau_g_dq[i] = -ws->T1[i];
  return MBT_OK;
}
