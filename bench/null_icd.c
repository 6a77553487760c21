/*
 * The benchmark's null driver: the cheapest driver a loader can talk to (loader/driver interface 7),
 * so that what the benchmark measures is the loader. No heap allocations, no files, no logging:
 * every object comes from small static pools (instances past the pool come from the heap: only
 * bench/extreme.sh gets there); vkCmd* commands return at once (the "floor").
 *
 * One instance and one physical device per VkInstance, one queue and command buffers per device.
 * Instances are claimed atomically (the "16 threads" scenario creates and destroys instances from
 * many threads at once); everything else is single-threaded. Each library copy has its own pools, so
 * a benchmark with N driver manifests uses N copies of this file.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))
#define POOL 8
#define INSTANCE_POOL 40 /* 16 threads' instances and the benchmark's own, with room */

struct obj {
    VK_LOADER_DATA loader_data; /* ICD_LOADER_MAGIC, overwritten by the loader for device objects */
};
struct null_physdev {
    struct obj o;
};
struct null_instance {
    struct obj o;
    int used;
    int number; /* BENCH_NULL_ICD_DISTINCT=instance: this instance's device number, from 1 */
    struct null_physdev pd;
};
struct null_device {
    struct obj o;
    int used;
    struct obj queue;
    struct obj cmdbufs[4];
};

static struct null_instance g_instances[INSTANCE_POOL];
static struct null_device g_devices[POOL];

static void set_magic(struct obj *o) { o->loader_data.loaderMagic = ICD_LOADER_MAGIC; }

static int g_per_instance; /* BENCH_NULL_ICD_DISTINCT=instance (set at load) */
static int g_instances_created;

/* The device number of a new instance in the per-instance mode (0 otherwise). */
static int next_number(void) {
    return g_per_instance ? __atomic_add_fetch(&g_instances_created, 1, __ATOMIC_RELAXED) : 0;
}

