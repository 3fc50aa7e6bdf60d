/* tree.c: mbt.Tree: the MultibodyTree (tree.h, joints.h, forces.h): building, finalize,
 * read-only queries, URDF loading, pickling of trees loaded from URDF. */
#include "mbtpy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define TREE(o) (((TreeObject*)(o))->tree)

static PyObject* tree_wrap(mbt_tree* t) {
  TreeObject* self = PyObject_New(TreeObject, &Tree_Type);
  if (!self) {
    mbt_tree_destroy(t);
    return NULL;
  }
  self->tree = t;
  self->urdf_source = self->urdf_name = self->robot_name = NULL;
  self->joint_friction = self->joint_effort = NULL;
  self->urdf_flags = 0;
  self->warnings = PyTuple_New(0);
  if (!self->warnings) {
    Py_DECREF(self);
    return NULL;
  }
  return (PyObject*)self;
}

static PyObject* tree_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  (void)type;
  if (!_PyArg_NoKeywords("Tree", kwargs) || !PyArg_ParseTuple(args, ":Tree")) return NULL;
  mbt_tree* t = mbt_tree_create();
  if (!t) return PyErr_NoMemory();
  return tree_wrap(t);
}

static void tree_dealloc(TreeObject* self) {
  mbt_tree_destroy(self->tree);
  Py_XDECREF(self->urdf_source);
  Py_XDECREF(self->urdf_name);
  Py_XDECREF(self->warnings);
  Py_XDECREF(self->robot_name);
  Py_XDECREF(self->joint_friction);
  Py_XDECREF(self->joint_effort);
  PyObject_Free(self);
}

/* Raises the tree's last error for a negative status; returns the status. */
static int check(TreeObject* self, int status) {
  if (status < 0) mbtpy_raise(status, mbt_tree_last_error(self->tree));
  return status;
}

/* ---- URDF ----------------------------------------------------------------------------- */
static PyObject* read_file_bytes(const char* path) {
  FILE* f = fopen(path, "rb");
  if (!f) Py_RETURN_NONE;
  PyObject* out = NULL;
  if (fseek(f, 0, SEEK_END) == 0) {
    const long n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) {
      out = PyBytes_FromStringAndSize(NULL, n);
      if (out && fread(PyBytes_AS_STRING(out), 1, (size_t)n, f) != (size_t)n) Py_CLEAR(out);
    }
  }
  fclose(f);
  if (!out && !PyErr_Occurred()) Py_RETURN_NONE;
  return out;
}

/* A Tree from a successful load; takes the tree out of `r`. */
static PyObject* tree_from_result(mbt_urdf_result* r, PyObject* source, PyObject* name, int flags) {
  TreeObject* self = (TreeObject*)tree_wrap(r->tree);
  r->tree = NULL;
  if (!self) return NULL;
  Py_DECREF(self->warnings);
  self->warnings = PyTuple_New(r->num_warnings);
  npy_intp nj = r->num_joints;
  self->joint_friction = mbtpy_copy_vector(r->joint_friction, nj);
  self->joint_effort = mbtpy_copy_vector(r->joint_effort, nj);
  self->robot_name = PyUnicode_FromString(r->robot_name ? r->robot_name : "");
  if (!self->warnings || !self->joint_friction || !self->joint_effort || !self->robot_name) {
    Py_DECREF(self);
    return NULL;
  }
  for (int k = 0; k < r->num_warnings; ++k) {
    PyObject* w = PyUnicode_FromString(r->warnings[k]);
    if (!w) {
      Py_DECREF(self);
      return NULL;
    }
    PyTuple_SET_ITEM(self->warnings, k, w);
  }
  self->urdf_flags = flags;
  if (source != Py_None) {
    Py_INCREF(source);
    self->urdf_source = source;
  }
  Py_XINCREF(name);
  self->urdf_name = name;
  return (PyObject*)self;
}

static int urdf_flags(int floating, int allow_invalid) {
  return (floating ? MBT_URDF_FLOATING : 0) | (allow_invalid ? MBT_URDF_ALLOW_INVALID_INERTIA : 0);
}

