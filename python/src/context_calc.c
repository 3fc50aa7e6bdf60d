/* context_calc.c: the dynamics Calc methods of mbt.Context (dynamics.h): inverse dynamics,
 * mass matrix, bias term, gravity, forward dynamics, energies, force elements.
 *
 * Every method parses its arguments by hand (vectorcall), reads float64 inputs in place and
 * writes into out= or a new array: the cost over the C call is a few hundred nanoseconds. */
#include "mbtpy.h"

#define TREE(self) ((self)->tree->tree)
#define DATA(a) ((double*)PyArray_DATA(a))
#define FASTARGS PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames

/* Returns `out`, or releases it and raises the context's error for a failed status. */
static PyObject* finish(ContextObject* self, int status, PyArrayObject* out) {
  if (status == MBT_OK) return (PyObject*)out;
  Py_DECREF(out);
  return mbtpy_raise(status, mbt_context_last_error(self->ctx));
}

/* Per-body spatial forces (nb x 6, body order) to the node order the C API uses. */
static void bodies_to_nodes(ContextObject* self, const double* F_body, double* F_node) {
  for (int b = 0; b < self->nb; ++b)
    memcpy(F_node + 6 * mbt_tree_body_node(TREE(self), b), F_body + 6 * b, 6 * sizeof(double));
}
static void nodes_to_bodies(ContextObject* self, const double* F_node, double* F_body) {
  for (int b = 0; b < self->nb; ++b)
    memcpy(F_body + 6 * b, F_node + 6 * mbt_tree_body_node(TREE(self), b), 6 * sizeof(double));
}

/* The applied spatial forces argument: NULL when None, else in the context's scratch. */
static int applied_forces(ContextObject* self, PyObject* obj, const mbt_spatial_force** F) {
  PyObject* hold;
  const double* d;
  *F = NULL;
  if (mbtpy_input(obj, "F_applied (num_bodies x 6: [torque; force] at each Bo, in W)", self->nb, 6,
                  1, &hold, &d))
    return -1;
  if (d) {
    bodies_to_nodes(self, d, self->scratch);
    *F = (const mbt_spatial_force*)self->scratch;
  }
  Py_XDECREF(hold);
  return 0;
}

/* ---- inverse dynamics ----------------------------------------------------------------- */
PyDoc_STRVAR(inverse_dynamics_doc,
"inverse_dynamics(vdot=None, out=None) -> ndarray (nv)\n\n"
"Inverse dynamics with gravity, as Pinocchio's rnea and MuJoCo's mj_rne compute it\n"
"(mbt_calc_inverse_dynamics_with_gravity; tau_id of `mbt eval`):\n"
"    tau = M(q)·v̇ + C(q,v)·v − tau_g(q)\n"
"at the context's q and v; vdot None means zero. Damping, springs and other force elements\n"
"are not included. One O(n) pass in body frames with gravity as a base acceleration\n"
"[Featherstone 2008, §5.3].");
static PyObject* inverse_dynamics(ContextObject* self, FASTARGS) {
  static const char* const names[] = {"vdot", "out"};
  PyObject *a[2], *hold;
  const double* vdot;
  npy_intp n = self->nv;
  if (mbtpy_parse("inverse_dynamics", args, nargs, kwnames, names, 2, a) ||
      mbtpy_input(a[0], "vdot", 0, n, 1, &hold, &vdot))
    return NULL;
  PyArrayObject* out = mbtpy_output(a[1], "inverse_dynamics", 1, &n);
  if (!out) {
    Py_XDECREF(hold);
    return NULL;
  }
  const int s = mbt_calc_inverse_dynamics_with_gravity(TREE(self), self->ctx, vdot, DATA(out));
  Py_XDECREF(hold);
  return finish(self, s, out);
}

PyDoc_STRVAR(inverse_dynamics_applied_doc,
"inverse_dynamics_applied(vdot, tau_applied=None, F_applied=None, out=None) -> ndarray (nv)\n\n"
"Seed CalcInverseDynamics (recursive Newton-Euler, mbt_calc_inverse_dynamics):\n"
"    tau = M(q)·v̇ + C(q,v)·v − tau_applied − Σ J_WBᵀ·F_applied_Bo_W\n"
"Gravity is NOT included: pass it in (for example tau_applied = gravity_forces()).\n"
"F_applied: num_bodies x 6, row b the spatial force [torque; force] on body b at its origin\n"
"Bo, expressed in W.");
static PyObject* inverse_dynamics_applied(ContextObject* self, FASTARGS) {
  static const char* const names[] = {"vdot", "tau_applied", "F_applied", "out"};
  PyObject *a[4], *hv = NULL, *ht = NULL;
  const double *vdot, *tau_app;
  const mbt_spatial_force* F;
  npy_intp n = self->nv;
  PyArrayObject* out = NULL;
  if (!mbtpy_parse("inverse_dynamics_applied", args, nargs, kwnames, names, 4, a) &&
      !mbtpy_input(a[0], "vdot", 0, n, 0, &hv, &vdot) &&
      !mbtpy_input(a[1], "tau_applied", 0, n, 1, &ht, &tau_app) && !applied_forces(self, a[2], &F))
    out = mbtpy_output(a[3], "inverse_dynamics_applied", 1, &n);
  int s = MBT_OK;
  if (out) s = mbt_calc_inverse_dynamics(TREE(self), self->ctx, vdot, F, tau_app, NULL, NULL, DATA(out));
  Py_XDECREF(hv);
  Py_XDECREF(ht);
  return out ? finish(self, s, out) : NULL;
}

