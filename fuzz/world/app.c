/*
 * The harness shared by the whole-loader fuzz targets (loader_world_fuzzer, layer_chain_fuzzer):
 * the dlopen seam, violation reports, the application's counting allocation callbacks and debug
 * callbacks, the application itself (fuzz/FRAMING.md "What a world run does") and the per-input
 * driver (world_fuzz_one). Each target brings its decoder and, optionally, extra oracles.
 *
 * The dlopen seam: the binary is linked with -Wl,--wrap=dlopen, so the loader's dlopen calls land
 * in __wrap_dlopen below. Paths inside the world are loaded; bare names are looked up in the
 * world's library directory (a simulated LD_LIBRARY_PATH); everything else (the real drivers a
 * system search finds, e.g. /usr/share/vulkan/icd.d) is refused, so no real driver ever runs in the
 * fuzzer and results do not depend on the machine.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <vulkan/vulkan.h>

#include "fuzz/world/world.h"
#include "loader/internal/env.h"
#include "loader/internal/log.h"

/* ------------------------------------------------------------------------------------------ */
/* dlopen seam                                                                                 */

void *__real_dlopen(const char *file, int mode);
void *__wrap_dlopen(const char *file, int mode);

unsigned g_world_dlopen_attempts; /* world paths the loader opened during the run */
unsigned g_world_dlopen_blocked;  /* paths refused (outside the world) */
char g_world_dlopen_last[W_PATH];
static bool g_in_run; /* count only during the application's calls */

static bool under_root(const char *real) {
    const char *root = world_root();
    size_t n = strlen(root);
    return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

void *__wrap_dlopen(const char *file, int mode) {
    if (file == NULL || !world_root()[0]) return __real_dlopen(file, mode);
    if (strchr(file, '/') == NULL) {
        /* bare name: only the world's library directory is searched */
        char p[W_PATH * 2];
        snprintf(p, sizeof p, "%s/lib/%s", world_root(), file);
        struct stat st;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
            if (g_in_run) {
                g_world_dlopen_attempts++;
                size_t n = strlen(p) < W_PATH - 1 ? strlen(p) : W_PATH - 1;
                memcpy(g_world_dlopen_last, p, n);
                g_world_dlopen_last[n] = '\0';
            }
            return __real_dlopen(p, mode);
        }
        g_world_dlopen_blocked++;
        return NULL;
    }
    char *real = realpath(file, NULL);
    if (real == NULL) return __real_dlopen(file, mode); /* does not exist: fails as usual */
    bool inside = under_root(real);
    free(real);
    if (!inside) {
        g_world_dlopen_blocked++;
        return NULL;
    }
    if (g_in_run) {
        g_world_dlopen_attempts++;
        snprintf(g_world_dlopen_last, sizeof g_world_dlopen_last, "%s", file);
    }
    return __real_dlopen(file, mode);
}

/* ------------------------------------------------------------------------------------------ */
/* Violations                                                                                  */

static const struct world *g_current;

