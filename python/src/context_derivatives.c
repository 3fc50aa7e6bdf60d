/* context_derivatives.c: the analytic derivatives of mbt.Context (derivatives.h) and the
 * configuration maps q ⊕ dv, q1 ⊖ q0 of mbt.Tree.
 *
 * Derivatives with respect to q are taken in the v space (column k of ∂f/∂q is
 * d/dε f(q ⊕ ε·e_k)), so every matrix is nv x nv. The work memory is made at the first call
 * and kept with the context; the calls then allocate nothing but the arrays they return
 * (none with out=). */
#include "mbtpy.h"

#define TREE(self) ((self)->tree->tree)
#define DATA(a) ((double*)PyArray_DATA(a))
#define FASTARGS PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames

static mbt_derivatives_workspace* workspace(ContextObject* self) {
  if (!self->ws) self->ws = mbt_derivatives_workspace_create(TREE(self));
  if (!self->ws) PyErr_NoMemory();
  return self->ws;
}

/* n outputs of the given shapes (ndim 1 when dims[k][1] == 0): new arrays, or the arrays of
 * the tuple `out`, each checked as mbtpy_output checks and all distinct. -1 with the error. */
static int outputs(PyObject* out, const char* name, int n, const npy_intp dims[][2], PyArrayObject** arr) {
  if (out && out != Py_None && (!PyTuple_Check(out) || PyTuple_GET_SIZE(out) != n)) {
    PyErr_Format(PyExc_TypeError, "%s: out must be None or a tuple of %d arrays", name, n);
    return -1;
  }
  for (int k = 0; k < n; ++k) {
    PyObject* o = out && out != Py_None ? PyTuple_GET_ITEM(out, k) : NULL;
    for (int i = 0; o && i < k; ++i)
      if ((PyObject*)arr[i] == o) {
        PyErr_Format(PyExc_ValueError, "%s: out[%d] is the same array as out[%d]", name, k, i);
        o = NULL;
      }
    arr[k] = PyErr_Occurred() ? NULL : mbtpy_output(o, name, dims[k][1] ? 2 : 1, dims[k]);
    if (!arr[k]) {
      for (int i = 0; i < k; ++i) Py_DECREF(arr[i]);
      return -1;
    }
  }
  return 0;
}

/* The tuple of the n outputs, or the context's error (the outputs released). */
static PyObject* finish(ContextObject* self, int status, int n, PyArrayObject** arr) {
  PyObject* t = status == MBT_OK ? PyTuple_New(n) : NULL;
  for (int k = 0; k < n; ++k) {
    if (t) PyTuple_SET_ITEM(t, k, (PyObject*)arr[k]);
    else Py_DECREF(arr[k]);
  }
  if (status != MBT_OK) return mbtpy_raise(status, mbt_context_last_error(self->ctx));
  return t;
}

/* ---- inverse and forward dynamics ------------------------------------------------------ */
PyDoc_STRVAR(id_derivatives_doc,
"inverse_dynamics_derivatives(vdot=None, tau_applied=None, out=None)\n"
"    -> (tau (nv), dtau_dq, dtau_dv, M (nv x nv each))\n\n"
"The inverse dynamics a trajectory optimizer inverts and its exact derivatives\n"
"(mbt_calc_inverse_dynamics_derivatives; Carpentier & Mansard, RSS 2018):\n"
"    tau = M(q)·v̇ + C(q,v)·v − tau_g(q) + D·v + K·(q − q0) − tau_applied\n"
"with this context's gravity and joint damping D and the revolute springs K. dtau_dq =\n"
"∂tau/∂q (in the v space: column k is d/dε tau(q ⊕ ε·e_k)), dtau_dv = ∂tau/∂v, and\n"
"M = ∂tau/∂v̇, the mass matrix. out: a tuple of 4 arrays to write into.");
static PyObject* inverse_dynamics_derivatives(ContextObject* self, FASTARGS) {
  static const char* const names[] = {"vdot", "tau_applied", "out"};
  PyObject *a[3], *hv = NULL, *ht = NULL;
  const double *vdot = NULL, *tau_app = NULL;
  const npy_intp n = self->nv, dims[4][2] = {{n, 0}, {n, n}, {n, n}, {n, n}};
  PyArrayObject* o[4];
  if (!workspace(self) || mbtpy_parse("inverse_dynamics_derivatives", args, nargs, kwnames, names, 3, a) ||
      mbtpy_input(a[0], "vdot", 0, n, 1, &hv, &vdot) || mbtpy_input(a[1], "tau_applied", 0, n, 1, &ht, &tau_app) ||
      outputs(a[2], "inverse_dynamics_derivatives", 4, dims, o)) {
    Py_XDECREF(hv);
    Py_XDECREF(ht);
    return NULL;
  }
  const int s = mbt_calc_inverse_dynamics_derivatives(TREE(self), self->ctx, self->ws, vdot, tau_app, DATA(o[0]),
                                                      DATA(o[1]), DATA(o[2]), DATA(o[3]));
  Py_XDECREF(hv);
  Py_XDECREF(ht);
  return finish(self, s, 4, o);
}

