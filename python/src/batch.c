/* batch.c: mbt.Batch (batch.h): many states and many simulations of one tree on a pool of
 * threads. Every batched call releases the GIL. Arrays of states are 2-D, one state per row. */
#include "mbtpy.h"


static PyObject* batch_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"tree", "num_threads", NULL};
  PyObject* tree;
  int threads = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!|i:Batch", kwlist, &Tree_Type, &tree, &threads))
    return NULL;
  const mbt_tree* t = ((TreeObject*)tree)->tree;
  mbt_batch* b;
  Py_BEGIN_ALLOW_THREADS
  b = mbt_batch_create(t, threads);
  Py_END_ALLOW_THREADS
  if (!b)
    return mbtpy_raise(mbt_tree_is_finalized(t) ? MBT_ERR_NO_MEMORY : MBT_ERR_NOT_FINALIZED,
                       mbt_tree_is_finalized(t) ? "mbt_batch_create: cannot start the threads"
                                                : mbt_tree_last_error(t));
  BatchObject* self = (BatchObject*)type->tp_alloc(type, 0);
  if (!self) {
    mbt_batch_destroy(b);
    return NULL;
  }
  self->batch = b;
  self->tree = (TreeObject*)Py_NewRef(tree);
  self->nq = mbt_tree_num_positions(t);
  self->nv = mbt_tree_num_velocities(t);
  self->nb = mbt_tree_num_bodies(t);
  return (PyObject*)self;
}

