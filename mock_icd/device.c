/* Mock driver, devices: queues, command pools and buffers, images, buffers and device memory; the
 * helpers of the generated no-op core commands (mock_gen.h). */
#include "mock_icd/mock_icd_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* Device                                                                                       */

static void destroy_device_objects(struct mock_device *d);

void device_free(struct mock_device *d) {
    destroy_device_objects(d);
    for (uint32_t k = 0; k < d->queue_count; k++) free(d->queues[k]);
    free(d->queues);
    scenario_release(d->sc);
    free(d);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_CreateDevice(VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo *ci,
                                                 const VkAllocationCallbacks *alloc, VkDevice *out) {
    GET_PD("vkCreateDevice", VK_ERROR_INITIALIZATION_FAILED);
    const struct physdev_cfg *c = pd->cfg;
    bool unpublished = sc_now()->mb.unpublished_extension;
    VkResult r = VK_SUCCESS;
    uint32_t total_queues = 0;
    if (!ci || !out) {
        r = VK_ERROR_INITIALIZATION_FAILED;
    } else {
        for (uint32_t i = 0; i < ci->enabledExtensionCount; i++) {
            const char *e = ci->ppEnabledExtensionNames[i];
            if (!e || (!has_ext(c->exts, c->ext_count, e) && !(unpublished && strcmp(e, UNPUBLISHED_EXTENSION) == 0)))
                r = VK_ERROR_EXTENSION_NOT_PRESENT;
        }
        for (uint32_t i = 0; r == VK_SUCCESS && i < ci->queueCreateInfoCount; i++) {
            const VkDeviceQueueCreateInfo *q = &ci->pQueueCreateInfos[i];
            if (q->queueFamilyIndex >= c->family_count || q->queueCount == 0 ||
                q->queueCount > c->families[q->queueFamilyIndex].count)
                r = VK_ERROR_INITIALIZATION_FAILED;
            else
                total_queues += q->queueCount;
        }
    }
    VkResult inj = injected("vkCreateDevice");
    if (inj < 0) r = inj;
    struct mock_device *d = NULL;
    bool null_device = r == VK_SUCCESS && sc_now()->mb.null_device; /* VK_SUCCESS and a NULL VkDevice */
    if (null_device) *out = VK_NULL_HANDLE;
    if (r == VK_SUCCESS && !null_device) {
        d = calloc(1, sizeof *d);
        if (d) d->queues = calloc(total_queues + 1, sizeof *d->queues);
        if (!d || !d->queues) {
            free(d);
            d = NULL;
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    if (d) {
        set_magic(d);
        d->api_version = pd->cfg->api_version;
        d->sc = pd->instance->sc;
        d->sc->refs++;
        for (uint32_t i = 0; i < ci->queueCreateInfoCount; i++) {
            const VkDeviceQueueCreateInfo *q = &ci->pQueueCreateInfos[i];
            for (uint32_t k = 0; k < q->queueCount; k++) {
                struct mock_queue *mq = calloc(1, sizeof *mq);
                if (!mq) {
                    r = VK_ERROR_OUT_OF_HOST_MEMORY;
                    continue;
                }
                set_magic(mq);
                if (sc_now()->mb.queue_without_magic) set_foreign_first_word(mq);
                mq->device = d;
                mq->family = q->queueFamilyIndex;
                mq->index = k;
                d->queues[d->queue_count++] = mq;
            }
        }
        if (r != VK_SUCCESS) {
            device_free(d);
            d = NULL;
        } else {
            pthread_mutex_lock(&g_lock);
            d->next = g_devices;
            g_devices = d;
            pthread_mutex_unlock(&g_lock);
            *out = (VkDevice)d;
            if (inj > 0) r = inj;
        }
    }
    cJSON *o = rec_new("vkCreateDevice");
    cJSON_AddNumberToObject(o, "physical_device", pd->index);
    if (null_device) cJSON_AddBoolToObject(o, "null_device", true);
    if (ci) {
        rec_add_strings(o, "extensions", ci->ppEnabledExtensionNames, ci->enabledExtensionCount);
        rec_add_strings(o, "layers", ci->ppEnabledLayerNames, ci->enabledLayerCount);
        cJSON *qa = cJSON_AddArrayToObject(o, "queues");
        for (uint32_t i = 0; qa && i < ci->queueCreateInfoCount; i++) {
            cJSON *q = cJSON_CreateObject();
            cJSON_AddNumberToObject(q, "family", ci->pQueueCreateInfos[i].queueFamilyIndex);
            cJSON_AddNumberToObject(q, "count", ci->pQueueCreateInfos[i].queueCount);
            cJSON_AddItemToArray(qa, q);
        }
    }
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

static void destroy_device_objects(struct mock_device *d) {
    while (d->images) {
        struct mock_image *im = d->images;
        d->images = im->next;
        free(im->mapped);
        free(im);
    }
    while (d->pools) {
        struct mock_pool *p = d->pools;
        d->pools = p->next;
        while (p->cmdbufs) {
            struct mock_cmdbuf *cb = p->cmdbufs;
            p->cmdbufs = cb->next;
            free(cb);
        }
        free(p);
    }
}

VKAPI_ATTR void VKAPI_CALL mock_DestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc) {
    pthread_mutex_lock(&g_lock);
    struct mock_device **pp = &g_devices;
    while (*pp && (void *)*pp != (void *)device) pp = &(*pp)->next;
    struct mock_device *d = *pp;
    if (d) *pp = d->next;
    pthread_mutex_unlock(&g_lock);
    cJSON *o = rec_new("vkDestroyDevice");
    cJSON_AddBoolToObject(o, "valid", d != NULL || device == VK_NULL_HANDLE);
    rec_emit(o);
    if (d) device_free(d);
}

static struct mock_queue *get_queue(struct mock_device *d, uint32_t family, uint32_t index) {
    for (uint32_t k = 0; k < d->queue_count; k++)
        if (d->queues[k]->family == family && d->queues[k]->index == index) return d->queues[k];
    return NULL;
}

VKAPI_ATTR void VKAPI_CALL mock_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *out) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle("vkGetDeviceQueue", "VkDevice");
        return;
    }
    if (out) *out = (VkQueue)get_queue(d, family, index);
}

