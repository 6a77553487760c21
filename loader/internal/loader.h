/*
 * Core loader state: the driver cache, instances, physical devices and devices.
 *
 * Ownership:
 *  - `struct vkl_driver` objects live in a process-wide cache (icd.c), created with malloc because
 *    they outlive any one instance; an instance holds a reference on every driver it uses.
 *  - everything hanging off a `struct vkl_instance` is allocated with that instance's allocation
 *    callbacks (alloc.c) and freed in vkDestroyInstance.
 * Thread safety: the driver cache is guarded by a process-wide mutex (icd.c); an instance's
 * physical-device list and unknown-function registry by the instance's own mutex.
 */
#ifndef VKL_INTERNAL_LOADER_H
#define VKL_INTERNAL_LOADER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vulkan.h>

#include "loader/internal/fileio.h"
#include "loader/internal/handles.h"
#include "loader/vkl_gen_results.h"
#include "loader/internal/layer.h"
#include "loader/internal/log.h"

/* A VkResult for log lines: its vk.xml name ("VK_ERROR_INITIALIZATION_FAILED"), or "unknown VkResult"
 * for a value vk.xml does not define; lines print it as "%s (%d)" so the number is kept too. */
static inline const char *vkl_result_str(VkResult r) {
    const char *n = vkl_gen_result_name(r);
    return n != NULL ? n : "unknown VkResult";
}
#include "loader/internal/manifest.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VKL_EXPORT __attribute__((visibility("default")))
#define VKL_LOADER_ICD_INTERFACE_VERSION 7u

/* ------------------------------------------------------------------ alloc.c */
struct vkl_alloc {
    VkAllocationCallbacks cb; /* the application's callbacks, or our malloc-based defaults */
    bool app;                 /* true when the application gave callbacks */
};
void vkl_alloc_init(struct vkl_alloc *a, const VkAllocationCallbacks *app);
void *vkl_alloc(const struct vkl_alloc *a, size_t size, VkSystemAllocationScope scope);
void *vkl_calloc(const struct vkl_alloc *a, size_t size, VkSystemAllocationScope scope);
void vkl_free(const struct vkl_alloc *a, void *p);
char *vkl_strdup_alloc(const struct vkl_alloc *a, const char *s, VkSystemAllocationScope scope);

/* ------------------------------------------------------------------ icd.c */
/* A driver found by the search, parsed, (when selected) loaded and negotiated. Cached. */
struct vkl_driver {
    struct vkl_driver *next; /* cache list */
    unsigned refs;           /* instances and acquisitions holding it */
    bool stale;              /* manifest changed or vanished: freed when refs drops to 0 */
    /* manifest identity, for "do not re-parse unchanged manifests" */
    char *manifest_path;
    struct vkl_file_id manifest_id;
    bool manifest_ok;     /* parsed and accepted */
    char *manifest_error; /* the log line re-emitted to each new instance when !manifest_ok */
    uint32_t manifest_error_flags;
    struct vkl_icd_manifest manifest;
    /* library state (valid once `loaded`) */
    bool load_attempted, loaded;
    bool load_oom; /* the last load failed for want of memory: not a verdict, retried */
    void *lib;
    /* library identity at the load attempt (the path dlopen resolved, or the manifest's path when
     * it has a '/'): a library replaced on disk makes the entry stale, like a changed manifest */
    char *lib_path;
    bool lib_stat_ok;
    struct vkl_file_id lib_id;
    uint32_t interface_version;
    PFN_vkGetInstanceProcAddr gipa;            /* vk_icdGetInstanceProcAddr, or exported vkGetInstanceProcAddr (v0) */
    PFN_vk_icdGetPhysicalDeviceProcAddr gpdpa; /* only used for interface >= 4 */
    PFN_vkCreateInstance create_instance;
    PFN_vkEnumerateInstanceExtensionProperties enumerate_instance_extensions;
    uint32_t api_version; /* what the driver supports (manifest + vkEnumerateInstanceVersion) */
    VkExtensionProperties *extensions;
    uint32_t extension_count;
    /* One per-instance record of this driver (struct vkl_icd_instance, 2.7 KB: mostly its dispatch
     * table) kept from a destroyed instance for the next one created without application
     * allocation callbacks (instance.c); freed with the entry. */
    _Atomic(struct vkl_icd_instance *) spare;
};

