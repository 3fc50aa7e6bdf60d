/* contact_solver.c: the contact impulses of one discrete step (contact_internal.h).
 *
 * Per contact i, in its frame (normal n from the other body into this one, tangents t1, t2),
 * the impulses γ_i = (γ_n, γ_t) over the step h and the velocities after it
 *   v_c⁺ = v_c* + W·γ,  W = J·M⁻¹·Jᵀ (the Delassus operator).
 * Normal: a compliant contact, spring k and dissipation time scale τ_d (linear Kelvin–Voigt
 * as in Drake's SAP [Castro, Han, Permenter, Drake Team, "An unconstrained convex
 * formulation of compliant contact", IEEE T-RO 2022, §V]), the force taken at the end of the
 * step (implicit): f_n = max(0, k·(φ − h·v_n⁺) − k·τ_d·v_n⁺), so
 *   γ_n = h·f_n = max(0, (b_n − v_n⁺)/R_n),  R_n = 1/(h·k·(h + τ_d)),  b_n = φ/(h + τ_d),
 * the complementarity 0 <= γ_n ⊥ v_n⁺ + R_n·γ_n − b_n >= 0 of a constraint with compliance
 * R_n (R_n → 0 is a rigid contact).
 * Friction: Coulomb's law without regularization: stick (v_t⁺ = 0) while ‖γ_t‖ <= μ_s·γ_n,
 * otherwise slide with ‖γ_t‖ = μ_d·γ_n opposing the slip after the step (maximum dissipation).
 * The problem is solved by projected, blocked nonsmooth Gauss–Seidel [Moreau 1988; Jean, "The
 * non-smooth contact dynamics method", CMAME 177, 1999; Acary & Brogliato, Numerical Methods
 * for Nonsmooth Dynamical Systems, 2008, §13.2]: one contact at a time, the normal impulse by
 * the projected Newton step on its row, then the tangential impulse from its 2×2 block (stick,
 * or the maximum-dissipation point of the friction circle); v_c is kept current after every
 * update (O(nc) per update).
 * Nothing is allocated. */
#include "contact/contact_internal.h"

/* v_c += W[:, col]·d (W symmetric: its row col is read, contiguous). */
static void add_column(int n3, const mbt_real* W, int col, mbt_real d, mbt_real* vc) {
  if (d == 0) return;
  const mbt_real* row = W + (size_t)col * (size_t)n3;
  for (int k = 0; k < n3; ++k) vc[k] += row[k] * d;
}

/* The normal impulse of contact i given the current v_c: the projected Newton step on its row,
 *   γ_n ← max(0, γ_n − (v_n + R_n·γ_n − b_n)/(W_nn + R_n)). */
static mbt_real normal_update(const mbt__contact_problem* p, int i, const mbt_real* gamma, const mbt_real* vc) {
  const int n3 = 3 * p->num_contacts, r = 3 * i;
  const mbt_real D = p->W[(size_t)r * (size_t)n3 + (size_t)r] + p->R_n[i];
  if (!(D > 0)) return 0;
  const mbt_real g = gamma[r] - (vc[r] + p->R_n[i] * gamma[r] - p->b_n[i]) / D;
  return g > 0 ? g : 0;
}

/* Sliding: the impulse of the disc ‖γ_t‖ <= ρ that minimizes ½·γ_tᵀ·W_tt·γ_t + γ_tᵀ·u (u the
 * slip velocity without this contact's friction), whose KKT conditions (W_tt + λ·I)·γ_t = −u,
 * λ >= 0, are Coulomb's maximum dissipation: v_t⁺ = −λ·γ_t opposes the impulse. Outside the
 * static cone the minimizer lies on the circle: with W_tt = Q·diag(e)·Qᵀ and c = Qᵀ·u,
 * γ(λ) = −Q·(c_i/(e_i + λ)), and λ solves 1/‖γ(λ)‖ = 1/ρ by Newton's method, which converges
 * monotonically from λ = 0 [Moré & Sorensen 1983; Nocedal & Wright, Numerical Optimization,
 * 2006, §4.3]. */
static void slide_on_circle(mbt_real a, mbt_real b, mbt_real d, mbt_real u1, mbt_real u2, mbt_real rho,
                            mbt_real* gt) {
  /* Eigen-decomposition of [[a, b], [b, d]]. */
  const mbt_real mean = 0.5 * (a + d), dev = mbt_sqrt(0.25 * (a - d) * (a - d) + b * b);
  const mbt_real e[2] = {mean + dev, mean - dev};
  const mbt_real ang = 0.5 * mbt_atan2(2 * b, a - d), cs = mbt_cos(ang), sn = mbt_sin(ang);
  const mbt_real c[2] = {cs * u1 + sn * u2, -sn * u1 + cs * u2};
  mbt_real lambda = 0, g[2] = {0, 0};
  for (int it = 0; it < 50; ++it) {
    mbt_real n2 = 0, dn2 = 0; /* ‖γ‖² and d‖γ‖²/dλ */
    for (int i = 0; i < 2; ++i) {
      const mbt_real den = e[i] + lambda;
      g[i] = den > 0 ? -c[i] / den : 0;
      n2 += g[i] * g[i];
      dn2 += den > 0 ? -2 * g[i] * g[i] / den : 0;
    }
    const mbt_real norm = mbt_sqrt(n2);
    if (!(norm > rho * (1 + 1e-12)) || dn2 == 0) break;
    /* φ(λ) = 1/‖γ‖ − 1/ρ, φ' = −½·‖γ‖⁻³·d‖γ‖²/dλ */
    const mbt_real phi = 1 / norm - 1 / rho, dphi = -0.5 * dn2 / (n2 * norm);
    lambda -= phi / dphi;
  }
  mbt_real gx = cs * g[0] - sn * g[1], gy = sn * g[0] + cs * g[1];
  const mbt_real norm = mbt_sqrt(gx * gx + gy * gy);
  if (norm > 0) gx *= rho / norm, gy *= rho / norm; /* on the circle to rounding */
  gt[0] = gx;
  gt[1] = gy;
}

