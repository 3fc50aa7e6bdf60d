/* tree.c: creating and destroying a tree, errors, bodies, frames, mobilizers and the
 * public per-mobilizer interface (seed: Mobilizer, MultibodyTree).
 *
 * Every builder validates first and appends last, so a failed call leaves the tree
 * unchanged and mbt_tree_last_error() names the element and the problem. */
#include <float.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mobilizers/mobilizer_kernels.h"
#include "tree/names.h"
#include "tree/tree_build.h"

/* ---- errors ----------------------------------------------------------------------------- */
int mbt__tree_error(const mbt_tree* tree, int status, const char* fmt, ...) {
  if (tree) {
    /* The error buffer is the one field a const call may write. */
    mbt_tree* t = (mbt_tree*)tree;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->error, sizeof t->error, fmt, ap);
    va_end(ap);
  }
  return status;
}

void mbt__tree_clear_error(const mbt_tree* tree) {
  if (tree) ((mbt_tree*)tree)->error[0] = '\0';
}

const char* mbt_tree_last_error(const mbt_tree* tree) { return tree ? tree->error : ""; }

char* mbt__tree_name(mbt_tree* tree, const char* name, const char* suffix) {
  return mbt__arena_concat(&tree->arena, name, suffix);
}

void mbt__describe(char* what, size_t size, const char* kind, const char* name) {
  const char* parts[4] = {kind, " '", name ? name : "", "'"};
  size_t n = 0;
  for (int i = 0; i < 4; ++i)
    for (const char* c = parts[i]; *c && n + 1 < size; ++c) what[n++] = *c;
  what[n] = '\0';
}

/* ---- capacity ----------------------------------------------------------------------------- */
/* Room for `need` elements: doubling (amortized O(1) per append), or exactly `need` when asked. */
static int grow_to(void** array, int* cap, int need, size_t elem, bool exact) {
  if (need <= *cap) return MBT_OK;
  int n = exact ? need : *cap > 0 ? *cap : 4;
  while (n < need) n = n > INT_MAX / 2 ? need : 2 * n;
  void* p = realloc(*array, (size_t)n * elem);
  if (!p) return MBT_ERR_NO_MEMORY;
  *array = p;
  *cap = n;
  return MBT_OK;
}

static int grow(void** array, int* cap, int need, size_t elem) { return grow_to(array, cap, need, elem, false); }

static int reserve_bodies(mbt_tree* tree, int extra) {
  return grow((void**)&tree->bodies, &tree->cap_bodies, tree->num_bodies + extra, sizeof(mbt_body));
}

int mbt__tree_reserve(mbt_tree* tree, int frames, int mobilizers, int joints, int forces) {
  if (grow((void**)&tree->frames, &tree->cap_frames, tree->num_frames + frames, sizeof(mbt_frame)) ||
      grow((void**)&tree->mobilizers, &tree->cap_mobilizers, tree->num_mobilizers + mobilizers,
           sizeof(mbt_mobilizer)) ||
      grow((void**)&tree->joints, &tree->cap_joints, tree->num_joints + joints, sizeof(mbt_joint)) ||
      grow((void**)&tree->forces, &tree->cap_forces, tree->num_forces + forces, sizeof(mbt_force_element)))
    return mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "out of memory");
  return MBT_OK;
}

int mbt__tree_reserve_model(mbt_tree* tree, int bodies, int frames, int mobilizers, int joints) {
  mbt_tree_index* ix = tree->index;
  const int nb = tree->num_bodies + bodies, nf = tree->num_frames + frames;
  const int nm = tree->num_mobilizers + mobilizers, nj = tree->num_joints + joints;
  if (grow_to((void**)&tree->bodies, &tree->cap_bodies, nb, sizeof(mbt_body), true) ||
      grow_to((void**)&tree->frames, &tree->cap_frames, nf, sizeof(mbt_frame), true) ||
      grow_to((void**)&tree->mobilizers, &tree->cap_mobilizers, nm, sizeof(mbt_mobilizer), true) ||
      grow_to((void**)&tree->joints, &tree->cap_joints, nj, sizeof(mbt_joint), true) ||
      mbt__names_reserve(&ix->bodies, nb) || mbt__names_reserve(&ix->frames, nf) ||
      mbt__names_reserve(&ix->mobilizers, nm) || mbt__names_reserve(&ix->joints, nj))
    return mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "out of memory");
  return MBT_OK;
}

/* ---- lifetime ------------------------------------------------------------------------------ */
static const mbt_spatial_inertia kZeroInertia = {0, {{0, 0, 0}}, {0, 0, 0, 0, 0, 0}};

