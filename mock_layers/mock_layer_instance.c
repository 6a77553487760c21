/*
 * The mock layer's instance-level commands: vkCreateInstance / vkDestroyInstance (with
 * call_globals and the no_advance_link loop guard), debug-utils messengers, physical-device
 * enumeration and groups, the physical-device queries it unwraps, tool properties and
 * vkEnumerateDeviceExtensionProperties.
 */
#include "mock_layers/mock_layer_internal.h"

/* ------------------------------------------------------------------ intercepted commands */

/* The link this library called down through without advancing it (no_advance_link), while that
 * call is in progress on this thread. Entered again with the very same link, the layer would call
 * down through it again, forever (two stacked no_advance_link layers: each reaches the other's
 * shim, LLP_LAYER_12/13); a real process dies of stack overflow there, the mock refuses instead so
 * that a fuzzed world stays finite. Process-wide atomics rather than thread-locals: LeakSanitizer's
 * exit-time scan crashes ("Tracer caught signal 11") on the TLS of a library that was dlclose()d, as
 * every layer is at vkDestroyInstance. Another thread's call in progress holds another link (links
 * live on the caller's stack), so it cannot be mistaken for a loop; at worst it hides one. */
/* call_globals: inside vkCreateInstance, before calling down, a layer may ask the next element for
 * the global commands with a NULL instance and call them (the layer interface allows it); records
 * {"call": "call_globals", "<command>": result name or null when NULL was returned, counts}. */
