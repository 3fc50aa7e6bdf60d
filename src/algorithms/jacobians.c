/* jacobians.c: frame queries (seed CalcRelativeTransform, CalcPointsPositions), frame spatial
 * velocities, the geometric Jacobian J_WFp, the q̇ ↔ v maps of the whole tree (seed
 * MapVelocityToQDot / MapQDotToVelocity), center of mass and spatial momentum. */
#include <string.h>
#include "algorithms/algorithms_internal.h"
#include "mobilizers/mobilizer_types.h"

static int check_frame(const mbt_tree* tree, const mbt_context* ctx, int frame, const char* what) {
  if (frame < 0 || frame >= tree->num_frames)
    return mbt__context_error(ctx, MBT_ERR_NOT_FOUND, "%s: no frame with index %d", what, frame);
  return MBT_OK;
}

/* X_WF = X_WB·X_BF. */
static mbt_transform frame_pose_in_world(const mbt_tree* tree, const mbt_context* ctx, int frame) {
  const mbt_frame* f = &tree->frames[frame];
  const mbt_transform X_WB = mbt__body_pose_in_world(tree, ctx, tree->bodies[f->body].node);
  return mbt_transform_compose(&X_WB, &f->X_BF);
}

/* X_AB = X_WA⁻¹·X_WB. */
int mbt_calc_relative_transform(const mbt_tree* tree, mbt_context* ctx, int frame_A, int frame_B, mbt_transform* X_AB) {
  const char* what = "calc_relative_transform";
  int st = mbt__check_tree_context(tree, ctx, what);
  if (st || (st = check_frame(tree, ctx, frame_A, what)) || (st = check_frame(tree, ctx, frame_B, what))) return st;
  if (!X_AB) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: X_AB is NULL", what);
  mbt__ensure_position_kinematics(tree, ctx);
  const mbt_transform X_WA = frame_pose_in_world(tree, ctx, frame_A);
  const mbt_transform X_WB = frame_pose_in_world(tree, ctx, frame_B);
  const mbt_transform X_AW = mbt_transform_inverse(&X_WA);
  *X_AB = mbt_transform_compose(&X_AW, &X_WB);
  return MBT_OK;
}

/* p_AQi = X_AB·p_BQi for each column i. */
int mbt_calc_points_positions(const mbt_tree* tree, mbt_context* ctx, int frame_B, const mbt_real* p_BQi, int n,
                              int frame_A, mbt_real* p_AQi, int n_out) {
  const char* what = "calc_points_positions";
  int st = mbt__check_tree_context(tree, ctx, what);
  if (st || (st = check_frame(tree, ctx, frame_A, what)) || (st = check_frame(tree, ctx, frame_B, what))) return st;
  if (n < 0 || n_out != n)
    return mbt__context_error(ctx, MBT_ERR_SIZE, "%s: p_AQi has %d columns, p_BQi has %d", what, n_out, n);
  if (n > 0 && (!p_BQi || !p_AQi))
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: a point array is NULL", what);
  mbt__ensure_position_kinematics(tree, ctx);
  const mbt_transform X_WA = frame_pose_in_world(tree, ctx, frame_A);
  const mbt_transform X_WB = frame_pose_in_world(tree, ctx, frame_B);
  const mbt_transform X_AW = mbt_transform_inverse(&X_WA);
  const mbt_transform X_AB = mbt_transform_compose(&X_AW, &X_WB);
  for (int i = 0; i < n; ++i) {
    const mbt_vec3 p = mbt_transform_apply(&X_AB, mbt_vec3_make(p_BQi[3 * i], p_BQi[3 * i + 1], p_BQi[3 * i + 2]));
    p_AQi[3 * i] = p.v[0];
    p_AQi[3 * i + 1] = p.v[1];
    p_AQi[3 * i + 2] = p.v[2];
  }
  return MBT_OK;
}

/* V_WF = V_WB shifted to Fo: w_WF = w_WB, v_WFo = v_WBo + w_WB × p_BoFo_W. */
int mbt_calc_frame_spatial_velocity_in_world(const mbt_tree* tree, mbt_context* ctx, int frame_F,
                                             mbt_spatial_velocity* V_WF) {
  const char* what = "calc_frame_spatial_velocity_in_world";
  int st = mbt__check_tree_context(tree, ctx, what);
  if (st || (st = check_frame(tree, ctx, frame_F, what))) return st;
  if (!V_WF) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: V_WF is NULL", what);
  mbt__ensure_velocity_kinematics(tree, ctx);
  const mbt_frame* f = &tree->frames[frame_F];
  const int node = tree->bodies[f->body].node;
  const mbt_spatial_velocity V_WB = mbt__body_velocity_in_world(tree, ctx, node);
  const mbt_mat3 R_WB = mbt__body_rotation_in_world(tree, ctx, node);
  const mbt_vec3 p_BoFo_W = mbt_mat3_mul_vec(&R_WB, f->X_BF.p);
  V_WF->w = V_WB.w;
  V_WF->v = mbt_vec3_add(V_WB.v, mbt_vec3_cross(V_WB.w, p_BoFo_W));
  return MBT_OK;
}

