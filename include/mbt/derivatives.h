/* mbt/derivatives.h: analytic derivatives of the dynamics (what the seeds' ToAutoDiffXd and
 * CloneToScalar are for), exact to round-off, by recursions over the tree (docs/derivatives.md).
 *
 * Convention: derivatives with respect to q are taken in the v space. Column k of ∂f/∂q is
 * d/dε f(q ⊕ ε·e_k) at ε = 0 (mbt_integrate_configuration below), i.e. (∂f/∂q)·N(q)·e_k, so
 * every matrix is nv×nv, also for the quaternion-floating, SpaceXYZ and planar mobilizers.
 * v, v̇ and tau are held fixed in mbt's own coordinates. Matrices are row-major, nv×nv:
 * row i = output i, column k = direction k.
 *
 * The inverse dynamics differentiated here is the one a trajectory optimizer inverts:
 *   tau = M(q)·v̇ + C(q,v)·v − tau_g(q) + D·v + K·(q − q0) − tau_app,
 * with tau_g the generalized force of the tree's uniform gravity, D the context's joint
 * damping (diagonal), K·(q − q0) the revolute springs (force elements), tau_app given.
 * Forward dynamics v̇ = FD(q, v, tau_app) is its inverse (mbt_calc_forward_dynamics).
 * Linear spring-dampers between bodies and user force callbacks are not differentiated: the
 * forward dynamics derivatives refuse a tree that has them (MBT_ERR_INVALID_ARGUMENT).
 *
 * The work memory (per node and per velocity; nothing is allocated by the Calc functions) is a
 * workspace made once per tree and context; one workspace must not be used by two threads at
 * once. Errors are reported in the context (mbt_context_last_error); a failed call leaves
 * its outputs unchanged. */
#ifndef MBT_DERIVATIVES_H
#define MBT_DERIVATIVES_H

#include "mbt/dynamics.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mbt_derivatives_workspace mbt_derivatives_workspace;

/* The work memory of the derivative algorithms for a finalized tree; NULL if the tree is not
 * finalized (message in mbt_tree_last_error) or out of memory. */
mbt_derivatives_workspace* mbt_derivatives_workspace_create(const mbt_tree* tree);
void mbt_derivatives_workspace_destroy(mbt_derivatives_workspace* ws);

/* Inverse dynamics and its derivatives at the context's q and v and the given v̇ (known_vdot,
 * NULL for zero) and tau_app (NULL for zero), by the recursions of Carpentier & Mansard
 * (RSS 2018) in world coordinates, on the local nodes (welds merged):
 *   tau (nv, may be NULL), dtau_dq = ∂tau/∂q, dtau_dv = ∂tau/∂v (nv×nv, required),
 *   M = ∂tau/∂v̇ (nv×nv, may be NULL), the mass matrix, from the same pass. */
int mbt_calc_inverse_dynamics_derivatives(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                          const mbt_real* known_vdot, const mbt_real* tau_app, mbt_real* tau,
                                          mbt_real* dtau_dq, mbt_real* dtau_dv, mbt_real* M);

/* Forward dynamics and its derivatives at the context's q, v and the given tau_app (NULL for
 * zero): vdot = FD (nv, may be NULL), dvdot_dq, dvdot_dv (nv×nv, required) and
 * dvdot_dtau = M⁻¹ (nv×nv, may be NULL):
 *   ∂v̇/∂(q, v) = −M⁻¹·∂tau/∂(q, v) at v̇ = FD,  ∂v̇/∂tau = M⁻¹.
 * Locked joints as in forward dynamics: their v̇ is 0, so are their rows and their columns of
 * M⁻¹; M⁻¹ is then the inverse of the free block, zero elsewhere. MBT_ERR_SINGULAR naming the
 * body if the mass matrix is singular; MBT_ERR_INVALID_ARGUMENT naming the element for a
 * linear spring or a user force element. */
int mbt_calc_forward_dynamics_derivatives(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                          const mbt_real* tau_app, mbt_real* vdot, mbt_real* dvdot_dq,
                                          mbt_real* dvdot_dv, mbt_real* dvdot_dtau);

