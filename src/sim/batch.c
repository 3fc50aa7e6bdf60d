/* batch.c: batched evaluation and rollouts (mbt/batch.h) on a small pool of POSIX threads.
 *
 * Why POSIX threads and not OpenMP: the pool is created once with its contexts (so a batched
 * call allocates nothing and starts no thread), it works with every compiler and sanitizer
 * the project builds with (libgomp is not instrumented for ThreadSanitizer), and a program
 * linking libmbt statically needs only -pthread, no OpenMP runtime.
 *
 * A job is N independent items. Threads take the next chunk of items from one atomic counter
 * (dynamic scheduling: which thread computes an item changes from run to run, the item's
 * result does not, because every item is computed from its own inputs in a context whose
 * state is set first and whose caches are then recomputed). The calling thread is thread 0. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim/batch_internal.h"

int mbt__batch_error(mbt_batch* b, int status, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->error, sizeof b->error, fmt, ap);
  va_end(ap);
  return status;
}

/* ---- the pool ------------------------------------------------------------------------ */
static void record_failure(mbt_batch* b, int thread, int item, int status, const char* msg) {
  batch_failure* f = &b->fail[thread];
  if (f->item >= 0 && f->item < item) return;
  f->item = item;
  f->status = status;
  snprintf(f->msg, sizeof f->msg, "%s", msg);
}

/* The next chunk [start, end) of the current call, false when none is left. Guided sizes: a
 * quarter of the remaining items' share per thread, between 1 and b->chunk, so that the last
 * chunks are short and the threads finish together. */
static bool take_chunk(mbt_batch* b, int* start, int* end) {
  int s = atomic_load_explicit(&b->next, memory_order_relaxed);
  for (;;) {
    if (s >= b->n) return false;
    const int share = (b->n - s) / (4 * b->num_threads);
    const int c = share < 1 ? 1 : share > b->chunk ? b->chunk : share;
    if (atomic_compare_exchange_weak_explicit(&b->next, &s, s + c, memory_order_relaxed, memory_order_relaxed)) {
      *start = s;
      *end = s + c;
      return true;
    }
  }
}

static void run_items(mbt_batch* b, int thread) {
  char msg[MBT_ERROR_MAX];
  int start, end;
  while (take_chunk(b, &start, &end))
    for (int k = start; k < end; ++k) {
      msg[0] = '\0';
      const int st = b->fn(b, thread, k, msg, sizeof msg);
      if (st != MBT_OK) record_failure(b, thread, k, st, msg);
    }
}

/* Spinning: a thread that has just finished its part of a call keeps polling for a while
 * before it sleeps on a condition variable, so that back-to-back calls (a controller's loop)
 * do not pay a wake-up through the kernel each time (tens of µs on a VM, more under load). */
static const double kSpinSeconds = 50e-6;

static double mono_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/* Polls until the value of *x differs from `than` (want_change) or equals it (!want_change),
 * for at most kSpinSeconds. */
static void spin_while(const atomic_ulong* x, unsigned long than, bool want_change) {
  const double until = mono_seconds() + kSpinSeconds;
  for (int i = 0;; ++i) {
    if ((atomic_load_explicit(x, memory_order_acquire) != than) == want_change) return;
    cpu_relax();
    if ((i & 63) == 63 && mono_seconds() > until) return;
  }
}

/* A worker: waits for the next call (generation), joins it if it is still open, takes chunks
 * of items until none is left. A worker that wakes after the call has finished does nothing,
 * so the caller never waits for a worker the scheduler has not run yet. */
