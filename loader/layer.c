/*
 * Layers: discovery, the manifest parse cache, filters, meta-layer validation and expansion,
 * activation order, and the loader side of the layer interface negotiation.
 * [Lyr] LoaderLayerInterface.md; [Arch] "Filter Environment Variable Behaviors"; spec §1.2-1.4,
 * §4.4, §5.5.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/env.h"
#include "loader/internal/fileio.h"
#include "loader/internal/layer.h"
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
 * listed (search_paths.c classified it), VKL_FILE_MISSING for one named elsewhere. */
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

static VkResult search_list(const struct vkl_log_sink *log, const char *var, const char *value,
                            struct vkl_strlist *out) {
    struct vkl_strlist entries = VKL_STRLIST_INIT;
    VkResult r = vkl_path_list_split(value, strlen(value), ':', &entries);
    for (size_t i = 0; r == VK_SUCCESS && i < entries.count; i++)
        r = vkl_layer_manifest_search_entry(log, entries.items[i], var, out);
    vkl_strlist_finish(&entries);
    return r;
}

/* [Lyr] "Linux Layer Discovery" / "Overriding the Default Layer Discovery" (RULE_LYR_SEARCH_ORDER,
 * RULE_LYR_ENV_LAYER_PATH, RULE_LYR_ENV_IMPLICIT_LAYER_PATH). `override_paths` (from the active
 * override layer) replaces every explicit location, the variables included. All variables are
 * secure: unset when elevated (LLP_LOADER_13). */
/* LLP_LOADER_2: VK_LAYER_PATH / VK_ADD_LAYER_PATH (and the implicit pair) load layers from
 * non-standard locations. */
static VkResult layer_manifest_files(const struct vkl_log_sink *log, bool implicit,
                                     const struct vkl_layer_manifest *override_layer, struct vkl_strlist *out) {
    VkResult r = VK_SUCCESS;
    const char *ovar = implicit ? "VK_IMPLICIT_LAYER_PATH" : "VK_LAYER_PATH";
    const char *avar = implicit ? "VK_ADD_IMPLICIT_LAYER_PATH" : "VK_ADD_LAYER_PATH";
    const char *ov = vkl_getenv_id(implicit ? VKL_ENV_VK_IMPLICIT_LAYER_PATH : VKL_ENV_VK_LAYER_PATH);
    const char *add = vkl_getenv_id(implicit ? VKL_ENV_VK_ADD_IMPLICIT_LAYER_PATH : VKL_ENV_VK_ADD_LAYER_PATH);
    if (!implicit && override_layer != NULL && override_layer->override_path_count > 0) {
        if (ov != NULL || add != NULL)
            vkl_log(log, VKL_LOG_INFO | CAT,
                    "layer search: %s and %s ignored because the override layer sets override_paths "
                    "[RULE_LYR_OVERRIDE]",
                    ovar, avar);
        for (uint32_t i = 0; r == VK_SUCCESS && i < override_layer->override_path_count; i++)
            r = vkl_layer_manifest_search_entry(log, override_layer->override_paths[i], "override_paths", out);
        goto out;
    }
    if (ov != NULL) {
        if (add != NULL)
            vkl_log(log, VKL_LOG_INFO | CAT, "env %s: ignored because %s is set [%s]", avar, ovar,
                    implicit ? "RULE_LYR_ENV_IMPLICIT_LAYER_PATH" : "RULE_LYR_ENV_LAYER_PATH");
        r = search_list(log, ovar, ov, out);
        goto out;
    }
    if (add != NULL && (r = search_list(log, avar, add, out)) != VK_SUCCESS) goto out;
    /* The default directories: their bases are kept once per environment (search_paths.c); a
     * list too long to keep is written directory by directory as it is searched. */
    r = vkl_search_dirs_scan(log, implicit ? VKL_IMPLICIT_LAYER_SUFFIX : VKL_EXPLICIT_LAYER_SUFFIX, true, out);
out:
    return r;
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

static bool str_in(char *const *v, uint32_t n, const char *s) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(v[i], s) == 0) return true;
    return false;
}

/* The layers of a set by name, the first of each name (what vkl_layer_set_find returns), so that
 * building a set and every lookup by name while activating it or uniting its extensions is linear
 * in the number of layers and names (RULE_ADVERSARIAL_INPUT). The first NAME_SLOTS slots live with
 * the caller (no allocation for the usual few layers). Only if a larger table cannot be allocated
 * do lookups fall back to vkl_layer_set_find. */
#define NAME_SLOTS 32u
struct name_index {
    struct vkl_map map; /* key: layerName, value: the manifest */
    struct vkl_map_slot local[NAME_SLOTS];
    const struct vkl_layer_set *set;
    bool overflow;
};

static void name_index_init(struct name_index *ix, const struct vkl_layer_set *set) {
    vkl_map_init(&ix->map, ix->local, NAME_SLOTS, NULL, NULL, NULL);
    ix->set = set;
    ix->overflow = false;
}

static void name_index_finish(struct name_index *ix) { vkl_map_finish(&ix->map); }

static const struct vkl_layer_manifest *name_index_find(const struct name_index *ix, const char *name) {
    if (ix->overflow) return vkl_layer_set_find(ix->set, name);
    struct vkl_map_slot *s = vkl_map_find_str(&ix->map, name);
    return s != NULL ? s->value : NULL;
}

