/*
 * Decoding an input into a world (fuzz/FRAMING.md), writing it to disk and the environment, and
 * undoing it (see world.h for the layout).
 */
#include "fuzz/world/world.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>

#include "fuzz/fuzz_input.h"
#include "loader/internal/env.h"

void *__real_dlopen(const char *file, int mode);

/* ------------------------------------------------------------------------------------------ */
/* Tables (FRAMING.md lists them; keep both in sync)                                          */

const char *const w_location_dirs[W_LOCATIONS] = {
    "env/files",                      /* 0: VK_DRIVER_FILES, file entry */
    "env/dir",                        /* 1: VK_DRIVER_FILES, directory entry */
    "env/icd_filenames",              /* 2: VK_ICD_FILENAMES, file entry */
    "env/add",                        /* 3: VK_ADD_DRIVER_FILES, directory entry */
    "xdg_config_home/vulkan/icd.d",   /* 4: $XDG_CONFIG_HOME */
    "xdg_config_dirs/a/vulkan/icd.d", /* 5: first $XDG_CONFIG_DIRS entry */
    "xdg_data_dirs/a/vulkan/icd.d",   /* 6: $XDG_DATA_DIRS */
    "home/.local/share/vulkan/icd.d", /* 7: $HOME/.local/share (XDG_DATA_HOME unset) */
};

const char *const w_stems[8] = {
    "mock_icd", "intel_icd.x86_64", "radeon_icd.x86_64", "lvp_icd.x86_64", "nvidia_icd", "MockDriver", "a", "mock icd"};

const char *const w_inst_ext_names[8] = {"VK_KHR_get_physical_device_properties2",
                                         "VK_KHR_surface",
                                         "VK_KHR_xcb_surface",
                                         "VK_EXT_debug_utils",
                                         "VK_KHR_portability_enumeration",
                                         "VK_KHR_device_group_creation",
                                         "VK_KHR_external_memory_capabilities",
                                         "VK_EXT_debug_report"};

const char *const w_dev_ext_names[4] = {"VK_KHR_swapchain", "VK_KHR_maintenance1", "VK_KHR_portability_subset",
                                        "VK_KHR_device_group"};

const char *const w_inject_cmds[10] = {"vk_icdNegotiateLoaderICDInterfaceVersion",
                                       "vkCreateInstance",
                                       "vkEnumerateInstanceExtensionProperties",
                                       "vkEnumerateInstanceVersion",
                                       "vkEnumeratePhysicalDevices",
                                       "vkEnumeratePhysicalDeviceGroups",
                                       "vkCreateDevice",
                                       "vkEnumerateDeviceExtensionProperties",
                                       "vkCreateDebugUtilsMessengerEXT",
                                       "vkGetPhysicalDeviceImageFormatProperties"};

const int32_t w_inject_results[8] = {VK_ERROR_INCOMPATIBLE_DRIVER,
                                     VK_ERROR_INITIALIZATION_FAILED,
                                     VK_ERROR_OUT_OF_HOST_MEMORY,
                                     VK_INCOMPLETE,
                                     VK_ERROR_EXTENSION_NOT_PRESENT,
                                     VK_ERROR_DEVICE_LOST,
                                     VK_EVENT_SET,
                                     VK_ERROR_UNKNOWN};

const char *const w_misbehave_names[9] = {"crash_with_zero_devices",        "no_loader_magic",
                                          "gpdpa_answers_everything",       "incompatible_for_any_api_above_1_0",
                                          "accept_any_api_version",         "unpublished_extension",
                                          "surface_without_interface_3",    "corrupt_other_driver",
                                          "fail_enumerate_physical_devices"};

const char *const w_env_names[W_ENV_VARS] = {"VK_DRIVER_FILES",
                                             "VK_ICD_FILENAMES",
                                             "VK_ADD_DRIVER_FILES",
                                             "VK_LOADER_DRIVERS_SELECT",
                                             "VK_LOADER_DRIVERS_DISABLE",
                                             "HOME",
                                             "XDG_CONFIG_HOME",
                                             "XDG_CONFIG_DIRS",
                                             "XDG_DATA_HOME",
                                             "XDG_DATA_DIRS",
                                             "VK_LAYER_PATH",
                                             "VK_ADD_LAYER_PATH",
                                             "VK_IMPLICIT_LAYER_PATH",
                                             "VK_LOADER_LAYERS_ENABLE",
                                             "VK_LOADER_LAYERS_DISABLE",
                                             "VK_INSTANCE_LAYERS",
                                             "VK_LOADER_LAYERS_ALLOW",
                                             "VK_LOADER_DEVICE_ID_FILTER"};

const char *const w_layer_location_dirs[W_LAYER_LOCATIONS] = {
    "env/layer_path",           /* 0: VK_LAYER_PATH / VK_IMPLICIT_LAYER_PATH */
    "env/add_layer_path",       /* 1: VK_ADD_LAYER_PATH / VK_ADD_IMPLICIT_LAYER_PATH */
    "xdg_config_home/vulkan",   /* 2: $XDG_CONFIG_HOME */
    "xdg_config_dirs/a/vulkan", /* 3: first $XDG_CONFIG_DIRS entry */
    "xdg_data_dirs/a/vulkan",   /* 4: $XDG_DATA_DIRS */
    "home/.local/share/vulkan", /* 5: $HOME/.local/share */
};

const char *const w_layer_names[W_LAYER_NAMES] = {"VK_LAYER_FUZZ_a", "VK_LAYER_FUZZ_b", "VK_LAYER_FUZZ_c",
                                                  "VK_LAYER_FUZZ_d", "VK_LAYER_FUZZ_e", "VK_LAYER_FUZZ_f",
                                                  "VK_LAYER_FUZZ_g", "VK_LAYER_FUZZ_h"};
const char *g_world_fuzzer_name = "loader_world_fuzzer";

const char *const w_layer_misbehave_names[8] = {
    "fail_negotiation", "negotiate_version", "no_advance_link",         "clobber_instance",
    "clobber_device",   "no_call_down",      "fail_unknown_extensions", "return_disabled_functions"};

const char *w_layer_name(const struct w_layer *l) {
    return l->override_layer ? W_OVERRIDE_LAYER_NAME : w_layer_names[l->name % W_LAYER_NAMES];
}

/* The mock layer variants the world uses: the rows of mock_layers/variants.bzl built from
 * mock_layer.c (not the chassis rows, nor those without vkGetDeviceProcAddr), sorted by name (mock_variants.h keeps
 * that order); missing ones are skipped. */
#define ALL_LAYER_VARIANTS VKL_MOCK_LAYER_VARIANT_COUNT
static const struct vkl_mock_layer_variant *g_layer_variants[ALL_LAYER_VARIANTS];
static size_t g_layer_variant_count;
static char g_mock_layer_dir[W_PATH];
static int g_layer_slot_variant[W_MAX_LAYERS];
static char *g_extra_env_buf[W_LAYER_EXTRA_ENV];
/* Rows without vkGetDeviceProcAddr are left out: the chain oracle expects every layer of a
 * well-behaved chain in the device chain. */
static bool world_layer_row(const struct vkl_mock_layer_variant *r) { return !r->chassis && r->has_gdpa; }

/* The mock driver variants the world uses, in the order of mock_icd/variants.bzl (mock_variants.h):
 * the rows a loader can use through a manifest (vk_icdGetInstanceProcAddr exported, or an
 * interface-0 driver exporting vkGetInstanceProcAddr without negotiation). Rows linked with
 * -Bsymbolic are left out: they behave like their plain row, and adding them would change which
 * variant every stored input decodes to. Those missing from the mock directory are skipped. */
#define ALL_VARIANTS VKL_MOCK_ICD_VARIANT_COUNT
static bool world_icd_row(const struct vkl_mock_icd_variant *r) {
    return (r->icd_gipa || (r->vk == VKL_MOCK_ICD_VK_V0 && !r->negotiate)) && !r->symbolic;
}

static const struct vkl_mock_icd_variant *g_variants[ALL_VARIANTS];
static size_t g_variant_count;
static char g_mock_dir[W_PATH];
static char g_root[W_PATH]; /* R */
static char g_root_real[W_PATH];
static char g_wdir[W_PATH]; /* R/w */
static int g_cwd_fd = -1;
static int g_slot_variant[W_MAX_DRIVERS];
static char *g_env_buf[W_ENV_VARS];
static uint64_t g_generation;

const char *world_root(void) { return g_root_real; }
const char *world_dir(void) { return g_wdir; }
size_t world_variant_count(void) { return g_variant_count; }
const char *world_variant_name(uint32_t v) { return v < g_variant_count ? g_variants[v]->name : "?"; }
size_t world_layer_variant_count(void) { return g_layer_variant_count; }
const char *world_layer_variant_name(uint32_t v) { return v < g_layer_variant_count ? g_layer_variants[v]->name : "?"; }
/* An index out of range (a corrupt slot) reads as the first row, never as NULL. */
const struct vkl_mock_icd_variant *world_variant(uint32_t v) {
    return v < g_variant_count ? g_variants[v] : &vkl_mock_icd_variants[0];
}
const struct vkl_mock_layer_variant *world_layer_variant(uint32_t v) {
    return v < g_layer_variant_count ? g_layer_variants[v] : &vkl_mock_layer_variants[0];
}

