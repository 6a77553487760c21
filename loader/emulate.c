/*
 * Emulated physical-device queries (LDP_LOADER_8): where a driver lacks a command the loader can
 * answer from other commands of that driver, or can answer with "nothing to report", the
 * terminator answers instead of failing (VK_ERROR_EXTENSION_NOT_PRESENT) or calling NULL. One
 * instance may mix drivers that have a command with drivers that do not, so an application that
 * enabled an instance extension some driver offers must get a valid answer from every physical
 * device. Each rule is written down in docs/architecture.md "Emulated queries":
 *  - VK_KHR_display without the driver's support: zero displays, planes, supported displays and
 *    modes, zeroed plane capabilities; vkCreateDisplayModeKHR fails (VK_ERROR_INITIALIZATION_FAILED:
 *    no mode can be created on a display the driver never reported) (RULE_EMULATE_DISPLAY_MIXED);
 *  - the VK_KHR_get_display_properties2 queries from their non-2 forms (RULE_EMULATE_DISPLAY2);
 *  - vkGetPhysicalDeviceToolProperties: zero tools from a driver that lacks it; layers above add
 *    their own (RULE_EMULATE_TOOL_PROPERTIES);
 *  - VK_EXT_acquire_xlib_display: the driver's commands when it has them; otherwise
 *    vkGetRandROutputDisplayEXT finds no display (VK_NULL_HANDLE) and vkAcquireXlibDisplayEXT fails
 *    with VK_ERROR_INITIALIZATION_FAILED (RULE_XLIB_XRANDR_DISPLAY);
 *  - the external buffer, semaphore and fence capability queries for an application that asked for
 *    Vulkan 1.0 and did not enable the matching VK_KHR_external_*_capabilities extension: nothing
 *    is importable or exportable (zeroed properties), as the Khronos loader answers; the
 *    specification lets such an application use neither command (LDP_LOADER_8).
 * The surface queries (vkGetPhysicalDeviceSurfaceCapabilities2EXT, present-mode compatibility in
 * vkGetPhysicalDeviceSurfaceCapabilities2KHR) live beside the other surface terminators in wsi.c.
 */
#include <stdlib.h>
#include <string.h>

#include "loader/internal/instance.h"

#define TERM(pd) ((const struct vkl_physdev_term *)(const void *)(pd))

/* One INFO line per emulated call, naming the driver and the rule. */
static void note_emulated(VkPhysicalDevice pd, const char *cmd, const char *how, const char *rule) {
    const struct vkl_instance *inst = vkl_physdev_from_term(pd)->tramp.instance;
    vkl_log(&inst->log, VKL_LOG_INFO | VKL_LOG_DRIVER, "%s: emulating the call for driver %s %s [%s]", cmd,
            vkl_driver_name(TERM(pd)->icd->driver), how, rule);
}

static const struct vkl_instance *term_instance(VkPhysicalDevice pd) {
    return vkl_physdev_from_term(pd)->tramp.instance;
}

/* ---- VK_KHR_display on a driver without it: nothing to report (RULE_EMULATE_DISPLAY_MIXED) ---- */

static VkResult no_display_entries(VkPhysicalDevice pd, const char *cmd, uint32_t *pCount) {
    note_emulated(pd, cmd, "by reporting none (the driver lacks the command)", "RULE_EMULATE_DISPLAY_MIXED");
    if (pCount == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    *pCount = 0;
    return VK_SUCCESS;
}

VkResult vkl_term_GetPhysicalDeviceDisplayPropertiesKHR(VkPhysicalDevice pd, uint32_t *pCount,
                                                        VkDisplayPropertiesKHR *pProperties) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.GetPhysicalDeviceDisplayPropertiesKHR == NULL)
        return no_display_entries(pd, "vkGetPhysicalDeviceDisplayPropertiesKHR", pCount);
    return ii->disp.GetPhysicalDeviceDisplayPropertiesKHR(TERM(pd)->handle, pCount, pProperties);
}

VkResult vkl_term_GetPhysicalDeviceDisplayPlanePropertiesKHR(VkPhysicalDevice pd, uint32_t *pCount,
                                                             VkDisplayPlanePropertiesKHR *pProperties) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.GetPhysicalDeviceDisplayPlanePropertiesKHR == NULL)
        return no_display_entries(pd, "vkGetPhysicalDeviceDisplayPlanePropertiesKHR", pCount);
    return ii->disp.GetPhysicalDeviceDisplayPlanePropertiesKHR(TERM(pd)->handle, pCount, pProperties);
}

