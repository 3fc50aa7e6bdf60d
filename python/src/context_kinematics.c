/* context_kinematics.c: the kinematics methods of mbt.Context (kinematics.h): poses,
 * spatial velocities and accelerations, points, Jacobians, center of mass, momentum, and
 * the q̇ <-> v maps. Poses are 4x4 homogeneous matrices [R_AB p_AoBo_A; 0 0 0 1]; spatial
 * vectors are 6 numbers, rotational part first. */
#include "mbtpy.h"

#define TREE(self) ((self)->tree->tree)
#define DATA(a) ((double*)PyArray_DATA(a))
#define FASTARGS PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames

static PyObject* raise_ctx(ContextObject* self, int s) {
  return mbtpy_raise(s, mbt_context_last_error(self->ctx));
}

static PyObject* body_pose(ContextObject* self, PyObject* body) {
  const int b = mbtpy_index(TREE(self), body, "body");
  mbt_transform X_WB;
  if (b < 0) return NULL;
  const int s = mbt_context_body_pose_in_world(TREE(self), self->ctx, b, &X_WB);
  return s == MBT_OK ? mbtpy_transform_to_array(&X_WB) : raise_ctx(self, s);
}

static PyObject* body_poses(ContextObject* self, FASTARGS) {
  static const char* const names[] = {"out"};
  PyObject* a[1];
  npy_intp dims[3] = {self->nb, 4, 4};
  if (mbtpy_parse("body_poses", args, nargs, kwnames, names, 1, a)) return NULL;
  PyArrayObject* out = mbtpy_output(a[0], "body_poses", 3, dims);
  if (!out) return NULL;
  int s = mbt_calc_forward_kinematics(TREE(self), self->ctx);
  for (int b = 0; s == MBT_OK && b < self->nb; ++b) {
    mbt_transform X_WB;
    s = mbt_context_body_pose_in_world(TREE(self), self->ctx, b, &X_WB);
    mbtpy_transform_to_buffer(&X_WB, DATA(out) + 16 * b);
  }
  if (s == MBT_OK) return (PyObject*)out;
  Py_DECREF(out);
  return raise_ctx(self, s);
}

static PyObject* six(const double* c) { return mbtpy_copy_vector(c, 6); }

static PyObject* body_spatial_velocity(ContextObject* self, PyObject* body) {
  const int b = mbtpy_index(TREE(self), body, "body");
  mbt_spatial_velocity V;
  if (b < 0) return NULL;
  const int s = mbt_context_body_spatial_velocity_in_world(TREE(self), self->ctx, b, &V);
  return s == MBT_OK ? six(V.coeffs) : raise_ctx(self, s);
}

static PyObject* frame_spatial_velocity(ContextObject* self, PyObject* frame) {
  const int f = mbtpy_index(TREE(self), frame, "frame");
  mbt_spatial_velocity V;
  if (f < 0) return NULL;
  const int s = mbt_calc_frame_spatial_velocity_in_world(TREE(self), self->ctx, f, &V);
  return s == MBT_OK ? six(V.coeffs) : raise_ctx(self, s);
}

static PyObject* relative_transform(ContextObject* self, PyObject* args) {
  PyObject *A, *B;
  if (!PyArg_ParseTuple(args, "OO:relative_transform", &A, &B)) return NULL;
  const int fa = mbtpy_index(TREE(self), A, "frame"), fb = fa < 0 ? -1 : mbtpy_index(TREE(self), B, "frame");
  mbt_transform X_AB;
  if (fb < 0) return NULL;
  const int s = mbt_calc_relative_transform(TREE(self), self->ctx, fa, fb, &X_AB);
  return s == MBT_OK ? mbtpy_transform_to_array(&X_AB) : raise_ctx(self, s);
}

static PyObject* points_positions(ContextObject* self, FASTARGS) {
  static const char* const names[] = {"frame_B", "p_BQi", "frame_A", "out"};
  PyObject *a[4], *hold;
  const double* p;
  if (mbtpy_parse("points_positions", args, nargs, kwnames, names, 4, a)) return NULL;
  if (!a[0] || !a[1]) return PyErr_Format(PyExc_TypeError, "points_positions(frame_B, p_BQi, frame_A=0)");
  const int fb = mbtpy_index(TREE(self), a[0], "frame");
  const int fa = fb < 0 ? -1 : a[2] ? mbtpy_index(TREE(self), a[2], "frame") : 0;
  if (fa < 0) return NULL;
  PyArrayObject* in = (PyArrayObject*)PyArray_FROMANY(a[1], NPY_DOUBLE, 2, 2, 0);
  npy_intp n = in && PyArray_DIM(in, 1) == 3 ? PyArray_DIM(in, 0) : -1;
  Py_XDECREF(in);
  if (n < 0) {
    PyErr_Clear();
    return PyErr_Format(PyExc_ValueError, "p_BQi: expected shape (n, 3), one point per row");
  }
  if (mbtpy_input(a[1], "p_BQi", n, 3, 0, &hold, &p)) return NULL;
  npy_intp dims[2] = {n, 3};
  PyArrayObject* out = mbtpy_output(a[3], "points_positions", 2, dims);
  int s = MBT_OK;
  if (out) s = mbt_calc_points_positions(TREE(self), self->ctx, fb, p, (int)n, fa, DATA(out), (int)n);
  Py_XDECREF(hold);
  if (!out || s == MBT_OK) return (PyObject*)out;
  Py_DECREF(out);
  return raise_ctx(self, s);
}

