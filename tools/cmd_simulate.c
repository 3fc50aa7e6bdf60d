/* cmd_simulate.c: `mbt simulate [MODEL]`: simulates a robot from an initial state under
 * gravity and its joint damping, writes a CSV of t, q, v and total energy and a plot, and
 * prints a summary. Without MODEL: the shipped Panda arm released from a bent pose. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_commands.h"
#include "cli_common.h"
#include "view_page.h"
#include "plot.h"
#include "scene.h"
#include "sim_contact.h"

static const char* const kCmd = "simulate";

#ifndef MBT_DATA_DIR
#define MBT_DATA_DIR ""
#endif

/* The default robot and its initial pose (rad; the fingers in m), within the URDF limits. */
static const char* const kDefaultModel = "panda.urdf";
static const struct {
  const char* joint;
  double q;
} kDefaultPose[] = {{"panda_joint1", 0.3},  {"panda_joint2", 0.5},  {"panda_joint3", -0.2},
                    {"panda_joint4", -1.2}, {"panda_joint5", 0.4},  {"panda_joint6", 1.8},
                    {"panda_joint7", 0.8},  {"panda_finger_joint1", 0.02}, {"panda_finger_joint2", 0.02}};

static void print_help(void) {
  puts("usage: mbt simulate [MODEL|SCENE.json] [options]\n"
       "\n"
       "Simulates a URDF robot under gravity with its joint damping and joint position limits,\n"
       "from an initial state, without control torques unless --pd. Writes a CSV with time,\n"
       "q, v and total energy per logged step, a plot of the joint positions and the energy\n"
       "over time, and a 3D page beside the CSV (FILE.html, see 'mbt view') that plays the\n"
       "motion.\n"
       "Without MODEL it simulates the shipped Franka Panda arm (models/panda.urdf) released\n"
       "from rest in a bent pose. A scene file (SCENE.json, see docs/contact.md) places several\n"
       "models in one simulation; their collision geometry touches.\n"
       "\n"
       "options:\n"
       "  --duration T             simulated time in s (default 5)\n"
       "  --integrator NAME        rk45 (adaptive, default), rk4, semi_implicit_euler, euler;\n"
       "                           with contact (--ground or a scene) time_stepping, the only\n"
       "                           one that takes contact, is chosen\n"
       "  --dt H                   rk45: output interval and largest step (default 0.01 s);\n"
       "                           fixed-step integrators: the step, logged every step\n"
       "                           (default 0.001 s)\n"
       "  --rtol R, --atol A       rk45 error tolerances (default 1e-6, 1e-8)\n"
       "  --q0 v1,v2,...           initial positions, nq numbers in mbt's order (see\n"
       "                           'mbt info MODEL --json'); default the model's default pose\n"
       "  --v0 v1,v2,...           initial velocities, nv numbers (default zero)\n"
       "  --gravity gx,gy,gz       gravity in m/s² (default 0,0,-9.81)\n"
       "  --no-damping             leave the joints' damping out\n"
       "  --limit-stiffness K      joint limit penalty stiffness (default 1e4; 0 disables limits)\n"
       "  --limit-damping C        joint limit penalty damping (default 1e2)\n"
       "  --out FILE.csv           the CSV (default out/simulate.csv)\n"
       "  --plot FILE.svg|FILE.png the plot (default out/simulate.svg); --no-plot for none\n"
       "  --floating               attach the root link with a quaternion-floating joint\n"
       "  --ground                 add the ground, the half space z = 0, touching the robot's\n"
       "                           collision geometry (meshes as their convex hulls); a\n"
       "                           floating robot in its default pose is lifted so its lowest\n"
       "                           collision point just touches it (not with --q0)\n"
       "  --friction MU            the Coulomb friction coefficient of every shape and of\n"
       "                           the ground (default 1)\n"
       "  --contact-solver NAME    sap (default: convex, Newton's method, converges on\n"
       "                           every step) or pgs (projected Gauss-Seidel on exact\n"
       "                           Coulomb friction, may stop at its sweep limit)\n"
       "  --pd KP,KD               a joint PD controller holding the initial pose:\n"
       "                           tau = KP·(q0 − q) − KD·v on every joint but a floating one\n"
       "  --pd-gravity             add gravity compensation to the PD controller\n"
       "  --contacts               add the contact count and each colliding body's total\n"
       "                           contact force (N, world frame) to the CSV, and write every\n"
       "                           contact point to FILE_contacts.csv beside it\n"
       "  --allow-invalid-inertia  load non-physical inertias as written (with a warning)\n"
       "  -h, --help               this help\n"
       "\n"
       "A progress bar is shown on a terminal for runs longer than a second. Ctrl-C stops the\n"
       "run cleanly: the CSV and the plot keep what was computed (exit status 130).");
}

