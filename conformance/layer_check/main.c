/* llp-check: command line, the per-manifest loop, and the reports (table, JSON, JUnit, SARIF). What
 * it shares with ldp-check (companions, the session directory, collecting verdicts, the writers) is in
 * conformance/checker_common (tool.h, report.h), so both tools' outputs read the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "conformance/checker_common/report.h"
#include "conformance/checker_common/tool.h"
#include "conformance/layer_check/llp_check.h"
#include "loader/internal/discovery.h"
#include "loader/internal/search_paths.h"
#include "loader/internal/strlist.h"

/* What a report on a layer manifest has beyond the shared chk_report. */
struct manifest_info {
    char **layers; /* names of the accepted layers */
    size_t nlayers;
    bool implicit;
};

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
            "                     may be repeated\n" CHK_USAGE_RUN_OPTIONS
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
            "Exit status: 0 no fail, 1 at least one fail (or warn with --fail-on=warn), 2 usage or I/O error.\n",
            chk_prog(), chk_prog());
}

/* ---- session directory: a private copy of the mock driver and its manifest ---- */

static const char *prepare_tmp(const char *mock) {
    return chk_session_mock_icd("llp-check", "LLP_CHECK_KEEP_PROBES", mock, "libllp_check_icd.so",
                                "{\"physical_devices\": [{\"name\": \"llp-check mock\", \"api_version\": \"1.3.0\"}], "
                                "\"record_lookups\": false}\n",
                                "icd.json");
}

/* ---- the manifest as the parent reads it ---- */

static void log_capture(void *ctx, uint32_t flags, const char *line) {
    struct llp_manifest *m = ctx;
    const char *level = (flags & VKL_LOG_ERROR)  ? "ERROR"
                        : (flags & VKL_LOG_WARN) ? "WARN"
                        : (flags & VKL_LOG_INFO) ? "INFO"
                                                 : "DEBUG";
    char **g = realloc(m->log, (m->log_count + 1) * sizeof(char *));
    if (g == NULL) return;
    m->log = g;
    size_t n = strlen(level) + strlen(line) + 3;
    char *s = malloc(n);
    if (s == NULL) return;
    snprintf(s, n, "%s: %s", level, line);
    m->log[m->log_count++] = s;
}

static bool path_is_implicit(const char *path) { return strstr(path, "implicit_layer.d/") != NULL; }

/* ---- running the checks of one manifest ---- */

static void child_fn(struct ldp_ctx *c, void *arg) {
    const struct llp_check_def *def = arg;
    def->fn(c, NULL);
}

static void run_manifest(struct llp_options *opt, const char *path, bool implicit, const bool *selected,
                         struct chk_report *rep, struct manifest_info *info) {
    memset(rep, 0, sizeof(*rep));
    memset(info, 0, sizeof(*info));
    rep->path = chk_xstrdup(path);
    info->implicit = implicit;
    struct llp_manifest man;
    memset(&man, 0, sizeof man);
    man.path = path;
    man.implicit = implicit;
    struct ldp_file mf;
    size_t len = 0;
    char *buf = chk_report_read(rep, path, VKL_MANIFEST_MAX_SIZE, &len, &mf);
    if (rep->error) return;
    if (buf == NULL) {
        man.too_big = true;
        man.size = mf.size;
        man.parse_result = VK_ERROR_INITIALIZATION_FAILED;
    } else {
        man.buf = buf;
        man.len = len;
        struct vkl_log_sink sink = {log_capture, &man};
        man.parse_result = vkl_layer_manifest_parse(path, buf, len, implicit, &sink, &man.file);
        llp_opt = opt;
        llp_expand_library_paths(&man.file, &man.library_path_written);
    }
    for (uint32_t i = 0; i < man.file.count; i++) {
        char **g = realloc(info->layers, (info->nlayers + 1) * sizeof(char *));
        if (g == NULL) break;
        info->layers = g;
        info->layers[info->nlayers++] = chk_xstrdup(man.file.layers[i].props.layerName);
    }
    llp_man = &man;
    llp_opt = opt;
    struct ldp_options lo = {.timeout_s = opt->timeout_s};
    struct ldp_ctx parent = {.opt = &lo, .drv = NULL, .fd = -1};
    chk_report_reserve(rep, llp_check_count);
    for (size_t i = 0; i < llp_check_count; i++) {
        const struct llp_check_def *def = &llp_checks[i];
        if (!selected[i]) continue;
        struct chk_item *r = chk_report_add(rep, i);
        if (def->needs_parse && (man.parse_result != VK_SUCCESS || man.file.count == 0)) {
            chk_item_set(r, CHK_NOT_TESTABLE, "the manifest is rejected (see LLP_LAYER_6)");
            continue;
        }
        size_t layers = man.file.count ? man.file.count : 1;
        /* With --driver the chain checks run the control (no layer) first: one probe more. */
        int probes = def->probes + (def->probes > 0 && opt->driver_manifest != NULL ? 1 : 0);
        bool capped = false;
        double limit = chk_deadline_limit(r, opt->timeout_s * (double)(1 + (size_t)probes * layers), &capped);
        if (limit > 0) chk_item_run(r, &parent, limit, capped, child_fn, (void *)def, "layer");
    }
    llp_man = NULL;
    for (uint32_t i = 0; man.library_path_written != NULL && i < man.file.count; i++) free(man.library_path_written[i]);
    free(man.library_path_written);
    vkl_layer_manifest_file_finish(&man.file);
    for (size_t i = 0; i < man.log_count; i++) free(man.log[i]);
    free(man.log);
    free(buf);
}

