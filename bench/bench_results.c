/*
 * The benchmark's results, in the orchestrator: the rows (per scenario and measurement, one cell
 * per loader), read from the children's output, strace logs and callgrind dumps; the derived rows,
 * the table (first loader / second loader ratio per row) and the start-up chart (gnuplot).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <valgrind/callgrind.h>
#include <vulkan/vulkan.h>
#include <vulkan/vk_icd.h>

#include "bench/alloc_count.h"
#include "bench/bench_internal.h"
#include "loader/internal/layer.h"
#include "loader/internal/manifest.h"

/* ================================================================== results */

static struct row g_rows[MAX_ROWS];
static int g_row_count;

struct row *row_get(const char *scenario, const char *key) {
    for (int i = 0; i < g_row_count; i++)
        if (strcmp(g_rows[i].scenario, scenario) == 0 && strcmp(g_rows[i].key, key) == 0) return &g_rows[i];
    if (g_row_count == MAX_ROWS) die("too many rows");
    struct row *r = &g_rows[g_row_count++];
    memset(r, 0, sizeof(*r));
    snprintf(r->scenario, sizeof(r->scenario), "%s", scenario);
    snprintf(r->key, sizeof(r->key), "%s", key);
    return r;
}

/* "name*K" keys are per K items: the divisor is multiplied and the suffix dropped. */
static double split_key(char *key) {
    char *star = strrchr(key, '*');
    if (star == NULL) return 1;
    *star = '\0';
    return atof(star + 1);
}

void parse_child_output(const char *scenario, int li, const char *text) {
    char *copy = strdup(text), *save = NULL;
    for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *f[6] = {0};
        int nf = 0;
        for (char *s2 = NULL, *t = strtok_r(line, "\t", &s2); t && nf < 6; t = strtok_r(NULL, "\t", &s2)) f[nf++] = t;
        if (nf >= 5 && strcmp(f[0], "TIME") == 0) {
            double div = split_key(f[1]);
            struct cell *c = &row_get(scenario, f[1])->cells[li];
            c->has_time = 1;
            c->med = atof(f[2]) / div;
            c->min = atof(f[3]) / div;
            c->max = atof(f[4]) / div;
        } else if (nf >= 3 && strcmp(f[0], "ALLOCS") == 0) {
            char key[200];
            split_key(f[1]);
            snprintf(key, sizeof(key), "heap allocations: %s", f[1]);
            struct cell *c = &row_get(scenario, key)->cells[li];
            c->has_allocs = 1;
            c->allocs = atof(f[2]);
        } else if (nf >= 3 && strcmp(f[0], "PLAIN") == 0) {
            struct cell *c = &row_get(scenario, f[1])->cells[li];
            c->has_allocs = 1;
            c->allocs = atof(f[2]);
        } else if (nf >= 3 && strcmp(f[0], "INFO") == 0 && strcmp(f[1], "gdpa_returns_driver_function") == 0) {
            printf("  %s: vkGetDeviceProcAddr returns the driver's function: %s\n", scenario,
                   atoi(f[2]) ? "yes" : "NO");
        }
    }
    free(copy);
}

/* Counts the system calls strace logged between each "VKLBENCH-Z" marker and the next
 * "VKLBENCH-D key|n" marker (the markers themselves not included): rows "system calls: key". */
void parse_strace(const char *scenario, int li, const char *path) {
    FILE *f = fopen(path, "r");
    if (f == NULL) return;
    char line[8192];
    int counting = 0;
    double count = 0;
    while (fgets(line, sizeof(line), f)) {
        if (strstr(line, "\"VKLBENCH-Z") != NULL) {
            counting = 1;
            count = 0;
            continue;
        }
        char *d = strstr(line, "\"VKLBENCH-D ");
        if (d != NULL) {
            char key[300], full[340];
            snprintf(key, sizeof(key), "%s", d + 12);
            key[strcspn(key, "\"")] = '\0';
            char *bar = strrchr(key, '|');
            double n = 1;
            if (bar != NULL) {
                n = atof(bar + 1);
                *bar = '\0';
            }
            n *= split_key(key);
            snprintf(full, sizeof(full), "system calls: %s", key);
            struct cell *c = &row_get(scenario, full)->cells[li];
            c->has_allocs = 1;
            c->allocs = n > 0 ? count / n : count;
            counting = 0;
            continue;
        }
        if (!counting || strstr(line, " resumed>") != NULL || strstr(line, "+++ ") != NULL ||
            strstr(line, "--- SIG") != NULL)
            continue;
        count++;
    }
    fclose(f);
    unlink(path);
}

