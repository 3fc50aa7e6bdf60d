/* Tests of mbt/inertia.h: rotational and unit inertias (parallel axis, re-expression,
 * principal moments, textbook solids, validity messages), spatial inertias (shift,
 * composition, products with velocities and accelerations) and articulated-body inertias. */
#include "support/test_util.h"

#include "mbt/inertia.h"

static void assert_rot_near(const mbt_rotational_inertia* A, const mbt_rotational_inertia* B,
                            double tol) {
  if (!mbt_rotational_inertia_is_near(A, B, tol))
    fail_msg("[%g %g %g %g %g %g] != [%g %g %g %g %g %g] (tol %g)", A->xx, A->yy, A->zz, A->xy,
             A->xz, A->yz, B->xx, B->yy, B->zz, B->xy, B->xz, B->yz, tol);
}
static void assert_unit_near(const mbt_unit_inertia* A, const mbt_unit_inertia* B, double tol) {
  const mbt_rotational_inertia a = mbt_unit_inertia_to_rotational(A, 1),
                               b = mbt_unit_inertia_to_rotational(B, 1);
  assert_rot_near(&a, &b, tol);
}
static void assert_spatial_inertia_near(const mbt_spatial_inertia* A, const mbt_spatial_inertia* B,
                                        double tol) {
  assert_near(A->mass, B->mass, tol);
  assert_true(mbt_vec3_is_near(A->p_PScm_E, B->p_PScm_E, tol));
  assert_unit_near(&A->G_SP_E, &B->G_SP_E, tol);
  assert_true(mbt_spatial_inertia_is_near(A, B, tol));
}

static void test_rotational_inertia_basics(void** state) {
  (void)state;
  const mbt_rotational_inertia I = mbt_rotational_inertia_make(2, 3, 4, -0.1, 0.2, -0.3);
  const mbt_mat3 A = mbt_rotational_inertia_to_mat3(&I);
  assert_near(A.m[0][1], -0.1, 0);
  assert_near(A.m[2][0], 0.2, 0);
  assert_near(A.m[1][2], -0.3, 0);
  assert_near(A.m[2][2], 4, 0);
  const mbt_rotational_inertia I2 = mbt_rotational_inertia_from_mat3(&A);
  assert_rot_near(&I2, &I, 0);
  mbt_mat3 B = A; /* from_mat3 symmetrizes */
  B.m[0][1] = 0.1;
  B.m[1][0] = -0.3;
  const mbt_rotational_inertia Is = mbt_rotational_inertia_from_mat3(&B);
  assert_near(Is.xy, -0.1, 1e-16);
  assert_near(mbt_rotational_inertia_trace(&I), 9, 0);
  const mbt_vec3 w = mbt_vec3_make(1, -2, 0.5);
  assert_true(
      mbt_vec3_is_near(mbt_rotational_inertia_mul_vec(&I, w), mbt_mat3_mul_vec(&A, w), 1e-15));
  const mbt_rotational_inertia S = mbt_rotational_inertia_add(&I, &I),
                               K = mbt_rotational_inertia_scale(&I, 2);
  assert_rot_near(&S, &K, 0);
  const mbt_rotational_inertia D = mbt_rotational_inertia_make_moments(1, 2, 3);
  assert_true(D.xx == 1 && D.yy == 2 && D.zz == 3 && D.xy == 0 && D.xz == 0 && D.yz == 0);
  const mbt_rotational_inertia Z = mbt_rotational_inertia_zero();
  assert_near(mbt_rotational_inertia_trace(&Z), 0, 0);
  /* unit <-> rotational */
  const mbt_unit_inertia G = mbt_unit_inertia_from_rotational(&I, 2);
  assert_near(G.yy, 1.5, 0);
  const mbt_rotational_inertia I3 = mbt_unit_inertia_to_rotational(&G, 2);
  assert_rot_near(&I3, &I, 1e-16);
  const mbt_mat3 GA = mbt_unit_inertia_to_mat3(&G);
  const mbt_unit_inertia G2 = mbt_unit_inertia_from_mat3(&GA);
  assert_unit_near(&G2, &G, 0);
  assert_near(mbt_unit_inertia_trace(&G), 4.5, 0);
  assert_true(mbt_vec3_is_near(mbt_unit_inertia_mul_vec(&G, w),
                               mbt_vec3_scale(mbt_rotational_inertia_mul_vec(&I, w), 0.5), 1e-15));
}

