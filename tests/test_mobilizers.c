/* test_mobilizers.c: the identities every mobilizer must satisfy (seed Mobilizer), for every
 * type at random q, v, v̇, through the public mbt_mobilizer_* interface:
 *   H_FM column k = V_FM(e_k); power (H_FMᵀ·F)·v = F·(H_FM·v); N⁺(q)·N(q)·v = v;
 *   V_FM = d/dt X_FM along q̇ = N(q)·v; [Hw_i]ₓ·R_FM = ∂R_FM/∂q·N(q)·e_i, Hv_i = ∂p_FM/∂q·N(q)·e_i;
 *   A_FM = d/dt V_FM along (q̇, v̇); and each type's convention for X_FM. */
#include "support/test_util.h"

typedef struct {
  mbt_tree* tree;
  int mob;
  int nq, nv;
  mbt_vec3 axis;
  double pitch;
} fixture;

static fixture make(mbt_mobilizer_type type) {
  fixture f;
  f.tree = mbt_tree_create();
  assert_non_null(f.tree);
  mbt_spatial_inertia M = tu_rand_inertia();
  int b = mbt_tree_add_rigid_body(f.tree, "body", &M);
  assert_true(b > 0);
  f.axis = tu_rand_unit();
  /* The axis is given unnormalized: only its direction counts. */
  mbt_vec3 a = mbt_vec3_scale(f.axis, 2.5);
  f.pitch = 0.7;
  f.mob = mbt_tree_add_mobilizer(f.tree, "mob", type, 0, mbt_tree_body_frame(f.tree, b), &a, f.pitch);
  assert_true(f.mob >= 0);
  assert_int_equal(mbt_tree_finalize(f.tree), MBT_OK);
  f.nq = mbt_mobilizer_num_positions(f.tree, f.mob);
  f.nv = mbt_mobilizer_num_velocities(f.tree, f.mob);
  return f;
}

static void rand_q(const fixture* f, mbt_real* q) {
  tu_rand_array(q, f->nq, 1.0);
  if (mbt_mobilizer_type_of(f->tree, f->mob) == MBT_MOBILIZER_QUATERNION_FLOATING) {
    const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    for (int i = 0; i < 4; ++i) q[i] /= n;
  }
}

static mbt_transform X_at(const fixture* f, const mbt_real* q) {
  mbt_transform X;
  mbt_mobilizer_calc_across_mobilizer_transform(f->tree, f->mob, q, &X);
  return X;
}

/* q + s·dq (the quaternion, if any, is not renormalized: X_FM normalizes it). */
static void q_step(const fixture* f, const mbt_real* q, const mbt_real* dq, double s, mbt_real* out) {
  for (int i = 0; i < f->nq; ++i) out[i] = q[i] + s * dq[i];
}

/* w from Ṙ·Rᵀ = [w]ₓ and ṗ, by central differences of X_FM along dq. */
static void diff_X(const fixture* f, const mbt_real* q, const mbt_real* dq, double h, mbt_vec3* w, mbt_vec3* pdot) {
  mbt_real qp[7], qm[7];
  q_step(f, q, dq, h, qp);
  q_step(f, q, dq, -h, qm);
  const mbt_transform Xp = X_at(f, qp), Xm = X_at(f, qm), X = X_at(f, q);
  mbt_mat3 Rdot;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Rdot.m[i][j] = (Xp.R.m[i][j] - Xm.R.m[i][j]) / (2 * h);
  const mbt_mat3 S = mbt_mat3_mul_t(&Rdot, &X.R);   /* Ṙ·Rᵀ = [w]ₓ */
  *w = mbt_vec3_make(0.5 * (S.m[2][1] - S.m[1][2]), 0.5 * (S.m[0][2] - S.m[2][0]), 0.5 * (S.m[1][0] - S.m[0][1]));
  /* The symmetric part of Ṙ·Rᵀ must vanish. */
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) assert_true(fabs(S.m[i][j] + S.m[j][i]) < 1e-8);
  *pdot = mbt_vec3_scale(mbt_vec3_sub(Xp.p, Xm.p), 1 / (2 * h));
}

