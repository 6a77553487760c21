/*
 * vk-loader-harness benchmark: any number of Vulkan loaders side by side, in one run.
 *
 *   bazel run //bench -- [--loader=PATH ...] [--out=DIR] [--reps=N] [--no-callgrind] [--smoke]
 *                        [--scenario=NAME ...]
 *
 * The orchestrator (no --child) builds a sandbox (null-driver copies and their manifests, pass-through
 * layer copies, explicit and implicit layer manifests) and, for every scenario and every loader,
 * runs this program again as a child:
 *   - under `valgrind --tool=callgrind`: every measured block is bracketed by CALLGRIND_ZERO_STATS and
 *     CALLGRIND_DUMP_STATS_AT("key n"); the dump's summary / n is the instruction count per operation
 *     (exact and repeatable; system calls are not instructions of the process, so file I/O shows up
 *     only in wall time);
 *   - natively: each block is timed `reps` times (median, min, max per operation) and heap
 *     allocations are counted (alloc_count.c);
 *   - natively, `reps` fresh processes for the cold start-up sequence (dlopen of the loader to
 *     vkDestroyInstance);
 *   - under `strace -f` (when installed): the system calls of each block, between two marker
 *     writes to descriptor -1 ("VKLBENCH-Z" / "VKLBENCH-D key|n"), per operation;
 *   - once per driver scenario, the loader-free floor: the drivers' own negotiation, then their
 *     vkCreateInstance + vkDestroyInstance called directly (no loader at all); and the start-up
 *     floor, the same process's cold opening, negotiation and first create + destroy of every driver
 *     (the dynamic linker's share of the start-up rows, which no loader can avoid).
 * The scenario "lavapipe (1 real driver)" puts Mesa's lavapipe (a copy of its installed manifest) in
 * place of the null driver and measures the start-up sequence and create + destroy against the same
 * floor; it is skipped, saying why, where lavapipe is not installed.
 * Then it prints one table (first loader / second loader ratio per row), writes it with the raw
 * numbers to --out, and draws start-up cost against the number of manifests with gnuplot.
 *
 * This file: the scenarios, the sandbox, running the children and main(); the child's measurements
 * are bench_child.c, the results (parsing the children's output, the table, the chart)
 * bench_results.c; bench_internal.h is what the three share.
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

#define KHRONOS_DEFAULT "/usr/lib/x86_64-linux-gnu/libvulkan.so.1"

void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "bench: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ================================================================== scenarios */

/* Mesa's software driver (Debian's mesa-vulkan-drivers): the one real driver every machine can have. */
#define LAVAPIPE_MANIFEST "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"
#define LAVAPIPE_SCENARIO "lavapipe (1 real driver)"

const struct scenario g_scenarios[] = {
    {"1 driver", 1, 0, NULL, 0, 1, 0, 0, 0, NULL, 0},
    {"10 drivers", 10, 0, NULL, 0, 0, 0, 0, 0, NULL, 0},
    {"100 drivers", 100, 0, NULL, 0, 0, 1, 0, 0, NULL, 0},
    {"1000 drivers", 1000, 0, NULL, 0, 0, 1, 0, 0, NULL, 0},
    {"3 layers", 1, 3, "layers", 0, 1, 0, 0, 0, NULL, 0},
    {"10 layers", 1, 10, "layers", 0, 1, 0, 0, 0, NULL, 0},
    {"50 layers", 1, 50, "layers", 0, 0, 1, 0, 0, NULL, 0},
    {"3 layers (VK_INSTANCE_LAYERS)", 1, 3, "layers", 0, 0, 0, 1, 0, NULL, 0},
    {"10 layers (VK_INSTANCE_LAYERS)", 1, 10, "layers", 0, 0, 0, 1, 0, NULL, 0},
    {"100 unused explicit", 1, 0, "explicit100", 0, 0, 0, 0, 0, NULL, 0},
    {"1000 unused explicit", 1, 0, "explicit1000", 0, 0, 1, 0, 0, NULL, 0},
    {"100 implicit disabled", 1, 0, NULL, 1, 0, 0, 0, 0, NULL, 0},
    {"100 drivers, distinct devices", 100, 0, NULL, 0, 0, 1, 0, 0, NULL, 1},
    {"1000 drivers, distinct devices", 1000, 0, NULL, 0, 0, 1, 0, 0, NULL, 1},
    {LAVAPIPE_SCENARIO, 1, 0, NULL, 0, 0, 0, 0, 0, LAVAPIPE_MANIFEST, 0},
    {"16 threads", 1, 0, NULL, 0, 0, 0, 0, 16, NULL, 0}, /* lavapipe last but one, threads last: --smoke runs them */
};
#define SCENARIO_COUNT (int)(sizeof(g_scenarios) / sizeof(g_scenarios[0]))
const int g_scenario_count = SCENARIO_COUNT;

