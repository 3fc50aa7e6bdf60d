/* joints.c: joints (seed: Joint, RevoluteJoint; MultibodyTree::AddJoint) and their state in
 * a context.
 *
 * A joint between frame F on parent body P and frame M on child body B creates one
 * mobilizer from F to M of the matching type. When X_PF (X_BM) is given, F (M) is a new
 * fixed frame "<joint>_parent" ("<joint>_child") on P (B); otherwise it is the body frame. */
#include <float.h>
#include <math.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mobilizers/mobilizer_kernels.h"
#include "tree/context_internal.h"
#include "tree/tree_build.h"

static const mbt_real kPi = 3.14159265358979323846;

static mbt_mobilizer_type mobilizer_type(mbt_joint_type type) {
  switch (type) {
    case MBT_JOINT_WELD: return MBT_MOBILIZER_WELD;
    case MBT_JOINT_REVOLUTE: return MBT_MOBILIZER_REVOLUTE;
    case MBT_JOINT_PRISMATIC: return MBT_MOBILIZER_PRISMATIC;
    case MBT_JOINT_UNIVERSAL: return MBT_MOBILIZER_UNIVERSAL;
    case MBT_JOINT_PLANAR: return MBT_MOBILIZER_PLANAR;
    case MBT_JOINT_BALL_RPY: return MBT_MOBILIZER_SPACE_XYZ;
    case MBT_JOINT_QUATERNION_FLOATING: return MBT_MOBILIZER_QUATERNION_FLOATING;
    case MBT_JOINT_SCREW: return MBT_MOBILIZER_SCREW;
    default: return MBT_MOBILIZER_NUM_TYPES;
  }
}

static bool has_axis(mbt_joint_type type) {
  return type == MBT_JOINT_REVOLUTE || type == MBT_JOINT_PRISMATIC || type == MBT_JOINT_SCREW;
}

/* ---- adding joints ------------------------------------------------------------------------ */
static int check_values(const mbt_tree* tree, const char* what, const char* quantity, const mbt_real* x, int n,
                        bool nonnegative) {
  for (int k = 0; k < n; ++k) {
    if (mbt_isnan(x[k]) || (nonnegative && (x[k] < 0 || !mbt_isfinite(x[k]))))
      return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: %s[%d] = %g must be %s", what, quantity, k, x[k],
                             nonnegative ? "finite and >= 0" : "a number");
  }
  return MBT_OK;
}

static int check_limits(const mbt_tree* tree, const char* what, const char* quantity, const mbt_real* lower,
                        const mbt_real* upper, int n) {
  for (int k = 0; k < n; ++k) {
    if (mbt_isnan(lower[k]) || mbt_isnan(upper[k]))
      return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: %s limit %d is NaN", what, quantity, k);
    if (lower[k] > upper[k])
      return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: %s lower limit %g is above the upper limit %g",
                             what, quantity, lower[k], upper[k]);
  }
  return MBT_OK;
}

/* What a new joint is given (add_joint's arguments). */
typedef struct {
  const char* name;
  mbt_joint_type type;
  int parent_body, child_body;
  const mbt_transform *X_PF, *X_BM;
  const mbt_vec3* axis;
  mbt_real pitch;
  const mbt_real *damping, *lower, *upper;
} joint_spec;

/* Checks a new joint: tree not finalized, a free name (a joint's mobilizer takes its name:
 * one lookup finds either), existing and connectable bodies, valid frames, a unit-able axis
 * (into *unit), a finite pitch, valid damping and limits. */
static int check_joint(mbt_tree* tree, const char* what, const joint_spec* js, mbt_vec3* unit) {
  int s;
  if ((s = mbt__check_not_finalized(tree, what)) || (s = mbt__check_name(tree, "joint", js->name))) return s;
  const int other = mbt__find_mobilizer(tree, js->name);
  if (other >= 0 && tree->mobilizers[other].joint >= 0)
    return mbt__tree_error(tree, MBT_ERR_DUPLICATE, "%s: a joint with this name already exists", what);
  if (other >= 0)
    return mbt__tree_error(tree, MBT_ERR_DUPLICATE, "%s: a mobilizer with this name already exists", what);
  if (js->parent_body < 0 || js->parent_body >= tree->num_bodies)
    return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "%s: unknown parent body %d (the tree has %d bodies)", what,
                           js->parent_body, tree->num_bodies);
  if (js->child_body < 0 || js->child_body >= tree->num_bodies)
    return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "%s: unknown child body %d (the tree has %d bodies)", what,
                           js->child_body, tree->num_bodies);
  if ((s = mbt__check_connection(tree, what, js->parent_body, js->child_body))) return s;
  if (js->X_PF && (s = mbt__check_transform(tree, what, "X_PF", js->X_PF))) return s;
  if (js->X_BM && (s = mbt__check_transform(tree, what, "X_BM", js->X_BM))) return s;
  *unit = mbt_vec3_zero();
  if (has_axis(js->type) && (s = mbt__check_axis(tree, what, js->axis, unit))) return s;
  if (js->type == MBT_JOINT_SCREW && !mbt_isfinite(js->pitch))
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: the screw pitch %g is not finite", what, js->pitch);
  const mbt_mobilizer_type mtype = mobilizer_type(js->type);
  const int nq = mbt__mobilizer_type_nq(mtype), nv = mbt__mobilizer_type_nv(mtype);
  if (js->damping && (s = check_values(tree, what, "damping", js->damping, nv, true))) return s;
  if (js->lower && (s = check_limits(tree, what, "position", js->lower, js->upper, nq))) return s;
  return MBT_OK;
}

/* A new joint's storage in the tree's arena: its name (the joint's and its mobilizer's), the
 * names of its new frames, and its values: pos_lower, pos_upper, default_q [nq]; vel_lower,
 * vel_upper, acc_lower, acc_upper, default_damping [nv]. */
typedef struct {
  char* joint_name;
  char* parent_name;  /* "<joint>_parent" if X_PF is given, else NULL */
  char* child_name;   /* "<joint>_child" if X_BM is given, else NULL */
  mbt_real* values;
} joint_storage;

/* Allocates st and room for the joint's frames, mobilizer and joint; on failure (a frame name
 * taken, out of memory) the arena is rewound and the error returned. */