/* ---- Ctrl-C ------------------------------------------------------------------------- */
static volatile sig_atomic_t g_interrupted = 0;
static void on_sigint(int sig) {
  (void)sig;
  g_interrupted = 1;
}

/* ---- observer: interruption and progress bar -------------------------------------- */
typedef struct {
  double t_end;
  double wall_start;
  double last_draw;
  bool tty;
  bool drawn;
} progress;

static void draw_progress(progress* p, double t, double now) {
  const int width = 30;
  double frac = p->t_end > 0 ? t / p->t_end : 1;
  if (frac < 0) frac = 0;
  if (frac > 1) frac = 1;
  int filled = (int)(frac * width + 0.5);
  char bar[64];
  for (int i = 0; i < width; ++i) bar[i] = i < filled ? '#' : '-';
  bar[width] = '\0';
  double wall = now - p->wall_start;
  double eta = frac > 0 ? wall * (1 - frac) / frac : 0;
  fprintf(stderr, "\r[%s] %3.0f%%  t = %.3f / %.3f s  wall %.1f s  eta %.1f s ", bar, 100 * frac, t, p->t_end, wall,
          eta);
  fflush(stderr);
  p->drawn = true;
  p->last_draw = now;
}

static void clear_progress(progress* p) {
  if (p->drawn) {
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->drawn = false;
  }
}

static bool observer(const mbt_context* ctx, void* user) {
  progress* p = user;
  if (g_interrupted) return false;
  if (p->tty) {
    double now = cli_now();
    if (now - p->wall_start > 1.0 && now - p->last_draw > 0.1) draw_progress(p, mbt_context_time(ctx), now);
  }
  return true;
}

/* ---- logged samples (for the plot) ------------------------------------------------- */
typedef struct {
  int n, cap, nq;
  double* t;
  double* q;
  double* energy;
} samples;

static bool samples_push(samples* s, double t, const double* q, double e) {
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 1024;
    double* nt = realloc(s->t, sizeof(double) * (size_t)cap);
    if (!nt) return false;
    s->t = nt;
    double* nq = realloc(s->q, sizeof(double) * (size_t)cap * (size_t)(s->nq > 0 ? s->nq : 1));
    if (!nq) return false;
    s->q = nq;
    double* ne = realloc(s->energy, sizeof(double) * (size_t)cap);
    if (!ne) return false;
    s->energy = ne;
    s->cap = cap;
  }
  s->t[s->n] = t;
  if (s->nq > 0) memcpy(s->q + (size_t)s->n * s->nq, q, sizeof(double) * (size_t)s->nq);
  s->energy[s->n] = e;
  s->n++;
  return true;
}

static void samples_free(samples* s) {
  free(s->t);
  free(s->q);
  free(s->energy);
}

/* Total energy K + U at the simulator's state. */
static int total_energy(const mbt_tree* tree, mbt_context* ctx, double* E) {
  double K = 0, U = 0;
  int status = mbt_calc_kinetic_energy(tree, ctx, &K);
  if (status == MBT_OK) status = mbt_calc_potential_energy(tree, ctx, &U);
  *E = K + U;
  return status;
}

/* A CSV number: round-trip digits, "nan" if not finite. */
static const char* csv_number(char* buf, size_t n, double x) {
  if (!isfinite(x)) {
    snprintf(buf, n, "nan");
    return buf;
  }
  return cli_format_double(buf, n, x);
}

static bool write_row(FILE* f, const mbt_context* ctx, int nq, int nv, double E) {
  char buf[40];
  const double* q = mbt_context_q(ctx);
  const double* v = mbt_context_v(ctx);
  fputs(csv_number(buf, sizeof(buf), mbt_context_time(ctx)), f);
  for (int i = 0; i < nq; ++i) fprintf(f, ",%s", csv_number(buf, sizeof(buf), q[i]));
  for (int i = 0; i < nv; ++i) fprintf(f, ",%s", csv_number(buf, sizeof(buf), v[i]));
  fprintf(f, ",%s", csv_number(buf, sizeof(buf), E));
  return ferror(f) == 0;
}

