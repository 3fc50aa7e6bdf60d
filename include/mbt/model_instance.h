/* mbt/model_instance.h: several models in one tree (seed: MultibodyPlant's model instances,
 * ModelInstanceIndex and Parser's model name scoping).
 *
 * A model instance is a copy of a finalized source tree (typically a URDF) added to a tree
 * under construction: every body, joint and geometry of the source, each name prefixed by
 * the instance name and "::" (Drake's scoped names: "left::panda_joint1"). The source's
 * joints to its world are re-attached to the target's world with their parent frame moved
 * by X_WR (the instance's pose), so a welded robot stands at X_WR; a floating root keeps its
 * frames and gets X_WR in its default pose, so its q stays its pose in the world. The copy keeps spatial inertias, joint types, axes, frames, limits, default
 * positions and damping, and visual and collision geometry; it drops the source's other
 * fixed frames and force elements (gravity is the target's). */
#ifndef MBT_MODEL_INSTANCE_H
#define MBT_MODEL_INSTANCE_H

#include "mbt/geometry.h"
#include "mbt/joints.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies `source` (finalized) into `tree` (not finalized) as instance `name` (non-empty, no
 * "::") placed at X_WR (NULL: identity). Returns the number of bodies added, or a negative
 * status with the message in mbt_tree_last_error(tree):
 * MBT_ERR_NOT_FINALIZED (source), MBT_ERR_FINALIZED (tree), MBT_ERR_INVALID_ARGUMENT (a bad
 * name or X_WR), MBT_ERR_DUPLICATE (a prefixed body or joint name already in the tree). These
 * are checked before anything is added; after them only running out of memory can stop the
 * copy halfway (MBT_ERR_NO_MEMORY: destroy the tree). */
int mbt_tree_add_model_instance(mbt_tree* tree, const mbt_tree* source, const char* name,
                                const mbt_transform* X_WR);

#ifdef __cplusplus
}
#endif
#endif /* MBT_MODEL_INSTANCE_H */
