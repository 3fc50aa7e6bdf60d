/* geometry.c: visual and collision geometry attached to bodies (mbt/geometry.h).
 *
 * The tree holds one array of geometries per role, in the order they were added, and for each
 * body the chain of its own (first, next, last, count), so that adding n geometries and finding
 * one by body and name cost O(n) and O(geometries of that body), not O(n²). Adding validates
 * everything, reserves and copies the strings (into the tree's arena), and only then appends,
 * so a failed call leaves the tree unchanged. */
#include "mbt/geometry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/tree_build.h"

typedef struct {
  mbt_geometry* items;
  int* next;            /* [cap] the next geometry of the same body, -1 after its last */
  int num, cap;
  int *first, *last;    /* [num_bodies] each body's first and last geometry, -1 if none */
  int* count;           /* [num_bodies] */
  int num_bodies;
} geometry_array;

struct mbt_geometry_store {
  geometry_array role[MBT_ROLE_NUM];
};

static const mbt_real kDefaultRgba[4] = {0.9, 0.9, 0.9, 1.0};

/* ---- shapes ---------------------------------------------------------------------------------- */
static mbt_shape shape_of(mbt_shape_type type) {
  mbt_shape s;
  memset(&s, 0, sizeof s);
  s.type = type;
  s.scale = mbt_vec3_make(1, 1, 1);
  return s;
}

mbt_shape mbt_shape_sphere(mbt_real radius) {
  mbt_shape s = shape_of(MBT_SHAPE_SPHERE);
  s.radius = radius;
  return s;
}

mbt_shape mbt_shape_box(mbt_real size_x, mbt_real size_y, mbt_real size_z) {
  mbt_shape s = shape_of(MBT_SHAPE_BOX);
  s.size = mbt_vec3_make(size_x, size_y, size_z);
  return s;
}

mbt_shape mbt_shape_cylinder(mbt_real radius, mbt_real length) {
  mbt_shape s = shape_of(MBT_SHAPE_CYLINDER);
  s.radius = radius;
  s.length = length;
  return s;
}

mbt_shape mbt_shape_capsule(mbt_real radius, mbt_real length) {
  mbt_shape s = mbt_shape_cylinder(radius, length);
  s.type = MBT_SHAPE_CAPSULE;
  return s;
}

mbt_shape mbt_shape_mesh(mbt_real scale_x, mbt_real scale_y, mbt_real scale_z) {
  mbt_shape s = shape_of(MBT_SHAPE_MESH);
  s.scale = mbt_vec3_make(scale_x, scale_y, scale_z);
  return s;
}

mbt_shape mbt_shape_half_space(void) { return shape_of(MBT_SHAPE_HALF_SPACE); }

const char* mbt_shape_type_name(mbt_shape_type type) {
  static const char* const names[MBT_SHAPE_NUM_TYPES] = {"sphere", "box",  "cylinder",
                                                         "capsule", "mesh", "half_space"};
  return (int)type >= 0 && type < MBT_SHAPE_NUM_TYPES ? names[type] : "unknown";
}

const char* mbt_geometry_role_name(mbt_geometry_role role) {
  return role == MBT_ROLE_VISUAL ? "visual" : role == MBT_ROLE_COLLISION ? "collision" : "unknown";
}

mbt_geometry_desc mbt_geometry_desc_default(void) {
  mbt_geometry_desc d;
  memset(&d, 0, sizeof d);
  d.shape = mbt_shape_sphere(0);
  d.X_BG = mbt_transform_identity();
  memcpy(d.rgba, kDefaultRgba, sizeof d.rgba);
  return d;
}

/* ---- checks ---------------------------------------------------------------------------------- */
static bool positive(mbt_real x) { return mbt_isfinite(x) && x > 0; }

