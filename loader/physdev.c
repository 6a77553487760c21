/*
 * Physical devices: the wrappers (one per driver device, and one per handle a layer returns) and
 * vkEnumeratePhysicalDevices, aggregated across drivers (RULE_PHYSDEV_AGGREGATE). Which devices are
 * visible and in what order: physdev_order.c; groups: physdev_groups.c; the emulated
 * VK_KHR_get_physical_device_properties2 queries (LDP_LOADER_8): physdev_props2.c.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/instance.h"
#include "loader/internal/physdev.h"
#include "loader/internal/physdev_enum.h"
#include "loader/internal/util.h"

bool vkl_physdev_is_term(struct vkl_instance *inst, VkPhysicalDevice pd) {
    bool found = false;
    pthread_mutex_lock(&inst->lock);
    for (const struct vkl_physdev *p = inst->physdevs; p != NULL && !found; p = p->next)
        found = p->term.icd != NULL && (VkPhysicalDevice)(uintptr_t)(const void *)&p->term == pd;
    pthread_mutex_unlock(&inst->lock);
    return found;
}

/* The application-side half: what every trampoline and the handle check read. */
static void tramp_init(struct vkl_physdev *p, struct vkl_instance *inst, VkPhysicalDevice next) {
    p->tramp.disp = inst->disp;
    p->tramp.next = next;
    p->tramp.magic = VKL_PHYSDEV_TRAMP_MAGIC;
    p->tramp.instance = inst;
}

/* ---- vkl_physdev_tramp_for's index: every wrapper by tramp.next, kept with the instance (inst->lock) ---- */
struct vkl_physdev_next_index {
    struct vkl_map map; /* key: tramp.next, value: the wrapper */
    bool ok;            /* false: out of memory once; the list scan takes over for good */
};

static void next_index_note(struct vkl_instance *inst, struct vkl_physdev *p) {
    struct vkl_physdev_next_index *x = inst->physdev_next;
    if (x != NULL && x->ok && vkl_map_add(&x->map, vkl_hash_ptr(p->tramp.next), p->tramp.next, p) != VK_SUCCESS)
        x->ok = false;
}

/* Whether the index can answer (built from the list on first use). */
static bool next_index_ready(struct vkl_instance *inst) {
    if (inst->physdev_next == NULL) {
        struct vkl_physdev_next_index *x = vkl_alloc(&inst->alloc, sizeof(*x), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
        if (x == NULL) return false;
        vkl_map_init(&x->map, NULL, 0, vkl_map_eq_ptr, NULL, &inst->alloc.cb);
        x->map.scope = VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE;
        x->ok = true;
        inst->physdev_next = x;
        for (struct vkl_physdev *p = inst->physdevs; p != NULL && x->ok; p = p->next) next_index_note(inst, p);
    }
    return inst->physdev_next->ok;
}

void vkl_physdev_next_index_free(struct vkl_instance *inst) {
    if (inst->physdev_next == NULL) return;
    vkl_map_finish(&inst->physdev_next->map);
    vkl_free(&inst->alloc, inst->physdev_next);
    inst->physdev_next = NULL;
}

struct vkl_physdev *vkl_physdev_get(struct vkl_instance *inst, struct pd_index *ix, struct vkl_icd_instance *ii,
                                    VkPhysicalDevice h) {
    if (ix->ok) {
        struct vkl_physdev *p = pd_index_find(ix, ii, h);
        if (p != NULL) return p;
    } else {
        for (struct vkl_physdev *p = inst->physdevs; p != NULL; p = p->next)
            if (p->term.icd == ii && p->term.handle == h) return p;
    }
    struct vkl_physdev *p = vkl_calloc(&inst->alloc, sizeof(*p), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
    if (p == NULL) return NULL;
    /* Same dispatch key as the instance, so layers that do not wrap physical devices find their
     * instance data from either handle. */
    p->term.disp = inst->disp;
    p->term.icd = ii;
    p->term.handle = h;
    p->term.unknown = ii->unknown_physdev;
    tramp_init(p, inst, (VkPhysicalDevice)(void *)&p->term);
    p->next = inst->physdevs;
    inst->physdevs = p;
    pd_index_put(ix, p);
    next_index_note(inst, p);
    return p;
}

/* RULE_DRV_UNTRUSTED_ANSWERS: the driver's vkEnumeratePhysicalDevices answer in hs (asked elements
 * and the slack after them), checked before any handle is used: a count above asked is cut, a write
 * into the slack is logged, and a NULL handle or one the driver already returned in this answer is
 * dropped (a loader object for it would alias another device or crash at the first query).
 * Returns the number of handles left at the front of hs. */
static uint32_t untrusted_handles(struct vkl_instance *inst, const struct vkl_icd_instance *ii, VkPhysicalDevice *hs,
                                  uint32_t asked, uint32_t n) {
    n = vkl_fill_checked(&inst->log, ii->driver, "vkEnumeratePhysicalDevices", asked, n, &hs[asked], sizeof(*hs));
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool dup = false;
        for (uint32_t k = 0; k < kept && !dup; k++) dup = hs[k] == hs[i];
        if (hs[i] == VK_NULL_HANDLE || dup) {
            vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "driver %s: vkEnumeratePhysicalDevices returned %s at index %u; dropped "
                    "[RULE_DRV_UNTRUSTED_ANSWERS]",
                    vkl_driver_name(ii->driver), dup ? "a handle it had already returned" : "a NULL handle", i);
            continue;
        }
        hs[kept++] = hs[i];
    }
    return kept;
}

