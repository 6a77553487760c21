/*
 * Drivers: search, manifest cache, filters, dlopen and loader/driver interface negotiation.
 *
 * Start-up cost by design: a manifest is parsed once per (path, device, inode, size, mtime); a
 * library is opened once and negotiated once; later pre-instance calls and vkCreateInstance reuse
 * the cached result. Filters are evaluated on every call because the environment may change.
 */
#if defined(__SANITIZE_ADDRESS__)
#define VKL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VKL_ASAN 1
#endif
#endif
#ifdef VKL_ASAN
#include <sanitizer/asan_interface.h>
#endif
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "loader/internal/env.h"
#include "loader/internal/filter.h"
#include "loader/internal/loader.h"
#include "loader/internal/manifest_cache.h"
#include "loader/internal/search_paths.h"
#include "loader/internal/settings.h"
#include "loader/internal/util.h"

/* The manifest's file name, as the documents' filter messages show it ([Drv] "Driver Select
 * Filtering": `Driver "intel_icd.x86_64.json" ignored because ...`); the path follows in ours. */
static const char *manifest_file_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

static pthread_mutex_t g_driver_lock = PTHREAD_MUTEX_INITIALIZER;
/* The drivers' spare per-instance records (struct vkl_driver `spare`). A leaf: nothing else is locked
 * and no foreign code runs under it. A mutex rather than an atomic exchange: both ThreadSanitizer and
 * Valgrind's helgrind/DRD see the hand-over from the vkDestroyInstance that keeps a record to the
 * vkCreateInstance that reuses it on another thread (helgrind does not model C11 atomics and
 * reported every reuse as a race, docs/architecture.md "Concurrency"). */
static pthread_mutex_t g_spare_lock = PTHREAD_MUTEX_INITIALIZER;

struct vkl_icd_instance *vkl_driver_spare_swap(struct vkl_driver *d, struct vkl_icd_instance *ii) {
    pthread_mutex_lock(&g_spare_lock);
    struct vkl_icd_instance *old = d->spare;
    d->spare = ii;
    pthread_mutex_unlock(&g_spare_lock);
    return old;
}

/* A driver of the manifest cache (manifest_cache.h): the cache entry (path, identity, verdict,
 * captured error line, references, stale flag) and the driver record. Cached drivers keep their
 * references and staleness in `ce`; their `d.stale` stays false. Direct drivers (direct_driver.c)
 * are plain records outside the cache, created with d.stale set and d.refs their set's one
 * reference. */
struct cached_driver {
    struct vkl_mcache_entry ce;
    struct vkl_driver d;
    uint32_t taken; /* the cache generation of the acquisition that last put it in its set */
    /* The library file was written in place (same inode) while d.lib was loaded: the image is no
     * longer intact (library_poison). The record then outlives its cache entry on g_poisoned,
     * keeping d.lib, which is never called or closed again. */
    bool lib_corrupt;
    struct cached_driver *poisoned_next;
    /* The image's executable segments, recorded at load while the image is intact (its program
     * headers are in a file-backed page that a write in place changes too). */
    struct {
        uintptr_t start;
        size_t len;
    } text[4];
    unsigned text_count;
    /* A copy of its dynamic section, which the dynamic linker reads at exit to find the image's
     * destructors (DT_FINI, DT_FINI_ARRAY): truncating the file discards even the private copies
     * of its data pages. */
    ElfW(Dyn) * dyn_at;
    ElfW(Dyn) dyn[64];
    unsigned dyn_count;
};

/* Records whose library image was changed in place (under g_driver_lock). Never freed: dlopen of
 * the same path (its name or its inode) returns the corrupt image for the rest of the process, and
 * driver_load recognises it here. One record per library changed in place, so the list stays as
 * short as the number of such changes. */
static struct cached_driver *g_poisoned;

static struct cached_driver *cached_of(struct vkl_driver *d) {
    return (struct cached_driver *)(void *)((char *)d - offsetof(struct cached_driver, d));
}

const char *vkl_driver_name(const struct vkl_driver *d) { return d->manifest_path; }

/* RULE_STARTUP_CACHE: many manifests may name one library file (bench/extreme.sh: 100,000
 * manifests, one library). Within one pass over the drivers (an acquisition, or the flush at
 * exit) that file's identity is taken once, not once per manifest; and a library this pass
 * already loaded under exactly that name is opened again with no system call: glibc's dlopen
 * compares the name with the loaded objects' before it opens anything, so no FIFO renamed over
 * the path can be reached either. Only the last path asked is kept (a fixed buffer: no
 * allocation per driver). Under g_driver_lock. */
static struct {
    uint64_t pass; /* g_lib_pass when taken; another pass ignores it */
    bool ok;       /* vkl_library_identity's answer */
    struct vkl_file_id id;
    void *lib; /* loaded in this pass under exactly `path` (NULL: none) */
    char path[512];
} g_lib_memo;
static uint64_t g_lib_pass = 1;

static void lib_pass_begin(void) { g_lib_pass++; }

static bool lib_memo_is(const char *path) {
    return path != NULL && g_lib_memo.pass == g_lib_pass && strcmp(g_lib_memo.path, path) == 0;
}

static void lib_memo_set(const char *path, bool ok, const struct vkl_file_id *id, void *lib) {
    if (!lib_memo_is(path)) {
        size_t n = path != NULL ? strlen(path) : sizeof(g_lib_memo.path);
        g_lib_memo.pass = 0;
        if (n >= sizeof(g_lib_memo.path)) return; /* not kept: asked again */
        memcpy(g_lib_memo.path, path, n + 1);
        g_lib_memo.lib = NULL;
    }
    g_lib_memo.pass = g_lib_pass;
    g_lib_memo.ok = ok;
    if (ok) g_lib_memo.id = *id;
    if (lib != NULL) g_lib_memo.lib = lib;
}

/* vkl_library_identity(path), asked once per pass while the same path is asked in a row. */
static bool lib_identity_now(const char *path, struct vkl_file_id *out) {
    if (lib_memo_is(path)) {
        if (g_lib_memo.ok) *out = g_lib_memo.id;
        return g_lib_memo.ok;
    }
    bool ok = vkl_library_identity(path, out);
    lib_memo_set(path, ok, out, NULL);
    return ok;
}

