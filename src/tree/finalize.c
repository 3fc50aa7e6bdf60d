/* finalize.c: the topology of a tree (seed: MultibodyTree::Finalize, get_tree_height).
 *
 * Body-node order: depth-first from the world, children in the order their mobilizers
 * were added, so every body comes after its parent and each subtree is the contiguous
 * node range [node, subtree_end). Levels are the distance from the world; the height is
 * the number of levels (the world alone has height 1). The q and v slices are assigned in
 * node order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tree/tree_build.h"

/* The fields of a node that let the kernels take specialized paths: a unit axis along
 * ±x̂, ±ŷ, ±ẑ (exactly, as URDF axes usually are) makes R_FM a plane rotation of two
 * columns; p_MoBo_B is constant. */
static bool mat3_is_identity(const mbt_mat3* R) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (mbt_value(R->m[i][j]) != (i == j ? 1.0 : 0.0)) return false;
  return true;
}

static void derive_node(mbt_node* n) {
  n->axis_k = 0;
  if (n->type == MBT_MOBILIZER_REVOLUTE || n->type == MBT_MOBILIZER_PRISMATIC || n->type == MBT_MOBILIZER_SCREW) {
    for (int k = 0; k < 3; ++k) {
      const mbt_real a = n->axis.v[k], b = n->axis.v[(k + 1) % 3], c = n->axis.v[(k + 2) % 3];
      if (mbt_value(b) == 0 && mbt_value(c) == 0 && (mbt_value(a) == 1 || mbt_value(a) == -1))
        n->axis_k = mbt_value(a) > 0 ? k + 1 : -(k + 1);
    }
  }
  /* p_MoBo_M = X_MB.p, so p_MoBo_B = R_MBᵀ·p_MoBo_M. */
  n->p_MoBo_B = n->X_MB_is_identity ? mbt_vec3_zero() : mbt_mat3_tmul_vec(&n->X_MB.R, n->X_MB.p);
}

/* R_MM̃ = P for a revolute or prismatic axis â (in F = M at q = 0): the columns of P are the axes
 * x̃, ỹ, z̃ = â of a right-handed frame, so that R_F̃M̃ = Pᵀ·R_FM·P is the rotation about z̃. For
 * â = ±ê_k, (k, i, j) cyclic, P is a signed permutation, exact: (ê_i, ê_j, ê_k) or
 * (ê_j, ê_i, −ê_k); otherwise x̃ is the coordinate axis least aligned with â made orthogonal to
 * it, ỹ = z̃ × x̃. */
static mbt_mat3 axis_frame(const mbt_node* n) {
  mbt_vec3 x, y, z = n->axis;
  if (n->axis_k) {
    const int k = (n->axis_k < 0 ? -n->axis_k : n->axis_k) - 1;
    const int i = (k + 1) % 3, j = (k + 2) % 3;
    x = y = mbt_vec3_zero();
    if (n->axis_k > 0) x.v[i] = 1, y.v[j] = 1;
    else x.v[j] = 1, y.v[i] = 1;
  } else {
    int m = 0;
    for (int k = 1; k < 3; ++k)
      if (mbt_abs(z.v[k]) < mbt_abs(z.v[m])) m = k;
    x = mbt_vec3_zero();
    x.v[m] = 1;
    x = mbt_vec3_axpy(x, -z.v[m], z);
    x = mbt_vec3_scale(x, 1 / mbt_vec3_norm(x));
    y = mbt_vec3_cross(z, x);
  }
  mbt_mat3 P = {{{x.v[0], y.v[0], z.v[0]}, {x.v[1], y.v[1], z.v[1]}, {x.v[2], y.v[2], z.v[2]}}};
  return P;
}

/* The local nodes (tree_internal.h): a weld's body joins the local node of its parent (its host)
 * with X_HB = X_HP·X_PF·X_MB (its weld's constant X_PB); a moving body starts one with X_HB = X_MB and its inboard frame at
 * X_AF = X_HP·X_PF in the host of its parent. A revolute or prismatic node's frames F and M are
 * replaced by F̃ = F·P, M̃ = M·P with ẑ along the axis (axis_frame): X_AF̃ = X_AF·P, X_M̃B = Pᵀ·X_MB.
 * Sets every node's host and X_HB; returns the number of local nodes. */
