// Unknown (loader-unknown) device and physical-device commands through vkGetInstanceProcAddr:
// the per-instance limit of 250 slots each, and device commands resolved before the device exists.
//
// Mock values (mock_icd/README.md "Unknown functions"): device slot n returns x + 10000 + n,
// physical-device slot n returns x + 20000 + n; the n-th name of the scenario list is slot n.
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

constexpr int kSlots = 250;  // the documented per-instance limit of each kind
constexpr uint32_t kArg = 7;

std::string FunctionList(const char* key, const std::string& prefix, int n) {
  std::string s = std::string("\"") + key + "\":[";
  for (int i = 0; i < n; ++i) s += (i ? ",\"" : "\"") + prefix + std::to_string(i) + "\"";
  return s + "]";
}

// Checks that the nth call-resolved returned base + arg + first + i for i < n (the names were
// PREFIX<first>.., served by mock slots first..).
void ExpectReturned(const ProbeResult& r, size_t nth, int n, uint32_t base, uint32_t arg, int first = 0) {
  Json ret = r.Step("call-resolved", nth)["returned"];
  ASSERT_GE(ret.size(), static_cast<size_t>(n)) << r.Describe();
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(ret[i].num(), static_cast<int64_t>(base) + arg + first + i) << "slot " << i << "\n" << r.Describe();
}

// 251 device commands: the first 250 resolve and reach the driver, the 251st is NULL.
TEST(UnknownFunctionLimit, DeviceFunctionsBeyond250) {
  VKT_POLICY("RULE_UNKNOWN_DEVICE_FUNC");
  Sandbox s;
  s.AddDriver("a", "v7_exports",
              DeviceScenario({"a-dev"}, FunctionList("device_functions", "vkVktDeviceFunc", kSlots + 1)));
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  s.SetEnv("VK_LOADER_DEBUG", "error");
  ProbeResult r = RunProbe(s, {"create-instance", "devices", "create-device:0",
                               "resolve-unknown:vkVktDeviceFunc," + std::to_string(kSlots + 1),
                               "call-resolved:device," + std::to_string(kArg), "destroy-device", "destroy-instance"});
  Json res = r.Step("resolve-unknown");
  ASSERT_EQ(res["resolved"].num(), kSlots) << r.Describe();
  ASSERT_EQ(res["null"].size(), 1u) << r.Describe();
  EXPECT_EQ(res["null"][0].num(), kSlots) << "the 251st name must be the NULL one\n" << r.Describe();
  ExpectReturned(r, 0, kSlots, 10000, kArg);
  EXPECT_TRUE(r.Step("call-resolved")["returned"][kSlots].is_null()) << r.Describe();
}

// 251 physical-device commands (interface-7 driver with vk_icdGetPhysicalDeviceProcAddr).
TEST(UnknownFunctionLimit, PhysicalDeviceFunctionsBeyond250) {
  VKT_POLICY("RULE_UNKNOWN_PHYSDEV_FUNC", "RULE_DRV_IFACE_V4");
  Sandbox s;
  s.AddDriver("a", "v7_exports",
              DeviceScenario({"a-dev"}, FunctionList("physdev_functions", "vkVktPhysDevFunc", kSlots + 1)));
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  s.SetEnv("VK_LOADER_DEBUG", "error");
  ProbeResult r =
      RunProbe(s, {"create-instance", "devices", "resolve-unknown:vkVktPhysDevFunc," + std::to_string(kSlots + 1),
                   "call-resolved:physdev," + std::to_string(kArg), "destroy-instance"});
  Json res = r.Step("resolve-unknown");
  ASSERT_EQ(res["resolved"].num(), kSlots) << r.Describe();
  ASSERT_EQ(res["null"].size(), 1u) << r.Describe();
  EXPECT_EQ(res["null"][0].num(), kSlots) << r.Describe();
  ExpectReturned(r, 0, kSlots, 20000, kArg);
}

// The limit is per instance: after an instance used all 250 slots, a second instance in the same
// process resolves six names the first never saw (PREFIX250..255).
TEST(UnknownFunctionLimit, LimitIsPerInstance) {
  VKT_POLICY("RULE_UNKNOWN_PHYSDEV_FUNC");
  Sandbox s;
  s.AddDriver("a", "v7_exports", DeviceScenario({"a-dev"}, FunctionList("physdev_functions", "vkVktPhysDevFunc", 256)));
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  s.SetEnv("VK_LOADER_DEBUG", "error");
  ProbeResult r =
      RunProbe(s, {"create-instance", "devices", "resolve-unknown:vkVktPhysDevFunc,250", "call-resolved:physdev,1",
                   "destroy-instance", "create-instance", "devices", "resolve-unknown:vkVktPhysDevFunc,6,250",
                   "call-resolved:physdev,2", "destroy-instance"});
  EXPECT_EQ(r.Step("resolve-unknown", 0)["resolved"].num(), kSlots) << r.Describe();
  EXPECT_EQ(r.Step("resolve-unknown", 1)["resolved"].num(), 6) << r.Describe();
  ExpectReturned(r, 0, kSlots, 20000, 1);
  ExpectReturned(r, 1, 6, 20000, 2, 250);
}

