/*
 * loader_diff_fuzzer's harness: differential whole-loader fuzzing (docs/fuzzing.md "Differential
 * fuzzing").
 *
 * One input decodes into one world (world_decode / world_build: driver and layer manifests, mock
 * variants and scenarios, environment, the application's create-info). The same application
 * sequence then runs through OUR loader (libvulkan.so.1 built from loader/) and Debian's Khronos
 * loader, each dlopen()ed in its own forked child with the same world on disk and the mocks' call
 * records cleared in between. Each child writes what the application observed into a shared
 * anonymous mapping the parent made before the fork (it plays the part of a pipe, but what a child
 * wrote before it crashed or hung stays readable), the parent adds what the mocks recorded
 * (which drivers received vkCreateInstance / vkCreateDevice, which layers were chained and in what
 * order) and compares the two sides. A difference that a known deviation explains (the rule column
 * of conformance/deviations/khronos.tsv, read at start-up, mapped to the named explainers below) is
 * not a finding; any other difference aborts with both sides' observations.
 *
 * The seam: the executable exports `dlopen`, so both loaders' dlopen calls land here (their
 * references bind to the executable's definition first): paths inside the world load, bare names
 * are looked up in the world's library directory, anything else (the machine's real drivers and
 * layers) fails as a missing file would, so results never depend on the machine.
 *
 * Coverage: our loader is also loaded once in the parent (never unloaded), so libFuzzer knows its
 * coverage counters; the child running it copies its counters into the shared mapping before it
 * exits and the parent copies them into its own, so the fuzzer is guided by our loader's code.
 *
 * This file: start-up (the loaders, the deviations, coverage), the dlopen seam, the zygote that
 * forks the children, the mocks' records and the entry points. The application a child runs is
 * diff_app.c, the explainers and the comparison diff_compare.c; diff_internal.h is what the three
 * share.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "fuzz/world/diff.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include "fuzz/world/diff_internal.h"
#include "fuzz/world/world.h"

const char *const k_side_name[SIDES] = {"ours", "khronos"};

struct d_shared *g_sh;
static size_t g_sh_size;

/* ------------------------------------------------------------------------------------------ */
/* Start-up: the loaders, the deviations                                                       */

char g_loader[SIDES][W_PATH];
uint8_t *g_cntrs; /* our loader's __sancov_cntrs in this process (NULL: not instrumented) */
static size_t g_cntrs_size;
bool g_verbose;
unsigned g_timeout_s = 10;

static void harness_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void harness_die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "loader_diff_fuzzer: harness error: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    world_remove_root();
    abort();
}

static bool file_exists(const char *p) {
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static void exe_dir(char *out, size_t n) {
    char exe[W_PATH];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) *slash = '\0';
    snprintf(out, n, "%s", exe);
}

/* First existing of: $env, then Bazel runfiles (rel), then the executable's directory (beside). */
static bool find_file(char *out, const char *env, const char *rel, const char *beside) {
    const char *e = getenv(env);
    if (e != NULL && *e) {
        snprintf(out, W_PATH, "%s", e);
        return file_exists(out);
    }
    char exe[W_PATH], dir[W_PATH];
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[k > 0 ? k : 0] = '\0';
    exe_dir(dir, sizeof dir);
    const char *rf = getenv("RUNFILES_DIR"), *ts = getenv("TEST_SRCDIR");
    char cand[6][W_PATH * 2];
    int c = 0;
    if (rel != NULL) {
        snprintf(cand[c++], sizeof cand[0], "%s.runfiles/vk_loader_harness/%s", exe, rel);
        if (rf) snprintf(cand[c++], sizeof cand[0], "%s/vk_loader_harness/%s", rf, rel);
        if (ts) snprintf(cand[c++], sizeof cand[0], "%s/vk_loader_harness/%s", ts, rel);
        snprintf(cand[c++], sizeof cand[0], "%s", rel); /* a Bazel test's working directory */
    }
    if (beside != NULL) snprintf(cand[c++], sizeof cand[0], "%s/%s", dir, beside);
    for (int i = 0; i < c; i++) {
        if (file_exists(cand[i])) {
            char *real = realpath(cand[i], NULL);
            snprintf(out, W_PATH, "%.*s", W_PATH - 1, real ? real : cand[i]);
            free(real);
            return true;
        }
    }
    return false;
}

