/* derivatives.c: ∂tau/∂q, ∂tau/∂v and M of inverse dynamics in one pass, by the recursions
 * of Carpentier & Mansard ("Analytical derivatives of rigid body dynamics algorithms", RSS
 * 2018) in world coordinates, generalized to mobilizers whose columns move with their own
 * coordinates (docs/derivatives.md derives every formula used here).
 *
 * Per velocity k of local node i (λ: i's moving ancestor), with S_k the column at Wo in W:
 *   d/dε S_j(q ⊕ ε·e_k) = σ_jk·S_k × S_j for j in i (σ: moves_with), S_k × S_j below i;
 *   u_k  = v_λ + Σ_{m∈i} σ_km·S_m·v_m  (so Ṡ_k = u_k × S_k);
 *   vλ_k = v_λ + Σ_{m∈i, σ_mk=0} S_m·v_m,  aλ_k = a_λ + Σ_{m∈i, σ_mk=0} (S_m·v̇_m + u_m × S_m·v_m);
 *   then for every body l at or below i:
 *   ∂v_l/∂q_k = S_k × v_l − W_k,           W_k = S_k × vλ_k,
 *   ∂a_l/∂q_k = S_k × a_l − W_k × v_l + B_k, B_k = −S_k × aλ_k + W_k × vλ_k,
 *   ∂v_l/∂v_k = S_k,  ∂a_l/∂v_k = S_k × v_l + G_k,  G_k = (u_k + vλ_k) × S_k,
 *   ∂f_l/∂q_k = S_k ×* f_l + Y_l·W_k + I_l·B_k,  ∂f_l/∂v_k = −Y_l·S_k + I_l·G_k,
 * with f_l = I_l·a_l + v_l ×* I_l·v_l and Y_l = I_l·(v_l×) − (I_l·v_l)×̄* − v_l×*·I_l
 * (x ×̄* h = x ×* h as a map of x). Summed over a subtree they need only its composite
 * Ic = Σ I_l, Yc = Σ Y_l and F = Σ f_l (all at Wo in W: no shifting). */
#include <stdlib.h>
#include <string.h>
#include "algorithms/derivatives_internal.h"
#include "algorithms/derivatives_lanes.h"
#include "mobilizers/mobilizer_types.h"

/* σ_jk: 1 when column j of a mobilizer (at Wo in W) turns with the mobilizer's own coordinate
 * k, d/dε S_j(q ⊕ ε·e_k) = S_k × S_j; 0 when it stays put. Columns are fixed in F except the
 * rotational columns of the planar and quaternion-floating mobilizers, taken at Mo, which
 * move with the translations, and the universal's second axis Rx(q0)·ŷ. SpaceXYZ (v = w_FM_F,
 * Mo = Fo) has none. */
static inline bool moves_with(mbt_mobilizer_type type, int j, int k) {
  switch (type) {
    case MBT_MOBILIZER_UNIVERSAL: return j == 1 && k == 0;
    case MBT_MOBILIZER_PLANAR: return j == 2 && k < 2;
    case MBT_MOBILIZER_QUATERNION_FLOATING: return j < 3 && k >= 3;
    default: return false;
  }
}

void mbt_derivatives_workspace_destroy(mbt_derivatives_workspace* ws) {
  if (!ws) return;
  free(ws->X_WM);
  free(ws->S);
  free(ws->vdot);
  free(ws->forward_steps);
  free(ws->root_run);
  free(ws);
}

/* up[k], end[k] and node_end[k] of every velocity: the velocities of a node are a chain of virtual one-dof
 * joints (the node's body on the last), and in depth-first order a subtree's velocities are
 * contiguous. */
static void velocity_tree(const mbt_tree* tree, mbt_derivatives_workspace* ws, int* last, int* end_v) {
  last[0] = -1;
  for (int i = 1; i < ws->nl; ++i) {
    const mbt_local_node* L = &tree->local_nodes[i];
    last[i] = L->nv > 0 ? L->v_start + L->nv - 1 : last[L->parent];
    end_v[i] = L->v_start + L->nv;
    for (int j = 0; j < L->nv; ++j) ws->up[L->v_start + j] = j == 0 ? last[L->parent] : L->v_start + j - 1;
  }
  for (int i = ws->nl - 1; i > 1; --i) {
    const int p = tree->local_nodes[i].parent;
    if (p > 0 && end_v[i] > end_v[p]) end_v[p] = end_v[i];
  }
  for (int i = 1; i < ws->nl; ++i) {
    const mbt_local_node* L = &tree->local_nodes[i];
    for (int j = L->v_start; j < L->v_start + L->nv; ++j) ws->end[j] = end_v[i], ws->node_end[j] = L->v_start + L->nv;
  }
}

/* The steps of ws->forward_steps into steps (NULL: only counted), their number returned, and
 * *groups the number of four-node steps: the local nodes by depth below the world (a counting
 * sort: order[] by level, start[d] the first of level d), each level's revolute nodes four at a
 * time, the rest one at a time. scratch: 3·nl + 1 ints. */
static int forward_steps(const mbt_tree* tree, int* scratch, int* steps, int* groups) {
  const int nl = tree->num_local_nodes;
  int *depth = scratch, *start = scratch + nl, *order = scratch + 2 * nl + 1;
  int n = 0;
  depth[0] = 0, *groups = 0;
  for (int d = 0; d <= nl; ++d) start[d] = 0;
  for (int i = 1; i < nl; ++i) depth[i] = depth[tree->local_nodes[i].parent] + 1, ++start[depth[i] + 1];
  for (int d = 1; d <= nl; ++d) start[d] += start[d - 1];
  for (int i = 1; i < nl; ++i) order[start[depth[i]]++] = i; /* start[d] now the end of level d */
  for (int d = 1, o = 0; d < nl && o < nl - 1; ++d) {
    int group[4], g = 0;
    for (; o < start[d]; ++o) {
      const int i = order[o];
      if (tree->local_nodes[i].type == MBT_MOBILIZER_REVOLUTE) group[g++] = i;
      if (g == 4 || tree->local_nodes[i].type != MBT_MOBILIZER_REVOLUTE) {
        const int m = g == 4 ? 4 : 1;
        for (int l = 0; steps && l < 4; ++l) steps[4 * n + l] = l < m ? (g == 4 ? group[l] : i) : -1;
        *groups += g == 4, ++n;
        if (g == 4) g = 0;
      }
    }
    for (int l = 0; l < g; ++l, ++n)
      if (steps) steps[4 * n] = group[l], steps[4 * n + 1] = steps[4 * n + 2] = steps[4 * n + 3] = -1;
  }
  return n;
}

/* ws->forward_steps where some level has four revolute nodes (false: out of memory). */
static bool make_forward_steps(mbt_derivatives_workspace* ws) {
  int* scratch = malloc((3 * (size_t)ws->nl + 1) * sizeof(int));
  if (!scratch) return false;
  int groups;
  const int n = forward_steps(ws->tree, scratch, NULL, &groups);
  if (groups > 0) {
    ws->forward_steps = malloc(4 * (size_t)n * sizeof(int));
    if (ws->forward_steps) forward_steps(ws->tree, scratch, ws->forward_steps, &groups);
    ws->num_forward_steps = n;
  }
  free(scratch);
  return groups == 0 || ws->forward_steps;
}

/* ws->root_run (false: out of memory). */
static bool make_root_runs(mbt_derivatives_workspace* ws) {
  ws->root_run = malloc((size_t)(ws->nv > 0 ? ws->nv : 1) * sizeof(int));
  if (!ws->root_run) return false;
  bool run = true;  /* velocities 0..k all on one contiguous path from 0 */
  for (int k = 0; k < ws->nv; ++k) {
    run = run && ws->up[k] == k - 1;
    ws->root_run[k] = run ? k + 1 : ws->up[k] >= 0 ? ws->root_run[ws->up[k]] : 0;
  }
  return true;
}

/* The first row k with an entry j off k's path: j < k whose subtree ends at or before k (end[j] ≤
 * k; an ancestor's or k's own node's contains k), or j past k's subtree (j ≥ end[k]); nv if none. */
static int first_branched_row(const mbt_derivatives_workspace* ws) {
  for (int k = 0; k < ws->nv; ++k) {
    if (ws->end[k] < ws->nv) return k;
    for (int j = 0; j < k; ++j)
      if (ws->end[j] <= k) return k;
  }
  return ws->nv;
}

