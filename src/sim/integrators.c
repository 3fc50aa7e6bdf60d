/* integrators.c: one-step methods for x = [q; v], ẋ = f(t, x) = [N(q)·v; v̇]
 * [Hairer, Nørsett & Wanner, Solving ODEs I, 2nd ed., §II.1, §II.4, §II.5]:
 *   "euler"                x⁺ = x + h·f(t, x)
 *   "semi_implicit_euler"  v⁺ = v + h·v̇(t, q, v),  q⁺ = q + h·N(q)·v⁺  (symplectic Euler)
 *   "rk4"                  the classic 4-stage Runge–Kutta method, order 4
 *   "rk45"                 Dormand–Prince 5(4) with FSAL, local extrapolation (the 5th-order
 *                          solution is kept), error control and a PI step-size controller;
 *   "time_stepping"        semi-implicit Euler with contact impulses (contact_step.c).
 * Fixed-step methods take steps of opt.dt; the last step of every method is shortened to land
 * exactly on t_final. */
#include <math.h>
#include <string.h>

#include "sim/sim_internal.h"

/* ---- Dormand–Prince 5(4) tableau [Dormand & Prince 1980; Hairer I, Table II.5.2] ---------- */
static const mbt_real DP_C[7] = {0, 1.0 / 5, 3.0 / 10, 4.0 / 5, 8.0 / 9, 1, 1};
static const mbt_real DP_A[7][6] = {
    {0},
    {1.0 / 5},
    {3.0 / 40, 9.0 / 40},
    {44.0 / 45, -56.0 / 15, 32.0 / 9},
    {19372.0 / 6561, -25360.0 / 2187, 64448.0 / 6561, -212.0 / 729},
    {9017.0 / 3168, -355.0 / 33, 46732.0 / 5247, 49.0 / 176, -5103.0 / 18656},
    {35.0 / 384, 0, 500.0 / 1113, 125.0 / 192, -2187.0 / 6784, 11.0 / 84}};
/* E = b − b̂: the difference of the 5th- and 4th-order weights (error estimate). */
static const mbt_real DP_E[7] = {71.0 / 57600,      0,           -71.0 / 16695, 71.0 / 1920,
                                 -17253.0 / 339200, 22.0 / 525, -1.0 / 40};

/* Step-size controller: safety 0.9, factor in [0.2, 5]; PI controller
 * h⁺ = h·0.9·err^(−α)·err_prev^β with α = 0.7/5, β = 0.4/5 [Hairer II, §IV.2, (2.43c)];
 * after a rejection h⁺ = h·max(0.2, 0.9·err^(−1/5)) and the next accepted step may not grow. */
#define RK45_SAFETY 0.9
#define RK45_FACTOR_MIN 0.2
#define RK45_FACTOR_MAX 5.0
#define RK45_ALPHA (0.7 / 5)
#define RK45_BETA (0.4 / 5)
#define RK45_ERR_PREV_MIN 1e-4

/* y = x + h·Σ_{j<ns} a_j·k_j */
static void combine(int nx, mbt_real* y, const mbt_real* x, mbt_real h, int ns, const mbt_real* a,
                    mbt_real* const* k) {
  for (int i = 0; i < nx; ++i) {
    mbt_real s = 0;
    for (int j = 0; j < ns; ++j) s += a[j] * k[j][i];
    y[i] = x[i] + h * s;
  }
}

static bool all_finite(const mbt_real* x, int n) {
  for (int i = 0; i < n; ++i)
    if (!mbt_isfinite(x[i])) return false;
  return true;
}

/* ---- fixed-step methods: sim->x at t → sim->xn at t + h ---------------------------------- */
static int step_euler(mbt_simulator* sim, mbt_real t, mbt_real h) {
  int st = mbt__sim_eval(sim, t, sim->x, sim->k[0]);
  if (st) return st;
  const mbt_real one = 1;
  combine(sim->nx, sim->xn, sim->x, h, 1, &one, sim->k);
  return MBT_OK;
}

