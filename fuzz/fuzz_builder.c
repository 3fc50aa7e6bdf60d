/* fuzz_builder.c: libFuzzer target for the builder API (tree.h): the input's bytes build a tree
 * of up to 16 bodies with every mobilizer type (parents, frames, axes, inertias all taken from
 * the bytes), finalize it, set a state from the bytes, and run every Calc function with the
 * identities checked: ID(FD(τ)) = τ, M by the composite-rigid-body algorithm = M by inverse
 * dynamics, FD by ABA = FD through M. Inertias are kept physical and well conditioned (mass in
 * [0.5, 2], box sides in [0.1, 1]) so that the identities hold to rounding. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz_common.h"

typedef struct {
  const uint8_t* data;
  size_t size, pos;
} bytes;

static unsigned next_byte(bytes* b) { return b->pos < b->size ? b->data[b->pos++] : 0; }

/* A number in [lo, hi] from one byte. */
static double next_real(bytes* b, double lo, double hi) { return lo + (hi - lo) * next_byte(b) / 255.0; }

static mbt_spatial_inertia next_inertia(bytes* b) {
  const double m = next_real(b, 0.5, 2), x = next_real(b, 0.1, 1), y = next_real(b, 0.1, 1), z = next_real(b, 0.1, 1);
  const mbt_rotational_inertia I = mbt_rotational_inertia_make_moments(m * (y * y + z * z) / 12, m * (x * x + z * z) / 12,
                                                                       m * (x * x + y * y) / 12);
  const mbt_vec3 c = mbt_vec3_make(next_real(b, -0.3, 0.3), next_real(b, -0.3, 0.3), next_real(b, -0.3, 0.3));
  return mbt_spatial_inertia_from_com(m, c, &I);
}

static mbt_transform next_transform(bytes* b) {
  const mbt_vec3 rpy = mbt_vec3_make(next_real(b, -3.2, 3.2), next_real(b, -1.6, 1.6), next_real(b, -3.2, 3.2));
  const mbt_transform X = {mbt_rotation_from_rpy(rpy),
                           mbt_vec3_make(next_real(b, -1, 1), next_real(b, -1, 1), next_real(b, -1, 1))};
  return X;
}

/* One body with a mobilizer from an earlier body; failures are allowed (with a message). */
static void add_body(mbt_tree* tree, bytes* b, int k) {
  char name[32], frame[32], mob[32];
  snprintf(name, sizeof name, "b%d", k);
  snprintf(frame, sizeof frame, "F%d", k);
  snprintf(mob, sizeof mob, "m%d", k);
  const mbt_spatial_inertia M = next_inertia(b);
  const int body = mbt_tree_add_rigid_body(tree, name, &M);
  FUZZ_CHECK(body >= 0);
  const int parent = (int)(next_byte(b) % (unsigned)body);
  const mbt_transform X_PF = next_transform(b);
  const int F = mbt_tree_add_fixed_offset_frame(tree, frame, mbt_tree_body_frame(tree, parent), &X_PF);
  FUZZ_CHECK(F >= 0);
  const mbt_mobilizer_type type = (mbt_mobilizer_type)(next_byte(b) % MBT_MOBILIZER_NUM_TYPES);
  const mbt_vec3 axis = mbt_vec3_make(next_real(b, -1, 1), next_real(b, -1, 1), next_real(b, -1, 1));
  const mbt_real pitch = next_real(b, -0.5, 0.5);
  if (next_byte(b) % 8 == 0) return; /* left free: finalize adds a floating mobilizer */
  const int m = mbt_tree_add_mobilizer(tree, mob, type, F, mbt_tree_body_frame(tree, body), &axis, pitch);
  if (m < 0) FUZZ_CHECK(mbt_tree_last_error(tree)[0] != '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  bytes b = {data, size, 0};
  mbt_tree* tree = mbt_tree_create();
  FUZZ_CHECK(tree != NULL);
  const int n = 1 + (int)(next_byte(&b) % 16);
  for (int k = 1; k <= n; ++k) add_body(tree, &b, k);
  if (mbt_tree_finalize(tree) != MBT_OK) {
    FUZZ_CHECK(mbt_tree_last_error(tree)[0] != '\0');
    mbt_tree_destroy(tree);
    return 0;
  }
  const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  mbt_real x[16 * 13], tau[16 * 6];
  for (int i = 0; i < nq + nv; ++i) x[i] = next_real(&b, -2, 2);
  for (int i = 0; i < nv; ++i) tau[i] = next_real(&b, -5, 5);
  fuzz_run_algorithms(tree, x, tau, true);
  mbt_tree_destroy(tree);
  return 0;
}
