/*
 * Layers: manifest parsing (manifest_layer.c), discovery, the parse cache, activation and
 * negotiation (layer.c). [Lyr] LoaderLayerInterface.md; spec §1.2-1.4, §4, §5.5, §5.6.
 *
 * Ownership:
 *  - vkl_layer_manifest_parse fills caller storage (`struct vkl_layer_manifest_file`); every string
 *    and array inside is malloc'd and owned by it, released by vkl_layer_manifest_file_finish.
 *  - Parsed manifests live in a process-wide cache (layer.c), like the driver cache: they outlive
 *    instances, so they are malloc'd. A `struct vkl_layer_set` holds a reference on every cache
 *    entry it points into; vkl_layers_release drops them. The arrays of a set are malloc'd.
 *  - `struct vkl_layer_lib` (a loaded, negotiated library) belongs to the instance that loaded it.
 * Thread-safety: the parser is reentrant; the cache is guarded by a process-wide mutex in layer.c;
 * a set is read-only once built and may be read from several threads.
 */
#ifndef VKL_INTERNAL_LAYER_H
#define VKL_INTERNAL_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "loader/internal/filter.h"
#include "loader/internal/log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Newest layer manifest file format the documents define ([Lyr] version history). */
#define VKL_LAYER_MANIFEST_NEWEST_VERSION VK_MAKE_API_VERSION(0, 1, 2, 1)
/* Meta-layers may nest; deeper nesting (or a cycle) invalidates the outermost meta-layer. */
#define VKL_LAYER_MAX_META_DEPTH 16
/* Highest loader/layer interface version this loader offers. */
#define VKL_LOADER_LAYER_INTERFACE_VERSION 2u

enum vkl_layer_pre_instance_fn {
    VKL_PRE_ENUM_INSTANCE_EXTENSIONS,
    VKL_PRE_ENUM_INSTANCE_LAYERS,
    VKL_PRE_ENUM_INSTANCE_VERSION,
    VKL_PRE_INSTANCE_FN_COUNT,
};

struct vkl_layer_extension {
    VkExtensionProperties props;
    char **entrypoints; /* device extensions only */
    uint32_t entrypoint_count;
};

/* One layer described by a manifest (a file may describe several). */
struct vkl_layer_manifest {
    char *manifest_path;          /* file the layer came from */
    uint32_t file_format_version; /* VK_MAKE_API_VERSION(0, maj, min, patch) */
    bool is_implicit;             /* from an implicit search location */
    VkLayerProperties props;      /* layerName, specVersion (api_version), implementationVersion, description */
    char *library_path;           /* resolved like driver library paths; NULL for a meta-layer */
    bool is_meta;                 /* has component_layers */
    int library_arch;             /* 0 absent, 32 or 64 */
    /* `functions` renames (NULL = the standard name) */
    char *fn_get_instance_proc_addr;
    char *fn_get_device_proc_addr;
    char *fn_negotiate; /* honoured from file format 1.1.0 */
    struct vkl_layer_extension *instance_extensions;
    uint32_t instance_extension_count;
    struct vkl_layer_extension *device_extensions;
    uint32_t device_extension_count;
    char *enable_env, *enable_env_value;   /* first member of enable_environment, or NULL */
    char *disable_env, *disable_env_value; /* first member of disable_environment, or NULL */
    char **component_layers;
    uint32_t component_layer_count;
    char **override_paths;
    uint32_t override_path_count;
    char **blacklisted_layers;
    uint32_t blacklisted_layer_count;
    char **app_keys;
    uint32_t app_key_count;
    char *pre_instance[VKL_PRE_INSTANCE_FN_COUNT]; /* exported symbol names (implicit, >= 1.1.2) */
};

struct vkl_layer_manifest_file {
    struct vkl_layer_manifest *layers;
    uint32_t count;
};

