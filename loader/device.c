/*
 * Devices: the device chain, the loader's dispatch pointer in every dispatchable device-level
 * object, and vkGetDeviceProcAddr.
 *
 * VkDevice, VkQueue and VkCommandBuffer are the driver's own objects. Their first word is reserved
 * for the loader (driver interface document, "Driver Dispatchable Object Creation"); the loader
 * writes its dispatch pointer there so exported trampolines find the table.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/chain.h"
#include "loader/internal/device.h"
#include "loader/internal/instance.h"
#include "loader/internal/unknown_func.h"
#include "loader/internal/tls.h"

/* The loader's dispatch pointer in the first word of a driver's dispatchable object
 * (RULE_DRV_IFACE_V2). */
static void set_dispatch(void *object, struct vkl_device *dev) { *(const void **)object = &dev->disp.gen; }

/* The device-group create info names physical devices; the layer below needs its own handles.
 * The application's chain is const, so the substitution is made in a copy spliced in for the call
 * and the original link is restored before returning. */
struct group_patch {
    VkBaseOutStructure *prev; /* the struct whose pNext we redirected (or NULL: the create info) */
    const void *orig;         /* the original group struct */
    VkDeviceGroupDeviceCreateInfo copy;
    VkPhysicalDevice handles[VK_MAX_DEVICE_GROUP_SIZE];
};

static bool patch_groups(VkDeviceCreateInfo *ci, struct group_patch *gp, bool to_term) {
    memset(gp, 0, sizeof(*gp));
    VkBaseOutStructure *prev = NULL;
    for (const VkBaseInStructure *s = ci->pNext; s != NULL; prev = (VkBaseOutStructure *)(uintptr_t)s, s = s->pNext) {
        if (s->sType != VK_STRUCTURE_TYPE_DEVICE_GROUP_DEVICE_CREATE_INFO) continue;
        const VkDeviceGroupDeviceCreateInfo *g = (const VkDeviceGroupDeviceCreateInfo *)s;
        if (g->physicalDeviceCount > VK_MAX_DEVICE_GROUP_SIZE) return false;
        gp->copy = *g;
        for (uint32_t i = 0; i < g->physicalDeviceCount; i++) {
            VkPhysicalDevice h = g->pPhysicalDevices[i];
            gp->handles[i] = to_term ? vkl_physdev_next(h) : vkl_term_physdev_icd_handle(h);
        }
        gp->copy.pPhysicalDevices = gp->handles;
        gp->orig = g;
        gp->prev = prev;
        if (prev == NULL)
            ci->pNext = &gp->copy;
        else
            prev->pNext = (VkBaseOutStructure *)&gp->copy;
        return true;
    }
    return true;
}

static void unpatch_groups(VkDeviceCreateInfo *ci, const struct group_patch *gp) {
    if (gp->orig == NULL) return;
    if (gp->prev == NULL)
        ci->pNext = gp->orig;
    else
        gp->prev->pNext = (VkBaseOutStructure *)(uintptr_t)gp->orig;
}

/* The create info of the vkCreateDevice in progress on this thread: the application's, or a layer's
 * own device (pfnLayerCreateDevice). The terminator tells from it which extensions were requested
 * and which a layer added on its way down. */
static VKL_TLS const VkDeviceCreateInfo *t_requested;

const VkDeviceCreateInfo *vkl_device_set_requested(const VkDeviceCreateInfo *ci) {
    const VkDeviceCreateInfo *prev = t_requested;
    t_requested = ci;
    return prev;
}

static bool ci_has_extension(const VkDeviceCreateInfo *ci, const char *ext);

/* The device extensions the instance chain reports for the physical device of the vkCreateDevice in
 * progress on this thread (vkEnumerateDeviceExtensionProperties through the layers, as the
 * application sees them): a layer may offer an extension at run time without declaring it in its
 * manifest, and the Khronos loader accepts what this list names. NULL without layers. */
struct chain_exts {
    VkExtensionProperties *props;
    uint32_t count;
};
static VKL_TLS const struct chain_exts *t_chain_exts;