static int allocate_joint(mbt_tree* tree, const char* what, const joint_spec* js, int nq, int nv,
                          joint_storage* st) {
  const mbt_arena_mark mark = mbt__arena_mark(&tree->arena);
  st->joint_name = mbt__tree_name(tree, js->name, NULL);
  st->parent_name = js->X_PF ? mbt__tree_name(tree, js->name, "_parent") : NULL;
  st->child_name = js->X_BM ? mbt__tree_name(tree, js->name, "_child") : NULL;
  st->values = mbt__arena_alloc(&tree->arena, (size_t)(3 * nq + 5 * nv) * sizeof *st->values, alignof(mbt_real));
  bool oom = !st->joint_name || (js->X_PF && !st->parent_name) || (js->X_BM && !st->child_name) || !st->values;
  int s = MBT_OK;
  if (!oom) {
    if (st->parent_name && mbt__find_frame(tree, st->parent_name) >= 0)
      s = mbt__tree_error(tree, MBT_ERR_DUPLICATE, "%s: frame '%s' already exists", what, st->parent_name);
    else if (st->child_name && mbt__find_frame(tree, st->child_name) >= 0)
      s = mbt__tree_error(tree, MBT_ERR_DUPLICATE, "%s: frame '%s' already exists", what, st->child_name);
    else if (mbt__tree_reserve(tree, (js->X_PF != NULL) + (js->X_BM != NULL), 1, 1, 0))
      oom = true;
  }
  if (oom) s = mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "%s: out of memory", what);
  if (s) mbt__arena_rewind(&tree->arena, mark);
  return s;
}

/* Joint j's values laid out in `values`: no position, velocity or acceleration limits but
 * the given position limits, the zero configuration as default q (q = [1 0 0 0 ...] for a
 * quaternion), the given damping or none. */
static void init_joint_values(mbt_joint* J, const joint_spec* js, mbt_real* values) {
  const int nq = J->nq, nv = J->nv;
  J->pos_lower = values;
  J->pos_upper = J->pos_lower + nq;
  J->default_q = J->pos_upper + nq;
  J->vel_lower = J->default_q + nq;
  J->vel_upper = J->vel_lower + nv;
  J->acc_lower = J->vel_upper + nv;
  J->acc_upper = J->acc_lower + nv;
  J->default_damping = J->acc_upper + nv;
  for (int k = 0; k < nq; ++k) {
    J->pos_lower[k] = js->lower ? js->lower[k] : -INFINITY;
    J->pos_upper[k] = js->upper ? js->upper[k] : INFINITY;
    J->default_q[k] = js->type == MBT_JOINT_QUATERNION_FLOATING && k == 0 ? 1 : 0; /* the zero configuration */
  }
  for (int k = 0; k < nv; ++k) {
    J->vel_lower[k] = J->acc_lower[k] = -INFINITY;
    J->vel_upper[k] = J->acc_upper[k] = INFINITY;
    J->default_damping[k] = js->damping ? js->damping[k] : 0;
  }
}

static int add_joint(mbt_tree* tree, const char* name, mbt_joint_type type, int parent_body,
                     const mbt_transform* X_PF, int child_body, const mbt_transform* X_BM, const mbt_vec3* axis,
                     mbt_real pitch, const mbt_real* damping, const mbt_real* lower, const mbt_real* upper) {
  if (!tree) return MBT_ERR_INVALID_ARGUMENT;
  const joint_spec js = {name, type, parent_body, child_body, X_PF, X_BM, axis, pitch, damping, lower, upper};
  char what[96];
  mbt__describe(what, sizeof what, "joint", name);
  mbt_vec3 unit;
  int s;
  if ((s = check_joint(tree, what, &js, &unit))) return s;
  const mbt_mobilizer_type mtype = mobilizer_type(type);
  const int nq = mbt__mobilizer_type_nq(mtype), nv = mbt__mobilizer_type_nv(mtype);
  joint_storage st;
  if ((s = allocate_joint(tree, what, &js, nq, nv, &st))) return s;

  const int F = X_PF ? mbt__append_frame(tree, st.parent_name, tree->bodies[parent_body].body_frame, X_PF)
                     : tree->bodies[parent_body].body_frame;
  const int M = X_BM ? mbt__append_frame(tree, st.child_name, tree->bodies[child_body].body_frame, X_BM)
                     : tree->bodies[child_body].body_frame;
  const int j = tree->num_joints;
  const int m = mbt__append_mobilizer(tree, st.joint_name, mtype, F, M, unit, pitch, j);
  mbt_joint* J = &tree->joints[j];
  memset(J, 0, sizeof *J);
  J->name = st.joint_name;
  J->type = type;
  J->parent_body = parent_body;
  J->child_body = child_body;
  J->frame_on_parent = F;
  J->frame_on_child = M;
  J->mobilizer = m;
  J->nq = nq;
  J->nv = nv;
  init_joint_values(J, &js, st.values);
  tree->num_joints++;
  return j;
}

int mbt_tree_add_revolute_joint(mbt_tree* tree, const char* name, int parent_body, const mbt_transform* X_PF,
                                int child_body, const mbt_transform* X_BM, mbt_vec3 axis, mbt_real damping) {
  return add_joint(tree, name, MBT_JOINT_REVOLUTE, parent_body, X_PF, child_body, X_BM, &axis, 0, &damping, NULL,
                   NULL);
}

int mbt_tree_add_revolute_joint_with_limits(mbt_tree* tree, const char* name, int parent_body,
                                            const mbt_transform* X_PF, int child_body, const mbt_transform* X_BM,
                                            mbt_vec3 axis, mbt_real pos_lower_limit, mbt_real pos_upper_limit,
                                            mbt_real damping) {
  return add_joint(tree, name, MBT_JOINT_REVOLUTE, parent_body, X_PF, child_body, X_BM, &axis, 0, &damping,
                   &pos_lower_limit, &pos_upper_limit);
}

int mbt_tree_add_prismatic_joint(mbt_tree* tree, const char* name, int parent_body, const mbt_transform* X_PF,
                                 int child_body, const mbt_transform* X_BM, mbt_vec3 axis, mbt_real damping) {
  return add_joint(tree, name, MBT_JOINT_PRISMATIC, parent_body, X_PF, child_body, X_BM, &axis, 0, &damping, NULL,
                   NULL);
}

int mbt_tree_add_weld_joint(mbt_tree* tree, const char* name, int parent_body, const mbt_transform* X_PF,
                            int child_body, const mbt_transform* X_BM) {
  return add_joint(tree, name, MBT_JOINT_WELD, parent_body, X_PF, child_body, X_BM, NULL, 0, NULL, NULL, NULL);
}

int mbt_tree_add_universal_joint(mbt_tree* tree, const char* name, int parent_body, const mbt_transform* X_PF,
                                 int child_body, const mbt_transform* X_BM, const mbt_real* damping) {
  return add_joint(tree, name, MBT_JOINT_UNIVERSAL, parent_body, X_PF, child_body, X_BM, NULL, 0, damping, NULL,
                   NULL);
}

