/* mbt/spatial.h: spatial vectors (velocity, acceleration, force, momentum).
 *
 * A spatial vector is 6 numbers, rotational part on top, translational part below, both
 * expressed in the same frame E (Drake's SpatialVector; these are not Plücker vectors):
 *   V_MB_E = [w_MB_E; v_MBo_E]      spatial velocity of frame B measured in M
 *   A_MB_E = [alpha_MB_E; a_MBo_E]  spatial acceleration
 *   F_Bo_E = [tau_Bo_E; f_Bo_E]     spatial force (torque about Bo, force)
 *   L_MBo_E = [h_MBo_E; l_MBo_E]    spatial momentum (angular about Bo, linear)
 * Each type is a union: named parts (V.w, V.v) or the 6 coefficients (V.coeffs[i]). */
#ifndef MBT_SPATIAL_H
#define MBT_SPATIAL_H

#include <stddef.h>
#include <stdio.h>

#include "mbt/math.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef union {
  struct { mbt_vec3 w; mbt_vec3 v; };
  mbt_real coeffs[6];
} mbt_spatial_velocity;

typedef union {
  struct { mbt_vec3 alpha; mbt_vec3 a; };
  mbt_real coeffs[6];
} mbt_spatial_acceleration;

typedef union {
  struct { mbt_vec3 tau; mbt_vec3 f; };
  mbt_real coeffs[6];
} mbt_spatial_force;

typedef union {
  struct { mbt_vec3 h; mbt_vec3 l; };
  mbt_real coeffs[6];
} mbt_spatial_momentum;

/* Sizes of a spatial vector and of its parts (Drake's SpatialVector enum). */
enum {
  MBT_SPATIAL_VECTOR_SIZE = 6,
  MBT_SPATIAL_ROTATION_SIZE = 3,
  MBT_SPATIAL_TRANSLATION_SIZE = 3
};

/* Every spatial vector type X in {velocity, acceleration, force, momentum} has the members of
 * Drake's SpatialVector base, as mbt_spatial_X_<member> (docs/spatial.md maps each one):
 *   make, make6, from_array, zero, nan, set_zero, set_nan, get, set, rotational,
 *   mutable_rotational, translational, mutable_translational, data, mutable_data, neg, add,
 *   sub, scale, add_in_place, sub_in_place, scale_in_place,
 *   get_maximum_absolute_differences, is_nearly_equal_within_absolute_tolerance, is_approx,
 *   reexpress, to_string, fprint.
 * Copying is plain struct assignment. Inputs are passed by pointer, results returned by value;
 * the *_in_place functions return their first argument. */

