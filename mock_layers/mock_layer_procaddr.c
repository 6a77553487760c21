/*
 * The mock layer's entry points: what its vkGetInstanceProcAddr, vk_layerGetPhysicalDeviceProcAddr
 * and vkGetDeviceProcAddr answer, interface negotiation, the exports of each variant and the
 * pre-instance functions.
 */
#include "mock_layers/mock_layer_internal.h"

/* ------------------------------------------------------------------ proc addrs */

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetPhysicalDeviceProcAddr(VkInstance instance, const char *name);

#define FN(x) ((PFN_vkVoidFunction)(x))

static PFN_vkVoidFunction own_instance_fn(const char *name) {
    if (strcmp(name, "vkGetInstanceProcAddr") == 0) return FN(layer_GetInstanceProcAddr);
    /* A wrapping layer must see every command that takes its handles (LLP_LAYER_10). */
    bool wrapping = g_sc.wrap_handles || g_sc.wrap_instance;
    if (g_sc.tool && (strcmp(name, "vkGetPhysicalDeviceToolProperties") == 0 ||
                      strcmp(name, "vkGetPhysicalDeviceToolPropertiesEXT") == 0))
        return FN(layer_GetPhysicalDeviceToolProperties);
    if (!intercepts(name) && !wrapping) return NULL;
    if (strcmp(name, "vkCreateInstance") == 0) return FN(layer_CreateInstance);
    if (strcmp(name, "vkDestroyInstance") == 0) return FN(layer_DestroyInstance);
    if (strcmp(name, "vkEnumeratePhysicalDevices") == 0) return FN(layer_EnumeratePhysicalDevices);
    if (strcmp(name, "vkGetPhysicalDeviceProperties") == 0) return FN(layer_GetPhysicalDeviceProperties);
    if (strcmp(name, "vkEnumerateDeviceExtensionProperties") == 0) return FN(layer_EnumerateDeviceExtensionProperties);
    if (strcmp(name, "vkCreateDevice") == 0) return FN(layer_CreateDevice);
    if (!wrapping) return NULL;
    if (strcmp(name, "vkEnumeratePhysicalDeviceGroups") == 0) return FN(layer_EnumeratePhysicalDeviceGroups);
    if (strcmp(name, "vkEnumeratePhysicalDeviceGroupsKHR") == 0) return FN(layer_EnumeratePhysicalDeviceGroupsKHR);
    if (g_sc.wrap_instance && strcmp(name, "vkCreateDebugUtilsMessengerEXT") == 0)
        return FN(layer_CreateDebugUtilsMessengerEXT);
    if (g_sc.wrap_instance && strcmp(name, "vkDestroyDebugUtilsMessengerEXT") == 0)
        return FN(layer_DestroyDebugUtilsMessengerEXT);
    if (!g_sc.wrap_handles) return NULL;
    if (strcmp(name, "vkGetPhysicalDeviceProperties2") == 0) return FN(layer_GetPhysicalDeviceProperties2);
    if (strcmp(name, "vkGetPhysicalDeviceProperties2KHR") == 0) return FN(layer_GetPhysicalDeviceProperties2KHR);
    if (strcmp(name, "vkGetPhysicalDeviceFeatures") == 0) return FN(layer_GetPhysicalDeviceFeatures);
    if (strcmp(name, "vkGetPhysicalDeviceQueueFamilyProperties") == 0)
        return FN(layer_GetPhysicalDeviceQueueFamilyProperties);
    if (strcmp(name, "vkGetPhysicalDeviceMemoryProperties") == 0) return FN(layer_GetPhysicalDeviceMemoryProperties);
    return NULL;
}

/* wrap_handles: physical-device commands the mock does not unwrap are not offered (passing them
 * down would hand the layer below a handle it never made, LLP_LAYER_10). */
