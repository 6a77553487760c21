/*
 * Glob filters of VK_LOADER_DRIVERS_SELECT/DISABLE and VK_LOADER_LAYERS_ENABLE/DISABLE/ALLOW
 * ([Arch] "Filter Environment Variable Behaviors"; spec §1.4).
 *
 * Rules: comma-separated tokens; empty tokens dropped; no whitespace trimming (spaces are literal
 * characters, as in the Khronos loader; the documents say nothing about spaces). Matching is
 * ASCII case-insensitive. "name" = whole-name match, "pre*" prefix, "*suf" suffix, "*sub*"
 * substring; an interior '*' is a literal character. "*", "**" and "~all~" match every name in
 * every filter variable. "~implicit~" / "~explicit~" set flags (meaningful only for
 * VK_LOADER_LAYERS_DISABLE) and match nothing by name; other "~...~" tokens are ignored.
 * At most VKL_FILTER_MAX_TOKENS name tokens are kept; later ones are dropped and counted in
 * `dropped` so the caller can warn (the Khronos loader drops them silently). Tokens longer than
 * VKL_FILTER_MAX_TOKEN_LEN bytes are cut to that length (as the Khronos loader).
 *
 * Ownership: struct vkl_filter is plain caller storage, no heap. Thread-safety: pure functions.
 */
#ifndef VKL_INTERNAL_FILTER_H
#define VKL_INTERNAL_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VKL_FILTER_MAX_TOKENS 16
#define VKL_FILTER_MAX_TOKEN_LEN 255

enum vkl_filter_kind {
    VKL_FILTER_EXACT,
    VKL_FILTER_PREFIX,
    VKL_FILTER_SUFFIX,
    VKL_FILTER_SUBSTRING,
};

struct vkl_filter_token {
    enum vkl_filter_kind kind;
    uint32_t len;                            /* length of text */
    char text[VKL_FILTER_MAX_TOKEN_LEN + 1]; /* lower-cased, '*' markers removed */
    /* VKL_FILTER_SUBSTRING only: border[i] = length of the longest proper border of text[0..i]
     * (Knuth-Morris-Pratt), so a match costs O(name + token) whatever the bytes (RULE_ADVERSARIAL_INPUT). */
    uint8_t border[VKL_FILTER_MAX_TOKEN_LEN];
    /* VKL_FILTER_SUBSTRING only: the bytes text holds, one bit each: a name lacking one of them is
     * rejected without a scan (one pass over the name serves every substring token). */
    uint64_t needs[4];
};

struct vkl_filter {
    bool active;          /* at least one non-empty token was given (even if it matches nothing) */
    bool match_all;       /* "~all~", "*" or "**" was given */
    bool implicit_layers; /* "~implicit~" was given */
    bool explicit_layers; /* "~explicit~" was given */
    uint32_t count;       /* name tokens kept */
    uint32_t dropped;     /* name tokens beyond VKL_FILTER_MAX_TOKENS, dropped */
    struct vkl_filter_token tokens[VKL_FILTER_MAX_TOKENS];
};

/* Parses `len` bytes of `value` (NULL = unset: an inactive filter). Never fails. */
void vkl_filter_parse(const char *value, size_t len, struct vkl_filter *out);

/* True when `name` matches match_all or any name token. False for an inactive filter. */
bool vkl_filter_match(const struct vkl_filter *filter, const char *name);

enum vkl_driver_filter_result {
    VKL_DRIVER_KEEP,
    /* caller logs WARN|DRIVER: Driver "<basename>" ignored because it was disabled by env var
       'VK_LOADER_DRIVERS_DISABLE' */
    VKL_DRIVER_DISABLED,
    /* caller logs WARN|DRIVER: Driver "<basename>" ignored because not selected by env var
       'VK_LOADER_DRIVERS_SELECT' */
    VKL_DRIVER_NOT_SELECTED,
};

/*
 * The driver filter decision ([Drv] "Driver Filtering", spec §1.3): both filters are matched
 * against the manifest FILE NAME (text after the last '/'). Disable is considered first and select
 * can re-enable: disabled && !selected => DISABLED; else select active && !selected =>
 * NOT_SELECTED; else KEEP. NULL filters are inactive.
 */
enum vkl_driver_filter_result vkl_driver_filter_check(const struct vkl_filter *select, const struct vkl_filter *disable,
                                                      const char *manifest_path);

/* Pointer to the file name part of `path` (after the last '/'), borrowed. */
const char *vkl_path_basename(const char *path);

#ifdef __cplusplus
}
#endif

#endif /* VKL_INTERNAL_FILTER_H */
