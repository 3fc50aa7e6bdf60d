/* context_internal.h: the layout of mbt_context (not installed): state, parameters,
 * kinematics caches, and the scratch memory of the algorithms, all allocated at creation.
 * Per-body arrays are indexed by body node, per-local-node arrays by local node
 * (tree_internal.h).
 *
 * Parameters (Drake keeps them in the context too): the algorithms read the body inertias, the
 * merged inertias of the local nodes, joint damping and gravity from here, never from the tree.
 * mbt_context_create and mbt_tree_set_default_context set them from the tree's values:
 *   M_BBo_B[node]   the body's spatial inertia about Bo, in B (the tree's mbt_body.M_BBo_B);
 *   I_Mo_M[local]   the sum over the bodies carried by the local node (its own and every body
 *                   welded to it, mbt_node.host = local) of M_BBo_B moved by mbt_node.X_HB, about
 *                   Mo in M, by moments (mbt_inertia_moments); I_Mo_M[0] (the world) is unused;
 *   I_cm_M[local]   I_Mo_M by its central form (mbt_inertia_central, below), recomputed with it;
 *   mp_BoBcm_M[node] the body's first mass moment about Bo in its host's frame M,
 *                   m·R_MB·p_BoBcm_B (the gravity force elements' constant), with I_Mo_M;
 *   damping[v]      joint damping per velocity (the joint's default damping; 0 without a joint);
 *   g_W             the uniform gravity field (force element 0, mbt_tree_gravity).
 * A change of M_BBo_B[node] must be followed by mbt__context_update_body_inertia(ctx, node), which
 * recomputes I_Mo_M of the body's host and invalidates what depends on inertias. */
#ifndef MBT_CONTEXT_INTERNAL_H
#define MBT_CONTEXT_INTERNAL_H

#include "tree/tree_internal.h"

/* mbt_inertia_moments: tree_internal.h. */

/* Above this many velocities the context holds no dense nv×nv matrix (nv² doubles: 128 MiB at
 * 4096) and the dense-matrix algorithms return MBT_ERR_SIZE. */
#define MBT_DENSE_MAX_NV 4096

/* Seed PositionKinematicsCache, VelocityKinematicsCache and AccelerationKinematicsCache on the
 * local nodes (kinematics.c): welded bodies are merged into their moving ancestor, and every
 * quantity is expressed in W about the reference point Ro of the node's subtree hanging from the
 * world (the Mo of that subtree's first node, mbt__local_pose_and_H_Ro), the point about which
 * the recursions keep their digits wherever the bodies are. The world-frame quantities of a body
 * (X_WB, V_WB, H_PB_W, M_Bo_W) are derived on demand from its host (mbt_node.host, X_HB). */
typedef struct {
  mbt_transform* X_WM;          /* [local] pose of the node's frame M, position p_RoMo from Ro */
  mbt_vec3* p_WoRo;             /* [local] the node's reference point Ro, from Wo */
  mbt_spatial_velocity* H;      /* [nv] the columns of H_WM (the joint's motion subspace) at Ro */
} mbt_position_cache;

typedef struct {
  mbt_spatial_velocity* V;      /* [local] V_WM at Ro: [w_WM; velocity of the point of M at Ro] */
  mbt_spatial_acceleration* c;  /* [local] velocity-product acceleration c = V_λ × S·q̇ (+ R_WF·Ḣ_FM·q̇),
                                   valid with ctx->velocity_products_valid (computed by the
                                   accelerations and the ABA, not by the velocity kinematics alone) */
} mbt_velocity_cache;

typedef struct {
  mbt_spatial_acceleration* A_WB;  /* [num_nodes] at Bo, in W, of the last
                                      mbt_calc_acceleration_kinematics_cache */
} mbt_acceleration_cache;

/* Symmetric 3×3 block: xx, yy, zz, xy, xz, yz. */
typedef struct { mbt_real xx, yy, zz, xy, xz, yz; } mbt_aba_sym3;
/* Articulated-body inertia about Bo in W by 3×3 blocks (21 numbers):
 * [tau; f] = [[A, B], [Bᵀ, C]]·[alpha; a], A and C symmetric. */
typedef struct { mbt_aba_sym3 A; mbt_mat3 B; mbt_aba_sym3 C; } mbt_aba_inertia;
/* Articulated-body algorithm cache (forward_dynamics.c), on the local nodes, every quantity in W
 * about Ro as the kinematics caches (whose poses X_WM, motion subspaces S = H and velocities V it
 * reads); the q-dependent part is reused while q and the locks are unchanged. */
