/*
 * loader_world_fuzzer: the whole loader, in process, against worlds of mock drivers.
 *
 * Each input decodes (fuzz/FRAMING.md) into a world: up to 6 drivers, each a copy of one mock ICD
 * variant with its own generated scenario (interface range, forced negotiation results, API
 * version, extensions, physical devices, injected results, misbehaviour switches) and a driver
 * manifest (generated from option bytes, or raw bytes with @LIB@ placeholders) placed in one of
 * eight search locations; environment overrides; an elevated flag; and an application
 * (VkInstanceCreateInfo: API version, extensions, layers, flags, debug messengers in pNext,
 * allocation callbacks with failure injection; device creation parameters); and up to 4 mock
 * layers (explicit, implicit, meta and override manifests, enable/disable variables, misbehaviour
 * switches) found through the layer search paths and enabled by the application or the environment.
 *
 * The harness writes the world under a private mkdtemp directory, sets the environment, runs
 *   vkEnumerateInstanceExtensionProperties / Version / LayerProperties, vkCreateInstance,
 *   vkEnumeratePhysicalDevices, vkEnumeratePhysicalDeviceGroups, physical-device queries,
 *   vkCreateDevice, queue and proc-address lookups, unknown physical-device and device functions,
 *   debug-utils messengers, and destroys everything,
 * then checks the policy oracle (fuzz/world/oracle.c) on the mocks' call records and aborts on a
 * violation. Loader and mocks are instrumented (ASan+UBSan+LSan under --config=fuzz).
 *
 * The harness (dlopen seam, allocation callbacks: fuzz/world/harness.c; the application:
 * fuzz/world/app.c) is shared with layer_chain_fuzzer.
 */
#include "fuzz/fuzz_target.h"
#include "fuzz/world/world.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) { return world_fuzz_initialize(argc, argv, "loader_world_fuzzer"); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return world_fuzz_one(data, size, world_decode, NULL); }