static void chain_exts_query(struct vkl_instance *inst, VkPhysicalDevice pd, struct chain_exts *out) {
    out->props = NULL;
    out->count = 0;
    PFN_vkEnumerateDeviceExtensionProperties enumerate = vkl_physdev_disp(pd)->EnumerateDeviceExtensionProperties;
    uint32_t n = 0;
    if (enumerate == NULL || enumerate(vkl_physdev_next(pd), NULL, &n, NULL) != VK_SUCCESS || n == 0) return;
    uint32_t asked = n; /* one element of slack (RULE_DRV_UNTRUSTED_ANSWERS) */
    VkExtensionProperties *p =
        vkl_calloc(&inst->alloc, ((size_t)n + 1) * sizeof(*p), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (p == NULL) return;
    vkl_slack_init(&p[asked], sizeof(*p));
    VkResult r = enumerate(vkl_physdev_next(pd), NULL, &n, p);
    if (r < 0) n = 0;
    if (n > asked) n = asked;
    out->props = p;
    out->count = n;
}

static bool chain_reports(const char *ext) {
    const struct chain_exts *c = t_chain_exts;
    for (uint32_t i = 0; c != NULL && i < c->count; i++)
        if (strncmp(c->props[i].extensionName, ext, VK_MAX_EXTENSION_NAME_SIZE) == 0) return true;
    return false;
}

/* The device extensions that reach the terminator, checked against what the driver advertises for
 * this physical device. The driver gets only those it advertises ([Drv] "Additional Interface
 * Notes": the loader filters out of vkCreateDevice the extensions other entities, layers, offer);
 * one it lacks is:
 * - refused when the application (or the layer making its own device) requested it and no enabled
 *   layer declares it either (VK_ERROR_EXTENSION_NOT_PRESENT, as the Khronos loader does; the driver
 *   never sees the request, RULE_DEV_UNKNOWN_EXT);
 * - left out, with an INFO line, when an enabled layer declares it (RULE_LYR_DEVICE_EXT_ENTRYPOINTS,
 *   the layer implements it) or when a layer added it on its way down (RULE_DEV_UNKNOWN_EXT: it is
 *   the layers' business, e.g. one enabling an extension for a layer below it).
 * `names` (room for ci->enabledExtensionCount) receives the list the driver gets. */
static VkResult filter_device_extensions(struct vkl_instance *inst, struct vkl_icd_instance *ii, VkPhysicalDevice pd,
                                         VkDeviceCreateInfo *ci, const char **names) {
    uint32_t count = 0;
    VkExtensionProperties *props = NULL;
    VkResult qr = ii->disp.EnumerateDeviceExtensionProperties(pd, NULL, &count, NULL);
    if (qr == VK_SUCCESS && count > 0) {
        uint32_t asked = count; /* one element of slack (RULE_DRV_UNTRUSTED_ANSWERS) */
        props = vkl_calloc(&inst->alloc, ((size_t)count + 1) * sizeof(*props), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
        if (props == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
        vkl_slack_init(&props[asked], sizeof(*props));
        qr = ii->disp.EnumerateDeviceExtensionProperties(pd, NULL, &count, props);
        if (qr < 0) count = 0;
        count = vkl_fill_checked(&inst->log, ii->driver, "vkEnumerateDeviceExtensionProperties", asked, count,
                                 &props[asked], sizeof(*props));
    } else {
        count = 0; /* a failed count query may still have written a count (clang-analyzer) */
    }
    VkResult r = VK_SUCCESS;
    uint32_t n = 0;
    for (uint32_t i = 0; i < ci->enabledExtensionCount; i++) {
        const char *e = ci->ppEnabledExtensionNames[i];
        bool driver_has = false;
        for (uint32_t k = 0; k < count && !driver_has; k++)
            driver_has = strncmp(props[k].extensionName, e, VK_MAX_EXTENSION_NAME_SIZE) == 0;
        if (driver_has) {
            names[n++] = e;
            continue;
        }
        const struct vkl_layer_manifest *owner = vkl_layer_chain_device_extension_owner(inst, e);
        if (owner != NULL) {
            vkl_log(&inst->log, VKL_LOG_INFO | VKL_LOG_LAYER,
                    "vkCreateDevice: device extension %s comes from layer %s (%s); not passed to driver %s", e,
                    owner->props.layerName, owner->manifest_path, vkl_driver_name(ii->driver));
            continue;
        }
        if (chain_reports(e)) {
            vkl_log(
                &inst->log, VKL_LOG_INFO | VKL_LOG_LAYER,
                "vkCreateDevice: device extension %s is offered by a layer (its vkEnumerateDeviceExtensionProperties); "
                "not passed to driver %s [RULE_DEV_UNKNOWN_EXT]",
                e, vkl_driver_name(ii->driver));
            continue;
        }
        if (t_requested == NULL || ci_has_extension(t_requested, e)) {
            vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                    "vkCreateDevice: device extension %s is offered neither by driver %s (%s) nor by an enabled "
                    "layer; VK_ERROR_EXTENSION_NOT_PRESENT [RULE_DEV_UNKNOWN_EXT]",
                    e, vkl_driver_name(ii->driver),
                    qr < 0 ? "its vkEnumerateDeviceExtensionProperties failed"
                           : "vkEnumerateDeviceExtensionProperties");
            r = VK_ERROR_EXTENSION_NOT_PRESENT;
            break;
        }
        vkl_log(&inst->log, VKL_LOG_INFO | VKL_LOG_LAYER,
                "vkCreateDevice: device extension %s, added by a layer on its way down, is not offered by driver %s; "
                "not passed to it [RULE_DEV_UNKNOWN_EXT]",
                e, vkl_driver_name(ii->driver));
    }
    vkl_free(&inst->alloc, props);
    ci->enabledExtensionCount = n;
    ci->ppEnabledExtensionNames = n > 0 ? names : NULL;
    return r;
}

/* ---- vkGetDeviceProcAddr gates (RULE_GDPA_API_VERSION, RULE_GDPA_MAINTENANCE5) -------------------
 *
 * With VK_KHR_maintenance5 enabled and its maintenance5 feature on, the Vulkan specification makes
 * vkGetDeviceProcAddr return NULL for core device commands above the device's effective API version
 * (the lower of the application's VkApplicationInfo::apiVersion and the physical device's
 * apiVersion, major.minor) and for the commands of extensions that are not enabled. Without that
 * feature, implementations have always answered such names with a function pointer and
 * applications rely on it (they query a 1.1 command and check the device's version before calling
 * it): the Khronos loader gates only under the feature, and so do we. Decided here once per device,
 * so the lookup compares the command table's core_version with dev->api_version and tests one bit
 * per command (no string compare). */

#ifdef VK_KHR_MAINTENANCE_5_EXTENSION_NAME
#define VKL_KHR_MAINTENANCE_5 VK_KHR_MAINTENANCE_5_EXTENSION_NAME
#else
#define VKL_KHR_MAINTENANCE_5 "VK_KHR_maintenance5" /* newer than these headers */
#endif

/* Device commands that vk.xml has more than one extension provide, for the extensions the command
 * table does not carry (vkl_gen_cmd.extension is the first one; tools/vkgen). Only those reachable
 * without the first extension are listed: vkAcquireNextImage2KHR and
 * vkCmdPushDescriptorSetWithTemplateKHR need their first extension whichever provides them. */
static const struct {
    const char *name, *extension;
} k_also_provided_by[] = {
    {"vkGetDeviceGroupPresentCapabilitiesKHR", "VK_KHR_device_group"},
    {"vkGetDeviceGroupSurfacePresentModesKHR", "VK_KHR_device_group"},
};

static uint32_t major_minor(uint32_t v) {
    uint32_t mm = VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), 0);
    return mm < VK_API_VERSION_1_0 ? VK_API_VERSION_1_0 : mm;
}

#ifdef VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_5_FEATURES_KHR
#define VKL_MAINTENANCE_5_FEATURES_STYPE VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_5_FEATURES_KHR
#else
#define VKL_MAINTENANCE_5_FEATURES_STYPE ((VkStructureType)1000470000) /* newer than these headers */
#endif

/* Whether `ci` turns the maintenance5 feature on: VkPhysicalDeviceMaintenance5FeaturesKHR, or
 * (Vulkan 1.4 headers) VkPhysicalDeviceVulkan14Features, in its pNext chain. The feature's VkBool32
 * follows the structure's sType and pNext in both. */
static bool ci_has_maintenance5_feature(const VkDeviceCreateInfo *ci) {
    for (const VkBaseInStructure *s = ci->pNext; s != NULL; s = s->pNext) {
        bool m5 = s->sType == VKL_MAINTENANCE_5_FEATURES_STYPE;
#ifdef VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_4_FEATURES
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_4_FEATURES)
            return ((const VkPhysicalDeviceVulkan14Features *)(const void *)s)->maintenance5 == VK_TRUE;
#endif
        if (m5) {
            VkBool32 on;
            memcpy(&on, (const char *)(const void *)s + sizeof(VkBaseInStructure), sizeof(on));
            return on == VK_TRUE;
        }
    }
    return false;
}

static bool ci_has_extension(const VkDeviceCreateInfo *ci, const char *ext) {
    if (ci->ppEnabledExtensionNames == NULL) return false;
    for (uint32_t i = 0; i < ci->enabledExtensionCount; i++)
        if (ci->ppEnabledExtensionNames[i] != NULL && strcmp(ci->ppEnabledExtensionNames[i], ext) == 0) return true;
    return false;
}

static void gdpa_ext_set(struct vkl_device *dev, const struct vkl_gen_cmd *c) {
    size_t i = (size_t)(c - vkl_gen_cmds);
    dev->ext_enabled[i / 8u] |= (uint8_t)(1u << (i % 8u));
}

static inline bool gdpa_ext_enabled(const struct vkl_device *dev, const struct vkl_gen_cmd *c) {
    size_t i = (size_t)(c - vkl_gen_cmds);
    return (dev->ext_enabled[i / 8u] >> (i % 8u)) & 1u;
}

