/* forward_dynamics.c: forward dynamics v̇ = M⁻¹·(tau_app + Σ J_WBᵀ·Fapp_Bo_W + tau_forces − C·v)
 * by the articulated-body algorithm [Featherstone 2008, §7.3] in the world frame, and through
 * the mass matrix and its sparse (tree) factorization M = Lᵀ·L [Featherstone 2008, §6.5].
 *
 * ABA in the seed's notation, per body B with parent P, quantities at Bo expressed in W:
 *   pass 1 (q only, tip to base): P_B = M_Bo_W + Σ_children Φ(p_BoCo)·Pplus_C·Φ(p_BoCo)ᵀ,
 *     U = P_B·H_PB_W, D = H_PB_Wᵀ·U = L·Lᵀ, Pplus_B = P_B − U·D⁻¹·Uᵀ;
 *   pass 2 (v, forces, tip to base): Z_B = b_Bo_W − Fapp_Bo_W + Σ_children Φ·Zplus_C,
 *     e = tau − H_PB_Wᵀ·Z_B, Zplus_B = Z_B + Pplus_B·Ab_WB + U·D⁻¹·e;
 *   pass 3 (base to tip): A⁻ = Φᵀ(p_PoBo)·A_WP + Ab_WB, v̇_B = D⁻¹·(e − Uᵀ·A⁻),
 *     A_WB = A⁻ + H_PB_W·v̇_B;
 * where Φ(p) = [[I, [p]ₓ], [0, I]] shifts a spatial force from Co to Bo (tau += p × f),
 * Φᵀ shifts a rigid acceleration from Po to Bo (a += alpha × p), b_Bo_W = [w × I_Bo·w;
 * m·w × (w × p_BoBcm)] is the gyroscopic force and Ab_WB = A_WB − Φᵀ·A_WP − H_PB_W·v̇_B the
 * velocity-dependent acceleration bias. When q changed, passes 1 and 2 run in one sweep.
 * Only the poses (X_WB, p_PoBo_W, R_WF) come from
 * the kinematics caches; H_PB_W, M_Bo_W, V_WB and V_PB_W are computed here, where used.
 * A locked mobilizer, or a weld, has no columns: Pplus_B = P_B, Zplus_B = Z_B + P_B·Ab_WB,
 * v̇_B = 0. Bodies with no free mobilizer on their path to the world never move relative to
 * it and take no part in passes 1 and 2.
 *
 * Force elements enter through Fapp and tau (mbt__calc_force_elements), except when uniform
 * gravity is the only one and no joint is damped: then the world is given the acceleration
 * A_W0 = [0; −g] instead, which yields the same v̇ [Featherstone 2008, §5.3 / §7.3]. */
#include "algorithms/algorithms_internal.h"
#include "algorithms/cholesky_internal.h"
#include "mobilizers/mobilizer_kernels.h"

typedef mbt_aba_sym3 sym3;
typedef mbt_aba_inertia abi;
typedef mbt_aba_rigid_inertia rigid;

enum {
  MBT__ABA_FREE = 1,        /* the inboard mobilizer has unlocked columns */
  MBT__ABA_ARTICULATED = 2, /* this body or an ancestor has a free mobilizer */
};

/* ---- 3×3 blocks ----------------------------------------------------------------------------- */
static inline mbt_vec3 sym3_mul(const sym3* S, mbt_vec3 x) {
  return mbt_vec3_make(S->xx * x.v[0] + S->xy * x.v[1] + S->xz * x.v[2],
                       S->xy * x.v[0] + S->yy * x.v[1] + S->yz * x.v[2],
                       S->xz * x.v[0] + S->yz * x.v[1] + S->zz * x.v[2]);
}
/* S += x·yᵀ + y·xᵀ + s·I (symmetric). */
static inline void sym3_add_sym_outer(sym3* S, mbt_vec3 x, mbt_vec3 y, mbt_real s) {
  S->xx += 2 * x.v[0] * y.v[0] + s;
  S->yy += 2 * x.v[1] * y.v[1] + s;
  S->zz += 2 * x.v[2] * y.v[2] + s;
  S->xy += x.v[0] * y.v[1] + y.v[0] * x.v[1];
  S->xz += x.v[0] * y.v[2] + y.v[0] * x.v[2];
  S->yz += x.v[1] * y.v[2] + y.v[1] * x.v[2];
}
static inline mbt_vec3 mat3_row(const mbt_mat3* B, int i) {
  return mbt_vec3_make(B->m[i][0], B->m[i][1], B->m[i][2]);
}

