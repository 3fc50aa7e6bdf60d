/* test_batch.c: mbt/batch.h. Batched inverse dynamics, mass matrix, forward dynamics and
 * forward kinematics equal N single calls bit for bit at 1, 2 and 4 threads (UR5, Solo12 on
 * its floating base, the branched tree of every joint type with damping and springs); the
 * batch's parameters are those of the context given; a failing state is reported by index
 * while the others are computed; batched calls do not touch the heap; rollouts with their own
 * initial states, damping and PD controllers equal single simulations bit for bit whatever
 * the thread count, and stop cleanly when asked; the batched derivatives (inverse and forward
 * dynamics, the semi-implicit Euler step as A and B) equal the single calls bit for bit at 1,
 * 2 and 4 threads, name a missing output and do not touch the heap. */
#include "support/test_util.h"

TU_DEFINE_HEAP_COUNTER();

enum { kStates = 37 };
static const int kThreadCounts[] = {1, 2, 4};

typedef struct {
  int nq, nv, nx, nb;
  mbt_real* x;       /* [kStates][nx] */
  mbt_real* q;       /* [kStates][nq] */
  mbt_real* a;       /* [kStates][nv]: v̇ for ID, tau for FD */
} states;

static states make_states(const mbt_tree* tree, mbt_context* ctx) {
  states s;
  s.nq = mbt_tree_num_positions(tree);
  s.nv = mbt_tree_num_velocities(tree);
  s.nx = s.nq + s.nv;
  s.nb = mbt_tree_num_bodies(tree);
  s.x = malloc(sizeof(mbt_real) * (size_t)(kStates * s.nx));
  s.q = malloc(sizeof(mbt_real) * (size_t)(kStates * (s.nq ? s.nq : 1)));
  s.a = malloc(sizeof(mbt_real) * (size_t)(kStates * (s.nv ? s.nv : 1)));
  assert_true(s.x && s.q && s.a);
  for (int k = 0; k < kStates; ++k) {
    tu_rand_state(tree, ctx);
    assert_int_equal(mbt_context_get_x(ctx, s.x + k * s.nx, s.nx), MBT_OK);
    memcpy(s.q + k * s.nq, s.x + k * s.nx, sizeof(mbt_real) * (size_t)s.nq);
    tu_rand_array(s.a + k * s.nv, s.nv, 2);
  }
  return s;
}

static void free_states(states* s) {
  free(s->x);
  free(s->q);
  free(s->a);
}

/* The four single calls for state k in ctx: tau (nv), M (nv²), vdot (nv), X_WB by node (nb). */
static void single_calls(const mbt_tree* tree, mbt_context* ctx, const states* s, int k, mbt_real* tau,
                         mbt_real* M, mbt_real* vdot, mbt_transform* X) {
  assert_int_equal(mbt_context_set_x(ctx, s->x + k * s->nx, s->nx), MBT_OK);
  assert_int_equal(mbt_calc_inverse_dynamics_with_gravity(tree, ctx, s->a + k * s->nv, tau), MBT_OK);
  assert_int_equal(mbt_calc_mass_matrix(tree, ctx, M), MBT_OK);
  assert_int_equal(mbt_calc_forward_dynamics(tree, ctx, s->a + k * s->nv, NULL, vdot), MBT_OK);
  assert_int_equal(mbt_calc_forward_kinematics(tree, ctx), MBT_OK);
  for (int body = 0; body < s->nb; ++body)
    assert_int_equal(mbt_context_body_pose_in_world(tree, ctx, body, &X[mbt_tree_body_node(tree, body)]), MBT_OK);
}

/* Batched results of one batch against the single calls in `params` (a context holding the
 * parameters the batch was given). */
