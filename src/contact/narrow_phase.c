/* narrow_phase.c: contact points of two shapes at world poses (contact_internal.h).
 *
 * Exact for sphere, capsule and box against a half space and against each other (box–box by
 * the separating-axis test over the 15 axes and clipping of the incident face against the
 * reference face [Ericson, Real-Time Collision Detection, 2005, §4.4.1, §5.2.1; Gregorius,
 * "The separating axis test between convex polyhedra", GDC 2013]); a cylinder against a half
 * space (four rim points per cap); a vertex set against a sphere, capsule, box or half
 * space (each vertex inside the other shape, the deepest MBT__MAX_VERTEX_CONTACTS kept).
 * Every other pair (cylinder against a non-plane, vertex set against a vertex set or a
 * cylinder, two half spaces) gives no contact: mbt__collide_supported tells. */
#include "contact/contact_internal.h"

/* ---- shapes ---------------------------------------------------------------------------- */
static mbt__cshape cshape(mbt__cshape_type type) {
  mbt__cshape s;
  s.type = type;
  s.radius = 0;
  s.half_length = 0;
  s.half_size = mbt_vec3_zero();
  s.points = NULL;
  s.num_points = 0;
  s.bound_radius = 0;
  return s;
}

mbt__cshape mbt__cshape_sphere(mbt_real radius) {
  mbt__cshape s = cshape(MBT__CSHAPE_SPHERE);
  s.radius = s.bound_radius = radius;
  return s;
}

mbt__cshape mbt__cshape_capsule(mbt_real radius, mbt_real half_length) {
  mbt__cshape s = cshape(MBT__CSHAPE_CAPSULE);
  s.radius = radius;
  s.half_length = half_length;
  s.bound_radius = radius + half_length;
  return s;
}

mbt__cshape mbt__cshape_box(mbt_vec3 half_size) {
  mbt__cshape s = cshape(MBT__CSHAPE_BOX);
  s.half_size = half_size;
  s.bound_radius = mbt_vec3_norm(half_size);
  return s;
}

mbt__cshape mbt__cshape_cylinder(mbt_real radius, mbt_real half_length) {
  mbt__cshape s = cshape(MBT__CSHAPE_CYLINDER);
  s.radius = radius;
  s.half_length = half_length;
  s.bound_radius = mbt_sqrt(radius * radius + half_length * half_length);
  return s;
}

mbt__cshape mbt__cshape_half_space(void) {
  mbt__cshape s = cshape(MBT__CSHAPE_HALF_SPACE);
  s.bound_radius = INFINITY;
  return s;
}

mbt__cshape mbt__cshape_points(const mbt_vec3* p_GV, int num_points) {
  mbt__cshape s = cshape(MBT__CSHAPE_POINTS);
  s.points = p_GV;
  s.num_points = num_points;
  for (int i = 0; i < num_points; ++i) s.bound_radius = mbt_max(s.bound_radius, mbt_vec3_norm(p_GV[i]));
  return s;
}

/* ---- small geometry -------------------------------------------------------------------- */
static mbt_vec3 column(const mbt_mat3* R, int j) { return mbt_vec3_make(R->m[0][j], R->m[1][j], R->m[2][j]); }

static mbt_real clamp(mbt_real x, mbt_real lo, mbt_real hi) { return mbt_lt(x, lo) ? lo : (mbt_lt(hi, x) ? hi : x); }

/* A contact from the deepest point of A (pA) and of B (pB) along n (from B into A). */
static mbt__contact_point make_contact(mbt_vec3 pA, mbt_vec3 pB, mbt_vec3 n, mbt_real depth) {
  mbt__contact_point c;
  c.p_WC = mbt_vec3_scale(mbt_vec3_add(pA, pB), 0.5);
  c.nhat_BA_W = n;
  c.depth = depth;
  return c;
}

