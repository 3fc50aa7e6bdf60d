/* derivatives_legs.c: M⁻¹ and v̇ of a floating base with equal legs, the legs in the lanes of a
 * 4-wide register (ws->legs: the velocities [0, 6) a run from the root, then B ≤ 4 chains of c ≤ 4
 * velocities each, all hanging from velocity 5, as a quadruped's legs).
 *
 * The LᵀDL factor of M (derivatives_fd.c: M = Lᵀ·D·L, tip to base) does on each leg the same
 * operations: with leg l's numbers in lane l, the legs' c×c blocks A and their c×6 couplings C to
 * the base are factored at once, their updates of the base's 6×6 block summed over the lanes; then
 * the base block alone. The inverse, base to tip, X_kj = −Σ_{m ancestor of k} L_km·X_mj and
 * X_kk = 1/d_k − Σ_m L_km·X_km (derivatives_fd.c), is on a leg's rows
 *   X_tB = −Σ_{u<t} A_tu·X_uB − Σ_i C_ti·X_iB,   X_ts = −Σ_{u<t} A_tu·X_us − Σ_i C_ti·X_is,
 * with X_iB the base's block (the same in every lane), X_is for s in the leg's own rows its X_sB
 * (symmetry), and for s in another leg l' that leg's X_sB: lane l' moved to lane l by a rotation
 * of the lanes (rotations by 1 and 2 cover the pairs of four legs). M's entries come from S and
 * Ic·S in the same lanes, and v̇ from the factor by two triangular solves, refined once. */
#include "algorithms/cholesky_internal.h"
#include "algorithms/derivatives_internal.h"
#ifdef MBT__AVX2
#include <immintrin.h>
#endif

enum { LEGS_MAX_B = 4, LEGS_MAX_C = 4 };

bool mbt__equal_legs(const mbt_derivatives_workspace* ws, int* B, int* c) {
  *B = *c = 0;
  const int nv = ws->nv;
  if (nv < 8 || !ws->minv_ltdl || ws->minv_dense) return false;
  for (int k = 0; k < 6; ++k)
    if (ws->up[k] != k - 1) return false;
  int len = 1;
  while (6 + len < nv && ws->up[6 + len] == 5 + len) ++len;
  const int legs = (nv - 6) / len;
  if (len > LEGS_MAX_C || legs < 2 || legs > LEGS_MAX_B || legs * len != nv - 6) return false;
  for (int k = 6; k < nv; ++k)
    if (ws->up[k] != ((k - 6) % len == 0 ? 5 : k - 1)) return false;
  *B = legs, *c = len;
  return true;
}

#if defined(MBT__AVX2) && defined(MBT__MM_BLOCKS)
typedef mbt__v4 v4;

/* Lane l of V[0..6) = v[k_l] for a 6-vector per lane (two 4×4 transposes). */
MBT__ALWAYS_INLINE MBT__AVX2_ATTRIBUTES void lanes_load6(mbt_v6* v, const int* k, v4* V) {
  v4 P[4], T[4];
  for (int l = 0; l < 4; ++l) P[l] = *(const mbt__v4u*)v[k[l]];
  mm_transpose(P, V);
  for (int l = 0; l < 4; ++l) P[l] = *(const mbt__v4u*)(v[k[l]] + 2);
  mm_transpose(P, T);
  V[4] = T[2], V[5] = T[3];
}

/* M's entries of the legs' rows in lanes, M_kj = (Ic·S_k)·S_j (ws->SI, ws->S) for j = k and its
 * ancestors (lanes from B on: leg 0's, left out of the sums over lanes; A[t][u] = 0 for u > t),
 * and the base's block Mb (j ≤ i). */