static int build_local_nodes(mbt_node* nodes, int nb, mbt_local_node* local) {
  memset(local, 0, (size_t)nb * sizeof *local);
  local[0].type = MBT_MOBILIZER_WELD;
  int num = 1;
  for (int n = 0; n < nb; ++n) {
    mbt_node* nd = &nodes[n];
    int* host = &nd->host;
    mbt_transform* X_HB = &nd->X_HB;
    if (n == 0) {
      *host = 0;
      *X_HB = mbt_transform_identity();
    } else if (nd->type == MBT_MOBILIZER_WELD) {
      const mbt_node* P = &nodes[nd->parent_node];
      *host = P->host;
      const mbt_transform X_PB = nd->X_MB_is_identity ? nd->X_PF : mbt_transform_compose(&nd->X_PF, &nd->X_MB);
      *X_HB = mbt_transform_compose(&P->X_HB, &X_PB);
    } else {
      const mbt_node* P = &nodes[nd->parent_node];
      mbt_local_node* L = &local[num];
      L->parent = P->host;
      L->node = n;
      L->type = nd->type;
      L->axis_k = nd->axis_k;
      L->nv = nd->nv;
      L->q_start = nd->q_start;
      L->v_start = nd->v_start;
      L->axis = nd->axis;
      L->X_AF = mbt_transform_compose(&P->X_HB, &nd->X_PF);
      *X_HB = nd->X_MB;
      if (nd->type == MBT_MOBILIZER_REVOLUTE || nd->type == MBT_MOBILIZER_PRISMATIC) {
        const mbt_mat3 Pz = axis_frame(nd);
        L->X_AF.R = mbt_mat3_mul(&L->X_AF.R, &Pz);
        X_HB->R = mbt_mat3_tmul(&Pz, &nd->X_MB.R);
        X_HB->p = mbt_mat3_tmul_vec(&Pz, nd->X_MB.p);
        L->axis = mbt_vec3_make(0, 0, 1);
        L->axis_k = 3;
      }
      L->R_AF_is_identity = mat3_is_identity(&L->X_AF.R);
      L->S_is_identity = L->type == MBT_MOBILIZER_QUATERNION_FLOATING && L->parent == 0 && L->R_AF_is_identity;
      *host = num++;
    }
  }
  return num;
}

/* For the local-frame inverse dynamics (inverse_dynamics.c, R_AF_is_xz): where a revolute node λ
 * (R_AF ≠ I) has a single child local node c, revolute, whose R_AF = R_z(e)·R_x(b)·R_z(φ₀) has
 * b ≠ 0, λ's frames F̃, M̃ are turned about their common axis ẑ by e (R_F̃M̃ = R_z(q) stays; the
 * frames of every node are free to turn so): R_AF·R_z(e) for λ, R_z(e)ᵀ·X for X_AF of c and
 * X_HB of the bodies λ carries. Then c's R_AF = R_x(b)·R_z(φ), first row (cos φ, −sin φ, 0),
 * as ẑ_F of c in A is (sin e, −cos e)·sin b before the turn and (0, −sin b) after (set exactly).
 * turn_of: whether local node i is such a c, and R_z(e) from its X_AF before the turn. */
static bool turn_of(const mbt_local_node* local, int i, mbt_mat3* Rz) {
  const mbt_local_node* C = &local[i];
  const mbt_local_node* L = &local[C->parent];
  const mbt_mat3* R = &C->X_AF.R;
  const mbt_real sb = mbt_sqrt(R->m[0][2] * R->m[0][2] + R->m[1][2] * R->m[1][2]);
  if (C->parent == 0 || L->type != MBT_MOBILIZER_REVOLUTE || L->R_AF_is_identity || C->type != MBT_MOBILIZER_REVOLUTE ||
      mbt_value(sb) == 0)
    return false;
  const mbt_real se = R->m[0][2] / sb, ce = -R->m[1][2] / sb;
  const mbt_mat3 T = {{{ce, -se, 0}, {se, ce, 0}, {0, 0, 1}}};
  *Rz = T;
  return true;
}

/* After the turns: the origin of a node with R_AF_is_xz (F̃o = M̃o, revolute) moved along its axis
 * by t = p_y / sin b, so that p_AF = (p_x, 0, p_z) (p_AF += t·R_AF·ẑ, R_AF·ẑ = (0, −sin b, cos b);
 * set exactly); X_AF.p of its children and X_HB.p of the bodies it carries −= t·ẑ. Only where
 * sin b ≥ 1/2 (|t| ≤ 2·|p_y|: the origin stays near the joint). origin_shift: whether local node
 * i moves, and t, from its p_y before the move. */
