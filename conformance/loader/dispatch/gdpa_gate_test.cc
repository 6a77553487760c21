// vkGetDeviceProcAddr and the API version the device was created for (RULE_GDPA_API_VERSION), and
// VK_KHR_maintenance5's rule for commands of extensions that are not enabled
// (RULE_GDPA_MAINTENANCE5). Both gates apply only with VK_KHR_maintenance5 enabled and its
// maintenance5 feature on (the Vulkan specification ties the NULL answers to that feature; without
// it implementations answer such names, applications rely on it, and so does the Khronos loader). The mock driver
// answers every name of its scenario's device_functions (mock_icd/README.md), so a NULL here is the loader's decision,
// not the driver's.
#include <ostream>
#include <string>
#include <vector>

#include "conformance/loader/common.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

// Core device commands of each version (vk.xml feature), and an extension alias of a 1.3 command.
constexpr char kCore10[] = "vkCmdFillBuffer";           // mock implements it
constexpr char kCore11Queue2[] = "vkGetDeviceQueue2";   // mock implements it; the loader intercepts it
constexpr char kCore11[] = "vkTrimCommandPool";         // 1.1 (VK_KHR_maintenance1's vkTrimCommandPoolKHR)
constexpr char kCore12[] = "vkGetBufferDeviceAddress";  // 1.2
constexpr char kCore13[] = "vkCmdSetCullMode";          // 1.3
constexpr char kExtAlias13[] = "vkCmdSetCullModeEXT";   // VK_EXT_extended_dynamic_state

std::string CoreFunctions() {
  return std::string("\"device_functions\":[\"") + kCore11 + "\",\"" + kCore12 + "\",\"" + kCore13 + "\",\"" +
         kExtAlias13 + "\"]";
}

// One driver "drv" whose single device reports `device_api`; the steps create an instance with
// `app_api` ("" for no VkApplicationInfo: 1.0), a device on it, and ask the loader's GDPA for every
// command above. Returns the gdpa lines in the order of `names`.
std::vector<Json> AskAll(const std::string& device_api, const std::string& app_api,
                         const std::vector<std::string>& names, ProbeResult* out, bool maintenance5 = true) {
  Sandbox s;
  s.AddDriver("drv", "v7_exports",
              "{\"api_version\":\"1.3.0\",\"physical_devices\":[{\"name\":\"drv-dev\",\"api_version\":\"" + device_api +
                  "\",\"extensions\":[{\"name\":\"VK_KHR_maintenance5\",\"spec_version\":1}]}]," + CoreFunctions() +
                  "}");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  std::vector<std::string> steps = {
      app_api.empty() ? "create-instance:api=none" : "create-instance:api=" + app_api, "devices",
      maintenance5 ? "create-device:0;ext=VK_KHR_maintenance5;maintenance5" : "create-device:0"};
  for (const std::string& n : names) steps.push_back("gdpa:" + n);
  steps.push_back("destroy-device");
  steps.push_back("destroy-instance");
  *out = RunProbe(s, steps);
  return out->Steps("gdpa");
}

struct VersionCase {
  const char* label;
  const char* device_api;
  const char* app_api;
  int effective_minor;  // 1.<minor>
};

void PrintTo(const VersionCase& c, std::ostream* os) {
  *os << "device " << c.device_api << ", application " << (*c.app_api ? c.app_api : "(no VkApplicationInfo)");
}

class GdpaApiVersion : public ::testing::TestWithParam<VersionCase> {};

// With maintenance5 on, a core command is given when its version is at most min(application
// apiVersion, device apiVersion), NULL otherwise, whatever the driver answers; an extension's name
// (here vkCmdSetCullModeEXT, whose extension is not enabled) is NULL too.
TEST_P(GdpaApiVersion, CoreCommandsUpToTheEffectiveVersion) {
  VKT_POLICY("RULE_GDPA_API_VERSION", "RULE_GDPA_DIRECT");
  const VersionCase& c = GetParam();
  const std::vector<std::string> names = {kCore10, kCore11Queue2, kCore11, kCore12, kCore13, kExtAlias13};
  const int minor_of[] = {0, 1, 1, 2, 3, 99};  // the extension command: never given
  ProbeResult r;
  std::vector<Json> g = AskAll(c.device_api, c.app_api, names, &r);
  ASSERT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  ASSERT_EQ(g.size(), names.size()) << r.Describe();
  for (size_t i = 0; i < names.size(); ++i) {
    bool expected = minor_of[i] <= c.effective_minor;
    EXPECT_EQ(g[i]["non_null"].boolean(!expected), expected)
        << names[i] << " on a device of " << c.device_api << " for application " << c.app_api << ": " << g[i].dump();
  }
}

