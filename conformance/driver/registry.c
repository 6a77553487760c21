/* ldp-check: the Vulkan registry's extension list (LDP_DRIVER_12).
 *
 * Default: the list embedded at build time (gen_registry.py over @vulkan_registry//:vk.xml), so
 * an installed ldp-check needs no vk.xml. --registry=PATH reads a vk.xml at run time with a small
 * tag scanner (only <extension ...> start tags and VK_HEADER_VERSION are needed). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/driver/ldp_check.h"
#include "loader/internal/manifest.h"

extern const struct ldp_registry_ext ldp_embedded_registry[];
extern const size_t ldp_embedded_registry_count;
extern const unsigned ldp_embedded_registry_header_version;

struct owned {
    char *text;
    struct ldp_registry_ext *exts;
};

/* Value of attribute `name` inside the tag [p, end), NUL-terminated in place (the buffer is ours). */
static char *attr(char *p, char *end, const char *name) {
    size_t nl = strlen(name);
    for (char *q = p + 1; q + nl + 2 < end; q++) {
        if ((q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n') && strncmp(q, name, nl) == 0 && q[nl] == '=' &&
            (q[nl + 1] == '"' || q[nl + 1] == '\'')) {
            char quote = q[nl + 1];
            char *v = q + nl + 2;
            char *e = memchr(v, quote, (size_t)(end - v));
            if (e == NULL) return NULL;
            return v;
        }
    }
    return NULL;
}

static char *dup_attr(char *p, char *end, const char *name) {
    char *v = attr(p, end, name);
    if (v == NULL) return NULL;
    char quote = v[-1];
    char *e = memchr(v, quote, (size_t)(end - v));
    return e ? strndup(v, (size_t)(e - v)) : NULL;
}

/* VK_HEADER_VERSION of Vulkan: newer registries also define Vulkan SC's, in a <type> whose `api`
 * attribute does not name vulkan. 0 if none. */
static unsigned vulkan_header_version(char *text) {
    static const char kName[] = "VK_HEADER_VERSION</name>";
    for (char *hv = strstr(text, kName); hv != NULL; hv = strstr(hv + 1, kName)) {
        char *tag = hv;
        while (tag > text && strncmp(tag, "<type ", 6) != 0) tag--;
        char *end = strchr(tag, '>');
        char *api = end != NULL && end < hv ? dup_attr(tag, end, "api") : NULL;
        bool vulkan = api == NULL;
        for (char *save = NULL, *a = api != NULL ? strtok_r(api, ",", &save) : NULL; a != NULL;
             a = strtok_r(NULL, ",", &save))
            vulkan = vulkan || strcmp(a, "vulkan") == 0;
        free(api);
        if (vulkan) return (unsigned)strtoul(hv + sizeof kName - 1, NULL, 10);
    }
    return 0;
}

int ldp_registry_load(const char *path, struct ldp_registry *out, char *err, size_t err_len) {
    memset(out, 0, sizeof(*out));
    if (path == NULL) {
        out->exts = ldp_embedded_registry;
        out->count = ldp_embedded_registry_count;
        out->header_version = ldp_embedded_registry_header_version;
        out->source = "embedded list (vk.xml at build time)";
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    struct ldp_file f;
    text = ldp_file_read(path, 64u * 1024u * 1024u, &len, &f); /* never blocks on a FIFO */
    if (text == NULL) {
        snprintf(err, err_len, "cannot read registry %s: %s", path,
                 f.status == LDP_FILE_NOT_REGULAR ? ldp_file_type_name(f.mode)
                 : f.status == LDP_FILE_TOO_BIG   ? "larger than 64 MiB"
                                                  : strerror(f.err_no ? f.err_no : EIO));
        return -1;
    }
    struct owned *o = calloc(1, sizeof(*o));
    size_t cap = 1024, n = 0;
    struct ldp_registry_ext *exts = calloc(cap, sizeof(*exts));
    if (o == NULL || exts == NULL) {
        free(o);
        free(exts);
        free(text);
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    o->text = text;
    unsigned header = vulkan_header_version(text);
    for (char *p = strstr(text, "<extension "); p != NULL; p = strstr(p + 1, "<extension ")) {
        char *end = strchr(p, '>');
        if (end == NULL) break;
        char *name = dup_attr(p, end, "name");
        if (name == NULL) continue;
        char *supported = dup_attr(p, end, "supported");
        char *platform = dup_attr(p, end, "platform");
        bool published = false;
        if (supported != NULL) {
            char *save = NULL;
            for (char *t = strtok_r(supported, ",", &save); t; t = strtok_r(NULL, ",", &save))
                if (strcmp(t, "vulkan") == 0) published = true;
        }
        free(supported);
        if (n == cap) {
            struct ldp_registry_ext *g = realloc(exts, cap * 2 * sizeof(*exts));
            if (g == NULL) {
                free(name);
                free(platform);
                break;
            }
            exts = g;
            cap *= 2;
        }
        exts[n].name = name;
        exts[n].published = published;
        exts[n].platform = platform;
        n++;
    }
    o->exts = exts;
    if (n == 0) {
        snprintf(err, err_len, "%s has no <extension> elements (not a Vulkan registry?)", path);
        out->owned = o;
        out->exts = exts;
        ldp_registry_free(out);
        return -1;
    }
    out->exts = exts;
    out->count = n;
    out->header_version = header;
    out->source = path;
    out->owned = o;
    return 0;
}

const struct ldp_registry_ext *ldp_registry_find(const struct ldp_registry *r, const char *name) {
    for (size_t i = 0; i < r->count; i++)
        if (strcmp(r->exts[i].name, name) == 0) return &r->exts[i];
    return NULL;
}

void ldp_registry_free(struct ldp_registry *r) {
    struct owned *o = r->owned;
    if (o != NULL) {
        for (size_t i = 0; i < r->count; i++) {
            free((char *)o->exts[i].name);
            free((char *)o->exts[i].platform);
        }
        free(o->exts);
        free(o->text);
        free(o);
    }
    memset(r, 0, sizeof(*r));
}

/* Names that are window-system / platform interface extensions by their wording. */
bool ldp_looks_like_platform_extension(const char *name) {
    static const char *const words[] = {
        "surface",  "swapchain", "display",   "present", "_win32", "_xlib",     "_xcb",
        "_wayland", "_android",  "_metal",    "_macos",  "_ios",   "_fuchsia",  "_ggp",
        "_vi_",     "_screen",   "_directfb", "_mir_",   "_ohos",  "_acquire_", "_external_memory_android",
    };
    char lower[VK_MAX_EXTENSION_NAME_SIZE];
    size_t i = 0;
    for (; name[i] && i + 1 < sizeof lower; i++)
        lower[i] = (char)((name[i] >= 'A' && name[i] <= 'Z') ? name[i] - 'A' + 'a' : name[i]);
    lower[i] = '\0';
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        if (strstr(lower, words[k]) != NULL) return true;
    return false;
}
