/* contact.c: mbt.ContactModel (contact.h): collision shapes on bodies, each with a contact
 * material, and the body pairs that never touch. A Simulator with the 'time_stepping'
 * integrator takes one (Simulator.contact_model); from then on the model is frozen, since the
 * simulator sized its work memory from it. */
#include "mbtpy.h"

#include <limits.h>

static int check(ContactModelObject* self, int status) {
  if (status < 0) mbtpy_raise(status, mbt_contact_model_last_error(self->model));
  return status;
}

static PyObject* cm_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"tree", NULL};
  PyObject* tree;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!:ContactModel", kwlist, &Tree_Type, &tree)) return NULL;
  mbt_contact_model* model = mbt_contact_model_create(((TreeObject*)tree)->tree);
  if (!model) {
    const mbt_tree* t = ((TreeObject*)tree)->tree;
    return mbtpy_raise(mbt_tree_is_finalized(t) ? MBT_ERR_NO_MEMORY : MBT_ERR_NOT_FINALIZED, mbt_tree_last_error(t));
  }
  ContactModelObject* self = (ContactModelObject*)type->tp_alloc(type, 0);
  if (!self) {
    mbt_contact_model_destroy(model);
    return NULL;
  }
  self->model = model;
  self->tree = (TreeObject*)Py_NewRef(tree);
  self->frozen = 0;
  return (PyObject*)self;
}

static void cm_dealloc(ContactModelObject* self) {
  mbt_contact_model_destroy(self->model);
  Py_XDECREF(self->tree);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

/* A material from None (the default) or a dict with any of static_friction,
 * dynamic_friction, stiffness, dissipation_time (the others at their defaults). */
static int material_arg(PyObject* obj, mbt_contact_material* m) {
  static const char* const keys[] = {"static_friction", "dynamic_friction", "stiffness", "dissipation_time"};
  *m = mbt_contact_material_default();
  if (!obj || obj == Py_None) return 0;
  if (!PyDict_Check(obj)) {
    PyErr_SetString(PyExc_TypeError, "material must be None or a dict (static_friction, dynamic_friction, "
                    "stiffness, dissipation_time)");
    return -1;
  }
  double* fields[] = {&m->static_friction, &m->dynamic_friction, &m->stiffness, &m->dissipation_time};
  Py_ssize_t pos = 0, used = 0;
  PyObject *key, *value;
  for (int k = 0; k < 4; ++k) {
    PyObject* v = PyDict_GetItemString(obj, keys[k]);
    if (!v) continue;
    ++used;
    *fields[k] = PyFloat_AsDouble(v);
    if (*fields[k] == -1 && PyErr_Occurred()) return -1;
  }
  if (used != PyDict_Size(obj)) {
    while (PyDict_Next(obj, &pos, &key, &value)) {
      int known = 0;
      for (int k = 0; k < 4; ++k) known |= PyUnicode_Check(key) && PyUnicode_CompareWithASCIIString(key, keys[k]) == 0;
      if (!known) {
        PyErr_Format(PyExc_ValueError, "material: unknown key %R (static_friction, dynamic_friction, "
                     "stiffness, dissipation_time)", key);
        return -1;
      }
    }
  }
  return 0;
}

static PyObject* default_material(PyObject* unused, PyObject* unused2) {
  (void)unused, (void)unused2;
  const mbt_contact_material m = mbt_contact_material_default();
  return Py_BuildValue("{s:d,s:d,s:d,s:d}", "static_friction", m.static_friction, "dynamic_friction",
                       m.dynamic_friction, "stiffness", m.stiffness, "dissipation_time", m.dissipation_time);
}

/* The arguments every add_* takes: the body, then X_BG and material keywords. */
typedef struct {
  int body;
  mbt_transform X_BG;
  mbt_contact_material material;
} shape_args;

static int shape_common(ContactModelObject* self, PyObject* body, PyObject* X, PyObject* material, shape_args* s) {
  if (self->frozen) {
    PyErr_SetString(PyExc_RuntimeError, "the contact model is in use by a simulator: add shapes before "
                    "giving it one");
    return -1;
  }
  s->body = mbtpy_index(self->tree->tree, body, "body");
  if (s->body < 0 || mbtpy_transform(X, "X_BG", 1, &s->X_BG) || material_arg(material, &s->material)) return -1;
  return 0;
}

static PyObject* shape_result(ContactModelObject* self, int status) {
  return check(self, status) < 0 ? NULL : PyLong_FromLong(status);
}

static PyObject* add_sphere(ContactModelObject* self, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"body", "radius", "X_BG", "material", NULL};
  PyObject *body, *X = Py_None, *mat = Py_None;
  double r;
  shape_args s;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Od|OO:add_sphere", kwlist, &body, &r, &X, &mat) ||
      shape_common(self, body, X, mat, &s))
    return NULL;
  return shape_result(self, mbt_contact_model_add_sphere(self->model, s.body, &s.X_BG, r, &s.material));
}

