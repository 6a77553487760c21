/*
 * The layer chain (layer_chain.c): the instance chain (VkLayerInstanceCreateInfo, LLP_LOADER_8)
 * over the loader's terminators, the device chain (VkLayerDeviceCreateInfo, LLP_LOADER_9) over the
 * driver, the checks of *pInstance / *pDevice (LLP_LAYER_21/22) and what the active layers'
 * manifests declare; and the proc-address functions at the bottom of the chain.
 *
 * Ownership: the chain's state (layer libraries, link shims) belongs to the instance
 * (inst->layer_libs, inst->link_slots), released by vkl_layer_chain_finish.
 */
#ifndef VKL_INTERNAL_CHAIN_H
#define VKL_INTERNAL_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "loader/internal/instance.h"
#include "loader/internal/layer.h"
#include "loader/internal/unknown_func.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vkl_instance; /* instance.h */
struct vkl_device;   /* device.h */

/* The loader instance behind a VkInstance that a layer passes back to the loader: the loader's own,
 * or a layer's wrapper of it. A wrapper's first word is the loader's dispatch pointer (copied from
 * the handle below, or set through the loader-data callback, LLP_LAYER_19), so the instance is
 * found from that word, never by taking the wrapper for the loader's object. */
static inline struct vkl_instance *vkl_chain_instance(VkInstance instance) {
    const void *d = *(const void *const *)(const void *)instance;
    if (d == (const void *)&vkl_gen_terminators) return vkl_instance_from_handle(instance); /* no layer */
    return (struct vkl_instance *)(void *)((char *)(uintptr_t)d - offsetof(struct vkl_instance, chain_disp));
}

/* ------------------------------------------------------------------ layer_chain.c */
VkResult vkl_layer_chain_prepare(struct vkl_instance *inst, const VkInstanceCreateInfo *ci);
VkResult vkl_layer_chain_create_instance(struct vkl_instance *inst, const VkInstanceCreateInfo *ci,
                                         const VkAllocationCallbacks *pAllocator, VkInstance *pInstance);
void vkl_layer_chain_finish(struct vkl_instance *inst);
bool vkl_layer_chain_has_extension(const struct vkl_instance *inst, const char *ext);
/* The active layer (its manifest's device_extensions) that declares device extension `ext`, or
 * NULL. */
const struct vkl_layer_manifest *vkl_layer_chain_device_extension_owner(const struct vkl_instance *inst,
                                                                        const char *ext);
bool vkl_layer_chain_check_instance(VkInstance *pInstance);
VkResult vkl_layer_chain_create_device(struct vkl_instance *inst, VkPhysicalDevice term_pd,
                                       const VkDeviceCreateInfo *ci, const VkAllocationCallbacks *pAllocator,
                                       VkDevice *pDevice);
bool vkl_layer_chain_check_device(VkDevice *pDevice);
/* The per-thread state of a layered vkCreateDevice in progress on this thread, put aside while a
 * layer creates a device of its own that has no layers (RULE_THREADS_REENTRY): that creation's
 * terminator must not run the outer chain's *pDevice check nor join its list of terminator devices. */
struct vkl_chain_device_state {
    bool check, named;
    void *made;
};
void vkl_layer_chain_device_suspend(struct vkl_chain_device_state *saved);
void vkl_layer_chain_device_resume(const struct vkl_chain_device_state *saved);
/* vkl_term_CreateDevice: the loader device record it made for a device chain in progress on this
 * thread (released again if the chain then fails). */
void vkl_layer_chain_note_device(struct vkl_device *dev);
/* The chain's answers to the unknown-function registry (struct vkl_unknown_chain, unknown_func.h). */
extern const struct vkl_unknown_chain vkl_layer_chain_unknown;

/* ------------------------------------------------------------------ terminator_gpa.c: the bottom of the chain */
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_term_GetInstanceProcAddr(VkInstance instance, const char *name);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_term_GetDeviceProcAddr(VkDevice device, const char *name);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkl_term_GetPhysicalDeviceProcAddr(VkInstance instance, const char *name);

#ifdef __cplusplus
}
#endif
#endif /* VKL_INTERNAL_CHAIN_H */