static void* worker_main(void* arg) {
  const mbt_batch_worker* w = arg;
  mbt_batch* b = w->batch;
  unsigned long seen = 0;
  pthread_mutex_lock(&b->lock);
  ++b->ready;
  pthread_cond_signal(&b->idle);
  for (;;) {
    pthread_mutex_unlock(&b->lock);
    spin_while(&b->generation, seen, true);
    pthread_mutex_lock(&b->lock);
    while (!b->quit && atomic_load(&b->generation) == seen) pthread_cond_wait(&b->wake, &b->lock);
    if (b->quit) break;
    seen = atomic_load(&b->generation);
    if (!b->open) continue;
    atomic_fetch_add(&b->active, 1);
    pthread_mutex_unlock(&b->lock);
    run_items(b, w->thread);
    pthread_mutex_lock(&b->lock);
    if (atomic_fetch_sub(&b->active, 1) == 1) pthread_cond_signal(&b->idle);
  }
  pthread_mutex_unlock(&b->lock);
  return NULL;
}

/* Runs fn over items 0 … n−1 on all threads; returns MBT_OK or the lowest-numbered failure
 * ("<what> k: message" in the batch's error). The call is open from the broadcast until the
 * caller has run out of items; it then waits only for the workers that joined. */
static int run_job(mbt_batch* b, batch_item_fn fn, const void* job, int n, int chunk, const char* what) {
  b->fn = fn;
  b->job = job;
  b->n = n;
  b->chunk = chunk;
  atomic_store(&b->next, 0);
  atomic_store(&b->stop, false);
  for (int t = 0; t < b->num_threads; ++t) b->fail[t].item = -1;
  pthread_mutex_lock(&b->lock);
  b->open = true;
  atomic_fetch_add(&b->generation, 1);
  pthread_cond_broadcast(&b->wake);
  pthread_mutex_unlock(&b->lock);
  run_items(b, 0);
  pthread_mutex_lock(&b->lock);
  b->open = false;
  pthread_mutex_unlock(&b->lock);
  spin_while(&b->active, 0, false);
  pthread_mutex_lock(&b->lock);
  while (atomic_load(&b->active) > 0) pthread_cond_wait(&b->idle, &b->lock);
  pthread_mutex_unlock(&b->lock);
  const batch_failure* first = NULL;
  for (int t = 0; t < b->num_threads; ++t)
    if (b->fail[t].item >= 0 && (!first || b->fail[t].item < first->item)) first = &b->fail[t];
  if (!first) return MBT_OK;
  return mbt__batch_error(b, first->status, "%s %d: %s", what, first->item, first->msg);
}

void mbt_batch_destroy(mbt_batch* b) {
  if (!b) return;
  if (b->sync_ready) {
    pthread_mutex_lock(&b->lock);
    b->quit = true;
    pthread_cond_broadcast(&b->wake);
    pthread_mutex_unlock(&b->lock);
    for (int t = 0; t < b->num_started; ++t) pthread_join(b->threads[t], NULL);
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->wake);
    pthread_cond_destroy(&b->idle);
  }
  for (int t = 0; b->ctx && t < b->num_threads; ++t) mbt_context_destroy(b->ctx[t]);
  for (int t = 0; b->ws && t < b->num_threads; ++t) mbt_derivatives_workspace_destroy(b->ws[t]);
  for (int t = 0; b->scratch && t < b->num_threads; ++t) free(b->scratch[t]);
  free(b->scratch);
  free(b->ctx);
  free(b->ws);
  free(b->threads);
  free(b->workers);
  free(b->fail);
  free(b);
}

static int default_thread_count(void) {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > MBT_BATCH_MAX_THREADS ? MBT_BATCH_MAX_THREADS : (int)n;
}

static bool batch_start_threads(mbt_batch* b) {
  if (pthread_mutex_init(&b->lock, NULL) != 0) return false;
  if (pthread_cond_init(&b->wake, NULL) != 0) {
    pthread_mutex_destroy(&b->lock);
    return false;
  }
  if (pthread_cond_init(&b->idle, NULL) != 0) {
    pthread_cond_destroy(&b->wake);
    pthread_mutex_destroy(&b->lock);
    return false;
  }
  b->sync_ready = true;
  for (int t = 1; t < b->num_threads; ++t) {
    b->workers[t - 1] = (mbt_batch_worker){b, t};
    if (pthread_create(&b->threads[t - 1], NULL, worker_main, &b->workers[t - 1]) != 0) return false;
    ++b->num_started;
  }
  /* Return once every worker has started (a thread's start-up is the batch's set-up, not a
   * batched call's). */
  pthread_mutex_lock(&b->lock);
  while (b->ready < b->num_started) pthread_cond_wait(&b->idle, &b->lock);
  pthread_mutex_unlock(&b->lock);
  return true;
}

