/*
 * filter_fuzzer: the VK_LOADER_DRIVERS_SELECT/DISABLE and VK_LOADER_LAYERS_ENABLE/DISABLE/ALLOW
 * glob filters (vkl_filter_parse, vkl_filter_match, vkl_driver_filter_check), no files.
 *
 * Framing: the first line (up to the first '\n', or everything) is filter value A; when the
 * input has a second line starting with "\x01" the rest of that line is filter value B (used as
 * the disable filter of vkl_driver_filter_check; otherwise A is both select and disable in turn).
 * Every following line is a name (a manifest path or a layer name) matched against the filters.
 * Filter values are passed with their exact length (not NUL-terminated); names are C strings.
 *
 * Oracle: a reference model written from the contract in loader/internal/filter.h (tokens split
 * on ',', empty tokens dropped, no trimming, ASCII case-insensitive, "name"/"pre*"/"*suf"/"*sub*",
 * interior '*' literal, "~all~"/"*"/"**" match everything, "~implicit~"/"~explicit~" flags, other
 * '~' tokens ignored, at most VKL_FILTER_MAX_TOKENS name tokens, each cut to
 * VKL_FILTER_MAX_TOKEN_LEN bytes) must agree with the loader on every flag and every match, and on
 * the select/disable decision of [Drv] "Driver Filtering".
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_target.h"
#include "fuzz/fuzz_input.h"
#include "loader/internal/filter.h"

#define FZ_TARGET "filter_fuzzer"

/* ---- reference model ------------------------------------------------------------------------ */
struct ref_tok {
    int kind; /* 0 exact, 1 prefix, 2 suffix, 3 substring */
    size_t len;
    char text[VKL_FILTER_MAX_TOKEN_LEN + 1];
};
struct ref {
    bool active, all, implicit, explicit_;
    unsigned count, dropped;
    struct ref_tok tok[VKL_FILTER_MAX_TOKENS];
};

static char fold(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c; }

static void ref_token(struct ref *r, const char *t, size_t n) {
    /* n > 0, t already folded and cut */
    r->active = true;
    if ((n == 5 && memcmp(t, "~all~", 5) == 0) || (n == 1 && t[0] == '*') || (n == 2 && memcmp(t, "**", 2) == 0)) {
        r->all = true;
        return;
    }
    if (t[0] == '~') {
        /* Special tokens start with '~'; only ~implicit~ and ~explicit~ mean something. */
        if (n == 10 && memcmp(t, "~implicit~", 10) == 0) r->implicit = true;
        if (n == 10 && memcmp(t, "~explicit~", 10) == 0) r->explicit_ = true;
        return;
    }
    if (r->count == VKL_FILTER_MAX_TOKENS) {
        r->dropped++;
        return;
    }
    bool lead = t[0] == '*', trail = n > 1 && t[n - 1] == '*';
    struct ref_tok *k = &r->tok[r->count++];
    if (lead) t++, n--;
    if (trail) n--;
    if (n > VKL_FILTER_MAX_TOKEN_LEN) n = VKL_FILTER_MAX_TOKEN_LEN;
    k->kind = lead && trail ? 3 : lead ? 2 : trail ? 1 : 0;
    k->len = n;
    memcpy(k->text, t, n);
    k->text[n] = '\0';
}

static void ref_parse(const char *v, size_t len, struct ref *r) {
    memset(r, 0, sizeof(*r));
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && v[j] != ',') j++;
        size_t n = j - i;
        if (n > 0) {
            char t[VKL_FILTER_MAX_TOKEN_LEN + 2];
            size_t keep = n > VKL_FILTER_MAX_TOKEN_LEN + 1 ? VKL_FILTER_MAX_TOKEN_LEN + 1 : n;
            for (size_t k = 0; k < keep; k++) t[k] = fold(v[i + k]);
            /* A token longer than the limit is cut; a trailing '*' keeps its meaning. */
            if (keep < n && v[j - 1] == '*') t[keep - 1] = '*';
            ref_token(r, t, keep);
        }
        i = j + 1;
    }
}

static bool ref_eq(const char *name, const char *t, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (fold(name[i]) != t[i]) return false;
    return true;
}

static bool ref_match(const struct ref *r, const char *name) {
    if (!r->active) return false;
    if (r->all) return true;
    size_t nl = strlen(name);
    for (unsigned i = 0; i < r->count; i++) {
        const struct ref_tok *k = &r->tok[i];
        if (k->len > nl) continue;
        switch (k->kind) {
            case 0:
                if (k->len == nl && ref_eq(name, k->text, k->len)) return true;
                break;
            case 1:
                if (ref_eq(name, k->text, k->len)) return true;
                break;
            case 2:
                if (ref_eq(name + nl - k->len, k->text, k->len)) return true;
                break;
            default:
                for (size_t s = 0; s + k->len <= nl; s++)
                    if (ref_eq(name + s, k->text, k->len)) return true;
        }
    }
    return false;
}

