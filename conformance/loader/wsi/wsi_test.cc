// Window-system integration: one VkSurfaceKHR usable with every driver (LDP_LOADER_10), drivers that
// own surfaces get their own handle back (LDP_LOADER_11), vkDestroySurfaceKHR destroys every
// per-driver surface, platform extensions must be enabled, drivers below interface 3 that expose
// surface creation get the loader's container (LDP_DRIVER_8).
//
// The mock records which surface handle each surface-taking call received ("surface": "own" = one it
// created, "container" = the loader's VkIcdSurface* read as VkIcdSurfaceBase (only below interface
// 3, with "platform"), "foreign" = anything else). Platform handles (xcb connection, Display,
// wl_display) are fake numbers that neither the loader nor the mock dereference.
#include <string>
#include <vector>

#include <vulkan/vk_icd.h>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

struct Platform {
  const char* kind;    // vkprobe create-surface kind
  const char* ext;     // instance extension
  const char* create;  // the driver's create command
  int icd_platform;    // VkIcdWsiPlatform in the container
};

const Platform kPlatforms[] = {
    {"headless", "VK_EXT_headless_surface", "vkCreateHeadlessSurfaceEXT", VK_ICD_WSI_PLATFORM_HEADLESS},
    {"xcb", "VK_KHR_xcb_surface", "vkCreateXcbSurfaceKHR", VK_ICD_WSI_PLATFORM_XCB},
    {"xlib", "VK_KHR_xlib_surface", "vkCreateXlibSurfaceKHR", VK_ICD_WSI_PLATFORM_XLIB},
    {"wayland", "VK_KHR_wayland_surface", "vkCreateWaylandSurfaceKHR", VK_ICD_WSI_PLATFORM_WAYLAND},
    {"display", "VK_KHR_display", "vkCreateDisplayPlaneSurfaceKHR", VK_ICD_WSI_PLATFORM_DISPLAY},
};

const char* const kQueries[] = {
    "vkGetPhysicalDeviceSurfaceSupportKHR",
    "vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
    "vkGetPhysicalDeviceSurfaceFormatsKHR",
    "vkGetPhysicalDeviceSurfacePresentModesKHR",
};

// A driver scenario: one device "<name>-dev" with VK_KHR_swapchain, the surface extensions listed.
std::string WsiScenario(const std::string& name, const std::string& extra = "") {
  std::string s =
      "{\"instance_extensions\":[\"VK_KHR_surface\",\"VK_EXT_headless_surface\",\"VK_KHR_xcb_surface\","
      "\"VK_KHR_xlib_surface\",\"VK_KHR_wayland_surface\",\"VK_KHR_display\"],"
      "\"physical_devices\":[{\"name\":\"" +
      name + "-dev\",\"extensions\":[\"VK_KHR_swapchain\"]}]";
  if (!extra.empty()) s += "," + extra;
  return s + "}";
}

void AddWsiDriver(Sandbox& s, const std::string& name, const std::string& variant, const std::string& extra = "") {
  s.AddDriver(name, variant, WsiScenario(name, extra));
  s.WriteDriverManifest(Location::kXdgConfigHome, name);
}

std::string CreateOpts(const Platform& p) { return std::string("create-instance:ext=VK_KHR_surface,") + p.ext; }

// Every record of `call` in driver `name` received `kind` ("own", "container", ...).
void ExpectSurfaceKind(const Sandbox& s, const std::string& name, const std::string& call, const std::string& kind,
                       int platform = -1) {
  std::vector<Json> recs = s.CallsTo(name, call);
  ASSERT_FALSE(recs.empty()) << name << " never received " << call;
  for (const Json& r : recs) {
    EXPECT_EQ(r["surface"].str(), kind) << name << ": " << r.dump();
    if (platform >= 0) {
      EXPECT_EQ(r["platform"].num(), platform) << name << ": " << r.dump();
    }
  }
}

