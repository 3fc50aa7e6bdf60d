/* Collision detection kernels and broad phase (src/contact/contact_internal.h):
 *   - closed-form depths, normals and points for sphere, capsule, box and cylinder against a
 *     half space and against each other, in both argument orders (the normal flips);
 *   - box–box: a box resting on a box gives its four corners, one turned by 45° the octagon's
 *     eight, crossed edges one point along the edges' common normal;
 *   - a vertex set against a half space, a sphere and a box;
 *   - for random poses of every convex pair: moving A along the normal by the deepest depth
 *     separates the shapes, and a pair reported apart has no point of A inside B (sampled);
 *   - the sweep-and-prune broad phase reports exactly the overlapping pairs of random boxes. */
#include "support/test_util.h"

#include "contact/contact_internal.h"

static mbt_transform at(mbt_real x, mbt_real y, mbt_real z) {
  const mbt_mat3 I = mbt_mat3_identity();
  return mbt_transform_make(&I, mbt_vec3_make(x, y, z));
}

static mbt_transform rot_at(const mbt_mat3* R, mbt_real x, mbt_real y, mbt_real z) {
  return mbt_transform_make(R, mbt_vec3_make(x, y, z));
}

static mbt__contact_point one_contact(const mbt__cshape* a, const mbt_transform* X_WA, const mbt__cshape* b,
                                      const mbt_transform* X_WB) {
  mbt__contact_point c[MBT__MAX_PAIR_CONTACTS];
  assert_int_equal(mbt__collide(a, X_WA, b, X_WB, 0, c), 1);
  return c[0];
}

static void test_sphere_pairs(void** state) {
  (void)state;
  const mbt__cshape s1 = mbt__cshape_sphere(0.5), s2 = mbt__cshape_sphere(0.3);
  const mbt_transform XA = at(0, 0, 0.7), XB = at(0, 0, 0);
  mbt__contact_point c = one_contact(&s1, &XA, &s2, &XB);
  assert_near(c.depth, 0.1, 1e-14);
  tu_assert_vec3_near(c.nhat_BA_W, mbt_vec3_make(0, 0, 1), 1e-14);
  tu_assert_vec3_near(c.p_WC, mbt_vec3_make(0, 0, 0.25), 1e-14); /* between z = 0.2 and 0.3 */
  c = one_contact(&s2, &XB, &s1, &XA);
  tu_assert_vec3_near(c.nhat_BA_W, mbt_vec3_make(0, 0, -1), 1e-14);
  const mbt_transform Xfar = at(0, 0.81, 0);
  mbt__contact_point none[MBT__MAX_PAIR_CONTACTS];
  assert_int_equal(mbt__collide(&s1, &Xfar, &s2, &XB, 0, none), 0);
  /* Against a half space tilted by 30° about x: its normal is R·z. */
  const mbt_mat3 R = mbt_rotation_x(TU_PI / 6);
  const mbt__cshape H = mbt__cshape_half_space();
  const mbt_transform XH = rot_at(&R, 1, 2, 3);
  const mbt_vec3 n = mbt_vec3_make(R.m[0][2], R.m[1][2], R.m[2][2]);
  const mbt_transform XS = at(1 + 0.4 * n.v[0], 2 + 0.4 * n.v[1], 3 + 0.4 * n.v[2]);
  c = one_contact(&s1, &XS, &H, &XH);
  assert_near(c.depth, 0.1, 1e-14);
  /* 1 mm above the plane: nothing, or a speculative point of depth −1 mm within a 2 mm margin. */
  const mbt_transform Xabove = at(1 + 0.501 * n.v[0], 2 + 0.501 * n.v[1], 3 + 0.501 * n.v[2]);
  assert_int_equal(mbt__collide(&s1, &Xabove, &H, &XH, 0, none), 0);
  assert_int_equal(mbt__collide(&s1, &Xabove, &H, &XH, 2e-3, none), 1);
  assert_near(none[0].depth, -1e-3, 1e-14);
  tu_assert_vec3_near(c.nhat_BA_W, n, 1e-14);
  tu_assert_vec3_near(c.p_WC, mbt_vec3_axpy(XH.p, -0.05, n), 1e-14);
}

