/* derivatives_internal.h: the workspace of the derivative algorithms (derivatives*.c) and
 * the 6-vector algebra they share (not installed).
 *
 * Every spatial quantity of the recursions is taken about a point fixed in W, written Wo
 * (mbt__id_derivatives: the origin of the first moving frame at the current q; the kinematics
 * of derivatives_kin.c: the world origin), and expressed in W [Carpentier & Mansard, RSS
 * 2018]: motion vectors [w; v_Wo], force vectors [tau_Wo; f], spatial accelerations in
 * Featherstone's sense [Featherstone 2008, §2.6], so that quantities of different bodies add
 * without shifting. */
#ifndef MBT_DERIVATIVES_INTERNAL_H
#define MBT_DERIVATIVES_INTERNAL_H

#include "mbt/derivatives.h"
#include "algorithms/algorithms_internal.h"

typedef mbt_real mbt_v6[6];

/* The kernels of the O(nv²) and O(nv³) work have two versions: for baseline x86-64 and, where the
 * processor has them (ws->avx2, checked once per workspace by mbt__cpu_has_avx2_fma), for AVX2
 * and FMA; both give the same numbers to round-off. −M⁻¹·∂tau and the M⁻¹ sweeps are written
 * with intrinsics (derivatives_simd.c, derivatives_fd.c); the articulated update and the LᵀDL
 * inverse are the same C compiled for both targets (algorithms_internal.h,
 * MBT__AVX2_ATTRIBUTES): MBT_DERIV_KERNEL(name, params, args, body_args) defines name(params),
 * called with args and dispatching on ws->avx2 (ws one of the params), over
 * name##_body(body_args), an always-inline function. */
#ifdef MBT__AVX2
#define MBT_DERIV_KERNEL(name, params, args, body_args)                          \
  static void name##_base params { name##_body body_args; }                     \
  MBT__AVX2_ATTRIBUTES static void name##_avx2 params { name##_body body_args; } \
  static void name params {                                                     \
    if (ws->avx2)                                                               \
      name##_avx2 args;                                                         \
    else                                                                        \
      name##_base args;                                                         \
  }
