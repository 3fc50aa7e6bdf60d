/* cpu.c: which kernels the processor runs (algorithms_internal.h, "kernels compiled twice"). */
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
