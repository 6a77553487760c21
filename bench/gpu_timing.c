/*
 * gpu_timing: wall-time measurements on a real GPU (issue 18, "On a real GPU"), for any loader.
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
 * Only what the Vulkan API offers is used; the driver is whatever the loader finds (VK_DRIVER_FILES).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

int main(int argc, char **argv) {
    const char *loader = NULL, *mode = "startup";
    long iters = 1000000;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--loader=", 9) == 0)
            loader = argv[i] + 9;
        else if (strncmp(argv[i], "--mode=", 7) == 0)
            mode = argv[i] + 7;
        else if (strncmp(argv[i], "--iters=", 8) == 0)
            iters = strtol(argv[i] + 8, NULL, 10);
        else {
            fprintf(stderr, "usage: gpu_timing --loader=PATH [--mode=startup|calls] [--iters=N]\n");
            return 2;
        }
    }
    if (loader == NULL || iters <= 0) {
        fprintf(stderr, "usage: gpu_timing --loader=PATH [--mode=startup|calls] [--iters=N]\n");
        return 2;
    }
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
