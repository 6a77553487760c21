// vkGetDeviceProcAddr's answer cache for layered devices (loader/device.c, "answer cache"): names
// the device dispatch table does not hold are answered by the top of the layer chain once per name
// per device, then from a lock-free per-device table.
//
// Our loader only (the Khronos loader walks the chain on every such lookup), in-process: the built
// libvulkan.so.1 is dlopen'ed over the mock driver (//mock_icd:libmock_icd_v7.so, which records every
// vkGetDeviceProcAddr it receives, "record_lookups") and three mock layers; the top one (v2_all,
// which exports its vkGetDeviceProcAddr) implements a device extension with one made-up command,
// offered only for devices created with that extension (mock_layers/README.md "device_functions").
// The chain's answer is what the top layer's own vkGetDeviceProcAddr returns for the device.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include <atomic>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "loader/test_support.h"

namespace {

const char kExt[] = "VK_EXT_gdpa_cache_test";
const char kLayerFn[] = "vkGdpaTopLayerFnEXT"; // the top layer's command (kExt)
const char kDriverFn[] = "vkGdpaDriverFnEXT";  // the mock driver's unknown command (pool slot 0)
const char kTop[] = "VK_LAYER_gdpa_top";
const char kMid[] = "VK_LAYER_gdpa_mid";
const char kLow[] = "VK_LAYER_gdpa_low";

using vkl_test::Runfile;

// Allocation callbacks that fail every allocation from the `fail_at`-th on (0: never).
struct FailingAlloc {
    std::atomic<uint64_t> count{0};
    std::atomic<uint64_t> fail_at{0};
    static void *VKAPI_PTR Alloc(void *u, size_t size, size_t align, VkSystemAllocationScope) {
        auto *self = static_cast<FailingAlloc *>(u);
        uint64_t n = ++self->count;
        uint64_t f = self->fail_at.load();
        if (f != 0 && n >= f) return nullptr;
        void *p = nullptr;
        return posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, size) == 0 ? p : nullptr;
    }
    static void *VKAPI_PTR Realloc(void *u, void *old, size_t size, size_t align, VkSystemAllocationScope s) {
        auto *self = static_cast<FailingAlloc *>(u);
        uint64_t n = ++self->count;
        uint64_t f = self->fail_at.load();
        if (f != 0 && n >= f) return nullptr;
        (void)s;
        (void)align;
        return realloc(old, size);
    }
    static void VKAPI_PTR Free(void *, void *p) { free(p); }
    VkAllocationCallbacks Callbacks() {
        VkAllocationCallbacks cb{};
        cb.pUserData = this;
        cb.pfnAllocation = Alloc;
        cb.pfnReallocation = Realloc;
        cb.pfnFree = Free;
        return cb;
    }
};

