/* algorithms_internal.h: what the algorithm files share (not installed): argument checks, the
 * one kinematic core every algorithm walks (the local nodes of tree_internal.h: welded bodies
 * merged into their moving ancestor), its caches, and the spatial-algebra kernels.
 *
 * Frames: W world, B a body, M the outboard frame of a local node's mobilizer (F its inboard
 * frame), A the frame M of its moving ancestor, Ro the reference point of the node's subtree
 * hanging from the world (context_internal.h); Bo body origin, Bcm center of mass. */
#ifndef MBT_ALGORITHMS_INTERNAL_H
#define MBT_ALGORITHMS_INTERNAL_H

#include "mbt/dynamics.h"
#include "mobilizers/mobilizer_kernels.h"
#include "mobilizers/mobilizer_types.h"
#include "tree/context_internal.h"

/* MBT_OK if tree is finalized and ctx belongs to it; otherwise the status, with a message
 * in the context (or the tree if ctx is NULL). `what` names the calling function. */
int mbt__check_tree_context(const mbt_tree* tree, const mbt_context* ctx, const char* what);

/* ctx->sin_q, ctx->cos_q of every revolute and screw angle (tree->angle_q) if q changed since
 * they were computed (1-ulp: SLEEF's vector sincos, or the C library's). */
void mbt__calc_joint_sincos(const mbt_tree* tree, mbt_context* ctx);

/* ---- kernels compiled twice: baseline x86-64 and AVX2/FMA ---------------------------------------
 * Some passes (the mass matrix's, the derivatives') are the same C compiled for baseline x86-64
 * and, with MBT__AVX2_ATTRIBUTES, for AVX2 and FMA (fp-contract=fast: multiply-adds fused; clang
 * fuses within statements), chosen at run time by mbt__cpu_has_avx2_fma(); both give the same
 * numbers to round-off. -DMBT_NO_AVX2 builds the baseline alone. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(MBT_NO_AVX2)
#define MBT__AVX2 1
#if defined(__clang__)
#define MBT__AVX2_ATTRIBUTES __attribute__((target("avx2,fma")))
#else
#define MBT__AVX2_ATTRIBUTES __attribute__((target("avx2,fma"), optimize("fp-contract=fast")))
#endif
#endif

/* True where the processor runs AVX2 and FMA and the build has the kernels for them (cpu.c). */
bool mbt__cpu_has_avx2_fma(void);
/* True where it also runs AVX-512F and VL (cpu.c; the passes' 32-register copies). */
bool mbt__cpu_has_avx512(void);
/* mbt__cpu_has_avx512() unless MBT_NO_AVX512 is in the environment (cpu.c; the mass matrix's
 * streamed paths, whose AVX2 copies it forces). */
bool mbt__cpu_mass_matrix_avx512(void);
/* For the functions a twice-compiled kernel calls: inlined into each version, compiled for its
 * target (a call out of line would run the baseline code). */
#if defined(__GNUC__)
#define MBT__ALWAYS_INLINE static inline __attribute__((always_inline))
#else
#define MBT__ALWAYS_INLINE static inline
#endif
/* For whole recursive passes compiled three times (baseline, AVX2/FMA, AVX-512F for its 32 vector
 * registers): GCC's SLP vectorizer off, its packing of scalar 3-vector products into 2- and 4-lane
 * vectors costing more instructions than it saves (inverse_dynamics.c, derivatives.c). */
#ifdef MBT__AVX2
#if defined(__clang__)
#define MBT__PASSES_AVX2_ATTRIBUTES MBT__AVX2_ATTRIBUTES
#define MBT__PASSES_AVX512_ATTRIBUTES __attribute__((target("avx512f,avx2,fma")))
#else
#define MBT__PASSES_AVX2_ATTRIBUTES \
  __attribute__((target("avx2,fma"), optimize("fp-contract=fast", "no-tree-slp-vectorize")))
#define MBT__PASSES_AVX512_ATTRIBUTES \
  __attribute__((target("avx512f,avx2,fma"), optimize("fp-contract=fast", "no-tree-slp-vectorize")))
#endif
#endif

/* ---- shared kernels of the local-node recursions --------------------------------------------- */
/* Ic about Bo += Ic_C about Co shifted by d = p_BoCo (parallel-axis theorem by moments, as the
 * sum of m·(|r|²·1 − r·rᵀ) over the mass points at r = d + r_C from Bo):
 *   m += m_C, h += h_C + m_C·d, K += K_C + m_C·(|d|²·1 − d·dᵀ) + 2·(d·h_C)·1 − d·h_Cᵀ − h_C·dᵀ. */
