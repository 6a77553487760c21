// Loader behaviour through chains of chassis-mode mock layers (mock_layers/chassis_layer.c): every
// command intercepted through generated dispatch, each layer running validate / pre-record /
// dispatch / post-record. With "wrap_handles" each layer hands the layer above its own ids for the
// non-dispatchable handles it returns and unwraps them (parameters and members of input
// structures) before calling down; the mock driver accepts only its own command pool in
// vkAllocateCommandBuffers, so a command buffer allocated through three wrapping layers proves that
// every layer received its own link (LLP_LOADER_8/9) and unwrapped (LLP_LAYER_10).
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "conformance/loader/common.h"
#include "loader/vkl_gen_results.h"

namespace vkt {
namespace {

using V = std::vector<std::string>;

class ChassisChain : public OneDriverTest {
 protected:
  // An explicit chassis layer `name` with `members` in its scenario.
  void AddChassis(const std::string& name, const std::string& members) {
    const Layer& l = s_.AddLayer(name, "chassis", members);
    s_.WriteLayerManifest(Location::kXdgDataDirs, false, name + ".json",
                          "{\"file_format_version\": \"1.1.0\", \"layer\": {\"name\": \"" + name +
                              "\", \"type\": \"GLOBAL\", \"library_path\": \"" + l.library +
                              "\", \"api_version\": \"1.3.0\", \"implementation_version\": \"1\", "
                              "\"description\": \"chassis\"}}");
  }
  ProbeResult Run(const std::string& create_opts) {
    return RunProbe(s_, {"create-instance:" + create_opts, "devices", "create-device:@drv-dev", "command-buffers",
                         "destroy-device", "destroy-instance"});
  }
  // The records of `layer` for `call`.
  std::vector<Json> Records(const std::string& layer, const std::string& call) {
    std::vector<Json> out;
    for (const Json& j : s_.LayerCalls())
      if (j["layer"].str() == layer && j["call"].str() == call) out.push_back(j);
    return out;
  }
};

TEST_F(ChassisChain, ThreeWrappingLayersUnwrapAtEveryLevel) {
  VKT_POLICY("LLP_LAYER_10", "LLP_LOADER_8", "LLP_LOADER_9");
  const V names = {"VK_LAYER_CHASSIS_a", "VK_LAYER_CHASSIS_b", "VK_LAYER_CHASSIS_c"};
  for (const auto& n : names) AddChassis(n, "\"wrap_handles\": true");
  ProbeResult r = Run("layers=VK_LAYER_CHASSIS_a,VK_LAYER_CHASSIS_b,VK_LAYER_CHASSIS_c");
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  ASSERT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  Json cb = r.Step("command-buffers");
  EXPECT_EQ(cb["create_pool"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(cb["allocate"].str(), "VK_SUCCESS") << r.Describe();  // the driver got its own pool
  EXPECT_EQ(cb["begin"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(cb["submit"].str(), "VK_SUCCESS") << r.Describe();
  // Records are written after the call down returned: the layer nearest the driver first.
  EXPECT_EQ(s_.LayerCallOrder("vkCreateInstance"), (V{names[2], names[1], names[0]}));
  EXPECT_EQ(s_.LayerCallOrder("vkCreateDevice"), (V{names[2], names[1], names[0]}));
  for (const auto& n : names) {
    SCOPED_TRACE(n);
    // Each layer wrapped the pool it got from below, unwrapped it in the allocate-info structure,
    // in vkFreeCommandBuffers and vkDestroyCommandPool, and forgot it.
    std::vector<Json> create = Records(n, "vkCreateCommandPool");
    ASSERT_EQ(create.size(), 1u);
    EXPECT_EQ(create[0]["wrapped"].num(), 1);
    std::vector<Json> alloc = Records(n, "vkAllocateCommandBuffers");
    ASSERT_EQ(alloc.size(), 1u);
    EXPECT_EQ(alloc[0]["unwrapped"].num(), 1);
    EXPECT_EQ(alloc[0]["result"].str(), "VK_SUCCESS");
    std::vector<Json> freed = Records(n, "vkFreeCommandBuffers");
    ASSERT_EQ(freed.size(), 1u);
    EXPECT_EQ(freed[0]["unwrapped"].num(), 1);
    std::vector<Json> destroy = Records(n, "vkDestroyCommandPool");
    ASSERT_EQ(destroy.size(), 1u);
    EXPECT_EQ(destroy[0]["unwrapped"].num(), 1);
    EXPECT_EQ(destroy[0]["forgotten"].num(), 1);
    std::vector<Json> dev = Records(n, "vkDestroyDevice");
    ASSERT_EQ(dev.size(), 1u);
    EXPECT_EQ(dev[0]["wrapped_left"].num(), 0);
    // Commands of the workload that carry no handle of ours still ran through the chassis.
    EXPECT_EQ(Records(n, "vkQueueSubmit").size(), 1u);
    EXPECT_EQ(Records(n, "vkCmdFillBuffer").size(), 2u);
  }
}

// The validate phase: a command the scenario calls invalid is reported to the application's
// debug-utils messenger (chained into vkCreateInstance, reaching the layer in the pNext chain the
// loader passes down) and, with "skip": "always", never reaches the layer below.
TEST_F(ChassisChain, ValidatePhaseReportsThroughDebugUtilsAndSkips) {
  VKT_POLICY("LLP_LOADER_8");
  AddChassis("VK_LAYER_CHASSIS_top", "\"invalid\": [\"vkCreateCommandPool\"], \"skip\": \"always\"");
  AddChassis("VK_LAYER_CHASSIS_low", "");
  ProbeResult r = Run("layers=VK_LAYER_CHASSIS_top,VK_LAYER_CHASSIS_low;ext=VK_EXT_debug_utils;messenger=debug-utils");
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  // The probe prints vk.xml's name for the value: VK_ERROR_VALIDATION_FAILED_EXT until Vulkan 1.4
  // made it an alias of the core VK_ERROR_VALIDATION_FAILED.
  EXPECT_EQ(r.Step("command-buffers")["create_pool"].str(), vkl_gen_result_name(VK_ERROR_VALIDATION_FAILED_EXT))
      << r.Describe();
  EXPECT_TRUE(
      r.MessagesContain("VK_LAYER_CHASSIS_top: vkCreateCommandPool: the chassis' validation found this call "
                        "invalid"))
      << r.Describe();
  std::vector<Json> v = Records("VK_LAYER_CHASSIS_top", "validate");
  ASSERT_EQ(v.size(), 1u) << r.Describe();
  EXPECT_EQ(v[0]["command"].str(), "vkCreateCommandPool");
  EXPECT_EQ(v[0]["messengers"].num(), 1);
  EXPECT_TRUE(v[0]["skipped"].boolean());
  EXPECT_TRUE(Records("VK_LAYER_CHASSIS_top", "vkCreateCommandPool").empty());  // no post-record
  EXPECT_TRUE(Records("VK_LAYER_CHASSIS_low", "vkCreateCommandPool").empty());  // never called down
}

// "skip": "callback" (the default): the call is skipped only when a callback returns VK_TRUE;
// the probe's returns VK_FALSE, so the message is delivered and the call goes down.
TEST_F(ChassisChain, ValidatePhaseSkipsOnlyWhenTheCallbackAsks) {
  VKT_POLICY("LLP_LOADER_8");
  AddChassis("VK_LAYER_CHASSIS_top", "\"invalid\": [\"vkCreateCommandPool\"]");
  ProbeResult r = Run("layers=VK_LAYER_CHASSIS_top;ext=VK_EXT_debug_utils;messenger=debug-utils");
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("command-buffers")["create_pool"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_TRUE(r.MessagesContain("vkCreateCommandPool: the chassis' validation found this call invalid"))
      << r.Describe();
  std::vector<Json> v = Records("VK_LAYER_CHASSIS_top", "validate");
  ASSERT_EQ(v.size(), 1u) << r.Describe();
  EXPECT_FALSE(v[0]["callback_skip"].boolean(true));
  EXPECT_FALSE(v[0]["skipped"].boolean(true));
  EXPECT_EQ(Records("VK_LAYER_CHASSIS_top", "vkCreateCommandPool").size(), 1u);
}

// ---- handles returned inside structures, platform commands ----

// The instance extensions display_probe enables; the mock driver offers them (its display
// commands return one display and one display mode per device, numbers it records when they come
// back: vkAcquireXlibDisplayEXT's "display" and "own_display", vkCreateDisplayPlaneSurfaceKHR's
// "display_mode"; mock_icd/wsi.c).
const char kWsiExtensions[] =
    "\"instance_extensions\": [\"VK_KHR_surface\", \"VK_KHR_display\", \"VK_KHR_get_display_properties2\", "
    "\"VK_EXT_direct_mode_display\", \"VK_EXT_acquire_xlib_display\", \"VK_KHR_xcb_surface\", "
    "\"VK_KHR_xlib_surface\", \"VK_KHR_wayland_surface\", \"VK_EXT_headless_surface\"]";

const char* const kDisplaySources[] = {"properties", "plane", "properties2", "supported", "randr"};
const char* const kModeSources[] = {"properties", "properties2", "created"};
const char* const kPlatforms[] = {"xcb", "xlib", "wayland", "headless"};

// A driver record's handle number as display_probe prints handles.
std::string Hex(const Json& number) {
  char b[32];
  snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(number.num()));
  return b;
}

class ChassisWsi : public ChassisChain {
 protected:
  void SetUp() override {
    AddNamedDriver(s_, "drv", "v7_exports", kWsiExtensions);
    s_.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  }
  static ProbeResult RunDisplayProbe(const Sandbox& s, const std::string& layers) {
    ProbeOptions o;
    o.probe = Runfile("conformance/loader/chassis/display_probe");
    return RunProbe(s, {"layers=" + layers}, o);
  }
};

// Three wrapping chassis layers: the display and display mode handles the driver returns inside
// VkDisplayPropertiesKHR, VkDisplayPlanePropertiesKHR, VkDisplayModePropertiesKHR and the *2KHR
// structures reach the application wrapped (one id per display, whichever query returned it, as
// the driver's are), and every one of them comes back down to the driver as the driver's own value
// (vkAcquireXlibDisplayEXT, a platform command, and the VkDisplaySurfaceCreateInfoKHR of
// vkCreateDisplayPlaneSurfaceKHR), each layer unwrapping its own id.
TEST_F(ChassisWsi, DisplayHandlesInReturnedStructuresAreWrappedAndUnwrapped) {
  VKT_POLICY("LLP_LAYER_10", "LLP_LOADER_8");
  // The driver's own handles: the same workload without layers.
  Sandbox plain;
  AddNamedDriver(plain, "drv", "v7_exports", kWsiExtensions);
  plain.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  ProbeResult base = RunDisplayProbe(plain, "");
  ASSERT_EQ(base.Step("create-instance")["result"].str(), "VK_SUCCESS") << base.Describe();
  ASSERT_TRUE(base.Step("displays")["resolved"].boolean()) << base.Describe();
  const std::string driver_display = base.Step("displays")["properties"].str();
  const std::string driver_mode = base.Step("modes")["properties"].str();
  ASSERT_NE(driver_display, "0x0") << base.Describe();
  ASSERT_NE(driver_mode, "0x0") << base.Describe();

  const V names = {"VK_LAYER_CHASSIS_a", "VK_LAYER_CHASSIS_b", "VK_LAYER_CHASSIS_c"};
  for (const auto& n : names) AddChassis(n, "\"wrap_handles\": true");
  ProbeResult r = RunDisplayProbe(s_, "VK_LAYER_CHASSIS_a,VK_LAYER_CHASSIS_b,VK_LAYER_CHASSIS_c");
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  ASSERT_EQ(r.Step("create-instance")["result"].str(), "VK_SUCCESS") << r.Describe();
  Json d = r.Step("displays");
  ASSERT_TRUE(d["resolved"].boolean()) << r.Describe();
  // The application sees one wrapped display, the same from every query.
  const std::string app_display = d["properties"].str();
  EXPECT_NE(app_display, driver_display) << r.Describe();
  for (const char* from : kDisplaySources) {
    SCOPED_TRACE(from);
    EXPECT_EQ(d[std::string(from) + "_result"].str(), "VK_SUCCESS") << r.Describe();
    EXPECT_EQ(d[from].str(), app_display) << r.Describe();
    EXPECT_EQ(d[std::string("acquire_") + from + "_result"].str(), "VK_SUCCESS") << r.Describe();
  }
  Json m = r.Step("modes");
  const std::string app_mode = m["properties"].str();
  EXPECT_NE(app_mode, driver_mode) << r.Describe();
  for (const char* from : kModeSources) {
    SCOPED_TRACE(from);
    EXPECT_EQ(m[std::string(from) + "_result"].str(), "VK_SUCCESS") << r.Describe();
    EXPECT_EQ(m[from].str(), app_mode) << r.Describe();
    EXPECT_EQ(m[std::string("surface_") + from + "_result"].str(), "VK_SUCCESS") << r.Describe();
  }
  EXPECT_EQ(m["caps_result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(m["caps2_result"].str(), "VK_SUCCESS") << r.Describe();

  // The driver received its own display each time, and its own display mode in each create-info.
  std::vector<Json> acquired = s_.CallsTo("drv", "vkAcquireXlibDisplayEXT");
  ASSERT_EQ(acquired.size(), 5u) << r.Describe();
  for (const Json& a : acquired) {
    EXPECT_EQ(Hex(a["display"]), driver_display) << a.dump();
    EXPECT_TRUE(a["own_display"].boolean()) << a.dump();
  }
  std::vector<Json> surfaces = s_.CallsTo("drv", "vkCreateDisplayPlaneSurfaceKHR");
  ASSERT_EQ(surfaces.size(), 3u) << r.Describe();
  for (const Json& c : surfaces) EXPECT_EQ(Hex(c["display_mode"]), driver_mode) << c.dump();

  // Every layer wrapped what it got from below (output structures and output parameters) and
  // unwrapped on the way down.
  const std::vector<std::pair<std::string, std::pair<int, int>>> expect = {
      // call, {wrapped, unwrapped} per record
      {"vkGetPhysicalDeviceDisplayPropertiesKHR", {1, 0}},
      {"vkGetPhysicalDeviceDisplayPlanePropertiesKHR", {1, 0}},
      {"vkGetPhysicalDeviceDisplayProperties2KHR", {1, 0}},
      {"vkGetDisplayPlaneSupportedDisplaysKHR", {1, 0}},
      {"vkGetRandROutputDisplayEXT", {1, 0}},
      {"vkAcquireXlibDisplayEXT", {0, 1}},
      {"vkGetDisplayModePropertiesKHR", {1, 1}},
      {"vkGetDisplayModeProperties2KHR", {1, 1}},
      {"vkCreateDisplayModeKHR", {1, 1}},
      {"vkGetDisplayPlaneCapabilitiesKHR", {0, 1}},
      {"vkGetDisplayPlaneCapabilities2KHR", {0, 1}},
      {"vkCreateDisplayPlaneSurfaceKHR", {1, 1}},
  };
  for (const auto& n : names) {
    for (const auto& e : expect) {
      SCOPED_TRACE(n + " " + e.first);
      std::vector<Json> recs = Records(n, e.first);
      ASSERT_FALSE(recs.empty());
      for (const Json& j : recs) {
        EXPECT_EQ(j["wrapped"].num(), e.second.first) << j.dump();
        EXPECT_EQ(j["unwrapped"].num(), e.second.second) << j.dump();
      }
    }
  }
}

// The commands of platform extensions (vk.xml's `platform` attribute: xcb, xlib, wayland) go
// through every chassis layer like the others: the surface each returns is wrapped by each layer,
// and the driver gets its own surface back in the support query and in vkDestroySurfaceKHR.
TEST_F(ChassisWsi, PlatformSurfaceCommandsPassThroughTheChain) {
  VKT_POLICY("LLP_LAYER_10", "LLP_LOADER_8");
  const V names = {"VK_LAYER_CHASSIS_a", "VK_LAYER_CHASSIS_b", "VK_LAYER_CHASSIS_c"};
  for (const auto& n : names) AddChassis(n, "\"wrap_handles\": true");
  ProbeResult r = RunDisplayProbe(s_, "VK_LAYER_CHASSIS_a,VK_LAYER_CHASSIS_b,VK_LAYER_CHASSIS_c");
  ASSERT_EQ(r.Step("create-instance")["result"].str(), "VK_SUCCESS") << r.Describe();
  std::vector<Json> steps = r.Steps("surface");
  ASSERT_EQ(steps.size(), 4u) << r.Describe();
  for (const Json& st : steps) {
    SCOPED_TRACE(st.dump());
    EXPECT_TRUE(st["resolved"].boolean());
    EXPECT_EQ(st["create_result"].str(), "VK_SUCCESS");
    EXPECT_EQ(st["support_result"].str(), "VK_SUCCESS");
    EXPECT_TRUE(st["supported"].boolean());
  }
  const std::pair<const char*, const char*> creates[] = {{"xcb", "vkCreateXcbSurfaceKHR"},
                                                         {"xlib", "vkCreateXlibSurfaceKHR"},
                                                         {"wayland", "vkCreateWaylandSurfaceKHR"},
                                                         {"headless", "vkCreateHeadlessSurfaceEXT"}};
  for (const auto& c : creates) {
    SCOPED_TRACE(c.second);
    std::vector<Json> drv = s_.CallsTo("drv", c.second);
    ASSERT_EQ(drv.size(), 1u) << r.Describe();
    EXPECT_EQ(drv[0]["result"].str(), "VK_SUCCESS");
    for (const auto& n : names) {
      std::vector<Json> recs = Records(n, c.second);
      ASSERT_EQ(recs.size(), 1u) << n;  // the layer intercepted it
      EXPECT_EQ(recs[0]["result"].str(), "VK_SUCCESS") << n;
      EXPECT_EQ(recs[0]["wrapped"].num(), 1) << n;
    }
  }
  // Records are written after the call down returned: the layer nearest the driver first.
  EXPECT_EQ(s_.LayerCallOrder("vkCreateXcbSurfaceKHR"), (V{names[2], names[1], names[0]}));
  std::vector<Json> support = s_.CallsTo("drv", "vkGetPhysicalDeviceSurfaceSupportKHR");
  ASSERT_EQ(support.size(), 4u) << r.Describe();
  for (const Json& j : support) EXPECT_EQ(j["surface"].str(), "own") << j.dump();
  // 4 platform surfaces and the 3 display-plane surfaces of the display step.
  std::vector<Json> destroyed = s_.CallsTo("drv", "vkDestroySurfaceKHR");
  ASSERT_EQ(destroyed.size(), 7u) << r.Describe();
  for (const Json& j : destroyed) EXPECT_TRUE(j["valid"].boolean()) << j.dump();
  for (const auto& n : names) {
    std::vector<Json> recs = Records(n, "vkDestroySurfaceKHR");
    ASSERT_EQ(recs.size(), 7u) << n;
    for (const Json& j : recs) {
      EXPECT_EQ(j["unwrapped"].num(), 1) << n << " " << j.dump();
      EXPECT_EQ(j["forgotten"].num(), 1) << n << " " << j.dump();
    }
  }
}

}  // namespace
}  // namespace vkt