static void test_sphere_box(void** state) {
  (void)state;
  const mbt__cshape S = mbt__cshape_sphere(0.2), B = mbt__cshape_box(mbt_vec3_make(0.5, 0.3, 0.1));
  const mbt_mat3 R = mbt_rotation_z(0.7);
  const mbt_transform XB = rot_at(&R, 0.1, -0.2, 0.3);
  /* Above the top face, off centre: normal +z, depth 0.05. */
  mbt_transform XS = mbt_transform_compose(&XB, &(mbt_transform){mbt_mat3_identity(), {{0.3, 0.1, 0.25}}});
  mbt__contact_point c = one_contact(&S, &XS, &B, &XB);
  assert_near(c.depth, 0.05, 1e-14);
  tu_assert_vec3_near(c.nhat_BA_W, mbt_vec3_make(0, 0, 1), 1e-14);
  /* Beyond a corner: normal along the diagonal from the corner. */
  const mbt_vec3 d = mbt_vec3_scale(mbt_vec3_make(1, 1, 1), 0.1 / mbt_sqrt(3));
  XS = mbt_transform_compose(&XB, &(mbt_transform){mbt_mat3_identity(), mbt_vec3_add(mbt_vec3_make(0.5, 0.3, 0.1), d)});
  c = one_contact(&S, &XS, &B, &XB);
  assert_near(c.depth, 0.1, 1e-14);
  tu_assert_vec3_near(c.nhat_BA_W, mbt_mat3_mul_vec(&R, mbt_vec3_scale(d, 10)), 1e-13);
  /* Centre inside, nearest the +y face (0.05 inside it): depth r + 0.05. */
  XS = mbt_transform_compose(&XB, &(mbt_transform){mbt_mat3_identity(), {{0.2, 0.25, 0}}});
  c = one_contact(&S, &XS, &B, &XB);
  assert_near(c.depth, 0.25, 1e-14);
  tu_assert_vec3_near(c.nhat_BA_W, mbt_mat3_mul_vec(&R, mbt_vec3_make(0, 1, 0)), 1e-14);
  /* Box first: the normal flips. */
  c = one_contact(&B, &XB, &S, &XS);
  tu_assert_vec3_near(c.nhat_BA_W, mbt_mat3_mul_vec(&R, mbt_vec3_make(0, -1, 0)), 1e-14);
}

static void test_capsules(void** state) {
  (void)state;
  const mbt__cshape C = mbt__cshape_capsule(0.1, 0.5), H = mbt__cshape_half_space();
  const mbt_transform XH = at(0, 0, 0);
  mbt__contact_point c[MBT__MAX_PAIR_CONTACTS];
  /* Lying (axis along x) 0.02 into the ground: the two end spheres touch. */
  const mbt_mat3 Ry = mbt_rotation_y(TU_PI / 2);
  const mbt_transform Xlying = rot_at(&Ry, 0, 0, 0.08);
  assert_int_equal(mbt__collide(&C, &Xlying, &H, &XH, 0, c), 2);
  for (int i = 0; i < 2; ++i) {
    assert_near(c[i].depth, 0.02, 1e-14);
    assert_near(mbt_abs(c[i].p_WC.v[0]), 0.5, 1e-14);
    assert_near(c[i].p_WC.v[2], -0.01, 1e-14);
  }
  /* Standing: one point under the lower end. */
  const mbt_transform Xstand = at(0, 0, 0.59);
  assert_int_equal(mbt__collide(&C, &Xstand, &H, &XH, 0, c), 1);
  assert_near(c[0].depth, 0.01, 1e-14);
  /* Two capsules crossing at right angles, axes 0.15 apart: one point, depth 0.05. */
  const mbt_mat3 Rx = mbt_rotation_x(TU_PI / 2);
  const mbt_transform X1 = at(0, 0, 0), X2 = rot_at(&Rx, 0.2, 0, 0.15);
  const mbt_transform X1y = rot_at(&Ry, 0, 0, 0);
  assert_int_equal(mbt__collide(&C, &X2, &C, &X1y, 0, c), 1);
  assert_near(c[0].depth, 0.05, 1e-14);
  tu_assert_vec3_near(c[0].nhat_BA_W, mbt_vec3_make(0, 0, 1), 1e-14);
  tu_assert_vec3_near(c[0].p_WC, mbt_vec3_make(0.2, 0, 0.075), 1e-14);
  /* Parallel, overlapping by half their length: two points at the ends of the overlap. */
  const mbt_transform X3 = at(0, 0.15, 0.5);
  assert_int_equal(mbt__collide(&C, &X3, &C, &X1, 0, c), 2);
  for (int i = 0; i < 2; ++i) {
    assert_near(c[i].depth, 0.05, 1e-14);
    tu_assert_vec3_near(c[i].nhat_BA_W, mbt_vec3_make(0, 1, 0), 1e-14);
  }
  /* A capsule lying on a box's top face: two points; tilted: the lower end only. */
  const mbt__cshape B = mbt__cshape_box(mbt_vec3_make(1, 1, 0.2));
  const mbt_transform XB = at(0, 0, -0.2), Xon = rot_at(&Ry, 0.1, 0, 0.09);
  assert_int_equal(mbt__collide(&C, &Xon, &B, &XB, 0, c), 2);
  assert_near(c[0].depth, 0.01, 1e-13);
  assert_near(c[1].depth, 0.01, 1e-13);
  const mbt_mat3 Rt = mbt_rotation_y(TU_PI / 3);
  const mbt_transform Xtilt = rot_at(&Rt, 0, 0, 0.5 * mbt_cos(TU_PI / 3) + 0.07);
  assert_int_equal(mbt__collide(&C, &Xtilt, &B, &XB, 0, c), 1);
  assert_near(c[0].depth, 0.03, 1e-9);
  tu_assert_vec3_near(c[0].nhat_BA_W, mbt_vec3_make(0, 0, 1), 1e-9);
}

