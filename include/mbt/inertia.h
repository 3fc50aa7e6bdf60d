/* mbt/inertia.h: rotational, unit, spatial and articulated-body inertias.
 *
 * I_BP_E: rotational inertia of body B about point P, expressed in frame E. The six stored
 * numbers are the elements of the symmetric matrix: xx, yy, zz on the diagonal and the
 * off-diagonal elements xy, xz, yz (Ixy = −∫x·y dm, as in Drake and URDF).
 * G_BP_E: unit inertia (rotational inertia per unit mass).
 * M_BP_E: spatial inertia of B about P in E = {mass, p_PBcm_E, G_BP_E} (Drake's layout). */
#ifndef MBT_INERTIA_H
#define MBT_INERTIA_H

#include <stdbool.h>
#include <stddef.h>

#include "mbt/spatial.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct { mbt_real xx, yy, zz, xy, xz, yz; } mbt_rotational_inertia;
typedef struct { mbt_real xx, yy, zz, xy, xz, yz; } mbt_unit_inertia;

typedef struct {
  mbt_real mass;
  mbt_vec3 p_PScm_E;     /* from the about-point P to the center of mass Scm, in E */
  mbt_unit_inertia G_SP_E;  /* unit inertia of S about P, in E */
} mbt_spatial_inertia;

/* Articulated-body inertia P_BP_E: a symmetric positive semi-definite 6x6 matrix acting on
 * [alpha; a] to give [tau; f]. Row-major. */
typedef struct { mbt_real m[6][6]; } mbt_articulated_body_inertia;


