/*
 * Owned string list (see loader/internal/strlist.h).
 */
#include "loader/internal/strlist.h"

#include <stdlib.h>
#include <string.h>

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
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->items[i], s) == 0) return true;
    return false;
}

VkResult vkl_strlist_append_unique(struct vkl_strlist *list, const char *s) {
    if (vkl_strlist_contains(list, s)) return VK_SUCCESS;
    return vkl_strlist_append(list, s);
}

void vkl_strlist_finish(struct vkl_strlist *list) {
    if (list == NULL) return;
    for (size_t i = 0; i < list->count; i++) free(list->items[i]);
    free(list->items);
    list->items = NULL;
    list->count = list->cap = 0;
}
