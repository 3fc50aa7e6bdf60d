/* tree_internal.h: the layout of mbt_tree (not installed).
 *
 * Building fills the element arrays (bodies, frames, mobilizers, joints, force elements).
 * Finalize fills the topology: the body nodes in depth-first order from the world, with a
 * copy of each node's mobilizer data so the algorithms read one contiguous array. */
#ifndef MBT_TREE_INTERNAL_H
#define MBT_TREE_INTERNAL_H

#include <stddef.h>
#include "mbt/forces.h"
#include "mbt/joints.h"
#include "tree/arena.h"

#define MBT_ERROR_MAX 512

typedef struct {
  char* name;
  mbt_spatial_inertia M_BBo_B;  /* about the body origin, in the body frame */
  int body_frame;
  /* topology (finalize) */
  int mobilizer;                /* inboard mobilizer, -1 for the world */
  int parent;                   /* parent body, -1 for the world */
  int node;                     /* body-node index */
  int level;                    /* world 0 */
  bool is_floating;             /* finalize added its mobilizer */
  int num_children;
  int first_child_slot;         /* into mbt_tree.body_children */
} mbt_body;

typedef struct {
  char* name;
  int body;                     /* the body it is fixed to */
  int parent_frame;             /* the frame its pose was given in (itself for body frames) */
  mbt_transform X_BF;           /* pose in the body frame: X_BP·X_PF, composed when added */
} mbt_frame;

typedef struct {
  char* name;
  mbt_mobilizer_type type;
  int inboard_frame, outboard_frame;
  int inboard_body, outboard_body;
  int joint;                    /* -1 if none */
  int nq, nv;
  int q_start, v_start;         /* assigned at finalize; -1 before */
  mbt_vec3 axis;                /* unit axis (revolute, prismatic, screw), in F (= M) */
  mbt_real pitch;               /* screw: m per revolution */
} mbt_mobilizer;

typedef struct {
  char* name;
  mbt_joint_type type;
  int parent_body, child_body;
  int frame_on_parent, frame_on_child;   /* F, M */
  int mobilizer;
  int nq, nv;
  /* [nq] or [nv] values each, in the tree's arena (one block per joint) */
  mbt_real *pos_lower, *pos_upper;
  mbt_real *vel_lower, *vel_upper;
  mbt_real *acc_lower, *acc_upper;
  mbt_real* default_q;
  mbt_real* default_damping;
} mbt_joint;

typedef struct {
  char* name;
  mbt_force_element_type type;
  union {
    struct { mbt_vec3 g_W; } gravity;
    struct { int body_A, body_B; mbt_vec3 p_AP, p_BQ; mbt_real free_length, stiffness, damping; } spring;
    struct { int joint; mbt_real nominal_angle, stiffness; } revolute_spring;
    struct { mbt_user_force_fn fn; void* user_data; } user;
  } u;
} mbt_force_element;

/* A body node: a body and its inboard mobilizer, in body-node order (node 0 is the world): the
 * topology, the mobilizer data the per-type kernels read, and the local node that carries the
 * body. The algorithms walk the local nodes (below), not these. */
typedef struct {
  int body, parent_node, mobilizer, joint, level;
  mbt_mobilizer_type type;
  int nq, nv, q_start, v_start;
  mbt_vec3 axis;                /* unit axis, in F */
  mbt_real pitch;               /* screw: translation per radian, pitch/(2π) */
  mbt_transform X_PF;           /* inboard frame F in the parent body P */
  mbt_transform X_MB;           /* child body B in the outboard frame M (= X_BM⁻¹) */
  bool X_PF_is_identity, X_MB_is_identity;
  int subtree_end;              /* one past the last node of this node's subtree */
  /* Derived at finalize for the specialized kernels (zero in node copies made outside
   * finalize, which then take the general paths). */
  int axis_k;                   /* revolute/prismatic/screw axis = sign(axis_k)·ê_{|axis_k|−1}; 0: other */
  mbt_vec3 p_MoBo_B;            /* from Mo to Bo, in B: R_MBᵀ·p_MoBo_M (zero when X_MB = I) */
  /* The local node that carries this body (finalize): its own for a moving body, its moving
   * ancestor's for a welded one (0 for the world and bodies welded to it), and the body's pose
   * in that local node's frame M (X_MB of its own mobilizer for a moving body, with M rotated
   * as the local node's, below; the composed welds otherwise). */
  int host;
  mbt_transform X_HB;
} mbt_node;