static bool origin_shift(const mbt_local_node* local, int i, mbt_real* t) {
  const mbt_local_node* L = &local[i];
  const mbt_real sb = -L->X_AF.R.m[1][2];
  if (i == 0 || !L->R_AF_is_xz || mbt_value(sb) < 0.5) return false;
  *t = L->X_AF.p.v[1] / sb;
  return true;
}

/* The bodies first, then the nodes tip to base (a node's t is read before its p_y is zeroed). */
static void shift_origins_along_axes(mbt_node* nodes, int nb, mbt_local_node* local, int num) {
  mbt_real t;
  for (int n = 1; n < nb; ++n)
    if (origin_shift(local, nodes[n].host, &t)) nodes[n].X_HB.p.v[2] -= t;
  for (int i = num - 1; i > 0; --i) {
    mbt_local_node* C = &local[i];
    if (origin_shift(local, C->parent, &t)) C->X_AF.p.v[2] -= t;
    if (!origin_shift(local, i, &t)) continue;
    C->X_AF.p.v[1] = 0;
    C->X_AF.p.v[2] += t * C->X_AF.R.m[2][2];
    C->p_AF_y_is_zero = true;
  }
}

/* turn_of applied to every local node with a single child (child[λ]: scratch [num], −1 if none
 * or several); the bodies first, as turn_of reads X_AF before the turn. */
static void turn_frames_about_axes(mbt_node* nodes, int nb, mbt_local_node* local, int num, int* child) {
  for (int i = 0; i < num; ++i) child[i] = -1;
  for (int i = 1; i < num; ++i) {
    int* c = &child[local[i].parent];
    *c = *c == -1 ? i : -2;
  }
  mbt_mat3 Rz;
  for (int n = 1; n < nb; ++n) {
    const int h = nodes[n].host;
    if (h == 0 || child[h] < 0 || !turn_of(local, child[h], &Rz)) continue;
    nodes[n].X_HB.R = mbt_mat3_tmul(&Rz, &nodes[n].X_HB.R);
    nodes[n].X_HB.p = mbt_mat3_tmul_vec(&Rz, nodes[n].X_HB.p);
  }
  for (int i = 1; i < num; ++i) {
    mbt_local_node* C = &local[i];
    if (child[C->parent] != i || !turn_of(local, i, &Rz)) continue;
    mbt_local_node* L = &local[C->parent];
    L->X_AF.R = mbt_mat3_mul(&L->X_AF.R, &Rz);
    C->X_AF.R = mbt_mat3_tmul(&Rz, &C->X_AF.R);
    C->X_AF.p = mbt_mat3_tmul_vec(&Rz, C->X_AF.p);
    C->X_AF.R.m[0][2] = 0;
    C->R_AF_is_xz = true;
  }
  shift_origins_along_axes(nodes, nb, local, num);
}

/* The names "<body>_floating" of the quaternion-floating mobilizers finalize adds for the bodies
 * without an inboard mobilizer (*names: num_floating of them, freed by the caller); fails on a
 * name already used. */
static int floating_names(mbt_tree* tree, char*** names_out, int* num_floating) {
  const int nb = tree->num_bodies;
  int num = 0;
  for (int b = 1; b < nb; ++b)
    if (tree->bodies[b].mobilizer < 0) ++num;
  char** names = calloc((size_t)(num > 0 ? num : 1), sizeof *names);
  *names_out = names;
  *num_floating = 0;
  if (!names) return mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "finalize: out of memory");
  for (int b = 1; b < nb; ++b) {
    if (tree->bodies[b].mobilizer >= 0) continue;
    const int k = (*num_floating)++;
    names[k] = mbt__tree_name(tree, tree->bodies[b].name, "_floating");
    if (!names[k]) return mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "finalize: out of memory");
    /* Body names are unique, so these names are too; only an existing mobilizer can clash. */
    if (mbt__find_mobilizer(tree, names[k]) >= 0)
      return mbt__tree_error(tree, MBT_ERR_DUPLICATE,
                             "finalize: body '%s' needs a floating mobilizer named '%s', but that name is "
                             "already used",
                             tree->bodies[b].name, names[k]);
  }
  return MBT_OK;
}

