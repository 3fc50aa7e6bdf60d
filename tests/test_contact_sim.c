/* Contact dynamics in the simulator (mbt/contact.h, mbt/sim.h "time_stepping"), physical facts:
 *   - a cube dropped on the ground comes to rest: after 2 s its speed < 1 mm/s and its
 *     penetration < 1 mm; its energy (kinetic + gravity + contact springs) never grows;
 *   - a cube on a plane inclined by θ = 20°: with μ = 0.5 > tan θ it stays (drift < 1 mm over
 *     2 s); with μ = 0.2 < tan θ it slides with a = g·(sin θ − μ·cos θ) within 1%;
 *   - a sphere launched sliding on the ground ends rolling: v = ω·r within 1%, and v = 5/7·v0
 *     (the rolling speed that conserves angular momentum about the contact line) within 1%;
 *   - spheres and cubes colliding in free space (no gravity, no ground) conserve linear and
 *     angular momentum to 1e-9;
 *   - contact results: the normal forces of the resting cube carry its weight, per-body totals
 *     match the per-contact forces; filters; option checks; no allocation while stepping.
 * The physical facts are checked with both contact solvers, SAP (the default) and projected
 * Gauss–Seidel, with the same tolerances. */
#include "support/test_util.h"

#define G0 9.81

TU_DEFINE_HEAP_COUNTER();

/* A solid cube of side a and mass m, floating. */
static int add_cube(mbt_tree* tree, const char* name, double m, double a) {
  const double I = m * a * a / 6;
  const mbt_rotational_inertia Ic = {I, I, I, 0, 0, 0};
  const mbt_spatial_inertia M = mbt_spatial_inertia_from_com(m, mbt_vec3_zero(), &Ic);
  return mbt_tree_add_rigid_body(tree, name, &M);
}

static int add_ball(mbt_tree* tree, const char* name, double m, double r) {
  const double I = 0.4 * m * r * r;
  const mbt_rotational_inertia Ic = {I, I, I, 0, 0, 0};
  const mbt_spatial_inertia M = mbt_spatial_inertia_from_com(m, mbt_vec3_zero(), &Ic);
  return mbt_tree_add_rigid_body(tree, name, &M);
}

/* The contact solver of the running test (its cmocka state; NULL: the default). */
static mbt_contact_solver_method g_method = MBT_CONTACT_SOLVER_SAP;

static void use_solver(void** state) {
  g_method = *state ? *(const mbt_contact_solver_method*)*state : MBT_CONTACT_SOLVER_SAP;
}

static mbt_simulator* time_stepping(const mbt_tree* tree, mbt_context* ctx, const mbt_contact_model* model) {
  mbt_simulator_options opt = mbt_simulator_default_options();
  opt.integrator = MBT_INTEGRATOR_TIME_STEPPING;
  opt.dt = 1e-3;
  mbt_simulator* sim = mbt_simulator_create(tree, ctx, &opt);
  assert_non_null(sim);
  assert_int_equal(mbt_simulator_set_contact_model(sim, model), MBT_OK);
  assert_int_equal(mbt_simulator_set_contact_solver_method(sim, g_method), MBT_OK);
  return sim;
}

/* The floating body's q = [qw qx qy qz x y z] and v = [w; v] (both in W) in a tree of one body. */
static void set_pose(mbt_context* ctx, mbt_quat q, mbt_vec3 p, mbt_vec3 w, mbt_vec3 v) {
  const mbt_real x[13] = {q.w, q.x, q.y, q.z, p.v[0], p.v[1], p.v[2], w.v[0], w.v[1], w.v[2], v.v[0], v.v[1], v.v[2]};
  assert_int_equal(mbt_context_set_x(ctx, x, 13), MBT_OK);
}

/* ---- a cube dropped on the ground ---------------------------------------------------------- */
typedef struct {
  const mbt_tree* tree;
  double a, k;       /* cube side, combined contact stiffness */
  double E_prev, max_rise;
  int steps;
} energy_watch;

