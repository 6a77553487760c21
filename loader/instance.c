/*
 * Instances: global enumeration, vkCreateInstance / vkDestroyInstance (trampolines and
 * terminators), and the per-driver instance fan-out.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/direct_driver.h"
#include "loader/internal/settings.h"
#include "loader/internal/env.h"
#include "loader/internal/chain.h"
#include "loader/internal/debug.h"
#include "loader/internal/instance.h"
#include "loader/internal/physdev.h"

/* Instance extensions the loader itself implements, whatever the drivers support. */
/* The loader's own instance extensions, in the Khronos loader's order. */
static const VkExtensionProperties g_loader_extensions[] = {
    {VK_EXT_DEBUG_REPORT_EXTENSION_NAME, VK_EXT_DEBUG_REPORT_SPEC_VERSION},
    {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_DEBUG_UTILS_SPEC_VERSION},
    {VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME, VK_KHR_PORTABILITY_ENUMERATION_SPEC_VERSION},
    {VK_LUNARG_DIRECT_DRIVER_LOADING_EXTENSION_NAME, VK_LUNARG_DIRECT_DRIVER_LOADING_SPEC_VERSION},
};
#define LOADER_EXTENSION_COUNT (sizeof(g_loader_extensions) / sizeof(g_loader_extensions[0]))

/* RULE_INST_EXT_FILTER: a driver's instance extensions that vk.xml does not define are hidden and
 * refused, unless VK_LOADER_DISABLE_INST_EXT_FILTER holds a non-zero number ([Arch] "Table of Debug
 * Environment Variables"; read plainly, also when elevated, as the Khronos loader does). */
static bool inst_ext_filter_disabled(void) {
    const char *v = vkl_getenv("VK_LOADER_DISABLE_INST_EXT_FILTER");
    return v != NULL && strtol(v, NULL, 10) != 0;
}

static bool is_loader_extension(const char *name) {
    for (size_t i = 0; i < LOADER_EXTENSION_COUNT; i++)
        if (strcmp(g_loader_extensions[i].extensionName, name) == 0) return true;
    return false;
}

/* Copies `n` properties into the application's array with the two-call idiom. */
static VkResult copy_out_extensions(const VkExtensionProperties *src, uint32_t n, uint32_t *pCount,
                                    VkExtensionProperties *pProps) {
    if (pProps == NULL) {
        *pCount = n;
        return VK_SUCCESS;
    }
    uint32_t c = *pCount < n ? *pCount : n;
    if (c != 0) memcpy(pProps, src, c * sizeof(*src)); /* src is NULL when there is nothing to copy */
    *pCount = c;
    return c < n ? VK_INCOMPLETE : VK_SUCCESS;
}

/* ------------------------------------------------------------------ global enumeration */

/*
 * The three global enumerations run through the pre-instance chains of the enabled implicit layers
 * ([Lyr] "Pre-Instance Functions", RULE_LYR_PRE_INSTANCE): each layer whose manifest names a
 * function in pre_instance_functions gets that function's chain struct (vk_layer.h) and calls
 * pfnNextLayer(pNextLink, ...) to reach the next layer, then the loader's own implementation
 * (term_*). Order: the first enabled implicit layer is outermost, as in the vkCreateInstance chain
 * (RULE_LYR_ORDER; the Khronos loader builds these chains the other way round, see
 * conformance/deviations). The layer set is acquired once per call (parse cache, no re-parse) and
 * handed to the terminator through the struct that holds its link.
 */
struct pre_call {
    struct vkl_layer_set set;
    const struct vkl_layer_manifest **implicit; /* enabled implicit layers, chain order */
    uint32_t implicit_count;
    PFN_vkVoidFunction *fns; /* the pre-instance functions of those that have one, outermost first */
    uint32_t fn_count;
    bool implicit_only; /* set holds only implicit layers (vkl_layers_acquire_implicit) */
    /* The call scope (settings.h): the settings file looked up and the environment read once for
     * the whole call, the layer discovery, the drivers' (vkEnumerateInstanceExtensionProperties) and
     * the layers' pre-instance functions included. */
    const struct vkl_settings *settings;
    bool scope_open;
};

/* Not memset: the set holds ~12 KB of filter tokens, and vkl_layers_acquire initialises it. */
static void pre_call_clear(struct pre_call *c) {
    c->implicit = NULL;
    c->implicit_count = 0;
    c->fns = NULL;
    c->fn_count = 0;
    c->settings = NULL;
    c->scope_open = false;
}

/* implicit_only: the call's own answer needs no explicit layer (vkEnumerateInstanceVersion, and
 * vkEnumerateInstanceExtensionProperties without a layer name), so explicit manifests need not be
 * scanned (vkl_layers_acquire_implicit). */
