/* Tests of mbt/math.h: 3x3 algebra, rotation conversions (axis-angle, roll-pitch-yaw,
 * quaternions), transforms, the symmetric eigensolver, printing and status strings. */
#include "support/test_util.h"

#include "mbt/math.h"
#include "mbt/status.h"

static void test_mat3_algebra(void** state) {
  (void)state;
  const mbt_mat3 A = {{{1, 2, 3}, {0, 1, 4}, {5, 6, 0}}};
  const mbt_mat3 B = {{{2, 0, 1}, {1, 3, 0}, {0, 1, 1}}};
  assert_near(mbt_mat3_determinant(&A), 1.0, 1e-15); /* textbook 3x3 with det 1 */
  assert_near(mbt_mat3_trace(&A), 2.0, 0);
  const mbt_mat3 S = mbt_mat3_add(&A, &B), D = mbt_mat3_sub(&A, &B), K = mbt_mat3_scale(&A, -2);
  assert_near(S.m[2][0], 5, 0);
  assert_near(S.m[1][1], 4, 0);
  assert_near(D.m[0][0], -1, 0);
  assert_near(D.m[1][0], -1, 0);
  assert_near(K.m[2][1], -12, 0);
  /* det(A·B) = det A · det B, det(s·A) = s³·det A, det [a]ₓ = 0 */
  const mbt_mat3 AB = mbt_mat3_mul(&A, &B);
  assert_near(mbt_mat3_determinant(&AB), mbt_mat3_determinant(&A) * mbt_mat3_determinant(&B),
              1e-12);
  assert_near(mbt_mat3_determinant(&K), -8 * mbt_mat3_determinant(&A), 1e-12);
  const mbt_mat3 X = mbt_mat3_skew(mbt_vec3_make(1, -2, 3));
  assert_near(mbt_mat3_determinant(&X), 0, 1e-15);
  /* outer product: (a·bᵀ)·c = a·(b·c) */
  const mbt_vec3 a = mbt_vec3_make(1, 2, 3), b = mbt_vec3_make(-1, 0, 2),
                 c = mbt_vec3_make(4, 5, 6);
  const mbt_mat3 O = mbt_mat3_outer(a, b);
  tu_assert_vec3_near(mbt_mat3_mul_vec(&O, c), mbt_vec3_scale(a, mbt_vec3_dot(b, c)), 1e-14);
}

static void test_tolerance_comparisons(void** state) {
  (void)state;
  const mbt_vec3 a = mbt_vec3_make(1, 2, 3);
  assert_true(mbt_vec3_is_near(a, mbt_vec3_make(1, 2 + 1e-9, 3), 1e-8));
  assert_false(mbt_vec3_is_near(a, mbt_vec3_make(1, 2 + 1e-7, 3), 1e-8));
  assert_false(mbt_vec3_is_near(a, mbt_vec3_make(NAN, 2, 3), 1e300));
  mbt_mat3 A = mbt_mat3_identity(), B = A;
  assert_true(mbt_mat3_is_near(&A, &B, 0));
  B.m[2][1] = 1e-6;
  assert_false(mbt_mat3_is_near(&A, &B, 1e-7));
  assert_true(mbt_mat3_is_near(&A, &B, 1e-6));
  mbt_transform X = mbt_transform_identity(), Y = X;
  Y.p.v[2] = 1e-3;
  assert_false(mbt_transform_is_near(&X, &Y, 1e-4));
  assert_true(mbt_transform_is_near(&X, &Y, 1e-3));
  Y = X;
  Y.R.m[0][1] = 1e-3;
  assert_false(mbt_transform_is_near(&X, &Y, 1e-4));
}