/* ------------------------------------------------------------------------------------------ */
/* Small file helpers                                                                          */

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: harness error: ", g_world_fuzzer_name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort(); /* a harness failure must not pass silently */
}

static void pathf(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pathf(char *out, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, W_PATH, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= W_PATH) die("path too long");
}

static void mkdir_p(const char *path) {
    char tmp[W_PATH];
    pathf(tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) die("mkdir %s: %s", tmp, strerror(errno));
        *p = '/';
    }
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) die("mkdir %s: %s", tmp, strerror(errno));
}

static void write_file(const char *path, const void *data, size_t len) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) die("open %s: %s", path, strerror(errno));
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            die("write %s: %s", path, strerror(errno));
        }
        p += n;
        len -= (size_t)n;
    }
    close(fd);
}

static void copy_file(const char *from, const char *to) {
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0) die("open %s: %s", from, strerror(errno));
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    if (out < 0) die("open %s: %s", to, strerror(errno));
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) die("read %s: %s", from, strerror(errno));
        if (n == 0) break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) die("write %s: %s", to, strerror(errno));
            off += w;
        }
    }
    close(in);
    close(out);
}

static int rm_cb(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void rm_rf(const char *path) { nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS); }

static bool exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Start-up                                                                                    */

static bool mock_dir_ok(const char *dir) {
    char p[W_PATH];
    pathf(p, "%s/libmock_icd_v7.so", dir);
    return exists(p);
}

static bool find_mock_dir(void) {
    const char *env = getenv("VKL_FUZZ_MOCK_DIR");
    if (env != NULL && *env) {
        pathf(g_mock_dir, "%s", env);
        return mock_dir_ok(g_mock_dir);
    }
    char exe[W_PATH];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    char exedir[W_PATH];
    pathf(exedir, "%s", exe);
    char *slash = strrchr(exedir, '/');
    if (slash) *slash = '\0';
    const char *rf = getenv("RUNFILES_DIR");
    const char *ts = getenv("TEST_SRCDIR");
    char cand[8][W_PATH];
    int c = 0;
    /* Bazel: the fuzzer's own mock build (//fuzz:fuzz_mock_icds) in its runfiles */
    pathf(cand[c++], "%s.runfiles/vk_loader_harness/fuzz/fuzz_mock_icds", exe);
    pathf(cand[c++], "%s/vk_loader_harness/fuzz/fuzz_mock_icds", rf ? rf : "/nonexistent");
    pathf(cand[c++], "%s/vk_loader_harness/fuzz/fuzz_mock_icds", ts ? ts : "/nonexistent");
    pathf(cand[c++], "%s/fuzz_mock_icds", exedir); /* bazel-bin/fuzz/ */
    pathf(cand[c++], "fuzz/fuzz_mock_icds");       /* a Bazel test's working directory */
    pathf(cand[c++], "%s/vkl_mock_icd", exedir);   /* OSS-Fuzz / ClusterFuzzLite: $OUT/vkl_mock_icd */
    for (int i = 0; i < c; i++) {
        if (mock_dir_ok(cand[i])) {
            char *real = realpath(cand[i], NULL);
            pathf(g_mock_dir, "%s", real ? real : cand[i]);
            free(real);
            return true;
        }
    }
    return false;
}

/* The mock layers: VKL_FUZZ_MOCK_LAYER_DIR, or next to the mock drivers' directory
 * (fuzz_mock_layers beside fuzz_mock_icds, vkl_mock_layer beside vkl_mock_icd). */
static bool find_mock_layer_dir(void) {
    const char *env = getenv("VKL_FUZZ_MOCK_LAYER_DIR");
    char cand[3][W_PATH];
    int c = 0;
    if (env != NULL && *env) pathf(cand[c++], "%s", env);
    char parent[W_PATH];
    pathf(parent, "%s", g_mock_dir);
    char *slash = strrchr(parent, '/');
    if (slash) *slash = '\0';
    pathf(cand[c++], "%s/fuzz_mock_layers", parent);
    pathf(cand[c++], "%s/vkl_mock_layer", parent);
    for (int i = 0; i < c; i++) {
        char p[W_PATH];
        pathf(p, "%s/libmock_layer_v2_all.so", cand[i]);
        if (exists(p)) {
            pathf(g_mock_layer_dir, "%s", cand[i]);
            return true;
        }
    }
    return false;
}

static pid_t g_root_pid; /* the process that created R: only it removes R */

static void remove_root(void) {
    if (g_root[0] && g_root_pid == getpid()) rm_rf(g_root);
}

/* R for this process. AFL++'s fork server initialises once and forks a child per run (or per
 * persistent-mode batch); a child that crashed used to remove the shared R under its siblings, whose
 * next worlds then lacked lib/ (spurious "harness error" aborts saved as crashes). Each process now
 * builds in its own R and removes only that one. */
/* Where R goes: $TMPDIR when set; else /dev/shm when it is a writable tmpfs with room for a few
 * worlds (every input rebuilds its world: 10-20x faster on a tmpfs than on a disk, docs/fuzzing.md;
 * OSS-Fuzz and ClusterFuzzLite set no TMPDIR); else /tmp. Docker's default 64 MB /dev/shm is too
 * small to count. */
static const char *world_tmp_base(void) {
    const char *tmp = getenv("TMPDIR");
    if (tmp && *tmp) return tmp;
    struct statfs fs;
    if (statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC && access("/dev/shm", W_OK | X_OK) == 0 &&
        (unsigned long long)fs.f_bavail * (unsigned long long)fs.f_bsize >= (128ull << 20))
        return "/dev/shm";
    return "/tmp";
}

static void make_root(void) {
    pathf(g_root, "%s/vkl-world-XXXXXX", world_tmp_base());
    if (mkdtemp(g_root) == NULL) die("mkdtemp %s: %s", g_root, strerror(errno));
    g_root_pid = getpid();
    char *real = realpath(g_root, NULL);
    pathf(g_root_real, "%s", real ? real : g_root);
    free(real);
    pathf(g_wdir, "%s/w", g_root_real);
    char lib[W_PATH];
    pathf(lib, "%s/lib", g_root_real);
    mkdir_p(lib);
    for (int i = 0; i < W_MAX_DRIVERS; i++) g_slot_variant[i] = -1;
    for (int i = 0; i < W_MAX_LAYERS; i++) g_layer_slot_variant[i] = -1;
}

void world_remove_root(void) { remove_root(); }

