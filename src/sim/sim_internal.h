/* sim_internal.h: the layout of mbt_simulator and what simulator.c and integrators.c share
 * (not installed). State x = [q; v] (nx = nq + nv). */
#ifndef MBT_SIM_INTERNAL_H
#define MBT_SIM_INTERNAL_H

#include "mbt/sim.h"
#include "tree/context_internal.h"

/* Dormand–Prince 5(4) has 7 stages (the 7th is the first of the next step, FSAL). */
#define MBT__SIM_MAX_STAGES 7

/* A coordinate of a joint with a finite position limit (q̇ = v for it). */
typedef struct {
  int q_index, v_index, joint;
  mbt_real lower, upper;   /* ±∞ where one side is open */
} mbt__sim_limit;

struct mbt_simulator {
  const mbt_tree* tree;
  mbt_context* ctx;           /* the accepted state, given to the observer and the user */
  mbt_context* work;          /* stage evaluations */
  mbt_simulator_options opt;
  mbt_control_fn control;
  void* control_data;
  mbt_observer_fn observer;
  void* observer_data;
  mbt_real limit_stiffness, limit_damping;
  mbt_simulator_stats stats;
  bool started;               /* the observer has seen t0 */
  int nq, nv, nx;
  mbt_real* x;                /* [nx] accepted state */
  mbt_real* xn;               /* [nx] candidate state */
  mbt_real* xs;               /* [nx] stage state */
  mbt_real* k[MBT__SIM_MAX_STAGES]; /* [nx] stage derivatives */
  mbt_real* tau;              /* [nv] control plus limit penalty */
  bool fsal_valid;            /* k[0] = f(t, x) from the last accepted rk45 step */
  mbt_real h_next;            /* rk45: the controller's next step (0: start from opt.dt) */
  mbt_real err_prev;          /* rk45: the previous accepted error norm (PI controller) */
  int num_limits;
  mbt__sim_limit* limits;     /* [num_limits] */
  bool* beyond;               /* [num_limits] beyond its limit at the last accepted step */
  struct mbt__sim_contact* contact; /* time_stepping with a contact model (contact_step.c) */
  bool limits_in_step;        /* the step handles the joint limits: no penalty in the derivative */
  char error[MBT_ERROR_MAX];
};

/* Records a formatted error in the simulator and returns status. */
int mbt__sim_error(mbt_simulator* sim, int status, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* xdot = f(t, x) in the work context: control, limit penalty, forward dynamics, q̇ = N(q)·v. */
int mbt__sim_eval(mbt_simulator* sim, mbt_real t, const mbt_real* x, mbt_real* xdot);
/* Accepts sim->xn at time t: renormalizes its quaternions, makes it the state (x ↔ xn),
 * copies it to the simulator's context, counts the step and limit entries, calls the
 * observer. MBT_ERR_INTERRUPTED if the observer says stop. */
int mbt__sim_accept(mbt_simulator* sim, mbt_real t);

/* Advances sim->x from the context's time to t_final with the chosen integrator
 * (integrators.c). Each accepted step goes through mbt__sim_accept. */
int mbt__integrate_to(mbt_simulator* sim, mbt_real t_final);

/* M = Lᵀ·D·L with the tree's sparsity (ltdl.c; the factor: mbt__ltdl_factor_ex, cholesky.c).
 * lambda[k]: the parent dof of dof k (−1 at a root); false if the dofs are not numbered parents
 * first. The factor overwrites M's lower triangle (D on the diagonal, L below); solve_lt
 * applies L⁻ᵀ, solve M⁻¹, in place. */
bool mbt__dof_parents(const mbt_tree* tree, int* lambda);
void mbt__ltdl_solve_lt(const mbt_real* L, int n, const int* lambda, mbt_real* x);
void mbt__ltdl_solve(const mbt_real* L, int n, const int* lambda, mbt_real* x);

/* The time-stepping step x → xn over h (contact_step.c), and the contact workspace. */
int mbt__step_time_stepping(mbt_simulator* sim, mbt_real t, mbt_real h);
void mbt__sim_contact_destroy(struct mbt__sim_contact* c);

#endif /* MBT_SIM_INTERNAL_H */
