/* Internal header of the mock Vulkan driver (ICD): what its sources share. Not installed, not
 * for tests (they use mock_icd_ctl.h).
 *
 * The sources, by job (SOURCES lists them; every build of the mock reads that list):
 *   state.c     the global state (defined there and only there), initialisation, the scenario in
 *               force, first-entry detection, handle lookup
 *   scenario.c  scenario parsing (README.md "Scenario")
 *   records.c   the call records (memory and <library>.calls)
 *   ctl.c       the mock_icd_ctl_* control API and the unload destructor
 *   instance.c  global and instance commands (instances, physical-device enumeration and groups,
 *               debug-utils messengers)
 *   physdev.c   physical-device queries
 *   wsi.c       surfaces, surface queries, displays, swapchains, device-group present
 *   device.c    devices, queues, command pools and buffers, images and buffers
 *   dispatch.c  negotiation, the proc-address tables, the unknown-function pool and the exports
 *   mock_gen.h  the command-table entry, shared with the generated no-op core commands
 *               (mock_gen_commands.c, built from vk.xml by tools/vkgen/vkgen_mock.py)
 *
 * Compile-time (set by variants.bzl, never by hand):
 *   MOCK_ICD_MAX_INTERFACE   highest loader/driver interface version this build negotiates
 *   MOCK_ICD_EXPORT_NEGOTIATE exports vk_icdNegotiateLoaderICDInterfaceVersion
 *   MOCK_ICD_EXPORT_ICD_GIPA exports vk_icdGetInstanceProcAddr
 *   MOCK_ICD_HAS_GPDPA       has vk_icdGetPhysicalDeviceProcAddr (reachable through GIPA at v7)
 *   MOCK_ICD_EXPORT_GPDPA    exports vk_icdGetPhysicalDeviceProcAddr
 *   MOCK_ICD_EXPORT_VK       0: no vk* exports, 1: the three v0 exports, 2: the "vkexports" list
 * Everything else is the run-time scenario (README.md).
 */
#ifndef MOCK_ICD_MOCK_ICD_INTERNAL_H_
#define MOCK_ICD_MOCK_ICD_INTERNAL_H_

#define VK_NO_PROTOTYPES 1
#define MOCK_ICD_BUILDING 1

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vulkan.h>

#include "loader/vkl_gen_results.h"
#include "mock_common/mock_common.h"
#include "mock_icd/mock_gen.h"
#include "mock_icd/mock_icd_ctl.h"

#ifndef MOCK_ICD_MAX_INTERFACE
#define MOCK_ICD_MAX_INTERFACE 7
#endif
#ifndef MOCK_ICD_EXPORT_NEGOTIATE
#define MOCK_ICD_EXPORT_NEGOTIATE 0
#endif
#ifndef MOCK_ICD_EXPORT_ICD_GIPA
#define MOCK_ICD_EXPORT_ICD_GIPA 0
#endif
#ifndef MOCK_ICD_HAS_GPDPA
#define MOCK_ICD_HAS_GPDPA 0
#endif
#ifndef MOCK_ICD_EXPORT_GPDPA
#define MOCK_ICD_EXPORT_GPDPA 0
#endif
#ifndef MOCK_ICD_EXPORT_VK
#define MOCK_ICD_EXPORT_VK 0
#endif

#if MOCK_ICD_EXPORT_GPDPA && !MOCK_ICD_HAS_GPDPA
#error "MOCK_ICD_EXPORT_GPDPA needs MOCK_ICD_HAS_GPDPA"
#endif

#define MOCK_EXPORT __attribute__((visibility("default")))
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define UNPUBLISHED_EXTENSION "VK_MOCK_unpublished_extension"

/* Everything below stays inside the library: hidden visibility (the version script exports only
 * the driver interface and mock_icd_ctl_* anyway), so the calls between the sources stay direct
 * and no other module can interpose them. */
#pragma GCC visibility push(hidden)

static inline uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* ------------------------------------------------------------------------------------------ */
/* Scenario                                                                                     */

struct ext_cfg {
    char name[VK_MAX_EXTENSION_NAME_SIZE];
    uint32_t spec_version;
};

