/*
 * What the policy checkers' programs (ldp-check's conformance/driver/main.c, llp-check's
 * conformance/layer_check/main.c) share beyond the report writers of report.h: the verdicts being
 * collected from the forked checks (chk_item, chk_report), the companions found next to the program
 * or in its Bazel runfiles, the session directory holding a private copy of the mock driver, and the
 * table / JSON / JUnit / SARIF output of a list of reports.
 *
 * The forked-check runner itself (ldp_run_child, struct ldp_child) is ldp-check's runner.c, which
 * llp-check links too; chk_item_collect turns one child's protocol text into a verdict.
 */
#ifndef CHK_TOOL_H
#define CHK_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "conformance/checker_common/report.h"
#include "conformance/driver/ldp_check.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the program ---- */

/* The program's name for messages (the basename of argv[0]; "checker" until set). */
void chk_set_prog(const char *argv0);
const char *chk_prog(void);
/* strdup that exits with status 2 on out-of-memory; NULL becomes "". */
char *chk_xstrdup(const char *s);
bool chk_file_exists(const char *path);
bool chk_write_text(const char *path, const char *text);

/* The directory of /proc/self/exe ("" when unknown); computed once by chk_init_exe_dir. */
void chk_init_exe_dir(void);
const char *chk_exe_dir(void);
/* A companion file (the loader, the mock driver, the recording layer): next to the program, then in
 * the runfiles (RUNFILES_DIR, TEST_SRCDIR, <argv0>.runfiles) at <workspace>/workspace_rel. The path
 * (malloc'd) or NULL. */
char *chk_find_companion(const char *argv0, const char *file, const char *workspace_rel);
/* given != NULL: that file's real path, or NULL with "<prog>: <opt>=<given>: no such file" on stderr;
 * given == NULL: chk_find_companion's answer, as a real path. */
char *chk_companion(const char *given, const char *argv0, const char *file, const char *workspace_rel, const char *opt);

/* ---- the session directory ---- */

/* $TMPDIR/<prefix>.XXXXXX, created once and removed (two levels deep) at exit by the process that
 * created it, unless the variable keep_env (or NULL) is set. NULL on failure. */
const char *chk_session_dir(const char *prefix, const char *keep_env);
/* The session directory (chk_session_dir) holding a copy of the mock driver `mock` as `libname`,
 * with `scenario` beside it (<libname>.scenario) and a driver manifest `manifest` naming the copy
 * (api_version 1.3.0). The directory, or NULL with the reason on stderr (and no directory left). */
const char *chk_session_mock_icd(const char *prefix, const char *keep_env, const char *mock, const char *libname,
                                 const char *scenario, const char *manifest);
/* Removes the session directory now (also called at exit). */
void chk_session_cleanup(void);

/* ---- verdicts being collected ---- */

/* One verdict of one rule, owning its strings. */
struct chk_item {
    size_t rule; /* index into the tool's rules (chk_tool.rules) */
    enum chk_verdict verdict;
    char *reason;
    char **ev;
    size_t nev;
    double seconds;
};

