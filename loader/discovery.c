/*
 * Discovery (loader/internal/discovery.h): the table of kinds, the one search (vkl_discover), the
 * XDG base set kept per environment and shared by every kind; and the path-list helpers of
 * loader/internal/search_paths.h it is built from.
 */
#include "loader/internal/discovery.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/env.h"
#include "loader/internal/fileio.h"
#include "loader/internal/util.h"

VkResult vkl_path_list_split(const char *value, size_t len, char sep, struct vkl_strlist *out) {
    size_t before = out->count;
    size_t start = 0;
    if (value == NULL) return VK_SUCCESS;
    while (start < len) {
        size_t end = start;
        while (end < len && value[end] != sep) end++;
        if (end > start) { /* empty entries ("a::b", leading/trailing ':') are dropped */
            VkResult r = vkl_strlist_append_n(out, value + start, end - start);
            if (r != VK_SUCCESS) {
                vkl_strlist_truncate(out, before);
                return r;
            }
        }
        start = end + 1;
    }
    return VK_SUCCESS;
}

static bool non_empty(const char *s) { return s != NULL && s[0] != '\0'; }

/* ------------------------------------------------------------------ the bases of the directories */

/*
 * Every default search directory is "<base>/<suffix>" ("/<suffix>" for the root), and two of them
 * are equal exactly when their bases are (trailing '/' removed, "/" kept): the suffix is the same
 * on both sides. So the bases are found and de-duplicated once for every suffix, and kept
 * compactly: each string they come from is copied once into one text, and a base is an (offset,
 * length) pair into it, 8 bytes, whatever the number of suffixes. The "<base>/<suffix>" strings
 * are written only when a list for one suffix is handed out (docs/performance.md: with 50,000 XDG_DATA_DIRS
 * entries a copy of every directory per suffix, each its own allocation, cost ~550 bytes per
 * entry).
 */
#define ENV_KEYS 5
#define NO_KEY UINT32_MAX
#define MAX_SOURCES 6
/* Up to this many bases are de-duplicated by a plain scan; more get a temporary hash index. */
#define LINEAR_MAX 16u

struct base_ref {
    uint32_t off, len;
};

/* Where bases come from, in search order: one base (a variable used whole, a composed home
 * location, a system directory) or a ':'-separated list. */
struct base_source {
    uint32_t off, len;
    bool list;
    uint8_t group; /* which of the six places it stands for (enum group) */
};

/* The six places bases come from, in [Drv]'s "Driver Discovery on Linux" table order; a base order
 * (enum vkl_base_order) is a permutation of them. */
enum group { G_CONFIG_HOME, G_CONFIG_DIRS, G_SYSCONF, G_EXTRASYSCONF, G_DATA_HOME, G_DATA_DIRS, GROUPS };
static const uint8_t k_order[VKL_BASE_ORDER_COUNT][GROUPS] = {
    [VKL_BASES_CONFIG_FIRST] = {G_CONFIG_HOME, G_CONFIG_DIRS, G_SYSCONF, G_EXTRASYSCONF, G_DATA_HOME, G_DATA_DIRS},
    /* the settings file: the user locations first (the Khronos loader's order, a superset of [Set]'s
     * list) */
    [VKL_BASES_HOMES_FIRST] = {G_CONFIG_HOME, G_DATA_HOME, G_CONFIG_DIRS, G_SYSCONF, G_EXTRASYSCONF, G_DATA_DIRS},
};

/* The text's layout: the five variable values (the cache's key, also the sources of the bases that
 * come from them), then the composed and compile-time sources. */
struct layout {
    size_t text_size; /* bytes */
    size_t max_bases; /* upper bound on the number of bases */
    uint32_t key[ENV_KEYS];
    struct base_source src[MAX_SOURCES];
    size_t nsrc;
};

static void env_values(const struct vkl_search_env *env, const char *out[ENV_KEYS]) {
    out[0] = env->xdg_config_home;
    out[1] = env->home;
    out[2] = env->xdg_config_dirs;
    out[3] = env->xdg_data_home;
    out[4] = env->xdg_data_dirs;
}

/* Appends `n` bytes at *pos: written when text is non-NULL, only counted otherwise. */
static void put(char *text, size_t *pos, const char *s, size_t n) {
    if (text != NULL && n > 0) memcpy(text + *pos, s, n);
    *pos += n;
}

/* `s` may be NULL when n == 0 (add_source's absent second part): NULL + 0 is undefined in C
 * (C11 6.5.6p8; clang's UBSan: "applying zero offset to null pointer"), so no pointer is formed. */
static size_t count_char(const char *s, size_t n, char c) {
    size_t k = 0;
    if (n == 0) return 0;
    const char *end = s + n;
    for (const char *p = s; p < end && (p = memchr(p, c, (size_t)(end - p))) != NULL; p++) k++;
    return k;
}

