// Emulated queries (LDP_LOADER_8; docs/architecture.md "Emulated queries"): where a driver lacks a
// physical-device command the loader can answer from other commands (or with "nothing to report"),
// the loader answers instead of failing or calling NULL. Every test mixes a driver that has the
// command with one that does not, because an instance extension one driver offers is enabled for
// the whole instance: the application then asks every physical device.
//
// The mock driver implements each command only when its scenario lists the instance extension
// (mock_icd/README.md), and records every call, so each test also checks which driver command
// the loader used.
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "conformance/loader/common.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

// A driver whose one device is "<name>-dev"; `inst_exts` its instance extensions, `dev_extra`
// spliced into the device object, `extra` into the scenario.
void AddExtDriver(Sandbox& s, const std::string& name, const std::vector<std::string>& inst_exts,
                  const std::string& dev_extra = "", const std::string& extra = "") {
  std::string sc = "{\"instance_extensions\":[";
  for (size_t i = 0; i < inst_exts.size(); ++i) sc += (i ? ",\"" : "\"") + inst_exts[i] + "\"";
  sc += "],\"physical_devices\":[{\"name\":\"" + name + "-dev\"" + (dev_extra.empty() ? "" : "," + dev_extra) + "}]";
  if (!extra.empty()) sc += "," + extra;
  sc += "}";
  s.AddDriver(name, "v7_exports", sc);
  s.WriteDriverManifest(Location::kXdgConfigHome, name);
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const std::string& e : v) out += (out.empty() ? "" : ",") + e;
  return out;
}

// The driver never received `call`.
void ExpectNotCalled(const Sandbox& s, const std::string& driver, const std::string& call) {
  EXPECT_TRUE(s.CallsTo(driver, call).empty()) << driver << " received " << call;
}

const std::vector<std::string> kDisplayExts = {"VK_KHR_surface", "VK_KHR_display", "VK_KHR_get_display_properties2"};

