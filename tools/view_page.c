/* view_page.c: writing the viewer page (view_page.h). The page is the template
 * viewer/page.html with its marker replaced by two scripts: the data (JSON, schema in
 * docs/viewer.md) and the bundled viewer (viewer/src + three.js, built by CMake). */
#include "view_page.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Generated at build time from viewer/page.html and the bundle (viewer/embed.c). */
extern const char mbt_viewer_template[];
extern const unsigned long mbt_viewer_template_size;
extern const char mbt_viewer_script[];
extern const unsigned long mbt_viewer_script_size;

#define DATA_MARKER "<!--MBT-DATA-->"
/* Trajectory frames closer than this to the previous embedded frame are left out. */
#define MIN_FRAME_INTERVAL 0.01

bool view_page_available(void) { return mbt_viewer_script_size > 0; }

/* ---- poses and kinematic data ------------------------------------------------------------- */
/* X as 12 numbers: R row-major, then p (viewer/src/kinematics.js). */
static cJSON* pose_json(const mbt_transform* X) {
  double x[12];
  memcpy(x, &X->R.m[0][0], 9 * sizeof(double));
  memcpy(x + 9, X->p.v, 3 * sizeof(double));
  return cli_json_array(x, 12);
}

static void add_pose(double* out, const mbt_transform* X) {
  memcpy(out, &X->R.m[0][0], 9 * sizeof(double));
  memcpy(out + 9, X->p.v, 3 * sizeof(double));
}

/* The axis and translation per radian of a revolute, prismatic or screw mobilizer, read off
 * H_FM (one column: [â; 0], [0; â], [â; pitch/(2π)·â]). */
static void mobilizer_axis(const mbt_tree* tree, int m, cJSON* o) {
  const mbt_mobilizer_type type = mbt_mobilizer_type_of(tree, m);
  if (type != MBT_MOBILIZER_REVOLUTE && type != MBT_MOBILIZER_PRISMATIC && type != MBT_MOBILIZER_SCREW) return;
  double q[7] = {0}, v[6] = {0};
  mbt_mobilizer_set_zero_state(tree, m, q, v);
  mbt_spatial_velocity H;
  mbt_mobilizer_calc_H_FM(tree, m, q, &H);
  const mbt_vec3 axis = type == MBT_MOBILIZER_PRISMATIC ? H.v : H.w;
  cJSON_AddItemToObject(o, "axis", cli_json_array(axis.v, 3));
  if (type == MBT_MOBILIZER_SCREW) cJSON_AddItemToObject(o, "pitch_per_radian", cli_json_number(mbt_vec3_dot(H.v, H.w)));
}

