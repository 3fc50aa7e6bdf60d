/* Derivatives of the dynamics (mbt/derivatives.h):
 *   - ∂tau/∂q, ∂tau/∂v of inverse dynamics (gravity, damping, revolute springs, tau_app) against
 *     Richardson-extrapolated central differences of mbt_calc_inverse_dynamics with the force
 *     elements applied, on every shipped model with a fixed and a floating base, on the branched
 *     tree with every mobilizer type, and on a tree built here with all eight mobilizer types;
 *     tau and M of the same call against mbt_calc_inverse_dynamics and mbt_calc_mass_matrix;
 *   - ∂v̇/∂(q, v, tau) against central differences of mbt_calc_forward_dynamics, also with a
 *     locked joint; ∂tau_g/∂q against mbt_calc_gravity_generalized_forces;
 *   - exact identities: M·M⁻¹ = I, ∂v̇/∂(q,v) = −M⁻¹·∂tau/∂(q,v) at v̇ = FD, ∂tau/∂v = 0 at v = 0
 *     without damping, ∂tau/∂v linear in v, the step Jacobians are the identity at h = 0;
 *   - q ⊕ dv: d/dε (q ⊕ ε·e_k) = N(q)·e_k, (q ⊕ dv) ⊖ q = dv; the step Jacobians against
 *     central differences of the step;
 *   - J̇ of every frame's Jacobian against central differences along the motion, and J̇·v = the
 *     bias acceleration;
 *   - errors (workspace of another tree, NULL outputs, a linear spring) leave outputs unchanged;
 *   - the baseline and the AVX2/FMA kernels (where the processor has them) agree to round-off,
 *     on every test tree and a 20-body chain with a floating tip;
 *   - no heap allocation in the Calc functions. */
#include <float.h>
#include "algorithms/derivatives_internal.h"
#include "support/test_util.h"

TU_DEFINE_HEAP_COUNTER();

typedef struct {
  mbt_tree* tree;
  mbt_context* ctx;
  mbt_derivatives_workspace* ws;
  mbt_multibody_forces* forces;
  int nq, nv;
  mbt_real q[TU_NMAX], v[TU_NMAX], vdot[TU_NMAX], tau[TU_NMAX];
} fx;

static fx* fx_create(mbt_tree* tree) {
  assert_non_null(tree);
  fx* f = calloc(1, sizeof *f);
  f->tree = tree;
  f->ctx = mbt_context_create(tree);
  f->ws = mbt_derivatives_workspace_create(tree);
  f->forces = mbt_multibody_forces_create(tree);
  assert_true(f->ctx && f->ws && f->forces);
  f->nq = mbt_tree_num_positions(tree);
  f->nv = mbt_tree_num_velocities(tree);
  assert_true(f->nq <= TU_NMAX && f->nv <= TU_NMAX);
  return f;
}
static void fx_destroy(fx* f) {
  mbt_multibody_forces_destroy(f->forces);
  mbt_derivatives_workspace_destroy(f->ws);
  mbt_context_destroy(f->ctx);
  mbt_tree_destroy(f->tree);
  free(f);
}
/* A random state, v̇ and tau_app; random damping on every joint. */
static void fx_randomize(fx* f) {
  tu_rand_state(f->tree, f->ctx);
  memcpy(f->q, mbt_context_q(f->ctx), sizeof(mbt_real) * (size_t)f->nq);
  memcpy(f->v, mbt_context_v(f->ctx), sizeof(mbt_real) * (size_t)f->nv);
  tu_rand_array(f->vdot, f->nv, 2.0);
  tu_rand_array(f->tau, f->nv, 3.0);
  for (int j = 0; j < mbt_tree_num_joints(f->tree); ++j) {
    mbt_real d[6];
    const int n = mbt_joint_num_velocities(f->tree, j);
    for (int k = 0; k < n; ++k) d[k] = 0.5 * (1 + tu_rand());
    if (n > 0) assert_int_equal(mbt_joint_set_damping_vector(f->ctx, j, d, n), MBT_OK);
  }
}
static void fx_set(fx* f, const mbt_real* q, const mbt_real* v) {
  assert_int_equal(mbt_context_set_q(f->ctx, q, f->nq), MBT_OK);
  assert_int_equal(mbt_context_set_v(f->ctx, v, f->nv), MBT_OK);
}

/* ---- reference functions: f(q, v, tau) → nv values ------------------------------------ */
typedef void (*state_fn)(fx* f, const mbt_real* q, const mbt_real* v, const mbt_real* tau, mbt_real* out);

/* tau_ID = M·v̇ + C·v − tau_app − tau_forces − Σ J_WBᵀ·F_forces (gravity, damping, springs). */
static void ref_id(fx* f, const mbt_real* q, const mbt_real* v, const mbt_real* tau, mbt_real* out) {
  fx_set(f, q, v);
  assert_int_equal(mbt_calc_force_elements_contribution(f->tree, f->ctx, f->forces), MBT_OK);
  for (int k = 0; k < f->nv; ++k) f->forces->tau[k] += tau[k];
  assert_int_equal(mbt_calc_inverse_dynamics(f->tree, f->ctx, f->vdot, f->forces->F_BBo_W, f->forces->tau, NULL,
                                             NULL, out), MBT_OK);
}
static void ref_fd(fx* f, const mbt_real* q, const mbt_real* v, const mbt_real* tau, mbt_real* out) {
  fx_set(f, q, v);
  assert_int_equal(mbt_calc_forward_dynamics(f->tree, f->ctx, tau, NULL, out), MBT_OK);
}
static void ref_g(fx* f, const mbt_real* q, const mbt_real* v, const mbt_real* tau, mbt_real* out) {
  (void)tau;
  fx_set(f, q, v);
  assert_int_equal(mbt_calc_gravity_generalized_forces(f->tree, f->ctx, out), MBT_OK);
}

enum { WRT_Q, WRT_V, WRT_TAU };
/* Column k of ∂fn/∂x at (f->q, f->v, f->tau) by central differences D(h) along e_k (q ⊕ h·e_k
 * for q), Richardson-extrapolated: (4·D(h/2) − D(h))/3, truncation O(h⁴). */
static void numeric_jacobian(fx* f, state_fn fn, int wrt, mbt_real* J) {
  const int nv = f->nv;
  mbt_real q[TU_NMAX], v[TU_NMAX], t[TU_NMAX], e[TU_NMAX], a[TU_NMAX], b[TU_NMAX], D[2][TU_NMAX];
  const double h0 = 1e-3;
  for (int k = 0; k < nv; ++k) {
    for (int s = 0; s < 2; ++s) {
      const double h = s ? h0 / 2 : h0;
      for (int sign = -1; sign <= 1; sign += 2) {
        memcpy(q, f->q, sizeof q), memcpy(v, f->v, sizeof v), memcpy(t, f->tau, sizeof t);
        memset(e, 0, sizeof e);
        e[k] = sign * h;
        if (wrt == WRT_Q) assert_int_equal(mbt_integrate_configuration(f->tree, f->q, e, q), MBT_OK);
        if (wrt == WRT_V) v[k] += e[k];
        if (wrt == WRT_TAU) t[k] += e[k];
        fn(f, q, v, t, sign < 0 ? a : b);
      }
      for (int i = 0; i < nv; ++i) D[s][i] = (b[i] - a[i]) / (2 * h);
    }
    for (int i = 0; i < nv; ++i) J[i * nv + k] = (4 * D[1][i] - D[0][i]) / 3;
  }
  fx_set(f, f->q, f->v);
}

