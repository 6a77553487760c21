/*
 * The mock layer's device-level commands: vkCreateDevice / vkDestroyDevice (with the loader's
 * create-device callback), queues, the device_functions / physdev_functions slots, and the wrapped
 * command pools, command buffers and queue submission (wrap_handles, wrap_command_pools).
 */
#include "mock_layers/mock_layer_internal.h"

/* ---- wrap_handles: queues and command buffers (LLP_LAYER_10) */

/* The device data and wrapper of a queue / command buffer wrapper (NULL: not one of ours). Lock held. */
static struct dev_data *queue_owner(VkQueue q, struct wrapped_queue **out) {
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (g_dev[i].key == NULL) continue;
        for (uint32_t k = 0; k < g_dev[i].queue_count; k++)
            if ((VkQueue)(void *)g_dev[i].queues[k] == q) {
                *out = g_dev[i].queues[k];
                return &g_dev[i];
            }
    }
    *out = NULL;
    return NULL;
}
static struct dev_data *cb_owner(VkCommandBuffer cb, struct wrapped_cb **out, int *slot) {
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (g_dev[i].key == NULL) continue;
        for (int k = 0; k < MAX_WRAPPED_CBS; k++)
            if (g_dev[i].cbs[k] != NULL && (VkCommandBuffer)(void *)g_dev[i].cbs[k] == cb) {
                *out = g_dev[i].cbs[k];
                if (slot) *slot = k;
                return &g_dev[i];
            }
    }
    *out = NULL;
    return NULL;
}

/* Whether the loader wrote its dispatch pointer (the device's) into a wrapper's first word. */
static bool loader_word_set(const struct dev_data *d, const void *wrapper) {
    return d != NULL && wrapper != NULL && *(void *const *)wrapper == d->key;
}

/* Frees the queue and command-buffer wrappers of `d` (vkDestroyDevice). Lock held. */
static void free_queue_cb_wrappers(struct dev_data *d) {
    for (uint32_t k = 0; k < d->queue_count; k++) obj_free(&d->alloc, d->queues[k]);
    d->queue_count = 0;
    for (int k = 0; k < MAX_WRAPPED_CBS; k++) {
        obj_free(&d->alloc, d->cbs[k]);
        d->cbs[k] = NULL;
    }
}

/* After vkGetDeviceQueue(2) called down (`called`; else the answer is VK_NULL_HANDLE): a wrapping
 * layer returns its wrapper of the queue below (the same wrapper every time) and records
 * {"device_unwrapped", "wrapped"}. */
static void wrap_got_queue(const char *call, bool called, VkDevice device, VkDevice below, VkQueue *pQueue) {
    if (!called) *pQueue = VK_NULL_HANDLE;
    pthread_mutex_lock(&g_lock);
    ensure_init();
    if (!g_sc.wrap_handles) {
        pthread_mutex_unlock(&g_lock);
        return;
    }
    struct dev_data *d = dev_find(device);
    struct wrapped_queue *w = NULL;
    if (d != NULL && *pQueue != VK_NULL_HANDLE) {
        for (uint32_t k = 0; k < d->queue_count && w == NULL; k++)
            if (d->queues[k]->real == *pQueue) w = d->queues[k];
        if (w == NULL && d->queue_count < MAX_WRAPPED_QUEUES) {
            w = obj_alloc(&d->alloc, sizeof(*w), VK_SYSTEM_ALLOCATION_SCOPE_DEVICE);
            if (w != NULL) {
                w->loader_data = (void *)(uintptr_t)ICD_LOADER_MAGIC;
                w->real = *pQueue;
                d->queues[d->queue_count++] = w;
            }
        }
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "device_unwrapped", below != device);
    cJSON_AddBoolToObject(o, "wrapped", w != NULL);
    record(call, o);
    pthread_mutex_unlock(&g_lock);
    *pQueue = w != NULL ? (VkQueue)(void *)w : VK_NULL_HANDLE;
}

/* create_own_device: a device of the layer's own on the physical device below it, made through the
 * loader's pfnLayerCreateDevice with the chain below this layer (layerGIPA: the layer's next
 * vkGetInstanceProcAddr), used through the returned vkGetDeviceProcAddr (one queue fetched) and
 * destroyed through pfnLayerDestroyDevice. Records {"call":"own_device","callback","result",
 * "gdpa","queue","destroyed"}. */
