/* bench_run.c: the benchmark as a command (mbt_bench and `mbt bench`): the table of
 * operations for a model, mbt beside MuJoCo after a cross-check, the stage breakdown, the
 * scaling sweep with its SVG plot, JSON output, and the --count mode used to count
 * floating-point operations under valgrind (bench/count_flops.py). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench.h"

#ifndef MBT_SOURCE_DIR
#define MBT_SOURCE_DIR "."
#endif

/* Speed targets: mbt/MuJoCo per call (0 = none); fk (poses) against mj_kinematics. Forward
 * dynamics: 0.40 on arms of up to 6 velocities (UR5), 0.30 on larger trees (the 30-chain,
 * Solo12), where the O(n) recursion has more nodes to amortize its fixed costs over. */
static const double kTarget[MBT_BENCH_NUM_OPS] = {0.20, 0, 0, 0.15, 0, 0.25, 0.30, 0};
static double target_for(int op, int nv) {
  return op == MBT_BENCH_OP_ABA && nv <= 6 ? 0.40 : kTarget[op];
}
/* Cross-check tolerances (relative, infinity norm). */
#define TOL_ID 1e-9
#define TOL_M 1e-9
#define TOL_FD 1e-8
#define TOL_POSE 1e-9

typedef struct {
  const char* models[16];
  int num_models;
  bool floating, json, mujoco, mujoco_explicit, no_mujoco, stages, quiet;
  const char* scaling_svg;
  int scaling_max;
  double seconds;
  int num_states;
  const char* count_op;
  long count_calls;
} options;

void mbt_bench_usage(FILE* out, const char* prog) {
  fprintf(out,
          "usage: %s [MODEL...] [--floating] [--json] [--mujoco | --no-mujoco] [--scaling FILE.svg]\n"
          "          [--scaling-max N] [--time SECONDS] [--states N] [--no-stages]\n"
          "\n"
          "Times mbt's forward kinematics (poses), position and velocity kinematics, inverse\n"
          "dynamics, mass matrix, forward dynamics and mass matrix + Cholesky solve: median and\n"
          "spread of ns per call\n"
          "over many calls on pre-generated random states, after a warm-up. Heap allocations\n"
          "during the timed calls are counted (they must be 0).\n"
          "\n"
          "  MODEL            a URDF file, or chain:N / tree:N (a generated chain or binary tree\n"
          "                   of N bodies on revolute joints). Default: the shipped UR5 and chain:30.\n"
          "  --floating       the root link on a free (quaternion) joint\n"
          "  --json           results as JSON on stdout instead of the table\n"
          "  --mujoco         also time MuJoCo on the same model and states, after checking that\n"
          "                   both compute the same numbers (the default when MuJoCo is built in)\n"
          "  --no-mujoco      mbt only\n"
          "  --scaling FILE   chains and binary trees of 1..4096 bodies: ns per body of inverse\n"
          "                   dynamics, forward dynamics and mass matrix, plotted as SVG\n"
          "  --scaling-max N  largest size of the sweep (default 4096)\n"
          "  --time SECONDS   measuring time per operation (default 0.25)\n"
          "  --states N       number of random states (default 1024)\n"
          "  --no-stages      skip the per-stage breakdown\n"
          "  --load [N]       URDF load time of generated chains up to N links (default 100000)\n"
          "  --count OP N     (for bench/count_flops.py) run N calls of OP without timing; OP is\n"
          "                   fk, pk, vk, id, id_forces, crba, aba, crba_chol, stage:force,\n"
          "                   stage:rnea,\n"
          "                   stage:crba, stage:chol, or mj:<op> for MuJoCo's\n"
          "\n"
          "What each operation includes on each side: docs/benchmarks.md.\n",
          prog);
}

/* ---- models ------------------------------------------------------------------------------ */
typedef struct {
  char label[512];
  char* urdf_text;   /* generated models */
  const char* path;  /* files */
  mbt_urdf_result urdf;
  mbt_tree* tree;
} model;

static bool parse_generated(const char* spec, mbt_bench_topology* topo, int* n) {
  const char* rest = NULL;
  if (strncmp(spec, "chain:", 6) == 0) {
    *topo = MBT_BENCH_CHAIN;
    rest = spec + 6;
  } else if (strncmp(spec, "tree:", 5) == 0) {
    *topo = MBT_BENCH_BINARY_TREE;
    rest = spec + 5;
  } else {
    return false;
  }
  char* end = NULL;
  const long v = strtol(rest, &end, 10);
  if (!end || *end || v < 1 || v > 100000) return false;
  *n = (int)v;
  return true;
}

