/*
 * vk-loader-harness benchmark: any number of Vulkan loaders side by side, in one run.
 *
 *   bazel run //bench -- [--loader=PATH ...] [--out=DIR] [--reps=N] [--no-callgrind] [--smoke]
 *                        [--scenario=NAME ...]
 *
 * The orchestrator (no --child) builds a sandbox (null-driver copies and their manifests, pass-through
 * layer copies, explicit and implicit layer manifests) and, for every scenario and every loader,
 * runs this program again as a child:
 *   - under `valgrind --tool=callgrind`: every measured block is bracketed by CALLGRIND_ZERO_STATS and
 *     CALLGRIND_DUMP_STATS_AT("key n"); the dump's summary / n is the instruction count per operation
 *     (exact and repeatable; system calls are not instructions of the process, so file I/O shows up
 *     only in wall time);
 *   - natively: each block is timed `reps` times (median, min, max per operation) and heap
 *     allocations are counted (alloc_count.c);
 *   - natively, `reps` fresh processes for the cold start-up sequence (dlopen of the loader to
 *     vkDestroyInstance);
 *   - under `strace -f` (when installed): the system calls of each block, between two marker
 *     writes to descriptor -1 ("VKLBENCH-Z" / "VKLBENCH-D key|n"), per operation;
 *   - once per driver scenario, the loader-free floor: the drivers' own negotiation, then their
 *     vkCreateInstance + vkDestroyInstance called directly (no loader at all); and the start-up
 *     floor, the same process's cold opening, negotiation and first create + destroy of every driver
 *     (the dynamic linker's share of the start-up rows, which no loader can avoid).
 * The scenario "lavapipe (1 real driver)" puts Mesa's lavapipe (a copy of its installed manifest) in
 * place of the null driver and measures the start-up sequence and create + destroy against the same
 * floor; it is skipped, saying why, where lavapipe is not installed.
 * Then it prints one table (first loader / second loader ratio per row), writes it with the raw
 * numbers to --out, and draws start-up cost against the number of manifests with gnuplot.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#include <vulkan/vulkan.h>
#include <vulkan/vk_icd.h>

#include "bench/alloc_count.h"
#include "loader/internal/layer.h"
#include "loader/internal/manifest.h"

#define MAX_LOADERS 4
#define MAX_ROWS 512
#define KHRONOS_DEFAULT "/usr/lib/x86_64-linux-gnu/libvulkan.so.1"

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ================================================================== scenarios */

struct scenario {
    const char *name;
    int drivers;           /* driver manifests (each its own copy of the null driver) */
    int layers;            /* enabled pass-through layers (application list) */
    const char *layer_dir; /* VK_LAYER_PATH, relative to the sandbox, or NULL */
    int implicit;          /* 100 implicit manifests, disabled by BENCH_DISABLE_IMPLICIT=1 */
    int dispatch;          /* measure dispatch and lookups */
    int heavy;             /* fewer callgrind iterations */
    int env_layers;        /* the layers are enabled through VK_INSTANCE_LAYERS, not by the application */
    int threads;           /* wall time only: this many threads at once against one thread (throughput) */
    const char *real_icd;  /* a real driver's manifest instead of the null driver (copied into the
                              sandbox as lavapipe/icd.json); the scenario is skipped when it is absent */
};

/* Mesa's software driver (Debian's mesa-vulkan-drivers): the one real driver every machine can have. */
#define LAVAPIPE_MANIFEST "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
#define LAVAPIPE_SCENARIO "lavapipe (1 real driver)"

static const struct scenario g_scenarios[] = {
    {"1 driver", 1, 0, NULL, 0, 1, 0, 0, 0, NULL},
    {"10 drivers", 10, 0, NULL, 0, 0, 0, 0, 0, NULL},
    {"100 drivers", 100, 0, NULL, 0, 0, 1, 0, 0, NULL},
    {"1000 drivers", 1000, 0, NULL, 0, 0, 1, 0, 0, NULL},
    {"3 layers", 1, 3, "layers", 0, 1, 0, 0, 0, NULL},
    {"10 layers", 1, 10, "layers", 0, 1, 0, 0, 0, NULL},
    {"50 layers", 1, 50, "layers", 0, 0, 1, 0, 0, NULL},
    {"3 layers (VK_INSTANCE_LAYERS)", 1, 3, "layers", 0, 0, 0, 1, 0, NULL},
    {"10 layers (VK_INSTANCE_LAYERS)", 1, 10, "layers", 0, 0, 0, 1, 0, NULL},
    {"100 unused explicit", 1, 0, "explicit100", 0, 0, 0, 0, 0, NULL},
    {"1000 unused explicit", 1, 0, "explicit1000", 0, 0, 1, 0, 0, NULL},
    {"100 implicit disabled", 1, 0, NULL, 1, 0, 0, 0, 0, NULL},
    {LAVAPIPE_SCENARIO, 1, 0, NULL, 0, 0, 0, 0, 0, LAVAPIPE_MANIFEST},
    {"16 threads", 1, 0, NULL, 0, 0, 0, 0, 16, NULL}, /* lavapipe last but one, threads last: --smoke runs them */
};
#define SCENARIO_COUNT (int)(sizeof(g_scenarios) / sizeof(g_scenarios[0]))

/* ================================================================== child: the measurements */

struct ctx {
    int ir;          /* running under callgrind */
    int strace_mode; /* running under strace: marker writes around each block */
    int reps;        /* wall-time repetitions */
    int smoke;
    int count_allocs; /* print heap allocations for the next measurements */
    int count_faults; /* print minor page faults for the next measurements */
    const struct scenario *sc;
    const char *sandbox;
    void *lib;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkCreateInstance create_instance;
    PFN_vkDestroyInstance destroy_instance;
    PFN_vkEnumerateInstanceVersion eiv;
    PFN_vkEnumerateInstanceExtensionProperties eiep;
    PFN_vkEnumerateInstanceLayerProperties eilp;
    char layer_names[50][64];
    const char *layer_ptrs[50];
    VkInstanceCreateInfo ici;
    VkApplicationInfo app;
    /* live objects for dispatch and lookups */
    VkInstance inst;
    VkPhysicalDevice pd;
    VkDevice dev;
    VkCommandBuffer cb;
    PFN_vkGetDeviceProcAddr gdpa;
    PFN_vkGetDeviceProcAddr driver_gdpa;
    PFN_vkCmdDraw draw_tramp, draw_gipa, draw_gdpa, draw_driver;
    PFN_vkCmdSetLineWidth lw_tramp, lw_gipa, lw_gdpa, lw_driver;
};

static void *sym(struct ctx *c, const char *name) {
    void *p = dlsym(c->lib, name);
    if (p == NULL) die("%s: no %s", "loader", name);
    return p;
}

static void check(VkResult r, const char *what) {
    if (r != VK_SUCCESS) die("%s failed: %d", what, (int)r);
}

static void load_loader(struct ctx *c, const char *path) {
    c->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (c->lib == NULL) die("cannot load %s: %s", path, dlerror());
    c->gipa = (PFN_vkGetInstanceProcAddr)sym(c, "vkGetInstanceProcAddr");
    c->create_instance = (PFN_vkCreateInstance)sym(c, "vkCreateInstance");
    c->destroy_instance = (PFN_vkDestroyInstance)sym(c, "vkDestroyInstance");
    c->eiv = (PFN_vkEnumerateInstanceVersion)sym(c, "vkEnumerateInstanceVersion");
    c->eiep = (PFN_vkEnumerateInstanceExtensionProperties)sym(c, "vkEnumerateInstanceExtensionProperties");
    c->eilp = (PFN_vkEnumerateInstanceLayerProperties)sym(c, "vkEnumerateInstanceLayerProperties");
}

static VkDevice make_device(struct ctx *c, VkInstance inst, VkPhysicalDevice *pd_out) {
    PFN_vkEnumeratePhysicalDevices epd = (PFN_vkEnumeratePhysicalDevices)sym(c, "vkEnumeratePhysicalDevices");
    uint32_t n = 0;
    check(epd(inst, &n, NULL), "vkEnumeratePhysicalDevices");
    VkPhysicalDevice pds[1024];
    if (n > 1024) n = 1024;
    check(epd(inst, &n, pds), "vkEnumeratePhysicalDevices");
    if (n == 0) die("no physical devices");
    VkPhysicalDeviceProperties props;
    ((PFN_vkGetPhysicalDeviceProperties)sym(c, "vkGetPhysicalDeviceProperties"))(pds[0], &props);
    uint32_t qn = 0;
    PFN_vkGetPhysicalDeviceQueueFamilyProperties qfp =
        (PFN_vkGetPhysicalDeviceQueueFamilyProperties)sym(c, "vkGetPhysicalDeviceQueueFamilyProperties");
    qfp(pds[0], &qn, NULL);
    VkQueueFamilyProperties qf[4];
    if (qn > 4) qn = 4;
    qfp(pds[0], &qn, qf);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = 0,
                                   .queueCount = 1,
                                   .pQueuePriorities = &prio};
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci};
    VkDevice dev;
    check(((PFN_vkCreateDevice)sym(c, "vkCreateDevice"))(pds[0], &dci, NULL, &dev), "vkCreateDevice");
    VkQueue q;
    ((PFN_vkGetDeviceQueue)sym(c, "vkGetDeviceQueue"))(dev, 0, 0, &q);
    if (pd_out != NULL) *pd_out = pds[0];
    return dev;
}

