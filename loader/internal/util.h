/*
 * The loader's small shared helpers (util.c): the one string hash, the one open-addressing hash
 * map, the one strdup, the one "path beside a file" resolver, the one "may this library be
 * unloaded" rule and a stable sort. Every private copy these replaced is gone; only the lock-free
 * vkGetDeviceProcAddr answer cache (device.c) keeps its own table (readers never lock, so it cannot
 * be this map).
 *
 * Not thread-safe: a map belongs to its caller, who serialises access.
 */
#ifndef VKL_INTERNAL_UTIL_H
#define VKL_INTERNAL_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- hash */

/* 64-bit hash of `len` bytes of `s`, 8 bytes per step. */
uint64_t vkl_hash(const void *s, size_t len);
static inline uint64_t vkl_hash_str(const char *s);

/* ---- map
 *
 * Open addressing with linear probing over a power-of-two number of slots, kept at most half full,
 * so a lookup or an insertion is O(1) expected and building a map of n keys O(n). A slot holds the
 * key's hash, the key (NULL: empty slot) and a value; the map never copies or frees keys or values.
 *
 * The first block of slots may be the caller's (on its stack, say): a map that never outgrows it
 * allocates nothing. Larger tables come from `cb` (the instance's allocation callbacks, scope
 * COMMAND) or malloc when `cb` is NULL. An insertion that cannot grow the table returns
 * VK_ERROR_OUT_OF_HOST_MEMORY and leaves the map as it was (still usable for lookups).
 *
 * Keys are compared with `eq(stored slot, key, ctx)` after their hashes match; `eq` NULL compares
 * them as C strings (strcmp). The stored slot is passed so that a key may be a small token (an
 * index, say) standing for text the caller keeps, and looked up by another representation. */
struct vkl_map_slot {
    uint64_t hash;
    const void *key; /* NULL: empty */
    void *value;
};

typedef bool (*vkl_map_eq_fn)(const struct vkl_map_slot *stored, const void *key, const void *ctx);

struct vkl_map {
    struct vkl_map_slot *slot; /* `local` or an allocated table */
    struct vkl_map_slot *local;
    size_t cap, count; /* cap: a power of two (or 0: no table yet) */
    vkl_map_eq_fn eq;
    const void *ctx;
    const VkAllocationCallbacks *cb;
    VkSystemAllocationScope scope; /* of the tables from `cb`: COMMAND unless the caller sets another */
};

/* `local`: the caller's first `nlocal` slots (a power of two, or 0 for none), cleared here. */
void vkl_map_init(struct vkl_map *m, struct vkl_map_slot *local, size_t nlocal, vkl_map_eq_fn eq, const void *ctx,
                  const VkAllocationCallbacks *cb);
/* Frees an allocated table; the map is left empty (and may be used again, without `local`'s room
 * once it had grown out of it: init again for that). */
void vkl_map_finish(struct vkl_map *m);
/* The slot holding a key equal to `key`, or NULL. */
struct vkl_map_slot *vkl_map_find(const struct vkl_map *m, uint64_t hash, const void *key);
/* Adds `key` (non-NULL) without looking for an equal one (the caller knows there is none, or
 * wants both). VK_ERROR_OUT_OF_HOST_MEMORY: nothing added. */
VkResult vkl_map_add(struct vkl_map *m, uint64_t hash, const void *key, void *value);
/* Finds `key`; when absent adds it with `value`. *slot (may be NULL) receives the key's slot, the one
 * found or the one added; it stays valid until the next insertion. */
VkResult vkl_map_put(struct vkl_map *m, uint64_t hash, const void *key, void *value, struct vkl_map_slot **slot);

/* Empties `s` (a slot of `m`, from vkl_map_find or vkl_map_put): the keys after it in its probe run
 * move back into the gap, so every other key is still found (keys added twice keep their order).
 * Slot pointers held across a removal may then name another key. Frees nothing. */
void vkl_map_remove(struct vkl_map *m, struct vkl_map_slot *s);

