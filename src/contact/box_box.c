/* box_box.c: contact points of two boxes.
 *
 * Separating-axis test over the 15 candidate axes (3 face normals of each box, 9 edge–edge
 * cross products) [Gottschalk, Lin & Manocha, "OBBTree", SIGGRAPH 1996; Ericson 2005, §4.4.1]:
 * along an axis L the boxes' projections overlap by
 *   s_A + s_B − |L·(c_B − c_A)|,   s_A = Σ e_Ai·|a_i·L|,
 * and a negative overlap on any axis separates them. The axis of least overlap is the normal
 * (face axes preferred over edge axes within 5%, so resting boxes keep a face normal).
 * Face axis: the face of the other box most anti-parallel to it (the incident face) is clipped
 * against the side planes of the reference face (Sutherland–Hodgman), and its corners below
 * the reference face are the contacts (up to 8). Edge axis: one contact midway between the
 * closest points of the two supporting edges. */
#include "contact/contact_internal.h"

typedef struct {
  mbt_vec3 c;     /* centre in W */
  mbt_vec3 a[3];  /* axes in W */
  mbt_vec3 e;     /* half sizes */
} obb;

static obb make_obb(const mbt__cshape* s, const mbt_transform* X_WG) {
  obb b;
  b.c = X_WG->p;
  for (int j = 0; j < 3; ++j) b.a[j] = mbt_vec3_make(X_WG->R.m[0][j], X_WG->R.m[1][j], X_WG->R.m[2][j]);
  b.e = s->half_size;
  return b;
}

static mbt_real radius_along(const obb* b, mbt_vec3 L) {
  return b->e.v[0] * mbt_abs(mbt_vec3_dot(b->a[0], L)) + b->e.v[1] * mbt_abs(mbt_vec3_dot(b->a[1], L)) +
         b->e.v[2] * mbt_abs(mbt_vec3_dot(b->a[2], L));
}

/* Overlap along unit axis L; sets *sign to the sign of L·(c_A − c_B). */
static mbt_real overlap_along(const obb* A, const obb* B, mbt_vec3 L, mbt_real* sign) {
  const mbt_real d = mbt_vec3_dot(L, mbt_vec3_sub(A->c, B->c));
  *sign = d < 0 ? -1 : 1;
  return radius_along(A, L) + radius_along(B, L) - mbt_abs(d);
}

typedef struct {
  mbt_real overlap;
  mbt_vec3 n;       /* from B into A */
  int kind;         /* 0: face of A (index i), 1: face of B (index j), 2: edge a_i × b_j */
  int i, j;
} sat_axis;

/* The axis of least overlap, or false if some axis separates the boxes. */
static bool least_overlap_axis(const obb* A, const obb* B, mbt_real margin, sat_axis* best) {
  best->overlap = INFINITY;
  best->n = A->a[0];
  best->kind = best->i = best->j = 0;
  for (int k = 0; k < 6; ++k) {
    const mbt_vec3 L = k < 3 ? A->a[k] : B->a[k - 3];
    mbt_real s;
    const mbt_real o = overlap_along(A, B, L, &s);
    if (o < -margin) return false;
    if (o < best->overlap) {
      best->overlap = o;
      best->n = mbt_vec3_scale(L, s);
      best->kind = k < 3 ? 0 : 1;
      best->i = best->j = k % 3;
    }
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      mbt_vec3 L = mbt_vec3_cross(A->a[i], B->a[j]);
      const mbt_real len = mbt_vec3_norm(L);
      if (len < 1e-6) continue; /* parallel edges: covered by the face axes */
      L = mbt_vec3_scale(L, 1 / len);
      mbt_real s;
      const mbt_real o = overlap_along(A, B, L, &s);
      if (o < -margin) return false;
      if (o + 0.05 * mbt_abs(o) + 1e-12 < best->overlap) {
        best->overlap = o;
        best->n = mbt_vec3_scale(L, s);
        best->kind = 2;
        best->i = i;
        best->j = j;
      }
    }
  return true;
}

/* Keeps the part of polygon in[0..n) with dot(u, x − o) <= h; returns the new count. */
static int clip(const mbt_vec3* in, int n, mbt_vec3 o, mbt_vec3 u, mbt_real h, mbt_vec3* out) {
  int m = 0;
  for (int k = 0; k < n; ++k) {
    const mbt_vec3 p = in[k], q = in[(k + 1) % n];
    const mbt_real dp = mbt_vec3_dot(u, mbt_vec3_sub(p, o)) - h, dq = mbt_vec3_dot(u, mbt_vec3_sub(q, o)) - h;
    if (dp <= 0) out[m++] = p;
    if ((dp < 0 && dq > 0) || (dp > 0 && dq < 0)) out[m++] = mbt_vec3_axpy(p, dp / (dp - dq), mbt_vec3_sub(q, p));
  }
  return m;
}

