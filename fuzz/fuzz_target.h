/*
 * The libFuzzer entry points every fuzz target defines (LLVMFuzzerInitialize optionally), called
 * by libFuzzer, AFL++'s driver or replay_main.c.
 */
#ifndef VKL_FUZZ_TARGET_H
#define VKL_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* VKL_FUZZ_TARGET_H */
