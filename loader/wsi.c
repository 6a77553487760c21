/*
 * Window-system integration: VkSurfaceKHR objects shared by every driver.
 *
 * Driver interface document, "Handling KHR Surface Objects in WSI Extensions":
 *  - the loader creates a VkIcdSurface* container for every surface, so one VkSurfaceKHR works
 *    with every driver (LDP_LOADER_10); drivers with interface < 3 receive the container and read
 *    the platform data from it;
 *  - a driver with interface >= 3 that exposes the platform's vkCreate*SurfaceKHR gets its own
 *    surface, created here with the container, and only that handle is ever passed to it
 *    (LDP_LOADER_11); vkDestroySurfaceKHR destroys every per-driver surface, then the container.
 * Drivers may own surfaces from interface version 3 on (RULE_DRV_IFACE_V3).
 * The document creates driver surfaces inside vkCreate*SurfaceKHR (the Khronos loader defers it
 * to first use); we follow the document.
 */
#include <stdlib.h>
#include <string.h>

#include "loader/internal/device.h"
#include "loader/internal/instance.h"
#include "loader/internal/wsi.h"

struct vkl_surface {
    /* Must stay first: interface < 3 drivers cast the VkSurfaceKHR to VkIcdSurfaceBase. */
    union {
        VkIcdSurfaceBase base;
#ifdef VK_USE_PLATFORM_XCB_KHR
        VkIcdSurfaceXcb xcb;
#endif
#ifdef VK_USE_PLATFORM_XLIB_KHR
        VkIcdSurfaceXlib xlib;
#endif
#ifdef VK_USE_PLATFORM_WAYLAND_KHR
        VkIcdSurfaceWayland wayland;
#endif
        VkIcdSurfaceHeadless headless;
        VkIcdSurfaceDisplay display;
    } u;
    uint32_t icd_count;
    VkSurfaceKHR *icd_surfaces; /* by vkl_icd_instance.index; VK_NULL_HANDLE: the driver uses the container */
};

static struct vkl_surface *surface_from_handle(VkSurfaceKHR s) { return (struct vkl_surface *)(uintptr_t)s; }

VkSurfaceKHR vkl_wsi_icd_surface(VkSurfaceKHR surface, const struct vkl_icd_instance *ii) {
    if (surface == VK_NULL_HANDLE) return VK_NULL_HANDLE;
    const struct vkl_surface *s = surface_from_handle(surface);
    if (ii->index < s->icd_count && s->icd_surfaces[ii->index] != VK_NULL_HANDLE) return s->icd_surfaces[ii->index];
    return surface;
}

static const struct vkl_alloc *pick_alloc(struct vkl_instance *inst, const VkAllocationCallbacks *cb,
                                          struct vkl_alloc *tmp) {
    if (cb == NULL) return &inst->alloc;
    vkl_alloc_init(tmp, cb);
    return tmp;
}

/* Which driver entry point creates this platform's surfaces. */
enum wsi_kind { WSI_XCB, WSI_XLIB, WSI_WAYLAND, WSI_HEADLESS, WSI_DISPLAY };

static PFN_vkVoidFunction icd_create_fn(const struct vkl_icd_instance *ii, enum wsi_kind k) {
    switch (k) {
#ifdef VK_USE_PLATFORM_XCB_KHR
        case WSI_XCB: return (PFN_vkVoidFunction)ii->disp.CreateXcbSurfaceKHR;
#endif
#ifdef VK_USE_PLATFORM_XLIB_KHR
        case WSI_XLIB: return (PFN_vkVoidFunction)ii->disp.CreateXlibSurfaceKHR;
#endif
#ifdef VK_USE_PLATFORM_WAYLAND_KHR
        case WSI_WAYLAND: return (PFN_vkVoidFunction)ii->disp.CreateWaylandSurfaceKHR;
#endif
        case WSI_HEADLESS: return (PFN_vkVoidFunction)ii->disp.CreateHeadlessSurfaceEXT;
        case WSI_DISPLAY: return (PFN_vkVoidFunction)ii->disp.CreateDisplayPlaneSurfaceKHR;
        default: return NULL;
    }
}

