/*
 * The mock Vulkan layer: one source, compiled into one shared object per export surface
 * (variants.bzl); everything else is run-time configuration (README.md).
 *
 * Compile-time switches (from variants.bzl):
 *   MOCK_LAYER_INTERFACE       0, 1 or 2: the highest layer interface it negotiates
 *   MOCK_LAYER_EXPORT_NEGOTIATE  exports the negotiate function (MOCK_LAYER_NEGOTIATE_NAME)
 *   MOCK_LAYER_EXPORT_GIPA       exports vkGetInstanceProcAddr/vkGetDeviceProcAddr under
 *                                MOCK_LAYER_GIPA_NAME / MOCK_LAYER_GDPA_NAME
 *   MOCK_LAYER_EXPORT_GPDPA      exports vk_layerGetPhysicalDeviceProcAddr
 *   MOCK_LAYER_EXPORT_INTROSPECTION  exports the four v0 enumeration functions
 */
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define MOCK_LAYER_BUILDING 1
#include "mock_layers/mock_layer_ctl.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_OBJECTS 64
#define MAX_RECORDS 4096

/* ------------------------------------------------------------------ configuration */

struct scenario {
    char name[VK_MAX_EXTENSION_NAME_SIZE];
    cJSON *intercept; /* array of names, or NULL: every command the mock implements */
    bool fail_negotiation, no_advance_link, clobber_instance, clobber_device, no_call_down;
    bool fail_unknown_extensions, return_disabled_functions;
    int negotiate_version; /* -1: the variant's own */
    uint32_t pre_instance_version; /* 0: pass through */
    char calls_file[PATH_MAX];
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_init;
static char g_self[PATH_MAX];
static struct scenario g_sc;
static cJSON *g_doc;
static char *g_records[MAX_RECORDS];
static size_t g_record_count;

static void scenario_defaults(void) {
    memset(&g_sc, 0, sizeof(g_sc));
    g_sc.negotiate_version = -1;
    const char *base = strrchr(g_self, '/');
    base = base ? base + 1 : g_self;
    size_t bl = strlen(base) < sizeof(g_sc.name) - 1 ? strlen(base) : sizeof(g_sc.name) - 1;
    memcpy(g_sc.name, base, bl);
    g_sc.name[bl] = '\0';
    char *dot = strstr(g_sc.name, ".so");
    if (dot) *dot = '\0';
    size_t sl = strlen(g_self) < sizeof(g_sc.calls_file) - 7 ? strlen(g_self) : sizeof(g_sc.calls_file) - 7;
    memcpy(g_sc.calls_file, g_self, sl);
    memcpy(g_sc.calls_file + sl, ".calls", 7);
}

static bool jbool(const cJSON *o, const char *k) { return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k)); }

static int scenario_apply(const char *text) {
    cJSON *doc = cJSON_Parse(text);
    if (doc == NULL || !cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return -1;
    }
    cJSON_Delete(g_doc);
    g_doc = doc;
    scenario_defaults();
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(doc, "name");
    if (cJSON_IsString(n)) snprintf(g_sc.name, sizeof(g_sc.name), "%s", n->valuestring);
    const cJSON *cf = cJSON_GetObjectItemCaseSensitive(doc, "calls_file");
    if (cJSON_IsString(cf)) snprintf(g_sc.calls_file, sizeof(g_sc.calls_file), "%s", cf->valuestring);
    const cJSON *ic = cJSON_GetObjectItemCaseSensitive(doc, "intercept");
    g_sc.intercept = cJSON_IsArray(ic) ? (cJSON *)ic : NULL;
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(doc, "pre_instance_version");
    if (cJSON_IsNumber(pv)) g_sc.pre_instance_version = (uint32_t)pv->valuedouble;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "misbehave");
    g_sc.fail_negotiation = jbool(m, "fail_negotiation");
    g_sc.no_advance_link = jbool(m, "no_advance_link");
    g_sc.clobber_instance = jbool(m, "clobber_instance");
    g_sc.clobber_device = jbool(m, "clobber_device");
    g_sc.no_call_down = jbool(m, "no_call_down");
    g_sc.fail_unknown_extensions = jbool(m, "fail_unknown_extensions");
    g_sc.return_disabled_functions = jbool(m, "return_disabled_functions");
    const cJSON *nv = cJSON_GetObjectItemCaseSensitive(m, "negotiate_version");
    if (cJSON_IsNumber(nv)) g_sc.negotiate_version = (int)nv->valuedouble;
    return 0;
}

