/* kinematics.c: position, velocity and acceleration kinematics (seed MultibodyTree,
 * CalcPositionKinematicsCache, CalcVelocityKinematicsCache, CalcSpatialAccelerationsFromVdot):
 * one base-to-tip pass each over the local nodes (welded bodies merged into their moving
 * ancestor), every quantity in W about the reference point Ro of the node's subtree hanging
 * from the world [Featherstone 2008, §7.3 in absolute coordinates]:
 *   X_WM = X_WA·X_AF·X_FM(q), H = the columns of R_WF·H_FM shifted from Mo to Ro
 *   (mbt__local_pose_and_H_Ro);  V_i = V_λ + H·v;  A_i = A_λ + H·v̇ + V_λ × H·v (+ R_WF·Ḣ_FM·v).
 * A body's world-frame pose, velocity and acceleration are derived from its host's on demand
 * (algorithms_internal.h: mbt__body_pose_in_world, ...). */
#include "algorithms/algorithms_internal.h"
#include "mobilizers/mobilizer_types.h"
#if defined(MBT_HAVE_SLEEF) && defined(__SSE2__) && (defined(__x86_64__) || defined(_M_X64))
#include <emmintrin.h>
#include <sleef.h>
#define MBT__SINCOS_SLEEF 1
#if defined(MBT__AVX2) && defined(MBT_HAVE_SINCOS_AVX2)
/* sincos_avx2.c, compiled for AVX2/FMA */
#define MBT__SINCOS_AVX2 1
void mbt__sincos_avx2(const int* idx, int na, const mbt_real* q, mbt_real* sq, mbt_real* cq);
#endif
#endif

int mbt__check_tree_context(const mbt_tree* tree, const mbt_context* ctx, const char* what) {
  if (!tree) {
    if (ctx) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: tree is NULL", what);
    return MBT_ERR_INVALID_ARGUMENT;
  }
  if (!ctx) return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: context is NULL", what);
  if (!tree->finalized)
    return mbt__context_error(ctx, MBT_ERR_NOT_FINALIZED, "%s: the tree is not finalized", what);
  if (ctx->tree != tree)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: the context belongs to another tree", what);
  return MBT_OK;
}

/* sin q, cos q of every revolute and screw angle with SLEEF's 1-ulp vector sincos: four at a time
 * where the processor has AVX2 and FMA (mbt__cpu_has_avx2_fma), else two at a time (its dispatcher
 * picks the best 128-bit code for the CPU); SLEEF's 128- and 256-bit FMA code give the same bits.
 * Without SLEEF the C library's, one at a time. */
#ifdef MBT__SINCOS_SLEEF
static void sincos_sse2(const int* idx, int na, const mbt_real* q, mbt_real* sq, mbt_real* cq) {
  int k = 0;
  for (; k + 1 < na; k += 2) {
    const int i = idx[k], j = idx[k + 1];
    const Sleef___m128d_2 sc = Sleef_sincosd2_u10(_mm_set_pd(q[j], q[i]));
    _mm_storel_pd(&sq[i], sc.x);
    _mm_storeh_pd(&sq[j], sc.x);
    _mm_storel_pd(&cq[i], sc.y);
    _mm_storeh_pd(&cq[j], sc.y);
  }
  if (k < na) {
    const int i = idx[k];
    const Sleef___m128d_2 sc = Sleef_sincosd2_u10(_mm_set_pd(0, q[i]));
    _mm_storel_pd(&sq[i], sc.x);
    _mm_storel_pd(&cq[i], sc.y);
  }
}
#endif

void mbt__calc_joint_sincos(const mbt_tree* tree, mbt_context* ctx) {
  if (ctx->sincos_valid) return;
  const int* idx = tree->angle_q;
  const int na = tree->num_angles;
  const mbt_real* q = ctx->q;
#ifdef MBT__SINCOS_SLEEF
#ifdef MBT__SINCOS_AVX2
  if (mbt__cpu_has_avx2_fma())
    mbt__sincos_avx2(idx, na, q, ctx->sin_q, ctx->cos_q);
  else
#endif
    sincos_sse2(idx, na, q, ctx->sin_q, ctx->cos_q);
#else
  for (int k = 0; k < na; ++k) mbt__sincos(q[idx[k]], &ctx->sin_q[idx[k]], &ctx->cos_q[idx[k]]);
#endif
  ctx->sincos_valid = true;
}

