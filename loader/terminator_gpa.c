/*
 * The proc-address functions at the bottom of the layer chain: the terminators'
 * vkGetInstanceProcAddr (each link's pfnNextGetInstanceProcAddr below the last layer),
 * vk_layerGetPhysicalDeviceProcAddr (pfnNextGetPhysicalDeviceProcAddr) and vkGetDeviceProcAddr
 * (pfnNextGetDeviceProcAddr, the dispatch of a device without layers). They answer from the command
 * table's terminators, the loader's global commands (instance.c), the surface terminators (wsi.c),
 * the unknown physical-device slots (unknown_func.c) and the driver's vkGetDeviceProcAddr.
 * [Lyr] "Layer Call Chains and Distributed Dispatch"; [Arch] "Loader Handling of Unknown Functions".
 *
 * Kept out of layer_chain.c, which only names them as the bottom of the chain it builds, so that the
 * chain does not depend on what they answer from (docs/architecture.md "Object core").
 */
#include <string.h>

#include "loader/internal/chain.h"
#include "loader/internal/debug.h"
#include "loader/internal/device.h"
#include "loader/internal/instance.h"
#include "loader/internal/unknown_func.h"
#include "loader/internal/wsi.h"

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_term_GetPhysicalDeviceProcAddr(VkInstance instance, const char *name) {
    if (name == NULL) return NULL;
    const struct vkl_gen_cmd *c = vkl_gen_cmd_find(name);
    if (c != NULL) return c->kind == VKL_GEN_CMD_PHYSDEV ? c->terminator : NULL;
    if (instance == VK_NULL_HANDLE) return NULL;
    /* An unknown command answers only when a driver implements it: a layer that implements the
     * command itself and asks below before calling down must not be sent into the stub. A layer
     * may ask before the application has looked the command up (from its vkCreateInstance, to keep
     * the next pointer): the slot is registered then (RULE_UNKNOWN_PHYSDEV_FUNC). */
    struct vkl_instance *inst = vkl_chain_instance(instance);
    int s = vkl_unknown_physdev_term_slot(inst, name);
    return s >= 0 && vkl_unknown_physdev_implemented(inst, s) ? vkl_unknown_physdev_terms[s] : NULL;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_term_GetDeviceProcAddr(VkDevice device, const char *name) {
    if (device == VK_NULL_HANDLE || name == NULL) return NULL;
    /* One hashed lookup, then pointer compares (none of these names has an alias, so the
     * command's trampoline identifies the name). */
    const struct vkl_gen_cmd *c = vkl_gen_cmd_lookup(name, strlen(name));
    PFN_vkVoidFunction t = c != NULL ? c->trampoline : NULL;
    if (t != NULL && t == (PFN_vkVoidFunction)vkGetDeviceProcAddr)
        return (PFN_vkVoidFunction)vkl_term_GetDeviceProcAddr;
    /* Device commands that name a surface need the driver's own surface handle (LDP_LOADER_11). */
    if (t != NULL &&
        (t == (PFN_vkVoidFunction)vkCreateSwapchainKHR || t == (PFN_vkVoidFunction)vkCreateSharedSwapchainsKHR ||
         t == (PFN_vkVoidFunction)vkGetDeviceGroupSurfacePresentModesKHR)) {
        PFN_vkVoidFunction wsi = vkl_wsi_device_proc(device, name);
        if (wsi != NULL) return wsi;
    }
    /* Object names and tags that may name the loader's physical devices or instance
     * (RULE_DEBUG_OBJECT_HANDLES). */
    if (t != NULL && (t == (PFN_vkVoidFunction)vkl_tramp_SetDebugUtilsObjectNameEXT ||
                      t == (PFN_vkVoidFunction)vkl_tramp_SetDebugUtilsObjectTagEXT ||
                      t == (PFN_vkVoidFunction)vkl_tramp_DebugMarkerSetObjectNameEXT ||
                      t == (PFN_vkVoidFunction)vkl_tramp_DebugMarkerSetObjectTagEXT))
        return vkl_debug_device_proc(device, name);
    const struct vkl_device *dev = vkl_device_from_handle(device);
    return dev->icd->disp.GetDeviceProcAddr(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_term_GetInstanceProcAddr(VkInstance instance, const char *name) {
    if (name == NULL) return NULL;
    if (strcmp(name, "vkGetInstanceProcAddr") == 0) return (PFN_vkVoidFunction)vkl_term_GetInstanceProcAddr;
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) return (PFN_vkVoidFunction)vkl_term_GetDeviceProcAddr;
    if (strcmp(name, "vk_layerGetPhysicalDeviceProcAddr") == 0)
        return (PFN_vkVoidFunction)vkl_term_GetPhysicalDeviceProcAddr;
    const struct vkl_gen_cmd *c = vkl_gen_cmd_find(name);
    if (c != NULL && c->kind == VKL_GEN_CMD_GLOBAL && c->terminator == NULL) return vkl_term_global_proc(name);
    if (c != NULL) return c->terminator;
    if (instance == VK_NULL_HANDLE) return NULL;
    int s = vkl_unknown_physdev_term_slot(vkl_chain_instance(instance), name);
    return s >= 0 ? vkl_unknown_physdev_terms[s] : NULL;
}