PyDoc_STRVAR(fd_derivatives_doc,
"forward_dynamics_derivatives(tau=None, out=None)\n"
"    -> (vdot (nv), dvdot_dq, dvdot_dv, dvdot_dtau (nv x nv each))\n\n"
"Forward dynamics v̇ = FD(q, v, tau) (the inverse of inverse_dynamics_derivatives' tau, as\n"
"forward_dynamics computes it) and its exact derivatives\n"
"(mbt_calc_forward_dynamics_derivatives):\n"
"    ∂v̇/∂(q, v) = −M⁻¹·∂tau/∂(q, v) at v̇ = FD,   ∂v̇/∂tau = M⁻¹\n"
"q directions in the v space. Locked joints: their rows of v̇ and of every matrix are zero.\n"
"mbt.SingularError for a singular mass matrix; mbt.InvalidArgumentError for a tree with\n"
"linear spring-dampers or user force elements (not differentiated).");
static PyObject* forward_dynamics_derivatives(ContextObject* self, FASTARGS) {
  static const char* const names[] = {"tau", "out"};
  PyObject *a[2], *ht = NULL;
  const double* tau = NULL;
  const npy_intp n = self->nv, dims[4][2] = {{n, 0}, {n, n}, {n, n}, {n, n}};
  PyArrayObject* o[4];
  if (!workspace(self) || mbtpy_parse("forward_dynamics_derivatives", args, nargs, kwnames, names, 2, a) ||
      mbtpy_input(a[0], "tau", 0, n, 1, &ht, &tau) || outputs(a[1], "forward_dynamics_derivatives", 4, dims, o)) {
    Py_XDECREF(ht);
    return NULL;
  }
  const int s = mbt_calc_forward_dynamics_derivatives(TREE(self), self->ctx, self->ws, tau, DATA(o[0]), DATA(o[1]),
                                                      DATA(o[2]), DATA(o[3]));
  Py_XDECREF(ht);
  return finish(self, s, 4, o);
}

/* ---- one matrix ------------------------------------------------------------------------- */
typedef int (*matrix_fn)(const mbt_tree*, mbt_context*, mbt_derivatives_workspace*, mbt_real*);
static PyObject* calc_matrix(ContextObject* self, FASTARGS, const char* name, matrix_fn fn) {
  static const char* const names[] = {"out"};
  PyObject* a[1];
  const npy_intp dims[2] = {self->nv, self->nv};
  if (!workspace(self) || mbtpy_parse(name, args, nargs, kwnames, names, 1, a)) return NULL;
  PyArrayObject* out = mbtpy_output(a[0], name, 2, dims);
  if (!out) return NULL;
  const int s = fn(TREE(self), self->ctx, self->ws, DATA(out));
  if (s == MBT_OK) return (PyObject*)out;
  Py_DECREF(out);
  return mbtpy_raise(s, mbt_context_last_error(self->ctx));
}
static PyObject* mass_matrix_inverse(ContextObject* self, FASTARGS) {
  return calc_matrix(self, args, nargs, kwnames, "mass_matrix_inverse", mbt_calc_mass_matrix_inverse);
}
static PyObject* gravity_forces_derivatives(ContextObject* self, FASTARGS) {
  return calc_matrix(self, args, nargs, kwnames, "gravity_forces_derivatives",
                     mbt_calc_gravity_generalized_forces_derivatives);
}

