/* mbt/context.h: the state of one tree (q, v, time), its per-context parameters (joint
 * damping, locks) and the caches and scratch memory of the algorithms.
 *
 * A context is created from a finalized tree; everything it needs is allocated then, so
 * no Calc function allocates. Contexts are independent: several contexts of one tree can
 * be used from different threads at once. A context must only be used with its tree.
 *
 * The caches (position, velocity, acceleration kinematics, articulated inertias) are
 * recomputed on demand: setting q invalidates everything that depends on q, setting v what
 * depends on v. Writing through mbt_context_mutable_q()/_v() invalidates likewise. */
#ifndef MBT_CONTEXT_H
#define MBT_CONTEXT_H

#include "mbt/tree.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mbt_context mbt_context;

/* A context with the default state (mbt_tree_set_default_context). NULL if the tree is not
 * finalized (the message is then in mbt_tree_last_error) or out of memory. */
mbt_context* mbt_context_create(const mbt_tree* tree);
void mbt_context_destroy(mbt_context* ctx);
/* A deep copy (state, parameters, locks); caches are recomputed on demand. */
mbt_context* mbt_context_clone(const mbt_context* ctx);
/* Copies the state, time and parameters of src into dst (same tree). */
int mbt_context_copy_state(mbt_context* dst, const mbt_context* src);
const mbt_tree* mbt_context_tree(const mbt_context* ctx);
const char* mbt_context_last_error(const mbt_context* ctx);

/* Seed SetDefaultContext: every mobilizer in its joint's default position or its zero
 * configuration, velocities zero, time zero, damping at the joints' defaults, no locks. */
void mbt_tree_set_default_context(const mbt_tree* tree, mbt_context* ctx);

mbt_real mbt_context_time(const mbt_context* ctx);
void mbt_context_set_time(mbt_context* ctx, mbt_real t);

const mbt_real* mbt_context_q(const mbt_context* ctx);   /* nq */
const mbt_real* mbt_context_v(const mbt_context* ctx);   /* nv */
mbt_real* mbt_context_mutable_q(mbt_context* ctx);       /* invalidates q-dependent caches */
mbt_real* mbt_context_mutable_v(mbt_context* ctx);       /* invalidates v-dependent caches */
/* Copy in/out; n must be nq, nv or nq + nv (MBT_ERR_SIZE otherwise, nothing changed). */
int mbt_context_set_q(mbt_context* ctx, const mbt_real* q, int n);
int mbt_context_set_v(mbt_context* ctx, const mbt_real* v, int n);
int mbt_context_set_x(mbt_context* ctx, const mbt_real* x, int n);   /* x = [q; v] */
int mbt_context_get_x(const mbt_context* ctx, mbt_real* x, int n);

#ifdef __cplusplus
}
#endif
#endif /* MBT_CONTEXT_H */
