/* ldp-check: command line, the per-driver loop, and the reports (table, JSON, JUnit, SARIF). What it
 * shares with llp-check (companions, the session directory, collecting verdicts, the writers) is in
 * conformance/checker_common (tool.h, report.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conformance/checker_common/report.h"
#include "conformance/checker_common/tool.h"
#include "conformance/driver/frontend.h"
#include "conformance/driver/ldp_check.h"
#include "conformance/driver/package.h"
#include "loader/internal/discovery.h"
#include "loader/internal/strlist.h"

extern const struct ldp_registry *ldp_registry_global;

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
            "                     --list-checks); may be repeated\n" CHK_USAGE_RUN_OPTIONS
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
            chk_prog(), chk_prog(), chk_prog());
}

/* ---- LDP_DRIVER_1 session directory: a private copy of the mock driver and its manifest ---- */

static const char *prepare_tmp(const char *mock) {
    static const char *dir;
    if (dir == NULL)
        dir = chk_session_mock_icd(
            "ldp-check", NULL, mock, "libldp_check_mock.so",
            "{\"physical_devices\": [{\"name\": \"ldp-check coexistence mock\", \"vendor_id\": "
            "65535, \"device_id\": 4660, \"api_version\": \"1.3.0\"}], \"record_lookups\": false}\n",
            "ldp_check_mock.json");
    return dir;
}

/* ---- the rules: the checks, then the ICD package rules (--package) ---- */

static const struct ldp_check_def *rule_def(size_t k) {
    return k < ldp_check_count ? &ldp_checks[k] : &ldp_pkg_rules[k - ldp_check_count];
}

static size_t rule_index(const struct ldp_check_def *def) {
    if (def >= ldp_checks && def < ldp_checks + ldp_check_count) return (size_t)(def - ldp_checks);
    return ldp_check_count + (size_t)(def - ldp_pkg_rules);
}

/* ---- running the checks of one driver ---- */

static void child_fn(struct ldp_ctx *c, void *arg) {
    const struct ldp_check_def *def = arg;
    def->fn(c, NULL);
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
                       struct chk_report *rep) {
    memset(rep, 0, sizeof(*rep));
    rep->path = chk_xstrdup(manifest);
    struct ldp_file mf;
    size_t len = 0;
    char *buf = chk_report_read(rep, manifest, VKL_MANIFEST_MAX_SIZE, &len, &mf);
    if (rep->error) return;
    struct ldp_driver drv;
    ldp_driver_prepare_library(&drv, manifest, buf, len, mf.size, library);
    if (drv.manifest_ok && drv.library_overridden && opt->loader_path != NULL)
        drv.loader_manifest = package_loader_manifest(opt, &drv.m, library);
    if (drv.manifest_ok) rep->library = chk_xstrdup(drv.m.library_path);
    bool library_usable = ldp_driver_library_usable(&drv);
    struct ldp_ctx parent = {.opt = opt, .drv = &drv, .fd = -1};
    chk_report_reserve(rep, ldp_check_count);
    for (size_t i = 0; i < ldp_check_count; i++) {
        const struct ldp_check_def *def = &ldp_checks[i];
        if (!selected[i]) continue;
        struct chk_item *r = chk_report_add(rep, i);
        if (def->fn == NULL) {
            chk_item_set(r, CHK_REMOVED,
                         "withdrawn by the interface document (valid reasons exist to export core entry "
                         "points); see LINT_VK_EXPORTS for the -Bsymbolic advice that remains");
            continue;
        }
        if (def->fn != NULL && strcmp(def->id, "LDP_DRIVER_4") != 0 && !drv.manifest_ok) {
            chk_item_set(r, CHK_NOT_TESTABLE, "the manifest is rejected (see LDP_DRIVER_4)");
            continue;
        }
        if (def->needs_library && !library_usable) {
            if (drv.library_missing || drv.library_not_regular)
                chk_item_set(r, CHK_NOT_TESTABLE, "the library %s %s (see LDP_DRIVER_4, LDP_DRIVER_11)",
                             drv.m.library_path, drv.library_problem);
            else
                chk_item_set(r, CHK_NOT_TESTABLE, "the library is a %d-bit ELF file; run a %d-bit build of ldp-check",
                             drv.elf_class, drv.elf_class);
            continue;
        }
        struct ldp_options o = *opt;
        if (strcmp(def->id, "LDP_DRIVER_1") == 0 && o.loader_path != NULL) o.tmp_dir = prepare_tmp(o.mock_path);
        parent.opt = &o;
        bool capped = false;
        double limit = chk_deadline_limit(r, opt->timeout_s * (1 + def->probes), &capped);
        if (limit > 0) chk_item_run(r, &parent, limit, capped, child_fn, (void *)def, "driver");
        parent.opt = opt;
    }
    ldp_driver_release(&drv);
    free(buf);
}

