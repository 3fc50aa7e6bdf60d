/* bench.h: the benchmark core (not a test, not part of the library): timing of mbt's Calc
 * functions on pre-generated random states, the same operations in MuJoCo when it is
 * available, generated chains and binary trees, and the scaling plot.
 *
 * Used by the standalone program mbt_bench and by `mbt bench` (tools/cmd_bench.c). What
 * every timed operation includes on each side is defined in docs/benchmarks.md. */
#ifndef MBT_BENCH_H
#define MBT_BENCH_H

#include <stdbool.h>
#include <stdio.h>

#include "mbt/mbt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- timing ------------------------------------------------------------------------------ */
/* Nanoseconds per call over `samples` batches of `calls_per_sample` calls each. */
typedef struct {
  double median, p10, p90, q1, q3, min;
  int samples;
  long calls_per_sample;
  long calls;          /* all calls made, warm-up included */
  long allocs;         /* heap allocations counted during all those calls (warm-up and
                          calibration included); -1 if not counted */
} mbt_bench_stats;

/* One call of the operation on pre-generated state k (0 <= k < num_states). Returns a
 * status (MBT_OK or negative); the timer ORs them and reports a failure. */
typedef int (*mbt_bench_fn)(void* user, int k);

typedef struct {
  double min_seconds;     /* time budget of the measured samples (default 0.25 s) */
  double warmup_seconds;  /* before measuring (default 0.05 s) */
  double batch_seconds;   /* target duration of one batch (default 20 µs) */
  int max_samples;        /* default 2000 */
  int min_samples;        /* default 25 */
} mbt_bench_timing;

void mbt_bench_timing_default(mbt_bench_timing* t);
/* Calibrates the batch size, warms up, then samples. MBT_OK, or the first failing status. */
int mbt_bench_time(const mbt_bench_timing* t, mbt_bench_fn fn, void* user, int num_states,
                   mbt_bench_stats* out);
/* Two operations timed in alternating batches, so that both see the same load of the
 * machine; `ratio` gets the statistics of the per-pair ratio a/b. */
int mbt_bench_time_pair(const mbt_bench_timing* t, mbt_bench_fn fn_a, void* user_a, mbt_bench_fn fn_b,
                        void* user_b, int num_states, mbt_bench_stats* out_a, mbt_bench_stats* out_b,
                        mbt_bench_stats* ratio);
double mbt_bench_now(void);   /* seconds, monotonic */

/* Heap allocations (malloc, calloc, realloc, aligned allocations) made by this process so
 * far, counted by interposing the allocator; -1 when counting is not available (sanitizer
 * builds). */
long mbt_bench_alloc_count(void);

/* ---- machine and build --------------------------------------------------------------------- */
const char* mbt_bench_cpu_model(void);      /* from /proc/cpuinfo, or "unknown" */
const char* mbt_bench_build_type(void);     /* CMAKE_BUILD_TYPE */
const char* mbt_bench_c_flags(void);        /* CMAKE_C_FLAGS + CMAKE_C_FLAGS_<TYPE> */
const char* mbt_bench_compiler(void);       /* compiler id and version */

/* ---- generated models ---------------------------------------------------------------------- */
/* One link of a generated model: joint from `parent` (-1 = world, else link index) with
 * X_PF = (rpy, xyz) and a revolute axis; body with mass, center of mass c (in the link
 * frame) and central inertia I = (xx, yy, zz, xy, xz, yz). Deterministic in (kind, n). */
typedef struct {
  int parent;
  double xyz[3], rpy[3], axis[3];
  double mass, com[3], I[6];
} mbt_bench_link;

typedef enum { MBT_BENCH_CHAIN = 0, MBT_BENCH_BINARY_TREE = 1 } mbt_bench_topology;

/* n links: a serial chain, or a complete binary tree (link i's parent is (i-1)/2). The
 * caller frees the array. NULL if out of memory. */
mbt_bench_link* mbt_bench_generate_links(mbt_bench_topology topology, int n);
/* The model as URDF text (link "base" welded to the world is the root; links "l<i>",
 * revolute joints "j<i>"). The caller frees the string. */
char* mbt_bench_links_to_urdf(const mbt_bench_link* links, int n, const char* robot_name);
/* The same model built with the builder API and finalized (no URDF parsing). */
mbt_tree* mbt_bench_links_to_tree(const mbt_bench_link* links, int n);

