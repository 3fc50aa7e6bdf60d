/* inverse_dynamics.c: seed CalcInverseDynamics by the recursive Newton-Euler algorithm
 * [Featherstone 2008, §5.3], in the seed's (Drake's) world-frame form:
 *   tau = M(q)·v̇ + C(q,v)·v − tau_app − Σ J_WBᵀ·Fapp_Bo_W. */
#include "algorithms/algorithms_internal.h"
#include "mobilizers/mobilizer_types.h"

/* Base to tip: the accelerations A_i (mbt__calc_local_accelerations), then each node's force
 * F_i = I_i·A_i + V_i ×* I_i·V_i, I_i = I_Mo_M re-expressed by R_WM and shifted from Mo to Ro
 * (mbt__inertias_at_Ro, the cache forward dynamics fills too, kept while q and the inertias are
 * unchanged),
 * [w; v] ×* [t; f] = [w × t + v × f; w × f]; the bodies' applied forces are subtracted from their
 * host's F. Tip to base: tau = Sᵀ·F_i − tau_app, F_λ += F_i (both about Ro in W: no transform). */
void mbt__inverse_dynamics_W(const mbt_tree* tree, mbt_context* ctx, bool use_v, const mbt_real* vdot,
                             const mbt_spatial_force* Fapp_Bo_W, const mbt_real* tau_app, mbt_real* tau) {
  const mbt_spatial_acceleration* A = ctx->aba.A;
  mbt_spatial_force* F = ctx->aba.Z;
  const int nl = tree->num_local_nodes;
  mbt__calc_local_accelerations(tree, ctx, use_v, vdot, ctx->aba.A);
  const mbt_inertia_moments* I = ctx->aba.I_Ro;
  if (!ctx->inertia_valid) {
    mbt__inertias_at_Ro(tree, ctx);
    ctx->inertia_valid = true;
  }
  for (int i = 1; i < nl; ++i) {
    if (use_v)
      mbt__moments_net_force(&I[i], ctx->vc.V[i].w, ctx->vc.V[i].v, &A[i].alpha, &A[i].a, &F[i].tau, &F[i].f);
    else
      mbt__moments_mul(&I[i], A[i].alpha, A[i].a, &F[i].tau, &F[i].f);
  }
  if (Fapp_Bo_W) mbt__subtract_body_forces(tree, ctx, Fapp_Bo_W, NULL, F);
  for (int i = nl - 1; i > 0; --i) {
    const mbt_local_node* L = &tree->local_nodes[i];
    const mbt_spatial_velocity* S = &ctx->pc.H[L->v_start];
    for (int k = 0; k < L->nv; ++k) {
      const int dof = L->v_start + k;
      const mbt_real tk = mbt__spatial_dot(S[k].coeffs, F[i].coeffs);
      tau[dof] = tau_app ? tk - tau_app[dof] : tk;
    }
    if (L->parent > 0)
      for (int r = 0; r < 6; ++r) F[L->parent].coeffs[r] += F[i].coeffs[r];
  }
}

/* ---- local-frame RNEA ------------------------------------------------------------------------
 * [Featherstone 2008, §5.3, Table 5.1] in body coordinates, on the local nodes (tree_internal.h:
 * welded bodies merged into their moving ancestor), each in its frame M at Mo, gravity as the
 * fictitious base acceleration a_W = −g_W. Each node keeps w, α and the classical acceleration
 * a of Mo (the spatial one plus w × v) [Luh, Walker, Paul 1980], so no linear velocity is
 * propagated (revolute_motion); the other mobilizers take the spatial step
 *   X_AM = X_AF·X_FM(q);  vJ = R_MF·V_FM,  ȧJ = R_MF·A_FM − [0; wJ × vJ_v] (d/dt of vJ in M);
 *   v_M = X_MA·v_A + vJ,  a_M = X_MA·a_A + ȧJ + v_M × vJ  (v_A = 0: local_motion)
 * and add w × v. f_M = I·a_M + v_M ×* (I·v_M) from the classical a (local_force), I the constant
 * inertia of the local node about Mo in M; tip to base: tau = H_FMᵀ·(R_FM·f_M) − tau_app,
 * f_A += X_AM*·f_M;
 * X_MA·[w; v] = [Rᵀ·w; Rᵀ·(v + w × p)], X_AM*·[t; f] = [R·t + p × R·f; R·f] with R = R_AM,
 * p = p_AoMo_A; [w; v] × [w'; v'] = [w × w'; w × v' + v × w'], [w; v] ×* [t; f] = [w × t + v × f; w × f]. */