/* |A − B| <= tol·max(1, |B|) entry by entry. */
static void assert_matrix_near(const mbt_real* A, const mbt_real* B, int nv, double tol, const char* what,
                               const char* model) {
  for (int i = 0; i < nv * nv; ++i)
    if (!(fabs(A[i] - B[i]) <= tol * fmax(1, fabs(B[i]))))
      fail_msg("%s: %s[%d][%d] = %.12g, expected %.12g", model, what, i / nv, i % nv, A[i], B[i]);
}

/* ---- the trees ------------------------------------------------------------------------- */
/* All eight mobilizer types from the joint builders, damping on every joint, a revolute spring:
 *   world → A (quaternion floating) → B (ball_rpy) → C (universal) → D (planar) → E (screw)
 *           → F (prismatic) → G (weld) → H (revolute);  world → I (revolute) → J (planar). */
static mbt_tree* make_all_mobilizers_tree(void) {
  mbt_tree* tree = mbt_tree_create();
  assert_non_null(tree);
  const char* names[] = {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J"};
  const int parents[] = {-1, 0, 1, 2, 3, 4, 5, 6, -1, 8};
  int body[10];
  for (int i = 0; i < 10; ++i) {
    const mbt_spatial_inertia M = tu_rand_inertia();
    body[i] = mbt_tree_add_rigid_body(tree, names[i], &M);
    assert_true(body[i] > 0);
    const int P = parents[i] < 0 ? 0 : body[parents[i]];
    const mbt_transform X_PF = tu_rand_transform(0.5), X_BM = tu_rand_transform(0.5);
    const mbt_vec3 axis = tu_rand_unit();
    const mbt_real d[6] = {0.3, 0.2, 0.1, 0.4, 0.5, 0.6};
    char jn[8];
    snprintf(jn, sizeof jn, "j%s", names[i]);
    int j;
    switch (i) {
      case 0: j = mbt_tree_add_quaternion_floating_joint(tree, jn, P, &X_PF, body[i], &X_BM, d); break;
      case 1: j = mbt_tree_add_ball_rpy_joint(tree, jn, P, &X_PF, body[i], &X_BM, d); break;
      case 2: j = mbt_tree_add_universal_joint(tree, jn, P, &X_PF, body[i], &X_BM, d); break;
      case 3: case 9: j = mbt_tree_add_planar_joint(tree, jn, P, &X_PF, body[i], &X_BM, d); break;
      case 4: j = mbt_tree_add_screw_joint(tree, jn, P, &X_PF, body[i], &X_BM, axis, 0.2, 0.1); break;
      case 5: j = mbt_tree_add_prismatic_joint(tree, jn, P, &X_PF, body[i], &X_BM, axis, 0.2); break;
      case 6: j = mbt_tree_add_weld_joint(tree, jn, P, &X_PF, body[i], &X_BM); break;
      default: j = mbt_tree_add_revolute_joint(tree, jn, P, &X_PF, body[i], &X_BM, axis, 0.3); break;
    }
    if (j < 0) fail_msg("joint %s: %s", jn, mbt_tree_last_error(tree));
  }
  assert_true(mbt_tree_add_revolute_spring(tree, "torsion", mbt_tree_joint_by_name(tree, "jH"), 0.2, 3.0) >= 0);
  if (mbt_tree_finalize(tree) != MBT_OK) fail_msg("finalize: %s", mbt_tree_last_error(tree));
  return tree;
}

/* A serial chain of 20 bodies, revolute and prismatic (dense ∂tau and M⁻¹), ending in a
 * quaternion-floating body (a floating node whose parent moves). */
static mbt_tree* make_chain_tree(void) {
  mbt_tree* tree = mbt_tree_create();
  const int last = tu_add_chain(tree, "c", 20, true);
  assert_true(tu_add_body_with_mobilizer(tree, "free", last, MBT_MOBILIZER_QUATERNION_FLOATING, false) >= 0);
  if (mbt_tree_finalize(tree) != MBT_OK) fail_msg("finalize: %s", mbt_tree_last_error(tree));
  return tree;
}

static mbt_tree* load_model(const char* name, int flags) {
  mbt_urdf_result r;
  tu_load_urdf(name, flags, &r);
  mbt_tree* tree = r.tree;
  r.tree = NULL;
  mbt_urdf_result_free(&r);
  return tree;
}

/* Calls check(f, name) on every test tree at random states. */
static void for_each_tree(void (*check)(fx* f, const char* name)) {
  tu_seed(11);
  for (int m = 0; m < TU_NUM_MODELS; ++m)
    for (int floating = 0; floating < 2; ++floating) {
      const int flags = tu_model_flags(tu_models[m]) | (floating ? MBT_URDF_FLOATING : 0);
      if (!floating && flags) continue;  /* solo12 has only a floating base */
      char name[64], path[512];
      snprintf(name, sizeof name, "%s%s", tu_models[m], floating ? " (floating)" : "");
      if (floating && !tu_model_flags(tu_models[m])) {  /* a model hanging from a "world" link cannot float */
        mbt_urdf_result r;
        tu_model_path(path, sizeof path, tu_models[m]);
        const int st = mbt_urdf_load_file(path, flags, &r);
        mbt_urdf_result_free(&r);
        if (st != MBT_OK) continue;
      }
      fx* f = fx_create(load_model(tu_models[m], flags));
      check(f, name);
      fx_destroy(f);
    }
  fx* f = fx_create(tu_make_branched_tree());
  check(f, "branched tree");
  fx_destroy(f);
  f = fx_create(make_all_mobilizers_tree());
  check(f, "all-mobilizers tree");
  fx_destroy(f);
  f = fx_create(make_chain_tree());
  check(f, "20-body chain with a floating tip");
  fx_destroy(f);
}

/* ---- inverse dynamics ------------------------------------------------------------------ */
static void check_id(fx* f, const char* name) {
  const int nv = f->nv;
  const size_t nn = (size_t)nv * (size_t)nv + 1;
  mbt_real *dq = calloc(nn, sizeof *dq), *dv = calloc(nn, sizeof *dv), *M = calloc(nn, sizeof *M);
  mbt_real *Jq = calloc(nn, sizeof *Jq), *Jv = calloc(nn, sizeof *Jv), *Mref = calloc(nn, sizeof *Mref);
  mbt_real tau[TU_NMAX], tref[TU_NMAX];
  for (int trial = 0; trial < 2; ++trial) {
    fx_randomize(f);
    for (int i = 0; i < nv * nv; ++i) dq[i] = dv[i] = NAN;  /* every entry must be written (chains: not cleared) */
    assert_int_equal(mbt_calc_inverse_dynamics_derivatives(f->tree, f->ctx, f->ws, f->vdot, f->tau, tau, dq, dv, M),
                     MBT_OK);
    ref_id(f, f->q, f->v, f->tau, tref);
    for (int k = 0; k < nv; ++k) tu_assert_rel(tau[k], tref[k], fabs(tref[k]), 1e-10, name);
    assert_int_equal(mbt_calc_mass_matrix(f->tree, f->ctx, Mref), MBT_OK);
    assert_matrix_near(M, Mref, nv, 1e-10, "M", name);
    numeric_jacobian(f, ref_id, WRT_Q, Jq);
    numeric_jacobian(f, ref_id, WRT_V, Jv);
    assert_matrix_near(dq, Jq, nv, 1e-6, "dtau_dq", name);
    assert_matrix_near(dv, Jv, nv, 1e-6, "dtau_dv", name);
  }
  free(dq), free(dv), free(M), free(Jq), free(Jv), free(Mref);
}
static void test_id_derivatives(void** state) {
  (void)state;
  for_each_tree(check_id);
}

/* ∂tau/∂v = 0 at v = 0 without damping; ∂tau/∂v − D is linear in v (C(q, v)·v is quadratic). */
static void check_dv_identities(fx* f, const char* name) {
  const int nv = f->nv;
  const size_t nn = (size_t)nv * (size_t)nv + 1;
  mbt_real *dq = calloc(nn, sizeof *dq), *d1 = calloc(nn, sizeof *d1), *d2 = calloc(nn, sizeof *d2);
  mbt_real v0[TU_NMAX] = {0}, v2[TU_NMAX];
  fx_randomize(f);
  for (int j = 0; j < mbt_tree_num_joints(f->tree); ++j) {
    const mbt_real zero[6] = {0};
    const int n = mbt_joint_num_velocities(f->tree, j);
    if (n > 0) assert_int_equal(mbt_joint_set_damping_vector(f->ctx, j, zero, n), MBT_OK);
  }
  fx_set(f, f->q, v0);
  assert_int_equal(mbt_calc_inverse_dynamics_derivatives(f->tree, f->ctx, f->ws, f->vdot, NULL, NULL, dq, d1, NULL),
                   MBT_OK);
  for (int i = 0; i < nv * nv; ++i)
    if (d1[i] != 0) fail_msg("%s: dtau_dv[%d][%d] = %g at v = 0", name, i / nv, i % nv, d1[i]);
  fx_set(f, f->q, f->v);
  assert_int_equal(mbt_calc_inverse_dynamics_derivatives(f->tree, f->ctx, f->ws, f->vdot, NULL, NULL, dq, d1, NULL),
                   MBT_OK);
  for (int k = 0; k < nv; ++k) v2[k] = 2 * f->v[k];
  fx_set(f, f->q, v2);
  assert_int_equal(mbt_calc_inverse_dynamics_derivatives(f->tree, f->ctx, f->ws, NULL, NULL, NULL, dq, d2, NULL),
                   MBT_OK);
  double scale = 0;
  for (int i = 0; i < nv * nv; ++i) scale = fmax(scale, fabs(d2[i]));
  for (int i = 0; i < nv * nv; ++i) tu_assert_rel(d2[i], 2 * d1[i], scale, 1e-11, name);
  free(dq), free(d1), free(d2);
}
static void test_dv_identities(void** state) {
  (void)state;
  for_each_tree(check_dv_identities);
}

/* ---- forward dynamics ------------------------------------------------------------------ */
static void check_fd(fx* f, const char* name) {
  const int nv = f->nv;
  const size_t nn = (size_t)nv * (size_t)nv + 1;
  mbt_real *dq = calloc(nn, sizeof *dq), *dv = calloc(nn, sizeof *dv), *Mi = calloc(nn, sizeof *Mi);
  mbt_real *Jq = calloc(nn, sizeof *Jq), *Jv = calloc(nn, sizeof *Jv), *Jt = calloc(nn, sizeof *Jt);
  mbt_real *M = calloc(nn, sizeof *M), *tq = calloc(nn, sizeof *tq), *tv = calloc(nn, sizeof *tv);
  mbt_real vd[TU_NMAX], vref[TU_NMAX];
  fx_randomize(f);
  assert_int_equal(mbt_calc_forward_dynamics_derivatives(f->tree, f->ctx, f->ws, f->tau, vd, dq, dv, Mi), MBT_OK);
  ref_fd(f, f->q, f->v, f->tau, vref);
  /* v̇ solves M·v̇ = tau − C: its round-off is bounded relative to |v̇| as a whole (cond(M)·ε,
   * ~5e-13 on the all-mobilizer tree), not entry by entry: a small entry of v̇ may differ by
   * more than 1e-12 of itself between two exact methods (ABA and the mass-matrix path do). */
  const double vscale = tu_max_abs(vref, nv);
  for (int k = 0; k < nv; ++k) tu_assert_rel(vd[k], vref[k], vscale, 1e-12, name);
  numeric_jacobian(f, ref_fd, WRT_Q, Jq);
  numeric_jacobian(f, ref_fd, WRT_V, Jv);
  numeric_jacobian(f, ref_fd, WRT_TAU, Jt);
  assert_matrix_near(dq, Jq, nv, 1e-6, "dvdot_dq", name);
  assert_matrix_near(dv, Jv, nv, 1e-6, "dvdot_dv", name);
  assert_matrix_near(Mi, Jt, nv, 1e-6, "dvdot_dtau", name);
  /* Exact identities: M·M⁻¹ = I; ∂v̇/∂(q, v) = −M⁻¹·∂tau/∂(q, v) at v̇ = FD. */
  assert_int_equal(mbt_calc_inverse_dynamics_derivatives(f->tree, f->ctx, f->ws, vd, f->tau, NULL, tq, tv, M), MBT_OK);
  double sq = 0, sv = 0;
  for (int i = 0; i < nv * nv; ++i) sq = fmax(sq, fabs(dq[i])), sv = fmax(sv, fabs(dv[i]));
  for (int i = 0; i < nv; ++i)
    for (int j = 0; j < nv; ++j) {
      double mm = 0, pq = 0, pv = 0;
      for (int k = 0; k < nv; ++k) {
        mm += M[i * nv + k] * Mi[k * nv + j];
        pq -= Mi[i * nv + k] * tq[k * nv + j];
        pv -= Mi[i * nv + k] * tv[k * nv + j];
      }
      tu_assert_rel(mm, i == j, 1, 1e-11, name);
      tu_assert_rel(dq[i * nv + j], pq, sq, 1e-11, name);
      tu_assert_rel(dv[i * nv + j], pv, sv, 1e-11, name);
    }
  /* M⁻¹ on its own. */
  assert_int_equal(mbt_calc_mass_matrix_inverse(f->tree, f->ctx, f->ws, M), MBT_OK);
  assert_matrix_near(M, Mi, nv, 1e-12, "Minv", name);
  free(dq), free(dv), free(Mi), free(Jq), free(Jv), free(Jt), free(M), free(tq), free(tv);
}
/* check_fd with M⁻¹ and v̇ by the articulated sweeps and by the LᵀDL factor of M (the workspace
 * picks one per tree). */
static void check_fd_both(fx* f, const char* name) {
  for (int s = 0; s < 2; ++s) {
    char label[96];
    snprintf(label, sizeof label, "%s, M⁻¹ by %s", name, s ? "LᵀDL" : "the sweeps");
    f->ws->minv_ltdl = s == 1;
    check_fd(f, label);
  }
}
static void test_fd_derivatives(void** state) {
  (void)state;
  for_each_tree(check_fd_both);
}

/* A locked universal joint: v̇ and M⁻¹ rows of its velocities are zero, the rest matches
 * central differences of forward dynamics (q in every direction, v and tau in the free ones). */
static void check_fd_locked(bool ltdl) {
  tu_seed(5);
  fx* f = fx_create(make_all_mobilizers_tree());
  f->ws->minv_ltdl = ltdl;
  const int nv = f->nv, jC = mbt_tree_joint_by_name(f->tree, "jC"), c0 = mbt_joint_velocity_start(f->tree, jC);
  const size_t nn = (size_t)nv * (size_t)nv;
  mbt_real *dq = calloc(nn, sizeof *dq), *dv = calloc(nn, sizeof *dv), *Mi = calloc(nn, sizeof *Mi);
  mbt_real *Jq = calloc(nn, sizeof *Jq), *Jv = calloc(nn, sizeof *Jv), *Jt = calloc(nn, sizeof *Jt);
  fx_randomize(f);
  assert_int_equal(mbt_joint_lock(f->ctx, jC), MBT_OK);
  memcpy(f->v, mbt_context_v(f->ctx), sizeof(mbt_real) * (size_t)nv);
  assert_int_equal(mbt_calc_forward_dynamics_derivatives(f->tree, f->ctx, f->ws, f->tau, NULL, dq, dv, Mi), MBT_OK);
  numeric_jacobian(f, ref_fd, WRT_Q, Jq);
  numeric_jacobian(f, ref_fd, WRT_V, Jv);
  numeric_jacobian(f, ref_fd, WRT_TAU, Jt);
  assert_matrix_near(dq, Jq, nv, 1e-6, "dvdot_dq", "locked");
  for (int i = 0; i < nv; ++i)
    for (int k = 0; k < nv; ++k) {
      const bool locked = k == c0 || k == c0 + 1;
      if (locked) {
        assert_true(Mi[i * nv + k] == 0 && Mi[k * nv + i] == 0 && dq[k * nv + i] == 0 && dv[k * nv + i] == 0);
        continue;
      }
      tu_assert_rel(dv[i * nv + k], Jv[i * nv + k], fabs(Jv[i * nv + k]), 1e-6, "dvdot_dv locked");
      tu_assert_rel(Mi[i * nv + k], Jt[i * nv + k], fabs(Jt[i * nv + k]), 1e-6, "Minv locked");
    }
  free(dq), free(dv), free(Mi), free(Jq), free(Jv), free(Jt);
  fx_destroy(f);
}
static void test_fd_derivatives_locked(void** state) {
  (void)state;
  check_fd_locked(false);  /* M⁻¹ by the articulated sweeps */
  check_fd_locked(true);   /* by the LᵀDL factor of M */
}

/* ---- gravity --------------------------------------------------------------------------- */
static void check_gravity(fx* f, const char* name) {
  const int nv = f->nv;
  const size_t nn = (size_t)nv * (size_t)nv + 1;
  mbt_real *dg = calloc(nn, sizeof *dg), *J = calloc(nn, sizeof *J);
  fx_randomize(f);
  assert_int_equal(mbt_calc_gravity_generalized_forces_derivatives(f->tree, f->ctx, f->ws, dg), MBT_OK);
  numeric_jacobian(f, ref_g, WRT_Q, J);
  assert_matrix_near(dg, J, nv, 1e-6, "dtau_g_dq", name);
  free(dg), free(J);
}
static void test_gravity_derivatives(void** state) {
  (void)state;
  for_each_tree(check_gravity);
}

/* ---- q ⊕ dv and the semi-implicit Euler step ------------------------------------------ */
/* d/dε (q ⊕ ε·e_k) = N(q)·e_k (mbt_map_velocity_to_qdot); (q ⊕ dv) ⊖ q = dv. */
static void check_integrate(fx* f, const char* name) {
  const int nq = f->nq, nv = f->nv;
  mbt_real e[TU_NMAX], qa[TU_NMAX], qb[TU_NMAX], qdot[TU_NMAX], d[TU_NMAX];
  fx_randomize(f);
  const double h = 1e-5;
  for (int k = 0; k < nv; ++k) {
    memset(e, 0, sizeof e);
    e[k] = h;
    assert_int_equal(mbt_integrate_configuration(f->tree, f->q, e, qb), MBT_OK);
    e[k] = -h;
    assert_int_equal(mbt_integrate_configuration(f->tree, f->q, e, qa), MBT_OK);
    e[k] = 1;
    assert_int_equal(mbt_map_velocity_to_qdot(f->tree, f->ctx, e, qdot), MBT_OK);
    for (int i = 0; i < nq; ++i) tu_assert_rel((qb[i] - qa[i]) / (2 * h), qdot[i], 1, 1e-8, name);
  }
  tu_rand_array(d, nv, 0.8);
  assert_int_equal(mbt_integrate_configuration(f->tree, f->q, d, qb), MBT_OK);
  assert_int_equal(mbt_difference_configuration(f->tree, f->q, qb, e), MBT_OK);
  for (int k = 0; k < nv; ++k) tu_assert_rel(e[k], d[k], 1, 1e-12, name);
}
static void test_integrate_configuration(void** state) {
  (void)state;
  for_each_tree(check_integrate);
}

#define STEP_H 0.01
static mbt_real g_step_q0[TU_NMAX];
/* Reference step from forward dynamics and q ⊕: v⁺ = v + h·FD, q⁺ = q ⊕ h·v⁺. */
static void ref_step(fx* f, const mbt_real* q, const mbt_real* v, const mbt_real* tau, mbt_real* qn, mbt_real* vn) {
  mbt_real vd[TU_NMAX], hv[TU_NMAX];
  ref_fd(f, q, v, tau, vd);
  for (int k = 0; k < f->nv; ++k) vn[k] = v[k] + STEP_H * vd[k], hv[k] = STEP_H * vn[k];
  assert_int_equal(mbt_integrate_configuration(f->tree, q, hv, qn), MBT_OK);
}
static void ref_step_q(fx* f, const mbt_real* q, const mbt_real* v, const mbt_real* tau, mbt_real* out) {
  mbt_real qn[TU_NMAX], vn[TU_NMAX];
  ref_step(f, q, v, tau, qn, vn);
  assert_int_equal(mbt_difference_configuration(f->tree, g_step_q0, qn, out), MBT_OK);
}
static void ref_step_v(fx* f, const mbt_real* q, const mbt_real* v, const mbt_real* tau, mbt_real* out) {
  mbt_real qn[TU_NMAX];
  ref_step(f, q, v, tau, qn, out);
}
static void check_step(fx* f, const char* name) {
  const int nv = f->nv, nq = f->nq;
  const size_t nn = (size_t)nv * (size_t)nv + 1;
  mbt_real* J[6];
  mbt_real* R = calloc(nn, sizeof *R);
  for (int i = 0; i < 6; ++i) J[i] = calloc(nn, sizeof *J[i]);
  mbt_real qn[TU_NMAX], vn[TU_NMAX], qr[TU_NMAX], vr[TU_NMAX];
  fx_randomize(f);
  /* h = 0: dq_dq = dv_dv = I, the others 0. */
  assert_int_equal(mbt_calc_semi_implicit_euler_step_derivatives(f->tree, f->ctx, f->ws, 0, f->tau, qn, vn, J[0],
                                                                 J[1], J[2], J[3], J[4], J[5]), MBT_OK);
  for (int m = 0; m < 6; ++m)
    for (int i = 0; i < nv * nv; ++i) {
      const bool diag = i / nv == i % nv;
      if (J[m][i] != ((m == 0 || m == 4) && diag ? 1 : 0)) fail_msg("%s: h = 0: Jacobian %d entry %d = %g", name, m, i, J[m][i]);
    }
  assert_int_equal(mbt_calc_semi_implicit_euler_step_derivatives(f->tree, f->ctx, f->ws, STEP_H, f->tau, qn, vn, J[0],
                                                                 J[1], J[2], J[3], J[4], J[5]), MBT_OK);
  ref_step(f, f->q, f->v, f->tau, qr, vr);
  for (int i = 0; i < nq; ++i) tu_assert_rel(qn[i], qr[i], 1, 1e-13, name);
  for (int i = 0; i < nv; ++i) tu_assert_rel(vn[i], vr[i], fabs(vr[i]), 1e-13, name);
  memcpy(g_step_q0, qr, sizeof g_step_q0);
  const char* what[6] = {"dq_dq", "dq_dv", "dq_dtau", "dv_dq", "dv_dv", "dv_dtau"};
  for (int m = 0; m < 6; ++m) {
    numeric_jacobian(f, m < 3 ? ref_step_q : ref_step_v, m % 3, R);
    assert_matrix_near(J[m], R, nv, 1e-6, what[m], name);
  }
  for (int i = 0; i < 6; ++i) free(J[i]);
  free(R);
}
static void test_step_derivatives(void** state) {
  (void)state;
  for_each_tree(check_step);
}

/* ---- bias acceleration and J̇ ---------------------------------------------------------- */
/* J_WFp at q ⊕ t·v (v fixed). */
static void jacobian_along(fx* f, int frame, mbt_vec3 p, double t, mbt_real* J) {
  mbt_real q[TU_NMAX], d[TU_NMAX];
  for (int k = 0; k < f->nv; ++k) d[k] = t * f->v[k];
  assert_int_equal(mbt_integrate_configuration(f->tree, f->q, d, q), MBT_OK);
  fx_set(f, q, f->v);
  assert_int_equal(mbt_calc_jacobian_spatial_velocity(f->tree, f->ctx, frame, p, J), MBT_OK);
}
/* For every frame and a random point on it: J̇ against central differences of J along the
 * motion (Richardson-extrapolated), J̇·v = the bias acceleration (1e-11), the translational
 * form its lower half. */
static void check_bias(fx* f, const char* name) {
  const int nv = f->nv, n6 = 6 * nv;
  mbt_real *Jd = calloc((size_t)n6 + 1, sizeof *Jd), *R = calloc((size_t)n6 + 1, sizeof *R);
  mbt_real *Jp = calloc((size_t)n6 + 1, sizeof *Jp), *Jm = calloc((size_t)n6 + 1, sizeof *Jm);
  fx_randomize(f);
  for (int frame = 0; frame < mbt_tree_num_frames(f->tree); ++frame) {
    const mbt_vec3 p = tu_rand_vec3(0.5);
    fx_set(f, f->q, f->v);
    mbt_spatial_acceleration A;
    mbt_vec3 a;
    assert_int_equal(mbt_calc_jacobian_spatial_velocity_time_derivative(f->tree, f->ctx, f->ws, frame, p, Jd), MBT_OK);
    assert_int_equal(mbt_calc_bias_spatial_acceleration(f->tree, f->ctx, f->ws, frame, p, &A), MBT_OK);
    assert_int_equal(mbt_calc_bias_translational_acceleration(f->tree, f->ctx, f->ws, frame, p, &a), MBT_OK);
    for (int r = 0; r < 6; ++r) {
      double jv = 0, scale = 1;
      for (int k = 0; k < nv; ++k) jv += Jd[r * nv + k] * f->v[k], scale = fmax(scale, fabs(Jd[r * nv + k] * f->v[k]));
      tu_assert_rel(A.coeffs[r], jv, scale, 1e-11, name);
      if (r >= 3) tu_assert_rel(a.v[r - 3], A.coeffs[r], 0, 0, name);
    }
    const double h = 1e-3;
    for (int s = 0; s < 2; ++s) {
      const double e = s ? h / 2 : h;
      jacobian_along(f, frame, p, e, Jp);
      jacobian_along(f, frame, p, -e, Jm);
      for (int i = 0; i < n6; ++i) {
        const double D = (Jp[i] - Jm[i]) / (2 * e);
        R[i] = s ? (4 * D - R[i]) / 3 : D;
      }
    }
    for (int i = 0; i < n6; ++i)
      if (!(fabs(Jd[i] - R[i]) <= 1e-6 * fmax(1, fabs(R[i]))))
        fail_msg("%s: frame %d: Jdot[%d][%d] = %.12g, expected %.12g", name, frame, i / nv, i % nv, Jd[i], R[i]);
  }
  fx_set(f, f->q, f->v);
  free(Jd), free(R), free(Jp), free(Jm);
}
static void test_bias_acceleration(void** state) {
  (void)state;
  for_each_tree(check_bias);
}

/* ---- errors and allocation ------------------------------------------------------------- */
static void test_errors(void** state) {
  (void)state;
  tu_seed(3);
  fx* f = fx_create(make_all_mobilizers_tree());
  mbt_tree* other = tu_make_joint_tree();  /* has linear spring-dampers and a user force */
  assert_non_null(other);
  mbt_context* octx = mbt_context_create(other);
  mbt_derivatives_workspace* ows = mbt_derivatives_workspace_create(other);
  const int nv = f->nv, onv = mbt_tree_num_velocities(other);
  mbt_real* A = malloc(sizeof(mbt_real) * (size_t)(nv > onv ? nv * nv : onv * onv));
  mbt_real* B = malloc(sizeof(mbt_real) * (size_t)(nv > onv ? nv * nv : onv * onv));
  for (int i = 0; i < nv * nv; ++i) A[i] = B[i] = 42;
  assert_int_equal(mbt_calc_inverse_dynamics_derivatives(f->tree, f->ctx, ows, NULL, NULL, NULL, A, B, NULL),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_context_last_error(f->ctx), "workspace is of another tree");
  assert_int_equal(mbt_calc_inverse_dynamics_derivatives(f->tree, f->ctx, f->ws, NULL, NULL, NULL, A, NULL, NULL),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_context_last_error(f->ctx), "dtau_dq and dtau_dv are required");
  for (int i = 0; i < nv * nv; ++i) assert_true(A[i] == 42 && B[i] == 42);
  for (int i = 0; i < onv * onv; ++i) A[i] = 42;
  assert_int_equal(mbt_calc_forward_dynamics_derivatives(other, octx, ows, NULL, NULL, A, B, NULL),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_context_last_error(octx), "linear spring-damper");
  for (int i = 0; i < onv * onv; ++i) assert_true(A[i] == 42);
  assert_int_equal(mbt_calc_semi_implicit_euler_step_derivatives(f->tree, f->ctx, f->ws, NAN, NULL, NULL, NULL, A,
                                                                 NULL, NULL, NULL, NULL, NULL), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_context_last_error(f->ctx), "not finite");
  mbt_tree* unfinished = mbt_tree_create();
  assert_null(mbt_derivatives_workspace_create(unfinished));
  assert_contains(mbt_tree_last_error(unfinished), "not finalized");
  mbt_tree_destroy(unfinished);
  free(A), free(B);
  mbt_derivatives_workspace_destroy(ows);
  mbt_context_destroy(octx);
  mbt_tree_destroy(other);
  fx_destroy(f);
}

/* max over columns of Σ_i |A_ij| (n×n, by rows). */
static double matrix_norm1(const mbt_real* A, int n) {
  double best = 0;
  for (int j = 0; j < n; ++j) {
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += fabs(A[(size_t)i * (size_t)n + (size_t)j]);
    best = fmax(best, sum);
  }
  return best;
}

/* ∂tau/∂(q, v) and ∂v̇/∂(q, v, tau) from the baseline kernels and from the AVX2/FMA ones (the
 * same where the processor lacks them) agree to round-off. */
static void check_kernels(fx* f, const char* name) {
  const int nv = f->nv;
  const size_t nn = (size_t)nv * (size_t)nv + 1;
  mbt_real* X[2][5];
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 5; ++i) X[s][i] = calloc(nn, sizeof(mbt_real));
  fx_randomize(f);
  for (int s = 0; s < 2; ++s) {
    f->ws->avx2 = s == 1 && mbt__cpu_has_avx2_fma();
    assert_int_equal(mbt_calc_inverse_dynamics_derivatives(f->tree, f->ctx, f->ws, f->vdot, f->tau, NULL, X[s][0],
                                                           X[s][1], NULL),
                     MBT_OK);
    assert_int_equal(mbt_calc_forward_dynamics_derivatives(f->tree, f->ctx, f->ws, f->tau, NULL, X[s][2], X[s][3],
                                                           X[s][4]),
                     MBT_OK);
  }
  /* ∂tau has no solve: 1e-12. ∂v̇ and M⁻¹ are solutions with M, whose round-off grows with its
   * condition number: 1e-12 or 2·cond₁(M)·ε, whichever is larger (cond₁ = |M|₁·|M⁻¹|₁ from the
   * M⁻¹ of the call; ~1e4 on the floating trees, where 2·cond₁·ε is ~4e-12). */
  mbt_real* M = calloc(nn, sizeof *M);
  assert_int_equal(mbt_calc_mass_matrix(f->tree, f->ctx, M), MBT_OK);
  const double cond1 = matrix_norm1(M, nv) * matrix_norm1(X[0][4], nv);
  free(M);
  const char* what[5] = {"dtau_dq", "dtau_dv", "dvdot_dq", "dvdot_dv", "Minv"};
  for (int i = 0; i < 5; ++i) {
    char label[96];
    snprintf(label, sizeof label, "%s: %s", name, what[i]);
    const double scale = tu_max_abs(X[0][i], nv * nv), tol = i < 2 ? 1e-12 : fmax(1e-12, 2 * cond1 * DBL_EPSILON);
    for (int e = 0; e < nv * nv; ++e) tu_assert_rel(X[1][i][e], X[0][i][e], scale, tol, label);
  }
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 5; ++i) free(X[s][i]);
}
static void test_kernels_agree(void** state) {
  (void)state;
  for_each_tree(check_kernels);
}
/* The same with the AVX2 copy of the passes where the processor would take the AVX-512 one (the
 * four-lane kernels run in both, compiled for each). */
