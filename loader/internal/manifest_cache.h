/*
 * The manifest cache shared by the driver cache (icd.c) and the layer caches (layer.c).
 *
 * One entry per manifest version: keyed by path, reused only while the file's identity
 * (internal/fileio.h: dev, ino, size, mtime) is unchanged. An entry keeps what both owners need:
 * the parse verdict, the first WARN/ERROR/INFO line of a rejected parse (re-emitted to every later
 * caller, as a fresh parse would log it), a reference count, and a stale flag. Owners embed a
 * `struct vkl_mcache_entry` in their own record and give the cache a destroy function.
 *
 * Lookup is hashed (vkl_map, internal/util.h: the path's current entry; stale entries leave the
 * map and stay only on the entry list until their last release), so finding N manifests costs O(N)
 * whatever the number cached. Allocation failures are never cached: vkl_mcache_load leaves no entry
 * behind on VK_ERROR_OUT_OF_HOST_MEMORY, so the next call tries again.
 *
 * The sweep (vkl_mcache_sweep) frees unreferenced entries that are stale or that the acquisition
 * just finished did not look up (vkl_mcache_begin starts one): a manifest that vanished, or that
 * the search no longer lists, is dropped without a system call per cached entry. A caller sweeps
 * only a cache whose whole search it ran (an implicit-only layer acquire leaves the explicit cache
 * alone). Referenced entries are only marked; their last release frees stale ones.
 *
 * Not thread-safe: each owner serialises access with its own lock.
 */
#ifndef VKL_INTERNAL_MANIFEST_CACHE_H
#define VKL_INTERNAL_MANIFEST_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "loader/internal/fileio.h"
#include "loader/internal/log.h"
#include "loader/internal/util.h"

#ifdef __cplusplus
extern "C" {
#endif

struct vkl_mcache_entry {
    struct vkl_mcache_entry *next, *prev; /* every entry of the cache */
    uint64_t hash;                        /* vkl_hash(path): its key's hash in the cache's map */
    char *path;
    struct vkl_file_id id;
    unsigned refs;
    uint32_t seen; /* the cache's generation at the last lookup or load */
    bool stale;    /* superseded: never returned again, freed at its last release */
    bool ok;       /* the parse accepted the file */
    char *error;   /* first WARN/ERROR/INFO line of a rejected parse, re-emitted to later callers */
    uint32_t error_flags;
};

struct vkl_mcache;
/* Parses `buf` into the owner's record around `e`; the cache captures the log lines it emits.
 * VK_SUCCESS: accepted; VK_ERROR_OUT_OF_HOST_MEMORY: nothing is cached; anything else: rejected (the
 * verdict and its first line are cached). */
typedef VkResult (*vkl_mcache_parse_fn)(struct vkl_mcache_entry *e, const char *path, const char *buf, size_t len,
                                        const struct vkl_log_sink *log);
/* Frees the owner's record around `e` (the cache has freed e->path and e->error already). */
typedef void (*vkl_mcache_destroy_fn)(struct vkl_mcache_entry *e);

struct vkl_mcache {
    vkl_mcache_parse_fn parse;
    vkl_mcache_destroy_fn destroy;
    uint32_t unreadable_flags;   /* log line when a listed manifest cannot be read ... */
    const char *unreadable_what; /* ... "<what> <path>: cannot be read<tail>" */
    const char *unreadable_tail;
    /* state: zero-initialised */
    struct vkl_mcache_entry *head;
    /* path -> the path's current entry (not stale; at most one per path), in the shared map of
     * internal/util.h: a zeroed map is an empty one comparing C strings, its tables from malloc. */
    struct vkl_map map;
    uint32_t gen;
};

/* Starts an acquisition: entries looked up from now on count as listed for the next sweep. */
static inline void vkl_mcache_begin(struct vkl_mcache *c) { c->gen++; }

/* The current entry of `path` with identity `id` (referenced: refs + 1), or NULL. Entries of the same
 * path with another identity become stale (freed now when unreferenced). A rejected manifest's line
 * is re-emitted to `log`. */
struct vkl_mcache_entry *vkl_mcache_find(struct vkl_mcache *c, const char *path, const struct vkl_file_id *id,
                                         const struct vkl_log_sink *log);

/* Parses the manifest at `path`, read from `file` (the vkl_file_open whose identity the caller looked
 * up with vkl_mcache_find: one fopen per manifest, docs/performance.md; the caller still closes it), into the
 * owner's zeroed record around `e` and caches it (referenced) under file->id.
 * VK_ERROR_OUT_OF_HOST_MEMORY: nothing cached, the record was destroyed. */
VkResult vkl_mcache_load(struct vkl_mcache *c, struct vkl_mcache_entry *e, const char *path, struct vkl_file *file,
                         const struct vkl_log_sink *log);

/* Drops one reference; a stale entry is freed at its last. */
void vkl_mcache_unref(struct vkl_mcache *c, struct vkl_mcache_entry *e);

/* Marks `e` stale; frees it when unreferenced. */
void vkl_mcache_discard(struct vkl_mcache *c, struct vkl_mcache_entry *e);

/* Frees every unreferenced entry that is stale or was not looked up since vkl_mcache_begin. */
void vkl_mcache_sweep(struct vkl_mcache *c);

/* Frees every unreferenced entry (all == false) or every entry (all == true: process exit). */
void vkl_mcache_flush(struct vkl_mcache *c, bool all);

#ifdef __cplusplus
}
#endif

#endif
