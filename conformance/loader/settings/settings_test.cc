// The loader settings file, vk_loader_settings.json ([Set] LoaderSettingsFile.md, spec §7.10,
// docs/settings.md), through the loader under test: each key (stderr_log, layers with on / off /
// auto / unordered_layer_location, additional_drivers and additional_drivers_use_exclusively,
// device_configurations), each search location (faked with HOME / XDG_* inside the sandbox), the
// first-found-wins rule, app_keys, and malformed files (one line naming the file and the key,
// nothing else disturbed).
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

using V = std::vector<std::string>;

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

// `s` with each run of '/' cut to one: "a//b" and "a/b" name the same file (POSIX path resolution).
std::string OneSlash(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '/' || out.empty() || out.back() != '/') out += c;
  return out;
}

// One layer object of a layer manifest (file format 1.2.1 fields).
std::string LayerJson(const std::string& name, const std::string& lib, bool implicit) {
  std::string o = "{\"file_format_version\": \"1.2.1\", \"layer\": {\"name\": " + Quote(name) +
                  ", \"type\": \"GLOBAL\", \"library_path\": " + Quote(lib) +
                  ", \"api_version\": \"1.3.0\", \"implementation_version\": \"1\", \"description\": \"mock\"";
  if (implicit) o += ", \"disable_environment\": {\"DISABLE_" + name + "\": \"1\"}";
  return o + "}}";
}

std::string Entry(const std::string& control, const std::string& name = "", const std::string& path = "",
                  const std::string& extra = "") {
  std::string e = "{\"control\": " + Quote(control);
  if (!name.empty()) e += ", \"name\": " + Quote(name);
  if (!path.empty()) e += ", \"path\": " + Quote(path);
  return e + extra + "}";
}

std::string Join(const V& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

bool Contains(const V& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// {"file_format_version": "1.0.0", "settings": {<members>}}
std::string Settings(const std::string& members) {
  return "{\"file_format_version\": \"1.0.0\", \"settings\": {" + members + "}}";
}

std::string Uuid(int first) {
  std::string s = "[";
  for (int i = 0; i < 16; i++) s += (i ? "," : "") + std::to_string((first + i) & 0xff);
  return s + "]";
}

// The mock driver's IDs (mock_icd/physdev.c): deviceUUID[i] = 0xD0 + device index + i, driverUUID[i] = 0x1C + i.
std::string DeviceConfig(int index, uint32_t driver_version) {
  return "{\"deviceUUID\": " + Uuid(0xD0 + index) + ", \"driverUUID\": " + Uuid(0x1C) +
         ", \"driverVersion\": " + std::to_string(driver_version) + "}";
}

class SettingsFixture : public OneDriverTest {
 protected:
  // Writes <base>/vulkan/loader_settings.d/vk_loader_settings.json.
  std::string WriteSettings(const std::string& base, const std::string& text) {
    std::string path = base + "/vulkan/loader_settings.d/vk_loader_settings.json";
    s_.WriteFile(path, text);
    return path;
  }
  std::string WriteSettings(const std::string& text) { return WriteSettings(s_.xdg_config_home(), text); }
  // A mock layer whose manifest sits in <sandbox>/elsewhere/ (no search location).
  std::string HiddenLayer(const std::string& name, bool implicit = false) {
    const Layer& l = s_.AddLayer(name, "v2_gpdpa");
    std::string path = s_.root() + "/elsewhere/" + name + ".json";
    s_.WriteFile(path, LayerJson(name, l.library, implicit));
    return path;
  }
  // A mock layer found by the normal search (XDG_DATA_DIRS entry 0).
  void FoundLayer(const std::string& name, bool implicit) {
    const Layer& l = s_.AddLayer(name, "v2_gpdpa");
    s_.WriteLayerManifest(Location::kXdgDataDirs, implicit, name + ".json", LayerJson(name, l.library, implicit));
  }
  ProbeResult Run(const std::string& app_layers = "") {
    return RunProbe(s_,
                    {"instance-layers", app_layers.empty() ? "create-instance" : "create-instance:layers=" + app_layers,
                     "devices", "destroy-instance"});
  }
  V Listed(const ProbeResult& r, size_t nth = 0) {
    V out;
    Json layers = r.Step("instance-layers", nth)["layers"];
    for (size_t i = 0; i < layers.size(); ++i)
      out.push_back(layers[i].is_string() ? layers[i].str() : layers[i]["name"].str());
    return out;
  }
  V Chain() { return s_.LayerCallOrder("vkCreateInstance"); }
};

// ---- layers -----------------------------------------------------------------------------------

TEST_F(SettingsFixture, LayersOnEnablesLayerFromItsPath) {
  VKT_POLICY("RULE_SETTINGS_FILE", "LLP_LOADER_2");
  std::string a = HiddenLayer("VK_LAYER_MOCK_set_a");
  WriteSettings(Settings("\"layers\": [" + Entry("on", "VK_LAYER_MOCK_set_a", a) + "]"));
  ProbeResult r = Run();
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_set_a"}) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_set_a"}) << r.Describe();  // no application request needed
  EXPECT_EQ(r.DeviceNames(), V{"drv-dev"}) << r.Describe();
}

// A meta-layer the settings file turns on brings its components, in its order (under
// LeakSanitizer this also proves the expansion's bookkeeping is freed: it leaked once).
TEST_F(SettingsFixture, LayersOnMetaLayerEnablesItsComponents) {
  VKT_POLICY("RULE_SETTINGS_FILE", "RULE_LYR_META");
  std::string a = HiddenLayer("VK_LAYER_MOCK_set_comp_a");
  std::string b = HiddenLayer("VK_LAYER_MOCK_set_comp_b");
  std::string meta = s_.root() + "/elsewhere/VK_LAYER_MOCK_set_meta.json";
  s_.WriteFile(meta, R"({"file_format_version": "1.1.2", "layer": {"name": "VK_LAYER_MOCK_set_meta", "type": "GLOBAL",)"
                     R"( "api_version": "1.3.0", "implementation_version": "1", "description": "meta",)"
                     R"( "component_layers": ["VK_LAYER_MOCK_set_comp_b", "VK_LAYER_MOCK_set_comp_a"]}})");
  WriteSettings(
      Settings("\"layers\": [" +
               Join({Entry("on", "VK_LAYER_MOCK_set_meta", meta), Entry("auto", "VK_LAYER_MOCK_set_comp_a", a),
                     Entry("auto", "VK_LAYER_MOCK_set_comp_b", b)}) +
               "]"));
  ProbeResult r = Run();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), (V{"VK_LAYER_MOCK_set_comp_b", "VK_LAYER_MOCK_set_comp_a"})) << r.Describe();
}

TEST_F(SettingsFixture, LayersOffHidesAndRequestFails) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  FoundLayer("VK_LAYER_MOCK_set_off", false);
  FoundLayer("VK_LAYER_MOCK_set_keep", false);
  WriteSettings(Settings(
      "\"layers\": [" +
      Join({Entry("off", "VK_LAYER_MOCK_set_off", s_.root() + "/unused.json"), Entry("unordered_layer_location")}) +
      "]"));
  ProbeResult r = Run("VK_LAYER_MOCK_set_off");
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_set_keep"}) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_ERROR_LAYER_NOT_PRESENT") << r.Describe();
  EXPECT_TRUE(Chain().empty()) << r.Describe();
}