static void check_kernels_avx2(fx* f, const char* name) {
  f->ws->avx512 = false;
  check_kernels(f, name);
}
static void test_kernels_agree_avx2(void** state) {
  (void)state;
  for_each_tree(check_kernels_avx2);
}

static void test_no_allocation(void** state) {
  (void)state;
  tu_require_heap_counter();
  tu_seed(4);
  fx* f = fx_create(make_all_mobilizers_tree());
  const int nv = f->nv;
  mbt_real* X[6];
  for (int i = 0; i < 6; ++i) X[i] = calloc((size_t)nv * (size_t)nv, sizeof(mbt_real));
  mbt_real qn[TU_NMAX], vn[TU_NMAX];
  fx_randomize(f);
  tu_heap_count_begin();
  mbt_calc_inverse_dynamics_derivatives(f->tree, f->ctx, f->ws, f->vdot, f->tau, vn, X[0], X[1], X[2]);
  mbt_calc_forward_dynamics_derivatives(f->tree, f->ctx, f->ws, f->tau, vn, X[0], X[1], X[2]);
  mbt_calc_mass_matrix_inverse(f->tree, f->ctx, f->ws, X[3]);
  mbt_calc_gravity_generalized_forces_derivatives(f->tree, f->ctx, f->ws, X[3]);
  mbt_integrate_configuration(f->tree, f->q, f->v, qn);
  mbt_difference_configuration(f->tree, f->q, qn, vn);
  mbt_calc_semi_implicit_euler_step_derivatives(f->tree, f->ctx, f->ws, 0.01, f->tau, qn, vn, X[0], X[1], X[2], X[3],
                                                X[4], X[5]);
  mbt_spatial_acceleration A;
  mbt_calc_bias_spatial_acceleration(f->tree, f->ctx, f->ws, 3, mbt_vec3_make(0.1, 0.2, 0.3), &A);
  mbt_calc_jacobian_spatial_velocity_time_derivative(f->tree, f->ctx, f->ws, 3, mbt_vec3_zero(), X[0]);
  assert_int_equal(tu_heap_count_end(), 0);
  for (int i = 0; i < 6; ++i) free(X[i]);
  fx_destroy(f);
}