static bool wrap_hides(const char *name) {
    if (g_sc.wrap_handles && strncmp(name, "vkGetPhysicalDevice", 19) == 0) return true;
    /* wrap_instance: the other commands that take a VkInstance (surfaces, debug-report callbacks,
     * vkSubmitDebugUtilsMessageEXT) are not unwrapped by the mock, so they are not offered. */
    return g_sc.wrap_instance && (strstr(name, "Surface") != NULL || strstr(name, "DebugReport") != NULL ||
                                  strcmp(name, "vkSubmitDebugUtilsMessageEXT") == 0);
}

static PFN_vkVoidFunction own_device_fn(const char *name) {
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) return FN(layer_GetDeviceProcAddr);
    for (int k = 0; k < FN_SLOTS; k++)
        if (g_sc.device_functions[k][0] != '\0' && strcmp(name, g_sc.device_functions[k]) == 0)
            return g_device_function_slots[k];
    /* A layer wrapping command pools, or the VkDevice, must see every command that takes one
     * (LLP_LAYER_10); one wrapping the VkDevice also wraps queues and command buffers. */
    if (g_sc.wrap_handles) {
        if (strcmp(name, "vkGetDeviceQueue2") == 0) return FN(layer_GetDeviceQueue2);
        if (strcmp(name, "vkBeginCommandBuffer") == 0) return FN(layer_BeginCommandBuffer);
        if (strcmp(name, "vkEndCommandBuffer") == 0) return FN(layer_EndCommandBuffer);
        if (strcmp(name, "vkCmdFillBuffer") == 0) return FN(layer_CmdFillBuffer);
        if (strcmp(name, "vkQueueSubmit") == 0) return FN(layer_QueueSubmit);
    }
    if (g_sc.wrap_command_pools || g_sc.wrap_handles) {
        if (strcmp(name, "vkCreateCommandPool") == 0) return FN(layer_CreateCommandPool);
        if (strcmp(name, "vkDestroyCommandPool") == 0) return FN(layer_DestroyCommandPool);
        if (strcmp(name, "vkAllocateCommandBuffers") == 0) return FN(layer_AllocateCommandBuffers);
        if (strcmp(name, "vkFreeCommandBuffers") == 0) return FN(layer_FreeCommandBuffers);
    }
    /* A wrapping layer must see every command that takes its VkDevice (LLP_LAYER_10). */
    if (!intercepts(name) && !g_sc.wrap_handles) return NULL;
    if (strcmp(name, "vkDestroyDevice") == 0) return FN(layer_DestroyDevice);
    if (g_sc.wrap_handles && strcmp(name, "vkGetDeviceQueue") == 0) return FN(layer_GetDeviceQueue);
    return NULL;
}

/* What the next element of `instance`'s chain answers for `name` through its vkGetInstanceProcAddr,
 * or its vk_layerGetPhysicalDeviceProcAddr when `physdev` (NULL when it has none). Asked with the
 * handle it knows (wrap_instance: the element below knows its own). */
static PFN_vkVoidFunction ask_next(VkInstance instance, const char *name, bool physdev) {
    pthread_mutex_lock(&g_lock);
    struct inst_data *d = inst_find(instance);
    VkInstance below = unwrap_inst(d, instance, NULL);
    PFN_vkGetInstanceProcAddr next = d == NULL ? NULL : physdev ? d->next_gpdpa : d->next_gipa;
    pthread_mutex_unlock(&g_lock);
    return next ? next(below, name) : NULL;
}

/* strict_handles: whether `instance` is a handle the layer did not return (records the lookup as
 * {"call": <proc addr>, "name", "foreign_handle": true}). Lock held. */