/*
 * Parses one layer manifest: `len` bytes at `buf` read from `manifest_path` (used for messages
 * and relative library_path resolution). `implicit` says which search location it came from.
 * Results:
 *  VK_SUCCESS                     *out holds every accepted layer (possibly none: each rejected
 *                                 layer was logged and skipped, the others kept).
 *  VK_ERROR_INITIALIZATION_FAILED the whole file is unusable (not JSON, root not an object,
 *                                 file_format_version missing, neither `layer` nor `layers`, several
 *                                 sibling `layer` keys at >= 1.0.1) [LLP_LAYER_6].
 *  VK_ERROR_OUT_OF_HOST_MEMORY.
 * Every rejection logs exactly one line naming the file, the field and the rule, e.g.
 *  "layer manifest /x/y.json: layer VK_LAYER_a: field 'disable_environment' is missing; implicit
 *   layer skipped [LLP_LAYER_9]".
 * Per-layer rejections: name/type/api_version/implementation_version/description missing or of
 * the wrong type, name or description too long [LLP_LAYER_6]; type "DEVICE" or unknown
 * [LLP_LAYER_6]; api_version variant != 0 [LLP_LOADER_4]; both or neither of library_path and
 * component_layers [RULE_LYR_MANIFEST_V1_1_1]; implicit without a usable disable_environment
 * [LLP_LAYER_9]; library_arch of the other word size [RULE_LYR_MANIFEST_V1_2_1].
 * Accepted with a WARN: a name not starting with "VK_LAYER_" [LLP_LAYER_3]; fields newer than the
 * file's version (used anyway, except the negotiate rename before 1.1.0 and pre_instance_functions
 * before 1.1.2 or on explicit layers, which are ignored); unknown file versions (INFO).
 */
VkResult vkl_layer_manifest_parse(const char *manifest_path, const char *buf, size_t len, bool implicit,
                                  const struct vkl_log_sink *log, struct vkl_layer_manifest_file *out);
void vkl_layer_manifest_file_finish(struct vkl_layer_manifest_file *file);
/* Frees what one layer owns (used by the parser on rejection and by the finish function). */
void vkl_layer_manifest_finish(struct vkl_layer_manifest *layer);

/* ------------------------------------------------------------------ layer.c: discovery */

/* The layers visible to one call, after discovery, parsing (cached), dedupe, filters, the override
 * layer's blacklist and meta-layer validation. Implicit layers first, each group in discovery
 * order. */
struct vkl_settings;

struct vkl_layer_set {
    const struct vkl_layer_manifest **layers;
    uint32_t count;
    void **refs; /* cache entries held */
    uint32_t ref_count;
    /* the active override meta-layer (also in `layers`), or NULL */
    const struct vkl_layer_manifest *override_layer;
    /* filters in force (parsed once per acquire) */
    struct vkl_filter enable, disable, allow;
    /* the settings file in force for this acquisition (settings.c; NULL: none), looked up once */
    const struct vkl_settings *settings;
};

VkResult vkl_layers_acquire(const struct vkl_log_sink *log, struct vkl_layer_set *out);
/* The same, for callers that only use the enabled implicit layers (pre-instance calls): explicit
 * manifests are not scanned unless an implicit meta-layer may name one as a component. */
VkResult vkl_layers_acquire_implicit(const struct vkl_log_sink *log, struct vkl_layer_set *out);
void vkl_layers_release(struct vkl_layer_set *set);
const struct vkl_layer_manifest *vkl_layer_set_find(const struct vkl_layer_set *set, const char *name);

/* The implicit layer's own decision ([Lyr] "Implicit Layers", LLP_LOADER_6/7). */
bool vkl_layer_implicit_enabled(const struct vkl_layer_set *set, const struct vkl_layer_manifest *l,
                                const struct vkl_log_sink *log);

/* The ordered, de-duplicated list of non-meta layers to activate for vkCreateInstance
 * (RULE_LYR_ORDER, LLP_LOADER_3, LLP_LOADER_11): implicit (the override layer's expansion last),
 * VK_INSTANCE_LAYERS (ignored when elevated), VK_LOADER_LAYERS_ENABLE matches, then `app_names`.
 * An implicit layer VK_INSTANCE_LAYERS names (exact name) is not in the implicit group but where
 * the variable puts it, enabled whatever its own enable/disable variables say
 * (RULE_LYR_ENV_INSTANCE_LAYERS_IMPLICIT); the override layer and its components stay last of the
 * implicit group. Meta-layers are expanded in place. VK_ERROR_LAYER_NOT_PRESENT when an
 * application layer is not available. *out is a malloc'd array of borrowed pointers (free()). */
VkResult vkl_layers_activate(const struct vkl_layer_set *set, const char *const *app_names, uint32_t app_count,
                             const struct vkl_log_sink *log, const struct vkl_layer_manifest ***out,
                             uint32_t *out_count);

/* vkl_layers_activate, and in *shown (malloc'd, free()) the activated layers as an application sees
 * them: the same list with each expanded meta-layer right after the components that completed it
 * (what vkEnumerateDeviceLayerProperties answers). */
