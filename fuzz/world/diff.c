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

#include "fuzz/world/world.h"

void *__real_dlopen(const char *file, int mode); /* diff_stubs.c: the C library's dlopen */

/* ------------------------------------------------------------------------------------------ */
/* Observations                                                                                */

#define D_MAX_NAMES 48
#define D_MAX_PD 8
#define D_MAX_GROUPS 8
#define D_MAX_CHAIN 16
#define D_NO_FUNCTION 1000 /* "vkGetInstanceProcAddr answered NULL" in a result field */
#define D_NOT_RUN 1001

enum { SIDE_OURS, SIDE_KHR, SIDES };
static const char *const k_side_name[SIDES] = {"ours", "khronos"};

/* Stages a child completed (a crash leaves the earlier ones valid). */
enum { ST_START, ST_PRE, ST_CREATE, ST_PHYS, ST_DEVICE, ST_DONE };

struct d_list {
    int32_t result;                                     /* the count query's */
    int32_t result2;                                    /* the array call's */
    uint32_t count;                                     /* entries the array call wrote */
    char name[D_MAX_NAMES][VK_MAX_EXTENSION_NAME_SIZE]; /* sorted */
};

struct d_pd {
    uint32_t vendor, device, api;
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
};

struct d_obs {
    uint32_t stage;
    int status; /* parent: 0 clean exit, 1000+signal, exit code otherwise */
    struct d_list eiep, eiep_layer, eilp;
    int32_t eiv;
    int32_t create;
    int32_t epd, epd2;
    uint32_t npd;
    struct d_pd pd[D_MAX_PD];
    int32_t groups;
    uint32_t ngroups;
    uint8_t group_size[D_MAX_GROUPS];
    int8_t group_member[D_MAX_GROUPS][4]; /* index into pd[], -1 unknown */
    bool device_stage;
    struct d_list edep;
    int32_t create_device;
    /* parent, from the records */
    uint8_t drv[W_MAX_DRIVERS]; /* DRV_* bits */
    uint32_t nchain_inst, nchain_dev;
    char chain_inst[D_MAX_CHAIN][64];
    char chain_dev[D_MAX_CHAIN][64];
};
enum { DRV_CI = 1, DRV_CI_OK = 2, DRV_CD = 4, DRV_CD_OK = 8 };

struct d_shared {
    struct d_obs obs[SIDES];
    size_t cov_size;
    uint8_t cov[]; /* our loader's coverage counters, from the child */
};

/* What an explainer may consult beyond the world. */
struct d_ctx {
    bool elevated;                  /* the input asked for an elevated world (run unelevated, see below) */
    bool alloc_fail;                /* the input asked for an allocation failure (not injected here) */
    const struct d_obs *ours, *khr; /* what each side observed */
};

static struct d_shared *g_sh;
static size_t g_sh_size;

/* ------------------------------------------------------------------------------------------ */
/* Start-up: the loaders, the deviations                                                       */

static char g_loader[SIDES][W_PATH];
static uint8_t *g_cntrs; /* our loader's __sancov_cntrs in this process (NULL: not instrumented) */
static size_t g_cntrs_size;
static bool g_verbose;
static unsigned g_timeout_s = 10;

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
static char g_deviations_path[W_PATH];

