/* bench_contact.c: mbt_bench_contact, the contact benchmark.
 * 1. Solo12 standing on the ground on a joint PD controller (KP = 20 N·m/rad, KD = 0.3
 *    N·m·s/rad, holding the default pose), 1 ms steps: the time of one step of mbt's time
 *    stepping (contact detection on the collision meshes' convex hulls and the ground, the
 *    contact problem, the step) with each contact solver (SAP, PGS) beside MuJoCo's mj_step on
 *    the same URDF with the same collision meshes (MuJoCo also collides their convex hulls)
 *    and a ground plane, the same controller in qfrc_applied, timed in alternating batches of
 *    100 steps on the thread's CPU clock (the machine is shared). All settle for 1 s first;
 *    the steps timed continue the standing. Prints the medians, the ratios and the real-time
 *    factors, the contact points each side finds, the solvers' iterations per step and steps
 *    stopped at their iteration limit, and the heap allocations made while stepping.
 * 2. The scene of scenes/two_arms_box.json built with the C API (two Franka Panda arms and a
 *    0.5 kg box on the ground, μ = 0.6, no control): its first 3 s (3000 steps: the left arm
 *    falls onto the box and pushes it) with each solver, in alternating batches of 100 steps:
 *    the median step time, iterations per step and steps stopped at the limit.
 * Exits 1 if either robot falls (base below 0.3 m) or mbt's steps allocate.
 * Usage: mbt_bench_contact [--seconds S] (the time budget of part 1, default 2). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#ifdef MBT_BENCH_MUJOCO
#include <mujoco/mujoco.h>
#endif

#define KP 20.0
#define KD 0.3
#define H 1e-3

static const char* const kModel = MBT_SOURCE_DIR "/models/solo12.urdf";

/* ---- mbt ------------------------------------------------------------------------------------- */
typedef struct {
  mbt_urdf_result urdf;
  mbt_context* ctx;
  mbt_contact_model* contact;
  mbt_simulator* sim;
  double q_ref[32];
  double t;
  mbt_simulator_stats timed_from; /* the stats when the timing started */
} mbt_side;

/* tau = KP·(q_ref − q) − KD·v on the 12 revolute joints (q index ≥ 7, v index ≥ 6). */
static void pd(mbt_real t, const mbt_real* q, const mbt_real* v, mbt_real* tau, void* user) {
  (void)t;
  const mbt_side* s = user;
  for (int i = 0; i < 12; ++i) tau[6 + i] += KP * (s->q_ref[7 + i] - q[7 + i]) - KD * v[6 + i];
}

static int mbt_step(void* user, int k) {
  (void)k;
  mbt_side* s = user;
  s->t += H;
  return mbt_simulator_advance_to(s->sim, s->t);
}

/* Solo12 floating, its collision meshes' hulls and the ground (μ = 1), lifted to touch. */
static bool mbt_side_create(mbt_side* s, mbt_contact_solver_method method) {
  memset(s, 0, sizeof *s);
  if (mbt_urdf_load_file(kModel, MBT_URDF_FLOATING, &s->urdf) != MBT_OK) {
    fprintf(stderr, "mbt_bench_contact: %s\n", s->urdf.error);
    return false;
  }
  const mbt_tree* tree = s->urdf.tree;
  s->ctx = mbt_context_create(tree);
  s->contact = mbt_contact_model_create(tree);
  if (mbt_contact_model_add_collision_geometry(s->contact, NULL) < 0 ||
      mbt_contact_model_add_ground(s->contact, mbt_vec3_make(0, 0, 1), 0, NULL) < 0) {
    fprintf(stderr, "mbt_bench_contact: %s\n", mbt_contact_model_last_error(s->contact));
    return false;
  }
  mbt_real z = 0;
  mbt_contact_model_calc_lowest_point(s->contact, s->ctx, &z);
  memcpy(s->q_ref, mbt_context_q(s->ctx), sizeof(double) * 19);
  s->q_ref[6] -= z;
  mbt_context_set_q(s->ctx, s->q_ref, 19);
  mbt_simulator_options o = mbt_simulator_default_options();
  o.integrator = MBT_INTEGRATOR_TIME_STEPPING;
  o.dt = H;
  s->sim = mbt_simulator_create(tree, s->ctx, &o);
  if (!s->sim || mbt_simulator_set_contact_model(s->sim, s->contact) != MBT_OK ||
      mbt_simulator_set_contact_solver_method(s->sim, method) != MBT_OK)
    return false;
  mbt_simulator_set_control(s->sim, pd, s);
  for (int i = 0; i < 1000; ++i)
    if (mbt_step(s, 0) != MBT_OK) return false;
  return true;
}

