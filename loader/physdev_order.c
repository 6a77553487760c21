/*
 * Physical devices: which are visible and in what order, below the layers, on every enumeration:
 * the ID filters (RULE_PHYSDEV_ID_FILTER), the sort (RULE_PHYSDEV_SORT) and the settings file's
 * device_configurations (RULE_SETTINGS_FILE), for devices and for groups.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/env.h"
#include "loader/internal/instance.h"
#include "loader/internal/physdev_enum.h"
#include "loader/internal/settings.h"
#include "loader/internal/util.h"

/* ---- RULE_PHYSDEV_ID_FILTER / RULE_PHYSDEV_SORT ------------------------------------------------
 *
 * ID filters ([Arch] "Filter Environment Variable Behaviors"): VK_LOADER_DEVICE_ID_FILTER,
 * VK_LOADER_VENDOR_ID_FILTER and VK_LOADER_DRIVER_ID_FILTER each hold a comma-separated list of at
 * most 16 entries; an entry is one number or an inclusive range "lo:hi" (also "lo-hi"), numbers
 * decimal or 0x-hex (strtoul base 0, as the Khronos loader parses them). A device is visible when
 * every variable that holds at least one valid entry has an entry containing its ID; a driver ID
 * the application could not read (Vulkan 1.0 without VK_KHR_get_physical_device_properties2) never
 * matches. A group with a hidden
 * member is hidden. The variables are secure (ignored when elevated, env.c).
 *
 * Sorting (Linux, [App] "Physical Device Ordering", spec 7.9), unless VK_LOADER_DISABLE_SELECT is
 * a non-zero integer: the devices matching VK_LOADER_DEVICE_SELECT ("vendor:device", hex) first;
 * then by type discrete > integrated > virtual > other > cpu; then devices that expose
 * VK_EXT_pci_bus_info before those that do not, by PCI domain, bus, device, function; then by
 * (deviceID ^ vendorID); then driver order. Group members are sorted the same way and groups are
 * ordered by their first member. Both are done here, below the layers, on every enumeration. */

#define ID_FILTER_MAX 16

struct id_filter {
    const char *var;
    uint32_t count;
    uint32_t lo[ID_FILTER_MAX], hi[ID_FILTER_MAX];
};

static bool parse_id(const char *s, const char **end, uint32_t *out) {
    if (*s < '0' || *s > '9') return false; /* no sign, no leading space */
    char *e = NULL;
    unsigned long long v = strtoull(s, &e, 0);
    if (e == s || v > UINT32_MAX) return false;
    *end = e;
    *out = (uint32_t)v;
    return true;
}

static void id_filter_parse(const struct vkl_log_sink *log, const char *var, struct id_filter *f) {
    memset(f, 0, sizeof(*f));
    f->var = var;
    const char *value = vkl_getenv(var);
    if (value == NULL) return;
    const char *tok = value;
    while (*tok != '\0') {
        size_t len = strcspn(tok, ",");
        char buf[64];
        if (len > 0) {
            bool ok = len < sizeof(buf);
            if (ok) {
                memcpy(buf, tok, len);
                buf[len] = '\0';
                const char *e = NULL;
                uint32_t lo = 0, hi = 0;
                ok = parse_id(buf, &e, &lo);
                if (ok && *e == '\0') {
                    hi = lo;
                } else if (ok && (*e == ':' || *e == '-')) {
                    ok = parse_id(e + 1, &e, &hi) && *e == '\0' && hi >= lo;
                } else {
                    ok = false;
                }
                if (ok && f->count == ID_FILTER_MAX) {
                    vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                            "%s: more than %d entries; \"%s\" and the rest are ignored [RULE_PHYSDEV_ID_FILTER]", var,
                            ID_FILTER_MAX, buf);
                    return;
                }
                if (ok) {
                    f->lo[f->count] = lo;
                    f->hi[f->count] = hi;
                    f->count++;
                }
            }
            if (!ok)
                vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                        "%s: entry \"%.*s\" is not an ID or a range lo:hi (decimal or 0x hex); ignored "
                        "[RULE_PHYSDEV_ID_FILTER]",
                        var, (int)(len < 80 ? len : 80), tok);
        }
        tok += len;
        if (*tok == ',') tok++;
    }
}

