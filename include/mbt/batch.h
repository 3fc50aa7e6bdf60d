/* mbt/batch.h: many states and many simulations of one tree on all cores.
 *
 * An mbt_batch owns a small pool of POSIX threads and one context per thread, all made in
 * mbt_batch_create (the only allocation). A batched call splits its N items (states or
 * rollouts) over the threads; each item is computed exactly as the single call would compute
 * it in a fresh context with the batch's parameters, so the results are bit-identical to N
 * single calls, whatever the number of threads and however the items fall on them.
 *
 * The calling thread works as thread 0; a batch must not be used by two threads at once
 * (several batches of one tree may run side by side). Arrays of states are row-major: state
 * k of a q array is q + k·nq, of an x = [q; v] array x + k·(nq + nv), of a v-sized array
 * (v̇, tau) + k·nv, of the mass matrices M + k·nv·nv.
 *
 * Errors: a bad argument (NULL, n < 0, a context of another tree) returns its status and
 * changes nothing. A state whose computation fails (a singular articulated inertia, a zero
 * quaternion) does not stop the others: its output rows are set to NaN, its status goes to
 * status[k] if the caller gave a status array, and the call returns the status of the
 * lowest-numbered failed state with mbt_batch_last_error naming it ("state 17: ..."). */
#ifndef MBT_BATCH_H
#define MBT_BATCH_H

#include "mbt/derivatives.h"
#include "mbt/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mbt_batch mbt_batch;

/* A batch of num_threads threads (num_threads <= 0: one per online processor, at most
 * MBT_BATCH_MAX_THREADS) whose contexts hold the tree's default parameters. NULL if the tree
 * is not finalized (message in mbt_tree_last_error), a thread cannot be started, or out of
 * memory. */
#define MBT_BATCH_MAX_THREADS 256
mbt_batch* mbt_batch_create(const mbt_tree* tree, int num_threads);
void mbt_batch_destroy(mbt_batch* batch);
int mbt_batch_num_threads(const mbt_batch* batch);
const mbt_tree* mbt_batch_tree(const mbt_batch* batch);
const char* mbt_batch_last_error(const mbt_batch* batch);
/* Copies the parameters, locks and time of ctx (a context of the batch's tree) into every
 * thread's context: the batched evaluations use them from then on. */
int mbt_batch_set_parameters(mbt_batch* batch, const mbt_context* ctx);

/* tau_k = M(q_k)·v̇_k + C(q_k, v_k)·v_k − tau_g(q_k) for k < n (mbt_calc_inverse_dynamics_with_gravity).
 * x: n × (nq + nv); vdot: n × nv or NULL for zero; tau: n × nv. status: n or NULL. */
int mbt_batch_calc_inverse_dynamics(mbt_batch* batch, int n, const mbt_real* x, const mbt_real* vdot,
                                    mbt_real* tau, int* status);
/* M(q_k) by CRBA (mbt_calc_mass_matrix). q: n × nq; M: n × nv × nv. */
int mbt_batch_calc_mass_matrix(mbt_batch* batch, int n, const mbt_real* q, mbt_real* M, int* status);
/* v̇_k by ABA (mbt_calc_forward_dynamics): gravity, force elements, the batch's joint damping
 * and locks. x: n × (nq + nv); tau_applied: n × nv or NULL for none; vdot: n × nv. */
int mbt_batch_calc_forward_dynamics(mbt_batch* batch, int n, const mbt_real* x, const mbt_real* tau_applied,
                                    mbt_real* vdot, int* status);
/* Forward kinematics (mbt_calc_forward_kinematics): the pose X_WB of every body, indexed by
 * body node as the Calc functions' per-body arrays are. q: n × nq; X_WB: n × num_bodies. */
int mbt_batch_calc_forward_kinematics(mbt_batch* batch, int n, const mbt_real* q, mbt_transform* X_WB,
                                      int* status);

/* ---- derivatives (mbt/derivatives.h) over n states ------------------------------------
 * Each thread has its own derivatives workspace (made in mbt_batch_create). Matrices are
 * row-major and stacked: state k's nv×nv matrix at k·nv·nv. Outputs marked "or NULL" are
 * skipped when NULL, the others are required (MBT_ERR_INVALID_ARGUMENT naming the argument).
 * Each state equals the single call at x_k bit for bit. */

/* mbt_calc_inverse_dynamics_derivatives at x_k = [q_k; v_k], v̇_k (vdot: n × nv, or NULL for
 * zero) and tau_app_k (n × nv, or NULL for zero): tau (n × nv, or NULL), dtau_dq and dtau_dv
 * (n × nv × nv), M (n × nv × nv, or NULL). */
