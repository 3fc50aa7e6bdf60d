/* The convex contact solver (src/contact/sap_solver.c, mbt__solve_contact_sap) and its
 * convergence in the simulator:
 *   - one contact on a point mass (M = m·I, J = I): the closed-form impulses where it sticks
 *     (γ_n = (b_n − v_n)/R_n, γ_t = −v_t/R_t), nothing where it separates, and where it slides
 *     the closed form γ_t = −μ·n0·v̂_t with the slip after the step;
 *   - random coupled problems (random M (12 × 12), J (3nc × 12), nc <= 8, biases, compliances,
 *     μ and lagged normal impulses n0, some frictionless rows): converged to 1e-12 within 30
 *     Newton iterations, the momentum balance M·(v − v*) = Jᵀ·γ, every contact's normal law
 *     and, by its friction region, the stiction law or the sliding law (‖γ_t‖ = μ·n0 opposite
 *     the slip);
 *   - a start at the solution takes no iteration;
 *   - pressing scenes in the simulator, where projected Gauss–Seidel stops at its sweep limit:
 *     the Franka Panda released onto the ground and Solo12 dropped without control fold onto
 * *   the ground: every step converges (residual below the tolerance 1e-10), in few iterations on
 *     average, and the Panda comes to rest on the ground, not through it. */
#include "support/test_util.h"

#include "algorithms/cholesky_internal.h"
#include "contact/contact_internal.h"

#define NV_MAX 12
#define NC_MAX 8

typedef struct {
  double M[NV_MAX * NV_MAX], J[3 * NC_MAX * NV_MAX], v_star[NV_MAX];
  double b_n[NC_MAX], R_n[NC_MAX], R_t[NC_MAX], mu[NC_MAX], n0[NC_MAX], W[9 * NC_MAX * NC_MAX];
  int nz[NC_MAX * NV_MAX], nnz[NC_MAX];
  /* the workspace */
  double H[NV_MAX * NV_MAX], grad[NV_MAX], dv[NV_MAX], Mdv[NV_MAX], jtg[NV_MAX], GJ[3 * NV_MAX];
  double vc[3 * NC_MAX], dvc[3 * NC_MAX], gamma[3 * NC_MAX], G[9 * NC_MAX];
} sap_case;

static mbt__sap_problem problem(sap_case* s, int nv, int nc, mbt__sap_workspace* w) {
  for (int i = 0; i < nc; ++i) {
    s->nnz[i] = nv;
    for (int k = 0; k < nv; ++k) s->nz[i * nv + k] = k;
  }
  const mbt__sap_workspace ws = {s->H, s->grad, s->dv, s->Mdv, s->jtg, s->GJ, s->vc, s->dvc, s->gamma, s->G};
  *w = ws;
  const mbt__sap_problem p = {nv, nc, s->M, s->J, s->nz, s->nnz, s->v_star, s->b_n, s->R_n, s->R_t, s->mu, s->n0};
  return p;
}

/* A point mass m at velocity v* with one contact (n = z, t1 = x, t2 = y of J = I), friction
 * bound μ·n0. */
static mbt__sap_problem point_mass(sap_case* s, double m, mbt_vec3 v, double b, double Rn, double mu, double n0,
                                   mbt__sap_workspace* w) {
  memset(s, 0, sizeof *s);
  for (int i = 0; i < 3; ++i) s->M[4 * i] = m;
  s->J[2] = s->J[3 + 0] = s->J[6 + 1] = 1; /* rows n = z, t1 = x, t2 = y */
  for (int i = 0; i < 3; ++i) s->v_star[i] = v.v[i];
  s->b_n[0] = b, s->R_n[0] = Rn, s->mu[0] = mu, s->n0[0] = n0;
  for (int i = 0; i < 3; ++i) s->W[4 * i] = 1 / m;
  mbt__sap_friction_compliance(s->W, 1, s->mu, s->R_t);
  return problem(s, 3, 1, w);
}

static const mbt__contact_solver_options OPT = {50, 1e-13};