/* The address range of section `sec` of the ELF file `path` (0 when absent). */
static bool elf_section(const char *path, const char *sec, uint64_t *addr, uint64_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return false;
    bool ok = false;
    Elf64_Ehdr eh;
    Elf64_Shdr *sh = NULL;
    char *names = NULL;
    if (fread(&eh, sizeof eh, 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
        eh.e_shstrndx >= eh.e_shnum)
        goto out;
    sh = calloc(eh.e_shnum, sizeof *sh);
    if (sh == NULL || fseek(f, (long)eh.e_shoff, SEEK_SET) != 0 || fread(sh, sizeof *sh, eh.e_shnum, f) != eh.e_shnum)
        goto out;
    const Elf64_Shdr *ns = &sh[eh.e_shstrndx];
    names = calloc(ns->sh_size + 1, 1);
    if (names == NULL || fseek(f, (long)ns->sh_offset, SEEK_SET) != 0 || fread(names, 1, ns->sh_size, f) != ns->sh_size)
        goto out;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        if (sh[i].sh_name < ns->sh_size && strcmp(names + sh[i].sh_name, sec) == 0) {
            *addr = sh[i].sh_addr;
            *size = sh[i].sh_size;
            ok = true;
            break;
        }
    }
out:
    free(sh);
    free(names);
    fclose(f);
    return ok;
}

/* Our loader, loaded for good in this process: libFuzzer registers its counters (when it is
 * instrumented); children copy theirs back (see the top of the file). */
static void load_ours_for_coverage(void) {
    void *h = __real_dlopen(g_loader[SIDE_OURS], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) harness_die("cannot load our loader %s: %s", g_loader[SIDE_OURS], dlerror());
    uint64_t addr = 0, size = 0;
    struct link_map *lm = NULL;
    if (elf_section(g_loader[SIDE_OURS], "__sancov_cntrs", &addr, &size) && size > 0 &&
        dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL) {
        g_cntrs = (uint8_t *)(lm->l_addr + addr);
        g_cntrs_size = size;
    }
}

/* ---- the known deviations (rule column of the table) ---- */
#define D_MAX_RULES 256
static char *g_rules[D_MAX_RULES];
static size_t g_nrules;
char g_deviations_path[W_PATH];

bool rule_listed(const char *rule) {
    for (size_t i = 0; i < g_nrules; i++)
        if (strcmp(g_rules[i], rule) == 0) return true;
    return false;
}

static void read_deviations(void) {
    if (!find_file(g_deviations_path, "VKL_DIFF_DEVIATIONS", "conformance/deviations/khronos.tsv",
                   "vkl_deviations/khronos.tsv"))
        harness_die("no deviations table (conformance/deviations/khronos.tsv; set VKL_DIFF_DEVIATIONS)");
    FILE *f = fopen(g_deviations_path, "r");
    if (f == NULL) harness_die("cannot read %s: %s", g_deviations_path, strerror(errno));
    char line[8192];
    while (fgets(line, sizeof line, f) != NULL) {
        if (line[0] == '#' || line[0] == '\n') continue;
        char *tab = strchr(line, '\t');
        if (tab == NULL) continue;
        char *rule = tab + 1, *end = strchr(rule, '\t');
        if (end == NULL) continue;
        *end = '\0';
        if (strcmp(rule, "rule") == 0 || rule_listed(rule) || g_nrules == D_MAX_RULES) continue;
        g_rules[g_nrules] = strdup(rule);
        if (g_rules[g_nrules] == NULL) harness_die("out of memory");
        g_nrules++;
    }
    fclose(f);
    if (g_nrules == 0) harness_die("%s lists no deviation", g_deviations_path);
}

/* ------------------------------------------------------------------------------------------ */
/* The dlopen seam (exported from the executable: both loaders' dlopen calls come here)        */