/* Adds the extensions `ci` enables (called with what the terminator receives, then with the
 * application's create info, in case a layer took its own extensions out before calling down). */
static void gdpa_gates_add_extensions(struct vkl_device *dev, const VkDeviceCreateInfo *ci) {
    if (ci_has_extension(ci, VKL_KHR_MAINTENANCE_5) && ci_has_maintenance5_feature(ci)) dev->maintenance5 = true;
    if (!dev->maintenance5) return;
    for (uint32_t i = 0; i < VKL_GEN_CMD_COUNT; i++) {
        const struct vkl_gen_cmd *c = &vkl_gen_cmds[i];
        if (c->kind != VKL_GEN_CMD_DEVICE || c->core_version != 0 || c->extension == NULL || gdpa_ext_enabled(dev, c))
            continue;
        /* A device command of an instance extension (VK_EXT_debug_utils' object names and labels)
         * follows the instance's enabled extensions. */
        if (c->instance_extension ? vkl_instance_extension_enabled(dev->instance, c->extension)
                                  : ci_has_extension(ci, c->extension))
            gdpa_ext_set(dev, c);
    }
    for (size_t k = 0; k < sizeof(k_also_provided_by) / sizeof(k_also_provided_by[0]); k++) {
        const struct vkl_gen_cmd *c = vkl_gen_cmd_find(k_also_provided_by[k].name);
        if (c != NULL && ci_has_extension(ci, k_also_provided_by[k].extension)) gdpa_ext_set(dev, c);
    }
}

static void gdpa_gates_init(struct vkl_device *dev, const struct vkl_physdev_term *t, const VkDeviceCreateInfo *ci) {
    uint32_t app = major_minor(dev->instance->app_api_version);
    uint32_t pd_api = app;
    if (t->icd->disp.GetPhysicalDeviceProperties != NULL) {
        VkPhysicalDeviceProperties props;
        memset(&props, 0, sizeof(props));
        t->icd->disp.GetPhysicalDeviceProperties(t->handle, &props);
        pd_api = major_minor(props.apiVersion);
    }
    dev->api_version = app < pd_api ? app : pd_api;
    gdpa_gates_add_extensions(dev, ci);
    if (dev->maintenance5)
        vkl_log(&dev->instance->log, VKL_LOG_DEBUG | VKL_LOG_DRIVER,
                "vkCreateDevice: maintenance5 enabled: vkGetDeviceProcAddr gives core commands up to Vulkan %u.%u "
                "(application %u.%u, physical device %u.%u) and NULL for commands of extensions not enabled "
                "[RULE_GDPA_API_VERSION] [RULE_GDPA_MAINTENANCE5]",
                VK_API_VERSION_MAJOR(dev->api_version), VK_API_VERSION_MINOR(dev->api_version),
                VK_API_VERSION_MAJOR(app), VK_API_VERSION_MINOR(app), VK_API_VERSION_MAJOR(pd_api),
                VK_API_VERSION_MINOR(pd_api));
}

/* ---- vkGetDeviceProcAddr answer cache (layered devices) -----------------------------------------
 *
 * A name that is not in the device dispatch table (one the registry does not define as a device
 * command: an unknown or layer-private command, an instance command, a command of a platform not
 * compiled in) is answered on a layered device by the top of the layer chain, whose
 * vkGetDeviceProcAddr walks every layer's down to the driver: with 10 layers about four times the
 * cost of the same lookup without layers, on every call. So the chain's answer (NULL or a pointer)
 * is kept per device, by name, and the chain is asked once per name per device.
 *
 * Why caching is exact: a device's vkGetDeviceProcAddr answer for a name is fixed for the device's
 * lifetime. The chain (which layers, in which order, and the link each one got) and the enabled
 * device extensions (which decide what a layer or driver offers, LLP_LAYER_18) are fixed at
 * vkCreateDevice, and the Vulkan specification makes the returned pointers valid for the whole
 * lifetime of the device, so a later lookup cannot meaningfully answer differently. The Khronos
 * loader walks the chain on every such lookup; the answers are the same.
 *
 * Concurrency (docs/architecture.md "Concurrency"): vkGetDeviceProcAddr is called from many threads
 * at once, so a lookup takes no lock. The table is open addressing with linear probing, at most
 * half full; a slot is claimed once and never changes: the inserter writes hash, length and answer,
 * then publishes the name pointer with a release store; a reader acquire-loads the name and reads
 * the rest only when it is set. Inserts are serialised by the device's gdpa_cache_lock (never held
 * while the chain runs). A table that would become more than half full is copied into one twice its
 * size, published with a release store of dev->gdpa_cache; the old one may still be read by a
 * concurrent lookup, so it is kept on dev->gdpa_cache_retired until the device is released (the
 * retired tables add up to less than the live one). Two threads missing the same name at once both
 * walk the chain and get the same answer; the second insert finds the name and adds nothing.
 *
 * Bounds: names of 8 to 255 bytes (every command name of the registry has 8 or more; the hash is the
 * generated name lookup's, vkl_gen_name_hash), at most GDPA_CACHE_MAX_NAMES per device; any other
 * lookup walks the chain as before. Names are copied (the application's string need not outlive the
 * call) with the device's allocator. An allocation failure while inserting leaves the name
 * uncached: the chain's answer is returned, never an error. */

#define GDPA_CACHE_MAX_NAMES 1024u /* 2,048 slots of 24 bytes at most */
#define GDPA_CACHE_MIN_SLOTS 16u
#define GDPA_CACHE_MAX_NAME_LEN 255u

struct gdpa_cache_slot {
    _Atomic(const char *) name; /* NULL: free; stored last (release) */
    PFN_vkVoidFunction fn;      /* the chain's answer (NULL included) */
    uint32_t hash, len;
};

struct vkl_gdpa_cache {
    struct vkl_gdpa_cache *retired_next; /* on dev->gdpa_cache_retired once outgrown */
    uint32_t mask;                       /* slot count - 1 (a power of two) */
    uint32_t count;                      /* names held; read and written under gdpa_cache_lock only */
    struct gdpa_cache_slot slots[];
};

/* The name's hash, or false when the name is not cached (shorter than 8 or longer than 255 bytes). */
static inline bool gdpa_cache_key(const char *name, size_t len, uint32_t *hash) {
    if (len - 8u > GDPA_CACHE_MAX_NAME_LEN - 8u) return false;
    *hash = vkl_gen_name_hash(vkl_gen_load64(name + len - 8), vkl_gen_load64(name + (len - 8) / 2), len);
    return true;
}

/* Lock-free: whether `tab` holds the name, and its answer. The table always has a free slot. */
static inline bool gdpa_cache_find(struct vkl_gdpa_cache *tab, const char *name, size_t len, uint32_t hash,
                                   PFN_vkVoidFunction *out) {
    for (uint32_t i = hash & tab->mask;; i = (i + 1u) & tab->mask) {
        struct gdpa_cache_slot *s = &tab->slots[i];
        const char *n = atomic_load_explicit(&s->name, memory_order_acquire);
        if (n == NULL) return false;
        if (s->hash == hash && s->len == len && vkl_gen_name_eq(n, name, len)) {
            *out = s->fn;
            return true;
        }
    }
}