mbt_batch* mbt_batch_create(const mbt_tree* tree, int num_threads) {
  if (!tree) return NULL;
  if (!mbt_tree_is_finalized(tree)) {
    mbt__tree_error(tree, MBT_ERR_NOT_FINALIZED, "mbt_batch_create: the tree is not finalized");
    return NULL;
  }
  if (num_threads <= 0) num_threads = default_thread_count();
  if (num_threads > MBT_BATCH_MAX_THREADS) num_threads = MBT_BATCH_MAX_THREADS;
  mbt_batch* b = calloc(1, sizeof *b);
  if (!b) {
    mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "mbt_batch_create: out of memory");
    return NULL;
  }
  b->tree = tree;
  b->num_threads = num_threads;
  b->ctx = calloc((size_t)num_threads, sizeof *b->ctx);
  b->ws = calloc((size_t)num_threads, sizeof *b->ws);
  b->scratch = calloc((size_t)num_threads, sizeof *b->scratch);
  b->threads = calloc((size_t)num_threads, sizeof *b->threads);
  b->workers = calloc((size_t)num_threads, sizeof *b->workers);
  b->fail = calloc((size_t)num_threads, sizeof *b->fail);
  /* the step derivatives' six nv×nv blocks */
  const size_t scratch_bytes = (6 * (size_t)tree->nv * (size_t)tree->nv + 1) * sizeof(mbt_real);
  bool ok = b->ctx && b->ws && b->scratch && b->threads && b->workers && b->fail;
  for (int t = 0; ok && t < num_threads; ++t)
    ok = (b->ctx[t] = mbt_context_create(tree)) && (b->ws[t] = mbt_derivatives_workspace_create(tree)) &&
         (b->scratch[t] = malloc(scratch_bytes));
  if (!ok) {
    mbt_batch_destroy(b);
    mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "mbt_batch_create: out of memory");
    return NULL;
  }
  if (!batch_start_threads(b)) {
    mbt_batch_destroy(b);
    mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "mbt_batch_create: cannot start %d threads", num_threads);
    return NULL;
  }
  return b;
}

int mbt_batch_num_threads(const mbt_batch* b) { return b ? b->num_threads : 0; }
const mbt_tree* mbt_batch_tree(const mbt_batch* b) { return b ? b->tree : NULL; }
const char* mbt_batch_last_error(const mbt_batch* b) { return b ? b->error : "batch is NULL"; }

int mbt_batch_set_parameters(mbt_batch* b, const mbt_context* ctx) {
  if (!b) return MBT_ERR_INVALID_ARGUMENT;
  if (!ctx || mbt_context_tree(ctx) != b->tree)
    return mbt__batch_error(b, MBT_ERR_INVALID_ARGUMENT,
                       "mbt_batch_set_parameters: the context is NULL or belongs to another tree");
  for (int t = 0; t < b->num_threads; ++t) {
    const int st = mbt_context_copy_state(b->ctx[t], ctx);
    if (st) return mbt__batch_error(b, st, "mbt_batch_set_parameters: %s", mbt_context_last_error(b->ctx[t]));
  }
  return MBT_OK;
}

/* ---- batched evaluation --------------------------------------------------------------- */
void mbt__batch_fill_nan(mbt_real* x, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = NAN;
}

