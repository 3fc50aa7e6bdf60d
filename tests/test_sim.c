/* Time integration (mbt/sim.h):
 *   - a conservative double pendulum keeps its energy to 1e-8 relative over 10 s with rk45 at
 *     rtol = atol = 1e-12;
 *   - a simple pendulum's period matches 4·sqrt(L/g)·K(sin(θ0/2)) to 1e-6;
 *   - a torque-free axisymmetric rigid body keeps its angular momentum about its center of mass
 *     to 1e-10 and follows the analytical precession of ω in the body frame;
 *   - RK4 is fourth order (error ratio in [13, 19] when the step halves), Euler first order;
 *   - semi-implicit Euler keeps the energy bounded while explicit Euler's grows;
 *   - the joint-limit penalty holds a joint at its limit; the observer can stop a run;
 *   - names, options, landing on t_final, errors, and no allocation while stepping. */
#include "support/test_util.h"

#define G0 9.81

TU_DEFINE_HEAP_COUNTER();

/* ---- models ----------------------------------------------------------------------------- */
/* A uniform-ish link of mass m and length L hanging along −z of its frame from Bo, rotational
 * inertia I about its center of mass (diag(Ixx, Iyy, Izz)). */
static mbt_spatial_inertia link_inertia(mbt_real m, mbt_real L, mbt_real Ixx, mbt_real Iyy, mbt_real Izz) {
  const mbt_rotational_inertia I = {Ixx, Iyy, Izz, 0, 0, 0};
  return mbt_spatial_inertia_from_com(m, mbt_vec3_make(0, 0, -L / 2), &I);
}

/* Double pendulum in the xz plane: joints about y, link 1 of length 1 m, link 2 hinged at its
 * end. No damping: conservative under gravity. */
static mbt_tree* double_pendulum(void) {
  mbt_tree* tree = mbt_tree_create();
  const mbt_spatial_inertia M1 = link_inertia(1.0, 1.0, 0.09, 0.085, 0.005);
  const mbt_spatial_inertia M2 = link_inertia(0.7, 0.8, 0.04, 0.038, 0.003);
  const int l1 = mbt_tree_add_rigid_body(tree, "link1", &M1);
  const int l2 = mbt_tree_add_rigid_body(tree, "link2", &M2);
  const mbt_mat3 I3 = mbt_mat3_identity();
  const mbt_transform X_P2 = mbt_transform_make(&I3, mbt_vec3_make(0, 0, -1));
  assert_true(mbt_tree_add_revolute_joint(tree, "shoulder", 0, NULL, l1, NULL, mbt_vec3_make(0, 1, 0), 0) >= 0);
  assert_true(mbt_tree_add_revolute_joint(tree, "elbow", l1, &X_P2, l2, NULL, mbt_vec3_make(0, 1, 0), 0) >= 0);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  return tree;
}

/* A point mass m at distance L below a pin about y: a simple pendulum. */
static mbt_tree* simple_pendulum(mbt_real L, mbt_real lower, mbt_real upper) {
  mbt_tree* tree = mbt_tree_create();
  const mbt_spatial_inertia M = mbt_spatial_inertia_point_mass(1.5, mbt_vec3_make(0, 0, -L));
  const int bob = mbt_tree_add_rigid_body(tree, "bob", &M);
  assert_true(bob > 0);
  assert_true(mbt_tree_add_revolute_joint_with_limits(tree, "pin", 0, NULL, bob, NULL, mbt_vec3_make(0, 1, 0), lower,
                                                      upper, 0) >= 0);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  return tree;
}

static double total_energy(const mbt_tree* tree, mbt_context* ctx) {
  mbt_real K = 0, U = 0;
  assert_int_equal(mbt_calc_kinetic_energy(tree, ctx, &K), MBT_OK);
  assert_int_equal(mbt_calc_potential_energy(tree, ctx, &U), MBT_OK);
  return K + U;
}

/* ---- energy of a conservative double pendulum -------------------------------------------- */
typedef struct {
  const mbt_tree* tree;
  double E0, max_dev, last_t;
  long calls;
  bool monotonic;
} energy_watch;

static bool watch_energy(const mbt_context* ctx, void* data) {
  energy_watch* w = data;
  mbt_context* c = (mbt_context*)ctx; /* the energy functions fill caches */
  const double E = total_energy(w->tree, c);
  if (w->calls == 0) w->E0 = E;
  w->max_dev = fmax(w->max_dev, fabs(E - w->E0));
  const double t = mbt_context_time(ctx);
  if (w->calls > 0 && !(t > w->last_t)) w->monotonic = false;
  w->last_t = t;
  ++w->calls;
  return true;
}