// A driver below interface 3 (no surface creation, reads the container) and one at interface 7 that
// owns its surfaces: one VkSurfaceKHR works with both, on every platform.
TEST(Wsi, OneSurfaceUsableWithEveryDriver) {
  VKT_POLICY("LDP_LOADER_10", "LDP_LOADER_11");
  for (const Platform& p : kPlatforms) {
    SCOPED_TRACE(p.kind);
    Sandbox s;
    AddWsiDriver(s, "old", "v2");
    AddWsiDriver(s, "own", "v7_exports");
    ProbeResult r =
        RunProbe(s, {CreateOpts(p), "devices", std::string("create-surface:") + p.kind, "surface-queries:@old-dev",
                     "surface-queries:@own-dev", "destroy-surface", "destroy-instance"});
    ASSERT_EQ(r.Step("create-instance")["result"].str(), "VK_SUCCESS") << r.Describe();
    Json cs = r.Step("create-surface");
    ASSERT_TRUE(cs["resolved"].boolean()) << r.Describe();
    ASSERT_EQ(cs["result"].str(), "VK_SUCCESS") << r.Describe();
    EXPECT_TRUE(cs["surface"].boolean());
    for (int i = 0; i < 2; ++i) {
      Json q = r.Step("surface-queries", i);
      EXPECT_EQ(q["support_result"].str(), "VK_SUCCESS") << q.dump();
      EXPECT_TRUE(q["supported"].boolean()) << q.dump();
      EXPECT_EQ(q["capabilities_result"].str(), "VK_SUCCESS") << q.dump();
      EXPECT_EQ(q["formats_result"].str(), "VK_SUCCESS") << q.dump();
      EXPECT_EQ(q["format_count"].num(), 1) << q.dump();
      EXPECT_EQ(q["present_modes_result"].str(), "VK_SUCCESS") << q.dump();
      EXPECT_EQ(q["present_mode_count"].num(), 1) << q.dump();
    }
    for (const char* call : kQueries) {
      ExpectSurfaceKind(s, "old", call, "container", p.icd_platform);
      ExpectSurfaceKind(s, "own", call, "own");
    }
    // The interface-2 driver never creates or destroys surfaces; the interface-7 one exactly one.
    EXPECT_TRUE(s.CallsTo("old", p.create).empty());
    EXPECT_TRUE(s.CallsTo("old", "vkDestroySurfaceKHR").empty());
    std::vector<Json> created = s.CallsTo("own", p.create);
    ASSERT_EQ(created.size(), 1u) << r.Describe();
    EXPECT_EQ(created[0]["result"].str(), "VK_SUCCESS");
    if (std::string(p.kind) == "display") {  // the application's display mode and plane reach the driver
      EXPECT_EQ(created[0]["display_mode"].num(), 0x7c0005) << created[0].dump();
      EXPECT_EQ(created[0]["plane_index"].num(), 1) << created[0].dump();
    }
    std::vector<Json> destroyed = s.CallsTo("own", "vkDestroySurfaceKHR");
    ASSERT_EQ(destroyed.size(), 1u) << r.Describe();
    EXPECT_TRUE(destroyed[0]["valid"].boolean()) << destroyed[0].dump();
  }
}

// A driver without any WSI support beside one that owns surfaces: the surface still works with the
// WSI driver, and the other driver is never asked.
TEST(Wsi, DriverWithoutWsiBesideOwner) {
  VKT_POLICY("LDP_LOADER_10", "LDP_LOADER_11");
  Sandbox s;
  s.AddDriver("plain", "v7_exports", DeviceScenario({"plain-dev"}));
  s.WriteDriverManifest(Location::kXdgConfigHome, "plain");
  AddWsiDriver(s, "own", "v7_exports");
  ProbeResult r =
      RunProbe(s, {"create-instance:ext=VK_KHR_surface,VK_EXT_headless_surface", "devices", "create-surface:headless",
                   "surface-queries:@own-dev", "destroy-surface", "destroy-instance"});
  ASSERT_EQ(r.Step("create-instance")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames()), (std::vector<std::string>{"own-dev", "plain-dev"})) << r.Describe();
  ASSERT_EQ(r.Step("create-surface")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("surface-queries")["support_result"].str(), "VK_SUCCESS") << r.Describe();
  for (const char* call : kQueries) ExpectSurfaceKind(s, "own", call, "own");
  for (const Json& c : s.Calls("plain")) {
    std::string call = c["call"].str();
    EXPECT_TRUE(call.find("Surface") == std::string::npos || call == "vk_icdGetInstanceProcAddr" ||
                call == "vkGetInstanceProcAddr" || call == "vk_icdGetPhysicalDeviceProcAddr")
        << "the driver without WSI was called: " << c.dump();
  }
  EXPECT_EQ(s.CallsTo("own", "vkDestroySurfaceKHR").size(), 1u);
}

