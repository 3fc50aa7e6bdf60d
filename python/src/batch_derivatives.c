/* batch_derivatives.c: the analytic derivatives of mbt.Batch (batch.h): n states at once on
 * the batch's threads, the GIL released, each state bit for bit the single call. Results are
 * stacked per state (n x nv, n x nv x nv, ...); out= is a tuple of arrays of those shapes. */
#include "mbtpy.h"

#define MAX_OUT 4

typedef struct {
  int num;
  int ndim[MAX_OUT];
  npy_intp dims[MAX_OUT][3];
  PyArrayObject* arr[MAX_OUT];
} batch_outputs;

static int make_outputs(PyObject* out, const char* name, batch_outputs* o) {
  return mbtpy_output_tuple(out, name, o->num, o->ndim, (const npy_intp(*)[3])o->dims, o->arr);
}

static double* data(batch_outputs* o, int k) { return (double*)PyArray_DATA(o->arr[k]); }

/* The tuple of outputs, or the error of the lowest-numbered failed state (unless the caller
 * passed status=, which then holds each state's status). */
static PyObject* finish(BatchObject* self, int s, const int* status, batch_outputs* o) {
  if (s == MBT_OK || (status && s != MBT_ERR_INVALID_ARGUMENT)) return mbtpy_tuple_of(o->num, o->arr);
  for (int k = 0; k < o->num; ++k) Py_DECREF(o->arr[k]);
  return mbtpy_raise(s, mbt_batch_last_error(self->batch));
}

/* The shared front: x (n rows), status, two optional per-state inputs u1, u2 (n x nv). */
typedef struct {
  npy_intp n;
  const double *x, *u1, *u2;
  PyObject *hx, *h1, *h2;
  int* status;
} batch_inputs;

static int read_inputs(BatchObject* self, PyObject* x, PyObject* u1, const char* n1, PyObject* u2, const char* n2,
                       PyObject* status, batch_inputs* in) {
  in->hx = in->h1 = in->h2 = NULL;
  in->u1 = in->u2 = NULL;
  const npy_intp nx = self->nq + self->nv;
  if (!x) {
    PyErr_SetString(PyExc_TypeError, "x is required");
    return -1;
  }
  if (mbtpy_batch_rows(x, "x", nx, &in->n) || mbtpy_batch_status(status, in->n, &in->status) ||
      mbtpy_input(x, "x", in->n, nx, 0, &in->hx, &in->x) ||
      (n1 && mbtpy_input(u1, n1, in->n, self->nv, 1, &in->h1, &in->u1)) ||
      (n2 && mbtpy_input(u2, n2, in->n, self->nv, 1, &in->h2, &in->u2)))
    return -1;
  return 0;
}
static void release_inputs(batch_inputs* in) {
  Py_XDECREF(in->hx);
  Py_XDECREF(in->h1);
  Py_XDECREF(in->h2);
}

static void set_shape(batch_outputs* o, int k, npy_intp n, npy_intp rows, npy_intp cols) {
  o->ndim[k] = cols ? 3 : 2;
  o->dims[k][0] = n, o->dims[k][1] = rows, o->dims[k][2] = cols;
}

/* inverse_dynamics_derivatives(x, vdot=None, tau_applied=None, out=None, status=None) and
 * forward_dynamics_derivatives(x, tau=None, out=None, status=None). */
static PyObject* dynamics_derivatives(BatchObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                                      int inverse) {
  static const char* const id_names[] = {"x", "vdot", "tau_applied", "out", "status"};
  static const char* const fd_names[] = {"x", "tau", "out", "status"};
  const char* fname = inverse ? "inverse_dynamics_derivatives" : "forward_dynamics_derivatives";
  PyObject* a[5] = {NULL};
  batch_inputs in;
  batch_outputs o = {.num = 4};
  if (mbtpy_parse(fname, args, nargs, kwnames, inverse ? id_names : fd_names, inverse ? 5 : 4, a)) return NULL;
  PyObject* out = inverse ? a[3] : a[2];
  PyObject* status = inverse ? a[4] : a[3];
  int began = 0, s = MBT_OK;
  if (!read_inputs(self, a[0], a[1], inverse ? "vdot" : "tau", a[2], inverse ? "tau_applied" : NULL, status, &in)) {
    set_shape(&o, 0, in.n, self->nv, 0);
    for (int k = 1; k < 4; ++k) set_shape(&o, k, in.n, self->nv, self->nv);
    began = !mbtpy_batch_begin(self);
  }
  if (!began || make_outputs(out, fname, &o)) {
    if (began) self->running = 0;
    release_inputs(&in);
    return NULL;
  }
  Py_BEGIN_ALLOW_THREADS
  s = inverse ? mbt_batch_calc_inverse_dynamics_derivatives(self->batch, (int)in.n, in.x, in.u1, in.u2, data(&o, 0),
                                                            data(&o, 1), data(&o, 2), data(&o, 3), in.status)
              : mbt_batch_calc_forward_dynamics_derivatives(self->batch, (int)in.n, in.x, in.u1, data(&o, 0),
                                                            data(&o, 1), data(&o, 2), data(&o, 3), in.status);
  Py_END_ALLOW_THREADS
  self->running = 0;
  release_inputs(&in);
  return finish(self, s, in.status, &o);
}
static PyObject* inverse_dynamics_derivatives(BatchObject* self, PyObject* const* args, Py_ssize_t nargs,
                                              PyObject* kw) {
  return dynamics_derivatives(self, args, nargs, kw, 1);
}
static PyObject* forward_dynamics_derivatives(BatchObject* self, PyObject* const* args, Py_ssize_t nargs,
                                              PyObject* kw) {
  return dynamics_derivatives(self, args, nargs, kw, 0);
}

