/* forward_dynamics.c: forward dynamics v̇ = M⁻¹·(tau_app + Σ J_WBᵀ·Fapp_Bo_W + tau_forces − C·v)
 * by the articulated-body algorithm [Featherstone 2008, §7.3] in the world frame, and through
 * the mass matrix and its Cholesky factorization.
 *
 * ABA in the seed's notation, per body B with parent P, quantities at Bo expressed in W:
 *   pass 1 (q only, tip to base): P_B = M_Bo_W + Σ_children Φ(p_BoCo)·Pplus_C·Φ(p_BoCo)ᵀ,
 *     U = P_B·H_PB_W, D = H_PB_Wᵀ·U = L·Lᵀ, Pplus_B = P_B − U·D⁻¹·Uᵀ;
 *   pass 2 (v, forces, tip to base): Z_B = b_Bo_W − Fapp_Bo_W + Σ_children Φ·Zplus_C,
 *     e = tau − H_PB_Wᵀ·Z_B, Zplus_B = Z_B + Pplus_B·Ab_WB + U·D⁻¹·e;
 *   pass 3 (base to tip): A⁻ = Φᵀ(p_PoBo)·A_WP + Ab_WB, v̇_B = D⁻¹·(e − Uᵀ·A⁻),
 *     A_WB = A⁻ + H_PB_W·v̇_B;
 * where Φ(p) = [[I, [p]ₓ], [0, I]] shifts a spatial force from Co to Bo (tau += p × f),
 * Φᵀ shifts a rigid acceleration from Po to Bo (a += alpha × p), b_Bo_W = [w × I_Bo·w;
 * m·w × (w × p_BoBcm)] is the gyroscopic force and Ab_WB = A_WB − Φᵀ·A_WP − H_PB_W·v̇_B the
 * velocity-dependent acceleration bias. Gravity and all force elements enter through
 * Fapp and tau (mbt__calc_force_elements), so the world does not accelerate.
 * A locked mobilizer, or a weld, has no columns: Pplus_B = P_B, Zplus_B = Z_B + P_B·Ab_WB,
 * v̇_B = 0. */
#include "algorithms/algorithms_internal.h"
#include "algorithms/cholesky_internal.h"

typedef mbt_articulated_body_inertia mbt__abi;

/* ---- 6×6 articulated inertias ---------------------------------------------------------- */
/* M_Bo as the 6×6 matrix [[m·G, m·[p]ₓ], [−m·[p]ₓ, m·I]] with p = p_BoBcm (F = M·A). */
static void abi_from_spatial_inertia(const mbt_spatial_inertia* M, mbt__abi* P) {
  const mbt_real m = M->mass;
  const mbt_unit_inertia* G = &M->G_SP_E;
  const mbt_real px = m * M->p_PScm_E.v[0], py = m * M->p_PScm_E.v[1], pz = m * M->p_PScm_E.v[2];
  const mbt__abi R = {{{m * G->xx, m * G->xy, m * G->xz, 0, -pz, py},
                       {m * G->xy, m * G->yy, m * G->yz, pz, 0, -px},
                       {m * G->xz, m * G->yz, m * G->zz, -py, px, 0},
                       {0, pz, -py, m, 0, 0},
                       {-pz, 0, px, 0, m, 0},
                       {py, -px, 0, 0, 0, m}}};
  *P = R;
}

/* P_Bo += Φ(p)·P_Co·Φ(p)ᵀ with p = p_BoCo: Q = Φ·P adds p × (rows 3..5) to rows 0..2 column
 * by column, then Q·Φᵀ adds p × (columns 3..5) to columns 0..2 row by row. */
static void abi_add_shifted(mbt__abi* P_Bo, const mbt__abi* P_Co, mbt_vec3 p) {
  mbt__abi Q = *P_Co;
  for (int j = 0; j < 6; ++j) {
    const mbt_vec3 b = mbt_vec3_make(Q.m[3][j], Q.m[4][j], Q.m[5][j]);
    const mbt_vec3 t = mbt_vec3_cross(p, b);
    for (int i = 0; i < 3; ++i) Q.m[i][j] += t.v[i];
  }
  for (int i = 0; i < 6; ++i) {
    const mbt_vec3 t = mbt_vec3_cross(p, mbt_vec3_make(Q.m[i][3], Q.m[i][4], Q.m[i][5]));
    for (int j = 0; j < 3; ++j) Q.m[i][j] += t.v[j];
  }
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) P_Bo->m[i][j] += Q.m[i][j];
}

