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
#include <errno.h>
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
/* malloc seam (FRAMING.md "mfail", docs/fuzzing.md "Allocation failures")                     */
/*
 * The whole-loader targets link with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,
 * --wrap=strdup,--wrap=strndup: every call the statically linked loader (and the cJSON compiled
 * into it) makes to those functions lands here. The mocks are shared objects (their calls bind to
 * the real functions at run time) and the sanitizer runtimes define the functions themselves, so
 * neither is affected; libFuzzer's own calls pass through because injection is armed only on the
 * harness thread, only while one of the application's loader calls runs, and only in the run that
 * injects. The harness's own allocations made under an armed call (the application's allocation
 * callbacks) use __real_malloc.
 */
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t m);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

static _Thread_local bool t_mf_armed;
static struct {
    const struct world *w; /* the injecting run's world, or NULL: no injection */
    unsigned call;         /* enum w_call of the armed call */
    unsigned count;        /* allocations since the call began */
    bool hit;              /* an allocation failed during the armed call */
    bool alloc_failed_before;
    unsigned total_hits; /* this run */
} g_mf;

static bool mf_fail(void) {
    if (!t_mf_armed || g_mf.w == NULL) return false;
    unsigned k = ++g_mf.count;
    const struct world *w = g_mf.w;
    for (uint32_t i = 0; i < w->mfail_count; i++) {
        if (w->mfail[i].call != WC_ANY && w->mfail[i].call != g_mf.call) continue;
        if (k == w->mfail[i].nth || (w->mfail[i].from_on && k > w->mfail[i].nth)) {
            g_mf.hit = true;
            g_mf.total_hits++;
            errno = ENOMEM;
            return true;
        }
    }
    return false;
}

void *__wrap_malloc(size_t n) { return mf_fail() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t m) { return mf_fail() ? NULL : __real_calloc(n, m); }
void *__wrap_realloc(void *p, size_t n) { return mf_fail() ? NULL : __real_realloc(p, n); }
char *__wrap_strdup(const char *s) { return mf_fail() ? NULL : __real_strdup(s); }
char *__wrap_strndup(const char *s, size_t n) { return mf_fail() ? NULL : __real_strndup(s, n); }

/* ------------------------------------------------------------------------------------------ */
/* Violations                                                                                  */

static const struct world *g_current;

static void print_world(const struct world *w) {
    fprintf(stderr, "world: elevated=%d chdir=%d allocator=%d drivers=%u api=0x%x\n", w->elevated, w->chdir_root,
            w->use_allocator, w->ndrivers, w->api_version);
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        const struct w_driver *d = &w->d[s];
        fprintf(stderr,
                "  slot %u: variant %s, location %u, library form %u, manifest %s (%s)\n"
                "          if %u..%u, misbehave 0x%x, %u injections, %u devices\n",
                s, world_variant_name(d->variant), d->location, d->libform, d->manifest_env,
                d->raw_manifest ? "raw" : "generated", d->sc.if_min, d->sc.if_max, d->sc.misbehave, d->sc.inject_count,
                d->sc.pd_count);
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
        fprintf(stderr, "  layer slot %u: %s, variant %s, %s%s%s, location %u, library form %u, misbehave 0x%x\n", i,
                w_layer_name(l), world_layer_variant_name(l->variant), l->implicit ? "implicit" : "explicit",
                l->meta ? " meta" : "", l->override_layer ? " override" : "", l->location, l->libform, l->misbehave);
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

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) world_violation("api", __VA_ARGS__);                                                              \
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
    char *block = __real_malloc(size + align + sizeof(struct alloc_hdr));
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

/* Around each of the application's loader calls: the malloc ordinals count from here. */
static void mf_begin(unsigned call) {
    g_mf.call = call;
    g_mf.count = 0;
    g_mf.hit = false;
    g_mf.alloc_failed_before = g_alloc.failed;
    t_mf_armed = true;
}
/* Did an allocation fail in the call just made (malloc, or the application's pAllocator)? */
static bool mf_end(void) {
    t_mf_armed = false;
    return g_mf.hit || (g_alloc.failed && !g_mf.alloc_failed_before);
}