static bool rule_listed(const char *rule) {
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
/* The application (in the child)                                                              */

static PFN_vkGetInstanceProcAddr g_gipa;
static unsigned g_messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL utils_cb(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                               VkDebugUtilsMessageTypeFlagsEXT types,
                                               const VkDebugUtilsMessengerCallbackDataEXT *data, void *ud) {
    (void)sev, (void)types, (void)data, (void)ud;
    g_messages++;
    return VK_FALSE;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL report_cb(VkDebugReportFlagsEXT flags, VkDebugReportObjectTypeEXT type,
                                                uint64_t object, size_t location, int32_t code, const char *prefix,
                                                const char *msg, void *ud) {
    (void)flags, (void)type, (void)object, (void)location, (void)code, (void)prefix, (void)msg, (void)ud;
    g_messages++;
    return VK_FALSE;
}

static int cmp_name(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

static void list_store(struct d_list *L, const char *const *names, size_t stride, uint32_t n) {
    L->count = n;
    uint32_t k = n < D_MAX_NAMES ? n : D_MAX_NAMES;
    for (uint32_t i = 0; i < k; i++) {
        const char *s = (const char *)names + i * stride;
        size_t len = strnlen(s, VK_MAX_EXTENSION_NAME_SIZE - 1);
        memcpy(L->name[i], s, len);
        L->name[i][len] = '\0';
    }
    qsort(L->name, k, sizeof L->name[0], cmp_name);
}

typedef VkResult (*ext_fn)(void *ctx, const char *layer, uint32_t *n, VkExtensionProperties *p);

static void ext_list(struct d_list *L, ext_fn fn, void *ctx, const char *layer) {
    uint32_t n = 0;
    L->result = fn(ctx, layer, &n, NULL);
    L->result2 = D_NOT_RUN;
    if (L->result != VK_SUCCESS || n > 4096) return;
    VkExtensionProperties *p = calloc(n + 1, sizeof *p);
    if (p == NULL) return;
    uint32_t got = n;
    L->result2 = fn(ctx, layer, &got, p);
    if (L->result2 == VK_SUCCESS || L->result2 == VK_INCOMPLETE)
        list_store(L, (const char *const *)(void *)p[0].extensionName, sizeof *p, got <= n ? got : n);
    free(p);
}

static VkResult global_eiep(void *ctx, const char *layer, uint32_t *n, VkExtensionProperties *p) {
    return ((PFN_vkEnumerateInstanceExtensionProperties)ctx)(layer, n, p);
}

struct dev_ctx {
    PFN_vkEnumerateDeviceExtensionProperties fn;
    VkPhysicalDevice pd;
};
static VkResult dev_edep(void *ctx, const char *layer, uint32_t *n, VkExtensionProperties *p) {
    struct dev_ctx *c = ctx;
    return c->fn(c->pd, layer, n, p);
}

#define GIPA(inst, name) g_gipa((inst), (name))

static void run_physdevs(const struct world *w, struct d_obs *o, VkInstance inst) {
    PFN_vkEnumeratePhysicalDevices epd = (PFN_vkEnumeratePhysicalDevices)GIPA(inst, "vkEnumeratePhysicalDevices");
    PFN_vkGetPhysicalDeviceProperties props =
        (PFN_vkGetPhysicalDeviceProperties)GIPA(inst, "vkGetPhysicalDeviceProperties");
    o->epd = o->epd2 = D_NO_FUNCTION;
    o->groups = D_NOT_RUN;
    o->create_device = D_NOT_RUN;
    o->edep.result = o->edep.result2 = D_NOT_RUN;
    if (epd == NULL || props == NULL) return;
    uint32_t n = 0;
    o->epd = epd(inst, &n, NULL);
    o->epd2 = D_NOT_RUN;
    if (o->epd != VK_SUCCESS || n == 0 || n > 1024) return;
    VkPhysicalDevice *pds = calloc(n, sizeof *pds);
    if (pds == NULL) return;
    uint32_t got = n;
    o->epd2 = epd(inst, &got, pds);
    if ((o->epd2 != VK_SUCCESS && o->epd2 != VK_INCOMPLETE) || got > n) got = 0;
    o->npd = got;
    for (uint32_t i = 0; i < got && i < D_MAX_PD; i++) {
        VkPhysicalDeviceProperties p;
        memset(&p, 0, sizeof p);
        props(pds[i], &p);
        o->pd[i].vendor = p.vendorID;
        o->pd[i].device = p.deviceID;
        o->pd[i].api = p.apiVersion;
        memcpy(o->pd[i].name, p.deviceName, sizeof p.deviceName);
        o->pd[i].name[sizeof o->pd[i].name - 1] = '\0';
    }
    o->stage = ST_PHYS;

    if (w->enum_groups) {
        bool allowed = w->api_version >= VK_API_VERSION_1_1;
        for (uint32_t i = 0; i < w->app_ext_count && !allowed; i++)
            allowed = w->app_ext[i] && strcmp(w->app_ext[i], "VK_KHR_device_group_creation") == 0;
        PFN_vkEnumeratePhysicalDeviceGroups groups =
            (PFN_vkEnumeratePhysicalDeviceGroups)GIPA(inst, "vkEnumeratePhysicalDeviceGroups");
        if (allowed && groups == NULL) o->groups = D_NO_FUNCTION;
        if (allowed && groups != NULL) {
            uint32_t ng = 0;
            o->groups = groups(inst, &ng, NULL);
            if (o->groups == VK_SUCCESS && ng > 0 && ng < 1024) {
                VkPhysicalDeviceGroupProperties *g = calloc(ng, sizeof *g);
                if (g != NULL) {
                    for (uint32_t i = 0; i < ng; i++) g[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
                    uint32_t gg = ng;
                    o->groups = groups(inst, &gg, g);
                    if ((o->groups == VK_SUCCESS || o->groups == VK_INCOMPLETE) && gg <= ng) {
                        o->ngroups = gg;
                        for (uint32_t i = 0; i < gg && i < D_MAX_GROUPS; i++) {
                            o->group_size[i] =
                                (uint8_t)(g[i].physicalDeviceCount > 255 ? 255 : g[i].physicalDeviceCount);
                            for (uint32_t k = 0; k < 4; k++) {
                                o->group_member[i][k] = -1;
                                if (k >= g[i].physicalDeviceCount || k >= VK_MAX_DEVICE_GROUP_SIZE) continue;
                                for (uint32_t j = 0; j < got && j < 127; j++)
                                    if (pds[j] == g[i].physicalDevices[k]) o->group_member[i][k] = (int8_t)j;
                            }
                        }
                    }
                    free(g);
                }
            }
        }
    }

    if (got == 0) {
        free(pds);
        return;
    }
    VkPhysicalDevice pd = pds[w->pd_choice % got];
    o->device_stage = true;
    struct dev_ctx dc = {
        .fn = (PFN_vkEnumerateDeviceExtensionProperties)GIPA(inst, "vkEnumerateDeviceExtensionProperties"),
        .pd = pd,
    };
    if (dc.fn != NULL) ext_list(&o->edep, dev_edep, &dc, NULL);
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)GIPA(inst, "vkCreateDevice");
    PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)GIPA(inst, "vkGetDeviceProcAddr");
    if (w->create_device && create != NULL) {
        float prio[4] = {1.0f, 0.5f, 0.25f, 0.0f};
        VkDeviceQueueCreateInfo qci = {
            .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
            .queueFamilyIndex = w->queue_family,
            .queueCount = w->queue_count,
            .pQueuePriorities = prio,
        };
        VkDeviceCreateInfo dci = {
            .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
            .queueCreateInfoCount = 1,
            .pQueueCreateInfos = &qci,
            .enabledExtensionCount = w->dev_ext_count,
            .ppEnabledExtensionNames = (const char *const *)w->dev_ext,
        };
        VkDevice dev = VK_NULL_HANDLE;
        o->create_device = create(pd, &dci, NULL, &dev);
        if (o->create_device == VK_SUCCESS && dev != VK_NULL_HANDLE) {
            PFN_vkDestroyDevice destroy = gdpa ? (PFN_vkDestroyDevice)gdpa(dev, "vkDestroyDevice") : NULL;
            if (destroy == NULL) destroy = (PFN_vkDestroyDevice)GIPA(inst, "vkDestroyDevice");
            if (destroy != NULL) destroy(dev, NULL);
        }
    }
    o->stage = ST_DEVICE;
    free(pds);
}

static void run_app(const struct world *w, struct d_obs *o, void *lib) {
    g_gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
    if (g_gipa == NULL) _exit(3);
    PFN_vkEnumerateInstanceExtensionProperties eiep =
        (PFN_vkEnumerateInstanceExtensionProperties)GIPA(VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties");
    PFN_vkEnumerateInstanceLayerProperties eilp =
        (PFN_vkEnumerateInstanceLayerProperties)GIPA(VK_NULL_HANDLE, "vkEnumerateInstanceLayerProperties");
    PFN_vkEnumerateInstanceVersion eiv =
        (PFN_vkEnumerateInstanceVersion)GIPA(VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)GIPA(VK_NULL_HANDLE, "vkCreateInstance");
    if (eiep == NULL || eilp == NULL || eiv == NULL || create == NULL) _exit(4);

    o->eiep_layer.result = o->eiep_layer.result2 = D_NOT_RUN;
    o->create = D_NOT_RUN;
    ext_list(&o->eiep, global_eiep, (void *)eiep, NULL);
    if (w->eiep_layer != NULL) ext_list(&o->eiep_layer, global_eiep, (void *)eiep, w->eiep_layer);
    uint32_t v = 0;
    o->eiv = eiv(&v);
    {
        uint32_t n = 0;
        o->eilp.result = eilp(&n, NULL);
        o->eilp.result2 = D_NOT_RUN;
        if (o->eilp.result == VK_SUCCESS && n <= 4096) {
            VkLayerProperties *p = calloc(n + 1, sizeof *p);
            if (p != NULL) {
                uint32_t got = n;
                o->eilp.result2 = eilp(&got, p);
                if (o->eilp.result2 == VK_SUCCESS || o->eilp.result2 == VK_INCOMPLETE)
                    list_store(&o->eilp, (const char *const *)(void *)p[0].layerName, sizeof *p, got <= n ? got : n);
                free(p);
            }
        }
    }
    o->stage = ST_PRE;

    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "loader_diff_fuzzer",
        .applicationVersion = 1,
        .pEngineName = "vkl",
        .engineVersion = 1,
        .apiVersion = w->api_version,
    };
    VkDebugReportCallbackCreateInfoEXT rci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT,
        .flags = 0x1f,
        .pfnCallback = report_cb,
    };
    VkDebugUtilsMessengerCreateInfoEXT uci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .pNext = w->dbg_report_pnext ? &rci : NULL,
        .messageSeverity = w->msg_severity,
        .messageType = w->msg_types,
        .pfnUserCallback = utils_cb,
    };
    const void *pnext = w->dbg_utils_pnext ? (const void *)&uci : w->dbg_report_pnext ? (const void *)&rci : NULL;
    VkInstanceCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = pnext,
        .flags = w->inst_flags,
        .pApplicationInfo = w->app_info ? &app : NULL,
        .enabledLayerCount = w->app_layer_count,
        .ppEnabledLayerNames = (const char *const *)w->app_layer,
        .enabledExtensionCount = w->app_ext_count,
        .ppEnabledExtensionNames = (const char *const *)w->app_ext,
    };
    VkInstance inst = VK_NULL_HANDLE;
    o->create = create(&ci, NULL, &inst);
    o->stage = ST_CREATE;
    if (o->create != VK_SUCCESS || inst == VK_NULL_HANDLE) {
        o->stage = ST_DONE;
        return;
    }
    run_physdevs(w, o, inst);
    PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)GIPA(inst, "vkDestroyInstance");
    if (destroy != NULL) destroy(inst, NULL);
    o->stage = ST_DONE;
}

void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
static void child_death(void) { _exit(86); }

static void run_child(const struct world *w, int side) {
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGALRM, SIGTERM, SIGINT, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], SIG_DFL);
    /* libFuzzer's death callback would write a crash file for this (child) input */
    if (__sanitizer_set_death_callback != NULL) __sanitizer_set_death_callback(child_death);
    char log[W_PATH + 32];
    snprintf(log, sizeof log, "%s/diff_%s.log", world_root(), k_side_name[side]);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
    }
    alarm(g_timeout_s);
    void *lib = __real_dlopen(g_loader[side], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "cannot load %s: %s\n", g_loader[side], dlerror());
        _exit(2);
    }
    struct d_obs *o = &g_sh->obs[side];
    run_app(w, o, lib);
    if (side == SIDE_OURS && g_cntrs != NULL) memcpy(g_sh->cov, g_cntrs, g_sh->cov_size);
    _exit(0);
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

