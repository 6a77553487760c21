// How often the loader opens each manifest and each driver library (docs/performance.md,
// "100,000 manifests"). A manifest is opened once per search that lists it: one non-blocking open
// whose fstat gives the identity the manifest cache looks up, and whose descriptor is read on a miss
// (not an open for the identity and a second one to read; loader/internal/fileio.h). A driver's library file is opened
// once per load attempt: the file-kind check before dlopen (a FIFO or directory is never handed to dlopen) also records
// the identity the driver cache later compares, instead of a second open after the load.
//
// Our loader only, in-process: the test executable defines open/open64/fopen/fopen64/stat/stat64 (exported with
// -rdynamic, so the dlopen'ed libvulkan.so.1 binds to them) and counts the calls per path under its
// sandbox, then forwards to the next definition (libc, or the sanitizer runtime's interceptor).
// The dynamic linker's own opens (inside dlopen) are not seen: they do not go through these symbols.
#undef _FORTIFY_SOURCE // the test defines open(); fortified headers would define an inline one
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "loader/test_support.h"

namespace {

std::mutex g_mu;
bool g_recording = false;
std::string g_prefix;                               // only paths below this are counted
std::map<std::string, int> g_open, g_fopen, g_stat; // calls per path

void Record(std::map<std::string, int> &m, const char *path) {
    if (path == nullptr) return;
    std::lock_guard<std::mutex> lock(g_mu);
    if (!g_recording || std::string(path).compare(0, g_prefix.size(), g_prefix) != 0) return;
    m[path]++;
}

template <typename F> F Next(const char *name) {
    void *p = dlsym(RTLD_NEXT, name);
    if (p == nullptr) abort();
    return reinterpret_cast<F>(p);
}

int ForwardOpen(const char *name, const char *path, int flags, va_list ap) {
    mode_t mode = 0;
    if ((flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE) mode = static_cast<mode_t>(va_arg(ap, int));
    Record(g_open, path);
    return Next<int (*)(const char *, int, ...)>(name)(path, flags, mode);
}

} // namespace

extern "C" {
__attribute__((visibility("default"))) int open(const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    int r = ForwardOpen("open", path, flags, ap);
    va_end(ap);
    return r;
}
__attribute__((visibility("default"))) int open64(const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    int r = ForwardOpen("open64", path, flags, ap);
    va_end(ap);
    return r;
}
__attribute__((visibility("default"))) int stat(const char *path, struct stat *st) {
    Record(g_stat, path);
    return Next<int (*)(const char *, struct stat *)>("stat")(path, st);
}
__attribute__((visibility("default"))) int stat64(const char *path, struct stat64 *st) {
    Record(g_stat, path);
    return Next<int (*)(const char *, struct stat64 *)>("stat64")(path, st);
}
__attribute__((visibility("default"))) FILE *fopen(const char *path, const char *mode) {
    Record(g_fopen, path);
    return Next<FILE *(*)(const char *, const char *)>("fopen")(path, mode);
}
__attribute__((visibility("default"))) FILE *fopen64(const char *path, const char *mode) {
    Record(g_fopen, path);
    return Next<FILE *(*)(const char *, const char *)>("fopen64")(path, mode);
}
}

namespace {

using vkl_test::Runfile;

class FileOpenCount : public ::testing::Test {
  protected:
    void SetUp() override {
        root_ = vkl_test::MakeTempDir("file_open_count");
        ASSERT_FALSE(root_.empty());
        for (const char *d : {"icd", "lib", "exp", "imp", "home", "xdg"}) Sh("mkdir -p '" + root_ + "/" + d + "'");
        Sh("cp '" + Runfile("mock_icd/libmock_icd_v7.so") + "' '" + root_ + "/lib/drv_a.so'");
        Sh("cp '" + Runfile("mock_icd/libmock_icd_v7.so") + "' '" + root_ + "/lib/drv_b.so'");
        Sh("cp '" + Runfile("mock_layers/libmock_layer_v2.so") + "' '" + root_ + "/lib/layer.so'");
        // A clean environment: every search location is in the sandbox.
        setenv("VK_DRIVER_FILES", (root_ + "/icd").c_str(), 1);
        setenv("VK_LAYER_PATH", (root_ + "/exp").c_str(), 1);
        setenv("VK_IMPLICIT_LAYER_PATH", (root_ + "/imp").c_str(), 1);
        setenv("HOME", (root_ + "/home").c_str(), 1);
        for (const char *v : {"XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_DATA_DIRS"})
            setenv(v, (root_ + "/xdg").c_str(), 1);
        for (const char *v : {"VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES", "VK_ADD_LAYER_PATH", "VK_INSTANCE_LAYERS",
                              "VK_LOADER_LAYERS_ENABLE", "VK_LOADER_LAYERS_DISABLE", "VK_LOADER_DRIVERS_SELECT",
                              "VK_LOADER_DRIVERS_DISABLE"})
            unsetenv(v);
        {
            std::lock_guard<std::mutex> lock(g_mu);
            g_prefix = root_ + "/";
        }
        loader_ = dlopen(Runfile("loader/libvulkan.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
        ASSERT_NE(loader_, nullptr) << dlerror();
        gipa_ = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(loader_, "vkGetInstanceProcAddr"));
        ASSERT_NE(gipa_, nullptr);
    }
    void TearDown() override {
        StopCounting();
        if (loader_) dlclose(loader_);
        Sh("rm -rf '" + root_ + "'");
    }
    static void Sh(const std::string &c) { vkl_test::Sh(c); }
    void Write(const std::string &rel, const std::string &text) { std::ofstream(root_ + "/" + rel) << text; }
    void Driver(const std::string &name, const std::string &lib) {
        Write("icd/" + name + ".json", "{\"file_format_version\": \"1.0.1\", \"ICD\": {\"library_path\": \"" + root_ +
                                           "/lib/" + lib + "\", \"api_version\": \"1.3.0\"}}");
    }
    void Layer(const std::string &dir, const std::string &name) {
        Write(dir + "/" + name + ".json",
              "{\"file_format_version\": \"1.1.2\", \"layer\": {\"name\": \"" + name +
                  "\", \"type\": \"GLOBAL\", \"library_path\": \"" + root_ +
                  "/lib/layer.so\", \"api_version\": \"1.3.0\", \"implementation_version\": \"1\", "
                  "\"description\": \"count\", \"disable_environment\": {\"FILE_OPEN_COUNT_OFF\": \"1\"}}}");
    }
    static void StartCounting() {
        std::lock_guard<std::mutex> lock(g_mu);
        g_open.clear();
        g_fopen.clear();
        g_stat.clear();
        g_recording = true;
    }
    static void StopCounting() {
        std::lock_guard<std::mutex> lock(g_mu);
        g_recording = false;
    }
    int Fopens(const std::string &rel) {
        std::lock_guard<std::mutex> lock(g_mu);
        auto it = g_fopen.find(root_ + "/" + rel);
        return it == g_fopen.end() ? 0 : it->second;
    }
    // A manifest the real file system holds is opened once, with open(2), and read through that
    // descriptor: never fopen()ed as well (fopen is for paths open(2) cannot reach, an
    // interposer's). -1 when it was also fopen()ed, so a second open cannot hide.
    int ManifestOpens(const std::string &rel) { return Fopens(rel) == 0 ? Opens(rel) : -1; }
    int Opens(const std::string &rel) {
        std::lock_guard<std::mutex> lock(g_mu);
        auto it = g_open.find(root_ + "/" + rel);
        return it == g_open.end() ? 0 : it->second;
    }
    int Stats(const std::string &rel) {
        std::lock_guard<std::mutex> lock(g_mu);
        auto it = g_stat.find(root_ + "/" + rel);
        return it == g_stat.end() ? 0 : it->second;
    }
    // Everything counted, for failure messages.
    static std::string Counts() {
        std::lock_guard<std::mutex> lock(g_mu);
        std::string s;
        for (const auto &kv : g_fopen) s += "fopen " + kv.first + " x" + std::to_string(kv.second) + "\n";
        for (const auto &kv : g_open) s += "open  " + kv.first + " x" + std::to_string(kv.second) + "\n";
        for (const auto &kv : g_stat) s += "stat  " + kv.first + " x" + std::to_string(kv.second) + "\n";
        return s;
    }
    template <typename T> T G(VkInstance inst, const char *n) { return reinterpret_cast<T>(gipa_(inst, n)); }
    // One pre-instance call: the loader searches and acquires every driver (their instance extensions).
    void EnumerateInstanceExtensions() {
        uint32_t n = 0;
        ASSERT_EQ(G<PFN_vkEnumerateInstanceExtensionProperties>(
                      VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties")(nullptr, &n, nullptr),
                  VK_SUCCESS);
    }
    uint32_t EnumerateLayers() {
        uint32_t n = 0;
        EXPECT_EQ(G<PFN_vkEnumerateInstanceLayerProperties>(VK_NULL_HANDLE,
                                                            "vkEnumerateInstanceLayerProperties")(&n, nullptr),
                  VK_SUCCESS);
        return n;
    }
    uint32_t CreateEnumerateDestroy() {
        VkInstanceCreateInfo ci{};
        ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
        VkInstance inst = VK_NULL_HANDLE;
        EXPECT_EQ(G<PFN_vkCreateInstance>(VK_NULL_HANDLE, "vkCreateInstance")(&ci, nullptr, &inst), VK_SUCCESS);
        if (inst == VK_NULL_HANDLE) return 0;
        uint32_t n = 0;
        EXPECT_EQ(G<PFN_vkEnumeratePhysicalDevices>(inst, "vkEnumeratePhysicalDevices")(inst, &n, nullptr), VK_SUCCESS);
        G<PFN_vkDestroyInstance>(inst, "vkDestroyInstance")(inst, nullptr);
        return n;
    }

    std::string root_;
    void *loader_ = nullptr;
    PFN_vkGetInstanceProcAddr gipa_ = nullptr;
};

// Three driver manifests, two naming one library: per acquisition each manifest is fopen'ed once,
// on the first (cache misses) and later (hits) alike; each library file is opened once at its load
// and stat'ed once per later acquisition (the check that it is unchanged), never fopen'ed: drv_a.so
// once, not once per driver, because d2 follows d1 in the search and the loader asks a library's
// file once per pass while one path is asked in a row (RULE_STARTUP_CACHE: bench/extreme.sh,
// 100,000 manifests naming one library), and dlopen finds the library d1 loaded by its name.
TEST_F(FileOpenCount, EachDriverManifestAndLibraryOpenedOncePerDriverPerAcquisition) {
    Driver("d1", "drv_a.so");
    Driver("d2", "drv_a.so");
    Driver("d3", "drv_b.so");
    const char *manifests[] = {"icd/d1.json", "icd/d2.json", "icd/d3.json"};
    for (int round = 0; round < 3; round++) {
        SCOPED_TRACE(round == 0 ? "cache misses: first acquisition" : "cache hits");
        StartCounting();
        EnumerateInstanceExtensions();
        StopCounting();
        for (const char *m : manifests) EXPECT_EQ(ManifestOpens(m), 1) << m << "\n" << Counts();
        // The load opens each library once (the kind check before dlopen); a later acquisition
        // checks it with one stat(2) and opens nothing.
        EXPECT_EQ(Opens("lib/drv_a.so"), round == 0 ? 1 : 0) << Counts();
        EXPECT_EQ(Opens("lib/drv_b.so"), round == 0 ? 1 : 0) << Counts();
        EXPECT_EQ(Stats("lib/drv_a.so"), round == 0 ? 0 : 1) << Counts();
        EXPECT_EQ(Stats("lib/drv_b.so"), round == 0 ? 0 : 1) << Counts();
        EXPECT_EQ(Fopens("lib/drv_a.so") + Fopens("lib/drv_b.so"), 0) << Counts();
    }
    // vkCreateInstance acquires once more: the same counts, and the three drivers answer.
    StartCounting();
    EXPECT_EQ(CreateEnumerateDestroy(), 3u);
    StopCounting();
    for (const char *m : manifests) EXPECT_EQ(ManifestOpens(m), 1) << m << "\n" << Counts();
    EXPECT_EQ(Opens("lib/drv_a.so") + Opens("lib/drv_b.so"), 0) << Counts();
    EXPECT_EQ(Stats("lib/drv_a.so"), 1) << Counts();
    EXPECT_EQ(Stats("lib/drv_b.so"), 1) << Counts();
}

// A manifest that changes is read again from the one stream whose identity showed the change: d2
// now names drv_b.so (a miss: one fopen, its content parsed), so drv_b.so is checked and loaded
// for two drivers and drv_a.so for one.
TEST_F(FileOpenCount, ChangedManifestReadFromTheStreamThatShowedTheChange) {
    Driver("d1", "drv_a.so");
    Driver("d2", "drv_a.so");
    EXPECT_EQ(CreateEnumerateDestroy(), 2u);
    Driver("d2", "drv_b.so"); // another library path: another size, so another identity
    StartCounting();
    EXPECT_EQ(CreateEnumerateDestroy(), 2u);
    StopCounting();
    EXPECT_EQ(ManifestOpens("icd/d1.json"), 1) << Counts();
    EXPECT_EQ(ManifestOpens("icd/d2.json"), 1) << Counts();
    // drv_a.so: one stat(2) serves d1's per-call identity check and d2's old entry's check before
    // its dlclose (an image written in place is never unloaded: icd.c library_poison,
    // RULE_ADVERSARIAL_INPUT): the same path asked twice in a row in one pass; drv_b.so opened
    // once, by its load.
    EXPECT_EQ(Stats("lib/drv_a.so"), 1) << Counts();
    EXPECT_EQ(Opens("lib/drv_a.so"), 0) << Counts();
    EXPECT_EQ(Opens("lib/drv_b.so"), 1) << Counts();
}

// Layer manifests share the manifest cache (manifest_cache.c): one fopen per manifest per search,
// explicit and implicit, on misses and hits.
TEST_F(FileOpenCount, EachLayerManifestOpenedOncePerSearch) {
    Driver("d1", "drv_a.so");
    Layer("exp", "VK_LAYER_count_e1");
    Layer("exp", "VK_LAYER_count_e2");
    Layer("imp", "VK_LAYER_count_i1");
    const char *manifests[] = {"exp/VK_LAYER_count_e1.json", "exp/VK_LAYER_count_e2.json",
                               "imp/VK_LAYER_count_i1.json"};
    for (int round = 0; round < 2; round++) {
        SCOPED_TRACE(round == 0 ? "cache misses" : "cache hits");
        StartCounting();
        EXPECT_EQ(EnumerateLayers(), 3u);
        StopCounting();
        for (const char *m : manifests) EXPECT_EQ(ManifestOpens(m), 1) << m << "\n" << Counts();
    }
}

} // namespace