/* The application start-up sequence, from dlopen of the loader to vkDestroyInstance. */
static void startup_sequence(struct ctx *c, const char *loader) {
    load_loader(c, loader);
    uint32_t v = 0, n = 0;
    check(c->eiv(&v), "vkEnumerateInstanceVersion");
    check(c->eiep(NULL, &n, NULL), "vkEnumerateInstanceExtensionProperties");
    VkExtensionProperties ext[64];
    if (n > 64) n = 64;
    VkResult r = c->eiep(NULL, &n, ext);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) die("vkEnumerateInstanceExtensionProperties: %d", (int)r);
    check(c->eilp(&n, NULL), "vkEnumerateInstanceLayerProperties");
    VkLayerProperties *lp = calloc(n + 1, sizeof(*lp));
    r = c->eilp(&n, lp);
    free(lp);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) die("vkEnumerateInstanceLayerProperties: %d", (int)r);
    VkInstance inst;
    check(c->create_instance(&c->ici, NULL, &inst), "vkCreateInstance");
    VkDevice dev = make_device(c, inst, NULL);
    PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)sym(c, "vkGetDeviceProcAddr");
    static const char *const names[] = {"vkCmdDraw",           "vkCmdSetLineWidth",
                                        "vkCreateCommandPool", "vkAllocateCommandBuffers",
                                        "vkQueueSubmit",       "vkCreateBuffer"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) (void)gdpa(dev, names[i]);
    ((PFN_vkDestroyDevice)gdpa(dev, "vkDestroyDevice"))(dev, NULL);
    c->destroy_instance(inst, NULL);
}

typedef void (*op_fn)(struct ctx *c, long n);

/* A system call the strace parent sees and the child ignores (EBADF): the block boundaries. */
static void sc_marker(const char *text) {
    if (write(-1, text, strlen(text)) < 0) errno = 0;
}

/* One measurement: instructions (callgrind) or wall time + allocations (native). */
static void measure(struct ctx *c, const char *key, op_fn fn, long n_ir, long n_time) {
    if (c->smoke) {
        n_ir = n_ir > 1 ? 1 : n_ir;
        n_time = n_time > 10 ? 10 : n_time;
    }
    fn(c, 1); /* warm: caches, lazy binding, first-use allocations */
    if (c->strace_mode) {
        char desc[200];
        sc_marker("VKLBENCH-Z");
        fn(c, n_ir);
        snprintf(desc, sizeof(desc), "VKLBENCH-D %s|%ld", key, n_ir);
        sc_marker(desc);
        return;
    }
    if (c->ir) {
        char desc[160];
        snprintf(desc, sizeof(desc), "%s|%ld", key, n_ir);
        CALLGRIND_ZERO_STATS;
        fn(c, n_ir);
        CALLGRIND_DUMP_STATS_AT(desc);
        return;
    }
    uint64_t a0 = bench_alloc_count();
    fn(c, 1);
    uint64_t allocs = bench_alloc_count() - a0;
    double t[64];
    int reps = c->reps > 64 ? 64 : c->reps;
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    for (int i = 0; i < reps; i++) {
        double t0 = now_ns();
        fn(c, n_time);
        t[i] = (now_ns() - t0) / (double)n_time;
    }
    getrusage(RUSAGE_SELF, &ru1);
    qsort(t, (size_t)reps, sizeof(t[0]), cmp_double);
    printf("TIME\t%s\t%.3f\t%.3f\t%.3f\n", key, t[reps / 2], t[0], t[reps - 1]);
    /* Minor page faults per operation over the timed runs: memory the heap gave back to the kernel
     * and takes again (issue 18: "the heap grows and is trimmed on every pair"). */
    if (c->count_faults)
        printf("PLAIN\tminor page faults: %s\t%.2f\n", key,
               (double)(ru1.ru_minflt - ru0.ru_minflt) / ((double)reps * (double)n_time));
    if (bench_alloc_counting() && c->count_allocs) printf("ALLOCS\t%s\t%llu\n", key, (unsigned long long)allocs);
}

static void op_create_destroy(struct ctx *c, long n) {
    for (long i = 0; i < n; i++) {
        VkInstance inst;
        check(c->create_instance(&c->ici, NULL, &inst), "vkCreateInstance");
        c->destroy_instance(inst, NULL);
    }
}
static void op_eiv(struct ctx *c, long n) {
    for (long i = 0; i < n; i++) {
        uint32_t v;
        check(c->eiv(&v), "vkEnumerateInstanceVersion");
    }
}
static void op_eiep(struct ctx *c, long n) {
    for (long i = 0; i < n; i++) {
        VkExtensionProperties e[64];
        uint32_t k = 0;
        check(c->eiep(NULL, &k, NULL), "vkEnumerateInstanceExtensionProperties");
        if (k > 64) k = 64;
        VkResult r = c->eiep(NULL, &k, e);
        if (r != VK_SUCCESS && r != VK_INCOMPLETE) die("vkEnumerateInstanceExtensionProperties");
    }
}
static void op_eilp(struct ctx *c, long n) {
    static VkLayerProperties lp[256];
    for (long i = 0; i < n; i++) {
        uint32_t k = 0;
        check(c->eilp(&k, NULL), "vkEnumerateInstanceLayerProperties");
        if (k > 256) k = 256;
        VkResult r = c->eilp(&k, lp);
        if (r != VK_SUCCESS && r != VK_INCOMPLETE) die("vkEnumerateInstanceLayerProperties");
    }
}
static void op_epd(struct ctx *c, long n) {
    PFN_vkEnumeratePhysicalDevices epd = (PFN_vkEnumeratePhysicalDevices)sym(c, "vkEnumeratePhysicalDevices");
    for (long i = 0; i < n; i++) {
        VkPhysicalDevice pds[1024];
        uint32_t k = 0;
        check(epd(c->inst, &k, NULL), "vkEnumeratePhysicalDevices");
        if (k > 1024) k = 1024;
        check(epd(c->inst, &k, pds), "vkEnumeratePhysicalDevices");
    }
}

#define DISPATCH_OP(name, fnp, call)                                                                                   \
    static void name(struct ctx *c, long n) {                                                                          \
        __typeof__(c->fnp) volatile f = c->fnp;                                                                        \
        for (long i = 0; i < n; i++) call;                                                                             \
    }
DISPATCH_OP(op_draw_tramp, draw_tramp, f(c->cb, 3, 1, 0, 0))
DISPATCH_OP(op_draw_gipa, draw_gipa, f(c->cb, 3, 1, 0, 0))
DISPATCH_OP(op_draw_gdpa, draw_gdpa, f(c->cb, 3, 1, 0, 0))
DISPATCH_OP(op_draw_driver, draw_driver, f(c->cb, 3, 1, 0, 0))
DISPATCH_OP(op_lw_tramp, lw_tramp, f(c->cb, 1.0f))
DISPATCH_OP(op_lw_gipa, lw_gipa, f(c->cb, 1.0f))
DISPATCH_OP(op_lw_gdpa, lw_gdpa, f(c->cb, 1.0f))
DISPATCH_OP(op_lw_driver, lw_driver, f(c->cb, 1.0f))

static const char *const g_gipa_hits[] = {"vkCmdDraw",
                                          "vkCreateDevice",
                                          "vkEnumeratePhysicalDevices",
                                          "vkGetPhysicalDeviceProperties",
                                          "vkQueueSubmit",
                                          "vkCreateBuffer",
                                          "vkCmdBindPipeline",
                                          "vkDestroyInstance",
                                          "vkGetPhysicalDeviceQueueFamilyProperties",
                                          "vkCmdSetLineWidth"};
#define GIPA_HITS (long)(sizeof(g_gipa_hits) / sizeof(g_gipa_hits[0]))
/* Device commands the null driver implements (so a hit is a hit all the way down). */
static const char *const g_gdpa_hits[] = {"vkCmdDraw",
                                          "vkCmdSetLineWidth",
                                          "vkCreateCommandPool",
                                          "vkDestroyCommandPool",
                                          "vkFreeCommandBuffers",
                                          "vkAllocateCommandBuffers",
                                          "vkGetDeviceQueue",
                                          "vkDestroyDevice"};
#define GDPA_HITS (long)(sizeof(g_gdpa_hits) / sizeof(g_gdpa_hits[0]))
static const char *const g_miss = "vkGetNotARealCommandEXT";

static void op_gipa_hit(struct ctx *c, long n) {
    for (long i = 0; i < n; i++)
        for (long k = 0; k < GIPA_HITS; k++)
            if (c->gipa(c->inst, g_gipa_hits[k]) == NULL) die("GIPA %s", g_gipa_hits[k]);
}
/* The same loop around a stand-in that returns at once: what op_gipa_hit costs besides the loader. */
static PFN_vkVoidFunction VKAPI_CALL stand_in_gipa(VkInstance instance, const char *name) {
    (void)instance;
    return (PFN_vkVoidFunction)(uintptr_t)name[0];
}
static void op_gipa_loop(struct ctx *c, long n) {
    PFN_vkGetInstanceProcAddr volatile f = stand_in_gipa;
    for (long i = 0; i < n; i++)
        for (long k = 0; k < GIPA_HITS; k++)
            if (f(c->inst, g_gipa_hits[k]) == NULL) die("stand-in %s", g_gipa_hits[k]);
}
static void op_gipa_miss(struct ctx *c, long n) {
    for (long i = 0; i < n * GIPA_HITS; i++)
        if (c->gipa(VK_NULL_HANDLE, g_miss) != NULL) die("GIPA miss");
}
static void op_gdpa_hit(struct ctx *c, long n) {
    for (long i = 0; i < n; i++)
        for (long k = 0; k < GDPA_HITS; k++)
            if (c->gdpa(c->dev, g_gdpa_hits[k]) == NULL) die("GDPA %s", g_gdpa_hits[k]);
}
static void op_gdpa_driver(struct ctx *c, long n) {
    for (long i = 0; i < n; i++)
        for (long k = 0; k < GDPA_HITS; k++)
            if (c->driver_gdpa(c->dev, g_gdpa_hits[k]) == NULL) die("driver GDPA %s", g_gdpa_hits[k]);
}
static void op_gdpa_miss(struct ctx *c, long n) {
    for (long i = 0; i < n * GDPA_HITS; i++)
        if (c->gdpa(c->dev, g_miss) != NULL) die("GDPA miss");
}