/* X_AM = X_AF·X_FM(q), the joint's vJ and aJ = R_MF·A_FM in M (ȧJ = aJ − [0; wJ × vJ_v]) for a
 * prismatic node (about ẑ) or one of the kinematics kernels (v, vdot: the mobilizer's slices, NULL
 * for zero); revolute: revolute_motion. */
MBT__ALWAYS_INLINE void local_joint(const mbt_tree* tree, const mbt_local_node* L, const mbt_real* q,
                                    const mbt_real* v, const mbt_real* vdot, mbt_local_scratch* s,
                                    mbt_spatial_velocity* vJ, mbt_spatial_acceleration* aJ) {
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
  s->R_AM = L->R_AF_is_identity ? X_FM.R : mbt_mat3_mul(&L->X_AF.R, &X_FM.R);
  s->p_AoMo_A = mbt_vec3_add(L->X_AF.p, L->R_AF_is_identity ? X_FM.p : mbt_mat3_mul_vec(&L->X_AF.R, X_FM.p));
  vJ->w = mbt_mat3_tmul_vec(&X_FM.R, V_FM.w);
  vJ->v = mbt_mat3_tmul_vec(&X_FM.R, V_FM.v);
  aJ->alpha = mbt_mat3_tmul_vec(&X_FM.R, A_FM.alpha);
  aJ->a = mbt_mat3_tmul_vec(&X_FM.R, A_FM.a);
}

/* v_M = X_MA·v_A + vJ, a_M = X_MA·a_A + ȧJ + v_M × vJ for one local node, into s, taken with the
 * parent's linear velocity v_A = 0 and its spatial acceleration a_A = the classical one a_Ao − w_A × v_A
 * = a_Ao: the classical acceleration a_M + w_M × v_M the caller forms does not depend on v_A (its
 * terms in v_A, (−R_AMᵀ·w_A + w_M − wJ) × R_AMᵀ·v_A, cancel), so no node keeps a linear velocity. */
MBT__ALWAYS_INLINE void local_motion(const mbt_local_scratch* sA, mbt_local_scratch* s,
                                     const mbt_spatial_velocity* vJ, const mbt_spatial_acceleration* aJ) {
  const mbt_vec3 aA = sA->A.a;
  const mbt_mat3* R = &s->R_AM;
  const mbt_vec3 p = s->p_AoMo_A;
  const mbt_vec3 w = mbt_vec3_add(mbt_mat3_tmul_vec(R, sA->V.w), vJ->w);
  const mbt_vec3 v = mbt_vec3_add(mbt_mat3_tmul_vec(R, mbt_vec3_cross(sA->V.w, p)), vJ->v);
  const mbt_vec3 al = mbt_vec3_add(mbt_vec3_add(mbt_mat3_tmul_vec(R, sA->A.alpha), aJ->alpha),
                                   mbt_vec3_cross(w, vJ->w));
  const mbt_vec3 a = mbt_vec3_add(
      mbt_vec3_add(mbt_mat3_tmul_vec(R, mbt_vec3_add(aA, mbt_vec3_cross(sA->A.alpha, p))),
                   mbt_vec3_sub(aJ->a, mbt_vec3_cross(vJ->w, vJ->v))),
      mbt_vec3_add(mbt_vec3_cross(w, vJ->v), mbt_vec3_cross(v, vJ->w)));
  s->V.w = w, s->V.v = v, s->A.alpha = al, s->A.a = a;
}

/* local_motion for a node hanging from the world (V_A = 0, α_A = 0): v_M = vJ and, as
 * vJ × vJ = 0, a_M = [ȧJ_α; Rᵀ·a_A + ȧJ_a], whose classical acceleration a_M + wJ × vJ_v is
 * Rᵀ·a_A + aJ_a (the caller's conversion not needed). */