static void test_point_mass(void** state) {
  (void)state;
  sap_case s;
  mbt__sap_workspace w;
  const double m = 2, Rn = 0.05, b = 0.01, n0 = 1.8;
  /* Approaching at 1 m/s with a slip of 0.1 m/s, μ·n0 = 0.9: it sticks,
   * γ_n = (b − v_n⁺)/R_n, γ_t = −v_t⁺/R_t with v⁺ = v* + γ/m. */
  mbt__sap_problem p = point_mass(&s, m, mbt_vec3_make(0.06, 0.08, -1), b, Rn, 0.5, n0, &w);
  assert_near(s.R_t[0], 1e-3 / m, 1e-18);
  double v[3] = {0.06, 0.08, -1};
  mbt__contact_solver_stats st = mbt__solve_contact_sap(&p, &OPT, &w, v);
  assert_true(st.converged);
  const double Rt = s.R_t[0], gn = (b + 1) / (1 / m + Rn);
  assert_near(w.gamma[0], gn, 1e-12);
  assert_near(w.gamma[1], -0.06 / (1 / m + Rt), 1e-12);
  assert_near(w.gamma[2], -0.08 / (1 / m + Rt), 1e-12);
  assert_near(v[2], -1 + gn / m, 1e-12);
  assert_near(v[0], -Rt * w.gamma[1], 1e-14); /* the regularization's slip */
  /* μ·n0 = 0.09 < m·0.1: it slides, γ_t = −0.09·v̂_t and v_t⁺ = v_t* + γ_t/m along v_t*. */
  p = point_mass(&s, m, mbt_vec3_make(0.06, 0.08, -1), b, Rn, 0.05, n0, &w);
  v[0] = 0.06, v[1] = 0.08, v[2] = -1;
  st = mbt__solve_contact_sap(&p, &OPT, &w, v);
  assert_true(st.converged);
  assert_near(w.gamma[0], gn, 1e-12);
  assert_near(w.gamma[1], -0.09 * 0.6, 1e-12);
  assert_near(w.gamma[2], -0.09 * 0.8, 1e-12);
  assert_near(v[0], 0.06 - 0.09 * 0.6 / m, 1e-12);
  assert_near(v[1], 0.08 - 0.09 * 0.8 / m, 1e-12);
  /* Separating faster than b: no normal impulse, friction still bounded by μ·n0. */
  p = point_mass(&s, m, mbt_vec3_make(0.3, 0, 0.5), b, Rn, 0.5, 0, &w);
  v[0] = 0, v[1] = 0, v[2] = -2;
  st = mbt__solve_contact_sap(&p, &OPT, &w, v);
  assert_true(st.converged);
  assert_near(w.gamma[0], 0, 0);
  assert_near(w.gamma[1], 0, 0);
  assert_near(v[0], 0.3, 1e-14);
  assert_near(v[2], 0.5, 1e-14);
}

/* M = A·Aᵀ + I, J random, W = J·M⁻¹·Jᵀ (for R_t), v* random; some rows frictionless. */
static void random_case(sap_case* s, int nv, int nc, unsigned seed) {
  memset(s, 0, sizeof *s);
  double A[NV_MAX * NV_MAX], Y[3 * NC_MAX * NV_MAX], x[3 * NC_MAX];
  tu_seed(seed);
  tu_rand_array(A, nv * nv, 1);
  for (int i = 0; i < nv; ++i)
    for (int j = 0; j < nv; ++j) {
      double t = i == j;
      for (int k = 0; k < nv; ++k) t += A[i * nv + k] * A[j * nv + k];
      s->M[i * nv + j] = t;
    }
  tu_rand_array(s->J, 3 * nc * nv, 1);
  tu_rand_array(s->v_star, nv, 1);
  tu_rand_array(x, 3 * nc, 1);
  /* Y = M⁻¹·Jᵀ by columns (Cholesky of a copy). */
  double L[NV_MAX * NV_MAX];
  memcpy(L, s->M, sizeof(double) * (size_t)(nv * nv));
  assert_int_equal(mbt__cholesky_factor_ex(L, nv, nv, NULL, NULL), MBT_OK);
  for (int r = 0; r < 3 * nc; ++r) {
    double col[NV_MAX];
    memcpy(col, s->J + r * nv, sizeof(double) * (size_t)nv);
    mbt__cholesky_solve_ex(L, nv, nv, col);
    for (int k = 0; k < nv; ++k) Y[k * 3 * nc + r] = col[k];
  }
  for (int r = 0; r < 3 * nc; ++r)
    for (int q = 0; q < 3 * nc; ++q) {
      double t = 0;
      for (int k = 0; k < nv; ++k) t += s->J[r * nv + k] * Y[k * 3 * nc + q];
      s->W[r * 3 * nc + q] = t;
    }
  for (int i = 0; i < nc; ++i) {
    s->b_n[i] = 0.5 * x[3 * i];
    s->R_n[i] = 0.01 + 0.1 * fabs(x[3 * i + 1]);
    s->mu[i] = i % 4 == 3 ? 0 : 0.2 + 0.8 * fabs(x[3 * i + 2]);
    s->n0[i] = i % 3 == 2 ? 0 : 0.5 * fabs(x[3 * i + 1] + x[3 * i + 2]);
  }
  mbt__sap_friction_compliance(s->W, nc, s->mu, s->R_t);
}

