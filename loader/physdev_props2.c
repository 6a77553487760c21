/*
 * Physical devices: the VK_KHR_get_physical_device_properties2 terminators, which call the driver's
 * *2 query or emulate it with the Vulkan 1.0 one for drivers that lack it (LDP_LOADER_8).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/instance.h"
#include "loader/internal/physdev_enum.h"
#include "loader/internal/util.h"

/* ---- LDP_LOADER_8: the *2 queries for drivers that only have the Vulkan 1.0 forms ---- */

/* The terminators' test, as the Khronos loader decides: the driver's *2 query (its core name, or
 * the KHR alias the dispatch table falls back to) is used when the application (or a layer for it)
 * asked for Vulkan 1.1 or more or enabled VK_KHR_get_physical_device_properties2; otherwise the call
 * is emulated with the driver's Vulkan 1.0 query. The specification lets an application use a
 * physical-device command of a version only when its VkApplicationInfo::apiVersion is that version
 * or more, so an application that did neither gets the Vulkan 1.0 answer (pNext chains left alone),
 * the one a 1.0 loader gives; the loader's own queries (sorting, device_configurations) use
 * pd2_usable instead. */
static bool pd2_term(VkPhysicalDevice pd) {
    const struct vkl_instance *inst = vkl_physdev_from_term(pd)->tramp.instance;
    return at_least_1_1(inst->term_api_version) ||
           vkl_instance_extension_enabled(inst, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
}

/* The sentence the Khronos loader logs ("<cmd>: Emulating call in ICD ..."), with the rule. */
static void note_emulation(VkPhysicalDevice pd, const char *cmd) {
    const struct vkl_physdev_term *t = (const struct vkl_physdev_term *)(const void *)pd;
    vkl_log(&vkl_physdev_from_term(pd)->tramp.instance->log, VKL_LOG_INFO | VKL_LOG_DRIVER,
            "%s: Emulating call in ICD \"%s\" using its Vulkan 1.0 query; pNext structures are left untouched "
            "[LDP_LOADER_8]",
            cmd, vkl_driver_name(t->icd->driver));
}

#define TERM_PD(pd) ((const struct vkl_physdev_term *)(const void *)(pd))

void vkl_term_GetPhysicalDeviceProperties2(VkPhysicalDevice pd, VkPhysicalDeviceProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (pd2_term(pd) && ii->disp.GetPhysicalDeviceProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceProperties2(TERM_PD(pd)->handle, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceProperties2");
    ii->disp.GetPhysicalDeviceProperties(TERM_PD(pd)->handle, &p->properties);
}

void vkl_term_GetPhysicalDeviceFeatures2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (pd2_term(pd) && ii->disp.GetPhysicalDeviceFeatures2 != NULL) {
        ii->disp.GetPhysicalDeviceFeatures2(TERM_PD(pd)->handle, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceFeatures2");
    if (ii->disp.GetPhysicalDeviceFeatures != NULL)
        ii->disp.GetPhysicalDeviceFeatures(TERM_PD(pd)->handle, &p->features);
}

void vkl_term_GetPhysicalDeviceFormatProperties2(VkPhysicalDevice pd, VkFormat f, VkFormatProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (pd2_term(pd) && ii->disp.GetPhysicalDeviceFormatProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceFormatProperties2(TERM_PD(pd)->handle, f, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceFormatProperties2");
    if (ii->disp.GetPhysicalDeviceFormatProperties != NULL)
        ii->disp.GetPhysicalDeviceFormatProperties(TERM_PD(pd)->handle, f, &p->formatProperties);
}

VkResult vkl_term_GetPhysicalDeviceImageFormatProperties2(VkPhysicalDevice pd,
                                                          const VkPhysicalDeviceImageFormatInfo2 *info,
                                                          VkImageFormatProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (pd2_term(pd) && ii->disp.GetPhysicalDeviceImageFormatProperties2 != NULL)
        return ii->disp.GetPhysicalDeviceImageFormatProperties2(TERM_PD(pd)->handle, info, p);
    note_emulation(pd, "vkGetPhysicalDeviceImageFormatProperties2");
    if (info->pNext != NULL) return VK_ERROR_FORMAT_NOT_SUPPORTED; /* cannot honour extended queries */
    if (ii->disp.GetPhysicalDeviceImageFormatProperties == NULL) return VK_ERROR_FORMAT_NOT_SUPPORTED;
    return ii->disp.GetPhysicalDeviceImageFormatProperties(TERM_PD(pd)->handle, info->format, info->type, info->tiling,
                                                           info->usage, info->flags, &p->imageFormatProperties);
}

void vkl_term_GetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice pd, uint32_t *pCount,
                                                      VkQueueFamilyProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (pd2_term(pd) && ii->disp.GetPhysicalDeviceQueueFamilyProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceQueueFamilyProperties2(TERM_PD(pd)->handle, pCount, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceQueueFamilyProperties2");
    if (ii->disp.GetPhysicalDeviceQueueFamilyProperties == NULL) {
        *pCount = 0;
        return;
    }
    if (p == NULL) {
        ii->disp.GetPhysicalDeviceQueueFamilyProperties(TERM_PD(pd)->handle, pCount, NULL);
        return;
    }
    const struct vkl_alloc *a = &vkl_physdev_from_term(pd)->tramp.instance->alloc;
    uint32_t n = *pCount;
    /* one element of slack after the n the driver is given (RULE_DRV_UNTRUSTED_ANSWERS) */
    VkQueueFamilyProperties *tmp = vkl_alloc(a, ((size_t)n + 1) * sizeof(*tmp), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (tmp == NULL) {
        *pCount = 0;
        return;
    }
    vkl_slack_init(&tmp[*pCount], sizeof(*tmp));
    ii->disp.GetPhysicalDeviceQueueFamilyProperties(TERM_PD(pd)->handle, &n, tmp);
    n = vkl_fill_checked(&vkl_physdev_from_term(pd)->tramp.instance->log, ii->driver,
                         "vkGetPhysicalDeviceQueueFamilyProperties", *pCount, n, &tmp[*pCount], sizeof(*tmp));
    for (uint32_t i = 0; i < n; i++) p[i].queueFamilyProperties = tmp[i];
    *pCount = n;
    vkl_free(a, tmp);
}

void vkl_term_GetPhysicalDeviceMemoryProperties2(VkPhysicalDevice pd, VkPhysicalDeviceMemoryProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (pd2_term(pd) && ii->disp.GetPhysicalDeviceMemoryProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceMemoryProperties2(TERM_PD(pd)->handle, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceMemoryProperties2");
    if (ii->disp.GetPhysicalDeviceMemoryProperties != NULL)
        ii->disp.GetPhysicalDeviceMemoryProperties(TERM_PD(pd)->handle, &p->memoryProperties);
}

void vkl_term_GetPhysicalDeviceSparseImageFormatProperties2(VkPhysicalDevice pd,
                                                            const VkPhysicalDeviceSparseImageFormatInfo2 *info,
                                                            uint32_t *pCount, VkSparseImageFormatProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (pd2_term(pd) && ii->disp.GetPhysicalDeviceSparseImageFormatProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceSparseImageFormatProperties2(TERM_PD(pd)->handle, info, pCount, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceSparseImageFormatProperties2");
    if (ii->disp.GetPhysicalDeviceSparseImageFormatProperties == NULL) {
        *pCount = 0;
        return;
    }
    uint32_t n = 0;
    ii->disp.GetPhysicalDeviceSparseImageFormatProperties(TERM_PD(pd)->handle, info->format, info->type, info->samples,
                                                          info->usage, info->tiling, &n, NULL);
    if (p == NULL) {
        *pCount = n;
        return;
    }
    const struct vkl_alloc *a = &vkl_physdev_from_term(pd)->tramp.instance->alloc;
    if (n > *pCount) n = *pCount;
    /* one element of slack after the n the driver is given (RULE_DRV_UNTRUSTED_ANSWERS) */
    VkSparseImageFormatProperties *tmp =
        vkl_alloc(a, ((size_t)n + 1) * sizeof(*tmp), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (tmp == NULL) {
        *pCount = 0;
        return;
    }
    uint32_t asked = n;
    vkl_slack_init(&tmp[asked], sizeof(*tmp));
    ii->disp.GetPhysicalDeviceSparseImageFormatProperties(TERM_PD(pd)->handle, info->format, info->type, info->samples,
                                                          info->usage, info->tiling, &n, tmp);
    n = vkl_fill_checked(&vkl_physdev_from_term(pd)->tramp.instance->log, ii->driver,
                         "vkGetPhysicalDeviceSparseImageFormatProperties", asked, n, &tmp[asked], sizeof(*tmp));
    for (uint32_t i = 0; i < n; i++) p[i].properties = tmp[i];
    *pCount = n;
    vkl_free(a, tmp);
}
