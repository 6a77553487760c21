/*
 * ldp_check_fuzzer: ldp-check's own front end (conformance/driver/frontend.h), no child processes.
 *
 * Framing: byte 0 picks the mode (modulo 2), the rest is the mode's input.
 *   0 command line: the rest split at NUL bytes into argv[1..] (at most 64 arguments; argv[0] is
 *     "ldp-check"), given to ldp_cli_parse.
 *   1 manifest: byte 1 picks the manifest path (0 "/nonexistent-ldp/icd.d/drv.json", 1
 *     "icd.d/drv.json", 2 "drv.json", 3 a 300-byte path, 4.. as 0; bit 7 set: the manifest is
 *     "too big", buffer NULL), the rest is the manifest text given to ldp_driver_prepare; then the
 *     parent's verdict inputs go through the JSON, JUnit and SARIF writers with the manifest bytes
 *     as reason, evidence and paths.
 *  * Oracles: the command line parses to 0 (usable, every field within its documented range, every
 *   manifest one of the arguments) or 2 (a non-empty message); a prepared driver's flags are
 *   consistent (a library problem only with a parsed manifest, missing and not-regular exclusive,
 *   a too-big manifest never parsed, with the reason); the SARIF and JSON the writers produce parse
 *   as JSON (the loader's parser) and everything written is valid UTF-8 without NUL bytes; the exit
 *   status follows the verdicts, --fail-on and the I/O error.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_target.h"
#include "conformance/checker_common/report.h"
#include "conformance/driver/frontend.h"
#include "loader/internal/json.h"

#define FZ_TARGET "ldp_check_fuzzer"

static void cli_mode(const uint8_t *data, size_t size) {
    /* A NUL-terminated copy, split at NULs. */
    char *copy = malloc(size + 1);
    CHECK(copy != NULL);
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *argv[66];
    int argc = 0;
    argv[argc++] = "ldp-check";
    for (size_t i = 0; i <= size && argc < 65;) {
        argv[argc++] = copy + i;
        i += strlen(copy + i) + 1;
    }
    argv[argc] = NULL;
    const char **manifests = calloc((size_t)argc + 1, sizeof(char *));
    CHECK(manifests != NULL);
    struct ldp_cli cli;
    char err[600];
    int rc = ldp_cli_parse(argc, argv, manifests, &cli, err, sizeof err);
    CHECK(rc == 0 || rc == 2);
    if (rc == 2) {
        CHECK(err[0] != '\0' && strlen(err) < sizeof err);
    } else {
        CHECK(cli.action <= LDP_CLI_LIST);
        if (cli.action == LDP_CLI_RUN) {
            CHECK(strcmp(cli.format, "table") == 0 || strcmp(cli.format, "json") == 0 ||
                  strcmp(cli.format, "junit") == 0 || strcmp(cli.format, "sarif") == 0);
            CHECK(cli.timeout_s > 0 && cli.timeout_s <= 86400);
            CHECK(cli.colour >= -1 && cli.colour <= 1);
            CHECK(cli.fail_on == CHK_FAIL_ON_FAIL || cli.fail_on == CHK_FAIL_ON_WARN);
            CHECK(cli.nman > 0 || cli.installed || cli.npackages > 0);
            CHECK(cli.nman < (size_t)argc && cli.npackages <= LDP_MAX_PACKAGES);
            bool any = false;
            for (size_t k = 0; k < ldp_check_count && k < LDP_MAX_CHECKS; k++) any = any || cli.selected[k];
            CHECK(any);
            for (size_t m = 0; m < cli.nman; m++) {
                bool found = false;
                for (int a = 1; a < argc; a++) found = found || manifests[m] == argv[a];
                CHECK(found);
            }
            for (size_t p = 0; p < cli.npackages; p++) CHECK(cli.packages[p] != NULL && cli.packages[p][0] != '\0');
        }
    }
    free(manifests);
    free(copy);
}

/* Everything the writers produced is UTF-8 without NUL bytes. */
static void check_utf8(const char *s, size_t len) {
    for (size_t i = 0; i < len;) {
        CHECK(s[i] != '\0');
        size_t n = chk_utf8_len((const unsigned char *)s + i);
        CHECK(n > 0 && i + n <= len);
        i += n;
    }
}