static bool file_exists(const char* path) {
  return access(path, R_OK) == 0;
}

/* The shipped model: $MBT_MODEL_DIR, the source tree, <exe>/../share/mbt/models (an
 * installed, possibly relocated mbt), then the configured installation data directory. */
static const char* find_default_model(char* buf, size_t n) {
  char exe_dir[4096] = "";
  ssize_t len = readlink("/proc/self/exe", exe_dir, sizeof(exe_dir) - 1);
  if (len > 0) {
    exe_dir[len] = '\0';
    char* slash = strrchr(exe_dir, '/');
    if (slash) *slash = '\0';
    size_t used = strlen(exe_dir);
    snprintf(exe_dir + used, sizeof(exe_dir) - used, "/../share/mbt/models");
  } else {
    exe_dir[0] = '\0';
  }
  const char* dirs[4] = {getenv("MBT_MODEL_DIR"), MBT_SOURCE_DIR "/models", exe_dir, MBT_DATA_DIR};
  for (int i = 0; i < 4; ++i) {
    if (!dirs[i] || !dirs[i][0]) continue;
    snprintf(buf, n, "%s/%s", dirs[i], kDefaultModel);
    if (file_exists(buf)) return buf;
  }
  return NULL;
}

typedef struct {
  const char* model;
  cli_model_options mopts;
  double duration;
  double dt;
  bool dt_given;
  int integrator;
  double rtol, atol;
  bool rtol_given, atol_given;
  const char *q0, *v0, *gravity;
  bool no_damping;
  double limit_k, limit_c;
  bool limit_k_given, limit_c_given;
  const char* out;
  const char* plot;
  bool no_plot;
  bool integrator_given;
  sim_contact_args contact;
} sim_args;

/* Parses a finite number option; false with a message. */
static bool number_arg(const char* name, const char* value, double* out, bool positive, bool nonneg) {
  if (!cli_parse_double(value, out)) {
    cli_error(kCmd, "%s needs a finite number, got '%s'", name, value);
    return false;
  }
  if (positive && !(*out > 0)) {
    cli_error(kCmd, "%s must be positive, got '%s'", name, value);
    return false;
  }
  if (nonneg && !(*out >= 0)) {
    cli_error(kCmd, "%s must not be negative, got '%s'", name, value);
    return false;
  }
  return true;
}

/* With contact (--ground or a scene) the time-stepping scheme is the integrator: contact forces
 * are impulsive and stiff, which the smooth integrators cannot step (docs/contact.md). */
static bool select_contact_integrator(sim_args* a) {
  const bool contact = a->contact.ground || (a->model && scene_path_is_scene(a->model));
  if (!contact) {
    if (a->contact.contacts || a->contact.friction_given || a->contact.solver_given)
      cli_error(kCmd, "--contacts, --friction and --contact-solver need contact: give --ground or a scene");
    return !a->contact.contacts && !a->contact.friction_given && !a->contact.solver_given;
  }
  if (a->integrator_given && a->integrator != MBT_INTEGRATOR_TIME_STEPPING) {
    cli_error(kCmd, "with contact (--ground or a scene) the integrator is time_stepping; '%s' cannot step contact",
              mbt_integrator_name((mbt_integrator_type)a->integrator));
    return false;
  }
  a->integrator = MBT_INTEGRATOR_TIME_STEPPING;
  return true;
}

/* A number option's value r (cli_option_value's result) and val into *out, *given set: 1, or
 * -1 with a message. */
static int number_option(int r, const char* name, const char* val, double* out, bool* given, bool positive,
                         bool nonneg) {
  if (r < 0 || !number_arg(name, val, out, positive, nonneg)) return -1;
  if (given) *given = true;
  return 1;
}

/* If argv[*i] is an option with a value, records it: 1 if it was one, 0 if not, -1 on a bad
 * value (message printed). */
