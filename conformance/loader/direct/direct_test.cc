// VK_LUNARG_direct_driver_loading: drivers handed to vkCreateInstance by function pointer
// ([Drv] "Driver Discovery using the VK_LUNARG_direct_driver_loading extension", spec §1.3, §5.2,
// §7.12). vkprobe's `direct:LIB:MODE[:OPTS]` step dlopens a mock itself and chains its
// vk_icdGetInstanceProcAddr into the next create-instance (conformance/framework/README.md).
//
// The direct drivers are mostly the `v7_direct` mock: it exports no symbol a loader looks for
// (its vk_icdGetInstanceProcAddr is exported as mock_icd_direct_GetInstanceProcAddr), so it works
// only if the loader takes every interface function from the pointer, never from dlsym. It is
// copied into the sandbox but no manifest names it.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

constexpr char kDirectSym[] = "mock_icd_direct_GetInstanceProcAddr";
constexpr char kExt[] = "VK_LUNARG_direct_driver_loading";

// The `direct` step for driver `d` (its sandbox copy), MODE and options.
std::string Direct(const Driver& d, const std::string& mode, const std::string& opts = "") {
  std::string step = "direct:" + d.library + ":" + mode;
  std::string o = d.variant == "v7_direct" ? std::string("sym=") + kDirectSym : "";
  if (!opts.empty()) o += (o.empty() ? "" : ",") + opts;
  return o.empty() ? step : step + ":" + o;
}

// A stderr log line of this severity ("ERROR", "WARNING", "INFO") holding every needle. Both
// loaders write "[Vulkan Loader] <SEVERITY>[ | <CATEGORY>]: message" (VK_LOADER_DEBUG=all).
bool Logged(const ProbeResult& r, const std::string& severity, const std::vector<std::string>& needles) {
  for (const std::string& line : r.LogLines(needles.at(0))) {
    if (line.rfind("[Vulkan Loader] " + severity, 0) != 0) continue;
    bool all = true;
    for (const std::string& n : needles) all = all && line.find(n) != std::string::npos;
    if (all) return true;
  }
  return false;
}

// A system driver "sys" found through a manifest, and the direct driver "dd" (no manifest).
class DirectDriver : public ::testing::Test {
 protected:
  void SetUp() override {
    AddNamedDriver(s_, "sys");
    s_.WriteDriverManifest(Location::kXdgConfigHome, "sys");
    AddNamedDriver(s_, "dd", "v7_direct");
    // Physical-device sorting would reorder equal mock devices; driver order is the subject here.
    // Unsorted, devices come last driver first (the Khronos loader's order, order_filter_test.cc):
    // a direct driver added after the system drivers is listed before them.
    s_.SetEnv("VK_LOADER_DISABLE_SELECT", "1");
  }
  ProbeResult Run(const std::vector<std::string>& direct_steps, const std::string& create_opts = "") {
    std::vector<std::string> steps = direct_steps;
    steps.push_back(create_opts.empty() ? "create-instance" : "create-instance:" + create_opts);
    steps.push_back("devices");
    steps.push_back("destroy-instance");
    return RunProbe(s_, steps);
  }
  Sandbox s_;
};

TEST_F(DirectDriver, InclusiveAddsAfterTheSystemDrivers) {
  VKT_POLICY("LDP_LOADER_3", "RULE_DRV_DIRECT_LOADING", "RULE_DRV_DIRECT_INTERFACE");
  ProbeResult r = Run({Direct(s_.driver("dd"), "inclusive")});
  ASSERT_TRUE(r.Step("direct")["resolved"].boolean()) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  // The line the Khronos loader's users grep for, with the pointer given (as %p prints it).
  EXPECT_TRUE(Logged(r, "INFO",
                     {"Adding driver found in index 0 of VkDirectDriverLoadingListLUNARG::pDrivers structure. "
                      "pfnGetInstanceProcAddr was set to " +
                      r.Step("direct")["pointer"].str()}))
      << r.Describe();
  // The system driver's devices first, the listed drivers' after them ([Drv] "Driver Discovery using
  // the VK_LUNARG_direct_driver_loading extension").
  EXPECT_EQ(r.DeviceNames(), (Names{"sys-dev", "dd-dev"})) << r.Describe();
  // Reached through the pointer only: the first call asks it for the negotiation function
  // (interface 7), and negotiation goes through the function it returned.
  std::vector<Json> first = s_.CallsTo("dd", "first_entry");
  ASSERT_FALSE(first.empty()) << r.Describe();
  EXPECT_EQ(first[0]["loader"].str(), "v7") << first[0].dump();
  std::vector<Json> neg = s_.CallsTo("dd", "vk_icdNegotiateLoaderICDInterfaceVersion");
  ASSERT_EQ(neg.size(), 1u) << r.Describe();
  EXPECT_TRUE(neg[0]["through_gipa"].boolean()) << neg[0].dump();
  EXPECT_GE(neg[0]["offered"].num(), 7) << neg[0].dump();
  // The extension is the loader's own: it never reaches a driver.
  for (const char* d : {"sys", "dd"})
    for (const Json& c : s_.CallsTo(d, "vkCreateInstance"))
      for (const std::string& e : c["extensions"].strings()) EXPECT_NE(e, kExt) << d << ": " << c.dump();
}

