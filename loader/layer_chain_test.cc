// Chain integration through the built libvulkan.so.1 with the mock driver and mock layers:
// LLP_LOADER_8/9 (link info, loader-data callbacks), RULE_LYR_ORDER (chain order), LLP_LAYER_21/22
// (clobbered handles refused), LLP_LOADER_5 (failed negotiation), RULE_LYR_IFACE_V0/V1/V2 and the
// functions renames, layer enumeration.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "loader/test_support.h"

namespace {

using vkl_test::Runfile;

class ChainTest : public ::testing::Test {
  protected:
    void SetUp() override {
        root_ = vkl_test::MakeTempDir("chain");
        ASSERT_FALSE(root_.empty());
        Sh("mkdir -p '" + root_ + "/icd' '" + root_ + "/exp' '" + root_ + "/imp' '" + root_ + "/home'");
        Sh("cp '" + Runfile("mock_icd/libmock_icd_v7.so") + "' '" + root_ + "/icd/drv.so'");
        std::ofstream(root_ + "/icd/drv.json")
            << "{\"file_format_version\": \"1.0.1\", \"ICD\": {\"library_path\": \"" + root_ +
                   "/icd/drv.so\", \"api_version\": \"1.3.0\"}}";
        calls_ = root_ + "/calls.jsonl";
        setenv("VK_DRIVER_FILES", (root_ + "/icd/drv.json").c_str(), 1);
        setenv("VK_LAYER_PATH", (root_ + "/exp").c_str(), 1);
        setenv("VK_IMPLICIT_LAYER_PATH", (root_ + "/imp").c_str(), 1);
        setenv("HOME", (root_ + "/home").c_str(), 1);
        unsetenv("VK_INSTANCE_LAYERS");
        loader_ = dlopen(Runfile("loader/libvulkan.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
        ASSERT_NE(loader_, nullptr) << dlerror();
        gipa_ = (PFN_vkGetInstanceProcAddr)dlsym(loader_, "vkGetInstanceProcAddr");
        ASSERT_NE(gipa_, nullptr);
    }
    void TearDown() override {
        if (loader_) dlclose(loader_);
        Sh("rm -rf '" + root_ + "'");
    }
    static void Sh(const std::string &c) { vkl_test::Sh(c); }
    // Installs a mock layer copy named `name` (explicit unless `implicit`).
    void AddLayer(const std::string &name, const std::string &variant, const std::string &misbehave = "{}",
                  const std::string &extra = "", const std::string &ffv = "1.1.2", bool implicit = false) {
        std::string dir = root_ + (implicit ? "/imp/" : "/exp/");
        std::string lib = dir + name + ".so";
        Sh("cp '" + Runfile("mock_layers/libmock_layer_" + variant + ".so") + "' '" + lib + "'");
        std::ofstream(lib + ".scenario") << "{\"name\": \"" + name + "\", \"calls_file\": \"" + calls_ +
                                                "\", \"misbehave\": " + misbehave + "}";
        std::ofstream(dir + name + ".json")
            << "{\"file_format_version\": \"" + ffv + "\", \"layer\": {\"name\": \"" + name +
                   "\", \"type\": \"GLOBAL\", \"library_path\": \"./" + name +
                   ".so\", \"api_version\": \"1.3.0\", \"implementation_version\": \"1\", \"description\": "
                   "\"mock\"" +
                   (implicit ? ", \"disable_environment\": {\"DISABLE_" + name + "\": \"1\"}" : "") + extra + "}}";
    }
    std::vector<std::string> Calls(const std::string &call = "") {
        std::vector<std::string> v;
        std::ifstream f(calls_);
        std::string line;
        while (std::getline(f, line)) {
            if (!call.empty() && line.find("\"call\":\"" + call + "\"") == std::string::npos) continue;
            size_t p = line.find("\"layer\":\"");
            if (p == std::string::npos) continue;
            p += 9;
            v.push_back(line.substr(p, line.find('"', p) - p));
        }
        return v;
    }
    bool CallsContain(const std::string &s) {
        std::ifstream f(calls_);
        std::stringstream ss;
        ss << f.rdbuf();
        return ss.str().find(s) != std::string::npos;
    }
    template <typename T> T G(VkInstance i, const char *n) { return reinterpret_cast<T>(gipa_(i, n)); }
    VkResult CreateInstance(std::vector<const char *> layers, VkInstance *inst) {
        VkApplicationInfo app{};
        app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
        app.apiVersion = VK_API_VERSION_1_3;
        VkInstanceCreateInfo ci{};
        ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
        ci.pApplicationInfo = &app;
        ci.enabledLayerCount = (uint32_t)layers.size();
        ci.ppEnabledLayerNames = layers.data();
        return G<PFN_vkCreateInstance>(VK_NULL_HANDLE, "vkCreateInstance")(&ci, nullptr, inst);
    }
    using V = std::vector<std::string>;
    std::string root_, calls_;
    void *loader_ = nullptr;
    PFN_vkGetInstanceProcAddr gipa_ = nullptr;
};

TEST_F(ChainTest, InstanceAndDeviceChainOrder) {
    AddLayer("VK_LAYER_mock_imp", "v2_gpdpa", "{}", "", "1.1.2", true);
    AddLayer("VK_LAYER_mock_a", "v2");
    AddLayer("VK_LAYER_mock_b", "v1");
    AddLayer("VK_LAYER_mock_c", "v0");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(CreateInstance({"VK_LAYER_mock_b", "VK_LAYER_mock_a", "VK_LAYER_mock_c", "VK_LAYER_mock_b"}, &inst),
              VK_SUCCESS);
    // RULE_LYR_ORDER + LLP_LOADER_3: implicit first, then the application's order, duplicate dropped.
    EXPECT_EQ(Calls("vkCreateInstance"),
              (V{"VK_LAYER_mock_imp", "VK_LAYER_mock_b", "VK_LAYER_mock_a", "VK_LAYER_mock_c"}));
    // LLP_LOADER_8: every layer found its link and the loader-data callback.
    EXPECT_FALSE(CallsContain("\"link_info\":false"));
    EXPECT_FALSE(CallsContain("\"set_instance_loader_data\":false"));
    uint32_t n = 0;
    ASSERT_EQ(G<PFN_vkEnumeratePhysicalDevices>(inst, "vkEnumeratePhysicalDevices")(inst, &n, nullptr), VK_SUCCESS);
    ASSERT_GE(n, 1u);
    std::vector<VkPhysicalDevice> pds(n);
    ASSERT_EQ(G<PFN_vkEnumeratePhysicalDevices>(inst, "vkEnumeratePhysicalDevices")(inst, &n, pds.data()), VK_SUCCESS);
    VkPhysicalDeviceProperties props;
    G<PFN_vkGetPhysicalDeviceProperties>(inst, "vkGetPhysicalDeviceProperties")(pds[0], &props);
    EXPECT_EQ(Calls("vkGetPhysicalDeviceProperties"),
              (V{"VK_LAYER_mock_imp", "VK_LAYER_mock_b", "VK_LAYER_mock_a", "VK_LAYER_mock_c"}));
    // Device layer enumeration = the instance's active layers.
    uint32_t ln = 0;
    ASSERT_EQ(G<PFN_vkEnumerateDeviceLayerProperties>(inst, "vkEnumerateDeviceLayerProperties")(pds[0], &ln, nullptr),
              VK_SUCCESS);
    EXPECT_EQ(ln, 4u);
    // LLP_LOADER_9: the device chain.
    float prio = 1.0f;
    VkDeviceQueueCreateInfo q{};
    q.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    q.queueCount = 1;
    q.pQueuePriorities = &prio;
    VkDeviceCreateInfo dci{};
    dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &q;
    VkDevice dev = VK_NULL_HANDLE;
    ASSERT_EQ(G<PFN_vkCreateDevice>(inst, "vkCreateDevice")(pds[0], &dci, nullptr, &dev), VK_SUCCESS);
    EXPECT_EQ(Calls("vkCreateDevice"),
              (V{"VK_LAYER_mock_imp", "VK_LAYER_mock_b", "VK_LAYER_mock_a", "VK_LAYER_mock_c"}));
    EXPECT_FALSE(CallsContain("\"set_device_loader_data\":false"));
    // vkGetDeviceProcAddr gives the chain's pointer for a command a layer intercepts.
    auto gdpa = G<PFN_vkGetDeviceProcAddr>(inst, "vkGetDeviceProcAddr");
    ASSERT_NE(gdpa(dev, "vkGetDeviceQueue"), nullptr);
    G<PFN_vkDestroyDevice>(inst, "vkDestroyDevice")(dev, nullptr);
    EXPECT_EQ(Calls("vkDestroyDevice"),
              (V{"VK_LAYER_mock_imp", "VK_LAYER_mock_b", "VK_LAYER_mock_a", "VK_LAYER_mock_c"}));
    G<PFN_vkDestroyInstance>(inst, "vkDestroyInstance")(inst, nullptr);
    EXPECT_EQ(Calls("vkDestroyInstance"),
              (V{"VK_LAYER_mock_imp", "VK_LAYER_mock_b", "VK_LAYER_mock_a", "VK_LAYER_mock_c"}));
}

TEST_F(ChainTest, InterfaceVariantsAndRenames) {
    AddLayer("VK_LAYER_mock_ren1", "v1_renamed", "{}",
             ", \"functions\": {\"vkGetInstanceProcAddr\": \"MockLayer_GetInstanceProcAddr\", \"vkGetDeviceProcAddr\": "
             "\"MockLayer_GetDeviceProcAddr\"}");
    AddLayer("VK_LAYER_mock_ren2", "v2_renamed", "{}",
             ", \"functions\": {\"vkNegotiateLoaderLayerInterfaceVersion\": \"MockLayer_Negotiate\"}");
    AddLayer("VK_LAYER_mock_all", "v2_all");
    AddLayer("VK_LAYER_mock_gpdpa", "v2_gpdpa_export");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(
        CreateInstance({"VK_LAYER_mock_ren1", "VK_LAYER_mock_ren2", "VK_LAYER_mock_all", "VK_LAYER_mock_gpdpa"}, &inst),
        VK_SUCCESS);
    EXPECT_EQ(Calls("vkCreateInstance"),
              (V{"VK_LAYER_mock_ren1", "VK_LAYER_mock_ren2", "VK_LAYER_mock_all", "VK_LAYER_mock_gpdpa"}));
    EXPECT_EQ(Calls("vkNegotiateLoaderLayerInterfaceVersion"),
              (V{"VK_LAYER_mock_ren2", "VK_LAYER_mock_all", "VK_LAYER_mock_gpdpa"}));
    EXPECT_TRUE(CallsContain("\"offered\":2"));
    G<PFN_vkDestroyInstance>(inst, "vkDestroyInstance")(inst, nullptr);
}

TEST_F(ChainTest, InstanceLayerEnumeration) {
    AddLayer("VK_LAYER_mock_a", "v2", "{}",
             ", \"instance_extensions\": [{\"name\": \"VK_EXT_mock_layer_ext\", \"spec_version\": \"3\"}]");
    auto eilp = G<PFN_vkEnumerateInstanceLayerProperties>(VK_NULL_HANDLE, "vkEnumerateInstanceLayerProperties");
    uint32_t n = 0;
    ASSERT_EQ(eilp(&n, nullptr), VK_SUCCESS);
    ASSERT_EQ(n, 1u);
    VkLayerProperties p;
    ASSERT_EQ(eilp(&n, &p), VK_SUCCESS);
    EXPECT_STREQ(p.layerName, "VK_LAYER_mock_a");
    auto eiep = G<PFN_vkEnumerateInstanceExtensionProperties>(VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties");
    ASSERT_EQ(eiep("VK_LAYER_mock_a", &n, nullptr), VK_SUCCESS);
    ASSERT_EQ(n, 1u);
    VkExtensionProperties e;
    ASSERT_EQ(eiep("VK_LAYER_mock_a", &n, &e), VK_SUCCESS);
    EXPECT_STREQ(e.extensionName, "VK_EXT_mock_layer_ext");
    EXPECT_EQ(eiep("VK_LAYER_nope", &n, nullptr), VK_ERROR_LAYER_NOT_PRESENT);
    // A layer-provided extension can be enabled.
    VkInstanceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    const char *layer = "VK_LAYER_mock_a";
    const char *ext = "VK_EXT_mock_layer_ext";
    ci.enabledLayerCount = 1;
    ci.ppEnabledLayerNames = &layer;
    ci.enabledExtensionCount = 1;
    ci.ppEnabledExtensionNames = &ext;
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(G<PFN_vkCreateInstance>(VK_NULL_HANDLE, "vkCreateInstance")(&ci, nullptr, &inst), VK_SUCCESS);
    G<PFN_vkDestroyInstance>(inst, "vkDestroyInstance")(inst, nullptr);
}

// LLP_LOADER_5: a layer whose negotiation fails is not loaded even though it exports
// vkGetInstanceProcAddr (v2_all).
TEST_F(ChainTest, FailedNegotiationNotLoaded) {
    AddLayer("VK_LAYER_mock_neg", "v2_all", "{\"fail_negotiation\": true}");
    VkInstance inst = VK_NULL_HANDLE;
    EXPECT_EQ(CreateInstance({"VK_LAYER_mock_neg"}, &inst), VK_ERROR_LAYER_NOT_PRESENT);
    EXPECT_EQ(Calls("vkCreateInstance"), V{});
    // As an implicit layer it is just skipped.
    AddLayer("VK_LAYER_mock_negimp", "v2_all", "{\"fail_negotiation\": true}", "", "1.1.2", true);
    ASSERT_EQ(CreateInstance({}, &inst), VK_SUCCESS);
    EXPECT_EQ(Calls("vkCreateInstance"), V{});
    G<PFN_vkDestroyInstance>(inst, "vkDestroyInstance")(inst, nullptr);
}

// LLP_LAYER_21
TEST_F(ChainTest, ClobberedInstanceRefused) {
    AddLayer("VK_LAYER_mock_clob", "v2", "{\"clobber_instance\": true}");
    VkInstance inst = VK_NULL_HANDLE;
    EXPECT_EQ(CreateInstance({"VK_LAYER_mock_clob"}, &inst), VK_ERROR_INITIALIZATION_FAILED);
}

// LLP_LAYER_22
TEST_F(ChainTest, ClobberedDeviceRefused) {
    AddLayer("VK_LAYER_mock_clob", "v2", "{\"clobber_device\": true}");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(CreateInstance({"VK_LAYER_mock_clob"}, &inst), VK_SUCCESS);
    uint32_t n = 1;
    VkPhysicalDevice pd;
    ASSERT_EQ(G<PFN_vkEnumeratePhysicalDevices>(inst, "vkEnumeratePhysicalDevices")(inst, &n, &pd), VK_SUCCESS);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo q{};
    q.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    q.queueCount = 1;
    q.pQueuePriorities = &prio;
    VkDeviceCreateInfo dci{};
    dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &q;
    VkDevice dev = VK_NULL_HANDLE;
    EXPECT_EQ(G<PFN_vkCreateDevice>(inst, "vkCreateDevice")(pd, &dci, nullptr, &dev), VK_ERROR_INITIALIZATION_FAILED);
    G<PFN_vkDestroyInstance>(inst, "vkDestroyInstance")(inst, nullptr);
}

} // namespace
