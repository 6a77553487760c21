/*
 * Physical devices and groups aggregated across drivers, sorted (RULE_PHYSDEV_SORT) and filtered
 * by ID (RULE_PHYSDEV_ID_FILTER), and the loader's emulation of the
 * VK_KHR_get_physical_device_properties2 queries for drivers that lack them (LDP_LOADER_8).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/env.h"
#include "loader/internal/instance.h"
#include "loader/internal/physdev.h"
#include "loader/internal/settings.h"
#include "loader/internal/util.h"

bool vkl_physdev_is_term(struct vkl_instance *inst, VkPhysicalDevice pd) {
    bool found = false;
    pthread_mutex_lock(&inst->lock);
    for (const struct vkl_physdev *p = inst->physdevs; p != NULL && !found; p = p->next)
        found = p->term.icd != NULL && (VkPhysicalDevice)(uintptr_t)(const void *)&p->term == pd;
    pthread_mutex_unlock(&inst->lock);
    return found;
}

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

static bool pd_key_eq(const struct vkl_map_slot *stored, const void *key, const void *ctx) {
    (void)ctx;
    const struct vkl_physdev *p = stored->value;
    const struct pd_key *k = key;
    return p->term.icd == k->ii && p->term.handle == k->h;
}

static uint64_t pd_hash(const struct vkl_icd_instance *ii, VkPhysicalDevice h) {
    struct pd_key k;
    memset(&k, 0, sizeof(k));
    k.ii = ii;
    k.h = h;
    return vkl_hash(&k, sizeof(k));
}

/* The application-side half: what every trampoline and the handle check read. */
static void tramp_init(struct vkl_physdev *p, struct vkl_instance *inst, VkPhysicalDevice next) {
    p->tramp.disp = inst->disp;
    p->tramp.next = next;
    p->tramp.magic = VKL_PHYSDEV_TRAMP_MAGIC;
    p->tramp.instance = inst;
}

/* ---- tramp_for's index: every wrapper by tramp.next, kept with the instance (inst->lock) ---- */
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

static void pd_index_put(struct pd_index *ix, struct vkl_physdev *p) {
    if (ix->ok && vkl_map_add(&ix->map, pd_hash(p->term.icd, p->term.handle), p, p) != VK_SUCCESS) ix->ok = false;
}

static void pd_index_init(struct vkl_instance *inst, struct pd_index *ix) {
    vkl_map_init(&ix->map, ix->local, PD_SLOTS, pd_key_eq, NULL, &inst->alloc.cb);
    ix->ok = true;
}

/* Every wrapper of the instance with a driver side. */
static void pd_index_build(struct vkl_instance *inst, struct pd_index *ix) {
    pd_index_init(inst, ix);
    for (struct vkl_physdev *p = inst->physdevs; p != NULL && ix->ok; p = p->next)
        if (p->term.icd != NULL) pd_index_put(ix, p);
}

static void pd_index_free(struct pd_index *ix) { vkl_map_finish(&ix->map); }

static struct vkl_physdev *pd_index_find(const struct pd_index *ix, const struct vkl_icd_instance *ii,
                                         VkPhysicalDevice h) {
    struct pd_key k = {ii, h};
    struct vkl_map_slot *s = vkl_map_find(&ix->map, pd_hash(ii, h), &k);
    return s != NULL ? s->value : NULL;
}