struct queue_family_cfg {
    VkQueueFlags flags;
    uint32_t count;
};

struct physdev_cfg {
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    uint32_t api_version, driver_version, vendor_id, device_id;
    VkPhysicalDeviceType type;
    struct ext_cfg *exts;
    uint32_t ext_count;
    struct queue_family_cfg *families;
    uint32_t family_count;
    VkDriverId driver_id;
    uint8_t conformance[4];
    bool has_pci_bus;
    uint32_t pci_bus[4]; /* domain, bus, device, function (VkPhysicalDevicePCIBusInfoPropertiesEXT) */
};

struct group_cfg {
    uint32_t *members;
    uint32_t count;
};

struct result_cfg {
    char *command;
    VkResult result;
};

struct misbehave_cfg {
    bool crash_with_zero_devices, no_loader_magic, gpdpa_answers_everything, incompatible_for_any_api_above_1_0,
        accept_any_api_version, unpublished_extension, surface_without_interface_3, corrupt_other_driver,
        fail_enumerate_physical_devices, incompatible_for_api_2, gipa_null_instance_answers_all,
        /* drivers that lie (docs/ldp-check.md "Drivers that lie") */
        count_grows, write_past_count, group_too_large, group_foreign_device, unterminated_names, null_physical_device,
        duplicate_physical_device, null_device, non_utf8_names, queue_without_magic, command_buffer_without_magic;
};

/* interface.per_offer: the answer to one offered version. */
struct offer_cfg {
    uint32_t offer;
    bool is_result; /* true: `result` is returned, *pVersion untouched; false: VK_SUCCESS and `version` */
    VkResult result;
    uint32_t version;
};
#define MOCK_MAX_PER_OFFER 32

struct scenario {
    _Atomic int refs; /* instances and devices on several threads retain it */
    uint32_t if_min, if_max;
    bool has_negotiate_result, has_report_version;
    VkResult negotiate_result;
    uint32_t report_version;
    struct offer_cfg per_offer[MOCK_MAX_PER_OFFER];
    uint32_t per_offer_count;
    bool has_max_through_gipa;
    uint32_t max_through_gipa;
    uint32_t api_version;
    bool expose_eiv;
    bool record_lookups;
    struct ext_cfg *inst_exts;
    uint32_t inst_ext_count;
    struct physdev_cfg *pds;
    uint32_t pd_count;
    bool has_groups;
    struct group_cfg *groups;
    uint32_t group_count;
    struct result_cfg *results;
    uint32_t result_count;
    char **dev_funcs;
    uint32_t dev_func_count;
    char **pd_funcs;
    uint32_t pd_func_count;
    char **hidden; /* hidden_functions: every proc-addr lookup answers NULL */
    uint32_t hidden_count;
    char **crash_in; /* crash_in: instance-level / physical-device commands that abort */
    uint32_t crash_in_count;
    char **lie_in; /* lie_in: the only commands count_grows / write_past_count lie in (none: all) */
    uint32_t lie_in_count;
    uint32_t *unplugged; /* unplugged: indices of an instance's devices hidden from enumeration */
    uint32_t unplugged_count;
    struct misbehave_cfg mb;
};

/* ------------------------------------------------------------------------------------------ */
/* Dispatchable and non-dispatchable objects                                                    */

struct mock_instance;
struct mock_device;

struct mock_physdev {
    VK_LOADER_DATA loader_data; /* must stay first */
    struct mock_instance *instance;
    uint32_t index;
    const struct physdev_cfg *cfg;
};

struct mock_messenger {
    struct mock_messenger *next;
};

struct mock_surface {
    struct mock_surface *next;
    const char *kind;
};

struct mock_instance {
    VK_LOADER_DATA loader_data; /* must stay first */
    struct mock_instance *next;
    struct scenario *sc; /* snapshot the physical devices come from */
    struct mock_physdev **pds;
    uint32_t pd_count;
    uint32_t api_version;
    bool reported_zero_devices;
    struct mock_messenger *messengers;
    struct mock_surface *surfaces;
};