static void test_parallel_axis_and_reexpress(void** state) {
  (void)state;
  /* Textbook: a cube of side a and mass m about an edge: (2/3)·m·a², about its center m·a²/6. */
  const double a = 0.3, m = 2;
  const mbt_unit_inertia Gc = mbt_unit_inertia_solid_box(a, a, a);
  const mbt_rotational_inertia Ic = mbt_unit_inertia_to_rotational(&Gc, m);
  assert_near(Ic.xx, m * a * a / 6, 1e-16);
  const mbt_rotational_inertia Ie =
      mbt_rotational_inertia_shift_from_com(&Ic, m, mbt_vec3_make(0, a / 2, a / 2));
  assert_near(Ie.xx, 2.0 / 3 * m * a * a, 1e-15);
  assert_near(Ie.yz, -m * a * a / 4, 1e-16); /* product −m·y·z */
  const mbt_rotational_inertia Ib =
      mbt_rotational_inertia_shift_to_com(&Ie, m, mbt_vec3_make(0, -a / 2, -a / 2));
  assert_rot_near(&Ib, &Ic, 1e-16);
  for (int i = 0; i < 100; ++i) {
    const double mass = tu_uniform(0.1, 3);
    const mbt_rotational_inertia I = tu_rand_central_inertia(mass);
    const mbt_vec3 p = tu_rand_vec3(2);
    /* I_BP = I_BBcm + m·(|p|²·1 − p·pᵀ), against the matrix formula */
    const mbt_rotational_inertia IP = mbt_rotational_inertia_shift_from_com(&I, mass, p);
    const mbt_mat3 Im = mbt_rotational_inertia_to_mat3(&I), one = mbt_mat3_identity();
    const mbt_mat3 pp = mbt_mat3_outer(p, p), pI = mbt_mat3_scale(&one, mbt_vec3_dot(p, p));
    const mbt_mat3 d = mbt_mat3_sub(&pI, &pp), md = mbt_mat3_scale(&d, mass),
                   ref = mbt_mat3_add(&Im, &md);
    const mbt_mat3 IPm = mbt_rotational_inertia_to_mat3(&IP);
    assert_true(mbt_mat3_is_near(&IPm, &ref, 1e-14));
    const mbt_rotational_inertia back = mbt_rotational_inertia_shift_to_com(&IP, mass, p);
    assert_rot_near(&back, &I, 1e-14);
    /* unit inertia versions */
    const mbt_unit_inertia G = mbt_unit_inertia_from_rotational(&I, mass);
    const mbt_unit_inertia GP = mbt_unit_inertia_shift_from_com(&G, p);
    const mbt_rotational_inertia GPm = mbt_unit_inertia_to_rotational(&GP, mass);
    assert_rot_near(&GPm, &IP, 1e-13);
    const mbt_unit_inertia Gb = mbt_unit_inertia_shift_to_com(&GP, mbt_vec3_neg(p));
    assert_unit_near(&Gb, &G, 1e-14);
    const mbt_vec3 q = tu_rand_vec3(2); /* P -> Bcm at p, Q -> Bcm at q */
    const mbt_unit_inertia GQ = mbt_unit_inertia_shift_to_then_away_from_com(&GP, p, q);
    const mbt_unit_inertia GQ_ref = mbt_unit_inertia_shift_from_com(&G, q);
    assert_unit_near(&GQ, &GQ_ref, 1e-13);
    /* re-expression: R·I·Rᵀ, back with Rᵀ; trace and principal moments invariant */
    const mbt_mat3 R = mbt_rotation_from_quat(tu_rand_unit_quat()), Rt = mbt_mat3_transpose(&R);
    const mbt_rotational_inertia IA = mbt_rotational_inertia_reexpress(&IP, &R);
    const mbt_rotational_inertia IE = mbt_rotational_inertia_reexpress(&IA, &Rt);
    assert_rot_near(&IE, &IP, 1e-13);
    assert_near(mbt_rotational_inertia_trace(&IA), mbt_rotational_inertia_trace(&IP), 1e-13);
    assert_true(mbt_vec3_is_near(mbt_rotational_inertia_principal_moments(&IA),
                                 mbt_rotational_inertia_principal_moments(&IP), 1e-13));
    /* I_A·(R·w) = R·(I_E·w) */
    const mbt_vec3 w = tu_rand_vec3(1);
    assert_true(mbt_vec3_is_near(mbt_rotational_inertia_mul_vec(&IA, mbt_mat3_mul_vec(&R, w)),
                                 mbt_mat3_mul_vec(&R, mbt_rotational_inertia_mul_vec(&IP, w)),
                                 1e-13));
    const mbt_unit_inertia GA = mbt_unit_inertia_reexpress(&GP, &R);
    const mbt_rotational_inertia GAm = mbt_unit_inertia_to_rotational(&GA, mass);
    assert_rot_near(&GAm, &IA, 1e-13);
  }
}