/* The capsule's or cylinder's axis segment in W: p0 = X_WG·(0, 0, −ℓ), p1 = X_WG·(0, 0, ℓ). */
static void axis_segment(const mbt__cshape* s, const mbt_transform* X_WG, mbt_vec3* p0, mbt_vec3* p1) {
  const mbt_vec3 a = mbt_vec3_scale(column(&X_WG->R, 2), s->half_length);
  *p0 = mbt_vec3_sub(X_WG->p, a);
  *p1 = mbt_vec3_add(X_WG->p, a);
}

/* The point of segment [p0, p1] closest to q. */
static mbt_vec3 closest_on_segment(mbt_vec3 p0, mbt_vec3 p1, mbt_vec3 q) {
  const mbt_vec3 d = mbt_vec3_sub(p1, p0);
  const mbt_real dd = mbt_vec3_dot(d, d);
  if (!mbt_lt(0, dd)) return p0;
  return mbt_vec3_axpy(p0, clamp(mbt_vec3_dot(mbt_vec3_sub(q, p0), d) / dd, 0, 1), d);
}

/* Closest points c1 on [p1, q1] and c2 on [p2, q2] [Ericson 2005, §5.1.9]. */
void mbt__closest_segment_segment(mbt_vec3 p1, mbt_vec3 q1, mbt_vec3 p2, mbt_vec3 q2, mbt_vec3* c1,
                                    mbt_vec3* c2) {
  const mbt_vec3 d1 = mbt_vec3_sub(q1, p1), d2 = mbt_vec3_sub(q2, p2), r = mbt_vec3_sub(p1, p2);
  const mbt_real a = mbt_vec3_dot(d1, d1), e = mbt_vec3_dot(d2, d2), f = mbt_vec3_dot(d2, r);
  const mbt_real eps = 1e-14;
  mbt_real s = 0, t = 0;
  if (a <= eps && e <= eps) {
    s = t = 0;
  } else if (a <= eps) {
    t = clamp(f / e, 0, 1);
  } else {
    const mbt_real c = mbt_vec3_dot(d1, r);
    if (e <= eps) {
      s = clamp(-c / a, 0, 1);
    } else {
      const mbt_real b = mbt_vec3_dot(d1, d2), denom = a * e - b * b;
      s = denom > eps * a * e ? clamp((b * f - c * e) / denom, 0, 1) : 0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = clamp(-c / a, 0, 1);
      } else if (t > 1) {
        t = 1;
        s = clamp((b - c) / a, 0, 1);
      }
    }
  }
  *c1 = mbt_vec3_axpy(p1, s, d1);
  *c2 = mbt_vec3_axpy(p2, t, d2);
}

/* Appends c unless a contact at (nearly) the same point is already there. */
static int append_unique(mbt__contact_point* out, int n, mbt__contact_point c, mbt_real tol) {
  for (int i = 0; i < n; ++i)
    if (mbt_vec3_norm(mbt_vec3_sub(out[i].p_WC, c.p_WC)) <= tol) {
      if (mbt_lt(out[i].depth, c.depth)) out[i] = c;
      return n;
    }
  if (n < MBT__MAX_PAIR_CONTACTS) out[n++] = c;
  return n;
}

/* ---- a sphere (centre c, radius r) against B: the kernel of spheres, capsules, points ---- */
static int sphere_sphere(mbt_vec3 c, mbt_real r, mbt_vec3 cb, mbt_real rb, mbt_real margin, mbt__contact_point* out) {
  const mbt_vec3 d = mbt_vec3_sub(c, cb);
  const mbt_real dist = mbt_vec3_norm(d);
  if (!mbt_lt(dist, r + rb + margin)) return 0;
  /* Concentric: any direction will do; +z is the stated choice. */
  const mbt_vec3 n = mbt_lt(1e-12 * (r + rb), dist) ? mbt_vec3_scale(d, 1 / dist) : mbt_vec3_make(0, 0, 1);
  out[0] = make_contact(mbt_vec3_axpy(c, -r, n), mbt_vec3_axpy(cb, rb, n), n, r + rb - dist);
  return 1;
}