bool vkl_driver_has_extension(const struct vkl_driver *d, const char *name) {
    for (uint32_t i = 0; i < d->extension_count; i++)
        if (strcmp(d->extensions[i].extensionName, name) == 0) return true;
    return false;
}

/* RULE_DRV_UNTRUSTED_ANSWERS: the newest Khronos loader no longer trusts a driver's answers to the
 * count/array protocol, nor do we. Every buffer of the loader's own that a driver fills has one
 * element of slack after the `asked` elements, filled with 0xA5: a driver that writes past
 * *pCount writes there instead of past the allocation, and is logged; a driver that reports more
 * elements than it was given (a count that grew between the count call and the fill call, given
 * back instead of VK_INCOMPLETE) is logged and only `asked` elements are used. */
#define VKL_SLACK_BYTE 0xA5
void vkl_slack_init(void *slack, size_t size) { memset(slack, VKL_SLACK_BYTE, size); }

uint32_t vkl_fill_checked(const struct vkl_log_sink *log, const struct vkl_driver *d, const char *cmd, uint32_t asked,
                          uint32_t got, const void *slack, size_t size) {
    const unsigned char *b = slack;
    size_t i = 0;
    while (i < size && b[i] == VKL_SLACK_BYTE) i++;
    if (i < size)
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "driver %s: %s wrote past the %u elements it was given (into the loader's slack) "
                "[RULE_DRV_UNTRUSTED_ANSWERS]",
                vkl_driver_name(d), cmd, asked);
    if (got > asked) {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "driver %s: %s reported %u elements in an array of %u (a count larger than the array instead of "
                "VK_INCOMPLETE); only %u are used [RULE_DRV_UNTRUSTED_ANSWERS]",
                vkl_driver_name(d), cmd, got, asked, asked);
        got = asked;
    }
    return got;
}

/* A name a driver wrote into a fixed-size array (extensionName, deviceName) must end within it: one
 * that does not is logged and terminated at its last byte, so nothing reads past the array
 * (RULE_DRV_UNTRUSTED_ANSWERS). A terminated name that is not UTF-8 is logged and passed on
 * unchanged, as the Khronos loader passes it (dropping it would hide an extension or a device the
 * driver has; the bytes are the driver's answer). Returns whether the name was terminated. */
bool vkl_name_checked(const struct vkl_log_sink *log, const struct vkl_driver *d, const char *cmd, char *name,
                      size_t size) {
    const char *nul = memchr(name, '\0', size);
    if (nul != NULL) {
        if (!vkl_utf8_valid((const unsigned char *)name, (size_t)(nul - name)))
            vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "driver %s: %s returned a name that is not valid UTF-8; passed on unchanged "
                    "[RULE_DRV_UNTRUSTED_ANSWERS]",
                    vkl_driver_name(d), cmd);
        return true;
    }
    name[size - 1] = '\0';
    vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
            "driver %s: %s returned a name without a terminating NUL in its %zu-byte array; cut to %zu bytes "
            "[RULE_DRV_UNTRUSTED_ANSWERS]",
            vkl_driver_name(d), cmd, size, size - 1);
    return false;
}

static bool library_poison(struct cached_driver *cd, const struct vkl_log_sink *log);
static void neutralise_text(struct cached_driver *cd);

static void driver_unload(struct vkl_driver *d) {
    free(d->extensions);
    d->extensions = NULL;
    d->extension_count = 0;
    /* RULE_ADVERSARIAL_INPUT: dlclose runs the library's destructors, which a file written in place
     * has corrupted: such an image is left mapped for good (one identity check per unload, which
     * only a changed manifest, a vanished one or the process's end causes). */
    if (d->lib != NULL && (cached_of(d)->lib_corrupt || library_poison(cached_of(d), NULL))) {
        d->loaded = false;
        return;
    }
    if (d->lib != NULL) {
        if (vkl_library_unload_allowed()) dlclose(d->lib);
        d->lib = NULL;
    }
    d->loaded = false;
}

static void driver_free_fields(struct vkl_driver *d) {
    free(vkl_driver_spare_swap(d, NULL)); /* allocated by the default allocator (malloc) */
    driver_unload(d);
    if (d->lib == NULL) free(d->lib_path); /* a corrupt image's record keeps its path (g_poisoned) */
    vkl_icd_manifest_finish(&d->manifest);
    free(d->manifest_error);
    free(d->manifest_path);
}

static VkResult driver_parse(struct vkl_mcache_entry *e, const char *path, const char *buf, size_t len,
                             const struct vkl_log_sink *log) {
    struct cached_driver *cd = (struct cached_driver *)(void *)e;
    return vkl_icd_manifest_parse(path, buf, len, log, &cd->d.manifest);
}

static void driver_destroy(struct vkl_mcache_entry *e) {
    struct cached_driver *cd = (struct cached_driver *)(void *)e;
    driver_free_fields(&cd->d);
    if (!cd->lib_corrupt) free(cd); /* else it stays on g_poisoned, holding d.lib */
}

static struct vkl_mcache g_cache = {
    .parse = driver_parse,
    .destroy = driver_destroy,
    .unreadable_flags = VKL_LOG_ERROR | VKL_LOG_DRIVER,
    .unreadable_what = "driver manifest",
    .unreadable_tail = " [LDP_DRIVER_4]",
};

__attribute__((destructor)) static void vkl_drivers_shutdown(void) {
    pthread_mutex_lock(&g_driver_lock);
    lib_pass_begin();
    vkl_mcache_flush(&g_cache, true);
    pthread_mutex_unlock(&g_driver_lock);
}

/* Records the library file's identity at the load attempt. `state`/`id`: what the file-kind check
 * before dlopen learned about manifest.library_path (vkl_library_open_id); used as is when the
 * library is known by that same path (a path with a '/' is loaded under the name given), so the
 * library file is opened once per load, not twice (docs/performance.md). Otherwise (a bare name the dynamic
 * linker searched, a library already mapped under another name, a path only an interposer knows)
 * the identity is taken here. */
