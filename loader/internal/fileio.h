/*
 * The loader's one file-access module (docs/architecture.md "File access").
 *
 * A file is opened once and read through the object opened: a non-blocking open(2) whose fstat
 * must say "regular file" (a FIFO without a writer opens at once and is refused, so no check-then-
 * open window lets a FIFO renamed over a manifest block us), then read(2) on that descriptor. Only
 * where the real file system cannot open a path (unreadable, or a path only an interposing test
 * framework knows) are the calls such a framework sees asked: fopen() (then fstat(fileno())), and
 * opendir() last, since an interposed opendir may map a whole folder and answer for any path under
 * it. Directories are listed with opendir/readdir/closedir, existence tested with access(), and
 * libraries loaded with dlopen (icd.c, layer.c), all of them interposable. An unchanged manifest
 * costs open + fstat + read + close.
 *
 * Thread-safety: every function is reentrant and keeps no state.
 */
#ifndef VKL_INTERNAL_FILEIO_H
#define VKL_INTERNAL_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What identifies one version of a file: a cache entry keyed by path is reused only while all
 * five fields are unchanged. st_ctime is among them because no user can set it: a file rewritten in
 * place with its size kept and its modification time restored (utimensat) still changes it. */
struct vkl_file_id {
    uint64_t dev, ino, size;
    int64_t mtime_ns, ctime_ns;
};

static inline bool vkl_file_id_equal(const struct vkl_file_id *a, const struct vkl_file_id *b) {
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns &&
           a->ctime_ns == b->ctime_ns;
}

/* What a path is, as far as the module could tell without blocking. */
enum vkl_file_kind {
    VKL_FILE_MISSING = 0, /* does not exist (or cannot be reached) */
    VKL_FILE_REGULAR,
    VKL_FILE_DIRECTORY,
    VKL_FILE_OTHER, /* FIFO, device, socket */
};

/* access(path, F_OK) == 0. */
bool vkl_file_exists(const char *path);

/* The running executable's path ("/proc/self/exe" through readlink) in `buf` (NUL-terminated),
 * or "" when it cannot be read: what settings-file and override-layer app_keys are compared with. */
const char *vkl_self_exe(char *buf, size_t len);

/* Classifies `path` without blocking: a non-blocking open(2) + fstat decides; a path open(2) cannot
 * reach is asked through fopen + fstat(fileno()) (an interposed file), then opendir() (an
 * interposed directory). errno is preserved for MISSING. */
enum vkl_file_kind vkl_file_kind(const char *path);

/* Identity of the regular file at `path` through fopen + fstat(fileno). False (errno set) when it
 * is missing, unreadable or not a regular file. `known` is what a directory listing already said
 * about the path (VKL_FILE_REGULAR skips the non-blocking probe; pass VKL_FILE_MISSING when
 * nothing is known). */
bool vkl_file_identity(const char *path, enum vkl_file_kind known, struct vkl_file_id *out);

/* Identity of a shared library at `path` as dlopen sees it: dlopen reaches the file through its own
 * open(2), so its identity is taken from one stat(2) (1 system call instead of the probe and the
 * fopen of vkl_file_identity: the driver cache checks every loaded driver's library on every call,
 * docs/performance.md). False (errno set) for a missing path or one that is not a regular file; a
 * path stat(2) cannot reach (an interposed one) is asked through vkl_file_identity. */
bool vkl_library_identity(const char *path, struct vkl_file_id *out);

/*
 * Reads the whole regular file at `path` (at most `max` bytes) through fopen/fread into a malloc'd,
 * NUL-terminated buffer (*out_len excludes the NUL). `out_id` (may be NULL) receives the identity
 * of the file actually read; `known` as for vkl_file_identity. VK_ERROR_INITIALIZATION_FAILED (errno: ENOENT/EACCES,
 * EISDIR, EINVAL for other non-regular files, EFBIG over `max`), VK_ERROR_OUT_OF_HOST_MEMORY.
 */
VkResult vkl_file_read(const char *path, enum vkl_file_kind known, size_t max, char **out_buf, size_t *out_len,
                       struct vkl_file_id *out_id);

/*
 * One open regular file, for a caller that needs its identity first and maybe its contents after
 * (the manifest caches: the identity looks the cache up, and only a miss reads the file). One fopen
 * and one fstat serve both, instead of vkl_file_identity followed by vkl_file_read (two of each;
 * per driver manifest 2 openat, 2 fstat, 2 close fewer, docs/performance.md).
 * Owned by the caller: every successful vkl_file_open is paired with one vkl_file_close.
 */
struct vkl_file {
    FILE *stream; /* private to fileio.c: the interposer's stream, or NULL */
    int fd;       /* private to fileio.c: the descriptor open(2) gave, when fd_open */
    bool fd_open;
    struct vkl_file_id id; /* the open file's identity (its fstat) */
};

