/* llp-check: command line, the per-manifest loop, and the reports (table, JSON, JUnit). The report
 * writers follow ldp-check's (conformance/driver/main.c) so both tools' outputs read the same. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <dirent.h>
#include <unistd.h>

#include "conformance/checker_common/report.h"
#include "conformance/layer_check/llp_check.h"
#include "loader/internal/search_paths.h"
#include "loader/internal/strlist.h"

#define WORKSPACE_NAME "vk_loader_harness"

struct result {
    const struct llp_check_def *def;
    enum ldp_verdict verdict;
    char *reason;
    char **ev;
    size_t nev;
    double seconds;
};

struct report {
    char *manifest;
    char **layers; /* names of the accepted layers */
    size_t nlayers;
    bool implicit;
    char *error; /* I/O error: no checks ran */
    struct result *res;
    size_t nres;
};

static const char *g_prog = "llp-check";

static void usage(FILE *f) {
    fprintf(f,
            "Usage: %s [options] LAYER_MANIFEST...\n"
            "       %s [options] --installed\n"
            "\n"
            "Checks Vulkan layer manifests and libraries against the layer policies LLP_LAYER_1..22 of the\n"
            "Khronos LoaderLayerInterface document. Each check runs in a forked child with a time limit;\n"
            "the layer is only loaded in children, where chain checks sandwich it between two recording\n"
            "layers above the mock driver, through the reference loader.\n"
            "\n"
            "Options:\n"
            "  --installed        check every layer manifest the loader's default search finds, implicit\n"
            "                     and explicit (VK_LAYER_PATH, VK_ADD_LAYER_PATH, VK_IMPLICIT_LAYER_PATH,\n"
            "                     VK_ADD_IMPLICIT_LAYER_PATH are honoured)\n"
            "  --implicit         treat the manifests given as implicit layers (default: implicit when the\n"
            "                     path has an implicit_layer.d directory)\n"
            "  --check=ID[,ID]    run only these checks (LLP_LAYER_n or the check names of --list-checks);\n"
            "                     may be repeated\n"
            "  --format=FMT       table (default), json or junit\n"
            "  --output=FILE      write the report to FILE instead of stdout\n"
            "  --timeout=S        time limit in seconds for each child process (default 30)\n"
            "  --loader=PATH      the reference loader libvulkan.so.1 (default: next to this program, then\n"
            "                     Bazel runfiles)\n"
            "  --mock=PATH        the mock driver libmock_icd_v7.so (same defaults)\n"
            "  --recording-layer=PATH  the recording layer librecording_layer.so (same defaults)\n"
            "  --driver=ICD_JSON  run the chain checks on this driver (e.g. lavapipe's manifest) instead of\n"
            "                     the mock driver\n"
            "  --color / --no-color  force colour on or off in the table (default: only on a terminal)\n"
            "  --list-checks      print the checks and exit\n"
            "  --version, --help\n"
            "\n"
            "Verdicts: pass, fail, warn (advisory), not-applicable, not-testable-here.\n"
            "Exit status: 0 no fail, 1 at least one fail, 2 usage or I/O error.\n",
            g_prog, g_prog);
}

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
        snprintf(rf, sizeof rf, "%s.runfiles", argv0);
        roots[2] = rf;
    }
    for (int i = 0; i < 3; i++) {
        if (roots[i] == NULL || !*roots[i]) continue;
        snprintf(p, sizeof p, "%s/%s/%s", roots[i], WORKSPACE_NAME, workspace_rel);
        if (file_exists(p)) return xstrdup(p);
    }
    return NULL;
}

static char *companion(const char *given, const char *argv0, const char *file, const char *rel, const char *opt) {
    char real[PATH_MAX];
    if (given != NULL) {
        if (!file_exists(given)) {
            fprintf(stderr, "%s: %s=%s: no such file\n", g_prog, opt, given);
            return NULL;
        }
        return realpath(given, real) ? xstrdup(real) : xstrdup(given);
    }
    char *p = find_companion(argv0, file, rel);
    if (p == NULL) return NULL;
    char *r = realpath(p, real) ? xstrdup(real) : xstrdup(p);
    free(p);
    return r;
}