/* ------------------------------------------------------------------ global commands */
static VKAPI_ATTR VkResult VKAPI_CALL null_CreateInstance(const VkInstanceCreateInfo *ci,
                                                          const VkAllocationCallbacks *a, VkInstance *out) {
    (void)ci;
    (void)a;
    for (int i = 0; i < INSTANCE_POOL; i++) {
        if (__atomic_exchange_n(&g_instances[i].used, 1, __ATOMIC_ACQUIRE)) continue;
        set_magic(&g_instances[i].o);
        set_magic(&g_instances[i].pd.o);
        g_instances[i].number = next_number();
        *out = (VkInstance)(void *)&g_instances[i];
        return VK_SUCCESS;
    }
    /* Past the pool (bench/extreme.sh: 100,000 manifests naming this one library, one instance
     * each): the heap, marked used = 2. The measured scenarios never get here. */
    struct null_instance *h = calloc(1, sizeof(*h));
    if (h == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    h->used = 2;
    h->number = next_number();
    set_magic(&h->o);
    set_magic(&h->pd.o);
    *out = (VkInstance)(void *)h;
    return VK_SUCCESS;
}
static VKAPI_ATTR void VKAPI_CALL null_DestroyInstance(VkInstance inst, const VkAllocationCallbacks *a) {
    (void)a;
    struct null_instance *i = (struct null_instance *)(void *)inst;
    if (i == NULL) return;
    if (i->used == 2)
        free(i);
    else
        __atomic_store_n(&i->used, 0, __ATOMIC_RELEASE);
}
static VKAPI_ATTR VkResult VKAPI_CALL null_EnumerateInstanceExtensionProperties(const char *layer, uint32_t *count,
                                                                                VkExtensionProperties *props) {
    (void)layer;
    (void)props;
    *count = 0;
    return VK_SUCCESS;
}
static VKAPI_ATTR VkResult VKAPI_CALL null_EnumerateInstanceVersion(uint32_t *v) {
    *v = VK_API_VERSION_1_3;
    return VK_SUCCESS;
}

/* ------------------------------------------------------------------ physical devices */
static VKAPI_ATTR VkResult VKAPI_CALL null_EnumeratePhysicalDevices(VkInstance inst, uint32_t *count,
                                                                    VkPhysicalDevice *pds) {
    if (pds == NULL) {
        *count = 1;
        return VK_SUCCESS;
    }
    if (*count < 1) return VK_INCOMPLETE;
    *count = 1;
    pds[0] = (VkPhysicalDevice)(void *)&((struct null_instance *)(void *)inst)->pd;
    return VK_SUCCESS;
}
/* With BENCH_NULL_ICD_DISTINCT=1 (the "distinct devices" scenarios) each copy of this library
 * describes a different device, its number taken from its file name (libbench_null_icd_<i>.so):
 * type, IDs and name differ, so that a loader's device sort (RULE_PHYSDEV_SORT) has real work to
 * do; with equal devices a stable sort of any kind, an insertion sort included, is linear. Set once
 * when the library is loaded (no lazy state for the "16 threads" scenario to race on): the number
 * plus one, 0 without the variable. With BENCH_NULL_ICD_DISTINCT=instance (bench/extreme.sh
 * "distinct": 100,000 manifests naming this one library, where 100,000 copies would exceed the
 * kernel's map count) each instance's device has its own number instead, counted in creation
 * order: every loader creates one instance per driver manifest, so the N devices differ. */
static int g_distinct;

__attribute__((constructor)) static void distinct_init(void) {
    const char *on = getenv("BENCH_NULL_ICD_DISTINCT");
    Dl_info info;
    int idx = 0;
    if (on != NULL && strcmp(on, "instance") == 0) g_per_instance = 1;
    if (on == NULL || on[0] != '1' || dladdr((void *)distinct_init, &info) == 0 || info.dli_fname == NULL) return;
    const char *base = strrchr(info.dli_fname, '/');
    base = base != NULL ? base + 1 : info.dli_fname;
    if (sscanf(base, "libbench_null_icd_%d.so", &idx) != 1 || idx < 0) idx = 0;
    g_distinct = idx + 1;
}

static VKAPI_ATTR void VKAPI_CALL null_GetPhysicalDeviceProperties(VkPhysicalDevice pd, VkPhysicalDeviceProperties *p) {
    memset(p, 0, sizeof(*p));
    p->apiVersion = VK_API_VERSION_1_3;
    p->vendorID = 0x10005;
    p->deviceID = 1;
    p->deviceType = VK_PHYSICAL_DEVICE_TYPE_CPU;
    strcpy(p->deviceName, "bench null device");
    int d = g_distinct;
    if (g_per_instance)
        d = ((const struct null_instance *)(const void *)((const char *)pd - offsetof(struct null_instance, pd)))
                ->number;
    if (d > 0) {
        /* A permutation of the numbers: neighbours in the driver order land far apart in the sort. */
        static const VkPhysicalDeviceType types[5] = {
            VK_PHYSICAL_DEVICE_TYPE_OTHER, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU, VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU,
            VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU, VK_PHYSICAL_DEVICE_TYPE_CPU};
        uint32_t mixed = (uint32_t)d * 2654435761u;
        p->deviceType = types[mixed % 5];
        p->vendorID = 0x1000 + (mixed >> 20) % 64;
        p->deviceID = (uint32_t)d;
        snprintf(p->deviceName, sizeof(p->deviceName), "bench null device %d", d);
    }
}
static VKAPI_ATTR void VKAPI_CALL null_GetPhysicalDeviceProperties2(VkPhysicalDevice pd,
                                                                    VkPhysicalDeviceProperties2 *p) {
    null_GetPhysicalDeviceProperties(pd, &p->properties);
}
static VKAPI_ATTR void VKAPI_CALL null_GetPhysicalDeviceFeatures(VkPhysicalDevice pd, VkPhysicalDeviceFeatures *f) {
    (void)pd;
    memset(f, 0, sizeof(*f));
}
static VKAPI_ATTR void VKAPI_CALL null_GetPhysicalDeviceMemoryProperties(VkPhysicalDevice pd,
                                                                         VkPhysicalDeviceMemoryProperties *m) {
    (void)pd;
    memset(m, 0, sizeof(*m));
}
static VKAPI_ATTR void VKAPI_CALL null_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice pd, uint32_t *count,
                                                                              VkQueueFamilyProperties *q) {
    (void)pd;
    if (q == NULL) {
        *count = 1;
        return;
    }
    if (*count < 1) return;
    *count = 1;
    memset(q, 0, sizeof(*q));
    q->queueFlags = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT;
    q->queueCount = 1;
}
static VKAPI_ATTR VkResult VKAPI_CALL null_EnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char *layer,
                                                                              uint32_t *count,
                                                                              VkExtensionProperties *e) {
    (void)pd;
    (void)layer;
    (void)e;
    *count = 0;
    return VK_SUCCESS;
}
static VKAPI_ATTR VkResult VKAPI_CALL null_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                                        const VkAllocationCallbacks *a, VkDevice *out) {
    (void)pd;
    (void)ci;
    (void)a;
    for (int i = 0; i < POOL; i++) {
        if (g_devices[i].used) continue;
        g_devices[i].used = 1;
        set_magic(&g_devices[i].o);
        set_magic(&g_devices[i].queue);
        for (int k = 0; k < 4; k++) set_magic(&g_devices[i].cmdbufs[k]);
        *out = (VkDevice)(void *)&g_devices[i];
        return VK_SUCCESS;
    }
    return VK_ERROR_OUT_OF_HOST_MEMORY;
}

