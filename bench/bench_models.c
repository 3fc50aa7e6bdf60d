/* bench_models.c: generated chains and binary trees (as URDF text and through the builder
 * API) and pre-generated random states. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define BENCH_PI 3.14159265358979323846

/* splitmix64 [Steele, Lea, Flood 2014]: deterministic and good enough for test states. */
static unsigned long long rng_next(unsigned long long* s) {
  unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
/* Uniform in [lo, hi). */
static double rng_uniform(unsigned long long* s, double lo, double hi) {
  const double u = (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
  return lo + (hi - lo) * u;
}

/* R = Rz(y)·Ry(p)·Rx(r) (URDF rpy). */
static mbt_mat3 rotation_from_rpy(const double rpy[3]) {
  const double cr = cos(rpy[0]), sr = sin(rpy[0]), cp = cos(rpy[1]), sp = sin(rpy[1]);
  const double cy = cos(rpy[2]), sy = sin(rpy[2]);
  mbt_mat3 R = {{{cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr},
                 {sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr},
                 {-sp, cp * sr, cp * cr}}};
  return R;
}

mbt_bench_link* mbt_bench_generate_links(mbt_bench_topology topology, int n) {
  if (n <= 0) return NULL;
  mbt_bench_link* links = calloc((size_t)n, sizeof *links);
  if (!links) return NULL;
  unsigned long long s = 0x6d6274ULL + (unsigned long long)topology * 7919ULL;
  for (int i = 0; i < n; ++i) {
    mbt_bench_link* l = &links[i];
    l->parent = topology == MBT_BENCH_CHAIN ? i - 1 : (i == 0 ? -1 : (i - 1) / 2);
    l->xyz[0] = rng_uniform(&s, -0.05, 0.05);
    l->xyz[1] = rng_uniform(&s, -0.05, 0.05);
    l->xyz[2] = rng_uniform(&s, 0.1, 0.3);
    for (int k = 0; k < 3; ++k) l->rpy[k] = rng_uniform(&s, -0.5, 0.5);
    /* Coordinate axes in turn z, y, x, as in most arms. */
    l->axis[0] = l->axis[1] = l->axis[2] = 0;
    l->axis[2 - i % 3] = 1;
    l->mass = rng_uniform(&s, 0.5, 2.0);
    l->com[0] = rng_uniform(&s, -0.05, 0.05);
    l->com[1] = rng_uniform(&s, -0.05, 0.05);
    l->com[2] = rng_uniform(&s, 0.0, 0.1);
    /* Central inertia diag(a, b, c), a, b, c in [0.02, 0.04] (triangle inequality holds),
     * principal axes along the link frame: MuJoCo stores inertias in principal axes found by
     * an iterative eigensolver, which for rotated inertias differs from the URDF numbers by
     * ~1e-9 and would blur the 1e-9 cross-check. About Bo the inertia is still full (the
     * center of mass is off the origin). */
    l->I[0] = rng_uniform(&s, 0.02, 0.04);
    l->I[1] = rng_uniform(&s, 0.02, 0.04);
    l->I[2] = rng_uniform(&s, 0.02, 0.04);
    l->I[3] = l->I[4] = l->I[5] = 0;
  }
  return links;
}

/* ---- URDF text ------------------------------------------------------------------------------ */
typedef struct {
  char* s;
  size_t len, cap;
  bool failed;
} strbuf;

static void sb_printf(strbuf* b, const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_printf(strbuf* b, const char* fmt, ...) {
  if (b->failed) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->failed = true;
      return;
    }
    if ((size_t)n < b->cap - b->len) {
      b->len += (size_t)n;
      return;
    }
    const size_t cap = 2 * b->cap + (size_t)n + 1;
    char* s = realloc(b->s, cap);
    if (!s) {
      b->failed = true;
      return;
    }
    b->s = s;
    b->cap = cap;
  }
}

char* mbt_bench_links_to_urdf(const mbt_bench_link* links, int n, const char* robot_name) {
  strbuf b = {malloc(4096), 0, 4096, false};
  if (!b.s) return NULL;
  b.s[0] = '\0';
  sb_printf(&b, "<?xml version=\"1.0\"?>\n<robot name=\"%s\">\n  <link name=\"world\"/>\n", robot_name);
  for (int i = 0; i < n; ++i) {
    const mbt_bench_link* l = &links[i];
    /* %.17g: both parsers read back exactly these doubles. */
    sb_printf(&b,
              "  <link name=\"l%d\">\n    <inertial>\n      <origin xyz=\"%.17g %.17g %.17g\" rpy=\"0 0 0\"/>\n"
              "      <mass value=\"%.17g\"/>\n"
              "      <inertia ixx=\"%.17g\" iyy=\"%.17g\" izz=\"%.17g\" ixy=\"%.17g\" ixz=\"%.17g\" iyz=\"%.17g\"/>\n"
              "    </inertial>\n  </link>\n",
              i, l->com[0], l->com[1], l->com[2], l->mass, l->I[0], l->I[1], l->I[2], l->I[3], l->I[4], l->I[5]);
    char parent[32];
    if (l->parent < 0)
      strcpy(parent, "world");
    else
      snprintf(parent, sizeof parent, "l%d", l->parent);
    sb_printf(&b,
              "  <joint name=\"j%d\" type=\"continuous\">\n    <parent link=\"%s\"/>\n    <child link=\"l%d\"/>\n"
              "    <origin xyz=\"%.17g %.17g %.17g\" rpy=\"%.17g %.17g %.17g\"/>\n"
              "    <axis xyz=\"%g %g %g\"/>\n  </joint>\n",
              i, parent, i, l->xyz[0], l->xyz[1], l->xyz[2], l->rpy[0], l->rpy[1], l->rpy[2], l->axis[0],
              l->axis[1], l->axis[2]);
  }
  sb_printf(&b, "</robot>\n");
  if (b.failed) {
    free(b.s);
    return NULL;
  }
  return b.s;
}

/* ---- the builder API --------------------------------------------------------------------- */
mbt_tree* mbt_bench_links_to_tree(const mbt_bench_link* links, int n) {
  mbt_tree* tree = mbt_tree_create();
  if (!tree) return NULL;
  int* body = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
  if (!body) {
    mbt_tree_destroy(tree);
    return NULL;
  }
  for (int i = 0; i < n; ++i) {
    const mbt_bench_link* l = &links[i];
    char name[32];
    /* M_BBo_B = {m, p_BoBcm, G_BBo}: G_BBo = I_Bcm/m + |c|²·1 − c·cᵀ (parallel axis). */
    const double* c = l->com;
    const double m = l->mass, cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    mbt_spatial_inertia M;
    M.mass = m;
    M.p_PScm_E = mbt_vec3_make(c[0], c[1], c[2]);
    M.G_SP_E.xx = l->I[0] / m + cc - c[0] * c[0];
    M.G_SP_E.yy = l->I[1] / m + cc - c[1] * c[1];
    M.G_SP_E.zz = l->I[2] / m + cc - c[2] * c[2];
    M.G_SP_E.xy = l->I[3] / m - c[0] * c[1];
    M.G_SP_E.xz = l->I[4] / m - c[0] * c[2];
    M.G_SP_E.yz = l->I[5] / m - c[1] * c[2];
    snprintf(name, sizeof name, "l%d", i);
    body[i] = mbt_tree_add_rigid_body(tree, name, &M);
    if (body[i] < 0) goto fail;
    mbt_transform X_PF;
    X_PF.R = rotation_from_rpy(l->rpy);
    X_PF.p = mbt_vec3_make(l->xyz[0], l->xyz[1], l->xyz[2]);
    snprintf(name, sizeof name, "j%d", i);
    const int parent = l->parent < 0 ? mbt_tree_world_body(tree) : body[l->parent];
    if (mbt_tree_add_revolute_joint(tree, name, parent, &X_PF, body[i], NULL,
                                    mbt_vec3_make(l->axis[0], l->axis[1], l->axis[2]), 0) < 0)
      goto fail;
  }
  if (mbt_tree_finalize(tree) != MBT_OK) goto fail;
  free(body);
  return tree;
fail:
  free(body);
  mbt_tree_destroy(tree);
  return NULL;
}

/* ---- random states ------------------------------------------------------------------------- */
static double uniform_in_limits(unsigned long long* s, const double* lo, const double* hi, int k) {
  double a = -BENCH_PI, b = BENCH_PI;
  if (lo && hi && isfinite(lo[k]) && isfinite(hi[k]) && lo[k] < hi[k]) {
    a = lo[k];
    b = hi[k];
  }
  return rng_uniform(s, a, b);
}

int mbt_bench_states_make(const mbt_tree* tree, int num_states, unsigned long long seed,
                          mbt_bench_states* st) {
  memset(st, 0, sizeof *st);
  const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  st->num_states = num_states;
  st->nq = nq;
  st->nv = nv;
  const size_t nx = (size_t)(nq + nv);
  st->x = malloc(sizeof(double) * nx * (size_t)num_states + 1);
  st->vdot = malloc(sizeof(double) * (size_t)nv * (size_t)num_states + 1);
  st->tau = malloc(sizeof(double) * (size_t)nv * (size_t)num_states + 1);
  if (!st->x || !st->vdot || !st->tau) {
    mbt_bench_states_free(st);
    return MBT_ERR_NO_MEMORY;
  }
  unsigned long long s = seed;
  const int nmob = mbt_tree_num_mobilizers(tree);
  for (int k = 0; k < num_states; ++k) {
    double* q = st->x + nx * (size_t)k;
    double* v = q + nq;
    for (int i = 0; i < nq; ++i) q[i] = 0;
    for (int mob = 0; mob < nmob; ++mob) {
      const int q0 = mbt_mobilizer_position_start_in_q(tree, mob);
      const int j = mbt_mobilizer_joint(tree, mob);
      const double* lo = j >= 0 ? mbt_joint_position_lower_limits(tree, j) : NULL;
      const double* hi = j >= 0 ? mbt_joint_position_upper_limits(tree, j) : NULL;
      switch (mbt_mobilizer_type_of(tree, mob)) {
        case MBT_MOBILIZER_WELD:
          break;
        case MBT_MOBILIZER_REVOLUTE:
        case MBT_MOBILIZER_SCREW:
          q[q0] = uniform_in_limits(&s, lo, hi, 0);
          break;
        case MBT_MOBILIZER_PRISMATIC:
          q[q0] = lo && hi && isfinite(lo[0]) && isfinite(hi[0]) && lo[0] < hi[0] ? rng_uniform(&s, lo[0], hi[0])
                                                                                 : rng_uniform(&s, -0.5, 0.5);
          break;
        case MBT_MOBILIZER_UNIVERSAL:
          q[q0] = rng_uniform(&s, -BENCH_PI, BENCH_PI);
          q[q0 + 1] = rng_uniform(&s, -BENCH_PI, BENCH_PI);
          break;
        case MBT_MOBILIZER_PLANAR:
          q[q0] = rng_uniform(&s, -1, 1);
          q[q0 + 1] = rng_uniform(&s, -1, 1);
          q[q0 + 2] = rng_uniform(&s, -BENCH_PI, BENCH_PI);
          break;
        case MBT_MOBILIZER_SPACE_XYZ:
          q[q0] = rng_uniform(&s, -BENCH_PI, BENCH_PI);
          q[q0 + 1] = rng_uniform(&s, -1.2, 1.2);   /* away from the pitch singularity */
          q[q0 + 2] = rng_uniform(&s, -BENCH_PI, BENCH_PI);
          break;
        case MBT_MOBILIZER_QUATERNION_FLOATING: {
          double w[4], nrm = 0;
          do {
            nrm = 0;
            for (int i = 0; i < 4; ++i) {
              w[i] = rng_uniform(&s, -1, 1);
              nrm += w[i] * w[i];
            }
          } while (nrm > 1 || nrm < 1e-4);
          nrm = sqrt(nrm);
          for (int i = 0; i < 4; ++i) q[q0 + i] = w[i] / nrm;
          for (int i = 4; i < 7; ++i) q[q0 + i] = rng_uniform(&s, -1, 1);
          break;
        }
        default:
          for (int i = 0; i < mbt_mobilizer_num_positions(tree, mob); ++i) q[q0 + i] = rng_uniform(&s, -0.5, 0.5);
          break;
      }
    }
    for (int i = 0; i < nv; ++i) v[i] = rng_uniform(&s, -2, 2);
    for (int i = 0; i < nv; ++i) st->vdot[(size_t)k * (size_t)nv + (size_t)i] = rng_uniform(&s, -2, 2);
    for (int i = 0; i < nv; ++i) st->tau[(size_t)k * (size_t)nv + (size_t)i] = rng_uniform(&s, -10, 10);
  }
  return MBT_OK;
}

void mbt_bench_states_free(mbt_bench_states* s) {
  free(s->x);
  free(s->vdot);
  free(s->tau);
  memset(s, 0, sizeof *s);
}
