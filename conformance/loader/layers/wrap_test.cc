// Handle-wrapping layers (LLP_LAYER_10): a mock layer with "wrap_handles" returns its own
// VkPhysicalDevice and VkDevice objects (first word set through the loader-data callbacks,
// LLP_LAYER_19) and unwraps them before calling down. Alone and stacked with a non-wrapping layer,
// over two drivers: devices enumerate, properties and groups are queried, a device is created on
// each driver, a device-level command reaches the driver with the driver's own handle, and
// everything is destroyed (LeakSanitizer-clean under --config=asan). Also LLP_LAYER_14: the
// application's allocation callbacks reach every layer's vkCreateInstance and vkCreateDevice.
#include <cstdio>
#include <string>
#include <vector>

#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

using V = std::vector<std::string>;

const char kFn[] = "vkMockWrapProbeFn";  // served by the drivers' unknown-function slot 0
const char kWrap[] = "VK_LAYER_MOCK_wrap";
const char kPlain[] = "VK_LAYER_MOCK_plain";

class WrappingLayer : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string fns = std::string("\"device_functions\":[\"") + kFn + "\"]";
    AddNamedDriver(s_, "drv1", "v7_exports", fns);
    AddNamedDriver(s_, "drv2", "v7_exports", fns);
    s_.WriteDriverManifest(Location::kXdgConfigHome, "drv1");
    s_.WriteDriverManifest(Location::kXdgConfigHome, "drv2");
  }
  void AddLayer(const std::string& name, bool wrap) {
    std::string members = std::string("\"device_functions\": [\"") + kFn + "\"]";
    if (wrap) members += ", \"wrap_handles\": true";
    AddMockLayer(s_, name, false, Location::kXdgDataDirs, "v2_gpdpa", "", members);
  }
  // The whole life cycle on both drivers with `layers` enabled (application order). The unknown
  // command is first resolved through vkGetInstanceProcAddr after the first device exists (the loader
  // fills that device's slot then), then through vkGetDeviceProcAddr.
  ProbeResult RunAll(const std::string& layers, const std::string& more_opts = "") {
    std::string opts = "layers=" + layers + (more_opts.empty() ? "" : ";" + more_opts);
    return RunProbe(s_,
                    {"create-instance:" + opts, "devices", "groups", "properties2:@drv1-dev", "properties2:@drv2-dev",
                     "create-device:@drv1-dev", "call-unknown-device:" + std::string(kFn) + ",7,gipa", "destroy-device",
                     "create-device:@drv2-dev", "call-unknown-device:" + std::string(kFn) + ",9", "destroy-device",
                     "destroy-instance"});
  }
  // Records of `layer` for `call`.
  std::vector<Json> LayerRecords(const std::string& layer, const std::string& call) {
    std::vector<Json> out;
    for (const Json& j : s_.LayerCalls())
      if (j["layer"].str() == layer && j["call"].str() == call) out.push_back(j);
    return out;
  }
  // What every stacking must give: both drivers' devices usable through the wrapped handles.
  void ExpectWholeLifeCycle(const ProbeResult& r, const V& chain) {
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
    EXPECT_EQ(s_.LayerCallOrder("vkCreateInstance"), chain) << r.Describe();
    EXPECT_EQ(Sorted(r.DeviceNames()), (V{"drv1-dev", "drv2-dev"})) << r.Describe();
    // Groups hold the same (application-side) physical devices as the device list.
    Json g = r.Step("groups");
    EXPECT_EQ(g["result"].str(), "VK_SUCCESS") << r.Describe();
    // Properties through the wrapped handles come from the right driver.
    EXPECT_EQ(r.Step("properties2", 0)["name"].str(), "drv1-dev") << r.Describe();
    EXPECT_EQ(r.Step("properties2", 1)["name"].str(), "drv2-dev") << r.Describe();
    // One device per driver, each created through every layer.
    ASSERT_EQ(r.Steps("create-device").size(), 2u) << r.Describe();
    EXPECT_EQ(r.Step("create-device", 0)["result"].str(), "VK_SUCCESS") << r.Describe();
    EXPECT_EQ(r.Step("create-device", 1)["result"].str(), "VK_SUCCESS") << r.Describe();
    V twice = chain;
    twice.insert(twice.end(), chain.begin(), chain.end());
    EXPECT_EQ(s_.LayerCallOrder("vkCreateDevice"), twice) << r.Describe();
    // The device-level command went through the layers and reached each driver with the driver's
    // own VkDevice (slot 0 answers x + 10000).
    ASSERT_EQ(r.Steps("call-unknown-device").size(), 2u) << r.Describe();
    EXPECT_TRUE(r.Step("call-unknown-device", 0)["non_null"].boolean()) << r.Describe();
    EXPECT_EQ(r.Step("call-unknown-device", 0)["returned"].num(), 10007) << r.Describe();
    EXPECT_EQ(r.Step("call-unknown-device", 1)["returned"].num(), 10009) << r.Describe();
    for (const char* drv : {"drv1", "drv2"}) {
      std::vector<Json> calls = s_.CallsTo(drv, kFn);
      ASSERT_EQ(calls.size(), 1u) << drv << "\n" << r.Describe();
      EXPECT_EQ(calls[0]["handle"].str(), "device") << drv << ": " << calls[0].dump();
      std::vector<Json> destroyed = s_.CallsTo(drv, "vkDestroyDevice");
      ASSERT_EQ(destroyed.size(), 1u) << drv << "\n" << r.Describe();
      EXPECT_TRUE(destroyed[0]["valid"].boolean()) << drv << ": " << destroyed[0].dump();
      EXPECT_TRUE(s_.CallsTo(drv, "invalid_handle").empty()) << drv << " received a handle it never made\n"
                                                             << r.Describe();
      EXPECT_EQ(s_.CallsTo(drv, "vkDestroyInstance").size(), 1u) << drv;
    }
    EXPECT_EQ(s_.LayerCallOrder("vkDestroyDevice"), twice) << r.Describe();
    EXPECT_EQ(s_.LayerCallOrder("vkDestroyInstance"), chain) << r.Describe();
    // The wrapping layer saw its own objects and unwrapped them before calling down.
    for (const Json& j : LayerRecords(kWrap, "vkCreateDevice")) {
      EXPECT_TRUE(j["set_device_loader_data"].boolean()) << j.dump();
      EXPECT_TRUE(j["unwrapped_physical_device"].boolean()) << "LLP_LAYER_10: " << j.dump();
    }
    std::vector<Json> fn = LayerRecords(kWrap, kFn);
    ASSERT_EQ(fn.size(), 2u) << r.Describe();
    for (const Json& j : fn) EXPECT_TRUE(j["unwrapped"].boolean()) << "LLP_LAYER_10: " << j.dump();
    // The loader asked the wrapping layer's vkGetDeviceProcAddr only with the wrapper it returned,
    // also when it filled the unknown command's slot of the existing device (RULE_UNKNOWN_DEVICE_FUNC).
    for (const Json& j : LayerRecords(kWrap, "vkGetDeviceProcAddr"))
      ADD_FAILURE() << "vkGetDeviceProcAddr with a handle the layer never returned: " << j.dump();
  }
  Sandbox s_;
};

