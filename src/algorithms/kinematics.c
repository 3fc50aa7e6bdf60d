/* kinematics.c: position, velocity and acceleration kinematics (seed MultibodyTree,
 * CalcPositionKinematicsCache, CalcVelocityKinematicsCache, CalcSpatialAccelerationsFromVdot),
 * one base-to-tip pass each over the body nodes in order. */
#include "algorithms/algorithms_internal.h"
#include "mobilizers/mobilizer_types.h"
#if defined(MBT_HAVE_SLEEF) && defined(__SSE2__) && (defined(__x86_64__) || defined(_M_X64))
#include <emmintrin.h>
#include <sleef.h>
#define MBT__SINCOS_SLEEF 1
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

/* sin q, cos q of every revolute and screw angle, two at a time with SLEEF's 1-ulp vector
 * sincos (its dispatcher picks the best 128-bit code for the CPU at run time), else the C
 * library's one at a time. */
void mbt__calc_joint_sincos(const mbt_tree* tree, mbt_context* ctx) {
  if (ctx->sincos_valid) return;
  const int* idx = tree->angle_q;
  const int na = tree->num_angles;
  const mbt_real* q = ctx->q;
  mbt_real* sq = ctx->sin_q;
  mbt_real* cq = ctx->cos_q;
  int k = 0;
#ifdef MBT__SINCOS_SLEEF
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
#else
  for (; k < na; ++k) mbt__sincos(q[idx[k]], &sq[idx[k]], &cq[idx[k]]);
#endif
  ctx->sincos_valid = true;
}

/* X_FM of a node from its q and, for a revolute or screw angle, the batch's sin and cos:
 * R_FM = exp(q·[â]ₓ), p_FoMo = 0 (revolute) or h·q·â (screw); other types: their kernel. */
static inline void calc_X_FM(const mbt_node* n, const mbt_context* ctx, mbt_transform* X_FM) {
  const int i = n->q_start;
  if (n->type == MBT_MOBILIZER_REVOLUTE || n->type == MBT_MOBILIZER_SCREW) {
    const mbt_real s = ctx->sin_q[i], c = ctx->cos_q[i];
    X_FM->R = n->axis_k ? mbt__rot_coord_axis(n->axis_k, s, c) : mbt__rot_axis_angle(n->axis, s, c);
    X_FM->p = n->type == MBT_MOBILIZER_SCREW ? mbt_vec3_scale(n->axis, n->pitch * ctx->q[i]) : mbt_vec3_zero();
  } else {
    mbt__mob_calc_X_FM(n, ctx->q + i, X_FM);
  }
}

/* Position kinematics, node by node from the world, in two parts.
 * Poses: X_PB = X_PF·X_FM(q)·X_MB, X_WB = X_WP·X_PB, R_WF = R_WP·R_PF, p_PoBo_W = R_WP·p_PoBo_P.
 * For a revolute mobilizer about ±ê_k with X_MB = I, R_FM is a plane rotation of two columns,
 * so R_PB = R_PF·R_FM and R_WB = R_WF·R_FM cost 12 products each; a weld's X_PB is constant. */
