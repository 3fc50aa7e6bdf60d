/* cmd_eval.c: `mbt eval MODEL --states FILE.json`: the dynamics of a model at given states,
 * as JSON (schemas in docs/cli.md).
 *
 * Per state, with M(q)·v̇ + C(q,v)·v = tau_g(q) + tau (seed MultibodyTree):
 *   tau_id = M·v̇ + C·v − tau_g   (inverse dynamics: rigid-body terms and gravity only)
 *   qdd    = M⁻¹·(tau + tau_g − C·v − damping ⊙ v)   (forward dynamics, ABA). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_commands.h"
#include "cli_common.h"

static const char* const kCmd = "eval";

static void print_help(void) {
  puts("usage: mbt eval MODEL --states FILE.json [--floating] [--allow-invalid-inertia]\n"
       "                [--gravity gx,gy,gz] [--no-damping] [--out FILE.json]\n"
       "\n"
       "Evaluates the dynamics of a URDF model at the states in FILE.json:\n"
       "  {\"states\": [{\"q\": [...], \"v\": [...], \"vdot\": [...], \"tau\": [...]}, ...]}\n"
       "with flat vectors in mbt's order (see 'mbt info MODEL --json': q has nq numbers,\n"
       "v, vdot and tau nv; vdot and tau are optional and default to zeros). Writes, per state,\n"
       "tau_id (inverse dynamics M·vdot + C·v − tau_g: no damping, no other force elements),\n"
       "mass_matrix, bias (C·v), gravity_generalized_forces (tau_g), potential_energy,\n"
       "kinetic_energy, bodies (p_WB and R_WB of every body) and qdd (forward dynamics of tau\n"
       "with gravity and joint damping; null with qdd_error if undefined). Schemas: docs/cli.md.\n"
       "\n"
       "options:\n"
       "  --states FILE.json       the states (required)\n"
       "  --gravity gx,gy,gz       gravity in m/s² (default 0,0,-9.81)\n"
       "  --no-damping             leave joint damping out of qdd\n"
       "  --derivatives            add dtau_dq, dtau_dv (of tau_id) and dqdd_dq, dqdd_dv,\n"
       "                           dqdd_dtau (of qdd), each nv×nv, q directions in v space\n"
       "  --out FILE.json          write the result to FILE instead of stdout\n"
       "  --floating               attach the root link with a quaternion-floating joint\n"
       "  --allow-invalid-inertia  load non-physical inertias as written (with a warning)\n"
       "  -h, --help               this help");
}

/* One state of the input, validated. */
typedef struct {
  double* q;
  double* v;
  double* vdot;  /* zeros when absent */
  double* tau;   /* zeros when absent */
} eval_state;

/* Reads field `name` of state k into out[n]. Returns 1 if read, 0 if absent (and optional),
 * -1 on error (message printed). */
static int read_vector(const char* file, int k, const cJSON* state, const char* name, bool required,
                       int n, const char* size_name, double* out) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(state, name);
  if (!a || cJSON_IsNull(a)) {
    if (!required) return 0;
    cli_error(kCmd, "%s: state %d: missing field '%s' (%d numbers)", file, k, name, n);
    return -1;
  }
  if (!cJSON_IsArray(a)) {
    cli_error(kCmd, "%s: state %d: field '%s' is not an array of numbers", file, k, name);
    return -1;
  }
  int size = cJSON_GetArraySize(a);
  if (size != n) {
    cli_error(kCmd, "%s: state %d: field '%s' has %d numbers, the model has %s = %d", file, k, name,
              size, size_name, n);
    return -1;
  }
  int i = 0;
  const cJSON* x;
  cJSON_ArrayForEach(x, a) {
    if (!cJSON_IsNumber(x)) {
      cli_error(kCmd, "%s: state %d: field '%s', element %d is not a number", file, k, name, i);
      return -1;
    }
    if (!isfinite(x->valuedouble)) {
      cli_error(kCmd, "%s: state %d: field '%s', element %d is not a finite number", file, k, name, i);
      return -1;
    }
    out[i++] = x->valuedouble;
  }
  return 1;
}

/* Line number of a position in a buffer (1-based). */
static int line_of(const char* buf, const char* pos) {
  int line = 1;
  for (const char* p = buf; p < pos && *p; ++p)
    if (*p == '\n') ++line;
  return line;
}

/* dtau_dq, dtau_dv of tau_id (damping taken back out of ∂tau/∂v) and dqdd_dq, dqdd_dv,
 * dqdd_dtau of qdd into o, each nv×nv; the qdd ones null (with qdd_error) where qdd is. */