TEST_F(SettingsFixture, LayersEmptyListDisablesEveryLayer) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  FoundLayer("VK_LAYER_MOCK_set_implicit", true);
  FoundLayer("VK_LAYER_MOCK_set_explicit", false);
  WriteSettings(Settings("\"layers\": []"));
  ProbeResult r = Run();
  EXPECT_TRUE(Listed(r).empty()) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_TRUE(Chain().empty()) << r.Describe();  // the implicit layer is gone too
}

TEST_F(SettingsFixture, LayersOrderWithUnorderedLocation) {
  VKT_POLICY("RULE_SETTINGS_FILE", "LLP_LOADER_2");
  std::string a = HiddenLayer("VK_LAYER_MOCK_set_first");
  std::string b = HiddenLayer("VK_LAYER_MOCK_set_last");
  FoundLayer("VK_LAYER_MOCK_set_found", true);
  WriteSettings(Settings("\"layers\": [" +
                         Join({Entry("on", "VK_LAYER_MOCK_set_first", a), Entry("unordered_layer_location"),
                               Entry("on", "VK_LAYER_MOCK_set_last", b)}) +
                         "]"));
  ProbeResult r = Run();
  EXPECT_EQ(Listed(r), (V{"VK_LAYER_MOCK_set_first", "VK_LAYER_MOCK_set_found", "VK_LAYER_MOCK_set_last"}))
      << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), (V{"VK_LAYER_MOCK_set_first", "VK_LAYER_MOCK_set_found", "VK_LAYER_MOCK_set_last"}))
      << r.Describe();
}

TEST_F(SettingsFixture, LayersWithoutMarkerHideFoundLayers) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  std::string a = HiddenLayer("VK_LAYER_MOCK_set_only");
  FoundLayer("VK_LAYER_MOCK_set_found", false);
  WriteSettings(Settings("\"layers\": [" + Entry("on", "VK_LAYER_MOCK_set_only", a) + "]"));
  ProbeResult r = Run("VK_LAYER_MOCK_set_found");
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_set_only"}) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_ERROR_LAYER_NOT_PRESENT") << r.Describe();
}

TEST_F(SettingsFixture, LayersAutoFollowsTheNormalRules) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  std::string a = HiddenLayer("VK_LAYER_MOCK_set_auto");
  WriteSettings(Settings("\"layers\": [" + Entry("auto", "VK_LAYER_MOCK_set_auto", a) + "]"));
  ProbeResult plain = Run();
  EXPECT_EQ(Listed(plain), V{"VK_LAYER_MOCK_set_auto"}) << plain.Describe();
  EXPECT_TRUE(Chain().empty()) << plain.Describe();  // explicit + auto: not enabled by itself
  ProbeResult asked = Run("VK_LAYER_MOCK_set_auto");
  EXPECT_EQ(CreateResult(asked), "VK_SUCCESS") << asked.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_set_auto"}) << asked.Describe();
}

TEST_F(SettingsFixture, MalformedLayerEntryDiscardsTheLayersSection) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  std::string a = HiddenLayer("VK_LAYER_MOCK_set_a");
  FoundLayer("VK_LAYER_MOCK_set_found", false);
  std::string path = WriteSettings(
      Settings("\"layers\": [" + Join({Entry("on", "VK_LAYER_MOCK_set_a", a), "{\"control\": \"on\"}"}) + "]"));
  ProbeResult r = Run();
  // As if there were no layers key: the normal search only.
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_set_found"}) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), V{"drv-dev"}) << r.Describe();
  bool named = false;
  for (const std::string& line : r.LogLines(path)) named = named || line.find("layers[1]") != std::string::npos;
  EXPECT_TRUE(named) << r.Describe();
}

// ---- layers forced on: also in the pre-instance chains ------------------------------------------

// The mock layer's pre-instance functions (mock_layers/README.md): the manifest member naming all
// three, and the record each call writes ("pre_vk<Function>").
const char* const kPreFns[] = {"EnumerateInstanceExtensionProperties", "EnumerateInstanceLayerProperties",
                               "EnumerateInstanceVersion"};
std::string PreInstanceFunctions() {
  std::string s = "\"pre_instance_functions\": {";
  for (const char* f : kPreFns)
    s += std::string(f == kPreFns[0] ? "" : ", ") + "\"vk" + f + "\": \"mock_layer_pre_" + f + "\"";
  return s + "}";
}
std::string PreRecord(const char* f) { return std::string("pre_vk") + f; }
// VK_MAKE_API_VERSION(0, major, minor, patch) (the suite does not include the Vulkan headers).
constexpr uint32_t Api(uint32_t major, uint32_t minor, uint32_t patch) { return (major << 22) | (minor << 12) | patch; }

// A layer "on" in the settings file is active in every instance, so it intercepts the global
// enumerations through its pre_instance_functions as an enabled implicit layer does, even when its
// own enable_environment (unset here) would keep it off; the same manifest under "auto" follows the
// implicit rules and stays out.
TEST_F(SettingsFixture, LayersOnJoinThePreInstanceChains) {
  VKT_POLICY("RULE_SETTINGS_FILE", "RULE_LYR_PRE_INSTANCE");
  auto pre_layer = [&](const std::string& name, const std::string& ext, uint32_t version) {
    const Layer& l = s_.AddLayer(
        name, "v2_gpdpa",
        "\"pre_instance\": {\"add_extension\": " + Quote(ext) +
            ", \"add_layer\": \"\", \"no_call_down\": false}, \"pre_instance_version\": " + std::to_string(version));
    std::string path = s_.root() + "/elsewhere/" + name + ".json";
    std::string manifest = LayerJson(name, l.library, true);  // ends in "}}"
    manifest.insert(manifest.size() - 2,
                    ", \"enable_environment\": {\"ENABLE_" + name + "\": \"1\"}, " + PreInstanceFunctions());
    s_.WriteFile(path, manifest);
    return path;
  };
  std::string on = pre_layer("VK_LAYER_MOCK_set_pre_on", "VK_EXT_mock_set_pre_on", Api(1, 1, 71));
  std::string aut = pre_layer("VK_LAYER_MOCK_set_pre_auto", "VK_EXT_mock_set_pre_auto", Api(1, 1, 72));
  const std::string implicit = ", \"treat_as_implicit_manifest\": true";
  WriteSettings(Settings("\"layers\": [" +
                         Join({Entry("on", "VK_LAYER_MOCK_set_pre_on", on, implicit),
                               Entry("auto", "VK_LAYER_MOCK_set_pre_auto", aut, implicit)}) +
                         "]"));
  ProbeResult r =
      RunProbe(s_, {"version", "instance-extensions", "instance-layers", "create-instance", "destroy-instance"});
  const V twice = {"VK_LAYER_MOCK_set_pre_on", "VK_LAYER_MOCK_set_pre_on"};  // count, then fill
  EXPECT_EQ(s_.LayerCallOrder(PreRecord(kPreFns[2])), V{"VK_LAYER_MOCK_set_pre_on"}) << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder(PreRecord(kPreFns[0])), twice) << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder(PreRecord(kPreFns[1])), twice) << r.Describe();
  EXPECT_EQ(r.Step("version")["version"].str(), "1.1.71") << r.Describe();
  V exts;
  Json list = r.Step("instance-extensions")["extensions"];
  for (size_t i = 0; i < list.size(); ++i) exts.push_back(list[i]["name"].str());
  EXPECT_TRUE(Contains(exts, "VK_EXT_mock_set_pre_on")) << r.Describe();
  EXPECT_FALSE(Contains(exts, "VK_EXT_mock_set_pre_auto")) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_set_pre_on"}) << r.Describe();
}

