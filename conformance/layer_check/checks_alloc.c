/* llp-check: the allocation probe for LLP_LAYER_14, in the sandwich's probe grandchild.
 *
 * Two views of the layer's memory use while the application's instance and device exist (from the
 * call to vkCreateInstance to the return of vkDestroyInstance):
 *  - counting VkAllocationCallbacks, passed to vkCreateInstance, vkCreateDevice, vkCreateCommandPool
 *    and their destroy calls; each call is attributed by its return address (dladdr) to the
 *    library whose code made it: the layer under test, the loader, the recording layers, the driver;
 *  - interposition of the layer library's own imports: before the loader loads it, the probe loads
 *    the layer (RTLD_NOW, so every import is bound) and rewrites its GOT entries for malloc, calloc,
 *    realloc, aligned_alloc, posix_memalign, memalign, valloc, strdup, strndup, free and the C++
 *    operator new / new[] family to counting wrappers around the functions they were bound to. The
 *    loader's later dlopen of the same path finds the object already loaded. So a call from the
 *    layer's code to one of these functions is counted; what they do inside another library (libc,
 *    libstdc++) on the layer's behalf, allocators linked into the layer that get memory with mmap or
 *    sbrk, and anything before vkCreateInstance (constructors, negotiation) or after
 *    vkDestroyInstance are not.
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "conformance/layer_check/sandwich.h"

/* ---- the counting callbacks ---- */

#define LIVE_SLOTS (1u << 16)
struct live {
    void *p; /* NULL: empty; (void *)1: removed */
    size_t size;
    bool by_layer;
};
static struct live g_live[LIVE_SLOTS];
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_window;
static uintptr_t g_layer_lo, g_layer_hi; /* the layer's mapped range */
static bool g_layer_known;

#define MAX_CALLERS 12
struct caller {
    char name[128];
    unsigned long allocs;
};
static struct caller g_callers[MAX_CALLERS];
static unsigned long g_cb_layer, g_cb_layer_realloc, g_cb_layer_free, g_cb_other, g_foreign_free, g_foreign_realloc;
static char g_foreign_first[300];

static bool from_layer(const void *ra) {
    uintptr_t a = (uintptr_t)ra;
    return g_layer_known && a >= g_layer_lo && a < g_layer_hi;
}

static void caller_name(const void *ra, char *buf, size_t len) {
    Dl_info di;
    const char *n = "?";
    if (dladdr(ra, &di) != 0 && di.dli_fname != NULL) {
        const char *slash = strrchr(di.dli_fname, '/');
        n = slash ? slash + 1 : di.dli_fname;
    }
    snprintf(buf, len, "%s", n);
}

static void note_caller(const void *ra) {
    char n[128];
    caller_name(ra, n, sizeof n);
    for (size_t i = 0; i < MAX_CALLERS; i++) {
        if (g_callers[i].name[0] == '\0') snprintf(g_callers[i].name, sizeof g_callers[i].name, "%s", n);
        if (strcmp(g_callers[i].name, n) == 0) {
            g_callers[i].allocs++;
            return;
        }
    }
}

static size_t slot_of(const void *p) { return (size_t)(((uintptr_t)p >> 4) * 2654435761u) & (LIVE_SLOTS - 1); }

static struct live *live_find(const void *p) {
    for (size_t i = slot_of(p), n = 0; n < LIVE_SLOTS; i = (i + 1) & (LIVE_SLOTS - 1), n++) {
        if (g_live[i].p == NULL) return NULL;
        if (g_live[i].p == p) return &g_live[i];
    }
    return NULL;
}

static void live_add(void *p, size_t size, bool by_layer) {
    for (size_t i = slot_of(p), n = 0; n < LIVE_SLOTS; i = (i + 1) & (LIVE_SLOTS - 1), n++)
        if (g_live[i].p == NULL || g_live[i].p == (void *)1) {
            g_live[i] = (struct live){p, size, by_layer};
            return;
        }
}

