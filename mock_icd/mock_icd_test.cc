// Tests of the mock ICD itself: every test dlopens a fresh copy of a variant (copied into
// $TEST_TMPDIR with a `.scenario` sidecar) and drives it the way a loader would.
#define VK_NO_PROTOTYPES 1

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <cjson/cJSON.h>
#include <gtest/gtest.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vulkan.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mock_icd/mock_icd_ctl.h"

namespace fs = std::filesystem;

namespace {

std::string RunfilesLibrary(const std::string &variant) {
    const char *srcdir = std::getenv("TEST_SRCDIR");
    const char *ws = std::getenv("TEST_WORKSPACE");
    return std::string(srcdir ? srcdir : ".") + "/" + (ws ? ws : "vk_loader_harness") + "/mock_icd/libmock_icd_" +
           variant + ".so";
}

std::string TestTmpDir() {
    const char *t = std::getenv("TEST_TMPDIR");
    return t ? t : "/tmp";
}

// One record (a JSON object) with convenient accessors.
struct Record {
    std::shared_ptr<cJSON> json;
    std::string call() const { return Str("call"); }
    const cJSON *Get(const char *key) const { return cJSON_GetObjectItemCaseSensitive(json.get(), key); }
    std::string Str(const char *key) const {
        const cJSON *v = Get(key);
        return cJSON_IsString(v) ? v->valuestring : (cJSON_IsNull(v) ? "<null>" : "<missing>");
    }
    double Num(const char *key) const {
        const cJSON *v = Get(key);
        return cJSON_IsNumber(v) ? v->valuedouble : -1;
    }
    bool Bool(const char *key) const { return cJSON_IsTrue(Get(key)); }
    std::vector<std::string> Strings(const char *key) const {
        std::vector<std::string> out;
        const cJSON *it;
        cJSON_ArrayForEach(it, Get(key)) out.push_back(cJSON_IsString(it) ? it->valuestring : "<null>");
        return out;
    }
};

Record ParseRecord(const std::string &line) {
    cJSON *j = cJSON_Parse(line.c_str());
    EXPECT_NE(j, nullptr) << "not JSON: " << line;
    return Record{std::shared_ptr<cJSON>(j, cJSON_Delete)};
}

class Mock {
  public:
    Mock(const std::string &variant, const std::string &scenario, int dlflags = RTLD_NOW | RTLD_LOCAL) {
        static int counter = 0;
        const testing::TestInfo *ti = testing::UnitTest::GetInstance()->current_test_info();
        dir_ = TestTmpDir() + "/" + ti->test_suite_name() + "." + ti->name() + "." + std::to_string(counter++);
        fs::create_directories(dir_);
        path_ = dir_ + "/libmock_icd_" + variant + ".so";
        fs::copy_file(RunfilesLibrary(variant), path_, fs::copy_options::overwrite_existing);
        if (!scenario.empty()) std::ofstream(path_ + ".scenario") << scenario;
        handle_ = dlopen(path_.c_str(), dlflags);
        EXPECT_NE(handle_, nullptr) << dlerror();
    }
    ~Mock() {
        if (handle_) dlclose(handle_);
    }
    Mock(const Mock &) = delete;
    Mock &operator=(const Mock &) = delete;

    template <typename T> T Sym(const char *name) const { return reinterpret_cast<T>(dlsym(handle_, name)); }
    // The GIPA a loader would use: vk_icdGetInstanceProcAddr, else the exported vkGetInstanceProcAddr.
    PFN_vkGetInstanceProcAddr Gipa() const {
        auto g = Sym<PFN_vkGetInstanceProcAddr>("vk_icdGetInstanceProcAddr");
        return g ? g : Sym<PFN_vkGetInstanceProcAddr>("vkGetInstanceProcAddr");
    }
    template <typename T> T Proc(VkInstance instance, const char *name) const {
        return reinterpret_cast<T>(Gipa()(instance, name));
    }
    VkResult Negotiate(uint32_t *version) const {
        auto n = Sym<PFN_vk_icdNegotiateLoaderICDInterfaceVersion>("vk_icdNegotiateLoaderICDInterfaceVersion");
        if (!n)
            n = Proc<PFN_vk_icdNegotiateLoaderICDInterfaceVersion>(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion");
        EXPECT_NE(n, nullptr);
        return n ? n(version) : VK_ERROR_INITIALIZATION_FAILED;
    }
    VkResult CreateInstance(uint32_t api_version, VkInstance *out, std::vector<const char *> exts = {}) const {
        VkApplicationInfo app{};
        app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
        app.pApplicationName = "mock_icd_test";
        app.apiVersion = api_version;
        VkInstanceCreateInfo ci{};
        ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
        ci.pApplicationInfo = &app;
        ci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
        ci.ppEnabledExtensionNames = exts.data();
        return Proc<PFN_vkCreateInstance>(nullptr, "vkCreateInstance")(&ci, nullptr, out);
    }
    void DestroyInstance(VkInstance instance) const {
        Proc<PFN_vkDestroyInstance>(instance, "vkDestroyInstance")(instance, nullptr);
    }
    std::vector<VkPhysicalDevice> PhysicalDevices(VkInstance instance) const {
        auto enumerate = Proc<PFN_vkEnumeratePhysicalDevices>(instance, "vkEnumeratePhysicalDevices");
        uint32_t n = 0;
        EXPECT_EQ(enumerate(instance, &n, nullptr), VK_SUCCESS);
        std::vector<VkPhysicalDevice> pds(n);
        EXPECT_EQ(enumerate(instance, &n, pds.data()), VK_SUCCESS);
        pds.resize(n);
        return pds;
    }

    std::vector<Record> Records() const {
        std::vector<Record> out;
        size_t n = Sym<PFN_mock_icd_ctl_record_count>("mock_icd_ctl_record_count")();
        auto get = Sym<PFN_mock_icd_ctl_record_get>("mock_icd_ctl_record_get");
        for (size_t i = 0; i < n; i++) out.push_back(ParseRecord(get(i)));
        EXPECT_EQ(get(n), nullptr);
        return out;
    }
    std::vector<Record> Records(const std::string &call) const {
        std::vector<Record> out;
        for (auto &r : Records())
            if (r.call() == call) out.push_back(r);
        return out;
    }
    std::vector<std::string> CallsFileLines() const {
        std::ifstream f(path_ + ".calls");
        std::vector<std::string> lines;
        for (std::string line; std::getline(f, line);) lines.push_back(line);
        return lines;
    }
    int LoadScenario(const char *json) const {
        return Sym<PFN_mock_icd_ctl_load_scenario>("mock_icd_ctl_load_scenario")(json);
    }
    void Reset() const { Sym<PFN_mock_icd_ctl_reset>("mock_icd_ctl_reset")(); }
    void SetResult(const char *cmd, VkResult r) const {
        Sym<PFN_mock_icd_ctl_set_result>("mock_icd_ctl_set_result")(cmd, r);
    }

    const std::string &path() const { return path_; }
    void *handle() const { return handle_; }

  private:
    std::string dir_, path_;
    void *handle_ = nullptr;
};

bool HasMagic(const void *obj) {
    return (reinterpret_cast<const VK_LOADER_DATA *>(obj)->loaderMagic & 0xffffffff) == ICD_LOADER_MAGIC;
}

// ---------------------------------------------------------------------------------------------
// Negotiation

TEST(Negotiation, WritesMinOfOfferedAndMax) {
    Mock m("v7_exports", R"({"interface": {"min": 3, "max": 5}})");
    uint32_t v = 7;
    EXPECT_EQ(m.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 5u);
    v = 4;
    EXPECT_EQ(m.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 4u);
    v = 3;
    EXPECT_EQ(m.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 3u);
    auto recs = m.Records("vk_icdNegotiateLoaderICDInterfaceVersion");
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_EQ(recs[0].Num("offered"), 7);
    EXPECT_EQ(recs[0].Num("returned"), 5);
    EXPECT_EQ(recs[0].Str("result"), "VK_SUCCESS");
}

TEST(Negotiation, BelowMinimumIsIncompatible) {
    Mock m("v7_exports", R"({"interface": {"min": 3}})");
    uint32_t v = 2;
    EXPECT_EQ(m.Negotiate(&v), VK_ERROR_INCOMPATIBLE_DRIVER);
    EXPECT_EQ(v, 2u);
    auto recs = m.Records("vk_icdNegotiateLoaderICDInterfaceVersion");
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].Str("result"), "VK_ERROR_INCOMPATIBLE_DRIVER");
}

TEST(Negotiation, CompileTimeMaximumPerVariant) {
    for (auto [variant, max] : std::vector<std::pair<std::string, uint32_t>>{{"v4", 4}, {"v5", 5}, {"v7", 7}}) {
        // The scenario cannot raise the maximum above the build's.
        Mock m(variant, R"({"interface": {"max": 9}})");
        uint32_t v = 7;
        EXPECT_EQ(m.Negotiate(&v), VK_SUCCESS) << variant;
        EXPECT_EQ(v, max) << variant;
    }
}

TEST(Negotiation, Misbehaviours) {
    {
        Mock m("v7_exports", R"({"interface": {"report_version": 9}})");
        uint32_t v = 7;
        EXPECT_EQ(m.Negotiate(&v), VK_SUCCESS);
        EXPECT_EQ(v, 9u);
    }
    {
        Mock m("v7_exports", R"({"interface": {"negotiate_result": "VK_ERROR_INITIALIZATION_FAILED"}})");
        uint32_t v = 7;
        EXPECT_EQ(m.Negotiate(&v), VK_ERROR_INITIALIZATION_FAILED);
        EXPECT_EQ(m.Records("vk_icdNegotiateLoaderICDInterfaceVersion")[0].Str("result"),
                  "VK_ERROR_INITIALIZATION_FAILED");
    }
    {
        Mock m("v7_exports", R"({"interface": {"negotiate_result": -9}})");
        uint32_t v = 7;
        EXPECT_EQ(m.Negotiate(&v), VK_ERROR_INCOMPATIBLE_DRIVER);
    }
}

