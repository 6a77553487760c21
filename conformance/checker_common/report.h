/*
 * Report writers shared by the policy checkers (ldp-check, llp-check): JUnit XML, SARIF 2.1.0,
 * the string escapers behind them and the exit status rule (--fail-on). The checkers keep their
 * own result structures and describe them to this library through the plain views below, so a
 * checker adopts it by building one array of chk_subject (one per manifest) and calling a writer.
 * docs/ldp-check.md ("CI output") documents the formats; docs/ci.md the CI templates.
 */
#ifndef CHK_REPORT_H
#define CHK_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The verdicts every checker uses, in this order (ldp-check's enum ldp_verdict has the same
 * values; main.c asserts that at compile time). */
enum chk_verdict { CHK_PASS, CHK_FAIL, CHK_WARN, CHK_NA, CHK_NOT_TESTABLE, CHK_REMOVED, CHK_VERDICT_COUNT };
const char *chk_verdict_name(enum chk_verdict v);

/* --fail-on=fail (default): only `fail` makes the run fail (exit 1). --fail-on=warn: `warn` too. */
enum chk_fail_on { CHK_FAIL_ON_FAIL, CHK_FAIL_ON_WARN };
bool chk_fail_on_parse(const char *s, enum chk_fail_on *out);
const char *chk_fail_on_name(enum chk_fail_on f);
bool chk_verdict_fails(enum chk_verdict v, enum chk_fail_on f);

/* One rule: a numbered policy or an unnumbered lint. */
struct chk_rule {
    const char *id;    /* "LDP_DRIVER_4", "LINT_VK_EXPORTS" (the SARIF ruleId) */
    const char *name;  /* check name ("ldp_driver_4_manifest"); "" when none */
    const char *title; /* one line: what is checked (SARIF shortDescription) */
    const char *text;  /* the policy itself, with its source (SARIF fullDescription) */
    const char *help;  /* when it fails or warns, and what to change (SARIF help) */
};

/* One verdict of one rule on one subject. */
struct chk_result {
    size_t rule; /* index into chk_tool.rules */
    enum chk_verdict verdict;
    const char *reason;
    const char *const *evidence;
    size_t nevidence;
    double seconds;
};

/* One checked file (a manifest, a package directory). */
struct chk_subject {
    const char *path;    /* as given on the command line or found by the search */
    const char *library; /* the library it names, or NULL */
    const char *error;   /* an I/O error: no results (exit 2), or NULL */
    const struct chk_result *results;
    size_t nresults;
};

struct chk_tool {
    const char *name;             /* "ldp-check" */
    const char *version;          /* "1.0.0" */
    const char *information_uri;  /* where the documentation lives */
    const struct chk_rule *rules; /* every rule the tool knows (SARIF tool.driver.rules) */
    size_t nrules;
    enum chk_fail_on fail_on;
};

/* Length of the well-formed UTF-8 sequence at p (1..4), or 0 when the bytes there are not one. */
size_t chk_utf8_len(const unsigned char *p);
/* A JSON string literal (quotes included); bytes that are not UTF-8 become U+FFFD. */
void chk_json_str(FILE *f, const char *s);
/* XML character data / attribute text (no quotes); not-UTF-8 bytes and characters XML 1.0 forbids
 * become U+FFFD or a space. */
void chk_xml_str(FILE *f, const char *s);
/* A URI reference for a file path: an absolute path becomes "file:///...", a relative one stays
 * relative (SARIF resolves it against %SRCROOT%); every byte outside RFC 3986's unreserved set and
 * '/' is percent-encoded. Writes at most len-1 bytes; returns false when it did not fit. */
bool chk_path_uri(const char *path, char *out, size_t len);

/* 0: no subject has an error and no result fails under t->fail_on; 1: a result fails; 2: a subject
 * has an I/O error (takes precedence). */
int chk_exit_status(const struct chk_tool *t, const struct chk_subject *s, size_t n);

/* JUnit XML: one <testsuite> per subject, one <testcase> per result. fail: <failure type="fail">;
 * warn: <skipped message="warn: ..."> with --fail-on=fail, <failure type="warn"> with
 * --fail-on=warn; not-applicable, not-testable-here, removed: <skipped>; an I/O error: a testcase
 * "manifest" with <error>. Each testsuite carries <properties> with the count of every verdict. */
void chk_write_junit(FILE *f, const struct chk_tool *t, const struct chk_subject *s, size_t n);

/* SARIF 2.1.0: one run; tool.driver.rules = t->rules (all of them); one result per fail (level
 * error) and per warn (level warning), kind "fail", located at the subject file; I/O errors as
 * invocations[0].toolExecutionNotifications; every verdict count in run.properties. cwd: the
 * directory relative paths are relative to (%SRCROOT%), or NULL for the current directory. */
void chk_write_sarif(FILE *f, const struct chk_tool *t, const struct chk_subject *s, size_t n, const char *cwd);

#ifdef __cplusplus
}
#endif

#endif /* CHK_REPORT_H */
