/* mbt/parameters.h: per-context parameters: body mass, center of mass and spatial inertia,
 * gravity (joint damping: mbt_joint_set_damping_vector in joints.h).
 *
 * As in Drake, these live in the context: a context starts with the tree's values
 * (mbt_context_create, mbt_tree_set_default_context) and every algorithm reads the context's,
 * so a sweep or a batch varies them per context without rebuilding the tree, and the other
 * contexts of the tree keep theirs. mbt_context_clone and mbt_context_copy_state copy them.
 * A setter checks its value first: a refused value (MBT_ERR_INVALID_ARGUMENT or
 * MBT_ERR_NONPHYSICAL, message in mbt_context_last_error naming the body) changes nothing.
 * Setting an inertia recomputes the merged inertia of the body and the bodies welded to it
 * (linear in that subtree) and invalidates the caches that depend on inertias; nothing is
 * allocated. body is a body index (not the world, which has no inertia). */
#ifndef MBT_PARAMETERS_H
#define MBT_PARAMETERS_H

#include "mbt/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seed-style RigidBody::CalcSpatialInertiaInBodyFrame / SetSpatialInertiaInBodyFrame:
 * M_BBo_B, about Bo, expressed in B. The setter requires a physically valid inertia. */
int mbt_body_get_spatial_inertia(const mbt_context* ctx, int body, mbt_spatial_inertia* M_BBo_B);
int mbt_body_set_spatial_inertia(mbt_context* ctx, int body, const mbt_spatial_inertia* M_BBo_B);

/* RigidBody::get_mass / SetMass: the mass alone changes; the center of mass and the unit
 * inertia G_BBo_B stay, so the rotational inertia scales with the mass (Drake's convention).
 * mass must be finite and >= 0. */
int mbt_body_get_mass(const mbt_context* ctx, int body, mbt_real* mass);
int mbt_body_set_mass(mbt_context* ctx, int body, mbt_real mass);

/* RigidBody::CalcCenterOfMassInBodyFrame / SetCenterOfMassInBodyFrame: p_BoBcm_B. The plain
 * setter keeps the unit inertia about Bo (Drake's SetCenterOfMassInBodyFrame) and refuses a
 * center of mass that makes it non-physical; the _preserving_central_inertia one keeps the
 * rotational inertia about the center of mass (Drake's
 * SetCenterOfMassInBodyFrameAndPreserveCentralInertia), which moving a payload calls for. */
int mbt_body_get_center_of_mass(const mbt_context* ctx, int body, mbt_vec3* p_BoBcm_B);
int mbt_body_set_center_of_mass(mbt_context* ctx, int body, mbt_vec3 p_BoBcm_B);
int mbt_body_set_center_of_mass_preserving_central_inertia(mbt_context* ctx, int body, mbt_vec3 p_BoBcm_B);

/* UniformGravityFieldElement::gravity_vector(context) / SetGravityVector(context, g_W). Used
 * by inverse dynamics with gravity, the force elements, forward dynamics and the potential
 * energy of this context. g_W must be finite. */
mbt_vec3 mbt_context_gravity(const mbt_context* ctx);
int mbt_context_set_gravity(mbt_context* ctx, mbt_vec3 g_W);

#ifdef __cplusplus
}
#endif
#endif /* MBT_PARAMETERS_H */