int mbt_tree_add_planar_joint(mbt_tree* tree, const char* name, int parent_body, const mbt_transform* X_PF,
                              int child_body, const mbt_transform* X_BM, const mbt_real* damping) {
  return add_joint(tree, name, MBT_JOINT_PLANAR, parent_body, X_PF, child_body, X_BM, NULL, 0, damping, NULL, NULL);
}

int mbt_tree_add_ball_rpy_joint(mbt_tree* tree, const char* name, int parent_body, const mbt_transform* X_PF,
                                int child_body, const mbt_transform* X_BM, const mbt_real* damping) {
  return add_joint(tree, name, MBT_JOINT_BALL_RPY, parent_body, X_PF, child_body, X_BM, NULL, 0, damping, NULL,
                   NULL);
}

int mbt_tree_add_quaternion_floating_joint(mbt_tree* tree, const char* name, int parent_body,
                                           const mbt_transform* X_PF, int child_body, const mbt_transform* X_BM,
                                           const mbt_real* damping) {
  return add_joint(tree, name, MBT_JOINT_QUATERNION_FLOATING, parent_body, X_PF, child_body, X_BM, NULL, 0, damping,
                   NULL, NULL);
}

int mbt_tree_add_screw_joint(mbt_tree* tree, const char* name, int parent_body, const mbt_transform* X_PF,
                             int child_body, const mbt_transform* X_BM, mbt_vec3 axis, mbt_real screw_pitch,
                             mbt_real damping) {
  return add_joint(tree, name, MBT_JOINT_SCREW, parent_body, X_PF, child_body, X_BM, &axis, screw_pitch, &damping,
                   NULL, NULL);
}

/* ---- the Joint interface ------------------------------------------------------------------ */
static bool joint_ok(const mbt_tree* tree, int joint) {
  if (joint >= 0 && joint < tree->num_joints) return true;
  mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "unknown joint %d (the tree has %d joints)", joint, tree->num_joints);
  return false;
}

int mbt_tree_num_joints(const mbt_tree* tree) { return tree->num_joints; }

int mbt_tree_joint_by_name(const mbt_tree* tree, const char* name) {
  int j = mbt__find_joint(tree, name);
  if (j < 0) return mbt__tree_error(tree, MBT_ERR_NOT_FOUND, "no joint named '%s'", name ? name : "(null)");
  return j;
}

const char* mbt_joint_name(const mbt_tree* tree, int joint) {
  return joint_ok(tree, joint) ? tree->joints[joint].name : NULL;
}

mbt_joint_type mbt_joint_type_of(const mbt_tree* tree, int joint) {
  return joint_ok(tree, joint) ? tree->joints[joint].type : MBT_JOINT_NUM_TYPES;
}

const char* mbt_joint_type_to_string(mbt_joint_type type) {
  switch (type) {
    case MBT_JOINT_WELD: return "weld";
    case MBT_JOINT_REVOLUTE: return MBT_REVOLUTE_JOINT_TYPE_NAME;
    case MBT_JOINT_PRISMATIC: return "prismatic";
    case MBT_JOINT_UNIVERSAL: return "universal";
    case MBT_JOINT_PLANAR: return "planar";
    case MBT_JOINT_BALL_RPY: return "ball_rpy";
    case MBT_JOINT_QUATERNION_FLOATING: return "quaternion_floating";
    case MBT_JOINT_SCREW: return "screw";
    default: return NULL;
  }
}

const char* mbt_joint_type_name(const mbt_tree* tree, int joint) {
  return joint_ok(tree, joint) ? mbt_joint_type_to_string(tree->joints[joint].type) : NULL;
}

#define JOINT_INT_GETTER(fn, field)                                                      \
  int fn(const mbt_tree* tree, int joint) {                                              \
    return joint_ok(tree, joint) ? tree->joints[joint].field : MBT_ERR_NOT_FOUND;        \
  }
JOINT_INT_GETTER(mbt_joint_parent_body, parent_body)
JOINT_INT_GETTER(mbt_joint_child_body, child_body)
JOINT_INT_GETTER(mbt_joint_frame_on_parent, frame_on_parent)
JOINT_INT_GETTER(mbt_joint_frame_on_child, frame_on_child)
JOINT_INT_GETTER(mbt_joint_mobilizer, mobilizer)
JOINT_INT_GETTER(mbt_joint_num_positions, nq)
JOINT_INT_GETTER(mbt_joint_num_velocities, nv)
#undef JOINT_INT_GETTER

int mbt_joint_position_start(const mbt_tree* tree, int joint) {
  if (!joint_ok(tree, joint)) return MBT_ERR_NOT_FOUND;
  if (!tree->finalized)
    return mbt__tree_error(tree, MBT_ERR_NOT_FINALIZED, "joint '%s': positions are assigned at finalize",
                           tree->joints[joint].name);
  return tree->mobilizers[tree->joints[joint].mobilizer].q_start;
}

int mbt_joint_velocity_start(const mbt_tree* tree, int joint) {
  if (!joint_ok(tree, joint)) return MBT_ERR_NOT_FOUND;
  if (!tree->finalized)
    return mbt__tree_error(tree, MBT_ERR_NOT_FINALIZED, "joint '%s': velocities are assigned at finalize",
                           tree->joints[joint].name);
  return tree->mobilizers[tree->joints[joint].mobilizer].v_start;
}

bool mbt_joint_can_rotate(const mbt_tree* tree, int joint) {
  return joint_ok(tree, joint) && mbt__mob_can_rotate(mobilizer_type(tree->joints[joint].type));
}

bool mbt_joint_can_translate(const mbt_tree* tree, int joint) {
  return joint_ok(tree, joint) && mbt__mob_can_translate(mobilizer_type(tree->joints[joint].type));
}