static PyObject* jacobian_spatial_velocity(ContextObject* self, FASTARGS) {
  static const char* const names[] = {"frame", "p_FoFp_F", "out"};
  PyObject* a[3];
  mbt_vec3 p = mbt_vec3_zero();
  if (mbtpy_parse("jacobian_spatial_velocity", args, nargs, kwnames, names, 3, a)) return NULL;
  if (!a[0]) return PyErr_Format(PyExc_TypeError, "jacobian_spatial_velocity(frame, p_FoFp_F=(0, 0, 0))");
  const int f = mbtpy_index(TREE(self), a[0], "frame");
  if (f < 0 || (a[1] && a[1] != Py_None && mbtpy_vec3(a[1], "p_FoFp_F", &p))) return NULL;
  npy_intp dims[2] = {6, self->nv};
  PyArrayObject* out = mbtpy_output(a[2], "jacobian_spatial_velocity", 2, dims);
  if (!out) return NULL;
  const int s = mbt_calc_jacobian_spatial_velocity(TREE(self), self->ctx, f, p, DATA(out));
  if (s == MBT_OK) return (PyObject*)out;
  Py_DECREF(out);
  return raise_ctx(self, s);
}

typedef int (*vec3_fn)(const mbt_tree*, mbt_context*, mbt_vec3*);
static PyObject* calc_vec3(ContextObject* self, vec3_fn fn) {
  mbt_vec3 r;
  const int s = fn(TREE(self), self->ctx, &r);
  return s == MBT_OK ? mbtpy_copy_vector(r.v, 3) : raise_ctx(self, s);
}
static PyObject* center_of_mass(ContextObject* self, PyObject* u) {
  (void)u;
  return calc_vec3(self, mbt_calc_center_of_mass_position);
}
static PyObject* center_of_mass_velocity(ContextObject* self, PyObject* u) {
  (void)u;
  return calc_vec3(self, mbt_calc_center_of_mass_velocity);
}

static PyObject* spatial_momentum(ContextObject* self, PyObject* args) {
  PyObject* point = NULL;
  mbt_vec3 p = mbt_vec3_zero();
  mbt_spatial_momentum L;
  if (!PyArg_ParseTuple(args, "|O:spatial_momentum", &point) ||
      (point && point != Py_None && mbtpy_vec3(point, "p_WoP_W", &p)))
    return NULL;
  const int s = mbt_calc_spatial_momentum_in_world_about_point(TREE(self), self->ctx, p, &L);
  return s == MBT_OK ? six(L.coeffs) : raise_ctx(self, s);
}

/* map_velocity_to_qdot(v) -> q̇ (nq); map_qdot_to_velocity(q̇) -> v (nv). */
typedef int (*map_fn)(const mbt_tree*, const mbt_context*, const mbt_real*, mbt_real*);
static PyObject* calc_map(ContextObject* self, FASTARGS, const char* name, const char* const names[2],
                          npy_intp nin, npy_intp nout, map_fn fn) {
  PyObject *a[2], *hold;
  const double* in;
  if (mbtpy_parse(name, args, nargs, kwnames, names, 2, a) ||
      mbtpy_input(a[0], names[0], 0, nin, 0, &hold, &in))
    return NULL;
  PyArrayObject* out = mbtpy_output(a[1], name, 1, &nout);
  int s = MBT_OK;
  if (out) s = fn(TREE(self), self->ctx, in, DATA(out));
  Py_XDECREF(hold);
  if (!out || s == MBT_OK) return (PyObject*)out;
  Py_DECREF(out);
  return raise_ctx(self, s);
}
static PyObject* map_v_to_qdot(ContextObject* self, FASTARGS) {
  static const char* const names[] = {"v", "out"};
  return calc_map(self, args, nargs, kwnames, "map_velocity_to_qdot", names, self->nv, self->nq,
                  mbt_map_velocity_to_qdot);
}
static PyObject* map_qdot_to_v(ContextObject* self, FASTARGS) {
  static const char* const names[] = {"qdot", "out"};
  return calc_map(self, args, nargs, kwnames, "map_qdot_to_velocity", names, self->nq, self->nv,
                  mbt_map_qdot_to_velocity);
}