mbt_tree* mbt_tree_create(void) {
  mbt_tree* tree = calloc(1, sizeof *tree);
  if (!tree) return NULL;
  tree->index = calloc(1, sizeof *tree->index);
  if (!tree->index) {
    free(tree);
    return NULL;
  }
  char* world = mbt__tree_name(tree, "world", NULL);
  char* gravity = mbt__tree_name(tree, "gravity", NULL);
  if (!world || !gravity || reserve_bodies(tree, 1) || mbt__tree_reserve(tree, 1, 0, 0, 1)) {
    mbt_tree_destroy(tree);
    return NULL;
  }
  mbt_body* b = &tree->bodies[0];
  memset(b, 0, sizeof *b);
  b->name = world;
  b->M_BBo_B = kZeroInertia;
  b->body_frame = 0;
  b->mobilizer = -1;
  b->parent = -1;
  b->node = 0;
  b->level = 0;
  tree->num_bodies = 1;

  mbt_frame* f = &tree->frames[0];
  f->name = world;
  f->body = 0;
  f->parent_frame = 0;
  f->X_BF = mbt_transform_identity();
  tree->num_frames = 1;

  mbt_force_element* g = &tree->forces[0];
  memset(g, 0, sizeof *g);
  g->name = gravity;
  g->type = MBT_FORCE_UNIFORM_GRAVITY;
  g->u.gravity.g_W = mbt_vec3_make(0, 0, -9.81);
  tree->num_forces = 1;
  return tree;
}

void mbt_tree_destroy(mbt_tree* tree) {
  if (!tree) return;
  mbt__arena_free(&tree->arena);
  free(tree->bodies);
  free(tree->frames);
  free(tree->mobilizers);
  free(tree->joints);
  free(tree->forces);
  free(tree->nodes);
  free(tree->level_start);
  free(tree->level_nodes);
  free(tree->body_children);
  free(tree->v_node);
  mbt__geometry_free(tree);
  if (tree->index) {
    mbt__names_free(&tree->index->bodies);
    mbt__names_free(&tree->index->frames);
    mbt__names_free(&tree->index->mobilizers);
    mbt__names_free(&tree->index->joints);
    mbt__names_free(&tree->index->forces);
    free(tree->index->jump);
    free(tree->index);
  }
  free(tree);
}

/* ---- names and checks ----------------------------------------------------------------------- */
/* Hash lookups (names.h). While the tree is being built the table first catches up with the
 * elements appended since the last lookup; a finalized tree is shared read-only between
 * threads, so its tables are only read (elements appended after the last lookup before
 * finalize are scanned). */
#define FIND_BY_NAME(fn, array, count)                                                          \
  int fn(const mbt_tree* tree, const char* name) {                                              \
    if (!tree || !name) return -1;                                                              \
    mbt_name_table* t = &tree->index->array;                                                    \
    if (!tree->finalized) (void)mbt__names_sync(t, tree->array, sizeof tree->array[0], tree->count); \
    return mbt__names_find(t, tree->array, sizeof tree->array[0], tree->count, name);           \
  }
FIND_BY_NAME(mbt__find_body, bodies, num_bodies)
FIND_BY_NAME(mbt__find_frame, frames, num_frames)
FIND_BY_NAME(mbt__find_mobilizer, mobilizers, num_mobilizers)
FIND_BY_NAME(mbt__find_joint, joints, num_joints)
FIND_BY_NAME(mbt__find_force, forces, num_forces)
#undef FIND_BY_NAME

void mbt__tree_index_names(mbt_tree* tree) {
  mbt_tree_index* ix = tree->index;
  (void)mbt__names_sync(&ix->bodies, tree->bodies, sizeof tree->bodies[0], tree->num_bodies);
  (void)mbt__names_sync(&ix->frames, tree->frames, sizeof tree->frames[0], tree->num_frames);
  (void)mbt__names_sync(&ix->mobilizers, tree->mobilizers, sizeof tree->mobilizers[0], tree->num_mobilizers);
  (void)mbt__names_sync(&ix->joints, tree->joints, sizeof tree->joints[0], tree->num_joints);
  (void)mbt__names_sync(&ix->forces, tree->forces, sizeof tree->forces[0], tree->num_forces);
}

int mbt__check_not_finalized(const mbt_tree* tree, const char* what) {
  if (tree->finalized)
    return mbt__tree_error(tree, MBT_ERR_FINALIZED, "%s: cannot be added, the tree is already finalized",
                           what);
  return MBT_OK;
}

int mbt__check_name(const mbt_tree* tree, const char* kind, const char* name) {
  if (!name || !name[0])
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: the name is empty", kind);
  return MBT_OK;
}

/* The outermost inboard ancestor of `body` (the body itself if it has no inboard mobilizer),
 * by the jump pointers of the tree's index with path compression [Tarjan 1975]: each jump
 * goes to an ancestor, and ancestors never change once a mobilizer is added, so a body
 * reached this way stays an ancestor. Amortized near O(1); walks the parents if the jump
 * array cannot grow. */