mbt_derivatives_workspace* mbt_derivatives_workspace_create(const mbt_tree* tree) {
  if (!tree) return NULL;
  if (!tree->finalized) {
    mbt__tree_error(tree, MBT_ERR_NOT_FINALIZED, "derivatives_workspace_create: the tree is not finalized");
    return NULL;
  }
  mbt_derivatives_workspace* ws = calloc(1, sizeof *ws);
  if (!ws) return NULL;
  const size_t nl = (size_t)tree->num_local_nodes, nv = (size_t)tree->nv, n1 = nv > 0 ? nv : 1;
  ws->tree = tree;
  ws->nv = tree->nv;
  ws->nl = tree->num_local_nodes;
  ws->avx2 = mbt__cpu_has_avx2_fma();
  ws->avx512 = ws->avx2 && mbt__cpu_has_avx512();
  /* One block for the node arrays, one for the velocity arrays, one of nv-sized doubles. */
  const size_t node_bytes =
      nl * (sizeof(mbt_transform) + 4 * sizeof(mbt_v6) + 2 * sizeof(mbt_inertia_moments) + sizeof(mbt_ymat));
  ws->X_WM = malloc(node_bytes + 2 * nl * sizeof(int));
  ws->S = malloc(n1 * (7 * sizeof(mbt_v6) + 37 * sizeof(mbt_real) + 3 * sizeof(int)));
  ws->vdot = malloc(((4 + MBT_J_ROWS) * n1 + 4 + 12 * n1 * n1) * sizeof(mbt_real));
  if (!ws->X_WM || !ws->S || !ws->vdot) {
    mbt_derivatives_workspace_destroy(ws);
    return NULL;
  }
  char* p = (char*)ws->X_WM;
  p += nl * sizeof(mbt_transform);
  ws->V = (mbt_v6*)p, p += nl * sizeof(mbt_v6);
  ws->A = (mbt_v6*)p, p += nl * sizeof(mbt_v6);
  ws->F = (mbt_v6*)p, p += nl * sizeof(mbt_v6);
  ws->dF = (mbt_v6*)p, p += nl * sizeof(mbt_v6);
  ws->Yc = (mbt_ymat*)p, p += nl * sizeof(mbt_ymat);
  ws->Ib = (mbt_inertia_moments*)p, p += nl * sizeof(mbt_inertia_moments);
  ws->Ic = (mbt_inertia_moments*)p, p += nl * sizeof(mbt_inertia_moments);
  int* node_ints = (int*)p;
  mbt_v6* s = ws->S;
  ws->Wk = s + n1, ws->Bk = s + 2 * n1, ws->Gk = s + 3 * n1, ws->SI = s + 4 * n1, ws->U = s + 5 * n1;
  ws->pa = s + 6 * n1;
  ws->Ia = (mbt_real*)(s + 7 * n1), ws->Dinv = ws->Ia + 36 * n1;
  ws->up = (int*)(ws->Dinv + n1), ws->end = ws->up + n1, ws->node_end = ws->end + n1;
  ws->rhs = ws->vdot + n1, ws->vdot2 = ws->rhs + n1, ws->rhs2 = ws->vdot2 + n1, ws->J = ws->rhs2 + n1;
  ws->T1 = ws->J + MBT_J_ROWS * n1 + 4, ws->T2 = ws->T1 + n1 * n1, ws->T3 = ws->T2 + n1 * n1;
  memset(ws->T1 - 4, 0, 4 * sizeof(mbt_real)); /* read, never used, by descendant_entries4 */
  ws->T4 = ws->T3 + n1 * n1, ws->T5 = ws->T4 + n1 * n1, ws->T6 = ws->T5 + n1 * n1;
  ws->PA = ws->T6 + n1 * n1;
  ws->last = node_ints;
  velocity_tree(tree, ws, node_ints, node_ints + nl);
  ws->chain = true;
  for (int k = 0; k < ws->nv; ++k) ws->chain = ws->chain && ws->up[k] == k - 1;
  ws->chain_blocks = ws->nv;
  for (int k = ws->nv - 4; ws->chain && k >= 0; k -= 4) {
    bool ones = true;
    for (int l = 0; l < 4; ++l) ones = ones && ws->node_end[k + l] == k + l + 1;
    if (!ones) break;
    ws->chain_blocks = k;
  }
  ws->revolute_chain = ws->nl > 1;
  for (int i = 1; i < ws->nl; ++i) {
    const mbt_local_node* L = &tree->local_nodes[i];
    ws->revolute_chain = ws->revolute_chain && L->type == MBT_MOBILIZER_REVOLUTE && L->parent == i - 1 &&
                         L->v_start == i - 1;
  }
  ws->zero_rows_from = first_branched_row(ws);
  if (!make_forward_steps(ws) || !make_root_runs(ws)) {
    mbt_derivatives_workspace_destroy(ws);
    return NULL;
  }
  ws->minv_dense = mbt__minv_dense(ws);
  ws->minv_ltdl = mbt__minv_by_ltdl(ws);
  mbt__equal_legs(ws, &ws->legs, &ws->leg_len);
  return ws;
}

int mbt__derivatives_check(const mbt_tree* tree, mbt_context* ctx, const mbt_derivatives_workspace* ws,
                           const char* what) {
  int st = mbt__check_tree_context(tree, ctx, what);
  if (st) return st;
  if (!ws || ws->tree != tree)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: the workspace is %s", what,
                              ws ? "of another tree" : "NULL");
  return MBT_OK;
}

/* X_FM(q) and the columns H_FM (at Mo, in F) of a local node; revolute and prismatic nodes
 * turn about / slide along ẑ (tree_internal.h). */
MBT__ALWAYS_INLINE void local_X_FM_H(const mbt_tree* tree, const mbt_context* ctx, const mbt_local_node* L, mbt_transform* X_FM,
                         mbt_spatial_velocity* H) {
  const mbt_real* q = ctx->q + L->q_start;
  if (L->type == MBT_MOBILIZER_REVOLUTE) {
    X_FM->R = mbt__rot_z(ctx->sin_q[L->q_start], ctx->cos_q[L->q_start]);
    X_FM->p = mbt_vec3_zero();
    H->w = mbt_vec3_make(0, 0, 1), H->v = mbt_vec3_zero();
  } else if (L->type == MBT_MOBILIZER_PRISMATIC) {
    X_FM->R = mbt_mat3_identity();
    X_FM->p = mbt_vec3_make(0, 0, q[0]);
    H->w = mbt_vec3_zero(), H->v = mbt_vec3_make(0, 0, 1);
  } else {
    const mbt_node* n = &tree->nodes[L->node];
    mbt__mob_calc_X_FM(n, q, X_FM);
    mbt__mob_calc_H_FM(n, q, H);
  }
}

/* The body's inertia {m, h, K} about Mo in M re-expressed in W by R = R_WM and shifted to Wo
 * by d = p_WoMo (mass points at r = d + r' from Wo):
 *   h = R·h' + m·d,  K = R·K'·Rᵀ + m·(|d|²·1 − d·dᵀ) + 2·(d·R·h')·1 − d·(R·h')ᵀ − (R·h')·dᵀ. */
MBT__ALWAYS_INLINE void inertia_at_Wo(const mbt_inertia_moments* I, const mbt_transform* X_WM, mbt_inertia_moments* J) {
  const mbt_mat3* R = &X_WM->R;
  const mbt_real* K = I->K;
  const mbt_real k[3][3] = {{K[0], K[3], K[4]}, {K[3], K[1], K[5]}, {K[4], K[5], K[2]}};
  mbt_real A[3][3], RK[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) RK[i][j] = R->m[i][0] * k[0][j] + R->m[i][1] * k[1][j] + R->m[i][2] * k[2][j];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A[i][j] = RK[i][0] * R->m[j][0] + RK[i][1] * R->m[j][1] + RK[i][2] * R->m[j][2];
  const mbt_vec3 h = mbt_mat3_mul_vec(R, I->h), d = X_WM->p;
  const mbt_real m = I->m, s = m * mbt_vec3_dot(d, d) + 2 * mbt_vec3_dot(d, h);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A[i][j] += (i == j ? s : 0) - m * d.v[i] * d.v[j] - d.v[i] * h.v[j] - h.v[i] * d.v[j];
  J->m = m;
  J->h = mbt_vec3_axpy(h, m, d);
  J->K[0] = A[0][0], J->K[1] = A[1][1], J->K[2] = A[2][2], J->K[3] = A[0][1], J->K[4] = A[0][2], J->K[5] = A[1][2];
}

/* Y of one body (derivatives_internal.h): with C = K·[ω]×, K·[ω]× − [ω]×·K = C + Cᵀ (K is
 * symmetric), and [h]×[u]× + [u]×[h]× = u·hᵀ + h·uᵀ − 2(u·h)·1. */
MBT__ALWAYS_INLINE void body_Y(const mbt_inertia_moments* I, const mbt_real* v, const mbt_real* Iv, mbt_ymat* Y) {
  const mbt_real* K = I->K;
  const mbt_real* h = I->h.v;
  const mbt_real w0 = v[0], w1 = v[1], w2 = v[2], u0 = v[3], u1 = v[4], u2 = v[5];
  /* C = K·[ω]×: column c is K·(ω × ê_c). */
  const mbt_real C00 = K[3] * w2 - K[4] * w1, C01 = K[4] * w0 - K[0] * w2, C02 = K[0] * w1 - K[3] * w0;
  const mbt_real C10 = K[1] * w2 - K[5] * w1, C11 = K[5] * w0 - K[3] * w2, C12 = K[3] * w1 - K[1] * w0;
  const mbt_real C20 = K[5] * w2 - K[2] * w1, C21 = K[2] * w0 - K[4] * w2, C22 = K[4] * w1 - K[5] * w0;
  const mbt_real uh = u0 * h[0] + u1 * h[1] + u2 * h[2];
  Y->s[0] = 2 * (C00 + u0 * h[0] - uh);
  Y->s[1] = 2 * (C11 + u1 * h[1] - uh);
  Y->s[2] = 2 * (C22 + u2 * h[2] - uh);
  Y->s[3] = C01 + C10 + u0 * h[1] + h[0] * u1;
  Y->s[4] = C02 + C20 + u0 * h[2] + h[0] * u2;
  Y->s[5] = C12 + C21 + u1 * h[2] + h[1] * u2;
  for (int r = 0; r < 3; ++r) Y->n[r] = Iv[r], Y->b[r] = 2 * Iv[3 + r];
}

/* Σ·x for Σ stored as (xx, yy, zz, xy, xz, yz). */
MBT__ALWAYS_INLINE void sym3_mul(const mbt_real* s, const mbt_real* x, mbt_real* y) {
  y[0] = s[0] * x[0] + s[3] * x[1] + s[4] * x[2];
  y[1] = s[3] * x[0] + s[1] * x[1] + s[5] * x[2];
  y[2] = s[4] * x[0] + s[5] * x[1] + s[2] * x[2];
}
/* Y·x = [Σ·x_ω + n × x_ω; b × x_ω] */
MBT__ALWAYS_INLINE void y_mul(const mbt_ymat* Y, const mbt_real* x, mbt_real* y) {
  sym3_mul(Y->s, x, y);
  y[0] += Y->n[1] * x[2] - Y->n[2] * x[1];
  y[1] += Y->n[2] * x[0] - Y->n[0] * x[2];
  y[2] += Y->n[0] * x[1] - Y->n[1] * x[0];
  y[3] = Y->b[1] * x[2] - Y->b[2] * x[1];
  y[4] = Y->b[2] * x[0] - Y->b[0] * x[2];
  y[5] = Y->b[0] * x[1] - Y->b[1] * x[0];
}
/* Yᵀ·x = [Σ·x_ω − n × x_ω − b × x_v; 0]: its angular part. */
MBT__ALWAYS_INLINE void y_tmul(const mbt_ymat* Y, const mbt_real* x, mbt_real* y) {
  sym3_mul(Y->s, x, y);
  y[0] -= Y->n[1] * x[2] - Y->n[2] * x[1] + Y->b[1] * x[5] - Y->b[2] * x[4];
  y[1] -= Y->n[2] * x[0] - Y->n[0] * x[2] + Y->b[2] * x[3] - Y->b[0] * x[5];
  y[2] -= Y->n[0] * x[1] - Y->n[1] * x[0] + Y->b[0] * x[4] - Y->b[1] * x[3];
  y[3] = y[4] = y[5] = 0;
}

