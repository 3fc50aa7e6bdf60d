/* tree_build.h: helpers shared by the tree builder (tree.c), finalize.c and the joint
 * builders (joints.c). Not installed.
 *
 * A builder validates everything first (mbt__check_*), reserves capacity
 * (mbt__tree_reserve), duplicates its names, and only then appends (mbt__append_*), so a
 * failed call leaves the tree unchanged. */
#ifndef MBT_TREE_BUILD_H
#define MBT_TREE_BUILD_H

#include "tree/tree_internal.h"

/* A copy of name followed by suffix (NULL for none) that lives as long as the tree (its name
 * arena; never freed alone), NULL if out of memory. */
char* mbt__tree_name(mbt_tree* tree, const char* name, const char* suffix);

/* Grows the element arrays so that the given numbers of elements can be appended without
 * allocating. Counts are unchanged. MBT_OK or MBT_ERR_NO_MEMORY. */
int mbt__tree_reserve(mbt_tree* tree, int frames, int mobilizers, int joints, int forces);
/* The same for a model of known size (a loader): room for that many more bodies, frames,
 * mobilizers and joints, each array and name table allocated once to that size. */
int mbt__tree_reserve_model(mbt_tree* tree, int bodies, int frames, int mobilizers, int joints);

/* "kind 'name'" for messages (NULL name: empty), truncated to size − 1 bytes as snprintf would,
 * without formatting: a builder writes it before knowing whether it fails. */
void mbt__describe(char* what, size_t size, const char* kind, const char* name);

/* Index of the element with this name, or -1 (no error recorded). */
int mbt__find_body(const mbt_tree* tree, const char* name);
int mbt__find_frame(const mbt_tree* tree, const char* name);
int mbt__find_mobilizer(const mbt_tree* tree, const char* name);
int mbt__find_joint(const mbt_tree* tree, const char* name);
int mbt__find_force(const mbt_tree* tree, const char* name);
/* Indexes every element added since the last lookup (at finalize: a finalized tree's tables are
 * only read). Out of memory leaves the rest to be scanned. */
void mbt__tree_index_names(mbt_tree* tree);

/* Checks that the tree can still be modified; `what` names the element ("joint 'elbow'"). */
int mbt__check_not_finalized(const mbt_tree* tree, const char* what);
/* Checks that name is non-empty. */
int mbt__check_name(const mbt_tree* tree, const char* kind, const char* name);
/* Checks a new mobilizer from inboard_body to outboard_body: distinct bodies, outboard not
 * the world, outboard without an inboard mobilizer, no mobilizer already between the two,
 * no kinematic loop. */
int mbt__check_connection(const mbt_tree* tree, const char* what, int inboard_body, int outboard_body);
/* Checks a direction (finite, norm >= √ε) and writes the unit vector. */
int mbt__check_axis(const mbt_tree* tree, const char* what, const mbt_vec3* axis, mbt_vec3* unit);
/* Checks that X is finite and R is a rotation matrix (RᵀR = I, det R = 1, to 1e-9). */
int mbt__check_transform(const mbt_tree* tree, const char* what, const char* which, const mbt_transform* X);

/* Appends (capacity reserved, checks done; name from mbt__tree_name). Return the new index. */
int mbt__append_frame(mbt_tree* tree, char* name, int parent_frame, const mbt_transform* X_PF);
int mbt__append_mobilizer(mbt_tree* tree, char* name, mbt_mobilizer_type type, int inboard_frame,
                          int outboard_frame, mbt_vec3 unit_axis, mbt_real pitch, int joint);

int mbt__mobilizer_type_nq(mbt_mobilizer_type type);
int mbt__mobilizer_type_nv(mbt_mobilizer_type type);
/* A node with the data of a mobilizer (type, axis, pitch per radian, slices, frames'
 * poses), for the per-mobilizer kernels; usable before finalize (slices are then -1). */
void mbt__node_from_mobilizer(const mbt_tree* tree, int mobilizer, mbt_node* n);

#endif /* MBT_TREE_BUILD_H */
