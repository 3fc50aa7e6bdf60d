/* Rotation conversions (roll-pitch-yaw, quaternions), the symmetric 3x3 eigensolver and
 * printing of 3-vectors and 3x3 matrices (mbt/math.h). */
#include <stdio.h>

#include "mbt/math.h"

/* R = Rz(yaw)·Ry(pitch)·Rx(roll) (Drake's SpaceXYZ roll-pitch-yaw). */
mbt_mat3 mbt_rotation_from_rpy(mbt_vec3 rpy) {
  const mbt_real cr = mbt_cos(rpy.v[0]), sr = mbt_sin(rpy.v[0]);
  const mbt_real cp = mbt_cos(rpy.v[1]), sp = mbt_sin(rpy.v[1]);
  const mbt_real cy = mbt_cos(rpy.v[2]), sy = mbt_sin(rpy.v[2]);
  mbt_mat3 R = {{{cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr},
                 {sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr},
                 {-sp, cp * sr, cp * cr}}};
  return R;
}

/* yaw = atan2(R10, R00); M = Rz(−yaw)·R = Ry(pitch)·Rx(roll) has M10 = 0, so
 * pitch = atan2(−M20, M00) with M00 = sqrt(R00² + R10²) >= 0, roll = atan2(−M12, M11).
 * Every step is well conditioned, including at gimbal lock where atan2(0, 0) = 0 gives yaw. */
mbt_vec3 mbt_rotation_to_rpy(const mbt_mat3* R) {
  const mbt_real yaw = mbt_atan2(R->m[1][0], R->m[0][0]);
  const mbt_real c = mbt_cos(yaw), s = mbt_sin(yaw);
  const mbt_real M00 = c * R->m[0][0] + s * R->m[1][0];
  const mbt_real M11 = -s * R->m[0][1] + c * R->m[1][1];
  const mbt_real M12 = -s * R->m[0][2] + c * R->m[1][2];
  const mbt_real pitch = mbt_atan2(-R->m[2][0], M00);
  const mbt_real roll = mbt_atan2(-M12, M11);
  return mbt_vec3_make(roll, pitch, yaw);
}

int mbt_quat_normalize(mbt_quat* q) {
  const mbt_real n = mbt_quat_norm(*q);
  if (!mbt_isfinite(n) || !mbt_lt(0, n)) return MBT_ERR_INVALID_ARGUMENT;
  q->w /= n;
  q->x /= n;
  q->y /= n;
  q->z /= n;
  return MBT_OK;
}

/* Shepperd (1978): with t = tr R, 4w² = 1 + t and 4x² = 1 + 2R00 − t (y, z alike); the
 * largest of t, R00, R11, R22 selects the largest component, computed by a square root, and
 * the others follow from the off-diagonal sums and differences. */
mbt_quat mbt_quat_from_rotation(const mbt_mat3* R_AB) {
  const mbt_real(*R)[3] = R_AB->m;
  const mbt_real t = R[0][0] + R[1][1] + R[2][2];
  mbt_quat q;
  if (mbt_le(mbt_max(R[0][0], mbt_max(R[1][1], R[2][2])), t)) {
    const mbt_real r = mbt_sqrt(1 + t), s = 0.5 / r;
    q = mbt_quat_make(0.5 * r, (R[2][1] - R[1][2]) * s, (R[0][2] - R[2][0]) * s,
                      (R[1][0] - R[0][1]) * s);
  } else if (mbt_le(mbt_max(R[1][1], R[2][2]), R[0][0])) {
    const mbt_real r = mbt_sqrt(1 + R[0][0] - R[1][1] - R[2][2]), s = 0.5 / r;
    q = mbt_quat_make((R[2][1] - R[1][2]) * s, 0.5 * r, (R[0][1] + R[1][0]) * s,
                      (R[0][2] + R[2][0]) * s);
  } else if (mbt_le(R[2][2], R[1][1])) {
    const mbt_real r = mbt_sqrt(1 - R[0][0] + R[1][1] - R[2][2]), s = 0.5 / r;
    q = mbt_quat_make((R[0][2] - R[2][0]) * s, (R[0][1] + R[1][0]) * s, 0.5 * r,
                      (R[1][2] + R[2][1]) * s);
  } else {
    const mbt_real r = mbt_sqrt(1 - R[0][0] - R[1][1] + R[2][2]), s = 0.5 / r;
    q = mbt_quat_make((R[1][0] - R[0][1]) * s, (R[0][2] + R[2][0]) * s, (R[1][2] + R[2][1]) * s,
                      0.5 * r);
  }
  if (mbt_lt(q.w, 0)) q = mbt_quat_make(-q.w, -q.x, -q.y, -q.z);
  (void)mbt_quat_normalize(&q); /* |q| >= 1/2 here, so this cannot fail for finite R */
  return q;
}