TEST(Negotiation, V7ReachableOnlyThroughGipa) {
    Mock m("v7", "");
    EXPECT_EQ(m.Sym<void *>("vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    EXPECT_EQ(m.Sym<void *>("vk_icdGetPhysicalDeviceProcAddr"), nullptr);
    auto gipa = m.Sym<PFN_vkGetInstanceProcAddr>("vk_icdGetInstanceProcAddr");
    ASSERT_NE(gipa, nullptr);
    EXPECT_NE(gipa(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    EXPECT_NE(gipa(nullptr, "vk_icdGetPhysicalDeviceProcAddr"), nullptr);
    auto first = m.Records("first_entry");
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].Str("loader"), "v7");

    Mock no_gpdpa("v7_nogpdpa", "");
    EXPECT_NE(no_gpdpa.Gipa()(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    EXPECT_EQ(no_gpdpa.Gipa()(nullptr, "vk_icdGetPhysicalDeviceProcAddr"), nullptr);

    // Below 7 the GIPA does not hand out the interface functions.
    Mock v4("v4_gpdpa", "");
    EXPECT_EQ(v4.Gipa()(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    EXPECT_NE(v4.Sym<void *>("vk_icdGetPhysicalDeviceProcAddr"), nullptr);
}

TEST(Negotiation, LegacyLoaderDetection) {
    {
        Mock m("v4", "");
        uint32_t v = 7;
        m.Negotiate(&v);
        m.Gipa()(nullptr, "vkCreateInstance");
        auto first = m.Records("first_entry");
        ASSERT_EQ(first.size(), 1u);
        EXPECT_EQ(first[0].Str("entry"), "vk_icdNegotiateLoaderICDInterfaceVersion");
        EXPECT_EQ(first[0].Str("loader"), "negotiate");
    }
    {
        Mock m("v1", "");
        EXPECT_EQ(m.Sym<void *>("vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
        EXPECT_NE(m.Gipa()(nullptr, "vkCreateInstance"), nullptr);
        auto first = m.Records("first_entry");
        ASSERT_EQ(first.size(), 1u);
        EXPECT_EQ(first[0].Str("loader"), "legacy_v1");
        EXPECT_EQ(first[0].Str("name"), "vkCreateInstance");
    }
    {
        Mock m("v0", "");
        EXPECT_EQ(m.Sym<void *>("vk_icdGetInstanceProcAddr"), nullptr);
        EXPECT_NE(m.Sym<void *>("vkCreateInstance"), nullptr);
        EXPECT_NE(m.Sym<void *>("vkEnumerateInstanceExtensionProperties"), nullptr);
        EXPECT_NE(m.Gipa()(nullptr, "vkCreateInstance"), nullptr);
        auto first = m.Records("first_entry");
        ASSERT_EQ(first.size(), 1u);
        EXPECT_EQ(first[0].Str("entry"), "vkGetInstanceProcAddr");
        EXPECT_EQ(first[0].Str("loader"), "v0");
    }
}

// ---------------------------------------------------------------------------------------------
// GIPA

TEST(Gipa, GlobalFunctionsForNullInstance) {
    Mock m("v7", "");
    auto gipa = m.Gipa();
    EXPECT_NE(gipa(nullptr, "vkCreateInstance"), nullptr);
    EXPECT_NE(gipa(nullptr, "vkEnumerateInstanceExtensionProperties"), nullptr);
    EXPECT_NE(gipa(nullptr, "vkEnumerateInstanceVersion"), nullptr);
    EXPECT_EQ(gipa(nullptr, "vkEnumeratePhysicalDevices"), nullptr);
    EXPECT_EQ(gipa(nullptr, "vkCreateDevice"), nullptr);
    EXPECT_EQ(gipa(nullptr, "vkNotAFunction"), nullptr);
    auto recs = m.Records("vk_icdGetInstanceProcAddr");
    ASSERT_EQ(recs.size(), 6u);
    EXPECT_EQ(recs[0].Str("name"), "vkCreateInstance");
    EXPECT_TRUE(recs[0].Bool("instance_null"));
    EXPECT_TRUE(recs[0].Bool("answered"));
    EXPECT_FALSE(recs[3].Bool("answered"));

    auto eiv = m.Proc<PFN_vkEnumerateInstanceVersion>(nullptr, "vkEnumerateInstanceVersion");
    uint32_t version = 0;
    EXPECT_EQ(eiv(&version), VK_SUCCESS);
    EXPECT_EQ(version, VK_MAKE_API_VERSION(0, 1, 3, 0));
}

TEST(Gipa, EnumerateInstanceVersionOnlyWhenExposed) {
    Mock m("v7", R"({"expose_enumerate_instance_version": false, "record_lookups": false})");
    EXPECT_EQ(m.Gipa()(nullptr, "vkEnumerateInstanceVersion"), nullptr);
    EXPECT_TRUE(m.Records("vk_icdGetInstanceProcAddr").empty());
}

TEST(Gipa, InstanceLevelAnswersAndExtensionGates) {
    Mock m("v7", R"({"api_version": "1.0.0",
                     "instance_extensions": [{"name": "VK_EXT_debug_utils", "spec_version": 2}],
                     "physical_devices": [{"api_version": "1.0.0"}]})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(VK_API_VERSION_1_0, &inst, {"VK_EXT_debug_utils"}), VK_SUCCESS);
    auto gipa = m.Gipa();
    for (const char *name :
         {"vkDestroyInstance", "vkEnumeratePhysicalDevices", "vkGetPhysicalDeviceFeatures",
          "vkGetPhysicalDeviceFormatProperties", "vkGetPhysicalDeviceImageFormatProperties",
          "vkGetPhysicalDeviceProperties", "vkGetPhysicalDeviceQueueFamilyProperties",
          "vkGetPhysicalDeviceMemoryProperties", "vkGetDeviceProcAddr", "vkCreateDevice",
          "vkEnumerateDeviceExtensionProperties", "vkGetPhysicalDeviceSparseImageFormatProperties",
          "vkCreateDebugUtilsMessengerEXT", "vkDestroyDebugUtilsMessengerEXT", "vkDestroyDevice", "vkCmdFillBuffer"})
        EXPECT_NE(gipa(inst, name), nullptr) << name;
    // 1.0 everywhere and no VK_KHR_get_physical_device_properties2: no *2 functions.
    EXPECT_EQ(gipa(inst, "vkGetPhysicalDeviceProperties2"), nullptr);
    EXPECT_EQ(gipa(inst, "vkGetPhysicalDeviceProperties2KHR"), nullptr);
    EXPECT_EQ(gipa(inst, "vkEnumeratePhysicalDeviceGroups"), nullptr);
    // No VK_KHR_surface: no surface functions.
    EXPECT_EQ(gipa(inst, "vkDestroySurfaceKHR"), nullptr);

    auto create = m.Proc<PFN_vkCreateDebugUtilsMessengerEXT>(inst, "vkCreateDebugUtilsMessengerEXT");
    VkDebugUtilsMessengerCreateInfoEXT ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    ci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    ci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    EXPECT_EQ(create(inst, &ci, nullptr, &messenger), VK_SUCCESS);
    EXPECT_NE(messenger, VK_NULL_HANDLE);
    m.Proc<PFN_vkDestroyDebugUtilsMessengerEXT>(inst, "vkDestroyDebugUtilsMessengerEXT")(inst, messenger, nullptr);
    EXPECT_TRUE(m.Records("vkDestroyDebugUtilsMessengerEXT").at(0).Bool("valid"));
    m.DestroyInstance(inst);
}

TEST(Gipa, SurfaceFunctionsNeedInterface3UnlessMisbehaving) {
    const char *base = R"({"instance_extensions": ["VK_KHR_surface", "VK_KHR_xcb_surface"]})";
    {
        Mock m("v3", base);
        uint32_t v = 7;
        ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
        EXPECT_NE(m.Gipa()(nullptr, "vkCreateInstance"), nullptr);
        VkInstance inst;
        ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
        EXPECT_NE(m.Gipa()(inst, "vkCreateXcbSurfaceKHR"), nullptr);
        EXPECT_NE(m.Gipa()(inst, "vkDestroySurfaceKHR"), nullptr);
        EXPECT_EQ(m.Gipa()(inst, "vkCreateWaylandSurfaceKHR"), nullptr);
        m.DestroyInstance(inst);
    }
    {
        Mock m("v2", base);
        uint32_t v = 7;
        ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
        ASSERT_EQ(v, 2u);
        VkInstance inst;
        ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
        EXPECT_EQ(m.Gipa()(inst, "vkCreateXcbSurfaceKHR"), nullptr);
        m.DestroyInstance(inst);
    }
    {
        Mock m("v2", R"({"misbehave": {"surface_without_interface_3": true}})");
        uint32_t v = 7;
        ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
        VkInstance inst;
        ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
        auto create =
            m.Proc<VkResult(VKAPI_PTR *)(VkInstance, const void *, const VkAllocationCallbacks *, VkSurfaceKHR *)>(
                inst, "vkCreateXcbSurfaceKHR");
        ASSERT_NE(create, nullptr);
        VkSurfaceKHR surface = VK_NULL_HANDLE;
        EXPECT_EQ(create(inst, nullptr, nullptr, &surface), VK_SUCCESS);
        EXPECT_EQ(m.Records("vkCreateXcbSurfaceKHR").at(0).Num("interface"), 2);
        // Left for vkDestroyInstance to free.
        m.DestroyInstance(inst);
    }
}

// ---------------------------------------------------------------------------------------------
// vkCreateInstance API-version rules (LDP_DRIVER_9 / LDP_DRIVER_10)

TEST(CreateInstance, InterfaceUpTo4RejectsApiAboveOwn) {
    Mock m("v4", R"({"api_version": "1.1.0"})");
    uint32_t v = 7;
    ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
    ASSERT_EQ(v, 4u);
    VkInstance inst = VK_NULL_HANDLE;
    EXPECT_EQ(m.CreateInstance(VK_API_VERSION_1_2, &inst), VK_ERROR_INCOMPATIBLE_DRIVER);
    EXPECT_EQ(m.CreateInstance(VK_MAKE_API_VERSION(0, 1, 1, 99), &inst), VK_SUCCESS);
    m.DestroyInstance(inst);
    auto recs = m.Records("vkCreateInstance");
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].Str("api_version"), "1.2.0");
    EXPECT_EQ(recs[0].Str("result"), "VK_ERROR_INCOMPATIBLE_DRIVER");
    EXPECT_EQ(recs[0].Num("interface"), 4);
    EXPECT_EQ(recs[1].Str("api_version"), "1.1.99");
    EXPECT_EQ(recs[1].Str("app_name"), "mock_icd_test");
    EXPECT_EQ(recs[1].Str("result"), "VK_SUCCESS");
    EXPECT_EQ(m.Records("vkDestroyInstance").size(), 1u);
}

TEST(CreateInstance, InterfaceUpTo4AcceptAnyMisbehaviour) {
    Mock m("v4", R"({"api_version": "1.0.0", "misbehave": {"accept_any_api_version": true}})");
    uint32_t v = 4;
    ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
    VkInstance inst = VK_NULL_HANDLE;
    EXPECT_EQ(m.CreateInstance(VK_API_VERSION_1_3, &inst), VK_SUCCESS);
    m.DestroyInstance(inst);
}

TEST(CreateInstance, LegacyLoaderCountsAsInterfaceBelow5) {
    Mock m("v7", R"({"api_version": "1.0.0"})");
    VkInstance inst = VK_NULL_HANDLE; // never negotiated
    EXPECT_EQ(m.CreateInstance(VK_API_VERSION_1_1, &inst), VK_ERROR_INCOMPATIBLE_DRIVER);
    EXPECT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS); // 0 means 1.0
    EXPECT_EQ(m.Records("vkCreateInstance").at(1).Str("api_version"), "0.0.0");
    m.DestroyInstance(inst);
}

TEST(CreateInstance, Interface5AcceptsAnyApiVersion) {
    Mock m("v5", R"({"api_version": "1.1.0"})");
    uint32_t v = 7;
    ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
    ASSERT_EQ(v, 5u);
    VkInstance inst = VK_NULL_HANDLE;
    EXPECT_EQ(m.CreateInstance(VK_MAKE_API_VERSION(0, 1, 9, 0), &inst), VK_SUCCESS);
    m.DestroyInstance(inst);
}

TEST(CreateInstance, Interface5IncompatibleMisbehaviour) {
    Mock m("v5", R"({"misbehave": {"incompatible_for_any_api_above_1_0": true}})");
    uint32_t v = 7;
    ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
    VkInstance inst = VK_NULL_HANDLE;
    EXPECT_EQ(m.CreateInstance(VK_API_VERSION_1_1, &inst), VK_ERROR_INCOMPATIBLE_DRIVER);
    EXPECT_EQ(m.CreateInstance(VK_API_VERSION_1_0, &inst), VK_SUCCESS);
    m.DestroyInstance(inst);
}

TEST(CreateInstance, ExtensionsAreCheckedAndRecorded) {
    Mock m("v7", R"({"instance_extensions": ["VK_KHR_surface"]})");
    VkInstance inst = VK_NULL_HANDLE;
    EXPECT_EQ(m.CreateInstance(0, &inst, {"VK_KHR_display"}), VK_ERROR_EXTENSION_NOT_PRESENT);
    ASSERT_EQ(m.CreateInstance(0, &inst, {"VK_KHR_surface"}), VK_SUCCESS);
    auto recs = m.Records("vkCreateInstance");
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].Strings("extensions"), std::vector<std::string>{"VK_KHR_display"});
    EXPECT_EQ(recs[1].Strings("extensions"), std::vector<std::string>{"VK_KHR_surface"});
    EXPECT_EQ(recs[1].Num("flags"), 0);
    EXPECT_TRUE(HasMagic(inst));
    m.DestroyInstance(inst);
}

TEST(CreateInstance, ResultInjection) {
    Mock m("v7", R"({"results": {"vkCreateInstance": "VK_ERROR_INITIALIZATION_FAILED",
                                 "vkEnumeratePhysicalDevices": -4}})");
    VkInstance inst = VK_NULL_HANDLE;
    EXPECT_EQ(m.CreateInstance(0, &inst), VK_ERROR_INITIALIZATION_FAILED);
    m.SetResult("vkCreateInstance", VK_SUCCESS); // removes the injection
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    uint32_t n = 0;
    EXPECT_EQ(m.Proc<PFN_vkEnumeratePhysicalDevices>(inst, "vkEnumeratePhysicalDevices")(inst, &n, nullptr),
              VK_ERROR_DEVICE_LOST);
    m.SetResult("vkEnumeratePhysicalDevices", VK_SUCCESS);
    m.SetResult("vkCreateDevice", VK_ERROR_FEATURE_NOT_PRESENT);
    auto pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 1u);
    VkDeviceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    VkDevice dev = VK_NULL_HANDLE;
    EXPECT_EQ(m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice")(pds[0], &ci, nullptr, &dev),
              VK_ERROR_FEATURE_NOT_PRESENT);
    EXPECT_EQ(m.Records("vkCreateDevice").at(0).Str("result"), "VK_ERROR_FEATURE_NOT_PRESENT");
    m.DestroyInstance(inst);
}