/* A source written into the text: `a` then `b` (either may be empty), NUL-terminated. */
static void add_source(struct layout *L, char *text, size_t *pos, const char *a, size_t alen, const char *b,
                       size_t blen, bool list, uint8_t group) {
    struct base_source *s = &L->src[L->nsrc++];
    s->group = group;
    s->off = (uint32_t)*pos; /* truncated only in the measuring pass, which checks the size */
    s->len = (uint32_t)(alen + blen);
    s->list = list;
    put(text, pos, a, alen);
    put(text, pos, b, blen);
    put(text, pos, "", 1);
    L->max_bases += list ? count_char(a, alen, ':') + count_char(b, blen, ':') + 1 : 1;
}

/* A source that is variable `k`'s value, already in the text. */
static void key_source(struct layout *L, int k, const char *value, size_t len, bool list, uint8_t group) {
    struct base_source *s = &L->src[L->nsrc++];
    s->group = group;
    s->off = L->key[k];
    s->len = (uint32_t)len;
    s->list = list;
    L->max_bases += list ? count_char(value, len, ':') + 1 : 1;
}

/* RULE_ENV_XDG_CONFIG_HOME, RULE_ENV_XDG_DATA_HOME, RULE_ENV_HOME */
static void home_source(struct layout *L, char *text, size_t *pos, int k, const char *value, size_t len,
                        const char *home, const char *home_rel, uint8_t group) {
    /* XDG Base Directory: use $XDG_*_HOME unless unset or empty, else $HOME/<home_rel>; with
     * neither, the user location is skipped (spec §1.2 item 3). */
    if (len > 0) {
        key_source(L, k, value, len, false, group);
    } else if (non_empty(home)) {
        size_t hl = strlen(home);
        while (hl > 1 && home[hl - 1] == '/') hl--;
        add_source(L, text, pos, home, hl, home_rel, strlen(home_rel), false, group);
    }
}

/* RULE_ENV_XDG_CONFIG_DIRS, RULE_ENV_XDG_DATA_DIRS */
static void list_source(struct layout *L, char *text, size_t *pos, int k, const char *value, size_t len,
                        const char *fallback, uint8_t group) {
    /* "$XDG_*_DIRS ... fallback ... if the corresponding environment variable is not defined";
     * an empty value counts as not defined (XDG Base Directory spec; Khronos does the same). */
    if (len > 0)
        key_source(L, k, value, len, true, group);
    else
        add_source(L, text, pos, fallback, strlen(fallback), NULL, 0, true, group);
}

/* Measures (text NULL) or writes the text and fills *L; the two passes give the same layout. */
static void lay_out(const struct vkl_search_env *env, char *text, struct layout *L) {
    const char *vals[ENV_KEYS];
    size_t len[ENV_KEYS], pos = 0;
    env_values(env, vals);
    memset(L, 0, sizeof(*L));
    for (int k = 0; k < ENV_KEYS; k++) {
        len[k] = 0;
        L->key[k] = NO_KEY;
        if (vals[k] == NULL) continue;
        len[k] = strlen(vals[k]);
        L->key[k] = (uint32_t)pos;
        put(text, &pos, vals[k], len[k]);
        put(text, &pos, "", 1);
    }
    /* [Drv] "Driver Discovery on Linux" table order (same for layers, [Lyr]); find_bases visits
     * them in a base order's permutation. */
    home_source(L, text, &pos, 0, vals[0], len[0], env->home, "/.config", G_CONFIG_HOME);
    list_source(L, text, &pos, 2, vals[2], len[2], VKL_FALLBACK_CONFIG_DIRS, G_CONFIG_DIRS);
    if (non_empty(env->sysconfdir))
        add_source(L, text, &pos, env->sysconfdir, strlen(env->sysconfdir), NULL, 0, false, G_SYSCONF);
    if (non_empty(env->extrasysconfdir))
        add_source(L, text, &pos, env->extrasysconfdir, strlen(env->extrasysconfdir), NULL, 0, false, G_EXTRASYSCONF);
    home_source(L, text, &pos, 3, vals[3], len[3], env->home, "/.local/share", G_DATA_HOME);
    list_source(L, text, &pos, 4, vals[4], len[4], VKL_FALLBACK_DATA_DIRS, G_DATA_DIRS);
    L->text_size = pos;
}

/* The de-duplicated bases of a written text, into `ref` (room for max_bases). */
struct bases {
    const char *text;
    struct base_ref *ref;
    size_t count;
    bool indexed;      /* false: a plain scan */
    struct vkl_map ix; /* the bases' text (vkl_map_eq_span) */
};

/* false when out of memory (for the index). */
static bool add_base(struct bases *b, size_t off, size_t len) {
    const char *s = b->text + off;
    while (len > 1 && s[len - 1] == '/') len--;
    /* spec §1.2: the directory list is de-duplicated (first occurrence wins) */
    if (!b->indexed) {
        for (size_t i = 0; i < b->count; i++)
            if (b->ref[i].len == len && memcmp(b->text + b->ref[i].off, s, len) == 0) return true;
    } else {
        if (vkl_map_find_span(&b->ix, s, len) != NULL) return true;
        if (vkl_map_add_span(&b->ix, s, len) != VK_SUCCESS) return false;
    }
    b->ref[b->count].off = (uint32_t)off;
    b->ref[b->count].len = (uint32_t)len;
    b->count++;
    return true;
}

