/* mbt/tree.h: the MultibodyTree: bodies, frames, mobilizers, finalize and topology.
 *
 * A tree is built by adding elements, then finalized; after mbt_tree_finalize() it is
 * read-only and can be shared by many threads, each with its own mbt_context.
 *
 * Indices: body 0 is the world body and frame 0 the world frame. Every element has a
 * unique index (its creation order) and a unique name within its kind. Functions that
 * create an element return its index (>= 0) or a negative mbt_status; on failure the tree
 * is unchanged and mbt_tree_last_error() names the element and the problem.
 *
 * Body nodes: at finalize the bodies are numbered depth-first from the world ("body-node
 * order": every body after its parent, each subtree contiguous). Per-body arrays of the
 * Calc functions are indexed by node (mbt_tree_body_node()). The q and v slices of the
 * mobilizers are assigned in node order. */
#ifndef MBT_TREE_H
#define MBT_TREE_H

#include <stdbool.h>
#include "mbt/inertia.h"
#include "mbt/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mbt_tree mbt_tree;

/* ---- lifetime ------------------------------------------------------------------------ */
/* A new tree holding only the world body "world" (body 0, frame 0) and the uniform gravity
 * field (force element 0, g = (0, 0, -9.81) m/s²). NULL only if out of memory. */
mbt_tree* mbt_tree_create(void);
void mbt_tree_destroy(mbt_tree* tree);
/* The message of the last failed call on this tree ("" if none). */
const char* mbt_tree_last_error(const mbt_tree* tree);

/* ---- bodies -------------------------------------------------------------------------- */
/* Adds a rigid body with spatial inertia M_BBo_B (about the body origin Bo, expressed in
 * B). The inertia must be physically valid (mbt_spatial_inertia_is_physically_valid). */
int mbt_tree_add_rigid_body(mbt_tree* tree, const char* name, const mbt_spatial_inertia* M_BBo_B);
/* As above without the validity check of the rotational inertia (mass must still be finite
 * and >= 0): for models whose files hold non-physical inertias. */
int mbt_tree_add_rigid_body_unchecked(mbt_tree* tree, const char* name,
                                      const mbt_spatial_inertia* M_BBo_B);
int mbt_tree_num_bodies(const mbt_tree* tree);           /* including the world */
const char* mbt_tree_body_name(const mbt_tree* tree, int body);   /* NULL if unknown */
int mbt_tree_body_by_name(const mbt_tree* tree, const char* name); /* index or MBT_ERR_NOT_FOUND */
int mbt_tree_body_frame(const mbt_tree* tree, int body);           /* the body frame's index */
const mbt_spatial_inertia* mbt_tree_body_spatial_inertia(const mbt_tree* tree, int body); /* M_BBo_B */
int mbt_tree_world_body(const mbt_tree* tree);   /* 0 */
int mbt_tree_world_frame(const mbt_tree* tree);  /* 0 */

/* ---- frames -------------------------------------------------------------------------- */
/* Adds a frame F fixed to frame P (a body frame or another fixed frame) with pose X_PF. */
int mbt_tree_add_fixed_offset_frame(mbt_tree* tree, const char* name, int parent_frame,
                                    const mbt_transform* X_PF);
int mbt_tree_num_frames(const mbt_tree* tree);   /* including body frames */
const char* mbt_tree_frame_name(const mbt_tree* tree, int frame);
int mbt_tree_frame_by_name(const mbt_tree* tree, const char* name);
int mbt_tree_frame_body(const mbt_tree* tree, int frame);          /* the body F is fixed to */
/* X_BF: the pose of frame F in its body's frame B. MBT_ERR_NOT_FOUND if unknown. */
int mbt_tree_frame_pose_in_body(const mbt_tree* tree, int frame, mbt_transform* X_BF);

