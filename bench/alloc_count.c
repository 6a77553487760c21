/*
 * Heap-allocation counting without LD_PRELOAD: the benchmark executable itself defines malloc,
 * calloc, realloc, free and the aligned variants (glibc supports replacing malloc from the main
 * program: "Replacing malloc" in the glibc manual). The dynamic linker resolves every library's
 * malloc -- the loader's, libc's own strdup/fopen, ld.so's dlopen after start-up -- to these, and
 * they forward to glibc's allocator through its exported __libc_* entry points. The loader under
 * test needs no cooperation and no pAllocator; both loaders are counted the same way.
 *
 * Under AddressSanitizer the sanitizer owns malloc, so counting is compiled out and the counters
 * stay 0 (the benchmark then prints "n/a").
 */
#include <malloc.h> /* memalign */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h> /* the other replaced functions' declarations */

#include "bench/alloc_count.h"

#if defined(__SANITIZE_ADDRESS__)
int bench_alloc_counting(void) { return 0; }
uint64_t bench_alloc_count(void) { return 0; }
#else
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

static uint64_t g_allocs;

int bench_alloc_counting(void) { return 1; }
uint64_t bench_alloc_count(void) { return __atomic_load_n(&g_allocs, __ATOMIC_RELAXED); }

static void count(void) { __atomic_fetch_add(&g_allocs, 1, __ATOMIC_RELAXED); }

__attribute__((visibility("default"))) void *malloc(size_t n) {
    count();
    return __libc_malloc(n);
}
__attribute__((visibility("default"))) void *calloc(size_t a, size_t b) {
    count();
    return __libc_calloc(a, b);
}
__attribute__((visibility("default"))) void *realloc(void *p, size_t n) {
    count();
    return __libc_realloc(p, n);
}
__attribute__((visibility("default"))) void free(void *p) { __libc_free(p); }
__attribute__((visibility("default"))) void *memalign(size_t al, size_t n) {
    count();
    return __libc_memalign(al, n);
}
__attribute__((visibility("default"))) void *aligned_alloc(size_t al, size_t n) {
    count();
    return __libc_memalign(al, n);
}
__attribute__((visibility("default"))) int posix_memalign(void **out, size_t al, size_t n) {
    count();
    void *p = __libc_memalign(al, n);
    if (p == NULL) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
#endif
