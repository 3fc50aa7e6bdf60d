/* scene.c: scene files (scene.h). A scene is a JSON object:
 *   {"name": "two_arms_box",                      optional, default: the file name
 *    "ground": {"friction": 0.8},                 optional: the half space z = 0 (or true)
 *    "instances": [{"name": "left",               the prefix of its names ("left::...")
 *                   "model": "../models/x.urdf",  relative to the scene file's folder
 *                   "xyz": [0, 0.3, 0], "rpy": [0, 0, 0],   pose X_WR of the model's root
 *                   "floating": false,            root on a floating joint (else welded)
 *                   "q": {"joint": 0.5, ...}},    default positions of 1-dof joints
 *                  ...]}
 * Every problem is reported with the file and the member it is in. */
#define _POSIX_C_SOURCE 200809L
#include "scene.h"

#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char* cmd;
  const char* path;
  char dir[4096];      /* the scene file's folder */
  mbt_tree* tree;
  mbt_urdf_result* out;
} scene_loader;

static bool scene_error(const scene_loader* s, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static bool scene_error(const scene_loader* s, const char* fmt, ...) {
  char msg[1200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cli_error(s->cmd, "scene %s: %s", s->path, msg);
  return false;
}

bool scene_path_is_scene(const char* path) {
  const size_t n = path ? strlen(path) : 0;
  return n > 5 && strcmp(path + n - 5, ".json") == 0;
}

/* n finite numbers of a JSON array member (absent: keeps out). */
static bool numbers(const scene_loader* s, const cJSON* obj, const char* key, const char* where, double* out, int n) {
  const cJSON* a = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!a) return true;
  if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != n)
    return scene_error(s, "%s: \"%s\" must be an array of %d numbers", where, key, n);
  for (int i = 0; i < n; ++i) {
    const cJSON* x = cJSON_GetArrayItem(a, i);
    if (!cJSON_IsNumber(x)) return scene_error(s, "%s: \"%s\"[%d] is not a number", where, key, i);
    out[i] = x->valuedouble;
  }
  return true;
}

/* Moves the URDF's warnings to the scene's result. */
static void take_warnings(mbt_urdf_result* out, mbt_urdf_result* r) {
  char** w = realloc(out->warnings, sizeof(char*) * (size_t)(out->num_warnings + r->num_warnings + 1));
  if (!w) return;
  out->warnings = w;
  for (int i = 0; i < r->num_warnings; ++i) w[out->num_warnings++] = r->warnings[i];
  free(r->warnings);
  r->warnings = NULL;
  r->num_warnings = 0;
}

/* The "q" member: default positions of the instance's 1-dof joints by their URDF names. */
static bool set_default_q(const scene_loader* s, const cJSON* inst, const char* name, const char* where) {
  const cJSON* q = cJSON_GetObjectItemCaseSensitive(inst, "q");
  if (!q) return true;
  if (!cJSON_IsObject(q)) return scene_error(s, "%s: \"q\" must be an object {\"joint\": value}", where);
  for (const cJSON* e = q->child; e; e = e->next) {
    char joint[1024];
    snprintf(joint, sizeof joint, "%s::%s", name, e->string);
    const int j = mbt_tree_joint_by_name(s->tree, joint);
    if (j < 0) return scene_error(s, "%s: \"q\": no joint '%s' in the model", where, e->string);
    if (!cJSON_IsNumber(e) || mbt_joint_num_positions(s->tree, j) != 1)
      return scene_error(s, "%s: \"q\": joint '%s' needs one number (1-dof joints only)", where, e->string);
    const double v = e->valuedouble;
    if (mbt_joint_set_default_positions(s->tree, j, &v, 1) != MBT_OK)
      return scene_error(s, "%s: \"q\": joint '%s': %s", where, e->string, mbt_tree_last_error(s->tree));
  }
  return true;
}