PyObject* mbtpy_load_urdf(PyObject* mod, PyObject* args, PyObject* kwargs) {
  (void)mod;
  static char* kwlist[] = {"path", "floating", "allow_invalid_inertia", NULL};
  PyObject* path_obj;
  int floating = 0, allow_invalid = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O&|pp:load_urdf", kwlist, PyUnicode_FSConverter,
                                   &path_obj, &floating, &allow_invalid))
    return NULL;
  const char* path = PyBytes_AS_STRING(path_obj);
  const int flags = urdf_flags(floating, allow_invalid);
  mbt_urdf_result r;
  int s;
  Py_BEGIN_ALLOW_THREADS
  s = mbt_urdf_load_file(path, flags, &r);
  Py_END_ALLOW_THREADS
  PyObject* out = NULL;
  if (s != MBT_OK) {
    mbtpy_raise(s, r.error);
  } else {
    PyObject* source = read_file_bytes(path);
    PyObject* name = PyUnicode_DecodeFSDefault(path);
    if (source && name) out = tree_from_result(&r, source, name, flags);
    Py_XDECREF(source);
    Py_XDECREF(name);
  }
  mbt_urdf_result_free(&r);
  Py_DECREF(path_obj);
  return out;
}

PyObject* mbtpy_load_urdf_string(PyObject* mod, PyObject* args, PyObject* kwargs) {
  (void)mod;
  static char* kwlist[] = {"xml", "source_name", "floating", "allow_invalid_inertia", NULL};
  PyObject *xml, *name = Py_None;
  int floating = 0, allow_invalid = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|Opp:load_urdf_string", kwlist, &xml, &name,
                                   &floating, &allow_invalid))
    return NULL;
  PyObject* bytes = PyUnicode_Check(xml) ? PyUnicode_AsUTF8String(xml) : (Py_INCREF(xml), xml);
  if (!bytes) return NULL;
  if (!PyBytes_Check(bytes) || (name != Py_None && !PyUnicode_Check(name))) {
    Py_DECREF(bytes);
    return PyErr_Format(PyExc_TypeError, "load_urdf_string: xml must be str or bytes, "
                        "source_name str or None");
  }
  const char* cname = name == Py_None ? NULL : PyUnicode_AsUTF8(name);
  const int flags = urdf_flags(floating, allow_invalid);
  mbt_urdf_result r;
  const int s = mbt_urdf_load_string(PyBytes_AS_STRING(bytes), (size_t)PyBytes_GET_SIZE(bytes),
                                     cname, flags, &r);
  PyObject* out = s == MBT_OK ? tree_from_result(&r, bytes, name == Py_None ? NULL : name, flags)
                              : mbtpy_raise(s, r.error);
  mbt_urdf_result_free(&r);
  Py_DECREF(bytes);
  return out;
}

/* Pickling: a tree loaded from URDF is rebuilt from its source, with its gravity. */
static PyObject* tree_reduce(TreeObject* self, PyObject* unused) {
  (void)unused;
  if (!self->urdf_source)
    return PyErr_Format(PyExc_TypeError, "only trees loaded from URDF can be pickled");
  PyObject* mod = PyImport_ImportModule("mbt._mbt");
  if (!mod) return NULL;
  PyObject* fn = PyObject_GetAttrString(mod, "load_urdf_string");
  Py_DECREF(mod);
  if (!fn) return NULL;
  const mbt_vec3 g = mbt_tree_gravity(self->tree);
  PyObject* out = Py_BuildValue("N(OOii)(ddd)", fn, self->urdf_source,
                                self->urdf_name ? self->urdf_name : Py_None,
                                (self->urdf_flags & MBT_URDF_FLOATING) != 0,
                                (self->urdf_flags & MBT_URDF_ALLOW_INVALID_INERTIA) != 0,
                                g.v[0], g.v[1], g.v[2]);
  return out;
}

static PyObject* tree_setstate(TreeObject* self, PyObject* state) {
  mbt_vec3 g;
  if (mbtpy_vec3(state, "gravity", &g) || check(self, mbt_tree_set_gravity(self->tree, g)) < 0)
    return NULL;
  Py_RETURN_NONE;
}