/* ---- common members of mbt_spatial_velocity (Drake's SpatialVector base) --------- */
/* [w; v] */
static inline mbt_spatial_velocity mbt_spatial_velocity_make(mbt_vec3 w, mbt_vec3 v) {
  mbt_spatial_velocity V;
  V.w = w;
  V.v = v;
  return V;
}
/* [w0 w1 w2 v0 v1 v2] from 6 numbers, rotational part first. */
static inline mbt_spatial_velocity mbt_spatial_velocity_make6(mbt_real w0, mbt_real w1, mbt_real w2,
                                                              mbt_real v0, mbt_real v1,
                                                              mbt_real v2) {
  return mbt_spatial_velocity_make(mbt_vec3_make(w0, w1, w2), mbt_vec3_make(v0, v1, v2));
}
/* From an array of 6: c[0..2] rotational, c[3..5] translational. */
static inline mbt_spatial_velocity mbt_spatial_velocity_from_array(const mbt_real c[6]) {
  return mbt_spatial_velocity_make6(c[0], c[1], c[2], c[3], c[4], c[5]);
}
/* [0; 0] */
static inline mbt_spatial_velocity mbt_spatial_velocity_zero(void) {
  return mbt_spatial_velocity_make(mbt_vec3_zero(), mbt_vec3_zero());
}
/* All six elements NaN (Drake's default constructor in Debug builds). */
static inline mbt_spatial_velocity mbt_spatial_velocity_nan(void) {
  const mbt_vec3 n = mbt_vec3_make(NAN, NAN, NAN);
  return mbt_spatial_velocity_make(n, n);
}
/* V ← 0; returns V. */
static inline mbt_spatial_velocity* mbt_spatial_velocity_set_zero(mbt_spatial_velocity* V) {
  *V = mbt_spatial_velocity_zero();
  return V;
}
/* V ← NaN in all six elements. */
static inline void mbt_spatial_velocity_set_nan(mbt_spatial_velocity* V) {
  *V = mbt_spatial_velocity_nan();
}
/* V[i], i in 0..5; NaN if i is out of range. */
static inline mbt_real mbt_spatial_velocity_get(const mbt_spatial_velocity* V, int i) {
  return i >= 0 && i < MBT_SPATIAL_VECTOR_SIZE ? V->coeffs[i] : (mbt_real)NAN;
}
/* V[i] ← x, i in 0..5; MBT_ERR_INVALID_ARGUMENT (and no change) if i is out of range. */
static inline int mbt_spatial_velocity_set(mbt_spatial_velocity* V, int i, mbt_real x) {
  if (i < 0 || i >= MBT_SPATIAL_VECTOR_SIZE) return MBT_ERR_INVALID_ARGUMENT;
  V->coeffs[i] = x;
  return MBT_OK;
}
/* The rotational part w (a copy; V->w is the mutable one). */
static inline mbt_vec3 mbt_spatial_velocity_rotational(const mbt_spatial_velocity* V) {
  return V->w;
}
static inline mbt_vec3* mbt_spatial_velocity_mutable_rotational(mbt_spatial_velocity* V) {
  return &V->w;
}
/* The translational part v (a copy; V->v is the mutable one). */
static inline mbt_vec3 mbt_spatial_velocity_translational(const mbt_spatial_velocity* V) {
  return V->v;
}
static inline mbt_vec3* mbt_spatial_velocity_mutable_translational(mbt_spatial_velocity* V) {
  return &V->v;
}
/* The 6 densely packed elements, rotational first. */
static inline const mbt_real* mbt_spatial_velocity_data(const mbt_spatial_velocity* V) {
  return V->coeffs;
}
static inline mbt_real* mbt_spatial_velocity_mutable_data(mbt_spatial_velocity* V) {
  return V->coeffs;
}
/* −V */
static inline mbt_spatial_velocity mbt_spatial_velocity_neg(const mbt_spatial_velocity* V) {
  return mbt_spatial_velocity_make(mbt_vec3_neg(V->w), mbt_vec3_neg(V->v));
}
/* V1 + V2, element-wise (both expressed in the same frame). */
static inline mbt_spatial_velocity mbt_spatial_velocity_add(const mbt_spatial_velocity* V1,
                                                            const mbt_spatial_velocity* V2) {
  return mbt_spatial_velocity_make(mbt_vec3_add(V1->w, V2->w), mbt_vec3_add(V1->v, V2->v));
}
/* V1 − V2, element-wise. */
static inline mbt_spatial_velocity mbt_spatial_velocity_sub(const mbt_spatial_velocity* V1,
                                                            const mbt_spatial_velocity* V2) {
  return mbt_spatial_velocity_make(mbt_vec3_sub(V1->w, V2->w), mbt_vec3_sub(V1->v, V2->v));
}
/* s·V */
static inline mbt_spatial_velocity mbt_spatial_velocity_scale(const mbt_spatial_velocity* V,
                                                              mbt_real s) {
  return mbt_spatial_velocity_make(mbt_vec3_scale(V->w, s), mbt_vec3_scale(V->v, s));
}
/* V += V2; returns V. */
static inline mbt_spatial_velocity* mbt_spatial_velocity_add_in_place(
    mbt_spatial_velocity* V, const mbt_spatial_velocity* V2) {
  *V = mbt_spatial_velocity_add(V, V2);
  return V;
}
/* V −= V2; returns V. */
static inline mbt_spatial_velocity* mbt_spatial_velocity_sub_in_place(
    mbt_spatial_velocity* V, const mbt_spatial_velocity* V2) {
  *V = mbt_spatial_velocity_sub(V, V2);
  return V;
}
/* V *= s; returns V. */
static inline mbt_spatial_velocity* mbt_spatial_velocity_scale_in_place(mbt_spatial_velocity* V,
                                                                        mbt_real s) {
  *V = mbt_spatial_velocity_scale(V, s);
  return V;
}
/* rot_diff = ‖V1.w − V2.w‖∞, trans_diff = ‖V1.v − V2.v‖∞ */
static inline void mbt_spatial_velocity_get_maximum_absolute_differences(
    const mbt_spatial_velocity* V1, const mbt_spatial_velocity* V2, mbt_real* rot_diff,
    mbt_real* trans_diff) {
  *rot_diff = mbt_vec3_norm_inf(mbt_vec3_sub(V1->w, V2->w));
  *trans_diff = mbt_vec3_norm_inf(mbt_vec3_sub(V1->v, V2->v));
}
/* rot_diff <= rot_tol and trans_diff <= trans_tol (false if any element is NaN). */
static inline bool mbt_spatial_velocity_is_nearly_equal_within_absolute_tolerance(
    const mbt_spatial_velocity* V1, const mbt_spatial_velocity* V2, mbt_real rot_tol,
    mbt_real trans_tol) {
  mbt_real dr, dt;
  mbt_spatial_velocity_get_maximum_absolute_differences(V1, V2, &dr, &dt);
  return mbt_le(dr, rot_tol) && mbt_le(dt, trans_tol);
}
/* ‖V1 − V2‖∞ <= tol over all six elements (Drake: IsNearlyEqualWithinAbsoluteTolerance
 * with tol for both parts; Drake's default tol is DBL_EPSILON). */
static inline bool mbt_spatial_velocity_is_approx(const mbt_spatial_velocity* V1,
                                                  const mbt_spatial_velocity* V2, mbt_real tol) {
  return mbt_spatial_velocity_is_nearly_equal_within_absolute_tolerance(V1, V2, tol, tol);
}
/* V_F = R_FE·V_E: both parts re-expressed from frame E to frame F. */
static inline mbt_spatial_velocity mbt_spatial_velocity_reexpress(const mbt_mat3* R_FE,
                                                                  const mbt_spatial_velocity* V_E) {
  return mbt_spatial_velocity_make(mbt_mat3_mul_vec(R_FE, V_E->w), mbt_mat3_mul_vec(R_FE, V_E->v));
}
/* "[w0, w1, w2, v0, v1, v2]" with %g (Drake's operator<<); snprintf semantics. */
int mbt_spatial_velocity_to_string(char* buf, size_t n, const mbt_spatial_velocity* V);
/* The same text written to f; returns the number of characters written or a negative value. */
int mbt_spatial_velocity_fprint(FILE* f, const mbt_spatial_velocity* V);