static int outermost_ancestor(const mbt_tree* tree, int body) {
  mbt_tree_index* ix = tree->index;
  if (ix->cap_jump < tree->num_bodies) {
    int cap = ix->cap_jump > 0 ? ix->cap_jump : 16;
    while (cap < tree->num_bodies) cap *= 2;
    int* jump = realloc(ix->jump, (size_t)cap * sizeof *jump);
    if (!jump) {
      int b = body;
      for (int steps = 0; tree->bodies[b].parent >= 0 && steps <= tree->num_bodies; ++steps) b = tree->bodies[b].parent;
      return b;
    }
    ix->jump = jump;
    ix->cap_jump = cap;
  }
  for (; ix->num_jump < tree->num_bodies; ++ix->num_jump) ix->jump[ix->num_jump] = ix->num_jump;
  int root = body;
  while (tree->bodies[root].parent >= 0) root = ix->jump[root] != root ? ix->jump[root] : tree->bodies[root].parent;
  for (int b = body; b != root;) {
    const int next = ix->jump[b] != b ? ix->jump[b] : tree->bodies[b].parent;
    ix->jump[b] = root;
    b = next;
  }
  return root;
}

int mbt__check_connection(const mbt_tree* tree, const char* what, int inboard_body, int outboard_body) {
  const char* in = tree->bodies[inboard_body].name;
  const char* out = tree->bodies[outboard_body].name;
  if (inboard_body == outboard_body)
    return mbt__tree_error(tree, MBT_ERR_TOPOLOGY, "%s: connects body '%s' to itself", what, in);
  if (outboard_body == 0)
    return mbt__tree_error(tree, MBT_ERR_TOPOLOGY,
                           "%s: the world body cannot be the outboard (child) body (inboard '%s')", what, in);
  /* A body has at most one inboard mobilizer, so a mobilizer between the two is the inboard
   * mobilizer of one of them. */
  const int pair[2] = {tree->bodies[outboard_body].mobilizer, tree->bodies[inboard_body].mobilizer};
  for (int k = 0; k < 2; ++k) {
    const mbt_mobilizer* mob = pair[k] >= 0 ? &tree->mobilizers[pair[k]] : NULL;
    if (mob && mob->inboard_body == (k == 0 ? inboard_body : outboard_body))
      return mbt__tree_error(tree, MBT_ERR_TOPOLOGY,
                             "%s: bodies '%s' and '%s' are already connected by mobilizer '%s'", what, in,
                             out, mob->name);
  }
  if (tree->bodies[outboard_body].mobilizer >= 0)
    return mbt__tree_error(tree, MBT_ERR_TOPOLOGY,
                           "%s: body '%s' already has inboard mobilizer '%s' (a second one would close a "
                           "kinematic loop)",
                           what, out, tree->mobilizers[tree->bodies[outboard_body].mobilizer].name);
  /* outboard_body has no inboard mobilizer: it is an ancestor of inboard_body iff it is
   * inboard_body's outermost ancestor. */
  if (outermost_ancestor(tree, inboard_body) == outboard_body)
    return mbt__tree_error(tree, MBT_ERR_TOPOLOGY,
                           "%s: body '%s' is inboard of body '%s'; connecting them closes a kinematic loop",
                           what, out, in);
  return MBT_OK;
}

int mbt__check_axis(const mbt_tree* tree, const char* what, const mbt_vec3* axis, mbt_vec3* unit) {
  if (!axis) return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: the axis is missing", what);
  for (int i = 0; i < 3; ++i)
    if (!mbt_isfinite(axis->v[i]))
      return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: the axis (%g, %g, %g) is not finite", what,
                             axis->v[0], axis->v[1], axis->v[2]);
  mbt_real n = mbt_vec3_norm(*axis);
  if (mbt_lt(n, mbt_sqrt(DBL_EPSILON)))
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT,
                           "%s: the axis (%g, %g, %g) is the zero vector (norm %g below sqrt(eps))", what,
                           axis->v[0], axis->v[1], axis->v[2], n);
  *unit = mbt_vec3_scale(*axis, 1 / n);
  return MBT_OK;
}

int mbt__check_transform(const mbt_tree* tree, const char* what, const char* which, const mbt_transform* X) {
  for (int i = 0; i < 3; ++i) {
    if (!mbt_isfinite(X->p.v[i]))
      return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: %s has a non-finite position", what, which);
    for (int j = 0; j < 3; ++j)
      if (!mbt_isfinite(X->R.m[i][j]))
        return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: %s has a non-finite rotation", what,
                               which);
  }
  if (!mbt_rotation_is_valid(&X->R, 1e-9))
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: the rotation of %s is not a rotation matrix", what,
                           which);
  return MBT_OK;
}

static int check_frame(const mbt_tree* tree, const char* what, int frame, const char* role) {
  if (frame < 0 || frame >= tree->num_frames)
    return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "%s: unknown %s frame %d (the tree has %d frames)", what,
                           role, frame, tree->num_frames);
  return MBT_OK;
}