#else
#define MBT_DERIV_KERNEL(name, params, args, body_args) \
  static void name params { name##_body body_args; }
#endif
/* The same for the recursive passes, compiled three times (algorithms_internal.h,
 * MBT__PASSES_AVX2_ATTRIBUTES): baseline, AVX2/FMA, and AVX-512F where the processor has it
 * (ws->avx512), for its 32 vector registers. */
#ifdef MBT__AVX2
/* MBT_DERIV_PASSES_EX: the same with the baseline copy's body arguments apart from the vector
 * copies' and the AVX-512 copy's attributes given (derivatives_lanes.h). */
#define MBT_DERIV_PASSES_EX(name, params, args, base_args, vector_args, avx512_attributes) \
  static void name##_base params { name##_body base_args; }                               \
  MBT__PASSES_AVX2_ATTRIBUTES static void name##_avx2 params { name##_body vector_args; }   \
  avx512_attributes static void name##_avx512 params { name##_body vector_args; }          \
  static void name params {                                                               \
    if (ws->avx2 && ws->avx512)                                                           \
      name##_avx512 args;                                                                 \
    else if (ws->avx2)                                                                    \
      name##_avx2 args;                                                                   \
    else                                                                                  \
      name##_base args;                                                                   \
  }
#define MBT_DERIV_PASSES(name, params, args, body_args) \
  MBT_DERIV_PASSES_EX(name, params, args, body_args, body_args, MBT__PASSES_AVX512_ATTRIBUTES)
#else
#define MBT_DERIV_PASSES(name, params, args, body_args) \
  static void name params { name##_body body_args; }
#endif

/* Y = I·(v×) − (I·v)×̄* − v×*·I of a body (or a sum of them over a subtree). With I = {m, h, K}
 * about Wo and v = [ω; u], its right half vanishes and its lower-left block is skew:
 *   Y = [[Σ + [n]×, 0], [[b]×, 0]],  Σ = K·[ω]× − [ω]×·K + u·hᵀ + h·uᵀ − 2(u·h)·1 (symmetric),
 *   n = K·ω + h × u (the angular part of I·v),  b = 2·(m·u + ω × h) (twice its linear part),
 * so Y acts on the angular part of its argument alone (docs/derivatives.md). */
typedef struct {
  mbt_real s[6];   /* Σ as (xx, yy, zz, xy, xz, yz) */
  mbt_real n[3];
  mbt_real b[3];
} mbt_ymat;

/* The rows of ws->J, per velocity j, of its node's subtree: Ycᵀ·S_j (angular part; the linear
 * part is zero), Ic·S_j, Φ_j = ∂F/∂q_j, Ω_j = ∂F/∂v_j. */
enum { MBT_J_SY = 0, MBT_J_SI = 3, MBT_J_PHI = 9, MBT_J_OMEGA = 15, MBT_J_ROWS = 21 };
/* The terms of column entry j of velocity k (descendant_entries_body): q += [SY_j, SI_j]ᵀ·[W, B],
 * v += [SY_j, SI_j]ᵀ·[−S, G], with W, S, B, G k's 6-vectors (scalars, or four velocities' lanes). */
#define MBT__PAIR_COLUMN_TERMS(J, nv, j, W, S, B, G, q, v)      \
  do {                                                          \
    for (int r_ = 0; r_ < 3; ++r_) {                            \
      const mbt_real sy_ = (J)[(MBT_J_SY + r_) * (nv) + (size_t)(j)]; \
      (q) += (W)[r_] * sy_, (v) -= (S)[r_] * sy_;               \
    }                                                           \
    for (int r_ = 0; r_ < 6; ++r_) {                            \
      const mbt_real si_ = (J)[(MBT_J_SI + r_) * (nv) + (size_t)(j)]; \
      (q) += (B)[r_] * si_, (v) += (G)[r_] * si_;               \
    }                                                           \
  } while (0)

struct mbt_derivatives_workspace {
  const mbt_tree* tree;
  int nv, nl;
  bool avx2;                    /* run the AVX2/FMA kernels */
  bool avx512;                  /* and the AVX-512F copy of the passes (with avx2 alone: clearing
                                   avx2 runs the baseline everywhere) */
  bool chain;                   /* every velocity's up is the one before it: the passes write every
                                   entry of ∂tau/∂(q, v), which are then not cleared first */
  int chain_blocks;             /* on a chain, the first k from which velocities k.. run as blocks of
                                   four one-velocity nodes to the end (chain_block4 at k, k + 4, ...
                                   without its checks); nv if none */
  bool minv_ltdl;               /* M⁻¹ and v̇ by the LᵀDL factor of M, not the articulated sweeps
                                   (chosen per tree by their operation counts, derivatives.c) */
  /* per local node */
  mbt_transform* X_WM;          /* pose of the node's frame M */
  mbt_v6* V;                    /* V_WM at Wo */
  mbt_v6* A;                    /* spatial acceleration at Wo (gravity as the base's −g) */
  mbt_inertia_moments* Ib;      /* the node's own inertia about Wo, in W */
  mbt_inertia_moments* Ic;      /* composite inertia of the subtree about Wo, in W */
  mbt_ymat* Yc;                 /* composite Y of the subtree (above) */
  mbt_v6* F;                    /* net force of the subtree's bodies, at Wo */
  mbt_v6* dF;                   /* its change from v̇ = 0 to v̇ (mbt__derivatives_at_vdot) */
  /* per velocity */
  mbt_v6* S;                    /* column of the motion subspace at Wo, in W */
  mbt_v6* Wk;                   /* S_k × vλ_k */
  mbt_v6* Bk;                   /* −S_k × aλ_k + (S_k × vλ_k) × vλ_k */
  mbt_v6* Gk;                   /* (u_k + vλ_k) × S_k */
  mbt_v6* SI;                   /* Ic·S_j */
  mbt_real* J;                  /* [MBT_J_ROWS][nv] by rows (MBT_J_*), for the pairs of a velocity
                                   k with the velocities j below its node (descendant_pairs) */
  mbt_v6* U;                    /* Ia_k·S_k (mass matrix inverse) */
  mbt_real* Ia;                 /* [nv][36] articulated inertia of velocity k's virtual body */
  mbt_real* Dinv;               /* [nv] 1/(S_kᵀ·Ia_k·S_k) */
  mbt_v6* pa;                   /* [nv] bias forces, then accelerations (forward dynamics) */
  int* up;                      /* [nv] the velocity before k on the path to the root, −1 at it */
  int* end;                     /* [nv] one past the last velocity of k's subtree */
  int* node_end;                /* [nv] one past the last velocity of k's node */
  int* last;                    /* [nl] the last velocity of a node or, without any, of its nearest
                                   ancestor with one (−1: none) */
  mbt_real* PA;                 /* [nv][6][nv] forces, then accelerations (mass matrix inverse) */
  /* dense scratch */
  mbt_real *vdot, *rhs;         /* [nv] each, forward dynamics */
  mbt_real *vdot2, *rhs2;       /* [nv] each, the step */
  mbt_real *T1, *T2, *T3;       /* [nv·nv] each, forward dynamics */
  mbt_real *T4, *T5, *T6;       /* [nv·nv] each, the step */
  bool minv_dense;              /* on the LᵀDL path, the factor and M⁻¹ by dense blocks of rows (a
                                   chain long enough, with AVX2: mbt__minv_dense) */
  int* forward_steps;           /* [4·num_forward_steps] the forward step's local nodes level by
                                   level, four revolute nodes of one level at a time (none below
                                   another) or one node (the other three −1); NULL where no level
                                   has four revolute nodes (derivatives.c) */
  int num_forward_steps;
  /* The LᵀDL path (derivatives_fd.c): */
  int* root_run;                /* [nv] r where velocity k's path to the root ends by the contiguous
                                   run r − 1, ..., 1, 0 (the velocities a with up[a] = a − 1 down to
                                   0, and k's last such ancestor or k itself is r − 1); 0: none */
  int unit_run;                 /* per call: u where S_j = e_j for j < u (≤ 6: a URDF floating base) */
  bool revolute_chain;          /* every local node i ≥ 1 revolute, of one velocity, below i − 1: the
                                   ∂tau passes of a chain (chain_passes, derivatives.c) */
  int zero_rows_from;           /* the first row of ∂tau/∂(q, v) with an entry off its velocity's
                                   path (in another branch), which the passes leave to be cleared
                                   (nv if none: a chain); the rows before it they write whole */
  int legs, leg_len;            /* on the LᵀDL path, B ≥ 2 and c where the velocities [0, 6) run from
                                   the root and B ≤ 4 chains of c ≤ 4 velocities hang from velocity
                                   5 (a quadruped's legs: M⁻¹ with the legs in lanes,
                                   derivatives_legs.c); 0 and 0 otherwise */
};

/* Checks tree, context and workspace belong together (message in the context). */
int mbt__derivatives_check(const mbt_tree* tree, mbt_context* ctx, const mbt_derivatives_workspace* ws,
                           const char* what);

/* Inverse dynamics and its derivatives (derivatives.c), arguments as
 * mbt_calc_inverse_dynamics_derivatives, all checked; v (nv) may differ from the context's
 * (NULL for zero), g_W is the gravity field; joint_forces: add damping, revolute springs and
 * −tau_app. dtau_dq and dtau_dv may both be NULL (then only tau and M); tau, M may be NULL. */
void mbt__id_derivatives(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws, const mbt_real* v,
                         const mbt_real* vdot, mbt_vec3 g_W, bool joint_forces, const mbt_real* tau_app,
                         mbt_real* tau, mbt_real* dtau_dq, mbt_real* dtau_dv, mbt_real* M);

/* Forward dynamics in two steps (derivatives.c), at the context's q, v with gravity, joint
 * forces and tau_app: mbt__derivatives_bias gives tau0 = tau_ID(v̇ = 0) − tau_app (with
 * damping and springs, so M·v̇ = −tau0) and leaves the kinematics, the body inertias and the
 * composites for mbt__derivatives_at_vdot, which moves them to the given v̇ and writes
 * ∂tau/∂q and ∂tau/∂v there, as mbt__id_derivatives at that v̇. */
void mbt__derivatives_bias(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                           const mbt_real* tau_app, mbt_real* tau0);
void mbt__derivatives_at_vdot(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                              const mbt_real* vdot, const mbt_real* tau_app, mbt_real* dtau_dq, mbt_real* dtau_dv);

/* The forward pass alone, without gravity (derivatives.c): X_WM, V, A (spatial, at Wo) of every
 * local node and S, W_k, B_k, G_k of every velocity, at the context's q, v (NULL for zero) and
 * vdot (NULL for zero). */
void mbt__derivatives_kinematics(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                 const mbt_real* v, const mbt_real* vdot);

/* True when M⁻¹ and v̇ are cheaper by the LᵀDL factor of M than by the articulated sweeps on
 * ws's tree, by their operation counts (derivatives_fd.c; ws->up and ws->end set; uses ws->rhs
 * and ws->rhs2 as scratch). */
bool mbt__minv_by_ltdl(mbt_derivatives_workspace* ws);
/* True when the LᵀDL path runs by dense blocks of rows on ws's tree (derivatives_fd.c; ws->chain
 * and ws->avx2 set). */
bool mbt__minv_dense(const mbt_derivatives_workspace* ws);
/* True, with B and c in *legs and *leg_len, where ws's tree is a floating base with equal legs for
 * mbt__minv_legs (derivatives_legs.c; ws->up, minv_ltdl and minv_dense set). */
bool mbt__equal_legs(const mbt_derivatives_workspace* ws, int* legs, int* leg_len);
/* M⁻¹ into X (nv×nv) from ws->S and ws->SI (M's entries), with the legs in the lanes of 4-wide registers (ws->legs ≥ 2, AVX2, no
 * velocity locked), and unless vdot is NULL v̇ = −M⁻¹·tau0 by the factor, refined once; false at a
 * pivot that fails the LᵀDL factor's test (X then partly written). */
bool mbt__minv_legs(const mbt_derivatives_workspace* ws, mbt_real* X, const mbt_real* tau0, mbt_real* vdot);

/* Y = −Minv·X (nv×nv) for X a ∂tau_ID/∂(q, v), skipping the rows of X that are zero off the
 * root paths (derivatives_simd.c: AVX2/FMA blocks where the processor has them). */
void mbt__neg_minv_product(const mbt_derivatives_workspace* ws, const mbt_real* Minv, const mbt_real* X,
                           mbt_real* Y);
/* The same for two matrices, Y = −Minv·X and Y2 = −Minv·X2 (for 4 ≤ nv < 8 with AVX2 in one pass
 * over Minv). */
void mbt__neg_minv_products(const mbt_derivatives_workspace* ws, const mbt_real* Minv, const mbt_real* X,
                            mbt_real* Y, const mbt_real* X2, mbt_real* Y2);

/* True where mbt_calc_forward_dynamics_derivatives forms −M⁻¹·∂tau/∂(q, v) by the structured
 * products of a revolute chain (derivatives_chain_product.c): ws->revolute_chain, long enough. */
bool mbt__chain_products(const mbt_derivatives_workspace* ws);
/* mbt__derivatives_at_vdot's passes alone (derivatives.c): B_k moved to v̇ and the rows of ws->J of
 * every velocity, on a revolute chain, without the entries of ∂tau/∂(q, v); dq and dv (nv×nv) are
 * scratch. */
void mbt__derivatives_rows_at_vdot(const mbt_tree* tree, mbt_derivatives_workspace* ws, const mbt_real* vdot,
                                   mbt_real* dq, mbt_real* dv);
/* Yq = −M⁻¹·∂tau/∂q and Yv = −M⁻¹·∂tau/∂v at v̇ (with damping and springs) from the rows of
 * mbt__derivatives_rows_at_vdot, Minv symmetric (derivatives_chain_product.c; ws->T1, T2 scratch). */
void mbt__chain_neg_minv_products(const mbt_tree* tree, const mbt_context* ctx, const mbt_derivatives_workspace* ws,
                                  const mbt_real* Minv, mbt_real* Yq, mbt_real* Yv);

#ifdef MBT__AVX2
#include <immintrin.h>
/* y[r·n + j] = c[j] lane r (r, j < 4): four 4-wide columns stored as the rows of a 4×4 block, by
 * a transpose in registers (the AVX2 kernels' 4×4 transposes: M⁻¹'s mirror and S's rows in
 * derivatives_fd.c, the structured products' outputs in derivatives_chain_product.c). */
__attribute__((always_inline, target("avx2,fma"))) static inline void mbt__store_transposed4(const __m256d* c,
                                                                                            size_t n, mbt_real* y) {
  const __m256d t0 = _mm256_unpacklo_pd(c[0], c[1]), t1 = _mm256_unpackhi_pd(c[0], c[1]);
  const __m256d t2 = _mm256_unpacklo_pd(c[2], c[3]), t3 = _mm256_unpackhi_pd(c[2], c[3]);
  _mm256_storeu_pd(y, _mm256_permute2f128_pd(t0, t2, 0x20));
  _mm256_storeu_pd(y + n, _mm256_permute2f128_pd(t1, t3, 0x20));
  _mm256_storeu_pd(y + 2 * n, _mm256_permute2f128_pd(t0, t2, 0x31));
  _mm256_storeu_pd(y + 3 * n, _mm256_permute2f128_pd(t1, t3, 0x31));
}
#endif

/* ---- 6-vector algebra ------------------------------------------------------------------ */
/* Motion cross product [w; v] × [w'; v'] = [w × w'; w × v' + v × w']. */
MBT__ALWAYS_INLINE void mbt__v6_cross(const mbt_real* a, const mbt_real* b, mbt_real* c) {
  const mbt_real w0 = a[1] * b[2] - a[2] * b[1], w1 = a[2] * b[0] - a[0] * b[2], w2 = a[0] * b[1] - a[1] * b[0];
  c[3] = a[1] * b[5] - a[2] * b[4] + a[4] * b[2] - a[5] * b[1];
  c[4] = a[2] * b[3] - a[0] * b[5] + a[5] * b[0] - a[3] * b[2];
  c[5] = a[0] * b[4] - a[1] * b[3] + a[3] * b[1] - a[4] * b[0];
  c[0] = w0, c[1] = w1, c[2] = w2;
}
/* Force cross product [w; v] ×* [t; f] = [w × t + v × f; w × f]. */
MBT__ALWAYS_INLINE void mbt__v6_cross_force(const mbt_real* a, const mbt_real* b, mbt_real* c) {
  const mbt_real t0 = a[1] * b[2] - a[2] * b[1] + a[4] * b[5] - a[5] * b[4];
  const mbt_real t1 = a[2] * b[0] - a[0] * b[2] + a[5] * b[3] - a[3] * b[5];
  const mbt_real t2 = a[0] * b[1] - a[1] * b[0] + a[3] * b[4] - a[4] * b[3];
  c[3] = a[1] * b[5] - a[2] * b[4];
  c[4] = a[2] * b[3] - a[0] * b[5];
  c[5] = a[0] * b[4] - a[1] * b[3];
  c[0] = t0, c[1] = t1, c[2] = t2;
}
MBT__ALWAYS_INLINE mbt_real mbt__v6_dot(const mbt_real* a, const mbt_real* b) {
  return (a[0] * b[0] + a[3] * b[3]) + (a[1] * b[1] + a[4] * b[4]) + (a[2] * b[2] + a[5] * b[5]);
}
/* I·[w; v] = [K·w + h × v; m·v − h × w] for an inertia by its moments {m, h, K} about Wo (y may
 * be x: x is read first). */
MBT__ALWAYS_INLINE void mbt__moments_mul6(const mbt_inertia_moments* I, const mbt_real* x, mbt_real* y) {
  const mbt_real* K = I->K;
  const mbt_real* h = I->h.v;
  const mbt_real w0 = x[0], w1 = x[1], w2 = x[2], v0 = x[3], v1 = x[4], v2 = x[5];
  y[0] = K[0] * w0 + K[3] * w1 + K[4] * w2 + h[1] * v2 - h[2] * v1;
  y[1] = K[3] * w0 + K[1] * w1 + K[5] * w2 + h[2] * v0 - h[0] * v2;
  y[2] = K[4] * w0 + K[5] * w1 + K[2] * w2 + h[0] * v1 - h[1] * v0;
  y[3] = I->m * v0 - (h[1] * w2 - h[2] * w1);
  y[4] = I->m * v1 - (h[2] * w0 - h[0] * w2);
  y[5] = I->m * v2 - (h[0] * w1 - h[1] * w0);
}

/* The 6×6 matrix [[K, [h]×], [−[h]×, m·1]] of an inertia by its moments (row-major). */
MBT__ALWAYS_INLINE void mbt__moments_matrix(const mbt_inertia_moments* I, mbt_real* P) {
  const mbt_real* K = I->K;
  const mbt_real h0 = I->h.v[0], h1 = I->h.v[1], h2 = I->h.v[2], m = I->m;
  P[0] = K[0], P[1] = K[3], P[2] = K[4], P[3] = 0, P[4] = -h2, P[5] = h1;
  P[6] = K[3], P[7] = K[1], P[8] = K[5], P[9] = h2, P[10] = 0, P[11] = -h0;
  P[12] = K[4], P[13] = K[5], P[14] = K[2], P[15] = -h1, P[16] = h0, P[17] = 0;
  P[18] = 0, P[19] = h2, P[20] = -h1, P[21] = m, P[22] = 0, P[23] = 0;
  P[24] = -h2, P[25] = 0, P[26] = h0, P[27] = 0, P[28] = m, P[29] = 0;
  P[30] = h1, P[31] = -h0, P[32] = 0, P[33] = 0, P[34] = 0, P[35] = m;
}

#endif /* MBT_DERIVATIVES_INTERNAL_H */