static int parse_value_option(int argc, char** argv, int* i, sim_args* a) {
  const char* val = NULL;
  int r;
#define OPT(name) ((r = cli_option_value(kCmd, argc, argv, i, name, &val)) != 0)
  if (OPT("--duration")) return number_option(r, "--duration", val, &a->duration, NULL, false, true);
  if (OPT("--dt")) return number_option(r, "--dt", val, &a->dt, &a->dt_given, true, false);
  if (OPT("--rtol")) return number_option(r, "--rtol", val, &a->rtol, &a->rtol_given, true, false);
  if (OPT("--atol")) return number_option(r, "--atol", val, &a->atol, &a->atol_given, true, false);
  if (OPT("--limit-stiffness"))
    return number_option(r, "--limit-stiffness", val, &a->limit_k, &a->limit_k_given, false, true);
  if (OPT("--limit-damping"))
    return number_option(r, "--limit-damping", val, &a->limit_c, &a->limit_c_given, false, true);
  if (OPT("--integrator")) {
    if (r < 0) return -1;
    a->integrator = mbt_integrator_from_name(val);
    a->integrator_given = true;
    if (a->integrator < 0) {
      cli_error(kCmd, "unknown integrator '%s' (rk45, rk4, semi_implicit_euler, euler, time_stepping)", val);
      return -1;
    }
    return 1;
  }
  const char** text = OPT("--q0") ? &a->q0 : OPT("--v0") ? &a->v0 : OPT("--gravity") ? &a->gravity
                      : OPT("--out") ? &a->out : OPT("--plot") ? &a->plot : NULL;
#undef OPT
  if (!text) return 0;
  if (r < 0) return -1;
  *text = val;
  return 1;
}

/* The checks across options, once all are read; sets the default --dt. False with a message. */
static bool check_args(sim_args* a) {
  if (!a->no_plot && !plot_format_supported(a->plot)) {
    cli_error(kCmd, "--plot: the plot is written as SVG or PNG; give a file ending in .svg or .png (got '%s')",
              a->plot);
    return false;
  }
  if (!sim_contact_check(kCmd, &a->contact) || !select_contact_integrator(a)) return false;
  if ((a->rtol_given || a->atol_given) && a->integrator != MBT_INTEGRATOR_RK45) {
    cli_error(kCmd, "--rtol/--atol apply to the adaptive integrator rk45 only");
    return false;
  }
  if (!a->dt_given) a->dt = a->integrator == MBT_INTEGRATOR_RK45 ? 0.01 : 0.001;
  if (a->duration / a->dt > 1e12) {
    cli_error(kCmd, "--duration / --dt is more than 1e12 output steps");
    return false;
  }
  return true;
}

/* Parses the command line into a; 0, -2 after --help, -1 on a usage error (message printed). */
static int parse_args(int argc, char** argv, sim_args* a) {
  memset(a, 0, sizeof(*a));
  a->duration = 5.0;
  a->integrator = MBT_INTEGRATOR_RK45;
  a->out = "out/simulate.csv";
  a->plot = "out/simulate.svg";
  for (int i = 1; i < argc; ++i) {
    const char* s = argv[i];
    if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
      print_help();
      return -2;
    }
    if (cli_parse_model_option(s, &a->mopts)) continue;
    const int cr = sim_contact_parse(kCmd, argc, argv, &i, &a->contact);
    if (cr < 0) return -1;
    if (cr > 0) continue;
    if (strcmp(s, "--no-damping") == 0) {
      a->no_damping = true;
      continue;
    }
    if (strcmp(s, "--no-plot") == 0) {
      a->no_plot = true;
      continue;
    }
    const int vr = parse_value_option(argc, argv, &i, a);
    if (vr < 0) return -1;
    if (vr > 0) continue;
    if (!cli_model_argument(kCmd, s, &a->model)) return -1;
  }
  return check_args(a) ? 0 : -1;
}

/* Sets the default pose of the shipped Panda (only joints that exist in the model). */
static void set_default_pose(const mbt_tree* tree, mbt_context* ctx) {
  for (size_t k = 0; k < sizeof(kDefaultPose) / sizeof(kDefaultPose[0]); ++k) {
    int j = mbt_tree_joint_by_name(tree, kDefaultPose[k].joint);
    if (j >= 0 && mbt_joint_num_positions(tree, j) == 1) mbt_joint_set_positions(ctx, j, &kDefaultPose[k].q, 1);
  }
}

