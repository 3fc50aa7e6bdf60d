/* fuzz_common.c: every Calc function once, and the identities between them (fuzz_common.h). */
#include "fuzz_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double max_abs(const mbt_real* a, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
  return m;
}

static double max_abs_diff(const mbt_real* a, const mbt_real* b, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

/* A failed call leaves a message on the context. */
static void status_ok_or_explained(const mbt_context* ctx, int s) {
  if (s != MBT_OK) FUZZ_CHECK(s < 0 && mbt_context_last_error(ctx)[0] != '\0');
}

static void call_kinematics(const mbt_tree* tree, mbt_context* ctx, mbt_real* J) {
  mbt_real U = 0, K = 0, P = 0;
  mbt_vec3 p, v;
  status_ok_or_explained(ctx, mbt_calc_forward_kinematics(tree, ctx));
  status_ok_or_explained(ctx, mbt_calc_position_kinematics_cache(tree, ctx));
  status_ok_or_explained(ctx, mbt_calc_velocity_kinematics_cache(tree, ctx));
  status_ok_or_explained(ctx, mbt_calc_potential_energy(tree, ctx, &U));
  status_ok_or_explained(ctx, mbt_calc_kinetic_energy(tree, ctx, &K));
  status_ok_or_explained(ctx, mbt_calc_conservative_power(tree, ctx, &P));
  status_ok_or_explained(ctx, mbt_calc_center_of_mass_position(tree, ctx, &p));
  status_ok_or_explained(ctx, mbt_calc_center_of_mass_velocity(tree, ctx, &v));
  const int last_frame = mbt_tree_num_frames(tree) - 1;
  status_ok_or_explained(ctx, mbt_calc_jacobian_spatial_velocity(tree, ctx, last_frame, mbt_vec3_make(0.1, 0, 0), J));
}

static void check_dynamics(const mbt_tree* tree, mbt_context* ctx, const mbt_real* tau, mbt_real* w, bool check) {
  const int nv = mbt_tree_num_velocities(tree);
  mbt_real *vdot = w, *tau_id = w + nv, *bias = w + 2 * nv, *vdot_m = w + 3 * nv, *tau_g = w + 4 * nv;
  mbt_real *M = w + 5 * nv, *M_id = M + (size_t)nv * (size_t)nv;
  status_ok_or_explained(ctx, mbt_calc_bias_term(tree, ctx, bias));
  status_ok_or_explained(ctx, mbt_calc_gravity_generalized_forces(tree, ctx, tau_g));
  const int s_m = mbt_calc_mass_matrix(tree, ctx, M);
  const int s_mid = mbt_calc_mass_matrix_via_inverse_dynamics(tree, ctx, M_id);
  status_ok_or_explained(ctx, s_m);
  status_ok_or_explained(ctx, s_mid);
  const double scale_M = max_abs(M, nv * nv);
  if (check && s_m == MBT_OK && s_mid == MBT_OK) FUZZ_CHECK(max_abs_diff(M, M_id, nv * nv) <= 1e-9 * (1 + scale_M));
  const int s_fd = mbt_calc_forward_dynamics(tree, ctx, tau, NULL, vdot);
  const int s_fdm = mbt_calc_forward_dynamics_via_mass_matrix(tree, ctx, tau, NULL, vdot_m);
  status_ok_or_explained(ctx, s_fd);
  status_ok_or_explained(ctx, s_fdm);
  if (s_fd != MBT_OK) return;
  status_ok_or_explained(ctx, mbt_calc_inverse_dynamics_with_gravity(tree, ctx, vdot, tau_id));
  if (!check) return;
  /* ID(FD(τ)) = τ: M·v̇ + C·v − τ_g = τ, to rounding of the size of each term. */
  const double scale = scale_M * max_abs(vdot, nv) + max_abs(bias, nv) + max_abs(tau_g, nv) + (tau ? max_abs(tau, nv) : 0);
  for (int k = 0; k < nv; ++k) FUZZ_CHECK(fabs(tau_id[k] - (tau ? tau[k] : 0)) <= 1e-8 * (1 + scale));
  if (s_fdm == MBT_OK) FUZZ_CHECK(max_abs_diff(vdot, vdot_m, nv) <= 1e-6 * (1 + max_abs(vdot, nv)));
}

void fuzz_run_algorithms(const mbt_tree* tree, const mbt_real* x, const mbt_real* tau, bool check) {
  mbt_context* ctx = mbt_context_create(tree);
  if (!ctx) return;
  const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  if (x) status_ok_or_explained(ctx, mbt_context_set_x(ctx, x, nq + nv));
  /* Only models small enough for a dense mass matrix reach the checks (fuzz inputs are). */
  const size_t n = (size_t)(nv > 0 ? nv : 1);
  mbt_real* w = nv <= 512 ? malloc(sizeof(mbt_real) * (5 * n + 2 * n * n)) : NULL;
  mbt_real* J = nv <= 512 ? malloc(sizeof(mbt_real) * 6 * n) : NULL;
  if (w && J) {
    call_kinematics(tree, ctx, J);
    check_dynamics(tree, ctx, tau, w, check);
  }
  free(w);
  free(J);
  mbt_context_destroy(ctx);
}
