/*
 * Owned string list (see loader/internal/strlist.h).
 */
#include "loader/internal/strlist.h"

#include <stdlib.h>
#include <string.h>

#include "loader/internal/manifest_cache.h" /* vkl_mcache_hash */

/* Lists up to this long are searched by a plain scan; longer ones get a hash index. */
#define INDEX_MIN 16u

static void index_put(struct vkl_strlist *list, size_t i) {
    const char *s = list->items[i];
    size_t mask = list->slots - 1;
    for (size_t h = (size_t)vkl_mcache_hash(s, strlen(s)) & mask;; h = (h + 1) & mask) {
        if (list->index[h] == 0) {
            list->index[h] = (uint32_t)(i + 1);
            return;
        }
        /* Lookups only ask whether a string is present: a repeat is not indexed again, or 100,000
         * copies of one path (VK_ADD_DRIVER_FILES) would probe a cluster of them each time,
         * quadratic (RULE_ADVERSARIAL_INPUT). */
        if (strcmp(list->items[list->index[h] - 1], s) == 0) return;
    }
}

/* (Re)builds the index with room for twice the capacity; on allocation failure the list simply
 * stays unindexed (lookups scan). */
static void index_rebuild(struct vkl_strlist *list) {
    size_t slots = 64;
    while (slots < 2 * list->cap) slots *= 2;
    if (slots > UINT32_MAX) {
        free(list->index);
        list->index = NULL;
        list->slots = 0;
        return;
    }
    uint32_t *ix = calloc(slots, sizeof(*ix));
    free(list->index);
    list->index = ix;
    list->slots = ix != NULL ? slots : 0;
    for (size_t i = 0; ix != NULL && i < list->count; i++) index_put(list, i);
}

VkResult vkl_strlist_append_owned(struct vkl_strlist *list, char *s) {
    if (s == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    if (list->count == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 8;
        char **items = realloc(list->items, cap * sizeof(*items));
        if (items == NULL) {
            free(s);
            return VK_ERROR_OUT_OF_HOST_MEMORY;
        }
        list->items = items;
        list->cap = cap;
    }
    list->items[list->count++] = s;
    if (list->index != NULL && 2 * list->count <= list->slots)
        index_put(list, list->count - 1);
    else if (list->count > INDEX_MIN)
        index_rebuild(list);
    return VK_SUCCESS;
}

VkResult vkl_strlist_append_n(struct vkl_strlist *list, const char *s, size_t len) {
    char *copy = malloc(len + 1);
    if (copy == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    memcpy(copy, s, len);
    copy[len] = '\0';
    return vkl_strlist_append_owned(list, copy);
}

VkResult vkl_strlist_append(struct vkl_strlist *list, const char *s) {
    return vkl_strlist_append_n(list, s, strlen(s));
}

bool vkl_strlist_contains(const struct vkl_strlist *list, const char *s) {
    if (list->index == NULL) {
        for (size_t i = 0; i < list->count; i++)
            if (strcmp(list->items[i], s) == 0) return true;
        return false;
    }
    size_t mask = list->slots - 1;
    for (size_t h = (size_t)vkl_mcache_hash(s, strlen(s)) & mask; list->index[h] != 0; h = (h + 1) & mask) {
        size_t i = list->index[h] - 1;
        if (i < list->count && strcmp(list->items[i], s) == 0) return true;
    }
    return false;
}

VkResult vkl_strlist_append_unique(struct vkl_strlist *list, const char *s) {
    if (vkl_strlist_contains(list, s)) return VK_SUCCESS;
    return vkl_strlist_append(list, s);
}

void vkl_strlist_truncate(struct vkl_strlist *list, size_t count) {
    while (list->count > count) free(list->items[--list->count]);
    free(list->index); /* rebuilt by the next append that needs it */
    list->index = NULL;
    list->slots = 0;
}

void vkl_strlist_finish(struct vkl_strlist *list) {
    if (list == NULL) return;
    for (size_t i = 0; i < list->count; i++) free(list->items[i]);
    free(list->items);
    free(list->index);
    list->items = NULL;
    list->index = NULL;
    list->count = list->cap = list->slots = 0;
}
