/* mbtpy.h: the objects of the mbt Python extension (mbt._mbt) and the helpers they share.
 *
 * The extension calls the public C API only. Tree owns an mbt_tree, Context an mbt_context
 * (or borrows the simulator's), Simulator an mbt_simulator. Arrays cross the boundary as
 * float64 numpy arrays; per-body arrays are in body-index order on the Python side. */
#ifndef MBTPY_H
#define MBTPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <string.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL mbtpy_ARRAY_API
#ifndef MBTPY_MODULE_C
#define NO_IMPORT_ARRAY
#endif
#include <numpy/arrayobject.h>

#include "mbt/mbt.h"

typedef struct {
  PyObject_HEAD
  mbt_tree* tree;
  PyObject* urdf_source;   /* bytes of the URDF it was loaded from (for pickling), or NULL */
  PyObject* urdf_name;     /* str: the file name used in messages, or NULL */
  int urdf_flags;
  PyObject* warnings;      /* tuple of str (URDF warnings) */
  PyObject* robot_name;    /* str */
  PyObject* joint_friction; /* ndarray (num_joints) or NULL */
  PyObject* joint_effort;   /* ndarray (num_joints) or NULL */
} TreeObject;

typedef struct {
  PyObject_HEAD
  mbt_context* ctx;
  TreeObject* tree;        /* strong reference: the tree outlives the context */
  PyObject* owner;         /* the Simulator when ctx is borrowed from it, else NULL */
  double* scratch;         /* per-body spatial forces and accelerations in node order */
  mbt_derivatives_workspace* ws;   /* made at the first derivative call, or NULL */
  int nq, nv, nb;
} ContextObject;

typedef struct {
  PyObject_HEAD
  mbt_batch* batch;
  TreeObject* tree;
  int nq, nv, nb;
  int running;             /* a batched call is under way (checked under the GIL) */
} BatchObject;

typedef struct {
  PyObject_HEAD
  mbt_contact_model* model;
  TreeObject* tree;
  int frozen;              /* given to a simulator: no more shapes */
} ContactModelObject;

typedef struct {
  PyObject_HEAD
  mbt_simulator* sim;
  TreeObject* tree;
  PyObject* controller;   /* tau = controller(t, q, v), or NULL */
  PyObject* observer;     /* observer(t, q, v) -> False to stop, or NULL */
  PyObject *err_type, *err_value, *err_tb;   /* a callback's exception, re-raised at the end */
  double* last_x;         /* [q; v; t] at the last accepted step, restored after an exception */
  int nq, nv;
  int running;
  ContactModelObject* contact;  /* the contact model given to the simulator, or NULL */
} SimulatorObject;

extern PyTypeObject Tree_Type;
extern PyTypeObject ContactModel_Type;
extern PyTypeObject Batch_Type;
extern PyTypeObject Context_Type;
extern PyTypeObject Simulator_Type;
extern PyObject* mbtpy_Error;

/* ---- errors --------------------------------------------------------------------------- */
/* Raises the mbt.Error subclass of `status` with `message`; returns NULL. */
PyObject* mbtpy_raise(int status, const char* message);
int mbtpy_init_errors(PyObject* module);

/* ---- arguments ------------------------------------------------------------------------ */
/* Fast-call keyword parsing: fills values[i] (borrowed, NULL if absent) for names[i];
 * the first `npos` names may also be positional. Returns -1 with TypeError set. */
int mbtpy_parse(const char* fname, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                const char* const* names, int nnames, PyObject** values);
/* An element index from an int or a name: kind is "body", "frame" or "joint". -1 + error. */
int mbtpy_index(const mbt_tree* tree, PyObject* obj, const char* kind);

/* ---- arrays --------------------------------------------------------------------------- */
/* A read-only input of `size` doubles (shape (size,) or the given 2-D shape when rows > 0).
 * numpy arrays must be float64; other sequences are converted. *hold receives the array
 * object to release with Py_XDECREF; *data its contiguous doubles. None or NULL gives
 * data = NULL when `optional`. Returns -1 with ValueError/TypeError set. */
int mbtpy_input(PyObject* obj, const char* name, npy_intp rows, npy_intp cols, int optional,
                PyObject** hold, const double** data);
/* The output array: `out` (checked: float64, C-contiguous, writeable, exact shape) with a
 * new reference, or a new array when out is NULL or None. NULL with ValueError set. */
