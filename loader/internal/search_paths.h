/*
 * Search-path construction on Linux, the pieces discovery.h's search is built from ([Drv] "Driver Discovery on
 * Linux", "Overriding the Default Driver Discovery", "Additional Driver Discovery"; spec §1.2-1.3).
 *
 * Ownership: lists are caller storage (struct vkl_strlist) that receive owned copies; the caller
 * calls vkl_strlist_finish(). struct vkl_search_env only borrows its strings.
 * Thread-safety: vkl_path_list_split and vkl_search_dirs_build are pure;
 * vkl_search_env_from_process and the searches read the environment (see env.h) and the file
 * system. Defined in discovery.c.
 */
#ifndef VKL_INTERNAL_SEARCH_PATHS_H
#define VKL_INTERNAL_SEARCH_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <vulkan/vulkan.h>

#include "loader/internal/log.h"
#include "loader/internal/strlist.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compile-time system locations (override with -DVKL_SYSCONFDIR="..." /
 * -DVKL_EXTRASYSCONFDIR="..."). VKL_EXTRASYSCONFDIR is undefined by default (as upstream: only set
 * when SYSCONFDIR != /etc). */
#ifndef VKL_SYSCONFDIR
#define VKL_SYSCONFDIR "/etc"
#endif
/* XDG fallbacks used when XDG_CONFIG_DIRS / XDG_DATA_DIRS are unset or empty. */
#define VKL_FALLBACK_CONFIG_DIRS "/etc/xdg"
#define VKL_FALLBACK_DATA_DIRS "/usr/local/share:/usr/share"

/* Relative suffixes appended to every default search directory. */
#define VKL_ICD_SUFFIX "vulkan/icd.d"
#define VKL_IMPLICIT_LAYER_SUFFIX "vulkan/implicit_layer.d"
#define VKL_EXPLICIT_LAYER_SUFFIX "vulkan/explicit_layer.d"
/* The settings file: "<base>/" VKL_SETTINGS_SUFFIX "/" VKL_SETTINGS_FILE_NAME. */
#define VKL_SETTINGS_SUFFIX "vulkan/loader_settings.d"
#define VKL_SETTINGS_FILE_NAME "vk_loader_settings.json"

/* The order of the bases: a permutation of the six places below (vkl_search_dirs_build). */
enum vkl_base_order {
    VKL_BASES_CONFIG_FIRST, /* 1..6 as listed: drivers and layers ([Drv], [Lyr]) */
    VKL_BASES_HOMES_FIRST,  /* 1, 5, 2, 3, 4, 6: the settings file (the Khronos loader's order) */
    VKL_BASE_ORDER_COUNT
};

/* Values of the environment that decide the default search directories. NULL = unset. Borrowed. */
struct vkl_search_env {
    const char *xdg_config_home;
    const char *home;
    const char *xdg_config_dirs;
    const char *xdg_data_home;
    const char *xdg_data_dirs;
    const char *sysconfdir;      /* NULL or "" = skipped */
    const char *extrasysconfdir; /* NULL or "" = skipped */
};

/* Splits a ':'-style list (`len` bytes, need not be NUL-terminated) on `sep`, appending each
 * non-empty entry to `out` in order (duplicates kept; empty entries dropped). On failure the
 * entries appended by this call are removed again. */
VkResult vkl_path_list_split(const char *value, size_t len, char sep, struct vkl_strlist *out);

/*
 * Appends the default search directories, each "<base>/<suffix>", in the documented order,
 * skipping duplicates (exact string compare after removing trailing '/' from the base):
 *   1. $XDG_CONFIG_HOME, or $HOME/.config when XDG_CONFIG_HOME is unset or empty
 *   2. each $XDG_CONFIG_DIRS entry (VKL_FALLBACK_CONFIG_DIRS when unset or empty)
 *   3. sysconfdir   4. extrasysconfdir (when non-NULL and non-empty)
 *   5. $XDG_DATA_HOME, or $HOME/.local/share when XDG_DATA_HOME is unset or empty
 *   6. each $XDG_DATA_DIRS entry (VKL_FALLBACK_DATA_DIRS when unset or empty)
 * When neither the XDG home variable nor a non-empty HOME is available, 1/5 are skipped.
 * Pure function.
 */
VkResult vkl_search_dirs_build(const struct vkl_search_env *env, const char *suffix, struct vkl_strlist *out);
/* The same in another base order. */
VkResult vkl_search_dirs_build_order(const struct vkl_search_env *env, enum vkl_base_order order, const char *suffix,
                                     struct vkl_strlist *out);

/* The default search directories for `suffix` (one of the VKL_*_SUFFIX literals) from the process
 * environment: vkl_search_env_from_process + vkl_search_dirs_build, built once and shared while the
 * five environment values it came from are unchanged (compared on every call, so a changed
 * variable is never served a stale list). NULL only when out of memory. The list is read-only and
 * stays valid until vkl_search_dirs_release. Thread-safe. */
struct vkl_search_dirs {
    struct vkl_strlist dirs;
};
const struct vkl_search_dirs *vkl_search_dirs_acquire(const char *suffix);
void vkl_search_dirs_release(const struct vkl_search_dirs *dirs);

/* Memory: what is kept per environment is the directories' bases, once for every suffix and base
 * order (the variable values copied once, 8 bytes per base and order); the list for a suffix is
 * kept only while it is small (a few KiB), else written for each acquire and freed at its release.
 * The default locations of each kind are searched through the same set (discovery.h). */

/* Fills *out from the process environment through vkl_getenv (so all five read as NULL when
 * elevated) and from VKL_SYSCONFDIR / VKL_EXTRASYSCONFDIR. The strings are borrowed from the
 * environment (see env.h). Always VK_SUCCESS. */
VkResult vkl_search_env_from_process(struct vkl_search_env *out);

/*
 * Appends to `out` every manifest file found in `entry`: an entry ending in ".json" is one file
 * (appended if it exists; otherwise skipped with a WARN|DRIVER line when `from_env` names the
 * variable it came from, silently when from_env is NULL); anything else is a directory whose
 * entries whose names end in ".json" (case-sensitive) and that are regular files are appended,
 * SORTED by name (strcmp) — [Drv] leaves the order unspecified (readdir order); sorting makes runs
 * reproducible. A missing or unreadable directory is skipped silently (a DEBUG|DRIVER line only
 * when from_env is non-NULL).
 * Files already in `out` are not added twice. Each file added logs DEBUG|DRIVER
 * "driver search: found manifest <path>".
 */
VkResult vkl_manifest_search_entry(const struct vkl_log_sink *log, const char *entry, const char *from_env,
                                   struct vkl_strlist *out);
/* The same for layer manifests: its lines use the LAYER category and say "layer search"
 * (RULE_LYR_SEARCH_ORDER). */
VkResult vkl_layer_manifest_search_entry(const struct vkl_log_sink *log, const char *entry, const char *from_env,
                                         struct vkl_strlist *out);

#ifdef __cplusplus
}
#endif

#endif /* VKL_INTERNAL_SEARCH_PATHS_H */
