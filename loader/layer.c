/*
 * Layers: discovery and the manifest parse cache, the available set (the override layer chosen,
 * the filters and the settings file's list applied, meta-layers validated: layer_filter.c), the
 * pre-instance functions, and the loader side of the layer interface negotiation. Activation and
 * meta-layer expansion: layer_activate.c.
 * [Lyr] LoaderLayerInterface.md; [Arch] "Filter Environment Variable Behaviors"; spec §1.2-1.4,
 * §5.5.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/discovery.h"
#include "loader/internal/env.h"
#include "loader/internal/fileio.h"
#include "loader/internal/layer.h"
#include "loader/internal/layer_set.h"
#include "loader/internal/manifest.h"
#include "loader/internal/manifest_cache.h"
#include "loader/internal/search_paths.h"
#include "loader/internal/settings.h"
#include "loader/internal/strlist.h"
#include "loader/internal/util.h"

#define CAT VKL_LOG_LAYER
#define OVERRIDE_LAYER_NAME "VK_LAYER_LUNARG_override"

/* ------------------------------------------------------------------ the parse cache */

/* One manifest file as parsed: an entry of the manifest cache (manifest_cache.h) keyed by path and
 * (dev, ino, size, mtime), one cache for implicit and one for explicit manifests (the same file
 * parses differently as either): an unchanged file is never parsed twice. Entries are malloc'd
 * (they outlive instances). */
struct layer_file {
    struct vkl_mcache_entry ce; /* first member */
    bool implicit;
    struct vkl_layer_manifest_file m;
    /* Per layer of `m`: the library dlopen'ed for pre-instance calls (vkl_layer_pre_instance_proc),
     * kept as long as this entry, like the driver cache keeps driver libraries. NULL until used. */
    struct pre_lib *pre;
};

struct pre_lib {
    void *handle;
    bool failed; /* dlopen failed once: not retried while the manifest is unchanged */
};

static pthread_mutex_t g_layer_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t g_parse_count;

static void file_destroy(struct vkl_mcache_entry *e) {
    struct layer_file *f = (struct layer_file *)(void *)e;
    if (f->pre != NULL) {
        bool unload = vkl_library_unload_allowed();
        for (uint32_t i = 0; i < f->m.count; i++)
            if (f->pre[i].handle != NULL && unload) dlclose(f->pre[i].handle);
        free(f->pre);
    }
    vkl_layer_manifest_file_finish(&f->m);
    free(f);
}

static VkResult file_parse(struct vkl_mcache_entry *e, const char *path, const char *buf, size_t len,
                           const struct vkl_log_sink *log) {
    struct layer_file *f = (struct layer_file *)(void *)e;
    g_parse_count++;
    return vkl_layer_manifest_parse(path, buf, len, f->implicit, log, &f->m);
}

#define LAYER_CACHE_INIT                                                                                               \
    {                                                                                                                  \
        .parse = file_parse, .destroy = file_destroy, .unreadable_flags = VKL_LOG_WARN | VKL_LOG_LAYER,                \
        .unreadable_what = "layer manifest", .unreadable_tail = "; file skipped [LLP_LAYER_6]",                        \
    }
static struct vkl_mcache g_caches[2] = {LAYER_CACHE_INIT, LAYER_CACHE_INIT}; /* [implicit] */

__attribute__((destructor)) static void vkl_layers_shutdown(void) {
    pthread_mutex_lock(&g_layer_lock);
    vkl_mcache_flush(&g_caches[0], true);
    vkl_mcache_flush(&g_caches[1], true);
    pthread_mutex_unlock(&g_layer_lock);
}

void vkl_layers_cache_flush_for_testing(void) {
    pthread_mutex_lock(&g_layer_lock);
    vkl_mcache_flush(&g_caches[0], false);
    vkl_mcache_flush(&g_caches[1], false);
    pthread_mutex_unlock(&g_layer_lock);
}

uint32_t vkl_layers_parse_count_for_testing(void) {
    pthread_mutex_lock(&g_layer_lock);
    uint32_t n = g_parse_count;
    pthread_mutex_unlock(&g_layer_lock);
    return n;
}

/* Called with g_layer_lock held. Returns a referenced entry, or NULL: unreadable (*res VK_SUCCESS)
 * or out of memory (*res VK_ERROR_OUT_OF_HOST_MEMORY; nothing is cached, so the next call tries
 * again instead of losing the layer, RULE_ADVERSARIAL_INPUT). `known`: VKL_FILE_REGULAR for a path a search
 * listed (discovery.c classified it), VKL_FILE_MISSING for one named elsewhere. */