/* ---- output ---- */

static struct chk_rule g_rules[64];

static struct chk_tool make_tool(enum chk_fail_on fail_on) {
    size_t n = llp_check_count < 64 ? llp_check_count : 64;
    for (size_t k = 0; k < n; k++)
        chk_rule_fill(&g_rules[k], llp_checks[k].id, llp_checks[k].name, llp_checks[k].title, llp_rule_texts);
    return chk_tool_of("llp-check", LLP_CHECK_VERSION, g_rules, n, fail_on);
}

/* What the JSON and the table say of the run besides the reports: the options, and per report
 * what its manifest declares. */
struct run_info {
    const struct manifest_info *info;
    const struct llp_options *opt;
};

/* Whether the manifest is implicit, and the layers it declares. */
static void json_members(FILE *f, const struct chk_report *rep, size_t d, void *ctx) {
    (void)rep;
    const struct manifest_info *info = &((const struct run_info *)ctx)->info[d];
    fprintf(f, ",\n      \"implicit\": %s,\n      \"layers\": [", info->implicit ? "true" : "false");
    for (size_t i = 0; i < info->nlayers; i++) {
        fputs(i ? ", " : "", f);
        chk_json_str(f, info->layers[i]);
    }
    fputs("]", f);
}

static void write_json(FILE *f, const struct chk_tool *t, const struct chk_report *reps, size_t n, void *ctx) {
    const struct llp_options *opt = ((const struct run_info *)ctx)->opt;
    chk_write_json_head(f, t, opt->loader_path, opt->icd_path);
    fputs(",\n  \"recording_layer\": ", f);
    chk_json_str(f, opt->recording_path);
    fprintf(f, ",\n  \"timeout_s\": %g,\n  \"fail_on\": \"%s\",\n  \"manifests\": [", opt->timeout_s,
            chk_fail_on_name(t->fail_on));
    chk_write_json_subjects(f, t, reps, n, json_members, ctx);
}

static void table_heading(FILE *f, const struct chk_report *rep, size_t d, void *ctx) {
    const struct manifest_info *info = &((const struct run_info *)ctx)->info[d];
    fprintf(f, "\n== %s (%s)\n", rep->path, info->implicit ? "implicit" : "explicit");
    if (info->nlayers) {
        fputs("   layers:", f);
        for (size_t i = 0; i < info->nlayers; i++) fprintf(f, " %s", info->layers[i]);
        fputc('\n', f);
    }
}