static void *raw_alloc(size_t size, size_t align) {
    if (align < sizeof(void *)) align = sizeof(void *);
    void *p = NULL;
    return posix_memalign(&p, align, size ? size : 1) == 0 ? p : NULL;
}

static void foreign(const char *what, const void *p, const void *ra) {
    if (g_foreign_first[0] != '\0') return;
    char n[128];
    caller_name(ra, n, sizeof n);
    snprintf(g_foreign_first, sizeof g_foreign_first, "%s(%p) called from %s%s", what, p, n,
             from_layer(ra) ? " (the layer under test)" : "");
}

static VKAPI_ATTR void *VKAPI_CALL cb_alloc(void *user, size_t size, size_t align, VkSystemAllocationScope scope) {
    (void)user;
    (void)scope;
    const void *ra = __builtin_return_address(0);
    void *p = raw_alloc(size, align);
    pthread_mutex_lock(&g_lock);
    bool mine = from_layer(ra);
    if (mine)
        g_cb_layer++;
    else
        g_cb_other++;
    note_caller(ra);
    if (p != NULL) live_add(p, size, mine);
    pthread_mutex_unlock(&g_lock);
    return p;
}

static VKAPI_ATTR void *VKAPI_CALL cb_realloc(void *user, void *orig, size_t size, size_t align,
                                              VkSystemAllocationScope scope) {
    (void)user;
    (void)scope;
    const void *ra = __builtin_return_address(0);
    pthread_mutex_lock(&g_lock);
    bool mine = from_layer(ra);
    if (mine)
        g_cb_layer_realloc++;
    else
        g_cb_other++;
    note_caller(ra);
    struct live *e = orig ? live_find(orig) : NULL;
    if (orig != NULL && e == NULL) {
        g_foreign_realloc++;
        foreign("pfnReallocation", orig, ra);
        pthread_mutex_unlock(&g_lock);
        return NULL; /* not ours: never handed to free() */
    }
    size_t old = e ? e->size : 0;
    if (e != NULL) e->p = (void *)1;
    pthread_mutex_unlock(&g_lock);
    if (size == 0) {
        free(orig);
        return NULL;
    }
    void *p = raw_alloc(size, align);
    if (p == NULL) {
        if (orig != NULL) { /* the original stays valid */
            pthread_mutex_lock(&g_lock);
            live_add(orig, old, mine);
            pthread_mutex_unlock(&g_lock);
        }
        return NULL;
    }
    if (orig != NULL) {
        memcpy(p, orig, old < size ? old : size);
        free(orig);
    }
    pthread_mutex_lock(&g_lock);
    live_add(p, size, mine);
    pthread_mutex_unlock(&g_lock);
    return p;
}

static VKAPI_ATTR void VKAPI_CALL cb_free(void *user, void *p) {
    (void)user;
    if (p == NULL) return;
    const void *ra = __builtin_return_address(0);
    pthread_mutex_lock(&g_lock);
    if (from_layer(ra)) g_cb_layer_free++;
    struct live *e = live_find(p);
    if (e == NULL) {
        g_foreign_free++;
        foreign("pfnFree", p, ra);
        pthread_mutex_unlock(&g_lock);
        return; /* not ours: leaked rather than handed to free() */
    }
    e->p = (void *)1;
    pthread_mutex_unlock(&g_lock);
    free(p);
}

static const VkAllocationCallbacks g_callbacks = {NULL, cb_alloc, cb_realloc, cb_free, NULL, NULL};

const VkAllocationCallbacks *llp_alloc_callbacks(void) { return &g_callbacks; }

/* ---- interposition of the layer's imports ---- */