MBT__ALWAYS_INLINE MBT__AVX2_ATTRIBUTES void legs_mass_rows(const mbt_derivatives_workspace* ws, int c,
                                                           v4 A[LEGS_MAX_C][LEGS_MAX_C], v4 C[LEGS_MAX_C][6],
                                                           mbt_real Mb[6][6]) {
  v4 SI[LEGS_MAX_C][6], S[LEGS_MAX_C][6];
  for (int t = 0; t < c; ++t) {
    int k[4];
    for (int l = 0; l < 4; ++l) k[l] = 6 + (l < ws->legs ? l : 0) * c + t;
    lanes_load6(ws->SI, k, SI[t]);
    lanes_load6(ws->S, k, S[t]);
  }
  for (int t = 0; t < c; ++t) {
    for (int i = 0; i < 6; ++i) {
      const mbt_real* Si = ws->S[i];
      v4 x = SI[t][0] * Si[0];
      for (int r = 1; r < 6; ++r) x += SI[t][r] * Si[r];
      C[t][i] = x;
    }
    for (int u = 0; u < LEGS_MAX_C; ++u) {
      v4 x = {0, 0, 0, 0};
      if (u <= t)
        for (int r = 0; r < 6; ++r) x += SI[t][r] * S[u][r];
      A[t][u] = x;
    }
  }
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j <= i; ++j) Mb[i][j] = mbt__v6_dot(ws->SI[i], ws->S[j]);
}

/* True when the pivots d of lanes [0, B) pass derivatives_fd.c's test against M's diagonal. */
MBT__ALWAYS_INLINE MBT__AVX2_ATTRIBUTES bool legs_pivots_ok(v4 d, v4 Mkk, int B) {
  bool ok = true;
  for (int l = 0; l < B; ++l) ok &= mbt_lt(MBT__CHOLESKY_RTOL * mbt_abs(Mkk[l]), d[l]) && mbt_isfinite(d[l]);
  return ok;
}

/* The legs' part of the factor, tip to base (derivatives_fd.c's ltdl_factor in lanes): A and C
 * become L's, Dv = 1/d, U the legs' updates of the base block (lane l: leg l's). */
MBT__ALWAYS_INLINE MBT__AVX2_ATTRIBUTES bool legs_factor(int B, int c, v4 A[LEGS_MAX_C][LEGS_MAX_C],
                                                        v4 C[LEGS_MAX_C][6], v4* Dv, v4 U[6][6]) {
  v4 Mkk[LEGS_MAX_C];  /* M's diagonal, for the pivots' test */
  for (int t = 0; t < c; ++t) Mkk[t] = A[t][t];
  for (int t = c - 1; t >= 0; --t) {
    const v4 d = A[t][t];
    if (!legs_pivots_ok(d, Mkk[t], B)) return false;
    const v4 dinv = 1 / d;
    Dv[t] = dinv;
    for (int u = t - 1; u >= 0; --u) {
      const v4 a = A[t][u] * dinv;
      for (int w = 0; w <= u; ++w) A[u][w] -= a * A[t][w];
      for (int i = 0; i < 6; ++i) C[u][i] -= a * C[t][i];
      A[t][u] = a;
    }
    for (int i = 5; i >= 0; --i) {
      const v4 a = C[t][i] * dinv;
      for (int j = 0; j <= i; ++j) U[i][j] = t == c - 1 ? a * C[t][j] : U[i][j] + a * C[t][j];
      C[t][i] = a;
    }
  }
  return true;
}

/* The sum of lanes [0, B). */
MBT__ALWAYS_INLINE MBT__AVX2_ATTRIBUTES mbt_real lanes_sum(v4 u, int B) {
  return B == 4 ? (u[0] + u[1]) + (u[2] + u[3]) : B == 3 ? (u[0] + u[1]) + u[2] : u[0] + u[1];
}

/* The base block's factor and inverse: Lb = M_BB − Σ_lanes U, factored tip to base, then its
 * inverse into Xb (6×6, both triangles); Lb's lower triangle L's, dinv = 1/d. False at a pivot that
 * fails. */