/* Reads every callgrind dump in `dir` written for a client request "key|n". */
void parse_callgrind_dir(const char *scenario, int li, const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "cg.out", 6) != 0) continue;
        char path[4096], line[1024], key[1024] = "";
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL) continue;
        double total = -1, n = 1;
        while (fgets(line, sizeof(line), f)) {
            const char *pfx = "desc: Trigger: Client Request: ";
            if (strncmp(line, pfx, strlen(pfx)) == 0) {
                snprintf(key, sizeof(key), "%s", line + strlen(pfx));
                key[strcspn(key, "\n")] = '\0';
                char *bar = strrchr(key, '|');
                if (bar) {
                    n = atof(bar + 1);
                    *bar = '\0';
                }
            } else if (strncmp(line, "summary:", 8) == 0 || (total < 0 && strncmp(line, "totals:", 7) == 0)) {
                /* summary: the instructions executed between the zeroing and the dump. totals (the sum
                 * of the dump's cost lines) can exceed it by a few percent: the same driver function
                 * called directly read 246.7 per call through either loader by summary, 247-284 by
                 * totals, so summary wins where both are written. */
                total = atof(strchr(line, ':') + 1);
            }
        }
        fclose(f);
        unlink(path);
        if (key[0] == '\0' || total < 0) continue;
        n *= split_key(key);
        struct cell *c = &row_get(scenario, key)->cells[li];
        c->has_ir = 1;
        c->ir = total / n;
    }
    closedir(d);
}

