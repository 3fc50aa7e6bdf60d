/* bench_mbt.c: the mbt side of the benchmark. Each operation starts from a new state (so
 * every cache it depends on is stale) and includes everything needed to get its result from
 * that state; docs/benchmarks.md lists what each includes. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct mbt_bench_mbt {
  const mbt_tree* tree;
  mbt_context* ctx;
  const mbt_bench_states* st;
  int nq, nv, nx;
  mbt_multibody_forces* forces;
  double* tau;   /* [nv] */
  double* vdot;  /* [nv] */
  double* b;     /* [nv] right-hand side / solution */
  double* M;     /* [nv*nv] */
  double* M0;    /* [nv*nv] mass matrix at state 0 (Cholesky stage) */
  char err[256];
};

const char* mbt_bench_op_name(mbt_bench_op op) {
  static const char* names[] = {"fk", "pk", "vk", "id", "id_forces", "crba", "aba", "crba_chol"};
  return op < MBT_BENCH_NUM_OPS ? names[op] : "?";
}
const char* mbt_bench_op_title(mbt_bench_op op) {
  static const char* titles[] = {"forward kinematics (poses)", "position kinematics cache",
                                 "velocity kinematics", "inverse dynamics",
                                 "inverse dynamics via forces", "mass matrix",
                                 "forward dynamics", "mass matrix + Cholesky solve"};
  return op < MBT_BENCH_NUM_OPS ? titles[op] : "?";
}
const char* mbt_bench_stage_name(mbt_bench_stage stage) {
  static const char* names[] = {"force elements", "rnea (caches valid)", "crba (caches valid)",
                                "cholesky factor+solve"};
  return stage < MBT_BENCH_NUM_STAGES ? names[stage] : "?";
}

static const double* state_x(const mbt_bench_mbt* b, int k) { return b->st->x + (size_t)b->nx * (size_t)k; }
static const double* state_vdot(const mbt_bench_mbt* b, int k) { return b->st->vdot + (size_t)b->nv * (size_t)k; }
static const double* state_tau(const mbt_bench_mbt* b, int k) { return b->st->tau + (size_t)b->nv * (size_t)k; }

mbt_bench_mbt* mbt_bench_mbt_create(const mbt_tree* tree, const mbt_bench_states* st, char* err, size_t err_size) {
  mbt_bench_mbt* b = calloc(1, sizeof *b);
  if (!b) {
    snprintf(err, err_size, "out of memory");
    return NULL;
  }
  b->tree = tree;
  b->st = st;
  b->nq = mbt_tree_num_positions(tree);
  b->nv = mbt_tree_num_velocities(tree);
  b->nx = b->nq + b->nv;
  b->ctx = mbt_context_create(tree);
  b->forces = mbt_multibody_forces_create(tree);
  const size_t nv = (size_t)b->nv, nv2 = nv * nv;
  b->tau = calloc(nv + 1, sizeof(double));
  b->vdot = calloc(nv + 1, sizeof(double));
  b->b = calloc(nv + 1, sizeof(double));
  b->M = calloc(nv2 + 1, sizeof(double));
  b->M0 = calloc(nv2 + 1, sizeof(double));
  if (!b->ctx || !b->forces || !b->tau || !b->vdot || !b->b || !b->M || !b->M0) {
    snprintf(err, err_size, "cannot create a context: %s", b->ctx ? "out of memory" : mbt_tree_last_error(tree));
    mbt_bench_mbt_destroy(b);
    return NULL;
  }
  /* Damping off (MuJoCo's side has none either). */
  const double zeros[MBT_JOINT_MAX_NV] = {0};
  for (int j = 0; j < mbt_tree_num_joints(tree); ++j) {
    const int n = mbt_joint_num_velocities(tree, j);
    if (n > 0 && mbt_joint_set_damping_vector(b->ctx, j, zeros, n) != MBT_OK) {
      snprintf(err, err_size, "cannot zero the damping: %s", mbt_context_last_error(b->ctx));
      mbt_bench_mbt_destroy(b);
      return NULL;
    }
  }
  return b;
}

void mbt_bench_mbt_destroy(mbt_bench_mbt* b) {
  if (!b) return;
  mbt_context_destroy(b->ctx);
  mbt_multibody_forces_destroy(b->forces);
  free(b->tau);
  free(b->vdot);
  free(b->b);
  free(b->M);
  free(b->M0);
  free(b);
}