static void library_identity(struct vkl_driver *d, enum vkl_library_id state, const struct vkl_file_id *id) {
    free(d->lib_path);
    d->lib_path = NULL;
    d->lib_stat_ok = false;
    struct link_map *lm = NULL;
    if (d->lib != NULL && dlinfo(d->lib, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL && lm->l_name != NULL &&
        lm->l_name[0] == '/')
        d->lib_path = strdup(lm->l_name);
    else if (d->manifest.library_path != NULL && strchr(d->manifest.library_path, '/') != NULL)
        d->lib_path = strdup(d->manifest.library_path);
    if (d->lib_path == NULL) return;
    if (state != VKL_LIBRARY_ID_UNKNOWN && strcmp(d->lib_path, d->manifest.library_path) == 0) {
        d->lib_stat_ok = state == VKL_LIBRARY_ID_TAKEN;
        if (d->lib_stat_ok) d->lib_id = *id;
        return;
    }
    if (!vkl_library_identity(d->lib_path, &d->lib_id)) return;
    d->lib_stat_ok = true;
}

/* False when the library was replaced, changed, removed or (after a failed load) appeared. A
 * library found through dlopen's search path that never loaded cannot be checked (no path).
 * `now`/`now_ok`: the file's identity now (for library_poison). */
static bool library_unchanged(const struct vkl_driver *d, struct vkl_file_id *now, bool *now_ok) {
    *now_ok = false;
    if (!d->load_attempted || d->lib_path == NULL) return true;
    bool ok = lib_identity_now(d->lib_path, now);
    *now_ok = ok;
    if (ok != d->lib_stat_ok) return false;
    return !ok || vkl_file_id_equal(&d->lib_id, now);
}

/* True when `now` (the library file's identity now) says the file d.lib was loaded from was
 * written in place: same device and inode, other size or times. A new inode (install, mv, most
 * linkers: unlink or rename) leaves the loaded image intact, and the old inode cannot be reused
 * while the image maps it. */
static bool changed_in_place(const struct vkl_driver *d, const struct vkl_file_id *now) {
    return d->lib != NULL && d->lib_stat_ok && now->dev == d->lib_id.dev && now->ino == d->lib_id.ino &&
           !vkl_file_id_equal(&d->lib_id, now);
}

/* RULE_ADVERSARIAL_INPUT, RULE_STARTUP_CACHE: a loaded library whose file was written in place
 * (cp over it, truncate + write) has had its MAP_PRIVATE image changed under it: every page it has
 * not written to shows the new file's bytes (or SIGBUS past a shorter end). Calling into it, or
 * dlclose (its destructors), crashes; and dlopen of the same path returns it (same name, same
 * inode). So the image is marked corrupt and kept on g_poisoned for good, and the driver is absent
 * until the process restarts. True when `cd`'s image is (now) corrupt. `log` NULL: check only at
 * unload (the file's identity is taken here), logged to stderr. */
static bool library_poison(struct cached_driver *cd, const struct vkl_log_sink *log) {
    struct vkl_driver *d = &cd->d;
    if (cd->lib_corrupt) return true;
    if (log == NULL) {
        struct vkl_file_id now;
        if (d->lib == NULL || !d->lib_stat_ok || d->lib_path == NULL || !lib_identity_now(d->lib_path, &now) ||
            !changed_in_place(d, &now))
            return false;
    }
    cd->lib_corrupt = true;
    cd->poisoned_next = g_poisoned;
    g_poisoned = cd;
    d->loaded = false;
    neutralise_text(cd);
    vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
            "driver library %s was written in place (same inode) while loaded: its image is neither called nor "
            "unloaded, driver ignored until the process restarts (replace libraries with a new file: install, mv) "
            "[RULE_ADVERSARIAL_INPUT]",
            d->lib_path);
    return true;
}

struct text_search {
    uintptr_t base;
    struct cached_driver *cd;
};

static int record_text_cb(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct text_search *t = data;
    if (info->dlpi_addr != t->base) return 0;
    for (ElfW(Half) i = 0; i < info->dlpi_phnum && t->cd->text_count < 4; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || (ph->p_flags & PF_X) == 0 || ph->p_memsz == 0) continue;
        t->cd->text[t->cd->text_count].start = info->dlpi_addr + ph->p_vaddr;
        t->cd->text[t->cd->text_count].len = ph->p_memsz;
        t->cd->text_count++;
    }
    return 1;
}

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
typedef int (*find_object_fn)(void *, struct dl_find_object *);

/* _dl_find_object, looked up at run time: the release build (tools/dist) runs on glibc 2.31, which
 * has none, and a link-time reference would bind GLIBC_2.35. Under g_driver_lock. */
static find_object_fn find_object(void) {
    static bool looked;
    static find_object_fn fn;
    if (!looked) {
        looked = true;
        void *sym = dlsym(RTLD_DEFAULT, "_dl_find_object");
        memcpy(&fn, &sym, sizeof(fn));
    }
    return fn;
}

/* Reads the executable segments from the program headers in the image's own first page, found
 * through _dl_find_object (a lookup in a sorted table, no walk over every loaded object). Only
 * when the header proves itself: ELF magic of this class, the headers inside the first page,
 * the lowest PT_LOAD mapped from file offset 0 at the mapping's start, and every recorded
 * segment inside the mapping (neutralise_text maps over what is recorded). False: not proven,
 * nothing recorded. */
static bool record_text_from_header(struct cached_driver *cd, struct link_map *lm) {
    struct dl_find_object fo;
    find_object_fn find = find_object();
    if (find == NULL || lm->l_ld == NULL || find((void *)lm->l_ld, &fo) != 0 || fo.dlfo_link_map != lm) return false;
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t start = (uintptr_t)fo.dlfo_map_start, end = (uintptr_t)fo.dlfo_map_end;
    if (page <= 0 || end < start || end - start < (uintptr_t)page || (start & ((uintptr_t)page - 1)) != 0) return false;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)start;
#if UINTPTR_MAX > 0xffffffffu
    const unsigned char elf_class = ELFCLASS64;