/* Kinetic + gravity + Σ ½·k·φ² over the cube's corners below z = 0 (the contact springs). */
static double cube_energy(const mbt_tree* tree, mbt_context* ctx, double a, double k) {
  mbt_real K = 0, U = 0;
  assert_int_equal(mbt_calc_kinetic_energy(tree, ctx, &K), MBT_OK);
  assert_int_equal(mbt_calc_potential_energy(tree, ctx, &U), MBT_OK);
  mbt_transform X;
  assert_int_equal(mbt_context_body_pose_in_world(tree, ctx, 1, &X), MBT_OK);
  double springs = 0;
  for (int c = 0; c < 8; ++c) {
    const mbt_vec3 p = mbt_transform_apply(
        &X, mbt_vec3_make(c & 1 ? a / 2 : -a / 2, c & 2 ? a / 2 : -a / 2, c & 4 ? a / 2 : -a / 2));
    if (p.v[2] < 0) springs += 0.5 * k * p.v[2] * p.v[2];
  }
  return K + U + springs;
}

static bool watch_energy(const mbt_context* ctx, void* user) {
  energy_watch* w = user;
  const double E = cube_energy(w->tree, (mbt_context*)ctx, w->a, w->k);
  if (w->steps++ > 0) w->max_rise = fmax(w->max_rise, E - w->E_prev);
  w->E_prev = E;
  return true;
}

static void test_cube_comes_to_rest(void** state) {
  use_solver(state);
  mbt_tree* tree = mbt_tree_create();
  const double m = 1, a = 0.2;
  const int cube = add_cube(tree, "cube", m, a);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  mbt_contact_model* model = mbt_contact_model_create(tree);
  assert_non_null(model);
  assert_true(mbt_contact_model_add_box(model, cube, NULL, a, a, a, NULL) >= 0);
  assert_true(mbt_contact_model_add_ground(model, mbt_vec3_make(0, 0, 1), 0, NULL) >= 0);
  mbt_context* ctx = mbt_context_create(tree);
  /* Tilted about a skew axis, dropped from 0.2 m with a spin: it lands on a corner. */
  mbt_quat q = {0.95, 0.2, 0.15, 0.1};
  mbt_quat_normalize(&q);
  set_pose(ctx, q, mbt_vec3_make(0, 0, 0.4), mbt_vec3_make(0.5, -1, 2), mbt_vec3_make(0.3, 0, 0));
  mbt_simulator* sim = time_stepping(tree, ctx, model);
  const mbt_contact_material mat = mbt_contact_material_default();
  energy_watch w = {tree, a, mat.stiffness / 2, 0, 0, 0};
  mbt_simulator_set_observer(sim, watch_energy, &w);
  assert_int_equal(mbt_simulator_advance_to(sim, 1.0), MBT_OK);
  /* The second second (in contact the whole time) without touching the heap. */
  mbt_simulator_set_observer(sim, NULL, NULL);
  tu_heap_count_begin();
  const int st_adv = mbt_simulator_advance_to(sim, 2.0);
  const long allocations = tu_heap_count_end();
  assert_int_equal(st_adv, MBT_OK);
  assert_int_equal(allocations, 0);
  mbt_context* c = mbt_simulator_context(sim);
  const mbt_real* v = mbt_context_v(c);
  /* Speed of every point: |v_Bo| + |ω|·(half diagonal). */
  const double speed = mbt_vec3_norm(mbt_vec3_make(v[3], v[4], v[5])) +
                       mbt_vec3_norm(mbt_vec3_make(v[0], v[1], v[2])) * a * sqrt(3) / 2;
  assert_true(speed < 1e-3);
  double lowest = 1;
  mbt_transform X;
  assert_int_equal(mbt_context_body_pose_in_world(tree, c, cube, &X), MBT_OK);
  for (int k = 0; k < 8; ++k) {
    const mbt_vec3 p = mbt_transform_apply(
        &X, mbt_vec3_make(k & 1 ? a / 2 : -a / 2, k & 2 ? a / 2 : -a / 2, k & 4 ? a / 2 : -a / 2));
    lowest = fmin(lowest, p.v[2]);
  }
  assert_true(lowest > -1e-3 && lowest < 0);
  /* Energy: each step may only lose energy (rounding allowance 1e-9 J on ~4 J). */
  assert_true(w.max_rise <= 1e-9);
  /* It rests on a face: four contacts whose normal forces carry the weight. */
  assert_int_equal(mbt_simulator_num_contacts(sim), 4);
  const mbt_contact_result* r = mbt_simulator_contact_results(sim);
  double fn = 0;
  for (int i = 0; i < 4; ++i) {
    assert_int_equal(r[i].body_A, cube);
    assert_int_equal(r[i].body_B, 0);
    fn += r[i].fn;
    assert_near(r[i].f_BA_W.v[2], r[i].fn, 1e-9);
  }
  assert_near(fn, m * G0, 1e-3 * m * G0);
  mbt_spatial_force F[2];
  assert_int_equal(mbt_simulator_contact_body_forces(sim, F, 2), MBT_OK);
  assert_near(F[cube].f.v[2], fn, 1e-9);
  assert_near(F[0].f.v[2], -fn, 1e-9);
  assert_int_equal(mbt_simulator_contact_body_forces(sim, F, 1), MBT_ERR_SIZE);
  const mbt_simulator_stats st = mbt_simulator_get_stats(sim);
  assert_int_equal(st.contacts_dropped, 0);
  assert_true(st.contact_points > 0);
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_contact_model_destroy(model);
  mbt_tree_destroy(tree);
}