static void test_double_pendulum_energy_rk45(void** state) {
  (void)state;
  mbt_tree* tree = double_pendulum();
  mbt_context* ctx = mbt_context_create(tree);
  const mbt_real x0[4] = {1.2, -0.7, 0.5, 1.5};
  assert_int_equal(mbt_context_set_x(ctx, x0, 4), MBT_OK);
  mbt_simulator_options o = mbt_simulator_default_options();
  o.integrator = MBT_INTEGRATOR_RK45;
  o.rtol = 1e-12;
  o.atol = 1e-12;
  o.dt = 0.05;
  mbt_simulator* sim = mbt_simulator_create(tree, ctx, &o);
  assert_non_null(sim);
  energy_watch w = {tree, 0, 0, -1, 0, true};
  mbt_simulator_set_observer(sim, watch_energy, &w);
  assert_int_equal(mbt_simulator_advance_to(sim, 10.0), MBT_OK);
  const mbt_simulator_stats s = mbt_simulator_get_stats(sim);
  const double rel = w.max_dev / fabs(w.E0);
  print_message("double pendulum rk45 (1e-12): E0 = %.6f J, max |E − E0|/|E0| = %.2e over 10 s, %ld steps, "
                "%ld rejected, %ld evaluations\n", w.E0, rel, s.steps_taken, s.steps_rejected,
                s.dynamics_evaluations);
  assert_true(fabs(w.E0) > 1);
  assert_true(rel <= 1e-8);
  /* Observer at t0 and after every accepted step, times increasing, the end exactly at 10. */
  assert_int_equal(w.calls, s.steps_taken + 1);
  assert_true(w.monotonic);
  assert_true(mbt_context_time(mbt_simulator_context(sim)) == 10.0);
  /* The motion is not trivial: the elbow swung through large angles. */
  assert_true(s.steps_taken > 1000);
  /* The simulator works on its own copy: ctx did not move. */
  assert_true(mbt_context_q(ctx)[0] == 1.2 && mbt_context_time(ctx) == 0);
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

/* ---- simple pendulum period --------------------------------------------------------------- */
/* K(k) = π / (2·AGM(1, sqrt(1 − k²))), the complete elliptic integral of the first kind. */
static double elliptic_K(double k) {
  double a = 1, b = sqrt(1 - k * k);
  for (int i = 0; i < 50 && fabs(a - b) > 1e-16 * a; ++i) {
    const double an = (a + b) / 2;
    b = sqrt(a * b);
    a = an;
  }
  return TU_PI / (2 * a);
}

typedef struct {
  double t, th, thd;  /* the previous sample */
  bool have;
  double crossings[8];
  int n;
} crossing_watch;

/* Zero crossings of θ between accepted steps, from the cubic Hermite interpolant of (θ, θ̇). */
static bool watch_crossings(const mbt_context* ctx, void* data) {
  crossing_watch* w = data;
  const double t = mbt_context_time(ctx), th = mbt_context_q(ctx)[0], thd = mbt_context_v(ctx)[0];
  if (w->have && w->n < 8 && ((w->th > 0) != (th > 0))) {
    const double h = t - w->t;
    double lo = 0, hi = 1;
    for (int it = 0; it < 200; ++it) {
      const double s = (lo + hi) / 2;
      const double h00 = 2 * s * s * s - 3 * s * s + 1, h10 = s * s * s - 2 * s * s + s;
      const double h01 = -2 * s * s * s + 3 * s * s, h11 = s * s * s - s * s;
      const double p = h00 * w->th + h10 * h * w->thd + h01 * th + h11 * h * thd;
      if ((p > 0) == (w->th > 0)) lo = s;
      else hi = s;
    }
    w->crossings[w->n++] = w->t + h * (lo + hi) / 2;
  }
  w->t = t;
  w->th = th;
  w->thd = thd;
  w->have = true;
  return true;
}

static void test_simple_pendulum_period(void** state) {
  (void)state;
  const double L = 0.8, theta0 = 2.0; /* a large amplitude: the small-angle period is 18% off */
  mbt_tree* tree = simple_pendulum(L, -INFINITY, INFINITY);
  mbt_context* ctx = mbt_context_create(tree);
  mbt_context_mutable_q(ctx)[0] = theta0;
  mbt_simulator_options o = mbt_simulator_default_options();
  o.rtol = 1e-11;
  o.atol = 1e-11;
  o.dt = 0.01;
  mbt_simulator* sim = mbt_simulator_create(tree, ctx, &o);
  crossing_watch w;
  memset(&w, 0, sizeof w);
  mbt_simulator_set_observer(sim, watch_crossings, &w);
  const double T = 4 * sqrt(L / G0) * elliptic_K(sin(theta0 / 2));
  assert_int_equal(mbt_simulator_advance_to(sim, 2.2 * T), MBT_OK);
  /* Crossings at T/4, 3T/4, 5T/4, 7T/4. */
  assert_true(w.n >= 4);
  const double T1 = w.crossings[2] - w.crossings[0], T2 = w.crossings[3] - w.crossings[1];
  const double e1 = fabs(T1 - T) / T, e2 = fabs(T2 - T) / T, e_quarter = fabs(w.crossings[0] - T / 4) / T;
  print_message("pendulum θ0 = %.1f rad: T = %.12f s (closed form), measured %.12f, %.12f: relative errors "
                "%.2e, %.2e; first crossing %.2e (small-angle period %.6f)\n", theta0, T, T1, T2, e1, e2, e_quarter,
                2 * TU_PI * sqrt(L / G0));
  assert_true(e1 <= 1e-6 && e2 <= 1e-6 && e_quarter <= 1e-6);
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

/* ---- torque-free rigid body ------------------------------------------------------------------ */
typedef struct {
  const mbt_tree* tree;
  int body;
  mbt_vec3 h0;           /* angular momentum about the center of mass, in W, at t0 */
  double max_dh, max_dw, max_qnorm;
  double I1, I3;
  mbt_vec3 w0_B;         /* ω in B at t0 */
  bool have;
} rigid_watch;

static mbt_vec3 angular_momentum_about_com(const mbt_tree* tree, mbt_context* ctx) {
  mbt_vec3 p_WScm;
  assert_int_equal(mbt_calc_center_of_mass_position(tree, ctx, &p_WScm), MBT_OK);
  mbt_spatial_momentum L;
  assert_int_equal(mbt_calc_spatial_momentum_in_world_about_point(tree, ctx, p_WScm, &L), MBT_OK);
  return L.h;
}

/* ω_B(t) = (ω⊥·cos(λt + φ), ω⊥·sin(λt + φ), ω3), λ = (I3 − I1)/I1·ω3 (Euler's equations with
 * I1 = I2 [Goldstein, Classical Mechanics, §5.6]). */
static bool watch_rigid(const mbt_context* ctx, void* data) {
  rigid_watch* w = data;
  mbt_context* c = (mbt_context*)ctx;
  const mbt_vec3 h = angular_momentum_about_com(w->tree, c);
  mbt_transform X_WB;
  mbt_spatial_velocity V_WB;
  assert_int_equal(mbt_context_body_pose_in_world(w->tree, c, w->body, &X_WB), MBT_OK);
  assert_int_equal(mbt_context_body_spatial_velocity_in_world(w->tree, c, w->body, &V_WB), MBT_OK);
  const mbt_vec3 w_B = mbt_mat3_tmul_vec(&X_WB.R, V_WB.w);
  if (!w->have) {
    w->h0 = h;
    w->w0_B = w_B;
    w->have = true;
  }
  w->max_dh = fmax(w->max_dh, mbt_vec3_norm(mbt_vec3_sub(h, w->h0)));
  const double t = mbt_context_time(ctx);
  const double w3 = w->w0_B.v[2], lambda = (w->I3 - w->I1) / w->I1 * w3;
  const double c0 = cos(lambda * t), s0 = sin(lambda * t);
  const mbt_vec3 w_exact = mbt_vec3_make(c0 * w->w0_B.v[0] - s0 * w->w0_B.v[1], s0 * w->w0_B.v[0] + c0 * w->w0_B.v[1], w3);
  w->max_dw = fmax(w->max_dw, mbt_vec3_norm(mbt_vec3_sub(w_B, w_exact)));
  const mbt_real* q = mbt_context_q(ctx);
  w->max_qnorm = fmax(w->max_qnorm, fabs(sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) - 1));
  return true;
}

static void test_torque_free_rigid_body(void** state) {
  (void)state;
  const double m = 2.0, I1 = 0.3, I3 = 0.5; /* oblate: I3 <= 2·I1 (triangle inequality) */
  mbt_tree* tree = mbt_tree_create();
  assert_int_equal(mbt_tree_set_gravity(tree, mbt_vec3_zero()), MBT_OK);
  const mbt_rotational_inertia I = {I1, I1, I3, 0, 0, 0};
  /* Center of mass away from Bo: the body origin wobbles while the com drifts uniformly. */
  const mbt_spatial_inertia M = mbt_spatial_inertia_from_com(m, mbt_vec3_make(0.1, -0.2, 0.05), &I);
  const int body = mbt_tree_add_rigid_body(tree, "top", &M);
  assert_true(body > 0);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  assert_int_equal(mbt_tree_num_velocities(tree), 6);
  mbt_context* ctx = mbt_context_create(tree);
  /* q = [unit quaternion; p_WB], v = [w_WB_W; v_WBo_W] with ω_B = (1, 0.5, 2). */
  mbt_real* q = mbt_context_mutable_q(ctx);
  mbt_quat qq = mbt_quat_make(0.9, 0.2, -0.3, 0.25);
  assert_int_equal(mbt_quat_normalize(&qq), MBT_OK);
  q[0] = qq.w, q[1] = qq.x, q[2] = qq.y, q[3] = qq.z, q[4] = 0.3, q[5] = -0.1, q[6] = 0.2;
  const mbt_mat3 R_WB = mbt_rotation_from_quat(qq);
  const mbt_vec3 w_W = mbt_mat3_mul_vec(&R_WB, mbt_vec3_make(1.0, 0.5, 2.0));
  mbt_real* v = mbt_context_mutable_v(ctx);
  v[0] = w_W.v[0], v[1] = w_W.v[1], v[2] = w_W.v[2], v[3] = 0.1, v[4] = 0.2, v[5] = -0.3;
  mbt_simulator_options o = mbt_simulator_default_options();
  o.rtol = 1e-12;
  o.atol = 1e-12;
  o.dt = 0.01;
  mbt_simulator* sim = mbt_simulator_create(tree, ctx, &o);
  rigid_watch w;
  memset(&w, 0, sizeof w);
  w.tree = tree;
  w.body = body;
  w.I1 = I1;
  w.I3 = I3;
  mbt_simulator_set_observer(sim, watch_rigid, &w);
  assert_int_equal(mbt_simulator_advance_to(sim, 5.0), MBT_OK);
  const double h0 = mbt_vec3_norm(w.h0);
  print_message("torque-free body: max |h − h0|/|h0| = %.2e, max |ω_B − ω_exact| = %.2e rad/s (λ = %.1f rad/s), "
                "max ||q| − 1| = %.1e, %ld steps\n", w.max_dh / h0, w.max_dw, (I3 - I1) / I1 * 2.0, w.max_qnorm,
                mbt_simulator_get_stats(sim).steps_taken);
  assert_true(w.max_dh <= 1e-10 * h0);
  assert_true(w.max_dw <= 1e-8);
  assert_true(w.max_qnorm <= 1e-14);
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

/* ---- convergence orders --------------------------------------------------------------------- */
/* x(T) of the double pendulum with a fixed step h. */
static void run_fixed(mbt_integrator_type type, double h, double T, mbt_real* x) {
  mbt_tree* tree = double_pendulum();
  mbt_context* ctx = mbt_context_create(tree);
  const mbt_real x0[4] = {1.0, 0.5, 0.0, -0.5};
  mbt_context_set_x(ctx, x0, 4);
  mbt_simulator_options o = mbt_simulator_default_options();
  o.integrator = type;
  o.dt = h;
  mbt_simulator* sim = mbt_simulator_create(tree, ctx, &o);
  assert_non_null(sim);
  assert_int_equal(mbt_simulator_advance_to(sim, T), MBT_OK);
  assert_int_equal(mbt_simulator_get_stats(sim).steps_taken, (long)llround(T / h));
  assert_int_equal(mbt_context_get_x(mbt_simulator_context(sim), x, 4), MBT_OK);
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

static void reference_solution(double T, mbt_real* x) {
  mbt_tree* tree = double_pendulum();
  mbt_context* ctx = mbt_context_create(tree);
  const mbt_real x0[4] = {1.0, 0.5, 0.0, -0.5};
  mbt_context_set_x(ctx, x0, 4);
  mbt_simulator_options o = mbt_simulator_default_options();
  o.rtol = 1e-14;
  o.atol = 1e-14;
  o.dt = 0.01;
  mbt_simulator* sim = mbt_simulator_create(tree, ctx, &o);
  assert_int_equal(mbt_simulator_advance_to(sim, T), MBT_OK);
  mbt_context_get_x(mbt_simulator_context(sim), x, 4);
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

static void test_convergence_orders(void** state) {
  (void)state;
  const double T = 1.0;
  mbt_real xr[4], x1[4], x2[4], x3[4];
  reference_solution(T, xr);
  /* RK4: h = 1/40, 1/80, 1/160. */
  run_fixed(MBT_INTEGRATOR_RK4, T / 40, T, x1);
  run_fixed(MBT_INTEGRATOR_RK4, T / 80, T, x2);
  run_fixed(MBT_INTEGRATOR_RK4, T / 160, T, x3);
  const double e1 = tu_max_abs_diff(x1, xr, 4), e2 = tu_max_abs_diff(x2, xr, 4), e3 = tu_max_abs_diff(x3, xr, 4);
  print_message("rk4 errors at T = 1 s: h = 1/40: %.3e, 1/80: %.3e, 1/160: %.3e; ratios %.2f, %.2f\n", e1, e2, e3,
                e1 / e2, e2 / e3);
  assert_true(e1 / e2 >= 13 && e1 / e2 <= 19);
  assert_true(e2 / e3 >= 13 && e2 / e3 <= 19);
  /* Explicit and semi-implicit Euler: first order (ratio ≈ 2). */
  run_fixed(MBT_INTEGRATOR_EXPLICIT_EULER, T / 2000, T, x1);
  run_fixed(MBT_INTEGRATOR_EXPLICIT_EULER, T / 4000, T, x2);
  const double r_euler = tu_max_abs_diff(x1, xr, 4) / tu_max_abs_diff(x2, xr, 4);
  run_fixed(MBT_INTEGRATOR_SEMI_IMPLICIT_EULER, T / 2000, T, x1);
  run_fixed(MBT_INTEGRATOR_SEMI_IMPLICIT_EULER, T / 4000, T, x2);
  const double r_semi = tu_max_abs_diff(x1, xr, 4) / tu_max_abs_diff(x2, xr, 4);
  print_message("euler ratio %.3f, semi-implicit euler ratio %.3f\n", r_euler, r_semi);
  assert_true(r_euler >= 1.8 && r_euler <= 2.2);
  assert_true(r_semi >= 1.8 && r_semi <= 2.2);
}

/* ---- energy behavior of the Euler methods --------------------------------------------------- */
typedef struct {
  const mbt_tree* tree;
  double E0, T_half, dev_first, dev_second;
  bool have;
} euler_watch;

static bool watch_euler(const mbt_context* ctx, void* data) {
  euler_watch* w = data;
  const double E = total_energy(w->tree, (mbt_context*)ctx);
  if (!w->have) {
    w->E0 = E;
    w->have = true;
  }
  const double d = fabs(E - w->E0);
  if (mbt_context_time(ctx) <= w->T_half) w->dev_first = fmax(w->dev_first, d);
  else w->dev_second = fmax(w->dev_second, d);
  return true;
}

static void euler_energy(mbt_integrator_type type, euler_watch* w) {
  mbt_tree* tree = simple_pendulum(1.0, -INFINITY, INFINITY);
  mbt_context* ctx = mbt_context_create(tree);
  mbt_context_mutable_q(ctx)[0] = 1.0;
  mbt_simulator_options o = mbt_simulator_default_options();
  o.integrator = type;
  o.dt = 0.01;
  mbt_simulator* sim = mbt_simulator_create(tree, ctx, &o);
  memset(w, 0, sizeof *w);
  w->tree = tree;
  w->T_half = 20;
  mbt_simulator_set_observer(sim, watch_euler, w);
  assert_int_equal(mbt_simulator_advance_to(sim, 40), MBT_OK);
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

static void test_semi_implicit_euler_energy_bounded(void** state) {
  (void)state;
  euler_watch semi, expl;
  euler_energy(MBT_INTEGRATOR_SEMI_IMPLICIT_EULER, &semi);
  euler_energy(MBT_INTEGRATOR_EXPLICIT_EULER, &expl);
  const double E0 = fabs(semi.E0);
  print_message("pendulum, h = 0.01, 40 s: semi-implicit Euler max |ΔE|/|E0| %.2e (0–20 s), %.2e (20–40 s); "
                "explicit Euler %.2e, %.2e\n", semi.dev_first / E0, semi.dev_second / E0, expl.dev_first / E0,
                expl.dev_second / E0);
  /* Bounded: symplectic Euler conserves a modified energy H + O(h), so |ΔE| stays below
   * h·ω·ΔE_swing with ω = sqrt(g/L) and ΔE_swing = m·g·L·(1 − cos θ0) the energy exchanged
   * in a swing; and it does not grow from the first half to the second. */
  const double swing = 1.5 * G0 * 1.0 * (1 - cos(1.0));
  assert_true(semi.dev_second <= 0.01 * sqrt(G0 / 1.0) * swing);
  assert_true(semi.dev_second <= 1.2 * semi.dev_first);
  /* Explicit Euler gains energy steadily (the comparison can fail). */
  assert_true(expl.dev_second >= 1.5 * expl.dev_first);
  assert_true(expl.dev_second >= 10 * semi.dev_second);
}

/* ---- joint-limit penalty ----------------------------------------------------------------------- */
static void push_control(mbt_real t, const mbt_real* q, const mbt_real* v, mbt_real* tau, void* data) {
  (void)t, (void)q, (void)v;
  tau[0] = *(const mbt_real*)data;
}

typedef struct {
  double q_max;
} limit_watch;

static bool watch_limit(const mbt_context* ctx, void* data) {
  limit_watch* w = data;
  w->q_max = fmax(w->q_max, mbt_context_q(ctx)[0]);
  return true;
}

/* A pendulum pushed by a constant torque against its upper limit 0.5 rad, gravity off. */
static void run_limit(mbt_real k, mbt_real c, double* q_final, double* q_max, long* events) {
  mbt_tree* tree = simple_pendulum(0.5, -0.5, 0.5);
  assert_int_equal(mbt_tree_set_gravity(tree, mbt_vec3_zero()), MBT_OK);
  mbt_context* ctx = mbt_context_create(tree);
  mbt_simulator* sim = mbt_simulator_create(tree, ctx, NULL);
  mbt_real push = 2.0;
  mbt_simulator_set_control(sim, push_control, &push);
  mbt_simulator_set_limit_penalty(sim, k, c);
  limit_watch w = {-1e300};
  mbt_simulator_set_observer(sim, watch_limit, &w);
  assert_int_equal(mbt_simulator_advance_to(sim, 3.0), MBT_OK);
  *q_final = mbt_context_q(mbt_simulator_context(sim))[0];
  *q_max = w.q_max;
  *events = mbt_simulator_get_stats(sim).limit_events;
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

static void test_limit_penalty(void** state) {
  (void)state;
  double q_final, q_max;
  long events;
  run_limit(1e4, 1e2, &q_final, &q_max, &events);
  /* At rest against the limit: k·δ = tau, δ = 2e-4. */
  print_message("limit 0.5 rad, push 2 N·m, k = 1e4: final q = %.6f (expected 0.5002), max %.6f, %ld limit "
                "event(s)\n", q_final, q_max, events);
  assert_true(fabs(q_final - (0.5 + 2.0 / 1e4)) <= 1e-5);
  assert_true(q_max <= 0.5 + 0.01);
  assert_true(events >= 1);
  /* Without the penalty the joint runs far past the limit. */
  run_limit(0, 0, &q_final, &q_max, &events);
  print_message("without the penalty: final q = %.3f\n", q_final);
  assert_true(q_final > 5);
  assert_int_equal(events, 1);
}

/* ---- observer stop, landing on t_final, names, options, errors ------------------------------- */
static bool stop_after_five(const mbt_context* ctx, void* data) {
  (void)ctx;
  int* calls = data;
  return ++*calls < 5;
}

static void test_observer_stop(void** state) {
  (void)state;
  mbt_tree* tree = double_pendulum();
  mbt_context* ctx = mbt_context_create(tree);
  for (int type = 0; type < MBT_INTEGRATOR_NUM_TYPES; ++type) {
    mbt_simulator_options o = mbt_simulator_default_options();
    o.integrator = (mbt_integrator_type)type;
    mbt_simulator* sim = mbt_simulator_create(tree, ctx, &o);
    int calls = 0;
    mbt_simulator_set_observer(sim, stop_after_five, &calls);
    assert_int_equal(mbt_simulator_advance_to(sim, 1.0), MBT_ERR_INTERRUPTED);
    assert_int_equal(calls, 5);
    /* t0 plus four accepted steps. */
    assert_int_equal(mbt_simulator_get_stats(sim).steps_taken, 4);
    assert_true(mbt_context_time(mbt_simulator_context(sim)) < 1.0);
    assert_non_null(strstr(mbt_simulator_last_error(sim), "observer stopped"));
    mbt_simulator_destroy(sim);
  }
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

static void test_lands_on_t_final(void** state) {
  (void)state;
  mbt_tree* tree = double_pendulum();
  mbt_context* ctx = mbt_context_create(tree);
  for (int type = 0; type < MBT_INTEGRATOR_NUM_TYPES; ++type) {
    mbt_simulator_options o = mbt_simulator_default_options();
    o.integrator = (mbt_integrator_type)type;
    o.dt = 0.03;
    mbt_simulator* sim = mbt_simulator_create(tree, ctx, &o);
    assert_int_equal(mbt_simulator_advance_to(sim, 0.1), MBT_OK);
    assert_true(mbt_context_time(mbt_simulator_context(sim)) == 0.1);
    if (type != MBT_INTEGRATOR_RK45) assert_int_equal(mbt_simulator_get_stats(sim).steps_taken, 4);
    /* Advancing in pieces continues from there. */
    assert_int_equal(mbt_simulator_advance_to(sim, 0.25), MBT_OK);
    assert_true(mbt_context_time(mbt_simulator_context(sim)) == 0.25);
    assert_int_equal(mbt_simulator_advance_to(sim, 0.25), MBT_OK);
    assert_int_equal(mbt_simulator_advance_to(sim, 0.2), MBT_ERR_INVALID_ARGUMENT);
    mbt_simulator_destroy(sim);
  }
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

static void test_names_and_options(void** state) {
  (void)state;
  const char* names[] = {"euler", "semi_implicit_euler", "rk4", "rk45"};
  for (int i = 0; i < 4; ++i) {
    assert_string_equal(mbt_integrator_name((mbt_integrator_type)i), names[i]);
    assert_int_equal(mbt_integrator_from_name(names[i]), i);
  }
  assert_int_equal(mbt_integrator_from_name("rk23"), -1);
  assert_int_equal(mbt_integrator_from_name(NULL), -1);
  const mbt_simulator_options d = mbt_simulator_default_options();
  assert_int_equal(d.integrator, MBT_INTEGRATOR_RK45);
  assert_true(d.dt == 1e-3 && d.rtol == 1e-6 && d.atol == 1e-8 && d.min_dt == 1e-12);

  mbt_tree* tree = double_pendulum();
  mbt_context* ctx = mbt_context_create(tree);
  mbt_simulator_options o = d;
  o.dt = 0;
  assert_null(mbt_simulator_create(tree, ctx, &o));
  assert_non_null(strstr(mbt_context_last_error(ctx), "dt"));
  o = d;
  o.atol = -1;
  assert_null(mbt_simulator_create(tree, ctx, &o));
  assert_non_null(strstr(mbt_context_last_error(ctx), "atol"));
  o = d;
  o.integrator = (mbt_integrator_type)42;
  assert_null(mbt_simulator_create(tree, ctx, &o));
  assert_null(mbt_simulator_create(tree, NULL, &d));
  mbt_simulator_destroy(NULL);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

/* The derivative ẋ = [N(q)·v; v̇] equals forward dynamics plus the control. */
static void control_const(mbt_real t, const mbt_real* q, const mbt_real* v, mbt_real* tau, void* data) {
  (void)t, (void)q, (void)v, (void)data;
  tau[0] = 0.7;
  tau[1] = -0.4;
}

static void test_time_derivatives(void** state) {
  (void)state;
  mbt_tree* tree = double_pendulum();
  mbt_context* ctx = mbt_context_create(tree);
  const mbt_real x0[4] = {0.3, -0.2, 1.1, 0.4};
  mbt_context_set_x(ctx, x0, 4);
  mbt_simulator* sim = mbt_simulator_create(tree, ctx, NULL);
  mbt_simulator_set_control(sim, control_const, NULL);
  mbt_real xdot[4], vdot[2];
  const mbt_real tau[2] = {0.7, -0.4};
  assert_int_equal(mbt_simulator_calc_time_derivatives(sim, ctx, xdot), MBT_OK);
  assert_int_equal(mbt_calc_forward_dynamics(tree, ctx, tau, NULL, vdot), MBT_OK);
  assert_true(xdot[0] == 1.1 && xdot[1] == 0.4);
  assert_true(fabs(xdot[2] - vdot[0]) <= 1e-14 && fabs(xdot[3] - vdot[1]) <= 1e-14);
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

/* A singular model: the run stops with the error naming the body; rk45 step underflow. */
static void test_errors_during_run(void** state) {
  (void)state;
  mbt_tree* tree = mbt_tree_create();
  const mbt_spatial_inertia M1 = link_inertia(1, 1, 0.1, 0.1, 0.01);
  mbt_spatial_inertia M0;
  memset(&M0, 0, sizeof M0);
  const int a = mbt_tree_add_rigid_body(tree, "arm", &M1);
  const int z = mbt_tree_add_rigid_body_unchecked(tree, "ghost", &M0);
  assert_true(mbt_tree_add_revolute_joint(tree, "j1", 0, NULL, a, NULL, mbt_vec3_make(0, 1, 0), 0) >= 0);
  assert_true(mbt_tree_add_revolute_joint(tree, "j2", a, NULL, z, NULL, mbt_vec3_make(1, 0, 0), 0) >= 0);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  mbt_context* ctx = mbt_context_create(tree);
  mbt_simulator* sim = mbt_simulator_create(tree, ctx, NULL);
  assert_int_equal(mbt_simulator_advance_to(sim, 0.1), MBT_ERR_SINGULAR);
  print_message("singular run: %s\n", mbt_simulator_last_error(sim));
  assert_non_null(strstr(mbt_simulator_last_error(sim), "body 'ghost'"));
  assert_true(mbt_context_time(mbt_simulator_context(sim)) == 0);
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);

  /* rk45 with min_dt = dt and an impossible tolerance: the step underflows. */
  tree = double_pendulum();
  ctx = mbt_context_create(tree);
  mbt_context_mutable_q(ctx)[0] = 1;
  mbt_simulator_options o = mbt_simulator_default_options();
  o.rtol = 0;
  o.atol = 1e-300;
  o.dt = 0.1;
  o.min_dt = 0.01;
  sim = mbt_simulator_create(tree, ctx, &o);
  assert_int_equal(mbt_simulator_advance_to(sim, 1), MBT_ERR_SINGULAR);
  print_message("underflow: %s\n", mbt_simulator_last_error(sim));
  assert_non_null(strstr(mbt_simulator_last_error(sim), "underflow"));
  assert_true(mbt_simulator_get_stats(sim).steps_rejected > 0);
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

/* ---- no allocation while stepping ------------------------------------------------------------ */
static void test_no_allocations_while_stepping(void** state) {
  (void)state;
  tu_require_heap_counter();
  tu_seed(8);
  mbt_tree* tree = tu_make_branched_tree();
  mbt_context* ctx = mbt_context_create(tree);
  tu_rand_state(tree, ctx);
  for (int type = 0; type < MBT_INTEGRATOR_NUM_TYPES; ++type) {
    mbt_simulator_options o = mbt_simulator_default_options();
    o.integrator = (mbt_integrator_type)type;
    mbt_simulator* sim = mbt_simulator_create(tree, ctx, &o);
    assert_non_null(sim);
    tu_heap_count_begin();
    const int st = mbt_simulator_advance_to(sim, 0.05);
    const long n = tu_heap_count_end();
    assert_int_equal(st, MBT_OK);
    print_message("%s: %ld steps, %ld allocations\n", mbt_integrator_name(o.integrator),
                  mbt_simulator_get_stats(sim).steps_taken, n);
    assert_int_equal(n, 0);
    mbt_simulator_destroy(sim);
  }
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_double_pendulum_energy_rk45),
      cmocka_unit_test(test_simple_pendulum_period),
      cmocka_unit_test(test_torque_free_rigid_body),
      cmocka_unit_test(test_convergence_orders),
      cmocka_unit_test(test_semi_implicit_euler_energy_bounded),
      cmocka_unit_test(test_limit_penalty),
      cmocka_unit_test(test_observer_stop),
      cmocka_unit_test(test_lands_on_t_final),
      cmocka_unit_test(test_names_and_options),
      cmocka_unit_test(test_time_derivatives),
      cmocka_unit_test(test_errors_during_run),
      cmocka_unit_test(test_no_allocations_while_stepping),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
