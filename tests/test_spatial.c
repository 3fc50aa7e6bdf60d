/* Tests of mbt/spatial.h: the SpatialVector members of every spatial vector type, shifts,
 * compositions with moving frames (against finite differences of moving frames), and the
 * invariance of power and kinetic energy under shift and re-expression. */
#include "support/test_util.h"

#include "mbt/inertia.h"
#include "mbt/spatial.h"

#define ASSERT_SPATIAL_NEAR(type, X, Y, tol)                                     \
  do {                                                                           \
    if (!mbt_spatial_##type##_is_approx((X), (Y), (tol))) {                      \
      char sx[160], sy[160];                                                     \
      mbt_spatial_##type##_to_string(sx, sizeof sx, (X));                        \
      mbt_spatial_##type##_to_string(sy, sizeof sy, (Y));                        \
      fail_msg("%s = %s\n  != %s = %s (tol %g)", #X, sx, #Y, sy, (double)(tol)); \
    }                                                                            \
  } while (0)

/* The SpatialVector base members, identical for the four types: checked on each. */
#define CHECK_COMMON_MEMBERS(type, R, T)                                                         \
  do {                                                                                           \
    const mbt_real c[6] = {1, 2, 3, 4, 5, 6};                                                    \
    mbt_spatial_##type X =                                                                       \
        mbt_spatial_##type##_make(mbt_vec3_make(1, 2, 3), mbt_vec3_make(4, 5, 6));               \
    const mbt_spatial_##type X6 = mbt_spatial_##type##_make6(1, 2, 3, 4, 5, 6);                  \
    const mbt_spatial_##type Xa = mbt_spatial_##type##_from_array(c);                            \
    for (int i = 0; i < 6; ++i) {                                                                \
      assert_near(X.coeffs[i], i + 1, 0);                                                        \
      assert_near(X6.coeffs[i], i + 1, 0);                                                       \
      assert_near(Xa.coeffs[i], i + 1, 0);                                                       \
      assert_near(mbt_spatial_##type##_get(&X, i), i + 1, 0);                                    \
    }                                                                                            \
    assert_true(isnan(mbt_spatial_##type##_get(&X, 6)) &&                                        \
                isnan(mbt_spatial_##type##_get(&X, -1)));                                        \
    assert_near(X.R.v[2], 3, 0);                                                                 \
    assert_near(X.T.v[0], 4, 0);                                                                 \
    assert_near(mbt_spatial_##type##_rotational(&X).v[1], 2, 0);                                 \
    assert_near(mbt_spatial_##type##_translational(&X).v[2], 6, 0);                              \
    assert_ptr_equal(mbt_spatial_##type##_data(&X), &X.R.v[0]);                                  \
    assert_ptr_equal(mbt_spatial_##type##_mutable_data(&X) + 3, &X.T.v[0]);                      \
    mbt_spatial_##type##_mutable_rotational(&X)->v[0] = -1;                                      \
    mbt_spatial_##type##_mutable_translational(&X)->v[2] = -6;                                   \
    assert_near(X.coeffs[0], -1, 0);                                                             \
    assert_near(X.coeffs[5], -6, 0);                                                             \
    assert_int_equal(mbt_spatial_##type##_set(&X, 0, 1), MBT_OK);                                \
    assert_int_equal(mbt_spatial_##type##_set(&X, 5, 6), MBT_OK);                                \
    assert_int_equal(mbt_spatial_##type##_set(&X, 6, 99), MBT_ERR_INVALID_ARGUMENT);             \
    assert_int_equal(mbt_spatial_##type##_set(&X, -1, 99), MBT_ERR_INVALID_ARGUMENT);            \
    assert_true(mbt_spatial_##type##_is_approx(&X, &X6, 0));                                     \
    /* arithmetic */                                                                             \
    const mbt_spatial_##type Y = mbt_spatial_##type##_make6(0.5, -1, 2, 0, 3, -4);               \
    const mbt_spatial_##type S = mbt_spatial_##type##_add(&X, &Y),                               \
                             D = mbt_spatial_##type##_sub(&X, &Y);                               \
    const mbt_spatial_##type N = mbt_spatial_##type##_neg(&X),                                   \
                             K = mbt_spatial_##type##_scale(&X, -2);                             \
    for (int i = 0; i < 6; ++i) {                                                                \
      assert_near(S.coeffs[i], X.coeffs[i] + Y.coeffs[i], 0);                                    \
      assert_near(D.coeffs[i], X.coeffs[i] - Y.coeffs[i], 0);                                    \
      assert_near(N.coeffs[i], -X.coeffs[i], 0);                                                 \
      assert_near(K.coeffs[i], -2 * X.coeffs[i], 0);                                             \
    }                                                                                            \
    mbt_spatial_##type Z = X;                                                                    \
    assert_ptr_equal(mbt_spatial_##type##_add_in_place(&Z, &Y), &Z);                             \
    assert_true(mbt_spatial_##type##_is_approx(&Z, &S, 0));                                      \
    mbt_spatial_##type##_sub_in_place(&Z, &Y);                                                   \
    mbt_spatial_##type##_sub_in_place(&Z, &Y);                                                   \
    assert_true(mbt_spatial_##type##_is_approx(&Z, &D, 1e-15));                                  \
    Z = X;                                                                                       \
    mbt_spatial_##type##_scale_in_place(&Z, -2);                                                 \
    assert_true(mbt_spatial_##type##_is_approx(&Z, &K, 0));                                      \
    /* zero and NaN */                                                                           \
    assert_ptr_equal(mbt_spatial_##type##_set_zero(&Z), &Z);                                     \
    const mbt_spatial_##type Z0 = mbt_spatial_##type##_zero();                                   \
    for (int i = 0; i < 6; ++i) assert_true(Z.coeffs[i] == 0 && Z0.coeffs[i] == 0);              \
    mbt_spatial_##type##_set_nan(&Z);                                                            \
    const mbt_spatial_##type Zn = mbt_spatial_##type##_nan();                                    \
    for (int i = 0; i < 6; ++i) assert_true(isnan(Z.coeffs[i]) && isnan(Zn.coeffs[i]));          \
    assert_false(mbt_spatial_##type##_is_approx(&Z, &Z, 1e300)); /* NaN is never near */         \
    /* differences and tolerances: rot diff 1e-3 (element 1), trans diff 2e-6 (element 4) */     \
    mbt_spatial_##type W = X;                                                                    \
    W.coeffs[1] += 1e-3;                                                                         \
    W.coeffs[4] -= 2e-6;                                                                         \
    mbt_real dr = -1, dt = -1;                                                                   \
    mbt_spatial_##type##_get_maximum_absolute_differences(&X, &W, &dr, &dt);                     \
    assert_near(dr, 1e-3, 1e-15);                                                                \
    assert_near(dt, 2e-6, 1e-15);                                                                \
    assert_true(                                                                                 \
        mbt_spatial_##type##_is_nearly_equal_within_absolute_tolerance(&X, &W, 1.1e-3, 2.1e-6)); \
    assert_false(                                                                                \
        mbt_spatial_##type##_is_nearly_equal_within_absolute_tolerance(&X, &W, 0.9e-3, 2.1e-6)); \
    assert_false(                                                                                \
        mbt_spatial_##type##_is_nearly_equal_within_absolute_tolerance(&X, &W, 1.1e-3, 1.9e-6)); \
    assert_true(mbt_spatial_##type##_is_approx(&X, &W, 1.1e-3));                                 \
    assert_false(mbt_spatial_##type##_is_approx(&X, &W, 0.9e-3));                                \
    /* re-expression: Rz(90°) maps x to y in both parts */                                      \
    const mbt_mat3 Rz = mbt_rotation_z(1.5707963267948966);                                      \
    const mbt_spatial_##type E = mbt_spatial_##type##_make6(1, 0, 0, 0, 2, 0);                   \
    const mbt_spatial_##type F = mbt_spatial_##type##_reexpress(&Rz, &E);                        \
    const mbt_spatial_##type Fx = mbt_spatial_##type##_make6(0, 1, 0, -2, 0, 0);                 \
    assert_true(mbt_spatial_##type##_is_approx(&F, &Fx, 1e-15));                                 \
    /* printing (Drake's operator<<: "[a, b, c, d, e, f]") */                                    \
    char buf[64], small[8];                                                                      \
    const mbt_spatial_##type P = mbt_spatial_##type##_make6(1, -2, 0.5, 0, 1e-7, 3);             \
    assert_int_equal(mbt_spatial_##type##_to_string(buf, sizeof buf, &P), 25);                   \
    assert_string_equal(buf, "[1, -2, 0.5, 0, 1e-07, 3]");                                       \
    assert_int_equal(mbt_spatial_##type##_to_string(small, sizeof small, &P), 25);               \
    assert_string_equal(small, "[1, -2,");                                                       \
    FILE* f = tmpfile();                                                                         \
    assert_non_null(f);                                                                          \
    assert_int_equal(mbt_spatial_##type##_fprint(f, &P), 25);                                    \
    rewind(f);                                                                                   \
    char line[64] = {0};                                                                         \
    assert_non_null(fgets(line, sizeof line, f));                                                \
    assert_string_equal(line, buf);                                                              \
    fclose(f);                                                                                   \
  } while (0)

static void test_common_members(void** state) {
  (void)state;
  assert_int_equal(MBT_SPATIAL_VECTOR_SIZE, 6);
  assert_int_equal(MBT_SPATIAL_ROTATION_SIZE + MBT_SPATIAL_TRANSLATION_SIZE, 6);
  CHECK_COMMON_MEMBERS(velocity, w, v);
  CHECK_COMMON_MEMBERS(acceleration, alpha, a);
  CHECK_COMMON_MEMBERS(force, tau, f);
  CHECK_COMMON_MEMBERS(momentum, h, l);
}

/* Closed form: B spins at w = 2·ez about its origin (which moves along ez at 3); C sits at
 * p = ex, sliding radially outward along ex at speed 1 and spinning about ex at 5. */
static void test_shift_and_compose_closed_form(void** state) {
  (void)state;
  const mbt_vec3 w = mbt_vec3_make(0, 0, 2), p = mbt_vec3_make(1, 0, 0);
  const mbt_spatial_velocity V_MB = mbt_spatial_velocity_make(w, mbt_vec3_make(0, 0, 3));
  /* rigid shift: v_MCo = v_MBo + w × p = (0, 2, 3) */
  const mbt_spatial_velocity V_MC = mbt_spatial_velocity_shift(&V_MB, p);
  const mbt_spatial_velocity V_MC_x = mbt_spatial_velocity_make6(0, 0, 2, 0, 2, 3);
  ASSERT_SPATIAL_NEAR(velocity, &V_MC, &V_MC_x, 0);
  mbt_spatial_velocity V = V_MB;
  assert_ptr_equal(mbt_spatial_velocity_shift_in_place(&V, p), &V);
  ASSERT_SPATIAL_NEAR(velocity, &V, &V_MC_x, 0);
  /* With C's relative motion: v_MCo = (1, 2, 3), w_MC = (5, 0, 2). */
  const mbt_spatial_velocity V_BC = mbt_spatial_velocity_make6(5, 0, 0, 1, 0, 0);
  const mbt_spatial_velocity V_MC2 =
      mbt_spatial_velocity_compose_with_moving_frame_velocity(&V_MB, p, &V_BC);
  const mbt_spatial_velocity V_MC2_x = mbt_spatial_velocity_make6(5, 0, 2, 1, 2, 3);
  ASSERT_SPATIAL_NEAR(velocity, &V_MC2, &V_MC2_x, 0);
  /* Accelerations with A_MB = 0, A_BC = 0: centripetal w × (w × p) = (−4, 0, 0), Coriolis
   * 2·w × v_BC = (0, 4, 0); alpha_MC = w × w_BC = (0, 10, 0). */
  const mbt_spatial_acceleration A0 = mbt_spatial_acceleration_zero();
  const mbt_spatial_acceleration A_MC =
      mbt_spatial_acceleration_compose_with_moving_frame_acceleration(&A0, p, w, &V_BC, &A0);
  const mbt_spatial_acceleration A_MC_x = mbt_spatial_acceleration_make6(0, 10, 0, -4, 4, 0);
  ASSERT_SPATIAL_NEAR(acceleration, &A_MC, &A_MC_x, 0);
  /* Rigid shift of an acceleration with alpha = (0, 0, 1): tangential alpha × p = (0, 1, 0). */
  const mbt_spatial_acceleration A_MB = mbt_spatial_acceleration_make6(0, 0, 1, 0, 0, 0);
  const mbt_spatial_acceleration A_sh = mbt_spatial_acceleration_shift(&A_MB, p, w);
  const mbt_spatial_acceleration A_sh_x = mbt_spatial_acceleration_make6(0, 0, 1, -4, 1, 0);
  ASSERT_SPATIAL_NEAR(acceleration, &A_sh, &A_sh_x, 0);
  const mbt_spatial_acceleration A_z =
      mbt_spatial_acceleration_shift_with_zero_angular_velocity(&A_MB, p);
  const mbt_spatial_acceleration A_z_x = mbt_spatial_acceleration_make6(0, 0, 1, 0, 1, 0);
  ASSERT_SPATIAL_NEAR(acceleration, &A_z, &A_z_x, 0);
  /* Force: f = ey at Bo; about Co = Bo + ex the torque is tau − p × f = −ez. */
  const mbt_spatial_force F_Bo = mbt_spatial_force_make6(0, 0, 0, 0, 1, 0);
  const mbt_spatial_force F_Co = mbt_spatial_force_shift(&F_Bo, p);
  const mbt_spatial_force F_Co_x = mbt_spatial_force_make6(0, 0, -1, 0, 1, 0);
  ASSERT_SPATIAL_NEAR(force, &F_Co, &F_Co_x, 0);
  /* Momentum: a particle of mass 1 at Bo moving along ey; about Co its angular momentum is
   * p_CoBo × l = −ex × ey = −ez. */
  const mbt_spatial_momentum L_Bo = mbt_spatial_momentum_make6(0, 0, 0, 0, 1, 0);
  const mbt_spatial_momentum L_Co = mbt_spatial_momentum_shift(&L_Bo, p);
  const mbt_spatial_momentum L_Co_x = mbt_spatial_momentum_make6(0, 0, -1, 0, 1, 0);
  ASSERT_SPATIAL_NEAR(momentum, &L_Co, &L_Co_x, 0);
  /* Power and energy in closed form: w·tau + v·f. */
  const mbt_spatial_force F = mbt_spatial_force_make6(1, 2, 3, 4, 5, 6);
  assert_near(mbt_spatial_velocity_dot_force(&V_MC2, &F), 5 * 1 + 2 * 3 + 1 * 4 + 2 * 5 + 3 * 6, 0);
  assert_near(mbt_spatial_force_dot(&F, &V_MB), 2 * 3 + 3 * 6, 0);
  const mbt_spatial_momentum L = mbt_spatial_momentum_make6(-1, 0, 2, 1, 1, -1);
  assert_near(mbt_spatial_velocity_dot_momentum(&V_MC2, &L), -5 + 4 + 1 + 2 - 3, 0);
  assert_near(mbt_spatial_momentum_dot(&L, &V_MB), 4 - 3, 0);
}

static void test_shift_round_trips(void** state) {
  (void)state;
  for (int i = 0; i < 200; ++i) {
    const mbt_vec3 p = tu_rand_vec3(2), w = tu_rand_vec3(3);
    const mbt_spatial_velocity V = mbt_spatial_velocity_make(w, tu_rand_vec3(3));
    const mbt_spatial_velocity V1 = mbt_spatial_velocity_shift(&V, p);
    const mbt_spatial_velocity V2 = mbt_spatial_velocity_shift(&V1, mbt_vec3_neg(p));
    ASSERT_SPATIAL_NEAR(velocity, &V2, &V, 1e-13);
    assert_false(mbt_spatial_velocity_is_approx(&V1, &V, 1e-6)); /* the shift did something */
    const mbt_spatial_acceleration A =
        mbt_spatial_acceleration_make(tu_rand_vec3(3), tu_rand_vec3(3));
    const mbt_spatial_acceleration A1 = mbt_spatial_acceleration_shift(&A, p, w);
    const mbt_spatial_acceleration A2 = mbt_spatial_acceleration_shift(&A1, mbt_vec3_neg(p), w);
    ASSERT_SPATIAL_NEAR(acceleration, &A2, &A, 1e-12);
    mbt_spatial_acceleration A3 = A1;
    mbt_spatial_acceleration_shift_in_place(&A3, mbt_vec3_neg(p), w);
    ASSERT_SPATIAL_NEAR(acceleration, &A3, &A, 1e-12);
    const mbt_spatial_force F = mbt_spatial_force_make(tu_rand_vec3(3), tu_rand_vec3(3));
    const mbt_spatial_force F1 = mbt_spatial_force_shift(&F, p);
    mbt_spatial_force F2 = F1;
    mbt_spatial_force_shift_in_place(&F2, mbt_vec3_neg(p));
    ASSERT_SPATIAL_NEAR(force, &F2, &F, 1e-13);
    const mbt_spatial_momentum L = mbt_spatial_momentum_make(tu_rand_vec3(3), tu_rand_vec3(3));
    const mbt_spatial_momentum L1 = mbt_spatial_momentum_shift(&L, p);
    mbt_spatial_momentum L2 = L1;
    mbt_spatial_momentum_shift_in_place(&L2, mbt_vec3_neg(p));
    ASSERT_SPATIAL_NEAR(momentum, &L2, &L, 1e-13);
    /* composing with a zero relative velocity is a shift */
    const mbt_spatial_velocity Z = mbt_spatial_velocity_zero();
    const mbt_spatial_velocity Vc =
        mbt_spatial_velocity_compose_with_moving_frame_velocity(&V, p, &Z);
    ASSERT_SPATIAL_NEAR(velocity, &Vc, &V1, 0);
    const mbt_spatial_acceleration Az = mbt_spatial_acceleration_zero();
    const mbt_spatial_acceleration Ac =
        mbt_spatial_acceleration_compose_with_moving_frame_acceleration(&A, p, w, &Z, &Az);
    ASSERT_SPATIAL_NEAR(acceleration, &Ac, &A1, 1e-14);
  }
}

static void test_power_and_energy_invariance(void** state) {
  (void)state;
  for (int i = 0; i < 200; ++i) {
    const mbt_vec3 p_BoCo = tu_rand_vec3(2);
    const mbt_spatial_velocity V_MB = mbt_spatial_velocity_make(tu_rand_vec3(3), tu_rand_vec3(3));
    const mbt_spatial_force F_Bo = mbt_spatial_force_make(tu_rand_vec3(3), tu_rand_vec3(3));
    /* The same force system applied at Co, the same motion observed at Co: same power. */
    const mbt_spatial_velocity V_MC = mbt_spatial_velocity_shift(&V_MB, p_BoCo);
    const mbt_spatial_force F_Co = mbt_spatial_force_shift(&F_Bo, p_BoCo);
    const double P = mbt_spatial_velocity_dot_force(&V_MB, &F_Bo);
    assert_near(mbt_spatial_velocity_dot_force(&V_MC, &F_Co), P, 1e-12 * (1 + fabs(P)));
    assert_near(mbt_spatial_force_dot(&F_Co, &V_MC), P, 1e-12 * (1 + fabs(P)));
    /* ... but not with the un-shifted force (the test can tell). */
    assert_true(fabs(mbt_spatial_velocity_dot_force(&V_MC, &F_Bo) - P) > 1e-9);
    /* Kinetic energy: 2K = V·L at Bo and at Co, and = m|v_cm|² + wᵀ·I_cm·w. */
    const mbt_spatial_inertia M_Bo = tu_rand_spatial_inertia();
    const mbt_spatial_momentum L_Bo = mbt_spatial_inertia_mul_velocity(&M_Bo, &V_MB);
    const mbt_spatial_inertia M_Co = mbt_spatial_inertia_shift(&M_Bo, p_BoCo);
    const mbt_spatial_momentum L_Co = mbt_spatial_inertia_mul_velocity(&M_Co, &V_MC);
    const mbt_spatial_momentum L_Co2 = mbt_spatial_momentum_shift(&L_Bo, p_BoCo);
    ASSERT_SPATIAL_NEAR(momentum, &L_Co, &L_Co2, 1e-12);
    const double twoK = mbt_spatial_velocity_dot_momentum(&V_MB, &L_Bo);
    assert_near(mbt_spatial_velocity_dot_momentum(&V_MC, &L_Co), twoK, 1e-12 * twoK);
    assert_near(mbt_spatial_momentum_dot(&L_Co, &V_MC), twoK, 1e-12 * twoK);
    const mbt_spatial_velocity V_Mcm = mbt_spatial_velocity_shift(&V_MB, M_Bo.p_PScm_E);
    const mbt_spatial_inertia M_cm = mbt_spatial_inertia_shift(&M_Bo, M_Bo.p_PScm_E);
    const mbt_rotational_inertia I_cm = mbt_spatial_inertia_calc_rotational_inertia(&M_cm);
    const double twoK_ref = M_Bo.mass * mbt_vec3_dot(V_Mcm.v, V_Mcm.v) +
                            mbt_vec3_dot(V_MB.w, mbt_rotational_inertia_mul_vec(&I_cm, V_MB.w));
    assert_near(twoK, twoK_ref, 1e-12 * twoK);
    assert_true(twoK > 0);
    /* Re-expression in another frame F changes neither power nor energy. */
    const mbt_mat3 R_FE = mbt_rotation_from_quat(tu_rand_unit_quat());
    const mbt_spatial_velocity V_F = mbt_spatial_velocity_reexpress(&R_FE, &V_MB);
    const mbt_spatial_force F_F = mbt_spatial_force_reexpress(&R_FE, &F_Bo);
    const mbt_spatial_momentum L_F = mbt_spatial_momentum_reexpress(&R_FE, &L_Bo);
    assert_near(mbt_spatial_velocity_dot_force(&V_F, &F_F), P, 1e-12 * (1 + fabs(P)));
    assert_near(mbt_spatial_velocity_dot_momentum(&V_F, &L_F), twoK, 1e-12 * twoK);
    /* and shift commutes with re-expression: R·shift(V, p) = shift(R·V, R·p) */
    const mbt_spatial_velocity a = mbt_spatial_velocity_reexpress(&R_FE, &V_MC);
    const mbt_spatial_velocity b =
        mbt_spatial_velocity_shift(&V_F, mbt_mat3_mul_vec(&R_FE, p_BoCo));
    ASSERT_SPATIAL_NEAR(velocity, &a, &b, 1e-12);
    const mbt_spatial_acceleration A =
        mbt_spatial_acceleration_make(tu_rand_vec3(3), tu_rand_vec3(3));
    const mbt_spatial_acceleration A_sh = mbt_spatial_acceleration_shift(&A, p_BoCo, V_MB.w);
    const mbt_spatial_acceleration c = mbt_spatial_acceleration_reexpress(&R_FE, &A_sh);
    const mbt_spatial_acceleration A_F = mbt_spatial_acceleration_reexpress(&R_FE, &A);
    const mbt_spatial_acceleration d =
        mbt_spatial_acceleration_shift(&A_F, mbt_mat3_mul_vec(&R_FE, p_BoCo), V_F.w);
    ASSERT_SPATIAL_NEAR(acceleration, &c, &d, 1e-12);
  }
}

/* ---- finite differences of moving frames ----------------------------------------------- */
/* A pose X(t) = {Rz(y)·Ry(p)·Rx(r), p} whose six coordinates are c0 + c1·t + c2·sin(c3·t). */
typedef struct {
  double c[6][4];
} motion;
static motion random_motion(void) {
  motion m;
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 4; ++k) m.c[i][k] = tu_uniform(-1, 1);
  return m;
}
static mbt_transform pose(const motion* m, double t) {
  double q[6];
  for (int i = 0; i < 6; ++i)
    q[i] = m->c[i][0] + m->c[i][1] * t + m->c[i][2] * sin(2 * m->c[i][3] * t);
  const mbt_mat3 R = mbt_rotation_from_rpy(mbt_vec3_make(q[0], q[1], q[2]));
  return mbt_transform_make(&R, mbt_vec3_make(q[3], q[4], q[5]));
}
/* X_MC(t) = X_MB(t)·X_BC(t), or X_MB(t) alone when BC is NULL. */
static mbt_transform pose_of(const motion* MB, const motion* BC, double t) {
  const mbt_transform X_MB = pose(MB, t);
  if (!BC) return X_MB;
  const mbt_transform X_BC = pose(BC, t);
  return mbt_transform_compose(&X_MB, &X_BC);
}
/* V_AB_A by central differences: [w]ₓ = Ṙ_AB·R_ABᵀ, v = ṗ_AoBo_A. */
static mbt_spatial_velocity velocity_fd(const motion* MB, const motion* BC, double t) {
  const double h = 1e-5;
  const mbt_transform Xp = pose_of(MB, BC, t + h), Xm = pose_of(MB, BC, t - h),
                      X = pose_of(MB, BC, t);
  const mbt_mat3 dR = mbt_mat3_sub(&Xp.R, &Xm.R);
  const mbt_mat3 W = mbt_mat3_mul_t(&dR, &X.R);
  const mbt_vec3 w =
      mbt_vec3_make((W.m[2][1] - W.m[1][2]) / (4 * h), (W.m[0][2] - W.m[2][0]) / (4 * h),
                    (W.m[1][0] - W.m[0][1]) / (4 * h));
  return mbt_spatial_velocity_make(w, mbt_vec3_scale(mbt_vec3_sub(Xp.p, Xm.p), 1 / (2 * h)));
}
/* A_AB_A = d/dt V_AB_A (derivatives in A of A-expressed vectors). */
static mbt_spatial_acceleration acceleration_fd(const motion* MB, const motion* BC, double t) {
  const double h = 1e-4;
  const mbt_spatial_velocity Vp = velocity_fd(MB, BC, t + h), Vm = velocity_fd(MB, BC, t - h);
  const mbt_spatial_velocity D = mbt_spatial_velocity_sub(&Vp, &Vm);
  return mbt_spatial_acceleration_from_array(mbt_spatial_velocity_scale(&D, 1 / (2 * h)).coeffs);
}

static void test_compose_against_finite_differences(void** state) {
  (void)state;
  for (int i = 0; i < 50; ++i) {
    const motion MB = random_motion(), BC = random_motion();
    const double t = tu_uniform(-1, 1);
    const mbt_transform X_MB = pose(&MB, t), X_BC = pose(&BC, t);
    /* B in M, expressed in M */
    const mbt_spatial_velocity V_MB_M = velocity_fd(&MB, NULL, t);
    const mbt_spatial_acceleration A_MB_M = acceleration_fd(&MB, NULL, t);
    /* C in B, expressed in B, then re-expressed in M */
    const mbt_spatial_velocity V_BC_B = velocity_fd(&BC, NULL, t);
    const mbt_spatial_acceleration A_BC_B = acceleration_fd(&BC, NULL, t);
    const mbt_spatial_velocity V_BC_M = mbt_spatial_velocity_reexpress(&X_MB.R, &V_BC_B);
    const mbt_spatial_acceleration A_BC_M = mbt_spatial_acceleration_reexpress(&X_MB.R, &A_BC_B);
    const mbt_vec3 p_BoCo_M = mbt_mat3_mul_vec(&X_MB.R, X_BC.p);
    /* compose, and compare with C's motion in M differentiated directly */
    const mbt_spatial_velocity V_MC_M =
        mbt_spatial_velocity_compose_with_moving_frame_velocity(&V_MB_M, p_BoCo_M, &V_BC_M);
    const mbt_spatial_acceleration A_MC_M =
        mbt_spatial_acceleration_compose_with_moving_frame_acceleration(&A_MB_M, p_BoCo_M, V_MB_M.w,
                                                                        &V_BC_M, &A_BC_M);
    const mbt_spatial_velocity V_ref = velocity_fd(&MB, &BC, t);
    const mbt_spatial_acceleration A_ref = acceleration_fd(&MB, &BC, t);
    ASSERT_SPATIAL_NEAR(velocity, &V_MC_M, &V_ref, 1e-8);
    ASSERT_SPATIAL_NEAR(acceleration, &A_MC_M, &A_ref, 2e-6);
    /* the rigid shift alone misses the relative motion (so the test can tell) */
    const mbt_spatial_acceleration A_rigid =
        mbt_spatial_acceleration_shift(&A_MB_M, p_BoCo_M, V_MB_M.w);
    assert_false(mbt_spatial_acceleration_is_approx(&A_rigid, &A_ref, 1e-3));
  }
  /* A point C fixed in B: the shift alone matches C's motion. */
  for (int i = 0; i < 20; ++i) {
    motion MB = random_motion(), BC = random_motion();
    for (int k = 0; k < 6; ++k) BC.c[k][1] = BC.c[k][2] = 0; /* constant X_BC */
    const double t = tu_uniform(-1, 1);
    const mbt_transform X_MB = pose(&MB, t), X_BC = pose(&BC, t);
    const mbt_vec3 p_BoCo_M = mbt_mat3_mul_vec(&X_MB.R, X_BC.p);
    const mbt_spatial_velocity V_MB_M = velocity_fd(&MB, NULL, t);
    const mbt_spatial_acceleration A_MB_M = acceleration_fd(&MB, NULL, t);
    const mbt_spatial_velocity V_MC = mbt_spatial_velocity_shift(&V_MB_M, p_BoCo_M);
    const mbt_spatial_acceleration A_MC =
        mbt_spatial_acceleration_shift(&A_MB_M, p_BoCo_M, V_MB_M.w);
    const mbt_spatial_velocity V_ref = velocity_fd(&MB, &BC, t);
    const mbt_spatial_acceleration A_ref = acceleration_fd(&MB, &BC, t);
    ASSERT_SPATIAL_NEAR(velocity, &V_MC, &V_ref, 1e-8);
    ASSERT_SPATIAL_NEAR(acceleration, &A_MC, &A_ref, 2e-6);
  }
}

int main(void) {
  tu_seed(0x2545F4914F6CDD1Dull);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_common_members),
      cmocka_unit_test(test_shift_and_compose_closed_form),
      cmocka_unit_test(test_shift_round_trips),
      cmocka_unit_test(test_power_and_energy_invariance),
      cmocka_unit_test(test_compose_against_finite_differences),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
