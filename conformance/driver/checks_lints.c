/* ldp-check: what the driver exposes: its extensions against the registry (LDP_DRIVER_12) and the
 * interface lints (LINT_*). */
#include "conformance/driver/checks_internal.h"
#include "loader/internal/util.h"

/* The registry check_unpublished_extensions reads (set by main.c). */
const struct ldp_registry *ldp_registry_global;

/* ================================================================================================
 * LDP_DRIVER_12: extensions against the registry
 * ============================================================================================== */

void check_unpublished_extensions(struct ldp_ctx *c, void *arg) {
    (void)arg;
    const struct ldp_registry *reg = ldp_registry_global;
    if (reg == NULL || reg->count == 0) {
        ldp_verdict(c, LDP_NOT_TESTABLE, "no Vulkan registry (--registry=PATH)");
        return;
    }
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    ldp_evidence(c, "registry: %s, VK_HEADER_VERSION %u, %zu extensions", reg->source, reg->header_version, reg->count);
    uint32_t ne = 0;
    VkExtensionProperties *ie = ldp_instance_extensions(&d, &ne);
    int fails = 0, warns = 0, total_dev = 0;
    char fail[800] = "", warn[800] = "";
    bool newer_driver =
        VK_API_VERSION_PATCH(d.api) > reg->header_version && MM(d.api) >= MM(VK_MAKE_API_VERSION(0, 1, 3, 0));
    for (int pass = 0; pass < 2; pass++) {
        /* pass 0: instance extensions; pass 1: device extensions of every device */
        VkInstance inst = VK_NULL_HANDLE;
        uint32_t npd = pass ? 0 : 1;
        VkPhysicalDevice *pds = NULL;
        if (pass == 1) {
            if (!make_instance(c, &d, NULL, 0, &inst)) {
                free(ie);
                return;
            }
            VkResult er;
            pds = physical_devices(c, &d, inst, &npd, &er);
        }
        for (uint32_t di = 0; di < npd; di++) {
            uint32_t n = ne;
            VkExtensionProperties *e = ie;
            char where[300] = "instance";
            if (pass == 1) {
                VkPhysicalDeviceProperties p;
                device_name(&d, inst, pds[di], &p);
                e = device_extensions(c, &d, inst, pds[di], &n);
                snprintf(where, sizeof where, "device %u '%s'", di, p.deviceName);
                total_dev += (int)n;
            }
            for (uint32_t i = 0; i < n; i++) {
                const char *name = e[i].extensionName;
                const struct ldp_registry_ext *re = ldp_registry_find(reg, name);
                if (re != NULL && re->published) continue;
                bool platform = (re != NULL && re->platform != NULL) || ldp_looks_like_platform_extension(name);
                const char *what = re == NULL ? "not in the registry" : "reserved/disabled in the registry";
                ldp_evidence(c, "%s extension %s: %s%s", where, name, what,
                             platform ? " (platform/WSI extension)" : "");
                if (platform && !(re == NULL && newer_driver)) {
                    if (fails++ == 0)
                        snprintf(fail, sizeof fail, "%s exposes the unpublished platform extension %s (%s)", where,
                                 name, what);
                } else if (warns++ == 0) {
                    if (re == NULL && newer_driver)
                        snprintf(warn, sizeof warn,
                                 "%s extension %s is not in the registry, which (header %u) is older than "
                                 "the driver (%u); use --registry with a newer vk.xml",
                                 where, name, reg->header_version, VK_API_VERSION_PATCH(d.api));
                    else
                        snprintf(warn, sizeof warn, "%s exposes %s, %s (not a platform extension, so advisory)", where,
                                 name, what);
                }
            }
            if (pass == 1) free(e);
        }
        free(pds);
        if (inst != VK_NULL_HANDLE) {
            PFN_vkDestroyInstance dinst = GET(&d, inst, vkDestroyInstance);
            if (dinst) dinst(inst, NULL);
        }
    }
    free(ie);
    ldp_evidence(c, "%u instance extensions, %d device extensions checked", ne, total_dev);
    verdict_first(c, fails ? fail : NULL, warns ? warn : NULL,
                  "all %u instance and %d device extensions are published in the registry", ne, total_dev);
}

/* ================================================================================================
 * Interface lints
 * ============================================================================================== */

static bool magic_ok(const void *obj) {
    uintptr_t w;
    memcpy(&w, obj, sizeof w);
    return (w & 0xffffffffu) == ICD_LOADER_MAGIC;
}

