/* Cross-check against an independent library (Pinocchio 3.7, converted to mbt's
 * conventions; tests/reference/README.md): for every tests/reference/<label>.json, load
 * models/<label>.urdf (with a floating root_joint if "root" is "floating"), set q and v by
 * joint name, and compare per state
 *   tau_id = M·vdot + C·v − tau_g   (inverse dynamics with tau_applied = tau_g, and again
 *                                    with the force elements' forces, damping zeroed),
 *   M (CRBA and via inverse dynamics), bias C·v, tau_g, potential and kinetic energy, and
 *   the pose X_WB of every link,
 * with |x − x_ref|∞ <= 1e-9·max(‖x_ref‖∞, 1e-3) per vector and state (energies alike) and
 * |x − x_ref| <= 1e-9 for the pose entries (README, "How a test should compare"). The
 * files' joint order is depth-first with children in file order; vectors are mapped by
 * joint name anyway. No conversion is needed: the files are already in mbt's (Drake's)
 * conventions, including the floating base q = [qw qx qy qz x y z], v = [w_WB_W; v_WBo_W].
 * The worst error per model and quantity is printed to stdout. */
#include "support/reference.h"
#include "support/test_util.h"

#define TOL 1e-9
#define FLOOR 1e-3

enum {
  Q_TAU_ID,
  Q_TAU_ID_FORCES,
  Q_MASS_MATRIX,
  Q_MASS_MATRIX_ID,
  Q_BIAS,
  Q_TAU_G,
  Q_POTENTIAL,
  Q_KINETIC,
  Q_P_WB,
  Q_R_WB,
  NUM_QUANTITIES
};
static const char* const kQuantity[NUM_QUANTITIES] = {
    "tau_id (tau_applied = tau_g)", "tau_id (force elements)", "mass_matrix (CRBA)", "mass_matrix (via ID)",
    "bias", "gravity_generalized_forces", "potential_energy", "kinetic_energy", "p_WB (abs)", "R_WB (abs)"};

typedef struct {
  double worst[NUM_QUANTITIES];
  int worst_state[NUM_QUANTITIES];
  int failures;
} report;

static void record(report* r, int quantity, int state, double err, const char* label) {
  if (isnan(err)) err = INFINITY;
  if (err > r->worst[quantity] || r->worst_state[quantity] < 0) {
    r->worst[quantity] = err;
    r->worst_state[quantity] = state;
  }
  if (!(err <= TOL)) {
    if (r->failures < 20)
      printf("  FAIL %s: state %d: %s error %.3e > %.0e\n", label, state, kQuantity[quantity], err, TOL);
    ++r->failures;
  }
}

static double scaled_scalar_error(double x, double x_ref) { return fabs(x - x_ref) / fmax(fabs(x_ref), FLOOR); }