enum hook_id {
    H_MALLOC,
    H_CALLOC,
    H_REALLOC,
    H_ALIGNED_ALLOC,
    H_POSIX_MEMALIGN,
    H_MEMALIGN,
    H_VALLOC,
    H_STRDUP,
    H_STRNDUP,
    H_NEW,
    H_NEW_ARR,
    H_NEW_NT,
    H_NEW_ARR_NT,
    H_NEW_AL,
    H_NEW_ARR_AL,
    H_NEW_AL_NT,
    H_NEW_ARR_AL_NT,
    H_FREE,
    H_COUNT
};
static unsigned long g_direct[H_COUNT];
static void *g_orig[H_COUNT];

static void count(enum hook_id h) {
    if (__atomic_load_n(&g_window, __ATOMIC_RELAXED)) __atomic_fetch_add(&g_direct[h], 1, __ATOMIC_RELAXED);
}

/* One wrapper per signature; every argument of these functions is of integer class. */
typedef void *(*fn1)(uintptr_t);
typedef void *(*fn2)(uintptr_t, uintptr_t);
typedef void *(*fn3)(uintptr_t, uintptr_t, uintptr_t);
typedef int (*fn_pm)(void **, size_t, size_t);
typedef void (*fn_free)(void *);
#define W1(id)                                                                                                         \
    static void *w_##id(uintptr_t a) {                                                                                 \
        count(id);                                                                                                     \
        return ((fn1)g_orig[id])(a);                                                                                   \
    }
#define W2(id)                                                                                                         \
    static void *w_##id(uintptr_t a, uintptr_t b) {                                                                    \
        count(id);                                                                                                     \
        return ((fn2)g_orig[id])(a, b);                                                                                \
    }
#define W3(id)                                                                                                         \
    static void *w_##id(uintptr_t a, uintptr_t b, uintptr_t c) {                                                       \
        count(id);                                                                                                     \
        return ((fn3)g_orig[id])(a, b, c);                                                                             \
    }
W1(H_MALLOC)
W2(H_CALLOC)
W2(H_REALLOC)
W2(H_ALIGNED_ALLOC)
W2(H_MEMALIGN)
W1(H_VALLOC)
W1(H_STRDUP)
W2(H_STRNDUP)
W1(H_NEW)
W1(H_NEW_ARR)
W2(H_NEW_NT)
W2(H_NEW_ARR_NT)
W2(H_NEW_AL)
W2(H_NEW_ARR_AL)
W3(H_NEW_AL_NT)
W3(H_NEW_ARR_AL_NT)
static int w_H_POSIX_MEMALIGN(void **p, size_t a, size_t s) {
    count(H_POSIX_MEMALIGN);
    return ((fn_pm)g_orig[H_POSIX_MEMALIGN])(p, a, s);
}
static void w_H_FREE(void *p) {
    count(H_FREE);
    ((fn_free)g_orig[H_FREE])(p);
}

static const struct {
    const char *sym, *label;
    void *wrapper;
} g_hooks[H_COUNT] = {
    [H_MALLOC] = {"malloc", "malloc", (void *)w_H_MALLOC},
    [H_CALLOC] = {"calloc", "calloc", (void *)w_H_CALLOC},
    [H_REALLOC] = {"realloc", "realloc", (void *)w_H_REALLOC},
    [H_ALIGNED_ALLOC] = {"aligned_alloc", "aligned_alloc", (void *)w_H_ALIGNED_ALLOC},
    [H_POSIX_MEMALIGN] = {"posix_memalign", "posix_memalign", (void *)w_H_POSIX_MEMALIGN},
    [H_MEMALIGN] = {"memalign", "memalign", (void *)w_H_MEMALIGN},
    [H_VALLOC] = {"valloc", "valloc", (void *)w_H_VALLOC},
    [H_STRDUP] = {"strdup", "strdup", (void *)w_H_STRDUP},
    [H_STRNDUP] = {"strndup", "strndup", (void *)w_H_STRNDUP},
    [H_NEW] = {"_Znwm", "operator new", (void *)w_H_NEW},
    [H_NEW_ARR] = {"_Znam", "operator new[]", (void *)w_H_NEW_ARR},
    [H_NEW_NT] = {"_ZnwmRKSt9nothrow_t", "operator new(nothrow)", (void *)w_H_NEW_NT},
    [H_NEW_ARR_NT] = {"_ZnamRKSt9nothrow_t", "operator new[](nothrow)", (void *)w_H_NEW_ARR_NT},
    [H_NEW_AL] = {"_ZnwmSt11align_val_t", "operator new(align)", (void *)w_H_NEW_AL},
    [H_NEW_ARR_AL] = {"_ZnamSt11align_val_t", "operator new[](align)", (void *)w_H_NEW_ARR_AL},
    [H_NEW_AL_NT] = {"_ZnwmSt11align_val_tRKSt9nothrow_t", "operator new(align, nothrow)", (void *)w_H_NEW_AL_NT},
    [H_NEW_ARR_AL_NT] = {"_ZnamSt11align_val_tRKSt9nothrow_t", "operator new[](align, nothrow)",
                         (void *)w_H_NEW_ARR_AL_NT},
    [H_FREE] = {"free", "free", (void *)w_H_FREE},
};

