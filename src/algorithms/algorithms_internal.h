/* algorithms_internal.h: what the algorithm files share (not installed): argument checks,
 * the on-demand kinematics caches, the core of the recursive Newton-Euler algorithm, and
 * small spatial-algebra helpers on the context's per-node quantities.
 *
 * Frames: W world, B a body, P its parent, F/M the inboard/outboard frames of B's inboard
 * mobilizer; Bo, Po body origins, Bcm center of mass. Per-node arrays are by body node. */
#ifndef MBT_ALGORITHMS_INTERNAL_H
#define MBT_ALGORITHMS_INTERNAL_H

#include "mbt/dynamics.h"
#include "mobilizers/mobilizer_kernels.h"
#include "mobilizers/mobilizer_types.h"
#include "tree/context_internal.h"

/* MBT_OK if tree is finalized and ctx belongs to it; otherwise the status, with a message
 * in the context (or the tree if ctx is NULL). `what` names the calling function. */
int mbt__check_tree_context(const mbt_tree* tree, const mbt_context* ctx, const char* what);

/* Recompute the position cache (X_WB, p_PoBo_W, R_WF, H_FM, H_PB_W, M_Bo_W, p_WBcm) if q
 * changed since it was computed; X_PB and X_FM, which no algorithm reads, only
 * mbt_calc_position_kinematics_cache computes. Never fails for a checked tree/context. */
void mbt__ensure_position_kinematics(const mbt_tree* tree, mbt_context* ctx);
/* ctx->sin_q, ctx->cos_q of every revolute and screw angle (tree->angle_q) if q changed since
 * they were computed (1-ulp: SLEEF's vector sincos, or the C library's). */
void mbt__calc_joint_sincos(const mbt_tree* tree, mbt_context* ctx);
/* Recompute the poses X_WB, p_PoBo_W, R_WF if q changed since they were computed; the rest of
 * the position cache is only guaranteed by mbt__ensure_position_kinematics. */
void mbt__ensure_poses(const mbt_tree* tree, mbt_context* ctx);
/* Recompute the velocity cache (V_WB, V_PB_W, V_FM) if q or v changed; ensures positions. */
void mbt__ensure_velocity_kinematics(const mbt_tree* tree, mbt_context* ctx);

/* p_MoBo_W: from the outboard frame's origin Mo to Bo, in W (zero when X_MB = I). Needs the
 * position cache. */
mbt_vec3 mbt__p_MoBo_W(const mbt_context* ctx, const mbt_node* n, int node);

/* A_PB_W − H_PB_W·v̇: the velocity-dependent part of the across-mobilizer acceleration at
 * Bo in W, R_WF·(Ḣ_FM·v) shifted from Mo to Bo plus the centripetal w_PB × (w_PB × p_MoBo_W).
 * Needs the poses (X_WB, R_WF) and w_PB. */
void mbt__calc_A_PB_W_bias(const mbt_context* ctx, const mbt_node* n, int node, mbt_vec3 w_PB,
                           mbt_spatial_acceleration* Ab_PB_W);

/* H_PB_W of one node from its pose: column k = R_WF·H_FM_k shifted from Mo to Bo,
 * v += w × p_MoBo_W (p_MoBo_W = R_WB·p_MoBo_B); revolute about â: [R_WF·â; w × p_MoBo_W]
 * (â a coordinate axis: a column of R_WF), prismatic: [0; R_WF·â]. H_FM holds the node's
 * across-mobilizer columns (read by the general types only). */
