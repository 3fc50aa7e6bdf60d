/* cmd_info.c: `mbt info MODEL [--floating] [--allow-invalid-inertia] [--json]`: the tree of
 * a model as an indented drawing (or JSON, schema in docs/cli.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_commands.h"
#include "cli_common.h"

static const char* const kCmd = "info";

static void print_help(void) {
  puts("usage: mbt info MODEL [--floating] [--allow-invalid-inertia] [--json] [--all-warnings]\n"
       "\n"
       "Loads a URDF model and prints its tree: every body under its parent with the joint\n"
       "that connects them, the joint type, the joint's slices of q and v (mbt's state\n"
       "order), the body's mass and level; the tree height, the loader's warnings and counts.\n"
       "\n"
       "options:\n"
       "  --floating               attach the root link to the world with a quaternion-floating\n"
       "                           joint 'root_joint' (default: welded to the world)\n"
       "  --allow-invalid-inertia  load non-physical inertias as written (with a warning)\n"
       "  --json                   machine-readable output (schema in docs/cli.md)\n"
       "  --all-warnings           list every warning (default: the first ones and a count)\n"
       "  -h, --help               this help");
}

/* The joint name and type that connect a body to its parent ("" for the world). */
static void body_joint(const mbt_tree* tree, int body, const char** name, const char** type) {
  int m = mbt_tree_body_mobilizer(tree, body);
  *name = "";
  *type = "";
  if (m < 0) return;
  int j = mbt_mobilizer_joint(tree, m);
  if (j >= 0) {
    *name = mbt_joint_name(tree, j);
    *type = mbt_joint_type_name(tree, j);
  } else {
    *name = mbt_mobilizer_name(tree, m);
    *type = mbt_mobilizer_type_name(mbt_mobilizer_type_of(tree, m));
  }
}

/* "q[3]", "q[0..6]" (inclusive) or "-". */
static void slice(char* buf, size_t n, char letter, int start, int count) {
  if (count <= 0)
    snprintf(buf, n, "-");
  else if (count == 1)
    snprintf(buf, n, "%c[%d]", letter, start);
  else
    snprintf(buf, n, "%c[%d..%d]", letter, start, start + count - 1);
}

/* Display width of a UTF-8 string (code points). */
static int display_width(const char* s) {
  int w = 0;
  for (; *s; ++s)
    if (((unsigned char)*s & 0xC0) != 0x80) ++w;
  return w;
}

/* The tree column is drawn with box-drawing prefixes, one column per level, for at most this
 * many levels: a body deeper than that shows only the columns of its nearest ancestors after a
 * "⋯", so a line stays short however deep the tree (the LEVEL column gives the depth). */
enum { kMaxDrawnLevels = 24 };

/* The tree drawing, walked in body-node order (depth-first preorder, children in node order,
 * as q is): open[l] tells whether the ancestor at level l has siblings still to come (its
 * column shows "│"). No recursion: a chain of any length is drawn in one loop. */
typedef struct {
  const mbt_tree* tree;
  int* last_child;  /* [bodies] the child with the highest node, -1 if none */
  bool* open;       /* [height + 1] */
} tree_drawing;

static bool drawing_init(tree_drawing* d, const mbt_tree* tree) {
  const int nb = mbt_tree_num_bodies(tree), height = mbt_tree_height(tree);
  d->tree = tree;
  d->last_child = malloc(sizeof(int) * (size_t)nb);
  d->open = calloc((size_t)height + 1, sizeof(bool));
  if (!d->last_child || !d->open) return false;
  for (int b = 0; b < nb; ++b) {
    d->last_child[b] = -1;
    for (int k = 0; k < mbt_tree_body_num_children(tree, b); ++k) {
      const int c = mbt_tree_body_child(tree, b, k);
      if (d->last_child[b] < 0 || mbt_tree_body_node(tree, c) > mbt_tree_body_node(tree, d->last_child[b]))
        d->last_child[b] = c;
    }
  }
  return true;
}

static void drawing_free(tree_drawing* d) {
  free(d->last_child);
  free(d->open);
}

/* The tree cell of `body` (visited in node order): prefix, connector and name. */
static void drawing_cell(tree_drawing* d, int body, char* buf, size_t n) {
  const int level = mbt_tree_body_level(d->tree, body);
  const char* name = mbt_tree_body_name(d->tree, body);
  if (level == 0) {
    snprintf(buf, n, "%s", name);
    return;
  }
  const bool last = d->last_child[mbt_tree_body_parent(d->tree, body)] == body;
  size_t len = 0;
  buf[0] = '\0';
  int first = 1;
  if (level - 1 > kMaxDrawnLevels) {
    first = level - kMaxDrawnLevels + 1;
    len += (size_t)snprintf(buf, n, "⋯  ");
  }
  for (int l = first; l < level && len < n; ++l) len += (size_t)snprintf(buf + len, n - len, "%s", d->open[l] ? "│  " : "   ");
  if (len < n) snprintf(buf + len, n - len, "%s %s", last ? "└─" : "├─", name);
  d->open[level] = !last;
}