/* ------------------------------------------------------------------------------------------ */
/* Observations: what the application saw, per step, to compare a run that injects allocation    */
/* failures with the same world's runs without them                                            */

enum { O_EIEP, O_EIV, O_EILP, O_CREATE, O_EPD, O_GROUPS, O_EDEP, O_CREATE_DEVICE, O_SURFACE, O_COUNT };
static const char *const k_obs_names[O_COUNT] = {"vkEnumerateInstanceExtensionProperties",
                                                 "vkEnumerateInstanceVersion",
                                                 "vkEnumerateInstanceLayerProperties",
                                                 "vkCreateInstance",
                                                 "vkEnumeratePhysicalDevices",
                                                 "vkEnumeratePhysicalDeviceGroups",
                                                 "vkEnumerateDeviceExtensionProperties",
                                                 "vkCreateDevice",
                                                 "surface (create, support queries)"};
struct obs_slot {
    bool ran, injected;
    VkResult r;
    char what[768];
};
struct obs {
    struct obs_slot s[O_COUNT];
};
static struct obs *g_obs; /* the running application's, or NULL */

static struct obs_slot *obs(int o) { return g_obs ? &g_obs->s[o] : NULL; }

static void obs_set(int o, VkResult r, bool injected) {
    struct obs_slot *x = obs(o);
    if (x == NULL) return;
    x->ran = true;
    x->r = r;
    x->injected |= injected;
}

