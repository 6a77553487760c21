/* ldp-check: command line, the per-driver loop, and the reports (table, JSON, JUnit). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conformance/checker_common/report.h"
#include "conformance/driver/frontend.h"
#include "conformance/driver/ldp_check.h"
#include "conformance/driver/package.h"
#include "loader/internal/search_paths.h"
#include "loader/internal/strlist.h"

extern const struct ldp_registry *ldp_registry_global;

#define WORKSPACE_NAME "vk_loader_harness"

struct result {
    const struct ldp_check_def *def;
    enum ldp_verdict verdict;
    char *reason;
    char **ev;
    size_t nev;
    double seconds;
};

struct report {
    char *manifest;
    char *library;
    char *error; /* I/O error: no checks ran */
    struct result *res;
    size_t nres;
};

static const char *g_prog = "ldp-check";

static void usage(FILE *f) {
    fprintf(f,
            "Usage: %s [options] MANIFEST...\n"
            "       %s [options] --installed\n"
            "       %s [options] --package=DIR\n"
            "\n"
            "Checks Vulkan driver (ICD) manifests and libraries against the loader/driver interface policies\n"
            "LDP_DRIVER_1..12 of the Khronos LoaderDriverInterface document, plus interface lints. Each check\n"
            "runs in a forked child with a time limit; the driver is only loaded in children.\n"
            "\n"
            "Options:\n"
            "  --installed        check every driver manifest the loader's default search finds\n"
            "                     (VK_DRIVER_FILES / VK_ICD_FILENAMES / VK_ADD_DRIVER_FILES are honoured)\n"
            "  --package=DIR      check a Fuchsia-style ICD package: DIR/meta/metadata/metadata.json (rules\n"
            "                     RULE_ICDPKG_1..7), then every check on the manifest and library it names;\n"
            "                     may be repeated\n"
            "  --check=ID[,ID]    run only these checks (LDP_DRIVER_n, LINT_*, or the check names of\n"
            "                     --list-checks); may be repeated\n"
            "  --format=FMT       table (default), json, junit or sarif (SARIF 2.1.0, for code scanning)\n"
            "  --fail-on=V        fail (default): exit 1 on a fail; warn: exit 1 on a warn too\n"
            "  --output=FILE      write the report to FILE instead of stdout\n"
            "  --timeout=S        time limit in seconds for each child process (default 30)\n"
            "  --loader=PATH      the reference loader libvulkan.so.1 for LDP_DRIVER_1 (default: next to\n"
            "                     this program, then Bazel runfiles)\n"
            "  --mock=PATH        the mock driver libmock_icd_v7.so for LDP_DRIVER_1 (same defaults)\n"
            "  --registry=PATH    vk.xml to check extension names against (default: the list embedded\n"
            "                     at build time)\n"
            "  --color / --no-color  force colour on or off in the table (default: only on a terminal)\n"
            "  --list-checks      print the checks and exit\n"
            "  --version, --help\n"
            "\n"
            "Verdicts: pass, fail, warn (advisory), not-applicable, not-testable-here, removed.\n"
            "Exit status: 0 no fail, 1 at least one fail (or warn with --fail-on=warn), 2 usage or I/O error.\n",
            g_prog, g_prog, g_prog);
}

/* ---------------------------------------------------------------------------------------------- */

static char *xstrdup(const char *s) {
    char *p = strdup(s ? s : "");
    if (p == NULL) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        exit(2);
    }
    return p;
}

static bool file_exists(const char *p) {
    struct stat st;
    return p != NULL && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static char g_exe_dir[PATH_MAX];

static void init_exe_dir(void) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL) *slash = '\0';
    snprintf(g_exe_dir, sizeof g_exe_dir, "%s", exe);
}