#else
    const unsigned char elf_class = ELFCLASS32;
#endif
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != elf_class ||
        eh->e_phentsize != sizeof(ElfW(Phdr)) || eh->e_phoff < sizeof(ElfW(Ehdr)) || eh->e_phoff > (uintptr_t)page ||
        eh->e_phnum > ((uintptr_t)page - eh->e_phoff) / sizeof(ElfW(Phdr)))
        return false;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(start + eh->e_phoff);
    const ElfW(Phdr) *lowest = NULL;
    for (ElfW(Half) i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && (lowest == NULL || ph[i].p_vaddr < lowest->p_vaddr)) lowest = &ph[i];
    uintptr_t mask = ~((uintptr_t)page - 1);
    if (lowest == NULL || (lowest->p_offset & mask) != 0 || lm->l_addr + (lowest->p_vaddr & mask) != start)
        return false;
    unsigned count = 0;
    struct {
        uintptr_t start;
        size_t len;
    } text[4];
    for (ElfW(Half) i = 0; i < eh->e_phnum && count < 4; i++) {
        if (ph[i].p_type != PT_LOAD || (ph[i].p_flags & PF_X) == 0 || ph[i].p_memsz == 0) continue;
        uintptr_t s = lm->l_addr + ph[i].p_vaddr;
        if (s < start || s > end || ph[i].p_memsz > end - s) return false;
        text[count].start = s;
        text[count].len = ph[i].p_memsz;
        count++;
    }
    for (unsigned i = 0; i < count; i++) {
        cd->text[i].start = text[i].start;
        cd->text[i].len = text[i].len;
    }
    cd->text_count = count;
    return true;
}
#else
static bool record_text_from_header(struct cached_driver *cd, struct link_map *lm) {
    (void)cd;
    (void)lm;
    return false;
}
#endif

/* Records the executable segments of the freshly loaded, intact image (no system call). From the
 * image's own header, in time independent of how many objects are loaded; dl_iterate_phdr, a walk
 * over every loaded object that made loading n drivers quadratic, only when the header does not
 * prove itself. */