std::string CaseName(const ::testing::TestParamInfo<VersionCase>& i) { return i.param.label; }

// Both versions 1.3: every command is given (the control).
INSTANTIATE_TEST_SUITE_P(Full, GdpaApiVersion, ::testing::Values(VersionCase{"App13Device13", "1.3.0", "1.3", 3}),
                         CaseName);

// The application's or the device's version is lower: the commands above it are NULL.
// Without the maintenance5 feature nothing is gated: every core command and the extension alias
// are the driver's, whatever the application's and the device's versions (the Khronos loader's
// answer; an application checks the device's version before calling a newer command).
TEST(GdpaApiVersionWithoutMaintenance5, EveryCommandGiven) {
  VKT_POLICY("RULE_GDPA_API_VERSION", "RULE_GDPA_DIRECT");
  const std::vector<std::string> names = {kCore10, kCore11Queue2, kCore11, kCore12, kCore13, kExtAlias13};
  ProbeResult r;
  std::vector<Json> g = AskAll("1.0.0", "1.0", names, &r, /*maintenance5=*/false);
  ASSERT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  ASSERT_EQ(g.size(), names.size()) << r.Describe();
  for (size_t i = 0; i < names.size(); ++i) EXPECT_TRUE(g[i]["non_null"].boolean()) << names[i] << ": " << g[i].dump();
}

INSTANTIATE_TEST_SUITE_P(
    Lowered, GdpaApiVersion,
    ::testing::Values(VersionCase{"App11Device13", "1.3.0", "1.1", 1}, VersionCase{"App13Device11", "1.1.0", "1.3", 1},
                      VersionCase{"App12Device13", "1.3.0", "1.2", 2}, VersionCase{"NoAppInfoDevice13", "1.3.0", "", 0},
                      VersionCase{"App10Device12", "1.2.0", "1.0", 0},
                      // The application's patch number does not count; the device's lower version wins.
                      VersionCase{"App13Patch9Device12", "1.2.0", "1.3.9", 2}),
    CaseName);

// ---- VK_KHR_maintenance5 ------------------------------------------------------------------------

constexpr char kMaint5[] = "VK_KHR_maintenance5";
// Commands of device extensions the device advertises; which are enabled varies per test.
constexpr char kPushDescriptor[] = "vkCmdPushDescriptorSetKHR";  // VK_KHR_push_descriptor
constexpr char kGroupPresentCaps[] =
    "vkGetDeviceGroupPresentCapabilitiesKHR";                       // VK_KHR_swapchain or VK_KHR_device_group
constexpr char kDebugUtilsName[] = "vkSetDebugUtilsObjectNameEXT";  // instance extension VK_EXT_debug_utils

std::string Maint5Scenario() {
  std::string exts;
  for (const char* e : {kMaint5, "VK_EXT_extended_dynamic_state", "VK_KHR_push_descriptor", "VK_KHR_device_group"})
    exts += std::string(exts.empty() ? "" : ",") + "{\"name\":\"" + e + "\",\"spec_version\":1}";
  return "{\"api_version\":\"1.3.0\",\"instance_extensions\":[\"VK_EXT_debug_utils\"],"
         "\"physical_devices\":[{\"name\":\"drv-dev\",\"api_version\":\"1.3.0\",\"extensions\":[" +
         exts +
         "]}],"
         "\"device_functions\":[\"" +
         std::string(kExtAlias13) + "\",\"" + kPushDescriptor + "\",\"" + kGroupPresentCaps + "\",\"" +
         kDebugUtilsName + "\",\"" + kCore13 + "\"]}";
}

struct Maint5Run {
  ProbeResult r;
  std::vector<Json> g;
};