bool world_init(const char *argv0) {
    (void)argv0;
    if (!find_mock_dir()) {
        fprintf(stderr,
                "%s: cannot find the mock drivers (libmock_icd_v7.so); set "
                "VKL_FUZZ_MOCK_DIR to the directory holding libmock_icd_<variant>.so\n",
                g_world_fuzzer_name);
        return false;
    }
    for (size_t i = 0; i < ALL_VARIANTS; i++) {
        char p[W_PATH];
        if (!world_icd_row(&vkl_mock_icd_variants[i])) continue;
        pathf(p, "%s/libmock_icd_%s.so", g_mock_dir, vkl_mock_icd_variants[i].name);
        if (exists(p)) g_variants[g_variant_count++] = &vkl_mock_icd_variants[i];
    }
    if (find_mock_layer_dir()) {
        for (size_t i = 0; i < ALL_LAYER_VARIANTS; i++) {
            char p[W_PATH];
            if (!world_layer_row(&vkl_mock_layer_variants[i])) continue;
            pathf(p, "%s/libmock_layer_%s.so", g_mock_layer_dir, vkl_mock_layer_variants[i].name);
            if (exists(p)) g_layer_variants[g_layer_variant_count++] = &vkl_mock_layer_variants[i];
        }
    } else {
        fprintf(stderr,
                "%s: no mock layers found (libmock_layer_v2_all.so; set "
                "VKL_FUZZ_MOCK_LAYER_DIR): worlds run without their layers\n",
                g_world_fuzzer_name);
    }
    make_root();
    g_cwd_fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    atexit(remove_root);
    return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Decoding (FRAMING.md)                                                                       */

static char *str8(struct fz_in *in) {
    size_t n;
    const uint8_t *p = fz_str8(in, &n);
    return fz_cstr(p, n);
}

static uint32_t version_from(uint8_t a) {
    /* bits 0-1 minor 0..3, bit 2: patch 0 or 204, bits 3-7 == 31: a raw odd value */
    if ((a >> 3) == 31) return 0x00400000u | ((uint32_t)a << 24); /* variant/major garbage */
    return VK_MAKE_API_VERSION(0, 1, a & 3, (a & 4) ? 204 : 0);
}

static void decode_scenario(struct fz_in *in, struct w_scenario *sc) {
    uint8_t iface = fz_u8(in);
    sc->if_min = (iface & 0x0f) % 9;
    sc->if_max = (iface >> 4) % 9;
    if (sc->if_max == 0 && sc->if_min == 0) sc->if_max = 7; /* the common case: any */
    uint8_t f = fz_u8(in);
    sc->has_negotiate_result = f & 1;
    sc->has_report_version = f & 2;
    sc->hide_eiv = f & 4;
    sc->record_lookups = f & 8;
    sc->groups = f & 16;
    bool dev_funcs = f & 32, pd_funcs = f & 64;
    if (sc->has_negotiate_result) sc->negotiate_result = w_inject_results[fz_pick(in, 8)];
    if (sc->has_report_version) sc->report_version = fz_u8(in) % 10;
    sc->api_version = version_from(fz_u8(in));
    sc->inst_ext_mask = fz_u8(in);
    sc->pd_count = fz_pick(in, W_MAX_PHYSDEVS + 1);
    for (uint32_t i = 0; i < sc->pd_count; i++) {
        uint8_t d = fz_u8(in);
        sc->pd[i].api_version = VK_MAKE_API_VERSION(0, 1, d & 3, 0);
        sc->pd[i].ext_mask = (d >> 2) & 15;
        sc->pd[i].families = 1 + (d >> 6);
    }
    sc->inject_count = fz_pick(in, W_MAX_INJECT + 1);
    for (uint32_t i = 0; i < sc->inject_count; i++) {
        sc->inject[i].cmd = (uint8_t)fz_pick(in, 10);
        sc->inject[i].result = w_inject_results[fz_pick(in, 8)];
    }
    sc->misbehave = fz_u16(in) & 0x1ff;
    sc->dev_funcs = dev_funcs ? 1 + fz_pick(in, 3) : 0;
    sc->pd_funcs = pd_funcs ? 1 + fz_pick(in, 3) : 0;
}

static void decode_widen(struct fz_in *in, struct world *w);

void world_decode(const uint8_t *data, size_t size, struct world *w) {
    struct fz_in in = {data, size};
    memset(w, 0, sizeof(*w));
    uint8_t flags = fz_u8(&in);
    w->elevated = flags & 1;
    w->chdir_root = flags & 2;
    w->use_allocator = flags & 4;
    w->dbg_utils_pnext = flags & 8;
    w->dbg_report_pnext = flags & 16;
    w->app_info = flags & 32;
    w->enum_groups = flags & 64;
    w->create_device = flags & 128;
    w->ndrivers = fz_pick(&in, W_MAX_DRIVERS + 1);
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        struct w_driver *d = &w->d[s];
        d->variant = fz_pick(&in, (uint32_t)g_variant_count);
        uint8_t place = fz_u8(&in);
        d->location = place & 7;
        d->libform = (place >> 3) & 3;
        d->stem = place >> 5;
        uint8_t mode = fz_u8(&in);
        d->raw_manifest = mode & 1;
        if (d->raw_manifest) {
            size_t n;
            const uint8_t *p = fz_str16(&in, &n);
            d->manifest = malloc(n + 1);
            if (d->manifest) {
                memcpy(d->manifest, p, n);
                d->manifest[n] = '\0';
                d->manifest_len = n;
            }
        } else {
            /* generated: three option bytes, kept in the manifest field until build time */
            d->manifest = malloc(4);
            if (d->manifest) {
                d->manifest[0] = (char)fz_u8(&in);
                d->manifest[1] = (char)fz_u8(&in);
                d->manifest[2] = (char)fz_u8(&in);
                d->manifest[3] = '\0';
                d->manifest_len = 3;
            }
        }
        decode_scenario(&in, &d->sc);
    }
    uint32_t nenv = fz_pick(&in, 8);
    for (uint32_t i = 0; i < nenv; i++) {
        uint32_t v = fz_pick(&in, W_ENV_VARS);
        uint32_t mode = fz_pick(&in, 4);
        free(w->env_value[v]);
        w->env_value[v] = NULL;
        if (mode == 0) {
            w->env_mode[v] = W_ENV_UNSET;
        } else if (mode == 1) {
            w->env_mode[v] = W_ENV_EMPTY;
        } else if (mode == 2) {
            /* a ':' list of world locations; stored as "\x01<mask>" and expanded at build time */
            w->env_mode[v] = W_ENV_VALUE;
            w->env_value[v] = malloc(3);
            if (w->env_value[v]) {
                w->env_value[v][0] = '\x01';
                w->env_value[v][1] = (char)(fz_u8(&in) | 0); /* may be 0: an empty list */
                w->env_value[v][2] = '\0';
            }
        } else {
            w->env_mode[v] = W_ENV_VALUE;
            w->env_value[v] = str8(&in);
        }
    }
    /* application */
    uint8_t api = fz_u8(&in);
    static const uint32_t apis[6] = {0,
                                     VK_API_VERSION_1_0,
                                     VK_API_VERSION_1_1,
                                     VK_API_VERSION_1_2,
                                     VK_API_VERSION_1_3,
                                     VK_MAKE_API_VERSION(0, 1, 4, 0)};
    w->api_version = api < 6 ? apis[api] : api < 250 ? apis[api % 6] : fz_u32(&in);
    uint8_t iflags = fz_u8(&in);
    w->inst_flags =
        ((iflags & 1) ? VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR : 0) | ((iflags & 0x80) ? 0x10u : 0);
    w->app_ext_count = fz_pick(&in, W_MAX_APP_EXTS + 1);
    for (uint32_t i = 0; i < w->app_ext_count; i++) {
        uint8_t e = fz_u8(&in);
        if (e < 8)
            w->app_ext[i] = strdup(w_inst_ext_names[e]);
        else if (e < 0xf0)
            w->app_ext[i] = strdup(e % 3 == 0   ? "VK_MOCK_unpublished_extension"
                                   : e % 3 == 1 ? "VK_KHR_wayland_surface"
                                                : w_inst_ext_names[e % 8]);
        else
            w->app_ext[i] = str8(&in);
    }
    w->app_layer_count = fz_pick(&in, W_WORLD_APP_LAYERS + 1);
    for (uint32_t i = 0; i < w->app_layer_count; i++) w->app_layer[i] = str8(&in);
    uint8_t q = fz_u8(&in);
    if (q & 1) w->eiep_layer = str8(&in);
    w->eiep_short = q & 2;
    w->pd_short = q & 4;
    w->devext_with_layer = q & 8;
    w->app_messenger = q & 16;
    w->unknown_physdev_calls = q & 32;
    w->unknown_device_calls = q & 64;
    w->pd_choice = fz_u8(&in);
    w->queue_family = fz_u8(&in) % 6;
    w->queue_count = 1 + fz_pick(&in, 3);
    w->dev_ext_count = fz_pick(&in, W_MAX_DEV_EXTS + 1);
    for (uint32_t i = 0; i < w->dev_ext_count; i++) {
        uint8_t e = fz_u8(&in);
        w->dev_ext[i] = e < 0xf0 ? strdup(w_dev_ext_names[e % 4]) : str8(&in);
    }
    w->alloc_fail_at = fz_u8(&in);
    uint8_t m = fz_u8(&in);
    w->msg_severity =
        (m & 15)
            ? (uint32_t)(((m & 1) ? 0x1 : 0) | ((m & 2) ? 0x10 : 0) | ((m & 4) ? 0x100 : 0) | ((m & 8) ? 0x1000 : 0))
            : 0x1111u;
    w->msg_types = (m >> 4) & 15 ? (m >> 4) & 15 : 7;
    w->lookup_name = str8(&in);
    /* layers (FRAMING.md): after the application, so inputs without them have none */
    w->nlayers = fz_pick(&in, W_WORLD_LAYERS + 1);
    for (uint32_t i = 0; i < w->nlayers; i++) world_decode_layer(&in, &w->l[i], false);
    /* Without the mock layers (an old bundle) the world has none. */
    if (g_layer_variant_count == 0) w->nlayers = 0;
    w->ndecoded = w->ndrivers;
    for (uint32_t s = 0; s < W_MAX_DRIVERS; s++) w->d[s].clone_of = -1;
    /* malloc failures, then the widening: trailing, so every older input decodes as before */
    world_decode_mfail(&in, w);
    decode_widen(&in, w);
}

void world_decode_mfail(struct fz_in *in, struct world *w) {
    w->mfail_count = fz_pick(in, W_MAX_MFAIL + 1);
    for (uint32_t i = 0; i < w->mfail_count; i++) {
        uint8_t c = fz_u8(in);
        uint16_t nth = fz_u16(in);
        w->mfail[i].call = (uint8_t)((c & 15) < WC_COUNT ? (c & 15) : WC_ANY);
        w->mfail[i].from_on = c & 0x80;
        w->mfail[i].nth = nth ? nth : 1;
    }
}

