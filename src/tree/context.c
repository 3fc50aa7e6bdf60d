/* context.c: the state of a tree (seed: CreateDefaultContext, SetDefaultContext), its
 * per-context parameters, and all the memory the algorithms use, allocated here once. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mobilizers/mobilizer_kernels.h"
#include "tree/context_internal.h"

int mbt__context_error(const mbt_context* ctx, int status, const char* fmt, ...) {
  if (ctx) {
    mbt_context* c = (mbt_context*)ctx; /* the error buffer may be written by const calls */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->error, sizeof c->error, fmt, ap);
    va_end(ap);
  }
  return status;
}

const char* mbt_context_last_error(const mbt_context* ctx) { return ctx ? ctx->error : ""; }

/* calloc that never returns NULL for n = 0 on success. */
static void* alloc(size_t n, size_t size, bool* failed) {
  void* p = calloc(n > 0 ? n : 1, size);
  if (!p) *failed = true;
  return p;
}

void mbt_context_destroy(mbt_context* ctx) {
  if (!ctx) return;
  free(ctx->q);
  free(ctx->v);
  free(ctx->damping);
  free(ctx->M_BBo_B);
  free(ctx->I_Mo_M);
  free(ctx->I_cm_M);
  free(ctx->mp_BoBcm_M);
  free(ctx->mp_BoBcm_W);
  free(ctx->joint_locked);
  free(ctx->v_locked);
  free(ctx->pc.X_WM);
  free(ctx->pc.p_WoRo);
  free(ctx->pc.H);
  free(ctx->vc.V);
  free(ctx->vc.c);
  free(ctx->ac.A_WB);
  free(ctx->aba.I_Ro);
  free(ctx->aba.Ic_trace);
  free(ctx->aba.P);
  free(ctx->aba.flags);
  free(ctx->aba.U);
  free(ctx->aba.D_inv);
  free(ctx->aba.D_LLT);
  free(ctx->aba.Z);
  free(ctx->aba.e);
  free(ctx->aba.A);
  free(ctx->aba.dof_parent);
  free(ctx->aba.node_last_dof);
  free(ctx->aba.M_diag);
  free(ctx->scratch_F);
  free(ctx->scratch_Ic);
  free(ctx->v_parent);
  free(ctx->v_unit_end);
  for (int i = 0; i < 4; ++i) free(ctx->scratch_nv[i]);
  free(ctx->scratch_nvnv);
  free(ctx->scratch_local);
  free(ctx->sin_q);
  free(ctx->cos_q);
  mbt_multibody_forces_destroy(ctx->forces);
  free(ctx->v_run_start);
  free(ctx->crba_F);
  free(ctx->v_subtree_end);
  free(ctx->crba_rows);
  free(ctx->crba_H);
  free(ctx);
}

/* The state, the parameters and the kinematics caches (per local node, per velocity). */
static void alloc_state_and_caches(const mbt_tree* tree, mbt_context* ctx, bool* failed) {
  const size_t nn = (size_t)tree->num_nodes, nq = (size_t)tree->nq, nv = (size_t)tree->nv;
  ctx->q = alloc(nq, sizeof(mbt_real), failed);
  ctx->v = alloc(nv, sizeof(mbt_real), failed);
  ctx->damping = alloc(nv, sizeof(mbt_real), failed);
  ctx->M_BBo_B = alloc(nn, sizeof(mbt_spatial_inertia), failed);
  ctx->I_Mo_M = alloc((size_t)tree->num_local_nodes, sizeof(mbt_inertia_moments), failed);
  ctx->I_cm_M = alloc((size_t)tree->num_local_nodes, sizeof(mbt_inertia_central), failed);
  ctx->mp_BoBcm_M = alloc(nn, sizeof(mbt_vec3), failed);
  ctx->mp_BoBcm_W = alloc(nn, sizeof(mbt_vec3), failed);
  ctx->joint_locked = alloc((size_t)tree->num_joints, sizeof(bool), failed);
  ctx->v_locked = alloc(nv, sizeof(bool), failed);
  const size_t nl = (size_t)tree->num_local_nodes;
  ctx->pc.X_WM = alloc(nl, sizeof(mbt_transform), failed);
  ctx->pc.p_WoRo = alloc(nl, sizeof(mbt_vec3), failed);
  ctx->pc.H = alloc(nv, sizeof(mbt_spatial_velocity), failed);
  ctx->vc.V = alloc(nl, sizeof(mbt_spatial_velocity), failed);
  ctx->vc.c = alloc(nl, sizeof(mbt_spatial_acceleration), failed);
  ctx->ac.A_WB = alloc(nn, sizeof(mbt_spatial_acceleration), failed);
}