/* The bodies' inboard mobilizers in body-node order: what kinematics.js needs. */
static cJSON* mobilizers_json(const mbt_tree* tree) {
  cJSON* a = cJSON_CreateArray();
  for (int node = 1; node < mbt_tree_num_bodies(tree); ++node) {
    const int b = mbt_tree_node_body(tree, node), m = mbt_tree_body_mobilizer(tree, b);
    mbt_transform X_PF, X_BM;
    mbt_tree_frame_pose_in_body(tree, mbt_mobilizer_inboard_frame(tree, m), &X_PF);
    mbt_tree_frame_pose_in_body(tree, mbt_mobilizer_outboard_frame(tree, m), &X_BM);
    const mbt_transform X_MB = mbt_transform_inverse(&X_BM);
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", mbt_mobilizer_name(tree, m));
    cJSON_AddNumberToObject(o, "body", b);
    cJSON_AddNumberToObject(o, "parent", mbt_mobilizer_inboard_body(tree, m));
    cJSON_AddStringToObject(o, "type", mbt_mobilizer_type_name(mbt_mobilizer_type_of(tree, m)));
    cJSON_AddNumberToObject(o, "q_start", mbt_mobilizer_position_start_in_q(tree, m));
    cJSON_AddNumberToObject(o, "nq", mbt_mobilizer_num_positions(tree, m));
    mobilizer_axis(tree, m, o);
    cJSON_AddItemToObject(o, "X_PF", pose_json(&X_PF));
    cJSON_AddItemToObject(o, "X_MB", pose_json(&X_MB));
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

static cJSON* bodies_json(const mbt_tree* tree) {
  cJSON* a = cJSON_CreateArray();
  for (int b = 0; b < mbt_tree_num_bodies(tree); ++b) {
    const mbt_spatial_inertia* M = mbt_tree_body_spatial_inertia(tree, b);
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", mbt_tree_body_name(tree, b));
    cJSON_AddNumberToObject(o, "parent", mbt_tree_body_parent(tree, b));
    cJSON_AddItemToObject(o, "mass", cli_json_number(M->mass));
    cJSON_AddItemToObject(o, "com", cli_json_array(M->p_PScm_E.v, 3));
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

/* Joints with their q slices, limits and coordinate names: the pose editor's sliders. */
static cJSON* joints_json(const mbt_tree* tree) {
  cJSON* a = cJSON_CreateArray();
  for (int j = 0; j < mbt_tree_num_joints(tree); ++j) {
    const int nq = mbt_joint_num_positions(tree, j);
    if (nq == 0) continue;
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", mbt_joint_name(tree, j));
    cJSON_AddStringToObject(o, "type", mbt_joint_type_name(tree, j));
    cJSON_AddNumberToObject(o, "q_start", mbt_joint_position_start(tree, j));
    cJSON_AddNumberToObject(o, "nq", nq);
    cJSON_AddItemToObject(o, "lower", cli_json_array(mbt_joint_position_lower_limits(tree, j), nq));
    cJSON_AddItemToObject(o, "upper", cli_json_array(mbt_joint_position_upper_limits(tree, j), nq));
    cJSON* names = cJSON_CreateArray();
    for (int k = 0; k < nq; ++k) cJSON_AddItemToArray(names, cJSON_CreateString(mbt_joint_position_suffix(tree, j, k)));
    cJSON_AddItemToObject(o, "suffixes", names);
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

/* ---- geometry and meshes ------------------------------------------------------------------ */
static char* base64(const unsigned char* data, size_t n) {
  static const char k[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char* out = malloc(4 * ((n + 2) / 3) + 1);
  if (!out) return NULL;
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    const uint32_t b = (uint32_t)data[i] << 16 | (i + 1 < n ? (uint32_t)data[i + 1] << 8 : 0) |
                       (i + 2 < n ? (uint32_t)data[i + 2] : 0);
    out[o++] = k[b >> 18 & 63];
    out[o++] = k[b >> 12 & 63];
    out[o++] = i + 1 < n ? k[b >> 6 & 63] : '=';
    out[o++] = i + 2 < n ? k[b & 63] : '=';
  }
  out[o] = '\0';
  return out;
}

/* "stl", "obj", "dae" from the file name's extension (any case); NULL otherwise. */
static const char* mesh_format(const char* file) {
  const char* dot = strrchr(file, '.');
  static const char* const formats[] = {"stl", "obj", "dae"};
  for (int k = 0; dot && k < 3; ++k) {
    bool same = strlen(dot + 1) == 3;
    for (int i = 0; same && i < 3; ++i) same = (dot[1 + i] | 0x20) == formats[k][i];
    if (same) return formats[k];
  }
  return NULL;
}

/* The index of mesh `path` in `meshes`, adding it (read and encoded) if new; -1 with a
 * message if it cannot be used. */
static int mesh_index(const char* cmd, const mbt_geometry* g, cJSON* meshes) {
  if (!g->mesh_path[0]) {
    cli_error(cmd, "warning: %s geometry '%s': mesh '%s' did not resolve to a file; left out (--package-path NAME=DIR)",
              mbt_geometry_role_name(g->role), g->name, g->mesh_file);
    return -1;
  }
  const char* format = mesh_format(g->mesh_path);
  if (!format) {
    cli_error(cmd, "warning: %s geometry '%s': '%s' is not an STL, OBJ or COLLADA file; left out",
              mbt_geometry_role_name(g->role), g->name, g->mesh_path);
    return -1;
  }
  const int n = cJSON_GetArraySize(meshes);
  for (int k = 0; k < n; ++k)
    if (strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetArrayItem(meshes, k), "path")), g->mesh_path) == 0)
      return k;
  size_t len = 0;
  char* bytes = cli_read_file(cmd, g->mesh_path, &len);
  char* b64 = bytes ? base64((const unsigned char*)bytes, len) : NULL;
  free(bytes);
  if (!b64) return -1;
  cJSON* o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "path", g->mesh_path);
  cJSON_AddStringToObject(o, "format", format);
  cJSON_AddStringToObject(o, "base64", b64);
  free(b64);
  cJSON_AddItemToArray(meshes, o);
  return n;
}

static cJSON* geometry_json(const char* cmd, const mbt_geometry* g, cJSON* meshes) {
  cJSON* o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", g->name);
  cJSON_AddNumberToObject(o, "body", g->body);
  cJSON_AddStringToObject(o, "role", mbt_geometry_role_name(g->role));
  cJSON_AddStringToObject(o, "shape", mbt_shape_type_name(g->shape.type));
  cJSON_AddItemToObject(o, "X_BG", pose_json(&g->X_BG));
  cJSON_AddItemToObject(o, "radius", cli_json_number(g->shape.radius));
  cJSON_AddItemToObject(o, "length", cli_json_number(g->shape.length));
  cJSON_AddItemToObject(o, "size", cli_json_array(g->shape.size.v, 3));
  cJSON_AddItemToObject(o, "scale", cli_json_array(g->shape.scale.v, 3));
  cJSON_AddItemToObject(o, "rgba", g->has_rgba ? cli_json_array(g->rgba, 4) : cJSON_CreateNull());
  if (g->shape.type == MBT_SHAPE_MESH) {
    cJSON_AddStringToObject(o, "mesh_file", g->mesh_file);
    cJSON_AddNumberToObject(o, "mesh", mesh_index(cmd, g, meshes));
  }
  return o;
}

static void add_geometry(const char* cmd, const mbt_tree* tree, cJSON* root) {
  cJSON* meshes = cJSON_AddArrayToObject(root, "meshes");
  cJSON* geoms = cJSON_AddArrayToObject(root, "geometries");
  for (int role = 0; role < MBT_ROLE_NUM; ++role)
    for (int i = 0; i < mbt_tree_num_geometries(tree, (mbt_geometry_role)role); ++i)
      cJSON_AddItemToArray(geoms, geometry_json(cmd, mbt_tree_geometry(tree, (mbt_geometry_role)role, i), meshes));
}

/* ---- trajectory --------------------------------------------------------------------------- */
/* Frames at least MIN_FRAME_INTERVAL apart (the first and the last always), with their q and
 * X_WB of every body from the library's forward kinematics. */
static bool add_trajectory(const char* cmd, const mbt_tree* tree, const view_trajectory* tr, cJSON* root) {
  mbt_context* ctx = mbt_context_create(tree);
  const int nb = mbt_tree_num_bodies(tree);
  double* X = malloc(sizeof(double) * 12 * (size_t)nb);
  if (!ctx || !X) {
    mbt_context_destroy(ctx);
    free(X);
    cli_error(cmd, "out of memory");
    return false;
  }
  cJSON* o = cJSON_AddObjectToObject(root, "trajectory");
  cJSON* t = cJSON_AddArrayToObject(o, "t");
  cJSON* q = cJSON_AddArrayToObject(o, "q");
  cJSON* poses = cJSON_AddArrayToObject(o, "X_WB");
  bool ok = true;
  double last = 0;
  for (int k = 0; k < tr->n && ok; ++k) {
    if (k > 0 && k < tr->n - 1 && tr->t[k] - last < MIN_FRAME_INTERVAL * (1 - 1e-6)) continue;
    last = tr->t[k];
    const double* qk = tr->q + (size_t)k * (size_t)tr->nq;
    ok = mbt_context_set_q(ctx, qk, tr->nq) == MBT_OK && mbt_calc_forward_kinematics(tree, ctx) == MBT_OK;
    for (int b = 0; b < nb && ok; ++b) {
      mbt_transform X_WB;
      ok = mbt_context_body_pose_in_world(tree, ctx, b, &X_WB) == MBT_OK;
      add_pose(X + 12 * b, &X_WB);
    }
    if (!ok) cli_error(cmd, "frame %d (t = %g): %s", k, tr->t[k], mbt_context_last_error(ctx));
    cJSON_AddItemToArray(t, cli_json_number(tr->t[k]));
    cJSON_AddItemToArray(q, cli_json_array(qk, tr->nq));
    cJSON_AddItemToArray(poses, cli_json_array(X, 12 * nb));
  }
  mbt_context_destroy(ctx);
  free(X);
  return ok;
}

/* ---- the page ----------------------------------------------------------------------------- */
static cJSON* page_data(const char* cmd, const cli_model* model, const view_trajectory* traj) {
  const mbt_tree* tree = model->tree;
  cJSON* root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "model", model->urdf.robot_name ? model->urdf.robot_name : "");
  cJSON_AddStringToObject(root, "source", model->path);
  cJSON_AddNumberToObject(root, "nq", mbt_tree_num_positions(tree));
  cJSON_AddItemToObject(root, "bodies", bodies_json(tree));
  cJSON_AddItemToObject(root, "mobilizers", mobilizers_json(tree));
  cJSON_AddItemToObject(root, "joints", joints_json(tree));
  mbt_context* ctx = mbt_context_create(tree);
  if (ctx) {
    mbt_tree_set_default_context(tree, ctx);
    cJSON_AddItemToObject(root, "q0", cli_json_array(mbt_context_q(ctx), mbt_tree_num_positions(tree)));
    mbt_context_destroy(ctx);
  }
  add_geometry(cmd, tree, root);
  if (!ctx || (traj && !add_trajectory(cmd, tree, traj, root))) {
    cJSON_Delete(root);
    return NULL;
  }
  if (!traj) cJSON_AddNullToObject(root, "trajectory");
  return root;
}

/* Writes JSON text into a <script> element: "</" becomes "<\/" (same JSON string). */
static void write_script_json(FILE* f, const char* json) {
  for (const char* s = json; *s; ++s) {
    if (s[0] == '<' && s[1] == '/') fputs("<\\", f);
    else fputc(*s, f);
  }
}

bool view_page_write(const char* cmd, const cli_model* model, const view_trajectory* traj, const char* path) {
  if (!view_page_available()) {
    cli_error(cmd, "this mbt was built without the viewer (Node.js and npm were not found when it was configured)");
    return false;
  }
  const char* marker = strstr(mbt_viewer_template, DATA_MARKER);
  if (!marker) {
    cli_error(cmd, "the viewer's page template has no data marker");
    return false;
  }
  cJSON* data = page_data(cmd, model, traj);
  char* json = data ? cJSON_PrintUnformatted(data) : NULL;
  cJSON_Delete(data);
  if (!json) return false;
  FILE* f = cli_make_parent_dirs(cmd, path) ? fopen(path, "wb") : NULL;
  if (!f) {
    cli_error(cmd, "cannot write '%s'", path);
    free(json);
    return false;
  }
  fwrite(mbt_viewer_template, 1, (size_t)(marker - mbt_viewer_template), f);
  fputs("<script id=\"mbt-data\" type=\"application/json\">", f);
  write_script_json(f, json);
  fputs("</script>\n<script>", f);
  fwrite(mbt_viewer_script, 1, mbt_viewer_script_size, f);
  fputs("</script>", f);
  fputs(marker + strlen(DATA_MARKER), f);
  free(json);
  if (fclose(f) != 0) {
    cli_error(cmd, "cannot write '%s'", path);
    return false;
  }
  return true;
}

char* view_page_path_beside(const char* path) {
  const char* slash = strrchr(path, '/');
  const char* dot = strrchr(path, '.');
  const size_t stem = dot && (!slash || dot > slash + 1) ? (size_t)(dot - path) : strlen(path);
  char* out = malloc(stem + 6);
  if (out) {
    memcpy(out, path, stem);
    memcpy(out + stem, ".html", 6);
  }
  return out;
}
