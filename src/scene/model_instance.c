/* model_instance.c: a finalized tree copied into another under a name prefix
 * (mbt/model_instance.h), through the public tree API only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mbt/model_instance.h"
#include "tree/tree_internal.h"

/* "<instance>::<name>" in buf; false if it does not fit. */
static bool scoped(char* buf, size_t n, const char* instance, const char* name) {
  const int len = snprintf(buf, n, "%s::%s", instance, name);
  return len > 0 && (size_t)len < n;
}

/* Every prefixed body and joint name is free in the target. */
static int check_names(mbt_tree* tree, const mbt_tree* src, const char* name) {
  char buf[1024];
  for (int b = 1; b < mbt_tree_num_bodies(src); ++b)
    if (!scoped(buf, sizeof buf, name, mbt_tree_body_name(src, b)) || mbt_tree_body_by_name(tree, buf) >= 0)
      return mbt__tree_error(tree, MBT_ERR_DUPLICATE, "model instance '%s': body '%s' is already in the tree (or "
                             "too long)", name, buf);
  for (int j = 0; j < mbt_tree_num_joints(src); ++j)
    if (!scoped(buf, sizeof buf, name, mbt_joint_name(src, j)) || mbt_tree_joint_by_name(tree, buf) >= 0)
      return mbt__tree_error(tree, MBT_ERR_DUPLICATE, "model instance '%s': joint '%s' is already in the tree (or "
                             "too long)", name, buf);
  return MBT_OK;
}

/* Adds the joint of the source's type with frames X_PF, X_BM between the mapped bodies. */
static int add_joint_like(mbt_tree* tree, const mbt_tree* src, int j, const char* name, int parent, int child,
                          const mbt_transform* X_PF, const mbt_transform* X_BM) {
  const mbt_real* d = mbt_joint_default_damping_vector(src, j);
  const mbt_real d0 = d && mbt_joint_num_velocities(src, j) > 0 ? d[0] : 0;
  const mbt_vec3 axis = mbt_joint_axis(src, j);
  switch (mbt_joint_type_of(src, j)) {
    case MBT_JOINT_WELD: return mbt_tree_add_weld_joint(tree, name, parent, X_PF, child, X_BM);
    case MBT_JOINT_REVOLUTE: return mbt_tree_add_revolute_joint(tree, name, parent, X_PF, child, X_BM, axis, d0);
    case MBT_JOINT_PRISMATIC: return mbt_tree_add_prismatic_joint(tree, name, parent, X_PF, child, X_BM, axis, d0);
    case MBT_JOINT_UNIVERSAL: return mbt_tree_add_universal_joint(tree, name, parent, X_PF, child, X_BM, d);
    case MBT_JOINT_PLANAR: return mbt_tree_add_planar_joint(tree, name, parent, X_PF, child, X_BM, d);
    case MBT_JOINT_BALL_RPY: return mbt_tree_add_ball_rpy_joint(tree, name, parent, X_PF, child, X_BM, d);
    case MBT_JOINT_QUATERNION_FLOATING:
      return mbt_tree_add_quaternion_floating_joint(tree, name, parent, X_PF, child, X_BM, d);
    case MBT_JOINT_SCREW:
      return mbt_tree_add_screw_joint(tree, name, parent, X_PF, child, X_BM, axis, mbt_joint_screw_pitch(src, j), d0);
    default: return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "joint '%s': unknown type", name);
  }
}

/* The joint's limits and default positions, as in the source. */
static int copy_joint_data(mbt_tree* tree, const mbt_tree* src, int j, int jt) {
  const int nq = mbt_joint_num_positions(src, j), nv = mbt_joint_num_velocities(src, j);
  int st = MBT_OK;
  if (nq > 0 && mbt_joint_position_lower_limits(src, j))
    st = mbt_joint_set_position_limits(tree, jt, mbt_joint_position_lower_limits(src, j),
                                       mbt_joint_position_upper_limits(src, j), nq);
  if (!st && nv > 0 && mbt_joint_velocity_lower_limits(src, j))
    st = mbt_joint_set_velocity_limits(tree, jt, mbt_joint_velocity_lower_limits(src, j),
                                       mbt_joint_velocity_upper_limits(src, j), nv);
  if (!st && nv > 0 && mbt_joint_acceleration_lower_limits(src, j))
    st = mbt_joint_set_acceleration_limits(tree, jt, mbt_joint_acceleration_lower_limits(src, j),
                                           mbt_joint_acceleration_upper_limits(src, j), nv);
  if (!st && nq > 0 && mbt_joint_default_positions(src, j))
    st = mbt_joint_set_default_positions(tree, jt, mbt_joint_default_positions(src, j), nq);
  return st;
}

/* A floating root keeps its frames; its default pose moves by X_WR, so that its q is the
 * world pose: X_FM' = X_WF⁻¹·X_WR·X_WF·X_FM (X_WF = X_PF on the world). */