VkResult vkl_term_GetDisplayPlaneSupportedDisplaysKHR(VkPhysicalDevice pd, uint32_t planeIndex, uint32_t *pCount,
                                                      VkDisplayKHR *pDisplays) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.GetDisplayPlaneSupportedDisplaysKHR == NULL)
        return no_display_entries(pd, "vkGetDisplayPlaneSupportedDisplaysKHR", pCount);
    return ii->disp.GetDisplayPlaneSupportedDisplaysKHR(TERM(pd)->handle, planeIndex, pCount, pDisplays);
}

VkResult vkl_term_GetDisplayModePropertiesKHR(VkPhysicalDevice pd, VkDisplayKHR display, uint32_t *pCount,
                                              VkDisplayModePropertiesKHR *pProperties) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.GetDisplayModePropertiesKHR == NULL)
        return no_display_entries(pd, "vkGetDisplayModePropertiesKHR", pCount);
    return ii->disp.GetDisplayModePropertiesKHR(TERM(pd)->handle, display, pCount, pProperties);
}

VkResult vkl_term_CreateDisplayModeKHR(VkPhysicalDevice pd, VkDisplayKHR display,
                                       const VkDisplayModeCreateInfoKHR *pCreateInfo,
                                       const VkAllocationCallbacks *pAllocator, VkDisplayModeKHR *pMode) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.CreateDisplayModeKHR == NULL) {
        /* Nothing to build a mode from: the driver reported no display (above). */
        vkl_log(&term_instance(pd)->log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "vkCreateDisplayModeKHR: driver %s does not support VK_KHR_display; returning "
                "VK_ERROR_INITIALIZATION_FAILED [RULE_EMULATE_DISPLAY_MIXED]",
                vkl_driver_name(ii->driver));
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    return ii->disp.CreateDisplayModeKHR(TERM(pd)->handle, display, pCreateInfo, pAllocator, pMode);
}

VkResult vkl_term_GetDisplayPlaneCapabilitiesKHR(VkPhysicalDevice pd, VkDisplayModeKHR mode, uint32_t planeIndex,
                                                 VkDisplayPlaneCapabilitiesKHR *pCapabilities) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.GetDisplayPlaneCapabilitiesKHR == NULL) {
        note_emulated(pd, "vkGetDisplayPlaneCapabilitiesKHR", "with zeroed capabilities (the driver lacks the command)",
                      "RULE_EMULATE_DISPLAY_MIXED");
        if (pCapabilities != NULL) memset(pCapabilities, 0, sizeof(*pCapabilities));
        return VK_SUCCESS;
    }
    return ii->disp.GetDisplayPlaneCapabilitiesKHR(TERM(pd)->handle, mode, planeIndex, pCapabilities);
}

/* ---- VK_KHR_get_display_properties2 from the non-2 forms (RULE_EMULATE_DISPLAY2) ---- */

/* The two-call idiom over a temporary array of the non-2 structs: `query` fills `tmp` (count
 * `*pCount`), then each element is copied into the application's wrapper struct; the wrappers'
 * sType and pNext stay as the application wrote them (nothing is known to fill in an extension). */
#define EMULATE_ARRAY2(pd, cmd, base_cmd, T1, pCount, pOut, member, CALL)                                              \
    do {                                                                                                               \
        note_emulated(pd, cmd, "with " base_cmd, "RULE_EMULATE_DISPLAY2");                                             \
        if ((pCount) == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;                                                      \
        if ((pOut) == NULL) {                                                                                          \
            T1 *tmp = NULL;                                                                                            \
            return CALL;                                                                                               \
        }                                                                                                              \
        const struct vkl_instance *inst_ = term_instance(pd);                                                          \
        uint32_t n_ = *(pCount);                                                                                       \
        /* one element of slack after the n_ the driver is given (RULE_DRV_UNTRUSTED_ANSWERS) */                       \
        T1 *tmp = vkl_calloc(&inst_->alloc, ((size_t)n_ + 1) * sizeof(T1), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);        \
        if (tmp == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;                                                           \
        vkl_slack_init(&tmp[n_], sizeof(T1));                                                                          \
        VkResult r_ = CALL;                                                                                            \
        if (r_ >= 0 && *(pCount) > n_) r_ = VK_INCOMPLETE; /* the driver has more than the array holds */              \
        if (r_ >= 0)                                                                                                   \
            *(pCount) =                                                                                                \
                vkl_fill_checked(&inst_->log, TERM(pd)->icd->driver, base_cmd, n_, *(pCount), &tmp[n_], sizeof(T1));   \
        if (r_ == VK_SUCCESS || r_ == VK_INCOMPLETE)                                                                   \
            for (uint32_t i_ = 0; i_ < *(pCount) && i_ < n_; i_++) (pOut)[i_].member = tmp[i_];                        \
        vkl_free(&inst_->alloc, tmp);                                                                                  \
        return r_;                                                                                                     \
    } while (0)

VkResult vkl_term_GetPhysicalDeviceDisplayProperties2KHR(VkPhysicalDevice pd, uint32_t *pCount,
                                                         VkDisplayProperties2KHR *pProperties) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.GetPhysicalDeviceDisplayProperties2KHR != NULL)
        return ii->disp.GetPhysicalDeviceDisplayProperties2KHR(TERM(pd)->handle, pCount, pProperties);
    EMULATE_ARRAY2(pd, "vkGetPhysicalDeviceDisplayProperties2KHR", "vkGetPhysicalDeviceDisplayPropertiesKHR",
                   VkDisplayPropertiesKHR, pCount, pProperties, displayProperties,
                   vkl_term_GetPhysicalDeviceDisplayPropertiesKHR(pd, pCount, tmp));
}

