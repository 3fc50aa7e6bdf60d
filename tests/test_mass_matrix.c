/* test_mass_matrix.c: CalcMassMatrix (CRBA, Featherstone §6.2) and
 * CalcMassMatrixViaInverseDynamics: symmetric, positive definite, equal to each other to
 * 1e-12 relative, ½·vᵀ·M·v = kinetic energy, zero where two bodies share no path to the world;
 * and the gravity generalized forces equal Σ J_WBcmᵀ·m·g. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "support/test_util.h"

#define NMAX 64

/* In-place Cholesky (lower); false if not positive definite. */
static bool cholesky(double* A, int n) {
  for (int j = 0; j < n; ++j) {
    double d = A[j * n + j];
    for (int k = 0; k < j; ++k) d -= A[j * n + k] * A[j * n + k];
    if (!(d > 0)) return false;
    A[j * n + j] = sqrt(d);
    for (int i = j + 1; i < n; ++i) {
      double s = A[i * n + j];
      for (int k = 0; k < j; ++k) s -= A[i * n + k] * A[j * n + k];
      A[i * n + j] = s / A[j * n + j];
    }
  }
  return true;
}

static double g_worst_rel = 0;

static void check_tree(mbt_tree* tree) {
  assert_non_null(tree);
  mbt_context* ctx = mbt_context_create(tree);
  assert_non_null(ctx);
  const int nv = mbt_tree_num_velocities(tree);
  static double M[NMAX * NMAX], Mid[NMAX * NMAX], L[NMAX * NMAX];
  for (int trial = 0; trial < 10; ++trial) {
    tu_rand_state(tree, ctx);
    assert_int_equal(mbt_calc_mass_matrix(tree, ctx, M), MBT_OK);
    assert_int_equal(mbt_calc_mass_matrix_via_inverse_dynamics(tree, ctx, Mid), MBT_OK);
    const double scale = tu_max_abs(M, nv * nv);
    assert_true(scale > 0);
    for (int i = 0; i < nv; ++i)
      for (int j = 0; j < nv; ++j) {
        const double d = fabs(M[i * nv + j] - Mid[i * nv + j]) / scale;
        g_worst_rel = fmax(g_worst_rel, d);
        if (d > 1e-12) fail_msg("M[%d][%d]: CRBA %.17g, ID %.17g", i, j, M[i * nv + j], Mid[i * nv + j]);
        if (M[i * nv + j] != M[j * nv + i]) fail_msg("CRBA not symmetric at %d,%d", i, j);
        if (fabs(Mid[i * nv + j] - Mid[j * nv + i]) > 1e-12 * scale) fail_msg("ID M not symmetric at %d,%d", i, j);
      }
    memcpy(L, M, sizeof(double) * nv * nv);
    assert_true(cholesky(L, nv));
    /* ½·vᵀ·M·v = K. */
    const mbt_real* v = mbt_context_v(ctx);
    double vMv = 0;
    for (int i = 0; i < nv; ++i)
      for (int j = 0; j < nv; ++j) vMv += v[i] * M[i * nv + j] * v[j];
    mbt_real K;
    assert_int_equal(mbt_calc_kinetic_energy(tree, ctx, &K), MBT_OK);
    if (fabs(0.5 * vMv - K) > 1e-13 * fmax(1, K)) fail_msg("K = %.17g, ½vᵀMv = %.17g", K, 0.5 * vMv);
    /* M = Σ_B J_WBᵀ·M_Bo_W·J_WB, from the Jacobians at Bo (independent of the recursion). */
    static double Ms[NMAX * NMAX], J[6 * NMAX];
    memset(Ms, 0, sizeof(double) * nv * nv);
    for (int b = 1; b < mbt_tree_num_bodies(tree); ++b) {
      assert_int_equal(mbt_calc_jacobian_spatial_velocity(tree, ctx, mbt_tree_body_frame(tree, b), mbt_vec3_zero(), J),
                       MBT_OK);
      mbt_spatial_inertia Mw;
      assert_int_equal(mbt_context_body_spatial_inertia_in_world(tree, ctx, b, &Mw), MBT_OK);
      for (int c = 0; c < nv; ++c) {
        /* L = M_Bo_W·J_c = [m·(G·w + p × v); m·(v − p × w)] */
        const mbt_vec3 w = mbt_vec3_make(J[0 * nv + c], J[1 * nv + c], J[2 * nv + c]);
        const mbt_vec3 u = mbt_vec3_make(J[3 * nv + c], J[4 * nv + c], J[5 * nv + c]);
        const mbt_unit_inertia* G = &Mw.G_SP_E;
        const mbt_vec3 Gw = mbt_vec3_make(G->xx * w.v[0] + G->xy * w.v[1] + G->xz * w.v[2],
                                          G->xy * w.v[0] + G->yy * w.v[1] + G->yz * w.v[2],
                                          G->xz * w.v[0] + G->yz * w.v[1] + G->zz * w.v[2]);
        const mbt_vec3 h = mbt_vec3_scale(mbt_vec3_add(Gw, mbt_vec3_cross(Mw.p_PScm_E, u)), Mw.mass);
        const mbt_vec3 l = mbt_vec3_scale(mbt_vec3_sub(u, mbt_vec3_cross(Mw.p_PScm_E, w)), Mw.mass);
        for (int r = 0; r < nv; ++r)
          Ms[r * nv + c] += J[0 * nv + r] * h.v[0] + J[1 * nv + r] * h.v[1] + J[2 * nv + r] * h.v[2] +
                            J[3 * nv + r] * l.v[0] + J[4 * nv + r] * l.v[1] + J[5 * nv + r] * l.v[2];
      }
    }
    for (int i = 0; i < nv * nv; ++i)
      if (fabs(Ms[i] - M[i]) > 1e-12 * scale) fail_msg("M[%d] = %.17g, ΣJᵀMJ = %.17g", i, M[i], Ms[i]);
    /* Gravity: tau_g = Σ J_WBcmᵀ·m·g. */
    mbt_real tg[NMAX], te[NMAX] = {0};
    assert_int_equal(mbt_calc_gravity_generalized_forces(tree, ctx, tg), MBT_OK);
    const mbt_vec3 g = mbt_tree_gravity(tree);
    for (int b = 1; b < mbt_tree_num_bodies(tree); ++b) {
      const mbt_spatial_inertia* Mb = mbt_tree_body_spatial_inertia(tree, b);
      assert_int_equal(mbt_calc_jacobian_spatial_velocity(tree, ctx, mbt_tree_body_frame(tree, b), Mb->p_PScm_E, J),
                       MBT_OK);
      for (int c = 0; c < nv; ++c)
        for (int r = 0; r < 3; ++r) te[c] += J[(3 + r) * nv + c] * Mb->mass * g.v[r];
    }
    for (int i = 0; i < nv; ++i) if (fabs(tg[i] - te[i]) > 1e-12 * 10) fail_msg("tau_g[%d] %.17g vs %.17g", i, tg[i], te[i]);
  }
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

static void test_branched_mobilizer_tree(void** s) {
  (void)s;
  tu_seed(21);
  for (int k = 0; k < 5; ++k) check_tree(tu_make_branched_tree());
}

static void test_joint_tree(void** s) {
  (void)s;
  tu_seed(22);
  for (int k = 0; k < 5; ++k) check_tree(tu_make_joint_tree());
}

static void test_shipped_models(void** s) {
  (void)s;
  tu_seed(24);
  for (int k = 0; k < TU_NUM_MODELS; ++k) check_tree(tu_load_model(tu_models[k]));
}

/* A chain of `trunk` revolute bodies with two limbs of `limb` bodies on its tip (revolute, every
 * fourth prismatic), not finalized. */
static mbt_tree* trunk_with_two_limbs(int trunk, int limb) {
  mbt_tree* tree = mbt_tree_create();
  const int tip = tu_add_chain(tree, "t", trunk, false);
  for (int k = 0; k < 2; ++k) {
    int parent = tip;
    for (int i = 0; i < limb; ++i) {
      char name[16];
      snprintf(name, sizeof name, "%c%d", k ? 'a' : 'b', i);
      parent = tu_add_body_with_mobilizer(tree, name, parent, i % 4 == 1 ? MBT_MOBILIZER_PRISMATIC : MBT_MOBILIZER_REVOLUTE,
                                          i % 2 == 0);
      assert_true(parent > 0);
    }
  }
  return tree;
}

/* A long serial chain of revolute and prismatic joints (depth 45), a trunk of 12 with two limbs of 20, and a star (30 children of the
 * world). */
static void test_chain_and_star(void** s) {
  (void)s;
  tu_seed(23);
  mbt_tree* chain = mbt_tree_create();
  tu_add_chain(chain, "l", 45, true);
  assert_int_equal(mbt_tree_finalize(chain), MBT_OK);
  check_tree(chain);
  mbt_tree* limbs = trunk_with_two_limbs(12, 20);
  assert_int_equal(mbt_tree_finalize(limbs), MBT_OK);
  check_tree(limbs);
  mbt_tree* star = mbt_tree_create();
  for (int i = 0; i < 30; ++i) {
    char name[16];
    snprintf(name, sizeof name, "s%d", i);
    assert_true(tu_add_body_with_mobilizer(star, name, 0, MBT_MOBILIZER_REVOLUTE, false) > 0);
  }
  assert_int_equal(mbt_tree_finalize(star), MBT_OK);
  /* Bodies on different branches do not couple: M is diagonal for the star. */
  mbt_context* ctx = mbt_context_create(star);
  static double M[30 * 30];
  tu_rand_state(star, ctx);
  assert_int_equal(mbt_calc_mass_matrix(star, ctx, M), MBT_OK);
  for (int i = 0; i < 30; ++i)
    for (int j = 0; j < 30; ++j)
      if (i != j) assert_true(M[i * 30 + j] == 0);
  mbt_context_destroy(ctx);
  check_tree(star);
  printf("worst relative |M_CRBA − M_ID|/max|M|: %.3g\n", g_worst_rel);
}

/* A chain of n revolute bodies on the world. */
static mbt_tree* plain_chain(int n) {
  mbt_tree* chain = mbt_tree_create();
  tu_add_chain(chain, "s", n, true);
  return chain;
}

/* A floating base with a chain of n revolute and prismatic (every fifth) joints. */
static mbt_tree* floating_chain(int n) {
  mbt_tree* chain = mbt_tree_create();
  int parent = tu_add_body_with_mobilizer(chain, "base", 0, MBT_MOBILIZER_QUATERNION_FLOATING, true);
  assert_true(parent > 0);
  for (int i = 0; i < n; ++i) {
    char name[16];
    snprintf(name, sizeof name, "c%d", i);
    parent = tu_add_body_with_mobilizer(chain, name, parent, i % 5 == 2 ? MBT_MOBILIZER_PRISMATIC : MBT_MOBILIZER_REVOLUTE,
                                        i % 2 == 0);
    assert_true(parent > 0);
  }
  return chain;
}

/* A trunk of `trunk` bodies with three limbs of 230 at its tip (every seventh joint of limb k
 * revolute, universal or planar). */
static mbt_tree* trunk_with_three_limbs(int trunk) {
  mbt_tree* limbs = mbt_tree_create();
  const int tip = tu_add_chain(limbs, "t", trunk, true);
  static const mbt_mobilizer_type types[3] = {MBT_MOBILIZER_REVOLUTE, MBT_MOBILIZER_UNIVERSAL, MBT_MOBILIZER_PLANAR};
  for (int k = 0; k < 3; ++k) {
    int parent = tip;
    for (int i = 0; i < 230; ++i) {
      char name[16];
      snprintf(name, sizeof name, "l%d_%d", k, i);
      parent = tu_add_body_with_mobilizer(limbs, name, parent, i % 7 == 3 ? types[k] : MBT_MOBILIZER_REVOLUTE, i % 2 == 1);
      assert_true(parent > 0);
    }
  }
  return limbs;
}

/* M (CRBA) equal to Mid (by inverse dynamics) to 1e-12 of its largest entry, and symmetric bit
 * for bit. */
static void expect_matches_id(const double* M, const double* Mid, size_t nv, const char* what) {
  const double scale = tu_max_abs(Mid, (int)(nv * nv));
  for (size_t i = 0; i < nv; ++i)
    for (size_t j = 0; j < nv; ++j) {
      if (!(fabs(M[i * nv + j] - Mid[i * nv + j]) <= 1e-12 * scale))
        fail_msg("%s (nv %zu), M[%zu][%zu]: CRBA %.17g, ID %.17g", what, nv, i, j, M[i * nv + j], Mid[i * nv + j]);
      if (M[i * nv + j] != M[j * nv + i]) fail_msg("%s (nv %zu): CRBA not symmetric at %zu,%zu", what, nv, i, j);
    }
}

/* Every entry of M written, exactly symmetric and equal to the inverse-dynamics method's: chains
 * of 7, 8 and 150 (the rows walked as one run four at a time, the last two or three together, the
 * upper triangle stored with them); above 1024 velocities a dense M is written row by row, each row
 * whole, by streaming stores (128 without the four-row blocks: the upper triangle mirrored from the
 * lower one by tiles): a chain of 1030 (nv not a multiple of the 16-wide tiles, rows not aligned
 * to the 64-byte lines) and a trunk of 500 with two limbs of 300 (zero blocks between the limbs); a
 * sparse M (a binary tree of 200) is stored directly. */
static void check_every_entry(mbt_tree* tree) {
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  mbt_context* ctx = mbt_context_create(tree);
  const int nv = mbt_tree_num_velocities(tree);
  double* M = malloc(sizeof(double) * (size_t)nv * (size_t)nv);
  double* Mid = malloc(sizeof(double) * (size_t)nv * (size_t)nv);
  tu_rand_state(tree, ctx);
  for (int i = 0; i < nv * nv; ++i) M[i] = NAN; /* every entry must be written */
  assert_int_equal(mbt_calc_mass_matrix(tree, ctx, M), MBT_OK);
  assert_int_equal(mbt_calc_mass_matrix_via_inverse_dynamics(tree, ctx, Mid), MBT_OK);
  expect_matches_id(M, Mid, (size_t)nv, "every entry");
  free(M);
  free(Mid);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

static void test_mirrored(void** s) {
  (void)s;
  tu_seed(25);
  for (int n = 7; n <= 8; ++n) check_every_entry(plain_chain(n));
  for (int k = 0; k < 2; ++k) check_every_entry(plain_chain(k ? 1030 : 150));
  check_every_entry(trunk_with_two_limbs(500, 300));
  mbt_tree* binary = mbt_tree_create();
  int body[200];
  for (int i = 0; i < 200; ++i) {
    char name[16];
    snprintf(name, sizeof name, "n%d", i);
    body[i] = tu_add_body_with_mobilizer(binary, name, i ? body[(i - 1) / 2] : 0, MBT_MOBILIZER_REVOLUTE, i % 3 == 0);
    assert_true(body[i] > 0);
  }
  check_every_entry(binary);
}

/* Past nv = 1024, M's rows built whole and streamed: on a floating base (its six unit columns at
 * the top of every path, S = I) a chain of 1030 (one run), and a trunk of 400 with three limbs of
 * 230 whose nodes have one, two (universal) and three (planar) velocities (runs that end inside a
 * node, rows whose subtrees end at different velocities, zero blocks between the limbs). */
static void test_streamed(void** s) {
  (void)s;
  tu_seed(26);
  check_every_entry(floating_chain(1030));
  check_every_entry(trunk_with_three_limbs(400));
}

/* As check_every_entry, with M at each of the eight offsets from a 64-byte line (the streamed
 * tiles, their blocks cut where M's lines start, or for nv not a multiple of 8 each row's lines
 * at its own shift): every entry written, none outside M. */
static void check_every_offset(mbt_tree* tree) {
  assert_int_equal(mbt_tree_finalize(tree), MBT_OK);
  mbt_context* ctx = mbt_context_create(tree);
  const size_t nv = (size_t)mbt_tree_num_velocities(tree), n2 = nv * nv;
  double* buf = aligned_alloc(64, sizeof(double) * ((n2 + 16 + 7) / 8 * 8)); /* a multiple of 64 bytes */
  double* Mid = malloc(sizeof(double) * n2);
  tu_rand_state(tree, ctx);
  assert_int_equal(mbt_calc_mass_matrix_via_inverse_dynamics(tree, ctx, Mid), MBT_OK);
  for (size_t off = 0; off < 8; ++off) {
    for (size_t i = 0; i < n2 + 16; ++i) buf[i] = NAN;
    double* M = buf + off;
    assert_int_equal(mbt_calc_mass_matrix(tree, ctx, M), MBT_OK);
    for (size_t i = 0; i < n2 + 16; ++i)
      if ((i < off || i >= off + n2) && !isnan(buf[i])) fail_msg("offset %zu: written %zu outside M", off, i);
    char what[32];
    snprintf(what, sizeof what, "offset %zu", off);
    expect_matches_id(M, Mid, nv, what);
  }
  free(buf);
  free(Mid);
  mbt_context_destroy(ctx);
  mbt_tree_destroy(tree);
}

/* nv a multiple of 8 from 512 (and 256), M by 8×8 tiles streamed with their mirrors: a floating
 * base with a chain of 1034 (nv 1040), a trunk of 403 with three limbs as in test_streamed (nv
 * 1192: entries outside the ancestor paths zero), chains of 256 and 520. */
static void test_tiles(void** s) {
  (void)s;
  tu_seed(27);
  check_every_offset(floating_chain(1034));
  check_every_offset(trunk_with_three_limbs(403));
  for (int n = 256; n <= 520; n += 264) { /* from nv = 512 and at 256 (tiles_fit) */
    check_every_offset(plain_chain(n));
  }
}

/* nv past 1024 and not a multiple of 8, every line of M computed in place (on a processor with
 * AVX-512, or by two four-lane halves with AVX2 alone), the rows' lines at every shift from the columns: a floating base
 * with a chain of 1031 (nv 1037), a trunk of 400 with three limbs as in test_streamed (nv 1189:
 * entries outside the ancestor paths zero), chains of 1026, 1028 and 1030 (nv ≡ 2, 4, 6 mod 8) and
 * of 511, 513 and 1023 (lines_fit: the rows' column stride near a multiple of 4 KiB). */
static void test_lines_shifted(void** s) {
  (void)s;
  tu_seed(28);
  check_every_offset(floating_chain(1031));
  check_every_offset(trunk_with_three_limbs(400));
  static const int lengths[] = {1026, 1028, 1030, 511, 513, 1023};
  for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; ++i) {
    check_every_offset(plain_chain(lengths[i]));
  }
}

/* The streamed paths again with their AVX2 copies forced (MBT_NO_AVX512, cpu.c) on a processor with
 * AVX-512: every line in place by two four-lane halves (lines_shifted4), the tiles, the rows. */
static void test_streamed_avx2(void** s) {
  assert_int_equal(setenv("MBT_NO_AVX512", "1", 1), 0);
  test_streamed(s);
  test_tiles(s);
  test_lines_shifted(s);
  assert_int_equal(unsetenv("MBT_NO_AVX512"), 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_branched_mobilizer_tree),
      cmocka_unit_test(test_joint_tree),
      cmocka_unit_test(test_shipped_models),
      cmocka_unit_test(test_chain_and_star),
      cmocka_unit_test(test_mirrored),
      cmocka_unit_test(test_streamed),
      cmocka_unit_test(test_tiles),
      cmocka_unit_test(test_lines_shifted),
      cmocka_unit_test(test_streamed_avx2),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