/* Collects every driver's physical devices (terminator objects) into a fresh array. A driver that
 * fails is logged and skipped: it must not hide the others (LDP_DRIVER_1). */
/* Every driver's physical devices, each wrapped once (RULE_PHYSDEV_AGGREGATE); a driver with none
 * contributes none and breaks nothing for the others (RULE_DRV_ZERO_DEVICE_UNLOAD). */
VkResult vkl_physdev_collect(struct vkl_instance *inst, struct vkl_physdev ***out, uint32_t *out_count) {
    *out = NULL;
    *out_count = 0;
    VkResult r = VK_SUCCESS;
    uint32_t total = 0, cap = 0;
    struct vkl_physdev **all = NULL;
    /* A driver's handles land in `local` when they fit (no heap block per driver per call). */
    VkPhysicalDevice local[16];
    /* `all` starts with room for one device per driver, then doubles. */
    uint32_t icd_count = 0;
    for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next) icd_count++;
    struct pd_index ix;
    pd_index_build(inst, &ix);
#define FREE_HS(hs) ((hs) != local ? vkl_free(&inst->alloc, (hs)) : (void)0)
    for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next) {
        uint32_t n = 0;
        VkResult dr = ii->disp.EnumeratePhysicalDevices(ii->handle, &n, NULL);
        VkPhysicalDevice *hs = NULL;
        if (dr == VK_SUCCESS && n > 0) {
            /* One element of slack after the n the driver is given (RULE_DRV_UNTRUSTED_ANSWERS). */
            uint32_t asked = n;
            hs = n < sizeof(local) / sizeof(local[0])
                     ? local
                     : vkl_alloc(&inst->alloc, ((size_t)n + 1) * sizeof(*hs), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
            if (hs == NULL) {
                r = VK_ERROR_OUT_OF_HOST_MEMORY;
                goto out;
            }
            vkl_slack_init(&hs[asked], sizeof(*hs));
            dr = ii->disp.EnumeratePhysicalDevices(ii->handle, &n, hs);
            if (dr == VK_INCOMPLETE) dr = VK_SUCCESS;
            if (dr == VK_SUCCESS) n = untrusted_handles(inst, ii, hs, asked, n);
        }
        if (dr != VK_SUCCESS) {
            vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "driver %s: vkEnumeratePhysicalDevices returned %d; its devices are left out [LDP_DRIVER_1]",
                    vkl_driver_name(ii->driver), (int)dr);
            FREE_HS(hs);
            continue;
        }
        if (total + n > cap) {
            uint32_t ncap = (total + n) * 2;
            if (ncap < icd_count + n) ncap = icd_count + n;
            struct vkl_physdev **nall =
                vkl_alloc(&inst->alloc, ncap * sizeof(*nall), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
            if (nall == NULL) {
                FREE_HS(hs);
                r = VK_ERROR_OUT_OF_HOST_MEMORY;
                goto out;
            }
            if (all != NULL) memcpy(nall, all, total * sizeof(*all));
            vkl_free(&inst->alloc, all);
            all = nall;
            cap = ncap;
        }
        for (uint32_t i = 0; i < n; i++) {
            struct vkl_physdev *p = vkl_physdev_get(inst, &ix, ii, hs[i]);
            if (p == NULL) {
                FREE_HS(hs);
                r = VK_ERROR_OUT_OF_HOST_MEMORY;
                goto out;
            }
            all[total++] = p;
        }
        FREE_HS(hs);
    }
#undef FREE_HS
out:
    pd_index_free(&ix);
    if (r != VK_SUCCESS) {
        vkl_free(&inst->alloc, all);
        return r;
    }
    *out = all;
    *out_count = total;
    return VK_SUCCESS;
}

