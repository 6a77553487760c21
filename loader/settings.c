/*
 * The loader settings file (see loader/internal/settings.h and docs/settings.md).
 *
 * Where the Khronos loader and [Set] LoaderSettingsFile.md disagree, we follow the document and
 * record the difference: every entry of XDG_CONFIG_DIRS / XDG_DATA_DIRS is searched (the Khronos
 * loader keeps the ':' separator in each candidate after the first, so only the first entry can
 * ever match; spec §7.10 and Appendix A item 15).
 */
#include "loader/internal/settings.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/discovery.h"
#include "loader/internal/env.h"
#include "loader/internal/fileio.h"
#include "loader/internal/json.h"
#include "loader/internal/strlist.h"
#include "loader/internal/tls.h"
#include "loader/internal/util.h"

#define TAG "[RULE_SETTINGS_FILE]"

uint32_t vkl_settings_log_word(const char *w) { return w != NULL ? vkl_log_word_bits(w, strlen(w), true) : 0; }

/* The first "\u0000" escape inside a JSON string of an already valid document, as a byte offset,
 * or -1. cJSON decodes it to a NUL byte that silently truncates the string, so a name or path
 * would not be what the file says: the file is refused instead. */
static long find_nul_escape(const char *buf, size_t len) {
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = buf[i];
        if (!in_string) {
            if (c == '"') in_string = true;
            continue;
        }
        if (c == '"') {
            in_string = false;
        } else if (c == '\\' && i + 1 < len) {
            if (buf[i + 1] == 'u' && i + 5 < len && memcmp(buf + i + 2, "0000", 4) == 0) return (long)i;
            i++; /* the escaped character */
        }
    }
    return -1;
}