/* ---- bodies --------------------------------------------------------------------------------- */
static bool inertia_is_finite(const mbt_spatial_inertia* M) {
  const mbt_unit_inertia* G = &M->G_SP_E;
  return mbt_isfinite(M->mass) && mbt_isfinite(M->p_PScm_E.v[0]) && mbt_isfinite(M->p_PScm_E.v[1]) &&
         mbt_isfinite(M->p_PScm_E.v[2]) && mbt_isfinite(G->xx) && mbt_isfinite(G->yy) &&
         mbt_isfinite(G->zz) && mbt_isfinite(G->xy) && mbt_isfinite(G->xz) && mbt_isfinite(G->yz);
}

/* Full check: mbt_spatial_inertia_is_physically_valid (Drake SpatialInertia::IsPhysicallyValid:
 * mass >= 0, finite values, principal moments about the center of mass >= 0 satisfying the
 * triangle inequality). Unchecked bodies still need finite values and mass >= 0. */
static int check_inertia(const mbt_tree* tree, const char* what, const mbt_spatial_inertia* M, bool full) {
  if (full) {
    char why[384];
    if (!mbt_spatial_inertia_is_physically_valid(M, why, sizeof why))
      return mbt__tree_error(tree, MBT_ERR_NONPHYSICAL, "%s: non-physical %s", what, why);
    return MBT_OK;
  }
  if (!inertia_is_finite(M))
    return mbt__tree_error(tree, MBT_ERR_NONPHYSICAL, "%s: the spatial inertia has non-finite values", what);
  if (mbt_lt(M->mass, 0))
    return mbt__tree_error(tree, MBT_ERR_NONPHYSICAL, "%s: the mass %g is negative", what, M->mass);
  return MBT_OK;
}

static int add_body(mbt_tree* tree, const char* name, const mbt_spatial_inertia* M_BBo_B, bool full) {
  if (!tree) return MBT_ERR_INVALID_ARGUMENT;
  char what[96];
  mbt__describe(what, sizeof what, "body", name);
  int s;
  if ((s = mbt__check_not_finalized(tree, what)) || (s = mbt__check_name(tree, "body", name))) return s;
  if (!M_BBo_B) return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: the spatial inertia is missing", what);
  /* A body's frame takes its name: one lookup finds either. */
  const int same = mbt__find_frame(tree, name);
  if (same >= 0 && tree->frames[same].parent_frame == same)
    return mbt__tree_error(tree, MBT_ERR_DUPLICATE, "%s: a body with this name already exists", what);
  if (same >= 0)
    return mbt__tree_error(tree, MBT_ERR_DUPLICATE, "%s: a frame named '%s' already exists (the body frame takes "
                           "the body's name)", what, name);
  if ((s = check_inertia(tree, what, M_BBo_B, full))) return s;
  char* body_name; /* the body's and its frame's */
  if (reserve_bodies(tree, 1) || mbt__tree_reserve(tree, 1, 0, 0, 0) || !(body_name = mbt__tree_name(tree, name, NULL)))
    return mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "%s: out of memory", what);
  int body = tree->num_bodies;
  int frame = tree->num_frames;
  mbt_body* b = &tree->bodies[body];
  memset(b, 0, sizeof *b);
  b->name = body_name;
  b->M_BBo_B = *M_BBo_B;
  b->body_frame = frame;
  b->mobilizer = -1;
  b->parent = -1;
  b->node = -1;
  b->level = -1;
  b->first_child_slot = 0;
  mbt_frame* f = &tree->frames[frame];
  f->name = body_name;
  f->body = body;
  f->parent_frame = frame;
  f->X_BF = mbt_transform_identity();
  tree->num_bodies++;
  tree->num_frames++;
  return body;
}

int mbt_tree_add_rigid_body(mbt_tree* tree, const char* name, const mbt_spatial_inertia* M_BBo_B) {
  return add_body(tree, name, M_BBo_B, true);
}

int mbt_tree_add_rigid_body_unchecked(mbt_tree* tree, const char* name, const mbt_spatial_inertia* M_BBo_B) {
  return add_body(tree, name, M_BBo_B, false);
}

int mbt_tree_num_bodies(const mbt_tree* tree) { return tree->num_bodies; }

static bool body_ok(const mbt_tree* tree, int body) {
  if (body >= 0 && body < tree->num_bodies) return true;
  mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "unknown body %d (the tree has %d bodies)", body, tree->num_bodies);
  return false;
}

static bool frame_ok(const mbt_tree* tree, int frame) {
  if (frame >= 0 && frame < tree->num_frames) return true;
  mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "unknown frame %d (the tree has %d frames)", frame, tree->num_frames);
  return false;
}

