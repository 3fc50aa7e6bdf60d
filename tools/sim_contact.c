/* sim_contact.c: contact and control for `mbt simulate` (sim_contact.h). */
#define _POSIX_C_SOURCE 200809L
#include "sim_contact.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int sim_contact_parse(const char* cmd, int argc, char** argv, int* i, sim_contact_args* a) {
  const char* s = argv[*i];
  const char* val = NULL;
  int r;
  if (strcmp(s, "--ground") == 0) return a->ground = true, 1;
  if (strcmp(s, "--pd-gravity") == 0) return a->pd_gravity = true, 1;
  if (strcmp(s, "--contacts") == 0) return a->contacts = true, 1;
  if ((r = cli_option_value(cmd, argc, argv, i, "--friction", &val)) != 0) {
    if (r < 0) return -1;
    if (!cli_parse_double(val, &a->friction) || a->friction < 0) {
      cli_error(cmd, "--friction needs a finite number >= 0, got '%s'", val);
      return -1;
    }
    a->friction_given = true;
    return 1;
  }
  if ((r = cli_option_value(cmd, argc, argv, i, "--contact-solver", &val)) != 0) {
    if (r < 0) return -1;
    if (strcmp(val, "sap") != 0 && strcmp(val, "pgs") != 0) {
      cli_error(cmd, "--contact-solver is 'sap' or 'pgs', got '%s'", val);
      return -1;
    }
    a->pgs = strcmp(val, "pgs") == 0;
    a->solver_given = true;
    return 1;
  }
  if ((r = cli_option_value(cmd, argc, argv, i, "--pd", &val)) != 0) {
    double g[3];
    int n = 0;
    if (r < 0) return -1;
    if (!cli_parse_list(val, g, 3, &n) || n != 2 || g[0] < 0 || g[1] < 0) {
      cli_error(cmd, "--pd needs two finite numbers KP,KD >= 0, got '%s'", val);
      return -1;
    }
    a->pd = true;
    a->kp = g[0];
    a->kd = g[1];
    return 1;
  }
  return 0;
}

bool sim_contact_check(const char* cmd, const sim_contact_args* a) {
  if (a->pd_gravity && !a->pd) {
    cli_error(cmd, "--pd-gravity adds gravity compensation to the PD controller: give --pd KP,KD too");
    return false;
  }
  if (a->friction_given && !a->ground) {
    cli_error(cmd, "--friction is the ground's friction: give --ground too");
    return false;
  }
  return true;
}

bool sim_contact_enabled(const sim_contact_args* a, const cli_model* model) { return a->ground || model->scene; }

/* Raises every floating root (a quaternion-floating joint on the world) by −z_min. */
static bool lift_onto_ground(const char* cmd, const mbt_tree* tree, mbt_context* ctx, sim_contact* c) {
  double z_min = 0;
  int st = mbt_contact_model_calc_lowest_point(c->model, ctx, &z_min);
  if (st == MBT_ERR_NOT_FOUND) {
    cli_error(cmd, "--ground: the robot has no collision geometry on a moving body, nothing can touch the ground");
    return false;
  }
  if (st != MBT_OK) {
    cli_error(cmd, "--ground: %s", mbt_context_last_error(ctx));
    return false;
  }
  for (int j = 0; j < mbt_tree_num_joints(tree); ++j) {
    if (mbt_joint_type_of(tree, j) != MBT_JOINT_QUATERNION_FLOATING || mbt_joint_parent_body(tree, j) != 0) continue;
    double q[MBT_JOINT_MAX_NQ];
    memcpy(q, mbt_joint_positions(ctx, j), sizeof(double) * 7);
    q[6] -= z_min; /* q = [qw qx qy qz x y z] */
    mbt_joint_set_positions(ctx, j, q, 7);
    c->lift = -z_min;
  }
  return true;
}

