/*
 * loader_diff_fuzzer's harness (fuzz/world/diff.c, diff_app.c, diff_compare.c): one world
 * (fuzz/world/world.c, world_decode.c, world_build.c), the same application run through two
 * loaders, each dlopen()ed in its own forked child, and a comparison of what the application
 * observed, minus the differences that a known deviation of the second loader
 * (conformance/deviations/khronos.tsv) explains. docs/fuzzing.md "Differential fuzzing".
 */
#ifndef VKL_FUZZ_DIFF_H
#define VKL_FUZZ_DIFF_H

#include <stddef.h>
#include <stdint.h>

/* LLVMFuzzerInitialize: world_init, the two loaders, the deviations table. */
int diff_fuzz_initialize(int *argc, char ***argv);
/* One input: decode, build, run ours, run Khronos, compare; aborts on an unexplained difference. */
int diff_fuzz_one(const uint8_t *data, size_t size);

#endif /* VKL_FUZZ_DIFF_H */
