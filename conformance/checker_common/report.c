/* Report writers shared by the policy checkers: JUnit XML, SARIF 2.1.0, escapers, --fail-on. */
#include "conformance/checker_common/report.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const k_verdict_names[CHK_VERDICT_COUNT] = {
    "pass", "fail", "warn", "not-applicable", "not-testable-here", "removed",
};

const char *chk_verdict_name(enum chk_verdict v) {
    return (unsigned)v < CHK_VERDICT_COUNT ? k_verdict_names[v] : "unknown";
}

bool chk_fail_on_parse(const char *s, enum chk_fail_on *out) {
    if (s == NULL) return false;
    if (strcmp(s, "fail") == 0) {
        *out = CHK_FAIL_ON_FAIL;
        return true;
    }
    if (strcmp(s, "warn") == 0) {
        *out = CHK_FAIL_ON_WARN;
        return true;
    }
    return false;
}

const char *chk_fail_on_name(enum chk_fail_on f) { return f == CHK_FAIL_ON_WARN ? "warn" : "fail"; }

bool chk_verdict_fails(enum chk_verdict v, enum chk_fail_on f) {
    return v == CHK_FAIL || (f == CHK_FAIL_ON_WARN && v == CHK_WARN);
}

int chk_exit_status(const struct chk_tool *t, const struct chk_subject *s, size_t n) {
    int status = 0;
    for (size_t d = 0; d < n; d++) {
        if (s[d].error != NULL) return 2;
        for (size_t i = 0; i < s[d].nresults; i++)
            if (chk_verdict_fails(s[d].results[i].verdict, t->fail_on)) status = 1;
    }
    return status;
}

/* ---- escaping ---- */

size_t chk_utf8_len(const unsigned char *p) {
    if (p[0] < 0x80) return 1;
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (p[0] >= 0xC2 && p[0] <= 0xDF) {
        n = 2;
    } else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
        n = 3;
        if (p[0] == 0xE0) lo = 0xA0;
        if (p[0] == 0xED) hi = 0x9F;
    } else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
        n = 4;
        if (p[0] == 0xF0) lo = 0x90;
        if (p[0] == 0xF4) hi = 0x8F;
    } else {
        return 0;
    }
    if (p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    return n;
}

/* How one output format writes text: the bytes it spells another way (`escapes`, ended by a NULL
 * `as`), how it writes any other ASCII byte (`other`), what stands for an ill-formed byte or a
 * sequence `refused` turns away (`replacement`). The JSON and XML writers differ only in these. */
struct chk_text_style {
    struct {
        unsigned char c;
        const char *as;
    } escapes[6];
    void (*other)(FILE *f, unsigned char c);
    const char *replacement;
    bool (*refused)(const unsigned char *p, size_t n);
};

/* Writes the UTF-8 text `s` (NULL: empty) to `f` in `style`: a well-formed multi-byte sequence as
 * it is. */
static void chk_write_styled(FILE *f, const char *s, const struct chk_text_style *style) {
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
        size_t n = chk_utf8_len(p);
        if (n == 0 || (style->refused && style->refused(p, n))) {
            fputs(style->replacement, f);
            p += n ? n : 1;
            continue;
        }
        if (n > 1) {
            fwrite(p, 1, n, f);
            p += n;
            continue;
        }
        size_t e = 0;
        while (style->escapes[e].as && style->escapes[e].c != *p) e++;
        if (style->escapes[e].as)
            fputs(style->escapes[e].as, f);
        else
            style->other(f, *p);
        p++;
    }
}

static void chk_json_other(FILE *f, unsigned char c) {
    if (c < 0x20 || c == 0x7f)
        fprintf(f, "\\u%04x", c);
    else
        fputc(c, f);
}

void chk_json_str(FILE *f, const char *s) {
    static const struct chk_text_style json = {
        .escapes = {{'"', "\\\""}, {'\\', "\\\\"}, {'\n', "\\n"}, {'\r', "\\r"}, {'\t', "\\t"}},
        .other = chk_json_other,
        .replacement = "\\ufffd",
    };
    fputc('"', f);
    chk_write_styled(f, s, &json);
    fputc('"', f);
}

/* XML 1.0 excludes U+FFFE and U+FFFF (EF BF BE, EF BF BF) as well */
static bool chk_xml_refused(const unsigned char *p, size_t n) {
    return n == 3 && p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE;
}

static void chk_xml_other(FILE *f, unsigned char c) { fputc(c < 0x20 && c != '\n' && c != '\t' ? ' ' : c, f); }