/* The articulated-body algorithm's cache (per local node and per velocity). */
static void alloc_aba_cache(const mbt_tree* tree, mbt_aba_cache* aba, bool* failed) {
  const size_t nv = (size_t)tree->nv, nl = (size_t)tree->num_local_nodes;
  aba->I_Ro = alloc(nl, sizeof(mbt_inertia_moments), failed);
  aba->Ic_trace = alloc(nl, sizeof(mbt_real), failed);
  aba->P = alloc(nl, sizeof(mbt_aba_inertia), failed);
  aba->flags = alloc(nl, sizeof(unsigned char), failed);
  aba->U = alloc(nv, sizeof(mbt_spatial_force), failed);
  aba->D_inv = alloc(nv, sizeof(mbt_real), failed);
  aba->D_LLT = alloc(6 * nv, sizeof(mbt_real), failed);
  aba->Z = alloc(nl, sizeof(mbt_spatial_force), failed);
  aba->e = alloc(nv, sizeof(mbt_real), failed);
  aba->A = alloc(nl, sizeof(mbt_spatial_acceleration), failed);
  aba->dof_parent = alloc(nv, sizeof(int), failed);
  aba->node_last_dof = alloc(nl, sizeof(int), failed);
  aba->M_diag = alloc(nv, sizeof(mbt_real), failed);
}

/* The algorithms' scratch memory and the force elements' output. */
static void alloc_scratch(const mbt_tree* tree, mbt_context* ctx, bool* failed) {
  const size_t nn = (size_t)tree->num_nodes, nq = (size_t)tree->nq, nv = (size_t)tree->nv;
  const size_t nl = (size_t)tree->num_local_nodes;
  ctx->scratch_F = alloc(nn, sizeof(mbt_spatial_force), failed);
  ctx->scratch_Ic = alloc(nl, sizeof(mbt_inertia_moments), failed);
  ctx->v_parent = alloc(nv, sizeof(int), failed);
  ctx->v_unit_end = alloc(nv, sizeof(int), failed);
  for (int i = 0; i < 4; ++i) ctx->scratch_nv[i] = alloc(nv, sizeof(mbt_real), failed);
  ctx->scratch_nvnv = nv <= MBT_DENSE_MAX_NV ? alloc(nv * nv, sizeof(mbt_real), failed) : NULL;
  ctx->scratch_local = alloc(nl, sizeof(mbt_local_scratch), failed);
  ctx->sin_q = alloc(nq, sizeof(mbt_real), failed);
  ctx->cos_q = alloc(nq, sizeof(mbt_real), failed);
  ctx->forces = mbt_multibody_forces_create(tree);
  if (!ctx->forces) *failed = true;
  ctx->v_run_start = alloc(nv, sizeof(int), failed);
  ctx->crba_F = alloc(6 * nv + 3, sizeof(mbt_real), failed); /* + 3: four-lane loads */
  ctx->v_subtree_end = alloc(nv, sizeof(int), failed);
  ctx->crba_rows = alloc(4 * nv, sizeof(mbt_real), failed);
  ctx->crba_H = alloc(6 * nv, sizeof(mbt_real), failed);
}

/* The world's pose, reference point and velocity, which no pass writes. */
static void init_kinematics_caches(mbt_context* ctx) {
  ctx->pc.X_WM[0] = mbt_transform_identity();
  ctx->pc.p_WoRo[0] = mbt_vec3_zero();
  ctx->vc.V[0].w = ctx->vc.V[0].v = mbt_vec3_zero();
}

