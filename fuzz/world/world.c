/*
 * The world harness: its tables (FRAMING.md), the mock variants it uses, small file helpers,
 * start-up (the private root R, the mock directories) and the cleanup after each input (see world.h
 * for the layout). Decoding an input is world_decode.c, writing the world to disk and the
 * environment world_build.c; world_internal.h is what the three share.
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
#include "fuzz/world/world_internal.h"
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
 * mock_layer*.c (not the chassis rows, nor those without vkGetDeviceProcAddr), sorted by name (mock_variants.h keeps
 * that order); missing ones are skipped. */
#define ALL_LAYER_VARIANTS VKL_MOCK_LAYER_VARIANT_COUNT
const struct vkl_mock_layer_variant *g_layer_variants[ALL_LAYER_VARIANTS];
size_t g_layer_variant_count;
char g_mock_layer_dir[W_PATH];
int g_layer_slot_variant[W_MAX_LAYERS];
char *g_extra_env_buf[W_LAYER_EXTRA_ENV];
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

const struct vkl_mock_icd_variant *g_variants[ALL_VARIANTS];
size_t g_variant_count;
char g_mock_dir[W_PATH];
static char g_root[W_PATH]; /* R */
char g_root_real[W_PATH];
char g_wdir[W_PATH]; /* R/w */
static int g_cwd_fd = -1;
int g_slot_variant[W_MAX_DRIVERS];
char *g_env_buf[W_ENV_VARS];
uint64_t g_generation;

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

void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: harness error: ", g_world_fuzzer_name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort(); /* a harness failure must not pass silently */
}

void pathf(char *out, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(out, W_PATH, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= W_PATH) die("path too long");
}

void mkdir_p(const char *path) {
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

void write_file(const char *path, const void *data, size_t len) {
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

void copy_file(const char *from, const char *to) {
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

void rm_rf(const char *path) { nftw(path, rm_cb, 16, FTW_DEPTH | FTW_PHYS); }

bool exists(const char *path) {
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

pid_t g_root_pid; /* the process that created R: only it removes R */

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

void make_root(void) {
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
/* Cleanup                                                                                     */

/* Replaces the manifest at `path` with a tombstone: an invalid manifest whose mtime no real file has. */
static void tombstone(const char *path) {
    static const char tomb[] = "vkl_fuzz tombstone\n";
    struct timespec times[2];
    write_file(path, tomb, sizeof tomb - 1);
    times[0].tv_sec = times[1].tv_sec = (time_t)(1000000 + g_generation);
    times[0].tv_nsec = times[1].tv_nsec = 0;
    utimensat(AT_FDCWD, path, times, 0);
}

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
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        const struct w_driver *d = &w->d[s];
        unspecial(d->manifest_abs, d->manifest_kind);
        tombstone(d->manifest_abs);
    }
    for (uint32_t i = 0; i < w->nlayers; i++) {
        unspecial(w->l[i].manifest_abs, w->l[i].manifest_kind);
        tombstone(w->l[i].manifest_abs);
    }
    for (uint32_t k = 0; k < w->nmetas; k++) {
        char path[W_PATH];
        meta_path(w, k, path);
        tombstone(path);
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