/* The arrays finalize fills (kept by the tree) and its scratch (freed at the end). */
typedef struct {
  mbt_node* nodes;   /* one block: the nodes, the local nodes, the angle indices (num_bodies each) */
  int *level_start, *level_nodes, *children, *v_node;
  int *stack, *order, *level_count;
} finalize_arrays;

static void free_finalize_scratch(finalize_arrays* a) {
  free(a->stack);
  free(a->order);
  free(a->level_count);
}

static void free_finalize_arrays(finalize_arrays* a) {
  free(a->nodes);
  free(a->level_start);
  free(a->level_nodes);
  free(a->children);
  free(a->v_node);
  free_finalize_scratch(a);
}

static bool alloc_finalize_arrays(const mbt_tree* tree, int num_floating, finalize_arrays* a) {
  const size_t nb = (size_t)tree->num_bodies;
  int max_nv = 6 * num_floating;
  for (int m = 0; m < tree->num_mobilizers; ++m) max_nv += tree->mobilizers[m].nv;
  a->nodes = calloc(1, nb * (sizeof(mbt_node) + sizeof(mbt_local_node) + sizeof(int)));
  a->level_start = calloc(nb + 1, sizeof(int));
  a->level_nodes = calloc(nb, sizeof(int));
  a->children = calloc(nb, sizeof(int));
  a->v_node = calloc((size_t)(max_nv > 0 ? max_nv : 1), sizeof(int));
  a->stack = calloc(nb, sizeof(int));
  a->order = calloc(nb, sizeof(int));
  a->level_count = calloc(nb + 1, sizeof(int));
  return a->nodes && a->level_start && a->level_nodes && a->children && a->v_node && a->stack && a->order &&
         a->level_count;
}

/* Children of each body, in the order their mobilizers were added: body b's are
 * children[first_child_slot .. + num_children). */
static void list_children(mbt_tree* tree, int* children) {
  const int nb = tree->num_bodies;
  for (int b = 0; b < nb; ++b) tree->bodies[b].num_children = 0;
  for (int m = 0; m < tree->num_mobilizers; ++m) tree->bodies[tree->mobilizers[m].inboard_body].num_children++;
  for (int b = 0, slot = 0; b < nb; ++b) {
    tree->bodies[b].first_child_slot = slot;
    slot += tree->bodies[b].num_children;
    tree->bodies[b].num_children = 0;
  }
  for (int m = 0; m < tree->num_mobilizers; ++m) {
    mbt_body* P = &tree->bodies[tree->mobilizers[m].inboard_body];
    children[P->first_child_slot + P->num_children++] = tree->mobilizers[m].outboard_body;
  }
}

/* Depth-first preorder from the world with an explicit stack (children pushed in reverse so
 * they pop in order): order[node] = body, each body's node and level. Returns the height. */
static int order_depth_first(mbt_tree* tree, const int* children, int* stack, int* order) {
  int top = 0, num_nodes = 0, height = 1;
  stack[top++] = 0;
  tree->bodies[0].level = 0;
  while (top > 0) {
    const int b = stack[--top];
    mbt_body* B = &tree->bodies[b];
    B->node = num_nodes;
    order[num_nodes++] = b;
    if (B->level + 1 > height) height = B->level + 1;
    for (int k = B->num_children - 1; k >= 0; --k) {
      const int c = children[B->first_child_slot + k];
      tree->bodies[c].level = B->level + 1;
      stack[top++] = c;
    }
  }
  return height;
}

/* level_nodes grouped by level (node order within a level), level_start[l] their offsets. */
static void group_levels(const mbt_tree* tree, const int* order, int height, finalize_arrays* a) {
  const int nb = tree->num_bodies;
  for (int l = 0; l <= height; ++l) a->level_start[l] = a->level_count[l] = 0;
  for (int n = 0; n < nb; ++n) a->level_start[tree->bodies[order[n]].level + 1]++;
  for (int l = 0; l < height; ++l) a->level_start[l + 1] += a->level_start[l];
  for (int n = 0; n < nb; ++n) {
    const int l = tree->bodies[order[n]].level;
    a->level_nodes[a->level_start[l] + a->level_count[l]++] = n;
  }
}

/* q/v slices in node order; v_node[k] the node of velocity k. */
static void assign_slices(mbt_tree* tree, const int* order, int* v_node) {
  int nq = 0, nv = 0;
  for (int n = 1; n < tree->num_bodies; ++n) {
    mbt_mobilizer* m = &tree->mobilizers[tree->bodies[order[n]].mobilizer];
    m->q_start = nq;
    m->v_start = nv;
    for (int k = 0; k < m->nv; ++k) v_node[nv + k] = n;
    nq += m->nq;
    nv += m->nv;
  }
  tree->nq = nq;
  tree->nv = nv;
}