/* A link of the singular trees below (tu_add_link, about +y): kind 0 an ordinary one, 1 a point
 * mass on its axis (no inertia about it), 2 one turning about the same axis through the same
 * point as its parent's joint with a large inertia about it (M's round-off small against it). */
static int add_singular_tree_link(mbt_tree* tree, const char* name, int parent, int kind) {
  const int body = kind == 1   ? tu_add_link(tree, name, parent, 0.1, 1.0, 0, 0.01, 0, 0.01)
                   : kind == 2 ? tu_add_link(tree, name, parent, 0, 1.0, 0.05, 0.5, 1.0, 0.6)
                               : tu_add_link(tree, name, parent, 0.1, 1.0, 0.05, 0.01, 0.02, 0.025);
  assert_true(body > 0);
  return body;
}

/* M⁻¹ alone and ∂v̇ both fail with MBT_ERR_SINGULAR naming velocity k. */
static void expect_singular_at(fx* f, int k) {
  const int nv = f->nv;
  mbt_real* A = malloc(sizeof(mbt_real) * (size_t)(3 * nv * nv));
  char expect[64];
  snprintf(expect, sizeof expect, "singular at velocity %d", k);
  assert_int_equal(mbt_calc_mass_matrix_inverse(f->tree, f->ctx, f->ws, A), MBT_ERR_SINGULAR);
  assert_contains(mbt_context_last_error(f->ctx), expect);
  assert_int_equal(mbt_calc_forward_dynamics_derivatives(f->tree, f->ctx, f->ws, f->tau, f->vdot, A, A + nv * nv,
                                                         A + 2 * nv * nv),
                   MBT_ERR_SINGULAR);
  assert_contains(mbt_context_last_error(f->ctx), expect);
  free(A);
}