void world_meta_name(uint32_t k, char out[24]) { snprintf(out, 24, "VK_LAYER_FUZZ_m%02u", k % 100); }

bool world_driver_unusable(const struct w_driver *d) {
    return d->manifest_kind != WF_REGULAR && d->manifest_kind != WF_LINK ? true : d->raw_manifest ? false : d->nul != 0;
}

bool world_layer_unusable(const struct w_layer *l) {
    return (l->manifest_kind != WF_REGULAR && l->manifest_kind != WF_LINK) || l->nul != 0;
}

/* FRAMING.md "widen": driver clones, special files, extra meta layers, \u0000 escapes, a surface. */
static void decode_widen(struct fz_in *in, struct world *w) {
    uint32_t clones = fz_pick(in, W_MAX_DRIVERS - W_WORLD_DRIVERS + 1);
    if (w->ndecoded == 0) clones = 0;
    for (uint32_t k = 0; k < clones && w->ndrivers < W_MAX_DRIVERS; k++) {
        uint32_t from = k % w->ndecoded, s = w->ndrivers++;
        struct w_driver *d = &w->d[s];
        *d = w->d[from];
        d->clone_of = (int)from;
        d->manifest = malloc(w->d[from].manifest_len + 1);
        if (d->manifest) memcpy(d->manifest, w->d[from].manifest, w->d[from].manifest_len + 1);
    }
    uint32_t nft = fz_pick(in, 9);
    for (uint32_t i = 0; i < nft; i++) {
        uint8_t t = fz_u8(in), kind = (uint8_t)fz_pick(in, WF_KINDS);
        bool layer = t & 0x80, lib = t & 0x40;
        uint32_t n = layer ? w->nlayers : w->ndrivers;
        if (n == 0) continue;
        uint32_t slot = (t & 15) % n;
        if (layer) {
            if (lib)
                w->l[slot].lib_kind = kind;
            else
                w->l[slot].manifest_kind = kind;
        } else {
            if (lib)
                w->d[slot].lib_kind = kind;
            else
                w->d[slot].manifest_kind = kind;
        }
    }
    w->nmetas = fz_pick(in, W_MAX_EXTRA_METAS + 1);
    if (w->nmetas > 0) {
        w->meta_shape = fz_u8(in);
        w->meta_leaf = fz_u8(in);
        if ((w->meta_shape & 3) == 3)
            for (uint32_t k = 0; k < w->nmetas; k++) w->meta_masks[k] = fz_u8(in);
    }
    uint32_t nnul = fz_pick(in, 5);
    for (uint32_t i = 0; i < nnul; i++) {
        uint8_t t = fz_u8(in);
        uint8_t where = (uint8_t)((t >> 4) & 3 ? (t >> 4) & 3 : 1);
        bool layer = t & 0x80;
        uint32_t n = layer ? w->nlayers : w->ndrivers;
        if (n == 0) continue;
        if (layer)
            w->l[(t & 15) % n].nul = where;
        else
            w->d[(t & 15) % n].nul = where;
    }
    w->surface = fz_u8(in) & 1;
    /* the surface needs VK_KHR_surface and VK_KHR_xcb_surface (table entries 1 and 2) */
    for (int e = 1; e <= 2 && w->surface; e++) {
        bool have = false;
        for (uint32_t i = 0; i < w->app_ext_count; i++)
            have |= w->app_ext[i] && strcmp(w->app_ext[i], w_inst_ext_names[e]) == 0;
        if (have) continue;
        if (w->app_ext_count == W_MAX_APP_EXTS) {
            w->surface = false;
            break;
        }
        w->app_ext[w->app_ext_count++] = strdup(w_inst_ext_names[e]);
    }
}

void world_decode_layer(struct fz_in *in, struct w_layer *l, bool wide) {
    l->variant = fz_pick(in, (uint32_t)(g_layer_variant_count ? g_layer_variant_count : 1));
    uint8_t place = fz_u8(in);
    l->location = (place & 7) % W_LAYER_LOCATIONS;
    l->libform = (place >> 3) & 3;
    uint8_t kind = fz_u8(in);
    l->implicit = kind & 1;
    l->meta = kind & 2;
    l->override_layer = kind & 4;
    if (l->override_layer) l->implicit = l->meta = true;
    l->has_enable_env = kind & 8;
    l->has_disable_env = kind & 16;
    l->set_enable = kind & 32;
    l->set_disable = kind & 64;
    l->odd_values = kind & 128;
    uint8_t fmt = fz_u8(in);
    l->fmt_version = fmt & 7;
    l->layers_array = fmt & 8;
    l->api_minor = (fmt >> 4) & 3;
    l->pre_instance = fmt & 64;
    l->renames = fmt & 128;
    l->name = fz_pick(in, wide ? W_LAYER_NAMES : W_WORLD_LAYER_NAMES);
    uint8_t comps = fz_u8(in);
    l->components = wide && !l->override_layer ? comps : comps & 15;
    l->blacklist = comps >> 4;
    uint8_t mb = fz_u8(in);
    /* wide: bit 7 clear = well-behaved; else switch mb & 7, and with bit 6 also (mb >> 3) & 7 */
    l->misbehave = !wide          ? mb
                   : !(mb & 0x80) ? 0
                                  : (uint8_t)((1u << (mb & 7)) | ((mb & 0x40) ? 1u << ((mb >> 3) & 7) : 0));
    uint8_t sf = fz_u8(in);
    l->wrap_handles = sf & 1;
    l->pre_add_extension = sf & 4;
    l->pre_add_layer = sf & 8;
    l->pre_no_call_down = sf & 16;
    l->negotiate_version = sf >> 6;
}

void world_free(struct world *w) {
    for (uint32_t s = 0; s < W_MAX_DRIVERS; s++) free(w->d[s].manifest);
    for (uint32_t i = 0; i < W_MAX_LAYERS; i++) free(w->l[i].manifest);
    for (int i = 0; i < W_ENV_VARS; i++) free(w->env_value[i]);
    for (uint32_t i = 0; i < W_MAX_APP_EXTS; i++) free(w->app_ext[i]);
    for (uint32_t i = 0; i < W_MAX_APP_LAYERS; i++) free(w->app_layer[i]);
    for (uint32_t i = 0; i < W_MAX_DEV_EXTS; i++) free(w->dev_ext[i]);
    free(w->eiep_layer);
    free(w->lookup_name);
    memset(w, 0, sizeof(*w));
}

/* ------------------------------------------------------------------------------------------ */
/* A growable string                                                                           */

struct sb {
    char *p;
    size_t n, cap;
};