/* The bases in `order`; false when out of memory (for the index). */
static bool find_bases(const struct layout *L, enum vkl_base_order order, struct bases *b) {
    b->count = 0;
    b->indexed = L->max_bases > LINEAR_MAX;
    vkl_map_init(&b->ix, NULL, 0, vkl_map_eq_span, NULL, NULL);
    bool ok = true;
    /* at most one source per place: GROUPS * nsrc (<= 36) compares */
    for (size_t g = 0; ok && g < GROUPS; g++) {
        const struct base_source *s = NULL;
        for (size_t i = 0; s == NULL && i < L->nsrc; i++)
            if (L->src[i].group == k_order[order][g]) s = &L->src[i];
        if (s == NULL) continue;
        if (!s->list) {
            ok = add_base(b, s->off, s->len);
            continue;
        }
        /* empty entries ("a::b", leading/trailing ':') are dropped */
        const char *v = b->text + s->off;
        size_t start = 0;
        while (ok && start < s->len) {
            size_t end = start;
            while (end < s->len && v[end] != ':') end++;
            if (end > start) ok = add_base(b, s->off + start, end - start);
            start = end + 1;
        }
    }
    vkl_map_finish(&b->ix);
    return ok;
}

/* Bytes of "<base>/<suffix>\0" for base `r`. */
static size_t dir_size(const char *text, const struct base_ref *r, size_t suffix_len) {
    bool root = r->len == 1 && text[r->off] == '/';
    return r->len + (root ? 0 : 1) + suffix_len + 1;
}

/* Writes "<base>/<suffix>\0" at p; returns the end. */
static char *dir_write(char *p, const char *text, const struct base_ref *r, const char *suffix, size_t suffix_len) {
    bool root = r->len == 1 && text[r->off] == '/';
    memcpy(p, text + r->off, r->len);
    p += r->len;
    if (!root) *p++ = '/';
    memcpy(p, suffix, suffix_len + 1);
    return p + suffix_len + 1;
}

/* The measuring pass, with the size limit of the 32-bit offsets. */
static bool lay_out_measure(const struct vkl_search_env *env, struct layout *L) {
    lay_out(env, NULL, L);
    return L->text_size <= UINT32_MAX / 2;
}

VkResult vkl_search_dirs_build(const struct vkl_search_env *env, const char *suffix, struct vkl_strlist *out) {
    return vkl_search_dirs_build_order(env, VKL_BASES_CONFIG_FIRST, suffix, out);
}

VkResult vkl_search_dirs_build_order(const struct vkl_search_env *env, enum vkl_base_order order, const char *suffix,
                                     struct vkl_strlist *out) {
    VkResult r = VK_ERROR_OUT_OF_HOST_MEMORY;
    struct layout L;
    if (!lay_out_measure(env, &L)) return r;
    char *text = malloc(L.text_size);
    struct base_ref *ref = malloc((L.max_bases + 1) * sizeof(*ref));
    struct bases b = {.text = text, .ref = ref};
    size_t before = out->count, suffix_len = strlen(suffix);
    if (text == NULL || ref == NULL) goto out;
    lay_out(env, text, &L);
    if (!find_bases(&L, order, &b)) goto out;
    r = VK_SUCCESS;
    for (size_t i = 0; i < b.count && r == VK_SUCCESS; i++) {
        char *dir = malloc(dir_size(text, &ref[i], suffix_len));
        if (dir == NULL) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
            break;
        }
        dir_write(dir, text, &ref[i], suffix, suffix_len);
        /* the bases are distinct; `out` may hold directories from before */
        if (vkl_strlist_contains(out, dir))
            free(dir);
        else
            r = vkl_strlist_append_owned(out, dir);
    }
    if (r != VK_SUCCESS) vkl_strlist_truncate(out, before);
out:
    free(text);
    free(ref);
    return r;
}

VkResult vkl_search_env_from_process(struct vkl_search_env *out) {
    memset(out, 0, sizeof(*out));
    /* By number (no name look-up), and once per call scope (env.h): the settings search and each
     * directory search of one global call share the values. */
    out->xdg_config_home = vkl_getenv_id(VKL_ENV_XDG_CONFIG_HOME);
    out->home = vkl_getenv_id(VKL_ENV_HOME);
    out->xdg_config_dirs = vkl_getenv_id(VKL_ENV_XDG_CONFIG_DIRS);
    out->xdg_data_home = vkl_getenv_id(VKL_ENV_XDG_DATA_HOME);
    out->xdg_data_dirs = vkl_getenv_id(VKL_ENV_XDG_DATA_DIRS);
    out->sysconfdir = VKL_SYSCONFDIR;
#ifdef VKL_EXTRASYSCONFDIR
    out->extrasysconfdir = VKL_EXTRASYSCONFDIR;
#else
    out->extrasysconfdir = NULL;
#endif
    return VK_SUCCESS;
}

/* ------------------------------------------------------------------ the base set, kept */

/*
 * One entry: the bases for the current values of the five variables (their copies are its key),
 * shared by every kind, in each base order. The list for a kind is written on demand, into one
 * allocation; a small one (the usual few directories) is kept in the entry and shared by every
 * holder, so an unchanged environment costs a lookup; a large one is written for its holder and
 * freed at release, so the directories of 50,000 bases are not kept four times over. An entry is
 * immutable once published (its kept lists only added, under the lock); a newer one replaces it
 * when a value differs, and the old one is freed when its last holder releases it.
 */