static PyObject* add_box(ContactModelObject* self, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"body", "size", "X_BG", "material", NULL};
  PyObject *body, *size, *X = Py_None, *mat = Py_None;
  mbt_vec3 d;
  shape_args s;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OO:add_box", kwlist, &body, &size, &X, &mat) ||
      shape_common(self, body, X, mat, &s) || mbtpy_vec3(size, "size", &d))
    return NULL;
  return shape_result(self, mbt_contact_model_add_box(self->model, s.body, &s.X_BG, d.v[0], d.v[1], d.v[2],
                                                      &s.material));
}

typedef int (*round_fn)(mbt_contact_model*, int, const mbt_transform*, mbt_real, mbt_real, const mbt_contact_material*);
static PyObject* add_round(ContactModelObject* self, PyObject* args, PyObject* kwargs, const char* fmt, round_fn fn) {
  static char* kwlist[] = {"body", "radius", "length", "X_BG", "material", NULL};
  PyObject *body, *X = Py_None, *mat = Py_None;
  double r, len;
  shape_args s;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, fmt, kwlist, &body, &r, &len, &X, &mat) ||
      shape_common(self, body, X, mat, &s))
    return NULL;
  return shape_result(self, fn(self->model, s.body, &s.X_BG, r, len, &s.material));
}
static PyObject* add_capsule(ContactModelObject* self, PyObject* args, PyObject* kwargs) {
  return add_round(self, args, kwargs, "Odd|OO:add_capsule", mbt_contact_model_add_capsule);
}
static PyObject* add_cylinder(ContactModelObject* self, PyObject* args, PyObject* kwargs) {
  return add_round(self, args, kwargs, "Odd|OO:add_cylinder", mbt_contact_model_add_cylinder);
}

static PyObject* add_half_space(ContactModelObject* self, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"body", "X_BG", "material", NULL};
  PyObject *body, *X = Py_None, *mat = Py_None;
  shape_args s;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O|OO:add_half_space", kwlist, &body, &X, &mat) ||
      shape_common(self, body, X, mat, &s))
    return NULL;
  return shape_result(self, mbt_contact_model_add_half_space(self->model, s.body, &s.X_BG, &s.material));
}

static PyObject* add_vertices(ContactModelObject* self, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"body", "p_GV", "X_BG", "material", NULL};
  PyObject *body, *pts, *X = Py_None, *mat = Py_None, *arr;
  shape_args s;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|OO:add_vertices", kwlist, &body, &pts, &X, &mat) ||
      shape_common(self, body, X, mat, &s))
    return NULL;
  arr = PyArray_FROMANY(pts, NPY_DOUBLE, 2, 2, NPY_ARRAY_IN_ARRAY);
  if (!arr) return NULL;
  if (PyArray_DIM((PyArrayObject*)arr, 1) != 3 || PyArray_DIM((PyArrayObject*)arr, 0) > INT_MAX / 3) {
    Py_DECREF(arr);
    return PyErr_Format(PyExc_ValueError, "p_GV: expected an n x 3 array of vertex positions");
  }
  const int n = (int)PyArray_DIM((PyArrayObject*)arr, 0);
  const int st = mbt_contact_model_add_vertices(self->model, s.body, &s.X_BG, PyArray_DATA((PyArrayObject*)arr), n,
                                                &s.material);
  Py_DECREF(arr);
  return shape_result(self, st);
}

static PyObject* add_ground(ContactModelObject* self, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"normal", "height", "material", NULL};
  PyObject *normal = NULL, *mat = Py_None;
  double height = 0;
  mbt_vec3 n = {{0, 0, 1}};
  mbt_contact_material m;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|OdO:add_ground", kwlist, &normal, &height, &mat)) return NULL;
  if (self->frozen) return PyErr_Format(PyExc_RuntimeError, "the contact model is in use by a simulator");
  if ((normal && mbtpy_vec3(normal, "normal", &n)) || material_arg(mat, &m)) return NULL;
  return shape_result(self, mbt_contact_model_add_ground(self->model, n, height, &m));
}