TEST(EnumerateInstanceExtensionProperties, LayerNameAndList) {
    Mock m("v7", R"({"instance_extensions": [{"name": "VK_KHR_surface", "spec_version": 25}, "VK_EXT_debug_utils"],
                     "misbehave": {"unpublished_extension": true}})");
    auto enumerate =
        m.Proc<PFN_vkEnumerateInstanceExtensionProperties>(nullptr, "vkEnumerateInstanceExtensionProperties");
    uint32_t n = 0;
    EXPECT_EQ(enumerate("VK_LAYER_some_layer", &n, nullptr), VK_ERROR_LAYER_NOT_PRESENT);
    ASSERT_EQ(enumerate(nullptr, &n, nullptr), VK_SUCCESS);
    ASSERT_EQ(n, 3u);
    std::vector<VkExtensionProperties> props(n);
    n = 1;
    EXPECT_EQ(enumerate(nullptr, &n, props.data()), VK_INCOMPLETE);
    n = 3;
    ASSERT_EQ(enumerate(nullptr, &n, props.data()), VK_SUCCESS);
    EXPECT_STREQ(props[0].extensionName, "VK_KHR_surface");
    EXPECT_EQ(props[0].specVersion, 25u);
    EXPECT_STREQ(props[1].extensionName, "VK_EXT_debug_utils");
    EXPECT_STREQ(props[2].extensionName, "VK_MOCK_unpublished_extension");
    auto recs = m.Records("vkEnumerateInstanceExtensionProperties");
    ASSERT_EQ(recs.size(), 4u);
    EXPECT_EQ(recs[0].Str("layer"), "VK_LAYER_some_layer");
    EXPECT_EQ(recs[0].Str("result"), "VK_ERROR_LAYER_NOT_PRESENT");
    EXPECT_EQ(recs[1].Str("layer"), "<null>");
}

// ---------------------------------------------------------------------------------------------
// Physical devices

constexpr const char *kTwoDevices = R"({
  // comments are allowed in scenarios
  "api_version": "1.3.0",
  "physical_devices": [
    {"name": "Alpha", "api_version": "1.2.0", "vendor_id": 4318, "device_id": 7, "device_type": "integrated",
     "extensions": [{"name": "VK_KHR_swapchain", "spec_version": 70}],
     "queue_families": [{"flags": 7, "count": 2}, {"flags": 4, "count": 1}],
     "driver_id": 9, "conformance_version": "1.3.5.1"},
    {"name": "Beta", "api_version": "1.0.0", "device_type": "cpu"}
  ],
  "groups": [[0, 1]]
})";

TEST(PhysicalDevices, FromScenario) {
    Mock m("v7", kTwoDevices);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(VK_API_VERSION_1_3, &inst), VK_SUCCESS);
    auto pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 2u);
    EXPECT_TRUE(HasMagic(pds[0]));
    EXPECT_TRUE(HasMagic(pds[1]));

    VkPhysicalDeviceProperties p{};
    m.Proc<PFN_vkGetPhysicalDeviceProperties>(inst, "vkGetPhysicalDeviceProperties")(pds[0], &p);
    EXPECT_STREQ(p.deviceName, "Alpha");
    EXPECT_EQ(p.vendorID, 4318u);
    EXPECT_EQ(p.deviceID, 7u);
    EXPECT_EQ(p.apiVersion, VK_API_VERSION_1_2);
    EXPECT_EQ(p.deviceType, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU);
    m.Proc<PFN_vkGetPhysicalDeviceProperties>(inst, "vkGetPhysicalDeviceProperties")(pds[1], &p);
    EXPECT_STREQ(p.deviceName, "Beta");
    EXPECT_EQ(p.deviceType, VK_PHYSICAL_DEVICE_TYPE_CPU);

    VkPhysicalDeviceDriverProperties driver{};
    driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    VkPhysicalDeviceProperties2 p2{};
    p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    p2.pNext = &driver;
    auto props2 = m.Proc<PFN_vkGetPhysicalDeviceProperties2>(inst, "vkGetPhysicalDeviceProperties2");
    ASSERT_NE(props2, nullptr);
    ASSERT_NE(m.Gipa()(inst, "vkGetPhysicalDeviceProperties2KHR"), nullptr); // default instance extension
    props2(pds[0], &p2);
    EXPECT_STREQ(p2.properties.deviceName, "Alpha");
    EXPECT_EQ(driver.driverID, static_cast<VkDriverId>(9));
    EXPECT_EQ(driver.conformanceVersion.major, 1);
    EXPECT_EQ(driver.conformanceVersion.minor, 3);
    EXPECT_EQ(driver.conformanceVersion.subminor, 5);
    EXPECT_EQ(driver.conformanceVersion.patch, 1);

    uint32_t nq = 0;
    auto qfp = m.Proc<PFN_vkGetPhysicalDeviceQueueFamilyProperties>(inst, "vkGetPhysicalDeviceQueueFamilyProperties");
    qfp(pds[0], &nq, nullptr);
    ASSERT_EQ(nq, 2u);
    std::vector<VkQueueFamilyProperties> q(nq);
    qfp(pds[0], &nq, q.data());
    EXPECT_EQ(q[0].queueFlags, 7u);
    EXPECT_EQ(q[0].queueCount, 2u);
    EXPECT_EQ(q[1].queueFlags, 4u);

    auto groups = m.Proc<PFN_vkEnumeratePhysicalDeviceGroups>(inst, "vkEnumeratePhysicalDeviceGroups");
    ASSERT_NE(groups, nullptr);
    uint32_t ng = 0;
    ASSERT_EQ(groups(inst, &ng, nullptr), VK_SUCCESS);
    ASSERT_EQ(ng, 1u);
    VkPhysicalDeviceGroupProperties g{};
    g.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
    ASSERT_EQ(groups(inst, &ng, &g), VK_SUCCESS);
    EXPECT_EQ(g.physicalDeviceCount, 2u);
    EXPECT_EQ(g.physicalDevices[0], pds[0]);
    EXPECT_EQ(g.physicalDevices[1], pds[1]);
    EXPECT_EQ(m.Gipa()(inst, "vkEnumeratePhysicalDeviceGroupsKHR"), nullptr); // extension not listed

    auto dext = m.Proc<PFN_vkEnumerateDeviceExtensionProperties>(inst, "vkEnumerateDeviceExtensionProperties");
    uint32_t ne = 0;
    EXPECT_EQ(dext(pds[0], "VK_LAYER_x", &ne, nullptr), VK_ERROR_LAYER_NOT_PRESENT);
    ASSERT_EQ(dext(pds[0], nullptr, &ne, nullptr), VK_SUCCESS);
    ASSERT_EQ(ne, 1u);
    VkExtensionProperties e{};
    ASSERT_EQ(dext(pds[0], nullptr, &ne, &e), VK_SUCCESS);
    EXPECT_STREQ(e.extensionName, "VK_KHR_swapchain");
    EXPECT_EQ(e.specVersion, 70u);

    auto enum_recs = m.Records("vkEnumeratePhysicalDevices");
    ASSERT_EQ(enum_recs.size(), 2u);
    EXPECT_EQ(enum_recs[0].Str("count_in"), "<null>");
    EXPECT_EQ(enum_recs[0].Num("count_out"), 2);
    EXPECT_EQ(enum_recs[1].Num("count_in"), 2);
    auto dext_recs = m.Records("vkEnumerateDeviceExtensionProperties");
    ASSERT_EQ(dext_recs.size(), 3u);
    EXPECT_EQ(dext_recs[0].Str("layer"), "VK_LAYER_x");
    EXPECT_EQ(dext_recs[1].Str("layer"), "<null>");
    m.DestroyInstance(inst);
}

TEST(PhysicalDevices, FailEnumerateAndIncomplete) {
    Mock m("v7", R"({"physical_devices": [{}, {}, {}]})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto enumerate = m.Proc<PFN_vkEnumeratePhysicalDevices>(inst, "vkEnumeratePhysicalDevices");
    VkPhysicalDevice pds[3];
    uint32_t n = 2;
    EXPECT_EQ(enumerate(inst, &n, pds), VK_INCOMPLETE);
    EXPECT_EQ(n, 2u);
    ASSERT_EQ(m.LoadScenario(R"({"misbehave": {"fail_enumerate_physical_devices": true}})"), 0);
    n = 3;
    EXPECT_EQ(enumerate(inst, &n, pds), VK_ERROR_INITIALIZATION_FAILED);
    m.DestroyInstance(inst);
}

TEST(PhysicalDevices, CrashWithZeroDevicesMisbehaviour) {
    Mock m("v7", R"({"physical_devices": [], "api_version": "1.1.0",
                     "misbehave": {"crash_with_zero_devices": true}})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto enumerate = m.Proc<PFN_vkEnumeratePhysicalDevices>(inst, "vkEnumeratePhysicalDevices");
    auto groups = m.Proc<PFN_vkEnumeratePhysicalDeviceGroups>(inst, "vkEnumeratePhysicalDeviceGroups");
    uint32_t n = 0;
    ASSERT_EQ(enumerate(inst, &n, nullptr), VK_SUCCESS);
    ASSERT_EQ(n, 0u);
    uint32_t ng = 0;
    EXPECT_EQ(groups(inst, &ng, nullptr), VK_SUCCESS); // not yet: no array call reported zero
    VkPhysicalDevice none[1];
    ASSERT_EQ(enumerate(inst, &n, none), VK_SUCCESS);
    EXPECT_DEATH(groups(inst, &ng, nullptr), "");
    m.DestroyInstance(inst); // still allowed
}