static inline void mbt__moments_add_shifted(mbt_inertia_moments* Ic, const mbt_inertia_moments* C, mbt_vec3 d) {
  const mbt_vec3 h = C->h;
  const mbt_vec3 md = mbt_vec3_scale(d, C->m);
  const mbt_real s = mbt_vec3_dot(md, d) + 2 * mbt_vec3_dot(d, h);
  const mbt_real dx = d.v[0], dy = d.v[1], dz = d.v[2], hx = h.v[0], hy = h.v[1], hz = h.v[2];
  Ic->K[0] += C->K[0] + s - md.v[0] * dx - 2 * dx * hx;
  Ic->K[1] += C->K[1] + s - md.v[1] * dy - 2 * dy * hy;
  Ic->K[2] += C->K[2] + s - md.v[2] * dz - 2 * dz * hz;
  Ic->K[3] += C->K[3] - md.v[0] * dy - dx * hy - hx * dy;
  Ic->K[4] += C->K[4] - md.v[0] * dz - dx * hz - hx * dz;
  Ic->K[5] += C->K[5] - md.v[1] * dz - dy * hz - hy * dz;
  Ic->h = mbt_vec3_add(Ic->h, mbt_vec3_add(h, md));
  Ic->m += C->m;
}

/* K' = R·K·Rᵀ, h' = R·h for the moments {m, h, K} of a body re-expressed by R: with A = R·K,
 * K'ᵢⱼ = Aᵢ·Rⱼ for the six entries i <= j (45 products). */
