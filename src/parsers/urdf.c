/* urdf.c: loading a MultibodyTree from a URDF robot description.
 *
 * The text is read in one streaming pass into element records (xml_elements.h: libxml2 SAX2,
 * no DOM). Then three passes: (1) read every <link> and <joint> into plain records (numbers parsed and
 * checked, warnings for what is not modelled); (2) resolve the joints' link names and the
 * topology (one parent per link, one root, no cycle); (3) add the bodies and joints to a
 * new tree in depth-first pre-order from the root, children in the order of their <joint>
 * elements, and finalize. Every failure frees everything and leaves one message
 * "file:line: <element 'name'>: problem". Conventions: docs/urdf.md. */
#include "mbt/urdf.h"

#include "mbt/geometry.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parsers/decimal.h"
#include "parsers/xml_elements.h"
#include "tree/names.h"
#include "tree/tree_build.h"

typedef mbt_xml_element xnode;

enum { kReadBytes = 1 << 16 }; /* a file is read in pieces of this size */

#define WORLD_NAME "world"
#define ROOT_JOINT_NAME "root_joint"
#define WORLD_WELD_NAME "world_weld"

typedef enum { J_REVOLUTE, J_CONTINUOUS, J_PRISMATIC, J_FIXED, J_FLOATING, J_PLANAR } urdf_joint_type;

static const char* const kJointTypeNames[] = {"revolute", "continuous", "prismatic", "fixed", "floating", "planar"};

typedef struct {
  const char* name;          /* kept with the document (mbt__xml_keep) */
  int line;
  bool has_inertial;
  int inertia_line;
  mbt_spatial_inertia M_BBo_B;
  const char* nonphysical_why; /* kept (keep) if the inertia is non-physical, else NULL: then
                                 loaded only with MBT_URDF_ALLOW_INVALID_INERTIA */
  int parent_joint;          /* -1: none */
  int child_start, num_children;  /* slice of parser.child_joints */
  int body;                  /* tree body index */
  int state;                 /* DFS: 0 unseen, 1 visited */
} urdf_link;

typedef struct {
  const char* name;
  int line;
  urdf_joint_type type;
  const char* parent_name;
  const char* child_name;
  int parent_line, child_line;
  int parent, child;         /* link indices */
  mbt_transform X_PF;
  bool has_origin;
  mbt_vec3 axis;             /* unit */
  mbt_real lower, upper, velocity, effort, damping, friction;
  int tree_joint;
} urdf_joint;

/* A <material> defined at the robot level. */
typedef struct {
  const char* name;
  int line;
  bool has_rgba;
  mbt_real rgba[4];
} urdf_material;

/* A <visual> or <collision> of a link (strings in the element records). */
typedef struct {
  int link;
  int line;
  int material_line;         /* > 0: the colour is the robot-level <material> desc.material's */
  mbt_geometry_role role;
  mbt_geometry_desc desc;
} urdf_geometry;

typedef struct {
  const char* source;
  int flags;
  int status;
  char error[1024];
  char** warnings;
  int num_warnings, cap_warnings;
  urdf_link* links;
  int num_links, cap_links;
  urdf_joint* joints;
  int num_joints, cap_joints;
  int* child_joints;         /* [num_joints] joints grouped by parent link, file order */
  int world_link;            /* -1 if no link is the world */
  char* robot_name;
  urdf_material* materials;
  int num_materials, cap_materials;
  urdf_geometry* geoms;      /* in file order */
  int num_geoms, cap_geoms;
  char** package_names;      /* [num_packages] NAME of NAME=DIR */
  char** package_dirs;
  int num_packages;
  char* model_dir;           /* "" for the current folder */
  mbt_name_table link_names, joint_names, material_names;  /* name -> index (names.h) */
  mbt_xml_document* doc;     /* the text being read: the strings kept (keep) last as long */
  int num_elements;          /* children of <robot> so far */
} parser;

