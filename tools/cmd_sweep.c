/* cmd_sweep.c: `mbt sweep SPEC`: many simulations of one robot over a grid or a Monte Carlo
 * sample of initial states, parameters and PD gains (sweep_spec.c reads the spec), run on the
 * threads of an mbt_batch and, under mpirun, over MPI ranks (sweep_mpi.c). Writes one CSV
 * row per run as it finishes (a failed run is a row with its error), keeps the finished rows
 * on Ctrl-C, skips the runs already in the file when restarted, and sorts the file by run
 * at the end, so that every column but wall_time_s is the same however the sweep was run. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_commands.h"
#include "sweep.h"

static const char* const kCmd = "sweep";

static void print_help(void) {
  puts("usage: mbt sweep SPEC [options]\n"
       "\n"
       "Runs the simulations a JSON spec describes (a grid or a Monte Carlo sample over\n"
       "initial states, joint damping, masses, centers of mass, gravity and PD gains) on all\n"
       "cores, and writes one CSV row per run: its parameters, its final state, energy drift,\n"
       "largest joint torque, joint limit events, steps and wall time. A run that fails is a\n"
       "row with its error. docs/batch.md describes the spec; examples/sweep_ur5.json is one.\n"
       "\n"
       "options:\n"
       "  --out FILE.csv    the results (default out/<spec name>.csv). If FILE exists and was\n"
       "                    written by the same spec, the runs already in it are skipped.\n"
       "  --threads N       threads per process (default: one per core; 1 under MPI)\n"
       "  --mpi             split the runs over the ranks of an MPI job (implied when started\n"
       "                    by mpirun); rank 0 writes the file\n"
       "  -h, --help        this help\n"
       "\n"
       "  mpirun -n 4 mbt sweep SPEC --out FILE   gives the same file as one process.\n"
       "\n"
       "A progress bar is shown on a terminal. Ctrl-C stops cleanly: finished runs stay in the\n"
       "file (exit status 130), and running the same command again completes it.");
}

static volatile sig_atomic_t g_interrupted = 0;
static void on_sigint(int sig) {
  (void)sig;
  g_interrupted = 1;
}

/* ---- the sweep's state ---------------------------------------------------------------- */
typedef struct {
  sweep_spec spec;
  sweep_mpi mpi;
  int threads;
  const char* out_path;
  char* header;
  FILE* out;               /* rank 0 */
  char** rows;             /* rank 0: [num_runs] the line of each finished run (with '\n') */
  long rows_present;
  long errors;
  char* pending;           /* worker ranks: rows not yet sent */
  size_t pending_len, pending_cap;
  pthread_t main_thread;   /* the only thread that calls MPI (MPI_THREAD_FUNNELED) */
  bool write_failed;
  double wall_start, last_draw;
  bool tty, drawn;
} sweep_state;

/* One run in flight. */
typedef struct {
  long run;
  sweep_state* sw;
  double* values;          /* [num_params] */
  mbt_context* initial;
  mbt_context* scratch;    /* the energies at accepted steps */
  double* kp;              /* [num_dofs] each */
  double* kd;
  double* target;
  double* max_tau;
  double E0, E, drift_max, wall0, wall;
  bool started;
  int setup_status;
  char setup_error[256];
} run_state;

/* ---- CSV ------------------------------------------------------------------------------ */
typedef struct {
  char* s;
  size_t len, cap;
  bool failed;
} text;

static void text_add(text* t, const char* s) {
  const size_t n = strlen(s);
  if (t->len + n + 1 > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 256;
    while (cap < t->len + n + 1) cap *= 2;
    char* p = realloc(t->s, cap);
    if (!p) {
      t->failed = true;
      return;
    }
    t->s = p;
    t->cap = cap;
  }
  memcpy(t->s + t->len, s, n + 1);
  t->len += n;
}

static void text_num(text* t, double x) {
  char buf[40];
  text_add(t, ",");
  text_add(t, isfinite(x) ? cli_format_double(buf, sizeof buf, x) : "nan");
}

