/* The checker programs' shared parts (tool.h): companions, the session directory, verdicts being
 * collected from forked checks, and the table / JSON / JUnit / SARIF output of a list of reports. */
#include "conformance/checker_common/tool.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WORKSPACE_NAME "vk_loader_harness"

_Static_assert((int)LDP_PASS == (int)CHK_PASS && (int)LDP_FAIL == (int)CHK_FAIL && (int)LDP_WARN == (int)CHK_WARN &&
                   (int)LDP_NA == (int)CHK_NA && (int)LDP_NOT_TESTABLE == (int)CHK_NOT_TESTABLE &&
                   (int)LDP_REMOVED == (int)CHK_REMOVED && (int)LDP_VERDICT_COUNT == (int)CHK_VERDICT_COUNT,
               "the runner's verdicts are the shared report library's");

/* ---- the program ---- */

static const char *g_prog = "checker";

void chk_set_prog(const char *argv0) {
    if (argv0 == NULL || !*argv0) return;
    const char *b = strrchr(argv0, '/');
    g_prog = b ? b + 1 : argv0;
}

const char *chk_prog(void) { return g_prog; }

char *chk_xstrdup(const char *s) {
    char *p = strdup(s ? s : "");
    if (p == NULL) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        exit(2);
    }
    return p;
}

bool chk_file_exists(const char *p) {
    struct stat st;
    return p != NULL && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

bool chk_write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f == NULL) return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

static char g_exe_dir[PATH_MAX];

void chk_init_exe_dir(void) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash != NULL) *slash = '\0';
    snprintf(g_exe_dir, sizeof g_exe_dir, "%s", exe);
}

const char *chk_exe_dir(void) { return g_exe_dir; }

char *chk_find_companion(const char *argv0, const char *file, const char *workspace_rel) {
    char p[PATH_MAX * 2];
    if (g_exe_dir[0]) {
        snprintf(p, sizeof p, "%s/%s", g_exe_dir, file);
        if (chk_file_exists(p)) return chk_xstrdup(p);
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
        if (chk_file_exists(p)) return chk_xstrdup(p);
    }
    return NULL;
}

char *chk_companion(const char *given, const char *argv0, const char *file, const char *workspace_rel,
                    const char *opt) {
    char real[PATH_MAX];
    if (given != NULL) {
        if (!chk_file_exists(given)) {
            fprintf(stderr, "%s: %s=%s: no such file\n", g_prog, opt, given);
            return NULL;
        }
        return chk_xstrdup(realpath(given, real) ? real : given);
    }
    char *p = chk_find_companion(argv0, file, workspace_rel);
    if (p == NULL) return NULL;
    char *r = chk_xstrdup(realpath(p, real) ? real : p);
    free(p);
    return r;
}

/* ---- the session directory ---- */

static char g_tmp[PATH_MAX];
static pid_t g_tmp_owner;
static const char *g_keep_env;

/* Removes dir and what is in it, `depth` directory levels down. */
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

void chk_session_cleanup(void) {
    /* Forked checks inherit the atexit handler: only the creator removes the directory. */
    if (!g_tmp[0] || getpid() != g_tmp_owner) return;
    if (g_keep_env != NULL && getenv(g_keep_env) != NULL) return;
    rm_tree(g_tmp, 2);
    g_tmp[0] = '\0';
}

const char *chk_session_dir(const char *prefix, const char *keep_env) {
    if (g_tmp[0]) return g_tmp;
    const char *base = getenv("TMPDIR");
    snprintf(g_tmp, sizeof g_tmp, "%s/%s.XXXXXX", base && *base ? base : "/tmp", prefix);
    if (mkdtemp(g_tmp) == NULL) {
        fprintf(stderr, "%s: cannot create a session directory in %s: %s\n", g_prog, base && *base ? base : "/tmp",
                strerror(errno));
        g_tmp[0] = '\0';
        return NULL;
    }
    g_keep_env = keep_env;
    static bool registered;
    if (!registered) atexit(chk_session_cleanup);
    registered = true;
    g_tmp_owner = getpid();
    return g_tmp;
}