TEST_F(DirectDriver, ExclusiveReplacesTheSystemDrivers) {
  VKT_POLICY("LDP_LOADER_3", "RULE_DRV_DIRECT_LOADING");
  ProbeResult r = Run({Direct(s_.driver("dd"), "exclusive")});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"dd-dev"}) << r.Describe();
  EXPECT_FALSE(s_.WasLoaded("sys")) << r.Describe();
  EXPECT_TRUE(Logged(r, "INFO",
                     {"The VK_LUNARG_direct_driver_loading extension is active and specified "
                      "VK_DIRECT_DRIVER_LOADING_MODE_EXCLUSIVE_LUNARG, skipping system and environment variable "
                      "driver search mechanisms."}))
      << r.Describe();
}

// EXCLUSIVE: the driver variables and filters have no effect ([Drv] "Interactions with other driver
// discovery mechanisms"); INCLUSIVE: they apply to the other drivers, never to the listed ones.
TEST_F(DirectDriver, ExclusiveIgnoresTheDriverVariables) {
  VKT_POLICY("LDP_LOADER_3", "RULE_DRV_DIRECT_LOADING", "RULE_DRV_ENV_DRIVER_FILES_OVERRIDE",
             "RULE_DRV_ENV_ADD_DRIVER_FILES");
  AddNamedDriver(s_, "files");
  AddNamedDriver(s_, "legacy");
  AddNamedDriver(s_, "add");
  s_.SetEnv("VK_DRIVER_FILES", s_.WriteDriverManifest(Location::kLoose, "files"));
  s_.SetEnv("VK_ICD_FILENAMES", s_.WriteDriverManifest(Location::kLoose, "legacy"));
  s_.SetEnv("VK_ADD_DRIVER_FILES", s_.WriteDriverManifest(Location::kLoose, "add"));
  ProbeResult control = Run({});  // without the list the variables do apply
  const Names control_devs = control.DeviceNames();
  EXPECT_NE(std::find(control_devs.begin(), control_devs.end(), "files-dev"), control_devs.end()) << control.Describe();

  ProbeResult r = Run({Direct(s_.driver("dd"), "exclusive")});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"dd-dev"}) << r.Describe();
  // Not even read: no log line names the manifests the variables give.
  for (const char* m : {"files.json", "legacy.json", "add.json"})
    EXPECT_TRUE(r.LogLines(m).empty()) << m << "\n" << r.Describe();
}

TEST_F(DirectDriver, ExclusiveIgnoresTheDriverFilters) {
  VKT_POLICY("LDP_LOADER_3", "RULE_DRV_DIRECT_LOADING", "RULE_DRV_FILTER_SELECT", "RULE_DRV_FILTER_DISABLE");
  s_.SetEnv("VK_LOADER_DRIVERS_SELECT", "nothing-matches-this*");
  s_.SetEnv("VK_LOADER_DRIVERS_DISABLE", "*");
  ProbeResult r = Run({Direct(s_.driver("dd"), "exclusive")});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"dd-dev"}) << r.Describe();
  EXPECT_TRUE(r.LogLines("VK_LOADER_DRIVERS_").empty()) << r.Describe();
}

TEST_F(DirectDriver, InclusiveListedDriversAreNotFiltered) {
  VKT_POLICY("LDP_LOADER_3", "RULE_DRV_DIRECT_LOADING", "RULE_DRV_FILTER_DISABLE");
  s_.SetEnv("VK_LOADER_DRIVERS_DISABLE", "*");
  ProbeResult r = Run({Direct(s_.driver("dd"), "inclusive")});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"dd-dev"}) << r.Describe();
  EXPECT_FALSE(s_.WasLoaded("sys")) << r.Describe();
}

