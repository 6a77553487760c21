// Instance creation: no-driver case, API versions, extension filtering, portability, allocators,
// messengers.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

Names Unique(Names v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

std::string Ext(const std::vector<std::string>& names) {
  std::string s = "\"instance_extensions\":[";
  for (size_t i = 0; i < names.size(); ++i)
    s += std::string(i ? "," : "") + "{\"name\":\"" + names[i] + "\",\"spec_version\":1}";
  return s + "]";
}

// Driver `name` (`variant`, `extra` spliced into its scenario) with its manifest in XDG_CONFIG_HOME.
void AddDriver(Sandbox& s, const std::string& name, const std::string& variant = "v7_exports",
               const std::string& extra = "") {
  AddNamedDriver(s, name, variant, extra);
  s.WriteDriverManifest(Location::kXdgConfigHome, name);
}

// Drivers a (interface 7, every export) and b (interface 5).
void AddDriversAB(Sandbox& s) {
  AddDriver(s, "a");
  AddDriver(s, "b", "v5");
}

// Driver a alone: create-instance[:opts] returns `want`.
void ExpectCreateResultWithOneDriver(const std::string& opts, const std::string& want) {
  Sandbox s;
  AddDriver(s, "a");
  ProbeResult r = CreateAndEnumerate(s, opts);
  EXPECT_EQ(CreateResult(r), want) << r.Describe();
}

std::set<std::string> SetOf(const Names& v) { return std::set<std::string>(v.begin(), v.end()); }

// The names the "instance-extensions" step listed, in order.
Names InstanceExtensionNames(const ProbeResult& r) {
  Json list = r.Step("instance-extensions")["extensions"];
  Names names;
  for (size_t i = 0; i < list.size(); ++i) names.push_back(list[i]["name"].str());
  return names;
}

// The counting allocator's totals: something was allocated, all of it freed, nothing freed or
// reallocated that it did not hand out.
void ExpectBalanced(const Json& a) {
  EXPECT_GT(a["allocations"].num(), 0) << a.dump();
  EXPECT_EQ(a["outstanding"].num(), 0) << a.dump();
  EXPECT_EQ(a["bad_frees"].num(), 0) << a.dump();
  EXPECT_EQ(a["bad_reallocs"].num(), 0) << a.dump();
}

TEST(Instance, NoDriverGivesIncompatibleDriver) {
  VKT_POLICY("LDP_LOADER_1");
  VKT_REQUIRE_ISOLATION();
  Sandbox s;
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.exit_status, 0);
  EXPECT_EQ(CreateResult(r), "VK_ERROR_INCOMPATIBLE_DRIVER") << r.Describe();
}

TEST(Instance, EveryDriverFailingCreateInstanceGivesIncompatibleDriver) {
  VKT_POLICY("LDP_LOADER_1");
  Sandbox s;
  AddDriver(s, "a", "v7_exports", "\"results\":{\"vkCreateInstance\":\"VK_ERROR_INITIALIZATION_FAILED\"}");
  s.SetEnv("VK_LOADER_DEBUG", "warn");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(CreateResult(r), "VK_ERROR_INCOMPATIBLE_DRIVER") << r.Describe();
  if (LoaderName() == "ours") {
    // Our log lines name a VkResult by its vk.xml name, and keep the number.
    EXPECT_FALSE(r.LogLines("vkCreateInstance returned VK_ERROR_INITIALIZATION_FAILED (-3)").empty()) << r.err;
  }
}

TEST(Instance, EnumerateInstanceVersion) {
  VKT_POLICY("RULE_INST_ENUMERATE_VERSION");
  Sandbox s;
  ProbeResult r = RunProbe(s, {"version"});
  Json v = r.Step("version");
  ASSERT_TRUE(v["available"].boolean()) << r.Describe();
  EXPECT_EQ(v["result"].str(), "VK_SUCCESS");
  EXPECT_GE(v["version_raw"].num(), (1 << 22) | (1 << 12)) << "at least 1.1";
}

// Writes a Vulkan 1.0 driver `name` (scenario and manifest api_version 1.0.0) with `variant`.
void AddApi10Driver(Sandbox& s, const std::string& name, const std::string& variant) {
  AddNamedDriver(s, name, variant, "\"api_version\":\"1.0.0\",\"expose_enumerate_instance_version\":false");
  ManifestSpec m = s.ManifestFor(name);
  m.api_version = "1.0.0";
  s.WriteManifest(Location::kXdgConfigHome, name + ".json", m.ToJson());
}