static enum vkl_driver_filter_result ref_check(const struct ref *sel, const struct ref *dis, const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    bool s = ref_match(sel, base), d = ref_match(dis, base);
    if (d && !s) return VKL_DRIVER_DISABLED;
    if (sel->active && !s) return VKL_DRIVER_NOT_SELECTED;
    return VKL_DRIVER_KEEP;
}

/* ---- target -------------------------------------------------------------------------------- */
static void compare(const struct vkl_filter *f, const struct ref *r) {
    CHECK(f->active == r->active);
    CHECK(f->match_all == r->all);
    CHECK(f->implicit_layers == r->implicit);
    CHECK(f->explicit_layers == r->explicit_);
    CHECK(f->count == r->count);
    CHECK(f->dropped == r->dropped);
    CHECK(f->count <= VKL_FILTER_MAX_TOKENS);
    for (unsigned i = 0; i < f->count; i++) {
        CHECK(f->tokens[i].len <= VKL_FILTER_MAX_TOKEN_LEN);
        CHECK(f->tokens[i].len == r->tok[i].len);
        CHECK(memcmp(f->tokens[i].text, r->tok[i].text, r->tok[i].len) == 0);
        CHECK(f->tokens[i].text[f->tokens[i].len] == '\0');
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *d = (const char *)data;
    const char *nl = memchr(d, '\n', size);
    size_t a_len = nl ? (size_t)(nl - d) : size;
    size_t pos = nl ? a_len + 1 : size;
    const char *b = NULL;
    size_t b_len = 0;
    if (pos < size && d[pos] == '\x01') {
        const char *nl2 = memchr(d + pos, '\n', size - pos);
        b = d + pos + 1;
        b_len = nl2 ? (size_t)(nl2 - b) : size - pos - 1;
        pos = nl2 ? (size_t)(nl2 - d) + 1 : size;
    }
    /* Exact-size copies so the parser cannot read past a value. */
    char *a_copy = malloc(a_len ? a_len : 1);
    char *b_copy = malloc(b_len ? b_len : 1);
    if (a_copy == NULL || b_copy == NULL) goto out;
    memcpy(a_copy, d, a_len);
    if (b_len) memcpy(b_copy, b, b_len);

    struct vkl_filter fa, fb, unset;
    struct ref ra, rb, runset;
    vkl_filter_parse(a_copy, a_len, &fa);
    ref_parse(a_copy, a_len, &ra);
    compare(&fa, &ra);
    vkl_filter_parse(b ? b_copy : NULL, b_len, &fb);
    if (b)
        ref_parse(b_copy, b_len, &rb);
    else
        memset(&rb, 0, sizeof(rb));
    compare(&fb, &rb);
    vkl_filter_parse(NULL, 0, &unset);
    memset(&runset, 0, sizeof(runset));
    compare(&unset, &runset);

    unsigned names = 0;
    while (pos < size && names < 64) {
        const char *e = memchr(d + pos, '\n', size - pos);
        size_t n = e ? (size_t)(e - (d + pos)) : size - pos;
        char *name = fz_cstr((const uint8_t *)d + pos, n);
        pos += n + 1;
        if (name == NULL) break;
        names++;
        CHECK(vkl_filter_match(&fa, name) == ref_match(&ra, name));
        CHECK(vkl_filter_match(&fb, name) == ref_match(&rb, name));
        CHECK(!vkl_filter_match(&unset, name));
        CHECK(!vkl_filter_match(NULL, name));
        const struct vkl_filter *sel = &fa, *dis = b ? &fb : &fa;
        const struct ref *rsel = &ra, *rdis = b ? &rb : &ra;
        CHECK(vkl_driver_filter_check(sel, dis, name) == ref_check(rsel, rdis, name));
        CHECK(vkl_driver_filter_check(NULL, &fa, name) == ref_check(&runset, &ra, name));
        CHECK(vkl_driver_filter_check(&fa, NULL, name) == ref_check(&ra, &runset, name));
        const char *base = vkl_path_basename(name);
        CHECK(base >= name && base <= name + strlen(name) && strchr(base, '/') == NULL);
        free(name);
    }
    CHECK(!vkl_filter_match(&fa, NULL));
out:
    free(a_copy);
    free(b_copy);
    return 0;
}