/* ---- rigid inertias by moments ---------------------------------------------------------------- */
/* M_Bo_W by moments from the body's M_BBo_B and R_WB: K = m·R·G·Rᵀ (the six entries
 * (A·Rᵀ)ᵢⱼ, i <= j, with A = R·G), h = m·R·p_BoBcm_B. */
static void rigid_from_body_inertia(const mbt_spatial_inertia* M_B, const mbt_mat3* R, rigid* I) {
  const mbt_unit_inertia* G = &M_B->G_SP_E;
  const mbt_real g[3][3] = {{G->xx, G->xy, G->xz}, {G->xy, G->yy, G->yz}, {G->xz, G->yz, G->zz}};
  mbt_real A[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A[i][j] = R->m[i][0] * g[0][j] + R->m[i][1] * g[1][j] + R->m[i][2] * g[2][j];
#define MBT__ARt(i, j) (m * (A[i][0] * R->m[j][0] + A[i][1] * R->m[j][1] + A[i][2] * R->m[j][2]))
  const mbt_real m = M_B->mass;
  I->K = (sym3){MBT__ARt(0, 0), MBT__ARt(1, 1), MBT__ARt(2, 2), MBT__ARt(0, 1), MBT__ARt(0, 2), MBT__ARt(1, 2)};
#undef MBT__ARt
  I->h = mbt_vec3_scale(mbt_mat3_mul_vec(R, M_B->p_PScm_E), m);
  I->m = m;
}

/* I_Po += I_Co shifted by p = p_PoCo (parallel-axis theorem on the moments):
 *   m' = m, h' = h + m·p, K' = K − [p]ₓ[h]ₓ − [h]ₓ[p]ₓ − m·[p]ₓ[p]ₓ
 *      = K + 2·(p·g)·I − (g·pᵀ + p·gᵀ) with g = h + m·p/2. */
static inline void rigid_add_shifted(rigid* I_Po, const rigid* I_Co, mbt_vec3 p) {
  const mbt_vec3 g = mbt_vec3_axpy(I_Co->h, 0.5 * I_Co->m, p);
  sym3* K = &I_Po->K;
  K->xx += I_Co->K.xx;
  K->yy += I_Co->K.yy;
  K->zz += I_Co->K.zz;
  K->xy += I_Co->K.xy;
  K->xz += I_Co->K.xz;
  K->yz += I_Co->K.yz;
  sym3_add_sym_outer(K, mbt_vec3_neg(g), p, 2 * mbt_vec3_dot(p, g));
  I_Po->h = mbt_vec3_add(I_Po->h, mbt_vec3_axpy(I_Co->h, I_Co->m, p));
  I_Po->m += I_Co->m;
}

/* hᵀ·Ic·h = w·K·w + 2·v·(w × h_Ic) + m·v·v for h = [w; v]: the scale of D's pivot
 * (D = Hᵀ·P·H <= Hᵀ·Ic·H, the articulated inertia is bounded by the composite rigid-body
 * inertia Ic of the subtree). */
static mbt_real rigid_quadratic_form(const rigid* Ic, const mbt_spatial_velocity* h) {
  return mbt_vec3_dot(h->w, sym3_mul(&Ic->K, h->w)) + 2 * mbt_vec3_dot(h->v, mbt_vec3_cross(h->w, Ic->h)) +
         Ic->m * mbt_vec3_dot(h->v, h->v);
}

/* The same bound's ingredients, shifted like rigid_add_shifted: m' = m, h' = h + m·p,
 * tr K' = tr K + 4·p·g with g = h + m·p/2. */
static inline void bound_from_rigid(const rigid* I, mbt_aba_composite_bound* b) {
  b->m = I->m;
  b->h = I->h;
  b->trK = I->K.xx + I->K.yy + I->K.zz;
}
static inline void bound_add_shifted(mbt_aba_composite_bound* b_Po, const mbt_aba_composite_bound* b_Co,
                                     mbt_vec3 p) {
  const mbt_vec3 g = mbt_vec3_axpy(b_Co->h, 0.5 * b_Co->m, p);
  b_Po->trK += b_Co->trK + 4 * mbt_vec3_dot(p, g);
  b_Po->h = mbt_vec3_add(b_Po->h, mbt_vec3_axpy(b_Co->h, b_Co->m, p));
  b_Po->m += b_Co->m;
}
/* hᵀ·Ic·h <= tr K·|w|² + 2·|v|·|w × h_Ic| + m·|v|² (K is positive semi-definite). */
static inline mbt_real bound_quadratic_form(const mbt_aba_composite_bound* b, const mbt_spatial_velocity* h) {
  const mbt_vec3 wh = mbt_vec3_cross(h->w, b->h);
  const mbt_real vv = mbt_vec3_dot(h->v, h->v);
  return b->trK * mbt_vec3_dot(h->w, h->w) + 2 * mbt_sqrt(vv * mbt_vec3_dot(wh, wh)) + b->m * vv;
}

/* hᵀ·Ic·h exactly, Ic the composite of the subtree of `node` about Bo, summed from the bodies
 * (only when a pivot fails the bound's test). */
static mbt_real exact_pivot_scale(const mbt_tree* tree, const mbt_context* ctx, int node,
                                  const mbt_spatial_velocity* h) {
  const mbt_transform* X_WB = ctx->pc.X_WB;
  rigid Ic = ctx->aba.M_Bo_W[node];
  for (int c = node + 1; c < tree->nodes[node].subtree_end; ++c)
    rigid_add_shifted(&Ic, &ctx->aba.M_Bo_W[c], mbt_vec3_sub(X_WB[c].p, X_WB[node].p));
  return rigid_quadratic_form(&Ic, h);
}

static inline bool pivot_is_regular(mbt_real d, mbt_real scale) {
  return mbt_lt(MBT__CHOLESKY_RTOL * scale, d) && mbt_isfinite(d);
}

/* ---- articulated inertias by blocks ------------------------------------------------------------ */
/* P = the rigid inertia as a 6×6 matrix: A = K, B = [h]ₓ, C = m·I. */
static inline void abi_set_rigid(abi* P, const rigid* I) {
  const mbt_real hx = I->h.v[0], hy = I->h.v[1], hz = I->h.v[2];
  P->A = I->K;
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

/* P_Po += Φ(p)·P_Co·Φ(p)ᵀ with p = p_PoCo, by blocks:
 *   C' = C,  B' = B + [p]ₓ·C,  A' = A + [p]ₓ·Bᵀ + B'·[p]ₓᵀ,
 * where column j of [p]ₓ·C is p × C_j, column j of [p]ₓ·Bᵀ is p × (row j of B) and row i of
 * B'·[p]ₓᵀ is p × (row i of B'). */
static void abi_add_shifted(abi* P_Po, const abi* P_Co, mbt_vec3 p) {
  const sym3* C = &P_Co->C;
  const mbt_vec3 pC[3] = {mbt_vec3_cross(p, mbt_vec3_make(C->xx, C->xy, C->xz)),
                          mbt_vec3_cross(p, mbt_vec3_make(C->xy, C->yy, C->yz)),
                          mbt_vec3_cross(p, mbt_vec3_make(C->xz, C->yz, C->zz))};
  mbt_mat3 Bp;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Bp.m[i][j] = P_Co->B.m[i][j] + pC[j].v[i];
  const mbt_vec3 x[3] = {mbt_vec3_cross(p, mat3_row(&P_Co->B, 0)), mbt_vec3_cross(p, mat3_row(&P_Co->B, 1)),
                         mbt_vec3_cross(p, mat3_row(&P_Co->B, 2))};
  const mbt_vec3 y[3] = {mbt_vec3_cross(p, mat3_row(&Bp, 0)), mbt_vec3_cross(p, mat3_row(&Bp, 1)),
                         mbt_vec3_cross(p, mat3_row(&Bp, 2))};
  /* A'_ij = A_ij + x_j[i] + y_i[j] */
  sym3* A = &P_Po->A;
  A->xx += P_Co->A.xx + x[0].v[0] + y[0].v[0];
  A->yy += P_Co->A.yy + x[1].v[1] + y[1].v[1];
  A->zz += P_Co->A.zz + x[2].v[2] + y[2].v[2];
  A->xy += P_Co->A.xy + x[1].v[0] + y[0].v[1];
  A->xz += P_Co->A.xz + x[2].v[0] + y[0].v[2];
  A->yz += P_Co->A.yz + x[2].v[1] + y[1].v[2];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) P_Po->B.m[i][j] += Bp.m[i][j];
  P_Po->C.xx += C->xx, P_Po->C.yy += C->yy, P_Po->C.zz += C->zz;
  P_Po->C.xy += C->xy, P_Po->C.xz += C->xz, P_Po->C.yz += C->yz;
}

static inline bool node_is_locked(const mbt_context* ctx, const mbt_node* n) {
  return ctx->any_locked && n->nv > 0 && ctx->v_locked[n->v_start];
}

/* The q-dependent ABA cache also depends on which joints are locked. */
static bool aba_locks_match(const mbt_tree* tree, const mbt_context* ctx) {
  if (!ctx->any_locked && !ctx->aba.factored_with_locks) return true;
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    if (n->nv > 0 && node_is_locked(ctx, n) == ((ctx->aba.flags[node] & MBT__ABA_FREE) != 0)) return false;
  }
  return true;
}

