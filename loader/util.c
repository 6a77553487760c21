/* The loader's shared helpers (internal/util.h). */
#include "loader/internal/util.h"

#include <stdlib.h>
#include <string.h>

#include "loader/internal/env.h"

uint64_t vkl_hash(const void *p, size_t len) {
    const char *s = p;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, sizeof(w));
        h = (h ^ w) * 0xFF51AFD7ED558CCDull;
        h ^= h >> 32;
    }
    uint64_t w = 0;
    if (len > i) memcpy(&w, s + i, len - i);
    h = (h ^ w) * 0xC4CEB9FE1A85EC53ull;
    return h ^ (h >> 29);
}

/* ---- map */

static void *table_alloc(const struct vkl_map *m, size_t n) {
    if (n > SIZE_MAX / sizeof(struct vkl_map_slot)) return NULL;
    size_t bytes = n * sizeof(struct vkl_map_slot);
    void *t = m->cb != NULL ? m->cb->pfnAllocation(m->cb->pUserData, bytes, _Alignof(struct vkl_map_slot), m->scope)
                            : malloc(bytes);
    if (t != NULL) memset(t, 0, bytes);
    return t;
}

static void table_free(const struct vkl_map *m, struct vkl_map_slot *t) {
    if (t == NULL || t == m->local) return;
    if (m->cb != NULL)
        m->cb->pfnFree(m->cb->pUserData, t);
    else
        free(t);
}

void vkl_map_init(struct vkl_map *m, struct vkl_map_slot *local, size_t nlocal, vkl_map_eq_fn eq, const void *ctx,
                  const VkAllocationCallbacks *cb) {
    m->local = nlocal > 0 ? local : NULL;
    m->slot = m->local;
    m->cap = m->local != NULL ? nlocal : 0;
    m->count = 0;
    m->eq = eq;
    m->ctx = ctx;
    m->cb = cb;
    m->scope = VK_SYSTEM_ALLOCATION_SCOPE_COMMAND;
    if (m->local != NULL) memset(local, 0, nlocal * sizeof(*local));
}

void vkl_map_finish(struct vkl_map *m) {
    table_free(m, m->slot);
    m->slot = NULL;
    m->local = NULL;
    m->cap = m->count = 0;
}

static bool keys_equal(const struct vkl_map *m, const struct vkl_map_slot *s, const void *key) {
    if (m->eq != NULL) return m->eq(s, key, m->ctx);
    return strcmp((const char *)s->key, (const char *)key) == 0;
}

struct vkl_map_slot *vkl_map_find(const struct vkl_map *m, uint64_t hash, const void *key) {
    if (m->count == 0) return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)hash & mask; m->slot[i].key != NULL; i = (i + 1) & mask)
        if (m->slot[i].hash == hash && keys_equal(m, &m->slot[i], key)) return &m->slot[i];
    return NULL;
}

static struct vkl_map_slot *place(struct vkl_map_slot *t, size_t cap, uint64_t hash, const void *key, void *value) {
    size_t mask = cap - 1, i = (size_t)hash & mask;
    while (t[i].key != NULL) i = (i + 1) & mask;
    t[i].hash = hash;
    t[i].key = key;
    t[i].value = value;
    return &t[i];
}

static struct vkl_map_slot *add(struct vkl_map *m, uint64_t hash, const void *key, void *value) {
    if ((m->count + 1) * 2 > m->cap) { /* at most half full: short probe runs */
        size_t n = m->cap ? m->cap * 2 : 16;
        if (n < m->cap) return NULL;
        struct vkl_map_slot *t = table_alloc(m, n);
        if (t == NULL) return NULL;
        /* Moved in probe order, from a free slot on: keys added twice (vkl_map_add) keep their order,
         * so a lookup still finds the first one added after the table grows. */
        size_t start = 0;
        while (start < m->cap && m->slot[start].key != NULL) start++;
        for (size_t j = 1; j <= m->cap; j++) {
            size_t i = (start + j) % m->cap;
            if (m->slot[i].key != NULL) place(t, n, m->slot[i].hash, m->slot[i].key, m->slot[i].value);
        }
        table_free(m, m->slot);
        m->slot = t;
        m->cap = n;
    }
    m->count++;
    return place(m->slot, m->cap, hash, key, value);
}

VkResult vkl_map_add(struct vkl_map *m, uint64_t hash, const void *key, void *value) {
    return add(m, hash, key, value) != NULL ? VK_SUCCESS : VK_ERROR_OUT_OF_HOST_MEMORY;
}