static bool add_instance(scene_loader* s, const cJSON* inst, int k, const cli_model_options* opts,
                         const char* const* pkgs, int npkgs) {
  char where[300];
  const cJSON* jname = cJSON_GetObjectItemCaseSensitive(inst, "name");
  const cJSON* jmodel = cJSON_GetObjectItemCaseSensitive(inst, "model");
  snprintf(where, sizeof where, "instances[%d]", k);
  if (!cJSON_IsObject(inst)) return scene_error(s, "%s: not an object", where);
  if (!cJSON_IsString(jname) || !jname->valuestring[0])
    return scene_error(s, "%s: needs \"name\", a non-empty string", where);
  snprintf(where, sizeof where, "instances[%d] ('%.200s')", k, jname->valuestring);
  if (!cJSON_IsString(jmodel)) return scene_error(s, "%s: needs \"model\", the URDF file", where);
  const cJSON* jfloat = cJSON_GetObjectItemCaseSensitive(inst, "floating");
  if (jfloat && !cJSON_IsBool(jfloat)) return scene_error(s, "%s: \"floating\" must be true or false", where);
  double xyz[3] = {0, 0, 0}, rpy[3] = {0, 0, 0};
  if (!numbers(s, inst, "xyz", where, xyz, 3) || !numbers(s, inst, "rpy", where, rpy, 3)) return false;
  char model[4096];
  const char* m = jmodel->valuestring;
  snprintf(model, sizeof model, "%s%s%s", m[0] == '/' ? "" : s->dir, m[0] == '/' ? "" : "/", m);
  int flags = cJSON_IsTrue(jfloat) ? MBT_URDF_FLOATING : 0;
  if (opts->allow_invalid_inertia) flags |= MBT_URDF_ALLOW_INVALID_INERTIA;
  const mbt_urdf_options uo = {flags, pkgs, npkgs, NULL};
  mbt_urdf_result r;
  if (mbt_urdf_load_file_with_options(model, &uo, &r) != MBT_OK) {
    scene_error(s, "%s: cannot load model: %s", where, r.error);
    mbt_urdf_result_free(&r);
    return false;
  }
  const mbt_mat3 R = mbt_rotation_from_rpy(mbt_vec3_make(rpy[0], rpy[1], rpy[2]));
  const mbt_transform X_WR = mbt_transform_make(&R, mbt_vec3_make(xyz[0], xyz[1], xyz[2]));
  const int st = mbt_tree_add_model_instance(s->tree, r.tree, jname->valuestring, &X_WR);
  take_warnings(s->out, &r);
  mbt_urdf_result_free(&r);
  if (st < 0) return scene_error(s, "%s: %s", where, mbt_tree_last_error(s->tree));
  return set_default_q(s, inst, jname->valuestring, where);
}

/* The scene's root object into s->tree. */
static bool parse_scene(scene_loader* s, const cJSON* root, const cli_model_options* opts, const char* const* pkgs,
                        int npkgs, cli_model* model) {
  if (!cJSON_IsObject(root)) return scene_error(s, "the scene must be a JSON object");
  for (const cJSON* e = root->child; e; e = e->next)
    if (strcmp(e->string, "name") && strcmp(e->string, "ground") && strcmp(e->string, "instances"))
      return scene_error(s, "unknown member \"%s\" (name, ground, instances)", e->string);
  const cJSON* inst = cJSON_GetObjectItemCaseSensitive(root, "instances");
  if (!cJSON_IsArray(inst) || cJSON_GetArraySize(inst) == 0)
    return scene_error(s, "needs \"instances\", a non-empty array");
  const cJSON* ground = cJSON_GetObjectItemCaseSensitive(root, "ground");
  model->scene_friction = 1.0;
  if (ground && !cJSON_IsBool(ground) && !cJSON_IsObject(ground))
    return scene_error(s, "\"ground\" must be true, false or {\"friction\": MU}");
  model->scene_ground = ground && !cJSON_IsFalse(ground);
  if (cJSON_IsObject(ground)) {
    const cJSON* mu = cJSON_GetObjectItemCaseSensitive(ground, "friction");
    if (mu && (!cJSON_IsNumber(mu) || !(mu->valuedouble >= 0)))
      return scene_error(s, "ground: \"friction\" must be a number >= 0");
    if (mu) model->scene_friction = mu->valuedouble;
  }
  for (int k = 0; k < cJSON_GetArraySize(inst); ++k)
    if (!add_instance(s, cJSON_GetArrayItem(inst, k), k, opts, pkgs, npkgs)) return false;
  const cJSON* name = cJSON_GetObjectItemCaseSensitive(root, "name");
  s->out->robot_name = strdup(cJSON_IsString(name) ? name->valuestring : s->path);
  if (mbt_tree_finalize(s->tree) != MBT_OK) return scene_error(s, "%s", mbt_tree_last_error(s->tree));
  return s->out->robot_name != NULL || scene_error(s, "out of memory");
}

bool scene_load(const char* cmd, const char* path, const cli_model_options* opts, const char* const* pkgs,
                int npkgs, cli_model* model) {
  memset(model, 0, sizeof *model);
  scene_loader s = {cmd, path, "", NULL, &model->urdf};
  char copy[4096];
  snprintf(copy, sizeof copy, "%s", path);
  snprintf(s.dir, sizeof s.dir, "%s", dirname(copy));
  size_t len = 0;
  char* text = cli_read_file(cmd, path, &len);
  if (!text) return false;
  const char* end = NULL;
  cJSON* root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
  s.tree = mbt_tree_create();
  bool ok = s.tree != NULL || scene_error(&s, "out of memory");
  if (ok && !root) {
    const char* at = end ? end : cJSON_GetErrorPtr();
    int line = 1;
    for (const char* c = text; at && c < at && *c; ++c) line += *c == '\n';
    ok = scene_error(&s, "line %d: not valid JSON", line);
  }
  ok = ok && parse_scene(&s, root, opts, pkgs, npkgs, model);
  cJSON_Delete(root);
  free(text);
  model->urdf.tree = s.tree;
  if (!ok) {
    mbt_urdf_result_free(&model->urdf);
    memset(model, 0, sizeof *model);
    return false;
  }
  model->urdf.status = MBT_OK;
  model->tree = s.tree;
  model->path = path;
  model->scene = true;
  return true;
}