static void obs_add(int o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void obs_add(int o, const char *fmt, ...) {
    struct obs_slot *x = obs(o);
    if (x == NULL) return;
    size_t n = strlen(x->what);
    if (n + 1 >= sizeof x->what) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->what + n, sizeof x->what - n, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------------------------ */
/* Debug callbacks                                                                             */

static unsigned g_messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL utils_cb(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                               VkDebugUtilsMessageTypeFlagsEXT types,
                                               const VkDebugUtilsMessengerCallbackDataEXT *data, void *ud) {
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
                                                uint64_t object, size_t location, int32_t code, const char *prefix,
                                                const char *msg, void *ud) {
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
        CHECK(memchr(p[i].extensionName, 0, VK_MAX_EXTENSION_NAME_SIZE) != NULL, "extension name not NUL-terminated");
        if (layer_ext != NULL && strcmp(p[i].extensionName, layer_ext) == 0) continue;
        for (uint32_t j = 0; j < i; j++)
            CHECK(strcmp(p[i].extensionName, p[j].extensionName) != 0, "extension %s listed twice", p[i].extensionName);
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
    mf_begin(WC_EIEP);
    VkResult r = vkEnumerateInstanceExtensionProperties(w->eiep_layer, &n, NULL);
    bool inj = mf_end();
    if (r != VK_SUCCESS) {
        obs_set(O_EIEP, r, inj);
        return;
    }
    CHECK(n < 4096, "absurd extension count %u", n);
    uint32_t ask = (w->eiep_short && n > 0) ? n - 1 : n;
    VkExtensionProperties *p = calloc(n + 1, sizeof(*p));
    if (p == NULL) return;
    uint32_t got = ask;
    mf_begin(WC_EIEP);
    r = vkEnumerateInstanceExtensionProperties(w->eiep_layer, &got, p);
    inj |= mf_end();
    obs_set(O_EIEP, r, inj);
    CHECK(got <= ask, "vkEnumerateInstanceExtensionProperties wrote %u of %u", got, ask);
    if (r == VK_SUCCESS || r == VK_INCOMPLETE) {
        if (ask < n) CHECK(r == VK_INCOMPLETE, "short array without VK_INCOMPLETE");
        check_ext_list(p, got, w->eiep_layer == NULL ? pre_instance_dup_ext(w) : NULL);
        obs_add(O_EIEP, "%u of %u:", got, n);
        for (uint32_t i = 0; i < got; i++) obs_add(O_EIEP, " %s", p[i].extensionName);
    }
    free(p);
}

static void enumerate_instance_layers(void) {
    uint32_t n = 0;
    mf_begin(WC_EILP);
    VkResult r = vkEnumerateInstanceLayerProperties(&n, NULL);
    bool inj = mf_end();
    if (r != VK_SUCCESS || n == 0 || n > 4096) {
        obs_set(O_EILP, r, inj);
        obs_add(O_EILP, "%u", r == VK_SUCCESS ? n : 0);
        return;
    }
    VkLayerProperties *p = calloc(n, sizeof(*p));
    if (p == NULL) return;
    uint32_t got = n;
    mf_begin(WC_EILP);
    r = vkEnumerateInstanceLayerProperties(&got, p);
    inj |= mf_end();
    obs_set(O_EILP, r, inj);
    CHECK(got <= n, "vkEnumerateInstanceLayerProperties wrote %u of %u", got, n);
    if (r == VK_SUCCESS || r == VK_INCOMPLETE) {
        obs_add(O_EILP, "%u:", got);
        for (uint32_t i = 0; i < got; i++) {
            CHECK(memchr(p[i].layerName, 0, sizeof p[i].layerName) != NULL, "layer name not NUL-terminated");
            obs_add(O_EILP, " %s", p[i].layerName);
        }
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
    const struct vkl_mock_icd_variant *v = world_variant(w->d[slot].variant);
    bool exported = v->gpdpa == VKL_MOCK_ICD_GPDPA_EXPORT;
    bool via_gipa = v->gpdpa == VKL_MOCK_ICD_GPDPA_GIPA;
    if (iface < 4 || !(exported || (via_gipa && iface >= 7))) return;
    for (uint32_t i = 0; i < sc->pd_funcs; i++) {
        char name[64];
        snprintf(name, sizeof name, "vkFuzzPhysDevFunc%u", i);
        mf_begin(WC_GPA);
        PFN_vkVoidFunction f = vkGetInstanceProcAddr(inst, name);
        /* The first lookup of an unknown name copies it into the instance (its slot) through the
         * application's allocator; vkGetInstanceProcAddr has no error code, so an injected
         * allocation failure (pAllocator or malloc) there legitimately reads NULL. */
        if (mf_end() && f == NULL) return;
        CHECK(f != NULL, "vkGetInstanceProcAddr(%s) is NULL although driver %u serves it", name, slot);
        uint32_t (*fn)(VkPhysicalDevice, uint32_t) = (uint32_t(*)(VkPhysicalDevice, uint32_t))f;
        uint32_t x = 7u + i;
        mf_begin(WC_OTHER);
        uint32_t got = fn(pd, x);
        mf_end();
        /* physical-device pool slot n returns x + 20000 + n (mock_icd/README.md): the loader's
         * trampoline and terminator must pass the call through to the driver's own function with
         * the driver's handle */
        CHECK(got == x + 20000u + i, "unknown physical-device function %s returned %u, expected %u", name, got,
              x + 20000u + i);
    }
}

static void run_device(const struct world *w, VkInstance inst, VkPhysicalDevice pd, const VkAllocationCallbacks *cb) {
    uint32_t nq = 0;
    mf_begin(WC_OTHER);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, NULL);
    mf_end();
    CHECK(nq < 1024, "absurd queue family count %u", nq);
    VkQueueFamilyProperties *qf = calloc(nq + 1, sizeof(*qf));
    if (qf == NULL) return;
    mf_begin(WC_OTHER);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, qf);
    mf_end();

    uint32_t ne = 0;
    mf_begin(WC_EDEP);
    VkResult er = vkEnumerateDeviceExtensionProperties(pd, NULL, &ne, NULL);
    bool einj = mf_end();
    if (er == VK_SUCCESS && ne < 4096) {
        VkExtensionProperties *e = calloc(ne + 1, sizeof(*e));
        if (e) {
            mf_begin(WC_EDEP);
            er = vkEnumerateDeviceExtensionProperties(pd, NULL, &ne, e);
            einj |= mf_end();
            if (er == VK_SUCCESS || er == VK_INCOMPLETE) {
                check_ext_list(e, ne, NULL);
                obs_add(O_EDEP, "%u:", ne);
                for (uint32_t i = 0; i < ne; i++) obs_add(O_EDEP, " %s", e[i].extensionName);
            }
            free(e);
        }
    }
    obs_set(O_EDEP, er, einj);
    if (w->devext_with_layer) {
        uint32_t n2 = 0;
        mf_begin(WC_EDEP);
        vkEnumerateDeviceExtensionProperties(pd, w->lookup_name, &n2, NULL);
        mf_end();
    }
    uint32_t nl = 0;
    mf_begin(WC_EDLP);
    vkEnumerateDeviceLayerProperties(pd, &nl, NULL);
    mf_end();

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
    mf_begin(WC_CREATE_DEVICE);
    VkResult r = vkCreateDevice(pd, &dci, cb, &dev);
    obs_set(O_CREATE_DEVICE, r, mf_end());
    g_world_app.device_attempted = true;
    g_world_app.create_device = r;
    if (r == VK_SUCCESS) {
        CHECK(dev != VK_NULL_HANDLE, "vkCreateDevice succeeded without a device");
        VkQueue q = VK_NULL_HANDLE;
        mf_begin(WC_OTHER);
        vkGetDeviceQueue(dev, w->queue_family, 0, &q);
        mf_end();
        mf_begin(WC_GPA);
        PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)vkGetDeviceProcAddr(dev, "vkDestroyDevice");
        CHECK(destroy != NULL, "vkGetDeviceProcAddr(vkDestroyDevice) is NULL");
        if (w->lookup_name) (void)vkGetDeviceProcAddr(dev, w->lookup_name);
        (void)vkGetDeviceProcAddr(dev, "vkCreateInstance"); /* must be NULL or harmless */
        (void)vkGetDeviceProcAddr(dev, "vkMockUnknownDeviceFunc0");
        mf_end();
        if (w->unknown_device_calls) {
            for (uint32_t i = 0; i < 3; i++) {
                char name[64];
                snprintf(name, sizeof name, "vkFuzzDeviceFunc%u", i);
                mf_begin(WC_GPA);
                PFN_vkVoidFunction f = vkGetDeviceProcAddr(dev, name);
                mf_end();
                if (f == NULL) continue;
                uint32_t (*fn)(VkDevice, uint32_t) = (uint32_t(*)(VkDevice, uint32_t))f;
                mf_begin(WC_OTHER);
                uint32_t got = fn(dev, 5u + i);
                mf_end();
                /* device slot n returns x + 10000 + n (mock_icd/README.md): the loader passes the
                 * call straight to the driver's own function */
                CHECK(g_layers_active || got == 5u + i + 10000u + i, "unknown device function %s returned %u", name,
                      got);
            }
        }
        mf_begin(WC_DESTROY_DEVICE);
        destroy(dev, cb);
        mf_end();
    } else {
        CHECK(dev == VK_NULL_HANDLE || r < 0, "vkCreateDevice failed but returned a device");
    }
    (void)inst;
    free(qf);
}