// EXCLUSIVE also skips the settings file's additional_drivers (spec 1.3, the Khronos loader's
// loader.c:4095-4100; [Drv] "Interactions with other driver discovery mechanisms"); INCLUSIVE keeps
// them beside the system drivers.
TEST_F(DirectDriver, ExclusiveSkipsSettingsFileAdditionalDrivers) {
  VKT_POLICY("LDP_LOADER_3", "RULE_DRV_DIRECT_LOADING", "RULE_SETTINGS_FILE");
  AddNamedDriver(s_, "extra");
  std::string m = s_.WriteDriverManifest(Location::kLoose, "extra");
  s_.WriteFile(
      s_.xdg_config_home() + "/vulkan/loader_settings.d/vk_loader_settings.json",
      "{\"file_format_version\": \"1.0.0\", \"settings\": {\"additional_drivers\": [{\"path\": \"" + m + "\"}]}}");
  ProbeResult control = Run({});  // without the list the file's driver is loaded
  EXPECT_EQ(Sorted(control.DeviceNames()), (Names{"extra-dev", "sys-dev"})) << control.Describe();

  ProbeResult inclusive = Run({Direct(s_.driver("dd"), "inclusive")});
  EXPECT_EQ(CreateResult(inclusive), "VK_SUCCESS") << inclusive.Describe();
  EXPECT_EQ(Sorted(inclusive.DeviceNames()), (Names{"dd-dev", "extra-dev", "sys-dev"})) << inclusive.Describe();

  std::remove((s_.driver("extra").calls).c_str());
  ProbeResult r = Run({Direct(s_.driver("dd"), "exclusive")});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"dd-dev"}) << r.Describe();
  EXPECT_FALSE(s_.WasLoaded("extra")) << r.Describe();
  EXPECT_TRUE(r.LogLines("extra.json").empty()) << r.Describe();  // not even read
}

// The extension without the list: a warning, the usual drivers.
TEST_F(DirectDriver, ExtensionWithoutTheListWarns) {
  VKT_POLICY("LDP_LOADER_3", "RULE_DRV_DIRECT_LOADING");
  ProbeResult r = Run({}, std::string("ext=") + kExt);
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"sys-dev"}) << r.Describe();
  // The sentence the Khronos loader's users grep for.
  EXPECT_TRUE(Logged(r, "WARNING",
                     {"The VK_LUNARG_direct_driver_loading extension was enabled but the pNext chain of "
                      "VkInstanceCreateInfo did not contain the VkDirectDriverLoadingListLUNARG structure."}))
      << r.Describe();
}

// The list without the extension: a warning, the list ignored (even EXCLUSIVE).
TEST_F(DirectDriver, ListWithoutTheExtensionIsIgnoredWithAWarning) {
  VKT_POLICY("LDP_LOADER_3", "RULE_DRV_DIRECT_LOADING");
  ProbeResult r = Run({Direct(s_.driver("dd"), "exclusive", "no-ext")});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"sys-dev"}) << r.Describe();
  EXPECT_TRUE(s_.Calls("dd").empty()) << "the ignored list's driver was called\n" << r.Describe();
  EXPECT_TRUE(Logged(r, "WARNING",
                     {"The pNext chain of VkInstanceCreateInfo contained the VkDirectDriverLoadingListLUNARG "
                      "structure, but the VK_LUNARG_direct_driver_loading extension was not enabled."}))
      << r.Describe();
}

// An entry whose pfnGetInstanceProcAddr is NULL: an error line, that entry skipped, the next used.
TEST_F(DirectDriver, NullEntrySkippedWithAnError) {
  VKT_POLICY("LDP_LOADER_3", "RULE_DRV_DIRECT_LOADING");
  ProbeResult r = Run({"direct:null:exclusive", Direct(s_.driver("dd"), "exclusive")});
  EXPECT_EQ(r.Step("direct", 1)["entries"].num(), 2) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"dd-dev"}) << r.Describe();
  EXPECT_TRUE(Logged(r, "ERROR",
                     {"VkDirectDriverLoadingInfoLUNARG structure at index 0 contains a NULL pointer for the "
                      "pfnGetInstanceProcAddr member, skipping."}))
      << r.Describe();
}