VkResult vkl_layers_activate_shown(const struct vkl_layer_set *set, const char *const *app_names, uint32_t app_count,
                                   const struct vkl_log_sink *log, const struct vkl_layer_manifest ***out,
                                   uint32_t *out_count, const struct vkl_layer_manifest ***shown,
                                   uint32_t *shown_count);

/* Only the implicit part of vkl_layers_activate (enabled implicit layers in discovery order, the
 * override layer's expansion last): the layers of the pre-instance chains and whose instance
 * extensions vkEnumerateInstanceExtensionProperties(NULL) adds. *out: malloc'd (free()). */
VkResult vkl_layers_activate_implicit(const struct vkl_layer_set *set, const struct vkl_log_sink *log,
                                      const struct vkl_layer_manifest ***out, uint32_t *out_count);

/* Extensions a layer (a meta-layer: the union of its components') provides. Malloc'd array. */
VkResult vkl_layer_extensions(const struct vkl_layer_set *set, const struct vkl_layer_manifest *l, bool device,
                              VkExtensionProperties **out, uint32_t *out_count);

/* ------------------------------------------------------------------ layer.c: libraries */

typedef PFN_vkVoidFunction (*vkl_sym_lookup_fn)(void *ctx, const char *name);

struct vkl_layer_lib {
    const struct vkl_layer_manifest *manifest;
    void *lib; /* dlopen handle; NULL when negotiated through a lookup function in tests */
    uint32_t interface_version;
    PFN_vkGetInstanceProcAddr gipa;
    PFN_vkGetDeviceProcAddr gdpa;
    PFN_GetPhysicalDeviceProcAddr gpdpa;
    /* The VkInstance this layer returned from vkCreateInstance (its wrapper, or what the layers below
     * returned), which its vkGetInstanceProcAddr / GPDPA are asked with (layer_chain.c); NULL: not
     * seen (the loader then uses the nearest level below it that it saw). */
    VkInstance instance_handle;
};

/*
 * Loader side of the layer interface negotiation ([Lyr] "Layer Version Negotiation"), with symbols
 * found through `lookup`. Fills *out; false when the layer must not be loaded (LLP_LOADER_5):
 * the negotiate function failed, chose a version above 2 or below 0, or no vkGetInstanceProcAddr
 * can be found. (The Khronos loader still loads a layer whose negotiation failed when it exports
 * vkGetInstanceProcAddr; see conformance/deviations.)
 */
bool vkl_layer_negotiate(const struct vkl_layer_manifest *m, vkl_sym_lookup_fn lookup, void *ctx,
                         const struct vkl_log_sink *log, struct vkl_layer_lib *out);
/* dlopen + negotiate. VK_ERROR_LAYER_NOT_PRESENT when the library cannot be used. `requested`: the
 * application named the layer in ppEnabledLayerNames (a library that cannot be opened is then an
 * ERROR line, otherwise INFO: the layer is only skipped). */
VkResult vkl_layer_lib_load(const struct vkl_layer_manifest *m, bool requested, const struct vkl_log_sink *log,
                            struct vkl_layer_lib *out);
void vkl_layer_lib_unload(struct vkl_layer_lib *lib);

/*
 * The pre-instance function `fn` of layer `l` of `set` ([Lyr] "Pre-Instance Functions",
 * RULE_LYR_PRE_INSTANCE): the symbol the manifest's pre_instance_functions names, from the layer's
 * library, which is dlopen'ed at the first such call and kept with the manifest's cache entry
 * (closed when the entry is freed, unless VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING=1). NULL
 * (logged) when the manifest names none, the library cannot be loaded or lacks the symbol. The
 * pointer stays valid while `set` is held. Thread-safe.
 */
PFN_vkVoidFunction vkl_layer_pre_instance_proc(const struct vkl_layer_set *set, const struct vkl_layer_manifest *l,
                                               enum vkl_layer_pre_instance_fn fn, const struct vkl_log_sink *log);

/* TEST ONLY: drop every cache entry nobody holds. */
void vkl_layers_cache_flush_for_testing(void);
/* TEST ONLY: number of manifest parses done since start (to prove the cache works). */
uint32_t vkl_layers_parse_count_for_testing(void);

#ifdef __cplusplus
}
#endif
#endif /* VKL_INTERNAL_LAYER_H */
