/* force_elements.c: the model side of force elements (seed: ForceElement,
 * UniformGravityFieldElement, MultibodyForces): the container of per-body spatial forces
 * and generalized forces, and adding and reading force elements. Their contributions are
 * computed in src/algorithms/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/tree_build.h"

/* ---- MultibodyForces ----------------------------------------------------------------------- */
mbt_multibody_forces* mbt_multibody_forces_create(const mbt_tree* tree) {
  if (!tree) return NULL;
  if (!tree->finalized) {
    mbt__tree_error(tree, MBT_ERR_NOT_FINALIZED, "mbt_multibody_forces_create: the tree is not finalized");
    return NULL;
  }
  mbt_multibody_forces* f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->num_bodies = tree->num_nodes;
  f->nv = tree->nv;
  f->F_BBo_W = calloc((size_t)(f->num_bodies > 0 ? f->num_bodies : 1), sizeof *f->F_BBo_W);
  f->tau = calloc((size_t)(f->nv > 0 ? f->nv : 1), sizeof *f->tau);
  if (!f->F_BBo_W || !f->tau) {
    mbt_multibody_forces_destroy(f);
    mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "mbt_multibody_forces_create: out of memory");
    return NULL;
  }
  return f;
}

void mbt_multibody_forces_destroy(mbt_multibody_forces* forces) {
  if (!forces) return;
  free(forces->F_BBo_W);
  free(forces->tau);
  free(forces);
}

void mbt_multibody_forces_set_zero(mbt_multibody_forces* forces) {
  if (!forces) return;
  for (int i = 0; i < forces->num_bodies; ++i)
    for (int k = 0; k < 6; ++k) forces->F_BBo_W[i].coeffs[k] = 0;
  for (int i = 0; i < forces->nv; ++i) forces->tau[i] = 0;
}

void mbt_multibody_forces_add_in(mbt_multibody_forces* forces, const mbt_multibody_forces* other) {
  if (!forces || !other || forces->num_bodies != other->num_bodies || forces->nv != other->nv) return;
  for (int i = 0; i < forces->num_bodies; ++i)
    for (int k = 0; k < 6; ++k) forces->F_BBo_W[i].coeffs[k] += other->F_BBo_W[i].coeffs[k];
  for (int i = 0; i < forces->nv; ++i) forces->tau[i] += other->tau[i];
}

void mbt_multibody_forces_add_body_force(const mbt_tree* tree, mbt_multibody_forces* forces, int body,
                                         const mbt_spatial_force* F_Bo_W) {
  if (!tree || !forces || !F_Bo_W || !tree->finalized) return;
  if (body < 0 || body >= tree->num_bodies) {
    mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "mbt_multibody_forces_add_body_force: unknown body %d", body);
    return;
  }
  int node = tree->bodies[body].node;
  if (node >= forces->num_bodies) return;
  for (int k = 0; k < 6; ++k) forces->F_BBo_W[node].coeffs[k] += F_Bo_W->coeffs[k];
}

/* ---- force elements ------------------------------------------------------------------------- */
int mbt_tree_num_force_elements(const mbt_tree* tree) { return tree->num_forces; }

static bool force_ok(const mbt_tree* tree, int force_element) {
  if (force_element >= 0 && force_element < tree->num_forces) return true;
  mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "unknown force element %d (the tree has %d)", force_element,
                  tree->num_forces);
  return false;
}

mbt_force_element_type mbt_force_element_type_of(const mbt_tree* tree, int force_element) {
  return force_ok(tree, force_element) ? tree->forces[force_element].type : MBT_FORCE_USER;
}

const char* mbt_force_element_name(const mbt_tree* tree, int force_element) {
  return force_ok(tree, force_element) ? tree->forces[force_element].name : NULL;
}

mbt_vec3 mbt_tree_gravity(const mbt_tree* tree) { return tree->forces[0].u.gravity.g_W; }

/* Settable after finalize too: a model parameter like Drake's set_gravity_vector. */
int mbt_tree_set_gravity(mbt_tree* tree, mbt_vec3 g_W) {
  for (int i = 0; i < 3; ++i)
    if (!mbt_isfinite(g_W.v[i]))
      return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "force element 'gravity': g_W (%g, %g, %g) is not finite",
                             g_W.v[0], g_W.v[1], g_W.v[2]);
  tree->forces[0].u.gravity.g_W = g_W;
  return MBT_OK;
}

/* A new force element can be added under this name. */
static int check_new_force(const mbt_tree* tree, const char* what, const char* name) {
  int s;
  if ((s = mbt__check_not_finalized(tree, what)) || (s = mbt__check_name(tree, "force element", name))) return s;
  if (mbt__find_force(tree, name) >= 0)
    return mbt__tree_error(tree, MBT_ERR_DUPLICATE, "%s: a force element with this name already exists", what);
  return MBT_OK;
}