// "old", a Vulkan 1.0 driver (`old_variant`), beside "new", a 1.3 one: create-instance:`opts` finds
// both devices.
ProbeResult CreateWithOldAndNewDrivers(Sandbox& s, const std::string& old_variant, const std::string& opts) {
  AddApi10Driver(s, "old", old_variant);
  AddDriver(s, "new");
  ProbeResult r = CreateAndEnumerate(s, opts);
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"new-dev", "old-dev"})) << r.Describe();
  return r;
}

// LDP_LOADER_7: a 1.0-only driver receives apiVersion 1.0 even when the app asks for 1.3, so it
// does not fail; a 1.3 sibling receives 1.3.
TEST(Instance, Api10DriverReceivesApi10) {
  VKT_POLICY("LDP_LOADER_7", "LDP_DRIVER_9");
  Sandbox s;
  ProbeResult r = CreateWithOldAndNewDrivers(s, "v4", "api=1.3");
  std::vector<Json> old_ci = s.CallsTo("old", "vkCreateInstance");
  ASSERT_FALSE(old_ci.empty());
  EXPECT_EQ(old_ci[0]["api_version"].str().substr(0, 4), "1.0.") << old_ci[0].dump();
  EXPECT_EQ(old_ci[0]["result"].str(), "VK_SUCCESS") << old_ci[0].dump();
  std::vector<Json> new_ci = s.CallsTo("new", "vkCreateInstance");
  ASSERT_FALSE(new_ci.empty());
  EXPECT_EQ(new_ci[0]["api_version"].str(), "1.3.0") << new_ci[0].dump();
}

// LDP_LOADER_6 read with the Vulkan specification (conformance/policies/readings.md): from Vulkan
// 1.1 on, apiVersion is the highest version the application will use and any value must be
// accepted, so a 1.1+ driver supports every request. Applications built against newer headers
// ask for 1.4, 1.9 or 2.0 on a 1.3 driver and must succeed.
class ApiAboveDriver : public ::testing::TestWithParam<const char*> {};

TEST_P(ApiAboveDriver, Vulkan13DriversAcceptAnyApiVersion) {
  VKT_POLICY("LDP_LOADER_6", "LDP_DRIVER_10");
  Sandbox s;
  AddDriversAB(s);
  s.SetEnv("VK_LOADER_DEBUG", "error,warn");
  ProbeResult r = CreateAndEnumerate(s, std::string("api=") + GetParam());
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"a-dev", "b-dev"})) << r.Describe();
  EXPECT_TRUE(r.LogLines("LDP_LOADER_6").empty()) << r.err;
  // The drivers receive the application's apiVersion unchanged (only 1.0 drivers get 1.0).
  std::vector<Json> a = s.CallsTo("a", "vkCreateInstance");
  ASSERT_FALSE(a.empty());
  EXPECT_EQ(a[0]["api_version"].str().substr(0, 4), std::string(GetParam()).substr(0, 3) + ".") << a[0].dump();
}

INSTANTIATE_TEST_SUITE_P(Instance, ApiAboveDriver, ::testing::Values("1.4", "1.9", "2.0"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           std::string n = std::string("api_") + i.param;
                           std::replace(n.begin(), n.end(), '.', '_');
                           return n;
                         });

// LDP_LOADER_6 read with the Vulkan specification (conformance/policies/readings.md): when no
// driver supports the request (every driver at interface >= 5 is a Vulkan 1.0 driver, the
// application asks for 1.1) the loader, which reports instance version 1.1 or more, must not return
// VK_ERROR_INCOMPATIBLE_DRIVER. It creates the instance, gives each 1.0 driver apiVersion 1.0
// (LDP_LOADER_7) and says at WARNING level what the policy would have refused.
TEST(Instance, OnlyVulkan10DriversAcceptApi11WithWarning) {
  VKT_POLICY("LDP_LOADER_6", "LDP_LOADER_7", "LDP_DRIVER_10");
  Sandbox s;
  AddApi10Driver(s, "a", "v7_exports");
  AddApi10Driver(s, "b", "v5");
  s.SetEnv("VK_LOADER_DEBUG", "warn");
  ProbeResult r = CreateAndEnumerate(s, "api=1.1");
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  for (const char* d : {"a", "b"}) {
    std::vector<Json> ci = s.CallsTo(d, "vkCreateInstance");
    ASSERT_FALSE(ci.empty()) << d;
    EXPECT_EQ(ci[0]["api_version"].str().substr(0, 4), "1.0.") << d << ": " << ci[0].dump();
  }
  std::vector<std::string> warn = r.LogLines("LDP_LOADER_6");
  ASSERT_EQ(warn.size(), 1u) << r.err;
  EXPECT_NE(warn[0].find("WARNING"), std::string::npos) << warn[0];
  EXPECT_NE(warn[0].find("1.1.0"), std::string::npos) << warn[0];
}

