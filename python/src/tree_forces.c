/* tree_forces.c: force elements of mbt.Tree (forces.h): linear spring-dampers between two
 * bodies, torsional springs on revolute joints, and their names. User force elements written
 * in Python are not bound (the simulator's controller adds generalized forces instead). */
#include "mbtpy.h"

#define T(o) (((TreeObject*)(o))->tree)

static PyObject* result(PyObject* self, int status) {
  return status < 0 ? mbtpy_raise(status, mbt_tree_last_error(T(self))) : PyLong_FromLong(status);
}

static PyObject* add_linear_spring_damper(PyObject* self, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"name", "body_A", "p_AP", "body_B", "p_BQ", "free_length", "stiffness", "damping", NULL};
  const char* name;
  PyObject *A, *pA, *B, *pB;
  double l0, k, c = 0;
  mbt_vec3 p_AP, p_BQ;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sOOOOdd|d:add_linear_spring_damper", kwlist, &name, &A, &pA, &B,
                                   &pB, &l0, &k, &c))
    return NULL;
  const int a = mbtpy_index(T(self), A, "body");
  const int b = a < 0 ? -1 : mbtpy_index(T(self), B, "body");
  if (b < 0 || mbtpy_vec3(pA, "p_AP", &p_AP) || mbtpy_vec3(pB, "p_BQ", &p_BQ)) return NULL;
  return result(self, mbt_tree_add_linear_spring_damper(T(self), name, a, p_AP, b, p_BQ, l0, k, c));
}

static PyObject* add_revolute_spring(PyObject* self, PyObject* args, PyObject* kwargs) {
  static char* kwlist[] = {"name", "joint", "nominal_angle", "stiffness", NULL};
  const char* name;
  PyObject* J;
  double theta0, k;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "sOdd:add_revolute_spring", kwlist, &name, &J, &theta0, &k))
    return NULL;
  const int j = mbtpy_index(T(self), J, "joint");
  return j < 0 ? NULL : result(self, mbt_tree_add_revolute_spring(T(self), name, j, theta0, k));
}

PyObject* mbtpy_tree_get_force_elements(PyObject* self, void* c) {
  (void)c;
  const int n = mbt_tree_num_force_elements(T(self));
  PyObject* t = PyTuple_New(n);
  for (int k = 0; t && k < n; ++k) {
    PyObject* s = PyUnicode_FromString(mbt_force_element_name(T(self), k));
    if (!s) Py_CLEAR(t);
    else PyTuple_SET_ITEM(t, k, s);
  }
  return t;
}

#define KW(fn) (PyCFunction)(void (*)(void))(fn), METH_VARARGS | METH_KEYWORDS
PyMethodDef mbtpy_tree_force_methods[] = {
    {"add_linear_spring_damper", KW(add_linear_spring_damper),
     "add_linear_spring_damper(name, body_A, p_AP, body_B, p_BQ, free_length, stiffness, damping=0) -> int\n\n"
     "A spring-damper between point P of body A (p_AP, in A) and point Q of body B (p_BQ, in B):\n"
     "    f = (k·(ℓ − ℓ0) + c·ℓ̇)·û  along PQ, pulling the points together when stretched,\n"
     "potential energy ½k(ℓ − ℓ0)². free_length ℓ0 > 0, stiffness k >= 0, damping c >= 0.\n"
     "Returns the force element's index."},
    {"add_revolute_spring", KW(add_revolute_spring),
     "add_revolute_spring(name, joint, nominal_angle, stiffness) -> int\n\n"
     "A torsional spring on a revolute joint: tau = −k·(θ − θ0), energy ½k(θ − θ0)²."},
    {NULL, NULL, 0, NULL}};