/* ---- building ------------------------------------------------------------------------- */
PyDoc_STRVAR(add_rigid_body_doc,
"add_rigid_body(name, mass, p_BoBcm_B=(0, 0, 0), I_BBcm_B=zeros((3, 3)), check=True) -> int\n\n"
"Adds a body B with its mass (kg), center of mass p_BoBcm_B (m, in B) and rotational inertia\n"
"I_BBcm_B about the center of mass (kg·m², 3x3, in B), as URDF's <inertial>; returns the body\n"
"index. check=False skips the physical-validity check of the inertia\n"
"(mbt_tree_add_rigid_body_unchecked).");
static PyObject* tree_add_rigid_body(TreeObject* self, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"name", "mass", "p_BoBcm_B", "I_BBcm_B", "check", NULL};
  const char* name;
  double mass;
  PyObject *p_obj = NULL, *I_obj = NULL;
  int checked = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sd|OOp:add_rigid_body", kwlist, &name, &mass,
                                   &p_obj, &I_obj, &checked))
    return NULL;
  mbt_vec3 p = mbt_vec3_zero();
  mbt_rotational_inertia I = {0, 0, 0, 0, 0, 0};
  if (p_obj && mbtpy_vec3(p_obj, "p_BoBcm_B", &p)) return NULL;
  if (I_obj) {
    PyObject* hold;
    const double* d;
    if (mbtpy_input(I_obj, "I_BBcm_B", 3, 3, 0, &hold, &d)) return NULL;
    I = mbt_rotational_inertia_make(d[0], d[4], d[8], d[1], d[2], d[5]);
    Py_XDECREF(hold);
  }
  const mbt_spatial_inertia M = mbt_spatial_inertia_from_com(mass, p, &I);
  const int b = checked ? mbt_tree_add_rigid_body(self->tree, name, &M)
                        : mbt_tree_add_rigid_body_unchecked(self->tree, name, &M);
  return check(self, b) < 0 ? NULL : PyLong_FromLong(b);
}

PyDoc_STRVAR(add_frame_doc,
"add_frame(name, parent_frame, X_PF) -> int\n\n"
"Adds a frame F fixed to frame P with pose X_PF (4x4); returns the frame index.");
static PyObject* tree_add_frame(TreeObject* self, PyObject* args) {
  const char* name;
  PyObject *parent, *X_obj;
  mbt_transform X;
  if (!PyArg_ParseTuple(args, "sOO:add_frame", &name, &parent, &X_obj)) return NULL;
  const int P = mbtpy_index(self->tree, parent, "frame");
  if (P < 0 || mbtpy_transform(X_obj, "X_PF", 0, &X)) return NULL;
  const int f = check(self, mbt_tree_add_fixed_offset_frame(self->tree, name, P, &X));
  return f < 0 ? NULL : PyLong_FromLong(f);
}

PyDoc_STRVAR(add_model_instance_doc,
"add_model_instance(source, name, X_WR=None) -> int\n\n"
"Copies the finalized tree `source` into this tree (not finalized) as model instance `name`:\n"
"every body, joint and geometry, each name prefixed \"name::\" (Drake's scoped names), the\n"
"source's joints to its world re-attached to this world at X_WR (4x4, the instance's pose;\n"
"None: identity). Returns the number of bodies added (mbt_tree_add_model_instance).");
static PyObject* tree_add_model_instance(TreeObject* self, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"source", "name", "X_WR", NULL};
  PyObject *src, *X_obj = Py_None;
  const char* name;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!s|O:add_model_instance", kwlist, &Tree_Type,
                                   &src, &name, &X_obj))
    return NULL;
  mbt_transform X = mbt_transform_identity();
  if (X_obj != Py_None && mbtpy_transform(X_obj, "X_WR", 0, &X)) return NULL;
  const int n = check(self, mbt_tree_add_model_instance(self->tree, ((TreeObject*)src)->tree, name, &X));
  return n < 0 ? NULL : PyLong_FromLong(n);
}

static const char* const joint_kinds[] = {"weld", "revolute", "prismatic", "universal", "planar",
                                          "ball_rpy", "quaternion_floating", "screw"};

typedef struct {
  const char* name;
  int parent, child, kind;
  mbt_transform X_PF, X_BM;
  mbt_vec3 axis;
  double pitch;
  double damping[MBT_JOINT_MAX_NV];
} joint_spec;

/* XP, XB: the poses, or NULL for the body frames themselves. */
static int add_joint_of_kind(mbt_tree* t, const joint_spec* s, const mbt_transform* XP,
                             const mbt_transform* XB) {
  switch (s->kind) {
    case MBT_JOINT_WELD: return mbt_tree_add_weld_joint(t, s->name, s->parent, XP, s->child, XB);
    case MBT_JOINT_REVOLUTE:
      return mbt_tree_add_revolute_joint(t, s->name, s->parent, XP, s->child, XB, s->axis, s->damping[0]);
    case MBT_JOINT_PRISMATIC:
      return mbt_tree_add_prismatic_joint(t, s->name, s->parent, XP, s->child, XB, s->axis, s->damping[0]);
    case MBT_JOINT_UNIVERSAL:
      return mbt_tree_add_universal_joint(t, s->name, s->parent, XP, s->child, XB, s->damping);
    case MBT_JOINT_PLANAR:
      return mbt_tree_add_planar_joint(t, s->name, s->parent, XP, s->child, XB, s->damping);
    case MBT_JOINT_BALL_RPY:
      return mbt_tree_add_ball_rpy_joint(t, s->name, s->parent, XP, s->child, XB, s->damping);
    case MBT_JOINT_QUATERNION_FLOATING:
      return mbt_tree_add_quaternion_floating_joint(t, s->name, s->parent, XP, s->child, XB, s->damping);
    default:
      return mbt_tree_add_screw_joint(t, s->name, s->parent, XP, s->child, XB, s->axis, s->pitch,
                                      s->damping[0]);
  }
}