/* ---- common members of mbt_spatial_acceleration (Drake's SpatialVector base) ----- */
/* [alpha; a] */
static inline mbt_spatial_acceleration mbt_spatial_acceleration_make(mbt_vec3 alpha, mbt_vec3 a) {
  mbt_spatial_acceleration A;
  A.alpha = alpha;
  A.a = a;
  return A;
}
/* [alpha0 alpha1 alpha2 a0 a1 a2] from 6 numbers, rotational part first. */
static inline mbt_spatial_acceleration mbt_spatial_acceleration_make6(mbt_real alpha0,
                                                                      mbt_real alpha1,
                                                                      mbt_real alpha2, mbt_real a0,
                                                                      mbt_real a1, mbt_real a2) {
  return mbt_spatial_acceleration_make(mbt_vec3_make(alpha0, alpha1, alpha2),
                                       mbt_vec3_make(a0, a1, a2));
}
/* From an array of 6: c[0..2] rotational, c[3..5] translational. */
static inline mbt_spatial_acceleration mbt_spatial_acceleration_from_array(const mbt_real c[6]) {
  return mbt_spatial_acceleration_make6(c[0], c[1], c[2], c[3], c[4], c[5]);
}
/* [0; 0] */
static inline mbt_spatial_acceleration mbt_spatial_acceleration_zero(void) {
  return mbt_spatial_acceleration_make(mbt_vec3_zero(), mbt_vec3_zero());
}
/* All six elements NaN (Drake's default constructor in Debug builds). */
static inline mbt_spatial_acceleration mbt_spatial_acceleration_nan(void) {
  const mbt_vec3 n = mbt_vec3_make(NAN, NAN, NAN);
  return mbt_spatial_acceleration_make(n, n);
}
/* A ← 0; returns A. */
static inline mbt_spatial_acceleration* mbt_spatial_acceleration_set_zero(
    mbt_spatial_acceleration* A) {
  *A = mbt_spatial_acceleration_zero();
  return A;
}
/* A ← NaN in all six elements. */
static inline void mbt_spatial_acceleration_set_nan(mbt_spatial_acceleration* A) {
  *A = mbt_spatial_acceleration_nan();
}
/* A[i], i in 0..5; NaN if i is out of range. */
static inline mbt_real mbt_spatial_acceleration_get(const mbt_spatial_acceleration* A, int i) {
  return i >= 0 && i < MBT_SPATIAL_VECTOR_SIZE ? A->coeffs[i] : (mbt_real)NAN;
}
/* A[i] ← x, i in 0..5; MBT_ERR_INVALID_ARGUMENT (and no change) if i is out of range. */
static inline int mbt_spatial_acceleration_set(mbt_spatial_acceleration* A, int i, mbt_real x) {
  if (i < 0 || i >= MBT_SPATIAL_VECTOR_SIZE) return MBT_ERR_INVALID_ARGUMENT;
  A->coeffs[i] = x;
  return MBT_OK;
}
/* The rotational part alpha (a copy; A->alpha is the mutable one). */
static inline mbt_vec3 mbt_spatial_acceleration_rotational(const mbt_spatial_acceleration* A) {
  return A->alpha;
}
static inline mbt_vec3* mbt_spatial_acceleration_mutable_rotational(mbt_spatial_acceleration* A) {
  return &A->alpha;
}
/* The translational part a (a copy; A->a is the mutable one). */
static inline mbt_vec3 mbt_spatial_acceleration_translational(const mbt_spatial_acceleration* A) {
  return A->a;
}
static inline mbt_vec3* mbt_spatial_acceleration_mutable_translational(
    mbt_spatial_acceleration* A) {
  return &A->a;
}
/* The 6 densely packed elements, rotational first. */
static inline const mbt_real* mbt_spatial_acceleration_data(const mbt_spatial_acceleration* A) {
  return A->coeffs;
}
static inline mbt_real* mbt_spatial_acceleration_mutable_data(mbt_spatial_acceleration* A) {
  return A->coeffs;
}
/* −A */
static inline mbt_spatial_acceleration mbt_spatial_acceleration_neg(
    const mbt_spatial_acceleration* A) {
  return mbt_spatial_acceleration_make(mbt_vec3_neg(A->alpha), mbt_vec3_neg(A->a));
}
/* A1 + A2, element-wise (both expressed in the same frame). */
static inline mbt_spatial_acceleration mbt_spatial_acceleration_add(
    const mbt_spatial_acceleration* A1, const mbt_spatial_acceleration* A2) {
  return mbt_spatial_acceleration_make(mbt_vec3_add(A1->alpha, A2->alpha),
                                       mbt_vec3_add(A1->a, A2->a));
}
/* A1 − A2, element-wise. */
static inline mbt_spatial_acceleration mbt_spatial_acceleration_sub(
    const mbt_spatial_acceleration* A1, const mbt_spatial_acceleration* A2) {
  return mbt_spatial_acceleration_make(mbt_vec3_sub(A1->alpha, A2->alpha),
                                       mbt_vec3_sub(A1->a, A2->a));
}
/* s·A */
static inline mbt_spatial_acceleration mbt_spatial_acceleration_scale(
    const mbt_spatial_acceleration* A, mbt_real s) {
  return mbt_spatial_acceleration_make(mbt_vec3_scale(A->alpha, s), mbt_vec3_scale(A->a, s));
}
/* A += A2; returns A. */
static inline mbt_spatial_acceleration* mbt_spatial_acceleration_add_in_place(
    mbt_spatial_acceleration* A, const mbt_spatial_acceleration* A2) {
  *A = mbt_spatial_acceleration_add(A, A2);
  return A;
}
/* A −= A2; returns A. */
static inline mbt_spatial_acceleration* mbt_spatial_acceleration_sub_in_place(
    mbt_spatial_acceleration* A, const mbt_spatial_acceleration* A2) {
  *A = mbt_spatial_acceleration_sub(A, A2);
  return A;
}
/* A *= s; returns A. */
static inline mbt_spatial_acceleration* mbt_spatial_acceleration_scale_in_place(
    mbt_spatial_acceleration* A, mbt_real s) {
  *A = mbt_spatial_acceleration_scale(A, s);
  return A;
}
/* rot_diff = ‖A1.alpha − A2.alpha‖∞, trans_diff = ‖A1.a − A2.a‖∞ */
static inline void mbt_spatial_acceleration_get_maximum_absolute_differences(
    const mbt_spatial_acceleration* A1, const mbt_spatial_acceleration* A2, mbt_real* rot_diff,
    mbt_real* trans_diff) {
  *rot_diff = mbt_vec3_norm_inf(mbt_vec3_sub(A1->alpha, A2->alpha));
  *trans_diff = mbt_vec3_norm_inf(mbt_vec3_sub(A1->a, A2->a));
}
/* rot_diff <= rot_tol and trans_diff <= trans_tol (false if any element is NaN). */
static inline bool mbt_spatial_acceleration_is_nearly_equal_within_absolute_tolerance(
    const mbt_spatial_acceleration* A1, const mbt_spatial_acceleration* A2, mbt_real rot_tol,
    mbt_real trans_tol) {
  mbt_real dr, dt;
  mbt_spatial_acceleration_get_maximum_absolute_differences(A1, A2, &dr, &dt);
  return mbt_le(dr, rot_tol) && mbt_le(dt, trans_tol);
}
/* ‖A1 − A2‖∞ <= tol over all six elements (Drake: IsNearlyEqualWithinAbsoluteTolerance
 * with tol for both parts; Drake's default tol is DBL_EPSILON). */
