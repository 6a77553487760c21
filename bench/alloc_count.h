/* Heap-allocation counter of the benchmark process (alloc_count.c explains the method). */
#ifndef BENCH_ALLOC_COUNT_H
#define BENCH_ALLOC_COUNT_H

#include <stdint.h>

/* 1 when allocations are counted (0 under AddressSanitizer, which owns malloc). */
int bench_alloc_counting(void);
/* malloc + calloc + realloc + aligned allocations so far, in every library of the process. */
uint64_t bench_alloc_count(void);

#endif