class GdpaCache : public ::testing::Test {
  protected:
    void SetUp() override {
        root_ = vkl_test::MakeTempDir("gdpa_cache");
        ASSERT_FALSE(root_.empty());
        Sh("mkdir -p '" + root_ + "/icd' '" + root_ + "/exp' '" + root_ + "/imp' '" + root_ + "/home'");
        Sh("cp '" + Runfile("mock_icd/libmock_icd_v7.so") + "' '" + root_ + "/icd/drv.so'");
        std::ofstream(root_ + "/icd/drv.so.scenario")
            << "{\"physical_devices\": [{\"name\": \"gdpa\", \"api_version\": \"1.3.0\"}], \"device_functions\": [\"" +
                   std::string(kDriverFn) + "\"], \"record_lookups\": true}";
        std::ofstream(root_ + "/icd/drv.json")
            << "{\"file_format_version\": \"1.0.1\", \"ICD\": {\"library_path\": \"" + root_ +
                   "/icd/drv.so\", \"api_version\": \"1.3.0\"}}";
        driver_calls_ = root_ + "/icd/drv.so.calls";
        setenv("VK_DRIVER_FILES", (root_ + "/icd/drv.json").c_str(), 1);
        setenv("VK_LAYER_PATH", (root_ + "/exp").c_str(), 1);
        setenv("VK_IMPLICIT_LAYER_PATH", (root_ + "/imp").c_str(), 1);
        setenv("HOME", (root_ + "/home").c_str(), 1);
        unsetenv("VK_INSTANCE_LAYERS");
        AddLayer(kTop, "v2_all",
                 std::string(", \"device_extensions\": [{\"name\": \"") + kExt +
                     "\", \"spec_version\": \"1\", \"entrypoints\": [\"" + kLayerFn + "\"]}]",
                 std::string(", \"device_extension\": \"") + kExt + "\", \"device_functions\": [\"" + kLayerFn + "\"]");
        AddLayer(kMid, "v1");
        AddLayer(kLow, "v2");
        loader_ = dlopen(Runfile("loader/libvulkan.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
        ASSERT_NE(loader_, nullptr) << dlerror();
        gipa_ = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(loader_, "vkGetInstanceProcAddr"));
        ASSERT_NE(gipa_, nullptr);
        CreateInstance();
    }
    void TearDown() override {
        if (inst_ != VK_NULL_HANDLE) G<PFN_vkDestroyInstance>("vkDestroyInstance")(inst_, nullptr);
        if (loader_) dlclose(loader_);
        Sh("rm -rf '" + root_ + "'");
    }
    static void Sh(const std::string &c) { vkl_test::Sh(c); }
    void AddLayer(const std::string &name, const std::string &variant, const std::string &manifest_extra = "",
                  const std::string &scenario_extra = "") {
        std::string lib = root_ + "/exp/" + name + ".so";
        Sh("cp '" + Runfile("mock_layers/libmock_layer_" + variant + ".so") + "' '" + lib + "'");
        std::ofstream(lib + ".scenario") << "{\"name\": \"" + name + "\", \"calls_file\": \"" + root_ +
                                                "/layers.calls\"" + scenario_extra + "}";
        std::ofstream(root_ + "/exp/" + name + ".json")
            << "{\"file_format_version\": \"1.1.2\", \"layer\": {\"name\": \"" + name +
                   "\", \"type\": \"GLOBAL\", \"library_path\": \"./" + name +
                   ".so\", \"api_version\": \"1.3.0\", \"implementation_version\": \"1\", \"description\": \"mock\"" +
                   manifest_extra + "}}";
    }
    template <typename T> T G(const char *n) { return reinterpret_cast<T>(gipa_(inst_, n)); }
    void CreateInstance() {
        VkApplicationInfo app{};
        app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
        app.apiVersion = VK_API_VERSION_1_3;
        const char *layers[] = {kTop, kMid, kLow};
        VkInstanceCreateInfo ci{};
        ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
        ci.pApplicationInfo = &app;
        ci.enabledLayerCount = 3;
        ci.ppEnabledLayerNames = layers;
        ASSERT_EQ(
            reinterpret_cast<PFN_vkCreateInstance>(gipa_(VK_NULL_HANDLE, "vkCreateInstance"))(&ci, nullptr, &inst_),
            VK_SUCCESS);
        uint32_t n = 1;
        ASSERT_EQ(G<PFN_vkEnumeratePhysicalDevices>("vkEnumeratePhysicalDevices")(inst_, &n, &pd_), VK_SUCCESS);
        ASSERT_NE(pd_, VK_NULL_HANDLE);
        gdpa_ = G<PFN_vkGetDeviceProcAddr>("vkGetDeviceProcAddr");
        ASSERT_NE(gdpa_, nullptr);
        // The top layer, as the loader loaded it: its vkGetDeviceProcAddr is the top of the chain.
        void *top = dlopen((root_ + "/exp/" + kTop + ".so").c_str(), RTLD_NOW | RTLD_NOLOAD);
        ASSERT_NE(top, nullptr) << dlerror();
        top_gdpa_ = reinterpret_cast<PFN_vkGetDeviceProcAddr>(dlsym(top, "vkGetDeviceProcAddr"));
        dlclose(top); // drops only the reference NOLOAD took
        ASSERT_NE(top_gdpa_, nullptr);
    }
    VkDevice CreateDevice(bool with_ext, const VkAllocationCallbacks *alloc = nullptr) {
        float prio = 1.0f;
        VkDeviceQueueCreateInfo q{};
        q.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
        q.queueCount = 1;
        q.pQueuePriorities = &prio;
        const char *ext[] = {kExt};
        VkDeviceCreateInfo dci{};
        dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
        dci.queueCreateInfoCount = 1;
        dci.pQueueCreateInfos = &q;
        dci.enabledExtensionCount = with_ext ? 1 : 0;
        dci.ppEnabledExtensionNames = with_ext ? ext : nullptr;
        VkDevice dev = VK_NULL_HANDLE;
        EXPECT_EQ(G<PFN_vkCreateDevice>("vkCreateDevice")(pd_, &dci, alloc, &dev), VK_SUCCESS);
        return dev;
    }
    void DestroyDevice(VkDevice dev, const VkAllocationCallbacks *alloc = nullptr) {
        G<PFN_vkDestroyDevice>("vkDestroyDevice")(dev, alloc);
    }
    // How many times the mock driver's vkGetDeviceProcAddr was asked for `name` (a walk that reached
    // the bottom of the chain).
    int DriverLookups(const std::string &name) {
        std::ifstream f(driver_calls_);
        std::string line;
        int n = 0;
        while (std::getline(f, line))
            if (line.find("\"call\":\"vkGetDeviceProcAddr\"") != std::string::npos &&
                line.find("\"name\":\"" + name + "\"") != std::string::npos)
                n++;
        return n;
    }
    // 50 names the device dispatch table does not hold: the top layer's command, the driver's
    // unknown command, commands of other levels, and made-up names nobody implements.
    static std::vector<std::string> FiftyNames() {
        std::vector<std::string> v = {kLayerFn, kDriverFn, "vkCreateInstance", "vkEnumeratePhysicalDevices",
                                      "vkGetPhysicalDeviceProperties"};
        for (int i = 0; v.size() < 50; i++) v.push_back("vkGdpaUnknown" + std::to_string(i) + "EXT");
        return v;
    }

    std::string root_, driver_calls_;
    void *loader_ = nullptr;
    PFN_vkGetInstanceProcAddr gipa_ = nullptr;
    VkInstance inst_ = VK_NULL_HANDLE;
    VkPhysicalDevice pd_ = VK_NULL_HANDLE;
    PFN_vkGetDeviceProcAddr gdpa_ = nullptr, top_gdpa_ = nullptr;
};

// The answer for every name equals the chain's (the top layer's own vkGetDeviceProcAddr), cold and
// cached, from 8 threads at once (1,000 lookups each over 50 names, the cache filling and growing
// while they run), and again afterwards from one thread.
TEST_F(GdpaCache, AnswersEqualTheChainsFromManyThreads) {
    VkDevice dev = CreateDevice(true);
    ASSERT_NE(dev, VK_NULL_HANDLE);
    const std::vector<std::string> names = FiftyNames();
    std::vector<PFN_vkVoidFunction> chain;
    for (const std::string &n : names) chain.push_back(top_gdpa_(dev, n.c_str()));
    // The set-up exercises both kinds of answer: the layer's and the driver's commands, NULL.
    ASSERT_NE(chain[0], nullptr);
    ASSERT_NE(chain[1], nullptr);
    ASSERT_NE(chain[0], chain[1]);
    ASSERT_EQ(chain[10], nullptr);

    std::atomic<int> ready{0}, mismatches{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; t++) {
        threads.emplace_back([&, t] {
            ready++;
            while (ready.load() < 8) std::this_thread::yield();
            for (int k = 0; k < 1000; k++) {
                size_t i = (size_t)(t * 7 + k) % names.size();
                if (gdpa_(dev, names[i].c_str()) != chain[i]) mismatches++;
            }
        });
    }
    for (std::thread &th : threads) th.join();
    EXPECT_EQ(mismatches.load(), 0);
    for (size_t i = 0; i < names.size(); i++) {
        // A copy: the cache must not keep (or compare by) the application's pointer.
        std::string copy = names[i];
        EXPECT_EQ(gdpa_(dev, copy.c_str()), chain[i]) << names[i];
    }
    // Names the cache does not hold (shorter than 8 bytes, longer than 255) still get the chain's answer.
    std::string long_name = "vk" + std::string(300, 'L') + "EXT";
    EXPECT_EQ(gdpa_(dev, "vkShrt"), top_gdpa_(dev, "vkShrt"));
    EXPECT_EQ(gdpa_(dev, long_name.c_str()), top_gdpa_(dev, long_name.c_str()));
    DestroyDevice(dev);
}

// The cache is per device: the top layer offers its command only to the device that enabled its
// extension, and each device keeps its own answer, whichever asked first, and after a device is
// destroyed and another created (possibly at the same address).
TEST_F(GdpaCache, PerDevice) {
    VkDevice with = CreateDevice(true), without = CreateDevice(false);
    ASSERT_NE(with, VK_NULL_HANDLE);
    ASSERT_NE(without, VK_NULL_HANDLE);
    PFN_vkVoidFunction layer_fn = top_gdpa_(with, kLayerFn);
    ASSERT_NE(layer_fn, nullptr);
    ASSERT_EQ(top_gdpa_(without, kLayerFn), nullptr);
    for (int round = 0; round < 3; round++) {
        EXPECT_EQ(gdpa_(without, kLayerFn), nullptr) << round;
        EXPECT_EQ(gdpa_(with, kLayerFn), layer_fn) << round;
        EXPECT_NE(gdpa_(with, kDriverFn), nullptr) << round;
        EXPECT_EQ(gdpa_(with, kDriverFn), gdpa_(without, kDriverFn)) << round;
    }
    DestroyDevice(with);
    VkDevice later_without = CreateDevice(false);
    EXPECT_EQ(gdpa_(later_without, kLayerFn), nullptr);
    DestroyDevice(without);
    VkDevice later_with = CreateDevice(true);
    EXPECT_EQ(gdpa_(later_with, kLayerFn), top_gdpa_(later_with, kLayerFn));
    EXPECT_NE(gdpa_(later_with, kLayerFn), nullptr);
    DestroyDevice(later_without);
    DestroyDevice(later_with);
}

// Our loader asks the chain once per name per device: the mock driver sees one vkGetDeviceProcAddr
// per name on each of two devices after 100 lookups on each; from 8 threads at once at most one per
// thread. Names the cache does not hold walk the chain every time.
TEST_F(GdpaCache, AsksTheChainOncePerNamePerDevice) {
    VkDevice a = CreateDevice(true), b = CreateDevice(false);
    ASSERT_NE(a, VK_NULL_HANDLE);
    ASSERT_NE(b, VK_NULL_HANDLE);
    for (int i = 0; i < 20; i++) {
        std::string n = "vkGdpaOnce" + std::to_string(i) + "EXT";
        for (int k = 0; k < 100; k++) {
            EXPECT_EQ(gdpa_(a, n.c_str()), nullptr);
            EXPECT_EQ(gdpa_(b, n.c_str()), nullptr);
        }
    }
    for (int k = 0; k < 100; k++) EXPECT_NE(gdpa_(a, kDriverFn), nullptr);
    for (int i = 0; i < 20; i++) EXPECT_EQ(DriverLookups("vkGdpaOnce" + std::to_string(i) + "EXT"), 2) << i;
    EXPECT_EQ(DriverLookups(kDriverFn), 1);
    // The layer's own command never reaches the driver on the device that enabled it.
    // (vkCreateDevice itself asks the driver for it: the manifest lists it as an entry point.)
    int at_create = DriverLookups(kLayerFn);
    for (int k = 0; k < 10; k++) EXPECT_NE(gdpa_(a, kLayerFn), nullptr);
    EXPECT_EQ(DriverLookups(kLayerFn), at_create);

    std::vector<std::thread> threads;
    std::atomic<int> ready{0};
    for (int t = 0; t < 8; t++) {
        threads.emplace_back([&] {
            ready++;
            while (ready.load() < 8) std::this_thread::yield();
            for (int k = 0; k < 100; k++)
                for (int i = 0; i < 20; i++) gdpa_(a, ("vkGdpaThreads" + std::to_string(i) + "EXT").c_str());
        });
    }
    for (std::thread &th : threads) th.join();
    for (int i = 0; i < 20; i++) {
        int n = DriverLookups("vkGdpaThreads" + std::to_string(i) + "EXT");
        EXPECT_GE(n, 1) << i;
        EXPECT_LE(n, 8) << i;
    }

    for (int k = 0; k < 5; k++) gdpa_(a, "vkShrt");
    EXPECT_EQ(DriverLookups("vkShrt"), 5);
    DestroyDevice(a);
    DestroyDevice(b);
}

// At most 1,024 names per device are kept: on a fresh device, 1,100 names looked up twice reach the
// driver 1,100 + 76 times (the names after the first 1,024 walk the chain again), with every answer
// still the chain's.
TEST_F(GdpaCache, BoundedAt1024Names) {
    VkDevice dev = CreateDevice(false);
    ASSERT_NE(dev, VK_NULL_HANDLE);
    int wrong = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 1100; i++)
            if (gdpa_(dev, ("vkGdpaBound" + std::to_string(i) + "EXT").c_str()) != nullptr) wrong++;
    EXPECT_EQ(gdpa_(dev, kDriverFn), top_gdpa_(dev, kDriverFn));
    EXPECT_NE(gdpa_(dev, kDriverFn), nullptr);
    EXPECT_EQ(wrong, 0);
    int first = 0, second = 0;
    for (int i = 0; i < 1100; i++) {
        int n = DriverLookups("vkGdpaBound" + std::to_string(i) + "EXT");
        (i < 1024 ? first : second) += n;
    }
    EXPECT_EQ(first, 1024);
    EXPECT_EQ(second, 2 * 76);
    // kDriverFn came after the 1,100 names: never cached, so the driver saw both loader lookups and
    // the test's own call of the top layer's vkGetDeviceProcAddr.
    EXPECT_EQ(DriverLookups(kDriverFn), 3);
    DestroyDevice(dev);
}

