/*
 * ldp_package_fuzzer: the ICD package metadata parser of `ldp-check --package`
 * (conformance/driver/package.h).
 *
 * Framing: the whole input is metadata.json (exact length, never NUL-terminated). It goes to
 * ldp_pkg_meta_parse on the buffer, and is written as meta/metadata/metadata.json of a scratch
 * package (under $TMPDIR, made once, holding lib/libdrv.so, bin/libdrv.so and
 * meta/icd.d/drv.json) that ldp_pkg_evaluate then judges.
 *
 * Oracles: the parser never fails (no allocation failure here) and its fields are consistent (a
 * JSON error has a message; a field in state OK is a non-empty string, EMPTY is "", ABSENT or
 * WRONG_TYPE is NULL; version_integral only for an OK version); ldp_pkg_path_problem accepts a path
 * exactly when a separate component split finds it relative with no empty, "." or ".." component
 * and no backslash; ldp_pkg_path_under_bin is the "bin/" prefix. The evaluation gives every rule a
 * verdict of the rule's range with a non-empty reason; when RULE_ICDPKG_1 fails every other rule is
 * not-testable-here; the driver checks are offered (manifest and library set) exactly when
 * RULE_ICDPKG_3 and 4 pass and the manifest is in the package, and then both lie inside it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_target.h"
#include "conformance/driver/package.h"

#define FZ_TARGET "ldp_package_fuzzer"

static char g_pkg[512];

static void write_file(const char *rel, const void *data, size_t len) {
    char p[700];
    snprintf(p, sizeof p, "%s/%s", g_pkg, rel);
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(data, 1, len, f) == len || len == 0);
    CHECK(fclose(f) == 0);
}

static void mkdir_rel(const char *rel) {
    char p[700];
    snprintf(p, sizeof p, "%s/%s", g_pkg, rel);
    CHECK(mkdir(p, 0755) == 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(g_pkg, sizeof g_pkg, "%s/ldp_package_fuzzer.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    CHECK(mkdtemp(g_pkg) != NULL);
    mkdir_rel("meta");
    mkdir_rel("meta/metadata");
    mkdir_rel("meta/icd.d");
    mkdir_rel("lib");
    mkdir_rel("bin");
    write_file("lib/libdrv.so", "ELF", 3);
    write_file("bin/libdrv.so", "ELF", 3);
    static const char manifest[] =
        "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"libdrv.so\", \"api_version\": \"1.3.0\"}}";
    write_file("meta/icd.d/drv.json", manifest, sizeof manifest - 1);
    return 0;
}

/* The lexical rule, written independently of package.c. */
static bool path_ok(const char *p) {
    if (p[0] == '\0' || p[0] == '/' || strchr(p, '\\') != NULL) return false;
    size_t n = strlen(p), start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || p[i] == '/') {
            size_t len = i - start;
            if (len == 0) return false;
            if (len == 1 && p[start] == '.') return false;
            if (len == 2 && p[start] == '.' && p[start + 1] == '.') return false;
            start = i + 1;
        }
    }
    return true;
}

static void check_field(enum ldp_pkg_field s, const char *v) {
    switch (s) {
        case LDP_PKG_OK:
            CHECK(v != NULL && v[0] != '\0');
            CHECK((ldp_pkg_path_problem(v) == NULL) == path_ok(v));
            CHECK(ldp_pkg_path_under_bin(v) == (strncmp(v, "bin/", 4) == 0));
            break;
        case LDP_PKG_EMPTY: CHECK(v != NULL && v[0] == '\0'); break;
        default: CHECK(v == NULL); break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct ldp_pkg_meta m;
    CHECK(ldp_pkg_meta_parse((const char *)data, size, &m));
    if (!m.json_ok) {
        CHECK(m.json_error[0] != '\0');
        CHECK(!m.is_object);
    }
    if (!m.is_object) {
        CHECK(m.version_state == LDP_PKG_ABSENT && m.file_path == NULL && m.manifest_path == NULL);
        CHECK(m.unknown_keys == 0);
    }
    if (m.json_ok && !m.is_object) CHECK(m.root_type[0] != '\0');
    if (m.version_state != LDP_PKG_OK) CHECK(!m.version_integral);
    CHECK(m.version_state != LDP_PKG_EMPTY);
    check_field(m.file_path_state, m.file_path);
    check_field(m.manifest_path_state, m.manifest_path);
    ldp_pkg_meta_free(&m);
    CHECK(m.file_path == NULL && m.manifest_path == NULL);

    /* The same bytes as a package's metadata.json. */
    if (size > LDP_PKG_METADATA_MAX) return 0;
    write_file(LDP_PKG_METADATA_REL, data, size);
    struct ldp_pkg_report r;
    ldp_pkg_evaluate(g_pkg, &r);
    CHECK(!r.io_error);
    for (size_t i = 0; i < LDP_PKG_RULE_COUNT; i++) {
        enum ldp_verdict v = r.rules[i].verdict;
        CHECK(v == LDP_PASS || v == LDP_FAIL || v == LDP_NOT_TESTABLE || (i == 6 && v == LDP_WARN));
        CHECK(r.rules[i].reason[0] != '\0');
        CHECK(strlen(r.rules[i].reason) < sizeof r.rules[i].reason);
        CHECK(r.rules[i].nevidence <= 4);
    }
    if (r.rules[0].verdict != LDP_PASS)
        for (size_t i = 1; i < LDP_PKG_RULE_COUNT; i++) CHECK(r.rules[i].verdict == LDP_NOT_TESTABLE);
    bool offered = r.manifest != NULL;
    CHECK(offered == (r.library != NULL));
    if (offered) {
        CHECK(r.rules[2].verdict == LDP_PASS && r.rules[3].verdict == LDP_PASS);
        size_t n = strlen(g_pkg);
        CHECK(strncmp(r.manifest, g_pkg, n) == 0 && r.manifest[n] == '/');
        CHECK(strncmp(r.library, g_pkg, n) == 0 && r.library[n] == '/');
    } else if (r.rules[2].verdict == LDP_PASS && r.rules[3].verdict == LDP_PASS) {
        CHECK(r.rules[4].verdict == LDP_FAIL); /* the manifest is not in the package */
    }
    ldp_pkg_report_free(&r);
    return 0;
}