bool sim_contact_setup(const char* cmd, const cli_model* model, mbt_context* ctx, const sim_contact_args* a,
                       bool q0_given, sim_contact* c) {
  memset(c, 0, sizeof *c);
  c->tree = model->tree;
  if (!sim_contact_enabled(a, model)) return true;
  c->model = mbt_contact_model_create(model->tree);
  if (!c->model) {
    cli_error(cmd, "cannot create the contact model: %s", mbt_tree_last_error(model->tree));
    return false;
  }
  /* One friction coefficient on every shape: two touching shapes combine to it (mbt/contact.h). */
  mbt_contact_material mat = mbt_contact_material_default();
  mat.static_friction = mat.dynamic_friction = a->friction_given ? a->friction : (model->scene ? model->scene_friction : 1.0);
  if (mbt_contact_model_add_collision_geometry(c->model, &mat) < 0) {
    cli_error(cmd, "contact geometry: %s", mbt_contact_model_last_error(c->model));
    return false;
  }
  const bool ground = a->ground || model->scene_ground;
  if (ground) {
    if (mbt_contact_model_add_ground(c->model, mbt_vec3_make(0, 0, 1), 0, &mat) < 0) {
      cli_error(cmd, "--ground: %s", mbt_contact_model_last_error(c->model));
      return false;
    }
  }
  return !a->ground || q0_given || lift_onto_ground(cmd, model->tree, ctx, c);
}

/* tau = kp·(q_ref − q) − kd·v on the held coordinates, minus tau_g(q) with --pd-gravity. */
static void pd_control(mbt_real t, const mbt_real* q, const mbt_real* v, mbt_real* tau, void* user) {
  (void)t;
  sim_contact* c = user;
  if (c->gctx && mbt_context_set_q(c->gctx, q, mbt_tree_num_positions(c->tree)) == MBT_OK &&
      mbt_calc_gravity_generalized_forces(c->tree, c->gctx, c->tau_g) != MBT_OK)
    memset(c->tau_g, 0, sizeof(double) * (size_t)mbt_tree_num_velocities(c->tree));
  for (int k = 0; k < c->ndof; ++k) {
    const int iq = c->dof_q[k], iv = c->dof_v[k];
    tau[iv] += c->kp * (c->q_ref[k] - q[iq]) - c->kd * v[iv];
    if (c->gctx) tau[iv] -= c->tau_g[iv];
  }
}

/* The held coordinates: every coordinate of a joint with as many positions as velocities
 * (all but quaternion-floating joints). */
static bool pd_setup(const mbt_context* ctx, const sim_contact_args* a, sim_contact* c) {
  const mbt_tree* tree = c->tree;
  const int nv = mbt_tree_num_velocities(tree);
  c->kp = a->kp;
  c->kd = a->kd;
  c->dof_q = malloc(sizeof(int) * (size_t)(nv + 1));
  c->dof_v = malloc(sizeof(int) * (size_t)(nv + 1));
  c->q_ref = malloc(sizeof(double) * (size_t)(nv + 1));
  c->tau_g = calloc((size_t)nv + 1, sizeof(double));
  if (!c->dof_q || !c->dof_v || !c->q_ref || !c->tau_g) return false;
  const double* q = mbt_context_q(ctx);
  for (int j = 0; j < mbt_tree_num_joints(tree); ++j) {
    const int n = mbt_joint_num_positions(tree, j);
    if (n == 0 || n != mbt_joint_num_velocities(tree, j)) continue;
    for (int k = 0; k < n; ++k, ++c->ndof) {
      c->dof_q[c->ndof] = mbt_joint_position_start(tree, j) + k;
      c->dof_v[c->ndof] = mbt_joint_velocity_start(tree, j) + k;
      c->q_ref[c->ndof] = q[c->dof_q[c->ndof]];
    }
  }
  if (a->pd_gravity && !(c->gctx = mbt_context_create(tree))) return false;
  return true;
}

bool sim_contact_attach(const char* cmd, mbt_simulator* sim, const mbt_context* ctx, const sim_contact_args* a,
                        sim_contact* c) {
  if (a->pd) {
    if (!pd_setup(ctx, a, c)) {
      cli_error(cmd, "--pd: out of memory");
      return false;
    }
    mbt_simulator_set_control(sim, pd_control, c);
  }
  if (c->model && mbt_simulator_set_contact_model(sim, c->model) != MBT_OK) {
    cli_error(cmd, "contact: %s", mbt_simulator_last_error(sim));
    return false;
  }
  if (c->model && a->pgs && mbt_simulator_set_contact_solver_method(sim, MBT_CONTACT_SOLVER_PGS) != MBT_OK) {
    cli_error(cmd, "--contact-solver: %s", mbt_simulator_last_error(sim));
    return false;
  }
  return true;
}