MBT__AVX2_ATTRIBUTES static bool base_factor_inverse(mbt_real Mb[6][6], int B, v4 U[6][6], mbt_real Lb[6][6],
                                                     mbt_real dinv[6], mbt_real Xb[6][6]) {
  #pragma GCC unroll 6
  for (int i = 0; i < 6; ++i)
    #pragma GCC unroll 6
    for (int j = 0; j <= i; ++j) Lb[i][j] = Mb[i][j] - lanes_sum(U[i][j], B);
  #pragma GCC unroll 6
  for (int k = 5; k >= 0; --k) {
    const mbt_real d = Lb[k][k];
    if (!(mbt_lt(MBT__CHOLESKY_RTOL * mbt_abs(Mb[k][k]), d) && mbt_isfinite(d)))
      return false;
    dinv[k] = 1 / d;
    #pragma GCC unroll 6
    for (int i = k - 1; i >= 0; --i) {
      const mbt_real a = Lb[k][i] * dinv[k];
      #pragma GCC unroll 6
      for (int j = 0; j <= i; ++j) Lb[i][j] -= a * Lb[k][j];
      Lb[k][i] = a;
    }
  }
  #pragma GCC unroll 6
  for (int k = 0; k < 6; ++k) {
    #pragma GCC unroll 6
    for (int j = 0; j < k; ++j) {
      mbt_real x = 0;
      #pragma GCC unroll 6
      for (int m = k - 1; m >= 0; --m) x -= Lb[k][m] * Xb[m][j];
      Xb[k][j] = x;
    }
    mbt_real xkk = dinv[k];
    #pragma GCC unroll 6
    for (int m = k - 1; m >= 0; --m) xkk -= Lb[k][m] * Xb[k][m];
    Xb[k][k] = xkk;
    #pragma GCC unroll 6
    for (int j = 0; j < k; ++j) Xb[j][k] = Xb[k][j];
  }
  return true;
}

/* The legs' rows of M⁻¹ on the base (XB) and on their own leg (XL, both triangles). */
MBT__ALWAYS_INLINE MBT__AVX2_ATTRIBUTES void legs_inverse(int c, v4 A[LEGS_MAX_C][LEGS_MAX_C], v4 C[LEGS_MAX_C][6],
                                                         const v4* Dv, mbt_real Xb[6][6], v4 XB[LEGS_MAX_C][6],
                                                         v4 XL[LEGS_MAX_C][LEGS_MAX_C]) {
  for (int t = 0; t < c; ++t) {
    for (int j = 0; j < 6; ++j) {
      v4 x = {0, 0, 0, 0};
      for (int u = t - 1; u >= 0; --u) x -= A[t][u] * XB[u][j];
      for (int i = 5; i >= 0; --i) x -= C[t][i] * Xb[i][j];
      XB[t][j] = x;
    }
    for (int s = 0; s < t; ++s) {
      v4 x = {0, 0, 0, 0};
      for (int u = t - 1; u >= 0; --u) x -= A[t][u] * XL[u][s];
      for (int i = 5; i >= 0; --i) x -= C[t][i] * XB[s][i];
      XL[t][s] = XL[s][t] = x;
    }
    v4 x = Dv[t];
    for (int u = t - 1; u >= 0; --u) x -= A[t][u] * XL[t][u];
    for (int i = 5; i >= 0; --i) x -= C[t][i] * XB[t][i];
    XL[t][t] = x;
  }
}

/* Lane l of the vectors V[0..c) to p_l[0..c) (p_l = X + row[l]·nv + col[l]) for the lanes l with
 * row[l] ≥ 0, by a 4×4 transpose and 2- and 1-wide stores of the pieces (stores masked by
 * vmaskmovpd cost more on some processors). */
MBT__ALWAYS_INLINE MBT__AVX2_ATTRIBUTES void lanes_store(int c, const v4* V, mbt_real* X, size_t nv, const int* row,
                                                        const int* col) {
  v4 P[4], T[4];  /* lanes from c on: V[0]'s, not stored */
  for (int u = 0; u < 4; ++u) P[u] = V[u < c ? u : 0];
  mm_transpose(P, T);
  for (int l = 0; l < 4; ++l) {
    if (row[l] < 0) continue;
    mbt_real* p = X + (size_t)row[l] * nv + (size_t)col[l];
    if (c == 4) {
      *(mbt__v4u*)p = T[l];
      continue;
    }
    const mbt__v2u lo = {T[l][0], T[l][1]};
    if (c >= 2) *(mbt__v2u*)p = lo;
    if (c & 1) p[c - 1] = T[l][c - 1];
  }
}