static void test_elementary_rotations_and_axis_angle(void** state) {
  (void)state;
  const double th = 0.7;
  const mbt_mat3 Rx = mbt_rotation_x(th), Ry = mbt_rotation_y(th), Rz = mbt_rotation_z(th);
  const mbt_mat3 Ax = mbt_rotation_from_axis_angle(mbt_vec3_make(1, 0, 0), th);
  const mbt_mat3 Ay = mbt_rotation_from_axis_angle(mbt_vec3_make(0, 1, 0), th);
  const mbt_mat3 Az = mbt_rotation_from_axis_angle(mbt_vec3_make(0, 0, 1), th);
  tu_assert_mat3_near(&Rx, &Ax, 1e-15);
  tu_assert_mat3_near(&Ry, &Ay, 1e-15);
  tu_assert_mat3_near(&Rz, &Az, 1e-15);
  /* Rz(90°) takes x to y (right-handed, active rotation). */
  const mbt_mat3 R90 = mbt_rotation_z(TU_PI / 2);
  tu_assert_vec3_near(mbt_mat3_mul_vec(&R90, mbt_vec3_make(1, 0, 0)), mbt_vec3_make(0, 1, 0), 1e-15);
  for (int i = 0; i < 200; ++i) {
    mbt_vec3 k = tu_rand_vec3(1);
    k = mbt_vec3_scale(k, 1 / mbt_vec3_norm(k));
    const double angle = tu_uniform(-TU_PI, TU_PI);
    const mbt_mat3 R = mbt_rotation_from_axis_angle(k, angle);
    assert_true(mbt_rotation_is_valid(&R, 1e-14));
    tu_assert_vec3_near(mbt_mat3_mul_vec(&R, k), k, 1e-14);        /* the axis is fixed */
    assert_near(mbt_mat3_trace(&R), 1 + 2 * cos(angle), 1e-14); /* tr R = 1 + 2cosθ */
    const mbt_mat3 Rinv = mbt_rotation_from_axis_angle(k, -angle), I = mbt_mat3_identity();
    const mbt_mat3 P = mbt_mat3_mul(&R, &Rinv);
    tu_assert_mat3_near(&P, &I, 1e-14);
  }
}

static void test_rotation_is_valid(void** state) {
  (void)state;
  const mbt_mat3 R = mbt_rotation_from_rpy(mbt_vec3_make(0.3, -0.2, 1.1));
  assert_true(mbt_rotation_is_valid(&R, 1e-14));
  const mbt_mat3 reflect = {{{1, 0, 0}, {0, 1, 0}, {0, 0, -1}}}; /* orthonormal, det −1 */
  assert_false(mbt_rotation_is_valid(&reflect, 1e-6));
  const mbt_mat3 scaled = mbt_mat3_scale(&R, 1.001);
  assert_false(mbt_rotation_is_valid(&scaled, 1e-6));
  assert_true(mbt_rotation_is_valid(&scaled, 1e-2));
  mbt_mat3 bad = R;
  bad.m[1][1] = NAN;
  assert_false(mbt_rotation_is_valid(&bad, 1));
}

static void test_rpy_round_trip(void** state) {
  (void)state;
  for (int i = 0; i < 1000; ++i) {
    const mbt_vec3 rpy =
        mbt_vec3_make(tu_uniform(-TU_PI, TU_PI), tu_uniform(-TU_PI / 2, TU_PI / 2), tu_uniform(-TU_PI, TU_PI));
    const mbt_mat3 R = mbt_rotation_from_rpy(rpy);
    /* SpaceXYZ: R = Rz(yaw)·Ry(pitch)·Rx(roll) */
    const mbt_mat3 Rz = mbt_rotation_z(rpy.v[2]), Ry = mbt_rotation_y(rpy.v[1]),
                   Rx = mbt_rotation_x(rpy.v[0]);
    const mbt_mat3 RyRx = mbt_mat3_mul(&Ry, &Rx), Rzyx = mbt_mat3_mul(&Rz, &RyRx);
    tu_assert_mat3_near(&R, &Rzyx, 1e-15);
    assert_true(mbt_rotation_is_valid(&R, 1e-14));
    tu_assert_vec3_near(mbt_rotation_to_rpy(&R), rpy, 4e-15 / cos(rpy.v[1]) + 1e-14);
    const mbt_vec3 back = mbt_rotation_to_rpy(&R);
    const mbt_mat3 R2 = mbt_rotation_from_rpy(back);
    tu_assert_mat3_near(&R2, &R, 4e-16 * 8);
  }
  /* A rotation from a random quaternion: to_rpy lands in the documented ranges. */
  for (int i = 0; i < 1000; ++i) {
    const mbt_mat3 R = mbt_rotation_from_quat(tu_rand_unit_quat());
    const mbt_vec3 rpy = mbt_rotation_to_rpy(&R);
    assert_true(fabs(rpy.v[0]) <= TU_PI && fabs(rpy.v[1]) <= TU_PI / 2 && fabs(rpy.v[2]) <= TU_PI);
    const mbt_mat3 R2 = mbt_rotation_from_rpy(rpy);
    tu_assert_mat3_near(&R2, &R, 4e-15);
  }
}

