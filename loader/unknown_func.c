/*
 * Commands the loader does not know (newer than its vk.xml, or private to a driver).
 *
 * The driver interface document lets a loader reach them anyway: physical-device commands through
 * vk_icdGetPhysicalDeviceProcAddr (interface >= 4), device commands through the drivers'
 * vkGetInstanceProcAddr / vkGetDeviceProcAddr. Each name gets a slot (250 of each kind per
 * instance, as the document's limit); generic assembly trampolines (unknown_func_x86_64.S) jump
 * through the slot without touching the arguments, so any signature works.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/device.h"
#include "loader/internal/instance.h"
#include "loader/internal/unknown_func.h"

/* A driver that lacks a physical-device command still gets a slot; calling it is a usage error
 * the loader reports before stopping (there is no value it could return for an unknown type). */
void vkl_unknown_physdev_missing(void) {
    vkl_log(NULL, VKL_LOG_ERROR | VKL_LOG_DRIVER,
            "unknown physical-device function: not supported by this physical device's driver");
    abort();
}

static int find_name(char *const *names, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return (int)i;
    return -1;
}

static PFN_vkVoidFunction missing_fn(void) {
    void (*f)(void) = vkl_unknown_physdev_missing;
    return (PFN_vkVoidFunction)f;
}

void vkl_unknown_fill_device(struct vkl_instance *inst, struct vkl_device *dev) {
    for (uint32_t i = 0; i < inst->unknown_device_count; i++) {
        if (dev->disp.unknown[i] != NULL) continue;
        dev->disp.unknown[i] = dev->disp.gen.GetDeviceProcAddr(dev->chain_handle, inst->unknown_device_names[i]);
    }
}

static uint32_t physdev_count(const struct vkl_instance *inst) {
    uint32_t n = __atomic_load_n(&inst->unknown_physdev_count, __ATOMIC_ACQUIRE);
    return n < VKL_MAX_UNKNOWN_FUNCS ? n : VKL_MAX_UNKNOWN_FUNCS;
}

int vkl_unknown_physdev_slot(const struct vkl_instance *inst, const char *name) {
    /* No lock: the terminators ask from inside a layer's GPDPA, which may run under inst->lock
     * (vkl_unknown_lookup) or under none. A slot is complete before the count that covers it is
     * published (register_physdev_locked). */
    uint32_t n = physdev_count(inst);
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(inst->unknown_physdev_names[i], name) == 0) return (int)i;
    return -1;
}

/* Whether a driver of interface >= 4 answers `name` from vk_icdGetPhysicalDeviceProcAddr
 * (RULE_DRV_IFACE_V4). */
static PFN_vkVoidFunction driver_physdev_fn(const struct vkl_icd_instance *ii, const char *name) {
    return ii->driver->interface_version >= 4 && ii->driver->gpdpa != NULL ? ii->driver->gpdpa(ii->handle, name) : NULL;
}

static bool driver_knows_physdev(const struct vkl_instance *inst, const char *name) {
    for (const struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next)
        if (driver_physdev_fn(ii, name) != NULL) return true;
    return false;
}

enum { SLOTS_FULL = -2, NO_MEMORY = -3 };

/* The slot of `name`, registered if it has none: its name, each driver's entry (the "not
 * supported" stub where the driver lacks it) and its chain entry (the terminator) are written
 * before the count is published. Called with inst->unknown_lock held; logs nothing (a messenger
 * must not run under it). */
static int register_physdev_locked(struct vkl_instance *inst, const char *name) {
    int found = vkl_unknown_physdev_slot(inst, name);
    if (found >= 0) return found;
    uint32_t s = inst->unknown_physdev_count;
    if (s >= VKL_MAX_UNKNOWN_FUNCS) return SLOTS_FULL;
    inst->unknown_physdev_names[s] = vkl_strdup_alloc(&inst->alloc, name, VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
    if (inst->unknown_physdev_names[s] == NULL) return NO_MEMORY;
    for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next) {
        PFN_vkVoidFunction f = driver_physdev_fn(ii, name);
        ii->unknown_physdev[s] = f != NULL ? f : missing_fn();
    }
    inst->unknown_physdev_chain[s] = vkl_unknown_physdev_terms[s];
    __atomic_store_n(&inst->unknown_physdev_count, s + 1, __ATOMIC_RELEASE);
    return (int)s;
}

static int register_physdev(struct vkl_instance *inst, const char *name, bool top_pending) {
    pthread_mutex_lock(&inst->unknown_lock);
    int s = register_physdev_locked(inst, name);
    if (s >= 0 && top_pending)
        __atomic_fetch_or(&inst->unknown_physdev_top_pending[s / 64], UINT64_C(1) << (s % 64), __ATOMIC_ACQ_REL);
    pthread_mutex_unlock(&inst->unknown_lock);
    if (s == SLOTS_FULL)
        vkl_log(&inst->log, VKL_LOG_ERROR, "no unknown physical-device slot left for %s (limit %d)", name,
                VKL_MAX_UNKNOWN_FUNCS);
    return s;
}

