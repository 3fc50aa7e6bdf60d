/* mbt/forces.h: force elements and the MultibodyForces container.
 *
 * A force element contributes spatial forces on bodies (F_Bo_W: at the body origin Bo,
 * expressed in the world W) and/or generalized forces tau. Force element 0 of every tree is
 * the uniform gravity field. */
#ifndef MBT_FORCES_H
#define MBT_FORCES_H

#include "mbt/context.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-body spatial forces F_BBo_W, indexed by body node (mbt_tree_body_node), and
 * generalized forces tau (nv). Allocated once; reused without allocation. */
typedef struct {
  int num_bodies;               /* bodies (= nodes) of the tree, world included */
  int nv;
  mbt_spatial_force* F_BBo_W;   /* [num_bodies] */
  mbt_real* tau;                /* [nv] */
} mbt_multibody_forces;

/* NULL if the tree is not finalized or out of memory. Zeroed. */
mbt_multibody_forces* mbt_multibody_forces_create(const mbt_tree* tree);
void mbt_multibody_forces_destroy(mbt_multibody_forces* forces);
void mbt_multibody_forces_set_zero(mbt_multibody_forces* forces);
/* forces += other (same tree). */
void mbt_multibody_forces_add_in(mbt_multibody_forces* forces, const mbt_multibody_forces* other);
/* Adds F_Bo_W at the origin of `body`. */
void mbt_multibody_forces_add_body_force(const mbt_tree* tree, mbt_multibody_forces* forces,
                                         int body, const mbt_spatial_force* F_Bo_W);

typedef enum {
  MBT_FORCE_UNIFORM_GRAVITY = 0,
  MBT_FORCE_LINEAR_SPRING_DAMPER,
  MBT_FORCE_REVOLUTE_SPRING,
  MBT_FORCE_USER
} mbt_force_element_type;

int mbt_tree_num_force_elements(const mbt_tree* tree);
mbt_force_element_type mbt_force_element_type_of(const mbt_tree* tree, int force_element);
const char* mbt_force_element_name(const mbt_tree* tree, int force_element);

/* Uniform gravity: g_W in m/s², default (0, 0, -9.81). Settable before and after finalize
 * (it is a model parameter, like Drake's UniformGravityFieldElement::set_gravity_vector). A
 * context holds its own copy, taken from the tree by mbt_context_create and
 * mbt_tree_set_default_context: a change here reaches an existing context only through the
 * latter. */
mbt_vec3 mbt_tree_gravity(const mbt_tree* tree);
int mbt_tree_set_gravity(mbt_tree* tree, mbt_vec3 g_W);

/* A linear spring-damper between point P of body A (p_AP) and point Q of body B (p_BQ):
 * f = (k·(ℓ − ℓ0) + c·ℓ̇)·û along the line PQ, pulling the points together when stretched.
 * free_length ℓ0 > 0, stiffness k >= 0, damping c >= 0. Potential energy ½k(ℓ − ℓ0)². */
int mbt_tree_add_linear_spring_damper(mbt_tree* tree, const char* name, int body_A, mbt_vec3 p_AP,
                                      int body_B, mbt_vec3 p_BQ, mbt_real free_length,
                                      mbt_real stiffness, mbt_real damping);
/* A torsional spring on a revolute joint: tau = −k·(θ − θ0); energy ½k(θ − θ0)². */
int mbt_tree_add_revolute_spring(mbt_tree* tree, const char* name, int revolute_joint,
                                 mbt_real nominal_angle, mbt_real stiffness);

/* A user force element: the callback adds its spatial forces and/or generalized forces
 * into `forces` (it must add, not overwrite). It must not allocate in a real-time loop;
 * mbt calls it from mbt_calc_force_elements_contribution and the dynamics. Its energy is
 * taken to be zero. */
typedef void (*mbt_user_force_fn)(const mbt_tree* tree, mbt_context* ctx, void* user_data,
                                  mbt_multibody_forces* forces);
int mbt_tree_add_user_force(mbt_tree* tree, const char* name, mbt_user_force_fn fn, void* user_data);

#ifdef __cplusplus
}
#endif
#endif /* MBT_FORCES_H */
