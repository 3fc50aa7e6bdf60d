/* mbt/math.h: scalars, 3-vectors, 3x3 matrices, rotation matrices, unit quaternions and
 * rigid transforms.
 *
 * Monogram notation (Drake): R_AB is the rotation matrix that re-expresses a vector from
 * frame B to frame A (v_A = R_AB·v_B); p_AoBo_E is the position from point Ao to point Bo
 * expressed in frame E; X_AB is the pose of frame B in frame A, X_AB = {R_AB, p_AoBo_A},
 * so that p_AoQ_A = X_AB·p_BoQ_B.
 *
 * Every function here is allocation-free and works on plain structs. */
#ifndef MBT_MATH_H
#define MBT_MATH_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "mbt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The scalar type of all numeric code. Numeric code calls the mbt_* wrappers below rather
 * than <math.h> directly, so the same sources can later be instantiated with another
 * scalar (for example one carrying derivatives). */
typedef double mbt_real;

static inline mbt_real mbt_sin(mbt_real x) { return sin(x); }
static inline mbt_real mbt_cos(mbt_real x) { return cos(x); }
static inline mbt_real mbt_tan(mbt_real x) { return tan(x); }
static inline mbt_real mbt_asin(mbt_real x) { return asin(x); }
static inline mbt_real mbt_acos(mbt_real x) { return acos(x); }
static inline mbt_real mbt_atan2(mbt_real y, mbt_real x) { return atan2(y, x); }
static inline mbt_real mbt_sqrt(mbt_real x) { return sqrt(x); }
static inline mbt_real mbt_abs(mbt_real x) { return fabs(x); }
static inline mbt_real mbt_max(mbt_real a, mbt_real b) { return a > b ? a : b; }
static inline mbt_real mbt_min(mbt_real a, mbt_real b) { return a < b ? a : b; }
static inline bool mbt_isfinite(mbt_real x) { return isfinite(x) != 0; }
static inline bool mbt_isnan(mbt_real x) { return isnan(x) != 0; }
/* Comparisons of state-dependent values go through these, so a derivative-carrying scalar
 * can compare its value part. */
static inline bool mbt_lt(mbt_real a, mbt_real b) { return a < b; }
static inline bool mbt_le(mbt_real a, mbt_real b) { return a <= b; }
static inline mbt_real mbt_value(mbt_real x) { return x; }

/* A 3-vector. */
typedef struct { mbt_real v[3]; } mbt_vec3;

/* A 3x3 matrix, row-major: m[row][col]. Rotation matrices R_AB use this type. */
typedef struct { mbt_real m[3][3]; } mbt_mat3;

/* A quaternion [w x y z] (w is the scalar part). A unit quaternion represents a rotation. */
typedef struct { mbt_real w, x, y, z; } mbt_quat;

/* A rigid transform X_AB = {R_AB, p_AoBo_A}: the pose of frame B in frame A. */
typedef struct { mbt_mat3 R; mbt_vec3 p; } mbt_transform;

