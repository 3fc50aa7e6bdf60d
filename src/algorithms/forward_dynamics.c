/* forward_dynamics.c: forward dynamics v̇ = M⁻¹·(tau_app + Σ J_WBᵀ·Fapp_Bo_W + tau_forces − C·v)
 * by the articulated-body algorithm [Featherstone 2008, §7.3, Table 7.1], and through the mass
 * matrix and its sparse (tree) factorization M = Lᵀ·D·L [Featherstone 2008, §6.5]
 * (mbt__ltdl_factor_ex, cholesky.c).
 *
 * ABA on the local nodes (tree_internal.h: welded bodies merged into their moving ancestor),
 * every spatial quantity expressed in W about one point, so that inertias and forces pass from a
 * node to its parent without a transform [Featherstone 2008, §7.3 in absolute coordinates]. The
 * point is Ro, the origin Mo of the node that hangs from the world, one per subtree of the world
 * (mbt__local_pose_and_H_Ro): the world passes only V = 0 and A = [0; a] (the same at every
 * point) to a subtree and takes nothing back, and about Ro the products stay as exact wherever
 * the bodies are (about Wo, v̇ would lose digits ∝ |p_WoRo|²). Per local node i with parent
 * λ(i), motion subspace S (the joint's H columns at Ro):
 *   pass 1 (q only, tip to base): I_i = I_Mo_M re-expressed by R_WM and shifted from Mo to Ro
 *     (mbt__inertia_at_Ro, from its central form through the center of mass),
 *     P_i = I_i + Σ_children Pplus_c, U = P_i·S, D = Sᵀ·U = L·Lᵀ, Pplus_i = P_i − U·D⁻¹·Uᵀ;
 *   pass 2 (v, forces): V_i = V_λ + S·q̇, c_i = V_λ × S·q̇ (+ R_WF·Ḣ_FM·q̇ for the general
 *     mobilizers), the bias acceleration C_i = C_λ + c_i (C_0 = A_0), Z_i = I_i·C_i + V_i ×* I_i·V_i
 *     − Fext_i + Σ_children Zplus_c, e = tau − Sᵀ·Z_i, Zplus_i = Z_i + U·D⁻¹·e (only to a parent
 *     that is articulated);
 *   pass 3 (base to tip): Ã_0 = 0, v̇_i = D⁻¹·(e − Uᵀ·Ã_λ), Ã_i = Ã_λ + S·v̇_i,
 * with [w; v] × [w'; v'] = [w × w'; w × v' + v × w'] and [w; v] ×* [t; f] = [w × t + v × f; w × f].
 * A_i = Σ_path (S·v̇ + c) = Ã_i + C_i splits every acceleration into the part of the joint
 * accelerations and the bias C_i known after pass 2: the rigid I_i·C_i enters Z_i, and the tree
 * is solved for Ã with no velocity products. This is the textbook recursion (Zplus_i = Z_i +
 * Pplus_i·c_i + U·D⁻¹·e, A' = A_λ + c_i) with the articulated 6×6 product Pplus_i·c_i replaced
 * by the rigid I_i·C_i, and Pplus_i needed only by the parent's P.
 * A locked mobilizer, or a weld, has no columns: Pplus_i = P_i, Zplus_i = Z_i, v̇_i = 0.
 * Nodes with no free mobilizer on their path to the world never move relative to it and take
 * no part in passes 1 and 2. A pivot of D is singular when it is <= MBT__CHOLESKY_RTOL times
 * Sᵀ·Ic·S, Ic the composite rigid inertia of the subtree (an upper bound of D).
 *
 * Force elements enter through Fext and tau (mbt__calc_force_elements), except when uniform
 * gravity is the only one and no joint is damped: then the world is given the acceleration
 * A_0 = [0; −g] instead, which yields the same v̇ [Featherstone 2008, §5.3 / §7.3]. */
/* No fused multiply-adds in this file, also where clang's AVX-512 target implies FMA: the inertias
 * of pass 1 (mbt__inertias_at_Ro) fill a cache that must hold mbt__inertia_at_Ro's numbers bit for
 * bit, whichever function filled it. */
#ifdef __clang__
#pragma STDC FP_CONTRACT OFF
#endif
#include "algorithms/algorithms_internal.h"
#include "algorithms/cholesky_internal.h"
#include "sim/sim_internal.h" /* mbt__ltdl_solve */

/* The floating base's projection (once per call) is kept out of line where the compiler allows:
 * inlined into the projection of every node, it made the fixed-base forward dynamics 1–4 %
 * slower (UR5, Solo12, measured). */
#if defined(__GNUC__)
#define MBT__NOINLINE __attribute__((noinline))
#else
#define MBT__NOINLINE
#endif

typedef mbt_aba_sym3 sym3;
typedef mbt_aba_inertia abi;

enum {
  MBT__ABA_FREE = 1,        /* the node's mobilizer has unlocked columns */
  MBT__ABA_ARTICULATED = 2, /* this node or an ancestor has a free mobilizer */
  MBT__ABA_S_IDENTITY = 4,  /* six columns, S = I (a floating base hanging from the world) */
};

/* ---- articulated inertias by 3×3 blocks: [[A, B], [Bᵀ, C]], A and C symmetric ---------------- */
static inline mbt_vec3 sym3_mul(const sym3* S, mbt_vec3 x) {
  return mbt_vec3_make(S->xx * x.v[0] + S->xy * x.v[1] + S->xz * x.v[2],
                       S->xy * x.v[0] + S->yy * x.v[1] + S->yz * x.v[2],
                       S->xz * x.v[0] + S->yz * x.v[1] + S->zz * x.v[2]);
}

