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
 *   MOCK_LAYER_HAS_GDPA          0: negotiation returns no vkGetDeviceProcAddr (nor is one exported)
 */
#include <cjson/cJSON.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define MOCK_LAYER_BUILDING 1
#include "mock_common/mock_common.h"
#include "mock_layers/mock_layer_ctl.h"

#ifndef MOCK_LAYER_HAS_GDPA
#define MOCK_LAYER_HAS_GDPA 1
#endif

#define EXPORT __attribute__((visibility("default")))
#define MAX_OBJECTS 64
#define MAX_RECORDS 4096
#define MAX_WRAPPED_PDS 16   /* physical-device wrappers per instance (wrap_handles) */
#define FN_SLOTS 4           /* "device_functions" / "physdev_functions" the layer answers itself */
#define MAX_WRAPPED_QUEUES 8 /* queue wrappers per device (wrap_handles) */
#define MAX_WRAPPED_CBS 32   /* command-buffer wrappers per device (wrap_handles) */

/* ------------------------------------------------------------------ configuration */

struct scenario {
    char name[VK_MAX_EXTENSION_NAME_SIZE];
    cJSON *intercept; /* array of names, or NULL: every command the mock implements */
    bool fail_negotiation, no_advance_link, clobber_instance, clobber_device, no_call_down;
    bool fail_unknown_extensions, return_disabled_functions;
    bool fail_device_after_call_down; /* vkCreateDevice: destroys what it got from below, then fails */
    bool no_create_device;            /* vkGetInstanceProcAddr answers NULL for vkCreateDevice */
    bool wrap_handles;                /* returns its own VkPhysicalDevice/VkDevice objects (LLP_LAYER_10) */
    bool wrap_command_pools;          /* returns its own VkCommandPool handles (non-dispatchable, LLP_LAYER_10) */
    bool tool;                 /* a tool (VK_EXT_tooling_info): adds its entry to vkGetPhysicalDeviceToolProperties */
    bool wrap_instance;        /* replaces *pInstance with its own wrapper after calling down (legal, LLP_LAYER_21) */
    bool call_globals;         /* vkCreateInstance asks pfnNextGetInstanceProcAddr(NULL, ...) for the global
                                * commands and calls them before calling down */
    bool create_own_device;    /* vkCreateDevice also makes a device of its own through the loader's
                                * VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK (record "own_device") */
    bool own_device_next_gipa; /* ... passing its next vkGetInstanceProcAddr as layerGIPA, not its own */
    /* wraps like GFXReconstruct: wrap_instance + wrap_handles, and it knows only its own wrappers: its
     * proc addrs answer NULL (vkGetInstanceProcAddr: vkCreateInstance only) for a handle it did not
     * return, and its commands refuse one (record "foreign_handle") */
    bool strict_handles;
    /* vkCreateDevice appends this extension to the create info it passes down (a layer enabling an
     * extension it needs below itself); "" = none */
    char add_device_extension[VK_MAX_EXTENSION_NAME_SIZE];
    char device_functions[FN_SLOTS][VK_MAX_EXTENSION_NAME_SIZE];  /* "" = free slot */
    char physdev_functions[FN_SLOTS][VK_MAX_EXTENSION_NAME_SIZE]; /* "" = free slot */
    /* "" = ungated; else device_functions are offered by vkGetDeviceProcAddr only for devices
     * created with this extension enabled (LLP_LAYER_18), and it is the layer's own answer to
     * vkEnumerateDeviceExtensionProperties(its name) (LLP_LAYER_16) */
    char device_extension[VK_MAX_EXTENSION_NAME_SIZE];
    /* "" = ungated; else physdev_functions are offered only for instances created with it enabled */
    char instance_extension[VK_MAX_EXTENSION_NAME_SIZE];
    int negotiate_version;                              /* -1: the variant's own */
    uint32_t pre_instance_version;                      /* 0: pass through */
    char pre_add_extension[VK_MAX_EXTENSION_NAME_SIZE]; /* "": none */
    char pre_add_layer[VK_MAX_EXTENSION_NAME_SIZE];     /* "": none */
    bool pre_no_call_down;
    char calls_file[PATH_MAX];
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_init;
static char g_self[PATH_MAX];
static struct scenario g_sc;
static cJSON *g_doc;
static struct mock_records g_records = {.max = MAX_RECORDS};

static void scenario_defaults(void) {
    memset(&g_sc, 0, sizeof(g_sc));
    g_sc.negotiate_version = -1;
    mock_default_names(g_self, g_sc.name, sizeof(g_sc.name), g_sc.calls_file, sizeof(g_sc.calls_file));
}

static bool jbool(const cJSON *o, const char *k) { return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k)); }