/* ---- 3-vectors ---------------------------------------------------------------------- */
static inline mbt_vec3 mbt_vec3_make(mbt_real x, mbt_real y, mbt_real z) {
  mbt_vec3 r = {{x, y, z}};
  return r;
}
static inline mbt_vec3 mbt_vec3_zero(void) { return mbt_vec3_make(0, 0, 0); }
static inline mbt_vec3 mbt_vec3_add(mbt_vec3 a, mbt_vec3 b) {
  return mbt_vec3_make(a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2]);
}
static inline mbt_vec3 mbt_vec3_sub(mbt_vec3 a, mbt_vec3 b) {
  return mbt_vec3_make(a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2]);
}
static inline mbt_vec3 mbt_vec3_neg(mbt_vec3 a) { return mbt_vec3_make(-a.v[0], -a.v[1], -a.v[2]); }
static inline mbt_vec3 mbt_vec3_scale(mbt_vec3 a, mbt_real s) {
  return mbt_vec3_make(s * a.v[0], s * a.v[1], s * a.v[2]);
}
/* a + s·b */
static inline mbt_vec3 mbt_vec3_axpy(mbt_vec3 a, mbt_real s, mbt_vec3 b) {
  return mbt_vec3_make(a.v[0] + s * b.v[0], a.v[1] + s * b.v[1], a.v[2] + s * b.v[2]);
}
static inline mbt_real mbt_vec3_dot(mbt_vec3 a, mbt_vec3 b) {
  return a.v[0] * b.v[0] + a.v[1] * b.v[1] + a.v[2] * b.v[2];
}
static inline mbt_vec3 mbt_vec3_cross(mbt_vec3 a, mbt_vec3 b) {
  return mbt_vec3_make(a.v[1] * b.v[2] - a.v[2] * b.v[1], a.v[2] * b.v[0] - a.v[0] * b.v[2],
                       a.v[0] * b.v[1] - a.v[1] * b.v[0]);
}
static inline mbt_real mbt_vec3_norm(mbt_vec3 a) { return mbt_sqrt(mbt_vec3_dot(a, a)); }
/* Infinity norm max |a_i|. */
static inline mbt_real mbt_vec3_norm_inf(mbt_vec3 a) {
  return mbt_max(mbt_abs(a.v[0]), mbt_max(mbt_abs(a.v[1]), mbt_abs(a.v[2])));
}

/* ---- 3x3 matrices ------------------------------------------------------------------- */
static inline mbt_mat3 mbt_mat3_identity(void) {
  mbt_mat3 I = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  return I;
}
static inline mbt_mat3 mbt_mat3_zero(void) {
  mbt_mat3 Z = {{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}};
  return Z;
}
/* A·x */
static inline mbt_vec3 mbt_mat3_mul_vec(const mbt_mat3* A, mbt_vec3 x) {
  return mbt_vec3_make(A->m[0][0] * x.v[0] + A->m[0][1] * x.v[1] + A->m[0][2] * x.v[2],
                       A->m[1][0] * x.v[0] + A->m[1][1] * x.v[1] + A->m[1][2] * x.v[2],
                       A->m[2][0] * x.v[0] + A->m[2][1] * x.v[1] + A->m[2][2] * x.v[2]);
}
/* Aᵀ·x */
static inline mbt_vec3 mbt_mat3_tmul_vec(const mbt_mat3* A, mbt_vec3 x) {
  return mbt_vec3_make(A->m[0][0] * x.v[0] + A->m[1][0] * x.v[1] + A->m[2][0] * x.v[2],
                       A->m[0][1] * x.v[0] + A->m[1][1] * x.v[1] + A->m[2][1] * x.v[2],
                       A->m[0][2] * x.v[0] + A->m[1][2] * x.v[1] + A->m[2][2] * x.v[2]);
}
/* A·B */
static inline mbt_mat3 mbt_mat3_mul(const mbt_mat3* A, const mbt_mat3* B) {
  mbt_mat3 C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      C.m[i][j] = A->m[i][0] * B->m[0][j] + A->m[i][1] * B->m[1][j] + A->m[i][2] * B->m[2][j];
  return C;
}
/* Aᵀ·B */
static inline mbt_mat3 mbt_mat3_tmul(const mbt_mat3* A, const mbt_mat3* B) {
  mbt_mat3 C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      C.m[i][j] = A->m[0][i] * B->m[0][j] + A->m[1][i] * B->m[1][j] + A->m[2][i] * B->m[2][j];
  return C;
}
/* A·Bᵀ */
static inline mbt_mat3 mbt_mat3_mul_t(const mbt_mat3* A, const mbt_mat3* B) {
  mbt_mat3 C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      C.m[i][j] = A->m[i][0] * B->m[j][0] + A->m[i][1] * B->m[j][1] + A->m[i][2] * B->m[j][2];
  return C;
}
static inline mbt_mat3 mbt_mat3_transpose(const mbt_mat3* A) {
  mbt_mat3 T;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) T.m[i][j] = A->m[j][i];
  return T;
}
/* The skew-symmetric matrix [a]ₓ with [a]ₓ·b = a × b. */
static inline mbt_mat3 mbt_mat3_skew(mbt_vec3 a) {
  mbt_mat3 S = {{{0, -a.v[2], a.v[1]}, {a.v[2], 0, -a.v[0]}, {-a.v[1], a.v[0], 0}}};
  return S;
}