/* P = a rigid inertia {m, h, K} as a 6×6 matrix: A = K, B = [h]ₓ, C = m·1. */
static inline void abi_set_rigid(abi* P, const mbt_inertia_moments* I) {
  const mbt_real hx = I->h.v[0], hy = I->h.v[1], hz = I->h.v[2];
  P->A = (sym3){I->K[0], I->K[1], I->K[2], I->K[3], I->K[4], I->K[5]};
  P->B = (mbt_mat3){{{0, -hz, hy}, {hz, 0, -hx}, {-hy, hx, 0}}};
  P->C = (sym3){I->m, I->m, I->m, 0, 0, 0};
}

/* y = P·x: [A·alpha + B·a; Bᵀ·alpha + C·a] for x = [alpha; a]. */
static inline void abi_mul(const abi* P, const mbt_real* x, mbt_real* y) {
  const mbt_vec3 al = mbt_vec3_make(x[0], x[1], x[2]), a = mbt_vec3_make(x[3], x[4], x[5]);
  const mbt_vec3 t = mbt_vec3_add(sym3_mul(&P->A, al), mbt_mat3_mul_vec(&P->B, a));
  const mbt_vec3 f = mbt_vec3_add(mbt_mat3_tmul_vec(&P->B, al), sym3_mul(&P->C, a));
  y[0] = t.v[0], y[1] = t.v[1], y[2] = t.v[2], y[3] = f.v[0], y[4] = f.v[1], y[5] = f.v[2];
}

/* P −= x·yᵀ for a symmetric x·yᵀ (y a multiple of x): the 21 entries of the blocks. */
static inline void abi_sub_rank1(abi* P, const mbt_real* x, const mbt_real* y) {
  P->A.xx -= x[0] * y[0], P->A.yy -= x[1] * y[1], P->A.zz -= x[2] * y[2];
  P->A.xy -= x[0] * y[1], P->A.xz -= x[0] * y[2], P->A.yz -= x[1] * y[2];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) P->B.m[i][j] -= x[i] * y[3 + j];
  P->C.xx -= x[3] * y[3], P->C.yy -= x[4] * y[4], P->C.zz -= x[5] * y[5];
  P->C.xy -= x[3] * y[4], P->C.xz -= x[3] * y[5], P->C.yz -= x[4] * y[5];
}

/* P_λ += P_i: both about Ro in W, so no transform (21 additions). */
static inline void abi_add(abi* P, const abi* Q) {
  P->A.xx += Q->A.xx, P->A.yy += Q->A.yy, P->A.zz += Q->A.zz;
  P->A.xy += Q->A.xy, P->A.xz += Q->A.xz, P->A.yz += Q->A.yz;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) P->B.m[i][j] += Q->B.m[i][j];
  P->C.xx += Q->C.xx, P->C.yy += Q->C.yy, P->C.zz += Q->C.zz;
  P->C.xy += Q->C.xy, P->C.xz += Q->C.xz, P->C.yz += Q->C.yz;
}

/* P_λ += Pplus = P − u·(u/d)ᵀ for one column u = P·s, d = sᵀ·u: the 21 entries of the blocks. */
static inline void abi_add_projected(abi* Pp, const abi* P, const mbt_real* u, mbt_real dinv) {
  mbt_real y[6];
  for (int k = 0; k < 6; ++k) y[k] = u[k] * dinv;
  Pp->A.xx += P->A.xx - y[0] * u[0], Pp->A.yy += P->A.yy - y[1] * u[1], Pp->A.zz += P->A.zz - y[2] * u[2];
  Pp->A.xy += P->A.xy - y[0] * u[1], Pp->A.xz += P->A.xz - y[0] * u[2], Pp->A.yz += P->A.yz - y[1] * u[2];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Pp->B.m[i][j] += P->B.m[i][j] - y[i] * u[3 + j];
  Pp->C.xx += P->C.xx - y[3] * u[3], Pp->C.yy += P->C.yy - y[4] * u[4], Pp->C.zz += P->C.zz - y[5] * u[5];
  Pp->C.xy += P->C.xy - y[3] * u[4], Pp->C.xz += P->C.xz - y[3] * u[5], Pp->C.yz += P->C.yz - y[4] * u[5];
}

/* sᵀ·Ic·s = w·K·w + 2·v·(w × h) + m·v·v for s = [w; v] and a rigid Ic {m, h, K}. */
static mbt_real moments_quadratic_form(const mbt_inertia_moments* Ic, const mbt_spatial_velocity* s) {
  const mbt_vec3 w = s->w, v = s->v;
  const mbt_real* K = Ic->K;
  const mbt_real wKw = K[0] * w.v[0] * w.v[0] + K[1] * w.v[1] * w.v[1] + K[2] * w.v[2] * w.v[2] +
                       2 * (K[3] * w.v[0] * w.v[1] + K[4] * w.v[0] * w.v[2] + K[5] * w.v[1] * w.v[2]);
  return wKw + 2 * mbt_vec3_dot(v, mbt_vec3_cross(w, Ic->h)) + Ic->m * mbt_vec3_dot(v, v);
}

/* a·b of two 6-vectors summed as (angular) + (linear): three additions deep instead of five, for
 * the dot products on the chain of dependent operations from node to node (d, e, v̇). */
static inline mbt_real dot6_split(const mbt_real* a, const mbt_real* b) {
  return (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) + (a[3] * b[3] + a[4] * b[4] + a[5] * b[5]);
}

static inline bool pivot_is_regular(mbt_real d, mbt_real scale) {
  return mbt_lt(MBT__CHOLESKY_RTOL * scale, d) && mbt_isfinite(d);
}

/* The scale of a pivot D = sᵀ·P·s <= sᵀ·Ic·s <= tr(Ic)·|s|² (Ic positive semi-definite): the
 * cheap bound first; the exact sᵀ·Ic·s, Ic summed over the subtree's nodes (contiguous in node
 * order), only when a pivot fails against the bound. */