static void test_box_half_space_and_cylinder(void** state) {
  (void)state;
  const mbt__cshape B = mbt__cshape_box(mbt_vec3_make(0.2, 0.1, 0.05)), H = mbt__cshape_half_space();
  const mbt_transform XH = at(0, 0, 0), XB = at(1, 1, 0.049);
  mbt__contact_point c[MBT__MAX_PAIR_CONTACTS];
  assert_int_equal(mbt__collide(&B, &XB, &H, &XH, 0, c), 4);
  for (int i = 0; i < 4; ++i) {
    assert_near(c[i].depth, 0.001, 1e-14);
    assert_near(mbt_abs(c[i].p_WC.v[0] - 1), 0.2, 1e-14);
    assert_near(c[i].p_WC.v[2], -0.0005, 1e-14);
  }
  /* Tilted about x by 0.3 rad: one corner edge (two corners) below. */
  const mbt_mat3 R = mbt_rotation_x(0.3);
  const mbt_real zlow = 0.1 * mbt_sin(0.3) + 0.05 * mbt_cos(0.3);
  const mbt_transform Xt = rot_at(&R, 0, 0, zlow - 0.002);
  assert_int_equal(mbt__collide(&B, &Xt, &H, &XH, 0, c), 2);
  assert_near(c[0].depth, 0.002, 1e-14);
  /* Cylinder standing on its cap: four rim points; lying: two (one per cap). */
  const mbt__cshape C = mbt__cshape_cylinder(0.1, 0.3);
  const mbt_transform Xs = at(0, 0, 0.299);
  assert_int_equal(mbt__collide(&C, &Xs, &H, &XH, 0, c), 4);
  for (int i = 0; i < 4; ++i) {
    assert_near(c[i].depth, 0.001, 1e-14);
    assert_near(mbt_sqrt(c[i].p_WC.v[0] * c[i].p_WC.v[0] + c[i].p_WC.v[1] * c[i].p_WC.v[1]), 0.1, 1e-14);
  }
  const mbt_mat3 Ry = mbt_rotation_y(TU_PI / 2);
  const mbt_transform Xl = rot_at(&Ry, 0, 0, 0.098);
  assert_int_equal(mbt__collide(&C, &Xl, &H, &XH, 0, c), 2);
  assert_near(c[0].depth, 0.002, 1e-14);
  assert_near(mbt_abs(c[0].p_WC.v[0]), 0.3, 1e-14);
  assert_false(mbt__collide_supported(MBT__CSHAPE_CYLINDER, MBT__CSHAPE_BOX));
  assert_true(mbt__collide_supported(MBT__CSHAPE_HALF_SPACE, MBT__CSHAPE_CYLINDER));
}