static inline void calc_node_pose(const mbt_node* n, int node, const mbt_context* ctx, mbt_position_cache* pc,
                                  bool with_X_PB) {
  const mbt_real* q = ctx->q;
  const mbt_transform* X_WP = &pc->X_WB[n->parent_node];
  mbt_transform* X_FM = &pc->X_FM[node];
  mbt_transform* X_PB = &pc->X_PB[node];
  mbt_transform* X_WB = &pc->X_WB[node];
  mbt_mat3* R_WF = &pc->R_WF[node];
  mbt_vec3 p_PoBo_P;
  if (n->type == MBT_MOBILIZER_WELD) {
    if (with_X_PB) {
      *X_FM = mbt_transform_identity();
      *X_PB = n->X_PB_weld;
    }
    p_PoBo_P = n->X_PB_weld.p;
    X_WB->R = n->R_PB_weld_is_identity ? X_WP->R : mbt_mat3_mul(&X_WP->R, &n->X_PB_weld.R);
    if (n->X_MB_is_identity) *R_WF = X_WB->R;  /* R_FM = R_MB = I */
    else *R_WF = n->R_PF_is_identity ? X_WP->R : mbt_mat3_mul(&X_WP->R, &n->X_PF.R);
  } else {
    *R_WF = n->R_PF_is_identity ? X_WP->R : mbt_mat3_mul(&X_WP->R, &n->X_PF.R);
    if (n->type == MBT_MOBILIZER_REVOLUTE && n->axis_k && n->X_MB_is_identity) {
      const mbt_real s = ctx->sin_q[n->q_start], c = ctx->cos_q[n->q_start];
      if (with_X_PB) {
        X_FM->R = mbt__rot_coord_axis(n->axis_k, s, c);
        X_FM->p = mbt_vec3_zero();
        if (n->R_PF_is_identity) X_PB->R = X_FM->R;
        else mbt__mat3_mul_rot_coord_axis(&n->X_PF.R, n->axis_k, s, c, &X_PB->R);
        X_PB->p = n->X_PF.p;
      }
      p_PoBo_P = n->X_PF.p;
      mbt__mat3_mul_rot_coord_axis(R_WF, n->axis_k, s, c, &X_WB->R);
    } else if (n->type == MBT_MOBILIZER_PRISMATIC && n->X_MB_is_identity) {
      /* R_FM = I, p_FoMo_F = q·â: p_PoBo_P = p_PoFo_P + q·R_PF·â. */
      const mbt_real qb = q[n->q_start];
      p_PoBo_P = mbt_vec3_axpy(n->X_PF.p, qb, mbt_mat3_mul_vec(&n->X_PF.R, n->axis));
      if (with_X_PB) {
        X_FM->R = mbt_mat3_identity();
        X_FM->p = mbt_vec3_scale(n->axis, qb);
        X_PB->R = n->X_PF.R;
        X_PB->p = p_PoBo_P;
      }
      X_WB->R = *R_WF;
    } else {
      calc_X_FM(n, ctx, X_FM);
      const mbt_transform X_PM = n->X_PF_is_identity ? *X_FM : mbt_transform_compose(&n->X_PF, X_FM);
      *X_PB = n->X_MB_is_identity ? X_PM : mbt_transform_compose(&X_PM, &n->X_MB);
      p_PoBo_P = X_PB->p;
      X_WB->R = mbt_mat3_mul(&X_WP->R, &X_PB->R);
    }
  }
  const mbt_vec3 p_PoBo_W = mbt_mat3_mul_vec(&X_WP->R, p_PoBo_P);
  pc->p_PoBo_W[node] = p_PoBo_W;
  X_WB->p = mbt_vec3_add(X_WP->p, p_PoBo_W);
}

/* M_Bo_W = {m, R_WB·p_BoBcm_B, R_WB·G_BBo_B·R_WBᵀ}: with A = R·G, the six entries
 * (A·Rᵀ)ᵢⱼ, i <= j, of the symmetric product (45 products). */
