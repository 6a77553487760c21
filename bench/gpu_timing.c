/*
 * gpu_timing: wall-time measurements on a real GPU (docs/performance.md "On a real GPU"), for any loader.
 *
 *   gpu_timing --loader=PATH --mode=startup
 *       one cold start-up sequence in this process: dlopen the loader, vkCreateInstance,
 *       vkEnumeratePhysicalDevices, vkCreateDevice on the first device, vkDestroyDevice,
 *       vkDestroyInstance. Prints {"mode":"startup","ns":N,...}. Run it as a fresh process per
 *       sample (tools/device/gpu_timing.sh interleaves the loaders).
 *   gpu_timing --loader=PATH --mode=calls [--iters=N]
 *       on a live device: ns per vkGetDeviceProcAddr(device, "vkCmdDraw") (hit) and per miss, and
 *       ns per vkCmdSetLineWidth through the loader's exported trampoline and through the pointer
 *       vkGetDeviceProcAddr returned; medians of 11 batches of N calls each.
 *   gpu_timing --loader=PATH --mode=create [--iters=N]
 *       steady state: ns per vkCreateInstance + vkDestroyInstance pair through the loader, many
 *       pairs in one process (one warm-up pair, then 11 batches of N pairs, default 100); prints the
 *       median batch's ns per pair and the fastest and slowest batch's.
 *   gpu_timing --mode=floor --driver=MANIFEST [--iters=N]
 *       the loader-free floor of the same figure: dlopen the manifest's library_path (relative to the
 *       manifest when it names a directory, else as dlopen finds it), negotiate with
 *       vk_icdNegotiateLoaderICDInterfaceVersion (from 7 down, as a loader does), vkCreateInstance
 *       and vkDestroyInstance from vk_icdGetInstanceProcAddr, then timed exactly as --mode=create.
 *   gpu_timing --loader=PATH --mode=enumerate [--env-file=FILE]
 *       one vkCreateInstance + vkEnumeratePhysicalDevices (count + fill) + vkDestroyInstance after
 *       dlopen (bench/extreme.sh runs it under /usr/bin/time). FILE holds NAME=VALUE lines, set with
 *       setenv before the loader is opened: values longer than execve allows (128 KiB a string,
 *       e.g. XDG_DATA_DIRS with 50,000 entries).
 * Only what the Vulkan API offers is used; the driver is whatever the loader finds (VK_DRIVER_FILES),
 * except in --mode=floor, which is the driver alone.
 */
#include <dlfcn.h>
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

struct cmd_ctx {
    PFN_vkCmdSetLineWidth fn;
    VkCommandBuffer cb;
};