// Hot-plug: "unplugged" of the scenario in force at each enumeration hides devices of an existing
// instance (indices into its devices); their handles come back unchanged when plugged in again.
TEST(PhysicalDevices, UnpluggedFollowsTheCurrentScenario) {
    Mock m("v7", R"({"api_version": "1.1.0", "physical_devices": [{"name": "A"}, {"name": "B"}, {"name": "C"}],
                     "groups": [[0, 1], [2]]})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(VK_API_VERSION_1_1, &inst), VK_SUCCESS);
    auto all = m.PhysicalDevices(inst);
    ASSERT_EQ(all.size(), 3u);
    auto groups = m.Proc<PFN_vkEnumeratePhysicalDeviceGroups>(inst, "vkEnumeratePhysicalDeviceGroups");
    ASSERT_NE(groups, nullptr);
    auto group_members = [&]() {
        uint32_t n = 0;
        EXPECT_EQ(groups(inst, &n, nullptr), VK_SUCCESS);
        std::vector<VkPhysicalDeviceGroupProperties> g(n);
        for (auto &x : g) x.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
        EXPECT_EQ(groups(inst, &n, g.data()), VK_SUCCESS);
        std::vector<std::vector<VkPhysicalDevice>> out;
        for (uint32_t i = 0; i < n; i++) {
            out.emplace_back(g[i].physicalDevices, g[i].physicalDevices + g[i].physicalDeviceCount);
            EXPECT_EQ(g[i].subsetAllocation, g[i].physicalDeviceCount > 1 ? VK_TRUE : VK_FALSE);
        }
        return out;
    };
    using Groups = std::vector<std::vector<VkPhysicalDevice>>;
    EXPECT_EQ(group_members(), (Groups{{all[0], all[1]}, {all[2]}}));

    // The replacing scenario's own devices do not matter to the existing instance.
    ASSERT_EQ(m.LoadScenario(R"({"api_version": "1.1.0", "unplugged": [1]})"), 0);
    EXPECT_EQ(m.PhysicalDevices(inst), (std::vector<VkPhysicalDevice>{all[0], all[2]}));
    EXPECT_EQ(group_members(), (Groups{{all[0]}, {all[2]}}));
    auto recs = m.Records("vkEnumeratePhysicalDevices");
    ASSERT_FALSE(recs.empty());
    EXPECT_EQ(recs.back().Num("unplugged"), 1);
    EXPECT_EQ(recs.back().Num("count_out"), 2);

    // A short array gives VK_INCOMPLETE over the devices present.
    auto enumerate = m.Proc<PFN_vkEnumeratePhysicalDevices>(inst, "vkEnumeratePhysicalDevices");
    VkPhysicalDevice one[1];
    uint32_t n = 1;
    EXPECT_EQ(enumerate(inst, &n, one), VK_INCOMPLETE);
    EXPECT_EQ(one[0], all[0]);

    ASSERT_EQ(m.LoadScenario(R"({"api_version": "1.1.0", "unplugged": [2, 0]})"), 0);
    EXPECT_EQ(m.PhysicalDevices(inst), (std::vector<VkPhysicalDevice>{all[1]}));
    EXPECT_EQ(group_members(), (Groups{{all[1]}})); // the group of C alone is gone

    // An unplugged device still answers queries (the handle stays valid).
    VkPhysicalDeviceProperties p{};
    m.Proc<PFN_vkGetPhysicalDeviceProperties>(inst, "vkGetPhysicalDeviceProperties")(all[0], &p);
    EXPECT_STREQ(p.deviceName, "A");

    ASSERT_EQ(m.LoadScenario(R"({"api_version": "1.1.0", "unplugged": [0, 1, 2, 99]})"), 0);
    EXPECT_TRUE(m.PhysicalDevices(inst).empty());
    EXPECT_TRUE(group_members().empty());

    ASSERT_EQ(m.LoadScenario(R"({"api_version": "1.1.0", "unplugged": []})"), 0);
    EXPECT_EQ(m.PhysicalDevices(inst), all);
    EXPECT_EQ(group_members(), (Groups{{all[0], all[1]}, {all[2]}}));

    EXPECT_EQ(m.LoadScenario(R"({"unplugged": 1})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"unplugged": ["x"]})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"unplugged": [-1]})"), -1);
    m.DestroyInstance(inst);
}

// ---------------------------------------------------------------------------------------------
// Devices

TEST(Device, CreateWithLoaderMagic) {
    Mock m("v7", kTwoDevices);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto pds = m.PhysicalDevices(inst);
    float prio[2] = {1.0f, 0.5f};
    VkDeviceQueueCreateInfo qci[2] = {};
    qci[0].sType = qci[1].sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qci[0].queueFamilyIndex = 0;
    qci[0].queueCount = 2;
    qci[0].pQueuePriorities = prio;
    qci[1].queueFamilyIndex = 1;
    qci[1].queueCount = 1;
    qci[1].pQueuePriorities = prio;
    const char *exts[] = {"VK_KHR_swapchain"};
    VkDeviceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    ci.queueCreateInfoCount = 2;
    ci.pQueueCreateInfos = qci;
    ci.enabledExtensionCount = 1;
    ci.ppEnabledExtensionNames = exts;
    auto create = m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice");
    VkDevice dev = VK_NULL_HANDLE;
    ASSERT_EQ(create(pds[0], &ci, nullptr, &dev), VK_SUCCESS);
    EXPECT_TRUE(HasMagic(dev));

    auto gdpa = m.Proc<PFN_vkGetDeviceProcAddr>(inst, "vkGetDeviceProcAddr");
    auto get_queue = reinterpret_cast<PFN_vkGetDeviceQueue>(gdpa(dev, "vkGetDeviceQueue"));
    VkQueue q = VK_NULL_HANDLE, q2 = VK_NULL_HANDLE;
    get_queue(dev, 0, 1, &q);
    ASSERT_NE(q, nullptr);
    EXPECT_TRUE(HasMagic(q));
    auto get_queue2 = reinterpret_cast<PFN_vkGetDeviceQueue2>(gdpa(dev, "vkGetDeviceQueue2"));
    ASSERT_NE(get_queue2, nullptr); // device is 1.2
    VkDeviceQueueInfo2 qi{};
    qi.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_INFO_2;
    qi.queueFamilyIndex = 0;
    qi.queueIndex = 1;
    get_queue2(dev, &qi, &q2);
    EXPECT_EQ(q, q2);
    EXPECT_EQ(reinterpret_cast<PFN_vkQueueWaitIdle>(gdpa(dev, "vkQueueWaitIdle"))(q), VK_SUCCESS);
    EXPECT_EQ(reinterpret_cast<PFN_vkDeviceWaitIdle>(gdpa(dev, "vkDeviceWaitIdle"))(dev), VK_SUCCESS);

    VkCommandPoolCreateInfo pci{};
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    VkCommandPool pool = VK_NULL_HANDLE;
    ASSERT_EQ(reinterpret_cast<PFN_vkCreateCommandPool>(gdpa(dev, "vkCreateCommandPool"))(dev, &pci, nullptr, &pool),
              VK_SUCCESS);
    VkCommandBufferAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = pool;
    ai.commandBufferCount = 3;
    VkCommandBuffer cbs[3] = {};
    ASSERT_EQ(reinterpret_cast<PFN_vkAllocateCommandBuffers>(gdpa(dev, "vkAllocateCommandBuffers"))(dev, &ai, cbs),
              VK_SUCCESS);
    for (auto cb : cbs) EXPECT_TRUE(HasMagic(cb));
    reinterpret_cast<PFN_vkCmdFillBuffer>(gdpa(dev, "vkCmdFillBuffer"))(cbs[0], VK_NULL_HANDLE, 0, 64, 7);
    reinterpret_cast<PFN_vkFreeCommandBuffers>(gdpa(dev, "vkFreeCommandBuffers"))(dev, pool, 1, cbs);
    // The other two go with the pool; a second pool goes with the device.
    reinterpret_cast<PFN_vkDestroyCommandPool>(gdpa(dev, "vkDestroyCommandPool"))(dev, pool, nullptr);
    ASSERT_EQ(reinterpret_cast<PFN_vkCreateCommandPool>(gdpa(dev, "vkCreateCommandPool"))(dev, &pci, nullptr, &pool),
              VK_SUCCESS);
    ASSERT_EQ(reinterpret_cast<PFN_vkAllocateCommandBuffers>(gdpa(dev, "vkAllocateCommandBuffers"))(
                  dev, (ai.commandPool = pool, &ai), cbs),
              VK_SUCCESS);

    EXPECT_EQ(gdpa(dev, "vkCreateInstance"), nullptr);
    EXPECT_EQ(gdpa(dev, "vkGetPhysicalDeviceProperties"), nullptr);
    reinterpret_cast<PFN_vkDestroyDevice>(gdpa(dev, "vkDestroyDevice"))(dev, nullptr);

    auto recs = m.Records("vkCreateDevice");
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].Strings("extensions"), std::vector<std::string>{"VK_KHR_swapchain"});
    const cJSON *queues = recs[0].Get("queues");
    ASSERT_EQ(cJSON_GetArraySize(queues), 2);
    EXPECT_EQ(cJSON_GetObjectItem(cJSON_GetArrayItem(queues, 0), "count")->valueint, 2);
    EXPECT_EQ(cJSON_GetObjectItem(cJSON_GetArrayItem(queues, 1), "family")->valueint, 1);
    auto fill = m.Records("vkCmdFillBuffer");
    ASSERT_EQ(fill.size(), 1u);
    EXPECT_TRUE(fill[0].Bool("valid"));
    EXPECT_EQ(fill[0].Num("data"), 7);
    EXPECT_TRUE(m.Records("vkDestroyDevice").at(0).Bool("valid"));

    // Unknown extension / bad queue family.
    EXPECT_EQ(create(pds[1], &ci, nullptr, &dev), VK_ERROR_EXTENSION_NOT_PRESENT);
    ci.enabledExtensionCount = 0;
    EXPECT_EQ(create(pds[1], &ci, nullptr, &dev), VK_ERROR_INITIALIZATION_FAILED);
    m.DestroyInstance(inst);
}