/* semi_implicit_euler_step_derivatives(h, x, tau=None, out=None, status=None) -> (x_next, A, B). */
static PyObject* euler_step_derivatives(BatchObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  static const char* const names[] = {"h", "x", "tau", "out", "status"};
  const char* fname = "semi_implicit_euler_step_derivatives";
  PyObject* a[5];
  batch_inputs in;
  batch_outputs o = {.num = 3};
  if (mbtpy_parse(fname, args, nargs, kw, names, 5, a)) return NULL;
  const double h = a[0] ? PyFloat_AsDouble(a[0]) : -1;
  if (!a[0]) return PyErr_Format(PyExc_TypeError, "%s: h is required", fname);
  if (h == -1 && PyErr_Occurred()) return NULL;
  int began = 0, s = MBT_OK;
  if (!read_inputs(self, a[1], a[2], "tau", NULL, NULL, a[4], &in)) {
    set_shape(&o, 0, in.n, self->nq + self->nv, 0);
    set_shape(&o, 1, in.n, 2 * self->nv, 2 * self->nv);
    set_shape(&o, 2, in.n, 2 * self->nv, self->nv);
    began = !mbtpy_batch_begin(self);
  }
  if (!began || make_outputs(a[3], fname, &o)) {
    if (began) self->running = 0;
    release_inputs(&in);
    return NULL;
  }
  Py_BEGIN_ALLOW_THREADS
  s = mbt_batch_calc_semi_implicit_euler_step_derivatives(self->batch, (int)in.n, h, in.x, in.u1, data(&o, 0),
                                                          data(&o, 1), data(&o, 2), in.status);
  Py_END_ALLOW_THREADS
  self->running = 0;
  release_inputs(&in);
  return finish(self, s, in.status, &o);
}

#define FAST_KW METH_FASTCALL | METH_KEYWORDS
PyMethodDef mbtpy_batch_deriv_methods[] = {
    {"inverse_dynamics_derivatives", MBTPY_FAST(inverse_dynamics_derivatives), FAST_KW,
     "inverse_dynamics_derivatives(x, vdot=None, tau_applied=None, out=None, status=None)\n"
     "    -> (tau (n, nv), dtau_dq, dtau_dv, M (n, nv, nv each))\n\n"
     "Context.inverse_dynamics_derivatives at each row x_k = [q_k; v_k] (vdot, tau_applied: one\n"
     "row per state or None), on the batch's threads with the GIL released\n"
     "(mbt_batch_calc_inverse_dynamics_derivatives)."},
    {"forward_dynamics_derivatives", MBTPY_FAST(forward_dynamics_derivatives), FAST_KW,
     "forward_dynamics_derivatives(x, tau=None, out=None, status=None)\n"
     "    -> (vdot (n, nv), dvdot_dq, dvdot_dv, dvdot_dtau (n, nv, nv each))\n\n"
     "Context.forward_dynamics_derivatives at each row x_k (mbt_batch_calc_forward_dynamics_derivatives)."},
    {"semi_implicit_euler_step_derivatives", MBTPY_FAST(euler_step_derivatives), FAST_KW,
     "semi_implicit_euler_step_derivatives(h, x, tau=None, out=None, status=None)\n"
     "    -> (x_next (n, nq + nv), A (n, 2nv, 2nv), B (n, 2nv, nv))\n\n"
     "The linearized step of Context.semi_implicit_euler_step_derivatives at each row, as an\n"
     "iLQR or MPC solver wants it: x⁺ = [q⁺; v⁺], A = ∂(q⁺, v⁺)/∂(q, v) = [dq_dq dq_dv; dv_dq dv_dv],\n"
     "B = ∂(q⁺, v⁺)/∂tau = [dq_dtau; dv_dtau] (mbt_batch_calc_semi_implicit_euler_step_derivatives)."},
    {NULL, NULL, 0, NULL}};