/* Box B (half sizes e) at X_WB. Outside: the closest surface point; inside: the nearest face. */
static int sphere_box(mbt_vec3 c, mbt_real r, mbt_vec3 e, const mbt_transform* X_WB, mbt_real margin,
                      mbt__contact_point* out) {
  const mbt_vec3 p = mbt_mat3_tmul_vec(&X_WB->R, mbt_vec3_sub(c, X_WB->p));
  mbt_vec3 q = p;
  bool inside = true;
  for (int i = 0; i < 3; ++i) {
    q.v[i] = clamp(p.v[i], -e.v[i], e.v[i]);
    if (q.v[i] != p.v[i]) inside = false;
  }
  mbt_vec3 n_B;
  mbt_real depth;
  if (!inside) {
    const mbt_vec3 d = mbt_vec3_sub(p, q);
    const mbt_real dist = mbt_vec3_norm(d);
    if (!mbt_lt(dist, r + margin)) return 0;
    n_B = mbt_vec3_scale(d, 1 / dist);
    depth = r - dist;
  } else {
    int k = 0;
    for (int i = 1; i < 3; ++i)
      if (e.v[i] - mbt_abs(p.v[i]) < e.v[k] - mbt_abs(p.v[k])) k = i;
    const mbt_real sign = p.v[k] < 0 ? -1 : 1;
    n_B = mbt_vec3_zero();
    n_B.v[k] = sign;
    q.v[k] = sign * e.v[k];
    depth = r + e.v[k] - mbt_abs(p.v[k]);
    if (!mbt_lt(-margin, depth)) return 0; /* a point on the surface */
  }
  const mbt_vec3 n = mbt_mat3_mul_vec(&X_WB->R, n_B);
  const mbt_vec3 qW = mbt_transform_apply(X_WB, q);
  out[0] = make_contact(mbt_vec3_axpy(c, -r, n), qW, n, depth);
  return 1;
}

/* Half space z <= 0 of H at X_WH. */
static int sphere_half_space(mbt_vec3 c, mbt_real r, const mbt_transform* X_WH, mbt_real margin,
                             mbt__contact_point* out) {
  const mbt_vec3 n = column(&X_WH->R, 2);
  const mbt_real height = mbt_vec3_dot(n, mbt_vec3_sub(c, X_WH->p));
  if (!mbt_lt(height, r + margin)) return 0;
  out[0] = make_contact(mbt_vec3_axpy(c, -r, n), mbt_vec3_axpy(c, -height, n), n, r - height);
  return 1;
}

/* A sphere against B of type sphere, capsule, box or half space. */
static int sphere_vs(mbt_vec3 c, mbt_real r, const mbt__cshape* b, const mbt_transform* X_WB, mbt_real margin,
                     mbt__contact_point* out) {
  switch (b->type) {
    case MBT__CSHAPE_SPHERE: return sphere_sphere(c, r, X_WB->p, b->radius, margin, out);
    case MBT__CSHAPE_CAPSULE: {
      mbt_vec3 p0, p1;
      axis_segment(b, X_WB, &p0, &p1);
      return sphere_sphere(c, r, closest_on_segment(p0, p1, c), b->radius, margin, out);
    }
    case MBT__CSHAPE_BOX: return sphere_box(c, r, b->half_size, X_WB, margin, out);
    case MBT__CSHAPE_HALF_SPACE: return sphere_half_space(c, r, X_WB, margin, out);
    default: return 0;
  }
}