/* y = P·x */
static inline void abi_mul(const mbt__abi* P, const mbt_real* x, mbt_real* y) {
  for (int i = 0; i < 6; ++i) y[i] = mbt__spatial_dot(P->m[i], x);
}

/* hᵀ·Ic·h = m·(w·G·w + 2·v·(w × p) + v·v) for h = [w; v] and Ic = {m, p, G} about Bo: the
 * scale of D's pivot (D = Hᵀ·P·H <= Hᵀ·Ic·H, the articulated inertia is bounded by the
 * composite rigid-body inertia Ic of the subtree). */
static mbt_real composite_quadratic_form(const mbt_spatial_inertia* Ic, const mbt_spatial_velocity* h) {
  const mbt_vec3 Gw = mbt__unit_inertia_mul(&Ic->G_SP_E, h->w);
  return Ic->mass * (mbt_vec3_dot(h->w, Gw) + 2 * mbt_vec3_dot(h->v, mbt_vec3_cross(h->w, Ic->p_PScm_E)) +
                     mbt_vec3_dot(h->v, h->v));
}

static inline bool node_is_locked(const mbt_context* ctx, const mbt_node* n) {
  return ctx->any_locked && n->nv > 0 && ctx->v_locked[n->v_start];
}

/* The q-dependent ABA cache also depends on which joints are locked: a node factored as
 * locked has L_00 = 0 in D_LLT. */
static bool aba_locks_match(const mbt_tree* tree, const mbt_context* ctx) {
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    if (n->nv > 0 && node_is_locked(ctx, n) != !mbt_lt(0, ctx->aba.D_LLT[36 * node])) return false;
  }
  return true;
}

static int singular_error(const mbt_tree* tree, mbt_context* ctx, const mbt_node* n, mbt_real pivot,
                          mbt_real scale) {
  return mbt__context_error(ctx, MBT_ERR_SINGULAR,
                            "body '%s': articulated inertia is singular across mobilizer '%s' "
                            "(pivot %.3g <= %.0e x %.3g): forward dynamics is undefined (a body "
                            "without mass or inertia at the end of a joint?)",
                            tree->bodies[n->body].name, tree->mobilizers[n->mobilizer].name,
                            mbt_value(pivot), MBT__CHOLESKY_RTOL, mbt_value(scale));
}

/* ---- pass 1: articulated inertias (q only) ---------------------------------------------- */
static int calc_articulated_inertias(const mbt_tree* tree, mbt_context* ctx) {
  const mbt_position_cache* pc = &ctx->pc;
  mbt_aba_cache* aba = &ctx->aba;
  mbt_spatial_inertia* Ic = ctx->scratch_I; /* composite inertia of each subtree about Bo */
  const int nn = tree->num_nodes;
  for (int node = 1; node < nn; ++node) {
    abi_from_spatial_inertia(&pc->M_Bo_W[node], &aba->P_B_W[node]);
    Ic[node] = pc->M_Bo_W[node];
  }
  for (int node = nn - 1; node > 0; --node) {
    const mbt_node* n = &tree->nodes[node];
    const mbt__abi* P = &aba->P_B_W[node];
    mbt__abi* Pplus = &aba->Pplus_B_W[node];
    const int nv = n->nv;
    mbt_real* L = aba->D_LLT + 36 * node;
    if (nv == 0 || node_is_locked(ctx, n)) {
      *Pplus = *P;
      L[0] = 0; /* marks the node as factored locked (a factor's L_00 is > 0) */
    } else if (nv == 1) {
      /* One column (revolute, prismatic, screw): D = hᵀ·P·h is a scalar,
       * Pplus = P − u·uᵀ/D. */
      const mbt_spatial_velocity* h = &pc->H_PB_W[n->v_start];
      mbt_spatial_force* u = &aba->U_W[n->v_start];
      abi_mul(P, h->coeffs, u->coeffs);
      const mbt_real d = mbt__spatial_dot(h->coeffs, u->coeffs);
      const mbt_real scale = composite_quadratic_form(&Ic[node], h);
      if (!(mbt_lt(MBT__CHOLESKY_RTOL * scale, d) && mbt_isfinite(d))) return singular_error(tree, ctx, n, d, scale);
      L[0] = mbt_sqrt(d);
      const mbt_real dinv = 1 / d;
      for (int i = 0; i < 6; ++i) {
        const mbt_real ui = u->coeffs[i] * dinv;
        for (int j = i; j < 6; ++j) Pplus->m[i][j] = Pplus->m[j][i] = P->m[i][j] - ui * u->coeffs[j];
      }
    } else {
      /* nv columns: U_k = P·h_k, D_ij = h_iᵀ·U_j = L·Lᵀ (pivots scaled by h_iᵀ·Ic·h_i),
       * Pplus = P − Yᵀ·Y with Y = L⁻¹·Uᵀ. */
      const mbt_spatial_velocity* H = &pc->H_PB_W[n->v_start];
      mbt_spatial_force* U = &aba->U_W[n->v_start];
      mbt_real scale[6];
      for (int k = 0; k < nv; ++k) {
        abi_mul(P, H[k].coeffs, U[k].coeffs);
        scale[k] = composite_quadratic_form(&Ic[node], &H[k]);
      }
      for (int i = 0; i < nv; ++i)
        for (int j = 0; j <= i; ++j) L[i * nv + j] = mbt__spatial_dot(H[i].coeffs, U[j].coeffs);
      int row = 0;
      if (mbt__cholesky_factor_ex(L, nv, nv, scale, &row) != MBT_OK) {
        mbt_real d = L[row * nv + row];
        for (int k = 0; k < row; ++k) d -= L[row * nv + k] * L[row * nv + k];
        return singular_error(tree, ctx, n, d, scale[row]);
      }
      if (nv == 6) {
        /* H_PB_W is invertible (quaternion floating): P − P·H·(Hᵀ·P·H)⁻¹·Hᵀ·P = 0. */
        for (int i = 0; i < 6; ++i)
          for (int j = 0; j < 6; ++j) Pplus->m[i][j] = 0;
      } else {
        mbt_real Y[6][6];
        for (int c = 0; c < 6; ++c)
          for (int k = 0; k < nv; ++k) {
            mbt_real s = U[k].coeffs[c];
            for (int j = 0; j < k; ++j) s -= L[k * nv + j] * Y[j][c];
            Y[k][c] = s / L[k * nv + k];
          }
        for (int i = 0; i < 6; ++i)
          for (int j = i; j < 6; ++j) {
            mbt_real s = P->m[i][j];
            for (int k = 0; k < nv; ++k) s -= Y[k][i] * Y[k][j];
            Pplus->m[i][j] = Pplus->m[j][i] = s;
          }
      }
    }
    if (n->parent_node > 0) {
      abi_add_shifted(&aba->P_B_W[n->parent_node], Pplus, pc->p_PoBo_W[node]);
      mbt__spatial_inertia_add_shifted(&Ic[n->parent_node], &Ic[node], pc->p_PoBo_W[node]);
    }
  }
  ctx->aba_position_valid = true;
  return MBT_OK;
}

