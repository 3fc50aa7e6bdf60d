/* simulator.c: the simulator object (mbt/sim.h): the state derivative
 *   ẋ = [N(q)·v; v̇],  v̇ = forward dynamics with tau = u(t, q, v) + tau_limits,
 * the joint-limit penalty, accepted steps (quaternion renormalization, statistics, limit
 * events, observer) and the public API. Everything is allocated in mbt_simulator_create. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mobilizers/mobilizer_kernels.h"
#include "sim/sim_internal.h"

int mbt__sim_error(mbt_simulator* sim, int status, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sim->error, sizeof sim->error, fmt, ap);
  va_end(ap);
  return status;
}

mbt_simulator_options mbt_simulator_default_options(void) {
  mbt_simulator_options o;
  o.integrator = MBT_INTEGRATOR_RK45;
  o.dt = 1e-3;
  o.rtol = 1e-6;
  o.atol = 1e-8;
  o.min_dt = 1e-12;
  return o;
}

/* ---- the derivative ------------------------------------------------------------------------ */
/* Joint-limit penalty, one-sided, in continuous time: beyond the upper limit by δ = q − q_up,
 * tau = min(0, −k·δ − c·q̇); beyond the lower limit by δ = q_lo − q, tau = max(0, k·δ − c·q̇)
 * (the force pushes back and damps the approach, never pulls the joint outward). */
static void add_limit_penalty(const mbt_simulator* sim, const mbt_context* ctx, mbt_real* tau) {
  const mbt_real k = sim->limit_stiffness, c = sim->limit_damping;
  if (!mbt_lt(0, k) || sim->limits_in_step) return;
  for (int i = 0; i < sim->num_limits; ++i) {
    const mbt__sim_limit* L = &sim->limits[i];
    const mbt_real q = ctx->q[L->q_index], qdot = ctx->v[L->v_index];
    if (mbt_lt(L->upper, q)) {
      const mbt_real t = -k * (q - L->upper) - c * qdot;
      if (mbt_lt(t, 0)) tau[L->v_index] += t;
    } else if (mbt_lt(q, L->lower)) {
      const mbt_real t = k * (L->lower - q) - c * qdot;
      if (mbt_lt(0, t)) tau[L->v_index] += t;
    }
  }
}

/* ẋ at the state of ctx (the work context or a copy of the caller's). */
static int eval_at(mbt_simulator* sim, mbt_context* ctx, mbt_real* xdot) {
  const mbt_tree* tree = sim->tree;
  for (int i = 0; i < sim->nv; ++i) sim->tau[i] = 0;
  if (sim->control) sim->control(ctx->time, ctx->q, ctx->v, sim->tau, sim->control_data);
  add_limit_penalty(sim, ctx, sim->tau);
  ++sim->stats.dynamics_evaluations;
  int st = mbt_calc_forward_dynamics(tree, ctx, sim->tau, NULL, xdot + sim->nq);
  if (!st) st = mbt_map_velocity_to_qdot(tree, ctx, ctx->v, xdot);
  if (st) return mbt__sim_error(sim, st, "t = %g: %s", mbt_value(ctx->time), mbt_context_last_error(ctx));
  return MBT_OK;
}

int mbt__sim_eval(mbt_simulator* sim, mbt_real t, const mbt_real* x, mbt_real* xdot) {
  mbt_context_set_x(sim->work, x, sim->nx);
  mbt_context_set_time(sim->work, t);
  return eval_at(sim, sim->work, xdot);
}

/* ---- accepted steps ------------------------------------------------------------------------ */
static bool is_beyond(const mbt__sim_limit* L, mbt_real q) { return mbt_lt(L->upper, q) || mbt_lt(q, L->lower); }

static void reset_limit_state(mbt_simulator* sim) {
  for (int i = 0; i < sim->num_limits; ++i) sim->beyond[i] = is_beyond(&sim->limits[i], sim->x[sim->limits[i].q_index]);
}

static int call_observer(mbt_simulator* sim) {
  if (sim->observer && !sim->observer(sim->ctx, sim->observer_data))
    return mbt__sim_error(sim, MBT_ERR_INTERRUPTED, "the observer stopped the run at t = %g",
                          mbt_value(mbt_context_time(sim->ctx)));
  return MBT_OK;
}

int mbt__sim_accept(mbt_simulator* sim, mbt_real t) {
  const mbt_tree* tree = sim->tree;
  for (int node = 1; node < tree->num_nodes; ++node) {
    const mbt_node* n = &tree->nodes[node];
    if (n->type == MBT_MOBILIZER_QUATERNION_FLOATING) mbt__mob_normalize_q(n, sim->xn + n->q_start);
  }
  mbt_real* x = sim->xn;
  sim->xn = sim->x;
  sim->x = x;
  mbt_context_set_x(sim->ctx, sim->x, sim->nx);
  mbt_context_set_time(sim->ctx, t);
  ++sim->stats.steps_taken;
  for (int i = 0; i < sim->num_limits; ++i) {
    const bool beyond = is_beyond(&sim->limits[i], sim->x[sim->limits[i].q_index]);
    if (beyond && !sim->beyond[i]) ++sim->stats.limit_events;
    sim->beyond[i] = beyond;
  }
  return call_observer(sim);
}