/* ================================================================== orchestrator */

static void mkdirs(const char *p) {
    char buf[4096];
    snprintf(buf, sizeof(buf), "%s", p);
    for (char *s = buf + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(buf, 0755);
            *s = '/';
        }
    mkdir(buf, 0755);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (f == NULL) die("cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    fclose(f);
}

static void copy_file(const char *src, const char *dst) {
    int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    if (in < 0 || out < 0) die("copy %s -> %s: %s", src, dst, strerror(errno));
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof(buf))) > 0)
        if (write(out, buf, (size_t)n) != n) die("write %s", dst);
    close(in);
    close(out);
}

static void build_sandbox(const char *sb, const char *icd_lib, const char *layer_lib) {
    char p[4096], q[4096], json[8192];
    static const char *const dirs[] = {"drivers",
                                       "layerlibs",
                                       "home",
                                       "empty/config",
                                       "empty/configdirs",
                                       "empty/data",
                                       "empty/datadirs",
                                       "layers",
                                       "explicit100",
                                       "explicit1000",
                                       "implicit100/vulkan/implicit_layer.d"};
    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", sb, dirs[i]);
        mkdirs(p);
    }
    for (int n = 1; n <= 1000; n *= 10) {
        snprintf(p, sizeof(p), "%s/drivers_%d", sb, n);
        mkdirs(p);
    }
    for (int i = 0; i < 1000; i++) {
        snprintf(p, sizeof(p), "%s/drivers/libbench_null_icd_%d.so", sb, i);
        copy_file(icd_lib, p);
        snprintf(
            json, sizeof(json),
            "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"%s\", \"api_version\": \"1.3.0\"}}\n",
            p);
        for (int n = 1; n <= 1000; n *= 10) {
            if (i >= n) continue;
            snprintf(q, sizeof(q), "%s/drivers_%d/null_icd_%03d.json", sb, n, i);
            write_file(q, json);
        }
    }
    for (int i = 0; i < 50; i++) {
        snprintf(p, sizeof(p), "%s/layerlibs/libbench_pt_%d.so", sb, i);
        copy_file(layer_lib, p);
        snprintf(json, sizeof(json),
                 "{\"file_format_version\": \"1.1.0\", \"layer\": {\"name\": \"VK_LAYER_BENCH_pt_%d\", "
                 "\"type\": \"GLOBAL\", \"library_path\": \"%s\", \"api_version\": \"1.3.0\", "
                 "\"implementation_version\": \"1\", \"description\": \"bench pass-through layer\"}}\n",
                 i, p);
        snprintf(q, sizeof(q), "%s/layers/pt_%02d.json", sb, i);
        write_file(q, json);
    }
    if (access(LAVAPIPE_MANIFEST, R_OK) == 0) {
        snprintf(p, sizeof(p), "%s/lavapipe", sb);
        mkdirs(p);
        snprintf(p, sizeof(p), "%s/lavapipe/icd.json", sb);
        copy_file(LAVAPIPE_MANIFEST, p);
    }
    snprintf(p, sizeof(p), "%s/layerlibs/libbench_pt_0.so", sb);
    for (int i = 0; i < 1000; i++) {
        snprintf(json, sizeof(json),
                 "{\"file_format_version\": \"1.1.0\", \"layer\": {\"name\": \"VK_LAYER_BENCH_unused_%d\", "
                 "\"type\": \"GLOBAL\", \"library_path\": \"%s\", \"api_version\": \"1.3.0\", "
                 "\"implementation_version\": \"1\", \"description\": \"installed, never enabled\"}}\n",
                 i, p);
        snprintf(q, sizeof(q), "%s/explicit1000/unused_%04d.json", sb, i);
        write_file(q, json);
        if (i >= 100) continue;
        snprintf(q, sizeof(q), "%s/explicit100/unused_%03d.json", sb, i);
        write_file(q, json);
        snprintf(json, sizeof(json),
                 "{\"file_format_version\": \"1.1.0\", \"layer\": {\"name\": \"VK_LAYER_BENCH_implicit_%d\", "
                 "\"type\": \"GLOBAL\", \"library_path\": \"%s\", \"api_version\": \"1.3.0\", "
                 "\"implementation_version\": \"1\", \"description\": \"implicit, disabled by env\", "
                 "\"disable_environment\": {\"BENCH_DISABLE_IMPLICIT\": \"1\"}}}\n",
                 i, p);
        snprintf(q, sizeof(q), "%s/implicit100/vulkan/implicit_layer.d/implicit_%03d.json", sb, i);
        write_file(q, json);
    }
}

