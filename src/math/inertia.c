/* Principal moments, validity checks, solids, spatial-inertia composition and the 6x6
 * articulated-body inertia operations (mbt/inertia.h). */
#include "mbt/inertia.h"

#include <float.h>
#include <stdio.h>

mbt_vec3 mbt_rotational_inertia_principal_moments(const mbt_rotational_inertia* I) {
  mbt_vec3 moments;
  mbt_mat3 R_EA;
  mbt_rotational_inertia_principal_moments_and_axes(I, &moments, &R_EA);
  return moments;
}

void mbt_rotational_inertia_principal_moments_and_axes(const mbt_rotational_inertia* I,
                                                       mbt_vec3* moments, mbt_mat3* R_EA) {
  const mbt_mat3 A = mbt_rotational_inertia_to_mat3(I);
  mbt_mat3_symmetric_eigen(&A, moments, R_EA);
}

static void set_why(char* why, size_t why_len, const char* text) {
  if (why && why_len > 0) snprintf(why, why_len, "%s", text);
}

/* λ = principal moments ascending, ε = 16·DBL_EPSILON·Σ|λ|: λmin >= −ε and λmax <= λmin +
 * λmid + ε (Drake's CouldBePhysicallyValid). `name` starts the message. */
static bool inertia_could_be_valid(const mbt_rotational_inertia* I, const char* name, char* why,
                                   size_t why_len) {
  char msg[256];
  const mbt_real e[6] = {I->xx, I->yy, I->zz, I->xy, I->xz, I->yz};
  for (int i = 0; i < 6; ++i) {
    if (!mbt_isfinite(e[i])) {
      snprintf(msg, sizeof msg,
               "%s has a non-finite element (NaN or infinity): [Ixx Iyy Izz Ixy Ixz Iyz] = "
               "[%g %g %g %g %g %g]",
               name, mbt_value(e[0]), mbt_value(e[1]), mbt_value(e[2]), mbt_value(e[3]),
               mbt_value(e[4]), mbt_value(e[5]));
      set_why(why, why_len, msg);
      return false;
    }
  }
  const mbt_vec3 lam = mbt_rotational_inertia_principal_moments(I);
  const mbt_real l0 = lam.v[0], l1 = lam.v[1], l2 = lam.v[2];
  const mbt_real eps = 16 * DBL_EPSILON * (mbt_abs(l0) + mbt_abs(l1) + mbt_abs(l2));
  if (mbt_lt(l0 + eps, 0)) {
    snprintf(msg, sizeof msg, "%s has a negative principal moment: principal moments [%g, %g, %g]",
             name, mbt_value(l0), mbt_value(l1), mbt_value(l2));
    set_why(why, why_len, msg);
    return false;
  }
  if (mbt_lt(l0 + l1 + eps, l2)) {
    snprintf(msg, sizeof msg,
             "%s violates the triangle inequality Imax <= Imin + Imid: principal moments "
             "[%g, %g, %g]",
             name, mbt_value(l0), mbt_value(l1), mbt_value(l2));
    set_why(why, why_len, msg);
    return false;
  }
  set_why(why, why_len, "");
  return true;
}

bool mbt_rotational_inertia_could_be_physically_valid(const mbt_rotational_inertia* I, char* why,
                                                      size_t why_len) {
  return inertia_could_be_valid(I, "rotational inertia", why, why_len);
}

mbt_vec3 mbt_unit_inertia_principal_moments(const mbt_unit_inertia* G) {
  const mbt_rotational_inertia I = mbt_unit_inertia_to_rotational(G, 1);
  return mbt_rotational_inertia_principal_moments(&I);
}

bool mbt_unit_inertia_could_be_physically_valid(const mbt_unit_inertia* G, char* why,
                                                size_t why_len) {
  const mbt_rotational_inertia I = mbt_unit_inertia_to_rotational(G, 1);
  return inertia_could_be_valid(&I, "unit inertia", why, why_len);
}

/* Gxx = (ly² + lz²)/12, Gyy = (lx² + lz²)/12, Gzz = (lx² + ly²)/12 */
mbt_unit_inertia mbt_unit_inertia_solid_box(mbt_real lx, mbt_real ly, mbt_real lz) {
  const mbt_real x2 = lx * lx, y2 = ly * ly, z2 = lz * lz;
  return mbt_unit_inertia_make_moments((y2 + z2) / 12, (x2 + z2) / 12, (x2 + y2) / 12);
}

/* G = (2/5)·r²·1 */
mbt_unit_inertia mbt_unit_inertia_solid_sphere(mbt_real r) {
  const mbt_real g = 0.4 * r * r;
  return mbt_unit_inertia_make_moments(g, g, g);
}