static void sb_add(struct sb *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 256) + n;
        char *p = realloc(b->p, cap);
        if (p == NULL) die("out of memory");
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}
static void sb_s(struct sb *b, const char *s) { sb_add(b, s, strlen(s)); }
static void sb_f(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_f(struct sb *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    sb_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}
/* JSON string literal */
static void sb_q(struct sb *b, const char *s) {
    sb_s(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            sb_f(b, "\\%c", c);
        else if (c < 0x20)
            sb_f(b, "\\u%04x", c);
        else
            sb_add(b, (const char *)&c, 1);
    }
    sb_s(b, "\"");
}

/* A JSON string literal whose value ends in an escaped NUL (a "\u0000" escape) and `tail`: a
 * C reader that stops at the NUL sees only `s` (issue 19, defect 5). */
static void sb_q_nul(struct sb *b, const char *s, const char *tail) {
    sb_q(b, s);
    b->n--; /* drop the closing quote */
    b->p[b->n] = '\0';
    sb_s(b, "\\u0000");
    sb_s(b, tail);
    sb_s(b, "\"");
}

/* ------------------------------------------------------------------------------------------ */
/* Building                                                                                    */

/* A world path as the loader should see it: absolute, or relative to R in chdir mode. */
static void wpath(const struct world *w, char *out, const char *rel) {
    if (w->chdir_root)
        pathf(out, "w/%s", rel);
    else
        pathf(out, "%s/%s", g_wdir, rel);
}

static void gen_manifest(struct w_driver *d, struct sb *b) {
    uint8_t fmt = (uint8_t)d->manifest[0], api = (uint8_t)d->manifest[1], opt = (uint8_t)d->manifest[2];
    static const char *const fmts[8] = {"\"1.0.0\"", "\"1.0.1\"", "\"1.1.0\"", "\"1.0\"",
                                        "\"2.0.0\"", NULL,        "1",         "\"1.0.1 \""};
    sb_s(b, "{");
    if (fmts[fmt & 7]) sb_f(b, "\"file_format_version\": %s, ", fmts[fmt & 7]);
    if (opt & 0x10) sb_s(b, "\"vkl_fuzz_unknown\": {\"a\": [1, 2, null]}, ");
    if (d->nul == 2) sb_s(b, "\"ICD\\u0000x\": ");
    sb_s(b, (opt & 0x80) ? (d->nul == 2 ? "[{" : "\"ICD\": [{") : (d->nul == 2 ? "{" : "\"ICD\": {"));
    if (!(opt & 0x40)) {
        sb_s(b, "\"library_path\": ");
        if (d->nul == 1)
            sb_q_nul(b, d->lib_ref, "/nonexistent/evil.so");
        else
            sb_q(b, d->lib_ref);
        sb_s(b, ", ");
    }
    if (opt & 0x20) sb_s(b, "\"library_path\": \"/nonexistent/first_key_wins.so\", ");
    switch ((api >> 3) & 3) {
        case 0: sb_f(b, "\"api_version\": \"1.%u.%u\"", api & 7, (api >> 5) * 37); break;
        case 1: sb_f(b, "\"api_version\": \"0.1.%u.0\"", api & 7); break;
        case 2: sb_f(b, "\"api_version\": \"%u.0.0\"", (api & 1) ? 2 : 0); break;
        default: sb_f(b, "\"api_version\": \"1.%u\"", api & 7); break;
    }
    if (d->nul == 3) { /* "1.m.p\u0000" */
        b->n--;
        b->p[b->n] = '\0';
        sb_s(b, "\\u0000\"");
    }
    static const char *const arch[4] = {NULL, "\"64\"", "\"32\"", "\"amd64\""};
    if (arch[opt & 3]) sb_f(b, ", \"library_arch\": %s", arch[opt & 3]);
    static const char *const port[4] = {NULL, "false", "true", "\"true\""};
    if (port[(opt >> 2) & 3]) sb_f(b, ", \"is_portability_driver\": %s", port[(opt >> 2) & 3]);
    sb_s(b, (opt & 0x80) ? "}]}" : "}}");
    (void)fmt;
}

static void raw_manifest(struct w_driver *d, struct sb *b) {
    /* every "@LIB@" becomes the library path the placement computed */
    const char *p = d->manifest, *end = d->manifest + d->manifest_len;
    while (p < end) {
        const char *hit = memmem(p, (size_t)(end - p), "@LIB@", 5);
        if (hit == NULL) {
            sb_add(b, p, (size_t)(end - p));
            break;
        }
        sb_add(b, p, (size_t)(hit - p));
        sb_s(b, d->lib_ref);
        p = hit + 5;
    }
}

static void ext_array(struct sb *b, uint8_t mask, const char *const *names, int n) {
    sb_s(b, "[");
    bool first = true;
    for (int i = 0; i < n; i++) {
        if (!(mask & (1u << i))) continue;
        sb_f(b, "%s{\"name\": \"%s\", \"spec_version\": %d}", first ? "" : ", ", names[i], i + 1);
        first = false;
    }
    sb_s(b, "]");
}

static void gen_scenario(uint32_t slot, const struct w_scenario *sc, struct sb *b) {
    sb_f(b, "{\"interface\": {\"min\": %u, \"max\": %u", sc->if_min, sc->if_max);
    if (sc->has_negotiate_result) sb_f(b, ", \"negotiate_result\": %d", sc->negotiate_result);
    if (sc->has_report_version) sb_f(b, ", \"report_version\": %u", sc->report_version);
    sb_f(b, "},\n \"api_version\": %u,\n \"expose_enumerate_instance_version\": %s,\n", sc->api_version,
         sc->hide_eiv ? "false" : "true");
    sb_f(b, " \"record_lookups\": %s,\n \"instance_extensions\": ", sc->record_lookups ? "true" : "false");
    ext_array(b, sc->inst_ext_mask, w_inst_ext_names, 8);
    sb_s(b, ",\n \"physical_devices\": [");
    for (uint32_t i = 0; i < sc->pd_count; i++) {
        sb_f(b,
             "%s{\"name\": \"Fuzz Device %u.%u\", \"api_version\": %u, \"vendor_id\": %u, "
             "\"device_id\": %u, \"device_type\": \"%s\", \"extensions\": ",
             i ? ", " : "", slot, i, sc->pd[i].api_version, 0x10000u + slot, (slot << 8) | (i + 1),
             (i & 1) ? "integrated" : "discrete");
        ext_array(b, sc->pd[i].ext_mask, w_dev_ext_names, 4);
        sb_s(b, ", \"queue_families\": [");
        for (uint32_t f = 0; f < sc->pd[i].families; f++)
            sb_f(b, "%s{\"flags\": %u, \"count\": %u}", f ? ", " : "", f == 0 ? 7u : 4u, f + 1);
        sb_s(b, "]}");
    }
    sb_s(b, "]");
    if (sc->groups) {
        /* devices 0 and 1 together, the rest alone */
        sb_s(b, ",\n \"groups\": [");
        for (uint32_t i = 0; i < sc->pd_count; i++) {
            if (i == 1) continue;
            if (i == 0 && sc->pd_count > 1)
                sb_s(b, "[0, 1]");
            else
                sb_f(b, "%s[%u]", i ? ", " : "", i);
        }
        sb_s(b, "]");
    }
    if (sc->inject_count) {
        sb_s(b, ",\n \"results\": {");
        for (uint32_t i = 0; i < sc->inject_count; i++)
            sb_f(b, "%s\"%s\": %d", i ? ", " : "", w_inject_cmds[sc->inject[i].cmd], sc->inject[i].result);
        sb_s(b, "}");
    }
    if (sc->dev_funcs) {
        sb_s(b, ",\n \"device_functions\": [");
        for (uint32_t i = 0; i < sc->dev_funcs; i++) sb_f(b, "%s\"vkFuzzDeviceFunc%u\"", i ? ", " : "", i);
        sb_s(b, "]");
    }
    if (sc->pd_funcs) {
        sb_s(b, ",\n \"physdev_functions\": [");
        for (uint32_t i = 0; i < sc->pd_funcs; i++) sb_f(b, "%s\"vkFuzzPhysDevFunc%u\"", i ? ", " : "", i);
        sb_s(b, "]");
    }
    sb_s(b, ",\n \"misbehave\": {");
    for (int i = 0; i < 9; i++)
        sb_f(b, "%s\"%s\": %s", i ? ", " : "", w_misbehave_names[i], (sc->misbehave >> i) & 1 ? "true" : "false");
    sb_s(b, "}}\n");
}

/* ---- layers ---- */

static void layer_dir_rel(const struct w_layer *l, char *out) {
    if (l->location < 2)
        pathf(out, "%s/%s", w_layer_location_dirs[l->location], l->implicit ? "implicit" : "explicit");
    else
        pathf(out, "%s/%s_layer.d", w_layer_location_dirs[l->location], l->implicit ? "implicit" : "explicit");
}

static void gen_layer_scenario(const struct world *w, const struct w_layer *l, struct sb *b) {
    sb_s(b, "{\"name\": ");
    sb_q(b, w_layer_name(l));
    if (w->chain_log) {
        sb_s(b, ",\n \"calls_file\": ");
        sb_q(b, world_chain_calls_path());
    }
    sb_f(b, ",\n \"wrap_handles\": %s", l->wrap_handles ? "true" : "false");
    sb_s(b, ",\n \"pre_instance\": {");
    bool first = true;
    if (l->pre_add_extension) {
        sb_s(b, "\"add_extension\": \"VK_EXT_fuzz_layer_extension\"");
        first = false;
    }
    if (l->pre_add_layer) {
        sb_f(b, "%s\"add_layer\": \"VK_LAYER_FUZZ_pre\"", first ? "" : ", ");
        first = false;
    }
    sb_f(b, "%s\"no_call_down\": %s}", first ? "" : ", ", l->pre_no_call_down ? "true" : "false");
    sb_s(b, ",\n \"misbehave\": {");
    first = true;
    for (int i = 0; i < 8; i++) {
        if (i == 1) {
            if (l->misbehave & 2) {
                sb_f(b, "%s\"negotiate_version\": %u", first ? "" : ", ", l->negotiate_version);
                first = false;
            }
            continue;
        }
        sb_f(b, "%s\"%s\": %s", first ? "" : ", ", w_layer_misbehave_names[i],
             (l->misbehave >> i) & 1 ? "true" : "false");
        first = false;
    }
    sb_s(b, "}}\n");
}

static void name_array(struct sb *b, uint8_t mask) {
    sb_s(b, "[");
    bool first = true;
    for (int i = 0; i < W_LAYER_NAMES; i++) {
        if (!(mask & (1u << i))) continue;
        sb_f(b, "%s\"%s\"", first ? "" : ", ", w_layer_names[i]);
        first = false;
    }
    sb_s(b, "]");
}

static void gen_layer_manifest(const struct w_layer *l, struct sb *b) {
    static const char *const versions[8] = {"1.0.0", "1.0.1", "1.1.0", "1.1.1", "1.1.2", "1.2.0", "1.2.1", "1.0"};
    sb_f(b, "{\"file_format_version\": \"%s\", ", versions[l->fmt_version & 7]);
    if (l->nul == 3)
        sb_s(b, l->layers_array ? "\"layers\\u0000\": [{" : "\"layer\\u0000\": {");
    else
        sb_s(b, l->layers_array ? "\"layers\": [{" : "\"layer\": {");
    sb_s(b, "\"name\": ");
    if (l->nul == 2 || (l->nul == 1 && l->meta))
        sb_q_nul(b, w_layer_name(l), "x");
    else
        sb_q(b, w_layer_name(l));
    sb_s(b, ", \"type\": \"GLOBAL\"");
    if (!l->meta) {
        sb_s(b, ", \"library_path\": ");
        if (l->nul == 1)
            sb_q_nul(b, l->lib_ref, "/nonexistent/evil.so");
        else
            sb_q(b, l->lib_ref);
    }
    sb_f(b,
         ", \"api_version\": \"1.%u.0\", \"implementation_version\": \"1\", "
         "\"description\": \"fuzz layer\"",
         l->api_minor);
    if (l->meta) {
        sb_s(b, ", \"component_layers\": ");
        name_array(b, l->components);
    }
    if (l->override_layer && l->blacklist) {
        sb_s(b, ", \"blacklisted_layers\": ");
        name_array(b, l->blacklist);
    }
    if (l->has_enable_env) sb_f(b, ", \"enable_environment\": {\"%s\": \"1\"}", l->enable_var);
    if (l->has_disable_env) sb_f(b, ", \"disable_environment\": {\"%s\": \"1\"}", l->disable_var);
    if (l->pre_instance)
        sb_s(b, ", \"pre_instance_functions\": {"
                "\"vkEnumerateInstanceExtensionProperties\": \"mock_layer_pre_EnumerateInstanceExtensionProperties\", "
                "\"vkEnumerateInstanceLayerProperties\": \"mock_layer_pre_EnumerateInstanceLayerProperties\", "
                "\"vkEnumerateInstanceVersion\": \"mock_layer_pre_EnumerateInstanceVersion\"}");
    if (l->renames)
        sb_s(b, ", \"functions\": {\"vkGetInstanceProcAddr\": \"MockLayer_GetInstanceProcAddr\", "
                "\"vkGetDeviceProcAddr\": \"MockLayer_GetDeviceProcAddr\", "
                "\"vkNegotiateLoaderLayerInterfaceVersion\": \"MockLayer_Negotiate\"}");
    sb_s(b, l->layers_array ? "}]}\n" : "}}\n");
}

/* Writes the layer slots' libraries, scenarios and manifests; fills the world's default layer
 * path variables into val[] (indexes of w_env_names) and extra[] (VK_ADD_IMPLICIT_LAYER_PATH). */
static void build_layers(struct world *w, char *val[W_ENV_VARS], char **add_implicit);
static void set_extra_env(int i, const char *name, const char *value);

static void set_env(int i, const char *name, const char *value) {
    unsetenv(name);
    free(g_env_buf[i]);
    g_env_buf[i] = NULL;
    if (value == NULL) return;
    size_t n = strlen(name) + 1 + strlen(value) + 1;
    g_env_buf[i] = malloc(n);
    if (g_env_buf[i] == NULL) die("out of memory");
    snprintf(g_env_buf[i], n, "%s=%s", name, value);
    /* putenv keeps our buffer (no copy): setenv would keep every distinct value forever. */
    if (putenv(g_env_buf[i]) != 0) die("putenv");
}

/* Replaces `path` (the regular file just written there, or nothing) by a file of `kind` (FRAMING.md
 * "widen"). WF_LINK moves the bytes to `real` and links `path` to it. */
static void make_special(const char *path, uint8_t kind, const char *real) {
    switch (kind) {
        case WF_REGULAR: return;
        case WF_EMPTY:
            if (truncate(path, 0) != 0) write_file(path, "", 0);
            return;
        case WF_LINK:
            if (real == NULL || rename(path, real) != 0 || symlink(real, path) != 0)
                die("link %s: %s", path, strerror(errno));
            return;
        default: break;
    }
    unlink(path);
    int rc = 0;
    switch (kind) {
        case WF_FIFO: rc = mkfifo(path, 0644); break;
        case WF_LOOP: rc = symlink(path, path); break; /* itself: ELOOP */
        case WF_DIR: rc = mkdir(path, 0755); break;
        case WF_DEV_ZERO: rc = symlink("/dev/zero", path); break;
        case WF_DANGLING: rc = symlink("/nonexistent/vkl_fuzz_missing", path); break;
        default: break;
    }
    if (rc != 0) die("special file %s: %s", path, strerror(errno));
}

/* A library_path of a special kind: R/w/special/<name> (WF_LINK: a link to the slot's copy). */
static void special_lib(uint8_t kind, const char *name, const char *lib_abs, char *lib_ref) {
    pathf(lib_ref, "%s/special/%s", g_wdir, name);
    if (kind == WF_LINK) {
        if (symlink(lib_abs, lib_ref) != 0) die("symlink %s: %s", lib_ref, strerror(errno));
        /* A mock finds its sidecar files beside the path it was loaded from (<self>.scenario,
         * <self>.calls: mock_common.h): link them to the slot's, or the library runs the default
         * scenario and its records are lost (a false LDP_LOADER_1 "no driver instance alive"). */
        static const char *const sidecars[] = {".scenario", ".calls"};
        for (size_t i = 0; i < sizeof sidecars / sizeof sidecars[0]; i++) {
            char from[W_PATH + 16], to[W_PATH + 16];
            snprintf(from, sizeof from, "%s%s", lib_abs, sidecars[i]);
            snprintf(to, sizeof to, "%s%s", lib_ref, sidecars[i]);
            if (symlink(from, to) != 0) die("symlink %s: %s", to, strerror(errno));
        }
    } else {
        write_file(lib_ref, "", 0);
        make_special(lib_ref, kind, NULL);
    }
}

/* Before a manifest path gets its tombstone: whatever special file is there goes first. */
static void unspecial(const char *path, uint8_t kind) {
    if (kind == WF_REGULAR || kind == WF_EMPTY) return;
    if (kind == WF_DIR)
        rmdir(path);
    else
        unlink(path);
}

static void list_add(struct sb *b, const char *entry) {
    if (b->n) sb_s(b, ":");
    sb_s(b, entry);
}

void world_build(struct world *w) {
    if (g_root_pid != getpid()) make_root(); /* a forked child (AFL++): its own R */
    g_generation++;
    rm_rf(g_wdir);
    for (int l = 0; l < W_LOCATIONS; l++) {
        char p[W_PATH];
        pathf(p, "%s/%s", g_wdir, w_location_dirs[l]);
        mkdir_p(p);
    }
    {
        char p[W_PATH];
        pathf(p, "%s/xdg_config_dirs/b", g_wdir);
        mkdir_p(p);
        pathf(p, "%s/special", g_wdir);
        mkdir_p(p);
    }

    /* libraries and scenarios */
    for (uint32_t s = 0; s < W_MAX_DRIVERS; s++) {
        char lib[W_PATH], side[W_PATH];
        pathf(lib, "%s/lib/libvkl_fuzz_drv%u.so", g_root_real, s);
        pathf(side, "%s.calls", lib);
        unlink(side);
        pathf(side, "%s.scenario", lib);
        if (s >= w->ndrivers) {
            /* unused slots leave nothing behind that a manifest could reach */
            unlink(side);
            unlink(lib);
            g_slot_variant[s] = -1;
            continue;
        }
        struct w_driver *d = &w->d[s];
        pathf(d->lib_abs, "%s", lib);
        if (g_slot_variant[s] != (int)d->variant || !exists(lib)) {
            char from[W_PATH];
            pathf(from, "%s/libmock_icd_%s.so", g_mock_dir, g_variants[d->variant]->name);
            unlink(lib); /* a new inode: never rewrite a file that might still be mapped */
            copy_file(from, lib);
            g_slot_variant[s] = (int)d->variant;
        }
        struct sb b = {0};
        gen_scenario(s, &d->sc, &b);
        write_file(side, b.p, b.n);
        free(b.p);
    }

    /* manifests */
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        struct w_driver *d = &w->d[s];
        const char *dir = w_location_dirs[d->location];
        char rel[W_PATH];
        pathf(rel, "%s/%s_%u.json", dir, w_stems[d->stem], s);
        pathf(d->manifest_abs, "%s/%s", g_wdir, rel);
        wpath(w, d->manifest_env, rel);
        switch (d->libform) {
            case 0: pathf(d->lib_ref, "%s", d->lib_abs); break;
            case 1: {
                /* from R/w/<dir>/ up to R, then lib/ */
                char up[W_PATH] = "../";
                for (const char *c = dir; *c; c++)
                    if (*c == '/') strcat(up, "../");
                pathf(d->lib_ref, "%s../lib/libvkl_fuzz_drv%u.so", up, s);
                break;
            }
            case 2: pathf(d->lib_ref, "libvkl_fuzz_drv%u.so", s); break;
            default: pathf(d->lib_ref, "%s/lib/missing_drv%u.so", g_root_real, s); break;
        }
        if (d->lib_kind != WF_REGULAR) {
            char name[32];
            snprintf(name, sizeof name, "drv%u.so", s);
            special_lib(d->lib_kind, name, d->lib_abs, d->lib_ref);
        }
        struct sb b = {0};
        if (d->raw_manifest)
            raw_manifest(d, &b);
        else
            gen_manifest(d, &b);
        write_file(d->manifest_abs, b.p ? b.p : "", b.n);
        {
            char real[W_PATH];
            pathf(real, "%s/special/drv%u.json", g_wdir, s);
            make_special(d->manifest_abs, d->manifest_kind, real);
        }
        /* keep the bytes actually written, for the oracle */
        free(d->manifest);
        d->manifest = b.p ? b.p : strdup("");
        d->manifest_len = b.n;
    }

    /* environment: the world's defaults, then the input's overrides */
    char *val[W_ENV_VARS] = {NULL};
    struct sb drv = {0}, icd = {0}, add = {0};
    bool dir_listed = false, add_listed = false;
    char p[W_PATH];
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        switch (w->d[s].location) {
            case 0: list_add(&drv, w->d[s].manifest_env); break;
            case 1:
                if (!dir_listed) wpath(w, p, w_location_dirs[1]), list_add(&drv, p);
                dir_listed = true;
                break;
            case 2: list_add(&icd, w->d[s].manifest_env); break;
            case 3:
                if (!add_listed) wpath(w, p, w_location_dirs[3]), list_add(&add, p);
                add_listed = true;
                break;
            default: break;
        }
    }
    val[0] = drv.p;
    val[1] = icd.p;
    val[2] = add.p;
    wpath(w, p, "home");
    val[5] = strdup(p);
    wpath(w, p, "xdg_config_home");
    val[6] = strdup(p);
    {
        struct sb l = {0};
        wpath(w, p, "xdg_config_dirs/a");
        list_add(&l, p);
        wpath(w, p, "xdg_config_dirs/b");
        list_add(&l, p);
        val[7] = l.p;
    }
    wpath(w, p, "xdg_data_dirs/a");
    val[9] = strdup(p);
    char *add_implicit = NULL;
    build_layers(w, val, &add_implicit);
    for (int i = 0; i < W_ENV_VARS; i++) {
        if (w->env_mode[i] == W_ENV_DEFAULT) continue;
        free(val[i]);
        val[i] = NULL;
        if (w->env_mode[i] == W_ENV_EMPTY) {
            val[i] = strdup("");
        } else if (w->env_mode[i] == W_ENV_VALUE && w->env_value[i] != NULL) {
            if (w->env_value[i][0] == '\x01') {
                struct sb l = {0};
                uint8_t mask = (uint8_t)w->env_value[i][1];
                for (int b = 0; b < W_LOCATIONS; b++)
                    if (mask & (1u << b)) wpath(w, p, w_location_dirs[b]), list_add(&l, p);
                val[i] = l.p ? l.p : strdup("");
            } else {
                /* "@W@" stands for the world directory */
                struct sb l = {0};
                const char *s = w->env_value[i];
                wpath(w, p, "");
                p[strlen(p) - 1] = '\0'; /* no trailing '/' */
                for (;;) {
                    const char *hit = strstr(s, "@W@");
                    if (hit == NULL) {
                        sb_s(&l, s);
                        break;
                    }
                    sb_add(&l, s, (size_t)(hit - s));
                    sb_s(&l, p);
                    s = hit + 3;
                }
                val[i] = l.p ? l.p : strdup("");
            }
        }
    }
    for (int i = 0; i < W_ENV_VARS; i++) {
        set_env(i, w_env_names[i], val[i]);
        free(val[i]);
    }
    /* layer variables outside the input's environment table */
    set_extra_env(0, "VK_ADD_IMPLICIT_LAYER_PATH", add_implicit);
    free(add_implicit);
    for (uint32_t i = 0; i < W_MAX_LAYERS; i++) {
        char en[48], dis[48];
        snprintf(en, sizeof en, "VKL_FUZZ_LAYER_ENABLE_%u", i);
        snprintf(dis, sizeof dis, "VKL_FUZZ_LAYER_DISABLE_%u", i);
        const struct w_layer *l = &w->l[i];
        bool used = i < w->nlayers;
        set_extra_env(1 + 2 * (int)i, en, used && l->set_enable ? (l->odd_values ? "0" : "1") : NULL);
        set_extra_env(2 + 2 * (int)i, dis, used && l->set_disable ? (l->odd_values ? "" : "1") : NULL);
    }
    /* Never let an input keep libraries mapped (the cache cleanup relies on dlclose). */
    unsetenv("VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING");

    vkl_env_set_elevated_for_testing(w->elevated ? 1 : 0);
    if (w->chdir_root && chdir(g_root_real) != 0) die("chdir %s: %s", g_root_real, strerror(errno));
}

