/* Fuchsia-style ICD packages (`ldp-check --package=DIR`, docs/ldp-check.md "ICD packages").
 *
 * Layout (the Fuchsia Vulkan loader service's ICD interface, shared/seeds/002_*): the package
 * directory is the "contents" directory; the metadata directory is meta/metadata/ and holds
 * metadata.json:
 *     {"file_path": "lib/libvulkan_example.so", "version": 1,
 *      "manifest_path": "meta/icd.d/libvulkan_example.json"}
 * version must be 1; file_path (the driver library) and manifest_path (its Khronos ICD manifest)
 * are relative to the contents directory; the library may sit anywhere but under bin/.
 *
 * The rules RULE_ICDPKG_1..7 (conformance/policies/policies.tsv) are decided here, in the parent
 * (no driver is loaded): ldp_pkg_meta_parse works on a buffer (fuzzed: fuzz/ldp_package_fuzzer.c),
 * ldp_pkg_evaluate adds what the file system says.
 */
#ifndef LDP_PACKAGE_H
#define LDP_PACKAGE_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/driver/ldp_check.h"

#ifdef __cplusplus
extern "C" {
#endif

#define LDP_PKG_METADATA_REL "meta/metadata/metadata.json"
#define LDP_PKG_METADATA_MAX (1024u * 1024u) /* metadata.json is a few lines */
#define LDP_PKG_RULE_COUNT 7

/* The rule definitions (ids RULE_ICDPKG_1..7, titles), in report order. */
extern const struct ldp_check_def ldp_pkg_rules[LDP_PKG_RULE_COUNT];

enum ldp_pkg_field { LDP_PKG_ABSENT, LDP_PKG_WRONG_TYPE, LDP_PKG_EMPTY, LDP_PKG_OK };

struct ldp_pkg_meta {
    bool json_ok;   /* one JSON value (the loader's parser) */
    bool is_object; /* ... and it is an object */
    char json_error[300];
    char root_type[24];               /* the JSON type of the root when it is not an object */
    enum ldp_pkg_field version_state; /* OK: a number (version holds it; integral tells) */
    double version;
    bool version_integral;
    char version_type[24];
    enum ldp_pkg_field file_path_state, manifest_path_state;
    char file_path_type[24], manifest_path_type[24];
    char *file_path, *manifest_path; /* malloc'd when state is OK (or EMPTY: "") */
    size_t unknown_keys;             /* members other than version/file_path/manifest_path */
    char first_unknown_key[64];
};

/* Parses metadata.json from len bytes at buf (need not be NUL-terminated). Never fails: *out says
 * what is there. Returns false only when out of memory. ldp_pkg_meta_free releases it. */
bool ldp_pkg_meta_parse(const char *buf, size_t len, struct ldp_pkg_meta *out);
void ldp_pkg_meta_free(struct ldp_pkg_meta *m);

/* A path of metadata.json must be relative to the contents directory and stay inside it: NULL
 * when p is fine, else why not ("is absolute", "has a '..' component", ...). Lexical only. */
const char *ldp_pkg_path_problem(const char *p);
/* The path's first component is "bin" (the loader will not load a library from there). */
bool ldp_pkg_path_under_bin(const char *p);

/* The verdict of one rule. */
struct ldp_pkg_result {
    enum ldp_verdict verdict;
    char reason[700];
    char evidence[4][700];
    size_t nevidence;
};

struct ldp_pkg_report {
    char metadata_path[4200]; /* DIR/meta/metadata/metadata.json */
    bool io_error;            /* DIR itself is not a readable directory: error says why */
    char error[700];
    struct ldp_pkg_result rules[LDP_PKG_RULE_COUNT];
    /* Set when the driver checks can run: both paths pass RULE_ICDPKG_3 and 4 and the manifest is
     * a regular file inside the package. The checks then load library (DIR/file_path, what the
     * Fuchsia loader loads), not the manifest's own library_path (a name the loader serves). */
    char *manifest; /* malloc'd absolute-or-as-given path, or NULL */
    char *library;  /* malloc'd DIR/file_path, or NULL */
};

/* Reads DIR's metadata.json (non-blocking, size-bounded), parses it and decides every rule. */
void ldp_pkg_evaluate(const char *dir, struct ldp_pkg_report *out);
void ldp_pkg_report_free(struct ldp_pkg_report *r);

#ifdef __cplusplus
}
#endif

#endif /* LDP_PACKAGE_H */