static void print_contact_summary(const mbt_simulator_stats* st, const sim_contact* c, bool pgs) {
  printf("contact: %d shapes, %ld contact points over all steps, %s solver: %ld iterations, largest residual %.2g",
         mbt_contact_model_num_shapes(c->model), st->contact_points, pgs ? "PGS" : "SAP", st->contact_iterations,
         st->contact_residual_max);
  if (st->contact_unconverged > 0) printf(", %ld steps stopped at the iteration limit", st->contact_unconverged);
  if (st->contacts_dropped > 0) printf(", %ld points beyond capacity dropped", st->contacts_dropped);
  printf("\n");
  if (c->lift != 0) printf("ground: the robot was lifted by %.6g m to touch it\n", c->lift);
  if (c->log) printf("contacts: %s\n", c->log_path);
}

/* What a run holds between set-up and clean-up (run_free, on every path). */
typedef struct {
  mbt_tree* tree;
  int nq, nv;
  mbt_context* ctx;           /* the initial state */
  mbt_simulator* sim;
  mbt_context* sctx;          /* the simulator's state */
  mbt_simulator_options opts;
  FILE* csv;
  char** qnames;
  char** vnames;
  double* buf;                /* nq + nv + 1: --q0, --v0 */
  samples smp;
  sim_contact contact;
  progress prog;
  struct sigaction old_action;
  bool handler_installed;
  double t_start, E0, E;      /* start time, energy at start and at the last logged state */
  double wall;                /* wall-clock seconds of the stepping */
  int status;                 /* how the stepping ended */
} sim_run;

/* The shipped model's path into buf, or NULL with a message. */
static const char* default_model_or_error(char* buf, size_t n) {
  const char* path = find_default_model(buf, n);
  if (!path)
    cli_error(kCmd,
              "cannot find the shipped model %s (looked in $MBT_MODEL_DIR, %s/models, "
              "../share/mbt/models beside mbt and %s); give a MODEL",
              kDefaultModel, MBT_SOURCE_DIR, MBT_DATA_DIR[0] ? MBT_DATA_DIR : "(no data dir)");
  return path;
}

/* Sets gravity, creates the context and the buffers; false with a message. */
static bool run_init(sim_run* r, mbt_tree* tree, const double g[3]) {
  memset(r, 0, sizeof(*r));
  r->tree = tree;
  r->nq = mbt_tree_num_positions(tree);
  r->nv = mbt_tree_num_velocities(tree);
  r->smp.nq = r->nq;
  if (mbt_tree_set_gravity(tree, mbt_vec3_make(g[0], g[1], g[2])) != MBT_OK) {
    cli_error(kCmd, "--gravity: %s", mbt_tree_last_error(tree));
    return false;
  }
  r->ctx = mbt_context_create(tree);
  r->buf = malloc(sizeof(double) * (size_t)(r->nq + r->nv + 1));
  r->qnames = cli_state_names(tree, false);
  r->vnames = cli_state_names(tree, true);
  if (!r->ctx || !r->buf || !r->qnames || !r->vnames) {
    cli_error(kCmd, "cannot create a context: %s", r->ctx ? "out of memory" : mbt_tree_last_error(tree));
    return false;
  }
  return true;
}

static void run_free(sim_run* r) {
  if (r->handler_installed) sigaction(SIGINT, &r->old_action, NULL);
  if (r->csv) fclose(r->csv);
  sim_contact_free(&r->contact);
  if (r->sim) mbt_simulator_destroy(r->sim);
  if (r->ctx) mbt_context_destroy(r->ctx);
  cli_free_names(r->qnames, r->nq);
  cli_free_names(r->vnames, r->nv);
  free(r->buf);
  samples_free(&r->smp);
}

/* --q0 (velocities false: nq numbers) or --v0 (nv numbers) into the initial state.
 * CLI_EXIT_OK, or the exit status with a message. */
static int set_state_option(sim_run* r, const char* text, bool velocities) {
  const int n = velocities ? r->nv : r->nq;
  const char* option = velocities ? "--v0" : "--q0";
  int count = 0;
  if (!cli_parse_list(text, r->buf, n + 1, &count) || count != n) {
    cli_error(kCmd, "%s needs %s = %d finite numbers%s, got '%s'", option, velocities ? "nv" : "nq", n,
              velocities ? "" : " (in the order of 'mbt info --json')", text);
    return CLI_EXIT_USAGE;
  }
  const int status = velocities ? mbt_context_set_v(r->ctx, r->buf, n) : mbt_context_set_q(r->ctx, r->buf, n);
  if (status != MBT_OK) {
    cli_error(kCmd, "%s: %s", option, mbt_context_last_error(r->ctx));
    return CLI_EXIT_FAILURE;
  }
  return CLI_EXIT_OK;
}