static void test_box_box(void** state) {
  (void)state;
  const mbt__cshape big = mbt__cshape_box(mbt_vec3_make(1, 1, 0.5)), small = mbt__cshape_box(mbt_vec3_make(0.2, 0.2, 0.2));
  const mbt_transform XB = at(0, 0, -0.5);
  mbt__contact_point c[MBT__MAX_PAIR_CONTACTS];
  /* Small box resting on the big one, 1 mm in: its four bottom corners, normal +z. */
  const mbt_transform XA = at(0.3, -0.1, 0.199);
  assert_int_equal(mbt__collide(&small, &XA, &big, &XB, 0, c), 4);
  for (int i = 0; i < 4; ++i) {
    assert_near(c[i].depth, 0.001, 1e-13);
    tu_assert_vec3_near(c[i].nhat_BA_W, mbt_vec3_make(0, 0, 1), 1e-14);
    assert_near(mbt_abs(c[i].p_WC.v[0] - 0.3), 0.2, 1e-13);
  }
  /* Equal cubes, the upper turned by 45° about z: the clipped face is an octagon. */
  const mbt_mat3 Rz = mbt_rotation_z(TU_PI / 4);
  const mbt_transform XL = at(0, 0, 0), XU = rot_at(&Rz, 0, 0, 0.399);
  assert_int_equal(mbt__collide(&small, &XU, &small, &XL, 0, c), 8);
  for (int i = 0; i < 8; ++i) {
    assert_near(c[i].depth, 0.001, 1e-13);
    tu_assert_vec3_near(c[i].nhat_BA_W, mbt_vec3_make(0, 0, 1), 1e-13);
  }
  /* Crossed edges: A turned so its lowest edge lies along y, B so its highest lies along x.
   * Each edge is at half-diagonal h = 0.2·√2 from its centre; 1 mm overlap. */
  const mbt_mat3 Ra = mbt_rotation_y(TU_PI / 4), Rb = mbt_rotation_x(TU_PI / 4);
  const mbt_real h = 0.2 * mbt_sqrt(2);
  const mbt_transform Xa = rot_at(&Ra, 0, 0, 2 * h - 0.001), Xb = rot_at(&Rb, 0, 0, 0);
  assert_int_equal(mbt__collide(&small, &Xa, &small, &Xb, 0, c), 1);
  assert_near(c[0].depth, 0.001, 1e-12);
  tu_assert_vec3_near(c[0].nhat_BA_W, mbt_vec3_make(0, 0, 1), 1e-12);
  tu_assert_vec3_near(c[0].p_WC, mbt_vec3_make(0, 0, h - 0.0005), 1e-12);
  /* Apart; within a 2 cm margin, four speculative corners 1 cm away. */
  const mbt_transform Xfar = at(0, 0, 0.41);
  assert_int_equal(mbt__collide(&small, &Xfar, &small, &XL, 0, c), 0);
  assert_int_equal(mbt__collide(&small, &Xfar, &small, &XL, 0.02, c), 4);
  assert_near(c[0].depth, -0.01, 1e-13);
}