MBT__ALWAYS_INLINE void local_motion_from_world(const mbt_local_scratch* sA, mbt_local_scratch* s,
                                                const mbt_spatial_velocity* vJ, const mbt_spatial_acceleration* aJ) {
  s->V = *vJ;
  s->A.alpha = aJ->alpha;
  s->A.a = mbt_vec3_add(mbt_mat3_tmul_vec(&s->R_AM, sA->A.a), aJ->a);
}

/* w, α and the classical acceleration a of a node's Mo in M, carried in registers from a node to
 * the next (its child on a chain) and stored in the scratch for the other children. */
typedef struct { mbt_vec3 w, al, a; } mbt_local_motion;

/* R_AM = R_x(b)·R_z(θ) of a node with R_AF_is_xz (θ = q + φ): R_AMᵀ·x = R_z(θ)ᵀ·(R_x(b)ᵀ·x) and
 * R_AM·x = R_x(b)·(R_z(θ)·x), two plane rotations (12 flops against 15 for a 3×3 product).
 * cs = {cos b, sin b, cos θ, sin θ}. */
MBT__ALWAYS_INLINE mbt_vec3 xz_tmul(const mbt_real* cs, mbt_vec3 x) {
  const mbt_real y1 = cs[0] * x.v[1] + cs[1] * x.v[2], y2 = cs[0] * x.v[2] - cs[1] * x.v[1];
  return mbt_vec3_make(cs[2] * x.v[0] + cs[3] * y1, cs[2] * y1 - cs[3] * x.v[0], y2);
}
MBT__ALWAYS_INLINE mbt_vec3 xz_mul(const mbt_real* cs, mbt_vec3 x) {
  const mbt_real y0 = cs[2] * x.v[0] - cs[3] * x.v[1], y1 = cs[3] * x.v[0] + cs[2] * x.v[1];
  return mbt_vec3_make(y0, cs[0] * y1 - cs[1] * x.v[2], cs[1] * y1 + cs[0] * x.v[2]);
}
/* R_AMᵀ·x of a revolute node: xz_tmul (xz), else the 3×3 product with s->R_AM. */
MBT__ALWAYS_INLINE mbt_vec3 tmul_AM(const mbt_local_scratch* s, bool xz, mbt_vec3 x) {
  return xz ? xz_tmul(s->cs_xz, x) : mbt_mat3_tmul_vec(&s->R_AM, x);
}

/* w × p, and p × w = −(w × p), for p = (p_x, 0, p_z) when py0 (p_AF_y_is_zero: 5 flops, not 9). */
MBT__ALWAYS_INLINE mbt_vec3 cross_p(mbt_vec3 w, mbt_vec3 p, bool py0) {
  if (!py0) return mbt_vec3_cross(w, p);
  return mbt_vec3_make(w.v[1] * p.v[2], w.v[2] * p.v[0] - w.v[0] * p.v[2], -w.v[1] * p.v[0]);
}

/* R_AM of a revolute node into s: with R_AF_is_xz (xz) cos θ, sin θ of θ = q + φ from those of q
 * and φ into s->cs_xz; else R_AF·R_z(q): columns (c·x + s·y, c·y − s·x, z) of R_AF = (x, y, z). */
MBT__ALWAYS_INLINE void revolute_rotation(const mbt_context* ctx, const mbt_local_node* L, bool xz,
                                          mbt_local_scratch* s) {
  const mbt_real sn = ctx->sin_q[L->q_start], cn = ctx->cos_q[L->q_start];
  const mbt_mat3* F = &L->X_AF.R;
  if (xz) {
    const mbt_real cf = F->m[0][0], sf = -F->m[0][1];
    s->cs_xz[0] = F->m[2][2], s->cs_xz[1] = -F->m[1][2];
    s->cs_xz[2] = cn * cf - sn * sf, s->cs_xz[3] = sn * cf + cn * sf;
  } else if (L->R_AF_is_identity) {
    s->R_AM = mbt__rot_z(sn, cn);
  } else {
    for (int r = 0; r < 3; ++r) {
      s->R_AM.m[r][0] = cn * F->m[r][0] + sn * F->m[r][1];
      s->R_AM.m[r][1] = cn * F->m[r][1] - sn * F->m[r][0];
      s->R_AM.m[r][2] = F->m[r][2];
    }
  }
}