static bool id_filter_match(const struct id_filter *f, bool known, uint32_t v) {
    if (f->count == 0) return true;
    if (!known) return false;
    for (uint32_t i = 0; i < f->count; i++)
        if (v >= f->lo[i] && v <= f->hi[i]) return true;
    return false;
}

struct pd_info {
    struct vkl_physdev *p;
    uint32_t seq; /* position in driver order */
    uint32_t type_rank, vendor, device, driver_id;
    bool driver_id_known, has_pci, selected;
    const char *hidden_by; /* the filter variable that hides it, or NULL */
    uint32_t pci[4];
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
};

static uint32_t type_rank(VkPhysicalDeviceType t) {
    switch (t) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 5;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 4;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 3;
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
        default: return 2; /* other */
    }
}

static void device_exts(struct vkl_instance *inst, const struct vkl_physdev *p, bool *pci, bool *drvprops) {
    const struct vkl_icd_instance *ii = p->term.icd;
    *pci = *drvprops = false;
    if (ii->disp.EnumerateDeviceExtensionProperties == NULL) return;
    uint32_t n = 0;
    if (ii->disp.EnumerateDeviceExtensionProperties(p->term.handle, NULL, &n, NULL) != VK_SUCCESS || n == 0 ||
        n > 65536)
        return;
    uint32_t asked = n; /* one element of slack (RULE_DRV_UNTRUSTED_ANSWERS) */
    VkExtensionProperties *e = vkl_alloc(&inst->alloc, (n + 1) * sizeof(*e), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (e == NULL) return;
    vkl_slack_init(&e[asked], sizeof(*e));
    VkResult r = ii->disp.EnumerateDeviceExtensionProperties(p->term.handle, NULL, &n, e);
    n = vkl_fill_checked(&inst->log, ii->driver, "vkEnumerateDeviceExtensionProperties", asked, n, &e[asked],
                         sizeof(*e));
    for (uint32_t i = 0; (r == VK_SUCCESS || r == VK_INCOMPLETE) && i < n; i++) {
        if (strcmp(e[i].extensionName, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME) == 0) *pci = true;
        if (strcmp(e[i].extensionName, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME) == 0) *drvprops = true;
    }
    vkl_free(&inst->alloc, e);
}

/* Whether the driver's vkGetPhysicalDeviceProperties2 may be called for a physical device that
 * reports `device_api`: the driver was given Vulkan 1.1 or has the KHR extension (has_pd2), or the
 * application asked for 1.1 or more and the device is 1.1 or later (the Vulkan specification,
 * "Extending Physical Device Core Functionality": physical-device-level functionality of a version
 * needs both VkApplicationInfo::apiVersion and the device's apiVersion at that version). */
static bool pd2_usable(const struct vkl_instance *inst, const struct vkl_icd_instance *ii, uint32_t device_api) {
    if (ii->disp.GetPhysicalDeviceProperties2 == NULL) return false;
    return has_pd2(ii) || (at_least_1_1(inst->app_api_version) && at_least_1_1(device_api));
}

static void pd_info_fill(struct vkl_instance *inst, struct pd_info *d, bool want_pci, bool want_driver_id) {
    const struct vkl_icd_instance *ii = d->p->term.icd;
    VkPhysicalDeviceProperties props;
    memset(&props, 0, sizeof(props));
    if (ii->disp.GetPhysicalDeviceProperties != NULL) ii->disp.GetPhysicalDeviceProperties(d->p->term.handle, &props);
    d->type_rank = type_rank(props.deviceType);
    d->vendor = props.vendorID;
    d->device = props.deviceID;
    memcpy(d->name, props.deviceName, sizeof(d->name));
    vkl_name_checked(&inst->log, ii->driver, "vkGetPhysicalDeviceProperties (deviceName)", d->name, sizeof(d->name));
    d->name[sizeof(d->name) - 1] = '\0';
    if (!(want_pci || want_driver_id) || ii->disp.GetPhysicalDeviceProperties2 == NULL) return;
    bool usable = pd2_usable(inst, ii, props.apiVersion);
    bool pci_ext = false, drv_ext = false;
    if (want_pci && usable) device_exts(inst, d->p, &pci_ext, &drv_ext);
    /* VK_LOADER_DRIVER_ID_FILTER reads the driver ID the application itself could read: through
     * vkGetPhysicalDeviceProperties2 when the apiVersion that reached the terminator is 1.1 or more
     * or the application enabled VK_KHR_get_physical_device_properties2 (the Khronos loader's
     * rule); otherwise the ID is unknown and no filter matches it. An implementation leaves a
     * structure it does not know untouched (driverID 0, which no filter names) (RULE_PHYSDEV_ID_FILTER). */
    bool drv = want_driver_id &&
               (at_least_1_1(inst->term_api_version) ||
                vkl_instance_extension_enabled(inst, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME));
    bool pci = want_pci && usable && pci_ext;
    if (!drv && !pci) return;
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    VkPhysicalDevicePCIBusInfoPropertiesEXT pb = {.sType =
                                                      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT};
    VkPhysicalDeviceDriverProperties dp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    void **tail = &p2.pNext;
    if (pci) {
        *tail = &pb;
        tail = &pb.pNext;
    }
    if (drv) *tail = &dp;
    ii->disp.GetPhysicalDeviceProperties2(d->p->term.handle, &p2);
    if (pci) {
        d->has_pci = true;
        d->pci[0] = pb.pciDomain;
        d->pci[1] = pb.pciBus;
        d->pci[2] = pb.pciDevice;
        d->pci[3] = pb.pciFunction;
    }
    if (drv) {
        d->driver_id_known = true;
        d->driver_id = (uint32_t)dp.driverID;
    }
}

/* Negative when `a` comes first. */
static int pd_compare(const struct pd_info *a, const struct pd_info *b) {
    if (a->selected != b->selected) return a->selected ? -1 : 1;
    if (a->type_rank != b->type_rank) return a->type_rank > b->type_rank ? -1 : 1;
    if (a->has_pci != b->has_pci) return a->has_pci ? -1 : 1;
    if (a->has_pci)
        for (int i = 0; i < 4; i++)
            if (a->pci[i] != b->pci[i]) return a->pci[i] < b->pci[i] ? -1 : 1;
    uint32_t ka = a->device ^ a->vendor, kb = b->device ^ b->vendor;
    if (ka != kb) return ka < kb ? -1 : 1;
    return a->seq < b->seq ? -1 : (a->seq > b->seq ? 1 : 0);
}

void vkl_physdev_order_free(struct vkl_instance *inst, struct pd_order *o) {
    if (o->info != NULL) vkl_map_finish(&o->by_term);
    vkl_free(&inst->alloc, o->info);
    o->info = NULL;
}

/* Looks up, sorts nothing: fills one pd_info per collected device and decides what is hidden. */
VkResult vkl_physdev_order_build(struct vkl_instance *inst, struct vkl_physdev *const *all, uint32_t n,
                                 struct pd_order *o) {
    memset(o, 0, sizeof(*o));
    struct id_filter f[3];
    id_filter_parse(&inst->log, "VK_LOADER_DEVICE_ID_FILTER", &f[0]);
    id_filter_parse(&inst->log, "VK_LOADER_VENDOR_ID_FILTER", &f[1]);
    id_filter_parse(&inst->log, "VK_LOADER_DRIVER_ID_FILTER", &f[2]);
    const char *disable = vkl_getenv("VK_LOADER_DISABLE_SELECT");
    o->sort = disable == NULL || strtol(disable, NULL, 10) == 0;
    bool any_filter = f[0].count || f[1].count || f[2].count;
    if (!o->sort)
        vkl_log(&inst->log, VKL_LOG_DEBUG | VKL_LOG_DRIVER,
                "VK_LOADER_DISABLE_SELECT=%s: physical devices and groups not sorted: last driver found first, each "
                "driver's own order within it [RULE_PHYSDEV_SORT]",
                disable);
    /* Nothing to hide, and nothing to order (one device, or sorting off): no driver queries. */
    if (n == 0 || ((!o->sort || n < 2) && !any_filter)) return VK_SUCCESS;
    o->info = vkl_calloc(&inst->alloc, n * sizeof(*o->info), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (o->info == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    o->count = n;
    vkl_map_init(&o->by_term, o->local, PD_SLOTS, vkl_map_eq_ptr, NULL, &inst->alloc.cb);
    for (uint32_t i = 0; i < n; i++) {
        const void *term = &all[i]->term;
        if (vkl_map_add(&o->by_term, vkl_hash_ptr(term), term, &o->info[i]) != VK_SUCCESS) {
            vkl_physdev_order_free(inst, o);
            return VK_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    unsigned sel_vendor = 0, sel_device = 0;
    bool select = false;
    const char *sel = o->sort ? vkl_getenv("VK_LOADER_DEVICE_SELECT") : NULL;
    if (sel != NULL && sel[0] != '\0') {
        /* the Khronos loader's own parse of this variable, kept for the same answers */
        select = sscanf(sel, "%x:%x", &sel_vendor, &sel_device) == 2; /* NOLINT(cert-err34-c) */
        if (!select)
            vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "VK_LOADER_DEVICE_SELECT=%s is not <vendorID>:<deviceID> in hex; ignored [RULE_PHYSDEV_SORT]", sel);
    }
    for (uint32_t i = 0; i < n; i++) {
        struct pd_info *d = &o->info[i];
        d->p = all[i];
        d->seq = i;
        pd_info_fill(inst, d, o->sort, f[2].count > 0);
        d->selected = select && d->vendor == sel_vendor && d->device == sel_device;
        if (d->selected)
            vkl_log(&inst->log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                    "VK_LOADER_DEVICE_SELECT=%s: physical device \"%s\" sorted first [RULE_PHYSDEV_SORT]", sel,
                    d->name);
        if (!id_filter_match(&f[0], true, d->device))
            d->hidden_by = f[0].var;
        else if (!id_filter_match(&f[1], true, d->vendor))
            d->hidden_by = f[1].var;
        else if (!id_filter_match(&f[2], d->driver_id_known, d->driver_id))
            d->hidden_by = f[2].var;
        if (d->hidden_by != NULL) {
            o->filtered = true;
            char drv[32] = "unknown";
            if (d->driver_id_known) snprintf(drv, sizeof(drv), "%u", d->driver_id);
            vkl_log(&inst->log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                    "physical device \"%s\" (vendorID 0x%x, deviceID 0x%x, driverID %s) hidden by %s "
                    "[RULE_PHYSDEV_ID_FILTER]",
                    d->name, d->vendor, d->device, drv, d->hidden_by);
        }
    }
    return VK_SUCCESS;
}

static const struct pd_info *pd_order_find(const struct pd_order *o, VkPhysicalDevice term) {
    const struct vkl_map_slot *s = vkl_map_find(&o->by_term, vkl_hash_ptr(term), term);
    return s != NULL ? s->value : NULL;
}

static int pd_info_ptr_compare(const void *a, const void *b, void *ctx) {
    (void)ctx;
    return pd_compare(*(const struct pd_info *const *)a, *(const struct pd_info *const *)b);
}

/* Sorts (when enabled) and drops hidden devices in place; *n becomes the visible count. */
VkResult vkl_physdev_order_apply(struct vkl_instance *inst, const struct pd_order *o, struct vkl_physdev **all,
                                 uint32_t *n) {
    if (o->info == NULL) return VK_SUCCESS;
    /* v: the visible devices, then room for the sort's scratch */
    const struct pd_info **v =
        vkl_alloc(&inst->alloc, 2 * (size_t)o->count * sizeof(*v), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (v == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t k = 0;
    for (uint32_t i = 0; i < o->count; i++)
        if (o->info[i].hidden_by == NULL) v[k++] = &o->info[i];
    /* O(n log n): pd_compare is a total order (driver order last), so the order is the one any
     * correct sort gives, the insertion sort's before it (quadratic: 1,000 drivers took ~90x the
     * time of 100). */
    if (o->sort) vkl_sort_stable(v, k, sizeof(*v), pd_info_ptr_compare, NULL, v + o->count);
    for (uint32_t i = 0; i < k; i++) all[i] = v[i]->p;
    *n = k;
    vkl_free(&inst->alloc, v);
    return VK_SUCCESS;
}

/* vkl_sort_stable with its scratch from the instance's allocator. */
VkResult vkl_physdev_sort_stable(struct vkl_instance *inst, void *base, uint32_t n, size_t size,
                                 int (*cmp)(const void *, const void *, void *), void *ctx) {
    if (n < 2) return VK_SUCCESS;
    void *scratch = vkl_alloc(&inst->alloc, n * size, VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (scratch == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    vkl_sort_stable(base, n, size, cmp, ctx, scratch);
    vkl_free(&inst->alloc, scratch);
    return VK_SUCCESS;
}

/* Groups: drops those with a hidden member, sorts members and then groups by their first member. */
static int group_compare(const void *a, const void *b, void *ctx) {
    const struct pd_order *o = ctx;
    const struct pd_info *x = pd_order_find(o, ((const VkPhysicalDeviceGroupProperties *)a)->physicalDevices[0]);
    const struct pd_info *y = pd_order_find(o, ((const VkPhysicalDeviceGroupProperties *)b)->physicalDevices[0]);
    return x == NULL || y == NULL ? 0 : pd_compare(x, y);
}

VkResult vkl_physdev_order_groups(struct vkl_instance *inst, const struct pd_order *o,
                                  VkPhysicalDeviceGroupProperties *g, uint32_t *ngp) {
    uint32_t ng = *ngp;
    if (o->info == NULL) return VK_SUCCESS;
    uint32_t k = 0;
    for (uint32_t i = 0; i < ng; i++) {
        const struct pd_info *hidden = NULL;
        for (uint32_t m = 0; m < g[i].physicalDeviceCount && hidden == NULL; m++) {
            const struct pd_info *d = pd_order_find(o, g[i].physicalDevices[m]);
            if (d != NULL && d->hidden_by != NULL) hidden = d;
        }
        if (hidden != NULL) {
            vkl_log(&inst->log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                    "physical device group %u left out: its member \"%s\" is hidden by %s [RULE_PHYSDEV_ID_FILTER]", i,
                    hidden->name, hidden->hidden_by);
            continue;
        }
        if (k != i) g[k] = g[i];
        k++;
    }
    *ngp = k;
    if (!o->sort) return VK_SUCCESS;
    /* Members: at most VK_MAX_DEVICE_GROUP_SIZE per group, so an insertion sort is bounded. */
    for (uint32_t i = 0; i < k; i++) {
        VkPhysicalDevice *m = g[i].physicalDevices;
        for (uint32_t a = 1; a < g[i].physicalDeviceCount; a++)
            for (uint32_t b = a; b > 0; b--) {
                const struct pd_info *x = pd_order_find(o, m[b - 1]), *y = pd_order_find(o, m[b]);
                if (x == NULL || y == NULL || pd_compare(x, y) <= 0) break;
                VkPhysicalDevice t = m[b];
                m[b] = m[b - 1];
                m[b - 1] = t;
            }
    }
    /* Groups by their first member: O(k log k), stable (each member's pd_info is found through the
     * map, not a scan per lookup). */
    return vkl_physdev_sort_stable(inst, g, k, sizeof(*g), group_compare, (void *)o);
}

/* A device's identity as the settings file names it. */
struct dev_id {
    uint8_t device_uuid[VK_UUID_SIZE], driver_uuid[VK_UUID_SIZE];
    uint32_t version;
};

static uint64_t dev_id_hash(const struct dev_id *k) { return vkl_hash(k, sizeof(*k)); }

/* The identities read from the devices (parallel arrays): a map key i + 1 stands for device i. */
struct dev_ids {
    const VkPhysicalDeviceIDProperties *ids;
    const uint32_t *ver;
};

static void dev_id_of(const struct dev_ids *d, uint32_t i, struct dev_id *out) {
    memcpy(out->device_uuid, d->ids[i].deviceUUID, VK_UUID_SIZE);
    memcpy(out->driver_uuid, d->ids[i].driverUUID, VK_UUID_SIZE);
    out->version = d->ver[i];
}

static bool dev_id_eq(const struct vkl_map_slot *stored, const void *key, const void *ctx) {
    struct dev_id a;
    dev_id_of(ctx, (uint32_t)(uintptr_t)stored->key - 1, &a);
    return memcmp(&a, key, sizeof(a)) == 0;
}

/* Indexes the known devices by identity: the map holds the first device of each identity, same[i]
 * the next device with device i's identity (UINT32_MAX: none), so each chain is in device order. */
static VkResult dev_ids_index(struct vkl_map *ix, const struct dev_ids *d, const bool *known, uint32_t n,
                              uint32_t *same) {
    for (uint32_t i = n; i-- > 0;) { /* backwards: each device goes in front of its later twins */
        same[i] = UINT32_MAX;
        if (!known[i]) continue;
        struct dev_id k;
        dev_id_of(d, i, &k);
        struct vkl_map_slot *s = vkl_map_find(ix, dev_id_hash(&k), &k);
        if (s != NULL) {
            same[i] = (uint32_t)(uintptr_t)s->key - 1;
            s->key = (const void *)(uintptr_t)(i + 1);
        } else if (vkl_map_add(ix, dev_id_hash(&k), (const void *)(uintptr_t)(i + 1), NULL) != VK_SUCCESS) {
            return VK_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    return VK_SUCCESS;
}

/* [Set] device_configurations (settings.c): only the devices whose deviceUUID, driverUUID and
 * driverVersion match an entry, in the file's order; none matching => VK_ERROR_INITIALIZATION_FAILED.
 * The UUIDs come from VkPhysicalDeviceIDProperties, so a device reached only through Vulkan 1.0
 * without VK_KHR_get_physical_device_properties2 can never match. Called with inst->lock held. */
VkResult vkl_physdev_settings_devices(struct vkl_instance *inst, struct vkl_physdev **all, uint32_t *n, bool *applied) {
    const struct vkl_settings *st = inst->settings; /* as at vkCreateInstance */
    VkResult r = VK_SUCCESS;
    if (applied != NULL) *applied = false;
    if (st == NULL || !st->has_device_configurations) goto out;
    if (applied != NULL) *applied = true;
    struct vkl_physdev **keep =
        vkl_alloc(&inst->alloc, (*n ? *n : 1) * sizeof(*keep), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    VkPhysicalDeviceIDProperties *ids =
        vkl_calloc(&inst->alloc, (*n ? *n : 1) * sizeof(*ids), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    uint32_t *ver = vkl_calloc(&inst->alloc, (*n ? *n : 1) * sizeof(*ver), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    bool *known = vkl_calloc(&inst->alloc, (*n ? *n : 1) * sizeof(*known), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    uint32_t *same = vkl_alloc(&inst->alloc, (*n ? *n : 1) * sizeof(*same), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    struct dev_ids dids = {ids, ver};
    struct vkl_map_slot ix_local[PD_SLOTS], kept_local[PD_SLOTS];
    struct vkl_map ix, kept;
    vkl_map_init(&ix, ix_local, PD_SLOTS, dev_id_eq, &dids, &inst->alloc.cb);
    vkl_map_init(&kept, kept_local, PD_SLOTS, vkl_map_eq_ptr, NULL, &inst->alloc.cb);
    uint32_t k = 0;
    if (keep == NULL || ids == NULL || ver == NULL || known == NULL || same == NULL) {
        r = VK_ERROR_OUT_OF_HOST_MEMORY;
        goto done;
    }
    for (uint32_t i = 0; i < *n; i++) {
        const struct vkl_icd_instance *ii = all[i]->term.icd;
        VkPhysicalDeviceProperties props;
        memset(&props, 0, sizeof(props));
        if (ii->disp.GetPhysicalDeviceProperties != NULL)
            ii->disp.GetPhysicalDeviceProperties(all[i]->term.handle, &props);
        /* Read through the driver's 1.1 query whenever the device reports 1.1 or more, whatever
         * the application asked for: the settings file names devices by these UUIDs, and the
         * Khronos loader reads them there too (it raises the apiVersion it gives 1.1 drivers when
         * the file has device_configurations). */
        if (ii->disp.GetPhysicalDeviceProperties2 == NULL ||
            !(at_least_1_1(props.apiVersion) || pd2_usable(inst, ii, props.apiVersion)))
            continue;
        VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &ids[i]};
        ids[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
        ii->disp.GetPhysicalDeviceProperties2(all[i]->term.handle, &p2);
        ver[i] = p2.properties.driverVersion;
        known[i] = true;
    }
    /* The devices by (deviceUUID, driverUUID, driverVersion): each entry of the file finds its
     * devices in O(1), in device order (a chain through `same`, ascending), instead of a scan of
     * every device per entry; `kept` replaces a scan of `keep` per match. */
    if ((r = dev_ids_index(&ix, &dids, known, *n, same)) != VK_SUCCESS) goto done;
    for (uint32_t c = 0; c < st->device_count; c++) {
        const struct vkl_settings_device *d = &st->devices[c];
        struct dev_id key;
        memcpy(key.device_uuid, d->device_uuid, VK_UUID_SIZE);
        memcpy(key.driver_uuid, d->driver_uuid, VK_UUID_SIZE);
        key.version = d->driver_version;
        const struct vkl_map_slot *first = vkl_map_find(&ix, dev_id_hash(&key), &key);
        bool found = first != NULL;
        for (uint32_t i = first != NULL ? (uint32_t)(uintptr_t)first->key - 1 : UINT32_MAX; i != UINT32_MAX;
             i = same[i]) {
            uint64_t h = vkl_hash_ptr(all[i]);
            if (vkl_map_find(&kept, h, all[i]) != NULL) continue;
            if (vkl_map_add(&kept, h, all[i], NULL) != VK_SUCCESS) {
                r = VK_ERROR_OUT_OF_HOST_MEMORY;
                goto done;
            }
            keep[k++] = all[i];
        }
        if (!found)
            vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "settings file %s: device_configurations[%u] (%s) matches no physical device [RULE_SETTINGS_FILE]",
                    st->file_path, c, d->device_name != NULL ? d->device_name : "unnamed");
    }
    if (k == 0) {
        vkl_log(
            &inst->log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
            "settings file %s: no physical device matches its device_configurations; VK_ERROR_INITIALIZATION_FAILED "
            "[RULE_SETTINGS_FILE]",
            st->file_path);
        r = VK_ERROR_INITIALIZATION_FAILED;
        goto done;
    }
    for (uint32_t i = 0; i < k; i++) all[i] = keep[i];
    *n = k;
done:
    vkl_map_finish(&ix);
    vkl_map_finish(&kept);
    vkl_free(&inst->alloc, same);
    vkl_free(&inst->alloc, keep);
    vkl_free(&inst->alloc, ids);
    vkl_free(&inst->alloc, ver);
    vkl_free(&inst->alloc, known);
out:
    return r;
}
