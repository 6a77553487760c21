/*
 * Physical-device groups aggregated across drivers: each driver's own groups when they are sound,
 * one group per device otherwise, filtered and ordered as the devices are (physdev_order.c), and
 * vkEnumeratePhysicalDeviceGroups.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/instance.h"
#include "loader/internal/physdev.h"
#include "loader/internal/physdev_enum.h"
#include "loader/internal/util.h"

static const struct vkl_icd_instance *group_driver(const VkPhysicalDeviceGroupProperties *g) {
    const struct vkl_physdev_term *t = (const struct vkl_physdev_term *)(const void *)g->physicalDevices[0];
    return t->icd;
}

/* The unsorted order of groups: as of devices (physdev.c). */
static int group_by_driver_desc(const void *a, const void *b, void *ctx) {
    (void)ctx;
    return vkl_physdev_unsorted_rank_cmp(group_driver(a), group_driver(b));
}

/* The collected devices by driver: the map holds each driver's first device index (+ 1), same[i]
 * the next device of device i's driver (UINT32_MAX: none), so a driver's devices are walked in
 * collection order in time proportional to their number. False when out of memory. */
static bool driver_chains(struct vkl_map *by_driver, uint32_t *same, struct vkl_physdev *const *all, uint32_t n) {
    for (uint32_t i = n; i-- > 0;) { /* backwards: each device goes in front of the later ones */
        const void *ii = all[i]->term.icd;
        struct vkl_map_slot *s = vkl_map_find(by_driver, vkl_hash_ptr(ii), ii);
        same[i] = s != NULL ? (uint32_t)(uintptr_t)s->value - 1 : UINT32_MAX;
        if (s != NULL)
            s->value = (void *)(uintptr_t)(i + 1);
        else if (vkl_map_add(by_driver, vkl_hash_ptr(ii), ii, (void *)(uintptr_t)(i + 1)) != VK_SUCCESS)
            return false;
    }
    return true;
}

/* The first device of driver `ii` at or after `from` in `all` (n: none): through the chains, or a
 * scan when they could not be built (`same` NULL). */
static uint32_t driver_first(const struct vkl_map *by_driver, const uint32_t *same, struct vkl_physdev *const *all,
                             uint32_t n, const struct vkl_icd_instance *ii, uint32_t from) {
    if (same != NULL) {
        const struct vkl_map_slot *s = vkl_map_find(by_driver, vkl_hash_ptr(ii), ii);
        return s != NULL ? (uint32_t)(uintptr_t)s->value - 1 : n;
    }
    while (from < n && all[from]->term.icd != ii) from++;
    return from;
}

static uint32_t driver_next(const struct vkl_map *by_driver, const uint32_t *same, struct vkl_physdev *const *all,
                            uint32_t n, const struct vkl_icd_instance *ii, uint32_t i) {
    if (same != NULL) return same[i] != UINT32_MAX ? same[i] : n;
    return driver_first(by_driver, same, all, n, ii, i + 1);
}

/* Makes room for `need` groups (a driver whose vkEnumeratePhysicalDevices failed can still report
 * groups, so the device count is not a bound). */