/* The motion of a revolute node, about ẑ through Mo = Fo (a point of the parent too), with the
 * classical acceleration a of Mo [Luh, Walker, Paul 1980], which needs no linear velocity:
 *   w = Rᵀ·w_A + ẑ·q̇,  α = Rᵀ·α_A + ẑ·q̈ + q̇·(w_y, −w_x, 0)  (w × ẑ),
 *   a = Rᵀ·(a_A + α_A × p + w_A × (w_A × p)),
 * R = R_AM, p = p_AF; hanging from the world: w = ẑ·q̇, α = ẑ·q̈, a = Rᵀ·a_W. xz, py0:
 * L->R_AF_is_xz, L->p_AF_y_is_zero (constants at each call, for the compiler: inlined at each of
 * the three calls; GCC kept one copy out of line taking the flags as arguments, 7 % slower on UR5,
 * measured). */
MBT__ALWAYS_INLINE void revolute_motion(const mbt_context* ctx, const mbt_local_node* L, mbt_real qd, mbt_real qdd,
                                        mbt_local_motion* m, mbt_local_scratch* s, bool xz, bool py0) {
  revolute_rotation(ctx, L, xz, s);
  const mbt_vec3 p = L->X_AF.p;
  s->p_AoMo_A = p;
  if (L->parent == 0) {
    m->w = mbt_vec3_make(0, 0, qd);
    m->al = mbt_vec3_make(0, 0, qdd), m->a = tmul_AM(s, xz, m->a);
    return;
  }
  const mbt_vec3 wA = m->w, alA = m->al;
  const mbt_vec3 u = cross_p(wA, p, py0);
  mbt_vec3 w = tmul_AM(s, xz, wA);
  w.v[2] += qd;
  const mbt_vec3 al = mbt_vec3_add(tmul_AM(s, xz, alA), mbt_vec3_make(qd * w.v[1], -qd * w.v[0], qdd));
  const mbt_vec3 aA = mbt_vec3_add(mbt_vec3_add(m->a, cross_p(alA, p, py0)), mbt_vec3_cross(wA, u));
  m->w = w, m->al = al, m->a = tmul_AM(s, xz, aA);
}

/* f_M = I·a_M + v_M ×* (I·v_M) for one local node, from the classical acceleration b of Mo
 * (b = a_M + w × v, mbt__moments_net_force): t = K·α + w × (K·w) + h × b,
 * f = m·b − h × α − w × (h × w). */
MBT__ALWAYS_INLINE void local_force(const mbt_inertia_moments* I, const mbt_local_motion* m, mbt_local_scratch* s) {
  const mbt_vec3 w = m->w, al = m->al, b = m->a;
  s->F.tau = mbt_vec3_add(mbt_vec3_add(mbt__moments_K_mul(I, al), mbt_vec3_cross(w, mbt__moments_K_mul(I, w))),
                          mbt_vec3_cross(I->h, b));
  s->F.f = mbt_vec3_sub(mbt_vec3_sub(mbt_vec3_scale(b, I->m), mbt_vec3_cross(I->h, al)),
                        mbt_vec3_cross(w, mbt_vec3_cross(I->h, w)));
}

/* tau = H_FMᵀ·F_Mo_F for the local node's mobilizer, from f_M = [t; f] and R_AM·f_M (t_A, f_A):
 * F_Mo_F = R_AFᵀ·R_AM·f_M. */