/* forward_node for a node of one velocity k (u_k = vλ_k = V_λ), its column S_k stored: with
 * W = S × V_λ,
 *   V = V_λ + S·v,  A = A_λ − W·v + S·v̇,  B = −S × A_λ + W × V_λ,  G = 2·V_λ × S = −2·W. */
MBT__ALWAYS_INLINE void one_velocity_rates(mbt_derivatives_workspace* ws, int i, const mbt_real* v, const mbt_real* vdot) {
  const int p = ws->tree->local_nodes[i].parent, k = ws->tree->local_nodes[i].v_start;
  const mbt_real* S = ws->S[k];
  const mbt_real vk = v ? v[k] : 0, ak = vdot ? vdot[k] : 0;
  const mbt_real *Vp = ws->V[p], *Ap = ws->A[p];
  mbt_real *W = ws->Wk[k], *B = ws->Bk[k], *G = ws->Gk[k], *V = ws->V[i], *A = ws->A[i];
  mbt_v6 t;
  mbt__v6_cross(S, Vp, W);
  mbt__v6_cross(W, Vp, t);
  mbt__v6_cross(S, Ap, B);
  for (int r = 0; r < 6; ++r) {
    B[r] = t[r] - B[r], G[r] = -2 * W[r];
    V[r] = Vp[r] + S[r] * vk, A[r] = Ap[r] - W[r] * vk + S[r] * ak;
  }
}

/* The column S = [R_WF·H_w; R_WF·H_v + p_WoMo × R_WF·H_w] of a one-velocity node, then its
 * rates (one_velocity_rates). */
MBT__ALWAYS_INLINE void forward_one_velocity(mbt_derivatives_workspace* ws, int i, const mbt_mat3* R_WF,
                                 const mbt_spatial_velocity* H, const mbt_real* v, const mbt_real* vdot) {
  mbt_real* S = ws->S[ws->tree->local_nodes[i].v_start];
  const mbt_vec3 w = mbt_mat3_mul_vec(R_WF, H->w);
  const mbt_vec3 vo = mbt_vec3_add(mbt_mat3_mul_vec(R_WF, H->v), mbt_vec3_cross(ws->X_WM[i].p, w));
  S[0] = w.v[0], S[1] = w.v[1], S[2] = w.v[2], S[3] = vo.v[0], S[4] = vo.v[1], S[5] = vo.v[2];
  one_velocity_rates(ws, i, v, vdot);
}

/* R_WM = R_WA·R_AF·R_z(q) of a node with R_AF_is_xz, R_AF = R_x(b)·R_z(φ) (tree_internal.h):
 * R_WM = C·R_z(θ), θ = φ + q, C = R_WA·R_x(b) = (a0, cb·a1 + sb·a2, cb·a2 − sb·a1) for the columns
 * (a0, a1, a2) of R_WA; R_WM = (cθ·c0 + sθ·c1, cθ·c1 − sθ·c0, c2), so its third column is the axis
 * R_WF·ẑ. 42 flops, against 63 for R_WF = R_WA·R_AF, then R_WF·R_z(q). */
MBT__ALWAYS_INLINE void rotation_WM_turned(const mbt_mat3* R_WA, const mbt_mat3* R_AF, mbt_real sn, mbt_real cn,
                                      mbt_mat3* R_WM) {
  const mbt_real cb = R_AF->m[2][2], sb = -R_AF->m[1][2], cf = R_AF->m[0][0], sf = -R_AF->m[0][1];
  const mbt_real ct = cn * cf - sn * sf, st = sn * cf + cn * sf;
  for (int r = 0; r < 3; ++r) {
    const mbt_real a0 = R_WA->m[r][0], a1 = R_WA->m[r][1], a2 = R_WA->m[r][2], c1 = cb * a1 + sb * a2;
    R_WM->m[r][0] = ct * a0 + st * c1, R_WM->m[r][1] = ct * c1 - st * a0, R_WM->m[r][2] = cb * a2 - sb * a1;
  }
}

/* R_WM = R_WF·R_z(q) of a revolute node by R_WF's columns (x, y, z): (c·x + s·y, c·y − s·x, z);
 * R_WF = R_WA·R_AF (a 3×3 product unless R_AF = I), or rotation_WM_turned. */
MBT__ALWAYS_INLINE void revolute_rotation_WM(const mbt_local_node* L, const mbt_mat3* R_WA, mbt_real sn, mbt_real cn,
                                        mbt_mat3* R_WM) {
  if (L->R_AF_is_xz) {
    rotation_WM_turned(R_WA, &L->X_AF.R, sn, cn, R_WM);
    return;
  }
  const mbt_mat3 R_WF = L->R_AF_is_identity ? *R_WA : mbt_mat3_mul(R_WA, &L->X_AF.R);
  for (int r = 0; r < 3; ++r) {
    const mbt_real a = R_WF.m[r][0], b = R_WF.m[r][1];
    R_WM->m[r][0] = cn * a + sn * b, R_WM->m[r][1] = cn * b - sn * a, R_WM->m[r][2] = R_WF.m[r][2];
  }
}

/* p_WoFo = p_WoAo + R_WA·p_AF, with p_AF = (p_x, 0, p_z) where L->p_AF_y_is_zero (9 flops, not 15). */
MBT__ALWAYS_INLINE mbt_vec3 origin_WF(const mbt_local_node* L, const mbt_transform* X_WA) {
  const mbt_real* p = L->X_AF.p.v;
  if (!L->p_AF_y_is_zero) return mbt_vec3_add(X_WA->p, mbt_mat3_mul_vec(&X_WA->R, L->X_AF.p));
  const mbt_mat3* R = &X_WA->R;
  return mbt_vec3_make(X_WA->p.v[0] + R->m[0][0] * p[0] + R->m[0][2] * p[2],
                       X_WA->p.v[1] + R->m[1][0] * p[0] + R->m[1][2] * p[2],
                       X_WA->p.v[2] + R->m[2][0] * p[0] + R->m[2][2] * p[2]);
}

/* X_WM of a revolute node: R_WM (revolute_rotation_WM) and p_WoMo = p_WoFo (origin_WF). */
MBT__ALWAYS_INLINE const mbt_transform* revolute_pose(const mbt_context* ctx, mbt_derivatives_workspace* ws, int i) {
  const mbt_local_node* L = &ws->tree->local_nodes[i];
  const mbt_transform* X_WA = &ws->X_WM[L->parent];
  mbt_transform* X = &ws->X_WM[i];
  revolute_rotation_WM(L, &X_WA->R, ctx->sin_q[L->q_start], ctx->cos_q[L->q_start], &X->R);
  X->p = origin_WF(L, X_WA);
  return X;
}

/* forward_node for a revolute node (axis ẑ of F = M): R_WM (revolute_rotation_WM), p_WoMo = p_WoFo,
 * S = [z; p_WoMo × z] with z = R_WF·ẑ, the third column of R_WM. */
MBT__ALWAYS_INLINE void forward_revolute(const mbt_context* ctx, mbt_derivatives_workspace* ws, int i, const mbt_real* v,
                             const mbt_real* vdot) {
  const mbt_local_node* L = &ws->tree->local_nodes[i];
  const mbt_transform* X = revolute_pose(ctx, ws, i);
  mbt_real* S = ws->S[L->v_start];
  const mbt_vec3 z = mbt_vec3_make(X->R.m[0][2], X->R.m[1][2], X->R.m[2][2]), pz = mbt_vec3_cross(X->p, z);
  S[0] = z.v[0], S[1] = z.v[1], S[2] = z.v[2], S[3] = pz.v[0], S[4] = pz.v[1], S[5] = pz.v[2];
  one_velocity_rates(ws, i, v, vdot);
}

/* W_k = S_k × vλ_k, B_k = W_k × vλ_k − S_k × aλ_k, G_k = (u_k + vλ_k) × S_k of velocity k. */
MBT__ALWAYS_INLINE void column_rates(mbt_derivatives_workspace* ws, int k, const mbt_real* vl, const mbt_real* al,
                         const mbt_real* u) {
  const mbt_real* S = ws->S[k];
  mbt_real *W = ws->Wk[k], *B = ws->Bk[k];
  mbt_v6 t, s;
  mbt__v6_cross(S, vl, W);
  mbt__v6_cross(W, vl, t);
  mbt__v6_cross(S, al, B);
  for (int r = 0; r < 6; ++r) B[r] = t[r] - B[r], s[r] = u[r] + vl[r];
  mbt__v6_cross(s, S, ws->Gk[k]);
}

/* R_WF·x, or x itself where R_WF = 1 (world: the product gives x exactly). */
MBT__ALWAYS_INLINE mbt_vec3 rotate_WF(bool world, const mbt_mat3* R_WF, const mbt_real* x) {
  const mbt_vec3 y = mbt_vec3_make(x[0], x[1], x[2]);
  return world ? y : mbt_mat3_mul_vec(R_WF, y);
}

