/*
 * gpu_timing: wall-time measurements on a real GPU (docs/performance.md "On a real GPU"), for any loader.
 *
 *   gpu_timing --loader=PATH --mode=startup
 *       one cold start-up sequence in this process: dlopen the loader, vkCreateInstance,
 *       vkEnumeratePhysicalDevices, vkCreateDevice on the first device, vkDestroyDevice,
 *       vkDestroyInstance. Prints {"mode":"startup","ns":N,...}. Run it as a fresh process per
 *       sample (tools/device/gpu_timing.sh interleaves the loaders).
 *   gpu_timing --loader=PATH --mode=calls [--iters=N] [--cpu=N]
 *       on a live device: ns per vkGetDeviceProcAddr(device, "vkCmdDraw") (hit) and per miss (medians
 *       of 11 batches of N calls each), and ns per vkCmdSetLineWidth through the loader's exported
 *       trampoline and through the pointer vkGetDeviceProcAddr returned (41 pairs of alternating
 *       batches of N/10 calls, each into a freshly reset command buffer: the medians of each and of
 *       the paired difference). --cpu pins the timing thread to that CPU after bring-up.
 *   --heap-pad=BYTES (any mode): one heap block of BYTES allocated first and kept (see pad_heap).
 *   gpu_timing --loader=PATH --mode=create [--iters=N]
 *       steady state: ns per vkCreateInstance + vkDestroyInstance pair through the loader, many
 *       pairs in one process (one warm-up pair, then 11 batches of N pairs, default 100); prints the
 *       median batch's ns per pair and the fastest and slowest batch's.
 *   gpu_timing --mode=floor --driver=MANIFEST [--iters=N]
 *       the loader-free floor of the same figure: dlopen the manifest's library_path (relative to the
 *       manifest when it names a directory, else as dlopen finds it), negotiate with
 *       vk_icdNegotiateLoaderICDInterfaceVersion (from 7 down, as a loader does), vkCreateInstance
 *       and vkDestroyInstance from vk_icdGetInstanceProcAddr, then timed exactly as --mode=create.
 *   gpu_timing --mode=floor-parts --driver=MANIFEST [--names-file=FILE] [--iters=N]
 *       what else a loader asks of the driver around one instance, each part timed alone, medians
 *       over N repetitions (default 100): a dlopen + dlclose of the loaded library, the interface
 *       negotiation, vkEnumerateInstanceExtensionProperties (count + fill), vkEnumerateInstanceVersion,
 *       vkCreateInstance, vk_icdGetInstanceProcAddr of every name in FILE (one per line) with the new
 *       instance, vkDestroyInstance.
 *   gpu_timing --loader=PATH --mode=enumerate [--env-file=FILE]
 *       one vkCreateInstance + vkEnumeratePhysicalDevices (count + fill) + vkDestroyInstance after
 *       dlopen (bench/extreme.sh runs it under /usr/bin/time). FILE holds NAME=VALUE lines, set with
 *       setenv before the loader is opened: values longer than execve allows (128 KiB a string,
 *       e.g. XDG_DATA_DIRS with 50,000 entries).
 * Only what the Vulkan API offers is used; the driver is whatever the loader finds (VK_DRIVER_FILES),
 * except in --mode=floor, which is the driver alone.
 */
#include <dlfcn.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vulkan.h>

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : x > y;
}

#define BATCHES 11

struct env {
    void *lib;
    PFN_vkGetInstanceProcAddr gipa;
    VkInstance instance;
    VkPhysicalDevice pd;
    VkDevice device;
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
};

static int fail(const char *what, VkResult r) {
    printf("{\"error\":\"%s\",\"result\":%d}\n", what, (int)r);
    return 1;
}