static void cmd_batch(void *c, long iters) {
    struct cmd_ctx *x = c;
    for (long i = 0; i < iters; i++) x->fn(x->cb, 1.0f);
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

static int floor_main(const char *manifest, long iters) {
    char path[4096];
    if (!manifest_library(manifest, path, sizeof(path))) {
        printf("{\"error\":\"no library_path in %s\"}\n", manifest);
        return 1;
    }
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        printf("{\"error\":\"dlopen\",\"detail\":\"%s\"}\n", dlerror());
        return 1;
    }
    PFN_vk_icdNegotiateLoaderICDInterfaceVersion neg;
    PFN_vkGetInstanceProcAddr gipa;
    void *sym = dlsym(lib, "vk_icdNegotiateLoaderICDInterfaceVersion");
    memcpy(&neg, &sym, sizeof(neg));
    sym = dlsym(lib, "vk_icdGetInstanceProcAddr");
    memcpy(&gipa, &sym, sizeof(gipa));
    if (gipa == NULL) return fail("no vk_icdGetInstanceProcAddr", VK_ERROR_INCOMPATIBLE_DRIVER);
    uint32_t version = 7;
    if (neg != NULL && neg(&version) != VK_SUCCESS) return fail("vk_icdNegotiateLoaderICDInterfaceVersion", 0);
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

int main(int argc, char **argv) {
    const char *loader = NULL, *mode = "startup", *driver = NULL, *env_file = NULL;
    long iters = -1;
    static const char usage[] =
        "usage: gpu_timing --loader=PATH [--mode=startup|calls|create|enumerate] [--iters=N] [--env-file=FILE]\n"
        "       gpu_timing --mode=floor --driver=MANIFEST [--iters=N]\n";
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--loader=", 9) == 0)
            loader = argv[i] + 9;
        else if (strncmp(argv[i], "--mode=", 7) == 0)
            mode = argv[i] + 7;
        else if (strncmp(argv[i], "--iters=", 8) == 0)
            iters = strtol(argv[i] + 8, NULL, 10);
        else if (strncmp(argv[i], "--driver=", 9) == 0)
            driver = argv[i] + 9;
        else if (strncmp(argv[i], "--env-file=", 11) == 0)
            env_file = argv[i] + 11;
        else {
            fputs(usage, stderr);
            return 2;
        }
    }
    int create_like = strcmp(mode, "create") == 0 || strcmp(mode, "floor") == 0;
    if (iters < 0) iters = create_like ? 100 : 1000000;
    if (iters == 0 || (strcmp(mode, "floor") == 0 ? driver == NULL : loader == NULL)) {
        fputs(usage, stderr);
        return 2;
    }
    if (strcmp(mode, "floor") == 0) return floor_main(driver, iters);
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
    PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)e.gipa(e.instance, "vkGetDeviceProcAddr");
    struct gdpa_ctx hit = {gdpa, e.device, "vkCmdDraw", NULL}, miss = {gdpa, e.device, "vkNotACommandXYZ", NULL};
    double ns_hit = median_ns_per_call(gdpa_batch, &hit, iters);
    double ns_miss = median_ns_per_call(gdpa_batch, &miss, iters);
    /* A command buffer in the recording state for vkCmdSetLineWidth. */
    PFN_vkCreateCommandPool ccp = (PFN_vkCreateCommandPool)gdpa(e.device, "vkCreateCommandPool");
    PFN_vkAllocateCommandBuffers acb = (PFN_vkAllocateCommandBuffers)gdpa(e.device, "vkAllocateCommandBuffers");
    PFN_vkBeginCommandBuffer bcb = (PFN_vkBeginCommandBuffer)gdpa(e.device, "vkBeginCommandBuffer");
    PFN_vkEndCommandBuffer ecb = (PFN_vkEndCommandBuffer)gdpa(e.device, "vkEndCommandBuffer");
    PFN_vkDestroyCommandPool dcp = (PFN_vkDestroyCommandPool)gdpa(e.device, "vkDestroyCommandPool");
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = 0};
    VkCommandPool pool;
    if (ccp(e.device, &pci, NULL, &pool) != VK_SUCCESS) return fail("vkCreateCommandPool", VK_ERROR_UNKNOWN);
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkCommandBuffer cb;
    if (acb(e.device, &ai, &cb) != VK_SUCCESS) return fail("vkAllocateCommandBuffers", VK_ERROR_UNKNOWN);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bcb(cb, &bi);
    void *sym = dlsym(e.lib, "vkCmdSetLineWidth");
    struct cmd_ctx exported = {NULL, cb}, direct = {(PFN_vkCmdSetLineWidth)gdpa(e.device, "vkCmdSetLineWidth"), cb};
    memcpy(&exported.fn, &sym, sizeof(exported.fn));
    /* Fewer calls: every one records a command into the buffer. */
    long cmd_iters = iters / 10 > 0 ? iters / 10 : 1;
    double ns_tramp = median_ns_per_call(cmd_batch, &exported, cmd_iters);
    double ns_direct = median_ns_per_call(cmd_batch, &direct, cmd_iters);
    ecb(cb);
    dcp(e.device, pool, NULL);
    printf("{\"mode\":\"calls\",\"loader\":\"%s\",\"device\":\"%s\",\"gdpa_hit_ns\":%.2f,\"gdpa_miss_ns\":%.2f,"
           "\"cmd_exported_trampoline_ns\":%.2f,\"cmd_gdpa_pointer_ns\":%.2f}\n",
           loader, e.name, ns_hit, ns_miss, ns_tramp, ns_direct);
    tear_down(&e);
    return 0;
}