/* ---- methods of the form fn(tree, ctx, out) --------------------------------------------- */
typedef int (*array_fn)(const mbt_tree*, mbt_context*, mbt_real*);
static PyObject* calc_array(ContextObject* self, FASTARGS, const char* name, int square, array_fn fn) {
  static const char* const names[] = {"out"};
  PyObject* a[1];
  npy_intp dims[2] = {self->nv, self->nv};
  if (mbtpy_parse(name, args, nargs, kwnames, names, 1, a)) return NULL;
  PyArrayObject* out = mbtpy_output(a[0], name, square ? 2 : 1, dims);
  return out ? finish(self, fn(TREE(self), self->ctx, DATA(out)), out) : NULL;
}
static PyObject* mass_matrix(ContextObject* self, FASTARGS) {
  return calc_array(self, args, nargs, kwnames, "mass_matrix", 1, mbt_calc_mass_matrix);
}
static PyObject* mass_matrix_via_id(ContextObject* self, FASTARGS) {
  return calc_array(self, args, nargs, kwnames, "mass_matrix_via_inverse_dynamics", 1,
                    mbt_calc_mass_matrix_via_inverse_dynamics);
}
static PyObject* bias_term(ContextObject* self, FASTARGS) {
  return calc_array(self, args, nargs, kwnames, "bias_term", 0, mbt_calc_bias_term);
}
static PyObject* gravity_forces(ContextObject* self, FASTARGS) {
  return calc_array(self, args, nargs, kwnames, "gravity_forces", 0, mbt_calc_gravity_generalized_forces);
}

/* ---- forward dynamics ----------------------------------------------------------------- */
typedef int (*fd_fn)(const mbt_tree*, mbt_context*, const mbt_real*, const mbt_spatial_force*, mbt_real*);
static PyObject* calc_fd(ContextObject* self, FASTARGS, const char* name, fd_fn fn) {
  static const char* const names[] = {"tau", "F_applied", "out"};
  PyObject *a[3], *ht = NULL;
  const double* tau;
  const mbt_spatial_force* F;
  npy_intp n = self->nv;
  PyArrayObject* out = NULL;
  if (!mbtpy_parse(name, args, nargs, kwnames, names, 3, a) &&
      !mbtpy_input(a[0], "tau", 0, n, 1, &ht, &tau) && !applied_forces(self, a[1], &F))
    out = mbtpy_output(a[2], name, 1, &n);
  int s = MBT_OK;
  if (out) s = fn(TREE(self), self->ctx, tau, F, DATA(out));
  Py_XDECREF(ht);
  return out ? finish(self, s, out) : NULL;
}
PyDoc_STRVAR(forward_dynamics_doc,
"forward_dynamics(tau=None, F_applied=None, out=None) -> ndarray (nv)\n\n"
"Forward dynamics by the articulated-body algorithm, O(n) [Featherstone 2008, §7.3]\n"
"(mbt_calc_forward_dynamics; qdd of `mbt eval`):\n"
"    v̇ = M⁻¹·(tau + Σ J_WBᵀ·F_applied_Bo_W + tau_forces − C(q,v)·v)\n"
"where tau_forces are all force elements (gravity, springs, user) and the context's joint\n"
"damping. Locked joints get v̇ = 0. Raises mbt.SingularError naming the body if an\n"
"articulated inertia is singular (massless tip, ...).");
static PyObject* forward_dynamics(ContextObject* self, FASTARGS) {
  return calc_fd(self, args, nargs, kwnames, "forward_dynamics", mbt_calc_forward_dynamics);
}
static PyObject* forward_dynamics_via_mm(ContextObject* self, FASTARGS) {
  return calc_fd(self, args, nargs, kwnames, "forward_dynamics_via_mass_matrix",
                 mbt_calc_forward_dynamics_via_mass_matrix);
}