/* ---- messages ---------------------------------------------------------------------------- */
static int fail(parser* p, int status, int line, const char* kind, const char* name, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* Records the first error: "source:line: <kind 'name'>: problem". */
static int fail(parser* p, int status, int line, const char* kind, const char* name, const char* fmt, ...) {
  if (p->status != MBT_OK) return p->status;
  p->status = status;
  int n;
  if (kind && name)
    n = snprintf(p->error, sizeof p->error, "%s:%d: <%s '%s'>: ", p->source, line, kind, name);
  else if (kind)
    n = snprintf(p->error, sizeof p->error, "%s:%d: <%s>: ", p->source, line, kind);
  else if (line > 0)
    n = snprintf(p->error, sizeof p->error, "%s:%d: ", p->source, line);
  else
    n = snprintf(p->error, sizeof p->error, "%s: ", p->source);
  if (n >= 0 && (size_t)n < sizeof p->error) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->error + n, sizeof p->error - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return status;
}

static int no_memory(parser* p) { return fail(p, MBT_ERR_NO_MEMORY, 0, NULL, NULL, "out of memory"); }

static int grow(parser* p, void** array, int* cap, int need, size_t elem) {
  if (need <= *cap) return MBT_OK;
  int n = *cap > 0 ? *cap : 8;
  while (n < need) {
    if (n > INT_MAX / 2) return no_memory(p);
    n *= 2;
  }
  void* a = realloc(*array, (size_t)n * elem);
  if (!a) return no_memory(p);
  *array = a;
  *cap = n;
  return MBT_OK;
}

static int warn(parser* p, int line, const char* kind, const char* name, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* Appends "source:line: <kind 'name'>: text" to the warnings. */
static int warn(parser* p, int line, const char* kind, const char* name, const char* fmt, ...) {
  if (grow(p, (void**)&p->warnings, &p->cap_warnings, p->num_warnings + 1, sizeof(char*))) return p->status;
  char text[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  const char* fmt2 = kind && name ? "%s:%d: <%s '%s'>: %s" : "%s:%d: <%s>: %s";
  int n = kind && name ? snprintf(NULL, 0, fmt2, p->source, line, kind, name, text)
                       : snprintf(NULL, 0, fmt2, p->source, line, kind ? kind : "robot", text);
  char* w = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (!w) return no_memory(p);
  if (kind && name)
    snprintf(w, (size_t)n + 1, fmt2, p->source, line, kind, name, text);
  else
    snprintf(w, (size_t)n + 1, fmt2, p->source, line, kind ? kind : "robot", text);
  p->warnings[p->num_warnings++] = w;
  return MBT_OK;
}

/* The shortest of %.15g and %.17g that reads back as v, for messages. */
typedef struct { char s[32]; } numstr;
static numstr num(double v) {
  numstr n;
  snprintf(n.s, sizeof n.s, "%.15g", v);
  if (strtod(n.s, NULL) != v) snprintf(n.s, sizeof n.s, "%.17g", v);
  return n;
}

/* ---- XML helpers ------------------------------------------------------------------------- */
static int line_of(const xnode* node) { return node->line; }

static bool is_element(const xnode* node, const char* name) { return strcmp(node->name, name) == 0; }

/* The value of attribute `name` (NULL if absent). */
static const char* attr(parser* p, const xnode* node, const char* name) {
  (void)p;
  return mbt__xml_attribute(node, name);
}

/* A copy of an attribute's value that outlasts its element (NULL and an error if out of memory). */
static const char* keep(parser* p, const char* value) {
  const char* k = value ? mbt__xml_keep(p->doc, value) : NULL;
  if (value && !k) no_memory(p);
  return k;
}

/* A required attribute: NULL (and an error) if absent. */
static const char* required_attr(parser* p, const xnode* node, const char* name, const char* kind,
                                 const char* owner, const char* element) {
  const char* v = attr(p, node, name);
  if (!v && p->status == MBT_OK)
    fail(p, MBT_ERR_PARSE, line_of(node), kind, owner, "<%s> is missing the required attribute '%s'", element,
         name);
  return v;
}

/* A name within MBT_URDF_MAX_NAME_LENGTH (the message shows its first 32 bytes). */
static int check_name_length(parser* p, const xnode* node, const char* kind, const char* name) {
  const size_t n = strlen(name);
  if (n <= MBT_URDF_MAX_NAME_LENGTH) return MBT_OK;
  return fail(p, MBT_ERR_LIMIT, line_of(node), kind, NULL,
              "the name '%.32s...' is %zu bytes long, above the limit of %d bytes", name, n,
              MBT_URDF_MAX_NAME_LENGTH);
}

/* ---- numbers ----------------------------------------------------------------------------- */
static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
static const char kSpaces[] = " \t\n\r"; /* XML's white space */

/* Parses exactly `count` whitespace-separated finite numbers from attribute `name` of
 * `node`. `what` names the element ("origin") for the message. */
static int parse_reals(parser* p, const xnode* node, const char* text, const char* name, mbt_real* out, int count,
                       const char* kind, const char* owner, const char* what) {
  const int line = line_of(node);
  int found = 0;
  const char* s = text;
  while (*s) {
    s += strspn(s, kSpaces);
    if (!*s) break;
    const char* e = s + strcspn(s, kSpaces);
    mbt_real v = 0;
    int tok_len = (int)(e - s > 64 ? 64 : e - s);
    if (mbt__decimal_parse(s, e, &v))
      return fail(p, MBT_ERR_PARSE, line, kind, owner, "<%s> attribute '%s': '%.*s' is not a number", what, name,
                  tok_len, s);
    if (!mbt_isfinite(v))
      return fail(p, MBT_ERR_PARSE, line, kind, owner, "<%s> attribute '%s': '%.*s' is not a finite number", what,
                  name, tok_len, s);
    if (found < count) out[found] = v;
    ++found;
    s = e;
  }
  if (found != count)
    return fail(p, MBT_ERR_PARSE, line, kind, owner, "<%s> attribute '%s' has %d number%s, expected %d", what, name,
                found, found == 1 ? "" : "s", count);
  return MBT_OK;
}

/* An optional scalar attribute: *out is left unchanged if absent. */
static int optional_real(parser* p, const xnode* node, const char* name, mbt_real* out, const char* kind,
                         const char* owner, const char* what) {
  const char* text = attr(p, node, name);
  if (!text) return p->status;
  return parse_reals(p, node, text, name, out, 1, kind, owner, what);
}

static int optional_vec3(parser* p, const xnode* node, const char* name, mbt_vec3* out, const char* kind,
                         const char* owner, const char* what) {
  const char* text = attr(p, node, name);
  if (!text) return p->status;
  return parse_reals(p, node, text, name, out->v, 3, kind, owner, what);
}

/* <origin xyz rpy>: X = {R(rpy), xyz}, R = Rz(y)·Ry(p)·Rx(r) (URDF and Drake SpaceXYZ). */
static int parse_origin(parser* p, const xnode* node, mbt_transform* X, const char* kind, const char* owner) {
  mbt_vec3 xyz = mbt_vec3_zero(), rpy = mbt_vec3_zero();
  if (optional_vec3(p, node, "xyz", &xyz, kind, owner, "origin") ||
      optional_vec3(p, node, "rpy", &rpy, kind, owner, "origin"))
    return p->status;
  X->R = mbt_rotation_from_rpy(rpy);
  X->p = xyz;
  return MBT_OK;
}

/* Rejects a second child element of the same name (the value would be ambiguous). */
static int check_once(parser* p, const xnode* seen, const xnode* node, const char* kind, const char* owner) {
  if (!seen) return MBT_OK;
  return fail(p, MBT_ERR_PARSE, line_of(node), kind, owner, "<%s> appears twice (first at line %d)",
              (const char*)node->name, line_of(seen));
}

/* ---- geometry: <visual>, <collision>, <material> ------------------------------------------- */
static int tree_fail(parser* p, const mbt_tree* tree, int status, int line, const char* kind, const char* name);

static char* str_copy_n(const char* s, size_t n) {
  char* c = malloc(n + 1);
  if (c) {
    memcpy(c, s, n);
    c[n] = '\0';
  }
  return c;
}

static char* str_copy(const char* s) { return str_copy_n(s, strlen(s)); }

/* <color rgba>: four numbers in [0, 1]. */
static int parse_color(parser* p, const xnode* node, mbt_real rgba[4], const char* kind, const char* owner) {
  const char* text = required_attr(p, node, "rgba", kind, owner, "color");
  if (!text || parse_reals(p, node, text, "rgba", rgba, 4, kind, owner, "color")) return p->status;
  for (int k = 0; k < 4; ++k)
    if (rgba[k] < 0 || rgba[k] > 1)
      return fail(p, MBT_ERR_INVALID_ARGUMENT, line_of(node), kind, owner,
                  "<color> rgba (%s, %s, %s, %s) is not within [0, 1]", num(rgba[0]).s, num(rgba[1]).s,
                  num(rgba[2]).s, num(rgba[3]).s);
  return MBT_OK;
}

/* The inside of a <material>: its <color> (at most one); <texture> is not kept. */
static int parse_material_content(parser* p, const xnode* node, urdf_material* m, const char* kind,
                                  const char* owner) {
  const xnode* color = NULL;
  for (const xnode* c = node->children; c; c = c->next) {
    if (is_element(c, "color")) {
      if (check_once(p, color, c, kind, owner) || parse_color(p, c, m->rgba, kind, owner)) return p->status;
      color = c;
      m->has_rgba = true;
    } else if (warn(p, line_of(c), kind, owner, "<material><%s> ignored (only colours are kept)",
                    (const char*)c->name)) {
      return p->status;
    }
  }
  return MBT_OK;
}

static int find_material(parser* p, const char* name) {
  (void)mbt__names_sync(&p->material_names, p->materials, sizeof p->materials[0], p->num_materials);
  return mbt__names_find(&p->material_names, p->materials, sizeof p->materials[0], p->num_materials, name);
}

/* A <material name> element of <robot>. */
static int parse_robot_material(parser* p, const xnode* c) {
  const char* name = required_attr(p, c, "name", "material", NULL, "material");
  if (!name) return p->status;
  if (!name[0]) return fail(p, MBT_ERR_PARSE, line_of(c), "material", NULL, "the attribute 'name' is empty");
  const int other = find_material(p, name);
  if (other >= 0)
    return fail(p, MBT_ERR_DUPLICATE, line_of(c), "material", name,
                "a material with this name is already declared at line %d", p->materials[other].line);
  if (grow(p, (void**)&p->materials, &p->cap_materials, p->num_materials + 1, sizeof(urdf_material)))
    return p->status;
  urdf_material m;
  memset(&m, 0, sizeof m);
  m.line = line_of(c);
  if (parse_material_content(p, c, &m, "material", name) || !(m.name = keep(p, name))) return p->status;
  p->materials[p->num_materials++] = m;
  return MBT_OK;
}

/* A visual's <material>: inline <color>, else the robot-level material of that name, which may
 * come later in the file (resolve_materials). */
static int parse_visual_material(parser* p, const xnode* node, urdf_geometry* g, const char* owner) {
  const char* name = attr(p, node, "name");
  mbt_geometry_desc* d = &g->desc;
  urdf_material m;
  memset(&m, 0, sizeof m);
  if (parse_material_content(p, node, &m, "link", owner) || (name && !(d->material = keep(p, name))))
    return p->status;
  if (m.has_rgba || !name || !name[0]) {
    d->has_rgba = m.has_rgba;
    memcpy(d->rgba, m.rgba, sizeof d->rgba);
  } else {
    g->material_line = line_of(node);
  }
  return MBT_OK;
}

/* After the last element: the colours of the visuals that name a robot-level material. */
static int resolve_materials(parser* p) {
  for (int i = 0; i < p->num_geoms; ++i) {
    urdf_geometry* g = &p->geoms[i];
    if (g->material_line <= 0) continue;
    const int k = find_material(p, g->desc.material);
    if (k < 0)
      return fail(p, MBT_ERR_NOT_FOUND, g->material_line, "link", p->links[g->link].name,
                  "<material '%s'> has no <color> and no robot-level <material> of that name", g->desc.material);
    g->desc.has_rgba = p->materials[k].has_rgba;
    memcpy(g->desc.rgba, p->materials[k].rgba, sizeof g->desc.rgba);
  }
  return MBT_OK;
}

/* One required positive dimension of a shape element, e.g. <sphere radius>. */
static int shape_real(parser* p, const xnode* node, const char* name, mbt_real* out, const char* owner) {
  const char* what = (const char*)node->name;
  const char* text = required_attr(p, node, name, "link", owner, what);
  return text ? parse_reals(p, node, text, name, out, 1, "link", owner, what) : p->status;
}

static int parse_shape_element(parser* p, const xnode* s, mbt_geometry_desc* d, const char* owner) {
  mbt_shape* sh = &d->shape;
  if (is_element(s, "box")) {
    *sh = mbt_shape_box(0, 0, 0);
    const char* text = required_attr(p, s, "size", "link", owner, "box");
    return text ? parse_reals(p, s, text, "size", sh->size.v, 3, "link", owner, "box") : p->status;
  }
  if (is_element(s, "sphere")) {
    *sh = mbt_shape_sphere(0);
    return shape_real(p, s, "radius", &sh->radius, owner);
  }
  if (is_element(s, "cylinder") || is_element(s, "capsule")) {
    *sh = is_element(s, "cylinder") ? mbt_shape_cylinder(0, 0) : mbt_shape_capsule(0, 0);
    if (shape_real(p, s, "radius", &sh->radius, owner)) return p->status;
    return shape_real(p, s, "length", &sh->length, owner);
  }
  *sh = mbt_shape_mesh(1, 1, 1);
  const char* file = required_attr(p, s, "filename", "link", owner, "mesh");
  if (!file) return p->status;
  if (!file[0]) return fail(p, MBT_ERR_PARSE, line_of(s), "link", owner, "<mesh> attribute 'filename' is empty");
  if (!(d->mesh_file = keep(p, file))) return p->status;
  return optional_vec3(p, s, "scale", &sh->scale, "link", owner, "mesh");
}

/* <geometry>: exactly one of box, sphere, cylinder, capsule, mesh. */
static int parse_shape(parser* p, const xnode* node, mbt_geometry_desc* d, const char* owner, const char* role) {
  const xnode* shape = NULL;
  for (const xnode* c = node->children; c; c = c->next) {
    if (!(is_element(c, "box") || is_element(c, "sphere") || is_element(c, "cylinder") || is_element(c, "capsule") ||
          is_element(c, "mesh")))
      return fail(p, MBT_ERR_PARSE, line_of(c), "link", owner,
                  "<%s><geometry>: unknown shape <%s> (expected box, sphere, cylinder, capsule or mesh)", role,
                  (const char*)c->name);
    if (shape)
      return fail(p, MBT_ERR_PARSE, line_of(c), "link", owner, "<%s><geometry> has a second shape <%s> (first at line %d)",
                  role, (const char*)c->name, line_of(shape));
    shape = c;
  }
  if (!shape)
    return fail(p, MBT_ERR_PARSE, line_of(node), "link", owner, "<%s><geometry> has no shape", role);
  return parse_shape_element(p, shape, d, owner);
}

/* <visual> or <collision> of link `link`: recorded, added to the tree in pass 3. */
static int parse_geometry(parser* p, const xnode* node, int link) {
  const char* owner = p->links[link].name;
  const bool visual = is_element(node, "visual");
  const char* role = visual ? "visual" : "collision";
  urdf_geometry g;
  memset(&g, 0, sizeof g);
  g.link = link;
  g.line = line_of(node);
  g.role = visual ? MBT_ROLE_VISUAL : MBT_ROLE_COLLISION;
  g.desc = mbt_geometry_desc_default();
  g.desc.name = keep(p, attr(p, node, "name"));
  if (p->status) return p->status;
  const xnode *origin = NULL, *geometry = NULL, *material = NULL;
  for (const xnode* c = node->children; c; c = c->next) {
    const xnode** slot = is_element(c, "origin")                ? &origin
                           : is_element(c, "geometry")            ? &geometry
                           : visual && is_element(c, "material") ? &material
                                                                  : NULL;
    if (slot) {
      if (check_once(p, *slot, c, "link", owner)) return p->status;
      *slot = c;
    } else if (warn(p, line_of(c), "link", owner, "<%s><%s> ignored", role, (const char*)c->name)) {
      return p->status;
    }
  }
  if (!geometry)
    return fail(p, MBT_ERR_PARSE, g.line, "link", owner, "<%s> is missing the required element <geometry>", role);
  if ((origin && parse_origin(p, origin, &g.desc.X_BG, "link", owner)) || parse_shape(p, geometry, &g.desc, owner, role) ||
      (material && parse_visual_material(p, material, &g, owner)))
    return p->status;
  if (grow(p, (void**)&p->geoms, &p->cap_geoms, p->num_geoms + 1, sizeof(urdf_geometry))) return p->status;
  p->geoms[p->num_geoms++] = g;
  return MBT_OK;
}

/* ---- mesh files ---------------------------------------------------------------------------- */
static char* join_path(const char* dir, const char* rest) {
  const size_t n = strlen(dir) + strlen(rest) + 2;
  char* s = malloc(n);
  if (s) snprintf(s, n, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] != '/' ? "/" : "", rest);
  return s;
}

static bool readable(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f) fclose(f);
  return f != NULL;
}

/* Keeps `path` if it is a readable file (*out = path), else frees it. */
static bool take_if_readable(char* path, char** out) {
  if (path && readable(path)) {
    *out = path;
    return true;
  }
  free(path);
  return false;
}

/* package://NAME/REST: DIR/REST of a NAME=DIR package path, then MODEL_DIR/NAME/REST, then
 * ANCESTOR/REST for the nearest ancestor of the model's folder named NAME. */
static bool resolve_package(const parser* p, const char* name, size_t name_len, const char* rest, char** out) {
  for (int k = 0; k < p->num_packages; ++k)
    if (strlen(p->package_names[k]) == name_len && strncmp(p->package_names[k], name, name_len) == 0 &&
        take_if_readable(join_path(p->package_dirs[k], rest), out))
      return true;
  char dir[4096];
  const int n = snprintf(dir, sizeof dir, "%s", p->model_dir);
  if (n < 0 || (size_t)n >= sizeof dir) return false;
  char sub[4096 + 256];
  if (name_len < 256) {
    snprintf(sub, sizeof sub, "%s%s%.*s", dir, dir[0] ? "/" : "", (int)name_len, name);
    if (take_if_readable(join_path(sub, rest), out)) return true;
  }
  for (char* slash = strrchr(dir, '/'); dir[0]; slash = strrchr(dir, '/')) {
    const char* base = slash ? slash + 1 : dir;
    if (strlen(base) == name_len && strncmp(base, name, name_len) == 0) return take_if_readable(join_path(dir, rest), out);
    if (!slash || slash == dir) break;
    *slash = '\0';
  }
  return false;
}

/* The file a mesh name resolves to (malloc'd), or NULL with a warning. */
static char* resolve_mesh(parser* p, const urdf_geometry* g) {
  const char* file = g->desc.mesh_file;
  const char* owner = p->links[g->link].name;
  char* out = NULL;
  if (strncmp(file, "package://", 10) == 0) {
    const char* name = file + 10;
    const char* slash = strchr(name, '/');
    if (slash && slash > name && resolve_package(p, name, (size_t)(slash - name), slash + 1, &out)) return out;
    const int len = slash ? (int)(slash - name) : (int)strlen(name);
    warn(p, g->line, "link", owner,
         "<mesh> '%s': no readable file in a package path '%.*s=DIR', in '%.*s' beside the model, or in an "
         "ancestor folder named so",
         file, len, name, len, name);
    return NULL;
  }
  const bool scheme = strncmp(file, "file://", 7) == 0;
  const char* path = scheme ? file + 7 : file;
  if (take_if_readable(path[0] == '/' ? str_copy(path) : join_path(p->model_dir, path), &out)) return out;
  warn(p, g->line, "link", owner, "<mesh> '%s': no readable file there (relative paths start at '%s')", file,
       p->model_dir[0] ? p->model_dir : ".");
  return NULL;
}

/* Pass 3: the geometry of every link, on its body. */
static int add_geometries(parser* p, mbt_tree* tree) {
  for (int i = 0; i < p->num_geoms && p->status == MBT_OK; ++i) {
    urdf_geometry* g = &p->geoms[i];
    char* path = g->desc.shape.type == MBT_SHAPE_MESH ? resolve_mesh(p, g) : NULL;
    if (p->status) {
      free(path);
      break;
    }
    g->desc.mesh_path = path;
    const int s = mbt_tree_add_geometry(tree, p->links[g->link].body, g->role, &g->desc);
    g->desc.mesh_path = NULL;
    free(path);
    if (s < 0) tree_fail(p, tree, s, g->line, "link", p->links[g->link].name);
  }
  return p->status;
}

/* The package paths "NAME=DIR" and the model's folder. */
static int set_paths(parser* p, const mbt_urdf_options* o, const char* source) {
  const int n = o ? o->num_package_paths : 0;
  if (n > 0 && !o->package_paths) return fail(p, MBT_ERR_INVALID_ARGUMENT, 0, NULL, NULL, "package paths: NULL array");
  if (n > 0) {
    p->package_names = calloc((size_t)n, sizeof(char*));
    p->package_dirs = calloc((size_t)n, sizeof(char*));
    if (!p->package_names || !p->package_dirs) return no_memory(p);
  }
  for (int k = 0; k < n; ++k) {
    const char* spec = o->package_paths[k];
    const char* eq = spec ? strchr(spec, '=') : NULL;
    if (!eq || eq == spec || !eq[1])
      return fail(p, MBT_ERR_INVALID_ARGUMENT, 0, NULL, NULL, "package path '%s': expected NAME=DIR", spec ? spec : "(null)");
    p->package_names[k] = str_copy_n(spec, (size_t)(eq - spec));
    p->package_dirs[k] = str_copy(eq + 1);
    p->num_packages = k + 1;
    if (!p->package_names[k] || !p->package_dirs[k]) return no_memory(p);
  }
  const char* slash = source ? strrchr(source, '/') : NULL;
  if (o && o->base_dir)
    p->model_dir = str_copy(o->base_dir);
  else
    p->model_dir = slash ? str_copy_n(source, slash == source ? 1 : (size_t)(slash - source)) : str_copy("");
  return p->model_dir ? MBT_OK : no_memory(p);
}

/* ---- links ------------------------------------------------------------------------------- */
/* Principal moments of the central inertia I_BBcm: physical iff λ₀ >= 0 and λ₀ + λ₁ >= λ₂
 * (triangle inequality), to the tolerance of the tree's check (1e-12 of the largest). A
 * zero mass requires a zero rotational inertia (a unit inertia I/m does not exist). */
static bool inertia_is_physical(mbt_real mass, const mbt_mat3* I, char* why, size_t n) {
  mbt_vec3 lambda;
  mbt_mat3 V;
  mbt_mat3_symmetric_eigen(I, &lambda, &V);
  const mbt_real l0 = lambda.v[0], l1 = lambda.v[1], l2 = lambda.v[2];
  const mbt_real scale = mbt_max(mbt_abs(l2), mbt_abs(I->m[0][0]) + mbt_abs(I->m[1][1]) + mbt_abs(I->m[2][2]));
  const mbt_real tol = 1e-12 * scale;
  if (mass == 0 && scale > 0) {
    snprintf(why, n, "the mass is zero but the rotational inertia is not (principal moments %.9g, %.9g, %.9g)", l0,
             l1, l2);
    return false;
  }
  if (l0 < -tol) {
    snprintf(why, n, "the inertia has a negative principal moment (principal moments %.9g, %.9g, %.9g)", l0, l1, l2);
    return false;
  }
  if (l0 + l1 < l2 - tol) {
    snprintf(why, n,
             "the principal moments of inertia %.9g, %.9g, %.9g break the triangle inequality (%.9g > %.9g + %.9g)",
             l0, l1, l2, l2, l0, l1);
    return false;
  }
  return true;
}

/* <inertial>: origin (X_BI, the center of mass Bcm and the inertia frame I), mass m and
 * the inertia I_BBcm_I about Bcm in I. The spatial inertia about Bo in B:
 *   I_BBcm_B = R_BI·I_BBcm_I·R_BIᵀ,  G_BBcm_B = I_BBcm_B/m,
 *   G_BBo_B = G_BBcm_B + |p|²·1 − p·pᵀ  with p = p_BoBcm_B (parallel-axis theorem). */
static int parse_inertial(parser* p, const xnode* node, urdf_link* L) {
  const char* K = "link";
  const xnode *origin = NULL, *mass = NULL, *inertia = NULL;
  for (const xnode* c = node->children; c; c = c->next) {
    if (is_element(c, "origin")) {
      if (check_once(p, origin, c, K, L->name)) return p->status;
      origin = c;
    } else if (is_element(c, "mass")) {
      if (check_once(p, mass, c, K, L->name)) return p->status;
      mass = c;
    } else if (is_element(c, "inertia")) {
      if (check_once(p, inertia, c, K, L->name)) return p->status;
      inertia = c;
    } else if (warn(p, line_of(c), K, L->name, "unknown element <inertial><%s> ignored", (const char*)c->name)) {
      return p->status;
    }
  }
  if (!mass)
    return fail(p, MBT_ERR_PARSE, line_of(node), K, L->name, "<inertial> is missing the required element <mass>");
  if (!inertia)
    return fail(p, MBT_ERR_PARSE, line_of(node), K, L->name, "<inertial> is missing the required element <inertia>");
  mbt_transform X_BI = mbt_transform_identity();
  if (origin && parse_origin(p, origin, &X_BI, K, L->name)) return p->status;
  const char* mtext = required_attr(p, mass, "value", K, L->name, "mass");
  mbt_real m = 0;
  if (!mtext || parse_reals(p, mass, mtext, "value", &m, 1, K, L->name, "mass")) return p->status;
  if (m < 0)
    return fail(p, MBT_ERR_INVALID_ARGUMENT, line_of(mass), K, L->name, "<mass> value %s is negative", num(m).s);
  static const char* const names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
  mbt_real v[6];
  for (int k = 0; k < 6; ++k) {
    const char* t = required_attr(p, inertia, names[k], K, L->name, "inertia");
    if (!t || parse_reals(p, inertia, t, names[k], &v[k], 1, K, L->name, "inertia")) return p->status;
  }
  const mbt_mat3 I_I = {{{v[0], v[1], v[2]}, {v[1], v[3], v[4]}, {v[2], v[4], v[5]}}};
  const mbt_mat3 RI = mbt_mat3_mul(&X_BI.R, &I_I);
  const mbt_mat3 I_B = mbt_mat3_mul_t(&RI, &X_BI.R);
  L->has_inertial = true;
  L->inertia_line = line_of(inertia);
  char why[256];
  if (!inertia_is_physical(m, &I_B, why, sizeof why) && !(L->nonphysical_why = keep(p, why))) return p->status;
  const mbt_vec3 c = X_BI.p;
  L->M_BBo_B.mass = m;
  L->M_BBo_B.p_PScm_E = c;
  mbt_unit_inertia G = {0, 0, 0, 0, 0, 0};
  if (m > 0) {
    const mbt_real cc = mbt_vec3_dot(c, c);
    G.xx = I_B.m[0][0] / m + cc - c.v[0] * c.v[0];
    G.yy = I_B.m[1][1] / m + cc - c.v[1] * c.v[1];
    G.zz = I_B.m[2][2] / m + cc - c.v[2] * c.v[2];
    G.xy = I_B.m[0][1] / m - c.v[0] * c.v[1];
    G.xz = I_B.m[0][2] / m - c.v[0] * c.v[2];
    G.yz = I_B.m[1][2] / m - c.v[1] * c.v[2];
  }
  L->M_BBo_B.G_SP_E = G;
  return MBT_OK;
}

/* Hash lookups: loading n links and joints costs O(n), not O(n²). */
static int find_link(parser* p, const char* name) {
  (void)mbt__names_sync(&p->link_names, p->links, sizeof p->links[0], p->num_links);
  return mbt__names_find(&p->link_names, p->links, sizeof p->links[0], p->num_links, name);
}

static int find_joint(parser* p, const char* name) {
  (void)mbt__names_sync(&p->joint_names, p->joints, sizeof p->joints[0], p->num_joints);
  return mbt__names_find(&p->joint_names, p->joints, sizeof p->joints[0], p->num_joints, name);
}

static urdf_link* new_link(parser* p, const char* name, int line) {
  if (grow(p, (void**)&p->links, &p->cap_links, p->num_links + 1, sizeof(urdf_link))) return NULL;
  urdf_link* L = &p->links[p->num_links++];
  memset(L, 0, sizeof *L);
  L->name = name;
  L->line = line;
  L->parent_joint = -1;
  L->body = -1;
  return L;
}

static int parse_link(parser* p, const xnode* node) {
  const char* name = required_attr(p, node, "name", "link", NULL, "link");
  if (!name) return p->status;
  if (!name[0]) return fail(p, MBT_ERR_PARSE, line_of(node), "link", NULL, "the attribute 'name' is empty");
  if (check_name_length(p, node, "link", name)) return p->status;
  const int other = find_link(p, name);
  if (other >= 0)
    return fail(p, MBT_ERR_DUPLICATE, line_of(node), "link", name, "a link with this name is already declared at line %d",
                p->links[other].line);
  const char* kept = keep(p, name);
  urdf_link* L = kept ? new_link(p, kept, line_of(node)) : NULL;
  if (!L) return p->status;
  const int index = p->num_links - 1;
  const xnode* inertial = NULL;
  for (const xnode* c = node->children; c; c = c->next) {
    L = &p->links[index];
    if (is_element(c, "inertial")) {
      if (check_once(p, inertial, c, "link", name) || parse_inertial(p, c, L)) return p->status;
      inertial = c;
    } else if (is_element(c, "visual") || is_element(c, "collision")) {
      if (parse_geometry(p, c, index)) return p->status;
    } else if (warn(p, line_of(c), "link", name, "unknown element <%s> ignored", (const char*)c->name)) {
      return p->status;
    }
  }
  return MBT_OK;
}

/* ---- joints ------------------------------------------------------------------------------ */
static bool joint_uses_axis(urdf_joint_type t) {
  return t == J_REVOLUTE || t == J_CONTINUOUS || t == J_PRISMATIC || t == J_PLANAR;
}

static int parse_link_ref(parser* p, const xnode* c, const char* name, const char** out, int* line) {
  const char* v = required_attr(p, c, "link", "joint", name, (const char*)c->name);
  if (!v) return p->status;
  if (!v[0])
    return fail(p, MBT_ERR_PARSE, line_of(c), "joint", name, "<%s> attribute 'link' is empty", (const char*)c->name);
  *out = keep(p, v);
  *line = line_of(c);
  return MBT_OK;
}

/* The type attribute of a <joint> as a urdf_joint_type, or -1 with an error. */
static int parse_joint_type(parser* p, const xnode* node, const char* name) {
  const char* type = required_attr(p, node, "type", "joint", name, "joint");
  if (!type) return -1;
  for (int k = 0; k < (int)(sizeof kJointTypeNames / sizeof kJointTypeNames[0]); ++k)
    if (strcmp(type, kJointTypeNames[k]) == 0) return k;
  fail(p, MBT_ERR_PARSE, line_of(node), "joint", name,
       "unknown joint type '%s' (expected revolute, continuous, prismatic, fixed, floating or planar)", type);
  return -1;
}

/* The elements of a <joint> it reads, each at most once; NULL where absent. */
typedef struct {
  const xnode *origin, *parent, *child, *axis, *limit, *dynamics;
} joint_elements;

/* Sorts the children of a <joint> into e; warns about those not modelled. */
static int find_joint_elements(parser* p, const xnode* node, const char* name, joint_elements* e) {
  const char* K = "joint";
  memset(e, 0, sizeof *e);
  for (const xnode* c = node->children; c; c = c->next) {
    const xnode** slot = is_element(c, "origin")     ? &e->origin
                           : is_element(c, "parent")   ? &e->parent
                           : is_element(c, "child")    ? &e->child
                           : is_element(c, "axis")     ? &e->axis
                           : is_element(c, "limit")    ? &e->limit
                           : is_element(c, "dynamics") ? &e->dynamics
                                                       : NULL;
    if (slot) {
      if (check_once(p, *slot, c, K, name)) return p->status;
      *slot = c;
    } else if (is_element(c, "mimic")) {
      if (warn(p, line_of(c), K, name, "<mimic> ignored: the joint is an independent degree of freedom"))
        return p->status;
    } else if (is_element(c, "calibration") || is_element(c, "safety_controller")) {
      if (warn(p, line_of(c), K, name, "<%s> ignored (not modelled in dynamics)", (const char*)c->name))
        return p->status;
    } else if (warn(p, line_of(c), K, name, "unknown element <%s> ignored", (const char*)c->name)) {
      return p->status;
    }
  }
  return MBT_OK;
}

/* <axis xyz>: only the direction is used (seed RevoluteJoint); below √ε there is none, an
 * error for a joint that uses the axis. */
static int parse_joint_axis(parser* p, const xnode* axis, urdf_joint* J) {
  const char* text = required_attr(p, axis, "xyz", "joint", J->name, "axis");
  mbt_vec3 a;
  if (!text || parse_reals(p, axis, text, "xyz", a.v, 3, "joint", J->name, "axis")) return p->status;
  const mbt_real n = mbt_vec3_norm(a);
  if (!joint_uses_axis(J->type)) return MBT_OK;
  if (!(n >= mbt_sqrt(DBL_EPSILON)))
    return fail(p, MBT_ERR_INVALID_ARGUMENT, line_of(axis), "joint", J->name,
                "<axis> xyz (%g, %g, %g) is the zero vector: a %s joint needs a direction", a.v[0], a.v[1], a.v[2],
                kJointTypeNames[J->type]);
  J->axis = mbt_vec3_scale(a, 1 / n);
  return MBT_OK;
}

/* <limit lower upper velocity effort>: position limits of revolute and prismatic joints
 * (lower = upper = 0 means none), velocity = 0 means no velocity limit; no negative
 * velocity or effort. */
static int parse_joint_limit(parser* p, const xnode* limit, urdf_joint* J) {
  const char *K = "joint", *name = J->name;
  mbt_real lower = -INFINITY, upper = INFINITY;
  if (optional_real(p, limit, "lower", &lower, K, name, "limit") ||
      optional_real(p, limit, "upper", &upper, K, name, "limit") ||
      optional_real(p, limit, "velocity", &J->velocity, K, name, "limit") ||
      optional_real(p, limit, "effort", &J->effort, K, name, "limit"))
    return p->status;
  if (J->type == J_REVOLUTE || J->type == J_PRISMATIC) {
    if (lower > upper)
      return fail(p, MBT_ERR_INVALID_ARGUMENT, line_of(limit), K, name, "<limit> lower %s is above upper %s",
                  num(lower).s, num(upper).s);
    /* lower = upper = 0 is what urdfdom reads when the attributes are left at their
     * defaults; a joint that cannot move would be a weld, so it means "no limit". */
    if (lower == 0 && upper == 0) {
      if (warn(p, line_of(limit), K, name, "<limit> lower = upper = 0 read as no position limit")) return p->status;
    } else {
      J->lower = lower;
      J->upper = upper;
    }
  }
  if (J->velocity == 0) {
    J->velocity = INFINITY;
    if (warn(p, line_of(limit), K, name, "<limit> velocity = 0 read as no velocity limit")) return p->status;
  }
  if (J->velocity < 0)
    return fail(p, MBT_ERR_INVALID_ARGUMENT, line_of(limit), K, name, "<limit> velocity %s is negative",
                num(J->velocity).s);
  if (J->effort < 0)
    return fail(p, MBT_ERR_INVALID_ARGUMENT, line_of(limit), K, name, "<limit> effort %s is negative", num(J->effort).s);
  return MBT_OK;
}

/* <dynamics damping friction>, neither negative. */
static int parse_joint_dynamics(parser* p, const xnode* dynamics, urdf_joint* J) {
  const char *K = "joint", *name = J->name;
  if (optional_real(p, dynamics, "damping", &J->damping, K, name, "dynamics") ||
      optional_real(p, dynamics, "friction", &J->friction, K, name, "dynamics"))
    return p->status;
  if (J->damping < 0)
    return fail(p, MBT_ERR_INVALID_ARGUMENT, line_of(dynamics), K, name, "<dynamics> damping %s is negative",
                num(J->damping).s);
  if (J->friction < 0)
    return fail(p, MBT_ERR_INVALID_ARGUMENT, line_of(dynamics), K, name, "<dynamics> friction %s is negative",
                num(J->friction).s);
  return MBT_OK;
}

/* A <joint>'s record before its elements are read: no links, identity origin, x axis, no limits. */
static void init_joint(urdf_joint* J, const char* name, int line, urdf_joint_type type) {
  memset(J, 0, sizeof *J);
  J->name = name;
  J->line = line;
  J->type = type;
  J->parent = J->child = -1;
  J->X_PF = mbt_transform_identity();
  J->axis = mbt_vec3_make(1, 0, 0);
  J->lower = -INFINITY;
  J->upper = INFINITY;
  J->velocity = INFINITY;
  J->effort = INFINITY;
  J->tree_joint = -1;
}

static int parse_joint(parser* p, const xnode* node) {
  const char* K = "joint";
  const char* name = required_attr(p, node, "name", K, NULL, "joint");
  if (!name) return p->status;
  if (!name[0]) return fail(p, MBT_ERR_PARSE, line_of(node), K, NULL, "the attribute 'name' is empty");
  if (check_name_length(p, node, K, name)) return p->status;
  const int other = find_joint(p, name);
  if (other >= 0)
    return fail(p, MBT_ERR_DUPLICATE, line_of(node), K, name, "a joint with this name is already declared at line %d",
                p->joints[other].line);
  const int t = parse_joint_type(p, node, name);
  if (t < 0) return p->status;
  if (grow(p, (void**)&p->joints, &p->cap_joints, p->num_joints + 1, sizeof(urdf_joint))) return p->status;
  const char* kept = keep(p, name);
  if (!kept) return p->status;
  urdf_joint J;
  init_joint(&J, kept, line_of(node), (urdf_joint_type)t);
  joint_elements e;
  if (find_joint_elements(p, node, name, &e)) return p->status;
  if (!e.parent) return fail(p, MBT_ERR_PARSE, J.line, K, name, "missing the required element <parent>");
  if (!e.child) return fail(p, MBT_ERR_PARSE, J.line, K, name, "missing the required element <child>");
  if (parse_link_ref(p, e.parent, name, &J.parent_name, &J.parent_line) ||
      parse_link_ref(p, e.child, name, &J.child_name, &J.child_line))
    return p->status;
  if (e.origin) {
    if (parse_origin(p, e.origin, &J.X_PF, K, name)) return p->status;
    J.has_origin = true;
  }
  if ((e.axis && parse_joint_axis(p, e.axis, &J)) || (e.limit && parse_joint_limit(p, e.limit, &J)) ||
      (e.dynamics && parse_joint_dynamics(p, e.dynamics, &J)))
    return p->status;
  p->joints[p->num_joints++] = J;
  return MBT_OK;
}

/* ---- pass 1: the document, one child of <robot> at a time ------------------------------------ */
/* <robot name>, at its first child (or at its end if it has none). */
static int begin_robot(parser* p, const xnode* robot) {
  if (p->robot_name || p->status) return p->status;
  const char* name = attr(p, robot, "name");
  if (name && check_name_length(p, robot, "robot", name)) return p->status;
  p->robot_name = malloc(name ? strlen(name) + 1 : 1);
  if (!p->robot_name) return no_memory(p);
  strcpy(p->robot_name, name ? name : "");
  return MBT_OK;
}

/* A complete child `c` of the root element, as soon as its end tag is read (xml_elements.h). */
static void on_robot_child(void* user, mbt_xml_document* doc, const xnode* robot, const xnode* c) {
  parser* p = user;
  p->doc = doc;
  if (!is_element(robot, "robot") || begin_robot(p, robot)) return;
  if (++p->num_elements > MBT_URDF_MAX_ELEMENTS) {
    fail(p, MBT_ERR_LIMIT, line_of(c), "robot", p->robot_name[0] ? p->robot_name : NULL,
         "more than %d elements, the limit", MBT_URDF_MAX_ELEMENTS);
  } else if (is_element(c, "link")) {
    parse_link(p, c);
  } else if (is_element(c, "joint")) {
    parse_joint(p, c);
  } else if (is_element(c, "material")) {
    parse_robot_material(p, c);
  } else if (is_element(c, "transmission") || is_element(c, "gazebo")) {
    const char* n = attr(p, c, "name");
    if (n && n[0]) warn(p, line_of(c), (const char*)c->name, n, "ignored (not modelled in dynamics)");
    else warn(p, line_of(c), (const char*)c->name, NULL, "ignored (not modelled in dynamics)");
  } else {
    warn(p, line_of(c), "robot", p->robot_name[0] ? p->robot_name : NULL, "unknown element <%s> ignored",
         (const char*)c->name);
  }
}

/* After the end tag of <robot>. */
static int end_robot(parser* p, const xnode* robot) {
  if (begin_robot(p, robot)) return p->status;
  if (p->num_links == 0)
    return fail(p, MBT_ERR_PARSE, line_of(robot), "robot", p->robot_name, "the robot has no <link>");
  return resolve_materials(p);
}

/* ---- pass 2: topology -------------------------------------------------------------------- */
/* Each joint's parent and child link by name (a parent named "world" may be undeclared: the
 * world link is then added); every link has at most one parent, no joint joins a link to
 * itself or has the world as its child. */
static int link_joints(parser* p) {
  p->world_link = find_link(p, WORLD_NAME);
  for (int j = 0; j < p->num_joints; ++j) {
    urdf_joint* J = &p->joints[j];
    int parent = find_link(p, J->parent_name);
    if (parent < 0 && strcmp(J->parent_name, WORLD_NAME) == 0) {
      /* A joint may name the world without declaring a "world" link. */
      urdf_link* W = new_link(p, p->joints[j].parent_name, J->parent_line);
      if (!W) return p->status;
      J = &p->joints[j];
      parent = p->world_link = p->num_links - 1;
    }
    if (parent < 0)
      return fail(p, MBT_ERR_NOT_FOUND, J->parent_line, "joint", J->name, "<parent> link '%s' is not a link of the robot",
                  J->parent_name);
    const int child = find_link(p, J->child_name);
    if (child < 0)
      return fail(p, MBT_ERR_NOT_FOUND, J->child_line, "joint", J->name, "<child> link '%s' is not a link of the robot",
                  J->child_name);
    if (child == p->world_link)
      return fail(p, MBT_ERR_TOPOLOGY, J->child_line, "joint", J->name,
                  "<child> link 'world' is the world body and cannot be a joint's child");
    if (child == parent)
      return fail(p, MBT_ERR_TOPOLOGY, J->child_line, "joint", J->name,
                  "joins link '%s' to itself (a cycle)", J->child_name);
    urdf_link* C = &p->links[child];
    if (C->parent_joint >= 0)
      return fail(p, MBT_ERR_TOPOLOGY, J->child_line, "joint", J->name,
                  "link '%s' has two parents: it is already the child of joint '%s' (line %d)", C->name,
                  p->joints[C->parent_joint].name, p->joints[C->parent_joint].line);
    C->parent_joint = j;
    J->parent = parent;
    J->child = child;
  }
  return MBT_OK;
}

/* Children of each link in the order of their <joint> elements: link i's child joints are
 * child_joints[child_start, child_start + num_children). */
static int group_child_joints(parser* p) {
  p->child_joints = malloc((size_t)(p->num_joints > 0 ? p->num_joints : 1) * sizeof(int));
  if (!p->child_joints) return no_memory(p);
  for (int j = 0; j < p->num_joints; ++j) p->links[p->joints[j].parent].num_children++;
  int slot = 0;
  for (int i = 0; i < p->num_links; ++i) {
    p->links[i].child_start = slot;
    slot += p->links[i].num_children;
    p->links[i].num_children = 0;
  }
  for (int j = 0; j < p->num_joints; ++j) {
    urdf_link* P = &p->links[p->joints[j].parent];
    p->child_joints[P->child_start + P->num_children++] = j;
  }
  return MBT_OK;
}

/* Marks (state = 1) every link reached depth-first from root. */
static int mark_reachable(parser* p, int root) {
  int* stack = malloc((size_t)p->num_links * sizeof(int));
  if (!stack) return no_memory(p);
  int top = 0;
  stack[top++] = root;
  while (top > 0) {
    urdf_link* L = &p->links[stack[--top]];
    L->state = 1;
    for (int k = 0; k < L->num_children; ++k) stack[top++] = p->joints[p->child_joints[L->child_start + k]].child;
  }
  free(stack);
  return MBT_OK;
}

/* The error for link i, which lies on a cycle: walk up the parents until a link repeats
 * (Floyd's two pointers), then name the links around the cycle. */
static int fail_cycle(parser* p, int i) {
  int slow = i, fast = i;
  do {
    slow = p->joints[p->links[slow].parent_joint].parent;
    fast = p->joints[p->links[fast].parent_joint].parent;
    fast = p->joints[p->links[fast].parent_joint].parent;
  } while (slow != fast);
  char path[512];
  size_t n = 0;
  int k = slow;
  do {
    int w = snprintf(path + n, sizeof path - n, "'%s' <- ", p->links[k].name);
    if (w < 0 || (size_t)w >= sizeof path - n) break;
    n += (size_t)w;
    k = p->joints[p->links[k].parent_joint].parent;
  } while (k != slow);
  snprintf(path + n, sizeof path - n, "'%s'", p->links[slow].name);
  const urdf_joint* J = &p->joints[p->links[slow].parent_joint];
  return fail(p, MBT_ERR_TOPOLOGY, J->line, "joint", J->name, "the joints form a cycle: links %s", path);
}

static int resolve_topology(parser* p) {
  if (link_joints(p) || group_child_joints(p)) return p->status;
  /* Roots: the links that are no joint's child. With a world link, that is the world alone. */
  int num_roots = 0, first = -1, second = -1;
  for (int i = 0; i < p->num_links; ++i)
    if (p->links[i].parent_joint < 0) {
      if (num_roots == 0) first = i;
      if (num_roots == 1) second = i;
      ++num_roots;
    }
  if (num_roots > 1) {
    const urdf_link* B = &p->links[second];
    return fail(p, MBT_ERR_TOPOLOGY, B->line, "link", B->name,
                "the robot has %d root links (links that are no joint's child), '%s' (line %d) and '%s'; "
                "connect them with joints",
                num_roots, p->links[first].name, p->links[first].line, B->name);
  }
  /* Depth-first from the root: any link not reached lies on a cycle (each link has at
   * most one parent and there is at most one root). */
  if (num_roots == 1 && mark_reachable(p, first)) return p->status;
  for (int i = 0; i < p->num_links; ++i)
    if (!p->links[i].state) return fail_cycle(p, i);
  if (num_roots == 0) return fail(p, MBT_ERR_TOPOLOGY, 0, NULL, NULL, "the robot has no root link");
  return MBT_OK;
}

/* The root link (the only link that is no joint's child). */
static int root_link(const parser* p) {
  for (int i = 0; i < p->num_links; ++i)
    if (p->links[i].parent_joint < 0) return i;
  return -1;
}

/* ---- pass 3: the tree -------------------------------------------------------------------- */
/* R with R·ẑ = â (the rotation about ẑ × â by the angle between them). */
static mbt_mat3 rotation_z_to(mbt_vec3 a) {
  const mbt_vec3 z = mbt_vec3_make(0, 0, 1);
  const mbt_vec3 k = mbt_vec3_cross(z, a);
  const mbt_real s = mbt_vec3_norm(k), c = mbt_vec3_dot(z, a);
  if (s == 0) return c > 0 ? mbt_mat3_identity() : mbt_rotation_x(3.14159265358979323846);
  return mbt_rotation_from_axis_angle(mbt_vec3_scale(k, 1 / s), mbt_atan2(s, c));
}

static bool transform_is_identity(const mbt_transform* X) {
  const mbt_transform I = mbt_transform_identity();
  return memcmp(&X->R, &I.R, sizeof I.R) == 0 && X->p.v[0] == 0 && X->p.v[1] == 0 && X->p.v[2] == 0;
}

static int tree_fail(parser* p, const mbt_tree* tree, int status, int line, const char* kind, const char* name) {
  return fail(p, status, line, kind, name, "%s", mbt_tree_last_error(tree));
}

static int add_joint(parser* p, mbt_tree* tree, urdf_joint* J) {
  const int P = J->parent == p->world_link ? mbt_tree_world_body(tree) : p->links[J->parent].body;
  const int B = p->links[J->child].body;
  const mbt_transform* X_PF = transform_is_identity(&J->X_PF) ? NULL : &J->X_PF;
  int j = -1;
  switch (J->type) {
    case J_REVOLUTE:
      j = mbt_tree_add_revolute_joint_with_limits(tree, J->name, P, X_PF, B, NULL, J->axis, J->lower, J->upper,
                                                  J->damping);
      break;
    case J_CONTINUOUS:
      j = mbt_tree_add_revolute_joint(tree, J->name, P, X_PF, B, NULL, J->axis, J->damping);
      break;
    case J_PRISMATIC:
      j = mbt_tree_add_prismatic_joint(tree, J->name, P, X_PF, B, NULL, J->axis, J->damping);
      if (j >= 0 && (J->lower != -INFINITY || J->upper != INFINITY) &&
          mbt_joint_set_position_limits(tree, j, &J->lower, &J->upper, 1))
        return tree_fail(p, tree, MBT_ERR_INVALID_ARGUMENT, J->line, "joint", J->name);
      break;
    case J_FIXED:
      j = mbt_tree_add_weld_joint(tree, J->name, P, X_PF, B, NULL);
      break;
    case J_FLOATING: {
      const mbt_real d[6] = {J->damping, J->damping, J->damping, J->damping, J->damping, J->damping};
      j = mbt_tree_add_quaternion_floating_joint(tree, J->name, P, X_PF, B, NULL, d);
      break;
    }
    case J_PLANAR: {
      /* URDF: motion in the plane normal to the axis. The planar joint moves in F's xy
       * plane, so F and M are the joint frame turned by R_JF with R_JF·ẑ = â:
       * X_PF = X_PJ·R_JF, X_BM = R_JF (B is the joint frame J at q = 0). */
      const mbt_transform X_JF = {rotation_z_to(J->axis), {{0, 0, 0}}};
      const mbt_transform X_PF2 = mbt_transform_compose(&J->X_PF, &X_JF);
      const mbt_real d[3] = {J->damping, J->damping, J->damping};
      j = mbt_tree_add_planar_joint(tree, J->name, P, &X_PF2, B, &X_JF, d);
      break;
    }
  }
  if (j < 0) return tree_fail(p, tree, j, J->line, "joint", J->name);
  if (J->type != J_FIXED && J->type != J_FLOATING && J->type != J_PLANAR && J->velocity != INFINITY) {
    const mbt_real lo = -J->velocity, hi = J->velocity;
    if (mbt_joint_set_velocity_limits(tree, j, &lo, &hi, 1))
      return tree_fail(p, tree, MBT_ERR_INVALID_ARGUMENT, J->line, "joint", J->name);
  }
  J->tree_joint = j;
  return MBT_OK;
}

/* The tree's arrays and name tables at their final sizes, allocated once: a body per link but
 * the world, a frame per body, per joint with an origin and two per planar joint (add_joint). */
static int reserve_tree(parser* p, mbt_tree* tree, bool extra_joint) {
  const int bodies = p->num_links - (p->world_link >= 0 ? 1 : 0);
  const int joints = p->num_joints + (extra_joint ? 1 : 0);
  int frames = bodies;
  for (int j = 0; j < p->num_joints; ++j) {
    const urdf_joint* J = &p->joints[j];
    frames += J->type == J_PLANAR ? 2 : !transform_is_identity(&J->X_PF);
  }
  return mbt__tree_reserve_model(tree, bodies, frames, joints, joints) ? no_memory(p) : MBT_OK;
}

/* The joint that attaches the root link to the world: none if the root is the world link,
 * else a quaternion-floating joint (MBT_URDF_FLOATING) or a weld, with a reserved name no
 * <joint> may take. *extra is its name or NULL. */
static int root_attachment(parser* p, int root, bool floating, const char** extra) {
  *extra = NULL;
  if (root != p->world_link) *extra = floating ? ROOT_JOINT_NAME : WORLD_WELD_NAME;
  if (floating && root == p->world_link) {
    const urdf_link* W = &p->links[p->world_link];
    return fail(p, MBT_ERR_INVALID_ARGUMENT, W->line, "link", W->name,
                "the robot is attached to the world by its link 'world', so it has no free root link to float "
                "(MBT_URDF_FLOATING, --floating); load it without that option");
  }
  if (*extra && find_joint(p, *extra) >= 0) {
    const urdf_joint* J = &p->joints[find_joint(p, *extra)];
    return fail(p, MBT_ERR_DUPLICATE, J->line, "joint", J->name,
                "this name is reserved for the joint that attaches the root link '%s' to the world",
                p->links[root].name);
  }
  return MBT_OK;
}

/* The links in depth-first pre-order from the root, children in file order, into order
 * (num_links); stack holds num_links. Returns how many. */
static int link_order(const parser* p, int root, int* order, int* stack) {
  int n = 0, top = 0;
  stack[top++] = root;
  while (top > 0) {
    const int i = stack[--top];
    order[n++] = i;
    const urdf_link* L = &p->links[i];
    for (int k = L->num_children - 1; k >= 0; --k) stack[top++] = p->joints[p->child_joints[L->child_start + k]].child;
  }
  return n;
}

/* The body of link L (the world link is the world body). A non-physical inertia is an error,
 * or with MBT_URDF_ALLOW_INVALID_INERTIA a warning and the inertia loaded as written. */
static int add_body(parser* p, mbt_tree* tree, urdf_link* L, bool is_world) {
  if (is_world) {
    L->body = mbt_tree_world_body(tree);
    if (L->has_inertial && L->M_BBo_B.mass != 0)
      warn(p, L->inertia_line, "link", L->name, "the world link's <inertial> is ignored (the world body has no mass)");
    return p->status;
  }
  const int line = L->has_inertial ? L->inertia_line : L->line;
  const bool allow = (p->flags & MBT_URDF_ALLOW_INVALID_INERTIA) != 0;
  int b;
  if (L->nonphysical_why) {
    if (!allow) return fail(p, MBT_ERR_NONPHYSICAL, line, "link", L->name, "non-physical inertia: %s", L->nonphysical_why);
    if (warn(p, line, "link", L->name, "non-physical inertia loaded as written: %s", L->nonphysical_why))
      return p->status;
    b = mbt_tree_add_rigid_body_unchecked(tree, L->name, &L->M_BBo_B);
  } else {
    b = mbt_tree_add_rigid_body(tree, L->name, &L->M_BBo_B);
    if (b == MBT_ERR_NONPHYSICAL && allow) {
      if (warn(p, line, "link", L->name, "non-physical inertia loaded as written: %s", mbt_tree_last_error(tree)))
        return p->status;
      b = mbt_tree_add_rigid_body_unchecked(tree, L->name, &L->M_BBo_B);
    }
  }
  if (b < 0) return tree_fail(p, tree, b, line, "link", L->name);
  L->body = b;
  return MBT_OK;
}

/* The bodies in `order` (order[0] is the root), the joint `extra` (if any) attaching the root
 * to the world, then each link's parent joint, the geometry, and finalize. */
static int add_model(parser* p, mbt_tree* tree, const int* order, int n, const char* extra, bool floating) {
  for (int k = 0; k < n && p->status == MBT_OK; ++k) add_body(p, tree, &p->links[order[k]], order[k] == p->world_link);
  if (p->status == MBT_OK && extra) {
    const urdf_link* R = &p->links[order[0]];
    const int world = mbt_tree_world_body(tree);
    const int j = floating ? mbt_tree_add_quaternion_floating_joint(tree, extra, world, NULL, R->body, NULL, NULL)
                           : mbt_tree_add_weld_joint(tree, extra, world, NULL, R->body, NULL);
    if (j < 0) tree_fail(p, tree, j, R->line, "link", R->name);
  }
  for (int k = 0; k < n && p->status == MBT_OK; ++k) {
    const urdf_link* L = &p->links[order[k]];
    if (L->parent_joint >= 0) add_joint(p, tree, &p->joints[L->parent_joint]);
  }
  if (p->status == MBT_OK) add_geometries(p, tree);
  if (p->status == MBT_OK) {
    const int s = mbt_tree_finalize(tree);
    if (s) fail(p, s, 0, NULL, NULL, "%s", mbt_tree_last_error(tree));
  }
  return p->status;
}

/* Each tree joint's friction and effort limit from its <joint> (0 and ∞ for a joint that no
 * <joint> made). */
static int copy_joint_data(parser* p, const mbt_tree* tree, mbt_urdf_result* result) {
  const int nj = mbt_tree_num_joints(tree);
  result->joint_friction = malloc((size_t)(nj > 0 ? nj : 1) * sizeof(mbt_real));
  result->joint_effort = malloc((size_t)(nj > 0 ? nj : 1) * sizeof(mbt_real));
  if (!result->joint_friction || !result->joint_effort) return no_memory(p);
  result->num_joints = nj;
  for (int j = 0; j < nj; ++j) {
    result->joint_friction[j] = 0;
    result->joint_effort[j] = INFINITY;
  }
  for (int i = 0; i < p->num_joints; ++i) {
    const urdf_joint* J = &p->joints[i];
    if (J->tree_joint < 0 || J->tree_joint >= nj) continue;
    result->joint_friction[J->tree_joint] = J->friction;
    result->joint_effort[J->tree_joint] = J->effort;
  }
  return MBT_OK;
}

static int build_tree(parser* p, mbt_urdf_result* result) {
  const int root = root_link(p);
  const bool floating = (p->flags & MBT_URDF_FLOATING) != 0;
  const char* extra = NULL;
  if (root_attachment(p, root, floating, &extra)) return p->status;
  int* order = malloc((size_t)p->num_links * sizeof(int));
  int* stack = malloc((size_t)p->num_links * sizeof(int));
  mbt_tree* tree = mbt_tree_create();
  if (!order || !stack || !tree) {
    no_memory(p);
  } else if (reserve_tree(p, tree, extra != NULL) == MBT_OK) {
    const int n = link_order(p, root, order, stack);
    if (add_model(p, tree, order, n, extra, floating) == MBT_OK) copy_joint_data(p, tree, result);
  }
  free(order);
  free(stack);
  if (p->status != MBT_OK) {
    mbt_tree_destroy(tree);
    return p->status;
  }
  result->tree = tree;
  return MBT_OK;
}

/* ---- entry points ------------------------------------------------------------------------ */
static void parser_free(parser* p) {
  for (int i = 0; i < p->num_warnings; ++i) free(p->warnings[i]);
  free(p->warnings);
  free(p->links);
  free(p->joints);
  free(p->child_joints);
  free(p->robot_name);
  free(p->materials);
  free(p->geoms);
  for (int k = 0; k < p->num_packages; ++k) {
    free(p->package_names[k]);
    free(p->package_dirs[k]);
  }
  free(p->package_names);
  free(p->package_dirs);
  free(p->model_dir);
  mbt__names_free(&p->link_names);
  mbt__names_free(&p->joint_names);
  mbt__names_free(&p->material_names);
}

static bool all_space(const char* s, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!is_space(s[i])) return false;
  return true;
}