/* mbt__local_pose_and_H_Ro (algorithms_internal.h) for every type but the revolute one. */
void mbt__local_pose_and_H_Ro_general(const mbt_tree* tree, const mbt_context* ctx, const mbt_local_node* L,
                                       const mbt_transform* X_WA, mbt_transform* X_WM, mbt_spatial_velocity* H,
                                       mbt_vec3* p_WoRo) {
  const mbt_vec3 p_RoFo = mbt_vec3_add(X_WA->p, mbt_mat3_mul_vec(&X_WA->R, L->X_AF.p));
  const mbt_real* q = ctx->q + L->q_start;
  const bool root = L->parent == 0;
  const mbt_mat3 R_WF = L->R_AF_is_identity ? X_WA->R : mbt_mat3_mul(&X_WA->R, &L->X_AF.R);
  const mbt_vec3 z = mbt_vec3_make(R_WF.m[0][2], R_WF.m[1][2], R_WF.m[2][2]);
  if (L->type == MBT_MOBILIZER_PRISMATIC) {
    X_WM->R = R_WF;
    X_WM->p = mbt_vec3_axpy(p_RoFo, q[0], z);
    if (root) *p_WoRo = X_WM->p, X_WM->p = mbt_vec3_zero();
    H->w = mbt_vec3_zero();
    H->v = z;
    return;
  }
  mbt_transform X_FM;
  mbt_spatial_velocity H_FM[6];
  const mbt_node* n = &tree->nodes[L->node];
  if (L->type == MBT_MOBILIZER_SCREW) {
    const mbt_real s = ctx->sin_q[L->q_start], c = ctx->cos_q[L->q_start];
    X_FM.R = n->axis_k ? mbt__rot_coord_axis(n->axis_k, s, c) : mbt__rot_axis_angle(n->axis, s, c);
    X_FM.p = mbt_vec3_scale(n->axis, n->pitch * q[0]);
  } else {
    mbt__mob_calc_X_FM(n, q, &X_FM);
  }
  if (L->S_is_identity) {  /* R_WF = I, H = H_FM = I₆ */
    X_WM->R = X_FM.R;
    *p_WoRo = mbt_vec3_add(p_RoFo, X_FM.p);
    X_WM->p = mbt_vec3_zero();
    for (int j = 0; j < 6; ++j)
      for (int r = 0; r < 6; ++r) H[j].coeffs[r] = r == j;
    return;
  }
  mbt__mob_calc_H_FM(n, q, H_FM);
  X_WM->R = mbt_mat3_mul(&R_WF, &X_FM.R);
  X_WM->p = mbt_vec3_add(p_RoFo, mbt_mat3_mul_vec(&R_WF, X_FM.p));
  if (root) *p_WoRo = X_WM->p, X_WM->p = mbt_vec3_zero();
  for (int j = 0; j < L->nv; ++j) {
    const mbt_vec3 w = mbt_mat3_mul_vec(&R_WF, H_FM[j].w);
    H[j].w = w;
    H[j].v = mbt_vec3_add(mbt_mat3_mul_vec(&R_WF, H_FM[j].v), mbt_vec3_cross(X_WM->p, w));
  }
}

/* ---- position and velocity kinematics ---------------------------------------------------- */
static void calc_position_kinematics(const mbt_tree* tree, mbt_context* ctx) {
  mbt__calc_joint_sincos(tree, ctx);
  for (int i = 1; i < tree->num_local_nodes; ++i) mbt__position_kinematics_node(tree, ctx, i);
  ctx->position_valid = true;
}

void mbt__ensure_position_kinematics(const mbt_tree* tree, mbt_context* ctx) {
  if (!ctx->position_valid) calc_position_kinematics(tree, ctx);
}

static void calc_velocity_kinematics(const mbt_tree* tree, mbt_context* ctx) {
  for (int i = 1; i < tree->num_local_nodes; ++i) mbt__velocity_kinematics_node(tree, ctx, i, NULL);
  ctx->velocity_valid = true;
}

