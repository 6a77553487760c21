// Physical-device order on Linux (RULE_PHYSDEV_SORT: device type, PCI bus information,
// VK_LOADER_DEVICE_SELECT, VK_LOADER_DISABLE_SELECT) and the ID filters (RULE_PHYSDEV_ID_FILTER:
// VK_LOADER_DEVICE_ID_FILTER / VK_LOADER_VENDOR_ID_FILTER / VK_LOADER_DRIVER_ID_FILTER), for
// devices and groups. Devices come from mock drivers whose scenario sets type, IDs and PCI bus.
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

struct Dev {
  std::string name;
  std::string type = "discrete";
  unsigned vendor = 0x1000;
  unsigned device = 1;
  int pci_bus = -1;  // >= 0: exposes VK_EXT_pci_bus_info with bus `pci_bus` (domain 0, device 0, function 0)
  unsigned driver_id = 0;
};

std::string DevJson(const Dev& d) {
  std::string s = "{\"name\":\"" + d.name + "\",\"device_type\":\"" + d.type +
                  "\",\"vendor_id\":" + std::to_string(d.vendor) + ",\"device_id\":" + std::to_string(d.device) +
                  ",\"driver_id\":" + std::to_string(d.driver_id) + ",\"api_version\":\"1.3.0\"";
  if (d.pci_bus >= 0)
    s += ",\"pci_bus\":[0," + std::to_string(d.pci_bus) +
         ",0,0],\"extensions\":[{\"name\":\"VK_EXT_pci_bus_info\",\"spec_version\":2}]";
  return s + "}";
}

// `groups` (JSON array of index arrays) optional.
std::string Scenario(const std::vector<Dev>& devs, const std::string& groups = "") {
  std::string s = "{\"physical_devices\":[";
  for (size_t i = 0; i < devs.size(); ++i) s += (i ? "," : "") + DevJson(devs[i]);
  s += "]";
  if (!groups.empty()) s += ",\"groups\":" + groups;
  return s + "}";
}

void AddDriver(Sandbox& s, const std::string& name, const std::vector<Dev>& devs, const std::string& groups = "") {
  s.AddDriver(name, "v7_exports", Scenario(devs, groups));
  s.WriteDriverManifest(Location::kXdgConfigHome, name);
}

ProbeResult Enumerate(const Sandbox& s) {
  return RunProbe(s, {"create-instance:api=1.1", "devices", "groups", "destroy-instance"});
}

// The groups step as member names (indices resolved through the devices step).
std::vector<Names> GroupNames(const ProbeResult& r) {
  Names devs = r.DeviceNames();
  std::vector<Names> out;
  Json g = r.Step("groups")["groups"];
  for (size_t i = 0; i < g.size(); ++i) {
    Names members;
    for (size_t j = 0; j < g[i].size(); ++j) {
      int idx = static_cast<int>(g[i][j].num());
      members.push_back(idx >= 0 && static_cast<size_t>(idx) < devs.size() ? devs[idx] : "<not enumerated>");
    }
    out.push_back(members);
  }
  return out;
}

void ExpectOursLogs(const ProbeResult& r, const std::string& needle) {
  if (LoaderName() == "ours") {
    EXPECT_TRUE(r.LogContains(needle)) << "no log line with " << needle << "\n" << r.Describe();
  }
}

// ---- RULE_PHYSDEV_SORT -------------------------------------------------------------------------

TEST(PhysicalDeviceOrder, ByDeviceType) {
  VKT_POLICY("RULE_PHYSDEV_SORT");
  Sandbox s;
  AddDriver(s, "a",
            {{"cpu0", "cpu", 0x1000, 1},
             {"int0", "integrated", 0x1000, 2},
             {"oth0", "other", 0x1000, 3},
             {"dis0", "discrete", 0x1000, 4},
             {"vir0", "virtual", 0x1000, 5}});
  ProbeResult r = Enumerate(s);
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), (Names{"dis0", "int0", "vir0", "oth0", "cpu0"})) << r.Describe();
}