static VkResult icd_create(const struct vkl_icd_instance *ii, enum wsi_kind k, const void *ci,
                           const VkAllocationCallbacks *cb, VkSurfaceKHR *out) {
    PFN_vkVoidFunction f = icd_create_fn(ii, k);
    switch (k) {
#ifdef VK_USE_PLATFORM_XCB_KHR
        case WSI_XCB: return ((PFN_vkCreateXcbSurfaceKHR)f)(ii->handle, ci, cb, out);
#endif
#ifdef VK_USE_PLATFORM_XLIB_KHR
        case WSI_XLIB: return ((PFN_vkCreateXlibSurfaceKHR)f)(ii->handle, ci, cb, out);
#endif
#ifdef VK_USE_PLATFORM_WAYLAND_KHR
        case WSI_WAYLAND: return ((PFN_vkCreateWaylandSurfaceKHR)f)(ii->handle, ci, cb, out);
#endif
        case WSI_HEADLESS: return ((PFN_vkCreateHeadlessSurfaceEXT)f)(ii->handle, ci, cb, out);
        case WSI_DISPLAY: return ((PFN_vkCreateDisplayPlaneSurfaceKHR)f)(ii->handle, ci, cb, out);
        default: return VK_ERROR_EXTENSION_NOT_PRESENT;
    }
}

static void destroy_icd_surfaces(struct vkl_instance *inst, struct vkl_surface *s, const VkAllocationCallbacks *cb) {
    for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next) {
        if (ii->index >= s->icd_count || s->icd_surfaces[ii->index] == VK_NULL_HANDLE) continue;
        if (ii->disp.DestroySurfaceKHR != NULL) ii->disp.DestroySurfaceKHR(ii->handle, s->icd_surfaces[ii->index], cb);
        s->icd_surfaces[ii->index] = VK_NULL_HANDLE;
    }
}