static inline bool mbt_spatial_acceleration_is_approx(const mbt_spatial_acceleration* A1,
                                                      const mbt_spatial_acceleration* A2,
                                                      mbt_real tol) {
  return mbt_spatial_acceleration_is_nearly_equal_within_absolute_tolerance(A1, A2, tol, tol);
}
/* A_F = R_FE·A_E: both parts re-expressed from frame E to frame F. */
static inline mbt_spatial_acceleration mbt_spatial_acceleration_reexpress(
    const mbt_mat3* R_FE, const mbt_spatial_acceleration* A_E) {
  return mbt_spatial_acceleration_make(mbt_mat3_mul_vec(R_FE, A_E->alpha),
                                       mbt_mat3_mul_vec(R_FE, A_E->a));
}
/* "[alpha0, alpha1, alpha2, a0, a1, a2]" with %g (Drake's operator<<); snprintf semantics. */
int mbt_spatial_acceleration_to_string(char* buf, size_t n, const mbt_spatial_acceleration* A);
/* The same text written to f; returns the number of characters written or a negative value. */
int mbt_spatial_acceleration_fprint(FILE* f, const mbt_spatial_acceleration* A);

/* ---- common members of mbt_spatial_force (Drake's SpatialVector base) ------------ */
/* [tau; f] */
static inline mbt_spatial_force mbt_spatial_force_make(mbt_vec3 tau, mbt_vec3 f) {
  mbt_spatial_force F;
  F.tau = tau;
  F.f = f;
  return F;
}
/* [tau0 tau1 tau2 f0 f1 f2] from 6 numbers, rotational part first. */
static inline mbt_spatial_force mbt_spatial_force_make6(mbt_real tau0, mbt_real tau1, mbt_real tau2,
                                                        mbt_real f0, mbt_real f1, mbt_real f2) {
  return mbt_spatial_force_make(mbt_vec3_make(tau0, tau1, tau2), mbt_vec3_make(f0, f1, f2));
}
/* From an array of 6: c[0..2] rotational, c[3..5] translational. */
static inline mbt_spatial_force mbt_spatial_force_from_array(const mbt_real c[6]) {
  return mbt_spatial_force_make6(c[0], c[1], c[2], c[3], c[4], c[5]);
}
/* [0; 0] */
static inline mbt_spatial_force mbt_spatial_force_zero(void) {
  return mbt_spatial_force_make(mbt_vec3_zero(), mbt_vec3_zero());
}
/* All six elements NaN (Drake's default constructor in Debug builds). */
static inline mbt_spatial_force mbt_spatial_force_nan(void) {
  const mbt_vec3 n = mbt_vec3_make(NAN, NAN, NAN);
  return mbt_spatial_force_make(n, n);
}
/* F ← 0; returns F. */
static inline mbt_spatial_force* mbt_spatial_force_set_zero(mbt_spatial_force* F) {
  *F = mbt_spatial_force_zero();
  return F;
}
/* F ← NaN in all six elements. */
static inline void mbt_spatial_force_set_nan(mbt_spatial_force* F) { *F = mbt_spatial_force_nan(); }
/* F[i], i in 0..5; NaN if i is out of range. */
static inline mbt_real mbt_spatial_force_get(const mbt_spatial_force* F, int i) {
  return i >= 0 && i < MBT_SPATIAL_VECTOR_SIZE ? F->coeffs[i] : (mbt_real)NAN;
}
/* F[i] ← x, i in 0..5; MBT_ERR_INVALID_ARGUMENT (and no change) if i is out of range. */
static inline int mbt_spatial_force_set(mbt_spatial_force* F, int i, mbt_real x) {
  if (i < 0 || i >= MBT_SPATIAL_VECTOR_SIZE) return MBT_ERR_INVALID_ARGUMENT;
  F->coeffs[i] = x;
  return MBT_OK;
}
/* The rotational part tau (a copy; F->tau is the mutable one). */
static inline mbt_vec3 mbt_spatial_force_rotational(const mbt_spatial_force* F) { return F->tau; }
static inline mbt_vec3* mbt_spatial_force_mutable_rotational(mbt_spatial_force* F) {
  return &F->tau;
}
/* The translational part f (a copy; F->f is the mutable one). */
static inline mbt_vec3 mbt_spatial_force_translational(const mbt_spatial_force* F) { return F->f; }
static inline mbt_vec3* mbt_spatial_force_mutable_translational(mbt_spatial_force* F) {
  return &F->f;
}
/* The 6 densely packed elements, rotational first. */
static inline const mbt_real* mbt_spatial_force_data(const mbt_spatial_force* F) {
  return F->coeffs;
}
static inline mbt_real* mbt_spatial_force_mutable_data(mbt_spatial_force* F) { return F->coeffs; }
/* −F */
static inline mbt_spatial_force mbt_spatial_force_neg(const mbt_spatial_force* F) {
  return mbt_spatial_force_make(mbt_vec3_neg(F->tau), mbt_vec3_neg(F->f));
}
/* F1 + F2, element-wise (both expressed in the same frame). */
static inline mbt_spatial_force mbt_spatial_force_add(const mbt_spatial_force* F1,
                                                      const mbt_spatial_force* F2) {
  return mbt_spatial_force_make(mbt_vec3_add(F1->tau, F2->tau), mbt_vec3_add(F1->f, F2->f));
}
/* F1 − F2, element-wise. */
static inline mbt_spatial_force mbt_spatial_force_sub(const mbt_spatial_force* F1,
                                                      const mbt_spatial_force* F2) {
  return mbt_spatial_force_make(mbt_vec3_sub(F1->tau, F2->tau), mbt_vec3_sub(F1->f, F2->f));
}
/* s·F */
static inline mbt_spatial_force mbt_spatial_force_scale(const mbt_spatial_force* F, mbt_real s) {
  return mbt_spatial_force_make(mbt_vec3_scale(F->tau, s), mbt_vec3_scale(F->f, s));
}
/* F += F2; returns F. */
static inline mbt_spatial_force* mbt_spatial_force_add_in_place(mbt_spatial_force* F,
                                                                const mbt_spatial_force* F2) {
  *F = mbt_spatial_force_add(F, F2);
  return F;
}
/* F −= F2; returns F. */
static inline mbt_spatial_force* mbt_spatial_force_sub_in_place(mbt_spatial_force* F,
                                                                const mbt_spatial_force* F2) {
  *F = mbt_spatial_force_sub(F, F2);
  return F;
}
/* F *= s; returns F. */
static inline mbt_spatial_force* mbt_spatial_force_scale_in_place(mbt_spatial_force* F,
                                                                  mbt_real s) {
  *F = mbt_spatial_force_scale(F, s);
  return F;
}
/* rot_diff = ‖F1.tau − F2.tau‖∞, trans_diff = ‖F1.f − F2.f‖∞ */
static inline void mbt_spatial_force_get_maximum_absolute_differences(const mbt_spatial_force* F1,
                                                                      const mbt_spatial_force* F2,
                                                                      mbt_real* rot_diff,
                                                                      mbt_real* trans_diff) {
  *rot_diff = mbt_vec3_norm_inf(mbt_vec3_sub(F1->tau, F2->tau));
  *trans_diff = mbt_vec3_norm_inf(mbt_vec3_sub(F1->f, F2->f));
}
/* rot_diff <= rot_tol and trans_diff <= trans_tol (false if any element is NaN). */
static inline bool mbt_spatial_force_is_nearly_equal_within_absolute_tolerance(
    const mbt_spatial_force* F1, const mbt_spatial_force* F2, mbt_real rot_tol,
    mbt_real trans_tol) {
  mbt_real dr, dt;
  mbt_spatial_force_get_maximum_absolute_differences(F1, F2, &dr, &dt);
  return mbt_le(dr, rot_tol) && mbt_le(dt, trans_tol);
}
/* ‖F1 − F2‖∞ <= tol over all six elements (Drake: IsNearlyEqualWithinAbsoluteTolerance
 * with tol for both parts; Drake's default tol is DBL_EPSILON). */