static char *slurp(const char *path, size_t *len) {
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
/* Explainers: the deviations of conformance/deviations/khronos.tsv, as world predicates        */

/* What an application observes, in the order the run produces it. */
enum {
    O_STATUS = 1u << 0,     /* how the child ended */
    O_PRE_EXT = 1u << 1,    /* vkEnumerateInstanceExtensionProperties(NULL) */
    O_LAYER_EXT = 1u << 2,  /* vkEnumerateInstanceExtensionProperties(layer) */
    O_PRE_LAYERS = 1u << 3, /* vkEnumerateInstanceLayerProperties */
    O_EIV = 1u << 4,        /* vkEnumerateInstanceVersion's result */
    O_CREATE = 1u << 5,     /* vkCreateInstance's result, and everything after it */
    O_PHYS = 1u << 6,       /* the physical devices, their order, groups, and everything after */
    O_DEVICE = 1u << 7,     /* device extensions, vkCreateDevice */
    O_DRIVERS = 1u << 8,    /* which drivers received vkCreateInstance / vkCreateDevice */
    O_CHAIN = 1u << 9,      /* which layers were chained, in which order */
    O_GROUPS = 1u << 10,    /* vkEnumeratePhysicalDeviceGroups */
};
#define O_ALL 0xffffffffu

typedef bool (*explain_fn)(const struct world *w, const struct d_ctx *c);

struct explainer {
    const char *name;
    const char *rule; /* active only while khronos.tsv lists this rule (NULL: always) */
    uint32_t masks;   /* observables whose difference it explains */
    explain_fn applies;
    const char *what;
};

static bool env_set(const char *name) {
    const char *v = getenv(name);
    return v != NULL && *v;
}

static bool any_driver(const struct world *w, bool (*p)(const struct w_driver *d)) {
    for (uint32_t s = 0; s < w->ndrivers; s++)
        if (p(&w->d[s])) return true;
    return false;
}
static bool any_layer(const struct world *w, bool (*p)(const struct w_layer *l)) {
    for (uint32_t i = 0; i < w->nlayers; i++)
        if (p(&w->l[i])) return true;
    return false;
}

/* A manifest the Khronos loader may fail to parse as a whole (raw bytes: anything). */
static bool d_raw(const struct w_driver *d) { return d->raw_manifest; }
static bool x_raw_manifest(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_raw);
}
static bool d_v7(const struct w_driver *d) { return world_variant(d->variant)->max_interface == 7; }
static bool x_v7(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_v7);
}
static bool d_epd_fails(const struct w_driver *d) {
    if (d->sc.misbehave & (1u << 8)) return true;
    for (uint32_t i = 0; i < d->sc.inject_count; i++)
        if (d->sc.inject[i].cmd == 4 || d->sc.inject[i].cmd == 5) return true;
    return false;
}
static bool x_epd_fails(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_epd_fails);
}
static bool x_api_above_1_0(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return w->app_info && VK_API_VERSION_MINOR(w->api_version) > 0;
}
static bool d_no_magic(const struct w_driver *d) { return d->sc.misbehave & (1u << 1); }
static bool x_no_magic(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_no_magic);
}
static bool d_negotiation_odd(const struct w_driver *d) {
    for (uint32_t i = 0; i < d->sc.inject_count; i++) /* injected into vk_icdNegotiateLoaderICDInterfaceVersion */
        if (d->sc.inject[i].cmd == 0 && d->sc.inject[i].result != VK_SUCCESS) return true;
    return (d->sc.has_negotiate_result && d->sc.negotiate_result != VK_SUCCESS) ||
           (d->sc.has_report_version && d->sc.report_version > 7);
}
static bool x_negotiation_odd(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_negotiation_odd);
}
static bool d_incompatible_above_1_0(const struct w_driver *d) { return d->sc.misbehave & (1u << 3); }
static bool x_incompatible_above_1_0(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_incompatible_above_1_0);
}
static bool l_negotiation_odd(const struct w_layer *l) { return l->misbehave & 3u; }
static bool x_layer_negotiation(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_layer(w, l_negotiation_odd);
}
static bool x_elevated(const struct world *w, const struct d_ctx *c) {
    (void)w;
    return c->elevated;
}
static bool l_disable_empty(const struct w_layer *l) { return l->implicit && l->set_disable && l->odd_values; }
static bool x_disable_empty(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_layer(w, l_disable_empty);
}
static bool l_override(const struct w_layer *l) { return l->override_layer; }
static bool x_override(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_layer(w, l_override);
}
static bool l_clobber_instance(const struct w_layer *l) { return l->misbehave & (1u << 3); }
static bool x_clobber_instance(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_layer(w, l_clobber_instance);
}
static bool l_clobber_device(const struct w_layer *l) { return l->misbehave & (1u << 4); }
static bool x_clobber_device(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_layer(w, l_clobber_device);
}
static bool l_no_call_down(const struct w_layer *l) { return l->misbehave & (1u << 5); }
static bool x_no_call_down(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_layer(w, l_no_call_down);
}
static bool x_implicit_layer_path(const struct world *w, const struct d_ctx *c) {
    (void)w, (void)c;
    /* even empty: ours then searches no implicit directory at all */
    return getenv("VK_IMPLICIT_LAYER_PATH") != NULL || getenv("VK_ADD_IMPLICIT_LAYER_PATH") != NULL;
}
static bool x_enable_with_instance_layers(const struct world *w, const struct d_ctx *c) {
    (void)w, (void)c;
    return env_set("VK_LOADER_LAYERS_ENABLE");
}
static bool x_allow(const struct world *w, const struct d_ctx *c) {
    (void)w, (void)c;
    return env_set("VK_LOADER_LAYERS_ALLOW") && env_set("VK_LOADER_LAYERS_DISABLE");
}
static bool x_device_id_filter(const struct world *w, const struct d_ctx *c) {
    (void)w, (void)c;
    return env_set("VK_LOADER_DEVICE_ID_FILTER");
}
static bool l_implicit(const struct w_layer *l) { return l->implicit; }
static bool x_instance_layers_implicit(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return env_set("VK_INSTANCE_LAYERS") && any_layer(w, l_implicit);
}
static bool l_pre_instance(const struct w_layer *l) { return l->implicit && l->pre_instance; }
static bool x_pre_instance(const struct world *w, const struct d_ctx *c) {
    (void)c;
    unsigned n = 0;
    for (uint32_t i = 0; i < w->nlayers; i++) n += l_pre_instance(&w->l[i]);
    return n >= 2;
}
static bool x_direct_driver(const struct world *w, const struct d_ctx *c) {
    (void)c;
    for (uint32_t i = 0; i < w->app_ext_count; i++)
        if (w->app_ext[i] && strcmp(w->app_ext[i], "VK_LUNARG_direct_driver_loading") == 0) return true;
    return false;
}

/* A version field of a generated manifest: the number of dot-separated numbers of its string value,
 * or -1 absent, -2 not a string, -3 a string that is not only numbers and dots. */