/* Appends s padded to width display columns to line (of capacity cap). */
static void append_padded(char* line, size_t cap, const char* s, int width) {
  size_t len = strlen(line);
  int w = display_width(s);
  snprintf(line + len, cap - len, "%s%*s", s, width > w ? width - w : 0, "");
}

/* Prints a line without trailing blanks. */
static void put_trimmed(char* line) {
  size_t len = strlen(line);
  while (len > 0 && line[len - 1] == ' ') line[--len] = '\0';
  puts(line);
}

/* Warnings listed in full up to this many; beyond, the first few and a count. */
enum { kMaxWarnings = 12 };

/* Fills the seven cells of `body`'s row: tree drawing, joint, type, q and v slices, mass, level. */
static void body_row(tree_drawing* drawing, int body, char cells[7][600]) {
  const mbt_tree* tree = drawing->tree;
  const char *jname, *jtype;
  body_joint(tree, body, &jname, &jtype);
  int m = mbt_tree_body_mobilizer(tree, body);
  drawing_cell(drawing, body, cells[0], sizeof(cells[0]));
  snprintf(cells[1], sizeof(cells[1]), "%s", jname);
  snprintf(cells[2], sizeof(cells[2]), "%s", jtype);
  cells[3][0] = cells[4][0] = cells[5][0] = '\0';
  if (m >= 0) {
    slice(cells[3], sizeof(cells[3]), 'q', mbt_mobilizer_position_start_in_q(tree, m),
          mbt_mobilizer_num_positions(tree, m));
    slice(cells[4], sizeof(cells[4]), 'v', mbt_mobilizer_velocity_start_in_v(tree, m),
          mbt_mobilizer_num_velocities(tree, m));
    snprintf(cells[5], sizeof(cells[5]), "%.6g", mbt_tree_body_spatial_inertia(tree, body)->mass);
  }
  snprintf(cells[6], sizeof(cells[6]), "%d", mbt_tree_body_level(tree, body));
}

/* The body table in node order, columns padded to their widest cell: two passes, the first
 * measures the widths, the second prints. */
static void print_body_table(tree_drawing* drawing) {
  const int nb = mbt_tree_num_bodies(drawing->tree);
  const char* headers[] = {"BODY", "JOINT", "TYPE", "Q", "V", "MASS [kg]", "LEVEL"};
  int width[7];
  for (int c = 0; c < 7; ++c) width[c] = display_width(headers[c]);
  char cells[7][600];
  char out[8 * 640];
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      out[0] = '\0';
      for (int c = 0; c < 7; ++c) append_padded(out, sizeof(out), headers[c], width[c] + 2);
      put_trimmed(out);
    }
    for (int node = 0; node < nb; ++node) {
      body_row(drawing, mbt_tree_node_body(drawing->tree, node), cells);
      out[0] = '\0';
      for (int c = 0; c < 7; ++c) {
        if (pass == 0) {
          int w = display_width(cells[c]);
          if (w > width[c]) width[c] = w;
        } else {
          append_padded(out, sizeof(out), cells[c], width[c] + 2);
        }
      }
      if (pass == 1) put_trimmed(out);
    }
  }
}

/* The model's warnings: all of them with --all-warnings or up to kMaxWarnings, else the first
 * kMaxWarnings − 2 and a count. */
static void print_warnings(const mbt_urdf_result* urdf, bool all_warnings) {
  int nw = urdf->num_warnings;
  if (nw == 0) return;
  int shown = all_warnings || nw <= kMaxWarnings ? nw : kMaxWarnings - 2;
  printf("\nwarnings (%d):\n", nw);
  for (int w = 0; w < shown; ++w) printf("  %s\n", urdf->warnings[w]);
  if (shown < nw) printf("  ... and %d more (--all-warnings lists them)\n", nw - shown);
}

/* The counts: bodies, joints per type, floating mobilizers added, nq, nv, height, mass,
 * geometry and warnings. */