static void set_extra_env(int i, const char *name, const char *value) {
    unsetenv(name);
    free(g_extra_env_buf[i]);
    g_extra_env_buf[i] = NULL;
    if (value == NULL) return;
    size_t n = strlen(name) + 1 + strlen(value) + 1;
    g_extra_env_buf[i] = malloc(n);
    if (g_extra_env_buf[i] == NULL) die("out of memory");
    snprintf(g_extra_env_buf[i], n, "%s=%s", name, value);
    if (putenv(g_extra_env_buf[i]) != 0) die("putenv");
}

static void meta_path(const struct world *w, uint32_t k, char *out);

void world_refresh(struct world *w, bool reload) {
    unlink(world_chain_calls_path());
    struct timespec times[2];
    times[0].tv_sec = times[1].tv_sec = (time_t)(500000000 + g_generation);
    times[0].tv_nsec = times[1].tv_nsec = 0;
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        char p[W_PATH + 16];
        snprintf(p, sizeof p, "%s.calls", w->d[s].lib_abs);
        unlink(p);
        if (reload && (w->d[s].manifest_kind == WF_REGULAR || w->d[s].manifest_kind == WF_LINK ||
                       w->d[s].manifest_kind == WF_EMPTY))
            utimensat(AT_FDCWD, w->d[s].manifest_abs, times, 0);
    }
    for (uint32_t i = 0; i < w->nlayers; i++) {
        char p[W_PATH + 16];
        snprintf(p, sizeof p, "%s.calls", w->l[i].lib_abs);
        unlink(p);
        if (reload && (w->l[i].manifest_kind == WF_REGULAR || w->l[i].manifest_kind == WF_LINK ||
                       w->l[i].manifest_kind == WF_EMPTY))
            utimensat(AT_FDCWD, w->l[i].manifest_abs, times, 0);
    }
    for (uint32_t k = 0; k < w->nmetas && reload; k++) {
        char p[W_PATH];
        meta_path(w, k, p);
        utimensat(AT_FDCWD, p, times, 0);
    }
}

