/*
 * What the mock layer's sources share (mock_layer.c, mock_layer_instance.c, mock_layer_device.c,
 * mock_layer_procaddr.c): the scenario, the per-object records and the functions one file calls in
 * another. Internal to the layer: every symbol here is hidden (-fvisibility=hidden, and the
 * variant's version script exports only the layer interface).
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
#ifndef MOCK_LAYERS_MOCK_LAYER_INTERNAL_H
#define MOCK_LAYERS_MOCK_LAYER_INTERNAL_H

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
    /* asks pfnNextGetPhysicalDeviceProcAddr for each physdev_functions command in vkCreateInstance,
     * right after calling down, and calls what it got then (as layers that build their dispatch
     * at creation do), not what the next GPDPA answers at call time */
    bool physdev_next_at_create;
    /* vkCreateDevice appends this extension to the create info it passes down (a layer enabling an
     * extension it needs below itself); "" = none */
    char add_device_extension[VK_MAX_EXTENSION_NAME_SIZE];
    char device_functions[FN_SLOTS][VK_MAX_EXTENSION_NAME_SIZE];  /* "" = free slot */
    char physdev_functions[FN_SLOTS][VK_MAX_EXTENSION_NAME_SIZE]; /* "" = free slot */
    /* "" = ungated; else device_functions are offered by vkGetDeviceProcAddr only for devices
     * created with this extension enabled (LLP_LAYER_18), and it is the layer's own answer to
     * vkEnumerateDeviceExtensionProperties(its name) (LLP_LAYER_16) */
    char device_extension[VK_MAX_EXTENSION_NAME_SIZE];
    /* reported by vkEnumerateDeviceExtensionProperties(NULL layer name) after what lies below,
     * whatever the manifest declares (a layer offering an extension at run time) */
    char inject_device_extension[VK_MAX_EXTENSION_NAME_SIZE];
    /* "" = ungated; else physdev_functions are offered only for instances created with it enabled */
    char instance_extension[VK_MAX_EXTENSION_NAME_SIZE];
    int negotiate_version;                              /* -1: the variant's own */
    uint32_t pre_instance_version;                      /* 0: pass through */
    char pre_add_extension[VK_MAX_EXTENSION_NAME_SIZE]; /* "": none */
    char pre_add_layer[VK_MAX_EXTENSION_NAME_SIZE];     /* "": none */
    bool pre_no_call_down;
    /* "reenter": calls back into the loader from inside its own vkCreateInstance ("instance") or
     * vkCreateDevice ("device"), before calling down, through the loader library at "loader"
     * (found with dlopen RTLD_NOLOAD); records "reenter_instance" / "reenter_device" */
    bool reenter_instance, reenter_device;
    char reenter_loader[PATH_MAX];
    char calls_file[PATH_MAX];
};

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
    /* physdev_next_at_create: the next GPDPA's answer for each physdev_functions slot at creation */
    PFN_vkVoidFunction physdev_next[FN_SLOTS];
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

/* ---- mock_layer.c */
extern pthread_mutex_t g_lock;
extern struct scenario g_sc;
extern struct inst_data g_inst[MAX_OBJECTS];
extern struct dev_data g_dev[MAX_OBJECTS];
extern const uintptr_t g_clobbered_instance[64];
extern const uintptr_t g_clobbered_device[64];
struct alloc_cb alloc_from(const VkAllocationCallbacks *a);
struct dev_data *dev_find(const void *h);
struct dev_data *dev_lock(VkDevice device, VkDevice *below);
void ensure_init(void);
struct inst_data *inst_enter(VkInstance instance, const char *call, VkInstance *below);
struct inst_data *inst_find(const void *h);
bool intercepts(const char *name);
void *key_of(const void *h);
void *obj_alloc(const struct alloc_cb *a, size_t size, VkSystemAllocationScope scope);
void obj_free(const struct alloc_cb *a, void *p);
void rec(const char *call);
void record(const char *call, cJSON *extra);
void store_record(void *table, size_t size, const void *rec);
VkInstance unwrap_inst(const struct inst_data *d, VkInstance instance, cJSON *o);
VkPhysicalDevice unwrap_pd(const struct inst_data *d, VkPhysicalDevice pd);
VkPhysicalDevice wrap_pd(struct inst_data *d, VkPhysicalDevice real);

/* ---- mock_layer_instance.c */
extern _Atomic(const void *) g_unadvanced_device_link;
VKAPI_ATTR VkResult VKAPI_CALL layer_CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *a,
                                                    VkInstance *pInstance);
