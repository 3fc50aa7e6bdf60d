/* derivatives_lanes.h: the per-body and per-velocity products of the ∂tau pass (derivatives.c)
 * four local nodes at a time, one node per lane of GCC's and clang's four-lane vectors
 * (algorithms_internal.h, mbt__v4), as the mass matrix's blocks: the same formulas as the
 * scalar kernels of derivatives.c, term for term. Included by derivatives.c alone, and used only
 * in its passes' AVX2 and AVX-512 copies (in baseline x86-64 GCC moves four-lane vectors through
 * the stack; MBT_DERIV_PASSES_LANES). Lane l of a block is node i0 + l, and for the velocity
 * rows velocity k0 + l of the four one-velocity nodes i0..i0 + 3 (consecutive velocities). */
#ifndef MBT_DERIVATIVES_LANES_H
#define MBT_DERIVATIVES_LANES_H

#include "algorithms/derivatives_internal.h"

#if defined(MBT__MM_BLOCKS) && defined(MBT__AVX2)
#define MBT__DERIV_LANES 1

typedef mbt__v4 v4;

/* x[0], x[1] lane l = p[l·stride], p[l·stride + 1]: two numbers of each of four structs by 2-wide
 * loads; store_pair4 the reverse. */
MBT__ALWAYS_INLINE void load_pair4(const mbt_real* p, size_t stride, v4* x) {
  const mbt__v2u a0 = *(const mbt__v2u*)p, a1 = *(const mbt__v2u*)(p + stride);
  const mbt__v2u a2 = *(const mbt__v2u*)(p + 2 * stride), a3 = *(const mbt__v2u*)(p + 3 * stride);
  const v4 lo = __builtin_shufflevector(a0, a2, 0, 1, 2, 3), hi = __builtin_shufflevector(a1, a3, 0, 1, 2, 3);
  x[0] = __builtin_shufflevector(lo, hi, 0, 4, 2, 6), x[1] = __builtin_shufflevector(lo, hi, 1, 5, 3, 7);
}
MBT__ALWAYS_INLINE void store_pair4(const v4* x, size_t stride, mbt_real* p) {
  const v4 lo = __builtin_shufflevector(x[0], x[1], 0, 4, 2, 6), hi = __builtin_shufflevector(x[0], x[1], 1, 5, 3, 7);
  *(mbt__v2u*)p = __builtin_shufflevector(lo, lo, 0, 1);
  *(mbt__v2u*)(p + stride) = __builtin_shufflevector(hi, hi, 0, 1);
  *(mbt__v2u*)(p + 2 * stride) = __builtin_shufflevector(lo, lo, 2, 3);
  *(mbt__v2u*)(p + 3 * stride) = __builtin_shufflevector(hi, hi, 2, 3);
}

/* x[r] lane l = p[6·l + r]: a 6-vector of four consecutive entries of a mbt_v6 array; store6x4
 * the reverse. Entries 0..3 by a 4×4 transpose, 4 and 5 by load_pair4 (not a second transpose of
 * entries 2..5, which overlapped the first: a load of entries two stores wrote waits for them to
 * be written to the cache, where one store's entries are forwarded to the load at once). */
MBT__ALWAYS_INLINE void load6x4(const mbt_real* p, v4* x) {
  mm_load4(p, 6, x);
  load_pair4(p + 4, 6, x + 4);
}
MBT__ALWAYS_INLINE void store6x4(const v4* x, mbt_real* p) {
  mm_store4(x, 6, p);
  store_pair4(x + 4, 6, p + 4);
}
MBT__ALWAYS_INLINE void store_row4(mbt_real* p, const v4* x) { *(mbt__v4u*)p = *x; }
/* A 6-vector of four consecutive entries of a mbt_v6 array (24 numbers) as store6x4 (AoS), or
 * where lanes as the six vectors one after the other (x[r] at p + 4·r: no transposes, for a reader
 * that loads them back the same way, load6x4_as); load6x4_as the reverse. */
MBT__ALWAYS_INLINE void store6x4_as(const v4* x, mbt_real* p, bool lanes) {
  if (!lanes) {
    store6x4(x, p);
    return;
  }
  for (int r = 0; r < 6; ++r) *(mbt__v4u*)(p + 4 * r) = x[r];
}
MBT__ALWAYS_INLINE void load6x4_as(const mbt_real* p, v4* x, bool lanes) {
  if (!lanes) {
    load6x4(p, x);
    return;
  }
  for (int r = 0; r < 6; ++r) x[r] = *(const mbt__v4u*)(p + 4 * r);
}

/* The moments {m, h, K} of four nodes as lanes: I[0] = m, I[1..3] = h, I[4..9] = K. */
MBT__ALWAYS_INLINE void load_moments4(const mbt_inertia_moments* M, v4* I) {
  v4 Kb[4];
  mm_load4(&M->m, MBT__MOMENTS_STRIDE, I);
  mm_load4(&M->K[0], MBT__MOMENTS_STRIDE, I + 4);
  mm_load4(&M->K[2], MBT__MOMENTS_STRIDE, Kb);
  I[8] = Kb[2], I[9] = Kb[3];
}
MBT__ALWAYS_INLINE void store_moments4(const v4* I, mbt_inertia_moments* M) {
  mm_store_moments4(I, I + 4, M);
}
/* The Y of four nodes as lanes: Y[0..5] = Σ, Y[6..8] = n, Y[9..11] = b (mbt_ymat, 12 numbers,
 * read as one array through a pointer to the whole struct: s + 8 would point past the array s). */
_Static_assert(sizeof(mbt_ymat) == 12 * sizeof(mbt_real), "mbt_ymat is 12 numbers without padding");
MBT__ALWAYS_INLINE void load_ymat4(const mbt_ymat* Y, v4* y) {
  const mbt_real* p = (const mbt_real*)(const void*)Y;
  for (int c = 0; c < 3; ++c) mm_load4(p + 4 * c, sizeof(mbt_ymat) / sizeof(mbt_real), y + 4 * c);
}
MBT__ALWAYS_INLINE void store_ymat4(const v4* y, mbt_ymat* Y) {
  mbt_real* p = (mbt_real*)(void*)Y;
  for (int c = 0; c < 3; ++c) mm_store4(y + 4 * c, sizeof(mbt_ymat) / sizeof(mbt_real), p + 4 * c);
}