/* A clean environment: only the sandbox's search locations. */
static char **scenario_env(const char *sb, const struct scenario *s) {
    static char buf[14][4200];
    static char *env[15];
    int n = 0;
    const char *path = getenv("PATH");
    snprintf(buf[n], sizeof(buf[n]), "PATH=%s", path ? path : "/usr/bin:/bin");
    env[n] = buf[n];
    n++;
#define ADD(...)                                                                                                       \
    do {                                                                                                               \
        snprintf(buf[n], sizeof(buf[n]), __VA_ARGS__);                                                                 \
        env[n] = buf[n];                                                                                               \
        n++;                                                                                                           \
    } while (0)
    ADD("HOME=%s/home", sb);
    ADD("XDG_CONFIG_HOME=%s/empty/config", sb);
    ADD("XDG_CONFIG_DIRS=%s/empty/configdirs", sb);
    ADD("XDG_DATA_DIRS=%s/empty/datadirs", sb);
    ADD("XDG_DATA_HOME=%s/%s", sb, s->implicit ? "implicit100" : "empty/data");
    if (s->real_icd != NULL)
        ADD("VK_DRIVER_FILES=%s/lavapipe/icd.json", sb);
    else
        ADD("VK_DRIVER_FILES=%s/drivers_%d", sb, s->drivers);
    ADD("BENCH_DISABLE_IMPLICIT=1");
    if (s->distinct) ADD("BENCH_NULL_ICD_DISTINCT=1");
#if defined(__SANITIZE_ADDRESS__)
    /* Lavapipe (LLVM) leaves allocations behind when the Khronos loader unloads it at every
     * vkDestroyInstance: not ours to report; AddressSanitizer's other checks stay on. */
    if (s->real_icd != NULL) ADD("ASAN_OPTIONS=detect_leaks=0");
#endif
    if (s->layer_dir != NULL) ADD("VK_LAYER_PATH=%s/%s", sb, s->layer_dir);
    if (s->env_layers) {
        char *b = buf[n];
        size_t len = (size_t)snprintf(b, sizeof(buf[n]), "VK_INSTANCE_LAYERS=");
        for (int i = 0; i < s->layers && len < sizeof(buf[n]) - 64; i++)
            len += (size_t)snprintf(b + len, sizeof(buf[n]) - len, "%sVK_LAYER_BENCH_pt_%d", i ? ":" : "", i);
        env[n++] = b;
    }
#undef ADD
    env[n] = NULL;
    return env;
}