/* The blocks between leg l's rows and leg (l + r) mod 4's (lane l), written with their mirrors for
 * the pairs of legs not written before (r = 1: every l; r = 2: l < l + r). */
MBT__ALWAYS_INLINE MBT__AVX2_ATTRIBUTES void legs_cross(const mbt_derivatives_workspace* ws, int c, int r,
                                   v4 A[LEGS_MAX_C][LEGS_MAX_C], v4 C[LEGS_MAX_C][6], v4 XB[LEGS_MAX_C][6],
                                   mbt_real* X) {
  const int B = ws->legs;
  v4 Y[LEGS_MAX_C][6], R[LEGS_MAX_C][LEGS_MAX_C], Rt[LEGS_MAX_C][LEGS_MAX_C];
  for (int s = 0; s < c; ++s)
    for (int i = 0; i < 6; ++i)
      Y[s][i] = r == 1 ? __builtin_shufflevector(XB[s][i], XB[s][i], 1, 2, 3, 0)
                       : __builtin_shufflevector(XB[s][i], XB[s][i], 2, 3, 0, 1);
  for (int t = 0; t < c; ++t)
    for (int s = 0; s < c; ++s) {
      v4 x = {0, 0, 0, 0};
      for (int u = t - 1; u >= 0; --u) x -= A[t][u] * R[u][s];
      for (int i = 5; i >= 0; --i) x -= C[t][i] * Y[s][i];
      R[t][s] = Rt[s][t] = x;
    }
  int row[4], col[4], row2[4], col2[4];
  for (int l = 0; l < 4; ++l) {
    const int l2 = (l + r) % 4;
    const bool w = l < B && l2 < B && (r == 1 || l < l2);
    row[l] = col2[l] = 6 + l * c, col[l] = row2[l] = 6 + l2 * c;
    if (!w) row[l] = row2[l] = -1;
  }
  for (int t = 0; t < c; ++t) {
    lanes_store(c, R[t], X, (size_t)ws->nv, row, col);
    lanes_store(c, Rt[t], X, (size_t)ws->nv, row2, col2);
    for (int l = 0; l < 4; ++l) row[l] += row[l] >= 0, row2[l] += row2[l] >= 0;
  }
}

/* The legs' rows and columns of X (all but the blocks between legs) and the base's block. */
MBT__ALWAYS_INLINE MBT__AVX2_ATTRIBUTES void legs_store(const mbt_derivatives_workspace* ws, int c, mbt_real Xb[6][6],
                                   v4 XB[LEGS_MAX_C][6], v4 XL[LEGS_MAX_C][LEGS_MAX_C], mbt_real* X) {
  const size_t nv = (size_t)ws->nv;
  int row[4], col[4];
  for (int i = 0; i < 6; ++i) {  /* base row i on the legs' columns */
    v4 V[4];
    for (int t = 0; t < 4; ++t) V[t] = XB[t < c ? t : 0][i];
    for (int l = 0; l < 4; ++l) row[l] = l < ws->legs ? i : -1, col[l] = 6 + l * c;
    lanes_store(c, V, X, nv, row, col);
  }
  for (int t = 0; t < c; ++t) {  /* leg rows on the base's and their own leg's columns */
    for (int l = 0; l < 4; ++l) row[l] = l < ws->legs ? 6 + l * c + t : -1, col[l] = 0;
    lanes_store(4, XB[t], X, nv, row, col);
    for (int l = 0; l < 4; ++l) col[l] = 2;
    lanes_store(4, XB[t] + 2, X, nv, row, col);
    for (int l = 0; l < 4; ++l) col[l] = 6 + l * c;
    lanes_store(c, XL[t], X, nv, row, col);
  }
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) X[(size_t)i * nv + (size_t)j] = Xb[i][j];
}