static bool foreign_instance(const char *call, VkInstance instance, const char *name) {
    if (!g_sc.strict_handles || instance == VK_NULL_HANDLE || inst_find(instance) != NULL) return false;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", name);
    cJSON_AddBoolToObject(o, "foreign_handle", true);
    record(call, o);
    return true;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance instance, const char *name) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    if (g_sc.no_create_device && strcmp(name, "vkCreateDevice") == 0) {
        pthread_mutex_unlock(&g_lock);
        return NULL;
    }
    /* strict_handles: vkCreateInstance whatever the handle (loaders ask for it with their own
     * instance, before any wrapper exists), and nothing else for a handle it did not create (as
     * GFXReconstruct). */
    if (g_sc.strict_handles && strcmp(name, "vkCreateInstance") == 0) {
        pthread_mutex_unlock(&g_lock);
        return FN(layer_CreateInstance);
    }
    if (foreign_instance("vkGetInstanceProcAddr", instance, name)) {
        pthread_mutex_unlock(&g_lock);
        return NULL;
    }
    bool bad = g_sc.return_disabled_functions;
    PFN_vkVoidFunction f = own_instance_fn(name);
    if (f == NULL) f = own_physdev_fn(instance, name);
    if (f == NULL) f = own_device_fn(name);
    bool hidden = f == NULL && wrap_hides(name);
    pthread_mutex_unlock(&g_lock);
    if (f != NULL) return f;
    if (hidden) return NULL;
    if (bad && strstr(name, "KHR") != NULL) return FN(layer_DestroyInstance); /* LLP_LAYER_18 violation */
    if (instance == VK_NULL_HANDLE) return NULL;
    return ask_next(instance, name, false);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetPhysicalDeviceProcAddr(VkInstance instance, const char *name) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    if (foreign_instance("vk_layerGetPhysicalDeviceProcAddr", instance, name)) {
        pthread_mutex_unlock(&g_lock);
        return NULL;
    }
    PFN_vkVoidFunction f = own_instance_fn(name);
    if (f == NULL) f = own_physdev_fn(instance, name);
    bool wrap = g_sc.wrap_handles;
    pthread_mutex_unlock(&g_lock);
    if (f != NULL || wrap) return f; /* a wrapping mock offers no physical-device command it cannot unwrap */
    return ask_next(instance, name, true);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice device, const char *name) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    PFN_vkVoidFunction f = own_device_fn(name);
    /* device_functions of a device_extension the device did not enable: not offered (LLP_LAYER_18). */
    bool ext_fn = false;
    for (int k = 0; k < FN_SLOTS; k++) ext_fn = ext_fn || (f != NULL && f == g_device_function_slots[k]);
    if (ext_fn && g_sc.device_extension[0] != '\0') {
        const struct dev_data *d = device != VK_NULL_HANDLE ? dev_find(device) : NULL;
        if (d == NULL || !d->ext_enabled) f = NULL;
    }
    bool wrap = g_sc.wrap_handles;
    /* strict_handles: a VkDevice it did not return gets NULL. */
    if (g_sc.strict_handles && device != VK_NULL_HANDLE && dev_find(device) == NULL) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", name);
        cJSON_AddBoolToObject(o, "foreign_handle", true);
        record("vkGetDeviceProcAddr", o);
        f = NULL;
    }
    /* A wrapping layer is asked with the VkDevice it returned (its wrapper): a handle that is not one
     * of its wrappers is recorded ({"call": "vkGetDeviceProcAddr", "name", "wrapper": false}). */
    if (wrap && device != VK_NULL_HANDLE) {
        const struct dev_data *d = dev_find(device);
        if (d != NULL && d->wrapped != NULL && (VkDevice)(void *)d->wrapped != device) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", name);
            cJSON_AddBoolToObject(o, "wrapper", false);
            record("vkGetDeviceProcAddr", o);
        }
    }
    /* The device's record is read under the lock (another thread may be adding or removing records
     * of other devices: conformance/loader:threads_test under ThreadSanitizer); the next layer is
     * asked after it is released. */
    const struct dev_data *d = f != NULL || wrap ? NULL : dev_find(device);
    PFN_vkGetDeviceProcAddr next = d != NULL ? d->next_gdpa : NULL;
    pthread_mutex_unlock(&g_lock);
    if (f != NULL || wrap) return f; /* a wrapping mock offers no device command it cannot unwrap */
    return next != NULL ? next(device, name) : NULL;
}