// The same 1.0 drivers accept an application that asks for 1.0 (or gives no apiVersion).
TEST(Instance, OnlyVulkan10DriversAcceptApi10) {
  VKT_POLICY("LDP_LOADER_6");
  Sandbox s;
  AddApi10Driver(s, "a", "v7_exports");
  ProbeResult r = CreateAndEnumerate(s, "api=1.0");
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  ProbeResult none = CreateAndEnumerate(s, "api=none");
  EXPECT_EQ(CreateResult(none), "VK_SUCCESS") << none.Describe();
}

// Mixed 1.0 and 1.3 drivers: a 1.4 request succeeds; the 1.0 driver gets 1.0 (LDP_LOADER_7), the
// 1.3 driver the request.
TEST(Instance, MixedVulkan10And13DriversAcceptApi14) {
  VKT_POLICY("LDP_LOADER_6", "LDP_LOADER_7");
  Sandbox s;
  ProbeResult r = CreateWithOldAndNewDrivers(s, "v7_exports", "api=1.4");
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  std::vector<Json> old_ci = s.CallsTo("old", "vkCreateInstance"), new_ci = s.CallsTo("new", "vkCreateInstance");
  ASSERT_FALSE(old_ci.empty());
  ASSERT_FALSE(new_ci.empty());
  EXPECT_EQ(old_ci[0]["api_version"].str().substr(0, 4), "1.0.") << old_ci[0].dump();
  EXPECT_EQ(new_ci[0]["api_version"].str().substr(0, 4), "1.4.") << new_ci[0].dump();
}

TEST(Instance, ApiVersionSupportedBySomeDriverSucceeds) {
  VKT_POLICY("LDP_LOADER_6", "LDP_DRIVER_10");
  ExpectCreateResultWithOneDriver("api=1.3", "VK_SUCCESS");
}

// LDP_LOADER_9: each driver receives only the extensions it advertises.
TEST(Instance, DriverReceivesOnlyItsOwnExtensions) {
  VKT_POLICY("LDP_LOADER_9", "RULE_INST_EXT_AGGREGATE");
  Sandbox s;
  AddDriver(s, "a", "v7_exports", Ext({"VK_KHR_get_physical_device_properties2", "VK_KHR_device_group_creation"}));
  AddDriver(s, "b", "v7_exports", Ext({"VK_KHR_get_physical_device_properties2"}));
  ProbeResult r = CreateAndEnumerate(
      s, "ext=VK_KHR_get_physical_device_properties2,VK_KHR_device_group_creation,VK_EXT_debug_utils");
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  std::vector<Json> a = s.CallsTo("a", "vkCreateInstance"), b = s.CallsTo("b", "vkCreateInstance");
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(Unique(a[0]["extensions"].strings()),
            (Names{"VK_KHR_device_group_creation", "VK_KHR_get_physical_device_properties2"}))
      << a[0].dump();
  EXPECT_EQ(Unique(b[0]["extensions"].strings()), Names{"VK_KHR_get_physical_device_properties2"}) << b[0].dump();
  EXPECT_EQ(a[0]["layers"].size(), 0u) << a[0].dump();
}