static void text_named(text* t, const char* prefix, const char* name) {
  text_add(t, ",");
  text_add(t, prefix);
  text_add(t, name);
}

/* A CSV field in quotes (RFC 4180: quotes doubled), on one line. */
static void text_quoted(text* t, const char* s) {
  text_add(t, ",\"");
  char c[2] = {0, 0};
  for (; *s; ++s) {
    c[0] = *s == '\n' || *s == '\r' ? ' ' : *s;
    text_add(t, c[0] == '"' ? "\"\"" : c);
  }
  text_add(t, "\"");
}

static char* make_header(const sweep_spec* s) {
  const mbt_tree* tree = s->model.tree;
  text t = {0};
  text_add(&t, "run,status,error");
  for (int i = 0; i < s->num_params; ++i)
    if (s->params[i].varied) text_named(&t, "", s->params[i].name);
  if (s->metrics & SWEEP_METRIC_FINAL_STATE) {
    text_add(&t, ",t_final");
    for (int i = 0; i < s->nq; ++i) text_named(&t, "q.", s->qnames[i]);
    for (int i = 0; i < s->nv; ++i) text_named(&t, "v.", s->vnames[i]);
  }
  if (s->metrics & SWEEP_METRIC_ENERGY) text_add(&t, ",energy_initial,energy_final,energy_drift,energy_drift_max_abs");
  if (s->metrics & SWEEP_METRIC_TORQUE) {
    text_add(&t, ",max_abs_tau");
    for (int d = 0; d < s->num_dofs; ++d) text_named(&t, "max_abs_tau.", mbt_joint_name(tree, s->dofs[d].joint));
  }
  if (s->metrics & SWEEP_METRIC_LIMITS) text_add(&t, ",limit_events");
  text_add(&t, ",steps");
  if (s->metrics & SWEEP_METRIC_WALL) text_add(&t, ",wall_time_s");
  text_add(&t, "\n");
  if (t.failed) {
    free(t.s);
    return NULL;
  }
  return t.s;
}

static void metrics_of_run(text* t, const run_state* rs, const mbt_rollout* r) {
  const sweep_spec* s = &rs->sw->spec;
  if (s->metrics & SWEEP_METRIC_FINAL_STATE) {
    text_num(t, r->t_reached);
    for (int i = 0; i < s->nq + s->nv; ++i) text_num(t, r->x_final[i]);
  }
  if (s->metrics & SWEEP_METRIC_ENERGY) {
    text_num(t, rs->E0);
    text_num(t, rs->E);
    text_num(t, rs->E - rs->E0);
    text_num(t, rs->drift_max);
  }
  if (s->metrics & SWEEP_METRIC_TORQUE) {
    double m = 0;
    for (int d = 0; d < s->num_dofs; ++d) m = fmax(m, rs->max_tau[d]);
    text_num(t, m);
    for (int d = 0; d < s->num_dofs; ++d) text_num(t, rs->max_tau[d]);
  }
  if (s->metrics & SWEEP_METRIC_LIMITS) text_num(t, (double)r->stats.limit_events);
  text_num(t, (double)r->stats.steps_taken);
}

/* The row of a run: its parameters and metrics, or (failed) its error and empty metrics. */
static char* format_row(const run_state* rs, const mbt_rollout* r, int status, const char* error) {
  const sweep_spec* s = &rs->sw->spec;
  text t = {0};
  char buf[32];
  snprintf(buf, sizeof buf, "%ld", rs->run);
  text_add(&t, buf);
  text_add(&t, status == MBT_OK ? ",ok" : ",error");
  text_quoted(&t, status == MBT_OK ? "" : error);
  for (int i = 0; i < s->num_params; ++i)
    if (s->params[i].varied) text_num(&t, rs->values[i]);
  if (status == MBT_OK) {
    metrics_of_run(&t, rs, r);
    if (s->metrics & SWEEP_METRIC_WALL) text_num(&t, rs->wall);
  } else {
    /* Empty metric fields, as many as the header has columns after the parameters. */
    int header_commas = 0, row_commas = 2;
    for (const char* c = rs->sw->header; *c && *c != '\n'; ++c) header_commas += *c == ',';
    for (int i = 0; i < s->num_params; ++i) row_commas += s->params[i].varied;
    for (int i = row_commas; i < header_commas; ++i) text_add(&t, ",");
  }
  text_add(&t, "\n");
  if (t.failed) {
    free(t.s);
    return NULL;
  }
  return t.s;
}