static void print_world(const struct world *w) {
    fprintf(stderr, "world: elevated=%d chdir=%d allocator=%d drivers=%u api=0x%x\n", w->elevated,
            w->chdir_root, w->use_allocator, w->ndrivers, w->api_version);
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        const struct w_driver *d = &w->d[s];
        fprintf(stderr,
                "  slot %u: variant %s, location %u, library form %u, manifest %s (%s)\n"
                "          if %u..%u, misbehave 0x%x, %u injections, %u devices\n",
                s, world_variant_name(d->variant), d->location, d->libform, d->manifest_env,
                d->raw_manifest ? "raw" : "generated", d->sc.if_min, d->sc.if_max, d->sc.misbehave,
                d->sc.inject_count, d->sc.pd_count);
        fprintf(stderr, "          manifest: %.*s\n", (int)(d->manifest_len > 300 ? 300 : d->manifest_len),
                d->manifest ? d->manifest : "");
        /* the scenario and the call records, as the mock wrote them */
        for (int k = 0; k < 2; k++) {
            char path[W_PATH + 16];
            snprintf(path, sizeof path, "%s.%s", d->lib_abs, k ? "calls" : "scenario");
            FILE *f = fopen(path, "r");
            if (f == NULL) continue;
            fprintf(stderr, "          %s:\n", k ? "call records" : "scenario");
            char line[1024];
            for (int n = 0; n < 80 && fgets(line, sizeof line, f) != NULL; n++) fprintf(stderr, "            %s", line);
            fclose(f);
        }
    }
    for (uint32_t i = 0; i < w->nlayers; i++) {
        const struct w_layer *l = &w->l[i];
        fprintf(stderr,
                "  layer slot %u: %s, variant %s, %s%s%s, location %u, library form %u, misbehave 0x%x\n",
                i, w_layer_name(l), world_layer_variant_name(l->variant), l->implicit ? "implicit" : "explicit",
                l->meta ? " meta" : "", l->override_layer ? " override" : "", l->location, l->libform,
                l->misbehave);
        fprintf(stderr, "          manifest %s: %.*s", l->manifest_abs,
                (int)(l->manifest_len > 600 ? 600 : l->manifest_len), l->manifest ? l->manifest : "");
        char path[W_PATH + 16];
        snprintf(path, sizeof path, "%s.calls", l->lib_abs);
        FILE *f = fopen(path, "r");
        if (f == NULL) continue;
        fprintf(stderr, "          call records:\n");
        char line[1024];
        for (int n = 0; n < 40 && fgets(line, sizeof line, f) != NULL; n++) fprintf(stderr, "            %s", line);
        fclose(f);
    }
    for (int i = 0; i < W_ENV_VARS; i++) {
        const char *v = getenv(w_env_names[i]);
        if (v) fprintf(stderr, "  %s=%s\n", w_env_names[i], v);
    }
    const char *v = getenv("VK_ADD_IMPLICIT_LAYER_PATH");
    if (v) fprintf(stderr, "  VK_ADD_IMPLICIT_LAYER_PATH=%s\n", v);
    for (uint32_t i = 0; i < w->nlayers; i++) {
        const char *e = getenv(w->l[i].enable_var), *d = getenv(w->l[i].disable_var);
        if (e) fprintf(stderr, "  %s=%s\n", w->l[i].enable_var, e);
        if (d) fprintf(stderr, "  %s=%s\n", w->l[i].disable_var, d);
    }
    if (w->chain_log) {
        FILE *f = fopen(world_chain_calls_path(), "r");
        if (f != NULL) {
            fprintf(stderr, "  layer records, in global order:\n");
            char line[1024];
            for (int n = 0; n < 120 && fgets(line, sizeof line, f) != NULL; n++) fprintf(stderr, "    %s", line);
            fclose(f);
        }
    }
}

void world_violation(const char *policy, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\n==== %s: POLICY VIOLATION [%s]: ", g_world_fuzzer_name, policy);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    if (g_current) print_world(g_current);
    world_remove_root();
    abort();
}

#define CHECK(cond, ...)                                                                      \
    do {                                                                                      \
        if (!(cond)) world_violation("api", __VA_ARGS__);                                     \
    } while (0)

/* ------------------------------------------------------------------------------------------ */
/* Allocation callbacks: counting, alignment-checking, with failure injection                  */

#define ALLOC_MAGIC 0x766b6c66757a7a21ull
struct alloc_hdr {
    uint64_t magic;
    size_t size;
    size_t offset; /* from the malloc'd block to the user pointer */
    uint64_t pad;
};

static struct {
    long live;
    unsigned calls;
    unsigned fail_at; /* 0 never */
    bool failed;
} g_alloc;