/* J_WFp column c of a mobilizer on the path from B's host to the world: the column H of its local
 * node shifted from Ro to Fp: [w; v + w × p_RoFp_W]; all other columns are zero. */
int mbt_calc_jacobian_spatial_velocity(const mbt_tree* tree, mbt_context* ctx, int frame_F, mbt_vec3 p_FoFp_F,
                                       mbt_real* J_WFp) {
  const char* what = "calc_jacobian_spatial_velocity";
  int st = mbt__check_tree_context(tree, ctx, what);
  if (st || (st = check_frame(tree, ctx, frame_F, what))) return st;
  const int nv = tree->nv;
  if (!J_WFp && nv > 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: J_WFp is NULL", what);
  mbt__ensure_position_kinematics(tree, ctx);
  if (nv > 0) memset(J_WFp, 0, sizeof(mbt_real) * 6 * (size_t)nv);
  const mbt_frame* f = &tree->frames[frame_F];
  const mbt_transform X_WF = frame_pose_in_world(tree, ctx, frame_F);
  const mbt_vec3 p_WFp = mbt_transform_apply(&X_WF, p_FoFp_F);
  for (int i = tree->nodes[tree->bodies[f->body].node].host; i > 0; i = tree->local_nodes[i].parent) {
    const mbt_local_node* L = &tree->local_nodes[i];
    const mbt_vec3 p_RoFp_W = mbt_vec3_sub(p_WFp, ctx->pc.p_WoRo[i]);
    for (int k = 0; k < L->nv; ++k) {
      const int c = L->v_start + k;
      const mbt_spatial_velocity* H = &ctx->pc.H[c];
      const mbt_vec3 v = mbt_vec3_add(H->v, mbt_vec3_cross(H->w, p_RoFp_W));
      for (int r = 0; r < 3; ++r) {
        J_WFp[r * nv + c] = H->w.v[r];
        J_WFp[(3 + r) * nv + c] = v.v[r];
      }
    }
  }
  return MBT_OK;
}

/* q̇ = N(q)·v mobilizer by mobilizer. MBT_ERR_SINGULAR (qdot unchanged) where N(q) is
 * undefined (a SpaceXYZ mobilizer at gimbal lock). */
int mbt_map_velocity_to_qdot(const mbt_tree* tree, const mbt_context* ctx, const mbt_real* v, mbt_real* qdot) {
  const char* what = "map_velocity_to_qdot";
  int st = mbt__check_tree_context(tree, ctx, what);
  if (st) return st;
  if ((!v && tree->nv > 0) || (!qdot && tree->nq > 0))
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: v or qdot is NULL", what);
  for (int i = 1; i < tree->num_local_nodes; ++i) {
    const mbt_node* n = &tree->nodes[tree->local_nodes[i].node];
    if (mbt__mob_velocity_to_qdot_is_singular(n, ctx->q + n->q_start))
      return mbt__context_error(ctx, MBT_ERR_SINGULAR,
                                "%s: mobilizer '%s': N(q) is singular (gimbal lock at pitch = ±π/2)", what,
                                tree->mobilizers[n->mobilizer].name);
  }
  for (int i = 1; i < tree->num_local_nodes; ++i) {
    const mbt_node* n = &tree->nodes[tree->local_nodes[i].node];
    mbt__mob_map_velocity_to_qdot(n, ctx->q + n->q_start, v + n->v_start, qdot + n->q_start);
  }
  return MBT_OK;
}

/* v = N⁺(q)·q̇ mobilizer by mobilizer. MBT_ERR_SINGULAR (v unchanged) where N⁺ is undefined
 * (a zero quaternion). */
int mbt_map_qdot_to_velocity(const mbt_tree* tree, const mbt_context* ctx, const mbt_real* qdot, mbt_real* v) {
  const char* what = "map_qdot_to_velocity";
  int st = mbt__check_tree_context(tree, ctx, what);
  if (st) return st;
  if ((!v && tree->nv > 0) || (!qdot && tree->nq > 0))
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: v or qdot is NULL", what);
  mbt_real tmp[MBT_JOINT_MAX_NV];
  for (int i = 1; i < tree->num_local_nodes; ++i) {
    const mbt_node* n = &tree->nodes[tree->local_nodes[i].node];
    if (mbt__mob_map_qdot_to_velocity(n, ctx->q + n->q_start, qdot + n->q_start, tmp) != MBT_OK)
      return mbt__context_error(ctx, MBT_ERR_SINGULAR, "%s: mobilizer '%s': N⁺(q) is undefined (zero quaternion)",
                                what, tree->mobilizers[n->mobilizer].name);
  }
  for (int i = 1; i < tree->num_local_nodes; ++i) {
    const mbt_node* n = &tree->nodes[tree->local_nodes[i].node];
    mbt__mob_map_qdot_to_velocity(n, ctx->q + n->q_start, qdot + n->q_start, v + n->v_start);
  }
  return MBT_OK;
}

void mbt__mass_moments(const mbt_tree* tree, const mbt_context* ctx, bool with_v, mbt_real* m, mbt_vec3* mp,
                       mbt_vec3* mv) {
  *m = 0;
  *mp = *mv = mbt_vec3_zero();
  for (int i = 0; i < tree->num_local_nodes; ++i) {
    const mbt_inertia_moments* I = &ctx->I_Mo_M[i];
    const mbt_transform* X = &ctx->pc.X_WM[i];
    const mbt_vec3 h_W = mbt_mat3_mul_vec(&X->R, I->h);
    const mbt_vec3 p_WMo = mbt_vec3_add(ctx->pc.p_WoRo[i], X->p);
    *m += I->m;
    *mp = mbt_vec3_add(*mp, mbt_vec3_axpy(h_W, I->m, p_WMo));
    if (!with_v) continue;
    const mbt_spatial_velocity* V = &ctx->vc.V[i];
    const mbt_vec3 v_Mo = mbt_vec3_add(V->v, mbt_vec3_cross(V->w, X->p));
    *mv = mbt_vec3_add(*mv, mbt_vec3_add(mbt_vec3_scale(v_Mo, I->m), mbt_vec3_cross(V->w, h_W)));
  }
}

/* p_WScm = Σ m_B·p_WBcm / Σ m_B (mbt__mass_moments). */
int mbt_calc_center_of_mass_position(const mbt_tree* tree, mbt_context* ctx, mbt_vec3* p_WScm) {
  const char* what = "calc_center_of_mass_position";
  int st = mbt__check_tree_context(tree, ctx, what);
  if (st) return st;
  if (!p_WScm) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: p_WScm is NULL", what);
  mbt__ensure_position_kinematics(tree, ctx);
  mbt_real m;
  mbt_vec3 mp, mv;
  mbt__mass_moments(tree, ctx, false, &m, &mp, &mv);
  if (!mbt_lt(0, m)) return mbt__context_error(ctx, MBT_ERR_SINGULAR, "%s: the system has no mass", what);
  *p_WScm = mbt_vec3_scale(mp, 1 / m);
  return MBT_OK;
}

/* v_WScm = Σ m_B·v_WBcm / Σ m_B, v_WBcm = v_WBo + w_WB × p_BoBcm_W (mbt__mass_moments). */
int mbt_calc_center_of_mass_velocity(const mbt_tree* tree, mbt_context* ctx, mbt_vec3* v_WScm) {
  const char* what = "calc_center_of_mass_velocity";
  int st = mbt__check_tree_context(tree, ctx, what);
  if (st) return st;
  if (!v_WScm) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: v_WScm is NULL", what);
  mbt__ensure_velocity_kinematics(tree, ctx);
  mbt_real m;
  mbt_vec3 mp, mv;
  mbt__mass_moments(tree, ctx, true, &m, &mp, &mv);
  if (!mbt_lt(0, m)) return mbt__context_error(ctx, MBT_ERR_SINGULAR, "%s: the system has no mass", what);
  *v_WScm = mbt_vec3_scale(mv, 1 / m);
  return MBT_OK;
}

/* L_WSP_W = Σ_B L_WBo_W shifted to P, by local nodes: L_Mo = R_WM·(I_Mo_M·V_WM at Mo in M)
 * (mbt__node_momentum_M), h_P = h_Mo + p_PMo × l; local node 0 carries the bodies welded to the
 * world, which do not move. */
int mbt_calc_spatial_momentum_in_world_about_point(const mbt_tree* tree, mbt_context* ctx, mbt_vec3 p_WoP_W,
                                                   mbt_spatial_momentum* L_WSP_W) {
  const char* what = "calc_spatial_momentum_in_world_about_point";
  int st = mbt__check_tree_context(tree, ctx, what);
  if (st) return st;
  if (!L_WSP_W) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: L_WSP_W is NULL", what);
  mbt__ensure_velocity_kinematics(tree, ctx);
  mbt_vec3 h = mbt_vec3_zero(), l = mbt_vec3_zero();
  for (int i = 1; i < tree->num_local_nodes; ++i) {
    const mbt_transform* X = &ctx->pc.X_WM[i];
    mbt_vec3 w_M, v_M, h_M, l_M;
    mbt__node_momentum_M(ctx, &ctx->I_Mo_M[i], i, &w_M, &v_M, &h_M, &l_M);
    const mbt_vec3 h_Mo = mbt_mat3_mul_vec(&X->R, h_M), l_Mo = mbt_mat3_mul_vec(&X->R, l_M);
    const mbt_vec3 p_PMo = mbt_vec3_sub(mbt_vec3_add(ctx->pc.p_WoRo[i], X->p), p_WoP_W);
    h = mbt_vec3_add(h, mbt_vec3_add(h_Mo, mbt_vec3_cross(p_PMo, l_Mo)));
    l = mbt_vec3_add(l, l_Mo);
  }
  L_WSP_W->h = h;
  L_WSP_W->l = l;
  return MBT_OK;
}