static void add_derivatives(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                            const eval_state* s, double* work, cJSON* o) {
  const int nv = mbt_tree_num_velocities(tree);
  const size_t nn = (size_t)nv * (size_t)nv;
  double *A = work, *B = A + nn, *C = B + nn;
  if (mbt_calc_inverse_dynamics_derivatives(tree, ctx, ws, s->vdot, NULL, NULL, A, B, NULL) == MBT_OK) {
    for (int j = 0; j < mbt_tree_num_joints(tree); ++j) {
      const int v0 = mbt_joint_velocity_start(tree, j), jnv = mbt_joint_num_velocities(tree, j);
      const double* d = jnv > 0 ? mbt_joint_damping_vector(ctx, j) : NULL;
      for (int i = 0; i < jnv; ++i) B[(size_t)(v0 + i) * (size_t)nv + (size_t)(v0 + i)] -= d[i];
    }
    cJSON_AddItemToObject(o, "dtau_dq", cli_json_matrix(A, nv, nv));
    cJSON_AddItemToObject(o, "dtau_dv", cli_json_matrix(B, nv, nv));
  }
  const char* names[3] = {"dqdd_dq", "dqdd_dv", "dqdd_dtau"};
  const bool ok = mbt_calc_forward_dynamics_derivatives(tree, ctx, ws, s->tau, NULL, A, B, C) == MBT_OK;
  for (int m = 0; m < 3; ++m) {
    if (ok) cJSON_AddItemToObject(o, names[m], cli_json_matrix(work + m * nn, nv, nv));
    else cJSON_AddNullToObject(o, names[m]);
  }
}

static cJSON* eval_one(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws, const eval_state* s,
                       int k, double* work, bool* failed) {
  int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  double* tau_g = work;
  double* tau_id = tau_g + nv;
  double* bias = tau_id + nv;
  double* qdd = bias + nv;
  double* M = qdd + nv; /* nv*nv */
  int status = MBT_OK;
  double U = 0, K = 0;
  *failed = true;
  if ((status = mbt_context_set_q(ctx, s->q, nq)) != MBT_OK || (status = mbt_context_set_v(ctx, s->v, nv)) != MBT_OK ||
      (status = mbt_calc_gravity_generalized_forces(tree, ctx, tau_g)) != MBT_OK ||
      /* tau_id = M·v̇ + C·v − tau_app with tau_app = tau_g. */
      (status = mbt_calc_inverse_dynamics(tree, ctx, s->vdot, NULL, tau_g, NULL, NULL, tau_id)) != MBT_OK ||
      (status = mbt_calc_mass_matrix(tree, ctx, M)) != MBT_OK ||
      (status = mbt_calc_bias_term(tree, ctx, bias)) != MBT_OK ||
      (status = mbt_calc_potential_energy(tree, ctx, &U)) != MBT_OK ||
      (status = mbt_calc_kinetic_energy(tree, ctx, &K)) != MBT_OK) {
    cli_error(kCmd, "state %d: %s (%s)", k, mbt_context_last_error(ctx), mbt_status_string(status));
    return NULL;
  }
  cJSON* o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "index", k);
  cJSON_AddItemToObject(o, "tau_id", cli_json_array(tau_id, nv));
  cJSON_AddItemToObject(o, "mass_matrix", cli_json_matrix(M, nv, nv));
  cJSON_AddItemToObject(o, "bias", cli_json_array(bias, nv));
  cJSON_AddItemToObject(o, "gravity_generalized_forces", cli_json_array(tau_g, nv));
  cJSON_AddItemToObject(o, "potential_energy", cli_json_number(U));
  cJSON_AddItemToObject(o, "kinetic_energy", cli_json_number(K));
  cJSON* bodies = cJSON_AddObjectToObject(o, "bodies");
  for (int b = 0; b < mbt_tree_num_bodies(tree); ++b) {
    mbt_transform X_WB;
    if ((status = mbt_context_body_pose_in_world(tree, ctx, b, &X_WB)) != MBT_OK) {
      cli_error(kCmd, "state %d: %s (%s)", k, mbt_context_last_error(ctx), mbt_status_string(status));
      cJSON_Delete(o);
      return NULL;
    }
    cJSON* pose = cJSON_AddObjectToObject(bodies, mbt_tree_body_name(tree, b));
    cJSON_AddItemToObject(pose, "p_WB", cli_json_array(X_WB.p.v, 3));
    cJSON_AddItemToObject(pose, "R_WB", cli_json_matrix(&X_WB.R.m[0][0], 3, 3));
  }
  /* Forward dynamics last: where it is undefined the rest is still written. */
  status = mbt_calc_forward_dynamics(tree, ctx, s->tau, NULL, qdd);
  if (status == MBT_OK) {
    cJSON_AddItemToObject(o, "qdd", cli_json_array(qdd, nv));
  } else {
    cJSON_AddNullToObject(o, "qdd");
    cJSON_AddStringToObject(o, "qdd_error", mbt_context_last_error(ctx));
  }
  if (ws) add_derivatives(tree, ctx, ws, s, M + (size_t)nv * (size_t)nv, o);
  *failed = false;
  return o;
}

