/* module.c: the mbt._mbt module: exceptions, argument and array conversion, URDF loading. */
#define MBTPY_MODULE_C
#include "mbtpy.h"

#include <math.h>
#include <string.h>

PyObject* mbtpy_Error;

/* One exception class per status; index = -status. */
static const char* const error_names[] = {
    NULL,                  "InvalidArgumentError", "NotFoundError",    "DuplicateError",
    "FinalizedError",      "NotFinalizedError",    "TopologyError",    "NonphysicalError",
    "SizeError",           "NoMemoryError",        "SingularError",    "ParseError",
    "FileError",           "StoppedError"};
#define NUM_ERRORS ((int)(sizeof error_names / sizeof error_names[0]))
static PyObject* error_types[NUM_ERRORS];

PyObject* mbtpy_raise(int status, const char* message) {
  const int k = -status;
  PyObject* type = (k > 0 && k < NUM_ERRORS) ? error_types[k] : mbtpy_Error;
  PyObject* exc = PyObject_CallFunction(type, "s", message && *message ? message : mbt_status_string(status));
  PyObject* code = PyLong_FromLong(status);
  if (exc && code && PyObject_SetAttrString(exc, "status", code) == 0) PyErr_SetObject(type, exc);
  Py_XDECREF(exc);
  Py_XDECREF(code);
  return NULL;
}

int mbtpy_init_errors(PyObject* module) {
  mbtpy_Error = PyErr_NewExceptionWithDoc(
      "mbt.Error",
      "A failed mbt call. str(e) is the library's message naming the element and the problem; "
      "e.status is the negative mbt_status code (mbt.status_string(e.status) names it).",
      NULL, NULL);
  if (!mbtpy_Error || PyModule_AddObjectRef(module, "Error", mbtpy_Error) < 0) return -1;
  for (int k = 1; k < NUM_ERRORS; ++k) {
    char qualified[64];
    snprintf(qualified, sizeof qualified, "mbt.%s", error_names[k]);
    error_types[k] = PyErr_NewException(qualified, mbtpy_Error, NULL);
    if (!error_types[k] || PyModule_AddObjectRef(module, error_names[k], error_types[k]) < 0)
      return -1;
  }
  return 0;
}

/* ---- arguments ------------------------------------------------------------------------ */
int mbtpy_parse(const char* fname, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                const char* const* names, int nnames, PyObject** values) {
  if (nargs > nnames) {
    PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)", fname, nnames, nargs);
    return -1;
  }
  for (int i = 0; i < nnames; ++i) values[i] = i < nargs ? args[i] : NULL;
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(kwnames, k);
    int i = 0;
    while (i < nnames && PyUnicode_CompareWithASCIIString(key, names[i]) != 0) ++i;
    if (i == nnames) {
      PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname, key);
      return -1;
    }
    if (values[i]) {
      PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname, names[i]);
      return -1;
    }
    values[i] = args[nargs + k];
  }
  return 0;
}

int mbtpy_index(const mbt_tree* tree, PyObject* obj, const char* kind) {
  const int is_body = kind[0] == 'b', is_frame = kind[0] == 'f';
  if (PyUnicode_Check(obj)) {
    const char* name = PyUnicode_AsUTF8(obj);
    if (!name) return -1;
    const int i = is_body    ? mbt_tree_body_by_name(tree, name)
                  : is_frame ? mbt_tree_frame_by_name(tree, name)
                             : mbt_tree_joint_by_name(tree, name);
    if (i < 0) {
      char msg[256];
      snprintf(msg, sizeof msg, "no %s named '%s'", kind, name);
      mbtpy_raise(MBT_ERR_NOT_FOUND, msg);
      return -1;
    }
    return i;
  }
  const long i = PyLong_AsLong(obj);
  if (i == -1 && PyErr_Occurred()) {
    PyErr_Format(PyExc_TypeError, "a %s is given by its index (int) or name (str)", kind);
    return -1;
  }
  const int n = is_body ? mbt_tree_num_bodies(tree)
                : is_frame ? mbt_tree_num_frames(tree) : mbt_tree_num_joints(tree);
  if (i < 0 || i >= n) {
    PyErr_Format(PyExc_IndexError, "%s index %ld out of range [0, %d)", kind, i, n);
    return -1;
  }
  return (int)i;
}