// Device commands resolved through vkGetInstanceProcAddr before any device exists work on a
// device created afterwards, and on a second device created later still.
TEST(UnknownDeviceFunctions, ResolvedBeforeCreateDevice) {
  VKT_POLICY("RULE_UNKNOWN_DEVICE_FUNC", "RULE_GIPA_SPEC");
  Sandbox s;
  s.AddDriver("a", "v7_exports",
              DeviceScenario({"a-dev"}, FunctionList("device_functions", "vkVktDeviceFunc", kSlots)));
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  s.SetEnv("VK_LOADER_DEBUG", "error");
  ProbeResult r =
      RunProbe(s, {"create-instance", "devices", "resolve-unknown:vkVktDeviceFunc," + std::to_string(kSlots),
                   "create-device:0", "call-resolved:device,3", "destroy-device", "create-device:0",
                   "call-resolved:device,4", "destroy-device", "destroy-instance"});
  ASSERT_EQ(r.Step("resolve-unknown")["resolved"].num(), kSlots) << r.Describe();
  ExpectReturned(r, 0, kSlots, 10000, 3);
  ExpectReturned(r, 1, kSlots, 10000, 4);
  // Every call reached the mock with one of its live devices.
  size_t device_handles = 0;
  for (const Json& c : s.CallsTo("a", "vkVktDeviceFunc17"))
    if (c["handle"].str() == "device") ++device_handles;
  EXPECT_EQ(device_handles, 2u) << ReadFileText(s.driver("a").calls).substr(0, 4000);
}

// The same names resolved after vkCreateDevice (through GIPA, so through the loader's slots).
TEST(UnknownDeviceFunctions, ResolvedAfterCreateDevice) {
  VKT_POLICY("RULE_UNKNOWN_DEVICE_FUNC", "RULE_GIPA_SPEC");
  Sandbox s;
  s.AddDriver("a", "v7_exports",
              DeviceScenario({"a-dev"}, FunctionList("device_functions", "vkVktDeviceFunc", kSlots)));
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  s.SetEnv("VK_LOADER_DEBUG", "error");
  ProbeResult r = RunProbe(
      s, {"create-instance", "devices", "create-device:0", "resolve-unknown:vkVktDeviceFunc," + std::to_string(kSlots),
          "call-resolved:device,5", "destroy-device", "destroy-instance"});
  ASSERT_EQ(r.Step("resolve-unknown")["resolved"].num(), kSlots) << r.Describe();
  ExpectReturned(r, 0, kSlots, 10000, 5);
}

// A mix: half the device names before vkCreateDevice, the other half after, on two drivers; each
// device reaches its own driver.
TEST(UnknownDeviceFunctions, TwoDriversEachDeviceReachesItsDriver) {
  VKT_POLICY("RULE_UNKNOWN_DEVICE_FUNC", "LDP_DRIVER_1");
  Sandbox s;
  s.AddDriver("a", "v7_exports", DeviceScenario({"a-dev"}, FunctionList("device_functions", "vkVktDeviceFunc", 8)));
  s.AddDriver("b", "v5", DeviceScenario({"b-dev"}, FunctionList("device_functions", "vkVktDeviceFunc", 8)));
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  s.WriteDriverManifest(Location::kXdgConfigHome, "b");
  ProbeResult r = RunProbe(s, {"create-instance", "devices", "resolve-unknown:vkVktDeviceFunc,8",
                               "create-device:@a-dev", "call-resolved:device,1", "destroy-device",
                               "create-device:@b-dev", "call-resolved:device,2", "destroy-device", "destroy-instance"});
  ExpectReturned(r, 0, 8, 10000, 1);
  ExpectReturned(r, 1, 8, 10000, 2);
  EXPECT_EQ(s.CallsTo("a", "vkVktDeviceFunc5").size(), 1u);
  EXPECT_EQ(s.CallsTo("b", "vkVktDeviceFunc5").size(), 1u);
}

}  // namespace
}  // namespace vkt