static int version_parts(const char *manifest, const char *key, unsigned parts[5]) {
    if (manifest == NULL) return -1;
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(manifest, pat);
    if (p == NULL) return -1;
    p += strlen(pat);
    while (*p == ' ' || *p == ':') p++;
    if (*p++ != '"') return -2;
    int n = 0;
    for (;;) {
        if (*p < '0' || *p > '9' || n == 5) return -3;
        unsigned v = 0;
        while (*p >= '0' && *p <= '9' && v < 100000u) v = v * 10u + (unsigned)(*p++ - '0');
        parts[n++] = v;
        if (*p == '"') return n;
        if (*p++ != '.') return -3;
    }
}
static int manifest_version_parts(const struct w_driver *d, const char *key, unsigned parts[5]) {
    return version_parts(d->manifest, key, parts);
}
static bool d_api_major_not_1(const struct w_driver *d) {
    unsigned v[5];
    int n = manifest_version_parts(d, "api_version", v);
    return (n == 3 && v[0] != 1) || (n == 4 && v[1] != 1);
}
static bool x_api_major_not_1(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_api_major_not_1);
}
/* "1.1", "1.0", "1.0.1 ": not "major.minor.patch" ([Drv], LDP_DRIVER_4): the Khronos loader reads them
 * leniently, ours skips the manifest. */
static bool d_api_not_3_parts(const struct w_driver *d) {
    unsigned v[5];
    int n = manifest_version_parts(d, "api_version", v);
    int f = manifest_version_parts(d, "file_format_version", v);
    return (n != -1 && n != -2 && n != 3 && n != 4) || (f != -1 && f != -2 && f != 3);
}
/* a file_format_version that is not a string (row FileFormatVersionNotString) */
static bool d_ffv_not_string(const struct w_driver *d) {
    unsigned v[5];
    return !d->raw_manifest && manifest_version_parts(d, "file_format_version", v) == -2;
}
static bool x_ffv_not_string(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_ffv_not_string);
}
static bool x_api_not_3_parts(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_api_not_3_parts);
}
static bool d_icd_array(const struct w_driver *d) {
    return !d->raw_manifest && d->manifest != NULL && strstr(d->manifest, "\"ICD\": [") != NULL;
}
static bool x_icd_array(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_icd_array);
}
/* Not a deviation: a mock that breaks LDP_DRIVER_2 on purpose (aborts in any call after it reported
 * no devices) makes the outcome depend on which calls a loader chooses to make; both are right. */
static bool d_crash_zero(const struct w_driver *d) { return (d->sc.misbehave & 1u) != 0; }
static bool x_crash_zero(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_crash_zero);
}

/* A string the Vulkan specification requires to be valid UTF-8 that holds control characters or
 * non-ASCII bytes: invalid usage (VUID-...-parameter), so any answer is allowed. The Khronos loader
 * validates such strings (VK_ERROR_EXTENSION_NOT_PRESENT / LAYER_NOT_PRESENT), ours looks them up. */
static bool odd_string(const char *s) {
    if (s == NULL) return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p >= 0x7f) return true;
    return false;
}
static bool x_odd_layer_name(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return odd_string(w->eiep_layer);
}
static bool x_odd_app_names(const struct world *w, const struct d_ctx *c) {
    (void)c;
    for (uint32_t i = 0; i < w->app_layer_count; i++)
        if (odd_string(w->app_layer[i])) return true;
    for (uint32_t i = 0; i < w->app_ext_count; i++)
        if (odd_string(w->app_ext[i])) return true;
    return false;
}
static bool x_odd_dev_names(const struct world *w, const struct d_ctx *c) {
    (void)c;
    for (uint32_t i = 0; i < w->dev_ext_count; i++)
        if (odd_string(w->dev_ext[i])) return true;
    return false;
}
/* Not a deviation (a reading): an extension nobody provides and no usable driver. The
 * specification lists both VK_ERROR_EXTENSION_NOT_PRESENT and VK_ERROR_INCOMPATIBLE_DRIVER and
 * orders neither; ours checks the extensions first, Khronos 1.3.239 the drivers. */
static bool x_ext_vs_driver(const struct world *w, const struct d_ctx *c) {
    (void)w;
    if (c->ours->create != VK_ERROR_EXTENSION_NOT_PRESENT || c->khr->create != VK_ERROR_INCOMPATIBLE_DRIVER)
        return false;
    for (uint32_t s = 0; s < W_MAX_DRIVERS; s++)
        if (c->khr->drv[s] & DRV_CI_OK) return false;
    return true;
}
static bool d_eiep_fails(const struct w_driver *d) {
    for (uint32_t i = 0; i < d->sc.inject_count; i++)
        if (d->sc.inject[i].cmd == 2 && d->sc.inject[i].result != VK_SUCCESS) return true;
    return false;
}
static bool x_eiep_fails(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_eiep_fails);
}
static bool x_same_name_layers(const struct world *w, const struct d_ctx *c) {
    (void)c;
    for (uint32_t i = 0; i < w->nlayers; i++)
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(w_layer_name(&w->l[i]), w_layer_name(&w->l[j])) == 0) return true;
    return false;
}
/* Khronos 1.3.239 sorts only when the instance can use vkGetPhysicalDeviceProperties2 (application
 * apiVersion 1.1+, or VK_KHR_get_physical_device_properties2 enabled); ours always sorts. */
static bool x_sort_without_gpdp2(const struct world *w, const struct d_ctx *c) {
    (void)c;
    if (w->app_info && VK_API_VERSION_MINOR(w->api_version) >= 1) return false;
    for (uint32_t i = 0; i < w->app_ext_count; i++)
        if (w->app_ext[i] && strcmp(w->app_ext[i], "VK_KHR_get_physical_device_properties2") == 0) return false;
    return true;
}
/* Khronos 1.3.239 dies with SIGSEGV in linux_read_sorted_physical_devices when it sorts (the
 * instance can use vkGetPhysicalDeviceProperties2) and a driver it treats as Vulkan 1.0 lacks
 * VK_KHR_get_physical_device_properties2 (seen 6 times on the GPU machine, 2026-11-26; no
 * conformance test yet). Predicate: that symptom, and a driver that may be a 1.0 one to Khronos (no
 * extension, no or failing vkEnumerateInstanceVersion, a v7 driver it uses as a legacy one). */
static bool d_maybe_1_0_or_no_gpdp2(const struct w_driver *d) {
    if ((d->sc.inst_ext_mask & 1u) == 0 || d->sc.hide_eiv || d_v7(d) || (d->sc.misbehave & (1u << 2))) return true;
    for (uint32_t i = 0; i < d->sc.pd_count && i < W_MAX_PHYSDEVS; i++) /* a Vulkan 1.0 device */
        if (VK_API_VERSION_MINOR(d->sc.pd[i].api_version) == 0) return true;
    for (uint32_t i = 0; i < d->sc.inject_count; i++) /* vkEnumerateInstanceVersion */
        if (d->sc.inject[i].cmd == 3) return true;
    return false;
}
static bool x_sort_crash(const struct world *w, const struct d_ctx *c) {
    /* the symptom: the Khronos child died with SIGSEGV between vkCreateInstance and the end of the
     * physical-device enumeration (its sort runs there) */
    return c->khr->status == 1000 + SIGSEGV && c->khr->stage == ST_CREATE && c->ours->status == 0 &&
           any_driver(w, d_maybe_1_0_or_no_gpdp2);
}

/* FRAMING.md "widen": a special file as a manifest or library, or a \u0000 escape in a manifest
 * string: the loader cannot use that manifest (world_*_unusable). */
static bool x_unusable_slot(const struct world *w, const struct d_ctx *c) {
    (void)c;
    for (uint32_t s = 0; s < w->ndrivers; s++)
        if (world_driver_unusable(&w->d[s]) || w->d[s].lib_kind != WF_REGULAR) return true;
    for (uint32_t i = 0; i < w->nlayers; i++)
        if (world_layer_unusable(&w->l[i]) || w->l[i].lib_kind != WF_REGULAR) return true;
    return false;
}
/* extra meta layers (FRAMING.md "widen"): Khronos 1.3.239 validates them by walking every path and
 * puts no bound on nesting (rows MetaScale.*) */
static bool x_extra_metas(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return w->nmetas > 0;
}

/* "is_portability_driver": "true" (a string): ours refuses the manifest ([Drv] a boolean,
 * LDP_DRIVER_4), Khronos 1.3.239 takes anything but `true` as false and loads the driver. */