/* ---- arrays --------------------------------------------------------------------------- */
static int check_shape(PyArrayObject* a, const char* name, npy_intp rows, npy_intp cols) {
  const int want_ndim = rows > 0 ? 2 : 1;
  const npy_intp* d = PyArray_DIMS(a);
  const int ok = PyArray_NDIM(a) == want_ndim &&
                 (want_ndim == 1 ? d[0] == cols : (d[0] == rows && d[1] == cols));
  if (ok) return 0;
  if (want_ndim == 1)
    PyErr_Format(PyExc_ValueError, "%s: expected shape (%zd,), got an array of %d dimension(s) "
                 "and %zd elements", name, (Py_ssize_t)cols, PyArray_NDIM(a), (Py_ssize_t)PyArray_SIZE(a));
  else
    PyErr_Format(PyExc_ValueError, "%s: expected shape (%zd, %zd), got an array of %d dimension(s) "
                 "and %zd elements", name, (Py_ssize_t)rows, (Py_ssize_t)cols, PyArray_NDIM(a),
                 (Py_ssize_t)PyArray_SIZE(a));
  return -1;
}

int mbtpy_input(PyObject* obj, const char* name, npy_intp rows, npy_intp cols, int optional,
                PyObject** hold, const double** data) {
  *hold = NULL;
  *data = NULL;
  if (!obj || obj == Py_None) {
    if (optional) return 0;
    PyErr_Format(PyExc_TypeError, "%s is required", name);
    return -1;
  }
  PyArrayObject* a;
  if (PyArray_Check(obj)) {
    a = (PyArrayObject*)obj;
    if (PyArray_TYPE(a) != NPY_DOUBLE) {
      PyErr_Format(PyExc_ValueError, "%s: expected a float64 array, got dtype %R", name,
                   (PyObject*)PyArray_DESCR(a));
      return -1;
    }
    if (check_shape(a, name, rows, cols)) return -1;
    if (PyArray_IS_C_CONTIGUOUS(a) && PyArray_ISALIGNED(a)) {
      *data = (const double*)PyArray_DATA(a);
      return 0;
    }
    a = (PyArrayObject*)PyArray_NewCopy(a, NPY_CORDER); /* a strided view: read a copy */
    if (!a) return -1;
  } else {
    a = (PyArrayObject*)PyArray_FROMANY(obj, NPY_DOUBLE, 0, 0, NPY_ARRAY_CARRAY_RO);
    if (!a) {
      PyErr_Format(PyExc_ValueError, "%s: expected an array of numbers", name);
      return -1;
    }
    if (check_shape(a, name, rows, cols)) {
      Py_DECREF(a);
      return -1;
    }
  }
  *hold = (PyObject*)a;
  *data = (const double*)PyArray_DATA(a);
  return 0;
}

PyArrayObject* mbtpy_output(PyObject* out, const char* name, int ndim, const npy_intp* dims) {
  if (!out || out == Py_None)
    return (PyArrayObject*)PyArray_SimpleNew(ndim, (npy_intp*)dims, NPY_DOUBLE);
  if (!PyArray_Check(out)) {
    PyErr_Format(PyExc_TypeError, "%s: out must be a numpy array", name);
    return NULL;
  }
  PyArrayObject* a = (PyArrayObject*)out;
  const char* problem = PyArray_TYPE(a) != NPY_DOUBLE        ? "is not float64"
                        : !PyArray_IS_C_CONTIGUOUS(a)          ? "is not C-contiguous"
                        : !PyArray_ISWRITEABLE(a)              ? "is read-only"
                        : !PyArray_ISALIGNED(a)                ? "is not aligned"
                        : PyArray_NDIM(a) != ndim              ? "has the wrong shape"
                                                               : NULL;
  for (int k = 0; !problem && k < ndim; ++k)
    if (PyArray_DIM(a, k) != dims[k]) problem = "has the wrong shape";
  if (problem) {
    char shape[64] = "(";
    for (int k = 0; k < ndim; ++k)
      snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%zd%s", (Py_ssize_t)dims[k],
               ndim == 1 ? ",)" : k + 1 < ndim ? ", " : ")");
    PyErr_Format(PyExc_ValueError, "%s: out %s (need a writeable C-contiguous float64 array of "
                 "shape %s)", name, problem, shape);
    return NULL;
  }
  Py_INCREF(a);
  return a;
}