// ---- relative paths ---------------------------------------------------------------------------

// A relative layer or driver path in the settings file is relative to the file's own directory, not
// to the working directory (docs/settings.md "Relative paths").
TEST_F(SettingsFixture, RelativePathsFromTheFilesDirectory) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  const std::string dir = s_.xdg_config_home() + "/vulkan/loader_settings.d";
  const Layer& l = s_.AddLayer("VK_LAYER_MOCK_set_rel", "v2_gpdpa");
  s_.WriteFile(dir + "/layers/rel.json", LayerJson("VK_LAYER_MOCK_set_rel", l.library, false));
  AddNamedDriver(s_, "extra");
  s_.WriteFile(s_.xdg_config_home() + "/vulkan/drivers/extra.json", s_.ManifestFor("extra").ToJson());
  WriteSettings(Settings("\"layers\": [" + Entry("on", "VK_LAYER_MOCK_set_rel", "layers/rel.json") +
                         "], \"additional_drivers\": [{\"path\": \"../drivers/extra.json\"}]"));
  ProbeResult r = Run();
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_set_rel"}) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_set_rel"}) << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames()), (V{"drv-dev", "extra-dev"})) << r.Describe();
}

// ---- drivers ----------------------------------------------------------------------------------

TEST_F(SettingsFixture, AdditionalDriversAreLoaded) {
  VKT_POLICY("RULE_SETTINGS_FILE", "LDP_LOADER_3");
  AddNamedDriver(s_, "extra");
  std::string m = s_.WriteDriverManifest(Location::kLoose, "extra");
  WriteSettings(Settings("\"additional_drivers\": [{\"path\": " + Quote(m) + "}]"));
  ProbeResult r = CreateAndEnumerate(s_);
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames()), (V{"drv-dev", "extra-dev"})) << r.Describe();
}

TEST_F(SettingsFixture, AdditionalDriversExclusively) {
  VKT_POLICY("RULE_SETTINGS_FILE", "LDP_LOADER_3");
  AddNamedDriver(s_, "extra");
  std::string m = s_.WriteDriverManifest(Location::kLoose, "extra");
  WriteSettings(
      Settings("\"additional_drivers_use_exclusively\": true, \"additional_drivers\": [{\"path\": " + Quote(m) + "}]"));
  ProbeResult r = CreateAndEnumerate(s_);
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), V{"extra-dev"}) << r.Describe();
  EXPECT_FALSE(s_.WasLoaded("drv")) << r.Describe();
}

TEST_F(SettingsFixture, MalformedAdditionalDriverDiscardsAll) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  AddNamedDriver(s_, "extra");
  std::string m = s_.WriteDriverManifest(Location::kLoose, "extra");
  std::string path =
      WriteSettings(Settings("\"additional_drivers_use_exclusively\": true, \"additional_drivers\": "
                             "[{\"path\": " +
                             Quote(m) + "}, {\"file\": \"x.json\"}]"));
  ProbeResult r = CreateAndEnumerate(s_);
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), V{"drv-dev"}) << r.Describe();  // discovered drivers only
  bool named = false;
  for (const std::string& line : r.LogLines(path))
    named = named || line.find("additional_drivers[1]") != std::string::npos;
  EXPECT_TRUE(named) << r.Describe();
}

// ---- device configurations ----------------------------------------------------------------------

class SettingsDevices : public SettingsFixture {
 protected:
  void SetUp() override {
    s_.AddDriver("two", "v7_exports",
                 "{\"physical_devices\": [{\"name\": \"dev0\", \"device_id\": 1, \"driver_version\": 7}, "
                 "{\"name\": \"dev1\", \"device_id\": 2, \"driver_version\": 7}]}");
    s_.WriteDriverManifest(Location::kXdgConfigHome, "two");
  }
  ProbeResult Enumerate() { return CreateAndEnumerate(s_, "api=1.1"); }
};

TEST_F(SettingsDevices, ChosenAndOrderedByUuidAndDriverVersion) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  WriteSettings(Settings("\"device_configurations\": [" + Join({DeviceConfig(1, 7), DeviceConfig(0, 7)}) + "]"));
  ProbeResult r = Enumerate();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), (V{"dev1", "dev0"})) << r.Describe();
  WriteSettings(Settings("\"device_configurations\": [" + Join({DeviceConfig(1, 7), DeviceConfig(0, 8)}) + "]"));
  ProbeResult one = Enumerate();
  EXPECT_EQ(one.DeviceNames(), V{"dev1"}) << one.Describe();
}

// The devices are named by UUIDs only vkGetPhysicalDeviceProperties2 reports; an application that
// asks for Vulkan 1.0 still gets the file's choice: the loader reads the UUIDs through the driver's
// 1.1 query whenever the device reports 1.1 or more, as the Khronos loader does.
TEST_F(SettingsDevices, ChosenForAVulkan10Application) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  WriteSettings(Settings("\"device_configurations\": [" + DeviceConfig(1, 7) + "]"));
  ProbeResult r = CreateAndEnumerate(s_, "api=1.0");
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), V{"dev1"}) << r.Describe();
}

TEST_F(SettingsDevices, NoneMatchingFailsEnumeration) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  WriteSettings(Settings("\"device_configurations\": [" + DeviceConfig(5, 7) + "]"));
  ProbeResult r = Enumerate();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("devices")["count_result"].str(r.Step("devices")["result"].str("")),
            "VK_ERROR_INITIALIZATION_FAILED")
      << r.Describe();
}

// Groups follow the chosen devices (spec 7.7): a group with a device the file does not choose is
// left out, the others come in the file's order.
TEST_F(SettingsDevices, GroupsFollowTheChosenDevices) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  auto run = [&]() { return RunProbe(s_, {"create-instance:api=1.1", "devices", "groups", "destroy-instance"}); };
  auto groups = [](const ProbeResult& r) {
    std::vector<std::vector<int>> out;
    Json g = r.Step("groups")["groups"];
    for (size_t i = 0; i < g.size(); ++i) {
      std::vector<int> members;
      for (size_t m = 0; m < g[i].size(); ++m) members.push_back(static_cast<int>(g[i][m].num()));
      out.push_back(members);
    }
    return out;
  };
  WriteSettings(Settings("\"device_configurations\": [" + DeviceConfig(1, 7) + "]"));
  ProbeResult one = run();
  EXPECT_EQ(one.Step("groups")["result"].str(), "VK_SUCCESS") << one.Describe();
  EXPECT_EQ(one.DeviceNames(), V{"dev1"}) << one.Describe();
  EXPECT_EQ(groups(one), (std::vector<std::vector<int>>{{0}})) << one.Describe();
  WriteSettings(Settings("\"device_configurations\": [" + Join({DeviceConfig(1, 7), DeviceConfig(0, 7)}) + "]"));
  ProbeResult both = run();
  EXPECT_EQ(both.DeviceNames(), (V{"dev1", "dev0"})) << both.Describe();
  // devices[0] is dev1: the groups in the file's order are [[0], [1]]
  EXPECT_EQ(groups(both), (std::vector<std::vector<int>>{{0}, {1}})) << both.Describe();
}