static bool model_load(const char* prog, const char* spec, bool floating, model* md) {
  memset(md, 0, sizeof *md);
  const int flags = floating ? MBT_URDF_FLOATING : 0;
  mbt_bench_topology topo;
  int n;
  if (parse_generated(spec, &topo, &n)) {
    mbt_bench_link* links = mbt_bench_generate_links(topo, n);
    md->urdf_text = links ? mbt_bench_links_to_urdf(links, n, spec) : NULL;
    free(links);
    if (!md->urdf_text) {
      fprintf(stderr, "%s: out of memory\n", prog);
      return false;
    }
    mbt_urdf_load_string(md->urdf_text, strlen(md->urdf_text), spec, flags, &md->urdf);
    snprintf(md->label, sizeof md->label, "%s (generated %s of %d bodies on revolute joints)", spec,
             topo == MBT_BENCH_CHAIN ? "chain" : "binary tree", n);
  } else {
    md->path = spec;
    mbt_urdf_load_file(spec, flags, &md->urdf);
    const char* slash = strrchr(spec, '/');
    snprintf(md->label, sizeof md->label, "%s", slash ? slash + 1 : spec);
  }
  if (md->urdf.status != MBT_OK || !md->urdf.tree) {
    fprintf(stderr, "%s: %s\n", prog, md->urdf.error[0] ? md->urdf.error : "cannot load the model");
    mbt_urdf_result_free(&md->urdf);
    free(md->urdf_text);
    md->urdf_text = NULL;
    return false;
  }
  md->tree = md->urdf.tree;
  return true;
}

static void model_free(model* md) {
  mbt_urdf_result_free(&md->urdf);   /* destroys the tree */
  free(md->urdf_text);
  memset(md, 0, sizeof *md);
}

/* ---- JSON helpers --------------------------------------------------------------------------- */
static cJSON* stats_json(const mbt_bench_stats* s) {
  cJSON* o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "median_ns", s->median);
  cJSON_AddNumberToObject(o, "p10_ns", s->p10);
  cJSON_AddNumberToObject(o, "p90_ns", s->p90);
  cJSON_AddNumberToObject(o, "q1_ns", s->q1);
  cJSON_AddNumberToObject(o, "q3_ns", s->q3);
  cJSON_AddNumberToObject(o, "min_ns", s->min);
  cJSON_AddNumberToObject(o, "samples", s->samples);
  cJSON_AddNumberToObject(o, "calls_per_sample", (double)s->calls_per_sample);
  cJSON_AddNumberToObject(o, "calls", (double)s->calls);
  if (s->allocs >= 0)
    cJSON_AddNumberToObject(o, "heap_allocations", (double)s->allocs);
  else
    cJSON_AddNullToObject(o, "heap_allocations");
  return o;
}

static cJSON* environment_json(void) {
  cJSON* o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "cpu", mbt_bench_cpu_model());
  cJSON_AddStringToObject(o, "build_type", mbt_bench_build_type());
  cJSON_AddStringToObject(o, "c_flags", mbt_bench_c_flags());
  cJSON_AddStringToObject(o, "compiler", mbt_bench_compiler());
  if (mbt_bench_mujoco_available())
    cJSON_AddStringToObject(o, "mujoco", mbt_bench_mujoco_version());
  else
    cJSON_AddNullToObject(o, "mujoco");
  cJSON_AddBoolToObject(o, "allocation_counting", mbt_bench_alloc_count() >= 0);
  return o;
}

static void print_environment(FILE* out) {
  fprintf(out, "machine:  %s\n", mbt_bench_cpu_model());
  fprintf(out, "build:    %s, C flags \"%s\", %s\n", mbt_bench_build_type(), mbt_bench_c_flags(), mbt_bench_compiler());
  fprintf(out, "MuJoCo:   %s\n",
          mbt_bench_mujoco_available() ? mbt_bench_mujoco_version() : "not built in (scripts/install-deps.sh --bench)");
  if (mbt_bench_alloc_count() < 0) fprintf(out, "heap allocations: not counted in this build (sanitizer)\n");
}

/* ---- cross-check -------------------------------------------------------------------------- */
typedef struct {
  double id, M, fd, pose;
  int states, bodies_compared;
  bool ok;
} check_result;

static double max_abs(const double* a, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i]));
  return m;
}
static double max_abs_diff(const double* a, const double* b, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) {
    const double d = fabs(a[i] - b[i]);
    m = (d > m || isnan(d)) ? d : m;
  }
  return m;
}
static double rel(double diff, double scale) { return diff / (scale > 1e-300 ? scale : 1e-300); }

