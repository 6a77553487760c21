/*
 * vkGetInstanceProcAddr: the application's entry into every other command.
 */
#include <string.h>

#include "loader/internal/chain.h"
#include "loader/internal/instance.h"
#include "loader/internal/unknown_func.h"

/* The Vulkan specification's vkGetInstanceProcAddr table: with an instance, commands of instance
 * extensions are returned only when the extension is enabled for that instance, whoever
 * advertises it (a driver, a layer, the loader, or nobody); commands of device extensions
 * (physical-device commands here) when the extension is available on any physical device, which
 * the loader grants for every device extension it knows (as the Khronos loader does) so that the
 * answer does not depend on enumerating the devices first. The extension's type comes from vk.xml
 * (vkgen: vkl_gen_cmd.instance_extension). */
static bool instance_ext_gate(const struct vkl_instance *inst, const struct vkl_gen_cmd *c) {
    return !c->instance_extension || vkl_instance_extension_enabled(inst, c->extension);
}

/* An instance or physical-device command the instance's chain does not provide (a layer's
 * vkGetInstanceProcAddr answered NULL, e.g. a layer that created the instance without calling down)
 * is answered NULL: its trampoline would call through an empty dispatch slot. */
static inline PFN_vkVoidFunction if_dispatched(VkInstance instance, const struct vkl_gen_cmd *c) {
    if (c->slot == UINT16_MAX) return c->trampoline;
    const struct vkl_instance *inst = vkl_instance_from_handle(instance);
    const PFN_vkVoidFunction *slots = (const PFN_vkVoidFunction *)(const void *)inst->disp;
    /* vkGetInstanceProcAddr itself is the loader's own entry point, whatever the chain holds; so is
     * vkCreateDevice, which builds the device chain instead of dispatching through this table (a
     * layer in it that gives no vkCreateDevice is refused there, with an ERROR line, LLP_LOADER_9). */
    return slots[c->slot] != NULL || c->trampoline == (PFN_vkVoidFunction)vkGetInstanceProcAddr ||
                   c->trampoline == (PFN_vkVoidFunction)vkCreateDevice
               ? c->trampoline
               : NULL;
}

/* The rare outcomes of vkGetInstanceProcAddr, out of line (tail calls) to keep its hit path short. */
__attribute__((noinline)) static PFN_vkVoidFunction gipa_unknown(VkInstance instance, const char *pName) {
    return instance != VK_NULL_HANDLE
               ? vkl_unknown_lookup(vkl_instance_from_handle(instance), pName, &vkl_layer_chain_unknown)
               : NULL;
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
    if (c->core_version == 0 && c->extension != NULL && !instance_ext_gate(inst, c)) return NULL;
    return if_dispatched(instance, c);
}

/* A device command of an instance extension (VK_EXT_debug_utils' object names and labels) exists
 * only where the instance enabled that extension, through vkGetInstanceProcAddr as through
 * vkGetDeviceProcAddr (RULE_GDPA_INSTANCE_EXTENSION; the Khronos loader answers the same). */
__attribute__((noinline)) static PFN_vkVoidFunction gipa_instance_ext_device_cmd(VkInstance instance,
                                                                                 const struct vkl_gen_cmd *c) {
    return vkl_instance_extension_enabled(vkl_instance_from_handle(instance), c->extension) ? c->trampoline : NULL;
}

/* RULE_GIPA_SPEC */
VKL_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *pName) {
    if (pName == NULL) return NULL;
    /* One inline hashed lookup (no strcmp in front of it): vkGetInstanceProcAddr is in the table.
     * The rare outcomes are tail calls. */
    const struct vkl_gen_cmd *c = vkl_gen_cmd_lookup(pName, strlen(pName));
    if (c == NULL) return gipa_unknown(instance, pName);
    if (instance != VK_NULL_HANDLE) {
        /* Device commands (the names asked for most) and core instance/physical-device commands. */
        if (c->kind == VKL_GEN_CMD_DEVICE)
            return c->instance_extension ? gipa_instance_ext_device_cmd(instance, c) : c->trampoline;
        if (c->kind != VKL_GEN_CMD_GLOBAL && c->core_version != 0) return if_dispatched(instance, c);
    }
    return gipa_rest(instance, c);
}