// Two devices the driver reports as one group (physically linked hardware).
class SettingsLinkedDevices : public SettingsFixture {
 protected:
  void SetUp() override {
    s_.AddDriver("linked", "v7_exports",
                 "{\"physical_devices\": [{\"name\": \"dev0\", \"device_id\": 1, \"driver_version\": 7}, "
                 "{\"name\": \"dev1\", \"device_id\": 2, \"driver_version\": 7}], \"groups\": [[0, 1]]}");
    s_.WriteDriverManifest(Location::kXdgConfigHome, "linked");
  }
};

// A group with a member the file leaves out is not reported, not reported without that member (it
// would misdescribe linked hardware); with a device chosen, that is no error: VK_SUCCESS and no
// group, as the Khronos loader answers. Both calls of the enumeration agree.
TEST_F(SettingsLinkedDevices, GroupWithAMemberLeftOutIsNotReported) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  WriteSettings(Settings("\"device_configurations\": [" + DeviceConfig(0, 7) + "]"));
  ProbeResult r = RunProbe(s_, {"create-instance:api=1.1", "devices", "groups", "destroy-instance"});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), V{"dev0"}) << r.Describe();
  EXPECT_EQ(r.Step("groups")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("groups")["groups"].size(), 0u) << r.Describe();
  // both devices chosen: the driver's one group of two
  WriteSettings(Settings("\"device_configurations\": [" + Join({DeviceConfig(0, 7), DeviceConfig(1, 7)}) + "]"));
  ProbeResult both = RunProbe(s_, {"create-instance:api=1.1", "devices", "groups", "destroy-instance"});
  ASSERT_EQ(both.Step("groups")["groups"].size(), 1u) << both.Describe();
  EXPECT_EQ(both.Step("groups")["groups"][0].size(), 2u) << both.Describe();
}

// The file in force at vkCreateInstance governs that instance's devices; a later instance sees the
// rewritten file (spec 7.10: re-read at each vkCreateInstance).
TEST_F(SettingsDevices, ChoiceKeptFromInstanceCreation) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  std::string path = WriteSettings(Settings("\"device_configurations\": [" + DeviceConfig(1, 7) + "]"));
  std::string later = Settings("\"device_configurations\": [" + Join({DeviceConfig(0, 7), DeviceConfig(1, 7)}) + "]");
  ProbeResult r = RunProbe(s_, {"create-instance:api=1.1", "write-file:" + path + ":" + later, "devices",
                                "destroy-instance", "create-instance:api=1.1", "devices", "destroy-instance"});
  EXPECT_EQ(r.DeviceNames(0), V{"dev1"}) << r.Describe();
  EXPECT_EQ(r.DeviceNames(1), (V{"dev0", "dev1"})) << r.Describe();
}

TEST_F(SettingsDevices, DriverEnvironmentVariablesUnused) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  WriteSettings(Settings("\"device_configurations\": [" + DeviceConfig(0, 7) + "]"));
  s_.SetEnv("VK_LOADER_DRIVERS_DISABLE", "*");
  s_.SetEnv("VK_DRIVER_FILES", s_.root() + "/nothing-here.json");
  ProbeResult r = Enumerate();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), V{"dev0"}) << r.Describe();
}

// ---- stderr_log ---------------------------------------------------------------------------------

TEST_F(SettingsFixture, StderrLogTurnsOnLogging) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  s_.UnsetEnv("VK_LOADER_DEBUG");
  ProbeResult quiet = CreateAndEnumerate(s_);
  EXPECT_FALSE(quiet.LogContains("[Vulkan Loader]")) << quiet.Describe();
  WriteSettings(Settings("\"stderr_log\": [\"all\"]"));
  ProbeResult loud = CreateAndEnumerate(s_);
  EXPECT_EQ(CreateResult(loud), "VK_SUCCESS") << loud.Describe();
  EXPECT_TRUE(loud.LogContains("[Vulkan Loader]")) << loud.Describe();
  EXPECT_TRUE(loud.LogContains(s_.driver("drv").dir)) << loud.Describe();  // driver lines too
}

// ---- the "in use" line ------------------------------------------------------------------------

// Every vkCreateInstance the file governs says so in the instance's messenger, with the sentence
// the Khronos loader's users grep for, also when the file is unchanged since the previous call (the
// loader keeps the parsed file; nothing new is read the second time).
TEST_F(SettingsFixture, EveryCreateInstanceLogsTheFileInUse) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  std::string a = HiddenLayer("VK_LAYER_MOCK_set_inuse");
  std::string path = WriteSettings(Settings("\"layers\": [" + Entry("on", "VK_LAYER_MOCK_set_inuse", a) + "]"));
  // The path as the Khronos loader spells it: "<base>/vulkan//loader_settings.d/...", so that a
  // line copied from its log matches ours (both spellings name the one file).
  const std::string tail = "/vulkan/loader_settings.d/vk_loader_settings.json";
  ASSERT_EQ(path.compare(path.size() - tail.size(), tail.size(), tail), 0) << path;
  const std::string line = "Using layer configurations found in loader settings from " +
                           path.substr(0, path.size() - tail.size()) +
                           "/vulkan//loader_settings.d/vk_loader_settings.json";
  // The first call reads the file, the second finds it unchanged: one line each, never two.
  ProbeResult r = RunProbe(s_, {"create-instance:messenger=debug-utils", "destroy-instance",
                                "create-instance:messenger=debug-utils", "destroy-instance"});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  size_t during_create = 0;
  Json messages = r.Step("messages")["messages"];
  for (size_t i = 0; i < messages.size(); ++i) {
    Json m = messages[i];
    if (m["during_create"].boolean() && m["text"].str().find(line) != std::string::npos) {
      EXPECT_EQ(m["severity"].str(), "info") << m.dump();
      during_create++;
    }
  }
  EXPECT_EQ(during_create, 2u) << r.Describe();
}

// ---- search locations -------------------------------------------------------------------------

// Where the test puts the file, and what the sandbox's environment must look like for it.
struct Where {
  const char* name;
  int base;  // 0 XDG_CONFIG_HOME, 1 XDG_DATA_HOME, 2 $HOME/.config, 3 $HOME/.local/share,
             // 4 XDG_CONFIG_DIRS entry 0, 5 XDG_CONFIG_DIRS entry 1, 6 XDG_DATA_DIRS entry 0,
             // 7 XDG_DATA_DIRS entry 1
};