static int cross_check(mbt_bench_mbt* bm, mbt_bench_mj* bj, const mbt_tree* tree, int nstates, check_result* r) {
  const int nv = mbt_tree_num_velocities(tree), nb = mbt_tree_num_bodies(tree);
  const size_t nv2 = (size_t)nv * (size_t)nv;
  double *t1 = malloc(sizeof(double) * (size_t)(nv + 1)), *t2 = malloc(sizeof(double) * (size_t)(nv + 1));
  double* t3 = malloc(sizeof(double) * (size_t)(nv + 1));
  double *M1 = malloc(sizeof(double) * (nv2 + 1)), *M2 = malloc(sizeof(double) * (nv2 + 1));
  double *a1 = malloc(sizeof(double) * (size_t)(nv + 1)), *a2 = malloc(sizeof(double) * (size_t)(nv + 1));
  mbt_transform *X1 = malloc(sizeof(mbt_transform) * (size_t)nb), *X2 = malloc(sizeof(mbt_transform) * (size_t)nb);
  bool* found = calloc((size_t)nb, sizeof(bool));
  memset(r, 0, sizeof *r);
  int st = MBT_ERR_NO_MEMORY;
  if (!t1 || !t2 || !t3 || !M1 || !M2 || !a1 || !a2 || !X1 || !X2 || !found) goto done;
  for (int k = 0; k < nstates; ++k) {
    st = mbt_bench_mbt_eval(bm, k, t1, t3, M1, a1, X1);
    if (st != MBT_OK) goto done;
    mbt_bench_mj_eval(bj, k, t2, M2, a2, X2, found);
    /* Both inverse-dynamics operations against MuJoCo's. */
    r->id = fmax(r->id, rel(max_abs_diff(t1, t2, nv), max_abs(t2, nv)));
    r->id = fmax(r->id, rel(max_abs_diff(t3, t2, nv), max_abs(t2, nv)));
    r->M = fmax(r->M, rel(max_abs_diff(M1, M2, (int)nv2), max_abs(M2, (int)nv2)));
    r->fd = fmax(r->fd, rel(max_abs_diff(a1, a2, nv), max_abs(a2, nv)));
    int compared = 0;
    for (int node = 0; node < nb; ++node) {
      if (!found[node]) continue;
      compared++;
      r->pose = fmax(r->pose, max_abs_diff(X1[node].p.v, X2[node].p.v, 3));
      r->pose = fmax(r->pose, max_abs_diff(&X1[node].R.m[0][0], &X2[node].R.m[0][0], 9));
    }
    r->bodies_compared = compared;
  }
  r->states = nstates;
  r->ok = r->id <= TOL_ID && r->M <= TOL_M && r->fd <= TOL_FD && r->pose <= TOL_POSE;
  st = MBT_OK;
done:
  free(t1);
  free(t2);
  free(t3);
  free(M1);
  free(M2);
  free(a1);
  free(a2);
  free(X1);
  free(X2);
  free(found);
  return st;
}

/* ---- one model ------------------------------------------------------------------------------ */
static void fmt_stats(char* buf, size_t n, const mbt_bench_stats* s) {
  snprintf(buf, n, "%9.1f [%8.1f ..%9.1f]", s->median, s->p10, s->p90);
}
static void fmt_allocs(char* buf, size_t n, const mbt_bench_stats* s) {
  if (s->allocs < 0)
    snprintf(buf, n, "%6s", "n/a");
  else
    snprintf(buf, n, "%6ld", s->allocs);
}

/* The derivative rows beside the operations they differentiate (bench_derivatives.c). Returns
 * 1 on a failure (an error, a heap allocation), else 0. */
static int run_derivative_rows(const char* prog, const options* o, const char* spec, const mbt_tree* tree,
                               const mbt_bench_states* states, const mbt_bench_timing* t, mbt_bench_mbt* bm,
                               cJSON* run, FILE* out) {
  mbt_bench_derivative_row rows[MBT_BENCH_NUM_DERIVATIVE_ROWS];
  if (mbt_bench_derivatives(tree, states, t, bm, rows) != MBT_OK) {
    fprintf(stderr, "%s: %s: derivatives failed: %s\n", prog, spec, mbt_bench_mbt_error(bm));
    return 1;
  }
  cJSON* jd = cJSON_AddArrayToObject(run, "derivatives");
  if (!o->json)
    fprintf(out, "%-30s %-32s %6s %-35s %10s %7s\n", "derivatives", "mbt ns/call: median [p10 .. p90]", "allocs",
            "base op ns/call: median [p10 .. p90]", "ratio", "target");
  int failed = 0;
  for (int r = 0; r < MBT_BENCH_NUM_DERIVATIVE_ROWS; ++r) {
    const mbt_bench_derivative_row* row = &rows[r];
    const double target = mbt_bench_derivative_row_target(r);
    cJSON* jo = cJSON_CreateObject();
    cJSON_AddItemToArray(jd, jo);
    cJSON_AddStringToObject(jo, "name", mbt_bench_derivative_row_name(r));
    cJSON_AddItemToObject(jo, "mbt", stats_json(&row->deriv));
    cJSON_AddItemToObject(jo, "base", stats_json(&row->base));
    cJSON_AddNumberToObject(jo, "ratio", row->ratio.median);
    cJSON_AddNumberToObject(jo, "target", target);
    if (row->deriv.allocs > 0) failed = 1;
    char b1[64], b2[64], b3[32], tg[16];
    fmt_stats(b1, sizeof b1, &row->deriv);
    fmt_stats(b2, sizeof b2, &row->base);
    fmt_allocs(b3, sizeof b3, &row->deriv);
    snprintf(tg, sizeof tg, "%s%.2f", row->ratio.median <= target ? "ok " : "> ", target);
    if (!o->json)
      fprintf(out, "%-30s %-32s %6s %-35s %10.2f %7s\n", mbt_bench_derivative_row_name(r), b1, b3, b2,
              row->ratio.median, tg);
  }
  return failed;
}

