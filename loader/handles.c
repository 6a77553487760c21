/*
 * The out-of-line half of internal/handles.h: the handle checks of VkInstance and VkPhysicalDevice
 * (RULE_HANDLE_VALIDATION) and the accessors the generated terminators call. handles.h, compiled
 * alone with the generated code, cannot hold them: they read struct vkl_instance, whose layout is
 * instance.h's. A leaf among the loader's object files (it calls only log.c and icd.c), so that
 * physdev.c, device.c, wsi.c and the generated code validate handles and report missing driver
 * commands without depending on instance.c (docs/architecture.md "Object core").
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "loader/internal/instance.h"

struct vkl_icd_instance *vkl_term_icd_first(VkInstance instance) {
    return vkl_instance_from_handle(instance)->icds;
}

void vkl_term_missing(VkInstance instance, VkPhysicalDevice pd, const char *cmd) {
    struct vkl_instance *inst = NULL;
    const char *driver = "?";
    if (pd != VK_NULL_HANDLE) {
        const struct vkl_physdev_term *t = (const struct vkl_physdev_term *)(const void *)pd;
        inst = vkl_physdev_from_term(pd)->tramp.instance;
        driver = vkl_driver_name(t->icd->driver);
    } else if (instance != VK_NULL_HANDLE) {
        inst = vkl_instance_from_handle(instance);
    }
    /* For a physical-device command, the Khronos loader's sentence first (its users grep for it). */
    if (pd != VK_NULL_HANDLE)
        vkl_log(inst != NULL ? &inst->log : NULL, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "ICD for selected physical device does not export %s! terminator %s: not supported by driver %s", cmd,
                cmd, driver);
    else
        vkl_log(inst != NULL ? &inst->log : NULL, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "terminator %s: not supported by driver %s", cmd, driver);
}

/* ---- handle validation ---- */

/* A live loader instance's first word is its dispatch: the terminators' table, or its own chain
 * table (the second is recognised by address, without reading past the first word). */
/* RULE_HANDLE_VALIDATION: the trampolines that validate a dispatchable handle. */
static bool instance_valid(VkInstance instance) {
    if (instance == VK_NULL_HANDLE) return false;
    const struct vkl_instance *inst = vkl_instance_from_handle(instance);
    const void *d = *(const void *const *)(const void *)instance;
    return d == (const void *)&vkl_gen_terminators || d == (const void *)&inst->chain_disp;
}

_Noreturn void vkl_invalid_handle(const char *cmd, const char *param) {
    char line[512];
    snprintf(line, sizeof line, "[Vulkan Loader] ERROR:          %s: Invalid %s [VUID-%s-%s-parameter]\n", cmd, param,
             cmd, param);
    fputs(line, stderr);
    fflush(stderr);
    abort();
}

void vkl_check_instance(VkInstance instance, const char *cmd) {
    if (!instance_valid(instance)) vkl_invalid_handle(cmd, "instance");
}

void vkl_check_physical_device(VkPhysicalDevice physicalDevice, const char *cmd) {
    const struct vkl_physdev_tramp *t = (const struct vkl_physdev_tramp *)(const void *)physicalDevice;
    /* The magic first: only then are the handle's words our pointers, safe to follow. */
    if (t == NULL || t->magic != VKL_PHYSDEV_TRAMP_MAGIC || !instance_valid((VkInstance)(void *)t->instance) ||
        t->disp != t->instance->disp)
        vkl_invalid_handle(cmd, "physicalDevice");
}

/* ---- live device dispatch tables (RULE_HANDLE_VALIDATION) ----------------------------------------
 * A VkDevice, VkQueue or VkCommandBuffer is the driver's memory; only its first word is the
 * loader's. An invalid handle's first word is not a pointer, so the check must not follow it: it
 * looks the word up among the addresses of the live devices' dispatch tables instead. An
 * open-addressing set of atomic words: readers (every checked device-level trampoline) never lock;
 * writers (vkCreateDevice, vkDestroyDevice) serialise on a mutex and reuse a removed slot. Past
 * LIVE_PROBES probes without room (thousands of live devices at once) a device is not registered
 * and the check falls back, for good, to reading the magic word after the table it points at. */
#define LIVE_BITS 12
#define LIVE_SLOTS (1u << LIVE_BITS)
#define LIVE_PROBES 64u
#define LIVE_REMOVED ((uintptr_t)1)
static _Atomic(uintptr_t) g_live[LIVE_SLOTS];
static atomic_bool g_live_overflow;
static pthread_mutex_t g_live_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t live_slot(uintptr_t p, uint32_t probe) {
    uint64_t h = (uint64_t)(p >> 4) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)((h >> (64 - LIVE_BITS)) + probe) & (LIVE_SLOTS - 1);
}

void vkl_device_live_add(const void *table) {
    uintptr_t p = (uintptr_t)table;
    pthread_mutex_lock(&g_live_lock);
    uint32_t probe = 0;
    for (; probe < LIVE_PROBES; probe++) {
        uintptr_t v = atomic_load_explicit(&g_live[live_slot(p, probe)], memory_order_relaxed);
        if (v == 0 || v == LIVE_REMOVED) break;
    }
    if (probe < LIVE_PROBES)
        atomic_store_explicit(&g_live[live_slot(p, probe)], p, memory_order_release);
    else
        atomic_store_explicit(&g_live_overflow, true, memory_order_release);
    pthread_mutex_unlock(&g_live_lock);
}

void vkl_device_live_remove(const void *table) {
    uintptr_t p = (uintptr_t)table;
    pthread_mutex_lock(&g_live_lock);
    for (uint32_t probe = 0; probe < LIVE_PROBES; probe++) {
        _Atomic(uintptr_t) *slot = &g_live[live_slot(p, probe)];
        uintptr_t v = atomic_load_explicit(slot, memory_order_relaxed);
        if (v == 0) break;
        if (v == p) {
            atomic_store_explicit(slot, LIVE_REMOVED, memory_order_release);
            break;
        }
    }
    pthread_mutex_unlock(&g_live_lock);
}

bool vkl_device_dispatch_live(const void *table) {
    uintptr_t p = (uintptr_t)table;
    if (p <= LIVE_REMOVED) return false;
    for (uint32_t probe = 0; probe < LIVE_PROBES; probe++) {
        uintptr_t v = atomic_load_explicit(&g_live[live_slot(p, probe)], memory_order_acquire);
        if (v == p) return true;
        if (v == 0) break;
    }
    /* Not registered: an invalid handle, unless the set overflowed (then the magic decides). */
    return atomic_load_explicit(&g_live_overflow, memory_order_acquire) &&
           ((const struct vkl_device_dispatch *)(const void *)((const char *)table -
                                                               offsetof(struct vkl_device_dispatch, gen)))
                   ->magic == VKL_DEVICE_DISPATCH_MAGIC;
}