/* ---- capsules -------------------------------------------------------------------------- */
/* Signed distance from the point at parameter s of [p0, p1] to box B (negative inside). */
static mbt_real box_signed_distance(mbt_vec3 x, mbt_vec3 e, const mbt_transform* X_WB) {
  const mbt_vec3 p = mbt_mat3_tmul_vec(&X_WB->R, mbt_vec3_sub(x, X_WB->p));
  mbt_vec3 d;
  for (int i = 0; i < 3; ++i) d.v[i] = mbt_abs(p.v[i]) - e.v[i];
  const mbt_vec3 dpos = mbt_vec3_make(mbt_max(d.v[0], 0), mbt_max(d.v[1], 0), mbt_max(d.v[2], 0));
  return mbt_vec3_norm(dpos) + mbt_min(mbt_max(d.v[0], mbt_max(d.v[1], d.v[2])), 0);
}

/* The point of the segment nearest box B: the signed distance to a convex set is convex along
 * the segment, so golden-section search finds its minimum (60 iterations: 0.618⁶⁰ ≈ 3e-13). */
static mbt_vec3 segment_point_nearest_box(mbt_vec3 p0, mbt_vec3 p1, mbt_vec3 e, const mbt_transform* X_WB) {
  const mbt_real g = 0.6180339887498949;
  const mbt_vec3 d = mbt_vec3_sub(p1, p0);
  mbt_real lo = 0, hi = 1;
  mbt_real s1 = hi - g * (hi - lo), s2 = lo + g * (hi - lo);
  mbt_real f1 = box_signed_distance(mbt_vec3_axpy(p0, s1, d), e, X_WB);
  mbt_real f2 = box_signed_distance(mbt_vec3_axpy(p0, s2, d), e, X_WB);
  for (int it = 0; it < 60; ++it) {
    if (f1 <= f2) {
      hi = s2, s2 = s1, f2 = f1;
      s1 = hi - g * (hi - lo);
      f1 = box_signed_distance(mbt_vec3_axpy(p0, s1, d), e, X_WB);
    } else {
      lo = s1, s1 = s2, f1 = f2;
      s2 = lo + g * (hi - lo);
      f2 = box_signed_distance(mbt_vec3_axpy(p0, s2, d), e, X_WB);
    }
  }
  return mbt_vec3_axpy(p0, 0.5 * (lo + hi), d);
}

/* A capsule against B (sphere, capsule, box, half space): spheres of the capsule's radius at
 * the segment's endpoints and at its point nearest B; coincident points merged. Resting on a
 * face or along another capsule this gives two points, crossing one. */
static int capsule_vs(const mbt__cshape* a, const mbt_transform* X_WA, const mbt__cshape* b, const mbt_transform* X_WB,
                      mbt_real margin, mbt__contact_point* out) {
  mbt_vec3 p0, p1, c[5];
  axis_segment(a, X_WA, &p0, &p1);
  c[0] = p0;
  c[1] = p1;
  int nc = 2;
  if (b->type == MBT__CSHAPE_SPHERE) {
    c[nc++] = closest_on_segment(p0, p1, X_WB->p);
  } else if (b->type == MBT__CSHAPE_CAPSULE) {
    mbt_vec3 q0, q1, cb;
    axis_segment(b, X_WB, &q0, &q1);
    mbt__closest_segment_segment(p0, p1, q0, q1, &c[nc++], &cb);
    /* Parallel capsules: B's endpoints projected onto A bound the overlap. */
    c[nc++] = closest_on_segment(p0, p1, q0);
    c[nc++] = closest_on_segment(p0, p1, q1);
  } else if (b->type == MBT__CSHAPE_BOX) {
    c[nc++] = segment_point_nearest_box(p0, p1, b->half_size, X_WB);
  }
  int n = 0;
  const mbt_real tol = 1e-9 * (1 + a->radius);
  for (int i = 0; i < nc; ++i) {
    mbt__contact_point one;
    if (sphere_vs(c[i], a->radius, b, X_WB, margin, &one)) n = append_unique(out, n, one, tol);
  }
  return n;
}