static void record_text(struct cached_driver *cd) {
    cd->text_count = 0;
    struct link_map *lm = NULL;
    if (dlinfo(cd->d.lib, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL || lm->l_addr == 0) return;
    if (!record_text_from_header(cd, lm)) {
        struct text_search t = {.base = lm->l_addr, .cd = cd};
        dl_iterate_phdr(record_text_cb, &t);
    }
    cd->dyn_at = NULL;
    cd->dyn_count = 0;
    for (unsigned n = 0; lm->l_ld != NULL && n < 64; n++) {
        if (lm->l_ld[n].d_tag == DT_NULL) {
            memcpy(cd->dyn, lm->l_ld, (n + 1) * sizeof(ElfW(Dyn)));
            cd->dyn_at = lm->l_ld;
            cd->dyn_count = n + 1;
            break;
        }
    }
}

/* Fresh anonymous pages over a library image: under AddressSanitizer the shadow of the old image
 * (redzones around its globals) still describes these addresses; the pages are the loader's now. */
static void unpoison(void *p, size_t len) {
#ifdef VKL_ASAN
    ASAN_UNPOISON_MEMORY_REGION(p, len);
#else
    (void)p;
    (void)len;
#endif
}

/* Makes every instruction of a corrupt image a return: the code the dynamic linker and the C
 * library still run in it whatever the loader does (its destructors and __cxa_atexit handlers at
 * exit, which read the new file's bytes at the old addresses otherwise) returns at once. Costs
 * anonymous memory the size of its code, only for an image written in place. */
static void neutralise_text(struct cached_driver *cd) {
#if defined(__x86_64__) || defined(__i386__)
    static const unsigned char ret[] = {0xc3};
#elif defined(__aarch64__)
    static const unsigned char ret[] = {0xc0, 0x03, 0x5f, 0xd6};
#else
    static const unsigned char ret[] = {0};
    cd->text_count = 0; /* no return instruction known here: left as it is */
#endif
    long page = sysconf(_SC_PAGESIZE);
    for (unsigned i = 0; i < cd->text_count && page > 0; i++) {
        uintptr_t start = cd->text[i].start & ~((uintptr_t)page - 1);
        size_t len = cd->text[i].start + cd->text[i].len - start;
        len = (len + (size_t)page - 1) & ~((size_t)page - 1);
        void *p = mmap((void *)start, len, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) continue;
        unpoison(p, len);
        for (size_t off = 0; off + sizeof(ret) <= len; off += sizeof(ret)) memcpy((char *)p + off, ret, sizeof(ret));
        __builtin___clear_cache((char *)p, (char *)p + len);
        mprotect(p, len, PROT_READ | PROT_EXEC);
    }
    /* The dynamic section as loaded, on anonymous pages, with no destructor array and DT_FINI (if
     * any) pointing at a return. */
    uintptr_t base = 0;
    struct link_map *lm = NULL;
    if (dlinfo(cd->d.lib, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL) base = lm->l_addr;
    if (cd->dyn_at == NULL || page <= 0 || base == 0 || cd->text_count == 0) return;
    uintptr_t start = (uintptr_t)cd->dyn_at & ~((uintptr_t)page - 1);
    size_t len = (uintptr_t)(cd->dyn_at + cd->dyn_count) - start;
    len = (len + (size_t)page - 1) & ~((size_t)page - 1);
    void *p = mmap((void *)start, len, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    unpoison(p, len);
    for (unsigned i = 0; i < cd->dyn_count; i++) {
        if (cd->dyn[i].d_tag == DT_FINI_ARRAYSZ) cd->dyn[i].d_un.d_val = 0;
        if (cd->dyn[i].d_tag == DT_FINI) cd->dyn[i].d_un.d_ptr = cd->text[0].start - base;
    }
    memcpy(cd->dyn_at, cd->dyn, cd->dyn_count * sizeof(ElfW(Dyn)));
    mprotect(p, len, PROT_READ);
}

/* The record whose corrupt image `lib` is (dlopen returned it again), or NULL. */
static struct cached_driver *poisoned_image(void *lib) {
    for (struct cached_driver *p = g_poisoned; p != NULL; p = p->poisoned_next)
        if (p->d.lib == lib) return p;
    return NULL;
}

/* The cache entry of the manifest at `path`, referenced (*out; NULL when the file cannot be read).
 * The path comes from a search (discovery.c), which classified it as a regular file. Never
 * caches an allocation failure: VK_ERROR_OUT_OF_HOST_MEMORY leaves no entry behind, so the next
 * call tries again (LDP_LOADER_2). */
static VkResult driver_scan(const struct vkl_log_sink *log, const char *path, struct cached_driver **out) {
    *out = NULL;
    /* One fopen per manifest: its identity looks the cache up, and a miss reads the same stream. */
    struct vkl_file file;
    if (!vkl_file_open(path, VKL_FILE_REGULAR, &file)) {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER, "driver manifest %s: cannot be read [LDP_DRIVER_4]", path);
        return VK_SUCCESS;
    }
    struct vkl_mcache_entry *e = vkl_mcache_find(&g_cache, path, &file.id, log);
    struct vkl_file_id now;
    bool now_ok;
    if (e != NULL && !library_unchanged(&((struct cached_driver *)(void *)e)->d, &now, &now_ok)) {
        /* The library changed on disk: re-read the manifest and reopen the library. An entry no
         * instance holds is closed first, so dlopen maps the new file rather than returning the
         * old mapping; unless the file was written in place, which leaves the image corrupt and
         * mapped for good (library_poison: the new entry's dlopen gets that image back and
         * driver_load ignores the driver). */
        struct cached_driver *old = (struct cached_driver *)(void *)e;
        if (now_ok && changed_in_place(&old->d, &now)) library_poison(old, log);
        e->refs--;
        vkl_mcache_discard(&g_cache, e);
        e = NULL;
    }
    if (e != NULL) {
        vkl_file_close(&file);
        *out = (struct cached_driver *)(void *)e;
        return VK_SUCCESS;
    }
    struct cached_driver *cd = calloc(1, sizeof(*cd));
    if (cd == NULL || (cd->d.manifest_path = strdup(path)) == NULL) {
        free(cd);
        vkl_file_close(&file);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    VkResult r = vkl_mcache_load(&g_cache, &cd->ce, path, &file, log);
    vkl_file_close(&file);
    if (r != VK_SUCCESS) return r; /* the record was destroyed */
    cd->d.manifest_ok = cd->ce.ok;
    *out = cd;
    return VK_SUCCESS;
}

static PFN_vkVoidFunction lib_sym(void *lib, const char *name) {
    PFN_vkVoidFunction f;
    void *p = dlsym(lib, name);
    memcpy(&f, &p, sizeof(f));
    return f;
}

/* Loader side of the loader/driver interface negotiation (driver interface document,
 * "Loader and Driver Interface Negotiation"). Returns false when the driver must be ignored
 * (LDP_LOADER_5). */
/* The driver's Vulkan version (manifest, refined by its own vkEnumerateInstanceVersion) and its
 * instance extensions, asked at load and again at every acquisition no other acquisition holds
 * (RULE_STARTUP_CACHE: a driver may change between instances). False only when memory runs out (the old
 * answers stay). `first`: at load, when the warnings about them are logged. */
static bool driver_query_caps(const struct vkl_log_sink *log, struct vkl_driver *d, bool first) {
    const char *name = d->manifest_path;
    uint32_t api = d->manifest.api_version;
    if (VK_API_VERSION_MINOR(api) >= 1 || VK_API_VERSION_MAJOR(api) > 1) {
        PFN_vkEnumerateInstanceVersion eiv =
            (PFN_vkEnumerateInstanceVersion)d->gipa(VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
        uint32_t reported = 0;
        /* LDP_LOADER_7, in the Khronos loader's words (it names the library) first. */
        if (eiv == NULL) {
            if (first)
                vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                        "terminator_CreateInstance: Manifest ICD for \"%s\" contained a 1.1 or greater API version, "
                        "but does not support vkEnumerateInstanceVersion, treating as a 1.0 ICD. driver %s: manifest "
                        "says Vulkan %u.%u [LDP_LOADER_7]",
                        d->manifest.library_path, name, VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api));
            api = VK_API_VERSION_1_0;
        } else if (eiv(&reported) != VK_SUCCESS) {
            api = VK_API_VERSION_1_0;
        } else {
            if (first && VK_API_VERSION_MAJOR(reported) == 1 && VK_API_VERSION_MINOR(reported) == 0)
                vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                        "terminator_CreateInstance: Manifest ICD for \"%s\" contained a 1.1 or greater API version, "
                        "but vkEnumerateInstanceVersion returned 1.0, treating as a 1.0 ICD. driver %s: manifest "
                        "says Vulkan %u.%u [LDP_LOADER_7]",
                        d->manifest.library_path, name, VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api));
            api = reported;
        }
    }
    d->api_version = api;
    if (first && (VK_API_VERSION_MINOR(api) >= 1 || VK_API_VERSION_MAJOR(api) > 1) && d->interface_version < 5) {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "driver %s: supports Vulkan %u.%u with interface version %u; interface version 5 or newer "
                "is required for Vulkan 1.1 and later [LDP_DRIVER_7]",
                name, VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api), d->interface_version);
    }

    /* Instance extensions. pLayerName is always NULL (LDP_LOADER_12). The new list replaces the
     * old one only once it is complete. */
    uint32_t count = 0;
    VkExtensionProperties *exts = NULL;
    VkResult r = d->enumerate_instance_extensions(NULL, &count, NULL);
    if (r == VK_SUCCESS && count > 0) {
        /* one element of slack (RULE_DRV_UNTRUSTED_ANSWERS) */
        uint32_t asked = count;
        exts = calloc((size_t)count + 1, sizeof(VkExtensionProperties));
        if (exts == NULL) return false;
        vkl_slack_init(&exts[asked], sizeof(*exts));
        r = d->enumerate_instance_extensions(NULL, &count, exts);
        if (r != VK_SUCCESS && r != VK_INCOMPLETE) count = 0;
        count = vkl_fill_checked(log, d, "vkEnumerateInstanceExtensionProperties", asked, count, &exts[asked],
                                 sizeof(*exts));
        for (uint32_t i = 0; i < count; i++)
            vkl_name_checked(log, d, "vkEnumerateInstanceExtensionProperties", exts[i].extensionName,
                             sizeof(exts[i].extensionName));
    } else if (r != VK_SUCCESS) {
        if (first)
            vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "driver %s: vkEnumerateInstanceExtensionProperties failed with %s (%d); assuming no extensions",
                    name, vkl_result_str(r), (int)r);
        count = 0;
    }
    free(d->extensions);
    d->extensions = exts;
    d->extension_count = count;
    return true;
}