__attribute__((unused)) static VKAPI_ATTR VkResult VKAPI_CALL layer_Negotiate(VkNegotiateLayerInterface *ni) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "offered", ni ? ni->loaderLayerInterfaceVersion : 0);
    record("vkNegotiateLoaderLayerInterfaceVersion", o);
    struct scenario sc = g_sc;
    pthread_mutex_unlock(&g_lock);
    if (ni == NULL || ni->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) return VK_ERROR_INITIALIZATION_FAILED;
    if (sc.fail_negotiation) return VK_ERROR_INITIALIZATION_FAILED;
    uint32_t max = MOCK_LAYER_INTERFACE;
    uint32_t v = ni->loaderLayerInterfaceVersion < max ? ni->loaderLayerInterfaceVersion : max;
    if (sc.negotiate_version >= 0) v = (uint32_t)sc.negotiate_version;
    ni->loaderLayerInterfaceVersion = v;
    if (v >= 2) {
        ni->pfnGetInstanceProcAddr = layer_GetInstanceProcAddr;
        /* A layer without vkGetDeviceProcAddr (like Mesa's device_select) takes no part in device chains. */
        ni->pfnGetDeviceProcAddr = MOCK_LAYER_HAS_GDPA ? layer_GetDeviceProcAddr : NULL;
        ni->pfnGetPhysicalDeviceProcAddr = MOCK_LAYER_HAS_GPDPA ? layer_GetPhysicalDeviceProcAddr : NULL;
    }
    return VK_SUCCESS;
}

/* ------------------------------------------------------------------ exports per variant */

#if MOCK_LAYER_EXPORT_NEGOTIATE
EXPORT VKAPI_ATTR VkResult VKAPI_CALL MOCK_LAYER_NEGOTIATE_NAME(VkNegotiateLayerInterface *ni) {
    return layer_Negotiate(ni);
}
#endif
#if MOCK_LAYER_EXPORT_GIPA
EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL MOCK_LAYER_GIPA_NAME(VkInstance instance, const char *name) {
    return layer_GetInstanceProcAddr(instance, name);
}
EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL MOCK_LAYER_GDPA_NAME(VkDevice device, const char *name) {
    return layer_GetDeviceProcAddr(device, name);
}
#endif
#if MOCK_LAYER_EXPORT_GPDPA
EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_layerGetPhysicalDeviceProcAddr(VkInstance instance,
                                                                                  const char *name) {
    return layer_GetPhysicalDeviceProcAddr(instance, name);
}
#endif
#if MOCK_LAYER_EXPORT_INTROSPECTION
static void own_props(VkLayerProperties *p) {
    memset(p, 0, sizeof(*p));
    pthread_mutex_lock(&g_lock);
    ensure_init();
    snprintf(p->layerName, sizeof(p->layerName), "%s", g_sc.name);
    pthread_mutex_unlock(&g_lock);
    p->specVersion = VK_API_VERSION_1_3;
    p->implementationVersion = 1;
    snprintf(p->description, sizeof(p->description), "mock layer");
}
EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceLayerProperties(uint32_t *pCount, VkLayerProperties *pProps) {
    if (pProps == NULL) {
        *pCount = 1;
        return VK_SUCCESS;
    }
    if (*pCount < 1) return VK_INCOMPLETE;
    own_props(pProps);
    *pCount = 1;
    return VK_SUCCESS;
}
EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateDeviceLayerProperties(VkPhysicalDevice pd, uint32_t *pCount,
                                                                       VkLayerProperties *pProps) {
    (void)pd;
    return vkEnumerateInstanceLayerProperties(pCount, pProps);
}
EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceExtensionProperties(const char *pLayerName, uint32_t *pCount,
                                                                             VkExtensionProperties *pProps) {
    (void)pProps;
    if (pLayerName == NULL) return VK_ERROR_LAYER_NOT_PRESENT; /* LLP_LAYER_15 */
    *pCount = 0;
    return VK_SUCCESS;
}
EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char *pLayerName,
                                                                           uint32_t *pCount,
                                                                           VkExtensionProperties *pProps) {
    return layer_EnumerateDeviceExtensionProperties(pd, pLayerName, pCount, pProps);
}
#endif