static void test_rpy_gimbal_lock(void** state) {
  (void)state;
  for (int sign = -1; sign <= 1; sign += 2) {
    for (int i = 0; i < 200; ++i) {
      /* exactly at the lock, and within 1e-9 rad of it */
      const double pitch = sign * (TU_PI / 2 - (i % 2 ? 1e-9 : 0));
      const mbt_vec3 rpy = mbt_vec3_make(tu_uniform(-TU_PI, TU_PI), pitch, tu_uniform(-TU_PI, TU_PI));
      const mbt_mat3 R = mbt_rotation_from_rpy(rpy);
      const mbt_vec3 out = mbt_rotation_to_rpy(&R);
      assert_near(out.v[1], pitch, 2e-8);
      const mbt_mat3 R2 = mbt_rotation_from_rpy(out);
      tu_assert_mat3_near(&R2, &R, 4e-15);
      /* only roll − yaw (pitch = +π/2) or roll + yaw (pitch = −π/2) is defined there */
      if (i % 2 == 0) {
        const double comb_in = rpy.v[0] - sign * rpy.v[2], comb_out = out.v[0] - sign * out.v[2];
        assert_near(remainder(comb_in - comb_out, 2 * TU_PI), 0, 1e-12);
      }
    }
  }
  /* The exact matrix Ry(π/2) (cos π/2 is not exactly 0 in floating point, so build it). */
  const mbt_mat3 Ry90 = {{{0, 0, 1}, {0, 1, 0}, {-1, 0, 0}}};
  const mbt_vec3 rpy = mbt_rotation_to_rpy(&Ry90);
  tu_assert_vec3_near(rpy, mbt_vec3_make(0, TU_PI / 2, 0), 1e-15);
}

static void test_quaternion_round_trip(void** state) {
  (void)state;
  for (int i = 0; i < 1000; ++i) {
    mbt_quat q = tu_rand_unit_quat();
    if (q.w < 0) q = mbt_quat_make(-q.w, -q.x, -q.y, -q.z);
    const mbt_mat3 R = mbt_rotation_from_quat(q);
    assert_true(mbt_rotation_is_valid(&R, 1e-14));
    const mbt_quat q2 = mbt_quat_from_rotation(&R);
    assert_true(q2.w >= 0);
    assert_near(q2.w, q.w, 1e-14);
    assert_near(q2.x, q.x, 1e-14);
    assert_near(q2.y, q.y, 1e-14);
    assert_near(q2.z, q.z, 1e-14);
    const mbt_mat3 R2 = mbt_rotation_from_quat(q2);
    tu_assert_mat3_near(&R2, &R, 1e-15 * 4);
  }
  /* Each of Shepperd's four branches: half-turns about x, y, z (trace −1) and identity. */
  const mbt_vec3 axes[3] = {{{1, 0, 0}}, {{0, 1, 0}}, {{0, 0, 1}}};
  for (int k = 0; k < 3; ++k) {
    const mbt_mat3 R = mbt_rotation_from_axis_angle(axes[k], TU_PI);
    const mbt_quat q = mbt_quat_from_rotation(&R);
    const double e[3] = {q.x, q.y, q.z};
    assert_near(q.w, 0, 1e-15);
    assert_near(fabs(e[k]), 1, 1e-15);
    const mbt_mat3 R2 = mbt_rotation_from_quat(q);
    tu_assert_mat3_near(&R2, &R, 1e-15);
  }
  const mbt_mat3 I = mbt_mat3_identity();
  const mbt_quat qi = mbt_quat_from_rotation(&I);
  assert_near(qi.w, 1, 0);
  /* R from an rpy, through a quaternion: the same rotation (also the R00-max branch). */
  const mbt_mat3 R = mbt_rotation_from_rpy(mbt_vec3_make(2.9, 0.1, -0.2));
  const mbt_quat q = mbt_quat_from_rotation(&R);
  const mbt_mat3 R2 = mbt_rotation_from_quat(q);
  tu_assert_mat3_near(&R2, &R, 1e-15 * 4);
}