static const char* suffix(mbt_joint_type type, int k, bool position) {
  static const char* const q_rev[] = {"q"}, *const v_rev[] = {"w"};
  static const char* const q_pri[] = {"x"}, *const v_pri[] = {"v"};
  static const char* const q_uni[] = {"qx", "qy"}, *const v_uni[] = {"wx", "wy"};
  static const char* const q_pla[] = {"x", "y", "qz"}, *const v_pla[] = {"vx", "vy", "wz"};
  static const char* const q_rpy[] = {"qx", "qy", "qz"}, *const v_rpy[] = {"wx", "wy", "wz"};
  static const char* const q_flo[] = {"qw", "qx", "qy", "qz", "x", "y", "z"};
  static const char* const v_flo[] = {"wx", "wy", "wz", "vx", "vy", "vz"};
  const char* const* names = NULL;
  int n = 0;
  switch (type) {
    case MBT_JOINT_REVOLUTE:
    case MBT_JOINT_SCREW: names = position ? q_rev : v_rev; n = 1; break;
    case MBT_JOINT_PRISMATIC: names = position ? q_pri : v_pri; n = 1; break;
    case MBT_JOINT_UNIVERSAL: names = position ? q_uni : v_uni; n = 2; break;
    case MBT_JOINT_PLANAR: names = position ? q_pla : v_pla; n = 3; break;
    case MBT_JOINT_BALL_RPY: names = position ? q_rpy : v_rpy; n = 3; break;
    case MBT_JOINT_QUATERNION_FLOATING: names = position ? q_flo : v_flo; n = position ? 7 : 6; break;
    default: break;
  }
  return k >= 0 && k < n ? names[k] : NULL;
}

const char* mbt_joint_position_suffix(const mbt_tree* tree, int joint, int k) {
  return joint_ok(tree, joint) ? suffix(tree->joints[joint].type, k, true) : NULL;
}

const char* mbt_joint_velocity_suffix(const mbt_tree* tree, int joint, int k) {
  return joint_ok(tree, joint) ? suffix(tree->joints[joint].type, k, false) : NULL;
}

mbt_vec3 mbt_joint_axis(const mbt_tree* tree, int joint) {
  if (!joint_ok(tree, joint)) return mbt_vec3_zero();
  return tree->mobilizers[tree->joints[joint].mobilizer].axis;
}

mbt_real mbt_joint_screw_pitch(const mbt_tree* tree, int joint) {
  if (!joint_ok(tree, joint)) return 0;
  return tree->mobilizers[tree->joints[joint].mobilizer].pitch;
}

#define JOINT_ARRAY_GETTER(fn, field) \
  const mbt_real* fn(const mbt_tree* tree, int joint) { return joint_ok(tree, joint) ? tree->joints[joint].field : NULL; }
JOINT_ARRAY_GETTER(mbt_joint_position_lower_limits, pos_lower)
JOINT_ARRAY_GETTER(mbt_joint_position_upper_limits, pos_upper)
JOINT_ARRAY_GETTER(mbt_joint_velocity_lower_limits, vel_lower)
JOINT_ARRAY_GETTER(mbt_joint_velocity_upper_limits, vel_upper)
JOINT_ARRAY_GETTER(mbt_joint_acceleration_lower_limits, acc_lower)
JOINT_ARRAY_GETTER(mbt_joint_acceleration_upper_limits, acc_upper)
JOINT_ARRAY_GETTER(mbt_joint_default_positions, default_q)
JOINT_ARRAY_GETTER(mbt_joint_default_damping_vector, default_damping)
#undef JOINT_ARRAY_GETTER

/* Common checks of the model-data setters: known joint, not finalized, n as expected. */
static int begin_joint_setter(const mbt_tree* tree, int joint, const char* quantity, int n, int expected,
                              const void* a, const void* b) {
  if (!joint_ok(tree, joint)) return MBT_ERR_NOT_FOUND;
  const mbt_joint* J = &tree->joints[joint];
  if (tree->finalized)
    return mbt__tree_error(tree, MBT_ERR_FINALIZED, "joint '%s': %s cannot change, the tree is finalized", J->name,
                           quantity);
  if (n != expected)
    return mbt__tree_error(tree, MBT_ERR_SIZE, "joint '%s': %s: got %d values, the joint has %d", J->name, quantity,
                           n, expected);
  if ((!a || !b) && n > 0)
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "joint '%s': %s: NULL array", J->name, quantity);
  return MBT_OK;
}

static int set_limits(mbt_tree* tree, int joint, const char* quantity, const mbt_real* lower, const mbt_real* upper,
                      int n, bool positions, mbt_real* dst_lower, mbt_real* dst_upper) {
  int expected = joint >= 0 && joint < tree->num_joints
                     ? (positions ? tree->joints[joint].nq : tree->joints[joint].nv)
                     : 0;
  int s = begin_joint_setter(tree, joint, quantity, n, expected, lower, upper);
  if (s) return s;
  char what[96];
  snprintf(what, sizeof what, "joint '%s'", tree->joints[joint].name);
  if ((s = check_limits(tree, what, quantity, lower, upper, n))) return s;
  for (int k = 0; k < n; ++k) {
    dst_lower[k] = lower[k];
    dst_upper[k] = upper[k];
  }
  return MBT_OK;
}

int mbt_joint_set_position_limits(mbt_tree* tree, int joint, const mbt_real* lower, const mbt_real* upper, int n) {
  if (!joint_ok(tree, joint)) return MBT_ERR_NOT_FOUND;
  mbt_joint* J = &tree->joints[joint];
  return set_limits(tree, joint, "position", lower, upper, n, true, J->pos_lower, J->pos_upper);
}

int mbt_joint_set_velocity_limits(mbt_tree* tree, int joint, const mbt_real* lower, const mbt_real* upper, int n) {
  if (!joint_ok(tree, joint)) return MBT_ERR_NOT_FOUND;
  mbt_joint* J = &tree->joints[joint];
  return set_limits(tree, joint, "velocity", lower, upper, n, false, J->vel_lower, J->vel_upper);
}

int mbt_joint_set_acceleration_limits(mbt_tree* tree, int joint, const mbt_real* lower, const mbt_real* upper,
                                      int n) {
  if (!joint_ok(tree, joint)) return MBT_ERR_NOT_FOUND;
  mbt_joint* J = &tree->joints[joint];
  return set_limits(tree, joint, "acceleration", lower, upper, n, false, J->acc_lower, J->acc_upper);
}

/* Default positions; a floating joint's quaternion is stored normalized. */
int mbt_joint_set_default_positions(mbt_tree* tree, int joint, const mbt_real* q0, int n) {
  int expected = joint >= 0 && joint < tree->num_joints ? tree->joints[joint].nq : 0;
  int s = begin_joint_setter(tree, joint, "default positions", n, expected, q0, q0);
  if (s) return s;
  mbt_joint* J = &tree->joints[joint];
  for (int k = 0; k < n; ++k)
    if (!mbt_isfinite(q0[k]))
      return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "joint '%s': default position %d (%g) is not finite",
                             J->name, k, q0[k]);
  mbt_real scale = 1;
  if (J->type == MBT_JOINT_QUATERNION_FLOATING) {
    mbt_real norm = mbt_sqrt(q0[0] * q0[0] + q0[1] * q0[1] + q0[2] * q0[2] + q0[3] * q0[3]);
    if (norm < mbt_sqrt(DBL_EPSILON))
      return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "joint '%s': the default quaternion is zero", J->name);
    scale = 1 / norm;
  }
  for (int k = 0; k < n; ++k) J->default_q[k] = (J->type == MBT_JOINT_QUATERNION_FLOATING && k < 4) ? q0[k] * scale : q0[k];
  return MBT_OK;
}

