/*
 * What the layer files share over a `struct vkl_layer_set` (layer.c: discovery and the available
 * set; layer_filter.c: the filter decision and meta-layer validation; layer_activate.c: activation
 * and the extension union): the lookups by name, inline, and the two checks the acquisition runs.
 * Private to those files; the rest of the loader uses internal/layer.h.
 */
#ifndef VKL_INTERNAL_LAYER_SET_H
#define VKL_INTERNAL_LAYER_SET_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "loader/internal/layer.h"
#include "loader/internal/log.h"
#include "loader/internal/util.h"

#ifdef __cplusplus
extern "C" {
#endif

static inline bool str_in(char *const *v, uint32_t n, const char *s) {
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

static inline void name_index_init(struct name_index *ix, const struct vkl_layer_set *set) {
    vkl_map_init(&ix->map, ix->local, NAME_SLOTS, NULL, NULL, NULL);
    ix->set = set;
    ix->overflow = false;
}

static inline void name_index_finish(struct name_index *ix) { vkl_map_finish(&ix->map); }

static inline const struct vkl_layer_manifest *name_index_find(const struct name_index *ix, const char *name) {
    if (ix->overflow) return vkl_layer_set_find(ix->set, name);
    struct vkl_map_slot *s = vkl_map_find_str(&ix->map, name);
    return s != NULL ? s->value : NULL;
}

/* Indexes `l` unless a layer of its name is indexed already (the first one stays). */
static inline void name_index_add(struct name_index *ix, const struct vkl_layer_manifest *l) {
    if (!ix->overflow && vkl_map_put_str(&ix->map, l->props.layerName, (void *)l, NULL) != VK_SUCCESS)
        ix->overflow = true;
}

/* Indexes every layer of `set`. */
static inline void name_index_build(struct name_index *ix, const struct vkl_layer_set *set) {
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

static inline void name_set_build(struct name_set *ns, char *const *v, uint32_t n) {
    vkl_map_init(&ns->map, ns->local, NAME_SLOTS, NULL, NULL, NULL);
    ns->v = v;
    ns->n = n;
    ns->ok = true;
    for (uint32_t i = 0; i < n && ns->ok; i++) ns->ok = vkl_map_put_str(&ns->map, v[i], NULL, NULL) == VK_SUCCESS;
}

static inline bool name_set_has(const struct name_set *ns, const char *name) {
    return ns->ok ? vkl_map_find_str(&ns->map, name) != NULL : str_in(ns->v, ns->n, name);
}

static inline void name_set_finish(struct name_set *ns) { vkl_map_finish(&ns->map); }

/* The filter decision for one discovered layer (layer_filter.c). */
bool vkl_layer_filtered_out(const struct vkl_layer_set *set, const struct vkl_layer_manifest *l);
/* Meta-layer validation over `n` layers: `valid[i]` for layers[i] (layer_filter.c). The list holds
 * the available layers and, after them, those the filters or the override layer's blacklist
 * removed: a component that exists but is disabled does not make its meta-layer invalid. */
VkResult vkl_layer_metas_validate(const struct vkl_layer_manifest *const *layers, uint32_t n, bool *valid,
                                  const struct vkl_log_sink *log);

#ifdef __cplusplus
}
#endif
#endif /* VKL_INTERNAL_LAYER_SET_H */