static void check_identities(mbt_mobilizer_type type) {
  tu_seed(1000 + (uint64_t)type);
  fixture f = make(type);
  const mbt_tree* T = f.tree;
  for (int trial = 0; trial < 20; ++trial) {
    mbt_real q[7], v[6], vd[6], qdot[7], v2[6], tau[6];
    rand_q(&f, q);
    tu_rand_array(v, f.nv, 1.0);
    tu_rand_array(vd, f.nv, 1.0);

    /* H_FM column k = V_FM(q, e_k), and V_FM = H_FM·v. */
    mbt_spatial_velocity H[6], V, Vk;
    mbt_mobilizer_calc_H_FM(T, f.mob, q, H);
    mbt_mobilizer_calc_across_mobilizer_spatial_velocity(T, f.mob, q, v, &V);
    mbt_spatial_velocity HV = {{{{0, 0, 0}}, {{0, 0, 0}}}};
    for (int k = 0; k < f.nv; ++k) {
      mbt_real e[6] = {0};
      e[k] = 1;
      mbt_mobilizer_calc_across_mobilizer_spatial_velocity(T, f.mob, q, e, &Vk);
      for (int i = 0; i < 6; ++i) {
        assert_true(fabs(Vk.coeffs[i] - H[k].coeffs[i]) < 1e-15);
        HV.coeffs[i] += H[k].coeffs[i] * v[k];
      }
    }
    for (int i = 0; i < 6; ++i) assert_true(fabs(HV.coeffs[i] - V.coeffs[i]) < 1e-14);

    /* Power: (H_FMᵀ·F)·v = F·(H_FM·v). */
    mbt_spatial_force F;
    for (int i = 0; i < 6; ++i) F.coeffs[i] = tu_rand();
    mbt_mobilizer_project_spatial_force(T, f.mob, q, &F, tau);
    double p1 = 0, p2 = 0;
    for (int k = 0; k < f.nv; ++k) p1 += tau[k] * v[k];
    for (int i = 0; i < 6; ++i) p2 += F.coeffs[i] * V.coeffs[i];
    assert_true(fabs(p1 - p2) < 1e-14);

    /* N⁺(q)·N(q)·v = v. */
    mbt_mobilizer_map_velocity_to_qdot(T, f.mob, q, v, qdot);
    assert_int_equal(mbt_mobilizer_map_qdot_to_velocity(T, f.mob, q, qdot, v2), MBT_OK);
    for (int k = 0; k < f.nv; ++k) assert_true(fabs(v2[k] - v[k]) < 1e-12);

    /* V_FM = d/dt X_FM along q̇ = N(q)·v (central differences, error O(h²)). */
    const double h = 1e-5;
    mbt_vec3 w_fd, p_fd;
    diff_X(&f, q, qdot, h, &w_fd, &p_fd);
    tu_assert_vec3_near(w_fd, V.w, 1e-8);
    tu_assert_vec3_near(p_fd, V.v, 1e-8);

    /* Columns: [Hw_k]ₓ·R_FM = ∂R_FM/∂q·N(q)·e_k and Hv_k = ∂p_FM/∂q·N(q)·e_k. */
    for (int k = 0; k < f.nv; ++k) {
      mbt_real e[6] = {0}, Ne[7];
      e[k] = 1;
      mbt_mobilizer_map_velocity_to_qdot(T, f.mob, q, e, Ne);
      diff_X(&f, q, Ne, h, &w_fd, &p_fd);
      tu_assert_vec3_near(w_fd, H[k].w, 1e-8);
      tu_assert_vec3_near(p_fd, H[k].v, 1e-8);
    }

    /* A_FM = d/dt V_FM along q(t) = q + t·N(q)·v, v(t) = v + t·v̇ (the O(t²) term of q(t)
     * is even in t and cancels in the central difference to O(h²)). */
    mbt_spatial_acceleration A, Ab;
    mbt_mobilizer_calc_across_mobilizer_spatial_acceleration(T, f.mob, q, v, vd, &A);
    {
      const double ht = 1e-5;
      mbt_real qp[7], qm[7], vp[6], vm[6];
      q_step(&f, q, qdot, ht, qp);
      q_step(&f, q, qdot, -ht, qm);
      for (int k = 0; k < f.nv; ++k) {
        vp[k] = v[k] + ht * vd[k];
        vm[k] = v[k] - ht * vd[k];
      }
      mbt_spatial_velocity Vp, Vm;
      mbt_mobilizer_calc_across_mobilizer_spatial_velocity(T, f.mob, qp, vp, &Vp);
      mbt_mobilizer_calc_across_mobilizer_spatial_velocity(T, f.mob, qm, vm, &Vm);
      for (int i = 0; i < 6; ++i) {
        const double fd = (Vp.coeffs[i] - Vm.coeffs[i]) / (2 * ht);
        if (fabs(fd - A.coeffs[i]) > 1e-8) fail_msg("A_FM[%d] = %.17g, d/dt V_FM = %.17g", i, A.coeffs[i], fd);
      }
    }
    /* v̇ = NULL means zero: A_FM(v̇ = 0) = Ḣ·v, and A_FM = H·v̇ + Ḣ·v. */
    mbt_mobilizer_calc_across_mobilizer_spatial_acceleration(T, f.mob, q, v, NULL, &Ab);
    for (int i = 0; i < 6; ++i) {
      double Hvd = 0;
      for (int k = 0; k < f.nv; ++k) Hvd += H[k].coeffs[i] * vd[k];
      assert_true(fabs(A.coeffs[i] - (Hvd + Ab.coeffs[i])) < 1e-14);
    }
  }

  /* The zero state is the identity pose with v = 0. */
  mbt_real q0[7], v0[6];
  for (int i = 0; i < 7; ++i) q0[i] = 9;
  for (int i = 0; i < 6; ++i) v0[i] = 9;
  mbt_mobilizer_set_zero_state(T, f.mob, q0, v0);
  for (int k = 0; k < f.nv; ++k) assert_true(v0[k] == 0);
  const mbt_transform X0 = X_at(&f, q0);
  for (int i = 0; i < 3; ++i) {
    assert_true(fabs(X0.p.v[i]) < 1e-15);
    for (int j = 0; j < 3; ++j) assert_true(fabs(X0.R.m[i][j] - (i == j)) < 1e-15);
  }
  mbt_tree_destroy(f.tree);
}

