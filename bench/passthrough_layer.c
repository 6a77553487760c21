/*
 * The benchmark's pass-through layer (layer interface 2): it intercepts only what a layer must
 * (instance/device creation and destruction, the proc-addr functions) and hands every other command
 * to the next link, so vkCmd* pointers from vkGetDeviceProcAddr are the driver's own.
 *
 * State is per library copy and per single instance/device (the benchmark creates one at a time);
 * each enabled layer is a separate copy of this file under its own name. No heap allocations.
 */
#include <stddef.h>
#include <string.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))

static PFN_vkGetInstanceProcAddr g_next_gipa;
static PFN_vkGetDeviceProcAddr g_next_gdpa;
static PFN_vkDestroyInstance g_next_destroy_instance;
static PFN_vkDestroyDevice g_next_destroy_device;
static VkInstance g_instance;

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL pt_GetInstanceProcAddr(VkInstance inst, const char *name);
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL pt_GetDeviceProcAddr(VkDevice dev, const char *name);

static VKAPI_ATTR VkResult VKAPI_CALL pt_CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *a,
                                                        VkInstance *out) {
    VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)(uintptr_t)ci->pNext;
    while (link != NULL &&
           !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerInstanceCreateInfo *)(uintptr_t)link->pNext;
    if (link == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr next = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)next(VK_NULL_HANDLE, "vkCreateInstance");
    if (create == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    VkResult r = create(ci, a, out);
    if (r != VK_SUCCESS) return r;
    g_next_gipa = next;
    g_instance = *out;
    g_next_destroy_instance = (PFN_vkDestroyInstance)next(*out, "vkDestroyInstance");
    return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL pt_DestroyInstance(VkInstance inst, const VkAllocationCallbacks *a) {
    PFN_vkDestroyInstance d = g_next_destroy_instance;
    g_next_gipa = NULL;
    g_next_destroy_instance = NULL;
    g_instance = VK_NULL_HANDLE;
    if (d != NULL) d(inst, a);
}

static VKAPI_ATTR VkResult VKAPI_CALL pt_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                                      const VkAllocationCallbacks *a, VkDevice *out) {
    VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)(uintptr_t)ci->pNext;
    while (link != NULL &&
           !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerDeviceCreateInfo *)(uintptr_t)link->pNext;
    if (link == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)gipa(g_instance, "vkCreateDevice");
    if (create == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    VkResult r = create(pd, ci, a, out);
    if (r != VK_SUCCESS) return r;
    g_next_gdpa = gdpa;
    g_next_destroy_device = (PFN_vkDestroyDevice)gdpa(*out, "vkDestroyDevice");
    return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL pt_DestroyDevice(VkDevice dev, const VkAllocationCallbacks *a) {
    PFN_vkDestroyDevice d = g_next_destroy_device;
    g_next_destroy_device = NULL;
    g_next_gdpa = NULL;
    if (d != NULL) d(dev, a);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL pt_GetDeviceProcAddr(VkDevice dev, const char *name) {
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) return (PFN_vkVoidFunction)pt_GetDeviceProcAddr;
    if (strcmp(name, "vkDestroyDevice") == 0) return (PFN_vkVoidFunction)pt_DestroyDevice;
    return g_next_gdpa != NULL ? g_next_gdpa(dev, name) : NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL pt_GetInstanceProcAddr(VkInstance inst, const char *name) {
    if (strcmp(name, "vkGetInstanceProcAddr") == 0) return (PFN_vkVoidFunction)pt_GetInstanceProcAddr;
    if (strcmp(name, "vkCreateInstance") == 0) return (PFN_vkVoidFunction)pt_CreateInstance;
    if (strcmp(name, "vkDestroyInstance") == 0) return (PFN_vkVoidFunction)pt_DestroyInstance;
    if (strcmp(name, "vkCreateDevice") == 0) return (PFN_vkVoidFunction)pt_CreateDevice;
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) return (PFN_vkVoidFunction)pt_GetDeviceProcAddr;
    if (strcmp(name, "vkDestroyDevice") == 0) return (PFN_vkVoidFunction)pt_DestroyDevice;
    return g_next_gipa != NULL ? g_next_gipa(inst, name) : NULL;
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *ni) {
    if (ni == NULL || ni->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT || ni->loaderLayerInterfaceVersion < 2)
        return VK_ERROR_INITIALIZATION_FAILED;
    ni->loaderLayerInterfaceVersion = 2;
    ni->pfnGetInstanceProcAddr = pt_GetInstanceProcAddr;
    ni->pfnGetDeviceProcAddr = pt_GetDeviceProcAddr;
    ni->pfnGetPhysicalDeviceProcAddr = NULL;
    return VK_SUCCESS;
}