/* ---- session directory: a private copy of the mock driver and its manifest ---- */

static char g_tmp[PATH_MAX];

/* Removes the session directory and what the probes left in it (probe directories are one level
 * down). */
static void rm_tree(const char *dir, int depth) {
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char p[PATH_MAX + 300];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            struct stat st;
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && depth > 0)
                rm_tree(p, depth - 1);
            else
                unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

static pid_t g_tmp_owner;

static void cleanup_tmp(void) {
    if (!g_tmp[0] || getpid() != g_tmp_owner || getenv("LLP_CHECK_KEEP_PROBES") != NULL) return;
    rm_tree(g_tmp, 2);
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
    snprintf(g_tmp, sizeof g_tmp, "%s/llp-check.XXXXXX", base && *base ? base : "/tmp");
    if (mkdtemp(g_tmp) == NULL) {
        g_tmp[0] = '\0';
        return NULL;
    }
    g_tmp_owner = getpid();
    atexit(cleanup_tmp);
    char lib[PATH_MAX + 64], p[PATH_MAX + 128];
    snprintf(lib, sizeof lib, "%s/libllp_check_icd.so", g_tmp);
    size_t len = 0;
    struct ldp_file mf;
    char *data = ldp_file_read(mock, 256u * 1024u * 1024u, &len, &mf); /* never blocks on a FIFO */
    bool ok = data != NULL;
    if (ok) {
        int fd = open(lib, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
        ok = fd >= 0 && write(fd, data, len) == (ssize_t)len;
        if (fd >= 0) ok = close(fd) == 0 && ok;
    }
    free(data);
    snprintf(p, sizeof p, "%s.scenario", lib);
    ok = ok && write_text(p, "{\"physical_devices\": [{\"name\": \"llp-check mock\", \"api_version\": \"1.3.0\"}], "
                             "\"record_lookups\": false}\n");
    char json[PATH_MAX * 2];
    snprintf(json, sizeof json,
             "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"%s\", \"api_version\": \"1.3.0\"}}\n", lib);
    snprintf(p, sizeof p, "%s/icd.json", g_tmp);
    ok = ok && write_text(p, json);
    if (!ok) {
        fprintf(stderr, "%s: cannot prepare the mock driver copy in %s: %s\n", g_prog, g_tmp, strerror(errno));
        cleanup_tmp();
        return NULL;
    }
    return g_tmp;
}

/* ---- the manifest as the parent reads it ---- */

static void log_capture(void *ctx, uint32_t flags, const char *line) {
    struct llp_manifest *m = ctx;
    const char *level = (flags & VKL_LOG_ERROR) ? "ERROR" : (flags & VKL_LOG_WARN) ? "WARN" : (flags & VKL_LOG_INFO) ? "INFO" : "DEBUG";
    char **g = realloc(m->log, (m->log_count + 1) * sizeof(char *));
    if (g == NULL) return;
    m->log = g;
    size_t n = strlen(level) + strlen(line) + 3;
    char *s = malloc(n);
    if (s == NULL) return;
    snprintf(s, n, "%s: %s", level, line);
    m->log[m->log_count++] = s;
}

static bool path_is_implicit(const char *path) {
    return strstr(path, "implicit_layer.d/") != NULL;
}

/* ---- running the checks of one manifest ---- */

static void add_ev(struct result *r, const char *text, size_t len) {
    char **g = realloc(r->ev, (r->nev + 1) * sizeof(char *));
    if (g == NULL) return;
    r->ev = g;
    r->ev[r->nev] = strndup(text, len);
    if (r->ev[r->nev] != NULL) r->nev++;
}

static void set_reason(struct result *r, enum ldp_verdict v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
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
    const struct llp_check_def *def = arg;
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
            set_reason(r, LDP_FAIL, "the check's process %s (the layer hung: no answer within the time limit)", d);
        else if (ch->kind == LDP_SIGNALED)
            set_reason(r, LDP_FAIL, "the check's process %s (the layer crashed)", d);
        else
            set_reason(r, LDP_FAIL, "the check's process %s (the layer exited or crashed)", d);
    }
    if (crashed || r->verdict == LDP_FAIL) {
        /* The last few stderr lines of the child: the layer's or the loader's own words. */
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

static void run_manifest(struct llp_options *opt, const char *path, bool implicit, const bool *selected,
                         struct report *rep) {
    memset(rep, 0, sizeof(*rep));
    rep->manifest = xstrdup(path);
    rep->implicit = implicit;
    struct llp_manifest man;
    memset(&man, 0, sizeof man);
    man.path = path;
    man.implicit = implicit;
    /* One non-blocking, size-bounded read (conformance/driver/files.c): a FIFO, device or
     * directory is reported without being opened for reading. */
    struct ldp_file mf;
    size_t len = 0;
    char *buf = ldp_file_read(path, VKL_MANIFEST_MAX_SIZE, &len, &mf);
    if (buf == NULL && mf.status != LDP_FILE_TOO_BIG) {
        char b[1200];
        if (mf.status == LDP_FILE_NOT_REGULAR)
            snprintf(b, sizeof b, "%s: not a regular file", path);
        else if (mf.read_failed)
            snprintf(b, sizeof b, "%s: cannot be read: %s", path, strerror(mf.err_no ? mf.err_no : EIO));
        else
            snprintf(b, sizeof b, "%s: %s", path, strerror(mf.err_no ? mf.err_no : EIO));
        rep->error = xstrdup(b);
        return;
    }
    if (buf == NULL) {
        man.too_big = true;
        man.size = mf.size;
        man.parse_result = VK_ERROR_INITIALIZATION_FAILED;
    } else {
        man.buf = buf;
        man.len = len;
        struct vkl_log_sink sink = {log_capture, &man};
        man.parse_result = vkl_layer_manifest_parse(path, buf, len, implicit, &sink, &man.file);
    }
    for (uint32_t i = 0; i < man.file.count; i++) {
        char **g = realloc(rep->layers, (rep->nlayers + 1) * sizeof(char *));
        if (g == NULL) break;
        rep->layers = g;
        rep->layers[rep->nlayers++] = xstrdup(man.file.layers[i].props.layerName);
    }
    llp_man = &man;
    llp_opt = opt;
    struct ldp_options lo = {.timeout_s = opt->timeout_s};
    struct ldp_ctx parent = {.opt = &lo, .drv = NULL, .fd = -1};
    rep->res = calloc(llp_check_count, sizeof(struct result));
    if (rep->res == NULL) exit(2);
    for (size_t i = 0; i < llp_check_count; i++) {
        const struct llp_check_def *def = &llp_checks[i];
        if (!selected[i]) continue;
        struct result *r = &rep->res[rep->nres++];
        r->def = def;
        if (def->needs_parse && (man.parse_result != VK_SUCCESS || man.file.count == 0)) {
            set_reason(r, LDP_NOT_TESTABLE, "the manifest is rejected (see LLP_LAYER_6)");
            continue;
        }
        struct ldp_child ch;
        size_t layers = man.file.count ? man.file.count : 1;
        ldp_run_child(&parent, opt->timeout_s * (double)(1 + (size_t)def->probes * layers), true, child_fn, (void *)def,
                      &ch);
        r->seconds = ch.seconds;
        collect(r, &ch);
        ldp_child_free(&ch);
    }
    llp_man = NULL;
    vkl_layer_manifest_file_finish(&man.file);
    for (size_t i = 0; i < man.log_count; i++) free(man.log[i]);
    free(man.log);
    free(buf);
}

/* ---- output ---- */

static void counts(const struct report *rep, int out[LDP_VERDICT_COUNT]) {
    memset(out, 0, sizeof(int) * LDP_VERDICT_COUNT);
    for (size_t i = 0; i < rep->nres; i++) out[rep->res[i].verdict]++;
}


static void write_layers_json(FILE *f, const struct report *rep) {
    fputs("[", f);
    for (size_t i = 0; i < rep->nlayers; i++) {
        fputs(i ? ", " : "", f);
        chk_json_str(f, rep->layers[i]);
    }
    fputs("]", f);
}

static void write_json(FILE *f, const struct report *reps, size_t n, const struct llp_options *opt) {
    fprintf(f, "{\n  \"tool\": \"llp-check\",\n  \"version\": \"%s\",\n  \"loader\": ", LLP_CHECK_VERSION);
    chk_json_str(f, opt->loader_path);
    fputs(",\n  \"mock\": ", f);
    chk_json_str(f, opt->icd_path);
    fputs(",\n  \"recording_layer\": ", f);
    chk_json_str(f, opt->recording_path);
    fprintf(f, ",\n  \"timeout_s\": %g,\n  \"manifests\": [", opt->timeout_s);
    for (size_t d = 0; d < n; d++) {
        const struct report *rep = &reps[d];
        fprintf(f, "%s\n    {\n      \"manifest\": ", d ? "," : "");
        chk_json_str(f, rep->manifest);
        fprintf(f, ",\n      \"implicit\": %s,\n      \"layers\": ", rep->implicit ? "true" : "false");
        write_layers_json(f, rep);
        if (rep->error) {
            fputs(",\n      \"error\": ", f);
            chk_json_str(f, rep->error);
        }
        int cnt[LDP_VERDICT_COUNT];
        counts(rep, cnt);
        fputs(",\n      \"summary\": {", f);
        for (int v = 0; v < LDP_VERDICT_COUNT; v++) {
            if (v == LDP_REMOVED) continue;
            fprintf(f, "%s\"%s\": %d", v ? ", " : "", ldp_verdict_name((enum ldp_verdict)v), cnt[v]);
        }
        fputs("},\n      \"results\": [", f);
        for (size_t i = 0; i < rep->nres; i++) {
            const struct result *r = &rep->res[i];
            fprintf(f, "%s\n        {\"id\": ", i ? "," : "");
            chk_json_str(f, r->def->id);
            fputs(", \"check\": ", f);
            chk_json_str(f, r->def->name);
            fputs(", \"verdict\": ", f);
            chk_json_str(f, ldp_verdict_name(r->verdict));
            fputs(", \"reason\": ", f);
            chk_json_str(f, r->reason);
            fprintf(f, ", \"seconds\": %.3f, \"evidence\": [", r->seconds);
            for (size_t e = 0; e < r->nev; e++) {
                fputs(e ? ", " : "", f);
                chk_json_str(f, r->ev[e]);
            }
            fputs("]}", f);
        }
        fputs("\n      ]\n    }", f);
    }
    fputs("\n  ]\n}\n", f);
}

static void write_junit(FILE *f, const struct report *reps, size_t n) {
    int tests = 0, failures = 0, errors = 0, skipped = 0;
    for (size_t d = 0; d < n; d++) {
        if (reps[d].error) errors++;
        for (size_t i = 0; i < reps[d].nres; i++) {
            tests++;
            enum ldp_verdict v = reps[d].res[i].verdict;
            failures += v == LDP_FAIL;
            skipped += v == LDP_NA || v == LDP_NOT_TESTABLE || v == LDP_REMOVED;
        }
    }
    fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"llp-check\" tests=\"%d\" failures=\"%d\" "
               "errors=\"%d\" skipped=\"%d\">\n", tests + errors, failures, errors, skipped);
    for (size_t d = 0; d < n; d++) {
        const struct report *rep = &reps[d];
        int cnt[LDP_VERDICT_COUNT];
        counts(rep, cnt);
        const char *base = strrchr(rep->manifest, '/');
        base = base ? base + 1 : rep->manifest;
        fputs("  <testsuite name=\"", f);
        chk_xml_str(f, rep->manifest);
        fprintf(f, "\" tests=\"%zu\" failures=\"%d\" errors=\"%d\" skipped=\"%d\">\n", rep->nres + (rep->error ? 1 : 0),
                cnt[LDP_FAIL], rep->error ? 1 : 0, cnt[LDP_NA] + cnt[LDP_NOT_TESTABLE] + cnt[LDP_REMOVED]);
        if (rep->error) {
            fputs("    <testcase classname=\"llp-check.", f);
            chk_xml_str(f, base);
            fputs("\" name=\"manifest\"><error message=\"", f);
            chk_xml_str(f, rep->error);
            fputs("\"/></testcase>\n", f);
        }
        for (size_t i = 0; i < rep->nres; i++) {
            const struct result *r = &rep->res[i];
            fputs("    <testcase classname=\"llp-check.", f);
            chk_xml_str(f, base);
            fputs("\" name=\"", f);
            chk_xml_str(f, r->def->id);
            fprintf(f, "\" time=\"%.3f\">\n", r->seconds);
            if (r->verdict == LDP_FAIL) {
                fputs("      <failure message=\"", f);
                chk_xml_str(f, r->reason);
                fputs("\"/>\n", f);
            } else if (r->verdict == LDP_NA || r->verdict == LDP_NOT_TESTABLE || r->verdict == LDP_REMOVED) {
                fputs("      <skipped message=\"", f);
                chk_xml_str(f, ldp_verdict_name(r->verdict));
                fputs(": ", f);
                chk_xml_str(f, r->reason);
                fputs("\"/>\n", f);
            }
            fputs("      <system-out>", f);
            chk_xml_str(f, ldp_verdict_name(r->verdict));
            fputs(": ", f);
            chk_xml_str(f, r->reason);
            fputc('\n', f);
            for (size_t e = 0; e < r->nev; e++) {
                chk_xml_str(f, r->ev[e]);
                fputc('\n', f);
            }
            fputs("</system-out>\n    </testcase>\n", f);
        }
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
}

static const char *colour_of(enum ldp_verdict v) {
    switch (v) {
        case LDP_PASS: return "\033[32m";
        case LDP_FAIL: return "\033[1;31m";
        case LDP_WARN: return "\033[33m";
        default: return "\033[2m";
    }
}

static void write_table(FILE *f, const struct report *reps, size_t n, bool colour, const struct llp_options *opt) {
    fprintf(f, "llp-check %s  (loader: %s; mock: %s; recording layer: %s; timeout %gs per process)\n", LLP_CHECK_VERSION,
            opt->loader_path ? opt->loader_path : "not found", opt->icd_path ? opt->icd_path : "not found",
            opt->recording_path ? opt->recording_path : "not found", opt->timeout_s);
    for (size_t d = 0; d < n; d++) {
        const struct report *rep = &reps[d];
        fprintf(f, "\n== %s (%s)\n", rep->manifest, rep->implicit ? "implicit" : "explicit");
        if (rep->nlayers) {
            fputs("   layers:", f);
            for (size_t i = 0; i < rep->nlayers; i++) fprintf(f, " %s", rep->layers[i]);
            fputc('\n', f);
        }
        if (rep->error) {
            fprintf(f, "   ERROR: %s\n", rep->error);
            continue;
        }
        fprintf(f, "   %-14s %-18s %s\n", "ID", "VERDICT", "REASON");
        for (size_t i = 0; i < rep->nres; i++) {
            const struct result *r = &rep->res[i];
            const char *vn = ldp_verdict_name(r->verdict);
            if (colour)
                fprintf(f, "   %-14s %s%-18s\033[0m %s\n", r->def->id, colour_of(r->verdict), vn, r->reason);
            else
                fprintf(f, "   %-14s %-18s %s\n", r->def->id, vn, r->reason);
            for (size_t e = 0; e < r->nev; e++) fprintf(f, "        | %s\n", r->ev[e]);
        }
        int cnt[LDP_VERDICT_COUNT];
        counts(rep, cnt);
        fprintf(f, "   summary: %d pass, %d fail, %d warn, %d not-applicable, %d not-testable-here\n", cnt[LDP_PASS],
                cnt[LDP_FAIL], cnt[LDP_WARN], cnt[LDP_NA], cnt[LDP_NOT_TESTABLE]);
    }
}

/* ---- main ---- */

static bool select_check(bool *selected, const char *list) {
    char *copy = xstrdup(list), *save = NULL;
    bool ok = true;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        bool found = false;
        for (size_t i = 0; i < llp_check_count; i++) {
            if (strcasecmp(t, llp_checks[i].id) == 0 || strcmp(t, llp_checks[i].name) == 0) {
                selected[i] = true;
                found = true;
            }
        }
        if (!found) {
            fprintf(stderr, "%s: unknown check '%s' (see --list-checks)\n", g_prog, t);
            ok = false;
        }
    }
    free(copy);
    return ok;
}

static const char **g_manifests;
static char *g_loader_path, *g_icd_path, *g_rec_path;

/* Every return from main goes through here, so LeakSanitizer stays quiet on early exits too. */
static int finish(int status) {
    free(g_manifests);
    free(g_loader_path);
    free(g_icd_path);
    free(g_rec_path);
    g_manifests = NULL;
    g_loader_path = g_icd_path = g_rec_path = NULL;
    cleanup_tmp();
    return status;
}

/* Which selected checks need the loader, the mock driver and the recording layer. */
static bool needs_sandwich(const bool *selected) {
    for (size_t k = 0; k < llp_check_count; k++)
        if (selected[k] && (strncmp(llp_checks[k].name, "chain_", 6) == 0 || strncmp(llp_checks[k].name, "workload_", 9) == 0))
            return true;
    return false;
}

int main(int argc, char **argv) {
    if (argc > 0 && argv[0]) {
        const char *b = strrchr(argv[0], '/');
        g_prog = b ? b + 1 : argv[0];
    }
    init_exe_dir();
    struct llp_options opt = {.timeout_s = 30.0};
    const char *format = "table", *output = NULL, *loader = NULL, *mock = NULL, *recording = NULL;
    bool installed = false, any_check = false;
    int colour = -1;
    bool selected[64] = {false};
    const char **manifests = calloc((size_t)argc + 1, sizeof(char *));
    size_t nman = 0;
    if (manifests == NULL) return 2;
    g_manifests = manifests;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
#define OPT(name) (strncmp(a, name "=", strlen(name) + 1) == 0 ? a + strlen(name) + 1 : NULL)
        const char *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return finish(0);
        } else if (strcmp(a, "--version") == 0) {
            printf("llp-check %s\n", LLP_CHECK_VERSION);
            return finish(0);
        } else if (strcmp(a, "--list-checks") == 0) {
            for (size_t k = 0; k < llp_check_count; k++)
                printf("%-14s %-34s %s\n", llp_checks[k].id, llp_checks[k].name, llp_checks[k].title);
            return finish(0);
        } else if (strcmp(a, "--installed") == 0) {
            installed = true;
        } else if (strcmp(a, "--implicit") == 0) {
            opt.force_implicit = true;
        } else if (strcmp(a, "--color") == 0 || strcmp(a, "--colour") == 0) {
            colour = 1;
        } else if (strcmp(a, "--no-color") == 0 || strcmp(a, "--no-colour") == 0) {
            colour = 0;
        } else if ((v = OPT("--format")) != NULL) {
            if (strcmp(v, "table") != 0 && strcmp(v, "json") != 0 && strcmp(v, "junit") != 0) {
                fprintf(stderr, "%s: unknown --format '%s' (table, json or junit)\n", g_prog, v);
                return finish(2);
            }
            format = v;
        } else if ((v = OPT("--output")) != NULL) {
            output = v;
        } else if ((v = OPT("--timeout")) != NULL) {
            char *end = NULL;
            double t = strtod(v, &end);
            if (end == v || *end != '\0' || !(t > 0) || t > 86400) {
                fprintf(stderr, "%s: --timeout needs a number of seconds > 0 (got '%s')\n", g_prog, v);
                return finish(2);
            }
            opt.timeout_s = t;
        } else if ((v = OPT("--check")) != NULL) {
            if (!select_check(selected, v)) return finish(2);
            any_check = true;
        } else if ((v = OPT("--loader")) != NULL) {
            loader = v;
        } else if ((v = OPT("--mock")) != NULL) {
            mock = v;
        } else if ((v = OPT("--recording-layer")) != NULL) {
            recording = v;
        } else if ((v = OPT("--driver")) != NULL) {
            if (!file_exists(v)) {
                fprintf(stderr, "%s: --driver=%s: no such file\n", g_prog, v);
                return finish(2);
            }
            opt.driver_manifest = v;
        } else if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++) manifests[nman++] = argv[i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "%s: unknown option '%s' (see --help)\n", g_prog, a);
            return finish(2);
        } else {
            manifests[nman++] = a;
        }