// What vulkaninfo does with a device: images and buffers only to ask for their memory requirements.
TEST(Device, ImagesAndBuffersAnswerMemoryRequirements) {
    Mock m("v7", R"({"api_version": "1.1.0"})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(VK_API_VERSION_1_1, &inst), VK_SUCCESS);
    auto pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 1u);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci{};
    qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkDeviceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &qci;
    VkDevice dev = VK_NULL_HANDLE;
    ASSERT_EQ(m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice")(pds[0], &ci, nullptr, &dev), VK_SUCCESS);
    auto gdpa = m.Proc<PFN_vkGetDeviceProcAddr>(inst, "vkGetDeviceProcAddr");
    auto create_image = reinterpret_cast<PFN_vkCreateImage>(gdpa(dev, "vkCreateImage"));
    auto destroy_image = reinterpret_cast<PFN_vkDestroyImage>(gdpa(dev, "vkDestroyImage"));
    auto image_reqs = reinterpret_cast<PFN_vkGetImageMemoryRequirements>(gdpa(dev, "vkGetImageMemoryRequirements"));
    auto image_reqs2 = reinterpret_cast<PFN_vkGetImageMemoryRequirements2>(gdpa(dev, "vkGetImageMemoryRequirements2"));
    auto sparse_reqs =
        reinterpret_cast<PFN_vkGetImageSparseMemoryRequirements>(gdpa(dev, "vkGetImageSparseMemoryRequirements"));
    auto create_buffer = reinterpret_cast<PFN_vkCreateBuffer>(gdpa(dev, "vkCreateBuffer"));
    auto destroy_buffer = reinterpret_cast<PFN_vkDestroyBuffer>(gdpa(dev, "vkDestroyBuffer"));
    auto buffer_reqs = reinterpret_cast<PFN_vkGetBufferMemoryRequirements>(gdpa(dev, "vkGetBufferMemoryRequirements"));
    ASSERT_TRUE(create_image && destroy_image && image_reqs && image_reqs2 && sparse_reqs && create_buffer &&
                destroy_buffer && buffer_reqs);

    VkImageCreateInfo ici{};
    ici.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
    ici.imageType = VK_IMAGE_TYPE_2D;
    ici.format = VK_FORMAT_R8G8B8A8_UNORM;
    ici.extent = {8, 8, 1};
    ici.mipLevels = ici.arrayLayers = 1;
    ici.samples = VK_SAMPLE_COUNT_1_BIT;
    VkImage image = VK_NULL_HANDLE;
    ASSERT_EQ(create_image(dev, &ici, nullptr, &image), VK_SUCCESS);
    ASSERT_NE(image, VK_NULL_HANDLE);
    VkMemoryRequirements req{};
    image_reqs(dev, image, &req);
    EXPECT_EQ(req.size, 256u); // 8 x 8 x 4 bytes
    EXPECT_EQ(req.alignment, 256u);
    EXPECT_EQ(req.memoryTypeBits, 1u); // the one memory type
    VkImageMemoryRequirementsInfo2 info2{};
    info2.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2;
    info2.image = image;
    VkMemoryRequirements2 req2{};
    req2.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2;
    image_reqs2(dev, &info2, &req2);
    EXPECT_EQ(req2.memoryRequirements.size, 256u);
    uint32_t nsparse = 5;
    sparse_reqs(dev, image, &nsparse, nullptr);
    EXPECT_EQ(nsparse, 0u);
    destroy_image(dev, image, nullptr);
    image_reqs(dev, image, &req); // destroyed: no memory type, recorded
    EXPECT_EQ(req.memoryTypeBits, 0u);
    EXPECT_EQ(m.Records("invalid_handle").size(), 1u);

    VkBufferCreateInfo bci{};
    bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bci.size = 1000;
    VkBuffer buffer = VK_NULL_HANDLE;
    ASSERT_EQ(create_buffer(dev, &bci, nullptr, &buffer), VK_SUCCESS);
    buffer_reqs(dev, buffer, &req);
    EXPECT_EQ(req.size, 1024u);
    EXPECT_EQ(req.memoryTypeBits, 1u);
    // Left for vkDestroyDevice to free (LeakSanitizer checks it).
    VkImage leftover = VK_NULL_HANDLE;
    ASSERT_EQ(create_image(dev, &ici, nullptr, &leftover), VK_SUCCESS);
    destroy_buffer(dev, buffer, nullptr);
    m.Proc<PFN_vkDestroyDevice>(inst, "vkDestroyDevice")(dev, nullptr);
    m.DestroyInstance(inst);
}

// Every core 1.0-1.3 device command a layer may call below itself is answered (the no-op ones
// generated from vk.xml by tools/vkgen/vkgen_mock.py): fresh distinct non-zero handles, success,
// zero-filled outputs; the hand-written commands keep their implementation; memory maps to host
// memory; commands of a newer core version than the device's are not answered.
TEST(Device, GeneratedCoreCommands) {
    Mock m("v7", R"({"physical_devices": [{"api_version": "1.3.0"}, {"api_version": "1.1.0"}],
                     "results": {"vkCreateSemaphore": "VK_ERROR_OUT_OF_DEVICE_MEMORY"}})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(VK_API_VERSION_1_3, &inst), VK_SUCCESS);
    auto pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 2u);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci{};
    qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkDeviceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &qci;
    VkDevice dev = VK_NULL_HANDLE, dev11 = VK_NULL_HANDLE;
    auto create_device = m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice");
    ASSERT_EQ(create_device(pds[0], &ci, nullptr, &dev), VK_SUCCESS);
    ASSERT_EQ(create_device(pds[1], &ci, nullptr, &dev11), VK_SUCCESS);
    auto gdpa = m.Proc<PFN_vkGetDeviceProcAddr>(inst, "vkGetDeviceProcAddr");

    for (const char *name :
         {"vkCreateFence", "vkWaitForFences", "vkCreateGraphicsPipelines", "vkCmdDraw", "vkCmdPipelineBarrier",
          "vkCreateRenderPass", "vkAllocateDescriptorSets", "vkQueueSubmit2", "vkCmdBeginRendering",
          "vkGetDeviceBufferMemoryRequirements", "vkCreateSemaphore", "vkGetEventStatus"})
        EXPECT_NE(gdpa(dev, name), nullptr) << name;
    EXPECT_NE(m.Gipa()(inst, "vkGetPhysicalDeviceExternalBufferProperties"), nullptr);
    // 1.2 and 1.3 commands on a 1.1 device: not answered; 1.0 and 1.1 ones are.
    EXPECT_EQ(gdpa(dev11, "vkQueueSubmit2"), nullptr);
    EXPECT_EQ(gdpa(dev11, "vkCreateRenderPass2"), nullptr);
    EXPECT_NE(gdpa(dev11, "vkCreateFence"), nullptr);
    EXPECT_NE(gdpa(dev11, "vkTrimCommandPool"), nullptr);
    // Not core: still NULL.
    EXPECT_EQ(gdpa(dev, "vkCmdDrawMeshTasksEXT"), nullptr);

    auto create_fence = reinterpret_cast<PFN_vkCreateFence>(gdpa(dev, "vkCreateFence"));
    VkFenceCreateInfo fci{};
    fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    VkFence f1 = VK_NULL_HANDLE, f2 = VK_NULL_HANDLE;
    ASSERT_EQ(create_fence(dev, &fci, nullptr, &f1), VK_SUCCESS);
    ASSERT_EQ(create_fence(dev, &fci, nullptr, &f2), VK_SUCCESS);
    EXPECT_NE(f1, VK_NULL_HANDLE);
    EXPECT_NE(f2, VK_NULL_HANDLE);
    EXPECT_NE(f1, f2);
    EXPECT_EQ(reinterpret_cast<PFN_vkWaitForFences>(gdpa(dev, "vkWaitForFences"))(dev, 1, &f1, VK_TRUE, ~0ull),
              VK_SUCCESS);
    // The first vk.xml success code, and injected results.
    EXPECT_EQ(reinterpret_cast<PFN_vkGetEventStatus>(gdpa(dev, "vkGetEventStatus"))(dev, VK_NULL_HANDLE), VK_EVENT_SET);
    VkSemaphoreCreateInfo sci{};
    sci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    VkSemaphore sem = VK_NULL_HANDLE;
    EXPECT_EQ(reinterpret_cast<PFN_vkCreateSemaphore>(gdpa(dev, "vkCreateSemaphore"))(dev, &sci, nullptr, &sem),
              VK_ERROR_OUT_OF_DEVICE_MEMORY);
    EXPECT_EQ(sem, VK_NULL_HANDLE);

    // Arrays of handles: one distinct handle each.
    VkDescriptorSetAllocateInfo dsai{};
    dsai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    dsai.descriptorSetCount = 3;
    VkDescriptorSet sets[4] = {};
    ASSERT_EQ(reinterpret_cast<PFN_vkAllocateDescriptorSets>(gdpa(dev, "vkAllocateDescriptorSets"))(dev, &dsai, sets),
              VK_SUCCESS);
    EXPECT_TRUE(sets[0] && sets[1] && sets[2]);
    EXPECT_TRUE(sets[0] != sets[1] && sets[1] != sets[2] && sets[0] != sets[2]);
    EXPECT_EQ(sets[3], VK_NULL_HANDLE);

    // Extensible outputs: zero-filled, sType and pNext kept.
    VkMemoryRequirements2 req2{};
    req2.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2;
    req2.memoryRequirements.size = 77;
    VkBufferCreateInfo bci{};
    bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bci.size = 16;
    VkDeviceBufferMemoryRequirements dbmr{};
    dbmr.sType = VK_STRUCTURE_TYPE_DEVICE_BUFFER_MEMORY_REQUIREMENTS;
    dbmr.pCreateInfo = &bci;
    reinterpret_cast<PFN_vkGetDeviceBufferMemoryRequirements>(gdpa(dev, "vkGetDeviceBufferMemoryRequirements"))(
        dev, &dbmr, &req2);
    EXPECT_EQ(req2.sType, VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2);
    EXPECT_EQ(req2.memoryRequirements.size, 0u);
    // Count/array pairs: nothing.
    size_t data_size = 99;
    EXPECT_EQ(reinterpret_cast<PFN_vkGetPipelineCacheData>(gdpa(dev, "vkGetPipelineCacheData"))(dev, VK_NULL_HANDLE,
                                                                                                &data_size, nullptr),
              VK_SUCCESS);
    EXPECT_EQ(data_size, 0u);

    // Device memory maps to writable host memory.
    VkMemoryAllocateInfo mai{};
    mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    mai.allocationSize = 4096;
    VkDeviceMemory mem = VK_NULL_HANDLE;
    ASSERT_EQ(reinterpret_cast<PFN_vkAllocateMemory>(gdpa(dev, "vkAllocateMemory"))(dev, &mai, nullptr, &mem),
              VK_SUCCESS);
    void *p = nullptr;
    ASSERT_EQ(reinterpret_cast<PFN_vkMapMemory>(gdpa(dev, "vkMapMemory"))(dev, mem, 0, VK_WHOLE_SIZE, 0, &p),
              VK_SUCCESS);
    ASSERT_NE(p, nullptr);
    memset(p, 0xab, 4096);
    reinterpret_cast<PFN_vkUnmapMemory>(gdpa(dev, "vkUnmapMemory"))(dev, mem);
    reinterpret_cast<PFN_vkFreeMemory>(gdpa(dev, "vkFreeMemory"))(dev, mem, nullptr);

    // Hand-written commands keep their implementation: command buffers are the mock's objects.
    VkCommandPoolCreateInfo pci{};
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    VkCommandPool pool = VK_NULL_HANDLE;
    ASSERT_EQ(reinterpret_cast<PFN_vkCreateCommandPool>(gdpa(dev, "vkCreateCommandPool"))(dev, &pci, nullptr, &pool),
              VK_SUCCESS);
    VkCommandBufferAllocateInfo cai{};
    cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cai.commandPool = pool;
    cai.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    ASSERT_EQ(reinterpret_cast<PFN_vkAllocateCommandBuffers>(gdpa(dev, "vkAllocateCommandBuffers"))(dev, &cai, &cb),
              VK_SUCCESS);
    EXPECT_TRUE(HasMagic(cb));
    reinterpret_cast<PFN_vkCmdDraw>(gdpa(dev, "vkCmdDraw"))(cb, 3, 1, 0, 0);
    VkCommandBufferBeginInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    reinterpret_cast<PFN_vkBeginCommandBuffer>(gdpa(dev, "vkBeginCommandBuffer"))(cb, &bi);
    EXPECT_EQ(m.Records("vkBeginCommandBuffer").size(), 1u);
    m.Proc<PFN_vkDestroyDevice>(inst, "vkDestroyDevice")(dev, nullptr);
    m.Proc<PFN_vkDestroyDevice>(inst, "vkDestroyDevice")(dev11, nullptr);
    m.DestroyInstance(inst);
}

