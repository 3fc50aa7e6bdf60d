/* cli_common.c: shared helpers of the mbt command. */
#define _POSIX_C_SOURCE 200809L
#include "cli_common.h"
#include "scene.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

void cli_error(const char* cmd, const char* fmt, ...) {
  va_list ap;
  if (cmd)
    fprintf(stderr, "mbt %s: ", cmd);
  else
    fputs("mbt: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

bool cli_parse_model_option(const char* arg, cli_model_options* opts) {
  if (strcmp(arg, "--floating") == 0) {
    opts->floating = true;
    return true;
  }
  if (strcmp(arg, "--allow-invalid-inertia") == 0) {
    opts->allow_invalid_inertia = true;
    return true;
  }
  return false;
}

bool cli_model_load(const char* cmd, const char* path, const cli_model_options* opts, cli_model* model) {
  return cli_model_load_with_packages(cmd, path, opts, NULL, 0, model);
}

bool cli_model_load_with_packages(const char* cmd, const char* path, const cli_model_options* opts,
                                  const char* const* package_paths, int num_package_paths, cli_model* model) {
  if (scene_path_is_scene(path)) return scene_load(cmd, path, opts, package_paths, num_package_paths, model);
  memset(model, 0, sizeof(*model));
  int flags = 0;
  if (opts->floating) flags |= MBT_URDF_FLOATING;
  if (opts->allow_invalid_inertia) flags |= MBT_URDF_ALLOW_INVALID_INERTIA;
  const mbt_urdf_options options = {flags, package_paths, num_package_paths, NULL};
  int status = mbt_urdf_load_file_with_options(path, &options, &model->urdf);
  if (status != MBT_OK || model->urdf.tree == NULL) {
    const char* msg = model->urdf.error[0] ? model->urdf.error : mbt_status_string(status);
    cli_error(cmd, "cannot load model: %s", msg);
    if (status == MBT_ERR_NONPHYSICAL && !opts->allow_invalid_inertia)
      fprintf(stderr, "mbt %s: (--allow-invalid-inertia loads such inertias as written)\n", cmd);
    mbt_urdf_result_free(&model->urdf);
    memset(model, 0, sizeof(*model));
    return false;
  }
  model->tree = model->urdf.tree;
  model->path = path;
  model->floating = opts->floating;
  return true;
}

void cli_model_free(cli_model* model) {
  mbt_urdf_result_free(&model->urdf); /* destroys the tree */
  memset(model, 0, sizeof(*model));
}

int cli_option_value(const char* cmd, int argc, char** argv, int* i, const char* name, const char** value) {
  const char* arg = argv[*i];
  size_t len = strlen(name);
  if (strncmp(arg, name, len) != 0) return 0;
  if (arg[len] == '=') {
    *value = arg + len + 1;
    return 1;
  }
  if (arg[len] != '\0') return 0;
  if (*i + 1 >= argc) {
    cli_error(cmd, "option %s needs a value", name);
    return -1;
  }
  *value = argv[++*i];
  return 1;
}

bool cli_parse_double(const char* s, double* out) {
  if (s == NULL || *s == '\0') return false;
  char* end = NULL;
  errno = 0;
  double x = strtod(s, &end);
  if (end == s) return false;
  while (*end == ' ' || *end == '\t') ++end;
  if (*end != '\0' || !isfinite(x)) return false;
  *out = x;
  return true;
}

bool cli_parse_list(const char* s, double* out, int max, int* n) {
  *n = 0;
  if (s == NULL) return false;
  const char* p = s;
  for (;;) {
    char item[128];
    const char* comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    if (len >= sizeof(item) || *n >= max) return false;
    memcpy(item, p, len);
    item[len] = '\0';
    if (!cli_parse_double(item, &out[*n])) return false;
    ++*n;
    if (!comma) break;
    p = comma + 1;
  }
  return true;
}

const char* cli_format_double(char* buf, size_t n, double x) {
  if (!buf || n == 0) return "";
  if (!isfinite(x)) {
    snprintf(buf, n, "null");
    return buf;
  }
  if (x == 0) { /* keeps the sign of −0 out of the output */
    snprintf(buf, n, "0");
    return buf;
  }
  for (int digits = 15; digits <= 17; ++digits) {
    snprintf(buf, n, "%.*g", digits, x);
    if (strtod(buf, NULL) == x) break;
  }
  return buf;
}

cJSON* cli_json_number(double x) {
  char buf[40];
  return cJSON_CreateRaw(cli_format_double(buf, sizeof(buf), x));
}

cJSON* cli_json_array(const double* x, int n) {
  cJSON* a = cJSON_CreateArray();
  for (int i = 0; i < n; ++i) cJSON_AddItemToArray(a, cli_json_number(x[i]));
  return a;
}

cJSON* cli_json_matrix(const double* A, int rows, int cols) {
  cJSON* a = cJSON_CreateArray();
  for (int i = 0; i < rows; ++i) cJSON_AddItemToArray(a, cli_json_array(A + (size_t)i * cols, cols));
  return a;
}

char* cli_read_file(const char* cmd, const char* path, size_t* length) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    cli_error(cmd, "cannot open '%s': %s", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, len = 0;
  char* buf = malloc(cap);
  while (buf) {
    size_t got = fread(buf + len, 1, cap - len - 1, f);
    len += got;
    if (len + 1 < cap) break;
    char* bigger = realloc(buf, cap * 2);
    if (!bigger) {
      free(buf);
      buf = NULL;
      break;
    }
    buf = bigger;
    cap *= 2;
  }
  const int err = errno;
  bool failed = ferror(f) != 0;
  fclose(f);
  if (!buf || failed) {
    cli_error(cmd, "cannot read '%s': %s", path, strerror(buf ? err : ENOMEM));
    free(buf);
    return NULL;
  }
  buf[len] = '\0';
  if (length) *length = len;
  return buf;
}

bool cli_make_parent_dirs(const char* cmd, const char* path) {
  char dir[4096];
  size_t len = strlen(path);
  if (len >= sizeof(dir)) {
    cli_error(cmd, "path too long: '%s'", path);
    return false;
  }
  memcpy(dir, path, len + 1);
  char* slash = strrchr(dir, '/');
  if (!slash || slash == dir) return true;
  *slash = '\0';
  for (char* p = dir + 1; ; ++p) {
    if (*p == '/' || *p == '\0') {
      char c = *p;
      *p = '\0';
      if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        cli_error(cmd, "cannot create directory '%s': %s", dir, strerror(errno));
        return false;
      }
      *p = c;
      if (c == '\0') break;
    }
  }
  return true;
}

bool cli_model_argument(const char* cmd, const char* arg, const char** model) {
  if (arg[0] == '-' && arg[1] != '\0') {
    cli_error(cmd, "unknown option '%s' (see 'mbt %s --help')", arg, cmd);
    return false;
  }
  if (*model) {
    cli_error(cmd, "more than one MODEL given ('%s', '%s')", *model, arg);
    return false;
  }
  *model = arg;
  return true;
}

bool cli_parse_gravity(const char* cmd, const char* s, double g[3]) {
  int n = 0;
  if (s && (!cli_parse_list(s, g, 3, &n) || n != 3)) {
    cli_error(cmd, "--gravity needs three finite numbers gx,gy,gz, got '%s'", s);
    return false;
  }
  return true;
}

bool cli_zero_damping(const char* cmd, const mbt_tree* tree, mbt_context* ctx) {
  const double zeros[MBT_JOINT_MAX_NV] = {0};
  for (int j = 0; j < mbt_tree_num_joints(tree); ++j) {
    int jnv = mbt_joint_num_velocities(tree, j);
    if (jnv > 0 && mbt_joint_set_damping_vector(ctx, j, zeros, jnv) != MBT_OK) {
      cli_error(cmd, "--no-damping: %s", mbt_context_last_error(ctx));
      return false;
    }
  }
  return true;
}

double cli_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Suffixes of a mobilizer that no joint made (finalize's "<body>_floating"). */
static const char* mobilizer_suffix(mbt_mobilizer_type type, bool velocities, int k) {
  static const char* const qf_q[] = {"qw", "qx", "qy", "qz", "x", "y", "z"};
  static const char* const qf_v[] = {"wx", "wy", "wz", "vx", "vy", "vz"};
  static const char* const n_q[] = {"q0", "q1", "q2", "q3", "q4", "q5", "q6"};
  static const char* const n_v[] = {"v0", "v1", "v2", "v3", "v4", "v5"};
  if (type == MBT_MOBILIZER_QUATERNION_FLOATING) return velocities ? qf_v[k] : qf_q[k];
  return velocities ? n_v[k] : n_q[k];
}

char** cli_state_names(const mbt_tree* tree, bool velocities) {
  int n = velocities ? mbt_tree_num_velocities(tree) : mbt_tree_num_positions(tree);
  char** names = calloc((size_t)n + 1, sizeof(char*));
  if (!names) return NULL;
  for (int m = 0; m < mbt_tree_num_mobilizers(tree); ++m) {
    int count = velocities ? mbt_mobilizer_num_velocities(tree, m) : mbt_mobilizer_num_positions(tree, m);
    int start = velocities ? mbt_mobilizer_velocity_start_in_v(tree, m) : mbt_mobilizer_position_start_in_q(tree, m);
    int joint = mbt_mobilizer_joint(tree, m);
    for (int k = 0; k < count; ++k) {
      if (start + k < 0 || start + k >= n) continue;
      const char* base = joint >= 0 ? mbt_joint_name(tree, joint) : mbt_mobilizer_name(tree, m);
      const char* suffix = NULL;
      if (joint >= 0)
        suffix = velocities ? mbt_joint_velocity_suffix(tree, joint, k) : mbt_joint_position_suffix(tree, joint, k);
      if (!suffix) suffix = mobilizer_suffix(mbt_mobilizer_type_of(tree, m), velocities, k);
      size_t len = strlen(base) + strlen(suffix) + 2;
      char* name = malloc(len);
      if (!name) {
        cli_free_names(names, n);
        return NULL;
      }
      snprintf(name, len, "%s.%s", base, suffix);
      free(names[start + k]);
      names[start + k] = name;
    }
  }
  for (int i = 0; i < n; ++i) {
    if (!names[i]) { /* not reached for a finalized tree: every coordinate has a mobilizer */
      char buf[32];
      snprintf(buf, sizeof(buf), velocities ? "v%d" : "q%d", i);
      size_t len = strlen(buf) + 1;
      names[i] = malloc(len);
      if (!names[i]) {
        cli_free_names(names, n);
        return NULL;
      }
      memcpy(names[i], buf, len);
    }
  }
  return names;
}

void cli_free_names(char** names, int n) {
  if (!names) return;
  for (int i = 0; i < n; ++i) free(names[i]);
  free(names);
}
