/*
 * Layers: activation. Which layers of an available set an instance enables, in what order (implicit
 * layers and their enable/disable variables, VK_INSTANCE_LAYERS, VK_LOADER_LAYERS_ENABLE, the
 * application's list, the settings file's controls), meta-layers expanded in place, and the union
 * of a layer's extensions. [Lyr] LoaderLayerInterface.md; [Arch] "Filter Environment Variable
 * Behaviors"; spec §4.4.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/env.h"
#include "loader/internal/layer.h"
#include "loader/internal/layer_set.h"
#include "loader/internal/search_paths.h"
#include "loader/internal/settings.h"
#include "loader/internal/strlist.h"
#include "loader/internal/util.h"

#define CAT VKL_LOG_LAYER

/* Whether `name` is one of the `n` strings `v` (the application's list): one map of them, built
 * by the caller once for many lookups. */
static VkResult str_set_build(struct vkl_map *m, struct vkl_map_slot *local, size_t nlocal, const char *const *v,
                              uint32_t n) {
    vkl_map_init(m, local, nlocal, NULL, NULL, NULL);
    for (uint32_t i = 0; i < n; i++)
        if (vkl_map_put_str(m, v[i], NULL, NULL) != VK_SUCCESS) return VK_ERROR_OUT_OF_HOST_MEMORY;
    return VK_SUCCESS;
}

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
            if (c == NULL) {
                /* Validated, so the component exists: a filter or the override layer's blacklist
                 * removed it, and the meta-layer goes on without it. The Khronos loader's sentence
                 * (it names the meta-layer where that loader repeats the component's name). */
                vkl_log(a->log, VKL_LOG_WARN | CAT,
                        "Failed to find layer name \"%s\" component layer \"%s\" to activate (Policy #LLP_LAYER_7): "
                        "disabled, the meta-layer is enabled without it [RULE_LYR_FILTER_DISABLE]",
                        l->props.layerName, l->component_layers[i]);
                continue;
            }
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
    if (il != NULL) /* the Khronos loader's sentence for the settings-file path */
        vkl_log(a->log, VKL_LOG_WARN | CAT,
                "env var 'VK_INSTANCE_LAYERS' defined and adding layers: %s [RULE_LYR_ENV_INSTANCE_LAYERS]", il);
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
        else if (!l->is_implicit && vkl_filter_match(&set->enable, name)) {
            why = "VK_LOADER_LAYERS_ENABLE";
            vkl_log(a->log, VKL_LOG_WARN | CAT,
                    "Layer \"%s\" forced enabled due to env var 'VK_LOADER_LAYERS_ENABLE' [RULE_LYR_FILTER_ENABLE]",
                    name);
        }
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
