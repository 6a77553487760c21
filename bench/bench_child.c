/*
 * The benchmark's child (bench --child): loads one loader in the sandbox the orchestrator built and
 * measures one scenario: the start-up sequence, instance and enumeration calls, dispatch through
 * trampolines, vkGetInstanceProcAddr / vkGetDeviceProcAddr and the driver, manifest parsing, the
 * loader-free floor and many threads at once; each block bracketed for callgrind, timed, its
 * allocations counted and marked for strace.
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
#include "bench/bench_internal.h"
#include "loader/internal/layer.h"
#include "loader/internal/manifest.h"

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
     * and takes again (the heap grows and is trimmed on every pair). */
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

/* Many threads at once: every thread runs the same operation `per_thread` times; the
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

int child_main(const char *loader, const char *sandbox, const char *scenario, const char *mode, int reps, int smoke) {
    struct ctx c;
    memset(&c, 0, sizeof(c));
    c.sandbox = sandbox;
    c.reps = reps;
    c.smoke = smoke;
    c.ir = strcmp(mode, "ir") == 0 || RUNNING_ON_VALGRIND;
    c.strace_mode = strcmp(mode, "sc") == 0;
    for (int i = 0; i < g_scenario_count; i++)
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
