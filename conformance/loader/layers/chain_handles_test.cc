// Handles across the layer chain. A layer that wraps every dispatchable object the way
// GFXReconstruct does (the mock layer's "strict_handles": its own VkInstance, VkPhysicalDevice,
// VkDevice and VkQueue wrappers, state reached through the wrapper, proc addrs that answer NULL for
// a handle it never returned) only works when the loader calls into each level of the chain with
// the handle that level gave back (LLP_LAYER_10 is the layer's half of the contract; LLP_LOADER_8 /
// LLP_LOADER_9 the loader's): the VkInstance each layer returned from vkCreateInstance when the loader
// asks that layer's vkGetInstanceProcAddr for vkCreateDevice (also when a layer above it has no
// vkGetDeviceProcAddr and is left out of the device chain, as Mesa's device_select is, here the
// "v2_no_gdpa" variant), and in the link shims that stand between the layers (LLP_LAYER_22). Every
// order of such a wrapper with a layer without vkGetDeviceProcAddr, a second wrapper and a plain
// layer goes through instance creation, enumeration, device extensions, device creation, a queue,
// and destruction; no layer and no driver may ever see a handle it did not make.
#include <cstdio>
#include <string>
#include <vector>

#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

using V = std::vector<std::string>;

const char kGfxr[] = "VK_LAYER_MOCK_gfxr";
const char kGfxr2[] = "VK_LAYER_MOCK_gfxr2";
const char kNoGdpa[] = "VK_LAYER_MOCK_no_gdpa";
const char kPlain[] = "VK_LAYER_MOCK_plain";
const char kDrvExt[] = "VK_KHR_maintenance1";  // the driver's device extension

struct ChainCase {
  const char* name;
  V chain;  // application order (index 0 closest to the application)
};

class ChainHandles : public ::testing::TestWithParam<ChainCase> {
 protected:
  void SetUp() override {
    s_.AddDriver("drv1", "v7_exports",
                 std::string("{\"physical_devices\":[{\"name\":\"drv1-dev\",\"device_id\":100,\"extensions\":"
                             "[{\"name\":\"") +
                     kDrvExt + "\",\"spec_version\":1}]}]}");
    s_.WriteDriverManifest(Location::kXdgConfigHome, "drv1");
    for (const char* l : {kGfxr, kGfxr2})
      AddMockLayer(s_, l, false, Location::kXdgDataDirs, "v2_gpdpa", "", "\"strict_handles\": true");
    // Like device_select: intercepts instance creation and enumeration, no vkGetDeviceProcAddr.
    AddMockLayer(s_, kNoGdpa, false, Location::kXdgDataDirs, "v2_no_gdpa", "",
                 "\"intercept\": [\"vkCreateInstance\", \"vkDestroyInstance\", \"vkEnumeratePhysicalDevices\"]");
    AddMockLayer(s_, kPlain, false, Location::kXdgDataDirs, "v2_gpdpa");
  }
  std::vector<Json> LayerRecords(const std::string& layer, const std::string& call) {
    std::vector<Json> out;
    for (const Json& j : s_.LayerCalls())
      if (j["layer"].str() == layer && j["call"].str() == call) out.push_back(j);
    return out;
  }
  Sandbox s_;
};

TEST_P(ChainHandles, WholeLifeCycleWithEachLevelsOwnHandles) {
  VKT_POLICY("LLP_LOADER_8", "LLP_LOADER_9", "LLP_LAYER_10", "LLP_LAYER_22");
  const ChainCase& c = GetParam();
  std::string layers;
  V device_chain;  // the layers with vkGetDeviceProcAddr
  for (const std::string& l : c.chain) {
    layers += (layers.empty() ? "" : ",") + l;
    if (l != kNoGdpa) device_chain.push_back(l);
  }
  ProbeResult r = RunProbe(s_, {"create-instance:layers=" + layers, "devices", "device-extensions:@drv1-dev",
                                "create-device:@drv1-dev;ext=" + std::string(kDrvExt), "dispatch-words",
                                "destroy-device", "destroy-instance"});
  ASSERT_EQ(r.exit_status, 0) << "the process did not survive the chain\n" << r.Describe();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder("vkCreateInstance"), c.chain) << r.Describe();
  EXPECT_EQ(r.DeviceNames(), V{"drv1-dev"}) << r.Describe();
  Json ext = r.Step("device-extensions");
  EXPECT_EQ(ext["result"].str(), "VK_SUCCESS") << r.Describe();
  V names;
  for (size_t i = 0; i < ext["extensions"].size(); ++i) names.push_back(ext["extensions"][i]["name"].str());
  EXPECT_TRUE(Contains(names, kDrvExt)) << r.Describe();
  ASSERT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  // Every layer with vkGetDeviceProcAddr created the device, in chain order; the driver made one
  // device on its own physical device.
  EXPECT_EQ(s_.LayerCallOrder("vkCreateDevice"), device_chain) << r.Describe();
  std::vector<Json> created = s_.CallsTo("drv1", "vkCreateDevice");
  ASSERT_EQ(created.size(), 1u) << r.Describe();
  EXPECT_EQ(created[0]["result"].str(), "VK_SUCCESS") << created[0].dump();
  // A queue through the loader's vkGetDeviceProcAddr, with the loader's dispatch in it.
  Json w = r.Step("dispatch-words");
  EXPECT_TRUE(w["queue_same_as_device"].boolean()) << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder("vkDestroyDevice"), device_chain) << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder("vkDestroyInstance"), c.chain) << r.Describe();
  std::vector<Json> destroyed = s_.CallsTo("drv1", "vkDestroyDevice");
  ASSERT_EQ(destroyed.size(), 1u) << r.Describe();
  EXPECT_TRUE(destroyed[0]["valid"].boolean()) << destroyed[0].dump();
  EXPECT_EQ(s_.CallsTo("drv1", "vkDestroyInstance").size(), 1u) << r.Describe();
  EXPECT_TRUE(s_.CallsTo("drv1", "invalid_handle").empty()) << "the driver received a handle it never made\n"
                                                            << r.Describe();
  // No layer was ever called, or asked for a function, with a handle it did not return.
  for (const Json& j : s_.LayerCalls())
    EXPECT_FALSE(j["foreign_handle"].boolean(false)) << "a layer got a handle it never returned: " << j.dump();
  // The wrappers' instance commands all came with their own wrapper.
  for (const char* l : {kGfxr, kGfxr2})
    for (const char* call : {"vkEnumeratePhysicalDevices", "vkDestroyInstance"})
      for (const Json& j : LayerRecords(l, call))
        EXPECT_TRUE(j["instance_unwrapped"].boolean()) << l << " " << call << ": " << j.dump();
}