static bool under_root(const char *real) {
    const char *root = world_root();
    size_t n = strlen(root);
    return n > 0 && strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

/* A refusal that looks like a missing file, with a dlerror() message (a loader may read it). */
static void *refuse(const char *file) {
    const char *base = strrchr(file, '/');
    char p[W_PATH];
    snprintf(p, sizeof p, "/nonexistent/vkl-diff-seam-refused/%s", base ? base + 1 : file);
    return __real_dlopen(p, RTLD_LAZY | RTLD_LOCAL);
}

__attribute__((visibility("default"))) void *dlopen(const char *file, int mode) {
    if (file == NULL || !world_root()[0]) return __real_dlopen(file, mode);
    if (strchr(file, '/') == NULL) {
        char p[W_PATH * 2];
        snprintf(p, sizeof p, "%s/lib/%s", world_root(), file);
        return file_exists(p) ? __real_dlopen(p, mode) : refuse(file);
    }
    char *real = realpath(file, NULL);
    if (real == NULL) return __real_dlopen(file, mode); /* missing: fails as usual */
    bool inside = under_root(real);
    free(real);
    return inside ? __real_dlopen(file, mode) : refuse(file);
}

/* ------------------------------------------------------------------------------------------ */
/* The zygote: a small process forked at start-up that forks the children                     */
/*
 * fork() of the fuzzer itself costs 9-12 ms under ASan+libFuzzer (page tables and copy-on-write
 * faults of a 150 MB process, two forks per input): more than the loaders' work. The zygote is
 * forked in LLVMFuzzerInitialize, while the process is still small, after both loaders are mapped
 * and the shared mapping exists. For each side the parent sends it the input, its working
 * directory and its environment (world_build's); the zygote forks a child that decodes the same
 * world (world_decode is deterministic; the files are already on disk), takes that environment and
 * directory and runs the application. VKL_DIFF_ZYGOTE=0: the parent forks the children itself.
 */
extern char **environ;
static int g_zy_req = -1, g_zy_resp = -1;

static void write_all(int fd, const void *p, size_t n) {
    const char *c = p;
    while (n > 0) {
        ssize_t k = write(fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) harness_die("zygote pipe write: %s", strerror(errno));
        c += k, n -= (size_t)k;
    }
}

static bool read_all(int fd, void *p, size_t n) {
    char *c = p;
    while (n > 0) {
        ssize_t k = read(fd, c, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        c += k, n -= (size_t)k;
    }
    return true;
}

static void *read_blob(int fd, uint32_t *len) {
    if (!read_all(fd, len, sizeof *len)) return NULL;
    char *b = malloc((size_t)*len + 1);
    if (b == NULL || !read_all(fd, b, *len)) _exit(0);
    b[*len] = '\0';
    return b;
}

static void diff_decode(const uint8_t *data, size_t size, struct world *w, struct d_ctx *ctx);

static void zygote_loop(int rq, int rs) {
    for (;;) {
        uint32_t side, n, cn, en;
        if (!read_all(rq, &side, sizeof side)) _exit(0); /* the fuzzer is gone */
        uint8_t *data = read_blob(rq, &n);
        char *cwd = read_blob(rq, &cn), *env = read_blob(rq, &en);
        if (data == NULL || cwd == NULL || env == NULL) _exit(0);
        pid_t pid = fork();
        if (pid == 0) {
            close(rq);
            close(rs);
            clearenv();
            for (char *e = env; e < env + en; e += strlen(e) + 1)
                if (*e) putenv(e);
            if (chdir(cwd) != 0) _exit(5);
            struct world w;
            struct d_ctx ctx;
            diff_decode(data, n, &w, &ctx);
            run_child(&w, (int)side);
        }
        int st = 0;
        if (pid > 0)
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
            }
        int32_t out = pid < 0 ? -1 : st;
        write_all(rs, &out, sizeof out);
        free(data);
        free(cwd);
        free(env);
    }
}

static void start_zygote(void) {
    const char *z = getenv("VKL_DIFF_ZYGOTE");
    if (z != NULL && *z == '0') return;
#ifdef __AFL_COMPILER
    /* AFL++: off unless asked for (VKL_DIFF_ZYGOTE=1). Its forkserver kills an input's process on a
     * timeout, which could leave a status in the zygote's pipe for the next input to read. */
    if (z == NULL || *z != '1') return;
#endif
    int rq[2], rs[2];
    if (pipe2(rq, O_CLOEXEC) != 0 || pipe2(rs, O_CLOEXEC) != 0) harness_die("pipe: %s", strerror(errno));
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) harness_die("fork: %s", strerror(errno));
    if (pid == 0) {
        close(rq[1]);
        close(rs[0]);
        zygote_loop(rq[0], rs[1]);
    }
    close(rq[0]);
    close(rs[1]);
    g_zy_req = rq[1];
    g_zy_resp = rs[0];
}

