/* ldp-check's front end (frontend.c): the command line and the parent's reading of a manifest,
 * without process-wide effects (no exit, no output, no child processes), so both can be fuzzed
 * (fuzz/ldp_check_fuzzer.c). */
#ifndef LDP_FRONTEND_H
#define LDP_FRONTEND_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/checker_common/report.h"
#include "conformance/driver/ldp_check.h"

#define LDP_MAX_CHECKS 64
#define LDP_MAX_PACKAGES 64

enum ldp_cli_action { LDP_CLI_RUN, LDP_CLI_HELP, LDP_CLI_VERSION, LDP_CLI_LIST };

struct ldp_cli {
    enum ldp_cli_action action;
    const char *format;                            /* "table", "json", "junit", "sarif" */
    const char *output, *loader, *mock, *registry; /* NULL when not given */
    double timeout_s;
    double deadline_s; /* --deadline: overall time limit (0: none) */
    bool installed;
    int colour; /* -1 automatic, 0 off, 1 on */
    enum chk_fail_on fail_on;
    bool selected[LDP_MAX_CHECKS]; /* by index into ldp_checks */
    const char **manifests;        /* the caller's array (argc entries) */
    size_t nman;
    const char *packages[LDP_MAX_PACKAGES]; /* --package=DIR / --package DIR */
    size_t npackages;
};

/* Parses argv[1..argc-1]; manifests must have room for argc pointers. 0: *cli is usable (see
 * action); 2: a usage error, described in err. Strings point into argv. */
int ldp_cli_parse(int argc, char **argv, const char **manifests, struct ldp_cli *cli, char *err, size_t err_len);

/* What the parent knows about a manifest from its bytes (buf/len, or buf NULL when it was larger
 * than VKL_MANIFEST_MAX_SIZE: too_big_size is its size): the loader's parse, then stat of the
 * library (never opened unless it is a regular file: its ELF class). */
void ldp_driver_prepare(struct ldp_driver *drv, const char *manifest, const char *buf, size_t len,
                        unsigned long long too_big_size);
/* The same for a manifest of an ICD package (--package): when the manifest parses, its library is
 * library (the package's file_path) instead of the manifest's library_path. library NULL: as
 * ldp_driver_prepare. */
void ldp_driver_prepare_library(struct ldp_driver *drv, const char *manifest, const char *buf, size_t len,
                                unsigned long long too_big_size, const char *library);
bool ldp_driver_library_usable(const struct ldp_driver *drv);
void ldp_driver_release(struct ldp_driver *drv);

#endif /* LDP_FRONTEND_H */