// Found by loader_diff_fuzzer (docs/fuzzing.md "Differential fuzzing"): the order does not depend
// on whether the instance can use vkGetPhysicalDeviceProperties2 (a Vulkan 1.0 application, a
// driver without VK_KHR_get_physical_device_properties2): the type comes from the 1.0 properties.
TEST(PhysicalDeviceOrder, ByDeviceTypeAtVulkan10WithoutProperties2) {
  VKT_POLICY("RULE_PHYSDEV_SORT");
  Sandbox s;
  s.AddDriver("a", "v2",
              "{\"instance_extensions\":[],\"physical_devices\":[" + DevJson({"cpu0", "cpu", 0x1000, 1}) + "," +
                  DevJson({"int0", "integrated", 0x1000, 2}) + "," + DevJson({"dis0", "discrete", 0x1000, 3}) + "]}");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(s, {"create-instance:api=1.0", "devices", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), (Names{"dis0", "int0", "cpu0"})) << r.Describe();
}

TEST(PhysicalDeviceOrder, ByDeviceTypeAcrossDrivers) {
  VKT_POLICY("RULE_PHYSDEV_SORT", "RULE_PHYSDEV_AGGREGATE");
  Sandbox s;
  // Whatever order the drivers are found in, the discrete devices come first.
  AddDriver(s, "a", {{"a-int", "integrated", 0x1000, 1}, {"a-cpu", "cpu", 0x1000, 2}});
  AddDriver(s, "b", {{"b-dis", "discrete", 0x1000, 3}});
  AddDriver(s, "c", {{"c-int", "integrated", 0x1000, 4}});
  ProbeResult r = Enumerate(s);
  Names n = r.DeviceNames();
  ASSERT_EQ(n.size(), 4u) << r.Describe();
  EXPECT_EQ(n[0], "b-dis") << r.Describe();
  EXPECT_EQ(Sorted(Names{n[1], n[2]}), (Names{"a-int", "c-int"})) << r.Describe();
  EXPECT_EQ(n[3], "a-cpu") << r.Describe();
}

TEST(PhysicalDeviceOrder, PciBusInfoWithinType) {
  VKT_POLICY("RULE_PHYSDEV_SORT");
  Sandbox s;
  Dev nopci{"nopci", "discrete", 0x1000, 1};
  Dev bus7{"bus7", "discrete", 0x1000, 2, 7};
  Dev bus2{"bus2", "discrete", 0x1000, 3, 2};
  Dev intpci{"int-bus0", "integrated", 0x1000, 4, 0};
  AddDriver(s, "a", {nopci, bus7, intpci, bus2});
  ProbeResult r = Enumerate(s);
  EXPECT_EQ(r.DeviceNames(), (Names{"bus2", "bus7", "nopci", "int-bus0"})) << r.Describe();
}

TEST(PhysicalDeviceOrder, DeviceSelectMovesDeviceFirst) {
  VKT_POLICY("RULE_PHYSDEV_SORT");
  Sandbox s;
  AddDriver(s, "a", {{"dis0", "discrete", 0x10de, 0x2204}, {"int0", "integrated", 0x8086, 0x9a49}});
  s.SetEnv("VK_LOADER_DEVICE_SELECT", "8086:9a49");
  ProbeResult r = Enumerate(s);
  EXPECT_EQ(r.DeviceNames(), (Names{"int0", "dis0"})) << r.Describe();
  ExpectOursLogs(r, "RULE_PHYSDEV_SORT");
}

TEST(PhysicalDeviceOrder, DeviceSelectWithoutDeviceIdIgnored) {
  VKT_POLICY("RULE_PHYSDEV_SORT");
  Sandbox s;
  AddDriver(s, "a", {{"dis0", "discrete", 0x10de, 0x2204}, {"int0", "integrated", 0x8086, 0x9a49}});
  s.SetEnv("VK_LOADER_DEVICE_SELECT", "8086");  // both parts are required
  ProbeResult r = Enumerate(s);
  EXPECT_EQ(r.DeviceNames(), (Names{"dis0", "int0"})) << r.Describe();
}

