/* inverse_dynamics.c: seed CalcInverseDynamics by the recursive Newton-Euler algorithm
 * [Featherstone 2008, §5.3], in the seed's (Drake's) world-frame form:
 *   tau = M(q)·v̇ + C(q,v)·v − tau_app − Σ J_WBᵀ·Fapp_Bo_W. */
#include "algorithms/algorithms_internal.h"
#include "mobilizers/mobilizer_types.h"

void mbt__inverse_dynamics(const mbt_tree* tree, mbt_context* ctx, bool use_v, const mbt_real* vdot,
                           const mbt_spatial_force* Fapp_Bo_W, const mbt_real* tau_app,
                           mbt_spatial_acceleration* A_WB, mbt_spatial_force* F_BBo_W, mbt_real* tau) {
  if (use_v) mbt__ensure_velocity_kinematics(tree, ctx);
  else mbt__ensure_position_kinematics(tree, ctx);
  const mbt_position_cache* pc = &ctx->pc;
  const mbt_velocity_cache* vc = &ctx->vc;
  const int nn = tree->num_nodes;

  /* Base to tip: A_WB = A_WP composed with A_PB_W (mbt__compose_A_WB), then the body's own
   * force F_BBo_W = M_Bo_W·A_WB + Fb_Bo_W − Fapp_Bo_W, with M_Bo_W = {m, p = p_BoBcm, G} and the
   * gyroscopic bias Fb_Bo_W = [w × (m·G·w); m·w × (w × p)]:
   *   tau_Bo = m·(G·alpha + w × (G·w) + p × a),  f = m·(a − p × alpha + w × (w × p)). */
  for (int i = 0; i < 6; ++i) A_WB[0].coeffs[i] = 0;
  for (int node = 1; node < nn; ++node) {
    const mbt_node* n = &tree->nodes[node];
    mbt_spatial_acceleration* A = &A_WB[node];
    mbt__compose_A_WB(ctx, n, node, use_v, vdot ? vdot + n->v_start : NULL, &A_WB[n->parent_node], A);
    const mbt_spatial_inertia* M = &pc->M_Bo_W[node];
    const mbt_real m = M->mass;
    const mbt_vec3 p = M->p_PScm_E;
    mbt_vec3 t = mbt_vec3_add(mbt__unit_inertia_mul(&M->G_SP_E, A->alpha), mbt_vec3_cross(p, A->a));
    mbt_vec3 f = mbt_vec3_sub(A->a, mbt_vec3_cross(p, A->alpha));
    if (use_v) {
      const mbt_vec3 w = vc->V_WB[node].w;
      t = mbt_vec3_add(t, mbt_vec3_cross(w, mbt__unit_inertia_mul(&M->G_SP_E, w)));
      f = mbt_vec3_add(f, mbt_vec3_cross(w, mbt_vec3_cross(w, p)));
    }
    mbt_spatial_force F;
    F.tau = mbt_vec3_scale(t, m);
    F.f = mbt_vec3_scale(f, m);
    if (Fapp_Bo_W)
      for (int i = 0; i < 6; ++i) F.coeffs[i] -= Fapp_Bo_W[node].coeffs[i];
    F_BBo_W[node] = F;
  }

  /* Tip to base: F_BBo_W += Σ_children F_CCo_W shifted to Bo (complete once every child, at
   * a higher node index, has been added); tau = H_PB_Wᵀ·F_BBo_W − tau_app. */
  for (int node = nn - 1; node > 0; --node) {
    const mbt_node* n = &tree->nodes[node];
    const mbt_spatial_force* F = &F_BBo_W[node];
    if (n->parent_node > 0) mbt__spatial_force_add_shifted(&F_BBo_W[n->parent_node], F, pc->p_PoBo_W[node]);
    const mbt_spatial_velocity* H = &pc->H_PB_W[n->v_start];
    mbt_real* t = tau + n->v_start;
    const mbt_real* ta = tau_app ? tau_app + n->v_start : NULL;
    if (n->type == MBT_MOBILIZER_REVOLUTE && n->X_MB_is_identity) {
      const mbt_real tk = mbt_vec3_dot(H->w, F->tau);  /* H_PB_W = [R_WF·â; 0] */
      t[0] = ta ? tk - ta[0] : tk;
    } else {
      for (int k = 0; k < n->nv; ++k) {
        const mbt_real tk = mbt__spatial_dot(H[k].coeffs, F->coeffs);
        t[k] = ta ? tk - ta[k] : tk;
      }
    }
  }
  for (int i = 0; i < 6; ++i) F_BBo_W[0].coeffs[i] = 0;
}