/* The initial state: the default pose of the shipped model, --q0, --v0, --no-damping.
 * CLI_EXIT_OK, or the exit status with a message. */
static int set_initial_state(const sim_args* a, bool default_model, sim_run* r) {
  int rc = CLI_EXIT_OK;
  if (default_model && !a->q0) set_default_pose(r->tree, r->ctx);
  if (a->q0 && (rc = set_state_option(r, a->q0, false)) != CLI_EXIT_OK) return rc;
  if (a->v0 && (rc = set_state_option(r, a->v0, true)) != CLI_EXIT_OK) return rc;
  if (a->no_damping && !cli_zero_damping(kCmd, r->tree, r->ctx)) return CLI_EXIT_FAILURE;
  return CLI_EXIT_OK;
}

/* Joints that start outside their position limits: the limit penalty acts from t = 0. */
static void warn_outside_limits(const mbt_tree* tree, const mbt_context* ctx) {
  for (int j = 0; j < mbt_tree_num_joints(tree); ++j) {
    const double* lo = mbt_joint_position_lower_limits(tree, j);
    const double* hi = mbt_joint_position_upper_limits(tree, j);
    const double* qj = mbt_joint_positions(ctx, j);
    for (int k = 0; lo && hi && qj && k < mbt_joint_num_positions(tree, j); ++k)
      if (qj[k] < lo[k] || qj[k] > hi[k])
        fprintf(stderr, "mbt simulate: warning: joint '%s' starts at %g, outside its limits [%g, %g]\n",
                mbt_joint_name(tree, j), qj[k], lo[k], hi[k]);
  }
}

/* Contact, the simulator with its options, the limit penalty and the progress observer;
 * false with a message. */
static bool create_simulator(const sim_args* a, const cli_model* model, sim_run* r) {
  if (!sim_contact_setup(kCmd, model, r->ctx, &a->contact, a->q0 != NULL, &r->contact)) return false;
  r->opts = mbt_simulator_default_options();
  r->opts.integrator = (mbt_integrator_type)a->integrator;
  r->opts.dt = a->dt;
  if (a->rtol_given) r->opts.rtol = a->rtol;
  if (a->atol_given) r->opts.atol = a->atol;
  r->sim = mbt_simulator_create(r->tree, r->ctx, &r->opts);
  if (!r->sim) {
    cli_error(kCmd, "cannot create the simulator: %s", mbt_context_last_error(r->ctx));
    return false;
  }
  if (!sim_contact_attach(kCmd, r->sim, r->ctx, &a->contact, &r->contact)) return false;
  if (a->limit_k_given || a->limit_c_given)
    mbt_simulator_set_limit_penalty(r->sim, a->limit_k_given ? a->limit_k : 1e4, a->limit_c_given ? a->limit_c : 1e2);
  r->prog = (progress){a->duration, cli_now(), 0, isatty(STDERR_FILENO) != 0, false};
  mbt_simulator_set_observer(r->sim, observer, &r->prog);
  r->sctx = mbt_simulator_context(r->sim);
  return true;
}

/* The output directories, the Ctrl-C handler (from here on Ctrl-C stops the run cleanly: the
 * CSV exists once it is in place) and the CSV with its header; false with a message. */
static bool open_csv(const sim_args* a, sim_run* r) {
  if (!cli_make_parent_dirs(kCmd, a->out) || (!a->no_plot && !cli_make_parent_dirs(kCmd, a->plot))) return false;
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  g_interrupted = 0;
  r->handler_installed = sigaction(SIGINT, &action, &r->old_action) == 0;
  r->csv = fopen(a->out, "w");
  if (!r->csv) {
    cli_error(kCmd, "cannot write '%s': %s", a->out, strerror(errno));
    return false;
  }
  fputs("t", r->csv);
  for (int i = 0; i < r->nq; ++i) fprintf(r->csv, ",%s", r->qnames[i]);
  for (int i = 0; i < r->nv; ++i) fprintf(r->csv, ",%s", r->vnames[i]);
  fputs(",energy", r->csv);
  if (a->contact.contacts && !sim_contact_begin_log(kCmd, r->csv, a->out, &r->contact)) return false;
  fputc('\n', r->csv);
  return true;
}

