/*
 * Layers: which discovered layers stay available. The VK_LOADER_LAYERS_* filter decision for one
 * layer and the validation of every meta-layer of a set (layer.c's acquisition applies both).
 * [Arch] "Filter Environment Variable Behaviors"; [Lyr] "Meta-Layers".
 */
#include <stdint.h>
#include <stdlib.h>

#include "loader/internal/layer.h"
#include "loader/internal/layer_set.h"
#include "loader/internal/util.h"

#define CAT VKL_LOG_LAYER

/* The filter decision for one discovered layer ([Arch] "Layer Filtering", RULE_LYR_FILTER_*):
 * disabled = (~all~ || ~implicit~/~explicit~ || name matches DISABLE) && name does not match ALLOW;
 * a name matching ENABLE is always available. */
/* RULE_LYR_FILTER_ALLOW: VK_LOADER_LAYERS_ALLOW shields a layer from VK_LOADER_LAYERS_DISABLE. */
bool vkl_layer_filtered_out(const struct vkl_layer_set *set, const struct vkl_layer_manifest *l) {
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
 * `valid[i]` receives the verdict for layers[i] (true for layers that are not meta-layers).
 * VK_ERROR_OUT_OF_HOST_MEMORY only when the working arrays cannot be allocated. */
enum { META_NEW = 0, META_OPEN, META_VALID, META_INVALID };

/* A valid meta-layer offers its components' extensions (RULE_LYR_META); each is named at DEBUG in
 * the Khronos loader's words, which its users grep for. Linear in the components' extension lists. */
static void log_component_extensions(const struct vkl_layer_manifest *const *layers, const struct vkl_map *names,
                                     const struct vkl_layer_manifest *meta, const struct vkl_log_sink *log) {
    for (uint32_t k = 0; k < meta->component_layer_count; k++) {
        const struct vkl_map_slot *found = vkl_map_find_str(names, meta->component_layers[k]);
        if (found == NULL) continue;
        const struct vkl_layer_manifest *c = layers[(uint32_t)(uintptr_t)found->value - 1];
        for (uint32_t e = 0; e < c->instance_extension_count; e++)
            vkl_log(log, VKL_LOG_DEBUG | CAT, "Meta-layer %s component layer %s adding instance extension %s",
                    meta->props.layerName, c->props.layerName, c->instance_extensions[e].props.extensionName);
        for (uint32_t e = 0; e < c->device_extension_count; e++)
            vkl_log(log, VKL_LOG_DEBUG | CAT, "Meta-layer %s component layer %s adding device extension %s",
                    meta->props.layerName, c->props.layerName, c->device_extensions[e].props.extensionName);
    }
}

VkResult vkl_layer_metas_validate(const struct vkl_layer_manifest *const *layers, uint32_t n, bool *valid,
                                  const struct vkl_log_sink *log) {
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
        if (vkl_map_put_str(&names, layers[i]->props.layerName, (void *)(uintptr_t)(i + 1), NULL) != VK_SUCCESS) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
            goto out;
        }
    for (uint32_t root = 0; root < n; root++) {
        valid[root] = true;
        if (!layers[root]->is_meta || state[root] != META_NEW) continue;
        uint32_t top = 0;
        stack[top++] = root;
        state[root] = META_OPEN;
        height[root] = 1;
        while (top > 0) {
            uint32_t cur = stack[top - 1];
            const struct vkl_layer_manifest *meta = layers[cur];
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
                const struct vkl_layer_manifest *c = layers[ci];
                uint32_t mv = meta->props.specVersion, cv = c->props.specVersion;
                if (VK_API_VERSION_MAJOR(cv) < VK_API_VERSION_MAJOR(mv) ||
                    (VK_API_VERSION_MAJOR(cv) == VK_API_VERSION_MAJOR(mv) &&
                     VK_API_VERSION_MINOR(cv) < VK_API_VERSION_MINOR(mv))) {
                    /* the Khronos loader's sentence (its users grep for it), then the names */
                    vkl_log(log, VKL_LOG_WARN | CAT,
                            "verify_meta_layer_component_layers: Meta-layer uses API version %u.%u, but component "
                            "layer %u has API version %u.%u that is lower.  Skipping this layer. (meta-layer %s, "
                            "component layer %s) [LLP_LAYER_8]",
                            VK_API_VERSION_MAJOR(mv), VK_API_VERSION_MINOR(mv), e, VK_API_VERSION_MAJOR(cv),
                            VK_API_VERSION_MINOR(cv), meta->props.layerName, cn);
                    state[cur] = META_INVALID;
                    continue;
                }
                if (!c->is_meta) continue;
                if (ci != cur)
                    vkl_log(
                        log, VKL_LOG_INFO | CAT,
                        "verify_meta_layer_component_layers: Adding meta-layer %s which also contains meta-layer %s "
                        "[RULE_LYR_META]",
                        meta->props.layerName, cn);
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
                            layers[parent]->props.layerName, meta->props.layerName);
                    state[parent] = META_INVALID;
                } else if (height[cur] + 1 > height[parent]) {
                    height[parent] = height[cur] + 1;
                }
            }
        }
    }
    for (uint32_t i = 0; i < n; i++) {
        valid[i] = !layers[i]->is_meta || state[i] == META_VALID;
        if (!valid[i]) /* the Khronos loader's sentence for the removal (DEBUG, as it logs it) */
            vkl_log(log, VKL_LOG_DEBUG | CAT,
                    "Removing meta-layer %s from instance layer list since it appears invalid. [LLP_LAYER_7]",
                    layers[i]->props.layerName);
        else if (layers[i]->is_meta)
            log_component_extensions(layers, &names, layers[i], log);
    }
out:
    vkl_map_finish(&names);
    free(state);
    free(height);
    free(next_edge);
    free(stack);
    return r;
}