static inline bool mbt_spatial_force_is_approx(const mbt_spatial_force* F1,
                                               const mbt_spatial_force* F2, mbt_real tol) {
  return mbt_spatial_force_is_nearly_equal_within_absolute_tolerance(F1, F2, tol, tol);
}
/* F_F = R_FE·F_E: both parts re-expressed from frame E to frame F. */
static inline mbt_spatial_force mbt_spatial_force_reexpress(const mbt_mat3* R_FE,
                                                            const mbt_spatial_force* F_E) {
  return mbt_spatial_force_make(mbt_mat3_mul_vec(R_FE, F_E->tau), mbt_mat3_mul_vec(R_FE, F_E->f));
}
/* "[tau0, tau1, tau2, f0, f1, f2]" with %g (Drake's operator<<); snprintf semantics. */
int mbt_spatial_force_to_string(char* buf, size_t n, const mbt_spatial_force* F);
/* The same text written to f; returns the number of characters written or a negative value. */
int mbt_spatial_force_fprint(FILE* f, const mbt_spatial_force* F);

/* ---- common members of mbt_spatial_momentum (Drake's SpatialVector base) --------- */
/* [h; l] */
static inline mbt_spatial_momentum mbt_spatial_momentum_make(mbt_vec3 h, mbt_vec3 l) {
  mbt_spatial_momentum L;
  L.h = h;
  L.l = l;
  return L;
}
/* [h0 h1 h2 l0 l1 l2] from 6 numbers, rotational part first. */
static inline mbt_spatial_momentum mbt_spatial_momentum_make6(mbt_real h0, mbt_real h1, mbt_real h2,
                                                              mbt_real l0, mbt_real l1,
                                                              mbt_real l2) {
  return mbt_spatial_momentum_make(mbt_vec3_make(h0, h1, h2), mbt_vec3_make(l0, l1, l2));
}
/* From an array of 6: c[0..2] rotational, c[3..5] translational. */
static inline mbt_spatial_momentum mbt_spatial_momentum_from_array(const mbt_real c[6]) {
  return mbt_spatial_momentum_make6(c[0], c[1], c[2], c[3], c[4], c[5]);
}
/* [0; 0] */
static inline mbt_spatial_momentum mbt_spatial_momentum_zero(void) {
  return mbt_spatial_momentum_make(mbt_vec3_zero(), mbt_vec3_zero());
}
/* All six elements NaN (Drake's default constructor in Debug builds). */
static inline mbt_spatial_momentum mbt_spatial_momentum_nan(void) {
  const mbt_vec3 n = mbt_vec3_make(NAN, NAN, NAN);
  return mbt_spatial_momentum_make(n, n);
}
/* L ← 0; returns L. */
static inline mbt_spatial_momentum* mbt_spatial_momentum_set_zero(mbt_spatial_momentum* L) {
  *L = mbt_spatial_momentum_zero();
  return L;
}
/* L ← NaN in all six elements. */
static inline void mbt_spatial_momentum_set_nan(mbt_spatial_momentum* L) {
  *L = mbt_spatial_momentum_nan();
}
/* L[i], i in 0..5; NaN if i is out of range. */
static inline mbt_real mbt_spatial_momentum_get(const mbt_spatial_momentum* L, int i) {
  return i >= 0 && i < MBT_SPATIAL_VECTOR_SIZE ? L->coeffs[i] : (mbt_real)NAN;
}
/* L[i] ← x, i in 0..5; MBT_ERR_INVALID_ARGUMENT (and no change) if i is out of range. */
static inline int mbt_spatial_momentum_set(mbt_spatial_momentum* L, int i, mbt_real x) {
  if (i < 0 || i >= MBT_SPATIAL_VECTOR_SIZE) return MBT_ERR_INVALID_ARGUMENT;
  L->coeffs[i] = x;
  return MBT_OK;
}
/* The rotational part h (a copy; L->h is the mutable one). */
static inline mbt_vec3 mbt_spatial_momentum_rotational(const mbt_spatial_momentum* L) {
  return L->h;
}
static inline mbt_vec3* mbt_spatial_momentum_mutable_rotational(mbt_spatial_momentum* L) {
  return &L->h;
}
/* The translational part l (a copy; L->l is the mutable one). */
static inline mbt_vec3 mbt_spatial_momentum_translational(const mbt_spatial_momentum* L) {
  return L->l;
}
static inline mbt_vec3* mbt_spatial_momentum_mutable_translational(mbt_spatial_momentum* L) {
  return &L->l;
}
/* The 6 densely packed elements, rotational first. */
static inline const mbt_real* mbt_spatial_momentum_data(const mbt_spatial_momentum* L) {
  return L->coeffs;
}
static inline mbt_real* mbt_spatial_momentum_mutable_data(mbt_spatial_momentum* L) {
  return L->coeffs;
}
/* −L */
static inline mbt_spatial_momentum mbt_spatial_momentum_neg(const mbt_spatial_momentum* L) {
  return mbt_spatial_momentum_make(mbt_vec3_neg(L->h), mbt_vec3_neg(L->l));
}
/* L1 + L2, element-wise (both expressed in the same frame). */
static inline mbt_spatial_momentum mbt_spatial_momentum_add(const mbt_spatial_momentum* L1,
                                                            const mbt_spatial_momentum* L2) {
  return mbt_spatial_momentum_make(mbt_vec3_add(L1->h, L2->h), mbt_vec3_add(L1->l, L2->l));
}
/* L1 − L2, element-wise. */
static inline mbt_spatial_momentum mbt_spatial_momentum_sub(const mbt_spatial_momentum* L1,
                                                            const mbt_spatial_momentum* L2) {
  return mbt_spatial_momentum_make(mbt_vec3_sub(L1->h, L2->h), mbt_vec3_sub(L1->l, L2->l));
}
/* s·L */
static inline mbt_spatial_momentum mbt_spatial_momentum_scale(const mbt_spatial_momentum* L,
                                                              mbt_real s) {
  return mbt_spatial_momentum_make(mbt_vec3_scale(L->h, s), mbt_vec3_scale(L->l, s));
}
/* L += L2; returns L. */
static inline mbt_spatial_momentum* mbt_spatial_momentum_add_in_place(
    mbt_spatial_momentum* L, const mbt_spatial_momentum* L2) {
  *L = mbt_spatial_momentum_add(L, L2);
  return L;
}
/* L −= L2; returns L. */
static inline mbt_spatial_momentum* mbt_spatial_momentum_sub_in_place(
    mbt_spatial_momentum* L, const mbt_spatial_momentum* L2) {
  *L = mbt_spatial_momentum_sub(L, L2);
  return L;
}
/* L *= s; returns L. */
static inline mbt_spatial_momentum* mbt_spatial_momentum_scale_in_place(mbt_spatial_momentum* L,
                                                                        mbt_real s) {
  *L = mbt_spatial_momentum_scale(L, s);
  return L;
}
/* rot_diff = ‖L1.h − L2.h‖∞, trans_diff = ‖L1.l − L2.l‖∞ */
static inline void mbt_spatial_momentum_get_maximum_absolute_differences(
    const mbt_spatial_momentum* L1, const mbt_spatial_momentum* L2, mbt_real* rot_diff,
    mbt_real* trans_diff) {
  *rot_diff = mbt_vec3_norm_inf(mbt_vec3_sub(L1->h, L2->h));
  *trans_diff = mbt_vec3_norm_inf(mbt_vec3_sub(L1->l, L2->l));
}
/* rot_diff <= rot_tol and trans_diff <= trans_tol (false if any element is NaN). */
static inline bool mbt_spatial_momentum_is_nearly_equal_within_absolute_tolerance(
    const mbt_spatial_momentum* L1, const mbt_spatial_momentum* L2, mbt_real rot_tol,
    mbt_real trans_tol) {
  mbt_real dr, dt;
  mbt_spatial_momentum_get_maximum_absolute_differences(L1, L2, &dr, &dt);
  return mbt_le(dr, rot_tol) && mbt_le(dt, trans_tol);
}
/* ‖L1 − L2‖∞ <= tol over all six elements (Drake: IsNearlyEqualWithinAbsoluteTolerance
 * with tol for both parts; Drake's default tol is DBL_EPSILON). */