/* ---- rotational inertia I_BP_E ------------------------------------------------------ */
/* From the moments Ixx, Iyy, Izz and products Ixy, Ixz, Iyz (Drake's constructor order). */
static inline mbt_rotational_inertia mbt_rotational_inertia_make(mbt_real Ixx, mbt_real Iyy,
                                                                 mbt_real Izz, mbt_real Ixy,
                                                                 mbt_real Ixz, mbt_real Iyz) {
  mbt_rotational_inertia I = {Ixx, Iyy, Izz, Ixy, Ixz, Iyz};
  return I;
}
/* diag(Ixx, Iyy, Izz) */
static inline mbt_rotational_inertia mbt_rotational_inertia_make_moments(mbt_real Ixx, mbt_real Iyy,
                                                                         mbt_real Izz) {
  return mbt_rotational_inertia_make(Ixx, Iyy, Izz, 0, 0, 0);
}
static inline mbt_rotational_inertia mbt_rotational_inertia_zero(void) {
  return mbt_rotational_inertia_make(0, 0, 0, 0, 0, 0);
}
/* The symmetric part (A + Aᵀ)/2 of a 3x3 matrix. */
static inline mbt_rotational_inertia mbt_rotational_inertia_from_mat3(const mbt_mat3* A) {
  return mbt_rotational_inertia_make(A->m[0][0], A->m[1][1], A->m[2][2],
                                     0.5 * (A->m[0][1] + A->m[1][0]),
                                     0.5 * (A->m[0][2] + A->m[2][0]),
                                     0.5 * (A->m[1][2] + A->m[2][1]));
}
/* [[Ixx Ixy Ixz] [Ixy Iyy Iyz] [Ixz Iyz Izz]] */
static inline mbt_mat3 mbt_rotational_inertia_to_mat3(const mbt_rotational_inertia* I) {
  mbt_mat3 A = {{{I->xx, I->xy, I->xz}, {I->xy, I->yy, I->yz}, {I->xz, I->yz, I->zz}}};
  return A;
}
/* tr I = Ixx + Iyy + Izz */
static inline mbt_real mbt_rotational_inertia_trace(const mbt_rotational_inertia* I) {
  return I->xx + I->yy + I->zz;
}
/* I·w */
static inline mbt_vec3 mbt_rotational_inertia_mul_vec(const mbt_rotational_inertia* I, mbt_vec3 w) {
  return mbt_vec3_make(I->xx * w.v[0] + I->xy * w.v[1] + I->xz * w.v[2],
                       I->xy * w.v[0] + I->yy * w.v[1] + I->yz * w.v[2],
                       I->xz * w.v[0] + I->yz * w.v[1] + I->zz * w.v[2]);
}
/* I1 + I2 (both about the same point, expressed in the same frame) */
static inline mbt_rotational_inertia mbt_rotational_inertia_add(const mbt_rotational_inertia* I1,
                                                                const mbt_rotational_inertia* I2) {
  return mbt_rotational_inertia_make(I1->xx + I2->xx, I1->yy + I2->yy, I1->zz + I2->zz,
                                     I1->xy + I2->xy, I1->xz + I2->xz, I1->yz + I2->yz);
}
/* s·I */
static inline mbt_rotational_inertia mbt_rotational_inertia_scale(const mbt_rotational_inertia* I,
                                                                  mbt_real s) {
  return mbt_rotational_inertia_make(s * I->xx, s * I->yy, s * I->zz, s * I->xy, s * I->xz,
                                     s * I->yz);
}
/* Point mass m at Q about P: I_QP_E = m·(|p|²·1 − p·pᵀ), p = p_PQ_E. */
static inline mbt_rotational_inertia mbt_rotational_inertia_point_mass(mbt_real mass,
                                                                       mbt_vec3 p_PQ_E) {
  const mbt_real x = p_PQ_E.v[0], y = p_PQ_E.v[1], z = p_PQ_E.v[2];
  return mbt_rotational_inertia_make(mass * (y * y + z * z), mass * (x * x + z * z),
                                     mass * (x * x + y * y), -mass * x * y, -mass * x * z,
                                     -mass * y * z);
}
/* I_BP_A = R_AE·I_BP_E·R_AEᵀ */
static inline mbt_rotational_inertia mbt_rotational_inertia_reexpress(
    const mbt_rotational_inertia* I_BP_E, const mbt_mat3* R_AE) {
  const mbt_mat3 I = mbt_rotational_inertia_to_mat3(I_BP_E), RI = mbt_mat3_mul(R_AE, &I);
  const mbt_mat3 RIRt = mbt_mat3_mul_t(&RI, R_AE);
  return mbt_rotational_inertia_from_mat3(&RIRt);
}
/* Parallel axis: I_BQ_E = I_BBcm_E + m·(|p|²·1 − p·pᵀ), p = p_BcmQ_E. */
static inline mbt_rotational_inertia mbt_rotational_inertia_shift_from_com(
    const mbt_rotational_inertia* I_BBcm_E, mbt_real mass, mbt_vec3 p_BcmQ_E) {
  const mbt_rotational_inertia Ip = mbt_rotational_inertia_point_mass(mass, p_BcmQ_E);
  return mbt_rotational_inertia_add(I_BBcm_E, &Ip);
}
/* Inverse parallel axis: I_BBcm_E = I_BQ_E − m·(|p|²·1 − p·pᵀ), p = p_QBcm_E. */
static inline mbt_rotational_inertia mbt_rotational_inertia_shift_to_com(
    const mbt_rotational_inertia* I_BQ_E, mbt_real mass, mbt_vec3 p_QBcm_E) {
  const mbt_rotational_inertia Ip = mbt_rotational_inertia_point_mass(-mass, p_QBcm_E);
  return mbt_rotational_inertia_add(I_BQ_E, &Ip);
}
/* max |I1_ij − I2_ij| <= tol over the six stored elements. */
static inline bool mbt_rotational_inertia_is_near(const mbt_rotational_inertia* I1,
                                                  const mbt_rotational_inertia* I2, mbt_real tol) {
  return mbt_le(mbt_abs(I1->xx - I2->xx), tol) && mbt_le(mbt_abs(I1->yy - I2->yy), tol) &&
         mbt_le(mbt_abs(I1->zz - I2->zz), tol) && mbt_le(mbt_abs(I1->xy - I2->xy), tol) &&
         mbt_le(mbt_abs(I1->xz - I2->xz), tol) && mbt_le(mbt_abs(I1->yz - I2->yz), tol);
}
/* The principal moments (eigenvalues of I), ascending. */
mbt_vec3 mbt_rotational_inertia_principal_moments(const mbt_rotational_inertia* I);
/* Principal moments (ascending) and axes: I_BP_E = R_EA·diag(moments)·R_EAᵀ, the columns of
 * the rotation matrix R_EA are the principal axes expressed in E. */