static void setup_dispatch(struct ctx *c) {
    check(c->create_instance(&c->ici, NULL, &c->inst), "vkCreateInstance");
    c->dev = make_device(c, c->inst, &c->pd);
    c->gdpa = (PFN_vkGetDeviceProcAddr)sym(c, "vkGetDeviceProcAddr");
    PFN_vkCreateCommandPool ccp = (PFN_vkCreateCommandPool)c->gdpa(c->dev, "vkCreateCommandPool");
    PFN_vkAllocateCommandBuffers acb = (PFN_vkAllocateCommandBuffers)sym(c, "vkAllocateCommandBuffers");
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    VkCommandPool pool;
    check(ccp(c->dev, &pci, NULL, &pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    check(acb(c->dev, &ai, &c->cb), "vkAllocateCommandBuffers");
    c->draw_tramp = (PFN_vkCmdDraw)sym(c, "vkCmdDraw");
    c->lw_tramp = (PFN_vkCmdSetLineWidth)sym(c, "vkCmdSetLineWidth");
    c->draw_gipa = (PFN_vkCmdDraw)c->gipa(c->inst, "vkCmdDraw");
    c->lw_gipa = (PFN_vkCmdSetLineWidth)c->gipa(c->inst, "vkCmdSetLineWidth");
    c->draw_gdpa = (PFN_vkCmdDraw)c->gdpa(c->dev, "vkCmdDraw");
    c->lw_gdpa = (PFN_vkCmdSetLineWidth)c->gdpa(c->dev, "vkCmdSetLineWidth");
    /* The floor: the driver's own functions, from the driver library the loader opened. */
    char path[4096];
    snprintf(path, sizeof(path), "%s/drivers/libbench_null_icd_0.so", c->sandbox);
    void *drv = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (drv == NULL) die("driver %s is not loaded", path);
    PFN_vkGetInstanceProcAddr dgipa = (PFN_vkGetInstanceProcAddr)dlsym(drv, "vk_icdGetInstanceProcAddr");
    c->driver_gdpa = (PFN_vkGetDeviceProcAddr)dgipa(VK_NULL_HANDLE, "vkGetDeviceProcAddr");
    c->draw_driver = (PFN_vkCmdDraw)c->driver_gdpa(c->dev, "vkCmdDraw");
    c->lw_driver = (PFN_vkCmdSetLineWidth)c->driver_gdpa(c->dev, "vkCmdSetLineWidth");
    if (!c->draw_gipa || !c->draw_gdpa || !c->draw_driver || !c->lw_gipa || !c->lw_gdpa || !c->lw_driver)
        die("dispatch pointers missing");
    printf("INFO\tgdpa_returns_driver_function\t%d\n", c->draw_gdpa == c->draw_driver && c->lw_gdpa == c->lw_driver);
}

/* Manifest parse throughput on the buffer API (our parsers only; the Khronos loader has none). */
static void op_parse_icd(struct ctx *c, long n);
static void op_parse_layer(struct ctx *c, long n);
static char g_icd_json[4096], g_layer_json[16384];
static size_t g_icd_len, g_layer_len;

static void op_parse_icd(struct ctx *c, long n) {
    (void)c;
    for (long i = 0; i < n; i++) {
        struct vkl_icd_manifest m;
        if (vkl_icd_manifest_parse("/bench/icd.json", g_icd_json, g_icd_len, NULL, &m) != VK_SUCCESS) die("parse");
        vkl_icd_manifest_finish(&m);
    }
}
static void op_parse_layer(struct ctx *c, long n) {
    (void)c;
    for (long i = 0; i < n; i++) {
        struct vkl_layer_manifest_file f;
        if (vkl_layer_manifest_parse("/bench/layer.json", g_layer_json, g_layer_len, true, NULL, &f) != VK_SUCCESS)
            die("parse");
        vkl_layer_manifest_file_finish(&f);
    }
}

static void parse_inputs(void) {
    g_icd_len = (size_t)snprintf(g_icd_json, sizeof(g_icd_json),
                                 "{\n  \"file_format_version\": \"1.0.1\",\n  \"ICD\": {\n"
                                 "    \"library_path\": \"/usr/lib/x86_64-linux-gnu/libvulkan_radeon.so\",\n"
                                 "    \"api_version\": \"1.3.255\",\n    \"library_arch\": \"64\",\n"
                                 "    \"is_portability_driver\": false\n  }\n}\n");
    size_t o = (size_t)snprintf(g_layer_json, sizeof(g_layer_json),
                                "{\n  \"file_format_version\": \"1.2.0\",\n  \"layer\": {\n"
                                "    \"name\": \"VK_LAYER_BENCH_parse\",\n    \"type\": \"GLOBAL\",\n"
                                "    \"library_path\": \"libVkLayer_bench.so\",\n    \"api_version\": \"1.3.239\",\n"
                                "    \"implementation_version\": \"1\",\n"
                                "    \"description\": \"a layer manifest of typical size\",\n"
                                "    \"functions\": {\"vkGetInstanceProcAddr\": \"bench_GIPA\", "
                                "\"vkGetDeviceProcAddr\": \"bench_GDPA\"},\n"
                                "    \"instance_extensions\": [\n");
    for (int i = 0; i < 12; i++)
        o += (size_t)snprintf(g_layer_json + o, sizeof(g_layer_json) - o,
                              "      {\"name\": \"VK_EXT_bench_instance_extension_%d\", \"spec_version\": \"%d\"}%s\n",
                              i, i + 1, i < 11 ? "," : "");
    o += (size_t)snprintf(g_layer_json + o, sizeof(g_layer_json) - o, "    ],\n    \"device_extensions\": [\n");
    for (int i = 0; i < 24; i++)
        o += (size_t)snprintf(g_layer_json + o, sizeof(g_layer_json) - o,
                              "      {\"name\": \"VK_EXT_bench_device_extension_%d\", \"spec_version\": \"%d\", "
                              "\"entrypoints\": [\"vkCmdBenchThing%dEXT\", \"vkBenchOther%dEXT\"]}%s\n",
                              i, i + 1, i, i, i < 23 ? "," : "");
    o += (size_t)snprintf(g_layer_json + o, sizeof(g_layer_json) - o,
                          "    ],\n    \"enable_environment\": {\"ENABLE_BENCH\": \"1\"},\n"
                          "    \"disable_environment\": {\"DISABLE_BENCH\": \"1\"}\n  }\n}\n");
    g_layer_len = o;
}

/* The library of the real driver scenario's manifest (the sandbox's copy), resolved by our
 * manifest parser as the loader resolves it. */
static void real_icd_library(const char *sandbox, char *out, size_t cap) {
    char path[4200];
    static char buf[65536];
    snprintf(path, sizeof(path), "%s/lavapipe/icd.json", sandbox);
    FILE *f = fopen(path, "r");
    if (f == NULL) die("floor: cannot read %s", path);
    size_t len = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    struct vkl_icd_manifest m;
    if (vkl_icd_manifest_parse(path, buf, len, NULL, &m) != VK_SUCCESS) die("floor: cannot parse %s", path);
    snprintf(out, cap, "%s", m.library_path);
    vkl_icd_manifest_finish(&m);
}

/* The loader-free floor: what create + destroy costs the scenario's drivers themselves. Each
 * driver library (its own copy, as the loaders see them) is opened and negotiated once, as a
 * loader does; the measured operation calls every driver's vkCreateInstance and vkDestroyInstance
 * directly. */
#define FLOOR_MAX 1000
#define FLOOR_STARTUP                                                                                                  \
    "loader-free floor: start-up (cold process; each driver dlopen'ed, negotiated, created + destroyed)"
static struct {
    PFN_vkCreateInstance create;
    PFN_vkDestroyInstance destroy;
} g_floor[FLOOR_MAX];
static int g_floor_n;

static void op_floor(struct ctx *c, long n) {
    for (long i = 0; i < n; i++)
        for (int k = 0; k < g_floor_n; k++) {
            VkInstance inst;
            check(g_floor[k].create(&c->ici, NULL, &inst), "driver vkCreateInstance");
            g_floor[k].destroy(inst, NULL);
        }
}

static int floor_main(struct ctx *c) {
    VkInstanceCreateInfo ci = c->ici;
    ci.enabledLayerCount = 0;
    ci.ppEnabledLayerNames = NULL;
    c->ici = ci;
    g_floor_n = c->sc->drivers < FLOOR_MAX ? c->sc->drivers : FLOOR_MAX;
    /* The start-up floor (cold process, nothing loaded yet): what opening, negotiating and one
     * create + destroy of every driver cost without a loader. Its growth from 100 to 1,000 drivers
     * is the dynamic linker's (each dlopen compares its name with every library loaded), which no
     * loader can avoid: the "start-up sequence (cold process)" rows minus this one are the loader's. */
    if (c->ir) CALLGRIND_ZERO_STATS;
    double t0 = now_ns();
    for (int k = 0; k < g_floor_n; k++) {
        char p[4200];
        snprintf(p, sizeof(p), "%s/drivers/libbench_null_icd_%d.so", c->sandbox, k);
        if (c->sc->real_icd != NULL) real_icd_library(c->sandbox, p, sizeof(p));
        void *lib = dlopen(p, RTLD_NOW | RTLD_LOCAL);
        if (lib == NULL) die("floor: cannot load %s: %s", p, dlerror());
        PFN_vk_icdNegotiateLoaderICDInterfaceVersion neg =
            (PFN_vk_icdNegotiateLoaderICDInterfaceVersion)dlsym(lib, "vk_icdNegotiateLoaderICDInterfaceVersion");
        PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vk_icdGetInstanceProcAddr");
        if (neg == NULL || gipa == NULL) die("floor: %s is no interface-7 driver", p);
        uint32_t v = 7; /* as a loader does: from the newest interface down to the driver's */
        check(neg(&v), "vk_icdNegotiateLoaderICDInterfaceVersion");
        g_floor[k].create = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
        VkInstance inst;
        check(g_floor[k].create(&c->ici, NULL, &inst), "driver vkCreateInstance");
        g_floor[k].destroy = (PFN_vkDestroyInstance)gipa(inst, "vkDestroyInstance");
        if (g_floor[k].destroy == NULL) die("floor: no vkDestroyInstance");
        g_floor[k].destroy(inst, NULL);
    }
    double cold = now_ns() - t0;
    if (c->ir)
        CALLGRIND_DUMP_STATS_AT(FLOOR_STARTUP "|1");
    else
        printf("TIME\t%s\t%.3f\t%.3f\t%.3f\n", FLOOR_STARTUP, cold, cold, cold);
    c->count_allocs = 1;
    measure(c, "loader-free floor: each driver's vkCreateInstance + vkDestroyInstance, called directly", op_floor,
            c->sc->heavy ? 1 : 3, c->sc->heavy ? 5 : 50);
    return 0;
}

/* Many threads at once (issue 18): every thread runs the same operation `per_thread` times; the
 * figure is the wall time per operation over all threads, so the throughput ratio against one
 * thread is t(1) / t(N) (the machine's core count bounds it; a lock that serializes the operation
 * holds it at or below 1). */
struct thread_job {
    struct ctx *c;
    op_fn fn;
    long per_thread;
    pthread_barrier_t *start;
};

static void *thread_run(void *arg) {
    struct thread_job *j = arg;
    pthread_barrier_wait(j->start);
    j->fn(j->c, j->per_thread);
    return NULL;
}

/* Wall nanoseconds for `nthreads` threads running fn(c, per_thread) at once (start on a barrier). */
static double run_threads(struct ctx *c, op_fn fn, int nthreads, long per_thread) {
    pthread_t tid[64];
    struct thread_job jobs[64];
    pthread_barrier_t start;
    if (nthreads > 64) nthreads = 64;
    pthread_barrier_init(&start, NULL, (unsigned)nthreads + 1);
    for (int i = 0; i < nthreads; i++) {
        jobs[i] = (struct thread_job){c, fn, per_thread, &start};
        if (pthread_create(&tid[i], NULL, thread_run, &jobs[i]) != 0) die("pthread_create");
    }
    double t0 = now_ns();
    pthread_barrier_wait(&start);
    for (int i = 0; i < nthreads; i++) pthread_join(tid[i], NULL);
    double t = now_ns() - t0;
    pthread_barrier_destroy(&start);
    return t;
}

/* TIME rows for 1 and N threads (per operation, all threads together) and the throughput ratio. */
static void measure_threads(struct ctx *c, const char *what, op_fn fn, long ops_per_call, long per_thread) {
    int nt = c->sc->threads;
    if (c->smoke) per_thread = per_thread > 2 ? 2 : per_thread;
    fn(c, 1); /* warm */
    double t1[64], tn[64];
    int reps = c->reps > 64 ? 64 : c->reps;
    for (int i = 0; i < reps; i++) { /* interleaved: 1 thread, then N */
        t1[i] = run_threads(c, fn, 1, per_thread) / (double)(per_thread * ops_per_call);
        tn[i] = run_threads(c, fn, nt, per_thread) / (double)(per_thread * ops_per_call * nt);
    }
    qsort(t1, (size_t)reps, sizeof(t1[0]), cmp_double);
    qsort(tn, (size_t)reps, sizeof(tn[0]), cmp_double);
    printf("TIME\t%s, 1 thread\t%.3f\t%.3f\t%.3f\n", what, t1[reps / 2], t1[0], t1[reps - 1]);
    printf("TIME\t%s, %d threads at once (per op, all threads)\t%.3f\t%.3f\t%.3f\n", what, nt, tn[reps / 2], tn[0],
           tn[reps - 1]);
    printf("PLAIN\tthroughput %d threads / 1 thread: %s\t%.3f\n", nt, what, t1[reps / 2] / tn[reps / 2]);
}

static int threads_main(struct ctx *c, const char *loader) {
    load_loader(c, loader);
    setup_dispatch(c);
    measure_threads(c, "vkGetDeviceProcAddr hit (8 names)", op_gdpa_hit, GDPA_HITS, 200000);
    measure_threads(c, "vkGetDeviceProcAddr miss", op_gdpa_miss, GDPA_HITS, 20000);
    measure_threads(c, "vkEnumerateInstanceVersion", op_eiv, 1, 2000);
    measure_threads(c, "vkCreateInstance + vkDestroyInstance", op_create_destroy, 1, 200);
    ((PFN_vkDestroyDevice)c->gdpa(c->dev, "vkDestroyDevice"))(c->dev, NULL);
    c->destroy_instance(c->inst, NULL);
    return 0;
}

static int child_main(const char *loader, const char *sandbox, const char *scenario, const char *mode, int reps,
                      int smoke) {
    struct ctx c;
    memset(&c, 0, sizeof(c));
    c.sandbox = sandbox;
    c.reps = reps;
    c.smoke = smoke;
    c.ir = strcmp(mode, "ir") == 0 || RUNNING_ON_VALGRIND;
    c.strace_mode = strcmp(mode, "sc") == 0;
    for (int i = 0; i < SCENARIO_COUNT; i++)
        if (strcmp(g_scenarios[i].name, scenario) == 0) c.sc = &g_scenarios[i];
    if (c.sc == NULL) die("unknown scenario %s", scenario);
    for (int i = 0; i < c.sc->layers; i++) {
        snprintf(c.layer_names[i], sizeof(c.layer_names[i]), "VK_LAYER_BENCH_pt_%d", i);
        c.layer_ptrs[i] = c.layer_names[i];
    }
    c.app = (VkApplicationInfo){
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .pApplicationName = "vkl-bench", .apiVersion = VK_API_VERSION_1_3};
    c.ici = (VkInstanceCreateInfo){.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                   .pApplicationInfo = &c.app,
                                   .enabledLayerCount = c.sc->env_layers ? 0 : (uint32_t)c.sc->layers,
                                   .ppEnabledLayerNames = c.layer_ptrs};
    if (strcmp(mode, "floor") == 0) return floor_main(&c);
    if (c.sc->threads > 0) return strcmp(mode, "time") == 0 ? threads_main(&c, loader) : 0;

    if (strcmp(mode, "parse") == 0) {
        parse_inputs();
        c.count_allocs = 1;
        printf("INFO\tparse_icd_bytes\t%zu\nINFO\tparse_layer_bytes\t%zu\n", g_icd_len, g_layer_len);
        measure(&c, "parse ICD manifest", op_parse_icd, 20, 2000);
        measure(&c, "parse layer manifest", op_parse_layer, 5, 200);
        return 0;
    }
    /* Cold start-up first: nothing has touched the loader yet in this process. */
    if (c.strace_mode) {
        sc_marker("VKLBENCH-Z");
        startup_sequence(&c, loader);
        sc_marker("VKLBENCH-D start-up sequence (cold process)|1");
    } else if (c.ir) {
        CALLGRIND_ZERO_STATS;
        startup_sequence(&c, loader);
        CALLGRIND_DUMP_STATS_AT("start-up sequence (cold process)|1");
    } else {
        double t0 = now_ns();
        startup_sequence(&c, loader);
        printf("STARTUP\t%.3f\n", now_ns() - t0);
    }
    if (strcmp(mode, "startup") == 0) return 0;

    long heavy = c.sc->heavy ? 1 : 3;
    c.count_allocs = 1;
    c.count_faults = 1;
    measure(&c, "vkCreateInstance + vkDestroyInstance", op_create_destroy, heavy, c.sc->heavy ? 5 : 50);
    c.count_faults = 0;
    if (c.sc->real_icd != NULL) return 0; /* a real driver: create + destroy against its floor only */
    measure(&c, "vkEnumerateInstanceVersion", op_eiv, heavy, 200);
    measure(&c, "vkEnumerateInstanceExtensionProperties (count + fill)", op_eiep, heavy, 100);
    measure(&c, "vkEnumerateInstanceLayerProperties (count + fill)", op_eilp, heavy, 100);
    check(c.create_instance(&c.ici, NULL, &c.inst), "vkCreateInstance");
    measure(&c, "vkEnumeratePhysicalDevices (count + fill)", op_epd, 20, 2000);
    c.destroy_instance(c.inst, NULL);
    c.inst = VK_NULL_HANDLE;
    c.count_allocs = 0;
    if (!c.sc->dispatch || c.strace_mode) return 0;

    setup_dispatch(&c);
    const long nd = 1000, nt = 1000000;
    measure(&c, "vkCmdDraw: exported trampoline", op_draw_tramp, nd, nt);
    measure(&c, "vkCmdDraw: vkGetInstanceProcAddr pointer", op_draw_gipa, nd, nt);
    measure(&c, "vkCmdDraw: vkGetDeviceProcAddr pointer", op_draw_gdpa, nd, nt);
    measure(&c, "vkCmdDraw: driver function (floor)", op_draw_driver, nd, nt);
    measure(&c, "vkCmdSetLineWidth: exported trampoline", op_lw_tramp, nd, nt);
    measure(&c, "vkCmdSetLineWidth: vkGetInstanceProcAddr pointer", op_lw_gipa, nd, nt);
    measure(&c, "vkCmdSetLineWidth: vkGetDeviceProcAddr pointer", op_lw_gdpa, nd, nt);
    measure(&c, "vkCmdSetLineWidth: driver function (floor)", op_lw_driver, nd, nt);
    /* Lookups: per name (the key's divisor is multiplied by the name count below). */
    char key[128];
    snprintf(key, sizeof(key), "vkGetInstanceProcAddr hit*%ld", GIPA_HITS);
    measure(&c, key, op_gipa_hit, 10, 10000);
    if (c.ir) { /* instructions only: the loop's share of the hit row */
        snprintf(key, sizeof(key), "benchmark loop of the vkGetInstanceProcAddr hit row*%ld", GIPA_HITS);
        measure(&c, key, op_gipa_loop, 10, 10000);
    }
    snprintf(key, sizeof(key), "vkGetInstanceProcAddr(NULL) miss*%ld", GIPA_HITS);
    measure(&c, key, op_gipa_miss, 10, 10000);
    snprintf(key, sizeof(key), "vkGetDeviceProcAddr hit*%ld", GDPA_HITS);
    measure(&c, key, op_gdpa_hit, 10, 10000);
    snprintf(key, sizeof(key), "vkGetDeviceProcAddr miss*%ld", GDPA_HITS);
    measure(&c, key, op_gdpa_miss, 10, 10000);
    snprintf(key, sizeof(key), "driver's own vkGetDeviceProcAddr hit*%ld", GDPA_HITS);
    measure(&c, key, op_gdpa_driver, 10, 10000);
    ((PFN_vkDestroyDevice)c.gdpa(c.dev, "vkDestroyDevice"))(c.dev, NULL);
    c.destroy_instance(c.inst, NULL);
    return 0;
}

/* ================================================================== orchestrator */

struct cell {
    int has_ir, has_time, has_allocs;
    double ir, med, min, max, allocs;
};
struct row {
    char scenario[48];
    char key[128];
    struct cell cells[MAX_LOADERS];
};
static struct row g_rows[MAX_ROWS];
static int g_row_count;

static struct row *row_get(const char *scenario, const char *key) {
    for (int i = 0; i < g_row_count; i++)
        if (strcmp(g_rows[i].scenario, scenario) == 0 && strcmp(g_rows[i].key, key) == 0) return &g_rows[i];
    if (g_row_count == MAX_ROWS) die("too many rows");
    struct row *r = &g_rows[g_row_count++];
    memset(r, 0, sizeof(*r));
    snprintf(r->scenario, sizeof(r->scenario), "%s", scenario);
    snprintf(r->key, sizeof(r->key), "%s", key);
    return r;
}

/* "name*K" keys are per K items: the divisor is multiplied and the suffix dropped. */
static double split_key(char *key) {
    char *star = strrchr(key, '*');
    if (star == NULL) return 1;
    *star = '\0';
    return atof(star + 1);
}

static void mkdirs(const char *p) {
    char buf[4096];
    snprintf(buf, sizeof(buf), "%s", p);
    for (char *s = buf + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(buf, 0755);
            *s = '/';
        }
    mkdir(buf, 0755);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f == NULL) die("cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

static void copy_file(const char *src, const char *dst) {
    int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    if (in < 0 || out < 0) die("copy %s -> %s: %s", src, dst, strerror(errno));
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof(buf))) > 0)
        if (write(out, buf, (size_t)n) != n) die("write %s", dst);
    close(in);
    close(out);
}