/* next to the binary, then runfiles (RUNFILES_DIR, TEST_SRCDIR, <argv0>.runfiles) */
static char *find_companion(const char *argv0, const char *file, const char *workspace_rel) {
    char p[PATH_MAX * 2];
    if (g_exe_dir[0]) {
        snprintf(p, sizeof p, "%s/%s", g_exe_dir, file);
        if (file_exists(p)) return xstrdup(p);
    }
    const char *roots[3] = {getenv("RUNFILES_DIR"), getenv("TEST_SRCDIR"), NULL};
    char rf[PATH_MAX + 16];
    if (argv0 != NULL) {
        char real[PATH_MAX];
        if (realpath(argv0, real) != NULL) {
            snprintf(rf, sizeof rf, "%s.runfiles", argv0);
            roots[2] = rf;
        }
    }
    for (int i = 0; i < 3; i++) {
        if (roots[i] == NULL || !*roots[i]) continue;
        snprintf(p, sizeof p, "%s/%s/%s", roots[i], WORKSPACE_NAME, workspace_rel);
        if (file_exists(p)) return xstrdup(p);
    }
    return NULL;
}

/* ---- LDP_DRIVER_1 session directory ---- */

static char g_tmp[PATH_MAX];

static void cleanup_tmp(void) {
    if (!g_tmp[0]) return;
    static const char *const names[] = {"libldp_check_mock.so", "libldp_check_mock.so.scenario",
                                        "libldp_check_mock.so.calls", "ldp_check_mock.json",
                                        "ldp_check_package.json"};
    char p[PATH_MAX + 64];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", g_tmp, names[i]);
        unlink(p);
    }
    rmdir(g_tmp);
    g_tmp[0] = '\0';
}

static bool write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f == NULL) return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