struct mock_queue {
    VK_LOADER_DATA loader_data; /* must stay first */
    struct mock_device *device;
    uint32_t family, index;
};

struct mock_cmdbuf {
    VK_LOADER_DATA loader_data; /* must stay first */
    struct mock_cmdbuf *next;
    struct mock_pool *pool;
};

struct mock_pool {
    struct mock_pool *next;
    struct mock_device *device;
    uint32_t family;
    struct mock_cmdbuf *cmdbufs;
};

struct mock_image { /* images, buffers (vulkaninfo's memory-requirement probes) and device memory */
    struct mock_image *next;
    VkDeviceSize size;
    bool sparse;
    void *mapped; /* device memory: host memory of `size` bytes once mapped */
};

struct mock_device {
    VK_LOADER_DATA loader_data; /* must stay first */
    struct mock_device *next;
    struct mock_image *images; /* images and buffers not yet destroyed */
    uint32_t api_version;      /* of its physical device (which may be destroyed first by a bad app) */
    struct scenario *sc;
    struct mock_queue **queues;
    uint32_t queue_count;
    struct mock_pool *pools;
};

/* ------------------------------------------------------------------------------------------ */
/* Global state (state.c)                                                                       */

extern pthread_mutex_t g_lock;
extern bool g_inited;
extern bool g_ctl_scenario; /* scenario came from mock_icd_ctl_load_scenario */
extern char g_self_path[PATH_MAX];
extern char g_calls_path[PATH_MAX + 16];
extern char g_scenario_path[PATH_MAX + 16];
extern struct scenario *g_sc;
extern struct mock_records g_records; /* mock_icd_ctl_record_*; g_lock */
extern int g_negotiated;              /* -1: never negotiated */
extern bool g_first_seen;
extern bool g_legacy_gipa_first; /* first entry was vk_icdGetInstanceProcAddr (not for negotiate) */
extern struct mock_instance *g_instances;
extern struct mock_device *g_devices;
extern char *g_dyn_pd_names[MOCK_ICD_UNKNOWN_SLOTS]; /* gpdpa_answers_everything slots */
extern uint32_t g_dyn_pd_count;
extern uint32_t g_next_swapchain; /* swapchain handles are numbers: 0x5C000000 + n */

/* state.c */
const char *load_sidecar_locked(void); /* g_lock held; an error text to record, or NULL */
void ensure_init(void);
struct scenario *sc_now(void);
VkResult injected(const char *cmd);
bool has_ext(const struct ext_cfg *e, uint32_t n, const char *name);
bool inst_ext(const char *name);
uint32_t major_minor(uint32_t v);
int effective_interface(void);
void set_magic(void *obj);
/* queue_without_magic / command_buffer_without_magic: the first word of a VkQueue / VkCommandBuffer
 * is this instead of ICD_LOADER_MAGIC (the driver did not reserve the loader's word). */
#define FOREIGN_FIRST_WORD ((uintptr_t)0x0badcafe0badcafeull)
void set_foreign_first_word(void *obj);
VKAPI_ATTR VkResult VKAPI_CALL mock_SetDebugUtilsObjectNameEXT(VkDevice device,
                                                               const VkDebugUtilsObjectNameInfoEXT *info);
VKAPI_ATTR VkResult VKAPI_CALL mock_SetDebugUtilsObjectTagEXT(VkDevice device,
                                                              const VkDebugUtilsObjectTagInfoEXT *info);
void note_entry(const char *entry, const char *name);
struct mock_instance *find_instance(VkInstance h);
struct mock_physdev *find_physdev(VkPhysicalDevice h);
struct mock_device *find_device(VkDevice h);
struct mock_queue *find_queue(const void *h);
struct mock_cmdbuf *find_cmdbuf(const void *h);
void rec_invalid_handle(const char *call, const char *what);
void maybe_crash(struct mock_instance *inst, const char *call);

/* The physical-device command prologue: `pd` from `physicalDevice`, or a record and `ret`. */
#define GET_PD(call, ret)                                                                                              \
    struct mock_physdev *pd = find_physdev(physicalDevice);                                                            \
    if (!pd) {                                                                                                         \
        rec_invalid_handle(call, "VkPhysicalDevice");                                                                  \
        return ret;                                                                                                    \
    }                                                                                                                  \
    maybe_crash(pd->instance, call)