/* ---- bias accelerations and J̇ ----------------------------------------------------------- */
/* The frame and point arguments shared by the three; -1 with the error set. */
static int frame_point(ContextObject* self, PyObject* frame, PyObject* point, const char* name, int* f, mbt_vec3* p) {
  *p = mbt_vec3_zero();
  if (!frame) {
    PyErr_Format(PyExc_TypeError, "%s(frame, p_FoFp_F=(0, 0, 0))", name);
    return -1;
  }
  *f = mbtpy_index(TREE(self), frame, "frame");
  if (*f < 0 || (point && point != Py_None && mbtpy_vec3(point, "p_FoFp_F", p))) return -1;
  return workspace(self) ? 0 : -1;
}

static PyObject* bias_spatial_acceleration(ContextObject* self, FASTARGS) {
  static const char* const names[] = {"frame", "p_FoFp_F"};
  PyObject* a[2];
  int f;
  mbt_vec3 p;
  mbt_spatial_acceleration A;
  if (mbtpy_parse("bias_spatial_acceleration", args, nargs, kwnames, names, 2, a) ||
      frame_point(self, a[0], a[1], "bias_spatial_acceleration", &f, &p))
    return NULL;
  const int s = mbt_calc_bias_spatial_acceleration(TREE(self), self->ctx, self->ws, f, p, &A);
  return s == MBT_OK ? mbtpy_copy_vector(A.coeffs, 6) : mbtpy_raise(s, mbt_context_last_error(self->ctx));
}

static PyObject* bias_translational_acceleration(ContextObject* self, FASTARGS) {
  static const char* const names[] = {"frame", "p_FoFp_F"};
  PyObject* a[2];
  int f;
  mbt_vec3 p, a_W;
  if (mbtpy_parse("bias_translational_acceleration", args, nargs, kwnames, names, 2, a) ||
      frame_point(self, a[0], a[1], "bias_translational_acceleration", &f, &p))
    return NULL;
  const int s = mbt_calc_bias_translational_acceleration(TREE(self), self->ctx, self->ws, f, p, &a_W);
  return s == MBT_OK ? mbtpy_copy_vector(a_W.v, 3) : mbtpy_raise(s, mbt_context_last_error(self->ctx));
}

static PyObject* jacobian_time_derivative(ContextObject* self, FASTARGS) {
  static const char* const names[] = {"frame", "p_FoFp_F", "out"};
  PyObject* a[3];
  int f;
  mbt_vec3 p;
  const npy_intp dims[2] = {6, self->nv};
  if (mbtpy_parse("jacobian_spatial_velocity_time_derivative", args, nargs, kwnames, names, 3, a) ||
      frame_point(self, a[0], a[1], "jacobian_spatial_velocity_time_derivative", &f, &p))
    return NULL;
  PyArrayObject* out = mbtpy_output(a[2], "jacobian_spatial_velocity_time_derivative", 2, dims);
  if (!out) return NULL;
  const int s = mbt_calc_jacobian_spatial_velocity_time_derivative(TREE(self), self->ctx, self->ws, f, p, DATA(out));
  if (s == MBT_OK) return (PyObject*)out;
  Py_DECREF(out);
  return mbtpy_raise(s, mbt_context_last_error(self->ctx));
}

