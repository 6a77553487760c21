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

/* The rare outcomes of vkGetInstanceProcAddr, out of line (tail calls) to keep its hit path short. */
__attribute__((noinline)) static PFN_vkVoidFunction gipa_unknown(VkInstance instance, const char *pName) {
    return instance != VK_NULL_HANDLE ? vkl_unknown_lookup(vkl_instance_from_handle(instance), pName) : NULL;
}

/* Everything but a device command or a core instance-level command with an instance: global
 * commands, vkGetInstanceProcAddr itself, no instance, and gated extension commands. */
__attribute__((noinline)) static PFN_vkVoidFunction gipa_rest(VkInstance instance, const struct vkl_gen_cmd *c) {
    PFN_vkVoidFunction t = c->trampoline;
    if (t == (PFN_vkVoidFunction)vkGetInstanceProcAddr) return t;
    /* Only the global commands are reachable without an instance. */
    if (instance == VK_NULL_HANDLE) return c->kind == VKL_GEN_CMD_GLOBAL ? t : NULL;
    const struct vkl_instance *inst = vkl_instance_from_handle(instance);
    if (c->kind == VKL_GEN_CMD_GLOBAL) {
        /* Vulkan 1.3 made these NULL for a non-NULL instance; older applications relied on the
         * pointer, so it is kept for them. */
        return VK_API_VERSION_MINOR(inst->app_api_version) < 3 && VK_API_VERSION_MAJOR(inst->app_api_version) == 1
                   ? t
                   : NULL;
    }
    /* INSTANCE and PHYSDEV commands: extension commands are gated. */
    if (c->core_version == 0 && c->extension != NULL && !instance_ext_gate(inst, c->extension)) return NULL;
    return t;
}

VKL_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *pName) {
    if (pName == NULL) return NULL;
    /* One inline hashed lookup (no strcmp in front of it): vkGetInstanceProcAddr is in the table.
     * The rare outcomes are tail calls. */
    const struct vkl_gen_cmd *c = vkl_gen_cmd_lookup(pName, strlen(pName));
    if (c == NULL) return gipa_unknown(instance, pName);
    if (instance != VK_NULL_HANDLE) {
        /* Device commands (the names asked for most) and core instance/physical-device commands. */
        if (c->kind == VKL_GEN_CMD_DEVICE) return c->trampoline;
        if (c->kind != VKL_GEN_CMD_GLOBAL && c->core_version != 0) return c->trampoline;
    }
    return gipa_rest(instance, c);
}