const char *chk_session_mock_icd(const char *prefix, const char *keep_env, const char *mock, const char *libname,
                                 const char *scenario, const char *manifest) {
    if (mock == NULL) return NULL;
    const char *dir = chk_session_dir(prefix, keep_env);
    if (dir == NULL) return NULL;
    char json_path[PATH_MAX + 128], lib[PATH_MAX + 64], p[PATH_MAX + 128];
    snprintf(lib, sizeof lib, "%s/%s", dir, libname);
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
    ok = ok && chk_write_text(p, scenario);
    char json[PATH_MAX * 2];
    snprintf(json, sizeof json,
             "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"%s\", \"api_version\": \"1.3.0\"}}\n",
             lib);
    snprintf(json_path, sizeof json_path, "%s/%s", dir, manifest);
    ok = ok && chk_write_text(json_path, json);
    if (!ok) {
        fprintf(stderr, "%s: cannot prepare the mock driver copy in %s: %s\n", g_prog, dir, strerror(errno));
        chk_session_cleanup();
        return NULL;
    }
    return dir;
}

/* ---- verdicts being collected ---- */

void chk_item_evidence(struct chk_item *r, const char *text, size_t len) {
    char **g = realloc(r->ev, (r->nev + 1) * sizeof(char *));
    if (g == NULL) return;
    r->ev = g;
    r->ev[r->nev] = strndup(text, len);
    if (r->ev[r->nev] != NULL) r->nev++;
}

void chk_item_set(struct chk_item *r, enum chk_verdict v, const char *fmt, ...) {
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    free(r->reason);
    r->reason = chk_xstrdup(buf);
    r->verdict = v;
}

void chk_item_run(struct chk_item *r, const struct ldp_ctx *parent, double limit, bool capped,
                  void (*fn)(struct ldp_ctx *c, void *arg), void *arg, const char *subject) {
    struct ldp_child ch;
    ldp_run_child(parent, limit, true, fn, arg, &ch);
    r->seconds = ch.seconds;
    chk_item_collect(r, &ch, subject);
    chk_deadline_after(r, &ch, capped);
    ldp_child_free(&ch);
}