// vkCreateSwapchainKHR reaches the device's driver with that driver's own surface (interface >= 3)
// or the container (interface < 3).
TEST(Wsi, SwapchainGetsTheDriversSurface) {
  VKT_POLICY("LDP_LOADER_10", "LDP_LOADER_11");
  Sandbox s;
  AddWsiDriver(s, "old", "v2");
  AddWsiDriver(s, "own", "v7_exports");
  ProbeResult r = RunProbe(s, {"create-instance:ext=VK_KHR_surface,VK_KHR_xcb_surface", "devices", "create-surface:xcb",
                               "create-device:@own-dev;ext=VK_KHR_swapchain", "create-swapchain", "destroy-device",
                               "create-device:@old-dev;ext=VK_KHR_swapchain", "create-swapchain", "destroy-device",
                               "destroy-surface", "destroy-instance"});
  ASSERT_EQ(r.Step("create-surface")["result"].str(), "VK_SUCCESS") << r.Describe();
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(r.Step("create-device", i)["result"].str(), "VK_SUCCESS") << r.Describe();
    Json sc = r.Step("create-swapchain", i);
    EXPECT_TRUE(sc["resolved"].boolean()) << r.Describe();
    EXPECT_EQ(sc["result"].str(), "VK_SUCCESS") << r.Describe();
  }
  ExpectSurfaceKind(s, "own", "vkCreateSwapchainKHR", "own");
  ExpectSurfaceKind(s, "old", "vkCreateSwapchainKHR", "container", VK_ICD_WSI_PLATFORM_XCB);
  for (const char* name : {"own", "old"}) {
    std::vector<Json> created = s.CallsTo(name, "vkCreateSwapchainKHR");
    ASSERT_EQ(created.size(), 1u) << name;
    EXPECT_TRUE(created[0]["valid"].boolean()) << created[0].dump();
    EXPECT_EQ(s.CallsTo(name, "vkDestroySwapchainKHR").size(), 1u) << name;
  }
}

// Two drivers that own surfaces (interface 3 and 7): after first use each has exactly one surface;
// vkDestroySurfaceKHR destroys both.
TEST(Wsi, DestroySurfaceDestroysEveryDriverSurface) {
  VKT_POLICY("LDP_LOADER_11");
  for (const Platform& p : kPlatforms) {
    SCOPED_TRACE(p.kind);
    Sandbox s;
    AddWsiDriver(s, "a", "v3");
    AddWsiDriver(s, "b", "v7_exports");
    ProbeResult r =
        RunProbe(s, {CreateOpts(p), "devices", std::string("create-surface:") + p.kind, "surface-queries:@a-dev",
                     "surface-queries:@b-dev", "destroy-surface", "destroy-instance"});
    ASSERT_EQ(r.Step("create-surface")["result"].str(), "VK_SUCCESS") << r.Describe();
    for (const char* name : {"a", "b"}) {
      for (const char* call : kQueries) ExpectSurfaceKind(s, name, call, "own");
      EXPECT_EQ(s.CallsTo(name, p.create).size(), 1u) << name << "\n" << r.Describe();
      std::vector<Json> destroyed = s.CallsTo(name, "vkDestroySurfaceKHR");
      ASSERT_EQ(destroyed.size(), 1u) << name << "\n" << r.Describe();
      EXPECT_TRUE(destroyed[0]["valid"].boolean()) << destroyed[0].dump();
    }
  }
}