static void own_device(const struct inst_data *id, VkPhysicalDevice below, const VkDeviceCreateInfo *ci,
                       const VkAllocationCallbacks *a, PFN_vkGetInstanceProcAddr next_gipa) {
    cJSON *o = cJSON_CreateObject();
    bool callback = id->layer_create_device != NULL && id->layer_destroy_device != NULL;
    cJSON_AddBoolToObject(o, "callback", callback);
    if (callback) {
        VkDeviceCreateInfo own = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                  .queueCreateInfoCount = ci->queueCreateInfoCount,
                                  .pQueueCreateInfos = ci->pQueueCreateInfos};
        VkDevice dev = VK_NULL_HANDLE;
        PFN_vkGetDeviceProcAddr gdpa = NULL;
        /* layerGIPA: the caller's own vkGetInstanceProcAddr (the Khronos loader's reading), or with
         * "own_device_next_gipa" the next one it was given. */
        PFN_vkGetInstanceProcAddr calling = g_sc.own_device_next_gipa ? next_gipa : layer_GetInstanceProcAddr;
        cJSON_AddStringToObject(o, "layer_gipa", g_sc.own_device_next_gipa ? "next" : "own");
        VkResult r = id->layer_create_device(id->instance, below, &own, a, &dev, calling, &gdpa);
        cJSON_AddNumberToObject(o, "result", r);
        cJSON_AddBoolToObject(o, "gdpa", gdpa != NULL);
        if (r == VK_SUCCESS && dev != VK_NULL_HANDLE) {
            PFN_vkGetDeviceQueue gq = gdpa ? (PFN_vkGetDeviceQueue)gdpa(dev, "vkGetDeviceQueue") : NULL;
            VkQueue q = VK_NULL_HANDLE;
            if (gq != NULL && ci->queueCreateInfoCount > 0) gq(dev, ci->pQueueCreateInfos[0].queueFamilyIndex, 0, &q);
            cJSON_AddBoolToObject(o, "queue", q != VK_NULL_HANDLE);
            PFN_vkDestroyDevice dd = gdpa ? (PFN_vkDestroyDevice)gdpa(dev, "vkDestroyDevice") : NULL;
            id->layer_destroy_device(dev, a, dd);
            cJSON_AddBoolToObject(o, "destroyed", true);
        }
    }
    pthread_mutex_lock(&g_lock);
    record("own_device", o);
    pthread_mutex_unlock(&g_lock);
}