void lint_loader_magic(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    if (d.iface < 2) {
        ldp_verdict(c, LDP_NA, "interface %u: ICD_LOADER_MAGIC is required from interface 2", d.iface);
        return;
    }
    VkInstance inst;
    if (!make_instance(c, &d, NULL, 0, &inst)) return;
    int checked = 0;
    char bad[800] = "";
#define MAGIC(obj, what)                                                                                               \
    do {                                                                                                               \
        checked++;                                                                                                     \
        if (!magic_ok((const void *)(obj)) && !bad[0]) {                                                               \
            uintptr_t w_;                                                                                              \
            memcpy(&w_, (const void *)(obj), sizeof w_);                                                               \
            snprintf(bad, sizeof bad, "%s %p starts with 0x%llx, not ICD_LOADER_MAGIC 0x%x", what,                     \
                     (const void *)(obj), (unsigned long long)w_, ICD_LOADER_MAGIC);                                   \
        }                                                                                                              \
    } while (0)
    MAGIC(inst, "VkInstance");
    uint32_t n = 0;
    VkResult er;
    VkPhysicalDevice *pds = physical_devices(c, &d, inst, &n, &er);
    for (uint32_t i = 0; i < n; i++) MAGIC(pds[i], "VkPhysicalDevice");
    if (n > 0) {
        PFN_vkCreateDevice cd = GET(&d, inst, vkCreateDevice);
        PFN_vkGetDeviceProcAddr gdpa = GET(&d, inst, vkGetDeviceProcAddr);
        VkDevice dev = VK_NULL_HANDLE;
        ldp_step(c, "vkCreateDevice");
        if (cd != NULL && gdpa != NULL && create_device_family0(cd, pds[0], &dev) == VK_SUCCESS &&
            dev != VK_NULL_HANDLE) { /* a NULL VkDevice is LINT_UNTRUSTED_ANSWERS' finding */
            MAGIC(dev, "VkDevice");
            PFN_vkGetDeviceQueue gq = (PFN_vkGetDeviceQueue)gdpa(dev, "vkGetDeviceQueue");
            PFN_vkCreateCommandPool ccp = (PFN_vkCreateCommandPool)gdpa(dev, "vkCreateCommandPool");
            PFN_vkAllocateCommandBuffers acb = (PFN_vkAllocateCommandBuffers)gdpa(dev, "vkAllocateCommandBuffers");
            PFN_vkDestroyCommandPool dcp = (PFN_vkDestroyCommandPool)gdpa(dev, "vkDestroyCommandPool");
            PFN_vkDestroyDevice dd = (PFN_vkDestroyDevice)gdpa(dev, "vkDestroyDevice");
            VkQueue queue = VK_NULL_HANDLE;
            ldp_step(c, "vkGetDeviceQueue");
            if (gq) gq(dev, 0, 0, &queue);
            if (queue != VK_NULL_HANDLE) MAGIC(queue, "VkQueue");
            VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = 0};
            VkCommandPool pool = VK_NULL_HANDLE;
            ldp_step(c, "vkCreateCommandPool / vkAllocateCommandBuffers");
            if (ccp && acb && ccp(dev, &pci, NULL, &pool) == VK_SUCCESS) {
                VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                                  .commandPool = pool,
                                                  .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                                  .commandBufferCount = 1};
                VkCommandBuffer cb = VK_NULL_HANDLE;
                if (acb(dev, &ai, &cb) == VK_SUCCESS && cb != VK_NULL_HANDLE) MAGIC(cb, "VkCommandBuffer");
                if (dcp) dcp(dev, pool, NULL);
            }
            ldp_step(c, "vkDestroyDevice");
            if (dd) dd(dev, NULL);
        }
    }
    free(pds);
#undef MAGIC
    ldp_evidence(c, "%d dispatchable objects checked (instance, %u physical devices%s)", checked, n,
                 n > 0 ? ", device, queue, command buffer" : "");
    if (bad[0]) ldp_evidence(c, "%s", bad);
    if (bad[0])
        ldp_verdict(c, LDP_FAIL, "%s (dispatchable objects must start with ICD_LOADER_MAGIC from interface 2)", bad);
    else
        ldp_verdict(c, LDP_PASS, "every dispatchable object checked (%d) starts with ICD_LOADER_MAGIC", checked);
}