mbt_context* mbt_bench_mbt_context(mbt_bench_mbt* b) { return b->ctx; }
const char* mbt_bench_mbt_error(const mbt_bench_mbt* b) { return b->ctx ? mbt_context_last_error(b->ctx) : b->err; }

/* ---- operations: a new state each call ---------------------------------------------------- */
/* fk: q ← state; X_WB of every body (with p_PoBo_W, R_WF). */
static int op_fk(void* u, int k) {
  mbt_bench_mbt* b = u;
  int st = mbt_context_set_q(b->ctx, state_x(b, k), b->nq);
  st |= mbt_calc_forward_kinematics(b->tree, b->ctx);
  return st;
}
/* pk: q ← state; the whole position cache: X_WB, X_PB, X_FM, R_WF, H_FM, H_PB_W, M_Bo_W,
 * p_WBcm of every body. */
static int op_pk(void* u, int k) {
  mbt_bench_mbt* b = u;
  int st = mbt_context_set_q(b->ctx, state_x(b, k), b->nq);
  st |= mbt_calc_position_kinematics_cache(b->tree, b->ctx);
  return st;
}
/* vk: v ← state (q fixed, position cache valid); V_WB, V_PB_W, V_FM of every body. */
static int op_vk(void* u, int k) {
  mbt_bench_mbt* b = u;
  int st = mbt_context_set_v(b->ctx, state_x(b, k) + b->nq, b->nv);
  st |= mbt_calc_velocity_kinematics_cache(b->tree, b->ctx);
  return st;
}
/* id: x ← state; tau = M·v̇ + C·v − tau_g (mbt_calc_inverse_dynamics_with_gravity: one pass in
 * body frames, gravity as a base acceleration, like mj_rne and Pinocchio's rnea). */
static int op_id(void* u, int k) {
  mbt_bench_mbt* b = u;
  int st = mbt_context_set_x(b->ctx, state_x(b, k), b->nx);
  st |= mbt_calc_inverse_dynamics_with_gravity(b->tree, b->ctx, state_vdot(b, k), b->tau);
  return st;
}
/* id_forces: x ← state; gravity as spatial forces (mbt_calc_force_elements_contribution), then
 * mbt_calc_inverse_dynamics with them applied (world frame, kinematics caches on demand). */
static int op_id_forces(void* u, int k) {
  mbt_bench_mbt* b = u;
  int st = mbt_context_set_x(b->ctx, state_x(b, k), b->nx);
  st |= mbt_calc_force_elements_contribution(b->tree, b->ctx, b->forces);
  st |= mbt_calc_inverse_dynamics(b->tree, b->ctx, state_vdot(b, k), b->forces->F_BBo_W, b->forces->tau, NULL,
                                  NULL, b->tau);
  return st;
}
/* crba: q ← state; dense M(q) (position kinematics on demand). */
static int op_crba(void* u, int k) {
  mbt_bench_mbt* b = u;
  int st = mbt_context_set_q(b->ctx, state_x(b, k), b->nq);
  st |= mbt_calc_mass_matrix(b->tree, b->ctx, b->M);
  return st;
}
/* aba: x ← state; v̇ = M⁻¹(tau + tau_g − C·v), everything on demand. */
static int op_aba(void* u, int k) {
  mbt_bench_mbt* b = u;
  int st = mbt_context_set_x(b->ctx, state_x(b, k), b->nx);
  st |= mbt_calc_forward_dynamics(b->tree, b->ctx, state_tau(b, k), NULL, b->vdot);
  return st;
}
/* crba_chol: q ← state; M(q); M = L·Lᵀ; solve M·x = tau. */
static int op_crba_chol(void* u, int k) {
  mbt_bench_mbt* b = u;
  int st = mbt_context_set_q(b->ctx, state_x(b, k), b->nq);
  st |= mbt_calc_mass_matrix(b->tree, b->ctx, b->M);
  st |= mbt_cholesky_factor(b->M, b->nv);
  memcpy(b->b, state_tau(b, k), sizeof(double) * (size_t)b->nv);
  mbt_cholesky_solve(b->M, b->nv, b->b);
  return st;
}