static void check_model(void** state) {
  const char* label = *state;
  mbt_ref_setup m;
  /* Joint damping zeroed (the URDFs of panda and the double pendulums have some) for the
   * force-element variant. */
  mbt_context* ctx = mbt_ref_context_create(label, &m);
  const int nq = m.nq, nv = m.nv;
  mbt_tree* tree = m.urdf.tree;
  mbt_multibody_forces* forces = mbt_multibody_forces_create(tree);
  assert_non_null(forces);
  const size_t vn = (size_t)(nv > 0 ? nv : 1), mn = vn * vn;
  mbt_real* vdot = calloc(vn, sizeof(mbt_real));
  mbt_real* tau_g = calloc(vn, sizeof(mbt_real));
  mbt_real* tau = calloc(vn, sizeof(mbt_real));
  mbt_real* M = calloc(mn, sizeof(mbt_real));
  double* x = calloc(mn, sizeof(double));
  assert_true(vdot && tau_g && tau && M && x);

  report r;
  memset(&r, 0, sizeof r);
  for (int k = 0; k < NUM_QUANTITIES; ++k) r.worst_state[k] = -1;

  for (int s = 0; s < m.ref.num_states; ++s) {
    const mbt_ref_state* st = &m.ref.states[s];
    mbt_ref_set_state(&m, st, ctx);
    mbt_ref_v_to_mbt(&m, st->vdot, vdot);

    /* tau_g, then tau_id = M·vdot + C·v − tau_g (ID with tau_applied = tau_g). */
    assert_int_equal(mbt_calc_gravity_generalized_forces(tree, ctx, tau_g), MBT_OK);
    mbt_ref_v_from_mbt(&m, tau_g, x);
    record(&r, Q_TAU_G, s, mbt_ref_scaled_error(x, st->gravity_generalized_forces, nv), label);
    assert_int_equal(mbt_calc_inverse_dynamics(tree, ctx, vdot, NULL, tau_g, NULL, NULL, tau), MBT_OK);
    mbt_ref_v_from_mbt(&m, tau, x);
    record(&r, Q_TAU_ID, s, mbt_ref_scaled_error(x, st->tau_id, nv), label);

    /* The same with the force elements' spatial and generalized forces as applied forces
     * (gravity only: damping is zero). */
    assert_int_equal(mbt_calc_force_elements_contribution(tree, ctx, forces), MBT_OK);
    assert_int_equal(mbt_calc_inverse_dynamics(tree, ctx, vdot, forces->F_BBo_W, forces->tau, NULL, NULL, tau),
                     MBT_OK);
    mbt_ref_v_from_mbt(&m, tau, x);
    record(&r, Q_TAU_ID_FORCES, s, mbt_ref_scaled_error(x, st->tau_id, nv), label);

    assert_int_equal(mbt_calc_bias_term(tree, ctx, tau), MBT_OK);
    mbt_ref_v_from_mbt(&m, tau, x);
    record(&r, Q_BIAS, s, mbt_ref_scaled_error(x, st->bias, nv), label);

    assert_int_equal(mbt_calc_mass_matrix(tree, ctx, M), MBT_OK);
    mbt_ref_matrix_from_mbt(&m, M, x);
    record(&r, Q_MASS_MATRIX, s, mbt_ref_scaled_error(x, st->mass_matrix, nv * nv), label);
    assert_int_equal(mbt_calc_mass_matrix_via_inverse_dynamics(tree, ctx, M), MBT_OK);
    mbt_ref_matrix_from_mbt(&m, M, x);
    record(&r, Q_MASS_MATRIX_ID, s, mbt_ref_scaled_error(x, st->mass_matrix, nv * nv), label);

    mbt_real U = NAN, K = NAN;
    assert_int_equal(mbt_calc_potential_energy(tree, ctx, &U), MBT_OK);
    assert_int_equal(mbt_calc_kinetic_energy(tree, ctx, &K), MBT_OK);
    record(&r, Q_POTENTIAL, s, scaled_scalar_error(U, st->potential_energy), label);
    record(&r, Q_KINETIC, s, scaled_scalar_error(K, st->kinetic_energy), label);

    double ep = 0, eR = 0;
    for (int l = 0; l < m.ref.num_links; ++l) {
      mbt_transform X_WB;
      assert_int_equal(mbt_context_body_pose_in_world(tree, ctx, m.link_body[l], &X_WB), MBT_OK);
      const mbt_ref_pose* P = &st->link_poses[l];
      for (int i = 0; i < 3; ++i) {
        const double dp = fabs(X_WB.p.v[i] - P->p_WB[i]);
        ep = isnan(dp) || dp > ep ? dp : ep;
        for (int j = 0; j < 3; ++j) {
          const double dR = fabs(X_WB.R.m[i][j] - P->R_WB[i][j]);
          eR = isnan(dR) || dR > eR ? dR : eR;
        }
      }
    }
    record(&r, Q_P_WB, s, ep, label);
    record(&r, Q_R_WB, s, eR, label);
  }

  /* mbt's own q order equals the files' (depth-first, children in file order). */
  const bool same_order = m.same_order;

  printf("%s: %d states, nq %d, nv %d, %s joint order; worst error (scaled; tolerance %.0e):\n", label,
         m.ref.num_states, nq, nv, same_order ? "same" : "DIFFERENT", TOL);
  for (int k = 0; k < NUM_QUANTITIES; ++k)
    printf("  %-30s %.3e  (state %d)\n", kQuantity[k], r.worst[k], r.worst_state[k]);
  fflush(stdout);

  free(vdot);
  free(tau_g);
  free(tau);
  free(M);
  free(x);
  mbt_multibody_forces_destroy(forces);
  mbt_context_destroy(ctx);
  mbt_ref_setup_free(&m);
  assert_int_equal(r.failures, 0);
  assert_true(same_order);
}

int main(void) { return mbt_ref_run_per_label("reference", check_model); }