/* The unsorted order (VK_LOADER_DISABLE_SELECT): the Khronos loader's, which keeps its drivers in a
 * list each newly found driver is pushed onto the front of, so the last driver found comes first;
 * within a driver, the driver's own order. Direct drivers (VK_LUNARG_direct_driver_loading) come
 * after all the others ([Drv]: their devices appear after those of system and environment
 * drivers; the Khronos loader adds them to its list first). Stable sort by that rank. */
int vkl_physdev_unsorted_rank_cmp(const struct vkl_icd_instance *a, const struct vkl_icd_instance *b) {
    if (a->driver->direct != b->driver->direct) return a->driver->direct ? 1 : -1;
    return a->index > b->index ? -1 : (a->index < b->index ? 1 : 0);
}

static int by_driver_desc(const void *a, const void *b, void *ctx) {
    (void)ctx;
    return vkl_physdev_unsorted_rank_cmp((*(struct vkl_physdev *const *)a)->term.icd,
                                         (*(struct vkl_physdev *const *)b)->term.icd);
}

/* RULE_PHYSDEV_NONE: no driver reported a physical device (none has one, or every driver's
 * vkEnumeratePhysicalDevices failed). The Vulkan specification allows
 * VK_ERROR_INITIALIZATION_FAILED here and the Khronos loader answers so (setup_loader_term_phys_devs),
 * for groups as well; applications written against it treat it as "no GPU". Devices that exist but
 * that the ID filters hide are not this case (RULE_PHYSDEV_ID_FILTER: VK_SUCCESS with 0). */
VkResult vkl_physdev_none(struct vkl_instance *inst, const char *cmd, uint32_t *pCount) {
    vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
            "%s: no driver reported a physical device (%u driver%s asked); VK_ERROR_INITIALIZATION_FAILED "
            "[RULE_PHYSDEV_NONE]",
            cmd, inst->icd_count, inst->icd_count == 1 ? "" : "s");
    *pCount = 0;
    return VK_ERROR_INITIALIZATION_FAILED;
}

VkResult vkl_term_EnumeratePhysicalDevices(VkInstance instance, uint32_t *pCount, VkPhysicalDevice *pDevices) {
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    struct vkl_physdev **all = NULL;
    uint32_t n = 0;
    struct pd_order order;
    pthread_mutex_lock(&inst->lock);
    VkResult r = vkl_physdev_collect(inst, &all, &n);
    if (r == VK_SUCCESS && n == 0) {
        pthread_mutex_unlock(&inst->lock);
        vkl_free(&inst->alloc, all);
        return vkl_physdev_none(inst, "vkEnumeratePhysicalDevices", pCount);
    }
    if (r == VK_SUCCESS) {
        r = vkl_physdev_order_build(inst, all, n, &order);
        if (r == VK_SUCCESS) {
            r = vkl_physdev_order_apply(inst, &order, all, &n);
            if (r == VK_SUCCESS && !order.sort)
                r = vkl_physdev_sort_stable(inst, all, n, sizeof(*all), by_driver_desc, NULL);
            vkl_physdev_order_free(inst, &order);
        }
        if (r == VK_SUCCESS)
            r = vkl_physdev_settings_devices(inst, all, &n, NULL); /* settings file: replaces the order */
    }
    pthread_mutex_unlock(&inst->lock);
    if (r != VK_SUCCESS) {
        vkl_free(&inst->alloc, all);
        return r;
    }
    if (pDevices == NULL) {
        *pCount = n;
    } else {
        uint32_t c = *pCount < n ? *pCount : n;
        for (uint32_t i = 0; i < c; i++) pDevices[i] = (VkPhysicalDevice)(void *)&all[i]->term;
        *pCount = c;
        if (c < n) {
            r = VK_INCOMPLETE;
            vkl_log(&inst->log, VKL_LOG_INFO,
                    "vkEnumeratePhysicalDevices: Trimming device count from %u to %u; returning VK_INCOMPLETE", n, c);
        }
    }
    vkl_free(&inst->alloc, all);
    return r;
}

