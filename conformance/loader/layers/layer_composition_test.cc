// How the active layers compose in the loader under test: the activation order across implicit and
// explicit layers and two drivers, meta layers, the override layer, and the extensions a layer adds
// to the enumerations (named, and implicit layers in the global list).
#include <set>
#include <string>
#include <vector>

#include "conformance/loader/layers/layer_fixture.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

// ---- activation order -----------------------------------------------------------------------

// Two implicit layers (found in two locations, so their discovery order is fixed), layers from
// VK_INSTANCE_LAYERS, VK_LOADER_LAYERS_ENABLE and the application (with duplicates), two drivers.
TEST_F(LayerFixture, ChainOrderAcrossLayerSourcesAndTwoDrivers) {
  VKT_POLICY("RULE_LYR_ORDER", "LLP_LOADER_3", "LLP_LOADER_8", "LLP_LOADER_9", "LLP_LAYER_12", "LLP_LAYER_13");
  AddNamedDriver(s_, "drv2");
  s_.WriteDriverManifest(Location::kXdgDataHome, "drv2");
  AddMockLayer(s_, "VK_LAYER_MOCK_imp1", true, Location::kXdgConfigHome, "v1");
  AddMockLayer(s_, "VK_LAYER_MOCK_imp2", true, Location::kXdgDataDirs, "v2_gpdpa_export");
  AddMockLayer(s_, "VK_LAYER_MOCK_env", false, Location::kXdgDataDirs, "v2_all");
  AddMockLayer(s_, "VK_LAYER_MOCK_enable", false, Location::kXdgDataDirs, "v0");
  AddMockLayer(s_, "VK_LAYER_MOCK_app1", false, Location::kXdgDataDirs, "v2");
  AddMockLayer(s_, "VK_LAYER_MOCK_app2", false, Location::kXdgDataDirs, "v2_gpdpa");
  s_.SetEnv("VK_INSTANCE_LAYERS", "VK_LAYER_MOCK_env");
  s_.SetEnv("VK_LOADER_LAYERS_ENABLE", "VK_LAYER_MOCK_enable");
  ProbeResult r = Run("VK_LAYER_MOCK_app1,VK_LAYER_MOCK_env,VK_LAYER_MOCK_app2,VK_LAYER_MOCK_app1");
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  const V want = {"VK_LAYER_MOCK_imp1",   "VK_LAYER_MOCK_imp2", "VK_LAYER_MOCK_env",
                  "VK_LAYER_MOCK_enable", "VK_LAYER_MOCK_app1", "VK_LAYER_MOCK_app2"};
  EXPECT_EQ(Chain(), want) << r.Describe();
  EXPECT_EQ(DeviceChain(), want) << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames()), (V{"drv-dev", "drv2-dev"})) << r.Describe();
  // Below the last layer, both drivers were created, after every layer's vkCreateInstance.
  EXPECT_EQ(s_.CallsTo("drv", "vkCreateInstance").size(), 1u);
  EXPECT_EQ(s_.CallsTo("drv2", "vkCreateInstance").size(), 1u);
  // Every layer saw its link and the loader-data callback, in instance and device creation.
  for (const Json& j : s_.LayerCalls()) {
    if (j["call"].str() == "vkCreateInstance" || j["call"].str() == "vkCreateDevice") {
      EXPECT_TRUE(j["link_info"].boolean()) << j.dump();
    }
  }
  // vkEnumerateDeviceLayerProperties lists the instance's active layers in chain order.
  EXPECT_EQ(LayerNames(r, "device-layers"), want) << r.Describe();
  // Destruction runs through the chain in the same order.
  EXPECT_EQ(s_.LayerCallOrder("vkDestroyInstance"), want) << r.Describe();
}