/* ---- rigid transforms --------------------------------------------------------------- */
static inline mbt_transform mbt_transform_identity(void) {
  mbt_transform X = {mbt_mat3_identity(), {{0, 0, 0}}};
  return X;
}
/* X_AC = X_AB·X_BC: R_AC = R_AB·R_BC, p_AoCo_A = p_AoBo_A + R_AB·p_BoCo_B. */
static inline mbt_transform mbt_transform_compose(const mbt_transform* X_AB, const mbt_transform* X_BC) {
  mbt_transform X_AC;
  X_AC.R = mbt_mat3_mul(&X_AB->R, &X_BC->R);
  X_AC.p = mbt_vec3_add(X_AB->p, mbt_mat3_mul_vec(&X_AB->R, X_BC->p));
  return X_AC;
}
/* X_BA = X_AB⁻¹: R_BA = R_ABᵀ, p_BoAo_B = −R_ABᵀ·p_AoBo_A. */
static inline mbt_transform mbt_transform_inverse(const mbt_transform* X_AB) {
  mbt_transform X_BA;
  X_BA.R = mbt_mat3_transpose(&X_AB->R);
  X_BA.p = mbt_vec3_neg(mbt_mat3_mul_vec(&X_BA.R, X_AB->p));
  return X_BA;
}
/* p_AoQ_A = X_AB·p_BoQ_B. */
static inline mbt_vec3 mbt_transform_apply(const mbt_transform* X_AB, mbt_vec3 p_BoQ_B) {
  return mbt_vec3_add(X_AB->p, mbt_mat3_mul_vec(&X_AB->R, p_BoQ_B));
}

/* R_AB·v_B: re-expresses a vector with the rotation part of X_AB only (no translation). */
static inline mbt_vec3 mbt_transform_rotate(const mbt_transform* X_AB, mbt_vec3 v_B) {
  return mbt_mat3_mul_vec(&X_AB->R, v_B);
}
/* X_AB = {R_AB, p_AoBo_A}. */
static inline mbt_transform mbt_transform_make(const mbt_mat3* R_AB, mbt_vec3 p_AoBo_A) {
  mbt_transform X;
  X.R = *R_AB;
  X.p = p_AoBo_A;
  return X;
}

/* ---- more 3x3 matrix algebra -------------------------------------------------------- */
/* A + B */
static inline mbt_mat3 mbt_mat3_add(const mbt_mat3* A, const mbt_mat3* B) {
  mbt_mat3 C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C.m[i][j] = A->m[i][j] + B->m[i][j];
  return C;
}
/* A − B */
static inline mbt_mat3 mbt_mat3_sub(const mbt_mat3* A, const mbt_mat3* B) {
  mbt_mat3 C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C.m[i][j] = A->m[i][j] - B->m[i][j];
  return C;
}
/* s·A */
static inline mbt_mat3 mbt_mat3_scale(const mbt_mat3* A, mbt_real s) {
  mbt_mat3 C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C.m[i][j] = s * A->m[i][j];
  return C;
}
/* det A = a·(b × c) for the rows a, b, c. */
static inline mbt_real mbt_mat3_determinant(const mbt_mat3* A) {
  return A->m[0][0] * (A->m[1][1] * A->m[2][2] - A->m[1][2] * A->m[2][1]) -
         A->m[0][1] * (A->m[1][0] * A->m[2][2] - A->m[1][2] * A->m[2][0]) +
         A->m[0][2] * (A->m[1][0] * A->m[2][1] - A->m[1][1] * A->m[2][0]);
}
/* tr A = A00 + A11 + A22 */
static inline mbt_real mbt_mat3_trace(const mbt_mat3* A) {
  return A->m[0][0] + A->m[1][1] + A->m[2][2];
}
/* a·bᵀ */
static inline mbt_mat3 mbt_mat3_outer(mbt_vec3 a, mbt_vec3 b) {
  mbt_mat3 C;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) C.m[i][j] = a.v[i] * b.v[j];
  return C;
}