Maint5Run RunMaint5(const std::string& instance_opts, const std::string& device_exts,
                    const std::vector<std::string>& names, bool maintenance5 = true) {
  Sandbox s;
  s.AddDriver("drv", "v7_exports", Maint5Scenario());
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  std::vector<std::string> steps = {"create-instance:" + instance_opts, "devices",
                                    "create-device:0;ext=" + device_exts + (maintenance5 ? ";maintenance5" : "")};
  for (const std::string& n : names) steps.push_back("gdpa:" + n);
  steps.push_back("destroy-device");
  steps.push_back("destroy-instance");
  Maint5Run m;
  m.r = RunProbe(s, steps);
  m.g = m.r.Steps("gdpa");
  return m;
}

// With VK_KHR_maintenance5 enabled, a command of an extension that is not enabled is NULL although
// the driver answers it; one of an enabled extension is given; a command that vk.xml gives to two
// extensions is given when the second one is enabled; a device command of an instance extension
// follows the instance's extensions; core commands still follow the version.
TEST(GdpaMaintenance5, CommandsOfExtensionsNotEnabledAreNull) {
  VKT_POLICY("RULE_GDPA_MAINTENANCE5", "RULE_GDPA_API_VERSION");
  const std::vector<std::string> names = {kExtAlias13,     kPushDescriptor, kGroupPresentCaps,
                                          kDebugUtilsName, kCore13,         kCore10};
  Maint5Run m =
      RunMaint5("api=1.3", std::string(kMaint5) + ",VK_EXT_extended_dynamic_state,VK_KHR_device_group", names);
  ASSERT_EQ(m.r.Step("create-device")["result"].str(), "VK_SUCCESS") << m.r.Describe();
  ASSERT_EQ(m.g.size(), names.size()) << m.r.Describe();
  const bool expected[] = {true, false, true, false, true, true};
  for (size_t i = 0; i < names.size(); ++i)
    EXPECT_EQ(m.g[i]["non_null"].boolean(!expected[i]), expected[i]) << names[i] << ": " << m.g[i].dump();
}

// The instance enables VK_EXT_debug_utils: its device commands are given with maintenance5.
TEST(GdpaMaintenance5, InstanceExtensionDeviceCommandsFollowTheInstance) {
  VKT_POLICY("RULE_GDPA_MAINTENANCE5");
  Maint5Run m = RunMaint5("api=1.3;ext=VK_EXT_debug_utils", kMaint5, {kDebugUtilsName, kPushDescriptor});
  ASSERT_EQ(m.r.Step("create-device")["result"].str(), "VK_SUCCESS") << m.r.Describe();
  ASSERT_EQ(m.g.size(), 2u) << m.r.Describe();
  EXPECT_TRUE(m.g[0]["non_null"].boolean()) << m.g[0].dump();
  EXPECT_FALSE(m.g[1]["non_null"].boolean(true)) << m.g[1].dump();
}

// Without VK_KHR_maintenance5 the loader does not gate extension commands: the same device with
// the same extensions gives the driver's pointers for the ones not enabled (the maintenance5 feature
// struct is chained, but the extension is not enabled).
TEST(GdpaMaintenance5, WithoutMaintenance5ExtensionCommandsAreNotGated) {
  VKT_POLICY("RULE_GDPA_MAINTENANCE5", "RULE_GDPA_DIRECT");
  Maint5Run m =
      RunMaint5("api=1.3", "VK_EXT_extended_dynamic_state", {kPushDescriptor, kGroupPresentCaps, kExtAlias13});
  ASSERT_EQ(m.r.Step("create-device")["result"].str(), "VK_SUCCESS") << m.r.Describe();
  ASSERT_EQ(m.g.size(), 3u) << m.r.Describe();
  for (const Json& j : m.g) EXPECT_TRUE(j["non_null"].boolean()) << j.dump();
}