static void mbt_side_destroy(mbt_side* s) {
  mbt_simulator_destroy(s->sim);
  mbt_contact_model_destroy(s->contact);
  mbt_context_destroy(s->ctx);
  mbt_urdf_result_free(&s->urdf);
}

#ifdef MBT_BENCH_MUJOCO
/* ---- MuJoCo ---------------------------------------------------------------------------------- */
typedef struct {
  mjModel* m;
  mjData* d;
  int qadr[12], vadr[12];   /* the 12 joints in mbt's order */
  double q_ref[12];
} mj_side;

static char* read_all(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  const long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s) s[n] = '\0';
  fclose(f);
  return s;
}

/* text with every `from` replaced by `to` (malloc). */
static char* replace_all(const char* text, const char* from, const char* to) {
  size_t count = 0;
  for (const char* p = text; (p = strstr(p, from)); p += strlen(from)) ++count;
  char* out = malloc(strlen(text) + count * strlen(to) + 1);
  if (!out) return NULL;
  char* o = out;
  for (const char* p = text;;) {
    const char* q = strstr(p, from);
    const size_t n = q ? (size_t)(q - p) : strlen(p);
    memcpy(o, p, n);
    o += n;
    if (!q) break;
    strcpy(o, to);
    o += strlen(to);
    p = q + strlen(from);
  }
  *o = '\0';
  return out;
}

static bool write_all(const char* path, const char* text) {
  FILE* f = fopen(path, "w");
  if (!f) return false;
  const bool ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok;
}

/* MuJoCo's URDF parser keeps only a mesh's file name: the meshes are linked into the folder
 * of the model it reads (their names are unique). */
static bool link_meshes(const char* dir) {
  static const char* const kMeshDirs[] = {"stl/solo12", "stl/with_foot"};
  static const char* const kMeshes[2][5] = {
      {"solo_12_base.stl", "solo12_hip_fe_fl.stl", "solo12_hip_fe_fr.stl", "solo12_hip_fe_hl.stl",
       "solo12_hip_fe_hr.stl"},
      {"solo_foot.stl", "solo_lower_leg_left_side.stl", "solo_lower_leg_right_side.stl",
       "solo_upper_leg_left_side.stl", "solo_upper_leg_right_side.stl"}};
  for (int d = 0; d < 2; ++d)
    for (int k = 0; k < 5; ++k) {
      char from[512], to[512];
      snprintf(from, sizeof from, MBT_SOURCE_DIR "/models/example-robot-data/robots/solo_description/meshes/%s/%s",
               kMeshDirs[d], kMeshes[d][k]);
      snprintf(to, sizeof to, "%s/%s", dir, kMeshes[d][k]);
      if (symlink(from, to) != 0) return false;
    }
  return true;
}

static void remove_dir(const char* dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "mbt_bench_contact: cannot remove %s\n", dir);
}

/* The URDF for MuJoCo: visuals discarded, fixed bodies kept, the root on a floating joint;
 * saved as MJCF with a ground plane added, and loaded again. */