static inline void reexpress_inertia(const mbt_spatial_inertia* M_B, const mbt_mat3* R, mbt_spatial_inertia* M_W) {
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

/* The rest of the position cache, from the poses:
 *   H_PB_W column k = R_WF·H_FM_k shifted from Mo to Bo: v += w × p_MoBo_W (revolute about â:
 *   [R_WF·â; 0] when X_MB = I; prismatic: [0; R_WF·â]);
 *   M_Bo_W = R_WB·M_BBo_B (re-expressed), p_WBcm = p_WBo + p_BoBcm_W.
 * H_FM is constant for every type but the universal mobilizer: the context holds it from its
 * creation (context.c) and only the universal's is recomputed here. */
static inline void calc_node_position_dynamics(const mbt_node* n, int node, const mbt_context* ctx,
                                               mbt_position_cache* pc) {
  const mbt_real* q = ctx->q;
  const mbt_transform* X_WB = &pc->X_WB[node];
  const mbt_mat3* R_WF = &pc->R_WF[node];
  mbt_spatial_velocity* H_PB_W = &pc->H_PB_W[n->v_start];
  if (n->type == MBT_MOBILIZER_UNIVERSAL) mbt__mob_calc_H_FM(n, q + n->q_start, &pc->H_FM[n->v_start]);
  mbt__calc_H_PB_W(n, R_WF, &X_WB->R, &pc->H_FM[n->v_start], H_PB_W);
  mbt_spatial_inertia* M_Bo_W = &pc->M_Bo_W[node];
  reexpress_inertia(&ctx->M_BBo_B[node], &X_WB->R, M_Bo_W);
  pc->p_WBcm[node] = mbt_vec3_add(X_WB->p, M_Bo_W->p_PScm_E);
}

static void calc_world_node(const mbt_context* ctx, mbt_position_cache* pc, bool dynamics) {
  pc->X_WB[0] = mbt_transform_identity();
  pc->X_PB[0] = mbt_transform_identity();
  pc->X_FM[0] = mbt_transform_identity();
  pc->p_PoBo_W[0] = mbt_vec3_zero();
  pc->R_WF[0] = mbt_mat3_identity();
  if (dynamics) {
    pc->M_Bo_W[0] = ctx->M_BBo_B[0];
    pc->p_WBcm[0] = ctx->M_BBo_B[0].p_PScm_E;
  }
}

/* Poses only (mbt_calc_forward_kinematics): X_WB, p_PoBo_W, R_WF. */
static void calc_poses(const mbt_tree* tree, mbt_context* ctx) {
  mbt_position_cache* pc = &ctx->pc;
  mbt__calc_joint_sincos(tree, ctx);
  calc_world_node(ctx, pc, false);
  for (int node = 1; node < tree->num_nodes; ++node) calc_node_pose(&tree->nodes[node], node, ctx, pc, false);
  ctx->pose_valid = true;
}

/* The whole position cache, poses included; X_PB and X_FM (which no algorithm reads) only
 * with with_X_PB (mbt_calc_position_kinematics_cache). */
static void calc_position_kinematics(const mbt_tree* tree, mbt_context* ctx, bool with_X_PB) {
  mbt_position_cache* pc = &ctx->pc;
  mbt__calc_joint_sincos(tree, ctx);
  calc_world_node(ctx, pc, true);
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    calc_node_pose(n, node, ctx, pc, with_X_PB);
    calc_node_position_dynamics(n, node, ctx, pc);
  }
  ctx->pose_valid = ctx->position_valid = true;
}

void mbt__ensure_poses(const mbt_tree* tree, mbt_context* ctx) {
  if (!ctx->pose_valid && !ctx->position_valid) calc_poses(tree, ctx);
}

void mbt__ensure_position_kinematics(const mbt_tree* tree, mbt_context* ctx) {
  if (!ctx->position_valid) calc_position_kinematics(tree, ctx, false);
}

/* Velocity kinematics: V_PB_W = H_PB_W·v_B, V_FM = H_FM·v_B, and
 *   V_WB = V_WP shifted to Bo + V_PB_W: w_WB = w_WP + w_PB, v_WBo = v_WPo + w_WP × p_PoBo + v_PB. */
static void calc_velocity_kinematics(const mbt_tree* tree, mbt_context* ctx) {
  const mbt_position_cache* pc = &ctx->pc;
  mbt_velocity_cache* vc = &ctx->vc;
  const mbt_real* v = ctx->v;
  for (int i = 0; i < 6; ++i) vc->V_WB[0].coeffs[i] = vc->V_PB_W[0].coeffs[i] = vc->V_FM[0].coeffs[i] = 0;
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    mbt_spatial_velocity* V_PB_W = &vc->V_PB_W[node];
    mbt_spatial_velocity* V_FM = &vc->V_FM[node];
    const mbt_real* vb = v + n->v_start;
    switch (n->type) {
      case MBT_MOBILIZER_WELD:
        for (int i = 0; i < 6; ++i) V_PB_W->coeffs[i] = V_FM->coeffs[i] = 0;
        break;
      case MBT_MOBILIZER_REVOLUTE:
      case MBT_MOBILIZER_PRISMATIC:
      case MBT_MOBILIZER_SCREW: {
        const mbt_spatial_velocity* H = &pc->H_PB_W[n->v_start];
        const mbt_spatial_velocity* Hf = &pc->H_FM[n->v_start];
        for (int i = 0; i < 6; ++i) {
          V_PB_W->coeffs[i] = H->coeffs[i] * vb[0];
          V_FM->coeffs[i] = Hf->coeffs[i] * vb[0];
        }
        break;
      }
      default: {
        const mbt_spatial_velocity* H = &pc->H_PB_W[n->v_start];
        const mbt_spatial_velocity* Hf = &pc->H_FM[n->v_start];
        for (int i = 0; i < 6; ++i) V_PB_W->coeffs[i] = V_FM->coeffs[i] = 0;
        for (int k = 0; k < n->nv; ++k)
          for (int i = 0; i < 6; ++i) {
            V_PB_W->coeffs[i] += H[k].coeffs[i] * vb[k];
            V_FM->coeffs[i] += Hf[k].coeffs[i] * vb[k];
          }
        break;
      }
    }
    const mbt_spatial_velocity* V_WP = &vc->V_WB[n->parent_node];
    mbt_spatial_velocity* V_WB = &vc->V_WB[node];
    V_WB->w = mbt_vec3_add(V_WP->w, V_PB_W->w);
    V_WB->v = mbt_vec3_add(mbt_vec3_add(V_WP->v, mbt_vec3_cross(V_WP->w, pc->p_PoBo_W[node])), V_PB_W->v);
  }
  ctx->velocity_valid = true;
}