static int step_semi_implicit_euler(mbt_simulator* sim, mbt_real t, mbt_real h) {
  const int nq = sim->nq, nv = sim->nv;
  int st = mbt__sim_eval(sim, t, sim->x, sim->k[0]);
  if (st) return st;
  /* v⁺ = v + h·v̇ */
  for (int i = 0; i < nv; ++i) sim->xn[nq + i] = sim->x[nq + i] + h * sim->k[0][nq + i];
  /* q⁺ = q + h·N(q)·v⁺: the work context still holds q. */
  st = mbt_map_velocity_to_qdot(sim->tree, sim->work, sim->xn + nq, sim->k[1]);
  if (st) return mbt__sim_error(sim, st, "t = %g: %s", mbt_value(t), mbt_context_last_error(sim->work));
  for (int i = 0; i < nq; ++i) sim->xn[i] = sim->x[i] + h * sim->k[1][i];
  return MBT_OK;
}

/* k1 = f(t, x), k2 = f(t + h/2, x + h/2·k1), k3 = f(t + h/2, x + h/2·k2), k4 = f(t + h, x + h·k3),
 * x⁺ = x + h/6·(k1 + 2·k2 + 2·k3 + k4). */
static int step_rk4(mbt_simulator* sim, mbt_real t, mbt_real h) {
  static const mbt_real a2[1] = {0.5}, a3[2] = {0, 0.5}, a4[3] = {0, 0, 1};
  static const mbt_real b[4] = {1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6};
  const int nx = sim->nx;
  int st = mbt__sim_eval(sim, t, sim->x, sim->k[0]);
  if (!st) {
    combine(nx, sim->xs, sim->x, h, 1, a2, sim->k);
    st = mbt__sim_eval(sim, t + h / 2, sim->xs, sim->k[1]);
  }
  if (!st) {
    combine(nx, sim->xs, sim->x, h, 2, a3, sim->k);
    st = mbt__sim_eval(sim, t + h / 2, sim->xs, sim->k[2]);
  }
  if (!st) {
    combine(nx, sim->xs, sim->x, h, 3, a4, sim->k);
    st = mbt__sim_eval(sim, t + h, sim->xs, sim->k[3]);
  }
  if (st) return st;
  combine(nx, sim->xn, sim->x, h, 4, b, sim->k);
  return MBT_OK;
}

static int integrate_fixed(mbt_simulator* sim, mbt_real t_final) {
  const mbt_real t0 = mbt_context_time(sim->ctx), dt = sim->opt.dt;
  mbt_real t = t0;
  for (long n = 1; mbt_lt(t, t_final); ++n) {
    /* The last step lands on t_final (a remainder within rounding of dt is one full step). */
    const bool last = mbt_le(t_final - t, dt * (1 + 1e-10));
    const mbt_real h = last ? t_final - t : dt;
    int st;
    switch (sim->opt.integrator) {
      case MBT_INTEGRATOR_EXPLICIT_EULER: st = step_euler(sim, t, h); break;
      case MBT_INTEGRATOR_SEMI_IMPLICIT_EULER: st = step_semi_implicit_euler(sim, t, h); break;
      case MBT_INTEGRATOR_TIME_STEPPING: st = mbt__step_time_stepping(sim, t, h); break;
      default: st = step_rk4(sim, t, h); break;
    }
    if (st) return st;
    if (!all_finite(sim->xn, sim->nx))
      return mbt__sim_error(sim, MBT_ERR_SINGULAR,
                            "%s: the state is no longer finite after the step from t = %g with h = %g "
                            "(the step is too large for this system; reduce dt)",
                            mbt_integrator_name(sim->opt.integrator), mbt_value(t), mbt_value(h));
    /* t_n = t0 + n·dt, so rounding does not accumulate over many steps. */
    const mbt_real t_new = last ? t_final : t0 + (mbt_real)n * dt;
    st = mbt__sim_accept(sim, t_new);
    if (st) return st;
    t = t_new;
  }
  return MBT_OK;
}

/* ---- Dormand–Prince 5(4) ------------------------------------------------------------------ */
/* err = sqrt(1/nx · Σ (e_i / (atol + rtol·max(|x_i|, |x⁺_i|)))²) with e = h·Σ E_j·k_j. */
static mbt_real rk45_error_norm(const mbt_simulator* sim, mbt_real h) {
  const int nx = sim->nx;
  if (nx == 0) return 0;
  mbt_real sum = 0;
  for (int i = 0; i < nx; ++i) {
    mbt_real e = 0;
    for (int j = 0; j < 7; ++j) e += DP_E[j] * sim->k[j][i];
    e *= h;
    const mbt_real sc = sim->opt.atol + sim->opt.rtol * mbt_max(mbt_abs(sim->x[i]), mbt_abs(sim->xn[i]));
    const mbt_real r = e / sc;
    sum += r * r;
  }
  return mbt_sqrt(sum / nx);
}

