/*
 * path_list_fuzzer: the path-list parsers (vkl_path_list_split, as used for VK_DRIVER_FILES,
 * VK_ICD_FILENAMES, VK_ADD_DRIVER_FILES, VK_LAYER_PATH, ...) and the XDG/HOME/SYSCONFDIR
 * search-directory construction (vkl_search_dirs_build), pure functions, no files.
 *
 * Framing: byte 0 = options (bits 0-1: separator ':' ';' ',' or byte 1 of the input; bits 2-3:
 * suffix vulkan/icd.d, vulkan/implicit_layer.d, vulkan/explicit_layer.d, or ""). The rest is split
 * on NUL bytes into fields:
 *   field 0      the list given to vkl_path_list_split (exact length)
 *   fields 1..7  XDG_CONFIG_HOME, HOME, XDG_CONFIG_DIRS, XDG_DATA_HOME, XDG_DATA_DIRS, sysconfdir,
 *                extrasysconfdir; a field that is exactly "\x01", or one the input does not reach,
 *                is NULL (unset)
 * Oracle: reference models written from loader/internal/search_paths.h (entry order, empty entries
 * dropped, duplicates kept by split; for the directories: documented order, XDG fallbacks for unset
 * or empty lists, $HOME/.config and $HOME/.local/share, trailing '/' removed from bases, "/" kept,
 * first occurrence wins) must produce exactly the loader's lists, and a list that already has
 * entries keeps them in front.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_target.h"
#include "fuzz/fuzz_input.h"
#include "loader/internal/search_paths.h"
#include "loader/internal/strlist.h"

#define FZ_TARGET "path_list_fuzzer"

/* ---- reference models ----------------------------------------------------------------------- */
static void ref_split(const char *v, size_t len, char sep, struct vkl_strlist *out) {
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && v[j] != sep) j++;
        if (j > i) CHECK(vkl_strlist_append_n(out, v + i, j - i) == VK_SUCCESS);
        i = j + 1;
    }
}

static void ref_add(struct vkl_strlist *out, const char *base, size_t n, const char *suffix) {
    while (n > 1 && base[n - 1] == '/') n--;
    size_t sl = strlen(suffix);
    char *s = malloc(n + 1 + sl + 1);
    CHECK(s != NULL);
    memcpy(s, base, n);
    size_t p = n;
    if (!(n == 1 && base[0] == '/')) s[p++] = '/';
    memcpy(s + p, suffix, sl + 1);
    if (!vkl_strlist_contains(out, s)) CHECK(vkl_strlist_append(out, s) == VK_SUCCESS);
    free(s);
}

static bool set_nonempty(const char *s) { return s != NULL && *s != '\0'; }

static void ref_home(struct vkl_strlist *out, const char *xdg, const char *home, const char *rel, const char *suffix) {
    if (set_nonempty(xdg)) {
        ref_add(out, xdg, strlen(xdg), suffix);
    } else if (set_nonempty(home)) {
        size_t hl = strlen(home);
        while (hl > 1 && home[hl - 1] == '/') hl--;
        size_t rl = strlen(rel);
        char *b = malloc(hl + 1 + rl + 1);
        CHECK(b != NULL);
        memcpy(b, home, hl);
        b[hl] = '/';
        memcpy(b + hl + 1, rel, rl + 1);
        ref_add(out, b, strlen(b), suffix);
        free(b);
    }
}

static void ref_list(struct vkl_strlist *out, const char *list, const char *fallback, const char *suffix) {
    const char *v = set_nonempty(list) ? list : fallback;
    struct vkl_strlist parts = VKL_STRLIST_INIT;
    ref_split(v, strlen(v), ':', &parts);
    for (size_t i = 0; i < parts.count; i++) ref_add(out, parts.items[i], strlen(parts.items[i]), suffix);
    vkl_strlist_finish(&parts);
}

static void ref_dirs(const struct vkl_search_env *e, const char *suffix, struct vkl_strlist *out) {
    ref_home(out, e->xdg_config_home, e->home, ".config", suffix);
    ref_list(out, e->xdg_config_dirs, VKL_FALLBACK_CONFIG_DIRS, suffix);
    if (set_nonempty(e->sysconfdir)) ref_add(out, e->sysconfdir, strlen(e->sysconfdir), suffix);
    if (set_nonempty(e->extrasysconfdir)) ref_add(out, e->extrasysconfdir, strlen(e->extrasysconfdir), suffix);
    ref_home(out, e->xdg_data_home, e->home, ".local/share", suffix);
    ref_list(out, e->xdg_data_dirs, VKL_FALLBACK_DATA_DIRS, suffix);
}