/* An XML reading error as the loader's: the depth limit as MBT_ERR_LIMIT, an external entity
 * refused, else "malformed XML: ..." with libxml2's first error. It replaces an error
 * found in the elements before it: the text as a whole is not XML. */
static void xml_fail(parser* p, mbt_xml_error* e) {
  p->status = MBT_OK;
  size_t k = strlen(e->message);
  while (k > 0 && is_space(e->message[k - 1])) e->message[--k] = '\0';
  const int line = e->line > 0 ? e->line : 1;
  if (e->status == MBT_XML_NO_MEMORY)
    no_memory(p);
  else if (e->status == MBT_XML_EXTERNAL_ENTITY)
    fail(p, MBT_ERR_PARSE, line, NULL, NULL, "external entity '%s' refused: a URDF file must not include other files",
         e->message);
  else if (e->status == MBT_XML_TOO_DEEP)
    fail(p, MBT_ERR_LIMIT, line, NULL, NULL, "XML elements nested more than %d deep, the limit", MBT_URDF_MAX_DEPTH);
  else
    fail(p, MBT_ERR_PARSE, line, NULL, NULL, "malformed XML: %s", e->message);
}

/* Reads the text, each child of the root element in turn through on_robot_child (NULL and
 * p->status on failure). Never prints. */