static inline void mbt__calc_H_PB_W(const mbt_node* n, const mbt_mat3* R_WF, const mbt_mat3* R_WB, const mbt_spatial_velocity* H_FM,
                      mbt_spatial_velocity* H_PB_W) {
  const bool shift = !n->X_MB_is_identity;
  switch (n->type) {
    case MBT_MOBILIZER_WELD:
      return;
    case MBT_MOBILIZER_REVOLUTE: {
      mbt_vec3 w;
      if (n->axis_k) {
        const int k = (n->axis_k < 0 ? -n->axis_k : n->axis_k) - 1;
        w = mbt_vec3_make(R_WF->m[0][k], R_WF->m[1][k], R_WF->m[2][k]);
        if (n->axis_k < 0) w = mbt_vec3_neg(w);
      } else {
        w = mbt_mat3_mul_vec(R_WF, n->axis);
      }
      H_PB_W->w = w;
      H_PB_W->v = shift ? mbt_vec3_cross(w, mbt_mat3_mul_vec(R_WB, n->p_MoBo_B)) : mbt_vec3_zero();
      return;
    }
    case MBT_MOBILIZER_PRISMATIC:
      H_PB_W->w = mbt_vec3_zero();
      H_PB_W->v = mbt_mat3_mul_vec(R_WF, n->axis);
      return;
    default: {
      const mbt_vec3 p_MoBo_W = shift ? mbt_mat3_mul_vec(R_WB, n->p_MoBo_B) : mbt_vec3_zero();
      for (int k = 0; k < n->nv; ++k) {
        H_PB_W[k].w = mbt_mat3_mul_vec(R_WF, H_FM[k].w);
        H_PB_W[k].v = mbt_mat3_mul_vec(R_WF, H_FM[k].v);
        if (shift) H_PB_W[k].v = mbt_vec3_add(H_PB_W[k].v, mbt_vec3_cross(H_PB_W[k].w, p_MoBo_W));
      }
      return;
    }
  }
}


/* Drake's ComposeWithMovingFrameAcceleration, A_WB of one node from its parent's A_WP, the
 * velocity caches (if use_v) and v̇_B (vdot_B, NULL for zero):
 *   alpha_WB = alpha_WP + alpha_PB + w_WP × w_PB,
 *   a_WBo = a_WPo + alpha_WP × p_PoBo + w_WP × (w_WP × p_PoBo) + a_PB + 2·w_WP × v_PB,
 * with w_WP × p_PoBo = v_WBo − v_WPo − v_PB (velocity kinematics), so the two w_WP terms are
 * w_WP × (v_WBo − v_WPo + v_PB); A_PB_W = H_PB_W·v̇_B + the bias (zero for a mobilizer with
 * constant H_FM and X_MB = I). */
static inline void mbt__compose_A_WB(const mbt_context* ctx, const mbt_node* n, int node, bool use_v,
                                     const mbt_real* vdot_B, const mbt_spatial_acceleration* A_WP,
                                     mbt_spatial_acceleration* A_WB) {
  const mbt_position_cache* pc = &ctx->pc;
  const mbt_vec3 p = pc->p_PoBo_W[node];
  mbt_vec3 alpha = A_WP->alpha;
  mbt_vec3 a = mbt_vec3_add(A_WP->a, mbt_vec3_cross(A_WP->alpha, p));
  if (use_v) {
    const mbt_velocity_cache* vc = &ctx->vc;
    const mbt_spatial_velocity* V_WP = &vc->V_WB[n->parent_node];
    const mbt_spatial_velocity* V_PB = &vc->V_PB_W[node];
    const mbt_vec3 dv = mbt_vec3_add(mbt_vec3_sub(vc->V_WB[node].v, V_WP->v), V_PB->v);
    alpha = mbt_vec3_add(alpha, mbt_vec3_cross(V_WP->w, V_PB->w));
    a = mbt_vec3_add(a, mbt_vec3_cross(V_WP->w, dv));
    if (!n->X_MB_is_identity || n->type == MBT_MOBILIZER_UNIVERSAL) {
      mbt_spatial_acceleration Ab;
      mbt__calc_A_PB_W_bias(ctx, n, node, V_PB->w, &Ab);
      alpha = mbt_vec3_add(alpha, Ab.alpha);
      a = mbt_vec3_add(a, Ab.a);
    }
  }
  if (vdot_B) {
    const mbt_spatial_velocity* H = &pc->H_PB_W[n->v_start];
    if (n->type == MBT_MOBILIZER_REVOLUTE && n->X_MB_is_identity) {
      alpha = mbt_vec3_axpy(alpha, vdot_B[0], H->w);  /* H_PB_W = [R_WF·â; 0] */
    } else {
      for (int k = 0; k < n->nv; ++k) {
        alpha = mbt_vec3_axpy(alpha, vdot_B[k], H[k].w);
        a = mbt_vec3_axpy(a, vdot_B[k], H[k].v);
      }
    }
  }
  A_WB->alpha = alpha;
  A_WB->a = a;
}

