/* context_params.c: the per-context parameters of mbt.Context (parameters.h): gravity and
 * each body's mass, center of mass and spatial inertia; their state for pickling.
 *
 * As in Drake, the tree's values are the defaults: a context takes them when it is made and
 * at set_default(); changing them on the tree later leaves existing contexts as they are. */
#include "mbtpy.h"

#define DATA(a) ((double*)PyArray_DATA((PyArrayObject*)(a)))

static int check(ContextObject* self, int status) {
  if (status < 0) mbtpy_raise(status, mbt_context_last_error(self->ctx));
  return status;
}

/* ---- gravity -------------------------------------------------------------------------- */
PyObject* mbtpy_context_get_gravity(ContextObject* self, void* c) {
  (void)c;
  const mbt_vec3 g = mbt_context_gravity(self->ctx);
  return mbtpy_copy_vector(g.v, 3);
}
int mbtpy_context_set_gravity(ContextObject* self, PyObject* value, void* c) {
  (void)c;
  mbt_vec3 g;
  if (mbtpy_vec3_attr(value, "gravity", &g)) return -1;
  return check(self, mbt_context_set_gravity(self->ctx, g)) < 0 ? -1 : 0;
}

/* ---- spatial inertia as Drake's 6x6 matrix -------------------------------------------- */
/* M_BBo_B = [m·G_BBo_B   m·[p]×; −m·[p]×   m·1] with p = p_BoBcm_B, acting on [w; v] to give
 * the spatial momentum [h; l] about Bo (SpatialInertia::CopyToFullMatrix6). */
static void spatial_inertia_to_matrix(const mbt_spatial_inertia* M, double out[36]) {
  const double m = M->mass, px = M->p_PScm_E.v[0], py = M->p_PScm_E.v[1], pz = M->p_PScm_E.v[2];
  const mbt_unit_inertia* G = &M->G_SP_E;
  const double rows[6][6] = {
      {m * G->xx, m * G->xy, m * G->xz, 0, -m * pz, m * py},
      {m * G->xy, m * G->yy, m * G->yz, m * pz, 0, -m * px},
      {m * G->xz, m * G->yz, m * G->zz, -m * py, m * px, 0},
      {0, m * pz, -m * py, m, 0, 0},
      {-m * pz, 0, m * px, 0, m, 0},
      {m * py, -m * px, 0, 0, 0, m}};
  memcpy(out, rows, sizeof rows);
}

/* The inverse of the above; ValueError when A has not that structure (to 1e-12 relative). */
static int spatial_inertia_from_matrix(const double A[36], mbt_spatial_inertia* M) {
  double expect[36], scale = 0;
  const double m = A[21];
  M->mass = m;
  M->p_PScm_E = (mbt_vec3){{0, 0, 0}};
  M->G_SP_E = mbt_unit_inertia_zero();
  if (m != 0) {
    M->p_PScm_E = (mbt_vec3){{A[2 * 6 + 4] / m, A[0 * 6 + 5] / m, A[1 * 6 + 3] / m}};
    M->G_SP_E = mbt_unit_inertia_make(A[0] / m, A[7] / m, A[14] / m, A[1] / m, A[2] / m, A[8] / m);
  }
  spatial_inertia_to_matrix(M, expect);
  for (int k = 0; k < 36; ++k) scale = fmax(scale, fabs(A[k]));
  for (int k = 0; k < 36; ++k)
    if (!(fabs(A[k] - expect[k]) <= 1e-12 * scale)) {
      PyErr_Format(PyExc_ValueError, "M_BBo_B: not a spatial inertia %s (element [%d, %d])",
                   "[m·G  m·[p]×; −m·[p]×  m·1]", k / 6, k % 6);   /* the format must be ASCII */
      return -1;
    }
  return 0;
}

static int body_arg(ContextObject* self, PyObject* obj) {
  return mbtpy_index(self->tree->tree, obj, "body");
}

static PyObject* body_spatial_inertia(ContextObject* self, PyObject* body) {
  const int b = body_arg(self, body);
  mbt_spatial_inertia M;
  if (b < 0 || check(self, mbt_body_get_spatial_inertia(self->ctx, b, &M)) < 0) return NULL;
  npy_intp dims[2] = {6, 6};
  PyObject* out = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
  if (out) spatial_inertia_to_matrix(&M, DATA(out));
  return out;
}

static PyObject* set_body_spatial_inertia(ContextObject* self, PyObject* args) {
  PyObject *body, *value, *hold;
  const double* d;
  mbt_spatial_inertia M;
  if (!PyArg_ParseTuple(args, "OO:set_body_spatial_inertia", &body, &value)) return NULL;
  const int b = body_arg(self, body);
  if (b < 0 || mbtpy_input(value, "M_BBo_B", 6, 6, 0, &hold, &d)) return NULL;
  const int bad = spatial_inertia_from_matrix(d, &M);
  Py_XDECREF(hold);
  if (bad || check(self, mbt_body_set_spatial_inertia(self->ctx, b, &M)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject* body_mass(ContextObject* self, PyObject* body) {
  const int b = body_arg(self, body);
  mbt_real m;
  if (b < 0 || check(self, mbt_body_get_mass(self->ctx, b, &m)) < 0) return NULL;
  return PyFloat_FromDouble(m);
}

static PyObject* set_body_mass(ContextObject* self, PyObject* args) {
  PyObject* body;
  double m;
  if (!PyArg_ParseTuple(args, "Od:set_body_mass", &body, &m)) return NULL;
  const int b = body_arg(self, body);
  if (b < 0 || check(self, mbt_body_set_mass(self->ctx, b, m)) < 0) return NULL;
  Py_RETURN_NONE;
}

static PyObject* body_center_of_mass(ContextObject* self, PyObject* body) {
  const int b = body_arg(self, body);
  mbt_vec3 p;
  if (b < 0 || check(self, mbt_body_get_center_of_mass(self->ctx, b, &p)) < 0) return NULL;
  return mbtpy_copy_vector(p.v, 3);
}

static PyObject* set_body_center_of_mass(ContextObject* self, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"body", "p_BoBcm_B", "preserve_central_inertia", NULL};
  PyObject *body, *p_obj;
  int central = 0;
  mbt_vec3 p;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|p:set_body_center_of_mass", kwlist, &body, &p_obj,
                                   &central))
    return NULL;
  const int b = body_arg(self, body);
  if (b < 0 || mbtpy_vec3(p_obj, "p_BoBcm_B", &p)) return NULL;
  const int s = central ? mbt_body_set_center_of_mass_preserving_central_inertia(self->ctx, b, p)
                        : mbt_body_set_center_of_mass(self->ctx, b, p);
  if (check(self, s) < 0) return NULL;
  Py_RETURN_NONE;
}