/* G = K·1 + (J − K)·b·bᵀ for a unit axis b: moment J about b, K about any axis ⊥ b. */
static int axisymmetric(mbt_real J, mbt_real K, mbt_vec3 b_E, mbt_unit_inertia* G) {
  const mbt_real n = mbt_vec3_norm(b_E);
  if (!mbt_isfinite(n) || !mbt_lt(0, n)) return MBT_ERR_INVALID_ARGUMENT;
  const mbt_vec3 b = mbt_vec3_scale(b_E, 1 / n);
  const mbt_real d = J - K;
  *G = mbt_unit_inertia_make(K + d * b.v[0] * b.v[0], K + d * b.v[1] * b.v[1],
                             K + d * b.v[2] * b.v[2], d * b.v[0] * b.v[1], d * b.v[0] * b.v[2],
                             d * b.v[1] * b.v[2]);
  return MBT_OK;
}

static bool is_length(mbt_real x) { return mbt_isfinite(x) && mbt_le(0, x); }

/* J = r²/2, K = (3r² + L²)/12 */
int mbt_unit_inertia_solid_cylinder(mbt_real r, mbt_real L, mbt_vec3 b_E, mbt_unit_inertia* G) {
  if (!is_length(r) || !is_length(L)) return MBT_ERR_INVALID_ARGUMENT;
  return axisymmetric(r * r / 2, (3 * r * r + L * L) / 12, b_E, G);
}

/* J = 0, K = L²/12 */
int mbt_unit_inertia_thin_rod(mbt_real L, mbt_vec3 b_E, mbt_unit_inertia* G) {
  if (!is_length(L)) return MBT_ERR_INVALID_ARGUMENT;
  return axisymmetric(0, L * L / 12, b_E, G);
}

/* G_SP = I_SScm/m + pt(p_PScm), pt(p) = |p|²·1 − p·pᵀ. */
mbt_spatial_inertia mbt_spatial_inertia_from_com(mbt_real mass, mbt_vec3 p_PScm_E,
                                                 const mbt_rotational_inertia* I_SScm_E) {
  mbt_unit_inertia G_SScm_E;
  if (mbt_value(mass) != 0) {
    G_SScm_E = mbt_unit_inertia_from_rotational(I_SScm_E, mass);
  } else {
    const mbt_rotational_inertia Z = mbt_rotational_inertia_zero();
    const bool zero = mbt_rotational_inertia_is_near(I_SScm_E, &Z, 0);
    G_SScm_E = zero ? mbt_unit_inertia_zero() : mbt_unit_inertia_make(NAN, NAN, NAN, NAN, NAN, NAN);
  }
  const mbt_unit_inertia G_SP_E =
      mbt_unit_inertia_shift_from_com(&G_SScm_E, mbt_vec3_neg(p_PScm_E));
  return mbt_spatial_inertia_make(mass, p_PScm_E, &G_SP_E);
}

bool mbt_spatial_inertia_is_physically_valid(const mbt_spatial_inertia* M, char* why,
                                             size_t why_len) {
  char msg[384], inner[256];
  const mbt_vec3 p = M->p_PScm_E;
  const mbt_unit_inertia* G = &M->G_SP_E;
  if (!mbt_isfinite(M->mass)) {
    snprintf(msg, sizeof msg, "spatial inertia: mass %g is not finite", mbt_value(M->mass));
  } else if (mbt_lt(M->mass, 0)) {
    snprintf(msg, sizeof msg, "spatial inertia: mass %g is negative", mbt_value(M->mass));
  } else if (!mbt_isfinite(p.v[0]) || !mbt_isfinite(p.v[1]) || !mbt_isfinite(p.v[2])) {
    snprintf(msg, sizeof msg, "spatial inertia: center of mass [%g, %g, %g] is not finite",
             mbt_value(p.v[0]), mbt_value(p.v[1]), mbt_value(p.v[2]));
  } else if (!mbt_isfinite(G->xx) || !mbt_isfinite(G->yy) || !mbt_isfinite(G->zz) ||
             !mbt_isfinite(G->xy) || !mbt_isfinite(G->xz) || !mbt_isfinite(G->yz)) {
    mbt_unit_inertia_could_be_physically_valid(G, inner, sizeof inner);
    snprintf(msg, sizeof msg, "spatial inertia: %s", inner);
  } else {
    /* I_SScm = m·(G_SP − pt(p_PScm)) must be a physical rotational inertia. */
    const mbt_unit_inertia G_SScm = mbt_unit_inertia_shift_to_com(G, p);
    const mbt_rotational_inertia I_SScm = mbt_unit_inertia_to_rotational(&G_SScm, M->mass);
    if (mbt_rotational_inertia_could_be_physically_valid(&I_SScm, inner, sizeof inner)) {
      set_why(why, why_len, "");
      return true;
    }
    snprintf(msg, sizeof msg, "spatial inertia (mass %g): about the center of mass, %s",
             mbt_value(M->mass), inner);
  }
  set_why(why, why_len, msg);
  return false;
}

