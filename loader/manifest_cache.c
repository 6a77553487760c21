/* The manifest cache shared by the driver and layer caches (internal/manifest_cache.h). */
#include "loader/internal/manifest_cache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/manifest.h"
#include "loader/internal/util.h"

/* Takes `e` out of the path map if it is the entry the map holds for its path (the current one). */
static void unmap(struct vkl_mcache *c, struct vkl_mcache_entry *e) {
    struct vkl_map_slot *s = e->path != NULL ? vkl_map_find(&c->map, e->hash, e->path) : NULL;
    if (s != NULL && s->value == e) vkl_map_remove(&c->map, s);
}

static void unlink_free(struct vkl_mcache *c, struct vkl_mcache_entry *e) {
    if (e->prev != NULL)
        e->prev->next = e->next;
    else
        c->head = e->next;
    if (e->next != NULL) e->next->prev = e->prev;
    if (!e->stale) unmap(c, e);
    free(e->path);
    free(e->error);
    e->path = NULL;
    e->error = NULL;
    c->destroy(e);
}

/* Marks `e` out of date (never returned again) and frees it when unreferenced. */
static void supersede(struct vkl_mcache *c, struct vkl_mcache_entry *e) {
    if (!e->stale) unmap(c, e);
    e->stale = true;
    if (e->refs == 0) unlink_free(c, e);
}

struct vkl_mcache_entry *vkl_mcache_find(struct vkl_mcache *c, const char *path, const struct vkl_file_id *id,
                                         const struct vkl_log_sink *log) {
    uint64_t hash = vkl_hash(path, strlen(path));
    struct vkl_map_slot *s = vkl_map_find(&c->map, hash, path);
    if (s == NULL) return NULL;
    struct vkl_mcache_entry *found = s->value;
    if (!vkl_file_id_equal(&found->id, id)) {
        /* Same path, another file or content: out of date. */
        supersede(c, found);
        return NULL;
    }
    found->seen = c->gen;
    found->refs++;
    /* A rejected file's line is repeated to every caller; warnings about parts of an accepted file
     * were logged once, at parse time. */
    if (!found->ok && found->error != NULL) vkl_log(log, found->error_flags, "%s", found->error);
    return found;
}

/* A sink that remembers the first rejection line of a parse and forwards every line. */
struct capture {
    const struct vkl_log_sink *fwd;
    char *line;
    uint32_t flags;
};
static void capture_emit(void *ctx, uint32_t flags, const char *line) {
    struct capture *c = ctx;
    if (c->line == NULL && (flags & (VKL_LOG_ERROR | VKL_LOG_WARN | VKL_LOG_INFO)) != 0) {
        c->line = strdup(line);
        c->flags = flags;
    }
    if (c->fwd != NULL && c->fwd->emit != NULL) c->fwd->emit(c->fwd->ctx, flags, line);
}

VkResult vkl_mcache_load(struct vkl_mcache *c, struct vkl_mcache_entry *e, const char *path, struct vkl_file *file,
                         const struct vkl_log_sink *log) {
    const struct vkl_file_id *id = &file->id;
    size_t plen = strlen(path);
    e->path = malloc(plen + 1);
    if (e->path == NULL) {
        c->destroy(e);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    memcpy(e->path, path, plen + 1);
    e->hash = vkl_hash(path, plen);
    e->id = *id;
    struct capture cap = {.fwd = log};
    struct vkl_log_sink sink = {.emit = capture_emit, .ctx = &cap};
    char *buf = NULL;
    size_t len = 0;
    /* The bytes parsed are read from the stream whose identity is recorded (docs/performance.md: the lookup's
     * fopen, not a second one). */
    VkResult r = vkl_file_read_all(file, VKL_MANIFEST_MAX_SIZE, &buf, &len);
    if (r == VK_ERROR_INITIALIZATION_FAILED && errno == EFBIG) {
        /* Say why (RULE_ADVERSARIAL_INPUT): the size seen when the search classified the file (or, when it grew
         * since, "more than" the limit), and the limit. */
        unsigned long long size = id->size > VKL_MANIFEST_MAX_SIZE ? (unsigned long long)id->size : 0;
        vkl_log(&sink, c->unreadable_flags, "%s %s: too large (%s%llu bytes; the limit is %u bytes)%s",
                c->unreadable_what, path, size != 0 ? "" : "more than ", size != 0 ? size : VKL_MANIFEST_MAX_SIZE,
                (unsigned)VKL_MANIFEST_MAX_SIZE, c->unreadable_tail);
    } else if (r == VK_ERROR_INITIALIZATION_FAILED) {
        vkl_log(&sink, c->unreadable_flags, "%s %s: cannot be read%s", c->unreadable_what, path, c->unreadable_tail);
    } else if (r == VK_SUCCESS) {
        r = c->parse(e, path, buf, len, &sink);
        free(buf);
    }
    /* The path's current entry (vkl_mcache_find superseded any other): the map's key is e->path. */
    struct vkl_map_slot *prev = r != VK_ERROR_OUT_OF_HOST_MEMORY ? vkl_map_find(&c->map, e->hash, path) : NULL;
    if (prev != NULL) supersede(c, prev->value);
    if (r == VK_ERROR_OUT_OF_HOST_MEMORY || vkl_map_add(&c->map, e->hash, e->path, e) != VK_SUCCESS) {
        free(cap.line);
        free(e->path);
        e->path = NULL;
        c->destroy(e);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    e->ok = r == VK_SUCCESS;
    if (!e->ok) {
        e->error = cap.line;
        e->error_flags = cap.flags;
    } else {
        free(cap.line);
    }
    e->seen = c->gen;
    e->refs = 1;
    e->stale = false;
    e->prev = NULL;
    e->next = c->head;
    if (c->head != NULL) c->head->prev = e;
    c->head = e;
    return VK_SUCCESS;
}

void vkl_mcache_unref(struct vkl_mcache *c, struct vkl_mcache_entry *e) {
    if (e->refs > 0) e->refs--;
    if (e->stale && e->refs == 0) unlink_free(c, e);
}

void vkl_mcache_discard(struct vkl_mcache *c, struct vkl_mcache_entry *e) { supersede(c, e); }

void vkl_mcache_sweep(struct vkl_mcache *c) {
    for (struct vkl_mcache_entry *e = c->head, *n; e != NULL; e = n) {
        n = e->next;
        if (e->refs == 0 && (e->stale || e->seen != c->gen)) unlink_free(c, e);
    }
}

void vkl_mcache_flush(struct vkl_mcache *c, bool all) {
    for (struct vkl_mcache_entry *e = c->head, *n; e != NULL; e = n) {
        n = e->next;
        if (all || e->refs == 0) unlink_free(c, e);
    }
    if (c->head == NULL) vkl_map_finish(&c->map);
}