// Every layer sees the application's ppEnabledLayerNames unchanged, not the expanded list of loaded
// layers: an implicit layer (or one VK_INSTANCE_LAYERS enabled) is not named there, so a layer can
// tell whether the application enabled it, as under the Khronos loader (LLP_LOADER_9).
TEST_F(LayerFixture, LayersSeeTheApplicationsLayerNames) {
  VKT_POLICY("LLP_LOADER_9", "RULE_LYR_ORDER");
  AddMockLayer(s_, "VK_LAYER_MOCK_seen_imp", true, Location::kXdgDataDirs, "v2_gpdpa");
  AddMockLayer(s_, "VK_LAYER_MOCK_seen_env", false, Location::kXdgDataDirs, "v2_gpdpa");
  AddMockLayer(s_, "VK_LAYER_MOCK_seen_app", false, Location::kXdgDataDirs, "v2_gpdpa");
  s_.SetEnv("VK_INSTANCE_LAYERS", "VK_LAYER_MOCK_seen_env");
  ProbeResult r = Run("VK_LAYER_MOCK_seen_app");
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), (V{"VK_LAYER_MOCK_seen_imp", "VK_LAYER_MOCK_seen_env", "VK_LAYER_MOCK_seen_app"})) << r.Describe();
  size_t seen = 0;
  for (const Json& j : s_.LayerCalls()) {
    if (j["call"].str() != "vkCreateInstance") continue;
    Json names = j["layers"];
    ASSERT_EQ(names.size(), 1u) << j.dump();
    EXPECT_EQ(names[0].str(), "VK_LAYER_MOCK_seen_app") << j.dump();
    seen++;
  }
  EXPECT_EQ(seen, 3u) << r.Describe();
}

// ---- meta layers ----------------------------------------------------------------------------

TEST_F(LayerFixture, MetaLayerExpandsInPlace) {
  VKT_POLICY("RULE_LYR_META", "RULE_LYR_MANIFEST_V1_1_1", "LLP_LOADER_10");
  AddMockLayer(s_, "VK_LAYER_MOCK_c1", false);
  AddMockLayer(s_, "VK_LAYER_MOCK_c2", false);
  AddMockLayer(s_, "VK_LAYER_MOCK_before", false);
  s_.WriteLayerManifest(Location::kXdgDataDirs, false, "meta.json",
                        LayerManifest("1.1.1", {LayerObject("VK_LAYER_MOCK_meta", "",
                                                            ", \"component_layers\": [\"VK_LAYER_MOCK_c2\", "
                                                            "\"VK_LAYER_MOCK_c1\"]")}));
  ProbeResult r = Run("VK_LAYER_MOCK_before,VK_LAYER_MOCK_meta");
  EXPECT_TRUE(Contains(Listed(r), "VK_LAYER_MOCK_meta")) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), (V{"VK_LAYER_MOCK_before", "VK_LAYER_MOCK_c2", "VK_LAYER_MOCK_c1"})) << r.Describe();
}

TEST_F(LayerFixture, MetaLayerWithMissingComponentNotLoaded) {
  VKT_POLICY("LLP_LAYER_7", "LLP_LOADER_10");
  AddMockLayer(s_, "VK_LAYER_MOCK_c1", false);
  s_.WriteLayerManifest(Location::kXdgDataDirs, false, "meta.json",
                        LayerManifest("1.1.1", {LayerObject("VK_LAYER_MOCK_meta", "",
                                                            ", \"component_layers\": [\"VK_LAYER_MOCK_c1\", "
                                                            "\"VK_LAYER_MOCK_absent\"]")}));
  ProbeResult r = Run("VK_LAYER_MOCK_meta");
  EXPECT_FALSE(Contains(Listed(r), "VK_LAYER_MOCK_meta")) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_ERROR_LAYER_NOT_PRESENT") << r.Describe();
  EXPECT_EQ(Chain(), V{}) << r.Describe();
}

