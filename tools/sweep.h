/* sweep.h: what the parts of `mbt sweep` share: the parsed spec (sweep_spec.c), the runs and
 * their results (cmd_sweep.c), and the transport between MPI ranks (sweep_mpi.c). */
#ifndef MBT_SWEEP_H
#define MBT_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "cli_common.h"

/* A parameter of a run: what it sets and where. */
typedef enum {
  SWEEP_Q0,        /* initial position q[index] */
  SWEEP_V0,        /* initial velocity v[index] */
  SWEEP_KP,        /* PD stiffness of controlled dof `index` (−1: all) */
  SWEEP_KD,        /* PD damping of controlled dof `index` (−1: all) */
  SWEEP_TARGET,    /* PD set-point of controlled dof `index` (default: its initial position) */
  SWEEP_DAMPING,   /* joint damping of v[index] */
  SWEEP_MASS,      /* mass of body `index` */
  SWEEP_COM,       /* center of mass of body `index`, coordinate `axis` (in the body frame) */
  SWEEP_GRAVITY    /* gravity coordinate `axis` */
} sweep_param_kind;

typedef enum { SWEEP_FIXED, SWEEP_LIST, SWEEP_UNIFORM, SWEEP_NORMAL } sweep_dist;

typedef struct {
  char* name;            /* as written in the spec: "q0.shoulder_lift_joint", "kp", ... */
  sweep_param_kind kind;
  int index, axis;
  sweep_dist dist;       /* FIXED ("set"), LIST (grid values, or a Monte Carlo choice) */
  double* values;        /* LIST: num_values values; FIXED: one; UNIFORM: lo, hi; NORMAL: mean, std */
  int num_values;
  bool varied;           /* from "vary": a column of the results */
} sweep_param;

/* A controlled dof (1-dof joints whose q̇ = v: revolute, prismatic). */
typedef struct {
  int joint, q_index, v_index;
} sweep_dof;

enum {
  SWEEP_METRIC_FINAL_STATE = 1,
  SWEEP_METRIC_ENERGY = 2,
  SWEEP_METRIC_TORQUE = 4,
  SWEEP_METRIC_LIMITS = 8,
  SWEEP_METRIC_WALL = 16
};

typedef struct {
  char* spec_path;
  char* model_path;        /* resolved against the spec's directory */
  bool floating;
  double duration;
  mbt_simulator_options sim;
  bool monte_carlo;
  long num_runs;
  uint64_t seed;
  sweep_param* params;     /* "set" first, then "vary", each in spec order */
  int num_params;
  int metrics;             /* SWEEP_METRIC_* */
  double kp, kd;           /* defaults for every controlled dof */
  /* the model */
  cli_model model;
  int nq, nv;
  sweep_dof* dofs;
  int num_dofs;
  char** qnames;
  char** vnames;
} sweep_spec;

/* Parses the spec file and loads its model; false with a message naming the file, and the
 * field or the line, on any error (unknown fields included). */
bool sweep_spec_load(const char* path, sweep_spec* spec);
void sweep_spec_free(sweep_spec* spec);
/* The value of every parameter for run `run` (spec->num_params values): the grid point, or
 * the Monte Carlo draw from the run's own generator (seeded by the spec's seed and the run
 * number, so a run's values do not depend on which process or thread computes it). */
void sweep_spec_values(const sweep_spec* spec, long run, double* values);

/* ---- distribution over MPI ranks (sweep_mpi.c) ---------------------------------------- */
typedef struct {
  int rank, size;
  bool active;             /* running under MPI */
  int workers_finished;    /* rank 0: worker ranks that have sent their last rows */
} sweep_mpi;

/* True when the process was started by mpirun/mpiexec (its environment says so). */
bool sweep_mpi_launched(void);
/* Initializes MPI if it was asked for (--mpi) or the process was launched by mpirun. False
 * with a message if MPI is wanted and this mbt was built without it. */
bool sweep_mpi_init(bool wanted, sweep_mpi* mpi);
void sweep_mpi_finalize(sweep_mpi* mpi);
/* Rank 0's done[] (num_runs flags) to every rank. */
void sweep_mpi_broadcast_done(const sweep_mpi* mpi, unsigned char* done, long num_runs);
/* A worker rank sends its finished rows (text, one line per run) to rank 0; `last` says that
 * it has no more. */
void sweep_mpi_send_rows(const sweep_mpi* mpi, const char* text, bool last);
/* Rank 0 receives what has arrived (block: until every other rank has sent its last rows),
 * calling on_rows for each message's text. */
void sweep_mpi_receive_rows(sweep_mpi* mpi, bool block, void (*on_rows)(const char* text, void* user),
                            void* user);

#endif /* MBT_SWEEP_H */