static inline void mbt__moments_reexpress(const mbt_inertia_moments* I, const mbt_mat3* R, mbt_inertia_moments* IR) {
  const mbt_real* K = I->K;
  const mbt_real k[3][3] = {{K[0], K[3], K[4]}, {K[3], K[1], K[5]}, {K[4], K[5], K[2]}};
  mbt_real A[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A[i][j] = R->m[i][0] * k[0][j] + R->m[i][1] * k[1][j] + R->m[i][2] * k[2][j];
#define MBT__ARt(i, j) (A[i][0] * R->m[j][0] + A[i][1] * R->m[j][1] + A[i][2] * R->m[j][2])
  IR->K[0] = MBT__ARt(0, 0), IR->K[1] = MBT__ARt(1, 1), IR->K[2] = MBT__ARt(2, 2);
  IR->K[3] = MBT__ARt(0, 1), IR->K[4] = MBT__ARt(0, 2), IR->K[5] = MBT__ARt(1, 2);
#undef MBT__ARt
  IR->h = mbt_mat3_mul_vec(R, I->h);
  IR->m = I->m;
}

/* The moments {m, h, K} of a body about Mo moved to Ro, d = p_RoMo (parallel-axis theorem as
 * mbt__moments_add_shifted, with g = h + m·d/2): h' = h + m·d, K' = K + 2·(d·g)·1 − (g·dᵀ + d·gᵀ). */
static inline void mbt__moments_shift_to(const mbt_inertia_moments* I, mbt_vec3 d, mbt_inertia_moments* J) {
  const mbt_vec3 g = mbt_vec3_axpy(I->h, 0.5 * I->m, d);
  const mbt_real s = 2 * mbt_vec3_dot(d, g);
  const mbt_real gx = g.v[0], gy = g.v[1], gz = g.v[2], dx = d.v[0], dy = d.v[1], dz = d.v[2];
  J->K[0] = I->K[0] + s - 2 * gx * dx;
  J->K[1] = I->K[1] + s - 2 * gy * dy;
  J->K[2] = I->K[2] + s - 2 * gz * dz;
  J->K[3] = I->K[3] - (gx * dy + dx * gy);
  J->K[4] = I->K[4] - (gx * dz + dx * gz);
  J->K[5] = I->K[5] - (gy * dz + dy * gz);
  J->h = mbt_vec3_axpy(I->h, I->m, d);
  J->m = I->m;
}

/* The pose X_WM of a local node's frame M and its H columns at the reference point Ro in W, from
 * its moving ancestor's X_WA. Positions are measured from Ro, the origin Mo of the node of the
 * subtree that hangs from the world (the recursions stay exact however far the bodies are from
 * Wo: products about Wo would lose |p_WoMo|² digits): for a node hanging from the world
 * (L->parent == 0, X_WA = I), *p_WoRo receives p_WoMo and X_WM->p = 0; below it, X_WM->p is
 * p_RoMo and *p_WoRo is left alone. R_WF = R_WA·R_AF, p_RoFo = p_RoAo + R_WA·p_AF,
 * X_WM = X_WF·X_FM(q); a column [w; v_Mo] of H_FM at Mo in F is [R_WF·w; R_WF·v_Mo + p_RoMo × R_WF·w]
 * at Ro in W. Revolute (about ẑ): R_WM = R_WA·(R_AF·R_z(q)), the product in brackets (12
 * products) off the chain of dependent products from the world (with R_AF = I, R_WA·R_z(q): 12
 * products), w = column z of R_WM, v_Mo = 0; prismatic (along ẑ): R_WM = R_WF, p_FoMo = q·ẑ, w = 0,
 * v_Mo = column z of R_WF. */
void mbt__local_pose_and_H_Ro_general(const mbt_tree* tree, const mbt_context* ctx, const mbt_local_node* L,
                                       const mbt_transform* X_WA, mbt_transform* X_WM, mbt_spatial_velocity* H,
                                       mbt_vec3* p_WoRo);
static inline void mbt__local_pose_and_H_Ro(const mbt_tree* tree, const mbt_context* ctx, const mbt_local_node* L,
                                            const mbt_transform* X_WA, mbt_transform* X_WM, mbt_spatial_velocity* H,
                                            mbt_vec3* p_WoRo) {
  if (L->type != MBT_MOBILIZER_REVOLUTE) {
    mbt__local_pose_and_H_Ro_general(tree, ctx, L, X_WA, X_WM, H, p_WoRo);
    return;
  }
  const mbt_vec3 p_RoFo = mbt_vec3_add(X_WA->p, mbt_mat3_mul_vec(&X_WA->R, L->X_AF.p));
  const bool root = L->parent == 0;
  const mbt_real sn = ctx->sin_q[L->q_start], cs = ctx->cos_q[L->q_start];
  const mbt_mat3* A = L->R_AF_is_identity ? &X_WA->R : &L->X_AF.R;
  mbt_mat3 AR;  /* A·R_z(q): columns (c·x + s·y, c·y − s·x, z) of A = (x, y, z) */
  for (int r = 0; r < 3; ++r) {
    AR.m[r][0] = cs * A->m[r][0] + sn * A->m[r][1];
    AR.m[r][1] = cs * A->m[r][1] - sn * A->m[r][0];
    AR.m[r][2] = A->m[r][2];
  }
  X_WM->R = L->R_AF_is_identity ? AR : mbt_mat3_mul(&X_WA->R, &AR);
  if (root) *p_WoRo = p_RoFo;
  X_WM->p = root ? mbt_vec3_zero() : p_RoFo;
  H->w = mbt_vec3_make(X_WM->R.m[0][2], X_WM->R.m[1][2], X_WM->R.m[2][2]);
  H->v = mbt_vec3_cross(X_WM->p, H->w);
}

/* K·x for the symmetric second moment K = {xx, yy, zz, xy, xz, yz} of I = {m, h, K}. */
static inline mbt_vec3 mbt__moments_K_mul(const mbt_inertia_moments* I, mbt_vec3 x) {
  const mbt_real* K = I->K;
  return mbt_vec3_make(K[0] * x.v[0] + K[3] * x.v[1] + K[4] * x.v[2], K[3] * x.v[0] + K[1] * x.v[1] + K[5] * x.v[2],
                       K[4] * x.v[0] + K[5] * x.v[1] + K[2] * x.v[2]);
}

/* I·[w; v] = [K·w + h × v; m·v − h × w] for I by its moments {m, h, K} about a point O, [w; v] at O. */
static inline void mbt__moments_mul(const mbt_inertia_moments* I, mbt_vec3 w, mbt_vec3 v, mbt_vec3* t, mbt_vec3* f) {
  *t = mbt_vec3_add(mbt__moments_K_mul(I, w), mbt_vec3_cross(I->h, v));
  *f = mbt_vec3_sub(mbt_vec3_scale(v, I->m), mbt_vec3_cross(I->h, w));
}

/* The net force of a rigid body I = {m, h, K} (about a point O) with spatial velocity [w; v] and
 * spatial acceleration [α; a] at O, I·A + V ×* I·V [Featherstone 2008, §2.14], with s = w × v,
 * v × m·v = 0 and the Jacobi identity w × (h × v) − v × (h × w) = h × (w × v):
 *   t = K·α + w × (K·w) + h × (a + s),  f = m·(a + s) − h × α − w × (h × w)
 * (no α, a: the gyroscopic force V ×* I·V alone). */
static inline void mbt__moments_net_force(const mbt_inertia_moments* I, mbt_vec3 w, mbt_vec3 v, const mbt_vec3* al,
                                          const mbt_vec3* a, mbt_vec3* t, mbt_vec3* f) {
  const mbt_vec3 s = mbt_vec3_cross(w, v);
  const mbt_vec3 b = a ? mbt_vec3_add(*a, s) : s;
  mbt_vec3 tt = mbt_vec3_add(mbt_vec3_cross(w, mbt__moments_K_mul(I, w)), mbt_vec3_cross(I->h, b));
  mbt_vec3 ff = mbt_vec3_sub(mbt_vec3_scale(b, I->m), mbt_vec3_cross(w, mbt_vec3_cross(I->h, w)));
  if (al) {
    tt = mbt_vec3_add(tt, mbt__moments_K_mul(I, *al));
    ff = mbt_vec3_sub(ff, mbt_vec3_cross(I->h, *al));
  }
  *t = tt;
  *f = ff;
}

/* ---- four nodes at a time (GCC's and clang's vector extensions) ------------------------------ */
/* Four-lane vectors of doubles where the compiler has GCC's or clang's vector extensions: two SSE2
 * halves in the baseline code, one AVX2 register in the code compiled for AVX2/FMA. The mass
 * matrix's rows and the re-expressed inertias of four nodes at a time (mass_matrix.c, ABA's pass 1
 * in forward_dynamics.c); without FMA the lanes give the scalar kernels' numbers bit for bit. */
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
#define MBT__MM_BLOCKS 1
#endif

#ifdef MBT__MM_BLOCKS
typedef mbt_real mbt__v4 __attribute__((vector_size(32)));
typedef mbt_real mbt__v4u __attribute__((vector_size(32), aligned(8)));
typedef mbt_real mbt__v2u __attribute__((vector_size(16), aligned(8)));

/* Rows of the 4×4 matrix whose columns are C[0..3]. */
MBT__ALWAYS_INLINE void mm_transpose(const mbt__v4* C, mbt__v4* R) {
  const mbt__v4 t0 = __builtin_shufflevector(C[0], C[1], 0, 4, 2, 6);
  const mbt__v4 t1 = __builtin_shufflevector(C[0], C[1], 1, 5, 3, 7);
  const mbt__v4 t2 = __builtin_shufflevector(C[2], C[3], 0, 4, 2, 6);
  const mbt__v4 t3 = __builtin_shufflevector(C[2], C[3], 1, 5, 3, 7);
  R[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
  R[1] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
  R[2] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
  R[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

/* V[j] lane l = p[l·stride + j], j < 4: four numbers of each of four structs of `stride` numbers,
 * loaded four at a time and transposed in registers; mm_store4 the reverse. */
MBT__ALWAYS_INLINE void mm_load4(const mbt_real* p, size_t stride, mbt__v4* V) {
  mbt__v4 L[4];
  for (int l = 0; l < 4; ++l) L[l] = *(const mbt__v4u*)(p + (size_t)l * stride);
  mm_transpose(L, V);
}
MBT__ALWAYS_INLINE void mm_store4(const mbt__v4* V, size_t stride, mbt_real* p) {
  mbt__v4 L[4];
  mm_transpose(V, L);
  for (int l = 0; l < 4; ++l) *(mbt__v4u*)(p + (size_t)l * stride) = L[l];
}

#define MBT__MOMENTS_STRIDE (sizeof(mbt_inertia_moments) / sizeof(mbt_real))
#define MBT__TRANSFORM_STRIDE (sizeof(mbt_transform) / sizeof(mbt_real))
/* The moments of four consecutive nodes: mh = (m, h), Ka = K0..K3, Kb = K2..K5. */
MBT__ALWAYS_INLINE void mm_load_moments4(const mbt_inertia_moments* I, mbt__v4* mh, mbt__v4* Ka, mbt__v4* Kb) {
  mm_load4(&I->m, MBT__MOMENTS_STRIDE, mh);
  mm_load4(&I->K[0], MBT__MOMENTS_STRIDE, Ka);
  mm_load4(&I->K[2], MBT__MOMENTS_STRIDE, Kb);
}

/* The moments of four nodes re-expressed at once, lane l node i + l: mbt__moments_reexpress's
 * K' = R·K·Rᵀ (A = R·K, K'ᵢⱼ = Aᵢ·Rⱼ), h' = R·h by four-lane products, into Km = (m, h') and
 * K6 = K'₀..K'₅ (reexpress4 stores them). */
MBT__ALWAYS_INLINE void reexpress4_lanes(const mbt_inertia_moments* I, const mbt_transform* X, mbt__v4* Km,
                                         mbt__v4* K6) {
  mbt__v4 Ra[4], Rb[4], Rc[4], mh[4], Ka[4], Kb[4];
  mm_load4(&X->R.m[0][0], MBT__TRANSFORM_STRIDE, Ra); /* R00 R01 R02 R10 */
  mm_load4(&X->R.m[1][1], MBT__TRANSFORM_STRIDE, Rb); /* R11 R12 R20 R21 */
  mm_load4(&X->R.m[2][2], MBT__TRANSFORM_STRIDE, Rc); /* R22 p */
  mm_load_moments4(I, mh, Ka, Kb);
  const mbt__v4 R[3][3] = {{Ra[0], Ra[1], Ra[2]}, {Ra[3], Rb[0], Rb[1]}, {Rb[2], Rb[3], Rc[0]}};
  const mbt__v4 k[3][3] = {{Ka[0], Ka[3], Kb[2]}, {Ka[3], Ka[1], Kb[3]}, {Kb[2], Kb[3], Ka[2]}};
  mbt__v4 A[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A[i][j] = R[i][0] * k[0][j] + R[i][1] * k[1][j] + R[i][2] * k[2][j];
#define MBT__ARt(i, j) (A[i][0] * R[j][0] + A[i][1] * R[j][1] + A[i][2] * R[j][2])
  Km[0] = mh[0];
  for (int i = 0; i < 3; ++i) Km[1 + i] = R[i][0] * mh[1] + R[i][1] * mh[2] + R[i][2] * mh[3];
  K6[0] = MBT__ARt(0, 0), K6[1] = MBT__ARt(1, 1), K6[2] = MBT__ARt(2, 2);
  K6[3] = MBT__ARt(0, 1), K6[4] = MBT__ARt(0, 2), K6[5] = MBT__ARt(1, 2);
#undef MBT__ARt
}

/* The moments of four consecutive nodes from their lanes Km = (m, h), K6 = K₀..K₅. */
MBT__ALWAYS_INLINE void mm_store_moments4(const mbt__v4* Km, const mbt__v4* K6, mbt_inertia_moments* IR) {
  mm_store4(Km, MBT__MOMENTS_STRIDE, &IR->m);
  mm_store4(K6, MBT__MOMENTS_STRIDE, &IR->K[0]);
  mm_store4(K6 + 2, MBT__MOMENTS_STRIDE, &IR->K[2]);
}

/* reexpress4_lanes stored into IR[0..3]. */
MBT__ALWAYS_INLINE void reexpress4(const mbt_inertia_moments* I, const mbt_transform* X, mbt_inertia_moments* IR) {
  mbt__v4 Km[4], K6[6];
  reexpress4_lanes(I, X, Km, K6);
  mm_store_moments4(Km, K6, IR);
}
#endif /* MBT__MM_BLOCKS */

/* ---- the kinematic core (kinematics.c) ------------------------------------------------------- */
/* The position kinematics of local node i (after its parent's) into ctx->pc: X_WM, Ro and the
 * columns H at Ro (mbt__local_pose_and_H_Ro); needs the joint angles' sin and cos. */
static inline void mbt__position_kinematics_node(const mbt_tree* tree, mbt_context* ctx, int i) {
  const mbt_local_node* L = &tree->local_nodes[i];
  mbt_position_cache* pc = &ctx->pc;
  mbt__local_pose_and_H_Ro(tree, ctx, L, &pc->X_WM[L->parent], &pc->X_WM[i], &pc->H[L->v_start], &pc->p_WoRo[i]);
  if (L->parent > 0) pc->p_WoRo[i] = pc->p_WoRo[L->parent];
}

/* A local node's merged inertia I_Mo_M re-expressed by R_WM and moved from Mo to Ro, into
 * ctx->aba.I_Ro[i], from its central form {m, c, λ, a, b} (ctx->I_cm_M, context_internal.h) by the
 * parallel-axis theorem through the center of mass, r = p_RoMcm = p_RoMo + R_WM·c:
 *   h = m·r, K = λ·1 + a'·a'ᵀ + b'·b'ᵀ + m·(|r|²·1 − r·rᵀ), a' = R_WM·a, b' = R_WM·b
 * (90 flops; R·K·Rᵀ, R·h and the shift from Mo were 126). Needs the position cache. */
static inline void mbt__inertia_at_Ro(mbt_context* ctx, int i) {
  const mbt_inertia_central* C = &ctx->I_cm_M[i];
  const mbt_transform* X = &ctx->pc.X_WM[i];
  const mbt_vec3 a = mbt_mat3_mul_vec(&X->R, C->a), b = mbt_mat3_mul_vec(&X->R, C->b);
  const mbt_vec3 r = mbt_vec3_add(X->p, mbt_mat3_mul_vec(&X->R, C->c)), mr = mbt_vec3_scale(r, C->m);
  const mbt_real s = C->lambda + mbt_vec3_dot(mr, r);
  mbt_inertia_moments* J = &ctx->aba.I_Ro[i];
  J->m = C->m;
  J->h = mr;
  for (int k = 0; k < 3; ++k) J->K[k] = (a.v[k] * a.v[k] + b.v[k] * b.v[k] + s) - mr.v[k] * r.v[k];
  J->K[3] = (a.v[0] * a.v[1] + b.v[0] * b.v[1]) - mr.v[0] * r.v[1];
  J->K[4] = (a.v[0] * a.v[2] + b.v[0] * b.v[2]) - mr.v[0] * r.v[2];
  J->K[5] = (a.v[1] * a.v[2] + b.v[1] * b.v[2]) - mr.v[1] * r.v[2];
}

/* mbt__inertia_at_Ro of every local node, four at a time where the processor has AVX2
 * (forward_dynamics.c; the same numbers bit for bit). Needs the position cache. */
void mbt__inertias_at_Ro(const mbt_tree* tree, mbt_context* ctx);

/* R_WF·Ḣ_FM·q̇ of a general mobilizer (not revolute, prismatic or screw) added to c, a spatial
 * acceleration at Ro in W. Needs the position cache. */
void mbt__add_general_joint_bias(const mbt_tree* tree, const mbt_context* ctx, int i, mbt_spatial_acceleration* c);

/* The velocity kinematics of local node i (after its parent's) [Featherstone 2008, §7.3 in
 * absolute coordinates]: V_i = V_λ + S·q̇ into ctx->vc.V, and when c is not NULL the velocity-product
 * acceleration c_i = V_λ × S·q̇ (+ R_WF·Ḣ_FM·q̇ for the general mobilizers), both at Ro in W, with
 * [w; v] × [w'; v'] = [w × w'; w × v' + v × w']. Needs the position cache. */
static inline void mbt__velocity_kinematics_node(const mbt_tree* tree, mbt_context* ctx, int i,
                                                 mbt_spatial_acceleration* c) {
  const mbt_local_node* L = &tree->local_nodes[i];
  const mbt_spatial_velocity* S = &ctx->pc.H[L->v_start];
  const mbt_real* qd = ctx->v + L->v_start;
  mbt_vec3 wJ = mbt_vec3_zero(), vJ = mbt_vec3_zero();
  if (L->nv == 1) {
    wJ = mbt_vec3_scale(S->w, qd[0]);
    vJ = mbt_vec3_scale(S->v, qd[0]);
  } else if (L->S_is_identity) {
    wJ = mbt_vec3_make(qd[0], qd[1], qd[2]);
    vJ = mbt_vec3_make(qd[3], qd[4], qd[5]);
  } else {
    for (int k = 0; k < L->nv; ++k) {
      wJ = mbt_vec3_axpy(wJ, qd[k], S[k].w);
      vJ = mbt_vec3_axpy(vJ, qd[k], S[k].v);
    }
  }
  const mbt_spatial_velocity* VA = &ctx->vc.V[L->parent];
  mbt_spatial_velocity* V = &ctx->vc.V[i];
  V->w = mbt_vec3_add(VA->w, wJ);
  V->v = mbt_vec3_add(VA->v, vJ);
  if (!c) return;
  if (L->S_is_identity) {  /* V_λ = 0, Ḣ_FM = 0, A_FM(v̇ = 0) = 0: c = [0; −w × v] (mbt__add_general_joint_bias) */
    c->alpha = mbt_vec3_zero();
    c->a = mbt_vec3_neg(mbt_vec3_cross(wJ, vJ));
    return;
  }
  c->alpha = mbt_vec3_cross(VA->w, wJ);
  c->a = mbt_vec3_add(mbt_vec3_cross(VA->w, vJ), mbt_vec3_cross(VA->v, wJ));
  if (L->type != MBT_MOBILIZER_REVOLUTE && L->type != MBT_MOBILIZER_PRISMATIC && L->type != MBT_MOBILIZER_SCREW)
    mbt__add_general_joint_bias(tree, ctx, i, c);
}

/* The position (velocity) cache, if q (or q, v) changed since it was computed. */
void mbt__ensure_position_kinematics(const mbt_tree* tree, mbt_context* ctx);
void mbt__ensure_velocity_kinematics(const mbt_tree* tree, mbt_context* ctx);

/* The spatial momentum of local node i about Mo, expressed in M (velocity cache valid):
 * [h; l] = I_Mo_M·[w; v] with w = R_WMᵀ·w_WM, v = R_WMᵀ·v_Mo, v_Mo = v_Ro + w_WM × p_RoMo (the
 * inertia stays in M: two rotations instead of re-expressing it in W). w, v: the velocity in M. */
static inline void mbt__node_momentum_M(const mbt_context* ctx, const mbt_inertia_moments* I_Mo_M, int i,
                                        mbt_vec3* w, mbt_vec3* v, mbt_vec3* h, mbt_vec3* l) {
  const mbt_transform* X = &ctx->pc.X_WM[i];
  const mbt_spatial_velocity* V = &ctx->vc.V[i];
  *w = mbt_mat3_tmul_vec(&X->R, V->w);
  *v = mbt_mat3_tmul_vec(&X->R, mbt_vec3_add(V->v, mbt_vec3_cross(V->w, X->p)));
  mbt__moments_mul(I_Mo_M, *w, *v, h, l);
}

/* Spatial accelerations of the local nodes at Ro in W, base to tip: A_0 = 0,
 * A_i = A_λ + S·v̇ + c_i (c_i only if use_v, else v = 0), into A[num_local_nodes]; vdot NULL for
 * zero. Ensures the caches it reads (with use_v, the velocity cache's V and c, read when valid). */
void mbt__calc_local_accelerations(const mbt_tree* tree, mbt_context* ctx, bool use_v, const mbt_real* vdot,
                                   mbt_spatial_acceleration* A);

/* ---- world-frame quantities of a body, from its host (needs the caches they read) ------------ */
/* p_RoBo_W = p_RoMo + R_WM·p_MoBo, with X_MB = mbt_node.X_HB in the host's frame M. */
static inline mbt_vec3 mbt__p_RoBo_W(const mbt_tree* tree, const mbt_context* ctx, int node) {
  const mbt_node* n = &tree->nodes[node];
  const mbt_transform* X = &ctx->pc.X_WM[n->host];
  return mbt_vec3_add(X->p, mbt_mat3_mul_vec(&X->R, n->X_HB.p));
}
/* R_WB = R_WM·R_MB. */
static inline mbt_mat3 mbt__body_rotation_in_world(const mbt_tree* tree, const mbt_context* ctx, int node) {
  const mbt_node* n = &tree->nodes[node];
  return mbt_mat3_mul(&ctx->pc.X_WM[n->host].R, &n->X_HB.R);
}
/* X_WB = X_WM·X_MB (position from Wo: p_WoRo + p_RoBo). */
static inline mbt_transform mbt__body_pose_in_world(const mbt_tree* tree, const mbt_context* ctx, int node) {
  mbt_transform X_WB;
  X_WB.R = mbt__body_rotation_in_world(tree, ctx, node);
  X_WB.p = mbt_vec3_add(ctx->pc.p_WoRo[tree->nodes[node].host], mbt__p_RoBo_W(tree, ctx, node));
  return X_WB;
}
/* V_WB = V_WM shifted from Ro to Bo: w_WB = w, v_WBo = v_Ro + w × p_RoBo. */
static inline mbt_spatial_velocity mbt__body_velocity_in_world(const mbt_tree* tree, const mbt_context* ctx, int node) {
  const mbt_spatial_velocity* V = &ctx->vc.V[tree->nodes[node].host];
  mbt_spatial_velocity V_WB;
  V_WB.w = V->w;
  V_WB.v = mbt_vec3_add(V->v, mbt_vec3_cross(V->w, mbt__p_RoBo_W(tree, ctx, node)));
  return V_WB;
}
/* A_WB of every body (at Bo, the acceleration of the point Bo) from its host's spatial
 * acceleration A (per local node) and velocity ctx->vc.V at Ro [Featherstone 2008, §2.11]:
 * α_WB = α, a_WBo = a + α × p + w × (v + w × p), p = p_RoBo. */
static inline void mbt__body_accelerations_in_world(const mbt_tree* tree, const mbt_context* ctx,
                                                    const mbt_spatial_acceleration* A, mbt_spatial_acceleration* A_WB) {
  for (int node = 0; node < tree->num_nodes; ++node) {
    const int host = tree->nodes[node].host;
    const mbt_vec3 p = mbt__p_RoBo_W(tree, ctx, node);
    const mbt_spatial_velocity* V = &ctx->vc.V[host];
    A_WB[node].alpha = A[host].alpha;
    A_WB[node].a = mbt_vec3_add(A[host].a, mbt_vec3_cross(A[host].alpha, p));
    A_WB[node].a = mbt_vec3_add(A_WB[node].a, mbt_vec3_cross(V->w, mbt_vec3_add(V->v, mbt_vec3_cross(V->w, p))));
  }
}
/* The moments {m, h, K} of a body's inertia about Ro in W: M_BBo_B (K = m·G_BBo) re-expressed
 * by R_WB and shifted from Bo to Ro. */
void mbt__body_moments_at_Ro(const mbt_tree* tree, const mbt_context* ctx, int node, mbt_inertia_moments* I);
/* F −= F_Bo shifted from Bo to Ro (a force on a body, at Bo in W): tau_Ro = tau_Bo + p_RoBo × f. */
static inline void mbt__subtract_force_at_Ro(mbt_vec3 p_RoBo, const mbt_spatial_force* F_Bo, mbt_spatial_force* F) {
  F->tau = mbt_vec3_sub(F->tau, mbt_vec3_add(F_Bo->tau, mbt_vec3_cross(p_RoBo, F_Bo->f)));
  F->f = mbt_vec3_sub(F->f, F_Bo->f);
}
/* F[host] −= F1[node] + F2[node], each shifted from Bo to Ro (mbt__subtract_force_at_Ro), for every
 * body not welded to the world (host 0 has no force); F1 or F2 may be NULL. The applied forces of
 * the world-frame RNEA and of forward dynamics. Needs the position cache. */
static inline void mbt__subtract_body_forces(const mbt_tree* tree, const mbt_context* ctx, const mbt_spatial_force* F1,
                                             const mbt_spatial_force* F2, mbt_spatial_force* F) {
  for (int node = 1; node < tree->num_nodes; ++node) {
    const int host = tree->nodes[node].host;
    if (host == 0) continue;
    const mbt_vec3 p_RoBo = mbt__p_RoBo_W(tree, ctx, node);
    if (F1) mbt__subtract_force_at_Ro(p_RoBo, &F1[node], &F[host]);
    if (F2) mbt__subtract_force_at_Ro(p_RoBo, &F2[node], &F[host]);
  }
}

/* ---- the algorithms' cores ---------------------------------------------------------------------- */
/* Recursive Newton-Euler on the local nodes about Ro in W [Featherstone 2008, §5.3 in absolute
 * coordinates] at the context's q, and at its v if use_v (else v = 0), without gravity: A_i
 * (mbt__calc_local_accelerations) into ctx->aba.A and F_i = I_i·A_i + V_i ×* I_i·V_i − Σ Fapp of
 * its bodies + Σ_children F_c into ctx->aba.Z, tau = Sᵀ·F_i − tau_app. vdot, Fapp_Bo_W (per body
 * node), tau_app may be NULL for zero; tau may alias tau_app. */
void mbt__inverse_dynamics_W(const mbt_tree* tree, mbt_context* ctx, bool use_v, const mbt_real* vdot,
                             const mbt_spatial_force* Fapp_Bo_W, const mbt_real* tau_app, mbt_real* tau);

/* Recursive Newton-Euler in the local frames of the local nodes (inverse_dynamics.c), with gravity
 * g_W as the base acceleration −g_W [Featherstone 2008, §5.3], at the context's q and the
 * velocities v (nv, NULL for zero):
 *   tau = M(q)·v̇ + C(q,v)·v − tau_g(q; g_W) − tau_app
 * (vdot, tau_app NULL for zero; tau may alias tau_app). Reads and writes no kinematics cache
 * but the joint angles' sin and cos (mbt__calc_joint_sincos), and ctx->scratch_local. */
void mbt__inverse_dynamics_local(const mbt_tree* tree, mbt_context* ctx, const mbt_real* v, const mbt_real* vdot,
                                 mbt_vec3 g_W, const mbt_real* tau_app, mbt_real* tau);

/* Force element contributions (gravity, springs, user elements, joint damping) added into
 * `forces`, which is first zeroed. MBT_ERR_SINGULAR (forces unchanged) if a spring has zero
 * length. */
int mbt__calc_force_elements(const mbt_tree* tree, mbt_context* ctx, mbt_multibody_forces* forces);

/* Σ_B m_B, Σ_B m_B·p_WBcm and (with_v, needs the velocity cache) Σ_B m_B·v_WBcm over every body,
 * by local nodes (I_Mo_M = {m, h, K}: m·p_WMo + R_WM·h, m·v_WMo + w × R_WM·h; local node 0
 * carries the bodies welded to the world). Needs the position cache. */
void mbt__mass_moments(const mbt_tree* tree, const mbt_context* ctx, bool with_v, mbt_real* m, mbt_vec3* mp,
                       mbt_vec3* mv);

/* ---- spatial algebra ---------------------------------------------------------------------- */
/* a·b of two 6-vectors. */
static inline mbt_real mbt__spatial_dot(const mbt_real* a, const mbt_real* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

#endif /* MBT_ALGORITHMS_INTERNAL_H */