// An allocation failure while inserting (the name's copy, or the table) leaves the name uncached:
// the chain's answer is returned and nothing leaks (LeakSanitizer under --config=asan); once
// allocations succeed again the name is cached.
TEST_F(GdpaCache, AllocationFailureLeavesNameUncached) {
    FailingAlloc fa;
    VkAllocationCallbacks cb = fa.Callbacks();
    VkDevice dev = CreateDevice(false, &cb);
    ASSERT_NE(dev, VK_NULL_HANDLE);
    PFN_vkVoidFunction driver_fn = top_gdpa_(dev, kDriverFn);
    ASSERT_NE(driver_fn, nullptr);
    // Every allocation fails: the name's copy.
    fa.fail_at = fa.count.load() + 1;
    for (int k = 0; k < 3; k++) EXPECT_EQ(gdpa_(dev, kDriverFn), driver_fn);
    EXPECT_EQ(DriverLookups(kDriverFn), 1 + 3);
    // The second allocation fails: the copy succeeds, the first table does not (the copy is freed).
    fa.fail_at = fa.count.load() + 2;
    EXPECT_EQ(gdpa_(dev, kDriverFn), driver_fn);
    fa.fail_at = fa.count.load() + 2;
    EXPECT_EQ(gdpa_(dev, kDriverFn), driver_fn);
    EXPECT_EQ(DriverLookups(kDriverFn), 1 + 5);
    fa.fail_at = 0;
    for (int k = 0; k < 3; k++) EXPECT_EQ(gdpa_(dev, kDriverFn), driver_fn);
    EXPECT_EQ(DriverLookups(kDriverFn), 1 + 6);
    DestroyDevice(dev, &cb);
}

} // namespace