/* The loader/driver interface versions: neither vk_icd export means interface 0 and the exported
 * Vulkan entry points (RULE_DRV_IFACE_V0); vk_icdGetInstanceProcAddr without negotiation means 1
 * (RULE_DRV_IFACE_V1); otherwise vk_icdNegotiateLoaderICDInterfaceVersion decides (RULE_DRV_IFACE_V2,
 * loader-writable dispatchable objects: device.c set_dispatch); 4 brings
 * vk_icdGetPhysicalDeviceProcAddr (RULE_DRV_IFACE_V4); 6 needs nothing more on Linux
 * (RULE_DRV_IFACE_V6); at 7 both functions may be reached only through
 * vk_icdGetInstanceProcAddr(NULL, ...) (RULE_DRV_IFACE_V7). Interface 3 (own surfaces) is in
 * wsi.c, interface 5 (apiVersion) in instance.c. */
static bool driver_negotiate(const struct vkl_log_sink *log, struct vkl_driver *d) {
    const char *name = d->manifest_path;
    PFN_vk_icdNegotiateLoaderICDInterfaceVersion negotiate =
        (PFN_vk_icdNegotiateLoaderICDInterfaceVersion)lib_sym(d->lib, "vk_icdNegotiateLoaderICDInterfaceVersion");
    PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)lib_sym(d->lib, "vk_icdGetInstanceProcAddr");
    bool negotiate_via_gipa = false;
    if (negotiate == NULL && gipa != NULL) {
        /* Interface 7: the negotiation function need not be exported, only queryable. */
        negotiate = (PFN_vk_icdNegotiateLoaderICDInterfaceVersion)gipa(VK_NULL_HANDLE,
                                                                       "vk_icdNegotiateLoaderICDInterfaceVersion");
        negotiate_via_gipa = negotiate != NULL;
    }
    uint32_t version = 0;
    if (negotiate != NULL) {
        version = VKL_LOADER_ICD_INTERFACE_VERSION;
        VkResult r = negotiate(&version);
        if (r != VK_SUCCESS) {
            /* The documents: a driver that cannot negotiate a compatible version is ignored. The
             * Khronos loader ignores it only for VK_ERROR_INCOMPATIBLE_DRIVER (see deviations). */
            vkl_log(log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                    "driver %s: interface negotiation failed with %s (%d); driver ignored [LDP_LOADER_5]", name,
                    vkl_result_str(r), (int)r);
            return false;
        }
        if (version > VKL_LOADER_ICD_INTERFACE_VERSION) {
            vkl_log(log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                    "driver %s: negotiated interface version %u is above the offered %u; driver ignored "
                    "[LDP_LOADER_5]",
                    name, version, VKL_LOADER_ICD_INTERFACE_VERSION);
            return false;
        }
        if (negotiate_via_gipa && version < 7) {
            vkl_log(log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                    "driver %s: negotiation is only queryable through vk_icdGetInstanceProcAddr but the "
                    "driver chose interface version %u (< 7 requires the export); driver ignored "
                    "[LDP_LOADER_5]",
                    name, version);
            return false;
        }
    }
    if (gipa == NULL) {
        if (version != 0) {
            vkl_log(log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                    "driver %s: interface version %u without vk_icdGetInstanceProcAddr; driver ignored "
                    "[LDP_LOADER_5]",
                    name, version);
            return false;
        }
        /* Interface 0: the driver exports the Vulkan entry points themselves. */
        gipa = (PFN_vkGetInstanceProcAddr)lib_sym(d->lib, "vkGetInstanceProcAddr");
        if (gipa == NULL || lib_sym(d->lib, "vkCreateInstance") == NULL ||
            lib_sym(d->lib, "vkEnumerateInstanceExtensionProperties") == NULL) {
            vkl_log(log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                    "driver %s: exports neither vk_icdNegotiateLoaderICDInterfaceVersion, "
                    "vk_icdGetInstanceProcAddr nor the interface-0 entry points; driver ignored [LDP_LOADER_5]",
                    name);
            return false;
        }
        vkl_log(log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                "driver %s: uses the deprecated interface version 0 (exported vkGetInstanceProcAddr)", name);
    } else if (negotiate == NULL) {
        version = 1; /* vk_icdGetInstanceProcAddr without negotiation */
    }
    d->interface_version = version;
    d->gipa = gipa;
    if (version >= 4) {
        if (version >= 7)
            d->gpdpa = (PFN_vk_icdGetPhysicalDeviceProcAddr)gipa(VK_NULL_HANDLE, "vk_icdGetPhysicalDeviceProcAddr");
        if (d->gpdpa == NULL)
            d->gpdpa = (PFN_vk_icdGetPhysicalDeviceProcAddr)lib_sym(d->lib, "vk_icdGetPhysicalDeviceProcAddr");
    }
    d->create_instance = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    d->enumerate_instance_extensions =
        (PFN_vkEnumerateInstanceExtensionProperties)gipa(VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties");
    if (d->create_instance == NULL || d->enumerate_instance_extensions == NULL) {
        vkl_log(log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                "driver %s: vkGetInstanceProcAddr(NULL, ...) gives no vkCreateInstance or "
                "vkEnumerateInstanceExtensionProperties; driver ignored [LDP_LOADER_5]",
                name);
        return false;
    }

    if (!driver_query_caps(log, d, true)) {
        d->load_oom = true;
        return false;
    }
    uint32_t api = d->api_version, count = d->extension_count;
    vkl_log(log, VKL_LOG_INFO | VKL_LOG_DRIVER,
            "driver %s: loaded %s, interface version %u, Vulkan %u.%u.%u, %u instance extensions", name,
            d->manifest.library_path, version, VK_API_VERSION_MAJOR(api), VK_API_VERSION_MINOR(api),
            VK_API_VERSION_PATCH(api), count);
    return true;
}