/* ---- progress ------------------------------------------------------------------------- */
static void draw_progress(sweep_state* sw, bool force) {
  if (!sw->tty) return;
  const double now = cli_now();
  if (!force && now - sw->last_draw < 0.1) return;
  const long total = sw->spec.num_runs;
  const double frac = total > 0 ? (double)sw->rows_present / (double)total : 1;
  char bar[32];
  for (int i = 0; i < 30; ++i) bar[i] = i < (int)(frac * 30 + 0.5) ? '#' : '-';
  bar[30] = '\0';
  fprintf(stderr, "\r[%s] %ld/%ld runs, %ld failed, wall %.1f s ", bar, sw->rows_present, total, sw->errors,
          now - sw->wall_start);
  fflush(stderr);
  sw->drawn = true;
  sw->last_draw = now;
}

static void clear_progress(sweep_state* sw) {
  if (!sw->drawn) return;
  fputs("\r\033[K", stderr);
  fflush(stderr);
  sw->drawn = false;
}

/* ---- rows: written by rank 0, sent by the others -------------------------------------- */
static long row_run(const char* line) { return strtol(line, NULL, 10); }

/* Rank 0: keeps a finished row and appends it to the file. Takes ownership of line. */
static void store_row(sweep_state* sw, char* line) {
  const long run = row_run(line);
  if (run < 0 || run >= sw->spec.num_runs || sw->rows[run]) {
    free(line);
    return;
  }
  sw->rows[run] = line;
  ++sw->rows_present;
  if (strncmp(strchr(line, ','), ",error,", 7) == 0) ++sw->errors;
  if (fputs(line, sw->out) < 0 || fflush(sw->out) != 0) sw->write_failed = true;
  draw_progress(sw, false);
}

static void emit_row(sweep_state* sw, char* line) {
  if (!line) {
    sw->write_failed = true;
    return;
  }
  if (sw->mpi.rank == 0) {
    store_row(sw, line);
    return;
  }
  text t = {sw->pending, sw->pending_len, sw->pending_cap, false};
  text_add(&t, line);
  free(line);
  sw->pending = t.s;
  sw->pending_len = t.len;
  sw->pending_cap = t.cap;
  if (t.failed) sw->write_failed = true;
}

/* Rank 0: the rows of a message from another rank, one per line. */
static void on_received(const char* msg, void* user) {
  sweep_state* sw = user;
  while (*msg) {
    const char* nl = strchr(msg, '\n');
    const size_t n = nl ? (size_t)(nl - msg + 1) : strlen(msg);
    char* line = malloc(n + 2);
    if (!line) {
      sw->write_failed = true;
      return;
    }
    memcpy(line, msg, n);
    line[n] = '\0';
    if (!nl) strcat(line, "\n");
    store_row(sw, line);
    msg += n;
  }
}

/* ---- one run: parameters, control, observer ------------------------------------------- */
static int setup_error(run_state* rs, int status, const char* fmt, const char* a, const char* b) {
  snprintf(rs->setup_error, sizeof rs->setup_error, fmt, a, b);
  rs->setup_status = status;
  return status;
}

/* The joint whose velocities hold v[index], and the offset within them. */
static int joint_of_velocity(const mbt_tree* tree, int index, int* k) {
  for (int j = 0; j < mbt_tree_num_joints(tree); ++j) {
    const int start = mbt_joint_velocity_start(tree, j), n = mbt_joint_num_velocities(tree, j);
    if (index >= start && index < start + n) {
      *k = index - start;
      return j;
    }
  }
  return -1;
}