static int bring_up(const char *loader, struct env *e) {
    memset(e, 0, sizeof(*e));
    e->lib = dlopen(loader, RTLD_NOW | RTLD_LOCAL);
    if (e->lib == NULL) {
        printf("{\"error\":\"dlopen\",\"detail\":\"%s\"}\n", dlerror());
        return 1;
    }
    void *sym = dlsym(e->lib, "vkGetInstanceProcAddr");
    memcpy(&e->gipa, &sym, sizeof(e->gipa));
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)e->gipa(VK_NULL_HANDLE, "vkCreateInstance");
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkResult r = create(&ci, NULL, &e->instance);
    if (r != VK_SUCCESS) return fail("vkCreateInstance", r);
    PFN_vkEnumeratePhysicalDevices enumerate =
        (PFN_vkEnumeratePhysicalDevices)e->gipa(e->instance, "vkEnumeratePhysicalDevices");
    uint32_t n = 1;
    r = enumerate(e->instance, &n, &e->pd);
    if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) return fail("vkEnumeratePhysicalDevices", r);
    PFN_vkGetPhysicalDeviceProperties props =
        (PFN_vkGetPhysicalDeviceProperties)e->gipa(e->instance, "vkGetPhysicalDeviceProperties");
    VkPhysicalDeviceProperties p;
    props(e->pd, &p);
    memcpy(e->name, p.deviceName, sizeof(e->name));
    float prio = 1.0f;
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = 0,
                                 .queueCount = 1,
                                 .pQueuePriorities = &prio};
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &q};
    PFN_vkCreateDevice create_device = (PFN_vkCreateDevice)e->gipa(e->instance, "vkCreateDevice");
    r = create_device(e->pd, &dci, NULL, &e->device);
    if (r != VK_SUCCESS) return fail("vkCreateDevice", r);
    return 0;
}

static void tear_down(struct env *e) {
    PFN_vkDestroyDevice dd = (PFN_vkDestroyDevice)e->gipa(e->instance, "vkDestroyDevice");
    PFN_vkDestroyInstance di = (PFN_vkDestroyInstance)e->gipa(e->instance, "vkDestroyInstance");
    if (e->device != VK_NULL_HANDLE) dd(e->device, NULL);
    if (e->instance != VK_NULL_HANDLE) di(e->instance, NULL);
}

typedef void (*batch_fn)(void *ctx, long iters);

static double median_ns_per_call(batch_fn fn, void *ctx, long iters) {
    long long t[BATCHES];
    fn(ctx, iters / 10); /* warm-up */
    for (int b = 0; b < BATCHES; b++) {
        long long t0 = now_ns();
        fn(ctx, iters);
        t[b] = now_ns() - t0;
    }
    qsort(t, BATCHES, sizeof(t[0]), cmp_ll);
    return (double)t[BATCHES / 2] / (double)iters;
}

struct gdpa_ctx {
    PFN_vkGetDeviceProcAddr gdpa;
    VkDevice device;
    const char *name;
    volatile PFN_vkVoidFunction sink;
};

static void gdpa_batch(void *c, long iters) {
    struct gdpa_ctx *g = c;
    for (long i = 0; i < iters; i++) g->sink = g->gdpa(g->device, g->name);
}

/* The recording cost of one command through two entry points. Each timed batch records into a
 * freshly reset command buffer, so every batch sees the same buffer state, and the two entry points
 * alternate batch by batch (AB, BA, AB, ...): neither inherits a buffer the other grew, nor the
 * machine's drift during the process. The paired difference (exported minus direct, per pair of
 * adjacent batches) is what the loader's trampoline adds in this process. */
#define CMD_PAIRS 41

struct cmd_env {
    VkDevice device;
    PFN_vkCreateCommandPool create_pool;
    PFN_vkAllocateCommandBuffers allocate;
    PFN_vkBeginCommandBuffer begin;
    PFN_vkEndCommandBuffer end;
    PFN_vkResetCommandPool reset_pool;
    PFN_vkDestroyCommandPool destroy_pool;
    PFN_vkCmdSetLineWidth exported, direct;
};

struct cmd_medians {
    double exported, direct, diff;
};

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(double *v, int n) {
    qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
    return v[n / 2];
}