/* The drivers usable for one call: search, parse (cached), filter, load and negotiate (cached). */
struct vkl_driver_set {
    struct vkl_driver **drivers;
    uint32_t count;
};
VkResult vkl_drivers_acquire(const struct vkl_log_sink *log, struct vkl_driver_set *out);
void vkl_drivers_release(struct vkl_driver_set *set);
bool vkl_driver_has_extension(const struct vkl_driver *d, const char *name);
const char *vkl_driver_name(const struct vkl_driver *d); /* manifest path, for logs */
/* Drivers that lie (RULE_DRV_UNTRUSTED_ANSWERS, icd.c): a fill call gets a loader buffer one element
 * longer than the count it is given, the last element (`slack`) preset by vkl_slack_init. */
void vkl_slack_init(void *slack, size_t size);
uint32_t vkl_fill_checked(const struct vkl_log_sink *log, const struct vkl_driver *d, const char *cmd, uint32_t asked,
                          uint32_t got, const void *slack, size_t size);
bool vkl_name_checked(const struct vkl_log_sink *log, const struct vkl_driver *d, const char *cmd, char *name,
                      size_t size);

/* ------------------------------------------------------------------ debug.c */
struct vkl_messenger {
    struct vkl_messenger *next;
    bool is_report;           /* VK_EXT_debug_report callback rather than debug-utils messenger */
    bool create_destroy_only; /* chained into VkInstanceCreateInfo: active only in create/destroy */
    VkDebugUtilsMessageSeverityFlagsEXT severity;
    VkDebugUtilsMessageTypeFlagsEXT types;
    PFN_vkDebugUtilsMessengerCallbackEXT utils_cb;
    VkDebugReportFlagsEXT report_flags;
    PFN_vkDebugReportCallbackEXT report_cb;
    void *user_data;
    /* per-driver handles of an application-created messenger/callback */
    uint32_t driver_count;
    uint64_t *driver_handles; /* indexed like the instance's icd list */
};

/* ------------------------------------------------------------------ instance.c */
struct vkl_physdev {
    struct vkl_physdev_term term;   /* what the chain below the loader trampolines sees */
    struct vkl_physdev_tramp tramp; /* what the application sees */
    struct vkl_physdev *next;
};

struct vkl_settings; /* settings.c */

struct vkl_instance {
    /* word 0: dispatch for the top of the chain (read by generated trampolines) */
    const struct vkl_gen_instance_dispatch *disp;
    /* word 1..: chain-top functions for unknown physical-device slots (unknown_func_x86_64.S) */
    PFN_vkVoidFunction unknown_physdev_chain[VKL_MAX_UNKNOWN_FUNCS];
    /* word 1 + VKL_MAX_UNKNOWN_FUNCS (VKL_INSTANCE_NEXT_OFFSET): the VkInstance the top of the chain
     * returned, passed to it by every trampoline (vkl_instance_next). The loader's own handle when
     * no layer is active or no layer wrapped it; a layer's wrapper when the top layer replaced
     * *pInstance after calling down (legal: LLP_LAYER_21 forbids it only before). */
    VkInstance chain_handle;
    bool terminator_reached;             /* vkl_term_CreateInstance ran for this instance */
    const struct vkl_settings *settings; /* the settings file in force at creation (NULL: none) */

    struct vkl_alloc alloc;
    struct vkl_log_sink log;
    pthread_mutex_t lock;
    bool in_create_or_destroy;
    uint32_t app_api_version;
    char **enabled_extensions;
    uint32_t enabled_extension_count;

    struct vkl_driver_set drivers;
    struct vkl_icd_instance *icds;
    uint32_t icd_count;
    struct vkl_physdev *physdevs;
    struct vkl_messenger *messengers;

    /* unknown functions (unknown_func.c) */
    char *unknown_physdev_names[VKL_MAX_UNKNOWN_FUNCS];
    uint32_t unknown_physdev_count;
    char *unknown_device_names[VKL_MAX_UNKNOWN_FUNCS];
    uint32_t unknown_device_count;
    struct vkl_device *devices;

