// Dispatchable objects (the loader's word in VkDevice/VkQueue/VkCommandBuffer, ICD_LOADER_MAGIC),
// vkGetInstanceProcAddr gating of instance-extension commands, and device-extension enumeration
// with a layer name.
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

// ---- RULE_DRV_DISPATCHABLE_OBJECT ---------------------------------------------------------------

// The application's VkDevice, VkQueue and VkCommandBuffer no longer carry ICD_LOADER_MAGIC: the
// loader has put its dispatch pointer there, the same one for all three.
TEST(DispatchableObjects, LoaderWordInDeviceQueueAndCommandBuffer) {
  VKT_POLICY("RULE_DRV_DISPATCHABLE_OBJECT", "RULE_DRV_IFACE_V2");
  Sandbox s;
  AddNamedDriver(s, "a", "v7_exports");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(
      s, {"create-instance", "devices", "create-device:0", "dispatch-words", "destroy-device", "destroy-instance"});
  ASSERT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  Json w = r.Step("dispatch-words");
  EXPECT_FALSE(w["device_magic"].boolean(true)) << w.dump();
  EXPECT_FALSE(w["device_null"].boolean(true)) << w.dump();
  ASSERT_TRUE(w["queue"].boolean()) << w.dump();
  EXPECT_FALSE(w["queue_magic"].boolean(true)) << w.dump();
  EXPECT_TRUE(w["queue_same_as_device"].boolean()) << w.dump();
  ASSERT_TRUE(w["command_buffer"].boolean()) << w.dump();
  EXPECT_FALSE(w["command_buffer_magic"].boolean(true)) << w.dump();
  EXPECT_TRUE(w["command_buffer_same_as_device"].boolean()) << w.dump();
}

