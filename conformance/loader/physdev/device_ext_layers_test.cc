// vkEnumerateDeviceExtensionProperties(physicalDevice, NULL, ...) and the device extensions that
// layers declare in their manifests (device_extensions): those of enabled implicit layers are part
// of every physical device's list, after the driver's and without duplicates (the Khronos loader's
// terminator adds them); an explicit layer's are listed only when its name is given, and a disabled
// implicit layer adds nothing (RULE_LYR_IMPLICIT_DEVICE_EXTENSIONS).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

constexpr char kImplicit[] = "VK_LAYER_VKT_implicit_devext";
constexpr char kExplicit[] = "VK_LAYER_VKT_explicit_devext";
constexpr char kLayerOnlyExt[] = "VK_VKT_implicit_layer_device_ext";
constexpr char kExplicitExt[] = "VK_VKT_explicit_layer_device_ext";

// manifest members: device_extensions with the given {name, spec_version} pairs.
std::string DeviceExtensionMembers(const std::vector<std::pair<std::string, int>>& exts) {
  std::string s = ", \"device_extensions\": [";
  for (size_t i = 0; i < exts.size(); ++i)
    s += std::string(i ? ", " : "") + "{\"name\": \"" + exts[i].first + "\", \"spec_version\": \"" +
         std::to_string(exts[i].second) + "\"}";
  return s + "]";
}

// The driver's one device advertises VK_KHR_swapchain (spec 70) and VK_KHR_maintenance1 (spec 2).
void AddDriverWithExtensions(Sandbox& s) {
  s.AddDriver("drv", "v7_exports",
              "{\"physical_devices\":[{\"name\":\"drv-dev\",\"extensions\":["
              "{\"name\":\"VK_KHR_swapchain\",\"spec_version\":70},"
              "{\"name\":\"VK_KHR_maintenance1\",\"spec_version\":2}]}]}");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
}

std::map<std::string, int64_t> ExtensionMap(const Json& step) {
  std::map<std::string, int64_t> m;
  Json e = step["extensions"];
  for (size_t i = 0; i < e.size(); ++i) m[e[i]["name"].str()] = e[i]["spec_version"].num();
  return m;
}

Names ExtensionNames(const Json& step) {
  Names out;
  Json e = step["extensions"];
  for (size_t i = 0; i < e.size(); ++i) out.push_back(e[i]["name"].str());
  return out;
}

