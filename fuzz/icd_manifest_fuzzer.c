/*
 * icd_manifest_fuzzer: the driver-manifest parser (vkl_icd_manifest_parse) on buffers, no files.
 *
 * Framing: byte 0 picks the manifest path the parser is told the buffer came from (it is never
 * opened; it decides relative library_path resolution and appears in messages):
 *   0 absolute "/etc/vulkan/icd.d/mock_icd.json"     1 relative "icd.d/x86_64/mock.json"
 *   2 bare "mock.json"                                3 root "/mock.json"
 *   4 trailing slash dir "/usr/share/vulkan/icd.d//mock.json"   5 NULL (parser says "(unnamed)")
 *   6 a 300-byte path                                 7.. same as 0
 * The rest is the manifest, passed with its exact length.
 * Oracles (loader/internal/manifest.h): exactly one rejection line per rejection and none on
 * success; rejection lines name the file; *out zeroed on failure; on success the fields obey the
 * documented constraints (library_path non-empty and resolved as documented, bare flag, variant 0,
 * major 1, arch 0/64) and finish() may be called twice.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_target.h"
#include "fuzz/fuzz_input.h"
#include "loader/internal/json.h"
#include "loader/internal/log.h"
#include "loader/internal/manifest.h"

#define FZ_TARGET "icd_manifest_fuzzer"

struct sink_state {
    unsigned lines, rejections, truncated;
    bool rejection_names_file;
    const char *path;
};

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* The rule tag a rejection line ENDS with (values quoted inside the line may contain anything,
 * tags included: libFuzzer's comparison tracing finds those strings quickly). */
static bool is_rejection(const char *line) {
    return ends_with(line, "[LDP_DRIVER_4]") || ends_with(line, "[LDP_LOADER_4]") ||
           ends_with(line, "driver skipped [RULE_DRV_LIBRARY_ARCH]");
}

static void sink_emit(void *ctx, uint32_t flags, const char *line) {
    struct sink_state *s = ctx;
    CHECK_LOG_LINE(flags, line);
    s->lines++;
    /* Every loader line ends with its rule tag ("... [LDP_DRIVER_4]"). Messages are cut at
     * VKL_LOG_MAX_MESSAGE bytes, further back over what looks like UTF-8 continuation bytes, so a
     * long path or value can push the tag off the end: such a line cannot be classified. */
    size_t n = strlen(line);
    if (n == 0 || line[n - 1] != ']' || n + 8 > VKL_LOG_MAX_MESSAGE) s->truncated++;
    if (is_rejection(line) && n + 8 <= VKL_LOG_MAX_MESSAGE) {
        s->rejections++;
        if (strstr(line, s->path) != NULL) s->rejection_names_file = true;
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    vkl_log_set_level_for_testing(0); /* nothing on stderr; the sink sees everything */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char long_path[301];
    if (long_path[0] == '\0') {
        memset(long_path, 'a', 300);
        long_path[0] = '/';
        memcpy(long_path + 295, ".json", 5);
    }
    struct fz_in in = {data, size};
    const char *path;
    switch (fz_u8(&in) % 8) {
        case 1: path = "icd.d/x86_64/mock.json"; break;
        case 2: path = "mock.json"; break;
        case 3: path = "/mock.json"; break;
        case 4: path = "/usr/share/vulkan/icd.d//mock.json"; break;
        case 5: path = NULL; break;
        case 6: path = long_path; break;
        default: path = "/etc/vulkan/icd.d/mock_icd.json"; break;
    }
    size_t len;
    char *buf = fz_rest_copy(&in, &len);
    if (buf == NULL) return 0;

    struct sink_state st = {.path = path ? path : "(unnamed)"};
    struct vkl_log_sink sink = {.emit = sink_emit, .ctx = &st};
    struct vkl_icd_manifest m;
    memset(&m, 0xa5, sizeof(m));
    VkResult r = vkl_icd_manifest_parse(path, buf, len, &sink, &m);

    if (r == VK_SUCCESS) {
        CHECK(st.rejections == 0);
        CHECK(m.manifest_path != NULL && strcmp(m.manifest_path, st.path) == 0);
        CHECK(m.library_path != NULL && m.library_path[0] != '\0');
        CHECK(m.library_path_is_bare_name == (strchr(m.library_path, '/') == NULL));
        if (!m.library_path_is_bare_name && m.library_path[0] != '/' && path != NULL) {
            /* relative: joined to the manifest's directory */
            const char *slash = strrchr(path, '/');
            if (slash != NULL) CHECK(strncmp(m.library_path, path, (size_t)(slash - path) + 1) == 0);
        }
        CHECK(VK_API_VERSION_VARIANT(m.api_version) == 0);
        CHECK(VK_API_VERSION_MAJOR(m.api_version) == 1);
        CHECK(m.library_arch == 0 || m.library_arch == (int)(sizeof(void *) * 8));
        CHECK(VK_API_VERSION_MAJOR(m.file_format_version) <= 127);
        vkl_icd_manifest_finish(&m);
        CHECK(fz_all_zero(&m, sizeof(m)));
        vkl_icd_manifest_finish(&m);
    } else {
        CHECK(r == VK_ERROR_INITIALIZATION_FAILED || r == VK_ERROR_INCOMPATIBLE_DRIVER ||
              r == VK_ERROR_OUT_OF_HOST_MEMORY);
        CHECK(fz_all_zero(&m, sizeof(m)));
        CHECK(st.rejections <= 1);
        if (r != VK_ERROR_OUT_OF_HOST_MEMORY && st.truncated == 0) {
            CHECK(st.rejections == 1);
            CHECK(st.rejection_names_file);
        }
        vkl_icd_manifest_finish(&m);
    }
    /* Version strings: the strict parser never accepts what it cannot represent. */
    if (len > 0 && len < 64) {
        char *s = fz_cstr((const uint8_t *)buf, len);
        uint32_t v = 0;
        if (s != NULL && vkl_parse_version_string(s, true, &v)) {
            CHECK(VK_API_VERSION_VARIANT(v) <= 7);
            char back[64];
            if (strchr(s, '.') != strrchr(s, '.') && strlen(s) < sizeof(back)) {
                /* round trip of the canonical form only (no leading zeros) */
                int parts = 1;
                for (const char *c = s; *c; c++) parts += *c == '.';
                if (parts == 4)
                    snprintf(back, sizeof back, "%u.%u.%u.%u", VK_API_VERSION_VARIANT(v), VK_API_VERSION_MAJOR(v),
                             VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
                else
                    snprintf(back, sizeof back, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                             VK_API_VERSION_PATCH(v));
                bool leading_zero = false;
                for (const char *c = s; *c; c++)
                    if (*c == '0' && (c == s || c[-1] == '.') && c[1] >= '0' && c[1] <= '9') leading_zero = true;
                if (!leading_zero) CHECK(strcmp(back, s) == 0);
            }
        }
        free(s);
    }
    free(buf);
    return 0;
}