static mbt_xml_document* parse_document(parser* p, const char* xml, size_t length) {
  if (!xml) {
    fail(p, MBT_ERR_INVALID_ARGUMENT, 0, NULL, NULL, "no URDF text (NULL)");
    return NULL;
  }
  if (length == 0 || all_space(xml, length)) {
    fail(p, MBT_ERR_PARSE, 1, NULL, NULL, "empty file: expected a URDF <robot> element");
    return NULL;
  }
  if (length > (size_t)MBT_URDF_MAX_FILE_SIZE) {
    fail(p, MBT_ERR_LIMIT, 0, NULL, NULL, "the URDF text is %zu bytes, above the limit of %d bytes", length,
         MBT_URDF_MAX_FILE_SIZE);
    return NULL;
  }
  mbt_xml_error e;
  mbt_xml_document* doc = mbt__xml_read(xml, length, p->source, MBT_URDF_MAX_DEPTH, on_robot_child, p, &e);
  if (!doc) xml_fail(p, &e);
  return doc;
}

/* Reads the file in pieces through the streaming reader, never holding its whole text (NULL and
 * p->status on failure). A read error, a file above the size limit or a blank file take
 * precedence over what its text holds. */
static mbt_xml_document* read_file_document(parser* p, FILE* f) {
  mbt_xml_error e;
  char* buf = malloc(kReadBytes);
  mbt_xml_document* doc = buf ? mbt__xml_begin(p->source, MBT_URDF_MAX_DEPTH, on_robot_child, p, &e) : NULL;
  if (!doc) {
    free(buf);
    no_memory(p);
    return NULL;
  }
  size_t total = 0;
  bool blank = true;
  int problem = MBT_OK, read_errno = 0;
  for (;;) {
    const size_t n = fread(buf, 1, kReadBytes, f);
    if (n == 0) {
      if (ferror(f)) problem = MBT_ERR_IO, read_errno = errno;
      break;
    }
    total += n;
    if (total > (size_t)MBT_URDF_MAX_FILE_SIZE) {
      problem = MBT_ERR_LIMIT;
      break;
    }
    blank = blank && all_space(buf, n);
    mbt__xml_feed(doc, buf, n);
  }
  free(buf);
  if (problem == MBT_OK && !blank) {
    doc = mbt__xml_end(doc);
    if (!doc) xml_fail(p, &e);
    return doc;
  }
  mbt__xml_free(doc);
  p->status = MBT_OK;
  if (problem == MBT_ERR_IO)
    fail(p, MBT_ERR_IO, 0, NULL, NULL, "cannot read the file: %s", strerror(read_errno));
  else if (problem == MBT_ERR_LIMIT)
    fail(p, MBT_ERR_LIMIT, 0, NULL, NULL, "the file is larger than the limit of %d bytes", MBT_URDF_MAX_FILE_SIZE);
  else
    fail(p, MBT_ERR_PARSE, 1, NULL, NULL, "empty file: expected a URDF <robot> element");
  return NULL;
}