static void same_lists(const struct vkl_strlist *a, const struct vkl_strlist *b) {
    CHECK(a->count == b->count);
    for (size_t i = 0; i < a->count; i++) CHECK(strcmp(a->items[i], b->items[i]) == 0);
}

/* ---- target -------------------------------------------------------------------------------- */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct fz_in in = {data, size};
    uint8_t opt = fz_u8(&in);
    static const char seps[3] = {':', ';', ','};
    char sep = (opt & 3) < 3 ? seps[opt & 3] : (char)fz_u8(&in);
    static const char *const suffixes[4] = {VKL_ICD_SUFFIX, VKL_IMPLICIT_LAYER_SUFFIX, VKL_EXPLICIT_LAYER_SUFFIX, ""};
    const char *suffix = suffixes[(opt >> 2) & 3];

    size_t rest_len;
    const uint8_t *rest = fz_rest(&in, &rest_len);
    /* field 0: up to the first NUL, exact-size copy */
    const uint8_t *nul = memchr(rest, 0, rest_len);
    size_t f0_len = nul ? (size_t)(nul - rest) : rest_len;
    char *f0 = malloc(f0_len ? f0_len : 1);
    if (f0 == NULL) return 0;
    memcpy(f0, rest, f0_len);

    char *fields[7] = {NULL};
    /* fields 1..7 follow field 0's NUL, each ended by a NUL or by the end of the input */
    size_t pos = f0_len + 1;
    for (int i = 0; i < 7 && nul != NULL && pos <= rest_len; i++) {
        const uint8_t *e = memchr(rest + pos, 0, rest_len - pos);
        size_t n = e ? (size_t)(e - (rest + pos)) : rest_len - pos;
        if (!(n == 1 && rest[pos] == 1)) fields[i] = fz_cstr(rest + pos, n);
        if (e == NULL) break;
        pos += n + 1;
    }

    /* vkl_path_list_split, appended after an existing entry */
    struct vkl_strlist got = VKL_STRLIST_INIT, want = VKL_STRLIST_INIT;
    CHECK(vkl_strlist_append(&got, "existing") == VK_SUCCESS);
    CHECK(vkl_strlist_append(&want, "existing") == VK_SUCCESS);
    CHECK(vkl_path_list_split(f0, f0_len, sep, &got) == VK_SUCCESS);
    ref_split(f0, f0_len, sep, &want);
    same_lists(&got, &want);
    for (size_t i = 1; i < got.count; i++) CHECK(got.items[i][0] != '\0');
    vkl_strlist_finish(&got);
    vkl_strlist_finish(&want);
    CHECK(vkl_path_list_split(NULL, 0, ':', &got) == VK_SUCCESS && got.count == 0);

    /* vkl_search_dirs_build */
    struct vkl_search_env env = {
        .xdg_config_home = fields[0],
        .home = fields[1],
        .xdg_config_dirs = fields[2],
        .xdg_data_home = fields[3],
        .xdg_data_dirs = fields[4],
        .sysconfdir = fields[5],
        .extrasysconfdir = fields[6],
    };
    CHECK(vkl_strlist_append(&got, "/already/there") == VK_SUCCESS);
    CHECK(vkl_strlist_append(&want, "/already/there") == VK_SUCCESS);
    CHECK(vkl_search_dirs_build(&env, suffix, &got) == VK_SUCCESS);
    ref_dirs(&env, suffix, &want);
    same_lists(&got, &want);
    size_t sl = strlen(suffix);
    for (size_t i = 1; i < got.count; i++) {
        size_t n = strlen(got.items[i]);
        CHECK(n >= sl && strcmp(got.items[i] + n - sl, suffix) == 0);
        for (size_t j = 1; j < i; j++) CHECK(strcmp(got.items[i], got.items[j]) != 0);
    }
    vkl_strlist_finish(&got);
    vkl_strlist_finish(&want);

    for (int i = 0; i < 7; i++) free(fields[i]);
    free(f0);
    return 0;
}