/* A planar chain of n links whose last two joints turn about the same axis through the same
 * point, the first of the two carrying a point mass on that axis (no inertia about it): M's
 * last two rows are equal to round-off, so M⁻¹ and ∂v̇ fail with MBT_ERR_SINGULAR at velocity
 * n − 2, on every path: the lists (8), the dense blocks with that pivot in a block of four (12,
 * 13) or among the nv mod 4 rows at the tip (14, 15), and with ws->avx2 cleared their baseline. */
static void test_singular_chain(void** state) {
  (void)state;
  tu_seed(5);
  const int sizes[] = {8, 12, 13, 14, 15};
  for (int s = 0; s < 5; ++s)
    for (int base = 0; base < 2; ++base) {
      const int n = sizes[s];
      mbt_tree* tree = mbt_tree_create();
      int body = 0;
      for (int i = 0; i < n; ++i) {
        char name[16];
        snprintf(name, sizeof name, "l%d", i);
        body = add_singular_tree_link(tree, name, body, i == n - 2 ? 1 : i == n - 1 ? 2 : 0);
      }
      if (mbt_tree_finalize(tree) != MBT_OK) fail_msg("finalize: %s", mbt_tree_last_error(tree));
      fx* f = fx_create(tree);
      if (base) f->ws->avx2 = f->ws->avx512 = false;
      fx_randomize(f);
      expect_singular_at(f, n - 2);
      fx_destroy(f);
    }
}