/* forward_node for a quaternion-floating node (v = [w_FM_F; v_FMo_F], H_FM = 1 at Mo): with
 * c_j the columns of R_WF, p = p_WoMo, ω = R_WF·v_w, ν = R_WF·v_v (α, a the same of v̇),
 *   S_j = [c_j; p × c_j],  S_3+j = [0; c_j]  (j < 3),
 *   u_r = V_λ + [0; ν]  (the rotational columns move with the translations),
 *   V = u_r + [ω; p × ω],  A_t = A_λ + V_λ × [0; ν] + [0; a],  A = A_t + u_r × [ω; p × ω] + [α; p × α];
 * for k < 3: vλ_k = V, aλ_k = A, u_k = u_r; for k ≥ 3: vλ_k = u_r, aλ_k = A_t, u_k = V_λ. */
MBT__ALWAYS_INLINE void forward_floating(const mbt_context* ctx, mbt_derivatives_workspace* ws, int i, const mbt_real* v,
                             const mbt_real* vdot, bool lanes) {
  const mbt_local_node* L = &ws->tree->local_nodes[i];
  const int p = L->parent, k0 = L->v_start;
  const mbt_transform* X_WA = &ws->X_WM[p];
  const mbt_real* q = ctx->q + L->q_start;
  const mbt_mat3 R_WF = L->R_AF_is_identity ? X_WA->R : mbt_mat3_mul(&X_WA->R, &L->X_AF.R);
  const bool world = p == 0 && L->R_AF_is_identity; /* R_WF = 1, the world's R */
  const mbt_mat3 R_FM = mbt__rot_from_quat(q[0], q[1], q[2], q[3]);
  mbt_transform* X = &ws->X_WM[i];
  X->R = world ? R_FM : mbt_mat3_mul(&R_WF, &R_FM);
  const mbt_vec3 p_WFo = origin_WF(L, X_WA);
  X->p = mbt_vec3_add(p_WFo, rotate_WF(world, &R_WF, q + 4));
  const mbt_vec3 z = mbt_vec3_zero();
  const mbt_vec3 w = v ? rotate_WF(world, &R_WF, v + k0) : z, nu = v ? rotate_WF(world, &R_WF, v + k0 + 3) : z;
  const mbt_vec3 al = vdot ? rotate_WF(world, &R_WF, vdot + k0) : z;
  const mbt_vec3 a = vdot ? rotate_WF(world, &R_WF, vdot + k0 + 3) : z;
  const mbt_vec3 pw = mbt_vec3_cross(X->p, w), pa = mbt_vec3_cross(X->p, al);
  for (int j = 0; j < 3; ++j) {
    mbt_real *Sr = ws->S[k0 + j], *St = ws->S[k0 + 3 + j];
    const mbt_vec3 c = mbt_vec3_make(R_WF.m[0][j], R_WF.m[1][j], R_WF.m[2][j]), pc = mbt_vec3_cross(X->p, c);
    for (int r = 0; r < 3; ++r) Sr[r] = c.v[r], Sr[3 + r] = pc.v[r], St[r] = 0, St[3 + r] = c.v[r];
  }
  const mbt_real *Vp = ws->V[p], *Ap = ws->A[p];
  const mbt_v6 SVr = {w.v[0], w.v[1], w.v[2], pw.v[0], pw.v[1], pw.v[2]}, SVt = {0, 0, 0, nu.v[0], nu.v[1], nu.v[2]};
  mbt_v6 ur, At, t1, t2;
  mbt__v6_cross(Vp, SVt, t1);
  for (int r = 0; r < 6; ++r) ur[r] = Vp[r] + SVt[r], At[r] = Ap[r] + t1[r];
  for (int r = 0; r < 3; ++r) At[3 + r] += a.v[r];
  mbt__v6_cross(ur, SVr, t2);
  mbt_real *V = ws->V[i], *A = ws->A[i];
  for (int r = 0; r < 6; ++r) V[r] = ur[r] + SVr[r], A[r] = At[r] + t2[r];
  for (int r = 0; r < 3; ++r) A[r] += al.v[r], A[3 + r] += pa.v[r];
#ifdef MBT__DERIV_LANES
  if (lanes) {
    floating_column_rates4(ws, k0, V, A, ur, At, Vp);
    return;
  }
#else
  (void)lanes;
#endif
  for (int k = 0; k < 3; ++k) column_rates(ws, k0 + k, V, A, ur);
  for (int k = 3; k < 6; ++k) column_rates(ws, k0 + k, ur, At, Vp);
}

/* Base to tip for local node i: X_WM, the columns S_j, V, A, the per-velocity W_k, B_k, G_k. */
MBT__ALWAYS_INLINE void forward_node(const mbt_tree* tree, const mbt_context* ctx, mbt_derivatives_workspace* ws, int i,
                         const mbt_real* v, const mbt_real* vdot, bool lanes) {
  const mbt_local_node* L = &tree->local_nodes[i];
  const int p = L->parent, k0 = L->v_start, nk = L->nv;
  const mbt_transform* X_WA = &ws->X_WM[p];
  if (L->type == MBT_MOBILIZER_REVOLUTE) {
    forward_revolute(ctx, ws, i, v, vdot);
    return;
  }
  if (L->type == MBT_MOBILIZER_QUATERNION_FLOATING) {
    forward_floating(ctx, ws, i, v, vdot, lanes);
    return;
  }
  mbt_transform X_FM;
  mbt_spatial_velocity H[6];
  local_X_FM_H(tree, ctx, L, &X_FM, H);
  const mbt_mat3 R_WF = mbt_mat3_mul(&X_WA->R, &L->X_AF.R);
  const mbt_vec3 p_WFo = origin_WF(L, X_WA);
  mbt_transform* X = &ws->X_WM[i];
  X->R = mbt_mat3_mul(&R_WF, &X_FM.R);
  X->p = mbt_vec3_add(p_WFo, mbt_mat3_mul_vec(&R_WF, X_FM.p));
  if (nk == 1) {
    forward_one_velocity(ws, i, &R_WF, H, v, vdot);
    return;
  }
  mbt_v6 SV[6], c[6], u[6];
  for (int j = 0; j < nk; ++j) {  /* S_j = [R_WF·w; R_WF·v_Mo + p_WoMo × R_WF·w] */
    mbt_real* S = ws->S[k0 + j];
    const mbt_vec3 w = mbt_mat3_mul_vec(&R_WF, H[j].w);
    const mbt_vec3 vo = mbt_vec3_add(mbt_mat3_mul_vec(&R_WF, H[j].v), mbt_vec3_cross(X->p, w));
    memcpy(S, w.v, sizeof w.v), memcpy(S + 3, vo.v, sizeof vo.v);
    const mbt_real vj = v ? v[k0 + j] : 0;
    for (int r = 0; r < 6; ++r) SV[j][r] = S[r] * vj;
  }
  for (int j = 0; j < nk; ++j) {  /* u_j, then c_j = u_j × S_j·v_j + S_j·v̇_j */
    memcpy(u[j], ws->V[p], sizeof(mbt_v6));
    for (int m = 0; m < nk; ++m)
      if (moves_with(L->type, j, m))
        for (int r = 0; r < 6; ++r) u[j][r] += SV[m][r];
    mbt__v6_cross(u[j], SV[j], c[j]);
    const mbt_real vdj = vdot ? vdot[k0 + j] : 0;
    for (int r = 0; r < 6; ++r) c[j][r] += ws->S[k0 + j][r] * vdj;
  }
  mbt_real* V = ws->V[i];
  mbt_real* A = ws->A[i];
  memcpy(V, ws->V[p], sizeof(mbt_v6)), memcpy(A, ws->A[p], sizeof(mbt_v6));
  for (int j = 0; j < nk; ++j)
    for (int r = 0; r < 6; ++r) V[r] += SV[j][r], A[r] += c[j][r];
  for (int k = 0; k < nk; ++k) {
    mbt_v6 vl, al;
    memcpy(vl, ws->V[p], sizeof vl), memcpy(al, ws->A[p], sizeof al);
    for (int m = 0; m < nk; ++m)
      if (!moves_with(L->type, m, k))
        for (int r = 0; r < 6; ++r) vl[r] += SV[m][r], al[r] += c[m][r];
    column_rates(ws, k0 + k, vl, al, u[k]);
  }
}

#ifdef MBT__DERIV_LANES
/* True for a block of four nodes i0..i0 + 3 of a chain that forward_chain and node_inertias both
 * take as a block (from node 1 by fours), the last such block excepted: the nodes after it and
 * the block of the last four read V and A of its nodes in ws->V, ws->A by node. */
MBT__ALWAYS_INLINE bool chain_lanes_block(const mbt_derivatives_workspace* ws, int i0) {
  return i0 + 4 < 1 + (ws->nl - 1) / 4 * 4;
}

/* forward_node of a revolute chain (ws->revolute_chain) in two steps: the poses X_WM, each from
 * its parent's, one node after the other; then the rest, which reads them, four nodes at a time
 * (chain_rates4: S, W, B, G, and V, A as running sums down the chain, kept as lanes for
 * node_inertias4 where chain_lanes_block: nothing else reads them after the pass); the last nodes,
 * fewer than four, one at a time. */
MBT__ALWAYS_INLINE void forward_chain(const mbt_tree* tree, const mbt_context* ctx, mbt_derivatives_workspace* ws,
                                      const mbt_real* v, const mbt_real* vdot) {
  const int nl = ws->nl, n4 = 1 + (nl - 1) / 4 * 4;
  for (int i = 1; i < n4; ++i) revolute_pose(ctx, ws, i);
  v4 Vc[6], Ac[6];
  splat4(ws->V[0], 6, Vc), splat4(ws->A[0], 6, Ac);
  for (int i0 = 1; i0 < n4; i0 += 4) chain_rates4(ws, i0, v, vdot, Vc, Ac, chain_lanes_block(ws, i0));
  for (int i = n4; i < nl; ++i) forward_node(tree, ctx, ws, i, v, vdot, true);
}
#endif

/* The node's own Ic = I (about Wo, in W) and Ib = I if keep_ib, F = f = I·a + v ×* (I·v) and
 * Yc = Y. */
