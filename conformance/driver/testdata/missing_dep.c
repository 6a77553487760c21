/* Test fixtures for ldp-check's "cannot be loaded" evidence: libmissing_dep_icd.so needs
 * libldp_gone.so (DT_NEEDED), which the test does not copy next to it, so dlopen fails with the
 * dynamic linker's own words, as a driver with an uninstalled dependency does. */
#include <vulkan/vulkan.h>

#include "conformance/driver/testdata/fixture_icd.h"

/* Defined by libldp_gone.so, called by libmissing_dep_icd.so. */
int ldp_gone_function(void);

#ifdef LDP_GONE_LIBRARY
__attribute__((visibility("default"))) int ldp_gone_function(void) { return 7; }
#else
__attribute__((visibility("default"))) PFN_vkVoidFunction vk_icdGetInstanceProcAddr(VkInstance instance,
                                                                                    const char *name) {
    (void)instance;
    (void)name;
    (void)ldp_gone_function();
    return NULL;
}
#endif