TEST_F(WrappingLayer, Alone) {
  VKT_POLICY("LLP_LAYER_10", "LLP_LAYER_19", "LLP_LOADER_8", "LLP_LOADER_9");
  AddLayer(kWrap, true);
  ProbeResult r = RunAll(kWrap);
  ExpectWholeLifeCycle(r, V{kWrap});
}

// The wrapping layer closest to the application: the plain layer below never sees a wrapper.
TEST_F(WrappingLayer, AboveANonWrappingLayer) {
  VKT_POLICY("LLP_LAYER_10", "LLP_LAYER_19", "LLP_LOADER_8", "LLP_LOADER_9");
  AddLayer(kWrap, true);
  AddLayer(kPlain, false);
  ProbeResult r = RunAll(std::string(kWrap) + "," + kPlain);
  ExpectWholeLifeCycle(r, V{kWrap, kPlain});
  std::vector<Json> fn = LayerRecords(kPlain, kFn);
  ASSERT_EQ(fn.size(), 2u) << r.Describe();
  for (const Json& j : fn) EXPECT_FALSE(j["unwrapped"].boolean()) << j.dump();
}

// The plain layer above passes the wrappers through; it finds its own data from them because
// their first word is the loader's dispatch pointer.
TEST_F(WrappingLayer, BelowANonWrappingLayer) {
  VKT_POLICY("LLP_LAYER_10", "LLP_LAYER_19", "LLP_LOADER_8", "LLP_LOADER_9");
  AddLayer(kPlain, false);
  AddLayer(kWrap, true);
  ProbeResult r = RunAll(std::string(kPlain) + "," + kWrap);
  ExpectWholeLifeCycle(r, V{kPlain, kWrap});
  // The plain layer's physical-device query ran (with the wrapper) before the wrapping layer's.
  EXPECT_FALSE(LayerRecords(kPlain, "vkGetPhysicalDeviceProperties").empty()) << r.Describe();
}

