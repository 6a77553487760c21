// Extensions a layer implements, with entry points, and unknown physical-device commands through a
// layer's vk_layerGetPhysicalDeviceProcAddr (layer interface 2).
//
// The mock layer (mock_layers/README.md: "device_extension", "device_functions",
// "instance_extension", "physdev_functions") implements one device extension and one instance
// extension. Their commands are made-up names absent from vk.xml, so they travel the loader's
// unknown-function paths:
//   - kDevFn (device extension kDevExt, manifest device_extensions "entrypoints"): the unknown
//     device-command path (vkGetDeviceProcAddr through the layer's GDPA; vkGetInstanceProcAddr
//     through the manifest's entrypoints);
//   - kPdFn (instance extension kInstExt): the unknown physical-device-command path (the layer's
//     GPDPA, then the drivers' vk_icdGetPhysicalDeviceProcAddr).
// A command the layer answers itself returns x + 30000 (device) / x + 40000 (physical device); the
// mock driver's pool slot 0 returns x + 10000 / x + 20000 (mock_icd/README.md).
#include <cstdio>
#include <string>
#include <vector>

#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

using V = std::vector<std::string>;

const char kLayer[] = "VK_LAYER_MOCK_ext_impl";
const char kDevExt[] = "VK_EXT_mock_layer_device";
const char kDevFn[] = "vkMockLayerDeviceEXT";
const char kInstExt[] = "VK_EXT_mock_layer_instance";
const char kPdFn[] = "vkGetPhysicalDeviceMockLayerEXT";

// The manifest members declaring both extensions.
std::string ExtensionMembers() {
  return std::string(", \"instance_extensions\": [{\"name\": \"") + kInstExt +
         "\", \"spec_version\": \"1\"}], \"device_extensions\": [{\"name\": \"" + kDevExt +
         "\", \"spec_version\": \"1\", \"entrypoints\": [\"" + kDevFn + "\"]}]";
}

// The scenario implementing them. The device command is offered only for devices that enabled
// kDevExt; the physical-device command only for instances that enabled kInstExt when
// `gate_instance`, else always (as a layer implementing a device extension's physical-device
// command would).
std::string ExtensionScenario(bool gate_instance = false) {
  return std::string("\"device_extension\": \"") + kDevExt + "\", \"device_functions\": [\"" + kDevFn +
         "\"], \"physdev_functions\": [\"" + kPdFn + "\"]" +
         (gate_instance ? std::string(", \"instance_extension\": \"") + kInstExt + "\"" : std::string());
}

class LayerExtensions : public ::testing::Test {
 protected:
  // One driver "drv"; `driver_members` adds scenario members (e.g. the commands' pool slots).
  void AddDriver(const std::string& driver_members = "") {
    AddNamedDriver(s_, "drv", "v7_exports", driver_members);
    s_.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  }
  void AddLayer(const std::string& name = kLayer, const std::string& variant = "v2_gpdpa",
                const std::string& scenario = ExtensionScenario()) {
    AddMockLayer(s_, name, false, Location::kXdgDataDirs, variant, ExtensionMembers(), scenario);
  }
  std::vector<Json> Records(const std::string& layer, const std::string& call) {
    std::vector<Json> out;
    for (const Json& j : s_.LayerCalls())
      if (j["layer"].str() == layer && j["call"].str() == call) out.push_back(j);
    return out;
  }
  // Steps up to a device on physical device 0 with `dev_exts` enabled.
  static std::vector<std::string> DeviceSteps(const std::string& dev_exts) {
    return {"create-instance:layers=" + std::string(kLayer), "devices", "device-extensions:0," + std::string(kLayer),
            dev_exts.empty() ? std::string("create-device:0") : "create-device:0;ext=" + dev_exts};
  }
  Sandbox s_;
};

// ---- a device extension with an entry point --------------------------------------------------

