/* Test fixture: a "driver" whose library constructor aborts, so any process that dlopens it dies
 * (or, with LDP_TEST_CTOR_HANG set, never returns from dlopen). ldp-check only loads drivers in
 * its children: it must survive and report the crash or the time-out. */
#include <stdlib.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include "conformance/driver/testdata/fixture_icd.h"

__attribute__((constructor)) static void ldp_test_abort_on_load(void) {
    if (getenv("LDP_TEST_CTOR_HANG") != NULL)
        for (;;) pause();
    abort();
}

__attribute__((visibility("default"))) PFN_vkVoidFunction vk_icdGetInstanceProcAddr(VkInstance instance,
                                                                                    const char *name) {
    (void)instance;
    (void)name;
    return NULL;
}