static int singular_error(const mbt_tree* tree, mbt_context* ctx, const mbt_node* n, mbt_real pivot,
                          mbt_real scale) {
  return mbt__context_error(ctx, MBT_ERR_SINGULAR,
                            "body '%s': articulated inertia is singular across mobilizer '%s' "
                            "(pivot %.3g <= %.0e x %.3g): forward dynamics is undefined (a body "
                            "without mass or inertia at the end of a joint?)",
                            tree->bodies[n->body].name, tree->mobilizers[n->mobilizer].name,
                            mbt_value(pivot), MBT__CHOLESKY_RTOL, mbt_value(scale));
}

/* True when the uniform gravity (the context's g_W) is the only force element with an effect
 * and no joint is damped: then gravity enters as the world's acceleration −g. */
static bool gravity_is_the_only_force(const mbt_tree* tree, const mbt_context* ctx, mbt_vec3* g_W) {
  for (int e = 0; e < tree->num_forces; ++e) {
    const mbt_force_element* fe = &tree->forces[e];
    if (fe->type != MBT_FORCE_UNIFORM_GRAVITY && !(fe->type == MBT_FORCE_USER && !fe->u.user.fn)) return false;
  }
  for (int k = 0; k < tree->nv; ++k)
    if (ctx->damping[k] != 0) return false;
  *g_W = ctx->g_W;
  return true;
}