static const char *prepare_tmp(const char *mock) {
    if (g_tmp[0]) return g_tmp;
    if (mock == NULL) return NULL;
    const char *base = getenv("TMPDIR");
    snprintf(g_tmp, sizeof g_tmp, "%s/ldp-check.XXXXXX", base && *base ? base : "/tmp");
    if (mkdtemp(g_tmp) == NULL) {
        g_tmp[0] = '\0';
        return NULL;
    }
    atexit(cleanup_tmp);
    char lib[PATH_MAX + 64], p[PATH_MAX + 128];
    snprintf(lib, sizeof lib, "%s/libldp_check_mock.so", g_tmp);
    char *data = NULL;
    size_t len = 0;
    struct ldp_file mf;
    data = ldp_file_read(mock, 256u * 1024u * 1024u, &len, &mf); /* never blocks on a FIFO */
    bool ok = data != NULL;
    if (ok) {
        int fd = open(lib, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        ok = fd >= 0 && write(fd, data, len) == (ssize_t)len;
        if (fd >= 0) ok = close(fd) == 0 && ok;
    }
    free(data);
    snprintf(p, sizeof p, "%s.scenario", lib);
    ok = ok && write_text(p, "{\"physical_devices\": [{\"name\": \"ldp-check coexistence mock\", \"vendor_id\": 65535, "
                             "\"device_id\": 4660, \"api_version\": \"1.3.0\"}], \"record_lookups\": false}\n");
    char json[PATH_MAX * 2];
    snprintf(json, sizeof json,
             "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"%s\", \"api_version\": \"1.3.0\"}}\n", lib);
    snprintf(p, sizeof p, "%s/ldp_check_mock.json", g_tmp);
    ok = ok && write_text(p, json);
    if (!ok) {
        fprintf(stderr, "%s: cannot prepare the mock driver copy in %s: %s\n", g_prog, g_tmp, strerror(errno));
        cleanup_tmp();
        return NULL;
    }
    return g_tmp;
}

/* ---- running the checks of one driver ---- */

static void add_ev(struct result *r, const char *text, size_t len) {
    char **g = realloc(r->ev, (r->nev + 1) * sizeof(char *));
    if (g == NULL) return;
    r->ev = g;
    r->ev[r->nev] = strndup(text, len);
    if (r->ev[r->nev] != NULL) r->nev++;
}

static void set_reason(struct result *r, enum ldp_verdict v, const char *fmt, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    free(r->reason);
    r->reason = xstrdup(buf);
    r->verdict = v;
}

static void child_fn(struct ldp_ctx *c, void *arg) {
    const struct ldp_check_def *def = arg;
    def->fn(c, NULL);
}

static void collect(struct result *r, const struct ldp_child *ch) {
    bool have_verdict = false;
    for (const char *p = ch->out; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t l = eol ? (size_t)(eol - p) : strlen(p);
        if (l > 2 && p[0] == 'E' && p[1] == ' ') add_ev(r, p + 2, l - 2);
        if (l > 2 && p[0] == 'V' && p[1] == ' ') {
            char line[2400];
            snprintf(line, sizeof line, "%.*s", (int)(l - 2), p + 2);
            char *tab = strchr(line, '\t');
            if (tab != NULL) {
                *tab = '\0';
                enum ldp_verdict v;
                if (ldp_verdict_parse(line, &v)) {
                    set_reason(r, v, "%s", tab + 1);
                    have_verdict = true;
                }
            }
        }
        p = eol ? eol + 1 : p + l;
    }
    bool crashed = ch->kind != LDP_EXITED || ch->code != 0 || !have_verdict;
    if (crashed) {
        char d[1200];
        ldp_child_describe(ch, d, sizeof d);
        if (ch->kind == LDP_SPAWN_FAILED)
            set_reason(r, LDP_NOT_TESTABLE, "%s", d);
        else if (have_verdict && ch->kind == LDP_EXITED)
            ; /* exited non-zero after its verdict: keep the verdict */
        else if (ch->kind == LDP_TIMED_OUT)
            set_reason(r, LDP_FAIL, "the check's process %s (the driver hung: no answer within the time limit)", d);
        else if (ch->kind == LDP_SIGNALED)
            set_reason(r, LDP_FAIL, "the check's process %s (the driver crashed)", d);
        else
            set_reason(r, LDP_FAIL, "the check's process %s (the driver exited or crashed)", d);
    }
    if (crashed || r->verdict == LDP_FAIL) {
        /* The last few stderr lines of the child: the driver's or the loader's own words. */
        const char *e = ch->err ? ch->err : "";
        size_t n = strlen(e);
        int lines = 0;
        size_t start = n;
        while (start > 0 && lines < 6) {
            start--;
            if (e[start] == '\n' && start + 1 < n) lines++;
        }
        for (const char *p = e + start; *p;) {
            const char *eol = strchr(p, '\n');
            size_t l = eol ? (size_t)(eol - p) : strlen(p);
            if (l > 0) {
                char buf[700];
                snprintf(buf, sizeof buf, "stderr: %.*s", (int)(l > 600 ? 600 : l), p);
                add_ev(r, buf, strlen(buf));
            }
            p = eol ? eol + 1 : p + l;
        }
    }
}

/* A manifest naming `library` for the reference loader (LDP_DRIVER_1 of an ICD package, whose own
 * manifest names the library as the loader service serves it): in the session directory. */
static const char *package_loader_manifest(const struct ldp_options *opt, const struct vkl_icd_manifest *m,
                                           const char *library) {
    const char *dir = prepare_tmp(opt->mock_path);
    if (dir == NULL) return NULL;
    static char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/ldp_check_package.json", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) return NULL;
    fputs("{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": ", f);
    chk_json_str(f, library);
    fprintf(f, ", \"api_version\": \"%u.%u.%u\"}}\n", VK_API_VERSION_MAJOR(m->api_version),
            VK_API_VERSION_MINOR(m->api_version), VK_API_VERSION_PATCH(m->api_version));
    return fclose(f) == 0 ? path : NULL;
}

static void run_driver(const struct ldp_options *opt, const char *manifest, const char *library, const bool *selected,
                       struct report *rep) {
    memset(rep, 0, sizeof(*rep));
    rep->manifest = xstrdup(manifest);
    /* One non-blocking, size-bounded read (files.c): a FIFO, device or directory is reported
     * without being opened for reading, and nothing here can wait on the file. */
    struct ldp_file mf;
    size_t len = 0;
    char *buf = ldp_file_read(manifest, VKL_MANIFEST_MAX_SIZE, &len, &mf);
    if (buf == NULL && mf.status != LDP_FILE_TOO_BIG) {
        char b[1200];
        if (mf.status == LDP_FILE_NOT_REGULAR)
            snprintf(b, sizeof b, "%s: not a regular file", manifest);
        else if (mf.read_failed)
            snprintf(b, sizeof b, "%s: cannot be read: %s", manifest, strerror(mf.err_no ? mf.err_no : EIO));
        else
            snprintf(b, sizeof b, "%s: %s", manifest, strerror(mf.err_no ? mf.err_no : EIO));
        rep->error = xstrdup(b);
        return;
    }
    struct ldp_driver drv;
    ldp_driver_prepare_library(&drv, manifest, buf, len, mf.size, library);
    if (drv.manifest_ok && drv.library_overridden && opt->loader_path != NULL)
        drv.loader_manifest = package_loader_manifest(opt, &drv.m, library);
    if (drv.manifest_ok) rep->library = xstrdup(drv.m.library_path);
    bool library_usable = ldp_driver_library_usable(&drv);
    struct ldp_ctx parent = {.opt = opt, .drv = &drv, .fd = -1};
    rep->res = calloc(ldp_check_count, sizeof(struct result));
    if (rep->res == NULL) exit(2);
    for (size_t i = 0; i < ldp_check_count; i++) {
        const struct ldp_check_def *def = &ldp_checks[i];
        if (!selected[i]) continue;
        struct result *r = &rep->res[rep->nres++];
        r->def = def;
        if (def->fn == NULL) {
            set_reason(r, LDP_REMOVED, "withdrawn by the interface document (valid reasons exist to export core entry "
                                       "points); see LINT_VK_EXPORTS for the -Bsymbolic advice that remains");
            continue;
        }
        if (def->fn != NULL && strcmp(def->id, "LDP_DRIVER_4") != 0 && !drv.manifest_ok) {
            set_reason(r, LDP_NOT_TESTABLE, "the manifest is rejected (see LDP_DRIVER_4)");
            continue;
        }
        if (def->needs_library && !library_usable) {
            if (drv.library_missing || drv.library_not_regular)
                set_reason(r, LDP_NOT_TESTABLE, "the library %s %s (see LDP_DRIVER_4, LDP_DRIVER_11)",
                           drv.m.library_path, drv.library_problem);
            else
                set_reason(r, LDP_NOT_TESTABLE, "the library is a %d-bit ELF file; run a %d-bit build of ldp-check",
                           drv.elf_class, drv.elf_class);
            continue;
        }
        struct ldp_options o = *opt;
        if (strcmp(def->id, "LDP_DRIVER_1") == 0 && o.loader_path != NULL) o.tmp_dir = prepare_tmp(o.mock_path);
        parent.opt = &o;
        struct ldp_child ch;
        ldp_run_child(&parent, opt->timeout_s * (1 + def->probes), true, child_fn, (void *)def, &ch);
        r->seconds = ch.seconds;
        collect(r, &ch);
        ldp_child_free(&ch);
        parent.opt = opt;
    }
    ldp_driver_release(&drv);
    free(buf);
}

/* ---- ICD packages (--package) ---- */

/* The package's own rules as a report whose subject is its metadata.json. */
static void package_report(const struct ldp_pkg_report *pr, struct report *rep) {
    memset(rep, 0, sizeof *rep);
    rep->manifest = xstrdup(pr->metadata_path);
    if (pr->library) rep->library = xstrdup(pr->library);
    if (pr->io_error) {
        rep->error = xstrdup(pr->error);
        return;
    }
    rep->res = calloc(LDP_PKG_RULE_COUNT, sizeof(struct result));
    if (rep->res == NULL) exit(2);
    for (size_t k = 0; k < LDP_PKG_RULE_COUNT; k++) {
        struct result *r = &rep->res[rep->nres++];
        r->def = &ldp_pkg_rules[k];
        set_reason(r, pr->rules[k].verdict, "%s", pr->rules[k].reason);
        for (size_t e = 0; e < pr->rules[k].nevidence; e++)
            add_ev(r, pr->rules[k].evidence[e], strlen(pr->rules[k].evidence[e]));
    }
}

/* ---- output ---- */

/* Manifest paths, library paths and the loader's log lines may hold any bytes; the JSON, JUnit and
 * SARIF reports stay valid UTF-8 (checker_common/report.c writes such bytes as U+FFFD). */
#define json_str chk_json_str

_Static_assert((int)LDP_PASS == (int)CHK_PASS && (int)LDP_FAIL == (int)CHK_FAIL && (int)LDP_WARN == (int)CHK_WARN &&
                   (int)LDP_NA == (int)CHK_NA && (int)LDP_NOT_TESTABLE == (int)CHK_NOT_TESTABLE &&
                   (int)LDP_REMOVED == (int)CHK_REMOVED && (int)LDP_VERDICT_COUNT == (int)CHK_VERDICT_COUNT,
               "ldp-check's verdicts are the shared report library's");

static void counts(const struct report *rep, int out[LDP_VERDICT_COUNT]) {
    memset(out, 0, sizeof(int) * LDP_VERDICT_COUNT);
    for (size_t i = 0; i < rep->nres; i++) out[rep->res[i].verdict]++;
}

static void write_json(FILE *f, const struct report *reps, size_t n, const struct ldp_options *opt,
                       const struct ldp_registry *reg) {
    fprintf(f, "{\n  \"tool\": \"ldp-check\",\n  \"version\": \"%s\",\n  \"loader\": ", LDP_CHECK_VERSION);
    json_str(f, opt->loader_path);
    fputs(",\n  \"mock\": ", f);
    json_str(f, opt->mock_path);
    fputs(",\n  \"registry\": ", f);
    json_str(f, reg->source);
    fprintf(f, ",\n  \"timeout_s\": %g,\n  \"drivers\": [", opt->timeout_s);
    for (size_t d = 0; d < n; d++) {
        const struct report *rep = &reps[d];
        fprintf(f, "%s\n    {\n      \"manifest\": ", d ? "," : "");
        json_str(f, rep->manifest);
        fputs(",\n      \"library\": ", f);
        if (rep->library) json_str(f, rep->library); else fputs("null", f);
        if (rep->error) {
            fputs(",\n      \"error\": ", f);
            json_str(f, rep->error);
        }
        int cnt[LDP_VERDICT_COUNT];
        counts(rep, cnt);
        fputs(",\n      \"summary\": {", f);
        for (int v = 0; v < LDP_VERDICT_COUNT; v++) {
            fprintf(f, "%s\"%s\": %d", v ? ", " : "", ldp_verdict_name((enum ldp_verdict)v), cnt[v]);
        }
        fputs("},\n      \"results\": [", f);
        for (size_t i = 0; i < rep->nres; i++) {
            const struct result *r = &rep->res[i];
            fprintf(f, "%s\n        {\"id\": ", i ? "," : "");
            json_str(f, r->def->id);
            fputs(", \"check\": ", f);
            json_str(f, r->def->name);
            fputs(", \"verdict\": ", f);
            json_str(f, ldp_verdict_name(r->verdict));
            fputs(", \"reason\": ", f);
            json_str(f, r->reason);
            fprintf(f, ", \"seconds\": %.3f, \"evidence\": [", r->seconds);
            for (size_t e = 0; e < r->nev; e++) {
                fputs(e ? ", " : "", f);
                json_str(f, r->ev[e]);
            }
            fputs("]}", f);
        }
        fputs("\n      ]\n    }", f);
    }
    fputs("\n  ]\n}\n", f);
}

/* The SARIF/JUnit rules: the checks, then the ICD package rules (--package). */
static const struct ldp_check_def *rule_def(size_t k) {
    return k < ldp_check_count ? &ldp_checks[k] : &ldp_pkg_rules[k - ldp_check_count];
}

static size_t rule_index(const struct ldp_check_def *def) {
    if (def >= ldp_checks && def < ldp_checks + ldp_check_count) return (size_t)(def - ldp_checks);
    return ldp_check_count + (size_t)(def - ldp_pkg_rules);
}

/* The shared writers (JUnit, SARIF) see the reports through chk_* views. */
struct chk_views {
    struct chk_rule rules[64];
    struct chk_subject *subjects;
    struct chk_result *results;
    struct chk_tool tool;
};

static bool make_views(struct chk_views *v, const struct report *reps, size_t n, enum chk_fail_on fail_on) {
    memset(v, 0, sizeof *v);
    size_t nres = 0;
    for (size_t d = 0; d < n; d++) nres += reps[d].nres;
    v->subjects = calloc(n ? n : 1, sizeof *v->subjects);
    v->results = calloc(nres ? nres : 1, sizeof *v->results);
    if (v->subjects == NULL || v->results == NULL) {
        free(v->subjects);
        free(v->results);
        return false;
    }
    /* The package rules only when a package was checked (--package). */
    bool with_pkg = false;
    for (size_t d = 0; d < n; d++)
        for (size_t i = 0; i < reps[d].nres; i++) with_pkg = with_pkg || rule_index(reps[d].res[i].def) >= ldp_check_count;
    size_t nrules = ldp_check_count + (with_pkg ? LDP_PKG_RULE_COUNT : 0);
    if (nrules > 64) nrules = 64;
    for (size_t k = 0; k < nrules; k++) {
        struct chk_rule *r = &v->rules[k];
        const struct ldp_check_def *def = rule_def(k);
        r->id = def->id;
        r->name = def->name;
        r->title = def->title;
        ldp_rule_texts(r->id, &r->text, &r->help);
    }
    v->tool = (struct chk_tool){.name = "ldp-check", .version = LDP_CHECK_VERSION, .information_uri = NULL,
                                .rules = v->rules, .nrules = nrules, .fail_on = fail_on};
    struct chk_result *out = v->results;
    for (size_t d = 0; d < n; d++) {
        v->subjects[d] = (struct chk_subject){.path = reps[d].manifest, .library = reps[d].library,
                                              .error = reps[d].error, .results = out, .nresults = reps[d].nres};
        for (size_t i = 0; i < reps[d].nres; i++) {
            const struct result *r = &reps[d].res[i];
            *out++ = (struct chk_result){.rule = rule_index(r->def), .verdict = (enum chk_verdict)r->verdict,
                                         .reason = r->reason, .evidence = (const char *const *)r->ev,
                                         .nevidence = r->nev, .seconds = r->seconds};
        }
    }
    return true;
}

static void free_views(struct chk_views *v) {
    free(v->subjects);
    free(v->results);
}

static void write_shared(FILE *f, const char *format, const struct report *reps, size_t n, enum chk_fail_on fail_on) {
    struct chk_views v;
    if (!make_views(&v, reps, n, fail_on)) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        exit(2);
    }
    if (strcmp(format, "sarif") == 0)
        chk_write_sarif(f, &v.tool, v.subjects, n, NULL);
    else
        chk_write_junit(f, &v.tool, v.subjects, n);
    free_views(&v);
}

static const char *colour_of(enum ldp_verdict v) {
    switch (v) {
        case LDP_PASS: return "\033[32m";
        case LDP_FAIL: return "\033[1;31m";
        case LDP_WARN: return "\033[33m";
        default: return "\033[2m";
    }
}

static void write_table(FILE *f, const struct report *reps, size_t n, bool colour, const struct ldp_options *opt,
                        const struct ldp_registry *reg) {
    fprintf(f, "ldp-check %s  (loader: %s; mock: %s; registry: %s; timeout %gs per process)\n", LDP_CHECK_VERSION,
            opt->loader_path ? opt->loader_path : "not found", opt->mock_path ? opt->mock_path : "not found",
            reg->source, opt->timeout_s);
    for (size_t d = 0; d < n; d++) {
        const struct report *rep = &reps[d];
        fprintf(f, "\n== %s\n", rep->manifest);
        if (rep->library) fprintf(f, "   library: %s\n", rep->library);
        if (rep->error) {
            fprintf(f, "   ERROR: %s\n", rep->error);
            continue;
        }
        fprintf(f, "   %-26s %-18s %s\n", "ID", "VERDICT", "REASON");
        for (size_t i = 0; i < rep->nres; i++) {
            const struct result *r = &rep->res[i];
            const char *vn = ldp_verdict_name(r->verdict);
            if (colour)
                fprintf(f, "   %-26s %s%-18s\033[0m %s\n", r->def->id, colour_of(r->verdict), vn, r->reason);
            else
                fprintf(f, "   %-26s %-18s %s\n", r->def->id, vn, r->reason);
            for (size_t e = 0; e < r->nev; e++) fprintf(f, "        | %s\n", r->ev[e]);
        }
        int cnt[LDP_VERDICT_COUNT];
        counts(rep, cnt);
        fprintf(f, "   summary: %d pass, %d fail, %d warn, %d not-applicable, %d not-testable-here, %d removed\n",
                cnt[LDP_PASS], cnt[LDP_FAIL], cnt[LDP_WARN], cnt[LDP_NA], cnt[LDP_NOT_TESTABLE], cnt[LDP_REMOVED]);
    }
}

/* ---- main ---- */

static const char **g_manifests;
static char *g_loader_path, *g_mock_path;

/* Every return from main goes through here, so LeakSanitizer stays quiet on early exits too. */
static int finish(int status) {
    free(g_manifests);
    free(g_loader_path);
    free(g_mock_path);
    g_manifests = NULL;
    g_loader_path = g_mock_path = NULL;
    cleanup_tmp();
    return status;
}

int main(int argc, char **argv) {
    if (argc > 0 && argv[0]) {
        const char *b = strrchr(argv[0], '/');
        g_prog = b ? b + 1 : argv[0];
    }
    init_exe_dir();
    struct ldp_options opt = {.timeout_s = 30.0};
    const char **manifests = calloc((size_t)argc + 1, sizeof(char *));
    if (manifests == NULL) return 2;
    g_manifests = manifests;
    struct ldp_cli cli;
    char cli_err[600];
    if (ldp_cli_parse(argc, argv, manifests, &cli, cli_err, sizeof cli_err) != 0) {
        fprintf(stderr, "%s: %s\n", g_prog, cli_err);
        return finish(2);
    }
    if (cli.action == LDP_CLI_HELP) {
        usage(stdout);
        return finish(0);
    } else if (cli.action == LDP_CLI_VERSION) {
        printf("ldp-check %s\n", LDP_CHECK_VERSION);
        return finish(0);
    } else if (cli.action == LDP_CLI_LIST) {
        for (size_t k = 0; k < ldp_check_count; k++)
            printf("%-26s %-38s %s\n", ldp_checks[k].id, ldp_checks[k].name[0] ? ldp_checks[k].name : "-",
                   ldp_checks[k].title);
        return finish(0);
    }
    const char *format = cli.format, *output = cli.output, *loader = cli.loader, *mock = cli.mock;
    bool installed = cli.installed;
    enum chk_fail_on fail_on = cli.fail_on;
    int colour = cli.colour;
    const bool *selected = cli.selected;
    size_t nman = cli.nman;
    opt.timeout_s = cli.timeout_s;
    opt.registry_path = cli.registry;
    int status = 0;
    char real[PATH_MAX];
    if (loader != NULL) {
        if (!file_exists(loader)) {
            fprintf(stderr, "%s: --loader=%s: no such file\n", g_prog, loader);
            return finish(2); /* finish() frees the manifest list */
        }
        opt.loader_path = g_loader_path = realpath(loader, real) ? xstrdup(real) : xstrdup(loader);
    } else {
        opt.loader_path = g_loader_path = find_companion(argv[0], "libvulkan.so.1", "loader/libvulkan.so.1");
    }
    if (mock != NULL) {
        if (!file_exists(mock)) {
            fprintf(stderr, "%s: --mock=%s: no such file\n", g_prog, mock);
            return finish(2); /* finish() frees the manifest list */
        }
        opt.mock_path = g_mock_path = realpath(mock, real) ? xstrdup(real) : xstrdup(mock);
    } else {
        opt.mock_path = g_mock_path = find_companion(argv[0], "libmock_icd_v7.so", "mock_icd/libmock_icd_v7.so");
    }
    /* LDP_DRIVER_1 runs the driver beside the mock ICD through the reference loader: when either
     * companion is missing (an incomplete installation), that is an error of the run, not a
     * driver verdict. */
    bool coexistence = false;
    for (size_t k = 0; k < ldp_check_count; k++)
        coexistence = coexistence || (selected[k] && strcmp(ldp_checks[k].id, "LDP_DRIVER_1") == 0);
    if (coexistence && (opt.loader_path == NULL || opt.mock_path == NULL)) {
        fprintf(stderr,
                "%s: LDP_DRIVER_1 needs the reference loader (libvulkan.so.1) and the mock ICD (libmock_icd_v7.so); "
                "%s%s%s not found beside %s or in its runfiles: give --loader=PATH / --mock=PATH, reinstall, or leave "
                "LDP_DRIVER_1 out with --check\n",
                g_prog, opt.loader_path == NULL ? "the loader" : "",
                opt.loader_path == NULL && opt.mock_path == NULL ? " and " : "",
                opt.mock_path == NULL ? "the mock ICD" : "", g_exe_dir[0] ? g_exe_dir : "the program");
        return finish(2); /* finish() frees the manifest list */
    }
    struct ldp_registry reg;
    char err[1200];
    if (ldp_registry_load(opt.registry_path, &reg, err, sizeof err) != 0) {
        fprintf(stderr, "%s: --registry: %s\n", g_prog, err);
        return finish(2);
    }
    ldp_registry_global = &reg;

    struct vkl_strlist found = VKL_STRLIST_INIT;
    if (installed) {
        if (vkl_driver_manifest_files(NULL, &found) != VK_SUCCESS) {
            fprintf(stderr, "%s: --installed: the driver search failed\n", g_prog);
            status = 2;
        }
        if (found.count == 0) fprintf(stderr, "%s: --installed: no driver manifests found\n", g_prog);
    }
    size_t total = nman + found.count;
    size_t cap = total + 2 * cli.npackages; /* a package: its metadata, then its manifest */
    struct report *reps = calloc(cap ? cap : 1, sizeof(struct report));
    if (reps == NULL) return 2;
    FILE *out = stdout;
    if (output != NULL) {
        out = fopen(output, "w");
        if (out == NULL) {
            fprintf(stderr, "%s: --output=%s: %s\n", g_prog, output, strerror(errno));
            free(reps);
            vkl_strlist_finish(&found);
            ldp_registry_free(&reg);
            return finish(2);
        }
    }
    for (size_t i = 0; i < total; i++) {
        const char *m = i < nman ? manifests[i] : found.items[i - nman];
        if (strcmp(format, "table") == 0 && out == stdout && isatty(STDERR_FILENO))
            fprintf(stderr, "%s: checking %s ...\n", g_prog, m);
        run_driver(&opt, m, NULL, selected, &reps[i]);
        if (reps[i].error) {
            fprintf(stderr, "%s: %s\n", g_prog, reps[i].error);
            status = 2;
        }
        for (size_t k = 0; k < reps[i].nres; k++)
            if (chk_verdict_fails((enum chk_verdict)reps[i].res[k].verdict, fail_on) && status == 0) status = 1;
    }
    for (size_t p = 0; p < cli.npackages; p++) {
        if (strcmp(format, "table") == 0 && out == stdout && isatty(STDERR_FILENO))
            fprintf(stderr, "%s: checking package %s ...\n", g_prog, cli.packages[p]);
        struct ldp_pkg_report pr;
        ldp_pkg_evaluate(cli.packages[p], &pr);
        size_t first = total;
        package_report(&pr, &reps[total++]);
        if (pr.manifest != NULL) run_driver(&opt, pr.manifest, pr.library, selected, &reps[total++]);
        ldp_pkg_report_free(&pr);
        for (size_t i = first; i < total; i++) {
            if (reps[i].error) {
                fprintf(stderr, "%s: %s\n", g_prog, reps[i].error);
                status = 2;
            }
            for (size_t k = 0; k < reps[i].nres; k++)
                if (chk_verdict_fails((enum chk_verdict)reps[i].res[k].verdict, fail_on) && status == 0) status = 1;
        }
    }
    bool use_colour = colour == 1 || (colour == -1 && out == stdout && isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL);
    if (strcmp(format, "json") == 0)
        write_json(out, reps, total, &opt, &reg);
    else if (strcmp(format, "junit") == 0 || strcmp(format, "sarif") == 0)
        write_shared(out, format, reps, total, fail_on);
    else
        write_table(out, reps, total, use_colour, &opt, &reg);
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(stderr, "%s: writing the report failed: %s\n", g_prog, strerror(errno));
        status = 2;
    }
    if (out != stdout && fclose(out) != 0) status = 2;
    for (size_t i = 0; i < total; i++) {
        for (size_t k = 0; k < reps[i].nres; k++) {
            for (size_t e = 0; e < reps[i].res[k].nev; e++) free(reps[i].res[k].ev[e]);
            free(reps[i].res[k].ev);
            free(reps[i].res[k].reason);
        }
        free(reps[i].res);
        free(reps[i].manifest);
        free(reps[i].library);
        free(reps[i].error);
    }
    free(reps);
    vkl_strlist_finish(&found);
    ldp_registry_free(&reg);
    return finish(status);
}