/* ---- local-frame RNEA ------------------------------------------------------------------------
 * [Featherstone 2008, §5.3, Table 5.1] in body coordinates, on the local nodes (tree_internal.h:
 * welded bodies merged into their moving ancestor), each in its frame M at Mo, with spatial (not
 * classical) accelerations and gravity as the fictitious base acceleration a_W = [0; −g_W]:
 *   X_AM = X_AF·X_FM(q);  vJ = R_MF·V_FM,  ȧJ = R_MF·A_FM − [0; wJ × vJ_v] (d/dt of vJ in M);
 *   v_M = X_MA·v_A + vJ,  a_M = X_MA·a_A + ȧJ + v_M × vJ;
 *   f_M = I·a_M + v_M ×* (I·v_M), with I the constant inertia of the local node about Mo in M;
 *   tip to base: tau = H_FMᵀ·(R_FM·f_M) − tau_app,  f_A += X_AM*·f_M;
 * X_MA·[w; v] = [Rᵀ·w; Rᵀ·(v + w × p)], X_AM*·[t; f] = [R·t + p × R·f; R·f] with R = R_AM,
 * p = p_AoMo_A; [w; v] × [w'; v'] = [w × w'; w × v' + v × w'], [w; v] ×* [t; f] = [w × t + v × f; w × f]. */

/* X_AM = X_AF·X_FM(q) and the joint's vJ, ȧJ in M for a prismatic node (about ẑ) or one of the
 * kinematics kernels (v, vdot: the mobilizer's slices, NULL for zero); revolute: revolute_motion. */
static inline void local_joint(const mbt_tree* tree, const mbt_local_node* L, const mbt_real* q, const mbt_real* v,
                               const mbt_real* vdot, mbt_local_scratch* s, mbt_spatial_velocity* vJ,
                               mbt_spatial_acceleration* aJ) {
  if (L->type == MBT_MOBILIZER_PRISMATIC) {  /* R_FM = I, p_FoMo = q·ẑ, vJ = [0; ẑ·q̇], ȧJ = [0; ẑ·q̈] */
    s->R_AM = L->X_AF.R;
    s->p_AoMo_A = mbt_vec3_axpy(L->X_AF.p, q[0], mbt_vec3_make(L->X_AF.R.m[0][2], L->X_AF.R.m[1][2], L->X_AF.R.m[2][2]));
    vJ->w = aJ->alpha = mbt_vec3_zero();
    vJ->v = mbt_vec3_make(0, 0, v ? v[0] : 0);
    aJ->a = mbt_vec3_make(0, 0, vdot ? vdot[0] : 0);
    return;
  }
  static const mbt_real zero[6] = {0, 0, 0, 0, 0, 0};
  const mbt_node* n = &tree->nodes[L->node];
  mbt_transform X_FM;
  mbt_spatial_velocity V_FM;
  mbt_spatial_acceleration A_FM;
  mbt__mob_calc_X_FM(n, q, &X_FM);
  mbt__mob_calc_V_FM(n, q, v ? v : zero, &V_FM);
  mbt__mob_calc_A_FM(n, q, v ? v : zero, vdot, &A_FM);
  s->R_AM = mbt_mat3_mul(&L->X_AF.R, &X_FM.R);
  s->p_AoMo_A = mbt_vec3_add(L->X_AF.p, mbt_mat3_mul_vec(&L->X_AF.R, X_FM.p));
  vJ->w = mbt_mat3_tmul_vec(&X_FM.R, V_FM.w);
  vJ->v = mbt_mat3_tmul_vec(&X_FM.R, V_FM.v);
  aJ->alpha = mbt_mat3_tmul_vec(&X_FM.R, A_FM.alpha);
  aJ->a = mbt_vec3_sub(mbt_mat3_tmul_vec(&X_FM.R, A_FM.a), mbt_vec3_cross(vJ->w, vJ->v));
}

/* v_M = X_MA·v_A + vJ, a_M = X_MA·a_A + ȧJ + v_M × vJ for one local node, into s. */
static inline void local_motion(const mbt_local_scratch* sA, mbt_local_scratch* s, const mbt_spatial_velocity* vJ,
                                const mbt_spatial_acceleration* aJ) {
  const mbt_mat3* R = &s->R_AM;
  const mbt_vec3 p = s->p_AoMo_A;
  const mbt_vec3 w = mbt_vec3_add(mbt_mat3_tmul_vec(R, sA->V.w), vJ->w);
  const mbt_vec3 v =
      mbt_vec3_add(mbt_mat3_tmul_vec(R, mbt_vec3_add(sA->V.v, mbt_vec3_cross(sA->V.w, p))), vJ->v);
  const mbt_vec3 al = mbt_vec3_add(mbt_vec3_add(mbt_mat3_tmul_vec(R, sA->A.alpha), aJ->alpha),
                                   mbt_vec3_cross(w, vJ->w));
  const mbt_vec3 a = mbt_vec3_add(
      mbt_vec3_add(mbt_mat3_tmul_vec(R, mbt_vec3_add(sA->A.a, mbt_vec3_cross(sA->A.alpha, p))), aJ->a),
      mbt_vec3_add(mbt_vec3_cross(w, vJ->v), mbt_vec3_cross(v, vJ->w)));
  s->V.w = w, s->V.v = v, s->A.alpha = al, s->A.a = a;
}