/* VkXcbSurfaceCreateInfoKHR without <xcb/xcb.h>: the loader and the mocks only store the
 * connection and window (never used). */
struct fz_xcb_surface_ci {
    VkStructureType sType;
    const void *pNext;
    VkFlags flags;
    void *connection;
    uint32_t window;
};
typedef VkResult(VKAPI_PTR *fz_pfn_create_xcb)(VkInstance, const struct fz_xcb_surface_ci *,
                                               const VkAllocationCallbacks *, VkSurfaceKHR *);

/* LDP_LOADER_10/11: one surface, queried on every physical device (the oracle reads which handle
 * each driver received, oracle_check_final). */
static void run_surface(const struct world *w, VkInstance inst, const VkPhysicalDevice *pds, uint32_t n,
                        const VkAllocationCallbacks *cb) {
    if (!w->surface) return;
    mf_begin(WC_GPA);
    fz_pfn_create_xcb create = (fz_pfn_create_xcb)vkGetInstanceProcAddr(inst, "vkCreateXcbSurfaceKHR");
    PFN_vkDestroySurfaceKHR destroy = (PFN_vkDestroySurfaceKHR)vkGetInstanceProcAddr(inst, "vkDestroySurfaceKHR");
    PFN_vkGetPhysicalDeviceSurfaceSupportKHR support =
        (PFN_vkGetPhysicalDeviceSurfaceSupportKHR)vkGetInstanceProcAddr(inst, "vkGetPhysicalDeviceSurfaceSupportKHR");
    mf_end();
    if (create == NULL || destroy == NULL || support == NULL) {
        /* a layer that answered vkCreateInstance without calling down leaves those dispatch slots
         * empty, and vkGetInstanceProcAddr then rightly answers NULL (CommandsTheChainLacksAreNull) */
        CHECK(g_layers_active, "VK_KHR_surface and VK_KHR_xcb_surface are enabled but vkGetInstanceProcAddr gives no "
                               "vkCreateXcbSurfaceKHR / vkDestroySurfaceKHR / vkGetPhysicalDeviceSurfaceSupportKHR");
        return;
    }
    struct fz_xcb_surface_ci ci = {
        .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
        .connection = (void *)(uintptr_t)0x5ca1ab1e,
        .window = 42,
    };
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    mf_begin(WC_SURFACE);
    VkResult r = create(inst, &ci, cb, &surface);
    bool inj = mf_end();
    obs_set(O_SURFACE, r, inj);
    if (r != VK_SUCCESS) return;
    CHECK(surface != VK_NULL_HANDLE, "vkCreateXcbSurfaceKHR succeeded without a surface");
    for (uint32_t i = 0; i < n && i < 8; i++) {
        VkBool32 ok = VK_FALSE;
        mf_begin(WC_SURFACE);
        VkResult sr = support(pds[i], 0, surface, &ok);
        bool qinj = mf_end(); /* an injected malloc or pAllocator failure */
        inj |= qinj;
        obs_add(O_SURFACE, " %d/%u", (int)sr, (unsigned)ok);
        g_world_app.surface_result[i] = sr;
        g_world_app.surface_injected[i] = qinj;
    }
    g_world_app.surface_queried = true;
    obs_set(O_SURFACE, r, inj);
    mf_begin(WC_SURFACE);
    destroy(inst, surface, cb);
    mf_end();
}