class SettingsLocation : public SettingsFixture, public ::testing::WithParamInterface<Where> {};

TEST_P(SettingsLocation, FoundThere) {
  VKT_POLICY("RULE_SETTINGS_FILE", "LLP_LOADER_2");
  std::string bases[] = {s_.xdg_config_home(),        s_.xdg_data_home(),   s_.home() + "/.config",
                         s_.home() + "/.local/share", s_.xdg_config_dir(0), s_.xdg_config_dir(1),
                         s_.xdg_data_dir(0),          s_.xdg_data_dir(1)};
  if (GetParam().base == 2) s_.UnsetEnv("XDG_CONFIG_HOME");
  if (GetParam().base == 3) s_.UnsetEnv("XDG_DATA_HOME");
  if (GetParam().base == 2) {  // the driver was found in XDG_CONFIG_HOME: keep it reachable
    s_.WriteDriverManifest(Location::kXdgDataDirs, "drv");
  }
  std::string a = HiddenLayer("VK_LAYER_MOCK_set_loc");
  WriteSettings(bases[GetParam().base], Settings("\"layers\": [" + Entry("on", "VK_LAYER_MOCK_set_loc", a) + "]"));
  ProbeResult r = Run();
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_set_loc"}) << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_set_loc"}) << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Bases, SettingsLocation,
                         ::testing::Values(Where{"XdgConfigHome", 0}, Where{"XdgDataHome", 1}, Where{"HomeConfig", 2},
                                           Where{"HomeLocalShare", 3}, Where{"XdgConfigDirs0", 4},
                                           Where{"XdgConfigDirs1", 5}, Where{"XdgDataDirs0", 6},
                                           Where{"XdgDataDirs1", 7}),
                         [](const ::testing::TestParamInfo<Where>& i) { return std::string(i.param.name); });

TEST_F(SettingsFixture, FirstExistingFileWins) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  std::string a = HiddenLayer("VK_LAYER_MOCK_set_home");
  std::string b = HiddenLayer("VK_LAYER_MOCK_set_dirs");
  WriteSettings(s_.xdg_config_home(), Settings("\"layers\": [" + Entry("on", "VK_LAYER_MOCK_set_home", a) + "]"));
  WriteSettings(s_.xdg_data_dir(0), Settings("\"layers\": [" + Entry("on", "VK_LAYER_MOCK_set_dirs", b) + "]"));
  ProbeResult r = Run();
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_set_home"}) << r.Describe();
}

TEST_F(SettingsFixture, AppKeysSelectByExecutablePath) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  char real[PATH_MAX];
  ASSERT_NE(realpath(ProbePath().c_str(), real), nullptr);
  std::string mine = HiddenLayer("VK_LAYER_MOCK_set_mine");
  std::string other = HiddenLayer("VK_LAYER_MOCK_set_global");
  WriteSettings(
      "{\"file_format_version\": \"1.0.0\", \"settings_array\": ["
      "{\"app_keys\": [\"/no/such/app\"], \"layers\": []},"
      "{\"layers\": [" +
      Entry("on", "VK_LAYER_MOCK_set_global", other) +
      "]},"
      "{\"app_keys\": [" +
      Quote(real) + "], \"layers\": [" + Entry("on", "VK_LAYER_MOCK_set_mine", mine) + "]}]}");
  ProbeResult r = Run();
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_set_mine"}) << r.Describe();
}

TEST_F(SettingsFixture, MalformedFileIsIgnoredWithOneLine) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  FoundLayer("VK_LAYER_MOCK_set_found", false);
  std::string path = WriteSettings("{\"file_format_version\": \"1.0.0\", \"settings\": {\"layers\": [}");
  ProbeResult r = Run();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_set_found"}) << r.Describe();
  EXPECT_EQ(r.DeviceNames(), V{"drv-dev"}) << r.Describe();
  // The file named in any spelling of its path ("vulkan//loader_settings.d" names the same file).
  bool named = false;
  for (const std::string& line : r.LogLines("loader_settings.d"))
    named = named || OneSlash(line).find(OneSlash(path)) != std::string::npos;
  EXPECT_TRUE(named) << r.Describe();
}

// ---- combinations: the file over time, its controls against the environment ---------------------

// The layer chain of one run: the call records of the mock layers are cleared first (they
// accumulate across runs of one sandbox).
class SettingsCombination : public SettingsFixture {
 protected:
  ProbeResult RunFresh(const std::string& app_layers = "") {
    s_.WriteFile(s_.LayerCallsFile(), "");
    return Run(app_layers);
  }
};

// The file is looked for again at every global call (spec 7.10 "Re-read at every global call"):
// in one process, rewriting it between two vkEnumerateInstanceLayerProperties calls changes the
// list, and removing it restores the normal search.
TEST_F(SettingsCombination, ReReadBetweenTwoGlobalCalls) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  std::string a = HiddenLayer("VK_LAYER_MOCK_set_reread_a");
  std::string b = HiddenLayer("VK_LAYER_MOCK_set_reread_b");
  FoundLayer("VK_LAYER_MOCK_set_reread_found", false);
  std::string path = WriteSettings(Settings("\"layers\": [" + Entry("on", "VK_LAYER_MOCK_set_reread_a", a) + "]"));
  std::string second = Settings(
      "\"layers\": [" + Join({Entry("on", "VK_LAYER_MOCK_set_reread_b", b), Entry("unordered_layer_location")}) + "]");
  ProbeResult r = RunProbe(s_, {"instance-layers", "write-file:" + path + ":" + second, "instance-layers",
                                "remove-file:" + path, "instance-layers"});
  ASSERT_TRUE(r.Step("write-file")["ok"].boolean()) << r.Describe();
  ASSERT_TRUE(r.Step("remove-file")["ok"].boolean()) << r.Describe();
  EXPECT_EQ(Listed(r, 0), V{"VK_LAYER_MOCK_set_reread_a"}) << r.Describe();
  EXPECT_EQ(Listed(r, 1), (V{"VK_LAYER_MOCK_set_reread_b", "VK_LAYER_MOCK_set_reread_found"})) << r.Describe();
  EXPECT_EQ(Listed(r, 2), V{"VK_LAYER_MOCK_set_reread_found"}) << r.Describe();
}