/* M⁻¹(q) (nv×nv) at the context's q, locked joints as above. */
int mbt_calc_mass_matrix_inverse(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                 mbt_real* Minv);

/* ∂tau_g/∂q (nv×nv) of mbt_calc_gravity_generalized_forces. */
int mbt_calc_gravity_generalized_forces_derivatives(const mbt_tree* tree, mbt_context* ctx,
                                                    mbt_derivatives_workspace* ws, mbt_real* dtau_g_dq);

/* Seed CalcBiasSpatialAcceleration (with respect to v, measured and expressed in W): the
 * spatial acceleration of the point Fp of frame F (p_FoFp_F) at v̇ = 0, J̇_WFp·v = [α; a_Fp],
 * at the context's q and v; gravity is not an acceleration here. CalcBiasTranslationalAcceleration:
 * its translational part. MBT_ERR_NOT_FOUND for an unknown frame. */
int mbt_calc_bias_spatial_acceleration(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                       int frame_F, mbt_vec3 p_FoFp_F, mbt_spatial_acceleration* AsBias_WFp_W);
int mbt_calc_bias_translational_acceleration(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                             int frame_F, mbt_vec3 p_FoFp_F, mbt_vec3* asBias_WFp_W);
/* J̇_WFp (6×nv, row-major, rows [w; v]): the time derivative of mbt_calc_jacobian_spatial_velocity's
 * J_WFp along the context's v, so that J̇_WFp·v is the bias acceleration above. O(depth). */
int mbt_calc_jacobian_spatial_velocity_time_derivative(const mbt_tree* tree, mbt_context* ctx,
                                                       mbt_derivatives_workspace* ws, int frame_F, mbt_vec3 p_FoFp_F,
                                                       mbt_real* Jdot_WFp);

/* q_next = q ⊕ dv (nq; may alias q): every mobilizer moved by the constant velocity dv (nv)
 * for unit time, exactly. Revolute, prismatic, screw, universal, planar: q + dv. SpaceXYZ
 * (v = w_FM_F): R_FM ← exp([dv]ₓ)·R_FM, angles back on the branch nearest to q. Quaternion
 * floating (v = [w_FM_F; v_FMo_F]): q_FM ← exp(½·dv_w) ⊗ q_FM, p_FoMo ← p_FoMo + dv_v. */
int mbt_integrate_configuration(const mbt_tree* tree, const mbt_real* q, const mbt_real* dv, mbt_real* q_next);
/* dv = q1 ⊖ q0 (nv): the constant velocity with q0 ⊕ dv = q1; rotations by their logarithm
 * (angle in [0, π]), quaternions taken as unit. */
int mbt_difference_configuration(const mbt_tree* tree, const mbt_real* q0, const mbt_real* q1, mbt_real* dv);

/* One semi-implicit Euler step from the context's state with applied generalized forces
 * tau_app (NULL for zero):
 *   v⁺ = v + h·v̇(q, v, tau_app),  q⁺ = q ⊕ h·v⁺,
 * and its Jacobians in the tangent space (each nv×nv, NULL to skip; q⁺ directions in the v
 * space at q⁺: column k of dq_dq is d/dε (q⁺(q ⊕ ε·e_k) ⊖ q⁺)):
 *   dq_dq, dq_dv, dq_dtau, dv_dq, dv_dv, dv_dtau.
 * q_next (nq), v_next (nv) may be NULL. At h = 0: dq_dq = dv_dv = I, the others 0. */
int mbt_calc_semi_implicit_euler_step_derivatives(const mbt_tree* tree, mbt_context* ctx,
                                                  mbt_derivatives_workspace* ws, mbt_real h, const mbt_real* tau_app,
                                                  mbt_real* q_next, mbt_real* v_next, mbt_real* dq_dq, mbt_real* dq_dv,
                                                  mbt_real* dq_dtau, mbt_real* dv_dq, mbt_real* dv_dv,
                                                  mbt_real* dv_dtau);

#ifdef __cplusplus
}
#endif
#endif /* MBT_DERIVATIVES_H */