MBT__ALWAYS_INLINE void local_project(const mbt_tree* tree, const mbt_local_node* L, const mbt_real* q, mbt_vec3 t,
                                      mbt_vec3 f, mbt_vec3 t_A, mbt_vec3 f_A, mbt_real* tau) {
  switch (L->type) {
    case MBT_MOBILIZER_REVOLUTE: tau[0] = t.v[2]; break;  /* ẑ_M = ẑ_F */
    case MBT_MOBILIZER_PRISMATIC: tau[0] = f.v[2]; break;   /* R_FM = I */
    default: {
      mbt_spatial_force F_Mo_F = {.tau = t_A, .f = f_A};
      if (!L->R_AF_is_identity) {
        F_Mo_F.tau = mbt_mat3_tmul_vec(&L->X_AF.R, t_A);
        F_Mo_F.f = mbt_mat3_tmul_vec(&L->X_AF.R, f_A);
      }
      mbt__mob_project_spatial_force(&tree->nodes[L->node], q, &F_Mo_F, tau);
      break;
    }
  }
}

MBT__ALWAYS_INLINE void rnea_passes(const mbt_tree* tree, mbt_context* ctx, const mbt_real* v, const mbt_real* vdot,
                                    mbt_vec3 g_W, const mbt_real* tau_app, mbt_real* tau) {
  const mbt_local_node* nodes = tree->local_nodes;
  mbt_local_scratch* S = ctx->scratch_local;
  const int nl = tree->num_local_nodes;
  const mbt_real* q = ctx->q;
  S[0].V.w = S[0].V.v = S[0].A.alpha = mbt_vec3_zero();
  S[0].A.a = mbt_vec3_neg(g_W);
  mbt_local_motion m = {S[0].V.w, S[0].A.alpha, S[0].A.a};  /* the previous node's */
  for (int i = 1; i < nl; ++i) {
    const mbt_local_node* L = &nodes[i];
    const mbt_real* vi = v ? v + L->v_start : NULL;
    const mbt_real* vdi = vdot ? vdot + L->v_start : NULL;
    const mbt_real qd = vi ? vi[0] : 0, qdd = vdi ? vdi[0] : 0;
    if (L->parent != i - 1) m = (mbt_local_motion){S[L->parent].V.w, S[L->parent].A.alpha, S[L->parent].A.a};
    if (L->p_AF_y_is_zero) {
      revolute_motion(ctx, L, qd, qdd, &m, &S[i], true, true);
    } else if (L->R_AF_is_xz) {
      revolute_motion(ctx, L, qd, qdd, &m, &S[i], true, false);
    } else if (L->type == MBT_MOBILIZER_REVOLUTE) {
      revolute_motion(ctx, L, qd, qdd, &m, &S[i], false, false);
    } else {
      mbt_spatial_velocity vJ;
      mbt_spatial_acceleration aJ;
      local_joint(tree, L, q + L->q_start, vi, vdi, &S[i], &vJ, &aJ);
      if (L->parent == 0) {
        local_motion_from_world(&S[0], &S[i], &vJ, &aJ);
      } else {
        local_motion(&S[L->parent], &S[i], &vJ, &aJ);
        S[i].A.a = mbt_vec3_add(S[i].A.a, mbt_vec3_cross(S[i].V.w, S[i].V.v));  /* classical */
      }
      m = (mbt_local_motion){S[i].V.w, S[i].A.alpha, S[i].A.a};
    }
    S[i].V.w = m.w, S[i].A.alpha = m.al, S[i].A.a = m.a;
    local_force(&ctx->I_Mo_M[i], &m, &S[i]);
  }
  mbt_vec3 ct = mbt_vec3_zero(), cf = ct;  /* the force of node i + 1 on i when i is its parent */
  for (int i = nl - 1; i > 0; --i) {
    const mbt_local_node* L = &nodes[i];
    const mbt_local_scratch* s = &S[i];
    const mbt_vec3 Ft = mbt_vec3_add(s->F.tau, ct), Ff = mbt_vec3_add(s->F.f, cf);
    ct = cf = mbt_vec3_zero();
    mbt_vec3 f_A = mbt_vec3_zero(), t_A = f_A;  /* R_AM·f_M: not needed by a revolute or prismatic
                                                   node hanging from the world */
    if (L->parent > 0 || (L->type != MBT_MOBILIZER_REVOLUTE && L->type != MBT_MOBILIZER_PRISMATIC)) {
      f_A = L->R_AF_is_xz ? xz_mul(s->cs_xz, Ff) : mbt_mat3_mul_vec(&s->R_AM, Ff);
      t_A = L->R_AF_is_xz ? xz_mul(s->cs_xz, Ft) : mbt_mat3_mul_vec(&s->R_AM, Ft);
    }
    mbt_real t[6];
    local_project(tree, L, q + L->q_start, Ft, Ff, t_A, f_A, t);
    for (int k = 0; k < L->nv; ++k) tau[L->v_start + k] = tau_app ? t[k] - tau_app[L->v_start + k] : t[k];
    if (L->parent > 0) {
      const mbt_vec3 tA = mbt_vec3_sub(t_A, cross_p(f_A, s->p_AoMo_A, L->p_AF_y_is_zero));
      if (L->parent == i - 1) {
        ct = tA, cf = f_A;
      } else {
        mbt_spatial_force* FA = &S[L->parent].F;
        FA->tau = mbt_vec3_add(FA->tau, tA);
        FA->f = mbt_vec3_add(FA->f, f_A);
      }
    }
  }
}

