/* Cross-check of forward dynamics against an independent library (Pinocchio 3.7's aba,
 * converted to mbt's conventions; tests/reference/README.md, "How a test should compare",
 * item 4). For every state of every tests/reference/<label>.json, with q and v set by joint
 * name, joint damping zeroed (the reference has none) and tau_applied = the file's tau:
 *   residual: ‖M_ref·qdd − (tau + tau_g_ref − bias_ref)‖∞
 *             <= 1e-9·max(‖|M_ref|·|qdd|‖∞ + ‖tau‖∞ + ‖tau_g_ref‖∞ + ‖bias_ref‖∞, 1e-3),
 *   direct:   ‖qdd − qdd_ref‖∞ <= rtol·max(‖qdd_ref‖∞, 1e-3), rtol = max(1e-9, 1e-15·cond(M)),
 * for the articulated-body algorithm and the mass-matrix (Cholesky) path. Where the file's
 * qdd is null (M singular), the library must report MBT_ERR_SINGULAR. The worst errors
 * (divided by their tolerance's scale) are printed to stdout. */
#include "support/reference.h"
#include "support/test_util.h"

#define TOL 1e-9
#define FLOOR 1e-3

typedef int (*fd_fn)(const mbt_tree*, mbt_context*, const mbt_real*, const mbt_spatial_force*, mbt_real*);

static const struct {
  const char* name;
  fd_fn fn;
} kMethods[2] = {{"articulated body", mbt_calc_forward_dynamics},
                 {"via mass matrix", mbt_calc_forward_dynamics_via_mass_matrix}};

static void check_model(void** state) {
  const char* label = *state;
  mbt_ref_setup m;
  mbt_context* ctx = mbt_ref_context_create(label, &m);
  const int nv = m.nv;
  mbt_tree* tree = m.urdf.tree;
  const size_t vn = (size_t)(nv > 0 ? nv : 1);
  mbt_real* tau = calloc(vn, sizeof(mbt_real));
  mbt_real* vdot = calloc(vn, sizeof(mbt_real));
  double* qdd = calloc(vn, sizeof(double));
  assert_true(tau && vdot && qdd);

  int failures = 0, singular = 0;
  double worst_residual[2] = {0, 0}, worst_direct[2] = {0, 0};
  int worst_residual_state[2] = {-1, -1}, worst_direct_state[2] = {-1, -1};
  for (int s = 0; s < m.ref.num_states; ++s) {
    const mbt_ref_state* st = &m.ref.states[s];
    mbt_ref_set_state(&m, st, ctx);
    mbt_ref_v_to_mbt(&m, st->tau, tau);
    for (int k = 0; k < 2; ++k) {
      for (int i = 0; i < nv; ++i) vdot[i] = NAN;
      const int status = kMethods[k].fn(tree, ctx, tau, NULL, vdot);
      if (!st->qdd) {
        /* M is singular: forward dynamics is undefined and must say so. */
        ++singular;
        if (status != MBT_ERR_SINGULAR) {
          printf("  FAIL %s: state %d: %s returned %d, expected MBT_ERR_SINGULAR\n", label, s, kMethods[k].name,
                 status);
          ++failures;
        }
        continue;
      }
      if (status != MBT_OK) {
        printf("  FAIL %s: state %d: %s returned %d: %s\n", label, s, kMethods[k].name, status,
               mbt_context_last_error(ctx));
        ++failures;
        continue;
      }
      mbt_ref_v_from_mbt(&m, vdot, qdd);
      /* Residual against the reference terms (insensitive to conditioning). */
      double r = 0, Mq = 0, nt = 0, ng = 0, nb = 0;
      for (int i = 0; i < nv; ++i) {
        double Mi = 0, aMi = 0;
        for (int j = 0; j < nv; ++j) {
          Mi += st->mass_matrix[i * nv + j] * qdd[j];
          aMi += fabs(st->mass_matrix[i * nv + j]) * fabs(qdd[j]);
        }
        const double ri = fabs(Mi - (st->tau[i] + st->gravity_generalized_forces[i] - st->bias[i]));
        r = isnan(ri) || ri > r ? ri : r;
        Mq = fmax(Mq, aMi);
        nt = fmax(nt, fabs(st->tau[i]));
        ng = fmax(ng, fabs(st->gravity_generalized_forces[i]));
        nb = fmax(nb, fabs(st->bias[i]));
      }
      const double residual = r / fmax(Mq + nt + ng + nb, FLOOR);
      /* Direct comparison, with the tolerance widened by the condition number. */
      const double direct = mbt_ref_scaled_error(qdd, st->qdd, nv);
      const double rtol = fmax(TOL, 1e-15 * (st->has_condition ? st->mass_matrix_condition : INFINITY));
      if (!(residual <= TOL) || !(direct <= rtol)) {
        printf("  FAIL %s: state %d: %s: residual %.3e (tol %.0e), qdd error %.3e (tol %.1e)\n", label, s,
               kMethods[k].name, residual, TOL, direct, rtol);
        ++failures;
      }
      if (isnan(residual) || residual > worst_residual[k] || worst_residual_state[k] < 0) {
        worst_residual[k] = isnan(residual) ? INFINITY : residual;
        worst_residual_state[k] = s;
      }
      if (isnan(direct) || direct > worst_direct[k] || worst_direct_state[k] < 0) {
        worst_direct[k] = isnan(direct) ? INFINITY : direct;
        worst_direct_state[k] = s;
      }
    }
  }
  printf("%s: %d states (%d singular); forward dynamics, worst scaled error:\n", label, m.ref.num_states,
         singular / 2);
  for (int k = 0; k < 2; ++k)
    printf("  %-17s residual %.3e (state %d), qdd %.3e (state %d)\n", kMethods[k].name, worst_residual[k],
           worst_residual_state[k], worst_direct[k], worst_direct_state[k]);
  fflush(stdout);

  free(tau);
  free(vdot);
  free(qdd);
  mbt_context_destroy(ctx);
  mbt_ref_setup_free(&m);
  assert_int_equal(failures, 0);
}

int main(void) { return mbt_ref_run_per_label("reference_fd", check_model); }