VkResult vkl_term_GetPhysicalDeviceDisplayPlaneProperties2KHR(VkPhysicalDevice pd, uint32_t *pCount,
                                                              VkDisplayPlaneProperties2KHR *pProperties) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.GetPhysicalDeviceDisplayPlaneProperties2KHR != NULL)
        return ii->disp.GetPhysicalDeviceDisplayPlaneProperties2KHR(TERM(pd)->handle, pCount, pProperties);
    EMULATE_ARRAY2(pd, "vkGetPhysicalDeviceDisplayPlaneProperties2KHR", "vkGetPhysicalDeviceDisplayPlanePropertiesKHR",
                   VkDisplayPlanePropertiesKHR, pCount, pProperties, displayPlaneProperties,
                   vkl_term_GetPhysicalDeviceDisplayPlanePropertiesKHR(pd, pCount, tmp));
}

VkResult vkl_term_GetDisplayModeProperties2KHR(VkPhysicalDevice pd, VkDisplayKHR display, uint32_t *pCount,
                                               VkDisplayModeProperties2KHR *pProperties) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.GetDisplayModeProperties2KHR != NULL)
        return ii->disp.GetDisplayModeProperties2KHR(TERM(pd)->handle, display, pCount, pProperties);
    EMULATE_ARRAY2(pd, "vkGetDisplayModeProperties2KHR", "vkGetDisplayModePropertiesKHR", VkDisplayModePropertiesKHR,
                   pCount, pProperties, displayModeProperties,
                   vkl_term_GetDisplayModePropertiesKHR(pd, display, pCount, tmp));
}

VkResult vkl_term_GetDisplayPlaneCapabilities2KHR(VkPhysicalDevice pd, const VkDisplayPlaneInfo2KHR *pInfo,
                                                  VkDisplayPlaneCapabilities2KHR *pCapabilities) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.GetDisplayPlaneCapabilities2KHR != NULL)
        return ii->disp.GetDisplayPlaneCapabilities2KHR(TERM(pd)->handle, pInfo, pCapabilities);
    note_emulated(pd, "vkGetDisplayPlaneCapabilities2KHR", "with vkGetDisplayPlaneCapabilitiesKHR",
                  "RULE_EMULATE_DISPLAY2");
    if (pInfo == NULL || pCapabilities == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    return vkl_term_GetDisplayPlaneCapabilitiesKHR(pd, pInfo->mode, pInfo->planeIndex, &pCapabilities->capabilities);
}

/* ---- vkGetPhysicalDeviceToolProperties (RULE_EMULATE_TOOL_PROPERTIES) ---- */

/* The slot holds the driver's core command or, failing that, its VK_EXT_tooling_info alias. A
 * driver with neither runs no tools: zero entries. Layers that are tools intercept the command and
 * add their own entries to what comes back from below (VK_EXT_tooling_info), so the loader adds
 * nothing itself. */
VkResult vkl_term_GetPhysicalDeviceToolProperties(VkPhysicalDevice pd, uint32_t *pToolCount,
                                                  VkPhysicalDeviceToolProperties *pToolProperties) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.GetPhysicalDeviceToolProperties != NULL)
        return ii->disp.GetPhysicalDeviceToolProperties(TERM(pd)->handle, pToolCount, pToolProperties);
    note_emulated(pd, "vkGetPhysicalDeviceToolProperties", "by reporting no tools (the driver lacks the command)",
                  "RULE_EMULATE_TOOL_PROPERTIES");
    if (pToolCount == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    *pToolCount = 0;
    return VK_SUCCESS;
}

