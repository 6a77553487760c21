/*
 * Discovery: which manifests, from where, in which order, for every kind of file the loader
 * searches for (drivers, implicit layers, explicit layers, the settings file). One table of kinds
 * (vkl_discovery_kinds), one function (vkl_discover), one XDG base set kept per environment and
 * shared by every kind (discovery.c). [Drv] "Driver Discovery on Linux", "Overriding the Default
 * Driver Discovery", "Additional Driver Discovery"; [Lyr] "Linux Layer Discovery", "Overriding the
 * Default Layer Discovery"; [Set] the settings file's locations.
 *
 * Thread-safety: everything here is thread-safe (the base set has its own lock). Every variable
 * is read through vkl_getenv_id: all of them are secure and read as unset when elevated
 * (LDP_LOADER_13, LLP_LOADER_13; env.h).
 */
#ifndef VKL_INTERNAL_DISCOVERY_H
#define VKL_INTERNAL_DISCOVERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "loader/internal/env.h"
#include "loader/internal/log.h"
#include "loader/internal/search_paths.h"
#include "loader/internal/strlist.h"

#ifdef __cplusplus
extern "C" {
#endif

enum vkl_discovery_kind {
    VKL_DISCOVER_DRIVERS,
    VKL_DISCOVER_IMPLICIT_LAYERS,
    VKL_DISCOVER_EXPLICIT_LAYERS,
    VKL_DISCOVER_SETTINGS,
    VKL_DISCOVER_KIND_COUNT
};

/* One row of the table: what decides a kind's search. A variable that does not exist for a kind
 * has a NULL name (its id is then unused). */
struct vkl_discovery_row {
    /* The override: the first variable set (even empty) replaces the default directories and the
     * add variable; `override_old` (the deprecated name) is consulted only when `override` is
     * unset, and ignored with an INFO line when both are set (rule_old_ignored). */
    const char *override, *override_old;
    enum vkl_env_id override_id, override_old_id;
    /* Searched before the default directories; ignored with an INFO line under an override. */
    const char *add;
    enum vkl_env_id add_id;
    const char *suffix; /* "<base>/<suffix>" is a default search directory */
    const char *file;   /* NULL: every "*.json" of a directory; else the one file name looked for there */
    enum vkl_base_order order;
    uint32_t log_cat;  /* VKL_LOG_DRIVER / VKL_LOG_LAYER / 0 */
    const char *what;  /* the lines' subject: "driver search", "layer search", "settings search" */
    const char *found; /* the Khronos loader's words for a manifest found */
    const char *rule_scan, *rule_old_ignored, *rule_add_ignored;
    const char *empty_override_note; /* NULL: an empty override is not remarked on; else INFO "env <var>: <note>" */
};
extern const struct vkl_discovery_row vkl_discovery_kinds[VKL_DISCOVER_KIND_COUNT];

/* Entries named by something other than a variable (the settings file's additional_drivers, the
 * override layer's override_paths): `count` entries, the i-th path(ctx, i), logged as coming from
 * `from`. */
struct vkl_discovery_source {
    const char *from;
    size_t count;
    const char *(*path)(const void *ctx, size_t i);
    const void *ctx;
};

/* What the settings file and the override layer change about a search (NULL: nothing). */
struct vkl_discovery_opts {
    /* Searched instead of the variables and the default directories, when count > 0 (the override
     * layer's override_paths, explicit layers: RULE_LYR_OVERRIDE). */
    struct vkl_discovery_source replace;
    const char *replace_why; /* INFO "<what>: <override> and <add> ignored because <replace_why>" when set */
    /* Searched first, in order, then the discovered files not already among them (the settings
     * file's additional_drivers; with `only_front` the only ones, nothing else is searched). */
    struct vkl_discovery_source front;
    bool only_front;
    /* The variables are not read, only the default locations searched (the settings file has
     * device_configurations; its caller logs why). */
    bool no_env;
};

/*
 * The files of `kind`, in search order, into *out (replaced; vkl_strlist_finish it):
 *  - manifests (drivers, layers): the override variable's entries when it is set (even empty: then
 *    none, with an INFO line where the row has rule_empty_override); else the add variable's
 *    entries, then every "*.json" regular file of each default directory (sorted by name in a
 *    directory), each file once. An entry ending in ".json" is one file; anything else a directory.
 *    Entries from variables are used as given (relative to the CWD when relative).
 *  - the settings file: the first "<base>/<suffix>/<file>" that exists (at most one path); DEBUG
 *    "settings search: no file <path>" for each location tried before it.
 * Log lines: DEBUG for every directory searched or skipped and every file found or skipped, WARN
 * for a named ".json" entry that cannot be used, INFO for variables ignored (see the row's rules).
 * VK_ERROR_OUT_OF_HOST_MEMORY when out of memory.
 */
VkResult vkl_discover(enum vkl_discovery_kind kind, const struct vkl_discovery_opts *opts,
                      const struct vkl_log_sink *log, struct vkl_strlist *out);

/* The default search directories of `kind` from the process environment, from the shared base set:
 * read-only, valid until vkl_search_dirs_release. NULL only when out of memory. */
const struct vkl_search_dirs *vkl_discovery_dirs_acquire(enum vkl_discovery_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* VKL_INTERNAL_DISCOVERY_H */