/* λ(k) of every velocity (context_internal.h: v_parent), whether λ(k) = k − 1 for all k, the
 * sum of the paths' lengths: len(k) = 0 without λ(k), else 1 + len(λ(k)) (λ(k) < k in
 * body-node order), one pass in O(nv) with the lengths held in scratch_nv[0]; and the unit
 * columns at the top of each path (v_unit_end), inherited from the parent local node; and the
 * first velocity of the run of consecutive ones ending at each (v_run_start). */
static void init_v_parent(const mbt_tree* tree, mbt_context* ctx) {
  for (int i = 1; i < tree->num_local_nodes; ++i) {
    const mbt_local_node* L = &tree->local_nodes[i];
    const mbt_local_node* P = &tree->local_nodes[L->parent];
    const int end = L->parent > 0 ? ctx->v_unit_end[P->v_start] : (L->S_is_identity ? L->v_start + 6 : 0);
    for (int k = 0; k < L->nv; ++k) ctx->v_unit_end[L->v_start + k] = end;
  }
  for (int n = 1; n < tree->num_nodes; ++n) {
    const mbt_node* node = &tree->nodes[n];
    int a = node->parent_node;
    while (a > 0 && tree->nodes[a].nv == 0) a = tree->nodes[a].parent_node;
    for (int k = 0; k < node->nv; ++k)
      ctx->v_parent[node->v_start + k] =
          k > 0 ? node->v_start + k - 1 : (a > 0 ? tree->nodes[a].v_start + tree->nodes[a].nv - 1 : -1);
  }
  ctx->v_parent_is_chain = true;
  ctx->v_path_sum = 0;
  mbt_real* len = ctx->scratch_nv[0];
  for (int k = 0; k < tree->nv; ++k) {
    const int p = ctx->v_parent[k];
    if (p != k - 1) ctx->v_parent_is_chain = false;
    len[k] = p >= 0 ? 1 + len[p] : 0;
    ctx->v_path_sum += (size_t)len[k];
  }
  for (int k = 0; k < tree->nv; ++k) len[k] = 0;
  for (int k = 0; k < tree->nv; ++k)
    ctx->v_run_start[k] = k > 0 && ctx->v_parent[k] == k - 1 ? ctx->v_run_start[k - 1] : k;
  /* The subtrees' ends, tip to base: λ(k) < k, so k's end is final when λ(k)'s takes it. */
  for (int k = 0; k < tree->nv; ++k) ctx->v_subtree_end[k] = k + 1;
  for (int k = tree->nv - 1; k >= 0; --k) {
    const int p = ctx->v_parent[k];
    if (p >= 0 && ctx->v_subtree_end[p] < ctx->v_subtree_end[k]) ctx->v_subtree_end[p] = ctx->v_subtree_end[k];
  }
}

mbt_context* mbt_context_create(const mbt_tree* tree) {
  if (!tree) return NULL;
  if (!tree->finalized) {
    mbt__tree_error(tree, MBT_ERR_NOT_FINALIZED, "mbt_context_create: the tree is not finalized");
    return NULL;
  }
  mbt_context* ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "mbt_context_create: out of memory");
    return NULL;
  }
  bool failed = false;
  ctx->tree = tree;
  alloc_state_and_caches(tree, ctx, &failed);
  alloc_aba_cache(tree, &ctx->aba, &failed);
  alloc_scratch(tree, ctx, &failed);
  if (failed) {
    mbt_context_destroy(ctx);
    mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "mbt_context_create: out of memory");
    return NULL;
  }
  init_kinematics_caches(ctx);
  init_v_parent(tree, ctx);
  mbt_tree_set_default_context(tree, ctx);
  return ctx;
}

/* M_SBo_B of a body moved to the frame H with X_HB, added to moments about Ho in H:
 * p_HoScm = p_HoBo + R_HB·p_BoScm, G_SHo = R_HB·(G_SBo − G(p_BoScm))·R_HBᵀ + G(p_HoScm) (parallel-axis
 * theorem through Scm, G(p) = |p|²·1 − p·pᵀ), then h = m·p_HoScm, K = m·G_SHo. */
