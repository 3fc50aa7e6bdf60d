/* context_internal.h: the layout of mbt_context (not installed): state, parameters,
 * kinematics caches, and the scratch memory of the algorithms, all allocated at creation.
 * Per-body arrays are indexed by body node. */
#ifndef MBT_CONTEXT_INTERNAL_H
#define MBT_CONTEXT_INTERNAL_H

#include "tree/tree_internal.h"

/* Seed PositionKinematicsCache. */
typedef struct {
  mbt_transform* X_WB;          /* pose of each body in W */
  mbt_transform* X_PB;          /* pose of each body in its parent */
  mbt_transform* X_FM;          /* across-mobilizer pose */
  mbt_vec3* p_PoBo_W;           /* from the parent's origin to Bo, in W */
  mbt_mat3* R_WF;               /* orientation of the inboard frame F in W */
  mbt_spatial_velocity* H_FM;   /* [nv] columns of H_FM (at Mo, in F) */
  mbt_spatial_velocity* H_PB_W; /* [nv] columns of H_PB_W (at Bo, in W) */
  mbt_spatial_inertia* M_Bo_W;  /* spatial inertia about Bo, in W */
  mbt_vec3* p_WBcm;             /* center of mass in W */
} mbt_position_cache;

/* Seed VelocityKinematicsCache. */
typedef struct {
  mbt_spatial_velocity* V_WB;   /* at Bo, in W */
  mbt_spatial_velocity* V_PB_W; /* across the inboard mobilizer, at Bo, in W */
  mbt_spatial_velocity* V_FM;   /* across-mobilizer, at Mo, in F */
} mbt_velocity_cache;

/* Seed AccelerationKinematicsCache. */
typedef struct {
  mbt_spatial_acceleration* A_WB;  /* at Bo, in W */
} mbt_acceleration_cache;

/* Articulated-body algorithm cache (depends on q only, plus what depends on v). */
typedef struct {
  mbt_articulated_body_inertia* P_B_W;      /* articulated inertia of each body about Bo, in W */
  mbt_articulated_body_inertia* Pplus_B_W;  /* P projected across the inboard mobilizer */
  mbt_spatial_force* U_W;                   /* [nv] U = P·H columns */
  mbt_real* D_LLT;                          /* [node] Cholesky of D = Hᵀ·P·H, 6×6 per node */
  mbt_spatial_acceleration* Ab_WB;          /* Coriolis/centripetal acceleration bias */
  mbt_spatial_force* Z_Bo_W;                /* articulated bias force */
  mbt_spatial_force* Zplus_Bo_W;
  mbt_real* e;                              /* [nv] innovations tau − Hᵀ·Z */
  mbt_spatial_acceleration* A_WB;           /* accelerations of the forward sweep */
} mbt_aba_cache;

struct mbt_context {
  const mbt_tree* tree;
  mbt_real time;
  mbt_real* q;                  /* [nq] */
  mbt_real* v;                  /* [nv] */
  mbt_real* damping;            /* [nv] per-context joint damping */
  bool* joint_locked;           /* [num_joints] */
  bool* v_locked;               /* [nv] true where the joint owning the dof is locked */
  bool any_locked;
  /* cache validity */
  bool position_valid, velocity_valid, aba_position_valid;
  mbt_position_cache pc;
  mbt_velocity_cache vc;
  mbt_acceleration_cache ac;
  mbt_aba_cache aba;
  /* scratch for the algorithms (nothing is allocated after creation) */
  mbt_spatial_acceleration* scratch_A;  /* [num_nodes] */
  mbt_spatial_force* scratch_F;         /* [num_nodes] */
  mbt_spatial_force* scratch_F2;        /* [num_nodes] */
  mbt_spatial_inertia* scratch_I;       /* [num_nodes] composite inertias */
  mbt_real* scratch_nv[4];              /* [nv] each */
  mbt_real* scratch_nvnv;               /* [nv*nv] */
  mbt_multibody_forces* forces;         /* force-element contributions */
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
}
static inline void mbt__context_invalidate_v(mbt_context* ctx) { ctx->velocity_valid = false; }

#endif /* MBT_CONTEXT_INTERNAL_H */