TEST(PhysicalDeviceOrder, DisableSelectKeepsDriverOrder) {
  VKT_POLICY("RULE_PHYSDEV_SORT");
  Sandbox s;
  AddDriver(s, "a", {{"cpu0", "cpu", 0x1000, 1}, {"int0", "integrated", 0x1000, 2}, {"dis0", "discrete", 0x1000, 3}});
  s.SetEnv("VK_LOADER_DISABLE_SELECT", "1");
  s.SetEnv("VK_LOADER_DEVICE_SELECT", "1000:3");  // has no effect without sorting
  ProbeResult r = Enumerate(s);
  EXPECT_EQ(r.DeviceNames(), (Names{"cpu0", "int0", "dis0"})) << r.Describe();
  ExpectOursLogs(r, "not sorted: last driver found first, each driver's own order within it [RULE_PHYSDEV_SORT]");
}

// Unsorted order across several drivers and search directories: what the Khronos loader does (its
// drivers are kept in a list that each new one is pushed onto the front of, so the last driver
// found comes first; within a driver the driver's own order), so that a program tuned on it sees
// the same device first.
TEST(PhysicalDeviceOrder, DisableSelectOrderAcrossDrivers) {
  VKT_POLICY("RULE_PHYSDEV_SORT");
  Sandbox s;
  AddDriver(s, "a", {{"a0", "cpu", 0x1000, 1}, {"a1", "discrete", 0x1000, 2}});
  AddDriver(s, "b", {{"b0", "integrated", 0x1000, 3}});
  s.AddDriver("c", "v7_exports", Scenario({{"c0", "discrete", 0x1000, 4}}));
  s.WriteDriverManifest(Location::kXdgDataHome, "c");  // a later search directory
  s.SetEnv("VK_LOADER_DISABLE_SELECT", "1");
  ProbeResult r = Enumerate(s);
  EXPECT_EQ(r.DeviceNames(), (Names{"c0", "b0", "a0", "a1"})) << r.Describe();
  EXPECT_EQ(GroupNames(r), (std::vector<Names>{{"c0"}, {"b0"}, {"a0"}, {"a1"}})) << r.Describe();
}

// The application's pNext chains of VkPhysicalDeviceGroupProperties reach the driver with the group
// and come back to the application untouched.
TEST(PhysicalDeviceGroups, ApplicationPNextChainsReachTheDriver) {
  VKT_POLICY("RULE_PHYSDEV_SORT");
  Sandbox s;
  AddDriver(s, "a", {{"g0", "discrete", 0x1000, 1}, {"g1", "discrete", 0x1000, 2}}, "[[0,1]]");
  ProbeResult r = RunProbe(s, {"create-instance:api=1.1", "devices", "groups:pnext", "destroy-instance"});
  ASSERT_EQ(r.Step("groups")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_TRUE(r.Step("groups")["pnext_kept"].boolean()) << r.Describe();
  // The driver's call that filled the groups saw the application's structure.
  bool seen = false;
  for (const Json& c : s.CallsTo("a", "vkEnumeratePhysicalDeviceGroups")) {
    Json chains = c["pnext_stypes"];
    for (size_t i = 0; i < chains.size(); ++i) seen = seen || chains[i].num() == 1000999000;
  }
  EXPECT_TRUE(seen) << ReadFileText(s.driver("a").calls);
}

TEST(PhysicalDeviceOrder, DisableSelectZeroStillSorts) {
  VKT_POLICY("RULE_PHYSDEV_SORT");
  Sandbox s;
  AddDriver(s, "a", {{"cpu0", "cpu", 0x1000, 1}, {"dis0", "discrete", 0x1000, 3}});
  s.SetEnv("VK_LOADER_DISABLE_SELECT", "0");
  ProbeResult r = Enumerate(s);
  EXPECT_EQ(r.DeviceNames(), (Names{"dis0", "cpu0"})) << r.Describe();
}

TEST(PhysicalDeviceOrder, GroupsSortedByMembers) {
  VKT_POLICY("RULE_PHYSDEV_SORT");
  Sandbox s;
  AddDriver(s, "a",
            {{"int0", "integrated", 0x1000, 1},
             {"dis1", "discrete", 0x1000, 2},
             {"cpu2", "cpu", 0x1000, 3},
             {"int3", "integrated", 0x1000, 4}},
            "[[2],[0,1],[3]]");
  ProbeResult r = Enumerate(s);
  ASSERT_EQ(r.Step("groups")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), (Names{"dis1", "int0", "int3", "cpu2"})) << r.Describe();
  EXPECT_EQ(GroupNames(r), (std::vector<Names>{{"dis1", "int0"}, {"int3"}, {"cpu2"}})) << r.Describe();
}

