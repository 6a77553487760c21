/*
 * VK_LUNARG_direct_driver_loading: drivers given to vkCreateInstance by function pointer.
 *
 * [Drv] "Driver Discovery using the VK_LUNARG_direct_driver_loading extension" and "Loader and
 * Driver Interface Version 7 Requirements"; spec/khronos_loader_behaviour.md 1.3, 2, 5.2 and 7.12.
 * This is LDP_LOADER_3's third mechanism for drivers outside the standard locations: no manifest,
 * no file, nothing read from the environment, so it works the same when the process is elevated.
 *
 * Rules implemented here (each next to its code):
 *  - the extension enabled AND the list chained, else a warning and no direct driver;
 *  - INCLUSIVE: the listed drivers come after the system and environment drivers (their physical
 *    devices enumerate last); EXCLUSIVE: only the listed drivers, so the driver search, the driver
 *    variables (VK_DRIVER_FILES, VK_ICD_FILENAMES, VK_ADD_DRIVER_FILES) and the driver filters
 *    (VK_LOADER_DRIVERS_SELECT / _DISABLE) are not consulted at all. Direct drivers are never
 *    filtered;
 *  - a NULL pDrivers or a zero driverCount: a warning, no direct driver (the mode still applies);
 *  - each entry: every interface function comes from its pfnGetInstanceProcAddr (never dlsym: the
 *    application may link the driver statically), and the negotiated interface version must be 7
 *    or newer, the version that makes the interface reachable through vk_icdGetInstanceProcAddr
 *    alone. A bad entry is logged as an error and skipped; the others still load.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/direct_driver.h"

#define DDL_EXT VK_LUNARG_DIRECT_DRIVER_LOADING_EXTENSION_NAME

static bool extension_requested(const VkInstanceCreateInfo *ci) {
    if (ci->ppEnabledExtensionNames == NULL) return false;
    for (uint32_t i = 0; i < ci->enabledExtensionCount; i++) {
        const char *e = ci->ppEnabledExtensionNames[i];
        if (e != NULL && strcmp(e, DDL_EXT) == 0) return true;
    }
    return false;
}

static const VkDirectDriverLoadingListLUNARG *find_list(const VkInstanceCreateInfo *ci) {
    for (const VkBaseInStructure *s = ci->pNext; s != NULL; s = s->pNext)
        if (s->sType == VK_STRUCTURE_TYPE_DIRECT_DRIVER_LOADING_LIST_LUNARG)
            return (const VkDirectDriverLoadingListLUNARG *)(const void *)s;
    return NULL;
}

/* The ELF object holding `fn` (for log lines only; the driver is never opened by name). */
static const char *object_of(PFN_vkGetInstanceProcAddr fn) {
    Dl_info info;
    void *p;
    memcpy(&p, &fn, sizeof(p));
    if (dladdr(p, &info) != 0 && info.dli_fname != NULL && info.dli_fname[0] != '\0') return info.dli_fname;
    return "address not in any loaded object";
}

/* The driver's Vulkan version: its vkEnumerateInstanceVersion; without one an interface-7
 * driver is taken as Vulkan 1.1 (spec 5.2); a failing one as 1.0 ([Drv] "Driver API Version"). */
static uint32_t driver_api_version(const struct vkl_log_sink *log, const char *name, PFN_vkGetInstanceProcAddr gipa) {
    PFN_vkEnumerateInstanceVersion eiv =
        (PFN_vkEnumerateInstanceVersion)gipa(VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
    if (eiv == NULL) return VK_API_VERSION_1_1;
    uint32_t v = 0;
    VkResult r = eiv(&v);
    if (r != VK_SUCCESS) {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "direct driver %s: vkEnumerateInstanceVersion failed with %s (%d); treated as a Vulkan 1.0 driver "
                "[LDP_LOADER_7]",
                name, vkl_result_str(r), (int)r);
        return VK_API_VERSION_1_0;
    }
    return v;
}

/* One VkDirectDriverLoadingInfoLUNARG: a new (uncached) driver, or NULL when the entry is skipped
 * (logged) or memory ran out (*oom). */
