/*
 * Glob filters (see loader/internal/filter.h).
 */
#include "loader/internal/filter.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* RULE_DRV_FILTER_GLOB: comma lists of case-insensitive globs (driver and layer filters alike). */
static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }

static bool token_is(const char *t, size_t n, const char *word) { return strlen(word) == n && memcmp(t, word, n) == 0; }

static void add_token(struct vkl_filter *f, const char *t, size_t n) {
    f->active = true;
    /* [Arch] special tokens: "~all~" (and "*" / "**", which the Khronos loader treats the same)
     * match everything in every filter variable; ~implicit~/~explicit~ only mean something to
     * VK_LOADER_LAYERS_DISABLE; other "~" tokens are ignored (spec §1.4). */
    if (token_is(t, n, "~all~") || token_is(t, n, "*") || token_is(t, n, "**")) {
        f->match_all = true;
        return;
    }
    if (t[0] == '~') {
        if (token_is(t, n, "~implicit~")) f->implicit_layers = true;
        if (token_is(t, n, "~explicit~")) f->explicit_layers = true;
        return;
    }
    if (f->count == VKL_FILTER_MAX_TOKENS) {
        /* MAX_ADDITIONAL_FILTERS in Khronos: the rest are dropped; counted for a caller warning. */
        f->dropped++;
        return;
    }
    bool lead = t[0] == '*';
    bool trail = n > 1 && t[n - 1] == '*';
    if (lead) t++, n--;
    if (trail) n--;
    struct vkl_filter_token *tok = &f->tokens[f->count++];
    tok->kind = lead && trail ? VKL_FILTER_SUBSTRING
                : lead        ? VKL_FILTER_SUFFIX
                : trail       ? VKL_FILTER_PREFIX
                              : VKL_FILTER_EXACT;
    if (n > VKL_FILTER_MAX_TOKEN_LEN) n = VKL_FILTER_MAX_TOKEN_LEN;
    tok->len = (uint32_t)n;
    memcpy(tok->text, t, n);
    tok->text[n] = '\0';
    memset(tok->needs, 0, sizeof(tok->needs));
    if (tok->kind == VKL_FILTER_SUBSTRING)
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)tok->text[i];
            tok->needs[c >> 6] |= UINT64_C(1) << (c & 63);
        }
    if (tok->kind == VKL_FILTER_SUBSTRING && n > 0) {
        tok->border[0] = 0;
        size_t k = 0;
        for (size_t i = 1; i < n; i++) {
            while (k > 0 && tok->text[i] != tok->text[k]) k = tok->border[k - 1];
            if (tok->text[i] == tok->text[k]) k++;
            tok->border[i] = (uint8_t)k;
        }
    }
}

void vkl_filter_parse(const char *value, size_t len, struct vkl_filter *out) {
    /* Only the fields before the token array: a token is written whole when counted, and the
     * array (~4 KB) would otherwise be cleared on every layer discovery. */
    memset(out, 0, offsetof(struct vkl_filter, tokens));
    if (value == NULL) return;
    char token[VKL_FILTER_MAX_TOKEN_LEN + 2]; /* +1 to see a trailing '*' after the cut, +1 NUL */
    size_t start = 0;
    while (start < len) {
        size_t end = start;
        while (end < len && value[end] != ',') end++;
        size_t n = end - start;
        if (n > 0) { /* empty tokens vanish */
            /* [Arch] "Comparison Strings": case-insensitive — fold the filter once here */
            size_t keep = n < sizeof(token) - 1 ? n : sizeof(token) - 1;
            for (size_t i = 0; i < keep; i++) token[i] = lower(value[start + i]);
            /* a cut token keeps its trailing '*' meaning (prefix/substring) */
            if (keep < n && value[end - 1] == '*') token[keep - 1] = '*';
            token[keep] = '\0';
            add_token(out, token, keep);
        }
        start = end + 1;
    }
}

static bool eq_fold(const char *name, const char *lower_text, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (lower(name[i]) != lower_text[i]) return false;
    return true;
}

static bool token_match(const struct vkl_filter_token *t, const char *name, size_t name_len) {
    if (t->len > name_len) return false;
    switch (t->kind) {
        case VKL_FILTER_EXACT: return t->len == name_len && eq_fold(name, t->text, t->len);
        case VKL_FILTER_PREFIX: return eq_fold(name, t->text, t->len);
        case VKL_FILTER_SUFFIX: return eq_fold(name + name_len - t->len, t->text, t->len);
        case VKL_FILTER_SUBSTRING: {
            /* Knuth-Morris-Pratt: linear in name_len + len; a naive scan is O(name_len * len) and
             * 16 long tokens over 10,000 layers took seconds (RULE_ADVERSARIAL_INPUT). */
            if (t->len == 0) return true;
            size_t k = 0;
            for (size_t i = 0; i < name_len; i++) {
                char c = lower(name[i]);
                while (k > 0 && c != t->text[k]) k = t->border[k - 1];
                if (c == t->text[k] && ++k == t->len) return true;
            }
            return false;
        }
    }
    return false;
}

bool vkl_filter_match(const struct vkl_filter *f, const char *name) {
    if (f == NULL || !f->active || name == NULL) return false;
    if (f->match_all) return true;
    size_t name_len = strlen(name);
    /* The lower-cased bytes of the name, taken once when a substring token needs them: a token
     * with a byte the name lacks cannot occur in it (sixteen long "*...*" tokens over 10,000 layer
     * names otherwise cost sixteen scans per name, RULE_ADVERSARIAL_INPUT). */
    uint64_t have[4] = {0, 0, 0, 0};
    bool have_done = false;
    for (uint32_t i = 0; i < f->count; i++) {
        const struct vkl_filter_token *t = &f->tokens[i];
        if (t->kind == VKL_FILTER_SUBSTRING && t->len > 0 && t->len <= name_len) {
            if (!have_done) {
                for (size_t k = 0; k < name_len; k++) {
                    unsigned char c = (unsigned char)lower(name[k]);
                    have[c >> 6] |= UINT64_C(1) << (c & 63);
                }
                have_done = true;
            }
            if ((t->needs[0] & ~have[0]) | (t->needs[1] & ~have[1]) | (t->needs[2] & ~have[2]) |
                (t->needs[3] & ~have[3]))
                continue;
        }
        if (token_match(t, name, name_len)) return true;
    }
    return false;
}

const char *vkl_path_basename(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

enum vkl_driver_filter_result vkl_driver_filter_check(const struct vkl_filter *select, const struct vkl_filter *disable,
                                                      const char *manifest_path) {
    /* [Drv] "Driver Filtering": compared against the driver's manifest file name. */
    const char *name = vkl_path_basename(manifest_path);
    bool selected = vkl_filter_match(select, name);
    bool disabled = vkl_filter_match(disable, name);
    /* [Arch] "Priority": disable is considered first, so select can re-enable a disabled driver. */
    if (disabled && !selected) return VKL_DRIVER_DISABLED;
    if (select != NULL && select->active && !selected) return VKL_DRIVER_NOT_SELECTED;
    return VKL_DRIVER_KEEP;
}
