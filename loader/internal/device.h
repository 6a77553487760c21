/*
 * Devices (device.c): struct vkl_device, the device's dispatch and vkGetDeviceProcAddr's per-device
 * data, and the device's hand-written terminators.
 *
 * Ownership: a `struct vkl_device` is allocated with the allocation callbacks given to
 * vkCreateDevice (or the instance's) by vkl_term_CreateDevice, linked into its instance's device
 * list, and freed by vkDestroyDevice (or by the layer chain when the chain's creation fails).
 */
#ifndef VKL_INTERNAL_DEVICE_H
#define VKL_INTERNAL_DEVICE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "loader/internal/handles.h"
#include "loader/internal/loader.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vkl_instance; /* instance.h */

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
/* vkl_device_from_handle (handles.h) finds the device from its dispatch's generated table. */
_Static_assert(offsetof(struct vkl_device, disp) == 0, "struct vkl_device begins with its dispatch");

/* The create info of the vkCreateDevice now in progress on this thread (the application's, or a
 * layer's own device): the extensions it requested, as opposed to those layers add on their way
 * down. Returns the previous one, to be restored. */
const VkDeviceCreateInfo *vkl_device_set_requested(const VkDeviceCreateInfo *ci);
/* Removes dev from inst's device list and releases its vkGetDeviceProcAddr answer cache (the caller
 * frees dev next); false when it was not on it. */
bool vkl_device_unlink(struct vkl_instance *inst, struct vkl_device *dev);

/* Hand-written terminators (also declared by vkl_gen_dispatch.h, custom_commands.txt). */
VkResult vkl_term_CreateDevice(VkPhysicalDevice, const VkDeviceCreateInfo *, const VkAllocationCallbacks *, VkDevice *);
VkResult vkl_term_EnumerateDeviceExtensionProperties(VkPhysicalDevice, const char *, uint32_t *,
                                                     VkExtensionProperties *);
VkResult vkl_term_EnumerateDeviceLayerProperties(VkPhysicalDevice, uint32_t *, VkLayerProperties *);

#ifdef __cplusplus
}
#endif
#endif /* VKL_INTERNAL_DEVICE_H */
