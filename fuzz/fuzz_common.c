/* fuzz_common.c: every Calc function once, and the identities between them (fuzz_common.h). */
#include "fuzz_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the input's bytes ------------------------------------------------------------------- */
unsigned fuzz_byte(fuzz_bytes* b) { return b->pos < b->size ? b->data[b->pos++] : 0; }

double fuzz_real(fuzz_bytes* b, double lo, double hi) { return lo + (hi - lo) * fuzz_byte(b) / 255.0; }

static mbt_spatial_inertia next_inertia(fuzz_bytes* b) {
  const double m = fuzz_real(b, 0.5, 2), x = fuzz_real(b, 0.1, 1), y = fuzz_real(b, 0.1, 1), z = fuzz_real(b, 0.1, 1);
  const mbt_rotational_inertia I = mbt_rotational_inertia_make_moments(m * (y * y + z * z) / 12, m * (x * x + z * z) / 12,
                                                                       m * (x * x + y * y) / 12);
  const mbt_vec3 c = mbt_vec3_make(fuzz_real(b, -0.3, 0.3), fuzz_real(b, -0.3, 0.3), fuzz_real(b, -0.3, 0.3));
  return mbt_spatial_inertia_from_com(m, c, &I);
}

mbt_transform fuzz_transform(fuzz_bytes* b) {
  const mbt_vec3 rpy = mbt_vec3_make(fuzz_real(b, -3.2, 3.2), fuzz_real(b, -1.6, 1.6), fuzz_real(b, -3.2, 3.2));
  const mbt_transform X = {mbt_rotation_from_rpy(rpy),
                           mbt_vec3_make(fuzz_real(b, -1, 1), fuzz_real(b, -1, 1), fuzz_real(b, -1, 1))};
  return X;
}

/* One body with a mobilizer from an earlier body; failures are allowed (with a message). */
static void add_body(mbt_tree* tree, fuzz_bytes* b, int k) {
  char name[32], frame[32], mob[32];
  snprintf(name, sizeof name, "b%d", k);
  snprintf(frame, sizeof frame, "F%d", k);
  snprintf(mob, sizeof mob, "m%d", k);
  const mbt_spatial_inertia M = next_inertia(b);
  const int body = mbt_tree_add_rigid_body(tree, name, &M);
  FUZZ_CHECK(body >= 0);
  const int parent = (int)(fuzz_byte(b) % (unsigned)body);
  const mbt_transform X_PF = fuzz_transform(b);
  const int F = mbt_tree_add_fixed_offset_frame(tree, frame, mbt_tree_body_frame(tree, parent), &X_PF);
  FUZZ_CHECK(F >= 0);
  const mbt_mobilizer_type type = (mbt_mobilizer_type)(fuzz_byte(b) % MBT_MOBILIZER_NUM_TYPES);
  const mbt_vec3 axis = mbt_vec3_make(fuzz_real(b, -1, 1), fuzz_real(b, -1, 1), fuzz_real(b, -1, 1));
  const mbt_real pitch = fuzz_real(b, -0.5, 0.5);
  if (fuzz_byte(b) % 8 == 0) return; /* left free: finalize adds a floating mobilizer */
  const int m = mbt_tree_add_mobilizer(tree, mob, type, F, mbt_tree_body_frame(tree, body), &axis, pitch);
  if (m < 0) FUZZ_CHECK(mbt_tree_last_error(tree)[0] != '\0');
}

mbt_tree* fuzz_build_tree(fuzz_bytes* b, int max_bodies) {
  mbt_tree* tree = mbt_tree_create();
  FUZZ_CHECK(tree != NULL);
  const int n = 1 + (int)(fuzz_byte(b) % (unsigned)(max_bodies < 16 ? max_bodies : 16));
  for (int k = 1; k <= n; ++k) add_body(tree, b, k);
  if (mbt_tree_finalize(tree) != MBT_OK) {
    FUZZ_CHECK(mbt_tree_last_error(tree)[0] != '\0');
    mbt_tree_destroy(tree);
    return NULL;
  }
  return tree;
}

/* ---- the algorithms ------------------------------------------------------------------------ */

double fuzz_max_abs(const mbt_real* a, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
  return m;
}