static unsigned g_patched;

#if defined(__x86_64__)
#define LLP_R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define LLP_R_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define LLP_R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define LLP_R_GLOB_DAT R_AARCH64_GLOB_DAT
#endif

#if defined(LLP_R_JUMP_SLOT) && defined(__LP64__)
static void patch_relocs(ElfW(Addr) base, const ElfW(Rela) * rel, size_t size, const ElfW(Sym) * symtab,
                         const char *strtab) {
    long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < size / sizeof *rel; i++) {
        unsigned type = (unsigned)ELF64_R_TYPE(rel[i].r_info);
        if (type != LLP_R_JUMP_SLOT && type != LLP_R_GLOB_DAT) continue;
        const char *name = strtab + symtab[ELF64_R_SYM(rel[i].r_info)].st_name;
        for (int h = 0; h < H_COUNT; h++) {
            if (strcmp(name, g_hooks[h].sym) != 0) continue;
            void **slot = (void **)(base + rel[i].r_offset);
            if (*slot == g_hooks[h].wrapper || *slot == NULL) break;
            uintptr_t start = (uintptr_t)slot & ~(uintptr_t)(page - 1);
            if (mprotect((void *)start, (size_t)page * 2, PROT_READ | PROT_WRITE) != 0) break; /* RELRO */
            if (g_orig[h] == NULL) g_orig[h] = *slot;
            if (*slot == g_orig[h]) {
                *slot = g_hooks[h].wrapper;
                g_patched++;
            }
            break;
        }
    }
}
#endif

struct range_arg {
    ElfW(Addr) base;
    uintptr_t lo, hi;
    bool found;
};

static int range_cb(struct dl_phdr_info *info, size_t size, void *argp) {
    (void)size;
    struct range_arg *r = argp;
    if (info->dlpi_addr != r->base) return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_LOAD) continue;
        uintptr_t lo = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
        uintptr_t hi = lo + info->dlpi_phdr[i].p_memsz;
        if (lo < r->lo) r->lo = lo;
        if (hi > r->hi) r->hi = hi;
        r->found = true;
    }
    return r->found ? 1 : 0;
}

bool llp_alloc_prepare(const char *library_path, char *why, size_t len) {
    void *h = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        snprintf(why, len, "dlopen(%s): %s", library_path, e ? e : "?");
        return false;
    }
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL) {
        snprintf(why, len, "dlinfo(%s) failed", library_path);
        return false;
    }
    /* the layer's mapped range, for the return-address attribution */
    struct range_arg r = {lm->l_addr, UINTPTR_MAX, 0, false};
    dl_iterate_phdr(range_cb, &r);
    if (r.found) {
        g_layer_lo = r.lo;
        g_layer_hi = r.hi;
        g_layer_known = true;
    }