void chk_xml_str(FILE *f, const char *s) {
    static const struct chk_text_style xml = {
        .escapes = {{'<', "&lt;"}, {'>', "&gt;"}, {'&', "&amp;"}, {'"', "&quot;"}, {'\'', "&apos;"}},
        .other = chk_xml_other,
        .replacement = "\xEF\xBF\xBD", /* U+FFFD */
        .refused = chk_xml_refused,
    };
    chk_write_styled(f, s, &xml);
}

bool chk_path_uri(const char *path, char *out, size_t len) {
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    bool ok = true;
#define PUT(c)                                                                                                         \
    do {                                                                                                               \
        if (o + 1 < len) {                                                                                             \
            out[o++] = (char)(c);                                                                                      \
        } else {                                                                                                       \
            ok = false;                                                                                                \
        }                                                                                                              \
    } while (0)
    const char *p = path ? path : "";
    if (p[0] == '/') {
        for (const char *q = "file://"; *q; q++) PUT(*q);
    }
    for (const unsigned char *u = (const unsigned char *)p; *u; u++) {
        unsigned char c = *u;
        bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                          c == '.' || c == '_' || c == '~' || c == '/';
        /* ':' is encoded too, so a relative path never reads as a scheme. */
        if (unreserved) {
            PUT(c);
        } else {
            PUT('%');
            PUT(hex[c >> 4]);
            PUT(hex[c & 15]);
        }
    }
#undef PUT
    if (len > 0) out[o < len ? o : len - 1] = '\0';
    return ok;
}

/* ---- JUnit ---- */

static void counts(const struct chk_subject *s, int out[CHK_VERDICT_COUNT]) {
    memset(out, 0, sizeof(int) * CHK_VERDICT_COUNT);
    for (size_t i = 0; i < s->nresults; i++)
        if ((unsigned)s->results[i].verdict < CHK_VERDICT_COUNT) out[s->results[i].verdict]++;
}

static bool junit_skipped(enum chk_verdict v, enum chk_fail_on f) {
    return v == CHK_NA || v == CHK_NOT_TESTABLE || v == CHK_REMOVED || (v == CHK_WARN && f == CHK_FAIL_ON_FAIL);
}

void chk_write_junit(FILE *f, const struct chk_tool *t, const struct chk_subject *s, size_t n) {
    int tests = 0, failures = 0, errors = 0, skipped = 0;
    for (size_t d = 0; d < n; d++) {
        if (s[d].error) errors++;
        for (size_t i = 0; i < s[d].nresults; i++) {
            tests++;
            enum chk_verdict v = s[d].results[i].verdict;
            failures += chk_verdict_fails(v, t->fail_on);
            skipped += junit_skipped(v, t->fail_on);
        }
    }
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"", f);
    chk_xml_str(f, t->name);
    fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\">\n", tests + errors, failures, errors,
            skipped);
    for (size_t d = 0; d < n; d++) {
        const struct chk_subject *sub = &s[d];
        int cnt[CHK_VERDICT_COUNT];
        counts(sub, cnt);
        int sf = 0, ss = 0;
        for (size_t i = 0; i < sub->nresults; i++) {
            sf += chk_verdict_fails(sub->results[i].verdict, t->fail_on);
            ss += junit_skipped(sub->results[i].verdict, t->fail_on);
        }
        const char *base = strrchr(sub->path ? sub->path : "", '/');
        base = base ? base + 1 : (sub->path ? sub->path : "");
        fputs("  <testsuite name=\"", f);
        chk_xml_str(f, sub->path);
        fprintf(f, "\" tests=\"%zu\" failures=\"%d\" errors=\"%d\" skipped=\"%d\">\n",
                sub->nresults + (sub->error ? 1 : 0), sf, sub->error ? 1 : 0, ss);
        /* The verdict counts (warn included) for readers that show suite properties. */
        fputs("    <properties>\n", f);
        fputs("      <property name=\"fail-on\" value=\"", f);
        chk_xml_str(f, chk_fail_on_name(t->fail_on));
        fputs("\"/>\n", f);
        for (int v = 0; v < CHK_VERDICT_COUNT; v++)
            fprintf(f, "      <property name=\"verdict.%s\" value=\"%d\"/>\n", chk_verdict_name((enum chk_verdict)v),
                    cnt[v]);
        fputs("    </properties>\n", f);
        if (sub->error) {
            fputs("    <testcase classname=\"", f);
            chk_xml_str(f, t->name);
            fputc('.', f);
            chk_xml_str(f, base);
            fputs("\" name=\"manifest\"><error message=\"", f);
            chk_xml_str(f, sub->error);
            fputs("\"/></testcase>\n", f);
        }
        for (size_t i = 0; i < sub->nresults; i++) {
            const struct chk_result *r = &sub->results[i];
            const struct chk_rule *rule = r->rule < t->nrules ? &t->rules[r->rule] : NULL;
            fputs("    <testcase classname=\"", f);
            chk_xml_str(f, t->name);
            fputc('.', f);
            chk_xml_str(f, base);
            fputs("\" name=\"", f);
            chk_xml_str(f, rule ? rule->id : "?");
            fprintf(f, "\" time=\"%.3f\">\n", r->seconds);
            if (r->verdict == CHK_FAIL) {
                fputs("      <failure message=\"", f);
                chk_xml_str(f, r->reason);
                fputs("\" type=\"fail\"/>\n", f);
            } else if (r->verdict == CHK_WARN && t->fail_on == CHK_FAIL_ON_WARN) {
                fputs("      <failure message=\"warn: ", f);
                chk_xml_str(f, r->reason);
                fputs("\" type=\"warn\"/>\n", f);
            } else if (junit_skipped(r->verdict, t->fail_on)) {
                fputs("      <skipped message=\"", f);
                chk_xml_str(f, chk_verdict_name(r->verdict));
                fputs(": ", f);
                chk_xml_str(f, r->reason);
                fputs("\"/>\n", f);
            }
            fputs("      <system-out>", f);
            chk_xml_str(f, chk_verdict_name(r->verdict));
            fputs(": ", f);
            chk_xml_str(f, r->reason);
            fputc('\n', f);
            for (size_t e = 0; e < r->nevidence; e++) {
                chk_xml_str(f, r->evidence[e]);
                fputc('\n', f);
            }
            fputs("</system-out>\n    </testcase>\n", f);
        }
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
}