// The application enables the layer's device extension: vkCreateDevice succeeds although the
// driver does not know the extension (the loader keeps it from the driver), vkGetDeviceProcAddr
// and vkGetInstanceProcAddr give the command, and calling it reaches the layer.
TEST_F(LayerExtensions, DeviceExtensionEnabledReachesTheLayer) {
  VKT_POLICY("RULE_LYR_DEVICE_EXT_ENTRYPOINTS", "RULE_UNKNOWN_DEVICE_FUNC", "LDP_LOADER_12", "LLP_LAYER_16");
  AddDriver();
  AddLayer();
  std::vector<std::string> steps = DeviceSteps(kDevExt);
  for (const std::string& st : {"gdpa:" + std::string(kDevFn), "call-unknown-device:" + std::string(kDevFn) + ",7",
                                "call-unknown-device:" + std::string(kDevFn) + ",8,gipa", std::string("destroy-device"),
                                std::string("destroy-instance")})
    steps.push_back(st);
  ProbeResult r = RunProbe(s_, steps);
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  // vkEnumerateDeviceExtensionProperties(layerName) answers from the manifest.
  Json de = r.Step("device-extensions");
  EXPECT_EQ(de["result"].str(), "VK_SUCCESS") << r.Describe();
  ASSERT_EQ(de["extensions"].size(), 1u) << r.Describe();
  EXPECT_EQ(de["extensions"][0]["name"].str(), kDevExt) << r.Describe();
  ASSERT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  // The driver never saw the layer's extension (it would have refused it).
  for (const Json& c : s_.CallsTo("drv", "vkCreateDevice"))
    EXPECT_EQ(c.dump().find(kDevExt), std::string::npos) << c.dump();
  EXPECT_TRUE(r.Step("gdpa")["non_null"].boolean()) << r.Describe();
  std::vector<Json> calls = r.Steps("call-unknown-device");
  ASSERT_EQ(calls.size(), 2u) << r.Describe();
  EXPECT_TRUE(calls[0]["non_null"].boolean()) << r.Describe();
  EXPECT_EQ(calls[0]["returned"].num(), 30007) << r.Describe();
  EXPECT_TRUE(calls[1]["non_null"].boolean()) << "through vkGetInstanceProcAddr\n" << r.Describe();
  EXPECT_EQ(calls[1]["returned"].num(), 30008) << r.Describe();
  std::vector<Json> recs = Records(kLayer, kDevFn);
  ASSERT_EQ(recs.size(), 2u) << r.Describe();
  EXPECT_EQ(recs[0]["arg"].num(), 7) << recs[0].dump();
  EXPECT_EQ(recs[1]["arg"].num(), 8) << recs[1].dump();
  for (const Json& j : recs) EXPECT_FALSE(j["called_down"].boolean(true)) << "the driver lacks it: " << j.dump();
}

// The driver has the command too: the layer records the call and passes it down; the driver
// receives its own VkDevice.
TEST_F(LayerExtensions, DeviceExtensionCommandCallsDownToTheDriver) {
  VKT_POLICY("RULE_LYR_DEVICE_EXT_ENTRYPOINTS", "RULE_UNKNOWN_DEVICE_FUNC", "LLP_LOADER_9");
  AddDriver(std::string("\"device_functions\": [\"") + kDevFn + "\"]");
  AddLayer();
  std::vector<std::string> steps = DeviceSteps(kDevExt);
  steps.push_back("call-unknown-device:" + std::string(kDevFn) + ",5");
  steps.push_back("destroy-device");
  steps.push_back("destroy-instance");
  ProbeResult r = RunProbe(s_, steps);
  ASSERT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  Json call = r.Step("call-unknown-device");
  ASSERT_TRUE(call["non_null"].boolean()) << r.Describe();
  EXPECT_EQ(call["returned"].num(), 10005) << r.Describe();
  std::vector<Json> recs = Records(kLayer, kDevFn);
  ASSERT_EQ(recs.size(), 1u) << r.Describe();
  EXPECT_TRUE(recs[0]["called_down"].boolean()) << recs[0].dump();
  std::vector<Json> drv = s_.CallsTo("drv", kDevFn);
  ASSERT_EQ(drv.size(), 1u) << r.Describe();
  EXPECT_EQ(drv[0]["handle"].str(), "device") << drv[0].dump();
  EXPECT_EQ(drv[0]["arg"].num(), 5) << drv[0].dump();
}