static void check_json(const char *s, size_t len) {
    struct vkl_json *root = NULL;
    char err[200];
    VkResult r = vkl_json_parse(s, len, &root, err, sizeof err);
    if (r != VK_SUCCESS) fprintf(stderr, "ldp_check_fuzzer: writer output is not JSON: %s\n%.*s\n", err, (int)len, s);
    CHECK(r == VK_SUCCESS);
    vkl_json_free(root);
}

static void manifest_mode(const uint8_t *data, size_t size) {
    uint8_t sel = size ? data[0] : 0;
    if (size) {
        data++;
        size--;
    }
    char longpath[320];
    memset(longpath, 'p', sizeof longpath);
    memcpy(longpath, "/nonexistent-ldp/", 17);
    memcpy(longpath + 290, "/drv.json", 10);
    const char *paths[] = {"/nonexistent-ldp/icd.d/drv.json", "icd.d/drv.json", "drv.json", longpath};
    const char *path = paths[(sel & 0x7f) < 4 ? (sel & 0x7f) : 0];
    bool too_big = (sel & 0x80) != 0;
    char *buf = malloc(size ? size : 1); /* exact size: ASan sees any overread */
    CHECK(buf != NULL);
    if (size) memcpy(buf, data, size);
    struct ldp_driver drv;
    ldp_driver_prepare(&drv, path, too_big ? NULL : buf, size, (unsigned long long)size + VKL_MANIFEST_MAX_SIZE);
    if (too_big) {
        CHECK(!drv.manifest_ok && drv.manifest_too_big && strstr(drv.manifest_error, path) != NULL);
    } else {
        CHECK(!drv.manifest_too_big);
    }
    if (!drv.manifest_ok) CHECK(!drv.library_missing && !drv.library_not_regular && drv.elf_class == 0);
    if (drv.manifest_ok) CHECK(drv.m.library_path != NULL && drv.m.library_path[0] != '\0');
    CHECK(!(drv.library_missing && drv.library_not_regular));
    if (drv.library_missing || drv.library_not_regular) CHECK(drv.library_problem[0] != '\0');
    if (ldp_driver_library_usable(&drv)) CHECK(drv.manifest_ok);

    /* The writers on hostile strings: the manifest bytes (NUL-terminated copy) as reason,
     * evidence, library and path. */
    char *text = malloc(size + 1);
    CHECK(text != NULL);
    if (size) memcpy(text, data, size);
    text[size] = '\0';
    const char *ev[2] = {text, drv.manifest_ok ? drv.m.library_path : "no library"};
    struct chk_rule rules[2] = {{"LDP_DRIVER_4", "ldp_driver_4_manifest", "manifest", text, text},
                                {"LINT_X", "", text, "", ""}};
    struct chk_result res[3] = {{0, drv.manifest_ok ? CHK_PASS : CHK_FAIL, text, ev, 2, 0.5},
                                {1, CHK_WARN, drv.manifest_error, ev, 1, 0.0},
                                {1, (enum chk_verdict)(sel % CHK_VERDICT_COUNT), "", NULL, 0, 1.0}};
    struct chk_subject subs[2] = {{text, drv.manifest_ok ? drv.m.library_path : NULL, NULL, res, 3},
                                  {path, NULL, (sel & 1) ? text : NULL, NULL, 0}};
    struct chk_tool tool = {"ldp-check", "0.0.0", NULL, rules, 2, (sel & 2) ? CHK_FAIL_ON_WARN : CHK_FAIL_ON_FAIL};
    for (int w = 0; w < 3; w++) {
        char *out = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&out, &len);
        CHECK(f != NULL);
        if (w == 0) {
            chk_write_sarif(f, &tool, subs, 2, (sel & 4) ? text : "/work");
        } else if (w == 1) {
            chk_write_junit(f, &tool, subs, 2);
        } else {
            fputc('[', f);
            chk_json_str(f, text);
            fputc(',', f);
            chk_json_str(f, drv.manifest_error);
            fputc(']', f);
        }
        CHECK(fclose(f) == 0);
        check_utf8(out, len);
        if (w != 1) check_json(out, len);
        int expect = 0;
        for (int i = 0; i < 3; i++) expect = chk_verdict_fails(res[i].verdict, tool.fail_on) ? 1 : expect;
        CHECK(chk_exit_status(&tool, subs, 2) == ((sel & 1) ? 2 : expect));
        free(out);
    }
    free(text);
    ldp_driver_release(&drv);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint8_t mode = size ? data[0] % 2 : 0;
    if (size) {
        data++;
        size--;
    }
    if (mode == 0)
        cli_mode(data, size);
    else
        manifest_mode(data, size);
    return 0;
}
