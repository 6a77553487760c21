/*
 * What the fuzz targets' oracles share (header-only, C11): CHECK, which aborts naming the
 * invariant that failed, so the engine keeps the input that broke it, and fz_all_zero.
 */
#ifndef VKL_FUZZ_CHECK_H
#define VKL_FUZZ_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CHECK(cond): aborts when cond is false, naming FZ_TARGET, the fuzz target's name (each target
 * defines it before its first CHECK), and the condition as written. */
#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, FZ_TARGET ": invariant violated: %s (%s:%d)\n", #cond, __FILE__, __LINE__);                \
            abort();                                                                                                   \
        }                                                                                                              \
    } while (0)

/* What every line a loader log sink gets obeys (loader/internal/log.h, which the target includes):
 * a line, within VKL_LOG_LINE_MAX bytes, with a level among its flags. */
#define CHECK_LOG_LINE(flags, line)                                                                                    \
    do {                                                                                                               \
        CHECK(line != NULL);                                                                                           \
        CHECK(strlen(line) <= VKL_LOG_LINE_MAX);                                                                       \
        CHECK((flags & (VKL_LOG_ERROR | VKL_LOG_WARN | VKL_LOG_INFO | VKL_LOG_DEBUG)) != 0);                           \
    } while (0)

/* Whether the n bytes at p are all zero (a parser's output after a failure or finish()). */
static inline bool fz_all_zero(const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i]) return false;
    return true;
}

#endif /* VKL_FUZZ_CHECK_H */