/* Common body of every vkCreate*SurfaceKHR terminator: `s->u` is already filled by the caller. */
static VkResult surface_create(struct vkl_instance *inst, enum wsi_kind k, const char *ext, const char *cmd,
                               const void *ci, const VkAllocationCallbacks *cb, const struct vkl_surface *proto,
                               VkSurfaceKHR *pSurface) {
    *pSurface = VK_NULL_HANDLE;
    if (!vkl_instance_extension_enabled(inst, ext)) {
        vkl_log(&inst->log, VKL_LOG_ERROR, "%s: extension %s was not enabled on the instance", cmd, ext);
        return VK_ERROR_EXTENSION_NOT_PRESENT;
    }
    struct vkl_alloc tmp;
    const struct vkl_alloc *a = pick_alloc(inst, cb, &tmp);
    struct vkl_surface *s = vkl_calloc(a, sizeof(*s), VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
    if (s == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    s->u = proto->u;
    s->icd_count = inst->icd_count;
    s->icd_surfaces = vkl_calloc(a, (inst->icd_count ? inst->icd_count : 1) * sizeof(VkSurfaceKHR),
                                 VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
    if (s->icd_surfaces == NULL) {
        vkl_free(a, s);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next) {
        if (icd_create_fn(ii, k) == NULL) continue;
        if (ii->driver->interface_version < 3) {
            /* LDP_DRIVER_8: owning surfaces needs interface 3; such a driver gets the container. */
            vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "driver %s: exposes %s with interface version %u; surfaces need interface 3 or newer, so it "
                    "receives the loader's surface [LDP_DRIVER_8]",
                    vkl_driver_name(ii->driver), cmd, ii->driver->interface_version);
            continue;
        }
        VkResult r = icd_create(ii, k, ci, cb, &s->icd_surfaces[ii->index]);
        if (r != VK_SUCCESS) {
            vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_DRIVER, "driver %s: %s returned %s (%d) [LDP_LOADER_11]",
                    vkl_driver_name(ii->driver), cmd, vkl_result_str(r), (int)r);
            s->icd_surfaces[ii->index] = VK_NULL_HANDLE;
            destroy_icd_surfaces(inst, s, cb);
            vkl_free(a, s->icd_surfaces);
            vkl_free(a, s);
            return r;
        }
    }
    *pSurface = (VkSurfaceKHR)(uintptr_t)s;
    return VK_SUCCESS;
}

#ifdef VK_USE_PLATFORM_XCB_KHR
VkResult vkl_term_CreateXcbSurfaceKHR(VkInstance instance, const VkXcbSurfaceCreateInfoKHR *ci,
                                      const VkAllocationCallbacks *cb, VkSurfaceKHR *pSurface) {
    struct vkl_surface p = {
        .u.xcb = {.base.platform = VK_ICD_WSI_PLATFORM_XCB, .connection = ci->connection, .window = ci->window}};
    return surface_create(vkl_instance_from_handle(instance), WSI_XCB, VK_KHR_XCB_SURFACE_EXTENSION_NAME,
                          "vkCreateXcbSurfaceKHR", ci, cb, &p, pSurface);
}
#endif

#ifdef VK_USE_PLATFORM_XLIB_KHR
VkResult vkl_term_CreateXlibSurfaceKHR(VkInstance instance, const VkXlibSurfaceCreateInfoKHR *ci,
                                       const VkAllocationCallbacks *cb, VkSurfaceKHR *pSurface) {
    struct vkl_surface p = {
        .u.xlib = {.base.platform = VK_ICD_WSI_PLATFORM_XLIB, .dpy = ci->dpy, .window = ci->window}};
    return surface_create(vkl_instance_from_handle(instance), WSI_XLIB, VK_KHR_XLIB_SURFACE_EXTENSION_NAME,
                          "vkCreateXlibSurfaceKHR", ci, cb, &p, pSurface);
}
#endif

#ifdef VK_USE_PLATFORM_WAYLAND_KHR
VkResult vkl_term_CreateWaylandSurfaceKHR(VkInstance instance, const VkWaylandSurfaceCreateInfoKHR *ci,
                                          const VkAllocationCallbacks *cb, VkSurfaceKHR *pSurface) {
    struct vkl_surface p = {
        .u.wayland = {.base.platform = VK_ICD_WSI_PLATFORM_WAYLAND, .display = ci->display, .surface = ci->surface}};
    return surface_create(vkl_instance_from_handle(instance), WSI_WAYLAND, VK_KHR_WAYLAND_SURFACE_EXTENSION_NAME,
                          "vkCreateWaylandSurfaceKHR", ci, cb, &p, pSurface);
}
#endif

VkResult vkl_term_CreateHeadlessSurfaceEXT(VkInstance instance, const VkHeadlessSurfaceCreateInfoEXT *ci,
                                           const VkAllocationCallbacks *cb, VkSurfaceKHR *pSurface) {
    struct vkl_surface p = {.u.headless = {.base.platform = VK_ICD_WSI_PLATFORM_HEADLESS}};
    return surface_create(vkl_instance_from_handle(instance), WSI_HEADLESS, VK_EXT_HEADLESS_SURFACE_EXTENSION_NAME,
                          "vkCreateHeadlessSurfaceEXT", ci, cb, &p, pSurface);
}

VkResult vkl_term_CreateDisplayPlaneSurfaceKHR(VkInstance instance, const VkDisplaySurfaceCreateInfoKHR *ci,
                                               const VkAllocationCallbacks *cb, VkSurfaceKHR *pSurface) {
    struct vkl_surface p = {.u.display = {.base.platform = VK_ICD_WSI_PLATFORM_DISPLAY,
                                          .displayMode = ci->displayMode,
                                          .planeIndex = ci->planeIndex,
                                          .planeStackIndex = ci->planeStackIndex,
                                          .transform = ci->transform,
                                          .globalAlpha = ci->globalAlpha,
                                          .alphaMode = ci->alphaMode,
                                          .imageExtent = ci->imageExtent}};
    return surface_create(vkl_instance_from_handle(instance), WSI_DISPLAY, VK_KHR_DISPLAY_EXTENSION_NAME,
                          "vkCreateDisplayPlaneSurfaceKHR", ci, cb, &p, pSurface);
}

void vkl_term_DestroySurfaceKHR(VkInstance instance, VkSurfaceKHR surface, const VkAllocationCallbacks *cb) {
    if (surface == VK_NULL_HANDLE) return;
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    struct vkl_surface *s = surface_from_handle(surface);
    destroy_icd_surfaces(inst, s, cb);
    struct vkl_alloc tmp;
    const struct vkl_alloc *a = pick_alloc(inst, cb, &tmp);
    vkl_free(a, s->icd_surfaces);
    vkl_free(a, s);
}

/* ---- physical-device queries: hand each driver its own surface ---- */

#define TERM(pd) ((const struct vkl_physdev_term *)(const void *)(pd))
/* LDP_LOADER_11: a driver at interface 3 or later is given only a surface it created itself. When it
 * has none for this surface (it lacks the platform's surface extension, or its creation failed) it
 * is not given the loader's container, which it never made: the query is answered here, as "not
 * supported" (vkGetPhysicalDeviceSurfaceSupportKHR) or VK_ERROR_SURFACE_LOST_KHR (the others), as
 * the newest Khronos loader answers. Interface 0-2 drivers take the container (VkIcdSurface). */
static bool icd_lacks_surface(VkSurfaceKHR surface, const struct vkl_icd_instance *ii, const char *cmd,
                              VkPhysicalDevice pd) {
    if (surface == VK_NULL_HANDLE || ii->driver->interface_version < 3) return false;
    const struct vkl_surface *s = surface_from_handle(surface);
    if (ii->index < s->icd_count && s->icd_surfaces[ii->index] != VK_NULL_HANDLE) return false;
    vkl_log(&vkl_physdev_from_term(pd)->tramp.instance->log, VKL_LOG_INFO | VKL_LOG_DRIVER,
            "%s: driver %s has no surface of its own for this one (it lacks the platform's surface extension or "
            "did not create it); answered by the loader, the driver is not called [LDP_LOADER_11]",
            cmd, vkl_driver_name(ii->driver));
    return true;
}

#define NO_SURFACE(surface, name)                                                                                      \
    if (icd_lacks_surface((surface), TERM(pd)->icd, name, pd)) return VK_ERROR_SURFACE_LOST_KHR

#define NEED(fn, name)                                                                                                 \
    if (TERM(pd)->icd->disp.fn == NULL) {                                                                              \
        vkl_term_missing(VK_NULL_HANDLE, pd, name);                                                                    \
        return VK_ERROR_EXTENSION_NOT_PRESENT;                                                                         \
    }

VkResult vkl_term_GetPhysicalDeviceSurfaceSupportKHR(VkPhysicalDevice pd, uint32_t family, VkSurfaceKHR surface,
                                                     VkBool32 *pSupported) {
    NEED(GetPhysicalDeviceSurfaceSupportKHR, "vkGetPhysicalDeviceSurfaceSupportKHR");
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    if (icd_lacks_surface(surface, ii, "vkGetPhysicalDeviceSurfaceSupportKHR", pd)) {
        if (pSupported != NULL) *pSupported = VK_FALSE;
        return VK_SUCCESS;
    }
    return ii->disp.GetPhysicalDeviceSurfaceSupportKHR(TERM(pd)->handle, family, vkl_wsi_icd_surface(surface, ii),
                                                       pSupported);
}

VkResult vkl_term_GetPhysicalDeviceSurfaceCapabilitiesKHR(VkPhysicalDevice pd, VkSurfaceKHR surface,
                                                          VkSurfaceCapabilitiesKHR *caps) {
    NEED(GetPhysicalDeviceSurfaceCapabilitiesKHR, "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
    NO_SURFACE(surface, "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    return ii->disp.GetPhysicalDeviceSurfaceCapabilitiesKHR(TERM(pd)->handle, vkl_wsi_icd_surface(surface, ii), caps);
}

/* RULE_DRV_UNTRUSTED_ANSWERS: the formats and present-mode queries (as the tool-properties query,
 * emulate.c) hand the application's array and count straight to the one driver of the physical
 * device; the loader allocates nothing and reads nothing of the answer, so a driver that lies (a
 * count above the array, a write past it) gives the application exactly that answer, as the Vulkan
 * specification defines the command's result to be the driver's. Where the loader fills a buffer of
 * its own (the Formats2 emulation below) it keeps slack and cuts the count. */
VkResult vkl_term_GetPhysicalDeviceSurfaceFormatsKHR(VkPhysicalDevice pd, VkSurfaceKHR surface, uint32_t *pCount,
                                                     VkSurfaceFormatKHR *pFormats) {
    NEED(GetPhysicalDeviceSurfaceFormatsKHR, "vkGetPhysicalDeviceSurfaceFormatsKHR");
    NO_SURFACE(surface, "vkGetPhysicalDeviceSurfaceFormatsKHR");
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    return ii->disp.GetPhysicalDeviceSurfaceFormatsKHR(TERM(pd)->handle, vkl_wsi_icd_surface(surface, ii), pCount,
                                                       pFormats);
}

VkResult vkl_term_GetPhysicalDeviceSurfacePresentModesKHR(VkPhysicalDevice pd, VkSurfaceKHR surface, uint32_t *pCount,
                                                          VkPresentModeKHR *pModes) {
    NEED(GetPhysicalDeviceSurfacePresentModesKHR, "vkGetPhysicalDeviceSurfacePresentModesKHR");
    NO_SURFACE(surface, "vkGetPhysicalDeviceSurfacePresentModesKHR");
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    return ii->disp.GetPhysicalDeviceSurfacePresentModesKHR(TERM(pd)->handle, vkl_wsi_icd_surface(surface, ii), pCount,
                                                            pModes);
}

VkResult vkl_term_GetPhysicalDevicePresentRectanglesKHR(VkPhysicalDevice pd, VkSurfaceKHR surface, uint32_t *pCount,
                                                        VkRect2D *pRects) {
    NEED(GetPhysicalDevicePresentRectanglesKHR, "vkGetPhysicalDevicePresentRectanglesKHR");
    NO_SURFACE(surface, "vkGetPhysicalDevicePresentRectanglesKHR");
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    return ii->disp.GetPhysicalDevicePresentRectanglesKHR(TERM(pd)->handle, vkl_wsi_icd_surface(surface, ii), pCount,
                                                          pRects);
}

/* RULE_EMULATE_SURFACE_CAPS2EXT: a driver without VK_EXT_display_surface_counter's query answers
 * from vkGetPhysicalDeviceSurfaceCapabilitiesKHR; it supports no surface counter. */
VkResult vkl_term_GetPhysicalDeviceSurfaceCapabilities2EXT(VkPhysicalDevice pd, VkSurfaceKHR surface,
                                                           VkSurfaceCapabilities2EXT *caps) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    NO_SURFACE(surface, "vkGetPhysicalDeviceSurfaceCapabilities2EXT");
    if (ii->disp.GetPhysicalDeviceSurfaceCapabilities2EXT != NULL)
        return ii->disp.GetPhysicalDeviceSurfaceCapabilities2EXT(TERM(pd)->handle, vkl_wsi_icd_surface(surface, ii),
                                                                 caps);
    NEED(GetPhysicalDeviceSurfaceCapabilitiesKHR, "vkGetPhysicalDeviceSurfaceCapabilities2EXT");
    struct vkl_instance *inst = vkl_physdev_from_term(pd)->tramp.instance;
    vkl_log(&inst->log, VKL_LOG_INFO | VKL_LOG_DRIVER,
            "vkGetPhysicalDeviceSurfaceCapabilities2EXT: emulating the call for driver %s with "
            "vkGetPhysicalDeviceSurfaceCapabilitiesKHR [RULE_EMULATE_SURFACE_CAPS2EXT]",
            vkl_driver_name(ii->driver));
    if (caps == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    VkSurfaceCapabilitiesKHR c;
    memset(&c, 0, sizeof(c));
    VkResult r =
        ii->disp.GetPhysicalDeviceSurfaceCapabilitiesKHR(TERM(pd)->handle, vkl_wsi_icd_surface(surface, ii), &c);
    if (r < 0) return r;
    caps->minImageCount = c.minImageCount;
    caps->maxImageCount = c.maxImageCount;
    caps->currentExtent = c.currentExtent;
    caps->minImageExtent = c.minImageExtent;
    caps->maxImageExtent = c.maxImageExtent;
    caps->maxImageArrayLayers = c.maxImageArrayLayers;
    caps->supportedTransforms = c.supportedTransforms;
    caps->currentTransform = c.currentTransform;
    caps->supportedCompositeAlpha = c.supportedCompositeAlpha;
    caps->supportedUsageFlags = c.supportedUsageFlags;
    caps->supportedSurfaceCounters = 0;
    return r;
}

/* RULE_EMULATE_PRESENT_MODE_COMPAT: VK_EXT_surface_maintenance1 is an instance extension, so an
 * application that enabled it (some driver offers it) chains its structs for every physical device.
 * For a driver that does not have the extension the loader fills them after the driver's answer:
 * the requested present mode (VkSurfacePresentModeEXT in pSurfaceInfo) is the only compatible one,
 * and no present scaling or gravity is supported (scaled extents = the surface's min/max image
 * extent). Nothing is filled when no present mode was requested. */
static void emulate_surface_maintenance1(const struct vkl_icd_instance *ii, const VkPhysicalDeviceSurfaceInfo2KHR *info,
                                         VkSurfaceCapabilities2KHR *caps) {
    if (vkl_driver_has_extension(ii->driver, "VK_EXT_surface_maintenance1")) return;
    const VkSurfacePresentModeEXT *mode = NULL;
    for (const VkBaseInStructure *p = info->pNext; p != NULL; p = p->pNext)
        if (p->sType == VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_EXT)
            mode = (const VkSurfacePresentModeEXT *)(const void *)p;
    if (mode == NULL) return;
    for (VkBaseOutStructure *p = caps->pNext; p != NULL; p = p->pNext) {
        if (p->sType == VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_COMPATIBILITY_EXT) {
            VkSurfacePresentModeCompatibilityEXT *c = (VkSurfacePresentModeCompatibilityEXT *)(void *)p;
            if (c->pPresentModes == NULL) {
                c->presentModeCount = 1;
            } else if (c->presentModeCount != 0) { /* a count of 0 with an array: nothing is written */
                c->pPresentModes[0] = mode->presentMode;
                c->presentModeCount = 1;
            }
        } else if (p->sType == VK_STRUCTURE_TYPE_SURFACE_PRESENT_SCALING_CAPABILITIES_EXT) {
            VkSurfacePresentScalingCapabilitiesEXT *s = (VkSurfacePresentScalingCapabilitiesEXT *)(void *)p;
            s->supportedPresentScaling = 0;
            s->supportedPresentGravityX = 0;
            s->supportedPresentGravityY = 0;
            s->minScaledImageExtent = caps->surfaceCapabilities.minImageExtent;
            s->maxScaledImageExtent = caps->surfaceCapabilities.maxImageExtent;
        }
    }
}

VkResult vkl_term_GetPhysicalDeviceSurfaceCapabilities2KHR(VkPhysicalDevice pd,
                                                           const VkPhysicalDeviceSurfaceInfo2KHR *info,
                                                           VkSurfaceCapabilities2KHR *caps) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    NO_SURFACE(info->surface, "vkGetPhysicalDeviceSurfaceCapabilities2KHR");
    VkPhysicalDeviceSurfaceInfo2KHR copy = *info;
    copy.surface = vkl_wsi_icd_surface(info->surface, ii);
    VkResult r;
    if (ii->disp.GetPhysicalDeviceSurfaceCapabilities2KHR != NULL) {
        r = ii->disp.GetPhysicalDeviceSurfaceCapabilities2KHR(TERM(pd)->handle, &copy, caps);
    } else {
        /* LDP_LOADER_8: a driver without VK_KHR_get_surface_capabilities2 still answers the 1.0 form;
         * extension structs in either chain are the emulation's below, or ignored. */
        NEED(GetPhysicalDeviceSurfaceCapabilitiesKHR, "vkGetPhysicalDeviceSurfaceCapabilities2KHR");
        r = ii->disp.GetPhysicalDeviceSurfaceCapabilitiesKHR(TERM(pd)->handle, copy.surface,
                                                             &caps->surfaceCapabilities);
    }
    if (r >= 0) emulate_surface_maintenance1(ii, info, caps);
    return r;
}

VkResult vkl_term_GetPhysicalDeviceSurfaceFormats2KHR(VkPhysicalDevice pd, const VkPhysicalDeviceSurfaceInfo2KHR *info,
                                                      uint32_t *pCount, VkSurfaceFormat2KHR *pFormats) {
    const struct vkl_icd_instance *ii = TERM(pd)->icd;
    NO_SURFACE(info->surface, "vkGetPhysicalDeviceSurfaceFormats2KHR");
    VkPhysicalDeviceSurfaceInfo2KHR copy = *info;
    copy.surface = vkl_wsi_icd_surface(info->surface, ii);
    if (ii->disp.GetPhysicalDeviceSurfaceFormats2KHR != NULL)
        return ii->disp.GetPhysicalDeviceSurfaceFormats2KHR(TERM(pd)->handle, &copy, pCount, pFormats);
    NEED(GetPhysicalDeviceSurfaceFormatsKHR, "vkGetPhysicalDeviceSurfaceFormats2KHR");
    if (info->pNext != NULL) return VK_ERROR_EXTENSION_NOT_PRESENT;
    if (pFormats == NULL)
        return ii->disp.GetPhysicalDeviceSurfaceFormatsKHR(TERM(pd)->handle, copy.surface, pCount, NULL);
    struct vkl_instance *inst = vkl_physdev_from_term(pd)->tramp.instance;
    uint32_t n = *pCount, asked = n;
    /* The loader's own buffer: one element of slack after the n the driver is given, a count above n
     * cut, a write past it logged (RULE_DRV_UNTRUSTED_ANSWERS); the application's array never sees
     * more than it holds. (The non-2 query hands the application's array straight to the driver.) */
    VkSurfaceFormatKHR *tmp =
        vkl_alloc(&inst->alloc, ((size_t)n + 1) * sizeof(*tmp), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (tmp == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    vkl_slack_init(&tmp[asked], sizeof(*tmp));
    VkResult r = ii->disp.GetPhysicalDeviceSurfaceFormatsKHR(TERM(pd)->handle, copy.surface, &n, tmp);
    if (r >= 0) {
        uint32_t reported = n;
        n = vkl_fill_checked(&inst->log, ii->driver, "vkGetPhysicalDeviceSurfaceFormatsKHR", asked, n, &tmp[asked],
                             sizeof(*tmp));
        if (reported > n) r = VK_INCOMPLETE; /* the driver has more than the array holds */
    }
    for (uint32_t i = 0; i < n && (r == VK_SUCCESS || r == VK_INCOMPLETE); i++) pFormats[i].surfaceFormat = tmp[i];
    *pCount = n;
    vkl_free(&inst->alloc, tmp);
    return r;
}

/* ---- device commands that name a surface (reached through vkl_term_GetDeviceProcAddr) ---- */

static PFN_vkVoidFunction driver_device_fn(VkDevice device, const char *name) {
    return vkl_device_from_handle(device)->icd->disp.GetDeviceProcAddr(device, name);
}

static VKAPI_ATTR VkResult VKAPI_CALL wsi_CreateSwapchainKHR(VkDevice device, const VkSwapchainCreateInfoKHR *ci,
                                                             const VkAllocationCallbacks *cb, VkSwapchainKHR *out) {
    PFN_vkCreateSwapchainKHR f = (PFN_vkCreateSwapchainKHR)driver_device_fn(device, "vkCreateSwapchainKHR");
    if (f == NULL) return VK_ERROR_EXTENSION_NOT_PRESENT;
    VkSwapchainCreateInfoKHR copy = *ci;
    copy.surface = vkl_wsi_icd_surface(ci->surface, vkl_device_from_handle(device)->icd);
    return f(device, &copy, cb, out);
}

static VKAPI_ATTR VkResult VKAPI_CALL wsi_CreateSharedSwapchainsKHR(VkDevice device, uint32_t count,
                                                                    const VkSwapchainCreateInfoKHR *cis,
                                                                    const VkAllocationCallbacks *cb,
                                                                    VkSwapchainKHR *out) {
    PFN_vkCreateSharedSwapchainsKHR f =
        (PFN_vkCreateSharedSwapchainsKHR)driver_device_fn(device, "vkCreateSharedSwapchainsKHR");
    if (f == NULL) return VK_ERROR_EXTENSION_NOT_PRESENT;
    struct vkl_device *dev = vkl_device_from_handle(device);
    VkSwapchainCreateInfoKHR *copy =
        vkl_alloc(&dev->alloc, (count ? count : 1) * sizeof(*copy), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (copy == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    for (uint32_t i = 0; i < count; i++) {
        copy[i] = cis[i];
        copy[i].surface = vkl_wsi_icd_surface(cis[i].surface, dev->icd);
    }
    VkResult r = f(device, count, copy, cb, out);
    vkl_free(&dev->alloc, copy);
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL wsi_GetDeviceGroupSurfacePresentModesKHR(VkDevice device, VkSurfaceKHR surface,
                                                                               VkDeviceGroupPresentModeFlagsKHR *m) {
    PFN_vkGetDeviceGroupSurfacePresentModesKHR f =
        (PFN_vkGetDeviceGroupSurfacePresentModesKHR)driver_device_fn(device, "vkGetDeviceGroupSurfacePresentModesKHR");
    if (f == NULL) return VK_ERROR_EXTENSION_NOT_PRESENT;
    return f(device, vkl_wsi_icd_surface(surface, vkl_device_from_handle(device)->icd), m);
}

PFN_vkVoidFunction vkl_wsi_device_proc(VkDevice device, const char *name) {
    if (strncmp(name, "vk", 2) != 0) return NULL;
    PFN_vkVoidFunction mine = NULL;
    if (strcmp(name, "vkCreateSwapchainKHR") == 0)
        mine = (PFN_vkVoidFunction)wsi_CreateSwapchainKHR;
    else if (strcmp(name, "vkCreateSharedSwapchainsKHR") == 0)
        mine = (PFN_vkVoidFunction)wsi_CreateSharedSwapchainsKHR;
    else if (strcmp(name, "vkGetDeviceGroupSurfacePresentModesKHR") == 0)
        mine = (PFN_vkVoidFunction)wsi_GetDeviceGroupSurfacePresentModesKHR;
    if (mine == NULL) return NULL;
    /* Only when the driver has the command: otherwise the application must see NULL. */
    return driver_device_fn(device, name) != NULL ? mine : NULL;
}