/* Returns 0 (all good), 1 (a failure: cross-check, allocation, a Calc error). */
static int run_model(const char* prog, const options* o, const char* spec, cJSON* runs, FILE* out) {
  model md;
  if (!model_load(prog, spec, o->floating, &md)) return 1;
  int failed = 0;
  const mbt_tree* tree = md.tree;
  const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  const int nbodies = mbt_tree_num_bodies(tree);
  mbt_bench_states states;
  char err[1024] = "";
  mbt_bench_mbt* bm = NULL;
  mbt_bench_mj* bj = NULL;
  if (mbt_bench_states_make(tree, o->num_states, 20240607ULL, &states) != MBT_OK ||
      !(bm = mbt_bench_mbt_create(tree, &states, err, sizeof err))) {
    fprintf(stderr, "%s: %s: %s\n", prog, spec, err[0] ? err : "out of memory");
    mbt_bench_states_free(&states);
    model_free(&md);
    return 1;
  }
  cJSON* run = cJSON_CreateObject();
  cJSON_AddStringToObject(run, "model", spec);
  cJSON_AddStringToObject(run, "label", md.label);
  cJSON_AddNumberToObject(run, "bodies", nbodies);
  cJSON_AddNumberToObject(run, "nq", nq);
  cJSON_AddNumberToObject(run, "nv", nv);
  cJSON_AddBoolToObject(run, "floating", o->floating);
  cJSON_AddNumberToObject(run, "states", o->num_states);
  cJSON_AddItemToArray(runs, run);
  if (!o->json)
    fprintf(out, "\n== %s: %d bodies (world included), nq = %d, nv = %d, %s base, %d random states\n", md.label,
            nbodies, nq, nv, o->floating ? "floating" : "fixed", o->num_states);

  /* MuJoCo and the cross-check. */
  bool use_mj = false;
  check_result chk = {0};
  if (o->mujoco) {
    bj = mbt_bench_mj_create(md.path, md.urdf_text, o->floating, tree, &states, err, sizeof err);
    if (!bj) {
      if (!o->json) fprintf(out, "MuJoCo comparison skipped: %s\n", err);
      cJSON_AddStringToObject(run, "mujoco_error", err);
      if (o->mujoco_explicit) failed = 1;
    } else if (cross_check(bm, bj, tree, o->num_states < 32 ? o->num_states : 32, &chk) != MBT_OK) {
      fprintf(stderr, "%s: %s: mbt failed during the cross-check: %s\n", prog, spec, mbt_bench_mbt_error(bm));
      failed = 1;
    } else {
      use_mj = true;
      cJSON* c = cJSON_AddObjectToObject(run, "check");
      cJSON_AddNumberToObject(c, "states", chk.states);
      cJSON_AddNumberToObject(c, "inverse_dynamics_rel_err", chk.id);
      cJSON_AddNumberToObject(c, "mass_matrix_rel_err", chk.M);
      cJSON_AddNumberToObject(c, "forward_dynamics_rel_err", chk.fd);
      cJSON_AddNumberToObject(c, "body_pose_abs_err", chk.pose);
      cJSON_AddNumberToObject(c, "bodies_compared", chk.bodies_compared);
      cJSON_AddBoolToObject(c, "ok", chk.ok);
      if (!o->json)
        fprintf(out,
                "check vs MuJoCo over %d states: inverse dynamics %.1e, mass matrix %.1e, forward dynamics %.1e "
                "(relative), poses of %d bodies %.1e: %s\n",
                chk.states, chk.id, chk.M, chk.fd, chk.bodies_compared, chk.pose,
                chk.ok ? "same numbers" : "MISMATCH (ratios below are not comparable)");
      if (!chk.ok) {
        const double ie = mbt_bench_mj_inertia_error(bj);
        cJSON_AddNumberToObject(c, "mujoco_inertia_rel_err", ie);
        if (!o->json)
          fprintf(out, "  (MuJoCo's principal-axis inertias differ from the model's by up to %.1e relative)\n", ie);
        failed = 1;
      }
    }
  }

  mbt_bench_timing t;
  mbt_bench_timing_default(&t);
  t.min_seconds = o->seconds;
  if (!o->json) {
    fprintf(out, "%-30s %-32s %6s", "operation", "mbt ns/call: median [p10 .. p90]", "allocs");
    if (use_mj) fprintf(out, " %-35s %10s %7s", "MuJoCo ns/call: median [p10 .. p90]", "mbt/MuJoCo", "target");
    fprintf(out, "\n");
  }
  cJSON* ops = cJSON_AddArrayToObject(run, "operations");
  for (int op = 0; op < MBT_BENCH_NUM_OPS; ++op) {
    mbt_bench_stats sm, sj, sr;
    mbt_bench_mbt_prepare_op(bm, (mbt_bench_op)op);
    int st;
    if (use_mj) {
      mbt_bench_mj_prepare_extra(bj, MBT_BENCH_MJ_KIN_COMPOS);
      st = mbt_bench_time_pair(&t, mbt_bench_mbt_op((mbt_bench_op)op), bm, mbt_bench_mj_op((mbt_bench_op)op), bj,
                               states.num_states, &sm, &sj, &sr);
    } else {
      st = mbt_bench_time(&t, mbt_bench_mbt_op((mbt_bench_op)op), bm, states.num_states, &sm);
    }
    cJSON* jo = cJSON_CreateObject();
    cJSON_AddItemToArray(ops, jo);
    cJSON_AddStringToObject(jo, "name", mbt_bench_op_name((mbt_bench_op)op));
    cJSON_AddStringToObject(jo, "title", mbt_bench_op_title((mbt_bench_op)op));
    if (st != MBT_OK) {
      fprintf(stderr, "%s: %s: %s failed: %s\n", prog, spec, mbt_bench_op_title((mbt_bench_op)op),
              mbt_bench_mbt_error(bm));
      cJSON_AddStringToObject(jo, "error", mbt_bench_mbt_error(bm));
      failed = 1;
      continue;
    }
    if (sm.allocs > 0) failed = 1;
    cJSON_AddItemToObject(jo, "mbt", stats_json(&sm));
    char b1[64], b2[64], b3[32];
    fmt_stats(b1, sizeof b1, &sm);
    fmt_allocs(b3, sizeof b3, &sm);
    if (!o->json) fprintf(out, "%-30s %-32s %6s", mbt_bench_op_title((mbt_bench_op)op), b1, b3);
    if (use_mj) {
      cJSON_AddItemToObject(jo, "mujoco", stats_json(&sj));
      /* The ratio is the median over alternating pairs of batches (same machine load). */
      const double ratio = sr.median;
      cJSON_AddNumberToObject(jo, "ratio", ratio);
      cJSON_AddNumberToObject(jo, "ratio_p10", sr.p10);
      cJSON_AddNumberToObject(jo, "ratio_p90", sr.p90);
      const double target = target_for(op, mbt_tree_num_velocities(tree));
      if (target > 0)
        cJSON_AddNumberToObject(jo, "target", target);
      else
        cJSON_AddNullToObject(jo, "target");
      fmt_stats(b2, sizeof b2, &sj);
      char tg[16] = "";
      if (target > 0) snprintf(tg, sizeof tg, "%s%.2f", ratio <= target ? "ok " : "> ", target);
      if (!o->json) fprintf(out, " %-35s %10.2f %7s", b2, ratio, tg);
    }
    if (!o->json) fprintf(out, "\n");
  }

  failed |= run_derivative_rows(prog, o, spec, tree, &states, &t, bm, run, out);

  if (o->stages) {
    cJSON* js = cJSON_AddArrayToObject(run, "stages");
    if (!o->json) fprintf(out, "stages (caches valid, the same state every call):\n");
    for (int s = 0; s < MBT_BENCH_NUM_STAGES; ++s) {
      mbt_bench_stats ss;
      int st = mbt_bench_mbt_prepare_stage(bm, (mbt_bench_stage)s);
      if (st == MBT_OK) st = mbt_bench_time(&t, mbt_bench_mbt_stage((mbt_bench_stage)s), bm, 1, &ss);
      if (st != MBT_OK) {
        fprintf(stderr, "%s: %s: stage %s failed: %s\n", prog, spec, mbt_bench_stage_name((mbt_bench_stage)s),
                mbt_bench_mbt_error(bm));
        failed = 1;
        continue;
      }
      cJSON* jo = stats_json(&ss);
      cJSON_AddStringToObject(jo, "name", mbt_bench_stage_name((mbt_bench_stage)s));
      cJSON_AddStringToObject(jo, "side", "mbt");
      cJSON_AddItemToArray(js, jo);
      char b1[64], b3[32];
      fmt_stats(b1, sizeof b1, &ss);
      fmt_allocs(b3, sizeof b3, &ss);
      if (ss.allocs > 0) failed = 1;
      if (!o->json) fprintf(out, "  mbt    %-36s %-32s %6s\n", mbt_bench_stage_name((mbt_bench_stage)s), b1, b3);
    }
    if (use_mj) {
      for (int e = 0; e < MBT_BENCH_MJ_NUM_EXTRA; ++e) {
        mbt_bench_stats ss;
        mbt_bench_mj_prepare_extra(bj, (mbt_bench_mj_extra)e);
        const bool per_state = e == MBT_BENCH_MJ_KIN_COMPOS || e == MBT_BENCH_MJ_FORWARD;
        mbt_bench_time(&t, mbt_bench_mj_extra_fn((mbt_bench_mj_extra)e), bj, per_state ? states.num_states : 1, &ss);
        cJSON* jo = stats_json(&ss);
        cJSON_AddStringToObject(jo, "name", mbt_bench_mj_extra_name((mbt_bench_mj_extra)e));
        cJSON_AddStringToObject(jo, "side", "mujoco");
        cJSON_AddItemToArray(js, jo);
        char b1[64];
        fmt_stats(b1, sizeof b1, &ss);
        if (!o->json)
          fprintf(out, "  MuJoCo %-36s %-32s %s\n", mbt_bench_mj_extra_name((mbt_bench_mj_extra)e), b1,
                  per_state ? "(new state per call)" : "");
      }
    }
  }
  mbt_bench_mj_destroy(bj);
  mbt_bench_mbt_destroy(bm);
  mbt_bench_states_free(&states);
  model_free(&md);
  return failed;
}