void chk_item_collect(struct chk_item *r, const struct ldp_child *ch, const char *subject) {
    bool have_verdict = false;
    for (const char *p = ch->out; p && *p;) {
        const char *eol = strchr(p, '\n');
        size_t l = eol ? (size_t)(eol - p) : strlen(p);
        if (l > 2 && p[0] == 'E' && p[1] == ' ') chk_item_evidence(r, p + 2, l - 2);
        if (l > 2 && p[0] == 'V' && p[1] == ' ') {
            char line[2400];
            snprintf(line, sizeof line, "%.*s", (int)(l - 2), p + 2);
            char *tab = strchr(line, '\t');
            if (tab != NULL) {
                *tab = '\0';
                enum ldp_verdict v;
                if (ldp_verdict_parse(line, &v)) {
                    chk_item_set(r, (enum chk_verdict)v, "%s", tab + 1);
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
            chk_item_set(r, CHK_NOT_TESTABLE, "%s", d);
        else if (have_verdict && ch->kind == LDP_EXITED)
            ; /* exited non-zero after its verdict: keep the verdict */
        else if (ch->kind == LDP_TIMED_OUT)
            chk_item_set(r, CHK_FAIL, "the check's process %s (the %s hung: no answer within the time limit)", d,
                         subject);
        else if (ch->kind == LDP_SIGNALED)
            chk_item_set(r, CHK_FAIL, "the check's process %s (the %s crashed)", d, subject);
        else
            chk_item_set(r, CHK_FAIL, "the check's process %s (the %s exited or crashed)", d, subject);
    }
    if (crashed || r->verdict == CHK_FAIL) {
        /* The last few stderr lines of the child: the subject's or the loader's own words. */
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
                chk_item_evidence(r, buf, strlen(buf));
            }
            p = eol ? eol + 1 : p + l;
        }
    }
}

char *chk_report_read(struct chk_report *rep, const char *path, size_t limit, size_t *len, struct ldp_file *mf) {
    /* One non-blocking, size-bounded read (conformance/driver/files.c): a FIFO, device or directory
     * is reported without being opened for reading, and nothing here can wait on the file. */
    char *buf = ldp_file_read(path, limit, len, mf);
    if (buf == NULL && mf->status != LDP_FILE_TOO_BIG) {
        char b[1200];
        if (mf->status == LDP_FILE_NOT_REGULAR)
            snprintf(b, sizeof b, "%s: not a regular file", path);
        else if (mf->read_failed)
            snprintf(b, sizeof b, "%s: cannot be read: %s", path, strerror(mf->err_no ? mf->err_no : EIO));
        else
            snprintf(b, sizeof b, "%s: %s", path, strerror(mf->err_no ? mf->err_no : EIO));
        free(rep->error);
        rep->error = chk_xstrdup(b);
    }
    return buf;
}

void chk_report_counts(const struct chk_report *rep, int out[CHK_VERDICT_COUNT]) {
    memset(out, 0, sizeof(int) * CHK_VERDICT_COUNT);
    for (size_t i = 0; i < rep->nitems; i++)
        if ((unsigned)rep->items[i].verdict < CHK_VERDICT_COUNT) out[rep->items[i].verdict]++;
}

int chk_report_status(const struct chk_report *rep, enum chk_fail_on fail_on) {
    if (rep->error) return 2;
    for (size_t i = 0; i < rep->nitems; i++)
        if (chk_verdict_fails(rep->items[i].verdict, fail_on)) return 1;
    return 0;
}

void chk_say_checking(const char *format, FILE *out, const char *kind, const char *subject) {
    if (strcmp(format, "table") == 0 && out == stdout && isatty(STDERR_FILENO))
        fprintf(stderr, "%s: checking %s%s ...\n", g_prog, kind, subject);
}

int chk_report_done(const struct chk_report *rep, enum chk_fail_on fail_on, int status) {
    if (rep->error) fprintf(stderr, "%s: %s\n", g_prog, rep->error);
    int s = chk_report_status(rep, fail_on);
    return s > status ? s : status;
}

void chk_report_reserve(struct chk_report *rep, size_t count) {
    rep->items = calloc(count ? count : 1, sizeof(struct chk_item));
    if (rep->items == NULL) exit(2);
}

struct chk_item *chk_report_add(struct chk_report *rep, size_t rule) {
    struct chk_item *r = &rep->items[rep->nitems++];
    r->rule = rule;
    return r;
}

void chk_report_free(struct chk_report *rep) {
    for (size_t k = 0; k < rep->nitems; k++) {
        for (size_t e = 0; e < rep->items[k].nev; e++) free(rep->items[k].ev[e]);
        free(rep->items[k].ev);
        free(rep->items[k].reason);
    }
    free(rep->items);
    free(rep->path);
    free(rep->library);
    free(rep->error);
    memset(rep, 0, sizeof *rep);
}

/* ---- output ---- */

FILE *chk_open_output(const char *path) {
    if (path == NULL) return stdout;
    FILE *f = fopen(path, "w");
    if (f == NULL) fprintf(stderr, "%s: --output=%s: %s\n", g_prog, path, strerror(errno));
    return f;
}

int chk_close_output(FILE *out) {
    int status = 0;
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(stderr, "%s: writing the report failed: %s\n", g_prog, strerror(errno));
        status = 2;
    }
    if (out != stdout && fclose(out) != 0) status = 2;
    return status;
}

bool chk_format_known(const char *format) {
    return strcmp(format, "table") == 0 || strcmp(format, "json") == 0 || strcmp(format, "junit") == 0 ||
           strcmp(format, "sarif") == 0;
}

const char *chk_colour(enum chk_verdict v) {
    switch (v) {
        case CHK_PASS: return "\033[32m";
        case CHK_FAIL: return "\033[1;31m";
        case CHK_WARN: return "\033[33m";
        default: return "\033[2m";
    }
}

bool chk_use_colour(int colour, FILE *out) {
    return colour == 1 || (colour == -1 && out == stdout && isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL);
}

static const char *rule_id(const struct chk_tool *t, size_t rule) { return rule < t->nrules ? t->rules[rule].id : "?"; }