/* local_joint and local_motion for a revolute node, about ẑ, without the zero terms:
 *   R_AM = R_AF·R_z(q): columns (c·x + s·y, c·y − s·x, z) of R_AF = (x, y, z) (12 products),
 *   p_AoMo_A = p_AF, vJ = [ẑ·q̇; 0], ȧJ = [ẑ·q̈; 0], and with x × ẑ = (x_y, −x_x, 0):
 *   w = Rᵀ·w_A + ẑ·q̇,  v = Rᵀ·(v_A + w_A × p),
 *   α = Rᵀ·α_A + ẑ·q̈ + q̇·(w_y, −w_x, 0),  a = Rᵀ·(a_A + α_A × p) + q̇·(v_y, −v_x, 0). */
static inline void revolute_motion(const mbt_context* ctx, const mbt_local_node* L, mbt_real qd, mbt_real qdd,
                                   const mbt_local_scratch* sA, mbt_local_scratch* s) {
  const mbt_real sn = ctx->sin_q[L->q_start], cs = ctx->cos_q[L->q_start];
  mbt_mat3 R;
  if (L->R_AF_is_identity) {
    R = mbt__rot_z(sn, cs);
  } else {
    const mbt_mat3* A = &L->X_AF.R;
    for (int r = 0; r < 3; ++r) {
      R.m[r][0] = cs * A->m[r][0] + sn * A->m[r][1];
      R.m[r][1] = cs * A->m[r][1] - sn * A->m[r][0];
      R.m[r][2] = A->m[r][2];
    }
  }
  const mbt_vec3 p = L->X_AF.p;
  const mbt_vec3 wA = sA->V.w, alA = sA->A.alpha;
  mbt_vec3 w = mbt_mat3_tmul_vec(&R, wA);
  const mbt_vec3 v = mbt_mat3_tmul_vec(&R, mbt_vec3_add(sA->V.v, mbt_vec3_cross(wA, p)));
  mbt_vec3 al = mbt_mat3_tmul_vec(&R, alA);
  mbt_vec3 a = mbt_mat3_tmul_vec(&R, mbt_vec3_add(sA->A.a, mbt_vec3_cross(alA, p)));
  w.v[2] += qd;
  al = mbt_vec3_add(al, mbt_vec3_make(qd * w.v[1], -qd * w.v[0], qdd));
  a = mbt_vec3_add(a, mbt_vec3_make(qd * v.v[1], -qd * v.v[0], 0));
  s->R_AM = R;
  s->p_AoMo_A = p;
  s->V.w = w, s->V.v = v, s->A.alpha = al, s->A.a = a;
}

/* f_M = I·a_M + v_M ×* (I·v_M) for one local node. */
static inline void local_force(const mbt_inertia_moments* I, mbt_local_scratch* s) {
  const mbt_vec3 w = s->V.w, v = s->V.v;
  mbt_vec3 t, f, ht, hf;
  mbt__moments_mul(I, s->A.alpha, s->A.a, &t, &f);
  mbt__moments_mul(I, w, v, &ht, &hf);
  s->F.tau = mbt_vec3_add(t, mbt_vec3_add(mbt_vec3_cross(w, ht), mbt_vec3_cross(v, hf)));
  s->F.f = mbt_vec3_add(f, mbt_vec3_cross(w, hf));
}

/* tau = H_FMᵀ·F_Mo_F for the local node's mobilizer, from R_AM·f_M (t_A, f_A): F_Mo_F = R_AFᵀ·R_AM·f_M. */
static inline void local_project(const mbt_tree* tree, const mbt_local_node* L, const mbt_real* q,
                                 const mbt_local_scratch* s, mbt_vec3 t_A, mbt_vec3 f_A, mbt_real* tau) {
  switch (L->type) {
    case MBT_MOBILIZER_REVOLUTE: tau[0] = s->F.tau.v[2]; break;  /* ẑ_M = ẑ_F */
    case MBT_MOBILIZER_PRISMATIC: tau[0] = s->F.f.v[2]; break;   /* R_FM = I */
    default: {
      mbt_spatial_force F_Mo_F;
      F_Mo_F.tau = mbt_mat3_tmul_vec(&L->X_AF.R, t_A);
      F_Mo_F.f = mbt_mat3_tmul_vec(&L->X_AF.R, f_A);
      mbt__mob_project_spatial_force(&tree->nodes[L->node], q, &F_Mo_F, tau);
      break;
    }
  }
}

