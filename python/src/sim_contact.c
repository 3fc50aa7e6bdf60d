/* sim_contact.c: contact in mbt.Simulator (sim.h): the contact model, the solver and its
 * limits, and the last step's contact points and body forces. */
#include "mbtpy.h"

#include <string.h>

static int not_running(SimulatorObject* self) {
  if (!self->running) return 0;
  PyErr_SetString(PyExc_RuntimeError, "the simulator is running");
  return -1;
}

int mbtpy_sim_set_contact_model(SimulatorObject* self, PyObject* model, void* unused) {
  (void)unused;
  if (not_running(self)) return -1;
  if (model && model != Py_None && !PyObject_TypeCheck(model, &ContactModel_Type)) {
    PyErr_SetString(PyExc_TypeError, "contact_model must be an mbt.ContactModel or None");
    return -1;
  }
  ContactModelObject* cm = model && model != Py_None ? (ContactModelObject*)model : NULL;
  const int s = mbt_simulator_set_contact_model(self->sim, cm ? cm->model : NULL);
  if (s < 0) {
    mbtpy_raise(s, mbt_simulator_last_error(self->sim));
    return -1;
  }
  if (cm) cm->frozen = 1;
  Py_XSETREF(self->contact, (ContactModelObject*)Py_XNewRef((PyObject*)cm));
  return 0;
}

PyObject* mbtpy_sim_get_contact_model(SimulatorObject* self, void* unused) {
  (void)unused;
  return Py_NewRef(self->contact ? (PyObject*)self->contact : Py_None);
}

static PyObject* set_contact_solver(SimulatorObject* self, PyObject* args) {
  int iterations;
  double tolerance;
  if (!PyArg_ParseTuple(args, "id:set_contact_solver", &iterations, &tolerance) || not_running(self)) return NULL;
  const int s = mbt_simulator_set_contact_solver(self->sim, iterations, tolerance);
  if (s < 0) return mbtpy_raise(s, mbt_simulator_last_error(self->sim));
  Py_RETURN_NONE;
}

static PyObject* set_contact_solver_method(SimulatorObject* self, PyObject* args) {
  const char* name;
  if (!PyArg_ParseTuple(args, "s:set_contact_solver_method", &name) || not_running(self)) return NULL;
  mbt_contact_solver_method m;
  if (strcmp(name, "sap") == 0) {
    m = MBT_CONTACT_SOLVER_SAP;
  } else if (strcmp(name, "pgs") == 0) {
    m = MBT_CONTACT_SOLVER_PGS;
  } else {
    PyErr_Format(PyExc_ValueError, "set_contact_solver_method: 'sap' or 'pgs', got '%s'", name);
    return NULL;
  }
  const int s = mbt_simulator_set_contact_solver_method(self->sim, m);
  if (s < 0) return mbtpy_raise(s, mbt_simulator_last_error(self->sim));
  Py_RETURN_NONE;
}

static PyObject* vec3(mbt_vec3 v) { return mbtpy_copy_vector(v.v, 3); }

static PyObject* contacts(SimulatorObject* self, PyObject* unused) {
  (void)unused;
  if (not_running(self)) return NULL;
  const int n = mbt_simulator_num_contacts(self->sim);
  const mbt_contact_result* r = mbt_simulator_contact_results(self->sim);
  PyObject* list = PyList_New(n);
  for (int k = 0; list && k < n; ++k) {
    const mbt_contact_result* c = &r[k];
    PyObject* d = Py_BuildValue("{s:i,s:i,s:i,s:i,s:N,s:N,s:d,s:N,s:d,s:N,s:d}", "body_A", c->body_A, "body_B",
                                c->body_B, "shape_A", c->shape_A, "shape_B", c->shape_B, "p_WC", vec3(c->p_WC),
                                "nhat_BA_W", vec3(c->nhat_BA_W), "depth", c->depth, "f_BA_W", vec3(c->f_BA_W),
                                "fn", c->fn, "v_slip_W", vec3(c->v_slip_W), "vn", c->vn);
    if (!d) Py_CLEAR(list);
    else PyList_SET_ITEM(list, k, d);
  }
  return list;
}

static PyObject* contact_body_forces(SimulatorObject* self, PyObject* unused) {
  (void)unused;
  if (not_running(self)) return NULL;
  const int nb = mbt_tree_num_bodies(self->tree->tree);
  npy_intp dims[2] = {nb, 6};
  PyObject* out = PyArray_ZEROS(2, dims, NPY_DOUBLE, 0);
  if (!out) return NULL;
  const int s = mbt_simulator_contact_body_forces(self->sim, PyArray_DATA((PyArrayObject*)out), nb);
  if (s == MBT_OK) return out;
  Py_DECREF(out);
  return mbtpy_raise(s, mbt_simulator_last_error(self->sim));
}

PyMethodDef mbtpy_sim_contact_methods[] = {
    {"set_contact_solver", (PyCFunction)set_contact_solver, METH_VARARGS,
     "set_contact_solver(max_iterations, tolerance): the selected contact solver's iterations\n"
     "(>= 1, default 100) and relative tolerance (> 0; default SAP 1e-10, PGS 1e-6); needs a contact\n"
     "model."},
    {"set_contact_solver_method", (PyCFunction)set_contact_solver_method, METH_VARARGS,
     "set_contact_solver_method(name): 'sap' (default: convex, Newton's method, converges on every\n"
     "step) or 'pgs' (projected Gauss-Seidel on exact Coulomb friction); needs a contact model."},
    {"contacts", (PyCFunction)contacts, METH_NOARGS,
     "contacts() -> list of dict: the contact points of the last step. Each: body_A, body_B,\n"
     "shape_A, shape_B; p_WC (midway between the surfaces, at the step's start), nhat_BA_W (unit\n"
     "normal from B into A), depth (m); f_BA_W, the force on A from B at C (the step's impulse / h,\n"
     "−f on B) and fn >= 0 its normal part; v_slip_W, vn (> 0 separating) after the step."},
    {"contact_body_forces", (PyCFunction)contact_body_forces, METH_NOARGS,
     "contact_body_forces() -> ndarray (num_bodies, 6): the last step's total contact force on each\n"
     "body, F_Bo_W = [torque; force] at the body origin Bo, in W (row b: body b)."},
    {NULL, NULL, 0, NULL}};