/* Runs argv with envp; stdout captured into *out (malloc'd). Returns the exit status. */
int run_capture(char *const argv[], char *const envp[], char **out) {
    int fd[2];
    if (pipe(fd) != 0) die("pipe");
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execve(argv[0], argv, envp);
        fprintf(stderr, "bench: exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    ssize_t k;
    while ((k = read(fd[0], buf + len, cap - len - 1)) > 0) {
        len += (size_t)k;
        if (cap - len < 1024) buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

char *find_in_path(const char *name) {
    const char *path = getenv("PATH");
    if (path == NULL) path = "/usr/bin:/bin";
    static char buf[4096];
    while (*path) {
        const char *e = strchr(path, ':');
        size_t l = e ? (size_t)(e - path) : strlen(path);
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)l, path, name);
        if (access(buf, X_OK) == 0) return buf;
        path += l + (e ? 1 : 0);
    }
    return NULL;
}

static const char *runfile(const char *rel) {
    static char buf[4][8300];
    static int k;
    char *b = buf[k++ % 4];
    const char *rd = getenv("RUNFILES_DIR");
    if (rd != NULL) {
        snprintf(b, 8300, "%s/vk_loader_harness/%s", rd, rel);
        if (access(b, R_OK) == 0) return b;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        snprintf(b, 8300, "%s.runfiles/vk_loader_harness/%s", exe, rel);
        if (access(b, R_OK) == 0) return b;
    }
    snprintf(b, 8300, "%s", rel);
    if (access(b, R_OK) == 0) {
        char *r = realpath(b, NULL);
        if (r) {
            snprintf(b, 8300, "%s", r);
            free(r);
        }
        return b;
    }
    die("runfile %s not found", rel);
    return NULL;
}

int main(int argc, char **argv) {
    const char *loaders[MAX_LOADERS];
    int nl = 0, reps = 7, smoke = 0, callgrind = 1, child = 0;
    const char *out = "/tmp/vkl-bench", *sandbox = NULL, *scenario = NULL, *mode = "time";
    const char *only[SCENARIO_COUNT]; /* orchestrator: run only these scenarios (--scenario=, repeatable) */
    int n_only = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--loader=", 9) == 0) {
            if (nl == MAX_LOADERS) die("at most %d loaders", MAX_LOADERS);
            loaders[nl++] = a + 9;
        } else if (strncmp(a, "--out=", 6) == 0) {
            out = a + 6;
        } else if (strncmp(a, "--reps=", 7) == 0) {
            reps = atoi(a + 7);
        } else if (strcmp(a, "--smoke") == 0) {
            smoke = 1;
        } else if (strcmp(a, "--no-callgrind") == 0) {
            callgrind = 0;
        } else if (strcmp(a, "--child") == 0) {
            child = 1;
        } else if (strncmp(a, "--sandbox=", 10) == 0) {
            sandbox = a + 10;
        } else if (strncmp(a, "--scenario=", 11) == 0) {
            scenario = a + 11;
            if (n_only < SCENARIO_COUNT) only[n_only++] = scenario;
        } else if (strncmp(a, "--mode=", 7) == 0) {
            mode = a + 7;
        } else {
            fprintf(stderr,
                    "usage: bench [--loader=PATH]... [--out=DIR] [--reps=N] [--no-callgrind] [--smoke]\n"
                    "             [--scenario=NAME]...\n"
                    "  default loaders: our //loader:libvulkan.so.1 and %s\n"
                    "  --scenario: run only the named scenarios (and no parse rows); names:\n",
                    KHRONOS_DEFAULT);
            for (int k = 0; k < SCENARIO_COUNT; k++) fprintf(stderr, "    %s\n", g_scenarios[k].name);
            return 2;
        }
    }
    if (reps < 1) reps = 1;
    if (reps > 64) reps = 64;
    if (child) return child_main(nl ? loaders[0] : "", sandbox, scenario, mode, reps, smoke);
    for (int k = 0; k < n_only; k++) {
        int known = 0;
        for (int i = 0; i < SCENARIO_COUNT; i++) known |= strcmp(only[k], g_scenarios[i].name) == 0;
        if (!known) die("unknown scenario '%s' (see --help)", only[k]);
    }

    char labels[MAX_LOADERS][32];
    if (nl == 0) {
        loaders[nl++] = runfile("loader/libvulkan.so.1");
        if (access(KHRONOS_DEFAULT, R_OK) == 0) loaders[nl++] = KHRONOS_DEFAULT;
    }
    for (int i = 0; i < nl; i++) {
        if (strstr(loaders[i], "/usr/lib") == loaders[i])
            snprintf(labels[i], sizeof(labels[i]), "khronos");
        else if (strstr(loaders[i], "vk_loader_harness") != NULL || strstr(loaders[i], "bazel") != NULL)
            snprintf(labels[i], sizeof(labels[i]), "ours");
        else
            snprintf(labels[i], sizeof(labels[i]), "loader%d", i + 1);
        printf("loader %d (%s): %s\n", i + 1, labels[i], loaders[i]);
    }
    if (smoke) reps = reps > 2 ? 2 : reps;
