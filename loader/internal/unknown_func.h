/*
 * Commands the loader does not know (unknown_func.c, unknown_func_x86_64.S): 250 physical-device
 * and 250 device slots per instance, each with a generic assembly trampoline.
 *
 * Ownership: the slot names live in the instance (inst->unknown_*_names, allocated with its
 * callbacks, freed in vkDestroyInstance); physical-device slots are registered under
 * inst->unknown_lock, device slots filled under inst->lock.
 */
#ifndef VKL_INTERNAL_UNKNOWN_FUNC_H
#define VKL_INTERNAL_UNKNOWN_FUNC_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "loader/internal/handles.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vkl_instance; /* instance.h */
struct vkl_device;   /* device.h */

/* What the registry asks of the layer chain: one callback interface, so that unknown_func.c does not
 * call layer_chain.c by name and layer_chain.c does not read the registry's slots (the chain's
 * implementation is vkl_layer_chain_unknown, chain.h; vkGetInstanceProcAddr hands it in). Called
 * with inst->lock held. */
struct vkl_unknown_chain {
    /* Whether an active layer's vk_layerGetPhysicalDeviceProcAddr answers `name`. */
    bool (*knows_physdev)(struct vkl_instance *inst, const char *name);
    /* The answer of the top layer that has a GPDPA for `name`, asked once its slot is registered (so
     * that the terminator GPDPA below it can answer); NULL: none, or no layer has a GPDPA. */
    PFN_vkVoidFunction (*physdev_top)(struct vkl_instance *inst, const char *name);
    /* Whether the chain knows device command `name`: an active layer's manifest lists it among its
     * device_extensions' entrypoints (RULE_LYR_DEVICE_EXT_ENTRYPOINTS), or the top layer's
     * vkGetInstanceProcAddr answers it. */
    bool (*knows_device)(struct vkl_instance *inst, const char *name);
};

/* vkGetInstanceProcAddr for a name the command table lacks: its slot's trampoline, a new slot's,
 * or NULL (RULE_UNKNOWN_PHYSDEV_FUNC, RULE_UNKNOWN_DEVICE_FUNC). */
PFN_vkVoidFunction vkl_unknown_lookup(struct vkl_instance *inst, const char *name,
                                      const struct vkl_unknown_chain *chain);
void vkl_unknown_fill_device(struct vkl_instance *inst, struct vkl_device *dev);
/* The "not supported" stub of a physical-device slot whose driver lacks the command. */
void vkl_unknown_physdev_missing(void);
/* The physical-device slot registered for `name`, or -1 (no lock: the bottom of the chain asks from
 * inside a layer's GPDPA while vkl_unknown_lookup holds the instance lock; names are only ever
 * appended, and the count is published after the slot is complete). */
int vkl_unknown_physdev_slot(const struct vkl_instance *inst, const char *name);
/* The terminators' lookup (vk_layerGetPhysicalDeviceProcAddr and vkGetInstanceProcAddr at the
 * bottom of the chain): the slot of `name`, registered now if some driver implements the command
 * and none has it yet (its chain top is then asked of the layers at the application's first
 * lookup); -1 otherwise. Takes only inst->unknown_lock, a leaf, so it may run under inst->lock. */
int vkl_unknown_physdev_term_slot(struct vkl_instance *inst, const char *name);
/* Whether some driver of `inst` implements physical-device slot `s` (the others hold the stub). */
bool vkl_unknown_physdev_implemented(const struct vkl_instance *inst, int s);
/* unknown_func_x86_64.S */
extern const PFN_vkVoidFunction vkl_unknown_physdev_tramps[VKL_MAX_UNKNOWN_FUNCS];
extern const PFN_vkVoidFunction vkl_unknown_physdev_terms[VKL_MAX_UNKNOWN_FUNCS];
extern const PFN_vkVoidFunction vkl_unknown_device_tramps[VKL_MAX_UNKNOWN_FUNCS];

#ifdef __cplusplus
}
#endif
#endif /* VKL_INTERNAL_UNKNOWN_FUNC_H */