/* Revolute chains of 1 to 9 bodies: the chain's pass at v̇ by blocks of four from the tip with
 * the first one to three nodes in a block of their own (or none, or too short for a block)
 * against central differences, the exact identities and the baseline kernels. */
static void test_revolute_chains(void** state) {
  (void)state;
  tu_seed(13);
  for (int n = 1; n <= 9; ++n) {
    mbt_tree* tree = mbt_tree_create();
    tu_add_chain(tree, "r", n, false);
    if (mbt_tree_finalize(tree) != MBT_OK) fail_msg("finalize: %s", mbt_tree_last_error(tree));
    fx* f = fx_create(tree);
    char name[48];
    snprintf(name, sizeof name, "%d-body revolute chain", n);
    check_fd(f, name);
    check_kernels(f, name);
    check_kernels_avx2(f, name);
    fx_destroy(f);
  }
}

/* ∂v̇/∂(q, v) of mbt_calc_forward_dynamics_derivatives equal to −M⁻¹·∂tau/∂(q, v) formed densely,
 * ∂tau from mbt_calc_inverse_dynamics_derivatives at v̇ = FD and M⁻¹ from
 * mbt_calc_mass_matrix_inverse, to 1e-11 of the largest entry. */
static void check_fd_dense_identity(fx* f, const char* name) {
  const int nv = f->nv;
  const size_t nn = (size_t)nv * (size_t)nv;
  mbt_real *dq = calloc(nn, sizeof *dq), *dv = calloc(nn, sizeof *dv), *Mi = calloc(nn, sizeof *Mi);
  mbt_real *tq = calloc(nn, sizeof *tq), *tv = calloc(nn, sizeof *tv), *A = calloc(nn, sizeof *A);
  mbt_real vd[TU_NMAX];
  assert_int_equal(mbt_calc_forward_dynamics_derivatives(f->tree, f->ctx, f->ws, f->tau, vd, dq, dv, Mi), MBT_OK);
  assert_int_equal(mbt_calc_inverse_dynamics_derivatives(f->tree, f->ctx, f->ws, vd, f->tau, NULL, tq, tv, NULL),
                   MBT_OK);
  assert_int_equal(mbt_calc_mass_matrix_inverse(f->tree, f->ctx, f->ws, A), MBT_OK);
  double sq = 0, sv = 0;
  for (size_t i = 0; i < nn; ++i) sq = fmax(sq, fabs(dq[i])), sv = fmax(sv, fabs(dv[i]));
  for (int i = 0; i < nv; ++i)
    for (int j = 0; j < nv; ++j) {
      double pq = 0, pv = 0;
      for (int k = 0; k < nv; ++k) pq -= A[i * nv + k] * tq[k * nv + j], pv -= A[i * nv + k] * tv[k * nv + j];
      tu_assert_rel(dq[i * nv + j], pq, sq, 1e-11, name);
      tu_assert_rel(dv[i * nv + j], pv, sv, 1e-11, name);
    }
  free(dq), free(dv), free(Mi), free(tq), free(tv), free(A);
}