static void load_sidecar(void) {
    char path[PATH_MAX + 16];
    snprintf(path, sizeof(path), "%s.scenario", g_self);
    scenario_defaults();
    FILE *f = fopen(path, "rb");
    if (f == NULL) return;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *nb = realloc(buf, cap);
            if (nb == NULL) break;
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0) break;
    }
    fclose(f);
    if (buf != NULL) {
        buf[len] = '\0';
        scenario_apply(buf);
        free(buf);
    }
}

static void ensure_init(void) {
    if (g_init) return;
    g_init = true;
    Dl_info info;
    if (dladdr((void *)&ensure_init, &info) && info.dli_fname) snprintf(g_self, sizeof(g_self), "%s", info.dli_fname);
    load_sidecar();
}

__attribute__((destructor)) static void mock_layer_fini(void) {
    for (size_t i = 0; i < g_record_count; i++) free(g_records[i]);
    g_record_count = 0;
    cJSON_Delete(g_doc);
    g_doc = NULL;
}

/* Appends {"layer":name,"call":call,...extra} to memory and to the calls file. Lock held. */
static void record(const char *call, cJSON *extra) {
    cJSON *o = extra ? extra : cJSON_CreateObject();
    if (o == NULL) return;
    cJSON_AddStringToObject(o, "layer", g_sc.name);
    cJSON_AddStringToObject(o, "call", call);
    char *line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (line == NULL) return;
    int fd = open(g_sc.calls_file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        size_t n = strlen(line);
        line[n] = '\n';
        ssize_t w = write(fd, line, n + 1);
        (void)w;
        line[n] = '\0';
        close(fd);
    }
    if (g_record_count < MAX_RECORDS)
        g_records[g_record_count++] = line;
    else
        free(line);
}

static void rec(const char *call) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    record(call, NULL);
    pthread_mutex_unlock(&g_lock);
}

static bool intercepts(const char *name) {
    if (g_sc.intercept == NULL) return true;
    const cJSON *e;
    cJSON_ArrayForEach(e, g_sc.intercept) if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0) return true;
    return false;
}

/* ------------------------------------------------------------------ per-object state */

struct inst_data {
    void *key;
    VkInstance instance;
    PFN_vkGetInstanceProcAddr next_gipa;
    PFN_GetPhysicalDeviceProcAddr next_gpdpa;
    PFN_vkDestroyInstance DestroyInstance;
    PFN_vkEnumeratePhysicalDevices EnumeratePhysicalDevices;
    PFN_vkGetPhysicalDeviceProperties GetPhysicalDeviceProperties;
    PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
};
struct dev_data {
    void *key;
    PFN_vkGetDeviceProcAddr next_gdpa;
    PFN_vkDestroyDevice DestroyDevice;
};
static struct inst_data g_inst[MAX_OBJECTS];
static struct dev_data g_dev[MAX_OBJECTS];

static void *key_of(const void *h) { return *(void *const *)h; }

static struct inst_data *inst_find(const void *h) {
    void *k = key_of(h);
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (g_inst[i].key == k) return &g_inst[i];
    return NULL;
}
static struct dev_data *dev_find(const void *h) {
    void *k = key_of(h);
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (g_dev[i].key == k) return &g_dev[i];
    return NULL;
}