/* The two passes compiled for baseline x86-64 and, where the processor has them (checked per call),
 * for AVX2/FMA (algorithms_internal.h, MBT__AVX2_ATTRIBUTES): fused multiply-adds in the plane
 * rotations, cross products and K·x, and three-operand instructions (no register copies); and for
 * AVX-512 where it has that too, for its 32 vector registers (16 otherwise: the forward pass's
 * motion, inertia and products spilled to the stack). The joint angles' sin and cos, a cache shared
 * with the kinematics, stay baseline. */
static void rnea_passes_base(const mbt_tree* tree, mbt_context* ctx, const mbt_real* v, const mbt_real* vdot,
                             mbt_vec3 g_W, const mbt_real* tau_app, mbt_real* tau) {
  rnea_passes(tree, ctx, v, vdot, g_W, tau_app, tau);
}
#ifdef MBT__AVX2
/* (MBT__PASSES_*_ATTRIBUTES: GCC's SLP vectorizer off, chain:30 11641 → 11091 instructions per
 * call without it.) */
MBT__PASSES_AVX2_ATTRIBUTES static void rnea_passes_avx2(const mbt_tree* tree, mbt_context* ctx, const mbt_real* v,
                                                  const mbt_real* vdot, mbt_vec3 g_W, const mbt_real* tau_app,
                                                  mbt_real* tau) {
  rnea_passes(tree, ctx, v, vdot, g_W, tau_app, tau);
}
MBT__PASSES_AVX512_ATTRIBUTES static void rnea_passes_avx512(const mbt_tree* tree, mbt_context* ctx, const mbt_real* v,
                                                      const mbt_real* vdot, mbt_vec3 g_W, const mbt_real* tau_app,
                                                      mbt_real* tau) {
  rnea_passes(tree, ctx, v, vdot, g_W, tau_app, tau);
}
#else
#define rnea_passes_avx2 rnea_passes_base
#define rnea_passes_avx512 rnea_passes_base
#endif