typedef struct {
  mbt_inertia_moments* I_Ro;         /* [local] the node's inertia (I_Mo_M) about Ro, in W
                                        (mbt__inertia_at_Ro; valid with ctx->inertia_valid) */
  mbt_real* Ic_trace;                /* [local] trace of the subtree's composite inertia about Ro, as a
                                        6×6 matrix: tr K + 3·m (bounds the pivots' scale) */
  mbt_aba_inertia* P;                /* [local] articulated inertia; after pass 1 Pplus = P − U·D⁻¹·Uᵀ
                                        for nodes of 2..6 columns (one column: P, its Pplus went
                                        straight into the parent's) */
  unsigned char* flags;              /* [local] MBT__ABA_FREE, MBT__ABA_ARTICULATED */
  bool factored_with_locks;          /* ctx->any_locked when pass 1 ran */
  mbt_spatial_force* U;              /* [nv] U = P·S columns */
  mbt_real* D_inv;                   /* [nv] 1/D of one-column mobilizers */
  mbt_real* D_LLT;                   /* [6·nv] Cholesky of D = Sᵀ·P·S, nv×nv at 6·v_start (nv ≥ 2) */
  mbt_spatial_force* Z;              /* [local] articulated bias force (Zplus goes straight into
                                        the parent's) */
  mbt_real* e;                       /* [nv] innovations tau − Sᵀ·Z */
  mbt_spatial_acceleration* A;       /* [local] spatial accelerations of the world-frame inverse
                                        dynamics; the ABA's bias accelerations C, then Ã = A − C */
  int* dof_parent;                   /* [nv] sparse Cholesky: λ(k), the parent dof (−1 none) */
  int* node_last_dof;                /* [local] sparse Cholesky: last unlocked dof at or above */
  mbt_real* M_diag;                  /* [nv] sparse Cholesky: diagonal before factoring */
} mbt_aba_cache;

/* Per local node (tree_internal.h), the scratch of the local-frame recursions
 * (inverse_dynamics.c, mass_matrix.c): quantities in the node's frame M at Mo. */
typedef struct {
  mbt_mat3 R_AM;                /* X_AM: M in the frame A of the moving ancestor */
  mbt_vec3 p_AoMo_A;
  mbt_spatial_velocity V;       /* w of V_WM; v only as a non-revolute node's spatial step takes it
                                   (with its parent's v = 0, inverse_dynamics.c) */
  mbt_spatial_acceleration A;   /* [α; a_Mo], a_Mo the classical acceleration of Mo (the spatial
                                   one [Featherstone 2008, §2.6] plus w × v_Mo; inverse_dynamics.c) */
  mbt_spatial_force F;          /* the net force of the subtree's bodies on M, at Mo */
  mbt_real cs_xz[4];            /* R_AF_is_xz (tree_internal.h): cos b, sin b, cos θ, sin θ of
                                   R_AM = R_x(b)·R_z(θ), θ = q + φ; R_AM is then not set */
} mbt_local_scratch;

/* A local node's merged inertia I_Mo_M by its central form: mass m, center of mass c = p_MoMcm in
 * M, and the rotational inertia about it K_cm = λ·1 + a·aᵀ + b·bᵀ in M, λ its least principal
 * moment and a, b its other two principal axes scaled by √(λ_k − λ) (mbt__context_update_*_inertias):
 * re-expressed, R·K_cm·Rᵀ = λ·1 + (R·a)(R·a)ᵀ + (R·b)(R·b)ᵀ, three rotated vectors instead of a
 * 3×3 product (mbt__inertia_at_Ro). 12 numbers (`unused` pads them) for four-lane loads. */
typedef struct { mbt_real m; mbt_vec3 c; mbt_real lambda; mbt_vec3 a, b; mbt_real unused; } mbt_inertia_central;

