/* context.c: mbt.Context: the state q, v, time and the per-context parameters (context.h,
 * joints.h); copying and pickling. The Calc methods are in context_calc.c and
 * context_kinematics.c. */
#include "mbtpy.h"

#include <stdlib.h>

PyObject* mbtpy_context_new(TreeObject* tree, mbt_context* ctx, PyObject* owner) {
  ContextObject* self = PyObject_New(ContextObject, &Context_Type);
  const int nb = mbt_tree_num_bodies(tree->tree);
  double* scratch = PyMem_Malloc(sizeof(double) * 12 * (size_t)(nb > 0 ? nb : 1));
  if (!self || !scratch) {
    if (!owner) mbt_context_destroy(ctx);
    PyMem_Free(scratch);
    Py_XDECREF(self);
    return PyErr_NoMemory();
  }
  self->ctx = ctx;
  Py_INCREF(tree);
  self->tree = tree;
  Py_XINCREF(owner);
  self->owner = owner;
  self->scratch = scratch;
  self->ws = NULL;
  self->nq = mbt_tree_num_positions(tree->tree);
  self->nv = mbt_tree_num_velocities(tree->tree);
  self->nb = nb;
  return (PyObject*)self;
}

static void context_dealloc(ContextObject* self) {
  if (!self->owner) mbt_context_destroy(self->ctx);
  Py_XDECREF(self->owner);
  Py_XDECREF(self->tree);
  PyMem_Free(self->scratch);
  mbt_derivatives_workspace_destroy(self->ws);
  PyObject_Free(self);
}

static int check(ContextObject* self, int status) {
  if (status < 0) mbtpy_raise(status, mbt_context_last_error(self->ctx));
  return status;
}

/* ---- state ---------------------------------------------------------------------------- */
static PyObject* get_q(ContextObject* self, void* c) {
  (void)c;
  return mbtpy_view((double*)mbt_context_q(self->ctx), self->nq, (PyObject*)self);
}
static PyObject* get_v(ContextObject* self, void* c) {
  (void)c;
  return mbtpy_view((double*)mbt_context_v(self->ctx), self->nv, (PyObject*)self);
}
static PyObject* get_x(ContextObject* self, void* c) {
  (void)c;
  npy_intp n = self->nq + self->nv;
  PyObject* a = PyArray_SimpleNew(1, &n, NPY_DOUBLE);
  if (a) mbt_context_get_x(self->ctx, PyArray_DATA((PyArrayObject*)a), (int)n);
  return a;
}

typedef int (*state_setter)(mbt_context*, const mbt_real*, int);
static int set_state(ContextObject* self, PyObject* value, const char* name, int n, state_setter fn) {
  PyObject* hold;
  const double* d;
  if (!value) {
    PyErr_Format(PyExc_AttributeError, "%s cannot be deleted", name);
    return -1;
  }
  if (mbtpy_input(value, name, 0, n, 0, &hold, &d)) return -1;
  const int s = check(self, fn(self->ctx, d, n));
  Py_XDECREF(hold);
  return s < 0 ? -1 : 0;
}
static int set_q(ContextObject* self, PyObject* value, void* c) {
  (void)c;
  return set_state(self, value, "q", self->nq, mbt_context_set_q);
}
static int set_v(ContextObject* self, PyObject* value, void* c) {
  (void)c;
  return set_state(self, value, "v", self->nv, mbt_context_set_v);
}
static int set_x(ContextObject* self, PyObject* value, void* c) {
  (void)c;
  return set_state(self, value, "x", self->nq + self->nv, mbt_context_set_x);
}
static PyObject* get_time(ContextObject* self, void* c) {
  (void)c;
  return PyFloat_FromDouble(mbt_context_time(self->ctx));
}
static int set_time(ContextObject* self, PyObject* value, void* c) {
  (void)c;
  const double t = value ? PyFloat_AsDouble(value) : -1;
  if (!value) PyErr_SetString(PyExc_AttributeError, "time cannot be deleted");
  if (PyErr_Occurred()) return -1;
  mbt_context_set_time(self->ctx, t);
  return 0;
}
static PyObject* get_tree(ContextObject* self, void* c) {
  (void)c;
  return Py_NewRef((PyObject*)self->tree);
}