void mbt__inverse_dynamics_local(const mbt_tree* tree, mbt_context* ctx, const mbt_real* v, const mbt_real* vdot,
                                 mbt_vec3 g_W, const mbt_real* tau_app, mbt_real* tau) {
  mbt__calc_joint_sincos(tree, ctx);
  if (!mbt__cpu_has_avx2_fma())
    rnea_passes_base(tree, ctx, v, vdot, g_W, tau_app, tau);
  else if (mbt__cpu_has_avx512())
    rnea_passes_avx512(tree, ctx, v, vdot, g_W, tau_app, tau);
  else
    rnea_passes_avx2(tree, ctx, v, vdot, g_W, tau_app, tau);
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

/* A welded body's own force about Ro: I_B·A + V ×* I_B·V − Fapp_B, I_B about Ro
 * (mbt__body_moments_at_Ro), A and V its host's. */
static mbt_spatial_force welded_body_force(const mbt_tree* tree, const mbt_context* ctx, int node,
                                           const mbt_spatial_force* Fapp_Bo_W) {
  const int host = tree->nodes[node].host;
  mbt_inertia_moments I;
  mbt__body_moments_at_Ro(tree, ctx, node, &I);
  const mbt_spatial_acceleration* A = &ctx->aba.A[host];
  const mbt_spatial_velocity* V = &ctx->vc.V[host];
  mbt_spatial_force F;
  mbt__moments_net_force(&I, V->w, V->v, &A->alpha, &A->a, &F.tau, &F.f);
  if (Fapp_Bo_W) mbt__subtract_force_at_Ro(mbt__p_RoBo_W(tree, ctx, node), &Fapp_Bo_W[node], &F);
  return F;
}

/* The mobilizer force F_BMo_W on every body, from the local nodes' F (at Ro, after
 * mbt__inverse_dynamics_W with v): a moving body's is its node's F (the whole subtree's net
 * force); a welded body's (its weld's reaction) is its own force (welded_body_force) plus its
 * children's, tip to base over the bodies in ctx->scratch_F (a child's moved from its Ro to its
 * parent's when they differ: a body welded to the world is taken about Wo); then each is moved
 * from Ro to Mo: tau_Mo = tau_Ro − p_RoMo × f, p_RoMo = p_RoBo − R_WB·p_MoBo_B. F_BMo_W may alias
 * Fapp_Bo_W. */
static void calc_mobilizer_forces(const mbt_tree* tree, mbt_context* ctx, const mbt_spatial_force* Fapp_Bo_W,
                                  mbt_spatial_force* F_BMo_W) {
  const mbt_spatial_force* F = ctx->aba.Z;
  mbt_spatial_force* Fs = ctx->scratch_F;
  for (int node = 0; node < tree->num_nodes; ++node)
    for (int k = 0; k < 6; ++k) Fs[node].coeffs[k] = 0;
  for (int node = tree->num_nodes - 1; node > 0; --node) {
    const mbt_node* n = &tree->nodes[node];
    mbt_spatial_force* Fb = &Fs[node];
    if (n->type != MBT_MOBILIZER_WELD) {
      *Fb = F[n->host];
    } else {
      const mbt_spatial_force Fw = welded_body_force(tree, ctx, node, Fapp_Bo_W);
      for (int k = 0; k < 6; ++k) Fb->coeffs[k] += Fw.coeffs[k];
    }
    const mbt_node* P = &tree->nodes[n->parent_node];
    if (n->parent_node == 0 || P->type != MBT_MOBILIZER_WELD) continue;
    mbt_spatial_force* Fp = &Fs[n->parent_node];
    const mbt_vec3 d = mbt_vec3_sub(ctx->pc.p_WoRo[n->host], ctx->pc.p_WoRo[P->host]);
    Fp->tau = mbt_vec3_add(Fp->tau, mbt_vec3_add(Fb->tau, mbt_vec3_cross(d, Fb->f)));
    Fp->f = mbt_vec3_add(Fp->f, Fb->f);
  }
  for (int k = 0; k < 6; ++k) F_BMo_W[0].coeffs[k] = 0;
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    const mbt_mat3 R_WB = mbt__body_rotation_in_world(tree, ctx, node);
    const mbt_vec3 p_RoMo = mbt_vec3_sub(mbt__p_RoBo_W(tree, ctx, node), mbt_mat3_mul_vec(&R_WB, n->p_MoBo_B));
    F_BMo_W[node].tau = mbt_vec3_sub(Fs[node].tau, mbt_vec3_cross(p_RoMo, Fs[node].f));
    F_BMo_W[node].f = Fs[node].f;
  }
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
  mbt__inverse_dynamics_W(tree, ctx, true, known_vdot, Fapp_Bo_W_array, tau_applied, tau);
  if (A_WB_array) mbt__body_accelerations_in_world(tree, ctx, ctx->aba.A, A_WB_array);
  if (F_BMo_W_array) calc_mobilizer_forces(tree, ctx, Fapp_Bo_W_array, F_BMo_W_array);
  return MBT_OK;
}