void mbt_rotational_inertia_principal_moments_and_axes(const mbt_rotational_inertia* I,
                                                       mbt_vec3* moments, mbt_mat3* R_EA);
/* Finite, principal moments >= 0 and Imax <= Imin + Imid (triangle inequality), both within
 * 16·ε·(sum of |moments|). When false and why != NULL, why receives a message naming the
 * problem and giving the principal moments; when true, why receives "". */
bool mbt_rotational_inertia_could_be_physically_valid(const mbt_rotational_inertia* I, char* why,
                                                      size_t why_len);

/* ---- unit inertia G_BP_E = I_BP_E/m ------------------------------------------------- */
static inline mbt_unit_inertia mbt_unit_inertia_make(mbt_real Gxx, mbt_real Gyy, mbt_real Gzz,
                                                     mbt_real Gxy, mbt_real Gxz, mbt_real Gyz) {
  mbt_unit_inertia G = {Gxx, Gyy, Gzz, Gxy, Gxz, Gyz};
  return G;
}
static inline mbt_unit_inertia mbt_unit_inertia_make_moments(mbt_real Gxx, mbt_real Gyy,
                                                             mbt_real Gzz) {
  return mbt_unit_inertia_make(Gxx, Gyy, Gzz, 0, 0, 0);
}
static inline mbt_unit_inertia mbt_unit_inertia_zero(void) {
  return mbt_unit_inertia_make(0, 0, 0, 0, 0, 0);
}
/* I_BP_E = m·G_BP_E */
static inline mbt_rotational_inertia mbt_unit_inertia_to_rotational(const mbt_unit_inertia* G,
                                                                    mbt_real mass) {
  return mbt_rotational_inertia_make(mass * G->xx, mass * G->yy, mass * G->zz, mass * G->xy,
                                     mass * G->xz, mass * G->yz);
}
/* G_BP_E = I_BP_E/m (m != 0; Drake's SetFromRotationalInertia). */
static inline mbt_unit_inertia mbt_unit_inertia_from_rotational(const mbt_rotational_inertia* I,
                                                                mbt_real mass) {
  return mbt_unit_inertia_make(I->xx / mass, I->yy / mass, I->zz / mass, I->xy / mass,
                               I->xz / mass, I->yz / mass);
}
/* The symmetric part (A + Aᵀ)/2 of a 3x3 matrix. */
static inline mbt_unit_inertia mbt_unit_inertia_from_mat3(const mbt_mat3* A) {
  const mbt_rotational_inertia I = mbt_rotational_inertia_from_mat3(A);
  return mbt_unit_inertia_from_rotational(&I, 1);
}
static inline mbt_mat3 mbt_unit_inertia_to_mat3(const mbt_unit_inertia* G) {
  const mbt_rotational_inertia I = mbt_unit_inertia_to_rotational(G, 1);
  return mbt_rotational_inertia_to_mat3(&I);
}
/* tr G */
static inline mbt_real mbt_unit_inertia_trace(const mbt_unit_inertia* G) {
  return G->xx + G->yy + G->zz;
}
/* G·w */
static inline mbt_vec3 mbt_unit_inertia_mul_vec(const mbt_unit_inertia* G, mbt_vec3 w) {
  const mbt_rotational_inertia I = mbt_unit_inertia_to_rotational(G, 1);
  return mbt_rotational_inertia_mul_vec(&I, w);
}
/* Unit inertia of a point at Q about F: G = |p|²·1 − p·pᵀ, p = p_FQ_E (Drake's PointMass). */
static inline mbt_unit_inertia mbt_unit_inertia_point_mass(mbt_vec3 p_FQ_E) {
  const mbt_rotational_inertia I = mbt_rotational_inertia_point_mass(1, p_FQ_E);
  return mbt_unit_inertia_from_rotational(&I, 1);
}
/* G_BP_A = R_AE·G_BP_E·R_AEᵀ */
static inline mbt_unit_inertia mbt_unit_inertia_reexpress(const mbt_unit_inertia* G_BP_E,
                                                          const mbt_mat3* R_AE) {
  const mbt_rotational_inertia I = mbt_unit_inertia_to_rotational(G_BP_E, 1);
  const mbt_rotational_inertia IA = mbt_rotational_inertia_reexpress(&I, R_AE);
  return mbt_unit_inertia_from_rotational(&IA, 1);
}
/* G_BQ_E = G_BBcm_E + (|p|²·1 − p·pᵀ), p = p_BcmQ_E. */
static inline mbt_unit_inertia mbt_unit_inertia_shift_from_com(const mbt_unit_inertia* G_BBcm_E,
                                                               mbt_vec3 p_BcmQ_E) {
  const mbt_rotational_inertia I = mbt_unit_inertia_to_rotational(G_BBcm_E, 1);
  const mbt_rotational_inertia IQ = mbt_rotational_inertia_shift_from_com(&I, 1, p_BcmQ_E);
  return mbt_unit_inertia_from_rotational(&IQ, 1);
}
/* G_BBcm_E = G_BQ_E − (|p|²·1 − p·pᵀ), p = p_QBcm_E. */
static inline mbt_unit_inertia mbt_unit_inertia_shift_to_com(const mbt_unit_inertia* G_BQ_E,
                                                             mbt_vec3 p_QBcm_E) {
  const mbt_rotational_inertia I = mbt_unit_inertia_to_rotational(G_BQ_E, 1);
  const mbt_rotational_inertia Ic = mbt_rotational_inertia_shift_to_com(&I, 1, p_QBcm_E);
  return mbt_unit_inertia_from_rotational(&Ic, 1);
}
/* G_BQ_E = G_BP_E − pt(p_PBcm_E) + pt(p_QBcm_E), pt(p) = |p|²·1 − p·pᵀ (through Bcm). */
static inline mbt_unit_inertia mbt_unit_inertia_shift_to_then_away_from_com(
    const mbt_unit_inertia* G_BP_E, mbt_vec3 p_PBcm_E, mbt_vec3 p_QBcm_E) {
  const mbt_unit_inertia G_BBcm_E = mbt_unit_inertia_shift_to_com(G_BP_E, p_PBcm_E);
  return mbt_unit_inertia_shift_from_com(&G_BBcm_E, p_QBcm_E);
}
static inline bool mbt_unit_inertia_is_near(const mbt_unit_inertia* G1, const mbt_unit_inertia* G2,
                                            mbt_real tol) {
  const mbt_rotational_inertia I1 = mbt_unit_inertia_to_rotational(G1, 1);
  const mbt_rotational_inertia I2 = mbt_unit_inertia_to_rotational(G2, 1);
  return mbt_rotational_inertia_is_near(&I1, &I2, tol);
}
/* The principal moments (eigenvalues of G), ascending. */
mbt_vec3 mbt_unit_inertia_principal_moments(const mbt_unit_inertia* G);
/* As mbt_rotational_inertia_could_be_physically_valid, for a unit inertia. */
bool mbt_unit_inertia_could_be_physically_valid(const mbt_unit_inertia* G, char* why,
                                                size_t why_len);