/* ---- scalars and force elements --------------------------------------------------------- */
typedef int (*scalar_fn)(const mbt_tree*, mbt_context*, mbt_real*);
static PyObject* calc_scalar(ContextObject* self, scalar_fn fn) {
  double value;
  const int s = fn(TREE(self), self->ctx, &value);
  return s == MBT_OK ? PyFloat_FromDouble(value) : mbtpy_raise(s, mbt_context_last_error(self->ctx));
}
static PyObject* kinetic_energy(ContextObject* self, PyObject* u) {
  (void)u;
  return calc_scalar(self, mbt_calc_kinetic_energy);
}
static PyObject* potential_energy(ContextObject* self, PyObject* u) {
  (void)u;
  return calc_scalar(self, mbt_calc_potential_energy);
}
static PyObject* conservative_power(ContextObject* self, PyObject* u) {
  (void)u;
  return calc_scalar(self, mbt_calc_conservative_power);
}

static PyObject* force_elements(ContextObject* self, PyObject* u) {
  (void)u;
  mbt_multibody_forces* f = mbt_multibody_forces_create(TREE(self));
  if (!f) return PyErr_NoMemory();
  npy_intp dims[2] = {self->nb, 6}, nv = self->nv;
  PyObject *tau = NULL, *F = NULL, *out = NULL;
  const int s = mbt_calc_force_elements_contribution(TREE(self), self->ctx, f);
  if (s != MBT_OK) {
    mbtpy_raise(s, mbt_context_last_error(self->ctx));
  } else if ((tau = mbtpy_copy_vector(f->tau, nv)) && (F = PyArray_SimpleNew(2, dims, NPY_DOUBLE))) {
    nodes_to_bodies(self, (const double*)f->F_BBo_W, DATA((PyArrayObject*)F));
    out = Py_BuildValue("(OO)", tau, F);
  }
  Py_XDECREF(tau);
  Py_XDECREF(F);
  mbt_multibody_forces_destroy(f);
  return out;
}

#define FAST_KW METH_FASTCALL | METH_KEYWORDS
PyMethodDef mbtpy_context_calc_methods[] = {
    {"inverse_dynamics", MBTPY_FAST(inverse_dynamics), FAST_KW, inverse_dynamics_doc},
    {"inverse_dynamics_applied", MBTPY_FAST(inverse_dynamics_applied), FAST_KW, inverse_dynamics_applied_doc},
    {"mass_matrix", MBTPY_FAST(mass_matrix), FAST_KW,
     "mass_matrix(out=None) -> ndarray (nv, nv)\n\n"
     "M(q) by the composite-rigid-body algorithm [Featherstone 2008, §6.2]\n"
     "(mbt_calc_mass_matrix): full and symmetric, kinetic energy ½·vᵀ·M·v."},
    {"mass_matrix_via_inverse_dynamics", MBTPY_FAST(mass_matrix_via_id), FAST_KW,
     "mass_matrix_via_inverse_dynamics(out=None) -> ndarray (nv, nv)\n\n"
     "Seed CalcMassMatrixViaInverseDynamics: column j = inverse dynamics with v̇ = e_j, v = 0,\n"
     "no gravity. O(n²); for checking mass_matrix()."},
    {"bias_term", MBTPY_FAST(bias_term), FAST_KW,
     "bias_term(out=None) -> ndarray (nv)\n\n"
     "Seed CalcBiasTerm: C(q,v)·v, the Coriolis, centripetal and gyroscopic terms (no gravity)."},
    {"gravity_forces", MBTPY_FAST(gravity_forces), FAST_KW,
     "gravity_forces(out=None) -> ndarray (nv)\n\n"
     "tau_g(q), the generalized force of gravity (mbt_calc_gravity_generalized_forces), on the\n"
     "right-hand side: M·v̇ + C·v = tau_g + tau. Drake's CalcGravityGeneralizedForces."},
    {"forward_dynamics", MBTPY_FAST(forward_dynamics), FAST_KW, forward_dynamics_doc},
    {"forward_dynamics_via_mass_matrix", MBTPY_FAST(forward_dynamics_via_mm), FAST_KW,
     "forward_dynamics_via_mass_matrix(tau=None, F_applied=None, out=None) -> ndarray (nv)\n\n"
     "The same v̇ as forward_dynamics, by the mass matrix and its Cholesky factorization."},
    {"kinetic_energy", (PyCFunction)kinetic_energy, METH_NOARGS,
     "kinetic_energy() -> float: ½·vᵀ·M·v = ½·Σ V_WB·L_WBo (J)."},
    {"potential_energy", (PyCFunction)potential_energy, METH_NOARGS,
     "potential_energy() -> float: seed CalcPotentialEnergy, gravity of every body but the world\n"
     "(zero at the world origin) plus springs (J)."},
    {"conservative_power", (PyCFunction)conservative_power, METH_NOARGS,
     "conservative_power() -> float: seed CalcConservativePower, −dU/dt along the motion (W)."},
    {"force_elements", (PyCFunction)force_elements, METH_NOARGS,
     "force_elements() -> (tau (nv), F (num_bodies, 6))\n\n"
     "Seed CalcForceElementsContribution: generalized forces and spatial forces F_Bo_W (row b:\n"
     "[torque; force] on body b at Bo, in W) of gravity, springs, user elements and damping."},
    {NULL, NULL, 0, NULL}};