static bool mobilizer_ok(const mbt_tree* tree, int m) {
  if (m >= 0 && m < tree->num_mobilizers) return true;
  mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "unknown mobilizer %d (the tree has %d mobilizers)", m,
                  tree->num_mobilizers);
  return false;
}

const char* mbt_tree_body_name(const mbt_tree* tree, int body) {
  return body_ok(tree, body) ? tree->bodies[body].name : NULL;
}

int mbt_tree_body_by_name(const mbt_tree* tree, const char* name) {
  int i = mbt__find_body(tree, name);
  if (i < 0) return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "no body named '%s'", name ? name : "(null)");
  return i;
}

int mbt_tree_body_frame(const mbt_tree* tree, int body) {
  return body_ok(tree, body) ? tree->bodies[body].body_frame : MBT_ERR_NOT_FOUND;
}

const mbt_spatial_inertia* mbt_tree_body_spatial_inertia(const mbt_tree* tree, int body) {
  return body_ok(tree, body) ? &tree->bodies[body].M_BBo_B : NULL;
}

int mbt_tree_world_body(const mbt_tree* tree) {
  (void)tree;
  return 0;
}

int mbt_tree_world_frame(const mbt_tree* tree) {
  (void)tree;
  return 0;
}

mbt_real mbt_tree_total_mass(const mbt_tree* tree) {
  mbt_real m = 0;
  for (int b = 1; b < tree->num_bodies; ++b) m += tree->bodies[b].M_BBo_B.mass;
  return m;
}

/* ---- frames --------------------------------------------------------------------------------- */
int mbt__append_frame(mbt_tree* tree, char* name, int parent_frame, const mbt_transform* X_PF) {
  int frame = tree->num_frames;
  const mbt_frame* P = &tree->frames[parent_frame];
  mbt_frame* f = &tree->frames[frame];
  f->name = name;
  f->body = P->body;
  f->parent_frame = parent_frame;
  f->X_BF = mbt_transform_compose(&P->X_BF, X_PF); /* X_BF = X_BP·X_PF */
  tree->num_frames++;
  return frame;
}

int mbt_tree_add_fixed_offset_frame(mbt_tree* tree, const char* name, int parent_frame, const mbt_transform* X_PF) {
  if (!tree) return MBT_ERR_INVALID_ARGUMENT;
  char what[96];
  mbt__describe(what, sizeof what, "frame", name);
  int s;
  if ((s = mbt__check_not_finalized(tree, what)) || (s = mbt__check_name(tree, "frame", name)) ||
      (s = check_frame(tree, what, parent_frame, "parent")))
    return s;
  if (mbt__find_frame(tree, name) >= 0)
    return mbt__tree_error(tree, MBT_ERR_DUPLICATE, "%s: a frame with this name already exists", what);
  if (!X_PF) return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: the pose X_PF is missing", what);
  if ((s = mbt__check_transform(tree, what, "X_PF", X_PF))) return s;
  char* copy;
  if (mbt__tree_reserve(tree, 1, 0, 0, 0) || !(copy = mbt__tree_name(tree, name, NULL)))
    return mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "%s: out of memory", what);
  return mbt__append_frame(tree, copy, parent_frame, X_PF);
}

int mbt_tree_num_frames(const mbt_tree* tree) { return tree->num_frames; }

const char* mbt_tree_frame_name(const mbt_tree* tree, int frame) {
  return frame_ok(tree, frame) ? tree->frames[frame].name : NULL;
}

int mbt_tree_frame_by_name(const mbt_tree* tree, const char* name) {
  int i = mbt__find_frame(tree, name);
  if (i < 0) return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "no frame named '%s'", name ? name : "(null)");
  return i;
}

int mbt_tree_frame_body(const mbt_tree* tree, int frame) {
  return frame_ok(tree, frame) ? tree->frames[frame].body : MBT_ERR_NOT_FOUND;
}

int mbt_tree_frame_pose_in_body(const mbt_tree* tree, int frame, mbt_transform* X_BF) {
  if (!frame_ok(tree, frame)) return MBT_ERR_NOT_FOUND;
  *X_BF = tree->frames[frame].X_BF;
  return MBT_OK;
}

/* ---- mobilizers ------------------------------------------------------------------------------ */
int mbt__mobilizer_type_nq(mbt_mobilizer_type type) {
  switch (type) {
    case MBT_MOBILIZER_WELD: return 0;
    case MBT_MOBILIZER_REVOLUTE:
    case MBT_MOBILIZER_PRISMATIC:
    case MBT_MOBILIZER_SCREW: return 1;
    case MBT_MOBILIZER_UNIVERSAL: return 2;
    case MBT_MOBILIZER_PLANAR:
    case MBT_MOBILIZER_SPACE_XYZ: return 3;
    case MBT_MOBILIZER_QUATERNION_FLOATING: return 7;
    default: return -1;
  }
}