static bool d_portability_not_bool(const struct w_driver *d) {
    return !d->raw_manifest && d->manifest != NULL && strstr(d->manifest, "\"is_portability_driver\": \"") != NULL;
}
static bool x_portability_not_bool(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_portability_not_bool);
}
/* A layer manifest whose file_format_version is not "major.minor.patch" (the world's "1.0"): ours
 * skips the manifest, Khronos 1.3.239 reads it (row LayerFixture.ManifestTwoPartFormatVersionIsSkipped). */
static bool l_format_not_3_parts(const struct w_layer *l) {
    unsigned v[5];
    int n = version_parts(l->manifest, "file_format_version", v);
    return n != -1 && n != 3;
}
static bool x_layer_format_not_3_parts(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_layer(w, l_format_not_3_parts);
}
/* Khronos 1.3.239 and a driver whose vkEnumeratePhysicalDeviceGroups fails: it returns that
 * driver's error to the application and loses the other drivers' groups (row
 * PhysicalDevices.DriverFailingGroupQueryDoesNotCrashOrHideDevices; driver_epd_failure masks
 * that), and in fuller worlds its vkEnumeratePhysicalDevices dies with SIGSEGV (the sorted-device
 * path reads the group array the failed call did not fill; GPU machine, 2026-11-26). Result-aware:
 * that symptom (the Khronos child killed by SIGSEGV after vkCreateInstance, in the physical-device
 * or group enumeration; ours ended normally) in a world with such a driver. */
static bool d_groups_fail(const struct w_driver *d) {
    for (uint32_t i = 0; i < d->sc.inject_count; i++)
        if (d->sc.inject[i].cmd == 5 && d->sc.inject[i].result != VK_SUCCESS) return true;
    return false;
}
static bool x_groups_fail_crash(const struct world *w, const struct d_ctx *c) {
    return c->khr->status == 1000 + SIGSEGV && (c->khr->stage == ST_CREATE || c->khr->stage == ST_PHYS) &&
           c->ours->status == 0 && any_driver(w, d_groups_fail);
}
/* Not a deviation (a reading, conformance/policies/readings.md "RULE_INST_UNKNOWN_EXT"): both
 * refused an application extension with VK_ERROR_EXTENSION_NOT_PRESENT and no driver received
 * vkCreateInstance; ours checks the extensions in its terminator, after the layers' vkCreateInstance
 * ran, Khronos 1.3.239 before building the chain. Widens no_driver_layer_chain to worlds with drivers. */
static bool x_ext_refused_after_layers(const struct world *w, const struct d_ctx *c) {
    (void)w;
    if (c->ours->create != VK_ERROR_EXTENSION_NOT_PRESENT || c->khr->create != VK_ERROR_EXTENSION_NOT_PRESENT)
        return false;
    for (uint32_t s = 0; s < W_MAX_DRIVERS; s++)
        if ((c->ours->drv[s] | c->khr->drv[s]) & DRV_CI) return false;
    return true;
}
/* Not a deviation (a reading, conformance/policies/readings.md "LLP_LOADER_3"): a name repeated in
 * VK_INSTANCE_LAYERS; ours chains the layer where the name first appears, Khronos 1.3.239 where it
 * last appears. */
static bool x_instance_layers_repeated(const struct world *w, const struct d_ctx *c) {
    (void)w, (void)c;
    const char *v = getenv("VK_INSTANCE_LAYERS");
    if (v == NULL) return false;
    for (const char *p = v; *p;) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        for (const char *q = e ? e + 1 : NULL; len > 0 && q != NULL && *q;) {
            const char *f = strchr(q, ':');
            size_t ql = f ? (size_t)(f - q) : strlen(q);
            if (ql == len && memcmp(p, q, len) == 0) return true;
            q = f ? f + 1 : NULL;
        }
        if (e == NULL) break;
        p = e + 1;
    }
    return false;
}
/* Not a deviation (a reading): no driver got vkCreateInstance and both answered
 * VK_ERROR_INCOMPATIBLE_DRIVER; whether the layers' vkCreateInstance ran first is not specified
 * (ours builds the chain and fails in its terminator, Khronos 1.3.239 fails before the chain). */
static bool x_no_driver_chain(const struct world *w, const struct d_ctx *c) {
    (void)w;
    if (c->ours->create != VK_ERROR_INCOMPATIBLE_DRIVER || c->khr->create != VK_ERROR_INCOMPATIBLE_DRIVER) return false;
    for (uint32_t s = 0; s < W_MAX_DRIVERS; s++)
        if ((c->ours->drv[s] | c->khr->drv[s]) & DRV_CI) return false;
    return true;
}