struct mbt_context {
  const mbt_tree* tree;
  mbt_real time;
  mbt_real* q;                  /* [nq] */
  mbt_real* v;                  /* [nv] */
  /* parameters (above) */
  mbt_spatial_inertia* M_BBo_B; /* [num_nodes] body inertias about Bo, in B */
  mbt_inertia_moments* I_Mo_M;  /* [num_local_nodes] merged inertias of the local nodes, about Mo, in M */
  mbt_vec3* mp_BoBcm_M;         /* [num_nodes] m·R_MB·p_BoBcm_B, M the host's frame */
  mbt_vec3* mp_BoBcm_W;         /* [num_nodes] m·p_BoBcm_W = R_WM·mp_BoBcm_M (force_elements.c), a cache */
  mbt_real* damping;            /* [nv] per-context joint damping */
  mbt_vec3 g_W;                 /* uniform gravity */
  mbt_inertia_central* I_cm_M;  /* [num_local_nodes] I_Mo_M by its central form (above), with I_Mo_M */
  bool* joint_locked;           /* [num_joints] */
  bool* v_locked;               /* [nv] true where the joint owning the dof is locked */
  bool any_locked;
  /* cache validity */
  bool position_valid, velocity_valid, aba_position_valid;
  bool inertia_valid;           /* aba.I_Ro (q and the inertias unchanged) */
  bool velocity_products_valid; /* vc.c (q and v unchanged) */
  bool gravity_moments_valid;   /* mp_BoBcm_W (q and the inertias unchanged) */
  mbt_position_cache pc;
  mbt_velocity_cache vc;
  mbt_acceleration_cache ac;
  mbt_aba_cache aba;
  /* scratch for the algorithms (nothing is allocated after creation) */
  mbt_spatial_force* scratch_F;         /* [num_nodes] */
  mbt_inertia_moments* scratch_Ic;      /* [num_local_nodes] composite inertias by moments (CRBA) */
  int* v_parent;                        /* [nv] λ(k): the velocity before k on the path from k's
                                           node to the world (the previous one of the same node,
                                           else the last of the nearest ancestor with any), −1 */
  int* v_unit_end;                      /* [nv] one past the columns of a node with S = I
                                           (tree_internal.h: H = e_0..e_5) at the top of k's path
                                           λ(k), λ(λ(k)), ...; 0 when there is none */
  bool v_parent_is_chain;               /* λ(k) = k − 1 for every k (an unbranched tree) */
  size_t v_path_sum;                    /* Σ_k the length of k's path λ(k), λ(λ(k)), ...: the
                                           nonzeros below the mass matrix's diagonal */
  mbt_real* scratch_nv[4];              /* [nv] each */
  mbt_real* scratch_nvnv;               /* [nv*nv], NULL if nv > MBT_DENSE_MAX_NV */
  mbt_local_scratch* scratch_local;     /* [num_local_nodes] */
  mbt_real* sin_q;                      /* [nq] sin q_i, cos q_i at the q index i of every revolute or */
  mbt_real* cos_q;                      /* screw angle (tree->angle_q), valid with sincos_valid */
  bool sincos_valid;
  mbt_multibody_forces* forces;         /* force-element contributions */
  int* v_run_start;                     /* [nv] the first velocity r of the run ending at k on
                                           k's path: λ(j) = j − 1 for r < j ≤ k (mass_matrix.c
                                           walks it without chasing λ) */
  mbt_real* crba_F;                     /* [6·nv + 3] the mass matrix's column forces F_k = Ic·H_k:
                                           component r of F_k at r·nv + k (mass_matrix.c) */
  int* v_subtree_end;                   /* [nv] one past the last velocity of k's subtree: the
                                           descendants of k are k + 1 .. v_subtree_end[k] − 1 */
  mbt_real* crba_rows;                  /* [4·nv] up to four rows of M, built before they are
                                           streamed to memory (mass_matrix.c, large nv) */
  mbt_real* crba_H;                     /* [6·nv] the columns H_c by component: component k at
                                           k·nv + c (mass_matrix.c, lines_shifted) */
  char error[MBT_ERROR_MAX];
};

/* Records a formatted error in the context and returns status. */
int mbt__context_error(const mbt_context* ctx, int status, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Called by every setter of q or v. */
static inline void mbt__context_invalidate_q(mbt_context* ctx) {
  ctx->position_valid = false;
  ctx->velocity_valid = false;
  ctx->aba_position_valid = false;
  ctx->inertia_valid = false;
  ctx->sincos_valid = false;
  ctx->velocity_products_valid = false;
  ctx->gravity_moments_valid = false;
}
static inline void mbt__context_invalidate_v(mbt_context* ctx) {
  ctx->velocity_valid = false;
  ctx->velocity_products_valid = false;
}
/* Called by every setter of an inertia parameter: the kinematics stay valid, the articulated
 * inertias do not. */
static inline void mbt__context_invalidate_inertias(mbt_context* ctx) {
  ctx->aba_position_valid = false;
  ctx->inertia_valid = false;
  ctx->gravity_moments_valid = false;
}

/* After ctx->M_BBo_B[node] changed (node ≥ 1, a body node): recomputes ctx->I_Mo_M of the local
 * node that carries the body (tree->nodes[node].host) from the inertias of all the bodies it
 * carries, and invalidates the caches that depend on inertias. The caller checks the new inertia
 * (mass ≥ 0, finite, physically valid) first. Cost: the size of the host's subtree of body nodes. */
void mbt__context_update_body_inertia(mbt_context* ctx, int node);
/* Recomputes every ctx->I_Mo_M from ctx->M_BBo_B (linear in the number of bodies) and invalidates
 * the caches that depend on inertias. */
void mbt__context_update_all_inertias(mbt_context* ctx);

#endif /* MBT_CONTEXT_INTERNAL_H */