int mbt__mobilizer_type_nv(mbt_mobilizer_type type) {
  return type == MBT_MOBILIZER_QUATERNION_FLOATING ? 6 : mbt__mobilizer_type_nq(type);
}

static bool type_has_axis(mbt_mobilizer_type type) {
  return type == MBT_MOBILIZER_REVOLUTE || type == MBT_MOBILIZER_PRISMATIC || type == MBT_MOBILIZER_SCREW;
}

int mbt__append_mobilizer(mbt_tree* tree, char* name, mbt_mobilizer_type type, int inboard_frame,
                          int outboard_frame, mbt_vec3 unit_axis, mbt_real pitch, int joint) {
  int m = tree->num_mobilizers;
  mbt_mobilizer* mob = &tree->mobilizers[m];
  memset(mob, 0, sizeof *mob);
  mob->name = name;
  mob->type = type;
  mob->inboard_frame = inboard_frame;
  mob->outboard_frame = outboard_frame;
  mob->inboard_body = tree->frames[inboard_frame].body;
  mob->outboard_body = tree->frames[outboard_frame].body;
  mob->joint = joint;
  mob->nq = mbt__mobilizer_type_nq(type);
  mob->nv = mbt__mobilizer_type_nv(type);
  mob->q_start = -1;
  mob->v_start = -1;
  mob->axis = type_has_axis(type) ? unit_axis : mbt_vec3_zero();
  mob->pitch = type == MBT_MOBILIZER_SCREW ? pitch : 0;
  tree->bodies[mob->outboard_body].mobilizer = m;
  tree->bodies[mob->outboard_body].parent = mob->inboard_body;
  tree->num_mobilizers++;
  return m;
}

int mbt_tree_add_mobilizer(mbt_tree* tree, const char* name, mbt_mobilizer_type type, int inboard_frame,
                           int outboard_frame, const mbt_vec3* axis, mbt_real screw_pitch) {
  if (!tree) return MBT_ERR_INVALID_ARGUMENT;
  char what[96];
  mbt__describe(what, sizeof what, "mobilizer", name);
  int s;
  if ((s = mbt__check_not_finalized(tree, what)) || (s = mbt__check_name(tree, "mobilizer", name))) return s;
  if (mbt__find_mobilizer(tree, name) >= 0)
    return mbt__tree_error(tree, MBT_ERR_DUPLICATE, "%s: a mobilizer with this name already exists", what);
  if ((int)type < 0 || type >= MBT_MOBILIZER_NUM_TYPES)
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: unknown mobilizer type %d", what, (int)type);
  if ((s = check_frame(tree, what, inboard_frame, "inboard")) ||
      (s = check_frame(tree, what, outboard_frame, "outboard")))
    return s;
  if (inboard_frame == outboard_frame)
    return mbt__tree_error(tree, MBT_ERR_TOPOLOGY, "%s: connects frame '%s' to itself", what,
                           tree->frames[inboard_frame].name);
  if (tree->frames[inboard_frame].body == tree->frames[outboard_frame].body)
    return mbt__tree_error(tree, MBT_ERR_TOPOLOGY, "%s: frames '%s' and '%s' are both on body '%s'", what,
                           tree->frames[inboard_frame].name, tree->frames[outboard_frame].name,
                           tree->bodies[tree->frames[inboard_frame].body].name);
  if ((s = mbt__check_connection(tree, what, tree->frames[inboard_frame].body, tree->frames[outboard_frame].body)))
    return s;
  mbt_vec3 unit = mbt_vec3_zero();
  if (type_has_axis(type) && (s = mbt__check_axis(tree, what, axis, &unit))) return s;
  if (type == MBT_MOBILIZER_SCREW && !mbt_isfinite(screw_pitch))
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: the screw pitch is not finite", what);
  char* copy;
  if (mbt__tree_reserve(tree, 0, 1, 0, 0) || !(copy = mbt__tree_name(tree, name, NULL)))
    return mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "%s: out of memory", what);
  return mbt__append_mobilizer(tree, copy, type, inboard_frame, outboard_frame, unit, screw_pitch, -1);
}

int mbt_tree_num_mobilizers(const mbt_tree* tree) { return tree->num_mobilizers; }

const char* mbt_mobilizer_name(const mbt_tree* tree, int mobilizer) {
  return mobilizer_ok(tree, mobilizer) ? tree->mobilizers[mobilizer].name : NULL;
}

mbt_mobilizer_type mbt_mobilizer_type_of(const mbt_tree* tree, int mobilizer) {
  return mobilizer_ok(tree, mobilizer) ? tree->mobilizers[mobilizer].type : MBT_MOBILIZER_NUM_TYPES;
}

