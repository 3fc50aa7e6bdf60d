/* tree_query.c: mbt.Tree lookups: indices by name, and the description of one body, frame
 * or joint as a dict (tree.h, joints.h). */
#include "mbtpy.h"

#define T(o) (((TreeObject*)(o))->tree)

static PyObject* index_of(PyObject* self, PyObject* arg, const char* kind) {
  const int i = mbtpy_index(T(self), arg, kind);
  return i < 0 ? NULL : PyLong_FromLong(i);
}
static PyObject* tree_body_index(PyObject* self, PyObject* arg) { return index_of(self, arg, "body"); }
static PyObject* tree_frame_index(PyObject* self, PyObject* arg) { return index_of(self, arg, "frame"); }
static PyObject* tree_joint_index(PyObject* self, PyObject* arg) { return index_of(self, arg, "joint"); }

static PyObject* tree_body(PyObject* self, PyObject* arg) {
  const mbt_tree* t = T(self);
  const int b = mbtpy_index(t, arg, "body");
  if (b < 0) return NULL;
  const mbt_spatial_inertia* M = mbt_tree_body_spatial_inertia(t, b);
  const mbt_rotational_inertia I = mbt_spatial_inertia_calc_rotational_inertia(M);
  const double I_BBo_B[9] = {I.xx, I.xy, I.xz, I.xy, I.yy, I.yz, I.xz, I.yz, I.zz};
  npy_intp dims[2] = {3, 3};
  PyObject* Ia = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
  if (!Ia) return NULL;
  memcpy(PyArray_DATA((PyArrayObject*)Ia), I_BBo_B, sizeof I_BBo_B);
  const int fin = mbt_tree_is_finalized(t);
  return Py_BuildValue("{s:i,s:s,s:d,s:N,s:N,s:i,s:i,s:i,s:i,s:O}", "index", b, "name",
                       mbt_tree_body_name(t, b), "mass", M->mass, "p_BoBcm_B",
                       mbtpy_copy_vector(M->p_PScm_E.v, 3), "I_BBo_B", Ia, "frame",
                       mbt_tree_body_frame(t, b), "parent", fin ? mbt_tree_body_parent(t, b) : -1,
                       "node", fin ? mbt_tree_body_node(t, b) : -1, "level",
                       fin ? mbt_tree_body_level(t, b) : -1, "floating",
                       fin && mbt_tree_body_is_floating(t, b) ? Py_True : Py_False);
}

static PyObject* tree_frame(PyObject* self, PyObject* arg) {
  const mbt_tree* t = T(self);
  const int f = mbtpy_index(t, arg, "frame");
  if (f < 0) return NULL;
  mbt_transform X_BF;
  mbt_tree_frame_pose_in_body(t, f, &X_BF);
  return Py_BuildValue("{s:i,s:s,s:i,s:N}", "index", f, "name", mbt_tree_frame_name(t, f), "body",
                       mbt_tree_frame_body(t, f), "X_BF", mbtpy_transform_to_array(&X_BF));
}

static PyObject* joint_axis(const mbt_tree* t, int j) {
  const mbt_joint_type type = mbt_joint_type_of(t, j);
  if (type != MBT_JOINT_REVOLUTE && type != MBT_JOINT_PRISMATIC && type != MBT_JOINT_SCREW)
    Py_RETURN_NONE;
  const mbt_vec3 a = mbt_joint_axis(t, j);
  return mbtpy_copy_vector(a.v, 3);
}

static PyObject* tree_joint(PyObject* self, PyObject* arg) {
  const mbt_tree* t = T(self);
  const int j = mbtpy_index(t, arg, "joint");
  if (j < 0) return NULL;
  const int fin = mbt_tree_is_finalized(t), nv = mbt_joint_num_velocities(t, j);
  return Py_BuildValue(
      "{s:i,s:s,s:s,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:N,s:N,s:N}", "index", j, "name",
      mbt_joint_name(t, j), "type", mbt_joint_type_name(t, j), "parent", mbt_joint_parent_body(t, j),
      "child", mbt_joint_child_body(t, j), "frame_on_parent", mbt_joint_frame_on_parent(t, j),
      "frame_on_child", mbt_joint_frame_on_child(t, j), "num_positions",
      mbt_joint_num_positions(t, j), "num_velocities", nv, "position_start",
      fin ? mbt_joint_position_start(t, j) : -1, "velocity_start",
      fin ? mbt_joint_velocity_start(t, j) : -1, "axis", joint_axis(t, j), "default_positions",
      mbtpy_copy_vector(mbt_joint_default_positions(t, j), mbt_joint_num_positions(t, j)),
      "default_damping", mbtpy_copy_vector(mbt_joint_default_damping_vector(t, j), nv));
}

PyMethodDef mbtpy_tree_query_methods[] = {
    {"body_index", tree_body_index, METH_O, "body_index(name) -> int (mbt.NotFoundError if unknown)."},
    {"frame_index", tree_frame_index, METH_O, "frame_index(name) -> int."},
    {"joint_index", tree_joint_index, METH_O, "joint_index(name) -> int."},
    {"body", tree_body, METH_O,
     "body(body) -> dict: index, name, mass, p_BoBcm_B (center of mass in B), I_BBo_B (3x3\n"
     "rotational inertia about Bo, in B), frame, and after finalize parent, node (body-node\n"
     "order), level, floating. The inertia is the tree's, the default of new contexts\n"
     "(a context's own: Context.body_spatial_inertia)."},
    {"frame", tree_frame, METH_O, "frame(frame) -> dict: index, name, body, X_BF (4x4 pose in its body)."},
    {"joint", tree_joint, METH_O,
     "joint(joint) -> dict: index, name, type, parent and child bodies, frames F and M,\n"
     "num_positions, num_velocities, position_start, velocity_start (slices of q and v), axis\n"
     "(revolute, prismatic, screw), default_positions, default_damping."},
    {NULL, NULL, 0, NULL}};