void mbt__ensure_velocity_kinematics(const mbt_tree* tree, mbt_context* ctx) {
  mbt__ensure_position_kinematics(tree, ctx);
  if (!ctx->velocity_valid) calc_velocity_kinematics(tree, ctx);
}

mbt_vec3 mbt__p_MoBo_W(const mbt_context* ctx, const mbt_node* n, int node) {
  if (n->X_MB_is_identity) return mbt_vec3_zero();
  /* p_MoBo_W = R_WB·p_MoBo_B (p_MoBo_B = R_MBᵀ·p_MoBo_M, from finalize). */
  return mbt_mat3_mul_vec(&ctx->pc.X_WB[node].R, n->p_MoBo_B);
}

/* A_PB_W − H_PB_W·v̇ = R_WF·[αb; ab + αb × p_MoBo_F] + [0; w_PB × (w_PB × p_MoBo_W)], where
 * [αb; ab] = Ḣ_FM·v at Mo in F (nonzero only for the universal mobilizer). Zero when X_MB = I
 * and the type is not universal. */
void mbt__calc_A_PB_W_bias(const mbt_context* ctx, const mbt_node* n, int node, mbt_vec3 w_PB,
                           mbt_spatial_acceleration* Ab) {
  Ab->alpha = mbt_vec3_zero();
  Ab->a = mbt_vec3_zero();
  const bool shift = !n->X_MB_is_identity;
  if (!shift && n->type != MBT_MOBILIZER_UNIVERSAL) return;
  const mbt_vec3 p_MoBo_W = mbt__p_MoBo_W(ctx, n, node);
  if (n->type == MBT_MOBILIZER_UNIVERSAL) {
    mbt_spatial_acceleration Ab_FM;
    mbt__mob_calc_A_FM(n, ctx->q + n->q_start, ctx->v + n->v_start, NULL, &Ab_FM);
    Ab->alpha = mbt_mat3_mul_vec(&ctx->pc.R_WF[node], Ab_FM.alpha);
    Ab->a = mbt_mat3_mul_vec(&ctx->pc.R_WF[node], Ab_FM.a);
    if (shift) Ab->a = mbt_vec3_add(Ab->a, mbt_vec3_cross(Ab->alpha, p_MoBo_W));
  }
  if (shift) Ab->a = mbt_vec3_add(Ab->a, mbt_vec3_cross(w_PB, mbt_vec3_cross(w_PB, p_MoBo_W)));
}

/* A_WB base to tip (mbt__compose_A_WB). */
static void calc_spatial_accelerations(const mbt_tree* tree, const mbt_context* ctx, bool use_v,
                                       const mbt_real* vdot, mbt_spatial_acceleration* A_WB) {
  for (int i = 0; i < 6; ++i) A_WB[0].coeffs[i] = 0;
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    mbt__compose_A_WB(ctx, n, node, use_v, vdot ? vdot + n->v_start : NULL, &A_WB[n->parent_node], &A_WB[node]);
  }
}

void mbt__calc_spatial_accelerations(const mbt_tree* tree, mbt_context* ctx, bool use_v, const mbt_real* vdot,
                                     mbt_spatial_acceleration* A_WB) {
  if (use_v) mbt__ensure_velocity_kinematics(tree, ctx);
  else mbt__ensure_position_kinematics(tree, ctx);
  calc_spatial_accelerations(tree, ctx, use_v, vdot, A_WB);
}