/* x = M⁻¹·b by the factor, legs in lanes (bt, xt; lanes from B on unused) and base (bb, xb):
 * Lᵀ·w = b tip to base (w_k = b_k − Σ_{i below k} L_ik·w_i), then L·x = D⁻¹·w base to tip. */
MBT__ALWAYS_INLINE MBT__AVX2_ATTRIBUTES void legs_solve(int B, int c, v4 A[LEGS_MAX_C][LEGS_MAX_C],
                                                       v4 C[LEGS_MAX_C][6], const v4* Dv, mbt_real Lb[6][6],
                                                       const mbt_real* dinv, const v4* bt, const mbt_real* bb,
                                                       v4* xt, mbt_real* xb) {
  v4 w[LEGS_MAX_C];
  mbt_real wb[6];
  for (int t = c - 1; t >= 0; --t) {
    w[t] = bt[t];
    for (int u = t + 1; u < c; ++u) w[t] -= A[u][t] * w[u];
  }
  for (int i = 5; i >= 0; --i) {
    v4 sum = C[0][i] * w[0];
    for (int t = 1; t < c; ++t) sum += C[t][i] * w[t];
    wb[i] = bb[i] - lanes_sum(sum, B);
    for (int j = i + 1; j < 6; ++j) wb[i] -= Lb[j][i] * wb[j];
  }
  for (int i = 0; i < 6; ++i) {
    xb[i] = wb[i] * dinv[i];
    for (int j = 0; j < i; ++j) xb[i] -= Lb[i][j] * xb[j];
  }
  for (int t = 0; t < c; ++t) {
    v4 x = w[t] * Dv[t];
    for (int i = 0; i < 6; ++i) x -= C[t][i] * xb[i];
    for (int u = 0; u < t; ++u) x -= A[t][u] * xt[u];
    xt[t] = x;
  }
}

/* r = b − M·x with M's entries A0 (u ≤ t), C0 and Mb (j ≤ i), in the layout of legs_solve. */
MBT__ALWAYS_INLINE MBT__AVX2_ATTRIBUTES void legs_residual(int B, int c, v4 A0[LEGS_MAX_C][LEGS_MAX_C],
                                                          v4 C0[LEGS_MAX_C][6], mbt_real Mb[6][6], const v4* bt,
                                                          const mbt_real* bb, const v4* xt, const mbt_real* xb,
                                                          v4* rt, mbt_real* rb) {
  for (int t = 0; t < c; ++t) {
    v4 r = bt[t];
    for (int i = 0; i < 6; ++i) r -= C0[t][i] * xb[i];
    for (int u = 0; u < c; ++u) r -= (u <= t ? A0[t][u] : A0[u][t]) * xt[u];
    rt[t] = r;
  }
  for (int i = 0; i < 6; ++i) {
    v4 sum = C0[0][i] * xt[0];
    for (int t = 1; t < c; ++t) sum += C0[t][i] * xt[t];
    mbt_real r = bb[i] - lanes_sum(sum, B);
    for (int j = 0; j < 6; ++j) r -= (j <= i ? Mb[i][j] : Mb[j][i]) * xb[j];
    rb[i] = r;
  }
}

/* vdot = −M⁻¹·tau0 by the factor, refined once (vdot −= M⁻¹·(M·vdot + tau0)), as
 * ltdl_forward_dynamics (derivatives_fd.c) does with M⁻¹. */
