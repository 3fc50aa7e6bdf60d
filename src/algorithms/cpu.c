/* cpu.c: which kernels the processor runs (algorithms_internal.h, "kernels compiled twice"). */
#include <stdlib.h>
#include "algorithms/algorithms_internal.h"

bool mbt__cpu_has_avx2_fma(void) {
#ifdef MBT__AVX2
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
  return false;
#endif
}

/* True where the processor also runs AVX-512F and VL (and the build has AVX2 kernels): the third
 * copies of the recursive passes (inverse_dynamics.c, derivatives.c, forward_dynamics.c). */
bool mbt__cpu_has_avx512(void) {
#ifdef MBT__AVX2
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#else
  return false;
#endif
}

/* mbt__cpu_has_avx512(), unless MBT_NO_AVX512 is set in the environment (read per call): the mass
 * matrix's streamed paths (mass_matrix.c) then run their AVX2 copies on a processor with AVX-512, so
 * that they can be timed (mbt_bench) and tested (test_mass_matrix.c) there. */
bool mbt__cpu_mass_matrix_avx512(void) { return mbt__cpu_has_avx512() && !getenv("MBT_NO_AVX512"); }