void chk_item_evidence(struct chk_item *r, const char *text, size_t len);
void chk_item_set(struct chk_item *r, enum chk_verdict v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* --deadline=S: an overall time limit for the run besides the per-process --timeout. A check that
 * would start after it is not run; one that is running when it passes is stopped. Either is
 * not-testable-here saying so, never a fail of the subject (it did not hang: the run ran out). */
/* Parses S (seconds > 0, at most a day); false on a bad value. */
bool chk_deadline_parse(const char *s, double *out);
/* Starts the clock (seconds <= 0: no deadline). */
void chk_deadline_start(double seconds);
/* The time limit for the next check: `limit`, or the time left when that is less (*capped then
 * true). When the deadline has passed, sets r not-testable-here and returns 0: skip the check. */
double chk_deadline_limit(struct chk_item *r, double limit, bool *capped);
/* After a check run under a capped limit: when it was stopped by the time limit, the deadline
 * stopped it: r becomes not-testable-here (its evidence kept). */
void chk_deadline_after(struct chk_item *r, const struct ldp_child *ch, bool capped);
/* The verdict and evidence a forked check reported ("V verdict\treason", "E evidence" lines). A
 * check that crashed, hung or exited without a verdict is a fail that names `subject` ("driver",
 * "layer") as the culprit; a failed fork is not-testable-here. A fail gets the last lines of the
 * child's stderr as evidence. */
void chk_item_collect(struct chk_item *r, const struct ldp_child *ch, const char *subject);
/* Runs check `fn(c, arg)` in a child of `parent` (ldp_run_child, its own process group) within `limit` seconds
 * (chk_deadline_limit, which said whether it `capped` it), and gives `r` its time and verdict (chk_item_collect,
 * chk_deadline_after). */
void chk_item_run(struct chk_item *r, const struct ldp_ctx *parent, double limit, bool capped,
                  void (*fn)(struct ldp_ctx *c, void *arg), void *arg, const char *subject);

/* The verdicts on one subject (a manifest, a package). */
struct chk_report {
    char *path;
    char *library; /* or NULL */
    char *error;   /* an I/O error: no checks ran */
    struct chk_item *items;
    size_t nitems;
};

/* Reads a subject file without ever blocking on it (ldp_file_read): the bytes (malloc'd), or NULL.
 * NULL with rep->error set: an I/O error (not a regular file, unreadable); NULL with rep->error
 * unset: larger than `limit` (mf->status LDP_FILE_TOO_BIG, mf->size). */
char *chk_report_read(struct chk_report *rep, const char *path, size_t limit, size_t *len, struct ldp_file *mf);
void chk_report_counts(const struct chk_report *rep, int out[CHK_VERDICT_COUNT]);
/* 0, 1 (a verdict fails under fail_on) or 2 (an I/O error). */
int chk_report_status(const struct chk_report *rep, enum chk_fail_on fail_on);
void chk_report_free(struct chk_report *rep);
/* Room in `rep` for `count` items (exits with status 2 when out of memory). */
void chk_report_reserve(struct chk_report *rep, size_t count);
/* The next item of `rep` (within what chk_report_reserve made room for), a verdict of rule `rule`. */
struct chk_item *chk_report_add(struct chk_report *rep, size_t rule);
/* Before checking `subject` ("<kind><subject>", kind "" or "package "): "<prog>: checking ... ..." on stderr when
 * the table goes to stdout and stderr is a terminal, so a slow run shows where it is. */
void chk_say_checking(const char *format, FILE *out, const char *kind, const char *subject);
/* After checking: the report's I/O error on stderr; returns the worse of `status` and the report's
 * chk_report_status, the exit status so far. */
int chk_report_done(const struct chk_report *rep, enum chk_fail_on fail_on, int status);

/* ---- output ---- */

/* --output: the file opened for writing (NULL: stdout), or NULL with the reason on stderr. */
FILE *chk_open_output(const char *path);
/* Flushes (and closes, unless stdout) the report's stream: 0, or 2 with the reason on stderr. */
int chk_close_output(FILE *out);
/* The --help lines of the options both checkers take alike: --format, --fail-on, --output, --timeout and
 * --deadline. */
#define CHK_USAGE_RUN_OPTIONS                                                                                          \
    "  --format=FMT       table (default), json, junit or sarif (SARIF 2.1.0, for code scanning)\n"                    \
    "  --fail-on=V        fail (default): exit 1 on a fail; warn: exit 1 on a warn too\n"                              \
    "  --output=FILE      write the report to FILE instead of stdout\n"                                                \
    "  --timeout=S        time limit in seconds for each child process (default 30)\n"                                 \
    "  --deadline=S       overall time limit in seconds: checks not finished by then are\n"                            \
    "                     not-testable-here (default: none)\n"
/* "table", "json", "junit", "sarif". */
bool chk_format_known(const char *format);
/* The ANSI colour of a verdict in the table. */
const char *chk_colour(enum chk_verdict v);
/* Whether the table is coloured: colour 1 on, 0 off, -1 only on a terminal without NO_COLOR. */
bool chk_use_colour(int colour, FILE *out);
/* The table rows of one report: "   ID VERDICT REASON" with the evidence under each, then the
 * summary line. id_width: the ID column's width. */
void chk_write_table_rows(FILE *f, const struct chk_tool *t, const struct chk_report *rep, bool colour, int id_width);
/* The members "error" (when there is one), "summary" and "results" of one report's JSON object (after `"key": value`
 * members, so each starts with ",\n"); indent: the object's members' indentation. */
void chk_write_json_results(FILE *f, const struct chk_tool *t, const struct chk_report *rep, const char *indent);
/* The start of the JSON report: `{`, then the members "tool", "version" (the tool's), "loader" and "mock" (paths; NULL:
 * ""); the tool's own members follow, each starting with ",\n". */
void chk_write_json_head(FILE *f, const struct chk_tool *t, const char *loader, const char *mock);
/* The rest of the JSON report after its array's `[`: an object a report, its "manifest" member, the tool's own
 * members of report `d` (`rep`) from `members` (each starting with ",\n"; NULL: none), chk_write_json_results; then the
 * document's end. */
void chk_write_json_subjects(FILE *f, const struct chk_tool *t, const struct chk_report *reps, size_t n,
                             void (*members)(FILE *f, const struct chk_report *rep, size_t d, void *ctx), void *ctx);
/* The table of every report: the tool's heading of report `d` (`rep`) from `heading`, then its I/O error or its rows
 * (chk_write_table_rows). */
void chk_write_table_subjects(FILE *f, const struct chk_tool *t, const struct chk_report *reps, size_t n, bool colour,
                              int id_width, void (*heading)(FILE *f, const struct chk_report *rep, size_t d, void *ctx),
                              void *ctx);
/* JUnit or SARIF (format "junit" / "sarif") of the reports through report.h's writers. */
void chk_write_shared(FILE *f, const char *format, const struct chk_tool *t, const struct chk_report *reps, size_t n);
/* The reports in `format` (chk_format_known) on `out`: JUnit and SARIF through chk_write_shared, JSON and the
 * table through the tool's own `json` and `table` writers, which get `ctx` (the table with `colour` as
 * chk_use_colour says); then closes `out`: chk_close_output's status. */
typedef void chk_json_writer(FILE *f, const struct chk_tool *t, const struct chk_report *reps, size_t n, void *ctx);
typedef void chk_table_writer(FILE *f, const struct chk_tool *t, const struct chk_report *reps, size_t n, bool colour,
                              void *ctx);
int chk_write_reports(FILE *out, const char *format, const struct chk_tool *t, const struct chk_report *reps, size_t n,
                      int colour, chk_json_writer *json, chk_table_writer *table, void *ctx);
/* Rule `r` of a tool: `id`, its check `name` and `title`, its policy text and help from `texts`
 * (ldp_rule_texts, llp_rule_texts). */
void chk_rule_fill(struct chk_rule *r, const char *id, const char *name, const char *title,
                   void (*texts)(const char *id, const char **text, const char **help));
/* The tool `name` `version` with `rules[0..nrules)`, failing on `fail_on`. */
struct chk_tool chk_tool_of(const char *name, const char *version, const struct chk_rule *rules, size_t nrules,
                            enum chk_fail_on fail_on);

#ifdef __cplusplus
}
#endif

#endif /* CHK_TOOL_H */