static inline mbt_real pivot_bound(const mbt_aba_cache* aba, int i, const mbt_spatial_velocity* s) {
  return aba->Ic_trace[i] * mbt__spatial_dot(s->coeffs, s->coeffs);
}
static mbt_real pivot_scale_exact(const mbt_tree* tree, const mbt_aba_cache* aba, int i,
                                  const mbt_spatial_velocity* s) {
  const int end = tree->nodes[tree->local_nodes[i].node].subtree_end;
  mbt_inertia_moments Ic = aba->I_Ro[i];
  for (int j = i + 1; j < tree->num_local_nodes && tree->local_nodes[j].node < end; ++j) {
    for (int k = 0; k < 6; ++k) Ic.K[k] += aba->I_Ro[j].K[k];
    Ic.h = mbt_vec3_add(Ic.h, aba->I_Ro[j].h);
    Ic.m += aba->I_Ro[j].m;
  }
  return moments_quadratic_form(&Ic, s);
}

/* ---- locks, errors, forces ---------------------------------------------------------------------- */
static inline bool node_is_locked(const mbt_context* ctx, const mbt_local_node* L) {
  return ctx->any_locked && L->nv > 0 && ctx->v_locked[L->v_start];
}

/* The q-dependent ABA cache also depends on which joints are locked. */
static bool aba_locks_match(const mbt_tree* tree, const mbt_context* ctx) {
  if (!ctx->any_locked && !ctx->aba.factored_with_locks) return true;
  for (int i = 1; i < tree->num_local_nodes; ++i) {
    const mbt_local_node* L = &tree->local_nodes[i];
    if (L->nv > 0 && node_is_locked(ctx, L) == ((ctx->aba.flags[i] & MBT__ABA_FREE) != 0)) return false;
  }
  return true;
}

static int singular_error(const mbt_tree* tree, mbt_context* ctx, const mbt_local_node* L, mbt_real pivot,
                          mbt_real scale) {
  const mbt_node* n = &tree->nodes[L->node];
  return mbt__context_error(ctx, MBT_ERR_SINGULAR,
                            "body '%s': articulated inertia is singular across mobilizer '%s' "
                            "(pivot %.3g <= %.0e x %.3g): forward dynamics is undefined (a body "
                            "without mass or inertia at the end of a joint?)",
                            tree->bodies[n->body].name, tree->mobilizers[n->mobilizer].name,
                            mbt_value(pivot), MBT__CHOLESKY_RTOL, mbt_value(scale));
}

/* True when the uniform gravity (the context's g_W) is the only force element with an effect
 * and no joint is damped: then gravity enters as the world's acceleration −g. */
static bool gravity_is_the_only_force(const mbt_tree* tree, const mbt_context* ctx) {
  for (int e = 0; e < tree->num_forces; ++e) {
    const mbt_force_element* fe = &tree->forces[e];
    if (fe->type != MBT_FORCE_UNIFORM_GRAVITY && !(fe->type == MBT_FORCE_USER && !fe->u.user.fn)) return false;
  }
  for (int k = 0; k < tree->nv; ++k)
    if (ctx->damping[k] != 0) return false;
  return true;
}

/* ---- pass 1 --------------------------------------------------------------------------------------- */
/* I_i = I_Mo_M re-expressed in W and shifted from Mo to Ro, i.e. mbt__inertia_at_Ro, of every
 * local node (after their poses): four nodes at a time (inertias_at_Ro4) in code compiled for
 * AVX2 without FMA where the processor has it (for AVX-512VL too: its 32 registers hold the lanes
 * without spills, 1–3 % faster, measured), which gives the scalar kernel's numbers bit for bit
 * (I_Ro is a cache the inverse dynamics reads too). (In the baseline code GCC 12 moves the
 * four-lane vectors through the stack lane by lane: forward dynamics 40 % slower, measured.) */
#if defined(MBT__MM_BLOCKS) && defined(MBT__AVX2)
/* mbt__inertia_at_Ro of four consecutive nodes at once (lane l node i + l): their central forms
 * {m, c, λ, a, b} and poses loaded four numbers at a time and transposed in registers (mm_load4),
 * r = p + R·c, h = m·r, K = λ·1 + a'·a'ᵀ + b'·b'ᵀ + m·(|r|²·1 − r·rᵀ); the same operations in the
 * same order. */
MBT__ALWAYS_INLINE void inertias_at_Ro4(const mbt_inertia_central* C, const mbt_transform* X, mbt_inertia_moments* J) {
  enum { STRIDE = sizeof(mbt_inertia_central) / sizeof(mbt_real) };
  mbt__v4 Ra[4], Rb[4], Rc[4], mc[4], la[4], bb[4], Jm[4], JK[6];
  mm_load4(&X->R.m[0][0], MBT__TRANSFORM_STRIDE, Ra); /* R00 R01 R02 R10 */
  mm_load4(&X->R.m[1][1], MBT__TRANSFORM_STRIDE, Rb); /* R11 R12 R20 R21 */
  mm_load4(&X->R.m[2][2], MBT__TRANSFORM_STRIDE, Rc); /* R22 p */
  mm_load4(&C->m, STRIDE, mc);                        /* m c */
  mm_load4(&C->lambda, STRIDE, la);                   /* λ a */
  mm_load4(&C->b.v[0], STRIDE, bb);                   /* b (unused) */
  const mbt__v4 R[3][3] = {{Ra[0], Ra[1], Ra[2]}, {Ra[3], Rb[0], Rb[1]}, {Rb[2], Rb[3], Rc[0]}};
  mbt__v4 a[3], b[3], r[3], mr[3];
  for (int k = 0; k < 3; ++k) {
    a[k] = R[k][0] * la[1] + R[k][1] * la[2] + R[k][2] * la[3];
    b[k] = R[k][0] * bb[0] + R[k][1] * bb[1] + R[k][2] * bb[2];
    r[k] = Rc[1 + k] + (R[k][0] * mc[1] + R[k][1] * mc[2] + R[k][2] * mc[3]);
    mr[k] = r[k] * mc[0];
  }
  const mbt__v4 s = la[0] + (mr[0] * r[0] + mr[1] * r[1] + mr[2] * r[2]);
  Jm[0] = mc[0], Jm[1] = mr[0], Jm[2] = mr[1], Jm[3] = mr[2];
  for (int k = 0; k < 3; ++k) JK[k] = (a[k] * a[k] + b[k] * b[k] + s) - mr[k] * r[k];
  JK[3] = (a[0] * a[1] + b[0] * b[1]) - mr[0] * r[1];
  JK[4] = (a[0] * a[2] + b[0] * b[2]) - mr[0] * r[2];
  JK[5] = (a[1] * a[2] + b[1] * b[2]) - mr[1] * r[2];
  mm_store_moments4(Jm, JK, J);
}