const char* mbt_mobilizer_type_name(mbt_mobilizer_type type) {
  switch (type) {
    case MBT_MOBILIZER_WELD: return "weld";
    case MBT_MOBILIZER_REVOLUTE: return "revolute";
    case MBT_MOBILIZER_PRISMATIC: return "prismatic";
    case MBT_MOBILIZER_UNIVERSAL: return "universal";
    case MBT_MOBILIZER_PLANAR: return "planar";
    case MBT_MOBILIZER_SPACE_XYZ: return "space_xyz";
    case MBT_MOBILIZER_QUATERNION_FLOATING: return "quaternion_floating";
    case MBT_MOBILIZER_SCREW: return "screw";
    default: return "unknown";
  }
}

#define MOBILIZER_INT_GETTER(fn, field)                                          \
  int fn(const mbt_tree* tree, int mobilizer) {                                  \
    return mobilizer_ok(tree, mobilizer) ? tree->mobilizers[mobilizer].field : MBT_ERR_NOT_FOUND; \
  }
MOBILIZER_INT_GETTER(mbt_mobilizer_num_positions, nq)
MOBILIZER_INT_GETTER(mbt_mobilizer_num_velocities, nv)
MOBILIZER_INT_GETTER(mbt_mobilizer_inboard_frame, inboard_frame)
MOBILIZER_INT_GETTER(mbt_mobilizer_outboard_frame, outboard_frame)
MOBILIZER_INT_GETTER(mbt_mobilizer_inboard_body, inboard_body)
MOBILIZER_INT_GETTER(mbt_mobilizer_outboard_body, outboard_body)
MOBILIZER_INT_GETTER(mbt_mobilizer_joint, joint)
#undef MOBILIZER_INT_GETTER

int mbt_mobilizer_position_start_in_q(const mbt_tree* tree, int mobilizer) {
  if (!mobilizer_ok(tree, mobilizer)) return MBT_ERR_NOT_FOUND;
  if (!tree->finalized)
    return mbt__tree_error(tree, MBT_ERR_NOT_FINALIZED, "mobilizer '%s': q slices are assigned at finalize",
                           tree->mobilizers[mobilizer].name);
  return tree->mobilizers[mobilizer].q_start;
}

int mbt_mobilizer_velocity_start_in_v(const mbt_tree* tree, int mobilizer) {
  if (!mobilizer_ok(tree, mobilizer)) return MBT_ERR_NOT_FOUND;
  if (!tree->finalized)
    return mbt__tree_error(tree, MBT_ERR_NOT_FINALIZED, "mobilizer '%s': v slices are assigned at finalize",
                           tree->mobilizers[mobilizer].name);
  return tree->mobilizers[mobilizer].v_start;
}

bool mbt_mobilizer_can_rotate(const mbt_tree* tree, int mobilizer) {
  return mobilizer_ok(tree, mobilizer) && mbt__mob_can_rotate(tree->mobilizers[mobilizer].type);
}

bool mbt_mobilizer_can_translate(const mbt_tree* tree, int mobilizer) {
  return mobilizer_ok(tree, mobilizer) && mbt__mob_can_translate(tree->mobilizers[mobilizer].type);
}

static bool slices_ok(const mbt_tree* tree, int mobilizer) {
  if (!mobilizer_ok(tree, mobilizer)) return false;
  if (tree->finalized) return true;
  mbt__tree_error(tree, MBT_ERR_NOT_FINALIZED, "mobilizer '%s': slices are assigned at finalize",
                  tree->mobilizers[mobilizer].name);
  return false;
}

const mbt_real* mbt_mobilizer_positions_from_array(const mbt_tree* tree, int mobilizer, const mbt_real* q_array) {
  return slices_ok(tree, mobilizer) && q_array ? q_array + tree->mobilizers[mobilizer].q_start : NULL;
}

mbt_real* mbt_mobilizer_mutable_positions_from_array(const mbt_tree* tree, int mobilizer, mbt_real* q_array) {
  return slices_ok(tree, mobilizer) && q_array ? q_array + tree->mobilizers[mobilizer].q_start : NULL;
}

const mbt_real* mbt_mobilizer_velocities_from_array(const mbt_tree* tree, int mobilizer, const mbt_real* v_array) {
  return slices_ok(tree, mobilizer) && v_array ? v_array + tree->mobilizers[mobilizer].v_start : NULL;
}

mbt_real* mbt_mobilizer_mutable_velocities_from_array(const mbt_tree* tree, int mobilizer, mbt_real* v_array) {
  return slices_ok(tree, mobilizer) && v_array ? v_array + tree->mobilizers[mobilizer].v_start : NULL;
}

static bool transform_is_identity(const mbt_transform* X) {
  for (int i = 0; i < 3; ++i) {
    if (X->p.v[i] != 0) return false;
    for (int j = 0; j < 3; ++j)
      if (X->R.m[i][j] != (i == j ? 1 : 0)) return false;
  }
  return true;
}