/* Solid box about its center, edges lx, ly, lz along x, y, z: Gxx = (ly² + lz²)/12, ... */
mbt_unit_inertia mbt_unit_inertia_solid_box(mbt_real lx, mbt_real ly, mbt_real lz);
/* Solid sphere about its center: G = (2/5)·r²·1. */
mbt_unit_inertia mbt_unit_inertia_solid_sphere(mbt_real r);
/* Solid cylinder about its center, axis b_E (normalized here): G = K·1 + (J − K)·b·bᵀ with
 * J = r²/2, K = (3r² + L²)/12. MBT_ERR_INVALID_ARGUMENT (G unchanged) if b_E is zero or not
 * finite, or r, L negative or not finite. */
int mbt_unit_inertia_solid_cylinder(mbt_real r, mbt_real L, mbt_vec3 b_E, mbt_unit_inertia* G);
/* Thin rod about its center, axis b_E (normalized here): G = (L²/12)·(1 − b·bᵀ). Errors as
 * for the cylinder. */
int mbt_unit_inertia_thin_rod(mbt_real L, mbt_vec3 b_E, mbt_unit_inertia* G);

/* ---- spatial inertia M_SP_E = {m, p_PScm_E, G_SP_E} ---------------------------------- */
/* M_SP_E from its parts. */
static inline mbt_spatial_inertia mbt_spatial_inertia_make(mbt_real mass, mbt_vec3 p_PScm_E,
                                                           const mbt_unit_inertia* G_SP_E) {
  mbt_spatial_inertia M;
  M.mass = mass;
  M.p_PScm_E = p_PScm_E;
  M.G_SP_E = *G_SP_E;
  return M;
}
static inline mbt_spatial_inertia mbt_spatial_inertia_zero(void) {
  const mbt_unit_inertia G = mbt_unit_inertia_zero();
  return mbt_spatial_inertia_make(0, mbt_vec3_zero(), &G);
}
/* A particle of mass m at Q, about P: p_PScm = p_PQ, G_SP = |p|²·1 − p·pᵀ. */
static inline mbt_spatial_inertia mbt_spatial_inertia_point_mass(mbt_real mass, mbt_vec3 p_PQ_E) {
  const mbt_unit_inertia G = mbt_unit_inertia_point_mass(p_PQ_E);
  return mbt_spatial_inertia_make(mass, p_PQ_E, &G);
}
/* From the mass, the center of mass and the rotational inertia about it (URDF's <inertial>):
 * G_SP = I_SScm/m + (|p|²·1 − p·pᵀ), p = p_PScm_E. A massless body with I_SScm = 0 gets
 * G_SP = |p|²·1 − p·pᵀ; a massless body with I_SScm != 0 cannot be represented and gets a NaN
 * G_SP that mbt_spatial_inertia_is_physically_valid rejects. */