/* H_PB_W of one node (kinematics.c, mbt__calc_H_PB_W) from the poses; the universal
 * mobilizer's H_FM(q) is evaluated here, the other types' H_FM are constant (ctx->pc.H_FM). */
static void calc_H_PB_W(const mbt_context* ctx, const mbt_node* n, int node, mbt_spatial_velocity* H) {
  mbt_spatial_velocity H_universal[2];
  const mbt_spatial_velocity* H_FM = &ctx->pc.H_FM[n->v_start];
  if (n->type == MBT_MOBILIZER_UNIVERSAL) {
    mbt__mob_calc_H_FM(n, ctx->q + n->q_start, H_universal);
    H_FM = H_universal;
  }
  mbt__calc_H_PB_W(n, &ctx->pc.R_WF[node], &ctx->pc.X_WB[node].R, H_FM, H);
}

/* Pass 1 at one node: U = P·H, D = Hᵀ·U = L·Lᵀ with pivots checked against Hᵀ·Ic·H (first
 * against its cheap upper bound), then Pplus = P − U·D⁻¹·Uᵀ in place of P. One column:
 * Pplus = P − u·uᵀ/d; nv columns: Pplus = P − Σ_k y_k·y_kᵀ with Y = L⁻¹·Uᵀ; six (H
 * invertible): Pplus = 0. */
