/* bench_alloc.c: counts heap allocations so the benchmark can check that no timed call
 * touches the heap.
 *
 * The allocation entry points are interposed (glibc supports replacing them in the
 * executable) and forward to glibc's own allocator (__libc_malloc & co.), so free() and
 * every other function keep working unchanged; the only effect is a relaxed atomic counter.
 * Under AddressSanitizer the sanitizer owns these symbols: counting is then off (-1). */
#include <stdatomic.h>
#include <stddef.h>

#include "bench.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define MBT_BENCH_NO_ALLOC_COUNT 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define MBT_BENCH_NO_ALLOC_COUNT 1
#endif
#if !defined(__GLIBC__) && !defined(__linux__)
#define MBT_BENCH_NO_ALLOC_COUNT 1
#endif

#ifndef MBT_BENCH_NO_ALLOC_COUNT
#include <errno.h>

static atomic_long g_allocs;

extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t n, size_t size);
extern void* __libc_realloc(void* p, size_t size);
extern void* __libc_memalign(size_t alignment, size_t size);

void* malloc(size_t size) {
  atomic_fetch_add_explicit(&g_allocs, 1, memory_order_relaxed);
  return __libc_malloc(size);
}
void* calloc(size_t n, size_t size) {
  atomic_fetch_add_explicit(&g_allocs, 1, memory_order_relaxed);
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t size) {
  atomic_fetch_add_explicit(&g_allocs, 1, memory_order_relaxed);
  return __libc_realloc(p, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  atomic_fetch_add_explicit(&g_allocs, 1, memory_order_relaxed);
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size);
int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
  atomic_fetch_add_explicit(&g_allocs, 1, memory_order_relaxed);
  void* p = __libc_memalign(alignment, size);
  if (!p && size) return ENOMEM;
  *out = p;
  return 0;
}

long mbt_bench_alloc_count(void) { return atomic_load_explicit(&g_allocs, memory_order_relaxed); }
#else
long mbt_bench_alloc_count(void) { return -1; }
#endif