/* mbt__moments_mul6 by lanes, I as load_moments4's (y must not be x). */
MBT__ALWAYS_INLINE void mul6_4(const v4* I, const v4* x, v4* y) {
  const v4 *h = I + 1, *K = I + 4;
  y[0] = K[0] * x[0] + K[3] * x[1] + K[4] * x[2] + h[1] * x[5] - h[2] * x[4];
  y[1] = K[3] * x[0] + K[1] * x[1] + K[5] * x[2] + h[2] * x[3] - h[0] * x[5];
  y[2] = K[4] * x[0] + K[5] * x[1] + K[2] * x[2] + h[0] * x[4] - h[1] * x[3];
  y[3] = I[0] * x[3] - (h[1] * x[2] - h[2] * x[1]);
  y[4] = I[0] * x[4] - (h[2] * x[0] - h[0] * x[2]);
  y[5] = I[0] * x[5] - (h[0] * x[1] - h[1] * x[0]);
}
/* mbt__v6_cross_force by lanes (c must not be a or b). */
MBT__ALWAYS_INLINE void cross_force4(const v4* a, const v4* b, v4* c) {
  c[0] = a[1] * b[2] - a[2] * b[1] + a[4] * b[5] - a[5] * b[4];
  c[1] = a[2] * b[0] - a[0] * b[2] + a[5] * b[3] - a[3] * b[5];
  c[2] = a[0] * b[1] - a[1] * b[0] + a[3] * b[4] - a[4] * b[3];
  c[3] = a[1] * b[5] - a[2] * b[4];
  c[4] = a[2] * b[3] - a[0] * b[5];
  c[5] = a[0] * b[4] - a[1] * b[3];
}
/* sym3_mul, y_mul and the angular part of y_tmul (derivatives.c) by lanes, Y as load_ymat4's. */
MBT__ALWAYS_INLINE void sym3_mul4(const v4* s, const v4* x, v4* y) {
  y[0] = s[0] * x[0] + s[3] * x[1] + s[4] * x[2];
  y[1] = s[3] * x[0] + s[1] * x[1] + s[5] * x[2];
  y[2] = s[4] * x[0] + s[5] * x[1] + s[2] * x[2];
}
MBT__ALWAYS_INLINE void y_mul4(const v4* Y, const v4* x, v4* y) {
  const v4 *n = Y + 6, *b = Y + 9;
  sym3_mul4(Y, x, y);
  y[0] += n[1] * x[2] - n[2] * x[1];
  y[1] += n[2] * x[0] - n[0] * x[2];
  y[2] += n[0] * x[1] - n[1] * x[0];
  y[3] = b[1] * x[2] - b[2] * x[1];
  y[4] = b[2] * x[0] - b[0] * x[2];
  y[5] = b[0] * x[1] - b[1] * x[0];
}
MBT__ALWAYS_INLINE void y_tmul4(const v4* Y, const v4* x, v4* y) {
  const v4 *n = Y + 6, *b = Y + 9;
  sym3_mul4(Y, x, y);
  y[0] -= n[1] * x[2] - n[2] * x[1] + b[1] * x[5] - b[2] * x[4];
  y[1] -= n[2] * x[0] - n[0] * x[2] + b[2] * x[3] - b[0] * x[5];
  y[2] -= n[0] * x[1] - n[1] * x[0] + b[0] * x[4] - b[1] * x[3];
}

/* inertia_at_Wo of four nodes: K' = R·K·Rᵀ, h' = R·h (reexpress4_lanes), then shifted to Wo by
 * d = p_WoMo: h = h' + m·d, K = K' + s·1 − m·d·dᵀ − d·h'ᵀ − h'·dᵀ, s = m·|d|² + 2·(d·h'). */
