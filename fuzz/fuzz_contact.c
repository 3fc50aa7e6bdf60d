/* fuzz_contact.c: libFuzzer target for contact (mbt/contact.h): a tree of up to 6 bodies from the
 * bytes (fuzz_build_tree), up to 8 collision shapes of every kind (sphere, box, capsule,
 * cylinder, half space, vertex set, ground) on bodies, poses, dimensions and materials from the
 * bytes (some invalid: a refused shape must say why), pairs excluded, then one time-stepping step
 * with the model. Checked: a failure comes with a message; every contact point names valid bodies
 * and shapes, has a finite position, a unit normal, a finite depth and a normal force >= 0. */
#include <math.h>
#include <stdlib.h>

#include "fuzz_common.h"

enum { kMaxBodies = 6, kMaxShapes = 8, kMaxPoints = 8 };

/* A material, NULL (the default) one time in two; its values may be out of range. */
static const mbt_contact_material* next_material(fuzz_bytes* b, mbt_contact_material* m) {
  if (fuzz_byte(b) % 2 == 0) return NULL;
  m->static_friction = fuzz_real(b, -0.1, 1.5);
  m->dynamic_friction = fuzz_real(b, -0.1, 1.5);
  m->stiffness = fuzz_real(b, -1e3, 1e6);
  m->dissipation_time = fuzz_real(b, -0.01, 0.1);
  return m;
}

/* One shape from the bytes; a refusal must come with the model's message. */
static void add_shape(mbt_contact_model* model, int num_bodies, fuzz_bytes* b) {
  const unsigned kind = fuzz_byte(b) % 7;
  const int body = (int)(fuzz_byte(b) % (unsigned)(num_bodies + 1)); /* num_bodies: no such body */
  const mbt_transform X_BG = fuzz_transform(b);
  const mbt_real r = fuzz_real(b, -0.05, 0.5), l = fuzz_real(b, -0.05, 1), s = fuzz_real(b, -0.05, 1);
  mbt_contact_material storage;
  const mbt_contact_material* m = next_material(b, &storage);
  int shape = 0;
  switch (kind) {
    case 0: shape = mbt_contact_model_add_sphere(model, body, &X_BG, r, m); break;
    case 1: shape = mbt_contact_model_add_box(model, body, &X_BG, l, s, r, m); break;
    case 2: shape = mbt_contact_model_add_capsule(model, body, &X_BG, r, l, m); break;
    case 3: shape = mbt_contact_model_add_cylinder(model, body, &X_BG, r, l, m); break;
    case 4: shape = mbt_contact_model_add_half_space(model, body, &X_BG, m); break;
    case 5: {
      mbt_real p[3 * kMaxPoints];
      const int n = (int)(fuzz_byte(b) % (kMaxPoints + 1)); /* 0: refused */
      for (int i = 0; i < 3 * n; ++i) p[i] = fuzz_real(b, -0.5, 0.5);
      shape = mbt_contact_model_add_vertices(model, body, &X_BG, p, n, m);
      break;
    }
    default: {
      const mbt_vec3 normal = mbt_vec3_make(fuzz_real(b, -1, 1), fuzz_real(b, -1, 1), fuzz_real(b, -1, 1));
      shape = mbt_contact_model_add_ground(model, normal, fuzz_real(b, -1, 1), m);
    }
  }
  if (shape < 0) FUZZ_CHECK(mbt_contact_model_last_error(model)[0] != '\0');
  else FUZZ_CHECK(mbt_contact_model_shape_body(model, shape) >= 0);
}

/* The contact points of the last step. */
static void check_results(const mbt_simulator* sim, const mbt_contact_model* model, int num_bodies) {
  const int n = mbt_simulator_num_contacts(sim);
  const mbt_contact_result* c = mbt_simulator_contact_results(sim);
  FUZZ_CHECK(n >= 0 && (n == 0 || c != NULL));
  const int num_shapes = mbt_contact_model_num_shapes(model);
  for (int i = 0; i < n; ++i) {
    FUZZ_CHECK(c[i].body_A >= 0 && c[i].body_A < num_bodies && c[i].body_B >= 0 && c[i].body_B < num_bodies);
    FUZZ_CHECK(c[i].shape_A >= 0 && c[i].shape_A < num_shapes && c[i].shape_B >= 0 && c[i].shape_B < num_shapes);
    FUZZ_CHECK(isfinite(c[i].p_WC.v[0]) && isfinite(c[i].p_WC.v[1]) && isfinite(c[i].p_WC.v[2]));
    FUZZ_CHECK(fabs(mbt_vec3_norm(c[i].nhat_BA_W) - 1) <= 1e-9);
    FUZZ_CHECK(isfinite(c[i].depth) && isfinite(c[i].fn) && c[i].fn >= 0);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_bytes b = {data, size, 0};
  mbt_tree* tree = fuzz_build_tree(&b, kMaxBodies);
  if (!tree) return 0;
  const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  const int nb = mbt_tree_num_bodies(tree);
  mbt_contact_model* model = mbt_contact_model_create(tree);
  mbt_context* ctx = mbt_context_create(tree);
  FUZZ_CHECK(model && ctx);
  const int num_shapes = (int)(fuzz_byte(&b) % (kMaxShapes + 1));
  for (int k = 0; k < num_shapes; ++k) add_shape(model, nb, &b);
  if (fuzz_byte(&b) % 4 == 0 && mbt_contact_model_exclude_pair(model, (int)(fuzz_byte(&b) % (unsigned)(nb + 1)),
                                                               (int)(fuzz_byte(&b) % (unsigned)(nb + 1))) < 0)
    FUZZ_CHECK(mbt_contact_model_last_error(model)[0] != '\0');
  mbt_real x[kMaxBodies * 13];
  for (int i = 0; i < nq + nv; ++i) x[i] = fuzz_real(&b, -1, 1);
  if (mbt_context_set_x(ctx, x, nq + nv) != MBT_OK) FUZZ_CHECK(mbt_context_last_error(ctx)[0] != '\0');
  mbt_simulator_options options = mbt_simulator_default_options();
  options.integrator = MBT_INTEGRATOR_TIME_STEPPING;
  options.dt = fuzz_real(&b, 1e-4, 1e-2);
  mbt_simulator* sim = mbt_simulator_create(tree, ctx, &options);
  FUZZ_CHECK(sim != NULL);
  int s = mbt_simulator_set_contact_model(sim, model);
  if (s == MBT_OK) s = mbt_simulator_advance_to(sim, options.dt);
  if (s != MBT_OK) FUZZ_CHECK(s < 0 && mbt_simulator_last_error(sim)[0] != '\0');
  else check_results(sim, model, nb);
  mbt_simulator_destroy(sim);
  mbt_context_destroy(ctx);
  mbt_contact_model_destroy(model);
  mbt_tree_destroy(tree);
  return 0;
}