// RULE_EMULATE_DISPLAY2: the four VK_KHR_get_display_properties2 queries on a driver that has only
// VK_KHR_display are answered from the non-2 forms; a driver with the 2 forms gets them directly.
TEST(EmulatedQueries, DisplayProperties2FromNonTwoForms) {
  VKT_POLICY("LDP_LOADER_8", "RULE_EMULATE_DISPLAY2");
  Sandbox s;
  AddExtDriver(s, "two", kDisplayExts);
  AddExtDriver(s, "one", {"VK_KHR_surface", "VK_KHR_display"});
  ProbeResult r = RunProbe(s, {"create-instance:ext=" + Join(kDisplayExts), "devices", "display-queries:@one-dev",
                               "display-queries:@two-dev", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  for (int i = 0; i < 2; ++i) {
    Json q = r.Step("display-queries", i);
    SCOPED_TRACE(q.dump());
    ASSERT_TRUE(q["resolved2"].boolean());
    EXPECT_EQ(q["displays2_count_result"].str(), "VK_SUCCESS");
    EXPECT_EQ(q["displays2_result"].str(), "VK_SUCCESS");
    EXPECT_EQ(q["display2_count"].num(), 1);
    EXPECT_EQ(q["display2_name"].str(), "Mock Display");
    EXPECT_EQ(q["display2_width"].num(), 1920);
    EXPECT_TRUE(q["display2_stype_kept"].boolean());
    EXPECT_EQ(q["planes2_result"].str(), "VK_SUCCESS");
    EXPECT_EQ(q["plane2_count"].num(), 1);
    EXPECT_TRUE(q["plane2_display_matches"].boolean());
    EXPECT_EQ(q["modes2_result"].str(), "VK_SUCCESS");
    EXPECT_EQ(q["mode2_count"].num(), 1);
    EXPECT_EQ(q["refresh_rate2"].num(), 60000);
    EXPECT_EQ(q["plane_caps2_result"].str(), "VK_SUCCESS");
    EXPECT_EQ(q["plane_caps2_max_dst_width"].num(), 1920);
    EXPECT_EQ(q["plane_caps2_alpha"].num(), VK_DISPLAY_PLANE_ALPHA_OPAQUE_BIT_KHR);
  }
  // The driver without the 2 forms answered through its non-2 commands; the other directly.
  EXPECT_FALSE(s.CallsTo("one", "vkGetPhysicalDeviceDisplayPropertiesKHR").empty());
  EXPECT_FALSE(s.CallsTo("one", "vkGetDisplayPlaneCapabilitiesKHR").empty());
  EXPECT_FALSE(s.CallsTo("two", "vkGetPhysicalDeviceDisplayProperties2KHR").empty());
  EXPECT_FALSE(s.CallsTo("two", "vkGetDisplayPlaneCapabilities2KHR").empty());
}

// RULE_EMULATE_DISPLAY_MIXED: with VK_KHR_display enabled (one driver has it), a device of a driver
// without it reports no displays, planes or modes and zeroed plane capabilities, VK_SUCCESS each,
// also through the 2 forms; only creating a display mode fails. The driver is never called.
TEST(EmulatedQueries, DisplayMixedDrivers) {
  VKT_POLICY("LDP_LOADER_8", "RULE_EMULATE_DISPLAY_MIXED");
  Sandbox s;
  AddExtDriver(s, "disp", kDisplayExts);
  AddExtDriver(s, "plain", {"VK_KHR_surface"});
  ProbeResult r = RunProbe(s, {"create-instance:ext=" + Join(kDisplayExts), "devices", "display-queries:@plain-dev",
                               "display-queries:@disp-dev", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Json q = r.Step("display-queries", 0);
  SCOPED_TRACE(q.dump());
  ASSERT_TRUE(q["resolved"].boolean());
  EXPECT_EQ(q["displays_count_result"].str(), "VK_SUCCESS");
  EXPECT_EQ(q["displays_result"].str(), "VK_SUCCESS");
  EXPECT_EQ(q["display_count"].num(), 0);
  EXPECT_EQ(q["planes_count_result"].str(), "VK_SUCCESS");
  EXPECT_EQ(q["plane_count"].num(), 0);
  EXPECT_EQ(q["supported_result"].str(), "VK_SUCCESS");
  EXPECT_EQ(q["supported_count"].num(), 0);
  EXPECT_EQ(q["modes_count_result"].str(), "VK_SUCCESS");
  EXPECT_EQ(q["mode_count"].num(), 0);
  EXPECT_EQ(q["plane_caps_result"].str(), "VK_SUCCESS");
  EXPECT_EQ(q["plane_caps_max_dst_width"].num(), 0);
  EXPECT_EQ(q["plane_caps_alpha"].num(), 0);
  EXPECT_EQ(q["create_mode_result"].str(), "VK_ERROR_INITIALIZATION_FAILED");
  ASSERT_TRUE(q["resolved2"].boolean());
  EXPECT_EQ(q["displays2_result"].str(), "VK_SUCCESS");
  EXPECT_EQ(q["display2_count"].num(), 0);
  EXPECT_EQ(q["planes2_result"].str(), "VK_SUCCESS");
  EXPECT_EQ(q["plane2_count"].num(), 0);
  EXPECT_EQ(q["modes2_result"].str(), "VK_SUCCESS");
  EXPECT_EQ(q["mode2_count"].num(), 0);
  EXPECT_EQ(q["plane_caps2_result"].str(), "VK_SUCCESS");
  EXPECT_EQ(q["plane_caps2_max_dst_width"].num(), 0);
  // The driver with VK_KHR_display still answers for its own device.
  Json d = r.Step("display-queries", 1);
  EXPECT_EQ(d["display_count"].num(), 1) << d.dump();
  EXPECT_EQ(d["create_mode_result"].str(), "VK_SUCCESS") << d.dump();
  for (const Json& c : s.Calls("plain")) {
    std::string call = c["call"].str();
    EXPECT_TRUE(call.find("Display") == std::string::npos || call.find("ProcAddr") != std::string::npos)
        << "the driver without VK_KHR_display was called: " << c.dump();
  }
}

// RULE_EMULATE_TOOL_PROPERTIES: a driver without vkGetPhysicalDeviceToolProperties (nor the
// VK_EXT_tooling_info alias) runs no tools: VK_SUCCESS with zero tools, through the core name and
// the alias; a driver with it reports its own.
TEST(EmulatedQueries, ToolPropertiesWithoutDriverSupport) {
  VKT_POLICY("LDP_LOADER_8", "RULE_EMULATE_TOOL_PROPERTIES");
  Sandbox s;
  AddExtDriver(s, "tool", {}, "\"api_version\":\"1.3.0\",\"extensions\":[\"VK_EXT_tooling_info\"]");
  AddExtDriver(s, "notool", {}, "\"api_version\":\"1.3.0\"",
               "\"hidden_functions\":[\"vkGetPhysicalDeviceToolProperties\",\"vkGetPhysicalDeviceToolPropertiesEXT\"]");
  ProbeResult r = RunProbe(
      s, {"create-instance:api=1.3", "devices", "tool-properties:@notool-dev", "tool-properties:@notool-dev;ext",
          "tool-properties:@tool-dev", "tool-properties:@tool-dev;ext", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  for (int i = 0; i < 2; ++i) {
    Json t = r.Step("tool-properties", i);
    SCOPED_TRACE(t.dump());
    ASSERT_TRUE(t["resolved"].boolean());
    EXPECT_EQ(t["count_result"].str(), "VK_SUCCESS");
    EXPECT_EQ(t["count"].num(), 0);
    EXPECT_EQ(t["result"].str(), "VK_SUCCESS");
    EXPECT_EQ(t["tools"].size(), 0u);
  }
  for (int i = 2; i < 4; ++i) {
    Json t = r.Step("tool-properties", i);
    SCOPED_TRACE(t.dump());
    ASSERT_TRUE(t["resolved"].boolean());
    EXPECT_EQ(t["count"].num(), 1);
    EXPECT_EQ(t["result"].str(), "VK_SUCCESS");
    EXPECT_EQ(t["tools"].strings(), (std::vector<std::string>{"Mock Driver Tool"}));
  }
  ExpectNotCalled(s, "notool", "vkGetPhysicalDeviceToolProperties");
}

// RULE_EMULATE_TOOL_PROPERTIES with a layer that is a tool: its entry follows what comes from below,
// the driver's tool or (emulated) none, so a driver without the command never hides the layers'.
TEST(EmulatedQueries, ToolPropertiesOfLayersAboveTheDrivers) {
  VKT_POLICY("LDP_LOADER_8", "RULE_EMULATE_TOOL_PROPERTIES");
  Sandbox s;
  AddExtDriver(s, "tool", {}, "\"api_version\":\"1.3.0\",\"extensions\":[\"VK_EXT_tooling_info\"]");
  AddExtDriver(s, "notool", {}, "\"api_version\":\"1.3.0\"",
               "\"hidden_functions\":[\"vkGetPhysicalDeviceToolProperties\",\"vkGetPhysicalDeviceToolPropertiesEXT\"]");
  AddMockLayer(s, "VK_LAYER_mock_tool", false, Location::kXdgDataDirs, "v2_gpdpa", "", "\"tool\": true");
  ProbeResult r = RunProbe(s, {"create-instance:api=1.3;layers=VK_LAYER_mock_tool", "devices",
                               "tool-properties:@notool-dev", "tool-properties:@tool-dev", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Json none = r.Step("tool-properties", 0);
  ASSERT_TRUE(none.valid()) << r.Describe();
  EXPECT_EQ(none["count_result"].str(), "VK_SUCCESS") << none.dump();
  EXPECT_EQ(none["result"].str(), "VK_SUCCESS") << none.dump();
  EXPECT_EQ(none["tools"].strings(), (std::vector<std::string>{"VK_LAYER_mock_tool tool"})) << none.dump();
  Json both = r.Step("tool-properties", 1);
  EXPECT_EQ(both["result"].str(), "VK_SUCCESS") << both.dump();
  EXPECT_EQ(both["tools"].strings(), (std::vector<std::string>{"Mock Driver Tool", "VK_LAYER_mock_tool tool"}))
      << both.dump();
  ExpectNotCalled(s, "notool", "vkGetPhysicalDeviceToolProperties");
}

// RULE_EMULATE_SURFACE_CAPS2EXT: vkGetPhysicalDeviceSurfaceCapabilities2EXT on a driver without
// VK_EXT_display_surface_counter is answered from its vkGetPhysicalDeviceSurfaceCapabilitiesKHR
// (with the driver's own surface), no surface counter supported.
TEST(EmulatedQueries, SurfaceCapabilities2EXTFromCapabilitiesKHR) {
  VKT_POLICY("LDP_LOADER_8", "RULE_EMULATE_SURFACE_CAPS2EXT", "LDP_LOADER_11");
  Sandbox s;
  AddExtDriver(s, "counter", {"VK_KHR_surface", "VK_EXT_headless_surface", "VK_EXT_display_surface_counter"});
  AddExtDriver(s, "plain", {"VK_KHR_surface", "VK_EXT_headless_surface"});
  ProbeResult r =
      RunProbe(s, {"create-instance:ext=VK_KHR_surface,VK_EXT_headless_surface,VK_EXT_display_surface_counter",
                   "devices", "create-surface:headless", "surface-caps2ext:@plain-dev", "surface-caps2ext:@counter-dev",
                   "destroy-surface", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  ASSERT_EQ(r.Step("create-surface")["result"].str(), "VK_SUCCESS") << r.Describe();
  Json p = r.Step("surface-caps2ext", 0);
  SCOPED_TRACE(p.dump());
  ASSERT_TRUE(p["resolved"].boolean()) << r.Describe();
  EXPECT_EQ(p["result"].str(), "VK_SUCCESS");
  EXPECT_EQ(p["min_image_count"].num(), 1);
  EXPECT_EQ(p["max_image_count"].num(), 3);
  EXPECT_EQ(p["max_extent_width"].num(), 4096);
  EXPECT_EQ(p["usage"].num(), VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT);
  EXPECT_EQ(p["counters"].num(), 0);
  EXPECT_TRUE(p["stype_kept"].boolean());
  std::vector<Json> used = s.CallsTo("plain", "vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
  ASSERT_EQ(used.size(), 1u);
  EXPECT_EQ(used[0]["surface"].str(), "own") << used[0].dump();
  Json c = r.Step("surface-caps2ext", 1);
  EXPECT_EQ(c["result"].str(), "VK_SUCCESS") << c.dump();
  EXPECT_EQ(c["counters"].num(), VK_SURFACE_COUNTER_VBLANK_BIT_EXT) << c.dump();
  EXPECT_EQ(s.CallsTo("counter", "vkGetPhysicalDeviceSurfaceCapabilities2EXT").size(), 1u);
}

const std::vector<std::string> kMaint1Exts = {"VK_KHR_surface", "VK_EXT_headless_surface",
                                              "VK_KHR_get_surface_capabilities2", "VK_EXT_surface_maintenance1"};

// RULE_EMULATE_PRESENT_MODE_COMPAT: with VK_EXT_surface_maintenance1 enabled (one driver has it),
// vkGetPhysicalDeviceSurfaceCapabilities2KHR on a device whose driver lacks it (with or without its
// own vkGetPhysicalDeviceSurfaceCapabilities2KHR) fills VkSurfacePresentModeCompatibilityEXT with
// the requested present mode alone (count 1; a zero count with an array writes nothing) and
// VkSurfacePresentScalingCapabilitiesEXT with no scaling or gravity, scaled extents = the surface's
// min/max image extents. The driver with the extension answers for itself.
TEST(EmulatedQueries, PresentModeCompatibilityWithoutSurfaceMaintenance1) {
  VKT_POLICY("LDP_LOADER_8", "RULE_EMULATE_PRESENT_MODE_COMPAT");
  Sandbox s;
  AddExtDriver(s, "maint", kMaint1Exts);
  AddExtDriver(s, "caps2", {"VK_KHR_surface", "VK_EXT_headless_surface", "VK_KHR_get_surface_capabilities2"});
  AddExtDriver(s, "legacy", {"VK_KHR_surface", "VK_EXT_headless_surface"});
  const std::string mailbox = std::to_string(VK_PRESENT_MODE_MAILBOX_KHR);
  std::vector<std::string> steps = {"create-instance:ext=" + Join(kMaint1Exts), "devices", "create-surface:headless"};
  for (const char* dev : {"caps2", "legacy"}) {
    std::string d = std::string("surface-caps2:@") + dev + "-dev";
    steps.push_back(d + ";" + mailbox);            // array of 8
    steps.push_back(d + ";" + mailbox + ",null");  // count query
    steps.push_back(d + ";" + mailbox + ",0");     // zero-length array: nothing written
    steps.push_back(d);                            // no present mode: plain capabilities
  }
  steps.push_back("surface-caps2:@maint-dev;" + mailbox);
  steps.push_back("destroy-surface");
  steps.push_back("destroy-instance");
  ProbeResult r = RunProbe(s, steps);
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  ASSERT_EQ(r.Step("create-surface")["result"].str(), "VK_SUCCESS") << r.Describe();
  for (int dev = 0; dev < 2; ++dev) {
    Json full = r.Step("surface-caps2", dev * 4);
    SCOPED_TRACE(full.dump());
    ASSERT_TRUE(full["resolved"].boolean());
    EXPECT_EQ(full["result"].str(), "VK_SUCCESS");
    EXPECT_EQ(full["min_image_count"].num(), 1);
    EXPECT_EQ(full["compat_count"].num(), 1);
    ASSERT_EQ(full["compat_modes"].size(), 1u);
    EXPECT_EQ(full["compat_modes"][0].num(), VK_PRESENT_MODE_MAILBOX_KHR);
    EXPECT_EQ(full["scaling"].num(), 0);
    EXPECT_EQ(full["gravity_x"].num(), 0);
    EXPECT_EQ(full["gravity_y"].num(), 0);
    EXPECT_EQ(full["min_scaled_width"].num(), 1);
    EXPECT_EQ(full["max_scaled_width"].num(), 4096);
    Json count = r.Step("surface-caps2", dev * 4 + 1);
    EXPECT_EQ(count["result"].str(), "VK_SUCCESS") << count.dump();
    EXPECT_EQ(count["compat_count"].num(), 1) << count.dump();
    Json zero = r.Step("surface-caps2", dev * 4 + 2);
    EXPECT_EQ(zero["result"].str(), "VK_SUCCESS") << zero.dump();
    EXPECT_EQ(zero["compat_count"].num(), 0) << zero.dump();
    EXPECT_EQ(zero["first_slot"].num(), 0x7777) << zero.dump();
    Json plain = r.Step("surface-caps2", dev * 4 + 3);
    EXPECT_EQ(plain["result"].str(), "VK_SUCCESS") << plain.dump();
    EXPECT_EQ(plain["min_image_count"].num(), 1) << plain.dump();
  }
  Json own = r.Step("surface-caps2", 8);
  SCOPED_TRACE(own.dump());
  EXPECT_EQ(own["compat_count"].num(), 2);
  EXPECT_EQ(own["scaling"].num(), VK_PRESENT_SCALING_ONE_TO_ONE_BIT_EXT);
  EXPECT_EQ(own["min_scaled_width"].num(), 2);
  // The driver with vkGetPhysicalDeviceSurfaceCapabilities2KHR was asked with the present mode.
  std::vector<Json> asked = s.CallsTo("caps2", "vkGetPhysicalDeviceSurfaceCapabilities2KHR");
  ASSERT_EQ(asked.size(), 4u);
  EXPECT_EQ(asked[0]["present_mode"].num(), VK_PRESENT_MODE_MAILBOX_KHR) << asked[0].dump();
  EXPECT_EQ(s.CallsTo("legacy", "vkGetPhysicalDeviceSurfaceCapabilitiesKHR").size(), 4u);
}

// RULE_XLIB_XRANDR_DISPLAY: VK_EXT_acquire_xlib_display's commands are dispatched (the loader is
// built with VK_USE_PLATFORM_XLIB_XRANDR_EXT): vkGetRandROutputDisplayEXT and
// vkAcquireXlibDisplayEXT reach the device's driver with the application's arguments; on a driver
// without them the first finds no display (VK_NULL_HANDLE, VK_SUCCESS) and the second fails with
// VK_ERROR_INITIALIZATION_FAILED.
TEST(EmulatedQueries, AcquireXlibDisplayReachesTheDriver) {
  VKT_POLICY("LDP_LOADER_8", "RULE_XLIB_XRANDR_DISPLAY");
  Sandbox s;
  const std::vector<std::string> exts = {"VK_KHR_surface", "VK_KHR_display", "VK_EXT_direct_mode_display",
                                         "VK_EXT_acquire_xlib_display"};
  AddExtDriver(s, "xlib", exts);
  AddExtDriver(s, "other", {"VK_KHR_surface", "VK_KHR_display"});
  ProbeResult r = RunProbe(
      s, {"create-instance:ext=" + Join(exts), "devices", "gipa:vkAcquireXlibDisplayEXT",
          "gipa:vkGetRandROutputDisplayEXT", "xlib-display:@xlib-dev", "xlib-display:@other-dev", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_TRUE(r.Step("gipa", 0)["non_null"].boolean()) << r.Describe();
  EXPECT_TRUE(r.Step("gipa", 1)["non_null"].boolean()) << r.Describe();
  Json x = r.Step("xlib-display", 0);
  SCOPED_TRACE(x.dump());
  ASSERT_TRUE(x["resolved_randr"].boolean());
  ASSERT_TRUE(x["resolved_acquire"].boolean());
  EXPECT_EQ(x["randr_result"].str(), "VK_SUCCESS");
  EXPECT_EQ(x["display"].num(), 0xd1500);  // the mock's display of its device 0
  EXPECT_EQ(x["acquire_result"].str(), "VK_SUCCESS");
  std::vector<Json> randr = s.CallsTo("xlib", "vkGetRandROutputDisplayEXT");
  ASSERT_EQ(randr.size(), 1u);
  EXPECT_EQ(randr[0]["rr_output"].num(), 0x55) << randr[0].dump();
  EXPECT_EQ(randr[0]["dpy"].num(), 0x7c0002) << randr[0].dump();
  std::vector<Json> acquired = s.CallsTo("xlib", "vkAcquireXlibDisplayEXT");
  ASSERT_EQ(acquired.size(), 1u);
  EXPECT_TRUE(acquired[0]["own_display"].boolean()) << acquired[0].dump();
  EXPECT_EQ(acquired[0]["dpy"].num(), 0x7c0002) << acquired[0].dump();
  Json o = r.Step("xlib-display", 1);
  EXPECT_EQ(o["randr_result"].str(), "VK_SUCCESS") << o.dump();
  EXPECT_EQ(o["display"].num(), 0) << o.dump();
  EXPECT_EQ(o["acquire_result"].str(), "VK_ERROR_INITIALIZATION_FAILED") << o.dump();
}

}  // namespace
}  // namespace vkt
