/* kinematics.c: position, velocity and acceleration kinematics (seed MultibodyTree,
 * CalcPositionKinematicsCache, CalcVelocityKinematicsCache, CalcSpatialAccelerationsFromVdot),
 * one base-to-tip pass each over the body nodes in order. */
#include "algorithms/algorithms_internal.h"
#include "mobilizers/mobilizer_kernels.h"

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

/* Position kinematics, node by node from the world:
 *   X_PB = X_PF·X_FM(q)·X_MB, X_WB = X_WP·X_PB, R_WF = R_WP·R_PF, p_PoBo_W = R_WP·p_PoBo_P;
 *   H_PB_W column k = R_WF·H_FM_k shifted from Mo to Bo: v += w × p_MoBo_W;
 *   M_Bo_W = R_WB·M_BBo_B (re-expressed), p_WBcm = X_WB·p_BoBcm_B. */
static void calc_position_kinematics(const mbt_tree* tree, mbt_context* ctx) {
  mbt_position_cache* pc = &ctx->pc;
  const mbt_real* q = ctx->q;
  pc->X_WB[0] = mbt_transform_identity();
  pc->X_PB[0] = mbt_transform_identity();
  pc->X_FM[0] = mbt_transform_identity();
  pc->p_PoBo_W[0] = mbt_vec3_zero();
  pc->R_WF[0] = mbt_mat3_identity();
  pc->M_Bo_W[0] = tree->nodes[0].M_BBo_B;
  pc->p_WBcm[0] = tree->nodes[0].M_BBo_B.p_PScm_E;
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    const mbt_transform* X_WP = &pc->X_WB[n->parent_node];
    mbt_transform* X_FM = &pc->X_FM[node];
    mbt__mob_calc_X_FM(n, q + n->q_start, X_FM);
    /* X_PM = X_PF·X_FM */
    mbt_transform X_PM = n->X_PF_is_identity ? *X_FM : mbt_transform_compose(&n->X_PF, X_FM);
    mbt_transform* X_PB = &pc->X_PB[node];
    *X_PB = n->X_MB_is_identity ? X_PM : mbt_transform_compose(&X_PM, &n->X_MB);
    mbt_transform* X_WB = &pc->X_WB[node];
    *X_WB = mbt_transform_compose(X_WP, X_PB);
    pc->p_PoBo_W[node] = mbt_vec3_sub(X_WB->p, X_WP->p);
    const mbt_mat3* R_WF = &pc->R_WF[node];
    pc->R_WF[node] = n->X_PF_is_identity ? X_WP->R : mbt_mat3_mul(&X_WP->R, &n->X_PF.R);
    /* H_FM and H_PB_W */
    if (n->nv > 0) {
      mbt_spatial_velocity* H_FM = &pc->H_FM[n->v_start];
      mbt_spatial_velocity* H_PB_W = &pc->H_PB_W[n->v_start];
      mbt__mob_calc_H_FM(n, q + n->q_start, H_FM);
      /* p_MoBo_W = R_WP·(p_PoBo_P − p_PoMo_P) */
      const bool shift = !n->X_MB_is_identity;
      const mbt_vec3 p_MoBo_W = shift ? mbt_mat3_mul_vec(&X_WP->R, mbt_vec3_sub(X_PB->p, X_PM.p)) : mbt_vec3_zero();
      for (int k = 0; k < n->nv; ++k) {
        H_PB_W[k].w = mbt_mat3_mul_vec(R_WF, H_FM[k].w);
        H_PB_W[k].v = mbt_mat3_mul_vec(R_WF, H_FM[k].v);
        if (shift) H_PB_W[k].v = mbt_vec3_add(H_PB_W[k].v, mbt_vec3_cross(H_PB_W[k].w, p_MoBo_W));
      }
    }
    pc->M_Bo_W[node] = mbt__spatial_inertia_reexpress(&n->M_BBo_B, &X_WB->R);
    pc->p_WBcm[node] = mbt_vec3_add(X_WB->p, pc->M_Bo_W[node].p_PScm_E);
  }
  ctx->position_valid = true;
}

void mbt__ensure_position_kinematics(const mbt_tree* tree, mbt_context* ctx) {
  if (!ctx->position_valid) calc_position_kinematics(tree, ctx);
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
  /* p_MoBo_W = R_WB·p_MoBo_B, p_MoBo_B = R_MBᵀ·p_MoBo_M. */
  const mbt_vec3 p_MoBo_B = mbt_mat3_tmul_vec(&n->X_MB.R, n->X_MB.p);
  return mbt_mat3_mul_vec(&ctx->pc.X_WB[node].R, p_MoBo_B);
}