static void moments_add_body(mbt_inertia_moments* I, const mbt_spatial_inertia* M_SBo_B, const mbt_transform* X_HB) {
  const mbt_real m = M_SBo_B->mass;
  const mbt_vec3 c_B = M_SBo_B->p_PScm_E;
  mbt_unit_inertia G = M_SBo_B->G_SP_E;
  const mbt_unit_inertia Gc = mbt_unit_inertia_point_mass(c_B);
  G.xx -= Gc.xx, G.yy -= Gc.yy, G.zz -= Gc.zz, G.xy -= Gc.xy, G.xz -= Gc.xz, G.yz -= Gc.yz;
  const mbt_vec3 c_H = mbt_vec3_add(X_HB->p, mbt_mat3_mul_vec(&X_HB->R, c_B));
  G = mbt_unit_inertia_reexpress(&G, &X_HB->R);
  const mbt_unit_inertia Gp = mbt_unit_inertia_point_mass(c_H);
  I->K[0] += m * (G.xx + Gp.xx), I->K[1] += m * (G.yy + Gp.yy), I->K[2] += m * (G.zz + Gp.zz);
  I->K[3] += m * (G.xy + Gp.xy), I->K[4] += m * (G.xz + Gp.xz), I->K[5] += m * (G.yz + Gp.yz);
  I->h = mbt_vec3_axpy(I->h, m, c_H);
  I->m += m;
}

/* m·R_HB·p_BoBcm_B: the body's first mass moment about Bo, in its host's frame H. */
static mbt_vec3 body_first_moment_in_host(const mbt_spatial_inertia* M_SBo_B, const mbt_transform* X_HB) {
  return mbt_vec3_scale(mbt_mat3_mul_vec(&X_HB->R, M_SBo_B->p_PScm_E), M_SBo_B->mass);
}

/* The central form of moments {m, h, K} about Mo (mbt_inertia_central): c = h/m (0 without mass),
 * K_cm = K − m·(|c|²·1 − c·cᵀ) = Σ_k λ_k·e_k·e_kᵀ (mbt_mat3_symmetric_eigen, λ₀ <= λ₁ <= λ₂),
 * λ = λ₀, a = √(λ₂ − λ₀)·e₂, b = √(λ₁ − λ₀)·e₁. */
static void inertia_central_form(const mbt_inertia_moments* I, mbt_inertia_central* C) {
  const mbt_real m = I->m;
  const mbt_vec3 c = mbt_lt(0, m) ? mbt_vec3_scale(I->h, 1 / m) : mbt_vec3_zero();
  const mbt_real cc = mbt_vec3_dot(c, c);
  const mbt_real mx = m * c.v[0], my = m * c.v[1];
  const mbt_mat3 K = {{{I->K[0] - m * (cc - c.v[0] * c.v[0]), I->K[3] + mx * c.v[1], I->K[4] + mx * c.v[2]},
                       {0, I->K[1] - m * (cc - c.v[1] * c.v[1]), I->K[5] + my * c.v[2]},
                       {0, 0, I->K[2] - m * (cc - c.v[2] * c.v[2])}}};
  mbt_vec3 lam;
  mbt_mat3 V;
  mbt_mat3_symmetric_eigen(&K, &lam, &V);
  const mbt_real sa = mbt_sqrt(lam.v[2] - lam.v[0]), sb = mbt_sqrt(lam.v[1] - lam.v[0]);
  C->m = m;
  C->c = c;
  C->lambda = lam.v[0];
  C->a = mbt_vec3_make(sa * V.m[0][2], sa * V.m[1][2], sa * V.m[2][2]);
  C->b = mbt_vec3_make(sb * V.m[0][1], sb * V.m[1][1], sb * V.m[2][1]);
  C->unused = 0;
}

void mbt__context_update_all_inertias(mbt_context* ctx) {
  const mbt_tree* tree = ctx->tree;
  memset(ctx->I_Mo_M, 0, (size_t)tree->num_local_nodes * sizeof *ctx->I_Mo_M);
  for (int n = 1; n < tree->num_nodes; ++n) {
    const mbt_node* nd = &tree->nodes[n];
    moments_add_body(&ctx->I_Mo_M[nd->host], &ctx->M_BBo_B[n], &nd->X_HB);
    ctx->mp_BoBcm_M[n] = body_first_moment_in_host(&ctx->M_BBo_B[n], &nd->X_HB);
  }
  for (int i = 0; i < tree->num_local_nodes; ++i) inertia_central_form(&ctx->I_Mo_M[i], &ctx->I_cm_M[i]);
  mbt__context_invalidate_inertias(ctx);
}

