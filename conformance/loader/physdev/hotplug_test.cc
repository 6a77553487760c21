// Physical devices and groups follow device changes between calls (RULE_PHYSDEV_AGGREGATE). A
// driver unplugs one of the devices of an instance that already exists (the mock's "unplugged",
// read from its current scenario at every enumeration; the probe's mock-scenario step replaces
// that scenario between two calls), then plugs it back in. Each enumeration of devices and of
// groups reports what the drivers report now; the group members are the very handles
// vkEnumeratePhysicalDevices returns; a device that stays keeps its handle.
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

using Strings = std::vector<std::string>;

// Two devices "<prefix>0", "<prefix>1", with `unplugged` as the scenario's unplugged list (JSON).
std::string TwoDevices(const std::string& prefix, const std::string& unplugged) {
  return DeviceScenario({prefix + "0", prefix + "1"}, "\"unplugged\":" + unplugged);
}

// One device "<prefix>0".
std::string OneDevice(const std::string& prefix, const std::string& unplugged) {
  return DeviceScenario({prefix + "0"}, "\"unplugged\":" + unplugged);
}

// The nth devices step: device name -> handle, in the order reported.
struct Seen {
  Strings names, handles;
};

Seen DevicesAt(const ProbeResult& r, size_t nth) {
  Seen s;
  Json d = r.Step("devices", nth)["devices"];
  for (size_t i = 0; i < d.size(); ++i) {
    s.names.push_back(d[i]["name"].str());
    s.handles.push_back(d[i]["handle"].str());
  }
  return s;
}

// Every member handle of the nth groups step, and the member indices into the devices step before it.
Strings GroupHandlesAt(const ProbeResult& r, size_t nth) {
  Strings out;
  Json h = r.Step("groups", nth)["handles"];
  for (size_t i = 0; i < h.size(); ++i)
    for (size_t j = 0; j < h[i].size(); ++j) out.push_back(h[i][j].str());
  return out;
}

std::string HandleOf(const Seen& s, const std::string& name) {
  for (size_t i = 0; i < s.names.size(); ++i)
    if (s.names[i] == name) return s.handles[i];
  return "<" + name + " not reported>";
}