#undef OPT
    }
    if (!any_check)
        for (size_t k = 0; k < llp_check_count; k++) selected[k] = true;
    if (nman == 0 && !installed) {
        fprintf(stderr, "%s: no layer manifest given (LAYER_MANIFEST... or --installed; see --help)\n", g_prog);
        return finish(2);
    }
    if ((loader && !file_exists(loader)) || (mock && !file_exists(mock)) || (recording && !file_exists(recording))) {
        fprintf(stderr, "%s: %s: no such file\n", g_prog,
                loader && !file_exists(loader) ? loader : mock && !file_exists(mock) ? mock : recording);
        return finish(2);
    }
    opt.loader_path = g_loader_path = companion(loader, argv[0], "libvulkan.so.1", "loader/libvulkan.so.1", "--loader");
    opt.icd_path = g_icd_path = companion(mock, argv[0], "libmock_icd_v7.so", "mock_icd/libmock_icd_v7.so", "--mock");
    opt.recording_path = g_rec_path =
        companion(recording, argv[0], "librecording_layer.so", "mock_layers/librecording_layer.so", "--recording-layer");
    /* The chain checks run the layer through the reference loader above the mock driver, between
     * two recording layers: without them (an incomplete installation) the run stops, as ldp-check
     * does for LDP_DRIVER_1. */
    if (needs_sandwich(selected) && (opt.loader_path == NULL || opt.icd_path == NULL || opt.recording_path == NULL)) {
        fprintf(stderr,
                "%s: the chain checks need the reference loader (libvulkan.so.1), the mock ICD (libmock_icd_v7.so) and "
                "the recording layer (librecording_layer.so);%s%s%s not found beside %s or in its runfiles: give "
                "--loader / --mock / --recording-layer, reinstall, or leave the chain checks out with --check\n",
                g_prog, opt.loader_path == NULL ? " the loader" : "", opt.icd_path == NULL ? " the mock ICD" : "",
                opt.recording_path == NULL ? " the recording layer" : "", g_exe_dir[0] ? g_exe_dir : "the program");
        return finish(2);
    }
    int status = 0;
    if (needs_sandwich(selected)) {
        opt.session_dir = prepare_tmp(opt.icd_path);
        if (opt.session_dir == NULL) return finish(2);
    }

    /* --installed: the loader's own layer search, implicit locations then explicit ones. */
    struct vkl_strlist implicit_found = VKL_STRLIST_INIT, explicit_found = VKL_STRLIST_INIT;
    if (installed) {
        static const struct {
            const char *ovar, *avar, *suffix;
        } kinds[2] = {{"VK_IMPLICIT_LAYER_PATH", "VK_ADD_IMPLICIT_LAYER_PATH", VKL_IMPLICIT_LAYER_SUFFIX},
                      {"VK_LAYER_PATH", "VK_ADD_LAYER_PATH", VKL_EXPLICIT_LAYER_SUFFIX}};
        for (int k = 0; k < 2; k++) {
            struct vkl_strlist *out = k == 0 ? &implicit_found : &explicit_found;
            /* As the loader: the override variable replaces the search, the "add" one precedes it. */
            const char *ov = getenv(kinds[k].ovar), *add = getenv(kinds[k].avar);
            const char *list = ov != NULL ? ov : add;
            if (list != NULL) {
                struct vkl_strlist entries = VKL_STRLIST_INIT;
                vkl_path_list_split(list, strlen(list), ':', &entries);
                for (size_t e = 0; e < entries.count; e++)
                    vkl_layer_manifest_search_entry(NULL, entries.items[e], ov != NULL ? kinds[k].ovar : kinds[k].avar, out);
                vkl_strlist_finish(&entries);
            }
            if (ov == NULL) {
                const struct vkl_search_dirs *dirs = vkl_search_dirs_acquire(kinds[k].suffix);
                for (size_t e = 0; dirs != NULL && e < dirs->dirs.count; e++)
                    vkl_layer_manifest_search_entry(NULL, dirs->dirs.items[e], NULL, out);
                vkl_search_dirs_release(dirs);
            }
        }
        if (implicit_found.count + explicit_found.count == 0)
            fprintf(stderr, "%s: --installed: no layer manifests found\n", g_prog);
    }
    size_t total = nman + implicit_found.count + explicit_found.count;
    const char **all = calloc(total ? total : 1, sizeof(char *));
    bool *all_implicit = calloc(total ? total : 1, sizeof(bool));
    struct report *reps = calloc(total ? total : 1, sizeof(struct report));
    if (reps == NULL || all == NULL || all_implicit == NULL) return 2;
    for (size_t i = 0; i < total; i++) {
        if (i < nman) {
            all[i] = manifests[i];
            all_implicit[i] = opt.force_implicit || path_is_implicit(manifests[i]);
        } else if (i < nman + implicit_found.count) {
            all[i] = implicit_found.items[i - nman];
            all_implicit[i] = true;
        } else {
            all[i] = explicit_found.items[i - nman - implicit_found.count];
            all_implicit[i] = false;
        }
    }
    opt.manifests = all;
    opt.manifest_count = total;
    FILE *out = stdout;
    if (output != NULL) {
        out = fopen(output, "w");
        if (out == NULL) {
            fprintf(stderr, "%s: --output=%s: %s\n", g_prog, output, strerror(errno));
            free(reps);
            free(all);
            free(all_implicit);
            vkl_strlist_finish(&implicit_found);
            vkl_strlist_finish(&explicit_found);
            return finish(2);
        }
    }
    for (size_t i = 0; i < total; i++) {
        if (strcmp(format, "table") == 0 && out == stdout && isatty(STDERR_FILENO))
            fprintf(stderr, "%s: checking %s ...\n", g_prog, all[i]);
        run_manifest(&opt, all[i], all_implicit[i], selected, &reps[i]);
        if (reps[i].error) {
            fprintf(stderr, "%s: %s\n", g_prog, reps[i].error);
            status = 2;
        }
        for (size_t k = 0; k < reps[i].nres; k++)
            if (reps[i].res[k].verdict == LDP_FAIL && status == 0) status = 1;
    }
    bool use_colour = colour == 1 || (colour == -1 && out == stdout && isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL);
    if (strcmp(format, "json") == 0)
        write_json(out, reps, total, &opt);
    else if (strcmp(format, "junit") == 0)
        write_junit(out, reps, total);
    else
        write_table(out, reps, total, use_colour, &opt);
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
        for (size_t k = 0; k < reps[i].nlayers; k++) free(reps[i].layers[k]);
        free(reps[i].layers);
        free(reps[i].res);
        free(reps[i].manifest);
        free(reps[i].error);
    }
    free(reps);
    free(all);
    free(all_implicit);
    vkl_strlist_finish(&implicit_found);
    vkl_strlist_finish(&explicit_found);
    return finish(status);
}