// LDP_LOADER_12: pLayerName never reaches a driver.
TEST(Instance, NoLayerNameReachesDriver) {
  VKT_POLICY("LDP_LOADER_12");
  Sandbox s;
  AddDriver(s, "a");
  ProbeResult r = RunProbe(s, {"instance-extensions:VK_LAYER_VKT_nonexistent", "instance-extensions", "create-instance",
                               "devices", "device-extensions:0"});
  EXPECT_EQ(r.Step("instance-extensions", 0)["count_result"].str(), "VK_ERROR_LAYER_NOT_PRESENT") << r.Describe();
  for (const char* call : {"vkEnumerateInstanceExtensionProperties", "vkEnumerateDeviceExtensionProperties"}) {
    for (const Json& c : s.CallsTo("a", call)) EXPECT_TRUE(c["layer"].is_null() || !c["layer"].valid()) << c.dump();
  }
  EXPECT_TRUE(s.CallsTo("a", "vkEnumerateDeviceLayerProperties").empty());
}

TEST(Instance, UnknownExtensionNotPresent) {
  VKT_POLICY("RULE_INST_UNKNOWN_EXT");
  ExpectCreateResultWithOneDriver("ext=VK_VKT_no_such_extension", "VK_ERROR_EXTENSION_NOT_PRESENT");
}

TEST(Instance, KnownExtensionNoDriverHasNotPresent) {
  VKT_POLICY("RULE_INST_UNKNOWN_EXT", "LDP_LOADER_9");
  ExpectCreateResultWithOneDriver("ext=VK_KHR_device_group_creation", "VK_ERROR_EXTENSION_NOT_PRESENT");
}

TEST(Instance, ExtensionsAggregatedWithoutDuplicates) {
  VKT_POLICY("RULE_INST_EXT_AGGREGATE");
  Sandbox s;
  AddDriver(s, "a", "v7_exports", Ext({"VK_KHR_get_physical_device_properties2", "VK_KHR_device_group_creation"}));
  AddDriver(s, "b", "v7_exports",
            Ext({"VK_KHR_get_physical_device_properties2", "VK_KHR_external_fence_capabilities"}));
  ProbeResult r = RunProbe(s, {"instance-extensions"});
  const Names names = InstanceExtensionNames(r);
  for (const char* e :
       {"VK_KHR_get_physical_device_properties2", "VK_KHR_device_group_creation", "VK_KHR_external_fence_capabilities",
        "VK_EXT_debug_utils", "VK_EXT_debug_report", "VK_KHR_portability_enumeration"})
    EXPECT_EQ(std::count(names.begin(), names.end(), e), 1) << e << "\n" << r.Describe();
}

// RULE_INST_EXT_FILTER: a driver's instance extension that vk.xml does not define is hidden from
// vkEnumerateInstanceExtensionProperties and refused by vkCreateInstance, unless
// VK_LOADER_DISABLE_INST_EXT_FILTER holds a non-zero number; then it is listed, accepted and reaches
// the driver. Known extensions are unaffected either way.
class InstanceExtensionFilter : public ::testing::TestWithParam<const char*> {};  // the variable's value

TEST_P(InstanceExtensionFilter, UnknownDriverExtension) {
  VKT_POLICY("RULE_INST_EXT_FILTER");
  const std::string value = GetParam();
  const bool disabled = !value.empty() && value != "0";
  const char kUnknown[] = "VK_EXT_mock_not_in_the_registry";
  Sandbox s;
  AddDriver(s, "a", "v7_exports", Ext({"VK_KHR_surface", kUnknown}));
  if (!value.empty()) s.SetEnv("VK_LOADER_DISABLE_INST_EXT_FILTER", value);
  ProbeResult r = RunProbe(s, {"instance-extensions", std::string("create-instance:ext=") + kUnknown,
                               "destroy-instance", "create-instance:ext=VK_KHR_surface", "destroy-instance"});
  const std::set<std::string> names = SetOf(InstanceExtensionNames(r));
  EXPECT_EQ(names.count(kUnknown), disabled ? 1u : 0u) << r.Describe();
  EXPECT_EQ(names.count("VK_KHR_surface"), 1u) << r.Describe();
  EXPECT_EQ(r.Step("create-instance", 0)["result"].str(), disabled ? "VK_SUCCESS" : "VK_ERROR_EXTENSION_NOT_PRESENT")
      << r.Describe();
  EXPECT_EQ(r.Step("create-instance", 1)["result"].str(), "VK_SUCCESS") << r.Describe();
  // Only with the filter off does the driver see the unknown extension.
  bool driver_got = false;
  for (const Json& c : s.CallsTo("a", "vkCreateInstance"))
    for (const std::string& e : c["extensions"].strings()) driver_got = driver_got || e == kUnknown;
  EXPECT_EQ(driver_got, disabled) << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Instance, InstanceExtensionFilter, ::testing::Values("", "0", "1", "2"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           return std::string(i.param[0] ? std::string("value_") + i.param : "unset");
                         });