// The device commands of an instance extension (VK_EXT_debug_utils' object names and labels) are
// NULL on an instance that did not enable it, with or without maintenance5, although the driver
// answers them; enabled on the instance, they are given.
TEST(GdpaInstanceExtension, DebugUtilsDeviceCommandsFollowTheInstance) {
  VKT_POLICY("RULE_GDPA_INSTANCE_EXTENSION", "RULE_GDPA_DIRECT");
  const std::vector<std::string> names = {kDebugUtilsName, kPushDescriptor};
  Maint5Run off = RunMaint5("api=1.3", "VK_KHR_push_descriptor", names, /*maintenance5=*/false);
  ASSERT_EQ(off.r.Step("create-device")["result"].str(), "VK_SUCCESS") << off.r.Describe();
  ASSERT_EQ(off.g.size(), 2u) << off.r.Describe();
  EXPECT_FALSE(off.g[0]["non_null"].boolean(true)) << off.g[0].dump();
  EXPECT_TRUE(off.g[1]["non_null"].boolean()) << off.g[1].dump();
  Maint5Run on = RunMaint5("api=1.3;ext=VK_EXT_debug_utils", "VK_KHR_push_descriptor", names, /*maintenance5=*/false);
  ASSERT_EQ(on.r.Step("create-device")["result"].str(), "VK_SUCCESS") << on.r.Describe();
  ASSERT_EQ(on.g.size(), 2u) << on.r.Describe();
  EXPECT_TRUE(on.g[0]["non_null"].boolean()) << on.g[0].dump();
  EXPECT_TRUE(on.g[1]["non_null"].boolean()) << on.g[1].dump();
}

// The same gate through vkGetInstanceProcAddr: a device command of VK_EXT_debug_utils is NULL for
// an instance that did not enable the extension; a device command of a device extension is not
// gated there (RULE_GDPA_INSTANCE_EXTENSION).
TEST(GdpaInstanceExtension, DebugUtilsDeviceCommandsThroughGetInstanceProcAddr) {
  VKT_POLICY("RULE_GDPA_INSTANCE_EXTENSION", "RULE_GIPA_SPEC");
  Sandbox s;
  AddNamedDriver(s, "drv");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  ProbeResult r =
      RunProbe(s, {"create-instance", "gipa:" + std::string(kDebugUtilsName), "gipa:vkCmdDebugMarkerBeginEXT",
                   "destroy-instance", "create-instance:ext=VK_EXT_debug_utils", "gipa:" + std::string(kDebugUtilsName),
                   "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_FALSE(r.Step("gipa", 0)["non_null"].boolean(true)) << r.Describe();
  EXPECT_TRUE(r.Step("gipa", 1)["non_null"].boolean()) << r.Describe();
  EXPECT_TRUE(r.Step("gipa", 2)["non_null"].boolean()) << r.Describe();
}

// vkSetDebugUtilsObjectNameEXT naming the loader's own dispatchable objects: the driver receives its
// own instance and physical device, not the loader's handles (which it could not look up), with no
// layer and through a layer; a device handle is the driver's already (RULE_DEBUG_OBJECT_HANDLES).
TEST(DebugObjectHandles, DriverReceivesItsOwnInstanceAndPhysicalDevice) {
  VKT_POLICY("RULE_DEBUG_OBJECT_HANDLES");
  for (bool layered : {false, true}) {
    Sandbox s;
    AddNamedDriver(s, "drv", "v7_exports",
                   "\"instance_extensions\":[{\"name\":\"VK_EXT_debug_utils\",\"spec_version\":1}]");
    s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
    std::string create = "create-instance:ext=VK_EXT_debug_utils";
    if (layered) {
      AddMockLayer(s, "VK_LAYER_VKT_names", false, Location::kXdgDataDirs, "v2_gpdpa");
      create += ";layers=VK_LAYER_VKT_names";
    }
    ProbeResult r =
        RunProbe(s, {create, "devices", "create-device:0", "object-names", "destroy-device", "destroy-instance"});
    ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
    Json o = r.Step("object-names");
    ASSERT_TRUE(o["non_null"].boolean()) << r.Describe();
    EXPECT_EQ(o["instance"].str(), "VK_SUCCESS") << layered << r.Describe();
    EXPECT_EQ(o["physical_device"].str(), "VK_SUCCESS") << layered << r.Describe();
    EXPECT_EQ(o["device"].str(), "VK_SUCCESS") << layered << r.Describe();
    std::vector<Json> calls = s.CallsTo("drv", "vkSetDebugUtilsObjectNameEXT");
    ASSERT_EQ(calls.size(), 3u) << r.Describe();
    for (const Json& c : calls) EXPECT_TRUE(c["known_object"].boolean()) << c.dump();
  }
}

}  // namespace
}  // namespace vkt
