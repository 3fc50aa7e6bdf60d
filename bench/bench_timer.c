/* bench_timer.c: batches of calls timed on a monotonic clock, order statistics of the ns per
 * call, and the description of the machine and the build. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#ifndef MBT_BENCH_BUILD_TYPE
#define MBT_BENCH_BUILD_TYPE "unknown"
#endif
#ifndef MBT_BENCH_C_FLAGS
#define MBT_BENCH_C_FLAGS "unknown"
#endif

double mbt_bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void mbt_bench_timing_default(mbt_bench_timing* t) {
  t->min_seconds = 0.25;
  t->warmup_seconds = 0.05;
  t->batch_seconds = 20e-6;
  t->max_samples = 2000;
  t->min_samples = 25;
}

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Linear interpolation between order statistics of sorted x[0..n-1] at fraction f. */
static double quantile(const double* x, int n, double f) {
  if (n <= 0) return 0;
  const double pos = f * (double)(n - 1);
  const int i = (int)pos;
  if (i >= n - 1) return x[n - 1];
  const double t = pos - (double)i;
  return x[i] + t * (x[i + 1] - x[i]);
}

/* Runs `calls` calls from state *next on; returns elapsed seconds. Adds the heap
 * allocations made meanwhile to *allocs. */
static double run_batch(mbt_bench_fn fn, void* user, int num_states, long calls, int* next, int* status,
                        long* allocs) {
  int k = *next, st = MBT_OK;
  const long a0 = mbt_bench_alloc_count();
  const double t0 = mbt_bench_now();
  for (long c = 0; c < calls; ++c) {
    st |= fn(user, k);
    if (++k == num_states) k = 0;
  }
  const double t1 = mbt_bench_now();
  const long a1 = mbt_bench_alloc_count();
  *allocs = (a0 < 0 || *allocs < 0) ? -1 : *allocs + (a1 - a0);
  *next = k;
  if (st != MBT_OK && *status == MBT_OK) *status = st < 0 ? st : MBT_ERR_INVALID_ARGUMENT;
  return t1 - t0;
}

typedef struct {
  mbt_bench_fn fn;
  void* user;
  int num_states, next, status;
  long batch, calls, allocs;
  double* ns;
} timed;

/* First call alone (its status decides), then the batch size: doubled until a batch lasts
 * batch_seconds. */
static int calibrate(const mbt_bench_timing* t, timed* x) {
  x->status = x->fn(x->user, 0);
  x->calls = 1;
  x->next = x->num_states > 1 ? 1 : 0;
  if (x->status != MBT_OK) return x->status;
  x->batch = 1;
  for (;;) {
    const double dt = run_batch(x->fn, x->user, x->num_states, x->batch, &x->next, &x->status, &x->allocs);
    x->calls += x->batch;
    if (x->status != MBT_OK) return x->status;
    if (dt >= t->batch_seconds || x->batch >= (1L << 24)) return MBT_OK;
    x->batch *= 2;
  }
}

static void summarize(double* ns, int n, mbt_bench_stats* out) {
  qsort(ns, (size_t)n, sizeof(double), cmp_double);
  out->median = quantile(ns, n, 0.5);
  out->p10 = quantile(ns, n, 0.1);
  out->p90 = quantile(ns, n, 0.9);
  out->q1 = quantile(ns, n, 0.25);
  out->q3 = quantile(ns, n, 0.75);
  out->min = ns[0];
  out->samples = n;
}

/* Times one function, or two in alternating batches (a, b, a, b, ...) so that both see the
 * same machine load; ratio (if not NULL) gets the statistics of a/b over the pairs. */