// Driver interface document, "Driver Dispatchable Object Creation": the loader checks for
// ICD_LOADER_MAGIC in the objects a (version >= 2) driver creates. Ours rejects a VkDevice without
// it (writing the dispatch pointer would overwrite driver data) and names the driver; the other
// driver's devices are unaffected.
TEST(DispatchableObjects, DeviceWithoutLoaderMagicRejected) {
  VKT_POLICY("RULE_DRV_DISPATCHABLE_OBJECT", "LDP_DRIVER_1");
  Sandbox s;
  AddNamedDriver(s, "nomagic", "v5", "\"misbehave\":{\"no_loader_magic\":true}");
  AddNamedDriver(s, "good", "v7_exports");
  s.WriteDriverManifest(Location::kXdgConfigHome, "nomagic");
  s.WriteDriverManifest(Location::kXdgConfigHome, "good");
  ProbeResult r = RunProbe(s, {"create-instance", "devices", "create-device:@nomagic-dev", "create-device:@good-dev",
                               "dispatch-words", "destroy-device", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"good-dev", "nomagic-dev"})) << r.Describe();
  Json bad = r.Step("create-device", 0), good = r.Step("create-device", 1);
  EXPECT_NE(bad["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_FALSE(bad["device"].boolean(true)) << r.Describe();
  EXPECT_EQ(good["result"].str(), "VK_SUCCESS") << r.Describe();
  // The error names the driver (its manifest) and the reason.
  bool named = false;
  for (size_t pos = 0; (pos = r.err.find("ICD_LOADER_MAGIC", pos)) != std::string::npos; ++pos) {
    size_t bol = r.err.rfind('\n', pos), eol = r.err.find('\n', pos);
    std::string line = r.err.substr(bol == std::string::npos ? 0 : bol + 1,
                                    eol == std::string::npos ? std::string::npos : eol - bol - 1);
    named = named || (line.find("ERROR") != std::string::npos && line.find("nomagic.json") != std::string::npos);
  }
  EXPECT_TRUE(named) << r.Describe();
  // The rejected driver's device was destroyed again, not leaked.
  std::vector<Json> created = s.CallsTo("nomagic", "vkCreateDevice");
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(s.CallsTo("nomagic", "vkDestroyDevice").size(), 1u) << ReadFileText(s.driver("nomagic").calls);
  EXPECT_TRUE(r.Step("dispatch-words")["queue_same_as_device"].boolean()) << r.Describe();
}

// ---- vkGetInstanceProcAddr and instance extensions ----------------------------------------------

// An instance-extension command is NULL unless its extension is enabled, even when the driver
// (and the loader) implement it.
TEST(InstanceExtensionCommands, NullUnlessExtensionEnabled) {
  VKT_POLICY("RULE_GIPA_SPEC", "RULE_INST_DEBUG_MESSENGER");
  Sandbox s;
  AddNamedDriver(s, "a", "v7_exports",
                 "\"instance_extensions\":[\"VK_KHR_get_physical_device_properties2\",\"VK_EXT_debug_utils\","
                 "\"VK_KHR_device_group_creation\"]");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(
      s, {"create-instance", "gipa:vkCreateDebugUtilsMessengerEXT", "gipa:vkDestroyDebugUtilsMessengerEXT",
          "gipa:vkCreateDebugReportCallbackEXT", "gipa:vkEnumeratePhysicalDeviceGroupsKHR", "destroy-instance",
          "create-instance:ext=VK_EXT_debug_utils,VK_KHR_device_group_creation", "gipa:vkCreateDebugUtilsMessengerEXT",
          "gipa:vkDestroyDebugUtilsMessengerEXT", "gipa:vkCreateDebugReportCallbackEXT",
          "gipa:vkEnumeratePhysicalDeviceGroupsKHR", "destroy-instance"});
  ASSERT_EQ(r.Step("create-instance", 0)["result"].str(), "VK_SUCCESS") << r.Describe();
  ASSERT_EQ(r.Step("create-instance", 1)["result"].str(), "VK_SUCCESS") << r.Describe();
  std::vector<Json> g = r.Steps("gipa");
  ASSERT_EQ(g.size(), 8u) << r.Describe();
  for (size_t i = 0; i < 4; ++i) EXPECT_FALSE(g[i]["non_null"].boolean(true)) << "not enabled: " << g[i].dump();
  EXPECT_TRUE(g[4]["non_null"].boolean()) << g[4].dump();
  EXPECT_TRUE(g[5]["non_null"].boolean()) << g[5].dump();
  EXPECT_FALSE(g[6]["non_null"].boolean(true)) << "debug_report not enabled: " << g[6].dump();
  EXPECT_TRUE(g[7]["non_null"].boolean()) << g[7].dump();
}

// The specification's table returns commands of instance extensions only when the extension is
// enabled, whoever advertises it: a driver, or nobody at all (the loader knows the command from
// vk.xml). Physical-device commands of instance extensions are gated like instance commands.
TEST(InstanceExtensionCommands, NullUnlessEnabledWhoeverAdvertisesIt) {
  VKT_POLICY("RULE_GIPA_SPEC");
  Sandbox s;
  AddNamedDriver(s, "a", "v7_exports",
                 "\"instance_extensions\":[\"VK_KHR_get_physical_device_properties2\",\"VK_KHR_surface\"]");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  // Advertised by the driver (physical-device and instance commands), then advertised by nobody.
  const Names cmds = {"vkGetPhysicalDeviceProperties2KHR", "vkGetPhysicalDeviceSurfaceSupportKHR",
                      "vkDestroySurfaceKHR", "vkGetPhysicalDeviceExternalFencePropertiesKHR",
                      "vkCreateHeadlessSurfaceEXT"};
  std::vector<std::string> steps = {"create-instance"};
  for (const std::string& c : cmds) steps.push_back("gipa:" + c);
  steps.push_back("destroy-instance");
  steps.push_back("create-instance:ext=VK_KHR_get_physical_device_properties2,VK_KHR_surface");
  for (const std::string& c : cmds) steps.push_back("gipa:" + c);
  steps.push_back("destroy-instance");
  ProbeResult r = RunProbe(s, steps);
  ASSERT_EQ(r.Step("create-instance", 0)["result"].str(), "VK_SUCCESS") << r.Describe();
  ASSERT_EQ(r.Step("create-instance", 1)["result"].str(), "VK_SUCCESS") << r.Describe();
  std::vector<Json> g = r.Steps("gipa");
  ASSERT_EQ(g.size(), 2 * cmds.size()) << r.Describe();
  for (size_t i = 0; i < cmds.size(); ++i)
    EXPECT_FALSE(g[i]["non_null"].boolean(true)) << "nothing enabled: " << g[i].dump();
  // Enabled: the three commands of the two enabled extensions; still NULL for the others.
  for (size_t i = 0; i < cmds.size(); ++i) {
    bool enabled = i < 3;
    EXPECT_EQ(g[cmds.size() + i]["non_null"].boolean(!enabled), enabled) << g[cmds.size() + i].dump();
  }
}

// ---- LDP_LOADER_12: device extensions with a layer name ------------------------------------------

TEST(DeviceExtensions, LayerNameNeverReachesDriver) {
  VKT_POLICY("LDP_LOADER_12");
  Sandbox s;
  s.AddDriver("a", "v7_exports",
              "{\"physical_devices\":[{\"name\":\"a-dev\",\"extensions\":[{\"name\":\"VK_KHR_swapchain\","
              "\"spec_version\":70}]}]}");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(s, {"create-instance", "devices", "device-extensions:0,VK_LAYER_VKT_nonexistent",
                               "device-extensions:0", "destroy-instance"});
  Json named = r.Step("device-extensions", 0), plain = r.Step("device-extensions", 1);
  EXPECT_EQ(named["layer"].str(), "VK_LAYER_VKT_nonexistent") << r.Describe();
  // No such layer: VK_ERROR_LAYER_NOT_PRESENT, or at least none of the driver's extensions.
  if (named["count_result"].str() != "VK_ERROR_LAYER_NOT_PRESENT") {
    EXPECT_EQ(named["count_result"].str(), "VK_SUCCESS") << r.Describe();
    EXPECT_EQ(named["count"].num(), 0) << r.Describe();
  }
  EXPECT_EQ(plain["result"].str(), "VK_SUCCESS") << r.Describe();
  ASSERT_EQ(plain["extensions"].size(), 1u) << r.Describe();
  EXPECT_EQ(plain["extensions"][0]["name"].str(), "VK_KHR_swapchain");
  std::vector<Json> calls = s.CallsTo("a", "vkEnumerateDeviceExtensionProperties");
  EXPECT_FALSE(calls.empty());
  for (const Json& c : calls) EXPECT_TRUE(c["layer"].is_null() || !c["layer"].valid()) << c.dump();
}

}  // namespace
}  // namespace vkt