void mbt__inverse_dynamics_local(const mbt_tree* tree, mbt_context* ctx, const mbt_real* v, const mbt_real* vdot,
                                 mbt_vec3 g_W, const mbt_real* tau_app, mbt_real* tau) {
  const mbt_local_node* nodes = tree->local_nodes;
  mbt_local_scratch* S = ctx->scratch_local;
  const int nl = tree->num_local_nodes;
  const mbt_real* q = ctx->q;
  mbt__calc_joint_sincos(tree, ctx);
  S[0].V.w = S[0].V.v = S[0].A.alpha = mbt_vec3_zero();
  S[0].A.a = mbt_vec3_neg(g_W);
  for (int i = 1; i < nl; ++i) {
    const mbt_local_node* L = &nodes[i];
    const mbt_real* vi = v ? v + L->v_start : NULL;
    const mbt_real* vdi = vdot ? vdot + L->v_start : NULL;
    if (L->type == MBT_MOBILIZER_REVOLUTE) {
      revolute_motion(ctx, L, vi ? vi[0] : 0, vdi ? vdi[0] : 0, &S[L->parent], &S[i]);
    } else {
      mbt_spatial_velocity vJ;
      mbt_spatial_acceleration aJ;
      local_joint(tree, L, q + L->q_start, vi, vdi, &S[i], &vJ, &aJ);
      local_motion(&S[L->parent], &S[i], &vJ, &aJ);
    }
    local_force(&ctx->I_Mo_M[i], &S[i]);
  }
  for (int i = nl - 1; i > 0; --i) {
    const mbt_local_node* L = &nodes[i];
    const mbt_local_scratch* s = &S[i];
    const mbt_vec3 f_A = mbt_mat3_mul_vec(&s->R_AM, s->F.f);
    const mbt_vec3 t_A = mbt_mat3_mul_vec(&s->R_AM, s->F.tau);
    mbt_real t[6];
    local_project(tree, L, q + L->q_start, s, t_A, f_A, t);
    for (int k = 0; k < L->nv; ++k) tau[L->v_start + k] = tau_app ? t[k] - tau_app[L->v_start + k] : t[k];
    if (L->parent > 0) {
      mbt_spatial_force* FA = &S[L->parent].F;
      FA->tau = mbt_vec3_add(FA->tau, mbt_vec3_add(t_A, mbt_vec3_cross(s->p_AoMo_A, f_A)));
      FA->f = mbt_vec3_add(FA->f, f_A);
    }
  }
}

int mbt_calc_inverse_dynamics_with_gravity(const mbt_tree* tree, mbt_context* ctx, const mbt_real* known_vdot,
                                           mbt_real* tau) {
  int st = mbt__check_tree_context(tree, ctx, "calc_inverse_dynamics_with_gravity");
  if (st) return st;
  if (!tau && tree->nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_inverse_dynamics_with_gravity: tau is NULL");
  mbt__inverse_dynamics_local(tree, ctx, ctx->v, known_vdot, ctx->g_W, NULL, tau);
  return MBT_OK;
}

int mbt_calc_inverse_dynamics(const mbt_tree* tree, mbt_context* ctx, const mbt_real* known_vdot,
                              const mbt_spatial_force* Fapp_Bo_W_array, const mbt_real* tau_applied,
                              mbt_spatial_acceleration* A_WB_array, mbt_spatial_force* F_BMo_W_array,
                              mbt_real* tau) {
  int st = mbt__check_tree_context(tree, ctx, "calc_inverse_dynamics");
  if (st) return st;
  if (!tau && tree->nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_inverse_dynamics: tau is NULL");
  if (!A_WB_array && !F_BMo_W_array && !Fapp_Bo_W_array) {  /* only tau asked for: local frames */
    mbt__inverse_dynamics_local(tree, ctx, ctx->v, known_vdot, mbt_vec3_zero(), tau_applied, tau);
    return MBT_OK;
  }
  mbt_spatial_acceleration* A_WB = A_WB_array ? A_WB_array : ctx->scratch_A;
  mbt_spatial_force* F_BBo_W = F_BMo_W_array ? F_BMo_W_array : ctx->scratch_F2;
  mbt__inverse_dynamics(tree, ctx, true, known_vdot, Fapp_Bo_W_array, tau_applied, A_WB, F_BBo_W, tau);
  if (F_BMo_W_array) {
    /* F_BMo_W: shift from Bo to Mo, tau_Mo = tau_Bo + p_MoBo_W × f. */
    for (int node = 1; node < tree->num_nodes; ++node) {
      const mbt_node* n = &tree->nodes[node];
      if (n->X_MB_is_identity) continue;
      mbt_spatial_force* F = &F_BMo_W_array[node];
      F->tau = mbt_vec3_add(F->tau, mbt_vec3_cross(mbt__p_MoBo_W(ctx, n, node), F->f));
    }
  }
  return MBT_OK;
}