// Checks one enumeration: the device count, the group count, and that the groups hold exactly the
// devices step's handles (each member index is >= 0: a handle vkEnumeratePhysicalDevices returned).
void ExpectConsistent(const ProbeResult& r, size_t nth, size_t devices, const char* when) {
  SCOPED_TRACE(when);
  Json d = r.Step("devices", nth);
  Json g = r.Step("groups", nth);
  EXPECT_EQ(d["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(d["reported_count"].num(), static_cast<int64_t>(devices)) << r.Describe();
  EXPECT_EQ(d["count"].num(), static_cast<int64_t>(devices)) << r.Describe();
  EXPECT_EQ(g["count_result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(g["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(g["count"].num(), static_cast<int64_t>(devices)) << r.Describe();
  for (size_t i = 0; i < g["groups"].size(); ++i)
    for (size_t j = 0; j < g["groups"][i].size(); ++j) EXPECT_GE(g["groups"][i][j].num(), 0) << r.Describe();
  EXPECT_EQ(Sorted(GroupHandlesAt(r, nth)), Sorted(DevicesAt(r, nth).handles)) << r.Describe();
}

// create, enumerate (2), unplug, enumerate (1), plug back, enumerate (2), with driver `driver` (its
// --driver-lib index) changing scenario.
ProbeResult RunHotplug(const Sandbox& s, int driver, const std::string& unplug, const std::string& plug) {
  const std::string n = std::to_string(driver);
  return RunProbe(s, {"create-instance:api=1.1", "devices", "groups",            //
                      "mock-scenario:" + n + ":" + unplug, "devices", "groups",  //
                      "mock-scenario:" + n + ":" + plug, "devices", "groups",    //
                      "destroy-instance"});
}

void ExpectHotplug(const ProbeResult& r, const std::string& stays, const std::string& goes) {
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  ASSERT_EQ(r.Steps("mock-scenario").size(), 2u) << r.Describe();
  for (const Json& m : r.Steps("mock-scenario")) ASSERT_EQ(m["result"].num(), 0) << r.Describe();
  ExpectConsistent(r, 0, 2, "before the unplug");
  ExpectConsistent(r, 1, 1, "unplugged");
  ExpectConsistent(r, 2, 2, "plugged back");
  Seen before = DevicesAt(r, 0), unplugged = DevicesAt(r, 1), after = DevicesAt(r, 2);
  EXPECT_EQ(Sorted(before.names), Sorted(Strings{stays, goes})) << r.Describe();
  EXPECT_EQ(unplugged.names, Strings{stays}) << r.Describe();
  EXPECT_EQ(Sorted(after.names), Sorted(Strings{stays, goes})) << r.Describe();
  // The device that stayed keeps its handle through both changes.
  EXPECT_EQ(HandleOf(unplugged, stays), HandleOf(before, stays)) << r.Describe();
  EXPECT_EQ(HandleOf(after, stays), HandleOf(before, stays)) << r.Describe();
}

TEST(PhysicalDeviceHotplug, OneDriverTwoDevices) {
  VKT_POLICY("RULE_PHYSDEV_AGGREGATE");
  Sandbox s;
  s.AddDriver("a", "v7_exports", TwoDevices("a", "[]"));
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunHotplug(s, 0, TwoDevices("a", "[1]"), TwoDevices("a", "[]"));
  ExpectHotplug(r, "a0", "a1");
  // The driver saw the enumerations after each change (the loader asked it again).
  size_t unplugged_calls = 0;
  for (const Json& c : s.CallsTo("a", "vkEnumeratePhysicalDevices"))
    if (c["unplugged"].num(0) == 1) ++unplugged_calls;
  EXPECT_GE(unplugged_calls, 1u) << r.Describe();
}

// The first device goes: the one that stays moves from the second place to the first.
TEST(PhysicalDeviceHotplug, OneDriverFirstDeviceUnplugged) {
  VKT_POLICY("RULE_PHYSDEV_AGGREGATE");
  Sandbox s;
  s.AddDriver("a", "v7_exports", TwoDevices("a", "[]"));
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunHotplug(s, 0, TwoDevices("a", "[0]"), TwoDevices("a", "[]"));
  ExpectHotplug(r, "a1", "a0");
}

// Two drivers of one device each: the second driver's device goes and comes back.
TEST(PhysicalDeviceHotplug, TwoDrivers) {
  VKT_POLICY("RULE_PHYSDEV_AGGREGATE");
  Sandbox s;
  s.AddDriver("a", "v7_exports", OneDevice("a", "[]"));
  s.AddDriver("b", "v7_exports", OneDevice("b", "[]"));
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  s.WriteDriverManifest(Location::kXdgConfigHome, "b");
  ProbeResult r = RunHotplug(s, 1, OneDevice("b", "[0]"), OneDevice("b", "[]"));
  ExpectHotplug(r, "a0", "b0");
}

// A driver whose one group holds both devices: unplugging one leaves a group of one.
TEST(PhysicalDeviceHotplug, GroupOfTwoLosesAMember) {
  VKT_POLICY("RULE_PHYSDEV_AGGREGATE");
  Sandbox s;
  const std::string grouped = ",\"groups\":[[0,1]]";
  auto scenario = [&](const std::string& unplugged) {
    return DeviceScenario({"g0", "g1"}, "\"unplugged\":" + unplugged + grouped);
  };
  s.AddDriver("a", "v7_exports", scenario("[]"));
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunHotplug(s, 0, scenario("[1]"), scenario("[]"));
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Json g0 = r.Step("groups", 0), g1 = r.Step("groups", 1), g2 = r.Step("groups", 2);
  ASSERT_EQ(g0["count"].num(), 1) << r.Describe();
  EXPECT_EQ(g0["groups"][0].size(), 2u) << r.Describe();
  ASSERT_EQ(g1["count"].num(), 1) << r.Describe();
  EXPECT_EQ(g1["groups"][0].size(), 1u) << r.Describe();
  EXPECT_EQ(GroupHandlesAt(r, 1), DevicesAt(r, 1).handles) << r.Describe();
  EXPECT_EQ(DevicesAt(r, 1).names, Strings{"g0"}) << r.Describe();
  ASSERT_EQ(g2["count"].num(), 1) << r.Describe();
  EXPECT_EQ(Sorted(GroupHandlesAt(r, 2)), Sorted(DevicesAt(r, 2).handles)) << r.Describe();
  EXPECT_EQ(HandleOf(DevicesAt(r, 1), "g0"), HandleOf(DevicesAt(r, 0), "g0")) << r.Describe();
}

}  // namespace
}  // namespace vkt