static void test_points(void** state) {
  (void)state;
  const mbt_vec3 p_GV[5] = {{{0, 0, -0.1}}, {{0.05, 0, -0.099}}, {{0, 0, 0.1}}, {{0.1, 0.1, 0}}, {{-0.05, 0, -0.098}}};
  const mbt__cshape P = mbt__cshape_points(p_GV, 5), H = mbt__cshape_half_space();
  assert_near(P.bound_radius, mbt_sqrt(0.02), 1e-15);
  const mbt_transform XP = at(0, 0, 0.0985), XH = at(0, 0, 0);
  mbt__contact_point c[MBT__MAX_PAIR_CONTACTS];
  assert_int_equal(mbt__collide(&P, &XP, &H, &XH, 0, c), 2); /* the vertices at −0.1 and −0.099 */
  assert_near(mbt_max(c[0].depth, c[1].depth), 0.0015, 1e-15);
  assert_near(mbt_min(c[0].depth, c[1].depth), 0.0005, 1e-15);
  /* Half space first: the normal flips. */
  assert_int_equal(mbt__collide(&H, &XH, &P, &XP, 0, c), 2);
  tu_assert_vec3_near(c[0].nhat_BA_W, mbt_vec3_make(0, 0, -1), 1e-15);
  /* Against a sphere below: only the lowest vertex is inside, 1 mm. */
  const mbt__cshape S = mbt__cshape_sphere(0.2);
  const mbt_transform XS = at(0, 0, -0.2005);
  assert_int_equal(mbt__collide(&P, &XP, &S, &XS, 0, c), 1);
  assert_near(c[0].depth, 0.001, 1e-14);
  tu_assert_vec3_near(c[0].nhat_BA_W, mbt_vec3_make(0, 0, 1), 1e-15);
  /* Against a box whose top is z = 0: the two lowest vertices, the top face's normal. */
  const mbt__cshape B = mbt__cshape_box(mbt_vec3_make(1, 1, 0.05));
  const mbt_transform XB = at(0, 0, -0.05);
  assert_int_equal(mbt__collide(&P, &XP, &B, &XB, 0, c), 2);
  assert_near(mbt_max(c[0].depth, c[1].depth), 0.0015, 1e-14);
  tu_assert_vec3_near(c[0].nhat_BA_W, mbt_vec3_make(0, 0, 1), 1e-15);
  assert_false(mbt__collide_supported(MBT__CSHAPE_POINTS, MBT__CSHAPE_POINTS));
}

/* ---- random poses: the normal and depth are a separating translation ------------------ */
static mbt__cshape random_convex(int k) {
  switch (k % 3) {
    case 0: return mbt__cshape_sphere(tu_uniform(0.1, 0.5));
    case 1: return mbt__cshape_capsule(tu_uniform(0.05, 0.3), tu_uniform(0.1, 0.5));
    default: return mbt__cshape_box(mbt_vec3_make(tu_uniform(0.1, 0.5), tu_uniform(0.1, 0.5), tu_uniform(0.1, 0.5)));
  }
}

/* Signed distance from x to shape s at X (negative inside), formed here independently. */
static double signed_distance(const mbt__cshape* s, const mbt_transform* X, mbt_vec3 x) {
  const mbt_vec3 p = mbt_mat3_tmul_vec(&X->R, mbt_vec3_sub(x, X->p));
  if (s->type == MBT__CSHAPE_SPHERE) return mbt_vec3_norm(p) - s->radius;
  if (s->type == MBT__CSHAPE_CAPSULE) {
    const double z = fmax(-s->half_length, fmin(s->half_length, p.v[2]));
    return mbt_vec3_norm(mbt_vec3_make(p.v[0], p.v[1], p.v[2] - z)) - s->radius;
  }
  double out = 0, in = -1e300;
  for (int i = 0; i < 3; ++i) {
    const double d = fabs(p.v[i]) - s->half_size.v[i];
    out += d > 0 ? d * d : 0;
    in = fmax(in, d);
  }
  return in > 0 ? sqrt(out) : in;
}

/* A point of A deeper than `margin` inside B, searched on random samples of A. */
static bool sampled_overlap(const mbt__cshape* a, const mbt_transform* XA, const mbt__cshape* b,
                            const mbt_transform* XB, double margin) {
  for (int k = 0; k < 4000; ++k) {
    const mbt_vec3 x = mbt_vec3_add(XA->p, tu_rand_vec3(a->bound_radius));
    if (signed_distance(a, XA, x) <= 0 && signed_distance(b, XB, x) < -margin) return true;
  }
  return false;
}