// treat_as_implicit_manifest alone decides how the same manifest is read: with it the layer is
// implicit (enabled without a request, off while its disable_environment is set), without it
// explicit (enabled only on request).
TEST_F(SettingsCombination, TreatAsImplicitManifestAlone) {
  VKT_POLICY("RULE_SETTINGS_FILE", "LLP_LOADER_7");
  const std::string name = "VK_LAYER_MOCK_set_as_implicit";
  std::string m = HiddenLayer(name, /*implicit=*/true);  // has disable_environment DISABLE_<name>
  WriteSettings(Settings("\"layers\": [" + Entry("auto", name, m, ", \"treat_as_implicit_manifest\": true") + "]"));
  ProbeResult implicit = RunFresh();
  EXPECT_EQ(Listed(implicit), V{name}) << implicit.Describe();
  EXPECT_EQ(CreateResult(implicit), "VK_SUCCESS") << implicit.Describe();
  EXPECT_EQ(Chain(), V{name}) << implicit.Describe();

  s_.SetEnv("DISABLE_" + name, "1");
  ProbeResult disabled = RunFresh();
  EXPECT_EQ(CreateResult(disabled), "VK_SUCCESS") << disabled.Describe();
  EXPECT_TRUE(Chain().empty()) << disabled.Describe();
  s_.UnsetEnv("DISABLE_" + name);

  for (const std::string& flag : {std::string(), std::string(", \"treat_as_implicit_manifest\": false")}) {
    WriteSettings(Settings("\"layers\": [" + Entry("auto", name, m, flag) + "]"));
    ProbeResult plain = RunFresh();
    EXPECT_EQ(Listed(plain), V{name}) << flag << "\n" << plain.Describe();
    EXPECT_EQ(CreateResult(plain), "VK_SUCCESS") << plain.Describe();
    EXPECT_TRUE(Chain().empty()) << flag << "\n" << plain.Describe();  // explicit: not by itself
    ProbeResult asked = RunFresh(name);
    EXPECT_EQ(CreateResult(asked), "VK_SUCCESS") << asked.Describe();
    EXPECT_EQ(Chain(), V{name}) << flag << "\n" << asked.Describe();
  }
}

// A layers entry whose name is not the name of a layer in the manifest at its path is dropped
// alone (spec 7.10): the other entries stay, and neither name is available.
TEST_F(SettingsCombination, EntryNameNotInItsManifestIsDropped) {
  VKT_POLICY("RULE_SETTINGS_FILE");
  std::string real = HiddenLayer("VK_LAYER_MOCK_set_real_name");
  std::string good = HiddenLayer("VK_LAYER_MOCK_set_good");
  WriteSettings(Settings(
      "\"layers\": [" +
      Join({Entry("on", "VK_LAYER_MOCK_set_other_name", real), Entry("on", "VK_LAYER_MOCK_set_good", good)}) + "]"));
  ProbeResult r = RunFresh();
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_set_good"}) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_set_good"}) << r.Describe();
  bool named = false;  // a line names the entry and the manifest it points at
  for (const std::string& line : r.LogLines(real))
    named = named || line.find("VK_LAYER_MOCK_set_other_name") != std::string::npos;
  EXPECT_TRUE(named) << r.Describe();
  for (const char* asked : {"VK_LAYER_MOCK_set_other_name", "VK_LAYER_MOCK_set_real_name"}) {
    ProbeResult req = RunFresh(asked);
    EXPECT_EQ(CreateResult(req), "VK_ERROR_LAYER_NOT_PRESENT") << asked << "\n" << req.Describe();
    EXPECT_TRUE(Chain().empty()) << asked << "\n" << req.Describe();
  }
}

// "auto" follows the normal rules (spec 7.10): VK_INSTANCE_LAYERS and VK_LOADER_LAYERS_ENABLE
// enable an explicit layer, VK_LOADER_LAYERS_DISABLE turns off one (even an implicit one, even one
// VK_INSTANCE_LAYERS names) unless VK_LOADER_LAYERS_ALLOW names it. Activation keeps the file's
// order.
TEST_F(SettingsCombination, AutoFollowsInstanceLayersAndTheLayerFilters) {
  VKT_POLICY("RULE_SETTINGS_FILE", "RULE_LYR_ENV_INSTANCE_LAYERS", "RULE_LYR_FILTER_ENABLE", "RULE_LYR_FILTER_DISABLE",
             "RULE_LYR_FILTER_ALLOW");
  const std::string ex = "VK_LAYER_MOCK_set_auto_explicit", im = "VK_LAYER_MOCK_set_auto_implicit";
  std::string e = HiddenLayer(ex);
  std::string i = HiddenLayer(im, /*implicit=*/true);
  WriteSettings(Settings("\"layers\": [" +
                         Join({Entry("auto", ex, e), Entry("auto", im, i, ", \"treat_as_implicit_manifest\": true")}) +
                         "]"));
  struct Case {
    std::vector<std::pair<std::string, std::string>> env;
    V chain;
  };
  const Case cases[] = {
      {{}, V{im}},
      {{{"VK_INSTANCE_LAYERS", ex}}, V{ex, im}},
      {{{"VK_LOADER_LAYERS_ENABLE", ex}}, V{ex, im}},
      {{{"VK_LOADER_LAYERS_DISABLE", im}}, V{}},
      {{{"VK_INSTANCE_LAYERS", ex}, {"VK_LOADER_LAYERS_DISABLE", ex}}, V{im}},
      {{{"VK_INSTANCE_LAYERS", ex}, {"VK_LOADER_LAYERS_DISABLE", "~all~"}, {"VK_LOADER_LAYERS_ALLOW", ex}}, V{ex}},
  };
  for (const Case& c : cases) {
    std::string what;
    for (const auto& kv : c.env) {
      s_.SetEnv(kv.first, kv.second);
      what += kv.first + "=" + kv.second + " ";
    }
    ProbeResult r = RunFresh();
    EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << what << "\n" << r.Describe();
    EXPECT_EQ(Chain(), c.chain) << what << "\n" << r.Describe();
    // the variables in the Khronos loader's sentences, which its users grep for
    if (c.env.size() == 1 && c.env[0].first == "VK_INSTANCE_LAYERS") {
      EXPECT_FALSE(r.LogLines("env var 'VK_INSTANCE_LAYERS' defined and adding layers: " + ex).empty()) << r.Describe();
    }
    if (c.env.size() == 1 && c.env[0].first == "VK_LOADER_LAYERS_ENABLE") {
      EXPECT_FALSE(r.LogLines("Layer \"" + ex + "\" forced enabled due to env var 'VK_LOADER_LAYERS_ENABLE'").empty())
          << r.Describe();
    }
    for (const auto& kv : c.env) s_.UnsetEnv(kv.first);
  }
}

// "on" forces the layer on (spec 7.10): VK_LOADER_LAYERS_DISABLE does not turn it off.
TEST_F(SettingsCombination, OnWinsOverLayersDisable) {
  VKT_POLICY("RULE_SETTINGS_FILE", "RULE_LYR_FILTER_DISABLE");
  const std::string on = "VK_LAYER_MOCK_set_forced_on";
  std::string m = HiddenLayer(on);
  WriteSettings(Settings("\"layers\": [" + Entry("on", on, m) + "]"));
  for (const std::string& filter : {on, std::string("~all~"), std::string("~explicit~")}) {
    s_.SetEnv("VK_LOADER_LAYERS_DISABLE", filter);
    ProbeResult r = RunFresh();
    EXPECT_EQ(Listed(r), V{on}) << filter << "\n" << r.Describe();
    EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << filter << "\n" << r.Describe();
    EXPECT_EQ(Chain(), V{on}) << filter << "\n" << r.Describe();
  }
}