// A NULL pDrivers or a zero driverCount: a warning, no listed driver; the mode still applies.
TEST_F(DirectDriver, NullDriversArrayWarns) {
  VKT_POLICY("LDP_LOADER_3", "RULE_DRV_DIRECT_LOADING");
  ProbeResult r = Run({Direct(s_.driver("dd"), "inclusive", "null-drivers")});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"sys-dev"}) << r.Describe();
  EXPECT_TRUE(s_.Calls("dd").empty()) << r.Describe();
  EXPECT_TRUE(Logged(r, "WARNING",
                     {"The VkDirectDriverLoadingListLUNARG structure in the pNext chain of VkInstanceCreateInfo has "
                      "a NULL pDrivers member."}))
      << r.Describe();
}

TEST_F(DirectDriver, ZeroDriverCountWarns) {
  VKT_POLICY("LDP_LOADER_3", "RULE_DRV_DIRECT_LOADING");
  ProbeResult r = Run({Direct(s_.driver("dd"), "inclusive", "zero-count")});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"sys-dev"}) << r.Describe();
  EXPECT_TRUE(s_.Calls("dd").empty()) << r.Describe();
  EXPECT_TRUE(Logged(r, "WARNING",
                     {"The VkDirectDriverLoadingListLUNARG structure in the pNext chain of VkInstanceCreateInfo has "
                      "a non-null pDrivers member but a driverCount member with a value of zero."}))
      << r.Describe();
}

// EXCLUSIVE with nothing usable in the list: no driver at all.
TEST_F(DirectDriver, ExclusiveWithAnEmptyListHasNoDriver) {
  VKT_POLICY("LDP_LOADER_3", "RULE_DRV_DIRECT_LOADING", "LDP_LOADER_1");
  ProbeResult r = Run({Direct(s_.driver("dd"), "exclusive", "zero-count")});
  EXPECT_EQ(CreateResult(r), "VK_ERROR_INCOMPATIBLE_DRIVER") << r.Describe();
  EXPECT_FALSE(s_.WasLoaded("sys")) << r.Describe();
  EXPECT_TRUE(Logged(r, "WARNING",
                     {"The VkDirectDriverLoadingListLUNARG structure in the pNext chain of VkInstanceCreateInfo has "
                      "a non-null pDrivers member but a driverCount member with a value of zero."}))
      << r.Describe();
}

// Negotiation for drivers given by pointer (spec §5.2, [Drv] "Loader and Driver Interface Version
// 7 Requirements"): the negotiation function must come from pfnGetInstanceProcAddr(NULL, ...) and
// the version must be 7 or newer; otherwise an error line and the entry skipped, while the other
// drivers (here the system one) keep working.
struct NegotiationCase {
  const char* name;
  const char* variant;
  const char* scenario;  // spliced into the device scenario
  bool negotiates;       // whether a negotiation call reaches the driver
  const char* logged;    // the Khronos loader's sentence for the rejection (an ERROR line)
};

class DirectDriverNegotiation : public ::testing::TestWithParam<NegotiationCase> {};

TEST_P(DirectDriverNegotiation, BelowInterfaceSevenIsSkipped) {
  VKT_POLICY("LDP_LOADER_5", "LDP_DRIVER_3", "RULE_DRV_DIRECT_INTERFACE");
  const NegotiationCase& c = GetParam();
  Sandbox s;
  AddNamedDriver(s, "sys");
  s.WriteDriverManifest(Location::kXdgConfigHome, "sys");
  AddNamedDriver(s, "dd", c.variant, c.scenario);
  AddNamedDriver(s, "good", "v7_direct");
  s.SetEnv("VK_LOADER_DISABLE_SELECT", "1");
  ProbeResult r = RunProbe(s, {Direct(s.driver("dd"), "inclusive"), Direct(s.driver("good"), "inclusive"),
                               "create-instance", "devices", "destroy-instance"});
  ASSERT_TRUE(r.Step("direct", 0)["resolved"].boolean()) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  // The rejected entry contributes nothing; the system driver and the entry after it do, in that order.
  EXPECT_EQ(r.DeviceNames(), (Names{"sys-dev", "good-dev"})) << r.Describe();
  EXPECT_TRUE(s.CallsTo("dd", "vkCreateInstance").empty()) << r.Describe();
  EXPECT_TRUE(Logged(r, "ERROR", {c.logged})) << r.Describe();
  std::vector<Json> neg = s.CallsTo("dd", "vk_icdNegotiateLoaderICDInterfaceVersion");
  if (c.negotiates) {
    ASSERT_FALSE(neg.empty()) << r.Describe();
    for (const Json& n : neg) EXPECT_TRUE(n["through_gipa"].boolean()) << n.dump();
  } else {
    // Never the exported negotiation function: the loader must not dlsym a direct driver.
    EXPECT_TRUE(neg.empty()) << r.Describe();
  }
}

