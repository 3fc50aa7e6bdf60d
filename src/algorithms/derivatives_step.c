/* derivatives_step.c: q ⊕ dv, q1 ⊖ q0, and the Jacobians of one semi-implicit Euler step.
 *
 * q ⊕ dv moves each mobilizer with the constant velocity dv for unit time. Where v is q̇
 * (revolute, prismatic, screw, universal, planar) that is q + dv. Rotations whose v is the
 * angular velocity in F (SpaceXYZ, quaternion floating) turn by R_FM ← exp([dv]ₓ)·R_FM, the
 * rotation about the fixed (in F) axis dv by |dv| [Murray, Li & Sastry 1994, §2.2]; the
 * floating mobilizer's Mo moves by dv_v in F, independently (v_FMo_F is Mo's velocity in F). */
#include <string.h>
#include "algorithms/derivatives_internal.h"
#include "mobilizers/mobilizer_types.h"

#define MBT__PI 3.14159265358979323846

/* exp([φ]ₓ) = I + sin θ/θ·[φ]ₓ + (1 − cos θ)/θ²·[φ]ₓ² and the left Jacobian
 * J(φ) = I + (1 − cos θ)/θ²·[φ]ₓ + (θ − sin θ)/θ³·[φ]ₓ², exp(φ + δ) = exp(J(φ)·δ)·exp(φ) to
 * first order in δ [Chirikjian 2011, §10.6]; Taylor series below θ = 1e-4. */
static void so3_exp_and_jacobian(mbt_vec3 phi, mbt_mat3* E, mbt_mat3* J) {
  const mbt_real t2 = mbt_vec3_dot(phi, phi), t = mbt_sqrt(t2);
  mbt_real a, b, c;  /* sin θ/θ, (1 − cos θ)/θ², (θ − sin θ)/θ³ */
  if (t < 1e-4) {
    a = 1 - t2 / 6, b = 0.5 - t2 / 24, c = 1.0 / 6 - t2 / 120;
  } else {
    a = mbt_sin(t) / t, b = (1 - mbt_cos(t)) / t2, c = (t - mbt_sin(t)) / (t2 * t);
  }
  const mbt_real x = phi.v[0], y = phi.v[1], z = phi.v[2];
  const mbt_real P[3][3] = {{0, -z, y}, {z, 0, -x}, {-y, x, 0}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const mbt_real P2 = P[i][0] * P[0][j] + P[i][1] * P[1][j] + P[i][2] * P[2][j];
      const mbt_real I = i == j;
      if (E) E->m[i][j] = I + a * P[i][j] + b * P2;
      if (J) J->m[i][j] = I + b * P[i][j] + c * P2;
    }
}

/* x + 2π·k nearest to ref. */
static mbt_real nearest_angle(mbt_real x, mbt_real ref) {
  const mbt_real k = (mbt_real)(long)((ref - x) / (2 * MBT__PI) + (ref > x ? 0.5 : -0.5));
  return x + 2 * MBT__PI * k;
}

/* Roll, pitch, yaw of R on the branch nearest to q (of the two, (r, p, y) and
 * (r + π, π − p, y + π), each angle shifted by whole turns toward q). */
static void rpy_nearest(const mbt_mat3* R, const mbt_real* q, mbt_real* out) {
  const mbt_vec3 a = mbt_rotation_to_rpy(R);
  const mbt_real c[2][3] = {{a.v[0], a.v[1], a.v[2]}, {a.v[0] + MBT__PI, MBT__PI - a.v[1], a.v[2] + MBT__PI}};
  mbt_real best = -1;
  for (int s = 0; s < 2; ++s) {
    mbt_real r[3], d = 0;
    for (int i = 0; i < 3; ++i) r[i] = nearest_angle(c[s][i], q[i]), d += (r[i] - q[i]) * (r[i] - q[i]);
    if (best < 0 || d < best) best = d, memcpy(out, r, sizeof r);
  }
}

/* exp(½·φ) as a unit quaternion: (cos(θ/2), sin(θ/2)/θ·φ). */
static mbt_quat quat_exp_half(mbt_vec3 phi) {
  const mbt_real t = mbt_vec3_norm(phi);
  const mbt_real s = t < 1e-8 ? 0.5 - t * t / 48 : mbt_sin(t / 2) / t;
  return mbt_quat_make(mbt_cos(t / 2), s * phi.v[0], s * phi.v[1], s * phi.v[2]);
}

/* A finalized tree and its arrays (all non-NULL: have_arrays), or the status with a message. */
static int check_configuration_args(const mbt_tree* tree, bool have_arrays, const char* what, const char* arrays) {
  if (!tree) return MBT_ERR_INVALID_ARGUMENT;
  if (!tree->finalized) return mbt__tree_error(tree, MBT_ERR_NOT_FINALIZED, "%s: the tree is not finalized", what);
  if (!have_arrays && tree->nq > 0) return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: %s are required", what, arrays);
  return MBT_OK;
}