TEST(Device, NoLoaderMagicMisbehaviour) {
    Mock m("v7", R"({"misbehave": {"no_loader_magic": true}})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_FALSE(HasMagic(inst));
    auto pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 1u);
    EXPECT_FALSE(HasMagic(pds[0]));
    VkDeviceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    VkDevice dev = VK_NULL_HANDLE;
    ASSERT_EQ(m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice")(pds[0], &ci, nullptr, &dev), VK_SUCCESS);
    EXPECT_FALSE(HasMagic(dev));
    // Not destroyed on purpose: dlclose must free it (checked by LeakSanitizer under --config=asan).
}

TEST(Device, InvalidHandlesAreRecordedNotDereferenced) {
    Mock m("v7", "");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    int bogus[16] = {};
    VkPhysicalDeviceProperties p{};
    m.Proc<PFN_vkGetPhysicalDeviceProperties>(inst, "vkGetPhysicalDeviceProperties")(
        reinterpret_cast<VkPhysicalDevice>(bogus), &p);
    auto recs = m.Records("invalid_handle");
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].Str("function"), "vkGetPhysicalDeviceProperties");
    m.DestroyInstance(inst);
}

// ---------------------------------------------------------------------------------------------
// Unknown functions

TEST(UnknownFunctions, DeviceSlots) {
    std::string scenario = R"({"device_functions": [)";
    for (int i = 0; i < 256; i++)
        scenario += (i ? ",\"" : "\"") + std::string("vkMockUnknownDeviceFunc") + std::to_string(i) + "\"";
    scenario += "]}";
    Mock m("v7", scenario);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto pds = m.PhysicalDevices(inst);
    VkDeviceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    VkDevice dev = VK_NULL_HANDLE;
    ASSERT_EQ(m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice")(pds[0], &ci, nullptr, &dev), VK_SUCCESS);
    auto gdpa = m.Proc<PFN_vkGetDeviceProcAddr>(inst, "vkGetDeviceProcAddr");
    auto f17 = reinterpret_cast<PFN_mock_icd_unknown_device_func>(gdpa(dev, "vkMockUnknownDeviceFunc17"));
    auto f255 = reinterpret_cast<PFN_mock_icd_unknown_device_func>(gdpa(dev, "vkMockUnknownDeviceFunc255"));
    ASSERT_NE(f17, nullptr);
    ASSERT_NE(f255, nullptr);
    EXPECT_NE(reinterpret_cast<void *>(f17), reinterpret_cast<void *>(f255));
    EXPECT_EQ(gdpa(dev, "vkMockUnknownDeviceFunc256"), nullptr);
    // The GIPA answers them too (the loader may look device functions up at instance level).
    EXPECT_EQ(reinterpret_cast<void *>(m.Gipa()(inst, "vkMockUnknownDeviceFunc17")), reinterpret_cast<void *>(f17));
    EXPECT_EQ(f17(dev, 5), MOCK_ICD_UNKNOWN_DEVICE_RESULT(17, 5));
    EXPECT_EQ(f255(dev, 1), 10256u);
    auto recs = m.Records("vkMockUnknownDeviceFunc17");
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].Num("slot"), 17);
    EXPECT_EQ(recs[0].Num("arg"), 5);
    EXPECT_EQ(recs[0].Str("handle"), "device");
    reinterpret_cast<PFN_vkDestroyDevice>(gdpa(dev, "vkDestroyDevice"))(dev, nullptr);
    m.DestroyInstance(inst);
}

TEST(UnknownFunctions, PhysicalDeviceSlotsThroughGpdpa) {
    Mock m("v4_gpdpa", R"({"physdev_functions": ["vkMockUnknownPhysDevFunc0", "vkMockUnknownPhysDevFunc1"],
                           "device_functions": ["vkMockUnknownDeviceFunc0"]})");
    uint32_t v = 7;
    ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto pds = m.PhysicalDevices(inst);
    auto gpdpa = m.Sym<PFN_vk_icdGetPhysicalDeviceProcAddr>("vk_icdGetPhysicalDeviceProcAddr");
    ASSERT_NE(gpdpa, nullptr);
    EXPECT_NE(gpdpa(inst, "vkGetPhysicalDeviceProperties"), nullptr);
    EXPECT_EQ(gpdpa(inst, "vkCreateInstance"), nullptr);
    EXPECT_EQ(gpdpa(inst, "vkMockUnknownDeviceFunc0"), nullptr);
    EXPECT_EQ(gpdpa(inst, "vkMockSomethingElse"), nullptr);
    auto f1 = reinterpret_cast<PFN_mock_icd_unknown_physdev_func>(gpdpa(inst, "vkMockUnknownPhysDevFunc1"));
    ASSERT_NE(f1, nullptr);
    EXPECT_EQ(f1(pds[0], 3), MOCK_ICD_UNKNOWN_PHYSDEV_RESULT(1, 3));
    auto recs = m.Records("vkMockUnknownPhysDevFunc1");
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].Str("handle"), "physical_device");
    auto lookups = m.Records("vk_icdGetPhysicalDeviceProcAddr");
    ASSERT_EQ(lookups.size(), 5u);
    EXPECT_FALSE(lookups[1].Bool("answered"));

    // Misbehaviour: GPDPA answers everything (device functions, unknown names).
    ASSERT_EQ(m.LoadScenario(R"({"physdev_functions": ["vkMockUnknownPhysDevFunc0"],
                                 "device_functions": ["vkMockUnknownDeviceFunc0"],
                                 "misbehave": {"gpdpa_answers_everything": true}})"),
              0);
    EXPECT_NE(gpdpa(inst, "vkMockUnknownDeviceFunc0"), nullptr);
    EXPECT_NE(gpdpa(inst, "vkDestroyInstance"), nullptr);
    auto any = reinterpret_cast<PFN_mock_icd_unknown_physdev_func>(gpdpa(inst, "vkMockSomethingElse"));
    ASSERT_NE(any, nullptr);
    EXPECT_EQ(any(pds[0], 0), MOCK_ICD_UNKNOWN_PHYSDEV_RESULT(1, 0)); // first slot after the scenario's
    EXPECT_EQ(m.Records("vkMockSomethingElse").size(), 1u);
    m.DestroyInstance(inst);
}

// ---------------------------------------------------------------------------------------------
// Records, ctl, scenario errors

TEST(Records, CallsFileMatchesMemory) {
    Mock m("v7", "");
    uint32_t v = 7;
    ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(VK_API_VERSION_1_1, &inst), VK_SUCCESS);
    m.PhysicalDevices(inst);
    m.DestroyInstance(inst);
    auto lines = m.CallsFileLines();
    auto recs = m.Records();
    ASSERT_EQ(lines.size(), recs.size());
    std::vector<std::string> calls;
    for (auto &line : lines) calls.push_back(ParseRecord(line).call());
    EXPECT_EQ(calls.front(), "first_entry");
    EXPECT_EQ(calls[1], "vk_icdGetInstanceProcAddr");
    EXPECT_EQ(calls[2], "vk_icdNegotiateLoaderICDInterfaceVersion");
    EXPECT_EQ(calls.back(), "vkDestroyInstance");
    EXPECT_EQ(ParseRecord(lines[2]).Num("returned"), 7);
    auto *get = m.Sym<PFN_mock_icd_ctl_record_get>("mock_icd_ctl_record_get");
    EXPECT_EQ(std::string(get(2)), lines[2]);

    m.Reset();
    EXPECT_EQ(m.Records().size(), 0u);
    EXPECT_EQ(m.CallsFileLines().size(), lines.size()); // the file is never truncated
}

TEST(Records, SeveralCopiesAreIndependent) {
    Mock a("v7", R"({"physical_devices": [{}, {}]})");
    Mock b("v7", R"({"physical_devices": []})");
    VkInstance ia = VK_NULL_HANDLE, ib = VK_NULL_HANDLE;
    ASSERT_EQ(a.CreateInstance(0, &ia), VK_SUCCESS);
    ASSERT_EQ(b.CreateInstance(0, &ib), VK_SUCCESS);
    EXPECT_EQ(a.PhysicalDevices(ia).size(), 2u);
    EXPECT_EQ(b.PhysicalDevices(ib).size(), 0u);
    EXPECT_EQ(a.Records("vkCreateInstance").size(), 1u);
    EXPECT_EQ(b.Records("vkCreateInstance").size(), 1u);
    a.DestroyInstance(ia);
    b.DestroyInstance(ib);
}

TEST(Ctl, LoadScenarioAndReset) {
    Mock m("v7", R"({"physical_devices": [{}, {}]})");
    EXPECT_EQ(m.LoadScenario("{not json"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"physical_devices": 3})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"results": {"vkCreateDevice": "VK_NOT_A_RESULT"}})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"physical_devices": [{"device_type": "toaster"}]})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"groups": [[0, 5]]})"), -1);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_EQ(m.PhysicalDevices(inst).size(), 2u); // sidecar still in force
    m.DestroyInstance(inst);

    ASSERT_EQ(m.LoadScenario(R"({"physical_devices": [{}, {}, {}]})"), 0);
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_EQ(m.PhysicalDevices(inst).size(), 3u);
    // An instance keeps the devices of the scenario it was created with.
    ASSERT_EQ(m.LoadScenario(nullptr), 0);
    EXPECT_EQ(m.PhysicalDevices(inst).size(), 3u);
    m.DestroyInstance(inst);
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_EQ(m.PhysicalDevices(inst).size(), 1u); // defaults
    m.DestroyInstance(inst);

    m.Reset(); // back to the sidecar
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_EQ(m.PhysicalDevices(inst).size(), 2u);
    m.DestroyInstance(inst);
}

TEST(Ctl, BadSidecarIsRecordedAndDefaultsUsed) {
    Mock m("v7", "{\"physical_devices\": ");
    auto errs = m.Records("mock_icd_scenario_error");
    ASSERT_EQ(errs.size(), 1u);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_EQ(m.PhysicalDevices(inst).size(), 1u);
    m.DestroyInstance(inst);
}

// ---------------------------------------------------------------------------------------------
// LDP_DRIVER_1 misbehaviour: reaching another driver through the global namespace.

TEST(Misbehave, CorruptOtherDriverOnlyThroughGlobalNamespace) {
    const char *attacker_sc = R"({"misbehave": {"corrupt_other_driver": true}})";
    {
        Mock victim("v7", "");
        Mock attacker("v7", attacker_sc);
        VkInstance inst = VK_NULL_HANDLE;
        ASSERT_EQ(attacker.CreateInstance(0, &inst), VK_SUCCESS);
        auto rec = attacker.Records("corrupt_other_driver");
        ASSERT_EQ(rec.size(), 1u);
        EXPECT_FALSE(rec[0].Bool("found_other"));
        attacker.DestroyInstance(inst);
    }
    {
        Mock victim("v7", "", RTLD_NOW | RTLD_GLOBAL);
        Mock attacker("v7", attacker_sc);
        VkInstance inst = VK_NULL_HANDLE, vi = VK_NULL_HANDLE;
        ASSERT_EQ(attacker.CreateInstance(0, &inst), VK_SUCCESS);
        EXPECT_TRUE(attacker.Records("corrupt_other_driver").at(0).Bool("found_other"));
        ASSERT_EQ(victim.CreateInstance(0, &vi), VK_SUCCESS);
        uint32_t n = 0;
        EXPECT_EQ(victim.Proc<PFN_vkEnumeratePhysicalDevices>(vi, "vkEnumeratePhysicalDevices")(vi, &n, nullptr),
                  VK_ERROR_INITIALIZATION_FAILED);
        attacker.DestroyInstance(inst);
        victim.DestroyInstance(vi);
    }
}