/* Eigen-decomposition of a symmetric matrix S = V·diag(λ)·Vᵀ by cyclic Jacobi rotations: λ in
 * ascending order, the columns of V are unit eigenvectors and det V = +1. Only the upper
 * triangle of S is read. */
void mbt_mat3_symmetric_eigen(const mbt_mat3* S, mbt_vec3* lambda, mbt_mat3* V);

/* ---- tolerance comparisons: max |a_i − b_i| <= tol (false if any element is NaN) ----- */
static inline bool mbt_vec3_is_near(mbt_vec3 a, mbt_vec3 b, mbt_real tol) {
  return mbt_le(mbt_abs(a.v[0] - b.v[0]), tol) && mbt_le(mbt_abs(a.v[1] - b.v[1]), tol) &&
         mbt_le(mbt_abs(a.v[2] - b.v[2]), tol);
}
static inline bool mbt_mat3_is_near(const mbt_mat3* A, const mbt_mat3* B, mbt_real tol) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (!mbt_le(mbt_abs(A->m[i][j] - B->m[i][j]), tol)) return false;
  return true;
}
/* Both R and p within tol, element-wise (Drake's RigidTransform::IsNearlyEqualTo). */
static inline bool mbt_transform_is_near(const mbt_transform* X, const mbt_transform* Y,
                                         mbt_real tol) {
  return mbt_mat3_is_near(&X->R, &Y->R, tol) && mbt_vec3_is_near(X->p, Y->p, tol);
}

/* ---- rotation matrices -------------------------------------------------------------- */
/* Rx(θ): rotation by θ about x. */
static inline mbt_mat3 mbt_rotation_x(mbt_real theta) {
  const mbt_real c = mbt_cos(theta), s = mbt_sin(theta);
  mbt_mat3 R = {{{1, 0, 0}, {0, c, -s}, {0, s, c}}};
  return R;
}
/* Ry(θ): rotation by θ about y. */
static inline mbt_mat3 mbt_rotation_y(mbt_real theta) {
  const mbt_real c = mbt_cos(theta), s = mbt_sin(theta);
  mbt_mat3 R = {{{c, 0, s}, {0, 1, 0}, {-s, 0, c}}};
  return R;
}
/* Rz(θ): rotation by θ about z. */
static inline mbt_mat3 mbt_rotation_z(mbt_real theta) {
  const mbt_real c = mbt_cos(theta), s = mbt_sin(theta);
  mbt_mat3 R = {{{c, -s, 0}, {s, c, 0}, {0, 0, 1}}};
  return R;
}
/* Rodrigues: R = I + sinθ·[k]ₓ + (1 − cosθ)·[k]ₓ². The axis k must be a unit vector. */
static inline mbt_mat3 mbt_rotation_from_axis_angle(mbt_vec3 k, mbt_real theta) {
  const mbt_real s = mbt_sin(theta), c = mbt_cos(theta), t = 1 - c;
  const mbt_real x = k.v[0], y = k.v[1], z = k.v[2];
  mbt_mat3 R = {{{c + t * x * x, t * x * y - s * z, t * x * z + s * y},
                 {t * x * y + s * z, c + t * y * y, t * y * z - s * x},
                 {t * x * z - s * y, t * y * z + s * x, c + t * z * z}}};
  return R;
}
/* R_AB from the unit quaternion q_AB = [w x y z]. q is not normalized here: pass a unit
 * quaternion (mbt_quat_normalize) or R will not be orthonormal. */