/* Pre-instance functions ([Lyr] "Pre-Instance Functions"), named in the manifest. Each records
 * its entry with the chain header it received ("pre_<command>"), and after calling down what the
 * next link answered ("pre_<command>_down"). Scenario "pre_instance": add_extension / add_layer
 * append one entry to the answer; no_call_down answers without calling pfnNextLayer. */
static struct scenario pre_enter(const char *call, const VkChainHeader *h, bool has_next, bool props_null,
                                 const char *layer_name, bool with_layer_name) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    struct scenario sc = g_sc;
    cJSON *o = cJSON_CreateObject();
    if (o != NULL) {
        cJSON_AddNumberToObject(o, "chain_type", (double)h->type);
        cJSON_AddNumberToObject(o, "chain_version", (double)h->version);
        cJSON_AddNumberToObject(o, "chain_size", (double)h->size);
        cJSON_AddBoolToObject(o, "has_next", has_next);
        cJSON_AddBoolToObject(o, "props_null", props_null);
        cJSON_AddBoolToObject(o, "calls_down", !sc.pre_no_call_down);
        if (with_layer_name) {
            if (layer_name != NULL)
                cJSON_AddStringToObject(o, "layer_name", layer_name);
            else
                cJSON_AddNullToObject(o, "layer_name");
        }
    }
    record(call, o);
    pthread_mutex_unlock(&g_lock);
    return sc;
}

static void pre_down(const char *call, VkResult r, const char *key, uint32_t value) {
    pthread_mutex_lock(&g_lock);
    cJSON *o = cJSON_CreateObject();
    if (o != NULL) {
        cJSON_AddNumberToObject(o, "result", (double)r);
        if (r == VK_SUCCESS || r == VK_INCOMPLETE) cJSON_AddNumberToObject(o, key, (double)value);
    }
    record(call, o);
    pthread_mutex_unlock(&g_lock);
}

/* The two-call idiom over an answer of `own` entries (0 or 1) of `size` bytes at `one`. */
static VkResult pre_answer_own(uint32_t own, const void *one, size_t size, uint32_t *pCount, void *pProps) {
    if (pProps == NULL) {
        *pCount = own;
        return VK_SUCCESS;
    }
    uint32_t n = *pCount < own ? *pCount : own;
    if (n > 0) memcpy(pProps, one, size);
    *pCount = n;
    return n < own ? VK_INCOMPLETE : VK_SUCCESS;
}

/* The count to give the level below: when the layer adds an entry of its own (`add`), room is left
 * for it, so the level below fills at most *pCount - 1. */
static uint32_t pre_room(bool add, const uint32_t *pCount, const void *pProps) {
    uint32_t cap = *pCount;
    return (add && pProps != NULL && cap > 0) ? cap - 1 : cap;
}

/* After the level below answered `r` with `n` entries: appends the layer's own entry `one` (size
 * bytes) when `add` (VK_INCOMPLETE when *pCount leaves no room) and gives the count in *pCount. */