static int project_articulated_inertia(const mbt_tree* tree, mbt_context* ctx, const mbt_node* n, int node) {
  mbt_aba_cache* aba = &ctx->aba;
  abi* P = &aba->P_B_W[node];
  const mbt_aba_composite_bound* Ic = &aba->Ic_B_W[node];
  const int nv = n->nv;
  const mbt_spatial_velocity* H = &aba->H_PB_W[n->v_start];
  mbt_spatial_force* U = &aba->U_W[n->v_start];
  if (nv == 1) {
    abi_mul(P, H->coeffs, U->coeffs);
    const mbt_real d = mbt__spatial_dot(H->coeffs, U->coeffs);
    if (!pivot_is_regular(d, bound_quadratic_form(Ic, H))) {
      const mbt_real scale = exact_pivot_scale(tree, ctx, node, H);
      if (!pivot_is_regular(d, scale)) return singular_error(tree, ctx, n, d, scale);
    }
    const mbt_real dinv = 1 / d;
    aba->D_inv[n->v_start] = dinv;
    mbt_real u_d[6];
    for (int i = 0; i < 6; ++i) u_d[i] = U->coeffs[i] * dinv;
    abi_sub_rank1(P, u_d, U->coeffs);
    return MBT_OK;
  }
  mbt_real* L = aba->D_LLT + 6 * n->v_start;
  mbt_real scale[6];
  for (int k = 0; k < nv; ++k) {
    abi_mul(P, H[k].coeffs, U[k].coeffs);
    scale[k] = bound_quadratic_form(Ic, &H[k]);
  }
  int row = 0;
  for (int exact = 0; exact < 2; ++exact) {
    for (int i = 0; i < nv; ++i)
      for (int j = 0; j <= i; ++j) L[i * nv + j] = mbt__spatial_dot(H[i].coeffs, U[j].coeffs);
    if (mbt__cholesky_factor_ex(L, nv, nv, scale, &row) == MBT_OK) break;
    if (exact) {
      mbt_real d = L[row * nv + row];
      for (int k = 0; k < row; ++k) d -= L[row * nv + k] * L[row * nv + k];
      return singular_error(tree, ctx, n, d, scale[row]);
    }
    for (int k = 0; k < nv; ++k) scale[k] = exact_pivot_scale(tree, ctx, node, &H[k]);
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
      for (int j = 0; j < k; ++j) s -= L[k * nv + j] * Y[j][c];
      Y[k][c] = s / L[k * nv + k];
    }
  for (int k = 0; k < nv; ++k) abi_sub_rank1(P, Y[k], Y[k]);
  return MBT_OK;
}

/* x = D⁻¹·x for the node's D. */
static inline void solve_D(const mbt_aba_cache* aba, const mbt_node* n, mbt_real* x) {
  if (n->nv == 1) x[0] *= aba->D_inv[n->v_start];
  else mbt__cholesky_solve_ex(aba->D_LLT + 6 * n->v_start, n->nv, n->nv, x);
}