static void print_counts(const cli_model* model) {
  const mbt_tree* tree = model->tree;
  int nj = mbt_tree_num_joints(tree);
  int per_type[MBT_JOINT_NUM_TYPES] = {0};
  for (int j = 0; j < nj; ++j) {
    int t = (int)mbt_joint_type_of(tree, j);
    if (t >= 0 && t < MBT_JOINT_NUM_TYPES) per_type[t]++;
  }
  int free_mobilizers = 0;
  for (int m = 0; m < mbt_tree_num_mobilizers(tree); ++m)
    if (mbt_mobilizer_joint(tree, m) < 0) ++free_mobilizers;

  printf("\ncounts:\n");
  printf("  bodies: %d (world included)\n", mbt_tree_num_bodies(tree));
  printf("  joints: %d", nj);
  const char* sep = " (";
  for (int t = 0; t < MBT_JOINT_NUM_TYPES; ++t) {
    if (per_type[t] == 0) continue;
    printf("%s%d %s", sep, per_type[t], mbt_joint_type_to_string((mbt_joint_type)t));
    sep = ", ";
  }
  printf("%s\n", sep[0] == ',' ? ")" : "");
  if (free_mobilizers > 0) printf("  floating mobilizers added at finalize: %d\n", free_mobilizers);
  printf("  nq = %d, nv = %d\n", mbt_tree_num_positions(tree), mbt_tree_num_velocities(tree));
  printf("  tree height: %d (levels, the world is level 0)\n", mbt_tree_height(tree));
  printf("  total mass: %.6g kg\n", mbt_tree_total_mass(tree));
  printf("  geometry: %d visual, %d collision\n", mbt_tree_num_geometries(tree, MBT_ROLE_VISUAL),
         mbt_tree_num_geometries(tree, MBT_ROLE_COLLISION));
  printf("  warnings: %d\n", model->urdf.num_warnings);
}

static int print_text(const cli_model* model, bool all_warnings) {
  tree_drawing drawing;
  if (!drawing_init(&drawing, model->tree)) {
    drawing_free(&drawing);
    cli_error(kCmd, "out of memory");
    return CLI_EXIT_FAILURE;
  }
  printf("robot '%s' from %s%s\n\n", model->urdf.robot_name ? model->urdf.robot_name : "", model->path,
         model->floating ? " (floating base)" : "");
  print_body_table(&drawing);
  drawing_free(&drawing);
  print_warnings(&model->urdf, all_warnings);
  print_counts(model);
  return CLI_EXIT_OK;
}

static cJSON* limits_array(const mbt_real* x, int n) {
  return x ? cli_json_array(x, n) : cJSON_CreateArray();
}

/* Every body: name, index, node, parent, level, mass and the joint that moves it. */
static cJSON* json_bodies(const mbt_tree* tree) {
  cJSON* bodies = cJSON_CreateArray();
  for (int b = 0; b < mbt_tree_num_bodies(tree); ++b) {
    cJSON* o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", mbt_tree_body_name(tree, b));
    cJSON_AddNumberToObject(o, "index", b);
    cJSON_AddNumberToObject(o, "node", mbt_tree_body_node(tree, b));
    int parent = mbt_tree_body_parent(tree, b);
    if (parent >= 0)
      cJSON_AddStringToObject(o, "parent", mbt_tree_body_name(tree, parent));
    else
      cJSON_AddNullToObject(o, "parent");
    cJSON_AddNumberToObject(o, "parent_index", parent);
    cJSON_AddNumberToObject(o, "level", mbt_tree_body_level(tree, b));
    cJSON_AddItemToObject(o, "mass", cli_json_number(mbt_tree_body_spatial_inertia(tree, b)->mass));
    const char *jname, *jtype;
    body_joint(tree, b, &jname, &jtype);
    if (jname[0])
      cJSON_AddStringToObject(o, "joint", jname);
    else
      cJSON_AddNullToObject(o, "joint");
    cJSON_AddItemToArray(bodies, o);
  }
  return bodies;
}

/* Joint j: name, type, bodies, its slices of q and v, limits, effort, damping and friction
 * (effort and friction from the URDF, null where it gives none). */