VKAPI_ATTR void VKAPI_CALL mock_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *out) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle("vkGetDeviceQueue2", "VkDevice");
        return;
    }
    if (out && info) *out = (VkQueue)get_queue(d, info->queueFamilyIndex, info->queueIndex);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_DeviceWaitIdle(VkDevice device) {
    if (!find_device(device)) {
        rec_invalid_handle("vkDeviceWaitIdle", "VkDevice");
        return VK_ERROR_DEVICE_LOST;
    }
    return injected("vkDeviceWaitIdle");
}

/* VK_EXT_debug_utils object names: records the object type and whether the handle names an object
 * of this driver (its instance, a physical device or the device), as a driver that looks the object
 * up would; an unknown instance or physical device is VK_ERROR_DEVICE_LOST here. */
static VkResult object_named(const char *call, VkDevice device, VkObjectType type, uint64_t handle) {
    if (!find_device(device)) {
        rec_invalid_handle(call, "VkDevice");
        return VK_ERROR_DEVICE_LOST;
    }
    bool known = true;
    if (type == VK_OBJECT_TYPE_INSTANCE) known = find_instance((VkInstance)(uintptr_t)handle) != NULL;
    if (type == VK_OBJECT_TYPE_PHYSICAL_DEVICE) known = find_physdev((VkPhysicalDevice)(uintptr_t)handle) != NULL;
    if (type == VK_OBJECT_TYPE_DEVICE) known = find_device((VkDevice)(uintptr_t)handle) != NULL;
    VkResult r = known ? VK_SUCCESS : VK_ERROR_DEVICE_LOST;
    cJSON *o = rec_new(call);
    cJSON_AddNumberToObject(o, "object_type", (double)type);
    cJSON_AddBoolToObject(o, "known_object", known);
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_SetDebugUtilsObjectNameEXT(VkDevice device,
                                                               const VkDebugUtilsObjectNameInfoEXT *info) {
    return info ? object_named("vkSetDebugUtilsObjectNameEXT", device, info->objectType, info->objectHandle)
                : VK_ERROR_DEVICE_LOST;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_SetDebugUtilsObjectTagEXT(VkDevice device,
                                                              const VkDebugUtilsObjectTagInfoEXT *info) {
    return info ? object_named("vkSetDebugUtilsObjectTagEXT", device, info->objectType, info->objectHandle)
                : VK_ERROR_DEVICE_LOST;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_QueueWaitIdle(VkQueue queue) {
    if (!find_queue(queue)) {
        rec_invalid_handle("vkQueueWaitIdle", "VkQueue");
        return VK_ERROR_DEVICE_LOST;
    }
    return injected("vkQueueWaitIdle");
}

VKAPI_ATTR VkResult VKAPI_CALL mock_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *ci,
                                                      const VkAllocationCallbacks *alloc, VkCommandPool *out) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle("vkCreateCommandPool", "VkDevice");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkResult r = injected("vkCreateCommandPool");
    if (r < 0) return r;
    if (!ci || !out) return VK_ERROR_INITIALIZATION_FAILED;
    struct mock_pool *p = calloc(1, sizeof *p);
    if (!p) return VK_ERROR_OUT_OF_HOST_MEMORY;
    p->device = d;
    p->family = ci->queueFamilyIndex;
    pthread_mutex_lock(&g_lock);
    p->next = d->pools;
    d->pools = p;
    pthread_mutex_unlock(&g_lock);
    *out = (VkCommandPool)(void *)p;
    return r;
}

static struct mock_pool *find_pool(struct mock_device *d, VkCommandPool pool, struct mock_pool ***link) {
    for (struct mock_pool **pp = &d->pools; *pp; pp = &(*pp)->next)
        if ((void *)*pp == (void *)pool) {
            if (link) *link = pp;
            return *pp;
        }
    return NULL;
}

VKAPI_ATTR void VKAPI_CALL mock_DestroyCommandPool(VkDevice device, VkCommandPool pool,
                                                   const VkAllocationCallbacks *alloc) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle("vkDestroyCommandPool", "VkDevice");
        return;
    }
    struct mock_pool **link = NULL;
    pthread_mutex_lock(&g_lock);
    struct mock_pool *p = find_pool(d, pool, &link);
    if (p) *link = p->next;
    pthread_mutex_unlock(&g_lock);
    if (!p) return;
    while (p->cmdbufs) {
        struct mock_cmdbuf *cb = p->cmdbufs;
        p->cmdbufs = cb->next;
        free(cb);
    }
    free(p);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo *info,
                                                           VkCommandBuffer *out) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle("vkAllocateCommandBuffers", "VkDevice");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkResult r = injected("vkAllocateCommandBuffers");
    if (r < 0) return r;
    pthread_mutex_lock(&g_lock);
    struct mock_pool *p = info ? find_pool(d, info->commandPool, NULL) : NULL;
    if (!p || !out) {
        pthread_mutex_unlock(&g_lock);
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    for (uint32_t i = 0; i < info->commandBufferCount; i++) {
        struct mock_cmdbuf *cb = calloc(1, sizeof *cb);
        if (!cb) {
            for (uint32_t k = 0; k < i; k++) {
                /* undo: the newest buffers are at the head of the list */
                struct mock_cmdbuf *h = p->cmdbufs;
                p->cmdbufs = h->next;
                free(h);
                out[k] = VK_NULL_HANDLE;
            }
            pthread_mutex_unlock(&g_lock);
            return VK_ERROR_OUT_OF_HOST_MEMORY;
        }
        set_magic(cb);
        if (sc_now()->mb.command_buffer_without_magic) set_foreign_first_word(cb);
        cb->pool = p;
        cb->next = p->cmdbufs;
        p->cmdbufs = cb;
        out[i] = (VkCommandBuffer)cb;
    }
    pthread_mutex_unlock(&g_lock);
    return r;
}

