/* collision_geometry.c: contact shapes from a tree's collision geometry (mbt/geometry.h), and
 * the lowest point of a model's moving shapes (to set a robot on the ground). */
#include <stdio.h>
#include <stdlib.h>

#include "contact/contact_internal.h"
#include "mbt/geometry.h"
#include "tree/tree_internal.h"

/* Removes the shapes added after the first n0 (a failed call leaves the model as it was). */
static void truncate_shapes(mbt_contact_model* m, int n0) {
  for (int i = n0; i < m->num_geoms; ++i) free(m->geoms[i].points);
  m->num_geoms = n0;
}

/* A mesh: the vertices of its convex hull (mesh_hull.c). */
static int add_mesh(mbt_contact_model* m, const mbt_geometry* g, const mbt_contact_material* material) {
  const char* body = mbt_tree_body_name(m->tree, g->body);
  if (!g->mesh_path || !g->mesh_path[0])
    return snprintf(m->error, sizeof m->error,
                    "collision geometry '%s' of body '%s': mesh '%s' does not resolve to a readable file", g->name,
                    body, g->mesh_file),
           MBT_ERR_IO;
  mbt_real* p = NULL;
  int n = 0;
  char err[400];
  int st = mbt__mesh_hull_vertices(g->mesh_path, g->shape.scale, &p, &n, err, sizeof err);
  if (st == MBT_OK) st = mbt_contact_model_add_vertices(m, g->body, &g->X_BG, p, n, material);
  else
    snprintf(m->error, sizeof m->error, "collision geometry '%s' of body '%s': mesh '%s': %s", g->name, body,
             g->mesh_path, err);
  free(p);
  return st;
}

static int add_one(mbt_contact_model* m, const mbt_geometry* g, const mbt_contact_material* material) {
  const mbt_shape* s = &g->shape;
  switch (s->type) {
    case MBT_SHAPE_SPHERE:
      return mbt_contact_model_add_sphere(m, g->body, &g->X_BG, s->radius, material);
    case MBT_SHAPE_BOX:
      return mbt_contact_model_add_box(m, g->body, &g->X_BG, s->size.v[0], s->size.v[1], s->size.v[2], material);
    case MBT_SHAPE_CYLINDER:
      return mbt_contact_model_add_cylinder(m, g->body, &g->X_BG, s->radius, s->length, material);
    case MBT_SHAPE_CAPSULE:
      return mbt_contact_model_add_capsule(m, g->body, &g->X_BG, s->radius, s->length, material);
    case MBT_SHAPE_HALF_SPACE:
      return mbt_contact_model_add_half_space(m, g->body, &g->X_BG, material);
    case MBT_SHAPE_MESH:
      return add_mesh(m, g, material);
    default:
      return snprintf(m->error, sizeof m->error, "collision geometry '%s': unknown shape type %d", g->name,
                      (int)s->type),
             MBT_ERR_INVALID_ARGUMENT;
  }
}

int mbt_contact_model_add_collision_geometry(mbt_contact_model* m, const mbt_contact_material* material) {
  if (!m) return MBT_ERR_INVALID_ARGUMENT;
  const int n0 = m->num_geoms, n = mbt_tree_num_geometries(m->tree, MBT_ROLE_COLLISION);
  for (int i = 0; i < n; ++i) {
    const int st = add_one(m, mbt_tree_geometry(m->tree, MBT_ROLE_COLLISION, i), material);
    if (st < 0) {
      truncate_shapes(m, n0);
      return st;
    }
  }
  return m->num_geoms - n0;
}

/* The lowest world z of a shape at X_WG (exact: a vertex set's lowest vertex, the other
 * bounded shapes' bounding boxes touch them at their lowest point). */
static mbt_real lowest_z(const mbt__cshape* s, const mbt_transform* X_WG) {
  if (s->type != MBT__CSHAPE_POINTS) return mbt__cshape_aabb(s, X_WG).lo.v[2];
  mbt_real z = INFINITY;
  for (int k = 0; k < s->num_points; ++k) z = mbt_min(z, mbt_transform_apply(X_WG, s->points[k]).v[2]);
  return z;
}

int mbt_contact_model_calc_lowest_point(const mbt_contact_model* m, mbt_context* ctx, mbt_real* z_min) {
  if (!m || !ctx || !z_min) return MBT_ERR_INVALID_ARGUMENT;
  mbt_real z = INFINITY;
  for (int i = 0; i < m->num_geoms; ++i) {
    const mbt__cgeom* g = &m->geoms[i];
    if (g->shape.type == MBT__CSHAPE_HALF_SPACE || mbt__contact_body_is_static(m->tree, g->body)) continue;
    mbt_transform X_WB;
    const int st = mbt_context_body_pose_in_world(m->tree, ctx, g->body, &X_WB);
    if (st) return st;
    const mbt_transform X_WG = mbt_transform_compose(&X_WB, &g->X_BG);
    z = mbt_min(z, lowest_z(&g->shape, &X_WG));
  }
  if (!mbt_isfinite(z)) return MBT_ERR_NOT_FOUND;
  *z_min = z;
  return MBT_OK;
}