static cJSON* json_joint(const cli_model* model, int j) {
  const mbt_tree* tree = model->tree;
  cJSON* o = cJSON_CreateObject();
  int jnq = mbt_joint_num_positions(tree, j), jnv = mbt_joint_num_velocities(tree, j);
  cJSON_AddStringToObject(o, "name", mbt_joint_name(tree, j));
  cJSON_AddNumberToObject(o, "index", j);
  cJSON_AddStringToObject(o, "type", mbt_joint_type_name(tree, j));
  cJSON_AddStringToObject(o, "parent", mbt_tree_body_name(tree, mbt_joint_parent_body(tree, j)));
  cJSON_AddStringToObject(o, "child", mbt_tree_body_name(tree, mbt_joint_child_body(tree, j)));
  cJSON_AddNumberToObject(o, "q_start", mbt_joint_position_start(tree, j));
  cJSON_AddNumberToObject(o, "nq", jnq);
  cJSON_AddNumberToObject(o, "v_start", mbt_joint_velocity_start(tree, j));
  cJSON_AddNumberToObject(o, "nv", jnv);
  cJSON* lim = cJSON_AddObjectToObject(o, "limits");
  cJSON_AddItemToObject(lim, "position_lower", limits_array(mbt_joint_position_lower_limits(tree, j), jnq));
  cJSON_AddItemToObject(lim, "position_upper", limits_array(mbt_joint_position_upper_limits(tree, j), jnq));
  cJSON_AddItemToObject(lim, "velocity_lower", limits_array(mbt_joint_velocity_lower_limits(tree, j), jnv));
  cJSON_AddItemToObject(lim, "velocity_upper", limits_array(mbt_joint_velocity_upper_limits(tree, j), jnv));
  bool have_urdf = j < model->urdf.num_joints;
  double effort = have_urdf && model->urdf.joint_effort ? model->urdf.joint_effort[j] : NAN;
  double friction = have_urdf && model->urdf.joint_friction ? model->urdf.joint_friction[j] : NAN;
  cJSON_AddItemToObject(lim, "effort", cli_json_number(effort));
  const mbt_real* d = mbt_joint_default_damping_vector(tree, j);
  cJSON_AddItemToObject(o, "damping", limits_array(d, jnv));
  cJSON_AddItemToObject(o, "friction", cli_json_number(friction));
  return o;
}

/* The names of the nq positions and nv velocities into root; false if out of memory. */
static bool add_state_names(const mbt_tree* tree, cJSON* root) {
  int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  char** qn = cli_state_names(tree, false);
  char** vn = cli_state_names(tree, true);
  const bool ok = qn && vn;
  if (ok) {
    cJSON_AddItemToObject(root, "position_names", cJSON_CreateStringArray((const char* const*)qn, nq));
    cJSON_AddItemToObject(root, "velocity_names", cJSON_CreateStringArray((const char* const*)vn, nv));
  }
  cli_free_names(qn, nq);
  cli_free_names(vn, nv);
  return ok;
}

static int print_json(const cli_model* model) {
  const mbt_tree* tree = model->tree;
  cJSON* root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "model", model->path);
  cJSON_AddStringToObject(root, "robot", model->urdf.robot_name ? model->urdf.robot_name : "");
  cJSON_AddBoolToObject(root, "floating", model->floating);
  cJSON_AddNumberToObject(root, "nq", mbt_tree_num_positions(tree));
  cJSON_AddNumberToObject(root, "nv", mbt_tree_num_velocities(tree));
  cJSON_AddNumberToObject(root, "height", mbt_tree_height(tree));
  cJSON_AddItemToObject(root, "total_mass", cli_json_number(mbt_tree_total_mass(tree)));
  if (!add_state_names(tree, root)) {
    cJSON_Delete(root);
    cli_error(kCmd, "out of memory");
    return CLI_EXIT_FAILURE;
  }
  cJSON_AddItemToObject(root, "bodies", json_bodies(tree));
  cJSON* joints = cJSON_AddArrayToObject(root, "joints");
  for (int j = 0; j < mbt_tree_num_joints(tree); ++j) cJSON_AddItemToArray(joints, json_joint(model, j));
  cJSON* warnings = cJSON_AddArrayToObject(root, "warnings");
  for (int w = 0; w < model->urdf.num_warnings; ++w)
    cJSON_AddItemToArray(warnings, cJSON_CreateString(model->urdf.warnings[w]));

  char* text = cJSON_Print(root);
  cJSON_Delete(root);
  if (!text) {
    cli_error(kCmd, "out of memory");
    return CLI_EXIT_FAILURE;
  }
  puts(text);
  free(text);
  return CLI_EXIT_OK;
}

int mbt_cli_info(int argc, char** argv) {
  cli_model_options mopts = {false, false};
  bool json = false, all_warnings = false;
  const char* path = NULL;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      print_help();
      return CLI_EXIT_OK;
    }
    if (cli_parse_model_option(a, &mopts)) continue;
    if (strcmp(a, "--json") == 0) {
      json = true;
    } else if (strcmp(a, "--all-warnings") == 0) {
      all_warnings = true;
    } else if (!cli_model_argument(kCmd, a, &path)) {
      return CLI_EXIT_USAGE;
    }
  }
  if (!path) {
    cli_error(kCmd, "missing MODEL (a URDF file; see 'mbt info --help')");
    return CLI_EXIT_USAGE;
  }
  cli_model model;
  if (!cli_model_load(kCmd, path, &mopts, &model)) return CLI_EXIT_FAILURE;
  int rc = json ? print_json(&model) : print_text(&model, all_warnings);
  cli_model_free(&model);
  return rc;
}