static void test_quaternion_product_is_rotation_product(void** state) {
  (void)state;
  for (int i = 0; i < 500; ++i) {
    const mbt_quat q_AB = tu_rand_unit_quat(), q_BC = tu_rand_unit_quat();
    const mbt_mat3 R_AB = mbt_rotation_from_quat(q_AB), R_BC = mbt_rotation_from_quat(q_BC);
    const mbt_mat3 R_AC = mbt_mat3_mul(&R_AB, &R_BC);
    const mbt_mat3 R_AC_q = mbt_rotation_from_quat(mbt_quat_multiply(q_AB, q_BC));
    tu_assert_mat3_near(&R_AC_q, &R_AC, 1e-14);
    /* q ⊗ q* = identity and R(q*) = R(q)ᵀ */
    const mbt_quat e = mbt_quat_multiply(q_AB, mbt_quat_conjugate(q_AB));
    assert_near(e.w, 1, 1e-15);
    assert_near(fabs(e.x) + fabs(e.y) + fabs(e.z), 0, 1e-15);
    const mbt_mat3 R_BA = mbt_rotation_from_quat(mbt_quat_conjugate(q_AB)),
                   Rt = mbt_mat3_transpose(&R_AB);
    tu_assert_mat3_near(&R_BA, &Rt, 1e-15);
  }
  /* q_z(90°) ⊗ q_x(90°) in closed form: [1/2, 1/2, 1/2, 1/2]. */
  const double h = sqrt(0.5);
  const mbt_quat p = mbt_quat_multiply(mbt_quat_make(h, 0, 0, h), mbt_quat_make(h, h, 0, 0));
  assert_near(p.w, 0.5, 1e-15);
  assert_near(p.x, 0.5, 1e-15);
  assert_near(p.y, 0.5, 1e-15);
  assert_near(p.z, 0.5, 1e-15);
}

static void test_quaternion_normalize(void** state) {
  (void)state;
  mbt_quat q = mbt_quat_make(0, 3, 0, 4);
  assert_int_equal(mbt_quat_normalize(&q), MBT_OK);
  assert_near(q.x, 0.6, 1e-15);
  assert_near(q.z, 0.8, 1e-15);
  assert_near(mbt_quat_norm(q), 1, 1e-15);
  mbt_quat z = mbt_quat_make(0, 0, 0, 0);
  assert_int_equal(mbt_quat_normalize(&z), MBT_ERR_INVALID_ARGUMENT);
  assert_true(z.w == 0 && z.x == 0 && z.y == 0 && z.z == 0); /* unchanged, no NaN */
  mbt_quat n = mbt_quat_make(NAN, 1, 0, 0);
  assert_int_equal(mbt_quat_normalize(&n), MBT_ERR_INVALID_ARGUMENT);
  assert_near(n.x, 1, 0);
  mbt_quat inf = mbt_quat_make(INFINITY, 0, 0, 0);
  assert_int_equal(mbt_quat_normalize(&inf), MBT_ERR_INVALID_ARGUMENT);
  mbt_quat tiny = mbt_quat_make(1e-200, 0, 0, 0);
  assert_int_equal(mbt_quat_normalize(&tiny), MBT_ERR_INVALID_ARGUMENT); /* |q|² underflows */
  mbt_quat small = mbt_quat_make(0, 0, 1e-150, 0);
  assert_int_equal(mbt_quat_normalize(&small), MBT_OK);
  assert_near(small.y, 1, 1e-15);
}