/* ---- random states ----------------------------------------------------------------------- */
/* num_states states, each x = [q; v] (nq + nv), vdot (nv), tau (nv), as arrays of
 * num_states·size. q: revolute/prismatic/screw uniform in [-π, π] (or inside finite
 * limits), quaternions uniform on the sphere, positions in [-1, 1]; v, vdot in [-2, 2];
 * tau in [-10, 10]. Deterministic in seed. */
typedef struct {
  int num_states, nq, nv;
  double* x;      /* [num_states][nq + nv] */
  double* vdot;   /* [num_states][nv] */
  double* tau;    /* [num_states][nv] */
} mbt_bench_states;

int mbt_bench_states_make(const mbt_tree* tree, int num_states, unsigned long long seed,
                          mbt_bench_states* s);
void mbt_bench_states_free(mbt_bench_states* s);

/* ---- the mbt side: one operation per row of the table ------------------------------------- */
typedef enum {
  MBT_BENCH_OP_FK = 0,        /* forward kinematics: the poses X_WB of all bodies */
  MBT_BENCH_OP_PK,            /* the whole position kinematics cache */
  MBT_BENCH_OP_VK,            /* velocity kinematics (q fixed, v changes) */
  MBT_BENCH_OP_ID,            /* inverse dynamics with gravity (mbt_calc_inverse_dynamics_with_gravity) */
  MBT_BENCH_OP_ID_FORCES,     /* the same through the Drake-style API: force elements, then
                                 mbt_calc_inverse_dynamics with them as applied forces */
  MBT_BENCH_OP_CRBA,          /* mass matrix, position kinematics included */
  MBT_BENCH_OP_ABA,           /* forward dynamics, everything included */
  MBT_BENCH_OP_CRBA_CHOL,     /* mass matrix + Cholesky factor + solve */
  MBT_BENCH_NUM_OPS
} mbt_bench_op;

const char* mbt_bench_op_name(mbt_bench_op op);      /* "fk", "pk", "vk", "id", ... */
const char* mbt_bench_op_title(mbt_bench_op op);     /* "forward kinematics (poses)", ... */

/* Stages timed with every cache they need already valid (same state every call), to show
 * where the time of an operation goes. */
typedef enum {
  MBT_BENCH_STAGE_FORCE_ELEMENTS = 0,  /* gravity (+ damping) generalized/spatial forces */
  MBT_BENCH_STAGE_RNEA,                /* inverse dynamics alone */
  MBT_BENCH_STAGE_CRBA,                /* mass matrix alone */
  MBT_BENCH_STAGE_CHOLESKY,            /* factor + solve of the mass matrix */
  MBT_BENCH_NUM_STAGES
} mbt_bench_stage;
const char* mbt_bench_stage_name(mbt_bench_stage stage);

typedef struct mbt_bench_mbt mbt_bench_mbt;
/* A context and buffers for timing `tree` on `states` (the tree is borrowed). Joint damping
 * is set to zero. NULL with a message in err on failure. */
mbt_bench_mbt* mbt_bench_mbt_create(const mbt_tree* tree, const mbt_bench_states* states,
                                    char* err, size_t err_size);
void mbt_bench_mbt_destroy(mbt_bench_mbt* b);
mbt_bench_fn mbt_bench_mbt_op(mbt_bench_op op);
mbt_bench_fn mbt_bench_mbt_stage(mbt_bench_stage stage);
/* Prepares for an operation (state 0 set, position cache computed: the velocity-kinematics
 * operation changes only v). */
int mbt_bench_mbt_prepare_op(mbt_bench_mbt* b, mbt_bench_op op);
/* Prepares for a stage (computes the caches at state 0). */
int mbt_bench_mbt_prepare_stage(mbt_bench_mbt* b, mbt_bench_stage stage);
/* Results at state k (for cross-checks): tau of inverse dynamics with gravity by both
 * operations (id, id_forces), the mass matrix (nv×nv row-major), v̇ of forward dynamics, and
 * X_WB of every node. Any output may be NULL except that id is always evaluated. */
int mbt_bench_mbt_eval(mbt_bench_mbt* b, int k, double* tau_id, double* tau_id_forces, double* M, double* vdot,
                       mbt_transform* X_WB);
mbt_context* mbt_bench_mbt_context(mbt_bench_mbt* b);
const char* mbt_bench_mbt_error(const mbt_bench_mbt* b);

/* ---- the MuJoCo side (compiled only when MuJoCo was found) -------------------------------- */
bool mbt_bench_mujoco_available(void);
const char* mbt_bench_mujoco_version(void);   /* "" if not available */