VkResult vkl_map_put(struct vkl_map *m, uint64_t hash, const void *key, void *value, struct vkl_map_slot **slot) {
    struct vkl_map_slot *s = vkl_map_find(m, hash, key);
    if (s == NULL && (s = add(m, hash, key, value)) == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    if (slot != NULL) *slot = s;
    return VK_SUCCESS;
}

void vkl_map_remove(struct vkl_map *m, struct vkl_map_slot *s) {
    size_t mask = m->cap - 1, hole = (size_t)(s - m->slot);
    for (size_t j = (hole + 1) & mask; m->slot[j].key != NULL; j = (j + 1) & mask) {
        /* The key at j moves into the hole unless its home slot lies cyclically in (hole, j]. */
        size_t home = (size_t)m->slot[j].hash & mask;
        bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (stays) continue;
        m->slot[hole] = m->slot[j];
        hole = j;
    }
    memset(&m->slot[hole], 0, sizeof(m->slot[hole]));
    m->count--;
}

bool vkl_map_eq_span(const struct vkl_map_slot *stored, const void *key, const void *ctx) {
    (void)ctx;
    const struct vkl_span *k = key;
    return (size_t)(uintptr_t)stored->value == k->len && memcmp(stored->key, k->s, k->len) == 0;
}

bool vkl_map_eq_ptr(const struct vkl_map_slot *stored, const void *key, const void *ctx) {
    (void)ctx;
    return stored->key == key;
}

/* ---- strings and paths */

static void *malloc_ctx(void *ctx, size_t size) {
    (void)ctx;
    return malloc(size);
}

char *vkl_strdup_with(const char *s, void *(*alloc)(void *ctx, size_t size), void *ctx) {
    if (s == NULL) return NULL;
    size_t n = strlen(s) + 1;
    char *d = alloc(ctx, n);
    if (d != NULL) memcpy(d, s, n);
    return d;
}

char *vkl_strdup(const char *s) { return vkl_strdup_with(s, malloc_ctx, NULL); }

char *vkl_path_beside(const char *file, const char *rel) {
    const char *slash = rel[0] == '/' ? NULL : strrchr(file, '/');
    if (slash == NULL) return vkl_strdup(rel);
    size_t dir_len = (size_t)(slash - file) + 1; /* keeps the '/' */
    size_t len = strlen(rel) + 1;
    char *d = malloc(dir_len + len);
    if (d == NULL) return NULL;
    memcpy(d, file, dir_len);
    memcpy(d + dir_len, rel, len);
    return d;
}

/* ---- libraries */

bool vkl_library_unload_allowed(void) {
    const char *keep = vkl_getenv("VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING");
    return keep == NULL || strcmp(keep, "1") != 0;
}

/* ---- sorting */

/* Bottom-up: runs of `width` elements merged pairwise, alternating between `base` and `scratch`. */
void vkl_sort_stable(void *base, size_t n, size_t size, int (*cmp)(const void *a, const void *b, void *ctx), void *ctx,
                     void *scratch) {
    if (n < 2) return;
    char *src = base, *dst = scratch;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi) {
                /* `a` first unless `b` is strictly smaller: equal elements keep their order */
                if (cmp(src + b * size, src + a * size, ctx) < 0)
                    memcpy(dst + (o++) * size, src + (b++) * size, size);
                else
                    memcpy(dst + (o++) * size, src + (a++) * size, size);
            }
            if (a < mid) {
                memcpy(dst + o * size, src + a * size, (mid - a) * size);
                o += mid - a;
            }
            if (b < hi) memcpy(dst + o * size, src + b * size, (hi - b) * size);
        }
        char *t = src;
        src = dst;
        dst = t;
        if (width > n / 2) break; /* the whole array is one run */
    }
    if (src != base) memcpy(base, src, n * size);
}

bool vkl_utf8_valid(const unsigned char *p, size_t len) {
    for (size_t i = 0; i < len;) {
        size_t n = p[i] < 0x80             ? 1
                   : (p[i] & 0xE0) == 0xC0 ? 2
                   : (p[i] & 0xF0) == 0xE0 ? 3
                   : (p[i] & 0xF8) == 0xF0 ? 4
                                           : 0;
        if (n == 0 || i + n > len || (n == 2 && p[i] < 0xC2)) return false;
        for (size_t k = 1; k < n; k++)
            if ((p[i + k] & 0xC0) != 0x80) return false;
        i += n;
    }
    return true;
}