/* Whether dlopen's error `err` (dlerror text) comes from memory running out inside the dynamic
 * linker rather than from something about the files (not ELF, wrong class, a dependency or symbol
 * missing), which the cache keeps as a verdict until the file changes (RULE_STARTUP_CACHE). glibc
 * 2.36, failing each of its allocations in turn (conformance/loader/oom): "cannot allocate symbol
 * search list / dependency list / address lookup data / version reference table" followed by
 * strerror(ENOMEM) (in the process's language), "cannot create shared object descriptor", "out of
 * memory" (the message itself could not be allocated), and "<path>: cannot open shared object
 * file: No such file or directory" for a path the check just before dlopen found as a regular file
 * (`found`: a failed copy of its name). A wrong answer costs one retried dlopen per call (a false
 * "transient") or keeps a driver out until its file changes (a missed one): hence the wide match. */
static bool dlopen_out_of_memory(const char *err, const char *path, bool found) {
    if (err == NULL) return false;
    char buf[128];
    const char *enomem = strerror_r(ENOMEM, buf, sizeof(buf)); /* GNU strerror_r: the text */
    if ((enomem != NULL && enomem[0] != '\0' && strstr(err, enomem) != NULL) ||
        strstr(err, "Cannot allocate memory") != NULL || strstr(err, "cannot allocate") != NULL ||
        strstr(err, "cannot create shared object descriptor") != NULL || strstr(err, "out of memory") != NULL)
        return true;
    size_t n = path != NULL ? strlen(path) : 0;
    return found && n > 0 && strncmp(err, path, n) == 0 &&
           strncmp(err + n, ": cannot open shared object file", 32) == 0;
}

/* VK_SUCCESS: loaded; VK_ERROR_INCOMPATIBLE_DRIVER: ignored (the verdict is cached);
 * VK_ERROR_OUT_OF_HOST_MEMORY: nothing cached, the next acquisition tries again. */
static VkResult driver_load(const struct vkl_log_sink *log, struct vkl_driver *d) {
    if (d->load_attempted) return d->loaded ? VK_SUCCESS : VK_ERROR_INCOMPATIBLE_DRIVER;
    d->load_attempted = true;
    d->load_oom = false;
    /* RTLD_LOCAL keeps one driver's symbols from resolving another's (LDP_DRIVER_1). */
    const char *err = NULL;
    struct vkl_file_id lib_id;
    enum vkl_library_id lib_id_state;
    d->lib = NULL;
    if (lib_memo_is(d->manifest.library_path) && g_lib_memo.lib != NULL && g_lib_memo.ok) {
        /* Loaded in this pass under this very name: dlopen finds it by name, opening nothing. */
        d->lib = dlopen(d->manifest.library_path, RTLD_NOW | RTLD_LOCAL);
        lib_id = g_lib_memo.id;
        lib_id_state = d->lib == g_lib_memo.lib ? VKL_LIBRARY_ID_TAKEN : VKL_LIBRARY_ID_UNKNOWN;
        if (d->lib == NULL) err = dlerror();
    }
    if (d->lib == NULL) d->lib = vkl_library_open_id(d->manifest.library_path, &err, &lib_id, &lib_id_state);
    library_identity(d, lib_id_state, &lib_id);
    struct cached_driver *corrupt = d->lib != NULL ? poisoned_image(d->lib) : NULL;
    if (corrupt != NULL) {
        /* dlopen handed back an image changed in place earlier (library_poison): never called.
         * This dlclose only drops the reference just taken; the one kept on g_poisoned keeps the
         * image mapped and its destructors unrun. The verdict is cached like any other, so the
         * line is logged once per version of the file. */
        dlclose(d->lib);
        d->lib = NULL;
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "driver library %s: dlopen returns the image written in place earlier (%s); not called, driver "
                "ignored until the process restarts [RULE_ADVERSARIAL_INPUT]",
                d->manifest.library_path, corrupt->d.lib_path);
        return VK_ERROR_INCOMPATIBLE_DRIVER;
    }
    if (d->lib == NULL) {
        const char *why = vkl_library_error_reason(d->manifest.library_path, err);
        if (dlopen_out_of_memory(err, d->manifest.library_path, lib_id_state == VKL_LIBRARY_ID_TAKEN)) {
            /* Not a fact about the file: nothing cached, the next acquisition tries again. */
            vkl_log(log, VKL_LOG_ERROR | VKL_LOG_DRIVER,
                    "driver %s: cannot load its library: %s (out of memory: tried again at the next call); library "
                    "%s [RULE_ADVERSARIAL_INPUT]",
                    d->manifest_path, why, d->manifest.library_path);
            d->load_attempted = false;
            return VK_ERROR_OUT_OF_HOST_MEMORY;
        }
        /* A library of the other word size ("wrong ELF class: ELFCLASS32" from a 64-bit loader) is
         * expected where 32- and 64-bit drivers share the manifest directories: INFO, as the
         * Khronos loader logs it; any other failure is an ERROR (LDP_DRIVER_4). */
        uint32_t sev = strstr(why, "wrong ELF class:") != NULL ? VKL_LOG_INFO : VKL_LOG_ERROR;
        vkl_log(log, sev | VKL_LOG_DRIVER, "driver %s: cannot load its library: %s; library %s [LDP_DRIVER_4]",
                d->manifest_path, why, d->manifest.library_path);
        return VK_ERROR_INCOMPATIBLE_DRIVER;
    }
    if (!driver_negotiate(log, d)) {
        driver_unload(d);
        if (d->load_oom) {
            d->load_attempted = false;
            return VK_ERROR_OUT_OF_HOST_MEMORY;
        }
        return VK_ERROR_INCOMPATIBLE_DRIVER;
    }
    d->loaded = true;
    if (!d->stale) record_text(cached_of(d));
    if (d->lib_stat_ok && d->lib_path != NULL && strcmp(d->lib_path, d->manifest.library_path) == 0)
        lib_memo_set(d->manifest.library_path, true, &d->lib_id, d->lib);
    return VK_SUCCESS;
}