// A component that exists but VK_LOADER_LAYERS_DISABLE disables: the meta-layer stays valid and
// listed (its components are all found, LLP_LAYER_7), and enabling it activates the components
// that are not disabled, with a WARNING naming the one left out, as the Khronos loader does (it
// validates meta-layers before applying the filters; its sentence starts "Failed to find layer
// name"). The disabled layer itself is not listed, and
// naming it is still refused.
TEST_F(LayerFixture, MetaLayerWithDisabledComponentStaysListed) {
  VKT_POLICY("LLP_LAYER_7", "RULE_LYR_META", "RULE_LYR_FILTER_DISABLE");
  AddMockLayer(s_, "VK_LAYER_MOCK_c1", false);
  AddMockLayer(s_, "VK_LAYER_MOCK_c2", false);
  s_.WriteLayerManifest(Location::kXdgDataDirs, false, "meta.json",
                        LayerManifest("1.1.1", {LayerObject("VK_LAYER_MOCK_meta", "",
                                                            ", \"component_layers\": [\"VK_LAYER_MOCK_c1\", "
                                                            "\"VK_LAYER_MOCK_c2\"]")}));
  s_.SetEnv("VK_LOADER_LAYERS_DISABLE", "VK_LAYER_MOCK_c2");
  s_.SetEnv("VK_LOADER_DEBUG", "warn");
  ProbeResult r = Run("VK_LAYER_MOCK_meta");
  EXPECT_TRUE(Contains(Listed(r), "VK_LAYER_MOCK_meta")) << r.Describe();
  EXPECT_FALSE(Contains(Listed(r), "VK_LAYER_MOCK_c2")) << r.Describe();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_c1"}) << r.Describe();
  EXPECT_FALSE(r.LogLines("component layer \"VK_LAYER_MOCK_c2\" to activate (Policy #LLP_LAYER_7)").empty()) << r.err;
  ProbeResult named = Run("VK_LAYER_MOCK_c2");
  EXPECT_EQ(CreateResult(named), "VK_ERROR_LAYER_NOT_PRESENT") << named.Describe();
}

TEST_F(LayerFixture, MetaLayerWithOlderComponentNotLoaded) {
  VKT_POLICY("LLP_LAYER_8", "LLP_LOADER_10");
  const Layer& c = s_.AddLayer("VK_LAYER_MOCK_old", "v2_gpdpa");
  s_.WriteLayerManifest(Location::kXdgDataDirs, false, "old.json",
                        LayerManifest("1.2.1", {LayerObject(c.name, c.library, "", "1.1.0")}));
  s_.WriteLayerManifest(
      Location::kXdgDataDirs, false, "meta.json",
      LayerManifest("1.1.1", {LayerObject("VK_LAYER_MOCK_meta", "", ", \"component_layers\": [\"VK_LAYER_MOCK_old\"]",
                                          "1.3.0")}));
  ProbeResult r = Run("VK_LAYER_MOCK_meta");
  EXPECT_FALSE(Contains(Listed(r), "VK_LAYER_MOCK_meta")) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_ERROR_LAYER_NOT_PRESENT") << r.Describe();
}

// ---- the override layer ---------------------------------------------------------------------

class OverrideLayer : public LayerFixture {
 protected:
  // The override layer (implicit, XDG_CONFIG_HOME: discovered before the other implicit layer in
  // XDG_DATA_DIRS) with one component, a blacklist and override_paths.
  void SetUp() override {
    LayerFixture::SetUp();
    AddMockLayer(s_, "VK_LAYER_MOCK_other_imp", true, Location::kXdgDataDirs);
    AddMockLayer(s_, "VK_LAYER_MOCK_default_exp", false, Location::kXdgDataDirs);
    std::string comp = AddMockLayer(s_, "VK_LAYER_MOCK_component", false, Location::kLoose);
    std::string dir = comp.substr(0, comp.rfind('/'));
    AddMockLayer(s_, "VK_LAYER_MOCK_blacklisted", false, Location::kLoose);
    AddMockLayer(s_, "VK_LAYER_MOCK_in_override_path", false, Location::kLoose);
    s_.WriteLayerManifest(
        Location::kXdgConfigHome, true, "override.json",
        LayerManifest("1.2.1", {LayerObject("VK_LAYER_LUNARG_override", "",
                                            ", \"component_layers\": [\"VK_LAYER_MOCK_component\"], "
                                            "\"override_paths\": [\"" +
                                                dir +
                                                "\"], "
                                                "\"blacklisted_layers\": [\"VK_LAYER_MOCK_blacklisted\"]" +
                                                DisableEnv("VK_LAYER_LUNARG_override"))}));
  }
};