// The implicit layer declares one extension of its own and VK_KHR_swapchain (which the driver
// also has): the list holds the driver's two and the layer's own once each, the driver's entry
// wins the duplicate, and the count/VK_INCOMPLETE protocol covers the merged list.
TEST(ImplicitLayerDeviceExtensions, AddedToTheDriversListWithoutDuplicates) {
  VKT_POLICY("RULE_LYR_IMPLICIT_DEVICE_EXTENSIONS", "LDP_LOADER_12");
  Sandbox s;
  AddDriverWithExtensions(s);
  AddMockLayer(s, kImplicit, /*implicit=*/true, Location::kXdgDataDirs, "v2_gpdpa",
               DeviceExtensionMembers({{kLayerOnlyExt, 3}, {"VK_KHR_swapchain", 1}}));
  ProbeResult r = RunProbe(s, {"create-instance", "devices", "device-extensions:0", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Json de = r.Step("device-extensions");
  EXPECT_EQ(de["count_result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(de["result"].str(), "VK_SUCCESS") << r.Describe();
  Names names = ExtensionNames(de);
  EXPECT_EQ(Sorted(names), (Names{"VK_KHR_maintenance1", "VK_KHR_swapchain", kLayerOnlyExt})) << r.Describe();
  EXPECT_EQ(de["count"].num(), 3) << r.Describe();
  std::map<std::string, int64_t> m = ExtensionMap(de);
  EXPECT_EQ(m["VK_KHR_swapchain"], 70) << "the driver's entry is kept\n" << r.Describe();
  EXPECT_EQ(m[kLayerOnlyExt], 3) << r.Describe();
  EXPECT_EQ(de["incomplete_result"].str(), "VK_INCOMPLETE") << r.Describe();
  EXPECT_EQ(de["incomplete_count"].num(), 2) << r.Describe();
  // The driver was never asked with a layer name.
  for (const Json& c : s.CallsTo("drv", "vkEnumerateDeviceExtensionProperties"))
    EXPECT_TRUE(c["layer"].is_null() || !c["layer"].valid()) << c.dump();
}

// The application can enable the implicit layer's extension it was shown: vkCreateDevice succeeds
// and the driver does not see it (RULE_DEV_UNKNOWN_EXT counts the layer as offering it).
TEST(ImplicitLayerDeviceExtensions, ListedExtensionCanBeEnabled) {
  VKT_POLICY("RULE_LYR_IMPLICIT_DEVICE_EXTENSIONS", "RULE_DEV_UNKNOWN_EXT");
  Sandbox s;
  AddDriverWithExtensions(s);
  AddMockLayer(s, kImplicit, /*implicit=*/true, Location::kXdgDataDirs, "v2_gpdpa",
               DeviceExtensionMembers({{kLayerOnlyExt, 1}}));
  ProbeResult r =
      RunProbe(s, {"create-instance", "devices", "device-extensions:0",
                   std::string("create-device:0;ext=") + kLayerOnlyExt, "destroy-device", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_TRUE(Contains(ExtensionNames(r.Step("device-extensions")), kLayerOnlyExt)) << r.Describe();
  EXPECT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  for (const Json& c : s.CallsTo("drv", "vkCreateDevice"))
    EXPECT_EQ(c.dump().find(kLayerOnlyExt), std::string::npos) << c.dump();
}

// Only enabled implicit layers count: with the implicit layer disabled by its
// disable_environment variable, and an explicit layer the application enabled, the list is the
// driver's alone.
TEST(ImplicitLayerDeviceExtensions, DisabledImplicitAndExplicitLayersAddNothing) {
  VKT_POLICY("RULE_LYR_IMPLICIT_DEVICE_EXTENSIONS", "LLP_LOADER_7");
  Sandbox s;
  AddDriverWithExtensions(s);
  AddMockLayer(s, kImplicit, /*implicit=*/true, Location::kXdgDataDirs, "v2_gpdpa",
               DeviceExtensionMembers({{kLayerOnlyExt, 1}}));
  AddMockLayer(s, kExplicit, /*implicit=*/false, Location::kXdgDataDirs, "v2_gpdpa",
               DeviceExtensionMembers({{kExplicitExt, 1}}));
  s.SetEnv(std::string("DISABLE_") + kImplicit, "1");
  ProbeResult r = RunProbe(s, {std::string("create-instance:layers=") + kExplicit, "devices", "device-layers:0",
                               "device-extensions:0", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(LayerNames(r, "device-layers"), (Names{kExplicit})) << "only the explicit layer is active\n"
                                                                << r.Describe();
  Json plain = r.Step("device-extensions");
  EXPECT_EQ(plain["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Sorted(ExtensionNames(plain)), (Names{"VK_KHR_maintenance1", "VK_KHR_swapchain"})) << r.Describe();
}

// The implicit layer's extension is added for every physical device, also those of a second
// driver, and also when that driver advertises no device extension at all.
TEST(ImplicitLayerDeviceExtensions, EveryPhysicalDevice) {
  VKT_POLICY("RULE_LYR_IMPLICIT_DEVICE_EXTENSIONS", "RULE_PHYSDEV_AGGREGATE");
  Sandbox s;
  AddDriverWithExtensions(s);
  AddNamedDriver(s, "bare", "v7_exports");
  s.WriteDriverManifest(Location::kXdgConfigHome, "bare");
  AddMockLayer(s, kImplicit, /*implicit=*/true, Location::kXdgDataDirs, "v2_gpdpa",
               DeviceExtensionMembers({{kLayerOnlyExt, 1}}));
  ProbeResult r = RunProbe(s, {"create-instance", "devices", "device-extensions:@drv-dev",
                               "device-extensions:@bare-dev", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Json a = r.Step("device-extensions", 0), b = r.Step("device-extensions", 1);
  EXPECT_EQ(Sorted(ExtensionNames(a)), (Names{"VK_KHR_maintenance1", "VK_KHR_swapchain", kLayerOnlyExt}))
      << r.Describe();
  EXPECT_EQ(b["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(ExtensionNames(b), (Names{kLayerOnlyExt})) << r.Describe();
}

// vkEnumerateDeviceLayerProperties answers with the instance's active layers as the application
// enabled them: an explicit meta-layer the application enabled is listed right after its
// components (RULE_LYR_META; device layers are deprecated and the documents name no order, so the
// Khronos loader's activated-layer list is the model), and a plain layer beside it keeps its place.
TEST(DeviceLayers, ActivatedMetaLayerListedAfterItsComponents) {
  VKT_POLICY("RULE_LYR_META", "LLP_LAYER_7");
  Sandbox s;
  AddDriverWithExtensions(s);
  AddMockLayer(s, "VK_LAYER_VKT_comp_one", /*implicit=*/false);
  AddMockLayer(s, "VK_LAYER_VKT_comp_two", /*implicit=*/false);
  AddMockLayer(s, "VK_LAYER_VKT_plain", /*implicit=*/false);
  s.WriteLayerManifest(Location::kXdgDataDirs, false, "meta.json",
                       LayerManifest("1.2.1", {LayerObject("VK_LAYER_VKT_meta", "",
                                                           ", \"component_layers\": [\"VK_LAYER_VKT_comp_two\", "
                                                           "\"VK_LAYER_VKT_comp_one\"]")}));
  ProbeResult r = RunProbe(s, {"create-instance:layers=VK_LAYER_VKT_meta,VK_LAYER_VKT_plain", "devices",
                               "device-layers:0", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(LayerNames(r, "device-layers"),
            (Names{"VK_LAYER_VKT_comp_two", "VK_LAYER_VKT_comp_one", "VK_LAYER_VKT_meta", "VK_LAYER_VKT_plain"}))
      << r.Describe();
}

// Device layers are deprecated and ignored; a list that is neither empty nor the instance's layers
// in order gets the Khronos loader's warning, and the device is created the same either way
// (RULE_DEVICE_LAYERS_IGNORED).
TEST(DeviceLayers, MismatchedDeviceLayerListWarnsAndIsIgnored) {
  VKT_POLICY("RULE_DEVICE_LAYERS_IGNORED");
  Sandbox s;
  AddDriverWithExtensions(s);
  AddMockLayer(s, kExplicit, /*implicit=*/false, Location::kXdgDataDirs, "v2_gpdpa", DeviceExtensionMembers({}));
  const std::string warning = "Using deprecated and ignored 'ppEnabledLayerNames' member of 'VkDeviceCreateInfo'";
  auto run = [&](const std::string& device_opts) {
    return RunProbe(s, {std::string("create-instance:layers=") + kExplicit, "devices", "create-device:0" + device_opts,
                        "destroy-device", "destroy-instance"});
  };
  ProbeResult other = run(";layers=VK_LAYER_NOT_AT_INSTANCE");
  EXPECT_EQ(other.Step("create-device")["result"].str(), "VK_SUCCESS") << other.Describe();
  EXPECT_FALSE(other.LogLines(warning).empty()) << other.Describe();
  for (const std::string& opts : {std::string(";layers=") + kExplicit, std::string()}) {
    ProbeResult r = run(opts);
    EXPECT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << opts << r.Describe();
    EXPECT_TRUE(r.LogLines(warning).empty()) << opts << r.Describe();
  }
}

// A layer may offer a device extension at run time, through its vkEnumerateDeviceExtensionProperties,
// without declaring it in its manifest: the application sees it listed, and vkCreateDevice accepts it
// (the driver does not get it), as under the Khronos loader, which checks the requested extensions
// against that list (RULE_DEV_UNKNOWN_EXT).
TEST(DeviceLayers, ExtensionOfferedAtRunTimeIsAccepted) {
  VKT_POLICY("RULE_DEV_UNKNOWN_EXT");
  Sandbox s;
  AddDriverWithExtensions(s);
  AddMockLayer(s, kImplicit, /*implicit=*/true, Location::kXdgDataDirs, "v2_gpdpa", "",
               "\"inject_device_extension\": \"VK_VKT_runtime_device_ext\"");
  ProbeResult r = RunProbe(s, {"create-instance", "devices", "device-extensions:0",
                               "create-device:0;ext=VK_VKT_runtime_device_ext", "destroy-device", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Names listed = ExtensionNames(r.Step("device-extensions"));
  EXPECT_NE(std::find(listed.begin(), listed.end(), "VK_VKT_runtime_device_ext"), listed.end()) << r.Describe();
  EXPECT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  std::vector<Json> cd = s.CallsTo("drv", "vkCreateDevice");
  ASSERT_EQ(cd.size(), 1u) << r.Describe();
  EXPECT_EQ(cd[0]["extensions"].size(), 0u) << cd[0].dump();
  // an extension nothing offers is still refused
  ProbeResult bad =
      RunProbe(s, {"create-instance", "devices", "create-device:0;ext=VK_VKT_nobody_offers", "destroy-instance"});
  EXPECT_EQ(bad.Step("create-device")["result"].str(), "VK_ERROR_EXTENSION_NOT_PRESENT") << bad.Describe();
}

}  // namespace
}  // namespace vkt