/* ------------------------------------------------------------------ device commands */
static VKAPI_ATTR void VKAPI_CALL null_DestroyDevice(VkDevice dev, const VkAllocationCallbacks *a) {
    (void)a;
    if (dev != VK_NULL_HANDLE) ((struct null_device *)(void *)dev)->used = 0;
}
static VKAPI_ATTR void VKAPI_CALL null_GetDeviceQueue(VkDevice dev, uint32_t fam, uint32_t idx, VkQueue *q) {
    (void)fam;
    (void)idx;
    *q = (VkQueue)(void *)&((struct null_device *)(void *)dev)->queue;
}
static VKAPI_ATTR VkResult VKAPI_CALL null_CreateCommandPool(VkDevice dev, const VkCommandPoolCreateInfo *ci,
                                                             const VkAllocationCallbacks *a, VkCommandPool *pool) {
    (void)dev;
    (void)ci;
    (void)a;
    *pool = (VkCommandPool)(uintptr_t)0x1000;
    return VK_SUCCESS;
}
static VKAPI_ATTR void VKAPI_CALL null_DestroyCommandPool(VkDevice dev, VkCommandPool pool,
                                                          const VkAllocationCallbacks *a) {
    (void)dev;
    (void)pool;
    (void)a;
}
static VKAPI_ATTR VkResult VKAPI_CALL null_AllocateCommandBuffers(VkDevice dev, const VkCommandBufferAllocateInfo *ai,
                                                                  VkCommandBuffer *out) {
    struct null_device *d = (struct null_device *)(void *)dev;
    if (ai->commandBufferCount > 4) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    for (uint32_t i = 0; i < ai->commandBufferCount; i++) out[i] = (VkCommandBuffer)(void *)&d->cmdbufs[i];
    return VK_SUCCESS;
}
static VKAPI_ATTR void VKAPI_CALL null_FreeCommandBuffers(VkDevice dev, VkCommandPool pool, uint32_t n,
                                                          const VkCommandBuffer *cbs) {
    (void)dev;
    (void)pool;
    (void)n;
    (void)cbs;
}
static VKAPI_ATTR void VKAPI_CALL null_CmdDraw(VkCommandBuffer cb, uint32_t vc, uint32_t ic, uint32_t fv, uint32_t fi) {
    (void)cb;
    (void)vc;
    (void)ic;
    (void)fv;
    (void)fi;
}
static VKAPI_ATTR void VKAPI_CALL null_CmdSetLineWidth(VkCommandBuffer cb, float w) {
    (void)cb;
    (void)w;
}

