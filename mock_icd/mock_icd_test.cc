// Tests of the mock ICD itself: every test dlopens a fresh copy of a variant (copied into
// $TEST_TMPDIR with a `.scenario` sidecar, mock_icd_test_util.h) and drives it the way a loader
// would. This file: the instance level (negotiation, vk_icdGetInstanceProcAddr, vkCreateInstance,
// instance extensions); the rest of //mock_icd:mock_icd_test is in mock_icd_device_test.cc,
// mock_icd_records_test.cc and mock_icd_proof_test.cc.
#define VK_NO_PROTOTYPES 1

#include <dlfcn.h>

#include <cjson/cJSON.h>
#include <gtest/gtest.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vulkan.h>

#include <string>
#include <vector>

#include "mock_icd/mock_icd_ctl.h"
#include "mock_icd/mock_icd_test_util.h"

namespace mock_icd_test {
namespace {

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

} // namespace
} // namespace mock_icd_test