/* Joint kind and damping (a number for 1-dof joints, a sequence for the others). */
static int parse_kind_and_damping(const char* kind, PyObject* damping, joint_spec* s) {
  static const int nv_of[] = {0, 1, 1, 2, 3, 3, 6, 1};
  s->kind = -1;
  for (int k = 0; k < MBT_JOINT_NUM_TYPES; ++k)
    if (strcmp(kind, joint_kinds[k]) == 0) s->kind = k;
  if (s->kind < 0) {
    PyErr_Format(PyExc_ValueError, "unknown joint kind '%s' (weld, revolute, prismatic, universal, "
                 "planar, ball_rpy, quaternion_floating, screw)", kind);
    return -1;
  }
  for (int k = 0; k < MBT_JOINT_MAX_NV; ++k) s->damping[k] = 0;
  if (!damping || damping == Py_None) return 0;
  const int nv = nv_of[s->kind];
  if (nv == 1 && PyNumber_Check(damping)) {
    s->damping[0] = PyFloat_AsDouble(damping);
    return s->damping[0] == -1 && PyErr_Occurred() ? -1 : 0;
  }
  PyObject* hold;
  const double* d;
  if (mbtpy_input(damping, "damping", 0, nv, 0, &hold, &d)) return -1;
  for (int k = 0; k < nv; ++k) s->damping[k] = d[k];
  Py_XDECREF(hold);
  return 0;
}

PyDoc_STRVAR(add_joint_doc,
"add_joint(kind, name, parent, child, axis=(0, 0, 1), X_PF=None, X_BM=None, damping=0,\n"
"          pitch=0) -> int\n\n"
"Adds a joint between frame F on the parent body P and frame M on the child body B (seed\n"
"Joint): kind is 'weld', 'revolute', 'prismatic', 'universal', 'planar', 'ball_rpy',\n"
"'quaternion_floating' or 'screw'. X_PF and X_BM are 4x4 poses of F in P and of M in B (None:\n"
"the body frames). axis (in F) is used by revolute, prismatic and screw joints, pitch (m per\n"
"revolution) by screw joints. damping: N·m·s (a number, or one per velocity).\n"
"Returns the joint index.");
static PyObject* tree_add_joint(TreeObject* self, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"kind", "name", "parent", "child", "axis", "X_PF", "X_BM", "damping",
                           "pitch", NULL};
  const char* kind;
  PyObject *parent, *child, *axis = NULL, *XP = NULL, *XB = NULL, *damping = NULL;
  joint_spec s = {.pitch = 0, .axis = {{0, 0, 1}}};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "ssOO|OOOOd:add_joint", kwlist, &kind, &s.name,
                                   &parent, &child, &axis, &XP, &XB, &damping, &s.pitch) ||
      parse_kind_and_damping(kind, damping, &s) ||
      (s.parent = mbtpy_index(self->tree, parent, "body")) < 0 ||
      (s.child = mbtpy_index(self->tree, child, "body")) < 0 ||
      (axis && axis != Py_None && mbtpy_vec3(axis, "axis", &s.axis)) ||
      mbtpy_transform(XP, "X_PF", 1, &s.X_PF) || mbtpy_transform(XB, "X_BM", 1, &s.X_BM))
    return NULL;
  /* None means the body frame itself: the C API takes NULL for that. */
  const int j = add_joint_of_kind(self->tree, &s, (XP && XP != Py_None) ? &s.X_PF : NULL,
                                  (XB && XB != Py_None) ? &s.X_BM : NULL);
  return check(self, j) < 0 ? NULL : PyLong_FromLong(j);
}

