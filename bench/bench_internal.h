/*
 * What the benchmark's sources share (bench.c: orchestrator, bench_child.c: the measurements,
 * bench_results.c: the results): the scenarios, the result rows and the functions one file calls
 * in another.
 */
#ifndef VKL_BENCH_BENCH_INTERNAL_H
#define VKL_BENCH_BENCH_INTERNAL_H

#include <stdio.h>

#define MAX_LOADERS 4
#define MAX_ROWS 512

/* ---- bench.c: helpers */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
double now_ns(void);
int cmp_double(const void *a, const void *b);
int run_capture(char *const argv[], char *const envp[], char **out);
char *find_in_path(const char *name);

/* ---- bench.c: the scenarios */
struct scenario {
    const char *name;
    int drivers;           /* driver manifests (each its own copy of the null driver) */
    int layers;            /* enabled pass-through layers (application list) */
    const char *layer_dir; /* VK_LAYER_PATH, relative to the sandbox, or NULL */
    int implicit;          /* 100 implicit manifests, disabled by BENCH_DISABLE_IMPLICIT=1 */
    int dispatch;          /* measure dispatch and lookups */
    int heavy;             /* fewer callgrind iterations */
    int env_layers;        /* the layers are enabled through VK_INSTANCE_LAYERS, not by the application */
    int threads;           /* wall time only: this many threads at once against one thread (throughput) */
    const char *real_icd;  /* a real driver's manifest instead of the null driver (copied into the
                              sandbox as lavapipe/icd.json); the scenario is skipped when it is absent */
    int distinct;          /* every driver's device differs (BENCH_NULL_ICD_DISTINCT=1, bench/null_icd.c) */
};

extern const struct scenario g_scenarios[];
extern const int g_scenario_count;

/* ---- bench_child.c */
int child_main(const char *loader, const char *sandbox, const char *scenario, const char *mode, int reps, int smoke);

/* ---- bench_results.c */
struct cell {
    int has_ir, has_time, has_allocs;
    double ir, med, min, max, allocs;
};
struct row {
    char scenario[48];
    char key[128];
    struct cell cells[MAX_LOADERS];
};
struct row *row_get(const char *scenario, const char *key);
void parse_child_output(const char *scenario, int li, const char *text);
void parse_strace(const char *scenario, int li, const char *path);
void parse_callgrind_dir(const char *scenario, int li, const char *dir);
void print_table(FILE *f, int nl, char labels[][32]);
void derive(int nl);
void chart(const char *out, int nl, char labels[][32]);

#endif