/* Unit quaternion [w x y z] of R, w >= 0. */
static void quaternion_from_rotation(const mbt_mat3* R, mbt_real q[4]) {
  const mbt_quat quat = mbt_quat_from_rotation(R);
  q[0] = quat.w;
  q[1] = quat.x;
  q[2] = quat.y;
  q[3] = quat.z;
}

/* Angle of R about unit axis â, projected onto rotations about â:
 * θ = atan2(½·â·vee(R − Rᵀ), ½·(tr R − âᵀ·R·â)). */
static mbt_real angle_about_axis(const mbt_mat3* R, mbt_vec3 a) {
  mbt_vec3 vee = mbt_vec3_make(R->m[2][1] - R->m[1][2], R->m[0][2] - R->m[2][0], R->m[1][0] - R->m[0][1]);
  mbt_real s = mbt_vec3_dot(a, vee) / 2;
  mbt_real c = (R->m[0][0] + R->m[1][1] + R->m[2][2] - mbt_vec3_dot(a, mbt_mat3_mul_vec(R, a))) / 2;
  return mbt_atan2(s, c);
}

/* q0 from a pose X_FM: exact for floating joints, projected onto the joint's motion for the
 * others (seed Joint::SetDefaultPose). */
static void positions_from_pose(const mbt_tree* tree, const mbt_joint* J, const mbt_transform* X_FM, mbt_real* q) {
  const mbt_mobilizer* mob = &tree->mobilizers[J->mobilizer];
  const mbt_mat3* R = &X_FM->R;
  const mbt_vec3 p = X_FM->p;
  switch (J->type) {
    case MBT_JOINT_WELD: break;
    case MBT_JOINT_REVOLUTE: q[0] = angle_about_axis(R, mob->axis); break;
    case MBT_JOINT_PRISMATIC: q[0] = mbt_vec3_dot(mob->axis, p); break;
    case MBT_JOINT_SCREW: {
      /* The rotation gives θ modulo 2π; the translation d = pitch·θ/(2π) picks the turn. */
      mbt_real theta = angle_about_axis(R, mob->axis);
      if (mob->pitch != 0) {
        mbt_real theta_d = 2 * kPi * mbt_vec3_dot(mob->axis, p) / mob->pitch;
        theta += 2 * kPi * floor((theta_d - theta) / (2 * kPi) + 0.5);
      }
      q[0] = theta;
      break;
    }
    case MBT_JOINT_UNIVERSAL:
      /* R = Rx(q0)·Ry(q1): R21 = sin q0, R11 = cos q0, R02 = sin q1, R00 = cos q1. */
      q[0] = mbt_atan2(R->m[2][1], R->m[1][1]);
      q[1] = mbt_atan2(R->m[0][2], R->m[0][0]);
      break;
    case MBT_JOINT_PLANAR:
      q[0] = p.v[0];
      q[1] = p.v[1];
      q[2] = mbt_atan2(R->m[1][0], R->m[0][0]);
      break;
    case MBT_JOINT_BALL_RPY: {
      /* R = Rz(y)·Ry(p)·Rx(r). */
      const mbt_vec3 rpy = mbt_rotation_to_rpy(R);
      q[0] = rpy.v[0];
      q[1] = rpy.v[1];
      q[2] = rpy.v[2];
      break;
    }
    case MBT_JOINT_QUATERNION_FLOATING:
      quaternion_from_rotation(R, q);
      q[4] = p.v[0];
      q[5] = p.v[1];
      q[6] = p.v[2];
      break;
    default: break;
  }
}

int mbt_joint_set_default_pose(mbt_tree* tree, int joint, const mbt_transform* X_FM) {
  int s = begin_joint_setter(tree, joint, "default pose", 0, 0, X_FM, X_FM);
  if (s) return s;
  mbt_joint* J = &tree->joints[joint];
  if (!X_FM) return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "joint '%s': the pose is NULL", J->name);
  char what[96];
  snprintf(what, sizeof what, "joint '%s'", J->name);
  if ((s = mbt__check_transform(tree, what, "X_FM", X_FM))) return s;
  mbt_real q[MBT_JOINT_MAX_NQ];
  for (int k = 0; k < J->nq; ++k) q[k] = J->default_q[k];
  positions_from_pose(tree, J, X_FM, q);
  for (int k = 0; k < J->nq; ++k) J->default_q[k] = q[k];
  return MBT_OK;
}

int mbt_joint_get_default_pose(const mbt_tree* tree, int joint, mbt_transform* X_FM) {
  if (!joint_ok(tree, joint)) return MBT_ERR_NOT_FOUND;
  const mbt_joint* J = &tree->joints[joint];
  mbt_node n;
  mbt__node_from_mobilizer(tree, J->mobilizer, &n);
  mbt__mob_calc_X_FM(&n, J->default_q, X_FM);
  return MBT_OK;
}

int mbt_joint_set_default_damping_vector(mbt_tree* tree, int joint, const mbt_real* damping, int n) {
  int expected = joint >= 0 && joint < tree->num_joints ? tree->joints[joint].nv : 0;
  int s = begin_joint_setter(tree, joint, "default damping", n, expected, damping, damping);
  if (s) return s;
  mbt_joint* J = &tree->joints[joint];
  char what[96];
  snprintf(what, sizeof what, "joint '%s'", J->name);
  if ((s = check_values(tree, what, "damping", damping, n, true))) return s;
  for (int k = 0; k < n; ++k) J->default_damping[k] = damping[k];
  return MBT_OK;
}

/* ---- joint state in a context ------------------------------------------------------------ */
static const mbt_joint* ctx_joint(const mbt_context* ctx, int joint, const char* fn) {
  const mbt_tree* tree = ctx->tree;
  if (joint < 0 || joint >= tree->num_joints) {
    mbt__context_error(ctx, MBT_ERR_NOT_FOUND, "%s: unknown joint %d (the tree has %d joints)", fn, joint,
                       tree->num_joints);
    return NULL;
  }
  return &tree->joints[joint];
}