/* Reference box R (face index j, outward normal m towards I) against incident box I. The
 * contacts' normals are n (from B into A). */
static int face_contacts(const obb* R, int j, mbt_vec3 m, const obb* I, mbt_vec3 n, mbt_real margin,
                         mbt__contact_point* out) {
  /* Incident face: the face of I whose outward normal is most anti-parallel to m. */
  int k = 0;
  for (int t = 1; t < 3; ++t)
    if (mbt_abs(mbt_vec3_dot(I->a[t], m)) > mbt_abs(mbt_vec3_dot(I->a[k], m))) k = t;
  const mbt_real sk = mbt_vec3_dot(I->a[k], m) > 0 ? -1 : 1;
  const mbt_vec3 fc = mbt_vec3_axpy(I->c, sk * I->e.v[k], I->a[k]);
  const int u = (k + 1) % 3, v = (k + 2) % 3;
  const mbt_vec3 du = mbt_vec3_scale(I->a[u], I->e.v[u]), dv = mbt_vec3_scale(I->a[v], I->e.v[v]);
  mbt_vec3 poly[16], tmp[16];
  poly[0] = mbt_vec3_add(mbt_vec3_add(fc, du), dv);
  poly[1] = mbt_vec3_sub(mbt_vec3_add(fc, du), dv);
  poly[2] = mbt_vec3_sub(mbt_vec3_sub(fc, du), dv);
  poly[3] = mbt_vec3_add(mbt_vec3_sub(fc, du), dv);
  int np = 4;
  /* The reference face's four side planes. */
  for (int s = 1; s < 3 && np > 0; ++s) {
    const int t = (j + s) % 3;
    np = clip(poly, np, R->c, R->a[t], R->e.v[t], tmp);
    np = clip(tmp, np, R->c, mbt_vec3_neg(R->a[t]), R->e.v[t], poly);
  }
  int count = 0;
  for (int p = 0; p < np && count < MBT__MAX_PAIR_CONTACTS; ++p) {
    const mbt_real depth = R->e.v[j] - mbt_vec3_dot(m, mbt_vec3_sub(poly[p], R->c));
    if (!(depth > -margin)) continue;
    out[count].p_WC = mbt_vec3_axpy(poly[p], 0.5 * depth, m);
    out[count].nhat_BA_W = n;
    out[count].depth = depth;
    ++count;
  }
  return count;
}

/* Edge a_i of A farthest along −n against edge b_j of B farthest along +n. */
static int edge_contact(const obb* A, const obb* B, const sat_axis* ax, mbt__contact_point* out) {
  mbt_vec3 pa = A->c, pb = B->c;
  for (int k = 0; k < 3; ++k) {
    if (k != ax->i) pa = mbt_vec3_axpy(pa, mbt_vec3_dot(A->a[k], ax->n) > 0 ? -A->e.v[k] : A->e.v[k], A->a[k]);
    if (k != ax->j) pb = mbt_vec3_axpy(pb, mbt_vec3_dot(B->a[k], ax->n) > 0 ? B->e.v[k] : -B->e.v[k], B->a[k]);
  }
  const mbt_vec3 da = mbt_vec3_scale(A->a[ax->i], 2 * A->e.v[ax->i]);
  const mbt_vec3 db = mbt_vec3_scale(B->a[ax->j], 2 * B->e.v[ax->j]);
  pa = mbt_vec3_axpy(pa, -0.5, da);
  pb = mbt_vec3_axpy(pb, -0.5, db);
  mbt_vec3 ca, cb;
  mbt__closest_segment_segment(pa, mbt_vec3_add(pa, da), pb, mbt_vec3_add(pb, db), &ca, &cb);
  out[0].p_WC = mbt_vec3_scale(mbt_vec3_add(ca, cb), 0.5);
  out[0].nhat_BA_W = ax->n;
  out[0].depth = ax->overlap;
  return 1;
}

int mbt__box_box(const mbt__cshape* a, const mbt_transform* X_WA, const mbt__cshape* b, const mbt_transform* X_WB,
                 mbt_real margin, mbt__contact_point* out) {
  const obb A = make_obb(a, X_WA), B = make_obb(b, X_WB);
  sat_axis ax;
  if (!least_overlap_axis(&A, &B, margin, &ax)) return 0;
  if (ax.kind == 1) return face_contacts(&B, ax.j, ax.n, &A, ax.n, margin, out);
  if (ax.kind == 0) return face_contacts(&A, ax.i, mbt_vec3_neg(ax.n), &B, ax.n, margin, out);
  return edge_contact(&A, &B, &ax, out);
}
