/* sim_contact.h: the contact and control options of `mbt simulate` (--ground, --friction,
 * --pd, --pd-gravity, --contacts, --contact-solver): the contact model from the model's collision geometry, the
 * ground and the lift onto it, the joint PD controller, and the contact columns of the CSV. */
#ifndef MBT_TOOLS_SIM_CONTACT_H
#define MBT_TOOLS_SIM_CONTACT_H

#include <stdbool.h>
#include <stdio.h>
#include "cli_common.h"

typedef struct {
  bool ground;             /* --ground: the half space z = 0 */
  double friction;         /* --friction MU (default 1) */
  bool friction_given;
  bool pd;                 /* --pd KP,KD */
  double kp, kd;
  bool pd_gravity;         /* --pd-gravity */
  bool contacts;           /* --contacts */
  bool pgs;                /* --contact-solver pgs (default sap) */
  bool solver_given;
} sim_contact_args;

/* If argv[*i] is one of these options, records it (advancing *i past a value) and returns 1;
 * 0 if it is not; -1 with a message if its value is bad. */
int sim_contact_parse(const char* cmd, int argc, char** argv, int* i, sim_contact_args* a);
/* Checks the combination after parsing; false with a message. */
bool sim_contact_check(const char* cmd, const sim_contact_args* a);

typedef struct {
  mbt_contact_model* model;      /* NULL: no contact */
  double lift;                   /* how far the robot was raised onto the ground (m) */
  /* the PD controller */
  const mbt_tree* tree;
  mbt_context* gctx;             /* gravity compensation's context */
  double kp, kd;
  int ndof;
  int *dof_q, *dof_v;            /* [ndof] indices in q and v of the held coordinates */
  double *q_ref, *tau_g;         /* [ndof], [nv] */
  /* the contact columns */
  int num_cols;
  int* col_body;                 /* [num_cols] bodies with collision shapes */
  mbt_spatial_force* F_Bo_W;     /* [num_bodies] the last step's contact force per body */
  FILE* log;                     /* FILE_contacts.csv: one row per contact and logged step */
  char* log_path;
} sim_contact;

/* Whether the run has contact: --ground or a scene. */
bool sim_contact_enabled(const sim_contact_args* a, const cli_model* model);
/* Builds the contact model (collision geometry, the ground) and, for --ground without
 * --q0, raises each floating root so the lowest point touches z = 0. false with a message. */
bool sim_contact_setup(const char* cmd, const cli_model* model, mbt_context* ctx, const sim_contact_args* a,
                       bool q0_given, sim_contact* c);
/* The PD controller holding ctx's pose (--pd), the contact model, on the simulator. */
bool sim_contact_attach(const char* cmd, mbt_simulator* sim, const mbt_context* ctx, const sim_contact_args* a,
                        sim_contact* c);
/* --contacts: the extra header of the CSV, and opens the per-contact log beside it. */
bool sim_contact_begin_log(const char* cmd, FILE* csv, const char* csv_path, sim_contact* c);
/* --contacts: the row's extra columns (contact count, per body total force) and the log. */
bool sim_contact_write(FILE* csv, const mbt_simulator* sim, double t, sim_contact* c);
void sim_contact_free(sim_contact* c);

#endif