/* ---- boxes ----------------------------------------------------------------------------- */
/* The 8 vertices of a box at X_WB. */
static void box_vertices(mbt_vec3 e, const mbt_transform* X_WB, mbt_vec3* v) {
  for (int i = 0; i < 8; ++i) {
    const mbt_vec3 p = mbt_vec3_make(i & 1 ? e.v[0] : -e.v[0], i & 2 ? e.v[1] : -e.v[1], i & 4 ? e.v[2] : -e.v[2]);
    v[i] = mbt_transform_apply(X_WB, p);
  }
}

/* Up to 8 vertices of A below the plane through o with unit normal n (depth = −height). */
static int vertices_below_plane(const mbt_vec3* v, int nv, mbt_vec3 o, mbt_vec3 n, mbt_real margin,
                                mbt__contact_point* out) {
  int count = 0;
  for (int i = 0; i < nv; ++i) {
    const mbt_real h = mbt_vec3_dot(n, mbt_vec3_sub(v[i], o));
    if (!mbt_lt(h, margin)) continue;
    const mbt__contact_point c = make_contact(v[i], mbt_vec3_axpy(v[i], -h, n), n, -h);
    if (count < MBT__MAX_PAIR_CONTACTS) {
      out[count++] = c;
    } else { /* keep the deepest: replace the shallowest */
      int k = 0;
      for (int j = 1; j < count; ++j)
        if (out[j].depth < out[k].depth) k = j;
      if (out[k].depth < c.depth) out[k] = c;
    }
  }
  return count;
}

static int box_half_space(const mbt__cshape* a, const mbt_transform* X_WA, const mbt_transform* X_WH, mbt_real margin,
                          mbt__contact_point* out) {
  mbt_vec3 v[8];
  box_vertices(a->half_size, X_WA, v);
  return vertices_below_plane(v, 8, X_WH->p, column(&X_WH->R, 2), margin, out);
}


/* ---- cylinder against a half space --------------------------------------------------- */
/* Per cap: the rim point deepest below the plane, the opposite one and the two between
 * (a cylinder standing on its cap rests on four points, lying on its side on two). */
static int cylinder_half_space(const mbt__cshape* a, const mbt_transform* X_WA, const mbt_transform* X_WH,
                               mbt_real margin, mbt__contact_point* out) {
  const mbt_vec3 n = column(&X_WH->R, 2), axis = column(&X_WA->R, 2);
  mbt_vec3 u = mbt_vec3_axpy(mbt_vec3_neg(n), mbt_vec3_dot(n, axis), axis); /* −n without its axial part */
  const mbt_real un = mbt_vec3_norm(u);
  u = mbt_lt(1e-9, un) ? mbt_vec3_scale(u, 1 / un) : column(&X_WA->R, 0);
  const mbt_vec3 w = mbt_vec3_cross(axis, u);
  mbt_vec3 v[8];
  for (int cap = 0; cap < 2; ++cap) {
    const mbt_vec3 c = mbt_vec3_axpy(X_WA->p, cap ? a->half_length : -a->half_length, axis);
    v[4 * cap + 0] = mbt_vec3_axpy(c, a->radius, u);
    v[4 * cap + 1] = mbt_vec3_axpy(c, -a->radius, u);
    v[4 * cap + 2] = mbt_vec3_axpy(c, a->radius, w);
    v[4 * cap + 3] = mbt_vec3_axpy(c, -a->radius, w);
  }
  return vertices_below_plane(v, 8, X_WH->p, n, margin, out);
}

