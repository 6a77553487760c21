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

int vkl_unknown_physdev_slot(const struct vkl_instance *inst, const char *name) {
    /* No lock: called from inside a layer's GPDPA while vkl_unknown_lookup holds the instance lock;
     * names are only ever appended. */
    for (uint32_t i = 0; i < inst->unknown_physdev_count && i < VKL_MAX_UNKNOWN_FUNCS; i++)
        if (inst->unknown_physdev_names[i] != NULL && strcmp(inst->unknown_physdev_names[i], name) == 0) return (int)i;
    return -1;
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
    int slot = find_name(inst->unknown_physdev_names, inst->unknown_physdev_count, name);
    if (slot >= 0) {
        result = vkl_unknown_physdev_tramps[slot];
        goto out;
    }
    slot = find_name(inst->unknown_device_names, inst->unknown_device_count, name);
    if (slot >= 0) {
        result = vkl_unknown_device_tramps[slot];
        goto out;
    }
    /* A physical-device command if any interface >= 4 driver knows it by that role. */
    bool physdev = false;
    for (struct vkl_icd_instance *ii = inst->icds; ii != NULL && !physdev; ii = ii->next)
        physdev = ii->driver->interface_version >= 4 && ii->driver->gpdpa != NULL &&
                  ii->driver->gpdpa(ii->handle, name) != NULL;
    /* ... or a layer implements it (its vk_layerGetPhysicalDeviceProcAddr answers). */
    if (!physdev) physdev = chain->knows_physdev(inst, name);
    if (physdev) {
        if (inst->unknown_physdev_count >= VKL_MAX_UNKNOWN_FUNCS) {
            vkl_log(&inst->log, VKL_LOG_ERROR,
                    "vkGetInstanceProcAddr: no unknown physical-device slot left for %s "
                    "(limit %d)",
                    name, VKL_MAX_UNKNOWN_FUNCS);
            goto out;
        }
        uint32_t s = inst->unknown_physdev_count;
        inst->unknown_physdev_names[s] = vkl_strdup_alloc(&inst->alloc, name, VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
        if (inst->unknown_physdev_names[s] == NULL) goto out;
        for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next) {
            PFN_vkVoidFunction f = NULL;
            if (ii->driver->interface_version >= 4 && ii->driver->gpdpa != NULL)
                f = ii->driver->gpdpa(ii->handle, name);
            ii->unknown_physdev[s] = f != NULL ? f : missing_fn();
        }
        /* The top of the chain for this slot: the terminator, unless a layer's GPDPA answers (it
         * is asked once the slot is registered, so the terminator GPDPA below it can answer). */
        inst->unknown_physdev_chain[s] = vkl_unknown_physdev_terms[s];
        inst->unknown_physdev_count++;
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