/* set_position_limits / set_velocity_limits / set_acceleration_limits share this. */
typedef int (*limits_setter)(mbt_tree*, int, const mbt_real*, const mbt_real*, int);
static PyObject* set_limits(TreeObject* self, PyObject* args, limits_setter fn, const char* what) {
  PyObject *joint, *lo_obj, *hi_obj, *hl = NULL, *hh = NULL;
  const double *lo, *hi;
  if (!PyArg_ParseTuple(args, "OOO", &joint, &lo_obj, &hi_obj)) return NULL;
  const int j = mbtpy_index(self->tree, joint, "joint");
  if (j < 0) return NULL;
  const int n = fn == mbt_joint_set_position_limits ? mbt_joint_num_positions(self->tree, j)
                                                    : mbt_joint_num_velocities(self->tree, j);
  PyObject* out = NULL;
  if (!mbtpy_input(lo_obj, what, 0, n, 0, &hl, &lo) && !mbtpy_input(hi_obj, what, 0, n, 0, &hh, &hi) &&
      check(self, fn(self->tree, j, lo, hi, n)) == MBT_OK)
    out = Py_NewRef(Py_None);
  Py_XDECREF(hl);
  Py_XDECREF(hh);
  return out;
}
static PyObject* tree_set_position_limits(TreeObject* self, PyObject* args) {
  return set_limits(self, args, mbt_joint_set_position_limits, "position limits");
}
static PyObject* tree_set_velocity_limits(TreeObject* self, PyObject* args) {
  return set_limits(self, args, mbt_joint_set_velocity_limits, "velocity limits");
}
static PyObject* tree_set_acceleration_limits(TreeObject* self, PyObject* args) {
  return set_limits(self, args, mbt_joint_set_acceleration_limits, "acceleration limits");
}