/* ---- a cube on an incline -------------------------------------------------------------------- */
/* Ground tilted by θ about y (normal n = (sin θ, 0, cos θ)); the cube rests on it, aligned.
 * Returns the downhill displacement s(t) of its centre at t1 and the downhill speed at t0, t1. */
static void incline(double mu, double theta, double t0, double t1, double* s_t1, double* v_t0, double* v_t1) {
  mbt_tree* tree = mbt_tree_create();
  const double a = 0.2;
  const int cube = add_cube(tree, "cube", 2, a);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  mbt_contact_model* model = mbt_contact_model_create(tree);
  mbt_contact_material mat = mbt_contact_material_default();
  mat.static_friction = mat.dynamic_friction = mu;
  const mbt_vec3 n = mbt_vec3_make(sin(theta), 0, cos(theta)), down = mbt_vec3_make(cos(theta), 0, -sin(theta));
  assert_true(mbt_contact_model_add_box(model, cube, NULL, a, a, a, &mat) >= 0);
  assert_true(mbt_contact_model_add_ground(model, n, 0, &mat) >= 0);
  mbt_context* ctx = mbt_context_create(tree);
  const mbt_mat3 R = mbt_rotation_y(theta);
  set_pose(ctx, mbt_quat_from_rotation(&R), mbt_vec3_scale(n, a / 2), mbt_vec3_zero(), mbt_vec3_zero());
  mbt_simulator* sim = time_stepping(tree, ctx, model);
  const mbt_vec3 p0 = mbt_vec3_scale(n, a / 2);
  assert_int_equal(mbt_simulator_advance_to(sim, t0), MBT_OK);
  const mbt_real* v = mbt_context_v(mbt_simulator_context(sim));
  *v_t0 = mbt_vec3_dot(down, mbt_vec3_make(v[3], v[4], v[5]));
  assert_int_equal(mbt_simulator_advance_to(sim, t1), MBT_OK);
  v = mbt_context_v(mbt_simulator_context(sim));
  *v_t1 = mbt_vec3_dot(down, mbt_vec3_make(v[3], v[4], v[5]));
  const mbt_real* q = mbt_context_q(mbt_simulator_context(sim));
  *s_t1 = mbt_vec3_dot(down, mbt_vec3_sub(mbt_vec3_make(q[4], q[5], q[6]), p0));
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_contact_model_destroy(model);
  mbt_tree_destroy(tree);
}

static void test_incline_sticks(void** state) {
  use_solver(state);
  const double theta = 20 * TU_PI / 180;
  double s, v0, v1;
  incline(0.5, theta, 1.0, 2.0, &s, &v0, &v1);
  print_message("%s: drift %.3g m over [1, 2] s, speed %.3g m/s\n", g_method ? "PGS" : "SAP", s, v1);
  assert_true(fabs(s) < 1e-3);
  assert_true(fabs(v1) < 1e-4);
}

static void test_incline_slides(void** state) {
  use_solver(state);
  const double theta = 20 * TU_PI / 180, mu = 0.2;
  double s, v0, v1;
  incline(mu, theta, 0.5, 1.5, &s, &v0, &v1);
  const double a = G0 * (sin(theta) - mu * cos(theta));
  print_message("%s: acceleration %.6g m/s² (exact %.6g)\n", g_method ? "PGS" : "SAP", v1 - v0, a);
  tu_assert_rel(v1 - v0, a, 0, 0.01, "downhill acceleration");
}