MBT__ALWAYS_INLINE void forward_node_inertia(const mbt_context* ctx, mbt_derivatives_workspace* ws, int i,
                                             bool keep_ib) {
  const mbt_real *V = ws->V[i], *A = ws->A[i];
  mbt_inertia_moments* I = &ws->Ic[i];
  inertia_at_Wo(&ctx->I_Mo_M[i], &ws->X_WM[i], I);
  if (keep_ib) ws->Ib[i] = *I;
  mbt_v6 Ia, Iv, vIv;
  mbt__moments_mul6(I, A, Ia);
  mbt__moments_mul6(I, V, Iv);
  mbt__v6_cross_force(V, Iv, vIv);
  for (int r = 0; r < 6; ++r) ws->F[i][r] = Ia[r] + vIv[r];
  body_Y(I, V, Iv, &ws->Yc[i]);
}

/* Φ_k = S_k ×* F + Yc·W_k + Ic·B_k and Ω_k = Ic·G_k − Yc·S_k of velocity k of local node i, into
 * column k of ws->J with Ic·S_k (ws->SI) and Ycᵀ·S_k (SY), given SxF = S_k ×* F, YS = Yc·S_k. */
MBT__ALWAYS_INLINE void store_velocity_rows(mbt_derivatives_workspace* ws, int i, int k, const mbt_real* SY,
                                           const mbt_real* SxF, const mbt_real* YS) {
  const mbt_inertia_moments* Ic = &ws->Ic[i];
  const size_t nv = (size_t)ws->nv;
  mbt_v6 t1, t2, t3;
  y_mul(&ws->Yc[i], ws->Wk[k], t1);
  mbt__moments_mul6(Ic, ws->Bk[k], t2);
  mbt__moments_mul6(Ic, ws->Gk[k], t3);
  mbt_real* J = ws->J + k;
  for (int r = 0; r < 6; ++r) {
    J[(MBT_J_SI + r) * nv] = ws->SI[k][r], J[(MBT_J_PHI + r) * nv] = SxF[r] + t1[r] + t2[r];
    J[(MBT_J_OMEGA + r) * nv] = t3[r] - YS[r];
  }
  for (int r = 0; r < 3; ++r) J[(MBT_J_SY + r) * nv] = SY[r];
}

/* Per velocity k of local node i (its subtree's Ic, Yc, F complete): Ic·S_k (unless si_known:
 * from an earlier pass at the same q), Ycᵀ·S_k, tau_k, Φ_k and Ω_k (store_velocity_rows). */
MBT__ALWAYS_INLINE void backward_velocity_body(mbt_derivatives_workspace* ws, int i, int k, mbt_real* tau,
                                              bool derivatives, bool si_known) {
  const mbt_ymat* Yc = &ws->Yc[i];
  const mbt_real* S = ws->S[k];
  if (!si_known) mbt__moments_mul6(&ws->Ic[i], S, ws->SI[k]);
  if (tau) tau[k] = mbt__v6_dot(S, ws->F[i]);
  if (!derivatives) return;
  mbt_v6 SY, SxF, YS;
  y_tmul(Yc, S, SY);
  mbt__v6_cross_force(S, ws->F[i], SxF);
  y_mul(Yc, S, YS);
  store_velocity_rows(ws, i, k, SY, SxF, YS);
}

/* True when the six columns of a floating node are the unit vectors, S_k0+j = e_j: the first
 * node, with F = W, as a URDF floating base (O is its origin Mo, R_WF = 1). forward_floating
 * gives S_j = [c_j; p × c_j], S_3+j = [0; c_j] with c_j the columns of R_WF = R_WA = 1 (the
 * world's) where R_AF = 1 and the parent is the world: unit exactly when p = p_WoMo = 0. */
MBT__ALWAYS_INLINE bool unit_columns(const mbt_derivatives_workspace* ws, const mbt_local_node* L, int i) {
  if (L->type != MBT_MOBILIZER_QUATERNION_FLOATING || L->parent != 0 || !L->R_AF_is_identity) return false;
  const mbt_real* p = ws->X_WM[i].p.v;
  return p[0] == 0 && p[1] == 0 && p[2] == 0;
}

/* backward_velocity for the six unit columns of a floating node: Ic·e_k is column k of Ic,
 * Ycᵀ·e_k column k of Ycᵀ's angular rows [Σ − [n]×, −[b]×], Yc·e_k column k of
 * [Σ + [n]×; [b]×] (zero for k ≥ 3), tau_k = F_k. */
MBT__ALWAYS_INLINE void backward_unit_velocities(mbt_derivatives_workspace* ws, int i, mbt_real* tau, bool derivatives,
                                     bool si_known) {
  const int k0 = ws->tree->local_nodes[i].v_start;
  const mbt_ymat* Yc = &ws->Yc[i];
  const mbt_real *sg = Yc->s, *n = Yc->n, *b = Yc->b, *F = ws->F[i];
  const mbt_real S3[3][3] = {{sg[0], sg[3], sg[4]}, {sg[3], sg[1], sg[5]}, {sg[4], sg[5], sg[2]}};
  const mbt_real nx[3][3] = {{0, -n[2], n[1]}, {n[2], 0, -n[0]}, {-n[1], n[0], 0}};
  const mbt_real bx[3][3] = {{0, -b[2], b[1]}, {b[2], 0, -b[0]}, {-b[1], b[0], 0}};
  mbt_real P[36];
  mbt__moments_matrix(&ws->Ic[i], P);
  for (int k = 0; k < 6; ++k) {
    if (!si_known)
      for (int r = 0; r < 6; ++r) ws->SI[k0 + k][r] = P[6 * r + k];
    if (tau) tau[k0 + k] = F[k];
    if (!derivatives) continue;
    mbt_v6 SY = {0}, SxF, YS = {0};
    for (int r = 0; r < 3; ++r) {
      SY[r] = k < 3 ? S3[r][k] - nx[r][k] : -bx[r][k - 3];
      if (k < 3) YS[r] = S3[r][k] + nx[r][k], YS[3 + r] = bx[r][k];
    }
    mbt__v6_cross_force(ws->S[k0 + k], F, SxF);
    store_velocity_rows(ws, i, k0 + k, SY, SxF, YS);
  }
}

/* The pairs of a velocity k with the velocities j of the nodes below k's node (node_end_k ≤
 * j < end_k) give four entries each, two products of rows of ws->J:
 *   ∂tau_k/∂q_j = S_k·Φ_j,  ∂tau_k/∂v_j = S_k·Ω_j                          (row k: Sᵀ·Φ, Sᵀ·Ω)
 *   ∂tau_j/∂q_k = (Ycᵀ·S_j)·W_k + (Ic·S_j)·B_k,
 *   ∂tau_j/∂v_k = (Ic·S_j)·G_k − (Ycᵀ·S_j)·S_k                   (row j: [SY, SI]ᵀ·[W, B], ·[−S, G]).
 * One sweep over j per side: row k reads rows PHI and OMEGA of ws->J, column k rows SY and SI. */
MBT__ALWAYS_INLINE void descendant_entries_body(const mbt_derivatives_workspace* ws, int k, mbt_real* restrict dq,
                                               mbt_real* restrict dv) {
  const size_t nv = (size_t)ws->nv;
  const int j0 = ws->node_end[k], j1 = ws->end[k];
  const mbt_real *S = ws->S[k], *W = ws->Wk[k], *B = ws->Bk[k], *G = ws->Gk[k];
  const mbt_real* restrict J = ws->J;
  mbt_real *restrict dqk = dq + (size_t)k * nv, *restrict dvk = dv + (size_t)k * nv;
  for (int j = j0; j < j1; ++j) {  /* row k: Sᵀ·Φ, Sᵀ·Ω */
    mbt_real q = 0, v = 0;
    for (int r = 0; r < 6; ++r)
      q += S[r] * J[(MBT_J_PHI + r) * nv + (size_t)j], v += S[r] * J[(MBT_J_OMEGA + r) * nv + (size_t)j];
    dqk[j] = q, dvk[j] = v;
  }
  for (int j = j0; j < j1; ++j) {  /* column k: [SY, SI]ᵀ·[W, B], [SY, SI]ᵀ·[−S, G] */
    mbt_real q = 0, v = 0;
    MBT__PAIR_COLUMN_TERMS(J, nv, j, W, S, B, G, q, v);
    dq[(size_t)j * nv + (size_t)k] = q, dv[(size_t)j * nv + (size_t)k] = v;
  }
}
MBT__ALWAYS_INLINE void descendant_pairs_body(const mbt_derivatives_workspace* ws, mbt_real* dq, mbt_real* dv,
                                              bool lanes) {
#ifdef MBT__DERIV_LANES
  if (lanes && ws->nv >= 8 && ws->chain) { /* chain blocks (below eight velocities: slower on UR5;
                                                other trees: one loop, 1-2 % faster on Solo12) */
    descendant_pairs4(ws, dq, dv);
    return;
  }
  if (lanes) {
    int k = 0;
    if (ws->nl > 1 && unit_columns(ws, &ws->tree->local_nodes[1], 1)) unit_node_pairs4(ws, 0, dq, dv), k = 6;
    for (; k < ws->nv; ++k) {
      if (tip_chain3(ws, k)) { /* and k + 2, which has no descendants */
        tip_chain3_pairs4(ws, k, dq, dv);
        k += 2;
        continue;
      }
      descendant_entries4(ws, k, ws->end[k], dq, dv);
    }
    return;
  }
#else
  (void)lanes;
#endif
  for (int k = 0; k < ws->nv; ++k) descendant_entries_body(ws, k, dq, dv);
}
MBT_DERIV_PASSES_LANES(descendant_pairs, (const mbt_derivatives_workspace* ws, mbt_real* dq, mbt_real* dv),
                       (ws, dq, dv), (ws, dq, dv))