static void test_transforms(void** state) {
  (void)state;
  for (int i = 0; i < 200; ++i) {
    const mbt_mat3 R_AB = mbt_rotation_from_quat(tu_rand_unit_quat());
    const mbt_transform X_AB = mbt_transform_make(&R_AB, tu_rand_vec3(3));
    const mbt_transform X_BA = mbt_transform_inverse(&X_AB);
    const mbt_transform I1 = mbt_transform_compose(&X_AB, &X_BA),
                        I2 = mbt_transform_compose(&X_BA, &X_AB);
    const mbt_transform I = mbt_transform_identity();
    assert_true(mbt_transform_is_near(&I1, &I, 1e-14));
    assert_true(mbt_transform_is_near(&I2, &I, 1e-14));
    /* p_AoQ_A = X_AB·p_BoQ_B and back */
    const mbt_vec3 p_BoQ_B = tu_rand_vec3(2);
    const mbt_vec3 p_AoQ_A = mbt_transform_apply(&X_AB, p_BoQ_B);
    tu_assert_vec3_near(mbt_transform_apply(&X_BA, p_AoQ_A), p_BoQ_B, 1e-14);
    /* rotate: the difference of two points transforms by R only */
    const mbt_vec3 p2 = tu_rand_vec3(2);
    tu_assert_vec3_near(mbt_transform_rotate(&X_AB, mbt_vec3_sub(p2, p_BoQ_B)),
                        mbt_vec3_sub(mbt_transform_apply(&X_AB, p2), p_AoQ_A), 1e-14);
    /* associativity of compose */
    const mbt_mat3 R_BC = mbt_rotation_from_quat(tu_rand_unit_quat());
    const mbt_transform X_BC = mbt_transform_make(&R_BC, tu_rand_vec3(1));
    const mbt_transform X_AC = mbt_transform_compose(&X_AB, &X_BC);
    const mbt_vec3 p_CoQ_C = tu_rand_vec3(1);
    tu_assert_vec3_near(mbt_transform_apply(&X_AC, p_CoQ_C),
                        mbt_transform_apply(&X_AB, mbt_transform_apply(&X_BC, p_CoQ_C)), 1e-14);
  }
}