/* The C-string forms (hash vkl_hash_str; the map's `eq` must take strings: NULL does). */
static inline struct vkl_map_slot *vkl_map_find_str(const struct vkl_map *m, const char *key) {
    return vkl_map_find(m, vkl_hash_str(key), key);
}
static inline VkResult vkl_map_put_str(struct vkl_map *m, const char *key, void *value, struct vkl_map_slot **slot) {
    return vkl_map_put(m, vkl_hash_str(key), key, value, slot);
}

/* Keys that are byte strings inside text the caller keeps (no NUL needed): the slot's key is the
 * first byte, its value the length; the map's `eq` must be vkl_map_eq_span. A set of path-list
 * entries, say, without copying them. */
struct vkl_span {
    const char *s;
    size_t len;
};
bool vkl_map_eq_span(const struct vkl_map_slot *stored, const void *key, const void *ctx);
static inline struct vkl_map_slot *vkl_map_find_span(const struct vkl_map *m, const char *s, size_t len) {
    struct vkl_span k = {s, len};
    return vkl_map_find(m, vkl_hash(s, len), &k);
}
static inline VkResult vkl_map_add_span(struct vkl_map *m, const char *s, size_t len) {
    return vkl_map_add(m, vkl_hash(s, len), s, (void *)(uintptr_t)len);
}

/* Keys that are pointers compared by address (hash: vkl_hash_ptr). */
bool vkl_map_eq_ptr(const struct vkl_map_slot *stored, const void *key, const void *ctx);
static inline uint64_t vkl_hash_ptr(const void *p) {
    uintptr_t v = (uintptr_t)p;
    return vkl_hash(&v, sizeof(v));
}

/* ---- strings and paths */

/* A copy of `s` from malloc (NULL when out of memory, or when `s` is NULL). Callers that allocate
 * through the application's callbacks use vkl_strdup_alloc (alloc.c), built on vkl_strdup_with. */
char *vkl_strdup(const char *s);
/* A copy of `s` in memory from `alloc(ctx, size)`. */
char *vkl_strdup_with(const char *s, void *(*alloc)(void *ctx, size_t size), void *ctx);

/* A path a file names, resolved beside that file: `rel` as written when absolute, otherwise
 * relative to the directory of `file` (the text of `file` up to and including its last '/'); a
 * `file` without a '/' leaves `rel` as written. Used for a manifest's relative library_path
 * ([Drv], [Lyr]: "relative to the manifest file"; the caller leaves a bare file name, without a
 * '/', to the dynamic linker's search) and for the paths a settings file names (docs/settings.md
 * "Relative paths"). malloc'd; NULL when out of memory. */
char *vkl_path_beside(const char *file, const char *rel);

/* ---- libraries */

/* Whether a library the loader opened may be dlclose'd now: not while
 * VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING=1 (a documented debugging aid: libraries stay mapped
 * so leak checkers can still symbolise their stacks). Drivers, layers and pre-instance libraries
 * all ask this one rule. */
bool vkl_library_unload_allowed(void);

/* Whether the `len` bytes at p are UTF-8 (no overlong two-byte forms; surrogates not checked): the
 * names a driver answers with (RULE_DRV_UNTRUSTED_ANSWERS; ldp-check's LINT_UNTRUSTED_ANSWERS). */
bool vkl_utf8_valid(const unsigned char *p, size_t len);

/* ---- sorting */

/* Stable merge sort of `n` elements of `size` bytes: O(n log n) compares, elements that compare
 * equal keep their order. `scratch` holds n * size bytes. */
void vkl_sort_stable(void *base, size_t n, size_t size, int (*cmp)(const void *a, const void *b, void *ctx), void *ctx,
                     void *scratch);

static inline uint64_t vkl_hash_str(const char *s) { return vkl_hash(s, strlen(s)); }

#ifdef __cplusplus
}
#endif

#endif /* VKL_INTERNAL_UTIL_H */