static void *fz_alloc(void *ud, size_t size, size_t align, VkSystemAllocationScope scope) {
    (void)ud;
    CHECK(align != 0 && (align & (align - 1)) == 0, "pfnAllocation with alignment %zu", align);
    CHECK(scope <= VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE, "pfnAllocation with scope %d", (int)scope);
    if (++g_alloc.calls == g_alloc.fail_at) {
        g_alloc.failed = true;
        return NULL;
    }
    if (size == 0) return NULL;
    if (align < sizeof(struct alloc_hdr)) align = sizeof(struct alloc_hdr);
    char *block = malloc(size + align + sizeof(struct alloc_hdr));
    if (block == NULL) return NULL;
    uintptr_t user = ((uintptr_t)block + sizeof(struct alloc_hdr) + align - 1) & ~(uintptr_t)(align - 1);
    struct alloc_hdr *h = (struct alloc_hdr *)(user - sizeof(struct alloc_hdr));
    h->magic = ALLOC_MAGIC;
    h->size = size;
    h->offset = user - (uintptr_t)block;
    g_alloc.live++;
    return (void *)user;
}

static struct alloc_hdr *hdr_of(void *p) {
    struct alloc_hdr *h = (struct alloc_hdr *)((char *)p - sizeof(struct alloc_hdr));
    CHECK(h->magic == ALLOC_MAGIC, "allocation callback given a pointer it never returned");
    return h;
}

static void fz_free(void *ud, void *p) {
    (void)ud;
    if (p == NULL) return;
    struct alloc_hdr *h = hdr_of(p);
    h->magic = 0;
    g_alloc.live--;
    free((char *)p - h->offset);
}

static void *fz_realloc(void *ud, void *orig, size_t size, size_t align, VkSystemAllocationScope scope) {
    if (orig == NULL) return fz_alloc(ud, size, align, scope);
    if (size == 0) {
        fz_free(ud, orig);
        return NULL;
    }
    struct alloc_hdr *h = hdr_of(orig);
    void *n = fz_alloc(ud, size, align, scope);
    if (n == NULL) return NULL;
    memcpy(n, orig, h->size < size ? h->size : size);
    fz_free(ud, orig);
    return n;
}

static const VkAllocationCallbacks k_callbacks = {
    .pUserData = NULL,
    .pfnAllocation = fz_alloc,
    .pfnReallocation = fz_realloc,
    .pfnFree = fz_free,
};

/* ------------------------------------------------------------------------------------------ */
/* Debug callbacks                                                                             */

