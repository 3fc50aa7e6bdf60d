/* derivatives_legs.c: M⁻¹ of a floating base with equal legs, the legs in the lanes of a 4-wide
 * register (ws->legs: the velocities [0, 6) a run from the root, then B ≤ 4 chains of c ≤ 4
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
 * of the lanes (rotations by 1 and 2 cover the pairs of four legs). */
#include "algorithms/cholesky_internal.h"
#include "algorithms/derivatives_internal.h"

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

/* The legs' rows of M in lanes (lanes from B on: A = 1, C = 0, which add nothing). */
MBT__AVX2_ATTRIBUTES static void legs_load(const mbt_derivatives_workspace* ws, const mbt_real* M,
                                           v4 A[LEGS_MAX_C][LEGS_MAX_C], v4 C[LEGS_MAX_C][6]) {
  const int nv = ws->nv, B = ws->legs, c = ws->leg_len;
  for (int t = 0; t < c; ++t) {
    for (int u = 0; u <= t; ++u) A[t][u] = (v4){1, 1, 1, 1} * (mbt_real)(u == t);
    for (int i = 0; i < 6; ++i) C[t][i] = (v4){0, 0, 0, 0};
    for (int l = 0; l < B; ++l) {
      const int o = 6 + l * c;
      const mbt_real* Mk = M + (size_t)(o + t) * (size_t)nv;
      for (int u = 0; u <= t; ++u) A[t][u][l] = Mk[o + u];
      for (int i = 0; i < 6; ++i) C[t][i][l] = Mk[i];
    }
  }
}

/* True when the pivots d of lanes [0, B) pass derivatives_fd.c's test against M's diagonal. */
MBT__ALWAYS_INLINE bool legs_pivots_ok(v4 d, v4 Mkk, int B) {
  bool ok = true;
  for (int l = 0; l < B; ++l) ok &= mbt_lt(MBT__CHOLESKY_RTOL * mbt_abs(Mkk[l]), d[l]) && mbt_isfinite(d[l]);
  return ok;
}

/* The legs' part of the factor, tip to base (derivatives_fd.c's ltdl_factor in lanes): A and C
 * become L's, Dv = 1/d, U the legs' updates of the base block (lane l: leg l's). */
MBT__AVX2_ATTRIBUTES static bool legs_factor(int B, int c, v4 A[LEGS_MAX_C][LEGS_MAX_C], v4 C[LEGS_MAX_C][6],
                                             v4* Dv, v4 U[6][6]) {
  v4 Mkk[LEGS_MAX_C];  /* M's diagonal, for the pivots' test */
  for (int t = 0; t < c; ++t) Mkk[t] = A[t][t];
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j <= i; ++j) U[i][j] = (v4){0, 0, 0, 0};
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
      for (int j = 0; j <= i; ++j) U[i][j] += a * C[t][j];
      C[t][i] = a;
    }
  }
  return true;
}

/* The base block's factor and inverse: Lb = M_BB − Σ_lanes U, factored tip to base, then its
 * inverse into Xb (6×6, both triangles). False at a pivot that fails. */
MBT__AVX2_ATTRIBUTES static bool base_factor_inverse(const mbt_real* M, int nv, v4 U[6][6], mbt_real Xb[6][6]) {
  mbt_real Lb[6][6], dinv[6];
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j <= i; ++j) Lb[i][j] = M[(size_t)i * (size_t)nv + (size_t)j] - ((U[i][j][0] + U[i][j][1]) +
                                                                                       (U[i][j][2] + U[i][j][3]));
  for (int k = 5; k >= 0; --k) {
    const mbt_real d = Lb[k][k];
    if (!(mbt_lt(MBT__CHOLESKY_RTOL * mbt_abs(M[(size_t)k * (size_t)nv + (size_t)k]), d) && mbt_isfinite(d)))
      return false;
    dinv[k] = 1 / d;
    for (int i = k - 1; i >= 0; --i) {
      const mbt_real a = Lb[k][i] * dinv[k];
      for (int j = 0; j <= i; ++j) Lb[i][j] -= a * Lb[k][j];
      Lb[k][i] = a;
    }
  }
  for (int k = 0; k < 6; ++k) {
    for (int j = 0; j < k; ++j) {
      mbt_real x = 0;
      for (int m = k - 1; m >= 0; --m) x -= Lb[k][m] * Xb[m][j];
      Xb[k][j] = x;
    }
    mbt_real xkk = dinv[k];
    for (int m = k - 1; m >= 0; --m) xkk -= Lb[k][m] * Xb[k][m];
    Xb[k][k] = xkk;
    for (int j = 0; j < k; ++j) Xb[j][k] = Xb[k][j];
  }
  return true;
}

