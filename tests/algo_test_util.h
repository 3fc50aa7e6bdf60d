/* algo_test_util.h: helpers shared by the algorithm tests (random inertias, poses and states,
 * and a branched tree with every mobilizer type). Header-only, static functions. */
#ifndef MBT_ALGO_TEST_UTIL_H
#define MBT_ALGO_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mbt/mbt.h"
#include "mbt/urdf.h"

#define TU_PI 3.14159265358979323846
#include "tree/context_internal.h"

static uint64_t tu_rng_state = 0x9E3779B97F4A7C15ull;
static inline void tu_seed(uint64_t s) { tu_rng_state = s ? s : 1; }
/* Uniform in [-1, 1] (xorshift64*). */
static inline double tu_rand(void) {
  tu_rng_state ^= tu_rng_state >> 12;
  tu_rng_state ^= tu_rng_state << 25;
  tu_rng_state ^= tu_rng_state >> 27;
  const uint64_t r = tu_rng_state * 0x2545F4914F6CDD1Dull;
  return (double)(r >> 11) / (double)(1ull << 53) * 2.0 - 1.0;
}
static inline mbt_vec3 tu_rand_vec3(double scale) {
  return mbt_vec3_make(scale * tu_rand(), scale * tu_rand(), scale * tu_rand());
}
static inline mbt_vec3 tu_rand_unit(void) {
  mbt_vec3 a;
  do a = tu_rand_vec3(1); while (mbt_vec3_norm(a) < 0.1);
  return mbt_vec3_scale(a, 1 / mbt_vec3_norm(a));
}
/* Rotation of a random unit quaternion. */
static inline mbt_mat3 tu_rand_rotation(void) {
  double w, x, y, z, n;
  do {
    w = tu_rand(); x = tu_rand(); y = tu_rand(); z = tu_rand();
    n = sqrt(w * w + x * x + y * y + z * z);
  } while (n < 0.1);
  w /= n; x /= n; y /= n; z /= n;
  mbt_mat3 R = {{{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                 {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                 {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}}};
  return R;
}
static inline mbt_transform tu_rand_transform(double pscale) {
  mbt_transform X;
  X.R = tu_rand_rotation();
  X.p = tu_rand_vec3(pscale);
  return X;
}
/* A physically valid spatial inertia about Bo: principal moments satisfying the triangle
 * inequality, rotated, about a random center of mass, shifted to Bo (parallel axis). */
static inline mbt_spatial_inertia tu_rand_inertia(void) {
  const double m = 1.0 + 0.5 * tu_rand();
  const double a = 0.5 + 0.4 * tu_rand(), b = 0.5 + 0.4 * tu_rand();
  const double c = fabs(a - b) + (a + b - fabs(a - b)) * (0.5 + 0.4 * tu_rand());  /* |a − b| < c < a + b */
  const mbt_mat3 R = tu_rand_rotation();
  const double d[3] = {0.1 * a, 0.1 * b, 0.1 * c};             /* unit inertia about Bcm */
  mbt_mat3 G;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) G.m[i][j] = R.m[i][0] * d[0] * R.m[j][0] + R.m[i][1] * d[1] * R.m[j][1] +
                                          R.m[i][2] * d[2] * R.m[j][2];
  const mbt_vec3 p = tu_rand_vec3(0.3);
  const double p2 = mbt_vec3_dot(p, p);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) G.m[i][j] += (i == j ? p2 : 0) - p.v[i] * p.v[j];
  mbt_spatial_inertia M;
  M.mass = m;
  M.p_PScm_E = p;
  M.G_SP_E.xx = G.m[0][0]; M.G_SP_E.yy = G.m[1][1]; M.G_SP_E.zz = G.m[2][2];
  M.G_SP_E.xy = G.m[0][1]; M.G_SP_E.xz = G.m[0][2]; M.G_SP_E.yz = G.m[1][2];
  return M;
}

/* Adds body `name` and a mobilizer of `type` from parent_body to it, with random frames F
 * (on the parent) and M (on the child) unless identity_frames. Returns the body index. */