static inline bool mbt_spatial_momentum_is_approx(const mbt_spatial_momentum* L1,
                                                  const mbt_spatial_momentum* L2, mbt_real tol) {
  return mbt_spatial_momentum_is_nearly_equal_within_absolute_tolerance(L1, L2, tol, tol);
}
/* L_F = R_FE·L_E: both parts re-expressed from frame E to frame F. */
static inline mbt_spatial_momentum mbt_spatial_momentum_reexpress(const mbt_mat3* R_FE,
                                                                  const mbt_spatial_momentum* L_E) {
  return mbt_spatial_momentum_make(mbt_mat3_mul_vec(R_FE, L_E->h), mbt_mat3_mul_vec(R_FE, L_E->l));
}
/* "[h0, h1, h2, l0, l1, l2]" with %g (Drake's operator<<); snprintf semantics. */
int mbt_spatial_momentum_to_string(char* buf, size_t n, const mbt_spatial_momentum* L);
/* The same text written to f; returns the number of characters written or a negative value. */
int mbt_spatial_momentum_fprint(FILE* f, const mbt_spatial_momentum* L);

/* ---- SpatialVelocity ------------------------------------------------------------- */
/* V_MC_E = V_MB_E.Shift(p_BoCo_E), C fixed to B: w_MC = w_MB, v_MCo = v_MBo + w_MB × p_BoCo. */
static inline mbt_spatial_velocity mbt_spatial_velocity_shift(const mbt_spatial_velocity* V_MB_E,
                                                              mbt_vec3 p_BoCo_E) {
  return mbt_spatial_velocity_make(V_MB_E->w,
                                   mbt_vec3_add(V_MB_E->v, mbt_vec3_cross(V_MB_E->w, p_BoCo_E)));
}
/* V ← V_MC_E = V_MB_E.Shift(p_BoCo_E); returns V. */
static inline mbt_spatial_velocity* mbt_spatial_velocity_shift_in_place(mbt_spatial_velocity* V,
                                                                        mbt_vec3 p_BoCo_E) {
  *V = mbt_spatial_velocity_shift(V, p_BoCo_E);
  return V;
}
/* V_MC_E = V_MB_E.ComposeWithMovingFrameVelocity(p_BoCo_E, V_BC_E):
 * w_MC = w_MB + w_BC, v_MCo = v_MBo + w_MB × p_BoCo + v_BCo. */
