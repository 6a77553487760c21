/* The parts of vkprobe (vkprobe.c and its vkprobe_*.c files) shared between its files: the probe's
 * state, the JSON writer, the capture callbacks and the steps the step table names. Internal to
 * //conformance/framework:vkprobe. */
#ifndef VKT_FRAMEWORK_VKPROBE_INTERNAL_H_
#define VKT_FRAMEWORK_VKPROBE_INTERNAL_H_

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Surface create-info types only: the WSI steps pass fake handles that no mock dereferences. */
#define VK_USE_PLATFORM_XCB_KHR
#define VK_USE_PLATFORM_XLIB_KHR
#define VK_USE_PLATFORM_WAYLAND_KHR
#include <vulkan/vulkan.h>

#include "loader/vkl_gen_results.h"

#define MAX_PHYSDEVS 64
#define MAX_DRIVER_LIBS 16
#define MAX_LIST 128 /* names in one ext= or layers= list (layers_test enables 71 layers) */

/* ---- State (vkprobe.c) ---- */

extern void *g_loader;
extern PFN_vkGetInstanceProcAddr g_gipa;
extern VkInstance g_instance;
extern const VkAllocationCallbacks *g_allocator;
extern VkPhysicalDevice g_physdevs[MAX_PHYSDEVS];
extern uint32_t g_physdev_count;
extern bool g_physdevs_known;
extern VkDevice g_device;
extern int g_device_index;
extern const char *g_driver_libs[MAX_DRIVER_LIBS];
extern int g_driver_lib_count;

PFN_vkVoidFunction iproc(const char *name);

#define IPROC(type, name) ((type)iproc(name))
/* Declares `PFN_<cmd> var`: vkGetInstanceProcAddr(instance, "<cmd>") (NULL when the loader has none). */
#define GIPA_VAR(var, cmd, instance) PFN_##cmd var = (PFN_##cmd)g_gipa(instance, #cmd)
/* GIPA_VAR with the probe's instance. */
#define IPROC_VAR(var, cmd) GIPA_VAR(var, cmd, g_instance)

/* iproc(name), else iproc(alias) (the extension's name for a promoted command); `which` = the name
 * asked last. */
PFN_vkVoidFunction iproc_or_alias(const char *name, const char *alias, const char **which);
/* Splits `s` (modified in place) on `sep`; returns the number of pieces (empty ones dropped). */
int split(char *s, char sep, char **out, int max);
bool parse_uint(const char *s, unsigned long *out);
/* "1.1", "1.3.0", "0.1.2.3" (variant.major.minor.patch) or a plain integer ("0"). */
bool parse_api(const char *s, uint32_t *out);
const char *device_type_name(VkPhysicalDeviceType t);

/* ---- JSON output (vkprobe_json.c) ---- */

extern bool g_first_field;
void put_json_string(const char *s);
void put_json_name(const char *s, size_t max); /* a fixed-size name array: never read past max */
void kv_name(const char *key, const char *value, size_t max);
void put_key(const char *key);
void obj_begin(const char *step);
void obj_end(void);
void kv_str(const char *key, const char *value);
void kv_int(const char *key, long long value);
void kv_bool(const char *key, bool value);
void kv_result(const char *key, VkResult r);
/* What a vkCreate* call gave: RESULT_KEY, its VkResult, and HANDLE_KEY, whether the handle is set. */
void kv_created(const char *result_key, VkResult r, const char *handle_key, bool handle);
void kv_version(const char *key, uint32_t v);
/* Ends the current step's line with "error":MSG. */
void end_error(const char *msg);
/* end_error(MSG) unless `ok`; returns `ok`. */
bool need(bool ok, const char *msg);
void emit_error(const char *step, const char *msg);
/* Prints "extensions":[...] for an array of VkExtensionProperties. */
void kv_extensions(const char *key, const VkExtensionProperties *e, uint32_t n);
/* "result", "count" and "layers" for the second call of a vkEnumerate*LayerProperties pair. */
void kv_layers(VkResult r, const VkLayerProperties *props, uint32_t got, bool versions);
/* "object", "in_loader", "in_driver": where a function pointer lives. */
void kv_pointer_origin(PFN_vkVoidFunction fn);

/* ---- Captured debug messages and allocations (vkprobe_capture.c) ---- */

extern bool g_in_create;
VKAPI_ATTR VkBool32 VKAPI_CALL utils_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                              VkDebugUtilsMessageTypeFlagsEXT types,
                                              const VkDebugUtilsMessengerCallbackDataEXT *data, void *user);
VKAPI_ATTR VkBool32 VKAPI_CALL report_callback(VkDebugReportFlagsEXT flags, VkDebugReportObjectTypeEXT type,
                                               uint64_t object, size_t location, int32_t code, const char *layer_prefix,
                                               const char *message, void *user);
extern bool g_alloc_used;
extern uint64_t g_alloc_fail_at;
extern const VkAllocationCallbacks g_counting_callbacks;
void emit_messages(void);
void emit_alloc_stats(void);

/* ---- Instance and device steps (vkprobe_instance.c) ---- */

void step_version(void);
void step_instance_extensions(const char *layer);
void step_instance_layers(void);
void step_direct(char *arg);
void step_create_instance(char *opts);
bool need_instance(const char *step);
void step_devices(void);
bool physdev_arg(const char *step, const char *arg, uint32_t *index);
void step_device_extensions(char *arg);
void step_device_layers(char *arg);
void step_groups(const char *arg);
void step_properties2(const char *arg);
void step_external_queries(const char *arg);
void step_queue_families(const char *arg);
void step_create_device(char *arg);
void step_threads_devices(char *arg); /* vkprobe_threads.c */
PFN_vkGetDeviceProcAddr loader_gdpa(void);
void step_gipa(const char *name, bool force_null);
void step_messenger(void);
void step_destroy_device(void);
void step_destroy_instance(void);

/* ---- Dispatch steps (vkprobe_dispatch.c) ---- */

void step_robust(const char *which);
void step_bad_handle(const char *arg);
void step_mock_scenario(const char *arg);
void step_gdpa(const char *name);
void step_call_unknown(char *arg, bool device);
void step_unknown_many(char *arg);
void step_resolve_unknown(char *arg);
void step_call_resolved(char *arg);
void step_dispatch_words(void);
void step_command_buffers(const char *arg);

/* ---- File and environment steps (vkprobe_files.c) ---- */

void step_write_file(const char *arg);
void step_replace_file(const char *arg);
void step_change_file(const char *arg);
void step_remove_file(const char *arg);
void step_setenv_repeat(const char *arg);
void step_env_dump(void);

/* ---- WSI steps (vkprobe_wsi.c) ---- */

void step_create_surface(const char *arg);
void step_surface_queries(const char *arg);
void step_create_swapchain(void);
void step_null_count(const char *cmd);
void step_destroy_surface(void);
void step_display_queries(const char *arg);
void step_tool_properties(char *arg);
void step_object_names(void);
void step_surface_caps2ext(const char *arg);
void step_surface_formats2(const char *arg);
void step_surface_caps2(char *arg);
void step_xlib_display(const char *arg);

#endif /* VKT_FRAMEWORK_VKPROBE_INTERNAL_H_ */