/* ---- passes 2 and 3: bias forces and accelerations ---------------------------------------- */
/* Ab_WB = A_PB_W bias + [w_WP × w_PB; w_WP × (w_WP × p_PoBo) + 2·w_WP × v_PB] (Drake's
 * ComposeWithMovingFrameAcceleration with v̇ = 0 and A_WP = 0). */
static void calc_acceleration_bias(const mbt_context* ctx, const mbt_node* n, int node,
                                   mbt_spatial_acceleration* Ab) {
  mbt__calc_A_PB_W_bias(ctx, n, node, Ab);
  const mbt_vec3 w_WP = ctx->vc.V_WB[n->parent_node].w;
  const mbt_spatial_velocity* V_PB = &ctx->vc.V_PB_W[node];
  const mbt_vec3 p = ctx->pc.p_PoBo_W[node];
  Ab->alpha = mbt_vec3_add(Ab->alpha, mbt_vec3_cross(w_WP, V_PB->w));
  Ab->a = mbt_vec3_add(Ab->a, mbt_vec3_cross(w_WP, mbt_vec3_axpy(mbt_vec3_cross(w_WP, p), 2, V_PB->v)));
}

static void calc_aba_accelerations(const mbt_tree* tree, mbt_context* ctx, const mbt_real* tau_applied,
                                   const mbt_spatial_force* Fapp_Bo_W, mbt_real* vdot) {
  const mbt_position_cache* pc = &ctx->pc;
  const mbt_velocity_cache* vc = &ctx->vc;
  mbt_aba_cache* aba = &ctx->aba;
  const mbt_multibody_forces* forces = ctx->forces;
  const int nn = tree->num_nodes;

  /* Z_B = b_Bo_W − Fapp_Bo_W − F_forces, with b_Bo_W = [w × (m·G·w); m·w × (w × p_BoBcm)]. */
  for (int node = 1; node < nn; ++node) {
    const mbt_node* n = &tree->nodes[node];
    const mbt_spatial_inertia* M = &pc->M_Bo_W[node];
    const mbt_vec3 w = vc->V_WB[node].w;
    mbt_spatial_force* Z = &aba->Z_Bo_W[node];
    Z->tau = mbt_vec3_scale(mbt_vec3_cross(w, mbt__unit_inertia_mul(&M->G_SP_E, w)), M->mass);
    Z->f = mbt_vec3_scale(mbt_vec3_cross(w, mbt_vec3_cross(w, M->p_PScm_E)), M->mass);
    const mbt_spatial_force* Ff = &forces->F_BBo_W[node];
    for (int i = 0; i < 6; ++i) Z->coeffs[i] -= Ff->coeffs[i];
    if (Fapp_Bo_W)
      for (int i = 0; i < 6; ++i) Z->coeffs[i] -= Fapp_Bo_W[node].coeffs[i];
    calc_acceleration_bias(ctx, n, node, &aba->Ab_WB[node]);
  }

  /* Pass 2, tip to base: e = tau − Hᵀ·Z, Zplus = Z + Pplus·Ab + U·D⁻¹·e. */
  for (int node = nn - 1; node > 0; --node) {
    const mbt_node* n = &tree->nodes[node];
    const mbt_spatial_force* Z = &aba->Z_Bo_W[node];
    mbt_spatial_force* Zplus = &aba->Zplus_Bo_W[node];
    abi_mul(&aba->Pplus_B_W[node], aba->Ab_WB[node].coeffs, Zplus->coeffs);
    for (int i = 0; i < 6; ++i) Zplus->coeffs[i] += Z->coeffs[i];
    const int nv = n->nv;
    if (nv > 0 && !node_is_locked(ctx, n)) {
      const mbt_spatial_velocity* H = &pc->H_PB_W[n->v_start];
      const mbt_spatial_force* U = &aba->U_W[n->v_start];
      const mbt_real* L = aba->D_LLT + 36 * node;
      mbt_real* e = aba->e + n->v_start;
      mbt_real x[6];
      for (int k = 0; k < nv; ++k) {
        const int dof = n->v_start + k;
        e[k] = forces->tau[dof] + (tau_applied ? tau_applied[dof] : 0) - mbt__spatial_dot(H[k].coeffs, Z->coeffs);
        x[k] = e[k];
      }
      if (nv == 1) x[0] /= L[0] * L[0];
      else mbt__cholesky_solve_ex(L, nv, nv, x);
      for (int k = 0; k < nv; ++k)
        for (int i = 0; i < 6; ++i) Zplus->coeffs[i] += U[k].coeffs[i] * x[k];
    }
    if (n->parent_node > 0) mbt__spatial_force_add_shifted(&aba->Z_Bo_W[n->parent_node], Zplus, pc->p_PoBo_W[node]);
  }

  /* Pass 3, base to tip: A⁻ = Φᵀ·A_WP + Ab, v̇ = D⁻¹·(e − Uᵀ·A⁻), A_WB = A⁻ + H·v̇. */
  for (int i = 0; i < 6; ++i) aba->A_WB[0].coeffs[i] = 0;
  for (int node = 1; node < nn; ++node) {
    const mbt_node* n = &tree->nodes[node];
    const mbt_spatial_acceleration* A_WP = &aba->A_WB[n->parent_node];
    const mbt_spatial_acceleration* Ab = &aba->Ab_WB[node];
    mbt_spatial_acceleration* A = &aba->A_WB[node];
    A->alpha = mbt_vec3_add(A_WP->alpha, Ab->alpha);
    A->a = mbt_vec3_add(mbt_vec3_add(A_WP->a, mbt_vec3_cross(A_WP->alpha, pc->p_PoBo_W[node])), Ab->a);
    const int nv = n->nv;
    if (nv == 0) continue;
    mbt_real* vd = vdot + n->v_start;
    if (node_is_locked(ctx, n)) {
      for (int k = 0; k < nv; ++k) vd[k] = 0;
      continue;
    }
    const mbt_spatial_velocity* H = &pc->H_PB_W[n->v_start];
    const mbt_spatial_force* U = &aba->U_W[n->v_start];
    const mbt_real* L = aba->D_LLT + 36 * node;
    const mbt_real* e = aba->e + n->v_start;
    mbt_real x[6];
    for (int k = 0; k < nv; ++k) x[k] = e[k] - mbt__spatial_dot(U[k].coeffs, A->coeffs);
    if (nv == 1) x[0] /= L[0] * L[0];
    else mbt__cholesky_solve_ex(L, nv, nv, x);
    for (int k = 0; k < nv; ++k) {
      vd[k] = x[k];
      for (int i = 0; i < 6; ++i) A->coeffs[i] += H[k].coeffs[i] * x[k];
    }
  }
}

