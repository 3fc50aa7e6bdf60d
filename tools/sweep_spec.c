/* sweep_spec.c: the spec of `mbt sweep` (JSON, read with cJSON): its fields, the parameters
 * a run sets, the grid or Monte Carlo sample, and the model it names. docs/batch.md gives
 * the format. Every error names the spec file and the field (or the line of a JSON syntax
 * error); an unknown field is an error, never ignored. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

static const char* const kCmd = "sweep";

static const char* const kTopFields[] = {"model", "floating", "duration", "integrator", "dt", "rtol", "atol",
                                         "sampling", "runs", "seed", "set", "vary", "metrics", NULL};
static const char* const kMetricNames[] = {"final_state", "energy_drift", "max_joint_torque", "limit_events",
                                           "wall_time", NULL};

static bool spec_error(const sweep_spec* s, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static bool spec_error(const sweep_spec* s, const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cli_error(kCmd, "%s: %s", s->spec_path, msg);
  return false;
}

static bool in_list(const char* name, const char* const* list) {
  for (int i = 0; list[i]; ++i)
    if (strcmp(name, list[i]) == 0) return true;
  return false;
}

static bool check_fields(const sweep_spec* s, const cJSON* obj, const char* const* known) {
  for (const cJSON* it = obj->child; it; it = it->next) {
    if (in_list(it->string, known)) continue;
    char list[512] = "";
    for (int i = 0; known[i]; ++i) {
      strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
      strncat(list, known[i], sizeof list - strlen(list) - 1);
    }
    return spec_error(s, "unknown field '%s' (the fields are: %s)", it->string, list);
  }
  return true;
}

static bool get_number(const sweep_spec* s, const cJSON* root, const char* name, double* out) {
  const cJSON* it = cJSON_GetObjectItemCaseSensitive(root, name);
  if (!it) return true;
  if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble)) return spec_error(s, "'%s' must be a finite number", name);
  *out = it->valuedouble;
  return true;
}

/* ---- parameter names ------------------------------------------------------------------ */
static int find_name(char** names, int n, const char* name) {
  for (int i = 0; i < n; ++i)
    if (strcmp(names[i], name) == 0) return i;
  return -1;
}

/* A state coordinate by its name ("<joint>.<suffix>") or by a 1-dof joint's name. */
static int state_index(const sweep_spec* s, const char* rest, bool velocity) {
  const int i = find_name(velocity ? s->vnames : s->qnames, velocity ? s->nv : s->nq, rest);
  if (i >= 0) return i;
  const mbt_tree* tree = s->model.tree;
  const int j = mbt_tree_joint_by_name(tree, rest);
  if (j < 0) return -1;
  if (velocity ? mbt_joint_num_velocities(tree, j) != 1 : mbt_joint_num_positions(tree, j) != 1) return -1;
  return velocity ? mbt_joint_velocity_start(tree, j) : mbt_joint_position_start(tree, j);
}

static int dof_of_joint(const sweep_spec* s, const char* joint_name) {
  const int j = mbt_tree_joint_by_name(s->model.tree, joint_name);
  for (int d = 0; d < s->num_dofs; ++d)
    if (s->dofs[d].joint == j) return d;
  return -1;
}

static int axis_of(const char* a) {
  return strcmp(a, "x") == 0 ? 0 : strcmp(a, "y") == 0 ? 1 : strcmp(a, "z") == 0 ? 2 : -1;
}

static bool resolve_body_axis(const sweep_spec* s, const char* rest, sweep_param* p) {
  const char* dot = strrchr(rest, '.');
  if (!dot) return false;
  char body[256];
  snprintf(body, sizeof body, "%.*s", (int)(dot - rest), rest);
  p->index = mbt_tree_body_by_name(s->model.tree, body);
  p->axis = axis_of(dot + 1);
  return p->index > 0 && p->axis >= 0;
}