mbt_spatial_inertia mbt_spatial_inertia_from_com(mbt_real mass, mbt_vec3 p_PScm_E,
                                                 const mbt_rotational_inertia* I_SScm_E);
/* Mass finite and >= 0, p_PScm finite, G_SP finite, and the rotational inertia about Scm
 * physically valid. When false and why != NULL, why receives a message naming the problem. */
bool mbt_spatial_inertia_is_physically_valid(const mbt_spatial_inertia* M, char* why,
                                             size_t why_len);
/* I_SP_E = m·G_SP_E */
static inline mbt_rotational_inertia mbt_spatial_inertia_calc_rotational_inertia(
    const mbt_spatial_inertia* M_SP_E) {
  return mbt_unit_inertia_to_rotational(&M_SP_E->G_SP_E, M_SP_E->mass);
}
/* m·p_PScm_E */
static inline mbt_vec3 mbt_spatial_inertia_calc_com_moment(const mbt_spatial_inertia* M_SP_E) {
  return mbt_vec3_scale(M_SP_E->p_PScm_E, M_SP_E->mass);
}
/* M_SQ_E = M_SP_E.Shift(p_PQ_E): p_QScm = p_PScm − p_PQ, G_SQ = G_SP − pt(p_PScm) + pt(p_QScm). */
static inline mbt_spatial_inertia mbt_spatial_inertia_shift(const mbt_spatial_inertia* M_SP_E,
                                                            mbt_vec3 p_PQ_E) {
  const mbt_vec3 p_QScm_E = mbt_vec3_sub(M_SP_E->p_PScm_E, p_PQ_E);
  const mbt_unit_inertia G_SQ_E =
      mbt_unit_inertia_shift_to_then_away_from_com(&M_SP_E->G_SP_E, M_SP_E->p_PScm_E, p_QScm_E);
  return mbt_spatial_inertia_make(M_SP_E->mass, p_QScm_E, &G_SQ_E);
}
/* M_SP_A = {m, R_AE·p_PScm_E, R_AE·G_SP_E·R_AEᵀ} */
static inline mbt_spatial_inertia mbt_spatial_inertia_reexpress(const mbt_spatial_inertia* M_SP_E,
                                                                const mbt_mat3* R_AE) {
  const mbt_unit_inertia G_SP_A = mbt_unit_inertia_reexpress(&M_SP_E->G_SP_E, R_AE);
  return mbt_spatial_inertia_make(M_SP_E->mass, mbt_mat3_mul_vec(R_AE, M_SP_E->p_PScm_E),
                                  &G_SP_A);
}
/* L_WSP_E = M_SP_E·V_WP_E: h = m·(G_SP·w + p_PScm × v), l = m·(v + w × p_PScm). */
static inline mbt_spatial_momentum mbt_spatial_inertia_mul_velocity(
    const mbt_spatial_inertia* M_SP_E, const mbt_spatial_velocity* V_WP_E) {
  const mbt_real m = M_SP_E->mass;
  const mbt_vec3 c = M_SP_E->p_PScm_E;
  const mbt_vec3 h = mbt_vec3_add(mbt_unit_inertia_mul_vec(&M_SP_E->G_SP_E, V_WP_E->w),
                                  mbt_vec3_cross(c, V_WP_E->v));
  const mbt_vec3 l = mbt_vec3_add(V_WP_E->v, mbt_vec3_cross(V_WP_E->w, c));
  return mbt_spatial_momentum_make(mbt_vec3_scale(h, m), mbt_vec3_scale(l, m));
}
/* F_SP_E = M_SP_E·A_WP_E: tau = m·(G_SP·alpha + p_PScm × a), f = m·(a + alpha × p_PScm). */
static inline mbt_spatial_force mbt_spatial_inertia_mul_acceleration(
    const mbt_spatial_inertia* M_SP_E, const mbt_spatial_acceleration* A_WP_E) {
  const mbt_real m = M_SP_E->mass;
  const mbt_vec3 c = M_SP_E->p_PScm_E;
  const mbt_vec3 tau = mbt_vec3_add(mbt_unit_inertia_mul_vec(&M_SP_E->G_SP_E, A_WP_E->alpha),
                                    mbt_vec3_cross(c, A_WP_E->a));
  const mbt_vec3 f = mbt_vec3_add(A_WP_E->a, mbt_vec3_cross(A_WP_E->alpha, c));
  return mbt_spatial_force_make(mbt_vec3_scale(tau, m), mbt_vec3_scale(f, m));
}
/* Composition of S1 and S2 about the same P, in the same E: m = m1 + m2,
 * p_PScm = (m1·p1 + m2·p2)/m, G_SP = (m1·G1 + m2·G2)/m. If m = 0 the parts are averaged. */