static mjModel* mj_load_solo(void) {
  char dir[64] = "/tmp/mbt_bench_contact_XXXXXX";
  if (!mkdtemp(dir) || !link_meshes(dir)) {
    fprintf(stderr, "mbt_bench_contact: cannot prepare the meshes for MuJoCo in /tmp\n");
    return NULL;
  }
  char* urdf = read_all(kModel);
  char* a = urdf ? strdup(urdf) : NULL;
  /* After the <robot ...> tag: the compiler options and the floating root. */
  char* robot = a ? strstr(a, "<robot") : NULL;
  char* gt = robot ? strchr(robot, '>') : NULL;
  char* b = NULL;
  if (gt) {
    const char* ins = "<mujoco><compiler fusestatic=\"false\" discardvisual=\"true\" inertiafromgeom=\"false\" "
                      "balanceinertia=\"true\" angle=\"radian\"/></mujoco><link name=\"world\"/><joint "
                      "name=\"root_joint\" type=\"floating\"><parent link=\"world\"/><child link=\"base_link\"/></joint>";
    b = malloc(strlen(a) + strlen(ins) + 1);
    if (b) {
      const size_t head = (size_t)(gt + 1 - a);
      memcpy(b, a, head);
      strcpy(b + head, ins);
      strcat(b, a + head);
    }
  }
  char path[128], err[1000] = "";
  snprintf(path, sizeof path, "%s/solo12.urdf", dir);
  mjModel* m = b && write_all(path, b) ? mj_loadXML(path, NULL, err, sizeof err) : NULL;
  free(urdf);
  free(a);
  free(b);
  if (!m) fprintf(stderr, "mbt_bench_contact: MuJoCo cannot load the model: %s\n", err);
  char xml_path[128];
  snprintf(xml_path, sizeof xml_path, "%s/solo12.xml", dir);
  char* xml = NULL;
  if (m && mj_saveLastXML(xml_path, m, err, sizeof err)) xml = read_all(xml_path);
  mj_deleteModel(m);
  m = NULL;
  char* with_floor = xml ? replace_all(xml, "<worldbody>", "<worldbody>\n    <geom name=\"floor\" type=\"plane\" size=\"0 0 1\"/>") : NULL;
  if (with_floor && write_all(xml_path, with_floor)) m = mj_loadXML(xml_path, NULL, err, sizeof err);
  if (!m) fprintf(stderr, "mbt_bench_contact: MuJoCo cannot load the scene: %s\n", err);
  free(xml);
  free(with_floor);
  if (getenv("MBT_BENCH_DEBUG")) printf("MuJoCo files kept in %s\n", dir);
  else remove_dir(dir);
  return m;
}

static int mj_step_pd(void* user, int k) {
  (void)k;
  mj_side* s = user;
  mjData* d = s->d;
  for (int i = 0; i < 12; ++i)
    d->qfrc_applied[s->vadr[i]] = KP * (s->q_ref[i] - d->qpos[s->qadr[i]]) - KD * d->qvel[s->vadr[i]];
  mj_step(s->m, d);
  return MBT_OK;
}

/* MuJoCo at the same lifted default pose (qpos = [p; quat; joints]), settled for 1 s. */
static bool mj_side_create(mj_side* s, const mbt_side* ms) {
  memset(s, 0, sizeof *s);
  s->m = mj_load_solo();
  if (!s->m) return false;
  s->m->opt.timestep = H;
  if (getenv("MBT_BENCH_DEBUG")) printf("MuJoCo: nq %d nv %d njnt %d jnt_type[0] %d ngeom %d\n", s->m->nq, s->m->nv, s->m->njnt, s->m->jnt_type[0], s->m->ngeom);
  s->d = mj_makeData(s->m);
  const mbt_tree* tree = ms->urdf.tree;
  for (int i = 0, j = 0; j < mbt_tree_num_joints(tree); ++j) {
    if (mbt_joint_type_of(tree, j) != MBT_JOINT_REVOLUTE) continue;
    const int id = mj_name2id(s->m, mjOBJ_JOINT, mbt_joint_name(tree, j));
    if (id < 0 || i >= 12) return false;
    s->qadr[i] = s->m->jnt_qposadr[id];
    s->vadr[i] = s->m->jnt_dofadr[id];
    s->q_ref[i] = ms->q_ref[mbt_joint_position_start(tree, j)];
    s->d->qpos[s->qadr[i]] = s->q_ref[i];
    ++i;
  }
  s->d->qpos[2] = ms->q_ref[6];
  for (int i = 0; i < 1000; ++i) {
    mj_step_pd(s, 0);
    if (getenv("MBT_BENCH_DEBUG") && i % 100 == 0) {
      printf("t %.3f z %.4f ncon %d q", s->d->time, s->d->qpos[2], s->d->ncon);
      for (int k = 0; k < 12; ++k) printf(" %.3f", s->d->qpos[s->qadr[k]]);
      printf("\n");
    }
  }
  return true;
}
#endif

/* ---- timing: thread CPU time (the machine is shared: time the process was descheduled does
 * not count), alternating batches of BATCH steps, medians over the batches. ---------------- */