static void write_table(FILE *f, const struct chk_tool *t, const struct chk_report *reps, size_t n, bool colour,
                        void *ctx) {
    const struct llp_options *opt = ((const struct run_info *)ctx)->opt;
    fprintf(f, "llp-check %s  (loader: %s; mock: %s; recording layer: %s; timeout %gs per process)\n",
            LLP_CHECK_VERSION, opt->loader_path ? opt->loader_path : "not found",
            opt->icd_path ? opt->icd_path : "not found", opt->recording_path ? opt->recording_path : "not found",
            opt->timeout_s);
    chk_write_table_subjects(f, t, reps, n, colour, 14, table_heading, ctx);
}

/* ---- main ---- */

static bool select_check(bool *selected, const char *list) {
    char *copy = chk_xstrdup(list), *save = NULL;
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
            fprintf(stderr, "%s: unknown check '%s' (see --list-checks)\n", chk_prog(), t);
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
    chk_session_cleanup();
    return status;
}

/* Which selected checks need the loader, the mock driver and the recording layer. */
static bool needs_sandwich(const bool *selected) {
    for (size_t k = 0; k < llp_check_count; k++)
        if (selected[k] &&
            (strncmp(llp_checks[k].name, "chain_", 6) == 0 || strncmp(llp_checks[k].name, "workload_", 9) == 0))
            return true;
    return false;
}

int main(int argc, char **argv) {
    chk_set_prog(argc > 0 && argv[0] ? argv[0] : "llp-check");
    chk_init_exe_dir();
    struct llp_options opt = {.timeout_s = 30.0};
    double deadline = 0;
    const char *format = "table", *output = NULL, *loader = NULL, *mock = NULL, *recording = NULL;
    bool installed = false, any_check = false;
    int colour = -1;
    enum chk_fail_on fail_on = CHK_FAIL_ON_FAIL;
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
            if (!chk_format_known(v)) {
                fprintf(stderr, "%s: unknown --format '%s' (table, json, junit or sarif)\n", chk_prog(), v);
                return finish(2);
            }
            format = v;
        } else if ((v = OPT("--fail-on")) != NULL) {
            if (!chk_fail_on_parse(v, &fail_on)) {
                fprintf(stderr, "%s: unknown --fail-on '%s' (fail or warn)\n", chk_prog(), v);
                return finish(2);
            }
        } else if ((v = OPT("--output")) != NULL) {
            output = v;
        } else if ((v = OPT("--timeout")) != NULL) {
            char *end = NULL;
            double t = strtod(v, &end);
            if (end == v || *end != '\0' || !(t > 0) || t > 86400) {
                fprintf(stderr, "%s: --timeout needs a number of seconds > 0 (got '%s')\n", chk_prog(), v);
                return finish(2);
            }
            opt.timeout_s = t;
        } else if ((v = OPT("--deadline")) != NULL) {
            if (!chk_deadline_parse(v, &deadline)) {
                fprintf(stderr, "%s: --deadline needs a number of seconds > 0 (got '%s')\n", chk_prog(), v);
                return finish(2);
            }
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
            if (!chk_file_exists(v)) {
                fprintf(stderr, "%s: --driver=%s: no such file\n", chk_prog(), v);
                return finish(2);
            }
            opt.driver_manifest = v;
        } else if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++) manifests[nman++] = argv[i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "%s: unknown option '%s' (see --help)\n", chk_prog(), a);
            return finish(2);
        } else {
            manifests[nman++] = a;
        }