    /* layers (layer_chain.c): the dispatch filled from the top layer's vkGetInstanceProcAddr
     * (disp points here while layers are active), the layers visible to this instance and the
     * libraries in the chain, index 0 closest to the application. */
    struct vkl_gen_instance_dispatch chain_disp;
    struct vkl_layer_set layer_set;
    bool layer_set_held;
    struct vkl_layer_lib *layer_libs;
    uint32_t layer_lib_count;
    /* The active layers as the application sees them (vkEnumerateDeviceLayerProperties): the loaded
     * layers with each activated meta-layer after its components; borrowed from layer_set. */
    const struct vkl_layer_manifest **shown_layers;
    uint32_t shown_layer_count;
    /* link_slots[j] (j = 1..layer_lib_count): the loader's link shim standing for what lies below
     * layer j - 1 (layer j, or the terminators at j == layer_lib_count), -1 when the shims ran out;
     * the shims name the layer that clobbered *pInstance / *pDevice (LLP_LAYER_21/22). */
    int *link_slots;
};

struct vkl_instance *vkl_instance_from_handle(VkInstance instance);
bool vkl_instance_extension_enabled(const struct vkl_instance *inst, const char *name);
struct vkl_physdev *vkl_physdev_from_term(VkPhysicalDevice term);
/* Whether `pd` is one of the terminator physical devices of `inst` (the handles its terminators
 * hand to the layer chain): anything else must never reach a terminator. Takes inst->lock. */
bool vkl_physdev_is_term(struct vkl_instance *inst, VkPhysicalDevice pd);
/* The create info of the vkCreateDevice now in progress on this thread (the application's, or a
 * layer's own device): the extensions it requested, as opposed to those layers add on their way
 * down (device.c). Returns the previous one, to be restored. */
const VkDeviceCreateInfo *vkl_device_set_requested(const VkDeviceCreateInfo *ci);

/* ------------------------------------------------------------------ device.c */
struct vkl_device {
    struct vkl_device_dispatch disp; /* the device's first word points at disp.gen */
    struct vkl_device *next;         /* in instance->devices */
    struct vkl_instance *instance;
    struct vkl_icd_instance *icd;
    VkDevice handle;
    VkDevice chain_handle; /* what the application holds: the top layer's VkDevice (a wrapper, maybe) or handle */
    struct vkl_alloc alloc;
    bool layered; /* disp.gen filled from the top layer's vkGetDeviceProcAddr */
    /* vkGetDeviceProcAddr gates, set once at vkCreateDevice (device.c; RULE_GDPA_API_VERSION,
     * RULE_GDPA_MAINTENANCE5): the effective API version VK_MAKE_API_VERSION(0, major, minor, 0)
     * (min of the application's apiVersion and the physical device's), whether VK_KHR_maintenance5
     * is enabled, and then, per vkl_gen_cmds entry, whether its extension is enabled. */
    uint32_t api_version;
    bool maintenance5;
    uint8_t ext_enabled[(VKL_GEN_CMD_COUNT + 7u) / 8u];
    /* vkGetDeviceProcAddr's answer cache of a layered device, for names its dispatch table does not
     * hold (device.c, "answer cache"): looked up without a lock through `gdpa_cache` (acquire load),
     * extended under `gdpa_cache_lock` (created at vkCreateDevice); tables outgrown by a larger
     * copy wait on `gdpa_cache_retired` and, with the names, are freed when the device is released
     * (vkl_device_unlink, vkDestroyDevice). */
    _Atomic(struct vkl_gdpa_cache *) gdpa_cache;
    struct vkl_gdpa_cache *gdpa_cache_retired;
    pthread_mutex_t gdpa_cache_lock;
    bool gdpa_cache_live; /* gdpa_cache_lock initialised and not yet destroyed */
};
struct vkl_device *vkl_device_from_handle(const void *dispatchable);

/* ------------------------------------------------------------------ debug.c */
void vkl_debug_emit(void *instance, uint32_t flags, const char *line);
VkResult vkl_debug_add_create_info_messengers(struct vkl_instance *inst, const void *pnext);
void vkl_debug_destroy_all(struct vkl_instance *inst);

/* ------------------------------------------------------------------ unknown_func.c */
PFN_vkVoidFunction vkl_unknown_lookup(struct vkl_instance *inst, const char *name);
void vkl_unknown_fill_device(struct vkl_instance *inst, struct vkl_device *dev);
extern const PFN_vkVoidFunction vkl_unknown_physdev_tramps[VKL_MAX_UNKNOWN_FUNCS];
extern const PFN_vkVoidFunction vkl_unknown_physdev_terms[VKL_MAX_UNKNOWN_FUNCS];
extern const PFN_vkVoidFunction vkl_unknown_device_tramps[VKL_MAX_UNKNOWN_FUNCS];