static int set_damping(run_state* rs, int index, double value) {
  const mbt_tree* tree = rs->sw->spec.model.tree;
  int k = 0;
  const int j = joint_of_velocity(tree, index, &k);
  double c[MBT_JOINT_MAX_NV];
  const int n = mbt_joint_num_velocities(tree, j);
  memcpy(c, mbt_joint_damping_vector(rs->initial, j), sizeof(double) * (size_t)n);
  c[k] = value;
  return mbt_joint_set_damping_vector(rs->initial, j, c, n);
}

/* One coordinate of a body's center of mass, the inertia about it kept (a moved payload). */
static int set_center_of_mass(mbt_context* ctx, int body, int axis, double value) {
  mbt_vec3 c;
  const int st = mbt_body_get_center_of_mass(ctx, body, &c);
  if (st) return st;
  c.v[axis] = value;
  return mbt_body_set_center_of_mass_preserving_central_inertia(ctx, body, c);
}

static void set_gain(double* gains, int n, int index, double value) {
  for (int d = 0; d < n; ++d)
    if (index < 0 || index == d) gains[d] = value;
}

/* Applies parameter i of the run to its initial context and controller. */
static int apply_param(run_state* rs, int i) {
  const sweep_spec* s = &rs->sw->spec;
  const sweep_param* p = &s->params[i];
  const double value = rs->values[i];
  int st = MBT_OK;
  switch (p->kind) {
    case SWEEP_Q0: mbt_context_mutable_q(rs->initial)[p->index] = value; break;
    case SWEEP_V0: mbt_context_mutable_v(rs->initial)[p->index] = value; break;
    case SWEEP_KP: set_gain(rs->kp, s->num_dofs, p->index, value); break;
    case SWEEP_KD: set_gain(rs->kd, s->num_dofs, p->index, value); break;
    case SWEEP_TARGET: set_gain(rs->target, s->num_dofs, p->index, value); break;
    case SWEEP_DAMPING: st = set_damping(rs, p->index, value); break;
    case SWEEP_MASS: st = mbt_body_set_mass(rs->initial, p->index, value); break;
    case SWEEP_COM: st = set_center_of_mass(rs->initial, p->index, p->axis, value); break;
    case SWEEP_GRAVITY: {
      mbt_vec3 g = mbt_context_gravity(rs->initial);
      g.v[p->axis] = value;
      st = mbt_context_set_gravity(rs->initial, g);
      break;
    }
  }
  if (st) return setup_error(rs, st, "%s: %s", p->name, mbt_context_last_error(rs->initial));
  return MBT_OK;
}

static void run_free(run_state* rs) {
  mbt_context_destroy(rs->initial);
  mbt_context_destroy(rs->scratch);
  free(rs->values);
  free(rs->kp);
  free(rs->kd);
  free(rs->target);
  free(rs->max_tau);
}

/* Allocates the run and applies its parameters; false only when out of memory (a parameter
 * the model refuses is the run's setup_status). */
static bool run_setup(sweep_state* sw, long run, run_state* rs) {
  const sweep_spec* s = &sw->spec;
  const size_t nd = (size_t)s->num_dofs + 1;
  memset(rs, 0, sizeof *rs);
  rs->run = run;
  rs->sw = sw;
  rs->values = calloc((size_t)s->num_params + 1, sizeof(double));
  rs->kp = calloc(nd, sizeof(double));
  rs->kd = calloc(nd, sizeof(double));
  rs->target = calloc(nd, sizeof(double));
  rs->max_tau = calloc(nd, sizeof(double));
  rs->initial = mbt_context_create(s->model.tree);
  rs->scratch = mbt_context_create(s->model.tree);
  if (!rs->values || !rs->kp || !rs->kd || !rs->target || !rs->max_tau || !rs->initial || !rs->scratch) return false;
  sweep_spec_values(s, run, rs->values);
  for (int d = 0; d < s->num_dofs; ++d) rs->target[d] = NAN;
  for (int i = 0; i < s->num_params && !rs->setup_status; ++i) apply_param(rs, i);
  const double* q = mbt_context_q(rs->initial);
  for (int d = 0; d < s->num_dofs; ++d)
    if (isnan(rs->target[d])) rs->target[d] = q[s->dofs[d].q_index];
  return true;
}

