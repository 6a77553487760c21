/*
 * A small owned list of C strings.
 *
 * Ownership: the list owns every item (malloc'd copies) and the items array; init with
 * `struct vkl_strlist l = {0};` (or VKL_STRLIST_INIT) and release with vkl_strlist_finish().
 * Not thread-safe (caller storage, no locking).
 */
#ifndef VKL_INTERNAL_STRLIST_H
#define VKL_INTERNAL_STRLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "loader/internal/util.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vkl_strlist {
    char **items;
    size_t count, cap;
    /* Hash index of the items for vkl_strlist_contains (util.h's map, keys the items themselves),
     * built once the list is long enough to be worth it; dropped by vkl_strlist_truncate (its keys
     * are freed there) and rebuilt by the next append that needs it. NULL: a plain scan. */
    struct vkl_map *index;
};

#define VKL_STRLIST_INIT                                                                                               \
    { NULL, 0, 0, NULL }

/* Appends a copy of `s` / of the `len` bytes at `s` (a NUL is added). VK_ERROR_OUT_OF_HOST_MEMORY
 * leaves the list unchanged. */
VkResult vkl_strlist_append(struct vkl_strlist *list, const char *s);
VkResult vkl_strlist_append_n(struct vkl_strlist *list, const char *s, size_t len);
/* Appends a copy unless an equal string (strcmp) is already present (then VK_SUCCESS, no change).
 */
VkResult vkl_strlist_append_unique(struct vkl_strlist *list, const char *s);
/* Takes ownership of malloc'd `s` (freed on failure too). */
VkResult vkl_strlist_append_owned(struct vkl_strlist *list, char *s);
/* Whether an equal string (strcmp) is in the list: O(1) expected once the list is long. */
bool vkl_strlist_contains(const struct vkl_strlist *list, const char *s);
/* Frees the items from `count` on (the list keeps its first `count`). */
void vkl_strlist_truncate(struct vkl_strlist *list, size_t count);
/* Frees every item and the array; the list is left empty and reusable. */
void vkl_strlist_finish(struct vkl_strlist *list);

#ifdef __cplusplus
}
#endif

#endif /* VKL_INTERNAL_STRLIST_H */
