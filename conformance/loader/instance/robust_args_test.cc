// Robust arguments (RULE_INST_ROBUST_ARGUMENTS): every exported command the loader answers itself that takes a
// count/array pair or a layer name is called with what the Vulkan specification forbids (a NULL
// count pointer, a count with a NULL array, a NULL name) or allows oddly (an empty layer name).
// The loader never crashes and answers with a result the command may return:
//   - a count with a NULL array, or a NULL name in it: the layer / extension is not present;
//   - "" as a layer name is no layer name (the answer equals the NULL-name answer);
//   - a NULL count (version) pointer: VK_ERROR_OUT_OF_HOST_MEMORY, the one failure every such
//     command may return (the Khronos loader answers vkEnumerateInstanceVersion(NULL) the same), and
//     VK_ERROR_INITIALIZATION_FAILED for vkEnumeratePhysicalDevices / groups (a result those
//     commands may return, and the Khronos loader's).
#include <string>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

struct RobustCase {
  const char* name;
  const char* expected;  // the result
  bool counted;          // "count" must equal "reference_count"
};

class RobustArguments : public ::testing::TestWithParam<RobustCase> {};

TEST_P(RobustArguments, NoCrashAndTheSpecifiedResult) {
  VKT_POLICY("RULE_INST_ROBUST_ARGUMENTS");
  const RobustCase& c = GetParam();
  Sandbox s;
  s.AddDriver("a", "v7_exports",
              R"({"physical_devices":[{"name":"a-dev","device_id":100,)"
              R"("extensions":[{"name":"VK_KHR_swapchain","spec_version":70}]}]})");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(s, {std::string("robust:") + c.name});
  ASSERT_EQ(r.exit_status, 0) << "the loader crashed\n" << r.Describe();
  Json j = r.Step("robust");
  ASSERT_FALSE(j["setup"].valid()) << r.Describe();
  EXPECT_EQ(j["result"].str(), c.expected) << r.Describe();
  if (c.counted) {
    EXPECT_GT(j["reference_count"].num(), 0) << r.Describe();
    EXPECT_EQ(j["count"].num(), j["reference_count"].num()) << r.Describe();
  }
  EXPECT_FALSE(j["instance"].boolean()) << "no instance may be created from refused arguments\n" << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(
    Instance, RobustArguments,
    ::testing::Values(RobustCase{"create-instance-layers-null-array", "VK_ERROR_LAYER_NOT_PRESENT", false},
                      RobustCase{"create-instance-extensions-null-array", "VK_ERROR_EXTENSION_NOT_PRESENT", false},
                      RobustCase{"create-instance-null-layer-name", "VK_ERROR_LAYER_NOT_PRESENT", false},
                      RobustCase{"create-instance-null-extension-name", "VK_ERROR_EXTENSION_NOT_PRESENT", false},
                      RobustCase{"instance-extensions-null-count", "VK_ERROR_OUT_OF_HOST_MEMORY", false},
                      RobustCase{"instance-extensions-empty-layer-name", "VK_SUCCESS", true},
                      RobustCase{"instance-layers-null-count", "VK_ERROR_OUT_OF_HOST_MEMORY", false},
                      RobustCase{"instance-version-null", "VK_ERROR_OUT_OF_HOST_MEMORY", false},
                      RobustCase{"physical-devices-null-count", "VK_ERROR_INITIALIZATION_FAILED", false},
                      RobustCase{"groups-null-count", "VK_ERROR_INITIALIZATION_FAILED", false},
                      RobustCase{"device-extensions-null-count", "VK_INCOMPLETE", false},
                      RobustCase{"device-extensions-empty-layer-name", "VK_SUCCESS", true},
                      RobustCase{"device-layers-null-count", "VK_ERROR_OUT_OF_HOST_MEMORY", false},
                      RobustCase{"create-device-extensions-null-array", "VK_ERROR_EXTENSION_NOT_PRESENT", false},
                      RobustCase{"create-device-null-extension-name", "VK_ERROR_EXTENSION_NOT_PRESENT", false},
                      RobustCase{"create-device-layers-null-array", "VK_SUCCESS", false}),
    [](const ::testing::TestParamInfo<RobustCase>& i) {
      std::string n = i.param.name;
      for (char& ch : n)
        if (ch == '-') ch = '_';
      return n;
    });

// Every exported command with a count/array pair whose count the application passes by pointer,
// the loader-answered ones above aside (tools/vkgen/vkgen_test.py checks this list against vk.xml),
// called with a NULL count pointer and a NULL array: the loader never crashes, never hands the NULL
// to the driver, and a command that returns a VkResult returns VK_ERROR_OUT_OF_HOST_MEMORY (a result
// each of them may return).
struct NullCountCase {
  const char* command;
  bool returns_result;
};
class NullCount : public ::testing::TestWithParam<NullCountCase> {};

TEST_P(NullCount, RefusedBeforeTheDriver) {
  VKT_POLICY("RULE_INST_ROBUST_ARGUMENTS");
  const NullCountCase& c = GetParam();
  Sandbox s;
  s.AddDriver("a", "v7_exports",
              R"({"instance_extensions":["VK_KHR_surface","VK_EXT_headless_surface","VK_KHR_display",)"
              R"("VK_KHR_get_display_properties2","VK_KHR_get_surface_capabilities2"],)"
              R"("physical_devices":[{"name":"a-dev","device_id":100,)"
              R"("extensions":[{"name":"VK_KHR_swapchain","spec_version":70}]}]})");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(
      s, {"create-instance:ext=VK_KHR_surface,VK_EXT_headless_surface,VK_KHR_display,VK_KHR_get_display_properties2,"
          "VK_KHR_get_surface_capabilities2",
          "devices", "create-surface:headless", "create-device:0;ext=VK_KHR_swapchain",
          std::string("null-count:") + c.command, "destroy-device", "destroy-surface", "destroy-instance"});
  ASSERT_EQ(r.exit_status, 0) << "the process crashed\n" << r.Describe();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Json j = r.Step("null-count");
  ASSERT_TRUE(j["resolved"].boolean()) << "not exported\n" << r.Describe();
  ASSERT_FALSE(j["error"].valid()) << r.Describe();
  ASSERT_FALSE(j["setup"].valid()) << r.Describe();
  if (c.returns_result) {
    EXPECT_EQ(j["result"].str(), "VK_ERROR_OUT_OF_HOST_MEMORY") << r.Describe();
  } else {
    EXPECT_FALSE(j["result"].valid()) << r.Describe();
  }
  EXPECT_TRUE(s.CallsTo("a", c.command).empty()) << "the driver received the NULL count\n" << r.Describe();
  EXPECT_NE(r.err.find(std::string(c.command) + ": p"), std::string::npos)
      << "no log line names the command and its NULL parameter\n"
      << r.err;
}

INSTANTIATE_TEST_SUITE_P(Exported, NullCount,
                         ::testing::Values(NullCountCase{"vkGetPhysicalDeviceQueueFamilyProperties", false},
                                           NullCountCase{"vkGetPhysicalDeviceQueueFamilyProperties2", false},
                                           NullCountCase{"vkGetPhysicalDeviceSparseImageFormatProperties", false},
                                           NullCountCase{"vkGetPhysicalDeviceSparseImageFormatProperties2", false},
                                           NullCountCase{"vkGetPhysicalDeviceToolProperties", true},
                                           NullCountCase{"vkGetPhysicalDeviceDisplayPropertiesKHR", true},
                                           NullCountCase{"vkGetPhysicalDeviceDisplayPlanePropertiesKHR", true},
                                           NullCountCase{"vkGetPhysicalDeviceDisplayProperties2KHR", true},
                                           NullCountCase{"vkGetPhysicalDeviceDisplayPlaneProperties2KHR", true},
                                           NullCountCase{"vkGetDisplayPlaneSupportedDisplaysKHR", true},
                                           NullCountCase{"vkGetDisplayModePropertiesKHR", true},
                                           NullCountCase{"vkGetDisplayModeProperties2KHR", true},
                                           NullCountCase{"vkGetPhysicalDeviceSurfaceFormatsKHR", true},
                                           NullCountCase{"vkGetPhysicalDeviceSurfaceFormats2KHR", true},
                                           NullCountCase{"vkGetPhysicalDeviceSurfacePresentModesKHR", true},
                                           NullCountCase{"vkGetPhysicalDevicePresentRectanglesKHR", true},
                                           NullCountCase{"vkGetImageSparseMemoryRequirements", false},
                                           NullCountCase{"vkGetImageSparseMemoryRequirements2", false},
                                           NullCountCase{"vkGetDeviceImageSparseMemoryRequirements", false},
                                           NullCountCase{"vkGetPipelineCacheData", true},
                                           NullCountCase{"vkGetSwapchainImagesKHR", true}),
                         [](const ::testing::TestParamInfo<NullCountCase>& i) { return std::string(i.param.command); });

// Invalid dispatchable handles (RULE_HANDLE_VALIDATION): where the Khronos loader validates a handle, an invalid
// one ends the process with one line naming the command, the parameter and its Valid Usage ID
// ("vkEnumeratePhysicalDevices: Invalid instance [VUID-vkEnumeratePhysicalDevices-instance-parameter]"),
// whatever VK_LOADER_DEBUG says, instead of crashing somewhere deep.
struct BadHandleCase {
  const char* command;
  const char* param;
};
class BadHandle : public ::testing::TestWithParam<BadHandleCase> {};

void ExpectEndsNamingTheVuid(const BadHandleCase& c, const std::string& suffix) {
  Sandbox s;
  AddNamedDriver(s, "a", "v7_exports");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(s, {std::string("bad-handle:") + c.command + suffix});
  ASSERT_TRUE(r.Step("bad-handle").valid()) << r.Describe();
  EXPECT_FALSE(r.Step("bad-handle-returned").valid()) << "the call came back\n" << r.Describe();
  EXPECT_EQ(r.exit_status, 128 + 6) << "want SIGABRT\n" << r.Describe();
  const std::string want =
      std::string(c.command) + ": Invalid " + c.param + " [VUID-" + c.command + "-" + c.param + "-parameter]";
  EXPECT_NE(r.err.find(want), std::string::npos) << want << "\n" << r.err;
}

// An extension's alias of a core command is reported under the alias the application called (its
// own trampoline, as the Khronos loader gives every name), with the alias's Valid Usage ID.
TEST(BadHandleAlias, NamedByTheAliasCalled) {
  VKT_POLICY("RULE_HANDLE_VALIDATION", "RULE_GIPA_SPEC");
  Sandbox s;
  AddNamedDriver(s, "a", "v7_exports");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r =
      RunProbe(s, {"create-instance", "gipa:vkGetPhysicalDeviceProperties2", "gipa:vkGetPhysicalDeviceProperties2KHR",
                   "bad-handle:vkGetPhysicalDeviceToolPropertiesEXT"});
  ASSERT_TRUE(r.Step("bad-handle").valid()) << r.Describe();
  EXPECT_EQ(r.exit_status, 128 + 6) << "want SIGABRT\n" << r.Describe();
  const std::string want =
      "vkGetPhysicalDeviceToolPropertiesEXT: Invalid physicalDevice "
      "[VUID-vkGetPhysicalDeviceToolPropertiesEXT-physicalDevice-parameter]";
  EXPECT_NE(r.err.find(want), std::string::npos) << want << "\n" << r.err;
}

TEST_P(BadHandle, EndsTheProcessNamingTheVuid) {
  VKT_POLICY("RULE_HANDLE_VALIDATION");
  ExpectEndsNamingTheVuid(GetParam(), "");
}

// The same with a handle whose words are not addresses (the Khronos loader's own suite passes
// such handles): the check must decide from the handle's own memory or a lookup by value, never by
// following a pointer read from it, or the process dies with SIGSEGV before the line is written.
TEST_P(BadHandle, HandleOfNonAddressWordsEndsTheProcessNamingTheVuid) {
  VKT_POLICY("RULE_HANDLE_VALIDATION");
  ExpectEndsNamingTheVuid(GetParam(), ":words");
}

INSTANTIATE_TEST_SUITE_P(
    Instance, BadHandle,
    ::testing::Values(
        BadHandleCase{"vkDestroyInstance", "instance"}, BadHandleCase{"vkEnumeratePhysicalDevices", "instance"},
        BadHandleCase{"vkEnumeratePhysicalDeviceGroups", "instance"}, BadHandleCase{"vkCreateDevice", "physicalDevice"},
        BadHandleCase{"vkEnumerateDeviceExtensionProperties", "physicalDevice"},
        BadHandleCase{"vkEnumerateDeviceLayerProperties", "physicalDevice"},
        // generated trampolines: instance, physical-device and device level
        BadHandleCase{"vkDestroySurfaceKHR", "instance"},
        BadHandleCase{"vkGetPhysicalDeviceFeatures", "physicalDevice"},
        BadHandleCase{"vkGetPhysicalDeviceProperties", "physicalDevice"},
        BadHandleCase{"vkGetPhysicalDeviceSurfaceSupportKHR", "physicalDevice"},
        BadHandleCase{"vkDeviceWaitIdle", "device"}, BadHandleCase{"vkCreateBuffer", "device"},
        BadHandleCase{"vkQueueWaitIdle", "queue"}, BadHandleCase{"vkQueueSubmit", "queue"},
        BadHandleCase{"vkBeginCommandBuffer", "commandBuffer"}, BadHandleCase{"vkEndCommandBuffer", "commandBuffer"},
        // hand-written device trampolines
        BadHandleCase{"vkDestroyDevice", "device"}, BadHandleCase{"vkGetDeviceQueue", "device"},
        BadHandleCase{"vkAllocateCommandBuffers", "device"}),
    [](const ::testing::TestParamInfo<BadHandleCase>& i) { return std::string(i.param.command); });

}  // namespace
}  // namespace vkt