/* One CSV row and plot sample of the simulator's state with energy E; false if not written. */
static bool log_state(const sim_args* a, sim_run* r, double E) {
  const double t = mbt_context_time(r->sctx);
  return write_row(r->csv, r->sctx, r->nq, r->nv, E) &&
         (!a->contact.contacts || sim_contact_write(r->csv, r->sim, t, &r->contact)) && fputc('\n', r->csv) != EOF &&
         samples_push(&r->smp, t, mbt_context_q(r->sctx), E);
}

/* Logs the initial state, then advances output interval by output interval, rows at
 * t_k = t_start + k·dt exactly, until the end, an error or Ctrl-C (r->status tells which);
 * closes the CSV. False with a message if the output cannot be written. */
static bool run_steps(const sim_args* a, sim_run* r) {
  if (total_energy(r->tree, r->sctx, &r->E0) != MBT_OK) {
    cli_error(kCmd, "energy at the initial state: %s", mbt_context_last_error(r->sctx));
    return false;
  }
  r->t_start = mbt_context_time(r->sctx);
  if (!log_state(a, r, r->E0)) {
    cli_error(kCmd, "cannot write '%s': %s", a->out, strerror(errno));
    return false;
  }
  const long num_steps = (long)ceil(a->duration / a->dt - 1e-9);
  const double wall0 = cli_now();
  r->status = MBT_OK;
  r->E = r->E0;
  for (long k = 1; k <= num_steps; ++k) {
    double t_k = k == num_steps ? r->t_start + a->duration : r->t_start + (double)k * a->dt;
    r->status = mbt_simulator_advance_to(r->sim, t_k);
    if (r->status == MBT_OK && g_interrupted) r->status = MBT_ERR_INTERRUPTED;
    /* Log the state reached, also when the run stopped early. */
    if (mbt_context_time(r->sctx) > r->smp.t[r->smp.n - 1]) {
      if (total_energy(r->tree, r->sctx, &r->E) != MBT_OK) r->E = NAN;
      if (!log_state(a, r, r->E)) {
        const int err = errno;
        clear_progress(&r->prog);
        cli_error(kCmd, "cannot write '%s': %s", a->out, strerror(err));
        return false;
      }
    }
    if (r->status != MBT_OK) break;
  }
  r->wall = cli_now() - wall0;
  clear_progress(&r->prog);
  if (r->handler_installed) {
    sigaction(SIGINT, &r->old_action, NULL);
    r->handler_installed = false;
  }
  const bool csv_ok = fclose(r->csv) == 0;
  r->csv = NULL;
  if (!csv_ok) cli_error(kCmd, "cannot write '%s': %s", a->out, strerror(errno));
  return csv_ok;
}

/* The plot of the logged samples; false with a message if it cannot be written. */
static bool write_plot(const sim_args* a, const cli_model* model, const sim_run* r) {
  char title[512], err[512];
  snprintf(title, sizeof(title), "%s: %.6g s simulated, %s%s",
           model->urdf.robot_name ? model->urdf.robot_name : a->model, mbt_context_time(r->sctx) - r->t_start,
           mbt_integrator_name(r->opts.integrator), a->no_damping ? ", no damping" : "");
  plot_data pd = {title, r->smp.n, r->smp.t, r->nq, r->smp.q, (const char* const*)r->qnames, r->smp.energy};
  const bool ok = plot_write(a->plot, &pd, err, sizeof(err));
  if (!ok) cli_error(kCmd, "%s", err);
  return ok;
}

/* The summary on stdout: model, how the run ended, integrator, steps, time, contact, energy,
 * limit events and the files written. */