int mbtpy_output_tuple(PyObject* out, const char* name, int n, const int* ndim, const npy_intp (*dims)[3],
                       PyArrayObject** arr) {
  if (out && out != Py_None && (!PyTuple_Check(out) || PyTuple_GET_SIZE(out) != n)) {
    PyErr_Format(PyExc_TypeError, "%s: out must be None or a tuple of %d arrays", name, n);
    return -1;
  }
  for (int k = 0; k < n; ++k) {
    PyObject* given = out && out != Py_None ? PyTuple_GET_ITEM(out, k) : NULL;
    for (int i = 0; given && i < k; ++i)
      if ((PyObject*)arr[i] == given)
        PyErr_Format(PyExc_ValueError, "%s: out[%d] is the same array as out[%d]", name, k, i);
    arr[k] = PyErr_Occurred() ? NULL : mbtpy_output(given, name, ndim[k], dims[k]);
    if (!arr[k]) {
      for (int i = 0; i < k; ++i) Py_DECREF(arr[i]);
      return -1;
    }
  }
  return 0;
}

PyObject* mbtpy_tuple_of(int n, PyArrayObject** arr) {
  PyObject* t = PyTuple_New(n);
  for (int k = 0; k < n; ++k) {
    if (t) PyTuple_SET_ITEM(t, k, (PyObject*)arr[k]);
    else Py_DECREF(arr[k]);
  }
  return t;
}

int mbtpy_vec3(PyObject* obj, const char* name, mbt_vec3* v) {
  PyObject* hold;
  const double* d;
  if (mbtpy_input(obj, name, 0, 3, 0, &hold, &d)) return -1;
  for (int k = 0; k < 3; ++k) v->v[k] = d[k];
  Py_XDECREF(hold);
  return 0;
}

/* A 3-vector property's new value (a setter's `value`; NULL when the property is deleted). */
int mbtpy_vec3_attr(PyObject* value, const char* name, mbt_vec3* v) {
  if (!value) {
    PyErr_Format(PyExc_AttributeError, "%s cannot be deleted", name);
    return -1;
  }
  return mbtpy_vec3(value, name, v);
}

int mbtpy_transform(PyObject* obj, const char* name, int optional, mbt_transform* X) {
  PyObject* hold;
  const double* d;
  if (mbtpy_input(obj, name, 4, 4, optional, &hold, &d)) return -1;
  if (!d) {
    *X = mbt_transform_identity();
    return 0;
  }
  const int last_row_ok = d[12] == 0 && d[13] == 0 && d[14] == 0 && d[15] == 1;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) X->R.m[i][j] = d[4 * i + j];
    X->p.v[i] = d[4 * i + 3];
  }
  Py_XDECREF(hold);
  if (!last_row_ok) {
    PyErr_Format(PyExc_ValueError, "%s: a 4x4 homogeneous transform must end in the row [0 0 0 1]", name);
    return -1;
  }
  if (!mbt_rotation_is_valid(&X->R, 1e-9)) {
    PyErr_Format(PyExc_ValueError, "%s: the upper-left 3x3 block is not a rotation matrix", name);
    return -1;
  }
  return 0;
}

void mbtpy_transform_to_buffer(const mbt_transform* X, double* out) {
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) out[4 * i + j] = X->R.m[i][j];
    out[4 * i + 3] = X->p.v[i];
  }
  out[12] = out[13] = out[14] = 0;
  out[15] = 1;
}

PyObject* mbtpy_transform_to_array(const mbt_transform* X) {
  npy_intp dims[2] = {4, 4};
  PyObject* a = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
  if (a) mbtpy_transform_to_buffer(X, (double*)PyArray_DATA((PyArrayObject*)a));
  return a;
}

PyObject* mbtpy_view(double* data, npy_intp n, PyObject* base) {
  PyObject* a = PyArray_New(&PyArray_Type, 1, &n, NPY_DOUBLE, NULL, data, 0, NPY_ARRAY_CARRAY_RO, NULL);
  if (!a) return NULL;
  Py_INCREF(base);
  if (PyArray_SetBaseObject((PyArrayObject*)a, base) < 0) {
    Py_DECREF(a);
    return NULL;
  }
  return a;
}

PyObject* mbtpy_copy_vector(const double* data, npy_intp n) {
  PyObject* a = PyArray_SimpleNew(1, &n, NPY_DOUBLE);
  if (a && n) memcpy(PyArray_DATA((PyArrayObject*)a), data, (size_t)n * sizeof *data);
  return a;
}