/* Under gdpa_cache_lock: claims a free slot of `tab` for a name it does not hold. */
static void gdpa_cache_place(struct vkl_gdpa_cache *tab, const char *name, uint32_t hash, uint32_t len,
                             PFN_vkVoidFunction fn) {
    uint32_t i = hash & tab->mask;
    while (atomic_load_explicit(&tab->slots[i].name, memory_order_relaxed) != NULL) i = (i + 1u) & tab->mask;
    struct gdpa_cache_slot *s = &tab->slots[i];
    s->fn = fn;
    s->hash = hash;
    s->len = len;
    atomic_store_explicit(&s->name, name, memory_order_release);
    tab->count++;
}

static void gdpa_cache_insert(struct vkl_device *dev, const char *name, size_t len, uint32_t hash,
                              PFN_vkVoidFunction fn) {
    if (!dev->gdpa_cache_live) return; /* its mutex could not be made: nothing is cached */
    pthread_mutex_lock(&dev->gdpa_cache_lock);
    struct vkl_gdpa_cache *tab = atomic_load_explicit(&dev->gdpa_cache, memory_order_relaxed);
    PFN_vkVoidFunction known;
    if (tab != NULL && (tab->count >= GDPA_CACHE_MAX_NAMES || gdpa_cache_find(tab, name, len, hash, &known))) goto out;
    char *copy = vkl_alloc(&dev->alloc, len + 1u, VK_SYSTEM_ALLOCATION_SCOPE_DEVICE);
    if (copy == NULL) goto out;
    memcpy(copy, name, len);
    copy[len] = '\0';
    if (tab != NULL && (tab->count + 1u) * 2u <= tab->mask + 1u) {
        gdpa_cache_place(tab, copy, hash, (uint32_t)len, fn);
        goto out;
    }
    /* Grow: a copy twice the size, published whole; readers of the old one still find its names. */
    uint32_t slots = tab == NULL ? GDPA_CACHE_MIN_SLOTS : (tab->mask + 1u) * 2u;
    struct vkl_gdpa_cache *grown =
        vkl_calloc(&dev->alloc, sizeof(*grown) + slots * sizeof(grown->slots[0]), VK_SYSTEM_ALLOCATION_SCOPE_DEVICE);
    if (grown == NULL) {
        vkl_free(&dev->alloc, copy);
        goto out;
    }
    grown->mask = slots - 1u;
    for (uint32_t i = 0; tab != NULL && i <= tab->mask; i++) {
        const struct gdpa_cache_slot *s = &tab->slots[i];
        const char *n = atomic_load_explicit(&tab->slots[i].name, memory_order_relaxed);
        if (n != NULL) gdpa_cache_place(grown, n, s->hash, s->len, s->fn);
    }
    gdpa_cache_place(grown, copy, hash, (uint32_t)len, fn);
    if (tab != NULL) {
        tab->retired_next = dev->gdpa_cache_retired;
        dev->gdpa_cache_retired = tab;
    }
    atomic_store_explicit(&dev->gdpa_cache, grown, memory_order_release);
out:
    pthread_mutex_unlock(&dev->gdpa_cache_lock);
}

/* The chain's answer for a name the dispatch table does not hold, from the cache or asked once. */
static PFN_vkVoidFunction gdpa_cached_chain_answer(struct vkl_device *dev, VkDevice device, const char *name,
                                                   size_t len) {
    uint32_t hash;
    if (!gdpa_cache_key(name, len, &hash)) return dev->disp.gen.GetDeviceProcAddr(device, name);
    PFN_vkVoidFunction fn;
    struct vkl_gdpa_cache *tab = atomic_load_explicit(&dev->gdpa_cache, memory_order_acquire);
    if (tab != NULL && gdpa_cache_find(tab, name, len, hash, &fn)) return fn;
    fn = dev->disp.gen.GetDeviceProcAddr(device, name);
    gdpa_cache_insert(dev, name, len, hash, fn);
    return fn;
}

static void gdpa_cache_init(struct vkl_device *dev) {
    atomic_init(&dev->gdpa_cache, NULL);
    dev->gdpa_cache_retired = NULL;
    dev->gdpa_cache_live = pthread_mutex_init(&dev->gdpa_cache_lock, NULL) == 0;
}

/* Frees the names and every table; idempotent. The device is being released: no lookup runs. */
static void gdpa_cache_release(struct vkl_device *dev) {
    if (!dev->gdpa_cache_live) return;
    struct vkl_gdpa_cache *tab = atomic_load_explicit(&dev->gdpa_cache, memory_order_relaxed);
    for (uint32_t i = 0; tab != NULL && i <= tab->mask; i++)
        vkl_free(&dev->alloc, (void *)(uintptr_t)atomic_load_explicit(&tab->slots[i].name, memory_order_relaxed));
    vkl_free(&dev->alloc, tab);
    for (struct vkl_gdpa_cache *r = dev->gdpa_cache_retired, *next; r != NULL; r = next) {
        next = r->retired_next;
        vkl_free(&dev->alloc, r);
    }
    atomic_store_explicit(&dev->gdpa_cache, NULL, memory_order_relaxed);
    dev->gdpa_cache_retired = NULL;
    pthread_mutex_destroy(&dev->gdpa_cache_lock);
    dev->gdpa_cache_live = false;
}