/* The scenario's switches, each a member of the same name (true, or absent for false): members of
 * the scenario, and of its "misbehave" object. */
struct scenario_switch {
    const char *key;
    bool *flag;
};
/* clang-format off */
#define SWITCH(field) {#field, &g_sc.field}
static const struct scenario_switch k_switches[] = {
    SWITCH(wrap_handles), SWITCH(wrap_command_pools), SWITCH(tool), SWITCH(wrap_instance), SWITCH(call_globals),
    SWITCH(create_own_device), SWITCH(own_device_next_gipa), SWITCH(strict_handles)};
static const struct scenario_switch k_misbehave_switches[] = {
    SWITCH(fail_negotiation), SWITCH(no_advance_link), SWITCH(clobber_instance), SWITCH(clobber_device),
    SWITCH(no_call_down), SWITCH(fail_unknown_extensions), SWITCH(return_disabled_functions),
    SWITCH(fail_device_after_call_down), SWITCH(no_create_device)};
#undef SWITCH
/* clang-format on */

static void set_switches(const cJSON *o, const struct scenario_switch *s, size_t n) {
    for (size_t i = 0; i < n; i++) *s[i].flag = jbool(o, s[i].key);
}

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
    set_switches(doc, k_switches, sizeof(k_switches) / sizeof(k_switches[0]));
    if (g_sc.strict_handles) g_sc.wrap_instance = g_sc.wrap_handles = true;
    const cJSON *ax = cJSON_GetObjectItemCaseSensitive(doc, "add_device_extension");
    if (cJSON_IsString(ax))
        snprintf(g_sc.add_device_extension, sizeof(g_sc.add_device_extension), "%s", ax->valuestring);
    const cJSON *df = cJSON_GetObjectItemCaseSensitive(doc, "device_functions");
    int slot = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, df) {
        if (slot < FN_SLOTS && cJSON_IsString(e))
            snprintf(g_sc.device_functions[slot++], sizeof(g_sc.device_functions[0]), "%s", e->valuestring);
    }
    const cJSON *pf = cJSON_GetObjectItemCaseSensitive(doc, "physdev_functions");
    slot = 0;
    cJSON_ArrayForEach(e, pf) {
        if (slot < FN_SLOTS && cJSON_IsString(e))
            snprintf(g_sc.physdev_functions[slot++], sizeof(g_sc.physdev_functions[0]), "%s", e->valuestring);
    }
    const cJSON *dx = cJSON_GetObjectItemCaseSensitive(doc, "device_extension");
    if (cJSON_IsString(dx)) snprintf(g_sc.device_extension, sizeof(g_sc.device_extension), "%s", dx->valuestring);
    const cJSON *ix = cJSON_GetObjectItemCaseSensitive(doc, "instance_extension");
    if (cJSON_IsString(ix)) snprintf(g_sc.instance_extension, sizeof(g_sc.instance_extension), "%s", ix->valuestring);
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(doc, "pre_instance_version");
    if (cJSON_IsNumber(pv)) g_sc.pre_instance_version = (uint32_t)pv->valuedouble;
    const cJSON *pre = cJSON_GetObjectItemCaseSensitive(doc, "pre_instance");
    const cJSON *pe = cJSON_GetObjectItemCaseSensitive(pre, "add_extension");
    if (cJSON_IsString(pe)) snprintf(g_sc.pre_add_extension, sizeof(g_sc.pre_add_extension), "%s", pe->valuestring);
    const cJSON *pl = cJSON_GetObjectItemCaseSensitive(pre, "add_layer");
    if (cJSON_IsString(pl)) snprintf(g_sc.pre_add_layer, sizeof(g_sc.pre_add_layer), "%s", pl->valuestring);
    g_sc.pre_no_call_down = jbool(pre, "no_call_down");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "misbehave");
    set_switches(m, k_misbehave_switches, sizeof(k_misbehave_switches) / sizeof(k_misbehave_switches[0]));
    const cJSON *nv = cJSON_GetObjectItemCaseSensitive(m, "negotiate_version");
    if (cJSON_IsNumber(nv)) g_sc.negotiate_version = (int)nv->valuedouble;
    return 0;
}