/* ---- VK_EXT_acquire_xlib_display (RULE_XLIB_XRANDR_DISPLAY) ---- */
#ifdef VK_USE_PLATFORM_XLIB_XRANDR_EXT
VkResult vkl_term_AcquireXlibDisplayEXT(VkPhysicalDevice pd, Display *dpy, VkDisplayKHR display) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.AcquireXlibDisplayEXT == NULL) {
        note_emulated(pd, "vkAcquireXlibDisplayEXT",
                      "by returning VK_ERROR_INITIALIZATION_FAILED (the driver has no display to acquire)",
                      "RULE_XLIB_XRANDR_DISPLAY");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    return ii->disp.AcquireXlibDisplayEXT(TERM(pd)->handle, dpy, display);
}

VkResult vkl_term_GetRandROutputDisplayEXT(VkPhysicalDevice pd, Display *dpy, RROutput rrOutput,
                                           VkDisplayKHR *pDisplay) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.GetRandROutputDisplayEXT == NULL) {
        note_emulated(pd, "vkGetRandROutputDisplayEXT", "by returning VK_NULL_HANDLE (no display on this device)",
                      "RULE_XLIB_XRANDR_DISPLAY");
        if (pDisplay != NULL) *pDisplay = VK_NULL_HANDLE;
        return VK_SUCCESS;
    }
    return ii->disp.GetRandROutputDisplayEXT(TERM(pd)->handle, dpy, rrOutput, pDisplay);
}
#endif

/* ---- the external-handle capability queries (LDP_LOADER_8) ---- */

/* Whether the driver's query (core name, or the KHR alias the dispatch table falls back to) may be
 * used: the application (or a layer for it) asked for Vulkan 1.1 or enabled the extension that adds the command. */
static bool external_query_allowed(VkPhysicalDevice pd, const char *ext) {
    const struct vkl_instance *inst = term_instance(pd);
    uint32_t v = inst->term_api_version;
    return VK_API_VERSION_MAJOR(v) > 1 || VK_API_VERSION_MINOR(v) >= 1 || vkl_instance_extension_enabled(inst, ext);
}

static void note_external_emulated(VkPhysicalDevice pd, const char *cmd) {
    vkl_log(&term_instance(pd)->log, VKL_LOG_INFO | VKL_LOG_DRIVER,
            "%s: Emulating call in ICD \"%s\": no handle type is importable or exportable [LDP_LOADER_8]", cmd,
            vkl_driver_name(TERM(pd)->icd->driver));
}

void vkl_term_GetPhysicalDeviceExternalBufferProperties(VkPhysicalDevice pd,
                                                        const VkPhysicalDeviceExternalBufferInfo *info,
                                                        VkExternalBufferProperties *p) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.GetPhysicalDeviceExternalBufferProperties != NULL &&
        external_query_allowed(pd, VK_KHR_EXTERNAL_MEMORY_CAPABILITIES_EXTENSION_NAME)) {
        ii->disp.GetPhysicalDeviceExternalBufferProperties(TERM(pd)->handle, info, p);
        return;
    }
    note_external_emulated(pd, "vkGetPhysicalDeviceExternalBufferProperties");
    memset(&p->externalMemoryProperties, 0, sizeof(p->externalMemoryProperties));
}

void vkl_term_GetPhysicalDeviceExternalSemaphoreProperties(VkPhysicalDevice pd,
                                                           const VkPhysicalDeviceExternalSemaphoreInfo *info,
                                                           VkExternalSemaphoreProperties *p) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.GetPhysicalDeviceExternalSemaphoreProperties != NULL &&
        external_query_allowed(pd, VK_KHR_EXTERNAL_SEMAPHORE_CAPABILITIES_EXTENSION_NAME)) {
        ii->disp.GetPhysicalDeviceExternalSemaphoreProperties(TERM(pd)->handle, info, p);
        return;
    }
    note_external_emulated(pd, "vkGetPhysicalDeviceExternalSemaphoreProperties");
    p->exportFromImportedHandleTypes = 0;
    p->compatibleHandleTypes = 0;
    p->externalSemaphoreFeatures = 0;
}

void vkl_term_GetPhysicalDeviceExternalFenceProperties(VkPhysicalDevice pd,
                                                       const VkPhysicalDeviceExternalFenceInfo *info,
                                                       VkExternalFenceProperties *p) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (ii->disp.GetPhysicalDeviceExternalFenceProperties != NULL &&
        external_query_allowed(pd, VK_KHR_EXTERNAL_FENCE_CAPABILITIES_EXTENSION_NAME)) {
        ii->disp.GetPhysicalDeviceExternalFenceProperties(TERM(pd)->handle, info, p);
        return;
    }
    note_external_emulated(pd, "vkGetPhysicalDeviceExternalFenceProperties");
    p->exportFromImportedHandleTypes = 0;
    p->compatibleHandleTypes = 0;
    p->externalFenceFeatures = 0;
}