#define SUFFIX_SLOTS 6
#define VIEW_KEEP_MAX 16384 /* bytes of a list that is kept in the entry */

struct dirs_entry;
struct dirs_view {
    struct vkl_search_dirs pub; /* first member: the public view */
    struct dirs_entry *owner;   /* the entry that keeps it, or NULL: written for one holder */
};

struct dirs_entry {
    unsigned refs; /* holders of its kept lists, plus one while it is the current entry */
    char *text;
    struct base_ref *ref[VKL_BASE_ORDER_COUNT]; /* the same bases in each order */
    size_t count;
    size_t max_len; /* the longest base */
    uint32_t key[ENV_KEYS];
    const char *suffix[SUFFIX_SLOTS]; /* borrowed: the kinds' suffixes (string literals) */
    enum vkl_base_order order[SUFFIX_SLOTS];
    struct dirs_view *view[SUFFIX_SLOTS];
};

static pthread_mutex_t g_dirs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dirs_entry *g_dirs;

static bool same_key(const struct dirs_entry *e, int k, const char *value) {
    if (e->key[k] == NO_KEY) return value == NULL;
    return value != NULL && strcmp(e->text + e->key[k], value) == 0;
}

static void dirs_entry_free(struct dirs_entry *e) {
    for (int i = 0; i < SUFFIX_SLOTS; i++) free(e->view[i]);
    free(e);
}

__attribute__((destructor)) static void search_dirs_shutdown(void) {
    pthread_mutex_lock(&g_dirs_lock);
    struct dirs_entry *e = g_dirs;
    g_dirs = NULL;
    if (e != NULL && --e->refs == 0) dirs_entry_free(e);
    pthread_mutex_unlock(&g_dirs_lock);
}

/* One allocation: the entry, room for the bases in each order, the text. */
static struct dirs_entry *dirs_entry_build(const struct vkl_search_env *env) {
    struct layout L;
    if (!lay_out_measure(env, &L)) return NULL;
    size_t ref_bytes = L.max_bases * sizeof(struct base_ref);
    struct dirs_entry *e = calloc(1, sizeof(*e) + VKL_BASE_ORDER_COUNT * ref_bytes + L.text_size);
    if (e == NULL) return NULL;
    for (int o = 0; o < VKL_BASE_ORDER_COUNT; o++)
        e->ref[o] = (struct base_ref *)(void *)((char *)(e + 1) + (size_t)o * ref_bytes);
    e->text = (char *)(e + 1) + VKL_BASE_ORDER_COUNT * ref_bytes;
    lay_out(env, e->text, &L);
    memcpy(e->key, L.key, sizeof(e->key));
    for (int o = 0; o < VKL_BASE_ORDER_COUNT; o++) {
        struct bases b = {.text = e->text, .ref = e->ref[o]};
        if (!find_bases(&L, (enum vkl_base_order)o, &b)) {
            free(e);
            return NULL;
        }
        e->count = b.count; /* the same set in every order */
    }
    for (size_t i = 0; i < e->count; i++)
        if (e->ref[0][i].len > e->max_len) e->max_len = e->ref[0][i].len;
    return e;
}

/* Bytes of the list for a suffix of `suffix_len` bytes: the view, the item pointers, the strings. */
static size_t view_size(const struct dirs_entry *e, size_t suffix_len) {
    size_t size = sizeof(struct dirs_view) + e->count * sizeof(char *);
    for (size_t i = 0; i < e->count; i++) size += dir_size(e->text, &e->ref[0][i], suffix_len);
    return size;
}

/* The list for `suffix` in `order`, in one allocation of `size` (view_size) bytes, for no owner
 * yet. */
static struct dirs_view *view_write(const struct dirs_entry *e, enum vkl_base_order order, const char *suffix,
                                    size_t size) {
    size_t suffix_len = strlen(suffix);
    struct dirs_view *v = malloc(size);
    if (v == NULL) return NULL;
    char **items = (char **)(void *)(v + 1);
    char *p = (char *)(items + e->count);
    for (size_t i = 0; i < e->count; i++) {
        items[i] = p;
        p = dir_write(p, e->text, &e->ref[order][i], suffix, suffix_len);
    }
    /* read-only for the holders: no hash index (nothing looks up in it) */
    v->pub.dirs = (struct vkl_strlist){items, e->count, e->count, NULL};
    v->owner = NULL;
    return v;
}

/* The list for `suffix` in `order` that `e` keeps, written now if it is small enough to keep;
 * NULL when it is not kept (large, no free slot, out of memory). Under the lock. */
static struct dirs_view *kept_view_locked(struct dirs_entry *e, enum vkl_base_order order, const char *suffix) {
    size_t slot = 0;
    for (; slot < SUFFIX_SLOTS; slot++)
        if (e->suffix[slot] == NULL ||
            (e->order[slot] == order && (e->suffix[slot] == suffix || strcmp(e->suffix[slot], suffix) == 0)))
            break;
    if (slot == SUFFIX_SLOTS) return NULL;
    if (e->view[slot] != NULL) return e->view[slot];
    size_t size = view_size(e, strlen(suffix));
    if (size > VIEW_KEEP_MAX) return NULL;
    struct dirs_view *v = view_write(e, order, suffix, size);
    if (v == NULL) return NULL;
    v->owner = e;
    e->suffix[slot] = suffix;
    e->order[slot] = order;
    e->view[slot] = v;
    return v;
}