int mbt_integrate_configuration(const mbt_tree* tree, const mbt_real* q, const mbt_real* dv, mbt_real* q_next) {
  int st = check_configuration_args(tree, q && dv && q_next, "integrate_configuration", "q, dv and q_next");
  if (st) return st;
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    const mbt_real* qi = q + n->q_start;
    const mbt_real* d = dv + n->v_start;
    mbt_real* o = q_next + n->q_start;
    if (n->type == MBT_MOBILIZER_SPACE_XYZ) {
      mbt_mat3 E;
      so3_exp_and_jacobian(mbt_vec3_make(d[0], d[1], d[2]), &E, NULL);
      const mbt_mat3 R0 = mbt_rotation_from_rpy(mbt_vec3_make(qi[0], qi[1], qi[2]));
      const mbt_mat3 R = mbt_mat3_mul(&E, &R0);
      rpy_nearest(&R, qi, o);
    } else if (n->type == MBT_MOBILIZER_QUATERNION_FLOATING) {
      const mbt_quat e = quat_exp_half(mbt_vec3_make(d[0], d[1], d[2]));
      const mbt_quat r = mbt_quat_multiply(e, mbt_quat_make(qi[0], qi[1], qi[2], qi[3]));
      o[0] = r.w, o[1] = r.x, o[2] = r.y, o[3] = r.z;
      for (int i = 0; i < 3; ++i) o[4 + i] = qi[4 + i] + d[3 + i];
    } else {
      for (int i = 0; i < n->nq; ++i) o[i] = qi[i] + d[i];
    }
  }
  return MBT_OK;
}

/* φ with exp([φ]ₓ) = R_1·R_0ᵀ given as the unit quaternion e (w >= 0 taken): 2·atan2(|ẽ|, w)·ẽ/|ẽ|. */
static mbt_vec3 quat_log(mbt_quat e) {
  if (e.w < 0) e = mbt_quat_make(-e.w, -e.x, -e.y, -e.z);
  const mbt_vec3 u = mbt_vec3_make(e.x, e.y, e.z);
  const mbt_real s = mbt_vec3_norm(u);
  const mbt_real k = s < 1e-12 ? 2 / e.w : 2 * mbt_atan2(s, e.w) / s;
  return mbt_vec3_scale(u, k);
}

int mbt_difference_configuration(const mbt_tree* tree, const mbt_real* q0, const mbt_real* q1, mbt_real* dv) {
  int st = check_configuration_args(tree, q0 && q1 && dv, "difference_configuration", "q0, q1 and dv");
  if (st) return st;
  for (int node = 1; node < tree->num_nodes; ++node) {  /* before writing anything */
    const mbt_node* n = &tree->nodes[node];
    if (n->type != MBT_MOBILIZER_QUATERNION_FLOATING) continue;
    for (int s = 0; s < 2; ++s) {
      const mbt_real* a = (s ? q1 : q0) + n->q_start;
      mbt_quat e = mbt_quat_make(a[0], a[1], a[2], a[3]);
      if (mbt_quat_normalize(&e))
        return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "difference_configuration: mobilizer '%s': q%d has a zero quaternion",
                               tree->mobilizers[n->mobilizer].name, s);
    }
  }
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    const mbt_real *a = q0 + n->q_start, *b = q1 + n->q_start;
    mbt_real* d = dv + n->v_start;
    mbt_vec3 phi;
    if (n->type == MBT_MOBILIZER_SPACE_XYZ) {
      const mbt_mat3 Ra = mbt_rotation_from_rpy(mbt_vec3_make(a[0], a[1], a[2]));
      const mbt_mat3 Rb = mbt_rotation_from_rpy(mbt_vec3_make(b[0], b[1], b[2]));
      const mbt_mat3 R = mbt_mat3_mul_t(&Rb, &Ra);
      phi = quat_log(mbt_quat_from_rotation(&R));
    } else if (n->type == MBT_MOBILIZER_QUATERNION_FLOATING) {
      mbt_quat qa = mbt_quat_make(a[0], a[1], a[2], a[3]), qb = mbt_quat_make(b[0], b[1], b[2], b[3]);
      mbt_quat_normalize(&qa), mbt_quat_normalize(&qb);
      phi = quat_log(mbt_quat_multiply(qb, mbt_quat_conjugate(qa)));
      for (int i = 0; i < 3; ++i) d[3 + i] = b[4 + i] - a[4 + i];
    } else {
      for (int i = 0; i < n->nv; ++i) d[i] = b[i] - a[i];
      continue;
    }
    for (int i = 0; i < 3; ++i) d[i] = phi.v[i];
  }
  return MBT_OK;
}

/* Rows of the rotation blocks (SpaceXYZ, the floating mobilizer's first three velocities)
 * of X (nv×nv) multiplied by J(h·ω⁺) (left Jacobian); with add_E, E = exp(h·ω⁺) is added to
 * their diagonal blocks and the identity to the other rows' diagonal. */