/* PD control toward the set-points: tau = kp·(target − q) − kd·v on the controlled dofs. */
static void pd_tau(const run_state* rs, const double* q, const double* v, double* tau, bool record) {
  const sweep_spec* s = &rs->sw->spec;
  for (int d = 0; d < s->num_dofs; ++d) {
    const sweep_dof* dof = &s->dofs[d];
    const double t = rs->kp[d] * (rs->target[d] - q[dof->q_index]) - rs->kd[d] * v[dof->v_index];
    if (tau) tau[dof->v_index] += t;
    if (record) ((run_state*)rs)->max_tau[d] = fmax(rs->max_tau[d], fabs(t));
  }
}

static void run_control(mbt_real t, const mbt_real* q, const mbt_real* v, mbt_real* tau, void* user) {
  (void)t;
  pd_tau(user, q, v, tau, false);
}

/* After every accepted step (and at the start): energy drift and the largest torque. */
static bool run_observer(const mbt_context* ctx, void* user) {
  run_state* rs = user;
  if (g_interrupted) return false;
  const sweep_spec* s = &rs->sw->spec;
  if (!rs->started) rs->wall0 = cli_now();
  if (s->metrics & SWEEP_METRIC_ENERGY) {
    double K = NAN, U = NAN;
    mbt_context_copy_state(rs->scratch, ctx);
    if (mbt_calc_kinetic_energy(s->model.tree, rs->scratch, &K) || mbt_calc_potential_energy(s->model.tree, rs->scratch, &U))
      K = NAN;
    rs->E = K + U;
    if (!rs->started) rs->E0 = rs->E;
    rs->drift_max = fmax(rs->drift_max, fabs(rs->E - rs->E0));
  }
  if (s->metrics & SWEEP_METRIC_TORQUE) pd_tau(rs, mbt_context_q(ctx), mbt_context_v(ctx), NULL, true);
  rs->started = true;
  return true;
}

/* Under MPI, rows move while a chunk runs, whenever a run finishes on the main thread: a worker
 * rank sends what it holds once it is 2 kB (a few rows), rank 0 takes in what has arrived.
 * Other threads only add their rows. */
static void exchange_rows(sweep_state* sw) {
  if (!sw->mpi.active || !pthread_equal(pthread_self(), sw->main_thread)) return;
  if (sw->mpi.rank == 0) {
    sweep_mpi_receive_rows(&sw->mpi, false, on_received, sw);
  } else if (sw->pending_len >= 2048) {
    sweep_mpi_send_rows(&sw->mpi, sw->pending, false);
    sw->pending_len = 0;
    sw->pending[0] = '\0';
  }
}

static bool run_done(int index, const mbt_rollout* r, void* user) {
  run_state* runs = user;
  run_state* rs = &runs[index];
  rs->wall = cli_now() - rs->wall0;
  /* A run stopped by Ctrl-C is not finished: no row, it runs again on restart. */
  if (r->status != MBT_ERR_INTERRUPTED) emit_row(rs->sw, format_row(rs, r, r->status, r->error));
  exchange_rows(rs->sw);
  return !g_interrupted && !rs->sw->write_failed;
}

