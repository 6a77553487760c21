/*
 * The loader settings file, vk_loader_settings.json ([Set] LoaderSettingsFile.md; spec §7.10,
 * docs/settings.md): written by the Vulkan Configurator to choose layers and their order, add
 * drivers, pin physical devices by UUID and turn on stderr logging without environment variables.
 *
 * Two halves:
 *  - vkl_settings_parse: a pure parser on a buffer (like the manifest parsers; cJSON stays in
 *    json.c). Fills caller storage; vkl_settings_finish frees it.
 *  - vkl_settings_acquire / vkl_settings_release: the search of the documented locations (first
 *    existing file wins; user locations ignored when elevated), re-done on every call, and a
 *    process-wide, reference-counted cache of the parsed file keyed by path and file identity (the
 *    file is re-read whenever it changed). The loader calls acquire at every global call (through
 *    driver and layer discovery) and looks the file up once per vkCreateInstance
 *    (vkl_settings_scope_begin / _end); acquire also applies `stderr_log`.
 *
 * Thread-safety: the parser is reentrant; acquire/release are thread-safe (one mutex); a
 * snapshot returned by acquire is read-only and stays valid until released.
 */
#ifndef VKL_INTERNAL_SETTINGS_H
#define VKL_INTERNAL_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "loader/internal/log.h"
#include "loader/internal/search_paths.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest settings file read. */
#define VKL_SETTINGS_MAX_SIZE (4u * 1024u * 1024u)

enum vkl_settings_layer_control {
    VKL_SETTINGS_LAYER_AUTO = 0,  /* normal rules: implicit rules, env vars, application request */
    VKL_SETTINGS_LAYER_ON,        /* always enabled */
    VKL_SETTINGS_LAYER_OFF,       /* hidden; requesting it fails with VK_ERROR_LAYER_NOT_PRESENT */
    VKL_SETTINGS_LAYER_UNORDERED, /* marker: where layers found by the normal search go */
};

struct vkl_settings_layer {
    enum vkl_settings_layer_control control;
    char *name; /* NULL for the unordered_layer_location marker */
    char *path; /* the layer manifest (NULL for the marker) */
    bool treat_as_implicit_manifest;
};

struct vkl_settings_driver {
    char *path; /* a driver manifest */
};

struct vkl_settings_device {
    uint8_t device_uuid[VK_UUID_SIZE];
    uint8_t driver_uuid[VK_UUID_SIZE];
    uint32_t driver_version;
    char *device_name; /* optional, NULL when absent (for messages only) */
    char *driver_name; /* optional, NULL when absent */
};

struct vkl_settings {
    char *file_path;     /* copy of the path given to the parser */
    int selected_index;  /* index into settings_array of the object used; 0 for `settings`;
                            -1 when no object applies to this executable */
    uint32_t stderr_log; /* VKL_LOG_* mask, 0 = not set */
    bool has_layers;     /* `layers` present and valid (even []) */
    struct vkl_settings_layer *layers;
    uint32_t layer_count;
    bool additional_drivers_use_exclusively;
    struct vkl_settings_driver *drivers; /* additional_drivers (valid section only) */
    uint32_t driver_count;
    bool has_device_configurations;      /* `device_configurations` present (an array) */
    struct vkl_settings_device *devices; /* the well-formed entries, file order */
    uint32_t device_count;
    /* [Set]: the file takes effect when any of: stderr_log set, layers present, at least one
     * additional driver, device_configurations present. */
    bool active;
};

/*
 * Parses one settings file: `len` bytes at `buf` (need not be NUL-terminated) read from
 * `path_for_messages` (named in every message; not opened). A relative `path` of a `layers` or
 * `additional_drivers` entry is made relative to the directory of `path_for_messages` (the
 * settings file's own directory; docs/settings.md), so the snapshot holds the path to open; an
 * absolute one is kept as written. `exe_path` is the executable's path
 * (/proc/self/exe) compared EXACTLY with `app_keys` entries (NULL: no object with app_keys
 * matches).
 * Results:
 *  VK_SUCCESS                     *out filled (maybe inactive: no object for this executable, or
 *                                 nothing in it that takes effect).
 *  VK_ERROR_INITIALIZATION_FAILED the file is unusable: not JSON, root not an object,
 *                                 `file_format_version` missing or not a string, neither
 *                                 `settings` (object) nor `settings_array` (array), a string
 *                                 holding an embedded NUL (\u0000) anywhere.
 *  VK_ERROR_OUT_OF_HOST_MEMORY.
 * Every rejection, of the file or of a part of it, logs exactly one WARN (ERROR for not-JSON) line
 * naming the file and the key (with the array index), ending in [RULE_SETTINGS_FILE], e.g.
 *   "settings file /x/vk_loader_settings.json: layers[2]: field 'path' is missing; the whole
 *    'layers' section is ignored [RULE_SETTINGS_FILE]".
 * Parts rejected (the rest of the file is used):
 *  - `layers`: one malformed entry (not an object, control missing or not a string, name/path
 *    missing, empty or not a string, treat_as_implicit_manifest not a bool) discards the whole
 *    section (has_layers = false). An unknown control value means "auto" (one WARN line, not a
 *    rejection).
 *  - `additional_drivers`: not an array, or one entry not an object with a non-empty string
 *    `path`, discards all of them. `additional_drivers_use_exclusively` not a bool: ignored.
 *  - `device_configurations`: not an array => ignored; each malformed entry (not an object,
 *    deviceUUID/driverUUID not 16 integers 0..255, driverVersion not an integer 0..UINT32_MAX,
 *    deviceName/driverName not a string) is skipped on its own.
 *  - `stderr_log` / `log_locations` not arrays, `app_keys` not an array of strings: ignored
 *    (`app_keys` malformed: that object is never selected). Unknown stderr_log words are ignored.
 * `log` may be NULL (stderr only). On failure *out is zeroed.
 */
