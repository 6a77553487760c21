// Physical devices across drivers, groups, properties2 emulation, GIPA/GDPA and unknown functions.
#include <algorithm>
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

std::string FunctionList(const char* key, const std::string& prefix, int n) {
  std::string s = std::string("\"") + key + "\":[";
  for (int i = 0; i < n; ++i) s += (i ? ",\"" : "\"") + prefix + std::to_string(i) + "\"";
  return s + "]";
}

constexpr char kNoDevices[] = "{\"physical_devices\":[]}";

// Driver `name` (`variant`, whole `scenario`) with its manifest in XDG_CONFIG_HOME.
void AddScenarioDriver(Sandbox& s, const std::string& name, const std::string& variant, const std::string& scenario) {
  s.AddDriver(name, variant, scenario);
  s.WriteDriverManifest(Location::kXdgConfigHome, name);
}

// Driver `name` (device "<name>-dev", `extra` spliced into its scenario) with its manifest.
void AddDriver(Sandbox& s, const std::string& name, const std::string& extra = "") {
  AddScenarioDriver(s, name, "v7_exports", DeviceScenario({name + "-dev"}, extra));
}

// Driver "bad" (`bad_extra` spliced into its scenario) beside a driver "good"; the probe runs `steps`.
// The probe is stopped after 30 s (exit 137): a loader that hangs on the bad driver fails the test
// with its output instead of running into the test's own time limit.
ProbeResult RunBesideGoodDriver(const std::string& bad_extra, const std::vector<std::string>& steps = {
                                                                  "create-instance", "devices", "destroy-instance"}) {
  Sandbox s;
  AddDriver(s, "bad", bad_extra);
  AddDriver(s, "good");
  ProbeOptions o;
  o.timeout_seconds = 30;
  return RunProbe(s, steps, o);
}

// A Vulkan 1.0 driver `name` (interface 4, whole `scenario`; manifest api_version 1.0.0).
void AddApi10Driver(Sandbox& s, const std::string& name, const std::string& scenario) {
  s.AddDriver(name, "v4", scenario);
  ManifestSpec m = s.ManifestFor(name);
  m.api_version = "1.0.0";
  s.WriteManifest(Location::kXdgConfigHome, name + ".json", m.ToJson());
}

TEST(PhysicalDevices, AggregatedAcrossDrivers) {
  VKT_POLICY("RULE_PHYSDEV_AGGREGATE", "LDP_LOADER_2");
  Sandbox s;
  AddScenarioDriver(s, "a", "v7_exports", DeviceScenario({"a0", "a1"}));
  AddScenarioDriver(s, "b", "v5", DeviceScenario({"b0"}));
  AddScenarioDriver(s, "c", "v7_exports", kNoDevices);
  ProbeResult r = RunProbe(s, {"create-instance:api=1.1", "devices", "groups"});
  Json d = r.Step("devices");
  EXPECT_EQ(d["reported_count"].num(), 3) << r.Describe();
  EXPECT_EQ(d["incomplete_result"].str(), "VK_INCOMPLETE") << r.Describe();
  EXPECT_EQ(d["incomplete_count"].num(), 2) << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"a0", "a1", "b0"})) << r.Describe();
  Json g = r.Step("groups");
  EXPECT_EQ(g["result"].str(), "VK_SUCCESS") << r.Describe();
  size_t members = 0;
  for (size_t i = 0; i < g["groups"].size(); ++i) {
    members += g["groups"][i].size();
    for (size_t j = 0; j < g["groups"][i].size(); ++j) EXPECT_GE(g["groups"][i][j].num(), 0);
  }
  EXPECT_EQ(members, 3u) << r.Describe();
}

TEST(PhysicalDevices, FailingDriverDoesNotHideOthers) {
  VKT_POLICY("LDP_DRIVER_1", "RULE_PHYSDEV_AGGREGATE");
  ProbeResult r = RunBesideGoodDriver("\"results\":{\"vkCreateInstance\":\"VK_ERROR_INITIALIZATION_FAILED\"}");
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
}