VkResult vkl_term_CreateDevice(VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo *pCreateInfo,
                               const VkAllocationCallbacks *pAllocator, VkDevice *pDevice) {
    /* LLP_LAYER_22: a layer must not replace *pDevice before calling down. */
    if (!vkl_layer_chain_check_device(pDevice)) return VK_ERROR_INITIALIZATION_FAILED;
    const struct vkl_physdev_term *t = (const struct vkl_physdev_term *)(const void *)physicalDevice;
    struct vkl_instance *inst = vkl_physdev_from_term(physicalDevice)->tramp.instance;
    struct vkl_icd_instance *ii = t->icd;
    struct vkl_alloc a;
    if (pAllocator != NULL)
        vkl_alloc_init(&a, pAllocator);
    else
        a = inst->alloc;
    struct vkl_device *dev = vkl_calloc(&a, sizeof(*dev), VK_SYSTEM_ALLOCATION_SCOPE_DEVICE);
    if (dev == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    dev->alloc = a;
    dev->instance = inst;
    dev->icd = ii;

    VkDeviceCreateInfo ci = *pCreateInfo;
    ci.enabledLayerCount = 0; /* device layers are deprecated; drivers never see layer names */
    ci.ppEnabledLayerNames = NULL;
    const char **ext_names = NULL;
    if (ci.enabledExtensionCount > 0) {
        /* The names were checked for NULL by the vkCreateDevice trampoline (a layer below the
         * application could still pass NULL: refused here as well). */
        if (!vkl_names_present("vkCreateDevice", "ppEnabledExtensionNames", ci.ppEnabledExtensionNames,
                               ci.enabledExtensionCount)) {
            vkl_free(&a, dev);
            return VK_ERROR_EXTENSION_NOT_PRESENT;
        }
        ext_names =
            vkl_calloc(&inst->alloc, ci.enabledExtensionCount * sizeof(*ext_names), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
        VkResult fr = ext_names == NULL ? VK_ERROR_OUT_OF_HOST_MEMORY
                                        : filter_device_extensions(inst, ii, t->handle, &ci, ext_names);
        if (fr != VK_SUCCESS) {
            vkl_free(&inst->alloc, ext_names);
            vkl_free(&a, dev);
            return fr;
        }
    }
    struct group_patch gp;
    if (!patch_groups(&ci, &gp, false)) {
        vkl_free(&inst->alloc, ext_names);
        vkl_free(&a, dev);
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkDevice device = VK_NULL_HANDLE;
    VkResult r = ii->disp.CreateDevice(t->handle, &ci, pAllocator, &device);
    unpatch_groups(&ci, &gp);
    vkl_free(&inst->alloc, ext_names);
    if (r != VK_SUCCESS) {
        vkl_free(&a, dev);
        return r;
    }
    /* VK_SUCCESS with a NULL VkDevice: nothing to destroy and no first word to write the dispatch
     * pointer into (RULE_DRV_UNTRUSTED_ANSWERS). */
    if (device == VK_NULL_HANDLE) {
        vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "driver %s: vkCreateDevice returned VK_SUCCESS and a NULL VkDevice; VK_ERROR_INITIALIZATION_FAILED "
                "[RULE_DRV_UNTRUSTED_ANSWERS]",
                vkl_driver_name(ii->driver));
        vkl_free(&a, dev);
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    /* Interface >= 2 drivers initialise the loader's word to ICD_LOADER_MAGIC; anything else means
     * the driver did not reserve it and writing there would corrupt the driver's object. */
    if (ii->driver->interface_version >= 2 &&
        ((const VK_LOADER_DATA *)(const void *)device)->loaderMagic != ICD_LOADER_MAGIC) {
        vkl_log(
            &inst->log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
            "driver %s: VkDevice does not start with ICD_LOADER_MAGIC; device rejected [RULE_DRV_DISPATCHABLE_OBJECT]",
            vkl_driver_name(ii->driver));
        PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)ii->disp.GetDeviceProcAddr(device, "vkDestroyDevice");
        if (destroy != NULL) destroy(device, pAllocator);
        vkl_free(&a, dev);
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    dev->handle = device;
    dev->chain_handle = device; /* until the layers above return theirs (vkl_layer_chain_create_device) */
    gdpa_cache_init(dev);
    gdpa_gates_init(dev, t, pCreateInfo);
    set_dispatch(device, dev);
    /* The bottom of the device chain: the driver's own functions, except the few the loader must
     * see (surface handles); vkGetDeviceProcAddr then still returns the driver's pointers. */
    vkl_gen_device_dispatch_fill(&dev->disp.gen, vkl_term_GetDeviceProcAddr, device);
    dev->disp.magic = VKL_DEVICE_DISPATCH_MAGIC; /* a live device (vkl_check_device_object) */
    vkl_device_live_add(&dev->disp.gen);
    pthread_mutex_lock(&inst->lock);
    dev->next = inst->devices;
    inst->devices = dev;
    vkl_unknown_fill_device(inst, dev);
    pthread_mutex_unlock(&inst->lock);
    vkl_layer_chain_note_device(dev); /* released if the layers above then fail vkCreateDevice */
    *pDevice = device;
    return VK_SUCCESS;
}

/* Device layers are deprecated and ignored; the Vulkan specification calls valid only an empty list
 * or the sequence enabled at instance creation, and a list that is neither gets the Khronos
 * loader's warning (its users grep for it). Like it, the names are read only when a count and an
 * array are both given (RULE_DEVICE_LAYERS_IGNORED). */
static void warn_device_layers(const struct vkl_instance *inst, const VkDeviceCreateInfo *ci) {
    if (ci->enabledLayerCount == 0 || ci->ppEnabledLayerNames == NULL) return;
    bool differ = ci->enabledLayerCount != inst->app_layer_count;
    for (uint32_t i = 0; i < ci->enabledLayerCount && !differ; i++)
        differ =
            ci->ppEnabledLayerNames[i] == NULL || strcmp(ci->ppEnabledLayerNames[i], inst->app_layer_names[i]) != 0;
    if (differ)
        vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_LAYER,
                "loader_create_device_chain: Using deprecated and ignored 'ppEnabledLayerNames' member of "
                "'VkDeviceCreateInfo' when creating a Vulkan device. (%u device layers named; valid are none or the %u "
                "instance layers in their order; the list is ignored) [RULE_DEVICE_LAYERS_IGNORED]",
                ci->enabledLayerCount, inst->app_layer_count);
}

VKL_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkCreateDevice(VkPhysicalDevice physicalDevice,
                                                         const VkDeviceCreateInfo *pCreateInfo,
                                                         const VkAllocationCallbacks *pAllocator, VkDevice *pDevice) {
    vkl_check_physical_device(physicalDevice, "vkCreateDevice");
    if (pCreateInfo == NULL || pDevice == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    /* A count with no array (or a NULL name in it) names nothing that exists: refused as the
     * Vulkan specification's result for a missing extension, never dereferenced. Device layers are
     * deprecated and ignored: their array is read only to warn (warn_device_layers). */
    if (pCreateInfo->enabledExtensionCount > 0 &&
        !vkl_names_present("vkCreateDevice", "ppEnabledExtensionNames", pCreateInfo->ppEnabledExtensionNames,
                           pCreateInfo->enabledExtensionCount))
        return VK_ERROR_EXTENSION_NOT_PRESENT;
    VkDeviceCreateInfo ci = *pCreateInfo;
    struct group_patch gp;
    if (!patch_groups(&ci, &gp, true)) return VK_ERROR_INITIALIZATION_FAILED;
    struct vkl_instance *inst = ((const struct vkl_physdev_tramp *)(const void *)physicalDevice)->instance;
    warn_device_layers(inst, pCreateInfo);
    VkResult r;
    const VkDeviceCreateInfo *outer = vkl_device_set_requested(pCreateInfo);
    if (inst->layer_lib_count > 0) { /* the device chain: layers, then the driver (LLP_LOADER_9) */
        struct chain_exts ce = {NULL, 0};
        if (pCreateInfo->enabledExtensionCount > 0) chain_exts_query(inst, physicalDevice, &ce);
        const struct chain_exts *outer_ce = t_chain_exts;
        t_chain_exts = &ce;
        r = vkl_layer_chain_create_device(inst, vkl_physdev_next(physicalDevice), &ci, pAllocator, pDevice);
        t_chain_exts = outer_ce;
        vkl_free(&inst->alloc, ce.props);
    } else {
        struct vkl_chain_device_state chain_state; /* a layer's own device made inside its chain */
        vkl_layer_chain_device_suspend(&chain_state);
        r = vkl_physdev_disp(physicalDevice)->CreateDevice(vkl_physdev_next(physicalDevice), &ci, pAllocator, pDevice);
        vkl_layer_chain_device_resume(&chain_state);
    }
    vkl_device_set_requested(outer);
    unpatch_groups(&ci, &gp);
    /* The application's extension list is the one vkGetDeviceProcAddr answers for (the chain may have
     * passed the terminator less). */
    if (r == VK_SUCCESS && *pDevice != VK_NULL_HANDLE)
        gdpa_gates_add_extensions(vkl_device_from_handle(*pDevice), pCreateInfo);
    return r;
}

bool vkl_device_unlink(struct vkl_instance *inst, struct vkl_device *dev) {
    bool found = false;
    vkl_device_live_remove(&dev->disp.gen); /* from now on the handle reads as invalid */
    pthread_mutex_lock(&inst->lock);
    for (struct vkl_device **pp = &inst->devices; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == dev) {
            *pp = dev->next;
            found = true;
            break;
        }
    }
    pthread_mutex_unlock(&inst->lock);
    if (found) gdpa_cache_release(dev);
    return found;
}

VKL_EXPORT VKAPI_ATTR void VKAPI_CALL vkDestroyDevice(VkDevice device, const VkAllocationCallbacks *pAllocator) {
    if (device == VK_NULL_HANDLE) return;
    vkl_check_device_object(device, "vkDestroyDevice", "device");
    struct vkl_device *dev = vkl_device_from_handle(device);
    struct vkl_instance *inst = dev->instance;
    if (dev->disp.gen.DestroyDevice != NULL) dev->disp.gen.DestroyDevice(device, pAllocator);
    vkl_device_unlink(inst, dev);
    gdpa_cache_release(dev); /* (already done by the unlink when the device was on the list) */
    dev->disp.magic = 0;     /* a later use of the handle is reported, not followed */
    struct vkl_alloc a = dev->alloc;
    vkl_free(&a, dev);
}

/* RULE_DRV_DISPATCHABLE_OBJECT, RULE_DRV_UNTRUSTED_ANSWERS: a VkQueue or VkCommandBuffer the chain
 * returns must have the loader's word reserved before the loader writes its dispatch pointer there:
 * ICD_LOADER_MAGIC (drivers from interface 2, wrapping layers), or already this device's dispatch
 * pointer (a queue asked for again, or one a layer gave pfnSetDeviceLoaderData). Anything else is a
 * word of the driver's own object; writing there would corrupt it, so the object is refused and the
 * driver named. `what` names the command and the object for the log. */
static bool loader_word_reserved(const struct vkl_device *dev, const void *object, const char *what) {
    if (dev->icd->driver->interface_version < 2) return true;
    uintptr_t w;
    memcpy(&w, object, sizeof(w));
    if (w == (uintptr_t)ICD_LOADER_MAGIC || w == (uintptr_t)(const void *)&dev->disp.gen) return true;
    vkl_log(&dev->instance->log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
            "driver %s: %s does not start with ICD_LOADER_MAGIC (first word 0x%llx); refused "
            "[RULE_DRV_DISPATCHABLE_OBJECT] [RULE_DRV_UNTRUSTED_ANSWERS]",
            vkl_driver_name(dev->icd->driver), what, (unsigned long long)w);
    return false;
}

VKL_EXPORT VKAPI_ATTR void VKAPI_CALL vkGetDeviceQueue(VkDevice device, uint32_t family, uint32_t index,
                                                       VkQueue *pQueue) {
    vkl_check_device_object(device, "vkGetDeviceQueue", "device");
    struct vkl_device *dev = vkl_device_from_handle(device);
    dev->disp.gen.GetDeviceQueue(device, family, index, pQueue);
    if (*pQueue == VK_NULL_HANDLE) return;
    if (!loader_word_reserved(dev, *pQueue, "vkGetDeviceQueue: the VkQueue")) {
        *pQueue = VK_NULL_HANDLE; /* no queue rather than one that crashes at its first command */
        return;
    }
    set_dispatch(*pQueue, dev);
}

VKL_EXPORT VKAPI_ATTR void VKAPI_CALL vkGetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *pInfo,
                                                        VkQueue *pQueue) {
    vkl_check_device_object(device, "vkGetDeviceQueue2", "device");
    struct vkl_device *dev = vkl_device_from_handle(device);
    *pQueue = VK_NULL_HANDLE;
    if (dev->disp.gen.GetDeviceQueue2 == NULL) return;
    dev->disp.gen.GetDeviceQueue2(device, pInfo, pQueue);
    if (*pQueue == VK_NULL_HANDLE) return;
    if (!loader_word_reserved(dev, *pQueue, "vkGetDeviceQueue2: the VkQueue")) {
        *pQueue = VK_NULL_HANDLE;
        return;
    }
    set_dispatch(*pQueue, dev);
}

VKL_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkAllocateCommandBuffers(VkDevice device,
                                                                   const VkCommandBufferAllocateInfo *pInfo,
                                                                   VkCommandBuffer *pBuffers) {
    vkl_check_device_object(device, "vkAllocateCommandBuffers", "device");
    struct vkl_device *dev = vkl_device_from_handle(device);
    VkResult r = dev->disp.gen.AllocateCommandBuffers(device, pInfo, pBuffers);
    if (r != VK_SUCCESS) return r;
    for (uint32_t i = 0; i < pInfo->commandBufferCount; i++) {
        const char *what = "vkAllocateCommandBuffers: a VkCommandBuffer";
        if (pBuffers[i] == VK_NULL_HANDLE || loader_word_reserved(dev, pBuffers[i], what)) continue;
        /* One buffer the loader cannot dispatch: the whole allocation fails as the command fails,
         * every handle NULL, with the only result codes it has (the buffers are freed first). */
        dev->disp.gen.FreeCommandBuffers(device, pInfo->commandPool, pInfo->commandBufferCount, pBuffers);
        for (uint32_t k = 0; k < pInfo->commandBufferCount; k++) pBuffers[k] = VK_NULL_HANDLE;
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t i = 0; i < pInfo->commandBufferCount; i++)
        if (pBuffers[i] != VK_NULL_HANDLE) set_dispatch(pBuffers[i], dev);
    return r;
}

/* Whether `c` is the only name of its dispatch slot: the command table lists each command's names
 * next to each other (its own name, then its aliases), so a neighbour with the same kind and slot
 * is another name of the same command. */
static inline bool slot_has_one_name(const struct vkl_gen_cmd *c) {
    const struct vkl_gen_cmd *first = &vkl_gen_cmds[0], *last = &vkl_gen_cmds[VKL_GEN_CMD_COUNT - 1];
    if (c > first && c[-1].kind == c->kind && c[-1].slot == c->slot) return false;
    if (c < last && c[1].kind == c->kind && c[1].slot == c->slot) return false;
    return true;
}

/* RULE_GDPA_DIRECT: the driver's own pointer unless a layer or a loader terminator intercepts the
 * command; NULL for commands that are not device commands. */
VKL_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *pName) {
    if (device == VK_NULL_HANDLE || pName == NULL) return NULL;
    /* One hashed lookup instead of a strcmp chain; none of the names below has an alias, so
     * comparing the command's trampoline is comparing the name. */
    size_t len = strlen(pName);
    const struct vkl_gen_cmd *c = vkl_gen_cmd_lookup(pName, len);
    struct vkl_device *dev = vkl_device_from_handle(device);
    if (c != NULL && c->kind == VKL_GEN_CMD_DEVICE) {
        /* With the maintenance5 feature on: a core command newer than the device's effective API
         * version (core_version 0: an extension's name, never above it) or a command of an
         * extension not enabled is NULL (RULE_GDPA_API_VERSION, RULE_GDPA_MAINTENANCE5). */
        if (dev->maintenance5 &&
            (c->core_version > dev->api_version || (c->core_version == 0 && !gdpa_ext_enabled(dev, c))))
            return NULL;
        /* A device command of an instance extension (VK_EXT_debug_utils' object names and labels)
         * exists only where the instance enabled that extension, whatever a driver or layer below
         * answers (RULE_GDPA_INSTANCE_EXTENSION; the Khronos loader answers the same). */
        if (c->instance_extension && !vkl_instance_extension_enabled(dev->instance, c->extension)) return NULL;
        /* Object names and tags: the loader's trampoline, which names its own physical devices and
         * instance to the chain, where the chain has the command (RULE_DEBUG_OBJECT_HANDLES). */
        if (c->trampoline == (PFN_vkVoidFunction)vkl_tramp_SetDebugUtilsObjectNameEXT ||
            c->trampoline == (PFN_vkVoidFunction)vkl_tramp_SetDebugUtilsObjectTagEXT ||
            c->trampoline == (PFN_vkVoidFunction)vkl_tramp_DebugMarkerSetObjectNameEXT ||
            c->trampoline == (PFN_vkVoidFunction)vkl_tramp_DebugMarkerSetObjectTagEXT)
            return ((const PFN_vkVoidFunction *)(const void *)&dev->disp.gen)[c->slot] != NULL ? c->trampoline : NULL;
        /* Commands the loader must see (it writes its dispatch pointer into the objects they return). */
        PFN_vkVoidFunction t = c->trampoline;
        if (t == (PFN_vkVoidFunction)vkGetDeviceProcAddr || t == (PFN_vkVoidFunction)vkDestroyDevice ||
            t == (PFN_vkVoidFunction)vkGetDeviceQueue || t == (PFN_vkVoidFunction)vkGetDeviceQueue2 ||
            t == (PFN_vkVoidFunction)vkAllocateCommandBuffers)
            return t;
    }
    /* No layer in the device chain: what vkl_term_GetDeviceProcAddr would answer, without its
     * strcmp's -- the loader's surface-taking terminators (wsi.c) for the three device commands
     * that name a surface, the driver's own function pointer for everything else. */
    if (dev->disp.gen.GetDeviceProcAddr == vkl_term_GetDeviceProcAddr) {
        /* A command whose slot no other name shares holds exactly what the driver answered for
         * this name at vkCreateDevice (vkl_gen_device_dispatch_fill), NULL included; a driver's
         * answer is fixed for the device's lifetime, so the table answers without calling into the
         * driver, whose own lookup may cost more than ours (the Khronos loader answers from its
         * device table too). A slot with aliases may have been filled through another name, so
         * those names still ask the driver. */
        if (c != NULL && c->kind == VKL_GEN_CMD_DEVICE && c->slot != UINT16_MAX && slot_has_one_name(c))
            return ((const PFN_vkVoidFunction *)(const void *)&dev->disp.gen)[c->slot];
        PFN_vkVoidFunction t = c != NULL ? c->trampoline : NULL;
        if (t != NULL &&
            (t == (PFN_vkVoidFunction)vkCreateSwapchainKHR || t == (PFN_vkVoidFunction)vkCreateSharedSwapchainsKHR ||
             t == (PFN_vkVoidFunction)vkGetDeviceGroupSurfacePresentModesKHR))
            return vkl_term_GetDeviceProcAddr(device, pName);
        return dev->icd->disp.GetDeviceProcAddr(device, pName);
    }
    /* Layers: a device command the registry knows is answered from the dispatch table the chain's
     * top vkGetDeviceProcAddr filled once at vkCreateDevice (create_device_chain, layer_chain.c):
     * the same answer a walk down the chain gives, without walking it per lookup (the Khronos
     * loader answers from its device table too). An alias shares its command's slot. Names the
     * registry does not define ask the chain (a layer may implement them), once per device: the
     * answer cache above. */
    if (dev->layered) {
        if (c != NULL && c->kind == VKL_GEN_CMD_DEVICE && c->slot != UINT16_MAX)
            return ((const PFN_vkVoidFunction *)(const void *)&dev->disp.gen)[c->slot];
        return gdpa_cached_chain_answer(dev, device, pName, len);
    }
    return dev->disp.gen.GetDeviceProcAddr(device, pName);
}