MBT__ALWAYS_INLINE MBT__AVX2_ATTRIBUTES void legs_forward_dynamics(
    const mbt_derivatives_workspace* ws, int c, v4 A[LEGS_MAX_C][LEGS_MAX_C], v4 C[LEGS_MAX_C][6], const v4* Dv,
    mbt_real Lb[6][6], const mbt_real* dinv, v4 A0[LEGS_MAX_C][LEGS_MAX_C], v4 C0[LEGS_MAX_C][6], mbt_real Mb[6][6],
    const mbt_real* tau0, mbt_real* vdot) {
  const int B = ws->legs;
  v4 bt[LEGS_MAX_C], yt[LEGS_MAX_C], rt[LEGS_MAX_C], dt[LEGS_MAX_C];
  mbt_real yb[6], rb[6], db[6];
  int k[4];
  for (int l = 0; l < 4; ++l) k[l] = 6 + (l < B ? l : 0) * c;
  for (int t = 0; t < c; ++t) bt[t] = (v4){tau0[k[0] + t], tau0[k[1] + t], tau0[k[2] + t], tau0[k[3] + t]};
  legs_solve(B, c, A, C, Dv, Lb, dinv, bt, tau0, yt, yb);  /* y = M⁻¹·tau0 = −vdot */
  legs_residual(B, c, A0, C0, Mb, bt, tau0, yt, yb, rt, rb);
  legs_solve(B, c, A, C, Dv, Lb, dinv, rt, rb, dt, db);
  for (int i = 0; i < 6; ++i) vdot[i] = -(yb[i] + db[i]);
  for (int t = 0; t < c; ++t) {
    const v4 x = -(yt[t] + dt[t]);
    for (int l = 0; l < B; ++l) vdot[k[l] + t] = x[l];
  }
}

/* mbt__minv_legs for legs of c velocities. */
MBT__ALWAYS_INLINE MBT__AVX2_ATTRIBUTES bool minv_legs_c(const mbt_derivatives_workspace* ws, int c, mbt_real* X,
                                                        const mbt_real* tau0, mbt_real* vdot) {
  const int B = ws->legs;
  v4 A[LEGS_MAX_C][LEGS_MAX_C], C[LEGS_MAX_C][6], Dv[LEGS_MAX_C], U[6][6];
  v4 XB[LEGS_MAX_C][6], XL[LEGS_MAX_C][LEGS_MAX_C];
  mbt_real Mb[6][6], Xb[6][6];
  v4 A0[LEGS_MAX_C][LEGS_MAX_C], C0[LEGS_MAX_C][6];
  mbt_real Lb[6][6], dinv[6];
  legs_mass_rows(ws, c, A, C, Mb);
  for (int t = 0; vdot && t < c; ++t) {  /* M's entries for v̇'s residual (not memcpy: rep movsq) */
    for (int u = 0; u <= t; ++u) A0[t][u] = A[t][u];
    for (int i = 0; i < 6; ++i) C0[t][i] = C[t][i];
  }
  if (!legs_factor(B, c, A, C, Dv, U) || !base_factor_inverse(Mb, B, U, Lb, dinv, Xb)) return false;
  if (vdot) legs_forward_dynamics(ws, c, A, C, Dv, Lb, dinv, A0, C0, Mb, tau0, vdot);
  legs_inverse(c, A, C, Dv, Xb, XB, XL);
  legs_store(ws, c, Xb, XB, XL, X);
  legs_cross(ws, c, 1, A, C, XB, X);
  if (B >= 3) legs_cross(ws, c, 2, A, C, XB, X);
  return true;
}

/* M⁻¹ into X from ws->S and ws->SI, and vdot = −M⁻¹·tau0 (refined once) unless vdot is NULL; no
 * velocity locked. False at a pivot that fails (X partly written: the general path then reports
 * it). */
MBT__AVX2_ATTRIBUTES bool mbt__minv_legs(const mbt_derivatives_workspace* ws, mbt_real* X, const mbt_real* tau0,
                                         mbt_real* vdot) {
  switch (ws->leg_len) {  /* the loops over a leg unrolled */
    case 3: return minv_legs_c(ws, 3, X, tau0, vdot);
    case 2: return minv_legs_c(ws, 2, X, tau0, vdot);
    default: return minv_legs_c(ws, ws->leg_len, X, tau0, vdot);
  }
}
#else
bool mbt__minv_legs(const mbt_derivatives_workspace* ws, mbt_real* X, const mbt_real* tau0, mbt_real* vdot) {
  (void)ws, (void)X, (void)tau0, (void)vdot;
  return false;
}
#endif