/* records.c: each record is one JSON object; rec_emit takes ownership */
cJSON *rec_new(const char *call);
void rec_add_result(cJSON *o, VkResult r);
void rec_add_version(cJSON *o, const char *key, uint32_t v);
void rec_add_strings(cJSON *o, const char *key, const char *const *names, uint32_t n);
void rec_add_str_or_null(cJSON *o, const char *key, const char *s);
void rec_emit(cJSON *o);

/* scenario.c */
void scenario_release(struct scenario *sc);
void copy_name(char *dst, size_t cap, const char *src);
/* Drivers that lie (misbehave.*; mock_icd/README.md): */
#define UNTERMINATED_EXTENSION "VK_MOCK_unterminated_"
#define NOT_UTF8_EXTENSION "VK_MOCK_not_utf8_\xC3\x28"
#define PAST_THE_END_EXTENSION "VK_MOCK_past_the_end"
/* unterminated_names: src, then the invalid UTF-8 pair 0xC3 0x28 up to the last byte: no NUL. */
void copy_name_unterminated(char *dst, size_t cap, const char *src);
/* unterminated_names / non_utf8_names: the extension lists end with one more extension, named
 * UNTERMINATED_EXTENSION padded without NUL, or NOT_UTF8_EXTENSION (terminated, not UTF-8). */
bool lying_name_extension(void);
void copy_lying_extension_name(char *dst, size_t cap);
/* After a fill call given `given` elements of `size` bytes at `array` that returned `r`:
 * write_past_count copies `past` to array[given] (one element past the array); count_grows sets
 * *count to given + 1 and answers VK_SUCCESS (a count larger than the array, instead of
 * VK_INCOMPLETE). Returns the result to give. */
VkResult liar_after_fill(const char *cmd, void *array, size_t size, uint32_t given, uint32_t *count, VkResult r,
                         const void *past);
/* Whether count_grows / write_past_count lie in `cmd`: every fill call, or with "lie_in" only those
 * named there (lie_in's names are canonical; the EXT alias of the tool query lies with it). */
bool lies_in(const char *cmd);
/* vkEnumerateInstanceExtensionProperties / vkEnumerateDeviceExtensionProperties (`cmd`): no
 * layer's extensions, a count needed, the injected result (misbehave "inject"), then the two-call
 * idiom on the extension list a mock reports, `exts` then UNPUBLISHED_EXTENSION
 * (unpublished_extension) then the lying name (lying_name_extension), through liar_after_fill.
 * `query_injected`: whether the count query (props NULL) answers an injected success code too
 * (the device command does; the instance command answers VK_SUCCESS). */
VkResult enumerate_extension_list(const char *cmd, const char *layer, const struct ext_cfg *exts, uint32_t ext_count,
                                  uint32_t *count, VkExtensionProperties *props, bool query_injected);
struct scenario *scenario_parse(const char *json, const char **err);

/* instance.c */
void instance_free(struct mock_instance *inst);
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *alloc,
                                                   VkInstance *out);
VKAPI_ATTR void VKAPI_CALL mock_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc);
VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateInstanceExtensionProperties(const char *layer, uint32_t *count,
                                                                         VkExtensionProperties *props);
VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateInstanceVersion(uint32_t *version);
VKAPI_ATTR VkResult VKAPI_CALL mock_EnumeratePhysicalDevices(VkInstance instance, uint32_t *count,
                                                             VkPhysicalDevice *out);
VKAPI_ATTR VkResult VKAPI_CALL mock_EnumeratePhysicalDeviceGroups(VkInstance instance, uint32_t *count,
                                                                  VkPhysicalDeviceGroupProperties *props);
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateDebugUtilsMessengerEXT(VkInstance instance,
                                                                 const VkDebugUtilsMessengerCreateInfoEXT *ci,
                                                                 const VkAllocationCallbacks *alloc,
                                                                 VkDebugUtilsMessengerEXT *out);
