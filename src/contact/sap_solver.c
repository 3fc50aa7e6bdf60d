/* sap_solver.c: the contact impulses of one discrete step as the minimizer of a convex,
 * unconstrained function of the velocities (contact_internal.h): Drake's SAP solver [Castro,
 * Han, Permenter, Drake Team, "An unconstrained convex formulation of compliant contact",
 * IEEE T-RO 39(2), 2022] on the "lagged" convex approximation of compliant contact with
 * regularized friction [Castro, Han, Masterjohn, "A theory of irrotational contact fields",
 * 2023; Drake's DiscreteContactApproximation::kLagged].
 *
 * Per contact i, in its frame (rows n, t1, t2):
 *   normal:   γ_n = max(0, (b_n − v_n)/R_n), the implicit Kelvin–Voigt law of
 *             contact_solver.c, the derivative of the convex ½·R_n·γ_n²;
 *   friction: Coulomb's law with the bound μ·n0, n0 the normal impulse at the start of the
 *             step (lagged: it does not depend on the unknowns, which keeps the problem
 *             convex without SAP's coupling of γ_n to the slip, whose normal velocity μ·‖v_t‖
 *             lifts sliding bodies), regularized within the slip R_t·μ·n0: the derivative of
 *             the Huber function ℓ_t = ‖v_t‖²/(2·R_t) (stiction, the slip R_t·‖γ_t‖) or
 *             μ·n0·(‖v_t‖ − ½·R_t·μ·n0) (sliding, ‖γ_t‖ = μ·n0 against the slip);
 *             R_t = σ·w_i, w_i = trace(W_ii)/3, σ = 10⁻³ (SAP §V-C).
 * The velocities after the step minimize
 *   ℓ(v) = ½·‖v − v*‖²_M + Σ_i ℓ_i(J_i·v),  ∇ℓ = M·(v − v*) − Jᵀ·γ,  ∇²ℓ = M + Jᵀ·G·J,
 * G_i = −∂γ_i/∂v_c,i, symmetric positive semidefinite (SAP §IV, §VI). At the minimizer
 * M·(v − v*) = Jᵀ·γ: the momentum balance of the step.
 * Newton's method with an exact line search (the root of dℓ/dα on [0, α_max] by safeguarded
 * Newton–bisection) minimizes ℓ; it stops when the scaled momentum residual
 *   ‖D·∇ℓ‖ <= ε_a + ε_r·max(‖D·M·(v − v*)‖, ‖D·Jᵀ·γ‖),  D = diag(M)^(−1/2)   (SAP §VI-B)
 * with ε_r the solver's tolerance. Frictionless rows (μ = 0: joint limits) have the normal law
 * alone. Nothing is allocated. */
#include <string.h>

#include "algorithms/cholesky_internal.h"
#include "contact/contact_internal.h"

#define SAP_SIGMA 1e-3        /* friction regularization R_t = σ·w_i (SAP's default) */
#define SAP_ABS_TOL 1e-14     /* ε_a of the stopping test (sqrt(kg)·m/s) */
#define SAP_ALPHA_MAX 1.5     /* the line search's bracket [0, α_max] (SAP §VI-C) */
#define SAP_LS_ITERATIONS 100
#define SAP_LS_TOLERANCE 1e-10  /* |dℓ/dα| relative to dℓ/dα(0) at the accepted step */

/* γ_i and G_i = −∂γ_i/∂v_c,i (3×3, row-major) of contact i at its velocity vc (n, t1, t2):
 *   γ_n = max(0, (b_n − v_n)/R_n),  G_nn = 1/R_n where γ_n > 0;
 *   with g = μ·n0 (the lagged friction bound) and s = ‖v_t‖:
 *   s <= R_t·g (stiction):  γ_t = −v_t/R_t,  G_tt = I/R_t;
 *   otherwise (sliding):    γ_t = −g·v_t/s,  G_tt = (g/s)·(I − t̂·t̂ᵀ), t̂ = v_t/s. */
static void impulse(const mbt__sap_problem* p, int i, const mbt_real* vc, mbt_real* g, mbt_real* G) {
  const mbt_real Rn = p->R_n[i], Rt = p->R_t[i], bound = p->mu[i] * p->n0[i];
  for (int k = 0; k < 9; ++k) G[k] = 0;
  const mbt_real yn = (p->b_n[i] - vc[0]) / Rn;
  g[0] = yn > 0 ? yn : 0;
  g[1] = g[2] = 0;
  if (yn > 0) G[0] = 1 / Rn;
  if (!(bound > 0 && Rt > 0)) return;
  const mbt_real s = mbt_sqrt(vc[1] * vc[1] + vc[2] * vc[2]);
  if (s <= Rt * bound) {
    g[1] = -vc[1] / Rt, g[2] = -vc[2] / Rt;
    G[4] = G[8] = 1 / Rt;
    return;
  }
  const mbt_real t[2] = {vc[1] / s, vc[2] / s}, c = bound / s;
  g[1] = -bound * t[0], g[2] = -bound * t[1];
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) G[3 * (1 + a) + 1 + b] = c * ((a == b) - t[a] * t[b]);
}

