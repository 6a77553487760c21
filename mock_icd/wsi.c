/* Mock driver, window-system integration: surfaces, surface queries, VK_KHR_display and
 * VK_EXT_acquire_xlib_display, swapchains, device-group present queries. */
#include "mock_icd/mock_icd_internal.h"

/* Surfaces: answered when the scenario lists VK_KHR_surface and the interface is >= 3 (the driver
 * then owns its surfaces), or below 3 with misbehave.surface_without_interface_3 (LDP_DRIVER_8).
 * The create-info type differs per platform but is only read as an opaque pointer. */
static VkResult create_surface_ex(const char *call, VkInstance instance, const void *ci,
                                  const VkDisplaySurfaceCreateInfoKHR *display, VkSurfaceKHR *out) {
    struct mock_instance *inst = find_instance(instance);
    maybe_crash(inst, call);
    VkResult r = injected(call);
    if (!inst || !out) r = VK_ERROR_INITIALIZATION_FAILED;
    if (r >= 0) {
        struct mock_surface *s = calloc(1, sizeof *s);
        if (!s) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
        } else {
            s->kind = call;
            pthread_mutex_lock(&g_lock);
            s->next = inst->surfaces;
            inst->surfaces = s;
            pthread_mutex_unlock(&g_lock);
            *out = (VkSurfaceKHR)(void *)s;
        }
    }
    cJSON *o = rec_new(call);
    cJSON_AddNumberToObject(o, "interface", effective_interface());
    if (display != NULL) { /* the handles the loader passed through */
        cJSON_AddNumberToObject(o, "display_mode", (double)(uint64_t)(uintptr_t)display->displayMode);
        cJSON_AddNumberToObject(o, "plane_index", (double)display->planeIndex);
    }
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

static VkResult create_surface(const char *call, VkInstance instance, const void *ci, VkSurfaceKHR *out) {
    return create_surface_ex(call, instance, ci, NULL, out);
}

/* What kind of surface handle the loader handed us: "own" (one this mock created and has not
 * destroyed), "container" (below interface 3 the loader's VkIcdSurface*: only then is the handle
 * read, as VkIcdSurfaceBase, adding "platform"), "foreign" (anything else at interface >= 3; never
 * dereferenced) or "null". LDP_LOADER_10/11. */
static void rec_add_surface(cJSON *o, VkSurfaceKHR surface) {
    const char *kind = "null";
    if (surface != VK_NULL_HANDLE) {
        bool own = false;
        pthread_mutex_lock(&g_lock);
        for (struct mock_instance *i = g_instances; i && !own; i = i->next)
            for (struct mock_surface *s = i->surfaces; s && !own; s = s->next) own = (void *)s == (void *)surface;
        pthread_mutex_unlock(&g_lock);
        if (own) {
            kind = "own";
        } else if (effective_interface() < 3) {
            kind = "container";
            cJSON_AddNumberToObject(o, "platform", ((const VkIcdSurfaceBase *)(uintptr_t)surface)->platform);
        } else {
            kind = "foreign";
        }
    }
    cJSON_AddStringToObject(o, "surface", kind);
}