static unsigned g_messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL utils_cb(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                               VkDebugUtilsMessageTypeFlagsEXT types,
                                               const VkDebugUtilsMessengerCallbackDataEXT *data,
                                               void *ud) {
    (void)types;
    CHECK(ud == (void *)&g_messages, "debug-utils callback with the wrong pUserData");
    CHECK(data != NULL && data->sType == VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT,
          "debug-utils callback data");
    CHECK(data->pMessage != NULL, "debug-utils callback without pMessage");
    CHECK(sev != 0 && (sev & (sev - 1)) == 0, "debug-utils callback severity 0x%x", (unsigned)sev);
    (void)strlen(data->pMessage);
    g_messages++;
    return VK_FALSE;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL report_cb(VkDebugReportFlagsEXT flags, VkDebugReportObjectTypeEXT type,
                                                uint64_t object, size_t location, int32_t code,
                                                const char *prefix, const char *msg, void *ud) {
    (void)flags, (void)type, (void)object, (void)location, (void)code;
    CHECK(ud == (void *)&g_messages, "debug-report callback with the wrong pUserData");
    CHECK(msg != NULL, "debug-report callback without a message");
    (void)strlen(msg);
    if (prefix) (void)strlen(prefix);
    g_messages++;
    return VK_FALSE;
}

/* ------------------------------------------------------------------------------------------ */
/* The application                                                                             */

/* `layer_ext`: an extension name the answer may hold more than once (NULL: none). */
static void check_ext_list(const VkExtensionProperties *p, uint32_t n, const char *layer_ext) {
    for (uint32_t i = 0; i < n; i++) {
        CHECK(memchr(p[i].extensionName, 0, VK_MAX_EXTENSION_NAME_SIZE) != NULL,
              "extension name not NUL-terminated");
        if (layer_ext != NULL && strcmp(p[i].extensionName, layer_ext) == 0) continue;
        for (uint32_t j = 0; j < i; j++)
            CHECK(strcmp(p[i].extensionName, p[j].extensionName) != 0,
                  "extension %s listed twice", p[i].extensionName);
    }
}

/* The extension the mock layers' pre-instance vkEnumerateInstanceExtensionProperties append
 * (world.c), when two or more layers of the world do: each appends it to what the layers below
 * answered, and the loader returns the top layer's answer as it is ([Lyr] pre-instance
 * functions), so the name may come more than once. */
static const char *pre_instance_dup_ext(const struct world *w) {
    unsigned adders = 0;
    for (uint32_t i = 0; i < w->nlayers; i++) adders += w->l[i].pre_instance && w->l[i].pre_add_extension;
    return adders > 1 ? "VK_EXT_fuzz_layer_extension" : NULL;
}

/* Two-call enumeration of instance extensions, optionally with a short array. */
static void enumerate_instance_extensions(const struct world *w) {
    uint32_t n = 0;
    VkResult r = vkEnumerateInstanceExtensionProperties(w->eiep_layer, &n, NULL);
    if (r != VK_SUCCESS) return;
    CHECK(n < 4096, "absurd extension count %u", n);
    uint32_t ask = (w->eiep_short && n > 0) ? n - 1 : n;
    VkExtensionProperties *p = calloc(n + 1, sizeof(*p));
    if (p == NULL) return;
    uint32_t got = ask;
    r = vkEnumerateInstanceExtensionProperties(w->eiep_layer, &got, p);
    CHECK(got <= ask, "vkEnumerateInstanceExtensionProperties wrote %u of %u", got, ask);
    if (r == VK_SUCCESS || r == VK_INCOMPLETE) {
        if (ask < n) CHECK(r == VK_INCOMPLETE, "short array without VK_INCOMPLETE");
        check_ext_list(p, got, w->eiep_layer == NULL ? pre_instance_dup_ext(w) : NULL);
    }
    free(p);
}

/* A mock layer's vkCreateInstance ran: layers may wrap handles or answer NULL for commands they
 * cannot unwrap (mock_layers/README.md), so the exact answers of unknown functions are not checked. */
static bool g_layers_active;

static void call_unknown_physdev(VkInstance inst, VkPhysicalDevice pd, const VkPhysicalDeviceProperties *props,
                                 const struct world *w) {
    if (g_layers_active) return;
    /* device_id encodes (slot << 8) | (index + 1) (world.c); only call what that physical
     * device's driver serves: calling a command its driver lacks is a usage error the loader
     * answers with abort() by design (unknown_func.c). */
    uint32_t slot = props->deviceID >> 8;
    if (props->vendorID != 0x10000u + slot || slot >= w->ndrivers) return;
    const struct w_scenario *sc = &w->d[slot].sc;
    if (sc->misbehave & (1u << 2)) return; /* gpdpa_answers_everything renumbers pool slots */
    /* The loader asks vk_icdGetPhysicalDeviceProcAddr at interface >= 4 only; variants without one
     * (or v7 with it only behind vk_icdGetInstanceProcAddr at a lower interface) cannot serve. */
    struct w_records *rec = oracle_read(w);
    int iface = oracle_slot_interface(rec, slot);
    oracle_free(rec);
    const char *v = world_variant_name(w->d[slot].variant);
    bool exported = (strstr(v, "_gpdpa") != NULL && strstr(v, "nogpdpa") == NULL) ||
                    strstr(v, "_exports") != NULL;
    bool via_gipa = strcmp(v, "v7") == 0 || strcmp(v, "v7_vkexports") == 0;
    if (iface < 4 || !(exported || (via_gipa && iface >= 7))) return;
    for (uint32_t i = 0; i < sc->pd_funcs; i++) {
        char name[64];
        snprintf(name, sizeof name, "vkFuzzPhysDevFunc%u", i);
        bool failed_before = g_alloc.failed;
        PFN_vkVoidFunction f = vkGetInstanceProcAddr(inst, name);
        /* The first lookup of an unknown name copies it into the instance (its slot) through the
         * application's allocator; vkGetInstanceProcAddr has no error code, so an injected
         * allocation failure there legitimately reads NULL. */
        if (f == NULL && g_alloc.failed && !failed_before) return;
        CHECK(f != NULL, "vkGetInstanceProcAddr(%s) is NULL although driver %u serves it", name, slot);
        uint32_t (*fn)(VkPhysicalDevice, uint32_t) = (uint32_t(*)(VkPhysicalDevice, uint32_t))f;
        uint32_t x = 7u + i;
        uint32_t got = fn(pd, x);
        /* physical-device pool slot n returns x + 20000 + n (mock_icd/README.md): the loader's
         * trampoline and terminator must pass the call through to the driver's own function with
         * the driver's handle */
        CHECK(got == x + 20000u + i, "unknown physical-device function %s returned %u, expected %u", name, got,
              x + 20000u + i);
    }
}

static void run_device(const struct world *w, VkInstance inst, VkPhysicalDevice pd,
                       const VkAllocationCallbacks *cb) {
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, NULL);
    CHECK(nq < 1024, "absurd queue family count %u", nq);
    VkQueueFamilyProperties *qf = calloc(nq + 1, sizeof(*qf));
    if (qf == NULL) return;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, qf);

    uint32_t ne = 0;
    if (vkEnumerateDeviceExtensionProperties(pd, NULL, &ne, NULL) == VK_SUCCESS && ne < 4096) {
        VkExtensionProperties *e = calloc(ne + 1, sizeof(*e));
        if (e) {
            VkResult r = vkEnumerateDeviceExtensionProperties(pd, NULL, &ne, e);
            if (r == VK_SUCCESS || r == VK_INCOMPLETE) check_ext_list(e, ne, NULL);
            free(e);
        }
    }
    if (w->devext_with_layer) {
        uint32_t n2 = 0;
        vkEnumerateDeviceExtensionProperties(pd, w->lookup_name, &n2, NULL);
    }
    uint32_t nl = 0;
    vkEnumerateDeviceLayerProperties(pd, &nl, NULL);

    if (!w->create_device) {
        free(qf);
        return;
    }
    float prio[4] = {1.0f, 0.5f, 0.25f, 0.0f};
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = w->queue_family,
        .queueCount = w->queue_count,
        .pQueuePriorities = prio,
    };
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .enabledExtensionCount = w->dev_ext_count,
        .ppEnabledExtensionNames = (const char *const *)w->dev_ext,
    };
    VkDevice dev = VK_NULL_HANDLE;
    VkResult r = vkCreateDevice(pd, &dci, cb, &dev);
    g_world_app.device_attempted = true;
    g_world_app.create_device = r;
    if (r == VK_SUCCESS) {
        CHECK(dev != VK_NULL_HANDLE, "vkCreateDevice succeeded without a device");
        VkQueue q = VK_NULL_HANDLE;
        vkGetDeviceQueue(dev, w->queue_family, 0, &q);
        PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)vkGetDeviceProcAddr(dev, "vkDestroyDevice");
        CHECK(destroy != NULL, "vkGetDeviceProcAddr(vkDestroyDevice) is NULL");
        if (w->lookup_name) (void)vkGetDeviceProcAddr(dev, w->lookup_name);
        (void)vkGetDeviceProcAddr(dev, "vkCreateInstance"); /* must be NULL or harmless */
        (void)vkGetDeviceProcAddr(dev, "vkMockUnknownDeviceFunc0");
        if (w->unknown_device_calls) {
            for (uint32_t i = 0; i < 3; i++) {
                char name[64];
                snprintf(name, sizeof name, "vkFuzzDeviceFunc%u", i);
                PFN_vkVoidFunction f = vkGetDeviceProcAddr(dev, name);
                if (f == NULL) continue;
                uint32_t (*fn)(VkDevice, uint32_t) = (uint32_t(*)(VkDevice, uint32_t))f;
                uint32_t got = fn(dev, 5u + i);
                /* device slot n returns x + 10000 + n (mock_icd/README.md): the loader passes the
                 * call straight to the driver's own function */
                CHECK(g_layers_active || got == 5u + i + 10000u + i, "unknown device function %s returned %u",
                      name, got);
            }
        }
        destroy(dev, cb);
    } else {
        CHECK(dev == VK_NULL_HANDLE || r < 0, "vkCreateDevice failed but returned a device");
    }
    (void)inst;
    free(qf);
}

