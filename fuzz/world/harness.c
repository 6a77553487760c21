/*
 * The harness shared by the whole-loader fuzz targets (loader_world_fuzzer, layer_chain_fuzzer):
 * the dlopen seam, the malloc seam, violation reports, the application's counting allocation
 * callbacks, the observations of each run and the allocation-failure oracle that compares them,
 * and the per-input driver (world_fuzz_one). The application itself is app.c; app_internal.h is
 * what the two share. Each target brings its decoder and, optionally, extra oracles.
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

#include "fuzz/world/app_internal.h"
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
struct mf_state g_mf;

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

/* ------------------------------------------------------------------------------------------ */
/* Allocation callbacks: counting, alignment-checking, with failure injection                  */

#define ALLOC_MAGIC 0x766b6c66757a7a21ull
struct alloc_hdr {
    uint64_t magic;
    size_t size;
    size_t offset; /* from the malloc'd block to the user pointer */
    uint64_t pad;
};

struct alloc_state g_alloc;

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

const VkAllocationCallbacks k_callbacks = {
    .pUserData = NULL,
    .pfnAllocation = fz_alloc,
    .pfnReallocation = fz_realloc,
    .pfnFree = fz_free,
};

/* Around each of the application's loader calls: the malloc ordinals count from here. */
void mf_begin(unsigned call) {
    g_mf.call = call;
    g_mf.count = 0;
    g_mf.hit = false;
    g_mf.alloc_failed_before = g_alloc.failed;
    t_mf_armed = true;
}
/* Did an allocation fail in the call just made (malloc, or the application's pAllocator)? */
bool mf_end(void) {
    t_mf_armed = false;
    return g_mf.hit || (g_alloc.failed && !g_mf.alloc_failed_before);
}

/* ------------------------------------------------------------------------------------------ */
/* Observations: what the application saw, per step, to compare a run that injects allocation    */
/* failures with the same world's runs without them                                            */

static const char *const k_obs_names[O_COUNT] = {"vkEnumerateInstanceExtensionProperties",
                                                 "vkEnumerateInstanceVersion",
                                                 "vkEnumerateInstanceLayerProperties",
                                                 "vkCreateInstance",
                                                 "vkEnumeratePhysicalDevices",
                                                 "vkEnumeratePhysicalDeviceGroups",
                                                 "vkEnumerateDeviceExtensionProperties",
                                                 "vkCreateDevice",
                                                 "surface (create, support queries)"};
struct obs *g_obs; /* the running application's, or NULL */

static struct obs_slot *obs(int o) { return g_obs ? &g_obs->s[o] : NULL; }

void obs_set(int o, VkResult r, bool injected) {
    struct obs_slot *x = obs(o);
    if (x == NULL) return;
    x->ran = true;
    x->r = r;
    x->injected |= injected;
}

void obs_add(int o, const char *fmt, ...) {
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
                        "a failed allocation was remembered (a driver or layer lost for the process)",
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