static VkResult pre_call_begin(struct pre_call *c, enum vkl_layer_pre_instance_fn fn, bool implicit_only) {
    pre_call_clear(c);
    c->implicit_only = implicit_only;
    c->settings = vkl_settings_scope_begin(NULL);
    c->scope_open = true;
    VkResult r = implicit_only ? vkl_layers_acquire_implicit(NULL, &c->set) : vkl_layers_acquire(NULL, &c->set);
    if (r != VK_SUCCESS) {
        vkl_settings_release(c->settings);
        vkl_settings_scope_end();
        pre_call_clear(c);
        return r;
    }
    r = vkl_layers_activate_implicit(&c->set, NULL, &c->implicit, &c->implicit_count);
    if (r == VK_SUCCESS && c->implicit_count > 0) {
        c->fns = calloc(c->implicit_count, sizeof(*c->fns));
        if (c->fns == NULL) r = VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (uint32_t i = 0; r == VK_SUCCESS && i < c->implicit_count; i++) {
        PFN_vkVoidFunction f = vkl_layer_pre_instance_proc(&c->set, c->implicit[i], fn, NULL);
        if (f == NULL) continue;
        vkl_log(NULL, VKL_LOG_DEBUG | VKL_LOG_LAYER, "layer %s: pre-instance function %s in the chain",
                c->implicit[i]->props.layerName, c->implicit[i]->pre_instance[fn]);
        c->fns[c->fn_count++] = f;
    }
    if (r != VK_SUCCESS) {
        free(c->fns);
        free(c->implicit);
        vkl_layers_release(&c->set);
        vkl_settings_release(c->settings);
        vkl_settings_scope_end();
        pre_call_clear(c);
    }
    return r;
}

static void pre_call_end(struct pre_call *c) {
    free(c->fns);
    free(c->implicit);
    vkl_layers_release(&c->set);
    if (c->scope_open) {
        vkl_settings_release(c->settings);
        vkl_settings_scope_end();
    }
}

static VkChainHeader chain_header(VkChainType type, uint32_t size) {
    VkChainHeader h = {.type = type, .version = VK_CURRENT_CHAIN_VERSION, .size = size};
    return h;
}

/* Copies the set's layer properties into the application's array with the two-call idiom. */
static VkResult copy_out_layers(const struct vkl_layer_set *set, uint32_t *pCount, VkLayerProperties *pProps) {
    if (pProps == NULL) {
        *pCount = set->count;
        return VK_SUCCESS;
    }
    uint32_t c = *pCount < set->count ? *pCount : set->count;
    for (uint32_t i = 0; i < c; i++) pProps[i] = set->layers[i]->props;
    *pCount = c;
    return c < set->count ? VK_INCOMPLETE : VK_SUCCESS;
}

/* Appends `src` to `all` (capacity checked by the caller), first occurrence of a name wins. */
static void ext_append_unique(VkExtensionProperties *all, uint32_t *n, const VkExtensionProperties *src, uint32_t sn) {
    for (uint32_t k = 0; k < sn; k++) {
        bool dup = false;
        for (uint32_t j = 0; j < *n && !dup; j++)
            dup = strncmp(all[j].extensionName, src[k].extensionName, VK_MAX_EXTENSION_NAME_SIZE) == 0;
        if (!dup) all[(*n)++] = src[k];
    }
}

/* The loader's vkEnumerateInstanceExtensionProperties. */
/* RULE_INST_EXT_AGGREGATE: the de-duplicated union of the drivers', the loader's and the enabled
 * implicit layers' instance extensions. */
static VkResult enumerate_instance_extensions(const struct pre_call *pc, const char *pLayerName,
                                              uint32_t *pPropertyCount, VkExtensionProperties *pProperties) {
    if (pPropertyCount == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    const struct vkl_layer_set *lset = &pc->set;
    if (pLayerName != NULL) {
        /* Answered from layer manifests, never by asking a driver (LDP_LOADER_12). A pre-instance
         * layer may call down with a layer name the application did not give: then the implicit-only
         * set is not enough and the full one is read. */
        struct vkl_layer_set full;
        if (pc->implicit_only) {
            VkResult fr = vkl_layers_acquire(NULL, &full);
            if (fr != VK_SUCCESS) return fr;
            lset = &full;
        }
        VkResult lr;
        const struct vkl_layer_manifest *l = vkl_layer_set_find(lset, pLayerName);
        if (l == NULL) {
            vkl_log(NULL, VKL_LOG_ERROR | VKL_LOG_LAYER, "vkEnumerateInstanceExtensionProperties: layer %s not found",
                    pLayerName);
            lr = VK_ERROR_LAYER_NOT_PRESENT;
        } else {
            VkExtensionProperties *le = NULL;
            uint32_t ln = 0;
            lr = vkl_layer_extensions(lset, l, false, &le, &ln);
            if (lr == VK_SUCCESS) lr = copy_out_extensions(le, ln, pPropertyCount, pProperties);
            free(le);
        }
        if (pc->implicit_only) vkl_layers_release(&full);
        return lr;
    }
    /* The enabled implicit layers' instance extensions count too: the application gets those
     * layers whatever it asks for (the Khronos loader lists them as well). */
    VkExtensionProperties *layer_exts = NULL;
    uint32_t layer_ext_count = 0, layer_ext_cap = 0;
    VkResult r = VK_SUCCESS;
    for (uint32_t i = 0; r == VK_SUCCESS && i < pc->implicit_count; i++) {
        VkExtensionProperties *le = NULL;
        uint32_t ln = 0;
        if ((r = vkl_layer_extensions(lset, pc->implicit[i], false, &le, &ln)) != VK_SUCCESS) break;
        if (layer_ext_count + ln > layer_ext_cap) {
            uint32_t ncap = layer_ext_count + ln;
            VkExtensionProperties *nv = realloc(layer_exts, ncap * sizeof(*nv));
            if (nv == NULL) {
                r = VK_ERROR_OUT_OF_HOST_MEMORY;
            } else {
                layer_exts = nv;
                layer_ext_cap = ncap;
            }
        }
        if (r == VK_SUCCESS) ext_append_unique(layer_exts, &layer_ext_count, le, ln);
        free(le);
    }
    if (r != VK_SUCCESS) {
        free(layer_exts);
        return r;
    }
    struct vkl_driver_set set;
    r = vkl_drivers_acquire(NULL, &set);
    if (r != VK_SUCCESS) {
        free(layer_exts);
        return r;
    }
    uint32_t cap = (uint32_t)LOADER_EXTENSION_COUNT + layer_ext_count;
    for (uint32_t i = 0; i < set.count; i++) cap += set.drivers[i]->extension_count;
    VkExtensionProperties *all = calloc(cap, sizeof(*all));
    if (all == NULL) {
        free(layer_exts);
        vkl_drivers_release(&set);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    uint32_t n = 0;
    /* Union of the drivers' extensions, the loader's own and the implicit layers', first occurrence
     * wins. Portability drivers are included: pre-instance enumeration does not know the
     * instance's flags. */
    bool filter = !inst_ext_filter_disabled();
    for (uint32_t i = 0; i < set.count; i++) {
        const struct vkl_driver *d = set.drivers[i];
        for (uint32_t k = 0; k < d->extension_count; k++) {
            if (filter && !vkl_gen_instance_extension_known(d->extensions[k].extensionName)) {
                vkl_log(NULL, VKL_LOG_DEBUG | VKL_LOG_DRIVER,
                        "vkEnumerateInstanceExtensionProperties: driver %s: instance extension %.*s is not in the "
                        "loader's list of known instance extensions; hidden (VK_LOADER_DISABLE_INST_EXT_FILTER=1 "
                        "shows it) [RULE_INST_EXT_FILTER]",
                        vkl_driver_name(d), VK_MAX_EXTENSION_NAME_SIZE, d->extensions[k].extensionName);
                continue;
            }
            ext_append_unique(all, &n, &d->extensions[k], 1);
        }
    }
    ext_append_unique(all, &n, g_loader_extensions, (uint32_t)LOADER_EXTENSION_COUNT);
    ext_append_unique(all, &n, layer_exts, layer_ext_count);
    r = copy_out_extensions(all, n, pPropertyCount, pProperties);
    free(all);
    free(layer_exts);
    vkl_drivers_release(&set);
    return r;
}

/* Terminators: the bottom link of each chain is the first member of a struct that also points at
 * the call's state, so the terminator needs no second acquire. */
struct ext_end {
    VkEnumerateInstanceExtensionPropertiesChain link;
    const struct pre_call *pc;
};
struct layer_end {
    VkEnumerateInstanceLayerPropertiesChain link;
    const struct pre_call *pc;
};

static VKAPI_ATTR VkResult VKAPI_CALL term_EnumerateInstanceExtensionProperties(
    const VkEnumerateInstanceExtensionPropertiesChain *link, const char *pLayerName, uint32_t *pPropertyCount,
    VkExtensionProperties *pProperties) {
    const struct ext_end *end = (const struct ext_end *)(const void *)link;
    return enumerate_instance_extensions(end->pc, pLayerName, pPropertyCount, pProperties);
}

static VKAPI_ATTR VkResult VKAPI_CALL term_EnumerateInstanceLayerProperties(
    const VkEnumerateInstanceLayerPropertiesChain *link, uint32_t *pPropertyCount, VkLayerProperties *pProperties) {
    const struct layer_end *end = (const struct layer_end *)(const void *)link;
    if (pPropertyCount == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    return copy_out_layers(&end->pc->set, pPropertyCount, pProperties);
}

static VKAPI_ATTR VkResult VKAPI_CALL term_EnumerateInstanceVersion(const VkEnumerateInstanceVersionChain *link,
                                                                    uint32_t *pApiVersion) {
    (void)link;
    if (pApiVersion == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    *pApiVersion = VK_HEADER_VERSION_COMPLETE;
    return VK_SUCCESS;
}

/* Builds links[0..n-1] for the layer functions fns[0..n-1] (outermost first): links[i] names the
 * function below layer i and its link; the last one names the terminator and `end`. The loader
 * calls fns[0](&links[0], ...). Written once per chain type with this macro because the three
 * structs differ only in pfnNextLayer's type. */
#define BUILD_PRE_CHAIN(links, ChainT, PfnT, chain_type, pc, term, end_link)                                           \
    for (uint32_t i_ = 0; i_ < (pc)->fn_count; i_++) {                                                                 \
        (links)[i_].header = chain_header((chain_type), (uint32_t)sizeof(ChainT));                                     \
        if (i_ + 1 < (pc)->fn_count) {                                                                                 \
            memcpy(&(links)[i_].pfnNextLayer, &(pc)->fns[i_ + 1], sizeof(PfnT));                                       \
            (links)[i_].pNextLink = &(links)[i_ + 1];                                                                  \
        } else {                                                                                                       \
            (links)[i_].pfnNextLayer = (term);                                                                         \
            (links)[i_].pNextLink = (end_link);                                                                        \
        }                                                                                                              \
    }

typedef VkResult(VKAPI_PTR *vkl_pfn_pre_ext)(const VkEnumerateInstanceExtensionPropertiesChain *, const char *,
                                             uint32_t *, VkExtensionProperties *);
typedef VkResult(VKAPI_PTR *vkl_pfn_pre_layers)(const VkEnumerateInstanceLayerPropertiesChain *, uint32_t *,
                                                VkLayerProperties *);
typedef VkResult(VKAPI_PTR *vkl_pfn_pre_version)(const VkEnumerateInstanceVersionChain *, uint32_t *);

VKL_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceExtensionProperties(const char *pLayerName,
                                                                                 uint32_t *pPropertyCount,
                                                                                 VkExtensionProperties *pProperties) {
    vkl_log_init();
    if (pPropertyCount == NULL) return vkl_null_count("vkEnumerateInstanceExtensionProperties");
    if (pLayerName != NULL && pLayerName[0] == '\0') pLayerName = NULL; /* "" is no layer name */
    struct pre_call pc;
    VkResult r = pre_call_begin(&pc, VKL_PRE_ENUM_INSTANCE_EXTENSIONS, pLayerName == NULL);
    if (r != VK_SUCCESS) return r;
    struct ext_end end = {.pc = &pc};
    end.link.header = chain_header(VK_CHAIN_TYPE_ENUMERATE_INSTANCE_EXTENSION_PROPERTIES,
                                   (uint32_t)sizeof(VkEnumerateInstanceExtensionPropertiesChain));
    if (pc.fn_count == 0) {
        r = term_EnumerateInstanceExtensionProperties(&end.link, pLayerName, pPropertyCount, pProperties);
    } else {
        VkEnumerateInstanceExtensionPropertiesChain *links = calloc(pc.fn_count, sizeof(*links));
        if (links == NULL) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
        } else {
            BUILD_PRE_CHAIN(links, VkEnumerateInstanceExtensionPropertiesChain, vkl_pfn_pre_ext,
                            VK_CHAIN_TYPE_ENUMERATE_INSTANCE_EXTENSION_PROPERTIES, &pc,
                            term_EnumerateInstanceExtensionProperties, &end.link);
            vkl_pfn_pre_ext first;
            memcpy(&first, &pc.fns[0], sizeof(first));
            r = first(&links[0], pLayerName, pPropertyCount, pProperties);
            free(links);
        }
    }
    pre_call_end(&pc);
    return r;
}

VKL_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceLayerProperties(uint32_t *pPropertyCount,
                                                                             VkLayerProperties *pProperties) {
    vkl_log_init();
    if (pPropertyCount == NULL) return vkl_null_count("vkEnumerateInstanceLayerProperties");
    struct pre_call pc;
    VkResult r = pre_call_begin(&pc, VKL_PRE_ENUM_INSTANCE_LAYERS, false);
    if (r != VK_SUCCESS) return r;
    struct layer_end end = {.pc = &pc};
    end.link.header = chain_header(VK_CHAIN_TYPE_ENUMERATE_INSTANCE_LAYER_PROPERTIES,
                                   (uint32_t)sizeof(VkEnumerateInstanceLayerPropertiesChain));
    if (pc.fn_count == 0) {
        r = term_EnumerateInstanceLayerProperties(&end.link, pPropertyCount, pProperties);
    } else {
        VkEnumerateInstanceLayerPropertiesChain *links = calloc(pc.fn_count, sizeof(*links));
        if (links == NULL) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
        } else {
            BUILD_PRE_CHAIN(links, VkEnumerateInstanceLayerPropertiesChain, vkl_pfn_pre_layers,
                            VK_CHAIN_TYPE_ENUMERATE_INSTANCE_LAYER_PROPERTIES, &pc,
                            term_EnumerateInstanceLayerProperties, &end.link);
            vkl_pfn_pre_layers first;
            memcpy(&first, &pc.fns[0], sizeof(first));
            r = first(&links[0], pPropertyCount, pProperties);
            free(links);
        }
    }
    pre_call_end(&pc);
    return r;
}

/* RULE_INST_ENUMERATE_VERSION: the header version the loader was built against. */
VKL_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceVersion(uint32_t *pApiVersion) {
    vkl_log_init();
    if (pApiVersion == NULL) return vkl_null_count("vkEnumerateInstanceVersion");
    struct pre_call pc;
    VkResult r = pre_call_begin(&pc, VKL_PRE_ENUM_INSTANCE_VERSION, true);
    if (r != VK_SUCCESS) return r;
    VkEnumerateInstanceVersionChain end;
    memset(&end, 0, sizeof(end));
    end.header = chain_header(VK_CHAIN_TYPE_ENUMERATE_INSTANCE_VERSION, (uint32_t)sizeof(end));
    if (pc.fn_count == 0) {
        r = term_EnumerateInstanceVersion(&end, pApiVersion);
    } else {
        VkEnumerateInstanceVersionChain *links = calloc(pc.fn_count, sizeof(*links));
        if (links == NULL) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
        } else {
            BUILD_PRE_CHAIN(links, VkEnumerateInstanceVersionChain, vkl_pfn_pre_version,
                            VK_CHAIN_TYPE_ENUMERATE_INSTANCE_VERSION, &pc, term_EnumerateInstanceVersion, &end);
            vkl_pfn_pre_version first;
            memcpy(&first, &pc.fns[0], sizeof(first));
            r = first(&links[0], pApiVersion);
            free(links);
        }
    }
    pre_call_end(&pc);
    return r;
}

/* ---- the global commands below the layers ----
 * A layer may ask pfnNextGetInstanceProcAddr(NULL, "vkEnumerateInstance*") inside vkCreateInstance
 * (or any time) and call the answer; below every layer the loader answers for itself: the drivers',
 * the loader's and the enabled implicit layers' extensions, the layers, the loader's version. No
 * layer's pre-instance function is called again (the caller is already inside the chain). */
static VKAPI_ATTR VkResult VKAPI_CALL term_global_EnumerateInstanceExtensionProperties(
    const char *pLayerName, uint32_t *pPropertyCount, VkExtensionProperties *pProperties) {
    if (pPropertyCount == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    if (pLayerName != NULL && pLayerName[0] == '\0') pLayerName = NULL;
    struct pre_call pc;
    VkResult r = pre_call_begin(&pc, VKL_PRE_ENUM_INSTANCE_EXTENSIONS, pLayerName == NULL);
    if (r != VK_SUCCESS) return r;
    r = enumerate_instance_extensions(&pc, pLayerName, pPropertyCount, pProperties);
    pre_call_end(&pc);
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL term_global_EnumerateInstanceLayerProperties(uint32_t *pPropertyCount,
                                                                                   VkLayerProperties *pProperties) {
    if (pPropertyCount == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    struct pre_call pc;
    VkResult r = pre_call_begin(&pc, VKL_PRE_ENUM_INSTANCE_LAYERS, false);
    if (r != VK_SUCCESS) return r;
    r = copy_out_layers(&pc.set, pPropertyCount, pProperties);
    pre_call_end(&pc);
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL term_global_EnumerateInstanceVersion(uint32_t *pApiVersion) {
    return term_EnumerateInstanceVersion(NULL, pApiVersion);
}

PFN_vkVoidFunction vkl_term_global_proc(const char *name) {
    if (strcmp(name, "vkEnumerateInstanceExtensionProperties") == 0)
        return (PFN_vkVoidFunction)term_global_EnumerateInstanceExtensionProperties;
    if (strcmp(name, "vkEnumerateInstanceLayerProperties") == 0)
        return (PFN_vkVoidFunction)term_global_EnumerateInstanceLayerProperties;
    if (strcmp(name, "vkEnumerateInstanceVersion") == 0)
        return (PFN_vkVoidFunction)term_global_EnumerateInstanceVersion;
    return NULL;
}

/* A driver's per-instance record is kept by the driver when its instance goes and reused by the
 * next instance, when both use the default allocator: at 100 drivers the records were 267 KB that
 * glibc's heap grew by and trimmed back at every vkCreateInstance + vkDestroyInstance (33 page
 * faults and 2 brk per pair, docs/performance.md round seven). One record per driver at most. */
static struct vkl_icd_instance *icd_instance_alloc(const struct vkl_alloc *a, struct vkl_driver *d) {
    if (!a->app) {
        struct vkl_icd_instance *ii = vkl_driver_spare_swap(d, NULL);
        if (ii != NULL) {
            memset(ii, 0, sizeof(*ii));
            return ii;
        }
    }
    return vkl_calloc(a, sizeof(struct vkl_icd_instance), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
}

static void icd_instance_free(const struct vkl_alloc *a, struct vkl_icd_instance *ii) {
    if (!a->app) ii = vkl_driver_spare_swap(ii->driver, ii); /* the one it replaces, if any, is freed */
    if (ii != NULL) vkl_free(a, ii);
}

static void instance_free(struct vkl_instance *inst) {
    struct vkl_alloc a = inst->alloc;
    vkl_settings_release(inst->settings);
    inst->settings = NULL;
    vkl_physdev_next_index_free(inst);
    for (struct vkl_physdev *p = inst->physdevs, *n; p != NULL; p = n) {
        n = p->next;
        p->tramp.magic = 0; /* a later use of the handle is reported, not followed */
        vkl_free(&a, p);
    }
    for (struct vkl_icd_instance *ii = inst->icds, *n; ii != NULL; ii = n) {
        n = ii->next;
        icd_instance_free(&a, ii);
    }
    for (uint32_t i = 0; i < inst->enabled_extension_count; i++) vkl_free(&a, inst->enabled_extensions[i]);
    vkl_free(&a, inst->enabled_extensions);
    for (uint32_t i = 0; i < inst->app_layer_count; i++) vkl_free(&a, inst->app_layer_names[i]);
    vkl_free(&a, inst->app_layer_names);
    for (uint32_t i = 0; i < inst->unknown_physdev_count; i++) vkl_free(&a, inst->unknown_physdev_names[i]);
    for (uint32_t i = 0; i < inst->unknown_device_count; i++) vkl_free(&a, inst->unknown_device_names[i]);
    vkl_debug_destroy_all(inst);
    if (inst->drivers.drivers != NULL) vkl_drivers_release(&inst->drivers);
    vkl_layer_chain_finish(inst);
    pthread_mutex_destroy(&inst->lock);
    pthread_mutex_destroy(&inst->unknown_lock);
    vkl_free(&a, inst);
}

/* The instance zeroed except for what is only read once written: the unknown-function slots and
 * names (read below their counts, unknown_func.c) and the layer set's filter tokens (read below
 * their counts, filter.c). Those are 31 KB of the 32 KB struct, and clearing them cost more
 * instructions than the rest of vkCreateInstance + vkDestroyInstance with one driver
 * (docs/performance.md). The ranges follow the struct's layout, which the asserts pin: a member
 * added anywhere else is cleared. */
#define RANGE_END(type, m) (offsetof(type, m) + sizeof(((type *)0)->m))
_Static_assert(offsetof(struct vkl_instance, chain_handle) == RANGE_END(struct vkl_instance, unknown_physdev_chain),
               "instance_alloc: layout");
_Static_assert(offsetof(struct vkl_instance, unknown_physdev_count) ==
                   RANGE_END(struct vkl_instance, unknown_physdev_names),
               "instance_alloc: layout");
_Static_assert(offsetof(struct vkl_instance, unknown_device_count) ==
                   RANGE_END(struct vkl_instance, unknown_device_names),
               "instance_alloc: layout");
_Static_assert(offsetof(struct vkl_layer_set, disable) == RANGE_END(struct vkl_layer_set, enable) &&
                   offsetof(struct vkl_layer_set, allow) == RANGE_END(struct vkl_layer_set, disable) &&
                   RANGE_END(struct vkl_filter, tokens) == sizeof(struct vkl_filter),
               "instance_alloc: layout");
static void zero_range(void *base, size_t from, size_t to) {
    if (to > from) memset((char *)base + from, 0, to - from);
}
static struct vkl_instance *instance_alloc(const struct vkl_alloc *a) {
    struct vkl_instance *inst = vkl_alloc(a, sizeof(*inst), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
    if (inst == NULL) return NULL;
    typedef struct vkl_instance I;
    zero_range(inst, 0, offsetof(I, unknown_physdev_chain));
    zero_range(inst, offsetof(I, chain_handle), offsetof(I, unknown_physdev_names));
    zero_range(inst, offsetof(I, unknown_physdev_count), offsetof(I, unknown_device_names));
    zero_range(inst, offsetof(I, unknown_device_count),
               offsetof(I, layer_set) + offsetof(struct vkl_layer_set, enable));
    struct vkl_filter *f[3] = {&inst->layer_set.enable, &inst->layer_set.disable, &inst->layer_set.allow};
    for (int i = 0; i < 3; i++) zero_range(f[i], 0, offsetof(struct vkl_filter, tokens));
    zero_range(inst, offsetof(I, layer_set) + RANGE_END(struct vkl_layer_set, allow), sizeof(I));
    return inst;
}

/* Appends `names` (count `n`) to buf as ", "-separated text, cut to the buffer. */
static void join_names(char *buf, size_t len, const char *const *names, uint32_t n) {
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; names != NULL && i < n && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i] != NULL ? names[i] : "<NULL>");
        if (w < 0) break;
        used += (size_t)w < len - used ? (size_t)w : len - used - 1;
    }
}

/* RULE_LOG_FORMAT: what the application asked for, at INFO, in the Khronos loader's words (its
 * users grep for "applicationName: ..." and the requested names); one line per list. */
static void log_create_info(const struct vkl_log_sink *log, const VkInstanceCreateInfo *ci) {
    if (!vkl_log_wants(log, VKL_LOG_INFO)) return;
    const VkApplicationInfo *app = ci->pApplicationInfo;
    uint32_t api = app != NULL ? app->apiVersion : 0;
    vkl_log(log, VKL_LOG_INFO,
            "vkCreateInstance: applicationName: \"%s\", applicationVersion: %u, engineName: \"%s\", engineVersion: %u, "
            "apiVersion: %u.%u.%u",
            app != NULL && app->pApplicationName != NULL ? app->pApplicationName : "",
            app != NULL ? app->applicationVersion : 0, app != NULL && app->pEngineName != NULL ? app->pEngineName : "",
            app != NULL ? app->engineVersion : 0, VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api),
            VK_API_VERSION_PATCH(api));
    char names[VKL_LOG_MAX_MESSAGE + 1];
    join_names(names, sizeof names, ci->ppEnabledLayerNames, ci->enabledLayerCount);
    vkl_log(log, VKL_LOG_INFO, "vkCreateInstance: Requested %u instance layer(s): %s", ci->enabledLayerCount, names);
    join_names(names, sizeof names, ci->ppEnabledExtensionNames, ci->enabledExtensionCount);
    vkl_log(log, VKL_LOG_INFO, "vkCreateInstance: Requested %u instance extension(s): %s", ci->enabledExtensionCount,
            names);
}

VKL_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkCreateInstance(const VkInstanceCreateInfo *pCreateInfo,
                                                           const VkAllocationCallbacks *pAllocator,
                                                           VkInstance *pInstance) {
    vkl_log_init();
    if (pCreateInfo == NULL || pInstance == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    *pInstance = VK_NULL_HANDLE;
    /* A count with a NULL array, or a NULL name in it: the layer / extension is not present. */
    if (pCreateInfo->enabledLayerCount > 0 &&
        !vkl_names_present("vkCreateInstance", "ppEnabledLayerNames", pCreateInfo->ppEnabledLayerNames,
                           pCreateInfo->enabledLayerCount))
        return VK_ERROR_LAYER_NOT_PRESENT;
    if (pCreateInfo->enabledExtensionCount > 0 &&
        !vkl_names_present("vkCreateInstance", "ppEnabledExtensionNames", pCreateInfo->ppEnabledExtensionNames,
                           pCreateInfo->enabledExtensionCount))
        return VK_ERROR_EXTENSION_NOT_PRESENT;
    struct vkl_alloc a;
    vkl_alloc_init(&a, pAllocator);
    struct vkl_instance *inst = instance_alloc(&a);
    if (inst == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    inst->alloc = a;
    inst->disp = &vkl_gen_terminators;
    inst->chain_handle = (VkInstance)(void *)inst;
    inst->log.emit = vkl_debug_emit;
    inst->log.ctx = inst;
    inst->in_create_or_destroy = true;
    pthread_mutex_init(&inst->lock, NULL);
    pthread_mutex_init(&inst->unknown_lock, NULL);

    bool settings_scope = false;
    VkResult r = vkl_debug_add_create_info_messengers(inst, pCreateInfo->pNext);
    if (r != VK_SUCCESS) goto fail;

    const VkApplicationInfo *app = pCreateInfo->pApplicationInfo;
    log_create_info(&inst->log, pCreateInfo);
    inst->app_api_version = (app != NULL && app->apiVersion != 0) ? app->apiVersion : VK_API_VERSION_1_0;
    /* RULE_INST_ROBUST_ARGUMENTS (an apiVersion below 1.0) and LDP_LOADER_4 (a variant is not
     * Vulkan), in the Khronos loader's sentences, which its users grep for. */
    if (app != NULL && app->apiVersion != 0 && app->apiVersion < VK_API_VERSION_1_0)
        vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_VALIDATION,
                "VkInstanceCreateInfo::pApplicationInfo::apiVersion has value of %u which is not permitted. If "
                "apiVersion is not 0, then it must be greater than or equal to the value of VK_API_VERSION_1_0 "
                "[VUID-VkApplicationInfo-apiVersion]",
                app->apiVersion);
    if (app != NULL && VK_API_VERSION_VARIANT(app->apiVersion) != 0)
        vkl_log(&inst->log, VKL_LOG_WARN,
                "vkCreateInstance: The API Variant specified in pCreateInfo->pApplicationInfo.apiVersion is %u instead "
                "of the expected value of 0.",
                VK_API_VERSION_VARIANT(app->apiVersion));

    if (pCreateInfo->enabledExtensionCount > 0) {
        inst->enabled_extensions =
            vkl_calloc(&a, pCreateInfo->enabledExtensionCount * sizeof(char *), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
        if (inst->enabled_extensions == NULL) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
            goto fail;
        }
        for (uint32_t i = 0; i < pCreateInfo->enabledExtensionCount; i++) {
            const char *e = pCreateInfo->ppEnabledExtensionNames[i];
            inst->enabled_extensions[i] = vkl_strdup_alloc(&a, e != NULL ? e : "", VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
            if (inst->enabled_extensions[i] == NULL) {
                r = VK_ERROR_OUT_OF_HOST_MEMORY;
                goto fail;
            }
            inst->enabled_extension_count++;
        }
    }
    if (pCreateInfo->enabledLayerCount > 0 && pCreateInfo->ppEnabledLayerNames != NULL) {
        inst->app_layer_names =
            vkl_calloc(&a, pCreateInfo->enabledLayerCount * sizeof(char *), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
        if (inst->app_layer_names == NULL) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
            goto fail;
        }
        for (uint32_t i = 0; i < pCreateInfo->enabledLayerCount; i++) {
            const char *l = pCreateInfo->ppEnabledLayerNames[i];
            inst->app_layer_names[i] = vkl_strdup_alloc(&a, l != NULL ? l : "", VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
            if (inst->app_layer_names[i] == NULL) {
                r = VK_ERROR_OUT_OF_HOST_MEMORY;
                goto fail;
            }
            inst->app_layer_count++;
        }
    }
    /* The settings file, looked up once for the whole call: layer and driver discovery below
     * reuse this snapshot (vkl_settings_scope_begin), and it governs this instance's physical
     * devices (device_configurations), whatever the file says later ([Set]; docs/settings.md). */
    inst->settings = vkl_settings_scope_begin(&inst->log);
    settings_scope = true;
    vkl_settings_log_use(inst->settings, &inst->log);

    /* Layers: discovery, activation order and library negotiation (layer.c, layer_chain.c). */
    r = vkl_layer_chain_prepare(inst, pCreateInfo);
    if (r != VK_SUCCESS) goto fail;

    /* The system and environment drivers, and those of VK_LUNARG_direct_driver_loading. */
    r = vkl_direct_drivers_acquire(&inst->log, pCreateInfo, &inst->drivers);
    if (r != VK_SUCCESS) goto fail;

    /* The layer chain, or the terminator directly when no layer is active. */
    r = vkl_layer_chain_create_instance(inst, pCreateInfo, pAllocator, pInstance);
    if (r != VK_SUCCESS) goto fail;
    vkl_settings_scope_end();
    inst->in_create_or_destroy = false;
    return VK_SUCCESS;

fail:
    if (settings_scope) vkl_settings_scope_end();
    *pInstance = VK_NULL_HANDLE;
    instance_free(inst);
    return r;
}

static bool any_driver_has(const struct vkl_instance *inst, const char *ext) {
    for (uint32_t i = 0; i < inst->drivers.count; i++)
        if (vkl_driver_has_extension(inst->drivers.drivers[i], ext)) return true;
    return false;
}

/* Whether a driver of Vulkan version `have` accepts an application's apiVersion `want`
 * (LDP_LOADER_6 read with the Vulkan specification, conformance/policies/readings.md): from
 * Vulkan 1.1 on, apiVersion is only the highest version the application will use, and an
 * implementation of 1.1 or later must accept any value; a Vulkan 1.0 implementation returns
 * VK_ERROR_INCOMPATIBLE_DRIVER for anything but 1.0 (or 0). The patch level never decides. */
static bool api_supports(uint32_t have, uint32_t want) {
    if (VK_API_VERSION_MAJOR(have) > 1 || (VK_API_VERSION_MAJOR(have) == 1 && VK_API_VERSION_MINOR(have) >= 1))
        return true;
    return want == 0 ||
           (VK_API_VERSION_VARIANT(want) == 0 && VK_API_VERSION_MAJOR(want) == 1 && VK_API_VERSION_MINOR(want) == 0);
}

VkResult vkl_term_CreateInstance(const VkInstanceCreateInfo *pCreateInfo, const VkAllocationCallbacks *pAllocator,
                                 VkInstance *pInstance) {
    /* LLP_LAYER_21: a layer must not replace *pInstance before calling down. */
    if (!vkl_layer_chain_check_instance(pInstance)) return VK_ERROR_INITIALIZATION_FAILED;
    struct vkl_instance *inst = vkl_instance_from_handle(*pInstance);
    const struct vkl_alloc *a = &inst->alloc;
    VkResult r = VK_SUCCESS;
    const char **names = NULL;
    inst->terminator_reached = true;
    inst->term_api_version = pCreateInfo->pApplicationInfo != NULL && pCreateInfo->pApplicationInfo->apiVersion != 0
                                 ? pCreateInfo->pApplicationInfo->apiVersion
                                 : VK_API_VERSION_1_0;

    /* RULE_INST_UNKNOWN_EXT */
    /* Every requested extension must come from the loader or at least one driver. */
    for (uint32_t i = 0; i < inst->enabled_extension_count; i++) {
        const char *e = inst->enabled_extensions[i];
        if (!is_loader_extension(e) && !vkl_layer_chain_has_extension(inst, e) &&
            !vkl_gen_instance_extension_known(e) && !inst_ext_filter_disabled()) {
            vkl_log(&inst->log, VKL_LOG_ERROR,
                    "vkCreateInstance: extension %s not found in the list of known instance extensions (set "
                    "VK_LOADER_DISABLE_INST_EXT_FILTER=1 to use a driver's unknown extension) [RULE_INST_EXT_FILTER]",
                    e);
            return VK_ERROR_EXTENSION_NOT_PRESENT;
        }
        if (!is_loader_extension(e) && !any_driver_has(inst, e) && !vkl_layer_chain_has_extension(inst, e)) {
            vkl_log(&inst->log, VKL_LOG_ERROR,
                    "vkCreateInstance: extension %s is not supported by the loader or any driver", e);
            return VK_ERROR_EXTENSION_NOT_PRESENT;
        }
    }
    if (inst->drivers.count == 0) {
        vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_DRIVER, "vkCreateInstance: Found no drivers! [LDP_LOADER_1]");
        return VK_ERROR_INCOMPATIBLE_DRIVER;
    }

    /* RULE_INST_PORTABILITY */
    /* VK_KHR_portability_enumeration: portability drivers only with the flag and the extension. */
    bool flag = (pCreateInfo->flags & VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR) != 0;
    bool ext = vkl_instance_extension_enabled(inst, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    uint32_t candidates = 0, skipped_portability = 0;
    /* From interface 5 the loader, not the driver, decides apiVersion compatibility, and such drivers
     * get the application's apiVersion unchanged (RULE_DRV_IFACE_V5). */
    bool any_v5 = false, api_ok = false;
    for (uint32_t i = 0; i < inst->drivers.count; i++) {
        const struct vkl_driver *d = inst->drivers.drivers[i];
        if (d->manifest.is_portability_driver && !(flag && ext)) {
            skipped_portability++;
            continue;
        }
        candidates++;
        any_v5 = any_v5 || d->interface_version >= 5;
        api_ok = api_ok || api_supports(d->api_version, inst->app_api_version);
    }
    if (candidates == 0) {
        /* The Khronos loader's sentences (its users and tests grep for them), then ours. */
        static const char found[] =
            "vkCreateInstance: Found drivers that contain devices which support the portability subset, but the "
            "instance does not enumerate portability drivers! Applications that wish to enumerate portability drivers "
            "must set the VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR bit in the VkInstanceCreateInfo flags";
        if (flag && !ext)
            vkl_log(
                &inst->log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "VkInstanceCreateInfo: If flags has the VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR bit set, the "
                "list of enabled extensions in ppEnabledExtensionNames must contain VK_KHR_portability_enumeration "
                "[VUID-VkInstanceCreateInfo-flags-06559 ]Applications that wish to enumerate portability drivers must "
                "enable the VK_KHR_portability_enumeration instance extension. (all %u drivers are portability "
                "drivers) [LDP_LOADER_1]",
                skipped_portability);
        else
            vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                    "%s%s (all %u drivers are portability drivers) [LDP_LOADER_1]", found,
                    ext ? "." : " and enable the VK_KHR_portability_enumeration instance extension.",
                    skipped_portability);
        return VK_ERROR_INCOMPATIBLE_DRIVER;
    }
    /* LDP_LOADER_6 read with the Vulkan specification (conformance/policies/readings.md): the
     * loader reports instance version 1.1 or more, and an implementation of 1.1 or more must not
     * return VK_ERROR_INCOMPATIBLE_DRIVER for any apiVersion ("Since Vulkan 1.1, ... the
     * implementation must not return VK_ERROR_INCOMPATIBLE_DRIVER"). So when no driver supports
     * the request (every candidate is a Vulkan 1.0 driver, the application asks for more) the
     * instance is created, each 1.0 driver gets apiVersion 1.0 (LDP_LOADER_7, below), and the
     * application learns each physical device's version from vkGetPhysicalDeviceProperties, as it
     * must anyway. The warning says what the policy would have refused. */
    if (any_v5 && !api_ok) {
        vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "vkCreateInstance: apiVersion %u.%u.%u is not supported by any driver; every driver is a "
                "Vulkan 1.0 driver and receives apiVersion 1.0 [LDP_LOADER_6]",
                VK_API_VERSION_MAJOR(inst->app_api_version), VK_API_VERSION_MINOR(inst->app_api_version),
                VK_API_VERSION_PATCH(inst->app_api_version));
    }

    names = vkl_alloc(a, (inst->enabled_extension_count + 1) * sizeof(char *), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (names == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    struct vkl_icd_instance **tail = &inst->icds;
    for (uint32_t i = 0; i < inst->drivers.count; i++) {
        struct vkl_driver *d = inst->drivers.drivers[i];
        if (d->manifest.is_portability_driver && !(flag && ext)) {
            vkl_log(&inst->log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                    "driver %s: portability driver skipped (portability enumeration not requested)",
                    vkl_driver_name(d));
            continue;
        }
        /* LDP_LOADER_9: each driver receives only the extensions it advertised. */
        uint32_t n = 0;
        for (uint32_t k = 0; k < inst->enabled_extension_count; k++)
            if (vkl_driver_has_extension(d, inst->enabled_extensions[k])) names[n++] = inst->enabled_extensions[k];
        bool is_1_0 = VK_API_VERSION_MAJOR(d->api_version) == 1 && VK_API_VERSION_MINOR(d->api_version) == 0;
        /* LDP_LOADER_8: physical-device queries of a 1.0 driver go through the KHR extension when
         * it has it, so the loader enables it on the driver's behalf. */
        if (is_1_0 && vkl_driver_has_extension(d, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME) &&
            !vkl_instance_extension_enabled(inst, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME))
            names[n++] = VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME;

        VkInstanceCreateInfo ci = *pCreateInfo;
        ci.enabledLayerCount = 0;
        ci.ppEnabledLayerNames = NULL;
        ci.enabledExtensionCount = n;
        ci.ppEnabledExtensionNames = n > 0 ? names : NULL;
        if (!vkl_driver_has_extension(d, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME))
            ci.flags &= ~(VkInstanceCreateFlags)VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
        VkApplicationInfo app;
        uint32_t api = inst->app_api_version;
        if (pCreateInfo->pApplicationInfo != NULL) {
            app = *pCreateInfo->pApplicationInfo;
            /* LDP_LOADER_7: a driver that only knows Vulkan 1.0 gets apiVersion 1.0. */
            if (is_1_0 && app.apiVersion != 0 && !api_supports(d->api_version, app.apiVersion)) {
                app.apiVersion = VK_API_VERSION_1_0;
                vkl_log(&inst->log, VKL_LOG_DEBUG | VKL_LOG_DRIVER,
                        "driver %s: Vulkan 1.0 driver receives apiVersion 1.0 instead of %u.%u [LDP_LOADER_7]",
                        vkl_driver_name(d), VK_API_VERSION_MAJOR(inst->app_api_version),
                        VK_API_VERSION_MINOR(inst->app_api_version));
            }
            api = app.apiVersion != 0 ? app.apiVersion : VK_API_VERSION_1_0;
            ci.pApplicationInfo = &app;
        }
        VkInstance handle = VK_NULL_HANDLE;
        VkResult dr = d->create_instance(&ci, pAllocator, &handle);
        if (dr == VK_ERROR_OUT_OF_HOST_MEMORY) {
            r = dr;
            goto out;
        }
        if (dr != VK_SUCCESS || handle == VK_NULL_HANDLE) {
            vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "driver %s: vkCreateInstance returned %s (%d); driver skipped, the others keep working "
                    "[LDP_DRIVER_1]",
                    vkl_driver_name(d), vkl_result_str(dr), (int)dr);
            continue;
        }
        struct vkl_icd_instance *ii = icd_instance_alloc(a, d);
        if (ii == NULL) {
            PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)d->gipa(handle, "vkDestroyInstance");
            if (destroy != NULL) destroy(handle, pAllocator);
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
            goto out;
        }
        ii->driver = d;
        ii->handle = handle;
        ii->api_version = api;
        vkl_gen_instance_dispatch_fill(&ii->disp, d->gipa, handle);
        /* RULE_DRV_REQUIRED_ENTRYPOINTS: the Vulkan 1.0 instance and physical-device commands the
         * Khronos loader requires (spec 3.4); without one the driver is dropped. */
        const char *missing =
            ii->disp.DestroyInstance == NULL                          ? "vkDestroyInstance"
            : ii->disp.EnumeratePhysicalDevices == NULL               ? "vkEnumeratePhysicalDevices"
            : ii->disp.GetPhysicalDeviceFeatures == NULL              ? "vkGetPhysicalDeviceFeatures"
            : ii->disp.GetPhysicalDeviceFormatProperties == NULL      ? "vkGetPhysicalDeviceFormatProperties"
            : ii->disp.GetPhysicalDeviceImageFormatProperties == NULL ? "vkGetPhysicalDeviceImageFormatProperties"
            : ii->disp.GetPhysicalDeviceProperties == NULL            ? "vkGetPhysicalDeviceProperties"
            : ii->disp.GetPhysicalDeviceQueueFamilyProperties == NULL ? "vkGetPhysicalDeviceQueueFamilyProperties"
            : ii->disp.GetPhysicalDeviceMemoryProperties == NULL      ? "vkGetPhysicalDeviceMemoryProperties"
            : ii->disp.CreateDevice == NULL                           ? "vkCreateDevice"
            : ii->disp.GetDeviceProcAddr == NULL                      ? "vkGetDeviceProcAddr"
            : ii->disp.EnumerateDeviceExtensionProperties == NULL     ? "vkEnumerateDeviceExtensionProperties"
            : ii->disp.GetPhysicalDeviceSparseImageFormatProperties == NULL
                ? "vkGetPhysicalDeviceSparseImageFormatProperties"
                : NULL;
        if (missing != NULL) {
            vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "driver %s: vkGetInstanceProcAddr gives no %s; driver skipped [RULE_DRV_REQUIRED_ENTRYPOINTS]",
                    vkl_driver_name(d), missing);
            if (ii->disp.DestroyInstance != NULL) ii->disp.DestroyInstance(handle, pAllocator);
            icd_instance_free(a, ii);
            continue;
        }
        *tail = ii;
        tail = &ii->next;
        ii->index = inst->icd_count++;
    }
    if (inst->icd_count == 0) {
        vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "vkCreateInstance: no driver could create an instance [LDP_LOADER_1]");
        r = VK_ERROR_INCOMPATIBLE_DRIVER;
    }
out:
    vkl_free(a, names);
    if (r != VK_SUCCESS) {
        for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next)
            ii->disp.DestroyInstance(ii->handle, pAllocator);
    }
    return r;
}

void vkl_term_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *pAllocator) {
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next)
        ii->disp.DestroyInstance(ii->handle, pAllocator);
}

VKL_EXPORT VKAPI_ATTR void VKAPI_CALL vkDestroyInstance(VkInstance instance, const VkAllocationCallbacks *pAllocator) {
    if (instance == VK_NULL_HANDLE) return;
    vkl_check_instance(instance, "vkDestroyInstance");
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    inst->in_create_or_destroy = true;
    vkl_log(&inst->log, VKL_LOG_DEBUG, "vkDestroyInstance: destroying instance %p", (void *)inst);
    /* The chain gets the handle its top returned; the loader's terminator (no layer, or a top layer
     * that gives no vkDestroyInstance) only ever its own. */
    PFN_vkDestroyInstance destroy = inst->disp->DestroyInstance;
    destroy(destroy == vkl_term_DestroyInstance ? instance : inst->chain_handle, pAllocator);
    instance_free(inst);
}