static void test_principal_moments(void** state) {
  (void)state;
  const mbt_rotational_inertia D = mbt_rotational_inertia_make_moments(3, 1, 2);
  assert_true(mbt_vec3_is_near(mbt_rotational_inertia_principal_moments(&D), mbt_vec3_make(1, 2, 3),
                               1e-15));
  for (int i = 0; i < 100; ++i) {
    const mbt_mat3 R = mbt_rotation_from_quat(tu_rand_unit_quat());
    const mbt_rotational_inertia I0 = mbt_rotational_inertia_make_moments(1.5, 0.5, 1.2);
    const mbt_rotational_inertia I = mbt_rotational_inertia_reexpress(&I0, &R);
    mbt_vec3 lam;
    mbt_mat3 R_EA;
    mbt_rotational_inertia_principal_moments_and_axes(&I, &lam, &R_EA);
    assert_true(mbt_vec3_is_near(lam, mbt_vec3_make(0.5, 1.2, 1.5), 1e-14));
    assert_true(mbt_rotation_is_valid(&R_EA, 1e-13));
    /* I = R_EA·diag(λ)·R_EAᵀ */
    const mbt_rotational_inertia L =
        mbt_rotational_inertia_make_moments(lam.v[0], lam.v[1], lam.v[2]);
    const mbt_rotational_inertia I2 = mbt_rotational_inertia_reexpress(&L, &R_EA);
    assert_rot_near(&I2, &I, 1e-14);
    const mbt_unit_inertia G = mbt_unit_inertia_from_rotational(&I, 0.5);
    assert_true(
        mbt_vec3_is_near(mbt_unit_inertia_principal_moments(&G), mbt_vec3_make(1, 2.4, 3), 1e-13));
  }
}

