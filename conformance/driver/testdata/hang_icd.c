/* Test fixture for ldp-check's time limit: a "driver" whose negotiation never returns (or, with
 * LDP_TEST_HANG_ICD_CRASH set, dereferences NULL). Not a Vulkan driver otherwise. */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include "conformance/driver/testdata/fixture_icd.h"

__attribute__((visibility("default"))) VkResult vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t *version) {
    if (getenv("LDP_TEST_HANG_ICD_CRASH") != NULL) {
        volatile uint32_t *volatile p = NULL;
        *version = *p;
    }
    for (;;) pause();
    return VK_SUCCESS;
}

__attribute__((visibility("default"))) PFN_vkVoidFunction vk_icdGetInstanceProcAddr(VkInstance instance,
                                                                                    const char *name) {
    (void)instance;
    (void)name;
    return NULL;
}