/* out = J_i·x for contact i (3 rows, over its nonzero dofs). */
static void contact_rows_times(const mbt__sap_problem* p, int i, const mbt_real* x, mbt_real* out) {
  const int nv = p->nv, *nz = p->nz + (size_t)i * (size_t)nv;
  const mbt_real* J = p->J + (size_t)(3 * i) * (size_t)nv;
  for (int r = 0; r < 3; ++r) {
    mbt_real s = 0;
    for (int t = 0; t < p->nnz[i]; ++t) s += J[r * nv + nz[t]] * x[nz[t]];
    out[r] = s;
  }
}

/* y = A·x, A dense nv×nv. */
static void matvec(const mbt_real* A, int n, const mbt_real* x, mbt_real* y) {
  for (int i = 0; i < n; ++i) {
    mbt_real s = 0;
    for (int k = 0; k < n; ++k) s += A[(size_t)i * (size_t)n + (size_t)k] * x[k];
    y[i] = s;
  }
}

/* γ, G and v_c at v; the gradient ∇ℓ = M·(v − v*) − Jᵀ·γ in w->grad; whether it passes the
 * stopping test, and its relative residual ‖D·∇ℓ‖ / (max(‖D·M·(v − v*)‖, ‖D·Jᵀ·γ‖) + ε_a/ε_r). */
static mbt_real gradient(const mbt__sap_problem* p, mbt__sap_workspace* w, const mbt_real* v, bool* converged,
                         mbt_real tol) {
  const int nv = p->nv, nc = p->num_contacts;
  for (int k = 0; k < nv; ++k) w->dv[k] = v[k] - p->v_star[k];
  matvec(p->M, nv, w->dv, w->Mdv); /* M·(v − v*) */
  memset(w->jtg, 0, sizeof(mbt_real) * (size_t)nv);
  for (int i = 0; i < nc; ++i) {
    contact_rows_times(p, i, v, w->vc + 3 * i);
    impulse(p, i, w->vc + 3 * i, w->gamma + 3 * i, w->G + 9 * i);
    const int* nz = p->nz + (size_t)i * (size_t)nv;
    const mbt_real* J = p->J + (size_t)(3 * i) * (size_t)nv;
    for (int r = 0; r < 3; ++r)
      if (w->gamma[3 * i + r] != 0)
        for (int t = 0; t < p->nnz[i]; ++t) w->jtg[nz[t]] += J[r * nv + nz[t]] * w->gamma[3 * i + r];
  }
  mbt_real r2 = 0, p2 = 0, j2 = 0;
  for (int k = 0; k < nv; ++k) {
    const mbt_real d2 = 1 / p->M[(size_t)k * (size_t)(nv + 1)];
    w->grad[k] = w->Mdv[k] - w->jtg[k];
    r2 += d2 * w->grad[k] * w->grad[k];
    p2 += d2 * w->Mdv[k] * w->Mdv[k];
    j2 += d2 * w->jtg[k] * w->jtg[k];
  }
  /* res <= ε_a + ε_r·scale  ⇔  res/(scale + ε_a/ε_r) <= ε_r: the residual reported. */
  const mbt_real scale = mbt_sqrt(mbt_max(p2, j2)), res = mbt_sqrt(r2);
  *converged = res <= SAP_ABS_TOL + tol * scale;
  return res / (scale + SAP_ABS_TOL / tol);
}

/* H = M + Σ_i J_iᵀ·G_i·J_i (lower triangle, over each contact's nonzero dofs). */
static void hessian(const mbt__sap_problem* p, mbt__sap_workspace* w) {
  const int nv = p->nv;
  memcpy(w->H, p->M, sizeof(mbt_real) * (size_t)nv * (size_t)nv);
  for (int i = 0; i < p->num_contacts; ++i) {
    const mbt_real* G = w->G + 9 * i;
    if (G[0] == 0 && G[4] == 0 && G[8] == 0) continue;
    const int *nz = p->nz + (size_t)i * (size_t)nv, m = p->nnz[i];
    const mbt_real* J = p->J + (size_t)(3 * i) * (size_t)nv;
    mbt_real* GJ = w->GJ; /* 3 × m: G_i·J_i on the nonzero dofs */
    for (int r = 0; r < 3; ++r)
      for (int t = 0; t < m; ++t)
        GJ[r * m + t] = G[3 * r] * J[nz[t]] + G[3 * r + 1] * J[nv + nz[t]] + G[3 * r + 2] * J[2 * nv + nz[t]];
    for (int a = 0; a < m; ++a)
      for (int b = 0; b <= a; ++b) {
        const int ka = nz[a], kb = nz[b];
        const mbt_real s = J[ka] * GJ[b] + J[nv + ka] * GJ[m + b] + J[2 * nv + ka] * GJ[2 * m + b];
        w->H[(size_t)mbt_max(ka, kb) * (size_t)nv + (size_t)mbt_min(ka, kb)] += s;
      }
  }
}