INSTANTIATE_TEST_SUITE_P(Orders, ChainHandles,
                         ::testing::Values(ChainCase{"no_gdpa_above_wrapper", {kNoGdpa, kGfxr}},
                                           ChainCase{"wrapper_above_no_gdpa", {kGfxr, kNoGdpa}},
                                           ChainCase{"two_wrappers", {kGfxr, kGfxr2}},
                                           ChainCase{"plain_above_wrapper", {kPlain, kGfxr}},
                                           ChainCase{"wrapper_above_plain", {kGfxr, kPlain}},
                                           ChainCase{"no_gdpa_plain_wrapper", {kNoGdpa, kPlain, kGfxr}},
                                           ChainCase{"wrapper_no_gdpa_wrapper", {kGfxr, kNoGdpa, kGfxr2}},
                                           ChainCase{"no_gdpa_two_wrappers_plain", {kNoGdpa, kGfxr, kGfxr2, kPlain}}),
                         [](const ::testing::TestParamInfo<ChainCase>& i) { return std::string(i.param.name); });

// A layer whose vkGetInstanceProcAddr gives no vkCreateDevice (the mock's "no_create_device"):
// device creation fails with VK_ERROR_INITIALIZATION_FAILED and an ERROR line naming the layer; the
// loader never goes around the layer to the driver (LLP_LOADER_9: the device chain is the layers,
// then the driver). At the top of the chain and below a plain layer (whose call down reaches the
// loader's link).
TEST(ChainHandlesMissing, LayerWithoutCreateDeviceIsAnError) {
  VKT_POLICY("LLP_LOADER_9");
  const char kNoCreate[] = "VK_LAYER_MOCK_no_create_device";
  for (bool below_plain : {false, true}) {
    SCOPED_TRACE(below_plain ? "below a plain layer" : "at the top");
    Sandbox s;
    s.AddDriver("drv1", "v7_exports", DeviceScenario({"drv1-dev"}));
    s.WriteDriverManifest(Location::kXdgConfigHome, "drv1");
    AddMockLayer(s, kNoCreate, false, Location::kXdgDataDirs, "v2_gpdpa", "",
                 "\"misbehave\": {\"no_create_device\": true}");
    AddMockLayer(s, kPlain, false, Location::kXdgDataDirs, "v2_gpdpa");
    std::string layers = below_plain ? std::string(kPlain) + "," + kNoCreate : std::string(kNoCreate);
    ProbeResult r = RunProbe(
        s, {"create-instance:layers=" + layers, "devices", "create-device:0", "destroy-device", "destroy-instance"});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
    EXPECT_EQ(r.Step("create-device")["result"].str(), "VK_ERROR_INITIALIZATION_FAILED") << r.Describe();
    EXPECT_TRUE(s.CallsTo("drv1", "vkCreateDevice").empty()) << "the loader went around the layer\n" << r.Describe();
    if (LoaderName() == "ours") {
      bool named = false;
      for (const std::string& line : r.LogLines("vkCreateDevice"))
        named = named || (line.find(kNoCreate) != std::string::npos && line.find("ERROR") != std::string::npos);
      EXPECT_TRUE(named) << "no ERROR line names the layer\n" << r.err;
    }
  }
}

}  // namespace
}  // namespace vkt