TEST_F(OverrideLayer, PathsBlacklistAndComponents) {
  VKT_POLICY("RULE_LYR_OVERRIDE", "LLP_LOADER_12", "LLP_LOADER_7");
  ProbeResult r = Run("VK_LAYER_MOCK_in_override_path");
  V listed = Listed(r);
  EXPECT_TRUE(Contains(listed, "VK_LAYER_LUNARG_override")) << r.Describe();
  EXPECT_TRUE(Contains(listed, "VK_LAYER_MOCK_in_override_path")) << r.Describe();
  EXPECT_FALSE(Contains(listed, "VK_LAYER_MOCK_default_exp")) << "override_paths replace the explicit search\n"
                                                              << r.Describe();
  EXPECT_FALSE(Contains(listed, "VK_LAYER_MOCK_blacklisted")) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  V chain = Chain();
  EXPECT_TRUE(Contains(chain, "VK_LAYER_MOCK_component")) << r.Describe();
  EXPECT_TRUE(Contains(chain, "VK_LAYER_MOCK_other_imp")) << r.Describe();
  EXPECT_EQ(chain.back(), "VK_LAYER_MOCK_in_override_path") << r.Describe();
  ProbeResult black = Run("VK_LAYER_MOCK_blacklisted");
  EXPECT_EQ(CreateResult(black), "VK_ERROR_LAYER_NOT_PRESENT") << black.Describe();
  // Its disable variable turns the whole override off.
  s_.SetEnv("DISABLE_VK_LAYER_LUNARG_override", "1");
  ProbeResult off = Run("VK_LAYER_MOCK_default_exp");
  EXPECT_EQ(CreateResult(off), "VK_SUCCESS") << off.Describe();
}

// The override layer in the Khronos loader's sentences, which its users grep for: each override
// path, each blacklisted layer removed, and VK_LAYER_PATH ignored (RULE_LYR_OVERRIDE, LLP_LOADER_12).
TEST_F(OverrideLayer, KhronosSentences) {
  VKT_POLICY("RULE_LYR_OVERRIDE", "LLP_LOADER_12", "RULE_LOG_FORMAT");
  s_.SetEnv("VK_LAYER_PATH", "/nonexistent/vkt_layer_path");
  ProbeResult r = Run("VK_LAYER_MOCK_in_override_path");
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_FALSE(r.LogLines("Override layer has override path ").empty()) << r.Describe();
  EXPECT_FALSE(r.LogLines("loader_remove_layers_in_blacklist: Override layer is active and layer "
                          "VK_LAYER_MOCK_blacklisted is in the blacklist inside of it. Removing that layer from "
                          "current layer list.")
                   .empty())
      << r.Describe();
  EXPECT_FALSE(r.LogLines("Ignoring VK_LAYER_PATH. The Override layer is active and has override paths set, which "
                          "takes priority. VK_LAYER_PATH is set to /nonexistent/vkt_layer_path")
                   .empty())
      << r.Describe();
}

TEST_F(OverrideLayer, PlacedAfterEveryOtherImplicitLayer) {
  VKT_POLICY("LLP_LOADER_11", "RULE_LYR_OVERRIDE");
  ProbeResult r = Run();
  EXPECT_EQ(Chain(), (V{"VK_LAYER_MOCK_other_imp", "VK_LAYER_MOCK_component"})) << r.Describe();
}

// ---- enumerations with a layer name ---------------------------------------------------------

TEST_F(LayerFixture, ExtensionsOfANamedLayerComeFromItsManifest) {
  VKT_POLICY("LLP_LAYER_15", "LLP_LAYER_16", "LDP_LOADER_12");
  AddMockLayer(s_, "VK_LAYER_MOCK_ext", false, Location::kXdgDataDirs, "v2_gpdpa",
               ", \"instance_extensions\": [{\"name\": \"VK_EXT_mock_instance\", \"spec_version\": \"3\"}], "
               "\"device_extensions\": [{\"name\": \"VK_EXT_mock_device\", \"spec_version\": \"2\", "
               "\"entrypoints\": [\"vkMockDeviceEXT\"]}]");
  ProbeResult r =
      RunProbe(s_, {"instance-extensions:VK_LAYER_MOCK_ext", "instance-extensions:VK_LAYER_MOCK_nope",
                    "create-instance", "devices", "device-extensions:0,VK_LAYER_MOCK_ext", "destroy-instance"});
  Json ie = r.Step("instance-extensions", 0);
  EXPECT_EQ(ie["result"].str(), "VK_SUCCESS") << r.Describe();
  ASSERT_EQ(ie["extensions"].size(), 1u) << r.Describe();
  EXPECT_EQ(ie["extensions"][0]["name"].str(), "VK_EXT_mock_instance") << r.Describe();
  EXPECT_EQ(r.Step("instance-extensions", 1)["count_result"].str(), "VK_ERROR_LAYER_NOT_PRESENT") << r.Describe();
  Json de = r.Step("device-extensions");
  EXPECT_EQ(de["result"].str(), "VK_SUCCESS") << r.Describe();
  ASSERT_EQ(de["extensions"].size(), 1u) << r.Describe();
  EXPECT_EQ(de["extensions"][0]["name"].str(), "VK_EXT_mock_device") << r.Describe();
}

