/*
 * vkGetInstanceProcAddr: the application's entry into every other command.
 */
#include <string.h>

#include "loader/internal/loader.h"

/* An instance-level extension command is returned only when its instance extension is enabled
 * (Vulkan specification, vkGetInstanceProcAddr table); physical-device commands of device
 * extensions are returned whenever the loader knows them. */
static bool instance_ext_gate(const struct vkl_instance *inst, const char *ext) {
    if (vkl_instance_extension_enabled(inst, ext)) return true;
    for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next)
        if (vkl_driver_has_extension(ii->driver, ext)) return false; /* an instance extension, not enabled */
    return strcmp(ext, VK_EXT_DEBUG_UTILS_EXTENSION_NAME) != 0 && strcmp(ext, VK_EXT_DEBUG_REPORT_EXTENSION_NAME) != 0;
}

VKL_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *pName) {
    if (pName == NULL) return NULL;
    /* One hashed lookup (no strcmp in front of it): vkGetInstanceProcAddr is in the command table. */
    const struct vkl_gen_cmd *c = vkl_gen_cmd_find(pName);
    if (c != NULL && c->trampoline == (PFN_vkVoidFunction)vkGetInstanceProcAddr)
        return (PFN_vkVoidFunction)vkGetInstanceProcAddr;
    if (instance == VK_NULL_HANDLE) {
        /* Only the global commands are reachable without an instance. */
        return (c != NULL && c->kind == VKL_GEN_CMD_GLOBAL) ? c->trampoline : NULL;
    }
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    if (c != NULL) {
        if (c->kind == VKL_GEN_CMD_GLOBAL) {
            /* Vulkan 1.3 made these NULL for a non-NULL instance; older applications relied on the
             * pointer, so it is kept for them. */
            return VK_API_VERSION_MINOR(inst->app_api_version) < 3 && VK_API_VERSION_MAJOR(inst->app_api_version) == 1
                       ? c->trampoline
                       : NULL;
        }
        if ((c->kind == VKL_GEN_CMD_INSTANCE || c->kind == VKL_GEN_CMD_PHYSDEV) && c->core_version == 0 &&
            c->extension != NULL && !instance_ext_gate(inst, c->extension))
            return NULL;
        if (c->trampoline != NULL) return c->trampoline;
        return NULL;
    }
    return vkl_unknown_lookup(inst, pName);
}