/* The conditions of the minimum, checked without the solver's projection. */
static void check_solution(const sap_case* s, int nv, int nc, const double* v, const mbt__sap_workspace* w) {
  double scale = 1e-12;
  for (int k = 0; k < nv; ++k) {
    double Mdv = 0, jtg = 0;
    for (int j = 0; j < nv; ++j) Mdv += s->M[k * nv + j] * (v[j] - s->v_star[j]);
    for (int r = 0; r < 3 * nc; ++r) jtg += s->J[r * nv + k] * w->gamma[r];
    scale = fmax(scale, fabs(jtg));
    assert_near(Mdv, jtg, 1e-9 * (1 + fabs(jtg)));
  }
  for (int i = 0; i < nc; ++i) {
    const double* g = w->gamma + 3 * i;
    double vc[3] = {0, 0, 0};
    for (int r = 0; r < 3; ++r)
      for (int k = 0; k < nv; ++k) vc[r] += s->J[(3 * i + r) * nv + k] * v[k];
    const double gt = hypot(g[1], g[2]), bound = s->mu[i] * s->n0[i], tol = 1e-9 * scale;
    /* The normal law. */
    assert_near(g[0], fmax(0, (s->b_n[i] - vc[0]) / s->R_n[i]), 1e-8 * (1 + g[0]));
    assert_true(gt <= bound + tol);
    if (bound == 0) {
      assert_true(gt == 0);
    } else if (gt < bound - tol) { /* sticking: the regularization's slip */
      assert_near(g[1], -vc[1] / s->R_t[i], 1e-7 * (1 + gt));
      assert_near(g[2], -vc[2] / s->R_t[i], 1e-7 * (1 + gt));
    } else { /* sliding: γ_t opposite the slip */
      const double slip = hypot(vc[1], vc[2]);
      assert_true(slip >= s->R_t[i] * bound * (1 - 1e-6));
      assert_near(g[1] * vc[1] + g[2] * vc[2], -gt * slip, 1e-8 * (1 + gt * slip));
    }
  }
}

static void test_random_problems(void** state) {
  (void)state;
  int seen_iterations = 0, cases = 0;
  for (int nc = 1; nc <= NC_MAX; ++nc)
    for (unsigned seed = 1; seed <= 20; ++seed) {
      sap_case s;
      mbt__sap_workspace w;
      const int nv = NV_MAX;
      random_case(&s, nv, nc, 100 * seed + (unsigned)nc);
      const mbt__sap_problem p = problem(&s, nv, nc, &w);
      double v[NV_MAX];
      memcpy(v, s.v_star, sizeof v);
      const mbt__contact_solver_options opt = {30, 1e-12};
      const mbt__contact_solver_stats st = mbt__solve_contact_sap(&p, &opt, &w, v);
      assert_true(st.converged);
      assert_true(st.residual <= 1e-12);
      check_solution(&s, nv, nc, v, &w);
      /* From the solution: converged at once. */
      const mbt__contact_solver_stats again = mbt__solve_contact_sap(&p, &opt, &w, v);
      assert_true(again.converged);
      assert_int_equal(again.iterations, 0);
      seen_iterations += st.iterations;
      ++cases;
    }
  print_message("random problems: %.1f Newton iterations on average\n", (double)seen_iterations / cases);
}

/* ---- pressing scenes in the simulator ----------------------------------------------------- */
typedef struct {
  const char* model;
  int flags;
  const char* joints[9];
  double q[9];
  double duration;
} scene;