/* ------------------------------------------------------------------ intercepted commands */

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *a,
                                                           VkInstance *pInstance) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)ci->pNext;
    bool have_loader_data = false;
    VkLayerInstanceCreateInfo *found = NULL;
    for (; link != NULL; link = (VkLayerInstanceCreateInfo *)link->pNext) {
        if (link->sType != VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO) continue;
        if (link->function == VK_LOADER_DATA_CALLBACK) have_loader_data = link->u.pfnSetInstanceLoaderData != NULL;
        if (link->function == VK_LAYER_LINK_INFO && found == NULL) found = link;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "link_info", found != NULL && found->u.pLayerInfo != NULL);
    cJSON_AddBoolToObject(o, "set_instance_loader_data", have_loader_data);
    cJSON *exts = cJSON_AddArrayToObject(o, "extensions");
    for (uint32_t i = 0; i < ci->enabledExtensionCount; i++)
        cJSON_AddItemToArray(exts, cJSON_CreateString(ci->ppEnabledExtensionNames[i]));
    record("vkCreateInstance", o);
    struct scenario sc = g_sc;
    pthread_mutex_unlock(&g_lock);
    if (found == NULL || found->u.pLayerInfo == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    if (sc.fail_unknown_extensions && ci->enabledExtensionCount > 0) return VK_ERROR_EXTENSION_NOT_PRESENT;
    PFN_vkGetInstanceProcAddr next_gipa = found->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_GetPhysicalDeviceProcAddr next_gpdpa = found->u.pLayerInfo->pfnNextGetPhysicalDeviceProcAddr;
    PFN_vkCreateInstance next_create = (PFN_vkCreateInstance)next_gipa(VK_NULL_HANDLE, "vkCreateInstance");
    if (next_create == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    if (!sc.no_advance_link) found->u.pLayerInfo = found->u.pLayerInfo->pNext;
    if (sc.clobber_instance) *pInstance = (VkInstance)(uintptr_t)0xbad1bad1u;
    if (sc.no_call_down) return VK_SUCCESS;
    VkResult r = next_create(ci, a, pInstance);
    if (r != VK_SUCCESS) return r;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (g_inst[i].key != NULL) continue;
        struct inst_data *d = &g_inst[i];
        d->key = key_of(*pInstance);
        d->instance = *pInstance;
        d->next_gipa = next_gipa;
        d->next_gpdpa = next_gpdpa;
        d->DestroyInstance = (PFN_vkDestroyInstance)next_gipa(*pInstance, "vkDestroyInstance");
        d->EnumeratePhysicalDevices = (PFN_vkEnumeratePhysicalDevices)next_gipa(*pInstance, "vkEnumeratePhysicalDevices");
        d->GetPhysicalDeviceProperties =
            (PFN_vkGetPhysicalDeviceProperties)next_gipa(*pInstance, "vkGetPhysicalDeviceProperties");
        d->EnumerateDeviceExtensionProperties =
            (PFN_vkEnumerateDeviceExtensionProperties)next_gipa(*pInstance, "vkEnumerateDeviceExtensionProperties");
        break;
    }
    pthread_mutex_unlock(&g_lock);
    return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *a) {
    if (instance == VK_NULL_HANDLE) return;
    rec("vkDestroyInstance");
    pthread_mutex_lock(&g_lock);
    struct inst_data *d = inst_find(instance);
    PFN_vkDestroyInstance next = d ? d->DestroyInstance : NULL;
    if (d) memset(d, 0, sizeof(*d));
    pthread_mutex_unlock(&g_lock);
    if (next) next(instance, a);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_EnumeratePhysicalDevices(VkInstance instance, uint32_t *pCount,
                                                                     VkPhysicalDevice *pDevs) {
    rec("vkEnumeratePhysicalDevices");
    struct inst_data *d = inst_find(instance);
    return d && d->EnumeratePhysicalDevices ? d->EnumeratePhysicalDevices(instance, pCount, pDevs)
                                            : VK_ERROR_INITIALIZATION_FAILED;
}

static VKAPI_ATTR void VKAPI_CALL layer_GetPhysicalDeviceProperties(VkPhysicalDevice pd, VkPhysicalDeviceProperties *p) {
    rec("vkGetPhysicalDeviceProperties");
    struct inst_data *d = inst_find(pd);
    if (d && d->GetPhysicalDeviceProperties) d->GetPhysicalDeviceProperties(pd, p);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_EnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char *pLayerName,
                                                                               uint32_t *pCount,
                                                                               VkExtensionProperties *pProps) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    cJSON *o = cJSON_CreateObject();
    if (pLayerName) cJSON_AddStringToObject(o, "layer_name", pLayerName);
    else cJSON_AddNullToObject(o, "layer_name");
    record("vkEnumerateDeviceExtensionProperties", o);
    bool mine = pLayerName != NULL && strcmp(pLayerName, g_sc.name) == 0;
    pthread_mutex_unlock(&g_lock);
    if (mine) { /* LLP_LAYER_16: answer for our own name (no extensions of our own here) */
        *pCount = 0;
        return VK_SUCCESS;
    }
    struct inst_data *d = inst_find(pd);
    return d && d->EnumerateDeviceExtensionProperties ? d->EnumerateDeviceExtensionProperties(pd, pLayerName, pCount, pProps)
                                                      : VK_ERROR_INITIALIZATION_FAILED;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice device, const char *name);

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                                         const VkAllocationCallbacks *a, VkDevice *pDevice) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    VkLayerDeviceCreateInfo *found = NULL;
    bool have_loader_data = false;
    for (VkLayerDeviceCreateInfo *l = (VkLayerDeviceCreateInfo *)ci->pNext; l != NULL; l = (VkLayerDeviceCreateInfo *)l->pNext) {
        if (l->sType != VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO) continue;
        if (l->function == VK_LOADER_DATA_CALLBACK) have_loader_data = l->u.pfnSetDeviceLoaderData != NULL;
        if (l->function == VK_LAYER_LINK_INFO && found == NULL) found = l;
    }
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "link_info", found != NULL && found->u.pLayerInfo != NULL);
    cJSON_AddBoolToObject(o, "set_device_loader_data", have_loader_data);
    record("vkCreateDevice", o);
    struct scenario sc = g_sc;
    struct inst_data *id = inst_find(pd);
    pthread_mutex_unlock(&g_lock);
    if (found == NULL || found->u.pLayerInfo == NULL || id == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr next_gipa = found->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr next_gdpa = found->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    PFN_vkCreateDevice next_create = (PFN_vkCreateDevice)next_gipa(id->instance, "vkCreateDevice");
    if (next_create == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    if (!sc.no_advance_link) found->u.pLayerInfo = found->u.pLayerInfo->pNext;
    if (sc.clobber_device) *pDevice = (VkDevice)(uintptr_t)0xbad2bad2u;
    if (sc.no_call_down) return VK_SUCCESS;
    VkResult r = next_create(pd, ci, a, pDevice);
    if (r != VK_SUCCESS) return r;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (g_dev[i].key != NULL) continue;
        g_dev[i].key = key_of(*pDevice);
        g_dev[i].next_gdpa = next_gdpa;
        g_dev[i].DestroyDevice = (PFN_vkDestroyDevice)next_gdpa(*pDevice, "vkDestroyDevice");
        break;
    }
    pthread_mutex_unlock(&g_lock);
    return VK_SUCCESS;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyDevice(VkDevice device, const VkAllocationCallbacks *a) {
    if (device == VK_NULL_HANDLE) return;
    rec("vkDestroyDevice");
    pthread_mutex_lock(&g_lock);
    struct dev_data *d = dev_find(device);
    PFN_vkDestroyDevice next = d ? d->DestroyDevice : NULL;
    if (d) memset(d, 0, sizeof(*d));
    pthread_mutex_unlock(&g_lock);
    if (next) next(device, a);
}

/* ------------------------------------------------------------------ proc addrs */

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance instance, const char *name);
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetPhysicalDeviceProcAddr(VkInstance instance, const char *name);