// "off" hides the layer (spec 7.10): VK_INSTANCE_LAYERS and VK_LOADER_LAYERS_ENABLE cannot bring
// it back; the layers around it are unaffected.
TEST_F(SettingsCombination, OffWinsOverInstanceLayersAndLayersEnable) {
  VKT_POLICY("RULE_SETTINGS_FILE", "RULE_LYR_ENV_INSTANCE_LAYERS", "RULE_LYR_FILTER_ENABLE");
  const std::string off = "VK_LAYER_MOCK_set_forced_off", keep = "VK_LAYER_MOCK_set_beside_off";
  FoundLayer(off, false);
  FoundLayer(keep, false);
  WriteSettings(Settings("\"layers\": [" +
                         Join({Entry("off", off, s_.root() + "/unused.json"), Entry("unordered_layer_location")}) +
                         "]"));
  for (const char* var : {"VK_INSTANCE_LAYERS", "VK_LOADER_LAYERS_ENABLE"}) {
    s_.SetEnv(var, off + (std::string(var) == "VK_INSTANCE_LAYERS" ? ":" : ",") + keep);
    ProbeResult r = RunFresh();
    EXPECT_EQ(Listed(r), V{keep}) << var << "\n" << r.Describe();
    EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << var << "\n" << r.Describe();
    EXPECT_EQ(Chain(), V{keep}) << var << "\n" << r.Describe();
    s_.UnsetEnv(var);
  }
}

// additional_drivers_use_exclusively: the file's drivers replace the whole discovered list (spec
// 7.10 "the discovered list is cleared first when exclusive"), so the drivers VK_DRIVER_FILES,
// VK_ICD_FILENAMES and VK_ADD_DRIVER_FILES give are not loaded either; without the flag they are.
TEST_F(SettingsCombination, AdditionalDriversExclusivelyOverDriverVariables) {
  VKT_POLICY("RULE_SETTINGS_FILE", "LDP_LOADER_3", "RULE_DRV_ENV_DRIVER_FILES_OVERRIDE",
             "RULE_DRV_ENV_ICD_FILENAMES_DEPRECATED", "RULE_DRV_ENV_ADD_DRIVER_FILES");
  AddNamedDriver(s_, "extra");
  std::string m = s_.WriteDriverManifest(Location::kLoose, "extra");
  const std::pair<const char*, const char*> vars[] = {
      {"VK_DRIVER_FILES", "files"}, {"VK_ICD_FILENAMES", "legacy"}, {"VK_ADD_DRIVER_FILES", "add"}};
  for (const auto& v : vars) {
    AddNamedDriver(s_, v.second);
    s_.WriteDriverManifest(Location::kLoose, v.second);
  }
  const std::string drivers = "\"additional_drivers\": [{\"path\": " + Quote(m) + "}]";
  // Control: not exclusive, the variable's driver is loaded beside the file's.
  WriteSettings(Settings(drivers));
  s_.SetEnv("VK_ADD_DRIVER_FILES", s_.root() + "/loose/add.json");
  ProbeResult control = CreateAndEnumerate(s_);
  EXPECT_EQ(Sorted(control.DeviceNames()), (V{"add-dev", "drv-dev", "extra-dev"})) << control.Describe();
  s_.UnsetEnv("VK_ADD_DRIVER_FILES");

  WriteSettings(Settings("\"additional_drivers_use_exclusively\": true, " + drivers));
  for (const auto& v : vars) {
    for (const Driver& d : s_.drivers()) std::remove(d.calls.c_str());  // WasLoaded: this run only
    s_.SetEnv(v.first, s_.root() + "/loose/" + v.second + ".json");
    ProbeResult r = CreateAndEnumerate(s_);
    EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << v.first << "\n" << r.Describe();
    EXPECT_EQ(r.DeviceNames(), V{"extra-dev"}) << v.first << "\n" << r.Describe();
    EXPECT_FALSE(s_.WasLoaded(v.second)) << v.first << "\n" << r.Describe();
    EXPECT_FALSE(s_.WasLoaded("drv")) << v.first << "\n" << r.Describe();
    s_.UnsetEnv(v.first);
  }
}

// ---- additional_drivers against VK_LOADER_DRIVERS_SELECT / VK_LOADER_DRIVERS_DISABLE ------------
//
// Reading chosen: the driver filters apply to the drivers the settings file adds exactly as to the
// discovered ones, exclusive or not, matched by the manifest's file name. The notes say so by
// construction, not in one sentence: spec 7.10 has each additional driver pushed onto the same
// discovered manifest list (settings.c:1283-1303; with additional_drivers_use_exclusively that
// list is cleared first), spec 1.3 evaluates select/disable per manifest of that list after
// parsing (loader.c:4140-4172), and the only things that switch the filters off are
// device_configurations (spec 1.3, loader_settings_should_use_driver_environment_variables) and
// direct driver loading in EXCLUSIVE mode; [Arch] "Filter Environment Variable Behaviors" has a
// driver filter compare every driver manifest's file name. (Khronos's own
// SettingsFile.AdditionalDriversReplacesVK_LOADER_DRIVERS_DISABLE has an empty body: spec 8.1.)
// Each test first runs without a filter (both loaded, or "extra" alone when exclusive) so a loader
// that ignores the settings file cannot pass by loading "drv" alone, and names "drv.json" as well
// as "extra.json" so a loader that exempted the file's drivers from the filters fails too.

// The settings file adds "extra" (<sandbox>/loose/extra.json, on no search path) beside "drv"
// (drv.json in XDG_CONFIG_HOME, the fixture's); returns the file's text.
std::string ExtraDriverSettings(Sandbox& s, bool exclusive) {
  AddNamedDriver(s, "extra");
  std::string m = s.WriteDriverManifest(Location::kLoose, "extra");
  return Settings(std::string(exclusive ? "\"additional_drivers_use_exclusively\": true, " : "") +
                  "\"additional_drivers\": [{\"path\": " + Quote(m) + "}]");
}

// create-instance + devices with `var`=`value` (unset when empty); WasLoaded tells of this run only.
ProbeResult RunFiltered(Sandbox& s, const std::string& var, const std::string& value) {
  for (const Driver& d : s.drivers()) std::remove(d.calls.c_str());
  if (value.empty())
    s.UnsetEnv(var);
  else
    s.SetEnv(var, value);
  ProbeResult r = CreateAndEnumerate(s);
  s.UnsetEnv(var);
  return r;
}

TEST_F(SettingsCombination, DriversSelectAppliesToAdditionalDrivers) {
  VKT_POLICY("RULE_SETTINGS_FILE", "RULE_DRV_FILTER_SELECT", "LDP_LOADER_3");
  WriteSettings(ExtraDriverSettings(s_, /*exclusive=*/false));
  const std::string var = "VK_LOADER_DRIVERS_SELECT";
  ProbeResult control = RunFiltered(s_, var, "");
  EXPECT_EQ(Sorted(control.DeviceNames()), (V{"drv-dev", "extra-dev"})) << control.Describe();

  ProbeResult extra = RunFiltered(s_, var, "extra.json");
  EXPECT_EQ(CreateResult(extra), "VK_SUCCESS") << extra.Describe();
  EXPECT_EQ(extra.DeviceNames(), V{"extra-dev"}) << extra.Describe();
  EXPECT_FALSE(s_.WasLoaded("drv")) << extra.Describe();
  EXPECT_TRUE(extra.LogContains("Driver \"drv.json\" ignored because not selected by env var '" + var + "'"))
      << extra.Describe();

  ProbeResult drv = RunFiltered(s_, var, "drv.json");  // the file's driver is not selected
  EXPECT_EQ(CreateResult(drv), "VK_SUCCESS") << drv.Describe();
  EXPECT_EQ(drv.DeviceNames(), V{"drv-dev"}) << drv.Describe();
  EXPECT_FALSE(s_.WasLoaded("extra")) << drv.Describe();
  EXPECT_TRUE(drv.LogContains("Driver \"extra.json\" ignored because not selected by env var '" + var + "'"))
      << drv.Describe();
}

