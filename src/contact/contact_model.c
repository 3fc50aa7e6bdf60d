/* contact_model.c: the contact model (mbt/contact.h): shapes on bodies, materials, filters,
 * and detection at a context's configuration (broad phase, then narrow phase per pair). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact_internal.h"
#include "tree/tree_internal.h"

static int model_error(mbt_contact_model* m, int status, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int model_error(mbt_contact_model* m, int status, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->error, sizeof m->error, fmt, ap);
  va_end(ap);
  return status;
}

mbt_contact_material mbt_contact_material_default(void) {
  mbt_contact_material m = {1, 1, 1e5, 0.01};
  return m;
}

mbt_contact_model* mbt_contact_model_create(const mbt_tree* tree) {
  if (!tree) return NULL;
  if (!tree->finalized) {
    mbt__tree_error(tree, MBT_ERR_NOT_FINALIZED, "mbt_contact_model_create: the tree is not finalized");
    return NULL;
  }
  mbt_contact_model* m = calloc(1, sizeof *m);
  if (!m) {
    mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "mbt_contact_model_create: out of memory");
    return NULL;
  }
  m->tree = tree;
  return m;
}

void mbt_contact_model_destroy(mbt_contact_model* m) {
  if (!m) return;
  for (int i = 0; i < m->num_geoms; ++i) free(m->geoms[i].points);
  free(m->geoms);
  free(m->excluded);
  free(m);
}

const char* mbt_contact_model_last_error(const mbt_contact_model* m) { return m ? m->error : "contact model is NULL"; }
const mbt_tree* mbt_contact_model_tree(const mbt_contact_model* m) { return m ? m->tree : NULL; }
int mbt_contact_model_num_shapes(const mbt_contact_model* m) { return m ? m->num_geoms : 0; }
int mbt_contact_model_shape_body(const mbt_contact_model* m, int shape) {
  return m && shape >= 0 && shape < m->num_geoms ? m->geoms[shape].body : -1;
}

/* ---- adding shapes ------------------------------------------------------------------------- */
static bool positive(mbt_real x) { return mbt_isfinite(x) && mbt_lt(0, x); }

static int check_material(mbt_contact_model* m, const char* what, const mbt_contact_material* c) {
  if (!(mbt_isfinite(c->static_friction) && mbt_le(0, c->static_friction) && mbt_isfinite(c->dynamic_friction) &&
        mbt_le(0, c->dynamic_friction) && mbt_le(c->dynamic_friction, c->static_friction)))
    return model_error(m, MBT_ERR_INVALID_ARGUMENT,
                       "%s: friction must satisfy 0 <= dynamic <= static (got static %g, dynamic %g)", what,
                       mbt_value(c->static_friction), mbt_value(c->dynamic_friction));
  if (!positive(c->stiffness) || !(mbt_isfinite(c->dissipation_time) && mbt_le(0, c->dissipation_time)))
    return model_error(m, MBT_ERR_INVALID_ARGUMENT,
                       "%s: stiffness must be finite and > 0 and dissipation time finite and >= 0 (got %g, %g)",
                       what, mbt_value(c->stiffness), mbt_value(c->dissipation_time));
  return MBT_OK;
}

static bool is_rigid(const mbt_transform* X) {
  for (int i = 0; i < 3; ++i)
    if (!mbt_isfinite(X->p.v[i])) return false;
  return mbt_rotation_is_valid(&X->R, 1e-9);
}

/* Checks, then appends a copy of g (and of its points) to the model. */
static int add_geom(mbt_contact_model* m, const char* what, mbt__cgeom g, const mbt_transform* X_BG,
                    const mbt_contact_material* material) {
  if (g.body < 0 || g.body >= m->tree->num_bodies)
    return model_error(m, MBT_ERR_NOT_FOUND, "%s: no body %d (the tree has %d)", what, g.body, m->tree->num_bodies);
  const char* body = m->tree->bodies[g.body].name;
  g.X_BG = X_BG ? *X_BG : mbt_transform_identity();
  if (!is_rigid(&g.X_BG))
    return model_error(m, MBT_ERR_INVALID_ARGUMENT, "%s on body '%s': X_BG is not a rigid transform", what, body);
  g.material = material ? *material : mbt_contact_material_default();
  int st = check_material(m, what, &g.material);
  if (st) return st;
  if (m->num_geoms == m->cap_geoms) {
    const int cap = m->cap_geoms ? 2 * m->cap_geoms : 8;
    mbt__cgeom* p = realloc(m->geoms, (size_t)cap * sizeof *p);
    if (!p) return model_error(m, MBT_ERR_NO_MEMORY, "%s: out of memory", what);
    m->geoms = p;
    m->cap_geoms = cap;
  }
  g.points = NULL;
  if (g.shape.type == MBT__CSHAPE_POINTS) {
    g.points = malloc((size_t)g.shape.num_points * sizeof *g.points);
    if (!g.points) return model_error(m, MBT_ERR_NO_MEMORY, "%s: out of memory", what);
    memcpy(g.points, g.shape.points, (size_t)g.shape.num_points * sizeof *g.points);
    g.shape.points = g.points;
  }
  m->geoms[m->num_geoms] = g;
  return m->num_geoms++;
}

