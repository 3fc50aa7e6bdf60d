/* mobilizer.c: dispatch of the mobilizer kernels on the mobilizer type (seed Mobilizer).
 * Each type's code is in its own file; see mobilizer_types.h for the conventions. */
#include <string.h>
#include "mobilizers/mobilizer_types.h"

#define MBT__DISPATCH(fn, ...)                                                        \
  switch (n->type) {                                                                  \
    case MBT_MOBILIZER_WELD: mbt__weld_##fn(__VA_ARGS__); break;                      \
    case MBT_MOBILIZER_REVOLUTE: mbt__revolute_##fn(__VA_ARGS__); break;              \
    case MBT_MOBILIZER_PRISMATIC: mbt__prismatic_##fn(__VA_ARGS__); break;            \
    case MBT_MOBILIZER_UNIVERSAL: mbt__universal_##fn(__VA_ARGS__); break;            \
    case MBT_MOBILIZER_PLANAR: mbt__planar_##fn(__VA_ARGS__); break;                  \
    case MBT_MOBILIZER_SPACE_XYZ: mbt__space_xyz_##fn(__VA_ARGS__); break;            \
    case MBT_MOBILIZER_QUATERNION_FLOATING: mbt__quaternion_floating_##fn(__VA_ARGS__); break; \
    case MBT_MOBILIZER_SCREW: mbt__screw_##fn(__VA_ARGS__); break;                    \
    default: break;                                                                   \
  }

void mbt__mob_set_zero_state(const mbt_node* n, mbt_real* q, mbt_real* v) {
  for (int i = 0; i < n->nq; ++i) q[i] = 0;
  for (int i = 0; i < n->nv; ++i) v[i] = 0;
  if (n->type == MBT_MOBILIZER_QUATERNION_FLOATING) q[0] = 1;  /* identity quaternion */
}

void mbt__mob_calc_X_FM(const mbt_node* n, const mbt_real* q, mbt_transform* X_FM) {
  MBT__DISPATCH(calc_X_FM, n, q, X_FM)
}

void mbt__mob_calc_H_FM(const mbt_node* n, const mbt_real* q, mbt_spatial_velocity* H_FM) {
  MBT__DISPATCH(calc_H_FM, n, q, H_FM)
}

void mbt__mob_calc_V_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, mbt_spatial_velocity* V_FM) {
  MBT__DISPATCH(calc_V_FM, n, q, v, V_FM)
}

void mbt__mob_calc_A_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v, const mbt_real* vdot,
                        mbt_spatial_acceleration* A_FM) {
  MBT__DISPATCH(calc_A_FM, n, q, v, vdot, A_FM)
}

void mbt__mob_project_spatial_force(const mbt_node* n, const mbt_real* q, const mbt_spatial_force* F_Mo_F,
                                    mbt_real* tau) {
  MBT__DISPATCH(project_spatial_force, n, q, F_Mo_F, tau)
}

/* q̇ = N(q)·v: N = I except SpaceXYZ (w → rpy rates) and the quaternion (w → quaternion rates). */
void mbt__mob_map_velocity_to_qdot(const mbt_node* n, const mbt_real* q, const mbt_real* v, mbt_real* qdot) {
  switch (n->type) {
    case MBT_MOBILIZER_SPACE_XYZ: mbt__space_xyz_map_velocity_to_qdot(q, v, qdot); break;
    case MBT_MOBILIZER_QUATERNION_FLOATING: mbt__quaternion_floating_map_velocity_to_qdot(q, v, qdot); break;
    default:
      for (int i = 0; i < n->nv; ++i) qdot[i] = v[i];
      break;
  }
}

/* v = N⁺(q)·q̇. */
int mbt__mob_map_qdot_to_velocity(const mbt_node* n, const mbt_real* q, const mbt_real* qdot, mbt_real* v) {
  switch (n->type) {
    case MBT_MOBILIZER_SPACE_XYZ: return mbt__space_xyz_map_qdot_to_velocity(q, qdot, v);
    case MBT_MOBILIZER_QUATERNION_FLOATING: return mbt__quaternion_floating_map_qdot_to_velocity(q, qdot, v);
    default:
      for (int i = 0; i < n->nv; ++i) v[i] = qdot[i];
      return MBT_OK;
  }
}

bool mbt__mob_velocity_to_qdot_is_singular(const mbt_node* n, const mbt_real* q) {
  if (n->type != MBT_MOBILIZER_SPACE_XYZ) return false;
  return mbt_lt(mbt_abs(mbt_cos(q[1])), MBT__GIMBAL_LOCK_TOLERANCE);
}

bool mbt__mob_can_rotate(mbt_mobilizer_type type) {
  switch (type) {
    case MBT_MOBILIZER_REVOLUTE: case MBT_MOBILIZER_UNIVERSAL: case MBT_MOBILIZER_PLANAR:
    case MBT_MOBILIZER_SPACE_XYZ: case MBT_MOBILIZER_QUATERNION_FLOATING: case MBT_MOBILIZER_SCREW:
      return true;
    default:
      return false;
  }
}

bool mbt__mob_can_translate(mbt_mobilizer_type type) {
  switch (type) {
    case MBT_MOBILIZER_PRISMATIC: case MBT_MOBILIZER_PLANAR: case MBT_MOBILIZER_QUATERNION_FLOATING:
    case MBT_MOBILIZER_SCREW:
      return true;
    default:
      return false;
  }
}

/* q_quat ← q_quat/|q_quat| (the zero quaternion becomes the identity). */
void mbt__mob_normalize_q(const mbt_node* n, mbt_real* q) {
  if (n->type != MBT_MOBILIZER_QUATERNION_FLOATING) return;
  const mbt_real n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  if (!mbt_lt(0, n2)) {
    q[0] = 1; q[1] = q[2] = q[3] = 0;
    return;
  }
  const mbt_real s = 1 / mbt_sqrt(n2);
  for (int i = 0; i < 4; ++i) q[i] *= s;
}