/* Every well-formed driver manifest found is attempted (LDP_LOADER_2), and a driver that fails
 * (its library cannot be opened, RULE_DRV_LIBRARY_LOAD_FAILURE; it does not negotiate) is skipped
 * while the others load. The cache parses each manifest and opens each library at most once
 * however many global calls come first (RULE_STARTUP_CACHE). */
VkResult vkl_drivers_acquire(const struct vkl_log_sink *log, struct vkl_driver_set *out) {
    memset(out, 0, sizeof(*out));
    struct vkl_strlist files = {0};
    VkResult result = VK_SUCCESS;
    struct vkl_filter select, disable;
    /* The settings file (settings.c): additional_drivers, and no driver env vars with
     * device_configurations. Re-read at every acquisition (global calls, vkCreateInstance). */
    const struct vkl_settings *settings = vkl_settings_acquire(log);
    bool use_env = vkl_settings_use_driver_env(settings);
    const char *sel = use_env ? vkl_getenv("VK_LOADER_DRIVERS_SELECT") : NULL;
    const char *dis = use_env ? vkl_getenv("VK_LOADER_DRIVERS_DISABLE") : NULL;
    vkl_filter_parse(sel, sel != NULL ? strlen(sel) : 0, &select);
    vkl_filter_parse(dis, dis != NULL ? strlen(dis) : 0, &disable);

    /* The search (directory listings, the settings file's additional drivers) touches no cache:
     * outside the lock, so concurrent acquisitions only queue for the cache itself. */
    result = vkl_settings_driver_files(settings, log, &files);
    vkl_settings_release(settings);
    pthread_mutex_lock(&g_driver_lock);
    if (result != VK_SUCCESS) goto out;
    out->drivers = malloc((files.count ? files.count : 1) * sizeof(*out->drivers));
    if (out->drivers == NULL) {
        result = VK_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    vkl_mcache_begin(&g_cache);
    lib_pass_begin();
    for (size_t i = 0; i < files.count; i++) {
        struct cached_driver *cd = NULL;
        if ((result = driver_scan(log, files.items[i], &cd)) != VK_SUCCESS) goto out;
        if (cd == NULL) continue;
        struct vkl_driver *d = &cd->d;
        /* The same manifest reached twice (e.g. VK_ADD_DRIVER_FILES and a dir): the set already
         * holds it when this acquisition took it (one compare, not a scan of the set). */
        bool keep = d->manifest_ok && cd->taken != g_cache.gen;
        if (keep) {
            switch (vkl_driver_filter_check(&select, &disable, d->manifest_path)) {
                case VKL_DRIVER_DISABLED:
                    vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                            "Driver \"%s\" ignored because it was disabled by env var 'VK_LOADER_DRIVERS_DISABLE' "
                            "(%s) [RULE_DRV_FILTER_DISABLE]",
                            manifest_file_name(d->manifest_path), d->manifest_path);
                    keep = false;
                    break;
                case VKL_DRIVER_NOT_SELECTED:
                    vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                            "Driver \"%s\" ignored because not selected by env var 'VK_LOADER_DRIVERS_SELECT' "
                            "(%s) [RULE_DRV_FILTER_SELECT]",
                            manifest_file_name(d->manifest_path), d->manifest_path);
                    keep = false;
                    break;
                default: break;
            }
        }
        if (keep) {
            bool was_loaded = d->loaded;
            VkResult lr = driver_load(log, d);
            /* Loaded earlier and held by no other acquisition: ask its version and extensions
             * again (their readers hold a set; none holds this driver now). */
            if (lr == VK_SUCCESS && was_loaded && cd->ce.refs == 1 && !driver_query_caps(log, d, false))
                lr = VK_ERROR_OUT_OF_HOST_MEMORY;
            if (lr == VK_ERROR_OUT_OF_HOST_MEMORY) {
                vkl_mcache_unref(&g_cache, &cd->ce);
                result = lr;
                goto out;
            }
            keep = lr == VK_SUCCESS;
        }
        if (!keep) {
            vkl_mcache_unref(&g_cache, &cd->ce);
            continue;
        }
        cd->taken = g_cache.gen;
        out->drivers[out->count++] = d; /* keeps the reference driver_scan took */
    }
    /* Drop cache entries nobody holds whose manifest changed (vkl_mcache_find marked them) or that
     * this search did not list (vanished, or no longer searched): no system call per cached
     * manifest. Entries still in use stay; the last release frees stale ones. */
    vkl_mcache_sweep(&g_cache);
out:
    pthread_mutex_unlock(&g_driver_lock);
    vkl_strlist_finish(&files);
    if (result != VK_SUCCESS) vkl_drivers_release(out);
    return result;
}

void vkl_drivers_release(struct vkl_driver_set *set) {
    pthread_mutex_lock(&g_driver_lock);
    for (uint32_t i = 0; i < set->count; i++) {
        /* count > 0 only with the array allocated (clang-analyzer cannot see that invariant) */
        /* NOLINTNEXTLINE(clang-analyzer-core.NullDereference,clang-analyzer-core.uninitialized.Assign) */
        struct vkl_driver *d = set->drivers[i];
        if (!d->stale) {
            vkl_mcache_unref(&g_cache, &cached_of(d)->ce);
            continue;
        }
        /* A direct driver (direct_driver.c): never in the cache, created stale with this set's
         * one reference, no library handle of its own. */
        if (d->refs > 0) d->refs--;
        if (d->refs == 0) {
            driver_free_fields(d);
            free(d);
        }
    }
    pthread_mutex_unlock(&g_driver_lock);
    free(set->drivers);
    memset(set, 0, sizeof(*set));
}