static void check_batch_equals_single(const mbt_tree* tree, mbt_batch* b, mbt_context* params, const states* s) {
  const size_t nv = (size_t)s->nv, nb = (size_t)s->nb;
  mbt_real* tau = calloc(kStates * nv + 1, sizeof(mbt_real));
  mbt_real* M = calloc(kStates * nv * nv + 1, sizeof(mbt_real));
  mbt_real* vdot = calloc(kStates * nv + 1, sizeof(mbt_real));
  mbt_transform* X = calloc(kStates * nb, sizeof(mbt_transform));
  mbt_real* tau1 = calloc(nv + 1, sizeof(mbt_real));
  mbt_real* M1 = calloc(nv * nv + 1, sizeof(mbt_real));
  mbt_real* vdot1 = calloc(nv + 1, sizeof(mbt_real));
  mbt_transform* X1 = calloc(nb, sizeof(mbt_transform));
  int status[kStates];
  assert_true(tau && M && vdot && X && tau1 && M1 && vdot1 && X1);
  assert_int_equal(mbt_batch_calc_inverse_dynamics(b, kStates, s->x, s->a, tau, status), MBT_OK);
  assert_int_equal(mbt_batch_calc_mass_matrix(b, kStates, s->q, M, NULL), MBT_OK);
  assert_int_equal(mbt_batch_calc_forward_dynamics(b, kStates, s->x, s->a, vdot, NULL), MBT_OK);
  assert_int_equal(mbt_batch_calc_forward_kinematics(b, kStates, s->q, X, NULL), MBT_OK);
  mbt_context* ctx = mbt_context_clone(params);
  assert_non_null(ctx);
  for (int k = 0; k < kStates; ++k) {
    assert_int_equal(status[k], MBT_OK);
    single_calls(tree, ctx, s, k, tau1, M1, vdot1, X1);
    assert_memory_equal(tau + k * nv, tau1, sizeof(mbt_real) * nv);
    assert_memory_equal(M + k * nv * nv, M1, sizeof(mbt_real) * nv * nv);
    assert_memory_equal(vdot + k * nv, vdot1, sizeof(mbt_real) * nv);
    assert_memory_equal(X + k * nb, X1, sizeof(mbt_transform) * nb);
  }
  mbt_context_destroy(ctx);
  free(tau); free(M); free(vdot); free(X);
  free(tau1); free(M1); free(vdot1); free(X1);
}

static void check_tree(mbt_tree* tree) {
  mbt_context* ctx = mbt_context_create(tree);
  assert_non_null(ctx);
  states s = make_states(tree, ctx);
  mbt_tree_set_default_context(tree, ctx);
  for (size_t t = 0; t < sizeof kThreadCounts / sizeof kThreadCounts[0]; ++t) {
    mbt_batch* b = mbt_batch_create(tree, kThreadCounts[t]);
    assert_non_null(b);
    assert_int_equal(mbt_batch_num_threads(b), kThreadCounts[t]);
    check_batch_equals_single(tree, b, ctx, &s);
    mbt_batch_destroy(b);
  }
  free_states(&s);
  mbt_context_destroy(ctx);
}

static void test_models_bit_identical(void** st) {
  (void)st;
  const char* names[] = {"ur5", "solo12"};
  for (int m = 0; m < 2; ++m) {
    mbt_tree* tree = tu_load_model(names[m]);
    check_tree(tree);
    mbt_tree_destroy(tree);
  }
}

static void test_joint_tree_bit_identical(void** st) {
  (void)st;
  mbt_tree* tree = tu_make_joint_tree();
  assert_non_null(tree);
  check_tree(tree);
  mbt_tree_destroy(tree);
}