/* ---- chunks of runs ------------------------------------------------------------------- */
/* Runs runs[0 … n−1] (their numbers in `numbers`) on the batch's threads. */
static bool run_chunk(sweep_state* sw, mbt_batch* batch, const long* numbers, int n) {
  const sweep_spec* s = &sw->spec;
  const int nx = s->nq + s->nv;
  run_state* runs = calloc((size_t)n, sizeof *runs);
  mbt_rollout* rollouts = calloc((size_t)n, sizeof *rollouts);
  double* x_final = calloc((size_t)n * (size_t)nx + 1, sizeof(double));
  bool ok = runs && rollouts && x_final;
  int m = 0; /* runs whose parameters were accepted, compacted to the front */
  for (int k = 0; ok && k < n; ++k) {
    run_state* rs = &runs[m];
    ok = run_setup(sw, numbers[k], rs);
    if (!ok) break;
    if (rs->setup_status) {
      emit_row(sw, format_row(rs, NULL, rs->setup_status, rs->setup_error));
      run_free(rs);
      continue;
    }
    rs->wall0 = cli_now();
    rollouts[m] = (mbt_rollout){.initial = rs->initial,
                                .t_final = mbt_context_time(rs->initial) + s->duration,
                                .control = s->num_dofs ? run_control : NULL,
                                .control_data = rs,
                                .observer = run_observer,
                                .observer_data = rs,
                                .x_final = x_final + (size_t)m * (size_t)nx};
    ++m;
  }
  if (ok && m > 0) {
    const int st = mbt_batch_rollouts(batch, &s->sim, rollouts, m, run_done, runs);
    if (st == MBT_ERR_INVALID_ARGUMENT) {
      cli_error(kCmd, "%s", mbt_batch_last_error(batch));
      ok = false;
    }
  }
  for (int k = 0; runs && k < m; ++k) run_free(&runs[k]);
  if (!ok && (!runs || !rollouts || !x_final)) cli_error(kCmd, "out of memory");
  free(runs);
  free(rollouts);
  free(x_final);
  return ok && !sw->write_failed;
}

/* This rank's share of the runs not yet in the file: every size-th, from its rank. */
static long* my_runs(const sweep_state* sw, const unsigned char* done, long* count) {
  long* list = malloc(sizeof(long) * (size_t)(sw->spec.num_runs + 1));
  long n = 0, k = 0;
  if (!list) return NULL;
  for (long run = 0; run < sw->spec.num_runs; ++run) {
    if (done[run]) continue;
    if (k++ % sw->mpi.size == sw->mpi.rank) list[n++] = run;
  }
  *count = n;
  return list;
}

static bool run_all(sweep_state* sw, const unsigned char* done) {
  long count = 0;
  long* list = my_runs(sw, done, &count);
  mbt_batch* batch = list ? mbt_batch_create(sw->spec.model.tree, sw->threads) : NULL;
  bool ok = batch != NULL;
  if (!ok) cli_error(kCmd, "cannot start the threads: %s", list ? mbt_tree_last_error(sw->spec.model.tree) : "out of memory");
  /* Chunks bound the memory of the runs in flight; each ends with the threads waiting for
   * its longest run, so they are long (rows reach rank 0 during a chunk: exchange_rows). */
  const long chunk = 256L * sw->threads;
  for (long start = 0; ok && start < count && !g_interrupted; start += chunk) {
    const int n = (int)(count - start < chunk ? count - start : chunk);
    ok = run_chunk(sw, batch, list + start, n);
    if (sw->mpi.rank != 0) {
      sweep_mpi_send_rows(&sw->mpi, sw->pending ? sw->pending : "", false);
      sw->pending_len = 0;
      if (sw->pending) sw->pending[0] = '\0';
    } else if (sw->mpi.active) {
      sweep_mpi_receive_rows(&sw->mpi, false, on_received, sw);
    }
  }
  if (sw->mpi.rank != 0) sweep_mpi_send_rows(&sw->mpi, sw->pending ? sw->pending : "", true);
  if (sw->mpi.rank == 0 && sw->mpi.active) sweep_mpi_receive_rows(&sw->mpi, true, on_received, sw);
  mbt_batch_destroy(batch);
  free(list);
  return ok;
}

/* ---- the results file ----------------------------------------------------------------- */
/* Rank 0: the rows of an existing results file written by the same spec (a last line cut
 * short by a kill is dropped). False with a message if it is another spec's file. */
