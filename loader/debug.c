/*
 * VK_EXT_debug_utils and VK_EXT_debug_report: the loader's own messengers.
 *
 * Messengers chained into VkInstanceCreateInfo::pNext receive the loader's messages during
 * vkCreateInstance and vkDestroyInstance (VK_EXT_debug_utils: "to capture events that occur while
 * creating or destroying an instance"). Messengers the application creates later receive every
 * loader message about that instance, and are also created in every driver that supports the
 * extension so the drivers' own messages reach the application.
 */
#include <string.h>

#include "loader/internal/debug.h"
#include "loader/internal/device.h"
#include "loader/internal/instance.h"
#include "loader/internal/wsi.h"

static VkDebugUtilsMessageSeverityFlagBitsEXT utils_severity(uint32_t flags) {
    if (flags & VKL_LOG_ERROR) return VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    if (flags & VKL_LOG_WARN) return VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
    if (flags & VKL_LOG_DEBUG) return VK_DEBUG_UTILS_MESSAGE_SEVERITY_VERBOSE_BIT_EXT;
    return VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT;
}

static VkDebugReportFlagsEXT report_flags(uint32_t flags) {
    if (flags & VKL_LOG_ERROR) return VK_DEBUG_REPORT_ERROR_BIT_EXT;
    if (flags & VKL_LOG_WARN) return VK_DEBUG_REPORT_WARNING_BIT_EXT;
    if (flags & VKL_LOG_PERF) return VK_DEBUG_REPORT_PERFORMANCE_WARNING_BIT_EXT;
    if (flags & VKL_LOG_DEBUG) return VK_DEBUG_REPORT_DEBUG_BIT_EXT;
    return VK_DEBUG_REPORT_INFORMATION_BIT_EXT;
}

void vkl_debug_emit(void *ctx, uint32_t flags, const char *line) {
    struct vkl_instance *inst = ctx;
    VkDebugUtilsMessageSeverityFlagBitsEXT sev = utils_severity(flags);
    VkDebugUtilsMessageTypeFlagsEXT type = (flags & VKL_LOG_PERF) ? VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT
                                                                  : VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
    if (flags & VKL_LOG_VALIDATION) type |= VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    VkDebugUtilsObjectNameInfoEXT obj = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT,
        .objectType = VK_OBJECT_TYPE_INSTANCE,
        .objectHandle = (uint64_t)(uintptr_t)inst,
    };
    VkDebugUtilsMessengerCallbackDataEXT data = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT,
        .pMessageIdName = "Loader Message",
        .pMessage = line,
        .objectCount = 1,
        .pObjects = &obj,
    };
    for (struct vkl_messenger *m = inst->messengers; m != NULL; m = m->next) {
        if (m->create_destroy_only && !inst->in_create_or_destroy) continue;
        if (m->is_report) {
            VkDebugReportFlagsEXT rf = report_flags(flags);
            if ((m->report_flags & rf) != 0)
                m->report_cb(rf, VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_EXT, (uint64_t)(uintptr_t)inst, 0, 0, "Loader",
                             line, m->user_data);
        } else if ((m->severity & sev) != 0 && (m->types & type) != 0) {
            m->utils_cb(sev, type, &data, m->user_data);
        }
    }
}

/* The instance's log sink emits only while the instance has a messenger or callback: with none,
 * vkl_log does not even format its messages (a create/destroy logs dozens of DEBUG lines). Called
 * wherever the list changes (under the instance lock, or before the instance is shared). */
static void sync_sink(struct vkl_instance *inst) { inst->log.emit = inst->messengers != NULL ? vkl_debug_emit : NULL; }

static struct vkl_messenger *messenger_new(struct vkl_instance *inst, VkSystemAllocationScope scope) {
    struct vkl_messenger *m = vkl_calloc(&inst->alloc, sizeof(*m), scope);
    if (m == NULL) return NULL;
    m->next = inst->messengers;
    inst->messengers = m;
    sync_sink(inst);
    return m;
}