int mbt__batch_finish_item(mbt_batch* b, int thread, int k, int st, char* msg, size_t msg_size) {
  const mbt__batch_eval_job* j = b->job;
  if (j->status) j->status[k] = st;
  if (st != MBT_OK) snprintf(msg, msg_size, "%s", mbt_context_last_error(b->ctx[thread]));
  return st;
}

/* A state's single-output row: NaN if it failed. */
static int finish_row(mbt_batch* b, int thread, int k, int st, mbt_real* row, size_t row_size, char* msg,
                      size_t msg_size) {
  if (st != MBT_OK) mbt__batch_fill_nan(row, row_size);
  return mbt__batch_finish_item(b, thread, k, st, msg, msg_size);
}

static int item_inverse_dynamics(mbt_batch* b, int thread, int k, char* msg, size_t msg_size) {
  const mbt__batch_eval_job* j = b->job;
  const size_t nq = (size_t)b->tree->nq, nv = (size_t)b->tree->nv;
  mbt_context* ctx = b->ctx[thread];
  mbt_real* tau = (mbt_real*)j->out + (size_t)k * nv;
  int st = mbt_context_set_x(ctx, j->in + (size_t)k * (nq + nv), (int)(nq + nv));
  if (!st) st = mbt_calc_inverse_dynamics_with_gravity(b->tree, ctx, j->in2 ? j->in2 + (size_t)k * nv : NULL, tau);
  return finish_row(b, thread, k, st, tau, nv, msg, msg_size);
}

static int item_mass_matrix(mbt_batch* b, int thread, int k, char* msg, size_t msg_size) {
  const mbt__batch_eval_job* j = b->job;
  const size_t nq = (size_t)b->tree->nq, nv = (size_t)b->tree->nv;
  mbt_context* ctx = b->ctx[thread];
  mbt_real* M = (mbt_real*)j->out + (size_t)k * nv * nv;
  int st = mbt_context_set_q(ctx, j->in + (size_t)k * nq, (int)nq);
  if (!st) st = mbt_calc_mass_matrix(b->tree, ctx, M);
  return finish_row(b, thread, k, st, M, nv * nv, msg, msg_size);
}

static int item_forward_dynamics(mbt_batch* b, int thread, int k, char* msg, size_t msg_size) {
  const mbt__batch_eval_job* j = b->job;
  const size_t nq = (size_t)b->tree->nq, nv = (size_t)b->tree->nv;
  mbt_context* ctx = b->ctx[thread];
  mbt_real* vdot = (mbt_real*)j->out + (size_t)k * nv;
  int st = mbt_context_set_x(ctx, j->in + (size_t)k * (nq + nv), (int)(nq + nv));
  if (!st) st = mbt_calc_forward_dynamics(b->tree, ctx, j->in2 ? j->in2 + (size_t)k * nv : NULL, NULL, vdot);
  return finish_row(b, thread, k, st, vdot, nv, msg, msg_size);
}

static int item_forward_kinematics(mbt_batch* b, int thread, int k, char* msg, size_t msg_size) {
  const mbt__batch_eval_job* j = b->job;
  const mbt_tree* tree = b->tree;
  const size_t nq = (size_t)tree->nq, nb = (size_t)tree->num_bodies;
  mbt_context* ctx = b->ctx[thread];
  mbt_transform* X = (mbt_transform*)j->out + (size_t)k * nb;
  int st = mbt_context_set_q(ctx, j->in + (size_t)k * nq, (int)nq);
  if (!st) st = mbt_calc_forward_kinematics(tree, ctx);
  for (int body = 0; !st && body < (int)nb; ++body)
    st = mbt_context_body_pose_in_world(tree, ctx, body, &X[mbt_tree_body_node(tree, body)]);
  return finish_row(b, thread, k, st, (mbt_real*)X, nb * sizeof(mbt_transform) / sizeof(mbt_real), msg,
                     msg_size);
}