/* Loads the text xml[0, length), or with `file` the file's text read in pieces. */
static int load(const char* xml, size_t length, FILE* file, const char* source, const mbt_urdf_options* options,
                mbt_urdf_result* result) {
  parser p;
  memset(&p, 0, sizeof p);
  p.source = source && source[0] ? source : "<string>";
  p.flags = options ? options->flags : 0;
  p.world_link = -1;
  mbt_xml_document* doc = set_paths(&p, options, source) ? NULL
                           : file                          ? read_file_document(&p, file)
                                                           : parse_document(&p, xml, length);
  if (p.status == MBT_OK) {
    const xnode* root = mbt__xml_root(doc);
    if (!root)
      fail(&p, MBT_ERR_PARSE, 1, NULL, NULL, "no root element: expected <robot>");
    else if (!is_element(root, "robot"))
      fail(&p, MBT_ERR_PARSE, line_of(root), (const char*)root->name, NULL, "the root element is not <robot>");
    else if (end_robot(&p, root) == MBT_OK && resolve_topology(&p) == MBT_OK)
      build_tree(&p, result);
  }
  mbt__xml_free(doc);
  result->status = p.status;
  if (p.status != MBT_OK) {
    snprintf(result->error, sizeof result->error, "%s", p.error);
    parser_free(&p);
    free(result->joint_friction);
    free(result->joint_effort);
    result->joint_friction = result->joint_effort = NULL;
    result->tree = NULL;
    return p.status;
  }
  result->warnings = p.warnings;
  result->num_warnings = p.num_warnings;
  result->robot_name = p.robot_name;
  p.warnings = NULL;
  p.num_warnings = 0;
  p.robot_name = NULL;
  parser_free(&p);
  return MBT_OK;
}