/* A_WB for every node from vdot (nv, NULL for zero) at the context's q, and at its v if use_v
 * (else v = 0); ensures the caches it reads. */
void mbt__calc_spatial_accelerations(const mbt_tree* tree, mbt_context* ctx, bool use_v, const mbt_real* vdot,
                                     mbt_spatial_acceleration* A_WB);

/* Recursive Newton-Euler core [Featherstone 2008, §5.3] at the context's q, and at its v if
 * use_v (else v = 0). vdot (nv), Fapp (per node), tau_app (nv) may be NULL for zero. Writes
 * A_WB (per node, required), F_BBo_W (per node, required: the mobilizer force on B taken at
 * Bo; see mbt_calc_inverse_dynamics for F_BMo_W), tau (nv, may alias tau_app). Fapp may alias
 * F_BBo_W. */
void mbt__inverse_dynamics(const mbt_tree* tree, mbt_context* ctx, bool use_v, const mbt_real* vdot,
                           const mbt_spatial_force* Fapp_Bo_W, const mbt_real* tau_app,
                           mbt_spatial_acceleration* A_WB, mbt_spatial_force* F_BBo_W, mbt_real* tau);

/* Recursive Newton-Euler in the local frames of the local nodes (inverse_dynamics.c), with gravity
 * g_W as the base acceleration −g_W [Featherstone 2008, §5.3], at the context's q and the
 * velocities v (nv, NULL for zero):
 *   tau = M(q)·v̇ + C(q,v)·v − tau_g(q; g_W) − tau_app
 * (vdot, tau_app NULL for zero; tau may alias tau_app). Reads and writes no kinematics cache
 * but the joint angles' sin and cos (mbt__calc_joint_sincos), and ctx->scratch_local. */
void mbt__inverse_dynamics_local(const mbt_tree* tree, mbt_context* ctx, const mbt_real* v, const mbt_real* vdot,
                                 mbt_vec3 g_W, const mbt_real* tau_app, mbt_real* tau);

/* Force element contributions (gravity, springs, user elements, joint damping) added into
 * `forces`, which is first zeroed. MBT_ERR_SINGULAR (forces unchanged) if a spring has zero
 * length. */
int mbt__calc_force_elements(const mbt_tree* tree, mbt_context* ctx, mbt_multibody_forces* forces);

/* ---- shared kernels of the local-node recursions (mass_matrix.c, forward_dynamics.c) ---------- */
/* Ic about Bo += Ic_C about Co shifted by d = p_BoCo (parallel-axis theorem by moments, as the
 * sum of m·(|r|²·1 − r·rᵀ) over the mass points at r = d + r_C from Bo):
 *   m += m_C, h += h_C + m_C·d, K += K_C + m_C·(|d|²·1 − d·dᵀ) + 2·(d·h_C)·1 − d·h_Cᵀ − h_C·dᵀ. */