/* RULE_DRV_DIRECT_INTERFACE: only through pfnGetInstanceProcAddr, never dlsym. */
static struct vkl_driver *add_one(const struct vkl_log_sink *log, uint32_t index,
                                  const VkDirectDriverLoadingInfoLUNARG *info, bool *oom) {
    *oom = false;
    PFN_vkGetInstanceProcAddr gipa = info->pfnGetInstanceProcAddr;
    if (gipa == NULL) {
        vkl_log(log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "loader_add_direct_driver: VkDirectDriverLoadingInfoLUNARG structure at index %u contains a NULL "
                "pointer for the pfnGetInstanceProcAddr member, skipping. [LDP_LOADER_3]",
                index);
        return NULL;
    }
    char name[VKL_LOG_FULL_PATH_ROOM + 64];
    snprintf(name, sizeof name, "VkDirectDriverLoadingListLUNARG::pDrivers[%u] (%s)", index, object_of(gipa));

    /* Interface 7 or newer only: the negotiation function must be reachable through the given
     * pointer; a driver that only exports it is not usable this way. */
    PFN_vk_icdNegotiateLoaderICDInterfaceVersion negotiate =
        (PFN_vk_icdNegotiateLoaderICDInterfaceVersion)gipa(VK_NULL_HANDLE, "vk_icdNegotiateLoaderICDInterfaceVersion");
    if (negotiate == NULL) {
        vkl_log(log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "loader_add_direct_driver: Could not get 'vk_icdNegotiateLoaderICDInterfaceVersion' from "
                "VkDirectDriverLoadingInfoLUNARG structure at index %u, skipping. %s: a driver given by "
                "VK_LUNARG_direct_driver_loading must support interface version 7 [LDP_LOADER_5]",
                index, name);
        return NULL;
    }
    uint32_t version = VKL_LOADER_ICD_INTERFACE_VERSION;
    VkResult r = negotiate(&version);
    if (r != VK_SUCCESS) {
        vkl_log(log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "loader_add_direct_driver: VkDirectDriverLoadingInfoLUNARG structure at index %u supports interface "
                "version %u, which is incompatible with the Loader Driver Interface version that supports the "
                "VK_LUNARG_direct_driver_loading extension, skipping. %s: interface negotiation failed with %s (%d) "
                "[LDP_LOADER_5]",
                index, version, name, vkl_result_str(r), (int)r);
        return NULL;
    }
    if (version < 7 || version > VKL_LOADER_ICD_INTERFACE_VERSION) {
        vkl_log(log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "loader_add_direct_driver: VkDirectDriverLoadingInfoLUNARG structure at index %u supports interface "
                "version %u, which is incompatible with the Loader Driver Interface version that supports the "
                "VK_LUNARG_direct_driver_loading extension, skipping. %s: interface version 7 is required "
                "[LDP_LOADER_5]",
                index, version, name);
        return NULL;
    }
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    PFN_vkEnumerateInstanceExtensionProperties enum_ext =
        (PFN_vkEnumerateInstanceExtensionProperties)gipa(VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties");
    if (create == NULL || enum_ext == NULL) {
        vkl_log(log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "loader_add_direct_driver: Could not get '%s' from VkDirectDriverLoadingInfoLUNARG structure at index "
                "%u, skipping. %s [LDP_LOADER_5]",
                create == NULL ? "vkCreateInstance" : "vkEnumerateInstanceExtensionProperties", index, name);
        return NULL;
    }

    struct vkl_driver *d = calloc(1, sizeof(*d));
    if (d == NULL) goto oom;
    d->direct = true;
    /* Outside the cache, owned by the set that holds it (direct_driver.h). */
    d->stale = true;
    d->refs = 1;
    d->manifest_ok = true;
    d->load_attempted = true;
    d->loaded = true;
    d->manifest_path = strdup(name);
    d->manifest.library_path = strdup(object_of(gipa));
    if (d->manifest_path == NULL || d->manifest.library_path == NULL) goto oom;
    d->interface_version = version;
    d->gipa = gipa;
    d->gpdpa = (PFN_vk_icdGetPhysicalDeviceProcAddr)gipa(VK_NULL_HANDLE, "vk_icdGetPhysicalDeviceProcAddr");
    d->create_instance = create;
    d->enumerate_instance_extensions = enum_ext;
    d->api_version = driver_api_version(log, name, gipa);
    d->manifest.api_version = d->api_version;

    /* Its instance extensions (pLayerName NULL, LDP_LOADER_12), for vkCreateInstance's checks and
     * LDP_LOADER_9's per-driver lists. vkEnumerateInstanceExtensionProperties before an instance
     * never sees them: the list exists only inside vkCreateInstance ([Drv] "Limitations"). */
    uint32_t count = 0;
    r = enum_ext(NULL, &count, NULL);
    if (r == VK_SUCCESS && count > 0) {
        d->extensions = calloc(count, sizeof(VkExtensionProperties));
        if (d->extensions == NULL) goto oom;
        r = enum_ext(NULL, &count, d->extensions);
        if (r != VK_SUCCESS && r != VK_INCOMPLETE) count = 0;
    } else if (r != VK_SUCCESS) {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "direct driver %s: vkEnumerateInstanceExtensionProperties failed with %s (%d); assuming no extensions",
                name, vkl_result_str(r), (int)r);
        count = 0;
    }
    d->extension_count = count;
    void *gipa_addr;
    memcpy(&gipa_addr, &gipa, sizeof(gipa_addr));
    vkl_log(log, VKL_LOG_INFO | VKL_LOG_DRIVER,
            "loader_add_direct_driver: Adding driver found in index %u of VkDirectDriverLoadingListLUNARG::pDrivers "
            "structure. pfnGetInstanceProcAddr was set to %p (%s): interface version %u, Vulkan %u.%u.%u, %u "
            "instance extensions [LDP_LOADER_3]",
            index, gipa_addr, object_of(gipa), version, VK_API_VERSION_MAJOR(d->api_version),
            VK_API_VERSION_MINOR(d->api_version), VK_API_VERSION_PATCH(d->api_version), count);
    return d;

oom:
    if (d != NULL) {
        free(d->extensions);
        free(d->manifest.library_path);
        free(d->manifest_path);
        free(d);
    }
    *oom = true;
    return NULL;
}