static VkResult pre_add_own(bool add, VkResult r, const void *one, size_t size, uint32_t n, uint32_t *pCount,
                            void *pProps) {
    if (add && r == VK_SUCCESS) {
        if (pProps == NULL)
            n++;
        else if (n < *pCount)
            memcpy((char *)pProps + (size_t)n++ * size, one, size);
        else
            r = VK_INCOMPLETE;
    }
    *pCount = n;
    return r;
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL mock_layer_pre_EnumerateInstanceExtensionProperties(
    const VkEnumerateInstanceExtensionPropertiesChain *chain, const char *pLayerName, uint32_t *pCount,
    VkExtensionProperties *pProps) {
    struct scenario sc = pre_enter("pre_vkEnumerateInstanceExtensionProperties", &chain->header,
                                   chain->pfnNextLayer != NULL, pProps == NULL, pLayerName, true);
    VkExtensionProperties mine;
    memset(&mine, 0, sizeof(mine));
    snprintf(mine.extensionName, sizeof(mine.extensionName), "%s", sc.pre_add_extension);
    mine.specVersion = 1;
    bool add = sc.pre_add_extension[0] != '\0' && pLayerName == NULL;
    if (sc.pre_no_call_down) return pre_answer_own(add ? 1 : 0, &mine, sizeof(mine), pCount, pProps);
    if (chain->pfnNextLayer == NULL) return VK_ERROR_INITIALIZATION_FAILED; /* recorded: has_next false */
    uint32_t n = pre_room(add, pCount, pProps);
    VkResult r = chain->pfnNextLayer(chain->pNextLink, pLayerName, &n, pProps);
    pre_down("pre_vkEnumerateInstanceExtensionProperties_down", r, "count", n);
    return pre_add_own(add, r, &mine, sizeof(mine), n, pCount, pProps);
}
EXPORT VKAPI_ATTR VkResult VKAPI_CALL mock_layer_pre_EnumerateInstanceLayerProperties(
    const VkEnumerateInstanceLayerPropertiesChain *chain, uint32_t *pCount, VkLayerProperties *pProps) {
    struct scenario sc = pre_enter("pre_vkEnumerateInstanceLayerProperties", &chain->header,
                                   chain->pfnNextLayer != NULL, pProps == NULL, NULL, false);
    VkLayerProperties mine;
    memset(&mine, 0, sizeof(mine));
    snprintf(mine.layerName, sizeof(mine.layerName), "%s", sc.pre_add_layer);
    mine.specVersion = VK_API_VERSION_1_3;
    mine.implementationVersion = 1;
    snprintf(mine.description, sizeof(mine.description), "added by a pre-instance function");
    bool add = sc.pre_add_layer[0] != '\0';
    if (sc.pre_no_call_down) return pre_answer_own(add ? 1 : 0, &mine, sizeof(mine), pCount, pProps);
    if (chain->pfnNextLayer == NULL) return VK_ERROR_INITIALIZATION_FAILED; /* recorded: has_next false */
    uint32_t n = pre_room(add, pCount, pProps);
    VkResult r = chain->pfnNextLayer(chain->pNextLink, &n, pProps);
    pre_down("pre_vkEnumerateInstanceLayerProperties_down", r, "count", n);
    return pre_add_own(add, r, &mine, sizeof(mine), n, pCount, pProps);
}
EXPORT VKAPI_ATTR VkResult VKAPI_CALL
mock_layer_pre_EnumerateInstanceVersion(const VkEnumerateInstanceVersionChain *chain, uint32_t *pApiVersion) {
    struct scenario sc =
        pre_enter("pre_vkEnumerateInstanceVersion", &chain->header, chain->pfnNextLayer != NULL, false, NULL, false);
    if (sc.pre_no_call_down) {
        *pApiVersion = sc.pre_instance_version != 0 ? sc.pre_instance_version : VK_API_VERSION_1_0;
        return VK_SUCCESS;
    }
    if (chain->pfnNextLayer == NULL) return VK_ERROR_INITIALIZATION_FAILED; /* recorded: has_next false */
    VkResult r = chain->pfnNextLayer(chain->pNextLink, pApiVersion);
    pre_down("pre_vkEnumerateInstanceVersion_down", r, "version", r == VK_SUCCESS ? *pApiVersion : 0);
    if (r == VK_SUCCESS && sc.pre_instance_version != 0) *pApiVersion = sc.pre_instance_version;
    return r;
}
