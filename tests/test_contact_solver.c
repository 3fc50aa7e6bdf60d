/* The contact solver (src/contact/contact_internal.h, mbt__solve_contact_problem):
 *   - one contact on a point mass (W = I/m): the closed-form compliant normal impulse, stick
 *     below the static cone, sliding at μ_d·γ_n opposite the slip above it, nothing when the
 *     contact separates;
 *   - random coupled problems (W = J·M⁻¹·Jᵀ of random J (3nc × 12, nc <= 4) and M): every contact
 *     satisfies its normal complementarity, its friction cone, v_t = 0 where it sticks, and
 *     where it slides γ_t = −μ_d·γ_n·v̂_t with v_t the slip after the step;
 *   - a warm start at the solution converges again. */
#include "support/test_util.h"

#include "contact/contact_internal.h"

static const mbt__contact_solver_options OPT = {2000, 1e-13};

typedef struct {
  double W[9], vc_star[3], b_n[1], R_n[1], mu_s[1], mu_d[1];
  bool sliding[1];
} one_problem;

static mbt__contact_problem one(one_problem* s, double m, mbt_vec3 v, double b, double R, double mus, double mud) {
  memset(s, 0, sizeof *s);
  for (int i = 0; i < 3; ++i) s->W[4 * i] = 1 / m;
  for (int i = 0; i < 3; ++i) s->vc_star[i] = v.v[i];
  s->b_n[0] = b;
  s->R_n[0] = R;
  s->mu_s[0] = mus;
  s->mu_d[0] = mud;
  const mbt__contact_problem p = {1, s->W, s->vc_star, s->b_n, s->R_n, s->mu_s, s->mu_d, s->sliding};
  return p;
}

static void test_point_mass(void** state) {
  (void)state;
  one_problem s;
  double g[3], vc[3];
  const double m = 2, R = 0.05, b = 0.01;
  /* Approaching at 1 m/s, sliding at 0.1 m/s: γ_n = (b − v_n)/(1/m + R); the stick impulse
   * m·0.1 = 0.2 exceeds μ_s·γ_n = 0.1·1.8363... so it slides at μ_d·γ_n. */
  mbt__contact_problem p = one(&s, m, mbt_vec3_make(-1, 0.06, 0.08), b, R, 0.1, 0.08);
  memset(g, 0, sizeof g);
  mbt__contact_solver_stats st = mbt__solve_contact_problem(&p, &OPT, g, vc);
  assert_true(st.converged);
  const double gn = (b + 1) / (1 / m + R);
  assert_near(g[0], gn, 1e-12);
  assert_near(g[1], -0.08 * gn * 0.6, 1e-12);
  assert_near(g[2], -0.08 * gn * 0.8, 1e-12);
  assert_near(vc[0], -1 + gn / m, 1e-12);
  /* Larger friction: it sticks, v_t⁺ = 0 exactly. */
  p = one(&s, m, mbt_vec3_make(-1, 0.06, 0.08), b, R, 0.5, 0.4);
  memset(g, 0, sizeof g);
  st = mbt__solve_contact_problem(&p, &OPT, g, vc);
  assert_near(g[1], -m * 0.06, 1e-12);
  assert_near(g[2], -m * 0.08, 1e-12);
  assert_near(vc[1], 0, 1e-14);
  assert_near(vc[2], 0, 1e-14);
  /* Separating faster than b: no impulse at all. */
  p = one(&s, m, mbt_vec3_make(0.5, 0.3, 0), b, R, 0.5, 0.4);
  g[0] = 1, g[1] = 2, g[2] = 3; /* a warm start that does not apply */
  st = mbt__solve_contact_problem(&p, &OPT, g, vc);
  assert_near(g[0], 0, 0);
  assert_near(g[1], 0, 0);
  assert_near(vc[1], 0.3, 1e-14);
}

/* W = J·M⁻¹·Jᵀ with M = A·Aᵀ + I (n×n), J (3nc×n) random. */
static void random_delassus(int nc, int n, double* W) {
  double A[12 * 12], M[12 * 12], J[30 * 12], Y[30 * 12];
  tu_rand_array(A, n * n, 1);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      double s = i == j;
      for (int k = 0; k < n; ++k) s += A[i * n + k] * A[j * n + k];
      M[i * n + j] = s;
    }
  tu_rand_array(J, 3 * nc * n, 1);
  /* Y = M⁻¹·Jᵀ column by column. */
  for (int r = 0; r < 3 * nc; ++r) {
    double Mc[12 * 12], b[12];
    memcpy(Mc, M, sizeof(double) * (size_t)(n * n));
    for (int i = 0; i < n; ++i) b[i] = J[r * n + i];
    assert_int_equal(tu_solve(Mc, b, n), 0);
    for (int i = 0; i < n; ++i) Y[r * n + i] = b[i];
  }
  for (int r = 0; r < 3 * nc; ++r)
    for (int c = 0; c < 3 * nc; ++c) {
      double s = 0;
      for (int i = 0; i < n; ++i) s += J[r * n + i] * Y[c * n + i];
      W[r * 3 * nc + c] = s;
    }
}

static void test_random_problems(void** state) {
  (void)state;
  enum { NC = 4 };
  int sticking = 0, sliding = 0, open = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int nc = 1 + trial % NC, n = 12;
    double W[900], vs[30], b[NC], R[NC], mus[NC], mud[NC], g[30], vc[30];
    bool sl[NC];
    random_delassus(nc, n, W);
    tu_rand_array(vs, 3 * nc, 1);
    for (int i = 0; i < nc; ++i) {
      b[i] = tu_uniform(0, 0.1);
      R[i] = tu_uniform(0.01, 0.1);
      mus[i] = tu_uniform(0.2, 1);
      mud[i] = mus[i] * tu_uniform(0.7, 1);
    }
    const mbt__contact_problem p = {nc, W, vs, b, R, mus, mud, sl};
    memset(g, 0, sizeof g);
    const mbt__contact_solver_stats st = mbt__solve_contact_problem(&p, &OPT, g, vc);
    assert_true(st.converged);
    double scale = 1e-300;
    for (int k = 0; k < 3 * nc; ++k) scale = fmax(scale, fabs(g[k]));
    const double tol = 1e-9 * (1 + scale);
    for (int i = 0; i < nc; ++i) {
      const double gn = g[3 * i], gt = hypot(g[3 * i + 1], g[3 * i + 2]);
      const double res = vc[3 * i] + R[i] * gn - b[i];
      assert_true(gn >= 0);
      assert_true(res >= -tol);
      if (gn > 0) assert_near(res, 0, tol);
      assert_true(gt <= mus[i] * gn + tol);
      const double vt = hypot(vc[3 * i + 1], vc[3 * i + 2]);
      if (gn == 0) {
        ++open;
      } else if (vt <= tol) { /* sticking: anywhere in the static cone */
        ++sticking;
      } else { /* sliding: on the dynamic circle, opposing the slip after the step */
        ++sliding;
        assert_near(gt, mud[i] * gn, tol);
        assert_near(g[3 * i + 1] * vt, -gt * vc[3 * i + 1], 1e-7 * (1 + gt * vt));
        assert_near(g[3 * i + 2] * vt, -gt * vc[3 * i + 2], 1e-7 * (1 + gt * vt));
      }
    }
    /* Warm start at the solution: it converges again. */
    const mbt__contact_solver_stats st2 = mbt__solve_contact_problem(&p, &OPT, g, vc);
    assert_true(st2.converged);
  }
  assert_true(sticking > 0 && sliding > 0 && open > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_point_mass), cmocka_unit_test(test_random_problems)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
