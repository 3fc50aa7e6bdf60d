/* mobilizer_types.h: the per-type kernels behind the dispatcher in mobilizer.c, and the
 * small rotation helpers they share (not installed).
 *
 * Conventions (seed Mobilizer, Drake's mobilizers): F inboard, M outboard; V_FM, A_FM at Mo
 * expressed in F; H_FM column k = V_FM for v = e_k; A_FM = H_FM·v̇ + Ḣ_FM·v. */
#ifndef MBT_MOBILIZER_TYPES_H
#define MBT_MOBILIZER_TYPES_H

#include "mobilizers/mobilizer_kernels.h"

/* ---- rotation helpers ------------------------------------------------------------------ */
/* Rotation by angle θ about the unit axis â: R = cθ·I + sθ·[â]ₓ + (1 − cθ)·â·âᵀ (Rodrigues). */
static inline mbt_mat3 mbt__rot_axis_angle(mbt_vec3 a, mbt_real s, mbt_real c) {
  const mbt_real t = 1 - c;
  const mbt_real x = a.v[0], y = a.v[1], z = a.v[2];
  mbt_mat3 R = {{{c + t * x * x, t * x * y - s * z, t * x * z + s * y},
                 {t * x * y + s * z, c + t * y * y, t * y * z - s * x},
                 {t * x * z - s * y, t * y * z + s * x, c + t * z * z}}};
  return R;
}
static inline mbt_mat3 mbt__rot_x(mbt_real s, mbt_real c) {
  mbt_mat3 R = {{{1, 0, 0}, {0, c, -s}, {0, s, c}}};
  return R;
}
static inline mbt_mat3 mbt__rot_y(mbt_real s, mbt_real c) {
  mbt_mat3 R = {{{c, 0, s}, {0, 1, 0}, {-s, 0, c}}};
  return R;
}
static inline mbt_mat3 mbt__rot_z(mbt_real s, mbt_real c) {
  mbt_mat3 R = {{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}};
  return R;
}
/* s = sin θ, c = cos θ from the C library (GCC turns the pair into one sincos call). */
static inline void mbt__sincos(mbt_real theta, mbt_real* s, mbt_real* c) {
  *s = mbt_sin(theta);
  *c = mbt_cos(theta);
}
/* Rotation by θ about the coordinate axis sign·ê_k given as axis_k = ±(k + 1) (see mbt_node):
 * about −ê_k it is the rotation by −θ about ê_k. */
static inline mbt_mat3 mbt__rot_coord_axis(int axis_k, mbt_real s, mbt_real c) {
  if (axis_k < 0) s = -s;
  switch (axis_k < 0 ? -axis_k : axis_k) {
    case 1: return mbt__rot_x(s, c);
    case 2: return mbt__rot_y(s, c);
    default: return mbt__rot_z(s, c);
  }
}
/* R(q) of the unit quaternion q/|q| = [w x y z]; identity for the zero quaternion. */
static inline mbt_mat3 mbt__rot_from_quat(mbt_real w, mbt_real x, mbt_real y, mbt_real z) {
  const mbt_real n2 = w * w + x * x + y * y + z * z;
  if (!mbt_lt(0, n2)) return mbt_mat3_identity();
  const mbt_real s = 2 / n2;
  const mbt_real wx = s * w * x, wy = s * w * y, wz = s * w * z;
  const mbt_real xx = s * x * x, xy = s * x * y, xz = s * x * z;
  const mbt_real yy = s * y * y, yz = s * y * z, zz = s * z * z;
  mbt_mat3 R = {{{1 - yy - zz, xy - wz, xz + wy},
                 {xy + wz, 1 - xx - zz, yz - wx},
                 {xz - wy, yz + wx, 1 - xx - yy}}};
  return R;
}

/* ---- per-type kernels (one file each) -------------------------------------------------- */
#define MBT__DECLARE_MOBILIZER(type)                                                           \
  void mbt__##type##_calc_X_FM(const mbt_node* n, const mbt_real* q, mbt_transform* X_FM);     \
  void mbt__##type##_calc_H_FM(const mbt_node* n, const mbt_real* q, mbt_spatial_velocity* H); \
  void mbt__##type##_calc_V_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v,        \
                               mbt_spatial_velocity* V_FM);                                    \
  void mbt__##type##_calc_A_FM(const mbt_node* n, const mbt_real* q, const mbt_real* v,        \
                               const mbt_real* vdot, mbt_spatial_acceleration* A_FM);          \
  void mbt__##type##_project_spatial_force(const mbt_node* n, const mbt_real* q,               \
                                           const mbt_spatial_force* F_Mo_F, mbt_real* tau);

MBT__DECLARE_MOBILIZER(weld)
MBT__DECLARE_MOBILIZER(revolute)
MBT__DECLARE_MOBILIZER(prismatic)
MBT__DECLARE_MOBILIZER(universal)
MBT__DECLARE_MOBILIZER(planar)
MBT__DECLARE_MOBILIZER(space_xyz)
MBT__DECLARE_MOBILIZER(quaternion_floating)
MBT__DECLARE_MOBILIZER(screw)
#undef MBT__DECLARE_MOBILIZER

/* Types whose N(q) is not the identity. */
void mbt__space_xyz_map_velocity_to_qdot(const mbt_real* q, const mbt_real* v, mbt_real* qdot);
int mbt__space_xyz_map_qdot_to_velocity(const mbt_real* q, const mbt_real* qdot, mbt_real* v);
void mbt__quaternion_floating_map_velocity_to_qdot(const mbt_real* q, const mbt_real* v, mbt_real* qdot);
int mbt__quaternion_floating_map_qdot_to_velocity(const mbt_real* q, const mbt_real* qdot, mbt_real* v);

/* |cos(pitch)| below which SpaceXYZ's N(q) (w → rpy rates) is taken as singular. */
#define MBT__GIMBAL_LOCK_TOLERANCE 1e-10
/* True where N(q) (v → q̇) is undefined: SpaceXYZ at |cos(pitch)| < tolerance. */
bool mbt__mob_velocity_to_qdot_is_singular(const mbt_node* n, const mbt_real* q);

#endif /* MBT_MOBILIZER_TYPES_H */
