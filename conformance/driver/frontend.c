/* ldp-check's front end, free of process-wide effects so it can be fuzzed
 * (fuzz/ldp_check_fuzzer.c): the command line (ldp_cli_parse) and what the parent decides about a
 * manifest from its bytes before any check runs (ldp_driver_prepare). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance/checker_common/library_path.h"
#include "conformance/driver/frontend.h"

static int usage_error(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int usage_error(char *err, size_t len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (len > 0) vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return 2;
}

static int select_checks(bool *selected, const char *list, char *err, size_t err_len) {
    char *copy = strdup(list);
    if (copy == NULL) return usage_error(err, err_len, "out of memory");
    char *save = NULL;
    int rc = 0;
    bool any = false;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        bool found = false;
        any = true;
        for (size_t i = 0; i < ldp_check_count && i < LDP_MAX_CHECKS; i++) {
            if (strcasecmp(t, ldp_checks[i].id) == 0 || (ldp_checks[i].name[0] && strcmp(t, ldp_checks[i].name) == 0)) {
                selected[i] = true;
                found = true;
            }
        }
        if (!found) {
            rc = usage_error(err, err_len, "unknown check '%.200s' (see --list-checks)", t);
            break;
        }
    }
    free(copy);
    if (rc == 0 && !any) rc = usage_error(err, err_len, "--check needs at least one check ID");
    return rc;
}

int ldp_cli_parse(int argc, char **argv, const char **manifests, struct ldp_cli *cli, char *err, size_t err_len) {
    memset(cli, 0, sizeof *cli);
    cli->format = "table";
    cli->timeout_s = 30.0;
    cli->colour = -1;
    cli->fail_on = CHK_FAIL_ON_FAIL;
    cli->manifests = manifests;
    if (err_len > 0) err[0] = '\0';
    bool any_check = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a == NULL) continue;
#define OPT(name) (strncmp(a, name "=", strlen(name) + 1) == 0 ? a + strlen(name) + 1 : NULL)
        const char *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            cli->action = LDP_CLI_HELP;
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            cli->action = LDP_CLI_VERSION;
            return 0;
        } else if (strcmp(a, "--list-checks") == 0) {
            cli->action = LDP_CLI_LIST;
            return 0;
        } else if (strcmp(a, "--installed") == 0 || strcmp(a, "--all-installed") == 0) {
            cli->installed = true;
        } else if (strcmp(a, "--color") == 0 || strcmp(a, "--colour") == 0) {
            cli->colour = 1;
        } else if (strcmp(a, "--no-color") == 0 || strcmp(a, "--no-colour") == 0) {
            cli->colour = 0;
        } else if ((v = OPT("--format")) != NULL) {
            if (strcmp(v, "table") != 0 && strcmp(v, "json") != 0 && strcmp(v, "junit") != 0 && strcmp(v, "sarif") != 0)
                return usage_error(err, err_len, "unknown --format '%.200s' (table, json, junit or sarif)", v);
            cli->format = v;
        } else if ((v = OPT("--fail-on")) != NULL) {
            if (!chk_fail_on_parse(v, &cli->fail_on))
                return usage_error(err, err_len, "unknown --fail-on '%.200s' (fail or warn)", v);
        } else if ((v = OPT("--output")) != NULL) {
            if (*v == '\0') return usage_error(err, err_len, "--output needs a file name");
            cli->output = v;
        } else if ((v = OPT("--timeout")) != NULL) {
            char *end = NULL;
            errno = 0;
            double t = strtod(v, &end);
            if (end == v || *end != '\0' || !(t > 0) || t > 86400)
                return usage_error(err, err_len, "--timeout needs a number of seconds > 0 (got '%.200s')", v);
            cli->timeout_s = t;
        } else if ((v = OPT("--deadline")) != NULL) {
            char *end = NULL;
            double t = strtod(v, &end);
            if (end == v || *end != '\0' || !(t > 0) || t > 86400)
                return usage_error(err, err_len, "--deadline needs a number of seconds > 0 (got '%.200s')", v);
            cli->deadline_s = t;
        } else if ((v = OPT("--check")) != NULL) {
            int rc = select_checks(cli->selected, v, err, err_len);
            if (rc != 0) return rc;
            any_check = true;
        } else if ((v = OPT("--loader")) != NULL) {
            cli->loader = v;
        } else if ((v = OPT("--mock")) != NULL) {
            cli->mock = v;
        } else if ((v = OPT("--registry")) != NULL) {
            cli->registry = v;
        } else if ((v = OPT("--package")) != NULL) {
            if (*v == '\0') return usage_error(err, err_len, "--package needs a directory");
            if (cli->npackages < LDP_MAX_PACKAGES)
                cli->packages[cli->npackages++] = v;
            else
                return usage_error(err, err_len, "at most %d --package options", LDP_MAX_PACKAGES);
        } else if (strcmp(a, "--package") == 0) {
            if (i + 1 >= argc || argv[i + 1] == NULL || argv[i + 1][0] == '\0')
                return usage_error(err, err_len, "--package needs a directory");
            if (cli->npackages >= LDP_MAX_PACKAGES)
                return usage_error(err, err_len, "at most %d --package options", LDP_MAX_PACKAGES);
            cli->packages[cli->npackages++] = argv[++i];
        } else if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++)
                if (argv[i] != NULL) manifests[cli->nman++] = argv[i];
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error(err, err_len, "unknown option '%.200s' (see --help)", a);
        } else {
            manifests[cli->nman++] = a;
        }
#undef OPT
    }
    if (!any_check)
        for (size_t k = 0; k < ldp_check_count && k < LDP_MAX_CHECKS; k++) cli->selected[k] = true;
    if (cli->nman == 0 && !cli->installed && cli->npackages == 0)
        return usage_error(err, err_len,
                           "no driver manifest given (MANIFEST..., --package=DIR or --installed; see --help)");
    return 0;
}

void ldp_driver_prepare(struct ldp_driver *drv, const char *manifest, const char *buf, size_t len,
                        unsigned long long too_big_size) {
    ldp_driver_prepare_library(drv, manifest, buf, len, too_big_size, NULL);
}

void ldp_driver_prepare_library(struct ldp_driver *drv, const char *manifest, const char *buf, size_t len,
                                unsigned long long too_big_size, const char *library) {
    memset(drv, 0, sizeof *drv);
    drv->manifest_path = manifest;
    if (buf == NULL) {
        /* Too big for any loader to read: an LDP_DRIVER_4 failure of this manifest, not an I/O
         * error of the run (the other manifests are checked as usual). */
        drv->manifest_too_big = true;
        snprintf(drv->manifest_error, sizeof drv->manifest_error,
                 "manifest %s is %llu bytes, more than the %u-byte (%u MiB) limit on a manifest file (the reference "
                 "loader rejects it unread)",
                 manifest, too_big_size, VKL_MANIFEST_MAX_SIZE, VKL_MANIFEST_MAX_SIZE / (1024u * 1024u));
        return;
    }
    drv->manifest_buf = buf;
    drv->manifest_len = len;
    drv->manifest_ok = vkl_icd_manifest_parse(manifest, buf, len, NULL, &drv->m) == VK_SUCCESS;
    if (drv->manifest_ok && library != NULL) {
        char *copy = strdup(library);
        if (copy == NULL) {
            vkl_icd_manifest_finish(&drv->m);
            drv->manifest_ok = false;
            snprintf(drv->manifest_error, sizeof drv->manifest_error, "out of memory");
            return;
        }
        free(drv->m.library_path);
        drv->m.library_path = copy;
        drv->m.library_path_is_bare_name = strchr(copy, '/') == NULL;
        drv->library_overridden = true;
    }
    if (!drv->manifest_ok || drv->m.library_path_is_bare_name) return;
    /* The file dlopen opens for that name (LDP_DRIVER_4: /usr/$LIB/... is not a missing library).
     * $ORIGIN is the directory of the program that calls dlopen: this one. */
    if (!drv->library_overridden) {
        char exe[PATH_MAX], origin[PATH_MAX], out[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = '\0';
        char *slash = strrchr(exe, '/');
        snprintf(origin, sizeof origin, "%.*s", slash ? (int)(slash - exe) : 0, exe);
        char *copy = NULL;
        if (ckr_expand_library_path(drv->m.library_path, origin[0] ? origin : NULL, out, sizeof out, NULL) &&
            (copy = strdup(out)) != NULL) {
            snprintf(drv->library_path_written, sizeof drv->library_path_written, "%s", drv->m.library_path);
            free(drv->m.library_path);
            drv->m.library_path = copy;
        }
    }
    /* stat only: the library is opened (non-blocking, for its ELF header) when it is a regular
     * file, and loaded only in the checks' children. */
    struct stat ls;
    if (stat(drv->m.library_path, &ls) != 0) {
        int e = errno;
        drv->library_missing = true;
        if (e == ENOENT || e == ENOTDIR)
            snprintf(drv->library_problem, sizeof drv->library_problem, "does not exist");
        else
            snprintf(drv->library_problem, sizeof drv->library_problem, "cannot be reached (%s)", strerror(e));
    } else if (!S_ISREG(ls.st_mode)) {
        drv->library_not_regular = true;
        snprintf(drv->library_problem, sizeof drv->library_problem, "is %s, not a regular file",
                 ldp_file_type_name((unsigned)ls.st_mode));
    } else {
        struct ldp_elf e;
        char err[600];
        if (ldp_elf_inspect(drv->m.library_path, &e, err, sizeof err) == 0) drv->elf_class = e.elf_class;
        ldp_elf_free(&e); /* ldp_elf_inspect zeroes it first, also when it fails */
    }
}

bool ldp_driver_library_usable(const struct ldp_driver *drv) {
    return drv->manifest_ok && !drv->library_missing && !drv->library_not_regular &&
           (drv->elf_class == 0 || drv->elf_class == (int)(sizeof(void *) * 8));
}

void ldp_driver_release(struct ldp_driver *drv) {
    vkl_icd_manifest_finish(&drv->m); /* zeroed by a failed parse: safe either way */
    drv->manifest_ok = false;
}