/* ---- mobilizers (seed: Mobilizer) ----------------------------------------------------- */
typedef enum {
  MBT_MOBILIZER_WELD = 0,            /* nq = nv = 0 */
  MBT_MOBILIZER_REVOLUTE,            /* 1, 1: rotation by q about unit axis â (â_F = â_M) */
  MBT_MOBILIZER_PRISMATIC,           /* 1, 1: translation by q along unit axis â */
  MBT_MOBILIZER_UNIVERSAL,           /* 2, 2: R_FM = Rx(q0)·Ry(q1) */
  MBT_MOBILIZER_PLANAR,              /* 3, 3: q = [x, y, θ]: p_FoMo_F = (x, y, 0), R_FM = Rz(θ);
                                        v = [ẋ, ẏ, θ̇] */
  MBT_MOBILIZER_SPACE_XYZ,           /* 3, 3: q = [r, p, y], R_FM = Rz(y)·Ry(p)·Rx(r); v = w_FM_F */
  MBT_MOBILIZER_QUATERNION_FLOATING, /* 7, 6: q = [qw qx qy qz x y z], v = [w_FM_F; v_FMo_F] */
  MBT_MOBILIZER_SCREW,               /* 1, 1: rotation q about â and translation
                                        pitch·q/(2π) along â (pitch in m per revolution) */
  MBT_MOBILIZER_NUM_TYPES
} mbt_mobilizer_type;

/* Adds a mobilizer between inboard frame F and outboard frame M. `axis` is used by the
 * revolute, prismatic and screw types (any length, only the direction is used; below
 * √ε it is an error) and may be NULL for the others; `screw_pitch` by the screw type. The
 * outboard body must not have an inboard mobilizer yet. Users normally add joints instead
 * (joints.h), which create their mobilizer. */
int mbt_tree_add_mobilizer(mbt_tree* tree, const char* name, mbt_mobilizer_type type,
                           int inboard_frame, int outboard_frame, const mbt_vec3* axis,
                           mbt_real screw_pitch);
int mbt_tree_num_mobilizers(const mbt_tree* tree);
const char* mbt_mobilizer_name(const mbt_tree* tree, int mobilizer);
mbt_mobilizer_type mbt_mobilizer_type_of(const mbt_tree* tree, int mobilizer);
const char* mbt_mobilizer_type_name(mbt_mobilizer_type type);   /* "revolute", ... */
int mbt_mobilizer_num_positions(const mbt_tree* tree, int mobilizer);
int mbt_mobilizer_num_velocities(const mbt_tree* tree, int mobilizer);
int mbt_mobilizer_position_start_in_q(const mbt_tree* tree, int mobilizer);  /* after finalize */
int mbt_mobilizer_velocity_start_in_v(const mbt_tree* tree, int mobilizer);
int mbt_mobilizer_inboard_frame(const mbt_tree* tree, int mobilizer);
int mbt_mobilizer_outboard_frame(const mbt_tree* tree, int mobilizer);
int mbt_mobilizer_inboard_body(const mbt_tree* tree, int mobilizer);
int mbt_mobilizer_outboard_body(const mbt_tree* tree, int mobilizer);
int mbt_mobilizer_joint(const mbt_tree* tree, int mobilizer);   /* -1 if no joint made it */
bool mbt_mobilizer_can_rotate(const mbt_tree* tree, int mobilizer);
bool mbt_mobilizer_can_translate(const mbt_tree* tree, int mobilizer);
/* The slice of a whole-tree array that belongs to this mobilizer (get_positions_from_array
 * and friends): q_array + position_start, v-sized arrays (v, v̇, tau) + velocity_start. */
const mbt_real* mbt_mobilizer_positions_from_array(const mbt_tree* tree, int mobilizer, const mbt_real* q_array);
mbt_real* mbt_mobilizer_mutable_positions_from_array(const mbt_tree* tree, int mobilizer, mbt_real* q_array);
const mbt_real* mbt_mobilizer_velocities_from_array(const mbt_tree* tree, int mobilizer, const mbt_real* v_array);
mbt_real* mbt_mobilizer_mutable_velocities_from_array(const mbt_tree* tree, int mobilizer, mbt_real* v_array);

/* Kinematics of one mobilizer from its own q, v, v̇ slices (nq, nv numbers). Frames: F
 * inboard, M outboard; spatial quantities at Mo, expressed in F.
 *   X_FM(q); V_FM = H_FM(q)·v; A_FM = H_FM·v̇ + Ḣ_FM·v; tau = H_FMᵀ·F_Mo_F;
 *   q̇ = N(q)·v; v = N⁺(q)·q̇. */