/* ------------------------------------------------------------------ layer_chain.c */
VkResult vkl_layer_chain_prepare(struct vkl_instance *inst, const VkInstanceCreateInfo *ci);
VkResult vkl_layer_chain_create_instance(struct vkl_instance *inst, const VkInstanceCreateInfo *ci,
                                         const VkAllocationCallbacks *pAllocator, VkInstance *pInstance);
void vkl_layer_chain_finish(struct vkl_instance *inst);
bool vkl_layer_chain_has_extension(const struct vkl_instance *inst, const char *ext);
/* The active layer (its manifest's device_extensions) that declares device extension `ext`, or
 * NULL; and whether `name` is an entrypoint of any active layer's device extension. */
const struct vkl_layer_manifest *vkl_layer_chain_device_extension_owner(const struct vkl_instance *inst,
                                                                        const char *ext);
bool vkl_layer_chain_has_device_entrypoint(const struct vkl_instance *inst, const char *name);
bool vkl_layer_chain_check_instance(VkInstance *pInstance);
/* instance.c: the global commands below every layer (vkl_term_GetInstanceProcAddr asked with a
 * NULL instance, or any instance, for vkEnumerateInstance*); NULL for other names. */
PFN_vkVoidFunction vkl_term_global_proc(const char *name);
/* Handle validation in the hand-written trampolines where the Khronos loader checks (never in the
 * generated ones: their cost stays at the floor). An invalid dispatchable handle ends the process
 * with "<cmd>: Invalid <param> [VUID-<cmd>-<param>-parameter]" on stderr, whatever VK_LOADER_DEBUG
 * says (instance.c). */
void vkl_check_instance(VkInstance instance, const char *cmd);
void vkl_check_physical_device(VkPhysicalDevice physicalDevice, const char *cmd);
VkResult vkl_layer_chain_create_device(struct vkl_instance *inst, VkPhysicalDevice term_pd,
                                       const VkDeviceCreateInfo *ci, const VkAllocationCallbacks *pAllocator,
                                       VkDevice *pDevice);
bool vkl_layer_chain_check_device(VkDevice *pDevice);
/* vkl_term_CreateDevice: the loader device record it made for a device chain in progress on this
 * thread (released again if the chain then fails). */
void vkl_layer_chain_note_device(struct vkl_device *dev);
/* Removes dev from inst's device list and releases its vkGetDeviceProcAddr answer cache (the caller
 * frees dev next); false when it was not on it. */
bool vkl_device_unlink(struct vkl_instance *inst, struct vkl_device *dev);
void vkl_layer_chain_unknown_physdev(struct vkl_instance *inst, const char *name, uint32_t slot);
bool vkl_layer_chain_knows_physdev(struct vkl_instance *inst, const char *name);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_term_GetInstanceProcAddr(VkInstance instance, const char *name);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_term_GetDeviceProcAddr(VkDevice device, const char *name);

/* ------------------------------------------------------------------ wsi.c */
/* The handle driver `ii` must receive for `surface`: its own surface, or the loader's container. */
VkSurfaceKHR vkl_wsi_icd_surface(VkSurfaceKHR surface, const struct vkl_icd_instance *ii);
/* Loader terminators for device commands that name a surface (NULL for every other name). */
PFN_vkVoidFunction vkl_wsi_device_proc(VkDevice device, const char *name);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_term_GetPhysicalDeviceProcAddr(VkInstance instance, const char *name);

/* ------------------------------------------------------------------ hand-written terminators */
VkResult vkl_term_CreateInstance(const VkInstanceCreateInfo *, const VkAllocationCallbacks *, VkInstance *);
void vkl_term_DestroyInstance(VkInstance, const VkAllocationCallbacks *);
VkResult vkl_term_EnumeratePhysicalDevices(VkInstance, uint32_t *, VkPhysicalDevice *);
VkResult vkl_term_EnumeratePhysicalDeviceGroups(VkInstance, uint32_t *, VkPhysicalDeviceGroupProperties *);
VkResult vkl_term_CreateDevice(VkPhysicalDevice, const VkDeviceCreateInfo *, const VkAllocationCallbacks *, VkDevice *);
VkResult vkl_term_EnumerateDeviceExtensionProperties(VkPhysicalDevice, const char *, uint32_t *,
                                                     VkExtensionProperties *);
VkResult vkl_term_EnumerateDeviceLayerProperties(VkPhysicalDevice, uint32_t *, VkLayerProperties *);
void vkl_unknown_physdev_missing(void);

#ifdef __cplusplus
}
#endif
#endif /* VKL_INTERNAL_LOADER_H */