// The loader's own instance extensions come in the Khronos loader's order, after the drivers'.
TEST(Instance, LoaderExtensionsInTheKhronosOrder) {
  VKT_POLICY("RULE_INST_EXT_AGGREGATE");
  Sandbox s;
  AddDriver(s, "a", "v7_exports", Ext({"VK_KHR_surface"}));
  ProbeResult r = RunProbe(s, {"instance-extensions"});
  const Names order = InstanceExtensionNames(r);
  auto pos = [&](const char* n) { return std::find(order.begin(), order.end(), n) - order.begin(); };
  ASSERT_LT(pos("VK_EXT_debug_report"), static_cast<long>(order.size())) << r.Describe();
  EXPECT_LT(pos("VK_KHR_surface"), pos("VK_EXT_debug_report")) << r.Describe();
  EXPECT_LT(pos("VK_EXT_debug_report"), pos("VK_EXT_debug_utils")) << r.Describe();
  EXPECT_LT(pos("VK_EXT_debug_utils"), pos("VK_KHR_portability_enumeration")) << r.Describe();
}

// VK_LOADER_DEBUG takes the words the Khronos loader takes: prefixes ("e", "err"), "a" for all, in
// its order; a word that turns on no error bit prints no ERROR line.
struct DebugWordCase {
  const char* value;
  bool error_line;
};
class LoaderDebugWords : public ::testing::TestWithParam<DebugWordCase> {};

TEST_P(LoaderDebugWords, ErrorLineOfAMissingLayer) {
  VKT_POLICY("RULE_LOG_FORMAT");
  Sandbox s;
  AddDriver(s, "a");
  s.SetEnv("VK_LOADER_DEBUG", GetParam().value);
  ProbeResult r = CreateAndEnumerate(s, "layers=VK_LAYER_MOCK_not_installed");
  EXPECT_EQ(CreateResult(r), "VK_ERROR_LAYER_NOT_PRESENT") << r.Describe();
  // An ERROR header: "[Vulkan Loader] ERROR" (ours, the documented shape) or "ERROR:" at the start of
  // the line (the Khronos loader 1.3.239's older shape).
  bool error_line = false;
  for (const std::string& l : r.LogLines("ERROR"))
    error_line = error_line || l.rfind("[Vulkan Loader] ERROR", 0) == 0 || l.rfind("ERROR:", 0) == 0;
  EXPECT_EQ(error_line, GetParam().error_line) << r.err;
}

INSTANTIATE_TEST_SUITE_P(Instance, LoaderDebugWords,
                         ::testing::Values(DebugWordCase{"error", true}, DebugWordCase{"err", true},
                                           DebugWordCase{"e", true}, DebugWordCase{"a", true},
                                           DebugWordCase{"warn,e", true}, DebugWordCase{"w", false},
                                           DebugWordCase{"errors", false}),
                         [](const ::testing::TestParamInfo<DebugWordCase>& i) {
                           std::string n = std::string("v_") + i.param.value;
                           for (char& c : n)
                             if (c == ',') c = '_';
                           return n;
                         });

// ---- portability enumeration ---------------------------------------------------------------------

class Portability : public ::testing::Test {
 protected:
  void SetUp() override {
    AddNamedDriver(s_, "port", "v7_exports", Ext({"VK_KHR_portability_enumeration"}));
    ManifestSpec m = s_.ManifestFor("port");
    m.file_format_version = "1.0.1";
    m.is_portability_driver = true;
    s_.WriteManifest(Location::kXdgConfigHome, "port.json", m.ToJson());
  }
  Sandbox s_;
};

TEST_F(Portability, SkippedWithoutFlagAndExtension) {
  VKT_POLICY("RULE_INST_PORTABILITY", "RULE_DRV_MANIFEST_V1_0_1", "LDP_LOADER_1");
  ProbeResult r = CreateAndEnumerate(s_);
  EXPECT_EQ(CreateResult(r), "VK_ERROR_INCOMPATIBLE_DRIVER") << r.Describe();
  EXPECT_TRUE(s_.CallsTo("port", "vkCreateInstance").empty());
  // the Khronos loader's sentence, which its users grep for
  EXPECT_FALSE(r.LogLines("flags and enable the VK_KHR_portability_enumeration instance extension.").empty())
      << r.Describe();
}