static void load_sidecar(void) {
    scenario_defaults();
    char *buf = mock_read_scenario(g_self);
    if (buf != NULL) {
        scenario_apply(buf);
        free(buf);
    }
}

static void ensure_init(void) {
    if (g_init) return;
    g_init = true;
    mock_self_path((const void *)&ensure_init, g_self, sizeof(g_self));
    load_sidecar();
}

__attribute__((destructor)) static void mock_layer_fini(void) {
    mock_records_clear(&g_records);
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
    mock_append_line(g_sc.calls_file, line);
    mock_records_add(&g_records, line);
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

/* Handle wrapping (wrap_handles): the layer's own dispatchable objects. Their first word is the
 * loader's dispatch pointer (set through the loader-data callbacks), the rest is the layer's. */
struct wrapped_pd {
    void *loader_data;
    VkPhysicalDevice real; /* the handle the layer below returned */
};
struct wrapped_dev {
    void *loader_data;
    VkDevice real;
};
/* wrap_instance: the VkInstance the layers above and the loader get back. Its first word is a copy
 * of the loader's dispatch word (as layers that wrap do); the loader must pass it back to every
 * instance command of this layer, which unwraps it before calling down. */
struct wrapped_inst {
    void *loader_data;
    VkInstance real;
};
/* Queues and command buffers the application gets back through the loader's vkGetDeviceQueue(2) /
 * vkAllocateCommandBuffers trampolines: the layer reserves the first word as a driver does
 * (ICD_LOADER_MAGIC) and the loader's trampoline writes its dispatch pointer there; the layer
 * checks that it did when the object comes back ("loader_word"). */
struct wrapped_queue {
    void *loader_data;
    VkQueue real;
};
struct wrapped_cb {
    void *loader_data;
    VkCommandBuffer real;
    VkCommandPool pool; /* the application's pool handle */
};

/* Allocation through the application's callbacks when it gave any (LLP_LAYER_14). */
struct alloc_cb {
    bool app;
    VkAllocationCallbacks cb;
};
static struct alloc_cb alloc_from(const VkAllocationCallbacks *a) {
    struct alloc_cb r = {.app = a != NULL && a->pfnAllocation != NULL && a->pfnFree != NULL};
    if (r.app) r.cb = *a;
    return r;
}
static void *obj_alloc(const struct alloc_cb *a, size_t size, VkSystemAllocationScope scope) {
    void *p = a->app ? a->cb.pfnAllocation(a->cb.pUserData, size, 16, scope) : malloc(size);
    if (p != NULL) memset(p, 0, size);
    return p;
}
static void obj_free(const struct alloc_cb *a, void *p) {
    if (p == NULL) return;
    if (a->app)
        a->cb.pfnFree(a->cb.pUserData, p);
    else
        free(p);
}

struct inst_data {
    void *key;
    VkInstance instance;
    PFN_vkGetInstanceProcAddr next_gipa;
    PFN_GetPhysicalDeviceProcAddr next_gpdpa;
    PFN_vkDestroyInstance DestroyInstance;
    PFN_vkEnumeratePhysicalDevices EnumeratePhysicalDevices;
    PFN_vkGetPhysicalDeviceProperties GetPhysicalDeviceProperties;
    PFN_vkGetPhysicalDeviceToolProperties GetPhysicalDeviceToolProperties; /* "tool" */
    PFN_vkEnumerateDeviceExtensionProperties EnumerateDeviceExtensionProperties;
    /* wrap_handles only */
    bool wrap;
    struct alloc_cb alloc;
    PFN_vkSetInstanceLoaderData set_loader_data;
    PFN_vkGetPhysicalDeviceProperties2 GetPhysicalDeviceProperties2, GetPhysicalDeviceProperties2KHR;
    PFN_vkGetPhysicalDeviceFeatures GetPhysicalDeviceFeatures;
    PFN_vkGetPhysicalDeviceQueueFamilyProperties GetPhysicalDeviceQueueFamilyProperties;
    PFN_vkGetPhysicalDeviceMemoryProperties GetPhysicalDeviceMemoryProperties;
    PFN_vkEnumeratePhysicalDeviceGroups EnumeratePhysicalDeviceGroups, EnumeratePhysicalDeviceGroupsKHR;
    struct wrapped_pd *pds[MAX_WRAPPED_PDS];
    uint32_t pd_count;
    struct wrapped_inst *inst_wrapper;           /* wrap_instance: the handle the layer returned */
    PFN_vkLayerCreateDevice layer_create_device; /* VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK, if given */
    PFN_vkLayerDestroyDevice layer_destroy_device;
    PFN_vkCreateDebugUtilsMessengerEXT CreateDebugUtilsMessengerEXT;
    PFN_vkDestroyDebugUtilsMessengerEXT DestroyDebugUtilsMessengerEXT;
    bool ext_enabled; /* the scenario's instance_extension was enabled in vkCreateInstance */
};
struct dev_data {
    void *key;
    PFN_vkGetDeviceProcAddr next_gdpa;
    PFN_vkDestroyDevice DestroyDevice;
    PFN_vkGetDeviceQueue GetDeviceQueue;
    PFN_vkVoidFunction fn_next[FN_SLOTS]; /* "device_functions", from the layer below */
    struct wrapped_dev *wrapped;          /* wrap_handles: the handle the application holds */
    struct alloc_cb alloc;                /* what the wrapper was allocated with */
    bool ext_enabled;                     /* the scenario's device_extension was enabled */
    /* wrap_command_pools or wrap_handles */
    PFN_vkCreateCommandPool CreateCommandPool;
    PFN_vkDestroyCommandPool DestroyCommandPool;
    PFN_vkAllocateCommandBuffers AllocateCommandBuffers;
    PFN_vkFreeCommandBuffers FreeCommandBuffers;
    /* wrap_handles only: queues and command buffers */
    PFN_vkGetDeviceQueue2 GetDeviceQueue2;
    PFN_vkBeginCommandBuffer BeginCommandBuffer;
    PFN_vkEndCommandBuffer EndCommandBuffer;
    PFN_vkCmdFillBuffer CmdFillBuffer;
    PFN_vkQueueSubmit QueueSubmit;
    struct wrapped_queue *queues[MAX_WRAPPED_QUEUES];
    uint32_t queue_count;
    struct wrapped_cb *cbs[MAX_WRAPPED_CBS]; /* NULL: free slot */
};
static struct inst_data g_inst[MAX_OBJECTS];
static struct dev_data g_dev[MAX_OBJECTS];

static void *key_of(const void *h) { return *(void *const *)h; }

_Static_assert(offsetof(struct inst_data, key) == 0 && offsetof(struct dev_data, key) == 0, "key first");
/* Copies `rec` (size bytes, a struct inst_data or dev_data) into the first free record (NULL key)
 * of `table` (MAX_OBJECTS of them), under the lock; with none free the object is not tracked. */
static void store_record(void *table, size_t size, const void *rec) {
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < MAX_OBJECTS; i++) {
        char *slot = (char *)table + (size_t)i * size;
        if (key_of(slot) != NULL) continue;
        memcpy(slot, rec, size);
        break;
    }
    pthread_mutex_unlock(&g_lock);
}