/* The body nodes (copies of each body's mobilizer data, derived fields, subtree ends), the local
 * nodes and the angle indices, all in the block `nodes`. */
static void build_nodes(mbt_tree* tree, const int* order, mbt_node* nodes) {
  const int nb = tree->num_bodies;
  mbt_node* world = &nodes[0];
  memset(world, 0, sizeof *world);
  world->parent_node = world->mobilizer = world->joint = -1;
  world->type = MBT_MOBILIZER_WELD;
  world->X_PF = world->X_MB = mbt_transform_identity();
  world->X_PF_is_identity = world->X_MB_is_identity = true;
  for (int n = 1; n < nb; ++n) {
    mbt__node_from_mobilizer(tree, tree->bodies[order[n]].mobilizer, &nodes[n]);
    derive_node(&nodes[n]);
  }
  /* subtree_end = node + size of the subtree, accumulated from the leaves. */
  for (int n = 0; n < nb; ++n) nodes[n].subtree_end = n + 1;
  for (int n = nb - 1; n > 0; --n) {
    mbt_node* P = &nodes[nodes[n].parent_node];
    if (nodes[n].subtree_end > P->subtree_end) P->subtree_end = nodes[n].subtree_end;
  }
  mbt_local_node* local = (mbt_local_node*)(void*)(nodes + nb);
  tree->num_local_nodes = build_local_nodes(nodes, nb, local);
  int* angle_q = (int*)(void*)(local + nb);
  turn_frames_about_axes(nodes, nb, local, tree->num_local_nodes, angle_q); /* angle_q as scratch */
  /* The revolute and screw angles, whose sin and cos a pose pass computes in one batch. */
  tree->num_angles = 0;
  for (int n = 1; n < nb; ++n)
    if (nodes[n].type == MBT_MOBILIZER_REVOLUTE || nodes[n].type == MBT_MOBILIZER_SCREW)
      angle_q[tree->num_angles++] = nodes[n].q_start;
  tree->nodes = nodes;
  tree->local_nodes = local;
  tree->angle_q = angle_q;
}

/* Seed MultibodyTree::Finalize: floating mobilizers for the bodies without one, then the
 * topology, each step linear in the number of bodies (no recursion). A failure changes nothing. */
int mbt_tree_finalize(mbt_tree* tree) {
  if (!tree) return MBT_ERR_INVALID_ARGUMENT;
  if (tree->finalized)
    return mbt__tree_error(tree, MBT_ERR_FINALIZED, "finalize: the tree is already finalized");
  char** names = NULL;
  int num_floating = 0;
  const mbt_arena_mark mark = mbt__arena_mark(&tree->arena);
  int status = floating_names(tree, &names, &num_floating);
  finalize_arrays a = {0};
  if (status == MBT_OK &&
      (!alloc_finalize_arrays(tree, num_floating, &a) || mbt__tree_reserve(tree, 0, num_floating, 0, 0)))
    status = mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "finalize: out of memory");
  if (status != MBT_OK) {
    mbt__arena_rewind(&tree->arena, mark);
    free(names);
    free_finalize_arrays(&a);
    return status;
  }
  /* Nothing can fail from here on. */
  for (int b = 1, k = 0; b < tree->num_bodies; ++b)
    if (tree->bodies[b].mobilizer < 0) {
      mbt__append_mobilizer(tree, names[k++], MBT_MOBILIZER_QUATERNION_FLOATING, 0, tree->bodies[b].body_frame,
                            mbt_vec3_zero(), 0, -1);
      tree->bodies[b].is_floating = true;
    }
  free(names);
  mbt__tree_index_names(tree);
  list_children(tree, a.children);
  const int height = order_depth_first(tree, a.children, a.stack, a.order);
  group_levels(tree, a.order, height, &a);
  assign_slices(tree, a.order, a.v_node);
  tree->height = height;
  tree->num_nodes = tree->num_bodies;
  tree->finalized = true; /* node copies read it for parent_node and level */
  build_nodes(tree, a.order, a.nodes);
  free_finalize_scratch(&a);
  tree->level_start = a.level_start;
  tree->level_nodes = a.level_nodes;
  tree->body_children = a.children;
  tree->v_node = a.v_node;
  return MBT_OK;
}

