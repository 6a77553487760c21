/*
 * loader_diff_fuzzer: differential whole-loader fuzzing, our loader against Debian's Khronos
 * loader (docs/fuzzing.md "Differential fuzzing").
 *
 * Each input decodes (fuzz/FRAMING.md, the loader_world_fuzzer framing) into one world: driver and
 * layer manifests, mock variants and scenarios, environment variables, the application's
 * create-info. The same application sequence (vkEnumerateInstanceExtensionProperties, Version,
 * LayerProperties, vkCreateInstance, vkEnumeratePhysicalDevices, vkEnumeratePhysicalDeviceGroups,
 * vkEnumerateDeviceExtensionProperties, vkCreateDevice, the destroys) runs through OUR loader
 * (fuzz_libvulkan/libvulkan.so.1, VKL_DIFF_OURS) and Debian's Khronos loader
 * (/usr/lib/x86_64-linux-gnu/libvulkan.so.1, VKL_DIFF_KHRONOS), each dlopen()ed in its own forked
 * child. What the application observed and what the mocks recorded are compared; a difference that
 * no known deviation (conformance/deviations/khronos.tsv, VKL_DIFF_DEVIATIONS) explains aborts with
 * both sides' observations. VKL_DIFF_VERBOSE=1 prints every run and every explained difference;
 * VKL_DIFF_SHOW_SETUP=1 the loaders, the table and the active explainers.
 */
#include "fuzz/fuzz_target.h"
#include "fuzz/world/diff.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) { return diff_fuzz_initialize(argc, argv); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return diff_fuzz_one(data, size); }
