/*
 * Owned string list (see loader/internal/strlist.h).
 */
#include "loader/internal/strlist.h"

#include <stdlib.h>
#include <string.h>

/* Lists up to this long are searched by a plain scan; longer ones get a hash index. */
#define INDEX_MIN 16u

static void index_drop(struct vkl_strlist *list) {
    if (list->index == NULL) return;
    vkl_map_finish(list->index);
    free(list->index);
    list->index = NULL;
}

/* Lookups only ask whether a string is present: a repeat is not indexed again, or 100,000 copies
 * of one path (VK_ADD_DRIVER_FILES) would probe a cluster of them each time, quadratic
 * (RULE_ADVERSARIAL_INPUT). On allocation failure the list stays unindexed (lookups scan). */
static void index_put(struct vkl_strlist *list, size_t i) {
    if (vkl_map_put_str(list->index, list->items[i], NULL, NULL) != VK_SUCCESS) index_drop(list);
}

static void index_build(struct vkl_strlist *list) {
    if ((list->index = malloc(sizeof(*list->index))) == NULL) return;
    vkl_map_init(list->index, NULL, 0, NULL, NULL, NULL);
    for (size_t i = 0; list->index != NULL && i < list->count; i++) index_put(list, i);
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
    if (list->index != NULL)
        index_put(list, list->count - 1);
    else if (list->count > INDEX_MIN)
        index_build(list);
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
    return vkl_map_find_str(list->index, s) != NULL;
}

VkResult vkl_strlist_append_unique(struct vkl_strlist *list, const char *s) {
    if (vkl_strlist_contains(list, s)) return VK_SUCCESS;
    return vkl_strlist_append(list, s);
}

void vkl_strlist_truncate(struct vkl_strlist *list, size_t count) {
    while (list->count > count) free(list->items[--list->count]);
    index_drop(list); /* its keys are gone; rebuilt by the next append that needs it */
}

void vkl_strlist_finish(struct vkl_strlist *list) {
    if (list == NULL) return;
    for (size_t i = 0; i < list->count; i++) free(list->items[i]);
    free(list->items);
    index_drop(list);
    list->items = NULL;
    list->count = list->cap = 0;
}