/* Opens the regular file at `path` and takes its identity from the object opened, which is also
 * the one read later: a non-blocking open(2) + fstat, or, where the real file system cannot open
 * the path (an interposed one), fopen + fstat(fileno). `known` is ignored (kept for callers that
 * have a directory listing's word). False (errno set, nothing to close) when it is missing,
 * unreadable or not a regular file (EISDIR for a directory, EINVAL for a FIFO, device or socket). */
bool vkl_file_open(const char *path, enum vkl_file_kind known, struct vkl_file *out);

/* Reads the whole of `f` (at most `max` bytes) from where it was opened, as vkl_file_read does; the
 * bytes are those of the file whose identity is f->id. Call at most once per vkl_file_open. */
VkResult vkl_file_read_all(struct vkl_file *f, size_t max, char **out_buf, size_t *out_len);

/* fclose; errno is preserved. Safe on a closed or zeroed struct. */
void vkl_file_close(struct vkl_file *f);

/* One directory listing: the names (not "." / "..") ending in `suffix` (NULL: all), sorted
 * bytewise, each with what d_type said (VKL_FILE_MISSING when d_type was DT_UNKNOWN or a symlink:
 * the caller classifies the full path). Through opendir/readdir/closedir only. */
struct vkl_dir_entry {
    const char *name; /* in the list's `names` */
    enum vkl_file_kind kind;
    size_t name_off; /* name - names */
};
struct vkl_dir_list {
    struct vkl_dir_entry *items;
    size_t count;
    char *names; /* every name, NUL-terminated, one after another */
    size_t names_len;
    bool names_in_items; /* `names` lies in the allocation of `items` (one block) */
};
/* VK_SUCCESS (possibly empty), VK_ERROR_INITIALIZATION_FAILED when `dir` cannot be opened (errno
 * set), VK_ERROR_OUT_OF_HOST_MEMORY.
 *
 * RULE_STARTUP_CACHE: every global call lists the same search directories again, so the listing of
 * a directory is kept, keyed by its path and suffix, with the identity fstat(dirfd()) gave of the
 * directory the interposer's opendir opened (device, inode, size, modification and change times);
 * while that identity is unchanged the kept listing is handed out instead of reading the directory
 * again (open + fstat + fstat + close instead of open + fstat + getdents... + close). Creating,
 * removing or renaming an entry changes the directory's times; a listing is kept only when both
 * times are older than vkl_dir_cache_settle_ns before the listing began, so that a change within
 * the same timestamp granule (up to 2 s on some file systems) cannot hide behind an equal time. */
VkResult vkl_dir_list(const char *dir, const char *suffix, struct vkl_dir_list *out);
void vkl_dir_list_free(struct vkl_dir_list *list);
/* How old a directory's times must be for its listing to be kept (default 2 s); tests set 0. */
extern int64_t vkl_dir_cache_settle_ns;
/* Listings handed out from the cache, and listings read from the directory, since the process began. */
void vkl_dir_cache_stats(uint64_t *hits, uint64_t *reads);
/* Drops every kept listing (tests; the process's end frees nothing else either). */
void vkl_dir_cache_clear(void);

/* dlopen(path, RTLD_NOW | RTLD_LOCAL) for a driver or layer library, never blocking: a path with a
 * '/' that names a FIFO, device or directory is refused before dlopen (whose open(2) would block on
 * a FIFO until a writer appears). A bare name goes to the dynamic linker's search unchanged. On
 * failure *err (may be NULL) receives dlerror()'s text or our reason; it is valid until the next
 * call on this thread. */
void *vkl_library_open(const char *path, const char **err);

/* The reason in `err` (from vkl_library_open for `path`; NULL gives "unknown error") without the
 * "<path>: " dlerror() puts first, so a log line can name the reason before the (long) path and
 * not name the path twice. */
const char *vkl_library_error_reason(const char *path, const char *err);

/* What vkl_library_open_id learned about the library file's identity. */
enum vkl_library_id {
    VKL_LIBRARY_ID_UNKNOWN = 0, /* not taken: a bare name (the dynamic linker searched), or a path
                                   open(2) cannot reach (an interposed one): ask vkl_library_identity */
    VKL_LIBRARY_ID_TAKEN,       /* *out_id: the file at `path` as the check before dlopen saw it */
    VKL_LIBRARY_ID_NONE,        /* `path` was missing or not a regular file: it has no identity */
};

/* vkl_library_open, also returning the identity the file-kind check before dlopen took (one
 * non-blocking open + fstat, as vkl_library_identity): the driver cache records it instead of
 * opening the library file a second time after the load (docs/performance.md). The identity is of the path
 * as given; the file dlopen mapped may have been replaced in between, which the next
 * vkl_library_identity comparison sees as a change (a reload, never a missed change). */
void *vkl_library_open_id(const char *path, const char **err, struct vkl_file_id *out_id,
                          enum vkl_library_id *out_state);

#ifdef __cplusplus
}
#endif

#endif