// A layer that replaces *pInstance with its own wrapper after its call down returned (legal:
// LLP_LAYER_21 forbids it only before calling down) and, with "wrap_handles", wraps the physical
// devices and devices too. The loader must keep working with the handle the chain returned: every
// instance command reaches the wrapping layer with its wrapper (it records "instance_unwrapped"),
// through creation, enumeration, groups, a debug-utils messenger made with
// vkCreateDebugUtilsMessengerEXT, device creation and destruction. At the top, in the middle and at
// the bottom of a chain of three.
struct InstanceWrapCase {
  const char* name;
  std::vector<std::string> chain;  // application order; kWrap is the instance-wrapping layer
  bool wrap_handles;
};

class InstanceWrappingLayer : public WrappingLayer, public ::testing::WithParamInterface<InstanceWrapCase> {};

TEST_P(InstanceWrappingLayer, LoaderDispatchesThroughTheWrapper) {
  VKT_POLICY("LLP_LAYER_21", "LLP_LAYER_10", "LLP_LOADER_8", "LLP_LOADER_9");
  const InstanceWrapCase& c = GetParam();
  std::string layers;
  std::vector<std::string> members;
  for (const std::string& l : c.chain) {
    std::string m = std::string("\"device_functions\": [\"") + kFn + "\"]";
    if (l == kWrap) m += std::string(", \"wrap_instance\": true") + (c.wrap_handles ? ", \"wrap_handles\": true" : "");
    AddMockLayer(s_, l, false, Location::kXdgDataDirs, "v2_gpdpa", "", m);
    layers += (layers.empty() ? "" : ",") + l;
  }
  ProbeResult r =
      RunProbe(s_, {"create-instance:layers=" + layers + ";ext=VK_EXT_debug_utils", "devices", "groups", "messenger",
                    "properties2:@drv1-dev", "create-device:@drv1-dev",
                    "call-unknown-device:" + std::string(kFn) + ",7,gipa", "destroy-device", "create-device:@drv2-dev",
                    "call-unknown-device:" + std::string(kFn) + ",9", "destroy-device", "destroy-instance"});
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder("vkCreateInstance"), c.chain) << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames()), (V{"drv1-dev", "drv2-dev"})) << r.Describe();
  EXPECT_EQ(r.Step("groups")["result"].str(), "VK_SUCCESS") << r.Describe();
  Json m = r.Step("messenger");
  EXPECT_TRUE(m["available"].boolean()) << r.Describe();
  EXPECT_EQ(m["create"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("properties2")["name"].str(), "drv1-dev") << r.Describe();
  EXPECT_EQ(r.Step("create-device", 0)["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("create-device", 1)["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("call-unknown-device", 0)["returned"].num(), 10007) << r.Describe();
  EXPECT_EQ(r.Step("call-unknown-device", 1)["returned"].num(), 10009) << r.Describe();
  // Every instance command reached the wrapping layer with the wrapper it returned.
  for (const char* call : {"vkEnumeratePhysicalDevices", "vkEnumeratePhysicalDeviceGroups",
                           "vkCreateDebugUtilsMessengerEXT", "vkDestroyDebugUtilsMessengerEXT", "vkDestroyInstance"}) {
    std::vector<Json> recs = LayerRecords(kWrap, call);
    ASSERT_FALSE(recs.empty()) << call << " never reached the wrapping layer\n" << r.Describe();
    for (const Json& j : recs)
      EXPECT_TRUE(j["instance_unwrapped"].boolean()) << call << " reached the layer without its wrapper: " << j.dump();
  }
  // Each layer destroyed its instance once, in chain order, and the drivers got theirs destroyed.
  EXPECT_EQ(s_.LayerCallOrder("vkDestroyInstance"), c.chain) << r.Describe();
  for (const char* drv : {"drv1", "drv2"}) {
    EXPECT_EQ(s_.CallsTo(drv, "vkDestroyInstance").size(), 1u) << drv;
    EXPECT_TRUE(s_.CallsTo(drv, "invalid_handle").empty()) << drv << " received a handle it never made\n"
                                                           << r.Describe();
  }
  // No LLP_LAYER_21 complaint: wrapping after the call down is legal.
  EXPECT_TRUE(r.LogLines("LLP_LAYER_21").empty()) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Chains, InstanceWrappingLayer,
    ::testing::Values(InstanceWrapCase{"alone", {kWrap}, false}, InstanceWrapCase{"alone_all_handles", {kWrap}, true},
                      InstanceWrapCase{"top", {kWrap, kPlain, "VK_LAYER_MOCK_plain2"}, true},
                      InstanceWrapCase{"middle", {kPlain, kWrap, "VK_LAYER_MOCK_plain2"}, true},
                      InstanceWrapCase{"bottom", {kPlain, "VK_LAYER_MOCK_plain2", kWrap}, true},
                      InstanceWrapCase{"middle_instance_only", {kPlain, kWrap, "VK_LAYER_MOCK_plain2"}, false}),
    [](const ::testing::TestParamInfo<InstanceWrapCase>& i) { return std::string(i.param.name); });

// pfnNextGetInstanceProcAddr(NULL, "vkEnumerateInstance*"), asked by a layer inside vkCreateInstance,
// gives working functions (the layer interface lets a layer call the global commands down the
// chain): the layer right above the loader, alone and below another layer (a layer above asks the
// mock layer below it, which answers only what it implements, so only the bottom one is asserted).
TEST_F(WrappingLayer, GlobalCommandsThroughTheNextGetInstanceProcAddr) {
  VKT_POLICY("LLP_LOADER_8", "RULE_LYR_PRE_INSTANCE");
  AddMockLayer(s_, kWrap, false, Location::kXdgDataDirs, "v2_gpdpa", "", "\"call_globals\": false");
  AddMockLayer(s_, kPlain, false, Location::kXdgDataDirs, "v2_gpdpa", "", "\"call_globals\": true");
  for (const std::string& layers : {std::string(kPlain), std::string(kWrap) + "," + kPlain}) {
    SCOPED_TRACE(layers);
    std::remove(s_.LayerCallsFile().c_str());
    ProbeResult r = RunProbe(s_, {"create-instance:layers=" + layers + ";api=1.1", "devices", "destroy-instance"});
    ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
    EXPECT_EQ(Sorted(r.DeviceNames()), (V{"drv1-dev", "drv2-dev"})) << r.Describe();
    std::vector<Json> recs = LayerRecords(kPlain, "call_globals");
    ASSERT_EQ(recs.size(), 1u) << r.Describe();
    const Json& j = recs[0];
    EXPECT_EQ(j["vkEnumerateInstanceExtensionProperties"].num(), 0) << j.dump();
    EXPECT_GT(j["extension_count"].num(), 0) << j.dump();
    EXPECT_TRUE(Contains(j["extensions"].strings(), "VK_EXT_debug_utils")) << j.dump();
    EXPECT_EQ(j["vkEnumerateInstanceLayerProperties"].num(), 0) << j.dump();
    EXPECT_GE(j["layer_count"].num(), 2) << j.dump();
    EXPECT_EQ(j["vkEnumerateInstanceVersion"].num(), 0) << j.dump();
    EXPECT_GE(j["version"].num(), (1 << 22) | (1 << 12)) << j.dump();
  }
}

// VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK: every layer's vkCreateInstance gets pfnLayerCreateDevice /
// pfnLayerDestroyDevice, and a layer can make a device of its own through the loader: the device
// chain of the layers below it (named by its pfnNextGetInstanceProcAddr) over the driver. The mock
// layer with "create_own_device" does so inside its vkCreateDevice, fetches a queue through the
// vkGetDeviceProcAddr the loader returns and destroys the device through pfnLayerDestroyDevice.
// At the top (the plain layer below takes part in the layer's device too) and at the bottom (no
// layer below it) of a chain of two, and alone.
class LayerCreatedDevice : public WrappingLayer {
 protected:
  static constexpr const char* kOwn = "VK_LAYER_MOCK_own";
  static constexpr const char* kOwnNext = "VK_LAYER_MOCK_own_next";  // layerGIPA: its pfnNextGetInstanceProcAddr
  void SetUp() override {
    WrappingLayer::SetUp();
    AddMockLayer(s_, kOwn, false, Location::kXdgDataDirs, "v2_gpdpa", "", "\"create_own_device\": true");
    AddMockLayer(s_, kOwnNext, false, Location::kXdgDataDirs, "v2_gpdpa", "",
                 "\"create_own_device\": true, \"own_device_next_gipa\": true");
    AddLayer(kPlain, false);
  }
  // `own` creates its own device inside vkCreateDevice with `layers` enabled (application order);
  // the plain layer sees `plain_creates` vkCreateDevice calls.
  void Check(const std::string& own, const std::string& layers, size_t plain_creates) {
    SCOPED_TRACE(layers);
    std::remove(s_.LayerCallsFile().c_str());
    for (const char* drv : {"drv1", "drv2"}) std::remove(s_.driver(drv).calls.c_str());
    ProbeResult r = RunProbe(s_, {"create-instance:layers=" + layers, "devices", "create-device:@drv1-dev",
                                  "destroy-device", "destroy-instance"});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    ASSERT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
    std::vector<Json> rec = LayerRecords(own, "own_device");
    ASSERT_EQ(rec.size(), 1u) << r.Describe();
    EXPECT_TRUE(rec[0]["callback"].boolean()) << rec[0].dump();
    EXPECT_EQ(rec[0]["result"].num(), 0) << rec[0].dump();
    EXPECT_TRUE(rec[0]["gdpa"].boolean()) << rec[0].dump();
    EXPECT_TRUE(rec[0]["queue"].boolean()) << rec[0].dump();
    EXPECT_TRUE(rec[0]["destroyed"].boolean()) << rec[0].dump();
    // The driver made and destroyed two devices: the application's and the layer's.
    EXPECT_EQ(s_.CallsTo("drv1", "vkCreateDevice").size(), 2u) << r.Describe();
    std::vector<Json> destroyed = s_.CallsTo("drv1", "vkDestroyDevice");
    ASSERT_EQ(destroyed.size(), 2u) << r.Describe();
    for (const Json& d : destroyed) EXPECT_TRUE(d["valid"].boolean()) << d.dump();
    EXPECT_TRUE(s_.CallsTo("drv1", "invalid_handle").empty()) << r.Describe();
    EXPECT_EQ(LayerRecords(kPlain, "vkCreateDevice").size(), plain_creates) << r.Describe();
  }
};

// layerGIPA is the calling layer's own vkGetInstanceProcAddr: alone, at the top (the plain layer
// below takes part in the layer's device too) and at the bottom (no layer below it).
TEST_F(LayerCreatedDevice, ThroughTheLayersBelowTheCaller) {
  VKT_POLICY("RULE_LYR_CREATE_DEVICE_CALLBACK", "LLP_LOADER_9");
  Check(kOwn, kOwn, 0);
  Check(kOwn, std::string(kOwn) + "," + kPlain, 2);
  Check(kOwn, std::string(kPlain) + "," + kOwn, 1);
}

// layerGIPA is the pfnNextGetInstanceProcAddr the caller was given (it names what lies below the
// caller just as well): the same chains.
TEST_F(LayerCreatedDevice, NamedByTheCallersNextGetInstanceProcAddr) {
  VKT_POLICY("RULE_LYR_CREATE_DEVICE_CALLBACK");
  Check(kOwnNext, std::string(kOwnNext) + "," + kPlain, 2);
  Check(kOwnNext, std::string(kPlain) + "," + kOwnNext, 1);
}

// LLP_LAYER_14: what the loader can prove is that the application's pAllocator reaches every
// layer's vkCreateInstance and vkCreateDevice (and no allocator where the application gave none).
// The wrapping mock allocates its wrappers with those callbacks: the counting allocator ends
// balanced, with no foreign frees.
TEST_F(WrappingLayer, ApplicationAllocatorReachesEveryLayer) {
  VKT_POLICY("LLP_LAYER_14");
  AddLayer(kWrap, true);
  AddLayer(kPlain, false);
  for (bool counting : {true, false}) {
    SCOPED_TRACE(counting ? "alloc=counting" : "no allocator");
    std::remove(s_.LayerCallsFile().c_str());
    for (const char* drv : {"drv1", "drv2"}) std::remove(s_.driver(drv).calls.c_str());
    ProbeResult r = RunAll(std::string(kPlain) + "," + kWrap, counting ? "alloc=counting" : "");
    ExpectWholeLifeCycle(r, V{kPlain, kWrap});
    for (const char* layer : {kPlain, kWrap}) {
      for (const char* call : {"vkCreateInstance", "vkCreateDevice"}) {
        std::vector<Json> recs = LayerRecords(layer, call);
        ASSERT_FALSE(recs.empty()) << layer << " " << call;
        for (const Json& j : recs) EXPECT_EQ(j["allocator"].boolean(), counting) << layer << ": " << j.dump();
      }
    }
    if (counting) {
      Json a = r.Alloc();
      EXPECT_TRUE(a["used"].boolean()) << r.Describe();
      EXPECT_EQ(a["outstanding"].num(), 0) << r.Describe();
      EXPECT_EQ(a["bad_frees"].num(), 0) << r.Describe();
    }
  }
}

// A non-dispatchable handle: a layer with "wrap_command_pools" gives the application its own
// VkCommandPool handles. Command buffers still come from the driver's pool (the mock driver refuses
// a pool it never made), the loader's dispatch pointer lands in them, and every pool command
// reached the layer with its wrapper and went down unwrapped. Alone, and below a plain layer that
// passes the wrapped handles through. (Not with the VkDevice-wrapping mock: it offers no device
// command it cannot unwrap, so command pools are out of reach with it.)
TEST_F(WrappingLayer, CommandPoolsWrapped) {
  VKT_POLICY("LLP_LAYER_10", "RULE_DRV_DISPATCHABLE_OBJECT");
  const char kPools[] = "VK_LAYER_MOCK_pools";
  AddMockLayer(s_, kPools, false, Location::kXdgDataDirs, "v2_gpdpa", "", "\"wrap_command_pools\": true");
  AddLayer(kPlain, false);
  for (bool stacked : {false, true}) {
    SCOPED_TRACE(stacked ? "below a plain layer" : "alone");
    std::remove(s_.LayerCallsFile().c_str());
    std::string layers = stacked ? std::string(kPlain) + "," + kPools : std::string(kPools);
    ProbeResult r = RunProbe(s_, {"create-instance:layers=" + layers, "devices", "create-device:@drv1-dev",
                                  "dispatch-words", "destroy-device", "destroy-instance"});
    ASSERT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
    Json w = r.Step("dispatch-words");
    ASSERT_TRUE(w["command_buffer"].boolean()) << "allocation from the wrapped pool failed\n"
                                               << ReadFileText(s_.LayerCallsFile()) << r.Describe();
    EXPECT_TRUE(w["command_buffer_same_as_device"].boolean()) << w.dump();
    std::vector<Json> created = LayerRecords(kPools, "vkCreateCommandPool");
    ASSERT_EQ(created.size(), 1u) << r.Describe();
    EXPECT_TRUE(created[0]["wrapped"].boolean()) << created[0].dump();
    for (const char* call : {"vkAllocateCommandBuffers", "vkFreeCommandBuffers", "vkDestroyCommandPool"}) {
      std::vector<Json> recs = LayerRecords(kPools, call);
      ASSERT_EQ(recs.size(), 1u) << call << "\n" << r.Describe();
      EXPECT_TRUE(recs[0]["unwrapped"].boolean()) << call << ": " << recs[0].dump();
    }
    EXPECT_TRUE(s_.CallsTo("drv1", "invalid_handle").empty()) << r.Describe();
  }
}

// Dispatchable handles below the VkDevice: the wrapping layer also gives the application its own
// VkQueue (vkGetDeviceQueue, vkGetDeviceQueue2: the same wrapper both times) and VkCommandBuffer
// objects. Like a driver's objects, their first word is reserved (ICD_LOADER_MAGIC) and the
// loader's vkGetDeviceQueue(2) / vkAllocateCommandBuffers trampolines write the device's dispatch
// pointer there (RULE_DRV_DISPATCHABLE_OBJECT, LLP_LAYER_19: the objects reach the application
// through the trampolines, so the loader sets them up). Begin / vkCmdFillBuffer / end / submit /
// free then reach the layer with its wrappers (it checks the loader's word in each) and the driver
// with its own queue and command buffers (LLP_LAYER_10) -- through the loader's vkGetDeviceProcAddr
// and through its exported trampolines, which dispatch on that first word. Alone, and below a plain
// layer that passes the wrappers through.
TEST_F(WrappingLayer, QueuesAndCommandBuffersWrapped) {
  VKT_POLICY("LLP_LAYER_10", "LLP_LAYER_19", "RULE_DRV_DISPATCHABLE_OBJECT", "LLP_LOADER_9");
  AddLayer(kWrap, true);
  AddLayer(kPlain, false);
  for (bool stacked : {false, true}) {
    SCOPED_TRACE(stacked ? "below a plain layer" : "alone");
    std::remove(s_.LayerCallsFile().c_str());
    std::remove(s_.driver("drv1").calls.c_str());
    std::string layers = stacked ? std::string(kPlain) + "," + kWrap : std::string(kWrap);
    // apiVersion 1.1: vkGetDeviceQueue2 is core 1.1, and vkGetDeviceProcAddr answers NULL for core
    // commands newer than the device's version.
    ProbeResult r = RunProbe(s_, {"create-instance:layers=" + layers + ";api=1.1", "devices", "create-device:@drv1-dev",
                                  "command-buffers", "command-buffers:export", "destroy-device", "destroy-instance"});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    ASSERT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
    std::vector<Json> steps = r.Steps("command-buffers");
    ASSERT_EQ(steps.size(), 2u) << r.Describe();
    for (const Json& w : steps) {
      SCOPED_TRACE(w["via"].str());
      ASSERT_TRUE(w["queue"].boolean()) << w.dump();
      EXPECT_TRUE(w["queue_dispatch_same_as_device"].boolean()) << "the loader's word is not in the queue\n"
                                                                << w.dump();
      EXPECT_TRUE(w["queue2"].boolean()) << w.dump();
      EXPECT_TRUE(w["queue2_same_as_queue"].boolean()) << w.dump();
      ASSERT_TRUE(w["commands"].boolean()) << w.dump();
      EXPECT_EQ(w["create_pool"].str(), "VK_SUCCESS") << w.dump();
      ASSERT_EQ(w["allocate"].str(), "VK_SUCCESS") << w.dump();
      EXPECT_TRUE(w["command_buffer_dispatch_same_as_device"].boolean()) << w.dump();
      EXPECT_EQ(w["begin"].str(), "VK_SUCCESS") << w.dump();
      EXPECT_EQ(w["end"].str(), "VK_SUCCESS") << w.dump();
      EXPECT_EQ(w["submit"].str(), "VK_SUCCESS") << w.dump();
    }
    // The driver saw only its own queue and command buffers: 2 steps x 2 command buffers.
    for (const char* call : {"vkBeginCommandBuffer", "vkCmdFillBuffer", "vkEndCommandBuffer"}) {
      std::vector<Json> calls = s_.CallsTo("drv1", call);
      ASSERT_EQ(calls.size(), 4u) << call << "\n" << r.Describe();
      for (const Json& c : calls) EXPECT_TRUE(c["valid"].boolean()) << call << ": " << c.dump();
    }
    std::vector<Json> submits = s_.CallsTo("drv1", "vkQueueSubmit");
    ASSERT_EQ(submits.size(), 2u) << r.Describe();
    for (const Json& c : submits) {
      EXPECT_TRUE(c["valid"].boolean()) << "the driver got a queue it never made: " << c.dump();
      EXPECT_EQ(c["command_buffers"].num(), 2) << c.dump();
      EXPECT_TRUE(c["command_buffers_valid"].boolean()) << c.dump();
    }
    EXPECT_TRUE(s_.CallsTo("drv1", "invalid_handle").empty()) << "the driver received a handle it never made\n"
                                                              << r.Describe();
    // The layer handed out wrappers, got them back with the loader's word in them, and unwrapped them.
    for (const char* call : {"vkGetDeviceQueue", "vkGetDeviceQueue2"}) {
      std::vector<Json> recs = LayerRecords(kWrap, call);
      ASSERT_EQ(recs.size(), 2u) << call << "\n" << r.Describe();
      for (const Json& j : recs) {
        EXPECT_TRUE(j["device_unwrapped"].boolean()) << call << ": " << j.dump();
        EXPECT_TRUE(j["wrapped"].boolean()) << call << ": " << j.dump();
      }
    }
    std::vector<Json> allocs = LayerRecords(kWrap, "vkAllocateCommandBuffers");
    ASSERT_EQ(allocs.size(), 2u) << r.Describe();
    for (const Json& j : allocs) {
      EXPECT_TRUE(j["device_unwrapped"].boolean()) << j.dump();
      EXPECT_EQ(j["wrapped"].num(), 2) << j.dump();
    }
    for (const char* call : {"vkBeginCommandBuffer", "vkCmdFillBuffer", "vkEndCommandBuffer", "vkQueueSubmit"}) {
      std::vector<Json> recs = LayerRecords(kWrap, call);
      ASSERT_EQ(recs.size(), std::string(call) == "vkQueueSubmit" ? 2u : 4u) << call << "\n" << r.Describe();
      for (const Json& j : recs) {
        EXPECT_TRUE(j["unwrapped"].boolean()) << call << ": " << j.dump();
        EXPECT_TRUE(j["loader_word"].boolean()) << call << ": the loader did not set the wrapper's first word\n"
                                                << j.dump();
        if (std::string(call) == "vkQueueSubmit") {
          EXPECT_TRUE(j["command_buffers_unwrapped"].boolean()) << j.dump();
        }
      }
    }
    std::vector<Json> frees = LayerRecords(kWrap, "vkFreeCommandBuffers");
    ASSERT_EQ(frees.size(), 2u) << r.Describe();
    for (const Json& j : frees) EXPECT_TRUE(j["command_buffers_unwrapped"].boolean()) << j.dump();
    // The plain layer above never had to know: it intercepts none of these.
    EXPECT_TRUE(LayerRecords(kPlain, "vkQueueSubmit").empty()) << r.Describe();
  }
}

}  // namespace
}  // namespace vkt