static struct layer_file *file_get(const struct vkl_log_sink *log, const char *path, bool implicit,
                                   enum vkl_file_kind known, VkResult *res) {
    struct vkl_file file; /* one fopen: identity for the lookup, contents on a miss (docs/performance.md, round six) */
    *res = VK_SUCCESS;
    if (!vkl_file_open(path, known, &file)) return NULL;
    struct vkl_mcache *c = &g_caches[implicit];
    struct layer_file *f = (struct layer_file *)(void *)vkl_mcache_find(c, path, &file.id, log);
    if (f == NULL) {
        f = calloc(1, sizeof(*f));
        if (f == NULL) {
            *res = VK_ERROR_OUT_OF_HOST_MEMORY;
        } else {
            f->implicit = implicit;
            if ((*res = vkl_mcache_load(c, &f->ce, path, &file, log)) != VK_SUCCESS) f = NULL;
        }
    }
    vkl_file_close(&file);
    return f;
}

static void file_unref(struct layer_file *f) { vkl_mcache_unref(&g_caches[f->implicit], &f->ce); }

/* ------------------------------------------------------------------ search locations */

static const char *override_path(const void *ctx, size_t i) {
    return ((const struct vkl_layer_manifest *)ctx)->override_paths[i];
}

/* discovery.c's layer kinds (the variables, the default directories; LLP_LOADER_2, LLP_LOADER_13).
 * `override_paths` (from the active override layer) replaces every explicit location, the
 * variables included (RULE_LYR_OVERRIDE). */
static VkResult layer_manifest_files(const struct vkl_log_sink *log, bool implicit,
                                     const struct vkl_layer_manifest *override_layer, struct vkl_strlist *out) {
    struct vkl_discovery_opts o = {0};
    if (!implicit && override_layer != NULL && override_layer->override_path_count > 0) {
        /* the Khronos loader's sentences (its users grep for them): each variable set, each path */
        static const enum vkl_env_id ids[2] = {VKL_ENV_VK_LAYER_PATH, VKL_ENV_VK_ADD_LAYER_PATH};
        static const char *const vars[2] = {"VK_LAYER_PATH", "VK_ADD_LAYER_PATH"};
        for (int v = 0; v < 2; v++) {
            const char *val = vkl_getenv_id(ids[v]);
            if (val != NULL)
                vkl_log(log, VKL_LOG_WARN | CAT,
                        "Ignoring %s. The Override layer is active and has override paths set, which takes priority. "
                        "%s is set to %s [RULE_LYR_OVERRIDE]",
                        vars[v], vars[v], val);
        }
        for (uint32_t i = 0; i < override_layer->override_path_count; i++)
            vkl_log(log, VKL_LOG_INFO | CAT, "Override layer has override path %s [RULE_LYR_OVERRIDE]",
                    override_layer->override_paths[i]);
        o.replace = (struct vkl_discovery_source){"override_paths", override_layer->override_path_count, override_path,
                                                  override_layer};
        o.replace_why = "the override layer sets override_paths [RULE_LYR_OVERRIDE]";
    }
    return vkl_discover(implicit ? VKL_DISCOVER_IMPLICIT_LAYERS : VKL_DISCOVER_EXPLICIT_LAYERS, &o, log, out);
}

/* ------------------------------------------------------------------ sets */

