/*
 * loader_diff_fuzzer links fuzz/world/world.c, world_decode.c and world_build.c (decoder, on-disk
 * world, cleanup) without the in-process loader: the loaders under comparison are dlopen()ed in
 * forked children. world.c's cleanup and world_build.c still name a few loader functions; these
 * stand-ins satisfy them in the parent, where no loader ever ran. They are HIDDEN: an executable
 * that exported vkEnumerateInstance*Properties (or any vk* symbol) would interpose on the
 * dlopen()ed Khronos loader's own references to them.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Only the declarations below are hidden (the C library's must stay default: the linker merges a
 * symbol's visibility over every object that names it). */
#pragma GCC visibility push(hidden)
#include <vulkan/vulkan.h>

#include "fuzz/world/world.h"
#include "loader/internal/env.h"

VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceExtensionProperties(const char *layer, uint32_t *count,
                                                                      VkExtensionProperties *props) {
    (void)layer, (void)props;
    if (count) *count = 0;
    return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceLayerProperties(uint32_t *count, VkLayerProperties *props) {
    (void)props;
    if (count) *count = 0;
    return VK_SUCCESS;
}

void vkl_env_set_elevated_for_testing(int elevated) { (void)elevated; }

#pragma GCC visibility pop

/* world.c's RTLD_NOLOAD checks: the C library's dlopen (the executable's own dlopen is the seam). */
__attribute__((visibility("hidden"))) void *__real_dlopen(const char *file, int mode) {
    static void *(*real)(const char *, int);
    if (real == NULL) real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    if (real == NULL) {
        fprintf(stderr, "loader_diff_fuzzer: no dlopen after the executable\n");
        abort();
    }
    return real(file, mode);
}