TEST(Variants, VkExportsFlavourWorksWithoutGipa) {
    Mock m("v5_vkexports", R"({"physical_devices": [{"name": "Exported"}]})");
    auto create = m.Sym<PFN_vkCreateInstance>("vkCreateInstance");
    auto enumerate = m.Sym<PFN_vkEnumeratePhysicalDevices>("vkEnumeratePhysicalDevices");
    auto props = m.Sym<PFN_vkGetPhysicalDeviceProperties>("vkGetPhysicalDeviceProperties");
    auto destroy = m.Sym<PFN_vkDestroyInstance>("vkDestroyInstance");
    ASSERT_TRUE(create && enumerate && props && destroy);
    EXPECT_EQ(m.Sym<void *>("vk_icdGetPhysicalDeviceProcAddr"), nullptr);
    VkInstanceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(create(&ci, nullptr, &inst), VK_SUCCESS);
    VkPhysicalDevice pd = VK_NULL_HANDLE;
    uint32_t n = 1;
    ASSERT_EQ(enumerate(inst, &n, &pd), VK_SUCCESS);
    VkPhysicalDeviceProperties p{};
    props(pd, &p);
    EXPECT_STREQ(p.deviceName, "Exported");
    destroy(inst, nullptr);
    auto first = m.Records("first_entry");
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].Str("entry"), "vkCreateInstance");
    EXPECT_EQ(first[0].Str("loader"), "v0");
}