#define FN(x) ((PFN_vkVoidFunction)(x))

static PFN_vkVoidFunction own_instance_fn(const char *name) {
    if (strcmp(name, "vkGetInstanceProcAddr") == 0) return FN(layer_GetInstanceProcAddr);
    if (!intercepts(name)) return NULL;
    if (strcmp(name, "vkCreateInstance") == 0) return FN(layer_CreateInstance);
    if (strcmp(name, "vkDestroyInstance") == 0) return FN(layer_DestroyInstance);
    if (strcmp(name, "vkEnumeratePhysicalDevices") == 0) return FN(layer_EnumeratePhysicalDevices);
    if (strcmp(name, "vkGetPhysicalDeviceProperties") == 0) return FN(layer_GetPhysicalDeviceProperties);
    if (strcmp(name, "vkEnumerateDeviceExtensionProperties") == 0) return FN(layer_EnumerateDeviceExtensionProperties);
    if (strcmp(name, "vkCreateDevice") == 0) return FN(layer_CreateDevice);
    return NULL;
}

static PFN_vkVoidFunction own_device_fn(const char *name) {
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) return FN(layer_GetDeviceProcAddr);
    if (!intercepts(name)) return NULL;
    if (strcmp(name, "vkDestroyDevice") == 0) return FN(layer_DestroyDevice);
    return NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance instance, const char *name) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    bool bad = g_sc.return_disabled_functions;
    PFN_vkVoidFunction f = own_instance_fn(name);
    if (f == NULL) f = own_device_fn(name);
    pthread_mutex_unlock(&g_lock);
    if (f != NULL) return f;
    if (bad && strstr(name, "KHR") != NULL) return FN(layer_DestroyInstance); /* LLP_LAYER_18 violation */
    if (instance == VK_NULL_HANDLE) return NULL;
    struct inst_data *d = inst_find(instance);
    return d && d->next_gipa ? d->next_gipa(instance, name) : NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetPhysicalDeviceProcAddr(VkInstance instance, const char *name) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    PFN_vkVoidFunction f = own_instance_fn(name);
    pthread_mutex_unlock(&g_lock);
    if (f != NULL) return f;
    struct inst_data *d = inst_find(instance);
    return d && d->next_gpdpa ? d->next_gpdpa(instance, name) : NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice device, const char *name) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    PFN_vkVoidFunction f = own_device_fn(name);
    pthread_mutex_unlock(&g_lock);
    if (f != NULL) return f;
    struct dev_data *d = dev_find(device);
    return d && d->next_gdpa ? d->next_gdpa(device, name) : NULL;
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
        ni->pfnGetDeviceProcAddr = layer_GetDeviceProcAddr;
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
EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_layerGetPhysicalDeviceProcAddr(VkInstance instance, const char *name) {
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
                                                                           uint32_t *pCount, VkExtensionProperties *pProps) {
    return layer_EnumerateDeviceExtensionProperties(pd, pLayerName, pCount, pProps);
}
#endif