/* RULE_DRV_DIRECT_LOADING */
VkResult vkl_direct_drivers_acquire(const struct vkl_log_sink *log, const VkInstanceCreateInfo *ci,
                                    struct vkl_driver_set *out) {
    bool enabled = extension_requested(ci);
    const VkDirectDriverLoadingListLUNARG *list = find_list(ci);
    /* Both the extension and the list, or neither takes effect. */
    if (list == NULL) {
        if (enabled)
            vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "loader_scan_for_direct_drivers: The " DDL_EXT " extension was enabled but the pNext chain of "
                    "VkInstanceCreateInfo did not contain the VkDirectDriverLoadingListLUNARG structure. No direct "
                    "driver added [LDP_LOADER_3]");
        return vkl_drivers_acquire(log, out);
    }
    if (!enabled) {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "loader_scan_for_direct_drivers: The pNext chain of VkInstanceCreateInfo contained the "
                "VkDirectDriverLoadingListLUNARG structure, but the " DDL_EXT " extension was not enabled. The list is "
                "ignored [LDP_LOADER_3]");
        return vkl_drivers_acquire(log, out);
    }

    VkResult r;
    if (list->mode == VK_DIRECT_DRIVER_LOADING_MODE_EXCLUSIVE_LUNARG) {
        vkl_log(log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                "loader_scan_for_direct_drivers: The " DDL_EXT " extension is active and specified "
                "VK_DIRECT_DRIVER_LOADING_MODE_EXCLUSIVE_LUNARG, skipping system and environment variable driver "
                "search mechanisms. Only the listed drivers are used; the driver environment variables and the "
                "driver filters are not read [LDP_LOADER_3]");
        memset(out, 0, sizeof(*out));
        out->drivers = calloc(1, sizeof(*out->drivers));
        r = out->drivers != NULL ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
    } else {
        if (list->mode != VK_DIRECT_DRIVER_LOADING_MODE_INCLUSIVE_LUNARG)
            vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "loader_scan_for_direct_drivers: VkDirectDriverLoadingListLUNARG::mode %d is not a "
                    "VkDirectDriverLoadingModeLUNARG value; treated as VK_DIRECT_DRIVER_LOADING_MODE_INCLUSIVE_LUNARG",
                    (int)list->mode);
        r = vkl_drivers_acquire(log, out);
    }
    if (r != VK_SUCCESS) return r;

    if (list->pDrivers == NULL) {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "loader_scan_for_direct_drivers: The VkDirectDriverLoadingListLUNARG structure in the pNext chain of "
                "VkInstanceCreateInfo has a NULL pDrivers member. No direct driver added [LDP_LOADER_3]");
        return VK_SUCCESS;
    }
    if (list->driverCount == 0) {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "loader_scan_for_direct_drivers: The VkDirectDriverLoadingListLUNARG structure in the pNext chain of "
                "VkInstanceCreateInfo has a non-null pDrivers member but a driverCount member with a value of zero. "
                "No direct driver added [LDP_LOADER_3]");
        return VK_SUCCESS;
    }
    struct vkl_driver **grown = realloc(out->drivers, ((size_t)out->count + list->driverCount) * sizeof(*grown));
    if (grown == NULL) {
        vkl_drivers_release(out);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    out->drivers = grown;
    /* After every system and environment driver: their physical devices enumerate first (in the
     * unsorted order too, which lists the last driver found first: physdev.c, `direct`). */
    for (uint32_t i = 0; i < list->driverCount; i++) {
        bool oom = false;
        struct vkl_driver *d = add_one(log, i, &list->pDrivers[i], &oom);
        if (oom) {
            vkl_drivers_release(out);
            return VK_ERROR_OUT_OF_HOST_MEMORY;
        }
        if (d != NULL) out->drivers[out->count++] = d;
    }
    return VK_SUCCESS;
}