static inline void mbt__moments_add_shifted(mbt_inertia_moments* Ic, const mbt_inertia_moments* C, mbt_vec3 d) {
  const mbt_vec3 h = C->h;
  const mbt_vec3 md = mbt_vec3_scale(d, C->m);
  const mbt_real s = mbt_vec3_dot(md, d) + 2 * mbt_vec3_dot(d, h);
  const mbt_real dx = d.v[0], dy = d.v[1], dz = d.v[2], hx = h.v[0], hy = h.v[1], hz = h.v[2];
  Ic->K[0] += C->K[0] + s - md.v[0] * dx - 2 * dx * hx;
  Ic->K[1] += C->K[1] + s - md.v[1] * dy - 2 * dy * hy;
  Ic->K[2] += C->K[2] + s - md.v[2] * dz - 2 * dz * hz;
  Ic->K[3] += C->K[3] - md.v[0] * dy - dx * hy - hx * dy;
  Ic->K[4] += C->K[4] - md.v[0] * dz - dx * hz - hx * dz;
  Ic->K[5] += C->K[5] - md.v[1] * dz - dy * hz - hy * dz;
  Ic->h = mbt_vec3_add(Ic->h, mbt_vec3_add(h, md));
  Ic->m += C->m;
}

/* K' = R·K·Rᵀ, h' = R·h for the moments {m, h, K} of a body re-expressed by R: with A = R·K,
 * K'ᵢⱼ = Aᵢ·Rⱼ for the six entries i <= j (45 products). */
static inline void mbt__moments_reexpress(const mbt_inertia_moments* I, const mbt_mat3* R, mbt_inertia_moments* IR) {
  const mbt_real* K = I->K;
  const mbt_real k[3][3] = {{K[0], K[3], K[4]}, {K[3], K[1], K[5]}, {K[4], K[5], K[2]}};
  mbt_real A[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) A[i][j] = R->m[i][0] * k[0][j] + R->m[i][1] * k[1][j] + R->m[i][2] * k[2][j];
#define MBT__ARt(i, j) (A[i][0] * R->m[j][0] + A[i][1] * R->m[j][1] + A[i][2] * R->m[j][2])
  IR->K[0] = MBT__ARt(0, 0), IR->K[1] = MBT__ARt(1, 1), IR->K[2] = MBT__ARt(2, 2);
  IR->K[3] = MBT__ARt(0, 1), IR->K[4] = MBT__ARt(0, 2), IR->K[5] = MBT__ARt(1, 2);
#undef MBT__ARt
  IR->h = mbt_mat3_mul_vec(R, I->h);
  IR->m = I->m;
}

/* The pose X_WM of a local node's frame M and its H columns at the reference point Ro in W, from
 * its moving ancestor's X_WA. Positions are measured from Ro, the origin Mo of the node of the
 * subtree that hangs from the world (the recursions stay exact however far the bodies are from
 * Wo: products about Wo would lose |p_WoMo|² digits): for a node hanging from the world
 * (L->parent == 0, X_WA = I), *p_WoRo receives p_WoMo and X_WM->p = 0; below it, X_WM->p is
 * p_RoMo and *p_WoRo is left alone. R_WF = R_WA·R_AF, p_RoFo = p_RoAo + R_WA·p_AF,
 * X_WM = X_WF·X_FM(q); a column [w; v_Mo] of H_FM at Mo in F is [R_WF·w; R_WF·v_Mo + p_RoMo × R_WF·w]
 * at Ro in W. Revolute (about ẑ): R_WM = R_WF·R_z(q) (12 products), w = column z of R_WF,
 * v_Mo = 0; prismatic (along ẑ): R_WM = R_WF, p_FoMo = q·ẑ, w = 0, v_Mo = column z of R_WF. */