static bool read_existing(sweep_state* sw) {
  FILE* f = fopen(sw->out_path, "r");
  if (!f) return true;
  char* line = NULL;
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, f);
  bool ok = true;
  if (n > 0 && strcmp(line, sw->header) != 0) {
    cli_error(kCmd, "%s exists with other columns than this spec gives (another spec's results?): remove it or "
              "choose another --out", sw->out_path);
    ok = false;
  }
  while (ok && (n = getline(&line, &cap, f)) > 0) {
    if (line[n - 1] != '\n' || line[0] < '0' || line[0] > '9') continue;
    const long run = row_run(line);
    if (run >= sw->spec.num_runs || sw->rows[run]) continue;
    sw->rows[run] = strdup(line);
    if (!sw->rows[run]) ok = false;
    ++sw->rows_present;
    if (strncmp(strchr(line, ','), ",error,", 7) == 0) ++sw->errors;
  }
  free(line);
  fclose(f);
  return ok;
}

/* Rank 0: the header and every row present, in run order, replacing the file at once. */
static bool write_sorted(sweep_state* sw) {
  const size_t len = strlen(sw->out_path);
  char* tmp = malloc(len + 8);
  if (!tmp) return false;
  snprintf(tmp, len + 8, "%s.tmp", sw->out_path);
  FILE* f = fopen(tmp, "w");
  bool ok = f && fputs(sw->header, f) >= 0;
  for (long run = 0; ok && run < sw->spec.num_runs; ++run)
    if (sw->rows[run]) ok = fputs(sw->rows[run], f) >= 0;
  if (f) ok = fclose(f) == 0 && ok;
  ok = ok && rename(tmp, sw->out_path) == 0;
  if (!ok) cli_error(kCmd, "cannot write '%s'", tmp);
  free(tmp);
  return ok;
}

static bool open_results(sweep_state* sw) {
  sw->rows = calloc((size_t)sw->spec.num_runs + 1, sizeof(char*));
  if (!sw->rows) return false;
  if (!cli_make_parent_dirs(kCmd, sw->out_path) || !read_existing(sw) || !write_sorted(sw)) return false;
  sw->out = fopen(sw->out_path, "a");
  if (!sw->out) cli_error(kCmd, "cannot write '%s'", sw->out_path);
  return sw->out != NULL;
}

/* ---- the command ---------------------------------------------------------------------- */
typedef struct {
  const char* spec;
  const char* out;
  int threads;
  bool mpi;
  char default_out[4096];
} sweep_args;

static int parse_args(int argc, char** argv, sweep_args* a) {
  memset(a, 0, sizeof *a);
  for (int i = 1; i < argc; ++i) {
    const char* s = argv[i];
    const char* val = NULL;
    int r;
    if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
      print_help();
      return -2;
    }
    if (strcmp(s, "--mpi") == 0) {
      a->mpi = true;
    } else if ((r = cli_option_value(kCmd, argc, argv, &i, "--out", &val)) != 0) {
      if (r < 0) return -1;
      a->out = val;
    } else if ((r = cli_option_value(kCmd, argc, argv, &i, "--threads", &val)) != 0) {
      double t = 0;
      if (r < 0) return -1;
      if (!cli_parse_double(val, &t) || t < 1 || t > MBT_BATCH_MAX_THREADS || t != floor(t)) {
        cli_error(kCmd, "--threads needs a whole number from 1 to %d, got '%s'", MBT_BATCH_MAX_THREADS, val);
        return -1;
      }
      a->threads = (int)t;
    } else if (s[0] == '-' && s[1] != '\0') {
      cli_error(kCmd, "unknown option '%s' (see 'mbt sweep --help')", s);
      return -1;
    } else if (!a->spec) {
      a->spec = s;
    } else {
      cli_error(kCmd, "more than one SPEC given ('%s', '%s')", a->spec, s);
      return -1;
    }
  }
  if (!a->spec) {
    cli_error(kCmd, "no SPEC given (see 'mbt sweep --help')");
    return -1;
  }
  if (!a->out) {
    const char* base = strrchr(a->spec, '/') ? strrchr(a->spec, '/') + 1 : a->spec;
    const char* ext = strrchr(base, '.');
    snprintf(a->default_out, sizeof a->default_out, "out/%.*s.csv", (int)(ext ? ext - base : (long)strlen(base)),
             base);
    a->out = a->default_out;
  }
  return 0;
}