VKAPI_ATTR void VKAPI_CALL mock_DestroyDebugUtilsMessengerEXT(VkInstance instance, VkDebugUtilsMessengerEXT messenger,
                                                              const VkAllocationCallbacks *alloc);

/* physdev.c */
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceProperties(VkPhysicalDevice physicalDevice,
                                                            VkPhysicalDeviceProperties *p);
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceProperties2(VkPhysicalDevice physicalDevice,
                                                             VkPhysicalDeviceProperties2 *p);
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFeatures(VkPhysicalDevice physicalDevice, VkPhysicalDeviceFeatures *f);
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFeatures2(VkPhysicalDevice physicalDevice,
                                                           VkPhysicalDeviceFeatures2 *f);
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFormatProperties(VkPhysicalDevice physicalDevice, VkFormat format,
                                                                  VkFormatProperties *p);
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFormatProperties2(VkPhysicalDevice physicalDevice, VkFormat format,
                                                                   VkFormatProperties2 *p);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceImageFormatProperties(
    VkPhysicalDevice physicalDevice, VkFormat format, VkImageType type, VkImageTiling tiling, VkImageUsageFlags usage,
    VkImageCreateFlags flags, VkImageFormatProperties *p);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceImageFormatProperties2(
    VkPhysicalDevice physicalDevice, const VkPhysicalDeviceImageFormatInfo2 *info, VkImageFormatProperties2 *p);
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice physicalDevice, uint32_t *count,
                                                                       VkQueueFamilyProperties *p);
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice physicalDevice,
                                                                        uint32_t *count, VkQueueFamilyProperties2 *p);
uint32_t mock_memory_type_count(void);
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceMemoryProperties(VkPhysicalDevice physicalDevice,
                                                                  VkPhysicalDeviceMemoryProperties *p);
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceMemoryProperties2(VkPhysicalDevice physicalDevice,
                                                                   VkPhysicalDeviceMemoryProperties2 *p);
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceExternalBufferProperties(
    VkPhysicalDevice physicalDevice, const VkPhysicalDeviceExternalBufferInfo *info, VkExternalBufferProperties *p);
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceExternalSemaphoreProperties(
    VkPhysicalDevice physicalDevice, const VkPhysicalDeviceExternalSemaphoreInfo *info,
    VkExternalSemaphoreProperties *p);
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceExternalFenceProperties(VkPhysicalDevice physicalDevice,
                                                                         const VkPhysicalDeviceExternalFenceInfo *info,
                                                                         VkExternalFenceProperties *p);
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceSparseImageFormatProperties(
    VkPhysicalDevice physicalDevice, VkFormat format, VkImageType type, VkSampleCountFlagBits samples,
    VkImageUsageFlags usage, VkImageTiling tiling, uint32_t *count, VkSparseImageFormatProperties *p);
VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceSparseImageFormatProperties2(
    VkPhysicalDevice physicalDevice, const VkPhysicalDeviceSparseImageFormatInfo2 *info, uint32_t *count,
    VkSparseImageFormatProperties2 *p);
VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateDeviceExtensionProperties(VkPhysicalDevice physicalDevice,
                                                                       const char *layer, uint32_t *count,
                                                                       VkExtensionProperties *props);
VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateDeviceLayerProperties(VkPhysicalDevice physicalDevice, uint32_t *count,
                                                                   VkLayerProperties *p);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceToolProperties(VkPhysicalDevice physicalDevice, uint32_t *count,
                                                                    VkPhysicalDeviceToolProperties *out);

/* Two-call idiom over one element: `fill(i)` writes element i of `out`. */
#define ONE_ELEMENT(count, out, fill)                                                                                  \
    do {                                                                                                               \
        if (!(count)) return VK_ERROR_INITIALIZATION_FAILED;                                                           \
        if (!(out)) {                                                                                                  \
            *(count) = 1;                                                                                              \
            return VK_SUCCESS;                                                                                         \
        }                                                                                                              \
        if (*(count) == 0) return VK_INCOMPLETE;                                                                       \
        fill;                                                                                                          \
        *(count) = 1;                                                                                                  \
        return VK_SUCCESS;                                                                                             \
    } while (0)