/* ---- a sphere rolling ------------------------------------------------------------------------ */
static void test_sphere_rolls(void** state) {
  use_solver(state);
  mbt_tree* tree = mbt_tree_create();
  const double r = 0.1, v0 = 1.0;
  const int ball = add_ball(tree, "ball", 1.5, r);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  mbt_contact_model* model = mbt_contact_model_create(tree);
  mbt_contact_material mat = mbt_contact_material_default();
  mat.static_friction = mat.dynamic_friction = 0.3;
  assert_true(mbt_contact_model_add_sphere(model, ball, NULL, r, &mat) >= 0);
  assert_true(mbt_contact_model_add_ground(model, mbt_vec3_make(0, 0, 1), 0, &mat) >= 0);
  mbt_context* ctx = mbt_context_create(tree);
  /* Launched sliding along x without spin: friction slows it and spins it up. */
  set_pose(ctx, mbt_quat_identity(), mbt_vec3_make(0, 0, r), mbt_vec3_zero(), mbt_vec3_make(v0, 0, 0));
  mbt_simulator* sim = time_stepping(tree, ctx, model);
  assert_int_equal(mbt_simulator_advance_to(sim, 0.02), MBT_OK);
  const mbt_real* v = mbt_context_v(mbt_simulator_context(sim));
  assert_true(v[3] - v[1] * r > 0.1); /* still slipping early on */
  assert_int_equal(mbt_simulator_advance_to(sim, 1.5), MBT_OK);
  v = mbt_context_v(mbt_simulator_context(sim));
  /* Rolling along +x: v_x = ω_y·r. */
  tu_assert_rel(v[3], v[1] * r, 0, 0.01, "v = omega r");
  tu_assert_rel(v[3], 5.0 / 7.0 * v0, 0, 0.01, "rolling speed 5/7 v0");
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_contact_model_destroy(model);
  mbt_tree_destroy(tree);
}

/* ---- momentum of colliding bodies ------------------------------------------------------------ */
static void momentum(const mbt_tree* tree, mbt_context* ctx, double* L) {
  mbt_spatial_momentum h;
  assert_int_equal(mbt_calc_spatial_momentum_in_world_about_point(tree, ctx, mbt_vec3_zero(), &h), MBT_OK);
  for (int i = 0; i < 6; ++i) L[i] = h.coeffs[i];
}

static void test_free_collisions_conserve_momentum(void** state) {
  use_solver(state);
  mbt_tree* tree = mbt_tree_create();
  assert_int_equal(mbt_tree_set_gravity(tree, mbt_vec3_zero()), MBT_OK);
  enum { N = 6 };
  int body[N];
  char name[16];
  for (int i = 0; i < N; ++i) {
    snprintf(name, sizeof name, "b%d", i);
    body[i] = i % 2 ? add_cube(tree, name, 0.5 + 0.3 * i, 0.2) : add_ball(tree, name, 0.4 + 0.2 * i, 0.12);
  }
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  mbt_contact_model* model = mbt_contact_model_create(tree);
  for (int i = 0; i < N; ++i) {
    if (i % 2) assert_true(mbt_contact_model_add_box(model, body[i], NULL, 0.2, 0.2, 0.2, NULL) >= 0);
    else assert_true(mbt_contact_model_add_sphere(model, body[i], NULL, 0.12, NULL) >= 0);
  }
  mbt_context* ctx = mbt_context_create(tree);
  /* On a ring of radius 0.5, moving towards the centre with random spins. */
  mbt_real* x = calloc((size_t)mbt_tree_num_states(tree), sizeof(mbt_real));
  const int nq = mbt_tree_num_positions(tree);
  for (int i = 0; i < N; ++i) {
    const int mob = mbt_tree_body_mobilizer(tree, body[i]);
    const int iq = mbt_mobilizer_position_start_in_q(tree, mob), iv = mbt_mobilizer_velocity_start_in_v(tree, mob);
    const double phi = 2 * TU_PI * i / N;
    const mbt_quat q = tu_rand_unit_quat();
    x[iq] = q.w, x[iq + 1] = q.x, x[iq + 2] = q.y, x[iq + 3] = q.z;
    x[iq + 4] = 0.5 * cos(phi), x[iq + 5] = 0.5 * sin(phi), x[iq + 6] = 0.02 * tu_rand();
    const mbt_vec3 w = tu_rand_vec3(3);
    for (int k = 0; k < 3; ++k) x[nq + iv + k] = w.v[k];
    x[nq + iv + 3] = -cos(phi) * (1 + 0.3 * tu_rand()), x[nq + iv + 4] = -sin(phi), x[nq + iv + 5] = 0.1 * tu_rand();
  }
  assert_int_equal(mbt_context_set_x(ctx, x, mbt_tree_num_states(tree)), MBT_OK);
  free(x);
  double L0[6], L1[6];
  momentum(tree, ctx, L0);
  mbt_simulator* sim = time_stepping(tree, ctx, model);
  assert_int_equal(mbt_simulator_advance_to(sim, 1.0), MBT_OK);
  momentum(tree, mbt_simulator_context(sim), L1);
  const double scale = tu_max_abs(L0, 6) + 1;
  for (int i = 0; i < 6; ++i) assert_near(L1[i], L0[i], 1e-9 * scale);
  assert_true(mbt_simulator_get_stats(sim).contact_points > 20); /* they did collide */
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_contact_model_destroy(model);
  mbt_tree_destroy(tree);
}