void mbt__ensure_velocity_kinematics(const mbt_tree* tree, mbt_context* ctx) {
  mbt__ensure_position_kinematics(tree, ctx);
  if (!ctx->velocity_valid) calc_velocity_kinematics(tree, ctx);
}

/* R_WF·Ḣ_FM·q̇ as a spatial acceleration at Ro: from the kernels' A_FM bias (v̇ = 0, classical,
 * at Mo in F) and V_FM, [α; a − w × v] at Mo in F [Featherstone 2008, §2.11], re-expressed by
 * R_WF = R_WA·R_AF and shifted from Mo to Ro (a += p_RoMo × α). */
void mbt__add_general_joint_bias(const mbt_tree* tree, const mbt_context* ctx, int i, mbt_spatial_acceleration* c) {
  const mbt_local_node* L = &tree->local_nodes[i];
  const mbt_node* n = &tree->nodes[L->node];
  const mbt_real* q = ctx->q + L->q_start;
  const mbt_real* v = ctx->v + L->v_start;
  mbt_spatial_velocity V_FM;
  mbt_spatial_acceleration Ab;
  mbt__mob_calc_V_FM(n, q, v, &V_FM);
  mbt__mob_calc_A_FM(n, q, v, NULL, &Ab);
  const mbt_vec3 a_F = mbt_vec3_sub(Ab.a, mbt_vec3_cross(V_FM.w, V_FM.v));
  if (L->S_is_identity) {  /* R_WF = I, p_RoMo = 0 */
    c->alpha = mbt_vec3_add(c->alpha, Ab.alpha);
    c->a = mbt_vec3_add(c->a, a_F);
    return;
  }
  const mbt_transform* X_WA = &ctx->pc.X_WM[L->parent];
  const mbt_mat3 R_WF = L->R_AF_is_identity ? X_WA->R : mbt_mat3_mul(&X_WA->R, &L->X_AF.R);
  const mbt_vec3 al = mbt_mat3_mul_vec(&R_WF, Ab.alpha);
  const mbt_vec3 a = mbt_mat3_mul_vec(&R_WF, a_F);
  c->alpha = mbt_vec3_add(c->alpha, al);
  c->a = mbt_vec3_add(c->a, mbt_vec3_add(a, mbt_vec3_cross(ctx->pc.X_WM[i].p, al)));
}

void mbt__calc_local_accelerations(const mbt_tree* tree, mbt_context* ctx, bool use_v, const mbt_real* vdot,
                                   mbt_spatial_acceleration* A) {
  mbt__ensure_position_kinematics(tree, ctx);
  const bool velocity_cached = ctx->velocity_valid && ctx->velocity_products_valid;
  for (int r = 0; r < 6; ++r) A[0].coeffs[r] = 0;
  for (int i = 1; i < tree->num_local_nodes; ++i) {
    const mbt_local_node* L = &tree->local_nodes[i];
    if (use_v) {
      if (!velocity_cached) mbt__velocity_kinematics_node(tree, ctx, i, &ctx->vc.c[i]);
      for (int r = 0; r < 6; ++r) A[i].coeffs[r] = A[L->parent].coeffs[r] + ctx->vc.c[i].coeffs[r];
    } else {
      A[i] = A[L->parent];
    }
    if (!vdot) continue;
    const mbt_spatial_velocity* S = &ctx->pc.H[L->v_start];
    for (int k = 0; k < L->nv; ++k)
      for (int r = 0; r < 6; ++r) A[i].coeffs[r] += S[k].coeffs[r] * vdot[L->v_start + k];
  }
  if (use_v) ctx->velocity_valid = ctx->velocity_products_valid = true;
}