static inline void mbt__local_pose_and_H_Ro(const mbt_tree* tree, const mbt_context* ctx, const mbt_local_node* L,
                                            const mbt_transform* X_WA, mbt_transform* X_WM, mbt_spatial_velocity* H,
                                            mbt_vec3* p_WoRo) {
  const mbt_mat3 R_WF = L->R_AF_is_identity ? X_WA->R : mbt_mat3_mul(&X_WA->R, &L->X_AF.R);
  const mbt_vec3 p_RoFo = mbt_vec3_add(X_WA->p, mbt_mat3_mul_vec(&X_WA->R, L->X_AF.p));
  const mbt_vec3 z = mbt_vec3_make(R_WF.m[0][2], R_WF.m[1][2], R_WF.m[2][2]);
  const mbt_real* q = ctx->q + L->q_start;
  const bool root = L->parent == 0;
  if (L->type == MBT_MOBILIZER_REVOLUTE) {
    const mbt_real sn = ctx->sin_q[L->q_start], cs = ctx->cos_q[L->q_start];
    for (int r = 0; r < 3; ++r) {
      X_WM->R.m[r][0] = cs * R_WF.m[r][0] + sn * R_WF.m[r][1];
      X_WM->R.m[r][1] = cs * R_WF.m[r][1] - sn * R_WF.m[r][0];
      X_WM->R.m[r][2] = R_WF.m[r][2];
    }
    if (root) *p_WoRo = p_RoFo;
    X_WM->p = root ? mbt_vec3_zero() : p_RoFo;
    H->w = z;
    H->v = mbt_vec3_cross(X_WM->p, z);
    return;
  }
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

/* I·[w; v] = [K·w + h × v; m·v − h × w] for I by its moments {m, h, K} about a point O, [w; v] at O. */
static inline void mbt__moments_mul(const mbt_inertia_moments* I, mbt_vec3 w, mbt_vec3 v, mbt_vec3* t, mbt_vec3* f) {
  const mbt_real* K = I->K;
  const mbt_vec3 Kw = mbt_vec3_make(K[0] * w.v[0] + K[3] * w.v[1] + K[4] * w.v[2],
                                    K[3] * w.v[0] + K[1] * w.v[1] + K[5] * w.v[2],
                                    K[4] * w.v[0] + K[5] * w.v[1] + K[2] * w.v[2]);
  *t = mbt_vec3_add(Kw, mbt_vec3_cross(I->h, v));
  *f = mbt_vec3_sub(mbt_vec3_scale(v, I->m), mbt_vec3_cross(I->h, w));
}

/* ---- spatial algebra on (mass, p_BoBcm, G_Bo) inertias and [w; v] vectors -------------- */
/* G·w for a symmetric unit (or rotational) inertia. */
static inline mbt_vec3 mbt__unit_inertia_mul(const mbt_unit_inertia* G, mbt_vec3 w) {
  return mbt_vec3_make(G->xx * w.v[0] + G->xy * w.v[1] + G->xz * w.v[2],
                       G->xy * w.v[0] + G->yy * w.v[1] + G->yz * w.v[2],
                       G->xz * w.v[0] + G->yz * w.v[1] + G->zz * w.v[2]);
}
/* M_Bo·[w; v] = [m·(G_Bo·w + p × v); m·(v − p × w)] with p = p_BoBcm (momentum L = M·V,
 * force M·A). */
static inline void mbt__spatial_inertia_mul(const mbt_spatial_inertia* M, mbt_vec3 w, mbt_vec3 v,
                                            mbt_vec3* top, mbt_vec3* bottom) {
  const mbt_real m = M->mass;
  const mbt_vec3 p = M->p_PScm_E;
  *top = mbt_vec3_scale(mbt_vec3_add(mbt__unit_inertia_mul(&M->G_SP_E, w), mbt_vec3_cross(p, v)), m);
  *bottom = mbt_vec3_scale(mbt_vec3_sub(v, mbt_vec3_cross(p, w)), m);
}
/* Spatial force shift from Bo to Po: tau_Po = tau_Bo + p_PoBo × f. Accumulated into F_Po. */
static inline void mbt__spatial_force_add_shifted(mbt_spatial_force* F_Po, const mbt_spatial_force* F_Bo,
                                                  mbt_vec3 p_PoBo_W) {
  F_Po->tau = mbt_vec3_add(F_Po->tau, mbt_vec3_add(F_Bo->tau, mbt_vec3_cross(p_PoBo_W, F_Bo->f)));
  F_Po->f = mbt_vec3_add(F_Po->f, F_Bo->f);
}
static inline mbt_real mbt__spatial_dot(const mbt_real* a, const mbt_real* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

#endif /* MBT_ALGORITHMS_INTERNAL_H */