// Not enabled: the Vulkan specification's vkGetDeviceProcAddr table gives NULL for commands of
// device extensions the device did not enable; the layer follows LLP_LAYER_18 and nothing below
// has the command. vkGetInstanceProcAddr still answers it: the specification returns commands of
// device extensions available on any physical device of the instance, and the layer's manifest
// makes it available.
TEST_F(LayerExtensions, DeviceExtensionNotEnabled) {
  VKT_POLICY("RULE_LYR_DEVICE_EXT_ENTRYPOINTS", "RULE_GIPA_SPEC", "RULE_GDPA_DIRECT", "LLP_LAYER_18");
  AddDriver();
  AddLayer();
  std::vector<std::string> steps = DeviceSteps("");
  steps.push_back("gdpa:" + std::string(kDevFn));
  steps.push_back("gipa:" + std::string(kDevFn));
  steps.push_back("destroy-device");
  steps.push_back("destroy-instance");
  ProbeResult r = RunProbe(s_, steps);
  ASSERT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_FALSE(r.Step("gdpa")["non_null"].boolean(true)) << r.Describe();
  EXPECT_TRUE(r.Step("gipa")["non_null"].boolean()) << r.Describe();
  EXPECT_TRUE(Records(kLayer, kDevFn).empty()) << r.Describe();
}

// A device extension neither the driver nor an enabled layer offers fails vkCreateDevice, refused
// by the loader: the driver never receives the request. With and without a layer.
TEST_F(LayerExtensions, UnknownDeviceExtensionStillRefused) {
  VKT_POLICY("RULE_LYR_DEVICE_EXT_ENTRYPOINTS", "RULE_DEV_UNKNOWN_EXT");
  AddDriver();
  AddLayer();
  for (bool layered : {true, false}) {
    SCOPED_TRACE(layered ? "with a layer" : "no layer");
    ProbeResult r = RunProbe(s_, {layered ? "create-instance:layers=" + std::string(kLayer) : "create-instance",
                                  "devices", "create-device:0;ext=VK_EXT_mock_nobody_has_this", "destroy-instance"});
    ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
    EXPECT_EQ(r.Step("create-device")["result"].str(), "VK_ERROR_EXTENSION_NOT_PRESENT") << r.Describe();
    EXPECT_TRUE(s_.CallsTo("drv", "vkCreateDevice").empty()) << "the driver received the request\n" << r.Describe();
  }
}

// A layer that enables a device extension on its way down (the mock's "add_device_extension": it
// appends the name to the VkDeviceCreateInfo it passes down) that the driver does not offer: the
// layers below it receive it, the driver does not (the loader filters the driver's
// VkDeviceCreateInfo down to what the driver advertises, RULE_DEV_UNKNOWN_EXT), and vkCreateDevice
// succeeds. Alone and above a plain layer.
TEST_F(LayerExtensions, LayerAddedDeviceExtensionKeptFromTheDriver) {
  VKT_POLICY("RULE_DEV_UNKNOWN_EXT", "LLP_LOADER_9");
  const char kAdds[] = "VK_LAYER_MOCK_adds_extension";
  const char kPlain[] = "VK_LAYER_MOCK_plain_below";
  const char kAdded[] = "VK_EXT_mock_added_by_a_layer";
  AddDriver();
  AddMockLayer(s_, kAdds, false, Location::kXdgDataDirs, "v2_gpdpa", "",
               std::string("\"add_device_extension\": \"") + kAdded + "\"");
  AddMockLayer(s_, kPlain, false, Location::kXdgDataDirs, "v2_gpdpa");
  for (bool stacked : {false, true}) {
    SCOPED_TRACE(stacked ? "above a plain layer" : "alone");
    std::remove(s_.LayerCallsFile().c_str());
    std::remove(s_.driver("drv").calls.c_str());
    std::string layers = stacked ? std::string(kAdds) + "," + kPlain : std::string(kAdds);
    ProbeResult r = RunProbe(
        s_, {"create-instance:layers=" + layers, "devices", "create-device:0", "destroy-device", "destroy-instance"});
    ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
    EXPECT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
    std::vector<Json> drv = s_.CallsTo("drv", "vkCreateDevice");
    ASSERT_EQ(drv.size(), 1u) << r.Describe();
    EXPECT_FALSE(Contains(drv[0]["extensions"].strings(), kAdded)) << "the driver received it: " << drv[0].dump();
    EXPECT_EQ(drv[0]["result"].str(), "VK_SUCCESS") << drv[0].dump();
    if (stacked) {
      std::vector<Json> below = Records(kPlain, "vkCreateDevice");
      ASSERT_EQ(below.size(), 1u) << r.Describe();
      EXPECT_TRUE(Contains(below[0]["extensions"].strings(), kAdded)) << below[0].dump();
    }
    if (LoaderName() == "ours") {
      EXPECT_FALSE(r.LogLines(kAdded).empty()) << "no log line names it\n" << r.err;
    }
  }
}