#define BATCH 100
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* Median of n values (sorted in place). */
static double median(double* x, int n) {
  qsort(x, (size_t)n, sizeof *x, cmp_double);
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

/* Seconds per step of a batch of fn. */
static double time_batch(mbt_bench_fn fn, void* user, int* status) {
  const double t0 = cpu_now();
  for (int i = 0; i < BATCH; ++i) *status |= fn(user, i);
  return (cpu_now() - t0) / BATCH;
}

/* Iterations per step and steps stopped at the limit since the timing started. */
static void print_solver_stats(const char* name, const mbt_side* s) {
  const mbt_simulator_stats st = mbt_simulator_get_stats(s->sim);
  const long steps = st.steps_taken - s->timed_from.steps_taken;
  printf("  %s: %.2f iterations per step, %ld of %ld steps stopped at the iteration limit, largest residual %.2g\n",
         name, (double)(st.contact_iterations - s->timed_from.contact_iterations) / (double)(steps ? steps : 1),
         st.contact_unconverged - s->timed_from.contact_unconverged, steps, st.contact_residual_max);
}

/* ---- the two-arm scene (scenes/two_arms_box.json) ------------------------------------------ */
typedef struct {
  mbt_urdf_result panda, box;
  mbt_tree* tree;
  mbt_context* ctx;
  mbt_contact_model* contact;
  mbt_simulator* sim;
  double t;
} scene_side;

static int scene_step(void* user, int k) {
  (void)k;
  scene_side* s = user;
  s->t += H;
  return mbt_simulator_advance_to(s->sim, s->t);
}

static mbt_transform pose_xyz_yaw(double x, double y, double z, double yaw) {
  mbt_transform X = mbt_transform_identity();
  X.R = mbt_rotation_from_rpy(mbt_vec3_make(0, 0, yaw));
  X.p = mbt_vec3_make(x, y, z);
  return X;
}

/* name = q for the scene file's initial joint positions. */
static bool set_joint(scene_side* s, const char* name, double q) {
  const int j = mbt_tree_joint_by_name(s->tree, name);
  return j >= 0 && mbt_joint_set_positions(s->ctx, j, &q, 1) == MBT_OK;
}

static bool scene_side_create(scene_side* s, mbt_contact_solver_method method) {
  memset(s, 0, sizeof *s);
  if (mbt_urdf_load_file(MBT_SOURCE_DIR "/models/panda.urdf", 0, &s->panda) != MBT_OK ||
      mbt_urdf_load_file(MBT_SOURCE_DIR "/scenes/box.urdf", MBT_URDF_FLOATING, &s->box) != MBT_OK)
    return false;
  s->tree = mbt_tree_create();
  const double half_pi = 1.5707963267948966;
  const mbt_transform X_left = pose_xyz_yaw(0, -0.6, 0, half_pi), X_right = pose_xyz_yaw(0, 0.6, 0, -half_pi);
  const mbt_transform X_box = pose_xyz_yaw(0, 0, 0.05, 0);
  if (mbt_tree_add_model_instance(s->tree, s->panda.tree, "left", &X_left) < 0 ||
      mbt_tree_add_model_instance(s->tree, s->panda.tree, "right", &X_right) < 0 ||
      mbt_tree_add_model_instance(s->tree, s->box.tree, "box", &X_box) < 0 || mbt_tree_finalize(s->tree) != MBT_OK)
    return false;
  s->ctx = mbt_context_create(s->tree);
  static const struct { const char* joint; double q; } kQ[] = {
      {"left::panda_joint2", 0.5},          {"left::panda_joint4", -1.0},         {"left::panda_joint6", 1.5},
      {"left::panda_finger_joint1", 0.02},  {"left::panda_finger_joint2", 0.02},  {"right::panda_joint4", -0.5},
      {"right::panda_joint6", 0.5},         {"right::panda_finger_joint1", 0.02}, {"right::panda_finger_joint2", 0.02}};
  for (size_t k = 0; k < sizeof kQ / sizeof kQ[0]; ++k)
    if (!set_joint(s, kQ[k].joint, kQ[k].q)) return false;
  mbt_contact_material mat = mbt_contact_material_default();
  mat.static_friction = mat.dynamic_friction = 0.6;
  s->contact = mbt_contact_model_create(s->tree);
  if (mbt_contact_model_add_collision_geometry(s->contact, &mat) < 0 ||
      mbt_contact_model_add_ground(s->contact, mbt_vec3_make(0, 0, 1), 0, &mat) < 0)
    return false;
  mbt_simulator_options o = mbt_simulator_default_options();
  o.integrator = MBT_INTEGRATOR_TIME_STEPPING;
  o.dt = H;
  s->sim = mbt_simulator_create(s->tree, s->ctx, &o);
  return s->sim && mbt_simulator_set_contact_model(s->sim, s->contact) == MBT_OK &&
         mbt_simulator_set_contact_solver_method(s->sim, method) == MBT_OK;
}

static void scene_side_destroy(scene_side* s) {
  mbt_simulator_destroy(s->sim);
  mbt_contact_model_destroy(s->contact);
  mbt_context_destroy(s->ctx);
  mbt_tree_destroy(s->tree);
  mbt_urdf_result_free(&s->panda);
  mbt_urdf_result_free(&s->box);
}

/* The box's x (its floating joint's q = [qw qx qy qz x y z]); NAN if it has no floating joint. */
static double box_x(const scene_side* s) {
  for (int j = 0; j < mbt_tree_num_joints(s->tree); ++j)
    if (mbt_joint_type_of(s->tree, j) == MBT_JOINT_QUATERNION_FLOATING)
      return mbt_joint_positions(mbt_simulator_context(s->sim), j)[4];
  return NAN;
}

/* The scene's first 3 s with SAP and with PGS in alternating batches. */
static int bench_scene(void) {
  scene_side a, b;
  if (!scene_side_create(&a, MBT_CONTACT_SOLVER_SAP) || !scene_side_create(&b, MBT_CONTACT_SOLVER_PGS)) {
    fprintf(stderr, "mbt_bench_contact: cannot build the two-arm scene\n");
    return 1;
  }
  enum { NB = 3000 / BATCH };
  double ta[NB], tb[NB], tr[NB];
  int rc = 0;
  for (int k = 0; k < NB; ++k) {
    ta[k] = time_batch(scene_step, &a, &rc);
    tb[k] = time_batch(scene_step, &b, &rc);
    tr[k] = ta[k] / tb[k];
  }
  const mbt_simulator_stats sa = mbt_simulator_get_stats(a.sim), sb = mbt_simulator_get_stats(b.sim);
  printf("\ntwo arms and a box (scenes/two_arms_box.json), 3000 steps of 1 ms, %d alternating batches of %d steps,"
         " thread CPU time, medians:\n", NB, BATCH);
  const scene_side* side[2] = {&a, &b};
  const mbt_simulator_stats* st[2] = {&sa, &sb};
  const double med[2] = {median(ta, NB), median(tb, NB)};
  for (int i = 0; i < 2; ++i)
    printf("  %s: %8.2f µs per step, %.2f iterations per step, %ld of %ld steps stopped at the iteration limit,"
           " largest residual %.2g, box at x = %.4f m\n", i ? "PGS" : "SAP", 1e6 * med[i],
           (double)st[i]->contact_iterations / (double)st[i]->steps_taken, st[i]->contact_unconverged,
           st[i]->steps_taken, st[i]->contact_residual_max,
           box_x(side[i]));
  printf("  ratio SAP / PGS: %.3f (median of the per-batch ratios)\n", median(tr, NB));
  scene_side_destroy(&a);
  scene_side_destroy(&b);
  return rc;
}

/* Part 1: SAP, PGS and MuJoCo (when built in) in alternating batches; 0 or 1 (a robot fell, a
 * step failed or mbt's steps allocated). */
static int bench_standing(mbt_side* ms, mbt_side* mp, const mbt_bench_timing* timing) {
  int rc = 0;
#ifdef MBT_BENCH_MUJOCO
  const mbt_context* mc = mbt_simulator_context(ms->sim);
  mj_side js;
  if (!mj_side_create(&js, ms)) return 1;
  printf("after 1 s: MuJoCo %s base height %.5f m, %d contact points\n", mj_versionString(), js.d->qpos[2],
         js.d->ncon);
  const int nb = (int)(timing->min_seconds / (BATCH * 3 * 100e-6)) + 10;
  double* ta = malloc(sizeof(double) * (size_t)nb);
  double* tp = malloc(sizeof(double) * (size_t)nb);
  double* tb = malloc(sizeof(double) * (size_t)nb);
  double* tr = malloc(sizeof(double) * (size_t)nb);
  double* trp = malloc(sizeof(double) * (size_t)nb);
  if (!ta || !tp || !tb || !tr || !trp) return 1;
  const long allocs_before = mbt_bench_alloc_count();
  long mbt_allocs = 0;
  for (int k = 0; k < nb; ++k) {
    const long a0 = mbt_bench_alloc_count();
    ta[k] = time_batch(mbt_step, ms, &rc);
    tp[k] = time_batch(mbt_step, mp, &rc);
    mbt_allocs += mbt_bench_alloc_count() - a0;
    tb[k] = time_batch(mj_step_pd, &js, &rc);
    tr[k] = ta[k] / tb[k];
    trp[k] = tp[k] / tb[k];
  }
  const double a_med = median(ta, nb), p_med = median(tp, nb), b_med = median(tb, nb);
  const double r_med = median(tr, nb), rp_med = median(trp, nb);
  printf("%d alternating batches of %d steps each, thread CPU time, medians:\n", nb, BATCH);
  printf("mbt time_stepping step, SAP: %8.2f µs  real-time factor %.1f\n", 1e6 * a_med, H / a_med);
  printf("mbt time_stepping step, PGS: %8.2f µs  real-time factor %.1f\n", 1e6 * p_med, H / p_med);
  printf("MuJoCo mj_step:              %8.2f µs  real-time factor %.1f\n", 1e6 * b_med, H / b_med);
  printf("ratio mbt SAP / MuJoCo:      %8.3f (median of the per-batch ratios; p10 %.3f, p90 %.3f)\n", r_med,
         tr[nb / 10], tr[nb - 1 - nb / 10]);
  printf("ratio mbt PGS / MuJoCo:      %8.3f (p10 %.3f, p90 %.3f)\n", rp_med, trp[nb / 10], trp[nb - 1 - nb / 10]);
  print_solver_stats("SAP", ms);
  print_solver_stats("PGS", mp);
  printf("heap allocations while stepping: mbt %ld, all sides %ld\n", mbt_allocs,
         mbt_bench_alloc_count() - allocs_before);
  printf("after the timing: mbt base height %.5f m (SAP), %.5f m (PGS), MuJoCo %.5f m\n", mbt_context_q(mc)[6],
         mbt_context_q(mbt_simulator_context(mp->sim))[6], js.d->qpos[2]);
  /* The instrument's own checks: all stand (base above 0.3 m), mbt's steps allocate nothing. */
  if (mbt_allocs > 0 || !(mbt_context_q(mc)[6] > 0.3) || !(mbt_context_q(mbt_simulator_context(mp->sim))[6] > 0.3) ||
      !(js.d->qpos[2] > 0.3)) {
    fprintf(stderr, "mbt_bench_contact: a robot fell or mbt's steps allocated\n");
    rc = 1;
  }
  free(ta);
  free(tp);
  free(tb);
  free(tr);
  free(trp);
  mj_deleteData(js.d);
  mj_deleteModel(js.m);
#else
  mbt_bench_stats a, p;
  rc = mbt_bench_time(timing, mbt_step, ms, 1, &a);
  rc |= mbt_bench_time(timing, mbt_step, mp, 1, &p);
  printf("mbt time_stepping step, SAP: %8.2f µs  real-time factor %.1f (MuJoCo not built in)\n", a.median / 1e3,
         1e6 * H / a.median * 1e3);
  printf("mbt time_stepping step, PGS: %8.2f µs  real-time factor %.1f\n", p.median / 1e3, 1e6 * H / p.median * 1e3);
  print_solver_stats("SAP", ms);
  print_solver_stats("PGS", mp);
#endif
  return rc;
}

int main(int argc, char** argv) {
  mbt_bench_timing timing;
  mbt_bench_timing_default(&timing);
  timing.min_seconds = 2;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      timing.min_seconds = atof(argv[++i]);
    } else {
      fprintf(stderr, "usage: mbt_bench_contact [--seconds S]\n");
      return 2;
    }
  }
  mbt_side ms, mp;
  if (!mbt_side_create(&ms, MBT_CONTACT_SOLVER_SAP) || !mbt_side_create(&mp, MBT_CONTACT_SOLVER_PGS)) return 1;
  const mbt_context* mc = mbt_simulator_context(ms.sim);
  printf("Solo12 standing on the ground, PD %g/%g, 1 ms steps; %s, %s\n", KP, KD, mbt_bench_cpu_model(),
         mbt_bench_build_type());
  printf("after 1 s: mbt base height %.5f m (SAP), %.5f m (PGS), %d contact points\n", mbt_context_q(mc)[6],
         mbt_context_q(mbt_simulator_context(mp.sim))[6], mbt_simulator_num_contacts(ms.sim));
  ms.timed_from = mbt_simulator_get_stats(ms.sim);
  mp.timed_from = mbt_simulator_get_stats(mp.sim);
  int rc = bench_standing(&ms, &mp, &timing);
  mbt_side_destroy(&ms);
  mbt_side_destroy(&mp);
  rc |= bench_scene();
  return rc == MBT_OK ? 0 : 1;
}