/* Pre-instance functions ([Lyr] "Pre-Instance Functions"), named in the manifest. */
EXPORT VKAPI_ATTR VkResult VKAPI_CALL mock_layer_pre_EnumerateInstanceExtensionProperties(
    const VkEnumerateInstanceExtensionPropertiesChain *chain, const char *pLayerName, uint32_t *pCount,
    VkExtensionProperties *pProps) {
    rec("pre_vkEnumerateInstanceExtensionProperties");
    return chain->pfnNextLayer(chain->pNextLink, pLayerName, pCount, pProps);
}
EXPORT VKAPI_ATTR VkResult VKAPI_CALL mock_layer_pre_EnumerateInstanceLayerProperties(
    const VkEnumerateInstanceLayerPropertiesChain *chain, uint32_t *pCount, VkLayerProperties *pProps) {
    rec("pre_vkEnumerateInstanceLayerProperties");
    return chain->pfnNextLayer(chain->pNextLink, pCount, pProps);
}
EXPORT VKAPI_ATTR VkResult VKAPI_CALL mock_layer_pre_EnumerateInstanceVersion(const VkEnumerateInstanceVersionChain *chain,
                                                                              uint32_t *pApiVersion) {
    rec("pre_vkEnumerateInstanceVersion");
    VkResult r = chain->pfnNextLayer(chain->pNextLink, pApiVersion);
    pthread_mutex_lock(&g_lock);
    if (r == VK_SUCCESS && g_sc.pre_instance_version != 0) *pApiVersion = g_sc.pre_instance_version;
    pthread_mutex_unlock(&g_lock);
    return r;
}

/* ------------------------------------------------------------------ ctl */

EXPORT int mock_layer_ctl_load_scenario(const char *json) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    int r = 0;
    if (json == NULL) {
        cJSON_Delete(g_doc);
        g_doc = NULL;
        scenario_defaults();
    } else {
        r = scenario_apply(json);
    }
    pthread_mutex_unlock(&g_lock);
    return r;
}
EXPORT void mock_layer_ctl_reset(void) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    for (size_t i = 0; i < g_record_count; i++) free(g_records[i]);
    g_record_count = 0;
    cJSON_Delete(g_doc);
    g_doc = NULL;
    load_sidecar();
    pthread_mutex_unlock(&g_lock);
}
EXPORT size_t mock_layer_ctl_record_count(void) {
    pthread_mutex_lock(&g_lock);
    size_t n = g_record_count;
    pthread_mutex_unlock(&g_lock);
    return n;
}
EXPORT const char *mock_layer_ctl_record_get(size_t i) {
    pthread_mutex_lock(&g_lock);
    const char *s = i < g_record_count ? g_records[i] : NULL;
    pthread_mutex_unlock(&g_lock);
    return s;
}