// A layer whose manifest lists no extensions: both calls of the two-call idiom succeed with zero
// properties (the second with a non-NULL array). Found by the world fuzzer under AFL++: the loader
// passed a NULL source to memcpy for the empty list (fuzz/regressions/loader_world_fuzzer/eiep_layer_no_extensions_*).
TEST_F(LayerFixture, ExtensionsOfANamedLayerWithNone) {
  VKT_POLICY("LLP_LAYER_15", "LDP_LOADER_12");
  AddMockLayer(s_, "VK_LAYER_MOCK_noext", false, Location::kXdgDataDirs, "v2_gpdpa", "");
  ProbeResult r = RunProbe(s_, {"instance-extensions:VK_LAYER_MOCK_noext", "create-instance", "devices",
                                "device-extensions:0,VK_LAYER_MOCK_noext", "destroy-instance"});
  Json ie = r.Step("instance-extensions");
  EXPECT_EQ(ie["count_result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(ie["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(ie["count"].num(), 0) << r.Describe();
  Json de = r.Step("device-extensions");
  EXPECT_EQ(de["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(de["extensions"].size(), 0u) << r.Describe();
}

// ---- implicit layers in the global extension list -------------------------------------------

// vkEnumerateInstanceExtensionProperties(NULL) adds the instance extensions of the enabled implicit
// layers (de-duplicated against the loader's own); disabled implicit and explicit layers add none.
TEST_F(LayerFixture, EnabledImplicitLayerExtensionsInGlobalList) {
  VKT_POLICY("RULE_INST_EXT_AGGREGATE", "LLP_LOADER_7");
  AddMockLayer(s_, "VK_LAYER_MOCK_imp_ext", true, Location::kXdgDataDirs, "v2_gpdpa",
               ", \"instance_extensions\": [{\"name\": \"VK_EXT_mock_implicit\", \"spec_version\": \"2\"}, "
               "{\"name\": \"VK_EXT_debug_utils\", \"spec_version\": \"1\"}]");
  AddMockLayer(s_, "VK_LAYER_MOCK_exp_ext", false, Location::kXdgDataDirs, "v2_gpdpa",
               ", \"instance_extensions\": [{\"name\": \"VK_EXT_mock_explicit\", \"spec_version\": \"1\"}]");
  auto names = [](const ProbeResult& r) {
    std::multiset<std::string> out;
    Json list = r.Step("instance-extensions")["extensions"];
    for (size_t i = 0; i < list.size(); ++i) out.insert(list[i]["name"].str());
    return out;
  };
  ProbeResult on = RunProbe(s_, {"instance-extensions"});
  EXPECT_EQ(on.Step("instance-extensions")["result"].str(), "VK_SUCCESS") << on.Describe();
  std::multiset<std::string> n = names(on);
  EXPECT_EQ(n.count("VK_EXT_mock_implicit"), 1u) << on.Describe();
  EXPECT_EQ(n.count("VK_EXT_debug_utils"), 1u) << "no duplicates\n" << on.Describe();
  EXPECT_EQ(n.count("VK_EXT_mock_explicit"), 0u) << "explicit layers are not enabled\n" << on.Describe();
  s_.SetEnv("DISABLE_VK_LAYER_MOCK_imp_ext", "1");
  ProbeResult off = RunProbe(s_, {"instance-extensions"});
  EXPECT_EQ(names(off).count("VK_EXT_mock_implicit"), 0u) << off.Describe();
  EXPECT_EQ(names(off).count("VK_EXT_debug_utils"), 1u) << off.Describe();
}

}  // namespace
}  // namespace vkt