static void test_solids(void** state) {
  (void)state;
  const mbt_unit_inertia box = mbt_unit_inertia_solid_box(1, 2, 3);
  assert_near(box.xx, (4 + 9) / 12.0, 1e-16);
  assert_near(box.yy, (1 + 9) / 12.0, 1e-16);
  assert_near(box.zz, (1 + 4) / 12.0, 1e-16);
  assert_true(box.xy == 0 && box.xz == 0 && box.yz == 0);
  const mbt_unit_inertia sph = mbt_unit_inertia_solid_sphere(0.5);
  assert_near(sph.xx, 0.4 * 0.25, 1e-17);
  assert_near(sph.zz, 0.1, 1e-17);
  assert_near(sph.xy, 0, 0);
  /* cylinder along z: Izz = r²/2, Ixx = Iyy = (3r² + L²)/12 */
  const double r = 0.2, L = 1.5;
  mbt_unit_inertia cyl;
  assert_int_equal(mbt_unit_inertia_solid_cylinder(r, L, mbt_vec3_make(0, 0, 2), &cyl),
                   MBT_OK); /* normalized */
  assert_near(cyl.zz, r * r / 2, 1e-16);
  assert_near(cyl.xx, (3 * r * r + L * L) / 12, 1e-16);
  assert_near(cyl.yy, (3 * r * r + L * L) / 12, 1e-16);
  assert_near(fabs(cyl.xy) + fabs(cyl.xz) + fabs(cyl.yz), 0, 1e-17);
  /* along a random axis b: the z-cylinder re-expressed by any R with R·ez = b */
  for (int i = 0; i < 20; ++i) {
    const mbt_mat3 R = mbt_rotation_from_quat(tu_rand_unit_quat());
    const mbt_vec3 b = mbt_mat3_mul_vec(&R, mbt_vec3_make(0, 0, 1));
    mbt_unit_inertia Gb, rod;
    assert_int_equal(mbt_unit_inertia_solid_cylinder(r, L, b, &Gb), MBT_OK);
    const mbt_unit_inertia Gref = mbt_unit_inertia_reexpress(&cyl, &R);
    assert_unit_near(&Gb, &Gref, 1e-15);
    assert_true(
        mbt_vec3_is_near(mbt_unit_inertia_mul_vec(&Gb, b), mbt_vec3_scale(b, r * r / 2), 1e-15));
    assert_int_equal(mbt_unit_inertia_thin_rod(L, mbt_vec3_scale(b, 3), &rod), MBT_OK);
    assert_true(mbt_vec3_is_near(mbt_unit_inertia_mul_vec(&rod, b), mbt_vec3_zero(), 1e-15));
    assert_true(mbt_vec3_is_near(mbt_unit_inertia_principal_moments(&rod),
                                 mbt_vec3_make(0, L * L / 12, L * L / 12), 1e-15));
  }
  /* rod along x */
  mbt_unit_inertia rod;
  assert_int_equal(mbt_unit_inertia_thin_rod(2, mbt_vec3_make(1, 0, 0), &rod), MBT_OK);
  assert_near(rod.xx, 0, 0);
  assert_near(rod.yy, 4.0 / 12, 1e-16);
  assert_near(rod.zz, 4.0 / 12, 1e-16);
  /* bad arguments: an error and no change */
  mbt_unit_inertia keep = box;
  assert_int_equal(mbt_unit_inertia_solid_cylinder(r, L, mbt_vec3_zero(), &keep),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_unit_inertia_solid_cylinder(-r, L, mbt_vec3_make(0, 0, 1), &keep),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_unit_inertia_solid_cylinder(r, NAN, mbt_vec3_make(0, 0, 1), &keep),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_unit_inertia_thin_rod(L, mbt_vec3_make(NAN, 0, 1), &keep),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_unit_inertia_thin_rod(-1, mbt_vec3_make(0, 0, 1), &keep),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_unit_near(&keep, &box, 0);
  /* point mass at p: |p|²·1 − p·pᵀ */
  const mbt_unit_inertia pm = mbt_unit_inertia_point_mass(mbt_vec3_make(1, 2, 3));
  assert_near(pm.xx, 13, 0);
  assert_near(pm.yy, 10, 0);
  assert_near(pm.zz, 5, 0);
  assert_near(pm.xy, -2, 0);
  assert_near(pm.xz, -3, 0);
  assert_near(pm.yz, -6, 0);
  const mbt_rotational_inertia rpm = mbt_rotational_inertia_point_mass(2, mbt_vec3_make(1, 2, 3));
  assert_near(rpm.yz, -12, 0);
  /* all solids are physically valid, including the degenerate rod and point (equality in
   * the triangle inequality, a zero moment) */
  char why[256] = "x";
  assert_true(mbt_unit_inertia_could_be_physically_valid(&box, why, sizeof why));
  assert_string_equal(why, "");
  assert_true(mbt_unit_inertia_could_be_physically_valid(&sph, NULL, 0));
  assert_true(mbt_unit_inertia_could_be_physically_valid(&cyl, why, sizeof why));
  assert_true(mbt_unit_inertia_could_be_physically_valid(&rod, why, sizeof why));
  assert_true(mbt_unit_inertia_could_be_physically_valid(&pm, why, sizeof why));
}

static void test_validity_messages(void** state) {
  (void)state;
  char why[256];
  /* NaN */
  const mbt_rotational_inertia In = mbt_rotational_inertia_make(1, NAN, 1, 0, 0, 0);
  assert_false(mbt_rotational_inertia_could_be_physically_valid(&In, why, sizeof why));
  assert_contains(why, "rotational inertia");
  assert_contains(why, "NaN");
  /* a negative moment */
  const mbt_rotational_inertia Ineg = mbt_rotational_inertia_make_moments(-1, 2, 2);
  assert_false(mbt_rotational_inertia_could_be_physically_valid(&Ineg, why, sizeof why));
  assert_contains(why, "negative principal moment");
  assert_contains(why, "[-1, 2, 2]");
  /* the triangle inequality, also when hidden by a rotation (products of inertia) */
  const mbt_rotational_inertia Itri = mbt_rotational_inertia_make_moments(1, 3, 1);
  assert_false(mbt_rotational_inertia_could_be_physically_valid(&Itri, why, sizeof why));
  assert_contains(why, "triangle inequality");
  assert_contains(why, "[1, 1, 3]");
  /* turn the large-moment axis y onto (1, 1, 1)/√3: the diagonal becomes [5/3, 5/3, 5/3] */
  const mbt_vec3 ey = mbt_vec3_make(0, 1, 0),
                 n = mbt_vec3_make(1 / sqrt(3), 1 / sqrt(3), 1 / sqrt(3));
  const mbt_vec3 k = mbt_vec3_cross(ey, n);
  const mbt_mat3 R = mbt_rotation_from_axis_angle(mbt_vec3_scale(k, 1 / mbt_vec3_norm(k)),
                                                  acos(mbt_vec3_dot(ey, n)));
  const mbt_rotational_inertia Itri_rot = mbt_rotational_inertia_reexpress(&Itri, &R);
  assert_near(Itri_rot.xx, 5.0 / 3, 1e-15);
  /* its diagonal alone satisfies the triangle inequality: only the principal moments tell */
  assert_true(Itri_rot.xx + Itri_rot.yy > Itri_rot.zz && Itri_rot.xx + Itri_rot.zz > Itri_rot.yy &&
              Itri_rot.yy + Itri_rot.zz > Itri_rot.xx);
  assert_false(mbt_rotational_inertia_could_be_physically_valid(&Itri_rot, why, sizeof why));
  assert_contains(why, "triangle inequality");
  /* just inside the tolerance is accepted, just outside it is not */
  const mbt_rotational_inertia Iedge = mbt_rotational_inertia_make_moments(1, 1, 2 + 1e-15);
  assert_true(mbt_rotational_inertia_could_be_physically_valid(&Iedge, why, sizeof why));
  const mbt_rotational_inertia Iout = mbt_rotational_inertia_make_moments(1, 1, 2 + 1e-9);
  assert_false(mbt_rotational_inertia_could_be_physically_valid(&Iout, NULL, 0));
  /* a short buffer is truncated, not overrun */
  char tiny[8];
  assert_false(mbt_rotational_inertia_could_be_physically_valid(&Itri, tiny, sizeof tiny));
  assert_int_equal(strlen(tiny), 7);
  /* unit inertia names itself */
  const mbt_unit_inertia Gtri = mbt_unit_inertia_make_moments(1, 1, 3);
  assert_false(mbt_unit_inertia_could_be_physically_valid(&Gtri, why, sizeof why));
  assert_contains(why, "unit inertia");
  assert_contains(why, "triangle inequality");

  /* spatial inertia */
  const mbt_rotational_inertia Ibox = mbt_rotational_inertia_make_moments(0.1, 0.2, 0.25);
  const mbt_spatial_inertia ok =
      mbt_spatial_inertia_from_com(2, mbt_vec3_make(0.1, 0.2, 0.3), &Ibox);
  assert_true(mbt_spatial_inertia_is_physically_valid(&ok, why, sizeof why));
  assert_string_equal(why, "");
  assert_true(mbt_spatial_inertia_is_physically_valid(&ok, NULL, 0));
  mbt_spatial_inertia bad = ok;
  bad.mass = -1;
  assert_false(mbt_spatial_inertia_is_physically_valid(&bad, why, sizeof why));
  assert_contains(why, "mass -1 is negative");
  bad.mass = NAN;
  assert_false(mbt_spatial_inertia_is_physically_valid(&bad, why, sizeof why));
  assert_contains(why, "mass");
  assert_contains(why, "not finite");
  bad = ok;
  bad.p_PScm_E.v[1] = NAN;
  assert_false(mbt_spatial_inertia_is_physically_valid(&bad, why, sizeof why));
  assert_contains(why, "center of mass");
  assert_contains(why, "not finite");
  bad = ok;
  bad.G_SP_E.xz = INFINITY;
  assert_false(mbt_spatial_inertia_is_physically_valid(&bad, why, sizeof why));
  assert_contains(why, "non-finite");
  /* a central inertia that violates the triangle inequality, seen through a shift */
  const mbt_rotational_inertia Ibad = mbt_rotational_inertia_make_moments(1, 1, 3);
  const mbt_spatial_inertia tri = mbt_spatial_inertia_from_com(2, mbt_vec3_make(0.5, -1, 2), &Ibad);
  assert_false(mbt_spatial_inertia_is_physically_valid(&tri, why, sizeof why));
  assert_contains(why, "about the center of mass");
  assert_contains(why, "triangle inequality");
  assert_contains(why, "[1, 1, 3]");
  const mbt_rotational_inertia Ineg2 = mbt_rotational_inertia_make_moments(-0.1, 1, 1);
  const mbt_spatial_inertia neg = mbt_spatial_inertia_from_com(1, mbt_vec3_make(3, 0, 0), &Ineg2);
  assert_false(mbt_spatial_inertia_is_physically_valid(&neg, why, sizeof why));
  assert_contains(why, "negative principal moment");
  /* massless: fine with zero inertia, rejected with nonzero inertia */
  const mbt_rotational_inertia Z = mbt_rotational_inertia_zero();
  const mbt_spatial_inertia m0 = mbt_spatial_inertia_from_com(0, mbt_vec3_make(1, 2, 3), &Z);
  assert_true(mbt_spatial_inertia_is_physically_valid(&m0, why, sizeof why));
  const mbt_spatial_inertia m0bad = mbt_spatial_inertia_from_com(0, mbt_vec3_make(1, 2, 3), &Ibox);
  assert_false(mbt_spatial_inertia_is_physically_valid(&m0bad, why, sizeof why));
  assert_contains(why, "non-finite");
}

static void test_spatial_inertia(void** state) {
  (void)state;
  /* from_com: I_SP = I_SScm + m·pt(p_PScm) */
  const double m = 3;
  const mbt_vec3 c = mbt_vec3_make(0.1, -0.4, 0.7);
  const mbt_rotational_inertia Icm = mbt_rotational_inertia_make(0.2, 0.3, 0.4, 0.01, -0.02, 0.03);
  const mbt_spatial_inertia M = mbt_spatial_inertia_from_com(m, c, &Icm);
  assert_near(M.mass, m, 0);
  assert_true(mbt_vec3_is_near(M.p_PScm_E, c, 0));
  const mbt_rotational_inertia IP = mbt_spatial_inertia_calc_rotational_inertia(&M);
  const mbt_rotational_inertia IP_ref =
      mbt_rotational_inertia_shift_from_com(&Icm, m, mbt_vec3_neg(c));
  assert_rot_near(&IP, &IP_ref, 1e-15);
  assert_true(mbt_vec3_is_near(mbt_spatial_inertia_calc_com_moment(&M), mbt_vec3_scale(c, m), 0));
  /* make from parts and the point mass */
  const mbt_unit_inertia G = mbt_unit_inertia_from_rotational(&IP, m);
  const mbt_spatial_inertia M2 = mbt_spatial_inertia_make(m, c, &G);
  assert_spatial_inertia_near(&M2, &M, 1e-15);
  const mbt_spatial_inertia Mp = mbt_spatial_inertia_point_mass(2, mbt_vec3_make(0, 0, 1));
  const mbt_rotational_inertia Ip = mbt_spatial_inertia_calc_rotational_inertia(&Mp);
  assert_rot_near(&Ip, &(mbt_rotational_inertia){2, 2, 0, 0, 0, 0}, 0);
  const mbt_spatial_inertia Z = mbt_spatial_inertia_zero();
  assert_near(Z.mass + Z.G_SP_E.xx + Z.p_PScm_E.v[0], 0, 0);
  /* shift to the center of mass recovers Icm; shift there and back */
  const mbt_spatial_inertia Mcm = mbt_spatial_inertia_shift(&M, c);
  assert_true(mbt_vec3_is_near(Mcm.p_PScm_E, mbt_vec3_zero(), 1e-16));
  const mbt_rotational_inertia Icm2 = mbt_spatial_inertia_calc_rotational_inertia(&Mcm);
  assert_rot_near(&Icm2, &Icm, 1e-15);
  for (int i = 0; i < 100; ++i) {
    const mbt_spatial_inertia M_SP = tu_rand_spatial_inertia();
    const mbt_vec3 p_PQ = tu_rand_vec3(2);
    const mbt_spatial_inertia M_SQ = mbt_spatial_inertia_shift(&M_SP, p_PQ);
    const mbt_spatial_inertia M_back = mbt_spatial_inertia_shift(&M_SQ, mbt_vec3_neg(p_PQ));
    assert_spatial_inertia_near(&M_back, &M_SP, 1e-13);
    assert_true(mbt_spatial_inertia_is_physically_valid(&M_SQ, NULL, 0));
    /* L = M·V and F = M·A against the 6x6 matrix */
    double M6[6][6];
    mbt_spatial_inertia_copy_to_full_matrix6(&M_SP, M6);
    const mbt_spatial_velocity V = mbt_spatial_velocity_make(tu_rand_vec3(2), tu_rand_vec3(2));
    const mbt_spatial_acceleration A = mbt_spatial_acceleration_from_array(V.coeffs);
    const mbt_spatial_momentum L = mbt_spatial_inertia_mul_velocity(&M_SP, &V);
    const mbt_spatial_force F = mbt_spatial_inertia_mul_acceleration(&M_SP, &A);
    for (int r = 0; r < 6; ++r) {
      double s = 0;
      for (int k = 0; k < 6; ++k) s += M6[r][k] * V.coeffs[k];
      assert_near(L.coeffs[r], s, 1e-13);
      assert_near(F.coeffs[r], s, 1e-13);
      for (int k = 0; k < 6; ++k) assert_near(M6[r][k], M6[k][r], 1e-15); /* symmetric */
    }
    /* l = m·v_Scm: the linear momentum is the mass times the center of mass velocity */
    const mbt_spatial_velocity V_Scm = mbt_spatial_velocity_shift(&V, M_SP.p_PScm_E);
    assert_true(mbt_vec3_is_near(L.l, mbt_vec3_scale(V_Scm.v, M_SP.mass), 1e-13));
    /* re-expression commutes with the product */
    const mbt_mat3 R = mbt_rotation_from_quat(tu_rand_unit_quat());
    const mbt_spatial_inertia M_A = mbt_spatial_inertia_reexpress(&M_SP, &R);
    const mbt_spatial_velocity V_A = mbt_spatial_velocity_reexpress(&R, &V);
    const mbt_spatial_momentum L_A = mbt_spatial_inertia_mul_velocity(&M_A, &V_A);
    const mbt_spatial_momentum L_A_ref = mbt_spatial_momentum_reexpress(&R, &L);
    assert_true(mbt_spatial_momentum_is_approx(&L_A, &L_A_ref, 1e-12));
  }
}

static void test_spatial_inertia_composition(void** state) {
  (void)state;
  /* closed form: two particles of mass 1 and 3 at x = 0 and x = 4: com at x = 3 */
  const mbt_spatial_inertia P1 = mbt_spatial_inertia_point_mass(1, mbt_vec3_zero());
  const mbt_spatial_inertia P2 = mbt_spatial_inertia_point_mass(3, mbt_vec3_make(4, 0, 0));
  const mbt_spatial_inertia P12 = mbt_spatial_inertia_add(&P1, &P2);
  assert_near(P12.mass, 4, 0);
  assert_true(mbt_vec3_is_near(P12.p_PScm_E, mbt_vec3_make(3, 0, 0), 1e-15));
  const mbt_rotational_inertia I12 = mbt_spatial_inertia_calc_rotational_inertia(&P12);
  assert_near(I12.yy, 48, 1e-13); /* 3·4² about the origin */
  assert_near(I12.xx, 0, 0);
  for (int i = 0; i < 100; ++i) {
    const mbt_spatial_inertia M1 = tu_rand_spatial_inertia(), M2 = tu_rand_spatial_inertia();
    const mbt_spatial_inertia M = mbt_spatial_inertia_add(&M1, &M2);
    assert_true(mbt_spatial_inertia_is_physically_valid(&M, NULL, 0));
    /* composing then shifting = shifting both then composing */
    const mbt_vec3 p_PQ = tu_rand_vec3(2);
    const mbt_spatial_inertia MQ = mbt_spatial_inertia_shift(&M, p_PQ);
    const mbt_spatial_inertia M1Q = mbt_spatial_inertia_shift(&M1, p_PQ),
                              M2Q = mbt_spatial_inertia_shift(&M2, p_PQ);
    const mbt_spatial_inertia MQ2 = mbt_spatial_inertia_add(&M1Q, &M2Q);
    assert_spatial_inertia_near(&MQ, &MQ2, 1e-12);
    /* the composite's 6x6 matrix is the sum of the parts' (momentum adds) */
    const mbt_spatial_velocity V = mbt_spatial_velocity_make(tu_rand_vec3(2), tu_rand_vec3(2));
    const mbt_spatial_momentum L1 = mbt_spatial_inertia_mul_velocity(&M1, &V);
    const mbt_spatial_momentum L2 = mbt_spatial_inertia_mul_velocity(&M2, &V);
    const mbt_spatial_momentum L = mbt_spatial_inertia_mul_velocity(&M, &V);
    const mbt_spatial_momentum Lsum = mbt_spatial_momentum_add(&L1, &L2);
    assert_true(mbt_spatial_momentum_is_approx(&L, &Lsum, 1e-12));
    /* about the composite's center of mass, the central inertias add by the parallel axis
     * theorem (an independent route) */
    const mbt_vec3 c = M.p_PScm_E;
    const mbt_spatial_inertia Mc = mbt_spatial_inertia_shift(&M, c);
    const mbt_spatial_inertia M1c = mbt_spatial_inertia_shift(&M1, M1.p_PScm_E);
    const mbt_spatial_inertia M2c = mbt_spatial_inertia_shift(&M2, M2.p_PScm_E);
    const mbt_rotational_inertia I1c = mbt_spatial_inertia_calc_rotational_inertia(&M1c);
    const mbt_rotational_inertia I2c = mbt_spatial_inertia_calc_rotational_inertia(&M2c);
    const mbt_rotational_inertia J1 =
        mbt_rotational_inertia_shift_from_com(&I1c, M1.mass, mbt_vec3_sub(c, M1.p_PScm_E));
    const mbt_rotational_inertia J2 =
        mbt_rotational_inertia_shift_from_com(&I2c, M2.mass, mbt_vec3_sub(c, M2.p_PScm_E));
    const mbt_rotational_inertia J = mbt_rotational_inertia_add(&J1, &J2);
    const mbt_rotational_inertia Ic = mbt_spatial_inertia_calc_rotational_inertia(&Mc);
    assert_rot_near(&Ic, &J, 1e-12);
  }
  /* total mass zero: finite (no division by zero) */
  const mbt_spatial_inertia Z1 = mbt_spatial_inertia_point_mass(0, mbt_vec3_make(1, 0, 0));
  const mbt_spatial_inertia Z2 = mbt_spatial_inertia_point_mass(0, mbt_vec3_make(0, 1, 0));
  const mbt_spatial_inertia Z = mbt_spatial_inertia_add(&Z1, &Z2);
  assert_near(Z.mass, 0, 0);
  assert_true(isfinite(Z.p_PScm_E.v[0]) && isfinite(Z.G_SP_E.xx) && isfinite(Z.G_SP_E.xy));
  assert_true(mbt_spatial_inertia_is_physically_valid(&Z, NULL, 0));
  /* adding a massless body changes nothing */
  const mbt_spatial_inertia M1 = tu_rand_spatial_inertia();
  const mbt_spatial_inertia M1z = mbt_spatial_inertia_add(&M1, &Z1);
  assert_spatial_inertia_near(&M1z, &M1, 1e-15);
}

static void test_articulated_body_inertia(void** state) {
  (void)state;
  for (int i = 0; i < 100; ++i) {
    const mbt_spatial_inertia M_SP = tu_rand_spatial_inertia();
    const mbt_articulated_body_inertia P = mbt_articulated_body_inertia_from_spatial_inertia(&M_SP);
    /* P·A = M·A */
    const mbt_spatial_acceleration A =
        mbt_spatial_acceleration_make(tu_rand_vec3(2), tu_rand_vec3(2));
    const mbt_spatial_force F1 = mbt_articulated_body_inertia_mul_acceleration(&P, &A);
    const mbt_spatial_force F2 = mbt_spatial_inertia_mul_acceleration(&M_SP, &A);
    assert_true(mbt_spatial_force_is_approx(&F1, &F2, 1e-13));
    /* the ABI shift equals the spatial inertia shift */
    const mbt_vec3 p_PQ = tu_rand_vec3(2);
    const mbt_articulated_body_inertia PQ = mbt_articulated_body_inertia_shift(&P, p_PQ);
    const mbt_spatial_inertia M_SQ = mbt_spatial_inertia_shift(&M_SP, p_PQ);
    const mbt_articulated_body_inertia PQ_ref =
        mbt_articulated_body_inertia_from_spatial_inertia(&M_SQ);
    assert_true(mbt_articulated_body_inertia_is_near(&PQ, &PQ_ref, 1e-12));
    /* and is a congruence: the power of F = P·A is the same at P and at Q for a rigid
     * motion (A shifted with zero angular velocity, F shifted as a force) */
    const mbt_spatial_acceleration AQ =
        mbt_spatial_acceleration_shift_with_zero_angular_velocity(&A, p_PQ);
    const mbt_spatial_force FQ = mbt_articulated_body_inertia_mul_acceleration(&PQ, &AQ);
    const mbt_spatial_force FQ_ref = mbt_spatial_force_shift(&F1, p_PQ);
    assert_true(mbt_spatial_force_is_approx(&FQ, &FQ_ref, 1e-12));
    /* shift back */
    const mbt_articulated_body_inertia Pb =
        mbt_articulated_body_inertia_shift(&PQ, mbt_vec3_neg(p_PQ));
    assert_true(mbt_articulated_body_inertia_is_near(&Pb, &P, 1e-12));
    assert_false(mbt_articulated_body_inertia_is_near(&PQ, &P, 1e-6));
    /* re-expression equals the spatial inertia re-expression */
    const mbt_mat3 R = mbt_rotation_from_quat(tu_rand_unit_quat());
    const mbt_articulated_body_inertia PA = mbt_articulated_body_inertia_reexpress(&P, &R);
    const mbt_spatial_inertia M_A = mbt_spatial_inertia_reexpress(&M_SP, &R);
    const mbt_articulated_body_inertia PA_ref =
        mbt_articulated_body_inertia_from_spatial_inertia(&M_A);
    assert_true(mbt_articulated_body_inertia_is_near(&PA, &PA_ref, 1e-12));
    /* add / sub match the spatial inertia composition */
    const mbt_spatial_inertia M2 = tu_rand_spatial_inertia();
    const mbt_articulated_body_inertia P2 = mbt_articulated_body_inertia_from_spatial_inertia(&M2);
    const mbt_articulated_body_inertia S = mbt_articulated_body_inertia_add(&P, &P2);
    const mbt_spatial_inertia Msum = mbt_spatial_inertia_add(&M_SP, &M2);
    const mbt_articulated_body_inertia S_ref =
        mbt_articulated_body_inertia_from_spatial_inertia(&Msum);
    assert_true(mbt_articulated_body_inertia_is_near(&S, &S_ref, 1e-12));
    const mbt_articulated_body_inertia D = mbt_articulated_body_inertia_sub(&S, &P2);
    assert_true(mbt_articulated_body_inertia_is_near(&D, &P, 1e-13));
  }
  const mbt_articulated_body_inertia Z = mbt_articulated_body_inertia_zero();
  const mbt_spatial_acceleration A = mbt_spatial_acceleration_make6(1, 2, 3, 4, 5, 6);
  const mbt_spatial_force F = mbt_articulated_body_inertia_mul_acceleration(&Z, &A);
  const mbt_spatial_force F0 = mbt_spatial_force_zero();
  assert_true(mbt_spatial_force_is_approx(&F, &F0, 0));
  /* the 6x6 layout: [[I, m[c]ₓ], [−m[c]ₓ, m·1]] */
  const mbt_spatial_inertia Mp = mbt_spatial_inertia_point_mass(2, mbt_vec3_make(1, 0, 0));
  const mbt_articulated_body_inertia Pp = mbt_articulated_body_inertia_from_spatial_inertia(&Mp);
  assert_near(Pp.m[3][3], 2, 0);
  assert_near(Pp.m[0][3], 0, 0);
  assert_near(Pp.m[1][5], -2, 0); /* m·[c]ₓ(1,2) = −m·c_x */
  assert_near(Pp.m[5][1], -2, 0); /* −m·[c]ₓ(2,1) = −m·c_x */
  assert_near(Pp.m[2][4], 2, 0);
}

int main(void) {
  tu_seed(0xD1B54A32D192ED03ull);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rotational_inertia_basics),
      cmocka_unit_test(test_parallel_axis_and_reexpress),
      cmocka_unit_test(test_principal_moments),
      cmocka_unit_test(test_solids),
      cmocka_unit_test(test_validity_messages),
      cmocka_unit_test(test_spatial_inertia),
      cmocka_unit_test(test_spatial_inertia_composition),
      cmocka_unit_test(test_articulated_body_inertia),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