static mbt__cgeom geom(int body, mbt__cshape s) {
  mbt__cgeom g;
  memset(&g, 0, sizeof g);
  g.body = body;
  g.shape = s;
  return g;
}

static int bad_size(mbt_contact_model* m, const char* what, int body) {
  return model_error(m, MBT_ERR_INVALID_ARGUMENT, "%s on body %d: every dimension must be finite and > 0", what, body);
}

int mbt_contact_model_add_sphere(mbt_contact_model* m, int body, const mbt_transform* X_BG, mbt_real radius,
                                 const mbt_contact_material* material) {
  if (!m) return MBT_ERR_INVALID_ARGUMENT;
  if (!positive(radius)) return bad_size(m, "sphere", body);
  return add_geom(m, "sphere", geom(body, mbt__cshape_sphere(radius)), X_BG, material);
}

int mbt_contact_model_add_box(mbt_contact_model* m, int body, const mbt_transform* X_BG, mbt_real sx, mbt_real sy,
                              mbt_real sz, const mbt_contact_material* material) {
  if (!m) return MBT_ERR_INVALID_ARGUMENT;
  if (!positive(sx) || !positive(sy) || !positive(sz)) return bad_size(m, "box", body);
  return add_geom(m, "box", geom(body, mbt__cshape_box(mbt_vec3_make(sx / 2, sy / 2, sz / 2))), X_BG, material);
}

int mbt_contact_model_add_capsule(mbt_contact_model* m, int body, const mbt_transform* X_BG, mbt_real radius,
                                  mbt_real length, const mbt_contact_material* material) {
  if (!m) return MBT_ERR_INVALID_ARGUMENT;
  if (!positive(radius) || !positive(length)) return bad_size(m, "capsule", body);
  return add_geom(m, "capsule", geom(body, mbt__cshape_capsule(radius, length / 2)), X_BG, material);
}

int mbt_contact_model_add_cylinder(mbt_contact_model* m, int body, const mbt_transform* X_BG, mbt_real radius,
                                   mbt_real length, const mbt_contact_material* material) {
  if (!m) return MBT_ERR_INVALID_ARGUMENT;
  if (!positive(radius) || !positive(length)) return bad_size(m, "cylinder", body);
  return add_geom(m, "cylinder", geom(body, mbt__cshape_cylinder(radius, length / 2)), X_BG, material);
}

int mbt_contact_model_add_half_space(mbt_contact_model* m, int body, const mbt_transform* X_BG,
                                     const mbt_contact_material* material) {
  if (!m) return MBT_ERR_INVALID_ARGUMENT;
  return add_geom(m, "half space", geom(body, mbt__cshape_half_space()), X_BG, material);
}

int mbt_contact_model_add_vertices(mbt_contact_model* m, int body, const mbt_transform* X_BG, const mbt_real* p_GV,
                                   int num_points, const mbt_contact_material* material) {
  if (!m) return MBT_ERR_INVALID_ARGUMENT;
  if (!p_GV || num_points <= 0)
    return model_error(m, MBT_ERR_INVALID_ARGUMENT, "vertex set on body %d: no points", body);
  for (int i = 0; i < 3 * num_points; ++i)
    if (!mbt_isfinite(p_GV[i]))
      return model_error(m, MBT_ERR_INVALID_ARGUMENT, "vertex set on body %d: point %d is not finite", body, i / 3);
  mbt__cgeom g = geom(body, mbt__cshape_points((const mbt_vec3*)(const void*)p_GV, num_points));
  return add_geom(m, "vertex set", g, X_BG, material);
}