static int q_start(const mbt_context* ctx, const mbt_joint* J) { return ctx->tree->mobilizers[J->mobilizer].q_start; }
static int v_start(const mbt_context* ctx, const mbt_joint* J) { return ctx->tree->mobilizers[J->mobilizer].v_start; }

/* A joint of the given type, or NULL with the error set. */
static const mbt_joint* ctx_typed_joint(const mbt_context* ctx, int joint, mbt_joint_type type, const char* fn,
                                        int* status) {
  const mbt_joint* J = ctx_joint(ctx, joint, fn);
  if (!J) {
    *status = MBT_ERR_NOT_FOUND;
    return NULL;
  }
  if (J->type != type) {
    *status = mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: joint '%s' is %s, not %s", fn, J->name,
                                 mbt_joint_type_to_string(J->type), mbt_joint_type_to_string(type));
    return NULL;
  }
  *status = MBT_OK;
  return J;
}

static int check_forces(const mbt_context* ctx, const mbt_multibody_forces* forces, const char* fn) {
  if (!forces || forces->nv != ctx->tree->nv || forces->num_bodies != ctx->tree->num_nodes)
    return mbt__context_error(ctx, MBT_ERR_SIZE, "%s: the forces do not belong to this tree", fn);
  return MBT_OK;
}

const mbt_real* mbt_joint_positions(const mbt_context* ctx, int joint) {
  const mbt_joint* J = ctx_joint(ctx, joint, "mbt_joint_positions");
  return J ? ctx->q + q_start(ctx, J) : NULL;
}

const mbt_real* mbt_joint_velocities(const mbt_context* ctx, int joint) {
  const mbt_joint* J = ctx_joint(ctx, joint, "mbt_joint_velocities");
  return J ? ctx->v + v_start(ctx, J) : NULL;
}

static int check_ctx_size(const mbt_context* ctx, const mbt_joint* J, const char* fn, const void* a, int n,
                          int expected) {
  if (n != expected)
    return mbt__context_error(ctx, MBT_ERR_SIZE, "%s: joint '%s' has %d values, got %d", fn, J->name, expected, n);
  if (!a && n > 0) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: NULL array", fn);
  return MBT_OK;
}

int mbt_joint_set_positions(mbt_context* ctx, int joint, const mbt_real* q, int n) {
  const mbt_joint* J = ctx_joint(ctx, joint, "mbt_joint_set_positions");
  if (!J) return MBT_ERR_NOT_FOUND;
  int s = check_ctx_size(ctx, J, "mbt_joint_set_positions", q, n, J->nq);
  if (s) return s;
  for (int k = 0; k < n; ++k) ctx->q[q_start(ctx, J) + k] = q[k];
  mbt__context_invalidate_q(ctx);
  return MBT_OK;
}

int mbt_joint_set_velocities(mbt_context* ctx, int joint, const mbt_real* v, int n) {
  const mbt_joint* J = ctx_joint(ctx, joint, "mbt_joint_set_velocities");
  if (!J) return MBT_ERR_NOT_FOUND;
  int s = check_ctx_size(ctx, J, "mbt_joint_set_velocities", v, n, J->nv);
  if (s) return s;
  for (int k = 0; k < n; ++k) ctx->v[v_start(ctx, J) + k] = v[k];
  mbt__context_invalidate_v(ctx);
  return MBT_OK;
}

static int one_dof(const mbt_context* ctx, const mbt_joint* J, const char* fn) {
  if (J->nq != 1 || J->nv != 1)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: joint '%s' (%s) does not have exactly one dof", fn,
                              J->name, mbt_joint_type_to_string(J->type));
  return MBT_OK;
}

int mbt_joint_get_one_position(const mbt_context* ctx, int joint, mbt_real* q) {
  const mbt_joint* J = ctx_joint(ctx, joint, "mbt_joint_get_one_position");
  if (!J) return MBT_ERR_NOT_FOUND;
  int s = one_dof(ctx, J, "mbt_joint_get_one_position");
  if (s) return s;
  *q = ctx->q[q_start(ctx, J)];
  return MBT_OK;
}

int mbt_joint_get_one_velocity(const mbt_context* ctx, int joint, mbt_real* v) {
  const mbt_joint* J = ctx_joint(ctx, joint, "mbt_joint_get_one_velocity");
  if (!J) return MBT_ERR_NOT_FOUND;
  int s = one_dof(ctx, J, "mbt_joint_get_one_velocity");
  if (s) return s;
  *v = ctx->v[v_start(ctx, J)];
  return MBT_OK;
}

const mbt_real* mbt_joint_damping_vector(const mbt_context* ctx, int joint) {
  const mbt_joint* J = ctx_joint(ctx, joint, "mbt_joint_damping_vector");
  return J ? ctx->damping + v_start(ctx, J) : NULL;
}

int mbt_joint_set_damping_vector(mbt_context* ctx, int joint, const mbt_real* damping, int n) {
  const char* fn = "mbt_joint_set_damping_vector";
  const mbt_joint* J = ctx_joint(ctx, joint, fn);
  if (!J) return MBT_ERR_NOT_FOUND;
  int s = check_ctx_size(ctx, J, fn, damping, n, J->nv);
  if (s) return s;
  for (int k = 0; k < n; ++k)
    if (!(damping[k] >= 0) || !mbt_isfinite(damping[k]))
      return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: joint '%s': damping[%d] = %g must be finite and >= 0",
                                fn, J->name, k, damping[k]);
  for (int k = 0; k < n; ++k) ctx->damping[v_start(ctx, J) + k] = damping[k];
  return MBT_OK;
}

int mbt_joint_add_in_one_force(const mbt_context* ctx, int joint, int joint_dof, mbt_real joint_tau,
                               mbt_multibody_forces* forces) {
  const char* fn = "mbt_joint_add_in_one_force";
  const mbt_joint* J = ctx_joint(ctx, joint, fn);
  if (!J) return MBT_ERR_NOT_FOUND;
  int s = check_forces(ctx, forces, fn);
  if (s) return s;
  if (joint_dof < 0 || joint_dof >= J->nv)
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: joint '%s' has no dof %d (it has %d)", fn, J->name,
                              joint_dof, J->nv);
  forces->tau[v_start(ctx, J) + joint_dof] += joint_tau;
  return MBT_OK;
}