bool mbt_tree_is_finalized(const mbt_tree* tree) { return tree && tree->finalized; }

int mbt_tree_num_positions(const mbt_tree* tree) {
  if (tree->finalized) return tree->nq;
  int nq = 0;
  for (int m = 0; m < tree->num_mobilizers; ++m) nq += tree->mobilizers[m].nq;
  return nq;
}

int mbt_tree_num_velocities(const mbt_tree* tree) {
  if (tree->finalized) return tree->nv;
  int nv = 0;
  for (int m = 0; m < tree->num_mobilizers; ++m) nv += tree->mobilizers[m].nv;
  return nv;
}

int mbt_tree_num_states(const mbt_tree* tree) { return mbt_tree_num_positions(tree) + mbt_tree_num_velocities(tree); }

static int need_finalized(const mbt_tree* tree, const char* what) {
  if (tree->finalized) return MBT_OK;
  return mbt__tree_error(tree, MBT_ERR_NOT_FINALIZED, "%s: the tree is not finalized", what);
}

static int need_body(const mbt_tree* tree, const char* what, int body) {
  int s = need_finalized(tree, what);
  if (s) return s;
  if (body < 0 || body >= tree->num_bodies)
    return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "%s: unknown body %d (the tree has %d bodies)", what, body,
                           tree->num_bodies);
  return MBT_OK;
}

int mbt_tree_height(const mbt_tree* tree) {
  int s = need_finalized(tree, "mbt_tree_height");
  return s ? s : tree->height;
}

int mbt_tree_body_node(const mbt_tree* tree, int body) {
  int s = need_body(tree, "mbt_tree_body_node", body);
  return s ? s : tree->bodies[body].node;
}

int mbt_tree_node_body(const mbt_tree* tree, int node) {
  int s = need_finalized(tree, "mbt_tree_node_body");
  if (s) return s;
  if (node < 0 || node >= tree->num_nodes)
    return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "mbt_tree_node_body: unknown node %d (the tree has %d nodes)",
                           node, tree->num_nodes);
  return tree->nodes[node].body;
}

int mbt_tree_body_level(const mbt_tree* tree, int body) {
  int s = need_body(tree, "mbt_tree_body_level", body);
  return s ? s : tree->bodies[body].level;
}

int mbt_tree_body_parent(const mbt_tree* tree, int body) {
  int s = need_body(tree, "mbt_tree_body_parent", body);
  return s ? s : tree->bodies[body].parent;
}

int mbt_tree_body_mobilizer(const mbt_tree* tree, int body) {
  int s = need_body(tree, "mbt_tree_body_mobilizer", body);
  return s ? s : tree->bodies[body].mobilizer;
}

int mbt_tree_body_num_children(const mbt_tree* tree, int body) {
  int s = need_body(tree, "mbt_tree_body_num_children", body);
  return s ? s : tree->bodies[body].num_children;
}

int mbt_tree_body_child(const mbt_tree* tree, int body, int k) {
  int s = need_body(tree, "mbt_tree_body_child", body);
  if (s) return s;
  const mbt_body* B = &tree->bodies[body];
  if (k < 0 || k >= B->num_children)
    return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "body '%s': no child %d (it has %d)", B->name, k,
                           B->num_children);
  return tree->body_children[B->first_child_slot + k];
}

bool mbt_tree_body_is_floating(const mbt_tree* tree, int body) {
  return need_body(tree, "mbt_tree_body_is_floating", body) == MBT_OK && tree->bodies[body].is_floating;
}

int mbt_tree_num_bodies_at_level(const mbt_tree* tree, int level) {
  int s = need_finalized(tree, "mbt_tree_num_bodies_at_level");
  if (s) return s;
  if (level < 0 || level >= tree->height)
    return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "mbt_tree_num_bodies_at_level: no level %d (height %d)", level,
                           tree->height);
  return tree->level_start[level + 1] - tree->level_start[level];
}

int mbt_tree_body_at_level(const mbt_tree* tree, int level, int k) {
  int n = mbt_tree_num_bodies_at_level(tree, level);
  if (n < 0) return n;
  if (k < 0 || k >= n)
    return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "mbt_tree_body_at_level: level %d has no body %d (it has %d)",
                           level, k, n);
  return tree->nodes[tree->level_nodes[tree->level_start[level] + k]].body;
}
