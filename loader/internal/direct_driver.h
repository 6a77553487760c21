/*
 * VK_LUNARG_direct_driver_loading (direct_driver.c): drivers the application hands to
 * vkCreateInstance as vk_icdGetInstanceProcAddr pointers in a VkDirectDriverLoadingListLUNARG.
 *
 * Ownership: a direct driver is a `struct vkl_driver` that never enters the driver cache (icd.c).
 * It is created already `stale` with one reference held by the instance's driver set, so the
 * vkl_drivers_release() of that set frees it like any cache entry nobody uses any more; it has no
 * library handle of its own (the application owns the library).
 * Thread safety: no shared state; called from vkCreateInstance on the creating thread.
 */
#ifndef VKL_INTERNAL_DIRECT_DRIVER_H
#define VKL_INTERNAL_DIRECT_DRIVER_H

#include <vulkan/vulkan.h>

#include "loader/internal/loader.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The drivers of one vkCreateInstance: the system/environment drivers (vkl_drivers_acquire) and
 * the direct drivers of `ci`, when VK_LUNARG_direct_driver_loading is enabled and a
 * VkDirectDriverLoadingListLUNARG is chained: INCLUSIVE appends them after the others, EXCLUSIVE
 * uses only them (no search, no driver environment variable, no driver filter). Without both the
 * extension and the list, a warning and exactly vkl_drivers_acquire(). Bad entries are logged and
 * skipped; only VK_ERROR_OUT_OF_HOST_MEMORY (or a failure of the search) fails the call.
 * `out` is released with vkl_drivers_release().
 */
VkResult vkl_direct_drivers_acquire(const struct vkl_log_sink *log, const VkInstanceCreateInfo *ci,
                                    struct vkl_driver_set *out);

#ifdef __cplusplus
}
#endif
#endif /* VKL_INTERNAL_DIRECT_DRIVER_H */