/* The current entry for the process environment, rebuilt when a value differs; under the lock.
 * NULL only when out of memory. */
static struct dirs_entry *current_entry_locked(void) {
    struct vkl_search_env env;
    vkl_search_env_from_process(&env);
    const char *vals[ENV_KEYS];
    env_values(&env, vals);
    struct dirs_entry *e = g_dirs;
    bool same = e != NULL;
    for (int k = 0; same && k < ENV_KEYS; k++) same = same_key(e, k, vals[k]);
    if (same) return e;
    struct dirs_entry *n = dirs_entry_build(&env);
    if (n == NULL) return NULL;
    if (e != NULL && --e->refs == 0) dirs_entry_free(e);
    n->refs = 1; /* the current entry's */
    g_dirs = n;
    return n;
}

static void entry_release(struct dirs_entry *e) {
    pthread_mutex_lock(&g_dirs_lock);
    bool last = --e->refs == 0;
    pthread_mutex_unlock(&g_dirs_lock);
    if (last) dirs_entry_free(e);
}

static const struct vkl_search_dirs *dirs_acquire(enum vkl_base_order order, const char *suffix) {
    struct dirs_view *v = NULL;
    pthread_mutex_lock(&g_dirs_lock);
    struct dirs_entry *e = current_entry_locked();
    if (e != NULL && (v = kept_view_locked(e, order, suffix)) != NULL)
        e->refs++; /* the holder's */
    else if (e != NULL)
        v = view_write(e, order, suffix, view_size(e, strlen(suffix))); /* for this holder alone */
    pthread_mutex_unlock(&g_dirs_lock);
    return v != NULL ? &v->pub : NULL;
}

const struct vkl_search_dirs *vkl_search_dirs_acquire(const char *suffix) {
    return dirs_acquire(VKL_BASES_CONFIG_FIRST, suffix);
}

void vkl_search_dirs_release(const struct vkl_search_dirs *dirs) {
    if (dirs == NULL) return;
    struct dirs_view *v = (struct dirs_view *)(void *)dirs;
    struct dirs_entry *e = v->owner;
    if (e == NULL) {
        free(v); /* written for this holder alone */
        return;
    }
    entry_release(e);
}

/* ------------------------------------------------------------------ the kinds */

/* The settings file's locations are "<base>/<suffix>/<file>": one view of the base set. */
#define SETTINGS_TARGET VKL_SETTINGS_SUFFIX "/" VKL_SETTINGS_FILE_NAME

/* RULE_DRV_SEARCH_ORDER, RULE_LYR_SEARCH_ORDER, RULE_SETTINGS_FILE. `found` is the Khronos loader's
 * wording for a manifest found (what its users grep for: "Found ICD manifest file" for drivers,
 * "Found manifest file" for layers). */
const struct vkl_discovery_row vkl_discovery_kinds[VKL_DISCOVER_KIND_COUNT] = {
    [VKL_DISCOVER_DRIVERS] = {"VK_DRIVER_FILES", "VK_ICD_FILENAMES", VKL_ENV_VK_DRIVER_FILES, VKL_ENV_VK_ICD_FILENAMES,
                              "VK_ADD_DRIVER_FILES", VKL_ENV_VK_ADD_DRIVER_FILES, VKL_ICD_SUFFIX, NULL,
                              VKL_BASES_CONFIG_FIRST, VKL_LOG_DRIVER, "driver search", "Found ICD manifest file",
                              "RULE_DRV_SEARCH_DIR_SCAN", "RULE_DRV_ENV_ICD_FILENAMES_DEPRECATED",
                              "RULE_DRV_ENV_ADD_DRIVER_FILES",
                              "set but empty, no driver manifests are searched [RULE_DRV_ENV_DRIVER_FILES_OVERRIDE]"},
    [VKL_DISCOVER_IMPLICIT_LAYERS] = {"VK_IMPLICIT_LAYER_PATH", NULL, VKL_ENV_VK_IMPLICIT_LAYER_PATH, VKL_ENV_ID_COUNT,
                                      "VK_ADD_IMPLICIT_LAYER_PATH", VKL_ENV_VK_ADD_IMPLICIT_LAYER_PATH,
                                      VKL_IMPLICIT_LAYER_SUFFIX, NULL, VKL_BASES_CONFIG_FIRST, VKL_LOG_LAYER,
                                      "layer search", "Found manifest file", "RULE_LYR_SEARCH_ORDER", NULL,
                                      "RULE_LYR_ENV_IMPLICIT_LAYER_PATH", NULL},
    [VKL_DISCOVER_EXPLICIT_LAYERS] = {"VK_LAYER_PATH", NULL, VKL_ENV_VK_LAYER_PATH, VKL_ENV_ID_COUNT,
                                      "VK_ADD_LAYER_PATH", VKL_ENV_VK_ADD_LAYER_PATH, VKL_EXPLICIT_LAYER_SUFFIX, NULL,
                                      VKL_BASES_CONFIG_FIRST, VKL_LOG_LAYER, "layer search", "Found manifest file",
                                      "RULE_LYR_SEARCH_ORDER", NULL, "RULE_LYR_ENV_LAYER_PATH", NULL},
    [VKL_DISCOVER_SETTINGS] = {NULL, NULL, VKL_ENV_ID_COUNT, VKL_ENV_ID_COUNT, NULL, VKL_ENV_ID_COUNT,
                               VKL_SETTINGS_SUFFIX, VKL_SETTINGS_FILE_NAME, VKL_BASES_HOMES_FIRST, 0, "settings search",
                               NULL, "RULE_SETTINGS_FILE", NULL, NULL, NULL},
};