void lint_gpdpa_null(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    if (d.gpdpa == NULL) {
        ldp_verdict(c, LDP_NA, "no vk_icdGetPhysicalDeviceProcAddr at interface %u (it is optional)", d.iface);
        return;
    }
    VkInstance inst;
    if (!make_instance(c, &d, NULL, 0, &inst)) return;
    static const char *const names[] = {"vkCreateInstance",
                                        "vkEnumerateInstanceExtensionProperties",
                                        "vkDestroyInstance",
                                        "vkEnumeratePhysicalDevices",
                                        "vkEnumeratePhysicalDeviceGroups",
                                        "vkGetDeviceProcAddr",
                                        "vkDestroyDevice",
                                        "vkGetDeviceQueue",
                                        "vkQueueSubmit",
                                        "vkCreateBuffer",
                                        "vkCmdDraw",
                                        "vkCreateCommandPool",
                                        LDP_UNKNOWN_FUNCTION};
    char bad[1500] = "";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        ldp_step(c, "vk_icdGetPhysicalDeviceProcAddr(instance, \"%s\")", names[i]);
        if (d.gpdpa(inst, names[i]) != NULL) list_add(bad, sizeof bad, names[i]);
    }
    ldp_step(c, "vk_icdGetPhysicalDeviceProcAddr(instance, \"vkGetPhysicalDeviceProperties\")");
    ldp_evidence(c, "vk_icdGetPhysicalDeviceProcAddr (%s): vkGetPhysicalDeviceProperties -> %s",
                 d.gpdpa_exported ? "exported" : "through vk_icdGetInstanceProcAddr",
                 d.gpdpa(inst, "vkGetPhysicalDeviceProperties") ? "non-NULL" : "NULL");
    if (bad[0])
        ldp_evidence(c, "non-NULL for: %s", bad);
    else
        ldp_evidence(c, "NULL for all %zu non-physical-device/unknown names", sizeof names / sizeof names[0]);
    if (bad[0])
        ldp_verdict(c, LDP_FAIL,
                    "vk_icdGetPhysicalDeviceProcAddr answers names that are not physical-device commands: %s", bad);
    else
        ldp_verdict(c, LDP_PASS,
                    "vk_icdGetPhysicalDeviceProcAddr returns NULL for instance, device, global and unknown names");
}

void lint_gipa_null(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    char fail[800] = "", warn[800] = "";
    ldp_step(c, "vk_icdGetInstanceProcAddr(NULL, \"%s\")", LDP_UNKNOWN_FUNCTION);
    if (ldp_gipa(&d, VK_NULL_HANDLE, LDP_UNKNOWN_FUNCTION) != NULL)
        snprintf(fail, sizeof fail, "vk_icdGetInstanceProcAddr(NULL, \"%s\") is not NULL", LDP_UNKNOWN_FUNCTION);
    static const char *const non_global[] = {"vkCreateDevice", "vkDestroyInstance", "vkEnumeratePhysicalDevices",
                                             "vkGetPhysicalDeviceProperties", "vkCmdDraw"};
    char ng[600] = "";
    gipa_list(c, &d, VK_NULL_HANDLE, non_global, sizeof non_global / sizeof non_global[0], false, ng, sizeof ng);
    ldp_evidence(c, "NULL instance, non-global names answered: %s", ng[0] ? ng : "none");
    if (ng[0])
        snprintf(warn, sizeof warn,
                 "with a NULL instance it answers non-global names (%s); the Vulkan spec leaves this "
                 "undefined, NULL is expected",
                 ng);
    VkInstance inst;
    if (!make_instance(c, &d, NULL, 0, &inst)) return;
    ldp_step(c, "vk_icdGetInstanceProcAddr(instance, \"%s\")", LDP_UNKNOWN_FUNCTION);
    if (ldp_gipa(&d, inst, LDP_UNKNOWN_FUNCTION) != NULL && !fail[0])
        snprintf(fail, sizeof fail,
                 "vk_icdGetInstanceProcAddr(instance, \"%s\") is not NULL (unknown names must give NULL)",
                 LDP_UNKNOWN_FUNCTION);
    ldp_evidence(c, "unknown name with NULL and with an instance: %s", fail[0] ? "answered" : "NULL");
    /* The commands every loader looks up after vkCreateInstance; without one the Khronos loader and
     * ours drop the driver with a warning (RULE_DRV_REQUIRED_ENTRYPOINTS). */
    static const char *const required[] = {"vkDestroyInstance",
                                           "vkEnumeratePhysicalDevices",
                                           "vkGetPhysicalDeviceFeatures",
                                           "vkGetPhysicalDeviceFormatProperties",
                                           "vkGetPhysicalDeviceImageFormatProperties",
                                           "vkGetPhysicalDeviceProperties",
                                           "vkGetPhysicalDeviceQueueFamilyProperties",
                                           "vkGetPhysicalDeviceMemoryProperties",
                                           "vkGetDeviceProcAddr",
                                           "vkCreateDevice",
                                           "vkEnumerateDeviceExtensionProperties",
                                           "vkGetPhysicalDeviceSparseImageFormatProperties"};
    char missing[800] = "";
    gipa_list(c, &d, inst, required, sizeof required / sizeof required[0], true, missing, sizeof missing);
    ldp_evidence(c, "instance, the %zu commands a loader requires: %s%s", sizeof required / sizeof required[0],
                 missing[0] ? "NULL for " : "all answered", missing);
    if (missing[0] && !fail[0])
        snprintf(fail, sizeof fail,
                 "vk_icdGetInstanceProcAddr(instance, ...) is NULL for %s, which a loader requires "
                 "(loaders drop such a driver)",
                 missing);
    verdict_first(c, fail, warn,
                  "NULL for unknown names (NULL instance and instance) and for non-global names with a NULL "
                  "instance; every command a loader requires is answered");
}