static inline mbt_spatial_velocity mbt_spatial_velocity_compose_with_moving_frame_velocity(
    const mbt_spatial_velocity* V_MB_E, mbt_vec3 p_BoCo_E, const mbt_spatial_velocity* V_BC_E) {
  const mbt_spatial_velocity V_MCb_E = mbt_spatial_velocity_shift(V_MB_E, p_BoCo_E);
  return mbt_spatial_velocity_add(&V_MCb_E, V_BC_E);
}
/* Power V_MB_E · F_B_E = w·tau + v·f. */
static inline mbt_real mbt_spatial_velocity_dot_force(const mbt_spatial_velocity* V_MB_E,
                                                      const mbt_spatial_force* F_B_E) {
  return mbt_vec3_dot(V_MB_E->w, F_B_E->tau) + mbt_vec3_dot(V_MB_E->v, F_B_E->f);
}
/* V_MBp_E · L_MBp_E = w·h + v·l = 2·K_MB (twice the kinetic energy). */
static inline mbt_real mbt_spatial_velocity_dot_momentum(const mbt_spatial_velocity* V_MBp_E,
                                                         const mbt_spatial_momentum* L_MBp_E) {
  return mbt_vec3_dot(V_MBp_E->w, L_MBp_E->h) + mbt_vec3_dot(V_MBp_E->v, L_MBp_E->l);
}

/* ---- SpatialAcceleration --------------------------------------------------------- */
/* A_MC_E = A_MB_E.Shift(p_BoCo_E, w_MB_E), C fixed to B:
 * alpha_MC = alpha_MB, a_MCo = a_MBo + alpha_MB × p_BoCo + w_MB × (w_MB × p_BoCo). */
