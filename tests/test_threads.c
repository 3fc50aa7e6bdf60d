/* test_threads.c: one finalized tree shared by several threads, each with its own context:
 * every thread's results equal, bit for bit, the same computations done on one thread
 * (the tree is read-only after finalize; all mutable state lives in the contexts). */
#include "support/test_util.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { kThreads = 4, kStates = 200 };

typedef struct {
  const mbt_tree* tree;
  const mbt_real* x;     /* [kStates][nq + nv] */
  mbt_real* out;         /* [kStates][nv*nv + 2*nv]: M, FD, ID with gravity */
  int status;
} job;

static int compute(const mbt_tree* tree, mbt_context* ctx, const mbt_real* x, mbt_real* out) {
  const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  int st = mbt_context_set_x(ctx, x, nq + nv);
  if (!st) st = mbt_calc_mass_matrix(tree, ctx, out);
  if (!st) st = mbt_calc_forward_dynamics(tree, ctx, NULL, NULL, out + nv * nv);
  if (!st) st = mbt_calc_inverse_dynamics_with_gravity(tree, ctx, out + nv * nv, out + nv * nv + nv);
  return st;
}

static void* run_job(void* arg) {
  job* j = arg;
  const int nq = mbt_tree_num_positions(j->tree), nv = mbt_tree_num_velocities(j->tree);
  mbt_context* ctx = mbt_context_create(j->tree);
  j->status = ctx ? MBT_OK : MBT_ERR_NO_MEMORY;
  for (int s = 0; s < kStates && j->status == MBT_OK; ++s)
    j->status = compute(j->tree, ctx, j->x + (size_t)s * (size_t)(nq + nv), j->out + (size_t)s * (size_t)(nv * nv + 2 * nv));
  mbt_context_destroy(ctx);
  return NULL;
}

static void test_contexts_in_threads_match_serial(void** state) {
  (void)state;
  mbt_tree* tree = tu_load_model("panda");
  const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  const size_t nx = (size_t)(nq + nv), nout = (size_t)(nv * nv + 2 * nv);
  mbt_context* ctx = mbt_context_create(tree);
  assert_non_null(ctx);
  /* Different states per thread. */
  mbt_real* x = malloc(sizeof(mbt_real) * nx * kStates * kThreads);
  mbt_real* serial = malloc(sizeof(mbt_real) * nout * kStates * kThreads);
  mbt_real* parallel = calloc(nout * kStates * kThreads, sizeof(mbt_real));
  assert_true(x && serial && parallel);
  for (int k = 0; k < kStates * kThreads; ++k) {
    tu_rand_state(tree, ctx);
    assert_int_equal(mbt_context_get_x(ctx, x + (size_t)k * nx, (int)nx), MBT_OK);
  }
  for (int k = 0; k < kStates * kThreads; ++k)
    assert_int_equal(compute(tree, ctx, x + (size_t)k * nx, serial + (size_t)k * nout), MBT_OK);
  pthread_t threads[kThreads];
  job jobs[kThreads];
  for (int t = 0; t < kThreads; ++t) {
    jobs[t] = (job){tree, x + (size_t)t * kStates * nx, parallel + (size_t)t * kStates * nout, MBT_ERR_INVALID_ARGUMENT};
    assert_int_equal(pthread_create(&threads[t], NULL, run_job, &jobs[t]), 0);
  }
  for (int t = 0; t < kThreads; ++t) {
    assert_int_equal(pthread_join(threads[t], NULL), 0);
    assert_int_equal(jobs[t].status, MBT_OK);
  }
  assert_memory_equal(serial, parallel, sizeof(mbt_real) * nout * kStates * kThreads);
  free(x);
  free(serial);
  free(parallel);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_contexts_in_threads_match_serial)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