/* ONE_ELEMENT for the commands drivers that lie lie in (count_grows, write_past_count:
 * liar_after_fill with `past` as the element written past the array). */
#define ONE_ELEMENT_LIAR(cmd, count, out, fill, past)                                                                  \
    do {                                                                                                               \
        if (!(count)) return VK_ERROR_INITIALIZATION_FAILED;                                                           \
        if (!(out)) {                                                                                                  \
            *(count) = 1;                                                                                              \
            return VK_SUCCESS;                                                                                         \
        }                                                                                                              \
        if (*(count) == 0) return VK_INCOMPLETE;                                                                       \
        uint32_t given_ = *(count);                                                                                    \
        fill;                                                                                                          \
        *(count) = 1;                                                                                                  \
        return liar_after_fill((cmd), (out), sizeof *(out), given_, (count), VK_SUCCESS, &(past));                     \
    } while (0)

/* wsi.c */
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateDisplayPlaneSurfaceKHR(VkInstance instance,
                                                                 const VkDisplaySurfaceCreateInfoKHR *ci,
                                                                 const VkAllocationCallbacks *alloc, VkSurfaceKHR *out);
VKAPI_ATTR void VKAPI_CALL mock_DestroySurfaceKHR(VkInstance instance, VkSurfaceKHR surface,
                                                  const VkAllocationCallbacks *alloc);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceSupportKHR(VkPhysicalDevice physicalDevice, uint32_t family,
                                                                       VkSurfaceKHR surface, VkBool32 *supported);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceCapabilitiesKHR(VkPhysicalDevice physicalDevice,
                                                                            VkSurfaceKHR surface,
                                                                            VkSurfaceCapabilitiesKHR *caps);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceFormatsKHR(VkPhysicalDevice physicalDevice,
                                                                       VkSurfaceKHR surface, uint32_t *count,
                                                                       VkSurfaceFormatKHR *formats);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfacePresentModesKHR(VkPhysicalDevice physicalDevice,
                                                                            VkSurfaceKHR surface, uint32_t *count,
                                                                            VkPresentModeKHR *modes);
void rec_display_call(const char *call, const struct mock_physdev *pd);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceDisplayPropertiesKHR(VkPhysicalDevice physicalDevice,
                                                                          uint32_t *count, VkDisplayPropertiesKHR *out);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceDisplayProperties2KHR(VkPhysicalDevice physicalDevice,
                                                                           uint32_t *count,
                                                                           VkDisplayProperties2KHR *out);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceDisplayPlanePropertiesKHR(VkPhysicalDevice physicalDevice,
                                                                               uint32_t *count,
                                                                               VkDisplayPlanePropertiesKHR *out);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceDisplayPlaneProperties2KHR(VkPhysicalDevice physicalDevice,
                                                                                uint32_t *count,
                                                                                VkDisplayPlaneProperties2KHR *out);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayPlaneSupportedDisplaysKHR(VkPhysicalDevice physicalDevice, uint32_t plane,
                                                                        uint32_t *count, VkDisplayKHR *out);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayModePropertiesKHR(VkPhysicalDevice physicalDevice, VkDisplayKHR display,
                                                                uint32_t *count, VkDisplayModePropertiesKHR *out);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayModeProperties2KHR(VkPhysicalDevice physicalDevice, VkDisplayKHR display,
                                                                 uint32_t *count, VkDisplayModeProperties2KHR *out);
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateDisplayModeKHR(VkPhysicalDevice physicalDevice, VkDisplayKHR display,
                                                         const VkDisplayModeCreateInfoKHR *ci,
                                                         const VkAllocationCallbacks *alloc, VkDisplayModeKHR *out);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayPlaneCapabilitiesKHR(VkPhysicalDevice physicalDevice,
                                                                   VkDisplayModeKHR mode, uint32_t plane,
                                                                   VkDisplayPlaneCapabilitiesKHR *caps);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayPlaneCapabilities2KHR(VkPhysicalDevice physicalDevice,
                                                                    const VkDisplayPlaneInfo2KHR *info,
                                                                    VkDisplayPlaneCapabilities2KHR *caps);
