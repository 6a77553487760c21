/*
 * Physical devices (physdev.c): enumeration and groups below the layers. The handle pair
 * (struct vkl_physdev) and its casts are handles.h's.
 */
#ifndef VKL_INTERNAL_PHYSDEV_H
#define VKL_INTERNAL_PHYSDEV_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vkl_instance; /* instance.h */

/* Frees inst->physdev_next (instance destruction, before the wrappers are freed). */
void vkl_physdev_next_index_free(struct vkl_instance *inst);
/* Whether `pd` is one of the terminator physical devices of `inst` (the handles its terminators
 * hand to the layer chain): anything else must never reach a terminator. Takes inst->lock. */
bool vkl_physdev_is_term(struct vkl_instance *inst, VkPhysicalDevice pd);

/* Hand-written terminators (also declared by vkl_gen_dispatch.h, custom_commands.txt). */
VkResult vkl_term_EnumeratePhysicalDevices(VkInstance, uint32_t *, VkPhysicalDevice *);
VkResult vkl_term_EnumeratePhysicalDeviceGroups(VkInstance, uint32_t *, VkPhysicalDeviceGroupProperties *);

#ifdef __cplusplus
}
#endif
#endif /* VKL_INTERNAL_PHYSDEV_H */