/* ---- lifetime ------------------------------------------------------------------------------ */
static int check_options(const mbt_context* ctx, const mbt_simulator_options* o) {
  const char* what = "mbt_simulator_create";
  if ((int)o->integrator < 0 || o->integrator >= MBT_INTEGRATOR_NUM_TYPES)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: unknown integrator %d", what, (int)o->integrator);
  if (!(mbt_isfinite(o->dt) && mbt_lt(0, o->dt)))
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: dt must be finite and > 0 (got %g)", what,
                              mbt_value(o->dt));
  if (o->integrator == MBT_INTEGRATOR_RK45) {
    if (!(mbt_isfinite(o->rtol) && mbt_le(0, o->rtol)))
      return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: rtol must be finite and >= 0 (got %g)", what,
                                mbt_value(o->rtol));
    if (!(mbt_isfinite(o->atol) && mbt_lt(0, o->atol)))
      return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: atol must be finite and > 0 (got %g)", what,
                                mbt_value(o->atol));
    if (!(mbt_isfinite(o->min_dt) && mbt_lt(0, o->min_dt) && mbt_le(o->min_dt, o->dt)))
      return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: min_dt must be in (0, dt] (got %g, dt %g)",
                                what, mbt_value(o->min_dt), mbt_value(o->dt));
  }
  return MBT_OK;
}

/* Joints whose q̇ = v coordinate by coordinate (revolute, prismatic, screw, universal, planar)
 * get a penalty for each coordinate with a finite limit. */
static bool limits_apply(mbt_mobilizer_type type) {
  return type == MBT_MOBILIZER_REVOLUTE || type == MBT_MOBILIZER_PRISMATIC || type == MBT_MOBILIZER_SCREW ||
         type == MBT_MOBILIZER_UNIVERSAL || type == MBT_MOBILIZER_PLANAR;
}

static int count_limits(const mbt_tree* tree, mbt__sim_limit* out) {
  int count = 0;
  for (int j = 0; j < tree->num_joints; ++j) {
    const mbt_joint* J = &tree->joints[j];
    const mbt_mobilizer* m = &tree->mobilizers[J->mobilizer];
    if (!limits_apply(m->type)) continue;
    for (int k = 0; k < J->nq && k < m->nv; ++k) {
      if (!mbt_isfinite(J->pos_lower[k]) && !mbt_isfinite(J->pos_upper[k])) continue;
      if (out) {
        out[count].q_index = m->q_start + k;
        out[count].v_index = m->v_start + k;
        out[count].joint = j;
        out[count].lower = J->pos_lower[k];
        out[count].upper = J->pos_upper[k];
      }
      ++count;
    }
  }
  return count;
}

void mbt_simulator_destroy(mbt_simulator* sim) {
  if (!sim) return;
  mbt_context_destroy(sim->ctx);
  mbt_context_destroy(sim->work);
  free(sim->x);
  free(sim->xn);
  free(sim->xs);
  for (int i = 0; i < MBT__SIM_MAX_STAGES; ++i) free(sim->k[i]);
  free(sim->tau);
  free(sim->limits);
  free(sim->beyond);
  mbt__sim_contact_destroy(sim->contact);
  free(sim);
}

/* calloc of at least one element, so a tree without dofs still gets valid pointers. */
static void* alloc(size_t n, size_t size, bool* failed) {
  void* p = calloc(n ? n : 1, size);
  if (!p) *failed = true;
  return p;
}