VKAPI_ATTR void VKAPI_CALL mock_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                                   const VkCommandBuffer *cbs) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle("vkFreeCommandBuffers", "VkDevice");
        return;
    }
    pthread_mutex_lock(&g_lock);
    struct mock_pool *p = find_pool(d, pool, NULL);
    for (uint32_t i = 0; p && cbs && i < count; i++) {
        for (struct mock_cmdbuf **pp = &p->cmdbufs; *pp; pp = &(*pp)->next) {
            if ((void *)*pp == (void *)cbs[i]) {
                struct mock_cmdbuf *cb = *pp;
                *pp = cb->next;
                free(cb);
                break;
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
}

VKAPI_ATTR void VKAPI_CALL mock_CmdFillBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset,
                                              VkDeviceSize size, uint32_t data) {
    cJSON *o = rec_new("vkCmdFillBuffer");
    cJSON_AddBoolToObject(o, "valid", find_cmdbuf(cb) != NULL);
    cJSON_AddNumberToObject(o, "offset", (double)offset);
    cJSON_AddNumberToObject(o, "size", (double)size);
    cJSON_AddNumberToObject(o, "data", data);
    rec_emit(o);
}

/* Recording and submission: recorded only, with whether each handle is the mock's own (a layer that
 * wraps queues or command buffers must unwrap them before calling down, LLP_LAYER_10). */
VKAPI_ATTR VkResult VKAPI_CALL mock_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info) {
    (void)info;
    bool valid = find_cmdbuf(cb) != NULL;
    cJSON *o = rec_new("vkBeginCommandBuffer");
    cJSON_AddBoolToObject(o, "valid", valid);
    rec_emit(o);
    if (!valid) rec_invalid_handle("vkBeginCommandBuffer", "VkCommandBuffer");
    return valid ? VK_SUCCESS : VK_ERROR_INITIALIZATION_FAILED;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_EndCommandBuffer(VkCommandBuffer cb) {
    bool valid = find_cmdbuf(cb) != NULL;
    cJSON *o = rec_new("vkEndCommandBuffer");
    cJSON_AddBoolToObject(o, "valid", valid);
    rec_emit(o);
    if (!valid) rec_invalid_handle("vkEndCommandBuffer", "VkCommandBuffer");
    return valid ? VK_SUCCESS : VK_ERROR_INITIALIZATION_FAILED;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                                VkFence fence) {
    (void)fence;
    bool valid = find_queue(queue) != NULL;
    uint32_t n = 0;
    bool cbs_valid = true;
    for (uint32_t i = 0; submits != NULL && i < count; i++)
        for (uint32_t k = 0; k < submits[i].commandBufferCount; k++, n++)
            cbs_valid = cbs_valid && find_cmdbuf(submits[i].pCommandBuffers[k]) != NULL;
    cJSON *o = rec_new("vkQueueSubmit");
    cJSON_AddBoolToObject(o, "valid", valid);
    cJSON_AddNumberToObject(o, "command_buffers", n);
    cJSON_AddBoolToObject(o, "command_buffers_valid", cbs_valid);
    rec_emit(o);
    if (!valid) rec_invalid_handle("vkQueueSubmit", "VkQueue");
    if (!cbs_valid) rec_invalid_handle("vkQueueSubmit", "VkCommandBuffer");
    return valid && cbs_valid ? injected("vkQueueSubmit") : VK_ERROR_DEVICE_LOST;
}

/* Images and buffers: what vulkaninfo creates to ask for memory requirements (its "memory types
 * supporting each image format" table). Not recorded; the size is the bytes of the extent at 4
 * bytes a texel (buffers: their size), rounded up to the 256-byte alignment; every memory type. */
#define MOCK_RESOURCE_ALIGNMENT 256u

static VkResult create_resource(const char *call, VkDevice device, VkDeviceSize size, bool sparse, uint64_t *out) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle(call, "VkDevice");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkResult r = injected(call);
    if (r < 0) return r;
    if (!out) return VK_ERROR_INITIALIZATION_FAILED;
    struct mock_image *im = calloc(1, sizeof *im);
    if (!im) return VK_ERROR_OUT_OF_HOST_MEMORY;
    im->size = (size + MOCK_RESOURCE_ALIGNMENT - 1) / MOCK_RESOURCE_ALIGNMENT * MOCK_RESOURCE_ALIGNMENT;
    if (im->size == 0) im->size = MOCK_RESOURCE_ALIGNMENT;
    im->sparse = sparse;
    pthread_mutex_lock(&g_lock);
    im->next = d->images;
    d->images = im;
    pthread_mutex_unlock(&g_lock);
    *out = (uint64_t)(uintptr_t)im;
    return r;
}