void lint_global_null_instance(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    static const char *const names[] = {"vkCreateInstance", "vkEnumerateInstanceExtensionProperties",
                                        "vkEnumerateInstanceVersion", "vkEnumerateInstanceLayerProperties",
                                        "vkGetInstanceProcAddr"};
    bool have[5];
    for (int i = 0; i < 5; i++) {
        ldp_step(c, "vk_icdGetInstanceProcAddr(NULL, \"%s\")", names[i]);
        have[i] = ldp_gipa(&d, VK_NULL_HANDLE, names[i]) != NULL;
        ldp_evidence(c, "NULL instance: %s -> %s", names[i], have[i] ? "non-NULL" : "NULL");
    }
    char a[32];
    if (!have[0] || !have[1])
        ldp_verdict(c, LDP_FAIL, "%s is not queryable with a NULL instance (required of every driver)",
                    !have[0] ? "vkCreateInstance" : "vkEnumerateInstanceExtensionProperties");
    else if (!have[2] && MM(c->drv->m.api_version) >= VK_API_VERSION_1_1)
        ldp_verdict(c, LDP_WARN,
                    "the manifest says Vulkan %s but vkEnumerateInstanceVersion is not queryable with a NULL "
                    "instance, so loaders treat the driver as Vulkan 1.0",
                    vs(c->drv->m.api_version, a));
    else
        ldp_verdict(c, LDP_PASS, "the global commands are queryable with a NULL instance");
}

void lint_vk_exports(struct ldp_ctx *c, void *arg) {
    (void)arg;
    const char *lib = c->drv->m.library_path;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", lib);
    if (c->drv->m.library_path_is_bare_name) {
        ldp_step(c, "dlopen(%s)", lib);
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        struct link_map *lm = NULL;
        if (h == NULL || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL) {
            ldp_verdict(c, LDP_NOT_TESTABLE, "the library cannot be located (see LDP_DRIVER_4)");
            return;
        }
        snprintf(path, sizeof path, "%s", lm->l_name);
    }
    struct ldp_elf e;
    char err[600];
    if (ldp_elf_inspect(path, &e, err, sizeof err) != 0 || !e.have_symbols) {
        ldp_evidence(c, "%s", err[0] ? err : "no dynamic symbol table found");
        ldp_verdict(c, LDP_NOT_TESTABLE, "cannot read the library's dynamic symbols");
        ldp_elf_free(&e);
        return;
    }
    char list[1500] = "";
    for (size_t i = 0; i < e.vk_export_count && strlen(list) < 1200; i++) list_add(list, sizeof list, e.vk_exports[i]);
    ldp_evidence(c,
                 "%s: %zu exported vk* functions%s%s; -Bsymbolic (DT_SYMBOLIC/DF_SYMBOLIC): %s; exported vk* "
                 "functions the library references through its own dynamic relocations: %zu",
                 path, e.vk_export_count, e.vk_export_count ? ": " : "", list, e.symbolic ? "yes" : "no",
                 e.self_referenced);
    if (e.vk_export_count == 0)
        ldp_verdict(c, LDP_PASS, "exports no standard vk* functions");
    else if (e.symbolic)
        ldp_verdict(c, LDP_PASS, "exports %zu standard vk* functions and is linked with -Bsymbolic", e.vk_export_count);
    else
        ldp_verdict(c, LDP_WARN,
                    "exports %zu standard vk* functions without -Bsymbolic (%zu of them interposable from its own "
                    "code); advisory since LDP_DRIVER_6 was removed, but the interface document still asks "
                    "for -Bsymbolic when official names are exported",
                    e.vk_export_count, e.self_referenced);
    ldp_elf_free(&e);
}

/* ================================================================================================
 * LINT_UNTRUSTED_ANSWERS: drivers that lie (docs/ldp-check.md "Drivers that lie")
 * ============================================================================================== */

#define LIAR_SLACK 0xA5