MBT__ALWAYS_INLINE void inertia_at_Wo4(const mbt_inertia_moments* I, const mbt_transform* X, v4* J) {
  v4 Km[4], K6[6], P[4];
  reexpress4_lanes(I, X, Km, K6);
  mm_load4(&X->R.m[2][2], MBT__TRANSFORM_STRIDE, P); /* R22 p */
  const v4 m = Km[0], *h = Km + 1, *d = P + 1;
  const v4 s = m * (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + 2 * (d[0] * h[0] + d[1] * h[1] + d[2] * h[2]);
  const v4 z = {0};
  static const int ri[6] = {0, 1, 2, 0, 0, 1}, ci[6] = {0, 1, 2, 1, 2, 2};
  for (int e = 0; e < 6; ++e) {
    const int i = ri[e], j = ci[e];
    J[4 + e] = K6[e] + ((e < 3 ? s : z) - m * d[i] * d[j] - d[i] * h[j] - h[i] * d[j]);
  }
  J[0] = m;
  for (int r = 0; r < 3; ++r) J[1 + r] = h[r] + m * d[r];
}

/* forward_node_inertia of the four nodes i0..i0 + 3 (their V, A in ws->V, ws->A as lanes where
 * va_lanes, chain_rates4): Ic = I (about Wo, in W; unless ib_only) and Ib = I if keep_ib, F = I·A + V ×* (I·V) and Yc = Y (body_Y: C = K·[ω]×, Σ = C + Cᵀ + u·hᵀ + h·uᵀ − 2(u·h)·1,
 * n = the angular part of I·V, b = twice its linear part). */
MBT__ALWAYS_INLINE void node_inertias4(const mbt_context* ctx, mbt_derivatives_workspace* ws, int i0, bool keep_ib,
                                        bool ib_only, bool va_lanes) {
  v4 I[10], V[6], A[6], Iv[6], Ia[6], vIv[6], F[6], Y[12];
  inertia_at_Wo4(&ctx->I_Mo_M[i0], &ws->X_WM[i0], I);
  if (keep_ib) store_moments4(I, &ws->Ib[i0]);
  if (!keep_ib || !ib_only) store_moments4(I, &ws->Ic[i0]);
  load6x4_as(ws->V[i0], V, va_lanes);
  load6x4_as(ws->A[i0], A, va_lanes);
  mul6_4(I, A, Ia);
  mul6_4(I, V, Iv);
  cross_force4(V, Iv, vIv);
  for (int r = 0; r < 6; ++r) F[r] = Ia[r] + vIv[r];
  store6x4(F, ws->F[i0]);
  const v4 *K = I + 4, *h = I + 1, *w = V, *u = V + 3;
  const v4 C00 = K[3] * w[2] - K[4] * w[1], C01 = K[4] * w[0] - K[0] * w[2], C02 = K[0] * w[1] - K[3] * w[0];
  const v4 C10 = K[1] * w[2] - K[5] * w[1], C11 = K[5] * w[0] - K[3] * w[2], C12 = K[3] * w[1] - K[1] * w[0];
  const v4 C20 = K[5] * w[2] - K[2] * w[1], C21 = K[2] * w[0] - K[4] * w[2], C22 = K[4] * w[1] - K[5] * w[0];
  const v4 uh = u[0] * h[0] + u[1] * h[1] + u[2] * h[2];
  Y[0] = 2 * (C00 + u[0] * h[0] - uh);
  Y[1] = 2 * (C11 + u[1] * h[1] - uh);
  Y[2] = 2 * (C22 + u[2] * h[2] - uh);
  Y[3] = C01 + C10 + u[0] * h[1] + h[0] * u[1];
  Y[4] = C02 + C20 + u[0] * h[2] + h[0] * u[2];
  Y[5] = C12 + C21 + u[1] * h[2] + h[1] * u[2];
  for (int r = 0; r < 3; ++r) Y[6 + r] = Iv[r], Y[9 + r] = 2 * Iv[3 + r];
  store_ymat4(Y, &ws->Yc[i0]);
}

/* x[c] lane l = p[l][off + c], c < 4: four numbers of each of four arrays, loaded four at a time
 * and transposed in registers; scatter4 the reverse. */
MBT__ALWAYS_INLINE void gather4(const mbt_real* const* p, int off, v4* x) {
  v4 L[4];
  for (int l = 0; l < 4; ++l) L[l] = *(const mbt__v4u*)(p[l] + off);
  mm_transpose(L, x);
}
MBT__ALWAYS_INLINE void scatter4(const v4* x, mbt_real* const* p, int off) {
  v4 L[4];
  mm_transpose(x, L);
  for (int l = 0; l < 4; ++l) *(mbt__v4u*)(p[l] + off) = L[l];
}
/* A 6-vector of each lane's array (the two overlapping halves store the same numbers in 2, 3). */
MBT__ALWAYS_INLINE void gather6(const mbt_real* const* p, v4* x) {
  v4 b[4];
  gather4(p, 0, x);
  gather4(p, 2, b);
  x[4] = b[2], x[5] = b[3];
}
MBT__ALWAYS_INLINE void scatter6(const v4* x, mbt_real* const* p) {
  scatter4(x, p, 0);
  scatter4(x + 2, p, 2);
}
/* mbt__v6_cross by lanes (c must not be a or b). */
MBT__ALWAYS_INLINE void cross4(const v4* a, const v4* b, v4* c) {
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
  c[3] = a[1] * b[5] - a[2] * b[4] + a[4] * b[2] - a[5] * b[1];
  c[4] = a[2] * b[3] - a[0] * b[5] + a[5] * b[0] - a[3] * b[2];
  c[5] = a[0] * b[4] - a[1] * b[3] + a[3] * b[1] - a[4] * b[0];
}

/* forward_revolute of the four revolute nodes n[0..3] (ws->forward_steps: none below another),
 * lane l node n[l]: R_WF = R_WA·R_AF, R_WM = (c·x + s·y, c·y − s·x, z) for R_WF's columns (x, y, z),
 * p_WoMo = p_WoAo + R_WA·p_AF, S = [z; p_WoMo × z], then one_velocity_rates (W = S × V_λ,
 * B = W × V_λ − S × A_λ, G = −2·W, V = V_λ + S·v, A = A_λ − W·v + S·v̇). Where finalize turned the
 * frames (R_AF_is_xz) the scalar step forms R_WM by column mixes instead: the same to round-off. */
MBT__ALWAYS_INLINE void forward_revolute4(const mbt_context* ctx, mbt_derivatives_workspace* ws, const int* n,
                                          const mbt_real* v, const mbt_real* vdot) {
  const mbt_real *XA[4], *XF[4], *Vp[4], *Ap[4];
  mbt_real *X[4], *So[4], *Vo[4], *Ao[4], *Wo[4], *Bo[4], *Go[4];
  v4 sn, cn, vk = {0}, ak = {0};
  for (int l = 0; l < 4; ++l) {
    const mbt_local_node* L = &ws->tree->local_nodes[n[l]];
    const int p = L->parent, k = L->v_start;
    XA[l] = ws->X_WM[p].R.m[0], XF[l] = L->X_AF.R.m[0], Vp[l] = ws->V[p], Ap[l] = ws->A[p];
    X[l] = ws->X_WM[n[l]].R.m[0], Vo[l] = ws->V[n[l]], Ao[l] = ws->A[n[l]];
    So[l] = ws->S[k], Wo[l] = ws->Wk[k], Bo[l] = ws->Bk[k], Go[l] = ws->Gk[k];
    sn[l] = ctx->sin_q[L->q_start], cn[l] = ctx->cos_q[L->q_start];
    if (v) vk[l] = v[k];
    if (vdot) ak[l] = vdot[k];
  }
  v4 RA[12], RF[12], RM[12], V[6], A[6], S[6], W[6], B[6], t[6], u[6];
  for (int c = 0; c < 3; ++c) gather4(XA, 4 * c, RA + 4 * c), gather4(XF, 4 * c, RF + 4 * c);
  for (int r = 0; r < 3; ++r) {
    v4 x = {0}, y = {0}, z = {0}, p = {0};
    for (int m = 0; m < 3; ++m) {
      const v4 a = RA[3 * r + m];
      x += a * RF[3 * m], y += a * RF[3 * m + 1], z += a * RF[3 * m + 2], p += a * RF[9 + m];
    }
    RM[3 * r] = cn * x + sn * y, RM[3 * r + 1] = cn * y - sn * x, RM[3 * r + 2] = z;
    RM[9 + r] = RA[9 + r] + p;
  }
  const v4 *z = RM + 2, *p = RM + 9;
  S[0] = z[0], S[1] = z[3], S[2] = z[6];
  S[3] = p[1] * S[2] - p[2] * S[1], S[4] = p[2] * S[0] - p[0] * S[2], S[5] = p[0] * S[1] - p[1] * S[0];
  for (int c = 0; c < 3; ++c) scatter4(RM + 4 * c, X, 4 * c);
  gather6(Vp, V);
  gather6(Ap, A);
  cross4(S, V, W);
  cross4(W, V, t);
  cross4(S, A, u);
  for (int r = 0; r < 6; ++r) B[r] = t[r] - u[r], t[r] = -2 * W[r];
  scatter6(S, So), scatter6(W, Wo), scatter6(B, Bo), scatter6(t, Go);
  for (int r = 0; r < 6; ++r) V[r] += S[r] * vk, A[r] = A[r] - W[r] * vk + S[r] * ak;
  scatter6(V, Vo), scatter6(A, Ao);
}

/* The 6-vectors X of four nodes i0..i0 + 3 of a chain from their increments d (lanes) and X of
 * the parent of i0 in every lane of c: X = c + the running sums d_0 + … + d_l (two shifted adds:
 * a scan, the same to round-off as the sums one after the other), Xp = X of each lane's parent
 * (c, X_0, X_1, X_2), and c then X_3 in every lane (the next block's). */
MBT__ALWAYS_INLINE void chain_sums4(const v4* d, v4* c, v4* X, v4* Xp) {
  const v4 z = {0, 0, 0, 0};
  for (int r = 0; r < 6; ++r) {
    const v4 s = d[r] + __builtin_shufflevector(d[r], z, 4, 0, 1, 2);
    X[r] = c[r] + (s + __builtin_shufflevector(s, z, 4, 5, 0, 1));
    Xp[r] = __builtin_shufflevector(c[r], X[r], 0, 4, 5, 6);
    c[r] = __builtin_shufflevector(X[r], X[r], 3, 3, 3, 3);
  }
}

/* one_velocity_rates of the four revolute nodes i0..i0 + 3 of a chain (each below the one
 * before, velocities k0..k0 + 3), their poses X_WM stored: S = [z; p_WoMo × z] (z = R_WM·ẑ), then
 * V = V_λ + S·v and A = A_λ − W·v + S·v̇ as running sums down the block from V and A of the node
 * above i0 (Vc, Ac: in every lane, then those of i0 + 3), W = S × V_λ, B = W × V_λ − S × A_λ,
 * G = −2·W; V and A stored as lanes where va_lanes (store6x4_as). */
MBT__ALWAYS_INLINE void chain_rates4(mbt_derivatives_workspace* ws, int i0, const mbt_real* v,
                                     const mbt_real* vdot, v4* Vc, v4* Ac, bool va_lanes) {
  _Static_assert(sizeof(mbt_transform) == 12 * sizeof(mbt_real), "mbt_transform is 12 numbers");
  const int k0 = ws->tree->local_nodes[i0].v_start;
  const mbt_real* x = (const mbt_real*)(const void*)&ws->X_WM[i0];
  v4 a[4], b[4], S[6], d[6], V[6], Vl[6], A[6], Al[6], W[6], B[6], t[6];
  mm_load4(x + 2, MBT__TRANSFORM_STRIDE, a); /* R02 R10 R11 R12 */
  mm_load4(x + 8, MBT__TRANSFORM_STRIDE, b); /* R22 p */
  const v4 z = {0, 0, 0, 0}, vk = v ? *(const mbt__v4u*)(v + k0) : z, ak = vdot ? *(const mbt__v4u*)(vdot + k0) : z;
  const v4* p = b + 1;
  S[0] = a[0], S[1] = a[3], S[2] = b[0];
  S[3] = p[1] * S[2] - p[2] * S[1], S[4] = p[2] * S[0] - p[0] * S[2], S[5] = p[0] * S[1] - p[1] * S[0];
  for (int r = 0; r < 6; ++r) d[r] = S[r] * vk;
  chain_sums4(d, Vc, V, Vl);
  cross4(S, Vl, W);
  for (int r = 0; r < 6; ++r) d[r] = S[r] * ak - W[r] * vk;
  chain_sums4(d, Ac, A, Al);
  cross4(W, Vl, t);
  cross4(S, Al, B);
  for (int r = 0; r < 6; ++r) B[r] = t[r] - B[r], t[r] = -2 * W[r];
  store6x4(S, ws->S[k0]), store6x4(W, ws->Wk[k0]), store6x4(B, ws->Bk[k0]), store6x4(t, ws->Gk[k0]);
  store6x4_as(V, ws->V[i0], va_lanes), store6x4_as(A, ws->A[i0], va_lanes);
}

/* column_rates of the six columns of a floating node (forward_floating) by lanes over its columns,
 * k0..k0 + 3 then k0 + 2..k0 + 5 (k0 + 2, k0 + 3 computed twice, to the same numbers): the
 * rotational columns (j < 3) with vλ = V, aλ = A, u = u_r, the translational ones with u_r, A_t,
 * V_λ; W = S × vλ, B = W × vλ − S × aλ, G = (u + vλ) × S. */
MBT__ALWAYS_INLINE void floating_column_rates4(mbt_derivatives_workspace* ws, int k0, const mbt_real* V,
                                               const mbt_real* A, const mbt_real* ur, const mbt_real* At,
                                               const mbt_real* Vp) {
  for (int b = 0; b <= 2; b += 2) {
    v4 S[6], vl[6], al[6], s[6], W[6], B[6], G[6], t[6];
    for (int r = 0; r < 6; ++r)
      for (int l = 0; l < 4; ++l) {
        const bool rot = b + l < 3;
        S[r][l] = ws->S[k0 + b + l][r];
        vl[r][l] = rot ? V[r] : ur[r], al[r][l] = rot ? A[r] : At[r];
        s[r][l] = (rot ? ur[r] : Vp[r]) + vl[r][l];
      }
    cross4(S, vl, W);
    cross4(W, vl, t);
    cross4(S, al, B);
    for (int r = 0; r < 6; ++r) B[r] = t[r] - B[r];
    cross4(s, S, G);
    store6x4(W, ws->Wk[k0 + b]);
    store6x4(B, ws->Bk[k0 + b]);
    store6x4(G, ws->Gk[k0 + b]);
  }
}

/* The rows of ws->J of the four velocities k0..k0 + 3 (velocity_rows_lanes), given S, Ic·S and B
 * as lanes and their nodes' Ic, Yc, F as lanes I, Y, F; SI NULL: the rows of Ic·S already stored. */
MBT__ALWAYS_INLINE void derivative_rows_lanes(mbt_derivatives_workspace* ws, int k0, const v4* S, const v4* SI,
                                              const v4* B, const v4* I, const v4* Y, const v4* F, mbt_real* dq,
                                              mbt_real* dv, bool one) {
  const size_t nv = (size_t)ws->nv;
  v4 W[6], SY[3], SxF[6], YS[6], t1[6], t2[6], t3[6];
  load6x4(ws->Wk[k0], W);
  y_tmul4(Y, S, SY);
  cross_force4(S, F, SxF);
  y_mul4(Y, S, YS);
  y_mul4(Y, W, t1);
  mul6_4(I, B, t2);
  if (one) {
    mul6_4(I, W, t3);
    for (int r = 0; r < 6; ++r) t3[r] *= -2;
  } else {
    v4 G[6];
    load6x4(ws->Gk[k0], G);
    mul6_4(I, G, t3);
  }
  mbt_real* J = ws->J + k0;
  v4 q = {0}, v = {0};
  for (int r = 0; r < 6; ++r) {
    const v4 phi = SxF[r] + t1[r] + t2[r], omega = t3[r] - YS[r];
    if (SI) store_row4(J + (MBT_J_SI + r) * nv, &SI[r]);
    store_row4(J + (MBT_J_PHI + r) * nv, &phi);
    store_row4(J + (MBT_J_OMEGA + r) * nv, &omega);
    q += S[r] * phi, v += S[r] * omega;
  }
  for (int r = 0; r < 3; ++r) store_row4(J + (MBT_J_SY + r) * nv, &SY[r]);
  if (!one || !dq) return;
  for (int l = 0; l < 4; ++l) {
    const size_t kk = (size_t)(k0 + l) * (nv + 1);
    dq[kk] = q[l], dv[kk] = v[l];
  }
}

/* backward_velocity_body of the four velocities k0..k0 + 3 by lanes, given their nodes' Ic, Yc, F
 * as lanes I, Y, F (Y read only with dq): Ic·S (unless si_known; stored in ws->SI if keep_si, and
 * in its rows of ws->J if si_rows),
 * tau = S·F, and with dq the rows of ws->J (Ycᵀ·S, Ic·S, Φ = S ×* F + Yc·W + Ic·B,
 * Ω = Ic·G − Yc·S). one: four one-velocity nodes, whose G = −2·W (one_velocity_rates) gives
 * Ic·G = −2·Ic·W exactly, and whose in-node entries S·Φ, S·Ω are written too. */
MBT__ALWAYS_INLINE void velocity_rows_lanes(mbt_derivatives_workspace* ws, int k0, const v4* I, const v4* Y,
                                            const v4* F, mbt_real* tau, mbt_real* dq, mbt_real* dv, bool si_known,
                                            bool keep_si, bool si_rows, bool one) {
  v4 S[6], SI[6];
  load6x4(ws->S[k0], S);
  if (si_known) {
    load6x4(ws->SI[k0], SI);
  } else {
    mul6_4(I, S, SI);
    if (keep_si) store6x4(SI, ws->SI[k0]);
    for (int r = 0; si_rows && r < 6; ++r) store_row4(ws->J + k0 + (size_t)(MBT_J_SI + r) * (size_t)ws->nv, &SI[r]);
  }
  if (tau) {
    const v4 t = (S[0] * F[0] + S[3] * F[3]) + (S[1] * F[1] + S[4] * F[4]) + (S[2] * F[2] + S[5] * F[5]);
    store_row4(tau + k0, &t);
  }
  if (!dq) return;
  v4 B[6];
  load6x4(ws->Bk[k0], B);
  derivative_rows_lanes(ws, k0, S, SI, B, I, Y, F, dq, dv, one);
}

/* velocity_rows4 at v̇ on a revolute chain (ws->revolute_chain): the four nodes i0..i0 + 3
 * (velocities k0..k0 + 3) with ΔA, their change of acceleration at v̇, in ws->dF
 * (chain_vdot_passes, derivatives.c): B −= S × ΔA where own (1: the lanes not moved by an
 * earlier block), ΔF = Ib·ΔA summed tip to base onto F from the sum below the block (c in every
 * lane: the first node's then; the running sums lane l of X), then the rows of ws->J with B and
 * F at v̇ but those of Ic·S, which the bias pass stored (velocity_rows4's si_rows). */
MBT__ALWAYS_INLINE void chain_vdot_rows4(mbt_derivatives_workspace* ws, int i0, const v4* own, v4* c, v4* X,
                                         mbt_real* dq, mbt_real* dv) {
  const int k0 = i0 - 1;
  const v4 z = {0, 0, 0, 0};
  v4 I[10], Y[12], F[6], S[6], B[6], dA[6], dF[6], t[6];
  load_moments4(&ws->Ib[i0], I);
  load6x4(ws->dF[i0], dA);
  mul6_4(I, dA, dF);
  for (int r = 0; r < 6; ++r) { /* X = c + dF_l + … + dF_3 (two shifted adds: a scan) */
    const v4 s = dF[r] + __builtin_shufflevector(dF[r], z, 1, 2, 3, 4);
    X[r] = c[r] + (s + __builtin_shufflevector(s, z, 2, 3, 4, 5));
    c[r] = __builtin_shufflevector(X[r], X[r], 0, 0, 0, 0);
  }
  load6x4(ws->F[i0], F);
  for (int r = 0; r < 6; ++r) F[r] += X[r];
  load6x4(ws->S[k0], S);
  load6x4(ws->Bk[k0], B);
  cross4(S, dA, t);
  for (int r = 0; r < 6; ++r) B[r] -= t[r] * *own;
  store6x4(B, ws->Bk[k0]);
  load_moments4(&ws->Ic[i0], I);
  load_ymat4(&ws->Yc[i0], Y);
  derivative_rows_lanes(ws, k0, S, NULL, B, I, Y, F, dq, dv, true); /* Ic·S's rows: the bias pass's */
}

/* backward_velocity_body of the four one-velocity nodes i0..i0 + 3 (velocities k0..k0 + 3, their
 * subtrees' Ic, Yc, F complete), with their in-node entries S·Φ, S·Ω (velocity_rows_lanes). */
MBT__ALWAYS_INLINE void velocity_rows4(mbt_derivatives_workspace* ws, int i0, mbt_real* tau, mbt_real* dq,
                                       mbt_real* dv, bool si_known, bool keep_si, bool si_rows) {
  v4 I[10], F[6], Y[12] = {{0}}; /* read with dq alone */
  load_moments4(&ws->Ic[i0], I);
  load6x4(ws->F[i0], F);
  if (dq) load_ymat4(&ws->Yc[i0], Y);
  velocity_rows_lanes(ws, ws->tree->local_nodes[i0].v_start, I, Y, F, tau, dq, dv, si_known, keep_si, si_rows,
                      true);
}

/* x[r] = p[r] in every lane, r < n. */
MBT__ALWAYS_INLINE void splat4(const mbt_real* p, int n, v4* x) {
  const v4 z = {0, 0, 0, 0};
  for (int r = 0; r < n; ++r) x[r] = z + p[r];
}

/* backward_velocity_body of the velocities of a node i of four or more (a floating node's six),
 * lanes over its columns: its Ic, Yc, F in every lane, by blocks of four columns from k0, the last
 * block ending at the node's last column (those before it in the block computed again, to the
 * same numbers). */
MBT__ALWAYS_INLINE void node_velocity_rows(mbt_derivatives_workspace* ws, int i, mbt_real* tau, mbt_real* dq,
                                           mbt_real* dv, bool si_known) {
  const mbt_inertia_moments* Ic = &ws->Ic[i];
  const mbt_ymat* Yc = &ws->Yc[i];
  v4 I[10], F[6], Y[12];
  splat4(&Ic->m, 1, I), splat4(Ic->h.v, 3, I + 1), splat4(Ic->K, 6, I + 4);
  splat4(ws->F[i], 6, F);
  splat4(Yc->s, 6, Y), splat4(Yc->n, 3, Y + 6), splat4(Yc->b, 3, Y + 9);
  const int k0 = ws->tree->local_nodes[i].v_start, nk = ws->tree->local_nodes[i].nv;
  for (int c = 0; c < nk; c += 4) {
    const int b = c + 4 <= nk ? c : nk - 4;
    velocity_rows_lanes(ws, k0 + b, I, Y, F, tau, dq, dv, si_known, true, false, false);
  }
}

/* add_to_parent's sums by 4- and 2-wide adds: Ic, Yc, F of node i into its parent p's. */
MBT__ALWAYS_INLINE void add_wide(mbt_real* p, const mbt_real* c, int n) {
  for (int r = 0; r + 4 <= n; r += 4) *(mbt__v4u*)(p + r) += *(const mbt__v4u*)(c + r);
  if (n % 4) *(mbt__v2u*)(p + n - 2) += *(const mbt__v2u*)(c + n - 2);
}
MBT__ALWAYS_INLINE void add_to_parent_wide(mbt_derivatives_workspace* ws, int i, int p) {
  add_wide(&ws->Ic[p].m, &ws->Ic[i].m, (int)MBT__MOMENTS_STRIDE);
  add_wide(ws->F[p], ws->F[i], 6);
  add_wide(ws->Yc[p].s, ws->Yc[i].s, (int)(sizeof(mbt_ymat) / sizeof(mbt_real)));
}

/* add_to_parent_wide over a chain (ws->revolute_chain: the parent of node i is i − 1), tip to
 * base, the sum of the nodes below kept in registers (the same adds in the same order): node i's
 * sum is not stored and loaded again before the next add. The nodes' own inertias read from own
 * (ws->Ic, or ws->Ib where node_inertias left Ic unstored), their sums stored into ws->Ic. */
MBT__ALWAYS_INLINE void chain_subtree_sums(mbt_derivatives_workspace* ws, const mbt_inertia_moments* own) {
  enum { NI = MBT__MOMENTS_STRIDE, NY = sizeof(mbt_ymat) / sizeof(mbt_real) };
  _Static_assert(NI == 10 && NY == 12, "the moments are 10 numbers, Y 12");
#define MBT__CHAIN_ROWS(i)                                                                           \
  mbt_real *pI = (mbt_real*)(void*)&ws->Ic[i], *pF = ws->F[i], *pY = (mbt_real*)(void*)&ws->Yc[i]; \
  const mbt_real* pO = &own[i].m
  int i = ws->nl - 1;
  MBT__CHAIN_ROWS(i);
  v4 I0 = *(const mbt__v4u*)pO, I1 = *(const mbt__v4u*)(pO + 4), F0 = *(mbt__v4u*)pF;
  v4 Y0 = *(mbt__v4u*)pY, Y1 = *(mbt__v4u*)(pY + 4), Y2 = *(mbt__v4u*)(pY + 8);
  mbt__v2u I2 = *(const mbt__v2u*)(pO + 8), F1 = *(mbt__v2u*)(pF + 4);
  if (own != ws->Ic) *(mbt__v4u*)pI = I0, *(mbt__v4u*)(pI + 4) = I1, *(mbt__v2u*)(pI + 8) = I2;
  for (--i; i > 0; --i) {
    MBT__CHAIN_ROWS(i);
    *(mbt__v4u*)pI = I0 += *(const mbt__v4u*)pO, *(mbt__v4u*)(pI + 4) = I1 += *(const mbt__v4u*)(pO + 4);
    *(mbt__v2u*)(pI + 8) = I2 += *(const mbt__v2u*)(pO + 8);
    *(mbt__v4u*)pF = F0 += *(mbt__v4u*)pF, *(mbt__v2u*)(pF + 4) = F1 += *(mbt__v2u*)(pF + 4);
    *(mbt__v4u*)pY = Y0 += *(mbt__v4u*)pY, *(mbt__v4u*)(pY + 4) = Y1 += *(mbt__v4u*)(pY + 4);
    *(mbt__v4u*)(pY + 8) = Y2 += *(mbt__v4u*)(pY + 8);
  }
#undef MBT__CHAIN_ROWS
}

/* The first n (< 4) lanes of x stored at p, p + stride, ... */
MBT__ALWAYS_INLINE void store_upto4(mbt_real* p, size_t stride, const v4* x, int n) {
  for (int l = 0; l < 4 && l < n; ++l) p[(size_t)l * stride] = (*x)[l];
}
#define j_row4(J, row, nv, j) (*(const mbt__v4u*)((J) + (size_t)(row) * (nv) + (size_t)(j)))
/* descendant_entries_body four descendants j at a time, the same sums in the same order: the rows
 * of ws->J are read four entries at a time past the end of the run (into the next row, or 4
 * zeroed numbers after J), and only the entries of the run are stored; the column entries only
 * for j < jc (the run's end, or where descendant_columns_k4 takes over). */
MBT__ALWAYS_INLINE void descendant_entries4(const mbt_derivatives_workspace* ws, int k, int jc, mbt_real* restrict dq,
                                            mbt_real* restrict dv) {
  const size_t nv = (size_t)ws->nv;
  const int j0 = ws->node_end[k], j1 = ws->end[k];
  const mbt_real *S = ws->S[k], *W = ws->Wk[k], *B = ws->Bk[k], *G = ws->Gk[k];
  const mbt_real* restrict J = ws->J;
  mbt_real *restrict dqk = dq + (size_t)k * nv, *restrict dvk = dv + (size_t)k * nv;
  for (int j = j0; j < j1; j += 4) { /* row k: Sᵀ·Φ, Sᵀ·Ω */
    v4 q = {0}, v = {0};
    for (int r = 0; r < 6; ++r) q += S[r] * j_row4(J, MBT_J_PHI + r, nv, j), v += S[r] * j_row4(J, MBT_J_OMEGA + r, nv, j);
    if (j + 4 <= j1) {
      *(mbt__v4u*)(dqk + j) = q, *(mbt__v4u*)(dvk + j) = v;
    } else {
      store_upto4(dqk + j, 1, &q, j1 - j), store_upto4(dvk + j, 1, &v, j1 - j);
    }
  }
  for (int j = j0; j < jc; j += 4) { /* column k: [SY, SI]ᵀ·[W, B], [SY, SI]ᵀ·[−S, G] */
    v4 q = {0}, v = {0};
    for (int r = 0; r < 3; ++r) {
      const v4 sy = j_row4(J, MBT_J_SY + r, nv, j);
      q += W[r] * sy, v -= S[r] * sy;
    }
    for (int r = 0; r < 6; ++r) {
      const v4 si = j_row4(J, MBT_J_SI + r, nv, j);
      q += B[r] * si, v += G[r] * si;
    }
    store_upto4(dq + (size_t)j * nv + (size_t)k, nv, &q, jc - j);
    store_upto4(dv + (size_t)j * nv + (size_t)k, nv, &v, jc - j);
  }
}
/* True when velocities k..k + 3 are four one-velocity nodes in a row of a chain with one subtree
 * end e a multiple of four velocities from k: every velocity from k + 4 to e is below all four,
 * in whole groups of four (on a chain of nv velocities the blocks start at nv mod 4). */
MBT__ALWAYS_INLINE bool chain_block4(const mbt_derivatives_workspace* ws, int k) {
  const int e = ws->end[k];
  if (e < k + 4 || (e - k) % 4) return false;
  for (int l = 0; l < 4; ++l)
    if (ws->node_end[k + l] != k + l + 1 || ws->end[k + l] != e) return false;
  return true;
}
/* Row entries Sᵀ·Φ and Sᵀ·Ω (the six rows of ws->J from MBT_J_PHI and from MBT_J_OMEGA) of the four
 * velocities k0..k0 + 3 of a chain_block4, lanes four descendants j: a 4×4 tile of k × j per four j
 * and per product, each row of ws->J read once for the four k against S_k's components broadcast
 * (S = ws->S[k0], S_{k0+l} at 6·l), each broadcast shared by the two products (one per two
 * multiply-adds, not per one); the same sums in the same order as descendant_entries4. */
MBT__ALWAYS_INLINE void rows_tile4(const mbt_real* restrict J, size_t nv, int j, const mbt_real* S, v4* a, v4* b) {
  for (int l = 0; l < 4; ++l) a[l] = (v4){0, 0, 0, 0}, b[l] = (v4){0, 0, 0, 0};
  for (int r = 0; r < 6; ++r) {
    const v4 x = j_row4(J, MBT_J_PHI + r, nv, j), y = j_row4(J, MBT_J_OMEGA + r, nv, j);
    for (int l = 0; l < 4; ++l) {
      const mbt_real s = S[6 * l + r];
      a[l] += s * x, b[l] += s * y;
    }
  }
}
/* The entries j > k of a 4×4 tile of rows_tile4 at j = k (the block itself), row k at d. */
MBT__ALWAYS_INLINE void store_block_upper4(const v4* a, size_t nv, mbt_real* restrict d) {
  d[1] = a[0][1], d[2] = a[0][2], d[3] = a[0][3];
  d[nv + 2] = a[1][2], d[nv + 3] = a[1][3];
  d[2 * nv + 3] = a[2][3];
}
/* The tiles of rows_tile4 from j = k0 (the block itself: the entries j > k alone) to the end. */
MBT__ALWAYS_INLINE void block_rows4(const mbt_derivatives_workspace* ws, int k0, mbt_real* restrict dq,
                                    mbt_real* restrict dv) {
  const size_t nv = (size_t)ws->nv, o = (size_t)k0 * nv;
  const int j1 = ws->end[k0];
  const mbt_real* restrict J = ws->J;
  const mbt_real* S = ws->S[k0];
  v4 a[4], b[4];
  rows_tile4(J, nv, k0, S, a, b);
  store_block_upper4(a, nv, dq + o + (size_t)k0);
  store_block_upper4(b, nv, dv + o + (size_t)k0);
  for (int j = k0 + 4; j < j1; j += 4) {
    rows_tile4(J, nv, j, S, a, b);
    mbt_real *qj = dq + o + (size_t)j, *vj = dv + o + (size_t)j;
    for (int l = 0; l < 4; ++l) *(mbt__v4u*)(qj + (size_t)l * nv) = a[l], *(mbt__v4u*)(vj + (size_t)l * nv) = b[l];
  }
}
/* The column entries of the four velocities k0..k0 + 3 of a chain_block4 for their descendants j
 * from k0 + 1 on, lane l velocity k0 + l: per j, the entries dq[j][k0..k0 + 3] are contiguous (one
 * store, against four strided ones with lanes over j; within the block the entries k < j alone),
 * the same sums in the same order. */
MBT__ALWAYS_INLINE void descendant_columns_k4(const mbt_derivatives_workspace* ws, int k0, mbt_real* restrict dq,
                                              mbt_real* restrict dv) {
  const size_t nv = (size_t)ws->nv;
  const int j1 = ws->end[k0];
  v4 W[4], S[4], B[6], G[6], q[3], v[3];
  mm_load4(ws->Wk[k0], 6, W);
  mm_load4(ws->S[k0], 6, S);
  load6x4(ws->Bk[k0], B);
  load6x4(ws->Gk[k0], G);
  const mbt_real* restrict J = ws->J;
  for (int m = 0; m < 3; ++m) {
    q[m] = (v4){0, 0, 0, 0}, v[m] = (v4){0, 0, 0, 0};
    MBT__PAIR_COLUMN_TERMS(J, nv, k0 + 1 + m, W, S, B, G, q[m], v[m]);
  }
  mbt_real *pq = dq + (size_t)(k0 + 1) * nv + (size_t)k0, *pv = dv + (size_t)(k0 + 1) * nv + (size_t)k0;
  pq[0] = q[0][0], pv[0] = v[0][0];
  pq[nv] = q[1][0], pq[nv + 1] = q[1][1], pv[nv] = v[1][0], pv[nv + 1] = v[1][1];
  pq[2 * nv] = q[2][0], pq[2 * nv + 1] = q[2][1], pq[2 * nv + 2] = q[2][2];
  pv[2 * nv] = v[2][0], pv[2 * nv + 1] = v[2][1], pv[2 * nv + 2] = v[2][2];
  for (int j = k0 + 4; j < j1; ++j) {
    v4 qj = {0}, vj = {0};
    MBT__PAIR_COLUMN_TERMS(J, nv, j, W, S, B, G, qj, vj);
    *(mbt__v4u*)(dq + (size_t)j * nv + (size_t)k0) = qj, *(mbt__v4u*)(dv + (size_t)j * nv + (size_t)k0) = vj;
  }
}
/* The pairs of the six unit columns S_k0+c = e_c of a floating node (unit_columns) with its
 * descendants j (one run for all six): row k0 + c's entries e_c·Φ_j, e_c·Ω_j are entry c of Φ_j
 * and Ω_j, row c of Φ and Ω in ws->J over the run (copies: the same numbers; read four at a time
 * past the run's end as descendant_entries4); the column entries
 * of k0..k0 + 3, then k0 + 2..k0 + 5 (rows 2 and 3 again, the same numbers), four k at a time as
 * descendant_columns_k4, the same sums in the same order. */
MBT__ALWAYS_INLINE void unit_node_pairs4(const mbt_derivatives_workspace* ws, int k0, mbt_real* restrict dq,
                                         mbt_real* restrict dv) {
  const size_t nv = (size_t)ws->nv;
  const int j0 = ws->node_end[k0], j1 = ws->end[k0];
  const mbt_real* restrict J = ws->J;
  for (int c = 0; c < 6; ++c) {
    const mbt_real *phi = J + (size_t)(MBT_J_PHI + c) * nv, *om = J + (size_t)(MBT_J_OMEGA + c) * nv;
    mbt_real *dqk = dq + (size_t)(k0 + c) * nv, *dvk = dv + (size_t)(k0 + c) * nv;
    for (int j = j0; j < j1; j += 4) {
      const v4 q = *(const mbt__v4u*)(phi + j), v = *(const mbt__v4u*)(om + j);
      if (j + 4 <= j1) {
        *(mbt__v4u*)(dqk + j) = q, *(mbt__v4u*)(dvk + j) = v;
      } else {
        store_upto4(dqk + j, 1, &q, j1 - j), store_upto4(dvk + j, 1, &v, j1 - j);
      }
    }
  }
  for (int kb = k0; kb <= k0 + 2; kb += 2) {
    v4 W[4], S[4], B[6], G[6];
    mm_load4(ws->Wk[kb], 6, W);
    mm_load4(ws->S[kb], 6, S);
    load6x4(ws->Bk[kb], B);
    load6x4(ws->Gk[kb], G);
    for (int j = j0; j < j1; ++j) {
      v4 qj = {0}, vj = {0};
      MBT__PAIR_COLUMN_TERMS(J, nv, j, W, S, B, G, qj, vj);
      *(mbt__v4u*)(dq + (size_t)j * nv + (size_t)kb) = qj, *(mbt__v4u*)(dv + (size_t)j * nv + (size_t)kb) = vj;
    }
  }
}
/* True when velocities a, a + 1, a + 2 are three one-velocity nodes in a row that end a subtree
 * (a leg's hip, knee and foot): a's descendants are a + 1 and a + 2, a + 1's a + 2, a + 2's none. */
MBT__ALWAYS_INLINE bool tip_chain3(const mbt_derivatives_workspace* ws, int a) {
  return a + 2 < ws->nv && ws->node_end[a] == a + 1 && ws->end[a] == a + 3 && ws->node_end[a + 1] == a + 2 &&
         ws->end[a + 1] == a + 3;
}
/* (p[0], p[0], p[d], p[d]) and (p[0], p[1], p[0], p[1]). */
#define pair_ab(p, d) ((v4){(p)[0], (p)[0], (p)[d], (p)[d]})
#define twice2(p) __builtin_shufflevector(*(const mbt__v2u*)(p), *(const mbt__v2u*)(p), 0, 1, 0, 1)
/* descendant_entries_body of a tip_chain3 (velocities a, b = a + 1, c = a + 2): its three pairs
 * (a, b), (a, c), (b, c) in lanes 0, 1 and 3 of one vector (lane 2, (b, b), unused), k's S, W, B,
 * G as (a, a, b, b), j's rows of ws->J as (b, c, b, c); the same sums in the same order. */
MBT__ALWAYS_INLINE void tip_chain3_pairs4(const mbt_derivatives_workspace* ws, int a, mbt_real* restrict dq,
                                          mbt_real* restrict dv) {
  const size_t nv = (size_t)ws->nv;
  const int b = a + 1;
  const mbt_real *S = ws->S[a], *W = ws->Wk[a], *B = ws->Bk[a], *G = ws->Gk[a]; /* b's at + 6 */
  const mbt_real* restrict J = ws->J + b;
  v4 q = {0}, v = {0}, qc = {0}, vc = {0};
  for (int r = 0; r < 6; ++r) { /* rows a and b: Sᵀ·Φ, Sᵀ·Ω */
    const v4 s = pair_ab(S + r, 6);
    q += s * twice2(J + (MBT_J_PHI + r) * nv), v += s * twice2(J + (MBT_J_OMEGA + r) * nv);
  }
  for (int r = 0; r < 3; ++r) { /* columns a and b: [SY, SI]ᵀ·[W, B], [SY, SI]ᵀ·[−S, G] */
    const v4 sy = twice2(J + (MBT_J_SY + r) * nv);
    qc += pair_ab(W + r, 6) * sy, vc -= pair_ab(S + r, 6) * sy;
  }
  for (int r = 0; r < 6; ++r) {
    const v4 si = twice2(J + (MBT_J_SI + r) * nv);
    qc += pair_ab(B + r, 6) * si, vc += pair_ab(G + r, 6) * si;
  }
  mbt_real *pq = dq + (size_t)a * nv + (size_t)b, *pv = dv + (size_t)a * nv + (size_t)b; /* [a][b] */
  pq[0] = q[0], pq[1] = q[1], pq[nv + 1] = q[3], pv[0] = v[0], pv[1] = v[1], pv[nv + 1] = v[3];
  pq = dq + (size_t)b * nv + (size_t)a, pv = dv + (size_t)b * nv + (size_t)a; /* [b][a] */
  pq[0] = qc[0], pq[nv] = qc[1], pq[nv + 1] = qc[3], pv[0] = vc[0], pv[nv] = vc[1], pv[nv + 1] = vc[3];
}
#undef pair_ab
#undef twice2
/* descendant_entries_body for every velocity: four velocities of a chain at a time (chain_block4:
 * their rows by 4×4 tiles, their columns four k at a time), else one velocity
 * (descendant_entries4). */
MBT__ALWAYS_INLINE void descendant_pairs4(const mbt_derivatives_workspace* ws, mbt_real* restrict dq,
                                          mbt_real* restrict dv) {
  for (int k = 0; k < ws->nv;) {
    if (k >= ws->chain_blocks || chain_block4(ws, k)) { /* from ws->chain_blocks on without the checks */
      block_rows4(ws, k, dq, dv);
      descendant_columns_k4(ws, k, dq, dv);
      k += 4;
      continue;
    }
    descendant_entries4(ws, k, ws->end[k], dq, dv);
    ++k;
  }
}
#undef j_row4
#endif /* MBT__MM_BLOCKS && MBT__AVX2 */

/* MBT_DERIV_PASSES for a body whose last parameter is `bool lanes`: false in the baseline copy,
 * true in the AVX2/FMA and AVX-512F copies where the build has the four-lane kernels above. */
#define MBT__DERIV_ARGS(...) __VA_ARGS__
#ifdef MBT__DERIV_LANES
/* The AVX-512 copy with AVX-512VL too (mbt__cpu_has_avx512 checks it): the four-lane vectors in
 * all 32 vector registers, not only the first 16. */
#if defined(__clang__)
#define MBT__LANES_AVX512_ATTRIBUTES __attribute__((target("avx512f,avx512vl,avx2,fma")))
#else
#define MBT__LANES_AVX512_ATTRIBUTES                      \
  __attribute__((target("avx512f,avx512vl,avx2,fma"), \
                 optimize("fp-contract=fast", "no-tree-slp-vectorize")))
#endif
#define MBT_DERIV_PASSES_LANES(name, params, args, body_args)                                          \
  MBT_DERIV_PASSES_EX(name, params, args, (MBT__DERIV_ARGS body_args, false), (MBT__DERIV_ARGS body_args, true), \
                      MBT__LANES_AVX512_ATTRIBUTES)
#else
#define MBT_DERIV_PASSES_LANES(name, params, args, body_args) \
  MBT_DERIV_PASSES(name, params, args, (MBT__DERIV_ARGS body_args, false))
#endif

#endif /* MBT_DERIVATIVES_LANES_H */