static void fmt_num(char *out, size_t n, double v) {
    if (v >= 1e6)
        snprintf(out, n, "%.2fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(out, n, "%.1fk", v / 1e3);
    else if (v >= 100)
        snprintf(out, n, "%.0f", v);
    else
        snprintf(out, n, "%.1f", v);
}
static void fmt_time(char *out, size_t n, const struct cell *c) {
    char a[32], b[32], d[32];
    fmt_num(a, sizeof(a), c->med);
    fmt_num(b, sizeof(b), c->min);
    fmt_num(d, sizeof(d), c->max);
    snprintf(out, n, "%s (%s–%s)", a, b, d);
}

void print_table(FILE *f, int nl, char labels[][32]) {
    fprintf(f, "| scenario | measurement | unit |");
    for (int i = 0; i < nl; i++) fprintf(f, " %s instr. |", labels[i]);
    if (nl >= 2) fprintf(f, " ratio instr. |");
    for (int i = 0; i < nl; i++) fprintf(f, " %s wall ns median (min–max) |", labels[i]);
    if (nl >= 2) fprintf(f, " ratio wall |");
    fprintf(f, "\n|---|---|---|");
    for (int i = 0; i < nl * 2 + (nl >= 2 ? 2 : 0); i++) fprintf(f, "---:|");
    fprintf(f, "\n");
    for (int r = 0; r < g_row_count; r++) {
        const struct row *w = &g_rows[r];
        int syscalls = strncmp(w->key, "system calls", 12) == 0;
        int ratio = strncmp(w->key, "throughput", 10) == 0;
        int faults = strncmp(w->key, "minor page faults", 17) == 0;
        int allocs = strncmp(w->key, "heap allocations", 16) == 0 || syscalls || ratio || faults;
        fprintf(f, "| %s | %s | %s |", w->scenario, w->key,
                syscalls ? "syscalls/op"
                : ratio  ? "ratio"
                : faults ? "faults/op"
                : allocs ? "allocs/op"
                         : "per op");
        char s[64];
        for (int i = 0; i < nl; i++) {
            const struct cell *c = &w->cells[i];
            if (allocs ? c->has_allocs : c->has_ir) {
                fmt_num(s, sizeof(s), allocs ? c->allocs : c->ir);
                fprintf(f, " %s |", s);
            } else {
                fprintf(f, " n/a |");
            }
        }
        if (nl >= 2) {
            double a = allocs ? w->cells[0].allocs : w->cells[0].ir, b = allocs ? w->cells[1].allocs : w->cells[1].ir;
            int ok = allocs ? (w->cells[0].has_allocs && w->cells[1].has_allocs)
                            : (w->cells[0].has_ir && w->cells[1].has_ir);
            if (ok && b > 0)
                fprintf(f, " %.3g |", a / b);
            else
                fprintf(f, " – |");
        }
        for (int i = 0; i < nl; i++) {
            if (!allocs && w->cells[i].has_time) {
                char t[128];
                fmt_time(t, sizeof(t), &w->cells[i]);
                fprintf(f, " %s |", t);
            } else {
                fprintf(f, " – |");
            }
        }
        if (nl >= 2) {
            if (!allocs && w->cells[0].has_time && w->cells[1].has_time && w->cells[1].med > 0)
                fprintf(f, " %.3g |", w->cells[0].med / w->cells[1].med);
            else
                fprintf(f, " – |");
        }
        fprintf(f, "\n");
    }
}

/* Derived rows: loader instructions above the driver. */
void derive(int nl) {
    static const char *const cmds[] = {"vkCmdDraw", "vkCmdSetLineWidth"};
    for (int r = 0, n = g_row_count; r < n; r++) {
        const char *sc = g_rows[r].scenario;
        if (strcmp(g_rows[r].key, "vkCmdDraw: driver function (floor)") != 0) continue;
        for (int k = 0; k < 2; k++) {
            char a[128], fl[128], out[160];
            snprintf(fl, sizeof(fl), "%s: driver function (floor)", cmds[k]);
            snprintf(a, sizeof(a), "%s: exported trampoline", cmds[k]);
            snprintf(out, sizeof(out), "%s: exported trampoline, loader instructions above the driver", cmds[k]);
            struct row *d = row_get(sc, out);
            struct row *t = row_get(sc, a), *f = row_get(sc, fl);
            for (int i = 0; i < nl; i++) {
                d->cells[i].has_ir = t->cells[i].has_ir && f->cells[i].has_ir;
                d->cells[i].ir = t->cells[i].ir - f->cells[i].ir;
                d->cells[i].has_time = 0; /* sub-nanosecond differences of medians: noise */
                d->cells[i].med = d->cells[i].min = d->cells[i].max = t->cells[i].med - f->cells[i].med;
            }
        }
        struct row *g = row_get(sc, "vkGetInstanceProcAddr hit, loader part (minus the benchmark loop)");
        struct row *gh = row_get(sc, "vkGetInstanceProcAddr hit"),
                   *gl = row_get(sc, "benchmark loop of the vkGetInstanceProcAddr hit row");
        for (int i = 0; i < nl; i++) {
            g->cells[i].has_ir = gh->cells[i].has_ir && gl->cells[i].has_ir;
            g->cells[i].ir = gh->cells[i].ir - gl->cells[i].ir;
            g->cells[i].has_time = 0;
        }
        /* Only where the loader's lookup ends in the driver's: with enabled layers ours answers from
         * the device's dispatch table without calling the driver (the difference would be negative). */
        int layers = 0;
        for (int k = 0; k < g_scenario_count; k++)
            if (strcmp(g_scenarios[k].name, sc) == 0) layers = g_scenarios[k].layers;
        if (layers > 0) continue;
        struct row *d = row_get(sc, "vkGetDeviceProcAddr hit, loader part (minus the driver's own lookup)");
        struct row *t = row_get(sc, "vkGetDeviceProcAddr hit"),
                   *f = row_get(sc, "driver's own vkGetDeviceProcAddr hit");
        for (int i = 0; i < nl; i++) {
            d->cells[i].has_ir = t->cells[i].has_ir && f->cells[i].has_ir;
            d->cells[i].ir = t->cells[i].ir - f->cells[i].ir;
            d->cells[i].has_time = 0; /* sub-nanosecond differences of medians: noise */
            d->cells[i].med = d->cells[i].min = d->cells[i].max = t->cells[i].med - f->cells[i].med;
        }
    }
}

void chart(const char *out, int nl, char labels[][32]) {
    char dat[4096], gp[4096], png[4096];
    snprintf(dat, sizeof(dat), "%s/startup.dat", out);
    snprintf(gp, sizeof(gp), "%s/startup.gp", out);
    snprintf(png, sizeof(png), "%s/startup_vs_manifests.png", out);
    FILE *f = fopen(dat, "w");
    if (f == NULL) return;
    static const struct {
        const char *sc;
        int manifests;
    } pts[] = {{"1 driver", 1}, {"10 drivers", 10}, {"100 drivers", 100}, {"1000 drivers", 1000}};
    static const char *const keys[] = {"start-up sequence (cold process)", "vkCreateInstance + vkDestroyInstance"};
    int points = 0;
    for (int p = 0; p < 4; p++) points += row_get(pts[p].sc, keys[0])->cells[0].has_ir;
    if (points == 0) { /* no driver scenario in this run: nothing to draw */
        fclose(f);
        return;
    }
    fprintf(f, "# manifests");
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < nl; i++) fprintf(f, " \"%s %s\"", labels[i], k ? "create+destroy" : "start-up");
    fprintf(f, "\n");
    for (int p = 0; p < 4; p++) {
        if (!row_get(pts[p].sc, keys[0])->cells[0].has_ir) continue; /* scenario not run */
        fprintf(f, "%d", pts[p].manifests);
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < nl; i++) fprintf(f, " %.0f", row_get(pts[p].sc, keys[k])->cells[i].ir);
        fprintf(f, "\n");
    }
    fclose(f);
    /* The same against unused explicit layer manifests (1 driver each; 0 manifests is "1 driver"). */
    char dat2[4200];
    snprintf(dat2, sizeof(dat2), "%s/startup_layers.dat", out);
    static const struct {
        const char *sc;
        int manifests;
    } lpts[] = {{"100 unused explicit", 100}, {"1000 unused explicit", 1000}};
    int have2 = 0;
    f = fopen(dat2, "w");
    if (f == NULL) return;
    fprintf(f, "# unused explicit layer manifests, start-up then create+destroy per loader\n");
    for (int p = 0; p < 2; p++) {
        if (!row_get(lpts[p].sc, keys[0])->cells[0].has_ir) continue;
        have2++;
        fprintf(f, "%d", lpts[p].manifests);
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < nl; i++) fprintf(f, " %.0f", row_get(lpts[p].sc, keys[k])->cells[i].ir);
        fprintf(f, "\n");
    }
    fclose(f);
    f = fopen(gp, "w");
    if (f == NULL) return;
    fprintf(f,
            "set terminal pngcairo size 1000,760 noenhanced\nset output '%s'\n"
            "set title 'Cost vs number of manifests (instructions, callgrind)'\n"
            "set logscale xy\nset xlabel 'driver manifests (solid) / unused explicit layer manifests (dashed)'\n"
            "set ylabel 'instructions per operation'\n"
            "set key below maxrows 4\nset grid\nset xtics (1, 10, 100, 1000)\n"
            "plot ",
            png);
    for (int k = 0, col = 2; k < 2; k++)
        for (int i = 0; i < nl; i++, col++)
            fprintf(f, "%s'%s' using 1:%d with linespoints lw 2 lc %d title '%s %s, drivers'", col > 2 ? ", " : "", dat,
                    col, col - 1, labels[i],
                    k ? "vkCreateInstance+vkDestroyInstance (warm)" : "start-up sequence (cold process)");
    if (have2 > 0)
        for (int k = 0, col = 2; k < 2; k++)
            for (int i = 0; i < nl; i++, col++)
                fprintf(f, ", '%s' using 1:%d with linespoints lw 2 dt 2 lc %d title '%s %s, explicit manifests'", dat2,
                        col, col - 1, labels[i], k ? "create+destroy" : "start-up");
    fprintf(f, "\n");
    fclose(f);
    char *gnuplot = find_in_path("gnuplot");
    if (gnuplot == NULL) {
        printf("gnuplot not found: chart data in %s, script %s\n", dat, gp);
        return;
    }
    char *argv[] = {gnuplot, gp, NULL};
    char *o = NULL;
    extern char **environ;
    int st = run_capture(argv, environ, &o);
    free(o);
    printf(st == 0 ? "chart: %s\n" : "gnuplot failed for %s\n", png);
}