INSTANTIATE_TEST_SUITE_P(
    DirectDriver, DirectDriverNegotiation,
    ::testing::Values(
        // Interface 6: negotiation exported only, pfnGetInstanceProcAddr(NULL, ...) does not give it.
        NegotiationCase{"interface_6_export_only", "v6", "", false,
                        "Could not get 'vk_icdNegotiateLoaderICDInterfaceVersion' from "
                        "VkDirectDriverLoadingInfoLUNARG structure at index 0, skipping."},
        // Interface 7 through the pointer, but the driver settles on 6 there.
        NegotiationCase{"negotiates_6", "v7_exports", "\"interface\":{\"max_through_gipa\":6}", true,
                        "VkDirectDriverLoadingInfoLUNARG structure at index 0 supports interface version 6, which is "
                        "incompatible with the Loader Driver Interface version that supports the "
                        "VK_LUNARG_direct_driver_loading extension, skipping."},
        // The driver refuses every version the loader offers.
        NegotiationCase{"incompatible", "v7", "\"interface\":{\"min\":99}", true,
                        "which is incompatible with the Loader Driver Interface version that supports the "
                        "VK_LUNARG_direct_driver_loading extension, skipping."}),
    [](const ::testing::TestParamInfo<NegotiationCase>& i) { return std::string(i.param.name); });

// The extension is the loader's own, listed after VK_KHR_portability_enumeration (the Khronos
// loader's order); the listed drivers' own instance extensions never appear before an instance
// exists (the list only reaches vkCreateInstance), yet vkCreateInstance accepts them.
TEST_F(DirectDriver, ExtensionListedButListedDriversExtensionsAreNot) {
  VKT_POLICY("LDP_LOADER_3", "RULE_DRV_DIRECT_LOADING", "RULE_INST_EXT_AGGREGATE");
  const char kOnlyDirect[] = "VK_KHR_external_memory_capabilities";
  s_.SetScenario("dd", DeviceScenario({"dd-dev"}, std::string("\"instance_extensions\":[\"") + kOnlyDirect +
                                                      "\",\"VK_KHR_get_physical_device_properties2\"]"));
  ProbeResult r = RunProbe(
      s_, {Direct(s_.driver("dd"), "inclusive"), "instance-extensions",
           std::string("create-instance:ext=") + kOnlyDirect, "instance-extensions", "devices", "destroy-instance"});
  for (size_t n = 0; n < 2; ++n) {
    Names order;
    Json list = r.Step("instance-extensions", n)["extensions"];
    for (size_t i = 0; i < list.size(); ++i) order.push_back(list[i]["name"].str());
    auto pos = [&](const char* e) { return std::find(order.begin(), order.end(), e) - order.begin(); };
    EXPECT_LT(pos(kExt), static_cast<long>(order.size())) << r.Describe();
    EXPECT_LT(pos("VK_KHR_portability_enumeration"), pos(kExt)) << r.Describe();
    EXPECT_EQ(pos(kOnlyDirect), static_cast<long>(order.size())) << n << "\n" << r.Describe();
  }
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), (Names{"sys-dev", "dd-dev"})) << r.Describe();
  // LDP_LOADER_9: only the driver that advertises it receives it. The loader may also enable, for
  // its own use, VK_KHR_get_physical_device_properties2, which this driver advertises (the Khronos
  // loader does, to sort devices).
  std::vector<Json> dd = s_.CallsTo("dd", "vkCreateInstance");
  ASSERT_FALSE(dd.empty()) << r.Describe();
  Names got = dd[0]["extensions"].strings();
  EXPECT_NE(std::find(got.begin(), got.end(), kOnlyDirect), got.end()) << dd[0].dump();
  for (const std::string& e : got)
    EXPECT_TRUE(e == kOnlyDirect || e == "VK_KHR_get_physical_device_properties2") << e << "\n" << dd[0].dump();
  for (const Json& c : s_.CallsTo("sys", "vkCreateInstance"))
    for (const std::string& e : c["extensions"].strings()) EXPECT_NE(e, kOnlyDirect) << c.dump();
}

}  // namespace
}  // namespace vkt