/* clobber_instance / clobber_device: what the layer writes into *pInstance / *pDevice before
 * calling down (LLP_LAYER_21/22). A readable, aligned dummy object, not a raw bogus value: once a
 * create call returns VK_SUCCESS, layers (this one included, when a layer below answered without
 * calling down, so the loader never refused) read the first word of *pInstance / *pDevice as the
 * created object's dispatch key. That first word (0xbad1bad1 / 0xbad2bad2) is no dispatch pointer
 * of the loader's, and the rest is zero. Read-only: a loader that writes its dispatch pointer or
 * anything else into it faults. A loader must refuse it by comparing handles, never by reading it. */
static const uintptr_t g_clobbered_instance[64] = {0xbad1bad1u};
static const uintptr_t g_clobbered_device[64] = {0xbad2bad2u};

static struct inst_data *inst_find(const void *h) {
    if (g_sc.strict_handles) {
        /* strict_handles: its own instance and physical-device wrappers only, found by address (the
         * way a layer reaches its state through its wrapper); any other handle is foreign. */
        for (int i = 0; i < MAX_OBJECTS; i++) {
            if (g_inst[i].key == NULL) continue;
            if ((const void *)g_inst[i].inst_wrapper == h) return &g_inst[i];
            for (uint32_t k = 0; k < g_inst[i].pd_count; k++)
                if ((const void *)g_inst[i].pds[k] == h) return &g_inst[i];
        }
        return NULL;
    }
    void *k = key_of(h);
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (g_inst[i].key == k) return &g_inst[i];
    return NULL;
}
/* A handle that is one of the layer's device wrappers finds that wrapper's record first: a copy of
 * the library that sits twice in one device chain (a layer above that does not advance the link
 * info, LLP_LAYER_13) holds two records under the same dispatch key, and the outer wrapper must
 * not be passed down as if it were the inner one. Anything else goes by its dispatch key. */