bool sim_contact_begin_log(const char* cmd, FILE* csv, const char* csv_path, sim_contact* c) {
  const mbt_tree* tree = c->tree;
  const int nb = mbt_tree_num_bodies(tree);
  c->col_body = malloc(sizeof(int) * (size_t)nb);
  c->F_Bo_W = malloc(sizeof(mbt_spatial_force) * (size_t)nb);
  const size_t n = strlen(csv_path);
  c->log_path = malloc(n + 16);
  if (!c->col_body || !c->F_Bo_W || !c->log_path) {
    cli_error(cmd, "--contacts: out of memory");
    return false;
  }
  for (int b = 1; b < nb; ++b)
    for (int s = 0; s < mbt_contact_model_num_shapes(c->model); ++s)
      if (mbt_contact_model_shape_body(c->model, s) == b) {
        c->col_body[c->num_cols++] = b;
        break;
      }
  fputs(",contacts", csv);
  for (int k = 0; k < c->num_cols; ++k) {
    const char* name = mbt_tree_body_name(tree, c->col_body[k]);
    fprintf(csv, ",%s.fx,%s.fy,%s.fz", name, name, name);
  }
  /* FILE.csv -> FILE_contacts.csv */
  const size_t stem = n > 4 && strcmp(csv_path + n - 4, ".csv") == 0 ? n - 4 : n;
  snprintf(c->log_path, n + 16, "%.*s_contacts.csv", (int)stem, csv_path);
  c->log = fopen(c->log_path, "w");
  if (!c->log) {
    cli_error(cmd, "cannot write '%s': %s", c->log_path, strerror(errno));
    return false;
  }
  fputs("t,body_A,body_B,px,py,pz,nx,ny,nz,depth,fx,fy,fz,fn,slip_x,slip_y,slip_z,vn\n", c->log);
  return true;
}

static void put(FILE* f, double x) {
  char buf[40];
  fprintf(f, ",%s", isfinite(x) ? cli_format_double(buf, sizeof buf, x) : "nan");
}

static void put3(FILE* f, mbt_vec3 v) {
  for (int i = 0; i < 3; ++i) put(f, v.v[i]);
}

bool sim_contact_write(FILE* csv, const mbt_simulator* sim, double t, sim_contact* c) {
  const mbt_tree* tree = c->tree;
  const int nc = mbt_simulator_num_contacts(sim), nb = mbt_tree_num_bodies(tree);
  const mbt_contact_result* r = mbt_simulator_contact_results(sim);
  mbt_spatial_force* F = c->F_Bo_W;
  if (mbt_simulator_contact_body_forces(sim, F, nb) != MBT_OK) memset(F, 0, sizeof(mbt_spatial_force) * (size_t)nb);
  fprintf(csv, ",%d", nc);
  for (int k = 0; k < c->num_cols; ++k) put3(csv, F[c->col_body[k]].f);
  char buf[40];
  for (int i = 0; i < nc; ++i) {
    fputs(cli_format_double(buf, sizeof buf, t), c->log);
    fprintf(c->log, ",%s,%s", mbt_tree_body_name(tree, r[i].body_A), mbt_tree_body_name(tree, r[i].body_B));
    put3(c->log, r[i].p_WC);
    put3(c->log, r[i].nhat_BA_W);
    put(c->log, r[i].depth);
    put3(c->log, r[i].f_BA_W);
    put(c->log, r[i].fn);
    put3(c->log, r[i].v_slip_W);
    put(c->log, r[i].vn);
    fputc('\n', c->log);
  }
  return ferror(c->log) == 0;
}

void sim_contact_free(sim_contact* c) {
  if (c->log) fclose(c->log);
  mbt_contact_model_destroy(c->model);
  if (c->gctx) mbt_context_destroy(c->gctx);
  free(c->dof_q);
  free(c->dof_v);
  free(c->q_ref);
  free(c->tau_g);
  free(c->col_body);
  free(c->F_Bo_W);
  free(c->log_path);
  memset(c, 0, sizeof *c);
}