static void build_sandbox(const char *sb, const char *icd_lib, const char *layer_lib) {
    char p[4096], q[4096], json[8192];
    static const char *const dirs[] = {"drivers",
                                       "layerlibs",
                                       "home",
                                       "empty/config",
                                       "empty/configdirs",
                                       "empty/data",
                                       "empty/datadirs",
                                       "layers",
                                       "explicit100",
                                       "explicit1000",
                                       "implicit100/vulkan/implicit_layer.d"};
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", sb, dirs[i]);
        mkdirs(p);
    }
    for (int n = 1; n <= 1000; n *= 10) {
        snprintf(p, sizeof(p), "%s/drivers_%d", sb, n);
        mkdirs(p);
    }
    for (int i = 0; i < 1000; i++) {
        snprintf(p, sizeof(p), "%s/drivers/libbench_null_icd_%d.so", sb, i);
        copy_file(icd_lib, p);
        snprintf(
            json, sizeof(json),
            "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"%s\", \"api_version\": \"1.3.0\"}}\n",
            p);
        for (int n = 1; n <= 1000; n *= 10) {
            if (i >= n) continue;
            snprintf(q, sizeof(q), "%s/drivers_%d/null_icd_%03d.json", sb, n, i);
            write_file(q, json);
        }
    }
    for (int i = 0; i < 50; i++) {
        snprintf(p, sizeof(p), "%s/layerlibs/libbench_pt_%d.so", sb, i);
        copy_file(layer_lib, p);
        snprintf(json, sizeof(json),
                 "{\"file_format_version\": \"1.1.0\", \"layer\": {\"name\": \"VK_LAYER_BENCH_pt_%d\", "
                 "\"type\": \"GLOBAL\", \"library_path\": \"%s\", \"api_version\": \"1.3.0\", "
                 "\"implementation_version\": \"1\", \"description\": \"bench pass-through layer\"}}\n",
                 i, p);
        snprintf(q, sizeof(q), "%s/layers/pt_%02d.json", sb, i);
        write_file(q, json);
    }
    if (access(LAVAPIPE_MANIFEST, R_OK) == 0) {
        snprintf(p, sizeof(p), "%s/lavapipe", sb);
        mkdirs(p);
        snprintf(p, sizeof(p), "%s/lavapipe/icd.json", sb);
        copy_file(LAVAPIPE_MANIFEST, p);
    }
    snprintf(p, sizeof(p), "%s/layerlibs/libbench_pt_0.so", sb);
    for (int i = 0; i < 1000; i++) {
        snprintf(json, sizeof(json),
                 "{\"file_format_version\": \"1.1.0\", \"layer\": {\"name\": \"VK_LAYER_BENCH_unused_%d\", "
                 "\"type\": \"GLOBAL\", \"library_path\": \"%s\", \"api_version\": \"1.3.0\", "
                 "\"implementation_version\": \"1\", \"description\": \"installed, never enabled\"}}\n",
                 i, p);
        snprintf(q, sizeof(q), "%s/explicit1000/unused_%04d.json", sb, i);
        write_file(q, json);
        if (i >= 100) continue;
        snprintf(q, sizeof(q), "%s/explicit100/unused_%03d.json", sb, i);
        write_file(q, json);
        snprintf(json, sizeof(json),
                 "{\"file_format_version\": \"1.1.0\", \"layer\": {\"name\": \"VK_LAYER_BENCH_implicit_%d\", "
                 "\"type\": \"GLOBAL\", \"library_path\": \"%s\", \"api_version\": \"1.3.0\", "
                 "\"implementation_version\": \"1\", \"description\": \"implicit, disabled by env\", "
                 "\"disable_environment\": {\"BENCH_DISABLE_IMPLICIT\": \"1\"}}}\n",
                 i, p);
        snprintf(q, sizeof(q), "%s/implicit100/vulkan/implicit_layer.d/implicit_%03d.json", sb, i);
        write_file(q, json);
    }
}