const char *world_chain_calls_path(void) {
    static char p[W_PATH];
    pathf(p, "%s/lib/layer_chain.calls", g_root_real);
    return p;
}

/* The extra meta layers VK_LAYER_FUZZ_m00.. (FRAMING.md "widen"): a chain, a ladder (each names the
 * next two: exponentially many paths), a cycle, or masks; the last (or, with masks, every) one may
 * also name a world layer. Manifests only: meta layers have no library. */
static void meta_dir(const struct world *w, char *out) {
    uint32_t loc = ((w->meta_shape >> 3) & 7) % W_LAYER_LOCATIONS;
    struct w_layer probe;
    memset(&probe, 0, sizeof probe);
    probe.location = loc;
    probe.implicit = w->meta_shape & 4;
    char rel[W_PATH];
    layer_dir_rel(&probe, rel);
    pathf(out, "%s/%s", g_wdir, rel);
}

static void meta_path(const struct world *w, uint32_t k, char *out) {
    char dir[W_PATH];
    meta_dir(w, dir);
    pathf(out, "%s/fuzz_meta_%02u.json", dir, k);
}

static void build_metas(struct world *w, uint32_t loc, bool implicit) {
    (void)loc;
    char dir[W_PATH];
    meta_dir(w, dir);
    mkdir_p(dir);
    uint32_t n = w->nmetas, shape = w->meta_shape & 3;
    for (uint32_t k = 0; k < n; k++) {
        struct sb b = {0};
        char name[24], comp[24];
        world_meta_name(k, name);
        sb_s(&b, "{\"file_format_version\": \"1.1.2\", \"layer\": {\"name\": ");
        sb_q(&b, name);
        sb_s(&b, ", \"type\": \"GLOBAL\", \"api_version\": \"1.0.0\", \"implementation_version\": \"1\", "
                 "\"description\": \"fuzz meta\", \"component_layers\": [");
        bool first = true;
#define COMP(nm)                                                                                                       \
    do {                                                                                                               \
        if (!first) sb_s(&b, ", ");                                                                                    \
        sb_q(&b, nm);                                                                                                  \
        first = false;                                                                                                 \
    } while (0)
        if (shape == 3) {
            for (uint32_t bit = 0; bit < 8; bit++)
                if (w->meta_masks[k] & (1u << bit)) {
                    world_meta_name((k + 1 + bit) % n, comp);
                    COMP(comp);
                }
        } else {
            if (k + 1 < n) {
                world_meta_name(k + 1, comp);
                COMP(comp);
            }
            if (shape == 1 && k + 2 < n) {
                world_meta_name(k + 2, comp);
                COMP(comp);
            }
            if (shape == 2 && k + 1 == n) {
                world_meta_name(0, comp);
                COMP(comp);
            }
        }
        if (w->meta_leaf < W_WORLD_LAYER_NAMES && (k + 1 == n || shape == 3)) COMP(w_layer_names[w->meta_leaf]);
#undef COMP
        sb_s(&b, "]");
        if (implicit) sb_s(&b, ", \"disable_environment\": {\"VKL_FUZZ_META_DISABLE\": \"1\"}");
        sb_s(&b, "}}\n");
        char path[W_PATH];
        meta_path(w, k, path);
        write_file(path, b.p, b.n);
        free(b.p);
    }
}