static void line_col(const char *buf, size_t off, size_t *line, size_t *col) {
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (buf[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* A non-empty string member `key` of `obj`; NULL (with `*why` set) otherwise. */
static const char *string_field(const struct vkl_json *obj, const char *key, const char **why) {
    const struct vkl_json *n = vkl_json_get(obj, key);
    if (n == NULL) {
        *why = "is missing";
        return NULL;
    }
    if (!vkl_json_is_string(n)) {
        *why = "is not a string";
        return NULL;
    }
    if (vkl_json_string(n)[0] == '\0') {
        *why = "is empty";
        return NULL;
    }
    return vkl_json_string(n);
}

/* One WARN line for member `key` of the wrong JSON type (`cat`: the log category bits, or 0). */
static void wrong_type(const struct vkl_log_sink *log, uint32_t cat, const char *path, const char *key,
                       const struct vkl_json *n, const char *expected) {
    vkl_log(log, VKL_LOG_WARN | cat, "settings file %s: field '%s' has type %s, expected %s; ignored " TAG, path, key,
            vkl_json_type_name(n), expected);
}

/* ---- the array sections: layers, additional_drivers, device_configurations ----
 * Each is an array of objects read entry by entry into a calloc'd array. They differ in what one
 * entry holds and in what a malformed entry costs ([Set]): the whole section (layers,
 * additional_drivers) or that entry alone (device_configurations). */

/* What is wrong with a malformed entry: `key` the field ("" = the entry itself), `why` its fault. */
struct entry_error {
    const char *key, *why;
};

struct section {
    const char *key;   /* the member, e.g. "layers" */
    uint32_t category; /* VKL_LOG_LAYER / VKL_LOG_DRIVER */
    size_t elem_size;
    bool skip_bad;           /* a malformed entry is skipped alone; false: it drops the whole section */
    const char *consequence; /* how the log line for a malformed entry ends */
    /* Fills the zeroed `elem` from the object `e` (entry `i`); VK_SUCCESS with err->key set when the
     * entry is malformed. What it allocated is freed by free_elem whatever it returns. */
    VkResult (*parse)(const char *path, size_t i, const struct vkl_json *e, const struct vkl_log_sink *log, void *elem,
                      struct entry_error *err);
    void (*free_elem)(void *elem);
};

/* Reads the section `sec` from `arr`. *present: the section is used (an array, not dropped);
 * *out / *count: its well-formed entries in file order. */
static VkResult parse_section(const char *path, const struct vkl_json *arr, const struct vkl_log_sink *log,
                              const struct section *sec, void **out, uint32_t *count, bool *present) {
    *out = NULL;
    *count = 0;
    *present = false;
    if (!vkl_json_is_array(arr)) {
        wrong_type(log, sec->category, path, sec->key, arr, "array");
        return VK_SUCCESS;
    }
    size_t n = vkl_json_array_size(arr);
    char *v = calloc(n ? n : 1, sec->elem_size);
    if (v == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t kept = 0;
    bool dropped = false;
    VkResult r = VK_SUCCESS;
    size_t i = 0;
    /* RULE_ADVERSARIAL_INPUT: one pass over the list (an indexed walk was quadratic). */
    for (const struct vkl_json *e = vkl_json_first(arr); e != NULL && !dropped; e = vkl_json_next(e), i++) {
        void *elem = v + kept * sec->elem_size;
        struct entry_error err = {NULL, NULL};
        if (!vkl_json_is_object(e))
            err = (struct entry_error){"", "is not an object"};
        else
            r = sec->parse(path, i, e, log, elem, &err);
        if (r == VK_SUCCESS && err.key == NULL) {
            kept++;
            continue;
        }
        sec->free_elem(elem);
        memset(elem, 0, sec->elem_size);
        if (r != VK_SUCCESS) break;
        if (err.key[0] == '\0')
            vkl_log(log, VKL_LOG_WARN | sec->category, "settings file %s: %s[%zu] %s; %s " TAG, path, sec->key, i,
                    err.why, sec->consequence);
        else
            vkl_log(log, VKL_LOG_WARN | sec->category, "settings file %s: %s[%zu]: field '%s' %s; %s " TAG, path,
                    sec->key, i, err.key, err.why, sec->consequence);
        dropped = !sec->skip_bad;
    }
    if (r != VK_SUCCESS || dropped) {
        for (uint32_t k = 0; k < kept; k++) sec->free_elem(v + k * sec->elem_size);
        free(v);
        return r;
    }
    *out = v;
    *count = kept;
    *present = true;
    return VK_SUCCESS;
}

static void free_layer(void *elem) {
    struct vkl_settings_layer *l = elem;
    free(l->name);
    free(l->path);
}

static void free_driver(void *elem) { free(((struct vkl_settings_driver *)elem)->path); }

static void free_device(void *elem) {
    struct vkl_settings_device *d = elem;
    free(d->device_name);
    free(d->driver_name);
}

/* layers[i]: {control, name, path, treat_as_implicit_manifest?}; an unknown control is "auto". */
static VkResult parse_layer(const char *path, size_t i, const struct vkl_json *e, const struct vkl_log_sink *log,
                            void *elem, struct entry_error *err) {
    struct vkl_settings_layer *l = elem;
    const struct vkl_json *ctl = vkl_json_get(e, "control");
    if (ctl == NULL || !vkl_json_is_string(ctl)) {
        *err = (struct entry_error){"control", ctl == NULL ? "is missing" : "is not a string"};
        return VK_SUCCESS;
    }
    const char *c = vkl_json_string(ctl);
    if (strcmp(c, "unordered_layer_location") == 0) {
        l->control = VKL_SETTINGS_LAYER_UNORDERED;
        return VK_SUCCESS;
    }
    if (strcmp(c, "on") == 0) {
        l->control = VKL_SETTINGS_LAYER_ON;
    } else if (strcmp(c, "off") == 0) {
        l->control = VKL_SETTINGS_LAYER_OFF;
    } else {
        if (strcmp(c, "auto") != 0)
            vkl_log(log, VKL_LOG_WARN | VKL_LOG_LAYER,
                    "settings file %s: layers[%zu]: control \"%s\" is not on, off, auto or "
                    "unordered_layer_location; treated as auto " TAG,
                    path, i, c);
        l->control = VKL_SETTINGS_LAYER_AUTO;
    }
    const char *name = string_field(e, "name", &err->why);
    if (name == NULL) {
        err->key = "name";
        return VK_SUCCESS;
    }
    const char *lpath = string_field(e, "path", &err->why);
    if (lpath == NULL) {
        err->key = "path";
        return VK_SUCCESS;
    }
    const struct vkl_json *impl = vkl_json_get(e, "treat_as_implicit_manifest");
    if (impl != NULL && !vkl_json_is_bool(impl)) {
        *err = (struct entry_error){"treat_as_implicit_manifest", "is not a bool"};
        return VK_SUCCESS;
    }
    l->treat_as_implicit_manifest = vkl_json_bool(impl);
    l->name = vkl_strdup(name);
    /* a relative path is relative to the settings file's directory, not the working directory
     * (docs/settings.md "Relative paths") */
    l->path = vkl_path_beside(path, lpath);
    return l->name != NULL && l->path != NULL ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
}

/* additional_drivers[i]: {path}. */
static VkResult parse_driver(const char *path, size_t i, const struct vkl_json *e, const struct vkl_log_sink *log,
                             void *elem, struct entry_error *err) {
    (void)i;
    (void)log;
    const char *p = string_field(e, "path", &err->why);
    if (p == NULL) {
        err->key = "path";
        return VK_SUCCESS;
    }
    struct vkl_settings_driver *d = elem;
    return (d->path = vkl_path_beside(path, p)) != NULL ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
}

/* Exactly VK_UUID_SIZE integers 0..255; a longer array is refused at its 17th element, unread
 * beyond it (RULE_ADVERSARIAL_INPUT). */
static bool read_uuid(const struct vkl_json *arr, uint8_t out[VK_UUID_SIZE]) {
    if (!vkl_json_is_array(arr)) return false;
    size_t i = 0;
    VKL_JSON_FOR_EACH(b, arr) {
        if (i == VK_UUID_SIZE || !vkl_json_is_number(b)) return false;
        double d = vkl_json_number(b);
        if (!(d >= 0.0 && d <= 255.0) || d != (double)(unsigned)d) return false;
        out[i++] = (uint8_t)d;
    }
    return i == VK_UUID_SIZE;
}

/* device_configurations[i]: {deviceUUID[16], driverUUID[16], driverVersion, deviceName?, driverName?}. */
static VkResult parse_device(const char *path, size_t i, const struct vkl_json *e, const struct vkl_log_sink *log,
                             void *elem, struct entry_error *err) {
    (void)path;
    (void)i;
    (void)log;
    struct vkl_settings_device *d = elem;
    const struct vkl_json *ver = vkl_json_get(e, "driverVersion");
    const struct vkl_json *dn = vkl_json_get(e, "deviceName");
    const struct vkl_json *rn = vkl_json_get(e, "driverName");
    if (!read_uuid(vkl_json_get(e, "deviceUUID"), d->device_uuid))
        *err = (struct entry_error){"deviceUUID", "is not an array of 16 integers 0..255"};
    else if (!read_uuid(vkl_json_get(e, "driverUUID"), d->driver_uuid))
        *err = (struct entry_error){"driverUUID", "is not an array of 16 integers 0..255"};
    else if (ver == NULL || !vkl_json_is_number(ver) || !(vkl_json_number(ver) >= 0.0) ||
             vkl_json_number(ver) > 4294967295.0 || vkl_json_number(ver) != (double)(uint32_t)vkl_json_number(ver))
        *err = (struct entry_error){"driverVersion", ver == NULL ? "is missing" : "is not an integer 0..4294967295"};
    else if (dn != NULL && !vkl_json_is_string(dn))
        *err = (struct entry_error){"deviceName", "is not a string"};
    else if (rn != NULL && !vkl_json_is_string(rn))
        *err = (struct entry_error){"driverName", "is not a string"};
    if (err->key != NULL) return VK_SUCCESS;
    d->driver_version = (uint32_t)vkl_json_number(ver);
    if (dn != NULL && (d->device_name = vkl_strdup(vkl_json_string(dn))) == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    if (rn != NULL && (d->driver_name = vkl_strdup(vkl_json_string(rn))) == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    return VK_SUCCESS;
}

static const struct section k_layers = {
    "layers",    VKL_LOG_LAYER, sizeof(struct vkl_settings_layer), false, "the whole 'layers' section is ignored",
    parse_layer, free_layer};
static const struct section k_drivers = {"additional_drivers",
                                         VKL_LOG_DRIVER,
                                         sizeof(struct vkl_settings_driver),
                                         false,
                                         "all additional_drivers are ignored",
                                         parse_driver,
                                         free_driver};
static const struct section k_devices = {"device_configurations",
                                         VKL_LOG_DRIVER,
                                         sizeof(struct vkl_settings_device),
                                         true,
                                         "entry skipped",
                                         parse_device,
                                         free_device};

void vkl_settings_finish(struct vkl_settings *s) {
    if (s == NULL) return;
    free(s->file_path);
    for (uint32_t i = 0; i < s->layer_count; i++) free_layer(&s->layers[i]);
    free(s->layers);
    for (uint32_t i = 0; i < s->driver_count; i++) free_driver(&s->drivers[i]);
    free(s->drivers);
    for (uint32_t i = 0; i < s->device_count; i++) free_device(&s->devices[i]);
    free(s->devices);
    memset(s, 0, sizeof(*s));
}

/* 1: `obj` has app_keys listing exe; 0: no app_keys; -1: app_keys that do not list it (or are
 * malformed: logged). */
static int app_keys_match(const char *path, const char *where, const struct vkl_json *obj, const char *exe,
                          const struct vkl_log_sink *log) {
    const struct vkl_json *keys = vkl_json_get(obj, "app_keys");
    if (keys == NULL) return 0;
    if (!vkl_json_is_array(keys)) {
        vkl_log(log, VKL_LOG_WARN,
                "settings file %s: %s: field 'app_keys' has type %s, expected array; object not used " TAG, path, where,
                vkl_json_type_name(keys));
        return -1;
    }
    int found = -1;
    size_t i = 0;
    for (const struct vkl_json *e = vkl_json_first(keys); e != NULL; e = vkl_json_next(e), i++) {
        const char *k = vkl_json_string(e);
        if (k == NULL) {
            vkl_log(log, VKL_LOG_WARN, "settings file %s: %s: app_keys[%zu] is not a string; object not used " TAG,
                    path, where, i);
            return -1;
        }
        if (exe != NULL && strcmp(k, exe) == 0) found = 1;
    }
    return found;
}

static VkResult parse_object(const char *path, const struct vkl_json *obj, const struct vkl_log_sink *log,
                             struct vkl_settings *s) {
    VkResult r = VK_SUCCESS;
    const struct vkl_json *n;
    void *v;
    bool present;
    if ((n = vkl_json_get(obj, "stderr_log")) != NULL) {
        if (!vkl_json_is_array(n)) {
            wrong_type(log, 0, path, "stderr_log", n, "array");
        } else {
            size_t i = 0;
            for (const struct vkl_json *e = vkl_json_first(n); e != NULL; e = vkl_json_next(e), i++) {
                const char *w = vkl_json_string(e);
                uint32_t bits = vkl_settings_log_word(w);
                if (bits == 0)
                    vkl_log(log, VKL_LOG_INFO,
                            "settings file %s: stderr_log[%zu] is not a known log word; ignored " TAG, path, i);
                s->stderr_log |= bits;
            }
        }
    }
    /* log_locations: read by the Vulkan Configurator's own tools; the loader only checks its type. */
    if ((n = vkl_json_get(obj, "log_locations")) != NULL && !vkl_json_is_array(n))
        wrong_type(log, 0, path, "log_locations", n, "array");
    if ((n = vkl_json_get(obj, "layers")) != NULL) {
        if ((r = parse_section(path, n, log, &k_layers, &v, &s->layer_count, &s->has_layers)) != VK_SUCCESS) return r;
        s->layers = v;
    }
    if ((n = vkl_json_get(obj, "additional_drivers_use_exclusively")) != NULL) {
        if (vkl_json_is_bool(n))
            s->additional_drivers_use_exclusively = vkl_json_bool(n);
        else
            wrong_type(log, VKL_LOG_DRIVER, path, "additional_drivers_use_exclusively", n, "bool");
    }
    if ((n = vkl_json_get(obj, "additional_drivers")) != NULL) {
        if ((r = parse_section(path, n, log, &k_drivers, &v, &s->driver_count, &present)) != VK_SUCCESS) return r;
        s->drivers = v;
    }
    if ((n = vkl_json_get(obj, "device_configurations")) != NULL) {
        r = parse_section(path, n, log, &k_devices, &v, &s->device_count, &s->has_device_configurations);
        if (r != VK_SUCCESS) return r;
        s->devices = v;
    }
    s->active = s->stderr_log != 0 || s->has_layers || s->driver_count > 0 || s->has_device_configurations;
    return VK_SUCCESS;
}

VkResult vkl_settings_parse(const char *path_for_messages, const char *buf, size_t len, const char *exe_path,
                            const struct vkl_log_sink *log, struct vkl_settings *out) {
    const char *path = path_for_messages ? path_for_messages : "(unnamed)";
    struct vkl_json *root = NULL;
    struct vkl_settings s;
    char err[160];
    VkResult r;
    memset(&s, 0, sizeof(s));
    s.selected_index = -1;
    if (out == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    memset(out, 0, sizeof(*out));

    r = vkl_json_parse(buf, len, &root, err, sizeof(err));
    if (r == VK_ERROR_OUT_OF_HOST_MEMORY) goto out;
    if (r != VK_SUCCESS) {
        vkl_log(log, VKL_LOG_ERROR, "settings file %s: not valid JSON: %s; file ignored " TAG, path, err);
        goto out;
    }
    r = VK_ERROR_INITIALIZATION_FAILED;
    long nul = find_nul_escape(buf, len);
    if (nul >= 0) {
        size_t line, col;
        line_col(buf, (size_t)nul, &line, &col);
        vkl_log(log, VKL_LOG_WARN,
                "settings file %s: a string holds an embedded NUL (\\u0000) at line %zu, column %zu; file ignored " TAG,
                path, line, col);
        goto out;
    }
    if (!vkl_json_is_object(root)) {
        vkl_log(log, VKL_LOG_WARN, "settings file %s: top-level value has type %s, expected object; file ignored " TAG,
                path, vkl_json_type_name(root));
        goto out;
    }
    const struct vkl_json *ffv = vkl_json_get(root, "file_format_version");
    if (ffv == NULL || !vkl_json_is_string(ffv)) {
        vkl_log(log, VKL_LOG_WARN, "settings file %s: field 'file_format_version' %s; file ignored " TAG, path,
                ffv == NULL ? "is missing" : "is not a string");
        goto out;
    }
    const struct vkl_json *arr = vkl_json_get(root, "settings_array");
    const struct vkl_json *one = vkl_json_get(root, "settings");
    const struct vkl_json *chosen = NULL;
    if (arr != NULL && vkl_json_is_array(arr)) {
        if (one != NULL)
            vkl_log(log, VKL_LOG_INFO,
                    "settings file %s: field 'settings' ignored because 'settings_array' is present " TAG, path);
        int global = -1, specific = -1;
        const struct vkl_json *global_obj = NULL, *specific_obj = NULL;
        char where[48];
        size_t i = 0;
        for (const struct vkl_json *o = vkl_json_first(arr); o != NULL && specific < 0; o = vkl_json_next(o), i++) {
            snprintf(where, sizeof where, "settings_array[%zu]", i);
            if (!vkl_json_is_object(o)) {
                vkl_log(log, VKL_LOG_WARN, "settings file %s: %s is not an object; ignored " TAG, path, where);
                continue;
            }
            int m = app_keys_match(path, where, o, exe_path, log);
            if (m > 0) {
                specific = (int)i;
                specific_obj = o;
            } else if (m == 0 && global < 0) {
                global = (int)i;
                global_obj = o;
            }
        }
        s.selected_index = specific >= 0 ? specific : global;
        chosen = specific >= 0 ? specific_obj : global_obj;
    } else if (one != NULL && vkl_json_is_object(one)) {
        if (arr != NULL) wrong_type(log, 0, path, "settings_array", arr, "array");
        if (app_keys_match(path, "settings", one, exe_path, log) >= 0) {
            s.selected_index = 0;
            chosen = one;
        }
    } else {
        vkl_log(log, VKL_LOG_WARN,
                "settings file %s: neither a 'settings' object nor a 'settings_array' array; file ignored " TAG, path);
        goto out;
    }
    if (chosen == NULL) {
        vkl_log(log, VKL_LOG_INFO, "settings file %s: no settings object applies to this executable (%s) " TAG, path,
                exe_path ? exe_path : "unknown");
    } else if ((r = parse_object(path, chosen, log, &s)) != VK_SUCCESS) {
        goto out;
    }
    r = VK_ERROR_OUT_OF_HOST_MEMORY;
    if ((s.file_path = vkl_strdup(path)) == NULL) goto out;
    *out = s;
    memset(&s, 0, sizeof(s));
    r = VK_SUCCESS;
out:
    vkl_settings_finish(&s);
    vkl_json_free(root);
    return r;
}

/* ------------------------------------------------------------------ search */

/* The locations are discovery.c's settings-file kind (VKL_DISCOVER_SETTINGS): the one base set of
 * every search, in its order for this kind. */
VkResult vkl_settings_candidates(const struct vkl_search_env *env, struct vkl_strlist *out) {
    return vkl_search_dirs_build_order(env, vkl_discovery_kinds[VKL_DISCOVER_SETTINGS].order,
                                       VKL_SETTINGS_SUFFIX "/" VKL_SETTINGS_FILE_NAME, out);
}

bool vkl_settings_use_driver_env(const struct vkl_settings *s) {
    return s == NULL || !s->active || !s->has_device_configurations;
}

/* ------------------------------------------------------------------ snapshot cache */

struct snapshot {
    struct vkl_settings s; /* first: a `const struct vkl_settings *` handed out is the snapshot */
    unsigned refs;         /* the cache's own reference + every acquire not yet released */
    bool parsed_ok;
    struct vkl_file_id id;
    char *exe;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct snapshot *g_current;

static void snap_unref(struct snapshot *sn) {
    if (sn == NULL || --sn->refs > 0) return;
    vkl_settings_finish(&sn->s);
    free(sn->exe);
    free(sn);
}

static void drop_current(void) {
    snap_unref(g_current);
    g_current = NULL;
}

/* The library is unloaded (dlclose) with its caches: free them, so nothing is left behind that
 * leak checkers would report once the static roots are gone. */
__attribute__((destructor)) static void settings_unload(void) {
    pthread_mutex_lock(&g_lock);
    drop_current();
    pthread_mutex_unlock(&g_lock);
}

void vkl_settings_cache_flush_for_testing(void) {
    pthread_mutex_lock(&g_lock);
    drop_current();
    pthread_mutex_unlock(&g_lock);
}

static char *self_exe(void) {
    char buf[PATH_MAX];
    const char *path = vkl_self_exe(buf, sizeof(buf));
    return path[0] != '\0' ? vkl_strdup(path) : NULL;
}

/* The call scope (vkl_settings_scope_begin): the snapshot of the outermost open scope of this
 * thread, with the scope's own reference, and how many scopes are open. */
static VKL_TLS struct {
    unsigned depth;
    const struct vkl_settings *s;
    bool use_logged; /* the outermost scope's search logged the file's use line (a new version) */
} t_scope;

static const struct vkl_settings *search_and_acquire(const struct vkl_log_sink *log);

const struct vkl_settings *vkl_settings_acquire(const struct vkl_log_sink *log) {
    if (t_scope.depth == 0) return search_and_acquire(log);
    /* Inside a call scope: the call's snapshot, no search (and no lock when there is none). */
    if (t_scope.s == NULL) return NULL;
    pthread_mutex_lock(&g_lock);
    ((struct snapshot *)(void *)t_scope.s)->refs++;
    pthread_mutex_unlock(&g_lock);
    return t_scope.s;
}

/* The call scope also holds the environment (env.h): the settings search, the layer and the driver
 * searches of one call read HOME, the XDG variables and the other secure variables once. */
const struct vkl_settings *vkl_settings_scope_begin(const struct vkl_log_sink *log) {
    vkl_env_scope_begin();
    if (t_scope.depth == 0) {
        t_scope.use_logged = false;
        t_scope.s = search_and_acquire(log);
    }
    t_scope.depth++;
    return vkl_settings_acquire(log);
}

void vkl_settings_scope_end(void) {
    if (t_scope.depth == 0) return;
    vkl_env_scope_end();
    if (--t_scope.depth > 0) return;
    vkl_settings_release(t_scope.s);
    t_scope.s = NULL;
}

/* The line users of the Khronos loader grep for to learn that the file is in effect ([Set]; the
 * Khronos loader logs it at every vkCreateInstance that applies the file). A file found by the
 * search is named as the Khronos loader names it, "<base>/vulkan//loader_settings.d/..." (its base
 * and "/vulkan/" joined with a second '/'), so that a line copied from its log into a script or a
 * test still matches; POSIX pathname resolution reads successive slashes as one, so both spellings
 * name the one file the loader read (RULE_SETTINGS_FILE). */
static void log_use(const struct vkl_log_sink *log, const char *path) {
    static const char tail[] = "/" VKL_SETTINGS_SUFFIX "/" VKL_SETTINGS_FILE_NAME;
    static const char khronos_tail[] = "/vulkan//loader_settings.d/" VKL_SETTINGS_FILE_NAME;
    size_t len = strlen(path), tail_len = sizeof(tail) - 1;
    if (len >= tail_len && strcmp(path + len - tail_len, tail) == 0) {
        vkl_log(log, VKL_LOG_INFO | VKL_LOG_DRIVER | VKL_LOG_LAYER,
                "Using layer configurations found in loader settings from %.*s%s " TAG, (int)(len - tail_len), path,
                khronos_tail);
        return;
    }
    vkl_log(log, VKL_LOG_INFO | VKL_LOG_DRIVER | VKL_LOG_LAYER,
            "Using layer configurations found in loader settings from %s " TAG, path);
}

/* RULE_SETTINGS_FILE: every vkCreateInstance that applies the file says so, also when the file is
 * unchanged since an earlier call (no new version parsed); once per call. */
void vkl_settings_log_use(const struct vkl_settings *s, const struct vkl_log_sink *log) {
    if (s == NULL || s->file_path == NULL) return;
    if (t_scope.depth > 0 && t_scope.s == s && t_scope.use_logged) return;
    log_use(log, s->file_path);
}

bool vkl_settings_layer_on(const struct vkl_settings *s, const char *name) {
    for (uint32_t i = 0; s != NULL && s->has_layers && i < s->layer_count; i++)
        if (s->layers[i].control == VKL_SETTINGS_LAYER_ON && strcmp(s->layers[i].name, name) == 0) return true;
    return false;
}

static const struct vkl_settings *search_and_acquire(const struct vkl_log_sink *log) {
    const struct vkl_settings *result = NULL;
    uint32_t level = 0;
    /* The first location that has the file (DEBUG "settings search: no file ..." for those before
     * it); outside the lock, as the driver and layer searches. */
    struct vkl_strlist where = VKL_STRLIST_INIT;
    VkResult searched = vkl_discover(VKL_DISCOVER_SETTINGS, NULL, log, &where);
    pthread_mutex_lock(&g_lock);
    if (searched != VK_SUCCESS) {
        vkl_strlist_finish(&where);
        pthread_mutex_unlock(&g_lock);
        return NULL;
    }
    const char *found = where.count > 0 ? where.items[0] : NULL;
    if (found == NULL) {
        drop_current();
        goto out;
    }
    /* One fopen: its fstat is the identity compared with the snapshot's, and only a new version of
     * the file is read, from the same stream (no second open of an unchanged file). */
    struct vkl_file file;
    if (!vkl_file_open(found, VKL_FILE_MISSING, &file)) {
        vkl_log(log, VKL_LOG_WARN, "settings file %s: cannot be read (%s); no settings file is used " TAG, found,
                strerror(errno));
        drop_current();
        goto out;
    }
    if (g_current == NULL || g_current->s.file_path == NULL || strcmp(g_current->s.file_path, found) != 0 ||
        !vkl_file_id_equal(&g_current->id, &file.id)) {
        drop_current();
        struct snapshot *sn = calloc(1, sizeof(*sn));
        if (sn == NULL) {
            vkl_file_close(&file);
            goto out;
        }
        sn->refs = 1;
        sn->exe = self_exe();
        sn->id = file.id;
        char *buf = NULL;
        size_t len = 0;
        VkResult r = vkl_file_read_all(&file, VKL_SETTINGS_MAX_SIZE, &buf, &len);
        if (r != VK_SUCCESS) {
            vkl_log(log, VKL_LOG_WARN, "settings file %s: cannot be read (%s); no settings file is used " TAG, found,
                    strerror(errno));
        } else {
            r = vkl_settings_parse(found, buf, len, sn->exe, log, &sn->s);
            free(buf);
        }
        sn->parsed_ok = r == VK_SUCCESS;
        if (!sn->parsed_ok) {
            /* Remember the failure (so it is logged once per version of the file), by path. */
            vkl_settings_finish(&sn->s);
            sn->s.file_path = vkl_strdup(found);
            sn->s.selected_index = -1;
        } else if (sn->s.active) {
            log_use(log, found);
            t_scope.use_logged = true;
        }
        g_current = sn;
    }
    vkl_file_close(&file);
    if (g_current->parsed_ok && g_current->s.active) {
        g_current->refs++;
        result = &g_current->s;
        level = g_current->s.stderr_log;
    }
out:
    vkl_log_set_settings_level(level);
    pthread_mutex_unlock(&g_lock);
    vkl_strlist_finish(&where);
    return result;
}

void vkl_settings_release(const struct vkl_settings *s) {
    if (s == NULL) return;
    pthread_mutex_lock(&g_lock);
    snap_unref((struct snapshot *)(void *)s);
    pthread_mutex_unlock(&g_lock);
}

/* ------------------------------------------------------------------ drivers */

static const char *driver_path(const void *ctx, size_t i) {
    return ((const struct vkl_settings *)ctx)->drivers[i].path;
}

/* The settings file's overlay on the driver search, applied by vkl_discover: additional_drivers
 * first, in the file's order (the Khronos loader pushes each one to the front, which reverses them;
 * [Set] gives no order), then the discovered ones; only them with additional_drivers_use_exclusively;
 * no driver variables with device_configurations. */
VkResult vkl_settings_driver_files(const struct vkl_settings *s, const struct vkl_log_sink *log,
                                   struct vkl_strlist *out) {
    struct vkl_discovery_opts o = {0};
    if (s != NULL) {
        o.front = (struct vkl_discovery_source){"settings file additional_drivers", s->driver_count, driver_path, s};
        o.only_front = s->driver_count > 0 && s->additional_drivers_use_exclusively;
        o.no_env = !vkl_settings_use_driver_env(s);
        if (o.no_env && !o.only_front)
            /* [Set]: with device_configurations the driver environment variables are not used. */
            vkl_log(log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                    "settings file %s: has device_configurations; VK_DRIVER_FILES, VK_ICD_FILENAMES, "
                    "VK_ADD_DRIVER_FILES, VK_LOADER_DRIVERS_SELECT and VK_LOADER_DRIVERS_DISABLE are not used " TAG,
                    s->file_path);
    }
    return vkl_discover(VKL_DISCOVER_DRIVERS, &o, log, out);
}