int mbt_urdf_load_string_with_options(const char* xml, size_t length, const char* source_name,
                                      const mbt_urdf_options* options, mbt_urdf_result* result) {
  if (!result) return MBT_ERR_INVALID_ARGUMENT;
  memset(result, 0, sizeof *result);
  return load(xml, length, NULL, source_name, options, result);
}

int mbt_urdf_load_string(const char* xml, size_t length, const char* source_name, int flags,
                         mbt_urdf_result* result) {
  const mbt_urdf_options options = {flags, NULL, 0, NULL};
  return mbt_urdf_load_string_with_options(xml, length, source_name, &options, result);
}

int mbt_urdf_load_file(const char* path, int flags, mbt_urdf_result* result) {
  const mbt_urdf_options options = {flags, NULL, 0, NULL};
  return mbt_urdf_load_file_with_options(path, &options, result);
}

int mbt_urdf_load_file_with_options(const char* path, const mbt_urdf_options* options, mbt_urdf_result* result) {
  if (!result) return MBT_ERR_INVALID_ARGUMENT;
  memset(result, 0, sizeof *result);
  if (!path) {
    result->status = MBT_ERR_INVALID_ARGUMENT;
    snprintf(result->error, sizeof result->error, "no URDF file name (NULL)");
    return result->status;
  }
  FILE* f = fopen(path, "rb");
  if (!f) {
    result->status = MBT_ERR_IO;
    snprintf(result->error, sizeof result->error, "%s: cannot open the file: %s", path, strerror(errno));
    return result->status;
  }
  const int status = load(NULL, 0, f, path, options, result);
  fclose(f);
  return status;
}

void mbt_urdf_result_free(mbt_urdf_result* result) {
  if (!result) return;
  mbt_tree_destroy(result->tree);
  for (int i = 0; i < result->num_warnings; ++i) free(result->warnings[i]);
  free(result->warnings);
  free(result->joint_friction);
  free(result->joint_effort);
  free(result->robot_name);
  const int status = result->status;
  memset(result, 0, sizeof *result);
  result->status = status;
}