int mbt__batch_run_eval(mbt_batch* b, const char* fn_name, batch_item_fn fn, int n, const mbt__batch_eval_job* job) {
  if (!b) return MBT_ERR_INVALID_ARGUMENT;
  if (n < 0 || (n > 0 && !job->in))
    return mbt__batch_error(b, MBT_ERR_INVALID_ARGUMENT, "%s: n = %d < 0 or a NULL input array", fn_name, n);
  /* Chunks of at most 64 states: large enough that the counter is not contended, small
   * enough to balance the load (take_chunk shrinks them towards the end). */
  return run_job(b, fn, job, n, 64, "state");
}

static int run_eval(mbt_batch* b, const char* fn_name, batch_item_fn fn, int n, const mbt_real* in,
                    const mbt_real* in2, void* out, int* status) {
  if (b && n > 0 && !out)
    return mbt__batch_error(b, MBT_ERR_INVALID_ARGUMENT, "%s: the output array is NULL", fn_name);
  const mbt__batch_eval_job job = {.in = in, .in2 = in2, .out = out, .status = status};
  return mbt__batch_run_eval(b, fn_name, fn, n, &job);
}

int mbt_batch_calc_inverse_dynamics(mbt_batch* b, int n, const mbt_real* x, const mbt_real* vdot, mbt_real* tau,
                                    int* status) {
  return run_eval(b, "mbt_batch_calc_inverse_dynamics", item_inverse_dynamics, n, x, vdot, tau, status);
}

int mbt_batch_calc_mass_matrix(mbt_batch* b, int n, const mbt_real* q, mbt_real* M, int* status) {
  return run_eval(b, "mbt_batch_calc_mass_matrix", item_mass_matrix, n, q, NULL, M, status);
}

int mbt_batch_calc_forward_dynamics(mbt_batch* b, int n, const mbt_real* x, const mbt_real* tau_applied,
                                    mbt_real* vdot, int* status) {
  return run_eval(b, "mbt_batch_calc_forward_dynamics", item_forward_dynamics, n, x, tau_applied, vdot, status);
}

int mbt_batch_calc_forward_kinematics(mbt_batch* b, int n, const mbt_real* q, mbt_transform* X_WB, int* status) {
  return run_eval(b, "mbt_batch_calc_forward_kinematics", item_forward_kinematics, n, q, NULL, X_WB, status);
}

/* ---- rollouts ------------------------------------------------------------------------- */
typedef struct {
  const mbt_simulator_options* options;
  mbt_rollout* rollouts;
  mbt_rollout_done_fn done;
  void* user_data;
} rollout_job;

static void record_sample(mbt_simulator* sim, mbt_real* row, int nx) {
  const mbt_context* ctx = mbt_simulator_context(sim);
  row[0] = mbt_context_time(ctx);
  mbt_context_get_x(ctx, row + 1, nx);
}

/* Advances sim to r->t_final, landing on the sample times if r records a trajectory. */
static int rollout_advance(mbt_simulator* sim, mbt_rollout* r, int nx) {
  if (!r->trajectory) return mbt_simulator_advance_to(sim, r->t_final);
  const mbt_real t0 = mbt_context_time(r->initial);
  const size_t row = (size_t)(1 + nx);
  mbt__batch_fill_nan(r->trajectory, (size_t)r->num_samples * row);
  record_sample(sim, r->trajectory, nx);
  for (int k = 1; k < r->num_samples; ++k) {
    const mbt_real t_k = k == r->num_samples - 1 ? r->t_final : t0 + (r->t_final - t0) * k / (r->num_samples - 1);
    const int st = mbt_simulator_advance_to(sim, t_k);
    if (st) return st;
    record_sample(sim, r->trajectory + (size_t)k * row, nx);
  }
  return MBT_OK;
}