/* One batch: begin, ITERS timed calls, end, reset (only the calls are timed). */
static int cmd_batch(const struct cmd_env *c, VkCommandPool pool, VkCommandBuffer cb, PFN_vkCmdSetLineWidth fn,
                     long iters, double *ns_per_call) {
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    if (c->begin(cb, &bi) != VK_SUCCESS) return 0;
    long long t0 = now_ns();
    for (long i = 0; i < iters; i++) fn(cb, 1.0f);
    long long t = now_ns() - t0;
    if (c->end(cb) != VK_SUCCESS || c->reset_pool(c->device, pool, 0) != VK_SUCCESS) return 0;
    *ns_per_call = (double)t / (double)iters;
    return 1;
}

static int cmd_pairs(const struct cmd_env *c, long iters, struct cmd_medians *out) {
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = 0};
    VkCommandPool pool;
    if (c->exported == NULL || c->direct == NULL || c->create_pool(c->device, &pci, NULL, &pool) != VK_SUCCESS)
        return 0;
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkCommandBuffer cb;
    int ok = c->allocate(c->device, &ai, &cb) == VK_SUCCESS;
    double ex[CMD_PAIRS], di[CMD_PAIRS], diff[CMD_PAIRS], warm;
    /* Warm-up: one batch through each, untimed in the result. */
    ok = ok && cmd_batch(c, pool, cb, c->exported, iters, &warm) && cmd_batch(c, pool, cb, c->direct, iters, &warm);
    for (int i = 0; ok && i < CMD_PAIRS; i++) {
        if (i % 2 == 0)
            ok = cmd_batch(c, pool, cb, c->exported, iters, &ex[i]) && cmd_batch(c, pool, cb, c->direct, iters, &di[i]);
        else
            ok = cmd_batch(c, pool, cb, c->direct, iters, &di[i]) && cmd_batch(c, pool, cb, c->exported, iters, &ex[i]);
        if (ok) diff[i] = ex[i] - di[i];
    }
    c->destroy_pool(c->device, pool, NULL);
    if (!ok) return 0;
    out->exported = median_of(ex, CMD_PAIRS);
    out->direct = median_of(di, CMD_PAIRS);
    out->diff = median_of(diff, CMD_PAIRS);
    return 1;
}

/* ------------------------------------------------------------------ create + destroy, steady state */

struct create_ctx {
    PFN_vkCreateInstance create;
    PFN_vkDestroyInstance destroy; /* NULL: looked up per instance through gipa (the loader's) */
    PFN_vkGetInstanceProcAddr gipa;
    const VkInstanceCreateInfo *ci;
    int failed;
    VkResult result; /* the failing call's result */
    long pair;       /* and which pair it was, counted from 1 over the process */
    long pairs;
};

static void create_batch(void *c, long iters) {
    struct create_ctx *x = c;
    for (long i = 0; i < iters && !x->failed; i++) {
        VkInstance inst = VK_NULL_HANDLE;
        VkResult r = x->create(x->ci, NULL, &inst);
        x->pairs++;
        if (r != VK_SUCCESS) {
            x->failed = 1;
            x->result = r;
            x->pair = x->pairs;
            return;
        }
        x->destroy(inst, NULL);
    }
}

/* Prints the median, fastest and slowest of 11 batches of `iters` pairs, ns per pair. */
static int time_create(const char *mode, const char *who, struct create_ctx *x, long iters) {
    long long t[BATCHES];
    create_batch(x, 1); /* warm-up */
    for (int b = 0; b < BATCHES; b++) {
        long long t0 = now_ns();
        create_batch(x, iters);
        t[b] = now_ns() - t0;
    }
    if (x->failed) {
        printf("{\"error\":\"vkCreateInstance\",\"result\":%d,\"pair\":%ld}\n", (int)x->result, x->pair);
        return 1;
    }
    qsort(t, BATCHES, sizeof(t[0]), cmp_ll);
    printf("{\"mode\":\"%s\",\"loader\":\"%s\",\"iters\":%ld,\"create_destroy_ns\":%.1f,\"batch_min_ns\":%.1f,"
           "\"batch_max_ns\":%.1f}\n",
           mode, who, iters, (double)t[BATCHES / 2] / (double)iters, (double)t[0] / (double)iters,
           (double)t[BATCHES - 1] / (double)iters);
    return 0;
}