/* A clean environment: only the sandbox's search locations. */
static char **scenario_env(const char *sb, const struct scenario *s) {
    static char buf[12][4200];
    static char *env[13];
    int n = 0;
    const char *path = getenv("PATH");
    snprintf(buf[n], sizeof(buf[n]), "PATH=%s", path ? path : "/usr/bin:/bin");
    env[n] = buf[n];
    n++;
#define ADD(...)                                                                                                       \
    do {                                                                                                               \
        snprintf(buf[n], sizeof(buf[n]), __VA_ARGS__);                                                                 \
        env[n] = buf[n];                                                                                               \
        n++;                                                                                                           \
    } while (0)
    ADD("HOME=%s/home", sb);
    ADD("XDG_CONFIG_HOME=%s/empty/config", sb);
    ADD("XDG_CONFIG_DIRS=%s/empty/configdirs", sb);
    ADD("XDG_DATA_DIRS=%s/empty/datadirs", sb);
    ADD("XDG_DATA_HOME=%s/%s", sb, s->implicit ? "implicit100" : "empty/data");
    if (s->real_icd != NULL)
        ADD("VK_DRIVER_FILES=%s/lavapipe/icd.json", sb);
    else
        ADD("VK_DRIVER_FILES=%s/drivers_%d", sb, s->drivers);
    ADD("BENCH_DISABLE_IMPLICIT=1");
#if defined(__SANITIZE_ADDRESS__)
    /* Lavapipe (LLVM) leaves allocations behind when the Khronos loader unloads it at every
     * vkDestroyInstance: not ours to report; AddressSanitizer's other checks stay on. */
    if (s->real_icd != NULL) ADD("ASAN_OPTIONS=detect_leaks=0");
#endif
    if (s->layer_dir != NULL) ADD("VK_LAYER_PATH=%s/%s", sb, s->layer_dir);
    if (s->env_layers) {
        char *b = buf[n];
        size_t len = (size_t)snprintf(b, sizeof(buf[n]), "VK_INSTANCE_LAYERS=");
        for (int i = 0; i < s->layers && len < sizeof(buf[n]) - 64; i++)
            len += (size_t)snprintf(b + len, sizeof(buf[n]) - len, "%sVK_LAYER_BENCH_pt_%d", i ? ":" : "", i);
        env[n++] = b;
    }
#undef ADD
    env[n] = NULL;
    return env;
}