static int commit_force(mbt_tree* tree, const char* what, const char* name, const mbt_force_element* e) {
  char* copy;
  if (mbt__tree_reserve(tree, 0, 0, 0, 1) || !(copy = mbt__tree_name(tree, name, NULL)))
    return mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "%s: out of memory", what);
  int i = tree->num_forces;
  tree->forces[i] = *e;
  tree->forces[i].name = copy;
  tree->num_forces++;
  return i;
}

static bool vec_finite(mbt_vec3 a) { return mbt_isfinite(a.v[0]) && mbt_isfinite(a.v[1]) && mbt_isfinite(a.v[2]); }

int mbt_tree_add_linear_spring_damper(mbt_tree* tree, const char* name, int body_A, mbt_vec3 p_AP, int body_B,
                                      mbt_vec3 p_BQ, mbt_real free_length, mbt_real stiffness, mbt_real damping) {
  if (!tree) return MBT_ERR_INVALID_ARGUMENT;
  char what[96];
  snprintf(what, sizeof what, "spring-damper '%s'", name ? name : "");
  int s;
  if ((s = check_new_force(tree, what, name))) return s;
  if (body_A < 0 || body_A >= tree->num_bodies)
    return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "%s: unknown body A %d (the tree has %d bodies)", what, body_A,
                           tree->num_bodies);
  if (body_B < 0 || body_B >= tree->num_bodies)
    return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "%s: unknown body B %d (the tree has %d bodies)", what, body_B,
                           tree->num_bodies);
  if (!vec_finite(p_AP) || !vec_finite(p_BQ))
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: an attachment point is not finite", what);
  if (!(free_length > 0) || !mbt_isfinite(free_length))
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: the free length %g must be positive", what,
                           free_length);
  if (!(stiffness >= 0) || !mbt_isfinite(stiffness))
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: the stiffness %g must be >= 0", what, stiffness);
  if (!(damping >= 0) || !mbt_isfinite(damping))
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: the damping %g must be >= 0", what, damping);
  mbt_force_element e;
  memset(&e, 0, sizeof e);
  e.type = MBT_FORCE_LINEAR_SPRING_DAMPER;
  e.u.spring.body_A = body_A;
  e.u.spring.body_B = body_B;
  e.u.spring.p_AP = p_AP;
  e.u.spring.p_BQ = p_BQ;
  e.u.spring.free_length = free_length;
  e.u.spring.stiffness = stiffness;
  e.u.spring.damping = damping;
  return commit_force(tree, what, name, &e);
}

int mbt_tree_add_revolute_spring(mbt_tree* tree, const char* name, int revolute_joint, mbt_real nominal_angle,
                                 mbt_real stiffness) {
  if (!tree) return MBT_ERR_INVALID_ARGUMENT;
  char what[96];
  snprintf(what, sizeof what, "revolute spring '%s'", name ? name : "");
  int s;
  if ((s = check_new_force(tree, what, name))) return s;
  if (revolute_joint < 0 || revolute_joint >= tree->num_joints)
    return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "%s: unknown joint %d (the tree has %d joints)", what,
                           revolute_joint, tree->num_joints);
  if (tree->joints[revolute_joint].type != MBT_JOINT_REVOLUTE)
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: joint '%s' is not revolute", what,
                           tree->joints[revolute_joint].name);
  if (!mbt_isfinite(nominal_angle))
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: the nominal angle is not finite", what);
  if (!(stiffness >= 0) || !mbt_isfinite(stiffness))
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: the stiffness %g must be >= 0", what, stiffness);
  mbt_force_element e;
  memset(&e, 0, sizeof e);
  e.type = MBT_FORCE_REVOLUTE_SPRING;
  e.u.revolute_spring.joint = revolute_joint;
  e.u.revolute_spring.nominal_angle = nominal_angle;
  e.u.revolute_spring.stiffness = stiffness;
  return commit_force(tree, what, name, &e);
}

int mbt_tree_add_user_force(mbt_tree* tree, const char* name, mbt_user_force_fn fn, void* user_data) {
  if (!tree) return MBT_ERR_INVALID_ARGUMENT;
  char what[96];
  snprintf(what, sizeof what, "user force '%s'", name ? name : "");
  int s;
  if ((s = check_new_force(tree, what, name))) return s;
  if (!fn) return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: the callback is NULL", what);
  mbt_force_element e;
  memset(&e, 0, sizeof e);
  e.type = MBT_FORCE_USER;
  e.u.user.fn = fn;
  e.u.user.user_data = user_data;
  return commit_force(tree, what, name, &e);
}