// ---- RULE_PHYSDEV_ID_FILTER --------------------------------------------------------------------

std::vector<Dev> FourDevices() {
  return {{"d1", "discrete", 0x10de, 1, -1, 1},
          {"d2", "discrete", 0x10de, 2, -1, 2},
          {"d3", "discrete", 0x1002, 3, -1, 3},
          {"d16", "discrete", 0x1002, 16, -1, 4}};
}

ProbeResult FilterRun(const std::string& var, const std::string& value, const std::string& groups = "") {
  Sandbox s;
  AddDriver(s, "a", FourDevices(), groups);
  s.SetEnv(var, value);
  return Enumerate(s);
}

// A driver that answers vkGetInstanceProcAddr("vkEnumeratePhysicalDeviceGroups") describes its
// groups also to an application that asked for Vulkan 1.0: the loader reports the driver's groups
// (linked devices stay one group), not one made-up group per device (RULE_PHYSDEV_AGGREGATE).
TEST(PhysicalDeviceGroups, DriverGroupsReachAVulkan10Application) {
  VKT_POLICY("RULE_PHYSDEV_AGGREGATE");
  Sandbox s;
  AddDriver(s, "a", FourDevices(), "[[0,1],[2],[3]]");
  ProbeResult r = RunProbe(s, {"create-instance:api=1.0", "devices", "groups", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("groups")["result"].str(), "VK_SUCCESS") << r.Describe();
  std::vector<Names> g = GroupNames(r);
  for (Names& n : g) std::sort(n.begin(), n.end());
  std::sort(g.begin(), g.end());
  EXPECT_EQ(g, (std::vector<Names>{{"d1", "d2"}, {"d16"}, {"d3"}})) << r.Describe();
}

TEST(PhysicalDeviceIdFilter, DeviceIdList) {
  VKT_POLICY("RULE_PHYSDEV_ID_FILTER");
  ProbeResult r = FilterRun("VK_LOADER_DEVICE_ID_FILTER", "2,0x10");
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"d16", "d2"})) << r.Describe();
  ExpectOursLogs(r, "hidden by VK_LOADER_DEVICE_ID_FILTER [RULE_PHYSDEV_ID_FILTER]");
}

TEST(PhysicalDeviceIdFilter, DeviceIdRange) {
  VKT_POLICY("RULE_PHYSDEV_ID_FILTER");
  ProbeResult r = FilterRun("VK_LOADER_DEVICE_ID_FILTER", "2:3");
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"d2", "d3"})) << r.Describe();
}

TEST(PhysicalDeviceIdFilter, VendorId) {
  VKT_POLICY("RULE_PHYSDEV_ID_FILTER");
  ProbeResult r = FilterRun("VK_LOADER_VENDOR_ID_FILTER", "0x1002");
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"d16", "d3"})) << r.Describe();
}

TEST(PhysicalDeviceIdFilter, DriverIdRangeAndValue) {
  VKT_POLICY("RULE_PHYSDEV_ID_FILTER");
  ProbeResult r = FilterRun("VK_LOADER_DRIVER_ID_FILTER", "1:2,4");
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"d1", "d16", "d2"})) << r.Describe();
}