MBT__ALWAYS_INLINE int aba_inertias4(mbt_context* ctx, int nl) {
  int i0 = 1;
  for (; i0 + 3 < nl; i0 += 4) inertias_at_Ro4(&ctx->I_cm_M[i0], &ctx->pc.X_WM[i0], &ctx->aba.I_Ro[i0]);
  return i0;
}
__attribute__((target("avx2"))) static int aba_inertias4_avx2(mbt_context* ctx, int nl) {
  return aba_inertias4(ctx, nl);
}
__attribute__((target("avx2,avx512f,avx512vl"))) static int aba_inertias4_avx512(mbt_context* ctx, int nl) {
  return aba_inertias4(ctx, nl);
}
#endif
void mbt__inertias_at_Ro(const mbt_tree* tree, mbt_context* ctx) {
  const int nl = tree->num_local_nodes;
  int i0 = 1;
#if defined(MBT__MM_BLOCKS) && defined(MBT__AVX2)
  if (mbt__cpu_has_avx2_fma())
    i0 = mbt__cpu_has_avx512() ? aba_inertias4_avx512(ctx, nl) : aba_inertias4_avx2(ctx, nl);
#endif
  for (int i = i0; i < nl; ++i) mbt__inertia_at_Ro(ctx, i);
}

/* mbt__position_kinematics_node for the revolute nodes with R_AF_is_xz and p_AF_y_is_zero (finalize.c:
 * R_AF.m[0][2] = 0, p_AF = (p_x, 0, p_z), never hanging from the world): the products with those
 * exact zeros left out of R_WA·p_AF and of column z of R_WA·(R_AF·R_z(q)) (12 flops of 90), which
 * gives mbt__local_pose_and_H_Ro's numbers (x·0 added to a product changes at most the sign of a
 * zero), so the position cache holds the same whichever function filled it. */
MBT__ALWAYS_INLINE void aba_position_kinematics_node(const mbt_tree* tree, mbt_context* ctx, int i) {
  const mbt_local_node* L = &tree->local_nodes[i];
  if (!L->p_AF_y_is_zero) {
    mbt__position_kinematics_node(tree, ctx, i);
    return;
  }
  mbt_position_cache* pc = &ctx->pc;
  const mbt_transform* X_WA = &pc->X_WM[L->parent];
  mbt_transform* X_WM = &pc->X_WM[i];
  const mbt_mat3* R = &X_WA->R;
  const mbt_mat3* A = &L->X_AF.R;
  const mbt_vec3 p = L->X_AF.p;
  const mbt_real sn = ctx->sin_q[L->q_start], cs = ctx->cos_q[L->q_start];
  mbt_real AR[3][2];  /* columns x, y of A·R_z(q); its column z is A's, (0, A12, A22) */
  for (int r = 0; r < 3; ++r) {
    AR[r][0] = cs * A->m[r][0] + sn * A->m[r][1];
    AR[r][1] = cs * A->m[r][1] - sn * A->m[r][0];
  }
  for (int r = 0; r < 3; ++r) {
    X_WM->p.v[r] = X_WA->p.v[r] + (R->m[r][0] * p.v[0] + R->m[r][2] * p.v[2]);
    for (int c = 0; c < 2; ++c) X_WM->R.m[r][c] = R->m[r][0] * AR[0][c] + R->m[r][1] * AR[1][c] + R->m[r][2] * AR[2][c];
    X_WM->R.m[r][2] = R->m[r][1] * A->m[1][2] + R->m[r][2] * A->m[2][2];
  }
  mbt_spatial_velocity* H = &pc->H[L->v_start];
  H->w = mbt_vec3_make(X_WM->R.m[0][2], X_WM->R.m[1][2], X_WM->R.m[2][2]);
  H->v = mbt_vec3_cross(X_WM->p, H->w);
  pc->p_WoRo[i] = pc->p_WoRo[L->parent];
}

/* The q-dependent quantities of node i, base to tip, from its position kinematics (X_WM, S = H)
 * and I_i (mbt__inertias_at_Ro): the flags and P_i = Ic_i = I_i. */
static void aba_node_position(const mbt_tree* tree, mbt_context* ctx, int i) {
  mbt_aba_cache* aba = &ctx->aba;
  const mbt_local_node* L = &tree->local_nodes[i];
  const unsigned char free = (L->nv > 0 && !node_is_locked(ctx, L)) ? MBT__ABA_FREE : 0;
  aba->flags[i] = free | ((free || (aba->flags[L->parent] & MBT__ABA_ARTICULATED)) ? MBT__ABA_ARTICULATED : 0) |
                  (L->S_is_identity ? MBT__ABA_S_IDENTITY : 0);
  const mbt_inertia_moments* I = &aba->I_Ro[i];
  if (aba->flags[i] & MBT__ABA_ARTICULATED) {
    abi_set_rigid(&aba->P[i], I);
    aba->Ic_trace[i] = I->K[0] + I->K[1] + I->K[2] + 3 * I->m;
  }
}