VKAPI_ATTR VkResult VKAPI_CALL layer_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                                  const VkAllocationCallbacks *a, VkDevice *pDevice) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    VkLayerDeviceCreateInfo *found = NULL;
    bool have_loader_data = false;
    PFN_vkSetDeviceLoaderData set_loader_data = NULL;
    for (VkLayerDeviceCreateInfo *l = (VkLayerDeviceCreateInfo *)ci->pNext; l != NULL;
         l = (VkLayerDeviceCreateInfo *)l->pNext) {
        if (l->sType != VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO) continue;
        if (l->function == VK_LOADER_DATA_CALLBACK) {
            have_loader_data = l->u.pfnSetDeviceLoaderData != NULL;
            set_loader_data = l->u.pfnSetDeviceLoaderData;
        }
        if (l->function == VK_LAYER_LINK_INFO && found == NULL) found = l;
    }
    struct inst_data *idp = inst_find(pd);
    VkPhysicalDevice below = unwrap_pd(idp, pd);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "link_info", found != NULL && found->u.pLayerInfo != NULL);
    cJSON_AddBoolToObject(o, "set_device_loader_data", have_loader_data);
    cJSON_AddBoolToObject(o, "allocator", a != NULL);
    if (idp != NULL && idp->wrap) cJSON_AddBoolToObject(o, "unwrapped_physical_device", below != pd);
    if (idp == NULL && g_sc.strict_handles) cJSON_AddBoolToObject(o, "foreign_handle", true);
    cJSON *dexts = cJSON_AddArrayToObject(o, "extensions");
    for (uint32_t i = 0; i < ci->enabledExtensionCount; i++)
        cJSON_AddItemToArray(dexts, cJSON_CreateString(ci->ppEnabledExtensionNames[i]));
    record("vkCreateDevice", o);
    struct scenario sc = g_sc;
    struct inst_data *id = inst_find(pd);
    pthread_mutex_unlock(&g_lock);
    if (found == NULL || found->u.pLayerInfo == NULL || id == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    if (found->u.pLayerInfo == atomic_load_explicit(&g_unadvanced_device_link, memory_order_relaxed))
        return VK_ERROR_INITIALIZATION_FAILED; /* a loop */
    PFN_vkGetInstanceProcAddr next_gipa = found->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr next_gdpa = found->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    PFN_vkCreateDevice next_create = (PFN_vkCreateDevice)next_gipa(id->instance, "vkCreateDevice");
    if (next_create == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    if (!sc.no_advance_link) found->u.pLayerInfo = found->u.pLayerInfo->pNext;
    if (sc.clobber_device) *pDevice = (VkDevice)(uintptr_t)g_clobbered_device;
    if (sc.no_call_down) return VK_SUCCESS;
    /* add_device_extension: the create info below enables one more extension (not twice). */
    VkDeviceCreateInfo added = *ci;
    const char **names = NULL;
    if (sc.add_device_extension[0] != '\0') {
        bool has = false;
        for (uint32_t i = 0; i < ci->enabledExtensionCount; i++)
            has = has || strcmp(ci->ppEnabledExtensionNames[i], sc.add_device_extension) == 0;
        names = has ? NULL : calloc((size_t)ci->enabledExtensionCount + 1, sizeof(*names));
        if (names != NULL) {
            for (uint32_t i = 0; i < ci->enabledExtensionCount; i++) names[i] = ci->ppEnabledExtensionNames[i];
            names[ci->enabledExtensionCount] = sc.add_device_extension;
            added.enabledExtensionCount = ci->enabledExtensionCount + 1;
            added.ppEnabledExtensionNames = names;
            ci = &added;
        }
    }
    if (sc.reenter_device) reenter(&sc, true);
    const void *outer_link = atomic_load_explicit(&g_unadvanced_device_link, memory_order_relaxed);
    if (sc.no_advance_link) atomic_store_explicit(&g_unadvanced_device_link, found->u.pLayerInfo, memory_order_relaxed);
    VkResult r = next_create(below, ci, a, pDevice);
    free(names);
    atomic_store_explicit(&g_unadvanced_device_link, outer_link, memory_order_relaxed);
    if (r != VK_SUCCESS) return r;
    if (sc.fail_device_after_call_down) {
        /* As a layer whose own work fails after its call down succeeded: the device below is
         * destroyed through the chain (the next vkGetDeviceProcAddr's vkDestroyDevice). */
        PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)next_gdpa(*pDevice, "vkDestroyDevice");
        if (destroy != NULL) destroy(*pDevice, a);
        *pDevice = VK_NULL_HANDLE;
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (sc.create_own_device) own_device(id, below, ci, a, next_gipa);
    VkDevice real = *pDevice;
    struct wrapped_dev *w = NULL;
    struct alloc_cb ac = alloc_from(a);
    if (sc.wrap_handles) {
        w = obj_alloc(&ac, sizeof(*w), VK_SYSTEM_ALLOCATION_SCOPE_DEVICE);
        if (w == NULL) {
            PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)next_gdpa(real, "vkDestroyDevice");
            if (destroy) destroy(real, a);
            return VK_ERROR_OUT_OF_HOST_MEMORY;
        }
        w->real = real;
        /* The loader's dispatch pointer in the wrapper's first word (LLP_LAYER_19). */
        if (set_loader_data == NULL || set_loader_data(real, w) != VK_SUCCESS) w->loader_data = key_of(real);
        *pDevice = (VkDevice)(void *)w;
    }
    struct dev_data tmp = {0}; /* filled without the lock, as in layer_CreateInstance */
    tmp.key = key_of(real);
    tmp.next_gdpa = next_gdpa;
    tmp.DestroyDevice = (PFN_vkDestroyDevice)next_gdpa(real, "vkDestroyDevice");
    tmp.GetDeviceQueue = (PFN_vkGetDeviceQueue)next_gdpa(real, "vkGetDeviceQueue");
    for (int k = 0; k < FN_SLOTS; k++)
        if (sc.device_functions[k][0] != '\0') tmp.fn_next[k] = next_gdpa(real, sc.device_functions[k]);
    tmp.wrapped = w;
    tmp.alloc = ac;
    for (uint32_t i = 0; i < ci->enabledExtensionCount; i++)
        if (sc.device_extension[0] != '\0' && strcmp(ci->ppEnabledExtensionNames[i], sc.device_extension) == 0)
            tmp.ext_enabled = true;
    if (sc.wrap_handles) {
        tmp.GetDeviceQueue2 = (PFN_vkGetDeviceQueue2)next_gdpa(real, "vkGetDeviceQueue2");
        tmp.BeginCommandBuffer = (PFN_vkBeginCommandBuffer)next_gdpa(real, "vkBeginCommandBuffer");
        tmp.EndCommandBuffer = (PFN_vkEndCommandBuffer)next_gdpa(real, "vkEndCommandBuffer");
        tmp.CmdFillBuffer = (PFN_vkCmdFillBuffer)next_gdpa(real, "vkCmdFillBuffer");
        tmp.QueueSubmit = (PFN_vkQueueSubmit)next_gdpa(real, "vkQueueSubmit");
    }
    if (sc.wrap_command_pools || sc.wrap_handles) {
        tmp.CreateCommandPool = (PFN_vkCreateCommandPool)next_gdpa(real, "vkCreateCommandPool");
        tmp.DestroyCommandPool = (PFN_vkDestroyCommandPool)next_gdpa(real, "vkDestroyCommandPool");
        tmp.AllocateCommandBuffers = (PFN_vkAllocateCommandBuffers)next_gdpa(real, "vkAllocateCommandBuffers");
        tmp.FreeCommandBuffers = (PFN_vkFreeCommandBuffers)next_gdpa(real, "vkFreeCommandBuffers");
    }
    store_record(g_dev, sizeof(g_dev[0]), &tmp);
    return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL layer_DestroyDevice(VkDevice device, const VkAllocationCallbacks *a) {
    if (device == VK_NULL_HANDLE) return;
    rec("vkDestroyDevice");
    VkDevice below;
    struct dev_data *d = dev_lock(device, &below);
    PFN_vkDestroyDevice next = d ? d->DestroyDevice : NULL;
    struct wrapped_dev *w = d ? d->wrapped : NULL;
    struct alloc_cb ac = d ? d->alloc : alloc_from(NULL);
    if (d) free_queue_cb_wrappers(d);
    if (d) memset(d, 0, sizeof(*d));
    pthread_mutex_unlock(&g_lock);
    if (next) next(below, a);
    obj_free(&ac, w);
}

VKAPI_ATTR void VKAPI_CALL layer_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *pQueue) {
    VkDevice below;
    struct dev_data *d = dev_lock(device, &below);
    PFN_vkGetDeviceQueue next = d ? d->GetDeviceQueue : NULL;
    pthread_mutex_unlock(&g_lock);
    if (next) next(below, family, index, pQueue);
    wrap_got_queue("vkGetDeviceQueue", next != NULL, device, below, pQueue);
}