static void run_one_rollout(mbt_batch* b, const rollout_job* j, mbt_rollout* r) {
  const int nx = b->tree->nq + b->tree->nv;
  mbt_simulator* sim = mbt_simulator_create(b->tree, r->initial, j->options);
  if (!sim) {
    r->status = MBT_ERR_NO_MEMORY;
    snprintf(r->error, sizeof r->error, "cannot create the simulator: out of memory");
    return;
  }
  mbt_simulator_set_control(sim, r->control, r->control_data);
  mbt_simulator_set_observer(sim, r->observer, r->observer_data);
  r->status = rollout_advance(sim, r, nx);
  if (r->status) snprintf(r->error, sizeof r->error, "%s", mbt_simulator_last_error(sim));
  const mbt_context* end = mbt_simulator_context(sim);
  r->t_reached = mbt_context_time(end);
  r->stats = mbt_simulator_get_stats(sim);
  if (r->x_final) mbt_context_get_x(end, r->x_final, nx);
  mbt_simulator_destroy(sim);
}

static int item_rollout(mbt_batch* b, int thread, int k, char* msg, size_t msg_size) {
  (void)thread;
  const rollout_job* j = b->job;
  mbt_rollout* r = &j->rollouts[k];
  memset(&r->stats, 0, sizeof r->stats);
  r->error[0] = '\0';
  r->t_reached = mbt_context_time(r->initial);
  if (atomic_load(&b->stop)) {
    r->status = MBT_ERR_INTERRUPTED;
    snprintf(r->error, sizeof r->error, "not started: the sweep was stopped");
  } else {
    run_one_rollout(b, j, r);
    if (j->done) {
      pthread_mutex_lock(&b->lock);
      const bool go_on = j->done(k, r, j->user_data);
      pthread_mutex_unlock(&b->lock);
      if (!go_on) atomic_store(&b->stop, true);
    }
  }
  if (r->status) snprintf(msg, msg_size, "%s", r->error);
  return r->status;
}

static int check_rollout(mbt_batch* b, const mbt_rollout* r, int k) {
  if (!r->initial || mbt_context_tree(r->initial) != b->tree)
    return mbt__batch_error(b, MBT_ERR_INVALID_ARGUMENT, "mbt_batch_rollouts: rollout %d: the initial context is NULL or "
                       "belongs to another tree", k);
  const mbt_real t0 = mbt_context_time(r->initial);
  if (!(isfinite(r->t_final) && t0 <= r->t_final))
    return mbt__batch_error(b, MBT_ERR_INVALID_ARGUMENT, "mbt_batch_rollouts: rollout %d: t_final = %g is not finite or "
                       "before the initial time %g", k, r->t_final, t0);
  if (r->trajectory && r->num_samples < 2)
    return mbt__batch_error(b, MBT_ERR_INVALID_ARGUMENT, "mbt_batch_rollouts: rollout %d: a trajectory needs "
                       "num_samples >= 2 (got %d)", k, r->num_samples);
  return MBT_OK;
}

int mbt_batch_rollouts(mbt_batch* b, const mbt_simulator_options* options, mbt_rollout* rollouts, int n,
                       mbt_rollout_done_fn done, void* user_data) {
  if (!b) return MBT_ERR_INVALID_ARGUMENT;
  if (n < 0 || (n > 0 && !rollouts))
    return mbt__batch_error(b, MBT_ERR_INVALID_ARGUMENT, "mbt_batch_rollouts: n = %d < 0 or rollouts is NULL", n);
  for (int k = 0; k < n; ++k) {
    const int st = check_rollout(b, &rollouts[k], k);
    if (st) return st;
  }
  if (n > 0) {
    /* The options are checked once here, so that no rollout fails on them. */
    mbt_simulator* probe = mbt_simulator_create(b->tree, rollouts[0].initial, options);
    if (!probe)
      return mbt__batch_error(b, MBT_ERR_INVALID_ARGUMENT, "mbt_batch_rollouts: %s",
                         mbt_context_last_error(rollouts[0].initial));
    mbt_simulator_destroy(probe);
  }
  const rollout_job job = {options, rollouts, done, user_data};
  return run_job(b, item_rollout, &job, n, 1, "rollout");
}
