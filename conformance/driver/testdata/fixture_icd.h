/* The driver entry points the ldp-check fixture "drivers" in this directory define (each defines
 * vk_icdGetInstanceProcAddr; hang_icd.c also the negotiation), exported from their libraries. */
#ifndef LDP_TESTDATA_FIXTURE_ICD_H
#define LDP_TESTDATA_FIXTURE_ICD_H

#include <stdint.h>
#include <vulkan/vulkan.h>

__attribute__((visibility("default"))) VkResult vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t *version);
__attribute__((visibility("default"))) PFN_vkVoidFunction vk_icdGetInstanceProcAddr(VkInstance instance,
                                                                                    const char *name);

#endif /* LDP_TESTDATA_FIXTURE_ICD_H */