/* D = P (symmetric 6×6, lower triangle a[i][j], i >= j) = L·diag(d)·Lᵀ with L unit lower
 * triangular, no square roots [Golub & Van Loan, Matrix Computations, 4th ed., §4.1.2]: for
 * j = 0..5, with w_k = L_jk·d_k, d_j = P_jj − Σ_{k<j} w_k·L_jk and L_ij = (P_ij − Σ_{k<j} L_ik·w_k)/d_j
 * (i > j). Unrolled (constant indices: P, L and d stay in registers); L and 1/d_j are written to
 * LD (L below the diagonal, 1/d_j on it) once at the end. Returns the first row whose pivot d_j is
 * not above MBT__CHOLESKY_RTOL·scale[j] (d_j in *pivot), or −1. */
static inline int ldlt6_factor(const mbt_real a[6][6], const mbt_real* scale, mbt_real* LD, mbt_real* pivot) {
  mbt_real l[6][6], d[6], inv[6];
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 6
#endif
  for (int j = 0; j < 6; ++j) {
    mbt_real w[6];
    mbt_real dj = a[j][j];
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 6
#endif
    for (int k = 0; k < j; ++k) {
      w[k] = l[j][k] * d[k];
      dj -= w[k] * l[j][k];
    }
    if (!pivot_is_regular(dj, scale[j])) {
      *pivot = dj;
      return j;
    }
    d[j] = dj;
    inv[j] = 1 / dj;
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 6
#endif
    for (int i = j + 1; i < 6; ++i) {
      mbt_real s = a[i][j];
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 6
#endif
      for (int k = 0; k < j; ++k) s -= l[i][k] * w[k];
      l[i][j] = s * inv[j];
    }
  }
  for (int i = 0; i < 6; ++i) {
    LD[7 * i] = inv[i];
    for (int j = 0; j < i; ++j) LD[6 * i + j] = l[i][j];
  }
  return -1;
}

/* x = D⁻¹·x for D = L·diag(d)·Lᵀ (ldlt6_factor): L·y = x, y = y/d, Lᵀ·x = y; no division. */
static inline void ldlt6_solve(const mbt_real* LD, mbt_real* x) {
  for (int i = 1; i < 6; ++i)
    for (int k = 0; k < i; ++k) x[i] -= LD[6 * i + k] * x[k];
  for (int i = 0; i < 6; ++i) x[i] *= LD[7 * i];
  for (int i = 4; i >= 0; --i)
    for (int k = i + 1; k < 6; ++k) x[i] -= LD[6 * k + i] * x[k];
}

/* S = I₆ (a floating base hanging from the world): U = P, D = P = L·diag(d)·Lᵀ (ldlt6_factor)
 * with the pivots checked against the bound tr(Ic)·|e_k|² = tr(Ic), then exactly against
 * e_kᵀ·Ic·e_k when one fails the bound, and Pplus = 0. (Pass 3 without U, Ã_λ = 0 below the
 * world, was 1–2 % slower on UR5 and the 30-chain: the loop compiled differently, measured.) */
MBT__NOINLINE static int project_floating_base(const mbt_tree* tree, mbt_context* ctx, int i) {
  mbt_aba_cache* aba = &ctx->aba;
  const mbt_local_node* L = &tree->local_nodes[i];
  const abi* P = &aba->P[i];
  mbt_real* LD = aba->D_LLT + 6 * L->v_start;
  const mbt_real a[6][6] = {  /* the lower triangle of [[A, B], [Bᵀ, C]] */
    {P->A.xx},
    {P->A.xy, P->A.yy},
    {P->A.xz, P->A.yz, P->A.zz},
    {P->B.m[0][0], P->B.m[1][0], P->B.m[2][0], P->C.xx},
    {P->B.m[0][1], P->B.m[1][1], P->B.m[2][1], P->C.xy, P->C.yy},
    {P->B.m[0][2], P->B.m[1][2], P->B.m[2][2], P->C.xz, P->C.yz, P->C.zz}};
  mbt_real scale[6], pivot = 0;
  for (int k = 0; k < 6; ++k) {
    scale[k] = aba->Ic_trace[i];
    for (int r = 0; r < 6; ++r) aba->U[L->v_start + k].coeffs[r] = r >= k ? a[r][k] : a[k][r];
  }
  int row = ldlt6_factor(a, scale, LD, &pivot);
  if (row >= 0) {
    for (int k = 0; k < 6; ++k) scale[k] = pivot_scale_exact(tree, aba, i, &ctx->pc.H[L->v_start + k]);
    row = ldlt6_factor(a, scale, LD, &pivot);
    if (row >= 0) return singular_error(tree, ctx, L, pivot, scale[row]);
  }
  static const abi zero;
  aba->P[i] = zero;
  return MBT_OK;
}

/* U = P·S, D = Sᵀ·U = L·Lᵀ with pivots checked against Sᵀ·Ic·S, then Pplus = P − U·D⁻¹·Uᵀ in
 * place of P. One column: Pplus = P − u·uᵀ/d; nv columns: Pplus = P − Σ_k y_k·y_kᵀ with
 * Y = L⁻¹·Uᵀ; six (S invertible): Pplus = 0. */