VKAPI_ATTR void VKAPI_CALL layer_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *pQueue) {
    VkDevice below;
    struct dev_data *d = dev_lock(device, &below);
    PFN_vkGetDeviceQueue2 next = d ? d->GetDeviceQueue2 : NULL;
    pthread_mutex_unlock(&g_lock);
    if (next) next(below, info, pQueue);
    wrap_got_queue("vkGetDeviceQueue2", next != NULL, device, below, pQueue);
}

/* Records a call of a device_functions / physdev_functions slot command. Lock held. */
static void record_slot_call(const char *name, uint32_t x, bool unwrapped, bool called_down) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "arg", x);
    cJSON_AddBoolToObject(o, "unwrapped", unwrapped);
    cJSON_AddBoolToObject(o, "called_down", called_down);
    record(name, o);
}

/* "device_functions": commands with the mock ICD's unknown-function signature
 * (uint32_t fn(VkDevice, uint32_t), mock_icd_ctl.h) that the layer answers itself: it records
 * {"call": name, "arg": x, "unwrapped": bool} and calls down with the handle the layer below knows. */
static uint32_t call_device_function(int slot, VkDevice device, uint32_t x) {
    VkDevice below;
    struct dev_data *d = dev_lock(device, &below);
    PFN_vkVoidFunction next = d ? d->fn_next[slot] : NULL;
    record_slot_call(g_sc.device_functions[slot], x, below != device, next != NULL);
    pthread_mutex_unlock(&g_lock);
    typedef uint32_t(VKAPI_PTR * PFN_mock_device_function)(VkDevice, uint32_t);
    return next ? ((PFN_mock_device_function)next)(below, x) : MOCK_LAYER_OWN_DEVICE_RESULT(x);
}