/* ---- scaling -------------------------------------------------------------------------------- */
enum { NSCALE_OPS = 3 };
static const mbt_bench_op kScaleOps[NSCALE_OPS] = {MBT_BENCH_OP_ID, MBT_BENCH_OP_ABA, MBT_BENCH_OP_CRBA};
static const char* const kScaleNames[NSCALE_OPS] = {"RNEA", "ABA", "CRBA"};

/* Times the scaling ops on one generated model; best[k] keeps the lowest median so far
 * (allocations summed over every repetition). */
static int scaling_point(const char* prog, const mbt_bench_timing* t, int topo, int n, int rep,
                         mbt_bench_stats* best) {
  mbt_bench_link* links = mbt_bench_generate_links((mbt_bench_topology)topo, n);
  mbt_tree* tree = links ? mbt_bench_links_to_tree(links, n) : NULL;
  free(links);
  mbt_bench_states states;
  char err[512] = "";
  mbt_bench_mbt* bm = NULL;
  const int S = n >= 4096 ? 8 : (65536 / n > 256 ? 256 : 65536 / n);
  if (!tree || mbt_bench_states_make(tree, S, 99ULL + (unsigned long long)n, &states) != MBT_OK ||
      !(bm = mbt_bench_mbt_create(tree, &states, err, sizeof err))) {
    fprintf(stderr, "%s: scaling model of %d bodies: %s\n", prog, n, err[0] ? err : "cannot build it");
    if (tree) mbt_bench_states_free(&states);
    mbt_tree_destroy(tree);
    return MBT_ERR_NO_MEMORY;
  }
  int st = MBT_OK;
  for (int k = 0; k < NSCALE_OPS && st == MBT_OK; ++k) {
    mbt_bench_stats r;
    mbt_bench_mbt_prepare_op(bm, kScaleOps[k]);
    st = mbt_bench_time(t, mbt_bench_mbt_op(kScaleOps[k]), bm, S, &r);
    if (st != MBT_OK) {
      fprintf(stderr, "%s: scaling model of %d bodies: %s failed: %s\n", prog, n, kScaleNames[k],
              mbt_bench_mbt_error(bm));
      break;
    }
    const long allocs = rep == 0 ? r.allocs : ((r.allocs < 0 || best[k].allocs < 0) ? -1 : best[k].allocs + r.allocs);
    if (rep == 0 || r.median < best[k].median) best[k] = r;
    best[k].allocs = allocs;
  }
  mbt_bench_mbt_destroy(bm);
  mbt_bench_states_free(&states);
  mbt_tree_destroy(tree);
  return st;
}