TEST(Threads, ConcurrentCreateDestroy) {
    Mock m("v7", R"({"physical_devices": [{}, {}], "record_lookups": false})");
    auto worker = [&m] {
        for (int it = 0; it < 50; it++) {
            VkInstance inst = VK_NULL_HANDLE;
            ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
            auto pds = m.PhysicalDevices(inst);
            ASSERT_EQ(pds.size(), 2u);
            VkDeviceCreateInfo ci{};
            ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
            VkDevice dev = VK_NULL_HANDLE;
            ASSERT_EQ(m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice")(pds[it % 2], &ci, nullptr, &dev), VK_SUCCESS);
            auto gdpa = m.Proc<PFN_vkGetDeviceProcAddr>(inst, "vkGetDeviceProcAddr");
            VkCommandPoolCreateInfo pci{};
            pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
            VkCommandPool pool = VK_NULL_HANDLE;
            ASSERT_EQ(
                reinterpret_cast<PFN_vkCreateCommandPool>(gdpa(dev, "vkCreateCommandPool"))(dev, &pci, nullptr, &pool),
                VK_SUCCESS);
            VkCommandBufferAllocateInfo ai{};
            ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
            ai.commandPool = pool;
            ai.commandBufferCount = 2;
            VkCommandBuffer cbs[2];
            ASSERT_EQ(
                reinterpret_cast<PFN_vkAllocateCommandBuffers>(gdpa(dev, "vkAllocateCommandBuffers"))(dev, &ai, cbs),
                VK_SUCCESS);
            reinterpret_cast<PFN_vkCmdFillBuffer>(gdpa(dev, "vkCmdFillBuffer"))(cbs[1], VK_NULL_HANDLE, 0, 4, 1);
            reinterpret_cast<PFN_vkDestroyDevice>(gdpa(dev, "vkDestroyDevice"))(dev, nullptr);
            m.DestroyInstance(inst);
        }
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; i++) threads.emplace_back(worker);
    for (auto &t : threads) t.join();
    EXPECT_EQ(m.Records("vkCreateInstance").size(), 200u);
    for (auto &r : m.Records("vkCmdFillBuffer")) EXPECT_TRUE(r.Bool("valid"));
    EXPECT_EQ(m.CallsFileLines().size(), m.Records().size());
}

// ---------------------------------------------------------------------------------------------
// Scenario keys and variants that exist for ldp-check's proofs (docs/ldp-check.md, "Proof").

TEST(HiddenFunctions, EveryProcAddrFunctionAnswersNullButExportsStay) {
    const char *hide =
        R"({"hidden_functions": ["vkEnumerateInstanceVersion", "vk_icdNegotiateLoaderICDInterfaceVersion",
                              "vkGetPhysicalDeviceProperties", "vkCreateCommandPool"]})";
    Mock plain("v7_exports", "");
    Mock m("v7_exports", hide);
    // NULL instance: the hidden global and interface names are NULL, the others still answered.
    EXPECT_NE(plain.Gipa()(nullptr, "vkEnumerateInstanceVersion"), nullptr);
    EXPECT_EQ(m.Gipa()(nullptr, "vkEnumerateInstanceVersion"), nullptr);
    EXPECT_NE(plain.Gipa()(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    EXPECT_EQ(m.Gipa()(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    EXPECT_NE(m.Gipa()(nullptr, "vkCreateInstance"), nullptr);
    EXPECT_NE(m.Gipa()(nullptr, "vkEnumerateInstanceExtensionProperties"), nullptr);
    // The exported symbol itself is not touched.
    EXPECT_NE(m.Sym<void *>("vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    uint32_t v = 7;
    ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 7u);

    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    // With an instance: vk_icdGetInstanceProcAddr and vk_icdGetPhysicalDeviceProcAddr.
    EXPECT_EQ(m.Gipa()(inst, "vkGetPhysicalDeviceProperties"), nullptr);
    EXPECT_NE(m.Gipa()(inst, "vkGetPhysicalDeviceFeatures"), nullptr);
    EXPECT_EQ(m.Gipa()(inst, "vkCreateCommandPool"), nullptr);
    auto gpdpa = m.Sym<PFN_vk_icdGetPhysicalDeviceProcAddr>("vk_icdGetPhysicalDeviceProcAddr");
    ASSERT_NE(gpdpa, nullptr);
    EXPECT_EQ(gpdpa(inst, "vkGetPhysicalDeviceProperties"), nullptr);
    EXPECT_NE(gpdpa(inst, "vkGetPhysicalDeviceFeatures"), nullptr);
    auto plain_gpdpa = plain.Sym<PFN_vk_icdGetPhysicalDeviceProcAddr>("vk_icdGetPhysicalDeviceProcAddr");
    EXPECT_NE(plain_gpdpa(VK_NULL_HANDLE, "vkGetPhysicalDeviceProperties"), nullptr);
    // vkGetDeviceProcAddr.
    auto pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 1u);
    VkDeviceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    VkDevice dev = VK_NULL_HANDLE;
    ASSERT_EQ(m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice")(pds[0], &ci, nullptr, &dev), VK_SUCCESS);
    auto gdpa = m.Proc<PFN_vkGetDeviceProcAddr>(inst, "vkGetDeviceProcAddr");
    ASSERT_NE(gdpa, nullptr);
    EXPECT_EQ(gdpa(dev, "vkCreateCommandPool"), nullptr);
    EXPECT_NE(gdpa(dev, "vkDestroyCommandPool"), nullptr);
    reinterpret_cast<PFN_vkDestroyDevice>(gdpa(dev, "vkDestroyDevice"))(dev, nullptr);
    // Every hidden lookup is still recorded, as not answered.
    bool seen_gipa = false, seen_gpdpa = false, seen_gdpa = false;
    for (auto &r : m.Records("vk_icdGetInstanceProcAddr"))
        if (r.Str("name") == "vkGetPhysicalDeviceProperties") {
            seen_gipa = true;
            EXPECT_FALSE(r.Bool("answered"));
        }
    for (auto &r : m.Records("vk_icdGetPhysicalDeviceProcAddr"))
        if (r.Str("name") == "vkGetPhysicalDeviceProperties") {
            seen_gpdpa = true;
            EXPECT_FALSE(r.Bool("answered"));
        }
    for (auto &r : m.Records("vkGetDeviceProcAddr"))
        if (r.Str("name") == "vkCreateCommandPool") {
            seen_gdpa = true;
            EXPECT_FALSE(r.Bool("answered"));
        }
    EXPECT_TRUE(seen_gipa && seen_gpdpa && seen_gdpa);
    m.DestroyInstance(inst);
}

TEST(HiddenFunctions, InterfaceFunctionsThroughGipaAndVkExports) {
    // v7: GPDPA only through vk_icdGetInstanceProcAddr(NULL, ...): hidden there too.
    Mock v7("v7", R"({"hidden_functions": ["vk_icdGetPhysicalDeviceProcAddr"]})");
    EXPECT_EQ(v7.Gipa()(nullptr, "vk_icdGetPhysicalDeviceProcAddr"), nullptr);
    EXPECT_NE(v7.Gipa()(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    // *vkexports: the exported vkCreateInstance stays and works; every lookup answers NULL.
    Mock vk("v7_vkexports", R"({"hidden_functions": ["vkCreateInstance"]})");
    EXPECT_EQ(vk.Sym<PFN_vkGetInstanceProcAddr>("vk_icdGetInstanceProcAddr")(nullptr, "vkCreateInstance"), nullptr);
    EXPECT_EQ(vk.Sym<PFN_vkGetInstanceProcAddr>("vkGetInstanceProcAddr")(nullptr, "vkCreateInstance"), nullptr);
    auto create = vk.Sym<PFN_vkCreateInstance>("vkCreateInstance");
    ASSERT_NE(create, nullptr);
    VkInstanceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(create(&ci, nullptr, &inst), VK_SUCCESS);
    vk.Sym<PFN_vkDestroyInstance>("vkDestroyInstance")(inst, nullptr);
}

TEST(HiddenFunctions, SchemaErrors) {
    Mock m("v7", "");
    EXPECT_EQ(m.LoadScenario(R"({"hidden_functions": "vkCreateInstance"})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"hidden_functions": [1]})"), -1);
    std::string many = R"({"hidden_functions": [)";
    for (int i = 0; i < 257; i++) many += std::string(i ? "," : "") + "\"vkFn" + std::to_string(i) + "\"";
    EXPECT_EQ(m.LoadScenario((many + "]}").c_str()), -1);
    // The scenario in force is unchanged by a rejected one.
    EXPECT_NE(m.Gipa()(nullptr, "vkCreateInstance"), nullptr);
    ASSERT_EQ(m.LoadScenario(R"({"hidden_functions": ["vkCreateInstance"]})"), 0);
    EXPECT_EQ(m.Gipa()(nullptr, "vkCreateInstance"), nullptr);
}

TEST(CrashIn, NamedCommandAbortsWithDevices) {
    const char *sc = R"({"crash_in": ["vkGetPhysicalDeviceMemoryProperties"]})";
    // In a child: the named command aborts, after a record naming it in the .calls file.
    std::string calls;
    {
        Mock m("v7", sc);
        VkInstance inst = VK_NULL_HANDLE;
        ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
        auto pds = m.PhysicalDevices(inst);
        ASSERT_EQ(pds.size(), 1u);
        VkPhysicalDeviceProperties p{};
        m.Proc<PFN_vkGetPhysicalDeviceProperties>(inst, "vkGetPhysicalDeviceProperties")(pds[0], &p); // not named
        auto mem = m.Proc<PFN_vkGetPhysicalDeviceMemoryProperties>(inst, "vkGetPhysicalDeviceMemoryProperties");
        ASSERT_NE(mem, nullptr);
        pid_t pid = fork();
        if (pid == 0) {
            VkPhysicalDeviceMemoryProperties mp{};
            mem(pds[0], &mp);
            _exit(0);
        }
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) << status;
        bool recorded = false;
        for (const std::string &line : m.CallsFileLines()) {
            Record r = ParseRecord(line);
            if (r.call() == "crash_in") {
                recorded = true;
                EXPECT_EQ(r.Str("function"), "vkGetPhysicalDeviceMemoryProperties");
            }
        }
        EXPECT_TRUE(recorded);
        m.DestroyInstance(inst);
    }
    // Without it the same call returns.
    Mock plain("v7", "");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(plain.CreateInstance(0, &inst), VK_SUCCESS);
    VkPhysicalDeviceMemoryProperties mp{};
    plain.Proc<PFN_vkGetPhysicalDeviceMemoryProperties>(inst, "vkGetPhysicalDeviceMemoryProperties")(
        plain.PhysicalDevices(inst)[0], &mp);
    EXPECT_GT(mp.memoryTypeCount, 0u);
    plain.DestroyInstance(inst);
    EXPECT_EQ(plain.LoadScenario(R"({"crash_in": "vkCreateDevice"})"), -1);
    EXPECT_EQ(plain.LoadScenario(R"({"crash_in": [3]})"), -1);
}

TEST(Negotiation, PerOfferAnswers) {
    Mock m("v7_exports", R"({"interface": {"per_offer": {"6": 4, "5": "VK_ERROR_INCOMPATIBLE_DRIVER"}}})");
    uint32_t v = 7;
    EXPECT_EQ(m.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 7u); // offers without an entry: min(offered, maximum)
    v = 6;
    EXPECT_EQ(m.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 4u); // a number: that version
    v = 5;
    EXPECT_EQ(m.Negotiate(&v), VK_ERROR_INCOMPATIBLE_DRIVER);
    EXPECT_EQ(v, 5u); // a result: *pVersion untouched
    v = 4;
    EXPECT_EQ(m.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 4u);
    auto recs = m.Records("vk_icdNegotiateLoaderICDInterfaceVersion");
    ASSERT_EQ(recs.size(), 4u);
    EXPECT_EQ(recs[1].Num("offered"), 6);
    EXPECT_EQ(recs[1].Num("returned"), 4);
    EXPECT_EQ(recs[2].Num("offered"), 5);
    EXPECT_EQ(recs[2].Str("result"), "VK_ERROR_INCOMPATIBLE_DRIVER");
    // report_version still has the last word.
    Mock r("v7_exports", R"({"interface": {"per_offer": {"6": 4}, "report_version": 3}})");
    v = 6;
    EXPECT_EQ(r.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 3u);
    // Schema: keys are offered versions, values numbers or VkResult names.
    EXPECT_EQ(m.LoadScenario(R"({"interface": {"per_offer": {"six": 4}}})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"interface": {"per_offer": {"6": "VK_NOT_A_RESULT"}}})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"interface": {"per_offer": [4]}})"), -1);
}

TEST(Negotiation, MaxThroughGipaLimitsOnlyTheGipaPath) {
    Mock m("v7_exports", R"({"interface": {"max_through_gipa": 6}})");
    uint32_t v = 7;
    ASSERT_EQ(m.Sym<PFN_vk_icdNegotiateLoaderICDInterfaceVersion>("vk_icdNegotiateLoaderICDInterfaceVersion")(&v),
              VK_SUCCESS);
    EXPECT_EQ(v, 7u);
    auto through_gipa = reinterpret_cast<PFN_vk_icdNegotiateLoaderICDInterfaceVersion>(
        m.Gipa()(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion"));
    ASSERT_NE(through_gipa, nullptr);
    v = 7;
    ASSERT_EQ(through_gipa(&v), VK_SUCCESS);
    EXPECT_EQ(v, 6u);
    v = 5;
    ASSERT_EQ(through_gipa(&v), VK_SUCCESS);
    EXPECT_EQ(v, 5u);
    auto recs = m.Records("vk_icdNegotiateLoaderICDInterfaceVersion");
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_FALSE(recs[0].Bool("through_gipa"));
    EXPECT_TRUE(recs[1].Bool("through_gipa"));
    EXPECT_EQ(recs[1].Num("returned"), 6);
    // Without the key both paths agree.
    Mock plain("v7_exports", "");
    auto plain_gipa = reinterpret_cast<PFN_vk_icdNegotiateLoaderICDInterfaceVersion>(
        plain.Gipa()(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion"));
    v = 7;
    ASSERT_EQ(plain_gipa(&v), VK_SUCCESS);
    EXPECT_EQ(v, 7u);
    EXPECT_EQ(m.LoadScenario(R"({"interface": {"max_through_gipa": "six"}})"), -1);
}

TEST(CreateInstance, IncompatibleForApi2Misbehaviour) {
    Mock m("v5", R"({"misbehave": {"incompatible_for_api_2": true}})");
    uint32_t v = 7;
    ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
    ASSERT_EQ(v, 5u);
    for (uint32_t api :
         {VK_API_VERSION_1_0, VK_API_VERSION_1_1, VK_MAKE_API_VERSION(0, 1, 4, 0), VK_MAKE_API_VERSION(0, 1, 9, 0)}) {
        VkInstance inst = VK_NULL_HANDLE;
        EXPECT_EQ(m.CreateInstance(api, &inst), VK_SUCCESS) << api;
        if (inst) m.DestroyInstance(inst);
    }
    VkInstance inst = VK_NULL_HANDLE;
    EXPECT_EQ(m.CreateInstance(VK_MAKE_API_VERSION(0, 2, 0, 0), &inst), VK_ERROR_INCOMPATIBLE_DRIVER);
    EXPECT_EQ(m.Records("vkCreateInstance").back().Str("result"), "VK_ERROR_INCOMPATIBLE_DRIVER");
    // Without it, 2.0 is accepted at interface 5.
    Mock plain("v5", "");
    v = 7;
    ASSERT_EQ(plain.Negotiate(&v), VK_SUCCESS);
    ASSERT_EQ(plain.CreateInstance(VK_MAKE_API_VERSION(0, 2, 0, 0), &inst), VK_SUCCESS);
    plain.DestroyInstance(inst);
}

TEST(Gipa, NullInstanceAnswersAllMisbehaviour) {
    const std::vector<const char *> non_global = {"vkEnumeratePhysicalDevices", "vkCreateDevice", "vkDestroyInstance",
                                                  "vkGetPhysicalDeviceProperties", "vkCreateCommandPool"};
    Mock plain("v7", "");
    Mock m("v7", R"({"misbehave": {"gipa_null_instance_answers_all": true}})");
    for (const char *name : non_global) {
        EXPECT_EQ(plain.Gipa()(nullptr, name), nullptr) << name;
        EXPECT_NE(m.Gipa()(nullptr, name), nullptr) << name;
    }
    // Unknown names and closed gates stay NULL; globals are unchanged.
    EXPECT_EQ(m.Gipa()(nullptr, "vkNotAFunction"), nullptr);
    EXPECT_EQ(m.Gipa()(nullptr, "vkCreateXcbSurfaceKHR"), nullptr); // no VK_KHR_xcb_surface offered
    EXPECT_NE(m.Gipa()(nullptr, "vkCreateInstance"), nullptr);
    // The answer is the real command.
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto enumerate = reinterpret_cast<PFN_vkEnumeratePhysicalDevices>(m.Gipa()(nullptr, "vkEnumeratePhysicalDevices"));
    uint32_t n = 0;
    EXPECT_EQ(enumerate(inst, &n, nullptr), VK_SUCCESS);
    EXPECT_EQ(n, 1u);
    m.DestroyInstance(inst);
}

TEST(Variants, V2NoGipaNegotiatesWithoutIcdGipa) {
    Mock m("v2_nogipa", R"({"api_version": "1.0.0"})");
    EXPECT_EQ(m.Sym<void *>("vk_icdGetInstanceProcAddr"), nullptr);
    EXPECT_EQ(m.Sym<void *>("vk_icdGetPhysicalDeviceProcAddr"), nullptr);
    EXPECT_NE(m.Sym<void *>("vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    for (const char *s : {"vkGetInstanceProcAddr", "vkCreateInstance", "vkEnumerateInstanceExtensionProperties"})
        EXPECT_NE(m.Sym<void *>(s), nullptr) << s;
    EXPECT_EQ(m.Sym<void *>("vkEnumeratePhysicalDevices"), nullptr); // only the three v0 exports
    uint32_t v = 7;
    ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 2u);
    EXPECT_EQ(m.Records("first_entry").at(0).Str("loader"), "negotiate");
    // The v0 exports still serve a loader that goes through them.
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_EQ(m.PhysicalDevices(inst).size(), 1u);
    m.DestroyInstance(inst);
    // The scenario can narrow it to interface 0, where the v0 exports are all a loader needs.
    Mock zero("v2_nogipa", R"({"api_version": "1.0.0", "interface": {"max": 0}})");
    v = 7;
    ASSERT_EQ(zero.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 0u);
}

// DT_SYMBOLIC, or DF_SYMBOLIC in DT_FLAGS, in the dynamic section of a loaded library.
bool LinkedSymbolic(void *handle) {
    struct link_map *lm = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == nullptr || lm->l_ld == nullptr) return false;
    for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_SYMBOLIC || (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_SYMBOLIC))) return true;
    return false;
}

TEST(Variants, VkExportsSymbolicBindsToItself) {
    Mock plain("v7_vkexports", "");
    Mock sym("v7_vkexports_symbolic", "");
    EXPECT_FALSE(LinkedSymbolic(plain.handle()));
    EXPECT_TRUE(LinkedSymbolic(sym.handle()));
    // Same exports and behaviour otherwise.
    for (const char *s :
         {"vkCreateInstance", "vkGetInstanceProcAddr", "vkEnumeratePhysicalDevices", "vkGetDeviceProcAddr"})
        EXPECT_NE(sym.Sym<void *>(s), nullptr) << s;
    EXPECT_EQ(sym.Sym<void *>("vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    uint32_t v = 7;
    ASSERT_EQ(sym.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 7u);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(sym.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_EQ(sym.PhysicalDevices(inst).size(), 1u);
    sym.DestroyInstance(inst);
}

TEST(Variants, NoneExportsOnlyTheControlFunctions) {
    Mock m("none", R"({"physical_devices": [{}, {}]})");
    for (const char *s :
         {"vk_icdNegotiateLoaderICDInterfaceVersion", "vk_icdGetInstanceProcAddr", "vk_icdGetPhysicalDeviceProcAddr",
          "vkGetInstanceProcAddr", "vkCreateInstance", "vkEnumerateInstanceExtensionProperties"})
        EXPECT_EQ(m.Sym<void *>(s), nullptr) << s;
    for (const char *s : {"mock_icd_ctl_load_scenario", "mock_icd_ctl_record_count", "mock_icd_ctl_record_get",
                          "mock_icd_ctl_reset", "mock_icd_ctl_set_result"})
        EXPECT_NE(m.Sym<void *>(s), nullptr) << s;
    // Nothing reached the driver, so nothing is recorded (not even a first entry).
    EXPECT_TRUE(m.Records().empty());
    EXPECT_EQ(m.LoadScenario(R"({"physical_devices": []})"), 0);
    EXPECT_EQ(m.LoadScenario("{not json"), -1);
}

} // namespace