/* Sets p->kind, index and axis from p->name; false if the name means nothing in the model. */
static bool resolve_param(const sweep_spec* s, sweep_param* p) {
  const char* n = p->name;
  const char* dot = strchr(n, '.');
  const char* rest = dot ? dot + 1 : "";
  const size_t head = dot ? (size_t)(dot - n) : strlen(n);
  p->index = -1;
  p->axis = -1;
#define HEAD(str) (head == strlen(str) && strncmp(n, str, head) == 0)
  if (HEAD("q0") || HEAD("v0") || HEAD("damping")) {
    p->kind = HEAD("q0") ? SWEEP_Q0 : HEAD("v0") ? SWEEP_V0 : SWEEP_DAMPING;
    p->index = state_index(s, rest, p->kind != SWEEP_Q0);
    return p->index >= 0;
  }
  if (HEAD("kp") || HEAD("kd") || HEAD("target")) {
    p->kind = HEAD("kp") ? SWEEP_KP : HEAD("kd") ? SWEEP_KD : SWEEP_TARGET;
    if (!dot) return p->kind != SWEEP_TARGET;
    p->index = dof_of_joint(s, rest);
    return p->index >= 0;
  }
  if (HEAD("mass")) {
    p->kind = SWEEP_MASS;
    p->index = mbt_tree_body_by_name(s->model.tree, rest);
    return p->index > 0;
  }
  if (HEAD("com")) {
    p->kind = SWEEP_COM;
    return resolve_body_axis(s, rest, p);
  }
  if (HEAD("gravity")) {
    p->kind = SWEEP_GRAVITY;
    p->axis = axis_of(rest);
    return p->axis >= 0;
  }
#undef HEAD
  return false;
}

static bool unknown_param(const sweep_spec* s, const char* where, const char* name) {
  return spec_error(s,
                    "%s: unknown parameter '%s' (parameters: q0.<joint>, v0.<joint>, damping.<joint>, kp, kd, "
                    "kp.<joint>, kd.<joint>, target.<joint>, mass.<body>, com.<body>.x|y|z, gravity.x|y|z; a "
                    "joint of several coordinates takes the coordinate's name as 'mbt info --json' gives it, "
                    "e.g. q0.<joint>.qx)",
                    where, name);
}

/* ---- "set" and "vary" ----------------------------------------------------------------- */
static bool read_numbers(const sweep_spec* s, const cJSON* arr, const char* where, const char* name,
                         sweep_param* p, int min_count, int max_count) {
  const int n = cJSON_GetArraySize(arr);
  if (n < min_count || n > max_count)
    return max_count == min_count
               ? spec_error(s, "%s.%s: needs %d numbers, got %d", where, name, min_count, n)
               : spec_error(s, "%s.%s: needs at least %d number%s, got %d", where, name, min_count,
                            min_count == 1 ? "" : "s", n);
  p->values = malloc(sizeof(double) * (size_t)n);
  if (!p->values) return spec_error(s, "out of memory");
  p->num_values = n;
  int k = 0;
  for (const cJSON* it = arr->child; it; it = it->next, ++k) {
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble))
      return spec_error(s, "%s.%s: item %d is not a finite number", where, name, k);
    p->values[k] = it->valuedouble;
  }
  return true;
}

/* A "vary" value: a list (grid values, or a Monte Carlo choice), {"uniform": [lo, hi]} or
 * {"normal": [mean, std]} (Monte Carlo only). */
static bool parse_distribution(const sweep_spec* s, const cJSON* v, sweep_param* p) {
  if (cJSON_IsArray(v)) {
    p->dist = SWEEP_LIST;
    return read_numbers(s, v, "vary", p->name, p, 1, 1 << 20);
  }
  if (!cJSON_IsObject(v) || !v->child || v->child->next)
    return spec_error(s, "vary.%s: give a list of values, {\"uniform\": [lo, hi]} or {\"normal\": [mean, std]}",
                      p->name);
  const cJSON* d = v->child;
  if (strcmp(d->string, "uniform") == 0)
    p->dist = SWEEP_UNIFORM;
  else if (strcmp(d->string, "normal") == 0)
    p->dist = SWEEP_NORMAL;
  else
    return spec_error(s, "vary.%s: unknown field '%s' (uniform or normal)", p->name, d->string);
  if (!s->monte_carlo)
    return spec_error(s, "vary.%s: '%s' needs \"sampling\": \"monte_carlo\" (a grid takes lists)", p->name,
                      d->string);
  if (!cJSON_IsArray(d)) return spec_error(s, "vary.%s.%s: needs a list of 2 numbers", p->name, d->string);
  if (!read_numbers(s, d, "vary", p->name, p, 2, 2)) return false;
  if (p->dist == SWEEP_UNIFORM && !(p->values[0] <= p->values[1]))
    return spec_error(s, "vary.%s: uniform needs lo <= hi", p->name);
  if (p->dist == SWEEP_NORMAL && !(p->values[1] >= 0))
    return spec_error(s, "vary.%s: normal needs std >= 0", p->name);
  return true;
}