/* "physdev_functions": physical-device commands (uint32_t fn(VkPhysicalDevice, uint32_t), the mock
 * ICD's physical-device pool signature) the layer answers through vkGetInstanceProcAddr and its
 * GPDPA: it records {"call": name, "arg": x, "unwrapped": bool, "called_down": bool} and calls
 * down when the next GPDPA in its link answers the name; otherwise it answers
 * MOCK_LAYER_OWN_PHYSDEV_RESULT(x) itself. */
static uint32_t call_physdev_function(int slot, VkPhysicalDevice pd, uint32_t x) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    struct inst_data *d = inst_find(pd);
    PFN_GetPhysicalDeviceProcAddr next_gpdpa = d ? d->next_gpdpa : NULL;
    VkInstance instance = d ? d->instance : VK_NULL_HANDLE;
    VkPhysicalDevice below = unwrap_pd(d, pd);
    char name[VK_MAX_EXTENSION_NAME_SIZE];
    snprintf(name, sizeof(name), "%s", g_sc.physdev_functions[slot]);
    bool at_create = g_sc.physdev_next_at_create;
    PFN_vkVoidFunction next = d != NULL && at_create ? d->physdev_next[slot] : NULL;
    pthread_mutex_unlock(&g_lock);
    /* Asked without the lock: the next layer may be this very library. */
    if (!at_create && next_gpdpa != NULL) next = next_gpdpa(instance, name);
    pthread_mutex_lock(&g_lock);
    record_slot_call(name, x, below != pd, next != NULL);
    pthread_mutex_unlock(&g_lock);
    typedef uint32_t(VKAPI_PTR * PFN_mock_physdev_function)(VkPhysicalDevice, uint32_t);
    return next ? ((PFN_mock_physdev_function)next)(below, x) : MOCK_LAYER_OWN_PHYSDEV_RESULT(x);
}

/* The entry points of slot n: a device_functions and a physdev_functions command. */
#define SLOT_FUNCTIONS(n)                                                                                              \
    static VKAPI_ATTR uint32_t VKAPI_CALL device_function_##n(VkDevice d, uint32_t x) {                                \
        return call_device_function(n, d, x);                                                                          \
    }                                                                                                                  \
    static VKAPI_ATTR uint32_t VKAPI_CALL physdev_function_##n(VkPhysicalDevice p, uint32_t x) {                       \
        return call_physdev_function(n, p, x);                                                                         \
    }
SLOT_FUNCTIONS(0)
SLOT_FUNCTIONS(1)
SLOT_FUNCTIONS(2)
SLOT_FUNCTIONS(3)
const PFN_vkVoidFunction g_device_function_slots[FN_SLOTS] = {
    (PFN_vkVoidFunction)device_function_0, (PFN_vkVoidFunction)device_function_1, (PFN_vkVoidFunction)device_function_2,
    (PFN_vkVoidFunction)device_function_3};
static const PFN_vkVoidFunction g_physdev_function_slots[FN_SLOTS] = {
    (PFN_vkVoidFunction)physdev_function_0, (PFN_vkVoidFunction)physdev_function_1,
    (PFN_vkVoidFunction)physdev_function_2, (PFN_vkVoidFunction)physdev_function_3};

/* The scenario's physdev_functions, for `instance` (gated by instance_extension when set). Lock held. */
PFN_vkVoidFunction own_physdev_fn(VkInstance instance, const char *name) {
    for (int k = 0; k < FN_SLOTS; k++) {
        if (g_sc.physdev_functions[k][0] == '\0' || strcmp(name, g_sc.physdev_functions[k]) != 0) continue;
        if (g_sc.instance_extension[0] != '\0') {
            const struct inst_data *d = instance != VK_NULL_HANDLE ? inst_find(instance) : NULL;
            if (d == NULL || !d->ext_enabled) return NULL; /* LLP_LAYER_18 */
        }
        return g_physdev_function_slots[k];
    }
    return NULL;
}

/* "wrap_command_pools": the layer's own VkCommandPool handles (a non-dispatchable handle,
 * LLP_LAYER_10). A handle is the address of a {real pool} wrapper allocated with the application's
 * callbacks when it gave any; every command taking a pool unwraps it before calling down and
 * records "unwrapped" (the handle received was one of its wrappers). */
#define MAX_POOLS 64
struct wrapped_pool {
    VkCommandPool real;
    struct alloc_cb alloc;
};
static struct wrapped_pool *g_pools[MAX_POOLS]; /* lock held */