/* Maps a handle returned by the top of the chain to the application-side object. A layer that
 * wraps physical devices (LLP_LAYER_10) returns its own handles: each gets a trampoline-only entry
 * (no terminator side: term.icd stays NULL, so vkl_physdev_collect never matches it) whose `next` is
 * the layer's handle, created on first sight and kept until vkDestroyInstance. */
VkPhysicalDevice vkl_physdev_tramp_for(struct vkl_instance *inst, VkPhysicalDevice next) {
    if (next == VK_NULL_HANDLE) return VK_NULL_HANDLE;
    /* No layer: the chain's top is the loader's terminator, whose handles are the `term` members
     * of this instance's wrappers (vkl_term_EnumeratePhysicalDevices): found without the list scan
     * that made enumeration quadratic in the number of devices (RULE_ADVERSARIAL_INPUT). */
    if (inst->layer_lib_count == 0) {
        struct vkl_physdev *q = vkl_physdev_from_term(next);
        if (q->tramp.next == next) return (VkPhysicalDevice)(void *)&q->tramp;
    }
    pthread_mutex_lock(&inst->lock);
    struct vkl_physdev *p = NULL;
    if (next_index_ready(inst)) {
        const struct vkl_map_slot *s = vkl_map_find(&inst->physdev_next->map, vkl_hash_ptr(next), next);
        if (s != NULL) p = s->value;
    } else {
        for (p = inst->physdevs; p != NULL; p = p->next)
            if (p->tramp.next == next) break;
    }
    if (p == NULL && inst->layer_lib_count > 0) {
        p = vkl_calloc(&inst->alloc, sizeof(*p), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
        if (p != NULL) {
            p->term.disp = inst->disp;
            tramp_init(p, inst, next);
            p->next = inst->physdevs;
            inst->physdevs = p;
            next_index_note(inst, p);
        }
    }
    pthread_mutex_unlock(&inst->lock);
    return p != NULL ? (VkPhysicalDevice)(void *)&p->tramp : VK_NULL_HANDLE;
}

VKL_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumeratePhysicalDevices(VkInstance instance, uint32_t *pCount,
                                                                     VkPhysicalDevice *pDevices) {
    vkl_check_instance(instance, "vkEnumeratePhysicalDevices");
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    if (pCount == NULL) {
        /* RULE_INST_ROBUST_ARGUMENTS: refused, and said to the instance's messengers in the
         * Khronos loader's words (its users grep for the VUID). */
        vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_VALIDATION,
                "vkEnumeratePhysicalDevices: Received NULL pointer for physical device count return value. "
                "[VUID-vkEnumeratePhysicalDevices-pPhysicalDeviceCount-parameter]");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkResult r = inst->disp->EnumeratePhysicalDevices(inst->chain_handle, pCount, pDevices);
    if (pDevices == NULL || (r != VK_SUCCESS && r != VK_INCOMPLETE)) return r;
    for (uint32_t i = 0; i < *pCount; i++) {
        VkPhysicalDevice t = vkl_physdev_tramp_for(inst, pDevices[i]);
        if (t == VK_NULL_HANDLE) return VK_ERROR_INITIALIZATION_FAILED;
        pDevices[i] = t;
    }
    return r;
}
