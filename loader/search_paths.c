/*
 * Search directories and driver-manifest discovery (see loader/internal/search_paths.h).
 */
#include "loader/internal/search_paths.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/env.h"
#include "loader/internal/fileio.h"

VkResult vkl_path_list_split(const char *value, size_t len, char sep, struct vkl_strlist *out) {
    size_t before = out->count;
    size_t start = 0;
    if (value == NULL) return VK_SUCCESS;
    while (start < len) {
        size_t end = start;
        while (end < len && value[end] != sep) end++;
        if (end > start) { /* empty entries ("a::b", leading/trailing ':') are dropped */
            VkResult r = vkl_strlist_append_n(out, value + start, end - start);
            if (r != VK_SUCCESS) {
                vkl_strlist_truncate(out, before);
                return r;
            }
        }
        start = end + 1;
    }
    return VK_SUCCESS;
}

static bool non_empty(const char *s) { return s != NULL && s[0] != '\0'; }

/* Appends "<base>/<suffix>" (base without trailing '/', "/" kept as root) unless already present.
 */
static VkResult add_dir(struct vkl_strlist *out, const char *base, size_t base_len, const char *suffix) {
    while (base_len > 1 && base[base_len - 1] == '/') base_len--;
    size_t suffix_len = strlen(suffix);
    bool root = base_len == 1 && base[0] == '/';
    size_t total = base_len + (root ? 0 : 1) + suffix_len;
    char *dir = malloc(total + 1);
    if (dir == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    memcpy(dir, base, base_len);
    size_t pos = base_len;
    if (!root) dir[pos++] = '/';
    memcpy(dir + pos, suffix, suffix_len + 1);
    /* spec §1.2: the directory list is de-duplicated (first occurrence wins) */
    if (vkl_strlist_contains(out, dir)) {
        free(dir);
        return VK_SUCCESS;
    }
    return vkl_strlist_append_owned(out, dir);
}

/* RULE_ENV_XDG_CONFIG_HOME, RULE_ENV_XDG_DATA_HOME, RULE_ENV_HOME */
static VkResult add_home(struct vkl_strlist *out, const char *xdg_home, const char *home, const char *home_rel,
                         const char *suffix) {
    /* XDG Base Directory: use $XDG_*_HOME unless unset or empty, else $HOME/<home_rel>; with
     * neither, the user location is skipped (spec §1.2 item 3). */
    if (non_empty(xdg_home)) return add_dir(out, xdg_home, strlen(xdg_home), suffix);
    if (!non_empty(home)) return VK_SUCCESS;
    size_t hl = strlen(home), rl = strlen(home_rel);
    while (hl > 1 && home[hl - 1] == '/') hl--;
    char *base = malloc(hl + 1 + rl + 1);
    if (base == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    memcpy(base, home, hl); /* NOLINT(bugprone-not-null-terminated-result): terminated below */
    base[hl] = '/';
    memcpy(base + hl + 1, home_rel, rl + 1); /* copies the NUL */
    VkResult r = add_dir(out, base, strlen(base), suffix);
    free(base);
    return r;
}

/* RULE_ENV_XDG_CONFIG_DIRS, RULE_ENV_XDG_DATA_DIRS */
static VkResult add_dirs_list(struct vkl_strlist *out, const char *list, const char *fallback, const char *suffix) {
    /* "$XDG_*_DIRS ... fallback ... if the corresponding environment variable is not defined";
     * an empty value counts as not defined (XDG Base Directory spec; Khronos does the same). */
    const char *value = non_empty(list) ? list : fallback;
    size_t len = strlen(value), start = 0;
    while (start < len) {
        size_t end = start;
        while (end < len && value[end] != ':') end++;
        if (end > start) {
            VkResult r = add_dir(out, value + start, end - start, suffix);
            if (r != VK_SUCCESS) return r;
        }
        start = end + 1;
    }
    return VK_SUCCESS;
}

VkResult vkl_search_dirs_build(const struct vkl_search_env *env, const char *suffix, struct vkl_strlist *out) {
    VkResult r;
    size_t before = out->count;
    /* [Drv] "Driver Discovery on Linux" table order (same for layers, [Lyr]). */
    if ((r = add_home(out, env->xdg_config_home, env->home, ".config", suffix)) != VK_SUCCESS) goto out;
    if ((r = add_dirs_list(out, env->xdg_config_dirs, VKL_FALLBACK_CONFIG_DIRS, suffix)) != VK_SUCCESS) goto out;
    if (non_empty(env->sysconfdir) &&
        (r = add_dir(out, env->sysconfdir, strlen(env->sysconfdir), suffix)) != VK_SUCCESS)
        goto out;
    if (non_empty(env->extrasysconfdir) &&
        (r = add_dir(out, env->extrasysconfdir, strlen(env->extrasysconfdir), suffix)) != VK_SUCCESS)
        goto out;
    if ((r = add_home(out, env->xdg_data_home, env->home, ".local/share", suffix)) != VK_SUCCESS) goto out;
    r = add_dirs_list(out, env->xdg_data_dirs, VKL_FALLBACK_DATA_DIRS, suffix);
out:
    if (r != VK_SUCCESS) vkl_strlist_truncate(out, before);
    return r;
}

VkResult vkl_search_env_from_process(struct vkl_search_env *out) {
    memset(out, 0, sizeof(*out));
    /* By number (no name look-up), and once per call scope (env.h): the settings search and each
     * directory search of one global call share the values. */
    out->xdg_config_home = vkl_getenv_id(VKL_ENV_XDG_CONFIG_HOME);
    out->home = vkl_getenv_id(VKL_ENV_HOME);
    out->xdg_config_dirs = vkl_getenv_id(VKL_ENV_XDG_CONFIG_DIRS);
    out->xdg_data_home = vkl_getenv_id(VKL_ENV_XDG_DATA_HOME);
    out->xdg_data_dirs = vkl_getenv_id(VKL_ENV_XDG_DATA_DIRS);
    out->sysconfdir = VKL_SYSCONFDIR;
#ifdef VKL_EXTRASYSCONFDIR
    out->extrasysconfdir = VKL_EXTRASYSCONFDIR;
#else
    out->extrasysconfdir = NULL;
#endif
    return VK_SUCCESS;
}

/* ------------------------------------------------------------------ cached search directories */

/* One built list and the environment values it was built from (owned copies; NULL = unset). An
 * entry is immutable once published; a newer one replaces it in the slot when a value differs, and
 * the old one is freed when its last holder releases it. */
#define ENV_KEYS 5
struct vkl_search_dirs_entry {
    struct vkl_search_dirs pub; /* first member: the public view */
    unsigned refs;              /* holders, plus one while it is the slot's current entry */
    const char *suffix;         /* borrowed: one of the VKL_*_SUFFIX literals */
    char *env[ENV_KEYS];
};

static pthread_mutex_t g_dirs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vkl_search_dirs_entry *g_dirs_slots[4];

static void env_values(const struct vkl_search_env *env, const char *out[ENV_KEYS]) {
    out[0] = env->xdg_config_home;
    out[1] = env->home;
    out[2] = env->xdg_config_dirs;
    out[3] = env->xdg_data_home;
    out[4] = env->xdg_data_dirs;
}

static bool same_value(const char *a, const char *b) { return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0; }

static void dirs_entry_free(struct vkl_search_dirs_entry *e) {
    vkl_strlist_finish(&e->pub.dirs);
    for (int i = 0; i < ENV_KEYS; i++) free(e->env[i]);
    free(e);
}

__attribute__((destructor)) static void search_dirs_shutdown(void) {
    pthread_mutex_lock(&g_dirs_lock);
    for (size_t i = 0; i < sizeof(g_dirs_slots) / sizeof(g_dirs_slots[0]); i++) {
        struct vkl_search_dirs_entry *e = g_dirs_slots[i];
        g_dirs_slots[i] = NULL;
        if (e != NULL && --e->refs == 0) dirs_entry_free(e);
    }
    pthread_mutex_unlock(&g_dirs_lock);
}

static struct vkl_search_dirs_entry *dirs_entry_build(const struct vkl_search_env *env, const char *suffix) {
    struct vkl_search_dirs_entry *e = calloc(1, sizeof(*e));
    if (e == NULL) return NULL;
    e->suffix = suffix;
    const char *vals[ENV_KEYS];
    env_values(env, vals);
    for (int i = 0; i < ENV_KEYS; i++) {
        if (vals[i] != NULL && (e->env[i] = strdup(vals[i])) == NULL) {
            dirs_entry_free(e);
            return NULL;
        }
    }
    if (vkl_search_dirs_build(env, suffix, &e->pub.dirs) != VK_SUCCESS) {
        dirs_entry_free(e);
        return NULL;
    }
    return e;
}

const struct vkl_search_dirs *vkl_search_dirs_acquire(const char *suffix) {
    struct vkl_search_env env;
    vkl_search_env_from_process(&env);
    const char *vals[ENV_KEYS];
    env_values(&env, vals);
    struct vkl_search_dirs_entry *e = NULL;
    pthread_mutex_lock(&g_dirs_lock);
    size_t slot = 0, nslots = sizeof(g_dirs_slots) / sizeof(g_dirs_slots[0]);
    for (; slot < nslots; slot++)
        if (g_dirs_slots[slot] == NULL || strcmp(g_dirs_slots[slot]->suffix, suffix) == 0) break;
    struct vkl_search_dirs_entry *cur = slot < nslots ? g_dirs_slots[slot] : NULL;
    bool same = cur != NULL;
    for (int i = 0; same && i < ENV_KEYS; i++) same = same_value(cur->env[i], vals[i]);
    if (same) {
        e = cur;
        e->refs++;
    } else if ((e = dirs_entry_build(&env, suffix)) != NULL) {
        e->refs = 1; /* the caller's */
        if (slot < nslots) {
            if (cur != NULL && --cur->refs == 0) dirs_entry_free(cur);
            e->refs++; /* the slot's */
            g_dirs_slots[slot] = e;
        }
    }
    pthread_mutex_unlock(&g_dirs_lock);
    return e != NULL ? &e->pub : NULL;
}

void vkl_search_dirs_release(const struct vkl_search_dirs *dirs) {
    if (dirs == NULL) return;
    struct vkl_search_dirs_entry *e = (struct vkl_search_dirs_entry *)(void *)dirs;
    pthread_mutex_lock(&g_dirs_lock);
    bool last = --e->refs == 0;
    pthread_mutex_unlock(&g_dirs_lock);
    if (last) dirs_entry_free(e);
}

static bool ends_with_json(const char *s) {
    size_t n = strlen(s);
    return n >= 5 && strcmp(s + n - 5, ".json") == 0; /* case-sensitive, as Khronos is_json */
}

/* What a search is for: the log category, the words of its lines and the rule they cite. */
struct search_kind {
    uint32_t cat;
    const char *what; /* "driver search" / "layer search" */
    const char *rule;
};
static const struct search_kind k_driver_search = {VKL_LOG_DRIVER, "driver search", "RULE_DRV_SEARCH_DIR_SCAN"};
static const struct search_kind k_layer_search = {VKL_LOG_LAYER, "layer search", "RULE_LYR_SEARCH_ORDER"};

/* Appends `path` (owned, malloc'd; freed when not kept) unless an earlier search entry found it:
 * one hashed lookup (vkl_strlist_contains), whatever the number of manifests found so far. */
static VkResult add_manifest_owned(const struct vkl_log_sink *log, const struct search_kind *k, struct vkl_strlist *out,
                                   char *path) {
    if (vkl_strlist_contains(out, path)) {
        vkl_log(log, VKL_LOG_DEBUG | k->cat, "%s: skipping %s (already found)", k->what, path);
        free(path);
        return VK_SUCCESS;
    }
    VkResult r = vkl_strlist_append_owned(out, path);
    if (r == VK_SUCCESS) vkl_log(log, VKL_LOG_DEBUG | k->cat, "%s: found manifest %s", k->what, path);
    return r;
}

static VkResult add_manifest(const struct vkl_log_sink *log, const struct search_kind *k, struct vkl_strlist *out,
                             const char *path) {
    if (vkl_strlist_contains(out, path)) {
        vkl_log(log, VKL_LOG_DEBUG | k->cat, "%s: skipping %s (already found)", k->what, path);
        return VK_SUCCESS;
    }
    VkResult r = vkl_strlist_append(out, path);
    if (r == VK_SUCCESS) vkl_log(log, VKL_LOG_DEBUG | k->cat, "%s: found manifest %s", k->what, path);
    return r;
}

static VkResult search_entry(const struct vkl_log_sink *log, const struct search_kind *k, const char *entry,
                             const char *from_env, struct vkl_strlist *out);

VkResult vkl_manifest_search_entry(const struct vkl_log_sink *log, const char *entry, const char *from_env,
                                   struct vkl_strlist *out) {
    return search_entry(log, &k_driver_search, entry, from_env, out);
}

VkResult vkl_layer_manifest_search_entry(const struct vkl_log_sink *log, const char *entry, const char *from_env,
                                         struct vkl_strlist *out) {
    return search_entry(log, &k_layer_search, entry, from_env, out);
}

static VkResult search_entry(const struct vkl_log_sink *log, const struct search_kind *k, const char *entry,
                             const char *from_env, struct vkl_strlist *out) {
    VkResult r = VK_SUCCESS;
    struct vkl_dir_list names = {0};
    char *full = NULL;

    if (ends_with_json(entry)) {
        /* spec §1.2 item 4: an entry ending in ".json" is one manifest file */
        enum vkl_file_kind kind = vkl_file_kind(entry);
        if (kind != VKL_FILE_REGULAR) {
            const char *why = kind == VKL_FILE_MISSING ? strerror(errno) : "not a regular file";
            if (from_env != NULL)
                vkl_log(log, VKL_LOG_WARN | k->cat, "%s %s: manifest %s: cannot be used (%s) [%s]", k->what, from_env,
                        entry, why, k->rule);
            goto out;
        }
        r = add_manifest(log, k, out, entry);
        goto out;
    }

    /* Every directory searched is named, in search order, so "why is my driver not found" can be
     * answered from the log (VK_LOADER_DEBUG=driver / layer). */
    /* Whether DEBUG lines go anywhere, asked once: most searched directories do not exist, and
     * every global call walks them (docs/performance.md). */
    bool debug = vkl_log_wants(log, VKL_LOG_DEBUG | k->cat);
    if (debug)
        vkl_log(log, VKL_LOG_DEBUG | k->cat, "%s: searching %s%s%s", k->what, entry, from_env ? " from " : "",
                from_env ? from_env : "");
    /* [Drv]: the order within a directory is readdir's ("random"); the listing is sorted, which
     * makes it deterministic. */
    r = vkl_dir_list(entry, ".json", &names);
    if (r == VK_ERROR_INITIALIZATION_FAILED) {
        /* Non-existent directories are skipped (spec §1.2 item 4, RULE_DRV_SEARCH_DIR_SCAN). */
        int e = errno;
        r = VK_SUCCESS;
        /* strerror only when the line goes somewhere. */
        if (!debug) goto out;
        if (from_env != NULL)
            vkl_log(log, VKL_LOG_DEBUG | k->cat, "%s %s: skipping directory %s (%s) [%s]", k->what, from_env, entry,
                    strerror(e), k->rule);
        else
            vkl_log(log, VKL_LOG_DEBUG | k->cat, "%s: skipping directory %s (%s)", k->what, entry, strerror(e));
        goto out;
    }
    if (r != VK_SUCCESS) goto out;

    size_t elen = strlen(entry);
    bool slash = elen > 0 && entry[elen - 1] == '/';
    for (size_t i = 0; i < names.count; i++) {
        size_t nlen = strlen(names.items[i].name);
        full = malloc(elen + 1 + nlen + 1);
        if (full == NULL) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
            goto out;
        }
        size_t pos = elen;
        memcpy(full, entry, elen);
        if (!slash) full[pos++] = '/';
        memcpy(full + pos, names.items[i].name, nlen + 1);
        /* directories, FIFOs and dangling links named *.json are not manifests; a symbolic link
         * (or a file system without d_type) is classified without blocking */
        enum vkl_file_kind kind = names.items[i].kind;
        if (kind == VKL_FILE_MISSING) kind = vkl_file_kind(full);
        if (kind == VKL_FILE_REGULAR) {
            r = add_manifest_owned(log, k, out, full);
            full = NULL;
            if (r != VK_SUCCESS) goto out;
        } else {
            vkl_log(log, VKL_LOG_DEBUG | k->cat, "%s: skipping %s (not a regular file)", k->what, full);
        }
        free(full);
        full = NULL;
    }

out:
    free(full);
    vkl_dir_list_free(&names);
    return r;
}

static VkResult search_env_list(const struct vkl_log_sink *log, const char *var, const char *value,
                                struct vkl_strlist *out) {
    struct vkl_strlist entries = VKL_STRLIST_INIT;
    VkResult r = vkl_path_list_split(value, strlen(value), ':', &entries);
    for (size_t i = 0; r == VK_SUCCESS && i < entries.count; i++)
        r = vkl_manifest_search_entry(log, entries.items[i], var, out);
    vkl_strlist_finish(&entries);
    return r;
}

/* RULE_DRV_SEARCH_ORDER */
VkResult vkl_driver_manifest_files(const struct vkl_log_sink *log, struct vkl_strlist *out_files) {
    VkResult r = VK_SUCCESS;
    struct vkl_strlist found = VKL_STRLIST_INIT;

    vkl_strlist_finish(out_files);

    /* [Drv] "Overriding the Default Driver Discovery": VK_DRIVER_FILES wins; the deprecated
     * VK_ICD_FILENAMES is consulted only when VK_DRIVER_FILES is unset. */
    const char *override_var = "VK_DRIVER_FILES";
    const char *override = vkl_getenv_id(VKL_ENV_VK_DRIVER_FILES);
    const char *icd_filenames = vkl_getenv_id(VKL_ENV_VK_ICD_FILENAMES);
    if (override != NULL) {
        if (icd_filenames != NULL)
            vkl_log(log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                    "env VK_ICD_FILENAMES: ignored because VK_DRIVER_FILES is set "
                    "[RULE_DRV_ENV_ICD_FILENAMES_DEPRECATED]");
    } else if (icd_filenames != NULL) {
        override_var = "VK_ICD_FILENAMES";
        override = icd_filenames;
    }
    const char *add = vkl_getenv_id(VKL_ENV_VK_ADD_DRIVER_FILES);

    if (override != NULL) {
        /* [Drv] "Additional Driver Discovery": with an override present VK_ADD_DRIVER_FILES "will
         * not be used by the loader and any values will be ignored". */
        if (add != NULL)
            vkl_log(log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                    "env VK_ADD_DRIVER_FILES: ignored because %s is set "
                    "[RULE_DRV_ENV_ADD_DRIVER_FILES]",
                    override_var);
        if (override[0] == '\0')
            /* Set but empty: an active override with no entries (Khronos behaviour; documents
             * silent). No manifest-discovered drivers at all. */
            vkl_log(log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                    "env %s: set but empty, no driver manifests are searched "
                    "[RULE_DRV_ENV_DRIVER_FILES_OVERRIDE]",
                    override_var);
        r = search_env_list(log, override_var, override, &found);
        goto out;
    }

    if (add != NULL && (r = search_env_list(log, "VK_ADD_DRIVER_FILES", add, &found)) != VK_SUCCESS) goto out;

    const struct vkl_search_dirs *dirs = vkl_search_dirs_acquire(VKL_ICD_SUFFIX);
    if (dirs == NULL) {
        r = VK_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    for (size_t i = 0; r == VK_SUCCESS && i < dirs->dirs.count; i++)
        r = vkl_manifest_search_entry(log, dirs->dirs.items[i], NULL, &found);
    vkl_search_dirs_release(dirs);

out:
    if (r == VK_SUCCESS)
        *out_files = found;
    else
        vkl_strlist_finish(&found);
    return r;
}