#if defined(__SANITIZE_ADDRESS__)
    if (callgrind) printf("callgrind skipped: AddressSanitizer's shadow memory cannot run under valgrind\n");
    callgrind = 0;
#endif
    char *strace = find_in_path("strace");
    char strace_path[4096] = "";
#if defined(__SANITIZE_ADDRESS__)
    /* LeakSanitizer stops a process that runs under ptrace: no system-call counts in this build. */
    if (strace != NULL) printf("strace skipped: LeakSanitizer does not work under ptrace\n");
    strace = NULL;
#endif
    if (strace != NULL) snprintf(strace_path, sizeof(strace_path), "%s", strace);
#if !defined(__SANITIZE_ADDRESS__)
    else
        printf("strace not found: system calls not counted\n");
#endif
    char *valgrind = callgrind ? find_in_path("valgrind") : NULL;
    char valgrind_path[4096] = "";
    if (valgrind != NULL) snprintf(valgrind_path, sizeof(valgrind_path), "%s", valgrind);
    if (callgrind && valgrind == NULL) printf("valgrind not found: instruction counts skipped\n");

    char sb[] = "/tmp/vkl-bench-sandbox.XXXXXX";
    if (mkdtemp(sb) == NULL) die("mkdtemp");
    build_sandbox(sb, runfile("bench/libbench_null_icd.so"), runfile("bench/libbench_passthrough_layer.so"));
    /* Installed drivers' and layers' directories are not written seconds before a program starts;
     * the sandbox's are. Our loader keeps a directory's listing only once the directory's times are
     * 2 s old (vkl_dir_cache_settle_ns, loader/internal/fileio.h), so every scenario runs on a
     * sandbox at least that old: what an installed system sees, for every loader alike. */
    if (!smoke) {
        printf("sandbox: letting its directories age 2.5 s (as installed ones are)\n");
        fflush(stdout);
        struct timespec age = {2, 500000000};
        while (nanosleep(&age, &age) != 0 && errno == EINTR) {
        }
    }
    mkdirs(out);
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (sl <= 0) die("readlink /proc/self/exe");
    self[sl] = '\0';

    int failures = 0;
    /* smoke: 1 driver, 3 layers, lavapipe (when installed), the threads scenario */
    static const int smoke_scenarios[] = {0, 4, SCENARIO_COUNT - 2, SCENARIO_COUNT - 1};
    int nsc = smoke ? (int)(sizeof(smoke_scenarios) / sizeof(smoke_scenarios[0])) : SCENARIO_COUNT;
    for (int s = 0; s < nsc; s++) {
        const struct scenario *sc = &g_scenarios[smoke ? smoke_scenarios[s] : s];
        if (n_only > 0) {
            int wanted = 0;
            for (int k = 0; k < n_only; k++) wanted |= strcmp(only[k], sc->name) == 0;
            if (!wanted) continue;
        }
        if (sc->real_icd != NULL && access(sc->real_icd, R_OK) != 0) {
            printf("scenario: %s skipped: %s is not installed (Debian package mesa-vulkan-drivers)\n", sc->name,
                   sc->real_icd);
            continue;
        }
        char **env = scenario_env(sb, sc);
        printf("scenario: %s\n", sc->name);
        fflush(stdout);
        for (int li = 0; li < nl; li++) {
            char a_loader[4200], a_sb[4200], a_sc[128], a_reps[32], a_out[4300], cgdir[4200];
            snprintf(a_loader, sizeof(a_loader), "--loader=%s", loaders[li]);
            snprintf(a_sb, sizeof(a_sb), "--sandbox=%s", sb);
            snprintf(a_sc, sizeof(a_sc), "--scenario=%s", sc->name);
            snprintf(a_reps, sizeof(a_reps), "--reps=%d", reps);
            char *o = NULL;
            /* wall time + allocations */
            char *targv[] = {self, "--child", a_loader, a_sb, a_sc, "--mode=time", a_reps, smoke ? "--smoke" : NULL,
                             NULL};
            int st = run_capture(targv, env, &o);
            if (st != 0) {
                printf("  %s: child failed (status %d)\n", labels[li], st);
                failures++;
            }
            parse_child_output(sc->name, li, o);
            free(o);
            /* cold start-up wall time: fresh processes */
            double t[64];
            int nt = 0;
            for (int r = 0; r < reps; r++) {
                char *sargv[] = {self, "--child", a_loader, a_sb, a_sc, "--mode=startup", NULL};
                if (run_capture(sargv, env, &o) == 0) {
                    char *p = strstr(o, "STARTUP\t");
                    if (p) t[nt++] = atof(p + 8);
                }
                free(o);
            }
            if (nt > 0) {
                qsort(t, (size_t)nt, sizeof(t[0]), cmp_double);
                struct cell *c = &row_get(sc->name, "start-up sequence (cold process)")->cells[li];
                c->has_time = 1;
                c->med = t[nt / 2];
                c->min = t[0];
                c->max = t[nt - 1];
            }
            /* instructions */
            if (valgrind_path[0]) {
                snprintf(cgdir, sizeof(cgdir), "%s/cg_%d_%d", sb, s, li);
                mkdirs(cgdir);
                snprintf(a_out, sizeof(a_out), "--callgrind-out-file=%s/cg.out", cgdir);
                char *vargv[] = {valgrind_path, "--tool=callgrind", "-q",       a_out,
                                 self,          "--child",          a_loader,   a_sb,
                                 a_sc,          "--mode=ir",        "--reps=1", smoke ? "--smoke" : NULL,
                                 NULL};
                st = run_capture(vargv, env, &o);
                if (st != 0) {
                    printf("  %s: callgrind child failed (status %d)\n", labels[li], st);
                    failures++;
                }
                free(o);
                parse_callgrind_dir(sc->name, li, cgdir);
            }
            /* system calls */
            if (strace_path[0]) {
                char stfile[4300], a_o[4400];
                snprintf(stfile, sizeof(stfile), "%s/st_%d_%d.txt", sb, s, li);
                snprintf(a_o, sizeof(a_o), "-o%s", stfile);
                char *sargv[] = {strace_path, "-f",     "-qq", "-s", "400",       a_o,        self,
                                 "--child",   a_loader, a_sb,  a_sc, "--mode=sc", "--reps=1", smoke ? "--smoke" : NULL,
                                 NULL};
                st = run_capture(sargv, env, &o);
                if (st != 0) {
                    printf("  %s: strace child failed (status %d)\n", labels[li], st);
                    failures++;
                }
                free(o);
                parse_strace(sc->name, li, stfile);
            }
        }
        /* The loader-free floor of the driver scenarios (no loader: first column only). */
        if (sc->layers == 0 && sc->layer_dir == NULL && !sc->implicit && !sc->threads) {
            char a_sb[4200], a_sc[128], a_reps[32], a_out[4300], cgdir[4200];
            snprintf(a_sb, sizeof(a_sb), "--sandbox=%s", sb);
            snprintf(a_sc, sizeof(a_sc), "--scenario=%s", sc->name);
            snprintf(a_reps, sizeof(a_reps), "--reps=%d", reps);
            char *o = NULL;
            char *fargv[] = {self, "--child", a_sb, a_sc, "--mode=floor", a_reps, smoke ? "--smoke" : NULL, NULL};
            if (run_capture(fargv, env, &o) != 0) {
                printf("  floor child failed\n");
                failures++;
            }
            parse_child_output(sc->name, 0, o);
            free(o);
            if (valgrind_path[0]) {
                snprintf(cgdir, sizeof(cgdir), "%s/cg_floor_%d", sb, s);
                mkdirs(cgdir);
                snprintf(a_out, sizeof(a_out), "--callgrind-out-file=%s/cg.out", cgdir);
                char *vargv[] = {
                    valgrind_path, "--tool=callgrind",       "-q", a_out, self, "--child", a_sb, a_sc, "--mode=floor",
                    "--reps=1",    smoke ? "--smoke" : NULL, NULL};
                if (run_capture(vargv, env, &o) != 0) failures++;
                free(o);
                parse_callgrind_dir(sc->name, 0, cgdir);
            }
        }
    }
    /* Parse throughput: our buffer API (loader-independent). */
    if (n_only == 0) {
        char **env = scenario_env(sb, &g_scenarios[0]);
        char a_sb[4200], a_reps[32];
        snprintf(a_sb, sizeof(a_sb), "--sandbox=%s", sb);
        snprintf(a_reps, sizeof(a_reps), "--reps=%d", reps);
        char *o = NULL;
        char *pargv[] = {self, "--child", a_sb, "--scenario=1 driver", "--mode=parse", a_reps, NULL};
        if (run_capture(pargv, env, &o) != 0) failures++;
        size_t icd = 0, layer = 0;
        char *p = strstr(o, "parse_icd_bytes\t");
        if (p) icd = (size_t)atol(p + 16);
        p = strstr(o, "parse_layer_bytes\t");
        if (p) layer = (size_t)atol(p + 18);
        parse_child_output("manifest parsing (buffer API)", 0, o);
        free(o);
        if (valgrind_path[0]) {
            char a_out[4300], cgdir[4200];
            snprintf(cgdir, sizeof(cgdir), "%s/cg_parse", sb);
            mkdirs(cgdir);
            snprintf(a_out, sizeof(a_out), "--callgrind-out-file=%s/cg.out", cgdir);
            char *vargv[] = {valgrind_path, "--tool=callgrind",    "-q",           a_out,      self, "--child",
                             a_sb,          "--scenario=1 driver", "--mode=parse", "--reps=1", NULL};
            if (run_capture(vargv, env, &o) != 0) failures++;
            free(o);
            parse_callgrind_dir("manifest parsing (buffer API)", 0, cgdir);
        }
        for (int k = 0; k < 2; k++) {
            struct row *r = row_get("manifest parsing (buffer API)", k ? "parse layer manifest" : "parse ICD manifest");
            size_t bytes = k ? layer : icd;
            if (r->cells[0].has_time && bytes > 0)
                printf("parse throughput (%s, %zu bytes): %.1f MB/s median (%.1f–%.1f), %.1f instructions/byte\n",
                       k ? "layer manifest" : "ICD manifest", bytes, (double)bytes / r->cells[0].med * 1e3,
                       (double)bytes / r->cells[0].max * 1e3, (double)bytes / r->cells[0].min * 1e3,
                       r->cells[0].has_ir ? r->cells[0].ir / (double)bytes : 0.0);
        }
    }
    derive(nl);
    printf("\n");
    print_table(stdout, nl, labels);
    char path[4096];
    snprintf(path, sizeof(path), "%s/table.md", out);
    FILE *f = fopen(path, "w");
    if (f != NULL) {
        for (int i = 0; i < nl; i++) fprintf(f, "loader %d (%s): `%s`  \n", i + 1, labels[i], loaders[i]);
        fprintf(f, "\n");
        print_table(f, nl, labels);
        fclose(f);
        printf("\ntable: %s\n", path);
    }
    if (valgrind_path[0]) chart(out, nl, labels);
    if (getenv("BENCH_KEEP_SANDBOX") == NULL) {
        char cmd[4200];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", sb);
        if (system(cmd) != 0) fprintf(stderr, "bench: could not remove %s\n", sb);
    } else {
        printf("sandbox kept: %s\n", sb);
    }
    printf("%s\n", failures ? "FAILED: some measurements did not run" : "done");
    return failures ? 1 : 0;
}