static const VkApplicationInfo g_app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_3};
static const VkInstanceCreateInfo g_ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &g_app};

static int create_main(const char *loader, long iters) {
    void *lib = dlopen(loader, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        printf("{\"error\":\"dlopen\",\"detail\":\"%s\"}\n", dlerror());
        return 1;
    }
    struct create_ctx x = {.ci = &g_ci};
    void *sym = dlsym(lib, "vkCreateInstance");
    memcpy(&x.create, &sym, sizeof(x.create));
    sym = dlsym(lib, "vkDestroyInstance");
    memcpy(&x.destroy, &sym, sizeof(x.destroy));
    if (x.create == NULL || x.destroy == NULL) return fail("dlsym", VK_ERROR_INITIALIZATION_FAILED);
    return time_create("create", loader, &x, iters);
}

/* The "library_path" string of a driver manifest, without a JSON parser: the first
 * "library_path" key, then ':' and a string without escapes (what every real manifest holds). */
static int manifest_library(const char *manifest, char *out, size_t cap) {
    FILE *f = fopen(manifest, "r");
    if (f == NULL) return 0;
    static char text[65536];
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    const char *k = strstr(text, "\"library_path\"");
    if (k == NULL) return 0;
    k += strlen("\"library_path\"");
    while (*k == ' ' || *k == '\t' || *k == '\n' || *k == '\r') k++;
    if (*k++ != ':') return 0;
    while (*k == ' ' || *k == '\t' || *k == '\n' || *k == '\r') k++;
    if (*k++ != '"') return 0;
    const char *e = strchr(k, '"');
    if (e == NULL || memchr(k, '\\', (size_t)(e - k)) != NULL) return 0;
    size_t len = (size_t)(e - k);
    /* A path with a directory part but not absolute is relative to the manifest's directory. */
    if (k[0] != '/' && memchr(k, '/', len) != NULL) {
        const char *slash = strrchr(manifest, '/');
        size_t dl = slash ? (size_t)(slash - manifest) + 1 : 0;
        if (dl + len + 1 > cap) return 0;
        memcpy(out, manifest, dl);
        memcpy(out + dl, k, len);
        out[dl + len] = '\0';
        return 1;
    }
    if (len + 1 > cap) return 0;
    memcpy(out, k, len);
    out[len] = '\0';
    return 1;
}

/* The driver alone: the manifest's library opened and its two interface entry points found.
 * Prints the error line and returns 0 when it cannot. */
struct driver_only {
    char path[4096];
    PFN_vk_icdNegotiateLoaderICDInterfaceVersion negotiate; /* NULL: a driver older than interface 2 */
    PFN_vkGetInstanceProcAddr gipa;
};

static int open_driver(const char *manifest, struct driver_only *d) {
    if (!manifest_library(manifest, d->path, sizeof(d->path))) {
        printf("{\"error\":\"no library_path in %s\"}\n", manifest);
        return 0;
    }
    void *lib = dlopen(d->path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        printf("{\"error\":\"dlopen\",\"detail\":\"%s\"}\n", dlerror());
        return 0;
    }
    void *sym = dlsym(lib, "vk_icdNegotiateLoaderICDInterfaceVersion");
    memcpy(&d->negotiate, &sym, sizeof(d->negotiate));
    sym = dlsym(lib, "vk_icdGetInstanceProcAddr");
    memcpy(&d->gipa, &sym, sizeof(d->gipa));
    if (d->gipa == NULL) {
        fail("no vk_icdGetInstanceProcAddr", VK_ERROR_INCOMPATIBLE_DRIVER);
        return 0;
    }
    return 1;
}

