/* The loader's file access (internal/fileio.h): opendir/readdir, access, fopen + fstat(fileno). */
#include "loader/internal/fileio.h"

#include "loader/internal/library_guard.h"
#include "loader/internal/util.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool vkl_file_exists(const char *path) { return path != NULL && access(path, F_OK) == 0; }

static enum vkl_file_kind kind_of_mode(mode_t mode) {
    if (S_ISREG(mode)) return VKL_FILE_REGULAR;
    if (S_ISDIR(mode)) return VKL_FILE_DIRECTORY;
    return VKL_FILE_OTHER;
}

/* vkl_file_kind; *st_ok says whether *st holds the status of the file the probe opened (false when
 * the answer came from an interposed fopen/access). */
static enum vkl_file_kind probe_kind(const char *path, struct stat *st, bool *st_ok) {
    *st_ok = false;
    if (path == NULL || path[0] == '\0') {
        errno = ENOENT;
        return VKL_FILE_MISSING;
    }
    /* The probe: O_NONBLOCK so a FIFO without a writer cannot block us; the descriptor is only
     * fstat()ed, never read. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0) {
        *st_ok = fstat(fd, st) == 0;
        close(fd);
        return *st_ok ? kind_of_mode(st->st_mode) : VKL_FILE_OTHER;
    }
    int saved = errno;
    /* Not openable here: unreadable, or a path only an interposer knows. Ask the interposer's
     * fopen first: it answers for the file itself, whereas an interposed opendir may map a whole
     * folder and answer for any path under it (the Khronos test framework's does), which would
     * take a file for a directory. open(2) failed, so no FIFO is behind a real path here. */
    FILE *f = fopen(path, "re");
    if (f != NULL) {
        *st_ok = fstat(fileno(f), st) == 0;
        fclose(f);
        return *st_ok ? kind_of_mode(st->st_mode) : VKL_FILE_OTHER;
    }
    DIR *d = opendir(path);
    if (d != NULL) {
        closedir(d);
        return VKL_FILE_DIRECTORY;
    }
    errno = saved;
    return VKL_FILE_MISSING;
}

enum vkl_file_kind vkl_file_kind(const char *path) {
    struct stat st;
    bool st_ok;
    return probe_kind(path, &st, &st_ok);
}

static int not_regular_errno(const struct stat *st) { return S_ISDIR(st->st_mode) ? EISDIR : EINVAL; }

static void fill_id(const struct stat *st, struct vkl_file_id *out) {
    out->dev = (uint64_t)st->st_dev;
    out->ino = (uint64_t)st->st_ino;
    out->size = (uint64_t)st->st_size;
    out->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
    out->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

/*
 * Opens the regular file at `path` for reading, and reads it later through the very descriptor or
 * stream whose status decided that it is a regular file: nothing is opened twice, so a FIFO renamed
 * over the path between a check and an open cannot block us (RULE_ADVERSARIAL_INPUT), and an
 * unchanged manifest costs open + fstat + read + close.
 *  1. open(2) with O_NONBLOCK (a FIFO without a writer opens at once and is refused by its fstat);
 *  2. when the real file system cannot open the path (unreadable, or a path only an interposing
 *     framework knows): the interposer's fopen, then fstat(fileno()). No FIFO is behind a real path
 *     here, since open(2) just failed on it.
 */
bool vkl_file_open(const char *path, enum vkl_file_kind known, struct vkl_file *out) {
    (void)known; /* the status of what is opened decides, whatever a listing said */
    out->stream = NULL;
    out->fd = -1;
    out->fd_open = false;
    memset(&out->id, 0, sizeof(out->id));
    if (path == NULL || path[0] == '\0') {
        errno = path == NULL ? EINVAL : ENOENT;
        return false;
    }
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd >= 0) {
        int e = fstat(fd, &st) != 0 ? errno : !S_ISREG(st.st_mode) ? not_regular_errno(&st) : 0;
        if (e != 0) {
            close(fd);
            errno = e;
            return false;
        }
        out->fd = fd;
        out->fd_open = true;
        fill_id(&st, &out->id);
        return true;
    }
    FILE *f = fopen(path, "re");
    if (f == NULL) return false;
    int e = fstat(fileno(f), &st) != 0 ? errno : !S_ISREG(st.st_mode) ? not_regular_errno(&st) : 0;
    if (e != 0) {
        fclose(f);
        errno = e;
        return false;
    }
    /* Unbuffered: reads go straight into the caller's buffer (sized from st_size), so stdio
     * allocates no buffer of its own (nor fstat()s the file again to size one). */
    setvbuf(f, NULL, _IONBF, 0);
    out->stream = f;
    fill_id(&st, &out->id);
    return true;
}