/* ---- ICD packages (--package) ---- */

/* The package's own rules as a report whose subject is its metadata.json. */
static void package_report(const struct ldp_pkg_report *pr, struct chk_report *rep) {
    memset(rep, 0, sizeof *rep);
    rep->path = chk_xstrdup(pr->metadata_path);
    if (pr->library) rep->library = chk_xstrdup(pr->library);
    if (pr->io_error) {
        rep->error = chk_xstrdup(pr->error);
        return;
    }
    rep->items = calloc(LDP_PKG_RULE_COUNT, sizeof(struct chk_item));
    if (rep->items == NULL) exit(2);
    for (size_t k = 0; k < LDP_PKG_RULE_COUNT; k++) {
        struct chk_item *r = &rep->items[rep->nitems++];
        r->rule = rule_index(&ldp_pkg_rules[k]);
        chk_item_set(r, (enum chk_verdict)pr->rules[k].verdict, "%s", pr->rules[k].reason);
        for (size_t e = 0; e < pr->rules[k].nevidence; e++)
            chk_item_evidence(r, pr->rules[k].evidence[e], strlen(pr->rules[k].evidence[e]));
    }
}

/* ---- output ---- */

/* The rules of the SARIF/JUnit/JSON output: every check, and the package rules when a package was
 * checked (--package). Manifest paths, library paths and the loader's log lines may hold any bytes;
 * the reports stay valid UTF-8 (checker_common/report.c writes such bytes as U+FFFD). */
static struct chk_rule g_rules[LDP_MAX_CHECKS + LDP_PKG_RULE_COUNT];

static struct chk_tool make_tool(const struct chk_report *reps, size_t n, enum chk_fail_on fail_on) {
    bool with_pkg = false;
    for (size_t d = 0; d < n; d++)
        for (size_t i = 0; i < reps[d].nitems; i++) with_pkg = with_pkg || reps[d].items[i].rule >= ldp_check_count;
    size_t nrules = ldp_check_count + (with_pkg ? LDP_PKG_RULE_COUNT : 0);
    if (nrules > sizeof g_rules / sizeof g_rules[0]) nrules = sizeof g_rules / sizeof g_rules[0];
    for (size_t k = 0; k < nrules; k++) {
        const struct ldp_check_def *def = rule_def(k);
        chk_rule_fill(&g_rules[k], def->id, def->name, def->title, ldp_rule_texts);
    }
    return chk_tool_of("ldp-check", LDP_CHECK_VERSION, g_rules, nrules, fail_on);
}

/* A driver's library (null when the manifest named none that could be read). */
static void json_members(FILE *f, const struct chk_report *rep, size_t d, void *ctx) {
    (void)d;
    (void)ctx;
    fputs(",\n      \"library\": ", f);
    if (rep->library)
        chk_json_str(f, rep->library);
    else
        fputs("null", f);
}

/* What the JSON and the table say of the run besides the reports. */
struct run_info {
    const struct ldp_options *opt;
    const struct ldp_registry *reg;
};

static void write_json(FILE *f, const struct chk_tool *t, const struct chk_report *reps, size_t n, void *ctx) {
    const struct run_info *run = ctx;
    chk_write_json_head(f, t, run->opt->loader_path, run->opt->mock_path);
    fputs(",\n  \"registry\": ", f);
    chk_json_str(f, run->reg->source);
    fprintf(f, ",\n  \"timeout_s\": %g,\n  \"drivers\": [", run->opt->timeout_s);
    chk_write_json_subjects(f, t, reps, n, json_members, ctx);
}

static void table_heading(FILE *f, const struct chk_report *rep, size_t d, void *ctx) {
    (void)d;
    (void)ctx;
    fprintf(f, "\n== %s\n", rep->path);
    if (rep->library) fprintf(f, "   library: %s\n", rep->library);
}

static void write_table(FILE *f, const struct chk_tool *t, const struct chk_report *reps, size_t n, bool colour,
                        void *ctx) {
    const struct ldp_options *opt = ((const struct run_info *)ctx)->opt;
    fprintf(f, "ldp-check %s  (loader: %s; mock: %s; registry: %s; timeout %gs per process)\n", LDP_CHECK_VERSION,
            opt->loader_path ? opt->loader_path : "not found", opt->mock_path ? opt->mock_path : "not found",
            ((const struct run_info *)ctx)->reg->source, opt->timeout_s);
    chk_write_table_subjects(f, t, reps, n, colour, 26, table_heading, ctx);
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
    chk_session_cleanup();
    return status;
}