VkResult vkl_settings_parse(const char *path_for_messages, const char *buf, size_t len, const char *exe_path,
                            const struct vkl_log_sink *log, struct vkl_settings *out);

/* Frees what *s owns and zeroes it (NULL fine; twice fine). */
void vkl_settings_finish(struct vkl_settings *s);

/*
 * The candidate settings-file paths, in search order, each
 * "<base>/vulkan/loader_settings.d/vk_loader_settings.json" (pure; duplicates dropped):
 *   $XDG_CONFIG_HOME (or $HOME/.config), $XDG_DATA_HOME (or $HOME/.local/share) — the user
 *   locations, absent when the environment reads as elevated (vkl_getenv returns NULL for them);
 *   every $XDG_CONFIG_DIRS entry (fallback /etc/xdg), sysconfdir, extrasysconfdir, every
 *   $XDG_DATA_DIRS entry (fallback /usr/local/share:/usr/share).
 * Every entry of the *_DIRS lists is searched (the Khronos loader can only ever match the first
 * one: spec §7.10 / Appendix A 15).
 */
VkResult vkl_settings_candidates(const struct vkl_search_env *env, struct vkl_strlist *out);

/* The snapshot in force for this call: NULL when no settings file exists, it is unusable, or it
 * is not active for this executable (then also stderr_log is cleared). Logs at INFO which file is
 * used (once per new file version) and at DEBUG every location tried. Also sets the log level
 * override from stderr_log (vkl_log_set_settings_level). Never fails: out of memory = NULL. */
const struct vkl_settings *vkl_settings_acquire(const struct vkl_log_sink *log);
void vkl_settings_release(const struct vkl_settings *s);

/* One look-up per call: vkCreateInstance runs the layer discovery, the driver discovery and the
 * instance's own acquire inside a scope, so the settings file is searched and checked once per
 * call and every part of the call sees the same snapshot. Between scope_begin and scope_end, every
 * vkl_settings_acquire on this thread returns (a new reference to) the scope's snapshot without a
 * search. scope_begin returns a reference for the caller (released with vkl_settings_release, like
 * acquire's); scope_end drops the scope's own. Scopes nest (a layer calling a global function from
 * its vkCreateInstance sees the outer call's snapshot); every begin needs its end on the same
 * thread. A settings scope is also an environment scope (env.h vkl_env_scope_begin): the call reads
 * each secure variable once. Every global call runs in one (instance.c pre_call_begin). */
const struct vkl_settings *vkl_settings_scope_begin(const struct vkl_log_sink *log);

/* Logs "Using layer configurations found in loader settings from <path>" (INFO) for the snapshot
 * `s` (nothing when NULL): vkCreateInstance calls it for every instance the file governs. The
 * search logs the same line when it parses a new version of the file; inside the scope that did,
 * this adds no second line. */
void vkl_settings_log_use(const struct vkl_settings *s, const struct vkl_log_sink *log);
void vkl_settings_scope_end(void);

/* Whether the `layers` list of `s` has an "on" entry named `name` (NULL / no layers: false). Such a
 * layer is active in every instance, so it is also in the pre-instance chains. */
bool vkl_settings_layer_on(const struct vkl_settings *s, const char *name);

/* The loader never needs the driver environment variables (VK_DRIVER_FILES, VK_ICD_FILENAMES,
 * VK_ADD_DRIVER_FILES, VK_LOADER_DRIVERS_SELECT/DISABLE) when this returns false: an active file
 * with device_configurations takes over driver selection ([Set]). NULL => true. */
bool vkl_settings_use_driver_env(const struct vkl_settings *s);

/* The driver manifests for this call ([Set] additional_drivers, spec §1.3, §7.10): the
 * additional_drivers paths (each a manifest file, or a directory searched like VK_DRIVER_FILES
 * entries; a missing one is logged) first, in file order, then — unless
 * additional_drivers_use_exclusively — the discovered ones: vkl_discover(VKL_DISCOVER_DRIVERS) when
 * vkl_settings_use_driver_env(s), else only the default directories. `s` may be NULL. */
VkResult vkl_settings_driver_files(const struct vkl_settings *s, const struct vkl_log_sink *log,
                                   struct vkl_strlist *out);

/* Maps one stderr_log / VK_LOADER_DEBUG-style word to VKL_LOG_* bits (0 unknown). Pure. */
uint32_t vkl_settings_log_word(const char *word);

/* TEST ONLY: forget the cached file (the next acquire reads it again). */
void vkl_settings_cache_flush_for_testing(void);

#ifdef __cplusplus
}
#endif

#endif /* VKL_INTERNAL_SETTINGS_H */
