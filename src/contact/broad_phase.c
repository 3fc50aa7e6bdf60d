/* broad_phase.c: world bounding boxes of shapes and sort and sweep along x
 * [Baraff, "Dynamic simulation of non-penetrating rigid bodies", 1992, §7.3; Ericson,
 * Real-Time Collision Detection, 2005, §7.5.1]. Only pairs whose boxes overlap on all three
 * axes reach the narrow phase; sorting by insertion keeps the previous step's order, so a
 * scene where little moves is sorted in O(n). */
#include "contact/contact_internal.h"

/* A box about centre c with half extents h. */
static mbt__aabb around(mbt_vec3 c, mbt_vec3 h) {
  mbt__aabb b;
  b.lo = mbt_vec3_sub(c, h);
  b.hi = mbt_vec3_add(c, h);
  return b;
}

mbt__aabb mbt__cshape_aabb(const mbt__cshape* s, const mbt_transform* X_WG) {
  const mbt_mat3* R = &X_WG->R;
  mbt_vec3 h = mbt_vec3_zero();
  switch (s->type) {
    case MBT__CSHAPE_SPHERE:
      h = mbt_vec3_make(s->radius, s->radius, s->radius);
      break;
    case MBT__CSHAPE_CAPSULE: /* the axis segment's box grown by the radius */
      for (int i = 0; i < 3; ++i) h.v[i] = mbt_abs(R->m[i][2]) * s->half_length + s->radius;
      break;
    case MBT__CSHAPE_BOX: /* h_i = Σ_j |R_ij|·e_j */
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) h.v[i] += mbt_abs(R->m[i][j]) * s->half_size.v[j];
      break;
    case MBT__CSHAPE_CYLINDER: /* axis a: h_i = |a_i|·ℓ + r·sqrt(1 − a_i²) (the caps' discs) */
      for (int i = 0; i < 3; ++i) {
        const mbt_real ai = R->m[i][2];
        h.v[i] = mbt_abs(ai) * s->half_length + s->radius * mbt_sqrt(mbt_max(0, 1 - ai * ai));
      }
      break;
    case MBT__CSHAPE_POINTS:
      h = mbt_vec3_make(s->bound_radius, s->bound_radius, s->bound_radius);
      break;
    default:
      h = mbt_vec3_make(INFINITY, INFINITY, INFINITY);
      return around(mbt_vec3_zero(), h);
  }
  return around(X_WG->p, h);
}

static bool overlap_yz(const mbt__aabb* a, const mbt__aabb* b) {
  return a->lo.v[1] <= b->hi.v[1] && b->lo.v[1] <= a->hi.v[1] && a->lo.v[2] <= b->hi.v[2] &&
         b->lo.v[2] <= a->hi.v[2];
}

int mbt__sweep_and_prune(const mbt__aabb* box, int n, int* order, mbt__pair_fn emit, void* user) {
  for (int i = 1; i < n; ++i) { /* insertion sort by lo.x */
    const int k = order[i];
    int j = i - 1;
    while (j >= 0 && box[order[j]].lo.v[0] > box[k].lo.v[0]) {
      order[j + 1] = order[j];
      --j;
    }
    order[j + 1] = k;
  }
  int pairs = 0;
  for (int i = 0; i < n; ++i) {
    const mbt__aabb* a = &box[order[i]];
    for (int j = i + 1; j < n && box[order[j]].lo.v[0] <= a->hi.v[0]; ++j) {
      if (!overlap_yz(a, &box[order[j]])) continue;
      const int p = order[i], q = order[j];
      emit(p < q ? p : q, p < q ? q : p, user);
      ++pairs;
    }
  }
  return pairs;
}