/* The slot of g_pools whose wrapper `pool` is, or -1. Lock held. */
static int pool_slot(VkCommandPool pool) {
    for (int i = 0; i < MAX_POOLS; i++)
        if (g_pools[i] != NULL && (VkCommandPool)(uintptr_t)g_pools[i] == pool) return i;
    return -1;
}

static VkCommandPool unwrap_pool(VkCommandPool pool, bool *was_wrapped) {
    int i = pool_slot(pool);
    *was_wrapped = i >= 0;
    return i >= 0 ? g_pools[i]->real : pool;
}

/* vkDestroyCommandPool: unwraps `pool` and takes its wrapper (NULL: it was none) out of g_pools. */
static VkCommandPool take_pool(VkCommandPool pool, struct wrapped_pool **w) {
    int i = pool_slot(pool);
    *w = i >= 0 ? g_pools[i] : NULL;
    if (i < 0) return pool;
    g_pools[i] = NULL;
    return (*w)->real;
}

static void rec_pool(const char *call, bool unwrapped) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "unwrapped", unwrapped);
    record(call, o);
}

VKAPI_ATTR VkResult VKAPI_CALL layer_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *ci,
                                                       const VkAllocationCallbacks *a, VkCommandPool *pPool) {
    VkDevice below;
    struct dev_data *d = dev_lock(device, &below);
    PFN_vkCreateCommandPool next = d ? d->CreateCommandPool : NULL;
    bool wrap_pools = g_sc.wrap_command_pools;
    pthread_mutex_unlock(&g_lock);
    if (next == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    if (!wrap_pools) return next(below, ci, a, pPool); /* wrap_handles alone: only the VkDevice is unwrapped */
    VkCommandPool real = VK_NULL_HANDLE;
    VkResult r = next(below, ci, a, &real);
    if (r != VK_SUCCESS) return r;
    struct alloc_cb ac = alloc_from(a);
    struct wrapped_pool *w = obj_alloc(&ac, sizeof(*w), VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
    pthread_mutex_lock(&g_lock);
    int slot = -1;
    for (int i = 0; i < MAX_POOLS && slot < 0; i++)
        if (g_pools[i] == NULL) slot = i;
    if (w != NULL && slot >= 0) {
        w->real = real;
        w->alloc = ac;
        g_pools[slot] = w;
        *pPool = (VkCommandPool)(uintptr_t)w;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "wrapped", w != NULL && slot >= 0);
    record("vkCreateCommandPool", o);
    pthread_mutex_unlock(&g_lock);
    if (w == NULL || slot < 0) {
        obj_free(&ac, w);
        PFN_vkDestroyCommandPool destroy = d ? d->DestroyCommandPool : NULL;
        if (destroy != NULL) destroy(below, real, a);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL layer_DestroyCommandPool(VkDevice device, VkCommandPool pool,
                                                    const VkAllocationCallbacks *a) {
    VkDevice below;
    struct dev_data *d = dev_lock(device, &below);
    PFN_vkDestroyCommandPool next = d ? d->DestroyCommandPool : NULL;
    struct wrapped_pool *w;
    VkCommandPool real = take_pool(pool, &w);
    bool wrapped = w != NULL;
    rec_pool("vkDestroyCommandPool", wrapped);
    /* The pool's command buffers go with it, and so do their wrappers. */
    for (int k = 0; d != NULL && k < MAX_WRAPPED_CBS; k++)
        if (d->cbs[k] != NULL && d->cbs[k]->pool == pool) {
            obj_free(&d->alloc, d->cbs[k]);
            d->cbs[k] = NULL;
        }
    pthread_mutex_unlock(&g_lock);
    if (next != NULL) next(below, real, a);
    if (w != NULL) {
        struct alloc_cb ac = w->alloc;
        obj_free(&ac, w);
    }
}

VKAPI_ATTR VkResult VKAPI_CALL layer_AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo *info,
                                                            VkCommandBuffer *pBuffers) {
    VkDevice below;
    struct dev_data *d = dev_lock(device, &below);
    PFN_vkAllocateCommandBuffers next = d ? d->AllocateCommandBuffers : NULL;
    VkCommandBufferAllocateInfo copy = *info;
    bool wrapped;
    copy.commandPool = unwrap_pool(info->commandPool, &wrapped);
    bool wrap_cbs = g_sc.wrap_handles;
    pthread_mutex_unlock(&g_lock);
    VkResult r = next != NULL ? next(below, &copy, pBuffers) : VK_ERROR_INITIALIZATION_FAILED;
    const VkResult below_r = r;
    pthread_mutex_lock(&g_lock);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "unwrapped", wrapped);
    if (wrap_cbs) {
        /* wrap_handles: one wrapper per command buffer; the loader's trampoline fills the first word. */
        d = dev_find(device);
        uint32_t n = 0;
        for (uint32_t i = 0; r == VK_SUCCESS && i < info->commandBufferCount; i++) {
            int slot = -1;
            for (int k = 0; d != NULL && k < MAX_WRAPPED_CBS && slot < 0; k++)
                if (d->cbs[k] == NULL) slot = k;
            struct wrapped_cb *w =
                slot >= 0 ? obj_alloc(&d->alloc, sizeof(*w), VK_SYSTEM_ALLOCATION_SCOPE_OBJECT) : NULL;
            if (w == NULL) {
                r = VK_ERROR_OUT_OF_HOST_MEMORY;
                break;
            }
            w->loader_data = (void *)(uintptr_t)ICD_LOADER_MAGIC;
            w->real = pBuffers[i];
            w->pool = info->commandPool;
            d->cbs[slot] = w;
            pBuffers[i] = (VkCommandBuffer)(void *)w;
            n++;
        }
        if (r != VK_SUCCESS && n > 0) { /* undo: give the wrapped ones back to the layer below */
            for (uint32_t i = 0; i < n; i++) {
                struct wrapped_cb *w = NULL;
                int slot = -1;
                cb_owner(pBuffers[i], &w, &slot);
                if (w == NULL) continue;
                pBuffers[i] = w->real;
                obj_free(&d->alloc, w);
                d->cbs[slot] = NULL;
            }
        }
        cJSON_AddBoolToObject(o, "device_unwrapped", below != device);
        cJSON_AddNumberToObject(o, "wrapped", n);
    }
    record("vkAllocateCommandBuffers", o);
    PFN_vkFreeCommandBuffers free_below = d ? d->FreeCommandBuffers : NULL;
    pthread_mutex_unlock(&g_lock);
    if (below_r == VK_SUCCESS && r != VK_SUCCESS && free_below != NULL)
        free_below(below, copy.commandPool, info->commandBufferCount, pBuffers);
    if (r != VK_SUCCESS)
        for (uint32_t i = 0; i < info->commandBufferCount; i++) pBuffers[i] = VK_NULL_HANDLE;
    return r;
}

VKAPI_ATTR void VKAPI_CALL layer_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                                    const VkCommandBuffer *pBuffers) {
    VkDevice below;
    struct dev_data *d = dev_lock(device, &below);
    PFN_vkFreeCommandBuffers next = d ? d->FreeCommandBuffers : NULL;
    bool wrapped;
    VkCommandPool real = unwrap_pool(pool, &wrapped);
    /* wrap_handles: the layer below gets its own command buffers; the wrappers go. */
    VkCommandBuffer *reals = NULL;
    if (g_sc.wrap_handles && count > 0 && pBuffers != NULL) {
        reals = calloc(count, sizeof(*reals));
        bool all = reals != NULL;
        for (uint32_t i = 0; reals != NULL && i < count; i++) {
            struct wrapped_cb *w = NULL;
            int slot = -1;
            struct dev_data *owner = cb_owner(pBuffers[i], &w, &slot);
            reals[i] = w != NULL ? w->real : pBuffers[i];
            all = all && (w != NULL || pBuffers[i] == VK_NULL_HANDLE);
            if (w != NULL) {
                obj_free(&owner->alloc, w);
                owner->cbs[slot] = NULL;
            }
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddBoolToObject(o, "unwrapped", wrapped);
        cJSON_AddBoolToObject(o, "device_unwrapped", below != device);
        cJSON_AddBoolToObject(o, "command_buffers_unwrapped", all);
        record("vkFreeCommandBuffers", o);
    } else {
        rec_pool("vkFreeCommandBuffers", wrapped);
    }
    pthread_mutex_unlock(&g_lock);
    if (next != NULL) next(below, real, count, reals != NULL ? reals : pBuffers);
    free(reals);
}

/* wrap_handles: commands taking a command buffer or a queue unwrap it and record {"unwrapped": the
 * handle was one of the layer's wrappers, "loader_word": the loader had written its dispatch
 * pointer into the wrapper's first word}. A handle that is not a wrapper (a layer above that
 * wraps too is not supported) is passed down as it came, found by its dispatch key. */
static struct dev_data *cb_begin_call(const char *call, VkCommandBuffer cb, VkCommandBuffer *below) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    struct wrapped_cb *w = NULL;
    struct dev_data *d = cb_owner(cb, &w, NULL);
    if (d == NULL) d = dev_find(cb);
    *below = w != NULL ? w->real : cb;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "unwrapped", w != NULL);
    cJSON_AddBoolToObject(o, "loader_word", loader_word_set(d, w));
    record(call, o);
    pthread_mutex_unlock(&g_lock);
    return d;
}