static PyObject* spatial_accelerations(ContextObject* self, FASTARGS) {
  static const char* const names[] = {"vdot", "out"};
  PyObject *a[2], *hold;
  const double* vdot;
  npy_intp dims[2] = {self->nb, 6};
  if (mbtpy_parse("spatial_accelerations", args, nargs, kwnames, names, 2, a) ||
      mbtpy_input(a[0], "vdot", 0, self->nv, 0, &hold, &vdot))
    return NULL;
  PyArrayObject* out = mbtpy_output(a[1], "spatial_accelerations", 2, dims);
  int s = MBT_OK;
  double* A_node = self->scratch + 6 * self->nb;
  if (out) s = mbt_calc_spatial_accelerations_from_vdot(TREE(self), self->ctx, vdot,
                                                        (mbt_spatial_acceleration*)A_node);
  Py_XDECREF(hold);
  if (!out) return NULL;
  if (s != MBT_OK) {
    Py_DECREF(out);
    return raise_ctx(self, s);
  }
  for (int b = 0; b < self->nb; ++b)
    memcpy(DATA(out) + 6 * b, A_node + 6 * mbt_tree_body_node(TREE(self), b), 6 * sizeof(double));
  return (PyObject*)out;
}

#define FAST_KW METH_FASTCALL | METH_KEYWORDS
PyMethodDef mbtpy_context_kin_methods[] = {
    {"body_pose", (PyCFunction)body_pose, METH_O,
     "body_pose(body) -> ndarray (4, 4): X_WB, the pose of body B in the world W."},
    {"body_poses", MBTPY_FAST(body_poses), FAST_KW,
     "body_poses(out=None) -> ndarray (num_bodies, 4, 4): X_WB of every body, by body index\n"
     "(forward kinematics, mbt_calc_forward_kinematics)."},
    {"body_spatial_velocity", (PyCFunction)body_spatial_velocity, METH_O,
     "body_spatial_velocity(body) -> ndarray (6): V_WB_W = [w_WB; v_WBo], expressed in W."},
    {"frame_spatial_velocity", (PyCFunction)frame_spatial_velocity, METH_O,
     "frame_spatial_velocity(frame) -> ndarray (6): V_WF_W, frame F at its origin, in W."},
    {"relative_transform", (PyCFunction)relative_transform, METH_VARARGS,
     "relative_transform(frame_A, frame_B) -> ndarray (4, 4): X_AB, the pose of B in A\n"
     "(seed CalcRelativeTransform)."},
    {"points_positions", MBTPY_FAST(points_positions), FAST_KW,
     "points_positions(frame_B, p_BQi, frame_A=0, out=None) -> ndarray (n, 3)\n\n"
     "Seed CalcPointsPositions: points Qi given in frame B (one per row) measured and expressed\n"
     "in frame A."},
    {"jacobian_spatial_velocity", MBTPY_FAST(jacobian_spatial_velocity), FAST_KW,
     "jacobian_spatial_velocity(frame, p_FoFp_F=(0, 0, 0), out=None) -> ndarray (6, nv)\n\n"
     "J_WFp, the geometric Jacobian of point Fp (p_FoFp_F in frame F): V_WFp_W = J_WFp·v, rows\n"
     "[w; v] expressed in W (seed CalcJacobianSpatialVelocity with respect to v)."},
    {"center_of_mass", (PyCFunction)center_of_mass, METH_NOARGS,
     "center_of_mass() -> ndarray (3): p_WScm of all bodies but the world (mbt.SingularError\n"
     "if massless)."},
    {"center_of_mass_velocity", (PyCFunction)center_of_mass_velocity, METH_NOARGS,
     "center_of_mass_velocity() -> ndarray (3): v_WScm, expressed in W."},
    {"spatial_momentum", (PyCFunction)spatial_momentum, METH_VARARGS,
     "spatial_momentum(p_WoP_W=(0, 0, 0)) -> ndarray (6): L_WSP_W = [h; l], the spatial momentum\n"
     "of all bodies about point P, expressed in W."},
    {"map_velocity_to_qdot", MBTPY_FAST(map_v_to_qdot), FAST_KW,
     "map_velocity_to_qdot(v, out=None) -> ndarray (nq): q̇ = N(q)·v at the context's q."},
    {"map_qdot_to_velocity", MBTPY_FAST(map_qdot_to_v), FAST_KW,
     "map_qdot_to_velocity(qdot, out=None) -> ndarray (nv): v = N⁺(q)·q̇."},
    {"spatial_accelerations", MBTPY_FAST(spatial_accelerations), FAST_KW,
     "spatial_accelerations(vdot, out=None) -> ndarray (num_bodies, 6)\n\n"
     "Seed CalcSpatialAccelerationsFromVdot: A_WB_W = [alpha; a] of every body for v̇, by body\n"
     "index."},
    {NULL, NULL, 0, NULL}};