static bool parse_params(sweep_spec* s, const cJSON* obj, bool vary) {
  const char* where = vary ? "vary" : "set";
  if (!obj) return true;
  if (!cJSON_IsObject(obj)) return spec_error(s, "'%s' must be an object of parameter names", where);
  for (const cJSON* it = obj->child; it; it = it->next) {
    sweep_param* p = &s->params[s->num_params];
    memset(p, 0, sizeof *p);
    p->name = strdup(it->string);
    if (!p->name) return spec_error(s, "out of memory");
    ++s->num_params;
    p->varied = vary;
    if (!resolve_param(s, p)) return unknown_param(s, where, it->string);
    for (int k = 0; k < s->num_params - 1; ++k)
      if (strcmp(s->params[k].name, p->name) == 0) return spec_error(s, "parameter '%s' is given twice", p->name);
    if (vary) {
      if (!parse_distribution(s, it, p)) return false;
    } else {
      if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble))
        return spec_error(s, "set.%s: must be a finite number", it->string);
      p->dist = SWEEP_FIXED;
      p->num_values = 1;
      p->values = malloc(sizeof(double));
      if (!p->values) return spec_error(s, "out of memory");
      p->values[0] = it->valuedouble;
    }
  }
  return true;
}

static bool parse_metrics(sweep_spec* s, const cJSON* m) {
  if (!m) {
    s->metrics = SWEEP_METRIC_FINAL_STATE | SWEEP_METRIC_ENERGY | SWEEP_METRIC_TORQUE | SWEEP_METRIC_LIMITS |
                 SWEEP_METRIC_WALL;
    return true;
  }
  if (!cJSON_IsArray(m)) return spec_error(s, "'metrics' must be a list of names");
  for (const cJSON* it = m->child; it; it = it->next) {
    int k = 0;
    while (kMetricNames[k] && !(cJSON_IsString(it) && strcmp(it->valuestring, kMetricNames[k]) == 0)) ++k;
    if (!kMetricNames[k])
      return spec_error(s, "metrics: unknown metric %s%s%s (final_state, energy_drift, max_joint_torque, "
                        "limit_events, wall_time)", cJSON_IsString(it) ? "'" : "",
                        cJSON_IsString(it) ? it->valuestring : "(not a string)", cJSON_IsString(it) ? "'" : "");
    s->metrics |= 1 << k;
  }
  return true;
}

/* ---- the whole spec ------------------------------------------------------------------- */
static bool parse_sampling(sweep_spec* s, const cJSON* root) {
  const cJSON* smp = cJSON_GetObjectItemCaseSensitive(root, "sampling");
  if (smp && !(cJSON_IsString(smp) && (strcmp(smp->valuestring, "grid") == 0 ||
                                       strcmp(smp->valuestring, "monte_carlo") == 0)))
    return spec_error(s, "'sampling' must be \"grid\" or \"monte_carlo\"");
  s->monte_carlo = smp && strcmp(smp->valuestring, "monte_carlo") == 0;
  const cJSON* runs = cJSON_GetObjectItemCaseSensitive(root, "runs");
  if (runs && !s->monte_carlo) return spec_error(s, "'runs' is for \"sampling\": \"monte_carlo\" (a grid has one "
                                                 "run per point)");
  if (s->monte_carlo) {
    if (!runs || !cJSON_IsNumber(runs) || runs->valuedouble < 1 || runs->valuedouble > 1e9 ||
        runs->valuedouble != floor(runs->valuedouble))
      return spec_error(s, "'runs' (Monte Carlo) must be a whole number from 1 to 1e9");
    s->num_runs = (long)runs->valuedouble;
  }
  const cJSON* seed = cJSON_GetObjectItemCaseSensitive(root, "seed");
  if (seed && (!cJSON_IsNumber(seed) || seed->valuedouble < 0 || seed->valuedouble > 9007199254740991.0 ||
               seed->valuedouble != floor(seed->valuedouble)))
    return spec_error(s, "'seed' must be a whole number from 0 to 2^53 - 1");
  s->seed = seed ? (uint64_t)seed->valuedouble : 0;
  return true;
}