/* RULE_INST_DEBUG_MESSENGER: messengers chained to VkInstanceCreateInfo, active during creation
 * and destruction. */
VkResult vkl_debug_add_create_info_messengers(struct vkl_instance *inst, const void *pnext) {
    for (const VkBaseInStructure *s = pnext; s != NULL; s = s->pNext) {
        if (s->sType == VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT) {
            const VkDebugUtilsMessengerCreateInfoEXT *ci = (const VkDebugUtilsMessengerCreateInfoEXT *)s;
            if (ci->pfnUserCallback == NULL) continue;
            struct vkl_messenger *m = messenger_new(inst, VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
            if (m == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
            m->create_destroy_only = true;
            m->severity = ci->messageSeverity;
            m->types = ci->messageType;
            m->utils_cb = ci->pfnUserCallback;
            m->user_data = ci->pUserData;
        } else if (s->sType == VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT) {
            const VkDebugReportCallbackCreateInfoEXT *ci = (const VkDebugReportCallbackCreateInfoEXT *)s;
            if (ci->pfnCallback == NULL) continue;
            struct vkl_messenger *m = messenger_new(inst, VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
            if (m == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
            m->is_report = true;
            m->create_destroy_only = true;
            m->report_flags = ci->flags;
            m->report_cb = ci->pfnCallback;
            m->user_data = ci->pUserData;
        }
    }
    sync_sink(inst);
    return VK_SUCCESS;
}

static void messenger_free(struct vkl_instance *inst, struct vkl_messenger *m) {
    vkl_free(&inst->alloc, m->driver_handles);
    vkl_free(&inst->alloc, m);
}

void vkl_debug_destroy_all(struct vkl_instance *inst) {
    while (inst->messengers != NULL) {
        struct vkl_messenger *m = inst->messengers;
        inst->messengers = m->next;
        messenger_free(inst, m);
    }
    sync_sink(inst);
}

static void messenger_unlink(struct vkl_instance *inst, struct vkl_messenger *m) {
    for (struct vkl_messenger **pp = &inst->messengers; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == m) {
            *pp = m->next;
            break;
        }
    }
    sync_sink(inst);
}

/* Allocates the per-driver handle array of an application-created messenger or callback. */
static VkResult messenger_new_app(struct vkl_instance *inst, struct vkl_messenger **out) {
    struct vkl_messenger *m = messenger_new(inst, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
    if (m == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    m->driver_count = inst->icd_count;
    m->driver_handles = vkl_calloc(&inst->alloc, (inst->icd_count ? inst->icd_count : 1) * sizeof(uint64_t),
                                   VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
    if (m->driver_handles == NULL) {
        messenger_unlink(inst, m);
        messenger_free(inst, m);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    *out = m;
    return VK_SUCCESS;
}

VkResult vkl_term_CreateDebugUtilsMessengerEXT(VkInstance instance, const VkDebugUtilsMessengerCreateInfoEXT *ci,
                                               const VkAllocationCallbacks *pAllocator,
                                               VkDebugUtilsMessengerEXT *pMessenger) {
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    struct vkl_messenger *m = NULL;
    pthread_mutex_lock(&inst->lock);
    VkResult r = messenger_new_app(inst, &m);
    if (r == VK_SUCCESS) {
        m->severity = ci->messageSeverity;
        m->types = ci->messageType;
        m->utils_cb = ci->pfnUserCallback;
        m->user_data = ci->pUserData;
        for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next) {
            VkDebugUtilsMessengerEXT h = VK_NULL_HANDLE;
            if (ii->disp.CreateDebugUtilsMessengerEXT != NULL &&
                ii->disp.CreateDebugUtilsMessengerEXT(ii->handle, ci, pAllocator, &h) == VK_SUCCESS)
                m->driver_handles[ii->index] = (uint64_t)h;
        }
        *pMessenger = (VkDebugUtilsMessengerEXT)(uintptr_t)m;
    }
    pthread_mutex_unlock(&inst->lock);
    return r;
}

void vkl_term_DestroyDebugUtilsMessengerEXT(VkInstance instance, VkDebugUtilsMessengerEXT messenger,
                                            const VkAllocationCallbacks *pAllocator) {
    if (messenger == VK_NULL_HANDLE) return;
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    struct vkl_messenger *m = (struct vkl_messenger *)(uintptr_t)messenger;
    pthread_mutex_lock(&inst->lock);
    for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next)
        if (ii->index < m->driver_count && m->driver_handles[ii->index] != 0 &&
            ii->disp.DestroyDebugUtilsMessengerEXT != NULL)
            ii->disp.DestroyDebugUtilsMessengerEXT(ii->handle, (VkDebugUtilsMessengerEXT)m->driver_handles[ii->index],
                                                   pAllocator);
    messenger_unlink(inst, m);
    messenger_free(inst, m);
    pthread_mutex_unlock(&inst->lock);
}

void vkl_term_SubmitDebugUtilsMessageEXT(VkInstance instance, VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                         VkDebugUtilsMessageTypeFlagsEXT types,
                                         const VkDebugUtilsMessengerCallbackDataEXT *data) {
    /* Delivered by the loader to the application's messengers; drivers' copies of the messengers
     * would deliver it a second time, so the message is not forwarded. */
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    for (struct vkl_messenger *m = inst->messengers; m != NULL; m = m->next) {
        if (m->is_report || (m->create_destroy_only && !inst->in_create_or_destroy)) continue;
        if ((m->severity & severity) != 0 && (m->types & types) != 0) m->utils_cb(severity, types, data, m->user_data);
    }
}

VkResult vkl_term_CreateDebugReportCallbackEXT(VkInstance instance, const VkDebugReportCallbackCreateInfoEXT *ci,
                                               const VkAllocationCallbacks *pAllocator,
                                               VkDebugReportCallbackEXT *pCallback) {
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    struct vkl_messenger *m = NULL;
    pthread_mutex_lock(&inst->lock);
    VkResult r = messenger_new_app(inst, &m);
    if (r == VK_SUCCESS) {
        m->is_report = true;
        m->report_flags = ci->flags;
        m->report_cb = ci->pfnCallback;
        m->user_data = ci->pUserData;
        for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next) {
            VkDebugReportCallbackEXT h = VK_NULL_HANDLE;
            if (ii->disp.CreateDebugReportCallbackEXT != NULL &&
                ii->disp.CreateDebugReportCallbackEXT(ii->handle, ci, pAllocator, &h) == VK_SUCCESS)
                m->driver_handles[ii->index] = (uint64_t)h;
        }
        *pCallback = (VkDebugReportCallbackEXT)(uintptr_t)m;
    }
    pthread_mutex_unlock(&inst->lock);
    return r;
}

void vkl_term_DestroyDebugReportCallbackEXT(VkInstance instance, VkDebugReportCallbackEXT callback,
                                            const VkAllocationCallbacks *pAllocator) {
    if (callback == VK_NULL_HANDLE) return;
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    struct vkl_messenger *m = (struct vkl_messenger *)(uintptr_t)callback;
    pthread_mutex_lock(&inst->lock);
    for (struct vkl_icd_instance *ii = inst->icds; ii != NULL; ii = ii->next)
        if (ii->index < m->driver_count && m->driver_handles[ii->index] != 0 &&
            ii->disp.DestroyDebugReportCallbackEXT != NULL)
            ii->disp.DestroyDebugReportCallbackEXT(ii->handle, (VkDebugReportCallbackEXT)m->driver_handles[ii->index],
                                                   pAllocator);
    messenger_unlink(inst, m);
    messenger_free(inst, m);
    pthread_mutex_unlock(&inst->lock);
}

void vkl_term_DebugReportMessageEXT(VkInstance instance, VkDebugReportFlagsEXT flags,
                                    VkDebugReportObjectTypeEXT objectType, uint64_t object, size_t location,
                                    int32_t messageCode, const char *pLayerPrefix, const char *pMessage) {
    struct vkl_instance *inst = vkl_instance_from_handle(instance);
    for (struct vkl_messenger *m = inst->messengers; m != NULL; m = m->next) {
        if (!m->is_report || (m->create_destroy_only && !inst->in_create_or_destroy)) continue;
        if ((m->report_flags & flags) != 0)
            m->report_cb(flags, objectType, object, location, messageCode, pLayerPrefix, pMessage, m->user_data);
    }
}

/* ---- object names and tags (RULE_DEBUG_OBJECT_HANDLES) --------------------------------------------
 * VkDebugUtilsObjectNameInfoEXT / TagInfo name an object by a 64-bit handle. For the dispatchable
 * objects the loader itself hands out (physical devices, the instance) the application's handle is
 * the loader's, not what the layer below or the driver knows: the trampoline gives the top layer the
 * handle the chain returned for it, the terminator gives the driver its own. Every other object
 * (devices, queues, non-dispatchable handles) is the driver's already and passes unchanged. As the
 * Khronos loader does; a driver given the loader's handle cannot find the object. */

/* `h` translated for the level below: `below_tramp` at the trampoline (the application's physical
 * device to the chain's, the instance to the chain's top), else at the terminator (the loader's
 * handles to the driver's, for the device's driver only). */
static uint64_t object_below(struct vkl_instance *inst, const struct vkl_icd_instance *icd, VkObjectType type,
                             uint64_t h, bool below_tramp) {
    /* a surface: the loader's, shared by every driver, to this driver's own (LDP_LOADER_11) */
    if (type == VK_OBJECT_TYPE_SURFACE_KHR)
        return below_tramp || h == 0 ? h : (uint64_t)vkl_wsi_icd_surface((VkSurfaceKHR)h, icd);
    if (type == VK_OBJECT_TYPE_INSTANCE) {
        if (h != (uint64_t)(uintptr_t)inst) return h;
        return below_tramp ? (uint64_t)(uintptr_t)inst->chain_handle : (uint64_t)(uintptr_t)icd->handle;
    }
    if (type != VK_OBJECT_TYPE_PHYSICAL_DEVICE) return h;
    uint64_t out = h;
    pthread_mutex_lock(&inst->lock);
    for (const struct vkl_physdev *p = inst->physdevs; p != NULL; p = p->next) {
        if (below_tramp && h == (uint64_t)(uintptr_t)&p->tramp) {
            out = (uint64_t)(uintptr_t)p->tramp.next;
            break;
        }
        if (!below_tramp && p->term.icd == icd &&
            (h == (uint64_t)(uintptr_t)&p->term || h == (uint64_t)(uintptr_t)&p->tramp)) {
            out = (uint64_t)(uintptr_t)p->term.handle;
            break;
        }
    }
    pthread_mutex_unlock(&inst->lock);
    return out;
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_tramp_SetDebugUtilsObjectNameEXT(VkDevice device,
                                                                    const VkDebugUtilsObjectNameInfoEXT *pNameInfo) {
    vkl_check_device_object(device, "vkSetDebugUtilsObjectNameEXT", "device");
    if (pNameInfo == NULL) return vkl_device_disp(device)->SetDebugUtilsObjectNameEXT(device, pNameInfo);
    struct vkl_device *dev = vkl_device_from_handle(device);
    VkDebugUtilsObjectNameInfoEXT info = *pNameInfo;
    info.objectHandle = object_below(dev->instance, dev->icd, info.objectType, info.objectHandle, true);
    return vkl_device_disp(device)->SetDebugUtilsObjectNameEXT(device, &info);
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_tramp_SetDebugUtilsObjectTagEXT(VkDevice device,
                                                                   const VkDebugUtilsObjectTagInfoEXT *pTagInfo) {
    vkl_check_device_object(device, "vkSetDebugUtilsObjectTagEXT", "device");
    if (pTagInfo == NULL) return vkl_device_disp(device)->SetDebugUtilsObjectTagEXT(device, pTagInfo);
    struct vkl_device *dev = vkl_device_from_handle(device);
    VkDebugUtilsObjectTagInfoEXT info = *pTagInfo;
    info.objectHandle = object_below(dev->instance, dev->icd, info.objectType, info.objectHandle, true);
    return vkl_device_disp(device)->SetDebugUtilsObjectTagEXT(device, &info);
}

static VKAPI_ATTR VkResult VKAPI_CALL term_SetDebugUtilsObjectNameEXT(VkDevice device,
                                                                      const VkDebugUtilsObjectNameInfoEXT *pNameInfo) {
    struct vkl_device *dev = vkl_device_from_handle(device);
    PFN_vkSetDebugUtilsObjectNameEXT f =
        (PFN_vkSetDebugUtilsObjectNameEXT)dev->icd->disp.GetDeviceProcAddr(device, "vkSetDebugUtilsObjectNameEXT");
    if (f == NULL) return VK_SUCCESS; /* nothing below keeps names */
    if (pNameInfo == NULL) return f(device, pNameInfo);
    VkDebugUtilsObjectNameInfoEXT info = *pNameInfo;
    info.objectHandle = object_below(dev->instance, dev->icd, info.objectType, info.objectHandle, false);
    return f(device, &info);
}

static VKAPI_ATTR VkResult VKAPI_CALL term_SetDebugUtilsObjectTagEXT(VkDevice device,
                                                                     const VkDebugUtilsObjectTagInfoEXT *pTagInfo) {
    struct vkl_device *dev = vkl_device_from_handle(device);
    PFN_vkSetDebugUtilsObjectTagEXT f =
        (PFN_vkSetDebugUtilsObjectTagEXT)dev->icd->disp.GetDeviceProcAddr(device, "vkSetDebugUtilsObjectTagEXT");
    if (f == NULL) return VK_SUCCESS;
    if (pTagInfo == NULL) return f(device, pTagInfo);
    VkDebugUtilsObjectTagInfoEXT info = *pTagInfo;
    info.objectHandle = object_below(dev->instance, dev->icd, info.objectType, info.objectHandle, false);
    return f(device, &info);
}

/* VK_EXT_debug_marker names objects by VkDebugReportObjectTypeEXT; the three the loader hands out. */
static VkObjectType marker_object_type(VkDebugReportObjectTypeEXT t) {
    switch (t) {
        case VK_DEBUG_REPORT_OBJECT_TYPE_INSTANCE_EXT: return VK_OBJECT_TYPE_INSTANCE;
        case VK_DEBUG_REPORT_OBJECT_TYPE_PHYSICAL_DEVICE_EXT: return VK_OBJECT_TYPE_PHYSICAL_DEVICE;
        case VK_DEBUG_REPORT_OBJECT_TYPE_SURFACE_KHR_EXT: return VK_OBJECT_TYPE_SURFACE_KHR;
        default: return VK_OBJECT_TYPE_UNKNOWN;
    }
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_tramp_DebugMarkerSetObjectNameEXT(VkDevice device,
                                                                     const VkDebugMarkerObjectNameInfoEXT *pNameInfo) {
    vkl_check_device_object(device, "vkDebugMarkerSetObjectNameEXT", "device");
    if (pNameInfo == NULL) return vkl_device_disp(device)->DebugMarkerSetObjectNameEXT(device, pNameInfo);
    struct vkl_device *dev = vkl_device_from_handle(device);
    VkDebugMarkerObjectNameInfoEXT info = *pNameInfo;
    info.object = object_below(dev->instance, dev->icd, marker_object_type(info.objectType), info.object, true);
    return vkl_device_disp(device)->DebugMarkerSetObjectNameEXT(device, &info);
}

VKAPI_ATTR VkResult VKAPI_CALL vkl_tramp_DebugMarkerSetObjectTagEXT(VkDevice device,
                                                                    const VkDebugMarkerObjectTagInfoEXT *pTagInfo) {
    vkl_check_device_object(device, "vkDebugMarkerSetObjectTagEXT", "device");
    if (pTagInfo == NULL) return vkl_device_disp(device)->DebugMarkerSetObjectTagEXT(device, pTagInfo);
    struct vkl_device *dev = vkl_device_from_handle(device);
    VkDebugMarkerObjectTagInfoEXT info = *pTagInfo;
    info.object = object_below(dev->instance, dev->icd, marker_object_type(info.objectType), info.object, true);
    return vkl_device_disp(device)->DebugMarkerSetObjectTagEXT(device, &info);
}

static VKAPI_ATTR VkResult VKAPI_CALL
term_DebugMarkerSetObjectNameEXT(VkDevice device, const VkDebugMarkerObjectNameInfoEXT *pNameInfo) {
    struct vkl_device *dev = vkl_device_from_handle(device);
    PFN_vkDebugMarkerSetObjectNameEXT f =
        (PFN_vkDebugMarkerSetObjectNameEXT)dev->icd->disp.GetDeviceProcAddr(device, "vkDebugMarkerSetObjectNameEXT");
    if (f == NULL) return VK_SUCCESS;
    if (pNameInfo == NULL) return f(device, pNameInfo);
    VkDebugMarkerObjectNameInfoEXT info = *pNameInfo;
    info.object = object_below(dev->instance, dev->icd, marker_object_type(info.objectType), info.object, false);
    return f(device, &info);
}

static VKAPI_ATTR VkResult VKAPI_CALL term_DebugMarkerSetObjectTagEXT(VkDevice device,
                                                                      const VkDebugMarkerObjectTagInfoEXT *pTagInfo) {
    struct vkl_device *dev = vkl_device_from_handle(device);
    PFN_vkDebugMarkerSetObjectTagEXT f =
        (PFN_vkDebugMarkerSetObjectTagEXT)dev->icd->disp.GetDeviceProcAddr(device, "vkDebugMarkerSetObjectTagEXT");
    if (f == NULL) return VK_SUCCESS;
    if (pTagInfo == NULL) return f(device, pTagInfo);
    VkDebugMarkerObjectTagInfoEXT info = *pTagInfo;
    info.object = object_below(dev->instance, dev->icd, marker_object_type(info.objectType), info.object, false);
    return f(device, &info);
}

PFN_vkVoidFunction vkl_debug_device_proc(VkDevice device, const char *name) {
    PFN_vkVoidFunction mine = NULL;
    if (strcmp(name, "vkSetDebugUtilsObjectNameEXT") == 0)
        mine = (PFN_vkVoidFunction)term_SetDebugUtilsObjectNameEXT;
    else if (strcmp(name, "vkSetDebugUtilsObjectTagEXT") == 0)
        mine = (PFN_vkVoidFunction)term_SetDebugUtilsObjectTagEXT;
    else if (strcmp(name, "vkDebugMarkerSetObjectNameEXT") == 0)
        mine = (PFN_vkVoidFunction)term_DebugMarkerSetObjectNameEXT;
    else if (strcmp(name, "vkDebugMarkerSetObjectTagEXT") == 0)
        mine = (PFN_vkVoidFunction)term_DebugMarkerSetObjectTagEXT;
    if (mine == NULL) return NULL;
    /* only where the driver has the command: otherwise the layers and the application see NULL */
    return vkl_device_from_handle(device)->icd->disp.GetDeviceProcAddr(device, name) != NULL ? mine : NULL;
}
