/* simulator.c: mbt.Simulator (sim.h): time integration with a Python controller and
 * observer. advance_to releases the GIL; the callbacks take it back while they run. */
#include "mbtpy.h"


/* Calls fn(t, q, v) with copies of q and v; NULL with the exception set on failure. */
static PyObject* call_back(SimulatorObject* self, PyObject* fn, double t, const double* q, const double* v) {
  PyObject* qa = mbtpy_copy_vector(q, self->nq);
  PyObject* va = mbtpy_copy_vector(v, self->nv);
  PyObject* r = qa && va ? PyObject_CallFunction(fn, "dOO", t, qa, va) : NULL;
  Py_XDECREF(qa);
  Py_XDECREF(va);
  return r;
}

static void keep_error(SimulatorObject* self) {
  if (!self->err_type) PyErr_Fetch(&self->err_type, &self->err_value, &self->err_tb);
  else PyErr_Clear();
}

static void control_cb(mbt_real t, const mbt_real* q, const mbt_real* v, mbt_real* tau, void* user) {
  SimulatorObject* self = user;
  PyGILState_STATE g = PyGILState_Ensure();
  memset(tau, 0, sizeof(double) * (size_t)self->nv);
  PyObject* r = self->err_type ? NULL : call_back(self, self->controller, t, q, v);
  if (r) {
    PyObject* hold;
    const double* d;
    if (mbtpy_input(r, "the controller's return value tau", 0, self->nv, 0, &hold, &d) == 0) {
      memcpy(tau, d, sizeof(double) * (size_t)self->nv);
      Py_XDECREF(hold);
    }
    Py_DECREF(r);
  }
  if (PyErr_Occurred()) keep_error(self);
  PyGILState_Release(g);
}

static bool observer_cb(const mbt_context* ctx, void* user) {
  SimulatorObject* self = user;
  PyGILState_STATE g = PyGILState_Ensure();
  bool go_on = !self->err_type;
  if (go_on && self->observer) {
    PyObject* r = call_back(self, self->observer, mbt_context_time(ctx), mbt_context_q(ctx), mbt_context_v(ctx));
    go_on = r && (r == Py_None || PyObject_IsTrue(r) == 1);
    Py_XDECREF(r);
    if (PyErr_Occurred()) keep_error(self);
  }
  go_on = go_on && !self->err_type;
  if (go_on) {
    mbt_context_get_x(ctx, self->last_x, self->nq + self->nv);
    self->last_x[self->nq + self->nv] = mbt_context_time(ctx);
  }
  PyGILState_Release(g);
  return go_on;
}

static int check_callable(PyObject* fn, const char* name) {
  if (fn == Py_None || PyCallable_Check(fn)) return 0;
  PyErr_Format(PyExc_TypeError, "%s must be callable or None", name);
  return -1;
}

/* Installs the callbacks: none at all when there is nothing to call (no GIL round trips). */
static void install_callbacks(SimulatorObject* self) {
  mbt_simulator_set_control(self->sim, self->controller ? control_cb : NULL, self);
  mbt_simulator_set_observer(self->sim, self->observer || self->controller ? observer_cb : NULL, self);
}

static int set_callback(SimulatorObject* self, PyObject** slot, PyObject* fn, const char* name) {
  if (self->running) {
    PyErr_SetString(PyExc_RuntimeError, "the simulator is running");
    return -1;
  }
  if (!fn) fn = Py_None;
  if (check_callable(fn, name)) return -1;
  Py_XSETREF(*slot, fn == Py_None ? NULL : Py_NewRef(fn));
  install_callbacks(self);
  return 0;
}

static PyObject* sim_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"context", "integrator", "dt", "rtol", "atol", "min_dt", "controller",
                           "observer", "contact_model", NULL};
  PyObject *ctx_obj, *controller = Py_None, *observer = Py_None, *contact = Py_None;
  const char* integrator = "rk45";
  mbt_simulator_options o = mbt_simulator_default_options();
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!|sddddOOO:Simulator", kwlist, &Context_Type,
                                   &ctx_obj, &integrator, &o.dt, &o.rtol, &o.atol, &o.min_dt,
                                   &controller, &observer, &contact) ||
      check_callable(controller, "controller") || check_callable(observer, "observer"))
    return NULL;
  const int it = mbt_integrator_from_name(integrator);
  if (it < 0)
    return PyErr_Format(PyExc_ValueError, "unknown integrator '%s' (euler, semi_implicit_euler, "
                        "rk4, rk45, time_stepping)", integrator);
  o.integrator = (mbt_integrator_type)it;
  ContextObject* c = (ContextObject*)ctx_obj;
  mbt_simulator* sim = mbt_simulator_create(c->tree->tree, c->ctx, &o);
  if (!sim) return mbtpy_raise(MBT_ERR_INVALID_ARGUMENT, mbt_context_last_error(c->ctx));
  SimulatorObject* self = (SimulatorObject*)type->tp_alloc(type, 0);
  double* last_x = PyMem_Calloc((size_t)(c->nq + c->nv + 1), sizeof(double));
  if (!self || !last_x) {
    mbt_simulator_destroy(sim);
    PyMem_Free(last_x);
    Py_XDECREF(self);
    return PyErr_NoMemory();
  }
  self->sim = sim;
  self->last_x = last_x;
  self->tree = (TreeObject*)Py_NewRef((PyObject*)c->tree);
  self->nq = c->nq;
  self->nv = c->nv;
  self->controller = controller == Py_None ? NULL : Py_NewRef(controller);
  self->observer = observer == Py_None ? NULL : Py_NewRef(observer);
  install_callbacks(self);
  if (contact != Py_None && mbtpy_sim_set_contact_model(self, contact, NULL) < 0) {
    Py_DECREF(self);
    return NULL;
  }
  return (PyObject*)self;
}