/* Runs one side's child; returns its wait status. */
static int spawn_child(const struct world *w, int side, const uint8_t *data, size_t size) {
    fflush(NULL);
    if (g_zy_req < 0) {
        pid_t pid = fork();
        if (pid < 0) harness_die("fork: %s", strerror(errno));
        if (pid == 0) run_child(w, side);
        int st = 0;
        while (waitpid(pid, &st, 0) < 0)
            if (errno != EINTR) harness_die("waitpid: %s", strerror(errno));
        return st;
    }
    char cwd[W_PATH * 4];
    if (getcwd(cwd, sizeof cwd) == NULL) harness_die("getcwd: %s", strerror(errno));
    size_t en = 0;
    for (char **e = environ; *e; e++) en += strlen(*e) + 1;
    char *env = malloc(en + 1), *p = env;
    if (env == NULL) harness_die("out of memory");
    for (char **e = environ; *e; e++) {
        size_t k = strlen(*e) + 1;
        memcpy(p, *e, k);
        p += k;
    }
    uint32_t v = (uint32_t)side;
    write_all(g_zy_req, &v, sizeof v);
    v = (uint32_t)size;
    write_all(g_zy_req, &v, sizeof v);
    write_all(g_zy_req, data, size);
    v = (uint32_t)strlen(cwd);
    write_all(g_zy_req, &v, sizeof v);
    write_all(g_zy_req, cwd, v);
    v = (uint32_t)en;
    write_all(g_zy_req, &v, sizeof v);
    write_all(g_zy_req, env, en);
    free(env);
    int32_t st;
    if (!read_all(g_zy_resp, &st, sizeof st)) harness_die("the zygote process is gone");
    if (st < 0) harness_die("the zygote could not fork");
    return st;
}

/* ------------------------------------------------------------------------------------------ */
/* Records (parent)                                                                            */

char *slurp(const char *path, size_t *len) {
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf != NULL) {
        size_t k = fread(buf + n, 1, cap - n, f);
        n += k;
        if (n < cap || cap >= (1u << 24)) break;
        cap *= 2;
        char *nb = realloc(buf, cap + 1);
        if (nb == NULL) {
            free(buf);
            buf = NULL;
        }
        buf = nb;
    }
    fclose(f);
    if (buf == NULL) return NULL;
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The string value of "key" in one JSON record line (no escapes needed for our names). */
static bool field(const char *line, const char *key, char *out, size_t n) {
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(line, pat);
    if (p == NULL) return false;
    p += strlen(pat);
    while (*p == ' ' || *p == ':') p++;
    if (*p != '"') return false;
    p++;
    size_t i = 0;
    while (*p && *p != '"' && *p != '\n' && i + 1 < n) out[i++] = *p++;
    out[i] = '\0';
    return true;
}

static void for_lines(char *buf, void (*fn)(const char *line, void *ctx), void *ctx) {
    if (buf == NULL) return;
    for (char *line = buf; *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        fn(line, ctx);
        if (!nl) break;
        line = nl + 1;
    }
}

