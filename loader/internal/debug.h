/*
 * VK_EXT_debug_utils / VK_EXT_debug_report messengers of an instance (debug.c).
 *
 * Ownership: a messenger belongs to its instance's list (inst->messengers), allocated with the
 * instance's callbacks; vkl_debug_destroy_all frees them in vkDestroyInstance.
 */
#ifndef VKL_INTERNAL_DEBUG_H
#define VKL_INTERNAL_DEBUG_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vkl_instance; /* instance.h */

struct vkl_messenger {
    struct vkl_messenger *next;
    bool is_report;           /* VK_EXT_debug_report callback rather than debug-utils messenger */
    bool create_destroy_only; /* chained into VkInstanceCreateInfo: active only in create/destroy */
    VkDebugUtilsMessageSeverityFlagsEXT severity;
    VkDebugUtilsMessageTypeFlagsEXT types;
    PFN_vkDebugUtilsMessengerCallbackEXT utils_cb;
    VkDebugReportFlagsEXT report_flags;
    PFN_vkDebugReportCallbackEXT report_cb;
    void *user_data;
    /* per-driver handles of an application-created messenger/callback */
    uint32_t driver_count;
    uint64_t *driver_handles; /* indexed like the instance's icd list */
};

void vkl_debug_emit(void *instance, uint32_t flags, const char *line);
/* The loader's own vkSetDebugUtilsObjectName/TagEXT below the layers, which name the driver's
 * physical device and instance to it (RULE_DEBUG_OBJECT_HANDLES); NULL for other names or when the
 * device's driver lacks the command. */
PFN_vkVoidFunction vkl_debug_device_proc(VkDevice device, const char *name);
VkResult vkl_debug_add_create_info_messengers(struct vkl_instance *inst, const void *pnext);
void vkl_debug_destroy_all(struct vkl_instance *inst);

#ifdef __cplusplus
}
#endif
#endif /* VKL_INTERNAL_DEBUG_H */