/* set_default_positions(joint, q0) and set_default_damping(joint, d). */
static PyObject* set_joint_vector(TreeObject* self, PyObject* args, int positions) {
  PyObject *joint, *values, *hold;
  const double* d;
  if (!PyArg_ParseTuple(args, "OO", &joint, &values)) return NULL;
  const int j = mbtpy_index(self->tree, joint, "joint");
  if (j < 0) return NULL;
  const int n = positions ? mbt_joint_num_positions(self->tree, j) : mbt_joint_num_velocities(self->tree, j);
  if (mbtpy_input(values, positions ? "default positions" : "damping", 0, n, 0, &hold, &d)) return NULL;
  const int s = positions ? mbt_joint_set_default_positions(self->tree, j, d, n)
                          : mbt_joint_set_default_damping_vector(self->tree, j, d, n);
  Py_XDECREF(hold);
  if (check(self, s) < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject* tree_set_default_positions(TreeObject* self, PyObject* args) {
  return set_joint_vector(self, args, 1);
}
static PyObject* tree_set_default_damping(TreeObject* self, PyObject* args) {
  return set_joint_vector(self, args, 0);
}

static PyObject* tree_finalize(TreeObject* self, PyObject* unused) {
  (void)unused;
  if (check(self, mbt_tree_finalize(self->tree)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject* tree_context(TreeObject* self, PyObject* unused) {
  (void)unused;
  mbt_context* ctx = mbt_context_create(self->tree);
  if (!ctx) {
    const char* msg = mbt_tree_last_error(self->tree);
    return mbt_tree_is_finalized(self->tree) ? PyErr_NoMemory()
                                              : mbtpy_raise(MBT_ERR_NOT_FINALIZED, msg);
  }
  return mbtpy_context_new(self, ctx, NULL);
}

/* ---- queries -------------------------------------------------------------------------- */
typedef const char* (*name_fn)(const mbt_tree*, int);
static PyObject* names(const mbt_tree* t, int n, name_fn fn) {
  PyObject* out = PyTuple_New(n);
  for (int i = 0; out && i < n; ++i) {
    PyObject* s = PyUnicode_FromString(fn(t, i));
    if (!s) Py_CLEAR(out);
    else PyTuple_SET_ITEM(out, i, s);
  }
  return out;
}
static PyObject* tree_get_bodies(TreeObject* self, void* c) {
  (void)c;
  return names(self->tree, mbt_tree_num_bodies(self->tree), mbt_tree_body_name);
}
static PyObject* tree_get_frames(TreeObject* self, void* c) {
  (void)c;
  return names(self->tree, mbt_tree_num_frames(self->tree), mbt_tree_frame_name);
}
static PyObject* tree_get_joints(TreeObject* self, void* c) {
  (void)c;
  return names(self->tree, mbt_tree_num_joints(self->tree), mbt_joint_name);
}

/* Names of the coordinates "<joint>_<suffix>" (positions or velocities), in q or v order. */
static PyObject* coordinate_names(const mbt_tree* t, int positions) {
  const int n = positions ? mbt_tree_num_positions(t) : mbt_tree_num_velocities(t);
  PyObject* out = PyTuple_New(n);
  for (int j = 0; out && j < mbt_tree_num_joints(t); ++j) {
    const int start = positions ? mbt_joint_position_start(t, j) : mbt_joint_velocity_start(t, j);
    const int nj = positions ? mbt_joint_num_positions(t, j) : mbt_joint_num_velocities(t, j);
    for (int k = 0; k < nj; ++k) {
      const char* suffix = positions ? mbt_joint_position_suffix(t, j, k) : mbt_joint_velocity_suffix(t, j, k);
      PyObject* s = PyUnicode_FromFormat("%s_%s", mbt_joint_name(t, j), suffix ? suffix : "?");
      if (!s) {
        Py_CLEAR(out);
        break;
      }
      PyTuple_SET_ITEM(out, start + k, s);
    }
  }
  return out;
}

static int require_finalized(TreeObject* self) {
  if (mbt_tree_is_finalized(self->tree)) return 0;
  mbtpy_raise(MBT_ERR_NOT_FINALIZED, "the tree is not finalized (call finalize() first)");
  return -1;
}
static PyObject* tree_get_position_names(TreeObject* self, void* c) {
  (void)c;
  return require_finalized(self) ? NULL : coordinate_names(self->tree, 1);
}
static PyObject* tree_get_velocity_names(TreeObject* self, void* c) {
  (void)c;
  return require_finalized(self) ? NULL : coordinate_names(self->tree, 0);
}

/* A whole-tree limit vector assembled from the joints' limits (kind 0..5: position lower,
 * upper, velocity lower, upper, acceleration lower, upper). */
static PyObject* limits(TreeObject* self, int kind) {
  typedef const mbt_real* (*getter)(const mbt_tree*, int);
  static const getter get[] = {mbt_joint_position_lower_limits,     mbt_joint_position_upper_limits,
                               mbt_joint_velocity_lower_limits,     mbt_joint_velocity_upper_limits,
                               mbt_joint_acceleration_lower_limits, mbt_joint_acceleration_upper_limits};
  if (require_finalized(self)) return NULL;
  const mbt_tree* t = self->tree;
  const int pos = kind < 2;
  npy_intp n = pos ? mbt_tree_num_positions(t) : mbt_tree_num_velocities(t);
  PyObject* a = PyArray_SimpleNew(1, &n, NPY_DOUBLE);
  if (!a) return NULL;
  double* d = PyArray_DATA((PyArrayObject*)a);
  for (npy_intp i = 0; i < n; ++i) d[i] = (kind % 2) ? INFINITY : -INFINITY;
  for (int j = 0; j < mbt_tree_num_joints(t); ++j) {
    const int start = pos ? mbt_joint_position_start(t, j) : mbt_joint_velocity_start(t, j);
    const int nj = pos ? mbt_joint_num_positions(t, j) : mbt_joint_num_velocities(t, j);
    const mbt_real* src = get[kind](t, j);
    for (int k = 0; k < nj && src; ++k) d[start + k] = src[k];
  }
  return a;
}
#define LIMIT_GETTER(fname, kind) \
  static PyObject* fname(TreeObject* self, void* c) { (void)c; return limits(self, kind); }
LIMIT_GETTER(tree_get_q_lower, 0)
LIMIT_GETTER(tree_get_q_upper, 1)
LIMIT_GETTER(tree_get_v_lower, 2)
LIMIT_GETTER(tree_get_v_upper, 3)
LIMIT_GETTER(tree_get_vd_lower, 4)
LIMIT_GETTER(tree_get_vd_upper, 5)

#define INT_GETTER(fname, expr) \
  static PyObject* fname(TreeObject* self, void* c) { (void)c; return PyLong_FromLong(expr); }
INT_GETTER(tree_get_nq, mbt_tree_num_positions(self->tree))
INT_GETTER(tree_get_nv, mbt_tree_num_velocities(self->tree))
INT_GETTER(tree_get_num_bodies, mbt_tree_num_bodies(self->tree))
INT_GETTER(tree_get_num_frames, mbt_tree_num_frames(self->tree))
INT_GETTER(tree_get_num_joints, mbt_tree_num_joints(self->tree))
INT_GETTER(tree_get_height, mbt_tree_height(self->tree))

static PyObject* tree_get_finalized(TreeObject* self, void* c) {
  (void)c;
  return PyBool_FromLong(mbt_tree_is_finalized(self->tree));
}
static PyObject* tree_get_total_mass(TreeObject* self, void* c) {
  (void)c;
  return PyFloat_FromDouble(mbt_tree_total_mass(self->tree));
}
static PyObject* tree_get_gravity(TreeObject* self, void* c) {
  (void)c;
  const mbt_vec3 g = mbt_tree_gravity(self->tree);
  return mbtpy_copy_vector(g.v, 3);
}
static int tree_set_gravity(TreeObject* self, PyObject* value, void* c) {
  (void)c;
  mbt_vec3 g;
  if (mbtpy_vec3_attr(value, "gravity", &g)) return -1;
  return check(self, mbt_tree_set_gravity(self->tree, g)) < 0 ? -1 : 0;
}
static PyObject* tree_get_attr(PyObject* value) {
  return Py_NewRef(value ? value : Py_None);
}
static PyObject* tree_get_warnings(TreeObject* self, void* c) { (void)c; return tree_get_attr(self->warnings); }
static PyObject* tree_get_robot_name(TreeObject* self, void* c) { (void)c; return tree_get_attr(self->robot_name); }
static PyObject* tree_get_friction(TreeObject* self, void* c) { (void)c; return tree_get_attr(self->joint_friction); }
static PyObject* tree_get_effort(TreeObject* self, void* c) { (void)c; return tree_get_attr(self->joint_effort); }

static PyGetSetDef tree_getset[] = {
    {"force_elements", (getter)mbtpy_tree_get_force_elements, NULL,
     "Names of the force elements by index (add_linear_spring_damper, add_revolute_spring, ...).", NULL},
    {"nq", (getter)tree_get_nq, NULL, "Number of generalized positions.", NULL},
    {"nv", (getter)tree_get_nv, NULL, "Number of generalized velocities.", NULL},
    {"num_bodies", (getter)tree_get_num_bodies, NULL, "Number of bodies, the world (body 0) included.", NULL},
    {"num_frames", (getter)tree_get_num_frames, NULL, "Number of frames, body frames included.", NULL},
    {"num_joints", (getter)tree_get_num_joints, NULL, "Number of joints.", NULL},
    {"height", (getter)tree_get_height, NULL, "Number of levels (the world alone is 1).", NULL},
    {"is_finalized", (getter)tree_get_finalized, NULL, "True after finalize().", NULL},
    {"total_mass", (getter)tree_get_total_mass, NULL, "Sum of all body masses (kg).", NULL},
    {"gravity", (getter)tree_get_gravity, (setter)tree_set_gravity,
     "g_W (m/s²): the default gravity (UniformGravityFieldElement::set_gravity_vector). As in\n"
     "Drake, it is the value contexts take when made (tree.context()) or reset\n"
     "(ctx.set_default()); setting it leaves existing contexts' ctx.gravity as it is.", NULL},
    {"bodies", (getter)tree_get_bodies, NULL, "Body names by index (tuple).", NULL},
    {"frames", (getter)tree_get_frames, NULL, "Frame names by index (tuple).", NULL},
    {"joints", (getter)tree_get_joints, NULL, "Joint names by index (tuple).", NULL},
    {"position_names", (getter)tree_get_position_names, NULL,
     "Name of each entry of q: '<joint>_<suffix>' (suffix q, x, qw, ...).", NULL},
    {"velocity_names", (getter)tree_get_velocity_names, NULL, "Name of each entry of v.", NULL},
    {"position_lower_limits", (getter)tree_get_q_lower, NULL, "Lower position limits (nq, -inf if none).", NULL},
    {"position_upper_limits", (getter)tree_get_q_upper, NULL, "Upper position limits (nq, +inf if none).", NULL},
    {"velocity_lower_limits", (getter)tree_get_v_lower, NULL, "Lower velocity limits (nv).", NULL},
    {"velocity_upper_limits", (getter)tree_get_v_upper, NULL, "Upper velocity limits (nv).", NULL},
    {"acceleration_lower_limits", (getter)tree_get_vd_lower, NULL, "Lower acceleration limits (nv).", NULL},
    {"acceleration_upper_limits", (getter)tree_get_vd_upper, NULL, "Upper acceleration limits (nv).", NULL},
    {"warnings", (getter)tree_get_warnings, NULL, "URDF warnings 'file:line: ...' (tuple of str).", NULL},
    {"robot_name", (getter)tree_get_robot_name, NULL, "URDF <robot name> (None if not from URDF).", NULL},
    {"joint_friction", (getter)tree_get_friction, NULL, "URDF <dynamics friction> per joint (or None).", NULL},
    {"joint_effort", (getter)tree_get_effort, NULL, "URDF <limit effort> per joint, inf if none (or None).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef tree_methods[] = {
    {"add_rigid_body", (PyCFunction)(void (*)(void))tree_add_rigid_body, METH_VARARGS | METH_KEYWORDS, add_rigid_body_doc},
    {"add_frame", (PyCFunction)tree_add_frame, METH_VARARGS, add_frame_doc},
    {"add_model_instance", (PyCFunction)(void (*)(void))tree_add_model_instance, METH_VARARGS | METH_KEYWORDS,
     add_model_instance_doc},
    {"add_joint", (PyCFunction)(void (*)(void))tree_add_joint, METH_VARARGS | METH_KEYWORDS, add_joint_doc},
    {"set_position_limits", (PyCFunction)tree_set_position_limits, METH_VARARGS,
     "set_position_limits(joint, lower, upper): nq values each, lower <= upper, no NaN."},
    {"set_velocity_limits", (PyCFunction)tree_set_velocity_limits, METH_VARARGS,
     "set_velocity_limits(joint, lower, upper): nv values each."},
    {"set_acceleration_limits", (PyCFunction)tree_set_acceleration_limits, METH_VARARGS,
     "set_acceleration_limits(joint, lower, upper): nv values each."},
    {"set_default_positions", (PyCFunction)tree_set_default_positions, METH_VARARGS,
     "set_default_positions(joint, q0): the joint's default positions (nq), used by new contexts."},
    {"set_default_damping", (PyCFunction)tree_set_default_damping, METH_VARARGS,
     "set_default_damping(joint, damping): default damping (nv values >= 0)."},
    {"finalize", (PyCFunction)tree_finalize, METH_NOARGS,
     "finalize(): computes the topology and the q/v slices; the tree is read-only afterwards.\n"
     "A body without an inboard joint gets a quaternion-floating mobilizer."},
    {"context", (PyCFunction)tree_context, METH_NOARGS,
     "context() -> Context: a new context in the default state (CreateDefaultContext): the\n"
     "default positions, zero velocities, and the tree's current gravity, body inertias and\n"
     "default damping as its own parameters."},
    {"__reduce__", (PyCFunction)tree_reduce, METH_NOARGS, NULL},
    {"__setstate__", (PyCFunction)tree_setstate, METH_O, NULL},
    {NULL, NULL, 0, NULL}};

static PyMethodDef* all_tree_methods(void) {
  PyMethodDef* const parts[] = {tree_methods, mbtpy_tree_query_methods, mbtpy_tree_config_methods,
                                mbtpy_tree_force_methods};
  return mbtpy_join_methods(parts, sizeof parts / sizeof parts[0]);
}

static PyObject* tree_repr(TreeObject* self) {
  return PyUnicode_FromFormat("<mbt.Tree %s%s%s: %d bodies, %d joints, nq=%d, nv=%d%s>",
                              self->robot_name ? "'" : "", self->robot_name ? PyUnicode_AsUTF8(self->robot_name) : "",
                              self->robot_name ? "'" : "", mbt_tree_num_bodies(self->tree),
                              mbt_tree_num_joints(self->tree), mbt_tree_num_positions(self->tree),
                              mbt_tree_num_velocities(self->tree),
                              mbt_tree_is_finalized(self->tree) ? "" : ", not finalized");
}

PyTypeObject Tree_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mbt.Tree",
    .tp_basicsize = sizeof(TreeObject),
    .tp_dealloc = (destructor)tree_dealloc,
    .tp_repr = (reprfunc)tree_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Tree() -> an empty MultibodyTree holding the world body (seed MultibodyTree).\n\n"
              "Add bodies, frames and joints, then finalize(); or use mbt.load_urdf. A finalized\n"
              "tree is read-only and shared by its contexts. Bodies, frames and joints are given\n"
              "by index or name; body 0 is the world.",
    .tp_getset = tree_getset,
    .tp_new = tree_new,
};

/* The builder, query, configuration and force-element methods (four files) joined into one table, at module init. */
int mbtpy_tree_type_init(void) {
  Tree_Type.tp_methods = all_tree_methods();
  return Tree_Type.tp_methods ? 0 : -1;
}