/* The legs' rows of M⁻¹ on the base (XB) and on their own leg (XL, u < t; XD the diagonal). */
MBT__AVX2_ATTRIBUTES static void legs_inverse(int c, v4 A[LEGS_MAX_C][LEGS_MAX_C], v4 C[LEGS_MAX_C][6],
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
      for (int u = t - 1; u >= 0; --u) x -= A[t][u] * (u >= s ? XL[u][s] : XL[s][u]);
      for (int i = 5; i >= 0; --i) x -= C[t][i] * XB[s][i];
      XL[t][s] = x;
    }
    v4 x = Dv[t];
    for (int u = t - 1; u >= 0; --u) x -= A[t][u] * XL[t][u];
    for (int i = 5; i >= 0; --i) x -= C[t][i] * XB[t][i];
    XL[t][t] = x;
  }
}

/* The blocks between leg l's rows and leg (l + r) mod 4's (lane l), written with their mirrors for
 * the pairs of legs not written before (r = 1: every l; r = 2: l < l + r). */
MBT__AVX2_ATTRIBUTES static void legs_cross(const mbt_derivatives_workspace* ws, int r,
                                            v4 A[LEGS_MAX_C][LEGS_MAX_C], v4 C[LEGS_MAX_C][6],
                                            v4 XB[LEGS_MAX_C][6], mbt_real* X) {
  const int c = ws->leg_len, B = ws->legs;
  const size_t nv = (size_t)ws->nv;
  v4 Y[LEGS_MAX_C][6], R[LEGS_MAX_C][LEGS_MAX_C];
  for (int s = 0; s < c; ++s)
    for (int i = 0; i < 6; ++i)
      Y[s][i] = r == 1 ? __builtin_shufflevector(XB[s][i], XB[s][i], 1, 2, 3, 0)
                       : __builtin_shufflevector(XB[s][i], XB[s][i], 2, 3, 0, 1);
  for (int t = 0; t < c; ++t)
    for (int s = 0; s < c; ++s) {
      v4 x = {0, 0, 0, 0};
      for (int u = t - 1; u >= 0; --u) x -= A[t][u] * R[u][s];
      for (int i = 5; i >= 0; --i) x -= C[t][i] * Y[s][i];
      R[t][s] = x;
    }
  for (int l = 0; l < B; ++l) {
    const int l2 = (l + r) % 4;
    if (l2 >= B || (r == 2 && l2 < l)) continue;
    const size_t o = 6 + (size_t)(l * c), o2 = 6 + (size_t)(l2 * c);
    for (int t = 0; t < c; ++t)
      for (int s = 0; s < c; ++s) X[(o + t) * nv + o2 + s] = X[(o2 + s) * nv + o + t] = R[t][s][l];
  }
}

/* M⁻¹ into X from M's lower ancestor entries M (ancestor_mass_rows' Mc), no velocity locked.
 * False at a pivot that fails (X partly written: the general path then reports it). */
MBT__AVX2_ATTRIBUTES bool mbt__minv_legs(const mbt_derivatives_workspace* ws, const mbt_real* M, mbt_real* X) {
  const int B = ws->legs, c = ws->leg_len;
  const size_t nv = (size_t)ws->nv;
  v4 A[LEGS_MAX_C][LEGS_MAX_C], C[LEGS_MAX_C][6], Dv[LEGS_MAX_C], U[6][6];
  v4 XB[LEGS_MAX_C][6], XL[LEGS_MAX_C][LEGS_MAX_C];
  mbt_real Xb[6][6];
  legs_load(ws, M, A, C);
  if (!legs_factor(B, c, A, C, Dv, U) || !base_factor_inverse(M, ws->nv, U, Xb)) return false;
  legs_inverse(c, A, C, Dv, Xb, XB, XL);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) X[(size_t)i * nv + (size_t)j] = Xb[i][j];
  for (int l = 0; l < B; ++l) {
    const size_t o = 6 + (size_t)(l * c);
    for (int t = 0; t < c; ++t) {
      mbt_real* Xt = X + (o + (size_t)t) * nv;
      for (int i = 0; i < 6; ++i) Xt[i] = X[(size_t)i * nv + o + (size_t)t] = XB[t][i][l];
      for (int s = 0; s < t; ++s) Xt[o + (size_t)s] = X[(o + (size_t)s) * nv + o + (size_t)t] = XL[t][s][l];
      Xt[o + (size_t)t] = XL[t][t][l];
    }
  }
  legs_cross(ws, 1, A, C, XB, X);
  if (B >= 3) legs_cross(ws, 2, A, C, XB, X);
  return true;
}
#else
bool mbt__minv_legs(const mbt_derivatives_workspace* ws, const mbt_real* M, mbt_real* X) {
  (void)ws, (void)M, (void)X;
  return false;
}
#endif