static int floor_main(const char *manifest, long iters) {
    struct driver_only d;
    if (!open_driver(manifest, &d)) return 1;
    PFN_vkGetInstanceProcAddr gipa = d.gipa;
    const char *path = d.path;
    uint32_t version = 7;
    if (d.negotiate != NULL && d.negotiate(&version) != VK_SUCCESS)
        return fail("vk_icdNegotiateLoaderICDInterfaceVersion", 0);
    struct create_ctx x = {.ci = &g_ci, .gipa = gipa};
    x.create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    if (x.create == NULL) return fail("no vkCreateInstance", VK_ERROR_INCOMPATIBLE_DRIVER);
    VkInstance inst;
    VkResult r = x.create(&g_ci, NULL, &inst);
    if (r != VK_SUCCESS) return fail("driver vkCreateInstance", r);
    x.destroy = (PFN_vkDestroyInstance)gipa(inst, "vkDestroyInstance");
    if (x.destroy == NULL) return fail("no vkDestroyInstance", VK_ERROR_INCOMPATIBLE_DRIVER);
    x.destroy(inst, NULL);
    fprintf(stderr, "gpu_timing floor: %s, interface version %u\n", path, version);
    return time_create("floor", path, &x, iters);
}

/* What a loader asks of the driver around one instance besides vkCreateInstance and
 * vkDestroyInstance: the --mode=floor-parts breakdown of create + destroy's distance from the floor.
 * Each part is timed on its own in every repetition; the medians over the repetitions are printed. */
enum { PART_REOPEN, PART_NEGOTIATE, PART_EIEP, PART_EIV, PART_CREATE, PART_LOOKUPS, PART_DESTROY, PARTS };
static const char *const part_names[PARTS] = {"reopen_ns", "negotiate_ns", "extensions_ns", "version_ns",
                                              "create_ns", "lookups_ns",   "destroy_ns"};

/* NAMES: one command name per line (gpu_timing.sh passes the instance-level commands our loader
 * looks up in each driver instance, make_bundle.sh's instance_commands.txt). */
static char **read_names(const char *file, int *count) {
    FILE *f = fopen(file, "r");
    if (f == NULL) return NULL;
    char **v = NULL, line[256];
    int n = 0, cap = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0') continue;
        if (n == cap) {
            char **b = realloc(v, sizeof(*v) * (size_t)(cap = cap ? 2 * cap : 128));
            if (b == NULL) break;
            v = b;
        }
        v[n] = strdup(line);
        if (v[n] != NULL) n++;
    }
    fclose(f);
    *count = n;
    return v;
}