/* The string a kind's view of the base set is written with: "<suffix>" or "<suffix>/<file>". */
static const char *kind_target(enum vkl_discovery_kind kind) {
    return kind == VKL_DISCOVER_SETTINGS ? SETTINGS_TARGET : vkl_discovery_kinds[kind].suffix;
}

const struct vkl_search_dirs *vkl_discovery_dirs_acquire(enum vkl_discovery_kind kind) {
    return dirs_acquire(vkl_discovery_kinds[kind].order, kind_target(kind));
}

static bool ends_with_json(const char *s) {
    size_t n = strlen(s);
    return n >= 5 && memcmp(s + n - 5, ".json", 5) == 0; /* case-sensitive, as Khronos is_json */
}

/* Appends `path` (owned, malloc'd; freed when not kept) unless an earlier search entry found it:
 * one hashed lookup (vkl_strlist_contains), whatever the number of manifests found so far. */
static VkResult add_manifest_owned(const struct vkl_log_sink *log, const struct vkl_discovery_row *k,
                                   struct vkl_strlist *out, char *path) {
    if (vkl_strlist_contains(out, path)) {
        vkl_log(log, VKL_LOG_DEBUG | k->log_cat, "%s: skipping %s (already found)", k->what, path);
        free(path);
        return VK_SUCCESS;
    }
    VkResult r = vkl_strlist_append_owned(out, path);
    if (r == VK_SUCCESS) vkl_log(log, VKL_LOG_DEBUG | k->log_cat, "%s: %s %s", k->what, k->found, path);
    return r;
}

static VkResult add_manifest(const struct vkl_log_sink *log, const struct vkl_discovery_row *k, struct vkl_strlist *out,
                             const char *path) {
    if (vkl_strlist_contains(out, path)) {
        vkl_log(log, VKL_LOG_DEBUG | k->log_cat, "%s: skipping %s (already found)", k->what, path);
        return VK_SUCCESS;
    }
    VkResult r = vkl_strlist_append(out, path);
    if (r == VK_SUCCESS) vkl_log(log, VKL_LOG_DEBUG | k->log_cat, "%s: %s %s", k->what, k->found, path);
    return r;
}

static VkResult search_entry(const struct vkl_log_sink *log, const struct vkl_discovery_row *k, const char *entry,
                             const char *from_env, struct vkl_strlist *out);

VkResult vkl_manifest_search_entry(const struct vkl_log_sink *log, const char *entry, const char *from_env,
                                   struct vkl_strlist *out) {
    return search_entry(log, &vkl_discovery_kinds[VKL_DISCOVER_DRIVERS], entry, from_env, out);
}