mbt_bench_fn mbt_bench_mbt_op(mbt_bench_op op) {
  switch (op) {
    case MBT_BENCH_OP_FK: return op_fk;
    case MBT_BENCH_OP_PK: return op_pk;
    case MBT_BENCH_OP_VK: return op_vk;
    case MBT_BENCH_OP_ID: return op_id;
    case MBT_BENCH_OP_ID_FORCES: return op_id_forces;
    case MBT_BENCH_OP_CRBA: return op_crba;
    case MBT_BENCH_OP_ABA: return op_aba;
    case MBT_BENCH_OP_CRBA_CHOL: return op_crba_chol;
    default: return NULL;
  }
}

/* ---- stages: the same state every call, caches valid --------------------------------------- */
static int stage_force_elements(void* u, int k) {
  mbt_bench_mbt* b = u;
  (void)k;
  return mbt_calc_force_elements_contribution(b->tree, b->ctx, b->forces);
}
static int stage_rnea(void* u, int k) {
  mbt_bench_mbt* b = u;
  (void)k;
  return mbt_calc_inverse_dynamics(b->tree, b->ctx, state_vdot(b, 0), b->forces->F_BBo_W, b->forces->tau, NULL,
                                   NULL, b->tau);
}
static int stage_crba(void* u, int k) {
  mbt_bench_mbt* b = u;
  (void)k;
  return mbt_calc_mass_matrix(b->tree, b->ctx, b->M);
}
static int stage_cholesky(void* u, int k) {
  mbt_bench_mbt* b = u;
  (void)k;
  memcpy(b->M, b->M0, sizeof(double) * (size_t)b->nv * (size_t)b->nv);
  int st = mbt_cholesky_factor(b->M, b->nv);
  memcpy(b->b, state_tau(b, 0), sizeof(double) * (size_t)b->nv);
  mbt_cholesky_solve(b->M, b->nv, b->b);
  return st;
}

mbt_bench_fn mbt_bench_mbt_stage(mbt_bench_stage stage) {
  switch (stage) {
    case MBT_BENCH_STAGE_FORCE_ELEMENTS: return stage_force_elements;
    case MBT_BENCH_STAGE_RNEA: return stage_rnea;
    case MBT_BENCH_STAGE_CRBA: return stage_crba;
    case MBT_BENCH_STAGE_CHOLESKY: return stage_cholesky;
    default: return NULL;
  }
}

int mbt_bench_mbt_prepare_stage(mbt_bench_mbt* b, mbt_bench_stage stage) {
  int st = mbt_context_set_x(b->ctx, state_x(b, 0), b->nx);
  st |= mbt_calc_position_kinematics_cache(b->tree, b->ctx);
  st |= mbt_calc_velocity_kinematics_cache(b->tree, b->ctx);
  st |= mbt_calc_force_elements_contribution(b->tree, b->ctx, b->forces);
  if (stage == MBT_BENCH_STAGE_CHOLESKY) st |= mbt_calc_mass_matrix(b->tree, b->ctx, b->M0);
  return st;
}

int mbt_bench_mbt_prepare_op(mbt_bench_mbt* b, mbt_bench_op op) {
  (void)op;
  int st = mbt_context_set_x(b->ctx, state_x(b, 0), b->nx);
  st |= mbt_calc_position_kinematics_cache(b->tree, b->ctx);
  return st;
}

int mbt_bench_mbt_eval(mbt_bench_mbt* b, int k, double* tau_id, double* tau_id_forces, double* M, double* vdot,
                       mbt_transform* X_WB) {
  int st = op_id(b, k);
  if (st != MBT_OK) return st;
  if (tau_id) memcpy(tau_id, b->tau, sizeof(double) * (size_t)b->nv);
  if (tau_id_forces) {
    if ((st = op_id_forces(b, k)) != MBT_OK) return st;
    memcpy(tau_id_forces, b->tau, sizeof(double) * (size_t)b->nv);
  }
  if (M) {
    if ((st = op_crba(b, k)) != MBT_OK) return st;
    memcpy(M, b->M, sizeof(double) * (size_t)b->nv * (size_t)b->nv);
  }
  if (vdot) {
    if ((st = op_aba(b, k)) != MBT_OK) return st;
    memcpy(vdot, b->vdot, sizeof(double) * (size_t)b->nv);
  }
  if (X_WB) {
    const int nb = mbt_tree_num_bodies(b->tree);
    for (int node = 0; node < nb; ++node) {
      st = mbt_context_body_pose_in_world(b->tree, b->ctx, mbt_tree_node_body(b->tree, node), &X_WB[node]);
      if (st != MBT_OK) return st;
    }
  }
  return MBT_OK;
}
