/*
 * What the physical-device files share (physdev.c: the wrappers and vkEnumeratePhysicalDevices;
 * physdev_order.c: ID filters, sorting and the settings file's device_configurations;
 * physdev_groups.c: vkEnumeratePhysicalDeviceGroups; physdev_props2.c: the emulated *2 queries).
 * Private to those files; the rest of the loader uses internal/physdev.h. All of it runs with
 * inst->lock held where it touches the instance's wrapper list.
 */
#ifndef VKL_INTERNAL_PHYSDEV_ENUM_H
#define VKL_INTERNAL_PHYSDEV_ENUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "loader/internal/instance.h"
#include "loader/internal/loader.h"
#include "loader/internal/util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Physical-device wrappers by (driver instance, driver handle), built once per enumeration: a
 * linear scan of inst->physdevs per device made enumeration quadratic in the number of drivers
 * (RULE_ADVERSARIAL_INPUT). The first PD_SLOTS slots are on the caller's stack; larger tables come
 * from the instance's allocator. `ok` false (out of memory): the list scan takes over. */
#define PD_SLOTS 32u
struct pd_index {
    struct vkl_map map; /* key: the wrapper, value: the wrapper */
    struct vkl_map_slot local[PD_SLOTS];
    bool ok;
};

struct pd_key {
    const struct vkl_icd_instance *ii;
    VkPhysicalDevice h;
};

static inline bool pd_key_eq(const struct vkl_map_slot *stored, const void *key, const void *ctx) {
    (void)ctx;
    const struct vkl_physdev *p = stored->value;
    const struct pd_key *k = key;
    return p->term.icd == k->ii && p->term.handle == k->h;
}

static inline uint64_t pd_hash(const struct vkl_icd_instance *ii, VkPhysicalDevice h) {
    struct pd_key k;
    memset(&k, 0, sizeof(k));
    k.ii = ii;
    k.h = h;
    return vkl_hash(&k, sizeof(k));
}

static inline void pd_index_put(struct pd_index *ix, struct vkl_physdev *p) {
    if (ix->ok && vkl_map_add(&ix->map, pd_hash(p->term.icd, p->term.handle), p, p) != VK_SUCCESS) ix->ok = false;
}

static inline void pd_index_init(struct vkl_instance *inst, struct pd_index *ix) {
    vkl_map_init(&ix->map, ix->local, PD_SLOTS, pd_key_eq, NULL, &inst->alloc.cb);
    ix->ok = true;
}

/* Every wrapper of the instance with a driver side. */
static inline void pd_index_build(struct vkl_instance *inst, struct pd_index *ix) {
    pd_index_init(inst, ix);
    for (struct vkl_physdev *p = inst->physdevs; p != NULL && ix->ok; p = p->next)
        if (p->term.icd != NULL) pd_index_put(ix, p);
}

static inline void pd_index_free(struct pd_index *ix) { vkl_map_finish(&ix->map); }

static inline struct vkl_physdev *pd_index_find(const struct pd_index *ix, const struct vkl_icd_instance *ii,
                                                VkPhysicalDevice h) {
    struct pd_key k = {ii, h};
    struct vkl_map_slot *s = vkl_map_find(&ix->map, pd_hash(ii, h), &k);
    return s != NULL ? s->value : NULL;
}

/* Collects every driver's physical devices (terminator objects) into a fresh array (physdev.c). */
VkResult vkl_physdev_collect(struct vkl_instance *inst, struct vkl_physdev ***out, uint32_t *out_count);
/* The wrapper of (driver instance, driver handle), created on first sight (physdev.c). */
struct vkl_physdev *vkl_physdev_get(struct vkl_instance *inst, struct pd_index *ix, struct vkl_icd_instance *ii,
                                    VkPhysicalDevice h);
/* RULE_PHYSDEV_NONE: logs, sets *pCount to 0, returns VK_ERROR_INITIALIZATION_FAILED (physdev.c). */
VkResult vkl_physdev_none(struct vkl_instance *inst, const char *cmd, uint32_t *pCount);
/* The application-side handle for one the top of the chain returned (physdev.c). */
VkPhysicalDevice vkl_physdev_tramp_for(struct vkl_instance *inst, VkPhysicalDevice next);

/* ---- physdev_order.c: RULE_PHYSDEV_ID_FILTER / RULE_PHYSDEV_SORT ---- */
struct pd_info; /* one per collected device: its sort keys and whether a filter hides it */

struct pd_order {
    struct pd_info *info; /* parallel to the collected array */
    uint32_t count;
    bool sort;
    bool filtered;          /* some device is hidden */
    struct vkl_map by_term; /* key: the terminator handle, value: its pd_info (pd_order_find) */
    struct vkl_map_slot local[PD_SLOTS];
};

/* Fills one pd_info per collected device and decides what is hidden; sorts nothing. */
VkResult vkl_physdev_order_build(struct vkl_instance *inst, struct vkl_physdev *const *all, uint32_t n,
                                 struct pd_order *o);
/* Sorts (when enabled) and drops hidden devices in place; *n becomes the visible count. */
VkResult vkl_physdev_order_apply(struct vkl_instance *inst, const struct pd_order *o, struct vkl_physdev **all,
                                 uint32_t *n);
void vkl_physdev_order_free(struct vkl_instance *inst, struct pd_order *o);
/* Groups: drops those with a hidden member, sorts members and then groups by their first member. */
VkResult vkl_physdev_order_groups(struct vkl_instance *inst, const struct pd_order *o,
                                  VkPhysicalDeviceGroupProperties *g, uint32_t *ngp);
/* The unsorted order's comparison of two drivers' records (VK_LOADER_DISABLE_SELECT, physdev.c):
 * direct drivers last, otherwise the last driver found first. */
int vkl_physdev_unsorted_rank_cmp(const struct vkl_icd_instance *a, const struct vkl_icd_instance *b);
/* vkl_sort_stable with its scratch from the instance's allocator. */
VkResult vkl_physdev_sort_stable(struct vkl_instance *inst, void *base, uint32_t n, size_t size,
                                 int (*cmp)(const void *, const void *, void *), void *ctx);
/* [Set] device_configurations: only the devices the settings file names, in its order. */
VkResult vkl_physdev_settings_devices(struct vkl_instance *inst, struct vkl_physdev **all, uint32_t *n, bool *applied);

/* ---- the *2 queries (physdev_order.c reads properties through them, physdev_props2.c emulates) ---- */

/* Vulkan 1.1 or later (major.minor; the variant is 0 for every version the loader accepts). */
static inline bool at_least_1_1(uint32_t v) { return VK_API_VERSION_MAJOR(v) > 1 || VK_API_VERSION_MINOR(v) >= 1; }

static inline bool has_pd2(const struct vkl_icd_instance *ii) {
    return at_least_1_1(ii->api_version) ||
           vkl_driver_has_extension(ii->driver, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
}

#ifdef __cplusplus
}
#endif
#endif /* VKL_INTERNAL_PHYSDEV_ENUM_H */
