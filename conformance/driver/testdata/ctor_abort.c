/* Test fixture: a "driver" whose library constructor aborts, so any process that dlopens it dies.
 * ldp-check only loads drivers in its children: it must survive and report the crash. */
#include <stdlib.h>
#include <vulkan/vulkan.h>

__attribute__((constructor)) static void ldp_test_abort_on_load(void) { abort(); }

__attribute__((visibility("default"))) PFN_vkVoidFunction vk_icdGetInstanceProcAddr(VkInstance instance,
                                                                                   const char *name) {
    (void)instance;
    (void)name;
    return NULL;
}