// The driver ID is the one the application could read: a Vulkan 1.0 application that did not
// enable VK_KHR_get_physical_device_properties2 cannot, so VK_LOADER_DRIVER_ID_FILTER matches no
// device there; enabling the extension makes the same filter match (the Khronos loader's rule).
TEST(PhysicalDeviceIdFilter, DriverIdUnknownToAVulkan10Application) {
  VKT_POLICY("RULE_PHYSDEV_ID_FILTER");
  Sandbox s;
  AddDriver(s, "a", FourDevices());
  s.SetEnv("VK_LOADER_DRIVER_ID_FILTER", "1:4");
  ProbeResult old = RunProbe(s, {"create-instance:api=1.0", "devices", "destroy-instance"});
  ASSERT_EQ(CreateResult(old), "VK_SUCCESS") << old.Describe();
  EXPECT_TRUE(old.DeviceNames().empty()) << old.Describe();
  ProbeResult ext =
      RunProbe(s, {"create-instance:ext=VK_KHR_get_physical_device_properties2", "devices", "destroy-instance"});
  EXPECT_EQ(ext.DeviceNames().size(), 4u) << ext.Describe();
}

TEST(PhysicalDeviceIdFilter, FiltersCombineCumulatively) {
  VKT_POLICY("RULE_PHYSDEV_ID_FILTER");
  Sandbox s;
  AddDriver(s, "a", FourDevices());
  s.SetEnv("VK_LOADER_VENDOR_ID_FILTER", "0x10de");
  s.SetEnv("VK_LOADER_DEVICE_ID_FILTER", "2:16");
  ProbeResult r = Enumerate(s);
  EXPECT_EQ(r.DeviceNames(), (Names{"d2"})) << r.Describe();
}

TEST(PhysicalDeviceIdFilter, NoMatchLeavesNoDevices) {
  VKT_POLICY("RULE_PHYSDEV_ID_FILTER");
  ProbeResult r = FilterRun("VK_LOADER_VENDOR_ID_FILTER", "0x8086");
  EXPECT_EQ(r.Step("devices")["count_result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("devices")["reported_count"].num(), 0) << r.Describe();
  EXPECT_EQ(r.Step("groups")["count"].num(), 0) << r.Describe();
}

TEST(PhysicalDeviceIdFilter, GroupWithHiddenMemberLeftOut) {
  VKT_POLICY("RULE_PHYSDEV_ID_FILTER");
  ProbeResult r = FilterRun("VK_LOADER_DEVICE_ID_FILTER", "1,3,16", "[[0,1],[2],[3]]");
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"d1", "d16", "d3"})) << r.Describe();
  std::vector<Names> g = GroupNames(r);
  std::sort(g.begin(), g.end());
  EXPECT_EQ(g, (std::vector<Names>{{"d16"}, {"d3"}})) << r.Describe();
  ExpectOursLogs(r, "[RULE_PHYSDEV_ID_FILTER]");
}

TEST(PhysicalDeviceIdFilter, MalformedEntryIgnoredWithWarning) {
  VKT_POLICY("RULE_PHYSDEV_ID_FILTER");
  ProbeResult r = FilterRun("VK_LOADER_DEVICE_ID_FILTER", "zz,3");
  EXPECT_EQ(r.DeviceNames(), (Names{"d3"})) << r.Describe();
  ExpectOursLogs(r, "entry \"zz\" is not an ID");
}

TEST(PhysicalDeviceIdFilter, EmptyValueFiltersNothing) {
  VKT_POLICY("RULE_PHYSDEV_ID_FILTER");
  ProbeResult r = FilterRun("VK_LOADER_DEVICE_ID_FILTER", "");
  EXPECT_EQ(r.DeviceNames().size(), 4u) << r.Describe();
}

}  // namespace
}  // namespace vkt