static inline int tu_add_body_with_mobilizer(mbt_tree* tree, const char* name, int parent_body, mbt_mobilizer_type type,
                                      bool identity_frames) {
  mbt_spatial_inertia M = tu_rand_inertia();
  const int body = mbt_tree_add_rigid_body(tree, name, &M);
  if (body < 0) return body;
  int F = mbt_tree_body_frame(tree, parent_body), Mf = mbt_tree_body_frame(tree, body);
  char buf[128];
  if (!identity_frames) {
    mbt_transform X_PF = tu_rand_transform(0.5), X_BM = tu_rand_transform(0.5);
    snprintf(buf, sizeof buf, "%s_F", name);
    F = mbt_tree_add_fixed_offset_frame(tree, buf, F, &X_PF);
    snprintf(buf, sizeof buf, "%s_M", name);
    Mf = mbt_tree_add_fixed_offset_frame(tree, buf, Mf, &X_BM);
    if (F < 0 || Mf < 0) return -1;
  }
  const mbt_vec3 axis = tu_rand_unit();
  snprintf(buf, sizeof buf, "%s_mob", name);
  const int mob = mbt_tree_add_mobilizer(tree, buf, type, F, Mf, &axis, 0.3 * tu_rand());
  return mob < 0 ? mob : body;
}

/* A branched tree with every mobilizer type, random frames (some identity), finalized:
 *   world → b1 (quaternion floating) → b2 (revolute) → b3 (universal) → b4 (prismatic)
 *                                    → b5 (space_xyz) → b6 (screw)
 *                                    → b7 (planar) → b8 (weld) → b9 (revolute)
 *   world → b10 (revolute) → b11 (prismatic), world → b12 (no mobilizer: floating at finalize). */
static inline mbt_tree* tu_make_branched_tree(void) {
  mbt_tree* tree = mbt_tree_create();
  if (!tree) return NULL;
  int b1 = tu_add_body_with_mobilizer(tree, "b1", 0, MBT_MOBILIZER_QUATERNION_FLOATING, false);
  int b2 = tu_add_body_with_mobilizer(tree, "b2", b1, MBT_MOBILIZER_REVOLUTE, false);
  int b3 = tu_add_body_with_mobilizer(tree, "b3", b2, MBT_MOBILIZER_UNIVERSAL, false);
  int b4 = tu_add_body_with_mobilizer(tree, "b4", b3, MBT_MOBILIZER_PRISMATIC, true);
  int b5 = tu_add_body_with_mobilizer(tree, "b5", b1, MBT_MOBILIZER_SPACE_XYZ, false);
  int b6 = tu_add_body_with_mobilizer(tree, "b6", b5, MBT_MOBILIZER_SCREW, false);
  int b7 = tu_add_body_with_mobilizer(tree, "b7", b1, MBT_MOBILIZER_PLANAR, false);
  int b8 = tu_add_body_with_mobilizer(tree, "b8", b7, MBT_MOBILIZER_WELD, false);
  int b9 = tu_add_body_with_mobilizer(tree, "b9", b8, MBT_MOBILIZER_REVOLUTE, true);
  int b10 = tu_add_body_with_mobilizer(tree, "b10", 0, MBT_MOBILIZER_REVOLUTE, false);
  int b11 = tu_add_body_with_mobilizer(tree, "b11", b10, MBT_MOBILIZER_PRISMATIC, false);
  mbt_spatial_inertia M = tu_rand_inertia();
  int b12 = mbt_tree_add_rigid_body(tree, "b12", &M);
  if (b1 < 0 || b2 < 0 || b3 < 0 || b4 < 0 || b5 < 0 || b6 < 0 || b7 < 0 || b8 < 0 || b9 < 0 || b10 < 0 ||
      b11 < 0 || b12 < 0 || mbt_tree_finalize(tree) != MBT_OK) {
    fprintf(stderr, "tu_make_branched_tree: %s\n", mbt_tree_last_error(tree));
    mbt_tree_destroy(tree);
    return NULL;
  }
  return tree;
}