static void test_weld(void** s) { (void)s; check_identities(MBT_MOBILIZER_WELD); }
static void test_revolute(void** s) { (void)s; check_identities(MBT_MOBILIZER_REVOLUTE); }
static void test_prismatic(void** s) { (void)s; check_identities(MBT_MOBILIZER_PRISMATIC); }
static void test_universal(void** s) { (void)s; check_identities(MBT_MOBILIZER_UNIVERSAL); }
static void test_planar(void** s) { (void)s; check_identities(MBT_MOBILIZER_PLANAR); }
static void test_space_xyz(void** s) { (void)s; check_identities(MBT_MOBILIZER_SPACE_XYZ); }
static void test_quaternion_floating(void** s) { (void)s; check_identities(MBT_MOBILIZER_QUATERNION_FLOATING); }
static void test_screw(void** s) { (void)s; check_identities(MBT_MOBILIZER_SCREW); }

static mbt_mat3 rot(int axis, double t) {
  const double c = cos(t), s = sin(t);
  mbt_mat3 R = mbt_mat3_identity();
  const int i = (axis + 1) % 3, j = (axis + 2) % 3;
  R.m[i][i] = c; R.m[i][j] = -s; R.m[j][i] = s; R.m[j][j] = c;
  return R;
}

/* Each type's X_FM(q) against its definition (tree.h), built from elementary rotations. */
static void test_conventions(void** s) {
  (void)s;
  tu_seed(77);
  const double t = 0.83, t1 = -0.41, t2 = 1.27;
  {
    fixture f = make(MBT_MOBILIZER_REVOLUTE);
    mbt_real q[1] = {t};
    mbt_transform X = X_at(&f, q);
    /* R·â = â; R rotates a vector u ⟂ â by t: R·u = cos t·u + sin t·(â × u). */
    tu_assert_vec3_near(mbt_mat3_mul_vec(&X.R, f.axis), f.axis, 1e-15);
    mbt_vec3 u = mbt_vec3_cross(f.axis, tu_rand_unit());
    u = mbt_vec3_scale(u, 1 / mbt_vec3_norm(u));
    tu_assert_vec3_near(mbt_mat3_mul_vec(&X.R, u),
                        mbt_vec3_add(mbt_vec3_scale(u, cos(t)), mbt_vec3_scale(mbt_vec3_cross(f.axis, u), sin(t))),
                        1e-15);
    tu_assert_vec3_near(X.p, mbt_vec3_zero(), 0);
    mbt_tree_destroy(f.tree);
  }
  {
    fixture f = make(MBT_MOBILIZER_PRISMATIC);
    mbt_real q[1] = {t};
    mbt_transform X = X_at(&f, q);
    const mbt_mat3 I = mbt_mat3_identity();
    tu_assert_mat3_near(&X.R, &I, 0);
    tu_assert_vec3_near(X.p, mbt_vec3_scale(f.axis, t), 1e-15);
    mbt_tree_destroy(f.tree);
  }
  {
    fixture f = make(MBT_MOBILIZER_SCREW);
    mbt_real q[1] = {t};
    mbt_transform X = X_at(&f, q);
    tu_assert_vec3_near(mbt_mat3_mul_vec(&X.R, f.axis), f.axis, 1e-15);
    tu_assert_vec3_near(X.p, mbt_vec3_scale(f.axis, f.pitch * t / (2 * TU_PI)), 1e-15);
    /* One revolution advances by the pitch. */
    q[0] = 2 * TU_PI;
    X = X_at(&f, q);
    tu_assert_vec3_near(X.p, mbt_vec3_scale(f.axis, f.pitch), 1e-15);
    mbt_tree_destroy(f.tree);
  }
  {
    fixture f = make(MBT_MOBILIZER_UNIVERSAL);
    mbt_real q[2] = {t, t1};
    mbt_transform X = X_at(&f, q);
    const mbt_mat3 Rx = rot(0, t), Ry = rot(1, t1), R = mbt_mat3_mul(&Rx, &Ry);
    tu_assert_mat3_near(&X.R, &R, 1e-15);
    mbt_tree_destroy(f.tree);
  }
  {
    fixture f = make(MBT_MOBILIZER_PLANAR);
    mbt_real q[3] = {t, t1, t2};
    mbt_transform X = X_at(&f, q);
    const mbt_mat3 Rz = rot(2, t2);
    tu_assert_mat3_near(&X.R, &Rz, 1e-15);
    tu_assert_vec3_near(X.p, mbt_vec3_make(t, t1, 0), 0);
    mbt_tree_destroy(f.tree);
  }
  {
    fixture f = make(MBT_MOBILIZER_SPACE_XYZ);
    mbt_real q[3] = {t, t1, t2};
    mbt_transform X = X_at(&f, q);
    const mbt_mat3 Rz = rot(2, t2), Ry = rot(1, t1), Rx = rot(0, t);
    const mbt_mat3 Rzy = mbt_mat3_mul(&Rz, &Ry), R = mbt_mat3_mul(&Rzy, &Rx);
    tu_assert_mat3_near(&X.R, &R, 1e-15);
    mbt_tree_destroy(f.tree);
  }
  {
    fixture f = make(MBT_MOBILIZER_QUATERNION_FLOATING);
    /* A rotation by t about the unit axis n is the quaternion (cos t/2, sin t/2·n); scaled by
     * 3 it must give the same pose (X_FM normalizes). */
    const mbt_vec3 n = tu_rand_unit();
    mbt_real q[7] = {3 * cos(t / 2), 3 * sin(t / 2) * n.v[0], 3 * sin(t / 2) * n.v[1], 3 * sin(t / 2) * n.v[2],
                     0.1, -0.2, 0.3};
    mbt_transform X = X_at(&f, q);
    tu_assert_vec3_near(mbt_mat3_mul_vec(&X.R, n), n, 1e-15);
    mbt_vec3 u = mbt_vec3_cross(n, tu_rand_unit());
    u = mbt_vec3_scale(u, 1 / mbt_vec3_norm(u));
    tu_assert_vec3_near(mbt_mat3_mul_vec(&X.R, u),
                        mbt_vec3_add(mbt_vec3_scale(u, cos(t)), mbt_vec3_scale(mbt_vec3_cross(n, u), sin(t))),
                        1e-15);
    tu_assert_vec3_near(X.p, mbt_vec3_make(0.1, -0.2, 0.3), 0);
    mbt_tree_destroy(f.tree);
  }
}