/* ---- a body's quantities from its host --------------------------------------------------- */
void mbt__body_moments_at_Ro(const mbt_tree* tree, const mbt_context* ctx, int node, mbt_inertia_moments* I) {
  const mbt_spatial_inertia* M = &ctx->M_BBo_B[node];
  const mbt_real m = M->mass;
  const mbt_unit_inertia* G = &M->G_SP_E;
  const mbt_inertia_moments I_B = {m, mbt_vec3_scale(M->p_PScm_E, m),
                                   {m * G->xx, m * G->yy, m * G->zz, m * G->xy, m * G->xz, m * G->yz}};
  const mbt_mat3 R_WB = mbt__body_rotation_in_world(tree, ctx, node);
  mbt_inertia_moments I_W;
  mbt__moments_reexpress(&I_B, &R_WB, &I_W);
  mbt__moments_shift_to(&I_W, mbt__p_RoBo_W(tree, ctx, node), I);
}

/* M_Bo_W = {m, R_WB·p_BoBcm_B, R_WB·G_BBo_B·R_WBᵀ}: with A = R·G, the six entries
 * (A·Rᵀ)ᵢⱼ, i <= j, of the symmetric product (45 products). */
static void reexpress_inertia(const mbt_spatial_inertia* M_B, const mbt_mat3* R, mbt_spatial_inertia* M_W) {
  const mbt_unit_inertia* G = &M_B->G_SP_E;
  const mbt_real g[3][3] = {{G->xx, G->xy, G->xz}, {G->xy, G->yy, G->yz}, {G->xz, G->yz, G->zz}};
  mbt_real A[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A[i][j] = R->m[i][0] * g[0][j] + R->m[i][1] * g[1][j] + R->m[i][2] * g[2][j];
#define MBT__ARt(i, j) (A[i][0] * R->m[j][0] + A[i][1] * R->m[j][1] + A[i][2] * R->m[j][2])
  M_W->G_SP_E.xx = MBT__ARt(0, 0);
  M_W->G_SP_E.yy = MBT__ARt(1, 1);
  M_W->G_SP_E.zz = MBT__ARt(2, 2);
  M_W->G_SP_E.xy = MBT__ARt(0, 1);
  M_W->G_SP_E.xz = MBT__ARt(0, 2);
  M_W->G_SP_E.yz = MBT__ARt(1, 2);
#undef MBT__ARt
  M_W->p_PScm_E = mbt_mat3_mul_vec(R, M_B->p_PScm_E);
  M_W->mass = M_B->mass;
}

/* ---- public ------------------------------------------------------------------------------ */
/* The position kinematics cache, recomputed unconditionally; `what` names the public caller. */
static int calc_position_kinematics_checked(const mbt_tree* tree, mbt_context* ctx, const char* what) {
  int st = mbt__check_tree_context(tree, ctx, what);
  if (st) return st;
  calc_position_kinematics(tree, ctx);
  return MBT_OK;
}

int mbt_calc_position_kinematics_cache(const mbt_tree* tree, mbt_context* ctx) {
  return calc_position_kinematics_checked(tree, ctx, "calc_position_kinematics_cache");
}

int mbt_calc_forward_kinematics(const mbt_tree* tree, mbt_context* ctx) {
  return calc_position_kinematics_checked(tree, ctx, "calc_forward_kinematics");
}

int mbt_calc_velocity_kinematics_cache(const mbt_tree* tree, mbt_context* ctx) {
  int st = mbt__check_tree_context(tree, ctx, "calc_velocity_kinematics_cache");
  if (st) return st;
  mbt__ensure_position_kinematics(tree, ctx);
  calc_velocity_kinematics(tree, ctx);
  return MBT_OK;
}

/* A_WB of every body from the local nodes' accelerations (in ctx->aba.A, the scratch of the
 * algorithms' third pass). */
static void calc_body_accelerations(const mbt_tree* tree, mbt_context* ctx, const mbt_real* vdot,
                                    mbt_spatial_acceleration* A_WB) {
  mbt_spatial_acceleration* A = ctx->aba.A;
  mbt__calc_local_accelerations(tree, ctx, true, vdot, A);
  mbt__body_accelerations_in_world(tree, ctx, A, A_WB);
}

int mbt_calc_acceleration_kinematics_cache(const mbt_tree* tree, mbt_context* ctx, const mbt_real* known_vdot) {
  int st = mbt__check_tree_context(tree, ctx, "calc_acceleration_kinematics_cache");
  if (st) return st;
  if (!known_vdot && tree->nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_acceleration_kinematics_cache: known_vdot is NULL");
  calc_body_accelerations(tree, ctx, known_vdot, ctx->ac.A_WB);
  return MBT_OK;
}

int mbt_calc_spatial_accelerations_from_vdot(const mbt_tree* tree, mbt_context* ctx, const mbt_real* known_vdot,
                                             mbt_spatial_acceleration* A_WB_array) {
  int st = mbt__check_tree_context(tree, ctx, "calc_spatial_accelerations_from_vdot");
  if (st) return st;
  if ((!known_vdot && tree->nv > 0) || !A_WB_array)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT,
                              "calc_spatial_accelerations_from_vdot: known_vdot or A_WB_array is NULL");
  calc_body_accelerations(tree, ctx, known_vdot, A_WB_array);
  return MBT_OK;
}

static int check_body(const mbt_tree* tree, const mbt_context* ctx, int body, const void* out, const char* what) {
  int st = mbt__check_tree_context(tree, ctx, what);
  if (st) return st;
  if (body < 0 || body >= tree->num_bodies)
    return mbt__context_error(ctx, MBT_ERR_NOT_FOUND, "%s: no body with index %d", what, body);
  if (!out) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: output is NULL", what);
  return MBT_OK;
}

int mbt_context_body_pose_in_world(const mbt_tree* tree, mbt_context* ctx, int body, mbt_transform* X_WB) {
  int st = check_body(tree, ctx, body, X_WB, "body_pose_in_world");
  if (st) return st;
  mbt__ensure_position_kinematics(tree, ctx);
  *X_WB = mbt__body_pose_in_world(tree, ctx, tree->bodies[body].node);
  return MBT_OK;
}

int mbt_context_body_spatial_velocity_in_world(const mbt_tree* tree, mbt_context* ctx, int body,
                                               mbt_spatial_velocity* V_WB) {
  int st = check_body(tree, ctx, body, V_WB, "body_spatial_velocity_in_world");
  if (st) return st;
  mbt__ensure_velocity_kinematics(tree, ctx);
  *V_WB = mbt__body_velocity_in_world(tree, ctx, tree->bodies[body].node);
  return MBT_OK;
}

int mbt_context_body_spatial_acceleration_in_world(const mbt_tree* tree, const mbt_context* ctx, int body,
                                                   mbt_spatial_acceleration* A_WB) {
  int st = check_body(tree, ctx, body, A_WB, "body_spatial_acceleration_in_world");
  if (st) return st;
  *A_WB = ctx->ac.A_WB[tree->bodies[body].node];
  return MBT_OK;
}

/* H_PB_W of a moving body: its local node's columns H moved from Ro to Bo, v += w × p_RoBo. */
int mbt_context_body_H_PB_W(const mbt_tree* tree, mbt_context* ctx, int body, mbt_spatial_velocity* H_PB_W) {
  int st = check_body(tree, ctx, body, H_PB_W, "body_H_PB_W");
  if (st) return st;
  mbt__ensure_position_kinematics(tree, ctx);
  const int node = tree->bodies[body].node;
  const mbt_node* n = &tree->nodes[node];
  const mbt_vec3 p_RoBo = mbt__p_RoBo_W(tree, ctx, node);
  for (int k = 0; k < n->nv; ++k) {
    const mbt_spatial_velocity* H = &ctx->pc.H[n->v_start + k];
    H_PB_W[k].w = H->w;
    H_PB_W[k].v = mbt_vec3_add(H->v, mbt_vec3_cross(H->w, p_RoBo));
  }
  return MBT_OK;
}

int mbt_context_body_spatial_inertia_in_world(const mbt_tree* tree, mbt_context* ctx, int body,
                                              mbt_spatial_inertia* M_Bo_W) {
  int st = check_body(tree, ctx, body, M_Bo_W, "body_spatial_inertia_in_world");
  if (st) return st;
  mbt__ensure_position_kinematics(tree, ctx);
  const int node = tree->bodies[body].node;
  const mbt_mat3 R_WB = mbt__body_rotation_in_world(tree, ctx, node);
  reexpress_inertia(&ctx->M_BBo_B[node], &R_WB, M_Bo_W);
  return MBT_OK;
}