/* Seed Joint::AddInDamping: tau −= d ⊙ v over the joint's velocities. */
int mbt_joint_add_in_damping(const mbt_context* ctx, int joint, mbt_multibody_forces* forces) {
  const char* fn = "mbt_joint_add_in_damping";
  const mbt_joint* J = ctx_joint(ctx, joint, fn);
  if (!J) return MBT_ERR_NOT_FOUND;
  int s = check_forces(ctx, forces, fn);
  if (s) return s;
  const int v0 = v_start(ctx, J);
  for (int k = 0; k < J->nv; ++k) forces->tau[v0 + k] -= ctx->damping[v0 + k] * ctx->v[v0 + k];
  return MBT_OK;
}

int mbt_joint_lock(mbt_context* ctx, int joint) {
  const mbt_joint* J = ctx_joint(ctx, joint, "mbt_joint_lock");
  if (!J) return MBT_ERR_NOT_FOUND;
  const int v0 = v_start(ctx, J);
  for (int k = 0; k < J->nv; ++k) {
    ctx->v[v0 + k] = 0;
    ctx->v_locked[v0 + k] = true;
  }
  ctx->joint_locked[joint] = true;
  ctx->any_locked = true;
  mbt__context_invalidate_v(ctx);
  ctx->aba_position_valid = false; /* the articulated inertias treat locked joints as welds */
  return MBT_OK;
}

int mbt_joint_unlock(mbt_context* ctx, int joint) {
  const mbt_joint* J = ctx_joint(ctx, joint, "mbt_joint_unlock");
  if (!J) return MBT_ERR_NOT_FOUND;
  const int v0 = v_start(ctx, J);
  for (int k = 0; k < J->nv; ++k) ctx->v_locked[v0 + k] = false;
  ctx->joint_locked[joint] = false;
  ctx->any_locked = false;
  for (int j = 0; j < ctx->tree->num_joints; ++j) ctx->any_locked = ctx->any_locked || ctx->joint_locked[j];
  ctx->aba_position_valid = false;
  return MBT_OK;
}

bool mbt_joint_is_locked(const mbt_context* ctx, int joint) {
  const mbt_joint* J = ctx_joint(ctx, joint, "mbt_joint_is_locked");
  return J && ctx->joint_locked[joint];
}

/* ---- RevoluteJoint ------------------------------------------------------------------------- */
static const mbt_joint* tree_typed_joint(const mbt_tree* tree, int joint, mbt_joint_type type, const char* fn,
                                         int* status) {
  if (!joint_ok(tree, joint)) {
    *status = MBT_ERR_NOT_FOUND;
    return NULL;
  }
  const mbt_joint* J = &tree->joints[joint];
  if (J->type != type) {
    *status = mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "%s: joint '%s' is %s, not %s", fn, J->name,
                              mbt_joint_type_to_string(J->type), mbt_joint_type_to_string(type));
    return NULL;
  }
  *status = MBT_OK;
  return J;
}

int mbt_revolute_joint_revolute_axis(const mbt_tree* tree, int joint, mbt_vec3* axis) {
  int s;
  const mbt_joint* J = tree_typed_joint(tree, joint, MBT_JOINT_REVOLUTE, "mbt_revolute_joint_revolute_axis", &s);
  if (J) *axis = tree->mobilizers[J->mobilizer].axis;
  return s;
}

int mbt_revolute_joint_default_damping(const mbt_tree* tree, int joint, mbt_real* damping) {
  int s;
  const mbt_joint* J = tree_typed_joint(tree, joint, MBT_JOINT_REVOLUTE, "mbt_revolute_joint_default_damping", &s);
  if (J) *damping = J->default_damping[0];
  return s;
}

int mbt_revolute_joint_set_default_damping(mbt_tree* tree, int joint, mbt_real damping) {
  int s;
  if (!tree_typed_joint(tree, joint, MBT_JOINT_REVOLUTE, "mbt_revolute_joint_set_default_damping", &s)) return s;
  return mbt_joint_set_default_damping_vector(tree, joint, &damping, 1);
}

