/* fuzz_derivatives.c: libFuzzer target for the derivatives API (mbt/derivatives.h): a tree of up
 * to 8 bodies from the bytes (fuzz_build_tree), a state, v̇ and τ from the bytes, then every
 * function of the API with its identities checked:
 *   - the inverse dynamics and mass matrix of mbt_calc_inverse_dynamics_derivatives equal
 *     mbt_calc_inverse_dynamics_with_gravity and mbt_calc_mass_matrix;
 *   - one column of ∂τ/∂q and of ∂τ/∂v equals the central difference of τ along q ⊕ ±ε·e_k
 *     and v ± ε·e_k;
 *   - forward dynamics: v̇ equals mbt_calc_forward_dynamics, M⁻¹·M = I, and
 *     M·∂v̇/∂q = −∂τ/∂q at v̇ = FD (Carpentier & Mansard);
 *   - (q ⊕ dv) ⊖ q = dv; J̇·v = the bias acceleration.
 * The builder's trees have no joint damping, springs or user forces, so τ of the derivatives
 * is M·v̇ + C·v − τ_g. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

enum { kMaxBodies = 8, kMaxQ = kMaxBodies * 7, kMaxV = kMaxBodies * 6 };

/* Work arrays, nv×nv each. */
typedef struct {
  mbt_real dq[kMaxV * kMaxV], dv[kMaxV * kMaxV], M[kMaxV * kMaxV], M2[kMaxV * kMaxV], Minv[kMaxV * kMaxV];
  mbt_real fq[kMaxV * kMaxV], fv[kMaxV * kMaxV];
} work;

/* τ(q ⊕ s·ε·e_k, v + t·ε·e_k) by inverse dynamics with gravity; the context's state is restored. */
static int tau_moved(const mbt_tree* tree, mbt_context* ctx, const mbt_real* vdot, int k, double sq, double sv,
                     mbt_real* tau) {
  const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  mbt_real x0[kMaxQ + kMaxV], x[kMaxQ + kMaxV], dv[kMaxV];
  mbt_context_get_x(ctx, x0, nq + nv);
  memcpy(x, x0, sizeof(mbt_real) * (size_t)(nq + nv));
  memset(dv, 0, sizeof dv);
  dv[k] = sq;
  int s = mbt_integrate_configuration(tree, x0, dv, x);
  x[nq + k] += sv;
  if (s == MBT_OK) s = mbt_context_set_x(ctx, x, nq + nv);
  if (s == MBT_OK) s = mbt_calc_inverse_dynamics_with_gravity(tree, ctx, vdot, tau);
  mbt_context_set_x(ctx, x0, nq + nv);
  return s;
}

/* Column k of ∂τ/∂q and ∂τ/∂v against central differences (ε = 1e-6). */
static void check_id_columns(const mbt_tree* tree, mbt_context* ctx, const mbt_real* vdot, const mbt_real* tau,
                             const work* w, int k) {
  const int nv = mbt_tree_num_velocities(tree);
  const double eps = 1e-6;
  mbt_real tp[kMaxV], tm[kMaxV];
  double scale = fuzz_max_abs(tau, nv) + fuzz_max_abs(w->M, nv * nv);
  for (int i = 0; i < nv; ++i) scale = fmax(scale, fmax(fabs(w->dq[i * nv + k]), fabs(w->dv[i * nv + k])));
  if (tau_moved(tree, ctx, vdot, k, eps, 0, tp) == MBT_OK && tau_moved(tree, ctx, vdot, k, -eps, 0, tm) == MBT_OK)
    for (int i = 0; i < nv; ++i) FUZZ_CHECK(fabs((tp[i] - tm[i]) / (2 * eps) - w->dq[i * nv + k]) <= 1e-5 * (1 + scale));
  if (tau_moved(tree, ctx, vdot, k, 0, eps, tp) == MBT_OK && tau_moved(tree, ctx, vdot, k, 0, -eps, tm) == MBT_OK)
    for (int i = 0; i < nv; ++i) FUZZ_CHECK(fabs((tp[i] - tm[i]) / (2 * eps) - w->dv[i * nv + k]) <= 1e-5 * (1 + scale));
}