/* Ic, Yc, F of local node i (its subtree's, complete) added into its parent's. */
MBT__ALWAYS_INLINE void add_to_parent(const mbt_tree* tree, mbt_derivatives_workspace* ws, int i) {
  const int p = tree->local_nodes[i].parent;
  if (p == 0) return;
  mbt_inertia_moments* Ip = &ws->Ic[p];
  const mbt_inertia_moments* Ic = &ws->Ic[i];
  Ip->m += Ic->m;
  Ip->h = mbt_vec3_add(Ip->h, Ic->h);
  for (int r = 0; r < 6; ++r) Ip->K[r] += Ic->K[r], ws->F[p][r] += ws->F[i][r], ws->Yc[p].s[r] += ws->Yc[i].s[r];
  for (int r = 0; r < 3; ++r) ws->Yc[p].n[r] += ws->Yc[i].n[r], ws->Yc[p].b[r] += ws->Yc[i].b[r];
}

/* Row k0 of M of a one-velocity node with its ancestors, S_k0ᵀ·Ic·S_k (and its mirror). */
MBT__ALWAYS_INLINE void mass_matrix_row(const mbt_derivatives_workspace* ws, int k0, mbt_real* M) {
  const size_t nv = (size_t)ws->nv;
  const mbt_real* SI = ws->SI[k0];
  M[(size_t)k0 * nv + (size_t)k0] = mbt__v6_dot(SI, ws->S[k0]);
  for (int k = ws->up[k0]; k >= 0; k = ws->up[k])
    M[(size_t)k0 * nv + (size_t)k] = M[(size_t)k * nv + (size_t)k0] = mbt__v6_dot(SI, ws->S[k]);
}

/* The in-node entries of a floating node with unit columns (unit_columns, so the world as parent):
 * e_j·Φ_k and e_j·Ω_k are entry j of Φ_k and Ω_k, so row k0 + j of the node's block of
 * ∂tau/∂(q, v) is row j of Φ and Ω in ws->J over the node's columns; where column j moves with k
 * (j < 3 ≤ k) ∂tau_j/∂q_k = (Ycᵀ·e_j)·W_k + (Ic·e_j)·B_k; M's block row j is Ic·e_j. */
MBT__ALWAYS_INLINE void unit_node_entries(const mbt_derivatives_workspace* ws, int k0, mbt_real* dq, mbt_real* dv,
                                          mbt_real* M) {
  const size_t nv = (size_t)ws->nv;
  const mbt_real* J = ws->J;
  for (int j = 0; j < 6; ++j) {
    const size_t row = (size_t)(k0 + j) * nv + (size_t)k0;
    if (M) memcpy(M + row, ws->SI[k0 + j], sizeof(mbt_v6));
    if (!dq) continue;
    memcpy(dq + row, J + (size_t)(MBT_J_PHI + j) * nv + (size_t)k0, sizeof(mbt_v6));
    memcpy(dv + row, J + (size_t)(MBT_J_OMEGA + j) * nv + (size_t)k0, sizeof(mbt_v6));
  }
  if (!dq) return;
  for (int j = k0; j < k0 + 3; ++j)
    for (int k = k0 + 3; k < k0 + 6; ++k) {
      mbt_real q = 0;
      for (int r = 0; r < 3; ++r) q += J[(MBT_J_SY + r) * nv + (size_t)j] * ws->Wk[k][r];
      dq[(size_t)j * nv + (size_t)k] = q + mbt__v6_dot(ws->SI[j], ws->Bk[k]);
    }
}

/* Per local node i (its subtree's Ic, Yc, F complete): per velocity (backward_velocity), the
 * entries within the node, and M with the ancestors (the derivative entries with them:
 * descendant_pairs). */
MBT__ALWAYS_INLINE void backward_node(const mbt_tree* tree, mbt_derivatives_workspace* ws, int i, mbt_real* tau, mbt_real* dq,
                          mbt_real* dv, mbt_real* M, bool si_known, bool lanes) {
  const mbt_local_node* L = &tree->local_nodes[i];
  const int k0 = L->v_start, nk = L->nv;
  const size_t nv = (size_t)ws->nv;
  if (nk == 1) {  /* the in-node entries S·Φ, S·Ω and S·(Ic·S) of one velocity */
    backward_velocity_body(ws, i, k0, tau, dq != NULL, si_known);
    const mbt_real *S = ws->S[k0], *J = ws->J + k0;
    if (dq) {
      mbt_real q = 0, v = 0;
      for (int r = 0; r < 6; ++r) q += S[r] * J[(MBT_J_PHI + r) * nv], v += S[r] * J[(MBT_J_OMEGA + r) * nv];
      dq[(size_t)k0 * nv + (size_t)k0] = q, dv[(size_t)k0 * nv + (size_t)k0] = v;
    }
    if (M) mass_matrix_row(ws, k0, M);
    return;
  }
  const bool unit = unit_columns(ws, L, i);
#ifdef MBT__DERIV_LANES
  if (lanes && nk >= 4)
    node_velocity_rows(ws, i, tau, dq, dv, si_known);
  else
#else
  (void)lanes;
#endif
  if (unit)
    backward_unit_velocities(ws, i, tau, dq != NULL, si_known);
  else
    for (int k = k0; k < k0 + nk; ++k) backward_velocity_body(ws, i, k, tau, dq != NULL, si_known);
  if (unit) {
    unit_node_entries(ws, k0, dq, dv, M);
    return;
  }
  for (int j = k0; j < k0 + nk; ++j) {
    const mbt_real *SI = ws->SI[j], *Sj = ws->S[j], *J = ws->J;
    for (int k = k0; k < k0 + nk; ++k) {
      if (M) M[(size_t)j * nv + k] = mbt__v6_dot(SI, ws->S[k]);
      if (!dq) continue;
      mbt_real q = 0, v = 0;
      if (moves_with(L->type, j - k0, k - k0)) {
        for (int r = 0; r < 3; ++r) q += J[(MBT_J_SY + r) * nv + (size_t)j] * ws->Wk[k][r];
        q += mbt__v6_dot(SI, ws->Bk[k]);
      } else {
        for (int r = 0; r < 6; ++r) q += Sj[r] * J[(MBT_J_PHI + r) * nv + (size_t)k];
      }
      for (int r = 0; r < 6; ++r) v += Sj[r] * J[(MBT_J_OMEGA + r) * nv + (size_t)k];
      dq[(size_t)j * nv + k] = q, dv[(size_t)j * nv + k] = v;
    }
    if (M)
      for (int k = ws->up[k0]; k >= 0; k = ws->up[k])
        M[(size_t)j * nv + k] = M[(size_t)k * nv + j] = mbt__v6_dot(SI, ws->S[k]);
  }
}

/* backward_node of every local node (the subtree sums complete), with lanes four one-velocity
 * nodes at a time (velocity_rows4). */
MBT__ALWAYS_INLINE void backward_nodes(const mbt_tree* tree, mbt_derivatives_workspace* ws, mbt_real* tau,
                                       mbt_real* dq, mbt_real* dv, mbt_real* M, bool si_known, bool lanes) {
  const int nl = ws->nl;
  for (int i = 1; i < nl;) {
#ifdef MBT__DERIV_LANES
    /* the last nodes, fewer than four, in the block of the last four (the nodes before i in it
       computed again, to the same numbers) */
    const int b = i + 3 < nl ? i : nl - 4;
    const mbt_local_node* L = &tree->local_nodes[b];
    if (lanes && b > 0 && L[0].nv == 1 && L[1].nv == 1 && L[2].nv == 1 && L[3].nv == 1) {
      /* Ic·S kept for M or a later pass; by the bias pass on a chain (tau without dq) also in the
         rows of ws->J, where the chain's pass at v̇ leaves them (chain_vdot_rows4) */
      velocity_rows4(ws, b, tau, dq, dv, si_known, !dq || M, tau && !dq && ws->revolute_chain);
      if (M)
        for (int l = i - b; l < 4; ++l) mass_matrix_row(ws, L->v_start + l, M);
      i = b + 4;
      continue;
    }
#else
    (void)lanes;
#endif
    backward_node(tree, ws, i, tau, dq, dv, M, si_known, lanes);
    ++i;
  }
}

/* tau += D·v + K·(q − q0) − tau_app, ∂tau/∂v += D, ∂tau/∂q += K (revolute springs). */
static void add_joint_forces(const mbt_tree* tree, const mbt_context* ctx, const mbt_real* v, const mbt_real* tau_app,
                             mbt_real* tau, mbt_real* dq, mbt_real* dv) {
  const int nv = tree->nv;
  for (int k = 0; k < nv; ++k) {
    if (tau) tau[k] += (v ? ctx->damping[k] * v[k] : 0) - (tau_app ? tau_app[k] : 0);
    if (dv) dv[(size_t)k * nv + k] += ctx->damping[k];
  }
  for (int e = 0; e < tree->num_forces; ++e) {
    const mbt_force_element* fe = &tree->forces[e];
    if (fe->type != MBT_FORCE_REVOLUTE_SPRING) continue;
    const mbt_mobilizer* mob = &tree->mobilizers[tree->joints[fe->u.revolute_spring.joint].mobilizer];
    const mbt_real k = fe->u.revolute_spring.stiffness;
    if (tau) tau[mob->v_start] += k * (ctx->q[mob->q_start] - fe->u.revolute_spring.nominal_angle);
    if (dq) dq[(size_t)mob->v_start * nv + mob->v_start] += k;
  }
}

/* Per node, its world-frame inertia, f and Y (forward_node_inertia; with lanes four nodes at a
 * time, node_inertias4, the last two or three nodes in the block of the last four); Ib, the
 * node's own inertia, kept for the passes at v̇ and M⁻¹ (keep_ib: a pass without ∂tau/∂(q, v);
 * the one with them leaves it, 2.5 kB fewer stores on the 30-chain). chain: a revolute chain's
 * pass (chain_passes), V and A of its blocks as lanes (chain_lanes_block) and, with keep_ib, the
 * blocks' Ic left unstored (chain_subtree_sums forms it from Ib: 2.2 kB fewer stores). */
