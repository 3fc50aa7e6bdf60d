/* fuzz_builder.c: libFuzzer target for the builder API (tree.h): the input's bytes build a tree
 * of up to 16 bodies with every mobilizer type (fuzz_build_tree), set a state from the bytes,
 * and run every Calc function with the identities checked: ID(FD(τ)) = τ, M by the
 * composite-rigid-body algorithm = M by inverse dynamics, FD by ABA = FD through M. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_bytes b = {data, size, 0};
  mbt_tree* tree = fuzz_build_tree(&b, 16);
  if (!tree) return 0;
  const int nq = mbt_tree_num_positions(tree), nv = mbt_tree_num_velocities(tree);
  mbt_real x[16 * 13], tau[16 * 6];
  for (int i = 0; i < nq + nv; ++i) x[i] = fuzz_real(&b, -2, 2);
  for (int i = 0; i < nv; ++i) tau[i] = fuzz_real(&b, -5, 5);
  fuzz_run_algorithms(tree, x, tau, true);
  mbt_tree_destroy(tree);
  return 0;
}
