/*
 * Surfaces (wsi.c): the VkSurfaceKHR containers shared by every driver and the per-driver surfaces
 * (LDP_LOADER_10, LDP_LOADER_11).
 */
#ifndef VKL_INTERNAL_WSI_H
#define VKL_INTERNAL_WSI_H

#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vkl_icd_instance; /* handles.h */

/* The handle driver `ii` must receive for `surface`: its own surface, or the loader's container. */
VkSurfaceKHR vkl_wsi_icd_surface(VkSurfaceKHR surface, const struct vkl_icd_instance *ii);
/* Loader terminators for device commands that name a surface (NULL for every other name). */
PFN_vkVoidFunction vkl_wsi_device_proc(VkDevice device, const char *name);

#ifdef __cplusplus
}
#endif
#endif /* VKL_INTERNAL_WSI_H */