/* The tangential impulse of contact i: the impulse that stops the slip, γ_t − W_tt⁻¹·v_t, if it
 * lies in the static cone ‖γ_t‖ <= μ_s·γ_n; otherwise sliding at ‖γ_t‖ = μ_d·γ_n. A contact
 * that has slid during this solve sticks again only inside the dynamic cone (μ_d): without
 * that hysteresis a contact between the two cones alternates between sweeps. */
static void tangent_update(const mbt__contact_problem* p, int i, const mbt_real* gamma, const mbt_real* vc,
                           bool* sliding, mbt_real* gt) {
  const int n3 = 3 * p->num_contacts, r = 3 * i;
  const mbt_real* W = p->W;
  const mbt_real a = W[(size_t)(r + 1) * n3 + r + 1], b = W[(size_t)(r + 1) * n3 + r + 2];
  const mbt_real d = W[(size_t)(r + 2) * n3 + r + 2];
  const mbt_real det = a * d - b * b, gn = gamma[r];
  gt[0] = gt[1] = 0;
  if (!(gn > 0) || !(det > 1e-14 * (a * d + 1e-300))) return;
  /* u: the slip velocity without this contact's current friction impulse. */
  const mbt_real u1 = vc[r + 1] - a * gamma[r + 1] - b * gamma[r + 2];
  const mbt_real u2 = vc[r + 2] - b * gamma[r + 1] - d * gamma[r + 2];
  gt[0] = -(d * u1 - b * u2) / det;
  gt[1] = -(a * u2 - b * u1) / det;
  if (mbt_sqrt(gt[0] * gt[0] + gt[1] * gt[1]) <= (sliding[i] ? p->mu_d[i] : p->mu_s[i]) * gn) return;
  sliding[i] = true;
  slide_on_circle(a, b, d, u1, u2, p->mu_d[i] * gn, gt);
}

mbt__contact_solver_stats mbt__solve_contact_problem(const mbt__contact_problem* p,
                                                     const mbt__contact_solver_options* opt, mbt_real* gamma,
                                                     mbt_real* vc) {
  const int nc = p->num_contacts, n3 = 3 * nc;
  mbt__contact_solver_stats st = {0, 0, true};
  /* Velocity scale: the largest contact velocity without impulses or normal bias. */
  mbt_real size = 0;
  for (int k = 0; k < n3; ++k) size = mbt_max(size, mbt_abs(p->vc_star[k]));
  for (int i = 0; i < nc; ++i) size = mbt_max(size, mbt_abs(p->b_n[i]));
  /* v_c = v_c* + W·γ for the warm start. */
  for (int k = 0; k < n3; ++k) vc[k] = p->vc_star[k];
  for (int k = 0; k < n3; ++k) add_column(n3, p->W, k, gamma[k], vc);
  if (nc == 0) return st;
  for (int i = 0; i < nc; ++i) p->sliding[i] = false;
  st.converged = false;
  for (int it = 0; it < opt->max_iterations; ++it) {
    mbt_real change = 0;
    for (int i = 0; i < nc; ++i) {
      const int r = 3 * i;
      const mbt_real gn = normal_update(p, i, gamma, vc), dn = gn - gamma[r];
      add_column(n3, p->W, r, dn, vc);
      gamma[r] = gn;
      mbt_real gt[2];
      tangent_update(p, i, gamma, vc, p->sliding, gt);
      const mbt_real d1 = gt[0] - gamma[r + 1], d2 = gt[1] - gamma[r + 2];
      add_column(n3, p->W, r + 1, d1, vc);
      add_column(n3, p->W, r + 2, d2, vc);
      gamma[r + 1] = gt[0];
      gamma[r + 2] = gt[1];
      /* The velocity each update makes on its own rows, |Δγ_r|·W_rr. */
      const mbt_real* Wd = p->W + (size_t)r * (size_t)(n3 + 1);
      change = mbt_max(change, mbt_max(mbt_abs(dn) * Wd[0], mbt_max(mbt_abs(d1) * Wd[n3 + 1], mbt_abs(d2) * Wd[2 * n3 + 2])));
    }
    st.iterations = it + 1;
    st.residual = change / (size + 1e-300);
    if (change <= opt->tolerance * size || size == 0) {
      st.converged = true;
      break;
    }
  }
  return st;
}