static int time_impl(const mbt_bench_timing* t, timed* xs, int nx, mbt_bench_stats* outs, mbt_bench_stats* ratio) {
  mbt_bench_timing def;
  if (!t) {
    mbt_bench_timing_default(&def);
    t = &def;
  }
  for (int i = 0; i < nx; ++i) {
    memset(&outs[i], 0, sizeof outs[i]);
    xs[i].allocs = 0;
    const int st = calibrate(t, &xs[i]);
    if (st != MBT_OK) return st;
  }
  const double w0 = mbt_bench_now();
  while (mbt_bench_now() - w0 < t->warmup_seconds)
    for (int i = 0; i < nx; ++i) {
      run_batch(xs[i].fn, xs[i].user, xs[i].num_states, xs[i].batch, &xs[i].next, &xs[i].status, &xs[i].allocs);
      xs[i].calls += xs[i].batch;
    }
  for (int i = 0; i < nx; ++i)
    if (xs[i].status != MBT_OK) return xs[i].status;
  double* buf = malloc(sizeof(double) * (size_t)t->max_samples * 3);
  if (!buf) return MBT_ERR_NO_MEMORY;
  for (int i = 0; i < nx; ++i) xs[i].ns = buf + (size_t)t->max_samples * (size_t)i;
  double* r = buf + (size_t)t->max_samples * 2;
  int n = 0;
  const double s0 = mbt_bench_now();
  while (n < t->max_samples && (n < t->min_samples || mbt_bench_now() - s0 < t->min_seconds)) {
    for (int i = 0; i < nx; ++i) {
      timed* x = &xs[i];
      const double dt = run_batch(x->fn, x->user, x->num_states, x->batch, &x->next, &x->status, &x->allocs);
      x->calls += x->batch;
      x->ns[n] = 1e9 * dt / (double)x->batch;
    }
    if (nx == 2) r[n] = xs[0].ns[n] / xs[1].ns[n];
    n++;
  }
  int status = MBT_OK;
  for (int i = 0; i < nx; ++i) {
    summarize(xs[i].ns, n, &outs[i]);
    outs[i].calls_per_sample = xs[i].batch;
    outs[i].calls = xs[i].calls;
    outs[i].allocs = xs[i].allocs;
    if (xs[i].status != MBT_OK && status == MBT_OK) status = xs[i].status;
  }
  if (nx == 2 && ratio) {
    memset(ratio, 0, sizeof *ratio);
    summarize(r, n, ratio);
  }
  free(buf);
  return status;
}

int mbt_bench_time(const mbt_bench_timing* t, mbt_bench_fn fn, void* user, int num_states, mbt_bench_stats* out) {
  timed x = {fn, user, num_states, 0, 0, 0, 0, 0, NULL};
  return time_impl(t, &x, 1, out, NULL);
}

int mbt_bench_time_pair(const mbt_bench_timing* t, mbt_bench_fn fn_a, void* user_a, mbt_bench_fn fn_b,
                        void* user_b, int num_states, mbt_bench_stats* out_a, mbt_bench_stats* out_b,
                        mbt_bench_stats* ratio) {
  timed x[2] = {{fn_a, user_a, num_states, 0, 0, 0, 0, 0, NULL}, {fn_b, user_b, num_states, 0, 0, 0, 0, 0, NULL}};
  mbt_bench_stats outs[2];
  const int st = time_impl(t, x, 2, outs, ratio);
  *out_a = outs[0];
  *out_b = outs[1];
  return st;
}

/* ---- machine and build ------------------------------------------------------------------- */
const char* mbt_bench_cpu_model(void) {
  static char model[256];
  if (model[0]) return model;
  strcpy(model, "unknown");
  FILE* f = fopen("/proc/cpuinfo", "r");
  if (!f) return model;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0) {
      const char* c = strchr(line, ':');
      if (c) {
        c++;
        while (*c == ' ' || *c == '\t') c++;
        size_t len = strcspn(c, "\n");
        if (len >= sizeof model) len = sizeof model - 1;
        memcpy(model, c, len);
        model[len] = '\0';
      }
      break;
    }
  }
  fclose(f);
  return model;
}

const char* mbt_bench_build_type(void) { return MBT_BENCH_BUILD_TYPE; }
const char* mbt_bench_c_flags(void) { return MBT_BENCH_C_FLAGS; }

const char* mbt_bench_compiler(void) {
#if defined(__clang__)
  return "clang " __clang_version__;
#elif defined(__GNUC__)
  return "gcc " __VERSION__;
#else
  return "unknown C compiler";
#endif
}