mbt_spatial_inertia mbt_spatial_inertia_add(const mbt_spatial_inertia* M1_SP_E,
                                            const mbt_spatial_inertia* M2_SP_E);
/* |m1 − m2|, ‖p1 − p2‖∞ and the unit inertias' elements all <= tol. */
static inline bool mbt_spatial_inertia_is_near(const mbt_spatial_inertia* M1,
                                               const mbt_spatial_inertia* M2, mbt_real tol) {
  return mbt_le(mbt_abs(M1->mass - M2->mass), tol) &&
         mbt_vec3_is_near(M1->p_PScm_E, M2->p_PScm_E, tol) &&
         mbt_unit_inertia_is_near(&M1->G_SP_E, &M2->G_SP_E, tol);
}
/* The 6x6 matrix [[I_SP, m·[p_PScm]ₓ], [−m·[p_PScm]ₓ, m·1]] acting on [alpha; a] (or [w; v]). */
void mbt_spatial_inertia_copy_to_full_matrix6(const mbt_spatial_inertia* M_SP_E,
                                              mbt_real out[6][6]);

/* ---- articulated-body inertia P_BP_E ------------------------------------------------ */
static inline mbt_articulated_body_inertia mbt_articulated_body_inertia_zero(void) {
  mbt_articulated_body_inertia P;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) P.m[i][j] = 0;
  return P;
}
/* The articulated inertia of a lone rigid body: the 6x6 matrix of M_SP_E. */
mbt_articulated_body_inertia mbt_articulated_body_inertia_from_spatial_inertia(
    const mbt_spatial_inertia* M_SP_E);