/* A chain of n revolute joints (random inertias, frames and axes) with springs on the first, the
 * middle and the last joint. */
static mbt_tree* make_spring_chain(int n) {
  mbt_tree* tree = mbt_tree_create();
  assert_non_null(tree);
  int parent = 0, joint[TU_NMAX];
  for (int i = 0; i < n; ++i) {
    char name[16];
    const mbt_spatial_inertia M = tu_rand_inertia();
    snprintf(name, sizeof name, "p%d", i);
    const int body = mbt_tree_add_rigid_body(tree, name, &M);
    assert_true(body > 0);
    const mbt_transform X_PF = tu_rand_transform(0.5), X_BM = tu_rand_transform(0.5);
    snprintf(name, sizeof name, "jp%d", i);
    joint[i] = mbt_tree_add_revolute_joint(tree, name, parent, &X_PF, body, &X_BM, tu_rand_unit(), 0.1);
    if (joint[i] < 0) fail_msg("joint %s: %s", name, mbt_tree_last_error(tree));
    parent = body;
  }
  for (int s = 0; s < 3; ++s) {
    char name[16];
    snprintf(name, sizeof name, "spring%d", s);
    const int j = joint[s == 0 ? 0 : s == 1 ? n / 2 : n - 1];
    assert_true(mbt_tree_add_revolute_spring(tree, name, j, 0.3 * s, 0.7 + s) >= 0);
  }
  if (mbt_tree_finalize(tree) != MBT_OK) fail_msg("finalize: %s", mbt_tree_last_error(tree));
  return tree;
}

/* Revolute chains just below and above the lengths from which ∂v̇ is formed by the structured
 * products (mbt__chain_products: 16 velocities with AVX-512, 24 with AVX2 alone, 28 on the
 * baseline), with damping, springs on three joints, tau_app, random states and a locked joint,
 * with AVX-512 (where the processor has it), AVX2 alone and the baseline: −M⁻¹·∂tau formed
 * densely (check_fd_dense_identity), and on one chain central differences and the other
 * identities (check_fd). */
static void test_chain_products(void** state) {
  (void)state;
  tu_seed(17);
  const int lengths[] = {15, 16, 23, 24, 27, 28, 33};
  for (int c = 0; c < 7; ++c) {
    const int n = lengths[c];
    fx* f = fx_create(make_spring_chain(n));
    assert_true(mbt__chain_products(f->ws) == (n >= (!f->ws->avx2 ? 28 : f->ws->avx512 ? 16 : 24)));
    const bool avx2 = f->ws->avx2, avx512 = f->ws->avx512;
    for (int t = 0; t < 6; ++t) { /* with the processor's kernels, with AVX2 alone, the baseline */
      char name[64];
      f->ws->avx2 = avx2 && t % 3 < 2, f->ws->avx512 = avx512 && t % 3 == 0;
      fx_randomize(f);
      if (t >= 3) { /* a joint locked in the middle (its v zeroed) */
        assert_int_equal(mbt_joint_lock(f->ctx, n / 3), MBT_OK);
        memcpy(f->v, mbt_context_v(f->ctx), sizeof(mbt_real) * (size_t)f->nv);
      }
      snprintf(name, sizeof name, "%d-body chain, products (%s)%s", n,
               f->ws->avx512 ? "AVX-512" : f->ws->avx2 ? "AVX2" : "baseline", t >= 3 ? ", locked" : "");
      check_fd_dense_identity(f, name);
      if (t >= 3) assert_int_equal(mbt_joint_unlock(f->ctx, n / 3), MBT_OK);
    }
    f->ws->avx2 = avx2, f->ws->avx512 = avx512;
    if (n == 23) check_fd(f, "23-body chain, products");
    fx_destroy(f);
  }
}

/* No heap allocation on the structured products' path (a 33-body chain), alone and through the
 * step. */
static void test_chain_products_no_allocation(void** state) {
  (void)state;
  tu_require_heap_counter();
  tu_seed(19);
  fx* f = fx_create(make_spring_chain(33));
  assert_true(mbt__chain_products(f->ws));
  const int nv = f->nv;
  mbt_real *X[6], qn[TU_NMAX], vn[TU_NMAX];
  for (int i = 0; i < 6; ++i) X[i] = calloc((size_t)nv * (size_t)nv, sizeof(mbt_real));
  fx_randomize(f);
  tu_heap_count_begin();
  assert_int_equal(mbt_calc_forward_dynamics_derivatives(f->tree, f->ctx, f->ws, f->tau, vn, X[0], X[1], X[2]),
                   MBT_OK);
  assert_int_equal(mbt_calc_semi_implicit_euler_step_derivatives(f->tree, f->ctx, f->ws, 0.01, f->tau, qn, vn, X[0],
                                                                 X[1], X[2], X[3], X[4], X[5]),
                   MBT_OK);
  assert_int_equal(tu_heap_count_end(), 0);
  for (int i = 0; i < 6; ++i) free(X[i]);
  fx_destroy(f);
}

/* A floating base with `legs` legs of the given numbers of revolute velocities each (random
 * inertias and frames). */
