/* mbt/dynamics.h: inverse dynamics, force elements, energy, mass matrix, bias term,
 * forward dynamics.
 *
 * Equations of motion (seed MultibodyTree): M(q)·v̇ + C(q,v)·v = tau_g(q) + tau_app
 *   + Σ J_WBᵀ·Fapp_Bo_W, where tau_g is the generalized force of gravity.
 * Same rules as kinematics.h: no allocation, per-body arrays by node, row-major matrices,
 * statuses with messages in mbt_context_last_error(). Where an input array is optional,
 * NULL means none (zero). */
#ifndef MBT_DYNAMICS_H
#define MBT_DYNAMICS_H

#include "mbt/kinematics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seed CalcInverseDynamics (recursive Newton-Euler, O(n)):
 *   tau = M(q)·v̇ + C(q,v)·v − tau_app − Σ J_WBᵀ·Fapp_Bo_W.
 * Gravity and other force elements are NOT included: pass them in through the applied
 * forces (mbt_calc_force_elements_contribution). Fapp_Bo_W_array (per node) and
 * tau_applied (nv) may be NULL. Outputs: A_WB_array and F_BMo_W_array (per node, may be
 * NULL) and tau (nv). F_BMo_W_array may alias Fapp_Bo_W_array and tau may alias
 * tau_applied, as the seed allows. */
int mbt_calc_inverse_dynamics(const mbt_tree* tree, mbt_context* ctx, const mbt_real* known_vdot,
                              const mbt_spatial_force* Fapp_Bo_W_array, const mbt_real* tau_applied,
                              mbt_spatial_acceleration* A_WB_array, mbt_spatial_force* F_BMo_W_array,
                              mbt_real* tau);
/* Inverse dynamics with gravity, as Pinocchio's rnea and MuJoCo's mj_rne compute it:
 *   tau = M(q)·v̇ + C(q,v)·v − tau_g(q)
 * at the context's q and v (tau_g: the generalized force of the tree's gravity field; springs,
 * damping and user force elements are not included). known_vdot (nv) may be NULL for zero.
 * Equal to mbt_calc_inverse_dynamics with the gravity forces applied, faster: one pass in body
 * frames with gravity as a base acceleration [Featherstone 2008, §5.3], without the context's
 * kinematics caches (it neither needs nor changes them). */
int mbt_calc_inverse_dynamics_with_gravity(const mbt_tree* tree, mbt_context* ctx, const mbt_real* known_vdot,
                                           mbt_real* tau);
/* Seed CalcForceElementsContribution: sets `forces` to the spatial and generalized forces of
 * all force elements (gravity, springs, user elements) and of joint damping. */
int mbt_calc_force_elements_contribution(const mbt_tree* tree, mbt_context* ctx, mbt_multibody_forces* forces);
/* Seed CalcPotentialEnergy: gravity over every body except the world (zero at the world
 * origin) plus springs. Seed CalcConservativePower: −dU/dt along the motion. */
int mbt_calc_potential_energy(const mbt_tree* tree, mbt_context* ctx, mbt_real* U);
int mbt_calc_conservative_power(const mbt_tree* tree, mbt_context* ctx, mbt_real* Pc);
/* ½·vᵀ·M·v = ½·Σ V_WB·L_WBo. */
int mbt_calc_kinetic_energy(const mbt_tree* tree, mbt_context* ctx, mbt_real* K);
/* Seed CalcMassMatrixViaInverseDynamics: column j = ID with v̇ = e_j, v = 0, no gravity. */
int mbt_calc_mass_matrix_via_inverse_dynamics(const mbt_tree* tree, mbt_context* ctx, mbt_real* M);
/* Composite-rigid-body algorithm [Featherstone 2008, §6.2]. M is nv×nv, full, symmetric. */
int mbt_calc_mass_matrix(const mbt_tree* tree, mbt_context* ctx, mbt_real* M);
/* Seed CalcBiasTerm: C(q,v)·v (Coriolis, centripetal, gyroscopic; no gravity). */
int mbt_calc_bias_term(const mbt_tree* tree, mbt_context* ctx, mbt_real* Cv);
/* tau_g(q): the generalized force of gravity (M·v̇ + C·v = tau_g + tau). */
int mbt_calc_gravity_generalized_forces(const mbt_tree* tree, mbt_context* ctx, mbt_real* tau_g);

/* Forward dynamics by the articulated-body algorithm (O(n)) [Featherstone 2008, §7.3]:
 *   v̇ = M⁻¹·(tau_app + Σ J_WBᵀ·Fapp_Bo_W + tau_forces − C(q,v)·v)
 * where tau_forces are all force elements (gravity, springs, user) and joint damping of the
 * context. Locked joints get v̇ = 0 and act as welds. MBT_ERR_SINGULAR (naming the body) if
 * an articulated inertia is singular; vdot is then unchanged. */
int mbt_calc_forward_dynamics(const mbt_tree* tree, mbt_context* ctx, const mbt_real* tau_applied,
                              const mbt_spatial_force* Fapp_Bo_W_array, mbt_real* vdot);
/* The same through the mass matrix and its Cholesky factorization. */
int mbt_calc_forward_dynamics_via_mass_matrix(const mbt_tree* tree, mbt_context* ctx,
                                              const mbt_real* tau_applied,
                                              const mbt_spatial_force* Fapp_Bo_W_array, mbt_real* vdot);

/* Dense Cholesky of a symmetric positive-definite n×n row-major matrix, in place (the lower
 * triangle gets L with A = L·Lᵀ). MBT_ERR_SINGULAR if not positive definite; the lower
 * triangle is then partly overwritten (as LAPACK's potrf leaves it). */
int mbt_cholesky_factor(mbt_real* A, int n);
/* Solves L·Lᵀ·x = b in place (b becomes x) with the factor from mbt_cholesky_factor. */
void mbt_cholesky_solve(const mbt_real* L, int n, mbt_real* b);

#ifdef __cplusplus
}
#endif
#endif /* MBT_DYNAMICS_H */