static double max_abs_diff(const mbt_real* a, const mbt_real* b, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

void fuzz_ok_or_explained(const mbt_context* ctx, int s) {
  if (s != MBT_OK) FUZZ_CHECK(s < 0 && mbt_context_last_error(ctx)[0] != '\0');
}

static void call_kinematics(const mbt_tree* tree, mbt_context* ctx, mbt_real* J) {
  mbt_real U = 0, K = 0, P = 0;
  mbt_vec3 p, v;
  fuzz_ok_or_explained(ctx, mbt_calc_forward_kinematics(tree, ctx));
  fuzz_ok_or_explained(ctx, mbt_calc_position_kinematics_cache(tree, ctx));
  fuzz_ok_or_explained(ctx, mbt_calc_velocity_kinematics_cache(tree, ctx));
  fuzz_ok_or_explained(ctx, mbt_calc_potential_energy(tree, ctx, &U));
  fuzz_ok_or_explained(ctx, mbt_calc_kinetic_energy(tree, ctx, &K));
  fuzz_ok_or_explained(ctx, mbt_calc_conservative_power(tree, ctx, &P));
  fuzz_ok_or_explained(ctx, mbt_calc_center_of_mass_position(tree, ctx, &p));
  fuzz_ok_or_explained(ctx, mbt_calc_center_of_mass_velocity(tree, ctx, &v));
  const int last_frame = mbt_tree_num_frames(tree) - 1;
  fuzz_ok_or_explained(ctx, mbt_calc_jacobian_spatial_velocity(tree, ctx, last_frame, mbt_vec3_make(0.1, 0, 0), J));
}

static void check_dynamics(const mbt_tree* tree, mbt_context* ctx, const mbt_real* tau, mbt_real* w, bool check) {
  const int nv = mbt_tree_num_velocities(tree);
  mbt_real *vdot = w, *tau_id = w + nv, *bias = w + 2 * nv, *vdot_m = w + 3 * nv, *tau_g = w + 4 * nv;
  mbt_real *M = w + 5 * nv, *M_id = M + (size_t)nv * (size_t)nv;
  fuzz_ok_or_explained(ctx, mbt_calc_bias_term(tree, ctx, bias));
  fuzz_ok_or_explained(ctx, mbt_calc_gravity_generalized_forces(tree, ctx, tau_g));
  const int s_m = mbt_calc_mass_matrix(tree, ctx, M);
  const int s_mid = mbt_calc_mass_matrix_via_inverse_dynamics(tree, ctx, M_id);
  fuzz_ok_or_explained(ctx, s_m);
  fuzz_ok_or_explained(ctx, s_mid);
  const double scale_M = fuzz_max_abs(M, nv * nv);
  if (check && s_m == MBT_OK && s_mid == MBT_OK) FUZZ_CHECK(max_abs_diff(M, M_id, nv * nv) <= 1e-9 * (1 + scale_M));
  const int s_fd = mbt_calc_forward_dynamics(tree, ctx, tau, NULL, vdot);
  const int s_fdm = mbt_calc_forward_dynamics_via_mass_matrix(tree, ctx, tau, NULL, vdot_m);
  fuzz_ok_or_explained(ctx, s_fd);
  fuzz_ok_or_explained(ctx, s_fdm);
  if (s_fd != MBT_OK) return;
  fuzz_ok_or_explained(ctx, mbt_calc_inverse_dynamics_with_gravity(tree, ctx, vdot, tau_id));
  if (!check) return;
  /* ID(FD(τ)) = τ: M·v̇ + C·v − τ_g = τ, to rounding of the size of each term. */
  const double scale = scale_M * fuzz_max_abs(vdot, nv) + fuzz_max_abs(bias, nv) + fuzz_max_abs(tau_g, nv) + (tau ? fuzz_max_abs(tau, nv) : 0);
  for (int k = 0; k < nv; ++k) FUZZ_CHECK(fabs(tau_id[k] - (tau ? tau[k] : 0)) <= 1e-8 * (1 + scale));
  if (s_fdm == MBT_OK) FUZZ_CHECK(max_abs_diff(vdot, vdot_m, nv) <= 1e-6 * (1 + fuzz_max_abs(vdot, nv)));
}

void fuzz_run_algorithms(const mbt_tree* tree, const mbt_real* x, const mbt_real* tau, bool check) {
  mbt_context* ctx = mbt_context_create(tree);
  if (!ctx) return;
  const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  if (x) fuzz_ok_or_explained(ctx, mbt_context_set_x(ctx, x, nq + nv));
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