static void check_inverse_dynamics(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                   const mbt_real* vdot, work* w, int k) {
  const int nv = mbt_tree_num_velocities(tree);
  mbt_real tau[kMaxV], tau_id[kMaxV];
  const int s = mbt_calc_inverse_dynamics_derivatives(tree, ctx, ws, vdot, NULL, tau, w->dq, w->dv, w->M);
  fuzz_ok_or_explained(ctx, s);
  if (s != MBT_OK || mbt_calc_inverse_dynamics_with_gravity(tree, ctx, vdot, tau_id) != MBT_OK ||
      mbt_calc_mass_matrix(tree, ctx, w->M2) != MBT_OK)
    return;
  const double scale_M = fuzz_max_abs(w->M2, nv * nv);
  for (int i = 0; i < nv * nv; ++i) FUZZ_CHECK(fabs(w->M[i] - w->M2[i]) <= 1e-9 * (1 + scale_M));
  const double scale = fuzz_max_abs(tau_id, nv) + scale_M * (1 + fuzz_max_abs(vdot, nv));
  for (int i = 0; i < nv; ++i) FUZZ_CHECK(fabs(tau[i] - tau_id[i]) <= 1e-9 * (1 + scale));
  check_id_columns(tree, ctx, vdot, tau, w, k);
}

/* FD: v̇, M⁻¹·M = I, M·∂v̇/∂(q, v) = −∂τ/∂(q, v) at v̇ = FD. */
static void check_forward_dynamics(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                   const mbt_real* tau_app, work* w) {
  const int nv = mbt_tree_num_velocities(tree);
  mbt_real vdot[kMaxV], vdot_fd[kMaxV];
  const int s = mbt_calc_forward_dynamics_derivatives(tree, ctx, ws, tau_app, vdot, w->fq, w->fv, w->Minv);
  fuzz_ok_or_explained(ctx, s);
  if (s != MBT_OK || mbt_calc_forward_dynamics(tree, ctx, tau_app, NULL, vdot_fd) != MBT_OK) return;
  for (int i = 0; i < nv; ++i) FUZZ_CHECK(fabs(vdot[i] - vdot_fd[i]) <= 1e-6 * (1 + fuzz_max_abs(vdot_fd, nv)));
  if (mbt_calc_inverse_dynamics_derivatives(tree, ctx, ws, vdot, tau_app, NULL, w->dq, w->dv, w->M) != MBT_OK) return;
  const double cond = fuzz_max_abs(w->M, nv * nv) * fuzz_max_abs(w->Minv, nv * nv);
  const double dscale = fuzz_max_abs(w->dq, nv * nv) + fuzz_max_abs(w->dv, nv * nv);
  for (int i = 0; i < nv; ++i)
    for (int j = 0; j < nv; ++j) {
      double I = 0, Mfq = 0, Mfv = 0;
      for (int l = 0; l < nv; ++l) {
        I += w->Minv[i * nv + l] * w->M[l * nv + j];
        Mfq += w->M[i * nv + l] * w->fq[l * nv + j];
        Mfv += w->M[i * nv + l] * w->fv[l * nv + j];
      }
      FUZZ_CHECK(fabs(I - (i == j)) <= 1e-10 * nv * (1 + cond));
      FUZZ_CHECK(fabs(Mfq + w->dq[i * nv + j]) <= 1e-8 * nv * (1 + cond) * (1 + dscale));
      FUZZ_CHECK(fabs(Mfv + w->dv[i * nv + j]) <= 1e-8 * nv * (1 + cond) * (1 + dscale));
    }
}

