/* py_loop.c: the C side of bench/python_overhead.py, loaded with ctypes: inverse dynamics
 * with gravity called n times in a C loop, timed with the monotonic clock. Its ns per call
 * is the baseline the Python calls are compared with, measured in the same process, on the
 * same model and state. */
#define _POSIX_C_SOURCE 199309L
#include <time.h>

#include "mbt/mbt.h"

double mbt_pybench_inverse_dynamics_loop(const mbt_tree* tree, mbt_context* ctx, const double* vdot,
                                         double* tau, long n) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < n; ++i) mbt_calc_inverse_dynamics_with_gravity(tree, ctx, vdot, tau);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)n;
}

/* The same for the inverse dynamics derivatives (tau, ∂tau/∂q, ∂tau/∂v, M), the work memory
 * made once before the loop. Returns ns per call, or -1 if the workspace cannot be made. */
double mbt_pybench_id_derivatives_loop(const mbt_tree* tree, mbt_context* ctx, const double* vdot, double* tau,
                                       double* dtau_dq, double* dtau_dv, double* M, long n) {
  mbt_derivatives_workspace* ws = mbt_derivatives_workspace_create(tree);
  if (!ws) return -1;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (long i = 0; i < n; ++i)
    mbt_calc_inverse_dynamics_derivatives(tree, ctx, ws, vdot, NULL, tau, dtau_dq, dtau_dv, M);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  mbt_derivatives_workspace_destroy(ws);
  return ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)n;
}