VKAPI_ATTR void VKAPI_CALL layer_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *a);
VKAPI_ATTR VkResult VKAPI_CALL layer_CreateDebugUtilsMessengerEXT(VkInstance instance,
                                                                  const VkDebugUtilsMessengerCreateInfoEXT *ci,
                                                                  const VkAllocationCallbacks *a,
                                                                  VkDebugUtilsMessengerEXT *pMessenger);
VKAPI_ATTR void VKAPI_CALL layer_DestroyDebugUtilsMessengerEXT(VkInstance instance, VkDebugUtilsMessengerEXT messenger,
                                                               const VkAllocationCallbacks *a);
VKAPI_ATTR VkResult VKAPI_CALL layer_EnumeratePhysicalDevices(VkInstance instance, uint32_t *pCount,
                                                              VkPhysicalDevice *pDevs);
VKAPI_ATTR VkResult VKAPI_CALL layer_EnumeratePhysicalDeviceGroups(VkInstance instance, uint32_t *pCount,
                                                                   VkPhysicalDeviceGroupProperties *pGroups);
VKAPI_ATTR VkResult VKAPI_CALL layer_EnumeratePhysicalDeviceGroupsKHR(VkInstance instance, uint32_t *pCount,
                                                                      VkPhysicalDeviceGroupProperties *pGroups);
VKAPI_ATTR void VKAPI_CALL layer_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice pd, uint32_t *pCount,
                                                                        VkQueueFamilyProperties *p);
VKAPI_ATTR VkResult VKAPI_CALL layer_GetPhysicalDeviceToolProperties(VkPhysicalDevice pd, uint32_t *pCount,
                                                                     VkPhysicalDeviceToolProperties *pTools);
VKAPI_ATTR VkResult VKAPI_CALL layer_EnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char *pLayerName,
                                                                        uint32_t *pCount,
                                                                        VkExtensionProperties *pProps);
/* The physical-device queries of PD_QUERY */
VKAPI_ATTR void VKAPI_CALL layer_GetPhysicalDeviceProperties(VkPhysicalDevice pd, VkPhysicalDeviceProperties *p);
VKAPI_ATTR void VKAPI_CALL layer_GetPhysicalDeviceProperties2(VkPhysicalDevice pd, VkPhysicalDeviceProperties2 *p);
VKAPI_ATTR void VKAPI_CALL layer_GetPhysicalDeviceProperties2KHR(VkPhysicalDevice pd, VkPhysicalDeviceProperties2 *p);
VKAPI_ATTR void VKAPI_CALL layer_GetPhysicalDeviceFeatures(VkPhysicalDevice pd, VkPhysicalDeviceFeatures *p);
VKAPI_ATTR void VKAPI_CALL layer_GetPhysicalDeviceMemoryProperties(VkPhysicalDevice pd,
                                                                   VkPhysicalDeviceMemoryProperties *p);

void reenter(const struct scenario *sc, bool device);

/* ---- mock_layer_device.c */
extern const PFN_vkVoidFunction g_device_function_slots[FN_SLOTS];
PFN_vkVoidFunction own_physdev_fn(VkInstance instance, const char *name);
VKAPI_ATTR VkResult VKAPI_CALL layer_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                                  const VkAllocationCallbacks *a, VkDevice *pDevice);
VKAPI_ATTR void VKAPI_CALL layer_DestroyDevice(VkDevice device, const VkAllocationCallbacks *a);
VKAPI_ATTR void VKAPI_CALL layer_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *pQueue);
VKAPI_ATTR void VKAPI_CALL layer_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *pQueue);
VKAPI_ATTR VkResult VKAPI_CALL layer_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *ci,
                                                       const VkAllocationCallbacks *a, VkCommandPool *pPool);
VKAPI_ATTR void VKAPI_CALL layer_DestroyCommandPool(VkDevice device, VkCommandPool pool,
                                                    const VkAllocationCallbacks *a);
VKAPI_ATTR VkResult VKAPI_CALL layer_AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo *info,
                                                            VkCommandBuffer *pBuffers);
VKAPI_ATTR void VKAPI_CALL layer_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                                    const VkCommandBuffer *pBuffers);
VKAPI_ATTR VkResult VKAPI_CALL layer_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info);
VKAPI_ATTR VkResult VKAPI_CALL layer_EndCommandBuffer(VkCommandBuffer cb);
VKAPI_ATTR void VKAPI_CALL layer_CmdFillBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset,
                                               VkDeviceSize size, uint32_t data);
VKAPI_ATTR VkResult VKAPI_CALL layer_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                                 VkFence fence);

/* ---- mock_layer_procaddr.c */
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetInstanceProcAddr(VkInstance instance, const char *name);
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL layer_GetDeviceProcAddr(VkDevice device, const char *name);

#endif