int mbt_batch_calc_inverse_dynamics_derivatives(mbt_batch* batch, int n, const mbt_real* x, const mbt_real* vdot,
                                                const mbt_real* tau_app, mbt_real* tau, mbt_real* dtau_dq,
                                                mbt_real* dtau_dv, mbt_real* M, int* status);
/* mbt_calc_forward_dynamics_derivatives at x_k and tau_app_k (n × nv, or NULL for zero):
 * vdot (n × nv, or NULL), dvdot_dq and dvdot_dv (n × nv × nv), dvdot_dtau = M⁻¹ (n × nv × nv,
 * or NULL). A tree with linear spring-dampers or user force elements fails every state
 * (MBT_ERR_INVALID_ARGUMENT naming the element). */
int mbt_batch_calc_forward_dynamics_derivatives(mbt_batch* batch, int n, const mbt_real* x, const mbt_real* tau_app,
                                                mbt_real* vdot, mbt_real* dvdot_dq, mbt_real* dvdot_dv,
                                                mbt_real* dvdot_dtau, int* status);
/* The linearized semi-implicit Euler step of mbt_calc_semi_implicit_euler_step_derivatives at
 * x_k and tau_app_k (n × nv, or NULL for zero), as an iLQR or MPC solver wants it:
 *   x_next_k = [q⁺; v⁺] (n × (nq + nv), or NULL),
 *   A_k = ∂(q⁺, v⁺)/∂(q, v) = [dq_dq dq_dv; dv_dq dv_dv]  (n × 2nv × 2nv, required),
 *   B_k = ∂(q⁺, v⁺)/∂tau     = [dq_dtau; dv_dtau]          (n × 2nv × nv, or NULL),
 * q directions in the v space (mbt/derivatives.h), rows of A and B in the order [q⁺; v⁺]. */
int mbt_batch_calc_semi_implicit_euler_step_derivatives(mbt_batch* batch, int n, mbt_real h, const mbt_real* x,
                                                        const mbt_real* tau_app, mbt_real* x_next, mbt_real* A,
                                                        mbt_real* B, int* status);

/* ---- rollouts ------------------------------------------------------------------------- */
/* One simulation: from the state, time, parameters and locks of `initial` (a context of the
 * batch's tree; the caller keeps it alive and unchanged during the call) to t_final, with its
 * own control and observer (called from the thread that runs it). With a trajectory buffer,
 * the state is recorded at num_samples evenly spaced times t0 + k·(t_final − t0)/(num_samples
 * − 1), k = 0 … num_samples − 1 (num_samples >= 2), each row [t, q, v] of 1 + nq + nv numbers;
 * the simulator then lands on every sample time, so the steps (and results) depend on
 * num_samples as they would in a single simulation doing the same. Rows not reached (the
 * run failed or was stopped) are NaN. */
typedef struct {
  /* inputs */
  const mbt_context* initial;
  mbt_real t_final;
  mbt_control_fn control;        /* may be NULL: no control torques */
  void* control_data;
  mbt_observer_fn observer;      /* may be NULL; returning false stops this rollout */
  void* observer_data;
  int num_samples;               /* rows of trajectory (0 if trajectory is NULL) */
  mbt_real* trajectory;          /* num_samples × (1 + nq + nv), or NULL */
  mbt_real* x_final;             /* nq + nv: the state reached, or NULL */
  /* outputs */
  int status;                    /* MBT_OK, the simulator's status, or MBT_ERR_INTERRUPTED if
                                    the observer stopped it or it was never started */
  mbt_real t_reached;            /* the time of the last accepted step */
  mbt_simulator_stats stats;
  char error[256];               /* the simulator's message when status != MBT_OK */
} mbt_rollout;

/* Called once per finished rollout, one call at a time (under the batch's lock), from the
 * thread that ran it; rollouts finish in no fixed order. Returning false starts no further
 * rollout: those not yet started get MBT_ERR_INTERRUPTED ("not started"). */
typedef bool (*mbt_rollout_done_fn)(int index, const mbt_rollout* rollout, void* user_data);

/* Runs n rollouts over the batch's threads, each with its own simulator (created for the
 * rollout with `options`, NULL for the defaults, and destroyed after it) and the default
 * joint-limit penalty. Each rollout is deterministic: its results depend on its inputs only,
 * not on the thread count or on the other rollouts. Returns MBT_OK if every rollout reached
 * t_final, else the status of the lowest-numbered one that did not (message in
 * mbt_batch_last_error); a bad argument (NULL rollouts or initial context, a context of
 * another tree, t_final before the initial time, num_samples < 2 with a trajectory) returns
 * MBT_ERR_INVALID_ARGUMENT before any rollout starts. */
int mbt_batch_rollouts(mbt_batch* batch, const mbt_simulator_options* options, mbt_rollout* rollouts, int n,
                       mbt_rollout_done_fn done, void* user_data);

#ifdef __cplusplus
}
#endif
#endif /* MBT_BATCH_H */
