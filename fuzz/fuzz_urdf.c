/* fuzz_urdf.c: libFuzzer target for the URDF loader (urdf.h) followed by finalize (inside the
 * loader), context creation and one call of each algorithm. The first byte chooses the flags;
 * the rest is the URDF text. Any input must give a tree or a message, never a crash, a leak or
 * undefined behaviour. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const int flags = data[0] & (MBT_URDF_FLOATING | MBT_URDF_ALLOW_INVALID_INERTIA);
  mbt_urdf_result r;
  const int s = mbt_urdf_load_string((const char*)data + 1, size - 1, "fuzz.urdf", flags, &r);
  if (s == MBT_OK) {
    FUZZ_CHECK(r.tree && mbt_tree_is_finalized(r.tree));
    /* Inertias from the file may be extreme or (with the flag) non-physical: no identities. */
    fuzz_run_algorithms(r.tree, NULL, NULL, false);
  } else {
    FUZZ_CHECK(!r.tree && s < 0 && r.error[0] != '\0');
  }
  mbt_urdf_result_free(&r);
  return 0;
}