static bool parse_integrator(sweep_spec* s, const cJSON* root) {
  s->sim = mbt_simulator_default_options();
  s->sim.dt = 0.01;
  const cJSON* it = cJSON_GetObjectItemCaseSensitive(root, "integrator");
  if (it) {
    const int type = cJSON_IsString(it) ? mbt_integrator_from_name(it->valuestring) : -1;
    if (type < 0) return spec_error(s, "'integrator' must be one of rk45, rk4, semi_implicit_euler, euler");
    s->sim.integrator = (mbt_integrator_type)type;
    if (type != MBT_INTEGRATOR_RK45) s->sim.dt = 0.001;
  }
  if (!get_number(s, root, "dt", &s->sim.dt) || !get_number(s, root, "rtol", &s->sim.rtol) ||
      !get_number(s, root, "atol", &s->sim.atol) || !get_number(s, root, "duration", &s->duration))
    return false;
  if (!(s->sim.dt > 0)) return spec_error(s, "'dt' must be > 0");
  if (!(s->duration >= 0)) return spec_error(s, "'duration' must be >= 0");
  if (s->duration / s->sim.dt > 1e12) return spec_error(s, "'duration' / 'dt' is more than 1e12 steps");
  return true;
}

/* The model path, relative to the spec's directory unless absolute. */
static bool parse_model(sweep_spec* s, const cJSON* root) {
  const cJSON* m = cJSON_GetObjectItemCaseSensitive(root, "model");
  if (!m || !cJSON_IsString(m) || !m->valuestring[0]) return spec_error(s, "'model' (a URDF file) is required");
  const cJSON* fl = cJSON_GetObjectItemCaseSensitive(root, "floating");
  if (fl && !cJSON_IsBool(fl)) return spec_error(s, "'floating' must be true or false");
  s->floating = fl && cJSON_IsTrue(fl);
  const char* slash = strrchr(s->spec_path, '/');
  const size_t dir = m->valuestring[0] == '/' || !slash ? 0 : (size_t)(slash - s->spec_path + 1);
  s->model_path = malloc(dir + strlen(m->valuestring) + 1);
  if (!s->model_path) return spec_error(s, "out of memory");
  memcpy(s->model_path, s->spec_path, dir);
  strcpy(s->model_path + dir, m->valuestring);
  return true;
}

static bool load_model(sweep_spec* s) {
  cli_model_options mo = {s->floating, false};
  if (!cli_model_load(kCmd, s->model_path, &mo, &s->model)) return false;
  const mbt_tree* tree = s->model.tree;
  s->nq = mbt_tree_num_positions(tree);
  s->nv = mbt_tree_num_velocities(tree);
  s->qnames = cli_state_names(tree, false);
  s->vnames = cli_state_names(tree, true);
  s->dofs = calloc((size_t)mbt_tree_num_joints(tree) + 1, sizeof *s->dofs);
  if (!s->qnames || !s->vnames || !s->dofs) return spec_error(s, "out of memory");
  for (int j = 0; j < mbt_tree_num_joints(tree); ++j) {
    const mbt_joint_type t = mbt_joint_type_of(tree, j);
    if (t != MBT_JOINT_REVOLUTE && t != MBT_JOINT_PRISMATIC) continue;
    s->dofs[s->num_dofs++] = (sweep_dof){j, mbt_joint_position_start(tree, j), mbt_joint_velocity_start(tree, j)};
  }
  return true;
}

static long grid_size(const sweep_spec* s) {
  double n = 1;
  for (int i = 0; i < s->num_params; ++i)
    if (s->params[i].varied) n *= s->params[i].num_values;
  return n > 1e9 ? -1 : (long)n;
}