/* Cyclic Jacobi: each rotation J zeroes A[p][q] of A ← Jᵀ·A·J (tan of the angle from
 * θ = (Aqq − App)/(2Apq), t = sgn θ/(|θ| + sqrt(θ² + 1))) and V ← V·J accumulates. */
void mbt_mat3_symmetric_eigen(const mbt_mat3* S, mbt_vec3* lambda, mbt_mat3* V) {
  mbt_mat3 A = *S, Q = mbt_mat3_identity();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < i; ++j) A.m[i][j] = A.m[j][i];
  static const int P[3][2] = {{0, 1}, {0, 2}, {1, 2}};
  for (int sweep = 0; sweep < 50; ++sweep) {
    int rotated = 0;
    for (int k = 0; k < 3; ++k) {
      const int p = P[k][0], q = P[k][1];
      const mbt_real apq = A.m[p][q];
      /* Negligible against the diagonal (or exactly zero): set it to zero and move on. */
      if (mbt_le(mbt_abs(apq), 1e-18 * (mbt_abs(A.m[p][p]) + mbt_abs(A.m[q][q])))) {
        A.m[p][q] = A.m[q][p] = 0;
        continue;
      }
      const mbt_real theta = (A.m[q][q] - A.m[p][p]) / (2 * apq);
      const mbt_real t =
          (mbt_lt(theta, 0) ? -1 : 1) / (mbt_abs(theta) + mbt_sqrt(theta * theta + 1));
      const mbt_real c = 1 / mbt_sqrt(t * t + 1), s = t * c;
      mbt_mat3 J = mbt_mat3_identity();
      J.m[p][p] = c;
      J.m[q][q] = c;
      J.m[p][q] = s;
      J.m[q][p] = -s;
      const mbt_mat3 AJ = mbt_mat3_mul(&A, &J);
      A = mbt_mat3_tmul(&J, &AJ);
      A.m[p][q] = A.m[q][p] = 0;
      Q = mbt_mat3_mul(&Q, &J);
      rotated = 1;
    }
    if (!rotated) break;
  }
  /* Sort ascending (with the columns), then make V right-handed. */
  int idx[3] = {0, 1, 2};
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j)
      if (mbt_lt(A.m[idx[j]][idx[j]], A.m[idx[i]][idx[i]])) {
        const int tmp = idx[i];
        idx[i] = idx[j];
        idx[j] = tmp;
      }
  for (int j = 0; j < 3; ++j) {
    lambda->v[j] = A.m[idx[j]][idx[j]];
    for (int i = 0; i < 3; ++i) V->m[i][j] = Q.m[i][idx[j]];
  }
  if (mbt_lt(mbt_mat3_determinant(V), 0))
    for (int i = 0; i < 3; ++i) V->m[i][2] = -V->m[i][2];
}

int mbt_vec3_to_string(char* buf, size_t n, mbt_vec3 a) {
  return snprintf(buf, n, "[%g, %g, %g]", mbt_value(a.v[0]), mbt_value(a.v[1]), mbt_value(a.v[2]));
}

int mbt_mat3_to_string(char* buf, size_t n, const mbt_mat3* A) {
  const mbt_real(*m)[3] = A->m;
  return snprintf(buf, n, "[[%g, %g, %g], [%g, %g, %g], [%g, %g, %g]]", mbt_value(m[0][0]),
                  mbt_value(m[0][1]), mbt_value(m[0][2]), mbt_value(m[1][0]), mbt_value(m[1][1]),
                  mbt_value(m[1][2]), mbt_value(m[2][0]), mbt_value(m[2][1]), mbt_value(m[2][2]));
}