static void print_summary(const sim_args* a, const cli_model* model, const sim_run* r, bool default_model) {
  const mbt_simulator_stats st = mbt_simulator_get_stats(r->sim);
  const double simulated = mbt_context_time(r->sctx) - r->t_start;
  printf("mbt simulate: %s (%s), nq = %d, nv = %d%s\n", model->urdf.robot_name ? model->urdf.robot_name : "",
         a->model, r->nq, r->nv, default_model ? ", default pose released from rest" : "");
  if (r->status == MBT_ERR_INTERRUPTED)
    printf("interrupted at t = %.6g s of %.6g s; output up to there kept\n", simulated, a->duration);
  else if (r->status != MBT_OK)
    printf("stopped at t = %.6g s of %.6g s: %s\n", simulated, a->duration, mbt_simulator_last_error(r->sim));
  if (model->urdf.num_warnings > 0)
    printf("model warnings: %d (elements not modelled in dynamics; 'mbt info' lists them)\n",
           model->urdf.num_warnings);
  printf("integrator: %s", mbt_integrator_name(r->opts.integrator));
  if (r->opts.integrator == MBT_INTEGRATOR_RK45)
    printf(" (rtol %g, atol %g, output every %g s)\n", r->opts.rtol, r->opts.atol, a->dt);
  else
    printf(" (step %g s)\n", a->dt);
  printf("steps: %ld taken, %ld rejected, %ld dynamics evaluations\n", st.steps_taken, st.steps_rejected,
         st.dynamics_evaluations);
  printf("time: %.6g s simulated in %.3f s wall", simulated, r->wall);
  if (r->wall > 0 && simulated > 0) printf(" (real-time factor %.3g)", simulated / r->wall);
  printf("\n");
  if (r->contact.model) print_contact_summary(&st, &r->contact, a->contact.pgs);
  printf("energy: %.9g J at start, %.9g J at end (change %+.3g J)\n", r->E0, r->E, r->E - r->E0);
  printf("joint limit events: %ld%s\n", st.limit_events,
         st.limit_events > 0 ? " (the limit penalty's damping dissipates energy at each)" : "");
  printf("CSV:  %s (%d row%s)\n", a->out, r->smp.n, r->smp.n == 1 ? "" : "s");
}

/* After the run: the plot, the 3D page beside the CSV (view_page.h), the summary and the exit
 * status (130 if interrupted, 1 if stopped early or the plot failed). */
static int report(const sim_args* a, const cli_model* model, const sim_run* r, bool default_model) {
  const bool plot_ok = !a->no_plot && write_plot(a, model, r);
  char* view_path = view_page_available() ? view_page_path_beside(a->out) : NULL;
  const view_trajectory traj = {r->smp.n, r->nq, r->smp.t, r->smp.q};
  const bool view_ok = view_path && view_page_write(kCmd, model, &traj, view_path);
  print_summary(a, model, r, default_model);
  if (plot_ok) printf("plot: %s\n", a->plot);
  if (view_ok) printf("view: %s (open it in a web browser)\n", view_path);
  free(view_path);
  fflush(stdout);
  const double simulated = mbt_context_time(r->sctx) - r->t_start;
  if (r->status == MBT_ERR_INTERRUPTED) {
    cli_error(kCmd, "interrupted at t = %.6g s", simulated);
    return CLI_EXIT_INTERRUPTED;
  }
  if (r->status != MBT_OK) {
    cli_error(kCmd, "the simulation stopped at t = %.6g s: %s", simulated, mbt_simulator_last_error(r->sim));
    return CLI_EXIT_FAILURE;
  }
  return (a->no_plot || plot_ok) ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

int mbt_cli_simulate(int argc, char** argv) {
  sim_args a;
  int pr = parse_args(argc, argv, &a);
  if (pr == -2) return CLI_EXIT_OK;
  if (pr < 0) return CLI_EXIT_USAGE;
  char default_path[4096];
  const bool default_model = a.model == NULL;
  if (default_model && !(a.model = default_model_or_error(default_path, sizeof(default_path))))
    return CLI_EXIT_FAILURE;
  double g[3] = {0, 0, -9.81};
  if (!cli_parse_gravity(kCmd, a.gravity, g)) return CLI_EXIT_USAGE;

  cli_model model;
  if (!cli_model_load(kCmd, a.model, &a.mopts, &model)) return CLI_EXIT_FAILURE;
  sim_run r;
  int rc = run_init(&r, model.tree, g) ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
  if (rc == CLI_EXIT_OK) rc = set_initial_state(&a, default_model, &r);
  if (rc == CLI_EXIT_OK) {
    warn_outside_limits(r.tree, r.ctx);
    const bool ran = create_simulator(&a, &model, &r) && open_csv(&a, &r) && run_steps(&a, &r);
    rc = ran ? report(&a, &model, &r, default_model) : CLI_EXIT_FAILURE;
  }
  run_free(&r);
  cli_model_free(&model);
  return rc;
}