static void run_instance(const struct world *w, VkInstance inst, const VkAllocationCallbacks *cb) {
    CHECK(vkGetInstanceProcAddr(inst, "vkDestroyInstance") != NULL, "no vkDestroyInstance");
    if (w->lookup_name) (void)vkGetInstanceProcAddr(inst, w->lookup_name);

    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    PFN_vkCreateDebugUtilsMessengerEXT create_m = NULL;
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_m = NULL;
    bool utils_enabled = false;
    for (uint32_t i = 0; i < w->app_ext_count; i++)
        utils_enabled |= w->app_ext[i] && strcmp(w->app_ext[i], "VK_EXT_debug_utils") == 0;
    if (w->app_messenger && utils_enabled) {
        create_m = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkCreateDebugUtilsMessengerEXT");
        destroy_m = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkDestroyDebugUtilsMessengerEXT");
        if (create_m && destroy_m) {
            VkDebugUtilsMessengerCreateInfoEXT mci = {
                .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
                .messageSeverity = w->msg_severity,
                .messageType = w->msg_types,
                .pfnUserCallback = utils_cb,
                .pUserData = &g_messages,
            };
            if (create_m(inst, &mci, cb, &messenger) != VK_SUCCESS) messenger = VK_NULL_HANDLE;
        }
    }

    uint32_t n = 0;
    VkResult r = vkEnumeratePhysicalDevices(inst, &n, NULL);
    VkPhysicalDevice *pds = NULL;
    if (r == VK_SUCCESS && n > 0) {
        CHECK(n < 1024, "absurd physical device count %u", n);
        pds = calloc(n, sizeof(*pds));
        if (pds == NULL) goto out;
        uint32_t ask = (w->pd_short && n > 1) ? n - 1 : n;
        uint32_t got = ask;
        r = vkEnumeratePhysicalDevices(inst, &got, pds);
        CHECK(got <= ask, "vkEnumeratePhysicalDevices wrote %u of %u", got, ask);
        if (r == VK_SUCCESS || r == VK_INCOMPLETE) {
            if (ask < n && r == VK_SUCCESS) CHECK(got == ask, "short array, VK_SUCCESS, %u", got);
            for (uint32_t i = 0; i < got; i++) {
                CHECK(pds[i] != VK_NULL_HANDLE, "NULL physical device");
                for (uint32_t j = 0; j < i; j++) CHECK(pds[i] != pds[j], "physical device listed twice");
            }
            n = got;
        } else {
            n = 0;
        }
    } else {
        n = 0;
    }

    for (uint32_t i = 0; i < n && i < 8; i++) {
        VkPhysicalDeviceProperties props;
        memset(&props, 0, sizeof props);
        vkGetPhysicalDeviceProperties(pds[i], &props);
        CHECK(memchr(props.deviceName, 0, sizeof props.deviceName) != NULL, "deviceName not terminated");
        VkPhysicalDeviceFeatures feats;
        vkGetPhysicalDeviceFeatures(pds[i], &feats);
        VkPhysicalDeviceMemoryProperties mem;
        vkGetPhysicalDeviceMemoryProperties(pds[i], &mem);
        if (w->unknown_physdev_calls) call_unknown_physdev(inst, pds[i], &props, w);
    }

    if (w->enum_groups) {
        bool allowed = w->api_version >= VK_API_VERSION_1_1;
        for (uint32_t i = 0; i < w->app_ext_count && !allowed; i++)
            allowed = w->app_ext[i] && strcmp(w->app_ext[i], "VK_KHR_device_group_creation") == 0;
        PFN_vkEnumeratePhysicalDeviceGroups groups =
            (PFN_vkEnumeratePhysicalDeviceGroups)vkGetInstanceProcAddr(inst, "vkEnumeratePhysicalDeviceGroups");
        if (allowed && groups != NULL) {
            uint32_t ng = 0;
            if (groups(inst, &ng, NULL) == VK_SUCCESS && ng > 0 && ng < 1024) {
                VkPhysicalDeviceGroupProperties *g = calloc(ng, sizeof(*g));
                if (g) {
                    for (uint32_t i = 0; i < ng; i++) g[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
                    uint32_t got = ng;
                    VkResult gr = groups(inst, &got, g);
                    if (gr == VK_SUCCESS || gr == VK_INCOMPLETE) {
                        CHECK(got <= ng, "vkEnumeratePhysicalDeviceGroups wrote %u of %u", got, ng);
                        for (uint32_t i = 0; i < got; i++) {
                            CHECK(g[i].physicalDeviceCount >= 1 &&
                                      g[i].physicalDeviceCount <= VK_MAX_DEVICE_GROUP_SIZE,
                                  "group %u has %u devices", i, g[i].physicalDeviceCount);
                            for (uint32_t k = 0; k < g[i].physicalDeviceCount; k++)
                                CHECK(g[i].physicalDevices[k] != VK_NULL_HANDLE, "NULL device in group");
                        }
                    }
                    free(g);
                }
            }
        }
    }

    if (n > 0) run_device(w, inst, pds[w->pd_choice % n], cb);

out:
    if (messenger != VK_NULL_HANDLE) destroy_m(inst, messenger, cb);
    free(pds);
}

struct world_app_result g_world_app;

static void run_app(const struct world *w) {
    memset(&g_world_app, 0, sizeof g_world_app);
    g_world_app.create_instance = VK_RESULT_MAX_ENUM;
    const VkAllocationCallbacks *cb = w->use_allocator ? &k_callbacks : NULL;
    memset(&g_alloc, 0, sizeof g_alloc);
    g_alloc.fail_at = w->use_allocator ? w->alloc_fail_at : 0;

    enumerate_instance_extensions(w);
    uint32_t v = 0;
    CHECK(vkEnumerateInstanceVersion(&v) == VK_SUCCESS && VK_API_VERSION_MAJOR(v) == 1,
          "vkEnumerateInstanceVersion");
    uint32_t nl = 0;
    vkEnumerateInstanceLayerProperties(&nl, NULL);
    CHECK(vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkCreateInstance") != NULL, "GIPA(NULL, vkCreateInstance)");

    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = g_world_fuzzer_name,
        .applicationVersion = 1,
        .pEngineName = "vkl",
        .engineVersion = 1,
        .apiVersion = w->api_version,
    };
    VkDebugReportCallbackCreateInfoEXT rci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT,
        .flags = 0x1f,
        .pfnCallback = report_cb,
        .pUserData = &g_messages,
    };
    VkDebugUtilsMessengerCreateInfoEXT uci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .pNext = w->dbg_report_pnext ? &rci : NULL,
        .messageSeverity = w->msg_severity,
        .messageType = w->msg_types,
        .pfnUserCallback = utils_cb,
        .pUserData = &g_messages,
    };
    const void *pnext = w->dbg_utils_pnext ? (const void *)&uci : w->dbg_report_pnext ? (const void *)&rci : NULL;
    VkInstanceCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = pnext,
        .flags = w->inst_flags,
        .pApplicationInfo = w->app_info ? &app : NULL,
        .enabledLayerCount = w->app_layer_count,
        .ppEnabledLayerNames = (const char *const *)w->app_layer,
        .enabledExtensionCount = w->app_ext_count,
        .ppEnabledExtensionNames = (const char *const *)w->app_ext,
    };

    struct w_records *before = oracle_read(w);
    VkInstance inst = VK_NULL_HANDLE;
    VkResult r = vkCreateInstance(&ci, cb, &inst);
    g_world_app.create_instance = r;
    struct w_records *after = oracle_read(w);
    bool oom_possible = g_alloc.failed;
    for (uint32_t s = 0; s < w->ndrivers; s++)
        for (uint32_t i = 0; i < w->d[s].sc.inject_count; i++)
            oom_possible |= w->d[s].sc.inject[i].result == VK_ERROR_OUT_OF_HOST_MEMORY;
    g_layers_active = oracle_layer_called(w, after, -1);
    oracle_check_create(w, before, after, r, oom_possible);
    oracle_free(before);
    oracle_free(after);

    if (r == VK_SUCCESS) {
        CHECK(inst != VK_NULL_HANDLE, "vkCreateInstance succeeded without an instance");
        run_instance(w, inst, cb);
        vkDestroyInstance(inst, cb);
    } else {
        CHECK(inst == VK_NULL_HANDLE, "vkCreateInstance failed (%d) but returned an instance", (int)r);
    }
    if (w->use_allocator)
        CHECK(g_alloc.live == 0, "%ld allocations made through the application's callbacks were never "
                                 "freed", g_alloc.live);
}