// ---- an instance extension with a physical-device command ------------------------------------

// The application enables the layer's instance extension: vkCreateInstance accepts it (an enabled
// layer provides it) and only the layer receives it (the driver does not advertise it,
// LDP_LOADER_9); the layer's GPDPA then answers the extension's command, which the application
// reaches through vkGetInstanceProcAddr. Without the extension the layer does not answer it
// (LLP_LAYER_18) and nothing else has it: vkGetInstanceProcAddr gives NULL.
TEST_F(LayerExtensions, InstanceExtensionOfEnabledLayer) {
  VKT_POLICY("RULE_INST_UNKNOWN_EXT", "LDP_LOADER_9", "RULE_UNKNOWN_PHYSDEV_FUNC", "RULE_GIPA_SPEC", "LLP_LAYER_18");
  AddDriver();
  AddLayer(kLayer, "v2_gpdpa", ExtensionScenario(true));
  ProbeResult r = RunProbe(
      s_, {"create-instance:layers=" + std::string(kLayer) + ";ext=" + kInstExt, "devices",
           "gipa:" + std::string(kPdFn), "call-unknown-physdev:" + std::string(kPdFn) + ",6", "destroy-instance",
           "create-instance:layers=" + std::string(kLayer), "gipa:" + std::string(kPdFn), "destroy-instance"});
  ASSERT_EQ(r.Step("create-instance", 0)["result"].str(), "VK_SUCCESS") << r.Describe();
  std::vector<Json> created = Records(kLayer, "vkCreateInstance");
  ASSERT_FALSE(created.empty()) << r.Describe();
  EXPECT_NE(created[0].dump().find(kInstExt), std::string::npos) << created[0].dump();
  std::vector<Json> drv_created = s_.CallsTo("drv", "vkCreateInstance");
  ASSERT_FALSE(drv_created.empty()) << r.Describe();
  EXPECT_EQ(drv_created[0].dump().find(kInstExt), std::string::npos) << drv_created[0].dump();
  EXPECT_TRUE(r.Step("gipa", 0)["non_null"].boolean()) << r.Describe();
  Json call = r.Step("call-unknown-physdev");
  ASSERT_TRUE(call["non_null"].boolean()) << r.Describe();
  EXPECT_EQ(call["returned"].num(), 40006) << r.Describe();
  ASSERT_EQ(r.Step("create-instance", 1)["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_FALSE(r.Step("gipa", 1)["non_null"].boolean(true)) << "extension not enabled\n" << r.Describe();
}

// ---- unknown physical-device commands through a layer's GPDPA --------------------------------

// The driver (interface 7, with vk_icdGetPhysicalDeviceProcAddr) also has the command.
// vkGetInstanceProcAddr gives a trampoline; a call with a VkPhysicalDevice reaches the layer
// first, then the driver with its own handle.
TEST_F(LayerExtensions, PhysdevCommandThroughLayerThenDriver) {
  VKT_POLICY("RULE_UNKNOWN_PHYSDEV_FUNC", "RULE_LYR_IFACE_V2");
  AddDriver(std::string("\"physdev_functions\": [\"") + kPdFn + "\"]");
  AddLayer();
  ProbeResult r =
      RunProbe(s_, {"create-instance:layers=" + std::string(kLayer), "devices", "gipa:" + std::string(kPdFn),
                    "call-unknown-physdev:" + std::string(kPdFn) + ",5", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_TRUE(r.Step("gipa")["non_null"].boolean()) << r.Describe();
  Json call = r.Step("call-unknown-physdev");
  ASSERT_TRUE(call["non_null"].boolean()) << r.Describe();
  EXPECT_EQ(call["returned"].num(), 20005) << r.Describe();
  std::vector<Json> recs = Records(kLayer, kPdFn);
  ASSERT_EQ(recs.size(), 1u) << r.Describe();
  EXPECT_EQ(recs[0]["arg"].num(), 5) << recs[0].dump();
  EXPECT_TRUE(recs[0]["called_down"].boolean()) << recs[0].dump();
  std::vector<Json> drv = s_.CallsTo("drv", kPdFn);
  ASSERT_EQ(drv.size(), 1u) << r.Describe();
  EXPECT_EQ(drv[0]["handle"].str(), "physical_device") << drv[0].dump();
}

// The same through an implicit layer the application does not name (RULE_UNKNOWN_PHYSDEV_FUNC: unknown
// physical-device commands go through the implicit layers that intercept them).
TEST_F(LayerExtensions, PhysdevCommandThroughImplicitLayerThenDriver) {
  VKT_POLICY("RULE_UNKNOWN_PHYSDEV_FUNC", "RULE_LYR_IFACE_V2");
  AddDriver(std::string("\"physdev_functions\": [\"") + kPdFn + "\"]");
  AddMockLayer(s_, kLayer, true, Location::kXdgDataDirs, "v2_gpdpa", ExtensionMembers(), ExtensionScenario());
  ProbeResult r = RunProbe(s_, {"create-instance", "devices", "gipa:" + std::string(kPdFn),
                                "call-unknown-physdev:" + std::string(kPdFn) + ",5", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Json call = r.Step("call-unknown-physdev");
  ASSERT_TRUE(call["non_null"].boolean()) << r.Describe();
  EXPECT_EQ(call["returned"].num(), 20005) << r.Describe();
  std::vector<Json> recs = Records(kLayer, kPdFn);
  ASSERT_EQ(recs.size(), 1u) << "the implicit layer did not see the call\n" << r.Describe();
  EXPECT_TRUE(recs[0]["called_down"].boolean()) << recs[0].dump();
  std::vector<Json> drv = s_.CallsTo("drv", kPdFn);
  ASSERT_EQ(drv.size(), 1u) << r.Describe();
  EXPECT_EQ(drv[0]["handle"].str(), "physical_device") << drv[0].dump();
}

// The layer asks its pfnNextGetPhysicalDeviceProcAddr for the command in its own vkCreateInstance,
// before the application has looked it up, and keeps what it got as its next pointer (as layers
// that build their dispatch at creation do, and as [Lyr] "Layer Unknown Physical Device
// Extensions" has them do). The loader's bottom GPDPA answers then, because the driver has the
// command: the call later reaches the layer and, through that pointer, the driver.
TEST_F(LayerExtensions, PhysdevCommandResolvedInLayerCreateInstance) {
  VKT_POLICY("RULE_UNKNOWN_PHYSDEV_FUNC", "RULE_LYR_IFACE_V2");
  AddDriver(std::string("\"physdev_functions\": [\"") + kPdFn + "\"]");
  AddLayer(kLayer, "v2_gpdpa", ExtensionScenario() + ", \"physdev_next_at_create\": true");
  ProbeResult r = RunProbe(s_, {"create-instance:layers=" + std::string(kLayer), "devices",
                                "call-unknown-physdev:" + std::string(kPdFn) + ",9", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Json call = r.Step("call-unknown-physdev");
  ASSERT_TRUE(call["non_null"].boolean()) << r.Describe();
  EXPECT_EQ(call["returned"].num(), 20009) << "the layer's next pointer from vkCreateInstance was NULL\n"
                                           << r.Describe();
  std::vector<Json> recs = Records(kLayer, kPdFn);
  ASSERT_EQ(recs.size(), 1u) << "the call skipped the layer\n" << r.Describe();
  EXPECT_TRUE(recs[0]["called_down"].boolean()) << recs[0].dump();
  EXPECT_EQ(s_.CallsTo("drv", kPdFn).size(), 1u) << r.Describe();
}

// Two such layers, both asking at creation: the upper one's next pointer is the lower layer's
// own command (its GPDPA answers it), the lower one's is the loader's terminator; the
// application's first lookup still goes through both.
TEST_F(LayerExtensions, PhysdevCommandResolvedAtCreateByTwoLayers) {
  VKT_POLICY("RULE_UNKNOWN_PHYSDEV_FUNC", "RULE_LYR_IFACE_V2");
  const char kLower[] = "VK_LAYER_MOCK_ext_impl_lower";
  AddDriver(std::string("\"physdev_functions\": [\"") + kPdFn + "\"]");
  AddLayer(kLayer, "v2_gpdpa", ExtensionScenario() + ", \"physdev_next_at_create\": true");
  AddLayer(kLower, "v2_gpdpa", ExtensionScenario() + ", \"physdev_next_at_create\": true");
  ProbeResult r = RunProbe(
      s_, {"create-instance:layers=" + std::string(kLayer) + "," + kLower, "devices", "gipa:" + std::string(kPdFn),
           "call-unknown-physdev:" + std::string(kPdFn) + ",4", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Json call = r.Step("call-unknown-physdev");
  ASSERT_TRUE(call["non_null"].boolean()) << r.Describe();
  EXPECT_EQ(call["returned"].num(), 20004) << r.Describe();
  for (const char* layer : {kLayer, kLower}) {
    std::vector<Json> recs = Records(layer, kPdFn);
    ASSERT_EQ(recs.size(), 1u) << layer << " did not see the call\n" << r.Describe();
    EXPECT_TRUE(recs[0]["called_down"].boolean()) << recs[0].dump();
  }
  EXPECT_EQ(s_.CallsTo("drv", kPdFn).size(), 1u) << r.Describe();
}

// Only the layer implements the command: the loader's bottom GPDPA does not claim it (no driver
// has it), so the layer answers itself instead of calling into the loader's "not supported" stub.
TEST_F(LayerExtensions, PhysdevCommandOnlyTheLayerHas) {
  VKT_POLICY("RULE_UNKNOWN_PHYSDEV_FUNC", "RULE_LYR_IFACE_V2");
  AddDriver();
  AddLayer();
  ProbeResult r = RunProbe(s_, {"create-instance:layers=" + std::string(kLayer), "devices",
                                "call-unknown-physdev:" + std::string(kPdFn) + ",6", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Json call = r.Step("call-unknown-physdev");
  ASSERT_TRUE(call["non_null"].boolean()) << r.Describe();
  EXPECT_EQ(call["returned"].num(), 40006) << r.Describe();
  std::vector<Json> recs = Records(kLayer, kPdFn);
  ASSERT_EQ(recs.size(), 1u) << r.Describe();
  EXPECT_FALSE(recs[0]["called_down"].boolean(true)) << recs[0].dump();
}

// A layer of interface 1 (no GPDPA) beside the interface-2 one, above and below it: unknown
// physical-device commands never go through it (the loader can only find them through a GPDPA,
// and skips it in the pfnNextGetPhysicalDeviceProcAddr links); the GPDPA layer and the driver
// still see the call.
TEST_F(LayerExtensions, InterfaceOneLayerBesideIsBypassed) {
  VKT_POLICY("RULE_UNKNOWN_PHYSDEV_FUNC", "RULE_LYR_IFACE_V1", "RULE_LYR_IFACE_V2", "LLP_LOADER_8");
  const char kOld[] = "VK_LAYER_MOCK_ext_v1";
  AddDriver(std::string("\"physdev_functions\": [\"") + kPdFn + "\"]");
  AddLayer();
  AddLayer(kOld, "v1", std::string("\"physdev_functions\": [\"") + kPdFn + "\"]");
  for (bool old_on_top : {true, false}) {
    SCOPED_TRACE(old_on_top ? "interface-1 layer closest to the application" : "interface-1 layer below");
    std::remove(s_.LayerCallsFile().c_str());
    std::remove(s_.driver("drv").calls.c_str());
    std::string layers = old_on_top ? std::string(kOld) + "," + kLayer : std::string(kLayer) + "," + kOld;
    ProbeResult r = RunProbe(s_, {"create-instance:layers=" + layers, "devices",
                                  "call-unknown-physdev:" + std::string(kPdFn) + ",3", "destroy-instance"});
    ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
    V chain = s_.LayerCallOrder("vkCreateInstance");
    EXPECT_EQ(chain, old_on_top ? (V{kOld, kLayer}) : (V{kLayer, kOld})) << r.Describe();
    Json call = r.Step("call-unknown-physdev");
    ASSERT_TRUE(call["non_null"].boolean()) << r.Describe();
    EXPECT_EQ(call["returned"].num(), 20003) << r.Describe();
    EXPECT_EQ(Records(kLayer, kPdFn).size(), 1u) << r.Describe();
    EXPECT_TRUE(Records(kOld, kPdFn).empty()) << r.Describe();
    EXPECT_EQ(s_.CallsTo("drv", kPdFn).size(), 1u) << r.Describe();
  }
}

// ---- unknown device commands through vkGetInstanceProcAddr, without manifest entry points -------

// vkGetInstanceProcAddr of a device command the loader does not know gives a trampoline whenever
// something below can answer it, before any device exists; the trampoline is resolved per device
// when the device is created. Two such names with a plain layer active and no manifest listing
// either in device_extensions entrypoints: kLayerOnly, which only the layer implements (its
// vkGetInstanceProcAddr answers it), and kDriverOnly, which only the driver implements. Both work
// through the vkGetInstanceProcAddr pointer fetched before vkCreateDevice; the layer's command
// reaches the layer (nothing below it), the driver's goes through the layer's chain to the driver
// with the driver's own VkDevice.
TEST_F(LayerExtensions, UnknownDeviceCommandsThroughGipaWithoutManifestEntrypoints) {
  VKT_POLICY("RULE_UNKNOWN_DEVICE_FUNC", "LLP_LOADER_9");
  const char kLayerOnly[] = "vkMockLayerOnlyUnlistedEXT";
  const char kDriverOnly[] = "vkMockDriverOnlyUnlistedEXT";
  AddDriver(std::string("\"device_functions\": [\"") + kDriverOnly + "\"]");
  AddMockLayer(s_, kLayer, false, Location::kXdgDataDirs, "v2_gpdpa", "",
               std::string("\"device_functions\": [\"") + kLayerOnly + "\"]");
  ProbeResult r =
      RunProbe(s_, {"create-instance:layers=" + std::string(kLayer), "devices", "gipa:" + std::string(kLayerOnly),
                    "gipa:" + std::string(kDriverOnly), "gipa:vkMockNobodyHasThisEXT", "create-device:0",
                    "call-unknown-device:" + std::string(kLayerOnly) + ",5,gipa",
                    "call-unknown-device:" + std::string(kDriverOnly) + ",6,gipa",
                    "call-unknown-device:" + std::string(kLayerOnly) + ",7", "destroy-device", "destroy-instance"});
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  std::vector<Json> gipa = r.Steps("gipa");
  ASSERT_EQ(gipa.size(), 3u) << r.Describe();
  EXPECT_TRUE(gipa[0]["non_null"].boolean()) << "a device command only the layer implements\n" << r.Describe();
  EXPECT_TRUE(gipa[1]["non_null"].boolean()) << "a device command only the driver implements\n" << r.Describe();
  EXPECT_FALSE(gipa[2]["non_null"].boolean(true)) << "nobody implements it\n" << r.Describe();
  ASSERT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  std::vector<Json> calls = r.Steps("call-unknown-device");
  ASSERT_EQ(calls.size(), 3u) << r.Describe();
  for (const Json& c : calls) EXPECT_TRUE(c["non_null"].boolean()) << c.dump() << "\n" << r.Describe();
  EXPECT_EQ(calls[0]["returned"].num(), 30005) << "the layer answers its own command\n" << r.Describe();
  EXPECT_EQ(calls[1]["returned"].num(), 10006) << "the driver's pool slot 0 answers\n" << r.Describe();
  EXPECT_EQ(calls[2]["returned"].num(), 30007) << r.Describe();
  std::vector<Json> recs = Records(kLayer, kLayerOnly);
  ASSERT_EQ(recs.size(), 2u) << r.Describe();
  for (const Json& j : recs) EXPECT_FALSE(j["called_down"].boolean(true)) << j.dump();
  std::vector<Json> drv = s_.CallsTo("drv", kDriverOnly);
  ASSERT_EQ(drv.size(), 1u) << r.Describe();
  EXPECT_EQ(drv[0]["handle"].str(), "device") << drv[0].dump();
  EXPECT_TRUE(s_.CallsTo("drv", kLayerOnly).empty()) << r.Describe();
  EXPECT_TRUE(s_.CallsTo("drv", "invalid_handle").empty()) << r.Describe();
}

}  // namespace
}  // namespace vkt