static const struct explainer k_explainers[] = {
    {"driver_group_query_fails_crash", "RULE_PHYSDEV_AGGREGATE", O_ALL, x_groups_fail_crash,
     "a driver whose vkEnumeratePhysicalDeviceGroups fails: Khronos 1.3.239 dies with SIGSEGV in "
     "vkEnumeratePhysicalDevices (fuller worlds) or returns the driver's error and loses the other drivers' groups"},
    {"layer_manifest_format_not_major_minor_patch", "RULE_LYR_MANIFEST_V1_0_0", O_ALL & ~O_STATUS,
     x_layer_format_not_3_parts,
     "a layer manifest whose file_format_version has two parts (\"1.0\"): ours skips the manifest, Khronos "
     "1.3.239 reads it and lists the layer"},
    {"sort_with_a_1_0_driver_without_properties2", "RULE_PHYSDEV_SORT", O_ALL, x_sort_crash,
     "Khronos 1.3.239 sorting the physical devices of a driver without VK_KHR_get_physical_device_properties2 "
     "(one it treats as Vulkan 1.0): SIGSEGV in linux_read_sorted_physical_devices"},
    {"manifest_portability_not_bool", "LDP_DRIVER_4", O_ALL & ~O_STATUS, x_portability_not_bool,
     "a driver manifest with \"is_portability_driver\": \"true\" (a string): ours skips the manifest, Khronos "
     "1.3.239 reads it as false and loads the driver"},
    {"extension_refused_after_layers", NULL, O_CHAIN, x_ext_refused_after_layers,
     "not a deviation (a reading): both loaders refused an application extension "
     "(VK_ERROR_EXTENSION_NOT_PRESENT) and no driver received vkCreateInstance; ours ran the layers' "
     "vkCreateInstance first (its terminator checks the extensions), Khronos 1.3.239 did not"},
    {"instance_layers_repeated_name", NULL, O_CHAIN, x_instance_layers_repeated,
     "not a deviation (a reading): a name repeated in VK_INSTANCE_LAYERS; ours chains the layer at its first "
     "place, Khronos 1.3.239 at its last"},
    {"no_driver_layer_chain", NULL, O_CHAIN, x_no_driver_chain,
     "not a deviation (a reading): no driver received vkCreateInstance and both loaders answered "
     "VK_ERROR_INCOMPATIBLE_DRIVER; ours ran the layers' vkCreateInstance first, Khronos 1.3.239 did not"},
    {"special_file_or_nul_escape", "RULE_DRV_MANIFEST_MALFORMED", O_ALL, x_unusable_slot,
     "a manifest or library that is a special file (loop, directory, dangling link, empty file) or a manifest "
     "string with a \\u0000 escape (FRAMING.md \"widen\"): Khronos 1.3.239 reports a manifest it cannot parse as "
     "out of memory for the whole call, truncates at the escape (row Adversarial.InvalidUtf8AndNulBytesInStrings)"},
    {"extra_meta_layers", "LLP_LOADER_10", O_ALL, x_extra_metas,
     "library-less meta layers in chains, ladders or cycles: Khronos 1.3.239 validates meta layers differently "
     "(rows MetaScale.*)"},
    {"invalid_usage_layer_name", NULL, O_LAYER_EXT, x_odd_layer_name,
     "not a deviation: vkEnumerateInstanceExtensionProperties with a pLayerName holding control characters or "
     "non-ASCII bytes (invalid usage; Khronos 1.3.239 answers VK_ERROR_EXTENSION_NOT_PRESENT, ours "
     "VK_ERROR_LAYER_NOT_PRESENT)"},
    {"invalid_usage_app_names", NULL, O_ALL & ~O_STATUS & ~O_PRE_EXT & ~O_LAYER_EXT & ~O_PRE_LAYERS & ~O_EIV,
     x_odd_app_names, "not a deviation: layer or extension names in VkInstanceCreateInfo that are not valid strings"},
    {"invalid_usage_device_names", NULL, O_DEVICE | O_CHAIN | O_DRIVERS, x_odd_dev_names,
     "not a deviation: extension names in VkDeviceCreateInfo that are not valid strings"},
    {"unsupported_extension_and_no_driver", NULL, O_CREATE, x_ext_vs_driver,
     "not a deviation (a reading): an extension nobody provides and no usable driver: ours answers "
     "VK_ERROR_EXTENSION_NOT_PRESENT, Khronos 1.3.239 VK_ERROR_INCOMPATIBLE_DRIVER; the specification allows both"},
    {"driver_eiep_fails", "RULE_INST_EXT_AGGREGATE", O_ALL & ~O_STATUS, x_eiep_fails,
     "a driver whose vkEnumerateInstanceExtensionProperties fails: Khronos 1.3.239 fails the whole enumeration "
     "and vkCreateInstance (VK_ERROR_INCOMPATIBLE_DRIVER) instead of taking the driver as one without extensions"},
    {"same_name_layer_manifests", "LLP_LOADER_3", O_PRE_LAYERS, x_same_name_layers,
     "two layer manifests with one name: Khronos 1.3.239 lists the name twice in vkEnumerateInstanceLayerProperties"},
    {"sort_without_properties2", "RULE_PHYSDEV_SORT", O_PHYS | O_DEVICE | O_GROUPS | O_DRIVERS | O_CHAIN,
     x_sort_without_gpdp2,
     "an instance that cannot use vkGetPhysicalDeviceProperties2 (Vulkan 1.0, no VK_KHR_get_physical_device_"
     "properties2): Khronos 1.3.239 does not sort the physical devices, ours does"},
    {"driver_breaks_LDP_DRIVER_2", NULL, O_ALL, x_crash_zero,
     "not a deviation: a mock driver with crash_with_zero_devices aborts in whatever call a loader makes after "
     "it reported no devices (Khronos 1.3.239 calls its vkEnumeratePhysicalDeviceGroups, ours does not)"},
    {"manifest_api_major_not_1", "LDP_LOADER_4", O_ALL & ~O_STATUS, x_api_major_not_1,
     "a driver manifest api_version whose major is not 1 (0.0.0, 2.0.0): Khronos 1.3.239 loads the driver"},
    {"manifest_version_not_major_minor_patch", "LDP_DRIVER_4", O_ALL & ~O_STATUS, x_api_not_3_parts,
     "a driver manifest api_version or file_format_version that is not \"major.minor.patch\" (\"1.1\", "
     "\"1.0.1 \"): Khronos 1.3.239 reads it leniently and loads the driver; ours skips the manifest"},
    {"manifest_file_format_version_not_string", "RULE_DRV_MANIFEST_MALFORMED", O_ALL & ~O_STATUS, x_ffv_not_string,
     "a driver manifest whose file_format_version is a number: Khronos 1.3.239 only warns and loads the driver"},
    {"manifest_icd_array", "RULE_DRV_MANIFEST_MALFORMED", O_ALL, x_icd_array,
     "a driver manifest whose ICD is an array of objects: Khronos 1.3.239 dies with SIGSEGV"},
    {"raw_driver_manifest", "RULE_DRV_MANIFEST_MALFORMED", O_ALL, x_raw_manifest,
     "a raw driver manifest: Khronos 1.3.239 fails the whole call (VK_ERROR_OUT_OF_HOST_MEMORY) or crashes on one "
     "it cannot parse instead of skipping the file"},
    {"interface_7_driver", "RULE_DRV_IFACE_V7", O_ALL & ~O_STATUS, x_v7,
     "a v7 mock variant: Khronos 1.3.239 never negotiates through vk_icdGetInstanceProcAddr and uses such a driver as "
     "a legacy interface-1 driver"},
    {"driver_epd_failure", "RULE_PHYSDEV_AGGREGATE", O_PHYS | O_DEVICE | O_GROUPS | O_DRIVERS, x_epd_fails,
     "a driver whose vkEnumeratePhysicalDevices(Groups) fails: Khronos 1.3.239 fails the whole enumeration"},
    {"app_api_above_1_0", "LDP_LOADER_6", O_CREATE | O_PHYS | O_DEVICE | O_GROUPS | O_DRIVERS, x_api_above_1_0,
     "the application asks for Vulkan 1.1+: Khronos 1.3.239 never checks it against the drivers' versions"},
    {"driver_incompatible_above_1_0", "LDP_LOADER_6", O_CREATE | O_PHYS | O_DEVICE | O_GROUPS | O_DRIVERS,
     x_incompatible_above_1_0, "a driver refusing any API above 1.0 (same rows as app_api_above_1_0)"},
    {"driver_without_loader_magic", "RULE_DRV_DISPATCHABLE_OBJECT", O_ALL, x_no_magic,
     "a driver whose dispatchable objects lack ICD_LOADER_MAGIC: Khronos 1.3.239 does not check it"},
    {"driver_negotiation_odd", "LDP_LOADER_5", O_ALL, x_negotiation_odd,
     "a driver whose negotiation fails (forced, or a result injected into it) or answers above 7: Khronos 1.3.239 "
     "refuses only VK_ERROR_INCOMPATIBLE_DRIVER and still uses the others"},
    {"layer_negotiation_odd", "LLP_LOADER_5", O_ALL, x_layer_negotiation,
     "a layer whose negotiation fails or answers above the offer: Khronos 1.3.239 may still load it"},
    {"elevated_world", "LLP_LOADER_13", 0, x_elevated,
     "an elevated world: Khronos 1.3.239 reads secure_getenv's answer for a real set-uid process only, so both "
     "loaders run the world unelevated (nothing to explain; the flag is recorded)"},
    {"implicit_disable_empty", "LLP_LOADER_7", O_ALL & ~O_STATUS, x_disable_empty,
     "an implicit layer's disable_environment set to the empty string: Khronos 1.3.239 disables the layer"},
    {"override_layer", "LLP_LOADER_11", O_CHAIN | O_CREATE | O_PHYS | O_DEVICE | O_GROUPS | O_DRIVERS, x_override,
     "the override meta-layer: Khronos 1.3.239 keeps its components in discovery order"},
    {"layer_clobbers_instance", "LLP_LAYER_21", O_ALL, x_clobber_instance,
     "a layer that overwrites *pInstance: Khronos 1.3.239 does not check it (SIGSEGV or a bogus handle)"},
    {"layer_clobbers_device", "LLP_LAYER_22", O_ALL, x_clobber_device,
     "a layer that overwrites *pDevice: Khronos 1.3.239 dies in vkCreateDevice"},
    {"layer_no_call_down", "RULE_GIPA_SPEC", O_ALL, x_no_call_down,
     "a layer answering vkCreateInstance without calling down: Khronos 1.3.239 returns trampolines over empty "
     "dispatch slots"},
    {"implicit_layer_path", "RULE_LYR_ENV_IMPLICIT_LAYER_PATH", O_ALL & ~O_STATUS, x_implicit_layer_path,
     "VK_IMPLICIT_LAYER_PATH / VK_ADD_IMPLICIT_LAYER_PATH set: Khronos 1.3.239 predates both"},
    {"layers_enable_order", "RULE_LYR_ORDER", O_CHAIN, x_enable_with_instance_layers,
     "VK_LOADER_LAYERS_ENABLE: Khronos 1.3.239 chains its matches before the VK_INSTANCE_LAYERS ones"},
    {"layers_allow", "RULE_LYR_FILTER_ALLOW", O_ALL & ~O_STATUS, x_allow,
     "VK_LOADER_LAYERS_ALLOW with DISABLE: Khronos 1.3.239 does not exempt the allowed layers"},
    {"device_id_filter", "RULE_PHYSDEV_ID_FILTER", O_PHYS | O_DEVICE | O_GROUPS | O_DRIVERS, x_device_id_filter,
     "VK_LOADER_DEVICE_ID_FILTER: Khronos 1.3.239 predates it"},
    {"instance_layers_implicit", "RULE_LYR_ENV_INSTANCE_LAYERS_IMPLICIT", O_ALL & ~O_STATUS, x_instance_layers_implicit,
     "VK_INSTANCE_LAYERS with implicit layers in the world: Khronos 1.3.239 neither moves nor enables the implicit "
     "layers it names"},
    {"pre_instance_order", "RULE_LYR_PRE_INSTANCE", O_PRE_EXT | O_LAYER_EXT | O_PRE_LAYERS | O_EIV, x_pre_instance,
     "two implicit layers with pre-instance functions: Khronos 1.3.239 chains them in the reverse order"},
    {"direct_driver_loading", "RULE_DRV_DIRECT_LOADING", O_ALL & ~O_STATUS, x_direct_driver,
     "the application enables VK_LUNARG_direct_driver_loading, which Khronos 1.3.239 does not implement"},
};
#define N_EXPLAINERS (sizeof k_explainers / sizeof k_explainers[0])