/* The bodies a local node carries lie in the subtree of its own body node (the world's: all). */
void mbt__context_update_body_inertia(mbt_context* ctx, int node) {
  const mbt_tree* tree = ctx->tree;
  const int host = tree->nodes[node].host;
  const int first = host > 0 ? tree->local_nodes[host].node : 1;
  const int end = host > 0 ? tree->nodes[first].subtree_end : tree->num_nodes;
  mbt_inertia_moments* I = &ctx->I_Mo_M[host];
  memset(I, 0, sizeof *I);
  for (int n = first; n < end; ++n)
    if (tree->nodes[n].host == host) moments_add_body(I, &ctx->M_BBo_B[n], &tree->nodes[n].X_HB);
  ctx->mp_BoBcm_M[node] = body_first_moment_in_host(&ctx->M_BBo_B[node], &tree->nodes[node].X_HB);
  inertia_central_form(I, &ctx->I_cm_M[host]);
  mbt__context_invalidate_inertias(ctx);
}

/* The parameters at the tree's values (context_internal.h). */
static void set_default_parameters(const mbt_tree* tree, mbt_context* ctx) {
  for (int n = 0; n < tree->num_nodes; ++n) ctx->M_BBo_B[n] = tree->bodies[tree->nodes[n].body].M_BBo_B;
  ctx->g_W = mbt_tree_gravity(tree);
  mbt__context_update_all_inertias(ctx);
}

/* Seed SetDefaultContext. */
void mbt_tree_set_default_context(const mbt_tree* tree, mbt_context* ctx) {
  if (!tree || !ctx || ctx->tree != tree) {
    if (ctx) mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "mbt_tree_set_default_context: the context "
                                "belongs to another tree");
    return;
  }
  ctx->time = 0;
  set_default_parameters(tree, ctx);
  for (int n = 1; n < tree->num_nodes; ++n) {
    const mbt_node* node = &tree->nodes[n];
    mbt_real* q = ctx->q + node->q_start;
    mbt_real* v = ctx->v + node->v_start;
    if (node->joint >= 0) {
      const mbt_joint* J = &tree->joints[node->joint];
      for (int k = 0; k < node->nq; ++k) q[k] = J->default_q[k];
      for (int k = 0; k < node->nv; ++k) {
        v[k] = 0;
        ctx->damping[node->v_start + k] = J->default_damping[k];
      }
    } else {
      mbt__mob_set_zero_state(node, q, v);
      for (int k = 0; k < node->nv; ++k) ctx->damping[node->v_start + k] = 0;
    }
  }
  for (int j = 0; j < tree->num_joints; ++j) ctx->joint_locked[j] = false;
  for (int k = 0; k < tree->nv; ++k) ctx->v_locked[k] = false;
  ctx->any_locked = false;
  mbt__context_invalidate_q(ctx);
}

int mbt_context_copy_state(mbt_context* dst, const mbt_context* src) {
  if (!dst || !src) return MBT_ERR_INVALID_ARGUMENT;
  if (dst->tree != src->tree)
    return mbt__context_error(dst, MBT_ERR_INVALID_ARGUMENT,
                              "mbt_context_copy_state: the contexts belong to different trees");
  if (dst == src) return MBT_OK;
  const mbt_tree* tree = src->tree;
  const size_t nq = (size_t)tree->nq, nv = (size_t)tree->nv;
  dst->time = src->time;
  if (nq) memcpy(dst->q, src->q, nq * sizeof *dst->q);
  if (nv) {
    memcpy(dst->v, src->v, nv * sizeof *dst->v);
    memcpy(dst->damping, src->damping, nv * sizeof *dst->damping);
    memcpy(dst->v_locked, src->v_locked, nv * sizeof *dst->v_locked);
  }
  if (tree->num_joints) memcpy(dst->joint_locked, src->joint_locked, (size_t)tree->num_joints * sizeof(bool));
  dst->any_locked = src->any_locked;
  memcpy(dst->M_BBo_B, src->M_BBo_B, (size_t)tree->num_nodes * sizeof *dst->M_BBo_B);
  memcpy(dst->I_Mo_M, src->I_Mo_M, (size_t)tree->num_local_nodes * sizeof *dst->I_Mo_M);
  memcpy(dst->I_cm_M, src->I_cm_M, (size_t)tree->num_local_nodes * sizeof *dst->I_cm_M);
  memcpy(dst->mp_BoBcm_M, src->mp_BoBcm_M, (size_t)tree->num_nodes * sizeof *dst->mp_BoBcm_M);
  dst->g_W = src->g_W;
  mbt__context_invalidate_q(dst);
  return MBT_OK;
}