/* Runs argv with envp; stdout captured into *out (malloc'd). Returns the exit status. */
static int run_capture(char *const argv[], char *const envp[], char **out) {
    int fd[2];
    if (pipe(fd) != 0) die("pipe");
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execve(argv[0], argv, envp);
        fprintf(stderr, "bench: exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    ssize_t k;
    while ((k = read(fd[0], buf + len, cap - len - 1)) > 0) {
        len += (size_t)k;
        if (cap - len < 1024) buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static char *find_in_path(const char *name) {
    const char *path = getenv("PATH");
    if (path == NULL) path = "/usr/bin:/bin";
    static char buf[4096];
    while (*path) {
        const char *e = strchr(path, ':');
        size_t l = e ? (size_t)(e - path) : strlen(path);
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)l, path, name);
        if (access(buf, X_OK) == 0) return buf;
        path += l + (e ? 1 : 0);
    }
    return NULL;
}

static void parse_child_output(const char *scenario, int li, const char *text) {
    char *copy = strdup(text), *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[6] = {0};
        int nf = 0;
        for (char *s2 = NULL, *t = strtok_r(line, "\t", &s2); t && nf < 6; t = strtok_r(NULL, "\t", &s2)) f[nf++] = t;
        if (nf >= 5 && strcmp(f[0], "TIME") == 0) {
            double div = split_key(f[1]);
            struct cell *c = &row_get(scenario, f[1])->cells[li];
            c->has_time = 1;
            c->med = atof(f[2]) / div;
            c->min = atof(f[3]) / div;
            c->max = atof(f[4]) / div;
        } else if (nf >= 3 && strcmp(f[0], "ALLOCS") == 0) {
            char key[200];
            split_key(f[1]);
            snprintf(key, sizeof(key), "heap allocations: %s", f[1]);
            struct cell *c = &row_get(scenario, key)->cells[li];
            c->has_allocs = 1;
            c->allocs = atof(f[2]);
        } else if (nf >= 3 && strcmp(f[0], "PLAIN") == 0) {
            struct cell *c = &row_get(scenario, f[1])->cells[li];
            c->has_allocs = 1;
            c->allocs = atof(f[2]);
        } else if (nf >= 3 && strcmp(f[0], "INFO") == 0 && strcmp(f[1], "gdpa_returns_driver_function") == 0) {
            printf("  %s: vkGetDeviceProcAddr returns the driver's function: %s\n", scenario,
                   atoi(f[2]) ? "yes" : "NO");
        }
    }
    free(copy);
}

/* Counts the system calls strace logged between each "VKLBENCH-Z" marker and the next
 * "VKLBENCH-D key|n" marker (the markers themselves not included): rows "system calls: key". */
static void parse_strace(const char *scenario, int li, const char *path) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return;
    char line[8192];
    int counting = 0;
    double count = 0;
    while (fgets(line, sizeof(line), f)) {
        if (strstr(line, "\"VKLBENCH-Z") != NULL) {
            counting = 1;
            count = 0;
            continue;
        }
        char *d = strstr(line, "\"VKLBENCH-D ");
        if (d != NULL) {
            char key[300], full[340];
            snprintf(key, sizeof(key), "%s", d + 12);
            key[strcspn(key, "\"")] = '\0';
            char *bar = strrchr(key, '|');
            double n = 1;
            if (bar != NULL) {
                n = atof(bar + 1);
                *bar = '\0';
            }
            n *= split_key(key);
            snprintf(full, sizeof(full), "system calls: %s", key);
            struct cell *c = &row_get(scenario, full)->cells[li];
            c->has_allocs = 1;
            c->allocs = n > 0 ? count / n : count;
            counting = 0;
            continue;
        }
        if (!counting || strstr(line, " resumed>") != NULL || strstr(line, "+++ ") != NULL ||
            strstr(line, "--- SIG") != NULL)
            continue;
        count++;
    }
    fclose(f);
    unlink(path);
}

/* Reads every callgrind dump in `dir` written for a client request "key|n". */
static void parse_callgrind_dir(const char *scenario, int li, const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "cg.out", 6) != 0) continue;
        char path[4096], line[1024], key[1024] = "";
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL) continue;
        double total = -1, n = 1;
        while (fgets(line, sizeof(line), f)) {
            const char *pfx = "desc: Trigger: Client Request: ";
            if (strncmp(line, pfx, strlen(pfx)) == 0) {
                snprintf(key, sizeof(key), "%s", line + strlen(pfx));
                key[strcspn(key, "\n")] = '\0';
                char *bar = strrchr(key, '|');
                if (bar) {
                    n = atof(bar + 1);
                    *bar = '\0';
                }
            } else if (strncmp(line, "summary:", 8) == 0 || (total < 0 && strncmp(line, "totals:", 7) == 0)) {
                /* summary: the instructions executed between the zeroing and the dump. totals (the sum
                 * of the dump's cost lines) can exceed it by a few percent: the same driver function
                 * called directly read 246.7 per call through either loader by summary, 247-284 by
                 * totals, so summary wins where both are written. */
                total = atof(strchr(line, ':') + 1);
            }
        }
        fclose(f);
        unlink(path);
        if (key[0] == '\0' || total < 0) continue;
        n *= split_key(key);
        struct cell *c = &row_get(scenario, key)->cells[li];
        c->has_ir = 1;
        c->ir = total / n;
    }
    closedir(d);
}

static const char *runfile(const char *rel) {
    static char buf[4][8300];
    static int k;
    char *b = buf[k++ % 4];
    const char *rd = getenv("RUNFILES_DIR");
    if (rd != NULL) {
        snprintf(b, 8300, "%s/vk_loader_harness/%s", rd, rel);
        if (access(b, R_OK) == 0) return b;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        snprintf(b, 8300, "%s.runfiles/vk_loader_harness/%s", exe, rel);
        if (access(b, R_OK) == 0) return b;
    }
    snprintf(b, 8300, "%s", rel);
    if (access(b, R_OK) == 0) {
        char *r = realpath(b, NULL);
        if (r) {
            snprintf(b, 8300, "%s", r);
            free(r);
        }
        return b;
    }
    die("runfile %s not found", rel);
    return NULL;
}