/* Three whole sweeps, each model rebuilt every time; every point is the lowest of its three
 * medians, so a burst of load on a shared machine (or an unlucky placement of one
 * allocation) does not lift a single point of the curve. */
static int run_scaling(const char* prog, const options* o, cJSON* root, FILE* out) {
  enum { REPS = 3 };
  int sizes[32], nsizes = 0;
  for (int n = 1; n <= o->scaling_max && nsizes < 32; n *= 2) sizes[nsizes++] = n;
  static mbt_bench_stats best[32][2][NSCALE_OPS];
  double x[2][NSCALE_OPS][32], y[2][NSCALE_OPS][32];
  mbt_bench_timing t;
  mbt_bench_timing_default(&t);
  t.min_seconds = fmin(o->seconds, 0.1) / REPS;
  t.warmup_seconds = 0.01;
  t.min_samples = 10;
  int failed = 0;
  for (int rep = 0; rep < REPS && !failed; ++rep)
    for (int i = 0; i < nsizes && !failed; ++i)
      for (int topo = 0; topo < 2 && !failed; ++topo)
        if (scaling_point(prog, &t, topo, sizes[i], rep, best[i][topo]) != MBT_OK) failed = 1;
  if (failed) return 1;
  cJSON* js = cJSON_AddObjectToObject(root, "scaling");
  cJSON* pts = cJSON_AddArrayToObject(js, "points");
  if (!o->json)
    fprintf(out,
            "\n== scaling: ns per body (lowest of %d medians per call, / bodies), builder-API models, revolute "
            "joints\n%6s %11s %11s %11s %11s %11s %11s %6s\n",
            REPS, "bodies", "RNEA chain", "RNEA tree", "ABA chain", "ABA tree", "CRBA chain", "CRBA tree", "allocs");
  for (int i = 0; i < nsizes; ++i) {
    const int n = sizes[i];
    long allocs = 0;
    for (int topo = 0; topo < 2; ++topo)
      for (int k = 0; k < NSCALE_OPS; ++k) {
        const mbt_bench_stats* s = &best[i][topo][k];
        x[topo][k][i] = n;
        y[topo][k][i] = s->median / n;
        if (s->allocs > 0) failed = 1;
        allocs = (s->allocs < 0 || allocs < 0) ? -1 : allocs + s->allocs;
        cJSON* p = cJSON_CreateObject();
        cJSON_AddNumberToObject(p, "bodies", n);
        cJSON_AddStringToObject(p, "topology", topo == 0 ? "chain" : "binary_tree");
        cJSON_AddStringToObject(p, "operation", kScaleNames[k]);
        cJSON_AddNumberToObject(p, "ns_per_body", y[topo][k][i]);
        cJSON_AddItemToObject(p, "per_call", stats_json(s));
        cJSON_AddItemToArray(pts, p);
      }
    if (!o->json) {
      char a[32];
      if (allocs < 0)
        snprintf(a, sizeof a, "n/a");
      else
        snprintf(a, sizeof a, "%ld", allocs);
      fprintf(out, "%6d %11.2f %11.2f %11.2f %11.2f %11.2f %11.2f %6s\n", n, y[0][0][i], y[1][0][i], y[0][1][i],
              y[1][1][i], y[0][2][i], y[1][2][i], a);
    }
  }
  /* Flatness from 8 bodies up: max/min of ns per body (target: within 20%). */
  cJSON* flat = cJSON_AddObjectToObject(js, "flatness_8_up");
  for (int k = 0; k < 2; ++k)
    for (int topo = 0; topo < 2; ++topo) {
      double lo = INFINITY, hi = 0;
      for (int i = 0; i < nsizes; ++i)
        if (sizes[i] >= 8) {
          lo = fmin(lo, y[topo][k][i]);
          hi = fmax(hi, y[topo][k][i]);
        }
      if (!(hi > 0)) continue;
      char key[64];
      snprintf(key, sizeof key, "%s_%s", kScaleNames[k], topo == 0 ? "chain" : "binary_tree");
      cJSON_AddNumberToObject(flat, key, hi / lo);
      if (!o->json)
        fprintf(out, "%s %s: ns/body max/min over 8..%d bodies = %.2f (%s)\n", kScaleNames[k],
                topo == 0 ? "chain" : "binary tree", sizes[nsizes - 1], hi / lo,
                hi / lo <= 1.2 ? "flat within 20%" : "NOT flat within 20%");
    }
  if (o->scaling_svg) {
    const char* names[2 * NSCALE_OPS];
    char namebuf[2 * NSCALE_OPS][64];
    int npts[2 * NSCALE_OPS];
    const double* xs[2 * NSCALE_OPS];
    const double* ys[2 * NSCALE_OPS];
    int ns = 0;
    for (int k = 0; k < NSCALE_OPS; ++k)
      for (int topo = 0; topo < 2; ++topo) {
        snprintf(namebuf[ns], sizeof namebuf[ns], "%s %s", kScaleNames[k], topo == 0 ? "chain" : "binary tree");
        names[ns] = namebuf[ns];
        npts[ns] = nsizes;
        xs[ns] = x[topo][k];
        ys[ns] = y[topo][k];
        ns++;
      }
    char title[512];
    snprintf(title, sizeof title, "mbt: ns per body per call (%s, %s)", mbt_bench_build_type(), mbt_bench_c_flags());
    if (!mbt_bench_write_svg(o->scaling_svg, title, ns, names, npts, xs, ys)) {
      fprintf(stderr, "%s: cannot write '%s'\n", prog, o->scaling_svg);
      failed = 1;
    } else {
      cJSON_AddStringToObject(js, "svg", o->scaling_svg);
      if (!o->json) fprintf(out, "plot: %s\n", o->scaling_svg);
    }
  }
  return failed;
}