TEST(PhysicalDevices, DriverFailingEnumerationDoesNotHideOthers) {
  VKT_POLICY("LDP_DRIVER_1", "RULE_PHYSDEV_AGGREGATE");
  ProbeResult r = RunBesideGoodDriver("\"misbehave\":{\"fail_enumerate_physical_devices\":true}");
  EXPECT_EQ(r.Step("devices")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
}

// Found by loader_diff_fuzzer (docs/fuzzing.md "Differential fuzzing"): a driver whose
// vkEnumerateInstanceExtensionProperties fails is a driver without instance extensions; the
// global enumeration, vkCreateInstance and the other drivers' devices go on without it.
TEST(PhysicalDevices, DriverFailingInstanceExtensionQueryDoesNotHideOthers) {
  VKT_POLICY("RULE_INST_EXT_AGGREGATE", "RULE_PHYSDEV_AGGREGATE");
  ProbeResult r =
      RunBesideGoodDriver("\"results\":{\"vkEnumerateInstanceExtensionProperties\":\"VK_ERROR_INCOMPATIBLE_DRIVER\"}",
                          {"instance-extensions", "create-instance", "devices", "destroy-instance"});
  EXPECT_EQ(r.Step("instance-extensions")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Names d = r.DeviceNames();
  EXPECT_NE(std::find(d.begin(), d.end(), "good-dev"), d.end()) << r.Describe();
}

// Found by loader_diff_fuzzer (fuzz/crashes/loader_diff_fuzzer/khronos_segv_driver_groups_fail): one
// driver's vkEnumeratePhysicalDeviceGroups fails while a Vulkan 1.3 application enumerates devices.
// Its devices stay (one group per device) and the other driver's are there; nothing crashes.
TEST(PhysicalDevices, DriverFailingGroupQueryDoesNotCrashOrHideDevices) {
  VKT_POLICY("LDP_DRIVER_1", "RULE_PHYSDEV_AGGREGATE");
  ProbeResult r =
      RunBesideGoodDriver("\"results\":{\"vkEnumeratePhysicalDeviceGroups\":\"VK_ERROR_OUT_OF_DEVICE_MEMORY\"}",
                          {"create-instance:api=1.3", "devices", "groups", "destroy-instance"});
  ASSERT_EQ(r.exit_status, 0) << "the process crashed\n" << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Names d = r.DeviceNames();
  std::sort(d.begin(), d.end());
  EXPECT_EQ(d, (Names{"bad-dev", "good-dev"})) << r.Describe();
  EXPECT_EQ(r.Step("groups")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("groups")["count"].num(), 2) << r.Describe();
}

// Found by loader_world_fuzzer (fuzz/regressions/loader_world_fuzzer/physdev_groups_overflow_*):
// a driver whose vkEnumeratePhysicalDevices fails still answers vkEnumeratePhysicalDeviceGroups.
// Its groups name devices the application never saw, so they must not be reported, and the
// one-group-per-device groups of a 1.0 driver beside it must all be there (our loader once wrote
// them past the end of its array).
TEST(PhysicalDevices, GroupsFromDriverWhoseDeviceEnumerationFailed) {
  VKT_POLICY("LDP_DRIVER_1", "RULE_PHYSDEV_AGGREGATE");
  Sandbox s;
  AddScenarioDriver(s, "bad", "v7_exports",
                    "{\"results\":{\"vkEnumeratePhysicalDevices\":\"VK_ERROR_INITIALIZATION_FAILED\"},"
                    "\"physical_devices\":[{\"name\":\"bad0\"},{\"name\":\"bad1\"},{\"name\":\"bad2\"}]}");
  AddApi10Driver(s, "old",
                 "{\"api_version\":\"1.0.0\",\"expose_enumerate_instance_version\":false,"
                 "\"instance_extensions\":[],\"physical_devices\":[{\"name\":\"old0\",\"api_version\":\"1.0.0\"},"
                 "{\"name\":\"old1\",\"api_version\":\"1.0.0\"}]}");
  ProbeResult r = RunProbe(s, {"create-instance:api=1.1", "devices", "groups", "destroy-instance"});
  ASSERT_EQ(r.exit_status, 0) << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"old0", "old1"})) << r.Describe();
  Json g = r.Step("groups");
  EXPECT_EQ(g["result"].str(), "VK_SUCCESS") << r.Describe();
  ASSERT_EQ(g["groups"].size(), 2u) << r.Describe();
  for (size_t i = 0; i < g["groups"].size(); ++i) {
    ASSERT_EQ(g["groups"][i].size(), 1u) << r.Describe();
    EXPECT_GE(g["groups"][i][0].num(), 0) << "a group member is not one of the enumerated devices\n" << r.Describe();
  }
}