static inline mbt_spatial_acceleration mbt_spatial_acceleration_shift(
    const mbt_spatial_acceleration* A_MB_E, mbt_vec3 p_BoCo_E, mbt_vec3 w_MB_E) {
  const mbt_vec3 wxp = mbt_vec3_cross(w_MB_E, p_BoCo_E);
  return mbt_spatial_acceleration_make(
      A_MB_E->alpha, mbt_vec3_add(mbt_vec3_add(A_MB_E->a, mbt_vec3_cross(A_MB_E->alpha, p_BoCo_E)),
                                  mbt_vec3_cross(w_MB_E, wxp)));
}
/* A ← A_MB_E.Shift(p_BoCo_E, w_MB_E); returns A. */
static inline mbt_spatial_acceleration* mbt_spatial_acceleration_shift_in_place(
    mbt_spatial_acceleration* A, mbt_vec3 p_BoCo_E, mbt_vec3 w_MB_E) {
  *A = mbt_spatial_acceleration_shift(A, p_BoCo_E, w_MB_E);
  return A;
}
/* Shift with w_MB = 0: alpha_MC = alpha_MB, a_MCo = a_MBo + alpha_MB × p_BoCo. */
static inline mbt_spatial_acceleration mbt_spatial_acceleration_shift_with_zero_angular_velocity(
    const mbt_spatial_acceleration* A_MB_E, mbt_vec3 p_BoCo_E) {
  return mbt_spatial_acceleration_make(
      A_MB_E->alpha, mbt_vec3_add(A_MB_E->a, mbt_vec3_cross(A_MB_E->alpha, p_BoCo_E)));
}
/* A_MC_E = A_MB_E.ComposeWithMovingFrameAcceleration(p_BoCo_E, w_MB_E, V_BC_E, A_BC_E):
 * alpha_MC = alpha_MB + alpha_BC + w_MB × w_BC,
 * a_MCo = a_MBo + alpha_MB × p_BoCo + w_MB × (w_MB × p_BoCo) + 2·w_MB × v_BCo + a_BCo. */
static inline mbt_spatial_acceleration
mbt_spatial_acceleration_compose_with_moving_frame_acceleration(
    const mbt_spatial_acceleration* A_MB_E, mbt_vec3 p_BoCo_E, mbt_vec3 w_MB_E,
    const mbt_spatial_velocity* V_BC_E, const mbt_spatial_acceleration* A_BC_E) {
  const mbt_spatial_acceleration A_MCb_E = mbt_spatial_acceleration_shift(A_MB_E, p_BoCo_E, w_MB_E);
  return mbt_spatial_acceleration_make(
      mbt_vec3_add(mbt_vec3_add(A_MCb_E.alpha, A_BC_E->alpha), mbt_vec3_cross(w_MB_E, V_BC_E->w)),
      mbt_vec3_add(mbt_vec3_axpy(A_MCb_E.a, 2, mbt_vec3_cross(w_MB_E, V_BC_E->v)), A_BC_E->a));
}

/* ---- SpatialForce ---------------------------------------------------------------- */
/* F_Bq_E = F_Bp_E.Shift(p_BpBq_E): tau_Bq = tau_Bp − p_BpBq × f (= tau_Bp + p_BqBp × f), f same. */
static inline mbt_spatial_force mbt_spatial_force_shift(const mbt_spatial_force* F_Bp_E,
                                                        mbt_vec3 p_BpBq_E) {
  return mbt_spatial_force_make(mbt_vec3_sub(F_Bp_E->tau, mbt_vec3_cross(p_BpBq_E, F_Bp_E->f)),
                                F_Bp_E->f);
}
/* F ← F_Bp_E.Shift(p_BpBq_E); returns F. */
static inline mbt_spatial_force* mbt_spatial_force_shift_in_place(mbt_spatial_force* F,
                                                                  mbt_vec3 p_BpBq_E) {
  *F = mbt_spatial_force_shift(F, p_BpBq_E);
  return F;
}
/* Power F_B_E · V_MB_E = tau·w + f·v. */
static inline mbt_real mbt_spatial_force_dot(const mbt_spatial_force* F_B_E,
                                             const mbt_spatial_velocity* V_MB_E) {
  return mbt_spatial_velocity_dot_force(V_MB_E, F_B_E);
}

/* ---- SpatialMomentum ------------------------------------------------------------- */
/* L_MSQ_E = L_MSP_E.Shift(p_PQ_E): h_Q = h_P − p_PQ × l (= h_P + p_QP × l), l same. */
static inline mbt_spatial_momentum mbt_spatial_momentum_shift(const mbt_spatial_momentum* L_MSP_E,
                                                              mbt_vec3 p_PQ_E) {
  return mbt_spatial_momentum_make(mbt_vec3_sub(L_MSP_E->h, mbt_vec3_cross(p_PQ_E, L_MSP_E->l)),
                                   L_MSP_E->l);
}
/* L ← L_MSP_E.Shift(p_PQ_E); returns L. */
static inline mbt_spatial_momentum* mbt_spatial_momentum_shift_in_place(mbt_spatial_momentum* L,
                                                                        mbt_vec3 p_PQ_E) {
  *L = mbt_spatial_momentum_shift(L, p_PQ_E);
  return L;
}
/* L_MSP_E · V_MP_E = h·w + l·v = 2·K_MS when P is fixed to S. */
static inline mbt_real mbt_spatial_momentum_dot(const mbt_spatial_momentum* L_MSP_E,
                                                const mbt_spatial_velocity* V_MP_E) {
  return mbt_spatial_velocity_dot_momentum(V_MP_E, L_MSP_E);
}

#ifdef __cplusplus
}
#endif
#endif /* MBT_SPATIAL_H */