int main(int argc, char **argv) {
    chk_set_prog(argc > 0 && argv[0] ? argv[0] : "ldp-check");
    chk_init_exe_dir();
    struct ldp_options opt = {.timeout_s = 30.0};
    const char **manifests = calloc((size_t)argc + 1, sizeof(char *));
    if (manifests == NULL) return 2;
    g_manifests = manifests;
    struct ldp_cli cli;
    char cli_err[600];
    if (ldp_cli_parse(argc, argv, manifests, &cli, cli_err, sizeof cli_err) != 0) {
        fprintf(stderr, "%s: %s\n", chk_prog(), cli_err);
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
    chk_deadline_start(cli.deadline_s);
    opt.registry_path = cli.registry;
    int status = 0;
    opt.loader_path = g_loader_path =
        chk_companion(loader, argv[0], "libvulkan.so.1", "loader/libvulkan.so.1", "--loader");
    if (loader != NULL && g_loader_path == NULL) return finish(2); /* finish() frees the manifest list */
    opt.mock_path = g_mock_path =
        chk_companion(mock, argv[0], "libmock_icd_v7.so", "mock_icd/libmock_icd_v7.so", "--mock");
    if (mock != NULL && g_mock_path == NULL) return finish(2);
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
                chk_prog(), opt.loader_path == NULL ? "the loader" : "",
                opt.loader_path == NULL && opt.mock_path == NULL ? " and " : "",
                opt.mock_path == NULL ? "the mock ICD" : "", chk_exe_dir()[0] ? chk_exe_dir() : "the program");
        return finish(2); /* finish() frees the manifest list */
    }
    struct ldp_registry reg;
    char err[1200];
    if (ldp_registry_load(opt.registry_path, &reg, err, sizeof err) != 0) {
        fprintf(stderr, "%s: --registry: %s\n", chk_prog(), err);
        return finish(2);
    }
    ldp_registry_global = &reg;

    struct vkl_strlist found = VKL_STRLIST_INIT;
    if (installed) {
        if (vkl_discover(VKL_DISCOVER_DRIVERS, NULL, NULL, &found) != VK_SUCCESS) {
            fprintf(stderr, "%s: --installed: the driver search failed\n", chk_prog());
            status = 2;
        }
        if (found.count == 0) fprintf(stderr, "%s: --installed: no driver manifests found\n", chk_prog());
    }
    size_t total = nman + found.count;
    size_t cap = total + 2 * cli.npackages; /* a package: its metadata, then its manifest */
    struct chk_report *reps = calloc(cap ? cap : 1, sizeof(struct chk_report));
    FILE *out = reps != NULL ? chk_open_output(output) : NULL;
    if (out == NULL) {
        free(reps);
        vkl_strlist_finish(&found);
        ldp_registry_global = NULL;
        ldp_registry_free(&reg);
        return finish(2);
    }
    for (size_t i = 0; i < total; i++) {
        const char *m = i < nman ? manifests[i] : found.items[i - nman];
        chk_say_checking(format, out, "", m);
        run_driver(&opt, m, NULL, selected, &reps[i]);
        status = chk_report_done(&reps[i], fail_on, status);
    }
    for (size_t p = 0; p < cli.npackages; p++) {
        chk_say_checking(format, out, "package ", cli.packages[p]);
        struct ldp_pkg_report pr;
        ldp_pkg_evaluate(cli.packages[p], &pr);
        size_t first = total;
        package_report(&pr, &reps[total++]);
        if (pr.manifest != NULL) run_driver(&opt, pr.manifest, pr.library, selected, &reps[total++]);
        ldp_pkg_report_free(&pr);
        for (size_t i = first; i < total; i++) status = chk_report_done(&reps[i], fail_on, status);
    }
    struct chk_tool tool = make_tool(reps, total, fail_on);
    struct run_info run = {&opt, &reg};
    if (chk_write_reports(out, format, &tool, reps, total, colour, write_json, write_table, &run) != 0) status = 2;
    for (size_t i = 0; i < total; i++) chk_report_free(&reps[i]);
    free(reps);
    vkl_strlist_finish(&found);
    ldp_registry_global = NULL;
    ldp_registry_free(&reg);
    return finish(status);
}