static int calc_aba(const mbt_tree* tree, mbt_context* ctx, const mbt_real* tau_applied,
                    const mbt_spatial_force* Fapp_Bo_W, mbt_real* vdot) {
  const mbt_position_cache* pc = &ctx->pc;
  mbt_aba_cache* aba = &ctx->aba;
  const int nn = tree->num_nodes;
  const bool factor = !ctx->aba_position_valid || !aba_locks_match(tree, ctx);
  mbt_vec3 g_W = mbt_vec3_zero();
  const bool gravity_as_acceleration = gravity_is_the_only_force(tree, ctx, &g_W);
  const mbt_multibody_forces* forces = NULL;
  if (!gravity_as_acceleration) {
    const int st = mbt__calc_force_elements(tree, ctx, ctx->forces);
    if (st) return st;
    forces = ctx->forces;
  }
  unsigned char* flags = aba->flags;
  mbt__ensure_poses(tree, ctx);

  /* Base to tip, from the poses X_WB, p_PoBo_W, R_WF and v:
   *   when q changed: flags, H_PB_W, M_Bo_W = R_WB·M_BBo_B, P_B = M_Bo_W and the bound of
   *   Ic_B (pass 1);
   *   V_PB = H_PB_W·v_B, w_WB = w_WP + w_PB, v_WBo = v_WPo + w_WP × p_PoBo + v_PB (seed
   *   CalcVelocityKinematicsCache), kept in A_WB's storage until pass 3;
   *   Ab_WB = A_PB_W bias + [w_WP × w_PB; w_WP × (w_WP × p_PoBo) + 2·w_WP × v_PB] (Drake's
   *   ComposeWithMovingFrameAcceleration with v̇ = 0 and A_WP = 0);
   *   Z_B = b_Bo_W − Fapp_Bo_W − F_forces, b_Bo_W = [w × (K·w); w × (w × h)]. */
  if (factor) {
    ctx->aba_position_valid = false; /* until pass 1 completes */
    flags[0] = 0;
    aba->factored_with_locks = ctx->any_locked;
  }
  mbt_spatial_acceleration* V_WB = aba->A_WB; /* [w_WB; v_WBo] */
  V_WB[0].alpha = V_WB[0].a = mbt_vec3_zero();
  for (int node = 1; node < nn; ++node) {
    const mbt_node* n = &tree->nodes[node];
    const int nv = n->nv;
    mbt_spatial_velocity* H = &aba->H_PB_W[n->v_start];
    rigid* M = &aba->M_Bo_W[node];
    if (factor) {
      calc_H_PB_W(ctx, n, node, H);
      const unsigned char free = (nv > 0 && !node_is_locked(ctx, n)) ? MBT__ABA_FREE : 0;
      flags[node] = free | ((free || (flags[n->parent_node] & MBT__ABA_ARTICULATED)) ? MBT__ABA_ARTICULATED : 0);
      if (flags[node] & MBT__ABA_ARTICULATED) {
        rigid_from_body_inertia(&ctx->M_BBo_B[node], &pc->X_WB[node].R, M);
        abi_set_rigid(&aba->P_B_W[node], M);
        bound_from_rigid(M, &aba->Ic_B_W[node]);
      }
    }
    const mbt_real* vb = ctx->v + n->v_start;
    mbt_vec3 w_PB = mbt_vec3_zero(), v_PB = mbt_vec3_zero();
    for (int k = 0; k < nv; ++k) {
      w_PB = mbt_vec3_axpy(w_PB, vb[k], H[k].w);
      v_PB = mbt_vec3_axpy(v_PB, vb[k], H[k].v);
    }
    const mbt_vec3 w_WP = V_WB[n->parent_node].alpha, p = pc->p_PoBo_W[node];
    const mbt_vec3 w = mbt_vec3_add(w_WP, w_PB);
    V_WB[node].alpha = w;
    V_WB[node].a = mbt_vec3_add(mbt_vec3_add(V_WB[n->parent_node].a, mbt_vec3_cross(w_WP, p)), v_PB);
    mbt_spatial_acceleration* Ab = &aba->Ab_WB[node];
    if (!n->X_MB_is_identity || n->type == MBT_MOBILIZER_UNIVERSAL) {
      mbt__calc_A_PB_W_bias(ctx, n, node, w_PB, Ab);
    } else {
      Ab->alpha = mbt_vec3_zero();
      Ab->a = mbt_vec3_zero();
    }
    Ab->alpha = mbt_vec3_add(Ab->alpha, mbt_vec3_cross(w_WP, w_PB));
    Ab->a = mbt_vec3_add(Ab->a, mbt_vec3_cross(w_WP, mbt_vec3_axpy(mbt_vec3_cross(w_WP, p), 2, v_PB)));
    if (!(flags[node] & MBT__ABA_ARTICULATED)) continue;
    mbt_spatial_force* Z = &aba->Z_Bo_W[node];
    Z->tau = mbt_vec3_cross(w, sym3_mul(&M->K, w));
    Z->f = mbt_vec3_cross(w, mbt_vec3_cross(w, M->h));
    if (forces)
      for (int i = 0; i < 6; ++i) Z->coeffs[i] -= forces->F_BBo_W[node].coeffs[i];
    if (Fapp_Bo_W)
      for (int i = 0; i < 6; ++i) Z->coeffs[i] -= Fapp_Bo_W[node].coeffs[i];
  }

  /* Tip to base: pass 1 (when q changed) and pass 2, e = tau − Hᵀ·Z,
   * Zplus = Z + Pplus·Ab + U·D⁻¹·e, each added into the parent's P and Z. */
  for (int node = nn - 1; node > 0; --node) {
    if (!(flags[node] & MBT__ABA_ARTICULATED)) continue;
    const mbt_node* n = &tree->nodes[node];
    const bool free = flags[node] & MBT__ABA_FREE;
    const bool to_parent = flags[n->parent_node] & MBT__ABA_ARTICULATED;
    const mbt_vec3 p = pc->p_PoBo_W[node];
    if (factor) {
      if (free) {
        const int st = project_articulated_inertia(tree, ctx, n, node);
        if (st) return st;
      }
      if (to_parent) {
        abi_add_shifted(&aba->P_B_W[n->parent_node], &aba->P_B_W[node], p);
        bound_add_shifted(&aba->Ic_B_W[n->parent_node], &aba->Ic_B_W[node], p);
      }
    }
    mbt_spatial_force* Z = &aba->Z_Bo_W[node];
    mbt_real PAb[6];
    abi_mul(&aba->P_B_W[node], aba->Ab_WB[node].coeffs, PAb);
    if (free) {
      const int nv = n->nv;
      const mbt_spatial_velocity* H = &aba->H_PB_W[n->v_start];
      const mbt_spatial_force* U = &aba->U_W[n->v_start];
      mbt_real* e = aba->e + n->v_start;
      mbt_real x[6];
      for (int k = 0; k < nv; ++k) {
        const int dof = n->v_start + k;
        e[k] = (forces ? forces->tau[dof] : 0) + (tau_applied ? tau_applied[dof] : 0) -
               mbt__spatial_dot(H[k].coeffs, Z->coeffs);
        x[k] = e[k];
      }
      solve_D(aba, n, x);
      for (int k = 0; k < nv; ++k)
        for (int i = 0; i < 6; ++i) PAb[i] += U[k].coeffs[i] * x[k];
    }
    for (int i = 0; i < 6; ++i) Z->coeffs[i] += PAb[i];
    if (to_parent) mbt__spatial_force_add_shifted(&aba->Z_Bo_W[n->parent_node], Z, p);
  }
  if (factor) ctx->aba_position_valid = true;

  /* Pass 3, base to tip: A⁻ = Φᵀ·A_WP + Ab, v̇ = D⁻¹·(e − Uᵀ·A⁻), A_WB = A⁻ + H·v̇. */
  aba->A_WB[0].alpha = mbt_vec3_zero();
  aba->A_WB[0].a = gravity_as_acceleration ? mbt_vec3_neg(g_W) : mbt_vec3_zero();
  for (int node = 1; node < nn; ++node) {
    const mbt_node* n = &tree->nodes[node];
    const mbt_spatial_acceleration* A_WP = &aba->A_WB[n->parent_node];
    const mbt_spatial_acceleration* Ab = &aba->Ab_WB[node];
    mbt_spatial_acceleration* A = &aba->A_WB[node];
    A->alpha = mbt_vec3_add(A_WP->alpha, Ab->alpha);
    A->a = mbt_vec3_add(mbt_vec3_add(A_WP->a, mbt_vec3_cross(A_WP->alpha, pc->p_PoBo_W[node])), Ab->a);
    const int nv = n->nv;
    if (nv == 0) continue;
    mbt_real* vd = vdot + n->v_start;
    if (!(flags[node] & MBT__ABA_FREE)) {
      for (int k = 0; k < nv; ++k) vd[k] = 0;
      continue;
    }
    const mbt_spatial_velocity* H = &aba->H_PB_W[n->v_start];
    const mbt_spatial_force* U = &aba->U_W[n->v_start];
    const mbt_real* e = aba->e + n->v_start;
    mbt_real x[6];
    for (int k = 0; k < nv; ++k) x[k] = e[k] - mbt__spatial_dot(U[k].coeffs, A->coeffs);
    solve_D(aba, n, x);
    for (int k = 0; k < nv; ++k) {
      vd[k] = x[k];
      for (int i = 0; i < 6; ++i) A->coeffs[i] += H[k].coeffs[i] * x[k];
    }
  }
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
/* M = Lᵀ·L in place (lower triangle) for a tree [Featherstone 2008, §6.5, Table 6.3]: with
 * λ(k) the parent dof of dof k (λ(k) < k), M_ij ≠ 0 only when i is an ancestor of j or j of
 * i, and so is L: no fill-in, O(nv·d²) for depth d. For k = nv−1 down to 0:
 *   L_kk = sqrt(M_kk),  L_ki = M_ki/L_kk for i ∈ ancestors(k),
 *   M_ij −= L_ki·L_kj for i ∈ ancestors(k), j ∈ ancestors(i) ∪ {i}.
 * Locked dofs are left out: λ skips them. The pivot of dof k is singular when
 * <= MBT__CHOLESKY_RTOL·M_kk (the diagonal before factoring, in M_diag). Returns the failing
 * dof, or −1. */
static int tree_ltl_factor(const mbt_tree* tree, mbt_context* ctx, mbt_real* M) {
  const int nv = tree->nv;
  const int* lambda = ctx->aba.dof_parent;
  for (int k = nv - 1; k >= 0; --k) {
    if (ctx->any_locked && ctx->v_locked[k]) continue;
    mbt_real* Lk = M + (size_t)k * (size_t)nv;
    const mbt_real d = Lk[k];
    if (!(mbt_lt(MBT__CHOLESKY_RTOL * mbt_abs(ctx->aba.M_diag[k]), d) && mbt_isfinite(d))) return k;
    Lk[k] = mbt_sqrt(d);
    const mbt_real inv = 1 / Lk[k];
    for (int i = lambda[k]; i >= 0; i = lambda[i]) Lk[i] *= inv;
    for (int i = lambda[k]; i >= 0; i = lambda[i]) {
      mbt_real* Mi = M + (size_t)i * (size_t)nv;
      const mbt_real l = Lk[i];
      for (int j = i; j >= 0; j = lambda[j]) Mi[j] -= l * Lk[j];
    }
  }
  return -1;
}

/* Lᵀ·L·x = b in place [Featherstone 2008, Table 6.4]: Lᵀ·y = b for k = nv−1 down to 0, then
 * L·x = y for k = 0 up. */
static void tree_ltl_solve(const mbt_tree* tree, const mbt_context* ctx, const mbt_real* L, mbt_real* x) {
  const int nv = tree->nv;
  const int* lambda = ctx->aba.dof_parent;
  for (int k = nv - 1; k >= 0; --k) {
    if (ctx->any_locked && ctx->v_locked[k]) continue;
    const mbt_real* Lk = L + (size_t)k * (size_t)nv;
    x[k] /= Lk[k];
    for (int i = lambda[k]; i >= 0; i = lambda[i]) x[i] -= Lk[i] * x[k];
  }
  for (int k = 0; k < nv; ++k) {
    if (ctx->any_locked && ctx->v_locked[k]) continue;
    const mbt_real* Lk = L + (size_t)k * (size_t)nv;
    mbt_real s = x[k];
    for (int i = lambda[k]; i >= 0; i = lambda[i]) s -= Lk[i] * x[i];
    x[k] = s / Lk[k];
  }
}

/* λ(k) over the unlocked dofs: the previous dof of the same mobilizer, else the last
 * unlocked dof of the nearest ancestor that has one. */
static void calc_dof_parents(const mbt_tree* tree, mbt_context* ctx) {
  int* last = ctx->aba.node_last_dof;
  int* lambda = ctx->aba.dof_parent;
  last[0] = -1;
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    int above = last[n->parent_node];
    if (n->nv > 0 && !node_is_locked(ctx, n))
      for (int k = 0; k < n->nv; ++k) {
        lambda[n->v_start + k] = above;
        above = n->v_start + k;
      }
    last[node] = above;
  }
}

