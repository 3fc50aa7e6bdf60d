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
 * otherwise slide with ‖γ_t‖ = μ_d·γ_n opposing the slip.
 * The problem is solved by projected, blocked nonsmooth Gauss–Seidel [Moreau 1988; Jean, "The
 * non-smooth contact dynamics method", CMAME 177, 1999; Acary & Brogliato, Numerical Methods
 * for Nonsmooth Dynamical Systems, 2008, §13.2]: one contact at a time, the normal impulse by
 * the projected Newton step on its row, then the tangential impulse from its 2×2 block
 * projected on the friction disc; v_c is kept current after every update (O(nc) per update).
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

/* The tangential impulse of contact i: the impulse that stops the slip, γ_t − W_tt⁻¹·v_t, if
 * it lies in the static cone; otherwise its direction scaled to μ_d·γ_n. */
static void tangent_update(const mbt__contact_problem* p, int i, const mbt_real* gamma, const mbt_real* vc,
                           mbt_real* gt) {
  const int n3 = 3 * p->num_contacts, r = 3 * i;
  const mbt_real* W = p->W;
  const mbt_real a = W[(size_t)(r + 1) * n3 + r + 1], b = W[(size_t)(r + 1) * n3 + r + 2];
  const mbt_real d = W[(size_t)(r + 2) * n3 + r + 2];
  const mbt_real det = a * d - b * b, gn = gamma[r];
  gt[0] = gt[1] = 0;
  if (!(gn > 0) || !(det > 1e-14 * (a * d + 1e-300))) return;
  const mbt_real u1 = vc[r + 1], u2 = vc[r + 2];
  gt[0] = gamma[r + 1] - (d * u1 - b * u2) / det;
  gt[1] = gamma[r + 2] - (a * u2 - b * u1) / det;
  const mbt_real norm = mbt_sqrt(gt[0] * gt[0] + gt[1] * gt[1]);
  if (norm <= p->mu_s[i] * gn) return;
  const mbt_real s = p->mu_d[i] * gn / norm;
  gt[0] *= s;
  gt[1] *= s;
}

mbt__contact_solver_stats mbt__solve_contact_problem(const mbt__contact_problem* p,
                                                     const mbt__contact_solver_options* opt, mbt_real* gamma,
                                                     mbt_real* vc) {
  const int nc = p->num_contacts, n3 = 3 * nc;
  mbt__contact_solver_stats st = {0, 0, true};
  /* v_c = v_c* + W·γ for the warm start. */
  for (int k = 0; k < n3; ++k) vc[k] = p->vc_star[k];
  for (int k = 0; k < n3; ++k) add_column(n3, p->W, k, gamma[k], vc);
  if (nc == 0) return st;
  st.converged = false;
  for (int it = 0; it < opt->max_iterations; ++it) {
    mbt_real change = 0, size = 0;
    for (int i = 0; i < nc; ++i) {
      const int r = 3 * i;
      const mbt_real gn = normal_update(p, i, gamma, vc), dn = gn - gamma[r];
      add_column(n3, p->W, r, dn, vc);
      gamma[r] = gn;
      mbt_real gt[2];
      tangent_update(p, i, gamma, vc, gt);
      const mbt_real d1 = gt[0] - gamma[r + 1], d2 = gt[1] - gamma[r + 2];
      add_column(n3, p->W, r + 1, d1, vc);
      add_column(n3, p->W, r + 2, d2, vc);
      gamma[r + 1] = gt[0];
      gamma[r + 2] = gt[1];
      change = mbt_max(change, mbt_max(mbt_abs(dn), mbt_max(mbt_abs(d1), mbt_abs(d2))));
      size = mbt_max(size, mbt_max(mbt_abs(gn), mbt_max(mbt_abs(gt[0]), mbt_abs(gt[1]))));
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