/* P_BQ_E = Φ(−p)·P_BP_E·Φ(−p)ᵀ with p = p_PQ_E and the rigid shift operator
 * Φ(p) = [[1, [p]ₓ], [0, 1]] (V_Q = Φ(p)ᵀ·V_P, F_P = Φ(p)·F_Q). */
mbt_articulated_body_inertia mbt_articulated_body_inertia_shift(
    const mbt_articulated_body_inertia* P_BP_E, mbt_vec3 p_PQ_E);
/* P_BP_A = diag(R_AE, R_AE)·P_BP_E·diag(R_AE, R_AE)ᵀ */
mbt_articulated_body_inertia mbt_articulated_body_inertia_reexpress(
    const mbt_articulated_body_inertia* P_BP_E, const mbt_mat3* R_AE);
/* F_BP_E = P_BP_E·A_WP_E ([tau; f] = P·[alpha; a]). */
static inline mbt_spatial_force mbt_articulated_body_inertia_mul_acceleration(
    const mbt_articulated_body_inertia* P_BP_E, const mbt_spatial_acceleration* A_WP_E) {
  mbt_spatial_force F;
  for (int i = 0; i < 6; ++i) {
    mbt_real s = 0;
    for (int j = 0; j < 6; ++j) s += P_BP_E->m[i][j] * A_WP_E->coeffs[j];
    F.coeffs[i] = s;
  }
  return F;
}
/* P1 + P2 (same about-point, same expressed-in frame). */
static inline mbt_articulated_body_inertia mbt_articulated_body_inertia_add(
    const mbt_articulated_body_inertia* P1, const mbt_articulated_body_inertia* P2) {
  mbt_articulated_body_inertia P;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) P.m[i][j] = P1->m[i][j] + P2->m[i][j];
  return P;
}
/* P1 − P2 */
static inline mbt_articulated_body_inertia mbt_articulated_body_inertia_sub(
    const mbt_articulated_body_inertia* P1, const mbt_articulated_body_inertia* P2) {
  mbt_articulated_body_inertia P;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) P.m[i][j] = P1->m[i][j] - P2->m[i][j];
  return P;
}
/* max |P1_ij − P2_ij| <= tol */
static inline bool mbt_articulated_body_inertia_is_near(const mbt_articulated_body_inertia* P1,
                                                        const mbt_articulated_body_inertia* P2,
                                                        mbt_real tol) {
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j)
      if (!mbt_le(mbt_abs(P1->m[i][j] - P2->m[i][j]), tol)) return false;
  return true;
}

#ifdef __cplusplus
}
#endif
#endif /* MBT_INERTIA_H */