/* A rigid (or composite) body's spatial inertia about a point O by its moments: mass m, first
 * moment h = m·p_OScm, second moment K = m·G_SO (xx, yy, zz, xy, xz, yz): no division to
 * combine two of them. */
typedef struct { mbt_real m; mbt_vec3 h; mbt_real K[6]; } mbt_inertia_moments;

/* A node of the kinematic core that every algorithm walks (algorithms_internal.h): a moving body
 * with every body welded to it (directly or through other welds) merged into it, so welds cost
 * nothing.
 * Its quantities are taken about Mo and expressed in M, the outboard frame of its mobilizer;
 * its merged inertia is a context parameter (mbt_context.I_Mo_M, context_internal.h);
 * A is the frame M of its moving ancestor (W for the world). Local node 0 is the world.
 * Revolute and prismatic nodes take F and M rotated (finalize.c, axis_frame) so that their axis
 * is ẑ: axis = ẑ, axis_k = 3, R_FM = R_z(q) or p_FoMo = q·ẑ. */
typedef struct {
  int parent;                   /* local node of the moving ancestor (0: the world) */
  int node;                     /* its body node (type, kernels) */
  mbt_mobilizer_type type;
  int axis_k;                   /* as mbt_node.axis_k */
  int nv, q_start, v_start;
  bool R_AF_is_identity;
  bool S_is_identity;           /* a quaternion-floating node hanging from the world with R_AF = I:
                                   R_WF = I, p_RoMo = 0, so its six columns H are the unit vectors */
  mbt_vec3 axis;                /* unit axis in F (= M) for revolute/prismatic/screw */
  mbt_transform X_AF;           /* the inboard frame F in A, constant (welds composed in) */
  bool R_AF_is_xz;              /* revolute, R_AF = R_x(b)·R_z(φ) (finalize.c, turn_frames_about_axes):
                                   R_AF.m[0][2] = 0, cos b = m[2][2], sin b = −m[1][2],
                                   cos φ = m[0][0], sin φ = −m[0][1] */
  bool p_AF_y_is_zero;          /* R_AF_is_xz and X_AF.p = (p_x, 0, p_z) (finalize.c,
                                   shift_origins_along_axes) */
} mbt_local_node;

/* Visual and collision geometry (geometry.c). */
typedef struct mbt_geometry_store mbt_geometry_store;
void mbt__geometry_free(mbt_tree* tree);

struct mbt_tree {
  bool finalized;
  mbt_body* bodies;             int num_bodies, cap_bodies;
  mbt_frame* frames;            int num_frames, cap_frames;
  mbt_mobilizer* mobilizers;    int num_mobilizers, cap_mobilizers;
  mbt_joint* joints;            int num_joints, cap_joints;
  mbt_force_element* forces;    int num_forces, cap_forces;
  /* topology (finalize) */
  int nq, nv, height;
  int num_nodes;                /* = num_bodies */
  mbt_node* nodes;              /* [num_nodes] in body-node order */
  int* level_start;             /* [height + 1]: nodes of level l are level_start[l] .. [l+1]-1 of level_nodes */
  int* level_nodes;             /* [num_nodes] node indices grouped by level */
  int* body_children;           /* children body indices, per body a slice */
  int* v_node;                  /* [nv] the node each velocity belongs to */
  mbt_local_node* local_nodes;  /* [num_local_nodes] in node order; same allocation as nodes */
  int num_local_nodes;          /* 1 + the number of non-weld mobilizers */
  int* angle_q;                 /* [num_angles] the q index of each revolute or screw angle, in node
                                   order (mbt__calc_joint_sincos); same allocation as nodes */
  int num_angles;
  mbt_geometry_store* geometry; /* visual and collision geometry; NULL until some is added */
  mbt_arena arena;              /* the elements' names (a body and its frame, a joint and its
                                   mobilizer share one copy) and the joints' values; freed with
                                   the tree */
  char error[MBT_ERROR_MAX];    /* last error; the one field a const call may write */
  struct mbt_tree_index* index; /* name tables and loop-check cache (names.h); caches only */
};

/* Records a formatted error in the tree (also from const functions) and returns status. */
int mbt__tree_error(const mbt_tree* tree, int status, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void mbt__tree_clear_error(const mbt_tree* tree);

#endif /* MBT_TREE_INTERNAL_H */