static int project_articulated_inertia(const mbt_tree* tree, mbt_context* ctx, int i) {
  mbt_aba_cache* aba = &ctx->aba;
  const mbt_local_node* L = &tree->local_nodes[i];
  abi* P = &aba->P[i];
  const int nv = L->nv;
  const mbt_spatial_velocity* S = &ctx->pc.H[L->v_start];
  mbt_spatial_force* U = &aba->U[L->v_start];
  if (nv == 1) {
    abi_mul(P, S->coeffs, U->coeffs);
    const mbt_real d = dot6_split(S->coeffs, U->coeffs);
    /* (|S|² of a revolute column [w; p × w], |w| = 1: 1 + |p × w|², 6 flops of 11) */
    const mbt_real bound = L->type == MBT_MOBILIZER_REVOLUTE ? aba->Ic_trace[i] * (1 + mbt_vec3_dot(S->v, S->v))
                                                             : pivot_bound(aba, i, S);
    if (!pivot_is_regular(d, bound)) {
      const mbt_real scale = pivot_scale_exact(tree, aba, i, S);
      if (!pivot_is_regular(d, scale)) return singular_error(tree, ctx, L, d, scale);
    }
    aba->D_inv[L->v_start] = 1 / d;  /* (Pplus = P − u·uᵀ/d goes straight into the parent's) */
    return MBT_OK;
  }
  if (aba->flags[i] & MBT__ABA_S_IDENTITY) return project_floating_base(tree, ctx, i);
  mbt_real* LL = aba->D_LLT + 6 * L->v_start;
  mbt_real scale[6];
  for (int k = 0; k < nv; ++k) {
    abi_mul(P, S[k].coeffs, U[k].coeffs);
    scale[k] = pivot_bound(aba, i, &S[k]);
  }
  int row = 0;
  for (int exact = 0; exact < 2; ++exact) {
    for (int r = 0; r < nv; ++r)
      for (int j = 0; j <= r; ++j) LL[r * nv + j] = mbt__spatial_dot(S[r].coeffs, U[j].coeffs);
    if (mbt__cholesky_factor_ex(LL, nv, nv, scale, &row) == MBT_OK) break;
    if (exact) {
      mbt_real d = mbt__spatial_dot(S[row].coeffs, U[row].coeffs);
      for (int k = 0; k < row; ++k) d -= LL[row * nv + k] * LL[row * nv + k];
      return singular_error(tree, ctx, L, d, scale[row]);
    }
    for (int k = 0; k < nv; ++k) scale[k] = pivot_scale_exact(tree, aba, i, &S[k]);
  }
  if (nv == 6) {
    static const abi zero;
    *P = zero;
    return MBT_OK;
  }
  mbt_real Y[6][6];
  for (int k = 0; k < nv; ++k)
    for (int c = 0; c < 6; ++c) {
      mbt_real s = U[k].coeffs[c];
      for (int j = 0; j < k; ++j) s -= LL[k * nv + j] * Y[j][c];
      Y[k][c] = s / LL[k * nv + k];
    }
  for (int k = 0; k < nv; ++k) abi_sub_rank1(P, Y[k], Y[k]);
  return MBT_OK;
}

/* x = D⁻¹·x for node i's D. */
static inline void solve_D(const mbt_aba_cache* aba, const mbt_local_node* L, mbt_real* x) {
  if (L->nv == 1) x[0] *= aba->D_inv[L->v_start];
  else if (L->S_is_identity) ldlt6_solve(aba->D_LLT + 6 * L->v_start, x);
  else mbt__cholesky_solve_ex(aba->D_LLT + 6 * L->v_start, L->nv, L->nv, x);
}

/* ---- pass 2 --------------------------------------------------------------------------------------- */
/* Base to tip at node i: V_i and c_i (mbt__velocity_kinematics_node), the bias acceleration
 * C_i = C_λ + c_i into aba->A (C_0 = A_0), and for an articulated node the force at zero joint
 * accelerations Z_i = I_i·C_i + V_i ×* I_i·V_i. */
static void aba_node_velocity(const mbt_tree* tree, mbt_context* ctx, int i) {
  mbt_aba_cache* aba = &ctx->aba;
  mbt_spatial_acceleration* c = &ctx->vc.c[i];
  mbt__velocity_kinematics_node(tree, ctx, i, c);
  const mbt_spatial_acceleration* C_parent = &aba->A[tree->local_nodes[i].parent];
  const mbt_vec3 alpha = mbt_vec3_add(C_parent->alpha, c->alpha), a = mbt_vec3_add(C_parent->a, c->a);
  aba->A[i].alpha = alpha;
  aba->A[i].a = a;
  if (!(aba->flags[i] & MBT__ABA_ARTICULATED)) return;
  const mbt_spatial_velocity* V = &ctx->vc.V[i];
  mbt__moments_net_force(&aba->I_Ro[i], V->w, V->v, &alpha, &a, &aba->Z[i].tau, &aba->Z[i].f);
}

/* Tip to base at an articulated node i: pass 1 when q changed (projection, P and Ic into the
 * parent's), then e = tau − Sᵀ·Z and, when the parent is articulated (Zplus has no other
 * reader), Zplus = Z + U·D⁻¹·e into the parent's Z (no Pplus·c: Z holds I·C, header comment). */
