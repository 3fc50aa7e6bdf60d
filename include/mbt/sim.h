/* mbt/sim.h: time integration of x = [q; v] with q̇ = N(q)·v and v̇ from forward dynamics.
 *
 * A simulator owns a context of the tree (a copy of the one it was created from) and
 * advances it in time with one of the integrators below. Each evaluation of the dynamics
 * calls the user's control callback tau = u(t, q, v) (if any); the observer (if any) is
 * called once at the start (t0, on the first mbt_simulator_advance_to) and after every
 * accepted step. Quaternions of floating mobilizers are renormalized after each step.
 * Joint position limits are enforced by a one-sided penalty in continuous time (see
 * mbt_simulator_set_limit_penalty). The simulator allocates when created, never while
 * stepping. docs/sim.md describes the methods and their parameters. */
#ifndef MBT_SIM_H
#define MBT_SIM_H

#include "mbt/contact.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  MBT_INTEGRATOR_EXPLICIT_EULER = 0,  /* "euler" */
  MBT_INTEGRATOR_SEMI_IMPLICIT_EULER, /* "semi_implicit_euler" (symplectic) */
  MBT_INTEGRATOR_RK4,                 /* "rk4" classic fixed step */
  MBT_INTEGRATOR_RK45,                /* "rk45": adaptive Dormand-Prince 5(4) with error control */
  MBT_INTEGRATOR_TIME_STEPPING,       /* "time_stepping": semi-implicit Euler with contact impulses */
  MBT_INTEGRATOR_NUM_TYPES
} mbt_integrator_type;

/* Name <-> type. mbt_integrator_from_name returns -1 for an unknown name. */
const char* mbt_integrator_name(mbt_integrator_type type);
int mbt_integrator_from_name(const char* name);

/* tau (nv) = u(t, q, v): generalized forces added to the dynamics. */
typedef void (*mbt_control_fn)(mbt_real t, const mbt_real* q, const mbt_real* v, mbt_real* tau,
                               void* user_data);
/* Called after every accepted step (and once at the start). Return false to stop the run
 * (mbt_simulator_advance_to then returns MBT_ERR_INTERRUPTED). */
typedef bool (*mbt_observer_fn)(const mbt_context* ctx, void* user_data);

/* Fixed-step methods take steps of dt; every method shortens its last step to land exactly on
 * t_final. rk45 (Dormand–Prince 5(4), FSAL, 5th-order solution kept) accepts a step when the
 * weighted RMS error sqrt(mean((e_i / (atol + rtol·max(|x_i|, |x⁺_i|)))²)) <= 1, else rejects
 * it; a PI controller (safety 0.9, factor in [0.2, 5]) picks the next step, never above dt. */
typedef struct {
  mbt_integrator_type integrator;
  mbt_real dt;              /* fixed step, or the initial and maximum step of rk45 (> 0) */
  mbt_real rtol, atol;      /* rk45 tolerances (rtol >= 0, atol > 0) */
  mbt_real min_dt;          /* rk45: smallest step before giving up (0 < min_dt <= dt) */
} mbt_simulator_options;

/* Defaults: rk45, dt 1e-3, rtol 1e-6, atol 1e-8, min_dt 1e-12. */
mbt_simulator_options mbt_simulator_default_options(void);

typedef struct {
  long steps_taken;         /* accepted steps */
  long steps_rejected;      /* rk45 rejected steps */
  long dynamics_evaluations;
  long limit_events;        /* entries of a limited coordinate beyond its limit (per accepted step) */
  long contact_points;      /* contact points over all steps (time_stepping with a contact model) */
  long contact_iterations;  /* contact solver iterations (SAP: Newton; PGS: sweeps) over all steps */
  long contact_unconverged; /* steps whose contact solver stopped above its tolerance */
  long contacts_dropped;    /* contact points beyond the workspace's capacity (not applied) */
  double contact_residual_max; /* the largest relative residual a contact solve ended with */
} mbt_simulator_stats;

typedef struct mbt_simulator mbt_simulator;

/* NULL on failure (bad options: the message goes to the context's error). */
mbt_simulator* mbt_simulator_create(const mbt_tree* tree, const mbt_context* initial,
                                    const mbt_simulator_options* options);
void mbt_simulator_destroy(mbt_simulator* sim);
const char* mbt_simulator_last_error(const mbt_simulator* sim);
void mbt_simulator_set_control(mbt_simulator* sim, mbt_control_fn fn, void* user_data);
void mbt_simulator_set_observer(mbt_simulator* sim, mbt_observer_fn fn, void* user_data);
/* Penalty for joint position limits: beyond a limit by δ > 0 the joint gets
 * tau = −k·δ − c·δ̇ (only while it pushes outward: the force never pulls). Defaults
 * k = 1e4 N·m/rad, c = 1e2 N·m·s/rad; k = 0 disables the limits. Applies to every coordinate
 * with a finite limit of the joints whose q̇ = v (revolute, prismatic, screw, universal,
 * planar). Negative or non-finite values are refused (unchanged, message in last_error). */