static int integrate_rk45(mbt_simulator* sim, mbt_real t_final) {
  const mbt_real dt_max = sim->opt.dt;
  const int nx = sim->nx;
  mbt_real t = mbt_context_time(sim->ctx);
  mbt_real h = mbt_lt(0, sim->h_next) ? mbt_min(sim->h_next, dt_max) : dt_max;
  bool rejected = false;
  if (!sim->fsal_valid && mbt_lt(t, t_final)) {
    int st = mbt__sim_eval(sim, t, sim->x, sim->k[0]);
    if (st) return st;
    sim->fsal_valid = true;
  }
  while (mbt_lt(t, t_final)) {
    if (mbt_lt(h, sim->opt.min_dt))
      return mbt__sim_error(sim, MBT_ERR_SINGULAR,
                            "rk45: step size underflow at t = %g: h = %g < min_dt = %g (rtol %g, atol %g)",
                            mbt_value(t), mbt_value(h), mbt_value(sim->opt.min_dt), mbt_value(sim->opt.rtol),
                            mbt_value(sim->opt.atol));
    const bool last = mbt_le(t_final - t, h);
    const mbt_real hs = last ? t_final - t : h;
    /* Stages 2..7; stage 7 is at (t + h, x⁺) and becomes k1 of the next step (FSAL). */
    for (int s = 1; s < 7; ++s) {
      mbt_real* y = s == 6 ? sim->xn : sim->xs;
      combine(nx, y, sim->x, hs, s, DP_A[s], sim->k);
      int st = mbt__sim_eval(sim, t + DP_C[s] * hs, y, sim->k[s]);
      if (st) return st;
    }
    const mbt_real err = rk45_error_norm(sim, hs);
    if (mbt_le(err, 1)) {
      mbt_real factor = RK45_FACTOR_MAX;
      if (mbt_lt(0, err))
        factor = RK45_SAFETY * pow(mbt_value(err), -RK45_ALPHA) * pow(mbt_value(sim->err_prev), RK45_BETA);
      factor = mbt_min(RK45_FACTOR_MAX, mbt_max(RK45_FACTOR_MIN, factor));
      if (rejected) factor = mbt_min(factor, 1);
      sim->err_prev = mbt_max(err, RK45_ERR_PREV_MIN);
      /* A step shortened to land on t_final keeps the controller's h for the next call. */
      if (!last || mbt_lt(h, hs * factor)) h = mbt_min(hs * factor, dt_max);
      rejected = false;
      mbt_real* k_new = sim->k[6];
      sim->k[6] = sim->k[0];
      sim->k[0] = k_new;
      const mbt_real t_new = last ? t_final : t + hs;
      sim->h_next = h;
      int st = mbt__sim_accept(sim, t_new);
      if (st) return st;
      t = t_new;
    } else {
      ++sim->stats.steps_rejected;
      mbt_real factor = RK45_FACTOR_MIN;
      if (mbt_isfinite(err)) factor = mbt_max(RK45_FACTOR_MIN, RK45_SAFETY * pow(mbt_value(err), -0.2));
      h = hs * mbt_min(factor, 1);
      rejected = true;
    }
  }
  sim->h_next = h;
  return MBT_OK;
}

int mbt__integrate_to(mbt_simulator* sim, mbt_real t_final) {
  if (sim->opt.integrator == MBT_INTEGRATOR_RK45) return integrate_rk45(sim, t_final);
  return integrate_fixed(sim, t_final);
}

/* ---- names ---------------------------------------------------------------------------------- */
static const char* const INTEGRATOR_NAMES[MBT_INTEGRATOR_NUM_TYPES] = {"euler", "semi_implicit_euler", "rk4",
                                                                       "rk45", "time_stepping"};

const char* mbt_integrator_name(mbt_integrator_type type) {
  if ((int)type < 0 || type >= MBT_INTEGRATOR_NUM_TYPES) return "unknown";
  return INTEGRATOR_NAMES[type];
}

int mbt_integrator_from_name(const char* name) {
  if (!name) return -1;
  for (int i = 0; i < MBT_INTEGRATOR_NUM_TYPES; ++i)
    if (strcmp(name, INTEGRATOR_NAMES[i]) == 0) return i;
  return -1;
}