/* ------------------------------------------------------------------------------------------ */
/* Entry points                                                                                */

/* Sanitizer runtimes call this before they exit on an error (absent without sanitizers). libFuzzer
 * installs its own death callback afterwards, so under libFuzzer a sanitizer crash leaves the world
 * directory in $TMPDIR (oracle violations remove it themselves); the replay and AFL++ drivers keep
 * this one. */
void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static bool g_inited;

int world_fuzz_initialize(int *argc, char ***argv, const char *fuzzer) {
    g_inited = true;
    g_world_fuzzer_name = fuzzer;
    if (!world_init(argc && *argc > 0 ? (*argv)[0] : NULL)) abort();
    if (__sanitizer_set_death_callback != NULL) __sanitizer_set_death_callback(world_remove_root);
    /* Nothing on stderr (the debug callbacks still see every message); VKL_FUZZ_LOG=1 prints. */
    const char *log = getenv("VKL_FUZZ_LOG");
    vkl_log_set_level_for_testing(log && *log == '1' ? VKL_LOG_ALL : 0);
    return 0;
}

int world_fuzz_one(const uint8_t *data, size_t size, world_decode_fn decode, world_check_fn extra) {
    /* libFuzzer calls LLVMFuzzerInitialize; AFL++'s driver and replay_main do too, but be safe */
    if (!g_inited || !world_root()[0]) world_fuzz_initialize(NULL, NULL, g_world_fuzzer_name);
    struct world w;
    decode(data, size, &w);
    g_current = &w;
    world_build(&w);

    g_world_dlopen_attempts = g_world_dlopen_blocked = 0;
    g_world_dlopen_last[0] = '\0';
    g_in_run = true;
    run_app(&w);
    g_in_run = false;

    struct w_records *rec = oracle_read(&w);
    oracle_check_elevated(&w, rec);
    oracle_check_final(&w, rec);
    oracle_check_layers(&w, rec);
    if (extra != NULL) extra(&w, rec);
    oracle_free(rec);

    world_cleanup(&w);
    g_current = NULL;
    world_free(&w);
    return 0;
}