VKAPI_ATTR VkResult VKAPI_CALL layer_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info) {
    VkCommandBuffer below;
    struct dev_data *d = cb_begin_call("vkBeginCommandBuffer", cb, &below);
    PFN_vkBeginCommandBuffer next = d ? d->BeginCommandBuffer : NULL;
    return next != NULL ? next(below, info) : VK_ERROR_INITIALIZATION_FAILED;
}

VKAPI_ATTR VkResult VKAPI_CALL layer_EndCommandBuffer(VkCommandBuffer cb) {
    VkCommandBuffer below;
    struct dev_data *d = cb_begin_call("vkEndCommandBuffer", cb, &below);
    PFN_vkEndCommandBuffer next = d ? d->EndCommandBuffer : NULL;
    return next != NULL ? next(below) : VK_ERROR_INITIALIZATION_FAILED;
}

VKAPI_ATTR void VKAPI_CALL layer_CmdFillBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset,
                                               VkDeviceSize size, uint32_t data) {
    VkCommandBuffer below;
    struct dev_data *d = cb_begin_call("vkCmdFillBuffer", cb, &below);
    PFN_vkCmdFillBuffer next = d ? d->CmdFillBuffer : NULL;
    if (next != NULL) next(below, buffer, offset, size, data);
}

/* Records {"unwrapped": the queue, "command_buffers_unwrapped": every command buffer of every
 * submit was a wrapper, "loader_word": of the queue wrapper}; the layer below gets copies of the
 * submit infos holding its own command buffers. */