/* Indexes `l` unless a layer of its name is indexed already (the first one stays). */
static void name_index_add(struct name_index *ix, const struct vkl_layer_manifest *l) {
    if (!ix->overflow && vkl_map_put_str(&ix->map, l->props.layerName, (void *)l, NULL) != VK_SUCCESS)
        ix->overflow = true;
}

/* Indexes every layer of `set`. */
static void name_index_build(struct name_index *ix, const struct vkl_layer_set *set) {
    name_index_init(ix, set);
    for (uint32_t i = 0; i < set->count && !ix->overflow; i++) name_index_add(ix, set->layers[i]);
}

/* A manifest's list of names, asked about once per layer: one map of them, built once, so the
 * questions cost O(1) each rather than a scan of the list (RULE_ADVERSARIAL_INPUT). `ok` false
 * (out of memory): the scan answers. */
struct name_set {
    struct vkl_map map;
    struct vkl_map_slot local[NAME_SLOTS];
    char *const *v;
    uint32_t n;
    bool ok;
};

static void name_set_build(struct name_set *ns, char *const *v, uint32_t n) {
    vkl_map_init(&ns->map, ns->local, NAME_SLOTS, NULL, NULL, NULL);
    ns->v = v;
    ns->n = n;
    ns->ok = true;
    for (uint32_t i = 0; i < n && ns->ok; i++) ns->ok = vkl_map_put_str(&ns->map, v[i], NULL, NULL) == VK_SUCCESS;
}

static bool name_set_has(const struct name_set *ns, const char *name) {
    return ns->ok ? vkl_map_find_str(&ns->map, name) != NULL : str_in(ns->v, ns->n, name);
}

static void name_set_finish(struct name_set *ns) { vkl_map_finish(&ns->map); }

/* Whether `name` is one of the `n` strings `v` (the application's list): one map of them, built
 * by the caller once for many lookups. */
