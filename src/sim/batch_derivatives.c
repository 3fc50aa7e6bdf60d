/* batch_derivatives.c: the derivatives of mbt/derivatives.h over n states (mbt/batch.h).
 *
 * Each item sets its thread's context to x_k (which invalidates every cache) and calls the
 * single function with that thread's workspace, writing straight into row k of the outputs
 * (the step's A and B are assembled from the single call's blocks, copied exactly). No item
 * reads anything another item wrote, so the results equal the single calls bit for bit at
 * any thread count. A failed state's rows are NaN. */
#include <stdio.h>
#include <string.h>

#include "sim/batch_internal.h"

static mbt_real* row_or_null(mbt_real* base, int k, size_t size) {
  return base ? base + (size_t)k * size : NULL;
}

static const mbt_real* in_row(const mbt_real* base, int k, size_t size) {
  return base ? base + (size_t)k * size : NULL;
}

/* NaN in every given output row of state k: sizes[i] numbers of outs[i]. */
static void fill_rows_nan(int k, int count, mbt_real* const* outs, const size_t* sizes) {
  for (int i = 0; i < count; ++i)
    if (outs[i]) mbt__batch_fill_nan(outs[i] + (size_t)k * sizes[i], sizes[i]);
}

static int item_id_derivatives(mbt_batch* b, int thread, int k, char* msg, size_t msg_size) {
  const mbt__batch_eval_job* j = b->job;
  const size_t nq = (size_t)b->tree->nq, nv = (size_t)b->tree->nv, nv2 = nv * nv;
  mbt_context* ctx = b->ctx[thread];
  mbt_real* tau = row_or_null(j->out, k, nv);
  int st = mbt_context_set_x(ctx, j->in + (size_t)k * (nq + nv), (int)(nq + nv));
  if (!st)
    st = mbt_calc_inverse_dynamics_derivatives(b->tree, ctx, b->ws[thread], in_row(j->in2, k, nv),
                                               in_row(j->in3, k, nv), tau, row_or_null(j->out2, k, nv2),
                                               row_or_null(j->out3, k, nv2), row_or_null(j->out4, k, nv2));
  if (st) fill_rows_nan(k, 4, (mbt_real* const[]){j->out, j->out2, j->out3, j->out4}, (size_t[]){nv, nv2, nv2, nv2});
  return mbt__batch_finish_item(b, thread, k, st, msg, msg_size);
}

static int item_fd_derivatives(mbt_batch* b, int thread, int k, char* msg, size_t msg_size) {
  const mbt__batch_eval_job* j = b->job;
  const size_t nq = (size_t)b->tree->nq, nv = (size_t)b->tree->nv, nv2 = nv * nv;
  mbt_context* ctx = b->ctx[thread];
  int st = mbt_context_set_x(ctx, j->in + (size_t)k * (nq + nv), (int)(nq + nv));
  if (!st)
    st = mbt_calc_forward_dynamics_derivatives(b->tree, ctx, b->ws[thread], in_row(j->in2, k, nv),
                                               row_or_null(j->out, k, nv), row_or_null(j->out2, k, nv2),
                                               row_or_null(j->out3, k, nv2), row_or_null(j->out4, k, nv2));
  if (st) fill_rows_nan(k, 4, (mbt_real* const[]){j->out, j->out2, j->out3, j->out4}, (size_t[]){nv, nv2, nv2, nv2});
  return mbt__batch_finish_item(b, thread, k, st, msg, msg_size);
}

/* Block (r, c) of an nv×nv block matrix with `cols` blocks per row: the nv×nv row-major block
 * src copied in. */
static void put_block(mbt_real* dst, int cols, int r, int c, const mbt_real* src, size_t nv) {
  const size_t ld = (size_t)cols * nv;
  for (size_t i = 0; i < nv; ++i)
    memcpy(dst + ((size_t)r * nv + i) * ld + (size_t)c * nv, src + i * nv, nv * sizeof(mbt_real));
}

/* The step's six nv×nv blocks (in the thread's scratch) into A_k = [dq_dq dq_dv; dv_dq dv_dv]
 * and B_k = [dq_dtau; dv_dtau]. */
static void assemble_step(const mbt_real* blk, size_t nv, mbt_real* A, mbt_real* B) {
  const size_t nv2 = nv * nv;
  put_block(A, 2, 0, 0, blk, nv);
  put_block(A, 2, 0, 1, blk + nv2, nv);
  put_block(A, 2, 1, 0, blk + 3 * nv2, nv);
  put_block(A, 2, 1, 1, blk + 4 * nv2, nv);
  if (B) {
    put_block(B, 1, 0, 0, blk + 2 * nv2, nv);
    put_block(B, 1, 1, 0, blk + 5 * nv2, nv);
  }
}

