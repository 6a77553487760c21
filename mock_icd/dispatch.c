/* Mock driver, the entry points: interface negotiation, the proc-address tables
 * (vk_icdGetInstanceProcAddr, vkGetDeviceProcAddr, vk_icdGetPhysicalDeviceProcAddr), the
 * unknown-function pool and the exports the variant asks for (variants.bzl). */
#include "mock_icd/mock_icd_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* Negotiation                                                                                  */

/* through_gipa: called through the pointer vk_icdGetInstanceProcAddr(NULL, ...) returned (where
 * interface.max_through_gipa applies) rather than the export. */
static VkResult negotiate_impl(uint32_t *pVersion, bool through_gipa) {
    note_entry("vk_icdNegotiateLoaderICDInterfaceVersion", NULL);
    struct scenario *sc = sc_now();
    uint32_t max = min_u32(sc->if_max, MOCK_ICD_MAX_INTERFACE);
    if (through_gipa && sc->has_max_through_gipa) max = min_u32(max, sc->max_through_gipa);
    VkResult r;
    cJSON *o = rec_new("vk_icdNegotiateLoaderICDInterfaceVersion");
    if (!pVersion) {
        cJSON_AddNullToObject(o, "offered");
        r = VK_ERROR_INITIALIZATION_FAILED;
        rec_add_result(o, r);
        rec_emit(o);
        return r;
    }
    uint32_t offered = *pVersion;
    cJSON_AddNumberToObject(o, "offered", offered);
    if (offered < sc->if_min || sc->if_min > max) {
        r = VK_ERROR_INCOMPATIBLE_DRIVER;
    } else {
        *pVersion = offered < max ? offered : max;
        r = VK_SUCCESS;
    }
    for (uint32_t i = 0; i < sc->per_offer_count; i++) {
        const struct offer_cfg *po = &sc->per_offer[i];
        if (po->offer != offered) continue;
        if (po->is_result) {
            r = po->result;
        } else {
            *pVersion = po->version;
            r = VK_SUCCESS;
        }
    }
    if (sc->has_report_version) *pVersion = sc->report_version;
    if (sc->has_negotiate_result) r = sc->negotiate_result;
    VkResult inj = injected("vk_icdNegotiateLoaderICDInterfaceVersion");
    if (inj != VK_SUCCESS) r = inj;
    /* The loader takes any result but INCOMPATIBLE as success (spec §5.2): mirror that. */
    if (r != VK_ERROR_INCOMPATIBLE_DRIVER) g_negotiated = (int)*pVersion;
    cJSON_AddNumberToObject(o, "returned", *pVersion);
    cJSON_AddBoolToObject(o, "through_gipa", through_gipa);
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

__attribute__((unused)) static VKAPI_ATTR VkResult VKAPI_CALL mock_negotiate(uint32_t *pVersion) {
    return negotiate_impl(pVersion, false);
}

__attribute__((unused)) static VKAPI_ATTR VkResult VKAPI_CALL mock_negotiate_through_gipa(uint32_t *pVersion) {
    return negotiate_impl(pVersion, true);
}

/* ------------------------------------------------------------------------------------------ */
/* Unknown-function pool                                                                        */

static const char *handle_kind(const void *h) {
    if (find_device((VkDevice)(uintptr_t)h)) return "device";
    if (find_queue(h)) return "queue";
    if (find_cmdbuf(h)) return "command_buffer";
    if (find_physdev((VkPhysicalDevice)(uintptr_t)h)) return "physical_device";
    if (find_instance((VkInstance)(uintptr_t)h)) return "instance";
    return "unknown";
}

static uint32_t unknown_call(bool device, uint32_t slot, void *h, uint32_t x) {
    struct scenario *sc = sc_now();
    const char *name = NULL;
    if (device) {
        if (slot < sc->dev_func_count) name = sc->dev_funcs[slot];
    } else if (slot < sc->pd_func_count) {
        name = sc->pd_funcs[slot];
    } else if (slot - sc->pd_func_count < g_dyn_pd_count) {
        name = g_dyn_pd_names[slot - sc->pd_func_count];
    }
    cJSON *o = rec_new(name ? name : (device ? "unknown_device_slot" : "unknown_physdev_slot"));
    cJSON_AddNumberToObject(o, "slot", slot);
    cJSON_AddNumberToObject(o, "arg", x);
    cJSON_AddStringToObject(o, "handle", handle_kind(h));
    rec_emit(o);
    return device ? MOCK_ICD_UNKNOWN_DEVICE_RESULT(slot, x) : MOCK_ICD_UNKNOWN_PHYSDEV_RESULT(slot, x);
}

/* The macros below stay as written: clang-format 14 does not settle on their bodies. */
/* clang-format off */
#define MOCK_H16(M, p) \
    M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) M(p##5) M(p##6) M(p##7) \
    M(p##8) M(p##9) M(p##a) M(p##b) M(p##c) M(p##d) M(p##e) M(p##f)
#define MOCK_H256(M) \
    MOCK_H16(M, 0) MOCK_H16(M, 1) MOCK_H16(M, 2) MOCK_H16(M, 3) MOCK_H16(M, 4) MOCK_H16(M, 5) \
    MOCK_H16(M, 6) MOCK_H16(M, 7) MOCK_H16(M, 8) MOCK_H16(M, 9) MOCK_H16(M, a) MOCK_H16(M, b) \
    MOCK_H16(M, c) MOCK_H16(M, d) MOCK_H16(M, e) MOCK_H16(M, f)
/* clang-format on */

#define MOCK_DEV_FN(n)                                                                                                 \
    static uint32_t VKAPI_CALL mock_unknown_dev_##n(void *h, uint32_t x) { return unknown_call(true, 0x##n, h, x); }
#define MOCK_PD_FN(n)                                                                                                  \
    static uint32_t VKAPI_CALL mock_unknown_pd_##n(void *h, uint32_t x) { return unknown_call(false, 0x##n, h, x); }
#define MOCK_DEV_ENTRY(n) (PFN_vkVoidFunction) mock_unknown_dev_##n,
#define MOCK_PD_ENTRY(n) (PFN_vkVoidFunction) mock_unknown_pd_##n,

MOCK_H256(MOCK_DEV_FN)
MOCK_H256(MOCK_PD_FN)
static const PFN_vkVoidFunction k_dev_pool[] = {MOCK_H256(MOCK_DEV_ENTRY)};
static const PFN_vkVoidFunction k_pd_pool[] = {MOCK_H256(MOCK_PD_ENTRY)};
_Static_assert(sizeof k_dev_pool / sizeof k_dev_pool[0] == MOCK_ICD_UNKNOWN_SLOTS, "device pool size");
_Static_assert(sizeof k_pd_pool / sizeof k_pd_pool[0] == MOCK_ICD_UNKNOWN_SLOTS, "physdev pool size");

static PFN_vkVoidFunction lookup_unknown_device(const char *name) {
    struct scenario *sc = sc_now();
    for (uint32_t i = 0; i < sc->dev_func_count; i++)
        if (strcmp(sc->dev_funcs[i], name) == 0) return k_dev_pool[i];
    return NULL;
}

static PFN_vkVoidFunction lookup_unknown_physdev(const char *name) {
    struct scenario *sc = sc_now();
    for (uint32_t i = 0; i < sc->pd_func_count; i++)
        if (strcmp(sc->pd_funcs[i], name) == 0) return k_pd_pool[i];
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Proc-address tables                                                                          */

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_GetInstanceProcAddr(VkInstance instance, const char *name);
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_GetDeviceProcAddr(VkDevice device, const char *name);

static const struct cmd k_cmds[] = {
    {"vkGetInstanceProcAddr", (PFN_vkVoidFunction)mock_GetInstanceProcAddr, K_GLOBAL, G_ALWAYS},
    {"vkCreateInstance", (PFN_vkVoidFunction)mock_CreateInstance, K_GLOBAL, G_ALWAYS},
    {"vkEnumerateInstanceExtensionProperties", (PFN_vkVoidFunction)mock_EnumerateInstanceExtensionProperties, K_GLOBAL,
     G_ALWAYS},
    {"vkEnumerateInstanceVersion", (PFN_vkVoidFunction)mock_EnumerateInstanceVersion, K_GLOBAL, G_EIV},
    {"vkDestroyInstance", (PFN_vkVoidFunction)mock_DestroyInstance, K_INSTANCE, G_ALWAYS},
    {"vkEnumeratePhysicalDevices", (PFN_vkVoidFunction)mock_EnumeratePhysicalDevices, K_INSTANCE, G_ALWAYS},
    {"vkEnumeratePhysicalDeviceGroups", (PFN_vkVoidFunction)mock_EnumeratePhysicalDeviceGroups, K_INSTANCE, G_CORE11},
    {"vkEnumeratePhysicalDeviceGroupsKHR", (PFN_vkVoidFunction)mock_EnumeratePhysicalDeviceGroups, K_INSTANCE,
     G_GROUP_KHR},
    {"vkCreateDebugUtilsMessengerEXT", (PFN_vkVoidFunction)mock_CreateDebugUtilsMessengerEXT, K_INSTANCE,
     G_DEBUG_UTILS},
    {"vkDestroyDebugUtilsMessengerEXT", (PFN_vkVoidFunction)mock_DestroyDebugUtilsMessengerEXT, K_INSTANCE,
     G_DEBUG_UTILS},
    {"vkCreateXlibSurfaceKHR", (PFN_vkVoidFunction)mock_CreateXlibSurfaceKHR, K_INSTANCE, G_SURFACE_XLIB},
    {"vkCreateXcbSurfaceKHR", (PFN_vkVoidFunction)mock_CreateXcbSurfaceKHR, K_INSTANCE, G_SURFACE_XCB},
    {"vkCreateWaylandSurfaceKHR", (PFN_vkVoidFunction)mock_CreateWaylandSurfaceKHR, K_INSTANCE, G_SURFACE_WAYLAND},
    {"vkCreateHeadlessSurfaceEXT", (PFN_vkVoidFunction)mock_CreateHeadlessSurfaceEXT, K_INSTANCE, G_SURFACE_HEADLESS},
    {"vkCreateDisplayPlaneSurfaceKHR", (PFN_vkVoidFunction)mock_CreateDisplayPlaneSurfaceKHR, K_INSTANCE,
     G_SURFACE_DISPLAY},
    {"vkDestroySurfaceKHR", (PFN_vkVoidFunction)mock_DestroySurfaceKHR, K_INSTANCE, G_SURFACE},
    {"vkGetPhysicalDeviceProperties", (PFN_vkVoidFunction)mock_GetPhysicalDeviceProperties, K_PHYSDEV, G_ALWAYS},
    {"vkGetPhysicalDeviceFeatures", (PFN_vkVoidFunction)mock_GetPhysicalDeviceFeatures, K_PHYSDEV, G_ALWAYS},
    {"vkGetPhysicalDeviceFormatProperties", (PFN_vkVoidFunction)mock_GetPhysicalDeviceFormatProperties, K_PHYSDEV,
     G_ALWAYS},
    {"vkGetPhysicalDeviceImageFormatProperties", (PFN_vkVoidFunction)mock_GetPhysicalDeviceImageFormatProperties,
     K_PHYSDEV, G_ALWAYS},
    {"vkGetPhysicalDeviceQueueFamilyProperties", (PFN_vkVoidFunction)mock_GetPhysicalDeviceQueueFamilyProperties,
     K_PHYSDEV, G_ALWAYS},
    {"vkGetPhysicalDeviceMemoryProperties", (PFN_vkVoidFunction)mock_GetPhysicalDeviceMemoryProperties, K_PHYSDEV,
     G_ALWAYS},
    {"vkGetPhysicalDeviceSparseImageFormatProperties",
     (PFN_vkVoidFunction)mock_GetPhysicalDeviceSparseImageFormatProperties, K_PHYSDEV, G_ALWAYS},
#define PROPS2(base)                                                                                                   \
    {"vk" #base, (PFN_vkVoidFunction)mock_##base, K_PHYSDEV, G_CORE11}, {                                              \
        "vk" #base "KHR", (PFN_vkVoidFunction)mock_##base, K_PHYSDEV, G_GPDP2_KHR                                      \
    }
    PROPS2(GetPhysicalDeviceProperties2),
    PROPS2(GetPhysicalDeviceFeatures2),
    PROPS2(GetPhysicalDeviceFormatProperties2),
    PROPS2(GetPhysicalDeviceImageFormatProperties2),
    PROPS2(GetPhysicalDeviceQueueFamilyProperties2),
    PROPS2(GetPhysicalDeviceMemoryProperties2),
    PROPS2(GetPhysicalDeviceSparseImageFormatProperties2),
#undef PROPS2
    {"vkGetPhysicalDeviceExternalBufferProperties", (PFN_vkVoidFunction)mock_GetPhysicalDeviceExternalBufferProperties,
     K_PHYSDEV, G_CORE11},
    {"vkGetPhysicalDeviceExternalSemaphoreProperties",
     (PFN_vkVoidFunction)mock_GetPhysicalDeviceExternalSemaphoreProperties, K_PHYSDEV, G_CORE11},
    {"vkGetPhysicalDeviceExternalFenceProperties", (PFN_vkVoidFunction)mock_GetPhysicalDeviceExternalFenceProperties,
     K_PHYSDEV, G_CORE11},
    {"vkEnumerateDeviceExtensionProperties", (PFN_vkVoidFunction)mock_EnumerateDeviceExtensionProperties, K_PHYSDEV,
     G_ALWAYS},
    {"vkEnumerateDeviceLayerProperties", (PFN_vkVoidFunction)mock_EnumerateDeviceLayerProperties, K_PHYSDEV, G_ALWAYS},
    {"vkCreateDevice", (PFN_vkVoidFunction)mock_CreateDevice, K_PHYSDEV, G_ALWAYS},
    {"vkGetPhysicalDeviceSurfaceSupportKHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceSurfaceSupportKHR, K_PHYSDEV,
     G_SURFACE_QUERY},
    {"vkGetPhysicalDeviceSurfaceCapabilitiesKHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceSurfaceCapabilitiesKHR,
     K_PHYSDEV, G_SURFACE_QUERY},
    {"vkGetPhysicalDeviceSurfaceFormatsKHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceSurfaceFormatsKHR, K_PHYSDEV,
     G_SURFACE_QUERY},
    {"vkGetPhysicalDeviceSurfacePresentModesKHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceSurfacePresentModesKHR,
     K_PHYSDEV, G_SURFACE_QUERY},
    {"vkGetPhysicalDeviceDisplayPropertiesKHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceDisplayPropertiesKHR,
     K_PHYSDEV, G_DISPLAY},
    {"vkGetPhysicalDeviceDisplayPlanePropertiesKHR",
     (PFN_vkVoidFunction)mock_GetPhysicalDeviceDisplayPlanePropertiesKHR, K_PHYSDEV, G_DISPLAY},
    {"vkGetDisplayPlaneSupportedDisplaysKHR", (PFN_vkVoidFunction)mock_GetDisplayPlaneSupportedDisplaysKHR, K_PHYSDEV,
     G_DISPLAY},
    {"vkGetDisplayModePropertiesKHR", (PFN_vkVoidFunction)mock_GetDisplayModePropertiesKHR, K_PHYSDEV, G_DISPLAY},
    {"vkCreateDisplayModeKHR", (PFN_vkVoidFunction)mock_CreateDisplayModeKHR, K_PHYSDEV, G_DISPLAY},
    {"vkGetDisplayPlaneCapabilitiesKHR", (PFN_vkVoidFunction)mock_GetDisplayPlaneCapabilitiesKHR, K_PHYSDEV, G_DISPLAY},
    {"vkGetPhysicalDeviceDisplayProperties2KHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceDisplayProperties2KHR,
     K_PHYSDEV, G_DISPLAY2},
    {"vkGetPhysicalDeviceDisplayPlaneProperties2KHR",
     (PFN_vkVoidFunction)mock_GetPhysicalDeviceDisplayPlaneProperties2KHR, K_PHYSDEV, G_DISPLAY2},
    {"vkGetDisplayModeProperties2KHR", (PFN_vkVoidFunction)mock_GetDisplayModeProperties2KHR, K_PHYSDEV, G_DISPLAY2},
    {"vkGetDisplayPlaneCapabilities2KHR", (PFN_vkVoidFunction)mock_GetDisplayPlaneCapabilities2KHR, K_PHYSDEV,
     G_DISPLAY2},
    {"vkAcquireXlibDisplayEXT", (PFN_vkVoidFunction)mock_AcquireXlibDisplayEXT, K_PHYSDEV, G_XLIB_DISPLAY},
    {"vkGetRandROutputDisplayEXT", (PFN_vkVoidFunction)mock_GetRandROutputDisplayEXT, K_PHYSDEV, G_XLIB_DISPLAY},
    {"vkGetPhysicalDeviceToolProperties", (PFN_vkVoidFunction)mock_GetPhysicalDeviceToolProperties, K_PHYSDEV,
     G_CORE13},
    {"vkGetPhysicalDeviceToolPropertiesEXT", (PFN_vkVoidFunction)mock_GetPhysicalDeviceToolProperties, K_PHYSDEV,
     G_TOOLING_EXT},
    {"vkGetPhysicalDeviceSurfaceCapabilities2EXT", (PFN_vkVoidFunction)mock_GetPhysicalDeviceSurfaceCapabilities2EXT,
     K_PHYSDEV, G_SURFACE_CAPS2EXT},
    {"vkGetPhysicalDeviceSurfaceCapabilities2KHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceSurfaceCapabilities2KHR,
     K_PHYSDEV, G_SURFACE_CAPS2KHR},
    {"vkGetDeviceProcAddr", (PFN_vkVoidFunction)mock_GetDeviceProcAddr, K_DEVICE, G_ALWAYS},
    {"vkDestroyDevice", (PFN_vkVoidFunction)mock_DestroyDevice, K_DEVICE, G_ALWAYS},
    {"vkGetDeviceQueue", (PFN_vkVoidFunction)mock_GetDeviceQueue, K_DEVICE, G_ALWAYS},
    {"vkGetDeviceQueue2", (PFN_vkVoidFunction)mock_GetDeviceQueue2, K_DEVICE, G_CORE11},
    {"vkDeviceWaitIdle", (PFN_vkVoidFunction)mock_DeviceWaitIdle, K_DEVICE, G_ALWAYS},
    {"vkSetDebugUtilsObjectNameEXT", (PFN_vkVoidFunction)mock_SetDebugUtilsObjectNameEXT, K_DEVICE, G_DEBUG_UTILS},
    {"vkSetDebugUtilsObjectTagEXT", (PFN_vkVoidFunction)mock_SetDebugUtilsObjectTagEXT, K_DEVICE, G_DEBUG_UTILS},
    {"vkQueueWaitIdle", (PFN_vkVoidFunction)mock_QueueWaitIdle, K_DEVICE, G_ALWAYS},
    {"vkCreateCommandPool", (PFN_vkVoidFunction)mock_CreateCommandPool, K_DEVICE, G_ALWAYS},
    {"vkDestroyCommandPool", (PFN_vkVoidFunction)mock_DestroyCommandPool, K_DEVICE, G_ALWAYS},
    {"vkAllocateCommandBuffers", (PFN_vkVoidFunction)mock_AllocateCommandBuffers, K_DEVICE, G_ALWAYS},
    {"vkFreeCommandBuffers", (PFN_vkVoidFunction)mock_FreeCommandBuffers, K_DEVICE, G_ALWAYS},
    {"vkCmdFillBuffer", (PFN_vkVoidFunction)mock_CmdFillBuffer, K_DEVICE, G_ALWAYS},
    {"vkBeginCommandBuffer", (PFN_vkVoidFunction)mock_BeginCommandBuffer, K_DEVICE, G_ALWAYS},
    {"vkEndCommandBuffer", (PFN_vkVoidFunction)mock_EndCommandBuffer, K_DEVICE, G_ALWAYS},
    {"vkQueueSubmit", (PFN_vkVoidFunction)mock_QueueSubmit, K_DEVICE, G_ALWAYS},
    {"vkAllocateMemory", (PFN_vkVoidFunction)mock_AllocateMemory, K_DEVICE, G_ALWAYS},
    {"vkFreeMemory", (PFN_vkVoidFunction)mock_FreeMemory, K_DEVICE, G_ALWAYS},
    {"vkMapMemory", (PFN_vkVoidFunction)mock_MapMemory, K_DEVICE, G_ALWAYS},
    {"vkUnmapMemory", (PFN_vkVoidFunction)mock_UnmapMemory, K_DEVICE, G_ALWAYS},
    {"vkCreateImage", (PFN_vkVoidFunction)mock_CreateImage, K_DEVICE, G_ALWAYS},
    {"vkDestroyImage", (PFN_vkVoidFunction)mock_DestroyImage, K_DEVICE, G_ALWAYS},
    {"vkCreateBuffer", (PFN_vkVoidFunction)mock_CreateBuffer, K_DEVICE, G_ALWAYS},
    {"vkDestroyBuffer", (PFN_vkVoidFunction)mock_DestroyBuffer, K_DEVICE, G_ALWAYS},
    {"vkGetImageMemoryRequirements", (PFN_vkVoidFunction)mock_GetImageMemoryRequirements, K_DEVICE, G_ALWAYS},
    {"vkGetBufferMemoryRequirements", (PFN_vkVoidFunction)mock_GetBufferMemoryRequirements, K_DEVICE, G_ALWAYS},
    {"vkGetImageMemoryRequirements2", (PFN_vkVoidFunction)mock_GetImageMemoryRequirements2, K_DEVICE, G_CORE11},
    {"vkGetBufferMemoryRequirements2", (PFN_vkVoidFunction)mock_GetBufferMemoryRequirements2, K_DEVICE, G_CORE11},
    {"vkGetImageSparseMemoryRequirements", (PFN_vkVoidFunction)mock_GetImageSparseMemoryRequirements, K_DEVICE,
     G_ALWAYS},
    {"vkGetDeviceGroupPresentCapabilitiesKHR", (PFN_vkVoidFunction)mock_GetDeviceGroupPresentCapabilitiesKHR, K_DEVICE,
     G_ALWAYS},
    {"vkGetDeviceGroupSurfacePresentModesKHR", (PFN_vkVoidFunction)mock_GetDeviceGroupSurfacePresentModesKHR, K_DEVICE,
     G_ALWAYS},
    {"vkCreateSwapchainKHR", (PFN_vkVoidFunction)mock_CreateSwapchainKHR, K_DEVICE, G_SURFACE_QUERY},
    {"vkDestroySwapchainKHR", (PFN_vkVoidFunction)mock_DestroySwapchainKHR, K_DEVICE, G_SURFACE_QUERY},
};

static bool any_11(void) {
    struct scenario *sc = sc_now();
    if (major_minor(sc->api_version) >= VK_API_VERSION_1_1) return true;
    for (uint32_t i = 0; i < sc->pd_count; i++)
        if (major_minor(sc->pds[i].api_version) >= VK_API_VERSION_1_1) return true;
    return false;
}

static bool any_12(void) {
    struct scenario *sc = sc_now();
    if (major_minor(sc->api_version) >= VK_API_VERSION_1_2) return true;
    for (uint32_t i = 0; i < sc->pd_count; i++)
        if (major_minor(sc->pds[i].api_version) >= VK_API_VERSION_1_2) return true;
    return false;
}

static bool any_13(void) {
    struct scenario *sc = sc_now();
    if (major_minor(sc->api_version) >= VK_API_VERSION_1_3) return true;
    for (uint32_t i = 0; i < sc->pd_count; i++)
        if (major_minor(sc->pds[i].api_version) >= VK_API_VERSION_1_3) return true;
    return false;
}

static bool any_device_ext(const char *name) {
    struct scenario *sc = sc_now();
    for (uint32_t i = 0; i < sc->pd_count; i++)
        if (has_ext(sc->pds[i].exts, sc->pds[i].ext_count, name)) return true;
    return false;
}

static bool surface_allowed(void) {
    struct scenario *sc = sc_now();
    if (sc->mb.surface_without_interface_3) return true;
    return inst_ext("VK_KHR_surface") && effective_interface() >= 3;
}

static bool gate_open(enum cmd_gate g) {
    switch (g) {
        case G_ALWAYS: return true;
        case G_EIV: return sc_now()->expose_eiv;
        case G_CORE11: return any_11();
        case G_GPDP2_KHR: return inst_ext("VK_KHR_get_physical_device_properties2");
        case G_GROUP_KHR: return inst_ext("VK_KHR_device_group_creation");
        case G_DEBUG_UTILS: return inst_ext("VK_EXT_debug_utils");
        case G_SURFACE: return surface_allowed();
        case G_SURFACE_QUERY: return inst_ext("VK_KHR_surface") || sc_now()->mb.surface_without_interface_3;
        /* The surface misbehaviour exposes every platform's create function. */
        case G_SURFACE_XLIB:
            return surface_allowed() && (sc_now()->mb.surface_without_interface_3 || inst_ext("VK_KHR_xlib_surface"));
        case G_SURFACE_XCB:
            return surface_allowed() && (sc_now()->mb.surface_without_interface_3 || inst_ext("VK_KHR_xcb_surface"));
        case G_SURFACE_WAYLAND:
            return surface_allowed() &&
                   (sc_now()->mb.surface_without_interface_3 || inst_ext("VK_KHR_wayland_surface"));
        case G_SURFACE_HEADLESS:
            return surface_allowed() &&
                   (sc_now()->mb.surface_without_interface_3 || inst_ext("VK_EXT_headless_surface"));
        case G_SURFACE_DISPLAY:
            return surface_allowed() && (sc_now()->mb.surface_without_interface_3 || inst_ext("VK_KHR_display"));
        case G_DISPLAY: return inst_ext("VK_KHR_display");
        case G_DISPLAY2: return inst_ext("VK_KHR_get_display_properties2");
        case G_XLIB_DISPLAY: return inst_ext("VK_EXT_acquire_xlib_display");
        case G_SURFACE_CAPS2EXT: return inst_ext("VK_EXT_display_surface_counter");
        case G_SURFACE_CAPS2KHR: return inst_ext("VK_KHR_get_surface_capabilities2");
        case G_CORE12: return any_12();
        case G_CORE13: return any_13();
        case G_TOOLING_EXT: return any_device_ext("VK_EXT_tooling_info");
    }
    return false;
}

static int cmd_compare(const void *key, const void *entry) {
    return strcmp((const char *)key, ((const struct cmd *)entry)->name);
}

/* The hand-written table first (its gate decides, also when closed); then the generated no-op core
 * commands (mock_gen.h), so a layer that calls any core command below itself reaches the mock. */
static const struct cmd *find_cmd(const char *name) {
    for (size_t i = 0; i < ARRAY_LEN(k_cmds); i++)
        if (strcmp(k_cmds[i].name, name) == 0) return gate_open(k_cmds[i].gate) ? &k_cmds[i] : NULL;
    const struct cmd *g = bsearch(name, mock_gen_cmds, mock_gen_cmd_count, sizeof *mock_gen_cmds, cmd_compare);
    return g && gate_open(g->gate) ? g : NULL;
}

/* The core version a command of this gate needs of a device (0: none). */
static uint32_t gate_core_version(enum cmd_gate g) {
    switch (g) {
        case G_CORE11: return VK_API_VERSION_1_1;
        case G_CORE12: return VK_API_VERSION_1_2;
        case G_CORE13: return VK_API_VERSION_1_3;
        default: return 0;
    }
}

#if MOCK_ICD_HAS_GPDPA
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_GetPhysicalDeviceProcAddr(VkInstance instance, const char *name);
#endif

static PFN_vkVoidFunction icd_interface_lookup(const char *name) {
#if MOCK_ICD_MAX_INTERFACE >= 7
    if (strcmp(name, "vk_icdNegotiateLoaderICDInterfaceVersion") == 0)
        return (PFN_vkVoidFunction)mock_negotiate_through_gipa;
#if MOCK_ICD_HAS_GPDPA
    if (strcmp(name, "vk_icdGetPhysicalDeviceProcAddr") == 0) return (PFN_vkVoidFunction)mock_GetPhysicalDeviceProcAddr;
#endif
#endif
    (void)name;
    return NULL;
}

/* hidden_functions: names every proc-addr function answers NULL for. */
static bool hidden(const char *name) {
    struct scenario *sc = sc_now();
    for (uint32_t i = 0; i < sc->hidden_count; i++)
        if (strcmp(sc->hidden[i], name) == 0) return true;
    return false;
}

static PFN_vkVoidFunction gipa_impl(const char *entry, VkInstance instance, const char *name) {
    note_entry(entry, name);
    PFN_vkVoidFunction fn = NULL;
    if (name && hidden(name)) {
        /* answered NULL */
    } else if (name) {
        if (instance == VK_NULL_HANDLE) {
            const struct cmd *c = find_cmd(name);
            if (c && (c->kind == K_GLOBAL || sc_now()->mb.gipa_null_instance_answers_all)) fn = c->fn;
            if (!fn) fn = icd_interface_lookup(name);
        } else {
            const struct cmd *c = find_cmd(name);
            if (c) fn = c->fn;
            if (!fn) fn = lookup_unknown_device(name);
            if (!fn) fn = lookup_unknown_physdev(name);
        }
    }
    if (sc_now()->record_lookups) {
        cJSON *o = rec_new(entry);
        rec_add_str_or_null(o, "name", name);
        cJSON_AddBoolToObject(o, "instance_null", instance == VK_NULL_HANDLE);
        cJSON_AddBoolToObject(o, "answered", fn != NULL);
        rec_emit(o);
    }
    return fn;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_GetInstanceProcAddr(VkInstance instance, const char *name) {
    return gipa_impl("vkGetInstanceProcAddr", instance, name);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_icd_GetInstanceProcAddr(VkInstance instance, const char *name) {
    return gipa_impl("vk_icdGetInstanceProcAddr", instance, name);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_GetDeviceProcAddr(VkDevice device, const char *name) {
    PFN_vkVoidFunction fn = NULL;
    struct mock_device *d = find_device(device);
    if (name && d && !hidden(name)) {
        const struct cmd *c = find_cmd(name);
        if (c && c->kind == K_DEVICE) {
            fn = c->fn;
            if (major_minor(d->api_version) < gate_core_version(c->gate)) fn = NULL;
        }
        if (!fn) fn = lookup_unknown_device(name);
    }
    if (sc_now()->record_lookups) {
        cJSON *o = rec_new("vkGetDeviceProcAddr");
        rec_add_str_or_null(o, "name", name);
        cJSON_AddBoolToObject(o, "valid_device", d != NULL);
        cJSON_AddBoolToObject(o, "answered", fn != NULL);
        rec_emit(o);
    }
    return fn;
}

#if MOCK_ICD_HAS_GPDPA
static PFN_vkVoidFunction dynamic_physdev_slot(const char *name) {
    struct scenario *sc = sc_now();
    PFN_vkVoidFunction fn = NULL;
    pthread_mutex_lock(&g_lock);
    for (uint32_t i = 0; i < g_dyn_pd_count && !fn; i++)
        if (strcmp(g_dyn_pd_names[i], name) == 0) fn = k_pd_pool[sc->pd_func_count + i];
    if (!fn && sc->pd_func_count + g_dyn_pd_count < MOCK_ICD_UNKNOWN_SLOTS) {
        char *copy = strdup(name);
        if (copy) {
            g_dyn_pd_names[g_dyn_pd_count] = copy;
            fn = k_pd_pool[sc->pd_func_count + g_dyn_pd_count];
            g_dyn_pd_count++;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return fn;
}

/* vk_icdGetPhysicalDeviceProcAddr: the physical-device commands we implement plus the scenario's
 * physdev_functions; NULL for anything else (misbehave.gpdpa_answers_everything: everything). */
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_GetPhysicalDeviceProcAddr(VkInstance instance, const char *name) {
    PFN_vkVoidFunction fn = NULL;
    if (name && !hidden(name)) {
        const struct cmd *c = find_cmd(name);
        if (c && c->kind == K_PHYSDEV) fn = c->fn;
        if (!fn) fn = lookup_unknown_physdev(name);
        if (!fn && sc_now()->mb.gpdpa_answers_everything) {
            if (c) fn = c->fn;
            if (!fn) fn = lookup_unknown_device(name);
            if (!fn) fn = dynamic_physdev_slot(name);
        }
    }
    if (sc_now()->record_lookups) {
        cJSON *o = rec_new("vk_icdGetPhysicalDeviceProcAddr");
        rec_add_str_or_null(o, "name", name);
        cJSON_AddBoolToObject(o, "answered", fn != NULL);
        rec_emit(o);
    }
    return fn;
}
#endif

/* ------------------------------------------------------------------------------------------ */
/* Exports (the variant decides which exist; the version script makes them the only ones)       */

#if MOCK_ICD_EXPORT_NEGOTIATE
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t *pVersion) {
    return mock_negotiate(pVersion);
}
#endif

#if MOCK_ICD_EXPORT_ICD_GIPA
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_icdGetInstanceProcAddr(VkInstance instance, const char *name) {
    return mock_icd_GetInstanceProcAddr(instance, name);
}
#elif MOCK_ICD_MAX_INTERFACE >= 7
/* variants.bzl: an interface-7 build without the standard export (v7_direct) offers its
 * vk_icdGetInstanceProcAddr only under a name no loader looks for, so only an application that
 * passes this pointer through VK_LUNARG_direct_driver_loading can use the driver. It records under
 * the standard name: to the loader it is vk_icdGetInstanceProcAddr. */
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_icd_direct_GetInstanceProcAddr(VkInstance instance,
                                                                                         const char *name) {
    return mock_icd_GetInstanceProcAddr(instance, name);
}
#else
/* Keeps -Wunused-function quiet in builds that do not export it. */
__attribute__((unused)) static void *const k_unused_icd_gipa = (void *)mock_icd_GetInstanceProcAddr;
#endif

#if MOCK_ICD_EXPORT_GPDPA
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_icdGetPhysicalDeviceProcAddr(VkInstance instance,
                                                                                     const char *name) {
    return mock_GetPhysicalDeviceProcAddr(instance, name);
}
#endif

#if MOCK_ICD_EXPORT_VK >= 1
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name) {
    return mock_GetInstanceProcAddr(instance, name);
}
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkCreateInstance(const VkInstanceCreateInfo *ci,
                                                            const VkAllocationCallbacks *alloc, VkInstance *out) {
    note_entry("vkCreateInstance", NULL);
    return mock_CreateInstance(ci, alloc, out);
}
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceExtensionProperties(const char *layer, uint32_t *count,
                                                                                  VkExtensionProperties *props) {
    note_entry("vkEnumerateInstanceExtensionProperties", NULL);
    return mock_EnumerateInstanceExtensionProperties(layer, count, props);
}
#endif

#if MOCK_ICD_EXPORT_VK >= 2
MOCK_EXPORT VKAPI_ATTR void VKAPI_CALL vkDestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc) {
    note_entry("vkDestroyInstance", NULL);
    mock_DestroyInstance(instance, alloc);
}
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumeratePhysicalDevices(VkInstance instance, uint32_t *count,
                                                                      VkPhysicalDevice *out) {
    note_entry("vkEnumeratePhysicalDevices", NULL);
    return mock_EnumeratePhysicalDevices(instance, count, out);
}
MOCK_EXPORT VKAPI_ATTR void VKAPI_CALL vkGetPhysicalDeviceProperties(VkPhysicalDevice physicalDevice,
                                                                     VkPhysicalDeviceProperties *p) {
    note_entry("vkGetPhysicalDeviceProperties", NULL);
    mock_GetPhysicalDeviceProperties(physicalDevice, p);
}
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateDeviceExtensionProperties(VkPhysicalDevice physicalDevice,
                                                                                const char *layer, uint32_t *count,
                                                                                VkExtensionProperties *props) {
    note_entry("vkEnumerateDeviceExtensionProperties", NULL);
    return mock_EnumerateDeviceExtensionProperties(physicalDevice, layer, count, props);
}
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkCreateDevice(VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo *ci,
                                                          const VkAllocationCallbacks *alloc, VkDevice *out) {
    note_entry("vkCreateDevice", NULL);
    return mock_CreateDevice(physicalDevice, ci, alloc, out);
}
MOCK_EXPORT VKAPI_ATTR void VKAPI_CALL vkDestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc) {
    note_entry("vkDestroyDevice", NULL);
    mock_DestroyDevice(device, alloc);
}
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name) {
    note_entry("vkGetDeviceProcAddr", NULL);
    return mock_GetDeviceProcAddr(device, name);
}
#endif