VKAPI_ATTR VkResult VKAPI_CALL layer_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                                 VkFence fence) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    struct wrapped_queue *wq = NULL;
    struct dev_data *d = queue_owner(queue, &wq);
    if (d == NULL) d = dev_find(queue);
    PFN_vkQueueSubmit next = d ? d->QueueSubmit : NULL;
    if (submits == NULL) count = 0; /* invalid usage: nothing to copy, nothing to submit */
    size_t total = 0;               /* size_t: a sum of uint32_t counts does not wrap */
    for (uint32_t i = 0; i < count; i++) total += submits[i].commandBufferCount;
    VkSubmitInfo *infos = count > 0 ? calloc(count, sizeof(*infos)) : NULL;
    VkCommandBuffer *cbs = total > 0 ? calloc(total, sizeof(*cbs)) : NULL;
    bool ok = (count == 0 || infos != NULL) && (total == 0 || cbs != NULL);
    bool all = true;
    size_t n = 0;
    for (uint32_t i = 0; ok && i < count; i++) {
        infos[i] = submits[i];
        infos[i].pCommandBuffers = submits[i].commandBufferCount > 0 ? &cbs[n] : NULL;
        for (uint32_t k = 0; k < submits[i].commandBufferCount && n < total; k++, n++) {
            struct wrapped_cb *w = NULL;
            cb_owner(submits[i].pCommandBuffers[k], &w, NULL);
            all = all && w != NULL;
            cbs[n] = w != NULL ? w->real : submits[i].pCommandBuffers[k];
        }
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "unwrapped", wq != NULL);
    cJSON_AddBoolToObject(o, "command_buffers_unwrapped", all);
    cJSON_AddBoolToObject(o, "loader_word", loader_word_set(d, wq));
    record("vkQueueSubmit", o);
    pthread_mutex_unlock(&g_lock);
    VkResult r = !ok            ? VK_ERROR_OUT_OF_HOST_MEMORY
                 : next != NULL ? next(wq != NULL ? wq->real : queue, count, infos, fence)
                                : VK_ERROR_INITIALIZATION_FAILED;
    free(infos);
    free(cbs);
    return r;
}