TEST_F(SettingsCombination, DriversDisableAppliesToAdditionalDrivers) {
  VKT_POLICY("RULE_SETTINGS_FILE", "RULE_DRV_FILTER_DISABLE", "LDP_LOADER_3");
  WriteSettings(ExtraDriverSettings(s_, /*exclusive=*/false));
  const std::string var = "VK_LOADER_DRIVERS_DISABLE";
  ProbeResult control = RunFiltered(s_, var, "");
  EXPECT_EQ(Sorted(control.DeviceNames()), (V{"drv-dev", "extra-dev"})) << control.Describe();

  ProbeResult extra = RunFiltered(s_, var, "extra.json");
  EXPECT_EQ(CreateResult(extra), "VK_SUCCESS") << extra.Describe();
  EXPECT_EQ(extra.DeviceNames(), V{"drv-dev"}) << extra.Describe();
  EXPECT_FALSE(s_.WasLoaded("extra")) << extra.Describe();
  EXPECT_TRUE(extra.LogContains("Driver \"extra.json\" ignored because it was disabled by env var '" + var + "'"))
      << extra.Describe();

  ProbeResult drv = RunFiltered(s_, var, "drv.json");  // the file's driver stays
  EXPECT_EQ(CreateResult(drv), "VK_SUCCESS") << drv.Describe();
  EXPECT_EQ(drv.DeviceNames(), V{"extra-dev"}) << drv.Describe();
  EXPECT_FALSE(s_.WasLoaded("drv")) << drv.Describe();
}

// Exclusive: the filters see the file's drivers only, so SELECT cannot bring a discovered driver
// back, and a filter that drops every driver of the file leaves none (VK_ERROR_INCOMPATIBLE_DRIVER,
// as DriverFilter.DisableEverythingGivesIncompatibleDriver).
TEST_F(SettingsCombination, DriversSelectAppliesToExclusiveAdditionalDrivers) {
  VKT_POLICY("RULE_SETTINGS_FILE", "RULE_DRV_FILTER_SELECT", "LDP_LOADER_3");
  WriteSettings(ExtraDriverSettings(s_, /*exclusive=*/true));
  const std::string var = "VK_LOADER_DRIVERS_SELECT";
  ProbeResult control = RunFiltered(s_, var, "");
  EXPECT_EQ(control.DeviceNames(), V{"extra-dev"}) << control.Describe();

  ProbeResult extra = RunFiltered(s_, var, "extra.json");
  EXPECT_EQ(CreateResult(extra), "VK_SUCCESS") << extra.Describe();
  EXPECT_EQ(extra.DeviceNames(), V{"extra-dev"}) << extra.Describe();
  EXPECT_FALSE(s_.WasLoaded("drv")) << extra.Describe();

  ProbeResult drv = RunFiltered(s_, var, "drv.json");
  EXPECT_EQ(CreateResult(drv), "VK_ERROR_INCOMPATIBLE_DRIVER") << drv.Describe();
  EXPECT_FALSE(s_.WasLoaded("drv")) << drv.Describe();
  EXPECT_FALSE(s_.WasLoaded("extra")) << drv.Describe();
  EXPECT_TRUE(drv.LogContains("Driver \"extra.json\" ignored because not selected by env var '" + var + "'"))
      << drv.Describe();
}

TEST_F(SettingsCombination, DriversDisableAppliesToExclusiveAdditionalDrivers) {
  VKT_POLICY("RULE_SETTINGS_FILE", "RULE_DRV_FILTER_DISABLE", "LDP_LOADER_3");
  WriteSettings(ExtraDriverSettings(s_, /*exclusive=*/true));
  const std::string var = "VK_LOADER_DRIVERS_DISABLE";
  ProbeResult control = RunFiltered(s_, var, "");
  EXPECT_EQ(control.DeviceNames(), V{"extra-dev"}) << control.Describe();

  ProbeResult extra = RunFiltered(s_, var, "extra.json");
  EXPECT_EQ(CreateResult(extra), "VK_ERROR_INCOMPATIBLE_DRIVER") << extra.Describe();
  EXPECT_FALSE(s_.WasLoaded("extra")) << extra.Describe();
  EXPECT_FALSE(s_.WasLoaded("drv")) << extra.Describe();
  EXPECT_TRUE(extra.LogContains("Driver \"extra.json\" ignored because it was disabled by env var '" + var + "'"))
      << extra.Describe();
}

// With device_configurations the driver variables are not used (spec 1.3), those beside the two
// SettingsDevices.DriverEnvironmentVariablesUnused covers: VK_ICD_FILENAMES (would replace the
// search), VK_ADD_DRIVER_FILES (would add a driver), VK_LOADER_DRIVERS_SELECT (would select none).
TEST_F(SettingsDevices, OtherDriverEnvironmentVariablesUnused) {
  VKT_POLICY("RULE_SETTINGS_FILE", "RULE_DRV_ENV_ICD_FILENAMES_DEPRECATED", "RULE_DRV_ENV_ADD_DRIVER_FILES",
             "RULE_DRV_FILTER_SELECT");
  WriteSettings(Settings("\"device_configurations\": [" + DeviceConfig(0, 7) + "]"));
  AddNamedDriver(s_, "legacy");
  AddNamedDriver(s_, "add");
  const std::pair<std::string, std::string> vars[] = {
      {"VK_ICD_FILENAMES", s_.WriteDriverManifest(Location::kLoose, "legacy")},
      {"VK_ADD_DRIVER_FILES", s_.WriteDriverManifest(Location::kLoose, "add")},
      {"VK_LOADER_DRIVERS_SELECT", "no-driver-is-named-this*"},
  };
  for (const auto& v : vars) {
    for (const Driver& d : s_.drivers()) std::remove(d.calls.c_str());  // WasLoaded: this run only
    s_.SetEnv(v.first, v.second);
    ProbeResult r = Enumerate();
    EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << v.first << "\n" << r.Describe();
    EXPECT_EQ(r.DeviceNames(), V{"dev0"}) << v.first << "\n" << r.Describe();
    EXPECT_TRUE(s_.WasLoaded("two")) << v.first << "\n" << r.Describe();
    EXPECT_FALSE(s_.WasLoaded("legacy")) << v.first << "\n" << r.Describe();
    EXPECT_FALSE(s_.WasLoaded("add")) << v.first << "\n" << r.Describe();
    s_.UnsetEnv(v.first);
  }
}

}  // namespace
}  // namespace vkt