VkResult vkl_layer_manifest_search_entry(const struct vkl_log_sink *log, const char *entry, const char *from_env,
                                         struct vkl_strlist *out) {
    return search_entry(log, &vkl_discovery_kinds[VKL_DISCOVER_EXPLICIT_LAYERS], entry, from_env, out);
}
static VkResult search_entry(const struct vkl_log_sink *log, const struct vkl_discovery_row *k, const char *entry,
                             const char *from_env, struct vkl_strlist *out) {
    VkResult r = VK_SUCCESS;
    struct vkl_dir_list names = {0};
    char *full = NULL;

    if (ends_with_json(entry)) {
        /* spec §1.2 item 4: an entry ending in ".json" is one manifest file */
        enum vkl_file_kind kind = vkl_file_kind(entry);
        if (kind != VKL_FILE_REGULAR) {
            const char *why = kind == VKL_FILE_MISSING ? strerror(errno) : "not a regular file";
            if (from_env != NULL)
                vkl_log(log, VKL_LOG_WARN | k->log_cat, "%s %s: manifest %s: cannot be used (%s) [%s]", k->what,
                        from_env, entry, why, k->rule_scan);
            goto out;
        }
        r = add_manifest(log, k, out, entry);
        goto out;
    }

    /* Every directory searched is named, in search order, so "why is my driver not found" can be
     * answered from the log (VK_LOADER_DEBUG=driver / layer). */
    /* Whether DEBUG lines go anywhere, asked once: most searched directories do not exist, and
     * every global call walks them (docs/performance.md). */
    bool debug = vkl_log_wants(log, VKL_LOG_DEBUG | k->log_cat);
    if (debug)
        vkl_log(log, VKL_LOG_DEBUG | k->log_cat, "%s: searching %s%s%s", k->what, entry, from_env ? " from " : "",
                from_env ? from_env : "");
    /* [Drv]: the order within a directory is readdir's ("random"); the listing is sorted, which
     * makes it deterministic. */
    r = vkl_dir_list(entry, ".json", &names);
    if (r == VK_ERROR_INITIALIZATION_FAILED) {
        /* Non-existent directories are skipped (spec §1.2 item 4, RULE_DRV_SEARCH_DIR_SCAN). */
        int e = errno;
        r = VK_SUCCESS;
        /* strerror only when the line goes somewhere. */
        if (!debug) goto out;
        if (from_env != NULL)
            vkl_log(log, VKL_LOG_DEBUG | k->log_cat, "%s %s: skipping directory %s (%s) [%s]", k->what, from_env, entry,
                    strerror(e), k->rule_scan);
        else
            vkl_log(log, VKL_LOG_DEBUG | k->log_cat, "%s: skipping directory %s (%s)", k->what, entry, strerror(e));
        goto out;
    }
    if (r != VK_SUCCESS) goto out;

    size_t elen = strlen(entry);
    bool slash = elen > 0 && entry[elen - 1] == '/';
    for (size_t i = 0; i < names.count; i++) {
        size_t nlen = strlen(names.items[i].name);
        full = malloc(elen + 1 + nlen + 1);
        if (full == NULL) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
            goto out;
        }
        size_t pos = elen;
        memcpy(full, entry, elen);
        if (!slash) full[pos++] = '/';
        memcpy(full + pos, names.items[i].name, nlen + 1);
        /* directories, FIFOs and dangling links named *.json are not manifests; a symbolic link
         * (or a file system without d_type) is classified without blocking */
        enum vkl_file_kind kind = names.items[i].kind;
        if (kind == VKL_FILE_MISSING) kind = vkl_file_kind(full);
        if (kind == VKL_FILE_REGULAR) {
            r = add_manifest_owned(log, k, out, full);
            full = NULL;
            if (r != VK_SUCCESS) goto out;
        } else {
            vkl_log(log, VKL_LOG_DEBUG | k->log_cat, "%s: skipping %s (not a regular file)", k->what, full);
        }
        free(full);
        full = NULL;
    }

out:
    free(full);
    vkl_dir_list_free(&names);
    return r;
}

/* ------------------------------------------------------------------ the one search */

/* A walk over a kind's default locations: each directory searched for manifests, or each settings
 * file location tried until one exists. */
struct walk {
    const struct vkl_log_sink *log;
    const struct vkl_discovery_row *k;
    bool one_file; /* the row names one file (the settings file) */
    bool debug;    /* DEBUG lines go somewhere: asked once, not per location */
    bool done;
    struct vkl_strlist *out;
};

static VkResult visit(struct walk *w, const char *path) {
    if (!w->one_file) return search_entry(w->log, w->k, path, NULL, w->out);
    if (vkl_file_exists(path)) {
        w->done = true;
        return vkl_strlist_append(w->out, path);
    }
    if (w->debug) vkl_log(w->log, VKL_LOG_DEBUG | w->k->log_cat, "%s: no file %s", w->k->what, path);
    return VK_SUCCESS;
}

/* Every default location of `kind` in its base order, from the shared base set. The usual few are
 * a list the entry keeps, written once; a long one (a long XDG_DATA_DIRS) is never written: each
 * "<base>/<target>" goes into one reused buffer as it is visited. */