/* ---- the module ----------------------------------------------------------------------- */
static PyObject* status_string(PyObject* self, PyObject* arg) {
  (void)self;
  const long s = PyLong_AsLong(arg);
  if (s == -1 && PyErr_Occurred()) return NULL;
  return PyUnicode_FromString(mbt_status_string((int)s));
}

static PyMethodDef module_methods[] = {
    {"load_urdf", (PyCFunction)(void (*)(void))mbtpy_load_urdf, METH_VARARGS | METH_KEYWORDS,
     "load_urdf(path, floating=False, allow_invalid_inertia=False) -> Tree\n\n"
     "Loads a URDF file into a finalized Tree (mbt_urdf_load_file). floating=True attaches the\n"
     "root link by a quaternion-floating joint 'root_joint' (q = [qw qx qy qz x y z]); else it is\n"
     "welded to the world. allow_invalid_inertia=True loads non-physical inertias as written\n"
     "(with a warning). Warnings are in Tree.warnings. Raises mbt.FileError, mbt.ParseError, ...\n"
     "with the message 'file:line: <element 'name'>: problem'."},
    {"load_urdf_string", (PyCFunction)(void (*)(void))mbtpy_load_urdf_string,
     METH_VARARGS | METH_KEYWORDS,
     "load_urdf_string(xml, source_name=None, floating=False, allow_invalid_inertia=False) -> Tree\n\n"
     "As load_urdf, from a str or bytes in memory; source_name is used in messages."},
    {"status_string", status_string, METH_O, "status_string(status) -> str: the name of an mbt_status."},
    {"_context_from_state", mbtpy_context_from_state, METH_VARARGS, "Unpickling helper."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "mbt._mbt",
    "The compiled core of the mbt package: Tree, Context, Simulator and the URDF loader.\n"
    "Import the package `mbt`, not this module.",
    -1, module_methods, NULL, NULL, NULL, NULL};

PyMethodDef* mbtpy_join_methods(PyMethodDef* const* parts, size_t num_parts) {
  size_t n = 0;
  for (size_t p = 0; p < num_parts; ++p)
    for (const PyMethodDef* m = parts[p]; m->ml_name; ++m) ++n;
  PyMethodDef* all = PyMem_Calloc(n + 1, sizeof *all);
  if (!all) return NULL;
  n = 0;
  for (size_t p = 0; p < num_parts; ++p)
    for (const PyMethodDef* m = parts[p]; m->ml_name; ++m) all[n++] = *m;
  return all;
}

/* The Context methods come from several files: joined here into one table. */
static PyMethodDef* join_methods(PyMethodDef* base) {
  PyMethodDef* const parts[] = {base, mbtpy_context_calc_methods, mbtpy_context_kin_methods,
                                mbtpy_context_param_methods, mbtpy_context_deriv_methods};
  return mbtpy_join_methods(parts, sizeof parts / sizeof parts[0]);
}

PyMODINIT_FUNC PyInit__mbt(void) {
  import_array();
  PyObject* m = PyModule_Create(&module_def);
  if (!m) return NULL;
  Context_Type.tp_methods = join_methods(Context_Type.tp_methods);
  PyMethodDef* const sim_parts[] = {Simulator_Type.tp_methods, mbtpy_sim_contact_methods};
  Simulator_Type.tp_methods = mbtpy_join_methods(sim_parts, 2);
  PyMethodDef* const batch_parts[] = {Batch_Type.tp_methods, mbtpy_batch_deriv_methods};
  Batch_Type.tp_methods = mbtpy_join_methods(batch_parts, 2);
  if (!Context_Type.tp_methods || !Simulator_Type.tp_methods || !Batch_Type.tp_methods ||
      mbtpy_tree_type_init() < 0 || mbtpy_init_errors(m) < 0 || PyType_Ready(&Tree_Type) < 0 ||
      PyType_Ready(&Context_Type) < 0 || PyType_Ready(&Simulator_Type) < 0 || PyType_Ready(&Batch_Type) < 0 ||
      PyType_Ready(&ContactModel_Type) < 0 ||
      PyModule_AddObjectRef(m, "ContactModel", (PyObject*)&ContactModel_Type) < 0 ||
      PyModule_AddObjectRef(m, "Tree", (PyObject*)&Tree_Type) < 0 ||
      PyModule_AddObjectRef(m, "Context", (PyObject*)&Context_Type) < 0 ||
      PyModule_AddObjectRef(m, "Simulator", (PyObject*)&Simulator_Type) < 0 ||
      PyModule_AddObjectRef(m, "Batch", (PyObject*)&Batch_Type) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
