// Robust arguments (issue 13): every exported command the loader answers itself that takes a
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
                      RobustCase{"device-extensions-null-count", "VK_ERROR_OUT_OF_HOST_MEMORY", false},
                      RobustCase{"device-extensions-empty-layer-name", "VK_SUCCESS", true},
                      RobustCase{"device-layers-null-count", "VK_ERROR_OUT_OF_HOST_MEMORY", false},
                      RobustCase{"create-device-extensions-null-array", "VK_ERROR_EXTENSION_NOT_PRESENT", false},
                      RobustCase{"create-device-null-extension-name", "VK_ERROR_EXTENSION_NOT_PRESENT", false}),
    [](const ::testing::TestParamInfo<RobustCase>& i) {
      std::string n = i.param.name;
      for (char& ch : n)
        if (ch == '-') ch = '_';
      return n;
    });

// Invalid dispatchable handles (issue 14): where the Khronos loader validates a handle, an invalid
// one ends the process with one line naming the command, the parameter and its Valid Usage ID
// ("vkEnumeratePhysicalDevices: Invalid instance [VUID-vkEnumeratePhysicalDevices-instance-parameter]"),
// whatever VK_LOADER_DEBUG says, instead of crashing somewhere deep.
struct BadHandleCase {
  const char* command;
  const char* param;
};
class BadHandle : public ::testing::TestWithParam<BadHandleCase> {};

TEST_P(BadHandle, EndsTheProcessNamingTheVuid) {
  VKT_POLICY("RULE_HANDLE_VALIDATION");
  Sandbox s;
  AddNamedDriver(s, "a", "v7_exports");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(s, {std::string("bad-handle:") + GetParam().command});
  ASSERT_TRUE(r.Step("bad-handle").valid()) << r.Describe();
  EXPECT_FALSE(r.Step("bad-handle-returned").valid()) << "the call came back\n" << r.Describe();
  EXPECT_EQ(r.exit_status, 128 + 6) << "want SIGABRT\n" << r.Describe();
  const std::string want = std::string(GetParam().command) + ": Invalid " + GetParam().param + " [VUID-" +
                           GetParam().command + "-" + GetParam().param + "-parameter]";
  EXPECT_NE(r.err.find(want), std::string::npos) << want << "\n" << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Instance, BadHandle,
    ::testing::Values(BadHandleCase{"vkDestroyInstance", "instance"},
                      BadHandleCase{"vkEnumeratePhysicalDevices", "instance"},
                      BadHandleCase{"vkEnumeratePhysicalDeviceGroups", "instance"},
                      BadHandleCase{"vkCreateDevice", "physicalDevice"},
                      BadHandleCase{"vkEnumerateDeviceExtensionProperties", "physicalDevice"},
                      BadHandleCase{"vkEnumerateDeviceLayerProperties", "physicalDevice"},
                      // generated trampolines: instance, physical-device and device level
                      BadHandleCase{"vkDestroySurfaceKHR", "instance"},
                      BadHandleCase{"vkGetPhysicalDeviceFeatures", "physicalDevice"},
                      BadHandleCase{"vkGetPhysicalDeviceProperties", "physicalDevice"},
                      BadHandleCase{"vkGetPhysicalDeviceSurfaceSupportKHR", "physicalDevice"},
                      BadHandleCase{"vkDeviceWaitIdle", "device"},
                      BadHandleCase{"vkCreateBuffer", "device"},
                      BadHandleCase{"vkQueueWaitIdle", "queue"},
                      BadHandleCase{"vkQueueSubmit", "queue"},
                      BadHandleCase{"vkBeginCommandBuffer", "commandBuffer"},
                      BadHandleCase{"vkEndCommandBuffer", "commandBuffer"},
                      // hand-written device trampolines
                      BadHandleCase{"vkDestroyDevice", "device"},
                      BadHandleCase{"vkGetDeviceQueue", "device"},
                      BadHandleCase{"vkAllocateCommandBuffers", "device"}),
    [](const ::testing::TestParamInfo<BadHandleCase>& i) { return std::string(i.param.command); });

}  // namespace
}  // namespace vkt