int mbt_calc_forward_dynamics(const mbt_tree* tree, mbt_context* ctx, const mbt_real* tau_applied,
                              const mbt_spatial_force* Fapp_Bo_W_array, mbt_real* vdot) {
  int st = mbt__check_tree_context(tree, ctx, "calc_forward_dynamics");
  if (st) return st;
  if (!vdot && tree->nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_forward_dynamics: vdot is NULL");
  mbt__ensure_velocity_kinematics(tree, ctx);
  if (!ctx->aba_position_valid || !aba_locks_match(tree, ctx)) {
    st = calc_articulated_inertias(tree, ctx);
    if (st) return st;
  }
  st = mbt__calc_force_elements(tree, ctx, ctx->forces);
  if (st) return st;
  calc_aba_accelerations(tree, ctx, tau_applied, Fapp_Bo_W_array, vdot);
  return MBT_OK;
}

/* ---- through the mass matrix ------------------------------------------------------------- */
/* M·v̇ = rhs with rhs = −ID(v̇ = 0, Fapp + F_forces, tau_app + tau_forces) = tau_app + tau_forces
 * + Σ J_WBᵀ·(Fapp + F_forces) − C·v; M by the composite-rigid-body algorithm, factored in
 * place in scratch_nvnv. Locked dofs: the rows and columns of the unlocked dofs are compacted
 * in place (row-major, each element moves to a lower index) and v̇_locked = 0. */
int mbt_calc_forward_dynamics_via_mass_matrix(const mbt_tree* tree, mbt_context* ctx,
                                              const mbt_real* tau_applied,
                                              const mbt_spatial_force* Fapp_Bo_W_array, mbt_real* vdot) {
  int st = mbt__check_tree_context(tree, ctx, "calc_forward_dynamics_via_mass_matrix");
  if (st) return st;
  const int nv = tree->nv, nn = tree->num_nodes;
  if (!vdot && nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "calc_forward_dynamics_via_mass_matrix: vdot is NULL");
  mbt__ensure_velocity_kinematics(tree, ctx);
  st = mbt__calc_force_elements(tree, ctx, ctx->forces);
  if (st) return st;
  /* Combined applied forces in the ABA cache's Z and e (not used by the other algorithms). */
  mbt_spatial_force* F = ctx->aba.Z_Bo_W;
  mbt_real* rhs = ctx->aba.e;
  for (int node = 0; node < nn; ++node)
    for (int i = 0; i < 6; ++i)
      F[node].coeffs[i] = ctx->forces->F_BBo_W[node].coeffs[i] + (Fapp_Bo_W_array ? Fapp_Bo_W_array[node].coeffs[i] : 0);
  for (int k = 0; k < nv; ++k) rhs[k] = ctx->forces->tau[k] + (tau_applied ? tau_applied[k] : 0);
  mbt__inverse_dynamics(tree, ctx, true, NULL, F, rhs, ctx->aba.A_WB, F, rhs);
  for (int k = 0; k < nv; ++k) rhs[k] = -rhs[k];

  mbt_real* M = ctx->scratch_nvnv;
  st = mbt_calc_mass_matrix(tree, ctx, M);
  if (st) return st;
  int nr = 0; /* unlocked dofs, compacted to the front */
  for (int i = 0; i < nv; ++i) {
    if (ctx->any_locked && ctx->v_locked[i]) continue;
    int c = 0;
    for (int j = 0; j < nv; ++j) {
      if (ctx->any_locked && ctx->v_locked[j]) continue;
      M[nr * nv + c] = M[i * nv + j];
      ++c;
    }
    rhs[nr++] = rhs[i];
  }
  int row = 0;
  if (mbt__cholesky_factor_ex(M, nr, nv, NULL, &row) != MBT_OK) {
    int dof = -1;
    for (int k = 0, r = 0; k < nv; ++k) {
      if (ctx->any_locked && ctx->v_locked[k]) continue;
      if (r++ == row) {
        dof = k;
        break;
      }
    }
    const mbt_node* n = &tree->nodes[tree->v_node[dof]];
    return mbt__context_error(ctx, MBT_ERR_SINGULAR,
                              "body '%s': mass matrix is singular at velocity %d (mobilizer '%s'): "
                              "forward dynamics is undefined (a body without mass or inertia at the "
                              "end of a joint?)",
                              tree->bodies[n->body].name, dof, tree->mobilizers[n->mobilizer].name);
  }
  mbt__cholesky_solve_ex(M, nr, nv, rhs);
  for (int k = nv - 1, r = nr - 1; k >= 0; --k) vdot[k] = (ctx->any_locked && ctx->v_locked[k]) ? 0 : rhs[r--];
  return MBT_OK;
}