static void drv_line(const char *line, void *ctx) {
    uint8_t *bits = ctx;
    char call[64], result[64];
    if (!field(line, "call", call, sizeof call)) return;
    bool ok = field(line, "result", result, sizeof result) && strcmp(result, "VK_SUCCESS") == 0;
    if (strcmp(call, "vkCreateInstance") == 0) *bits |= DRV_CI | (ok ? DRV_CI_OK : 0);
    if (strcmp(call, "vkCreateDevice") == 0) *bits |= DRV_CD | (ok ? DRV_CD_OK : 0);
}

static void chain_line(const char *line, void *ctx) {
    struct d_obs *o = ctx;
    char call[64], layer[60];
    if (!field(line, "call", call, sizeof call) || !field(line, "layer", layer, sizeof layer)) return;
    if (strcmp(call, "vkCreateInstance") == 0 && o->nchain_inst < D_MAX_CHAIN)
        snprintf(o->chain_inst[o->nchain_inst++], sizeof o->chain_inst[0], "%s", layer);
    if (strcmp(call, "vkCreateDevice") == 0 && o->nchain_dev < D_MAX_CHAIN)
        snprintf(o->chain_dev[o->nchain_dev++], sizeof o->chain_dev[0], "%s", layer);
}

static void read_records(const struct world *w, struct d_obs *o) {
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        char p[W_PATH + 16];
        snprintf(p, sizeof p, "%s.calls", w->d[s].lib_abs);
        size_t n;
        char *buf = slurp(p, &n);
        for_lines(buf, drv_line, &o->drv[s]);
        free(buf);
    }
    size_t n;
    char *buf = slurp(world_chain_calls_path(), &n);
    for_lines(buf, chain_line, o);
    free(buf);
}

static void clear_records(const struct world *w) {
    char p[W_PATH + 16];
    for (uint32_t s = 0; s < W_MAX_DRIVERS; s++) {
        snprintf(p, sizeof p, "%s/lib/libvkl_fuzz_drv%u.so.calls", world_root(), s);
        unlink(p);
    }
    for (uint32_t i = 0; i < W_MAX_LAYERS; i++) {
        snprintf(p, sizeof p, "%s/lib/libvkl_fuzz_lay%u.so.calls", world_root(), i);
        unlink(p);
    }
    unlink(world_chain_calls_path());
    (void)w;
}

/* ------------------------------------------------------------------------------------------ */
/* Entry points                                                                                */

static bool g_inited;