static void free_state(sweep_state* sw) {
  if (sw->out) fclose(sw->out);
  for (long r = 0; sw->rows && r < sw->spec.num_runs; ++r) free(sw->rows[r]);
  free(sw->rows);
  free(sw->pending);
  free(sw->header);
  sweep_spec_free(&sw->spec);
}

/* Rank 0's last words: the file sorted when complete, and a summary on stdout. */
static int finish(sweep_state* sw, bool ok) {
  clear_progress(sw);
  const bool complete = sw->rows_present == sw->spec.num_runs;
  if (sw->out) {
    ok = fclose(sw->out) == 0 && ok && !sw->write_failed;
    sw->out = NULL;
  }
  if (complete && ok) ok = write_sorted(sw);
  printf("mbt sweep: %ld of %ld runs in %s (%ld failed), %.2f s wall, %d process%s x %d thread%s\n",
         sw->rows_present, sw->spec.num_runs, sw->out_path, sw->errors, cli_now() - sw->wall_start, sw->mpi.size,
         sw->mpi.size == 1 ? "" : "es", sw->threads, sw->threads == 1 ? "" : "s");
  fflush(stdout);
  if (g_interrupted) {
    cli_error(kCmd, "interrupted: %ld of %ld runs are in %s; run the same command again to finish", sw->rows_present,
              sw->spec.num_runs, sw->out_path);
    return CLI_EXIT_INTERRUPTED;
  }
  return ok && complete ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

static int sweep_main(sweep_state* sw, const sweep_args* a) {
  unsigned char* done = calloc((size_t)sw->spec.num_runs + 1, 1);
  sw->header = make_header(&sw->spec);
  bool ok = done && sw->header;
  if (!ok) cli_error(kCmd, "out of memory");
  if (ok && sw->mpi.rank == 0) {
    ok = open_results(sw);
    for (long r = 0; ok && r < sw->spec.num_runs; ++r) done[r] = sw->rows[r] != NULL;
    draw_progress(sw, true);
  }
  /* Every rank learns which runs are done (and whether rank 0 could open the file). */
  done[sw->spec.num_runs] = ok;
  sweep_mpi_broadcast_done(&sw->mpi, done, sw->spec.num_runs + 1);
  ok = done[sw->spec.num_runs];
  if (ok) ok = run_all(sw, done);
  free(done);
  (void)a;
  return sw->mpi.rank == 0 ? finish(sw, ok) : (ok ? CLI_EXIT_OK : CLI_EXIT_FAILURE);
}

int mbt_cli_sweep(int argc, char** argv) {
  sweep_args a;
  const int pr = parse_args(argc, argv, &a);
  if (pr == -2) return CLI_EXIT_OK;
  if (pr < 0) return CLI_EXIT_USAGE;
  sweep_state sw;
  memset(&sw, 0, sizeof sw);
  sw.main_thread = pthread_self();
  if (!sweep_mpi_init(a.mpi, &sw.mpi)) return CLI_EXIT_USAGE;
  sw.out_path = a.out;
  sw.threads = a.threads ? a.threads : sw.mpi.active ? 1 : 0;
  sw.wall_start = cli_now();
  sw.tty = sw.mpi.rank == 0 && isatty(STDERR_FILENO);
  int rc = CLI_EXIT_FAILURE;
  if (sweep_spec_load(a.spec, &sw.spec)) {
    if (sw.threads == 0) sw.threads = (int)sysconf(_SC_NPROCESSORS_ONLN) > 0 ? (int)sysconf(_SC_NPROCESSORS_ONLN) : 1;
    struct sigaction action, old_action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_sigint;
    sigemptyset(&action.sa_mask);
    g_interrupted = 0;
    const bool installed = sigaction(SIGINT, &action, &old_action) == 0;
    rc = sweep_main(&sw, &a);
    if (installed) sigaction(SIGINT, &old_action, NULL);
  }
  free_state(&sw);
  sweep_mpi_finalize(&sw.mpi);
  return rc;
}