static void fmt_num(char *out, size_t n, double v) {
    if (v >= 1e6)
        snprintf(out, n, "%.2fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(out, n, "%.1fk", v / 1e3);
    else if (v >= 100)
        snprintf(out, n, "%.0f", v);
    else
        snprintf(out, n, "%.1f", v);
}
static void fmt_time(char *out, size_t n, const struct cell *c) {
    char a[32], b[32], d[32];
    fmt_num(a, sizeof(a), c->med);
    fmt_num(b, sizeof(b), c->min);
    fmt_num(d, sizeof(d), c->max);
    snprintf(out, n, "%s (%s–%s)", a, b, d);
}

static void print_table(FILE *f, int nl, char labels[][32]) {
    fprintf(f, "| scenario | measurement | unit |");
    for (int i = 0; i < nl; i++) fprintf(f, " %s instr. |", labels[i]);
    if (nl >= 2) fprintf(f, " ratio instr. |");
    for (int i = 0; i < nl; i++) fprintf(f, " %s wall ns median (min–max) |", labels[i]);
    if (nl >= 2) fprintf(f, " ratio wall |");
    fprintf(f, "\n|---|---|---|");
    for (int i = 0; i < nl * 2 + (nl >= 2 ? 2 : 0); i++) fprintf(f, "---:|");
    fprintf(f, "\n");
    for (int r = 0; r < g_row_count; r++) {
        const struct row *w = &g_rows[r];
        int syscalls = strncmp(w->key, "system calls", 12) == 0;
        int ratio = strncmp(w->key, "throughput", 10) == 0;
        int faults = strncmp(w->key, "minor page faults", 17) == 0;
        int allocs = strncmp(w->key, "heap allocations", 16) == 0 || syscalls || ratio || faults;
        fprintf(f, "| %s | %s | %s |", w->scenario, w->key,
                syscalls ? "syscalls/op"
                : ratio  ? "ratio"
                : faults ? "faults/op"
                : allocs ? "allocs/op"
                         : "per op");
        char s[64];
        for (int i = 0; i < nl; i++) {
            const struct cell *c = &w->cells[i];
            if (allocs ? c->has_allocs : c->has_ir) {
                fmt_num(s, sizeof(s), allocs ? c->allocs : c->ir);
                fprintf(f, " %s |", s);
            } else {
                fprintf(f, " n/a |");
            }
        }
        if (nl >= 2) {
            double a = allocs ? w->cells[0].allocs : w->cells[0].ir, b = allocs ? w->cells[1].allocs : w->cells[1].ir;
            int ok = allocs ? (w->cells[0].has_allocs && w->cells[1].has_allocs)
                            : (w->cells[0].has_ir && w->cells[1].has_ir);
            if (ok && b > 0)
                fprintf(f, " %.3g |", a / b);
            else
                fprintf(f, " – |");
        }
        for (int i = 0; i < nl; i++) {
            if (!allocs && w->cells[i].has_time) {
                char t[128];
                fmt_time(t, sizeof(t), &w->cells[i]);
                fprintf(f, " %s |", t);
            } else {
                fprintf(f, " – |");
            }
        }
        if (nl >= 2) {
            if (!allocs && w->cells[0].has_time && w->cells[1].has_time && w->cells[1].med > 0)
                fprintf(f, " %.3g |", w->cells[0].med / w->cells[1].med);
            else
                fprintf(f, " – |");
        }
        fprintf(f, "\n");
    }
}

/* Derived rows: loader instructions above the driver. */
static void derive(int nl) {
    static const char *const cmds[] = {"vkCmdDraw", "vkCmdSetLineWidth"};
    for (int r = 0, n = g_row_count; r < n; r++) {
        const char *sc = g_rows[r].scenario;
        if (strcmp(g_rows[r].key, "vkCmdDraw: driver function (floor)") != 0) continue;
        for (int k = 0; k < 2; k++) {
            char a[128], fl[128], out[160];
            snprintf(fl, sizeof(fl), "%s: driver function (floor)", cmds[k]);
            snprintf(a, sizeof(a), "%s: exported trampoline", cmds[k]);
            snprintf(out, sizeof(out), "%s: exported trampoline, loader instructions above the driver", cmds[k]);
            struct row *d = row_get(sc, out);
            struct row *t = row_get(sc, a), *f = row_get(sc, fl);
            for (int i = 0; i < nl; i++) {
                d->cells[i].has_ir = t->cells[i].has_ir && f->cells[i].has_ir;
                d->cells[i].ir = t->cells[i].ir - f->cells[i].ir;
                d->cells[i].has_time = 0; /* sub-nanosecond differences of medians: noise */
                d->cells[i].med = d->cells[i].min = d->cells[i].max = t->cells[i].med - f->cells[i].med;
            }
        }
        struct row *g = row_get(sc, "vkGetInstanceProcAddr hit, loader part (minus the benchmark loop)");
        struct row *gh = row_get(sc, "vkGetInstanceProcAddr hit"),
                   *gl = row_get(sc, "benchmark loop of the vkGetInstanceProcAddr hit row");
        for (int i = 0; i < nl; i++) {
            g->cells[i].has_ir = gh->cells[i].has_ir && gl->cells[i].has_ir;
            g->cells[i].ir = gh->cells[i].ir - gl->cells[i].ir;
            g->cells[i].has_time = 0;
        }
        /* Only where the loader's lookup ends in the driver's: with enabled layers ours answers from
         * the device's dispatch table without calling the driver (the difference would be negative). */
        int layers = 0;
        for (int k = 0; k < SCENARIO_COUNT; k++)
            if (strcmp(g_scenarios[k].name, sc) == 0) layers = g_scenarios[k].layers;
        if (layers > 0) continue;
        struct row *d = row_get(sc, "vkGetDeviceProcAddr hit, loader part (minus the driver's own lookup)");
        struct row *t = row_get(sc, "vkGetDeviceProcAddr hit"),
                   *f = row_get(sc, "driver's own vkGetDeviceProcAddr hit");
        for (int i = 0; i < nl; i++) {
            d->cells[i].has_ir = t->cells[i].has_ir && f->cells[i].has_ir;
            d->cells[i].ir = t->cells[i].ir - f->cells[i].ir;
            d->cells[i].has_time = 0; /* sub-nanosecond differences of medians: noise */
            d->cells[i].med = d->cells[i].min = d->cells[i].max = t->cells[i].med - f->cells[i].med;
        }
    }
}

static void chart(const char *out, int nl, char labels[][32]) {
    char dat[4096], gp[4096], png[4096];
    snprintf(dat, sizeof(dat), "%s/startup.dat", out);
    snprintf(gp, sizeof(gp), "%s/startup.gp", out);
    snprintf(png, sizeof(png), "%s/startup_vs_manifests.png", out);
    FILE *f = fopen(dat, "w");
    if (f == NULL) return;
    static const struct {
        const char *sc;
        int manifests;
    } pts[] = {{"1 driver", 1}, {"10 drivers", 10}, {"100 drivers", 100}, {"1000 drivers", 1000}};
    static const char *const keys[] = {"start-up sequence (cold process)", "vkCreateInstance + vkDestroyInstance"};
    int points = 0;
    for (int p = 0; p < 4; p++) points += row_get(pts[p].sc, keys[0])->cells[0].has_ir;
    if (points == 0) { /* no driver scenario in this run: nothing to draw */
        fclose(f);
        return;
    }
    fprintf(f, "# manifests");
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < nl; i++) fprintf(f, " \"%s %s\"", labels[i], k ? "create+destroy" : "start-up");
    fprintf(f, "\n");
    for (int p = 0; p < 4; p++) {
        if (!row_get(pts[p].sc, keys[0])->cells[0].has_ir) continue; /* scenario not run */
        fprintf(f, "%d", pts[p].manifests);
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < nl; i++) fprintf(f, " %.0f", row_get(pts[p].sc, keys[k])->cells[i].ir);
        fprintf(f, "\n");
    }
    fclose(f);
    /* The same against unused explicit layer manifests (1 driver each; 0 manifests is "1 driver"). */
    char dat2[4200];
    snprintf(dat2, sizeof(dat2), "%s/startup_layers.dat", out);
    static const struct {
        const char *sc;
        int manifests;
    } lpts[] = {{"100 unused explicit", 100}, {"1000 unused explicit", 1000}};
    int have2 = 0;
    f = fopen(dat2, "w");
    if (f == NULL) return;
    fprintf(f, "# unused explicit layer manifests, start-up then create+destroy per loader\n");
    for (int p = 0; p < 2; p++) {
        if (!row_get(lpts[p].sc, keys[0])->cells[0].has_ir) continue;
        have2++;
        fprintf(f, "%d", lpts[p].manifests);
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < nl; i++) fprintf(f, " %.0f", row_get(lpts[p].sc, keys[k])->cells[i].ir);
        fprintf(f, "\n");
    }
    fclose(f);
    f = fopen(gp, "w");
    if (f == NULL) return;
    fprintf(f,
            "set terminal pngcairo size 1000,760 noenhanced\nset output '%s'\n"
            "set title 'Cost vs number of manifests (instructions, callgrind)'\n"
            "set logscale xy\nset xlabel 'driver manifests (solid) / unused explicit layer manifests (dashed)'\n"
            "set ylabel 'instructions per operation'\n"
            "set key below maxrows 4\nset grid\nset xtics (1, 10, 100, 1000)\n"
            "plot ",
            png);
    for (int k = 0, col = 2; k < 2; k++)
        for (int i = 0; i < nl; i++, col++)
            fprintf(f, "%s'%s' using 1:%d with linespoints lw 2 lc %d title '%s %s, drivers'", col > 2 ? ", " : "", dat,
                    col, col - 1, labels[i],
                    k ? "vkCreateInstance+vkDestroyInstance (warm)" : "start-up sequence (cold process)");
    if (have2 > 0)
        for (int k = 0, col = 2; k < 2; k++)
            for (int i = 0; i < nl; i++, col++)
                fprintf(f, ", '%s' using 1:%d with linespoints lw 2 dt 2 lc %d title '%s %s, explicit manifests'", dat2,
                        col, col - 1, labels[i], k ? "create+destroy" : "start-up");
    fprintf(f, "\n");
    fclose(f);
    char *gnuplot = find_in_path("gnuplot");
    if (gnuplot == NULL) {
        printf("gnuplot not found: chart data in %s, script %s\n", dat, gp);
        return;
    }
    char *argv[] = {gnuplot, gp, NULL};
    char *o = NULL;
    extern char **environ;
    int st = run_capture(argv, environ, &o);
    free(o);
    printf(st == 0 ? "chart: %s\n" : "gnuplot failed for %s\n", png);
}