// The driver interface document: drivers that own surfaces get them inside vkCreate*SurfaceKHR.
// Newer Khronos loaders create them lazily on first use (spec §7.6, Appendix A item 14); Debian's
// 1.3.239 still creates them here, so this passes against it and needs no deviation row (yet).
TEST(Wsi, DriverSurfaceCreatedInCreateSurface) {
  VKT_POLICY("LDP_LOADER_11");
  Sandbox s;
  AddWsiDriver(s, "own", "v7_exports");
  ProbeResult r = RunProbe(s, {"create-instance:ext=VK_KHR_surface,VK_EXT_headless_surface", "create-surface:headless",
                               "destroy-surface", "destroy-instance"});
  ASSERT_EQ(r.Step("create-surface")["result"].str(), "VK_SUCCESS") << r.Describe();
  std::vector<Json> created = s.CallsTo("own", "vkCreateHeadlessSurfaceEXT");
  ASSERT_EQ(created.size(), 1u) << "no driver surface created by vkCreateHeadlessSurfaceEXT\n" << r.Describe();
  EXPECT_EQ(s.CallsTo("own", "vkDestroySurfaceKHR").size(), 1u);
}

// vkCreate*SurfaceKHR of a platform extension the instance did not enable: the exported entry point
// returns VK_ERROR_EXTENSION_NOT_PRESENT and no driver is asked.
TEST(Wsi, PlatformExtensionNotEnabled) {
  VKT_POLICY("LDP_LOADER_10");
  for (const char* kind : {"xcb", "xlib", "wayland"}) {
    SCOPED_TRACE(kind);
    Sandbox s;
    AddWsiDriver(s, "own", "v7_exports");
    ProbeResult r =
        RunProbe(s, {"create-instance:ext=VK_KHR_surface", std::string("create-surface:") + kind + ",export",
                     "destroy-surface", "destroy-instance"});
    ASSERT_EQ(r.Step("create-instance")["result"].str(), "VK_SUCCESS") << r.Describe();
    Json cs = r.Step("create-surface");
    ASSERT_TRUE(cs["resolved"].boolean()) << "the loader exports the platform's create function\n" << r.Describe();
    EXPECT_EQ(cs["result"].str(), "VK_ERROR_EXTENSION_NOT_PRESENT") << r.Describe();
    EXPECT_FALSE(cs["surface"].boolean());
    for (const Json& c : s.Calls("own")) {
      std::string call = c["call"].str();
      EXPECT_TRUE(call.rfind("vkCreate", 0) != 0 || call.find("Surface") == std::string::npos) << c.dump();
    }
  }
}

// LDP_DRIVER_8: a driver below interface 3 that nevertheless exposes vkCreate*SurfaceKHR is not
// asked to create surfaces (it gets the container) and the loader warns about it.
TEST(Wsi, SurfaceCreationBelowInterface3Warns) {
  VKT_POLICY("LDP_DRIVER_8", "LDP_LOADER_10");
  Sandbox s;
  AddWsiDriver(s, "bad", "v2", "\"misbehave\":{\"surface_without_interface_3\":true}");
  ProbeResult r = RunProbe(s, {"create-instance:ext=VK_KHR_surface,VK_EXT_headless_surface", "devices",
                               "create-surface:headless", "surface-queries:0", "destroy-surface", "destroy-instance"});
  ASSERT_EQ(r.Step("create-surface")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_TRUE(s.CallsTo("bad", "vkCreateHeadlessSurfaceEXT").empty()) << r.Describe();
  EXPECT_TRUE(s.CallsTo("bad", "vkDestroySurfaceKHR").empty()) << r.Describe();
  for (const char* call : kQueries) ExpectSurfaceKind(s, "bad", call, "container", VK_ICD_WSI_PLATFORM_HEADLESS);
  // One warning naming the driver (its manifest "bad.json" or its library under drivers/bad/) and
  // the interface requirement.
  bool warned = false;
  const std::string lib = "bad";
  size_t pos = 0;
  while (!warned && pos < r.err.size()) {
    size_t end = r.err.find('\n', pos);
    std::string line = r.err.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    warned = line.find("WARN") != std::string::npos && line.find(lib) != std::string::npos &&
             line.find("interface") != std::string::npos && line.find("urface") != std::string::npos;
    pos = end == std::string::npos ? r.err.size() : end + 1;
  }
  EXPECT_TRUE(warned) << "no WARN line about driver " << lib << " exposing surfaces below interface 3\n" << r.err;
}

}  // namespace
}  // namespace vkt