/* The command line. */
typedef struct {
  cli_model_options mopts;
  const char *path, *states_path, *out_path;
  double g[3];
  bool no_damping, derivatives;
} eval_args;

/* Parses the command line into a; 0, -2 after --help, -1 on a usage error (message printed). */
static int parse_args(int argc, char** argv, eval_args* a) {
  memset(a, 0, sizeof(*a));
  a->g[2] = -9.81;
  const char* gravity_arg = NULL;
  for (int i = 1; i < argc; ++i) {
    const char* s = argv[i];
    int r;
    if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
      print_help();
      return -2;
    }
    if (cli_parse_model_option(s, &a->mopts)) continue;
    if (strcmp(s, "--derivatives") == 0) {
      a->derivatives = true;
      continue;
    }
    if (strcmp(s, "--no-damping") == 0) {
      a->no_damping = true;
      continue;
    }
    if ((r = cli_option_value(kCmd, argc, argv, &i, "--states", &a->states_path)) != 0 ||
        (r = cli_option_value(kCmd, argc, argv, &i, "--gravity", &gravity_arg)) != 0 ||
        (r = cli_option_value(kCmd, argc, argv, &i, "--out", &a->out_path)) != 0) {
      if (r < 0) return -1;
      continue;
    }
    if (!cli_model_argument(kCmd, s, &a->path)) return -1;
  }
  if (!a->path) {
    cli_error(kCmd, "missing MODEL (a URDF file; see 'mbt eval --help')");
    return -1;
  }
  if (!a->states_path) {
    cli_error(kCmd, "missing --states FILE.json (see 'mbt eval --help')");
    return -1;
  }
  return cli_parse_gravity(kCmd, gravity_arg, a->g) ? 0 : -1;
}

/* The states file parsed as JSON (*doc, cJSON_Delete) and its "states" array; NULL with a
 * message (and *doc NULL) if it cannot be read or has no such array. */
static const cJSON* read_states_file(const char* path, cJSON** doc) {
  *doc = NULL;
  size_t len = 0;
  char* text = cli_read_file(kCmd, path, &len);
  if (!text) return NULL;
  const char* parse_end = NULL;
  *doc = cJSON_ParseWithLengthOpts(text, len, &parse_end, 0);
  if (!*doc) {
    int line = parse_end ? line_of(text, parse_end) : 0;
    cli_error(kCmd, "%s:%d: not valid JSON", path, line);
    free(text);
    return NULL;
  }
  free(text);
  const cJSON* states = cJSON_GetObjectItemCaseSensitive(*doc, "states");
  if (!cJSON_IsArray(states)) {
    cli_error(kCmd, "%s: expected an object with a \"states\" array", path);
    cJSON_Delete(*doc);
    *doc = NULL;
    return NULL;
  }
  return states;
}

/* Reads every state of the array into in[], their vectors laid out in pool (nq + 3·nv each);
 * false with a message at the first bad state. */
static bool read_states(const char* path, const cJSON* states, int nq, int nv, eval_state* in, double* pool) {
  int k = 0;
  const cJSON* s;
  double* p = pool;
  cJSON_ArrayForEach(s, states) {
    eval_state* e = &in[k];
    e->q = p, p += nq;
    e->v = p, p += nv;
    e->vdot = p, p += nv;
    e->tau = p, p += nv;
    memset(e->vdot, 0, sizeof(double) * (size_t)nv);
    memset(e->tau, 0, sizeof(double) * (size_t)nv);
    if (!cJSON_IsObject(s)) {
      cli_error(kCmd, "%s: state %d is not an object", path, k);
      return false;
    }
    if (read_vector(path, k, s, "q", true, nq, "nq", e->q) < 0 ||
        read_vector(path, k, s, "v", true, nv, "nv", e->v) < 0 ||
        read_vector(path, k, s, "vdot", false, nv, "nv", e->vdot) < 0 ||
        read_vector(path, k, s, "tau", false, nv, "nv", e->tau) < 0)
      return false;
    ++k;
  }
  return true;
}

/* The output document: the model's header and one result per state; NULL (message printed)
 * if a state fails. */