void vkl_file_close(struct vkl_file *f) {
    if (f == NULL) return;
    int saved = errno;
    if (f->stream != NULL) fclose(f->stream);
    if (f->fd_open) close(f->fd);
    f->stream = NULL;
    f->fd = -1;
    f->fd_open = false;
    errno = saved;
}

bool vkl_file_identity(const char *path, enum vkl_file_kind known, struct vkl_file_id *out) {
    struct vkl_file f;
    if (!vkl_file_open(path, known, &f)) return false;
    vkl_file_close(&f);
    if (out != NULL) *out = f.id;
    return true;
}

bool vkl_library_identity(const char *path, struct vkl_file_id *out) {
    if (path == NULL || path[0] == '\0') {
        errno = ENOENT;
        return false;
    }
    /* stat(2): the file dlopen's own open(2) would reach (glibc's dlopen opens through an internal,
     * non-interposable call), without blocking on a FIFO, in one system call: every loaded driver's
     * library is checked on every global call (docs/performance.md, system calls per driver). */
    struct stat st;
    if (stat(path, &st) != 0) return vkl_file_identity(path, VKL_FILE_MISSING, out);
    if (!S_ISREG(st.st_mode)) {
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        return false;
    }
    if (out != NULL) fill_id(&st, out);
    return true;
}

/* RULE_ADVERSARIAL_INPUT: files above `max`, FIFOs and devices are refused without reading (the
 * open refused the latter two). */