#if defined(LLP_R_JUMP_SLOT) && defined(__LP64__)
    ElfW(Addr) base = lm->l_addr;
    const ElfW(Sym) *symtab = NULL;
    const char *strtab = NULL;
    const ElfW(Rela) *jmprel = NULL, *rela = NULL;
    size_t jmpsz = 0, relasz = 0;
    /* glibc relocates these d_ptr values in place for most objects; an unrelocated one is an
     * offset below the load address */
#define FIX(v) ((v) < base ? (v) + base : (v))
    for (const ElfW(Dyn) *d = lm->l_ld; d != NULL && d->d_tag != DT_NULL; d++) {
        switch (d->d_tag) {
            case DT_SYMTAB: symtab = (const ElfW(Sym) *)FIX(d->d_un.d_ptr); break;
            case DT_STRTAB: strtab = (const char *)FIX(d->d_un.d_ptr); break;
            case DT_JMPREL: jmprel = (const ElfW(Rela) *)FIX(d->d_un.d_ptr); break;
            case DT_PLTRELSZ: jmpsz = d->d_un.d_val; break;
            case DT_RELA: rela = (const ElfW(Rela) *)FIX(d->d_un.d_ptr); break;
            case DT_RELASZ: relasz = d->d_un.d_val; break;
            default: break;
        }
    }
#undef FIX
    if (symtab == NULL || strtab == NULL) {
        snprintf(why, len, "%s has no dynamic symbol table", library_path);
        return false;
    }
    if (jmprel != NULL) patch_relocs(base, jmprel, jmpsz, symtab, strtab);
    if (rela != NULL) patch_relocs(base, rela, relasz, symtab, strtab);
    return true;
#else
    snprintf(why, len, "import interposition is implemented for x86-64 and AArch64 only");
    return false;
#endif
}

void llp_alloc_window(bool on) { __atomic_store_n(&g_window, on, __ATOMIC_SEQ_CST); }

void llp_alloc_report(struct ldp_ctx *c) {
    pthread_mutex_lock(&g_lock);
    ldp_result(c, "alloc_range", "%d", g_layer_known ? 1 : 0);
    ldp_result(c, "alloc_patched", "%u", g_patched);
    ldp_result(c, "alloc_cb_layer", "%lu", g_cb_layer + g_cb_layer_realloc);
    ldp_result(c, "alloc_cb_layer_free", "%lu", g_cb_layer_free);
    ldp_result(c, "alloc_cb_other", "%lu", g_cb_other);
    char buf[1200];
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < MAX_CALLERS && g_callers[i].name[0] && n + 160 < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s %lu", n ? ", " : "", g_callers[i].name,
                              g_callers[i].allocs);
    ldp_result(c, "alloc_callers", "%s", n ? buf : "-");
    unsigned long direct = 0;
    n = 0;
    buf[0] = '\0';
    for (int h = 0; h < H_COUNT; h++) {
        unsigned long v = __atomic_load_n(&g_direct[h], __ATOMIC_RELAXED);
        if (v == 0) continue;
        if (h != H_FREE) direct += v;
        if (n + 80 < sizeof buf)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s x%lu", n ? ", " : "", g_hooks[h].label, v);
    }
    ldp_result(c, "alloc_direct", "%lu", direct);
    ldp_result(c, "alloc_direct_detail", "%s", n ? buf : "-");
    ldp_result(c, "alloc_foreign", "%lu", g_foreign_free + g_foreign_realloc);
    if (g_foreign_first[0]) ldp_result(c, "alloc_foreign_first", "%s", g_foreign_first);
    unsigned long leaked = 0;
    for (size_t i = 0; i < LIVE_SLOTS; i++)
        if (g_live[i].p != NULL && g_live[i].p != (void *)1 && g_live[i].by_layer) leaked++;
    ldp_result(c, "alloc_leaked_layer", "%lu", leaked);
    pthread_mutex_unlock(&g_lock);
}