/* (q ⊕ dv) ⊖ q = dv for |dv| < π; J̇·v = the bias acceleration of the last frame. */
static void check_configuration_and_bias(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                         fuzz_bytes* b) {
  const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  mbt_real dv[kMaxV], q1[kMaxQ], back[kMaxV], Jdot[6 * kMaxV];
  for (int i = 0; i < nv; ++i) dv[i] = fuzz_real(b, -0.5, 0.5);
  const mbt_real* q = mbt_context_q(ctx);
  if (mbt_integrate_configuration(tree, q, dv, q1) == MBT_OK && mbt_difference_configuration(tree, q, q1, back) == MBT_OK)
    for (int i = 0; i < nv; ++i) FUZZ_CHECK(fabs(back[i] - dv[i]) <= 1e-8 * (1 + fuzz_max_abs(q, nq)));
  const int F = mbt_tree_num_frames(tree) - 1;
  const mbt_vec3 p = mbt_vec3_make(fuzz_real(b, -1, 1), fuzz_real(b, -1, 1), fuzz_real(b, -1, 1));
  mbt_spatial_acceleration A;
  const int s1 = mbt_calc_bias_spatial_acceleration(tree, ctx, ws, F, p, &A);
  const int s2 = mbt_calc_jacobian_spatial_velocity_time_derivative(tree, ctx, ws, F, p, Jdot);
  fuzz_ok_or_explained(ctx, s1);
  fuzz_ok_or_explained(ctx, s2);
  if (s1 != MBT_OK || s2 != MBT_OK) return;
  const mbt_real* v = mbt_context_v(ctx);
  const double scale = fuzz_max_abs(A.coeffs, 6) + fuzz_max_abs(Jdot, 6 * nv) * (1 + fuzz_max_abs(v, nv));
  for (int r = 0; r < 6; ++r) {
    double Jv = 0;
    for (int j = 0; j < nv; ++j) Jv += Jdot[r * nv + j] * v[j];
    FUZZ_CHECK(fabs(Jv - A.coeffs[r]) <= 1e-9 * (1 + scale));
  }
}

/* The step derivatives and ∂τ_g/∂q: a status and a message, or finite numbers. */
static void call_the_rest(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws, const mbt_real* tau,
                          double h, work* w) {
  const int nv = mbt_tree_num_velocities(tree);
  int s = mbt_calc_gravity_generalized_forces_derivatives(tree, ctx, ws, w->M2);
  fuzz_ok_or_explained(ctx, s);
  if (s == MBT_OK)
    for (int i = 0; i < nv * nv; ++i) FUZZ_CHECK(isfinite(w->M2[i]));
  s = mbt_calc_semi_implicit_euler_step_derivatives(tree, ctx, ws, h, tau, NULL, NULL, w->dq, w->dv, w->M, w->fq,
                                                    w->fv, w->Minv);
  fuzz_ok_or_explained(ctx, s);
  if (s == MBT_OK)
    for (int i = 0; i < nv * nv; ++i) FUZZ_CHECK(isfinite(w->dq[i]) && isfinite(w->fv[i]));
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_bytes b = {data, size, 0};
  mbt_tree* tree = fuzz_build_tree(&b, kMaxBodies);
  if (!tree) return 0;
  const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  mbt_context* ctx = mbt_context_create(tree);
  mbt_derivatives_workspace* ws = mbt_derivatives_workspace_create(tree);
  work* w = malloc(sizeof *w);
  FUZZ_CHECK(ctx && ws && w && nq <= kMaxQ && nv <= kMaxV);
  mbt_real x[kMaxQ + kMaxV], vdot[kMaxV], tau[kMaxV];
  for (int i = 0; i < nq + nv; ++i) x[i] = fuzz_real(&b, -2, 2);
  for (int i = 0; i < nv; ++i) vdot[i] = fuzz_real(&b, -2, 2);
  for (int i = 0; i < nv; ++i) tau[i] = fuzz_real(&b, -5, 5);
  fuzz_ok_or_explained(ctx, mbt_context_set_x(ctx, x, nq + nv));
  if (nv > 0) {
    check_inverse_dynamics(tree, ctx, ws, vdot, w, (int)(fuzz_byte(&b) % (unsigned)nv));
    check_forward_dynamics(tree, ctx, ws, tau, w);
    check_configuration_and_bias(tree, ctx, ws, &b);
    call_the_rest(tree, ctx, ws, tau, fuzz_real(&b, 0, 0.01), w);
  }
  free(w);
  mbt_derivatives_workspace_destroy(ws);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
  return 0;
}