/* ---- --count: N untimed calls, for counting instructions under valgrind ------------------- */
static int run_count(const char* prog, const options* o) {
  model md;
  const char* spec = o->num_models ? o->models[0] : MBT_SOURCE_DIR "/models/ur5.urdf";
  if (!model_load(prog, spec, o->floating, &md)) return 1;
  mbt_bench_states states;
  char err[1024] = "";
  if (mbt_bench_states_make(md.tree, 64, 7ULL, &states) != MBT_OK) return 1;
  mbt_bench_mbt* bm = mbt_bench_mbt_create(md.tree, &states, err, sizeof err);
  if (!bm) {
    fprintf(stderr, "%s: %s\n", prog, err);
    return 1;
  }
  mbt_bench_fn fn = NULL;
  void* user = bm;
  int nstates = states.num_states;
  mbt_bench_mj* bj = NULL;
  const char* op = o->count_op;
  if (strncmp(op, "mj:", 3) == 0) {
    bj = mbt_bench_mj_create(md.path, md.urdf_text, o->floating, md.tree, &states, err, sizeof err);
    if (!bj) {
      fprintf(stderr, "%s: %s\n", prog, err);
      return 1;
    }
    user = bj;
    for (int k = 0; k < MBT_BENCH_NUM_OPS; ++k)
      if (strcmp(op + 3, mbt_bench_op_name((mbt_bench_op)k)) == 0) fn = mbt_bench_mj_op((mbt_bench_op)k);
    static const char* const stage_names[] = {"stage:kinematics", "stage:compos", "stage:comvel",
                                              "stage:rne",        "stage:crb",    "stage:factor_solve"};
    for (int e = 0; e < 6; ++e)
      if (strcmp(op + 3, stage_names[e]) == 0) {
        fn = mbt_bench_mj_extra_fn((mbt_bench_mj_extra)(MBT_BENCH_MJ_STAGE_KINEMATICS + e));
        nstates = 1;
      }
    mbt_bench_mj_prepare_extra(bj, MBT_BENCH_MJ_KIN_COMPOS);
  } else {
    for (int k = 0; k < MBT_BENCH_NUM_OPS; ++k)
      if (strcmp(op, mbt_bench_op_name((mbt_bench_op)k)) == 0) {
        fn = mbt_bench_mbt_op((mbt_bench_op)k);
        mbt_bench_mbt_prepare_op(bm, (mbt_bench_op)k);
      }
    static const char* const stage_names[] = {"stage:force", "stage:rnea", "stage:crba", "stage:chol"};
    for (int s = 0; s < MBT_BENCH_NUM_STAGES; ++s)
      if (strcmp(op, stage_names[s]) == 0) {
        fn = mbt_bench_mbt_stage((mbt_bench_stage)s);
        mbt_bench_mbt_prepare_stage(bm, (mbt_bench_stage)s);
        nstates = 1;
      }
  }
  if (!fn) {
    fprintf(stderr, "%s: unknown --count operation '%s'\n", prog, op);
    return 2;
  }
  int st = MBT_OK, k = 0;
  for (long c = 0; c < o->count_calls; ++c) {
    st |= fn(user, k);
    if (++k == nstates) k = 0;
  }
  mbt_bench_mj_destroy(bj);
  mbt_bench_mbt_destroy(bm);
  mbt_bench_states_free(&states);
  model_free(&md);
  return st == MBT_OK ? 0 : 1;
}