static inline mbt_mat3 mbt_rotation_from_quat(mbt_quat q) {
  const mbt_real w = q.w, x = q.x, y = q.y, z = q.z;
  mbt_mat3 R = {{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                 {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                 {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}}};
  return R;
}
/* R orthonormal (max |RᵀR − I| <= tol) and right-handed (det R > 0), as Drake's IsValid. */
static inline bool mbt_rotation_is_valid(const mbt_mat3* R, mbt_real tol) {
  const mbt_mat3 RtR = mbt_mat3_tmul(R, R), I = mbt_mat3_identity();
  return mbt_mat3_is_near(&RtR, &I, tol) && mbt_lt(0, mbt_mat3_determinant(R));
}
/* Drake's RollPitchYaw (SpaceXYZ): R = Rz(yaw)·Ry(pitch)·Rx(roll), rpy = [roll pitch yaw]. */
mbt_mat3 mbt_rotation_from_rpy(mbt_vec3 rpy);
/* The inverse of mbt_rotation_from_rpy: roll, yaw in [−π, π], pitch in [−π/2, π/2]. At gimbal
 * lock (pitch = ±π/2) only roll − yaw (pitch = +π/2) or roll + yaw (pitch = −π/2) is
 * determined; for an exactly singular R, yaw comes out 0 and roll carries the angle.
 * mbt_rotation_from_rpy(mbt_rotation_to_rpy(R)) = R to rounding for every rotation R. */
mbt_vec3 mbt_rotation_to_rpy(const mbt_mat3* R);

/* ---- quaternions [w x y z] ---------------------------------------------------------- */
static inline mbt_quat mbt_quat_make(mbt_real w, mbt_real x, mbt_real y, mbt_real z) {
  mbt_quat q = {w, x, y, z};
  return q;
}
static inline mbt_quat mbt_quat_identity(void) { return mbt_quat_make(1, 0, 0, 0); }
/* |q| = sqrt(w² + x² + y² + z²) */
static inline mbt_real mbt_quat_norm(mbt_quat q) {
  return mbt_sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
}
/* q* = [w, −x, −y, −z]: for a unit quaternion q_AB, q_AB* = q_BA. */
static inline mbt_quat mbt_quat_conjugate(mbt_quat q) {
  return mbt_quat_make(q.w, -q.x, -q.y, -q.z);
}
/* Hamilton product q_AC = q_AB ⊗ q_BC (matches R_AC = R_AB·R_BC):
 * w = a_w·b_w − a⃗·b⃗, v⃗ = a_w·b⃗ + b_w·a⃗ + a⃗ × b⃗. */
static inline mbt_quat mbt_quat_multiply(mbt_quat a, mbt_quat b) {
  return mbt_quat_make(
      a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + b.w * a.x + a.y * b.z - a.z * b.y,
      a.w * b.y + b.w * a.y + a.z * b.x - a.x * b.z, a.w * b.z + b.w * a.z + a.x * b.y - a.y * b.x);
}
/* q ← q/|q|. Returns MBT_ERR_INVALID_ARGUMENT and leaves q unchanged if |q| is zero or not
 * finite (no NaN is produced). */
int mbt_quat_normalize(mbt_quat* q);
/* The unit quaternion of R_AB by Shepperd's method (the largest of 4w², 4x², 4y², 4z² picks
 * the well-conditioned formula), normalized, with w >= 0. */
mbt_quat mbt_quat_from_rotation(const mbt_mat3* R_AB);

/* ---- printing (snprintf semantics: returns the length the full text needs) ---------- */
/* "[x, y, z]" with %g */
int mbt_vec3_to_string(char* buf, size_t n, mbt_vec3 a);
/* "[[r00, r01, r02], [r10, ...], [...]]" with %g */
int mbt_mat3_to_string(char* buf, size_t n, const mbt_mat3* A);

#ifdef __cplusplus
}
#endif
#endif /* MBT_MATH_H */