/* RULE_LYR_IMPLICIT_DEVICE_EXTENSIONS: the device extensions the enabled implicit layers declare in
 * their manifests (device_extensions) belong to every physical device's list, after the driver's
 * and without duplicates, as the Khronos loader's terminator adds them. Explicit layers' are listed
 * only with their layer name. Counts the declarations (duplicates included; 0: nothing to add). */
static uint32_t implicit_layer_device_extension_count(const struct vkl_instance *inst) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < inst->layer_lib_count; i++) {
        const struct vkl_layer_manifest *m = inst->layer_libs[i].manifest;
        if (m->is_implicit) n += m->device_extension_count;
    }
    return n;
}

static bool ext_listed(const VkExtensionProperties *list, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (strncmp(list[i].extensionName, name, VK_MAX_EXTENSION_NAME_SIZE) == 0) return true;
    return false;
}

VkResult vkl_term_EnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char *pLayerName, uint32_t *pCount,
                                                     VkExtensionProperties *pProps) {
    /* Never pass a layer name to a driver (LDP_LOADER_12). */
    if (pLayerName != NULL) return VK_ERROR_LAYER_NOT_PRESENT;
    const struct vkl_physdev_term *t = (const struct vkl_physdev_term *)(const void *)pd;
    const struct vkl_instance *inst = vkl_physdev_from_term(pd)->tramp.instance;
    uint32_t extra = implicit_layer_device_extension_count(inst);
    if (extra == 0 && pProps == NULL)
        return t->icd->disp.EnumerateDeviceExtensionProperties(t->handle, NULL, pCount, pProps);
    if (extra == 0) {
        /* The driver fills a loader buffer one element longer than the application's array, not the
         * array itself: a count above *pCount, a write past it, or a name without NUL stays in the
         * loader and is logged (RULE_DRV_UNTRUSTED_ANSWERS); a well-behaved driver's answer is
         * copied out unchanged. */
        uint32_t asked = *pCount, n = *pCount;
        VkExtensionProperties *buf =
            vkl_alloc(&inst->alloc, ((size_t)asked + 1) * sizeof(*buf), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
        if (buf == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
        vkl_slack_init(&buf[asked], sizeof(*buf));
        VkResult r = t->icd->disp.EnumerateDeviceExtensionProperties(t->handle, NULL, &n, buf);
        if (r >= 0) {
            uint32_t reported = n;
            n = vkl_fill_checked(&inst->log, t->icd->driver, "vkEnumerateDeviceExtensionProperties", asked, n,
                                 &buf[asked], sizeof(*buf));
            if (reported > n) r = VK_INCOMPLETE; /* the driver has more than the array holds */
            for (uint32_t i = 0; i < n; i++)
                vkl_name_checked(&inst->log, t->icd->driver, "vkEnumerateDeviceExtensionProperties",
                                 buf[i].extensionName, sizeof(buf[i].extensionName));
            if (n > 0) memcpy(pProps, buf, n * sizeof(*buf));
            *pCount = n;
        }
        vkl_free(&inst->alloc, buf);
        return r;
    }

    /* The driver's list (asked again if it grew between the two calls), then the layers'. */
    VkExtensionProperties *all = NULL;
    uint32_t n = 0;
    VkResult r;
    for (int attempt = 0;; attempt++) {
        n = 0;
        r = t->icd->disp.EnumerateDeviceExtensionProperties(t->handle, NULL, &n, NULL);
        if (r != VK_SUCCESS) return r;
        vkl_free(&inst->alloc, all);
        /* extra >= 1: the layers' part is the slack of the driver's fill (RULE_DRV_UNTRUSTED_ANSWERS) */
        all = vkl_calloc(&inst->alloc, ((size_t)n + extra) * sizeof(*all), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
        if (all == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
        if (n == 0) break;
        uint32_t asked = n;
        vkl_slack_init(&all[asked], sizeof(*all));
        r = t->icd->disp.EnumerateDeviceExtensionProperties(t->handle, NULL, &n, all);
        if (r >= 0)
            n = vkl_fill_checked(&inst->log, t->icd->driver, "vkEnumerateDeviceExtensionProperties", asked, n,
                                 &all[asked], sizeof(*all));
        memset(&all[asked], 0, sizeof(*all));
        if (r == VK_SUCCESS || (r == VK_INCOMPLETE && attempt == 3)) break;
        if (r != VK_INCOMPLETE) {
            vkl_free(&inst->alloc, all);
            return r;
        }
    }
    for (uint32_t i = 0; i < inst->layer_lib_count; i++) {
        const struct vkl_layer_manifest *m = inst->layer_libs[i].manifest;
        for (uint32_t k = 0; m->is_implicit && k < m->device_extension_count; k++) {
            const VkExtensionProperties *e = &m->device_extensions[k].props;
            if (!ext_listed(all, n, e->extensionName)) all[n++] = *e;
        }
    }
    r = VK_SUCCESS;
    if (pProps == NULL) {
        *pCount = n;
    } else {
        uint32_t c = *pCount < n ? *pCount : n;
        if (c > 0) memcpy(pProps, all, c * sizeof(*all));
        *pCount = c;
        if (c < n) r = VK_INCOMPLETE;
    }
    vkl_free(&inst->alloc, all);
    return r;
}

VKL_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateDeviceExtensionProperties(VkPhysicalDevice pd,
                                                                               const char *pLayerName, uint32_t *pCount,
                                                                               VkExtensionProperties *pProps) {
    vkl_check_physical_device(pd, "vkEnumerateDeviceExtensionProperties");
    if (pCount == NULL) {
        /* RULE_INST_ROBUST_ARGUMENTS: never dereferenced. Answered VK_INCOMPLETE, a result this
         * command may return and the Khronos loader's answer (applications and its suite rely on
         * it), rather than the VK_ERROR_OUT_OF_HOST_MEMORY of the other loader-answered queries. */
        vkl_log(NULL, VKL_LOG_ERROR,
                "vkEnumerateDeviceExtensionProperties: pPropertyCount is NULL "
                "[VUID-vkEnumerateDeviceExtensionProperties-pPropertyCount-parameter]; returning VK_INCOMPLETE");
        return VK_INCOMPLETE;
    }
    if (pLayerName != NULL && pLayerName[0] == '\0') pLayerName = NULL; /* "" is no layer name */
    if (pLayerName != NULL) {
        /* A layer's device extensions come from its manifest (a meta-layer: its components');
         * neither the chain nor a driver is asked with a layer name (LDP_LOADER_12). Every layer
         * available to the instance answers, as applications such as vulkaninfo expect. */
        const struct vkl_instance *inst = ((const struct vkl_physdev_tramp *)(const void *)pd)->instance;
        const struct vkl_layer_manifest *m =
            inst->layer_set_held ? vkl_layer_set_find(&inst->layer_set, pLayerName) : NULL;
        if (m != NULL) {
            VkExtensionProperties *e = NULL;
            uint32_t n = 0;
            VkResult r = vkl_layer_extensions(&inst->layer_set, m, true, &e, &n);
            if (r == VK_SUCCESS) {
                if (pProps == NULL) {
                    *pCount = n;
                } else {
                    uint32_t c = *pCount < n ? *pCount : n;
                    if (c > 0) memcpy(pProps, e, c * sizeof(*e));
                    *pCount = c;
                    if (c < n) r = VK_INCOMPLETE;
                }
            }
            free(e);
            return r;
        }
        return VK_ERROR_LAYER_NOT_PRESENT;
    }
    return vkl_physdev_disp(pd)->EnumerateDeviceExtensionProperties(vkl_physdev_next(pd), pLayerName, pCount, pProps);
}

VkResult vkl_term_EnumerateDeviceLayerProperties(VkPhysicalDevice pd, uint32_t *pCount, VkLayerProperties *pProps) {
    (void)pd;
    (void)pProps;
    *pCount = 0;
    return VK_SUCCESS;
}

VKL_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateDeviceLayerProperties(VkPhysicalDevice pd, uint32_t *pCount,
                                                                           VkLayerProperties *pProps) {
    vkl_check_physical_device(pd, "vkEnumerateDeviceLayerProperties");
    if (pCount == NULL) return vkl_null_count("vkEnumerateDeviceLayerProperties");
    /* Device layers are deprecated: the answer is the instance's active layers ([Lyr]), activated
     * meta-layers included, each after its components, as the Khronos loader answers. */
    const struct vkl_instance *inst = ((const struct vkl_physdev_tramp *)(const void *)pd)->instance;
    uint32_t n = inst->shown_layer_count;
    if (pProps == NULL) {
        *pCount = n;
        return VK_SUCCESS;
    }
    uint32_t c = *pCount < n ? *pCount : n;
    for (uint32_t k = 0; k < c; k++) pProps[k] = inst->shown_layers[k]->props;
    *pCount = c;
    return c < n ? VK_INCOMPLETE : VK_SUCCESS;
}
