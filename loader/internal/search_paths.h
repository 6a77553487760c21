/*
 * Search-path construction and driver-manifest discovery on Linux ([Drv] "Driver Discovery on
 * Linux", "Overriding the Default Driver Discovery", "Additional Driver Discovery"; spec §1.2-1.3).
 *
 * Ownership: lists are caller storage (struct vkl_strlist) that receive owned copies; the caller
 * calls vkl_strlist_finish(). struct vkl_search_env only borrows its strings.
 * Thread-safety: vkl_path_list_split and vkl_search_dirs_build are pure;
 * vkl_search_env_from_process and vkl_driver_manifest_files read the environment (see env.h) and
 * the file system.
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

/* Memory: what is kept per environment is the directories' bases, once for every suffix (the
 * variable values copied once, 8 bytes per base); the list for a suffix is kept only while it is
 * small (a few KiB), else written for each acquire and freed at its release. */

/* Searches every default search directory for `suffix`, in vkl_search_dirs_acquire's order, with
 * vkl_layer_manifest_search_entry (layers) or vkl_manifest_search_entry (!layers), from_env NULL:
 * the same as acquire + that loop + release, but a list too long to keep is never written: each
 * "<base>/<suffix>" is written into one reused buffer as it is searched (a long XDG_DATA_DIRS
 * costs no list per search). VK_ERROR_OUT_OF_HOST_MEMORY when out of memory, else the first
 * failing search's result. Thread-safe. */
VkResult vkl_search_dirs_scan(const struct vkl_log_sink *log, const char *suffix, bool layers, struct vkl_strlist *out);

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

/*
 * The driver-manifest files, in search order (spec §1.2, §1.3):
 *  - VK_DRIVER_FILES set (even empty) => exactly its entries; else VK_ICD_FILENAMES (deprecated,
 *    consulted only when VK_DRIVER_FILES is unset; ignored with an INFO|DRIVER line when both are
 * set). An empty-but-set override is an active override with no entries: no driver manifests at all
 *    (Khronos behaviour; the documents are silent) — logged at INFO|DRIVER.
 *  - otherwise VK_ADD_DRIVER_FILES entries first, then the default directories with "vulkan/icd.d".
 *    VK_ADD_DRIVER_FILES is ignored, with an INFO|DRIVER line, when an override is set.
 * Entries from the variables are used as given (no suffix; relative to the CWD when relative).
 * All variables are secure: when elevated they read as unset (env.h, LDP_LOADER_13).
 */
VkResult vkl_driver_manifest_files(const struct vkl_log_sink *log, struct vkl_strlist *out_files);

#ifdef __cplusplus
}
#endif

#endif /* VKL_INTERNAL_SEARCH_PATHS_H */
