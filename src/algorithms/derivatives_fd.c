/* derivatives_fd.c: derivatives of forward dynamics, the inverse mass matrix and ∂tau_g/∂q.
 *
 * Forward dynamics inverts inverse dynamics: tau_ID(q, v, FD(q, v, tau), tau) = 0 for all
 * (q, v, tau), so by the implicit function theorem [Carpentier & Mansard, RSS 2018, §IV]
 *   ∂v̇/∂q = −M⁻¹·∂tau_ID/∂q,  ∂v̇/∂v = −M⁻¹·∂tau_ID/∂v  at v̇ = FD,  ∂v̇/∂tau = M⁻¹,
 * with M = ∂tau_ID/∂v̇ from the same pass. With locked joints only the free block M_ff acts
 * (v̇ of a locked joint is 0): M⁻¹ is M_ff⁻¹ padded with zeros. M_ff = L·Lᵀ by the dense
 * Cholesky factorization; M⁻¹ = L⁻ᵀ·L⁻¹. */
#include <string.h>
#include "algorithms/cholesky_internal.h"
#include "algorithms/derivatives_internal.h"

/* MBT_OK, or MBT_ERR_INVALID_ARGUMENT naming the first force element whose derivative is not
 * computed (a linear spring-damper, a user force with a callback). */
static int check_force_elements(const mbt_tree* tree, mbt_context* ctx, const char* what) {
  for (int e = 0; e < tree->num_forces; ++e) {
    const mbt_force_element* fe = &tree->forces[e];
    if (fe->type == MBT_FORCE_LINEAR_SPRING_DAMPER || (fe->type == MBT_FORCE_USER && fe->u.user.fn))
      return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT,
                                "%s: force element '%s' (%s) has no analytic derivative; only gravity, joint "
                                "damping and revolute springs are differentiated",
                                what, fe->name, fe->type == MBT_FORCE_USER ? "user force" : "linear spring-damper");
  }
  return MBT_OK;
}

/* ws->L = L with L·Lᵀ = M_ff (packed nf×nf), ws->free_dofs; the number of free velocities, or
 * a negative status (singular: the message names the body). */
static int factor_free_block(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                             const mbt_real* M) {
  const int nv = tree->nv;
  int nf = 0;
  for (int k = 0; k < nv; ++k)
    if (!(ctx->any_locked && ctx->v_locked[k])) ws->free_dofs[nf++] = k;
  for (int a = 0; a < nf; ++a)
    for (int b = 0; b < nf; ++b) ws->L[(size_t)a * nf + b] = M[(size_t)ws->free_dofs[a] * nv + ws->free_dofs[b]];
  int row = 0;
  if (mbt__cholesky_factor_ex(ws->L, nf, nf, NULL, &row) != MBT_OK) {
    const int dof = ws->free_dofs[row];
    const mbt_node* n = &tree->nodes[tree->v_node[dof]];
    return mbt__context_error(ctx, MBT_ERR_SINGULAR,
                              "body '%s': mass matrix is singular at velocity %d (mobilizer '%s'): its inverse "
                              "and the forward dynamics derivatives are undefined",
                              tree->bodies[n->body].name, dof, tree->mobilizers[n->mobilizer].name);
  }
  return nf;
}

/* Minv (nv×nv) = M_ff⁻¹ padded with zeros, from the factor: column b of M_ff⁻¹ solves
 * L·Lᵀ·x = e_b (symmetric: only b <= a is solved for, then mirrored). */
static void inverse_from_factor(const mbt_tree* tree, mbt_derivatives_workspace* ws, int nf, mbt_real* Minv) {
  const int nv = tree->nv;
  memset(Minv, 0, (size_t)nv * (size_t)nv * sizeof(mbt_real));
  mbt_real* x = ws->rhs;
  for (int b = 0; b < nf; ++b) {
    for (int a = 0; a < nf; ++a) x[a] = a == b;
    mbt__cholesky_solve_ex(ws->L, nf, nf, x);
    for (int a = b; a < nf; ++a) {
      const size_t ia = (size_t)ws->free_dofs[a], ib = (size_t)ws->free_dofs[b];
      Minv[ia * nv + ib] = Minv[ib * nv + ia] = x[a];
    }
  }
}