static void call_globals(PFN_vkGetInstanceProcAddr next_gipa) {
    PFN_vkEnumerateInstanceExtensionProperties ext =
        (PFN_vkEnumerateInstanceExtensionProperties)next_gipa(VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties");
    PFN_vkEnumerateInstanceLayerProperties lay =
        (PFN_vkEnumerateInstanceLayerProperties)next_gipa(VK_NULL_HANDLE, "vkEnumerateInstanceLayerProperties");
    PFN_vkEnumerateInstanceVersion ver =
        (PFN_vkEnumerateInstanceVersion)next_gipa(VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
    cJSON *o = cJSON_CreateObject();
    uint32_t n = 0;
    if (ext == NULL) {
        cJSON_AddNullToObject(o, "vkEnumerateInstanceExtensionProperties");
    } else {
        VkResult r = ext(NULL, &n, NULL);
        cJSON_AddNumberToObject(o, "vkEnumerateInstanceExtensionProperties", r);
        cJSON_AddNumberToObject(o, "extension_count", n);
        if (r == VK_SUCCESS && n > 0) {
            VkExtensionProperties *p = calloc(n, sizeof(*p));
            if (p != NULL && ext(NULL, &n, p) == VK_SUCCESS) {
                cJSON *names = cJSON_AddArrayToObject(o, "extensions");
                for (uint32_t i = 0; i < n; i++) cJSON_AddItemToArray(names, cJSON_CreateString(p[i].extensionName));
            }
            free(p);
        }
    }
    if (lay == NULL) {
        cJSON_AddNullToObject(o, "vkEnumerateInstanceLayerProperties");
    } else {
        n = 0;
        cJSON_AddNumberToObject(o, "vkEnumerateInstanceLayerProperties", lay(&n, NULL));
        cJSON_AddNumberToObject(o, "layer_count", n);
    }
    if (ver == NULL) {
        cJSON_AddNullToObject(o, "vkEnumerateInstanceVersion");
    } else {
        uint32_t v = 0;
        cJSON_AddNumberToObject(o, "vkEnumerateInstanceVersion", ver(&v));
        cJSON_AddNumberToObject(o, "version", v);
    }
    pthread_mutex_lock(&g_lock);
    record("call_globals", o);
    pthread_mutex_unlock(&g_lock);
}

/* "reenter": a layer that uses Vulkan itself while the loader is creating an instance or a device
 * through it (a layer creating a helper instance / device of its own; docs/architecture.md
 * "Re-entry", RULE_THREADS_REENTRY). The loader's exported vkGetInstanceProcAddr is found in the
 * library the scenario names (already loaded by the application). The creation it makes loads
 * this layer again, on the same thread: it re-enters once per thread, not forever. Records
 * {"call": "reenter_instance" | "reenter_device", "loader_found", "instance": VkResult, and for a
 * device "physical_devices": VkResult, "device": VkResult, "gdpa": the device's vkGetDeviceQueue
 * resolved, "queue": a queue came back}. */
static _Thread_local bool t_reentered;

void reenter(const struct scenario *sc, bool device) {
    if (t_reentered) return;
    cJSON *o = cJSON_CreateObject();
    void *lib = dlopen(sc->reenter_loader, RTLD_NOW | RTLD_NOLOAD);
    cJSON_AddBoolToObject(o, "loader_found", lib != NULL);
    if (lib != NULL) {
        t_reentered = true;
        PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
        PFN_vkCreateInstance create = gipa ? (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance") : NULL;
        VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        VkInstance inst = VK_NULL_HANDLE;
        VkResult r = create ? create(&ci, NULL, &inst) : VK_ERROR_INITIALIZATION_FAILED;
        cJSON_AddNumberToObject(o, "instance", r);
        if (r == VK_SUCCESS && device) {
            PFN_vkEnumeratePhysicalDevices enumerate =
                (PFN_vkEnumeratePhysicalDevices)gipa(inst, "vkEnumeratePhysicalDevices");
            PFN_vkCreateDevice create_device = (PFN_vkCreateDevice)gipa(inst, "vkCreateDevice");
            PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)gipa(inst, "vkGetDeviceProcAddr");
            VkPhysicalDevice pd = VK_NULL_HANDLE;
            uint32_t count = 1;
            VkResult pr = enumerate ? enumerate(inst, &count, &pd) : VK_ERROR_INITIALIZATION_FAILED;
            cJSON_AddNumberToObject(o, "physical_devices", pr);
            if ((pr == VK_SUCCESS || pr == VK_INCOMPLETE) && count > 0 && create_device != NULL && gdpa != NULL) {
                float priority = 1.0f;
                VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                             .queueCount = 1,
                                             .pQueuePriorities = &priority};
                VkDeviceCreateInfo dci = {
                    .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &q};
                VkDevice dev = VK_NULL_HANDLE;
                VkResult dr = create_device(pd, &dci, NULL, &dev);
                cJSON_AddNumberToObject(o, "device", dr);
                if (dr == VK_SUCCESS) {
                    PFN_vkGetDeviceQueue get_queue = (PFN_vkGetDeviceQueue)gdpa(dev, "vkGetDeviceQueue");
                    PFN_vkDestroyDevice destroy_device = (PFN_vkDestroyDevice)gdpa(dev, "vkDestroyDevice");
                    VkQueue queue = VK_NULL_HANDLE;
                    if (get_queue != NULL) get_queue(dev, 0, 0, &queue);
                    cJSON_AddBoolToObject(o, "gdpa", get_queue != NULL);
                    cJSON_AddBoolToObject(o, "queue", queue != VK_NULL_HANDLE);
                    if (destroy_device != NULL) destroy_device(dev, NULL);
                }
            }
        }
        if (r == VK_SUCCESS) {
            PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)gipa(inst, "vkDestroyInstance");
            if (destroy != NULL) destroy(inst, NULL);
        }
        t_reentered = false;
        dlclose(lib);
    }
    pthread_mutex_lock(&g_lock);
    record(device ? "reenter_device" : "reenter_instance", o);
    pthread_mutex_unlock(&g_lock);
}

static _Atomic(const void *) g_unadvanced_instance_link;
_Atomic(const void *) g_unadvanced_device_link;