/* ---- joint limits in the contact problem ---------------------------------------------------- */
/* A 15 g slider (a gripper finger) falls 1 cm onto its lower limit along z under gravity, with
 * the default limit penalty k = 1e4 N/m, c = 1e2 N·s/m: c·h/m = 6.7 at h = 1 ms, where an
 * explicit penalty diverges. In the contact problem the limit is implicit: the slider comes
 * to rest at lower − m·g/k, and its energy (kinetic + gravity + the limit spring) never grows. */
static void test_light_body_on_its_limit(void** state) {
  use_solver(state);
  mbt_tree* tree = mbt_tree_create();
  const int b = add_cube(tree, "finger", 0.015, 0.02);
  const int j = mbt_tree_add_prismatic_joint(tree, "slide", 0, NULL, b, NULL, mbt_vec3_make(0, 0, 1), 0);
  const mbt_real lo = 0, hi = 0.04;
  assert_int_equal(mbt_joint_set_position_limits(tree, j, &lo, &hi, 1), MBT_OK);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  mbt_contact_model* m = mbt_contact_model_create(tree); /* no shapes: only the limit */
  mbt_context* ctx = mbt_context_create(tree);
  const mbt_real q0 = 0.01;
  assert_int_equal(mbt_context_set_q(ctx, &q0, 1), MBT_OK);
  mbt_simulator* sim = time_stepping(tree, ctx, m);
  mbt_context* sc = mbt_simulator_context(sim);
  const double k = 1e4, mg = 0.015 * G0;
  double E_prev = INFINITY, max_rise = 0;
  for (int step = 1; step <= 1000; ++step) {
    assert_int_equal(mbt_simulator_advance_to(sim, step * 1e-3), MBT_OK);
    const double q = mbt_context_q(sc)[0], v = mbt_context_v(sc)[0], pen = q < lo ? lo - q : 0;
    const double E = 0.5 * 0.015 * v * v + mg * q + 0.5 * k * pen * pen;
    max_rise = fmax(max_rise, E - E_prev);
    E_prev = E;
  }
  assert_true(max_rise <= 1e-12);
  tu_assert_rel(mbt_context_q(sc)[0], lo - mg / k, 0, 1e-2 * mg / k, "rest below the limit");
  assert_near(mbt_context_v(sc)[0], 0, 1e-6);
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_contact_model_destroy(m);
  mbt_tree_destroy(tree);
}