static mbt_simulator_stats run_scene(const scene* sc, mbt_contact_solver_method method, double* z_min) {
  mbt_urdf_result r;
  assert_int_equal(mbt_urdf_load_file(sc->model, sc->flags, &r), MBT_OK);
  mbt_tree* tree = r.tree;
  mbt_contact_model* model = mbt_contact_model_create(tree);
  assert_true(mbt_contact_model_add_collision_geometry(model, NULL) > 0);
  assert_true(mbt_contact_model_add_ground(model, mbt_vec3_make(0, 0, 1), 0, NULL) >= 0);
  mbt_context* ctx = mbt_context_create(tree);
  for (int k = 0; k < 9 && sc->joints[k]; ++k) {
    const int j = mbt_tree_joint_by_name(tree, sc->joints[k]);
    assert_true(j >= 0);
    assert_int_equal(mbt_joint_set_positions(ctx, j, &sc->q[k], 1), MBT_OK);
  }
  if (sc->flags & MBT_URDF_FLOATING) { /* lifted 5 cm above the ground */
    double zl = 0;
    assert_int_equal(mbt_contact_model_calc_lowest_point(model, ctx, &zl), MBT_OK);
    int root = 0;
    while (mbt_joint_type_of(tree, root) != MBT_JOINT_QUATERNION_FLOATING) ++root;
    mbt_real x[7];
    memcpy(x, mbt_joint_positions(ctx, root), sizeof x);
    x[6] += 0.05 - zl;
    assert_int_equal(mbt_joint_set_positions(ctx, root, x, 7), MBT_OK);
  }
  mbt_simulator_options opt = mbt_simulator_default_options();
  opt.integrator = MBT_INTEGRATOR_TIME_STEPPING;
  opt.dt = 1e-3;
  mbt_simulator* sim = mbt_simulator_create(tree, ctx, &opt);
  assert_int_equal(mbt_simulator_set_contact_model(sim, model), MBT_OK);
  assert_int_equal(mbt_simulator_set_contact_solver_method(sim, method), MBT_OK);
  assert_int_equal(mbt_simulator_advance_to(sim, sc->duration), MBT_OK);
  assert_int_equal(mbt_contact_model_calc_lowest_point(model, mbt_simulator_context(sim), z_min), MBT_OK);
  const mbt_simulator_stats st = mbt_simulator_get_stats(sim);
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_contact_model_destroy(model);
  mbt_urdf_result_free(&r);
  return st;
}

static void check_converges(const scene* sc) {
  if (!mbt__mesh_hulls_available()) skip();
  double z_min = 0;
  const mbt_simulator_stats st = run_scene(sc, MBT_CONTACT_SOLVER_SAP, &z_min);
  const double per_step = (double)st.contact_iterations / (double)st.steps_taken;
  print_message("%s: %ld steps, %.2f Newton iterations per step, largest residual %.2g, lowest point %.4g m\n",
                sc->model, st.steps_taken, per_step, st.contact_residual_max, z_min);
  assert_true(st.contact_points > 0);
  assert_int_equal(st.contact_unconverged, 0);
  assert_true(st.contact_residual_max <= 1e-10); /* the default tolerance */
  assert_true(per_step < 10);
  /* On the ground, not through it: the lowest collision point within 5 mm of z = 0. */
  assert_true(z_min > -5e-3 && z_min < 5e-3);
}

static void test_panda_on_the_ground(void** state) {
  (void)state;
  const scene sc = {MBT_SOURCE_DIR "/models/panda.urdf", 0,
                    {"panda_joint1", "panda_joint2", "panda_joint3", "panda_joint4", "panda_joint5", "panda_joint6",
                     "panda_joint7", "panda_finger_joint1", "panda_finger_joint2"},
                    {0.3, 0.5, -0.2, -1.2, 0.4, 1.8, 0.8, 0.02, 0.02},
                    3.0};
  check_converges(&sc);
}

static void test_solo12_folds_onto_the_ground(void** state) {
  (void)state;
  const scene sc = {MBT_SOURCE_DIR "/models/solo12.urdf", MBT_URDF_FLOATING, {NULL}, {0}, 1.0};
  check_converges(&sc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_point_mass),
      cmocka_unit_test(test_random_problems),
      cmocka_unit_test(test_panda_on_the_ground),
      cmocka_unit_test(test_solo12_folds_onto_the_ground),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