static struct dev_data *dev_find(const void *h) {
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (g_dev[i].key != NULL && g_dev[i].wrapped != NULL && (const void *)g_dev[i].wrapped == h) return &g_dev[i];
    if (g_sc.strict_handles) return NULL; /* its own device wrappers only */
    void *k = key_of(h);
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (g_dev[i].key == k) return &g_dev[i];
    return NULL;
}

/* The handle the layer below knows for `pd` (LLP_LAYER_10: unwrap before calling down). */
static VkPhysicalDevice unwrap_pd(const struct inst_data *d, VkPhysicalDevice pd) {
    if (d == NULL || !d->wrap) return pd;
    for (uint32_t i = 0; i < d->pd_count; i++)
        if ((VkPhysicalDevice)(void *)d->pds[i] == pd) return d->pds[i]->real;
    return pd;
}
static VkDevice unwrap_dev(const struct dev_data *d, VkDevice device) {
    return d != NULL && d->wrapped != NULL && (VkDevice)(void *)d->wrapped == device ? d->wrapped->real : device;
}

/* Takes the lock (the caller releases it): the layer's record of `device` (NULL: none), and in
 * *below the handle to pass down. */
static struct dev_data *dev_lock(VkDevice device, VkDevice *below) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    struct dev_data *d = dev_find(device);
    *below = unwrap_dev(d, device);
    return d;
}