static void destroy_resource(const char *call, VkDevice device, uint64_t handle) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle(call, "VkDevice");
        return;
    }
    pthread_mutex_lock(&g_lock);
    for (struct mock_image **pp = &d->images; *pp; pp = &(*pp)->next) {
        if ((uint64_t)(uintptr_t)*pp == handle) {
            struct mock_image *im = *pp;
            *pp = im->next;
            free(im->mapped);
            free(im);
            break;
        }
    }
    pthread_mutex_unlock(&g_lock);
}

/* The resource's memory requirements; false for a handle that is not one of the device's. */
static bool resource_requirements(VkDevice device, uint64_t handle, VkMemoryRequirements *req, bool *sparse) {
    memset(req, 0, sizeof *req);
    struct mock_device *d = find_device(device);
    if (!d) return false;
    bool found = false;
    pthread_mutex_lock(&g_lock);
    for (struct mock_image *im = d->images; im; im = im->next) {
        if ((uint64_t)(uintptr_t)im == handle) {
            req->size = im->size;
            if (sparse) *sparse = im->sparse;
            found = true;
        }
    }
    pthread_mutex_unlock(&g_lock);
    req->alignment = MOCK_RESOURCE_ALIGNMENT;
    req->memoryTypeBits = found ? (1u << mock_memory_type_count()) - 1u : 0u;
    return found;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_CreateImage(VkDevice device, const VkImageCreateInfo *ci,
                                                const VkAllocationCallbacks *alloc, VkImage *out) {
    (void)alloc;
    if (!ci) return VK_ERROR_INITIALIZATION_FAILED;
    VkDeviceSize size = (VkDeviceSize)ci->extent.width * ci->extent.height * ci->extent.depth * ci->arrayLayers * 4u;
    uint64_t h = 0;
    VkResult r =
        create_resource("vkCreateImage", device, size, (ci->flags & VK_IMAGE_CREATE_SPARSE_BINDING_BIT) != 0, &h);
    if (r >= 0 && out) *out = (VkImage)(uintptr_t)h;
    return r;
}

VKAPI_ATTR void VKAPI_CALL mock_DestroyImage(VkDevice device, VkImage image, const VkAllocationCallbacks *alloc) {
    (void)alloc;
    destroy_resource("vkDestroyImage", device, (uint64_t)(uintptr_t)image);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_CreateBuffer(VkDevice device, const VkBufferCreateInfo *ci,
                                                 const VkAllocationCallbacks *alloc, VkBuffer *out) {
    (void)alloc;
    if (!ci) return VK_ERROR_INITIALIZATION_FAILED;
    uint64_t h = 0;
    VkResult r =
        create_resource("vkCreateBuffer", device, ci->size, (ci->flags & VK_BUFFER_CREATE_SPARSE_BINDING_BIT) != 0, &h);
    if (r >= 0 && out) *out = (VkBuffer)(uintptr_t)h;
    return r;
}

VKAPI_ATTR void VKAPI_CALL mock_DestroyBuffer(VkDevice device, VkBuffer buffer, const VkAllocationCallbacks *alloc) {
    (void)alloc;
    destroy_resource("vkDestroyBuffer", device, (uint64_t)(uintptr_t)buffer);
}

VKAPI_ATTR void VKAPI_CALL mock_GetImageMemoryRequirements(VkDevice device, VkImage image, VkMemoryRequirements *req) {
    VkMemoryRequirements tmp;
    if (!resource_requirements(device, (uint64_t)(uintptr_t)image, &tmp, NULL))
        rec_invalid_handle("vkGetImageMemoryRequirements", find_device(device) ? "VkImage" : "VkDevice");
    if (req) *req = tmp;
}

VKAPI_ATTR void VKAPI_CALL mock_GetBufferMemoryRequirements(VkDevice device, VkBuffer buffer,
                                                            VkMemoryRequirements *req) {
    VkMemoryRequirements tmp;
    if (!resource_requirements(device, (uint64_t)(uintptr_t)buffer, &tmp, NULL))
        rec_invalid_handle("vkGetBufferMemoryRequirements", find_device(device) ? "VkBuffer" : "VkDevice");
    if (req) *req = tmp;
}

VKAPI_ATTR void VKAPI_CALL mock_GetImageMemoryRequirements2(VkDevice device, const VkImageMemoryRequirementsInfo2 *info,
                                                            VkMemoryRequirements2 *req) {
    if (info && req) mock_GetImageMemoryRequirements(device, info->image, &req->memoryRequirements);
}

VKAPI_ATTR void VKAPI_CALL mock_GetBufferMemoryRequirements2(VkDevice device,
                                                             const VkBufferMemoryRequirementsInfo2 *info,
                                                             VkMemoryRequirements2 *req) {
    if (info && req) mock_GetBufferMemoryRequirements(device, info->buffer, &req->memoryRequirements);
}

/* The mock has no sparse support (sparseBinding is off): no sparse requirements. */
VKAPI_ATTR void VKAPI_CALL mock_GetImageSparseMemoryRequirements(VkDevice device, VkImage image, uint32_t *count,
                                                                 VkSparseImageMemoryRequirements *req) {
    (void)image;
    (void)req;
    if (!find_device(device)) rec_invalid_handle("vkGetImageSparseMemoryRequirements", "VkDevice");
    if (count) *count = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Device memory: a resource like images and buffers (memory requirements of its size); mapping
 * gives host memory of that size, zero-filled, kept until vkFreeMemory or vkDestroyDevice, so a
 * layer that uploads through a mapping (overlays, capture layers) writes somewhere real. */

VKAPI_ATTR VkResult VKAPI_CALL mock_AllocateMemory(VkDevice device, const VkMemoryAllocateInfo *info,
                                                   const VkAllocationCallbacks *alloc, VkDeviceMemory *out) {
    (void)alloc;
    if (!info) return VK_ERROR_INITIALIZATION_FAILED;
    uint64_t h = 0;
    VkResult r = create_resource("vkAllocateMemory", device, info->allocationSize, false, &h);
    if (r >= 0 && out) *out = (VkDeviceMemory)(uintptr_t)h;
    return r;
}

VKAPI_ATTR void VKAPI_CALL mock_FreeMemory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks *alloc) {
    (void)alloc;
    if (memory != VK_NULL_HANDLE) destroy_resource("vkFreeMemory", device, (uint64_t)(uintptr_t)memory);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_MapMemory(VkDevice device, VkDeviceMemory memory, VkDeviceSize offset,
                                              VkDeviceSize size, VkMemoryMapFlags flags, void **data) {
    (void)size;
    (void)flags;
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle("vkMapMemory", "VkDevice");
        return VK_ERROR_MEMORY_MAP_FAILED;
    }
    VkResult r = injected("vkMapMemory");
    if (r < 0) return r;
    void *p = NULL;
    pthread_mutex_lock(&g_lock);
    for (struct mock_image *im = d->images; im; im = im->next) {
        if ((uint64_t)(uintptr_t)im != (uint64_t)(uintptr_t)memory || offset >= im->size) continue;
        if (!im->mapped) im->mapped = calloc(1, (size_t)im->size);
        if (im->mapped) p = (char *)im->mapped + offset;
    }
    pthread_mutex_unlock(&g_lock);
    if (!p) {
        rec_invalid_handle("vkMapMemory", "VkDeviceMemory");
        return VK_ERROR_MEMORY_MAP_FAILED;
    }
    if (data) *data = p;
    return r;
}

VKAPI_ATTR void VKAPI_CALL mock_UnmapMemory(VkDevice device, VkDeviceMemory memory) {
    (void)memory;
    if (!find_device(device)) rec_invalid_handle("vkUnmapMemory", "VkDevice");
}

/* ------------------------------------------------------------------------------------------ */
/* Helpers of the generated commands (mock_gen.h)                                              */

/* Above every user-space address, so never equal to a handle the mock makes from a heap pointer. */
#define MOCK_GEN_HANDLE_BASE 0x6d6f636b00000000ull
static _Atomic uint64_t g_gen_handles;

uint64_t mock_gen_handle(void) { return MOCK_GEN_HANDLE_BASE + atomic_fetch_add(&g_gen_handles, 1) + 1; }

/* Dispatchable objects the generated commands make are kept on a list freed at unload. */
struct mock_gen_object {
    VK_LOADER_DATA loader_data; /* must stay first */
    struct mock_gen_object *next;
};
static struct mock_gen_object *g_gen_objects;

void *mock_gen_dispatchable(void) {
    struct mock_gen_object *o = calloc(1, sizeof *o);
    if (!o) return NULL;
    set_magic(o);
    pthread_mutex_lock(&g_lock);
    o->next = g_gen_objects;
    g_gen_objects = o;
    pthread_mutex_unlock(&g_lock);
    return o;
}

void mock_gen_free_objects(void) {
    pthread_mutex_lock(&g_lock);
    while (g_gen_objects) {
        struct mock_gen_object *o = g_gen_objects;
        g_gen_objects = o->next;
        free(o);
    }
    pthread_mutex_unlock(&g_lock);
}

VkResult mock_gen_result(const char *command, VkResult success) {
    VkResult r = injected(command);
    return r != VK_SUCCESS ? r : success;
}