/* A_PB_W − H_PB_W·v̇ = R_WF·[αb; ab + αb × p_MoBo_F] + [0; w_PB × (w_PB × p_MoBo_W)], where
 * [αb; ab] = Ḣ_FM·v at Mo in F (nonzero only for the universal mobilizer). */
void mbt__calc_A_PB_W_bias(const mbt_context* ctx, const mbt_node* n, int node, mbt_spatial_acceleration* Ab) {
  Ab->alpha = mbt_vec3_zero();
  Ab->a = mbt_vec3_zero();
  const bool shift = !n->X_MB_is_identity;
  const mbt_vec3 p_MoBo_W = shift ? mbt__p_MoBo_W(ctx, n, node) : mbt_vec3_zero();
  if (n->type == MBT_MOBILIZER_UNIVERSAL) {
    mbt_spatial_acceleration Ab_FM;
    mbt__mob_calc_A_FM(n, ctx->q + n->q_start, ctx->v + n->v_start, NULL, &Ab_FM);
    Ab->alpha = mbt_mat3_mul_vec(&ctx->pc.R_WF[node], Ab_FM.alpha);
    Ab->a = mbt_mat3_mul_vec(&ctx->pc.R_WF[node], Ab_FM.a);
    if (shift) Ab->a = mbt_vec3_add(Ab->a, mbt_vec3_cross(Ab->alpha, p_MoBo_W));
  }
  if (shift) {
    const mbt_vec3 w = ctx->vc.V_PB_W[node].w;
    Ab->a = mbt_vec3_add(Ab->a, mbt_vec3_cross(w, mbt_vec3_cross(w, p_MoBo_W)));
  }
}

/* Drake's ComposeWithMovingFrameAcceleration, A_WB from A_WP and A_PB_W:
 *   alpha_WB = alpha_WP + alpha_PB + w_WP × w_PB,
 *   a_WBo = a_WPo + alpha_WP × p_PoBo + w_WP × (w_WP × p_PoBo) + a_PB + 2·w_WP × v_PB. */
static void calc_spatial_accelerations(const mbt_tree* tree, const mbt_context* ctx, bool use_v,
                                       const mbt_real* vdot, mbt_spatial_acceleration* A_WB) {
  const mbt_position_cache* pc = &ctx->pc;
  const mbt_velocity_cache* vc = &ctx->vc;
  for (int i = 0; i < 6; ++i) A_WB[0].coeffs[i] = 0;
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    const mbt_spatial_acceleration* A_WP = &A_WB[n->parent_node];
    const mbt_vec3 p = pc->p_PoBo_W[node];
    mbt_spatial_acceleration A;  /* A_PB_W */
    if (use_v) mbt__calc_A_PB_W_bias(ctx, n, node, &A);
    else A.alpha = A.a = mbt_vec3_zero();
    if (vdot) {
      const mbt_spatial_velocity* H = &pc->H_PB_W[n->v_start];
      const mbt_real* vd = vdot + n->v_start;
      for (int k = 0; k < n->nv; ++k)
        for (int i = 0; i < 6; ++i) A.coeffs[i] += H[k].coeffs[i] * vd[k];
    }
    mbt_spatial_acceleration* Ab = &A_WB[node];
    mbt_vec3 a = mbt_vec3_add(A_WP->a, mbt_vec3_cross(A_WP->alpha, p));
    mbt_vec3 alpha = mbt_vec3_add(A_WP->alpha, A.alpha);
    if (use_v) {
      const mbt_vec3 w_WP = vc->V_WB[n->parent_node].w;
      const mbt_spatial_velocity* V_PB = &vc->V_PB_W[node];
      alpha = mbt_vec3_add(alpha, mbt_vec3_cross(w_WP, V_PB->w));
      a = mbt_vec3_add(a, mbt_vec3_cross(w_WP, mbt_vec3_axpy(mbt_vec3_cross(w_WP, p), 2, V_PB->v)));
    }
    Ab->alpha = alpha;
    Ab->a = mbt_vec3_add(a, A.a);
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
  calc_position_kinematics(tree, ctx);
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
  mbt__ensure_position_kinematics(tree, ctx);
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