TEST_F(Portability, SkippedWithFlagButNoExtension) {
  VKT_POLICY("RULE_INST_PORTABILITY");
  ProbeResult r = CreateAndEnumerate(s_, "flags=portability");
  EXPECT_EQ(CreateResult(r), "VK_ERROR_INCOMPATIBLE_DRIVER") << r.Describe();
  EXPECT_FALSE(r.LogLines("[VUID-VkInstanceCreateInfo-flags-06559 ]Applications that wish to enumerate portability "
                          "drivers must enable the VK_KHR_portability_enumeration instance extension.")
                   .empty())
      << r.Describe();
}

TEST_F(Portability, SkippedWithExtensionButNoFlag) {
  VKT_POLICY("RULE_INST_PORTABILITY");
  ProbeResult r = CreateAndEnumerate(s_, "ext=VK_KHR_portability_enumeration");
  EXPECT_EQ(CreateResult(r), "VK_ERROR_INCOMPATIBLE_DRIVER") << r.Describe();
  EXPECT_TRUE(s_.CallsTo("port", "vkCreateInstance").empty());
  EXPECT_FALSE(r.LogLines("bit in the VkInstanceCreateInfo flags.").empty()) << r.Describe();
}

// Pre-instance enumeration does not skip portability drivers (spec 7.3): their extensions are listed.
TEST_F(Portability, PreInstanceEnumerationIncludesPortabilityDriver) {
  VKT_POLICY("RULE_INST_PORTABILITY", "RULE_INST_EXT_AGGREGATE");
  s_.SetScenario("port",
                 DeviceScenario({"port-dev"}, Ext({"VK_KHR_portability_enumeration", "VK_KHR_device_group_creation"})));
  ProbeResult r = RunProbe(s_, {"instance-extensions"});
  const Names names = InstanceExtensionNames(r);
  EXPECT_NE(std::find(names.begin(), names.end(), "VK_KHR_device_group_creation"), names.end()) << r.Describe();
}

// Flag and extension, but the only driver is an ordinary one: it is used, without the flag.
TEST_F(Portability, FlagAndExtensionWithOrdinaryDriverOnly) {
  VKT_POLICY("RULE_INST_PORTABILITY", "LDP_LOADER_9");
  Sandbox s;
  AddDriver(s, "plain");
  ProbeResult r = CreateAndEnumerate(s, "flags=portability;ext=VK_KHR_portability_enumeration");
  EXPECT_EQ(r.DeviceNames(), Names{"plain-dev"}) << r.Describe();
  std::vector<Json> ci = s.CallsTo("plain", "vkCreateInstance");
  ASSERT_FALSE(ci.empty());
  EXPECT_EQ(ci[0]["flags"].num(), 0) << ci[0].dump();
  for (const std::string& e : ci[0]["extensions"].strings())
    EXPECT_NE(e, "VK_KHR_portability_enumeration") << ci[0].dump();
}

TEST_F(Portability, EnumeratedWithFlagAndExtension) {
  VKT_POLICY("RULE_INST_PORTABILITY", "RULE_DRV_MANIFEST_V1_0_1");
  ProbeResult r = CreateAndEnumerate(s_, "flags=portability;ext=VK_KHR_portability_enumeration");
  EXPECT_EQ(r.DeviceNames(), Names{"port-dev"}) << r.Describe();
}

TEST_F(Portability, OrdinaryDriverUnaffected) {
  VKT_POLICY("RULE_INST_PORTABILITY", "LDP_LOADER_9");
  AddDriver(s_, "plain");
  ProbeResult r = CreateAndEnumerate(s_);
  EXPECT_EQ(r.DeviceNames(), Names{"plain-dev"}) << r.Describe();
  ProbeResult both = CreateAndEnumerate(s_, "flags=portability;ext=VK_KHR_portability_enumeration");
  EXPECT_EQ(Sorted(both.DeviceNames()), (Names{"plain-dev", "port-dev"})) << both.Describe();
  // The driver without the extension gets neither the extension nor the flag (it may get the
  // extensions it advertises itself, which the loader is allowed to enable for its own use).
  std::vector<Json> ci = s_.CallsTo("plain", "vkCreateInstance");
  ASSERT_FALSE(ci.empty());
  const Json& last = ci.back();
  for (const std::string& e : last["extensions"].strings())
    EXPECT_EQ(e, "VK_KHR_get_physical_device_properties2") << last.dump();
  EXPECT_EQ(last["flags"].num(), 0) << last.dump();
}