typedef struct mbt_bench_mj mbt_bench_mj;
/* Loads URDF text (or a URDF file if urdf_text is NULL) into MuJoCo with fixed bodies kept,
 * inertias as written, visuals and collisions removed, damping/armature/friction zero, and
 * (if floating) the root link on a free joint. Maps MuJoCo's joints to the mbt tree's by
 * name and converts the states. NULL with a message in err if MuJoCo is unavailable, the
 * model cannot be loaded, or the two models do not match joint for joint. */
mbt_bench_mj* mbt_bench_mj_create(const char* urdf_path, const char* urdf_text, bool floating,
                                  const mbt_tree* tree, const mbt_bench_states* states,
                                  char* err, size_t err_size);
void mbt_bench_mj_destroy(mbt_bench_mj* b);

/* MuJoCo's operation matching each mbt operation (see docs/benchmarks.md). */
mbt_bench_fn mbt_bench_mj_op(mbt_bench_op op);
/* Extra MuJoCo rows: */
typedef enum {
  MBT_BENCH_MJ_KIN_COMPOS = 0,   /* mj_kinematics + mj_comPos (the work of mbt's fk) */
  MBT_BENCH_MJ_FORWARD,          /* mj_forward with contacts and constraints disabled */
  MBT_BENCH_MJ_STAGE_KINEMATICS, /* the pipeline pieces alone, caches valid: */
  MBT_BENCH_MJ_STAGE_COMPOS,
  MBT_BENCH_MJ_STAGE_COMVEL,
  MBT_BENCH_MJ_STAGE_RNE,
  MBT_BENCH_MJ_STAGE_CRB,
  MBT_BENCH_MJ_STAGE_FACTOR_SOLVE,
  MBT_BENCH_MJ_NUM_EXTRA
} mbt_bench_mj_extra;
const char* mbt_bench_mj_extra_name(mbt_bench_mj_extra e);
mbt_bench_fn mbt_bench_mj_extra_fn(mbt_bench_mj_extra e);
/* Prepares the data for an extra row (pipeline evaluated at state 0). */
void mbt_bench_mj_prepare_extra(mbt_bench_mj* b, mbt_bench_mj_extra e);

/* Cross-check at state k: MuJoCo's results mapped to mbt's coordinates (tau of inverse
 * dynamics with gravity, dense mass matrix, forward-dynamics v̇, and the pose of each mbt
 * node whose body exists in MuJoCo under the same name; found[node] says which). */
int mbt_bench_mj_eval(mbt_bench_mj* b, int k, double* tau_id, double* M, double* vdot,
                      mbt_transform* X_WB, bool* found);

/* Largest relative difference between MuJoCo's stored central inertias (principal axes from
 * its eigensolver) and the model's: explains a failed cross-check on rotated inertias. */
double mbt_bench_mj_inertia_error(const mbt_bench_mj* b);

/* ---- the driver ---------------------------------------------------------------------------- */
/* The whole benchmark as a command: `prog` names it in messages. argv[0] is the command's
 * name; see the usage text (mbt_bench_usage). Returns the process exit code. */
int mbt_bench_main(int argc, char** argv, const char* prog);
/* `--load [N]`: URDF load time of generated chains of 1000 .. N links (bench_load.c). */
int mbt_bench_load(int max_links);
void mbt_bench_usage(FILE* out, const char* prog);

/* Writes a log-log plot of ns per body against bodies as SVG. series[s] has npts[s] points
 * (x[s][i], y[s][i]); names label the legend. false if the file cannot be written. */
bool mbt_bench_write_svg(const char* path, const char* title, int nseries, const char* const* names,
                         const int* npts, const double* const* x, const double* const* y);

/* ---- derivative rows (bench_derivatives.c) ------------------------------------------------ */
/* id_derivatives (∂tau/∂q, ∂tau/∂v) timed in alternating batches with the mbt op id, and
 * fd_derivatives (∂v̇/∂q, ∂v̇/∂v, M⁻¹) with the mbt op aba: each its own stats, the base op's,
 * and the per-pair ratio derivative/base. Target ratios: 3 and 2.5. */
enum { MBT_BENCH_NUM_DERIVATIVE_ROWS = 2 };
typedef struct { mbt_bench_stats deriv, base, ratio; } mbt_bench_derivative_row;
int mbt_bench_derivatives(const mbt_tree* tree, const mbt_bench_states* states, const mbt_bench_timing* t,
                          mbt_bench_mbt* bm, mbt_bench_derivative_row* rows);
const char* mbt_bench_derivative_row_name(int row);
const char* mbt_bench_derivative_row_title(int row);
double mbt_bench_derivative_row_target(int row);

#ifdef __cplusplus
}
#endif
#endif /* MBT_BENCH_H */