/* ---- pickling: (gravity, inertias num_bodies x 10 [m, p, G]) --------------------------- */
PyObject* mbtpy_context_params_state(ContextObject* self) {
  npy_intp dims[2] = {self->nb, 10};
  PyObject* inertias = PyArray_ZEROS(2, dims, NPY_DOUBLE, 0);
  if (!inertias) return NULL;
  for (int b = 1; b < self->nb; ++b) {
    mbt_spatial_inertia M;
    mbt_body_get_spatial_inertia(self->ctx, b, &M);
    const mbt_unit_inertia* G = &M.G_SP_E;
    const double row[10] = {M.mass, M.p_PScm_E.v[0], M.p_PScm_E.v[1], M.p_PScm_E.v[2],
                            G->xx, G->yy, G->zz, G->xy, G->xz, G->yz};
    memcpy(DATA(inertias) + 10 * b, row, sizeof row);
  }
  return Py_BuildValue("(NN)", mbtpy_context_get_gravity(self, NULL), inertias);
}

/* Sets the parameters from mbtpy_context_params_state's tuple; -1 with the error set. Bodies
 * whose inertia equals the tree's are left at it (so a tree loaded with
 * allow_invalid_inertia=True restores as well). */
int mbtpy_context_params_restore(ContextObject* self, PyObject* state) {
  PyObject *g, *inertias, *hold;
  const double* d;
  if (!PyArg_ParseTuple(state, "OO:Context parameters", &g, &inertias) ||
      mbtpy_context_set_gravity(self, g, NULL) < 0 ||
      mbtpy_input(inertias, "inertias", self->nb, 10, 0, &hold, &d))
    return -1;
  int s = MBT_OK;
  for (int b = 1; s == MBT_OK && b < self->nb; ++b) {
    const double* r = d + 10 * b;
    const mbt_spatial_inertia M = {r[0], {{r[1], r[2], r[3]}},
                                   mbt_unit_inertia_make(r[4], r[5], r[6], r[7], r[8], r[9])};
    if (memcmp(&M, mbt_tree_body_spatial_inertia(self->tree->tree, b), sizeof M) != 0)
      s = mbt_body_set_spatial_inertia(self->ctx, b, &M);
  }
  Py_XDECREF(hold);
  return check(self, s) < 0 ? -1 : 0;
}

PyMethodDef mbtpy_context_param_methods[] = {
    {"body_mass", (PyCFunction)body_mass, METH_O,
     "body_mass(body) -> float: this context's mass of the body (kg) (RigidBody::get_mass)."},
    {"set_body_mass", (PyCFunction)set_body_mass, METH_VARARGS,
     "set_body_mass(body, mass): this context's mass (finite, >= 0); the center of mass and the\n"
     "unit inertia G_BBo_B stay, so the rotational inertia scales with the mass (RigidBody::SetMass)."},
    {"body_center_of_mass", (PyCFunction)body_center_of_mass, METH_O,
     "body_center_of_mass(body) -> p_BoBcm_B (3): the center of mass in B, this context's."},
    {"set_body_center_of_mass", (PyCFunction)(void (*)(void))set_body_center_of_mass, METH_VARARGS | METH_KEYWORDS,
     "set_body_center_of_mass(body, p_BoBcm_B, preserve_central_inertia=False)\n\n"
     "Moves the center of mass in this context. By default the unit inertia about Bo stays\n"
     "(Drake's SetCenterOfMassInBodyFrame; mbt.NonphysicalError if that makes the inertia\n"
     "non-physical); with preserve_central_inertia=True the rotational inertia about the center\n"
     "of mass stays (SetCenterOfMassInBodyFrameAndPreserveCentralInertia), as for a moved payload."},
    {"body_spatial_inertia", (PyCFunction)body_spatial_inertia, METH_O,
     "body_spatial_inertia(body) -> ndarray (6x6): this context's M_BBo_B, about Bo, in B:\n"
     "    M_BBo_B = [m·G_BBo_B   m·[p]×;  −m·[p]×   m·1],  p = p_BoBcm_B\n"
     "so that [h; l] = M_BBo_B·[w; v] (Drake's SpatialInertia::CopyToFullMatrix6)."},
    {"set_body_spatial_inertia", (PyCFunction)set_body_spatial_inertia, METH_VARARGS,
     "set_body_spatial_inertia(body, M_BBo_B): this context's spatial inertia, a 6x6 matrix of\n"
     "the form body_spatial_inertia returns (mbt.spatial_inertia(mass, p_BoBcm_B, I_BBcm_B)\n"
     "makes one); it must be physically valid (mbt.NonphysicalError otherwise). The inertias\n"
     "the algorithms use are updated; other contexts and the tree keep theirs."},
    {NULL, NULL, 0, NULL}};