int mbt_contact_model_add_ground(mbt_contact_model* m, mbt_vec3 normal, mbt_real height,
                                 const mbt_contact_material* material) {
  if (!m) return MBT_ERR_INVALID_ARGUMENT;
  const mbt_real len = mbt_vec3_norm(normal);
  if (!positive(len) || !mbt_isfinite(height))
    return model_error(m, MBT_ERR_INVALID_ARGUMENT, "ground: the normal must be finite and nonzero, the height finite");
  const mbt_vec3 z = mbt_vec3_scale(normal, 1 / len);
  /* x: the world axis least aligned with z, made orthogonal to it; y = z × x. */
  int k = 0;
  for (int i = 1; i < 3; ++i)
    if (mbt_abs(z.v[i]) < mbt_abs(z.v[k])) k = i;
  mbt_vec3 e = mbt_vec3_zero();
  e.v[k] = 1;
  mbt_vec3 x = mbt_vec3_axpy(e, -z.v[k], z);
  x = mbt_vec3_scale(x, 1 / mbt_vec3_norm(x));
  const mbt_vec3 y = mbt_vec3_cross(z, x);
  mbt_mat3 R;
  for (int i = 0; i < 3; ++i) R.m[i][0] = x.v[i], R.m[i][1] = y.v[i], R.m[i][2] = z.v[i];
  const mbt_transform X_WG = mbt_transform_make(&R, mbt_vec3_scale(z, height));
  return mbt_contact_model_add_half_space(m, 0, &X_WG, material);
}

/* ---- filters ------------------------------------------------------------------------------- */
/* The body's moving ancestor: itself unless it is welded (through welds) to another body. */
static int moving_ancestor(const mbt_tree* tree, int body) {
  while (body > 0) {
    const int mob = tree->bodies[body].mobilizer;
    if (mob < 0 || tree->mobilizers[mob].type != MBT_MOBILIZER_WELD) break;
    body = tree->bodies[body].parent;
  }
  return body;
}

bool mbt__contact_body_is_static(const mbt_tree* tree, int body) { return moving_ancestor(tree, body) == 0; }

/* The moving ancestor of the body's parent, if a joint connects them (a floating body is free:
 * it has no parent to filter). −1 otherwise. */
static int parent_of(const mbt_tree* tree, int moving) {
  if (moving <= 0) return -1;
  const int mob = tree->bodies[moving].mobilizer;
  if (mob < 0 || tree->mobilizers[mob].type == MBT_MOBILIZER_QUATERNION_FLOATING) return -1;
  return moving_ancestor(tree, tree->bodies[moving].parent);
}

int mbt_contact_model_exclude_pair(mbt_contact_model* m, int body_A, int body_B) {
  if (!m) return MBT_ERR_INVALID_ARGUMENT;
  const int nb = m->tree->num_bodies;
  if (body_A < 0 || body_A >= nb || body_B < 0 || body_B >= nb)
    return model_error(m, MBT_ERR_NOT_FOUND, "mbt_contact_model_exclude_pair: no body %d or %d (the tree has %d)",
                       body_A, body_B, nb);
  if (m->num_excluded == m->cap_excluded) {
    const int cap = m->cap_excluded ? 2 * m->cap_excluded : 8;
    int* p = realloc(m->excluded, (size_t)cap * 2 * sizeof *p);
    if (!p) return model_error(m, MBT_ERR_NO_MEMORY, "mbt_contact_model_exclude_pair: out of memory");
    m->excluded = p;
    m->cap_excluded = cap;
  }
  m->excluded[2 * m->num_excluded] = body_A < body_B ? body_A : body_B;
  m->excluded[2 * m->num_excluded + 1] = body_A < body_B ? body_B : body_A;
  ++m->num_excluded;
  return MBT_OK;
}

bool mbt_contact_model_pair_enabled(const mbt_contact_model* m, int a, int b) {
  if (!m) return false;
  const mbt_tree* tree = m->tree;
  if (a < 0 || b < 0 || a >= tree->num_bodies || b >= tree->num_bodies) return false;
  const int lo = a < b ? a : b, hi = a < b ? b : a;
  for (int i = 0; i < m->num_excluded; ++i)
    if (m->excluded[2 * i] == lo && m->excluded[2 * i + 1] == hi) return false;
  const int ma = moving_ancestor(tree, a), mb = moving_ancestor(tree, b);
  if (ma == mb) return false; /* same body, welded together, or both fixed to the world */
  return parent_of(tree, ma) != mb && parent_of(tree, mb) != ma;
}