/* Floating: the quaternion rate keeps |q| (q·q̇ = 0) and N⁺·N = I also for |q| ≠ 1; the zero
 * quaternion has no N⁺ (MBT_ERR_SINGULAR, v unchanged). */
static void test_quaternion_rates(void** s) {
  (void)s;
  tu_seed(5);
  fixture f = make(MBT_MOBILIZER_QUATERNION_FLOATING);
  mbt_real q[7], v[6], qdot[7], v2[6];
  rand_q(&f, q);
  for (int i = 0; i < 4; ++i) q[i] *= 1.7;
  tu_rand_array(v, 6, 1.0);
  mbt_mobilizer_map_velocity_to_qdot(f.tree, f.mob, q, v, qdot);
  assert_true(fabs(q[0] * qdot[0] + q[1] * qdot[1] + q[2] * qdot[2] + q[3] * qdot[3]) < 1e-15);
  assert_int_equal(mbt_mobilizer_map_qdot_to_velocity(f.tree, f.mob, q, qdot, v2), MBT_OK);
  for (int k = 0; k < 6; ++k) assert_true(fabs(v2[k] - v[k]) < 1e-12);
  mbt_real qz[7] = {0, 0, 0, 0, 1, 2, 3};
  for (int k = 0; k < 6; ++k) v2[k] = 42;
  assert_int_equal(mbt_mobilizer_map_qdot_to_velocity(f.tree, f.mob, qz, qdot, v2), MBT_ERR_SINGULAR);
  for (int k = 0; k < 6; ++k) assert_true(v2[k] == 42);
  assert_true(strlen(mbt_tree_last_error(f.tree)) > 0);
  mbt_tree_destroy(f.tree);
}