/* ---- a semi-implicit Euler step and its Jacobians ------------------------------------- */
PyDoc_STRVAR(euler_doc,
"semi_implicit_euler_step_derivatives(h, tau=None, out=None)\n"
"    -> (q_next (nq), v_next (nv), dq_dq, dq_dv, dq_dtau, dv_dq, dv_dv, dv_dtau (nv x nv))\n\n"
"One step from this context's state with applied generalized forces tau\n"
"(mbt_calc_semi_implicit_euler_step_derivatives):\n"
"    v⁺ = v + h·v̇(q, v, tau),   q⁺ = q ⊕ h·v⁺\n"
"and its Jacobians in the tangent space (q⁺ directions in the v space at q⁺), as a discrete\n"
"dynamics x⁺ = f(x, u) for iLQR / DDP. The context is not changed. out: a tuple of 8 arrays.");
static PyObject* semi_implicit_euler_step_derivatives(ContextObject* self, FASTARGS) {
  static const char* const names[] = {"h", "tau", "out"};
  PyObject *a[3], *ht = NULL;
  const double* tau = NULL;
  const npy_intp n = self->nv, m = self->nq;
  const npy_intp dims[8][2] = {{m, 0}, {n, 0}, {n, n}, {n, n}, {n, n}, {n, n}, {n, n}, {n, n}};
  PyArrayObject* o[8];
  if (!workspace(self) || mbtpy_parse("semi_implicit_euler_step_derivatives", args, nargs, kwnames, names, 3, a))
    return NULL;
  const double h = a[0] ? PyFloat_AsDouble(a[0]) : -1;
  if (!a[0]) return PyErr_Format(PyExc_TypeError, "semi_implicit_euler_step_derivatives(h, tau=None, out=None)");
  if ((h == -1 && PyErr_Occurred()) || mbtpy_input(a[1], "tau", 0, n, 1, &ht, &tau) ||
      outputs(a[2], "semi_implicit_euler_step_derivatives", 8, dims, o)) {
    Py_XDECREF(ht);
    return NULL;
  }
  const int s = mbt_calc_semi_implicit_euler_step_derivatives(
      TREE(self), self->ctx, self->ws, h, tau, DATA(o[0]), DATA(o[1]), DATA(o[2]), DATA(o[3]), DATA(o[4]),
      DATA(o[5]), DATA(o[6]), DATA(o[7]));
  Py_XDECREF(ht);
  return finish(self, s, 8, o);
}

#define FAST_KW METH_FASTCALL | METH_KEYWORDS
PyMethodDef mbtpy_context_deriv_methods[] = {
    {"inverse_dynamics_derivatives", MBTPY_FAST(inverse_dynamics_derivatives), FAST_KW, id_derivatives_doc},
    {"forward_dynamics_derivatives", MBTPY_FAST(forward_dynamics_derivatives), FAST_KW, fd_derivatives_doc},
    {"mass_matrix_inverse", MBTPY_FAST(mass_matrix_inverse), FAST_KW,
     "mass_matrix_inverse(out=None) -> ndarray (nv, nv)\n\n"
     "M(q)⁻¹ by the articulated-body recursion, without forming M (mbt_calc_mass_matrix_inverse).\n"
     "Locked joints: the inverse of the free block, zero elsewhere."},
    {"gravity_forces_derivatives", MBTPY_FAST(gravity_forces_derivatives), FAST_KW,
     "gravity_forces_derivatives(out=None) -> ndarray (nv, nv)\n\n"
     "∂tau_g/∂q of gravity_forces() (q directions in the v space), with this context's gravity."},
    {"bias_spatial_acceleration", MBTPY_FAST(bias_spatial_acceleration), FAST_KW,
     "bias_spatial_acceleration(frame, p_FoFp_F=(0, 0, 0)) -> ndarray (6)\n\n"
     "Seed CalcBiasSpatialAcceleration: AsBias_WFp = J̇_WFp·v = [α; a], the spatial acceleration\n"
     "of point Fp of frame F at v̇ = 0, measured and expressed in W (gravity not included)."},
    {"bias_translational_acceleration", MBTPY_FAST(bias_translational_acceleration), FAST_KW,
     "bias_translational_acceleration(frame, p_FoFp_F=(0, 0, 0)) -> ndarray (3)\n\n"
     "Seed CalcBiasTranslationalAcceleration: the translational part a of the above."},
    {"jacobian_spatial_velocity_time_derivative", MBTPY_FAST(jacobian_time_derivative), FAST_KW,
     "jacobian_spatial_velocity_time_derivative(frame, p_FoFp_F=(0, 0, 0), out=None) -> ndarray (6, nv)\n\n"
     "J̇_WFp, the time derivative of jacobian_spatial_velocity's J_WFp along v, rows [w; v] in W:\n"
     "A_WFp = J_WFp·v̇ + J̇_WFp·v."},
    {"semi_implicit_euler_step_derivatives", MBTPY_FAST(semi_implicit_euler_step_derivatives), FAST_KW, euler_doc},
    {NULL, NULL, 0, NULL}};