/* Names only one loader lists by design, dropped from both sides' lists before comparing, with the
 * rule of the deviation row that documents each (active while the row is listed). */
static const struct {
    const char *name, *rule;
} k_loader_only_names[] = {
    {"VK_LUNARG_direct_driver_loading", "RULE_DRV_DIRECT_LOADING"},
};

static bool g_active[N_EXPLAINERS];

/* ------------------------------------------------------------------------------------------ */
/* Comparison                                                                                  */

static const struct world *g_w;
static struct d_ctx g_ctx;

static void print_list(const char *what, const struct d_list *L) {
    fprintf(stderr, "    %s: result %d/%d, %u:", what, L->result, L->result2, L->count);
    for (uint32_t i = 0; i < L->count && i < D_MAX_NAMES; i++) fprintf(stderr, " %s", L->name[i]);
    fprintf(stderr, "\n");
}

static void print_status(int st) {
    if (st == 0)
        fprintf(stderr, "exited normally");
    else if (st >= 1000)
        fprintf(stderr, "killed by signal %d%s", st - 1000, st - 1000 == SIGALRM ? " (timeout)" : "");
    else
        fprintf(stderr, "exit status %d%s", st, st == 86 ? " (sanitizer report)" : "");
}

static void print_obs(int side) {
    const struct d_obs *o = &g_sh->obs[side];
    fprintf(stderr, "  %s (%s): ", k_side_name[side], g_loader[side]);
    print_status(o->status);
    fprintf(stderr, ", stage %u\n", o->stage);
    print_list("instance extensions", &o->eiep);
    if (g_w->eiep_layer) print_list("extensions of the named layer", &o->eiep_layer);
    print_list("instance layers", &o->eilp);
    fprintf(stderr, "    vkEnumerateInstanceVersion %d, vkCreateInstance %d\n", o->eiv, o->create);
    fprintf(stderr, "    vkEnumeratePhysicalDevices %d/%d, %u devices:", o->epd, o->epd2, o->npd);
    for (uint32_t i = 0; i < o->npd && i < D_MAX_PD; i++)
        fprintf(stderr, " [%x:%x %s api %u.%u]", o->pd[i].vendor, o->pd[i].device, o->pd[i].name,
                VK_API_VERSION_MAJOR(o->pd[i].api), VK_API_VERSION_MINOR(o->pd[i].api));
    fprintf(stderr, "\n    groups %d, %u:", o->groups, o->ngroups);
    for (uint32_t i = 0; i < o->ngroups && i < D_MAX_GROUPS; i++)
        fprintf(stderr, " {%u: %d %d %d %d}", o->group_size[i], o->group_member[i][0], o->group_member[i][1],
                o->group_member[i][2], o->group_member[i][3]);
    fprintf(stderr, "\n");
    if (o->device_stage) {
        print_list("device extensions", &o->edep);
        fprintf(stderr, "    vkCreateDevice %d\n", o->create_device);
    }
    fprintf(stderr, "    drivers (CI, CI ok, CD, CD ok):");
    for (uint32_t s = 0; s < g_w->ndrivers; s++) fprintf(stderr, " slot%u=%x", s, o->drv[s]);
    fprintf(stderr, "\n    instance chain:");
    for (uint32_t i = 0; i < o->nchain_inst; i++) fprintf(stderr, " %s", o->chain_inst[i]);
    fprintf(stderr, "\n    device chain:");
    for (uint32_t i = 0; i < o->nchain_dev; i++) fprintf(stderr, " %s", o->chain_dev[i]);
    fprintf(stderr, "\n");
}

static void print_log_tail(int side) {
    char p[W_PATH + 32];
    snprintf(p, sizeof p, "%s/diff_%s.log", world_root(), k_side_name[side]);
    size_t n;
    char *buf = slurp(p, &n);
    if (buf == NULL || n == 0) {
        free(buf);
        return;
    }
    const char *start = n > 3000 ? buf + n - 3000 : buf;
    fprintf(stderr, "  %s child's output (last %zu bytes):\n%s\n", k_side_name[side], strlen(start), start);
    free(buf);
}

static void print_world_summary(const struct world *w) {
    fprintf(stderr, "world: elevated(asked)=%d chdir=%d drivers=%u layers=%u api=0x%x app_info=%d\n", g_ctx.elevated,
            w->chdir_root, w->ndrivers, w->nlayers, w->api_version, w->app_info);
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        const struct w_driver *d = &w->d[s];
        fprintf(stderr, "  driver %u: variant %s, location %u, libform %u, %s, if %u..%u, misbehave 0x%x, %u devices\n",
                s, world_variant_name(d->variant), d->location, d->libform, d->raw_manifest ? "raw" : "generated",
                d->sc.if_min, d->sc.if_max, d->sc.misbehave, d->sc.pd_count);
        for (uint32_t i = 0; i < d->sc.inject_count; i++)
            fprintf(stderr, "    inject: %s -> %d\n", w_inject_cmds[d->sc.inject[i].cmd % 10], d->sc.inject[i].result);
        fprintf(stderr, "    manifest %s: %.*s\n", d->manifest_abs,
                (int)(d->manifest_len > 300 ? 300 : d->manifest_len), d->manifest ? d->manifest : "");
        char p[W_PATH + 16];
        snprintf(p, sizeof p, "%s.scenario", d->lib_abs);
        size_t n;
        char *sc = slurp(p, &n);
        if (sc) fprintf(stderr, "    scenario: %.*s\n", (int)(n > 600 ? 600 : n), sc);
        free(sc);
    }
    for (uint32_t i = 0; i < w->nlayers; i++) {
        const struct w_layer *l = &w->l[i];
        fprintf(stderr, "  layer %u: %s, variant %s, %s%s%s, location %u, misbehave 0x%x\n    manifest: %.*s\n", i,
                w_layer_name(l), world_layer_variant_name(l->variant), l->implicit ? "implicit" : "explicit",
                l->meta ? " meta" : "", l->override_layer ? " override" : "", l->location, l->misbehave,
                (int)(l->manifest_len > 400 ? 400 : l->manifest_len), l->manifest ? l->manifest : "");
    }
    fprintf(stderr, "  application: %u layers:", w->app_layer_count);
    for (uint32_t i = 0; i < w->app_layer_count; i++)
        fprintf(stderr, " %s", w->app_layer[i] ? w->app_layer[i] : "(null)");
    fprintf(stderr, "; %u extensions:", w->app_ext_count);
    for (uint32_t i = 0; i < w->app_ext_count; i++) fprintf(stderr, " %s", w->app_ext[i] ? w->app_ext[i] : "(null)");
    fprintf(stderr, "; flags 0x%x\n", w->inst_flags);
    if (w->eiep_layer)
        fprintf(stderr, "  vkEnumerateInstanceExtensionProperties layer name: \"%s\" (%zu bytes)\n", w->eiep_layer,
                strlen(w->eiep_layer));
    for (int i = 0; i < W_ENV_VARS; i++) {
        const char *v = getenv(w_env_names[i]);
        if (v) fprintf(stderr, "  %s=%s\n", w_env_names[i], v);
    }
    const char *v = getenv("VK_ADD_IMPLICIT_LAYER_PATH");
    if (v) fprintf(stderr, "  VK_ADD_IMPLICIT_LAYER_PATH=%s\n", v);
}