static struct vkl_physdev *physdev_get(struct vkl_instance *inst, struct pd_index *ix, struct vkl_icd_instance *ii,
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
static VkResult collect_physdevs(struct vkl_instance *inst, struct vkl_physdev ***out, uint32_t *out_count) {
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
            struct vkl_physdev *p = physdev_get(inst, &ix, ii, hs[i]);
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

/* ---- RULE_PHYSDEV_ID_FILTER / RULE_PHYSDEV_SORT ------------------------------------------------
 *
 * ID filters ([Arch] "Filter Environment Variable Behaviors"): VK_LOADER_DEVICE_ID_FILTER,
 * VK_LOADER_VENDOR_ID_FILTER and VK_LOADER_DRIVER_ID_FILTER each hold a comma-separated list of at
 * most 16 entries; an entry is one number or an inclusive range "lo:hi" (also "lo-hi"), numbers
 * decimal or 0x-hex (strtoul base 0, as the Khronos loader parses them). A device is visible when
 * every variable that holds at least one valid entry has an entry containing its ID; a driver ID
 * that cannot be read (no VkPhysicalDeviceDriverProperties) never matches. A group with a hidden
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

struct pd_order {
    struct pd_info *info; /* parallel to the collected array */
    uint32_t count;
    bool sort;
    bool filtered;          /* some device is hidden */
    struct vkl_map by_term; /* key: the terminator handle, value: its pd_info (pd_order_find) */
    struct vkl_map_slot local[PD_SLOTS];
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

static bool has_pd2(const struct vkl_icd_instance *ii);

/* Vulkan 1.1 or later (major.minor; the variant is 0 for every version the loader accepts). */
static bool at_least_1_1(uint32_t v) { return VK_API_VERSION_MAJOR(v) > 1 || VK_API_VERSION_MINOR(v) >= 1; }

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
    if (!(want_pci || want_driver_id) || !pd2_usable(inst, ii, props.apiVersion)) return;
    bool pci_ext = false, drv_ext = false;
    if (want_pci) device_exts(inst, d->p, &pci_ext, &drv_ext);
    /* The driver ID is asked whenever the query is usable: an implementation leaves a structure it
     * does not know untouched (driverID 0, which no filter names), as the Khronos loader relies on
     * (VK_LOADER_DRIVER_ID_FILTER). */
    bool drv = want_driver_id;
    bool pci = want_pci && pci_ext;
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

static void pd_order_free(struct vkl_instance *inst, struct pd_order *o) {
    if (o->info != NULL) vkl_map_finish(&o->by_term);
    vkl_free(&inst->alloc, o->info);
    o->info = NULL;
}

/* Looks up, sorts nothing: fills one pd_info per collected device and decides what is hidden. */
static VkResult pd_order_build(struct vkl_instance *inst, struct vkl_physdev *const *all, uint32_t n,
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
            pd_order_free(inst, o);
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
static VkResult pd_order_apply(struct vkl_instance *inst, const struct pd_order *o, struct vkl_physdev **all,
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

/* The unsorted order (VK_LOADER_DISABLE_SELECT): the Khronos loader's, which keeps its drivers in a
 * list each newly found driver is pushed onto the front of, so the last driver found comes first;
 * within a driver, the driver's own order. Stable sort by driver position, descending. */
static int by_driver_desc(const void *a, const void *b, void *ctx) {
    (void)ctx;
    uint32_t x = (*(struct vkl_physdev *const *)a)->term.icd->index;
    uint32_t y = (*(struct vkl_physdev *const *)b)->term.icd->index;
    return x > y ? -1 : (x < y ? 1 : 0);
}

/* vkl_sort_stable with its scratch from the instance's allocator. */
static VkResult sort_stable(struct vkl_instance *inst, void *base, uint32_t n, size_t size,
                            int (*cmp)(const void *, const void *, void *), void *ctx) {
    if (n < 2) return VK_SUCCESS;
    void *scratch = vkl_alloc(&inst->alloc, n * size, VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (scratch == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    vkl_sort_stable(base, n, size, cmp, ctx, scratch);
    vkl_free(&inst->alloc, scratch);
    return VK_SUCCESS;
}

static uint32_t group_driver_index(const VkPhysicalDeviceGroupProperties *g) {
    const struct vkl_physdev_term *t = (const struct vkl_physdev_term *)(const void *)g->physicalDevices[0];
    return t->icd->index;
}

static int group_by_driver_desc(const void *a, const void *b, void *ctx) {
    (void)ctx;
    uint32_t x = group_driver_index(a), y = group_driver_index(b);
    return x > y ? -1 : (x < y ? 1 : 0);
}

/* Groups: drops those with a hidden member, sorts members and then groups by their first member. */
static int group_compare(const void *a, const void *b, void *ctx) {
    const struct pd_order *o = ctx;
    const struct pd_info *x = pd_order_find(o, ((const VkPhysicalDeviceGroupProperties *)a)->physicalDevices[0]);
    const struct pd_info *y = pd_order_find(o, ((const VkPhysicalDeviceGroupProperties *)b)->physicalDevices[0]);
    return x == NULL || y == NULL ? 0 : pd_compare(x, y);
}

static VkResult pd_order_groups(struct vkl_instance *inst, const struct pd_order *o, VkPhysicalDeviceGroupProperties *g,
                                uint32_t *ngp) {
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
    return sort_stable(inst, g, k, sizeof(*g), group_compare, (void *)o);
}

/* RULE_PHYSDEV_NONE: no driver reported a physical device (none has one, or every driver's
 * vkEnumeratePhysicalDevices failed). The Vulkan specification allows
 * VK_ERROR_INITIALIZATION_FAILED here and the Khronos loader answers so (setup_loader_term_phys_devs),
 * for groups as well; applications written against it treat it as "no GPU". Devices that exist but
 * that the ID filters hide are not this case (RULE_PHYSDEV_ID_FILTER: VK_SUCCESS with 0). */
static VkResult no_physdevs(struct vkl_instance *inst, const char *cmd, uint32_t *pCount) {
    vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
            "%s: no driver reported a physical device (%u driver%s asked); VK_ERROR_INITIALIZATION_FAILED "
            "[RULE_PHYSDEV_NONE]",
            cmd, inst->icd_count, inst->icd_count == 1 ? "" : "s");
    *pCount = 0;
    return VK_ERROR_INITIALIZATION_FAILED;
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
static VkResult settings_devices(struct vkl_instance *inst, struct vkl_physdev **all, uint32_t *n, bool *applied) {
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

VkResult vkl_term_EnumeratePhysicalDevices(VkInstance instance, uint32_t *pCount, VkPhysicalDevice *pDevices) {
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    struct vkl_physdev **all = NULL;
    uint32_t n = 0;
    struct pd_order order;
    pthread_mutex_lock(&inst->lock);
    VkResult r = collect_physdevs(inst, &all, &n);
    if (r == VK_SUCCESS && n == 0) {
        pthread_mutex_unlock(&inst->lock);
        vkl_free(&inst->alloc, all);
        return no_physdevs(inst, "vkEnumeratePhysicalDevices", pCount);
    }
    if (r == VK_SUCCESS) {
        r = pd_order_build(inst, all, n, &order);
        if (r == VK_SUCCESS) {
            r = pd_order_apply(inst, &order, all, &n);
            if (r == VK_SUCCESS && !order.sort) r = sort_stable(inst, all, n, sizeof(*all), by_driver_desc, NULL);
            pd_order_free(inst, &order);
        }
        if (r == VK_SUCCESS) r = settings_devices(inst, all, &n, NULL); /* settings file: replaces the order */
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
 * (no terminator side: term.icd stays NULL, so collect_physdevs never matches it) whose `next` is
 * the layer's handle, created on first sight and kept until vkDestroyInstance. */
static VkPhysicalDevice tramp_for(struct vkl_instance *inst, VkPhysicalDevice next) {
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
        VkPhysicalDevice t = tramp_for(inst, pDevices[i]);
        if (t == VK_NULL_HANDLE) return VK_ERROR_INITIALIZATION_FAILED;
        pDevices[i] = t;
    }
    return r;
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

static bool icd_has_groups(const struct vkl_icd_instance *ii) {
    return ii->disp.EnumeratePhysicalDeviceGroups != NULL &&
           (VK_API_VERSION_MINOR(ii->api_version) >= 1 || VK_API_VERSION_MAJOR(ii->api_version) > 1 ||
            vkl_driver_has_extension(ii->driver, VK_KHR_DEVICE_GROUP_CREATION_EXTENSION_NAME));
}

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
    VkResult r = settings_devices(inst, kept, &nk, &applied);
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
    if (k == 0) {
        vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "settings file: no physical device group has only chosen devices; VK_ERROR_INITIALIZATION_FAILED "
                "[RULE_SETTINGS_FILE]");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
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
    VkResult r = collect_physdevs(inst, &all, &ndev);
    if (r != VK_SUCCESS) goto out;
    if (ndev == 0) {
        r = no_physdevs(inst, "vkEnumeratePhysicalDeviceGroups", pCount);
        goto out;
    }
    r = pd_order_build(inst, all, ndev, &order);
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
                        struct vkl_physdev *p = physdev_get(inst, &in_all, ii, dg[g].physicalDevices[m]);
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
    if ((r = pd_order_groups(inst, &order, groups, &ng)) == VK_SUCCESS && !order.sort)
        r = sort_stable(inst, groups, ng, sizeof(*groups), group_by_driver_desc, NULL);
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
    pd_order_free(inst, &order);
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
            VkPhysicalDevice t = tramp_for(inst, pGroups[g].physicalDevices[m]);
            if (t == VK_NULL_HANDLE) return VK_ERROR_INITIALIZATION_FAILED;
            pGroups[g].physicalDevices[m] = t;
        }
    }
    return r;
}

/* ---- LDP_LOADER_8: the *2 queries for drivers that only have the Vulkan 1.0 forms ---- */

static bool has_pd2(const struct vkl_icd_instance *ii) {
    return at_least_1_1(ii->api_version) ||
           vkl_driver_has_extension(ii->driver, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
}

/* The terminators' test: the driver's *2 query is used when the driver was given Vulkan 1.1 or has
 * the KHR extension (has_pd2), and also when the application asked for Vulkan 1.1 or more, as the
 * Khronos loader decides (a Vulkan 1.0 driver that still answers the 1.1 name is asked: it knows the
 * physical device best, e.g. its VkPhysicalDeviceVulkan11Properties UUIDs); emulated otherwise. */
static bool pd2_term(VkPhysicalDevice pd) {
    const struct vkl_instance *inst = vkl_physdev_from_term(pd)->tramp.instance;
    return has_pd2(((const struct vkl_physdev_term *)(const void *)pd)->icd) || at_least_1_1(inst->app_api_version);
}

static void note_emulation(VkPhysicalDevice pd, const char *cmd) {
    const struct vkl_physdev_term *t = (const struct vkl_physdev_term *)(const void *)pd;
    vkl_log(&vkl_physdev_from_term(pd)->tramp.instance->log, VKL_LOG_INFO | VKL_LOG_DRIVER,
            "driver %s: emulating %s with its Vulkan 1.0 query; pNext structures are left untouched [LDP_LOADER_8]",
            vkl_driver_name(t->icd->driver), cmd);
}

#define TERM_PD(pd) ((const struct vkl_physdev_term *)(const void *)(pd))

void vkl_term_GetPhysicalDeviceProperties2(VkPhysicalDevice pd, VkPhysicalDeviceProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (pd2_term(pd) && ii->disp.GetPhysicalDeviceProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceProperties2(TERM_PD(pd)->handle, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceProperties2");
    ii->disp.GetPhysicalDeviceProperties(TERM_PD(pd)->handle, &p->properties);
}

void vkl_term_GetPhysicalDeviceFeatures2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (pd2_term(pd) && ii->disp.GetPhysicalDeviceFeatures2 != NULL) {
        ii->disp.GetPhysicalDeviceFeatures2(TERM_PD(pd)->handle, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceFeatures2");
    if (ii->disp.GetPhysicalDeviceFeatures != NULL)
        ii->disp.GetPhysicalDeviceFeatures(TERM_PD(pd)->handle, &p->features);
}

void vkl_term_GetPhysicalDeviceFormatProperties2(VkPhysicalDevice pd, VkFormat f, VkFormatProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (pd2_term(pd) && ii->disp.GetPhysicalDeviceFormatProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceFormatProperties2(TERM_PD(pd)->handle, f, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceFormatProperties2");
    if (ii->disp.GetPhysicalDeviceFormatProperties != NULL)
        ii->disp.GetPhysicalDeviceFormatProperties(TERM_PD(pd)->handle, f, &p->formatProperties);
}

VkResult vkl_term_GetPhysicalDeviceImageFormatProperties2(VkPhysicalDevice pd,
                                                          const VkPhysicalDeviceImageFormatInfo2 *info,
                                                          VkImageFormatProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (pd2_term(pd) && ii->disp.GetPhysicalDeviceImageFormatProperties2 != NULL)
        return ii->disp.GetPhysicalDeviceImageFormatProperties2(TERM_PD(pd)->handle, info, p);
    note_emulation(pd, "vkGetPhysicalDeviceImageFormatProperties2");
    if (info->pNext != NULL) return VK_ERROR_FORMAT_NOT_SUPPORTED; /* cannot honour extended queries */
    if (ii->disp.GetPhysicalDeviceImageFormatProperties == NULL) return VK_ERROR_FORMAT_NOT_SUPPORTED;
    return ii->disp.GetPhysicalDeviceImageFormatProperties(TERM_PD(pd)->handle, info->format, info->type, info->tiling,
                                                           info->usage, info->flags, &p->imageFormatProperties);
}

void vkl_term_GetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice pd, uint32_t *pCount,
                                                      VkQueueFamilyProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (pd2_term(pd) && ii->disp.GetPhysicalDeviceQueueFamilyProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceQueueFamilyProperties2(TERM_PD(pd)->handle, pCount, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceQueueFamilyProperties2");
    if (ii->disp.GetPhysicalDeviceQueueFamilyProperties == NULL) {
        *pCount = 0;
        return;
    }
    if (p == NULL) {
        ii->disp.GetPhysicalDeviceQueueFamilyProperties(TERM_PD(pd)->handle, pCount, NULL);
        return;
    }
    const struct vkl_alloc *a = &vkl_physdev_from_term(pd)->tramp.instance->alloc;
    uint32_t n = *pCount;
    /* one element of slack after the n the driver is given (RULE_DRV_UNTRUSTED_ANSWERS) */
    VkQueueFamilyProperties *tmp = vkl_alloc(a, ((size_t)n + 1) * sizeof(*tmp), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (tmp == NULL) {
        *pCount = 0;
        return;
    }
    vkl_slack_init(&tmp[*pCount], sizeof(*tmp));
    ii->disp.GetPhysicalDeviceQueueFamilyProperties(TERM_PD(pd)->handle, &n, tmp);
    n = vkl_fill_checked(&vkl_physdev_from_term(pd)->tramp.instance->log, ii->driver,
                         "vkGetPhysicalDeviceQueueFamilyProperties", *pCount, n, &tmp[*pCount], sizeof(*tmp));
    for (uint32_t i = 0; i < n; i++) p[i].queueFamilyProperties = tmp[i];
    *pCount = n;
    vkl_free(a, tmp);
}

void vkl_term_GetPhysicalDeviceMemoryProperties2(VkPhysicalDevice pd, VkPhysicalDeviceMemoryProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (pd2_term(pd) && ii->disp.GetPhysicalDeviceMemoryProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceMemoryProperties2(TERM_PD(pd)->handle, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceMemoryProperties2");
    if (ii->disp.GetPhysicalDeviceMemoryProperties != NULL)
        ii->disp.GetPhysicalDeviceMemoryProperties(TERM_PD(pd)->handle, &p->memoryProperties);
}

void vkl_term_GetPhysicalDeviceSparseImageFormatProperties2(VkPhysicalDevice pd,
                                                            const VkPhysicalDeviceSparseImageFormatInfo2 *info,
                                                            uint32_t *pCount, VkSparseImageFormatProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (pd2_term(pd) && ii->disp.GetPhysicalDeviceSparseImageFormatProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceSparseImageFormatProperties2(TERM_PD(pd)->handle, info, pCount, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceSparseImageFormatProperties2");
    if (ii->disp.GetPhysicalDeviceSparseImageFormatProperties == NULL) {
        *pCount = 0;
        return;
    }
    uint32_t n = 0;
    ii->disp.GetPhysicalDeviceSparseImageFormatProperties(TERM_PD(pd)->handle, info->format, info->type, info->samples,
                                                          info->usage, info->tiling, &n, NULL);
    if (p == NULL) {
        *pCount = n;
        return;
    }
    const struct vkl_alloc *a = &vkl_physdev_from_term(pd)->tramp.instance->alloc;
    if (n > *pCount) n = *pCount;
    /* one element of slack after the n the driver is given (RULE_DRV_UNTRUSTED_ANSWERS) */
    VkSparseImageFormatProperties *tmp =
        vkl_alloc(a, ((size_t)n + 1) * sizeof(*tmp), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (tmp == NULL) {
        *pCount = 0;
        return;
    }
    uint32_t asked = n;
    vkl_slack_init(&tmp[asked], sizeof(*tmp));
    ii->disp.GetPhysicalDeviceSparseImageFormatProperties(TERM_PD(pd)->handle, info->format, info->type, info->samples,
                                                          info->usage, info->tiling, &n, tmp);
    n = vkl_fill_checked(&vkl_physdev_from_term(pd)->tramp.instance->log, ii->driver,
                         "vkGetPhysicalDeviceSparseImageFormatProperties", asked, n, &tmp[asked], sizeof(*tmp));
    for (uint32_t i = 0; i < n; i++) p[i].properties = tmp[i];
    *pCount = n;
    vkl_free(a, tmp);
}