VKAPI_ATTR VkResult VKAPI_CALL layer_CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *a,
                                                    VkInstance *pInstance) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)ci->pNext;
    bool have_loader_data = false;
    PFN_vkSetInstanceLoaderData set_loader_data = NULL;
    VkLayerInstanceCreateInfo *found = NULL;
    PFN_vkLayerCreateDevice layer_create_device = NULL;
    PFN_vkLayerDestroyDevice layer_destroy_device = NULL;
    for (; link != NULL; link = (VkLayerInstanceCreateInfo *)link->pNext) {
        if (link->sType != VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO) continue;
        if (link->function == VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK) {
            layer_create_device = link->u.layerDevice.pfnLayerCreateDevice;
            layer_destroy_device = link->u.layerDevice.pfnLayerDestroyDevice;
        }
        if (link->function == VK_LOADER_DATA_CALLBACK) {
            have_loader_data = link->u.pfnSetInstanceLoaderData != NULL;
            set_loader_data = link->u.pfnSetInstanceLoaderData;
        }
        if (link->function == VK_LAYER_LINK_INFO && found == NULL) found = link;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "link_info", found != NULL && found->u.pLayerInfo != NULL);
    cJSON_AddBoolToObject(o, "set_instance_loader_data", have_loader_data);
    cJSON_AddBoolToObject(o, "allocator", a != NULL);
    cJSON *lnames = cJSON_AddArrayToObject(o, "layers"); /* ppEnabledLayerNames as this layer sees it */
    for (uint32_t i = 0; ci->ppEnabledLayerNames != NULL && i < ci->enabledLayerCount; i++)
        cJSON_AddItemToArray(lnames, cJSON_CreateString(ci->ppEnabledLayerNames[i] ? ci->ppEnabledLayerNames[i] : ""));
    cJSON *exts = cJSON_AddArrayToObject(o, "extensions");
    bool ext_enabled = false;
    for (uint32_t i = 0; i < ci->enabledExtensionCount; i++) {
        cJSON_AddItemToArray(exts, cJSON_CreateString(ci->ppEnabledExtensionNames[i]));
        ext_enabled = ext_enabled || (g_sc.instance_extension[0] != '\0' &&
                                      strcmp(ci->ppEnabledExtensionNames[i], g_sc.instance_extension) == 0);
    }
    record("vkCreateInstance", o);
    struct scenario sc = g_sc;
    pthread_mutex_unlock(&g_lock);
    if (found == NULL || found->u.pLayerInfo == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    if (found->u.pLayerInfo == atomic_load_explicit(&g_unadvanced_instance_link, memory_order_relaxed))
        return VK_ERROR_INITIALIZATION_FAILED; /* a loop */
    if (sc.fail_unknown_extensions && ci->enabledExtensionCount > 0) return VK_ERROR_EXTENSION_NOT_PRESENT;
    PFN_vkGetInstanceProcAddr next_gipa = found->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_GetPhysicalDeviceProcAddr next_gpdpa = found->u.pLayerInfo->pfnNextGetPhysicalDeviceProcAddr;
    PFN_vkCreateInstance next_create = (PFN_vkCreateInstance)next_gipa(VK_NULL_HANDLE, "vkCreateInstance");
    if (next_create == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    if (sc.call_globals) call_globals(next_gipa);
    if (sc.reenter_instance) reenter(&sc, false);
    if (!sc.no_advance_link) found->u.pLayerInfo = found->u.pLayerInfo->pNext;
    if (sc.clobber_instance) *pInstance = (VkInstance)(uintptr_t)g_clobbered_instance;
    if (sc.no_call_down) return VK_SUCCESS;
    const void *outer_link = atomic_load_explicit(&g_unadvanced_instance_link, memory_order_relaxed);
    if (sc.no_advance_link)
        atomic_store_explicit(&g_unadvanced_instance_link, found->u.pLayerInfo, memory_order_relaxed);
    VkResult r = next_create(ci, a, pInstance);
    atomic_store_explicit(&g_unadvanced_instance_link, outer_link, memory_order_relaxed);
    if (r != VK_SUCCESS) return r;
    /* The next pointers are fetched without the lock: the layer below may be this very library
     * (a layer above that did not advance the link, LLP_LAYER_12). */
    struct inst_data tmp = {0}, *d = &tmp;
    {
        d->key = key_of(*pInstance);
        d->instance = *pInstance;
        d->next_gipa = next_gipa;
        d->next_gpdpa = next_gpdpa;
        d->ext_enabled = ext_enabled;
        d->layer_create_device = layer_create_device;
        d->layer_destroy_device = layer_destroy_device;
        d->DestroyInstance = (PFN_vkDestroyInstance)next_gipa(*pInstance, "vkDestroyInstance");
        d->EnumeratePhysicalDevices =
            (PFN_vkEnumeratePhysicalDevices)next_gipa(*pInstance, "vkEnumeratePhysicalDevices");
        d->GetPhysicalDeviceProperties =
            (PFN_vkGetPhysicalDeviceProperties)next_gipa(*pInstance, "vkGetPhysicalDeviceProperties");
        /* "tool": asked here, while the next vkGetInstanceProcAddr answers with what lies below (after
         * creation Debian's Khronos loader answers from the instance's chain-top dispatch). */
        if (g_sc.tool)
            d->GetPhysicalDeviceToolProperties =
                (PFN_vkGetPhysicalDeviceToolProperties)next_gipa(*pInstance, "vkGetPhysicalDeviceToolProperties");
        if (g_sc.tool && d->GetPhysicalDeviceToolProperties == NULL)
            d->GetPhysicalDeviceToolProperties =
                (PFN_vkGetPhysicalDeviceToolProperties)next_gipa(*pInstance, "vkGetPhysicalDeviceToolPropertiesEXT");
        d->EnumerateDeviceExtensionProperties =
            (PFN_vkEnumerateDeviceExtensionProperties)next_gipa(*pInstance, "vkEnumerateDeviceExtensionProperties");
        d->CreateDebugUtilsMessengerEXT =
            (PFN_vkCreateDebugUtilsMessengerEXT)next_gipa(*pInstance, "vkCreateDebugUtilsMessengerEXT");
        d->DestroyDebugUtilsMessengerEXT =
            (PFN_vkDestroyDebugUtilsMessengerEXT)next_gipa(*pInstance, "vkDestroyDebugUtilsMessengerEXT");
        d->EnumeratePhysicalDeviceGroups =
            (PFN_vkEnumeratePhysicalDeviceGroups)next_gipa(d->instance, "vkEnumeratePhysicalDeviceGroups");
        d->EnumeratePhysicalDeviceGroupsKHR =
            (PFN_vkEnumeratePhysicalDeviceGroups)next_gipa(d->instance, "vkEnumeratePhysicalDeviceGroupsKHR");
        if (sc.physdev_next_at_create && next_gpdpa != NULL)
            for (int k = 0; k < FN_SLOTS; k++)
                if (sc.physdev_functions[k][0] != '\0')
                    d->physdev_next[k] = next_gpdpa(*pInstance, sc.physdev_functions[k]);
        d->alloc = alloc_from(a);
        if (sc.wrap_instance) {
            /* Wrapped after the call down returned: legal (LLP_LAYER_21 forbids only before). */
            struct wrapped_inst *w = obj_alloc(&d->alloc, sizeof(*w), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
            if (w == NULL) {
                if (d->DestroyInstance) d->DestroyInstance(*pInstance, a);
                return VK_ERROR_OUT_OF_HOST_MEMORY;
            }
            w->loader_data = key_of(*pInstance);
            w->real = *pInstance;
            d->inst_wrapper = w;
            *pInstance = (VkInstance)(void *)w;
        }
        if (sc.wrap_handles) {
            VkInstance in = d->instance;
            d->wrap = true;
            d->set_loader_data = set_loader_data;
            d->GetPhysicalDeviceProperties2 =
                (PFN_vkGetPhysicalDeviceProperties2)next_gipa(in, "vkGetPhysicalDeviceProperties2");
            d->GetPhysicalDeviceProperties2KHR =
                (PFN_vkGetPhysicalDeviceProperties2)next_gipa(in, "vkGetPhysicalDeviceProperties2KHR");
            d->GetPhysicalDeviceFeatures =
                (PFN_vkGetPhysicalDeviceFeatures)next_gipa(in, "vkGetPhysicalDeviceFeatures");
            d->GetPhysicalDeviceQueueFamilyProperties =
                (PFN_vkGetPhysicalDeviceQueueFamilyProperties)next_gipa(in, "vkGetPhysicalDeviceQueueFamilyProperties");
            d->GetPhysicalDeviceMemoryProperties =
                (PFN_vkGetPhysicalDeviceMemoryProperties)next_gipa(in, "vkGetPhysicalDeviceMemoryProperties");
        }
    }
    store_record(g_inst, sizeof(g_inst[0]), &tmp);
    return VK_SUCCESS;
}

VKAPI_ATTR void VKAPI_CALL layer_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *a) {
    if (instance == VK_NULL_HANDLE) return;
    VkInstance below;
    struct inst_data *d = inst_enter(instance, "vkDestroyInstance", &below);
    pthread_mutex_lock(&g_lock);
    PFN_vkDestroyInstance next = d ? d->DestroyInstance : NULL;
    if (d) {
        for (uint32_t i = 0; i < d->pd_count; i++) obj_free(&d->alloc, d->pds[i]);
        obj_free(&d->alloc, d->inst_wrapper);
        memset(d, 0, sizeof(*d));
    }
    pthread_mutex_unlock(&g_lock);
    if (next) next(below, a);
}

/* wrap_instance: the debug-utils messenger commands take the VkInstance, so the wrapping layer
 * intercepts them and unwraps. */
VKAPI_ATTR VkResult VKAPI_CALL layer_CreateDebugUtilsMessengerEXT(VkInstance instance,
                                                                  const VkDebugUtilsMessengerCreateInfoEXT *ci,
                                                                  const VkAllocationCallbacks *a,
                                                                  VkDebugUtilsMessengerEXT *pMessenger) {
    VkInstance below;
    struct inst_data *d = inst_enter(instance, "vkCreateDebugUtilsMessengerEXT", &below);
    PFN_vkCreateDebugUtilsMessengerEXT next = d ? d->CreateDebugUtilsMessengerEXT : NULL;
    return next ? next(below, ci, a, pMessenger) : VK_ERROR_EXTENSION_NOT_PRESENT;
}

VKAPI_ATTR void VKAPI_CALL layer_DestroyDebugUtilsMessengerEXT(VkInstance instance, VkDebugUtilsMessengerEXT messenger,
                                                               const VkAllocationCallbacks *a) {
    VkInstance below;
    struct inst_data *d = inst_enter(instance, "vkDestroyDebugUtilsMessengerEXT", &below);
    PFN_vkDestroyDebugUtilsMessengerEXT next = d ? d->DestroyDebugUtilsMessengerEXT : NULL;
    if (next) next(below, messenger, a);
}

VKAPI_ATTR VkResult VKAPI_CALL layer_EnumeratePhysicalDevices(VkInstance instance, uint32_t *pCount,
                                                              VkPhysicalDevice *pDevs) {
    VkInstance below;
    struct inst_data *d = inst_enter(instance, "vkEnumeratePhysicalDevices", &below);
    if (d == NULL || d->EnumeratePhysicalDevices == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    VkResult r = d->EnumeratePhysicalDevices(below, pCount, pDevs);
    if (!d->wrap || pDevs == NULL || (r != VK_SUCCESS && r != VK_INCOMPLETE)) return r;
    pthread_mutex_lock(&g_lock);
    for (uint32_t i = 0; i < *pCount && r != VK_ERROR_OUT_OF_HOST_MEMORY; i++) {
        pDevs[i] = wrap_pd(d, pDevs[i]);
        if (pDevs[i] == VK_NULL_HANDLE) r = VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    pthread_mutex_unlock(&g_lock);
    return r;
}

/* wrap_handles only: the group members are physical devices too. */
static VkResult wrap_groups(VkInstance instance, uint32_t *pCount, VkPhysicalDeviceGroupProperties *pGroups, bool khr) {
    VkInstance below;
    struct inst_data *d = inst_enter(instance, "vkEnumeratePhysicalDeviceGroups", &below);
    PFN_vkEnumeratePhysicalDeviceGroups next = d == NULL ? NULL
                                               : khr     ? d->EnumeratePhysicalDeviceGroupsKHR
                                                         : d->EnumeratePhysicalDeviceGroups;
    if (next == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    VkResult r = next(below, pCount, pGroups);
    if (pGroups == NULL || (r != VK_SUCCESS && r != VK_INCOMPLETE)) return r;
    pthread_mutex_lock(&g_lock);
    for (uint32_t g = 0; g < *pCount; g++)
        for (uint32_t m = 0; m < pGroups[g].physicalDeviceCount && m < VK_MAX_DEVICE_GROUP_SIZE; m++) {
            pGroups[g].physicalDevices[m] = wrap_pd(d, pGroups[g].physicalDevices[m]);
            if (pGroups[g].physicalDevices[m] == VK_NULL_HANDLE) r = VK_ERROR_OUT_OF_HOST_MEMORY;
        }
    pthread_mutex_unlock(&g_lock);
    return r;
}
VKAPI_ATTR VkResult VKAPI_CALL layer_EnumeratePhysicalDeviceGroups(VkInstance instance, uint32_t *pCount,
                                                                   VkPhysicalDeviceGroupProperties *pGroups) {
    return wrap_groups(instance, pCount, pGroups, false);
}
VKAPI_ATTR VkResult VKAPI_CALL layer_EnumeratePhysicalDeviceGroupsKHR(VkInstance instance, uint32_t *pCount,
                                                                      VkPhysicalDeviceGroupProperties *pGroups) {
    return wrap_groups(instance, pCount, pGroups, true);
}

/* Physical-device queries passed down with the handle unwrapped (and recorded when `recorded`):
 * vkGetPhysicalDeviceProperties, and for wrap_handles only the others, the physical-device queries
 * the mock unwraps (anything else taking a VkPhysicalDevice is not offered by a wrapping mock: its
 * vkGetInstanceProcAddr answers NULL). */
#define PD_QUERY(recorded, Name, Type)                                                                                 \
    VKAPI_ATTR void VKAPI_CALL layer_##Name(VkPhysicalDevice pd, Type *p) {                                            \
        if (recorded) rec("vk" #Name);                                                                                 \
        struct inst_data *d = inst_find(pd);                                                                           \
        if (d && d->Name) d->Name(unwrap_pd(d, pd), p);                                                                \
    }
PD_QUERY(true, GetPhysicalDeviceProperties, VkPhysicalDeviceProperties)
PD_QUERY(true, GetPhysicalDeviceProperties2, VkPhysicalDeviceProperties2)
PD_QUERY(true, GetPhysicalDeviceProperties2KHR, VkPhysicalDeviceProperties2)
PD_QUERY(false, GetPhysicalDeviceFeatures, VkPhysicalDeviceFeatures)
PD_QUERY(false, GetPhysicalDeviceMemoryProperties, VkPhysicalDeviceMemoryProperties)
VKAPI_ATTR void VKAPI_CALL layer_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice pd, uint32_t *pCount,
                                                                        VkQueueFamilyProperties *p) {
    struct inst_data *d = inst_find(pd);
    if (d && d->GetPhysicalDeviceQueueFamilyProperties)
        d->GetPhysicalDeviceQueueFamilyProperties(unwrap_pd(d, pd), pCount, p);
    else
        *pCount = 0;
}

/* "tool": the entries of the chain below (vkGetPhysicalDeviceToolProperties, or its EXT alias, from
 * the next vkGetInstanceProcAddr at vkCreateInstance), then the layer's own: name "<layer name> tool", layer = its
 * name. */
VKAPI_ATTR VkResult VKAPI_CALL layer_GetPhysicalDeviceToolProperties(VkPhysicalDevice pd, uint32_t *pCount,
                                                                     VkPhysicalDeviceToolProperties *pTools) {
    rec("vkGetPhysicalDeviceToolProperties");
    struct inst_data *d = inst_find(pd);
    PFN_vkGetPhysicalDeviceToolProperties next = d != NULL ? d->GetPhysicalDeviceToolProperties : NULL;
    VkPhysicalDevice below_pd = d != NULL ? unwrap_pd(d, pd) : pd;
    uint32_t below = 0;
    VkResult r = next != NULL ? next(below_pd, &below, NULL) : VK_SUCCESS;
    if (r < 0) return r;
    if (pTools == NULL) {
        *pCount = below + 1;
        return VK_SUCCESS;
    }
    uint32_t cap = *pCount, n = below < cap ? below : cap;
    if (next != NULL && n > 0) {
        r = next(below_pd, &n, pTools);
        if (r < 0) return r;
    }
    if (n >= cap) {
        *pCount = n;
        return VK_INCOMPLETE;
    }
    VkPhysicalDeviceToolProperties *t = &pTools[n];
    void *keep = t->pNext;
    memset(t, 0, sizeof(*t));
    t->sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TOOL_PROPERTIES;
    t->pNext = keep;
    size_t room = sizeof(t->name) - sizeof(" tool"); /* the name cut so " tool" always fits */
    snprintf(t->name, sizeof(t->name), "%.*s tool", (int)room, g_sc.name);
    snprintf(t->version, sizeof(t->version), "1");
    t->purposes = VK_TOOL_PURPOSE_TRACING_BIT;
    snprintf(t->description, sizeof(t->description), "mock layer tool");
    snprintf(t->layer, sizeof(t->layer), "%s", g_sc.name);
    *pCount = n + 1;
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL layer_EnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char *pLayerName,
                                                                        uint32_t *pCount,
                                                                        VkExtensionProperties *pProps) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    cJSON *o = cJSON_CreateObject();
    if (pLayerName)
        cJSON_AddStringToObject(o, "layer_name", pLayerName);
    else
        cJSON_AddNullToObject(o, "layer_name");
    if (g_sc.strict_handles && inst_find(pd) == NULL) cJSON_AddBoolToObject(o, "foreign_handle", true);
    record("vkEnumerateDeviceExtensionProperties", o);
    bool mine = pLayerName != NULL && strcmp(pLayerName, g_sc.name) == 0;
    VkExtensionProperties own;
    memset(&own, 0, sizeof(own));
    snprintf(own.extensionName, sizeof(own.extensionName), "%s", g_sc.device_extension);
    own.specVersion = 1;
    pthread_mutex_unlock(&g_lock);
    if (mine) { /* LLP_LAYER_16: answer for our own name: the scenario's device_extension, if any */
        uint32_t n = own.extensionName[0] != '\0' ? 1 : 0;
        if (pProps == NULL) {
            *pCount = n;
            return VK_SUCCESS;
        }
        uint32_t c = *pCount < n ? *pCount : n;
        if (c > 0) pProps[0] = own;
        *pCount = c;
        return c < n ? VK_INCOMPLETE : VK_SUCCESS;
    }
    struct inst_data *d = inst_find(pd);
    if (d == NULL || d->EnumerateDeviceExtensionProperties == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    pthread_mutex_lock(&g_lock);
    VkExtensionProperties inject;
    memset(&inject, 0, sizeof(inject));
    snprintf(inject.extensionName, sizeof(inject.extensionName), "%s", g_sc.inject_device_extension);
    inject.specVersion = 1;
    pthread_mutex_unlock(&g_lock);
    if (pLayerName != NULL || inject.extensionName[0] == '\0')
        return d->EnumerateDeviceExtensionProperties(unwrap_pd(d, pd), pLayerName, pCount, pProps);
    /* "inject_device_extension": what lies below, then that extension */
    uint32_t below = 0;
    VkResult r = d->EnumerateDeviceExtensionProperties(unwrap_pd(d, pd), NULL, &below, NULL);
    if (r != VK_SUCCESS) return r;
    if (pProps == NULL) {
        *pCount = below + 1;
        return VK_SUCCESS;
    }
    uint32_t room = *pCount, n = room < below ? room : below;
    r = d->EnumerateDeviceExtensionProperties(unwrap_pd(d, pd), NULL, &n, pProps);
    if (r < 0) return r;
    if (n < room) {
        pProps[n++] = inject;
        *pCount = n;
        return r;
    }
    *pCount = n;
    return VK_INCOMPLETE;
}