static VkResult set_push(struct vkl_layer_set *set, uint32_t *cap, const struct vkl_layer_manifest *l) {
    if (set->count == *cap) {
        uint32_t ncap = *cap ? *cap * 2 : 16;
        const struct vkl_layer_manifest **n = realloc(set->layers, ncap * sizeof(*n));
        if (n == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
        set->layers = n;
        *cap = ncap;
    }
    set->layers[set->count++] = l;
    return VK_SUCCESS;
}

static VkResult set_ref(struct vkl_layer_set *set, struct layer_file *f) {
    /* Capacity: 8, then doubling (grown when the count reaches a power of two). */
    uint32_t c = set->ref_count;
    if (c == 0 || (c >= 8 && (c & (c - 1)) == 0)) {
        void **n = realloc(set->refs, (c == 0 ? 8 : 2 * (size_t)c) * sizeof(*n));
        if (n == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
        set->refs = n;
    }
    set->refs[set->ref_count++] = f;
    return VK_SUCCESS;
}

const struct vkl_layer_manifest *vkl_layer_set_find(const struct vkl_layer_set *set, const char *name) {
    for (uint32_t i = 0; i < set->count; i++)
        if (strcmp(set->layers[i]->props.layerName, name) == 0) return set->layers[i];
    return NULL;
}

/* Scans one class of manifests and appends its layers (deduplicated by name: first wins). */
static VkResult scan(const struct vkl_log_sink *log, bool implicit, struct vkl_layer_set *set, uint32_t *cap) {
    struct vkl_strlist files = VKL_STRLIST_INIT;
    VkResult r = layer_manifest_files(log, implicit, set->override_layer, &files);
    struct name_index names;
    name_index_build(&names, set);
    for (size_t i = 0; r == VK_SUCCESS && i < files.count; i++) {
        VkResult fr;
        struct layer_file *f = file_get(log, files.items[i], implicit, VKL_FILE_REGULAR, &fr);
        if (f == NULL) {
            /* The search listed it as a regular file, yet it cannot be opened (no read permission, or
             * gone since): said, as for a driver manifest (LDP_DRIVER_4), never dropped silently. */
            if (fr == VK_SUCCESS)
                vkl_log(log, VKL_LOG_WARN | CAT, "layer manifest %s: cannot be read (%s); file skipped [LLP_LAYER_6]",
                        files.items[i], strerror(errno));
            r = fr;
            continue;
        }
        if ((r = set_ref(set, f)) != VK_SUCCESS) {
            file_unref(f);
            break;
        }
        if (!f->ce.ok) continue;
        for (uint32_t k = 0; r == VK_SUCCESS && k < f->m.count; k++) {
            const struct vkl_layer_manifest *l = &f->m.layers[k];
            const struct vkl_layer_manifest *prev = name_index_find(&names, l->props.layerName);
            /* Several override layers may coexist until app_keys chose one (vkl_layers_acquire). */
            if (prev != NULL && !(implicit && strcmp(l->props.layerName, OVERRIDE_LAYER_NAME) == 0)) {
                vkl_log(log, VKL_LOG_WARN | CAT,
                        "layer %s: manifest %s ignored, a layer of that name was already found in %s [LLP_LOADER_3]",
                        l->props.layerName, l->manifest_path, prev->manifest_path);
                continue;
            }
            r = set_push(set, cap, l);
            if (prev == NULL) name_index_add(&names, l);
        }
    }
    name_index_finish(&names);
    vkl_strlist_finish(&files);
    return r;
}

/* Empties a set without clearing its filters' token arrays (~12 KB; vkl_filter_parse sets every
 * field it reads): pre-instance calls acquire and release a set each time. */
static void set_clear(struct vkl_layer_set *set) {
    set->layers = NULL;
    set->count = 0;
    set->refs = NULL;
    set->ref_count = 0;
    set->override_layer = NULL;
    set->settings = NULL;
    vkl_filter_parse(NULL, 0, &set->enable);
    vkl_filter_parse(NULL, 0, &set->disable);
    vkl_filter_parse(NULL, 0, &set->allow);
}

/* ---- the settings file's `layers` list ([Set]; settings.c, docs/settings.md) ----
 * The list defines the available layers and their order: each "on"/"auto" entry is the layer of
 * that name in the manifest at its path (implicit when treat_as_implicit_manifest); the layers the
 * normal search found appear only where an unordered_layer_location entry stands, minus the names
 * the list mentions; "off" layers are not available at all ([] therefore disables every layer).
 * "auto" layers still obey the VK_LOADER_LAYERS_* filters; "on" layers do not. */
static VkResult settings_apply(const struct vkl_log_sink *log, struct vkl_layer_set *out, uint32_t *cap) {
    const struct vkl_settings *st = out->settings;
    if (st == NULL || !st->has_layers) return VK_SUCCESS;
    const struct vkl_layer_manifest **found = out->layers;
    uint32_t found_count = out->count;
    out->layers = NULL;
    out->count = 0;
    *cap = 0;
    VkResult r = VK_SUCCESS;
    /* The names the file's list mentions, and the layers placed so far by name: one map each, so
     * placing n layers is linear, not n lookups through lists. */
    struct vkl_map_slot named_local[NAME_SLOTS];
    struct vkl_map named;
    vkl_map_init(&named, named_local, NAME_SLOTS, NULL, NULL, NULL);
    for (uint32_t i = 0; r == VK_SUCCESS && i < st->layer_count; i++)
        if (st->layers[i].name != NULL) r = vkl_map_put_str(&named, st->layers[i].name, NULL, NULL);
    struct name_index placed;
    name_index_init(&placed, out);
    for (uint32_t i = 0; r == VK_SUCCESS && i < st->layer_count; i++) {
        const struct vkl_settings_layer *e = &st->layers[i];
        if (e->control == VKL_SETTINGS_LAYER_UNORDERED) {
            for (uint32_t k = 0; r == VK_SUCCESS && k < found_count; k++)
                if (vkl_map_find_str(&named, found[k]->props.layerName) == NULL &&
                    name_index_find(&placed, found[k]->props.layerName) == NULL &&
                    (r = set_push(out, cap, found[k])) == VK_SUCCESS)
                    name_index_add(&placed, found[k]);
            continue;
        }
        if (e->name == NULL) continue; /* only the unordered marker has none (settings.h) */
        if (e->control == VKL_SETTINGS_LAYER_OFF) {
            vkl_log(log, VKL_LOG_INFO | CAT,
                    "layer %s: \"off\" in settings file %s (layers[%u]); not available [RULE_SETTINGS_FILE]", e->name,
                    st->file_path, i);
            continue;
        }
        if (name_index_find(&placed, e->name) != NULL) continue; /* named twice: first wins (LLP_LOADER_3) */
        VkResult fr;
        struct layer_file *f = file_get(log, e->path, e->treat_as_implicit_manifest, VKL_FILE_MISSING, &fr);
        if (f == NULL && fr != VK_SUCCESS) {
            r = fr;
            break;
        }
        if (f == NULL) {
            vkl_log(log, VKL_LOG_WARN | CAT,
                    "layer %s: manifest %s named by settings file %s (layers[%u]) cannot be read; layer skipped "
                    "[RULE_SETTINGS_FILE]",
                    e->name, e->path, st->file_path, i);
            continue;
        }
        if ((r = set_ref(out, f)) != VK_SUCCESS) {
            file_unref(f);
            break;
        }
        const struct vkl_layer_manifest *l = NULL;
        for (uint32_t k = 0; f->ce.ok && l == NULL && k < f->m.count; k++)
            if (strcmp(f->m.layers[k].props.layerName, e->name) == 0) l = &f->m.layers[k];
        if (l == NULL) {
            vkl_log(log, VKL_LOG_WARN | CAT,
                    "layer %s: manifest %s named by settings file %s (layers[%u]) has no usable layer of that name; "
                    "layer skipped [RULE_SETTINGS_FILE]",
                    e->name, e->path, st->file_path, i);
            continue;
        }
        if (e->control == VKL_SETTINGS_LAYER_AUTO && vkl_layer_filtered_out(out, l)) {
            vkl_log(log, VKL_LOG_WARN | CAT,
                    "Layer \"%s\" forced disabled because name matches filter of env var 'VK_LOADER_LAYERS_DISABLE'. "
                    "[RULE_LYR_FILTER_DISABLE]",
                    e->name);
            continue;
        }
        if ((r = set_push(out, cap, l)) == VK_SUCCESS) name_index_add(&placed, l);
    }
    free(found);
    if (out->override_layer != NULL && name_index_find(&placed, OVERRIDE_LAYER_NAME) != out->override_layer)
        out->override_layer = NULL;
    name_index_finish(&placed);
    vkl_map_finish(&named);
    return r;
}

static VkResult layers_acquire(const struct vkl_log_sink *log, struct vkl_layer_set *out, bool implicit_only) {
    set_clear(out);
    uint32_t cap = 0;
    VkResult r = VK_SUCCESS;
    const struct vkl_layer_manifest **gone = NULL; /* removed by the blacklist or a filter */
    uint32_t gone_count = 0;
    const char *en = vkl_getenv_id(VKL_ENV_VK_LOADER_LAYERS_ENABLE);
    const char *dis = vkl_getenv_id(VKL_ENV_VK_LOADER_LAYERS_DISABLE);
    const char *al = vkl_getenv_id(VKL_ENV_VK_LOADER_LAYERS_ALLOW);
    vkl_filter_parse(en, en ? strlen(en) : 0, &out->enable);
    vkl_filter_parse(dis, dis ? strlen(dis) : 0, &out->disable);
    vkl_filter_parse(al, al ? strlen(al) : 0, &out->allow);
    static const char *const names[3] = {"VK_LOADER_LAYERS_ENABLE", "VK_LOADER_LAYERS_DISABLE",
                                         "VK_LOADER_LAYERS_ALLOW"};
    const struct vkl_filter *fs[3] = {&out->enable, &out->disable, &out->allow};
    for (int i = 0; i < 3; i++)
        if (fs[i]->dropped > 0)
            vkl_log(log, VKL_LOG_WARN | CAT, "env %s: %u filters beyond the first %d ignored [RULE_LYR_FILTER_%s]",
                    names[i], fs[i]->dropped, VKL_FILTER_MAX_TOKENS,
                    i == 0   ? "ENABLE"
                    : i == 1 ? "DISABLE"
                             : "ALLOW");

    /* Re-read the settings file first, so its stderr_log governs this call's log lines too. */
    out->settings = vkl_settings_acquire(log);
    pthread_mutex_lock(&g_layer_lock);
    bool scanned_explicit = false;
    vkl_mcache_begin(&g_caches[0]);
    vkl_mcache_begin(&g_caches[1]);
    if ((r = scan(log, true, out, &cap)) != VK_SUCCESS) goto out;

    /* The override layer: an implicit meta-layer named VK_LAYER_LUNARG_override that is enabled;
     * one whose app_keys name this executable beats a global one ([Lyr] "Override Meta-Layer"). */
    {
        /* /proc/self/exe is read only when an override layer has app_keys to compare with. */
        char exe[PATH_MAX];
        const char *self = NULL;
        const struct vkl_layer_manifest *global = NULL, *specific = NULL;
        for (uint32_t i = 0; i < out->count; i++) {
            const struct vkl_layer_manifest *l = out->layers[i];
            if (strcmp(l->props.layerName, OVERRIDE_LAYER_NAME) != 0 || !l->is_meta) continue;
            if (l->app_key_count == 0) {
                if (global == NULL) global = l;
            } else if (specific == NULL) {
                if (self == NULL) self = vkl_self_exe(exe, sizeof(exe));
                if (str_in(l->app_keys, l->app_key_count, self)) specific = l;
            }
        }
        const struct vkl_layer_manifest *ov = specific != NULL ? specific : global;
        /* Keep only the chosen override layer (or, with none usable, the first one found that is
         * not for other executables). An override layer whose app_keys do not list this executable
         * is not used at all: not listed, its components not enabled (as the Khronos loader
         * removes it; before, with no global override beside it, it stayed in the set and was
         * expanded like any implicit meta-layer). */
        bool kept = false;
        uint32_t w = 0; /* one compaction, not a memmove per removed layer */
        for (uint32_t i = 0; i < out->count; i++) {
            const struct vkl_layer_manifest *l = out->layers[i];
            bool is_ov = strcmp(l->props.layerName, OVERRIDE_LAYER_NAME) == 0;
            bool other_app = is_ov && l != specific && l->app_key_count > 0;
            if (is_ov && (ov != NULL ? l != ov : kept || other_app)) {
                vkl_log(log, VKL_LOG_INFO | CAT, "layer %s: manifest %s not used (%s) [RULE_LYR_OVERRIDE]",
                        OVERRIDE_LAYER_NAME, l->manifest_path,
                        other_app ? "its app_keys do not list this executable" : "another override layer applies");
                continue;
            }
            if (is_ov) kept = true;
            out->layers[w++] = l;
        }
        out->count = w;
        if (ov != NULL && !vkl_layer_filtered_out(out, ov) && vkl_layer_implicit_enabled(out, ov, log))
            out->override_layer = ov;
        else if (ov != NULL)
            vkl_log(log, VKL_LOG_INFO | CAT, "layer %s: override layer not active", OVERRIDE_LAYER_NAME);
    }
    /* Explicit layers: always, except for callers that only need the enabled implicit layers
     * (pre-instance calls) when no implicit meta-layer could name an explicit component. */
    bool need_explicit = !implicit_only;
    for (uint32_t i = 0; i < out->count && !need_explicit; i++) need_explicit = out->layers[i]->is_meta;
    if (need_explicit && (r = scan(log, false, out, &cap)) != VK_SUCCESS) goto out;
    scanned_explicit = need_explicit;

    /* Filters and the override blacklist remove layers from the available list (LLP_LOADER_12). */
    struct name_set blacklist;
    name_set_build(&blacklist, out->override_layer != NULL ? out->override_layer->blacklisted_layers : NULL,
                   out->override_layer != NULL ? out->override_layer->blacklisted_layer_count : 0);
    /* One compaction (w: the layers kept so far), not a memmove per removed layer. The removed
     * ones are kept aside for meta-layer validation below: the Khronos loader validates meta-layers
     * before it applies the blacklist and the filters, so a meta-layer whose component exists but
     * is disabled stays available (it activates without that component, layer_activate.c). */
    gone = malloc((out->count ? out->count : 1) * sizeof(*gone));
    if (gone == NULL) {
        name_set_finish(&blacklist);
        r = VK_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    uint32_t w = 0;
    for (uint32_t i = 0; i < out->count; i++) {
        const struct vkl_layer_manifest *l = out->layers[i];
        const struct vkl_layer_manifest *ov = out->override_layer;
        if (l == NULL) continue; /* never stored (set_push takes manifests); keeps the analyzer's paths honest */
        if (l != ov && ov != NULL && name_set_has(&blacklist, l->props.layerName)) {
            vkl_log(log, VKL_LOG_INFO | CAT,
                    "loader_remove_layers_in_blacklist: Override layer is active and layer %s is in the blacklist "
                    "inside of it. Removing that layer from current layer list. (disabled by the override layer's "
                    "blacklisted_layers) [LLP_LOADER_12]",
                    l->props.layerName);
            gone[gone_count++] = l;
            continue;
        }
        if (vkl_layer_filtered_out(out, l)) {
            vkl_log(log, VKL_LOG_WARN | CAT,
                    "Layer \"%s\" forced disabled because name matches filter of env var 'VK_LOADER_LAYERS_DISABLE'. "
                    "[RULE_LYR_FILTER_DISABLE]",
                    l->props.layerName);
            gone[gone_count++] = l;
            continue;
        }
        out->layers[w++] = l;
    }
    out->count = w;
    name_set_finish(&blacklist);
    /* The settings file's layers list replaces the available set and its order. */
    if ((r = settings_apply(log, out, &cap)) != VK_SUCCESS) goto out;
    /* Meta-layer validation: one linear pass over the component graph (an invalid component
     * makes its meta-layers invalid, so nothing needs repeating), then one compaction. */
    {
        bool any_meta = false;
        for (uint32_t i = 0; i < out->count && !any_meta; i++) any_meta = out->layers[i]->is_meta;
        if (any_meta) {
            uint32_t all = out->count + gone_count;
            bool *valid = malloc(all * sizeof(*valid));
            const struct vkl_layer_manifest **seen = malloc(all * sizeof(*seen));
            if (valid != NULL && seen != NULL) {
                memcpy(seen, out->layers, out->count * sizeof(*seen));
                if (gone_count > 0) memcpy(seen + out->count, gone, gone_count * sizeof(*seen));
            }
            r = valid != NULL && seen != NULL ? vkl_layer_metas_validate(seen, all, valid, log)
                                              : VK_ERROR_OUT_OF_HOST_MEMORY;
            free(seen);
            if (r == VK_SUCCESS) {
                uint32_t kept = 0;
                for (uint32_t i = 0; i < out->count; i++) {
                    if (valid[i]) {
                        out->layers[kept++] = out->layers[i];
                        continue;
                    }
                    if (out->layers[i] == out->override_layer) out->override_layer = NULL;
                }
                out->count = kept;
            }
            free(valid);
            if (r != VK_SUCCESS) goto out;
        }
    }
out:
    free(gone);
    /* Drop cache entries nobody holds whose file changed (vkl_mcache_find marked them) or that this
     * search did not list (vanished, or no longer searched): without this sweep every rewrite of a
     * manifest left its old entry, and the pre-instance library it keeps open, behind until exit.
     * Only the caches whose whole search ran are swept (an implicit-only acquire leaves the
     * explicit manifests alone), and the sweep makes no system call. */
    if (r == VK_SUCCESS) {
        vkl_mcache_sweep(&g_caches[1]);
        if (scanned_explicit) vkl_mcache_sweep(&g_caches[0]);
    }
    pthread_mutex_unlock(&g_layer_lock);
    if (r != VK_SUCCESS) vkl_layers_release(out);
    return r;
}

VkResult vkl_layers_acquire(const struct vkl_log_sink *log, struct vkl_layer_set *out) {
    return layers_acquire(log, out, false);
}

VkResult vkl_layers_acquire_implicit(const struct vkl_log_sink *log, struct vkl_layer_set *out) {
    return layers_acquire(log, out, true);
}

void vkl_layers_release(struct vkl_layer_set *set) {
    pthread_mutex_lock(&g_layer_lock);
    for (uint32_t i = 0; i < set->ref_count; i++) {
        struct layer_file *f = set->refs[i];
        file_unref(f);
    }
    pthread_mutex_unlock(&g_layer_lock);
    free(set->refs);
    free(set->layers);
    vkl_settings_release(set->settings);
    set_clear(set);
}

/* ------------------------------------------------------------------ negotiation */

/* RULE_LYR_IFACE_V1 (exported or renamed proc addrs, no negotiation), RULE_LYR_IFACE_V2
 * (vkNegotiateLoaderLayerInterfaceVersion and the pointers it returns). */
bool vkl_layer_negotiate(const struct vkl_layer_manifest *m, vkl_sym_lookup_fn lookup, void *ctx,
                         const struct vkl_log_sink *log, struct vkl_layer_lib *out) {
    memset(out, 0, sizeof(*out));
    out->manifest = m;
    const char *name = m->props.layerName;
    const char *gipa_name = m->fn_get_instance_proc_addr ? m->fn_get_instance_proc_addr : "vkGetInstanceProcAddr";
    const char *gdpa_name = m->fn_get_device_proc_addr ? m->fn_get_device_proc_addr : "vkGetDeviceProcAddr";
    const char *neg_name = m->fn_negotiate ? m->fn_negotiate : "vkNegotiateLoaderLayerInterfaceVersion";
    PFN_vkNegotiateLoaderLayerInterfaceVersion neg = (PFN_vkNegotiateLoaderLayerInterfaceVersion)lookup(ctx, neg_name);
    uint32_t version = 1;
    if (neg != NULL) {
        VkNegotiateLayerInterface ni;
        memset(&ni, 0, sizeof(ni));
        ni.sType = LAYER_NEGOTIATE_INTERFACE_STRUCT;
        ni.loaderLayerInterfaceVersion = VKL_LOADER_LAYER_INTERFACE_VERSION;
        VkResult r = neg(&ni);
        if (r != VK_SUCCESS) {
            /* LLP_LOADER_5: not loaded, even when vkGetInstanceProcAddr is exported (the Khronos
             * loader falls back to the export; see conformance/deviations). */
            vkl_log(log, VKL_LOG_ERROR | CAT,
                    "layer %s: %s returned %d; interface negotiation failed, layer not loaded [LLP_LOADER_5]", name,
                    neg_name, (int)r);
            return false;
        }
        if (ni.loaderLayerInterfaceVersion > VKL_LOADER_LAYER_INTERFACE_VERSION) {
            vkl_log(log, VKL_LOG_ERROR | CAT,
                    "layer %s: negotiated layer interface version %u is above the offered %u; layer not loaded "
                    "[LLP_LOADER_5]",
                    name, ni.loaderLayerInterfaceVersion, VKL_LOADER_LAYER_INTERFACE_VERSION);
            return false;
        }
        version = ni.loaderLayerInterfaceVersion;
        if (version >= 2) {
            out->gipa = ni.pfnGetInstanceProcAddr;
            out->gdpa = ni.pfnGetDeviceProcAddr;
            out->gpdpa = ni.pfnGetPhysicalDeviceProcAddr;
        }
    }
    /* Interfaces 0/1 (and a v2 layer that left a pointer NULL): exported functions, the manifest's
     * renames first, then the v0 "<layerName>GetInstanceProcAddr" form (RULE_LYR_IFACE_V0/V1). */
    if (out->gipa == NULL) out->gipa = (PFN_vkGetInstanceProcAddr)lookup(ctx, gipa_name);
    if (out->gdpa == NULL) out->gdpa = (PFN_vkGetDeviceProcAddr)lookup(ctx, gdpa_name);
    if (out->gipa == NULL && neg == NULL) {
        char sym[VK_MAX_EXTENSION_NAME_SIZE + 32];
        snprintf(sym, sizeof(sym), "%sGetInstanceProcAddr", name);
        out->gipa = (PFN_vkGetInstanceProcAddr)lookup(ctx, sym);
        snprintf(sym, sizeof(sym), "%sGetDeviceProcAddr", name);
        if (out->gdpa == NULL) out->gdpa = (PFN_vkGetDeviceProcAddr)lookup(ctx, sym);
        if (out->gipa != NULL) version = 0;
    }
    if (out->gipa == NULL) {
        vkl_log(log, VKL_LOG_ERROR | CAT, "layer %s: no %s (negotiated interface %u); layer not loaded [LLP_LOADER_5]",
                name, gipa_name, version);
        memset(out, 0, sizeof(*out));
        return false;
    }
    if (out->gpdpa == NULL && version >= 2)
        out->gpdpa = (PFN_GetPhysicalDeviceProcAddr)lookup(ctx, "vk_layerGetPhysicalDeviceProcAddr");
    out->interface_version = version;
    out->manifest = m;
    vkl_log(log, VKL_LOG_INFO | CAT, "layer %s: layer interface version %u%s", name, version,
            out->gpdpa != NULL ? ", with vk_layerGetPhysicalDeviceProcAddr" : "");
    return true;
}

static PFN_vkVoidFunction dl_lookup(void *lib, const char *name) {
    PFN_vkVoidFunction f;
    void *p = dlsym(lib, name);
    memcpy(&f, &p, sizeof(f));
    return f;
}

/* ------------------------------------------------------------------ pre-instance functions */

/* [Lyr] "Pre-Instance Functions" (RULE_LYR_PRE_INSTANCE). The parser kept pre_instance_functions
 * only for implicit layers of file format >= 1.1.2 (RULE_LYR_MANIFEST_V1_1_2). The library is
 * opened once per manifest cache entry and stays open with it (the driver cache does the same with
 * driver libraries): repeated global enumerations cost no dlopen. [Lyr] says the Khronos loader
 * releases the libraries after every call, so a layer cannot rely on state surviving either way. */
PFN_vkVoidFunction vkl_layer_pre_instance_proc(const struct vkl_layer_set *set, const struct vkl_layer_manifest *l,
                                               enum vkl_layer_pre_instance_fn fn, const struct vkl_log_sink *log) {
    if (l->is_meta || l->library_path == NULL || l->pre_instance[fn] == NULL) return NULL;
    PFN_vkVoidFunction proc = NULL;
    pthread_mutex_lock(&g_layer_lock);
    struct layer_file *f = NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; i < set->ref_count && f == NULL; i++) {
        struct layer_file *c = set->refs[i];
        if (c->m.count > 0 && l >= c->m.layers && l < c->m.layers + c->m.count) {
            f = c;
            k = (uint32_t)(l - c->m.layers);
        }
    }
    if (f == NULL) goto out; /* not a layer of this set: defensive */
    if (f->pre == NULL && (f->pre = calloc(f->m.count, sizeof(*f->pre))) == NULL) goto out;
    struct pre_lib *p = &f->pre[k];
    if (p->handle == NULL && !p->failed) {
        /* RTLD_LOCAL as for instance chains: one layer's symbols never resolve another's. */
        const char *e = NULL;
        p->handle = vkl_library_open(l->library_path, &e);
        if (p->handle == NULL) {
            p->failed = true;
            vkl_log(log, VKL_LOG_ERROR | CAT,
                    "layer %s: cannot load library %s for its pre-instance functions: %s [RULE_LYR_PRE_INSTANCE]",
                    l->props.layerName, l->library_path, e != NULL ? e : "unknown error");
            goto out;
        }
    }
    if (p->handle == NULL) goto out;
    proc = dl_lookup(p->handle, l->pre_instance[fn]);
    if (proc == NULL)
        vkl_log(log, VKL_LOG_WARN | CAT,
                "layer %s: pre_instance_functions names %s, which %s does not export; not called "
                "[RULE_LYR_PRE_INSTANCE]",
                l->props.layerName, l->pre_instance[fn], l->library_path);
out:
    pthread_mutex_unlock(&g_layer_lock);
    return proc;
}

VkResult vkl_layer_lib_load(const struct vkl_layer_manifest *m, bool requested, const struct vkl_log_sink *log,
                            struct vkl_layer_lib *out) {
    memset(out, 0, sizeof(*out));
    /* RTLD_LOCAL: one layer's symbols never resolve another's. */
    const char *e = NULL;
    void *lib = vkl_library_open(m->library_path, &e);
    if (lib == NULL) {
        /* LLP_LAYER_6: the Khronos loader's sentence first ("was wrong bit-type" for a library of
         * the other word size, "failed to load" otherwise; '!' and ERROR for a layer the
         * application asked for, '.' and INFO for one it only would have got), then the reason. */
        const char *why = vkl_library_error_reason(m->library_path, e);
        bool wrong_class = strstr(why, "wrong ELF class:") != NULL;
        vkl_log(log, (requested ? VKL_LOG_ERROR : VKL_LOG_INFO) | CAT,
                "Requested layer \"%s\" %s%c Cannot load its library: %s; library %s [LLP_LAYER_6]", m->props.layerName,
                wrong_class ? "was wrong bit-type" : "failed to load", requested ? '!' : '.', why, m->library_path);
        return VK_ERROR_LAYER_NOT_PRESENT;
    }
    if (!vkl_layer_negotiate(m, (vkl_sym_lookup_fn)dl_lookup, lib, log, out)) {
        dlclose(lib);
        return VK_ERROR_LAYER_NOT_PRESENT;
    }
    out->lib = lib;
    return VK_SUCCESS;
}

void vkl_layer_lib_unload(struct vkl_layer_lib *lib) {
    if (lib->lib != NULL) {
        if (vkl_library_unload_allowed()) dlclose(lib->lib);
    }
    memset(lib, 0, sizeof(*lib));
}