/* wrap_instance: the handle the layer below knows for `instance`; records in `o` whether the loader
 * (or the layer above) passed the layer's own wrapper ("instance_unwrapped"), as it must. A layer
 * that wraps without checking would dereference whatever it was given as its wrapper; the mock
 * falls back to its own record instead, so that the test reports the defect rather than crashing. */
static VkInstance unwrap_inst(const struct inst_data *d, VkInstance instance, cJSON *o) {
    if (d == NULL || d->inst_wrapper == NULL) return instance;
    bool mine = (VkInstance)(void *)d->inst_wrapper == instance;
    if (o != NULL) cJSON_AddBoolToObject(o, "instance_unwrapped", mine);
    return d->instance;
}

/* The layer's record of `instance` (NULL: none); records `call` (with "instance_unwrapped" when
 * wrapping) and gives the handle to pass down in *below. Takes and releases the lock. */
static struct inst_data *inst_enter(VkInstance instance, const char *call, VkInstance *below) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    struct inst_data *d = inst_find(instance);
    cJSON *o = cJSON_CreateObject();
    *below = unwrap_inst(d, instance, o);
    if (d == NULL && g_sc.strict_handles) cJSON_AddBoolToObject(o, "foreign_handle", true);
    record(call, o);
    pthread_mutex_unlock(&g_lock);
    return d;
}

/* The wrapper of `real` (created on first sight, same wrapper on every later enumeration).
 * Lock held. VK_NULL_HANDLE when out of room or memory. */