static mbt_tree* make_legged_tree(int legs, const int* len) {
  mbt_tree* tree = mbt_tree_create();
  const int base = tu_add_body_with_mobilizer(tree, "base", 0, MBT_MOBILIZER_QUATERNION_FLOATING, false);
  assert_true(base > 0);
  for (int b = 0; b < legs; ++b)
    for (int t = 0, parent = base; t < len[b]; ++t) {
      char name[32];
      snprintf(name, sizeof name, "leg%d_%d", b, t);
      parent = tu_add_body_with_mobilizer(tree, name, parent, MBT_MOBILIZER_REVOLUTE, false);
      assert_true(parent > 0);
    }
  if (mbt_tree_finalize(tree) != MBT_OK) fail_msg("finalize: %s", mbt_tree_last_error(tree));
  return tree;
}

/* M⁻¹ and ∂v̇ with the legs in lanes (ws->legs) equal those of the general LᵀDL path to round-off
 * (the tolerance of check_kernels), and M·M⁻¹ = I to 1e-11. */
static void check_equal_legs(fx* f, const char* name, int legs, int leg_len) {
  const int nv = f->nv;
  const size_t nn = (size_t)nv * (size_t)nv;
  f->ws->minv_ltdl = true;  /* the kernel is taken on the LᵀDL path */
  mbt__equal_legs(f->ws, &f->ws->legs, &f->ws->leg_len);
  assert_int_equal(f->ws->legs, legs);
  assert_int_equal(f->ws->leg_len, leg_len);
  mbt_real* X[2][3];
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 3; ++i) X[s][i] = calloc(nn, sizeof(mbt_real));
  mbt_real vd[2][TU_NMAX];
  fx_randomize(f);
  for (int s = 0; s < 2; ++s) {
    f->ws->legs = s == 0 ? 0 : legs;  /* s = 0: the general path */
    assert_int_equal(mbt_calc_forward_dynamics_derivatives(f->tree, f->ctx, f->ws, f->tau, vd[s], X[s][0], X[s][1],
                                                           X[s][2]),
                     MBT_OK);
  }
  mbt_real* M = calloc(nn, sizeof *M);
  assert_int_equal(mbt_calc_mass_matrix(f->tree, f->ctx, M), MBT_OK);
  const double cond1 = matrix_norm1(M, nv) * matrix_norm1(X[0][2], nv), tol = fmax(1e-12, 2 * cond1 * DBL_EPSILON);
  for (int i = 0; i < 3; ++i) {
    const double scale = tu_max_abs(X[0][i], nv * nv);
    for (size_t e = 0; e < nn; ++e) tu_assert_rel(X[1][i][e], X[0][i][e], scale, tol, name);
  }
  for (int k = 0; k < nv; ++k) tu_assert_rel(vd[1][k], vd[0][k], tu_max_abs(vd[0], nv), 1e-12, name);
  for (int i = 0; i < nv; ++i)
    for (int j = 0; j < nv; ++j) {
      double mm = 0;
      for (int k = 0; k < nv; ++k) mm += M[i * nv + k] * X[1][2][k * nv + j];
      tu_assert_rel(mm, i == j, 1, 1e-11, name);
    }
  /* M⁻¹ on its own, and with ws->avx2 cleared (the general path's baseline). */
  assert_int_equal(mbt_calc_mass_matrix_inverse(f->tree, f->ctx, f->ws, M), MBT_OK);
  assert_matrix_near(M, X[1][2], nv, 1e-12, "Minv", name);
  f->ws->avx2 = f->ws->avx512 = false;
  assert_int_equal(mbt_calc_mass_matrix_inverse(f->tree, f->ctx, f->ws, M), MBT_OK);
  for (size_t e = 0; e < nn; ++e) tu_assert_rel(M[e], X[0][2][e], tu_max_abs(X[0][2], nv * nv), tol, name);
  free(M);
  for (int s = 0; s < 2; ++s)
    for (int i = 0; i < 3; ++i) free(X[s][i]);
}

/* Solo12 and built floating bases with 2, 3 and 4 equal legs of 1 to 4 velocities take the
 * kernel; unequal legs, more than four legs or legs of more than four velocities do not. */
static void test_equal_legs(void** state) {
  (void)state;
  tu_seed(12);
  fx* f = fx_create(load_model("solo12", tu_model_flags("solo12") | MBT_URDF_FLOATING));
  check_equal_legs(f, "solo12", 4, 3);
  fx_destroy(f);
  const struct {
    int legs, len[6], expect_legs, expect_len;
  } cases[] = {
      {2, {3, 3}, 2, 3},          {3, {2, 2, 2}, 3, 2},          {4, {4, 4, 4, 4}, 4, 4},
      {4, {1, 1, 1, 1}, 4, 1},    {4, {3, 3, 2, 3}, 0, 0},       {6, {3, 3, 3, 3, 3, 3}, 0, 0},
      {2, {5, 5}, 0, 0},          {3, {3, 3, 4}, 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    char name[64];
    snprintf(name, sizeof name, "%d legs of %d, %d, ... velocities", cases[i].legs, cases[i].len[0], cases[i].len[1]);
    f = fx_create(make_legged_tree(cases[i].legs, cases[i].len));
    check_equal_legs(f, name, cases[i].expect_legs, cases[i].expect_len);
    fx_destroy(f);
  }
}

/* Four legs of three links on a floating base, leg 2's middle link a point mass on its axis and
 * its tip turning about the same axis through the same point (large inertia about it, so that
 * M's round-off is small against the pivot's terms, as in test_singular_chain): M is singular at
 * velocity 13; the legs' kernel hands the call to the general path, which names it. */
static void test_equal_legs_singular(void** state) {
  (void)state;
  tu_seed(13);
  mbt_tree* tree = mbt_tree_create();
  const int base = tu_add_body_with_mobilizer(tree, "base", 0, MBT_MOBILIZER_QUATERNION_FLOATING, false);
  assert_true(base > 0);
  for (int b = 0; b < 4; ++b)
    for (int t = 0, parent = base; t < 3; ++t) {
      char name[32];
      snprintf(name, sizeof name, "leg%d_%d", b, t);
      parent = add_singular_tree_link(tree, name, parent, b == 2 ? t : 0);
    }
  if (mbt_tree_finalize(tree) != MBT_OK) fail_msg("finalize: %s", mbt_tree_last_error(tree));
  fx* f = fx_create(tree);
  f->ws->minv_ltdl = true;
  mbt__equal_legs(f->ws, &f->ws->legs, &f->ws->leg_len);
  assert_int_equal(f->ws->legs, 4);
  fx_randomize(f);
  expect_singular_at(f, 13);
  fx_destroy(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_id_derivatives),          cmocka_unit_test(test_dv_identities),
      cmocka_unit_test(test_fd_derivatives),          cmocka_unit_test(test_fd_derivatives_locked),
      cmocka_unit_test(test_gravity_derivatives),     cmocka_unit_test(test_integrate_configuration),
      cmocka_unit_test(test_step_derivatives),        cmocka_unit_test(test_errors),
      cmocka_unit_test(test_bias_acceleration),       cmocka_unit_test(test_kernels_agree),
      cmocka_unit_test(test_no_allocation),           cmocka_unit_test(test_kernels_agree_avx2),
      cmocka_unit_test(test_singular_chain),          cmocka_unit_test(test_revolute_chains),
      cmocka_unit_test(test_equal_legs),              cmocka_unit_test(test_equal_legs_singular),
      cmocka_unit_test(test_chain_products),          cmocka_unit_test(test_chain_products_no_allocation),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