/* ------------------------------------------------------------------ lookup */
struct entry {
    const char *name;
    uint8_t len;
    uint8_t kind; /* 0 global, 1 instance, 2 physical device, 3 device */
    PFN_vkVoidFunction fn;
};
#define E(n, k)                                                                                                        \
    { "vk" #n, (uint8_t)(sizeof("vk" #n) - 1), k, (PFN_vkVoidFunction)null_##n }
static const struct entry g_entries[] = {
    E(CreateInstance, 0),
    E(EnumerateInstanceExtensionProperties, 0),
    E(EnumerateInstanceVersion, 0),
    E(DestroyInstance, 1),
    E(EnumeratePhysicalDevices, 1),
    E(GetPhysicalDeviceProperties, 2),
    E(GetPhysicalDeviceProperties2, 2),
    E(GetPhysicalDeviceFeatures, 2),
    E(GetPhysicalDeviceMemoryProperties, 2),
    E(GetPhysicalDeviceQueueFamilyProperties, 2),
    E(EnumerateDeviceExtensionProperties, 2),
    E(CreateDevice, 2),
    E(DestroyDevice, 3),
    E(GetDeviceQueue, 3),
    E(CreateCommandPool, 3),
    E(DestroyCommandPool, 3),
    E(AllocateCommandBuffers, 3),
    E(FreeCommandBuffers, 3),
    E(CmdDraw, 3),
    E(CmdSetLineWidth, 3),
};
#undef E

static const struct entry *find(const char *name) {
    size_t len = strlen(name);
    for (size_t i = 0; i < sizeof(g_entries) / sizeof(g_entries[0]); i++)
        if (g_entries[i].len == len && memcmp(g_entries[i].name, name, len) == 0) return &g_entries[i];
    return NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL null_GetDeviceProcAddr(VkDevice dev, const char *name);

/* Every other vkGetPhysicalDevice* query is answered by a function that does nothing (the Khronos
 * loader 1.3.239 crashes when a driver lacks a core physical-device query). */
static VKAPI_ATTR VkResult VKAPI_CALL null_Stub(void) { return VK_SUCCESS; }
static PFN_vkVoidFunction physdev_stub(const char *name) {
    return strncmp(name, "vkGetPhysicalDevice", 19) == 0 ? (PFN_vkVoidFunction)null_Stub : NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_icdGetInstanceProcAddr(VkInstance inst, const char *name);

EXPORT VKAPI_ATTR VkResult VKAPI_CALL vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t *version) {
    if (*version > 7) *version = 7;
    return *version >= 5 ? VK_SUCCESS : VK_ERROR_INCOMPATIBLE_DRIVER;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_icdGetPhysicalDeviceProcAddr(VkInstance inst, const char *name) {
    (void)inst;
    const struct entry *e = find(name);
    if (e == NULL) return physdev_stub(name);
    return e->kind == 2 ? e->fn : NULL;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_icdGetInstanceProcAddr(VkInstance inst, const char *name) {
    if (strcmp(name, "vkGetInstanceProcAddr") == 0) return (PFN_vkVoidFunction)vk_icdGetInstanceProcAddr;
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) return (PFN_vkVoidFunction)null_GetDeviceProcAddr;
    if (inst == VK_NULL_HANDLE) {
        if (strcmp(name, "vk_icdNegotiateLoaderICDInterfaceVersion") == 0)
            return (PFN_vkVoidFunction)vk_icdNegotiateLoaderICDInterfaceVersion;
        if (strcmp(name, "vk_icdGetPhysicalDeviceProcAddr") == 0)
            return (PFN_vkVoidFunction)vk_icdGetPhysicalDeviceProcAddr;
    }
    const struct entry *e = find(name);
    if (e == NULL) return inst == VK_NULL_HANDLE ? NULL : physdev_stub(name);
    return inst == VK_NULL_HANDLE && e->kind != 0 ? NULL : e->fn;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL null_GetDeviceProcAddr(VkDevice dev, const char *name) {
    (void)dev;
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) return (PFN_vkVoidFunction)null_GetDeviceProcAddr;
    const struct entry *e = find(name);
    return e != NULL && e->kind == 3 ? e->fn : NULL;
}