/* VKL_DIFF_TIMING=1: where the time goes (printed every 200 inputs). */
static bool g_timing;
static double g_t[5];
static unsigned g_t_runs;
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int diff_fuzz_initialize(int *argc, char ***argv) {
    if (g_inited) return 0;
    g_inited = true;
    g_world_fuzzer_name = "loader_diff_fuzzer";
    g_verbose = getenv("VKL_DIFF_VERBOSE") && *getenv("VKL_DIFF_VERBOSE") == '1';
    g_timing = getenv("VKL_DIFF_TIMING") && *getenv("VKL_DIFF_TIMING") == '1';
    const char *t = getenv("VKL_DIFF_TIMEOUT_S");
    if (t && atoi(t) > 0) g_timeout_s = (unsigned)atoi(t);
    if (!world_init(argc && *argc > 0 ? (*argv)[0] : NULL)) abort();
    if (!find_file(g_loader[SIDE_OURS], "VKL_DIFF_OURS", "fuzz/fuzz_libvulkan/libvulkan.so.1",
                   "vkl_libvulkan/libvulkan.so.1") &&
        !find_file(g_loader[SIDE_OURS], "VKL_DIFF_OURS", NULL, "fuzz_libvulkan/libvulkan.so.1"))
        harness_die("our loader not found (fuzz_libvulkan/libvulkan.so.1 or vkl_libvulkan/; set VKL_DIFF_OURS)");
    if (!find_file(g_loader[SIDE_KHR], "VKL_DIFF_KHRONOS", NULL, "vkl_khronos/libvulkan.so.1")) {
        snprintf(g_loader[SIDE_KHR], W_PATH, "/usr/lib/x86_64-linux-gnu/libvulkan.so.1");
        if (!file_exists(g_loader[SIDE_KHR]))
            harness_die("Debian's Khronos loader not found (%s; set VKL_DIFF_KHRONOS)", g_loader[SIDE_KHR]);
    }
    read_deviations();
    size_t active = 0;
    for (size_t i = 0; i < k_n_explainers; i++)
        active += g_active[i] = k_explainers[i].rule == NULL || rule_listed(k_explainers[i].rule);
    load_ours_for_coverage();
    /* Mapping and relocating the Khronos library once here, not in every child (VKL_DIFF_PRELOAD=0:
     * each child maps it). Nothing in this process ever calls it: every child starts from its
     * untouched state (it initialises itself on the first call). */
    const char *pre = getenv("VKL_DIFF_PRELOAD");
    if ((pre == NULL || *pre != '0') && __real_dlopen(g_loader[SIDE_KHR], RTLD_NOW | RTLD_LOCAL) == NULL)
        harness_die("cannot load %s: %s", g_loader[SIDE_KHR], dlerror());
    g_sh_size = sizeof(struct d_shared) + g_cntrs_size;
    g_sh = mmap(NULL, g_sh_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (g_sh == MAP_FAILED) harness_die("mmap: %s", strerror(errno));
    g_sh->cov_size = g_cntrs_size;
    start_zygote();
    if (g_verbose || getenv("VKL_DIFF_SHOW_SETUP")) {
        fprintf(stderr,
                "loader_diff_fuzzer: ours %s, khronos %s, deviations %s (%zu rules), %zu of %zu explainers "
                "active, coverage counters of ours: %zu\n",
                g_loader[SIDE_OURS], g_loader[SIDE_KHR], g_deviations_path, g_nrules, active, k_n_explainers,
                g_cntrs_size);
        for (size_t i = 0; i < k_n_explainers; i++)
            fprintf(stderr, "  explainer %-34s %-38s %s\n", k_explainers[i].name,
                    k_explainers[i].rule ? k_explainers[i].rule : "(not a deviation)",
                    g_active[i] ? "active" : "inactive (rule not listed)");
    }
    return 0;
}

#ifdef __AFL_COMPILER
/* AFL++ (docs/fuzzing.md "Differential fuzzing", "AFL++"): its driver starts the forkserver before
 * it calls LLVMFuzzerInitialize, and a library instrumented by AFL++ that is loaded after that has
 * no place of its own in the coverage map (AFL++ aborts, or with AFL_IGNORE_PROBLEMS folds its
 * edges into the executable's). So the set-up, which maps our loader, runs before main(), after
 * AFL++'s own constructors attached the shared map (which the input's children then write into);
 * it is done once, in the forkserver, not again for every input. */
__attribute__((constructor)) static void diff_afl_early_init(void) { diff_fuzz_initialize(NULL, NULL); }
#endif

/* The world of an input as this target runs it (the parent and the zygote's children alike). */
static void diff_decode(const uint8_t *data, size_t size, struct world *w, struct d_ctx *ctx) {
    world_decode(data, size, w);
    memset(ctx, 0, sizeof *ctx);
    /* An elevated world needs a real set-uid process for the Khronos loader (secure_getenv); the
     * elevated matrix covers that. Both loaders run the world unelevated. */
    ctx->elevated = w->elevated;
    w->elevated = false;
    /* Allocation failures land on different allocations in different loaders: not injected. The
     * application passes no allocator (the OOM walk, conformance/loader:oom_walk_test, covers them). */
    ctx->alloc_fail = w->use_allocator && w->alloc_fail_at != 0;
    w->use_allocator = false;
    w->alloc_fail_at = 0;
    w->chain_log = true; /* every layer's records in one file: the chain order */
    /* The loader's own malloc failures (FRAMING.md "mfail") are injected in process only. */
    w->mfail_count = 0;
    /* A FIFO or a link to /dev/zero blocks the Khronos loader until the child's alarm (rows Fifo.*,
     * Adversarial.ManifestLinkedToDevZero): known, and 10 s an input. The diff target makes them
     * regular files; the other special files (loops, directories, dangling links, empty files) stay. */
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        struct w_driver *d = &w->d[s];
        if (d->manifest_kind == WF_FIFO || d->manifest_kind == WF_DEV_ZERO) d->manifest_kind = WF_REGULAR;
        if (d->lib_kind == WF_FIFO || d->lib_kind == WF_DEV_ZERO) d->lib_kind = WF_REGULAR;
    }
    for (uint32_t i = 0; i < w->nlayers; i++) {
        struct w_layer *l = &w->l[i];
        if (l->manifest_kind == WF_FIFO || l->manifest_kind == WF_DEV_ZERO) l->manifest_kind = WF_REGULAR;
        if (l->lib_kind == WF_FIFO || l->lib_kind == WF_DEV_ZERO) l->lib_kind = WF_REGULAR;
    }
    /* Meta-layer ladders take the Khronos loader exponential time (row MetaScale.Diamonds...): at
     * most 6 extra meta layers here. */
    if (w->nmetas > 6) w->nmetas = 6;
}

