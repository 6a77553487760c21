/*
 * Instances (instance.c): struct vkl_instance, what other objects ask of an instance, and the
 * instance's hand-written terminators.
 *
 * Ownership: a `struct vkl_instance` is allocated with its own allocation callbacks (alloc.c) in
 * vkCreateInstance and freed in vkDestroyInstance, with everything hanging off it.
 * Thread safety: inst->lock guards the physical-device list, the unknown-function registry, the
 * device list and the messengers (docs/architecture.md "Concurrency").
 */
#ifndef VKL_INTERNAL_INSTANCE_H
#define VKL_INTERNAL_INSTANCE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "loader/internal/handles.h"
#include "loader/internal/layer.h"
#include "loader/internal/loader.h"
#include "loader/internal/log.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vkl_settings;           /* settings.h */
struct vkl_physdev_next_index; /* physdev.c */
struct vkl_messenger;          /* debug.h */
struct vkl_device;             /* device.h */

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
    /* apiVersion of the VkApplicationInfo that reached the terminator (a layer may raise the
     * application's); the physical-device terminators decide with it, as drivers see it. */
    uint32_t term_api_version;
    char **enabled_extensions;
    uint32_t enabled_extension_count;
    /* The application's ppEnabledLayerNames, in order: the one device layer list besides an empty
     * one that the Vulkan specification calls valid (device layers are deprecated). */
    char **app_layer_names;
    uint32_t app_layer_count;

    struct vkl_driver_set drivers;
    struct vkl_icd_instance *icds;
    uint32_t icd_count;
    struct vkl_physdev *physdevs;
    /* The wrappers by tramp.next, built by the first lookup of a layer's handle (physdev.c,
     * vkl_physdev_tramp_for): a scan of `physdevs` per handle made enumeration through layers quadratic. */
    struct vkl_physdev_next_index *physdev_next;
    struct vkl_messenger *messengers;

    /* unknown functions (unknown_func.c) */
    char *unknown_physdev_names[VKL_MAX_UNKNOWN_FUNCS];
    /* Written under unknown_lock with release order once the slot's name, driver entries and chain
     * entry are in place; read without a lock (acquire) by the terminators, which may run under
     * inst->lock or under none (unknown_func.c). */
    uint32_t unknown_physdev_count;
    /* Slots the bottom of the chain registered (a layer asked vk_layerGetPhysicalDeviceProcAddr
     * before the application asked vkGetInstanceProcAddr): their chain entry is still the
     * terminator, and the application's first lookup asks the layers for the top. One bit per slot,
     * set and cleared atomically. */
    uint64_t unknown_physdev_top_pending[(VKL_MAX_UNKNOWN_FUNCS + 63) / 64];
    /* A leaf lock (docs/architecture.md "Concurrency"): only slot registration, and the drivers'
     * vk_icdGetPhysicalDeviceProcAddr it calls, run under it. */
    pthread_mutex_t unknown_lock;
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

/* Whether the application enabled instance extension `name`. Inline: wsi.c, device.c and
 * trampoline.c ask it of the instance's own fields and need nothing else from instance.c. */
static inline bool vkl_instance_extension_enabled(const struct vkl_instance *inst, const char *name) {
    for (uint32_t i = 0; i < inst->enabled_extension_count; i++)
        if (strcmp(inst->enabled_extensions[i], name) == 0) return true;
    return false;
}

/* The global commands below every layer (vkl_term_GetInstanceProcAddr asked with a NULL instance,
 * or any instance, for vkEnumerateInstance*); NULL for other names. */
PFN_vkVoidFunction vkl_term_global_proc(const char *name);

/* Hand-written terminators (also declared by vkl_gen_dispatch.h, custom_commands.txt). */
VkResult vkl_term_CreateInstance(const VkInstanceCreateInfo *, const VkAllocationCallbacks *, VkInstance *);
void vkl_term_DestroyInstance(VkInstance, const VkAllocationCallbacks *);

#ifdef __cplusplus
}
#endif
#endif /* VKL_INTERNAL_INSTANCE_H */