int vkl_unknown_physdev_term_slot(struct vkl_instance *inst, const char *name) {
    int s = vkl_unknown_physdev_slot(inst, name);
    if (s >= 0) return s;
    /* A layer asks below for a command no slot has yet, typically from its vkCreateInstance before
     * the application looked the command up ([Lyr] "Layer Unknown Physical Device Extensions": the
     * loader's terminator answers for the drivers). Only a command some driver implements gets a
     * slot here; the application's lookup will then ask the layers for the top of its chain. */
    if (!driver_knows_physdev(inst, name)) return -1;
    return register_physdev(inst, name, true);
}

/* Whether some driver of `inst` implements unknown physical-device slot `s` (the others hold the
 * loader's "not supported" stub). */
bool vkl_unknown_physdev_implemented(const struct vkl_instance *inst, int s) {
    void (*missing)(void) = vkl_unknown_physdev_missing;
    for (const struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next)
        if (ii->unknown_physdev[s] != NULL && ii->unknown_physdev[s] != (PFN_vkVoidFunction)missing) return true;
    return false;
}

/* Commands the loader does not know: a physical-device command (a driver of interface >= 4
 * answers vk_icdGetPhysicalDeviceProcAddr, RULE_DRV_IFACE_V4, or a layer's
 * vk_layerGetPhysicalDeviceProcAddr does) gets one of the 250 physical-device slots
 * (RULE_UNKNOWN_PHYSDEV_FUNC); a device command (a driver's vkGetInstanceProcAddr answers it, or
 * an active layer's manifest lists it among its device_extensions' entrypoints,
 * RULE_LYR_DEVICE_EXT_ENTRYPOINTS) one of the 250 device slots, filled from vkGetDeviceProcAddr
 * (RULE_UNKNOWN_DEVICE_FUNC). */
PFN_vkVoidFunction vkl_unknown_lookup(struct vkl_instance *inst, const char *name,
                                      const struct vkl_unknown_chain *chain) {
    if (strncmp(name, "vk", 2) != 0) return NULL;
    PFN_vkVoidFunction result = NULL;
    pthread_mutex_lock(&inst->lock);
    int slot = vkl_unknown_physdev_slot(inst, name);
    if (slot >= 0) {
        uint64_t bit = UINT64_C(1) << (slot % 64);
        if (__atomic_load_n(&inst->unknown_physdev_top_pending[slot / 64], __ATOMIC_ACQUIRE) & bit) {
            /* Registered by the bottom of the chain: ask the layers now (inst->lock serialises this). */
            PFN_vkVoidFunction top = chain->physdev_top(inst, name);
            if (top != NULL) inst->unknown_physdev_chain[slot] = top;
            __atomic_fetch_and(&inst->unknown_physdev_top_pending[slot / 64], ~bit, __ATOMIC_ACQ_REL);
        }
        result = vkl_unknown_physdev_tramps[slot];
        goto out;
    }
    slot = find_name(inst->unknown_device_names, inst->unknown_device_count, name);
    if (slot >= 0) {
        result = vkl_unknown_device_tramps[slot];
        goto out;
    }
    /* A physical-device command if any interface >= 4 driver knows it by that role, or a layer
     * implements it (its vk_layerGetPhysicalDeviceProcAddr answers). */
    if (driver_knows_physdev(inst, name) || chain->knows_physdev(inst, name)) {
        int s = register_physdev(inst, name, false);
        if (s < 0) goto out;
        /* The top of the chain for this slot: the terminator, unless a layer's GPDPA answers (it
         * is asked once the slot is registered, so the terminator GPDPA below it can answer). */
        PFN_vkVoidFunction top = chain->physdev_top(inst, name);
        if (top != NULL) inst->unknown_physdev_chain[s] = top;
        result = vkl_unknown_physdev_tramps[s];
        goto out;
    }
    /* A device command if any driver answers it, or an active layer's manifest lists it among the
     * entrypoints of its device_extensions ([Lyr] "Layer Manifest File Format"; the Vulkan
     * specification's vkGetInstanceProcAddr table: commands of device extensions available on any
     * physical device of the instance). */
    bool device = false;
    for (struct vkl_icd_instance *ii = inst->icds; ii != NULL && !device; ii = ii->next)
        device = ii->driver->gipa(ii->handle, name) != NULL;
    /* ... or the chain knows it: an active layer's manifest lists it, or the top layer's
     * vkGetInstanceProcAddr answers it. */
    if (!device) device = chain->knows_device(inst, name);
    if (device) {
        if (inst->unknown_device_count >= VKL_MAX_UNKNOWN_FUNCS) {
            vkl_log(&inst->log, VKL_LOG_ERROR, "vkGetInstanceProcAddr: no unknown device slot left for %s (limit %d)",
                    name, VKL_MAX_UNKNOWN_FUNCS);
            goto out;
        }
        uint32_t s = inst->unknown_device_count;
        inst->unknown_device_names[s] = vkl_strdup_alloc(&inst->alloc, name, VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
        if (inst->unknown_device_names[s] == NULL) goto out;
        inst->unknown_device_count++;
        for (struct vkl_device *d = inst->devices; d != NULL; d = d->next) vkl_unknown_fill_device(inst, d);
        result = vkl_unknown_device_tramps[s];
    }
out:
    pthread_mutex_unlock(&inst->lock);
    return result;
}
