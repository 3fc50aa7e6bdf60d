/* test_util.c: the helpers shared by the unit tests (test_util.h). */
#include "support/test_util.h"

#include <stdatomic.h>

/* ---- random numbers ------------------------------------------------------------------- */
static uint64_t tu_rng_state = 0x9E3779B97F4A7C15ull;

void tu_seed(uint64_t seed) { tu_rng_state = seed ? seed : 1; }

/* xorshift64* [Vigna, "An experimental exploration of Marsaglia's xorshift generators,
 * scrambled", 2016]. */
double tu_uniform(double lo, double hi) {
  tu_rng_state ^= tu_rng_state >> 12;
  tu_rng_state ^= tu_rng_state << 25;
  tu_rng_state ^= tu_rng_state >> 27;
  const uint64_t r = tu_rng_state * 0x2545F4914F6CDD1Dull;
  return lo + (hi - lo) * (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

double tu_rand(void) { return tu_uniform(-1, 1); }

mbt_vec3 tu_rand_vec3(double scale) {
  const double z = scale * tu_rand(), y = scale * tu_rand(), x = scale * tu_rand();
  return mbt_vec3_make(x, y, z);
}

mbt_vec3 tu_rand_unit(void) {
  mbt_vec3 a;
  do a = tu_rand_vec3(1); while (mbt_vec3_norm(a) < 0.1);
  return mbt_vec3_scale(a, 1 / mbt_vec3_norm(a));
}

mbt_quat tu_rand_unit_quat(void) {
  const double z = tu_rand(), y = tu_rand(), x = tu_rand(), w = tu_rand();
  mbt_quat q = mbt_quat_make(w, x, y, z);
  assert_int_equal(mbt_quat_normalize(&q), MBT_OK);
  return q;
}

/* The rotation matrix of the unit quaternion (w, x, y, z). */
mbt_mat3 tu_rand_rotation(void) {
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

mbt_transform tu_rand_transform(double pscale) {
  mbt_transform X;
  X.R = tu_rand_rotation();
  X.p = tu_rand_vec3(pscale);
  return X;
}

/* Principal moments about Bcm with |a − b| < c < a + b, rotated by R: G_Bcm = R·diag·Rᵀ;
 * then G_Bo = G_Bcm + |p|²·1 − p·pᵀ (parallel axis). */
mbt_spatial_inertia tu_rand_inertia(void) {
  const double m = 1.0 + 0.5 * tu_rand();
  const double a = 0.5 + 0.4 * tu_rand(), b = 0.5 + 0.4 * tu_rand();
  const double c = fabs(a - b) + (a + b - fabs(a - b)) * (0.5 + 0.4 * tu_rand());
  const mbt_mat3 R = tu_rand_rotation();
  const double d[3] = {0.1 * a, 0.1 * b, 0.1 * c};
  mbt_mat3 G;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      G.m[i][j] = R.m[i][0] * d[0] * R.m[j][0] + R.m[i][1] * d[1] * R.m[j][1] + R.m[i][2] * d[2] * R.m[j][2];
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

mbt_rotational_inertia tu_rand_central_inertia(double m) {
  const double lz = tu_uniform(0.1, 2), ly = tu_uniform(0.1, 2), lx = tu_uniform(0.1, 2);
  const mbt_unit_inertia G0 = mbt_unit_inertia_solid_box(lx, ly, lz);
  const mbt_mat3 R = mbt_rotation_from_quat(tu_rand_unit_quat());
  const mbt_unit_inertia G = mbt_unit_inertia_reexpress(&G0, &R);
  return mbt_unit_inertia_to_rotational(&G, m);
}

mbt_spatial_inertia tu_rand_spatial_inertia(void) {
  const double m = tu_uniform(0.5, 5);
  const mbt_rotational_inertia I = tu_rand_central_inertia(m);
  return mbt_spatial_inertia_from_com(m, tu_rand_vec3(1), &I);
}

void tu_rand_array(mbt_real* x, int n, double scale) {
  for (int i = 0; i < n; ++i) x[i] = scale * tu_rand();
}

void tu_rand_state(const mbt_tree* tree, mbt_context* ctx) {
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

/* ---- small numerics -------------------------------------------------------------------- */
double tu_max_abs(const mbt_real* x, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(x[i]));
  return m;
}

double tu_max_abs_diff(const mbt_real* a, const mbt_real* b, int n) {
  double m = 0;
  for (int i = 0; i < n; ++i) m = fmax(m, fabs(a[i] - b[i]));
  return m;
}

int tu_solve(double* A, double* b, int n) {
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

mbt_mat3 tu_inertia_about_com(const mbt_spatial_inertia* M) {
  const mbt_unit_inertia* G = &M->G_SP_E;
  const mbt_vec3 c = M->p_PScm_E;
  const double c2 = mbt_vec3_dot(c, c);
  mbt_mat3 I = {{{G->xx, G->xy, G->xz}, {G->xy, G->yy, G->yz}, {G->xz, G->yz, G->zz}}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) I.m[i][j] = M->mass * (I.m[i][j] - ((i == j) * c2 - c.v[i] * c.v[j]));
  return I;
}

/* ---- assertions ------------------------------------------------------------------------ */
void tu__assert_rel(double a, double b, double scale, double tol, const char* what, const char* file, int line) {
  if (fabs(a - b) <= tol * fmax(1.0, scale)) return;
  print_error("ERROR: %s: %.17g vs %.17g (diff %.3g, scale %.3g, tol %.3g)\n", what, a, b, fabs(a - b), scale,
              tol * fmax(1.0, scale));
  _fail(file, line);
}

void tu__assert_vec3_near(mbt_vec3 a, mbt_vec3 b, double tol, const char* ea, const char* eb, const char* file,
                          int line) {
  for (int i = 0; i < 3; ++i)
    if (!(fabs(a.v[i] - b.v[i]) <= tol)) {
      print_error("ERROR: %s = [%.17g %.17g %.17g]\n    != %s = [%.17g %.17g %.17g] (element %d, tol %g)\n", ea,
                  a.v[0], a.v[1], a.v[2], eb, b.v[0], b.v[1], b.v[2], i, tol);
      _fail(file, line);
    }
}

static void print_mat3(const char* name, const mbt_mat3* A) {
  print_error("  %s =\n", name);
  for (int i = 0; i < 3; ++i) print_error("    [%.17g %.17g %.17g]\n", A->m[i][0], A->m[i][1], A->m[i][2]);
}

void tu__assert_mat3_near(const mbt_mat3* A, const mbt_mat3* B, double tol, const char* eA, const char* eB,
                          const char* file, int line) {
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (!(fabs(A->m[i][j] - B->m[i][j]) <= tol)) {
        print_error("ERROR: %s != %s at (%d, %d), tol %g:\n", eA, eB, i, j, tol);
        print_mat3(eA, A);
        print_mat3(eB, B);
        _fail(file, line);
      }
}

void tu__assert_transform_near(const mbt_transform* X, const mbt_transform* Y, double tol, const char* eX,
                               const char* eY, const char* file, int line) {
  for (int i = 0; i < 3; ++i) {
    bool near = fabs(X->p.v[i] - Y->p.v[i]) <= tol;
    for (int j = 0; j < 3; ++j) near = near && fabs(X->R.m[i][j] - Y->R.m[i][j]) <= tol;
    if (!near) {
      print_error("ERROR: %s != %s (row %d, tol %g):\n", eX, eY, i, tol);
      print_mat3("R of the first", &X->R);
      print_error("  p = [%.17g %.17g %.17g]\n", X->p.v[0], X->p.v[1], X->p.v[2]);
      print_mat3("R of the second", &Y->R);
      print_error("  p = [%.17g %.17g %.17g]\n", Y->p.v[0], Y->p.v[1], Y->p.v[2]);
      _fail(file, line);
    }
  }
}

/* ---- test trees ------------------------------------------------------------------------ */
mbt_spatial_inertia tu_body_inertia(void) {
  mbt_rotational_inertia I = {0.02, 0.03, 0.04, 0, 0, 0};
  return mbt_spatial_inertia_from_com(2.0, mbt_vec3_make(0.1, 0, -0.3), &I);
}

int tu_add_body_with_mobilizer(mbt_tree* tree, const char* name, int parent_body, mbt_mobilizer_type type,
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

int tu_add_chain(mbt_tree* tree, const char* prefix, int n, bool mixed) {
  int parent = 0;
  for (int i = 0; i < n; ++i) {
    char name[64];
    snprintf(name, sizeof name, "%s%d", prefix, i);
    const mbt_mobilizer_type type = mixed && i % 3 == 1 ? MBT_MOBILIZER_PRISMATIC : MBT_MOBILIZER_REVOLUTE;
    parent = tu_add_body_with_mobilizer(tree, name, parent, type, mixed && i % 2 == 0);
    assert_true(parent > 0);
  }
  return parent;
}

mbt_tree* tu_make_branched_tree(void) {
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

mbt_tree* tu_make_joint_tree(void) {
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
  if (!st) {
    const mbt_vec3 p_BQ = tu_rand_vec3(0.3), p_AP = tu_rand_vec3(0.3);
    st |= mbt_tree_add_linear_spring_damper(tree, "lsd1", b[4], p_AP, b[9], p_BQ, 0.5, 20.0, 0.7) < 0;
  }
  if (!st) st |= mbt_tree_add_linear_spring_damper(tree, "lsd2", 0, mbt_vec3_make(0, 0, 1), b[6], tu_rand_vec3(0.3),
                                                   0.2, 10.0, 0.0) < 0;
  if (st || mbt_tree_finalize(tree) != MBT_OK) {
    fprintf(stderr, "tu_make_joint_tree: %s\n", mbt_tree_last_error(tree));
    mbt_tree_destroy(tree);
    return NULL;
  }
  return tree;
}

int tu_add_link(mbt_tree* tree, const char* name, int parent, double l_parent, double m, double lc, double Ixx,
                double Iyy, double Izz) {
  mbt_spatial_inertia M;
  M.mass = m;
  M.p_PScm_E = mbt_vec3_make(0, 0, -lc);
  /* G_Bo = I_Bcm/m + |p|²·1 − p·pᵀ */
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

void tu_zero_joint_damping(const mbt_tree* tree, mbt_context* ctx) {
  for (int j = 0; j < mbt_tree_num_joints(tree); ++j) {
    const mbt_real zero[MBT_JOINT_MAX_NV] = {0};
    const int n = mbt_joint_num_velocities(tree, j);
    if (n > 0) assert_int_equal(mbt_joint_set_damping_vector(ctx, j, zero, n), MBT_OK);
  }
}

tu_fixture* tu_fixture_create(mbt_tree* tree) {
  assert_non_null(tree);
  tu_fixture* f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->tree = tree;
  f->ctx = mbt_context_create(tree);
  assert_non_null(f->ctx);
  f->forces = mbt_multibody_forces_create(tree);
  assert_non_null(f->forces);
  f->nq = mbt_tree_num_positions(tree);
  f->nv = mbt_tree_num_velocities(tree);
  f->nb = mbt_tree_num_bodies(tree);
  return f;
}

void tu_fixture_destroy(tu_fixture* f) {
  if (!f) return;
  mbt_multibody_forces_destroy(f->forces);
  mbt_context_destroy(f->ctx);
  mbt_tree_destroy(f->tree);
  free(f);
}

void tu_fixture_set_state_along(tu_fixture* f, const mbt_real* q0, const mbt_real* qdot, const mbt_real* v0,
                                const mbt_real* vdot, double t) {
  mbt_real x[TU_NMAX];
  assert_true(f->nq <= TU_NMAX && f->nv <= TU_NMAX);
  for (int i = 0; i < f->nq; ++i) x[i] = q0[i] + t * qdot[i];
  mbt_context_set_q(f->ctx, x, f->nq);
  if (!v0) return;
  for (int i = 0; i < f->nv; ++i) x[i] = v0[i] + t * vdot[i];
  mbt_context_set_v(f->ctx, x, f->nv);
}

int tu_fixture_setup(void** state, uint64_t seed, mbt_tree* (*make_tree)(void)) {
  tu_seed(seed);
  *state = tu_fixture_create(make_tree());
  return 0;
}

int tu_fixture_teardown(void** state) {
  tu_fixture_destroy(*state);
  return 0;
}

/* ---- the shipped models and files ------------------------------------------------------ */
const char* const tu_models[TU_NUM_MODELS] = {"double_pendulum", "double_pendulum_continuous", "ur5", "panda",
                                              "solo12"};

int tu_model_flags(const char* name) { return strcmp(name, "solo12") == 0 ? MBT_URDF_FLOATING : 0; }

void tu_model_path(char* path, size_t size, const char* name) {
  snprintf(path, size, "%s/models/%s.urdf", MBT_SOURCE_DIR, name);
}

void tu__load_urdf(const char* name, int flags, mbt_urdf_result* r, const char* file, int line) {
  char path[512];
  tu_model_path(path, sizeof path, name);
  const int st = mbt_urdf_load_file(path, flags, r);
  if (st == MBT_OK && r->tree) return;
  print_error("ERROR: %s: %s (status %d)\n", path, r->error, st);
  _fail(file, line);
}

mbt_tree* tu__load_model(const char* name, const char* file, int line) {
  mbt_urdf_result r;
  tu__load_urdf(name, tu_model_flags(name), &r, file, line);
  mbt_tree* tree = r.tree;
  r.tree = NULL;
  mbt_urdf_result_free(&r);
  return tree;
}

char* tu_read_file(const char* path, size_t* n) {
  FILE* f = fopen(path, "rb");
  if (!f) fail_msg("cannot open %s", path);
  fseek(f, 0, SEEK_END);
  const long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* s = malloc((size_t)len + 1);
  assert_non_null(s);
  assert_int_equal(fread(s, 1, (size_t)len, f), (size_t)len);
  s[len] = 0;
  fclose(f);
  if (n) *n = (size_t)len;
  return s;
}

/* ---- counting heap calls ---------------------------------------------------------------- */
/* Atomic: the allocator hooks run on whichever thread allocates. */
static atomic_int tu_counting = 0;
static atomic_long tu_count = 0;

void tu__heap_call(void) {
  if (atomic_load_explicit(&tu_counting, memory_order_relaxed))
    atomic_fetch_add_explicit(&tu_count, 1, memory_order_relaxed);
}

#ifdef TU_SANITIZER_MALLOC
/* From the sanitizer runtime (sanitizer/allocator_interface.h, not always installed). */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, size_t),
                                              void (*free_hook)(const volatile void*));
static void on_malloc(const volatile void* p, size_t n) {
  (void)p, (void)n;
  tu__heap_call();
}
static void on_free(const volatile void* p) {
  (void)p;
  tu__heap_call();
}
static void install_counter(void) {
  static bool installed = false;
  if (!installed) (void)__sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
  installed = true;
}
#else
static void install_counter(void) {}
#endif

void tu_heap_count_begin(void) {
  install_counter();
  atomic_store(&tu_count, 0);
  atomic_store(&tu_counting, 1);
}

long tu_heap_count_end(void) {
  atomic_store(&tu_counting, 0);
  return atomic_load(&tu_count);
}

/* Through volatile pointers, so that the calls are neither inlined nor elided and a replaced
 * allocator (valgrind's) is seen as such. */
static void* (*volatile tu_malloc)(size_t) = malloc;
static void* (*volatile tu_calloc)(size_t, size_t) = calloc;
static void* (*volatile tu_realloc)(void*, size_t) = realloc;
static void (*volatile tu_free)(void*) = free;

static bool counter_is_live(void) {
  long seen[4];
  tu_heap_count_begin();
  void* p = tu_malloc(24);
  seen[0] = tu_count;
  void* c = tu_calloc(3, 8);
  seen[1] = tu_count - seen[0];
  p = tu_realloc(p, 48);
  seen[2] = tu_count - seen[0] - seen[1];
  tu_free(c);
  tu_free(p);
  seen[3] = tu_heap_count_end() - seen[0] - seen[1] - seen[2];
  return seen[0] >= 1 && seen[1] >= 1 && seen[2] >= 1 && seen[3] >= 1;
}

static bool under_valgrind(void) {
  const char* pre = getenv("LD_PRELOAD");
  return pre && strstr(pre, "vgpreload") != NULL;
}

void tu__require_heap_counter(const char* file, int line) {
  if (counter_is_live()) return;
  if (under_valgrind()) {
    print_message("SKIPPED: the heap-call counter is inactive under valgrind (its allocator replaces malloc); "
                  "counting runs in the plain and sanitizer builds\n");
    skip();
  }
  print_error("ERROR: the heap-call counter does not see malloc, calloc, realloc and free\n");
  _fail(file, line);
}