static int aba_node_articulate(const mbt_tree* tree, mbt_context* ctx, int i, bool factor, const mbt_real* tau1,
                               const mbt_real* tau2) {
  mbt_aba_cache* aba = &ctx->aba;
  const mbt_local_node* L = &tree->local_nodes[i];
  const bool free = aba->flags[i] & MBT__ABA_FREE;
  const bool to_parent = aba->flags[L->parent] & MBT__ABA_ARTICULATED;
  if (factor) {
    if (free) {
      const int st = project_articulated_inertia(tree, ctx, i);
      if (st) return st;
    }
    if (to_parent) {
      if (free && L->nv == 1) abi_add_projected(&aba->P[L->parent], &aba->P[i], aba->U[L->v_start].coeffs,
                                                aba->D_inv[L->v_start]);
      else abi_add(&aba->P[L->parent], &aba->P[i]);
      aba->Ic_trace[L->parent] += aba->Ic_trace[i];
    }
  }
  mbt_spatial_force* Z = &aba->Z[i];
  mbt_real* e = aba->e + L->v_start;
  if (free && L->nv == 1) {  /* (one column, written out: 3–7 % faster than the loops, measured) */
    const int dof = L->v_start;
    e[0] = (tau1 ? tau1[dof] : 0) + (tau2 ? tau2[dof] : 0) - dot6_split(ctx->pc.H[dof].coeffs, Z->coeffs);
    if (!to_parent) return MBT_OK;
    const mbt_real x = e[0] * aba->D_inv[dof];
    const mbt_real* u = aba->U[dof].coeffs;
    mbt_spatial_force* Zp = &aba->Z[L->parent];
    for (int r = 0; r < 6; ++r) Zp->coeffs[r] += Z->coeffs[r] + u[r] * x;
    return MBT_OK;
  }
  if (free) {
    const mbt_spatial_velocity* S = &ctx->pc.H[L->v_start];
    const bool identity = aba->flags[i] & MBT__ABA_S_IDENTITY;
    for (int k = 0; k < L->nv; ++k) {
      const int dof = L->v_start + k;
      const mbt_real SZ = identity ? Z->coeffs[k] : mbt__spatial_dot(S[k].coeffs, Z->coeffs);
      e[k] = (tau1 ? tau1[dof] : 0) + (tau2 ? tau2[dof] : 0) - SZ;
    }
  }
  if (!to_parent) return MBT_OK;
  mbt_real Zplus[6];
  for (int r = 0; r < 6; ++r) Zplus[r] = Z->coeffs[r];
  if (free) {
    const mbt_spatial_force* U = &aba->U[L->v_start];
    mbt_real x[6];
    for (int k = 0; k < L->nv; ++k) x[k] = e[k];
    solve_D(aba, L, x);
    for (int k = 0; k < L->nv; ++k)
      for (int r = 0; r < 6; ++r) Zplus[r] += U[k].coeffs[r] * x[k];
  }
  mbt_spatial_force* Zp = &aba->Z[L->parent];
  for (int r = 0; r < 6; ++r) Zp->coeffs[r] += Zplus[r];
  return MBT_OK;
}

/* ---- pass 3 --------------------------------------------------------------------------------------- */
/* Base to tip: Ã_0 = 0, v̇ = D⁻¹·(e − Uᵀ·Ã_λ), Ã_i = Ã_λ + S·v̇ (v̇ = 0 for locked
 * joints), into aba->A: the accelerations without their bias part C (A_i = Ã_i + C_i). */
static void aba_accelerations(const mbt_tree* tree, mbt_context* ctx, mbt_real* vdot) {
  mbt_aba_cache* aba = &ctx->aba;
  for (int r = 0; r < 6; ++r) aba->A[0].coeffs[r] = 0;
  for (int i = 1; i < tree->num_local_nodes; ++i) {
    const mbt_local_node* L = &tree->local_nodes[i];
    mbt_spatial_acceleration* A = &aba->A[i];
    const mbt_real* Ap = aba->A[L->parent].coeffs;
    mbt_real* vd = vdot + L->v_start;
    const mbt_spatial_velocity* S = &ctx->pc.H[L->v_start];
    const mbt_spatial_force* U = &aba->U[L->v_start];
    const mbt_real* e = aba->e + L->v_start;
    const bool free = aba->flags[i] & MBT__ABA_FREE;
    if (free && L->nv == 1) {  /* (one column: v̇ = (e − uᵀ·Ã_λ)/d, Ã_λ read once) */
      const mbt_real x1 = (e[0] - dot6_split(U->coeffs, Ap)) * aba->D_inv[L->v_start];
      vd[0] = x1;
      for (int r = 0; r < 6; ++r) A->coeffs[r] = Ap[r] + S->coeffs[r] * x1;
      continue;
    }
    *A = aba->A[L->parent];
    if (!free) {
      for (int k = 0; k < L->nv; ++k) vd[k] = 0;
      continue;
    }
    mbt_real x[6];
    for (int k = 0; k < L->nv; ++k) x[k] = e[k] - mbt__spatial_dot(U[k].coeffs, A->coeffs);
    solve_D(aba, L, x);
    const bool identity = aba->flags[i] & MBT__ABA_S_IDENTITY;
    for (int k = 0; k < L->nv; ++k) {
      vd[k] = x[k];
      if (identity) A->coeffs[k] += x[k];
      else
        for (int r = 0; r < 6; ++r) A->coeffs[r] += S[k].coeffs[r] * x[k];
    }
  }
}

static int calc_aba(const mbt_tree* tree, mbt_context* ctx, const mbt_real* tau_applied,
                    const mbt_spatial_force* Fapp_Bo_W, mbt_real* vdot) {
  mbt_aba_cache* aba = &ctx->aba;
  const int nl = tree->num_local_nodes;
  const bool factor = !ctx->aba_position_valid || !aba_locks_match(tree, ctx);
  const bool gravity_as_acceleration = gravity_is_the_only_force(tree, ctx);
  const mbt_multibody_forces* forces = NULL;
  if (!gravity_as_acceleration) {
    const int st = mbt__calc_force_elements(tree, ctx, ctx->forces);
    if (st) return st;
    forces = ctx->forces;
  }
  const bool pose = !ctx->position_valid;
  if (pose) mbt__calc_joint_sincos(tree, ctx);
  if (factor) {
    ctx->aba_position_valid = false; /* until pass 1 completes */
    aba->flags[0] = 0;
    aba->factored_with_locks = ctx->any_locked;
  }
  aba->A[0].alpha = mbt_vec3_zero();
  aba->A[0].a = gravity_as_acceleration ? mbt_vec3_neg(ctx->g_W) : mbt_vec3_zero();
  const bool inertias = factor && !ctx->inertia_valid; /* (set valid after the whole pass) */
  if (inertias) {
    for (int i = 1; pose && i < nl; ++i) aba_position_kinematics_node(tree, ctx, i);
    mbt__inertias_at_Ro(tree, ctx);
  }
  for (int i = 1; i < nl; ++i) {
    if (pose && !inertias) aba_position_kinematics_node(tree, ctx, i);
    if (factor) aba_node_position(tree, ctx, i);
    aba_node_velocity(tree, ctx, i);
  }
  ctx->position_valid = ctx->velocity_valid = ctx->velocity_products_valid = true;
  if (factor) ctx->inertia_valid = true;
  if (forces || Fapp_Bo_W) mbt__subtract_body_forces(tree, ctx, forces ? forces->F_BBo_W : NULL, Fapp_Bo_W, aba->Z);
  for (int i = nl - 1; i > 0; --i) {
    if (!(aba->flags[i] & MBT__ABA_ARTICULATED)) continue;
    const int st = aba_node_articulate(tree, ctx, i, factor, tau_applied, forces ? forces->tau : NULL);
    if (st) return st;
  }
  if (factor) ctx->aba_position_valid = true;
  aba_accelerations(tree, ctx, vdot);
  return MBT_OK;
}