static bool groups_reserve(struct vkl_instance *inst, VkPhysicalDeviceGroupProperties **groups, uint32_t *cap,
                           uint32_t need) {
    if (need <= *cap) return true;
    uint32_t ncap = need * 2;
    VkPhysicalDeviceGroupProperties *n =
        vkl_calloc(&inst->alloc, ncap * sizeof(*n), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (n == NULL) return false;
    memcpy(n, *groups, *cap * sizeof(*n));
    vkl_free(&inst->alloc, *groups);
    *groups = n;
    *cap = ncap;
    return true;
}

/* A driver's own groups are used only when every member is a device the driver's
 * vkEnumeratePhysicalDevices returned (so the application never sees a device in a group that is
 * missing from its device list) and every count fits the fixed-size member array. */
/* `in_all`: the devices of `all` by (driver, handle), or !ok (a scan of `all` per member). */
static bool groups_valid(struct vkl_physdev *const *all, uint32_t ndev, const struct pd_index *in_all,
                         const struct vkl_icd_instance *ii, const VkPhysicalDeviceGroupProperties *dg, uint32_t dn) {
    for (uint32_t g = 0; g < dn; g++) {
        if (dg[g].physicalDeviceCount == 0 || dg[g].physicalDeviceCount > VK_MAX_DEVICE_GROUP_SIZE) return false;
        for (uint32_t m = 0; m < dg[g].physicalDeviceCount; m++) {
            bool found = false;
            if (in_all->ok)
                found = pd_index_find(in_all, ii, dg[g].physicalDevices[m]) != NULL;
            else
                for (uint32_t i = 0; i < ndev && !found; i++)
                    found = all[i]->term.icd == ii && all[i]->term.handle == dg[g].physicalDevices[m];
            if (!found) return false;
        }
    }
    return true;
}

/* A driver that answers vkGetInstanceProcAddr("vkEnumeratePhysicalDeviceGroups") (or its KHR
 * alias) describes its own groups, whatever apiVersion the application asked for: the groups are
 * facts of the hardware (devices physically linked), and single-device groups made up by the loader
 * would misdescribe them. The Khronos loader asks such a driver too; the loader documents are
 * silent (RULE_PHYSDEV_AGGREGATE). */
static bool icd_has_groups(const struct vkl_icd_instance *ii) { return ii->disp.EnumeratePhysicalDeviceGroups != NULL; }

struct ranked {
    uint32_t rank, group;
};

static int by_rank(const void *a, const void *b, void *ctx) {
    (void)ctx;
    uint32_t x = ((const struct ranked *)a)->rank, y = ((const struct ranked *)b)->rank;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* The settings file's device_configurations for groups (spec 7.7): a group with a member the file
 * does not choose is dropped, the others are ordered by the file's position of their first chosen
 * member. `all` is not changed. Called with inst->lock held. */
static VkResult settings_groups(struct vkl_instance *inst, struct vkl_physdev *const *all, uint32_t ndev,
                                VkPhysicalDeviceGroupProperties *groups, uint32_t *ng) {
    struct vkl_physdev **kept =
        vkl_alloc(&inst->alloc, (ndev ? ndev : 1) * sizeof(*kept), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (kept == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    memcpy(kept, all, ndev * sizeof(*kept));
    uint32_t nk = ndev;
    bool applied = false;
    VkResult r = vkl_physdev_settings_devices(inst, kept, &nk, &applied);
    if (r != VK_SUCCESS || !applied) {
        vkl_free(&inst->alloc, kept);
        return r;
    }
    /* rank of each group: the file position of its first member; UINT32_MAX when a member is not
     * chosen. The positions by terminator handle (the first of each), so a member's is found in O(1). */
    struct ranked *rank =
        vkl_alloc(&inst->alloc, 2 * (size_t)(*ng ? *ng : 1) * sizeof(*rank), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    struct vkl_map_slot pos_local[PD_SLOTS];
    struct vkl_map pos_of;
    vkl_map_init(&pos_of, pos_local, PD_SLOTS, vkl_map_eq_ptr, NULL, &inst->alloc.cb);
    for (uint32_t j = 0; rank != NULL && j < nk; j++) {
        const void *term = &kept[j]->term;
        if (vkl_map_put(&pos_of, vkl_hash_ptr(term), term, (void *)(uintptr_t)j, NULL) != VK_SUCCESS) {
            vkl_free(&inst->alloc, rank);
            rank = NULL;
        }
    }
    if (rank == NULL) {
        vkl_map_finish(&pos_of);
        vkl_free(&inst->alloc, kept);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    uint32_t k = 0;
    for (uint32_t g = 0; g < *ng; g++) {
        uint32_t best = UINT32_MAX;
        bool all_chosen = true;
        for (uint32_t m = 0; m < groups[g].physicalDeviceCount && all_chosen; m++) {
            const void *term = groups[g].physicalDevices[m];
            const struct vkl_map_slot *ps = vkl_map_find(&pos_of, vkl_hash_ptr(term), term);
            uint32_t pos = ps != NULL ? (uint32_t)(uintptr_t)ps->value : UINT32_MAX;
            if (pos == UINT32_MAX) all_chosen = false;
            if (pos < best) best = pos;
        }
        if (!all_chosen) {
            vkl_log(&inst->log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                    "physical device group %u left out: a member is not chosen by the settings file's "
                    "device_configurations [RULE_SETTINGS_FILE]",
                    g);
            continue;
        }
        rank[k].rank = best;
        rank[k].group = g;
        k++;
    }
    /* by rank, stable: equal ranks keep the drivers' order, as the insertion by rank did */
    vkl_sort_stable(rank, k, sizeof(*rank), by_rank, NULL, rank + (*ng ? *ng : 1));
    vkl_map_finish(&pos_of);
    VkPhysicalDeviceGroupProperties *sorted =
        vkl_alloc(&inst->alloc, (k ? k : 1) * sizeof(*sorted), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (sorted == NULL) {
        vkl_free(&inst->alloc, rank);
        vkl_free(&inst->alloc, kept);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t i = 0; i < k; i++) sorted[i] = groups[rank[i].group];
    if (k > 0) memcpy(groups, sorted, k * sizeof(*groups));
    vkl_free(&inst->alloc, sorted);
    *ng = k;
    vkl_free(&inst->alloc, rank);
    vkl_free(&inst->alloc, kept);
    /* Some device is chosen (settings_devices failed otherwise) but every group holding one also
     * holds a device the file leaves out: no group is reported. A group with a member removed
     * would misdescribe linked hardware; the Khronos loader answers the same. */
    if (k == 0)
        vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "settings file: every physical device group holds a device its device_configurations leave out; "
                "no group is reported [RULE_SETTINGS_FILE]");
    return VK_SUCCESS;
}

VkResult vkl_term_EnumeratePhysicalDeviceGroups(VkInstance instance, uint32_t *pCount,
                                                VkPhysicalDeviceGroupProperties *pGroups) {
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    struct vkl_physdev **all = NULL;
    uint32_t ndev = 0;
    struct pd_order order = {0};
    struct pd_index in_all;
    in_all.ok = false;
    vkl_map_init(&in_all.map, NULL, 0, pd_key_eq, NULL, NULL);
    uint32_t *same_driver = NULL;
    struct vkl_map_slot by_driver_local[PD_SLOTS];
    struct vkl_map by_driver;
    vkl_map_init(&by_driver, NULL, 0, vkl_map_eq_ptr, NULL, NULL);
    pthread_mutex_lock(&inst->lock);
    VkResult r = vkl_physdev_collect(inst, &all, &ndev);
    if (r != VK_SUCCESS) goto out;
    if (ndev == 0) {
        r = vkl_physdev_none(inst, "vkEnumeratePhysicalDeviceGroups", pCount);
        goto out;
    }
    r = vkl_physdev_order_build(inst, all, ndev, &order);
    if (r != VK_SUCCESS) goto out;
    /* Worst case every device is its own group. */
    VkPhysicalDeviceGroupProperties *groups =
        vkl_calloc(&inst->alloc, (ndev ? ndev : 1) * sizeof(*groups), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (groups == NULL) {
        r = VK_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    uint32_t ng = 0, cap = ndev ? ndev : 1;
    /* The devices just collected by (driver, handle): each group member is checked and mapped to
     * its wrapper in O(1). Out of memory: the scans of before. */
    pd_index_init(inst, &in_all);
    for (uint32_t i = 0; i < ndev && in_all.ok; i++) pd_index_put(&in_all, all[i]);
    same_driver = vkl_alloc(&inst->alloc, ndev * sizeof(*same_driver), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    vkl_map_init(&by_driver, by_driver_local, PD_SLOTS, vkl_map_eq_ptr, NULL, &inst->alloc.cb);
    if (same_driver != NULL && !driver_chains(&by_driver, same_driver, all, ndev)) {
        vkl_free(&inst->alloc, same_driver); /* the scans take over */
        same_driver = NULL;
    }
    for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next) {
        uint32_t dn = 0;
        bool native = false;
        if (icd_has_groups(ii) && ii->disp.EnumeratePhysicalDeviceGroups(ii->handle, &dn, NULL) == VK_SUCCESS &&
            dn > 0 && dn <= 4096) {
            /* one group of slack after the dn the driver is given (RULE_DRV_UNTRUSTED_ANSWERS) */
            if (!groups_reserve(inst, &groups, &cap, ng + dn + 1)) {
                r = VK_ERROR_OUT_OF_HOST_MEMORY;
                vkl_free(&inst->alloc, groups);
                goto out;
            }
            VkPhysicalDeviceGroupProperties *dg = groups + ng;
            for (uint32_t i = 0; i < dn; i++) {
                dg[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
                /* The application's pNext chains go down with the group at the same index (as the
                 * Khronos loader passes them), so a driver can fill the structures they carry. */
                dg[i].pNext = pGroups != NULL && ng + i < *pCount ? pGroups[ng + i].pNext : NULL;
            }
            uint32_t asked = dn;
            vkl_slack_init(&dg[asked], sizeof(*dg));
            VkResult dr = ii->disp.EnumeratePhysicalDeviceGroups(ii->handle, &dn, dg);
            if (dr >= 0 && vkl_fill_checked(&inst->log, ii->driver, "vkEnumeratePhysicalDeviceGroups", asked, dn,
                                            &dg[asked], sizeof(*dg)) != dn) {
                dn = asked;
                dr = VK_ERROR_INITIALIZATION_FAILED; /* a count it cannot hold: one group per device */
            }
            memset(&dg[asked], 0, sizeof(*dg)); /* the slack is not a group */
            if (dr == VK_SUCCESS && !groups_valid(all, ndev, &in_all, ii, dg, dn)) {
                vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                        "driver %s: vkEnumeratePhysicalDeviceGroups reported a group with a device count outside "
                        "1..%u or a device its vkEnumeratePhysicalDevices did not return; one group per device is "
                        "reported instead [LDP_DRIVER_1]",
                        vkl_driver_name(ii->driver), (unsigned)VK_MAX_DEVICE_GROUP_SIZE);
                dr = VK_ERROR_INITIALIZATION_FAILED;
            }
            if (dr == VK_SUCCESS) {
                native = true;
                for (uint32_t g = 0; g < dn; g++) {
                    for (uint32_t m = 0; m < dg[g].physicalDeviceCount; m++) {
                        struct vkl_physdev *p = vkl_physdev_get(inst, &in_all, ii, dg[g].physicalDevices[m]);
                        if (p == NULL) {
                            r = VK_ERROR_OUT_OF_HOST_MEMORY;
                            vkl_free(&inst->alloc, groups);
                            goto out;
                        }
                        dg[g].physicalDevices[m] = (VkPhysicalDevice)(void *)&p->term;
                    }
                    dg[g].pNext = NULL;
                }
                ng += dn;
            }
        }
        if (!native) {
            /* Drivers without group support: one group per device, in the order collected (the
             * driver's devices through `same_driver`, not a scan of every device per driver). */
            for (uint32_t i = driver_first(&by_driver, same_driver, all, ndev, ii, 0); i < ndev;
                 i = driver_next(&by_driver, same_driver, all, ndev, ii, i)) {
                if (!groups_reserve(inst, &groups, &cap, ng + 1)) {
                    r = VK_ERROR_OUT_OF_HOST_MEMORY;
                    vkl_free(&inst->alloc, groups);
                    goto out;
                }
                VkPhysicalDeviceGroupProperties *g = &groups[ng++];
                memset(g, 0, sizeof(*g));
                g->sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
                g->physicalDeviceCount = 1;
                g->physicalDevices[0] = (VkPhysicalDevice)(void *)&all[i]->term;
                g->subsetAllocation = VK_FALSE;
            }
        }
    }
    if ((r = vkl_physdev_order_groups(inst, &order, groups, &ng)) == VK_SUCCESS && !order.sort)
        r = vkl_physdev_sort_stable(inst, groups, ng, sizeof(*groups), group_by_driver_desc, NULL);
    if (r == VK_SUCCESS) r = settings_groups(inst, all, ndev, groups, &ng);
    if (r != VK_SUCCESS) {
        vkl_free(&inst->alloc, groups);
        goto out;
    }
    if (pGroups == NULL) {
        *pCount = ng;
    } else {
        uint32_t c = *pCount < ng ? *pCount : ng;
        for (uint32_t i = 0; i < c; i++) {
            void *pnext = pGroups[i].pNext; /* the application's chain stays its own */
            pGroups[i] = groups[i];
            pGroups[i].pNext = pnext;
        }
        *pCount = c;
        if (c < ng) {
            r = VK_INCOMPLETE;
            vkl_log(&inst->log, VKL_LOG_INFO,
                    "vkEnumeratePhysicalDeviceGroups: Trimming device count from %u to %u; returning VK_INCOMPLETE", ng,
                    c);
        }
    }
    vkl_free(&inst->alloc, groups);
out:
    pthread_mutex_unlock(&inst->lock);
    pd_index_free(&in_all);
    vkl_map_finish(&by_driver);
    vkl_free(&inst->alloc, same_driver);
    vkl_physdev_order_free(inst, &order);
    vkl_free(&inst->alloc, all);
    return r;
}

VKL_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumeratePhysicalDeviceGroups(VkInstance instance, uint32_t *pCount,
                                                                          VkPhysicalDeviceGroupProperties *pGroups) {
    vkl_check_instance(instance, "vkEnumeratePhysicalDeviceGroups");
    if (pCount == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    VkResult r = inst->disp->EnumeratePhysicalDeviceGroups(inst->chain_handle, pCount, pGroups);
    if (pGroups == NULL || (r != VK_SUCCESS && r != VK_INCOMPLETE)) return r;
    for (uint32_t g = 0; g < *pCount; g++) {
        for (uint32_t m = 0; m < pGroups[g].physicalDeviceCount; m++) {
            VkPhysicalDevice t = vkl_physdev_tramp_for(inst, pGroups[g].physicalDevices[m]);
            if (t == VK_NULL_HANDLE) return VK_ERROR_INITIALIZATION_FAILED;
            pGroups[g].physicalDevices[m] = t;
        }
    }
    return r;
}