MBT__ALWAYS_INLINE void node_inertias(const mbt_context* ctx, mbt_derivatives_workspace* ws, bool lanes,
                                      bool keep_ib, bool chain) {
  const int nl = ws->nl;
  int i0 = 1;
#ifdef MBT__DERIV_LANES
  if (lanes && nl > 4) {
    for (; i0 + 3 < nl; i0 += 4)
      node_inertias4(ctx, ws, i0, keep_ib, chain, chain && chain_lanes_block(ws, i0));
    if (i0 + 1 < nl) node_inertias4(ctx, ws, nl - 4, keep_ib, chain, false), i0 = nl;
  }
#else
  (void)lanes, (void)chain;
#endif
  for (int i = i0; i < nl; ++i) forward_node_inertia(ctx, ws, i, keep_ib);
}

/* The passes of mbt__id_derivatives, compiled three times (MBT_DERIV_PASSES_LANES): base to tip
 * (forward_node); per node, its world-frame inertia, f and Y (node_inertias); tip to base, the
 * subtree sums (add_to_parent); per node, its velocities' products and entries (backward_nodes). */
MBT__ALWAYS_INLINE void id_passes_body(const mbt_tree* tree, const mbt_context* ctx, mbt_derivatives_workspace* ws,
                                       const mbt_real* v, const mbt_real* vdot, mbt_real* tau, mbt_real* dq,
                                       mbt_real* dv, mbt_real* M, bool lanes) {
  const int nl = tree->num_local_nodes;
#ifdef MBT__DERIV_LANES
  if (lanes && ws->forward_steps) {
    for (int s = 0; s < ws->num_forward_steps; ++s) {
      const int* n = ws->forward_steps + 4 * s;
      if (n[1] >= 0)
        forward_revolute4(ctx, ws, n, v, vdot);
      else
        forward_node(tree, ctx, ws, n[0], v, vdot, true);
    }
  } else
#endif
    for (int i = 1; i < nl; ++i) forward_node(tree, ctx, ws, i, v, vdot, lanes);
  node_inertias(ctx, ws, lanes, dq == NULL, false);
  for (int i = nl - 1; i > 0; --i) {
#ifdef MBT__DERIV_LANES
    const int p = tree->local_nodes[i].parent;
    if (lanes) {
      if (p > 0) add_to_parent_wide(ws, i, p);
      continue;
    }
#endif
    add_to_parent(tree, ws, i);
  }
  backward_nodes(tree, ws, tau, dq, dv, M, false, lanes);
}
MBT_DERIV_PASSES_LANES(id_passes,
                       (const mbt_tree* tree, const mbt_context* ctx, mbt_derivatives_workspace* ws, const mbt_real* v,
                        const mbt_real* vdot, mbt_real* tau, mbt_real* dq, mbt_real* dv, mbt_real* M),
                       (tree, ctx, ws, v, vdot, tau, dq, dv, M), (tree, ctx, ws, v, vdot, tau, dq, dv, M))

/* id_passes on a revolute chain (ws->revolute_chain), a function of its own (the other trees'
 * passes keep their code as it was): with lanes the forward step in two steps (forward_chain) and
 * the subtree sums in registers (chain_subtree_sums); the baseline copy runs id_passes_body. */
MBT__ALWAYS_INLINE void chain_passes_body(const mbt_tree* tree, const mbt_context* ctx, mbt_derivatives_workspace* ws,
                                          const mbt_real* v, const mbt_real* vdot, mbt_real* tau, mbt_real* dq,
                                          mbt_real* dv, mbt_real* M, bool lanes) {
#ifdef MBT__DERIV_LANES
  if (lanes) {
    forward_chain(tree, ctx, ws, v, vdot);
    node_inertias(ctx, ws, true, dq == NULL, true);
    chain_subtree_sums(ws, dq == NULL ? ws->Ib : ws->Ic);
    backward_nodes(tree, ws, tau, dq, dv, M, false, true);
    return;
  }
#endif
  id_passes_body(tree, ctx, ws, v, vdot, tau, dq, dv, M, lanes);
}
MBT_DERIV_PASSES_LANES(chain_passes,
                       (const mbt_tree* tree, const mbt_context* ctx, mbt_derivatives_workspace* ws, const mbt_real* v,
                        const mbt_real* vdot, mbt_real* tau, mbt_real* dq, mbt_real* dv, mbt_real* M),
                       (tree, ctx, ws, v, vdot, tau, dq, dv, M), (tree, ctx, ws, v, vdot, tau, dq, dv, M))

/* −p_WoO for the point O about which the recursions take their spatial quantities: the origin
 * of the first moving frame at the current q, fixed while differentiating (tau and its
 * derivatives do not depend on O; a point on the robot keeps the moments small wherever the
 * robot is, as the local-frame algorithms do). */
static mbt_vec3 reference_point(const mbt_tree* tree, const mbt_context* ctx) {
  if (tree->num_local_nodes < 2) return mbt_vec3_zero();
  const mbt_local_node* L = &tree->local_nodes[1];
  mbt_transform X_FM;
  mbt_spatial_velocity H[6];
  if (L->type == MBT_MOBILIZER_QUATERNION_FLOATING) { /* p_FoMo = q[4..6], no rotation or H */
    const mbt_real* q = ctx->q + L->q_start;
    X_FM.p = mbt_vec3_make(q[4], q[5], q[6]);
  } else {
    local_X_FM_H(tree, ctx, L, &X_FM, H);
  }
  const mbt_vec3 p = mbt_vec3_add(L->X_AF.p, mbt_mat3_mul_vec(&L->X_AF.R, X_FM.p));
  return mbt_vec3_make(-p.v[0], -p.v[1], -p.v[2]);
}

/* ∂tau/∂(q, v) cleared from row ws->zero_rows_from on (their entries in other branches stay zero;
 * the passes and the pair sweep write all the others). */
static void clear_branched_rows(const mbt_derivatives_workspace* ws, mbt_real* dq, mbt_real* dv) {
  const size_t nv = (size_t)ws->nv, o = (size_t)ws->zero_rows_from * nv, n = (nv * nv - o) * sizeof(mbt_real);
  if (n > 0) memset(dq + o, 0, n), memset(dv + o, 0, n);
}

void mbt__id_derivatives(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws, const mbt_real* v,
                         const mbt_real* vdot, mbt_vec3 g_W, bool joint_forces, const mbt_real* tau_app,
                         mbt_real* tau, mbt_real* dtau_dq, mbt_real* dtau_dv, mbt_real* M) {
  const int nv = tree->nv;
  const size_t nn = (size_t)nv * (size_t)nv;
  mbt__calc_joint_sincos(tree, ctx);
  if (dtau_dq) clear_branched_rows(ws, dtau_dq, dtau_dv);
  if (M) memset(M, 0, nn * sizeof(mbt_real));
  ws->X_WM[0] = mbt_transform_identity();
  ws->X_WM[0].p = reference_point(tree, ctx);
  for (int r = 0; r < 6; ++r) ws->V[0][r] = 0, ws->A[0][r] = 0;
  for (int r = 0; r < 3; ++r) ws->A[0][3 + r] = -g_W.v[r];
  if (ws->revolute_chain)
    chain_passes(tree, ctx, ws, v, vdot, tau, dtau_dq, dtau_dv, M);
  else
    id_passes(tree, ctx, ws, v, vdot, tau, dtau_dq, dtau_dv, M);
  if (dtau_dq) descendant_pairs(ws, dtau_dq, dtau_dv);
  if (joint_forces) add_joint_forces(tree, ctx, v, tau_app, tau, dtau_dq, dtau_dv);
}

void mbt__derivatives_bias(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                           const mbt_real* tau_app, mbt_real* tau0) {
  mbt__id_derivatives(tree, ctx, ws, ctx->v, NULL, ctx->g_W, true, tau_app, tau0, NULL, NULL, NULL);
}

/* ΔF = Ib·ΔA of every node in place (mbt__moments_mul6 reads x first; with lanes four nodes at a
 * time, the last one to three in the block of the last four, from ΔA kept apart), then summed
 * tip to base onto F (with lanes by 4- and 2-wide adds). */
MBT__ALWAYS_INLINE void node_forces_at_vdot(const mbt_tree* tree, mbt_derivatives_workspace* ws, bool lanes) {
  mbt_v6* dA = ws->dF;
  const int nl = ws->nl;
#ifdef MBT__DERIV_LANES
  if (lanes && nl > 4) {
    v4 I[10], x[6], y[6], last[6];
    load6x4(dA[nl - 4], last);
    for (int i0 = 1; i0 < nl; i0 += 4) {
      const int b = i0 + 3 < nl ? i0 : nl - 4;
      load_moments4(&ws->Ib[b], I);
      if (b == i0)
        load6x4(dA[b], x);
      else
        for (int r = 0; r < 6; ++r) x[r] = last[r];
      mul6_4(I, x, y);
      store6x4(y, dA[b]);
    }
    for (int i = nl - 1; i > 0; --i) {
      const int p = tree->local_nodes[i].parent;
      add_wide(ws->F[i], dA[i], 6);
      if (p > 0) add_wide(dA[p], dA[i], 6);
    }
    return;
  }
#else
  (void)lanes;
#endif
  for (int i = nl - 1; i > 0; --i) mbt__moments_mul6(&ws->Ib[i], dA[i], dA[i]);
  for (int i = nl - 1; i > 0; --i) {
    const int p = tree->local_nodes[i].parent;
    for (int r = 0; r < 6; ++r) ws->F[i][r] += dA[i][r];
    if (p > 0)
      for (int r = 0; r < 6; ++r) dA[p][r] += dA[i][r];
  }
}

/* move_to_vdot of a quaternion-floating node (velocities k0..k0 + 5): its rotational columns
 * move with its translations (moves_with), so Δaλ_k = ΔA_t = ΔA_λ + Σ_{m ≥ 3} S_m·v̇_m for the
 * translational columns k ≥ 3 and ΔA = ΔA_t + Σ_{m < 3} S_m·v̇_m for the rotational ones. */