void chk_write_table_rows(FILE *f, const struct chk_tool *t, const struct chk_report *rep, bool colour, int id_width) {
    fprintf(f, "   %-*s %-18s %s\n", id_width, "ID", "VERDICT", "REASON");
    for (size_t i = 0; i < rep->nitems; i++) {
        const struct chk_item *r = &rep->items[i];
        const char *vn = chk_verdict_name(r->verdict);
        if (colour)
            fprintf(f, "   %-*s %s%-18s\033[0m %s\n", id_width, rule_id(t, r->rule), chk_colour(r->verdict), vn,
                    r->reason);
        else
            fprintf(f, "   %-*s %-18s %s\n", id_width, rule_id(t, r->rule), vn, r->reason);
        for (size_t e = 0; e < r->nev; e++) fprintf(f, "        | %s\n", r->ev[e]);
    }
    int cnt[CHK_VERDICT_COUNT];
    chk_report_counts(rep, cnt);
    fprintf(f, "   summary: %d pass, %d fail, %d warn, %d not-applicable, %d not-testable-here, %d removed\n",
            cnt[CHK_PASS], cnt[CHK_FAIL], cnt[CHK_WARN], cnt[CHK_NA], cnt[CHK_NOT_TESTABLE], cnt[CHK_REMOVED]);
}

void chk_write_json_head(FILE *f, const struct chk_tool *t, const char *loader, const char *mock) {
    fprintf(f, "{\n  \"tool\": \"%s\",\n  \"version\": \"%s\",\n  \"loader\": ", t->name, t->version);
    chk_json_str(f, loader);
    fputs(",\n  \"mock\": ", f);
    chk_json_str(f, mock);
}

void chk_write_json_subjects(FILE *f, const struct chk_tool *t, const struct chk_report *reps, size_t n,
                             void (*members)(FILE *f, const struct chk_report *rep, size_t d, void *ctx), void *ctx) {
    for (size_t d = 0; d < n; d++) {
        fprintf(f, "%s\n    {\n      \"manifest\": ", d ? "," : "");
        chk_json_str(f, reps[d].path);
        if (members) members(f, &reps[d], d, ctx);
        chk_write_json_results(f, t, &reps[d], "      ");
        fputs("\n    }", f);
    }
    fputs("\n  ]\n}\n", f);
}

void chk_write_table_subjects(FILE *f, const struct chk_tool *t, const struct chk_report *reps, size_t n, bool colour,
                              int id_width, void (*heading)(FILE *f, const struct chk_report *rep, size_t d, void *ctx),
                              void *ctx) {
    for (size_t d = 0; d < n; d++) {
        heading(f, &reps[d], d, ctx);
        if (reps[d].error)
            fprintf(f, "   ERROR: %s\n", reps[d].error);
        else
            chk_write_table_rows(f, t, &reps[d], colour, id_width);
    }
}

void chk_write_json_results(FILE *f, const struct chk_tool *t, const struct chk_report *rep, const char *indent) {
    if (rep->error) {
        fprintf(f, ",\n%s\"error\": ", indent);
        chk_json_str(f, rep->error);
    }
    int cnt[CHK_VERDICT_COUNT];
    chk_report_counts(rep, cnt);
    fprintf(f, ",\n%s\"summary\": {", indent);
    for (int v = 0; v < CHK_VERDICT_COUNT; v++)
        fprintf(f, "%s\"%s\": %d", v ? ", " : "", chk_verdict_name((enum chk_verdict)v), cnt[v]);
    fprintf(f, "},\n%s\"results\": [", indent);
    for (size_t i = 0; i < rep->nitems; i++) {
        const struct chk_item *r = &rep->items[i];
        const struct chk_rule *rule = r->rule < t->nrules ? &t->rules[r->rule] : NULL;
        fprintf(f, "%s\n%s  {\"id\": ", i ? "," : "", indent);
        chk_json_str(f, rule ? rule->id : "?");
        fputs(", \"check\": ", f);
        chk_json_str(f, rule ? rule->name : "");
        fputs(", \"verdict\": ", f);
        chk_json_str(f, chk_verdict_name(r->verdict));
        fputs(", \"reason\": ", f);
        chk_json_str(f, r->reason);
        fprintf(f, ", \"seconds\": %.3f, \"evidence\": [", r->seconds);
        for (size_t e = 0; e < r->nev; e++) {
            fputs(e ? ", " : "", f);
            chk_json_str(f, r->ev[e]);
        }
        fputs("]}", f);
    }
    fprintf(f, "\n%s]", indent);
}