static PyGetSetDef context_getset[] = {
    {"q", (getter)get_q, (setter)set_q,
     "Generalized positions (nq). Reading gives a read-only view of the context's q: it follows\n"
     "later changes (copy it to keep a value). Assigning copies the values in (any sequence of\n"
     "nq numbers; numpy arrays must be float64) and invalidates the caches.", NULL},
    {"v", (getter)get_v, (setter)set_v, "Generalized velocities (nv): a read-only view; assign to set.", NULL},
    {"x", (getter)get_x, (setter)set_x, "The state [q; v] (a copy); assign to set both.", NULL},
    {"time", (getter)get_time, (setter)set_time, "The context's time (s).", NULL},
    {"gravity", (getter)mbtpy_context_get_gravity, (setter)mbtpy_context_set_gravity,
     "g_W (m/s², 3, a copy): this context's uniform gravity (UniformGravityFieldElement::\n"
     "gravity_vector(context) / SetGravityVector(context, g_W)), used by gravity_forces,\n"
     "inverse_dynamics, forward_dynamics and potential_energy. It starts at tree.gravity when\n"
     "the context is made and at set_default(); setting tree.gravity later does not change it.", NULL},
    {"tree", (getter)get_tree, NULL, "The Tree this context belongs to.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* ---- per-joint state and parameters --------------------------------------------------- */
static int joint_arg(ContextObject* self, PyObject* obj) {
  return mbtpy_index(self->tree->tree, obj, "joint");
}

static PyObject* joint_positions(ContextObject* self, PyObject* joint) {
  const int j = joint_arg(self, joint);
  return j < 0 ? NULL : mbtpy_copy_vector(mbt_joint_positions(self->ctx, j),
                                          mbt_joint_num_positions(self->tree->tree, j));
}
static PyObject* joint_velocities(ContextObject* self, PyObject* joint) {
  const int j = joint_arg(self, joint);
  return j < 0 ? NULL : mbtpy_copy_vector(mbt_joint_velocities(self->ctx, j),
                                          mbt_joint_num_velocities(self->tree->tree, j));
}
static PyObject* joint_damping(ContextObject* self, PyObject* joint) {
  const int j = joint_arg(self, joint);
  return j < 0 ? NULL : mbtpy_copy_vector(mbt_joint_damping_vector(self->ctx, j),
                                          mbt_joint_num_velocities(self->tree->tree, j));
}

/* set_joint_positions / set_joint_velocities / set_joint_damping(joint, values). */
typedef int (*joint_setter)(mbt_context*, int, const mbt_real*, int);
static PyObject* set_joint(ContextObject* self, PyObject* args, joint_setter fn, int positions) {
  PyObject *joint, *values, *hold;
  const double* d;
  if (!PyArg_ParseTuple(args, "OO", &joint, &values)) return NULL;
  const int j = joint_arg(self, joint);
  if (j < 0) return NULL;
  const int n = positions ? mbt_joint_num_positions(self->tree->tree, j)
                          : mbt_joint_num_velocities(self->tree->tree, j);
  if (mbtpy_input(values, "values", 0, n, 0, &hold, &d)) return NULL;
  const int s = check(self, fn(self->ctx, j, d, n));
  Py_XDECREF(hold);
  if (s < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject* set_joint_positions(ContextObject* self, PyObject* args) {
  return set_joint(self, args, mbt_joint_set_positions, 1);
}
static PyObject* set_joint_velocities(ContextObject* self, PyObject* args) {
  return set_joint(self, args, mbt_joint_set_velocities, 0);
}
static PyObject* set_joint_damping(ContextObject* self, PyObject* args) {
  return set_joint(self, args, mbt_joint_set_damping_vector, 0);
}

typedef int (*joint_action)(mbt_context*, int);
static PyObject* joint_do(ContextObject* self, PyObject* joint, joint_action fn) {
  const int j = joint_arg(self, joint);
  if (j < 0 || check(self, fn(self->ctx, j)) < 0) return NULL;
  Py_RETURN_NONE;
}
static PyObject* lock_joint(ContextObject* self, PyObject* joint) { return joint_do(self, joint, mbt_joint_lock); }
static PyObject* unlock_joint(ContextObject* self, PyObject* joint) { return joint_do(self, joint, mbt_joint_unlock); }
static PyObject* is_joint_locked(ContextObject* self, PyObject* joint) {
  const int j = joint_arg(self, joint);
  return j < 0 ? NULL : PyBool_FromLong(mbt_joint_is_locked(self->ctx, j));
}

/* Free bodies (floating joints): the pose X_FM and spatial velocity V_FM_F of M in F. */
static PyObject* floating_joint_pose(ContextObject* self, PyObject* joint) {
  const int j = joint_arg(self, joint);
  mbt_transform X;
  if (j < 0 || check(self, mbt_floating_joint_get_pose(self->ctx, j, &X)) < 0) return NULL;
  return mbtpy_transform_to_array(&X);
}
static PyObject* set_floating_joint_pose(ContextObject* self, PyObject* args) {
  PyObject *joint, *pose;
  mbt_transform X;
  if (!PyArg_ParseTuple(args, "OO:set_floating_joint_pose", &joint, &pose)) return NULL;
  const int j = joint_arg(self, joint);
  if (j < 0 || mbtpy_transform(pose, "X_FM", 0, &X) || check(self, mbt_floating_joint_set_pose(self->ctx, j, &X)) < 0)
    return NULL;
  Py_RETURN_NONE;
}
static PyObject* set_floating_joint_spatial_velocity(ContextObject* self, PyObject* args) {
  PyObject *joint, *value, *hold;
  const double* d;
  mbt_spatial_velocity V;
  if (!PyArg_ParseTuple(args, "OO:set_floating_joint_spatial_velocity", &joint, &value)) return NULL;
  const int j = joint_arg(self, joint);
  if (j < 0 || mbtpy_input(value, "V_FM_F", 0, 6, 0, &hold, &d)) return NULL;
  memcpy(V.coeffs, d, sizeof V.coeffs);
  Py_XDECREF(hold);
  if (check(self, mbt_floating_joint_set_spatial_velocity(self->ctx, j, &V)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject* set_default(ContextObject* self, PyObject* unused) {
  (void)unused;
  mbt_tree_set_default_context(self->tree->tree, self->ctx);
  Py_RETURN_NONE;
}

/* ---- copying and pickling ------------------------------------------------------------- */
static PyObject* context_copy(ContextObject* self, PyObject* unused) {
  (void)unused;
  mbt_context* c = mbt_context_clone(self->ctx);
  return c ? mbtpy_context_new(self->tree, c, NULL) : PyErr_NoMemory();
}
static PyObject* context_deepcopy(ContextObject* self, PyObject* memo) {
  (void)memo;
  return context_copy(self, NULL);
}

/* (tree, x, time, damping (nv, by joint velocity slices), locked joint indices,
 *  (gravity, body inertias)). */
static PyObject* context_reduce(ContextObject* self, PyObject* unused) {
  (void)unused;
  const mbt_tree* t = self->tree->tree;
  npy_intp nv = self->nv;
  PyObject* damping = PyArray_ZEROS(1, &nv, NPY_DOUBLE, 0);
  PyObject* locked = PyList_New(0);
  PyObject* mod = PyImport_ImportModule("mbt._mbt");
  PyObject* fn = mod ? PyObject_GetAttrString(mod, "_context_from_state") : NULL;
  Py_XDECREF(mod);
  PyObject* x = get_x(self, NULL);
  PyObject* params = mbtpy_context_params_state(self);
  for (int j = 0; damping && locked && j < mbt_tree_num_joints(t); ++j) {
    double* d = (double*)PyArray_DATA((PyArrayObject*)damping) + mbt_joint_velocity_start(t, j);
    memcpy(d, mbt_joint_damping_vector(self->ctx, j), sizeof(double) * (size_t)mbt_joint_num_velocities(t, j));
    PyObject* jj = PyLong_FromLong(j);
    if (mbt_joint_is_locked(self->ctx, j) && (!jj || PyList_Append(locked, jj) < 0)) Py_CLEAR(locked);
    Py_XDECREF(jj);
  }
  PyObject* out = NULL;
  if (fn && damping && locked && x && params)
    out = Py_BuildValue("O(OOdOOO)", fn, self->tree, x, mbt_context_time(self->ctx), damping, locked,
                        params);
  Py_XDECREF(params);
  Py_XDECREF(fn);
  Py_XDECREF(damping);
  Py_XDECREF(locked);
  Py_XDECREF(x);
  return out;
}

static int restore_params(ContextObject* c, PyObject* damping, PyObject* locked) {
  const mbt_tree* t = c->tree->tree;
  PyObject* hold;
  const double* d;
  if (mbtpy_input(damping, "damping", 0, c->nv, 0, &hold, &d)) return -1;
  int s = MBT_OK;
  for (int j = 0; s == MBT_OK && j < mbt_tree_num_joints(t); ++j)
    s = mbt_joint_set_damping_vector(c->ctx, j, d + mbt_joint_velocity_start(t, j),
                                     mbt_joint_num_velocities(t, j));
  Py_XDECREF(hold);
  const Py_ssize_t n = PySequence_Length(locked);
  for (Py_ssize_t k = 0; s == MBT_OK && k < n; ++k) {
    PyObject* item = PySequence_GetItem(locked, k);
    const int j = item ? joint_arg(c, item) : -1;
    Py_XDECREF(item);
    if (j < 0) return -1;
    s = mbt_joint_lock(c->ctx, j);
  }
  return check(c, s) < 0 || n < 0 ? -1 : 0;
}

PyObject* mbtpy_context_from_state(PyObject* mod, PyObject* args) {
  (void)mod;
  PyObject *tree, *x, *damping, *locked, *params;
  double time;
  if (!PyArg_ParseTuple(args, "O!OdOOO!", &Tree_Type, &tree, &x, &time, &damping, &locked, &PyTuple_Type,
                        &params))
    return NULL;
  mbt_context* ctx = mbt_context_create(((TreeObject*)tree)->tree);
  if (!ctx) return mbtpy_raise(MBT_ERR_NOT_FINALIZED, mbt_tree_last_error(((TreeObject*)tree)->tree));
  ContextObject* c = (ContextObject*)mbtpy_context_new((TreeObject*)tree, ctx, NULL);
  if (!c) return NULL;
  if (restore_params(c, damping, locked) < 0 || mbtpy_context_params_restore(c, params) < 0 ||
      set_x(c, x, NULL) < 0) {
    Py_DECREF(c);
    return NULL;
  }
  mbt_context_set_time(ctx, time);
  return (PyObject*)c;
}

static PyObject* context_repr(ContextObject* self) {
  PyObject* t = PyFloat_FromDouble(mbt_context_time(self->ctx));
  PyObject* r = t ? PyUnicode_FromFormat("<mbt.Context nq=%d nv=%d time=%R>", self->nq, self->nv, t) : NULL;
  Py_XDECREF(t);
  return r;
}

static PyMethodDef context_methods[] = {
    {"joint_positions", (PyCFunction)joint_positions, METH_O, "joint_positions(joint) -> the joint's q slice (copy)."},
    {"joint_velocities", (PyCFunction)joint_velocities, METH_O, "joint_velocities(joint) -> the joint's v slice (copy)."},
    {"set_joint_positions", (PyCFunction)set_joint_positions, METH_VARARGS, "set_joint_positions(joint, q)."},
    {"set_joint_velocities", (PyCFunction)set_joint_velocities, METH_VARARGS, "set_joint_velocities(joint, v)."},
    {"joint_damping", (PyCFunction)joint_damping, METH_O, "joint_damping(joint) -> this context's damping (nv of the joint)."},
    {"set_joint_damping", (PyCFunction)set_joint_damping, METH_VARARGS,
     "set_joint_damping(joint, damping): per-context damping (values >= 0)."},
    {"lock_joint", (PyCFunction)lock_joint, METH_O,
     "lock_joint(joint): sets its velocities to zero; forward dynamics keeps them at zero."},
    {"unlock_joint", (PyCFunction)unlock_joint, METH_O, "unlock_joint(joint)."},
    {"is_joint_locked", (PyCFunction)is_joint_locked, METH_O, "is_joint_locked(joint) -> bool."},
    {"floating_joint_pose", (PyCFunction)floating_joint_pose, METH_O,
     "floating_joint_pose(joint) -> X_FM (4x4): the pose of a floating joint's frame M in F\n"
     "(Drake's GetFreeBodyPose when F is the world)."},
    {"set_floating_joint_pose", (PyCFunction)set_floating_joint_pose, METH_VARARGS,
     "set_floating_joint_pose(joint, X_FM): sets the floating joint's q from a pose (a rigid\n"
     "transform; SetFreeBodyPose)."},
    {"set_floating_joint_spatial_velocity", (PyCFunction)set_floating_joint_spatial_velocity, METH_VARARGS,
     "set_floating_joint_spatial_velocity(joint, V_FM_F): sets its v from the spatial velocity\n"
     "[w; v] of M in F, expressed in F (SetFreeBodySpatialVelocity)."},
    {"set_default", (PyCFunction)set_default, METH_NOARGS,
     "set_default(): the tree's defaults (seed SetDefaultContext): default positions, zero\n"
     "velocities, time 0, default damping, no locks, and the tree's gravity and body inertias."},
    {"copy", (PyCFunction)context_copy, METH_NOARGS,
     "copy() -> Context: an independent deep copy (state, time and every parameter: damping,\n"
     "locks, gravity, body inertias)."},
    {"__copy__", (PyCFunction)context_copy, METH_NOARGS, NULL},
    {"__deepcopy__", (PyCFunction)context_deepcopy, METH_O, NULL},
    {"__reduce__", (PyCFunction)context_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

PyTypeObject Context_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mbt.Context",
    .tp_basicsize = sizeof(ContextObject),
    .tp_dealloc = (destructor)context_dealloc,
    .tp_repr = (reprfunc)context_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The state of one tree (q, v, time), its per-context parameters (joint damping,\n"
              "locks, gravity, body masses and inertias) and the caches of the algorithms (seed\n"
              "Context). Made by Tree.context(), which copies the tree's values as defaults:\n"
              "changing the tree later leaves this context's parameters as they are.\n"
              "Every Calc method reads the state and returns new float64 arrays, or writes into\n"
              "out= (a C-contiguous float64 array of the exact shape) without allocating.\n"
              "Per-body arrays are indexed by body index. copy.copy, copy.deepcopy and pickle\n"
              "work (pickling needs a tree loaded from URDF).",
    .tp_getset = context_getset,
    .tp_methods = context_methods,
};