static void build_layers(struct world *w, char *val[W_ENV_VARS], char **add_implicit) {
    unlink(world_chain_calls_path());
    for (uint32_t i = 0; i < W_MAX_LAYERS; i++) {
        char lib[W_PATH], side[W_PATH];
        pathf(lib, "%s/lib/libvkl_fuzz_lay%u.so", g_root_real, i);
        pathf(side, "%s.calls", lib);
        unlink(side);
        pathf(side, "%s.scenario", lib);
        if (i >= w->nlayers) {
            unlink(side);
            unlink(lib);
            g_layer_slot_variant[i] = -1;
            continue;
        }
        struct w_layer *l = &w->l[i];
        pathf(l->lib_abs, "%s", lib);
        snprintf(l->enable_var, sizeof l->enable_var, "VKL_FUZZ_LAYER_ENABLE_%u", i);
        snprintf(l->disable_var, sizeof l->disable_var, "VKL_FUZZ_LAYER_DISABLE_%u", i);
        if (g_layer_slot_variant[i] != (int)l->variant || !exists(lib)) {
            char from[W_PATH];
            pathf(from, "%s/libmock_layer_%s.so", g_mock_layer_dir, g_layer_variants[l->variant]->name);
            unlink(lib);
            copy_file(from, lib);
            g_layer_slot_variant[i] = (int)l->variant;
        }
        struct sb b = {0};
        gen_layer_scenario(w, l, &b);
        write_file(side, b.p, b.n);
        free(b.p);

        char dir[W_PATH], abs_dir[W_PATH];
        layer_dir_rel(l, dir);
        pathf(abs_dir, "%s/%s", g_wdir, dir);
        mkdir_p(abs_dir);
        pathf(l->manifest_abs, "%s/fuzz_layer_%u.json", abs_dir, i);
        switch (l->libform) {
            case 0: pathf(l->lib_ref, "%s", l->lib_abs); break;
            case 1: {
                /* relative to the manifest's directory: from R/w/<dir>/ up to R, then lib/ */
                char up[W_PATH] = "../";
                for (const char *c = dir; *c; c++)
                    if (*c == '/') strcat(up, "../");
                pathf(l->lib_ref, "%s../lib/libvkl_fuzz_lay%u.so", up, i);
                break;
            }
            case 2: pathf(l->lib_ref, "libvkl_fuzz_lay%u.so", i); break;
            default: pathf(l->lib_ref, "%s/lib/missing_lay%u.so", g_root_real, i); break;
        }
        if (l->lib_kind != WF_REGULAR) {
            char name[32];
            snprintf(name, sizeof name, "lay%u.so", i);
            special_lib(l->lib_kind, name, l->lib_abs, l->lib_ref);
        }
        struct sb m = {0};
        gen_layer_manifest(l, &m);
        write_file(l->manifest_abs, m.p, m.n);
        {
            char real[W_PATH];
            pathf(real, "%s/special/lay%u.json", g_wdir, i);
            make_special(l->manifest_abs, l->manifest_kind, real);
        }
        free(l->manifest);
        l->manifest = m.p;
        l->manifest_len = m.n;
    }
    /* default layer path variables: the directories of the slots placed at locations 0 and 1 */
    bool used[2][2] = {{false, false}, {false, false}}; /* [location][implicit] */
    for (uint32_t i = 0; i < w->nlayers; i++)
        if (w->l[i].location < 2) used[w->l[i].location][w->l[i].implicit] = true;
    if (w->nmetas > 0) {
        uint32_t loc = ((w->meta_shape >> 3) & 7) % W_LAYER_LOCATIONS;
        bool implicit = w->meta_shape & 4;
        build_metas(w, loc, implicit);
        if (loc < 2) used[loc][implicit] = true;
    }
    char p[W_PATH];
    if (used[0][0]) wpath(w, p, "env/layer_path/explicit"), val[10] = strdup(p);
    if (used[1][0]) wpath(w, p, "env/add_layer_path/explicit"), val[11] = strdup(p);
    if (used[0][1]) wpath(w, p, "env/layer_path/implicit"), val[12] = strdup(p);
    if (used[1][1]) wpath(w, p, "env/add_layer_path/implicit"), *add_implicit = strdup(p);
}

/* ------------------------------------------------------------------------------------------ */
/* Cleanup                                                                                     */

void world_cleanup(struct world *w) {
    /*
     * The loader keeps every driver it scanned in a process-wide cache keyed by manifest path and
     * stat, with its library loaded, and frees an entry only when a later search finds the same
     * path with a different stat (icd.c). So: replace every manifest with a tombstone (an invalid
     * manifest whose mtime no real file has), run one more search with the same environment, not
     * elevated: each old entry is found stale and freed (dlclose), and the tombstones that take
     * their place load nothing. The world uses the same paths every time, so the cache stays
     * bounded (one small entry per path ever used).
     */
    struct timespec times[2];
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        const struct w_driver *d = &w->d[s];
        static const char tomb[] = "vkl_fuzz tombstone\n";
        unspecial(d->manifest_abs, d->manifest_kind);
        write_file(d->manifest_abs, tomb, sizeof tomb - 1);
        times[0].tv_sec = times[1].tv_sec = (time_t)(1000000 + g_generation);
        times[0].tv_nsec = times[1].tv_nsec = 0;
        utimensat(AT_FDCWD, d->manifest_abs, times, 0);
    }
    for (uint32_t i = 0; i < w->nlayers; i++) {
        static const char tomb[] = "vkl_fuzz tombstone\n";
        unspecial(w->l[i].manifest_abs, w->l[i].manifest_kind);
        write_file(w->l[i].manifest_abs, tomb, sizeof tomb - 1);
        times[0].tv_sec = times[1].tv_sec = (time_t)(1000000 + g_generation);
        times[0].tv_nsec = times[1].tv_nsec = 0;
        utimensat(AT_FDCWD, w->l[i].manifest_abs, times, 0);
    }
    for (uint32_t k = 0; k < w->nmetas; k++) {
        static const char tomb[] = "vkl_fuzz tombstone\n";
        char path[W_PATH];
        meta_path(w, k, path);
        write_file(path, tomb, sizeof tomb - 1);
        times[0].tv_sec = times[1].tv_sec = (time_t)(1000000 + g_generation);
        times[0].tv_nsec = times[1].tv_nsec = 0;
        utimensat(AT_FDCWD, path, times, 0);
    }
    vkl_env_set_elevated_for_testing(0);
    uint32_t n = 0;
    vkEnumerateInstanceExtensionProperties(NULL, &n, NULL);
    /* the layer parse cache (explicit and implicit manifests) sees its tombstones too */
    if (w->nlayers > 0 || w->nmetas > 0) vkEnumerateInstanceLayerProperties(&n, NULL);
    for (uint32_t i = 0; i < w->nlayers; i++) {
        void *h = __real_dlopen(w->l[i].lib_abs, RTLD_LAZY | RTLD_NOLOAD);
        if (h != NULL) {
            dlclose(h);
            world_violation("layer cache",
                            "layer slot %u: %s is still loaded after every instance was destroyed and "
                            "its manifest replaced (a leaked layer library reference?)",
                            i, w->l[i].lib_abs);
        }
    }

    /* Every copy must be unloaded now: nothing holds a driver once every instance is gone. */
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        void *h = __real_dlopen(w->d[s].lib_abs, RTLD_LAZY | RTLD_NOLOAD);
        if (h != NULL) {
            dlclose(h);
            world_violation("driver cache",
                            "slot %u: %s is still loaded after every instance was destroyed and its "
                            "manifest replaced (a leaked driver reference?)",
                            s, w->d[s].lib_abs);
        }
    }
    if (w->chdir_root && g_cwd_fd >= 0 && fchdir(g_cwd_fd) != 0) die("fchdir: %s", strerror(errno));
    rm_rf(g_wdir);
}