/* SpaceXYZ at gimbal lock (pitch = π/2): N⁺ (rpy rates → w) is defined and exact; N (w → rpy
 * rates) is undefined, and the kernel still returns finite numbers. Near the lock N⁺·N = I. */
static void test_space_xyz_gimbal_lock(void** s) {
  (void)s;
  fixture f = make(MBT_MOBILIZER_SPACE_XYZ);
  mbt_real q[3] = {0.3, TU_PI / 2, -0.4}, qdot[3] = {0.5, -0.2, 0.9}, w[3], qd2[3];
  assert_int_equal(mbt_mobilizer_map_qdot_to_velocity(f.tree, f.mob, q, qdot, w), MBT_OK);
  /* w = ẏ·ẑ + ṗ·Rz(y)·ŷ + ṙ·Rz(y)·Ry(p)·x̂, with Ry(π/2)·x̂ = −ẑ. */
  const double cy = cos(q[2]), sy = sin(q[2]);
  tu_assert_vec3_near(mbt_vec3_make(w[0], w[1], w[2]),
                      mbt_vec3_make(-sy * qdot[1], cy * qdot[1], qdot[2] - qdot[0]), 1e-15);
  mbt_mobilizer_map_velocity_to_qdot(f.tree, f.mob, q, w, qd2);
  for (int i = 0; i < 3; ++i) assert_true(isfinite(qd2[i]));
  q[1] = TU_PI / 2 - 1e-4;
  mbt_mobilizer_map_velocity_to_qdot(f.tree, f.mob, q, w, qd2);
  mbt_real w2[3];
  assert_int_equal(mbt_mobilizer_map_qdot_to_velocity(f.tree, f.mob, q, qd2, w2), MBT_OK);
  for (int i = 0; i < 3; ++i) assert_true(fabs(w2[i] - w[i]) < 1e-10);
  mbt_tree_destroy(f.tree);
}

/* can_rotate / can_translate per type. */
static void test_can_rotate_translate(void** s) {
  (void)s;
  const struct { mbt_mobilizer_type t; bool rot, tr; } cases[] = {
      {MBT_MOBILIZER_WELD, false, false},       {MBT_MOBILIZER_REVOLUTE, true, false},
      {MBT_MOBILIZER_PRISMATIC, false, true},   {MBT_MOBILIZER_UNIVERSAL, true, false},
      {MBT_MOBILIZER_PLANAR, true, true},       {MBT_MOBILIZER_SPACE_XYZ, true, false},
      {MBT_MOBILIZER_QUATERNION_FLOATING, true, true}, {MBT_MOBILIZER_SCREW, true, true}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    fixture f = make(cases[i].t);
    assert_int_equal(mbt_mobilizer_can_rotate(f.tree, f.mob), cases[i].rot);
    assert_int_equal(mbt_mobilizer_can_translate(f.tree, f.mob), cases[i].tr);
    mbt_tree_destroy(f.tree);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_weld),
      cmocka_unit_test(test_revolute),
      cmocka_unit_test(test_prismatic),
      cmocka_unit_test(test_universal),
      cmocka_unit_test(test_planar),
      cmocka_unit_test(test_space_xyz),
      cmocka_unit_test(test_quaternion_floating),
      cmocka_unit_test(test_screw),
      cmocka_unit_test(test_conventions),
      cmocka_unit_test(test_quaternion_rates),
      cmocka_unit_test(test_space_xyz_gimbal_lock),
      cmocka_unit_test(test_can_rotate_translate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