/* The first active explainer whose predicate holds for this world and whose masks cover `obs`. */
static const struct explainer *explained(uint32_t obs) {
    for (size_t i = 0; i < N_EXPLAINERS; i++)
        if (g_active[i] && (k_explainers[i].masks & obs) && k_explainers[i].applies(g_w, &g_ctx))
            return &k_explainers[i];
    return NULL;
}

static void finding(const char *what, uint32_t obs) __attribute__((noreturn));
static void finding(const char *what, uint32_t obs) {
    fprintf(stderr, "\n==== loader_diff_fuzzer: UNEXPLAINED DIFFERENCE [%s] (observable 0x%x)\n", what, obs);
    print_world_summary(g_w);
    for (int s = 0; s < SIDES; s++) print_obs(s);
    for (int s = 0; s < SIDES; s++) print_log_tail(s);
    fprintf(stderr, "deviations table: %s\n", g_deviations_path);
    world_remove_root();
    abort();
}

/* A difference in `obs`: explained (returns true: the caller skips what depends on it) or fatal. */
static bool differ(const char *what, uint32_t obs) {
    const struct explainer *x = explained(obs);
    if (x == NULL) finding(what, obs);
    if (g_verbose)
        fprintf(stderr, "loader_diff_fuzzer: %s differs, explained by %s (%s)\n", what, x->name,
                x->rule ? x->rule : "not a deviation");
    return true;
}

static bool name_dropped(const char *name) {
    for (size_t i = 0; i < sizeof k_loader_only_names / sizeof k_loader_only_names[0]; i++)
        if (strcmp(name, k_loader_only_names[i].name) == 0 && rule_listed(k_loader_only_names[i].rule)) return true;
    return false;
}

static bool lists_equal(const struct d_list *a, const struct d_list *b) {
    if (a->result != b->result || a->result2 != b->result2) return false;
    uint32_t i = 0, j = 0, na = a->count < D_MAX_NAMES ? a->count : D_MAX_NAMES,
             nb = b->count < D_MAX_NAMES ? b->count : D_MAX_NAMES;
    for (;;) {
        while (i < na && name_dropped(a->name[i])) i++;
        while (j < nb && name_dropped(b->name[j])) j++;
        if (i == na || j == nb) return i == na && j == nb;
        if (strcmp(a->name[i], b->name[j]) != 0) return false;
        i++, j++;
    }
}

static void compare(const struct world *w) {
    const struct d_obs *a = &g_sh->obs[SIDE_OURS], *b = &g_sh->obs[SIDE_KHR];
    g_w = w;
    g_ctx.ours = a;
    g_ctx.khr = b;
    /* our child must end cleanly whatever Khronos does, unless the world makes a mock abort */
    if (a->status != b->status) {
        differ("how the child ended", O_STATUS);
        return;
    }
    uint32_t stage = a->stage < b->stage ? a->stage : b->stage;
    if (stage >= ST_PRE) {
        if (!lists_equal(&a->eiep, &b->eiep)) differ("vkEnumerateInstanceExtensionProperties", O_PRE_EXT);
        if (w->eiep_layer && !lists_equal(&a->eiep_layer, &b->eiep_layer))
            differ("vkEnumerateInstanceExtensionProperties(layer)", O_LAYER_EXT);
        if (!lists_equal(&a->eilp, &b->eilp)) differ("vkEnumerateInstanceLayerProperties", O_PRE_LAYERS);
        if (a->eiv != b->eiv) differ("vkEnumerateInstanceVersion result", O_EIV);
    } else if (a->stage != b->stage) {
        differ("progress through the application", O_STATUS);
        return;
    }
    if (stage < ST_CREATE) return;
    if (a->create != b->create) {
        differ("vkCreateInstance result", O_CREATE);
        return;
    }
    bool chain_same = a->nchain_inst == b->nchain_inst;
    for (uint32_t i = 0; chain_same && i < a->nchain_inst; i++)
        chain_same = strcmp(a->chain_inst[i], b->chain_inst[i]) == 0;
    if (!chain_same) differ("layers chained by vkCreateInstance", O_CHAIN);
    for (uint32_t s = 0; s < w->ndrivers; s++)
        if ((a->drv[s] & (DRV_CI | DRV_CI_OK)) != (b->drv[s] & (DRV_CI | DRV_CI_OK))) {
            differ("drivers that received vkCreateInstance", O_DRIVERS);
            break;
        }
    if (a->create != VK_SUCCESS) return;
    if (stage < ST_PHYS && a->stage != b->stage) {
        differ("progress after vkCreateInstance", O_STATUS);
        return;
    }
    bool pd_same = a->epd == b->epd && a->epd2 == b->epd2 && a->npd == b->npd;
    for (uint32_t i = 0; pd_same && i < a->npd && i < D_MAX_PD; i++)
        pd_same = a->pd[i].vendor == b->pd[i].vendor && a->pd[i].device == b->pd[i].device &&
                  strcmp(a->pd[i].name, b->pd[i].name) == 0;
    if (!pd_same) {
        differ("physical devices (results, identity, order)", O_PHYS);
        return;
    }
    bool groups_same = a->groups == b->groups && a->ngroups == b->ngroups;
    for (uint32_t i = 0; groups_same && i < a->ngroups && i < D_MAX_GROUPS; i++)
        groups_same = a->group_size[i] == b->group_size[i] &&
                      memcmp(a->group_member[i], b->group_member[i], sizeof a->group_member[i]) == 0;
    if (!groups_same) differ("physical device groups", O_GROUPS);
    if (a->device_stage != b->device_stage) {
        differ("device stage reached", O_DEVICE);
        return;
    }
    if (!a->device_stage) return;
    if (!lists_equal(&a->edep, &b->edep)) differ("vkEnumerateDeviceExtensionProperties", O_DEVICE);
    if (a->create_device != b->create_device) {
        differ("vkCreateDevice result", O_DEVICE);
        return;
    }
    bool dchain_same = a->nchain_dev == b->nchain_dev;
    for (uint32_t i = 0; dchain_same && i < a->nchain_dev; i++)
        dchain_same = strcmp(a->chain_dev[i], b->chain_dev[i]) == 0;
    if (!dchain_same) differ("layers chained by vkCreateDevice", O_CHAIN);
    for (uint32_t s = 0; s < w->ndrivers; s++)
        if ((a->drv[s] & (DRV_CD | DRV_CD_OK)) != (b->drv[s] & (DRV_CD | DRV_CD_OK))) {
            differ("drivers that received vkCreateDevice", O_DRIVERS);
            break;
        }
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
    for (size_t i = 0; i < N_EXPLAINERS; i++)
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
                g_loader[SIDE_OURS], g_loader[SIDE_KHR], g_deviations_path, g_nrules, active, N_EXPLAINERS,
                g_cntrs_size);
        for (size_t i = 0; i < N_EXPLAINERS; i++)
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

/* world.c reports its own harness failures through this (app.c's, which this target does not link). */
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