void mbt__node_from_mobilizer(const mbt_tree* tree, int mobilizer, mbt_node* n) {
  const mbt_mobilizer* m = &tree->mobilizers[mobilizer];
  const mbt_body* B = &tree->bodies[m->outboard_body];
  const double two_pi = 6.283185307179586476925286766559;
  memset(n, 0, sizeof *n);
  n->body = m->outboard_body;
  n->parent_node = tree->finalized ? tree->bodies[m->inboard_body].node : -1;
  n->mobilizer = mobilizer;
  n->joint = m->joint;
  n->level = tree->finalized ? B->level : -1;
  n->type = m->type;
  n->nq = m->nq;
  n->nv = m->nv;
  n->q_start = m->q_start;
  n->v_start = m->v_start;
  n->axis = m->axis;
  n->pitch = m->pitch / two_pi; /* translation per radian */
  n->X_PF = tree->frames[m->inboard_frame].X_BF;
  n->X_MB = mbt_transform_inverse(&tree->frames[m->outboard_frame].X_BF);
  n->X_PF_is_identity = transform_is_identity(&n->X_PF);
  n->X_MB_is_identity = transform_is_identity(&n->X_MB);
  n->subtree_end = -1;
}

/* The seed Mobilizer interface, one mobilizer at a time: a node copy and the kernels. */
void mbt_mobilizer_set_zero_state(const mbt_tree* tree, int mobilizer, mbt_real* q, mbt_real* v) {
  if (!mobilizer_ok(tree, mobilizer)) return;
  mbt_node n;
  mbt__node_from_mobilizer(tree, mobilizer, &n);
  mbt__mob_set_zero_state(&n, q, v);
}

void mbt_mobilizer_calc_across_mobilizer_transform(const mbt_tree* tree, int mobilizer, const mbt_real* q,
                                                   mbt_transform* X_FM) {
  if (!mobilizer_ok(tree, mobilizer)) return;
  mbt_node n;
  mbt__node_from_mobilizer(tree, mobilizer, &n);
  mbt__mob_calc_X_FM(&n, q, X_FM);
}

void mbt_mobilizer_calc_across_mobilizer_spatial_velocity(const mbt_tree* tree, int mobilizer, const mbt_real* q,
                                                          const mbt_real* v, mbt_spatial_velocity* V_FM_F) {
  if (!mobilizer_ok(tree, mobilizer)) return;
  mbt_node n;
  mbt__node_from_mobilizer(tree, mobilizer, &n);
  mbt__mob_calc_V_FM(&n, q, v, V_FM_F);
}

void mbt_mobilizer_calc_across_mobilizer_spatial_acceleration(const mbt_tree* tree, int mobilizer,
                                                              const mbt_real* q, const mbt_real* v,
                                                              const mbt_real* vdot,
                                                              mbt_spatial_acceleration* A_FM_F) {
  if (!mobilizer_ok(tree, mobilizer)) return;
  mbt_node n;
  mbt__node_from_mobilizer(tree, mobilizer, &n);
  mbt__mob_calc_A_FM(&n, q, v, vdot, A_FM_F);
}

void mbt_mobilizer_project_spatial_force(const mbt_tree* tree, int mobilizer, const mbt_real* q,
                                         const mbt_spatial_force* F_Mo_F, mbt_real* tau) {
  if (!mobilizer_ok(tree, mobilizer)) return;
  mbt_node n;
  mbt__node_from_mobilizer(tree, mobilizer, &n);
  mbt__mob_project_spatial_force(&n, q, F_Mo_F, tau);
}

void mbt_mobilizer_calc_H_FM(const mbt_tree* tree, int mobilizer, const mbt_real* q, mbt_spatial_velocity* H_FM_F) {
  if (!mobilizer_ok(tree, mobilizer)) return;
  mbt_node n;
  mbt__node_from_mobilizer(tree, mobilizer, &n);
  mbt__mob_calc_H_FM(&n, q, H_FM_F);
}

void mbt_mobilizer_map_velocity_to_qdot(const mbt_tree* tree, int mobilizer, const mbt_real* q,
                                        const mbt_real* v, mbt_real* qdot) {
  if (!mobilizer_ok(tree, mobilizer)) return;
  mbt_node n;
  mbt__node_from_mobilizer(tree, mobilizer, &n);
  mbt__mob_map_velocity_to_qdot(&n, q, v, qdot);
}

int mbt_mobilizer_map_qdot_to_velocity(const mbt_tree* tree, int mobilizer, const mbt_real* q,
                                       const mbt_real* qdot, mbt_real* v) {
  if (!mobilizer_ok(tree, mobilizer)) return MBT_ERR_NOT_FOUND;
  mbt_node n;
  mbt__node_from_mobilizer(tree, mobilizer, &n);
  int s = mbt__mob_map_qdot_to_velocity(&n, q, qdot, v);
  if (s) return mbt__tree_error(tree, s, "mobilizer '%s': N(q) has no left inverse at this q",
                                tree->mobilizers[mobilizer].name);
  return MBT_OK;
}