// ---- allocation callbacks and messengers ----------------------------------------------------------

TEST(Instance, AllocationCallbacksBalanced) {
  VKT_POLICY("RULE_INST_ALLOCATOR");
  Sandbox s;
  AddDriversAB(s);
  ProbeResult r = RunProbe(s, {"create-instance:alloc=counting;api=1.1", "devices", "groups", "create-device:0",
                               "destroy-device", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Json a = r.Alloc();
  ExpectBalanced(a);
  EXPECT_EQ(a["misaligned_requests"].num(), 0) << a.dump();
  std::vector<Json> ci = s.CallsTo("a", "vkCreateInstance");
  ASSERT_FALSE(ci.empty());
  EXPECT_TRUE(ci[0]["allocator"].boolean()) << "pAllocator is passed to drivers: " << ci[0].dump();
}

// Instances with and without allocation callbacks, alternating in one process: what the loader
// allocates through the application's callbacks it frees through them, and nothing it allocated
// otherwise reaches them. (Our loader keeps a driver's per-instance record from a destroyed instance
// for the next one created without callbacks; an instance with callbacks must neither take that
// record, which its pfnFree would then receive without having allocated it, nor leave its own
// behind.)
TEST(Instance, AllocationCallbacksBalancedBetweenInstancesWithout) {
  VKT_POLICY("RULE_INST_ALLOCATOR");
  Sandbox s;
  AddDriversAB(s);
  ProbeResult r = RunProbe(s, {"create-instance", "devices", "destroy-instance", "create-instance:alloc=counting",
                               "devices", "destroy-instance", "create-instance", "devices", "destroy-instance",
                               "create-instance:alloc=counting", "devices", "destroy-instance"});
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"a-dev", "b-dev"})) << r.Describe();
  ExpectBalanced(r.Alloc());
}