#define REVOLUTE_LIMIT_GETTER(fn, field)                                               \
  int fn(const mbt_tree* tree, int joint, mbt_real* value) {                           \
    int s;                                                                             \
    const mbt_joint* J = tree_typed_joint(tree, joint, MBT_JOINT_REVOLUTE, #fn, &s);   \
    if (J) *value = J->field[0];                                                       \
    return s;                                                                          \
  }
REVOLUTE_LIMIT_GETTER(mbt_revolute_joint_position_lower_limit, pos_lower)
REVOLUTE_LIMIT_GETTER(mbt_revolute_joint_position_upper_limit, pos_upper)
REVOLUTE_LIMIT_GETTER(mbt_revolute_joint_velocity_lower_limit, vel_lower)
REVOLUTE_LIMIT_GETTER(mbt_revolute_joint_velocity_upper_limit, vel_upper)
REVOLUTE_LIMIT_GETTER(mbt_revolute_joint_acceleration_lower_limit, acc_lower)
REVOLUTE_LIMIT_GETTER(mbt_revolute_joint_acceleration_upper_limit, acc_upper)
REVOLUTE_LIMIT_GETTER(mbt_revolute_joint_get_default_angle, default_q)
#undef REVOLUTE_LIMIT_GETTER

int mbt_revolute_joint_set_default_angle(mbt_tree* tree, int joint, mbt_real angle) {
  int s;
  if (!tree_typed_joint(tree, joint, MBT_JOINT_REVOLUTE, "mbt_revolute_joint_set_default_angle", &s)) return s;
  return mbt_joint_set_default_positions(tree, joint, &angle, 1);
}

/* Reads or writes the single q or v of a 1-dof joint of the given type. */
static int get_one(const mbt_context* ctx, int joint, mbt_joint_type type, bool position, const char* fn,
                   mbt_real* value) {
  int s;
  const mbt_joint* J = ctx_typed_joint(ctx, joint, type, fn, &s);
  if (J) *value = position ? ctx->q[q_start(ctx, J)] : ctx->v[v_start(ctx, J)];
  return s;
}

static int set_one(mbt_context* ctx, int joint, mbt_joint_type type, bool position, const char* fn,
                   mbt_real value) {
  int s;
  const mbt_joint* J = ctx_typed_joint(ctx, joint, type, fn, &s);
  if (!J) return s;
  if (position) {
    ctx->q[q_start(ctx, J)] = value;
    mbt__context_invalidate_q(ctx);
  } else {
    ctx->v[v_start(ctx, J)] = value;
    mbt__context_invalidate_v(ctx);
  }
  return MBT_OK;
}

int mbt_revolute_joint_get_angle(const mbt_context* ctx, int joint, mbt_real* angle) {
  return get_one(ctx, joint, MBT_JOINT_REVOLUTE, true, "mbt_revolute_joint_get_angle", angle);
}

int mbt_revolute_joint_set_angle(mbt_context* ctx, int joint, mbt_real angle) {
  return set_one(ctx, joint, MBT_JOINT_REVOLUTE, true, "mbt_revolute_joint_set_angle", angle);
}

int mbt_revolute_joint_get_angular_rate(const mbt_context* ctx, int joint, mbt_real* theta_dot) {
  return get_one(ctx, joint, MBT_JOINT_REVOLUTE, false, "mbt_revolute_joint_get_angular_rate", theta_dot);
}

int mbt_revolute_joint_set_angular_rate(mbt_context* ctx, int joint, mbt_real theta_dot) {
  return set_one(ctx, joint, MBT_JOINT_REVOLUTE, false, "mbt_revolute_joint_set_angular_rate", theta_dot);
}

int mbt_revolute_joint_get_damping(const mbt_context* ctx, int joint, mbt_real* damping) {
  int s;
  const mbt_joint* J = ctx_typed_joint(ctx, joint, MBT_JOINT_REVOLUTE, "mbt_revolute_joint_get_damping", &s);
  if (J) *damping = ctx->damping[v_start(ctx, J)];
  return s;
}

int mbt_revolute_joint_set_damping(mbt_context* ctx, int joint, mbt_real damping) {
  int s;
  if (!ctx_typed_joint(ctx, joint, MBT_JOINT_REVOLUTE, "mbt_revolute_joint_set_damping", &s)) return s;
  return mbt_joint_set_damping_vector(ctx, joint, &damping, 1);
}

/* Seed RevoluteJoint::AddInTorque: tau[v_start] += torque (the generalized force of the
 * angle, positive about the axis by the right-hand rule). */
int mbt_revolute_joint_add_in_torque(const mbt_context* ctx, int joint, mbt_real torque,
                                     mbt_multibody_forces* forces) {
  int s;
  const char* fn = "mbt_revolute_joint_add_in_torque";
  const mbt_joint* J = ctx_typed_joint(ctx, joint, MBT_JOINT_REVOLUTE, fn, &s);
  if (!J) return s;
  if ((s = check_forces(ctx, forces, fn))) return s;
  forces->tau[v_start(ctx, J)] += torque;
  return MBT_OK;
}

/* ---- prismatic and floating joints ---------------------------------------------------------- */
int mbt_prismatic_joint_get_translation(const mbt_context* ctx, int joint, mbt_real* x) {
  return get_one(ctx, joint, MBT_JOINT_PRISMATIC, true, "mbt_prismatic_joint_get_translation", x);
}

int mbt_prismatic_joint_set_translation(mbt_context* ctx, int joint, mbt_real x) {
  return set_one(ctx, joint, MBT_JOINT_PRISMATIC, true, "mbt_prismatic_joint_set_translation", x);
}

int mbt_prismatic_joint_get_translation_rate(const mbt_context* ctx, int joint, mbt_real* xdot) {
  return get_one(ctx, joint, MBT_JOINT_PRISMATIC, false, "mbt_prismatic_joint_get_translation_rate", xdot);
}

int mbt_prismatic_joint_set_translation_rate(mbt_context* ctx, int joint, mbt_real xdot) {
  return set_one(ctx, joint, MBT_JOINT_PRISMATIC, false, "mbt_prismatic_joint_set_translation_rate", xdot);
}

/* Force along the axis: tau[v_start] += force. */
int mbt_prismatic_joint_add_in_force(const mbt_context* ctx, int joint, mbt_real force,
                                     mbt_multibody_forces* forces) {
  int s;
  const char* fn = "mbt_prismatic_joint_add_in_force";
  const mbt_joint* J = ctx_typed_joint(ctx, joint, MBT_JOINT_PRISMATIC, fn, &s);
  if (!J) return s;
  if ((s = check_forces(ctx, forces, fn))) return s;
  forces->tau[v_start(ctx, J)] += force;
  return MBT_OK;
}

int mbt_floating_joint_get_pose(const mbt_context* ctx, int joint, mbt_transform* X_FM) {
  int s;
  const mbt_joint* J =
      ctx_typed_joint(ctx, joint, MBT_JOINT_QUATERNION_FLOATING, "mbt_floating_joint_get_pose", &s);
  if (!J) return s;
  const mbt_tree* tree = ctx->tree;
  mbt__mob_calc_X_FM(&tree->nodes[tree->bodies[J->child_body].node], ctx->q + q_start(ctx, J), X_FM);
  return MBT_OK;
}

/* q = [qw qx qy qz x y z] from X_FM = {R_FM, p_FoMo_F}. */
int mbt_floating_joint_set_pose(mbt_context* ctx, int joint, const mbt_transform* X_FM) {
  int s;
  const char* fn = "mbt_floating_joint_set_pose";
  const mbt_joint* J = ctx_typed_joint(ctx, joint, MBT_JOINT_QUATERNION_FLOATING, fn, &s);
  if (!J) return s;
  if (!X_FM) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: the pose is NULL", fn);
  bool finite = mbt_isfinite(X_FM->p.v[0]) && mbt_isfinite(X_FM->p.v[1]) && mbt_isfinite(X_FM->p.v[2]);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) finite = finite && mbt_isfinite(X_FM->R.m[i][k]);
  if (!finite || !mbt_rotation_is_valid(&X_FM->R, 1e-9))
    return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: joint '%s': X_FM is not a finite rigid transform",
                              fn, J->name);
  mbt_real* q = ctx->q + q_start(ctx, J);
  quaternion_from_rotation(&X_FM->R, q);
  q[4] = X_FM->p.v[0];
  q[5] = X_FM->p.v[1];
  q[6] = X_FM->p.v[2];
  mbt__context_invalidate_q(ctx);
  return MBT_OK;
}

/* v = [w_FM_F; v_FMo_F]. */
int mbt_floating_joint_set_spatial_velocity(mbt_context* ctx, int joint, const mbt_spatial_velocity* V_FM_F) {
  int s;
  const char* fn = "mbt_floating_joint_set_spatial_velocity";
  const mbt_joint* J = ctx_typed_joint(ctx, joint, MBT_JOINT_QUATERNION_FLOATING, fn, &s);
  if (!J) return s;
  if (!V_FM_F) return mbt__context_error(ctx, MBT_ERR_INVALID_ARGUMENT, "%s: the velocity is NULL", fn);
  mbt_real* v = ctx->v + v_start(ctx, J);
  for (int k = 0; k < 6; ++k) v[k] = V_FM_F->coeffs[k];
  mbt__context_invalidate_v(ctx);
  return MBT_OK;
}
