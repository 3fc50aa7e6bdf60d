/* bench_derivatives.c: the rows id_derivatives and fd_derivatives, each timed in alternating
 * batches beside the mbt operation it differentiates (id: inverse dynamics with gravity;
 * aba: forward dynamics), so that the ratio is measured under one machine load. Each call
 * starts from a new state, as the operations of bench_mbt.c do. */
#include <stdlib.h>

#include "bench.h"

typedef struct {
  const mbt_tree* tree;
  mbt_context* ctx;               /* the mbt side's (damping zero) */
  const mbt_bench_states* st;
  mbt_derivatives_workspace* ws;
  int nq, nv;
  double *A, *B, *C, *vdot;
} deriv_bench;

/* id_derivatives: x ← state; ∂tau/∂q and ∂tau/∂v (M comes with them) of tau = M·v̇ + C·v − tau_g. */
static int op_id_derivatives(void* u, int k) {
  deriv_bench* d = u;
  const size_t nx = (size_t)(d->nq + d->nv);
  int st = mbt_context_set_x(d->ctx, d->st->x + nx * (size_t)k, (int)nx);
  st |= mbt_calc_inverse_dynamics_derivatives(d->tree, d->ctx, d->ws, d->st->vdot + (size_t)d->nv * (size_t)k, NULL,
                                              NULL, d->A, d->B, NULL);
  return st;
}
/* fd_derivatives: x ← state; v̇ = FD(tau), ∂v̇/∂q, ∂v̇/∂v and ∂v̇/∂tau = M⁻¹. */
static int op_fd_derivatives(void* u, int k) {
  deriv_bench* d = u;
  const size_t nx = (size_t)(d->nq + d->nv);
  int st = mbt_context_set_x(d->ctx, d->st->x + nx * (size_t)k, (int)nx);
  st |= mbt_calc_forward_dynamics_derivatives(d->tree, d->ctx, d->ws, d->st->tau + (size_t)d->nv * (size_t)k,
                                              d->vdot, d->A, d->B, d->C);
  return st;
}

int mbt_bench_derivatives(const mbt_tree* tree, const mbt_bench_states* states, const mbt_bench_timing* t,
                          mbt_bench_mbt* bm, mbt_bench_derivative_row* rows) {
  deriv_bench d = {tree, mbt_bench_mbt_context(bm), states, NULL, mbt_tree_num_positions(tree),
                   mbt_tree_num_velocities(tree), NULL, NULL, NULL, NULL};
  const size_t nn = (size_t)d.nv * (size_t)d.nv + 1;
  d.ws = mbt_derivatives_workspace_create(tree);
  d.A = calloc(3 * nn + (size_t)d.nv + 1, sizeof(double));
  if (!d.ws || !d.A) {
    mbt_derivatives_workspace_destroy(d.ws);
    free(d.A);
    return MBT_ERR_NO_MEMORY;
  }
  d.B = d.A + nn, d.C = d.B + nn, d.vdot = d.C + nn;
  const mbt_bench_fn fns[MBT_BENCH_NUM_DERIVATIVE_ROWS] = {op_id_derivatives, op_fd_derivatives};
  const mbt_bench_op base[MBT_BENCH_NUM_DERIVATIVE_ROWS] = {MBT_BENCH_OP_ID, MBT_BENCH_OP_ABA};
  int st = MBT_OK;
  for (int r = 0; r < MBT_BENCH_NUM_DERIVATIVE_ROWS && st == MBT_OK; ++r) {
    mbt_bench_mbt_prepare_op(bm, base[r]);
    st = mbt_bench_time_pair(t, fns[r], &d, mbt_bench_mbt_op(base[r]), bm, states->num_states, &rows[r].deriv,
                             &rows[r].base, &rows[r].ratio);
  }
  mbt_derivatives_workspace_destroy(d.ws);
  free(d.A);
  return st;
}

const char* mbt_bench_derivative_row_name(int row) { return row == 0 ? "id_derivatives" : "fd_derivatives"; }
const char* mbt_bench_derivative_row_title(int row) {
  return row == 0 ? "∂tau/∂q, ∂tau/∂v (vs id)" : "∂v̇/∂q, ∂v̇/∂v, M⁻¹ (vs aba)";
}
double mbt_bench_derivative_row_target(int row) { return row == 0 ? 3.0 : 2.5; }