/* ---- public ------------------------------------------------------------------------------ */
int mbt_calc_position_kinematics_cache(const mbt_tree* tree, mbt_context* ctx) {
  int st = mbt__check_tree_context(tree, ctx, "calc_position_kinematics_cache");
  if (st) return st;
  calc_position_kinematics(tree, ctx, true);
  return MBT_OK;
}

int mbt_calc_forward_kinematics(const mbt_tree* tree, mbt_context* ctx) {
  int st = mbt__check_tree_context(tree, ctx, "calc_forward_kinematics");
  if (st) return st;
  calc_poses(tree, ctx);
  return MBT_OK;
}

int mbt_calc_velocity_kinematics_cache(const mbt_tree* tree, mbt_context* ctx) {
  int st = mbt__check_tree_context(tree, ctx, "calc_velocity_kinematics_cache");
  if (st) return st;
  mbt__ensure_position_kinematics(tree, ctx);
  calc_velocity_kinematics(tree, ctx);
  return MBT_OK;
}

int mbt_calc_acceleration_kinematics_cache(const mbt_tree* tree, mbt_context* ctx, const mbt_real* known_vdot) {
  int st = mbt__check_tree_context(tree, ctx, "calc_acceleration_kinematics_cache");
  if (st) return st;
  if (!known_vdot && tree->nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_acceleration_kinematics_cache: known_vdot is NULL");
  mbt__calc_spatial_accelerations(tree, ctx, true, known_vdot, ctx->ac.A_WB);
  return MBT_OK;
}

int mbt_calc_spatial_accelerations_from_vdot(const mbt_tree* tree, mbt_context* ctx, const mbt_real* known_vdot,
                                             mbt_spatial_acceleration* A_WB_array) {
  int st = mbt__check_tree_context(tree, ctx, "calc_spatial_accelerations_from_vdot");
  if (st) return st;
  if ((!known_vdot && tree->nv > 0) || !A_WB_array)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT,
                              "calc_spatial_accelerations_from_vdot: known_vdot or A_WB_array is NULL");
  mbt__calc_spatial_accelerations(tree, ctx, true, known_vdot, A_WB_array);
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
  mbt__ensure_poses(tree, ctx);
  *X_WB = ctx->pc.X_WB[tree->bodies[body].node];
  return MBT_OK;
}

int mbt_context_body_spatial_velocity_in_world(const mbt_tree* tree, mbt_context* ctx, int body,
                                               mbt_spatial_velocity* V_WB) {
  int st = check_body(tree, ctx, body, V_WB, "body_spatial_velocity_in_world");
  if (st) return st;
  mbt__ensure_velocity_kinematics(tree, ctx);
  *V_WB = ctx->vc.V_WB[tree->bodies[body].node];
  return MBT_OK;
}

int mbt_context_body_spatial_acceleration_in_world(const mbt_tree* tree, const mbt_context* ctx, int body,
                                                   mbt_spatial_acceleration* A_WB) {
  int st = check_body(tree, ctx, body, A_WB, "body_spatial_acceleration_in_world");
  if (st) return st;
  *A_WB = ctx->ac.A_WB[tree->bodies[body].node];
  return MBT_OK;
}

int mbt_context_body_H_PB_W(const mbt_tree* tree, mbt_context* ctx, int body, mbt_spatial_velocity* H_PB_W) {
  int st = check_body(tree, ctx, body, H_PB_W, "body_H_PB_W");
  if (st) return st;
  mbt__ensure_position_kinematics(tree, ctx);
  const mbt_node* n = &tree->nodes[tree->bodies[body].node];
  for (int k = 0; k < n->nv; ++k) H_PB_W[k] = ctx->pc.H_PB_W[n->v_start + k];
  return MBT_OK;
}

int mbt_context_body_spatial_inertia_in_world(const mbt_tree* tree, mbt_context* ctx, int body,
                                              mbt_spatial_inertia* M_Bo_W) {
  int st = check_body(tree, ctx, body, M_Bo_W, "body_spatial_inertia_in_world");
  if (st) return st;
  mbt__ensure_position_kinematics(tree, ctx);
  *M_Bo_W = ctx->pc.M_Bo_W[tree->bodies[body].node];
  return MBT_OK;
}