static void test_random_convex_pairs(void** state) {
  (void)state;
  int touching = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const mbt__cshape a = random_convex(trial), b = random_convex(trial / 3);
    mbt_transform XA = tu_rand_transform(0.5);
    const mbt_transform XB = tu_rand_transform(0.5);
    mbt__contact_point c[MBT__MAX_PAIR_CONTACTS];
    const int n = mbt__collide(&a, &XA, &b, &XB, 0, c);
    if (n == 0) {
      assert_false(sampled_overlap(&a, &XA, &b, &XB, 1e-9));
      continue;
    }
    ++touching;
    int deepest = 0;
    for (int i = 0; i < n; ++i) {
      assert_true(c[i].depth > 0);
      assert_near(mbt_vec3_norm(c[i].nhat_BA_W), 1, 1e-12);
      if (c[i].depth > c[deepest].depth) deepest = i;
    }
    /* The deepest contact is the minimum translation (for boxes the SAT axis): moving A out
     * along n by it (plus 1e-6) leaves no overlap. Stated exception: a capsule whose axis
     * enters a box gets the nearest face's normal at its deepest axis point, which need not
     * free the rest of the capsule; a time step never goes that deep. */
    const bool capsule_box = (a.type == MBT__CSHAPE_CAPSULE && b.type == MBT__CSHAPE_BOX) ||
                             (b.type == MBT__CSHAPE_CAPSULE && a.type == MBT__CSHAPE_BOX);
    const double r = a.type == MBT__CSHAPE_CAPSULE ? a.radius : b.radius;
    if (capsule_box && c[deepest].depth > r) continue;
    XA.p = mbt_vec3_axpy(XA.p, c[deepest].depth + 1e-6, c[deepest].nhat_BA_W);
    if (sampled_overlap(&a, &XA, &b, &XB, 1e-9)) fail_msg("trial %d: types %d %d, %d contacts, depth %g", trial, a.type, b.type, n, c[deepest].depth);
  }
  assert_true(touching > 100);
}

/* ---- broad phase ---------------------------------------------------------------------- */
typedef struct {
  int count;
  unsigned char seen[40][40];
} pair_set;

static void record(int i, int j, void* user) {
  pair_set* s = user;
  assert_true(i < j);
  assert_int_equal(s->seen[i][j], 0);
  s->seen[i][j] = 1;
  ++s->count;
}

static bool boxes_overlap(const mbt__aabb* a, const mbt__aabb* b) {
  for (int k = 0; k < 3; ++k)
    if (a->lo.v[k] > b->hi.v[k] || b->lo.v[k] > a->hi.v[k]) return false;
  return true;
}

static void test_sweep_and_prune(void** state) {
  (void)state;
  enum { N = 40 };
  mbt__cshape shapes[N];
  mbt_transform X[N];
  mbt__aabb box[N];
  int order[N];
  for (int i = 0; i < N; ++i) {
    shapes[i] = random_convex(i);
    X[i] = tu_rand_transform(2);
    order[i] = i;
  }
  for (int round = 0; round < 3; ++round) { /* moving a little between rounds */
    for (int i = 0; i < N; ++i) {
      X[i].p = mbt_vec3_add(X[i].p, tu_rand_vec3(0.3));
      box[i] = mbt__cshape_aabb(&shapes[i], &X[i]);
      /* Every sampled point of the shape lies in its box. */
      for (int k = 0; k < 200; ++k) {
        const mbt_vec3 x = mbt_vec3_add(X[i].p, tu_rand_vec3(shapes[i].bound_radius));
        if (signed_distance(&shapes[i], &X[i], x) > 0) continue;
        for (int d = 0; d < 3; ++d) assert_true(x.v[d] >= box[i].lo.v[d] - 1e-12 && x.v[d] <= box[i].hi.v[d] + 1e-12);
      }
    }
    pair_set s;
    memset(&s, 0, sizeof s);
    const int n = mbt__sweep_and_prune(box, N, order, record, &s);
    assert_int_equal(n, s.count);
    int expected = 0;
    for (int i = 0; i < N; ++i)
      for (int j = i + 1; j < N; ++j) {
        const bool o = boxes_overlap(&box[i], &box[j]);
        expected += o;
        assert_int_equal(s.seen[i][j], o);
      }
    assert_int_equal(n, expected);
    assert_true(expected > 0);
    for (int i = 1; i < N; ++i) assert_true(box[order[i - 1]].lo.v[0] <= box[order[i]].lo.v[0]);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sphere_pairs),      cmocka_unit_test(test_sphere_box),
      cmocka_unit_test(test_capsules),          cmocka_unit_test(test_box_half_space_and_cylinder),
      cmocka_unit_test(test_box_box),           cmocka_unit_test(test_points),
      cmocka_unit_test(test_random_convex_pairs), cmocka_unit_test(test_sweep_and_prune),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