/* ---- SARIF 2.1.0 ---- */

static void sarif_message(FILE *f, const char *key, const char *text) {
    fprintf(f, "\"%s\": {\"text\": ", key);
    chk_json_str(f, text && *text ? text : "-");
    fputc('}', f);
}

static void sarif_uri(FILE *f, const char *path) {
    size_t need = strlen(path ? path : "") * 3 + 16;
    char *uri = malloc(need);
    if (uri == NULL) {
        chk_json_str(f, "");
        return;
    }
    chk_path_uri(path, uri, need);
    chk_json_str(f, uri);
    free(uri);
}

static void sarif_artifact_location(FILE *f, const char *path, size_t index) {
    fputs("{\"uri\": ", f);
    sarif_uri(f, path);
    if (path == NULL || path[0] != '/') fputs(", \"uriBaseId\": \"%SRCROOT%\"", f);
    fprintf(f, ", \"index\": %zu}", index);
}

/* A stable identity of a finding (rule + file), for deduplication across runs. FNV-1a 64. */
static uint64_t fingerprint(const char *rule, const char *path) {
    uint64_t h = 1469598103934665603ull;
    for (const char *p = rule ? rule : ""; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;
    for (const char *p = path ? path : ""; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

void chk_write_sarif(FILE *f, const struct chk_tool *t, const struct chk_subject *s, size_t n, const char *cwd) {
    char here[PATH_MAX];
    if (cwd == NULL) cwd = getcwd(here, sizeof here) ? here : "/";
    fputs("{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n  \"version\": \"2.1.0\",\n"
          "  \"runs\": [\n    {\n      \"tool\": {\n        \"driver\": {\n          \"name\": ",
          f);
    chk_json_str(f, t->name);
    fputs(",\n          \"version\": ", f);
    chk_json_str(f, t->version);
    fputs(",\n          \"semanticVersion\": ", f);
    chk_json_str(f, t->version);
    if (t->information_uri && *t->information_uri) {
        fputs(",\n          \"informationUri\": ", f);
        chk_json_str(f, t->information_uri);
    }
    fputs(",\n          \"rules\": [", f);
    for (size_t i = 0; i < t->nrules; i++) {
        const struct chk_rule *r = &t->rules[i];
        fprintf(f, "%s\n            {\"id\": ", i ? "," : "");
        chk_json_str(f, r->id);
        if (r->name && *r->name) {
            fputs(", \"name\": ", f);
            chk_json_str(f, r->name);
        }
        fputs(", ", f);
        sarif_message(f, "shortDescription", r->title);
        fputs(", ", f);
        sarif_message(f, "fullDescription", r->text && *r->text ? r->text : r->title);
        fputs(", ", f);
        sarif_message(f, "help", r->help && *r->help ? r->help : r->title);
        fputs(", \"defaultConfiguration\": {\"level\": \"error\"}, \"properties\": {\"tags\": [", f);
        chk_json_str(f, t->name);
        fputs(", ", f);
        chk_json_str(f, strncmp(r->id ? r->id : "", "LINT_", 5) == 0 ? "lint" : "policy");
        fputs("]}}", f);
    }
    fputs("\n          ]\n        }\n      },\n", f);
    /* %SRCROOT%: relative paths are relative to where the checker ran. */
    fputs("      \"originalUriBaseIds\": {\"%SRCROOT%\": {\"uri\": ", f);
    {
        size_t cl = strlen(cwd);
        char *dir = malloc(cl + 2);
        if (dir != NULL) {
            memcpy(dir, cwd, cl);
            if (cl == 0 || dir[cl - 1] != '/') dir[cl++] = '/';
            dir[cl] = '\0';
            sarif_uri(f, dir[0] == '/' ? dir : "/");
            free(dir);
        } else {
            chk_json_str(f, "file:///");
        }
    }
    fputs("}},\n      \"artifacts\": [", f);
    for (size_t d = 0; d < n; d++) {
        fprintf(f, "%s\n        {\"location\": ", d ? "," : "");
        sarif_artifact_location(f, s[d].path, d);
        fputs(", \"roles\": [\"analysisTarget\"]}", f);
    }
    fputs("\n      ],\n", f);
    int exit_code = chk_exit_status(t, s, n);
    bool any_error = false;
    for (size_t d = 0; d < n; d++) any_error = any_error || s[d].error != NULL;
    fprintf(f, "      \"invocations\": [\n        {\"executionSuccessful\": %s, \"exitCode\": %d",
            any_error ? "false" : "true", exit_code);
    if (any_error) {
        fputs(", \"toolExecutionNotifications\": [", f);
        bool first = true;
        for (size_t d = 0; d < n; d++) {
            if (s[d].error == NULL) continue;
            fprintf(f, "%s\n          {\"level\": \"error\", ", first ? "" : ",");
            first = false;
            sarif_message(f, "message", s[d].error);
            fputs(", \"locations\": [{\"physicalLocation\": {\"artifactLocation\": ", f);
            sarif_artifact_location(f, s[d].path, d);
            fputs("}}]}", f);
        }
        fputs("\n        ]", f);
    }
    fputs("}\n      ],\n      \"results\": [", f);
    bool first = true;
    int total[CHK_VERDICT_COUNT] = {0};
    for (size_t d = 0; d < n; d++) {
        const struct chk_subject *sub = &s[d];
        for (size_t i = 0; i < sub->nresults; i++) {
            const struct chk_result *r = &sub->results[i];
            if ((unsigned)r->verdict < CHK_VERDICT_COUNT) total[r->verdict]++;
            if (r->verdict != CHK_FAIL && r->verdict != CHK_WARN) continue;
            if (r->rule >= t->nrules) continue;
            const struct chk_rule *rule = &t->rules[r->rule];
            fprintf(f, "%s\n        {\"ruleId\": ", first ? "" : ",");
            first = false;
            chk_json_str(f, rule->id);
            fprintf(f, ", \"ruleIndex\": %zu, \"kind\": \"fail\", \"level\": \"%s\", ", r->rule,
                    r->verdict == CHK_FAIL ? "error" : "warning");
            sarif_message(f, "message", r->reason);
            fputs(",\n         \"locations\": [{\"physicalLocation\": {\"artifactLocation\": ", f);
            sarif_artifact_location(f, sub->path, d);
            fputs(", \"region\": {\"startLine\": 1}}}]", f);
            fprintf(f, ",\n         \"partialFingerprints\": {\"%sFinding/v1\": \"%016llx\"}", "checker",
                    (unsigned long long)fingerprint(rule->id, sub->path));
            fputs(",\n         \"properties\": {\"verdict\": ", f);
            chk_json_str(f, chk_verdict_name(r->verdict));
            fputs(", \"library\": ", f);
            if (sub->library)
                chk_json_str(f, sub->library);
            else
                fputs("null", f);
            fputs(", \"evidence\": [", f);
            for (size_t e = 0; e < r->nevidence; e++) {
                fputs(e ? ", " : "", f);
                chk_json_str(f, r->evidence[e]);
            }
            fputs("]}}", f);
        }
    }
    fputs("\n      ],\n      \"properties\": {\"failOn\": ", f);
    chk_json_str(f, chk_fail_on_name(t->fail_on));
    fputs(", \"verdicts\": {", f);
    for (int v = 0; v < CHK_VERDICT_COUNT; v++)
        fprintf(f, "%s\"%s\": %d", v ? ", " : "", chk_verdict_name((enum chk_verdict)v), total[v]);
    fputs("}}\n    }\n  ]\n}\n", f);
}