static PyObject* exclude_pair(ContactModelObject* self, PyObject* args) {
  PyObject *a, *b;
  if (!PyArg_ParseTuple(args, "OO:exclude_pair", &a, &b)) return NULL;
  if (self->frozen) return PyErr_Format(PyExc_RuntimeError, "the contact model is in use by a simulator");
  const int ia = mbtpy_index(self->tree->tree, a, "body");
  const int ib = ia < 0 ? -1 : mbtpy_index(self->tree->tree, b, "body");
  if (ib < 0 || check(self, mbt_contact_model_exclude_pair(self->model, ia, ib)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject* pair_enabled(ContactModelObject* self, PyObject* args) {
  PyObject *a, *b;
  if (!PyArg_ParseTuple(args, "OO:pair_enabled", &a, &b)) return NULL;
  const int ia = mbtpy_index(self->tree->tree, a, "body");
  const int ib = ia < 0 ? -1 : mbtpy_index(self->tree->tree, b, "body");
  return ib < 0 ? NULL : PyBool_FromLong(mbt_contact_model_pair_enabled(self->model, ia, ib));
}

static PyObject* shape_body(ContactModelObject* self, PyObject* arg) {
  const long k = PyLong_AsLong(arg);
  if (k == -1 && PyErr_Occurred()) return NULL;
  const int b = k < 0 || k >= mbt_contact_model_num_shapes(self->model) ? -1
                                                                        : mbt_contact_model_shape_body(self->model, (int)k);
  if (b < 0) return PyErr_Format(PyExc_IndexError, "shape %ld out of range (%d shapes)", k,
                                 mbt_contact_model_num_shapes(self->model));
  return PyLong_FromLong(b);
}

static PyObject* get_num_shapes(ContactModelObject* self, void* c) {
  (void)c;
  return PyLong_FromLong(mbt_contact_model_num_shapes(self->model));
}
static PyObject* get_tree(ContactModelObject* self, void* c) {
  (void)c;
  return Py_NewRef((PyObject*)self->tree);
}

#define KW(fn) (PyCFunction)(void (*)(void))(fn), METH_VARARGS | METH_KEYWORDS
static PyMethodDef cm_methods[] = {
    {"add_sphere", KW(add_sphere), "add_sphere(body, radius, X_BG=None, material=None) -> shape index\n\n"
     "A sphere about Go, G at X_BG in the body frame B (None: G = B)."},
    {"add_box", KW(add_box), "add_box(body, size, X_BG=None, material=None) -> shape index\n\n"
     "A box of full sides size = (sx, sy, sz) centred on Go."},
    {"add_capsule", KW(add_capsule), "add_capsule(body, radius, length, X_BG=None, material=None) -> shape index\n\n"
     "A capsule about Gz centred on Go: `length` is the cylindrical part (whole length + 2·radius)."},
    {"add_cylinder", KW(add_cylinder), "add_cylinder(body, radius, length, X_BG=None, material=None) -> shape index\n\n"
     "A cylinder about Gz centred on Go (touches half spaces only)."},
    {"add_half_space", KW(add_half_space), "add_half_space(body, X_BG=None, material=None) -> shape index\n\n"
     "The half space z <= 0 of G."},
    {"add_vertices", KW(add_vertices), "add_vertices(body, p_GV, X_BG=None, material=None) -> shape index\n\n"
     "A mesh as its vertex set p_GV (n x 3, in G): contacts with half spaces, spheres, capsules, boxes."},
    {"add_ground", KW(add_ground), "add_ground(normal=(0, 0, 1), height=0, material=None) -> shape index\n\n"
     "The ground: the half space n·p_WQ <= height of the world (n normalized)."},
    {"exclude_pair", (PyCFunction)exclude_pair, METH_VARARGS,
     "exclude_pair(body_A, body_B): shapes of these bodies never touch."},
    {"pair_enabled", (PyCFunction)pair_enabled, METH_VARARGS,
     "pair_enabled(body_A, body_B) -> bool: whether shapes of these bodies may touch (never: one body,\n"
     "bodies welded together, a body and its parent, two bodies fixed to the world, excluded pairs)."},
    {"shape_body", (PyCFunction)shape_body, METH_O, "shape_body(shape) -> the body the shape is fixed to."},
    {"default_material", (PyCFunction)default_material, METH_NOARGS | METH_STATIC,
     "default_material() -> dict: static_friction 1, dynamic_friction 1, stiffness 1e5 N/m,\n"
     "dissipation_time 0.01 s."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef cm_getset[] = {
    {"num_shapes", (getter)get_num_shapes, NULL, "The number of shapes.", NULL},
    {"tree", (getter)get_tree, NULL, "The Tree of the model.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject ContactModel_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mbt.ContactModel",
    .tp_basicsize = sizeof(ContactModelObject),
    .tp_dealloc = (destructor)cm_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "ContactModel(tree)\n\n"
              "Collision shapes fixed to bodies (pose X_BG in the body frame B, a 4x4 matrix), each with\n"
              "a contact material (a dict: static_friction μ_s, dynamic_friction μ_d <= μ_s, stiffness\n"
              "k > 0 in N/m, dissipation_time τ_d >= 0 in s; missing keys take default_material()'s).\n"
              "Shapes on the world (body 0) are static obstacles. Each contact point is a compliant\n"
              "normal force f_n = max(0, k·(φ − τ_d·v_n)) with Coulomb friction, solved implicitly by\n"
              "the 'time_stepping' integrator: Simulator(ctx, integrator='time_stepping', dt=...,\n"
              "contact_model=model). Two materials combine as in Drake: μ = 2·μ_A·μ_B/(μ_A + μ_B),\n"
              "k = k_A·k_B/(k_A + k_B). docs/contact.md.",
    .tp_methods = cm_methods,
    .tp_getset = cm_getset,
    .tp_new = cm_new,
};