/* dℓ/dα and d²ℓ/dα² at v + α·dv: dvᵀ·M·(v − v*) + α·dvᵀ·M·dv − dv_cᵀ·γ(v_c + α·dv_c) and
 * dvᵀ·M·dv + dv_cᵀ·G·dv_c. */
static void line_derivatives(const mbt__sap_problem* p, mbt__sap_workspace* w, mbt_real alpha, mbt_real d0,
                             mbt_real a, mbt_real* d1, mbt_real* d2) {
  mbt_real s1 = d0 + alpha * a, s2 = a;
  for (int i = 0; i < p->num_contacts; ++i) {
    const mbt_real* u = w->dvc + 3 * i;
    mbt_real vc[3], g[3], G[9];
    for (int r = 0; r < 3; ++r) vc[r] = w->vc[3 * i + r] + alpha * u[r];
    impulse(p, i, vc, g, G);
    for (int r = 0; r < 3; ++r) {
      s1 -= u[r] * g[r];
      s2 += u[r] * (G[3 * r] * u[0] + G[3 * r + 1] * u[1] + G[3 * r + 2] * u[2]);
    }
  }
  *d1 = s1;
  *d2 = s2;
}

/* The step length minimizing ℓ(v + α·dv) on [0, α_max]: the root of the nondecreasing dℓ/dα,
 * tried first at α = 1 (the Newton step: the root when no contact changes regime), else by
 * Newton's method kept inside a shrinking bracket, bisecting when a Newton step leaves it
 * [Press et al., Numerical Recipes, 3rd ed., §9.4, rtsafe]. Accepted within
 * |dℓ/dα| <= 10⁻¹⁰·|dℓ/dα(0)|, which leaves 10⁻¹⁰ of the gradient in the quadratic regime.
 * dℓ/dα(0) = ∇ℓ·dv (w->grad). */
static mbt_real line_search(const mbt__sap_problem* p, mbt__sap_workspace* w, const mbt_real* v) {
  const int nv = p->nv;
  mbt_real d0 = 0, a = 0, f0 = 0;
  matvec(p->M, nv, w->dv, w->Mdv);
  for (int k = 0; k < nv; ++k) {
    d0 += w->Mdv[k] * (v[k] - p->v_star[k]);
    a += w->Mdv[k] * w->dv[k];
    f0 += w->grad[k] * w->dv[k];
  }
  if (!(f0 < 0)) return 0; /* not a descent direction (round-off at the minimum) */
  for (int i = 0; i < p->num_contacts; ++i) contact_rows_times(p, i, w->dv, w->dvc + 3 * i);
  const mbt_real tol = SAP_LS_TOLERANCE * -f0;
  mbt_real f, df, lo = 0, hi = SAP_ALPHA_MAX, alpha = 1;
  line_derivatives(p, w, 1, d0, a, &f, &df);
  if (mbt_abs(f) <= tol) return 1;
  if (f < 0) {
    mbt_real fm, dfm;
    line_derivatives(p, w, SAP_ALPHA_MAX, d0, a, &fm, &dfm);
    if (fm <= 0) return SAP_ALPHA_MAX;
  }
  for (int it = 0; it < SAP_LS_ITERATIONS; ++it) {
    if (f < 0) lo = alpha;
    else hi = alpha;
    mbt_real next = df > 0 ? alpha - f / df : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    alpha = next;
    line_derivatives(p, w, alpha, d0, a, &f, &df);
    if (mbt_abs(f) <= tol || hi - lo <= 1e-14 * hi) break;
  }
  return alpha;
}

void mbt__sap_friction_compliance(const mbt_real* W, int num_contacts, const mbt_real* mu, mbt_real* R_t) {
  const int n3 = 3 * num_contacts;
  for (int i = 0; i < num_contacts; ++i) {
    const mbt_real* Wd = W + (size_t)(3 * i) * (size_t)(n3 + 1);
    const mbt_real wi = (Wd[0] + Wd[n3 + 1] + Wd[2 * (n3 + 1)]) / 3;
    R_t[i] = mu[i] > 0 && wi > 0 ? SAP_SIGMA * wi : 0;
  }
}

mbt__contact_solver_stats mbt__solve_contact_sap(const mbt__sap_problem* p, const mbt__contact_solver_options* opt,
                                                 mbt__sap_workspace* w, mbt_real* v) {
  const int nv = p->nv;
  mbt__contact_solver_stats st = {0, 0, false};
  for (int it = 0;; ++it) {
    st.residual = gradient(p, w, v, &st.converged, opt->tolerance);
    if (st.converged || it == opt->max_iterations) break;
    hessian(p, w);
    if (mbt__cholesky_factor_ex(w->H, nv, nv, NULL, NULL)) break; /* H >= M: only a singular M fails */
    for (int k = 0; k < nv; ++k) w->dv[k] = -w->grad[k];
    mbt__cholesky_solve_ex(w->H, nv, nv, w->dv);
    const mbt_real alpha = line_search(p, w, v);
    st.iterations = it + 1;
    if (alpha == 0) break;
    for (int k = 0; k < nv; ++k) v[k] += alpha * w->dv[k];
  }
  return st;
}