void mbt_simulator_set_limit_penalty(mbt_simulator* sim, mbt_real stiffness, mbt_real damping);
/* Advances to time t_final (>= the current time). MBT_OK, MBT_ERR_INTERRUPTED (the observer
 * said stop), or an error with the state at the last accepted step: the status of forward
 * dynamics (MBT_ERR_SINGULAR naming the body, ...), MBT_ERR_SINGULAR for an rk45 step below
 * min_dt or a fixed-step state that is no longer finite, MBT_ERR_INVALID_ARGUMENT for a bad
 * t_final. The message is in mbt_simulator_last_error. State, parameters and locks changed in
 * mbt_simulator_context() between calls are taken up by the next call. */
int mbt_simulator_advance_to(mbt_simulator* sim, mbt_real t_final);
/* Contact (mbt/contact.h). A model of the simulator's tree makes every step of the
 * "time_stepping" integrator solve for contact impulses; the other integrators refuse it
 * (MBT_ERR_INVALID_ARGUMENT: their steps assume a smooth ẋ, which contact is not). The model
 * must outlive the simulator or be replaced; NULL removes it. Allocates the contact workspace
 * (up to 8 contact points per shape, between 32 and 512 in all). Time stepping (docs/contact.md):
 *   v* = v + h·v̇(t, q, v)                     (forward dynamics with control, limits, damping)
 *   v⁺ = v* + M⁻¹·Jᵀ·γ                        (γ: contact impulses, solved implicitly)
 *   q⁺ = q + h·N(q)·v⁺
 * with contacts detected at q. Without a model the scheme is semi-implicit Euler. */
int mbt_simulator_set_contact_model(mbt_simulator* sim, const mbt_contact_model* model);
/* Contact points of the last step (valid until the next step): their count and array. */
int mbt_simulator_num_contacts(const mbt_simulator* sim);
const mbt_contact_result* mbt_simulator_contact_results(const mbt_simulator* sim);
/* The last step's total contact force on every body, F_Bo_W (at the body origin, in W, at the
 * step's start configuration), indexed by body (num_bodies entries). */
int mbt_simulator_contact_body_forces(const mbt_simulator* sim, mbt_spatial_force* F_Bo_W, int num_bodies);
/* The selected contact solver's limits (each method keeps its own): iterations (>= 1, default
 * 100) and relative tolerance (> 0). SAP (default 1e-10): Newton iterations, stopping when the
 * momentum residual ‖D·(M·(v − v*) − Jᵀ·γ)‖ (D = diag(M)^(−1/2)) is below
 * 1e-14 + tolerance·max(‖D·M·(v − v*)‖, ‖D·Jᵀ·γ‖). PGS (default 1e-6): sweeps, stopping when a
 * sweep changes no contact velocity by more than tolerance·max |v_c*|. */
int mbt_simulator_set_contact_solver(mbt_simulator* sim, int max_iterations, mbt_real tolerance);

/* The contact problem's solver (docs/contact.md):
 *   SAP (default): Drake's SAP solver [Castro et al., IEEE T-RO 2022] on the "lagged" convex
 *     approximation (the friction bound μ_d·n0 from the normal impulse at the start of the
 *     step, stiction regularized: a sticking contact creeps at micrometres per second): the
 *     velocities minimizing a convex function by Newton's method with an exact line search;
 *     converges in a few iterations on every step;
 *   PGS: projected Gauss–Seidel on exact Coulomb friction with static and dynamic coefficients
 *     (no creep), which may stop at its sweep limit on many redundant contacts. */
typedef enum { MBT_CONTACT_SOLVER_SAP = 0, MBT_CONTACT_SOLVER_PGS = 1 } mbt_contact_solver_method;
int mbt_simulator_set_contact_solver_method(mbt_simulator* sim, mbt_contact_solver_method method);

/* The simulator's context (state at the current time). */
mbt_context* mbt_simulator_context(mbt_simulator* sim);
mbt_simulator_stats mbt_simulator_get_stats(const mbt_simulator* sim);
/* The derivative ẋ = [N(q)·v; v̇] (nq + nv) at the state, time and parameters of ctx (a
 * context of the same tree), with the control and limits. */
int mbt_simulator_calc_time_derivatives(mbt_simulator* sim, const mbt_context* ctx, mbt_real* xdot);

#ifdef __cplusplus
}
#endif
#endif /* MBT_SIM_H */