struct liar {
    struct ldp_ctx *c;
    char fail[1200];
    int problems;
};

static void liar_report(struct liar *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void liar_report(struct liar *l, const char *fmt, ...) {
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ldp_evidence(l->c, "%s", msg);
    if (l->problems++ == 0) snprintf(l->fail, sizeof l->fail, "%s", msg);
}

static bool slack_intact(const void *slack, size_t size) {
    const unsigned char *b = slack;
    for (size_t i = 0; i < size; i++)
        if (b[i] != LIAR_SLACK) return false;
    return true;
}

/* After a fill call given `asked` elements (the array has one more, preset to LIAR_SLACK): the
 * count written back and the slack (cases 1 and 2). Returns the number of elements to read. */
static uint32_t liar_fill(struct liar *l, const char *cmd, uint32_t asked, uint32_t got, const void *slack,
                          size_t size) {
    if (!slack_intact(slack, size)) liar_report(l, "%s wrote past the %u elements it was given", cmd, asked);
    if (got > asked) {
        liar_report(l,
                    "%s reported %u elements in an array of %u (a count larger than the array instead of "
                    "VK_INCOMPLETE)",
                    cmd, got, asked);
        got = asked;
    }
    return got;
}

/* A name in a fixed-size array: terminated within it, and UTF-8 (case 4). */
static void liar_name(struct liar *l, const char *what, const char *name, size_t size) {
    const char *nul = memchr(name, '\0', size);
    if (nul == NULL) {
        liar_report(l, "%s '%.40s...' has no terminating NUL in its %zu-byte array", what, name, size);
        return;
    }
    if (!vkl_utf8_valid((const unsigned char *)name, (size_t)(nul - name)))
        liar_report(l, "%s is not valid UTF-8", what);
}

static void liar_extensions(struct liar *l, const char *cmd,
                            VkResult (*call)(void *, uint32_t *, VkExtensionProperties *), void *ctx) {
    uint32_t n = 0;
    ldp_step(l->c, "%s(count)", cmd);
    if (call(ctx, &n, NULL) != VK_SUCCESS || n > 65536) return;
    VkExtensionProperties *e = calloc((size_t)n + 1, sizeof *e);
    if (e == NULL) return;
    memset(&e[n], LIAR_SLACK, sizeof *e);
    uint32_t got = n;
    ldp_step(l->c, "%s(array of %u)", cmd, n);
    VkResult r = call(ctx, &got, e);
    if (r == VK_SUCCESS || r == VK_INCOMPLETE) {
        got = liar_fill(l, cmd, n, got, &e[n], sizeof *e);
        char what[200];
        for (uint32_t i = 0; i < got; i++) {
            snprintf(what, sizeof what, "%s: extensionName %u", cmd, i);
            liar_name(l, what, e[i].extensionName, sizeof e[i].extensionName);
        }
    }
    free(e);
}

struct liar_dev_ext {
    PFN_vkEnumerateDeviceExtensionProperties fn;
    VkPhysicalDevice pd;
};
static VkResult call_dev_ext(void *ctx, uint32_t *n, VkExtensionProperties *p) {
    struct liar_dev_ext *x = ctx;
    return x->fn(x->pd, NULL, n, p);
}
static VkResult call_inst_ext(void *ctx, uint32_t *n, VkExtensionProperties *p) {
    return ((PFN_vkEnumerateInstanceExtensionProperties)ctx)(NULL, n, p);
}

/* A count/array query (cases 1 and 2) for the commands the loader may pass straight through (formats,
 * present modes, tools): the two calls, the array one element longer, preset to LIAR_SLACK; `stype`
 * (non-zero) is written to each element's first member. Returns the array (free it) with *got the
 * elements to read, or NULL. */
static void *liar_query(struct liar *l, const char *cmd, size_t size, VkStructureType stype,
                        VkResult (*call)(void *, uint32_t *, void *), void *ctx, uint32_t *got) {
    uint32_t n = 0;
    *got = 0;
    ldp_step(l->c, "%s(count)", cmd);
    if (call(ctx, &n, NULL) != VK_SUCCESS || n == 0 || n > 4096) return NULL;
    unsigned char *a = calloc((size_t)n + 1, size);
    if (a == NULL) return NULL;
    for (uint32_t i = 0; stype != 0 && i < n; i++) memcpy(a + (size_t)i * size, &stype, sizeof stype);
    memset(a + (size_t)n * size, LIAR_SLACK, size);
    uint32_t m = n;
    ldp_step(l->c, "%s(array of %u)", cmd, n);
    VkResult r = call(ctx, &m, a);
    if (r == VK_SUCCESS || r == VK_INCOMPLETE) *got = liar_fill(l, cmd, n, m, a + (size_t)n * size, size);
    return a;
}

struct liar_pd_surface {
    PFN_vkVoidFunction fn;
    VkPhysicalDevice pd;
    VkSurfaceKHR surface;
};
static VkResult call_formats(void *ctx, uint32_t *n, void *p) {
    struct liar_pd_surface *x = ctx;
    return ((PFN_vkGetPhysicalDeviceSurfaceFormatsKHR)x->fn)(x->pd, x->surface, n, p);
}
static VkResult call_modes(void *ctx, uint32_t *n, void *p) {
    struct liar_pd_surface *x = ctx;
    return ((PFN_vkGetPhysicalDeviceSurfacePresentModesKHR)x->fn)(x->pd, x->surface, n, p);
}
static VkResult call_layers(void *ctx, uint32_t *n, void *p) {
    struct liar_pd_surface *x = ctx;
    return ((PFN_vkEnumerateDeviceLayerProperties)x->fn)(x->pd, n, p);
}
static VkResult call_tools(void *ctx, uint32_t *n, void *p) {
    struct liar_pd_surface *x = ctx;
    return ((PFN_vkGetPhysicalDeviceToolProperties)x->fn)(x->pd, n, p);
}

/* Whether the driver lists instance extension `name` (a bounded read: names may lie too). */
static bool liar_has_instance_extension(PFN_vkEnumerateInstanceExtensionProperties eie, const char *name) {
    uint32_t n = 0;
    if (eie == NULL || eie(NULL, &n, NULL) != VK_SUCCESS || n == 0 || n > 4096) return false;
    VkExtensionProperties *e = calloc((size_t)n + 1, sizeof *e);
    if (e == NULL) return false;
    uint32_t m = n;
    bool found = false;
    VkResult r = eie(NULL, &m, e);
    for (uint32_t i = 0; (r == VK_SUCCESS || r == VK_INCOMPLETE) && i < m && i < n && !found; i++)
        found = strncmp(e[i].extensionName, name, sizeof e[i].extensionName) == 0;
    free(e);
    return found;
}

void lint_untrusted_answers(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    struct liar l = {.c = c};
    PFN_vkEnumerateInstanceExtensionProperties eie = GET(&d, VK_NULL_HANDLE, vkEnumerateInstanceExtensionProperties);
    if (eie != NULL) liar_extensions(&l, "vkEnumerateInstanceExtensionProperties", call_inst_ext, (void *)eie);
    /* a headless surface, where the driver offers one, for the formats and present-mode queries */
    static const char *const surface_exts[] = {"VK_KHR_surface", "VK_EXT_headless_surface"};
    bool headless =
        liar_has_instance_extension(eie, surface_exts[0]) && liar_has_instance_extension(eie, surface_exts[1]);
    VkInstance inst;
    if (!make_instance(c, &d, headless ? surface_exts : NULL, headless ? 2 : 0, &inst)) return;
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    PFN_vkCreateHeadlessSurfaceEXT chs = headless ? GET(&d, inst, vkCreateHeadlessSurfaceEXT) : NULL;
    PFN_vkDestroySurfaceKHR dsurf = headless ? GET(&d, inst, vkDestroySurfaceKHR) : NULL;
    if (chs != NULL && dsurf != NULL) {
        VkHeadlessSurfaceCreateInfoEXT hci = {.sType = VK_STRUCTURE_TYPE_HEADLESS_SURFACE_CREATE_INFO_EXT};
        ldp_step(c, "vkCreateHeadlessSurfaceEXT");
        if (chs(inst, &hci, NULL, &surface) != VK_SUCCESS) surface = VK_NULL_HANDLE;
    }
    PFN_vkEnumeratePhysicalDevices epd = GET(&d, inst, vkEnumeratePhysicalDevices);
    uint32_t n = 0, nd = 0;
    VkPhysicalDevice *pds = NULL;
    ldp_step(c, "vkEnumeratePhysicalDevices(count)");
    if (epd != NULL && epd(inst, &n, NULL) == VK_SUCCESS && n > 0 && n <= 4096) {
        pds = calloc((size_t)n + 1, sizeof *pds);
        if (pds != NULL) {
            memset(&pds[n], LIAR_SLACK, sizeof *pds);
            nd = n;
            ldp_step(c, "vkEnumeratePhysicalDevices(array of %u)", n);
            VkResult r = epd(inst, &nd, pds);
            if (r == VK_SUCCESS || r == VK_INCOMPLETE)
                nd = liar_fill(&l, "vkEnumeratePhysicalDevices", n, nd, &pds[n], sizeof *pds);
            else
                nd = 0;
            /* case 5: NULL and duplicate handles; the rest of the lint uses the distinct ones */
            uint32_t kept = 0;
            for (uint32_t i = 0; i < nd; i++) {
                bool dup = false;
                for (uint32_t k = 0; k < kept && !dup; k++) dup = pds[k] == pds[i];
                if (pds[i] == VK_NULL_HANDLE || dup) {
                    liar_report(&l, "vkEnumeratePhysicalDevices returned %s at index %u",
                                dup ? "a handle it had already returned" : "a NULL handle", i);
                    continue;
                }
                pds[kept++] = pds[i];
            }
            nd = kept;
        }
    }
    /* case 3: groups that do not fit VK_MAX_DEVICE_GROUP_SIZE or list devices never enumerated */
    PFN_vkEnumeratePhysicalDeviceGroups epg = GET(&d, inst, vkEnumeratePhysicalDeviceGroups);
    if (epg == NULL)
        epg = (PFN_vkEnumeratePhysicalDeviceGroups)ldp_gipa(&d, inst, "vkEnumeratePhysicalDeviceGroupsKHR");
    uint32_t ng = 0;
    ldp_step(c, "vkEnumeratePhysicalDeviceGroups(count)");
    if (epg != NULL && d.inst_api >= VK_API_VERSION_1_1 && epg(inst, &ng, NULL) == VK_SUCCESS && ng > 0 && ng <= 4096) {
        VkPhysicalDeviceGroupProperties *g = calloc((size_t)ng + 1, sizeof *g);
        if (g != NULL) {
            for (uint32_t i = 0; i < ng; i++) g[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
            memset(&g[ng], LIAR_SLACK, sizeof *g);
            uint32_t got = ng;
            ldp_step(c, "vkEnumeratePhysicalDeviceGroups(array of %u)", ng);
            VkResult r = epg(inst, &got, g);
            if (r == VK_SUCCESS || r == VK_INCOMPLETE) {
                got = liar_fill(&l, "vkEnumeratePhysicalDeviceGroups", ng, got, &g[ng], sizeof *g);
                for (uint32_t i = 0; i < got; i++) {
                    if (g[i].physicalDeviceCount == 0 || g[i].physicalDeviceCount > VK_MAX_DEVICE_GROUP_SIZE) {
                        liar_report(&l, "vkEnumeratePhysicalDeviceGroups: group %u has physicalDeviceCount %u (1..%u)",
                                    i, g[i].physicalDeviceCount, (unsigned)VK_MAX_DEVICE_GROUP_SIZE);
                        continue;
                    }
                    for (uint32_t m = 0; m < g[i].physicalDeviceCount; m++) {
                        bool found = false;
                        for (uint32_t k = 0; k < nd && !found; k++) found = pds[k] == g[i].physicalDevices[m];
                        if (!found)
                            liar_report(&l,
                                        "vkEnumeratePhysicalDeviceGroups: group %u member %u (%p) is not a device "
                                        "vkEnumeratePhysicalDevices returned",
                                        i, m, (void *)g[i].physicalDevices[m]);
                    }
                }
            }
            free(g);
        }
    }
    PFN_vkGetPhysicalDeviceProperties gp = GET(&d, inst, vkGetPhysicalDeviceProperties);
    PFN_vkGetPhysicalDeviceQueueFamilyProperties gq = GET(&d, inst, vkGetPhysicalDeviceQueueFamilyProperties);
    PFN_vkEnumerateDeviceExtensionProperties ede = GET(&d, inst, vkEnumerateDeviceExtensionProperties);
    for (uint32_t i = 0; i < nd; i++) {
        VkPhysicalDeviceProperties p;
        memset(&p, 0, sizeof p);
        ldp_step(c, "vkGetPhysicalDeviceProperties(device %u)", i);
        if (gp != NULL) {
            gp(pds[i], &p);
            char what[80];
            snprintf(what, sizeof what, "device %u: deviceName", i);
            liar_name(&l, what, p.deviceName, sizeof p.deviceName);
        }
        if (ede != NULL) {
            struct liar_dev_ext x = {ede, pds[i]};
            liar_extensions(&l, "vkEnumerateDeviceExtensionProperties", call_dev_ext, &x);
        }
        uint32_t nq = 0;
        ldp_step(c, "vkGetPhysicalDeviceQueueFamilyProperties(device %u)", i);
        if (gq != NULL) gq(pds[i], &nq, NULL);
        if (gq != NULL && nq > 0 && nq <= 4096) {
            VkQueueFamilyProperties *q = calloc((size_t)nq + 1, sizeof *q);
            if (q != NULL) {
                memset(&q[nq], LIAR_SLACK, sizeof *q);
                uint32_t got = nq;
                gq(pds[i], &got, q);
                liar_fill(&l, "vkGetPhysicalDeviceQueueFamilyProperties", nq, got, &q[nq], sizeof *q);
                free(q);
            }
        }
        /* queries a loader may hand the application's array to: the driver's answer is all it gets */
        struct liar_pd_surface x = {ldp_gipa(&d, inst, "vkGetPhysicalDeviceToolProperties"), pds[i], surface};
        if (x.fn == NULL) x.fn = ldp_gipa(&d, inst, "vkGetPhysicalDeviceToolPropertiesEXT");
        uint32_t got = 0;
        if (x.fn != NULL) {
            VkPhysicalDeviceToolProperties *t =
                liar_query(&l, "vkGetPhysicalDeviceToolProperties", sizeof *t,
                           VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TOOL_PROPERTIES, call_tools, &x, &got);
            char what[120];
            for (uint32_t k = 0; t != NULL && k < got; k++) {
                snprintf(what, sizeof what, "vkGetPhysicalDeviceToolProperties: device %u tool %u name", i, k);
                liar_name(&l, what, t[k].name, sizeof t[k].name);
            }
            free(t);
        }
        /* device layers are deprecated, loaders answer them without the driver; a driver that
         * answers still keeps to the protocol (case 4: layerName) */
        x.fn = ldp_gipa(&d, inst, "vkEnumerateDeviceLayerProperties");
        if (x.fn != NULL) {
            VkLayerProperties *ly =
                liar_query(&l, "vkEnumerateDeviceLayerProperties", sizeof *ly, 0, call_layers, &x, &got);
            char what[120];
            for (uint32_t k = 0; ly != NULL && k < got; k++) {
                snprintf(what, sizeof what, "vkEnumerateDeviceLayerProperties: device %u layerName %u", i, k);
                liar_name(&l, what, ly[k].layerName, sizeof ly[k].layerName);
            }
            free(ly);
        }
        if (surface != VK_NULL_HANDLE) {
            x.fn = ldp_gipa(&d, inst, "vkGetPhysicalDeviceSurfaceFormatsKHR");
            if (x.fn != NULL)
                free(liar_query(&l, "vkGetPhysicalDeviceSurfaceFormatsKHR", sizeof(VkSurfaceFormatKHR), 0, call_formats,
                                &x, &got));
            x.fn = ldp_gipa(&d, inst, "vkGetPhysicalDeviceSurfacePresentModesKHR");
            if (x.fn != NULL)
                free(liar_query(&l, "vkGetPhysicalDeviceSurfacePresentModesKHR", sizeof(VkPresentModeKHR), 0,
                                call_modes, &x, &got));
        }
    }
    /* case 5: VK_SUCCESS with a NULL VkDevice */
    PFN_vkCreateDevice cd = GET(&d, inst, vkCreateDevice);
    PFN_vkGetDeviceProcAddr gdpa = GET(&d, inst, vkGetDeviceProcAddr);
    if (nd > 0 && cd != NULL) {
        VkDevice dev = VK_NULL_HANDLE;
        ldp_step(c, "vkCreateDevice");
        VkResult r = create_device_family0(cd, pds[0], &dev);
        if (r == VK_SUCCESS && dev == VK_NULL_HANDLE)
            liar_report(&l, "vkCreateDevice returned VK_SUCCESS and a NULL VkDevice");
        if (r == VK_SUCCESS && dev != VK_NULL_HANDLE && gdpa != NULL) {
            PFN_vkDestroyDevice dd = (PFN_vkDestroyDevice)gdpa(dev, "vkDestroyDevice");
            ldp_step(c, "vkDestroyDevice");
            if (dd) dd(dev, NULL);
        }
    }
    free(pds);
    if (surface != VK_NULL_HANDLE) dsurf(inst, surface, NULL);
    PFN_vkDestroyInstance dinst = GET(&d, inst, vkDestroyInstance);
    if (dinst) dinst(inst, NULL);
    ldp_evidence(c, "%u physical devices, %u groups checked%s", nd, ng,
                 surface != VK_NULL_HANDLE ? " (formats and present modes on a headless surface)" : "");
    if (l.problems > 0)
        ldp_verdict(c, LDP_FAIL, "%s%s", l.fail, l.problems > 1 ? " (and more, see the evidence)" : "");
    else
        ldp_verdict(c, LDP_PASS,
                    "counts, arrays, groups, names and handles kept to the protocol (%u devices, %u groups)", nd, ng);
}