mbt_simulator* mbt_simulator_create(const mbt_tree* tree, const mbt_context* initial,
                                    const mbt_simulator_options* options) {
  if (!tree) return NULL;
  if (!initial) {
    mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "mbt_simulator_create: the initial context is NULL");
    return NULL;
  }
  if (!tree->finalized || initial->tree != tree) {
    mbt__context_error(initial, MBT_ERR_INVALID_ARGUMENT,
                       "mbt_simulator_create: the tree is not finalized or the context belongs to another tree");
    return NULL;
  }
  const mbt_simulator_options opt = options ? *options : mbt_simulator_default_options();
  if (check_options(initial, &opt)) return NULL;

  mbt_simulator* sim = calloc(1, sizeof *sim);
  if (!sim) {
    mbt__context_error(initial, MBT_ERR_NO_MEMORY, "mbt_simulator_create: out of memory");
    return NULL;
  }
  sim->tree = tree;
  sim->opt = opt;
  sim->nq = tree->nq;
  sim->nv = tree->nv;
  sim->nx = tree->nq + tree->nv;
  sim->limit_stiffness = 1e4;
  sim->limit_damping = 1e2;
  sim->err_prev = 1e-4;
  const size_t nx = (size_t)sim->nx;
  bool failed = false;
  sim->ctx = mbt_context_clone(initial);
  sim->work = mbt_context_clone(initial);
  if (!sim->ctx || !sim->work) failed = true;
  sim->x = alloc(nx, sizeof(mbt_real), &failed);
  sim->xn = alloc(nx, sizeof(mbt_real), &failed);
  sim->xs = alloc(nx, sizeof(mbt_real), &failed);
  for (int i = 0; i < MBT__SIM_MAX_STAGES; ++i) sim->k[i] = alloc(nx, sizeof(mbt_real), &failed);
  sim->tau = alloc((size_t)sim->nv, sizeof(mbt_real), &failed);
  sim->num_limits = count_limits(tree, NULL);
  sim->limits = alloc((size_t)sim->num_limits, sizeof(mbt__sim_limit), &failed);
  sim->beyond = alloc((size_t)sim->num_limits, sizeof(bool), &failed);
  if (failed) {
    mbt_simulator_destroy(sim);
    mbt__context_error(initial, MBT_ERR_NO_MEMORY, "mbt_simulator_create: out of memory");
    return NULL;
  }
  count_limits(tree, sim->limits);
  mbt_context_get_x(sim->ctx, sim->x, sim->nx);
  return sim;
}

const char* mbt_simulator_last_error(const mbt_simulator* sim) { return sim ? sim->error : "simulator is NULL"; }

void mbt_simulator_set_control(mbt_simulator* sim, mbt_control_fn fn, void* user_data) {
  if (!sim) return;
  sim->control = fn;
  sim->control_data = user_data;
}

void mbt_simulator_set_observer(mbt_simulator* sim, mbt_observer_fn fn, void* user_data) {
  if (!sim) return;
  sim->observer = fn;
  sim->observer_data = user_data;
}

void mbt_simulator_set_limit_penalty(mbt_simulator* sim, mbt_real stiffness, mbt_real damping) {
  if (!sim) return;
  if (!(mbt_isfinite(stiffness) && mbt_le(0, stiffness) && mbt_isfinite(damping) && mbt_le(0, damping))) {
    mbt__sim_error(sim, MBT_ERR_INVALID_ARGUMENT,
                   "mbt_simulator_set_limit_penalty: stiffness and damping must be finite and >= 0 "
                   "(got %g, %g); unchanged", mbt_value(stiffness), mbt_value(damping));
    return;
  }
  sim->limit_stiffness = stiffness;
  sim->limit_damping = damping;
}

int mbt_simulator_advance_to(mbt_simulator* sim, mbt_real t_final) {
  if (!sim) return MBT_ERR_INVALID_ARGUMENT;
  const mbt_real t = mbt_context_time(sim->ctx);
  if (!mbt_isfinite(t_final) || mbt_lt(t_final, t))
    return mbt__sim_error(sim, MBT_ERR_INVALID_ARGUMENT,
                          "mbt_simulator_advance_to: t_final = %g is before the current time %g or not finite",
                          mbt_value(t_final), mbt_value(t));
  /* The user may have changed the state, parameters or locks since the last call. */
  int st = mbt_context_copy_state(sim->work, sim->ctx);
  if (st) return mbt__sim_error(sim, st, "%s", mbt_context_last_error(sim->work));
  mbt_context_get_x(sim->ctx, sim->x, sim->nx);
  sim->fsal_valid = false;
  reset_limit_state(sim);
  if (!sim->started) {
    sim->started = true;
    st = call_observer(sim);
    if (st) return st;
  }
  return mbt__integrate_to(sim, t_final);
}

mbt_context* mbt_simulator_context(mbt_simulator* sim) { return sim ? sim->ctx : NULL; }

mbt_simulator_stats mbt_simulator_get_stats(const mbt_simulator* sim) {
  if (sim) return sim->stats;
  const mbt_simulator_stats zero = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  return zero;
}

int mbt_simulator_calc_time_derivatives(mbt_simulator* sim, const mbt_context* ctx, mbt_real* xdot) {
  if (!sim) return MBT_ERR_INVALID_ARGUMENT;
  if (!ctx || !xdot || ctx->tree != sim->tree)
    return mbt__sim_error(sim, MBT_ERR_INVALID_ARGUMENT,
                          "mbt_simulator_calc_time_derivatives: NULL argument or a context of another tree");
  int st = mbt_context_copy_state(sim->work, ctx);
  if (st) return mbt__sim_error(sim, st, "%s", mbt_context_last_error(sim->work));
  sim->fsal_valid = false;
  return eval_at(sim, sim->work, xdot);
}
