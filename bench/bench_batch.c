/* bench_batch.c: throughput of the batched calls (mbt/batch.h), states per second, at 1, 2, …
 * threads: inverse dynamics with gravity, forward dynamics (ABA), mass matrix, forward
 * kinematics, and the derivatives (inverse and forward dynamics, the semi-implicit Euler
 * step's A and B), on pre-generated random states. Each figure is the median of --reps
 * samples, each a call over all --states states repeated for at least 40 ms; the speed-up is
 * the median ratio to the first thread count, sample by sample (the counts alternate, so load
 * changes reach them alike).
 *
 * The machine may be shared. "cores used" is the median of CPU time over wall time per
 * sample: a speed-up below the thread count with fewer cores used than threads is the
 * machine's load, not the batch's. "CPU/state vs 1 thr" is the CPU time per state at T
 * threads over that at 1 (above 1: the work per state grew, from waiting, polling, or threads
 * contending for caches and memory); the load hardly changes it, and on a machine with T free
 * cores the speed-up would be about T over it. The last line is the cost of a call itself.
 *
 *   mbt_bench_batch [MODEL.urdf[:floating] ...] [--states N] [--reps R] [--threads 1,2,4]
 *
 * Default models: the shipped UR5 and Solo12 (floating base). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mbt/mbt.h"

#ifndef MBT_SOURCE_DIR
#define MBT_SOURCE_DIR "."
#endif

enum { kMaxModels = 8, kMaxThreadCounts = 8, kMaxReps = 101, kMaxThreads = 256 };

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* A fixed LCG stream: the same states on every run. */
static double rand_pm1(unsigned long long* s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return (double)(*s >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

/* Random states through a context (so floating quaternions are normalized by the tree's
 * default, then perturbed and renormalized by hand). */
static void make_states(const mbt_tree* tree, int n, double* x, double* a) {
  const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  unsigned long long s = 16;
  for (int k = 0; k < n; ++k) {
    double* xk = x + (size_t)k * (size_t)(nq + nv);
    for (int i = 0; i < nq + nv; ++i) xk[i] = rand_pm1(&s);
    for (int i = 0; i < nv; ++i) a[(size_t)k * (size_t)nv + i] = rand_pm1(&s);
    for (int m = 0; m < mbt_tree_num_mobilizers(tree); ++m) {
      if (mbt_mobilizer_type_of(tree, m) != MBT_MOBILIZER_QUATERNION_FLOATING) continue;
      double* qm = xk + mbt_mobilizer_position_start_in_q(tree, m);
      const double norm = sqrt(qm[0] * qm[0] + qm[1] * qm[1] + qm[2] * qm[2] + qm[3] * qm[3]);
      for (int i = 0; i < 4; ++i) qm[i] /= norm;
    }
  }
}

typedef struct {
  int n, reps;
  const double *x, *q, *a;
  double *out, *out2, *out3, *out4; /* n·nv², n·nv², n·4nv², n·2nv² */
  mbt_transform* X;
} bench_data;

typedef int (*batched_fn)(mbt_batch* b, const bench_data* d);

static int run_id(mbt_batch* b, const bench_data* d) {
  return mbt_batch_calc_inverse_dynamics(b, d->n, d->x, d->a, d->out, NULL);
}
static int run_fd(mbt_batch* b, const bench_data* d) {
  return mbt_batch_calc_forward_dynamics(b, d->n, d->x, d->a, d->out, NULL);
}
static int run_m(mbt_batch* b, const bench_data* d) { return mbt_batch_calc_mass_matrix(b, d->n, d->q, d->out, NULL); }
static int run_fk(mbt_batch* b, const bench_data* d) {
  return mbt_batch_calc_forward_kinematics(b, d->n, d->q, d->X, NULL);
}
/* ∂tau/∂q, ∂tau/∂v at the given v̇ */
static int run_id_derivs(mbt_batch* b, const bench_data* d) {
  return mbt_batch_calc_inverse_dynamics_derivatives(b, d->n, d->x, d->a, NULL, NULL, d->out, d->out2, NULL, NULL);
}
/* v̇, ∂v̇/∂q, ∂v̇/∂v at tau = a */
static int run_fd_derivs(mbt_batch* b, const bench_data* d) {
  return mbt_batch_calc_forward_dynamics_derivatives(b, d->n, d->x, d->a, NULL, d->out, d->out2, NULL, NULL);
}
/* x⁺, A, B of a 1 ms semi-implicit Euler step at tau = a */
static int run_step_derivs(mbt_batch* b, const bench_data* d) {
  return mbt_batch_calc_semi_implicit_euler_step_derivatives(b, d->n, 1e-3, d->x, d->a, d->out, d->out3, d->out4,
                                                             NULL);
}

static const struct {
  const char* name;
  batched_fn fn;
} kOps[] = {{"inverse_dynamics", run_id},        {"forward_dynamics", run_fd},   {"mass_matrix", run_m},
            {"forward_kinematics", run_fk},      {"id_derivatives", run_id_derivs}, {"fd_derivatives", run_fd_derivs},
            {"step_derivatives", run_step_derivs}};

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* One sample: calls of the batch repeated for at least 40 ms (so that the process's CPU
 * clock, which counts the other threads' time at scheduler ticks, is exact to a few %):
 * states per second (0 if a call failed), and the cores it had: the process's CPU time over
 * the wall time (1 when one thread ran all along; below the thread count when the shared
 * machine ran other work on the cores meanwhile). */
static double one_rate(mbt_batch* b, batched_fn fn, const bench_data* d, double* cores) {
  const double c0 = cpu_s(), t0 = now_s();
  double t = 0;
  long calls = 0;
  do {
    if (fn(b, d) != MBT_OK) {
      fprintf(stderr, "mbt_bench_batch: %s\n", mbt_batch_last_error(b));
      return 0;
    }
    ++calls;
    t = now_s() - t0;
  } while (t < 0.04);
  *cores = (cpu_s() - c0) / t;
  return (double)d->n * (double)calls / t;
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof v[0], cmp_double);
  return v[n / 2];
}

/* Repetitions alternate between the thread counts, so that a change of the machine's load
 * reaches all of them alike; the speed-up is the median of the per-repetition ratios. */
static void bench_op(mbt_batch** batches, const int* threads, int num_threads, batched_fn fn, const bench_data* d) {
  double rate[kMaxThreadCounts][kMaxReps], ratio[kMaxThreadCounts][kMaxReps];
  double cores[kMaxThreadCounts][kMaxReps], work[kMaxThreadCounts][kMaxReps];
  for (int t = 0; t < num_threads; ++t) fn(batches[t], d); /* warm-up */
  for (int r = 0; r < d->reps; ++r)
    for (int t = 0; t < num_threads; ++t) {
      rate[t][r] = one_rate(batches[t], fn, d, &cores[t][r]);
      ratio[t][r] = rate[t][r] / rate[0][r];
      work[t][r] = cores[0][r] / rate[0][r] / (cores[t][r] / rate[t][r]); /* CPU s per state, 1 thr / t thr */
    }
  for (int t = 0; t < num_threads; ++t) {
    printf("  %d thr: %9.4g states/s", threads[t], median(rate[t], d->reps));
    if (t > 0) printf(" (%.2fx)", median(ratio[t], d->reps));
  }
  printf("   cores used:");
  for (int t = 0; t < num_threads; ++t) printf(" %.2f", median(cores[t], d->reps));
  printf("   CPU/state vs 1 thr:");
  for (int t = 1; t < num_threads; ++t) printf(" %.2f", 1 / median(work[t], d->reps));
  printf("\n");
}

/* The cost of a batched call itself: median µs of inverse dynamics on as many states as the
 * batch has threads (one each), against the same states in one thread. */
static void bench_call_overhead(mbt_batch** batches, const int* threads, int num_threads, const bench_data* d) {
  enum { kCalls = 2001 };
  static double us[kCalls];
  printf("  %-19s", "call (1 state/thr)");
  for (int t = 0; t < num_threads; ++t) {
    bench_data one = *d;
    one.n = threads[t] < d->n ? threads[t] : d->n;
    for (int c = 0; c < kCalls; ++c) {
      const double t0 = now_s();
      run_id(batches[t], &one);
      us[c] = 1e6 * (now_s() - t0);
    }
    printf("  %d thr: %6.2f us/call", threads[t], median(us, kCalls));
  }
  printf("\n");
}

static int bench_model(const char* spec, int n, int reps, const int* threads, int num_threads) {
  char path[4096];
  snprintf(path, sizeof path, "%s", spec);
  char* colon = strrchr(path, ':');
  const bool floating = colon && strcmp(colon, ":floating") == 0;
  if (floating) *colon = '\0';
  mbt_urdf_result r;
  if (mbt_urdf_load_file(path, floating ? MBT_URDF_FLOATING : 0, &r) != MBT_OK) {
    fprintf(stderr, "mbt_bench_batch: %s\n", r.error);
    mbt_urdf_result_free(&r);
    return 1;
  }
  const mbt_tree* tree = r.tree;
  const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  double* x = malloc(sizeof(double) * (size_t)n * (size_t)(nq + nv));
  double* q = malloc(sizeof(double) * (size_t)n * (size_t)nq);
  double* a = malloc(sizeof(double) * (size_t)n * (size_t)nv);
  const size_t nv2 = (size_t)nv * (size_t)nv;
  double* out = malloc(sizeof(double) * (size_t)n * (nv2 > (size_t)(nq + nv) ? nv2 : (size_t)(nq + nv)));
  double* out2 = malloc(sizeof(double) * (size_t)n * nv2);
  double* out3 = malloc(sizeof(double) * (size_t)n * 4 * nv2);
  double* out4 = malloc(sizeof(double) * (size_t)n * 2 * nv2);
  mbt_transform* X = malloc(sizeof(mbt_transform) * (size_t)n * (size_t)mbt_tree_num_bodies(tree));
  make_states(tree, n, x, a);
  for (int k = 0; k < n; ++k) memcpy(q + (size_t)k * nq, x + (size_t)k * (nq + nv), sizeof(double) * (size_t)nq);
  const bench_data d = {n, reps, x, q, a, out, out2, out3, out4, X};
  printf("%s (nq %d, nv %d), %d states, median of %d\n", r.robot_name ? r.robot_name : path, nq, nv, n, reps);
  mbt_batch* batches[kMaxThreadCounts] = {NULL};
  int rc = 0;
  for (int t = 0; t < num_threads; ++t)
    if (!(batches[t] = mbt_batch_create(tree, threads[t]))) rc = 1;
  for (size_t op = 0; rc == 0 && op < sizeof kOps / sizeof kOps[0]; ++op) {
    printf("  %-19s", kOps[op].name);
    bench_op(batches, threads, num_threads, kOps[op].fn, &d);
  }
  if (rc == 0) bench_call_overhead(batches, threads, num_threads, &d);
  for (int t = 0; t < num_threads; ++t) mbt_batch_destroy(batches[t]);
  free(x), free(q), free(a), free(out), free(out2), free(out3), free(out4), free(X);
  mbt_urdf_result_free(&r);
  return rc;
}

int main(int argc, char** argv) {
  const char* models[kMaxModels];
  int num_models = 0, n = 4096, reps = 31, threads[kMaxThreadCounts] = {1, 2}, num_threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--states") == 0 && i + 1 < argc) {
      n = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      num_threads = 0;
      for (char* tok = strtok(argv[++i], ","); tok && num_threads < kMaxThreadCounts; tok = strtok(NULL, ","))
        threads[num_threads++] = atoi(tok);
    } else if (argv[i][0] != '-' && num_models < kMaxModels) {
      models[num_models++] = argv[i];
    } else {
      fprintf(stderr, "usage: mbt_bench_batch [MODEL.urdf[:floating] ...] [--states N] [--reps R] [--threads 1,2]\n");
      return 2;
    }
  }
  bool bad_count = false;
  for (int t = 0; t < num_threads; ++t) bad_count |= threads[t] < 1 || threads[t] > kMaxThreads;
  if (n < 1 || reps < 1 || reps > kMaxReps || num_threads < 1 || bad_count) {
    fprintf(stderr, "mbt_bench_batch: --states >= 1, 1 <= --reps <= %d, --threads a list of counts 1 … %d\n",
            kMaxReps, kMaxThreads);
    return 2;
  }
  if (num_models == 0) {
    models[num_models++] = MBT_SOURCE_DIR "/models/ur5.urdf";
    models[num_models++] = MBT_SOURCE_DIR "/models/solo12.urdf:floating";
  }
  int rc = 0;
  for (int m = 0; m < num_models; ++m) rc |= bench_model(models[m], n, reps, threads, num_threads);
  return rc;
}