/* ---- a vertex set A against B ---------------------------------------------------------- */
static int points_vs(const mbt__cshape* a, const mbt_transform* X_WA, const mbt__cshape* b, const mbt_transform* X_WB,
                     mbt_real margin, mbt__contact_point* out) {
  /* Bounding-sphere test first: no vertex can reach B otherwise. */
  if (b->type != MBT__CSHAPE_HALF_SPACE &&
      !mbt_lt(mbt_vec3_norm(mbt_vec3_sub(X_WA->p, X_WB->p)), a->bound_radius + b->bound_radius + margin))
    return 0;
  /* Against a half space, a vertex's height is one dot product in A's frame: h = n_A·p_AV + h_Ao. */
  const bool plane = b->type == MBT__CSHAPE_HALF_SPACE;
  const mbt_vec3 n_W = mbt_vec3_make(X_WB->R.m[0][2], X_WB->R.m[1][2], X_WB->R.m[2][2]);
  const mbt_vec3 n_A = mbt_mat3_tmul_vec(&X_WA->R, n_W);
  const mbt_real h_Ao = mbt_vec3_dot(n_W, mbt_vec3_sub(X_WA->p, X_WB->p));
  int count = 0;
  for (int i = 0; i < a->num_points; ++i) {
    if (plane && !mbt_lt(mbt_vec3_dot(n_A, a->points[i]) + h_Ao, margin)) continue;
    const mbt_vec3 v = mbt_transform_apply(X_WA, a->points[i]);
    mbt__contact_point c;
    if (!sphere_vs(v, 0, b, X_WB, margin, &c)) continue;
    if (count < MBT__MAX_VERTEX_CONTACTS) {
      out[count++] = c;
    } else {
      int k = 0;
      for (int j = 1; j < count; ++j)
        if (out[j].depth < out[k].depth) k = j;
      if (out[k].depth < c.depth) out[k] = c;
    }
  }
  return count;
}

/* ---- dispatch -------------------------------------------------------------------------- */
bool mbt__collide_supported(mbt__cshape_type a, mbt__cshape_type b) {
  if (b < a) {
    const mbt__cshape_type t = a;
    a = b;
    b = t;
  }
  if (b == MBT__CSHAPE_HALF_SPACE) return a != MBT__CSHAPE_HALF_SPACE;
  if (a == MBT__CSHAPE_CYLINDER || b == MBT__CSHAPE_CYLINDER) return false;
  if (b == MBT__CSHAPE_POINTS) return a != MBT__CSHAPE_POINTS;
  return true;
}

/* A's type <= B's type. */
static int collide_ordered(const mbt__cshape* a, const mbt_transform* X_WA, const mbt__cshape* b,
                           const mbt_transform* X_WB, mbt_real margin, mbt__contact_point* out) {
  if (b->type == MBT__CSHAPE_POINTS) { /* B's vertices in A: normals from A into B, flipped below */
    const int n = points_vs(b, X_WB, a, X_WA, margin, out);
    for (int i = 0; i < n; ++i) out[i].nhat_BA_W = mbt_vec3_neg(out[i].nhat_BA_W);
    return n;
  }
  switch (a->type) {
    case MBT__CSHAPE_SPHERE: return sphere_vs(X_WA->p, a->radius, b, X_WB, margin, out);
    case MBT__CSHAPE_CAPSULE: return capsule_vs(a, X_WA, b, X_WB, margin, out);
    case MBT__CSHAPE_BOX:
      if (b->type == MBT__CSHAPE_BOX) return mbt__box_box(a, X_WA, b, X_WB, margin, out);
      if (b->type == MBT__CSHAPE_HALF_SPACE) return box_half_space(a, X_WA, X_WB, margin, out);
      return 0;
    case MBT__CSHAPE_CYLINDER:
      return b->type == MBT__CSHAPE_HALF_SPACE ? cylinder_half_space(a, X_WA, X_WB, margin, out) : 0;
    default: return 0;
  }
}

int mbt__collide(const mbt__cshape* a, const mbt_transform* X_WA, const mbt__cshape* b, const mbt_transform* X_WB,
                 mbt_real margin, mbt__contact_point* out) {
  if (!mbt__collide_supported(a->type, b->type)) return 0;
  if (a->type <= b->type) return collide_ordered(a, X_WA, b, X_WB, margin, out);
  const int n = collide_ordered(b, X_WB, a, X_WA, margin, out);
  for (int i = 0; i < n; ++i) out[i].nhat_BA_W = mbt_vec3_neg(out[i].nhat_BA_W);
  return n;
}