/* ---- filters and errors ---------------------------------------------------------------------- */
static void test_filters_and_errors(void** state) {
  use_solver(state);
  mbt_tree* tree = mbt_tree_create();
  const int a = add_cube(tree, "a", 1, 0.1), b = add_cube(tree, "b", 1, 0.1), c = add_cube(tree, "c", 1, 0.1);
  const int d = add_cube(tree, "d", 1, 0.1);
  assert_true(mbt_tree_add_revolute_joint(tree, "ab", a, NULL, b, NULL, mbt_vec3_make(0, 0, 1), 0) >= 0);
  assert_true(mbt_tree_add_weld_joint(tree, "bc", b, NULL, c, NULL) >= 0);
  assert_true(mbt_tree_add_revolute_joint(tree, "cd", c, NULL, d, NULL, mbt_vec3_make(0, 0, 1), 0) >= 0);
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  mbt_contact_model* m = mbt_contact_model_create(tree);
  assert_false(mbt_contact_model_pair_enabled(m, a, b));  /* parent */
  assert_false(mbt_contact_model_pair_enabled(m, b, c));  /* welded */
  assert_false(mbt_contact_model_pair_enabled(m, a, c));  /* c is welded to a's child */
  assert_false(mbt_contact_model_pair_enabled(m, b, d));  /* d's parent is welded to b */
  assert_true(mbt_contact_model_pair_enabled(m, a, d));
  assert_true(mbt_contact_model_pair_enabled(m, 0, a));
  assert_false(mbt_contact_model_pair_enabled(m, 0, 0));
  assert_int_equal(mbt_contact_model_exclude_pair(m, d, a), MBT_OK);
  assert_false(mbt_contact_model_pair_enabled(m, a, d));
  assert_int_equal(mbt_contact_model_exclude_pair(m, 9, a), MBT_ERR_NOT_FOUND);
  /* Bad shapes and materials: refused with a message, nothing added. */
  assert_int_equal(mbt_contact_model_add_sphere(m, a, NULL, -1, NULL), MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_contact_model_add_box(m, 7, NULL, 1, 1, 1, NULL), MBT_ERR_NOT_FOUND);
  assert_contains(mbt_contact_model_last_error(m), "no body 7");
  mbt_contact_material bad = mbt_contact_material_default();
  bad.dynamic_friction = 2;
  assert_int_equal(mbt_contact_model_add_sphere(m, a, NULL, 1, &bad), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_contact_model_last_error(m), "dynamic <= static");
  mbt_transform X = mbt_transform_identity();
  X.R.m[0][0] = 2;
  assert_int_equal(mbt_contact_model_add_capsule(m, a, &X, 1, 1, NULL), MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_contact_model_add_ground(m, mbt_vec3_zero(), 0, NULL), MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_contact_model_num_shapes(m), 0);
  /* Contact needs the time-stepping integrator. */
  mbt_context* ctx = mbt_context_create(tree);
  mbt_simulator* sim = mbt_simulator_create(tree, ctx, NULL);
  assert_int_equal(mbt_simulator_set_contact_model(sim, m), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_simulator_last_error(sim), "time_stepping");
  assert_int_equal(mbt_simulator_set_contact_solver(sim, 10, 1e-6), MBT_ERR_INVALID_ARGUMENT);
  assert_int_equal(mbt_simulator_set_contact_solver_method(sim, MBT_CONTACT_SOLVER_PGS), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_simulator_last_error(sim), "no contact model");
  assert_int_equal(mbt_simulator_set_contact_solver_method(sim, (mbt_contact_solver_method)7), MBT_ERR_INVALID_ARGUMENT);
  assert_contains(mbt_simulator_last_error(sim), "unknown method 7");
  mbt_simulator_destroy(sim);
  assert_int_equal(mbt_integrator_from_name("time_stepping"), MBT_INTEGRATOR_TIME_STEPPING);
  mbt_context_destroy(ctx);
  mbt_contact_model_destroy(m);
  mbt_tree_destroy(tree);
}

static mbt_contact_solver_method SAP = MBT_CONTACT_SOLVER_SAP, PGS = MBT_CONTACT_SOLVER_PGS;

#define BOTH(test) cmocka_unit_test_prestate(test, &SAP), cmocka_unit_test_prestate(test, &PGS)

int main(void) {
  const struct CMUnitTest tests[] = {
      BOTH(test_cube_comes_to_rest), BOTH(test_incline_sticks),
      BOTH(test_incline_slides),     BOTH(test_sphere_rolls),
      BOTH(test_free_collisions_conserve_momentum), cmocka_unit_test(test_filters_and_errors),
      BOTH(test_light_body_on_its_limit),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