PyArrayObject* mbtpy_output(PyObject* out, const char* name, int ndim, const npy_intp* dims);
/* n outputs (arr[k] of ndim[k] <= 3 dimensions dims[k]): new arrays, or the distinct arrays of
 * the tuple `out`, each checked as mbtpy_output checks. -1 with the error set, none kept. */
int mbtpy_output_tuple(PyObject* out, const char* name, int n, const int* ndim, const npy_intp (*dims)[3],
                       PyArrayObject** arr);
/* The tuple of the n arrays (references stolen; released if the tuple cannot be made). */
PyObject* mbtpy_tuple_of(int n, PyArrayObject** arr);
/* A 3-vector from a sequence of 3 numbers. */
int mbtpy_vec3(PyObject* obj, const char* name, mbt_vec3* v);
int mbtpy_vec3_attr(PyObject* value, const char* name, mbt_vec3* v);
/* A pose from a 4x4 homogeneous matrix; None gives the identity when `optional`. */
int mbtpy_transform(PyObject* obj, const char* name, int optional, mbt_transform* X);
/* A new 4x4 float64 array holding X. */
PyObject* mbtpy_transform_to_array(const mbt_transform* X);
void mbtpy_transform_to_buffer(const mbt_transform* X, double* out16);
/* A new read-only float64 array viewing `data` (kept alive by `base`). */
PyObject* mbtpy_view(double* data, npy_intp n, PyObject* base);
PyObject* mbtpy_copy_vector(const double* data, npy_intp n);

/* ---- objects -------------------------------------------------------------------------- */
PyObject* mbtpy_context_new(TreeObject* tree, mbt_context* ctx, PyObject* owner);
PyObject* mbtpy_load_urdf(PyObject* self, PyObject* args, PyObject* kwargs);
PyObject* mbtpy_load_urdf_string(PyObject* self, PyObject* args, PyObject* kwargs);
PyObject* mbtpy_context_from_state(PyObject* self, PyObject* args);
int mbtpy_tree_type_init(void);                    /* tree.c */
extern PyMethodDef mbtpy_tree_query_methods[];    /* tree_query.c */
int mbtpy_batch_begin(BatchObject* self);          /* batch.c: marks it running, or raises */
/* batch.c: n, the rows of a 2-D input of `cols` columns; the optional int32 status array. */
int mbtpy_batch_rows(PyObject* obj, const char* name, npy_intp cols, npy_intp* n);
int mbtpy_batch_status(PyObject* obj, npy_intp n, int** data);
extern PyMethodDef mbtpy_batch_deriv_methods[];    /* batch_derivatives.c */
PyObject* mbtpy_batch_rollouts(BatchObject* self, PyObject* args, PyObject* kwargs); /* rollouts.c */
extern PyMethodDef mbtpy_context_calc_methods[];   /* context_calc.c */
extern PyMethodDef mbtpy_context_kin_methods[];    /* context_kinematics.c */
extern PyMethodDef mbtpy_context_param_methods[];  /* context_params.c */
extern PyMethodDef mbtpy_context_deriv_methods[];  /* context_derivatives.c */
extern PyMethodDef mbtpy_tree_config_methods[];    /* context_derivatives.c */
extern PyMethodDef mbtpy_tree_force_methods[];     /* tree_forces.c */
PyObject* mbtpy_tree_get_force_elements(PyObject* tree, void* unused);
/* One method table from `n` NULL-terminated ones (allocated once, lives as long as the type). */
PyMethodDef* mbtpy_join_methods(PyMethodDef* const* parts, size_t n);
PyObject* mbtpy_context_get_gravity(ContextObject* self, void* unused);
int mbtpy_context_set_gravity(ContextObject* self, PyObject* value, void* unused);
/* The parameters of a context as a picklable tuple, and back (-1 with the error set). */
PyObject* mbtpy_context_params_state(ContextObject* self);
int mbtpy_context_params_restore(ContextObject* self, PyObject* state);

/* simulator.c: the simulator's counters as a dict (NULL with the error set). */
PyObject* mbtpy_stats_dict(const mbt_simulator_stats* stats);
/* sim_contact.c: the contact model of a simulator and the contact results. */
int mbtpy_sim_set_contact_model(SimulatorObject* self, PyObject* model, void* unused);
PyObject* mbtpy_sim_get_contact_model(SimulatorObject* self, void* unused);
extern PyMethodDef mbtpy_sim_contact_methods[];

#define MBTPY_FAST(fn) ((PyCFunction)(void (*)(void))(fn))

#endif /* MBTPY_H */