/* Damping set in a context reaches every thread through mbt_batch_set_parameters. */
static void test_parameters_from_context(void** st) {
  (void)st;
  mbt_tree* tree = tu_make_joint_tree();
  assert_non_null(tree);
  mbt_context* ctx = mbt_context_create(tree);
  assert_non_null(ctx);
  states s = make_states(tree, ctx);
  mbt_tree_set_default_context(tree, ctx);
  const int j = mbt_tree_joint_by_name(tree, "j2");
  assert_true(j >= 0);
  const mbt_real c = 7.5;
  assert_int_equal(mbt_joint_set_damping_vector(ctx, j, &c, 1), MBT_OK);
  mbt_batch* b = mbt_batch_create(tree, 2);
  assert_non_null(b);
  assert_int_equal(mbt_batch_set_parameters(b, ctx), MBT_OK);
  check_batch_equals_single(tree, b, ctx, &s);
  /* The default context's damping differs: the same batch must no longer match it. */
  mbt_context* other = mbt_context_create(tree);
  mbt_tree* tree2 = tu_make_joint_tree();
  mbt_context* foreign = mbt_context_create(tree2);
  assert_int_equal(mbt_batch_set_parameters(b, foreign), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_batch_last_error(b), "another tree");
  mbt_real vd_b[64], vd_1[64];
  assert_int_equal(mbt_batch_calc_forward_dynamics(b, 1, s.x, NULL, vd_b, NULL), MBT_OK);
  assert_int_equal(mbt_context_set_x(other, s.x, s.nx), MBT_OK);
  assert_int_equal(mbt_calc_forward_dynamics(tree, other, NULL, NULL, vd_1), MBT_OK);
  assert_true(tu_max_abs_diff(vd_b, vd_1, s.nv) > 1e-9);
  mbt_context_destroy(foreign);
  mbt_tree_destroy(tree2);
  mbt_context_destroy(other);
  mbt_batch_destroy(b);
  free_states(&s);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

/* A massless body b on a revolute joint about z carrying a point mass c on a prismatic joint
 * along x: with the slider at x = 0 the mass sits on the revolute axis, which then moves
 * nothing, and forward dynamics is singular; anywhere else it is regular. */
static mbt_tree* make_slider_on_rotor(void) {
  mbt_tree* tree = mbt_tree_create();
  const mbt_spatial_inertia Z = mbt_spatial_inertia_zero();
  const mbt_spatial_inertia M = mbt_spatial_inertia_point_mass(1.0, mbt_vec3_make(0, 0, 0));
  const int b = mbt_tree_add_rigid_body(tree, "b", &Z);
  const int c = mbt_tree_add_rigid_body(tree, "c", &M);
  const mbt_transform I = mbt_transform_identity();
  assert_true(b > 0 && c > 0);
  assert_true(mbt_tree_add_revolute_joint(tree, "r", 0, &I, b, &I, mbt_vec3_make(0, 0, 1), 0) >= 0);
  assert_true(mbt_tree_add_prismatic_joint(tree, "s", b, &I, c, &I, mbt_vec3_make(1, 0, 0), 0) >= 0);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  return tree;
}

/* A singular state fails alone: its status and its NaN row say so, the others are computed. */
static void test_failing_state_reported(void** st) {
  (void)st;
  mbt_tree* tree = make_slider_on_rotor();
  mbt_real x[kStates][4], vdot[kStates][2];
  int status[kStates];
  for (int k = 0; k < kStates; ++k) {
    x[k][0] = 0.01 * k;
    x[k][1] = k == 5 || k == 9 ? 0 : 0.02 * k + 0.1;
    x[k][2] = 0.1;
    x[k][3] = -0.2;
  }
  mbt_batch* b = mbt_batch_create(tree, 2);
  assert_non_null(b);
  const int rc = mbt_batch_calc_forward_dynamics(b, kStates, &x[0][0], NULL, &vdot[0][0], status);
  assert_int_equal(rc, MBT_ERR_SINGULAR);
  assert_contains(mbt_batch_last_error(b), "state 5: body 'b'");
  for (int k = 0; k < kStates; ++k) {
    const bool bad = k == 5 || k == 9;
    assert_int_equal(status[k] != MBT_OK, bad);
    for (int i = 0; i < 2; ++i) assert_int_equal(isnan(vdot[k][i]) != 0, bad);
  }
  assert_int_equal(mbt_batch_calc_forward_dynamics(b, -1, &x[0][0], NULL, &vdot[0][0], NULL),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_batch_calc_mass_matrix(b, 3, NULL, &vdot[0][0], NULL), MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_batch_calc_inverse_dynamics(b, 0, NULL, NULL, NULL, NULL), MBT_OK);
  mbt_batch_destroy(b);
  mbt_tree_destroy(tree);
}

static void test_batched_calls_do_not_allocate(void** st) {
  (void)st;
  tu_require_heap_counter();
  mbt_tree* tree = tu_load_model("ur5");
  mbt_context* ctx = mbt_context_create(tree);
  states s = make_states(tree, ctx);
  mbt_batch* b = mbt_batch_create(tree, 2);
  mbt_real* out = calloc((size_t)(kStates * s.nv * s.nv), sizeof(mbt_real));
  mbt_transform* X = calloc((size_t)(kStates * s.nb), sizeof(mbt_transform));
  assert_true(b && out && X);
  tu_heap_count_begin();
  int rc = mbt_batch_calc_inverse_dynamics(b, kStates, s.x, s.a, out, NULL);
  rc |= mbt_batch_calc_mass_matrix(b, kStates, s.q, out, NULL);
  rc |= mbt_batch_calc_forward_dynamics(b, kStates, s.x, s.a, out, NULL);
  rc |= mbt_batch_calc_forward_kinematics(b, kStates, s.q, X, NULL);
  const long calls = tu_heap_count_end();
  assert_int_equal(rc, MBT_OK);
  assert_int_equal(calls, 0);
  free(out);
  free(X);
  mbt_batch_destroy(b);
  free_states(&s);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

/* ---- derivatives --------------------------------------------------------------------- */
/* The batched derivatives of all kStates states, and a slot for one state's single call. */
typedef struct {
  mbt_real *tau, *dq, *dv, *M;       /* ID: n × nv, n × nv² ×3 */
  mbt_real *vdot, *fq, *fv, *Minv;   /* FD */
  mbt_real *xn, *A, *B;              /* step: n × nx, n × 4nv², n × 2nv² */
  int id_status[kStates], fd_status[kStates], step_status[kStates];
} deriv_out;

static void deriv_out_alloc(deriv_out* o, int n, const states* s) {
  const size_t nv = (size_t)s->nv, nv2 = nv * nv;
  mbt_real** v[] = {&o->tau, &o->vdot};
  for (int i = 0; i < 2; ++i) *v[i] = calloc((size_t)n * nv + 1, sizeof(mbt_real));
  mbt_real** m[] = {&o->dq, &o->dv, &o->M, &o->fq, &o->fv, &o->Minv};
  for (int i = 0; i < 6; ++i) *m[i] = calloc((size_t)n * nv2 + 1, sizeof(mbt_real));
  o->xn = calloc((size_t)n * (size_t)s->nx + 1, sizeof(mbt_real));
  o->A = calloc((size_t)n * 4 * nv2 + 1, sizeof(mbt_real));
  o->B = calloc((size_t)n * 2 * nv2 + 1, sizeof(mbt_real));
  assert_true(o->tau && o->vdot && o->dq && o->dv && o->M && o->fq && o->fv && o->Minv && o->xn && o->A && o->B);
}

static void deriv_out_free(deriv_out* o) {
  mbt_real* p[] = {o->tau, o->dq, o->dv, o->M, o->vdot, o->fq, o->fv, o->Minv, o->xn, o->A, o->B};
  for (size_t i = 0; i < sizeof p / sizeof p[0]; ++i) free(p[i]);
}

static const mbt_real kStepH = 0.01;

/* The three batched calls; tau_app = −0.5·a so that it differs from v̇ = a. */
static void batch_derivatives(mbt_batch* b, const states* s, const mbt_real* tau_app, deriv_out* o) {
  mbt_batch_calc_inverse_dynamics_derivatives(b, kStates, s->x, s->a, tau_app, o->tau, o->dq, o->dv, o->M,
                                              o->id_status);
  mbt_batch_calc_forward_dynamics_derivatives(b, kStates, s->x, tau_app, o->vdot, o->fq, o->fv, o->Minv,
                                              o->fd_status);
  mbt_batch_calc_semi_implicit_euler_step_derivatives(b, kStates, kStepH, s->x, tau_app, o->xn, o->A, o->B,
                                                      o->step_status);
}

/* Block (r, c) of the nv×nv blocks of a matrix `cols` blocks wide equals the nv×nv matrix m. */
static void assert_block(const mbt_real* big, int cols, int r, int c, const mbt_real* m, int nv) {
  for (int i = 0; i < nv; ++i)
    assert_memory_equal(big + ((size_t)(r * nv + i) * (size_t)(cols * nv)) + (size_t)c * nv, m + (size_t)i * nv,
                        sizeof(mbt_real) * (size_t)nv);
}

/* State k of the batch against the single calls in ctx with workspace ws (one = slot 0 of a
 * one-state deriv_out). fd_ok: the tree's forward dynamics derivatives exist. */
static void check_state_derivatives(const mbt_tree* tree, mbt_context* ctx, mbt_derivatives_workspace* ws,
                                    const states* s, const mbt_real* tau_app, const deriv_out* o, deriv_out* one,
                                    int k, bool fd_ok) {
  const int nv = s->nv, nx = s->nx;
  const size_t v1 = (size_t)k * nv, m1 = (size_t)k * nv * nv;
  const mbt_real* tk = tau_app + v1;
  assert_int_equal(mbt_context_set_x(ctx, s->x + (size_t)k * nx, nx), MBT_OK);
  assert_int_equal(o->id_status[k], MBT_OK);
  assert_int_equal(mbt_calc_inverse_dynamics_derivatives(tree, ctx, ws, s->a + v1, tk, one->tau, one->dq, one->dv,
                                                         one->M), MBT_OK);
  assert_memory_equal(o->tau + v1, one->tau, sizeof(mbt_real) * (size_t)nv);
  assert_memory_equal(o->dq + m1, one->dq, sizeof(mbt_real) * (size_t)nv * nv);
  assert_memory_equal(o->dv + m1, one->dv, sizeof(mbt_real) * (size_t)nv * nv);
  assert_memory_equal(o->M + m1, one->M, sizeof(mbt_real) * (size_t)nv * nv);
  if (!fd_ok) {
    assert_int_equal(o->fd_status[k], MBT_ERR_INVALID_ARGUMENT);
    assert_int_equal(o->step_status[k], MBT_ERR_INVALID_ARGUMENT);
    assert_true(isnan(o->fq[m1]) && isnan(o->A[4 * m1]) && isnan(o->xn[(size_t)k * nx]));
    return;
  }
  assert_int_equal(o->fd_status[k], MBT_OK);
  assert_int_equal(mbt_calc_forward_dynamics_derivatives(tree, ctx, ws, tk, one->vdot, one->fq, one->fv, one->Minv),
                   MBT_OK);
  assert_memory_equal(o->vdot + v1, one->vdot, sizeof(mbt_real) * (size_t)nv);
  assert_memory_equal(o->fq + m1, one->fq, sizeof(mbt_real) * (size_t)nv * nv);
  assert_memory_equal(o->fv + m1, one->fv, sizeof(mbt_real) * (size_t)nv * nv);
  assert_memory_equal(o->Minv + m1, one->Minv, sizeof(mbt_real) * (size_t)nv * nv);
  /* the step: blocks dq_dq, dq_dv, dq_dtau, dv_dq, dv_dv, dv_dtau into one->A */
  mbt_real* blk = one->A;
  const size_t b2 = (size_t)nv * nv;
  assert_int_equal(o->step_status[k], MBT_OK);
  assert_int_equal(mbt_calc_semi_implicit_euler_step_derivatives(tree, ctx, ws, kStepH, tk, one->xn, one->xn + s->nq,
                                                                 blk, blk + b2, blk + 2 * b2, blk + 3 * b2,
                                                                 blk + 4 * b2, blk + 5 * b2), MBT_OK);
  assert_memory_equal(o->xn + (size_t)k * nx, one->xn, sizeof(mbt_real) * (size_t)nx);
  const mbt_real* Ak = o->A + 4 * m1;
  const mbt_real* Bk = o->B + 2 * m1;
  assert_block(Ak, 2, 0, 0, blk, nv);
  assert_block(Ak, 2, 0, 1, blk + b2, nv);
  assert_block(Ak, 2, 1, 0, blk + 3 * b2, nv);
  assert_block(Ak, 2, 1, 1, blk + 4 * b2, nv);
  assert_block(Bk, 1, 0, 0, blk + 2 * b2, nv);
  assert_block(Bk, 1, 1, 0, blk + 5 * b2, nv);
}

/* Batched derivatives equal the single calls bit for bit at 1, 2 and 4 threads. */
static void check_tree_derivatives(mbt_tree* tree, bool fd_ok) {
  mbt_context* ctx = mbt_context_create(tree);
  assert_non_null(ctx);
  states s = make_states(tree, ctx);
  mbt_real* tau_app = calloc((size_t)(kStates * s.nv) + 1, sizeof(mbt_real));
  for (int i = 0; i < kStates * s.nv; ++i) tau_app[i] = -0.5 * s.a[i];
  mbt_derivatives_workspace* ws = mbt_derivatives_workspace_create(tree);
  deriv_out one;
  deriv_out_alloc(&one, 6, &s); /* A holds the step's six blocks */
  for (size_t t = 0; t < sizeof kThreadCounts / sizeof kThreadCounts[0]; ++t) {
    mbt_batch* b = mbt_batch_create(tree, kThreadCounts[t]);
    assert_true(b && ws);
    deriv_out o;
    deriv_out_alloc(&o, kStates, &s);
    batch_derivatives(b, &s, tau_app, &o);
    for (int k = 0; k < kStates; ++k) check_state_derivatives(tree, ctx, ws, &s, tau_app, &o, &one, k, fd_ok);
    if (!fd_ok) {
      assert_contains(mbt_batch_last_error(b), "state 0: ");
      assert_contains(mbt_batch_last_error(b), "lsd1");
    }
    deriv_out_free(&o);
    mbt_batch_destroy(b);
  }
  deriv_out_free(&one);
  mbt_derivatives_workspace_destroy(ws);
  free(tau_app);
  free_states(&s);
  mbt_context_destroy(ctx);
}

static void test_derivatives_bit_identical(void** st) {
  (void)st;
  const char* names[] = {"ur5", "solo12"};
  for (int m = 0; m < 2; ++m) {
    mbt_tree* tree = tu_load_model(names[m]);
    check_tree_derivatives(tree, true);
    mbt_tree_destroy(tree);
  }
  /* Every joint type; its linear spring-dampers have no forward dynamics derivatives, so
   * every state of those fails (NaN rows) while inverse dynamics is computed. */
  mbt_tree* tree = tu_make_joint_tree();
  assert_non_null(tree);
  check_tree_derivatives(tree, false);
  mbt_tree_destroy(tree);
}

/* The UR5, its random states, a 2-thread batch and room for every derivative. */
typedef struct {
  mbt_tree* tree;
  mbt_context* ctx;
  states s;
  mbt_batch* b;
  deriv_out o;
} ur5_deriv;

static void ur5_deriv_setup(ur5_deriv* f) {
  f->tree = tu_load_model("ur5");
  f->ctx = mbt_context_create(f->tree);
  f->s = make_states(f->tree, f->ctx);
  f->b = mbt_batch_create(f->tree, 2);
  deriv_out_alloc(&f->o, kStates, &f->s);
  assert_non_null(f->b);
}

static void ur5_deriv_teardown(ur5_deriv* f) {
  deriv_out_free(&f->o);
  mbt_batch_destroy(f->b);
  free_states(&f->s);
  mbt_context_destroy(f->ctx);
  mbt_tree_destroy(f->tree);
}

static void test_derivatives_errors(void** st) {
  (void)st;
  ur5_deriv f;
  ur5_deriv_setup(&f);
  mbt_batch* b = f.b;
  const states s = f.s;
  deriv_out o = f.o;
  /* Required outputs are named; nothing is written. */
  o.tau[0] = 42;
  assert_int_equal(mbt_batch_calc_inverse_dynamics_derivatives(b, kStates, s.x, s.a, NULL, o.tau, NULL, o.dv, NULL,
                                                               NULL), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_batch_last_error(b), "dtau_dq is NULL");
  assert_true(o.tau[0] == 42);
  assert_int_equal(mbt_batch_calc_forward_dynamics_derivatives(b, kStates, s.x, NULL, NULL, o.fq, NULL, NULL, NULL),
                   MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_batch_last_error(b), "dvdot_dv is NULL");
  assert_int_equal(mbt_batch_calc_semi_implicit_euler_step_derivatives(b, kStates, 0.01, s.x, NULL, NULL, NULL, NULL,
                                                                       NULL), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_batch_last_error(b), "A is NULL");
  assert_int_equal(mbt_batch_calc_inverse_dynamics_derivatives(b, -1, s.x, NULL, NULL, NULL, o.dq, o.dv, NULL, NULL),
                   MBT_ERR_INVALID_ARGUMENT);
  /* A step that is not finite fails every state, with its message. */
  assert_int_equal(mbt_batch_calc_semi_implicit_euler_step_derivatives(b, 3, NAN, s.x, NULL, NULL, o.A, NULL,
                                                                       o.step_status), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_batch_last_error(b), "state 0: ");
  assert_contains(mbt_batch_last_error(b), "not finite");
  assert_true(isnan(o.A[0]) && o.step_status[2] == MBT_ERR_INVALID_ARGUMENT);
  ur5_deriv_teardown(&f);
}

/* Optional outputs skipped, and no heap call. */
static void test_batched_derivatives_do_not_allocate(void** st) {
  (void)st;
  tu_require_heap_counter();
  ur5_deriv f;
  ur5_deriv_setup(&f);
  mbt_batch* b = f.b;
  const states s = f.s;
  deriv_out o = f.o;
  tu_heap_count_begin();
  int rc = mbt_batch_calc_inverse_dynamics_derivatives(b, kStates, s.x, s.a, NULL, NULL, o.dq, o.dv, NULL, NULL);
  rc |= mbt_batch_calc_forward_dynamics_derivatives(b, kStates, s.x, s.a, o.vdot, o.fq, o.fv, o.Minv, NULL);
  rc |= mbt_batch_calc_semi_implicit_euler_step_derivatives(b, kStates, 0.01, s.x, s.a, o.xn, o.A, o.B, NULL);
  rc |= mbt_batch_calc_semi_implicit_euler_step_derivatives(b, kStates, 0.01, s.x, NULL, NULL, o.A, NULL, NULL);
  const long calls = tu_heap_count_end();
  assert_int_equal(rc, MBT_OK);
  assert_int_equal(calls, 0);
  ur5_deriv_teardown(&f);
}

/* ---- rollouts ------------------------------------------------------------------------- */
enum { kRollouts = 9, kSamples = 6 };

typedef struct {
  int nv;
  mbt_real kp, kd;
  mbt_real target[64];
} pd_gains;

static void pd_control(mbt_real t, const mbt_real* q, const mbt_real* v, mbt_real* tau, void* user) {
  (void)t;
  const pd_gains* g = user;
  for (int i = 0; i < g->nv; ++i) tau[i] = g->kp * (g->target[i] - q[i]) - g->kd * v[i];
}

typedef struct {
  mbt_context* initial[kRollouts];
  pd_gains gains[kRollouts];
  int nx;
} rollout_inputs;

static void make_rollout_inputs(const mbt_tree* tree, rollout_inputs* in) {
  in->nx = mbt_tree_num_states(tree);
  const int nv = mbt_tree_num_velocities(tree);
  for (int k = 0; k < kRollouts; ++k) {
    in->initial[k] = mbt_context_create(tree);
    assert_non_null(in->initial[k]);
    tu_rand_state(tree, in->initial[k]);
    mbt_real c = 0.1 * k;
    assert_int_equal(mbt_joint_set_damping_vector(in->initial[k], mbt_tree_joint_by_name(tree, "j2"), &c, 1), MBT_OK);
    in->gains[k].nv = nv;
    in->gains[k].kp = 20 + 10 * k;
    in->gains[k].kd = 2 + k;
    tu_rand_array(in->gains[k].target, nv, 1);
  }
}

static void fill_rollouts(rollout_inputs* in, mbt_rollout* r, mbt_real* traj, mbt_real* xf) {
  memset(r, 0, sizeof(mbt_rollout) * kRollouts);
  for (int k = 0; k < kRollouts; ++k) {
    r[k].initial = in->initial[k];
    r[k].t_final = 0.2;
    r[k].control = pd_control;
    r[k].control_data = &in->gains[k];
    r[k].num_samples = kSamples;
    r[k].trajectory = traj + (size_t)k * kSamples * (size_t)(1 + in->nx);
    r[k].x_final = xf + (size_t)k * (size_t)in->nx;
  }
}

/* The same rollout by hand: one simulator advancing to each sample time. */
static void single_rollout(const mbt_tree* tree, rollout_inputs* in, int k, mbt_real* traj) {
  mbt_simulator* sim = mbt_simulator_create(tree, in->initial[k], NULL);
  assert_non_null(sim);
  mbt_simulator_set_control(sim, pd_control, &in->gains[k]);
  for (int i = 0; i < kSamples; ++i) {
    if (i > 0) assert_int_equal(mbt_simulator_advance_to(sim, i == kSamples - 1 ? 0.2 : 0.2 * i / (kSamples - 1)),
                                MBT_OK);
    mbt_real* row = traj + (size_t)i * (size_t)(1 + in->nx);
    row[0] = mbt_context_time(mbt_simulator_context(sim));
    mbt_context_get_x(mbt_simulator_context(sim), row + 1, in->nx);
  }
  mbt_simulator_destroy(sim);
}

static void test_rollouts_bit_identical(void** st) {
  (void)st;
  mbt_tree* tree = tu_make_joint_tree();
  assert_non_null(tree);
  rollout_inputs in;
  make_rollout_inputs(tree, &in);
  const size_t per = (size_t)kSamples * (size_t)(1 + in.nx);
  mbt_real* single = calloc(per * kRollouts, sizeof(mbt_real));
  mbt_real* traj = calloc(per * kRollouts, sizeof(mbt_real));
  mbt_real* xf = calloc((size_t)(kRollouts * in.nx), sizeof(mbt_real));
  mbt_rollout r[kRollouts];
  for (int k = 0; k < kRollouts; ++k) single_rollout(tree, &in, k, single + (size_t)k * per);
  for (size_t t = 0; t < sizeof kThreadCounts / sizeof kThreadCounts[0]; ++t) {
    mbt_batch* b = mbt_batch_create(tree, kThreadCounts[t]);
    fill_rollouts(&in, r, traj, xf);
    memset(traj, 0, sizeof(mbt_real) * per * kRollouts);
    assert_int_equal(mbt_batch_rollouts(b, NULL, r, kRollouts, NULL, NULL), MBT_OK);
    assert_memory_equal(traj, single, sizeof(mbt_real) * per * kRollouts);
    for (int k = 0; k < kRollouts; ++k) {
      assert_int_equal(r[k].status, MBT_OK);
      assert_true(r[k].stats.steps_taken > 0);
      assert_memory_equal(r[k].x_final, single + (size_t)k * per + (kSamples - 1) * (size_t)(1 + in.nx) + 1,
                          sizeof(mbt_real) * (size_t)in.nx);
    }
    mbt_batch_destroy(b);
  }
  /* Rollouts differ from each other (the inputs reach them). */
  assert_true(tu_max_abs_diff(xf, xf + in.nx, in.nx) > 1e-6);
  for (int k = 0; k < kRollouts; ++k) mbt_context_destroy(in.initial[k]);
  free(single);
  free(traj);
  free(xf);
  mbt_tree_destroy(tree);
}

static bool stop_after_two(int index, const mbt_rollout* r, void* user) {
  (void)index;
  (void)r;
  int* count = user;
  return ++*count < 2;
}

static void test_rollouts_stop_and_errors(void** st) {
  (void)st;
  mbt_tree* tree = tu_make_joint_tree();
  assert_non_null(tree);
  rollout_inputs in;
  make_rollout_inputs(tree, &in);
  mbt_real* traj = calloc((size_t)kSamples * (size_t)(1 + in.nx) * kRollouts, sizeof(mbt_real));
  mbt_real* xf = calloc((size_t)(kRollouts * in.nx), sizeof(mbt_real));
  mbt_rollout r[kRollouts];
  mbt_batch* b = mbt_batch_create(tree, 1);
  fill_rollouts(&in, r, traj, xf);
  int count = 0;
  assert_int_equal(mbt_batch_rollouts(b, NULL, r, kRollouts, stop_after_two, &count), MBT_ERR_INTERRUPTED);
  assert_int_equal(count, 2);
  assert_int_equal(r[0].status, MBT_OK);
  assert_int_equal(r[1].status, MBT_OK);
  for (int k = 2; k < kRollouts; ++k) {
    assert_int_equal(r[k].status, MBT_ERR_INTERRUPTED);
    assert_contains(r[k].error, "not started");
  }
  assert_contains(mbt_batch_last_error(b), "rollout 2: not started");
  /* Bad arguments: nothing runs. */
  fill_rollouts(&in, r, traj, xf);
  r[3].t_final = -1;
  assert_int_equal(mbt_batch_rollouts(b, NULL, r, kRollouts, NULL, NULL), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_batch_last_error(b), "rollout 3");
  fill_rollouts(&in, r, traj, xf);
  r[4].num_samples = 1;
  assert_int_equal(mbt_batch_rollouts(b, NULL, r, kRollouts, NULL, NULL), MBT_ERR_INVALID_ARGUMENT);
  fill_rollouts(&in, r, traj, xf);
  mbt_simulator_options bad = mbt_simulator_default_options();
  bad.dt = -1;
  assert_int_equal(mbt_batch_rollouts(b, &bad, r, kRollouts, NULL, NULL), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_batch_last_error(b), "dt");
  for (int k = 0; k < kRollouts; ++k) assert_int_equal(r[k].status, MBT_OK); /* untouched */
  mbt_batch_destroy(b);
  for (int k = 0; k < kRollouts; ++k) mbt_context_destroy(in.initial[k]);
  free(traj);
  free(xf);
  mbt_tree_destroy(tree);
}

int main(void) {
  tu_seed(16);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_models_bit_identical),      cmocka_unit_test(test_joint_tree_bit_identical),
      cmocka_unit_test(test_parameters_from_context),   cmocka_unit_test(test_failing_state_reported),
      cmocka_unit_test(test_batched_calls_do_not_allocate), cmocka_unit_test(test_rollouts_bit_identical),
      cmocka_unit_test(test_rollouts_stop_and_errors),
      cmocka_unit_test(test_derivatives_bit_identical), cmocka_unit_test(test_derivatives_errors),
      cmocka_unit_test(test_batched_derivatives_do_not_allocate),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