VKAPI_ATTR VkResult VKAPI_CALL mock_AcquireXlibDisplayEXT(VkPhysicalDevice physicalDevice, void *dpy,
                                                          VkDisplayKHR display);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetRandROutputDisplayEXT(VkPhysicalDevice physicalDevice, void *dpy,
                                                             unsigned long rr_output, VkDisplayKHR *out);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceCapabilities2EXT(VkPhysicalDevice physicalDevice,
                                                                             VkSurfaceKHR surface,
                                                                             VkSurfaceCapabilities2EXT *caps);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceCapabilities2KHR(
    VkPhysicalDevice physicalDevice, const VkPhysicalDeviceSurfaceInfo2KHR *info, VkSurfaceCapabilities2KHR *caps);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetDeviceGroupPresentCapabilitiesKHR(VkDevice device,
                                                                         VkDeviceGroupPresentCapabilitiesKHR *caps);
VKAPI_ATTR VkResult VKAPI_CALL mock_GetDeviceGroupSurfacePresentModesKHR(VkDevice device, VkSurfaceKHR surface,
                                                                         VkDeviceGroupPresentModeFlagsKHR *modes);
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateSwapchainKHR(VkDevice device, const VkSwapchainCreateInfoKHR *ci,
                                                       const VkAllocationCallbacks *alloc, VkSwapchainKHR *out);
VKAPI_ATTR void VKAPI_CALL mock_DestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                    const VkAllocationCallbacks *alloc);
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateXlibSurfaceKHR(VkInstance instance, const void *ci,
                                                         const VkAllocationCallbacks *alloc, VkSurfaceKHR *out);
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateXcbSurfaceKHR(VkInstance instance, const void *ci,
                                                        const VkAllocationCallbacks *alloc, VkSurfaceKHR *out);
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateWaylandSurfaceKHR(VkInstance instance, const void *ci,
                                                            const VkAllocationCallbacks *alloc, VkSurfaceKHR *out);
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateHeadlessSurfaceEXT(VkInstance instance, const void *ci,
                                                             const VkAllocationCallbacks *alloc, VkSurfaceKHR *out);

/* device.c */
void device_free(struct mock_device *d);
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateDevice(VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo *ci,
                                                 const VkAllocationCallbacks *alloc, VkDevice *out);
VKAPI_ATTR void VKAPI_CALL mock_DestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc);
VKAPI_ATTR void VKAPI_CALL mock_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index, VkQueue *out);
VKAPI_ATTR void VKAPI_CALL mock_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *out);
VKAPI_ATTR VkResult VKAPI_CALL mock_DeviceWaitIdle(VkDevice device);
VKAPI_ATTR VkResult VKAPI_CALL mock_QueueWaitIdle(VkQueue queue);
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *ci,
                                                      const VkAllocationCallbacks *alloc, VkCommandPool *out);
VKAPI_ATTR void VKAPI_CALL mock_DestroyCommandPool(VkDevice device, VkCommandPool pool,
                                                   const VkAllocationCallbacks *alloc);
VKAPI_ATTR VkResult VKAPI_CALL mock_AllocateCommandBuffers(VkDevice device, const VkCommandBufferAllocateInfo *info,
                                                           VkCommandBuffer *out);
VKAPI_ATTR void VKAPI_CALL mock_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                                   const VkCommandBuffer *cbs);
VKAPI_ATTR void VKAPI_CALL mock_CmdFillBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset,
                                              VkDeviceSize size, uint32_t data);
VKAPI_ATTR VkResult VKAPI_CALL mock_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info);
VKAPI_ATTR VkResult VKAPI_CALL mock_EndCommandBuffer(VkCommandBuffer cb);
VKAPI_ATTR VkResult VKAPI_CALL mock_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                                VkFence fence);
VKAPI_ATTR VkResult VKAPI_CALL mock_AllocateMemory(VkDevice device, const VkMemoryAllocateInfo *info,
                                                   const VkAllocationCallbacks *alloc, VkDeviceMemory *out);