#undef OPT
    }
    if (!any_check)
        for (size_t k = 0; k < llp_check_count; k++) selected[k] = true;
    if (nman == 0 && !installed) {
        fprintf(stderr, "%s: no layer manifest given (LAYER_MANIFEST... or --installed; see --help)\n", chk_prog());
        return finish(2);
    }
    opt.loader_path = g_loader_path =
        chk_companion(loader, argv[0], "libvulkan.so.1", "loader/libvulkan.so.1", "--loader");
    opt.icd_path = g_icd_path =
        chk_companion(mock, argv[0], "libmock_icd_v7.so", "mock_icd/libmock_icd_v7.so", "--mock");
    opt.recording_path = g_rec_path = chk_companion(recording, argv[0], "librecording_layer.so",
                                                    "mock_layers/librecording_layer.so", "--recording-layer");
    if ((loader && !g_loader_path) || (mock && !g_icd_path) || (recording && !g_rec_path)) return finish(2);
    /* The chain checks run the layer through the reference loader above the mock driver, between
     * two recording layers: without them (an incomplete installation) the run stops, as ldp-check
     * does for LDP_DRIVER_1. */
    if (needs_sandwich(selected) && (opt.loader_path == NULL || opt.icd_path == NULL || opt.recording_path == NULL)) {
        fprintf(stderr,
                "%s: the chain checks need the reference loader (libvulkan.so.1), the mock ICD (libmock_icd_v7.so) and "
                "the recording layer (librecording_layer.so);%s%s%s not found beside %s or in its runfiles: give "
                "--loader / --mock / --recording-layer, reinstall, or leave the chain checks out with --check\n",
                chk_prog(), opt.loader_path == NULL ? " the loader" : "", opt.icd_path == NULL ? " the mock ICD" : "",
                opt.recording_path == NULL ? " the recording layer" : "",
                chk_exe_dir()[0] ? chk_exe_dir() : "the program");
        return finish(2);
    }
    int status = 0;
    chk_deadline_start(deadline);
    if (needs_sandwich(selected)) {
        opt.session_dir = prepare_tmp(opt.icd_path);
        if (opt.session_dir == NULL) return finish(2);
    }

    /* --installed: the loader's own layer search, implicit locations then explicit ones. */
    struct vkl_strlist implicit_found = VKL_STRLIST_INIT, explicit_found = VKL_STRLIST_INIT;
    if (installed) {
        /* The loader's own discovery (loader/discovery.c), so that what llp-check checks is what the
         * loader would load: the override variable replaces the search, the "add" one precedes the
         * default directories, each file once, in the loader's order (RULE_LYR_SEARCH_ORDER). */
        if (vkl_discover(VKL_DISCOVER_IMPLICIT_LAYERS, NULL, NULL, &implicit_found) != VK_SUCCESS ||
            vkl_discover(VKL_DISCOVER_EXPLICIT_LAYERS, NULL, NULL, &explicit_found) != VK_SUCCESS) {
            fprintf(stderr, "%s: --installed: out of memory while searching for layer manifests\n", chk_prog());
            return finish(2);
        }
        if (implicit_found.count + explicit_found.count == 0)
            fprintf(stderr, "%s: --installed: no layer manifests found\n", chk_prog());
    }
    size_t total = nman + implicit_found.count + explicit_found.count;
    const char **all = calloc(total ? total : 1, sizeof(char *));
    bool *all_implicit = calloc(total ? total : 1, sizeof(bool));
    struct chk_report *reps = calloc(total ? total : 1, sizeof(struct chk_report));
    struct manifest_info *info = calloc(total ? total : 1, sizeof(struct manifest_info));
    if (reps == NULL || info == NULL || all == NULL || all_implicit == NULL) {
        total = 0; /* no report to free one by one */
        status = 2;
        goto done;
    }
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
    FILE *out = chk_open_output(output);
    if (out == NULL) {
        status = 2;
        goto done;
    }
    for (size_t i = 0; i < total; i++) {
        chk_say_checking(format, out, "", all[i]);
        run_manifest(&opt, all[i], all_implicit[i], selected, &reps[i], &info[i]);
        status = chk_report_done(&reps[i], fail_on, status);
    }
    struct chk_tool tool = make_tool(fail_on);
    struct run_info run = {info, &opt};
    if (chk_write_reports(out, format, &tool, reps, total, colour, write_json, write_table, &run) != 0) status = 2;
done:
    for (size_t i = 0; i < total; i++) {
        chk_report_free(&reps[i]);
        for (size_t k = 0; k < info[i].nlayers; k++) free(info[i].layers[k]);
        free(info[i].layers);
    }
    free(reps);
    free(info);
    free(all);
    free(all_implicit);
    vkl_strlist_finish(&implicit_found);
    vkl_strlist_finish(&explicit_found);
    return finish(status);
}
