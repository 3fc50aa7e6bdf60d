/* rollouts.c: mbt.Batch.rollouts (mbt_batch_rollouts): one simulation per context, spread
 * over the batch's threads with the GIL released. */
#include "mbtpy.h"

/* The arrays each rollout writes into, made before the call (the threads cannot allocate
 * Python objects). */
typedef struct {
  PyObject* x_final;
  PyObject* trajectory;   /* or NULL */
} rollout_arrays;

static int prepare(BatchObject* self, PyObject* seq, double t_final, int num_samples,
                   mbt_rollout* r, rollout_arrays* arrays, Py_ssize_t n) {
  npy_intp nx = self->nq + self->nv, dims[2] = {num_samples, 1 + nx};
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* c = PySequence_Fast_GET_ITEM(seq, k);
    if (!PyObject_TypeCheck(c, &Context_Type) || ((ContextObject*)c)->tree != self->tree) {
      PyErr_Format(PyExc_TypeError, "rollouts: item %zd is not a Context of the batch's tree", k);
      return -1;
    }
    arrays[k].x_final = PyArray_SimpleNew(1, &nx, NPY_DOUBLE);
    arrays[k].trajectory = num_samples ? PyArray_SimpleNew(2, dims, NPY_DOUBLE) : NULL;
    if (!arrays[k].x_final || (num_samples && !arrays[k].trajectory)) return -1;
    r[k].initial = ((ContextObject*)c)->ctx;
    r[k].t_final = t_final;
    r[k].num_samples = num_samples;
    r[k].trajectory = num_samples ? PyArray_DATA((PyArrayObject*)arrays[k].trajectory) : NULL;
    r[k].x_final = PyArray_DATA((PyArrayObject*)arrays[k].x_final);
  }
  return 0;
}

static PyObject* result_dict(const mbt_rollout* r, rollout_arrays* a) {
  return Py_BuildValue("{s:i,s:s,s:d,s:O,s:O,s:N}", "status", r->status, "error",
                       r->status == MBT_OK ? "" : r->error, "t_reached", r->t_reached, "x_final",
                       a->x_final, "trajectory", a->trajectory ? a->trajectory : Py_None, "stats",
                       mbtpy_stats_dict(&r->stats));
}

static PyObject* run(BatchObject* self, PyObject* seq, double t_final, int num_samples,
                     const mbt_simulator_options* o) {
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  mbt_rollout* r = PyMem_Calloc((size_t)n + 1, sizeof *r);
  rollout_arrays* arrays = PyMem_Calloc((size_t)n + 1, sizeof *arrays);
  PyObject* out = NULL;
  if (!r || !arrays) {
    PyErr_NoMemory();
  } else if (prepare(self, seq, t_final, num_samples, r, arrays, n) == 0 && !mbtpy_batch_begin(self)) {
    int s;
    Py_BEGIN_ALLOW_THREADS
    s = mbt_batch_rollouts(self->batch, o, r, (int)n, NULL, NULL);
    Py_END_ALLOW_THREADS
    self->running = 0;
    if (s == MBT_ERR_INVALID_ARGUMENT) mbtpy_raise(s, mbt_batch_last_error(self->batch));
    else out = PyList_New(n);
    for (Py_ssize_t k = 0; out && k < n; ++k) {
      PyObject* d = result_dict(&r[k], &arrays[k]);
      if (!d) Py_CLEAR(out);
      else PyList_SET_ITEM(out, k, d);
    }
  }
  for (Py_ssize_t k = 0; arrays && k < n; ++k) {
    Py_XDECREF(arrays[k].x_final);
    Py_XDECREF(arrays[k].trajectory);
  }
  PyMem_Free(r);
  PyMem_Free(arrays);
  return out;
}

PyObject* mbtpy_batch_rollouts(BatchObject* self, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"contexts", "t_final", "num_samples", "integrator", "dt", "rtol", "atol",
                           "min_dt", NULL};
  PyObject* contexts;
  double t_final;
  int num_samples = 0;
  const char* integrator = "rk45";
  mbt_simulator_options o = mbt_simulator_default_options();
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "Od|isdddd:rollouts", kwlist, &contexts, &t_final,
                                   &num_samples, &integrator, &o.dt, &o.rtol, &o.atol, &o.min_dt))
    return NULL;
  const int it = mbt_integrator_from_name(integrator);
  if (it < 0) return PyErr_Format(PyExc_ValueError, "unknown integrator '%s'", integrator);
  if (num_samples == 1 || num_samples < 0)
    return PyErr_Format(PyExc_ValueError, "rollouts: num_samples must be 0 (no trajectory) or >= 2");
  o.integrator = (mbt_integrator_type)it;
  PyObject* seq = PySequence_Fast(contexts, "rollouts: contexts must be a sequence of Context");
  if (!seq) return NULL;
  PyObject* out = run(self, seq, t_final, num_samples, &o);   /* seq keeps the contexts alive */
  Py_DECREF(seq);
  return out;
}