static void test_symmetric_eigen(void** state) {
  (void)state;
  for (int i = 0; i < 300; ++i) {
    const mbt_mat3 R = mbt_rotation_from_quat(tu_rand_unit_quat());
    double l[3] = {tu_uniform(-2, 3), tu_uniform(-2, 3), tu_uniform(-2, 3)};
    if (i % 3 == 0) l[1] = l[0];        /* a repeated eigenvalue */
    if (i % 7 == 0) l[2] = l[1] = l[0]; /* all equal */
    const mbt_mat3 D = {{{l[0], 0, 0}, {0, l[1], 0}, {0, 0, l[2]}}};
    const mbt_mat3 RD = mbt_mat3_mul(&R, &D), S = mbt_mat3_mul_t(&RD, &R);
    mbt_vec3 lam;
    mbt_mat3 V;
    mbt_mat3_symmetric_eigen(&S, &lam, &V);
    for (int a = 0; a < 3; ++a)
      for (int b = a + 1; b < 3; ++b)
        if (l[b] < l[a]) {
          const double t = l[a];
          l[a] = l[b];
          l[b] = t;
        }
    tu_assert_vec3_near(lam, mbt_vec3_make(l[0], l[1], l[2]), 1e-13);
    assert_true(lam.v[0] <= lam.v[1] && lam.v[1] <= lam.v[2]);
    assert_true(mbt_rotation_is_valid(&V, 1e-13));
    const mbt_mat3 L = {{{lam.v[0], 0, 0}, {0, lam.v[1], 0}, {0, 0, lam.v[2]}}};
    const mbt_mat3 VL = mbt_mat3_mul(&V, &L), S2 = mbt_mat3_mul_t(&VL, &V);
    tu_assert_mat3_near(&S2, &S, 1e-13);
  }
  const mbt_mat3 Z = mbt_mat3_zero();
  mbt_vec3 lam;
  mbt_mat3 V;
  mbt_mat3_symmetric_eigen(&Z, &lam, &V);
  tu_assert_vec3_near(lam, mbt_vec3_zero(), 0);
  const mbt_mat3 I = mbt_mat3_identity();
  tu_assert_mat3_near(&V, &I, 0);
  /* closed form: [[2, 1], [1, 2]] ⊕ [5] has eigenvalues 1, 3, 5 */
  const mbt_mat3 S = {{{2, 1, 0}, {1, 2, 0}, {0, 0, 5}}};
  mbt_mat3_symmetric_eigen(&S, &lam, &V);
  tu_assert_vec3_near(lam, mbt_vec3_make(1, 3, 5), 1e-15);
  assert_near(fabs(V.m[0][0]), sqrt(0.5), 1e-15);
  assert_near(V.m[0][0], -V.m[1][0], 1e-15); /* eigenvector of 1 is ∝ [1, −1, 0] */
}

static void test_printing(void** state) {
  (void)state;
  char buf[128];
  assert_int_equal(mbt_vec3_to_string(buf, sizeof buf, mbt_vec3_make(1, 2.5, -3)), 12);
  assert_string_equal(buf, "[1, 2.5, -3]");
  char small[5];
  assert_int_equal(mbt_vec3_to_string(small, sizeof small, mbt_vec3_make(1, 2.5, -3)), 12);
  assert_string_equal(small, "[1, ");
  assert_int_equal(mbt_vec3_to_string(NULL, 0, mbt_vec3_make(1, 2, 3)), 9);
  const mbt_mat3 I = mbt_mat3_identity();
  mbt_mat3_to_string(buf, sizeof buf, &I);
  assert_string_equal(buf, "[[1, 0, 0], [0, 1, 0], [0, 0, 1]]");
}

static void test_status_string(void** state) {
  (void)state;
  assert_string_equal(mbt_status_string(MBT_OK), "ok");
  assert_string_equal(mbt_status_string(MBT_ERR_INVALID_ARGUMENT), "invalid argument");
  assert_string_equal(mbt_status_string(MBT_ERR_NONPHYSICAL), "non-physical inertia");
  assert_string_equal(mbt_status_string(42), "unknown status");
  for (int s = MBT_OK; s >= MBT_ERR_INTERRUPTED; --s) {
    assert_non_null(mbt_status_string(s));
    assert_string_not_equal(mbt_status_string(s), "unknown status");
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mat3_algebra),
      cmocka_unit_test(test_tolerance_comparisons),
      cmocka_unit_test(test_elementary_rotations_and_axis_angle),
      cmocka_unit_test(test_rotation_is_valid),
      cmocka_unit_test(test_rpy_round_trip),
      cmocka_unit_test(test_rpy_gimbal_lock),
      cmocka_unit_test(test_quaternion_round_trip),
      cmocka_unit_test(test_quaternion_product_is_rotation_product),
      cmocka_unit_test(test_quaternion_normalize),
      cmocka_unit_test(test_transforms),
      cmocka_unit_test(test_symmetric_eigen),
      cmocka_unit_test(test_printing),
      cmocka_unit_test(test_status_string),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