TEST(Instance, DebugUtilsMessengerInPNextReceivesCreateMessages) {
  VKT_POLICY("RULE_INST_DEBUG_MESSENGER");
  Sandbox s;
  AddDriver(s, "a");
  s.SetEnv("VK_LOADER_DEBUG", "error");  // the messenger must not depend on VK_LOADER_DEBUG
  ProbeResult r = RunProbe(s, {"create-instance:messenger=debug-utils", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Json m = r.Step("messages")["messages"];
  size_t during = 0;
  for (size_t i = 0; i < m.size(); ++i) {
    EXPECT_EQ(m[i]["source"].str(), "debug-utils");
    if (m[i]["during_create"].boolean()) ++during;
  }
  EXPECT_GT(during, 0u) << r.Describe();
}

TEST(Instance, DebugReportCallbackInPNextReceivesCreateMessages) {
  VKT_POLICY("RULE_INST_DEBUG_MESSENGER");
  Sandbox s;
  AddDriver(s, "a");
  ProbeResult r = RunProbe(s, {"create-instance:messenger=debug-report", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_FALSE(r.Messages("debug-report").empty()) << r.Describe();
}

TEST(Instance, MessengerSeesFailedCreateReason) {
  VKT_POLICY("RULE_INST_DEBUG_MESSENGER", "RULE_INST_UNKNOWN_EXT");
  Sandbox s;
  AddDriver(s, "a");
  ProbeResult r = RunProbe(s, {"create-instance:messenger=debug-utils;ext=VK_VKT_no_such_extension"});
  EXPECT_EQ(CreateResult(r), "VK_ERROR_EXTENSION_NOT_PRESENT") << r.Describe();
  EXPECT_TRUE(r.MessagesContain("VK_VKT_no_such_extension")) << r.Describe();
}

TEST(Instance, LogLinesUseLoaderPrefix) {
  VKT_POLICY("RULE_LOG_FORMAT");
  Sandbox s;
  AddDriver(s, "a");
  ProbeResult r = CreateAndEnumerate(s);
  ASSERT_FALSE(r.err.empty());
  EXPECT_TRUE(r.LogContains("[Vulkan Loader] INFO")) << r.Describe();
}

// ---- diagnostics in the Khronos loader's words (what its users grep for) ----------------------

// A line of `severity` ("ERROR", "WARNING", "INFO") holding `needle`; both loaders start a line with
// the severity word (after "[Vulkan Loader] " in the current format).
bool LoggedAs(const ProbeResult& r, const std::string& severity, const std::string& needle) {
  for (const std::string& l : r.LogLines(needle)) {
    size_t at = l.rfind("[Vulkan Loader] ", 0) == 0 ? 16 : 0;
    if (l.compare(at, severity.size(), severity) == 0) return true;
  }
  return false;
}

// A short array: VK_INCOMPLETE and an INFO line saying how many devices were left out.
TEST(InstanceWording, TrimmingDeviceCount) {
  VKT_POLICY("RULE_LOG_FORMAT");
  Sandbox s;
  s.AddDriver("a", "v7_exports", DeviceScenario({"a-dev0", "a-dev1"}));
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.Step("devices")["incomplete_result"].str(), "VK_INCOMPLETE") << r.Describe();
  EXPECT_TRUE(LoggedAs(r, "INFO", "Trimming device count from 2 to 1")) << r.err;
}

// A NULL pPhysicalDeviceCount: VK_ERROR_INITIALIZATION_FAILED and an ERROR line with the VUID.
TEST(InstanceWording, NullPhysicalDeviceCountNamesTheVuid) {
  VKT_POLICY("RULE_INST_ROBUST_ARGUMENTS", "RULE_LOG_FORMAT");
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(s, {"robust:physical-devices-null-count"});
  EXPECT_EQ(r.Step("robust")["result"].str(), "VK_ERROR_INITIALIZATION_FAILED") << r.Describe();
  EXPECT_TRUE(LoggedAs(r, "ERROR",
                       "vkEnumeratePhysicalDevices: Received NULL pointer for physical device count return value. "
                       "[VUID-vkEnumeratePhysicalDevices-pPhysicalDeviceCount-parameter]"))
      << r.err;
}

// An apiVersion with a non-zero variant is not a Vulkan version: a warning naming the variant, in
// the application's messenger too (whatever vkCreateInstance then answers: LDP_LOADER_6).
TEST(InstanceWording, ApiVariantWarns) {
  VKT_POLICY("LDP_LOADER_4", "RULE_LOG_FORMAT");
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(s, {"create-instance:api=1.1.0.0;messenger=debug-utils", "destroy-instance"});
  const std::string line =
      "The API Variant specified in pCreateInfo->pApplicationInfo.apiVersion is 1 instead of the expected value of 0.";
  EXPECT_TRUE(LoggedAs(r, "WARNING", line)) << r.err;
  EXPECT_TRUE(r.MessagesContain(line, "debug-utils")) << r.Describe();
}

// What the application asked for, at INFO: its names and versions and the layers and extensions
// it requested.
TEST(InstanceWording, LogsTheCreateInfo) {
  VKT_POLICY("RULE_LOG_FORMAT");
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(s, {"create-instance:api=1.0.0;ext=VK_EXT_debug_utils", "destroy-instance"});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  // vkprobe's VkApplicationInfo: "vkprobe" 1, "vkt" 1.
  EXPECT_TRUE(LoggedAs(r, "INFO",
                       "applicationName: \"vkprobe\", applicationVersion: 1, engineName: \"vkt\", engineVersion: 1, "
                       "apiVersion: 1.0.0"))
      << r.err;
  EXPECT_TRUE(LoggedAs(r, "INFO", "Requested 1 instance extension(s): VK_EXT_debug_utils")) << r.err;
}

// An apiVersion below 1.0 (but not 0) is not permitted: an ERROR line with the VUID.
TEST(InstanceWording, ApiVersionBelow10NamesTheVuid) {
  VKT_POLICY("RULE_INST_ROBUST_ARGUMENTS", "RULE_LOG_FORMAT");
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(s, {"create-instance:api=1", "destroy-instance"});
  EXPECT_TRUE(LoggedAs(r, "ERROR",
                       "VkInstanceCreateInfo::pApplicationInfo::apiVersion has value of 1 which is not permitted. If "
                       "apiVersion is not 0, then it must be greater than or equal to the value of VK_API_VERSION_1_0 "
                       "[VUID-VkApplicationInfo-apiVersion]"))
      << r.err;
}

}  // namespace
}  // namespace vkt
