/* detection.c: all contact points of a contact model at a context's configuration: world
 * poses X_WG = X_WB·X_BG, the sort-and-sweep broad phase over bounded shapes, half spaces
 * against every bounded shape whose bounding sphere reaches them, the narrow phase per
 * candidate pair of bodies that may touch, and the pair's combined material. */
#include <stdlib.h>
#include <string.h>

#include "contact/contact_internal.h"
#include "tree/tree_internal.h"

void mbt__detection_destroy(mbt__detection* d) {
  if (!d) return;
  free(d->contacts);
  free(d->X_WG);
  free(d->box);
  free(d->order);
  free(d->bounded);
  free(d->unbounded);
  free(d);
}

mbt__detection* mbt__detection_create(const mbt_contact_model* model) {
  mbt__detection* d = calloc(1, sizeof *d);
  if (!d) return NULL;
  const int n = model->num_geoms, n1 = n ? n : 1;
  d->model = model;
  d->margin = MBT__CONTACT_MARGIN;
  d->num_geoms = n;
  d->capacity = 8 * n < 32 ? 32 : (8 * n > 512 ? 512 : 8 * n);
  d->contacts = calloc((size_t)d->capacity, sizeof *d->contacts);
  d->X_WG = calloc((size_t)n1, sizeof *d->X_WG);
  d->box = calloc((size_t)n1, sizeof *d->box);
  d->order = calloc((size_t)n1, sizeof *d->order);
  d->bounded = calloc((size_t)n1, sizeof *d->bounded);
  d->unbounded = calloc((size_t)n1, sizeof *d->unbounded);
  if (!d->contacts || !d->X_WG || !d->box || !d->order || !d->bounded || !d->unbounded) {
    mbt__detection_destroy(d);
    return NULL;
  }
  for (int i = 0; i < n; ++i) {
    if (model->geoms[i].shape.type == MBT__CSHAPE_HALF_SPACE) {
      d->unbounded[d->num_unbounded++] = i;
    } else {
      d->order[d->num_bounded] = d->num_bounded;
      d->bounded[d->num_bounded++] = i;
    }
  }
  return d;
}

/* Materials of two shapes in contact (Drake's rules, mbt/contact.h). */
static void combine(const mbt_contact_material* a, const mbt_contact_material* b, mbt__contact* c) {
  const mbt_real ss = a->static_friction + b->static_friction, sd = a->dynamic_friction + b->dynamic_friction;
  c->mu_s = mbt_lt(0, ss) ? 2 * a->static_friction * b->static_friction / ss : 0;
  c->mu_d = mbt_lt(0, sd) ? 2 * a->dynamic_friction * b->dynamic_friction / sd : 0;
  c->mu_d = mbt_min(c->mu_d, c->mu_s);
  const mbt_real ks = a->stiffness + b->stiffness;
  c->k = a->stiffness * b->stiffness / ks;
  c->tau_d = (b->stiffness * a->dissipation_time + a->stiffness * b->dissipation_time) / ks;
}

/* The narrow phase of shapes i and j (model indices); contacts appended. */
static void narrow(mbt__detection* d, int i, int j) {
  const mbt_contact_model* m = d->model;
  const mbt__cgeom *gi = &m->geoms[i], *gj = &m->geoms[j];
  if (!mbt__collide_supported(gi->shape.type, gj->shape.type)) return;
  if (!mbt_contact_model_pair_enabled(m, gi->body, gj->body)) return;
  mbt__contact_point pts[MBT__MAX_PAIR_CONTACTS];
  const int n = mbt__collide(&gi->shape, &d->X_WG[i], &gj->shape, &d->X_WG[j], d->margin, pts);
  for (int k = 0; k < n; ++k) {
    if (d->num_contacts == d->capacity) {
      ++d->dropped;
      continue;
    }
    mbt__contact* c = &d->contacts[d->num_contacts++];
    memset(c, 0, sizeof *c);
    c->r.body_A = gi->body;
    c->r.body_B = gj->body;
    c->r.shape_A = i;
    c->r.shape_B = j;
    c->r.p_WC = pts[k].p_WC;
    c->r.nhat_BA_W = pts[k].nhat_BA_W;
    c->r.depth = pts[k].depth;
    c->pair_index = k;
    combine(&gi->material, &gj->material, c);
  }
}

static void on_pair(int a, int b, void* user) {
  mbt__detection* d = user;
  narrow(d, d->bounded[a], d->bounded[b]);
}

int mbt__detect_contacts(mbt__detection* d, mbt_context* ctx) {
  const mbt_contact_model* m = d->model;
  const mbt_tree* tree = m->tree;
  d->num_contacts = 0;
  d->dropped = 0;
  for (int i = 0; i < d->num_geoms; ++i) {
    mbt_transform X_WB;
    const int st = mbt_context_body_pose_in_world(tree, ctx, m->geoms[i].body, &X_WB);
    if (st) return st;
    d->X_WG[i] = mbt_transform_compose(&X_WB, &m->geoms[i].X_BG);
  }
  for (int k = 0; k < d->num_bounded; ++k) {
    const int i = d->bounded[k];
    d->box[k] = mbt__cshape_aabb(&m->geoms[i].shape, &d->X_WG[i]);
    for (int a = 0; a < 3; ++a) d->box[k].lo.v[a] -= d->margin, d->box[k].hi.v[a] += d->margin;
  }
  mbt__sweep_and_prune(d->box, d->num_bounded, d->order, on_pair, d);
  /* Half spaces: a bounded shape reaches one only if its bounding sphere does. */
  for (int u = 0; u < d->num_unbounded; ++u) {
    const int h = d->unbounded[u];
    const mbt_vec3 n = mbt_vec3_make(d->X_WG[h].R.m[0][2], d->X_WG[h].R.m[1][2], d->X_WG[h].R.m[2][2]);
    for (int k = 0; k < d->num_bounded; ++k) {
      const int i = d->bounded[k];
      const mbt_real height = mbt_vec3_dot(n, mbt_vec3_sub(d->X_WG[i].p, d->X_WG[h].p));
      if (mbt_lt(height, m->geoms[i].shape.bound_radius + d->margin)) narrow(d, i, h);
    }
  }
  return MBT_OK;
}
