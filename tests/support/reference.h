/* reference.h: loading the reference dynamics files tests/reference/<label>.json (format
 * and conventions: tests/reference/README.md) into plain C arrays.
 *
 * Every per-joint vector of a state is stored flat in the order of the file's "joints"
 * list (the moving joints): joint j's slice starts at joints[j].q_start (q) or
 * joints[j].v_start (v, vdot, tau_id, bias, gravity_generalized_forces, tau, qdd). The mass
 * matrix is re-indexed by its dof labels ("joint" or "joint:k") into the same v order. Link
 * poses are stored in the order of link_names (the links of the first state). */
#ifndef MBT_TEST_REFERENCE_H
#define MBT_TEST_REFERENCE_H

#include <stdbool.h>

#include "mbt/urdf.h"

typedef struct {
  char* name;
  char* type;          /* "revolute", "continuous", "prismatic" or "floating" */
  int nq, nv;
  int q_start, v_start;
  char* parent_link;
  char* child_link;
} mbt_ref_joint;

typedef struct {
  double p_WB[3];
  double R_WB[3][3];   /* row-major: R_WB[i][j] */
} mbt_ref_pose;

typedef struct {
  int index;
  double* q;           /* [nq] */
  double* v;           /* [nv] */
  double* vdot;
  double* tau_id;
  double* bias;
  double* gravity_generalized_forces;
  double* tau;
  double* qdd;         /* [nv], NULL where the file has null */
  double* mass_matrix; /* [nv*nv] row-major */
  bool has_condition;
  double mass_matrix_condition;
  double potential_energy;
  double potential_energy_moving_bodies;
  double kinetic_energy;
  mbt_ref_pose* link_poses;  /* [num_links] */
} mbt_ref_state;

typedef struct {
  char* model;
  char* urdf;
  bool floating;       /* "root": "floating" */
  double gravity[3];
  int num_joints;
  mbt_ref_joint* joints;
  int nq, nv;
  int num_fixed_joints;
  char** fixed_joints;
  int num_massless_links;
  char** massless_links;
  int num_world_welded_links;
  char** world_welded_links;
  double world_welded_mass;
  double world_welded_potential_energy;
  int num_links;
  char** link_names;
  int num_states;
  mbt_ref_state* states;
  char error[512];     /* why mbt_ref_load failed */
} mbt_ref_model;

/* Loads a reference file. 0 on success; -1 with ref->error set (and nothing allocated) on
 * failure: unreadable file, invalid JSON, a missing or mistyped field, a vector of the
 * wrong size, an unknown dof label or link. */
int mbt_ref_load(const char* path, mbt_ref_model* ref);
void mbt_ref_free(mbt_ref_model* ref);
/* Index in ref->joints / ref->link_names, or -1. */
int mbt_ref_joint_index(const mbt_ref_model* ref, const char* name);
int mbt_ref_link_index(const mbt_ref_model* ref, const char* name);

/* A reference model with its URDF loaded (models/<urdf>, floating root if the file says so)
 * and the maps between the file's order and mbt's, built by joint and link name. */
typedef struct {
  mbt_ref_model ref;
  mbt_urdf_result urdf;  /* urdf.tree is the model */
  int nq, nv;
  int* qmap;             /* [nq] file q index -> mbt q index */
  int* vmap;             /* [nv] file v index -> mbt v index */
  int* link_body;        /* [ref.num_links] file link -> mbt body ("world" -> 0) */
  double* q;             /* [nq] scratch of mbt_ref_set_state: q in mbt's order */
  double* v;             /* [nv] the same for v */
  bool same_order;       /* qmap and vmap are the identity */
  char error[1024];
} mbt_ref_setup;

/* Loads <reference_dir>/<label>.json and <models_dir>/<urdf>, and checks that every joint
 * of the file is an mbt joint with the same nq, nv and kind, that the fixed joints are
 * welds, that every link is a body, and that the gravity agrees. 0, or -1 with s->error
 * (and nothing allocated). */
int mbt_ref_setup_load(const char* reference_dir, const char* models_dir, const char* label, mbt_ref_setup* s);
void mbt_ref_setup_free(mbt_ref_setup* s);
/* Converts between the file's order and mbt's. */
void mbt_ref_q_to_mbt(const mbt_ref_setup* s, const double* ref_q, double* q);
void mbt_ref_v_to_mbt(const mbt_ref_setup* s, const double* ref_v, double* v);
void mbt_ref_v_from_mbt(const mbt_ref_setup* s, const double* v, double* ref_v);
void mbt_ref_matrix_from_mbt(const mbt_ref_setup* s, const double* M, double* ref_M);

/* The labels of the <label>.json files in dir, sorted; free with mbt_ref_free_labels.
 * Returns the count, or -1 if dir cannot be read. */
int mbt_ref_list_labels(const char* dir, char*** labels);
void mbt_ref_free_labels(char** labels, int n);

/* ---- for the cmocka tests ---------------------------------------------------------------- */
/* The project's reference files and models. */
#define MBT_REF_DIR MBT_SOURCE_DIR "/tests/reference"
#define MBT_REF_MODELS_DIR MBT_SOURCE_DIR "/models"
/* mbt_ref_setup_load of <label> from MBT_REF_DIR and MBT_REF_MODELS_DIR; fails the test with
 * s->error if it does not load. */
void mbt_ref_setup_load_or_fail(const char* label, mbt_ref_setup* s);
/* mbt_ref_setup_load_or_fail, then a context of s->urdf.tree with every joint's damping zeroed
 * (the reference has none). */
mbt_context* mbt_ref_context_create(const char* label, mbt_ref_setup* s);
/* Sets the state's q and v in ctx (converted to mbt's order in s->q and s->v). */
void mbt_ref_set_state(mbt_ref_setup* s, const mbt_ref_state* st, mbt_context* ctx);
/* max_i |x_i − x_ref_i| / max(‖x_ref‖∞, 1e-3) (README, "How a test should compare"); NaN if a
 * difference is NaN. */
double mbt_ref_scaled_error(const double* x, const double* x_ref, int n);
/* Runs check once per file of MBT_REF_DIR as the cmocka group `group`: one test per label,
 * named after it, with *state = the label. Returns 1 (with a message on stderr) if there are
 * fewer than the README's five files or more than 32, else the number of failed tests. */
int mbt_ref_run_per_label(const char* group, void (*check)(void** state));

#endif /* MBT_TEST_REFERENCE_H */