static int floor_parts_main(const char *manifest, const char *names_file, long reps) {
    int n_names = 0;
    char **names = names_file != NULL ? read_names(names_file, &n_names) : NULL;
    if (names_file != NULL && names == NULL) return fail("names file", VK_ERROR_INITIALIZATION_FAILED);
    struct driver_only drv;
    if (!open_driver(manifest, &drv)) return 1;
    const char *path = drv.path;
    PFN_vk_icdNegotiateLoaderICDInterfaceVersion neg = drv.negotiate;
    PFN_vkGetInstanceProcAddr gipa = drv.gipa;
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    PFN_vkEnumerateInstanceExtensionProperties eiep =
        (PFN_vkEnumerateInstanceExtensionProperties)gipa(VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties");
    PFN_vkEnumerateInstanceVersion eiv =
        (PFN_vkEnumerateInstanceVersion)gipa(VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
    if (create == NULL || eiep == NULL) return fail("no vkCreateInstance", VK_ERROR_INCOMPATIBLE_DRIVER);
    long long *t = calloc((size_t)PARTS * (size_t)(reps + 1), sizeof(*t));
    if (t == NULL) return fail("calloc", VK_ERROR_OUT_OF_HOST_MEMORY);
    for (long r = 0; r <= reps; r++) { /* repetition 0 warms up and is not counted */
        long long *row = &t[(size_t)r * PARTS], a = now_ns();
        void *again = dlopen(path, RTLD_NOW | RTLD_LOCAL); /* the library is loaded: a reference more */
        if (again != NULL) dlclose(again);
        long long b = now_ns();
        uint32_t version = 7;
        if (neg != NULL) neg(&version);
        long long c = now_ns();
        VkExtensionProperties ext[256];
        uint32_t n = 0;
        eiep(NULL, &n, NULL);
        if (n > 256) n = 256;
        eiep(NULL, &n, ext);
        long long d = now_ns();
        uint32_t api = 0;
        if (eiv != NULL) eiv(&api);
        long long e = now_ns();
        VkInstance inst;
        VkResult res = create(&g_ci, NULL, &inst);
        if (res != VK_SUCCESS) return fail("driver vkCreateInstance", res);
        long long f = now_ns();
        volatile PFN_vkVoidFunction sink = NULL;
        for (int i = 0; i < n_names; i++) sink = gipa(inst, names[i]);
        (void)sink;
        long long g = now_ns();
        PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)gipa(inst, "vkDestroyInstance");
        long long h = now_ns();
        if (destroy != NULL) destroy(inst, NULL);
        long long i = now_ns();
        long long parts[PARTS] = {b - a, c - b, d - c, e - d, f - e, g - f, i - h};
        memcpy(row, parts, sizeof(parts));
    }
    printf("{\"mode\":\"floor-parts\",\"driver\":\"%s\",\"lookups\":%d,\"reps\":%ld", path, n_names, reps);
    long long *col = calloc((size_t)reps, sizeof(*col));
    for (int p = 0; col != NULL && p < PARTS; p++) {
        for (long r = 0; r < reps; r++) col[r] = t[(size_t)(r + 1) * PARTS + (size_t)p];
        qsort(col, (size_t)reps, sizeof(*col), cmp_ll);
        printf(",\"%s\":%lld", part_names[p], col[reps / 2]);
    }
    printf("}\n");
    free(col);
    free(t);
    for (int i = 0; i < n_names; i++) free(names[i]);
    free(names);
    return 0;
}

/* ------------------------------------------------------------------ one enumeration (bench/extreme.sh) */

static int set_env_file(const char *file) {
    FILE *f = fopen(file, "r");
    if (f == NULL) return 0;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t k;
    while (buf != NULL && (k = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += k;
        if (cap - len < 4096) {
            char *b = realloc(buf, cap *= 2);
            if (b == NULL) free(buf);
            buf = b;
        }
    }
    fclose(f);
    if (buf == NULL) return 0;
    buf[len] = '\0';
    for (char *save = NULL, *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (eq == NULL) continue;
        *eq = '\0';
        setenv(line, eq + 1, 1);
    }
    free(buf);
    return 1;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int enumerate_main(const char *loader) {
    long long t0 = now_ns();
    void *lib = dlopen(loader, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        printf("{\"error\":\"dlopen\",\"detail\":\"%s\"}\n", dlerror());
        return 1;
    }
    PFN_vkGetInstanceProcAddr gipa;
    void *sym = dlsym(lib, "vkGetInstanceProcAddr");
    memcpy(&gipa, &sym, sizeof(gipa));
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    VkInstance inst;
    VkResult r = create(&g_ci, NULL, &inst);
    if (r != VK_SUCCESS) return fail("vkCreateInstance", r);
    PFN_vkEnumeratePhysicalDevices epd = (PFN_vkEnumeratePhysicalDevices)gipa(inst, "vkEnumeratePhysicalDevices");
    uint32_t n = 0;
    r = epd(inst, &n, NULL);
    if (r != VK_SUCCESS) return fail("vkEnumeratePhysicalDevices", r);
    VkPhysicalDevice *pds = calloc(n + 1, sizeof(*pds));
    if (pds == NULL) return fail("calloc", VK_ERROR_OUT_OF_HOST_MEMORY);
    r = epd(inst, &n, pds);
    long long t1 = now_ns();
    if (r != VK_SUCCESS) return fail("vkEnumeratePhysicalDevices", r);
    /* How many devices differ (by deviceID), outside the timed part: the "distinct" case of
     * bench/extreme.sh proves with it that the loader had N different devices to sort. */
    PFN_vkGetPhysicalDeviceProperties props =
        (PFN_vkGetPhysicalDeviceProperties)gipa(inst, "vkGetPhysicalDeviceProperties");
    uint32_t *ids = calloc(n + 1, sizeof(*ids)), distinct = 0;
    if (ids == NULL || props == NULL) return fail("calloc", VK_ERROR_OUT_OF_HOST_MEMORY);
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        props(pds[i], &p);
        ids[i] = p.deviceID;
    }
    qsort(ids, n, sizeof(*ids), cmp_u32);
    for (uint32_t i = 0; i < n; i++) distinct += i == 0 || ids[i] != ids[i - 1];
    free(ids);
    free(pds);
    long long t2 = now_ns();
    ((PFN_vkDestroyInstance)gipa(inst, "vkDestroyInstance"))(inst, NULL);
    t1 += now_ns() - t2; /* the destroy counts, the device count above does not */
    printf("{\"mode\":\"enumerate\",\"loader\":\"%s\",\"physical_devices\":%u,\"distinct_device_ids\":%u,"
           "\"ns\":%lld}\n",
           loader, n, distinct, t1 - t0);
    return 0;
}

/* --heap-pad: one allocation of BYTES made before anything else and kept, so that every later heap
 * block (the loader's, the driver's, the command memory a driver mallocs) starts at another offset.
 * Address-space randomisation moves the heap by whole pages only; within a page each loader gets the
 * same layout in every process, and that layout alone moves a driver's own per-command cost by
 * several percent (docs/performance.md, round thirteen). gpu_timing.sh draws one pad per round and
 * gives it to every loader of that round. */
static void *g_heap_pad;

static void pad_heap(size_t bytes) {
    g_heap_pad = malloc(bytes);
    if (g_heap_pad != NULL) memset(g_heap_pad, 0, bytes);
}

/* --cpu: the timing thread alone is pinned, after bring-up, so the driver's own threads (started
 * during vkCreateDevice) keep the whole machine; a process that the scheduler moves between cores,
 * or places beside a busy sibling, is the largest source of spread between processes. */
static int pin_to_cpu(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set) == 0;
}

int main(int argc, char **argv) {
    const char *loader = NULL, *mode = "startup", *driver = NULL, *env_file = NULL, *names_file = NULL;
    long iters = -1;
    long cpu = -1, heap_pad = 0;
    static const char usage[] =
        "usage: gpu_timing --loader=PATH [--mode=startup|calls|create|enumerate] [--iters=N] [--env-file=FILE]\n"
        "                  [--cpu=N] [--heap-pad=BYTES]\n"
        "       gpu_timing --mode=floor --driver=MANIFEST [--iters=N]\n"
        "       gpu_timing --mode=floor-parts --driver=MANIFEST [--names-file=FILE] [--iters=N]\n";
    const struct {
        const char *name;
        const char **text; /* a string option, or */
        long *number;      /* a number option */
    } opts[] = {{"--loader=", &loader, NULL},     {"--mode=", &mode, NULL},
                {"--iters=", NULL, &iters},       {"--driver=", &driver, NULL},
                {"--env-file=", &env_file, NULL}, {"--names-file=", &names_file, NULL},
                {"--heap-pad=", NULL, &heap_pad}, {"--cpu=", NULL, &cpu}};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        size_t o = 0, n = sizeof(opts) / sizeof(opts[0]);
        while (o < n && strncmp(argv[i], opts[o].name, strlen(opts[o].name)) != 0) o++;
        if (o == n) {
            fputs(usage, stderr);
            return 2;
        }
        const char *v = argv[i] + strlen(opts[o].name);
        if (opts[o].text != NULL)
            *opts[o].text = v;
        else
            *opts[o].number = strtol(v, NULL, 10);
    }
    int driver_only = strcmp(mode, "floor") == 0 || strcmp(mode, "floor-parts") == 0;
    int create_like = strcmp(mode, "create") == 0 || driver_only;
    if (iters < 0) iters = create_like ? 100 : 1000000;
    if (iters == 0 || (driver_only ? driver == NULL : loader == NULL)) {
        fputs(usage, stderr);
        return 2;
    }
    if (heap_pad > 0) pad_heap((size_t)heap_pad);
    if (strcmp(mode, "floor") == 0) return floor_main(driver, iters);
    if (strcmp(mode, "floor-parts") == 0) return floor_parts_main(driver, names_file, iters);
    if (env_file != NULL && !set_env_file(env_file)) {
        fprintf(stderr, "gpu_timing: cannot read %s\n", env_file);
        return 2;
    }
    if (strcmp(mode, "create") == 0) return create_main(loader, iters);
    if (strcmp(mode, "enumerate") == 0) return enumerate_main(loader);
    struct env e;
    if (strcmp(mode, "startup") == 0) {
        long long t0 = now_ns();
        if (bring_up(loader, &e) != 0) return 1;
        tear_down(&e);
        long long t1 = now_ns();
        printf("{\"mode\":\"startup\",\"loader\":\"%s\",\"device\":\"%s\",\"ns\":%lld}\n", loader, e.name, t1 - t0);
        return 0;
    }
    if (strcmp(mode, "calls") != 0) return 2;
    if (bring_up(loader, &e) != 0) return 1;
    if (cpu >= 0 && !pin_to_cpu((int)cpu)) return fail("sched_setaffinity", VK_ERROR_UNKNOWN);
    PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)e.gipa(e.instance, "vkGetDeviceProcAddr");
    struct gdpa_ctx hit = {gdpa, e.device, "vkCmdDraw", NULL}, miss = {gdpa, e.device, "vkNotACommandXYZ", NULL};
    double ns_hit = median_ns_per_call(gdpa_batch, &hit, iters);
    double ns_miss = median_ns_per_call(gdpa_batch, &miss, iters);
    /* vkCmdSetLineWidth through the exported trampoline and through the driver's own pointer. */
    struct cmd_env c = {.device = e.device};
    c.create_pool = (PFN_vkCreateCommandPool)gdpa(e.device, "vkCreateCommandPool");
    c.allocate = (PFN_vkAllocateCommandBuffers)gdpa(e.device, "vkAllocateCommandBuffers");
    c.begin = (PFN_vkBeginCommandBuffer)gdpa(e.device, "vkBeginCommandBuffer");
    c.end = (PFN_vkEndCommandBuffer)gdpa(e.device, "vkEndCommandBuffer");
    c.reset_pool = (PFN_vkResetCommandPool)gdpa(e.device, "vkResetCommandPool");
    c.destroy_pool = (PFN_vkDestroyCommandPool)gdpa(e.device, "vkDestroyCommandPool");
    void *sym = dlsym(e.lib, "vkCmdSetLineWidth");
    memcpy(&c.exported, &sym, sizeof(c.exported));
    c.direct = (PFN_vkCmdSetLineWidth)gdpa(e.device, "vkCmdSetLineWidth");
    /* Fewer calls: every one records a command into the buffer. */
    long cmd_iters = iters / 10 > 0 ? iters / 10 : 1;
    struct cmd_medians m;
    if (!cmd_pairs(&c, cmd_iters, &m)) return fail("command buffer", VK_ERROR_UNKNOWN);
    printf("{\"mode\":\"calls\",\"loader\":\"%s\",\"device\":\"%s\",\"gdpa_hit_ns\":%.2f,\"gdpa_miss_ns\":%.2f,"
           "\"cmd_exported_trampoline_ns\":%.2f,\"cmd_gdpa_pointer_ns\":%.2f,\"cmd_paired_diff_ns\":%.2f,\"cpu\":%ld,"
           "\"heap_pad\":%ld}\n",
           loader, e.name, ns_hit, ns_miss, m.exported, m.direct, m.diff, cpu, heap_pad);
    tear_down(&e);
    return 0;
}
