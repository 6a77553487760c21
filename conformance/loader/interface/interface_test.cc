// Loader/driver interface versions 0..7 and negotiation.
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

struct Iface {
  const char* variant;
  const char* rule;
  int version;  // interface the driver supports at most
  // The mock's "first_entry" classification of the loader's first call; '|' separates the
  // alternatives the driver interface document allows. A v1 driver sees either a loader asking
  // vk_icdGetInstanceProcAddr for the negotiation function (how an interface-7 loader probes, so
  // the mock calls it "v7") or, from an older loader, any other first query ("legacy_v1").
  const char* first_loader;
};

static bool OneOf(const std::string& value, const std::string& alternatives) {
  size_t start = 0;
  while (true) {
    size_t bar = alternatives.find('|', start);
    if (alternatives.substr(start, bar == std::string::npos ? std::string::npos : bar - start) == value) return true;
    if (bar == std::string::npos) return false;
    start = bar + 1;
  }
}

class DriverInterface : public ::testing::TestWithParam<Iface> {};

TEST_P(DriverInterface, LoadedAndNegotiated) {
  const Iface& p = GetParam();
  VKT_POLICY("LDP_DRIVER_3", p.rule);
  Sandbox s;
  // Interfaces <= 4 must reject API versions above their own; keep the app at 1.0 for those.
  AddNamedDriver(s, "a", p.variant);
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(s, {"create-instance", "devices", "create-device:0", "destroy-device", "destroy-instance"});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
  EXPECT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  std::vector<Json> first = s.CallsTo("a", "first_entry");
  ASSERT_FALSE(first.empty());
  EXPECT_TRUE(OneOf(first[0]["loader"].str(), p.first_loader))
      << "expected " << p.first_loader << ", got " << first[0].dump();
  std::vector<Json> neg = s.CallsTo("a", "vk_icdNegotiateLoaderICDInterfaceVersion");
  if (p.version >= 2) {
    ASSERT_FALSE(neg.empty()) << "negotiation never happened";
    EXPECT_GE(neg[0]["offered"].num(), p.version) << neg[0].dump();
    EXPECT_EQ(neg[0]["result"].str(), "VK_SUCCESS") << neg[0].dump();
  } else {
    EXPECT_TRUE(neg.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Drivers, DriverInterface,
                         ::testing::Values(Iface{"v0", "RULE_DRV_IFACE_V0", 0, "v0"},
                                           Iface{"v1", "RULE_DRV_IFACE_V1", 1, "legacy_v1|v7"},
                                           Iface{"v2", "RULE_DRV_IFACE_V2", 2, "negotiate"},
                                           Iface{"v3", "RULE_DRV_IFACE_V3", 3, "negotiate"},
                                           Iface{"v4", "RULE_DRV_IFACE_V4", 4, "negotiate"},
                                           Iface{"v4_gpdpa", "RULE_DRV_IFACE_V4", 4, "negotiate"},
                                           Iface{"v5", "RULE_DRV_IFACE_V5", 5, "negotiate"},
                                           Iface{"v6", "RULE_DRV_IFACE_V6", 6, "negotiate"},
                                           Iface{"v7", "RULE_DRV_IFACE_V7", 7, "v7"},
                                           Iface{"v7_exports", "RULE_DRV_IFACE_V7", 7, "negotiate"}),
                         [](const ::testing::TestParamInfo<Iface>& i) { return std::string(i.param.variant); });

TEST(Negotiation, IncompatibleDriverIgnoredOthersWork) {
  VKT_POLICY("LDP_LOADER_5", "LDP_DRIVER_3", "LDP_DRIVER_1");
  Sandbox s;
  AddNamedDriver(s, "bad", "v7_exports", "\"interface\":{\"negotiate_result\":\"VK_ERROR_INCOMPATIBLE_DRIVER\"}");
  AddNamedDriver(s, "good", "v7_exports");
  s.WriteDriverManifest(Location::kXdgConfigHome, "bad");
  s.WriteDriverManifest(Location::kXdgConfigHome, "good");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
  EXPECT_TRUE(s.CallsTo("bad", "vkCreateInstance").empty()) << "an unnegotiated driver was used";
}

TEST(Negotiation, DriverMinimumAboveLoaderIgnored) {
  VKT_POLICY("LDP_LOADER_5", "LDP_DRIVER_3");
  Sandbox s;
  // The driver only speaks interfaces 8..9: whatever the loader offers (<= 7) is refused.
  AddNamedDriver(s, "bad", "v7_exports", "\"interface\":{\"min\":8,\"max\":9}");
  AddNamedDriver(s, "good", "v5");
  s.WriteDriverManifest(Location::kXdgConfigHome, "bad");
  s.WriteDriverManifest(Location::kXdgConfigHome, "good");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
  EXPECT_TRUE(s.CallsTo("bad", "vkCreateInstance").empty());
}

TEST(Negotiation, OnlyIncompatibleDriverGivesIncompatibleDriver) {
  VKT_POLICY("LDP_LOADER_5", "LDP_LOADER_1");
  Sandbox s;
  AddNamedDriver(s, "bad", "v7_exports", "\"interface\":{\"negotiate_result\":\"VK_ERROR_INCOMPATIBLE_DRIVER\"}");
  s.WriteDriverManifest(Location::kXdgConfigHome, "bad");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(CreateResult(r), "VK_ERROR_INCOMPATIBLE_DRIVER") << r.Describe();
}

// LDP_DRIVER_7: a driver whose manifest claims Vulkan >= 1.1 but negotiates interface <= 4 is
// still used, with a warning naming the policy.
TEST(Negotiation, Api11DriverBelowInterface5Warns) {
  VKT_POLICY("LDP_DRIVER_7");
  Sandbox s;
  AddNamedDriver(s, "old", "v4");
  ManifestSpec m = s.ManifestFor("old");
  m.api_version = "1.1.0";
  s.WriteManifest(Location::kXdgConfigHome, "old.json", m.ToJson());
  ProbeResult r = RunProbe(s, {"create-instance:messenger=debug-utils", "devices"});
  EXPECT_EQ(r.DeviceNames(), Names{"old-dev"}) << r.Describe();
  EXPECT_TRUE(r.LogContains("LDP_DRIVER_7")) << r.Describe();
}

TEST(Negotiation, Api11DriverAtInterface5DoesNotWarn) {
  VKT_POLICY("LDP_DRIVER_7");
  Sandbox s;
  AddNamedDriver(s, "new", "v5");
  ManifestSpec m = s.ManifestFor("new");
  m.api_version = "1.1.0";
  s.WriteManifest(Location::kXdgConfigHome, "new.json", m.ToJson());
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"new-dev"}) << r.Describe();
  EXPECT_FALSE(r.LogContains("LDP_DRIVER_7")) << r.Describe();
}

}  // namespace
}  // namespace vkt