int diff_fuzz_one(const uint8_t *data, size_t size) {
    if (!g_inited) diff_fuzz_initialize(NULL, NULL);
    struct world w;
    diff_decode(data, size, &w, &g_ctx);
    double t0 = now_s();
    world_build(&w);
    g_w = &w;
    double t1 = now_s();

    for (int side = 0; side < SIDES; side++) {
        clear_records(&w);
        memset(&g_sh->obs[side], 0, sizeof g_sh->obs[side]);
        if (side == SIDE_OURS && g_sh->cov_size) memset(g_sh->cov, 0, g_sh->cov_size);
        int st = spawn_child(&w, side, data, size);
        struct d_obs *o = &g_sh->obs[side];
        o->status = WIFSIGNALED(st) ? 1000 + WTERMSIG(st) : WEXITSTATUS(st);
        if (o->status == 2 || o->status == 3 || o->status == 4 || o->status == 5) {
            print_log_tail(side);
            harness_die("the %s child could not load or use %s (exit %d)", k_side_name[side], g_loader[side],
                        o->status);
        }
        read_records(&w, o);
        double t2 = now_s();
        g_t[1 + side] += t2 - t1;
        t1 = t2;
        if (side == SIDE_OURS && g_cntrs != NULL)
            for (size_t i = 0; i < g_sh->cov_size; i++) g_cntrs[i] |= g_sh->cov[i];
    }
    if (g_verbose) {
        for (int s = 0; s < SIDES; s++) print_obs(s);
    }
    compare(&w);
    /* our loader ending badly is a finding whatever the other side did (a sanitizer report, a
     * signal, a timeout) unless a mock in the world aborts on purpose */
    if (g_sh->obs[SIDE_OURS].status != 0) {
        bool mock_abort = g_sh->obs[SIDE_OURS].status == 1000 + SIGABRT;
        if (!mock_abort) finding("our loader's child did not end normally", O_STATUS);
    }
    double t3 = now_s();
    world_cleanup(&w);
    g_w = NULL;
    world_free(&w);
    if (g_timing) {
        g_t[0] += t3 - t0; /* the whole input but the cleanup */
        g_t[3] += now_s() - t3;
        g_t[4] += t3 - t1; /* compare */
        if (++g_t_runs % 200 == 0)
            fprintf(stderr,
                    "loader_diff_fuzzer: %u inputs: %.1f ms each: ours child %.1f, khronos child %.1f, "
                    "compare %.2f, cleanup %.1f (the rest: world_build)\n",
                    g_t_runs, 1e3 * (g_t[0] + g_t[3]) / g_t_runs, 1e3 * g_t[1] / g_t_runs, 1e3 * g_t[2] / g_t_runs,
                    1e3 * g_t[4] / g_t_runs, 1e3 * g_t[3] / g_t_runs);
    }
    return 0;
}

/* world.c reports its own harness failures through this (harness.c's, which this target does not link). */
void world_violation(const char *policy, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\n==== loader_diff_fuzzer: [%s]: ", policy);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    world_remove_root();
    abort();
}