static VkPhysicalDevice wrap_pd(struct inst_data *d, VkPhysicalDevice real) {
    for (uint32_t i = 0; i < d->pd_count; i++)
        if (d->pds[i]->real == real) return (VkPhysicalDevice)(void *)d->pds[i];
    if (d->pd_count >= MAX_WRAPPED_PDS) return VK_NULL_HANDLE;
    struct wrapped_pd *w = obj_alloc(&d->alloc, sizeof(*w), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
    if (w == NULL) return VK_NULL_HANDLE;
    w->real = real;
    /* The loader's dispatch pointer in the first word (LLP_LAYER_19); without the callback, the
     * word the loader put into the handle below. */
    if (d->set_loader_data == NULL || d->set_loader_data(d->instance, w) != VK_SUCCESS) w->loader_data = key_of(real);
    d->pds[d->pd_count++] = w;
    return (VkPhysicalDevice)(void *)w;
}

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

static _Atomic(const void *) g_unadvanced_instance_link;
static _Atomic(const void *) g_unadvanced_device_link;

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateInstance(const VkInstanceCreateInfo *ci,
                                                           const VkAllocationCallbacks *a, VkInstance *pInstance) {
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

static VKAPI_ATTR void VKAPI_CALL layer_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *a) {
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
static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateDebugUtilsMessengerEXT(VkInstance instance,
                                                                         const VkDebugUtilsMessengerCreateInfoEXT *ci,
                                                                         const VkAllocationCallbacks *a,
                                                                         VkDebugUtilsMessengerEXT *pMessenger) {
    VkInstance below;
    struct inst_data *d = inst_enter(instance, "vkCreateDebugUtilsMessengerEXT", &below);
    PFN_vkCreateDebugUtilsMessengerEXT next = d ? d->CreateDebugUtilsMessengerEXT : NULL;
    return next ? next(below, ci, a, pMessenger) : VK_ERROR_EXTENSION_NOT_PRESENT;
}

static VKAPI_ATTR void VKAPI_CALL layer_DestroyDebugUtilsMessengerEXT(VkInstance instance,
                                                                      VkDebugUtilsMessengerEXT messenger,
                                                                      const VkAllocationCallbacks *a) {
    VkInstance below;
    struct inst_data *d = inst_enter(instance, "vkDestroyDebugUtilsMessengerEXT", &below);
    PFN_vkDestroyDebugUtilsMessengerEXT next = d ? d->DestroyDebugUtilsMessengerEXT : NULL;
    if (next) next(below, messenger, a);
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_EnumeratePhysicalDevices(VkInstance instance, uint32_t *pCount,
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
static VKAPI_ATTR VkResult VKAPI_CALL layer_EnumeratePhysicalDeviceGroups(VkInstance instance, uint32_t *pCount,
                                                                          VkPhysicalDeviceGroupProperties *pGroups) {
    return wrap_groups(instance, pCount, pGroups, false);
}
static VKAPI_ATTR VkResult VKAPI_CALL layer_EnumeratePhysicalDeviceGroupsKHR(VkInstance instance, uint32_t *pCount,
                                                                             VkPhysicalDeviceGroupProperties *pGroups) {
    return wrap_groups(instance, pCount, pGroups, true);
}

/* Physical-device queries passed down with the handle unwrapped (and recorded when `recorded`):
 * vkGetPhysicalDeviceProperties, and for wrap_handles only the others, the physical-device queries
 * the mock unwraps (anything else taking a VkPhysicalDevice is not offered by a wrapping mock: its
 * vkGetInstanceProcAddr answers NULL). */
#define PD_QUERY(recorded, Name, Type)                                                                                 \
    static VKAPI_ATTR void VKAPI_CALL layer_##Name(VkPhysicalDevice pd, Type *p) {                                     \
        if (recorded) rec("vk" #Name);                                                                                 \
        struct inst_data *d = inst_find(pd);                                                                           \
        if (d && d->Name) d->Name(unwrap_pd(d, pd), p);                                                                \
    }
PD_QUERY(true, GetPhysicalDeviceProperties, VkPhysicalDeviceProperties)
PD_QUERY(true, GetPhysicalDeviceProperties2, VkPhysicalDeviceProperties2)
PD_QUERY(true, GetPhysicalDeviceProperties2KHR, VkPhysicalDeviceProperties2)
PD_QUERY(false, GetPhysicalDeviceFeatures, VkPhysicalDeviceFeatures)
PD_QUERY(false, GetPhysicalDeviceMemoryProperties, VkPhysicalDeviceMemoryProperties)
static VKAPI_ATTR void VKAPI_CALL layer_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice pd, uint32_t *pCount,
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
static VKAPI_ATTR VkResult VKAPI_CALL layer_GetPhysicalDeviceToolProperties(VkPhysicalDevice pd, uint32_t *pCount,
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

static VKAPI_ATTR VkResult VKAPI_CALL layer_EnumerateDeviceExtensionProperties(VkPhysicalDevice pd,
                                                                               const char *pLayerName, uint32_t *pCount,
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
    return d && d->EnumerateDeviceExtensionProperties
               ? d->EnumerateDeviceExtensionProperties(unwrap_pd(d, pd), pLayerName, pCount, pProps)
               : VK_ERROR_INITIALIZATION_FAILED;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice device, const char *name);

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

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance instance, const char *name);

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

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
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

static VKAPI_ATTR void VKAPI_CALL layer_DestroyDevice(VkDevice device, const VkAllocationCallbacks *a) {
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

static VKAPI_ATTR void VKAPI_CALL layer_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index,
                                                       VkQueue *pQueue) {
    VkDevice below;
    struct dev_data *d = dev_lock(device, &below);
    PFN_vkGetDeviceQueue next = d ? d->GetDeviceQueue : NULL;
    pthread_mutex_unlock(&g_lock);
    if (next) next(below, family, index, pQueue);
    wrap_got_queue("vkGetDeviceQueue", next != NULL, device, below, pQueue);
}

static VKAPI_ATTR void VKAPI_CALL layer_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info,
                                                        VkQueue *pQueue) {
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
    pthread_mutex_unlock(&g_lock);
    /* Asked without the lock: the next layer may be this very library. */
    PFN_vkVoidFunction next = next_gpdpa != NULL ? next_gpdpa(instance, name) : NULL;
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
static const PFN_vkVoidFunction g_device_function_slots[FN_SLOTS] = {
    (PFN_vkVoidFunction)device_function_0, (PFN_vkVoidFunction)device_function_1, (PFN_vkVoidFunction)device_function_2,
    (PFN_vkVoidFunction)device_function_3};
static const PFN_vkVoidFunction g_physdev_function_slots[FN_SLOTS] = {
    (PFN_vkVoidFunction)physdev_function_0, (PFN_vkVoidFunction)physdev_function_1,
    (PFN_vkVoidFunction)physdev_function_2, (PFN_vkVoidFunction)physdev_function_3};

/* The scenario's physdev_functions, for `instance` (gated by instance_extension when set). Lock held. */
static PFN_vkVoidFunction own_physdev_fn(VkInstance instance, const char *name) {
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

static VKAPI_ATTR VkResult VKAPI_CALL layer_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *ci,
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

static VKAPI_ATTR void VKAPI_CALL layer_DestroyCommandPool(VkDevice device, VkCommandPool pool,
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

static VKAPI_ATTR VkResult VKAPI_CALL layer_AllocateCommandBuffers(VkDevice device,
                                                                   const VkCommandBufferAllocateInfo *info,
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

static VKAPI_ATTR void VKAPI_CALL layer_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
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

static VKAPI_ATTR VkResult VKAPI_CALL layer_BeginCommandBuffer(VkCommandBuffer cb,
                                                               const VkCommandBufferBeginInfo *info) {
    VkCommandBuffer below;
    struct dev_data *d = cb_begin_call("vkBeginCommandBuffer", cb, &below);
    PFN_vkBeginCommandBuffer next = d ? d->BeginCommandBuffer : NULL;
    return next != NULL ? next(below, info) : VK_ERROR_INITIALIZATION_FAILED;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_EndCommandBuffer(VkCommandBuffer cb) {
    VkCommandBuffer below;
    struct dev_data *d = cb_begin_call("vkEndCommandBuffer", cb, &below);
    PFN_vkEndCommandBuffer next = d ? d->EndCommandBuffer : NULL;
    return next != NULL ? next(below) : VK_ERROR_INITIALIZATION_FAILED;
}

static VKAPI_ATTR void VKAPI_CALL layer_CmdFillBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset,
                                                      VkDeviceSize size, uint32_t data) {
    VkCommandBuffer below;
    struct dev_data *d = cb_begin_call("vkCmdFillBuffer", cb, &below);
    PFN_vkCmdFillBuffer next = d ? d->CmdFillBuffer : NULL;
    if (next != NULL) next(below, buffer, offset, size, data);
}

/* Records {"unwrapped": the queue, "command_buffers_unwrapped": every command buffer of every
 * submit was a wrapper, "loader_word": of the queue wrapper}; the layer below gets copies of the
 * submit infos holding its own command buffers. */
static VKAPI_ATTR VkResult VKAPI_CALL layer_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
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

/* ------------------------------------------------------------------ proc addrs */

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance instance, const char *name);
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

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance instance, const char *name) {
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

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice device, const char *name) {
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
    pthread_mutex_unlock(&g_lock);
    if (f != NULL || wrap) return f; /* a wrapping mock offers no device command it cannot unwrap */
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
    mock_records_clear(&g_records);
    cJSON_Delete(g_doc);
    g_doc = NULL;
    load_sidecar();
    pthread_mutex_unlock(&g_lock);
}
EXPORT size_t mock_layer_ctl_record_count(void) {
    pthread_mutex_lock(&g_lock);
    size_t n = mock_records_count(&g_records);
    pthread_mutex_unlock(&g_lock);
    return n;
}
EXPORT const char *mock_layer_ctl_record_get(size_t i) {
    pthread_mutex_lock(&g_lock);
    const char *s = mock_records_get(&g_records, i);
    pthread_mutex_unlock(&g_lock);
    return s;
}