#define SURFACE_CREATE(name)                                                                                           \
    VKAPI_ATTR VkResult VKAPI_CALL mock_##name(VkInstance instance, const void *ci,                                    \
                                               const VkAllocationCallbacks *alloc, VkSurfaceKHR *out) {                \
        return create_surface("vk" #name, instance, ci, out);                                                          \
    }
SURFACE_CREATE(CreateXlibSurfaceKHR)
SURFACE_CREATE(CreateXcbSurfaceKHR)
SURFACE_CREATE(CreateWaylandSurfaceKHR)
SURFACE_CREATE(CreateHeadlessSurfaceEXT)

/* VK_KHR_display: the display mode handle the loader passed through is recorded too. */
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateDisplayPlaneSurfaceKHR(VkInstance instance,
                                                                 const VkDisplaySurfaceCreateInfoKHR *ci,
                                                                 const VkAllocationCallbacks *alloc,
                                                                 VkSurfaceKHR *out) {
    (void)alloc;
    return create_surface_ex("vkCreateDisplayPlaneSurfaceKHR", instance, ci, ci, out);
}

VKAPI_ATTR void VKAPI_CALL mock_DestroySurfaceKHR(VkInstance instance, VkSurfaceKHR surface,
                                                  const VkAllocationCallbacks *alloc) {
    struct mock_instance *inst = find_instance(instance);
    bool found = false;
    pthread_mutex_lock(&g_lock);
    if (inst) {
        for (struct mock_surface **pp = &inst->surfaces; *pp; pp = &(*pp)->next) {
            if ((void *)*pp == (void *)surface) {
                struct mock_surface *s = *pp;
                *pp = s->next;
                free(s);
                found = true;
                break;
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
    cJSON *o = rec_new("vkDestroySurfaceKHR");
    cJSON_AddBoolToObject(o, "valid", found || surface == VK_NULL_HANDLE);
    rec_emit(o);
}

static void rec_surface_query(const char *call, const struct mock_physdev *pd, VkSurfaceKHR surface) {
    cJSON *o = rec_new(call);
    cJSON_AddNumberToObject(o, "physical_device", pd->index);
    rec_add_surface(o, surface);
    rec_emit(o);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceSupportKHR(VkPhysicalDevice physicalDevice, uint32_t family,
                                                                       VkSurfaceKHR surface, VkBool32 *supported) {
    GET_PD("vkGetPhysicalDeviceSurfaceSupportKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_surface_query("vkGetPhysicalDeviceSurfaceSupportKHR", pd, surface);
    if (supported) *supported = family < pd->cfg->family_count ? VK_TRUE : VK_FALSE;
    return injected("vkGetPhysicalDeviceSurfaceSupportKHR");
}

/* The surface capabilities every surface query reports. */
static void mock_fill_surface_caps(VkSurfaceCapabilitiesKHR *caps) {
    memset(caps, 0, sizeof *caps);
    caps->minImageCount = 1;
    caps->maxImageCount = 3;
    caps->currentExtent = (VkExtent2D){640, 480};
    caps->minImageExtent = (VkExtent2D){1, 1};
    caps->maxImageExtent = (VkExtent2D){4096, 4096};
    caps->maxImageArrayLayers = 1;
    caps->supportedTransforms = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
    caps->currentTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
    caps->supportedCompositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    caps->supportedUsageFlags = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceCapabilitiesKHR(VkPhysicalDevice physicalDevice,
                                                                            VkSurfaceKHR surface,
                                                                            VkSurfaceCapabilitiesKHR *caps) {
    GET_PD("vkGetPhysicalDeviceSurfaceCapabilitiesKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_surface_query("vkGetPhysicalDeviceSurfaceCapabilitiesKHR", pd, surface);
    if (caps) mock_fill_surface_caps(caps);
    return injected("vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceFormatsKHR(VkPhysicalDevice physicalDevice,
                                                                       VkSurfaceKHR surface, uint32_t *count,
                                                                       VkSurfaceFormatKHR *formats) {
    GET_PD("vkGetPhysicalDeviceSurfaceFormatsKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_surface_query("vkGetPhysicalDeviceSurfaceFormatsKHR", pd, surface);
    static const VkSurfaceFormatKHR k_format = {VK_FORMAT_B8G8R8A8_UNORM, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR};
    static const VkSurfaceFormatKHR k_past = {VK_FORMAT_R5G6B5_UNORM_PACK16, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR};
    ONE_ELEMENT_LIAR("vkGetPhysicalDeviceSurfaceFormatsKHR", count, formats, formats[0] = k_format, k_past);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfacePresentModesKHR(VkPhysicalDevice physicalDevice,
                                                                            VkSurfaceKHR surface, uint32_t *count,
                                                                            VkPresentModeKHR *modes) {
    GET_PD("vkGetPhysicalDeviceSurfacePresentModesKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_surface_query("vkGetPhysicalDeviceSurfacePresentModesKHR", pd, surface);
    static const VkPresentModeKHR k_past = VK_PRESENT_MODE_IMMEDIATE_KHR;
    ONE_ELEMENT_LIAR("vkGetPhysicalDeviceSurfacePresentModesKHR", count, modes, modes[0] = VK_PRESENT_MODE_FIFO_KHR,
                     k_past);
}

/* ---- VK_KHR_display / VK_KHR_get_display_properties2 (one display, plane and mode per device) ---- */
/* Handles are numbers derived from the device index; nothing is allocated. */
#define MOCK_DISPLAY(pd) ((VkDisplayKHR)(uintptr_t)(0xd1500u + (pd)->index))
#define MOCK_DISPLAY_MODE(pd) ((VkDisplayModeKHR)(uintptr_t)(0xd1600u + (pd)->index))

void rec_display_call(const char *call, const struct mock_physdev *pd) {
    cJSON *o = rec_new(call);
    cJSON_AddNumberToObject(o, "physical_device", pd->index);
    rec_emit(o);
}

static void fill_display(const struct mock_physdev *pd, VkDisplayPropertiesKHR *p) {
    memset(p, 0, sizeof *p);
    p->display = MOCK_DISPLAY(pd);
    p->displayName = "Mock Display";
    p->physicalDimensions = (VkExtent2D){520, 290};
    p->physicalResolution = (VkExtent2D){1920, 1080};
    p->supportedTransforms = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
}

static void fill_plane(const struct mock_physdev *pd, VkDisplayPlanePropertiesKHR *p) {
    p->currentDisplay = MOCK_DISPLAY(pd);
    p->currentStackIndex = 0;
}

static void fill_mode(const struct mock_physdev *pd, VkDisplayModePropertiesKHR *p) {
    p->displayMode = MOCK_DISPLAY_MODE(pd);
    p->parameters.visibleRegion = (VkExtent2D){1920, 1080};
    p->parameters.refreshRate = 60000;
}

static void fill_plane_caps(VkDisplayPlaneCapabilitiesKHR *c) {
    memset(c, 0, sizeof *c);
    c->supportedAlpha = VK_DISPLAY_PLANE_ALPHA_OPAQUE_BIT_KHR;
    c->maxSrcExtent = (VkExtent2D){1920, 1080};
    c->maxDstExtent = (VkExtent2D){1920, 1080};
    c->minDstExtent = (VkExtent2D){1, 1};
}

/* The display and plane queries: one element each, `fill` writes out[0] (pd is the device). */
#define DISPLAY_QUERY(name, Type, fill)                                                                                \
    VKAPI_ATTR VkResult VKAPI_CALL mock_##name(VkPhysicalDevice physicalDevice, uint32_t *count, Type *out) {          \
        GET_PD("vk" #name, VK_ERROR_INITIALIZATION_FAILED);                                                            \
        rec_display_call("vk" #name, pd);                                                                              \
        ONE_ELEMENT(count, out, fill);                                                                                 \
    }
DISPLAY_QUERY(GetPhysicalDeviceDisplayPropertiesKHR, VkDisplayPropertiesKHR, fill_display(pd, &out[0]))
DISPLAY_QUERY(GetPhysicalDeviceDisplayProperties2KHR, VkDisplayProperties2KHR,
              fill_display(pd, &out[0].displayProperties))
DISPLAY_QUERY(GetPhysicalDeviceDisplayPlanePropertiesKHR, VkDisplayPlanePropertiesKHR, fill_plane(pd, &out[0]))
DISPLAY_QUERY(GetPhysicalDeviceDisplayPlaneProperties2KHR, VkDisplayPlaneProperties2KHR,
              fill_plane(pd, &out[0].displayPlaneProperties))

VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayPlaneSupportedDisplaysKHR(VkPhysicalDevice physicalDevice, uint32_t plane,
                                                                        uint32_t *count, VkDisplayKHR *out) {
    GET_PD("vkGetDisplayPlaneSupportedDisplaysKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetDisplayPlaneSupportedDisplaysKHR", pd);
    if (plane != 0 && count) {
        *count = 0;
        return VK_SUCCESS;
    }
    ONE_ELEMENT(count, out, out[0] = MOCK_DISPLAY(pd));
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayModePropertiesKHR(VkPhysicalDevice physicalDevice, VkDisplayKHR display,
                                                                uint32_t *count, VkDisplayModePropertiesKHR *out) {
    GET_PD("vkGetDisplayModePropertiesKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetDisplayModePropertiesKHR", pd);
    (void)display;
    ONE_ELEMENT(count, out, fill_mode(pd, &out[0]));
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayModeProperties2KHR(VkPhysicalDevice physicalDevice, VkDisplayKHR display,
                                                                 uint32_t *count, VkDisplayModeProperties2KHR *out) {
    GET_PD("vkGetDisplayModeProperties2KHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetDisplayModeProperties2KHR", pd);
    (void)display;
    ONE_ELEMENT(count, out, fill_mode(pd, &out[0].displayModeProperties));
}

VKAPI_ATTR VkResult VKAPI_CALL mock_CreateDisplayModeKHR(VkPhysicalDevice physicalDevice, VkDisplayKHR display,
                                                         const VkDisplayModeCreateInfoKHR *ci,
                                                         const VkAllocationCallbacks *alloc, VkDisplayModeKHR *out) {
    GET_PD("vkCreateDisplayModeKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkCreateDisplayModeKHR", pd);
    (void)display;
    (void)ci;
    (void)alloc;
    if (out) *out = MOCK_DISPLAY_MODE(pd);
    return injected("vkCreateDisplayModeKHR");
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayPlaneCapabilitiesKHR(VkPhysicalDevice physicalDevice,
                                                                   VkDisplayModeKHR mode, uint32_t plane,
                                                                   VkDisplayPlaneCapabilitiesKHR *caps) {
    GET_PD("vkGetDisplayPlaneCapabilitiesKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetDisplayPlaneCapabilitiesKHR", pd);
    (void)mode;
    (void)plane;
    if (caps) fill_plane_caps(caps);
    return VK_SUCCESS;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayPlaneCapabilities2KHR(VkPhysicalDevice physicalDevice,
                                                                    const VkDisplayPlaneInfo2KHR *info,
                                                                    VkDisplayPlaneCapabilities2KHR *caps) {
    GET_PD("vkGetDisplayPlaneCapabilities2KHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetDisplayPlaneCapabilities2KHR", pd);
    (void)info;
    if (caps) fill_plane_caps(&caps->capabilities);
    return VK_SUCCESS;
}

/* ---- VK_EXT_acquire_xlib_display (types spelled out: the mock does not include Xrandr.h) ---- */
VKAPI_ATTR VkResult VKAPI_CALL mock_AcquireXlibDisplayEXT(VkPhysicalDevice physicalDevice, void *dpy,
                                                          VkDisplayKHR display) {
    GET_PD("vkAcquireXlibDisplayEXT", VK_ERROR_INITIALIZATION_FAILED);
    VkResult r = injected("vkAcquireXlibDisplayEXT");
    cJSON *o = rec_new("vkAcquireXlibDisplayEXT");
    cJSON_AddNumberToObject(o, "physical_device", pd->index);
    cJSON_AddNumberToObject(o, "dpy", (double)(uintptr_t)dpy);
    cJSON_AddNumberToObject(o, "display", (double)(uintptr_t)display);
    cJSON_AddBoolToObject(o, "own_display", display == MOCK_DISPLAY(pd));
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetRandROutputDisplayEXT(VkPhysicalDevice physicalDevice, void *dpy,
                                                             unsigned long rr_output, VkDisplayKHR *out) {
    GET_PD("vkGetRandROutputDisplayEXT", VK_ERROR_INITIALIZATION_FAILED);
    VkResult r = injected("vkGetRandROutputDisplayEXT");
    cJSON *o = rec_new("vkGetRandROutputDisplayEXT");
    cJSON_AddNumberToObject(o, "physical_device", pd->index);
    cJSON_AddNumberToObject(o, "dpy", (double)(uintptr_t)dpy);
    cJSON_AddNumberToObject(o, "rr_output", (double)rr_output);
    rec_add_result(o, r);
    rec_emit(o);
    if (out && r >= 0) *out = MOCK_DISPLAY(pd);
    return r;
}

/* ---- vkGetPhysicalDeviceSurfaceCapabilities2EXT / 2KHR ---- */
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceCapabilities2EXT(VkPhysicalDevice physicalDevice,
                                                                             VkSurfaceKHR surface,
                                                                             VkSurfaceCapabilities2EXT *caps) {
    GET_PD("vkGetPhysicalDeviceSurfaceCapabilities2EXT", VK_ERROR_INITIALIZATION_FAILED);
    rec_surface_query("vkGetPhysicalDeviceSurfaceCapabilities2EXT", pd, surface);
    if (caps) {
        VkSurfaceCapabilitiesKHR c;
        mock_fill_surface_caps(&c);
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
        caps->supportedSurfaceCounters = VK_SURFACE_COUNTER_VBLANK_BIT_EXT;
    }
    return injected("vkGetPhysicalDeviceSurfaceCapabilities2EXT");
}

/* With VK_EXT_surface_maintenance1 listed the mock fills its structs: FIFO and FIFO_RELAXED are
 * compatible, one-to-one scaling with minimum gravity. The record says which present mode was asked. */
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceCapabilities2KHR(
    VkPhysicalDevice physicalDevice, const VkPhysicalDeviceSurfaceInfo2KHR *info, VkSurfaceCapabilities2KHR *caps) {
    GET_PD("vkGetPhysicalDeviceSurfaceCapabilities2KHR", VK_ERROR_INITIALIZATION_FAILED);
    cJSON *o = rec_new("vkGetPhysicalDeviceSurfaceCapabilities2KHR");
    cJSON_AddNumberToObject(o, "physical_device", pd->index);
    rec_add_surface(o, info ? info->surface : VK_NULL_HANDLE);
    const VkSurfacePresentModeEXT *mode = NULL;
    for (const VkBaseInStructure *p = info ? info->pNext : NULL; p; p = p->pNext)
        if (p->sType == VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_EXT)
            mode = (const VkSurfacePresentModeEXT *)(const void *)p;
    if (mode)
        cJSON_AddNumberToObject(o, "present_mode", mode->presentMode);
    else
        cJSON_AddNullToObject(o, "present_mode");
    rec_emit(o);
    if (!caps) return VK_ERROR_INITIALIZATION_FAILED;
    mock_fill_surface_caps(&caps->surfaceCapabilities);
    if (inst_ext("VK_EXT_surface_maintenance1")) {
        for (VkBaseOutStructure *p = caps->pNext; p; p = p->pNext) {
            if (p->sType == VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_COMPATIBILITY_EXT) {
                VkSurfacePresentModeCompatibilityEXT *c = (VkSurfacePresentModeCompatibilityEXT *)(void *)p;
                static const VkPresentModeKHR modes[] = {VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_FIFO_RELAXED_KHR};
                if (!c->pPresentModes) {
                    c->presentModeCount = 2;
                } else {
                    uint32_t n = c->presentModeCount < 2 ? c->presentModeCount : 2;
                    for (uint32_t i = 0; i < n; i++) c->pPresentModes[i] = modes[i];
                    c->presentModeCount = n;
                }
            } else if (p->sType == VK_STRUCTURE_TYPE_SURFACE_PRESENT_SCALING_CAPABILITIES_EXT) {
                VkSurfacePresentScalingCapabilitiesEXT *s = (VkSurfacePresentScalingCapabilitiesEXT *)(void *)p;
                s->supportedPresentScaling = VK_PRESENT_SCALING_ONE_TO_ONE_BIT_EXT;
                s->supportedPresentGravityX = VK_PRESENT_GRAVITY_MIN_BIT_EXT;
                s->supportedPresentGravityY = VK_PRESENT_GRAVITY_MIN_BIT_EXT;
                s->minScaledImageExtent = (VkExtent2D){2, 2};
                s->maxScaledImageExtent = (VkExtent2D){2048, 2048};
            }
        }
    }
    return injected("vkGetPhysicalDeviceSurfaceCapabilities2KHR");
}

/* VK_KHR_device_group with VK_KHR_swapchain (what vulkaninfo's device-group section asks): every
 * device presents only its own images (each group member is its own device here). */
VKAPI_ATTR VkResult VKAPI_CALL mock_GetDeviceGroupPresentCapabilitiesKHR(VkDevice device,
                                                                         VkDeviceGroupPresentCapabilitiesKHR *caps) {
    if (!find_device(device)) {
        rec_invalid_handle("vkGetDeviceGroupPresentCapabilitiesKHR", "VkDevice");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkResult r = injected("vkGetDeviceGroupPresentCapabilitiesKHR");
    if (r < 0 || !caps) return caps ? r : VK_ERROR_INITIALIZATION_FAILED;
    memset(caps->presentMask, 0, sizeof caps->presentMask);
    caps->presentMask[0] = 1u;
    caps->modes = VK_DEVICE_GROUP_PRESENT_MODE_LOCAL_BIT_KHR;
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_GetDeviceGroupSurfacePresentModesKHR(VkDevice device, VkSurfaceKHR surface,
                                                                         VkDeviceGroupPresentModeFlagsKHR *modes) {
    (void)surface;
    if (!find_device(device)) {
        rec_invalid_handle("vkGetDeviceGroupSurfacePresentModesKHR", "VkDevice");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    if (modes) *modes = VK_DEVICE_GROUP_PRESENT_MODE_LOCAL_BIT_KHR;
    return injected("vkGetDeviceGroupSurfacePresentModesKHR");
}

/* Swapchains: recorded only (what surface handle the driver received, LDP_LOADER_11); the handle is
 * an opaque number, nothing is allocated. */
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateSwapchainKHR(VkDevice device, const VkSwapchainCreateInfoKHR *ci,
                                                       const VkAllocationCallbacks *alloc, VkSwapchainKHR *out) {
    (void)alloc;
    VkResult r = injected("vkCreateSwapchainKHR");
    bool valid = find_device(device) != NULL;
    if (!valid || !ci || !out) r = VK_ERROR_INITIALIZATION_FAILED;
    if (r >= 0) {
        pthread_mutex_lock(&g_lock);
        uint32_t n = ++g_next_swapchain;
        pthread_mutex_unlock(&g_lock);
        *out = (VkSwapchainKHR)(uintptr_t)(0x5C000000u + n);
    }
    cJSON *o = rec_new("vkCreateSwapchainKHR");
    cJSON_AddBoolToObject(o, "valid", valid);
    rec_add_surface(o, ci ? ci->surface : VK_NULL_HANDLE);
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

VKAPI_ATTR void VKAPI_CALL mock_DestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                    const VkAllocationCallbacks *alloc) {
    (void)alloc;
    cJSON *o = rec_new("vkDestroySwapchainKHR");
    cJSON_AddBoolToObject(o, "valid", find_device(device) != NULL);
    cJSON_AddBoolToObject(o, "null", swapchain == VK_NULL_HANDLE);
    rec_emit(o);
}