static bool parse_root(sweep_spec* s, const cJSON* root) {
  if (!cJSON_IsObject(root)) return spec_error(s, "the spec must be a JSON object");
  if (!check_fields(s, root, kTopFields)) return false;
  if (!parse_model(s, root) || !parse_integrator(s, root) || !parse_sampling(s, root) ||
      !parse_metrics(s, cJSON_GetObjectItemCaseSensitive(root, "metrics")))
    return false;
  if (!load_model(s)) return false;
  const cJSON* set = cJSON_GetObjectItemCaseSensitive(root, "set");
  const cJSON* vary = cJSON_GetObjectItemCaseSensitive(root, "vary");
  s->params = calloc((size_t)(cJSON_GetArraySize(set) + cJSON_GetArraySize(vary)) + 1, sizeof *s->params);
  if (!s->params) return spec_error(s, "out of memory");
  if (!parse_params(s, set, false) || !parse_params(s, vary, true)) return false;
  if (!s->monte_carlo) {
    s->num_runs = grid_size(s);
    if (s->num_runs < 0) return spec_error(s, "the grid has more than 1e9 points");
  }
  return true;
}

/* Line and column of a position in text (1-based). */
static void line_of(const char* text, const char* at, int* line, int* col) {
  *line = 1;
  *col = 1;
  for (const char* c = text; c < at && *c; ++c) {
    if (*c == '\n') {
      ++*line;
      *col = 1;
    } else {
      ++*col;
    }
  }
}

bool sweep_spec_load(const char* path, sweep_spec* s) {
  memset(s, 0, sizeof *s);
  s->spec_path = strdup(path);
  s->duration = 1.0;
  if (!s->spec_path) return false;
  size_t len = 0;
  char* text = cli_read_file(kCmd, path, &len);
  if (!text) return false;
  const char* end = NULL;
  cJSON* root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
  bool ok;
  if (!root) {
    int line, col;
    line_of(text, end ? end : cJSON_GetErrorPtr(), &line, &col);
    ok = spec_error(s, "line %d, column %d: not valid JSON", line, col);
  } else {
    ok = parse_root(s, root);
  }
  cJSON_Delete(root);
  free(text);
  return ok;
}

void sweep_spec_free(sweep_spec* s) {
  for (int i = 0; i < s->num_params; ++i) {
    free(s->params[i].name);
    free(s->params[i].values);
  }
  free(s->params);
  if (s->qnames) cli_free_names(s->qnames, s->nq);
  if (s->vnames) cli_free_names(s->vnames, s->nv);
  free(s->dofs);
  free(s->spec_path);
  free(s->model_path);
  if (s->model.tree) cli_model_free(&s->model);
  memset(s, 0, sizeof *s);
}

/* ---- the values of a run -------------------------------------------------------------- */
/* SplitMix64 [Steele, Lea, Flood 2014]: a 64-bit counter-based generator whose stream for a
 * run is fixed by (seed, run), so a run draws the same numbers in any process. */
static uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
static double uniform01(uint64_t* state) { return (double)(splitmix64(state) >> 11) * 0x1.0p-53; }

void sweep_spec_values(const sweep_spec* s, long run, double* values) {
  uint64_t state = s->seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(run + 1));
  long rest = run;
  /* Grid: the last varied parameter changes fastest (as itertools.product). */
  for (int i = s->num_params - 1; i >= 0; --i) {
    const sweep_param* p = &s->params[i];
    if (p->dist == SWEEP_FIXED) {
      values[i] = p->values[0];
    } else if (!s->monte_carlo) {
      values[i] = p->values[rest % p->num_values];
      rest /= p->num_values;
    }
  }
  if (!s->monte_carlo) return;
  for (int i = 0; i < s->num_params; ++i) {
    const sweep_param* p = &s->params[i];
    if (p->dist == SWEEP_LIST) {
      values[i] = p->values[(long)(uniform01(&state) * p->num_values)];
    } else if (p->dist == SWEEP_UNIFORM) {
      values[i] = p->values[0] + (p->values[1] - p->values[0]) * uniform01(&state);
    } else if (p->dist == SWEEP_NORMAL) {
      /* Box–Muller: sqrt(−2 ln u1)·cos(2π u2), u1 in (0, 1]. */
      const double u1 = 1.0 - uniform01(&state), u2 = uniform01(&state);
      values[i] = p->values[0] + p->values[1] * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    }
  }
}
