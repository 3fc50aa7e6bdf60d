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