void mbt_mobilizer_set_zero_state(const mbt_tree* tree, int mobilizer, mbt_real* q, mbt_real* v);
void mbt_mobilizer_calc_across_mobilizer_transform(const mbt_tree* tree, int mobilizer,
                                                   const mbt_real* q, mbt_transform* X_FM);
void mbt_mobilizer_calc_across_mobilizer_spatial_velocity(const mbt_tree* tree, int mobilizer,
    const mbt_real* q, const mbt_real* v, mbt_spatial_velocity* V_FM_F);
void mbt_mobilizer_calc_across_mobilizer_spatial_acceleration(const mbt_tree* tree, int mobilizer,
    const mbt_real* q, const mbt_real* v, const mbt_real* vdot, mbt_spatial_acceleration* A_FM_F);
void mbt_mobilizer_project_spatial_force(const mbt_tree* tree, int mobilizer, const mbt_real* q,
                                         const mbt_spatial_force* F_Mo_F, mbt_real* tau);
/* H_FM(q) as nv spatial-velocity columns (column k = V_FM for v = e_k). */
void mbt_mobilizer_calc_H_FM(const mbt_tree* tree, int mobilizer, const mbt_real* q,
                             mbt_spatial_velocity* H_FM_F);
void mbt_mobilizer_map_velocity_to_qdot(const mbt_tree* tree, int mobilizer, const mbt_real* q,
                                        const mbt_real* v, mbt_real* qdot);
/* v = N⁺(q)·q̇. MBT_ERR_SINGULAR only for a floating mobilizer whose quaternion is zero.
 * (For SpaceXYZ it is the other map, v → q̇, that is singular at pitch = ±π/2: the
 * per-mobilizer map stays finite there, and the whole-tree mbt_map_velocity_to_qdot reports
 * MBT_ERR_SINGULAR naming the mobilizer.) */
int mbt_mobilizer_map_qdot_to_velocity(const mbt_tree* tree, int mobilizer, const mbt_real* q,
                                       const mbt_real* qdot, mbt_real* v);

/* ---- finalize and topology ------------------------------------------------------------ */
/* Computes the topology: inboard mobilizer and children of each body, levels, body-node
 * order, tree height, q/v slices. A body without an inboard mobilizer is connected to the
 * world by a quaternion-floating mobilizer named "<body>_floating". */
int mbt_tree_finalize(mbt_tree* tree);
bool mbt_tree_is_finalized(const mbt_tree* tree);
int mbt_tree_num_positions(const mbt_tree* tree);    /* nq */
int mbt_tree_num_velocities(const mbt_tree* tree);   /* nv */
int mbt_tree_num_states(const mbt_tree* tree);       /* nq + nv */
/* Number of levels: the world alone is height 1. */
int mbt_tree_height(const mbt_tree* tree);
int mbt_tree_body_node(const mbt_tree* tree, int body);     /* node index of a body */
int mbt_tree_node_body(const mbt_tree* tree, int node);     /* body of a node */
int mbt_tree_body_level(const mbt_tree* tree, int body);    /* world 0 */
int mbt_tree_body_parent(const mbt_tree* tree, int body);   /* -1 for the world */
int mbt_tree_body_mobilizer(const mbt_tree* tree, int body); /* inboard mobilizer, -1 world */
int mbt_tree_body_num_children(const mbt_tree* tree, int body);
int mbt_tree_body_child(const mbt_tree* tree, int body, int k);
/* True if finalize added the body's floating mobilizer (it had no inboard joint). */
bool mbt_tree_body_is_floating(const mbt_tree* tree, int body);
int mbt_tree_num_bodies_at_level(const mbt_tree* tree, int level);
int mbt_tree_body_at_level(const mbt_tree* tree, int level, int k);
/* Total mass of all bodies. */
mbt_real mbt_tree_total_mass(const mbt_tree* tree);

#ifdef __cplusplus
}
#endif
#endif /* MBT_TREE_H */