/* The shape's dimensions: finite and positive where they are used. */
static int check_shape(const mbt_tree* tree, const char* what, const mbt_shape* s) {
  const mbt_vec3 a = s->size, c = s->scale;
  switch (s->type) {
    case MBT_SHAPE_SPHERE:
      if (positive(s->radius)) return MBT_OK;
      return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: sphere radius %g is not positive", what,
                             s->radius);
    case MBT_SHAPE_BOX:
      if (positive(a.v[0]) && positive(a.v[1]) && positive(a.v[2])) return MBT_OK;
      return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: box size (%g, %g, %g) is not positive", what,
                             a.v[0], a.v[1], a.v[2]);
    case MBT_SHAPE_CYLINDER:
    case MBT_SHAPE_CAPSULE:
      if (positive(s->radius) && (positive(s->length) || (s->type == MBT_SHAPE_CAPSULE && s->length == 0)))
        return MBT_OK;
      return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: %s radius %g, length %g: %s", what,
                             mbt_shape_type_name(s->type), s->radius, s->length,
                             s->type == MBT_SHAPE_CAPSULE ? "the radius must be positive, the length >= 0"
                                                          : "both must be positive");
    case MBT_SHAPE_MESH:
      if (positive(c.v[0]) && positive(c.v[1]) && positive(c.v[2])) return MBT_OK;
      return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: mesh scale (%g, %g, %g) is not positive", what,
                             c.v[0], c.v[1], c.v[2]);
    case MBT_SHAPE_HALF_SPACE:
      return MBT_OK;
    default:
      return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: unknown shape type %d", what, (int)s->type);
  }
}

static int check_appearance(const mbt_tree* tree, const char* what, mbt_geometry_role role,
                            const mbt_geometry_desc* d) {
  const bool has_material = d->material && d->material[0];
  if (role == MBT_ROLE_COLLISION && (d->has_rgba || has_material))
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: a collision geometry has no colour or material",
                           what);
  if (d->has_rgba)
    for (int k = 0; k < 4; ++k)
      if (!(d->rgba[k] >= 0 && d->rgba[k] <= 1))
        return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT,
                               "%s: colour rgba (%g, %g, %g, %g) is not within [0, 1]", what, d->rgba[0],
                               d->rgba[1], d->rgba[2], d->rgba[3]);
  if (d->shape.type == MBT_SHAPE_MESH && !(d->mesh_file && d->mesh_file[0]))
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: a mesh needs a file name", what);
  return MBT_OK;
}

/* ---- storage --------------------------------------------------------------------------------- */
static const geometry_array* array_of(const mbt_tree* tree, mbt_geometry_role role) {
  if (!tree || !tree->geometry || (int)role < 0 || role >= MBT_ROLE_NUM) return NULL;
  return &tree->geometry->role[role];
}

/* Room for one more geometry of the role and a chain for every body of the tree. */
static int reserve(mbt_tree* tree, mbt_geometry_role role) {
  if (!tree->geometry && !(tree->geometry = calloc(1, sizeof *tree->geometry))) return MBT_ERR_NO_MEMORY;
  geometry_array* a = &tree->geometry->role[role];
  if (a->num == a->cap) {
    const int n = a->cap > 0 ? 2 * a->cap : 8;
    mbt_geometry* items = realloc(a->items, (size_t)n * sizeof *items);
    if (items) a->items = items;
    int* next = items ? realloc(a->next, (size_t)n * sizeof *next) : NULL;
    if (!next) return MBT_ERR_NO_MEMORY;
    a->next = next;
    a->cap = n;
  }
  const int nb = tree->num_bodies;
  if (a->num_bodies < nb) {
    int* first = realloc(a->first, (size_t)nb * sizeof *first);
    if (first) a->first = first;
    int* last = first ? realloc(a->last, (size_t)nb * sizeof *last) : NULL;
    if (last) a->last = last;
    int* count = last ? realloc(a->count, (size_t)nb * sizeof *count) : NULL;
    if (!count) return MBT_ERR_NO_MEMORY;
    a->count = count;
    for (int b = a->num_bodies; b < nb; ++b) a->first[b] = a->last[b] = -1, a->count[b] = 0;
    a->num_bodies = nb;
  }
  return MBT_OK;
}

void mbt__geometry_free(mbt_tree* tree) {
  if (!tree || !tree->geometry) return;
  for (int r = 0; r < MBT_ROLE_NUM; ++r) {
    geometry_array* a = &tree->geometry->role[r];
    free(a->items);
    free(a->next);
    free(a->first);
    free(a->last);
    free(a->count);
  }
  free(tree->geometry);
  tree->geometry = NULL;
}

/* The stored copy of d (strings copied into the tree's arena); false if out of memory. */
static bool make_geometry(mbt_tree* tree, const mbt_geometry_desc* d, const char* name, int body,
                          mbt_geometry_role role, mbt_geometry* g) {
  memset(g, 0, sizeof *g);
  g->body = body;
  g->role = role;
  g->shape = d->shape;
  g->X_BG = d->X_BG;
  g->has_rgba = d->has_rgba;
  memcpy(g->rgba, d->has_rgba ? d->rgba : kDefaultRgba, sizeof g->rgba);
  const bool mesh = d->shape.type == MBT_SHAPE_MESH;
  g->name = mbt__tree_name(tree, name, NULL);
  g->mesh_file = mbt__tree_name(tree, mesh && d->mesh_file ? d->mesh_file : "", NULL);
  g->mesh_path = mbt__tree_name(tree, mesh && d->mesh_path ? d->mesh_path : "", NULL);
  g->material = mbt__tree_name(tree, d->material ? d->material : "", NULL);
  return g->name && g->mesh_file && g->mesh_path && g->material;
}