TEST(PhysicalDevices, ZeroDeviceDriverHarmless) {
  VKT_POLICY("LDP_DRIVER_2", "RULE_PHYSDEV_AGGREGATE", "RULE_DRV_ZERO_DEVICE_UNLOAD");
  Sandbox s;
  AddScenarioDriver(s, "empty", "v7_exports", kNoDevices);
  AddDriver(s, "good");
  ProbeResult r = RunProbe(s, {"create-instance:api=1.1", "devices", "groups", "destroy-instance"});
  EXPECT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
  EXPECT_EQ(r.exit_status, 0);
}

// LDP_LOADER_8: vkGetPhysicalDeviceProperties2 works on a device whose 1.0 driver lacks
// VK_KHR_get_physical_device_properties2 (the loader emulates it).
TEST(PhysicalDevices, Properties2EmulatedForDriverLackingIt) {
  VKT_POLICY("LDP_LOADER_8", "LDP_LOADER_9");
  Sandbox s;
  AddApi10Driver(s, "old",
                 "{\"api_version\":\"1.0.0\",\"expose_enumerate_instance_version\":false,"
                 "\"instance_extensions\":[],\"physical_devices\":[{\"name\":\"old-dev\","
                 "\"api_version\":\"1.0.0\",\"device_type\":\"cpu\"}]}");
  AddDriver(s, "new");
  ProbeResult r = RunProbe(
      s, {"create-instance:ext=VK_KHR_get_physical_device_properties2", "devices", "properties2:0", "properties2:1"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Names names = r.DeviceNames();
  ASSERT_EQ(names.size(), 2u) << r.Describe();
  for (size_t i = 0; i < 2; ++i) {
    Json p = r.Step("properties2", i);
    EXPECT_FALSE(p.has("error")) << r.Describe();
    EXPECT_EQ(p["name"].str(), names[i]) << r.Describe();
  }
  std::vector<Json> ci = s.CallsTo("old", "vkCreateInstance");
  ASSERT_FALSE(ci.empty());
  EXPECT_EQ(ci[0]["extensions"].size(), 0u) << ci[0].dump();
}

TEST(PhysicalDevices, Properties2WithDriverProperties) {
  VKT_POLICY("RULE_PHYSDEV_AGGREGATE");
  Sandbox s;
  AddDriver(s, "a");
  ProbeResult r = RunProbe(s, {"create-instance:api=1.2", "devices", "properties2:0"});
  Json p = r.Step("properties2");
  EXPECT_EQ(p["function"].str(), "vkGetPhysicalDeviceProperties2") << r.Describe();
  EXPECT_EQ(p["name"].str(), "a-dev") << r.Describe();
}

// LDP_LOADER_8, as the Khronos loader decides: an application that asked for Vulkan 1.0 and did not
// enable VK_KHR_get_physical_device_properties2 gets vkGetPhysicalDeviceProperties2 answered from
// the driver's 1.0 query (its pNext chain untouched, "Emulating call in ICD" logged), also from a
// driver that has the query; asking for Vulkan 1.1 or enabling the extension reaches the driver.
TEST(PhysicalDevices, Properties2ForAVulkan10ApplicationIsEmulated) {
  VKT_POLICY("LDP_LOADER_8");
  Sandbox s;
  AddDriver(s, "a");
  ProbeResult old = RunProbe(s, {"create-instance", "devices", "properties2:0", "destroy-instance"});
  ASSERT_EQ(CreateResult(old), "VK_SUCCESS") << old.Describe();
  EXPECT_EQ(old.Step("properties2")["name"].str(), "a-dev") << old.Describe();
  EXPECT_EQ(old.Step("properties2")["driver_name"].str(), "") << old.Describe();
  EXPECT_FALSE(old.LogLines("Emulating call in ICD").empty()) << old.Describe();
  for (const std::string opts :
       {"create-instance:api=1.1", "create-instance:ext=VK_KHR_get_physical_device_properties2"}) {
    ProbeResult r = RunProbe(s, {opts, "devices", "properties2:0", "destroy-instance"});
    ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
    EXPECT_EQ(r.Step("properties2")["driver_name"].str(), "Mock ICD") << opts << r.Describe();
    EXPECT_TRUE(r.LogLines("Emulating call in ICD").empty()) << opts << r.Describe();
  }
}

// LDP_LOADER_8, the external-handle capability queries: a Vulkan 1.0 application that enabled none
// of the VK_KHR_external_*_capabilities extensions is told nothing is importable or exportable
// (zeroed features, "Emulating call in ICD"); a 1.1 application gets the driver's answer.
TEST(PhysicalDevices, ExternalQueriesForAVulkan10ApplicationAreEmulated) {
  VKT_POLICY("LDP_LOADER_8");
  Sandbox s;
  AddDriver(s, "a");
  ProbeResult old = RunProbe(s, {"create-instance", "devices", "external-queries:0", "destroy-instance"});
  ASSERT_EQ(CreateResult(old), "VK_SUCCESS") << old.Describe();
  Json e = old.Step("external-queries");
  EXPECT_FALSE(e.has("error")) << old.Describe();
  EXPECT_EQ(e["buffer_features"].num(), 0) << old.Describe();
  EXPECT_EQ(e["buffer_compatible"].num(), 0) << old.Describe();
  EXPECT_EQ(e["semaphore_features"].num(), 0) << old.Describe();
  EXPECT_EQ(e["fence_features"].num(), 0) << old.Describe();
  EXPECT_GE(old.LogLines("Emulating call in ICD").size(), 3u) << old.Describe();
  ProbeResult r = RunProbe(s, {"create-instance:api=1.1", "devices", "external-queries:0", "destroy-instance"});
  Json d = r.Step("external-queries");
  // the mock driver: the handle type asked about (opaque fd, 0x1) is exportable and importable
  EXPECT_EQ(d["buffer_features"].num(), 0x2 | 0x4) << r.Describe();  // VK_EXTERNAL_MEMORY_FEATURE_*
  EXPECT_EQ(d["buffer_compatible"].num(), 0x1) << r.Describe();
  EXPECT_EQ(d["semaphore_features"].num(), 0x1 | 0x2) << r.Describe();  // VK_EXTERNAL_SEMAPHORE_FEATURE_*
  EXPECT_EQ(d["fence_features"].num(), 0x1 | 0x2) << r.Describe();      // VK_EXTERNAL_FENCE_FEATURE_*
  EXPECT_TRUE(r.LogLines("Emulating call in ICD").empty()) << r.Describe();
}

// ---- vkGetInstanceProcAddr / vkGetDeviceProcAddr -------------------------------------------------

TEST(ProcAddr, GipaNullInstanceGivesOnlyGlobals) {
  VKT_POLICY("RULE_GIPA_SPEC");
  Sandbox s;
  AddDriver(s, "a");
  std::vector<std::string> steps;
  const std::vector<std::string> globals = {"vkGetInstanceProcAddr", "vkCreateInstance",
                                            "vkEnumerateInstanceExtensionProperties",
                                            "vkEnumerateInstanceLayerProperties", "vkEnumerateInstanceVersion"};
  const std::vector<std::string> others = {"vkEnumeratePhysicalDevices", "vkCreateDevice", "vkDestroyInstance",
                                           "vkCmdDraw", "vkVktNoSuchFunction"};
  for (const auto& n : globals) steps.push_back("gipa-null:" + n);
  for (const auto& n : others) steps.push_back("gipa-null:" + n);
  ProbeResult r = RunProbe(s, steps);
  size_t i = 0;
  for (const auto& n : globals) EXPECT_TRUE(r.Step("gipa-null", i++)["non_null"].boolean()) << n;
  for (const auto& n : others) EXPECT_FALSE(r.Step("gipa-null", i++)["non_null"].boolean()) << n;
}

TEST(ProcAddr, GipaWithInstanceGivesInstanceAndDeviceCommands) {
  VKT_POLICY("RULE_GIPA_SPEC");
  Sandbox s;
  AddDriver(s, "a");
  ProbeResult r = RunProbe(s, {"create-instance:api=1.1", "gipa:vkEnumeratePhysicalDevices", "gipa:vkCreateDevice",
                               "gipa:vkCmdFillBuffer", "gipa:vkGetInstanceProcAddr", "gipa:vkVktNoSuchFunction"});
  EXPECT_TRUE(r.Step("gipa", 0)["non_null"].boolean()) << r.Describe();
  EXPECT_TRUE(r.Step("gipa", 1)["non_null"].boolean()) << r.Describe();
  EXPECT_TRUE(r.Step("gipa", 2)["non_null"].boolean()) << r.Describe();
  EXPECT_TRUE(r.Step("gipa", 3)["non_null"].boolean()) << r.Describe();
  EXPECT_FALSE(r.Step("gipa", 4)["non_null"].boolean()) << r.Describe();
}

TEST(ProcAddr, GdpaReturnsDriverFunctionDirectly) {
  VKT_POLICY("RULE_GDPA_DIRECT");
  Sandbox s;
  AddDriver(s, "a");
  ProbeResult r = RunProbe(
      s, {"create-instance", "devices", "create-device:0", "gdpa:vkCmdFillBuffer", "gdpa:vkVktNoSuchFunction"});
  ASSERT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  Json g = r.Step("gdpa", 0);
  EXPECT_TRUE(g["non_null"].boolean()) << r.Describe();
  EXPECT_EQ(g["in_driver"].num(), 0) << "the pointer should lie in the driver library: " << g.dump();
  if (g["driver_pointer_known"].boolean()) {
    EXPECT_EQ(g["equals_driver"].num(), 0) << g.dump();
  }
  EXPECT_FALSE(r.Step("gdpa", 1)["non_null"].boolean()) << r.Describe();
}

// ---- unknown functions --------------------------------------------------------------------------

constexpr int kUnknown = 250;
constexpr uint32_t kArg = 7;

// Driver a (`variant`) whose scenario lists `count` functions `prefix`0, `prefix`1, ... under
// `key` ("physdev_functions" or "device_functions"); the probe runs `steps` after create-instance
// and devices.
ProbeResult RunWithExtraFunctions(const std::string& variant, const char* key, const std::string& prefix, int count,
                                  std::vector<std::string> steps, bool quiet = false) {
  Sandbox s;
  AddScenarioDriver(s, "a", variant, DeviceScenario({"a-dev"}, FunctionList(key, prefix, count)));
  if (quiet) s.SetEnv("VK_LOADER_DEBUG", "error");
  steps.insert(steps.begin(), {"create-instance", "devices"});
  return RunProbe(s, steps);
}

// The "unknown-many" step resolved all kUnknown functions and slot i returned kArg + `base` + i.
void ExpectEveryUnknownReturned(const ProbeResult& r, int base) {
  Json u = r.Step("unknown-many");
  ASSERT_EQ(u["resolved"].num(), kUnknown) << r.Describe();
  for (int i = 0; i < kUnknown; ++i)
    ASSERT_EQ(u["returned"][i].num(), kArg + base + i) << "slot " << i << "\n" << r.Describe();
}

// The `step` ("call-unknown-physdev" or "call-unknown-device") resolved its function, which returned `want`.
void ExpectCallReturned(const ProbeResult& r, const char* step, int want) {
  Json c = r.Step(step);
  ASSERT_TRUE(c["non_null"].boolean()) << r.Describe();
  EXPECT_EQ(c["returned"].num(), want) << r.Describe();
}

std::string UnknownMany(const std::string& kind, const std::string& prefix) {
  return "unknown-many:" + kind + "," + prefix + "," + std::to_string(kUnknown) + "," + std::to_string(kArg);
}

TEST(UnknownFunctions, PhysicalDeviceFunctions250) {
  VKT_POLICY("RULE_UNKNOWN_PHYSDEV_FUNC", "RULE_DRV_IFACE_V4");
  ProbeResult r = RunWithExtraFunctions("v7_exports", "physdev_functions", "vkVktPhysDevFunc", kUnknown,
                                        {UnknownMany("physdev", "vkVktPhysDevFunc")}, true);
  ExpectEveryUnknownReturned(r, 20000);
}

// Interface 7: vk_icdGetPhysicalDeviceProcAddr (and negotiation) only through
// vk_icdGetInstanceProcAddr(NULL, name).
TEST(UnknownFunctions, PhysicalDeviceFunctionViaGpdpaFromGipa) {
  VKT_POLICY("RULE_UNKNOWN_PHYSDEV_FUNC", "RULE_DRV_IFACE_V7");
  ProbeResult r = RunWithExtraFunctions("v7", "physdev_functions", "vkVktPhysDevFunc", 3,
                                        {"call-unknown-physdev:vkVktPhysDevFunc1,5"});
  ASSERT_EQ(r.exit_status, 0) << r.Describe();
  ExpectCallReturned(r, "call-unknown-physdev", 5 + 20000 + 1);
}

TEST(UnknownFunctions, PhysicalDeviceFunctionViaExportedGpdpa) {
  VKT_POLICY("RULE_UNKNOWN_PHYSDEV_FUNC", "RULE_DRV_IFACE_V4");
  ProbeResult r = RunWithExtraFunctions("v4_gpdpa", "physdev_functions", "vkVktPhysDevFunc", 3,
                                        {"call-unknown-physdev:vkVktPhysDevFunc2,5"});
  ExpectCallReturned(r, "call-unknown-physdev", 5 + 20000 + 2);
}

TEST(UnknownFunctions, DeviceFunctions250) {
  VKT_POLICY("RULE_UNKNOWN_DEVICE_FUNC");
  ProbeResult r = RunWithExtraFunctions("v7_exports", "device_functions", "vkVktDeviceFunc", kUnknown,
                                        {"create-device:0", UnknownMany("device", "vkVktDeviceFunc")}, true);
  ExpectEveryUnknownReturned(r, 10000);
}

TEST(UnknownFunctions, DeviceFunctionThroughGipa) {
  VKT_POLICY("RULE_UNKNOWN_DEVICE_FUNC", "RULE_GIPA_SPEC");
  ProbeResult r = RunWithExtraFunctions("v7_exports", "device_functions", "vkVktDeviceFunc", 4,
                                        {"create-device:0", "call-unknown-device:vkVktDeviceFunc3,9,gipa"});
  ExpectCallReturned(r, "call-unknown-device", 9 + 10000 + 3);
}

// ---- No physical device at all ------------------------------------------------------------------

// Every driver loads and creates its instance but none reports a physical device. The Vulkan
// specification lets vkEnumeratePhysicalDevices return VK_ERROR_INITIALIZATION_FAILED; the Khronos
// loader does (setup_loader_term_phys_devs) and applications written against it expect it, so ours
// does too, with *pPhysicalDeviceCount 0, and its log says why. vkCreateInstance itself succeeds.
void ExpectNoDeviceAnswer(const ProbeResult& r) {
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Json d = r.Step("devices");
  EXPECT_EQ(d["count_result"].str(), "VK_ERROR_INITIALIZATION_FAILED") << r.Describe();
  EXPECT_EQ(d["reported_count"].num(-1), 0) << r.Describe();
  Json g = r.Step("groups");
  EXPECT_EQ(g["count_result"].str(), "VK_ERROR_INITIALIZATION_FAILED") << r.Describe();
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  if (LoaderName() == "ours") {
    EXPECT_TRUE(r.LogContains("vkEnumeratePhysicalDevices: no driver reported a physical device")) << r.Describe();
    EXPECT_TRUE(r.LogContains("vkEnumeratePhysicalDeviceGroups: no driver reported a physical device")) << r.Describe();
    EXPECT_TRUE(r.LogContains("[RULE_PHYSDEV_NONE]")) << r.Describe();
  }
}

TEST(PhysicalDevices, NoDeviceFromAnyDriverIsInitializationFailed) {
  VKT_POLICY("RULE_PHYSDEV_NONE", "LDP_DRIVER_2");
  Sandbox s;
  AddScenarioDriver(s, "empty1", "v7_exports", kNoDevices);
  AddScenarioDriver(s, "empty2", "v5", kNoDevices);
  ProbeResult r = RunProbe(s, {"create-instance:api=1.1", "devices", "groups", "destroy-instance"});
  ExpectNoDeviceAnswer(r);
  // Both drivers were asked (neither hides the other's devices, LDP_DRIVER_1).
  EXPECT_FALSE(s.CallsTo("empty1", "vkEnumeratePhysicalDevices").empty());
  EXPECT_FALSE(s.CallsTo("empty2", "vkEnumeratePhysicalDevices").empty());
}

// The only driver fails its own vkEnumeratePhysicalDevices: still no device, same answer.
TEST(PhysicalDevices, OnlyDriverFailingEnumerationIsInitializationFailed) {
  VKT_POLICY("RULE_PHYSDEV_NONE", "LDP_DRIVER_1");
  Sandbox s;
  AddDriver(s, "bad", "\"misbehave\":{\"fail_enumerate_physical_devices\":true}");
  ProbeResult r = RunProbe(s, {"create-instance:api=1.1", "devices", "groups", "destroy-instance"});
  ExpectNoDeviceAnswer(r);
}

// A device that exists but that VK_LOADER_*_ID_FILTER hides is not "no device from any driver":
// the enumeration succeeds with 0 (RULE_PHYSDEV_ID_FILTER, PhysicalDeviceIdFilter.NoMatchLeavesNoDevices),
// and one driver with a device beside an empty one keeps VK_SUCCESS.
TEST(PhysicalDevices, OneDeviceBesideEmptyDriversIsSuccess) {
  VKT_POLICY("RULE_PHYSDEV_NONE", "RULE_PHYSDEV_AGGREGATE");
  Sandbox s;
  AddScenarioDriver(s, "empty", "v7_exports", kNoDevices);
  AddDriver(s, "good");
  ProbeResult r = RunProbe(s, {"create-instance:api=1.1", "devices", "destroy-instance"});
  EXPECT_EQ(r.Step("devices")["count_result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
  EXPECT_FALSE(r.LogContains("[RULE_PHYSDEV_NONE]")) << r.Describe();
}

}  // namespace
}  // namespace vkt