int main(int argc, char **argv) {
    const char *loaders[MAX_LOADERS];
    int nl = 0, reps = 7, smoke = 0, callgrind = 1, child = 0;
    const char *out = "/tmp/vkl-bench", *sandbox = NULL, *scenario = NULL, *mode = "time";
    const char *only[SCENARIO_COUNT]; /* orchestrator: run only these scenarios (--scenario=, repeatable) */
    int n_only = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--loader=", 9) == 0) {
            if (nl == MAX_LOADERS) die("at most %d loaders", MAX_LOADERS);
            loaders[nl++] = a + 9;
        } else if (strncmp(a, "--out=", 6) == 0) {
            out = a + 6;
        } else if (strncmp(a, "--reps=", 7) == 0) {
            reps = atoi(a + 7);
        } else if (strcmp(a, "--smoke") == 0) {
            smoke = 1;
        } else if (strcmp(a, "--no-callgrind") == 0) {
            callgrind = 0;
        } else if (strcmp(a, "--child") == 0) {
            child = 1;
        } else if (strncmp(a, "--sandbox=", 10) == 0) {
            sandbox = a + 10;
        } else if (strncmp(a, "--scenario=", 11) == 0) {
            scenario = a + 11;
            if (n_only < SCENARIO_COUNT) only[n_only++] = scenario;
        } else if (strncmp(a, "--mode=", 7) == 0) {
            mode = a + 7;
        } else {
            fprintf(stderr,
                    "usage: bench [--loader=PATH]... [--out=DIR] [--reps=N] [--no-callgrind] [--smoke]\n"
                    "             [--scenario=NAME]...\n"
                    "  default loaders: our //loader:libvulkan.so.1 and %s\n"
                    "  --scenario: run only the named scenarios (and no parse rows); names:\n",
                    KHRONOS_DEFAULT);
            for (int k = 0; k < SCENARIO_COUNT; k++) fprintf(stderr, "    %s\n", g_scenarios[k].name);
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
    if (child) return child_main(nl ? loaders[0] : "", sandbox, scenario, mode, reps, smoke);
    for (int k = 0; k < n_only; k++) {
        int known = 0;
        for (int i = 0; i < SCENARIO_COUNT; i++) known |= strcmp(only[k], g_scenarios[i].name) == 0;
        if (!known) die("unknown scenario '%s' (see --help)", only[k]);
    }

    char labels[MAX_LOADERS][32];
    if (nl == 0) {
        loaders[nl++] = runfile("loader/libvulkan.so.1");
        if (access(KHRONOS_DEFAULT, R_OK) == 0) loaders[nl++] = KHRONOS_DEFAULT;
    }
    for (int i = 0; i < nl; i++) {
        if (strstr(loaders[i], "/usr/lib") == loaders[i])
            snprintf(labels[i], sizeof(labels[i]), "khronos");
        else if (strstr(loaders[i], "vk_loader_harness") != NULL || strstr(loaders[i], "bazel") != NULL)
            snprintf(labels[i], sizeof(labels[i]), "ours");
        else
            snprintf(labels[i], sizeof(labels[i]), "loader%d", i + 1);
        printf("loader %d (%s): %s\n", i + 1, labels[i], loaders[i]);
    }
    if (smoke) reps = reps > 2 ? 2 : reps;
#if defined(__SANITIZE_ADDRESS__)
    if (callgrind) printf("callgrind skipped: AddressSanitizer's shadow memory cannot run under valgrind\n");
    callgrind = 0;
#endif
    char *strace = find_in_path("strace");
    char strace_path[4096] = "";
#if defined(__SANITIZE_ADDRESS__)
    /* LeakSanitizer stops a process that runs under ptrace: no system-call counts in this build. */
    if (strace != NULL) printf("strace skipped: LeakSanitizer does not work under ptrace\n");
    strace = NULL;
#endif
    if (strace != NULL) snprintf(strace_path, sizeof(strace_path), "%s", strace);
#if !defined(__SANITIZE_ADDRESS__)
    else
        printf("strace not found: system calls not counted\n");
#endif
    char *valgrind = callgrind ? find_in_path("valgrind") : NULL;
    char valgrind_path[4096] = "";
    if (valgrind != NULL) snprintf(valgrind_path, sizeof(valgrind_path), "%s", valgrind);
    if (callgrind && valgrind == NULL) printf("valgrind not found: instruction counts skipped\n");

    char sb[] = "/tmp/vkl-bench-sandbox.XXXXXX";
    if (mkdtemp(sb) == NULL) die("mkdtemp");
    build_sandbox(sb, runfile("bench/libbench_null_icd.so"), runfile("bench/libbench_passthrough_layer.so"));
    mkdirs(out);
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (sl <= 0) die("readlink /proc/self/exe");
    self[sl] = '\0';

    int failures = 0;
    /* smoke: 1 driver, 3 layers, lavapipe (when installed), the threads scenario */
    static const int smoke_scenarios[] = {0, 4, SCENARIO_COUNT - 2, SCENARIO_COUNT - 1};
    int nsc = smoke ? (int)(sizeof(smoke_scenarios) / sizeof(smoke_scenarios[0])) : SCENARIO_COUNT;
    for (int s = 0; s < nsc; s++) {
        const struct scenario *sc = &g_scenarios[smoke ? smoke_scenarios[s] : s];
        if (n_only > 0) {
            int wanted = 0;
            for (int k = 0; k < n_only; k++) wanted |= strcmp(only[k], sc->name) == 0;
            if (!wanted) continue;
        }
        if (sc->real_icd != NULL && access(sc->real_icd, R_OK) != 0) {
            printf("scenario: %s skipped: %s is not installed (Debian package mesa-vulkan-drivers)\n", sc->name,
                   sc->real_icd);
            continue;
        }
        char **env = scenario_env(sb, sc);
        printf("scenario: %s\n", sc->name);
        fflush(stdout);
        for (int li = 0; li < nl; li++) {
            char a_loader[4200], a_sb[4200], a_sc[128], a_reps[32], a_out[4300], cgdir[4200];
            snprintf(a_loader, sizeof(a_loader), "--loader=%s", loaders[li]);
            snprintf(a_sb, sizeof(a_sb), "--sandbox=%s", sb);
            snprintf(a_sc, sizeof(a_sc), "--scenario=%s", sc->name);
            snprintf(a_reps, sizeof(a_reps), "--reps=%d", reps);
            char *o = NULL;
            /* wall time + allocations */
            char *targv[] = {self, "--child", a_loader, a_sb, a_sc, "--mode=time", a_reps, smoke ? "--smoke" : NULL,
                             NULL};
            int st = run_capture(targv, env, &o);
            if (st != 0) {
                printf("  %s: child failed (status %d)\n", labels[li], st);
                failures++;
            }
            parse_child_output(sc->name, li, o);
            free(o);
            /* cold start-up wall time: fresh processes */
            double t[64];
            int nt = 0;
            for (int r = 0; r < reps; r++) {
                char *sargv[] = {self, "--child", a_loader, a_sb, a_sc, "--mode=startup", NULL};
                if (run_capture(sargv, env, &o) == 0) {
                    char *p = strstr(o, "STARTUP\t");
                    if (p) t[nt++] = atof(p + 8);
                }
                free(o);
            }
            if (nt > 0) {
                qsort(t, (size_t)nt, sizeof(t[0]), cmp_double);
                struct cell *c = &row_get(sc->name, "start-up sequence (cold process)")->cells[li];
                c->has_time = 1;
                c->med = t[nt / 2];
                c->min = t[0];
                c->max = t[nt - 1];
            }
            /* instructions */
            if (valgrind_path[0]) {
                snprintf(cgdir, sizeof(cgdir), "%s/cg_%d_%d", sb, s, li);
                mkdirs(cgdir);
                snprintf(a_out, sizeof(a_out), "--callgrind-out-file=%s/cg.out", cgdir);
                char *vargv[] = {valgrind_path, "--tool=callgrind", "-q",       a_out,
                                 self,          "--child",          a_loader,   a_sb,
                                 a_sc,          "--mode=ir",        "--reps=1", smoke ? "--smoke" : NULL,
                                 NULL};
                st = run_capture(vargv, env, &o);
                if (st != 0) {
                    printf("  %s: callgrind child failed (status %d)\n", labels[li], st);
                    failures++;
                }
                free(o);
                parse_callgrind_dir(sc->name, li, cgdir);
            }
            /* system calls */
            if (strace_path[0]) {
                char stfile[4300], a_o[4400];
                snprintf(stfile, sizeof(stfile), "%s/st_%d_%d.txt", sb, s, li);
                snprintf(a_o, sizeof(a_o), "-o%s", stfile);
                char *sargv[] = {strace_path, "-f",     "-qq", "-s", "400",       a_o,        self,
                                 "--child",   a_loader, a_sb,  a_sc, "--mode=sc", "--reps=1", smoke ? "--smoke" : NULL,
                                 NULL};
                st = run_capture(sargv, env, &o);
                if (st != 0) {
                    printf("  %s: strace child failed (status %d)\n", labels[li], st);
                    failures++;
                }
                free(o);
                parse_strace(sc->name, li, stfile);
            }
        }
        /* The loader-free floor of the driver scenarios (no loader: first column only). */
        if (sc->layers == 0 && sc->layer_dir == NULL && !sc->implicit && !sc->threads) {
            char a_sb[4200], a_sc[128], a_reps[32], a_out[4300], cgdir[4200];
            snprintf(a_sb, sizeof(a_sb), "--sandbox=%s", sb);
            snprintf(a_sc, sizeof(a_sc), "--scenario=%s", sc->name);
            snprintf(a_reps, sizeof(a_reps), "--reps=%d", reps);
            char *o = NULL;
            char *fargv[] = {self, "--child", a_sb, a_sc, "--mode=floor", a_reps, smoke ? "--smoke" : NULL, NULL};
            if (run_capture(fargv, env, &o) != 0) {
                printf("  floor child failed\n");
                failures++;
            }
            parse_child_output(sc->name, 0, o);
            free(o);
            if (valgrind_path[0]) {
                snprintf(cgdir, sizeof(cgdir), "%s/cg_floor_%d", sb, s);
                mkdirs(cgdir);
                snprintf(a_out, sizeof(a_out), "--callgrind-out-file=%s/cg.out", cgdir);
                char *vargv[] = {
                    valgrind_path, "--tool=callgrind",       "-q", a_out, self, "--child", a_sb, a_sc, "--mode=floor",
                    "--reps=1",    smoke ? "--smoke" : NULL, NULL};
                if (run_capture(vargv, env, &o) != 0) failures++;
                free(o);
                parse_callgrind_dir(sc->name, 0, cgdir);
            }
        }
    }
    /* Parse throughput: our buffer API (loader-independent). */
    if (n_only == 0) {
        char **env = scenario_env(sb, &g_scenarios[0]);
        char a_sb[4200], a_reps[32];
        snprintf(a_sb, sizeof(a_sb), "--sandbox=%s", sb);
        snprintf(a_reps, sizeof(a_reps), "--reps=%d", reps);
        char *o = NULL;
        char *pargv[] = {self, "--child", a_sb, "--scenario=1 driver", "--mode=parse", a_reps, NULL};
        if (run_capture(pargv, env, &o) != 0) failures++;
        size_t icd = 0, layer = 0;
        char *p = strstr(o, "parse_icd_bytes\t");
        if (p) icd = (size_t)atol(p + 16);
        p = strstr(o, "parse_layer_bytes\t");
        if (p) layer = (size_t)atol(p + 18);
        parse_child_output("manifest parsing (buffer API)", 0, o);
        free(o);
        if (valgrind_path[0]) {
            char a_out[4300], cgdir[4200];
            snprintf(cgdir, sizeof(cgdir), "%s/cg_parse", sb);
            mkdirs(cgdir);
            snprintf(a_out, sizeof(a_out), "--callgrind-out-file=%s/cg.out", cgdir);
            char *vargv[] = {valgrind_path, "--tool=callgrind",    "-q",           a_out,      self, "--child",
                             a_sb,          "--scenario=1 driver", "--mode=parse", "--reps=1", NULL};
            if (run_capture(vargv, env, &o) != 0) failures++;
            free(o);
            parse_callgrind_dir("manifest parsing (buffer API)", 0, cgdir);
        }
        for (int k = 0; k < 2; k++) {
            struct row *r = row_get("manifest parsing (buffer API)", k ? "parse layer manifest" : "parse ICD manifest");
            size_t bytes = k ? layer : icd;
            if (r->cells[0].has_time && bytes > 0)
                printf("parse throughput (%s, %zu bytes): %.1f MB/s median (%.1f–%.1f), %.1f instructions/byte\n",
                       k ? "layer manifest" : "ICD manifest", bytes, (double)bytes / r->cells[0].med * 1e3,
                       (double)bytes / r->cells[0].max * 1e3, (double)bytes / r->cells[0].min * 1e3,
                       r->cells[0].has_ir ? r->cells[0].ir / (double)bytes : 0.0);
        }
    }
    derive(nl);
    printf("\n");
    print_table(stdout, nl, labels);
    char path[4096];
    snprintf(path, sizeof(path), "%s/table.md", out);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        for (int i = 0; i < nl; i++) fprintf(f, "loader %d (%s): `%s`  \n", i + 1, labels[i], loaders[i]);
        fprintf(f, "\n");
        print_table(f, nl, labels);
        fclose(f);
        printf("\ntable: %s\n", path);
    }
    if (valgrind_path[0]) chart(out, nl, labels);
    if (getenv("BENCH_KEEP_SANDBOX") == NULL) {
        char cmd[4200];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sb);
        if (system(cmd) != 0) fprintf(stderr, "bench: could not remove %s\n", sb);
    } else {
        printf("sandbox kept: %s\n", sb);
    }
    printf("%s\n", failures ? "FAILED: some measurements did not run" : "done");
    return failures ? 1 : 0;
}