int mbt_calc_forward_dynamics(const mbt_tree* tree, mbt_context* ctx, const mbt_real* tau_applied,
                              const mbt_spatial_force* Fapp_Bo_W_array, mbt_real* vdot) {
  const int st = mbt__check_tree_context(tree, ctx, "calc_forward_dynamics");
  if (st) return st;
  if (!vdot && tree->nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_forward_dynamics: vdot is NULL");
  return calc_aba(tree, ctx, tau_applied, Fapp_Bo_W_array, vdot);
}

/* ---- through the mass matrix ------------------------------------------------------------- */
/* λ(k) over the unlocked dofs: the previous dof of the same mobilizer, else the last
 * unlocked dof of the nearest ancestor that has one; −1 for a locked dof, which is then
 * factored alone (nothing below it reads it). */
static void calc_dof_parents(const mbt_tree* tree, mbt_context* ctx) {
  int* last = ctx->aba.node_last_dof;
  int* lambda = ctx->aba.dof_parent;
  last[0] = -1;
  for (int i = 1; i < tree->num_local_nodes; ++i) {
    const mbt_local_node* L = &tree->local_nodes[i];
    int above = last[L->parent];
    const bool locked = L->nv > 0 && ctx->any_locked && ctx->v_locked[L->v_start];
    for (int k = 0; k < L->nv; ++k) {
      lambda[L->v_start + k] = locked ? -1 : above;
      if (!locked) above = L->v_start + k;
    }
    last[i] = above;
  }
}

/* M·v̇ = rhs with rhs = −ID(v̇ = 0, Fapp + F_forces, tau_app + tau_forces) = tau_app + tau_forces
 * + Σ J_WBᵀ·(Fapp + F_forces) − C·v; M by the composite-rigid-body algorithm in scratch_nvnv,
 * factored in place as Lᵀ·D·L along λ (calc_dof_parents), a pivot d_k singular when
 * <= MBT__CHOLESKY_RTOL·M_kk. Locked dofs: v̇_locked = 0, their rows and columns are left out. */
int mbt_calc_forward_dynamics_via_mass_matrix(const mbt_tree* tree, mbt_context* ctx,
                                              const mbt_real* tau_applied,
                                              const mbt_spatial_force* Fapp_Bo_W_array, mbt_real* vdot) {
  int st = mbt__check_tree_context(tree, ctx, "calc_forward_dynamics_via_mass_matrix");
  if (st) return st;
  const int nv = tree->nv, nn = tree->num_nodes;
  if (!vdot && nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_forward_dynamics_via_mass_matrix: vdot is NULL");
  if (!ctx->scratch_nvnv)
    return mbt__context_error(ctx, MBT_ERR_SIZE,
                              "calc_forward_dynamics_via_mass_matrix: nv = %d is above %d, the largest model with a "
                              "dense mass matrix; use mbt_calc_forward_dynamics (O(n))",
                              nv, MBT_DENSE_MAX_NV);
  mbt__ensure_velocity_kinematics(tree, ctx);
  st = mbt__calc_force_elements(tree, ctx, ctx->forces);
  if (st) return st;
  /* Combined applied forces in scratch (not used by the algorithms called below). */
  mbt_spatial_force* F = ctx->scratch_F;
  mbt_real* rhs = ctx->scratch_nv[3];
  for (int node = 0; node < nn; ++node)
    for (int i = 0; i < 6; ++i)
      F[node].coeffs[i] = ctx->forces->F_BBo_W[node].coeffs[i] + (Fapp_Bo_W_array ? Fapp_Bo_W_array[node].coeffs[i] : 0);
  for (int k = 0; k < nv; ++k) rhs[k] = ctx->forces->tau[k] + (tau_applied ? tau_applied[k] : 0);
  mbt__inverse_dynamics_W(tree, ctx, true, NULL, F, rhs, rhs);
  for (int k = 0; k < nv; ++k) rhs[k] = -rhs[k];

  mbt_real* M = ctx->scratch_nvnv;
  st = mbt_calc_mass_matrix(tree, ctx, M);
  if (st) return st;
  calc_dof_parents(tree, ctx);
  for (int k = 0; k < nv; ++k) {
    mbt_real* Mkk = &M[(size_t)k * (size_t)nv + (size_t)k];
    if (ctx->any_locked && ctx->v_locked[k]) *Mkk = 1; /* (a pivot of its own, v̇_k = 0 below) */
    ctx->aba.M_diag[k] = *Mkk;
  }
  int dof = -1;
  if (mbt__ltdl_factor_ex(M, nv, ctx->aba.dof_parent, ctx->aba.M_diag, MBT__CHOLESKY_RTOL, &dof)) {
    const mbt_node* n = &tree->nodes[tree->v_node[dof]];
    return mbt__context_error(ctx, MBT_ERR_SINGULAR,
                              "body '%s': mass matrix is singular at velocity %d (mobilizer '%s'): "
                              "forward dynamics is undefined (a body without mass or inertia at the "
                              "end of a joint?)",
                              tree->bodies[n->body].name, dof, tree->mobilizers[n->mobilizer].name);
  }
  mbt__ltdl_solve(M, nv, ctx->aba.dof_parent, rhs);
  for (int k = 0; k < nv; ++k) vdot[k] = (ctx->any_locked && ctx->v_locked[k]) ? 0 : rhs[k];
  return MBT_OK;
}