/* ---- Tree: q ⊕ dv and q1 ⊖ q0 ----------------------------------------------------------- */
typedef int (*config_fn)(const mbt_tree*, const mbt_real*, const mbt_real*, mbt_real*);
static PyObject* config_map(TreeObject* tree, FASTARGS, const char* name, const char* const names[3],
                            npy_intp n1, npy_intp nout, config_fn fn) {
  PyObject *a[3], *h0 = NULL, *h1 = NULL;
  const double *x0, *x1;
  const int nq = mbt_tree_num_positions(tree->tree);
  PyArrayObject* out = NULL;
  if (!mbt_tree_is_finalized(tree->tree))
    return mbtpy_raise(MBT_ERR_NOT_FINALIZED, "the tree is not finalized");
  if (!mbtpy_parse(name, args, nargs, kwnames, names, 3, a) && !mbtpy_input(a[0], names[0], 0, nq, 0, &h0, &x0) &&
      !mbtpy_input(a[1], names[1], 0, n1, 0, &h1, &x1))
    out = mbtpy_output(a[2], name, 1, &nout);
  const int s = out ? fn(tree->tree, x0, x1, DATA(out)) : MBT_OK;
  Py_XDECREF(h0);
  Py_XDECREF(h1);
  if (!out || s == MBT_OK) return (PyObject*)out;
  Py_DECREF(out);
  return mbtpy_raise(s, mbt_tree_last_error(tree->tree));
}
static PyObject* integrate_configuration(TreeObject* self, FASTARGS) {
  static const char* const names[] = {"q", "dv", "out"};
  return config_map(self, args, nargs, kwnames, "integrate_configuration", names,
                    mbt_tree_num_velocities(self->tree), mbt_tree_num_positions(self->tree),
                    mbt_integrate_configuration);
}
static PyObject* difference_configuration(TreeObject* self, FASTARGS) {
  static const char* const names[] = {"q0", "q1", "out"};
  return config_map(self, args, nargs, kwnames, "difference_configuration", names,
                    mbt_tree_num_positions(self->tree), mbt_tree_num_velocities(self->tree),
                    mbt_difference_configuration);
}

PyMethodDef mbtpy_tree_config_methods[] = {
    {"integrate_configuration", MBTPY_FAST(integrate_configuration), FAST_KW,
     "integrate_configuration(q, dv, out=None) -> ndarray (nq)\n\n"
     "q ⊕ dv: every mobilizer moved by the constant velocity dv (nv) for unit time, exactly\n"
     "(quaternions by exp(½·w) ⊗ q, SpaceXYZ angles by exp([w]×)·R; others q + dv)\n"
     "(mbt_integrate_configuration). The map the derivatives' q directions are taken along."},
    {"difference_configuration", MBTPY_FAST(difference_configuration), FAST_KW,
     "difference_configuration(q0, q1, out=None) -> ndarray (nv)\n\n"
     "q1 ⊖ q0: the constant velocity dv with q0 ⊕ dv = q1 (rotations by their logarithm)\n"
     "(mbt_difference_configuration)."},
    {NULL, NULL, 0, NULL}};