static void batch_dealloc(BatchObject* self) {
  mbt_batch_destroy(self->batch);
  Py_XDECREF(self->tree);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

/* Rows of a 2-D input: n from its first dimension (cols columns). */
static int rows_of(PyObject* obj, const char* name, npy_intp cols, npy_intp* n) {
  PyArrayObject* a = (PyArrayObject*)PyArray_FROMANY(obj, NPY_DOUBLE, 2, 2, 0);
  *n = a && PyArray_DIM(a, 1) == cols ? PyArray_DIM(a, 0) : -1;
  Py_XDECREF(a);
  if (*n >= 0 && *n <= INT_MAX) return 0;
  PyErr_Clear();
  PyErr_Format(PyExc_ValueError, "%s: expected a 2-D array of shape (n, %zd), one state per row",
               name, (Py_ssize_t)cols);
  return -1;
}

/* The per-state status array the caller may pass: int32 of n, C-contiguous, writeable. */
static int status_array(PyObject* obj, npy_intp n, int** data) {
  *data = NULL;
  if (!obj || obj == Py_None) return 0;
  PyArrayObject* a = (PyArrayObject*)obj;
  if (!PyArray_Check(obj) || PyArray_TYPE(a) != NPY_INT32 || PyArray_NDIM(a) != 1 ||
      PyArray_DIM(a, 0) != n || !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISWRITEABLE(a)) {
    PyErr_Format(PyExc_ValueError, "status: expected a writeable int32 array of shape (%zd,)", (Py_ssize_t)n);
    return -1;
  }
  *data = (int*)PyArray_DATA(a);
  return 0;
}

/* The end of a batched call: the output, or the error of the lowest-numbered failed state
 * (unless the caller asked for per-state statuses). */
static PyObject* finish(BatchObject* self, int s, int* status, PyArrayObject* out) {
  if (s == MBT_OK || (status && s != MBT_ERR_INVALID_ARGUMENT)) return (PyObject*)out;
  Py_DECREF(out);
  return mbtpy_raise(s, mbt_batch_last_error(self->batch));
}

int mbtpy_batch_begin(BatchObject* self) {
  if (!self->running) return self->running = 1, 0;
  PyErr_SetString(PyExc_RuntimeError, "the batch is in use by another thread");
  return -1;
}

/* inverse_dynamics(x, vdot=None, out=None, status=None) and forward_dynamics(x, tau=None, ...). */
static PyObject* batch_dynamics(BatchObject* self, PyObject* const* args, Py_ssize_t nargs,
                                PyObject* kwnames, int inverse) {
  static const char* const id_names[] = {"x", "vdot", "out", "status"};
  static const char* const fd_names[] = {"x", "tau", "out", "status"};
  const char* fname = inverse ? "inverse_dynamics" : "forward_dynamics";
  PyObject *a[4], *hx = NULL, *hu = NULL;
  const double *x, *u;
  int* status;
  npy_intp n, dims[2] = {0, self->nv};
  if (mbtpy_parse(fname, args, nargs, kwnames, inverse ? id_names : fd_names, 4, a)) return NULL;
  if (!a[0]) return PyErr_Format(PyExc_TypeError, "%s: x is required", fname);
  if (rows_of(a[0], "x", self->nq + self->nv, &n) || status_array(a[3], n, &status)) return NULL;
  dims[0] = n;
  PyArrayObject* out = NULL;
  int began = 0;
  if (!mbtpy_input(a[0], "x", n, self->nq + self->nv, 0, &hx, &x) &&
      !mbtpy_input(a[1], inverse ? "vdot" : "tau", n, self->nv, 1, &hu, &u) && (began = !mbtpy_batch_begin(self)))
    out = mbtpy_output(a[2], fname, 2, dims);
  int s = MBT_OK;
  if (out) {
    double* o = PyArray_DATA(out);
    Py_BEGIN_ALLOW_THREADS
    s = inverse ? mbt_batch_calc_inverse_dynamics(self->batch, (int)n, x, u, o, status)
                : mbt_batch_calc_forward_dynamics(self->batch, (int)n, x, u, o, status);
    Py_END_ALLOW_THREADS
  }
  if (began) self->running = 0;
  Py_XDECREF(hx);
  Py_XDECREF(hu);
  return out ? finish(self, s, status, out) : NULL;
}
static PyObject* batch_inverse_dynamics(BatchObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  return batch_dynamics(self, args, nargs, kw, 1);
}
static PyObject* batch_forward_dynamics(BatchObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  return batch_dynamics(self, args, nargs, kw, 0);
}

/* mass_matrix(q, out=None, status=None) and forward_kinematics(q, out=None, status=None). */
static PyObject* batch_of_q(BatchObject* self, PyObject* const* args, Py_ssize_t nargs,
                            PyObject* kwnames, int poses) {
  static const char* const names[] = {"q", "out", "status"};
  const char* fname = poses ? "forward_kinematics" : "mass_matrix";
  PyObject *a[3], *hq = NULL;
  const double* q;
  int* status;
  npy_intp n;
  if (mbtpy_parse(fname, args, nargs, kwnames, names, 3, a)) return NULL;
  if (!a[0]) return PyErr_Format(PyExc_TypeError, "%s: q is required", fname);
  if (rows_of(a[0], "q", self->nq, &n) || status_array(a[2], n, &status) ||
      mbtpy_input(a[0], "q", n, self->nq, 0, &hq, &q))
    return NULL;
  npy_intp dims[4] = {n, poses ? self->nb : self->nv, poses ? 4 : self->nv, 4};
  mbt_transform* X = poses ? PyMem_Malloc(sizeof *X * (size_t)(n * self->nb + 1)) : NULL;
  if (poses && !X) PyErr_NoMemory();
  const int began = (!poses || X) && !mbtpy_batch_begin(self);
  PyArrayObject* out = began ? mbtpy_output(a[1], fname, poses ? 4 : 3, dims) : NULL;
  int s = MBT_OK;
  if (out) {
    double* o = PyArray_DATA(out);
    Py_BEGIN_ALLOW_THREADS
    s = poses ? mbt_batch_calc_forward_kinematics(self->batch, (int)n, q, X, status)
              : mbt_batch_calc_mass_matrix(self->batch, (int)n, q, o, status);
    Py_END_ALLOW_THREADS
    for (npy_intp k = 0; poses && k < n; ++k)   /* node order to body order, 4x4 each */
      for (int b = 0; b < self->nb; ++b)
        mbtpy_transform_to_buffer(&X[k * self->nb + mbt_tree_body_node(self->tree->tree, b)],
                                  o + 16 * (k * self->nb + b));
  }
  if (began) self->running = 0;
  PyMem_Free(X);
  Py_XDECREF(hq);
  return out ? finish(self, s, status, out) : NULL;
}
static PyObject* batch_mass_matrix(BatchObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  return batch_of_q(self, args, nargs, kw, 0);
}
static PyObject* batch_forward_kinematics(BatchObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  return batch_of_q(self, args, nargs, kw, 1);
}

static PyObject* batch_set_parameters(BatchObject* self, PyObject* ctx) {
  if (!PyObject_TypeCheck(ctx, &Context_Type))
    return PyErr_Format(PyExc_TypeError, "set_parameters: expected an mbt.Context");
  if (mbtpy_batch_begin(self)) return NULL;
  const int s = mbt_batch_set_parameters(self->batch, ((ContextObject*)ctx)->ctx);
  self->running = 0;
  if (s != MBT_OK) return mbtpy_raise(s, mbt_batch_last_error(self->batch));
  Py_RETURN_NONE;
}

static PyObject* batch_get_num_threads(BatchObject* self, void* c) {
  (void)c;
  return PyLong_FromLong(mbt_batch_num_threads(self->batch));
}
static PyObject* batch_get_tree(BatchObject* self, void* c) {
  (void)c;
  return Py_NewRef((PyObject*)self->tree);
}


#define FAST_KW METH_FASTCALL | METH_KEYWORDS
static PyMethodDef batch_methods[] = {
    {"set_parameters", (PyCFunction)batch_set_parameters, METH_O,
     "set_parameters(context): the context's parameters (damping, gravity, body inertias), locks and time\n"
     "are used by every batched call from then on (mbt_batch_set_parameters)."},
    {"inverse_dynamics", MBTPY_FAST(batch_inverse_dynamics), FAST_KW,
     "inverse_dynamics(x, vdot=None, out=None, status=None) -> ndarray (n, nv)\n\n"
     "Row k: tau_k = M(q_k)·v̇_k + C(q_k,v_k)·v_k − tau_g(q_k) for the states x (n, nq + nv) and\n"
     "accelerations vdot (n, nv; None: zero), on the batch's threads, bit-identical to n calls\n"
     "of Context.inverse_dynamics. A state that fails gets a NaN row; without `status` (an int32\n"
     "array of n that receives each state's status) the call then raises the error of the\n"
     "lowest-numbered failed state."},
    {"forward_dynamics", MBTPY_FAST(batch_forward_dynamics), FAST_KW,
     "forward_dynamics(x, tau=None, out=None, status=None) -> ndarray (n, nv)\n\n"
     "Row k: v̇_k by ABA with gravity, force elements and the batch's damping and locks, for the\n"
     "applied forces tau (n, nv; None: zero). Failures as in inverse_dynamics."},
    {"mass_matrix", MBTPY_FAST(batch_mass_matrix), FAST_KW,
     "mass_matrix(q, out=None, status=None) -> ndarray (n, nv, nv): M(q_k) by CRBA."},
    {"forward_kinematics", MBTPY_FAST(batch_forward_kinematics), FAST_KW,
     "forward_kinematics(q, out=None, status=None) -> ndarray (n, num_bodies, 4, 4): X_WB of every\n"
     "body (by body index) for each row of q."},
    {"rollouts", (PyCFunction)(void (*)(void))mbtpy_batch_rollouts, METH_VARARGS | METH_KEYWORDS,
     "rollouts(contexts, t_final, num_samples=0, integrator='rk45', dt=1e-3, rtol=1e-6,\n"
     "         atol=1e-8, min_dt=1e-12) -> list of dict\n\n"
     "One simulation per context (its state, time, parameters, locks) to t_final, spread over the\n"
     "threads (mbt_batch_rollouts; no controller). Each dict: status (0 if t_final was reached),\n"
     "error, t_reached, x_final (nq + nv), stats, and with num_samples >= 2 a trajectory\n"
     "(num_samples, 1 + nq + nv) of rows [t, q, v] at evenly spaced times (NaN where not reached)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef batch_getset[] = {
    {"num_threads", (getter)batch_get_num_threads, NULL, "Threads of the pool (the caller's included).", NULL},
    {"tree", (getter)batch_get_tree, NULL, "The Tree of the batch.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject Batch_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mbt.Batch",
    .tp_basicsize = sizeof(BatchObject),
    .tp_dealloc = (destructor)batch_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Batch(tree, num_threads=0)\n\n"
              "A pool of threads (0: one per processor) with one context each, for many states or\n"
              "simulations of one tree at once (mbt/batch.h). The batched calls release the GIL.\n"
              "Results are bit-identical to the single calls, whatever the thread count.",
    .tp_methods = batch_methods,
    .tp_getset = batch_getset,
    .tp_new = batch_new,
};