VKAPI_ATTR void VKAPI_CALL mock_FreeMemory(VkDevice device, VkDeviceMemory memory, const VkAllocationCallbacks *alloc);
VKAPI_ATTR VkResult VKAPI_CALL mock_MapMemory(VkDevice device, VkDeviceMemory memory, VkDeviceSize offset,
                                              VkDeviceSize size, VkMemoryMapFlags flags, void **data);
VKAPI_ATTR void VKAPI_CALL mock_UnmapMemory(VkDevice device, VkDeviceMemory memory);
void mock_gen_free_objects(void); /* at unload (ctl.c) */
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateImage(VkDevice device, const VkImageCreateInfo *ci,
                                                const VkAllocationCallbacks *alloc, VkImage *out);
VKAPI_ATTR void VKAPI_CALL mock_DestroyImage(VkDevice device, VkImage image, const VkAllocationCallbacks *alloc);
VKAPI_ATTR VkResult VKAPI_CALL mock_CreateBuffer(VkDevice device, const VkBufferCreateInfo *ci,
                                                 const VkAllocationCallbacks *alloc, VkBuffer *out);
VKAPI_ATTR void VKAPI_CALL mock_DestroyBuffer(VkDevice device, VkBuffer buffer, const VkAllocationCallbacks *alloc);
VKAPI_ATTR void VKAPI_CALL mock_GetImageMemoryRequirements(VkDevice device, VkImage image, VkMemoryRequirements *req);
VKAPI_ATTR void VKAPI_CALL mock_GetBufferMemoryRequirements(VkDevice device, VkBuffer buffer,
                                                            VkMemoryRequirements *req);
VKAPI_ATTR void VKAPI_CALL mock_GetImageMemoryRequirements2(VkDevice device, const VkImageMemoryRequirementsInfo2 *info,
                                                            VkMemoryRequirements2 *req);
VKAPI_ATTR void VKAPI_CALL mock_GetBufferMemoryRequirements2(VkDevice device,
                                                             const VkBufferMemoryRequirementsInfo2 *info,
                                                             VkMemoryRequirements2 *req);
VKAPI_ATTR void VKAPI_CALL mock_GetImageSparseMemoryRequirements(VkDevice device, VkImage image, uint32_t *count,
                                                                 VkSparseImageMemoryRequirements *req);

#pragma GCC visibility pop

/* The driver's exported entry points (dispatch.c); which of them a build defines and exports is
 * set by the MOCK_ICD_EXPORT_* macros above. */
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t *pVersion);
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_icdGetInstanceProcAddr(VkInstance instance, const char *name);
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_icd_direct_GetInstanceProcAddr(VkInstance instance,
                                                                                         const char *name);
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_icdGetPhysicalDeviceProcAddr(VkInstance instance,
                                                                                     const char *name);
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name);
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkCreateInstance(const VkInstanceCreateInfo *ci,
                                                            const VkAllocationCallbacks *alloc, VkInstance *out);
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceExtensionProperties(const char *layer, uint32_t *count,
                                                                                  VkExtensionProperties *props);
MOCK_EXPORT VKAPI_ATTR void VKAPI_CALL vkDestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc);
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumeratePhysicalDevices(VkInstance instance, uint32_t *count,
                                                                      VkPhysicalDevice *out);
MOCK_EXPORT VKAPI_ATTR void VKAPI_CALL vkGetPhysicalDeviceProperties(VkPhysicalDevice physicalDevice,
                                                                     VkPhysicalDeviceProperties *p);
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateDeviceExtensionProperties(VkPhysicalDevice physicalDevice,
                                                                                const char *layer, uint32_t *count,
                                                                                VkExtensionProperties *props);
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkCreateDevice(VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo *ci,
                                                          const VkAllocationCallbacks *alloc, VkDevice *out);
MOCK_EXPORT VKAPI_ATTR void VKAPI_CALL vkDestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc);
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name);

#endif /* MOCK_ICD_MOCK_ICD_INTERNAL_H_ */
