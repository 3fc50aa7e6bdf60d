/* sincos_avx2.c: the joint angles' sin and cos four at a time with SLEEF's 256-bit sincos, for
 * mbt__calc_joint_sincos (kinematics.c) where the processor has AVX2 and FMA. This file alone is
 * compiled with -mavx2 -mfma (CMakeLists.txt), so that sleef.h declares the 256-bit functions and
 * every compiler passes and returns their __m256d as SLEEF does; its entry point takes pointers
 * only. (Declared by hand in a baseline file, the call's vector ABI differed between GCC and
 * clang: clang's results were wrong.) */
#include "algorithms/algorithms_internal.h"
#if defined(MBT_HAVE_SINCOS_AVX2) && defined(MBT__AVX2) && defined(__AVX2__) && defined(__FMA__)
#include <immintrin.h>
#include <sleef.h>

void mbt__sincos_avx2(const int* idx, int na, const mbt_real* q, mbt_real* sq, mbt_real* cq) {
  for (int k = 0; k < na; k += 4) {
    const int n = na - k < 4 ? na - k : 4;
    const __m256d x = _mm256_set_pd(n > 3 ? q[idx[k + 3]] : 0, n > 2 ? q[idx[k + 2]] : 0, n > 1 ? q[idx[k + 1]] : 0,
                                    q[idx[k]]);
    const Sleef___m256d_2 sc = Sleef_sincosd4_u10avx2(x);
    mbt_real s[4], c[4];
    _mm256_storeu_pd(s, sc.x);
    _mm256_storeu_pd(c, sc.y);
    for (int l = 0; l < n; ++l) sq[idx[k + l]] = s[l], cq[idx[k + l]] = c[l];
  }
}
#endif