static int sim_traverse(SimulatorObject* self, visitproc visit, void* arg) {
  Py_VISIT(self->controller);
  Py_VISIT(self->observer);
  return 0;
}
static int sim_clear(SimulatorObject* self) {
  Py_CLEAR(self->controller);
  Py_CLEAR(self->observer);
  if (self->sim) install_callbacks(self);
  return 0;
}
static void sim_dealloc(SimulatorObject* self) {
  PyObject_GC_UnTrack(self);
  sim_clear(self);
  mbt_simulator_destroy(self->sim);
  PyMem_Free(self->last_x);
  Py_XDECREF(self->tree);
  Py_XDECREF(self->contact);
  Py_XDECREF(self->err_type);
  Py_XDECREF(self->err_value);
  Py_XDECREF(self->err_tb);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

PyDoc_STRVAR(advance_to_doc,
"advance_to(t_final) -> bool\n\n"
"Integrates to t_final (mbt_simulator_advance_to), with the GIL released: other Python\n"
"threads run meanwhile (the callbacks take the GIL while they run). True when t_final is\n"
"reached, False when the observer returned False. An exception raised by a callback stops\n"
"the run and is re-raised here, with the state at the last step accepted before it; a failed\n"
"step raises mbt.Error (mbt.SingularError, ...) with\n"
"the state at the last accepted step.");
static PyObject* sim_advance_to(SimulatorObject* self, PyObject* arg) {
  const double t = PyFloat_AsDouble(arg);
  if (t == -1 && PyErr_Occurred()) return NULL;
  if (self->running) {
    PyErr_SetString(PyExc_RuntimeError, "the simulator is already running in another thread");
    return NULL;
  }
  self->running = 1;
  int s;
  Py_BEGIN_ALLOW_THREADS
  s = mbt_simulator_advance_to(self->sim, t);
  Py_END_ALLOW_THREADS
  self->running = 0;
  if (self->err_type) {
    /* Back to the last step taken before the callback failed. */
    mbt_context* ctx = mbt_simulator_context(self->sim);
    mbt_context_set_x(ctx, self->last_x, self->nq + self->nv);
    mbt_context_set_time(ctx, self->last_x[self->nq + self->nv]);
    PyErr_Restore(self->err_type, self->err_value, self->err_tb);
    self->err_type = self->err_value = self->err_tb = NULL;
    return NULL;
  }
  if (s == MBT_OK) Py_RETURN_TRUE;
  if (s == MBT_ERR_INTERRUPTED) Py_RETURN_FALSE;
  return mbtpy_raise(s, mbt_simulator_last_error(self->sim));
}

static PyObject* sim_time_derivatives(SimulatorObject* self, PyObject* args) {
  PyObject* ctx_obj = NULL;
  if (!PyArg_ParseTuple(args, "|O!:time_derivatives", &Context_Type, &ctx_obj)) return NULL;
  const mbt_context* ctx = ctx_obj ? ((ContextObject*)ctx_obj)->ctx : mbt_simulator_context(self->sim);
  if (ctx_obj && ((ContextObject*)ctx_obj)->tree != self->tree)
    return mbtpy_raise(MBT_ERR_INVALID_ARGUMENT, "time_derivatives: the context belongs to another tree");
  npy_intp n = self->nq + self->nv;
  PyObject* out = PyArray_SimpleNew(1, &n, NPY_DOUBLE);
  if (!out) return NULL;
  const int s = mbt_simulator_calc_time_derivatives(self->sim, ctx, PyArray_DATA((PyArrayObject*)out));
  if (self->err_type) {
    Py_DECREF(out);
    PyErr_Restore(self->err_type, self->err_value, self->err_tb);
    self->err_type = self->err_value = self->err_tb = NULL;
    return NULL;
  }
  if (s == MBT_OK) return out;
  Py_DECREF(out);
  return mbtpy_raise(s, mbt_simulator_last_error(self->sim));
}

static PyObject* sim_set_limit_penalty(SimulatorObject* self, PyObject* args) {
  double k, c;
  if (!PyArg_ParseTuple(args, "dd:set_limit_penalty", &k, &c)) return NULL;
  if (!(k >= 0 && c >= 0 && k < INFINITY && c < INFINITY))
    return mbtpy_raise(MBT_ERR_INVALID_ARGUMENT,
                       "set_limit_penalty: stiffness and damping must be finite and >= 0");
  mbt_simulator_set_limit_penalty(self->sim, k, c);
  Py_RETURN_NONE;
}

static PyObject* sim_get_context(SimulatorObject* self, void* c) {
  (void)c;
  return mbtpy_context_new(self->tree, mbt_simulator_context(self->sim), (PyObject*)self);
}
PyObject* mbtpy_stats_dict(const mbt_simulator_stats* s) {
  const mbt_simulator_stats st = *s;
  return Py_BuildValue("{s:l,s:l,s:l,s:l,s:l,s:l,s:l,s:l,s:d}", "steps_taken", st.steps_taken, "steps_rejected",
                       st.steps_rejected, "dynamics_evaluations", st.dynamics_evaluations,
                       "limit_events", st.limit_events, "contact_points", st.contact_points,
                       "contact_iterations", st.contact_iterations, "contact_unconverged",
                       st.contact_unconverged, "contacts_dropped", st.contacts_dropped, "contact_residual_max",
                       st.contact_residual_max);
}
static PyObject* sim_get_stats(SimulatorObject* self, void* c) {
  (void)c;
  const mbt_simulator_stats st = mbt_simulator_get_stats(self->sim);
  return mbtpy_stats_dict(&st);
}
static PyObject* sim_get_controller(SimulatorObject* self, void* c) {
  (void)c;
  return Py_NewRef(self->controller ? self->controller : Py_None);
}
static int sim_set_controller(SimulatorObject* self, PyObject* fn, void* c) {
  (void)c;
  return set_callback(self, &self->controller, fn, "controller");
}
static PyObject* sim_get_observer(SimulatorObject* self, void* c) {
  (void)c;
  return Py_NewRef(self->observer ? self->observer : Py_None);
}
static int sim_set_observer(SimulatorObject* self, PyObject* fn, void* c) {
  (void)c;
  return set_callback(self, &self->observer, fn, "observer");
}

static PyGetSetDef sim_getset[] = {
    {"context", (getter)sim_get_context, NULL,
     "The simulator's own context (the state at the current time). Changes to its state,\n"
     "damping and locks are taken up by the next advance_to.", NULL},
    {"stats", (getter)sim_get_stats, NULL,
     "dict: steps_taken, steps_rejected, dynamics_evaluations, limit_events, and for contact\n"
     "contact_points, contact_iterations, contact_unconverged, contacts_dropped (over all steps),\n"
     "contact_residual_max (the largest relative residual a contact solve ended with).", NULL},
    {"contact_model", (getter)mbtpy_sim_get_contact_model, (setter)mbtpy_sim_set_contact_model,
     "The mbt.ContactModel every 'time_stepping' step solves contact with, or None (the other\n"
     "integrators refuse one). Giving it freezes the model (no more shapes).", NULL},
    {"controller", (getter)sim_get_controller, (setter)sim_set_controller,
     "tau = controller(t, q, v): generalized forces (nv) added at every evaluation, or None.", NULL},
    {"observer", (getter)sim_get_observer, (setter)sim_set_observer,
     "observer(t, q, v), called at the start and after every accepted step; return False to\n"
     "stop the run. Or None.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef sim_methods[] = {
    {"advance_to", (PyCFunction)sim_advance_to, METH_O, advance_to_doc},
    {"time_derivatives", (PyCFunction)sim_time_derivatives, METH_VARARGS,
     "time_derivatives(context=None) -> ndarray (nq + nv): ẋ = [N(q)·v; v̇] at the state of\n"
     "context (default: the simulator's), with the controller and the limit penalty."},
    {"set_limit_penalty", (PyCFunction)sim_set_limit_penalty, METH_VARARGS,
     "set_limit_penalty(stiffness, damping): joint-limit penalty tau = −k·δ − c·δ̇ beyond a\n"
     "limit (defaults 1e4, 1e2; k = 0 disables the limits)."},
    {NULL, NULL, 0, NULL}};

PyTypeObject Simulator_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "mbt.Simulator",
    .tp_basicsize = sizeof(SimulatorObject),
    .tp_dealloc = (destructor)sim_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Simulator(context, integrator='rk45', dt=1e-3, rtol=1e-6, atol=1e-8, min_dt=1e-12,\n"
              "          controller=None, observer=None, contact_model=None)\n\n"
              "Integrates x = [q; v] from a copy of `context` with q̇ = N(q)·v and v̇ from forward\n"
              "dynamics (gravity, damping, springs, joint-limit penalty, the controller's tau).\n"
              "integrator: 'euler', 'semi_implicit_euler', 'rk4' (fixed step dt) or 'rk45'\n"
              "(Dormand-Prince with error control; dt is the first and largest step), or\n"
              "'time_stepping' (semi-implicit Euler, v⁺ = v + h·v̇, q⁺ = q ⊕ h·v⁺, with the contact\n"
              "impulses of contact_model solved implicitly). docs/sim.md, docs/contact.md.",
    .tp_traverse = (traverseproc)sim_traverse,
    .tp_clear = (inquiry)sim_clear,
    .tp_methods = sim_methods,
    .tp_getset = sim_getset,
    .tp_new = sim_new,
};