static void apply_step_blocks(const mbt_tree* tree, const mbt_real* hv, mbt_real* X, bool add_E) {
  const int nv = tree->nv;
  for (int k = 0; k < nv && add_E; ++k) X[(size_t)k * nv + k] += 1;
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    if (n->type != MBT_MOBILIZER_SPACE_XYZ && n->type != MBT_MOBILIZER_QUATERNION_FLOATING) continue;
    const int r0 = n->v_start;
    mbt_mat3 E, J;
    so3_exp_and_jacobian(mbt_vec3_make(hv[r0], hv[r0 + 1], hv[r0 + 2]), &E, &J);
    for (int c = 0; c < nv; ++c) {
      mbt_real x[3];
      for (int i = 0; i < 3; ++i) x[i] = X[(size_t)(r0 + i) * nv + c] - (add_E && c == r0 + i);
      for (int i = 0; i < 3; ++i)
        X[(size_t)(r0 + i) * nv + c] = J.m[i][0] * x[0] + J.m[i][1] * x[1] + J.m[i][2] * x[2] +
                                        (add_E && c >= r0 && c < r0 + 3 ? E.m[i][c - r0] : 0);
    }
  }
}

/* v⁺ = v + h·v̇, q⁺ = q ⊕ h·v⁺. With D_q, D_v = ∂v̇/∂(q, v), M⁻¹ = ∂v̇/∂tau:
 *   ∂v⁺/∂q = h·D_q, ∂v⁺/∂v = I + h·D_v, ∂v⁺/∂tau = h·M⁻¹;
 *   ∂q⁺/∂x = A·∂q/∂x + B·h·∂v⁺/∂x, with A = exp(h·ω⁺) on the rotation blocks (a rotation
 *   about F-fixed axes carries a perturbation e of q to exp(h·ω⁺)·e at q⁺), B = J(h·ω⁺)
 *   there (exp(h·(ω⁺ + δ)) = exp(J·h·δ)·exp(h·ω⁺)); A = B = I elsewhere. */
int mbt_calc_semi_implicit_euler_step_derivatives(const mbt_tree* tree, mbt_context* ctx,
                                                  mbt_derivatives_workspace* ws, mbt_real h, const mbt_real* tau_app,
                                                  mbt_real* q_next, mbt_real* v_next, mbt_real* dq_dq, mbt_real* dq_dv,
                                                  mbt_real* dq_dtau, mbt_real* dv_dq, mbt_real* dv_dv,
                                                  mbt_real* dv_dtau) {
  const char* what = "calc_semi_implicit_euler_step_derivatives";
  int st = mbt__derivatives_check(tree, ctx, ws, what);
  if (st) return st;
  if (!mbt_isfinite(h))
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: the step h = %g is not finite", what, mbt_value(h));
  const int nv = tree->nv;
  const size_t nn = (size_t)nv * (size_t)nv;
  mbt_real *Dq = ws->T4, *Dv = ws->T5, *Minv = ws->T6, *hv = ws->rhs2, *vd = ws->vdot2;
  if ((st = mbt_calc_forward_dynamics_derivatives(tree, ctx, ws, tau_app, vd, Dq, Dv, Minv))) return st;
  /* q⁺ and v⁺ from mbt_calc_forward_dynamics itself, so that they are the simulator's step to
   * the last bit (the v̇ of the derivatives agrees with it to round-off). */
  if ((q_next || v_next) && (st = mbt_calc_forward_dynamics(tree, ctx, tau_app, NULL, vd))) return st;
  for (int k = 0; k < nv; ++k) hv[k] = h * (ctx->v[k] + h * vd[k]);
  if (q_next) mbt_integrate_configuration(tree, ctx->q, hv, q_next);
  if (v_next)
    for (int k = 0; k < nv; ++k) v_next[k] = ctx->v[k] + h * vd[k];
  for (size_t i = 0; i < nn; ++i) Dq[i] *= h, Dv[i] *= h, Minv[i] *= h;  /* ∂v⁺/∂q, ∂v⁺/∂v − I, ∂v⁺/∂tau */
  if (dq_dq) {
    for (size_t i = 0; i < nn; ++i) dq_dq[i] = h * Dq[i];
    apply_step_blocks(tree, hv, dq_dq, true);
  }
  if (dq_dv) {
    for (size_t i = 0; i < nn; ++i) dq_dv[i] = h * Dv[i];
    for (int k = 0; k < nv; ++k) dq_dv[(size_t)k * nv + k] += h;
    apply_step_blocks(tree, hv, dq_dv, false);
  }
  if (dq_dtau) {
    for (size_t i = 0; i < nn; ++i) dq_dtau[i] = h * Minv[i];
    apply_step_blocks(tree, hv, dq_dtau, false);
  }
  if (dv_dq) memcpy(dv_dq, Dq, nn * sizeof(mbt_real));
  if (dv_dv) {
    memcpy(dv_dv, Dv, nn * sizeof(mbt_real));
    for (int k = 0; k < nv; ++k) dv_dv[(size_t)k * nv + k] += 1;
  }
  if (dv_dtau) memcpy(dv_dtau, Minv, nn * sizeof(mbt_real));
  return MBT_OK;
}