/* Random q (unit quaternions, |angles| ≤ 1) and v in the context. */
static inline void tu_rand_state(const mbt_tree* tree, mbt_context* ctx) {
  mbt_real* q = mbt_context_mutable_q(ctx);
  mbt_real* v = mbt_context_mutable_v(ctx);
  for (int i = 0; i < mbt_tree_num_positions(tree); ++i) q[i] = tu_rand();
  for (int i = 0; i < mbt_tree_num_velocities(tree); ++i) v[i] = tu_rand();
  for (int m = 0; m < mbt_tree_num_mobilizers(tree); ++m)
    if (mbt_mobilizer_type_of(tree, m) == MBT_MOBILIZER_QUATERNION_FLOATING) {
      mbt_real* qq = q + mbt_mobilizer_position_start_in_q(tree, m);
      const double n = sqrt(qq[0] * qq[0] + qq[1] * qq[1] + qq[2] * qq[2] + qq[3] * qq[3]);
      for (int i = 0; i < 4; ++i) qq[i] /= n;
    }
}
static inline void tu_rand_array(mbt_real* x, int n, double scale) {
  for (int i = 0; i < n; ++i) x[i] = scale * tu_rand();
}
static inline double tu_max_abs(const mbt_real* x, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(x[i]));
  return m;
}
static inline double tu_max_abs_diff(const mbt_real* a, const mbt_real* b, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

/* A branched tree built with joints of every type (random frames, random damping), a
 * revolute spring on j2, two linear spring-dampers (one to the world) and gravity:
 *   world → c1 (quaternion floating) → c2 (revolute) → c3 (prismatic) → c4 (universal)
 *                                    → c5 (ball_rpy) → c6 (screw)
 *   world → c7 (planar) → c8 (weld) → c9 (revolute). */
static inline mbt_tree* tu_make_joint_tree(void) {
  mbt_tree* tree = mbt_tree_create();
  if (!tree) return NULL;
  int b[10];
  char name[16];
  for (int i = 1; i <= 9; ++i) {
    snprintf(name, sizeof name, "c%d", i);
    mbt_spatial_inertia M = tu_rand_inertia();
    b[i] = mbt_tree_add_rigid_body(tree, name, &M);
  }
  mbt_transform X[20];
  for (int i = 0; i < 20; ++i) X[i] = tu_rand_transform(0.4);
  mbt_real d[6];
  for (int i = 0; i < 6; ++i) d[i] = 0.2 + 0.1 * tu_rand();
  int st = 0, j2;
  st |= mbt_tree_add_quaternion_floating_joint(tree, "j1", 0, &X[0], b[1], &X[1], d) < 0;
  st |= (j2 = mbt_tree_add_revolute_joint(tree, "j2", b[1], &X[2], b[2], &X[3], tu_rand_unit(), 0.3)) < 0;
  st |= mbt_tree_add_prismatic_joint(tree, "j3", b[2], &X[4], b[3], NULL, tu_rand_unit(), 0.1) < 0;
  st |= mbt_tree_add_universal_joint(tree, "j4", b[3], &X[5], b[4], &X[6], d) < 0;
  st |= mbt_tree_add_ball_rpy_joint(tree, "j5", b[1], &X[7], b[5], &X[8], d) < 0;
  st |= mbt_tree_add_screw_joint(tree, "j6", b[5], &X[9], b[6], &X[10], tu_rand_unit(), 0.4, 0.2) < 0;
  st |= mbt_tree_add_planar_joint(tree, "j7", 0, &X[11], b[7], &X[12], d) < 0;
  st |= mbt_tree_add_weld_joint(tree, "j8", b[7], &X[13], b[8], &X[14]) < 0;
  st |= mbt_tree_add_revolute_joint(tree, "j9", b[8], NULL, b[9], &X[15], tu_rand_unit(), 0.05) < 0;
  if (!st) st |= mbt_tree_add_revolute_spring(tree, "spring2", j2, 0.3, 5.0) < 0;
  if (!st) st |= mbt_tree_add_linear_spring_damper(tree, "lsd1", b[4], tu_rand_vec3(0.3), b[9], tu_rand_vec3(0.3),
                                                   0.5, 20.0, 0.7) < 0;
  if (!st) st |= mbt_tree_add_linear_spring_damper(tree, "lsd2", 0, mbt_vec3_make(0, 0, 1), b[6], tu_rand_vec3(0.3),
                                                   0.2, 10.0, 0.0) < 0;
  if (st || mbt_tree_finalize(tree) != MBT_OK) {
    fprintf(stderr, "tu_make_joint_tree: %s\n", mbt_tree_last_error(tree));
    mbt_tree_destroy(tree);
    return NULL;
  }
  return tree;
}

/* A planar link for the closed-form benchmarks: body of mass m whose frame Bo is at its
 * pivot, center of mass at (0, 0, −lc), rotational inertia about Bcm diag(Ixx, Iyy, Izz),
 * attached to `parent` by a revolute joint about +y at (0, 0, −l_parent) of the parent's frame. */
static inline int tu_add_link(mbt_tree* tree, const char* name, int parent, double l_parent, double m, double lc,
                              double Ixx, double Iyy, double Izz) {
  mbt_spatial_inertia M;
  M.mass = m;
  M.p_PScm_E = mbt_vec3_make(0, 0, -lc);
  /* G_Bo = I_Bcm/m + |p|²·I − p·pᵀ */
  M.G_SP_E.xx = Ixx / m + lc * lc;
  M.G_SP_E.yy = Iyy / m + lc * lc;
  M.G_SP_E.zz = Izz / m;
  M.G_SP_E.xy = M.G_SP_E.xz = M.G_SP_E.yz = 0;
  const int body = mbt_tree_add_rigid_body(tree, name, &M);
  if (body < 0) return body;
  mbt_transform X_PF = mbt_transform_identity();
  X_PF.p = mbt_vec3_make(0, 0, -l_parent);
  char jn[64];
  snprintf(jn, sizeof jn, "%s_joint", name);
  const int j = mbt_tree_add_revolute_joint(tree, jn, parent, &X_PF, body, NULL, mbt_vec3_make(0, 1, 0), 0);
  return j < 0 ? j : body;
}

/* Solves A·x = b (n ≤ 64) by Gaussian elimination with partial pivoting; A, b overwritten. */
static inline int tu_solve(double* A, double* b, int n) {
  for (int c = 0; c < n; ++c) {
    int p = c;
    for (int r = c + 1; r < n; ++r)
      if (fabs(A[r * n + c]) > fabs(A[p * n + c])) p = r;
    if (A[p * n + c] == 0) return -1;
    if (p != c) {
      for (int k = 0; k < n; ++k) {
        double t = A[c * n + k]; A[c * n + k] = A[p * n + k]; A[p * n + k] = t;
      }
      double t = b[c]; b[c] = b[p]; b[p] = t;
    }
    for (int r = c + 1; r < n; ++r) {
      const double f = A[r * n + c] / A[c * n + c];
      for (int k = c; k < n; ++k) A[r * n + k] -= f * A[c * n + k];
      b[r] -= f * b[c];
    }
  }
  for (int r = n - 1; r >= 0; --r) {
    double s = b[r];
    for (int k = r + 1; k < n; ++k) s -= A[r * n + k] * b[k];
    b[r] = s / A[r * n + r];
  }
  return 0;
}

/* The models the project ships (models/<name>.urdf); solo12 has a floating base. */
static const char* const tu_models[] = {"double_pendulum", "double_pendulum_continuous", "ur5", "panda", "solo12"};
#define TU_NUM_MODELS 5
static inline mbt_tree* tu_load_model(const char* name) {
  char path[512];
  snprintf(path, sizeof path, "%s/models/%s.urdf", MBT_SOURCE_DIR, name);
  mbt_urdf_result r;
  const int flags = strcmp(name, "solo12") == 0 ? MBT_URDF_FLOATING : 0;
  if (mbt_urdf_load_file(path, flags, &r) != MBT_OK) {
    fprintf(stderr, "%s: %s\n", path, r.error);
    mbt_urdf_result_free(&r);
    return NULL;
  }
  mbt_tree* tree = r.tree;
  r.tree = NULL;
  mbt_urdf_result_free(&r);
  return tree;
}

#endif /* MBT_ALGO_TEST_UTIL_H */