static VkResult str_set_build(struct vkl_map *m, struct vkl_map_slot *local, size_t nlocal, const char *const *v,
                              uint32_t n) {
    vkl_map_init(m, local, nlocal, NULL, NULL, NULL);
    for (uint32_t i = 0; i < n; i++)
        if (vkl_map_put_str(m, v[i], NULL, NULL) != VK_SUCCESS) return VK_ERROR_OUT_OF_HOST_MEMORY;
    return VK_SUCCESS;
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

/* The filter decision for one discovered layer ([Arch] "Layer Filtering", RULE_LYR_FILTER_*):
 * disabled = (~all~ || ~implicit~/~explicit~ || name matches DISABLE) && name does not match ALLOW;
 * a name matching ENABLE is always available. */
/* RULE_LYR_FILTER_ALLOW: VK_LOADER_LAYERS_ALLOW shields a layer from VK_LOADER_LAYERS_DISABLE. */
static bool filtered_out(const struct vkl_layer_set *set, const struct vkl_layer_manifest *l) {
    const char *name = l->props.layerName;
    if (vkl_filter_match(&set->enable, name)) return false;
    bool disabled = set->disable.match_all ||
                    (l->is_implicit ? set->disable.implicit_layers : set->disable.explicit_layers) ||
                    vkl_filter_match(&set->disable, name);
    return disabled && !vkl_filter_match(&set->allow, name);
}

/* LLP_LAYER_7/8, LLP_LOADER_10: every component exists and is at least as new (major.minor);
 * nesting is allowed up to VKL_LAYER_MAX_META_DEPTH; a cycle is invalid. */
/* Meta-layer validation in one pass over the component graph: an iterative depth-first search
 * (no recursion, so no stack to exhaust) with the state of each layer memoised, so every layer and
 * every component edge is looked at once: time linear in the size of the graph, whatever its
 * shape (chains, diamonds, cycles). A meta-layer is invalid when a component is missing
 * (LLP_LAYER_7), has an older API version (LLP_LAYER_8), closes a cycle or nests more than
 * VKL_LAYER_MAX_META_DEPTH meta-layers deep (LLP_LOADER_10), or is an invalid meta-layer itself.
 * `valid[i]` receives the verdict for set->layers[i] (true for layers that are not meta-layers).
 * VK_ERROR_OUT_OF_HOST_MEMORY only when the working arrays cannot be allocated. */
enum { META_NEW = 0, META_OPEN, META_VALID, META_INVALID };

static VkResult validate_metas(const struct vkl_layer_set *set, bool *valid, const struct vkl_log_sink *log) {
    uint32_t n = set->count;
    struct vkl_map_slot local[NAME_SLOTS];
    struct vkl_map names; /* layerName -> index + 1 (the first of a name) */
    vkl_map_init(&names, local, NAME_SLOTS, NULL, NULL, NULL);
    uint8_t *state = calloc(n ? n : 1, 1);
    uint32_t *height = calloc(n ? n : 1, sizeof(*height)); /* metas in the longest chain from i */
    uint32_t *next_edge = calloc(n ? n : 1, sizeof(*next_edge));
    uint32_t *stack = malloc((n ? n : 1) * sizeof(*stack));
    VkResult r = VK_SUCCESS;
    if (state == NULL || height == NULL || next_edge == NULL || stack == NULL) {
        r = VK_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) /* first wins */
        if (vkl_map_put_str(&names, set->layers[i]->props.layerName, (void *)(uintptr_t)(i + 1), NULL) != VK_SUCCESS) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
            goto out;
        }
    for (uint32_t root = 0; root < n; root++) {
        valid[root] = true;
        if (!set->layers[root]->is_meta || state[root] != META_NEW) continue;
        uint32_t top = 0;
        stack[top++] = root;
        state[root] = META_OPEN;
        height[root] = 1;
        while (top > 0) {
            uint32_t cur = stack[top - 1];
            const struct vkl_layer_manifest *meta = set->layers[cur];
            if (state[cur] == META_OPEN && next_edge[cur] < meta->component_layer_count) {
                uint32_t e = next_edge[cur]++;
                const char *cn = meta->component_layers[e];
                const struct vkl_map_slot *found = vkl_map_find_str(&names, cn);
                uint32_t ci = found != NULL ? (uint32_t)(uintptr_t)found->value - 1 : UINT32_MAX;
                if (ci == UINT32_MAX) {
                    vkl_log(log, VKL_LOG_WARN | CAT,
                            "verify_meta_layer_component_layers: Meta-layer %s can't find component layer %s at index "
                            "%u.  Skipping this layer. "
                            "[LLP_LAYER_7]",
                            meta->props.layerName, cn, e);
                    state[cur] = META_INVALID;
                    continue;
                }
                const struct vkl_layer_manifest *c = set->layers[ci];
                uint32_t mv = meta->props.specVersion, cv = c->props.specVersion;
                if (VK_API_VERSION_MAJOR(cv) < VK_API_VERSION_MAJOR(mv) ||
                    (VK_API_VERSION_MAJOR(cv) == VK_API_VERSION_MAJOR(mv) &&
                     VK_API_VERSION_MINOR(cv) < VK_API_VERSION_MINOR(mv))) {
                    vkl_log(log, VKL_LOG_WARN | CAT,
                            "meta-layer %s: uses API version %u.%u but component layer %s has %u.%u; layer skipped "
                            "[LLP_LAYER_8]",
                            meta->props.layerName, VK_API_VERSION_MAJOR(mv), VK_API_VERSION_MINOR(mv), cn,
                            VK_API_VERSION_MAJOR(cv), VK_API_VERSION_MINOR(cv));
                    state[cur] = META_INVALID;
                    continue;
                }
                if (!c->is_meta) continue;
                if (state[ci] == META_OPEN) {
                    /* The Khronos loader's words: a meta-layer naming itself "lists itself", a longer
                     * cycle "recursively references itself". */
                    if (ci == cur)
                        vkl_log(log, VKL_LOG_WARN | CAT,
                                "verify_meta_layer_component_layers: Meta-layer %s lists itself in its component layer "
                                "list at index %u.  Skipping this "
                                "layer. [LLP_LOADER_10]",
                                meta->props.layerName, e);
                    else
                        vkl_log(log, VKL_LOG_WARN | CAT,
                                "Meta-layer %s recursively references itself through its component layers (component "
                                "layer %s closes the cycle). Skipping this layer. [LLP_LOADER_10]",
                                meta->props.layerName, cn);
                    state[cur] = META_INVALID;
                    continue;
                }
                if (state[ci] == META_NEW) {
                    state[ci] = META_OPEN;
                    height[ci] = 1;
                    stack[top++] = ci;
                    continue;
                }
                if (state[ci] == META_INVALID) {
                    vkl_log(log, VKL_LOG_WARN | CAT,
                            "meta-layer %s: component layer %s was skipped; layer skipped [LLP_LAYER_7]",
                            meta->props.layerName, cn);
                    state[cur] = META_INVALID;
                    continue;
                }
                if (height[ci] + 1 > height[cur]) height[cur] = height[ci] + 1;
                continue;
            }
            /* All components seen (or the meta-layer already failed): close it. */
            top--;
            if (state[cur] == META_OPEN) {
                if (height[cur] > VKL_LAYER_MAX_META_DEPTH) {
                    vkl_log(log, VKL_LOG_WARN | CAT,
                            "meta-layer %s: nested deeper than %d; layer skipped [LLP_LOADER_10]",
                            meta->props.layerName, VKL_LAYER_MAX_META_DEPTH);
                    state[cur] = META_INVALID;
                } else {
                    state[cur] = META_VALID;
                }
            }
            if (top > 0) {
                /* Fold the closed component into its parent, which resumes at its next edge. */
                uint32_t parent = stack[top - 1];
                if (state[parent] != META_OPEN) continue;
                if (state[cur] == META_INVALID) {
                    vkl_log(log, VKL_LOG_WARN | CAT,
                            "meta-layer %s: component layer %s was skipped; layer skipped [LLP_LAYER_7]",
                            set->layers[parent]->props.layerName, meta->props.layerName);
                    state[parent] = META_INVALID;
                } else if (height[cur] + 1 > height[parent]) {
                    height[parent] = height[cur] + 1;
                }
            }
        }
    }
    for (uint32_t i = 0; i < n; i++) valid[i] = !set->layers[i]->is_meta || state[i] == META_VALID;
out:
    vkl_map_finish(&names);
    free(state);
    free(height);
    free(next_edge);
    free(stack);
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
        if (e->control == VKL_SETTINGS_LAYER_AUTO && filtered_out(out, l)) {
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
        if (ov != NULL && !filtered_out(out, ov) && vkl_layer_implicit_enabled(out, ov, log))
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
    /* One compaction (w: the layers kept so far), not a memmove per removed layer. */
    uint32_t w = 0;
    for (uint32_t i = 0; i < out->count; i++) {
        const struct vkl_layer_manifest *l = out->layers[i];
        const struct vkl_layer_manifest *ov = out->override_layer;
        if (l == NULL) continue; /* never stored (set_push takes manifests); keeps the analyzer's paths honest */
        if (l != ov && ov != NULL && name_set_has(&blacklist, l->props.layerName)) {
            vkl_log(log, VKL_LOG_INFO | CAT,
                    "layer %s: disabled by the override layer's blacklisted_layers [LLP_LOADER_12]",
                    l->props.layerName);
            continue;
        }
        if (filtered_out(out, l)) {
            vkl_log(log, VKL_LOG_WARN | CAT,
                    "Layer \"%s\" forced disabled because name matches filter of env var 'VK_LOADER_LAYERS_DISABLE'. "
                    "[RULE_LYR_FILTER_DISABLE]",
                    l->props.layerName);
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
            bool *valid = malloc(out->count * sizeof(*valid));
            r = valid != NULL ? validate_metas(out, valid, log) : VK_ERROR_OUT_OF_HOST_MEMORY;
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

/* ------------------------------------------------------------------ activation */

static bool is_override_component(const struct vkl_layer_set *set, const struct vkl_layer_manifest *l) {
    const struct vkl_layer_manifest *ov = set->override_layer;
    return ov != NULL && str_in(ov->component_layers, ov->component_layer_count, l->props.layerName);
}

/* [Lyr] "Implicit Layers" and the enable/disable table (LLP_LOADER_6/7). The variables are read
 * with vkl_getenv; they are not secure variables, so they work when elevated (a layer's own
 * switch, not a path an attacker controls). */
/* enable_environment / disable_environment are plain variables, honoured when elevated
 * (RULE_ENV_ELEVATED_LAYER_ENABLE_ENV, RULE_ENV_ELEVATED_LAYER_DISABLE_ENV). */
/* `ov_component`: whether `l` is a component of the active override layer, which ignores its
 * disable variable ([Lyr]). */
static bool implicit_enabled(const struct vkl_layer_set *set, const struct vkl_layer_manifest *l,
                             const struct vkl_log_sink *log, bool ov_component) {
    const char *name = l->props.layerName;
    if (ov_component) return true;
    bool enabled = true;
    if (l->enable_env != NULL) {
        const char *v = vkl_getenv(l->enable_env);
        /* LLP_LOADER_6: active only while the variable holds the manifest's value. */
        enabled = v != NULL && strcmp(v, l->enable_env_value) == 0;
    }
    if (!enabled && vkl_filter_match(&set->enable, name)) {
        vkl_log(log, VKL_LOG_WARN | CAT,
                "Implicit layer \"%s\" forced enabled due to env var 'VK_LOADER_LAYERS_ENABLE'. "
                "[RULE_LYR_FILTER_ENABLE]",
                name);
        enabled = true;
    }
    if (enabled && l->disable_env != NULL) {
        const char *v = vkl_getenv(l->disable_env);
        /* [Lyr]: disabled when the variable is "defined to any non-empty string value" (LLP_LOADER_7).
         * The Khronos loader also disables on an empty value (see conformance/deviations). */
        if (v != NULL && v[0] != '\0') {
            vkl_log(log, VKL_LOG_INFO | CAT, "layer %s: implicit layer disabled by env var '%s' [LLP_LOADER_7]", name,
                    l->disable_env);
            enabled = false;
        }
    }
    return enabled;
}

bool vkl_layer_implicit_enabled(const struct vkl_layer_set *set, const struct vkl_layer_manifest *l,
                                const struct vkl_log_sink *log) {
    return implicit_enabled(set, l, log, is_override_component(set, l));
}

/* Meta-layers already expanded by one activation or extension union: a meta-layer reached again
 * (a diamond in the component graph) adds nothing new, and skipping it keeps the expansion linear
 * instead of exponential in the nesting depth. */
struct meta_seen {
    struct vkl_map map; /* key: the meta-layer's manifest */
    struct vkl_map_slot local[NAME_SLOTS];
};

static void meta_seen_init(struct meta_seen *m) {
    vkl_map_init(&m->map, m->local, NAME_SLOTS, vkl_map_eq_ptr, NULL, NULL);
}

/* 1: first visit (recorded), 0: seen before, -1: out of memory. */
static int meta_first_visit(struct meta_seen *m, const struct vkl_layer_manifest *l) {
    uint64_t h = vkl_hash_ptr(l);
    if (vkl_map_find(&m->map, h, l) != NULL) return 0;
    return vkl_map_add(&m->map, h, l, NULL) == VK_SUCCESS ? 1 : -1;
}

struct act {
    const struct vkl_layer_set *set;
    const struct vkl_log_sink *log;
    const struct vkl_layer_manifest **list;
    uint32_t count, cap;
    struct vkl_map listed; /* the layers in `list` (key: manifest): a duplicate is found in O(1) */
    struct vkl_map_slot listed_local[NAME_SLOTS];
    struct name_index names;       /* the set's layers by name */
    struct name_set ov_components; /* the active override layer's component_layers */
    struct vkl_map on;             /* the settings file's "on" layers by name (settings_on) */
    struct vkl_map_slot on_local[NAME_SLOTS];
    bool on_ok; /* false: out of memory, vkl_settings_layer_on answers */
    struct meta_seen metas;
    /* Each expanded meta-layer with the list length when its components were all in: where an
     * application sees it among the activated layers (vkl_layers_activate_shown). */
    struct meta_done {
        const struct vkl_layer_manifest *meta;
        uint32_t at;
    } * done;
    uint32_t done_count, done_cap;
};

static void act_init(struct act *a, const struct vkl_layer_set *set, const struct vkl_log_sink *log) {
    a->set = set;
    a->log = log;
    a->list = NULL;
    a->count = a->cap = 0;
    a->done = NULL;
    a->done_count = a->done_cap = 0;
    vkl_map_init(&a->listed, a->listed_local, NAME_SLOTS, vkl_map_eq_ptr, NULL, NULL);
    name_index_build(&a->names, set);
    const struct vkl_layer_manifest *ov = set->override_layer;
    name_set_build(&a->ov_components, ov != NULL ? ov->component_layers : NULL,
                   ov != NULL ? ov->component_layer_count : 0);
    vkl_map_init(&a->on, a->on_local, NAME_SLOTS, NULL, NULL, NULL);
    a->on_ok = true;
    const struct vkl_settings *st = set->settings;
    for (uint32_t i = 0; st != NULL && st->has_layers && i < st->layer_count && a->on_ok; i++)
        if (st->layers[i].control == VKL_SETTINGS_LAYER_ON)
            a->on_ok = vkl_map_put_str(&a->on, st->layers[i].name, NULL, NULL) == VK_SUCCESS;
    meta_seen_init(&a->metas);
}

/* vkl_layer_implicit_enabled and vkl_settings_layer_on for one activation, through its maps. */
static bool act_ov_component(const struct act *a, const struct vkl_layer_manifest *l) {
    return a->set->override_layer != NULL && name_set_has(&a->ov_components, l->props.layerName);
}

static bool act_implicit_enabled(const struct act *a, const struct vkl_layer_manifest *l) {
    return implicit_enabled(a->set, l, a->log, act_ov_component(a, l));
}

static bool act_layer_on(const struct act *a, const char *name) {
    return a->on_ok ? vkl_map_find_str(&a->on, name) != NULL : vkl_settings_layer_on(a->set->settings, name);
}

/* Frees the lookups (not the list: the caller's on success). */
static void act_cleanup(struct act *a) {
    vkl_map_finish(&a->listed);
    name_index_finish(&a->names);
    name_set_finish(&a->ov_components);
    vkl_map_finish(&a->on);
    vkl_map_finish(&a->metas.map);
    free(a->done);
}

/* RULE_LYR_META: a meta-layer's components, in listed order, in its place. */
static VkResult act_add(struct act *a, const struct vkl_layer_manifest *l, uint32_t depth, const char *why) {
    if (depth > VKL_LAYER_MAX_META_DEPTH) return VK_SUCCESS; /* validated already; defensive */
    if (l->is_meta) {
        int first = meta_first_visit(&a->metas, l);
        if (first < 0) return VK_ERROR_OUT_OF_HOST_MEMORY;
        if (first == 0) return VK_SUCCESS;
        for (uint32_t i = 0; i < l->component_layer_count; i++) {
            const struct vkl_layer_manifest *c = name_index_find(&a->names, l->component_layers[i]);
            if (c == NULL) continue;
            VkResult r = act_add(a, c, depth + 1, why);
            if (r != VK_SUCCESS) return r;
        }
        if (a->done_count == a->done_cap) {
            uint32_t ncap = a->done_cap ? a->done_cap * 2 : 4;
            struct meta_done *n = realloc(a->done, ncap * sizeof(*n));
            if (n == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
            a->done = n;
            a->done_cap = ncap;
        }
        a->done[a->done_count].meta = l;
        a->done[a->done_count++].at = a->count;
        return VK_SUCCESS;
    }
    uint64_t h = vkl_hash_ptr(l);
    if (vkl_map_find(&a->listed, h, l) != NULL) {
        vkl_log(a->log, VKL_LOG_DEBUG | CAT, "layer %s: already enabled; duplicate from %s dropped [LLP_LOADER_3]",
                l->props.layerName, why);
        return VK_SUCCESS;
    }
    if (vkl_map_add(&a->listed, h, l, NULL) != VK_SUCCESS) return VK_ERROR_OUT_OF_HOST_MEMORY;
    if (a->count == a->cap) {
        uint32_t ncap = a->cap ? a->cap * 2 : 8;
        const struct vkl_layer_manifest **n = realloc(a->list, ncap * sizeof(*n));
        if (n == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
        a->list = n;
        a->cap = ncap;
    }
    a->list[a->count++] = l;
    vkl_log(a->log, VKL_LOG_INFO | CAT, "layer %s: enabled by %s (%s)", l->props.layerName, why, l->manifest_path);
    return VK_SUCCESS;
}

/* Implicit layers in discovery order; the override layer and its components last (LLP_LOADER_11;
 * the Khronos loader keeps discovery order). A layer named in `placed_by_env` (the honoured
 * VK_INSTANCE_LAYERS list, or NULL) is left out: the variable puts it where it names it
 * (RULE_LYR_ENV_INSTANCE_LAYERS_IMPLICIT). The override layer and its components are never left
 * out: LLP_LOADER_11 keeps them after every other implicit layer. */
static VkResult act_implicit(struct act *a, const struct vkl_strlist *placed_by_env) {
    const struct vkl_layer_set *set = a->set;
    for (uint32_t i = 0; i < set->count; i++) {
        const struct vkl_layer_manifest *l = set->layers[i];
        /* A settings-file "on" layer is active in every instance, like an enabled implicit one. */
        bool on = act_layer_on(a, l->props.layerName);
        if ((!l->is_implicit && !on) || l == set->override_layer || act_ov_component(a, l)) continue;
        if (placed_by_env != NULL && vkl_strlist_contains(placed_by_env, l->props.layerName)) continue;
        if (!on && !act_implicit_enabled(a, l)) continue;
        VkResult r = act_add(a, l, 0, on ? "the Loader Settings File (Vulkan Configurator)" : "implicit layer");
        if (r != VK_SUCCESS) return r;
    }
    if (set->override_layer != NULL) return act_add(a, set->override_layer, 0, "override layer");
    return VK_SUCCESS;
}

VkResult vkl_layers_activate_implicit(const struct vkl_layer_set *set, const struct vkl_log_sink *log,
                                      const struct vkl_layer_manifest ***out, uint32_t *out_count) {
    struct act a;
    act_init(&a, set, log);
    VkResult r = act_implicit(&a, NULL);
    act_cleanup(&a);
    if (r != VK_SUCCESS) {
        free(a.list);
        a.list = NULL;
        a.count = 0;
    }
    *out = a.list;
    *out_count = a.count;
    return r;
}

/* Activation when the settings file has a `layers` list: the set's order (the file's), each layer
 * enabled when "on", or ("auto") by the normal rules: an enabled implicit layer, VK_INSTANCE_LAYERS,
 * VK_LOADER_LAYERS_ENABLE, or the application's request. Requested layers must be available
 * ("off" ones are not: VK_ERROR_LAYER_NOT_PRESENT). */
static VkResult settings_activate(struct act *a, const struct vkl_settings *st, const char *const *app_names,
                                  uint32_t app_count) {
    const struct vkl_layer_set *set = a->set;
    for (uint32_t i = 0; i < app_count; i++) {
        if (app_names[i] != NULL && name_index_find(&a->names, app_names[i]) != NULL) continue;
        vkl_log(a->log, VKL_LOG_ERROR | CAT, "layer %s: requested by the application but not available [LLP_LOADER_1]",
                app_names[i] != NULL ? app_names[i] : "(null)");
        return VK_ERROR_LAYER_NOT_PRESENT;
    }
    struct vkl_strlist env_names = VKL_STRLIST_INIT;
    /* RULE_ENV_ELEVATED_INSTANCE_LAYERS */
    const char *il = vkl_env_is_elevated() ? NULL : vkl_getenv("VK_INSTANCE_LAYERS");
    VkResult r = il != NULL ? vkl_path_list_split(il, strlen(il), ':', &env_names) : VK_SUCCESS;
    /* the application's names (all valid: checked above), one map for every layer's lookup */
    struct vkl_map_slot app_local[NAME_SLOTS];
    struct vkl_map app;
    if (r == VK_SUCCESS)
        r = str_set_build(&app, app_local, NAME_SLOTS, app_names, app_count);
    else
        vkl_map_init(&app, app_local, NAME_SLOTS, NULL, NULL, NULL);
    for (uint32_t i = 0; r == VK_SUCCESS && i < set->count; i++) {
        const struct vkl_layer_manifest *l = set->layers[i];
        const char *name = l->props.layerName, *why = NULL;
        if (act_layer_on(a, name))
            why = "the Loader Settings File (Vulkan Configurator)";
        else if (l->is_implicit && (l == set->override_layer || act_implicit_enabled(a, l)))
            why = "implicit layer";
        else if (vkl_strlist_contains(&env_names, name))
            why = "VK_INSTANCE_LAYERS";
        else if (!l->is_implicit && vkl_filter_match(&set->enable, name))
            why = "VK_LOADER_LAYERS_ENABLE";
        if (why == NULL && vkl_map_find_str(&app, name) != NULL) why = "the application";
        if (why != NULL) r = act_add(a, l, 0, why);
    }
    vkl_map_finish(&app);
    vkl_strlist_finish(&env_names);
    return r;
}

/* The activation's layers as an application sees them: each expanded meta-layer right after the
 * components that completed it (the Khronos loader's activated-layer list, which
 * vkEnumerateDeviceLayerProperties answers with). */
static VkResult act_shown(const struct act *a, const struct vkl_layer_manifest ***shown, uint32_t *shown_count) {
    *shown = NULL;
    *shown_count = 0;
    uint32_t n = a->count + a->done_count;
    const struct vkl_layer_manifest **v = malloc((n ? n : 1) * sizeof(*v));
    if (v == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t k = 0, d = 0;
    for (uint32_t i = 0; i <= a->count; i++) {
        while (d < a->done_count && a->done[d].at == i) v[k++] = a->done[d++].meta;
        if (i < a->count) v[k++] = a->list[i];
    }
    *shown = v;
    *shown_count = k;
    return VK_SUCCESS;
}

static VkResult act_finish(struct act *a, VkResult r, const struct vkl_layer_manifest ***out, uint32_t *out_count,
                           const struct vkl_layer_manifest ***shown, uint32_t *shown_count) {
    if (r == VK_SUCCESS && shown != NULL) r = act_shown(a, shown, shown_count);
    act_cleanup(a);
    if (r != VK_SUCCESS) {
        free(a->list);
        return r;
    }
    *out = a->list;
    *out_count = a->count;
    return VK_SUCCESS;
}

VkResult vkl_layers_activate(const struct vkl_layer_set *set, const char *const *app_names, uint32_t app_count,
                             const struct vkl_log_sink *log, const struct vkl_layer_manifest ***out,
                             uint32_t *out_count) {
    return vkl_layers_activate_shown(set, app_names, app_count, log, out, out_count, NULL, NULL);
}

VkResult vkl_layers_activate_shown(const struct vkl_layer_set *set, const char *const *app_names, uint32_t app_count,
                                   const struct vkl_log_sink *log, const struct vkl_layer_manifest ***out,
                                   uint32_t *out_count, const struct vkl_layer_manifest ***shown,
                                   uint32_t *shown_count) {
    struct act a;
    act_init(&a, set, log);
    VkResult r = VK_SUCCESS;
    struct vkl_strlist env_names = VKL_STRLIST_INIT;
    *out = NULL;
    *out_count = 0;
    if (shown != NULL) *shown = NULL, *shown_count = 0;
    const struct vkl_settings *st = set->settings; /* looked up by the acquisition */
    if (st != NULL && st->has_layers)              /* the settings file's order and controls */
        return act_finish(&a, settings_activate(&a, st, app_names, app_count), out, out_count, shown, shown_count);

    /* VK_INSTANCE_LAYERS (RULE_LYR_ENV_INSTANCE_LAYERS). Decision: ignored when elevated, like
     * VK_LAYER_PATH, so an unprivileged user cannot inject a layer into a set-uid process
     * (LLP_LOADER_13; the Khronos loader honours it there:
     * https://github.com/KhronosGroup/Vulkan-Loader/issues/1712). Read before the implicit layers:
     * the implicit layers it names are placed by it. */
    const char *il = vkl_getenv("VK_INSTANCE_LAYERS");
    if (il != NULL && vkl_env_is_elevated()) {
        vkl_log(log, VKL_LOG_WARN | CAT,
                "env VK_INSTANCE_LAYERS: ignored because the process runs with elevated privileges [LLP_LOADER_13]");
        il = NULL;
    }
    if (il != NULL && (r = vkl_path_list_split(il, strlen(il), ':', &env_names)) != VK_SUCCESS) goto out;
    /* The Khronos loader's warning that the variable changes the layer set, which its users (and
     * the debug callbacks of test frameworks) look for. */
    if (il != NULL && il[0] != '\0')
        vkl_log(log, VKL_LOG_WARN | CAT,
                "env var 'VK_INSTANCE_LAYERS' defined and adding layers \"%s\" [RULE_LYR_ENV_INSTANCE_LAYERS]", il);

    /* 1. implicit layers, but for those VK_INSTANCE_LAYERS names */
    if ((r = act_implicit(&a, il != NULL ? &env_names : NULL)) != VK_SUCCESS) goto out;

    /* 2. VK_INSTANCE_LAYERS, in its order. An implicit layer it names comes here, not in the
     *    implicit group (so "explicit:implicit" puts the explicit layer closer to the application),
     *    and is enabled even when its own disable_environment / enable_environment would keep it
     *    off: the variable names it as an application names a layer (the Khronos loader's
     *    loader_add_environment_layers does not consult them either;
     *    RULE_LYR_ENV_INSTANCE_LAYERS_IMPLICIT). Filtered-out and blacklisted layers are not in
     *    the set, so they stay off. */
    /* Unknown names are said once, with the first and a count (RULE_ADVERSARIAL_INPUT: a list of 100,000 unknown
     * names must not become 100,000 log lines). */
    size_t unknown = 0;
    const char *first_unknown = NULL;
    for (size_t i = 0; i < env_names.count; i++) {
        const struct vkl_layer_manifest *l = name_index_find(&a.names, env_names.items[i]);
        if (l == NULL) {
            if (unknown++ == 0) first_unknown = env_names.items[i];
            continue;
        }
        if (l->is_implicit && l != set->override_layer && !act_ov_component(&a, l) && !act_implicit_enabled(&a, l))
            vkl_log(log, VKL_LOG_INFO | CAT,
                    "layer %s: implicit layer off by its own environment variables, enabled because env var "
                    "VK_INSTANCE_LAYERS names it [RULE_LYR_ENV_INSTANCE_LAYERS_IMPLICIT]",
                    l->props.layerName);
        if ((r = act_add(&a, l, 0, "VK_INSTANCE_LAYERS")) != VK_SUCCESS) goto out;
    }
    if (unknown == 1)
        vkl_log(log, VKL_LOG_ERROR | CAT,
                "Layer \"%.256s\" was not found but was requested by env var VK_INSTANCE_LAYERS! "
                "[RULE_LYR_ENV_INSTANCE_LAYERS]",
                first_unknown);
    else if (unknown > 1)
        vkl_log(
            log, VKL_LOG_ERROR | CAT,
            "Layer \"%.256s\" was not found but was requested by env var VK_INSTANCE_LAYERS! It is the first of %zu "
            "requested layers not found (one line for all) [RULE_LYR_ENV_INSTANCE_LAYERS]",
            first_unknown, unknown);

    /* 3. VK_LOADER_LAYERS_ENABLE matches among explicit layers, discovery order. */
    for (uint32_t i = 0; set->enable.active && i < set->count; i++) {
        const struct vkl_layer_manifest *l = set->layers[i];
        if (l->is_implicit || !vkl_filter_match(&set->enable, l->props.layerName)) continue;
        vkl_log(log, VKL_LOG_WARN | CAT,
                "Layer \"%s\" forced enabled due to env var 'VK_LOADER_LAYERS_ENABLE' [RULE_LYR_FILTER_ENABLE]",
                l->props.layerName);
        if ((r = act_add(&a, l, 0, "VK_LOADER_LAYERS_ENABLE")) != VK_SUCCESS) goto out;
    }

    /* 4. the application's layers. */
    for (uint32_t i = 0; i < app_count; i++) {
        const char *n = app_names[i] != NULL ? app_names[i] : "(null)";
        const struct vkl_layer_manifest *l = app_names[i] != NULL ? name_index_find(&a.names, n) : NULL;
        if (l == NULL) {
            vkl_log(log, VKL_LOG_ERROR | CAT, "layer %s: requested by the application but not available [LLP_LOADER_1]",
                    n);
            r = VK_ERROR_LAYER_NOT_PRESENT;
            goto out;
        }
        if ((r = act_add(&a, l, 0, "the application")) != VK_SUCCESS) goto out;
    }
out:
    vkl_strlist_finish(&env_names);
    return act_finish(&a, r, out, out_count, shown, shown_count);
}

/* The union being built: the extensions in first-seen order, and their names (keys: the names in
 * the manifests, which outlive the call) so a repeat is found in O(1). */
struct ext_acc {
    const struct name_index *names; /* the set's layers by name */
    struct meta_seen seen;
    struct vkl_map have;
    struct vkl_map_slot have_local[NAME_SLOTS];
    VkExtensionProperties *v;
    uint32_t n, cap;
};

static VkResult ext_union(const struct vkl_layer_manifest *l, bool device, uint32_t depth, struct ext_acc *acc) {
    if (depth > VKL_LAYER_MAX_META_DEPTH) return VK_SUCCESS;
    if (l->is_meta) {
        int first = meta_first_visit(&acc->seen, l);
        if (first < 0) return VK_ERROR_OUT_OF_HOST_MEMORY;
        if (first == 0) return VK_SUCCESS;
        for (uint32_t i = 0; i < l->component_layer_count; i++) {
            const struct vkl_layer_manifest *c = name_index_find(acc->names, l->component_layers[i]);
            if (c == NULL) continue;
            VkResult r = ext_union(c, device, depth + 1, acc);
            if (r != VK_SUCCESS) return r;
        }
        return VK_SUCCESS;
    }
    const struct vkl_layer_extension *e = device ? l->device_extensions : l->instance_extensions;
    uint32_t en = device ? l->device_extension_count : l->instance_extension_count;
    for (uint32_t i = 0; i < en; i++) {
        const char *name = e[i].props.extensionName;
        uint64_t h = vkl_hash_str(name);
        if (vkl_map_find(&acc->have, h, name) != NULL) continue;
        if (acc->n == acc->cap) {
            uint32_t ncap = acc->cap ? acc->cap * 2 : 8;
            VkExtensionProperties *nv = realloc(acc->v, ncap * sizeof(*nv));
            if (nv == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
            acc->v = nv;
            acc->cap = ncap;
        }
        if (vkl_map_add(&acc->have, h, name, NULL) != VK_SUCCESS) return VK_ERROR_OUT_OF_HOST_MEMORY;
        acc->v[acc->n++] = e[i].props;
    }
    return VK_SUCCESS;
}

VkResult vkl_layer_extensions(const struct vkl_layer_set *set, const struct vkl_layer_manifest *l, bool device,
                              VkExtensionProperties **out, uint32_t *out_count) {
    *out = NULL;
    *out_count = 0;
    struct name_index names;
    name_index_build(&names, set);
    struct ext_acc acc = {.names = &names};
    meta_seen_init(&acc.seen);
    vkl_map_init(&acc.have, acc.have_local, NAME_SLOTS, NULL, NULL, NULL);
    VkResult r = ext_union(l, device, 0, &acc);
    vkl_map_finish(&acc.have);
    vkl_map_finish(&acc.seen.map);
    name_index_finish(&names);
    if (r != VK_SUCCESS) {
        free(acc.v);
        return r;
    }
    *out = acc.v;
    *out_count = acc.n;
    return r;
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
