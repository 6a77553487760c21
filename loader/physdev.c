/*
 * Physical devices and groups aggregated across drivers, and the loader's emulation of the
 * VK_KHR_get_physical_device_properties2 queries for drivers that lack them (LDP_LOADER_8).
 */
#include <stddef.h>
#include <string.h>

#include "loader/internal/loader.h"

struct vkl_physdev *vkl_physdev_from_term(VkPhysicalDevice term) {
    return (struct vkl_physdev *)(void *)((char *)(void *)term - offsetof(struct vkl_physdev, term));
}

static struct vkl_physdev *physdev_get(struct vkl_instance *inst, struct vkl_icd_instance *ii, VkPhysicalDevice h) {
    for (struct vkl_physdev *p = inst->physdevs; p != NULL; p = p->next)
        if (p->term.icd == ii && p->term.handle == h) return p;
    struct vkl_physdev *p = vkl_calloc(&inst->alloc, sizeof(*p), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
    if (p == NULL) return NULL;
    /* Same dispatch key as the instance, so layers that do not wrap physical devices find their
     * instance data from either handle. */
    p->term.disp = inst->disp;
    p->term.icd = ii;
    p->term.handle = h;
    p->term.unknown = ii->unknown_physdev;
    p->tramp.instance = inst;
    p->tramp.disp = inst->disp;
    p->tramp.next = (VkPhysicalDevice)(void *)&p->term;
    p->next = inst->physdevs;
    inst->physdevs = p;
    return p;
}

/* Collects every driver's physical devices (terminator objects) into a fresh array. A driver that
 * fails is logged and skipped: it must not hide the others (LDP_DRIVER_1). */
static VkResult collect_physdevs(struct vkl_instance *inst, struct vkl_physdev ***out, uint32_t *out_count) {
    *out = NULL;
    *out_count = 0;
    VkResult r = VK_SUCCESS;
    uint32_t total = 0, cap = 0;
    struct vkl_physdev **all = NULL;
    for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next) {
        uint32_t n = 0;
        VkResult dr = ii->disp.EnumeratePhysicalDevices(ii->handle, &n, NULL);
        VkPhysicalDevice *hs = NULL;
        if (dr == VK_SUCCESS && n > 0) {
            hs = vkl_alloc(&inst->alloc, n * sizeof(*hs), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
            if (hs == NULL) {
                r = VK_ERROR_OUT_OF_HOST_MEMORY;
                goto out;
            }
            dr = ii->disp.EnumeratePhysicalDevices(ii->handle, &n, hs);
            if (dr == VK_INCOMPLETE) dr = VK_SUCCESS;
        }
        if (dr != VK_SUCCESS) {
            vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "driver %s: vkEnumeratePhysicalDevices returned %d; its devices are left out [LDP_DRIVER_1]",
                    vkl_driver_name(ii->driver), (int)dr);
            vkl_free(&inst->alloc, hs);
            continue;
        }
        if (total + n > cap) {
            uint32_t ncap = (total + n) * 2;
            struct vkl_physdev **nall = vkl_alloc(&inst->alloc, ncap * sizeof(*nall), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
            if (nall == NULL) {
                vkl_free(&inst->alloc, hs);
                r = VK_ERROR_OUT_OF_HOST_MEMORY;
                goto out;
            }
            if (all != NULL) memcpy(nall, all, total * sizeof(*all));
            vkl_free(&inst->alloc, all);
            all = nall;
            cap = ncap;
        }
        for (uint32_t i = 0; i < n; i++) {
            struct vkl_physdev *p = physdev_get(inst, ii, hs[i]);
            if (p == NULL) {
                vkl_free(&inst->alloc, hs);
                r = VK_ERROR_OUT_OF_HOST_MEMORY;
                goto out;
            }
            all[total++] = p;
        }
        vkl_free(&inst->alloc, hs);
    }
out:
    if (r != VK_SUCCESS) {
        vkl_free(&inst->alloc, all);
        return r;
    }
    *out = all;
    *out_count = total;
    return VK_SUCCESS;
}

VkResult vkl_term_EnumeratePhysicalDevices(VkInstance instance, uint32_t *pCount, VkPhysicalDevice *pDevices) {
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    struct vkl_physdev **all = NULL;
    uint32_t n = 0;
    pthread_mutex_lock(&inst->lock);
    VkResult r = collect_physdevs(inst, &all, &n);
    pthread_mutex_unlock(&inst->lock);
    if (r != VK_SUCCESS) return r;
    if (pDevices == NULL) {
        *pCount = n;
    } else {
        uint32_t c = *pCount < n ? *pCount : n;
        for (uint32_t i = 0; i < c; i++) pDevices[i] = (VkPhysicalDevice)(void *)&all[i]->term;
        *pCount = c;
        if (c < n) r = VK_INCOMPLETE;
    }
    vkl_free(&inst->alloc, all);
    return r;
}

/* Maps a handle returned by the top of the chain to the application-side object. A layer that
 * wraps physical devices (LLP_LAYER_10) returns its own handles: each gets a trampoline-only entry
 * (no terminator side: term.icd stays NULL, so collect_physdevs never matches it) whose `next` is
 * the layer's handle, created on first sight and kept until vkDestroyInstance. */
static VkPhysicalDevice tramp_for(struct vkl_instance *inst, VkPhysicalDevice next) {
    if (next == VK_NULL_HANDLE) return VK_NULL_HANDLE;
    pthread_mutex_lock(&inst->lock);
    struct vkl_physdev *p;
    for (p = inst->physdevs; p != NULL; p = p->next)
        if (p->tramp.next == next) break;
    if (p == NULL && inst->layer_lib_count > 0) {
        p = vkl_calloc(&inst->alloc, sizeof(*p), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
        if (p != NULL) {
            p->term.disp = inst->disp;
            p->tramp.instance = inst;
            p->tramp.disp = inst->disp;
            p->tramp.next = next;
            p->next = inst->physdevs;
            inst->physdevs = p;
        }
    }
    pthread_mutex_unlock(&inst->lock);
    return p != NULL ? (VkPhysicalDevice)(void *)&p->tramp : VK_NULL_HANDLE;
}

VKL_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumeratePhysicalDevices(VkInstance instance, uint32_t *pCount,
                                                                     VkPhysicalDevice *pDevices) {
    if (instance == VK_NULL_HANDLE || pCount == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    VkResult r = inst->disp->EnumeratePhysicalDevices(instance, pCount, pDevices);
    if (pDevices == NULL || (r != VK_SUCCESS && r != VK_INCOMPLETE)) return r;
    for (uint32_t i = 0; i < *pCount; i++) {
        VkPhysicalDevice t = tramp_for(inst, pDevices[i]);
        if (t == VK_NULL_HANDLE) return VK_ERROR_INITIALIZATION_FAILED;
        pDevices[i] = t;
    }
    return r;
}

/* Makes room for `need` groups (a driver whose vkEnumeratePhysicalDevices failed can still report
 * groups, so the device count is not a bound). */
static bool groups_reserve(struct vkl_instance *inst, VkPhysicalDeviceGroupProperties **groups, uint32_t *cap,
                           uint32_t need) {
    if (need <= *cap) return true;
    uint32_t ncap = need * 2;
    VkPhysicalDeviceGroupProperties *n =
        vkl_calloc(&inst->alloc, ncap * sizeof(*n), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (n == NULL) return false;
    memcpy(n, *groups, *cap * sizeof(*n));
    vkl_free(&inst->alloc, *groups);
    *groups = n;
    *cap = ncap;
    return true;
}

/* A driver's own groups are used only when every member is a device the driver's
 * vkEnumeratePhysicalDevices returned (so the application never sees a device in a group that is
 * missing from its device list) and every count fits the fixed-size member array. */
static bool groups_valid(struct vkl_physdev *const *all, uint32_t ndev, const struct vkl_icd_instance *ii,
                         const VkPhysicalDeviceGroupProperties *dg, uint32_t dn) {
    for (uint32_t g = 0; g < dn; g++) {
        if (dg[g].physicalDeviceCount == 0 || dg[g].physicalDeviceCount > VK_MAX_DEVICE_GROUP_SIZE) return false;
        for (uint32_t m = 0; m < dg[g].physicalDeviceCount; m++) {
            bool found = false;
            for (uint32_t i = 0; i < ndev && !found; i++)
                found = all[i]->term.icd == ii && all[i]->term.handle == dg[g].physicalDevices[m];
            if (!found) return false;
        }
    }
    return true;
}

static bool icd_has_groups(const struct vkl_icd_instance *ii) {
    return ii->disp.EnumeratePhysicalDeviceGroups != NULL &&
           (VK_API_VERSION_MINOR(ii->api_version) >= 1 || VK_API_VERSION_MAJOR(ii->api_version) > 1 ||
            vkl_driver_has_extension(ii->driver, VK_KHR_DEVICE_GROUP_CREATION_EXTENSION_NAME));
}

VkResult vkl_term_EnumeratePhysicalDeviceGroups(VkInstance instance, uint32_t *pCount,
                                                VkPhysicalDeviceGroupProperties *pGroups) {
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    struct vkl_physdev **all = NULL;
    uint32_t ndev = 0;
    pthread_mutex_lock(&inst->lock);
    VkResult r = collect_physdevs(inst, &all, &ndev);
    if (r != VK_SUCCESS) goto out;
    /* Worst case every device is its own group. */
    VkPhysicalDeviceGroupProperties *groups =
        vkl_calloc(&inst->alloc, (ndev ? ndev : 1) * sizeof(*groups), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (groups == NULL) {
        r = VK_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    uint32_t ng = 0, cap = ndev ? ndev : 1;
    for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next) {
        uint32_t dn = 0;
        bool native = false;
        if (icd_has_groups(ii) && ii->disp.EnumeratePhysicalDeviceGroups(ii->handle, &dn, NULL) == VK_SUCCESS &&
            dn > 0 && dn <= 4096) {
            if (!groups_reserve(inst, &groups, &cap, ng + dn)) {
                r = VK_ERROR_OUT_OF_HOST_MEMORY;
                vkl_free(&inst->alloc, groups);
                goto out;
            }
            VkPhysicalDeviceGroupProperties *dg = groups + ng;
            for (uint32_t i = 0; i < dn; i++) dg[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
            VkResult dr = ii->disp.EnumeratePhysicalDeviceGroups(ii->handle, &dn, dg);
            if (dr == VK_SUCCESS && !groups_valid(all, ndev, ii, dg, dn)) {
                vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                        "driver %s: vkEnumeratePhysicalDeviceGroups reported a group with a device count outside "
                        "1..%u or a device its vkEnumeratePhysicalDevices did not return; one group per device is "
                        "reported instead [LDP_DRIVER_1]",
                        vkl_driver_name(ii->driver), (unsigned)VK_MAX_DEVICE_GROUP_SIZE);
                dr = VK_ERROR_INITIALIZATION_FAILED;
            }
            if (dr == VK_SUCCESS) {
                native = true;
                for (uint32_t g = 0; g < dn; g++) {
                    for (uint32_t m = 0; m < dg[g].physicalDeviceCount; m++) {
                        struct vkl_physdev *p = physdev_get(inst, ii, dg[g].physicalDevices[m]);
                        if (p == NULL) {
                            r = VK_ERROR_OUT_OF_HOST_MEMORY;
                            vkl_free(&inst->alloc, groups);
                            goto out;
                        }
                        dg[g].physicalDevices[m] = (VkPhysicalDevice)(void *)&p->term;
                    }
                    dg[g].pNext = NULL;
                }
                ng += dn;
            }
        }
        if (!native) {
            /* Drivers without group support: one group per device. */
            for (uint32_t i = 0; i < ndev; i++) {
                if (all[i]->term.icd != ii) continue;
                if (!groups_reserve(inst, &groups, &cap, ng + 1)) {
                    r = VK_ERROR_OUT_OF_HOST_MEMORY;
                    vkl_free(&inst->alloc, groups);
                    goto out;
                }
                VkPhysicalDeviceGroupProperties *g = &groups[ng++];
                memset(g, 0, sizeof(*g));
                g->sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
                g->physicalDeviceCount = 1;
                g->physicalDevices[0] = (VkPhysicalDevice)(void *)&all[i]->term;
                g->subsetAllocation = VK_FALSE;
            }
        }
    }
    if (pGroups == NULL) {
        *pCount = ng;
    } else {
        uint32_t c = *pCount < ng ? *pCount : ng;
        for (uint32_t i = 0; i < c; i++) {
            void *pnext = pGroups[i].pNext; /* the application's chain stays its own */
            pGroups[i] = groups[i];
            pGroups[i].pNext = pnext;
        }
        *pCount = c;
        if (c < ng) r = VK_INCOMPLETE;
    }
    vkl_free(&inst->alloc, groups);
out:
    pthread_mutex_unlock(&inst->lock);
    vkl_free(&inst->alloc, all);
    return r;
}

VKL_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumeratePhysicalDeviceGroups(VkInstance instance, uint32_t *pCount,
                                                                          VkPhysicalDeviceGroupProperties *pGroups) {
    if (instance == VK_NULL_HANDLE || pCount == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    VkResult r = inst->disp->EnumeratePhysicalDeviceGroups(instance, pCount, pGroups);
    if (pGroups == NULL || (r != VK_SUCCESS && r != VK_INCOMPLETE)) return r;
    for (uint32_t g = 0; g < *pCount; g++) {
        for (uint32_t m = 0; m < pGroups[g].physicalDeviceCount; m++) {
            VkPhysicalDevice t = tramp_for(inst, pGroups[g].physicalDevices[m]);
            if (t == VK_NULL_HANDLE) return VK_ERROR_INITIALIZATION_FAILED;
            pGroups[g].physicalDevices[m] = t;
        }
    }
    return r;
}

/* ---- LDP_LOADER_8: the *2 queries for drivers that only have the Vulkan 1.0 forms ---- */

static bool has_pd2(const struct vkl_icd_instance *ii) {
    return VK_API_VERSION_MINOR(ii->api_version) >= 1 || VK_API_VERSION_MAJOR(ii->api_version) > 1 ||
           vkl_driver_has_extension(ii->driver, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
}

static void note_emulation(VkPhysicalDevice pd, const char *cmd) {
    const struct vkl_physdev_term *t = (const struct vkl_physdev_term *)(const void *)pd;
    vkl_log(&vkl_physdev_from_term(pd)->tramp.instance->log, VKL_LOG_INFO | VKL_LOG_DRIVER,
            "driver %s: emulating %s with its Vulkan 1.0 query; pNext structures are left untouched [LDP_LOADER_8]",
            vkl_driver_name(t->icd->driver), cmd);
}

#define TERM_PD(pd) ((const struct vkl_physdev_term *)(const void *)(pd))

void vkl_term_GetPhysicalDeviceProperties2(VkPhysicalDevice pd, VkPhysicalDeviceProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (has_pd2(ii) && ii->disp.GetPhysicalDeviceProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceProperties2(TERM_PD(pd)->handle, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceProperties2");
    ii->disp.GetPhysicalDeviceProperties(TERM_PD(pd)->handle, &p->properties);
}

void vkl_term_GetPhysicalDeviceFeatures2(VkPhysicalDevice pd, VkPhysicalDeviceFeatures2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (has_pd2(ii) && ii->disp.GetPhysicalDeviceFeatures2 != NULL) {
        ii->disp.GetPhysicalDeviceFeatures2(TERM_PD(pd)->handle, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceFeatures2");
    if (ii->disp.GetPhysicalDeviceFeatures != NULL) ii->disp.GetPhysicalDeviceFeatures(TERM_PD(pd)->handle, &p->features);
}

void vkl_term_GetPhysicalDeviceFormatProperties2(VkPhysicalDevice pd, VkFormat f, VkFormatProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (has_pd2(ii) && ii->disp.GetPhysicalDeviceFormatProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceFormatProperties2(TERM_PD(pd)->handle, f, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceFormatProperties2");
    if (ii->disp.GetPhysicalDeviceFormatProperties != NULL)
        ii->disp.GetPhysicalDeviceFormatProperties(TERM_PD(pd)->handle, f, &p->formatProperties);
}

VkResult vkl_term_GetPhysicalDeviceImageFormatProperties2(VkPhysicalDevice pd,
                                                          const VkPhysicalDeviceImageFormatInfo2 *info,
                                                          VkImageFormatProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (has_pd2(ii) && ii->disp.GetPhysicalDeviceImageFormatProperties2 != NULL)
        return ii->disp.GetPhysicalDeviceImageFormatProperties2(TERM_PD(pd)->handle, info, p);
    note_emulation(pd, "vkGetPhysicalDeviceImageFormatProperties2");
    if (info->pNext != NULL) return VK_ERROR_FORMAT_NOT_SUPPORTED; /* cannot honour extended queries */
    if (ii->disp.GetPhysicalDeviceImageFormatProperties == NULL) return VK_ERROR_FORMAT_NOT_SUPPORTED;
    return ii->disp.GetPhysicalDeviceImageFormatProperties(TERM_PD(pd)->handle, info->format, info->type, info->tiling,
                                                           info->usage, info->flags, &p->imageFormatProperties);
}

void vkl_term_GetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice pd, uint32_t *pCount,
                                                      VkQueueFamilyProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (has_pd2(ii) && ii->disp.GetPhysicalDeviceQueueFamilyProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceQueueFamilyProperties2(TERM_PD(pd)->handle, pCount, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceQueueFamilyProperties2");
    if (ii->disp.GetPhysicalDeviceQueueFamilyProperties == NULL) {
        *pCount = 0;
        return;
    }
    if (p == NULL) {
        ii->disp.GetPhysicalDeviceQueueFamilyProperties(TERM_PD(pd)->handle, pCount, NULL);
        return;
    }
    const struct vkl_alloc *a = &vkl_physdev_from_term(pd)->tramp.instance->alloc;
    uint32_t n = *pCount;
    VkQueueFamilyProperties *tmp = vkl_alloc(a, (n ? n : 1) * sizeof(*tmp), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (tmp == NULL) {
        *pCount = 0;
        return;
    }
    ii->disp.GetPhysicalDeviceQueueFamilyProperties(TERM_PD(pd)->handle, &n, tmp);
    for (uint32_t i = 0; i < n; i++) p[i].queueFamilyProperties = tmp[i];
    *pCount = n;
    vkl_free(a, tmp);
}

void vkl_term_GetPhysicalDeviceMemoryProperties2(VkPhysicalDevice pd, VkPhysicalDeviceMemoryProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (has_pd2(ii) && ii->disp.GetPhysicalDeviceMemoryProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceMemoryProperties2(TERM_PD(pd)->handle, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceMemoryProperties2");
    if (ii->disp.GetPhysicalDeviceMemoryProperties != NULL)
        ii->disp.GetPhysicalDeviceMemoryProperties(TERM_PD(pd)->handle, &p->memoryProperties);
}

void vkl_term_GetPhysicalDeviceSparseImageFormatProperties2(VkPhysicalDevice pd,
                                                            const VkPhysicalDeviceSparseImageFormatInfo2 *info,
                                                            uint32_t *pCount, VkSparseImageFormatProperties2 *p) {
    const struct vkl_icd_instance *ii = TERM_PD(pd)->icd;
    if (has_pd2(ii) && ii->disp.GetPhysicalDeviceSparseImageFormatProperties2 != NULL) {
        ii->disp.GetPhysicalDeviceSparseImageFormatProperties2(TERM_PD(pd)->handle, info, pCount, p);
        return;
    }
    note_emulation(pd, "vkGetPhysicalDeviceSparseImageFormatProperties2");
    if (ii->disp.GetPhysicalDeviceSparseImageFormatProperties == NULL) {
        *pCount = 0;
        return;
    }
    uint32_t n = 0;
    ii->disp.GetPhysicalDeviceSparseImageFormatProperties(TERM_PD(pd)->handle, info->format, info->type, info->samples,
                                                          info->usage, info->tiling, &n, NULL);
    if (p == NULL) {
        *pCount = n;
        return;
    }
    const struct vkl_alloc *a = &vkl_physdev_from_term(pd)->tramp.instance->alloc;
    if (n > *pCount) n = *pCount;
    VkSparseImageFormatProperties *tmp = vkl_alloc(a, (n ? n : 1) * sizeof(*tmp), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (tmp == NULL) {
        *pCount = 0;
        return;
    }
    ii->disp.GetPhysicalDeviceSparseImageFormatProperties(TERM_PD(pd)->handle, info->format, info->type, info->samples,
                                                          info->usage, info->tiling, &n, tmp);
    for (uint32_t i = 0; i < n; i++) p[i].properties = tmp[i];
    *pCount = n;
    vkl_free(a, tmp);
}