static VkResult scan_defaults(const struct vkl_log_sink *log, enum vkl_discovery_kind kind, struct vkl_strlist *out) {
    const struct vkl_discovery_row *k = &vkl_discovery_kinds[kind];
    const char *target = kind_target(kind);
    struct dirs_view *kept = NULL;
    pthread_mutex_lock(&g_dirs_lock);
    struct dirs_entry *e = current_entry_locked();
    if (e != NULL) {
        e->refs++; /* held while the locations are visited, outside the lock */
        kept = kept_view_locked(e, k->order, target);
    }
    pthread_mutex_unlock(&g_dirs_lock);
    if (e == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    struct walk w = {log, k, k->file != NULL, false, false, out};
    w.debug = w.one_file && vkl_log_wants(log, VKL_LOG_DEBUG | k->log_cat);
    VkResult r = VK_SUCCESS;
    if (kept != NULL) {
        for (size_t i = 0; r == VK_SUCCESS && !w.done && i < kept->pub.dirs.count; i++)
            r = visit(&w, kept->pub.dirs.items[i]);
    } else {
        char stack[512]; /* on the stack unless a base is long */
        char *buf = stack;
        size_t target_len = strlen(target), need = e->max_len + 1 + target_len + 1;
        if (need > sizeof(stack) && (buf = malloc(need)) == NULL) r = VK_ERROR_OUT_OF_HOST_MEMORY;
        for (size_t i = 0; r == VK_SUCCESS && !w.done && i < e->count; i++) {
            dir_write(buf, e->text, &e->ref[k->order][i], target, target_len);
            r = visit(&w, buf);
        }
        if (buf != stack) free(buf);
    }
    entry_release(e);
    return r;
}

/* Each entry of a ':'-separated variable value, named after the variable in the log lines. */
static VkResult search_env_list(const struct vkl_log_sink *log, const struct vkl_discovery_row *k, const char *var,
                                const char *value, struct vkl_strlist *out) {
    struct vkl_strlist entries = VKL_STRLIST_INIT;
    VkResult r = vkl_path_list_split(value, strlen(value), ':', &entries);
    for (size_t i = 0; r == VK_SUCCESS && i < entries.count; i++) r = search_entry(log, k, entries.items[i], var, out);
    vkl_strlist_finish(&entries);
    return r;
}

static VkResult search_source(const struct vkl_log_sink *log, const struct vkl_discovery_row *k,
                              const struct vkl_discovery_source *src, struct vkl_strlist *out) {
    VkResult r = VK_SUCCESS;
    for (size_t i = 0; r == VK_SUCCESS && i < src->count; i++)
        r = search_entry(log, k, src->path(src->ctx, i), src->from, out);
    return r;
}

/* The variables, then the default locations ([Drv] "Overriding the Default Driver Discovery",
 * "Additional Driver Discovery"; [Lyr] "Overriding the Default Layer Discovery": RULE_DRV_SEARCH_ORDER,
 * RULE_LYR_ENV_LAYER_PATH, RULE_LYR_ENV_IMPLICIT_LAYER_PATH; LDP_LOADER_2 / LLP_LOADER_2: manifests
 * from non-standard locations). */
static VkResult search_vars(const struct vkl_log_sink *log, enum vkl_discovery_kind kind, struct vkl_strlist *out) {
    const struct vkl_discovery_row *k = &vkl_discovery_kinds[kind];
    const char *override_var = k->override;
    const char *override = k->override != NULL ? vkl_getenv_id(k->override_id) : NULL;
    const char *old = k->override_old != NULL ? vkl_getenv_id(k->override_old_id) : NULL;
    /* The deprecated name is consulted only when the current one is unset. */
    if (override != NULL) {
        if (old != NULL)
            vkl_log(log, VKL_LOG_INFO | k->log_cat, "env %s: ignored because %s is set [%s]", k->override_old,
                    k->override, k->rule_old_ignored);
    } else if (old != NULL) {
        override_var = k->override_old;
        override = old;
    }
    const char *add = k->add != NULL ? vkl_getenv_id(k->add_id) : NULL;
    if (override != NULL) {
        /* With an override present the add variable "will not be used by the loader and any values
         * will be ignored". */
        if (add != NULL)
            vkl_log(log, VKL_LOG_INFO | k->log_cat, "env %s: ignored because %s is set [%s]", k->add, override_var,
                    k->rule_add_ignored);
        /* Set but empty: an active override with no entries (Khronos behaviour; documents silent). */
        if (override[0] == '\0' && k->empty_override_note != NULL)
            vkl_log(log, VKL_LOG_INFO | k->log_cat, "env %s: %s", override_var, k->empty_override_note);
        return search_env_list(log, k, override_var, override, out);
    }
    VkResult r = add != NULL ? search_env_list(log, k, k->add, add, out) : VK_SUCCESS;
    return r == VK_SUCCESS ? scan_defaults(log, kind, out) : r;
}

VkResult vkl_discover(enum vkl_discovery_kind kind, const struct vkl_discovery_opts *opts,
                      const struct vkl_log_sink *log, struct vkl_strlist *out) {
    const struct vkl_discovery_row *k = &vkl_discovery_kinds[kind];
    static const struct vkl_discovery_opts none = {0};
    const struct vkl_discovery_opts *o = opts != NULL ? opts : &none;
    struct vkl_strlist found = VKL_STRLIST_INIT, front = VKL_STRLIST_INIT;
    VkResult r = VK_SUCCESS;
    vkl_strlist_finish(out);
    if (!o->only_front) {
        if (o->replace.count > 0) {
            /* RULE_LYR_OVERRIDE: the override layer's override_paths replace every location. */
            if ((k->override != NULL && vkl_getenv_id(k->override_id) != NULL) ||
                (k->add != NULL && vkl_getenv_id(k->add_id) != NULL))
                vkl_log(log, VKL_LOG_INFO | k->log_cat, "%s: %s and %s ignored because %s", k->what, k->override,
                        k->add, o->replace_why);
            r = search_source(log, k, &o->replace, &found);
        } else if (o->no_env) {
            r = scan_defaults(log, kind, &found);
        } else {
            r = search_vars(log, kind, &found);
        }
    }
    if (r == VK_SUCCESS && o->front.count > 0) {
        /* The front source first, in its order, then the discovered files not among them. */
        r = search_source(log, k, &o->front, &front);
        for (size_t i = 0; r == VK_SUCCESS && i < found.count; i++)
            r = vkl_strlist_append_unique(&front, found.items[i]);
        vkl_strlist_finish(&found);
        found = front;
        front = (struct vkl_strlist)VKL_STRLIST_INIT;
    }
    if (r == VK_SUCCESS) {
        *out = found;
        return r;
    }
    vkl_strlist_finish(&found);
    vkl_strlist_finish(&front);
    return r;
}