/* m = m1 + m2, p = (m1·p1 + m2·p2)/m, G = (m1·G1 + m2·G2)/m; averages when m = 0. */
mbt_spatial_inertia mbt_spatial_inertia_add(const mbt_spatial_inertia* M1_SP_E,
                                            const mbt_spatial_inertia* M2_SP_E) {
  const mbt_real m1 = M1_SP_E->mass, m2 = M2_SP_E->mass, m = m1 + m2;
  const mbt_real w1 = mbt_value(m) != 0 ? m1 / m : 0.5, w2 = mbt_value(m) != 0 ? m2 / m : 0.5;
  const mbt_rotational_inertia I1 = mbt_unit_inertia_to_rotational(&M1_SP_E->G_SP_E, w1);
  const mbt_rotational_inertia I2 = mbt_unit_inertia_to_rotational(&M2_SP_E->G_SP_E, w2);
  const mbt_rotational_inertia I = mbt_rotational_inertia_add(&I1, &I2);
  const mbt_unit_inertia G = mbt_unit_inertia_from_rotational(&I, 1);
  const mbt_vec3 p =
      mbt_vec3_add(mbt_vec3_scale(M1_SP_E->p_PScm_E, w1), mbt_vec3_scale(M2_SP_E->p_PScm_E, w2));
  return mbt_spatial_inertia_make(m, p, &G);
}

/* Writes the 3x3 block B at (r, c) of a 6x6 matrix. */
static void set_block(mbt_real out[6][6], int r, int c, const mbt_mat3* B) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) out[r + i][c + j] = B->m[i][j];
}

/* [[I_SP, m·[c]ₓ], [−m·[c]ₓ, m·1]], c = p_PScm_E */
void mbt_spatial_inertia_copy_to_full_matrix6(const mbt_spatial_inertia* M_SP_E,
                                              mbt_real out[6][6]) {
  const mbt_rotational_inertia I_SP_E = mbt_spatial_inertia_calc_rotational_inertia(M_SP_E);
  const mbt_mat3 I = mbt_rotational_inertia_to_mat3(&I_SP_E);
  const mbt_mat3 S = mbt_mat3_skew(mbt_vec3_scale(M_SP_E->p_PScm_E, M_SP_E->mass));
  const mbt_mat3 mS = mbt_mat3_scale(&S, -1);
  const mbt_mat3 one = mbt_mat3_identity(), mI = mbt_mat3_scale(&one, M_SP_E->mass);
  set_block(out, 0, 0, &I);
  set_block(out, 0, 3, &S);
  set_block(out, 3, 0, &mS);
  set_block(out, 3, 3, &mI);
}

mbt_articulated_body_inertia mbt_articulated_body_inertia_from_spatial_inertia(
    const mbt_spatial_inertia* M_SP_E) {
  mbt_articulated_body_inertia P;
  mbt_spatial_inertia_copy_to_full_matrix6(M_SP_E, P.m);
  return P;
}

/* C = T·P·Tᵀ for 6x6 matrices. */
static mbt_articulated_body_inertia congruence(mbt_real T[6][6],
                                               const mbt_articulated_body_inertia* P) {
  mbt_real TP[6][6];
  mbt_articulated_body_inertia C;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      mbt_real s = 0;
      for (int k = 0; k < 6; ++k) s += T[i][k] * P->m[k][j];
      TP[i][j] = s;
    }
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      mbt_real s = 0;
      for (int k = 0; k < 6; ++k) s += TP[i][k] * T[j][k];
      C.m[i][j] = s;
    }
  return C;
}

/* P_BQ = Φ(−p)·P_BP·Φ(−p)ᵀ, Φ(−p) = [[1, −[p]ₓ], [0, 1]], p = p_PQ_E. */
mbt_articulated_body_inertia mbt_articulated_body_inertia_shift(
    const mbt_articulated_body_inertia* P_BP_E, mbt_vec3 p_PQ_E) {
  mbt_real T[6][6] = {{0}};
  const mbt_mat3 mS = mbt_mat3_skew(mbt_vec3_neg(p_PQ_E));
  for (int i = 0; i < 6; ++i) T[i][i] = 1;
  set_block(T, 0, 3, &mS);
  return congruence(T, P_BP_E);
}

/* P_BP_A = diag(R_AE, R_AE)·P_BP_E·diag(R_AE, R_AE)ᵀ */
mbt_articulated_body_inertia mbt_articulated_body_inertia_reexpress(
    const mbt_articulated_body_inertia* P_BP_E, const mbt_mat3* R_AE) {
  mbt_real T[6][6] = {{0}};
  set_block(T, 0, 0, R_AE);
  set_block(T, 3, 3, R_AE);
  return congruence(T, P_BP_E);
}
