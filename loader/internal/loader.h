/*
 * What every loader object file shares: the allocation callbacks (alloc.c), the driver cache
 * (icd.c), VkResult names for log lines and the export attribute. Each object has its own header
 * with its own declarations (docs/architecture.md "Object core"): instance.h (instances),
 * physdev.h (physical devices), device.h (devices), chain.h (the layer chain and the terminators'
 * proc addrs), unknown_func.h (unknown functions), wsi.h (surfaces), debug.h (messengers); the
 * handle layouts and casts are handles.h.
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
    /* given by VkDirectDriverLoadingListLUNARG (direct_driver.c): its physical devices enumerate
     * after every system and environment driver's, sorted or not ([Drv] "Driver Discovery using
     * the VK_LUNARG_direct_driver_loading extension") */
    bool direct;
    bool stale; /* manifest changed or vanished: freed when refs drops to 0 */
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
     * allocation callbacks (instance.c); freed with the entry. Read and written only through
     * vkl_driver_spare_swap (icd.c: under a leaf mutex). */
    struct vkl_icd_instance *spare;
};

/* The drivers usable for one call: search, parse (cached), filter, load and negotiate (cached). */
struct vkl_driver_set {
    struct vkl_driver **drivers;
    uint32_t count;
};
VkResult vkl_drivers_acquire(const struct vkl_log_sink *log, struct vkl_driver_set *out);
void vkl_drivers_release(struct vkl_driver_set *set);
/* Stores `ii` (NULL: none) as the driver's spare per-instance record and returns the one it held. */
struct vkl_icd_instance *vkl_driver_spare_swap(struct vkl_driver *d, struct vkl_icd_instance *ii);
bool vkl_driver_has_extension(const struct vkl_driver *d, const char *name);
const char *vkl_driver_name(const struct vkl_driver *d); /* manifest path, for logs */
/* Drivers that lie (RULE_DRV_UNTRUSTED_ANSWERS, icd.c): a fill call gets a loader buffer one element
 * longer than the count it is given, the last element (`slack`) preset by vkl_slack_init. */
void vkl_slack_init(void *slack, size_t size);
uint32_t vkl_fill_checked(const struct vkl_log_sink *log, const struct vkl_driver *d, const char *cmd, uint32_t asked,
                          uint32_t got, const void *slack, size_t size);
bool vkl_name_checked(const struct vkl_log_sink *log, const struct vkl_driver *d, const char *cmd, char *name,
                      size_t size);

#ifdef __cplusplus
}
#endif
#endif /* VKL_INTERNAL_LOADER_H */