mbt_context* mbt_context_clone(const mbt_context* ctx) {
  if (!ctx) return NULL;
  mbt_context* c = mbt_context_create(ctx->tree);
  if (!c) return NULL;
  mbt_context_copy_state(c, ctx);
  return c;
}

const mbt_tree* mbt_context_tree(const mbt_context* ctx) { return ctx ? ctx->tree : NULL; }

mbt_real mbt_context_time(const mbt_context* ctx) { return ctx->time; }
void mbt_context_set_time(mbt_context* ctx, mbt_real t) { ctx->time = t; }

const mbt_real* mbt_context_q(const mbt_context* ctx) { return ctx->q; }
const mbt_real* mbt_context_v(const mbt_context* ctx) { return ctx->v; }

mbt_real* mbt_context_mutable_q(mbt_context* ctx) {
  mbt__context_invalidate_q(ctx);
  return ctx->q;
}

mbt_real* mbt_context_mutable_v(mbt_context* ctx) {
  mbt__context_invalidate_v(ctx);
  return ctx->v;
}

static int check_size(const mbt_context* ctx, const char* fn, const void* p, int n, int expected,
                      const char* what) {
  if (n != expected)
    return mbt__context_error(ctx, MBT_ERR_SIZE, "%s: got %d values, %s has %d", fn, n, what, expected);
  if (!p && n > 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: the array is NULL", fn);
  return MBT_OK;
}

int mbt_context_set_q(mbt_context* ctx, const mbt_real* q, int n) {
  int s = check_size(ctx, "mbt_context_set_q", q, n, ctx->tree->nq, "q");
  if (s) return s;
  if (n) memcpy(ctx->q, q, (size_t)n * sizeof *q);
  mbt__context_invalidate_q(ctx);
  return MBT_OK;
}

int mbt_context_set_v(mbt_context* ctx, const mbt_real* v, int n) {
  int s = check_size(ctx, "mbt_context_set_v", v, n, ctx->tree->nv, "v");
  if (s) return s;
  if (n) memcpy(ctx->v, v, (size_t)n * sizeof *v);
  mbt__context_invalidate_v(ctx);
  return MBT_OK;
}

int mbt_context_set_x(mbt_context* ctx, const mbt_real* x, int n) {
  const int nq = ctx->tree->nq, nv = ctx->tree->nv;
  int s = check_size(ctx, "mbt_context_set_x", x, n, nq + nv, "x = [q; v]");
  if (s) return s;
  if (nq) memcpy(ctx->q, x, (size_t)nq * sizeof *x);
  if (nv) memcpy(ctx->v, x + nq, (size_t)nv * sizeof *x);
  mbt__context_invalidate_q(ctx);
  return MBT_OK;
}

int mbt_context_get_x(const mbt_context* ctx, mbt_real* x, int n) {
  const int nq = ctx->tree->nq, nv = ctx->tree->nv;
  int s = check_size(ctx, "mbt_context_get_x", x, n, nq + nv, "x = [q; v]");
  if (s) return s;
  if (nq) memcpy(x, ctx->q, (size_t)nq * sizeof *x);
  if (nv) memcpy(x + nq, ctx->v, (size_t)nv * sizeof *x);
  return MBT_OK;
}