static cJSON* eval_all(const eval_args* a, const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                       const eval_state* in, int ns, double* work) {
  cJSON* out = cJSON_CreateObject();
  cJSON_AddStringToObject(out, "model", a->path);
  cJSON_AddBoolToObject(out, "floating", a->mopts.floating);
  cJSON_AddNumberToObject(out, "nq", mbt_tree_num_positions(tree));
  cJSON_AddNumberToObject(out, "nv", mbt_tree_num_velocities(tree));
  cJSON_AddItemToObject(out, "gravity", cli_json_array(a->g, 3));
  cJSON_AddBoolToObject(out, "damping", !a->no_damping);
  cJSON* results = cJSON_AddArrayToObject(out, "states");
  for (int k = 0; k < ns; ++k) {
    bool failed = false;
    cJSON* o = eval_one(tree, ctx, ws, &in[k], k, work, &failed);
    if (failed) {
      cJSON_Delete(out);
      return NULL;
    }
    cJSON_AddItemToArray(results, o);
  }
  return out;
}

/* Prints the document to out_path, or to stdout if NULL; false with a message. */
static bool write_json(const cJSON* out, const char* out_path) {
  char* json = cJSON_Print(out);
  if (!json) {
    cli_error(kCmd, "out of memory");
    return false;
  }
  FILE* f = stdout;
  if (out_path) {
    if (!cli_make_parent_dirs(kCmd, out_path) || !(f = fopen(out_path, "w"))) {
      if (!f) cli_error(kCmd, "cannot write '%s': %s", out_path, strerror(errno));
      free(json);
      return false;
    }
  }
  fputs(json, f);
  fputc('\n', f);
  free(json);
  if (f != stdout) {
    if (fclose(f) != 0) {
      cli_error(kCmd, "cannot write '%s': %s", out_path, strerror(errno));
      return false;
    }
  } else if (fflush(stdout) != 0) {
    cli_error(kCmd, "cannot write to stdout: %s", strerror(errno));
    return false;
  }
  return true;
}

int mbt_cli_eval(int argc, char** argv) {
  eval_args a;
  const int pr = parse_args(argc, argv, &a);
  if (pr == -2) return CLI_EXIT_OK;
  if (pr < 0) return CLI_EXIT_USAGE;

  /* The states file, validated before the model is used. */
  cJSON* doc = NULL;
  const cJSON* states = read_states_file(a.states_path, &doc);
  if (!states) return CLI_EXIT_FAILURE;
  cli_model model;
  if (!cli_model_load(kCmd, a.path, &a.mopts, &model)) {
    cJSON_Delete(doc);
    return CLI_EXIT_FAILURE;
  }
  mbt_tree* tree = model.tree;
  int rc = CLI_EXIT_FAILURE;
  int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  int ns = cJSON_GetArraySize(states);
  eval_state* in = calloc((size_t)(ns > 0 ? ns : 1), sizeof(eval_state));
  double* pool = malloc(sizeof(double) * ((size_t)(ns > 0 ? ns : 1) * (size_t)(nq + 3 * nv) + 1));
  double* work = malloc(sizeof(double) * (4 * (size_t)nv * (size_t)nv + 4 * (size_t)nv + 1));
  mbt_context* ctx = NULL;
  mbt_derivatives_workspace* ws = NULL;
  cJSON* out = NULL;
  if (!in || !pool || !work) {
    cli_error(kCmd, "out of memory");
    goto done;
  }
  if (!read_states(a.states_path, states, nq, nv, in, pool)) goto done;
  if (mbt_tree_set_gravity(tree, mbt_vec3_make(a.g[0], a.g[1], a.g[2])) != MBT_OK) {
    cli_error(kCmd, "--gravity: %s", mbt_tree_last_error(tree));
    goto done;
  }
  ctx = mbt_context_create(tree);
  if (!ctx) {
    cli_error(kCmd, "cannot create a context: %s", mbt_tree_last_error(tree));
    goto done;
  }
  if (a.no_damping && !cli_zero_damping(kCmd, tree, ctx)) goto done;
  if (a.derivatives && !(ws = mbt_derivatives_workspace_create(tree))) {
    cli_error(kCmd, "out of memory");
    goto done;
  }
  out = eval_all(&a, tree, ctx, ws, in, ns, work);
  if (out && write_json(out, a.out_path)) rc = CLI_EXIT_OK;
done:
  cJSON_Delete(out);
  mbt_derivatives_workspace_destroy(ws);
  if (ctx) mbt_context_destroy(ctx);
  free(work);
  free(pool);
  free(in);
  cJSON_Delete(doc);
  cli_model_free(&model);
  return rc;
}