/* M·v̇ = rhs with rhs = −ID(v̇ = 0, Fapp + F_forces, tau_app + tau_forces) = tau_app + tau_forces
 * + Σ J_WBᵀ·(Fapp + F_forces) − C·v; M by the composite-rigid-body algorithm in scratch_nvnv,
 * factored in place. Locked dofs: v̇_locked = 0, their rows and columns are left out. */
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
  /* Combined applied forces in the ABA cache's Z and e (not used by the other algorithms). */
  mbt_spatial_force* F = ctx->aba.Z_Bo_W;
  mbt_real* rhs = ctx->aba.e;
  for (int node = 0; node < nn; ++node)
    for (int i = 0; i < 6; ++i)
      F[node].coeffs[i] = ctx->forces->F_BBo_W[node].coeffs[i] + (Fapp_Bo_W_array ? Fapp_Bo_W_array[node].coeffs[i] : 0);
  for (int k = 0; k < nv; ++k) rhs[k] = ctx->forces->tau[k] + (tau_applied ? tau_applied[k] : 0);
  mbt__inverse_dynamics(tree, ctx, true, NULL, F, rhs, ctx->aba.A_WB, F, rhs);
  for (int k = 0; k < nv; ++k) rhs[k] = -rhs[k];

  mbt_real* M = ctx->scratch_nvnv;
  st = mbt_calc_mass_matrix(tree, ctx, M);
  if (st) return st;
  calc_dof_parents(tree, ctx);
  for (int k = 0; k < nv; ++k) ctx->aba.M_diag[k] = M[(size_t)k * (size_t)nv + (size_t)k];
  const int dof = tree_ltl_factor(tree, ctx, M);
  if (dof >= 0) {
    const mbt_node* n = &tree->nodes[tree->v_node[dof]];
    return mbt__context_error(ctx, MBT_ERR_SINGULAR,
                              "body '%s': mass matrix is singular at velocity %d (mobilizer '%s'): "
                              "forward dynamics is undefined (a body without mass or inertia at the "
                              "end of a joint?)",
                              tree->bodies[n->body].name, dof, tree->mobilizers[n->mobilizer].name);
  }
  tree_ltl_solve(tree, ctx, M, rhs);
  for (int k = 0; k < nv; ++k) vdot[k] = (ctx->any_locked && ctx->v_locked[k]) ? 0 : rhs[k];
  return MBT_OK;
}