MBT__ALWAYS_INLINE void floating_move_to_vdot(mbt_derivatives_workspace* ws, int k0, const mbt_real* vdot,
                                              const mbt_real* dAp, mbt_real* dA) {
  mbt_v6 dAt, t;
  for (int r = 0; r < 6; ++r) dAt[r] = dAp[r];
  for (int m = k0 + 3; m < k0 + 6; ++m)
    for (int r = 0; r < 6; ++r) dAt[r] += ws->S[m][r] * vdot[m];
  for (int r = 0; r < 6; ++r) dA[r] = dAt[r];
  for (int m = k0; m < k0 + 3; ++m)
    for (int r = 0; r < 6; ++r) dA[r] += ws->S[m][r] * vdot[m];
  for (int k = k0; k < k0 + 6; ++k) {
    mbt__v6_cross(ws->S[k], k < k0 + 3 ? dA : dAt, t);
    for (int r = 0; r < 6; ++r) ws->Bk[k][r] -= t[r];
  }
}

/* The pass of mbt__derivatives_bias moved to v̇: per local node i, with ΔA the change of its
 * acceleration (ΔA_λ + Σ_j S_j·v̇_j), Δaλ_k = ΔA_λ + Σ_{m, σ_mk = 0} S_m·v̇_m (= ΔA where no
 * column of the node moves with another: S_k × S_k = 0),
 *   B_k −= S_k × Δaλ_k,  ΔF = Ib·ΔA (then summed over the subtree into F: node_forces_at_vdot).
 * A itself is not moved: the backward pass does not read it. With lanes a one-velocity node's
 * ΔA by 4- and 2-wide operations. */
MBT__ALWAYS_INLINE void move_to_vdot(const mbt_tree* tree, mbt_derivatives_workspace* ws, const mbt_real* vdot,
                                     bool lanes) {
  mbt_v6* dA = ws->dF;  /* ΔA base to tip, then ΔF tip to base */
  for (int r = 0; r < 6; ++r) dA[0][r] = 0;
  for (int i = 1; i < ws->nl; ++i) {
    const mbt_local_node* L = &tree->local_nodes[i];
    const int k0 = L->v_start, nk = L->nv;
    const mbt_real* dAp = dA[L->parent];
#ifdef MBT__DERIV_LANES
    if (lanes && nk == 1) {
      const mbt_real *S = ws->S[k0], a = vdot[k0];
      mbt_real *d = dA[i], *B = ws->Bk[k0];
      *(mbt__v4u*)d = *(const mbt__v4u*)dAp + *(const mbt__v4u*)S * a;
      *(mbt__v2u*)(d + 4) = *(const mbt__v2u*)(dAp + 4) + *(const mbt__v2u*)(S + 4) * a;
      mbt_v6 t; /* B −= t one number at a time: t was just stored so, and a 4-wide load would wait */
      mbt__v6_cross(S, d, t);
      for (int r = 0; r < 6; ++r) B[r] -= t[r];
      continue;
    }
#endif
    if (L->type == MBT_MOBILIZER_QUATERNION_FLOATING) {
      floating_move_to_vdot(ws, k0, vdot, dAp, dA[i]);
      continue;
    }
    const bool moving = L->type == MBT_MOBILIZER_UNIVERSAL || L->type == MBT_MOBILIZER_PLANAR;
    mbt_v6 dAi;
    memcpy(dAi, dAp, sizeof dAi);
    for (int m = k0; m < k0 + nk; ++m)
      for (int r = 0; r < 6; ++r) dAi[r] += ws->S[m][r] * vdot[m];
    memcpy(dA[i], dAi, sizeof dAi);
    for (int k = k0; k < k0 + nk; ++k) {
      mbt_v6 da, t;
      const mbt_real* d = dAi;
      if (moving) {
        memcpy(da, dAp, sizeof da);
        for (int m = k0; m < k0 + nk; ++m)
          if (!moves_with(L->type, m - k0, k - k0))
            for (int r = 0; r < 6; ++r) da[r] += ws->S[m][r] * vdot[m];
        d = da;
      }
      mbt__v6_cross(ws->S[k], d, t);
      for (int r = 0; r < 6; ++r) ws->Bk[k][r] -= t[r];
    }
  }
  node_forces_at_vdot(tree, ws, lanes);
}

/* The passes of mbt__derivatives_at_vdot: move_to_vdot, then backward_node with the Ic·S of the
 * pass at v̇ = 0 (Ic and S, so Ic·S, are those of that pass); compiled three times. */
MBT__ALWAYS_INLINE void vdot_passes_body(const mbt_tree* tree, mbt_derivatives_workspace* ws, const mbt_real* vdot,
                                         mbt_real* dq, mbt_real* dv, bool lanes) {
  move_to_vdot(tree, ws, vdot, lanes);
  backward_nodes(tree, ws, NULL, dq, dv, NULL, true, lanes);
}
MBT_DERIV_PASSES_LANES(vdot_passes,
                       (const mbt_tree* tree, mbt_derivatives_workspace* ws, const mbt_real* vdot, mbt_real* dq,
                        mbt_real* dv),
                       (tree, ws, vdot, dq, dv), (tree, ws, vdot, dq, dv))

/* vdot_passes on a revolute chain of four or more nodes (ws->revolute_chain), a function of its
 * own as chain_passes: with lanes ΔA base to tip (node i's velocity is i − 1), then the blocks of
 * four nodes tip to base (chain_vdot_rows4: B and F moved to v̇ and the rows of ws->J in one step,
 * ΔF summed onto F as it goes), the first nodes, fewer than four, in the block of the first four
 * (the nodes after them in it computed again from the same sums below, their B not moved twice),
 * the in-node entries S·Φ, S·Ω into dq, dv where entries (the structured products read the rows
 * alone); the baseline copy runs vdot_passes_body. */
MBT__ALWAYS_INLINE void chain_vdot_passes_body(const mbt_tree* tree, mbt_derivatives_workspace* ws,
                                               const mbt_real* vdot, mbt_real* dq, mbt_real* dv, bool entries,
                                               bool lanes) {
#ifdef MBT__DERIV_LANES
  if (lanes && ws->nl > 4) {
    const int nl = ws->nl;
    if (!entries) dq = dv = NULL; /* the rows of ws->J alone (chain_vdot_rows4) */
    v4 a = {0, 0, 0, 0};
    mbt__v2u b = {0, 0};
    for (int i = 1; i < nl; ++i) { /* ΔA_i = ΔA_i−1 + S·v̇ */
      const mbt_real* S = ws->S[i - 1];
      a += *(const mbt__v4u*)S * vdot[i - 1], b += *(const mbt__v2u*)(S + 4) * vdot[i - 1];
      *(mbt__v4u*)ws->dF[i] = a, *(mbt__v2u*)(ws->dF[i] + 4) = b;
    }
    const v4 all = {1, 1, 1, 1};
    v4 c[6], X[6];
    for (int r = 0; r < 6; ++r) c[r] = (v4){0, 0, 0, 0};
    int i0 = nl - 4;
    for (; i0 >= 1; i0 -= 4) chain_vdot_rows4(ws, i0, &all, c, X, dq, dv);
    const int n = i0 + 3; /* the nodes 1..n left, n < 4; the block after them starts at n + 1 */
    if (n > 0) {
      const v4 own = {1, n > 1, n > 2, 0};
      for (int r = 0; r < 6; ++r) c[r] = all * X[r][4 - n]; /* the sum from node 5 on */
      chain_vdot_rows4(ws, 1, &own, c, X, dq, dv);
    }
    return;
  }
#else
  (void)entries;
#endif
  vdot_passes_body(tree, ws, vdot, dq, dv, lanes);
}
MBT_DERIV_PASSES_LANES(chain_vdot_passes,
                       (const mbt_tree* tree, mbt_derivatives_workspace* ws, const mbt_real* vdot, mbt_real* dq,
                        mbt_real* dv, bool entries),
                       (tree, ws, vdot, dq, dv, entries), (tree, ws, vdot, dq, dv, entries))

void mbt__derivatives_at_vdot(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                              const mbt_real* vdot, const mbt_real* tau_app, mbt_real* dtau_dq, mbt_real* dtau_dv) {
  clear_branched_rows(ws, dtau_dq, dtau_dv);
  if (ws->revolute_chain)
    chain_vdot_passes(tree, ws, vdot, dtau_dq, dtau_dv, true);
  else
    vdot_passes(tree, ws, vdot, dtau_dq, dtau_dv);
  descendant_pairs(ws, dtau_dq, dtau_dv);
  add_joint_forces(tree, ctx, ctx->v, tau_app, NULL, dtau_dq, dtau_dv);
}

void mbt__derivatives_rows_at_vdot(const mbt_tree* tree, mbt_derivatives_workspace* ws, const mbt_real* vdot,
                                   mbt_real* dq, mbt_real* dv) {
  chain_vdot_passes(tree, ws, vdot, dq, dv, false);
}

void mbt__derivatives_kinematics(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                  const mbt_real* v, const mbt_real* vdot) {
  mbt__calc_joint_sincos(tree, ctx);
  ws->X_WM[0] = mbt_transform_identity();
  for (int r = 0; r < 6; ++r) ws->V[0][r] = 0, ws->A[0][r] = 0;
  for (int i = 1; i < tree->num_local_nodes; ++i) forward_node(tree, ctx, ws, i, v, vdot, false);
}

int mbt_calc_inverse_dynamics_derivatives(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                          const mbt_real* known_vdot, const mbt_real* tau_app, mbt_real* tau,
                                          mbt_real* dtau_dq, mbt_real* dtau_dv, mbt_real* M) {
  const char* what = "calc_inverse_dynamics_derivatives";
  int st = mbt__derivatives_check(tree, ctx, ws, what);
  if (st) return st;
  if ((!dtau_dq || !dtau_dv) && tree->nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: dtau_dq and dtau_dv are required", what);
  mbt__id_derivatives(tree, ctx, ws, ctx->v, known_vdot, ctx->g_W, true, tau_app, tau, dtau_dq, dtau_dv,
                      M);
  return MBT_OK;
}