/* ---- builder --------------------------------------------------------------------------------- */
int mbt_tree_add_geometry(mbt_tree* tree, int body, mbt_geometry_role role, const mbt_geometry_desc* desc) {
  if (!tree) return MBT_ERR_INVALID_ARGUMENT;
  if (body < 0 || body >= tree->num_bodies)
    return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "geometry: body %d does not exist", body);
  const char* bname = tree->bodies[body].name;
  if ((int)role < 0 || role >= MBT_ROLE_NUM)
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "body '%s': geometry role %d is neither visual nor "
                           "collision", bname, (int)role);
  if (!desc)
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "body '%s': the %s geometry has no description", bname,
                           mbt_geometry_role_name(role));
  char name[256];
  if (desc->name && desc->name[0])
    snprintf(name, sizeof name, "%s", desc->name);
  else
    snprintf(name, sizeof name, "%s_%s_%d", bname, mbt_geometry_role_name(role),
             mbt_tree_body_num_geometries(tree, body, role));
  char what[640];
  snprintf(what, sizeof what, "body '%s': %s geometry '%s'", bname, mbt_geometry_role_name(role), name);
  int s = mbt__check_not_finalized(tree, what);
  if (!s) s = check_shape(tree, what, &desc->shape);
  if (!s) s = mbt__check_transform(tree, what, "X_BG", &desc->X_BG);
  if (!s) s = check_appearance(tree, what, role, desc);
  if (s) return s;
  if (mbt_tree_geometry_by_name(tree, body, role, name) >= 0)
    return mbt__tree_error(tree, MBT_ERR_DUPLICATE, "%s: the name is already used on this body", what);
  mbt_geometry g;
  const mbt_arena_mark mark = mbt__arena_mark(&tree->arena);
  if (reserve(tree, role) || !make_geometry(tree, desc, name, body, role, &g)) {
    mbt__arena_rewind(&tree->arena, mark);
    return mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "%s: out of memory", what);
  }
  geometry_array* a = &tree->geometry->role[role];
  const int i = a->num++;
  a->items[i] = g;
  a->next[i] = -1;
  if (a->last[body] >= 0)
    a->next[a->last[body]] = i;
  else
    a->first[body] = i;
  a->last[body] = i;
  a->count[body]++;
  return i;
}

/* ---- queries --------------------------------------------------------------------------------- */
int mbt_tree_num_geometries(const mbt_tree* tree, mbt_geometry_role role) {
  const geometry_array* a = array_of(tree, role);
  return a ? a->num : 0;
}

const mbt_geometry* mbt_tree_geometry(const mbt_tree* tree, mbt_geometry_role role, int index) {
  const geometry_array* a = array_of(tree, role);
  return a && index >= 0 && index < a->num ? &a->items[index] : NULL;
}

/* The first geometry of `body` in the role's array, -1 if none (or no such body). */
static int first_of(const geometry_array* a, int body) {
  return a && body >= 0 && body < a->num_bodies ? a->first[body] : -1;
}

int mbt_tree_body_num_geometries(const mbt_tree* tree, int body, mbt_geometry_role role) {
  const geometry_array* a = array_of(tree, role);
  return a && body >= 0 && body < a->num_bodies ? a->count[body] : 0;
}

int mbt_tree_body_geometry(const mbt_tree* tree, int body, mbt_geometry_role role, int k) {
  const geometry_array* a = array_of(tree, role);
  for (int i = first_of(a, body); i >= 0 && k >= 0; i = a->next[i])
    if (k-- == 0) return i;
  return MBT_ERR_NOT_FOUND;
}

int mbt_tree_geometry_by_name(const mbt_tree* tree, int body, mbt_geometry_role role, const char* name) {
  const geometry_array* a = array_of(tree, role);
  for (int i = name ? first_of(a, body) : -1; i >= 0; i = a->next[i])
    if (strcmp(a->items[i].name, name) == 0) return i;
  return MBT_ERR_NOT_FOUND;
}