static void run_instance(const struct world *w, VkInstance inst, const VkAllocationCallbacks *cb) {
    mf_begin(WC_GPA);
    CHECK(vkGetInstanceProcAddr(inst, "vkDestroyInstance") != NULL, "no vkDestroyInstance");
    if (w->lookup_name) (void)vkGetInstanceProcAddr(inst, w->lookup_name);
    mf_end();

    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    PFN_vkCreateDebugUtilsMessengerEXT create_m = NULL;
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_m = NULL;
    bool utils_enabled = false;
    for (uint32_t i = 0; i < w->app_ext_count; i++)
        utils_enabled |= w->app_ext[i] && strcmp(w->app_ext[i], "VK_EXT_debug_utils") == 0;
    if (w->app_messenger && utils_enabled) {
        mf_begin(WC_GPA);
        create_m = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkCreateDebugUtilsMessengerEXT");
        destroy_m = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkDestroyDebugUtilsMessengerEXT");
        mf_end();
        if (create_m && destroy_m) {
            VkDebugUtilsMessengerCreateInfoEXT mci = {
                .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
                .messageSeverity = w->msg_severity,
                .messageType = w->msg_types,
                .pfnUserCallback = utils_cb,
                .pUserData = &g_messages,
            };
            mf_begin(WC_MESSENGER);
            if (create_m(inst, &mci, cb, &messenger) != VK_SUCCESS) messenger = VK_NULL_HANDLE;
            mf_end();
        }
    }

    uint32_t n = 0;
    mf_begin(WC_EPD);
    VkResult r = vkEnumeratePhysicalDevices(inst, &n, NULL);
    bool pinj = mf_end();
    obs_set(O_EPD, r, pinj);
    VkPhysicalDevice *pds = NULL;
    if (r == VK_SUCCESS && n > 0) {
        CHECK(n < 1024, "absurd physical device count %u", n);
        pds = calloc(n, sizeof(*pds));
        if (pds == NULL) goto out;
        uint32_t ask = (w->pd_short && n > 1) ? n - 1 : n;
        uint32_t got = ask;
        mf_begin(WC_EPD);
        r = vkEnumeratePhysicalDevices(inst, &got, pds);
        pinj |= mf_end();
        obs_set(O_EPD, r, pinj);
        obs_add(O_EPD, "%u of %u:", got, n);
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
        mf_begin(WC_OTHER);
        vkGetPhysicalDeviceProperties(pds[i], &props);
        mf_end();
        CHECK(memchr(props.deviceName, 0, sizeof props.deviceName) != NULL, "deviceName not terminated");
        obs_add(O_EPD, " %x:%x", props.vendorID, props.deviceID);
        g_world_app.pd_vendor[i] = props.vendorID;
        g_world_app.pd_device[i] = props.deviceID;
        g_world_app.npd = i + 1;
        VkPhysicalDeviceFeatures feats;
        VkPhysicalDeviceMemoryProperties mem;
        mf_begin(WC_OTHER);
        vkGetPhysicalDeviceFeatures(pds[i], &feats);
        vkGetPhysicalDeviceMemoryProperties(pds[i], &mem);
        mf_end();
        if (w->unknown_physdev_calls) call_unknown_physdev(inst, pds[i], &props, w);
    }

    if (w->enum_groups) {
        bool allowed = w->api_version >= VK_API_VERSION_1_1;
        for (uint32_t i = 0; i < w->app_ext_count && !allowed; i++)
            allowed = w->app_ext[i] && strcmp(w->app_ext[i], "VK_KHR_device_group_creation") == 0;
        mf_begin(WC_GPA);
        PFN_vkEnumeratePhysicalDeviceGroups groups =
            (PFN_vkEnumeratePhysicalDeviceGroups)vkGetInstanceProcAddr(inst, "vkEnumeratePhysicalDeviceGroups");
        mf_end();
        if (allowed && groups != NULL) {
            uint32_t ng = 0;
            mf_begin(WC_GROUPS);
            VkResult gr = groups(inst, &ng, NULL);
            bool ginj = mf_end();
            obs_set(O_GROUPS, gr, ginj);
            obs_add(O_GROUPS, "%u", gr == VK_SUCCESS ? ng : 0);
            if (gr == VK_SUCCESS && ng > 0 && ng < 1024) {
                VkPhysicalDeviceGroupProperties *g = calloc(ng, sizeof(*g));
                if (g) {
                    for (uint32_t i = 0; i < ng; i++) g[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
                    uint32_t got = ng;
                    mf_begin(WC_GROUPS);
                    gr = groups(inst, &got, g);
                    ginj |= mf_end();
                    obs_set(O_GROUPS, gr, ginj);
                    if (gr == VK_SUCCESS || gr == VK_INCOMPLETE) {
                        CHECK(got <= ng, "vkEnumeratePhysicalDeviceGroups wrote %u of %u", got, ng);
                        obs_add(O_GROUPS, " %u:", got);
                        for (uint32_t i = 0; i < got; i++) {
                            obs_add(O_GROUPS, " %u", g[i].physicalDeviceCount);
                            CHECK(g[i].physicalDeviceCount >= 1 && g[i].physicalDeviceCount <= VK_MAX_DEVICE_GROUP_SIZE,
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

    run_surface(w, inst, pds, n, cb);
    if (n > 0) run_device(w, inst, pds[w->pd_choice % n], cb);

out:
    mf_begin(WC_MESSENGER);
    if (messenger != VK_NULL_HANDLE) destroy_m(inst, messenger, cb);
    mf_end();
    free(pds);
}

struct world_app_result g_world_app;

/* `inject`: this run injects the world's allocation failures (pAllocator and malloc); the others
 * of a comparison run none. `o` receives what the application saw (may be NULL). */
static void run_app(const struct world *w, bool inject, struct obs *o) {
    memset(&g_world_app, 0, sizeof g_world_app);
    g_world_app.create_instance = VK_RESULT_MAX_ENUM;
    const VkAllocationCallbacks *cb = w->use_allocator ? &k_callbacks : NULL;
    memset(&g_alloc, 0, sizeof g_alloc);
    g_alloc.fail_at = w->use_allocator && inject ? w->alloc_fail_at : 0;
    memset(&g_mf, 0, sizeof g_mf);
    g_mf.w = inject && w->mfail_count > 0 ? w : NULL;
    g_obs = o;

    enumerate_instance_extensions(w);
    uint32_t v = 0;
    mf_begin(WC_EIV);
    VkResult vr = vkEnumerateInstanceVersion(&v);
    bool vinj = mf_end();
    obs_set(O_EIV, vr, vinj);
    obs_add(O_EIV, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
    CHECK((vr == VK_SUCCESS && VK_API_VERSION_MAJOR(v) == 1) || (vinj && vr == VK_ERROR_OUT_OF_HOST_MEMORY),
          "vkEnumerateInstanceVersion: %d, version %u.%u", (int)vr, VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v));
    enumerate_instance_layers();
    mf_begin(WC_GPA);
    CHECK(vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkCreateInstance") != NULL, "GIPA(NULL, vkCreateInstance)");
    mf_end();

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
    mf_begin(WC_CREATE_INSTANCE);
    VkResult r = vkCreateInstance(&ci, cb, &inst);
    bool cinj = mf_end();
    obs_set(O_CREATE, r, cinj);
    g_world_app.create_instance = r;
    struct w_records *after = oracle_read(w);
    bool oom_possible = g_alloc.failed || cinj;
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
        mf_begin(WC_DESTROY_INSTANCE);
        vkDestroyInstance(inst, cb);
        mf_end();
    } else {
        CHECK(inst == VK_NULL_HANDLE, "vkCreateInstance failed (%d) but returned an instance", (int)r);
    }
    if (w->use_allocator)
        CHECK(g_alloc.live == 0,
              "%ld allocations made through the application's callbacks were never "
              "freed",
              g_alloc.live);
    g_obs = NULL;
    g_mf.w = NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* The allocation-failure oracle (docs/fuzzing.md "Allocation failures")                       */

static void print_obs(const char *what, const struct obs *o) {
    fprintf(stderr, "  %s:\n", what);
    for (int i = 0; i < O_COUNT; i++) {
        const struct obs_slot *x = &o->s[i];
        if (!x->ran) continue;
        fprintf(stderr, "    %s: %d%s %s\n", k_obs_names[i], (int)x->r, x->injected ? " (allocation failed)" : "",
                x->what);
    }
}

static bool same(const struct obs_slot *a, const struct obs_slot *b) {
    return a->ran == b->ran && (!a->ran || (a->r == b->r && strcmp(a->what, b->what) == 0));
}

/* `inj` (the run that injected failures) against `base` (the same world without them): a call that
 * saw a failed allocation returns VK_ERROR_OUT_OF_HOST_MEMORY or what it returns without the
 * failure; every other call returns what it returns without failures (nothing lost on the way); a
 * call the injecting run did not make follows a call that failed. `after` (the next run, without
 * failures, with the loader's caches as the injecting run left them) sees exactly what `base` saw:
 * no failure is remembered. */
static void compare_obs(const struct obs *base, const struct obs *inj, const struct obs *after) {
    /* what depends on what: everything after vkCreateInstance on it; the device steps and the
     * surface on the physical devices */
    bool create_failed = false, epd_failed = false;
    for (int i = 0; i < O_COUNT; i++) {
        const struct obs_slot *b = &base->s[i], *x = &inj->s[i];
        bool earlier_failed =
            (i > O_CREATE && create_failed) || ((i == O_EDEP || i == O_CREATE_DEVICE || i == O_SURFACE) && epd_failed);
        bool bad = false;
        if (b->ran && x->ran) {
            if (x->injected)
                /* once a mock layer ran, a failed allocation of its own (pAllocator) may give the
                 * layer's error code (mock_layers/README.md) */
                bad = x->r != VK_ERROR_OUT_OF_HOST_MEMORY && !same(b, x) && !(g_layers_active && x->r < 0);
            else
                bad = !same(b, x) && !earlier_failed;
        } else if (b->ran != x->ran) {
            bad = !earlier_failed;
        }
        if (bad) {
            print_obs("without allocation failures", base);
            print_obs("with allocation failures", inj);
            world_violation("RULE_INST_ALLOCATOR",
                            "%s %s an allocation failed: %d (%s) where the same world without failures gives %d "
                            "(%s); a call that sees an allocation fail returns VK_ERROR_OUT_OF_HOST_MEMORY or "
                            "loses nothing",
                            k_obs_names[i], x->injected ? "after" : "after an earlier call in which", (int)x->r,
                            x->what, (int)b->r, b->what);
        }
        bool differs = !same(b, x);
        if (i == O_CREATE) create_failed = differs;
        if (i == O_EPD) epd_failed = differs;
    }
    for (int i = 0; i < O_COUNT; i++) {
        if (same(&base->s[i], &after->s[i])) continue;
        print_obs("without allocation failures", base);
        print_obs("with allocation failures", inj);
        print_obs("the next run, without failures", after);
        world_violation("RULE_INST_ALLOCATOR",
                        "after a run in which allocations failed, %s gives %d (%s) where it gave %d (%s) before: "
                        "a failed allocation was remembered (issue 19: a driver or layer lost for the process)",
                        k_obs_names[i], (int)after->s[i].r, after->s[i].what, (int)base->s[i].r, base->s[i].what);
    }
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

    /* With allocation failures: the same world first without them (the baseline), then with fresh
     * caches (world_refresh) the injecting run and its oracles, then once more without failures. */
    bool compare = w.mfail_count > 0 || (w.use_allocator && w.alloc_fail_at != 0);
    static struct obs base, inj, after;
    memset(&base, 0, sizeof base);
    memset(&inj, 0, sizeof inj);
    memset(&after, 0, sizeof after);
    if (compare) {
        run_app(&w, false, &base);
        world_refresh(&w, true);
    }

    g_world_dlopen_attempts = g_world_dlopen_blocked = 0;
    g_world_dlopen_last[0] = '\0';
    g_in_run = true;
    run_app(&w, true, &inj);
    g_in_run = false;

    struct w_records *rec = oracle_read(&w);
    oracle_check_elevated(&w, rec);
    oracle_check_final(&w, rec);
    oracle_check_layers(&w, rec);
    if (extra != NULL) extra(&w, rec);
    oracle_free(rec);

    if (compare) {
        world_refresh(&w, false);
        run_app(&w, false, &after);
        compare_obs(&base, &inj, &after);
    }

    world_cleanup(&w);
    g_current = NULL;
    world_free(&w);
    return 0;
}