static int place_floating(mbt_tree* tree, const mbt_tree* src, int j, int jt, const mbt_transform* X_WF,
                          const mbt_transform* X_WR) {
  mbt_transform X_FM;
  int st = mbt_joint_get_default_pose(src, j, &X_FM);
  if (st) return st;
  const mbt_transform X_WM = mbt_transform_compose(X_WF, &X_FM), X_FW = mbt_transform_inverse(X_WF);
  const mbt_transform X_WM_new = mbt_transform_compose(X_WR, &X_WM);
  X_FM = mbt_transform_compose(&X_FW, &X_WM_new);
  return mbt_joint_set_default_pose(tree, jt, &X_FM);
}

static int copy_joints(mbt_tree* tree, const mbt_tree* src, const char* name, const int* body_map,
                       const mbt_transform* X_WR) {
  char buf[1024];
  for (int j = 0; j < mbt_tree_num_joints(src); ++j) {
    mbt_transform X_PF, X_BM;
    mbt_tree_frame_pose_in_body(src, mbt_joint_frame_on_parent(src, j), &X_PF);
    mbt_tree_frame_pose_in_body(src, mbt_joint_frame_on_child(src, j), &X_BM);
    const int parent = mbt_joint_parent_body(src, j);
    const bool floating_root = parent == 0 && mbt_joint_type_of(src, j) == MBT_JOINT_QUATERNION_FLOATING;
    if (parent == 0 && !floating_root) X_PF = mbt_transform_compose(X_WR, &X_PF); /* X_WF = X_WR·X_RF */
    scoped(buf, sizeof buf, name, mbt_joint_name(src, j));
    const int jt = add_joint_like(tree, src, j, buf, body_map[parent], body_map[mbt_joint_child_body(src, j)], &X_PF,
                                  &X_BM);
    if (jt < 0) return jt;
    int st = copy_joint_data(tree, src, j, jt);
    if (!st && floating_root) st = place_floating(tree, src, j, jt, &X_PF, X_WR);
    if (st) return st;
  }
  return MBT_OK;
}

static int copy_geometry(mbt_tree* tree, const mbt_tree* src, const int* body_map) {
  for (int role = 0; role < MBT_ROLE_NUM; ++role)
    for (int k = 0; k < mbt_tree_num_geometries(src, (mbt_geometry_role)role); ++k) {
      const mbt_geometry* g = mbt_tree_geometry(src, (mbt_geometry_role)role, k);
      mbt_geometry_desc d = mbt_geometry_desc_default();
      d.name = g->name;
      d.shape = g->shape;
      d.X_BG = g->X_BG;
      d.mesh_file = g->mesh_file;
      d.mesh_path = g->mesh_path;
      d.has_rgba = g->has_rgba;
      memcpy(d.rgba, g->rgba, sizeof d.rgba);
      d.material = g->material;
      const int st = mbt_tree_add_geometry(tree, body_map[g->body], (mbt_geometry_role)role, &d);
      if (st < 0) return st;
    }
  return MBT_OK;
}

int mbt_tree_add_model_instance(mbt_tree* tree, const mbt_tree* src, const char* name, const mbt_transform* X_WR) {
  if (!tree || !src) return MBT_ERR_INVALID_ARGUMENT;
  if (tree->finalized) return mbt__tree_error(tree, MBT_ERR_FINALIZED, "model instance: the tree is finalized");
  if (!src->finalized)
    return mbt__tree_error(tree, MBT_ERR_NOT_FINALIZED, "model instance: the source tree is not finalized");
  if (!name || !name[0] || strstr(name, "::"))
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "model instance: the name must be non-empty without '::'");
  const mbt_transform X = X_WR ? *X_WR : mbt_transform_identity();
  if (!mbt_rotation_is_valid(&X.R, 1e-9) || !mbt_isfinite(X.p.v[0] + X.p.v[1] + X.p.v[2]))
    return mbt__tree_error(tree, MBT_ERR_INVALID_ARGUMENT, "model instance '%s': X_WR is not a rigid transform", name);
  int st = check_names(tree, src, name);
  if (st) return st;
  const int nb = mbt_tree_num_bodies(src);
  int* body_map = malloc((size_t)nb * sizeof *body_map);
  if (!body_map) return mbt__tree_error(tree, MBT_ERR_NO_MEMORY, "model instance '%s': out of memory", name);
  body_map[0] = 0;
  char buf[1024];
  for (int b = 1; b < nb && st >= 0; ++b) {
    scoped(buf, sizeof buf, name, mbt_tree_body_name(src, b));
    st = body_map[b] = mbt_tree_add_rigid_body_unchecked(tree, buf, mbt_tree_body_spatial_inertia(src, b));
  }
  if (st >= 0) st = copy_joints(tree, src, name, body_map, &X);
  if (st >= 0) st = copy_geometry(tree, src, body_map);
  free(body_map);
  return st < 0 ? st : nb - 1;
}