static int item_step_derivatives(mbt_batch* b, int thread, int k, char* msg, size_t msg_size) {
  const mbt__batch_eval_job* j = b->job;
  const size_t nq = (size_t)b->tree->nq, nv = (size_t)b->tree->nv, nv2 = nv * nv, nx = nq + nv;
  mbt_context* ctx = b->ctx[thread];
  mbt_real* blk = b->scratch[thread]; /* dq_dq, dq_dv, dq_dtau, dv_dq, dv_dv, dv_dtau */
  mbt_real* x_next = row_or_null(j->out, k, nx);
  mbt_real* A = (mbt_real*)j->out2 + (size_t)k * 4 * nv2;
  mbt_real* B = row_or_null(j->out3, k, 2 * nv2);
  int st = mbt_context_set_x(ctx, j->in + (size_t)k * nx, (int)nx);
  if (!st)
    st = mbt_calc_semi_implicit_euler_step_derivatives(b->tree, ctx, b->ws[thread], j->h, in_row(j->in2, k, nv),
                                                       x_next, x_next ? x_next + nq : NULL, blk, blk + nv2,
                                                       B ? blk + 2 * nv2 : NULL, blk + 3 * nv2, blk + 4 * nv2,
                                                       B ? blk + 5 * nv2 : NULL);
  if (!st) assemble_step(blk, nv, A, B);
  if (st) fill_rows_nan(k, 3, (mbt_real* const[]){j->out, j->out2, j->out3}, (size_t[]){nx, 4 * nv2, 2 * nv2});
  return mbt__batch_finish_item(b, thread, k, st, msg, msg_size);
}

/* The required arrays are there (an empty tree needs none). */
static int check_required(mbt_batch* b, const char* fn, int n, const mbt_real* x, const mbt_real* m1,
                          const char* name1, const mbt_real* m2, const char* name2) {
  if (!b) return MBT_ERR_INVALID_ARGUMENT;
  if (n > 0 && b->tree->nv > 0) {
    if (!x) return mbt__batch_error(b, MBT_ERR_INVALID_ARGUMENT, "%s: x is NULL", fn);
    if (!m1) return mbt__batch_error(b, MBT_ERR_INVALID_ARGUMENT, "%s: %s is NULL (required)", fn, name1);
    if (name2 && !m2) return mbt__batch_error(b, MBT_ERR_INVALID_ARGUMENT, "%s: %s is NULL (required)", fn, name2);
  }
  return MBT_OK;
}

int mbt_batch_calc_inverse_dynamics_derivatives(mbt_batch* b, int n, const mbt_real* x, const mbt_real* vdot,
                                                const mbt_real* tau_app, mbt_real* tau, mbt_real* dtau_dq,
                                                mbt_real* dtau_dv, mbt_real* M, int* status) {
  const char* fn = "mbt_batch_calc_inverse_dynamics_derivatives";
  const int st = check_required(b, fn, n, x, dtau_dq, "dtau_dq", dtau_dv, "dtau_dv");
  if (st) return st;
  const mbt__batch_eval_job job = {.in = x, .in2 = vdot, .in3 = tau_app, .out = tau, .out2 = dtau_dq,
                                   .out3 = dtau_dv, .out4 = M, .status = status};
  return mbt__batch_run_eval(b, fn, item_id_derivatives, n, &job);
}

int mbt_batch_calc_forward_dynamics_derivatives(mbt_batch* b, int n, const mbt_real* x, const mbt_real* tau_app,
                                                mbt_real* vdot, mbt_real* dvdot_dq, mbt_real* dvdot_dv,
                                                mbt_real* dvdot_dtau, int* status) {
  const char* fn = "mbt_batch_calc_forward_dynamics_derivatives";
  const int st = check_required(b, fn, n, x, dvdot_dq, "dvdot_dq", dvdot_dv, "dvdot_dv");
  if (st) return st;
  const mbt__batch_eval_job job = {.in = x, .in2 = tau_app, .out = vdot, .out2 = dvdot_dq, .out3 = dvdot_dv,
                                   .out4 = dvdot_dtau, .status = status};
  return mbt__batch_run_eval(b, fn, item_fd_derivatives, n, &job);
}

int mbt_batch_calc_semi_implicit_euler_step_derivatives(mbt_batch* b, int n, mbt_real h, const mbt_real* x,
                                                        const mbt_real* tau_app, mbt_real* x_next, mbt_real* A,
                                                        mbt_real* B, int* status) {
  const char* fn = "mbt_batch_calc_semi_implicit_euler_step_derivatives";
  const int st = check_required(b, fn, n, x, A, "A", NULL, NULL);
  if (st) return st;
  const mbt__batch_eval_job job = {.in = x, .in2 = tau_app, .out = x_next, .out2 = A, .out3 = B, .h = h,
                                   .status = status};
  return mbt__batch_run_eval(b, fn, item_step_derivatives, n, &job);
}