/* Y = −Minv·X (nv×nv; Minv zero outside the free rows and columns). */
static void neg_product(const mbt_derivatives_workspace* ws, int nv, int nf, const mbt_real* Minv, const mbt_real* X,
                        mbt_real* Y) {
  memset(Y, 0, (size_t)nv * (size_t)nv * sizeof(mbt_real));
  for (int a = 0; a < nf; ++a) {
    const size_t i = (size_t)ws->free_dofs[a];
    mbt_real* y = Y + i * nv;
    for (int b = 0; b < nf; ++b) {
      const size_t j = (size_t)ws->free_dofs[b];
      const mbt_real m = Minv[i * nv + j];
      const mbt_real* x = X + j * nv;
      for (int k = 0; k < nv; ++k) y[k] -= m * x[k];
    }
  }
}

int mbt_calc_mass_matrix_inverse(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                 mbt_real* Minv) {
  const char* what = "calc_mass_matrix_inverse";
  int st = mbt__derivatives_check(tree, ctx, ws, what);
  if (st) return st;
  if (!Minv && tree->nv > 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: Minv is NULL", what);
  mbt__id_derivatives(tree, ctx, ws, NULL, NULL, mbt_vec3_zero(), false, NULL, NULL, NULL, NULL, ws->T3);
  const int nf = factor_free_block(tree, ctx, ws, ws->T3);
  if (nf < 0) return nf;
  inverse_from_factor(tree, ws, nf, Minv);
  return MBT_OK;
}

int mbt_calc_forward_dynamics_derivatives(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                          const mbt_real* tau_app, mbt_real* vdot, mbt_real* dvdot_dq,
                                          mbt_real* dvdot_dv, mbt_real* dvdot_dtau) {
  const char* what = "calc_forward_dynamics_derivatives";
  int st = mbt__derivatives_check(tree, ctx, ws, what);
  if (st) return st;
  const int nv = tree->nv;
  if ((!dvdot_dq || !dvdot_dv) && nv > 0)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: dvdot_dq and dvdot_dv are required", what);
  if ((st = check_force_elements(tree, ctx, what))) return st;
  if ((st = mbt_calc_forward_dynamics(tree, ctx, tau_app, NULL, ws->vdot))) return st;
  mbt__id_derivatives(tree, ctx, ws, ctx->v, ws->vdot, ctx->g_W, true, tau_app, NULL, ws->T1, ws->T2,
                      ws->T3);
  const int nf = factor_free_block(tree, ctx, ws, ws->T3);
  if (nf < 0) return nf;
  inverse_from_factor(tree, ws, nf, ws->T3);
  neg_product(ws, nv, nf, ws->T3, ws->T1, dvdot_dq);
  neg_product(ws, nv, nf, ws->T3, ws->T2, dvdot_dv);
  if (dvdot_dtau) memcpy(dvdot_dtau, ws->T3, (size_t)nv * (size_t)nv * sizeof(mbt_real));
  if (vdot) memcpy(vdot, ws->vdot, (size_t)nv * sizeof(mbt_real));
  return MBT_OK;
}

int mbt_calc_gravity_generalized_forces_derivatives(const mbt_tree* tree, mbt_context* ctx,
                                                    mbt_derivatives_workspace* ws, mbt_real* dtau_g_dq) {
  const char* what = "calc_gravity_generalized_forces_derivatives";
  int st = mbt__derivatives_check(tree, ctx, ws, what);
  if (st) return st;
  const int nv = tree->nv;
  if (!dtau_g_dq && nv > 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: dtau_g_dq is NULL", what);
  /* tau_g = −tau_ID(q, v = 0, v̇ = 0) with gravity alone. */
  mbt__id_derivatives(tree, ctx, ws, NULL, NULL, ctx->g_W, false, NULL, NULL, ws->T1, ws->T2, NULL);
  for (size_t i = 0; i < (size_t)nv * (size_t)nv; ++i) dtau_g_dq[i] = -ws->T1[i];
  return MBT_OK;
}