VkResult vkl_file_read_all(struct vkl_file *f, size_t max, char **out_buf, size_t *out_len) {
    if (out_buf) *out_buf = NULL;
    if (out_len) *out_len = 0;
    if (f == NULL || (f->stream == NULL && !f->fd_open) || out_buf == NULL || out_len == NULL) {
        errno = EINVAL;
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkResult result = VK_ERROR_INITIALIZATION_FAILED;
    char *buf = NULL;
    if (f->id.size > max) {
        errno = EFBIG;
        goto out;
    }
    /* Read up to max + 1 bytes whatever st_size said (the file may grow under us). */
    size_t cap = (size_t)f->id.size + 1, len = 0;
    buf = malloc(cap + 1);
    if (buf == NULL) {
        result = VK_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    for (;;) {
        if (len == cap) {
            if (cap > max) break;
            size_t ncap = cap * 2 > max + 1 ? max + 1 : cap * 2;
            char *nbuf = realloc(buf, ncap + 1);
            if (nbuf == NULL) {
                result = VK_ERROR_OUT_OF_HOST_MEMORY;
                goto out;
            }
            buf = nbuf;
            cap = ncap;
        }
        size_t want = cap - len, n;
        if (f->fd_open) {
            ssize_t r = read(f->fd, buf + len, want);
            if (r < 0) {
                if (errno == EINTR) continue;
                goto out;
            }
            n = (size_t)r;
            /* A short read of a regular file is its end (or a file that shrank under us): no
             * further read(2) to see 0 when st_size was right. */
        } else {
            n = fread(buf + len, 1, want, f->stream);
            if (n < want && ferror(f->stream)) {
                if (errno == 0) errno = EIO;
                goto out;
            }
        }
        len += n;
        if (n < want) break; /* end of file: no second read(2) at EOF */
    }
    if (len > max) {
        errno = EFBIG;
        goto out;
    }
    buf[len] = '\0';
    *out_buf = buf;
    *out_len = len;
    buf = NULL;
    result = VK_SUCCESS;
out:
    free(buf);
    return result;
}

VkResult vkl_file_read(const char *path, enum vkl_file_kind known, size_t max, char **out_buf, size_t *out_len,
                       struct vkl_file_id *out_id) {
    if (out_buf) *out_buf = NULL;
    if (out_len) *out_len = 0;
    if (out_buf == NULL || out_len == NULL) {
        errno = EINVAL;
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    struct vkl_file f;
    if (!vkl_file_open(path, known, &f)) return VK_ERROR_INITIALIZATION_FAILED;
    VkResult r = vkl_file_read_all(&f, max, out_buf, out_len);
    vkl_file_close(&f);
    if (r == VK_SUCCESS && out_id != NULL) *out_id = f.id;
    return r;
}

static bool has_suffix(const char *name, const char *suffix) {
    if (suffix == NULL) return true;
    size_t n = strlen(name), s = strlen(suffix);
    return n >= s && memcmp(name + n - s, suffix, s) == 0;
}

static int entry_cmp(const void *a, const void *b) {
    return strcmp(((const struct vkl_dir_entry *)a)->name, ((const struct vkl_dir_entry *)b)->name);
}

/* ------------------------------------------------------------------ directory listings */

int64_t vkl_dir_cache_settle_ns = 2000000000; /* FAT's 2 s granule is the coarsest in use */

/* One kept listing (internal/fileio.h, RULE_STARTUP_CACHE). */
struct dir_kept {
    char *key; /* dir_key */
    struct vkl_file_id id;
    struct vkl_dir_list list;
};

#define DIR_KEPT_MAX 1024 /* directories kept at most: the search lists a few dozen */

static pthread_mutex_t g_dir_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vkl_map g_dirs; /* key -> struct dir_kept */
static bool g_dirs_ready;
static uint64_t g_dir_hits, g_dir_reads;

/* "<suffix>\n<path>" ('\r' for no suffix: NULL and "" differ) in `buf` when it fits, else allocated
 * (*heap set); NULL when memory ran out. One directory is listed under one suffix by every caller. */
static char *dir_key(const char *dir, const char *suffix, char *buf, size_t cap, bool *heap) {
    size_t sl = suffix != NULL ? strlen(suffix) : 0, dl = strlen(dir);
    char *k = buf;
    *heap = sl + 1 + dl + 1 > cap;
    if (*heap && (k = malloc(sl + 1 + dl + 1)) == NULL) return NULL;
    if (sl) memcpy(k, suffix, sl);
    k[sl] = suffix != NULL ? '\n' : '\r';
    memcpy(k + sl + 1, dir, dl + 1);
    return k;
}

/* A copy of `src` into `dst`, in one allocation (the entries, then the names). */
static VkResult list_copy(const struct vkl_dir_list *src, struct vkl_dir_list *dst) {
    memset(dst, 0, sizeof(*dst));
    if (src->count == 0) return VK_SUCCESS;
    struct vkl_dir_entry *items = malloc(src->count * sizeof(*items) + src->names_len);
    if (items == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    char *names = (char *)(items + src->count);
    memcpy(names, src->names, src->names_len);
    for (size_t i = 0; i < src->count; i++) {
        items[i] = src->items[i];
        items[i].name = names + src->items[i].name_off;
    }
    dst->items = items;
    dst->count = src->count;
    dst->names = names;
    dst->names_len = src->names_len;
    dst->names_in_items = true;
    return VK_SUCCESS;
}

/* VK_SUCCESS: `out` holds the kept listing; VK_INCOMPLETE: none kept for this identity. */
static VkResult dir_cache_get(const char *key, const struct vkl_file_id *id, struct vkl_dir_list *out) {
    VkResult r = VK_INCOMPLETE;
    pthread_mutex_lock(&g_dir_lock);
    struct vkl_map_slot *slot = g_dirs_ready ? vkl_map_find_str(&g_dirs, key) : NULL;
    const struct dir_kept *kept = slot != NULL ? slot->value : NULL;
    if (kept != NULL && vkl_file_id_equal(&kept->id, id)) {
        r = list_copy(&kept->list, out);
        if (r == VK_SUCCESS) g_dir_hits++;
    }
    pthread_mutex_unlock(&g_dir_lock);
    return r;
}

/* Keeps a copy of `list` (replacing what was kept for `key`); nothing kept when memory runs out. */
static void dir_cache_put(const char *key, const struct vkl_file_id *id, const struct vkl_dir_list *list) {
    struct dir_kept *kept = calloc(1, sizeof(*kept));
    if (kept == NULL) return;
    kept->key = strdup(key);
    kept->id = *id;
    if (kept->key == NULL || list_copy(list, &kept->list) != VK_SUCCESS) {
        free(kept->key);
        free(kept);
        return;
    }
    struct dir_kept *old = NULL;
    pthread_mutex_lock(&g_dir_lock);
    if (!g_dirs_ready) {
        vkl_map_init(&g_dirs, NULL, 0, NULL, NULL, NULL);
        g_dirs_ready = true;
    }
    struct vkl_map_slot *slot = vkl_map_find_str(&g_dirs, key);
    if (slot != NULL) {
        old = slot->value;
        slot->key = kept->key;
        slot->value = kept;
        kept = NULL;
    } else if (g_dirs.count < DIR_KEPT_MAX &&
               vkl_map_add(&g_dirs, vkl_hash_str(kept->key), kept->key, kept) == VK_SUCCESS) {
        kept = NULL;
    }
    pthread_mutex_unlock(&g_dir_lock);
    struct dir_kept *drop[2] = {old, kept};
    for (int i = 0; i < 2; i++) {
        if (drop[i] == NULL) continue;
        vkl_dir_list_free(&drop[i]->list);
        free(drop[i]->key);
        free(drop[i]);
    }
}

void vkl_dir_cache_stats(uint64_t *hits, uint64_t *reads) {
    pthread_mutex_lock(&g_dir_lock);
    if (hits != NULL) *hits = g_dir_hits;
    if (reads != NULL) *reads = g_dir_reads;
    pthread_mutex_unlock(&g_dir_lock);
}

void vkl_dir_cache_clear(void) {
    pthread_mutex_lock(&g_dir_lock);
    if (g_dirs_ready) {
        for (size_t i = 0; i < g_dirs.cap; i++) {
            struct dir_kept *kept = g_dirs.slot[i].key != NULL ? g_dirs.slot[i].value : NULL;
            if (kept == NULL) continue;
            vkl_dir_list_free(&kept->list);
            free(kept->key);
            free(kept);
        }
        vkl_map_finish(&g_dirs);
        g_dirs_ready = false;
    }
    pthread_mutex_unlock(&g_dir_lock);
}

/* Whether a directory with identity `id`, listed after `start` (CLOCK_REALTIME_COARSE, the clock
 * the kernel stamps files with), has times old enough that any later change shows as other times. */
static bool dir_settled(const struct vkl_file_id *id, const struct timespec *start) {
    int64_t now = (int64_t)start->tv_sec * 1000000000 + start->tv_nsec;
    int64_t newest = id->mtime_ns > id->ctime_ns ? id->mtime_ns : id->ctime_ns;
    return newest < now - vkl_dir_cache_settle_ns;
}

/* Appends `name` to the list being read: the entry records its offset (the names may move). */
static VkResult list_append(struct vkl_dir_list *out, size_t *cap, size_t *names_cap, const char *name,
                            enum vkl_file_kind kind) {
    size_t len = strlen(name) + 1;
    if (out->count == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        struct vkl_dir_entry *n = realloc(out->items, ncap * sizeof(*n));
        if (n == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
        out->items = n;
        *cap = ncap;
    }
    if (out->names_len + len > *names_cap) {
        size_t ncap = *names_cap ? *names_cap * 2 : 256;
        while (ncap < out->names_len + len) ncap *= 2;
        char *n = realloc(out->names, ncap);
        if (n == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
        out->names = n;
        *names_cap = ncap;
    }
    memcpy(out->names + out->names_len, name, len);
    out->items[out->count].name = NULL;
    out->items[out->count].name_off = out->names_len;
    out->items[out->count].kind = kind;
    out->names_len += len;
    out->count++;
    return VK_SUCCESS;
}

VkResult vkl_dir_list(const char *dir, const char *suffix, struct vkl_dir_list *out) {
    memset(out, 0, sizeof(*out));
    struct timespec start;
    bool timed = clock_gettime(CLOCK_REALTIME_COARSE, &start) == 0;
    DIR *d = dir != NULL ? opendir(dir) : NULL;
    if (d == NULL) {
        if (dir == NULL) errno = EINVAL;
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    /* The identity of the directory the (possibly interposed) opendir opened; none when the
     * interposer's DIR has no descriptor: then nothing is kept. */
    struct vkl_file_id id;
    struct stat st;
    int fd = dirfd(d);
    bool id_ok = timed && fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode);
    char kbuf[256];
    bool key_heap = false;
    char *key = id_ok ? dir_key(dir, suffix, kbuf, sizeof(kbuf), &key_heap) : NULL;
    if (key != NULL) {
        fill_id(&st, &id);
        VkResult r = dir_cache_get(key, &id, out);
        if (r != VK_INCOMPLETE) {
            closedir(d);
            if (key_heap) free(key);
            return r;
        }
    }
    size_t cap = 0, names_cap = 0;
    VkResult result = VK_SUCCESS;
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(d);
        if (de == NULL) {
            if (errno != 0) id_ok = false; /* a read error: the listing may be short, never kept */
            break;
        }
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        if (!has_suffix(de->d_name, suffix)) continue;
        enum vkl_file_kind k = VKL_FILE_MISSING;
        switch (de->d_type) {
            case DT_REG: k = VKL_FILE_REGULAR; break;
            case DT_DIR: k = VKL_FILE_DIRECTORY; break;
            case DT_FIFO:
            case DT_CHR:
            case DT_BLK:
            case DT_SOCK: k = VKL_FILE_OTHER; break;
            default: k = VKL_FILE_MISSING; break; /* DT_LNK, DT_UNKNOWN: the caller classifies */
        }
        result = list_append(out, &cap, &names_cap, de->d_name, k);
        if (result != VK_SUCCESS) break;
    }
    closedir(d);
    if (result != VK_SUCCESS) {
        if (key_heap) free(key);
        vkl_dir_list_free(out);
        return result;
    }
    for (size_t i = 0; i < out->count; i++) out->items[i].name = out->names + out->items[i].name_off;
    if (out->count > 1) qsort(out->items, out->count, sizeof(out->items[0]), entry_cmp);
    pthread_mutex_lock(&g_dir_lock);
    g_dir_reads++;
    pthread_mutex_unlock(&g_dir_lock);
    if (key != NULL && id_ok && dir_settled(&id, &start)) dir_cache_put(key, &id, out);
    if (key_heap) free(key);
    return VK_SUCCESS;
}

void vkl_dir_list_free(struct vkl_dir_list *list) {
    if (list == NULL) return;
    free(list->items);
    if (!list->names_in_items) free(list->names);
    memset(list, 0, sizeof(*list));
}

void *vkl_library_open_id(const char *path, const char **err, struct vkl_file_id *out_id,
                          enum vkl_library_id *out_state) {
    if (err != NULL) *err = NULL;
    if (out_state != NULL) *out_state = VKL_LIBRARY_ID_UNKNOWN;
    if (path == NULL) {
        if (err != NULL) *err = "no library path";
        return NULL;
    }
    if (strchr(path, '/') != NULL) {
        struct stat st;
        bool st_ok;
        enum vkl_file_kind k = probe_kind(path, &st, &st_ok);
        if (out_state != NULL) {
            if (k == VKL_FILE_REGULAR && st_ok) {
                *out_state = VKL_LIBRARY_ID_TAKEN;
                if (out_id != NULL) fill_id(&st, out_id);
            } else if (k != VKL_FILE_REGULAR) {
                *out_state = VKL_LIBRARY_ID_NONE;
            }
        }
        if (k == VKL_FILE_DIRECTORY || k == VKL_FILE_OTHER) {
            if (err != NULL)
                *err = k == VKL_FILE_DIRECTORY ? "is a directory, not a library"
                                               : "not a regular file (a FIFO, socket or device); not opened";
            return NULL;
        }
    }
    /* RULE_ADVERSARIAL_INPUT: the check above and dlopen's own open(2) are two opens; a FIFO
     * renamed over the path in between would block that open for good (library_guard.h). */
    struct vkl_library_guard_load guard;
    vkl_library_guard_begin(&guard, path);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    const char *e = h == NULL ? dlerror() : NULL;
    bool interrupted = vkl_library_guard_end(&guard);
    if (h == NULL && interrupted) {
        e = "opening it blocked (a FIFO renamed over the library?) and was interrupted after 1 s; not loaded";
        if (out_state != NULL) *out_state = VKL_LIBRARY_ID_UNKNOWN;
    }
    if (h == NULL && err != NULL) *err = e != NULL ? e : "unknown error";
    return h;
}

void *vkl_library_open(const char *path, const char **err) { return vkl_library_open_id(path, err, NULL, NULL); }

const char *vkl_library_error_reason(const char *path, const char *err) {
    if (err == NULL) return "unknown error";
    size_t n = path != NULL ? strlen(path) : 0;
    if (n > 0 && strncmp(err, path, n) == 0 && err[n] == ':' && err[n + 1] == ' ') return err + n + 2;
    return err;
}

const char *vkl_self_exe(char *buf, size_t len) {
    if (buf == NULL || len == 0) return "";
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n < 0) n = 0;
    buf[n] = '\0';
    return buf;
}