/* ---- main ------------------------------------------------------------------------------------ */
int mbt_bench_main(int argc, char** argv, const char* prog) {
  options o;
  memset(&o, 0, sizeof o);
  o.stages = true;
  o.mujoco = mbt_bench_mujoco_available();
  o.scaling_max = 4096;
  o.seconds = 0.25;
  o.num_states = 1024;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const bool has_next = i + 1 < argc;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      mbt_bench_usage(stdout, prog);
      return 0;
    } else if (strcmp(a, "--floating") == 0) {
      o.floating = true;
    } else if (strcmp(a, "--json") == 0) {
      o.json = true;
    } else if (strcmp(a, "--mujoco") == 0) {
      o.mujoco = o.mujoco_explicit = true;
    } else if (strcmp(a, "--no-mujoco") == 0) {
      o.no_mujoco = true;
    } else if (strcmp(a, "--no-stages") == 0) {
      o.stages = false;
    } else if (strcmp(a, "--scaling") == 0 && has_next) {
      o.scaling_svg = argv[++i];
    } else if (strcmp(a, "--scaling-max") == 0 && has_next) {
      o.scaling_max = atoi(argv[++i]);
      if (o.scaling_max < 1 || o.scaling_max > 65536) {
        fprintf(stderr, "%s: --scaling-max must be in 1..65536\n", prog);
        return 2;
      }
    } else if (strcmp(a, "--time") == 0 && has_next) {
      o.seconds = atof(argv[++i]);
      if (!(o.seconds > 0 && o.seconds < 1000)) {
        fprintf(stderr, "%s: --time must be a positive number of seconds\n", prog);
        return 2;
      }
    } else if (strcmp(a, "--states") == 0 && has_next) {
      o.num_states = atoi(argv[++i]);
      if (o.num_states < 1 || o.num_states > 1000000) {
        fprintf(stderr, "%s: --states must be in 1..1000000\n", prog);
        return 2;
      }
    } else if (strcmp(a, "--load") == 0) {
      return mbt_bench_load(i + 1 < argc ? atoi(argv[i + 1]) : 100000);
    } else if (strcmp(a, "--count") == 0 && i + 2 < argc) {
      o.count_op = argv[++i];
      o.count_calls = atol(argv[++i]);
    } else if (a[0] == '-') {
      fprintf(stderr, "%s: unknown or incomplete option '%s' (see --help)\n", prog, a);
      return 2;
    } else {
      if (o.num_models == (int)(sizeof o.models / sizeof o.models[0])) {
        fprintf(stderr, "%s: too many models\n", prog);
        return 2;
      }
      o.models[o.num_models++] = a;
    }
  }
  if (o.no_mujoco) o.mujoco = o.mujoco_explicit = false;
  if (o.mujoco_explicit && !mbt_bench_mujoco_available()) {
    fprintf(stderr, "%s: --mujoco: MuJoCo was not found when mbt was configured (install libmujoco-dev: "
                    "scripts/install-deps.sh --bench, then reconfigure)\n", prog);
    return 1;
  }
  if (o.count_op) return run_count(prog, &o);

  const bool default_set = o.num_models == 0 && !o.scaling_svg;
  if (default_set) {
    o.models[o.num_models++] = MBT_SOURCE_DIR "/models/ur5.urdf";
    o.models[o.num_models++] = "chain:30";
  }
  FILE* out = stdout;
  cJSON* root = cJSON_CreateObject();
  cJSON_AddItemToObject(root, "environment", environment_json());
  cJSON* runs = cJSON_AddArrayToObject(root, "runs");
  if (!o.json) {
    print_environment(out);
    fprintf(out, "timing: median and 10-90%% range of ns per call over batches of calls, each call on the next of\n"
                 "the pre-generated random states, after a warm-up (definitions: docs/benchmarks.md)\n");
  }
  int failed = 0;
  for (int i = 0; i < o.num_models; ++i) failed |= run_model(prog, &o, o.models[i], runs, out);
  if (o.scaling_svg) failed |= run_scaling(prog, &o, root, out);
  if (o.json) {
    char* s = cJSON_Print(root);
    if (s) {
      fputs(s, out);
      fputc('\n', out);
      cJSON_free(s);
    }
  }
  cJSON_Delete(root);
  return failed ? 1 : 0;
}
