/* derivatives_kin.c: the bias acceleration of a frame's point, J̇·v (seed
 * CalcBiasSpatialAcceleration, CalcBiasTranslationalAcceleration), and J̇ itself, from the
 * forward pass of derivatives.c at v̇ = 0 without gravity.
 *
 * With the node's spatial acceleration â = [α; a_Wo − w × v_Wo] at Wo (Featherstone's) and the
 * point Fp at p = p_WoFp, the classical acceleration of the body point is
 *   a_Fp = â_v + α × p + w × v_Fp,  v_Fp = v_Wo + w × p   [Featherstone 2008, §2.11];
 * at v̇ = 0 it is the bias J̇·v. Column k of J_WFp is [S_k.w; S_k.v + S_k.w × p] on the path of
 * the frame's body (zero elsewhere), so with Ṡ_k = u_k × S_k = G_k + W_k (derivatives.c) and
 * ṗ = v_Fp:  J̇_k = [Ṡ_k.w; Ṡ_k.v + Ṡ_k.w × p + S_k.w × v_Fp]. */
#include <string.h>
#include "algorithms/derivatives_internal.h"

/* The frame's host local node, and p_WoFp in W (after the forward pass). */
static int frame_point(const mbt_tree* tree, const mbt_derivatives_workspace* ws, int frame, mbt_vec3 p_FoFp_F,
                       mbt_vec3* p_WoFp) {
  const mbt_frame* fr = &tree->frames[frame];
  const mbt_node* n = &tree->nodes[tree->bodies[fr->body].node];
  const mbt_vec3 p_BoFp = mbt_transform_apply(&fr->X_BF, p_FoFp_F);
  const mbt_vec3 p_MoFp = mbt_transform_apply(&n->X_HB, p_BoFp);
  *p_WoFp = mbt_transform_apply(&ws->X_WM[n->host], p_MoFp);
  return n->host;
}

static int check_frame(const mbt_tree* tree, mbt_context* ctx, const mbt_derivatives_workspace* ws, int frame,
                       const void* out, const char* what) {
  int st = mbt__derivatives_check(tree, ctx, ws, what);
  if (st) return st;
  if (frame < 0 || frame >= tree->num_frames)
    return mbt__context_error(ctx, MBT_ERR_NOT_FOUND, "%s: no frame %d (the tree has %d)", what, frame,
                              tree->num_frames);
  if (!out) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: the output is NULL", what);
  return MBT_OK;
}

int mbt_calc_bias_spatial_acceleration(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                       int frame_F, mbt_vec3 p_FoFp_F, mbt_spatial_acceleration* AsBias_WFp_W) {
  int st = check_frame(tree, ctx, ws, frame_F, AsBias_WFp_W, "calc_bias_spatial_acceleration");
  if (st) return st;
  mbt__derivatives_kinematics(tree, ctx, ws, ctx->v, NULL);
  mbt_vec3 p;
  const int i = frame_point(tree, ws, frame_F, p_FoFp_F, &p);
  const mbt_vec3 w = mbt_vec3_make(ws->V[i][0], ws->V[i][1], ws->V[i][2]);
  const mbt_vec3 al = mbt_vec3_make(ws->A[i][0], ws->A[i][1], ws->A[i][2]);
  const mbt_vec3 vo = mbt_vec3_make(ws->V[i][3], ws->V[i][4], ws->V[i][5]);
  const mbt_vec3 ao = mbt_vec3_make(ws->A[i][3], ws->A[i][4], ws->A[i][5]);
  const mbt_vec3 v_Fp = mbt_vec3_add(vo, mbt_vec3_cross(w, p));
  AsBias_WFp_W->alpha = al;
  AsBias_WFp_W->a = mbt_vec3_add(ao, mbt_vec3_add(mbt_vec3_cross(al, p), mbt_vec3_cross(w, v_Fp)));
  return MBT_OK;
}

int mbt_calc_bias_translational_acceleration(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                             int frame_F, mbt_vec3 p_FoFp_F, mbt_vec3* asBias_WFp_W) {
  mbt_spatial_acceleration A;
  int st = check_frame(tree, ctx, ws, frame_F, asBias_WFp_W, "calc_bias_translational_acceleration");
  if (st) return st;
  st = mbt_calc_bias_spatial_acceleration(tree, ctx, ws, frame_F, p_FoFp_F, &A);
  if (st) return st;
  *asBias_WFp_W = A.a;
  return MBT_OK;
}

int mbt_calc_jacobian_spatial_velocity_time_derivative(const mbt_tree* tree, mbt_context* ctx,
                                                       mbt_derivatives_workspace* ws, int frame_F, mbt_vec3 p_FoFp_F,
                                                       mbt_real* Jdot_WFp) {
  int st = check_frame(tree, ctx, ws, frame_F, Jdot_WFp || tree->nv == 0 ? (const void*)ctx : NULL,
                       "calc_jacobian_spatial_velocity_time_derivative");
  if (st) return st;
  const int nv = tree->nv;
  mbt__derivatives_kinematics(tree, ctx, ws, ctx->v, NULL);
  mbt_vec3 p;
  const int host = frame_point(tree, ws, frame_F, p_FoFp_F, &p);
  const mbt_vec3 w = mbt_vec3_make(ws->V[host][0], ws->V[host][1], ws->V[host][2]);
  const mbt_vec3 v_Fp = mbt_vec3_add(mbt_vec3_make(ws->V[host][3], ws->V[host][4], ws->V[host][5]), mbt_vec3_cross(w, p));
  memset(Jdot_WFp, 0, sizeof(mbt_real) * 6 * (size_t)nv);
  for (int a = host; a > 0; a = tree->local_nodes[a].parent) {
    const mbt_local_node* L = &tree->local_nodes[a];
    for (int k = L->v_start; k < L->v_start + L->nv; ++k) {
      const mbt_real *S = ws->S[k], *G = ws->Gk[k], *W = ws->Wk[k];
      const mbt_vec3 sw = mbt_vec3_make(S[0], S[1], S[2]);
      const mbt_vec3 dw = mbt_vec3_make(G[0] + W[0], G[1] + W[1], G[2] + W[2]);
      const mbt_vec3 dv = mbt_vec3_make(G[3] + W[3], G[4] + W[4], G[5] + W[5]);
      const mbt_vec3 d = mbt_vec3_add(dv, mbt_vec3_add(mbt_vec3_cross(dw, p), mbt_vec3_cross(sw, v_Fp)));
      for (int r = 0; r < 3; ++r) Jdot_WFp[(size_t)r * nv + k] = dw.v[r], Jdot_WFp[(size_t)(3 + r) * nv + k] = d.v[r];
    }
  }
  return MBT_OK;
}