void chk_write_shared(FILE *f, const char *format, const struct chk_tool *t, const struct chk_report *reps, size_t n) {
    size_t nres = 0;
    for (size_t d = 0; d < n; d++) nres += reps[d].nitems;
    struct chk_subject *subjects = calloc(n ? n : 1, sizeof *subjects);
    struct chk_result *results = calloc(nres ? nres : 1, sizeof *results);
    if (subjects == NULL || results == NULL) {
        fprintf(stderr, "%s: out of memory\n", g_prog);
        exit(2);
    }
    struct chk_result *out = results;
    for (size_t d = 0; d < n; d++) {
        subjects[d] = (struct chk_subject){.path = reps[d].path,
                                           .library = reps[d].library,
                                           .error = reps[d].error,
                                           .results = out,
                                           .nresults = reps[d].nitems};
        for (size_t i = 0; i < reps[d].nitems; i++) {
            const struct chk_item *r = &reps[d].items[i];
            *out++ = (struct chk_result){.rule = r->rule,
                                         .verdict = r->verdict,
                                         .reason = r->reason,
                                         .evidence = (const char *const *)r->ev,
                                         .nevidence = r->nev,
                                         .seconds = r->seconds};
        }
    }
    if (strcmp(format, "sarif") == 0)
        chk_write_sarif(f, t, subjects, n, NULL);
    else
        chk_write_junit(f, t, subjects, n);
    free(subjects);
    free(results);
}

/* ---- --deadline ---- */

static double g_deadline_s, g_deadline_at;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool chk_deadline_parse(const char *s, double *out) {
    char *end = NULL;
    double t = strtod(s, &end);
    if (end == s || *end != '\0' || !(t > 0) || t > 86400) return false;
    *out = t;
    return true;
}

void chk_deadline_start(double seconds) {
    g_deadline_s = seconds > 0 ? seconds : 0;
    g_deadline_at = g_deadline_s > 0 ? now_s() + g_deadline_s : 0;
}

double chk_deadline_limit(struct chk_item *r, double limit, bool *capped) {
    *capped = false;
    if (g_deadline_s <= 0) return limit;
    double left = g_deadline_at - now_s();
    if (left <= 0.05) {
        chk_item_set(r, CHK_NOT_TESTABLE, "not run: the overall --deadline of %g s had passed", g_deadline_s);
        return 0;
    }
    if (left < limit) {
        *capped = true;
        return left;
    }
    return limit;
}

void chk_deadline_after(struct chk_item *r, const struct ldp_child *ch, bool capped) {
    if (!capped || ch->kind != LDP_TIMED_OUT) return;
    chk_item_set(r, CHK_NOT_TESTABLE, "stopped after %.1f s: the overall --deadline of %g s passed while it ran",
                 ch->seconds, g_deadline_s);
}

int chk_write_reports(FILE *out, const char *format, const struct chk_tool *t, const struct chk_report *reps, size_t n,
                      int colour, chk_json_writer *json, chk_table_writer *table, void *ctx) {
    if (strcmp(format, "json") == 0)
        json(out, t, reps, n, ctx);
    else if (strcmp(format, "junit") == 0 || strcmp(format, "sarif") == 0)
        chk_write_shared(out, format, t, reps, n);
    else
        table(out, t, reps, n, chk_use_colour(colour, out), ctx);
    return chk_close_output(out);
}

void chk_rule_fill(struct chk_rule *r, const char *id, const char *name, const char *title,
                   void (*texts)(const char *id, const char **text, const char **help)) {
    r->id = id;
    r->name = name;
    r->title = title;
    texts(r->id, &r->text, &r->help);
}

struct chk_tool chk_tool_of(const char *name, const char *version, const struct chk_rule *rules, size_t nrules,
                            enum chk_fail_on fail_on) {
    return (struct chk_tool){.name = name,
                             .version = version,
                             .information_uri = NULL,
                             .rules = rules,
                             .nrules = nrules,
                             .fail_on = fail_on};
}
