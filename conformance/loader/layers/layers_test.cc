// Layers through the loader under test: manifests of every file format version, every layer
// interface version and export variant (mock_layers/variants.bzl), the layer variables and
// filters, activation order across implicit and explicit layers and two drivers, meta and override
// layers, and the LLP_LOADER / LLP_LAYER rules the loader checks. The mock layers record their
// calls in one shared file (Sandbox::LayerCalls), so the chain order is observable.
#include <vulkan/vk_layer.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

using V = std::vector<std::string>;

// A sandbox with one driver ("drv", device "drv-dev") found in XDG_CONFIG_HOME.
class LayerFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    AddNamedDriver(s_, "drv");
    s_.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  }
  // instance-layers, create-instance (layers=app), devices, create-device:0, device-layers:0, teardown.
  ProbeResult Run(const std::string& app_layers = "", const std::string& more_opts = "") {
    std::string opts = app_layers.empty() ? "" : "layers=" + app_layers;
    if (!more_opts.empty()) opts += (opts.empty() ? "" : ";") + more_opts;
    return RunProbe(s_, {"instance-layers", opts.empty() ? "create-instance" : "create-instance:" + opts, "devices",
                         "create-device:0", "device-layers:0", "destroy-device", "destroy-instance"});
  }
  V Listed(const ProbeResult& r) { return LayerNames(r); }
  V Chain() { return s_.LayerCallOrder("vkCreateInstance"); }
  V DeviceChain() { return s_.LayerCallOrder("vkCreateDevice"); }
  Sandbox s_;
};

// ---- manifests ------------------------------------------------------------------------------

class LayerManifestVersion : public LayerFixture, public ::testing::WithParamInterface<std::string> {};

TEST_P(LayerManifestVersion, ExplicitLayerListedAndChained) {
  VKT_POLICY("RULE_LYR_MANIFEST_V1_0_0", "RULE_LYR_MANIFEST_V1_2_0", "LLP_LOADER_1");
  // Interface-1 exports work with every file format (the negotiate rename needs 1.1.0).
  AddMockLayer(s_, "VK_LAYER_MOCK_ver", false, Location::kXdgDataDirs, "v1", "", "", GetParam());
  ProbeResult r = Run("VK_LAYER_MOCK_ver");
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_ver"}) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_ver"}) << r.Describe();
  EXPECT_EQ(DeviceChain(), V{"VK_LAYER_MOCK_ver"}) << r.Describe();
  EXPECT_EQ(r.DeviceNames(), V{"drv-dev"}) << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Versions, LayerManifestVersion,
                         ::testing::Values("1.0.0", "1.0.1", "1.1.0", "1.1.1", "1.1.2", "1.2.0", "1.2.1"),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string n = "v" + i.param;
                           for (char& c : n)
                             if (c == '.') c = '_';
                           return n;
                         });

TEST_F(LayerFixture, ManifestLayersArray) {
  VKT_POLICY("RULE_LYR_MANIFEST_V1_0_1");
  const Layer& a = s_.AddLayer("VK_LAYER_MOCK_arr_a", "v2_gpdpa");
  const Layer& b = s_.AddLayer("VK_LAYER_MOCK_arr_b", "v1");
  s_.WriteLayerManifest(Location::kXdgDataDirs, false, "two.json",
                        LayerManifest("1.0.1", {LayerObject(a.name, a.library), LayerObject(b.name, b.library)}));
  ProbeResult r = Run("VK_LAYER_MOCK_arr_b,VK_LAYER_MOCK_arr_a");
  EXPECT_EQ(Sorted(Listed(r)), (V{"VK_LAYER_MOCK_arr_a", "VK_LAYER_MOCK_arr_b"})) << r.Describe();
  EXPECT_EQ(Chain(), (V{"VK_LAYER_MOCK_arr_b", "VK_LAYER_MOCK_arr_a"})) << r.Describe();
}

// Found by loader_diff_fuzzer (fuzz/crashes/loader_diff_fuzzer/layers_array_in_format_1_0): a
// file_format_version of two parts ("1.0") is not a version the layer manifest format knows (it
// is always major.minor.patch): the manifest is skipped with a log line, the others stay.
TEST_F(LayerFixture, ManifestTwoPartFormatVersionIsSkipped) {
  VKT_POLICY("RULE_LYR_MANIFEST_V1_0_0", "LLP_LAYER_6");
  const Layer& a = s_.AddLayer("VK_LAYER_MOCK_two_part", "v2_gpdpa");
  s_.WriteLayerManifest(Location::kXdgDataDirs, false, "two_part.json",
                        LayerManifest("1.0", {LayerObject(a.name, a.library)}));
  AddMockLayer(s_, "VK_LAYER_MOCK_two_part_good", false);
  ProbeResult r = Run();
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_two_part_good"}) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
}

TEST_F(LayerFixture, ManifestLibraryArch) {
  VKT_POLICY("RULE_LYR_MANIFEST_V1_2_1");
  AddMockLayer(s_, "VK_LAYER_MOCK_arch64", false, Location::kXdgDataDirs, "v2_gpdpa", ", \"library_arch\": \"64\"");
  AddMockLayer(s_, "VK_LAYER_MOCK_arch32", false, Location::kXdgDataDirs, "v2_gpdpa", ", \"library_arch\": \"32\"");
  ProbeResult r = Run("VK_LAYER_MOCK_arch64");
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_arch64"}) << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_arch64"}) << r.Describe();
}

// Malformed manifests are skipped one by one; the good layer keeps working.
TEST_F(LayerFixture, MalformedManifestsSkipped) {
  VKT_POLICY("LLP_LAYER_6", "RULE_LYR_MANIFEST_V1_0_0");
  AddMockLayer(s_, "VK_LAYER_MOCK_good", false);
  const Layer& bad = s_.AddLayer("VK_LAYER_MOCK_bad", "v2_gpdpa");
  s_.WriteLayerManifest(Location::kXdgDataDirs, false, "notjson.json", "{\"file_format_version\": ");
  s_.WriteLayerManifest(Location::kXdgDataDirs, false, "nolib.json",
                        LayerManifest("1.2.1", {LayerObject("VK_LAYER_MOCK_nolib", "")}));
  s_.WriteLayerManifest(Location::kXdgDataDirs, false, "noname.json",
                        "{\"file_format_version\": \"1.2.1\", \"layer\": {\"type\": \"GLOBAL\", \"library_path\": \"" +
                            bad.library +
                            "\", \"api_version\": \"1.3.0\", \"implementation_version\": \"1\", "
                            "\"description\": \"d\"}}");
  s_.WriteLayerManifest(Location::kXdgDataDirs, false, "wrongsuffix.txt",
                        LayerManifest("1.2.1", {LayerObject(bad.name, bad.library)}));
  ProbeResult r = Run("VK_LAYER_MOCK_good");
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_good"}) << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_good"}) << r.Describe();
}

// Found by loader_diff_fuzzer (docs/fuzzing.md "Differential fuzzing"): two manifests declare one
// layer name; the loader uses one of them (LLP_LOADER_3) and lists the name once.
TEST_F(LayerFixture, TwoManifestsOfOneNameListedOnce) {
  VKT_POLICY("LLP_LOADER_3");
  const Layer& l = s_.AddLayer("VK_LAYER_MOCK_twice", "v2_gpdpa");
  s_.WriteLayerManifest(Location::kXdgDataDirs, false, "twice_a.json",
                        LayerManifest("1.2.1", {LayerObject(l.name, l.library)}));
  s_.WriteLayerManifest(Location::kXdgDataDirs, false, "twice_b.json",
                        LayerManifest("1.2.1", {LayerObject(l.name, l.library)}));
  ProbeResult r = Run("VK_LAYER_MOCK_twice");
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_twice"}) << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_twice"}) << r.Describe();
}

// An implicit layer without disable_environment is never loaded.
TEST_F(LayerFixture, ImplicitLayerWithoutDisableEnvironmentSkipped) {
  VKT_POLICY("LLP_LAYER_9");
  const Layer& l = s_.AddLayer("VK_LAYER_MOCK_nodisable", "v2_gpdpa");
  s_.WriteLayerManifest(Location::kXdgDataDirs, true, "nodisable.json",
                        LayerManifest("1.2.1", {LayerObject(l.name, l.library)}));
  AddMockLayer(s_, "VK_LAYER_MOCK_imp_ok", true);
  ProbeResult r = Run();
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_imp_ok"}) << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_imp_ok"}) << r.Describe();
}

// A name outside the VK_LAYER_<AUTHOR>_<name> convention only draws a warning.
TEST_F(LayerFixture, UnconventionalNameStillLoads) {
  VKT_POLICY("LLP_LAYER_3");
  AddMockLayer(s_, "MOCK_unconventional", false);
  ProbeResult r = Run("MOCK_unconventional");
  EXPECT_EQ(Listed(r), V{"MOCK_unconventional"}) << r.Describe();
  EXPECT_EQ(Chain(), V{"MOCK_unconventional"}) << r.Describe();
}

// A layer whose api_version names another Vulkan variant (variant.major.minor.patch) is not loaded.
TEST_F(LayerFixture, OtherApiVariantNotLoaded) {
  VKT_POLICY("LLP_LOADER_4");
  const Layer& l = s_.AddLayer("VK_LAYER_MOCK_variant", "v2_gpdpa");
  s_.WriteLayerManifest(Location::kXdgDataDirs, false, "variant.json",
                        LayerManifest("1.2.1", {LayerObject(l.name, l.library, "", "1.1.3.0")}));
  AddMockLayer(s_, "VK_LAYER_MOCK_plain", false);
  ProbeResult r = Run("VK_LAYER_MOCK_plain");
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_plain"}) << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_plain"}) << r.Describe();
}

// ---- interface versions and export variants -------------------------------------------------

struct IfaceCase {
  const char* variant;
  const char* functions;  // manifest "functions" object, or ""
  bool negotiates;
};

class LayerInterface : public LayerFixture, public ::testing::WithParamInterface<IfaceCase> {};

TEST_P(LayerInterface, LoadedAndChainedForInstanceAndDevice) {
  VKT_POLICY("RULE_LYR_IFACE_V0", "RULE_LYR_IFACE_V1", "RULE_LYR_IFACE_V2", "RULE_LYR_MANIFEST_V1_1_0", "LLP_LAYER_4",
             "LLP_LOADER_8", "LLP_LOADER_9", "LLP_LAYER_12", "LLP_LAYER_13", "LLP_LAYER_19");
  const IfaceCase& c = GetParam();
  std::string fn = *c.functions ? std::string(", \"functions\": ") + c.functions : std::string();
  AddMockLayer(s_, "VK_LAYER_MOCK_iface", false, Location::kXdgDataDirs, c.variant, fn, "", "1.1.2");
  ProbeResult r = Run("VK_LAYER_MOCK_iface");
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), V{"drv-dev"}) << r.Describe();
  EXPECT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  std::vector<Json> calls = s_.LayerCalls();
  bool negotiated = false, created = false, dev_created = false;
  for (const Json& j : calls) {
    std::string call = j["call"].str();
    if (call == "vkNegotiateLoaderLayerInterfaceVersion") {
      negotiated = true;
      EXPECT_GE(j["offered"].num(), 2) << j.dump();
    } else if (call == "vkCreateInstance") {
      created = true;
      EXPECT_TRUE(j["link_info"].boolean()) << "LLP_LOADER_8: " << j.dump();
      EXPECT_TRUE(j["set_instance_loader_data"].boolean()) << j.dump();
    } else if (call == "vkCreateDevice") {
      dev_created = true;
      EXPECT_TRUE(j["link_info"].boolean()) << "LLP_LOADER_9: " << j.dump();
      EXPECT_TRUE(j["set_device_loader_data"].boolean()) << j.dump();
    }
  }
  EXPECT_EQ(negotiated, c.negotiates) << r.Describe();
  EXPECT_TRUE(created) << r.Describe();
  EXPECT_TRUE(dev_created) << r.Describe();
  // The layer's own commands sit in the dispatch path: the devices call went through it.
  EXPECT_FALSE(s_.LayerCallOrder("vkEnumeratePhysicalDevices").empty()) << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(
    Variants, LayerInterface,
    ::testing::Values(
        IfaceCase{"v0", "", false}, IfaceCase{"v1", "", false},
        IfaceCase{"v1_renamed",
                  "{\"vkGetInstanceProcAddr\": \"MockLayer_GetInstanceProcAddr\", \"vkGetDeviceProcAddr\": "
                  "\"MockLayer_GetDeviceProcAddr\"}",
                  false},
        IfaceCase{"v2", "", true}, IfaceCase{"v2_gpdpa", "", true}, IfaceCase{"v2_gpdpa_export", "", true},
        IfaceCase{"v2_renamed", "{\"vkNegotiateLoaderLayerInterfaceVersion\": \"MockLayer_Negotiate\"}", true},
        IfaceCase{"v2_all", "", true}),
    [](const ::testing::TestParamInfo<IfaceCase>& i) { return std::string(i.param.variant); });

// A layer that fails negotiation, or answers a version the loader did not offer, is not loaded.
struct NegCase {
  const char* name;
  const char* variant;
  const char* misbehave;
};
class LayerNegotiationFailure : public LayerFixture, public ::testing::WithParamInterface<NegCase> {};

TEST_P(LayerNegotiationFailure, LayerNotLoaded) {
  VKT_POLICY("LLP_LOADER_5", "LLP_LAYER_5");
  const NegCase& c = GetParam();
  AddMockLayer(s_, "VK_LAYER_MOCK_neg", true, Location::kXdgDataDirs, c.variant, "",
               std::string("\"misbehave\": ") + c.misbehave);
  AddMockLayer(s_, "VK_LAYER_MOCK_fine", true, Location::kXdgDataDirs, "v2_gpdpa");
  ProbeResult r = Run();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_fine"}) << r.Describe();
  EXPECT_EQ(r.DeviceNames(), V{"drv-dev"}) << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Cases, LayerNegotiationFailure,
                         ::testing::Values(NegCase{"FailsNegotiateOnly", "v2", "{\"fail_negotiation\": true}"},
                                           NegCase{"FailsWithGipaExport", "v2_all", "{\"fail_negotiation\": true}"},
                                           NegCase{"AnswersVersion3", "v2", "{\"negotiate_version\": 3}"}),
                         [](const ::testing::TestParamInfo<NegCase>& i) { return std::string(i.param.name); });

// ---- discovery and the layer variables ------------------------------------------------------

TEST_F(LayerFixture, DefaultSearchLocations) {
  VKT_POLICY("RULE_LYR_SEARCH_ORDER");
  AddMockLayer(s_, "VK_LAYER_MOCK_cfg_home", false, Location::kXdgConfigHome);
  AddMockLayer(s_, "VK_LAYER_MOCK_cfg_dir", false, Location::kXdgConfigDirs, "v2_gpdpa", "", "", "1.2.1", 1);
  AddMockLayer(s_, "VK_LAYER_MOCK_data_home", false, Location::kXdgDataHome);
  AddMockLayer(s_, "VK_LAYER_MOCK_data_dir", false, Location::kXdgDataDirs);
  AddMockLayer(s_, "VK_LAYER_MOCK_imp_data_dir", true, Location::kXdgDataDirs);
  V want = {"VK_LAYER_MOCK_cfg_dir", "VK_LAYER_MOCK_cfg_home", "VK_LAYER_MOCK_data_dir", "VK_LAYER_MOCK_data_home",
            "VK_LAYER_MOCK_imp_data_dir"};
  if (IsolationAvailable()) {
    // SYSCONFDIR is searched whatever XDG_CONFIG_DIRS says (/usr/share only when XDG_DATA_DIRS is
    // unset, which the sandbox never leaves it).
    AddMockLayer(s_, "VK_LAYER_MOCK_etc", false, Location::kEtc);
    want.push_back("VK_LAYER_MOCK_etc");
    std::sort(want.begin(), want.end());
  }
  ProbeResult r = Run();
  V listed = Listed(r);
  EXPECT_EQ(Sorted(listed), want) << r.Describe();
  ASSERT_FALSE(listed.empty());
  EXPECT_EQ(listed[0], "VK_LAYER_MOCK_imp_data_dir") << "implicit layers come first\n" << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_imp_data_dir"}) << r.Describe();
}

// With VK_LOADER_DEBUG=layer the log names every implicit and explicit layer directory searched,
// in search order, whether it exists or not, and each manifest found: "why is my layer not found"
// is answered by the log alone.
TEST_F(LayerFixture, DebugLogNamesEveryLayerDirectoryInOrder) {
  VKT_POLICY("LLP_LOADER_1", "RULE_LOG_FORMAT");
  VKT_REQUIRE_ISOLATION();
  std::string explicit_manifest = AddMockLayer(s_, "VK_LAYER_VKT_logged_explicit", false, Location::kXdgDataHome);
  std::string implicit_manifest =
      AddMockLayer(s_, "VK_LAYER_VKT_logged_implicit", true, Location::kXdgConfigDirs, "v2_gpdpa", "", "", "1.2.1", 1);
  s_.SetEnv("VK_LOADER_DEBUG", "layer");
  ProbeResult r = Run();
  EXPECT_EQ(Listed(r), (V{"VK_LAYER_VKT_logged_implicit", "VK_LAYER_VKT_logged_explicit"})) << r.Describe();
  for (bool implicit : {true, false}) {
    V dirs = {s_.LayerDir(Location::kXdgConfigHome, implicit),    s_.LayerDir(Location::kXdgConfigDirs, implicit, 0),
              s_.LayerDir(Location::kXdgConfigDirs, implicit, 1), s_.LayerDir(Location::kEtc, implicit),
              s_.LayerDir(Location::kXdgDataHome, implicit),      s_.LayerDir(Location::kXdgDataDirs, implicit, 0),
              s_.LayerDir(Location::kXdgDataDirs, implicit, 1)};
    EXPECT_EQ(FirstDirectoryNotNamedInOrder(r.err, dirs), "")
        << (implicit ? "implicit" : "explicit") << " layer directory never named after the previous one\n"
        << r.err;
  }
  EXPECT_NE(r.err.find(explicit_manifest), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(implicit_manifest), std::string::npos) << r.err;
}

TEST_F(LayerFixture, LayerPathReplacesExplicitSearch) {
  VKT_POLICY("RULE_LYR_ENV_LAYER_PATH", "LLP_LOADER_2");
  AddMockLayer(s_, "VK_LAYER_MOCK_default", false);
  std::string in_dir = AddMockLayer(s_, "VK_LAYER_MOCK_in_dir", false, Location::kLoose);
  const Layer& f = s_.AddLayer("VK_LAYER_MOCK_by_file", "v2_gpdpa");
  std::string file = s_.root() + "/single/by_file.json";
  s_.WriteFile(file, LayerManifest("1.2.1", {LayerObject(f.name, f.library)}));
  AddMockLayer(s_, "VK_LAYER_MOCK_added", false, Location::kXdgDataDirs, "v2_gpdpa", "", "", "1.2.1", 1);
  s_.SetEnv("VK_LAYER_PATH", in_dir.substr(0, in_dir.rfind('/')) + ":" + file);
  s_.SetEnv("VK_ADD_LAYER_PATH", s_.LayerDir(Location::kXdgDataDirs, false, 1));  // ignored
  ProbeResult r = Run("VK_LAYER_MOCK_by_file,VK_LAYER_MOCK_in_dir");
  EXPECT_EQ(Sorted(Listed(r)), (V{"VK_LAYER_MOCK_by_file", "VK_LAYER_MOCK_in_dir"})) << r.Describe();
  EXPECT_EQ(Chain(), (V{"VK_LAYER_MOCK_by_file", "VK_LAYER_MOCK_in_dir"})) << r.Describe();
}

TEST_F(LayerFixture, AddLayerPathAddsToDefaults) {
  VKT_POLICY("RULE_LYR_ENV_LAYER_PATH", "LLP_LOADER_2");
  AddMockLayer(s_, "VK_LAYER_MOCK_default", false);
  std::string added = AddMockLayer(s_, "VK_LAYER_MOCK_added", false, Location::kLoose);
  s_.SetEnv("VK_ADD_LAYER_PATH", added.substr(0, added.rfind('/')));
  ProbeResult r = Run("VK_LAYER_MOCK_added,VK_LAYER_MOCK_default");
  EXPECT_EQ(Sorted(Listed(r)), (V{"VK_LAYER_MOCK_added", "VK_LAYER_MOCK_default"})) << r.Describe();
  EXPECT_EQ(Chain(), (V{"VK_LAYER_MOCK_added", "VK_LAYER_MOCK_default"})) << r.Describe();
}

TEST_F(LayerFixture, ImplicitLayerPathReplacesImplicitSearch) {
  VKT_POLICY("RULE_LYR_ENV_IMPLICIT_LAYER_PATH", "LLP_LOADER_2");
  AddMockLayer(s_, "VK_LAYER_MOCK_imp_default", true);
  std::string p = AddMockLayer(s_, "VK_LAYER_MOCK_imp_env", true, Location::kLoose);
  AddMockLayer(s_, "VK_LAYER_MOCK_imp_add", true, Location::kXdgDataDirs, "v2_gpdpa", "", "", "1.2.1", 1);
  s_.SetEnv("VK_IMPLICIT_LAYER_PATH", p.substr(0, p.rfind('/')));
  s_.SetEnv("VK_ADD_IMPLICIT_LAYER_PATH", s_.LayerDir(Location::kXdgDataDirs, true, 1));  // ignored
  ProbeResult r = Run();
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_imp_env"}) << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_imp_env"}) << r.Describe();
}

TEST_F(LayerFixture, AddImplicitLayerPathAddsToDefaults) {
  VKT_POLICY("RULE_LYR_ENV_IMPLICIT_LAYER_PATH", "LLP_LOADER_2");
  AddMockLayer(s_, "VK_LAYER_MOCK_imp_default", true);
  std::string p = AddMockLayer(s_, "VK_LAYER_MOCK_imp_add", true, Location::kLoose);
  s_.SetEnv("VK_ADD_IMPLICIT_LAYER_PATH", p.substr(0, p.rfind('/')));
  ProbeResult r = Run();
  EXPECT_EQ(Sorted(Listed(r)), (V{"VK_LAYER_MOCK_imp_add", "VK_LAYER_MOCK_imp_default"})) << r.Describe();
  EXPECT_EQ(Sorted(Chain()), (V{"VK_LAYER_MOCK_imp_add", "VK_LAYER_MOCK_imp_default"})) << r.Describe();
}

TEST_F(LayerFixture, InstanceLayersEnablesBeforeApplicationLayers) {
  VKT_POLICY("RULE_LYR_ENV_INSTANCE_LAYERS", "RULE_LYR_ORDER");
  AddMockLayer(s_, "VK_LAYER_MOCK_a", false);
  AddMockLayer(s_, "VK_LAYER_MOCK_b", false);
  AddMockLayer(s_, "VK_LAYER_MOCK_app", false);
  AddMockLayer(s_, "VK_LAYER_MOCK_unused", false);
  s_.SetEnv("VK_INSTANCE_LAYERS", "VK_LAYER_MOCK_b:VK_LAYER_MOCK_a");
  ProbeResult r = Run("VK_LAYER_MOCK_app");
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), (V{"VK_LAYER_MOCK_b", "VK_LAYER_MOCK_a", "VK_LAYER_MOCK_app"})) << r.Describe();
  EXPECT_EQ(DeviceChain(), (V{"VK_LAYER_MOCK_b", "VK_LAYER_MOCK_a", "VK_LAYER_MOCK_app"})) << r.Describe();
}

// ---- implicit layer gating ------------------------------------------------------------------

TEST_F(LayerFixture, ImplicitEnableEnvironment) {
  VKT_POLICY("LLP_LOADER_6");
  AddMockLayer(s_, "VK_LAYER_MOCK_gated", true, Location::kXdgDataDirs, "v2_gpdpa",
               ", \"enable_environment\": {\"MOCK_GATE\": \"on\"}");
  ProbeResult off = Run();
  EXPECT_EQ(Listed(off), V{"VK_LAYER_MOCK_gated"}) << "still enumerated\n" << off.Describe();
  EXPECT_EQ(Chain(), V{}) << off.Describe();
  s_.SetEnv("MOCK_GATE", "other");
  Run();
  EXPECT_EQ(Chain(), V{}) << "wrong value must not enable";
  s_.SetEnv("MOCK_GATE", "on");
  ProbeResult on = Run();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_gated"}) << on.Describe();
}

TEST_F(LayerFixture, ImplicitDisableEnvironment) {
  VKT_POLICY("LLP_LOADER_7", "LLP_LAYER_9");
  AddMockLayer(s_, "VK_LAYER_MOCK_dis", true);
  s_.SetEnv("DISABLE_VK_LAYER_MOCK_dis", "1");
  ProbeResult r = Run();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), V{}) << r.Describe();
  s_.UnsetEnv("DISABLE_VK_LAYER_MOCK_dis");
  ProbeResult on = Run();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_dis"}) << on.Describe();
}

// [Lyr]: the disable variable disables when "defined to any non-empty string value".
TEST_F(LayerFixture, ImplicitDisableEnvironmentEmptyValueDoesNotDisable) {
  VKT_POLICY("LLP_LOADER_7");
  AddMockLayer(s_, "VK_LAYER_MOCK_dis", true);
  s_.SetEnv("DISABLE_VK_LAYER_MOCK_dis", "");
  ProbeResult r = Run();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_dis"}) << r.Describe();
}

// ---- filters --------------------------------------------------------------------------------

class LayerFilters : public LayerFixture {
 protected:
  void SetUp() override {
    LayerFixture::SetUp();
    AddMockLayer(s_, "VK_LAYER_MOCK_imp", true);
    AddMockLayer(s_, "VK_LAYER_MOCK_exp_a", false);
    AddMockLayer(s_, "VK_LAYER_MOCK_exp_b", false);
  }
};

TEST_F(LayerFilters, DisableAll) {
  VKT_POLICY("RULE_LYR_FILTER_DISABLE");
  s_.SetEnv("VK_LOADER_LAYERS_DISABLE", "~all~");
  ProbeResult r = Run();
  EXPECT_EQ(Listed(r), V{}) << r.Describe();
  EXPECT_EQ(Chain(), V{}) << r.Describe();
  ProbeResult app = Run("VK_LAYER_MOCK_exp_a");
  EXPECT_EQ(CreateResult(app), "VK_ERROR_LAYER_NOT_PRESENT") << app.Describe();
}

TEST_F(LayerFilters, DisableImplicit) {
  VKT_POLICY("RULE_LYR_FILTER_DISABLE");
  s_.SetEnv("VK_LOADER_LAYERS_DISABLE", "~implicit~");
  ProbeResult r = Run("VK_LAYER_MOCK_exp_a");
  EXPECT_EQ(Sorted(Listed(r)), (V{"VK_LAYER_MOCK_exp_a", "VK_LAYER_MOCK_exp_b"})) << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_exp_a"}) << r.Describe();
}

TEST_F(LayerFilters, DisableExplicit) {
  VKT_POLICY("RULE_LYR_FILTER_DISABLE");
  s_.SetEnv("VK_LOADER_LAYERS_DISABLE", "~explicit~");
  ProbeResult r = Run();
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_imp"}) << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_imp"}) << r.Describe();
}

TEST_F(LayerFilters, DisableGlob) {
  VKT_POLICY("RULE_LYR_FILTER_DISABLE");
  s_.SetEnv("VK_LOADER_LAYERS_DISABLE", "*_a,VK_LAYER_MOCK_imp");
  ProbeResult r = Run("VK_LAYER_MOCK_exp_b");
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_exp_b"}) << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_exp_b"}) << r.Describe();
}

TEST_F(LayerFilters, EnableForcesExplicitLayerOn) {
  VKT_POLICY("RULE_LYR_FILTER_ENABLE", "RULE_LYR_ORDER");
  s_.SetEnv("VK_LOADER_LAYERS_ENABLE", "*exp_b");
  ProbeResult r = Run();
  EXPECT_EQ(Chain(), (V{"VK_LAYER_MOCK_imp", "VK_LAYER_MOCK_exp_b"})) << r.Describe();
}

TEST_F(LayerFilters, EnableBeatsDisable) {
  VKT_POLICY("RULE_LYR_FILTER_ENABLE", "RULE_LYR_FILTER_DISABLE");
  s_.SetEnv("VK_LOADER_LAYERS_DISABLE", "~all~");
  s_.SetEnv("VK_LOADER_LAYERS_ENABLE", "VK_LAYER_MOCK_exp_a");
  ProbeResult r = Run();
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_exp_a"}) << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_exp_a"}) << r.Describe();
}

TEST_F(LayerFilters, AllowShieldsFromDisableWithoutEnabling) {
  VKT_POLICY("RULE_LYR_FILTER_ALLOW", "RULE_LYR_FILTER_DISABLE");
  s_.SetEnv("VK_LOADER_LAYERS_DISABLE", "~all~");
  s_.SetEnv("VK_LOADER_LAYERS_ALLOW", "*_b,VK_LAYER_MOCK_imp");
  ProbeResult r = Run();
  EXPECT_EQ(Listed(r), (V{"VK_LAYER_MOCK_imp", "VK_LAYER_MOCK_exp_b"})) << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_imp"}) << "ALLOW must not enable an explicit layer\n" << r.Describe();
  ProbeResult app = Run("VK_LAYER_MOCK_exp_b");
  EXPECT_EQ(CreateResult(app), "VK_SUCCESS") << app.Describe();
}

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

// ---- pre-instance functions -----------------------------------------------------------------

// The mock's three pre-instance functions (mock_layers/README.md) named in a manifest.
const char kPreFunctions[] =
    ", \"pre_instance_functions\": {"
    "\"vkEnumerateInstanceExtensionProperties\": \"mock_layer_pre_EnumerateInstanceExtensionProperties\", "
    "\"vkEnumerateInstanceLayerProperties\": \"mock_layer_pre_EnumerateInstanceLayerProperties\", "
    "\"vkEnumerateInstanceVersion\": \"mock_layer_pre_EnumerateInstanceVersion\"}";

const char kPreExt[] = "pre_vkEnumerateInstanceExtensionProperties";
const char kPreLayers[] = "pre_vkEnumerateInstanceLayerProperties";
const char kPreVersion[] = "pre_vkEnumerateInstanceVersion";

// Scenario members: the layer adds `ext` and `layer` to the answers and reports `version` (0: the
// answer from below).
std::string PreScenario(const std::string& ext, const std::string& layer, uint32_t version = 0,
                        bool no_call_down = false) {
  std::string s = "\"pre_instance\": {\"add_extension\": \"" + ext + "\", \"add_layer\": \"" + layer +
                  "\", \"no_call_down\": " + (no_call_down ? "true" : "false") + "}";
  if (version != 0) s += ", \"pre_instance_version\": " + std::to_string(version);
  return s;
}

class PreInstance : public LayerFixture {
 protected:
  // A mock layer whose manifest (format `version`) names the three pre-instance functions.
  void AddPreLayer(const std::string& name, const std::string& scenario = "", bool implicit = true,
                   Location loc = Location::kXdgDataDirs, const std::string& version = "1.1.2",
                   const std::string& extra = "") {
    AddMockLayer(s_, name, implicit, loc, "v2_gpdpa", kPreFunctions + extra, scenario, version);
  }
  // The three global queries (each step calls twice: count, then fill).
  ProbeResult Query(const std::vector<std::string>& more = {}) {
    std::vector<std::string> steps = {"version", "instance-extensions", "instance-layers"};
    steps.insert(steps.end(), more.begin(), more.end());
    return RunProbe(s_, steps);
  }
  static V Extensions(const ProbeResult& r) {
    V out;
    Json list = r.Step("instance-extensions")["extensions"];
    for (size_t i = 0; i < list.size(); ++i) out.push_back(list[i]["name"].str());
    return out;
  }
  std::vector<Json> Records(const std::string& call) {
    std::vector<Json> out;
    for (const Json& j : s_.LayerCalls())
      if (j["call"].str() == call) out.push_back(j);
    return out;
  }
  size_t PreCallCount() { return Records(kPreExt).size() + Records(kPreLayers).size() + Records(kPreVersion).size(); }
};

// One implicit layer changes each answer; the loader's own answer still arrives through the chain.
TEST_F(PreInstance, OneLayerInterceptsEachFunction) {
  VKT_POLICY("RULE_LYR_PRE_INSTANCE", "RULE_LYR_MANIFEST_V1_1_2");
  AddPreLayer("VK_LAYER_MOCK_pre",
              PreScenario("VK_EXT_mock_pre", "VK_LAYER_MOCK_pre_added", VK_MAKE_API_VERSION(0, 1, 1, 77)));
  ProbeResult r = Query();
  EXPECT_EQ(r.Step("version")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("version")["version"].str(), "1.1.77") << r.Describe();
  EXPECT_EQ(r.Step("instance-extensions")["result"].str(), "VK_SUCCESS") << r.Describe();
  V exts = Extensions(r);
  EXPECT_TRUE(Contains(exts, "VK_EXT_mock_pre")) << r.Describe();
  EXPECT_TRUE(Contains(exts, "VK_EXT_debug_utils")) << "the loader's answer, from below\n" << r.Describe();
  EXPECT_EQ(r.Step("instance-layers")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Sorted(Listed(r)), (V{"VK_LAYER_MOCK_pre", "VK_LAYER_MOCK_pre_added"})) << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder(kPreVersion), V{"VK_LAYER_MOCK_pre"}) << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder(kPreExt), (V{"VK_LAYER_MOCK_pre", "VK_LAYER_MOCK_pre"})) << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder(kPreLayers), (V{"VK_LAYER_MOCK_pre", "VK_LAYER_MOCK_pre"})) << r.Describe();
  std::vector<Json> e = Records(kPreExt);
  ASSERT_EQ(e.size(), 2u);
  EXPECT_TRUE(e[0]["layer_name"].is_null()) << e[0].dump();
  EXPECT_TRUE(e[0]["props_null"].boolean()) << "count query first\n" << e[0].dump();
  EXPECT_FALSE(e[1]["props_null"].boolean(true)) << e[1].dump();
}

// A pass-through layer sees the documented chain structs and, below it, exactly the answers the
// loader gives without it (the run with the layer disabled).
TEST_F(PreInstance, ChainStructsLeadToTheLoadersAnswer) {
  VKT_POLICY("RULE_LYR_PRE_INSTANCE", "RULE_LYR_MANIFEST_V1_1_2");
  AddPreLayer("VK_LAYER_MOCK_pass");
  s_.SetEnv("DISABLE_VK_LAYER_MOCK_pass", "1");
  ProbeResult base = Query();
  ASSERT_EQ(PreCallCount(), 0u) << base.Describe();
  s_.UnsetEnv("DISABLE_VK_LAYER_MOCK_pass");
  ProbeResult r = Query();
  EXPECT_EQ(r.Step("version")["version_raw"].num(), base.Step("version")["version_raw"].num()) << r.Describe();
  EXPECT_EQ(Extensions(r), Extensions(base)) << r.Describe();
  EXPECT_EQ(Listed(r), Listed(base)) << r.Describe();

  struct Want {
    const char* call;
    int64_t type;
    size_t size;
  };
  for (const Want& w :
       {Want{kPreExt, VK_CHAIN_TYPE_ENUMERATE_INSTANCE_EXTENSION_PROPERTIES,
             sizeof(VkEnumerateInstanceExtensionPropertiesChain)},
        Want{kPreLayers, VK_CHAIN_TYPE_ENUMERATE_INSTANCE_LAYER_PROPERTIES,
             sizeof(VkEnumerateInstanceLayerPropertiesChain)},
        Want{kPreVersion, VK_CHAIN_TYPE_ENUMERATE_INSTANCE_VERSION, sizeof(VkEnumerateInstanceVersionChain)}}) {
    std::vector<Json> recs = Records(w.call);
    EXPECT_FALSE(recs.empty()) << w.call << "\n" << r.Describe();
    for (const Json& j : recs) {
      EXPECT_EQ(j["chain_type"].num(), w.type) << j.dump();
      EXPECT_EQ(j["chain_version"].num(), VK_CURRENT_CHAIN_VERSION) << j.dump();
      EXPECT_EQ(j["chain_size"].num(), static_cast<int64_t>(w.size)) << j.dump();
      EXPECT_TRUE(j["has_next"].boolean()) << j.dump();
    }
  }
  // What the layer got back from pfnNextLayer: the loader's own answers.
  std::vector<Json> v = Records(std::string(kPreVersion) + "_down");
  ASSERT_EQ(v.size(), 1u) << r.Describe();
  EXPECT_EQ(v[0]["result"].num(), VK_SUCCESS) << v[0].dump();
  EXPECT_EQ(v[0]["version"].num(), base.Step("version")["version_raw"].num()) << v[0].dump();
  std::vector<Json> e = Records(std::string(kPreExt) + "_down");
  ASSERT_EQ(e.size(), 2u) << r.Describe();
  EXPECT_EQ(e[0]["count"].num(), static_cast<int64_t>(Extensions(base).size())) << e[0].dump();
  std::vector<Json> l = Records(std::string(kPreLayers) + "_down");
  ASSERT_EQ(l.size(), 2u) << r.Describe();
  EXPECT_EQ(l[1]["count"].num(), static_cast<int64_t>(Listed(base).size())) << l[1].dump();
}

// Two implicit layers: both are called and both contributions survive the two-call idiom.
TEST_F(PreInstance, TwoLayersBothContribute) {
  VKT_POLICY("RULE_LYR_PRE_INSTANCE");
  AddPreLayer("VK_LAYER_MOCK_pre1", PreScenario("VK_EXT_mock_pre1", "VK_LAYER_MOCK_added1"), true,
              Location::kXdgConfigHome);
  AddPreLayer("VK_LAYER_MOCK_pre2", PreScenario("VK_EXT_mock_pre2", "VK_LAYER_MOCK_added2"), true,
              Location::kXdgDataDirs);
  ProbeResult r = Query();
  EXPECT_EQ(r.Step("instance-extensions")["result"].str(), "VK_SUCCESS") << r.Describe();
  V exts = Extensions(r);
  EXPECT_TRUE(Contains(exts, "VK_EXT_mock_pre1")) << r.Describe();
  EXPECT_TRUE(Contains(exts, "VK_EXT_mock_pre2")) << r.Describe();
  EXPECT_TRUE(Contains(exts, "VK_EXT_debug_utils")) << r.Describe();
  EXPECT_EQ(r.Step("instance-layers")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Sorted(Listed(r)),
            (V{"VK_LAYER_MOCK_added1", "VK_LAYER_MOCK_added2", "VK_LAYER_MOCK_pre1", "VK_LAYER_MOCK_pre2"}))
      << r.Describe();
  EXPECT_EQ(Sorted(s_.LayerCallOrder(kPreVersion)), (V{"VK_LAYER_MOCK_pre1", "VK_LAYER_MOCK_pre2"})) << r.Describe();
}

// The pre-instance chains put the layers in the order of the vkCreateInstance chain: the first
// implicit layer is outermost, so it is entered first and its version answer wins.
TEST_F(PreInstance, TwoLayersInCreateInstanceOrder) {
  VKT_POLICY("RULE_LYR_PRE_INSTANCE", "RULE_LYR_ORDER");
  AddPreLayer("VK_LAYER_MOCK_pre1", PreScenario("", "", VK_MAKE_API_VERSION(0, 1, 1, 11)), true,
              Location::kXdgConfigHome);
  AddPreLayer("VK_LAYER_MOCK_pre2", PreScenario("", "", VK_MAKE_API_VERSION(0, 1, 1, 22)), true,
              Location::kXdgDataDirs);
  ProbeResult r = Query({"create-instance", "destroy-instance"});
  const V want = {"VK_LAYER_MOCK_pre1", "VK_LAYER_MOCK_pre2"};
  ASSERT_EQ(Chain(), want) << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder(kPreVersion), want) << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder(kPreExt), (V{want[0], want[1], want[0], want[1]})) << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder(kPreLayers), (V{want[0], want[1], want[0], want[1]})) << r.Describe();
  EXPECT_EQ(r.Step("version")["version"].str(), "1.1.11") << "the outermost layer answers last\n" << r.Describe();
}

// A layer may answer without calling down; the application then sees only its answer.
TEST_F(PreInstance, LayerAnswersWithoutCallingDown) {
  VKT_POLICY("RULE_LYR_PRE_INSTANCE");
  AddPreLayer("VK_LAYER_MOCK_own",
              PreScenario("VK_EXT_mock_only", "VK_LAYER_MOCK_only", VK_MAKE_API_VERSION(0, 1, 2, 5), true));
  ProbeResult r = Query();
  EXPECT_EQ(r.Step("version")["version"].str(), "1.2.5") << r.Describe();
  EXPECT_EQ(Extensions(r), V{"VK_EXT_mock_only"}) << r.Describe();
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_only"}) << r.Describe();
  EXPECT_TRUE(Records(std::string(kPreVersion) + "_down").empty()) << r.Describe();
}

// Disabled implicit layers (disable_environment, VK_LOADER_LAYERS_DISABLE, an unmet
// enable_environment) are not called.
TEST_F(PreInstance, DisabledLayerNotCalled) {
  VKT_POLICY("RULE_LYR_PRE_INSTANCE", "LLP_LOADER_6", "LLP_LOADER_7", "RULE_LYR_FILTER_DISABLE");
  AddPreLayer("VK_LAYER_MOCK_pre_dis", PreScenario("VK_EXT_mock_dis", "", VK_MAKE_API_VERSION(0, 1, 1, 3)));
  AddPreLayer("VK_LAYER_MOCK_pre_gated", PreScenario("VK_EXT_mock_gated", "", VK_MAKE_API_VERSION(0, 1, 1, 4)), true,
              Location::kXdgDataDirs, "1.1.2", ", \"enable_environment\": {\"MOCK_PRE_GATE\": \"1\"}");
  s_.SetEnv("DISABLE_VK_LAYER_MOCK_pre_dis", "1");
  ProbeResult r = Query();
  EXPECT_EQ(PreCallCount(), 0u) << r.Describe();
  EXPECT_FALSE(Contains(Extensions(r), "VK_EXT_mock_dis")) << r.Describe();
  EXPECT_FALSE(Contains(Extensions(r), "VK_EXT_mock_gated")) << r.Describe();
  EXPECT_NE(r.Step("version")["version"].str(), "1.1.3") << r.Describe();
  EXPECT_NE(r.Step("version")["version"].str(), "1.1.4") << r.Describe();

  s_.UnsetEnv("DISABLE_VK_LAYER_MOCK_pre_dis");
  s_.SetEnv("VK_LOADER_LAYERS_DISABLE", "VK_LAYER_MOCK_pre_dis");
  ProbeResult f = Query();
  EXPECT_EQ(PreCallCount(), 0u) << f.Describe();

  // Control: with the gate open the gated layer is called.
  s_.SetEnv("MOCK_PRE_GATE", "1");
  ProbeResult on = Query();
  EXPECT_EQ(s_.LayerCallOrder(kPreVersion), V{"VK_LAYER_MOCK_pre_gated"}) << on.Describe();
  EXPECT_EQ(on.Step("version")["version"].str(), "1.1.4") << on.Describe();
}

// pre_instance_functions counts only for implicit layers: an explicit layer's are ignored, also
// while the application enables it.
TEST_F(PreInstance, ExplicitLayerIgnored) {
  VKT_POLICY("RULE_LYR_MANIFEST_V1_1_2", "RULE_LYR_PRE_INSTANCE");
  AddPreLayer("VK_LAYER_MOCK_pre_exp",
              PreScenario("VK_EXT_mock_exp", "VK_LAYER_MOCK_exp_added", VK_MAKE_API_VERSION(0, 1, 1, 5)), false);
  ProbeResult r = Query({"create-instance:layers=VK_LAYER_MOCK_pre_exp", "version", "destroy-instance"});
  EXPECT_EQ(PreCallCount(), 0u) << r.Describe();
  EXPECT_FALSE(Contains(Extensions(r), "VK_EXT_mock_exp")) << r.Describe();
  EXPECT_EQ(Listed(r), V{"VK_LAYER_MOCK_pre_exp"}) << r.Describe();
  EXPECT_NE(r.Step("version")["version"].str(), "1.1.5") << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_pre_exp"}) << "the layer itself still works\n" << r.Describe();
}

// pre_instance_functions arrived with manifest file format 1.1.2: in a 1.1.1 manifest it is
// ignored, the layer itself still works.
TEST_F(PreInstance, ManifestOlderThan1_1_2Ignored) {
  VKT_POLICY("RULE_LYR_MANIFEST_V1_1_2");
  AddPreLayer("VK_LAYER_MOCK_pre_old", PreScenario("VK_EXT_mock_old", "", VK_MAKE_API_VERSION(0, 1, 1, 6)), true,
              Location::kXdgDataDirs, "1.1.1");
  ProbeResult r = Query({"create-instance", "destroy-instance"});
  EXPECT_EQ(PreCallCount(), 0u) << r.Describe();
  EXPECT_FALSE(Contains(Extensions(r), "VK_EXT_mock_old")) << r.Describe();
  EXPECT_NE(r.Step("version")["version"].str(), "1.1.6") << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_pre_old"}) << r.Describe();
}

// ---- layers that break the rules ------------------------------------------------------------

TEST_F(LayerFixture, ClobberedInstanceRefused) {
  VKT_POLICY("LLP_LAYER_21");
  AddMockLayer(s_, "VK_LAYER_MOCK_clobber", false, Location::kXdgDataDirs, "v2_gpdpa", "",
               "\"misbehave\": {\"clobber_instance\": true}");
  ProbeResult r = RunProbe(s_, {"create-instance:layers=VK_LAYER_MOCK_clobber", "destroy-instance"});
  EXPECT_EQ(r.exit_status, 0) << "the loader must not end the process\n" << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_ERROR_INITIALIZATION_FAILED") << r.Describe();
  EXPECT_TRUE(r.LogContains("LLP_LAYER_21")) << r.Describe();
}

// A layer that answers vkCreateInstance without calling down gives no pointers for the commands it
// does not implement itself; vkGetInstanceProcAddr then answers NULL for those core commands rather
// than a trampoline that would call through an empty dispatch slot (found by loader_world_fuzzer,
// fuzz/regressions/loader_world_fuzzer/layer_no_call_down_groups). A layer that calls down gives
// them all, so the same names are non-NULL there.
TEST_F(LayerFixture, CommandsTheChainLacksAreNull) {
  VKT_POLICY("RULE_GIPA_SPEC");
  AddMockLayer(s_, "VK_LAYER_MOCK_nocall", false, Location::kXdgDataDirs, "v2_gpdpa", "",
               "\"misbehave\": {\"no_call_down\": true}");
  AddMockLayer(s_, "VK_LAYER_MOCK_fine", false, Location::kXdgDataDirs, "v2_gpdpa");
  ProbeResult r =
      RunProbe(s_, {"create-instance:layers=VK_LAYER_MOCK_nocall;api=1.1", "gipa:vkGetPhysicalDeviceFormatProperties",
                    "gipa:vkEnumeratePhysicalDeviceGroups", "destroy-instance"});
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_FALSE(r.Step("gipa", 0)["non_null"].boolean()) << r.Describe();
  EXPECT_FALSE(r.Step("gipa", 1)["non_null"].boolean()) << r.Describe();
  ProbeResult ok =
      RunProbe(s_, {"create-instance:layers=VK_LAYER_MOCK_fine;api=1.1", "gipa:vkGetPhysicalDeviceFormatProperties",
                    "gipa:vkEnumeratePhysicalDeviceGroups", "destroy-instance"});
  ASSERT_EQ(CreateResult(ok), "VK_SUCCESS") << ok.Describe();
  EXPECT_TRUE(ok.Step("gipa", 0)["non_null"].boolean()) << ok.Describe();
  EXPECT_TRUE(ok.Step("gipa", 1)["non_null"].boolean()) << ok.Describe();
}

TEST_F(LayerFixture, ClobberedDeviceRefused) {
  VKT_POLICY("LLP_LAYER_22");
  AddMockLayer(s_, "VK_LAYER_MOCK_clobber", false, Location::kXdgDataDirs, "v2_gpdpa", "",
               "\"misbehave\": {\"clobber_device\": true}");
  ProbeResult r = RunProbe(s_, {"create-instance:layers=VK_LAYER_MOCK_clobber", "devices", "create-device:0",
                                "destroy-device", "destroy-instance"});
  EXPECT_EQ(r.exit_status, 0) << "the loader must not end the process\n" << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("create-device")["result"].str(), "VK_ERROR_INITIALIZATION_FAILED") << r.Describe();
  EXPECT_TRUE(r.LogContains("LLP_LAYER_22")) << r.Describe();
}

// The loader's log line names the layer that overwrote the handle (its name and manifest) and the
// rule, whether the culprit sits between two layers or right above the loader's terminators; the
// well-behaved layers around it are not blamed.
struct ClobberCase {
  const char* name;
  const char* misbehave;  // mock switch
  const char* rule;
  bool last;  // the culprit is the layer closest to the loader
};
class ClobberCulprit : public LayerFixture, public ::testing::WithParamInterface<ClobberCase> {};

TEST_P(ClobberCulprit, LogNamesTheLayerAndItsManifest) {
  VKT_POLICY("LLP_LAYER_21", "LLP_LAYER_22", "RULE_LOG_FORMAT");
  const ClobberCase& c = GetParam();
  AddMockLayer(s_, "VK_LAYER_MOCK_above", false);
  std::string manifest = AddMockLayer(s_, "VK_LAYER_MOCK_culprit", false, Location::kXdgDataDirs, "v2_gpdpa", "",
                                      std::string("\"misbehave\": {\"") + c.misbehave + "\": true}");
  AddMockLayer(s_, "VK_LAYER_MOCK_below", false);
  std::string layers = c.last ? "VK_LAYER_MOCK_above,VK_LAYER_MOCK_below,VK_LAYER_MOCK_culprit"
                              : "VK_LAYER_MOCK_above,VK_LAYER_MOCK_culprit,VK_LAYER_MOCK_below";
  ProbeResult r = RunProbe(
      s_, {"create-instance:layers=" + layers, "devices", "create-device:0", "destroy-device", "destroy-instance"});
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  // The lines that cite the rule.
  std::vector<std::string> cited = r.LogLines(c.rule);
  ASSERT_FALSE(cited.empty()) << r.Describe();
  bool named = false;
  for (const std::string& line : cited) {
    named =
        named || (line.find("ERROR") != std::string::npos && line.find("VK_LAYER_MOCK_culprit") != std::string::npos &&
                  line.find(manifest) != std::string::npos);
    EXPECT_EQ(line.find("VK_LAYER_MOCK_above"), std::string::npos) << line;
    EXPECT_EQ(line.find("VK_LAYER_MOCK_below"), std::string::npos) << line;
  }
  EXPECT_TRUE(named) << "no ERROR line naming VK_LAYER_MOCK_culprit and " << manifest << "\n" << r.Describe();
}

// A long chain (the loader's link shims come in groups of eight): every layer is chained in order,
// and a culprit eleventh in the chain is still the one named.
TEST_F(LayerFixture, ClobberCulpritNamedDeepInALongChain) {
  VKT_POLICY("LLP_LAYER_21", "RULE_LYR_ORDER");
  V names;
  std::string list;
  for (int i = 0; i < 10; ++i) {
    names.push_back("VK_LAYER_MOCK_deep" + std::to_string(i));
    AddMockLayer(s_, names.back(), false);
    list += names.back() + ",";
  }
  ProbeResult ok = RunProbe(s_, {"create-instance:layers=" + list.substr(0, list.size() - 1), "destroy-instance"});
  ASSERT_EQ(CreateResult(ok), "VK_SUCCESS") << ok.Describe();
  EXPECT_EQ(Chain(), names) << ok.Describe();
  std::string manifest = AddMockLayer(s_, "VK_LAYER_MOCK_deep_culprit", false, Location::kXdgDataDirs, "v2_gpdpa", "",
                                      "\"misbehave\": {\"clobber_instance\": true}");
  ProbeResult r = RunProbe(s_, {"create-instance:layers=" + list + "VK_LAYER_MOCK_deep_culprit", "destroy-instance"});
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_ERROR_INITIALIZATION_FAILED") << r.Describe();
  bool named = false;
  for (size_t pos = 0; (pos = r.err.find("LLP_LAYER_21", pos)) != std::string::npos; ++pos) {
    size_t bol = r.err.rfind('\n', pos), eol = r.err.find('\n', pos);
    std::string line = r.err.substr(bol == std::string::npos ? 0 : bol + 1,
                                    eol == std::string::npos ? std::string::npos : eol - bol - 1);
    EXPECT_EQ(line.find("VK_LAYER_MOCK_deep9"), std::string::npos) << line;
    named = named ||
            (line.find("VK_LAYER_MOCK_deep_culprit") != std::string::npos && line.find(manifest) != std::string::npos);
  }
  EXPECT_TRUE(named) << r.Describe();
}

// More active layers than the reference loader has link shims (64, loader/layer_chain.c): 70 copies
// of the mock layer under distinct names. The chain must not depend on the shims: every layer is
// chained in order for the instance and the device, and everything works and goes away again.
constexpr int kManyLayers = 70;

V AddManyLayers(Sandbox& s, std::string* list) {
  V names;
  for (int i = 0; i < kManyLayers; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "VK_LAYER_MOCK_many%02d", i);
    names.push_back(name);
    AddMockLayer(s, name, false);
    *list += (i ? "," : "") + names.back();
  }
  return names;
}

TEST_F(LayerFixture, ChainLongerThanTheShimPool) {
  VKT_POLICY("RULE_LYR_ORDER", "LLP_LOADER_8", "LLP_LOADER_9");
  std::string list;
  V names = AddManyLayers(s_, &list);
  ProbeResult r = Run(list);
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), names) << r.Describe();
  EXPECT_EQ(r.DeviceNames(), V{"drv-dev"}) << r.Describe();
  EXPECT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(DeviceChain(), names) << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder("vkDestroyDevice"), names) << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder("vkDestroyInstance"), names) << r.Describe();
  EXPECT_EQ(s_.CallsTo("drv", "vkCreateDevice").size(), 1u) << r.Describe();
  EXPECT_EQ(s_.CallsTo("drv", "vkDestroyInstance").size(), 1u) << r.Describe();
}

// The same 70 layers and one culprit more: a layer that overwrites *pInstance / *pDevice is still
// refused whether its link has a shim or not. Fourth in the chain (a shim stands below it) it is
// named with its manifest; last, beyond the pool, only the bottom check's line without a name
// remains -- but the creation is refused all the same and the probe survives.
TEST_F(LayerFixture, ClobberRefusedBeyondTheShimPool) {
  VKT_POLICY("LLP_LAYER_21", "LLP_LAYER_22");
  std::string list;
  V names = AddManyLayers(s_, &list);
  for (const char* misbehave : {"clobber_instance", "clobber_device"}) {
    const bool instance = std::string(misbehave) == "clobber_instance";
    const char* rule = instance ? "LLP_LAYER_21" : "LLP_LAYER_22";
    const std::string culprit = std::string("VK_LAYER_MOCK_culprit_") + misbehave;
    std::string manifest = AddMockLayer(s_, culprit, false, Location::kXdgDataDirs, "v2_gpdpa", "",
                                        std::string("\"misbehave\": {\"") + misbehave + "\": true}");
    for (bool last : {false, true}) {
      SCOPED_TRACE(std::string(misbehave) + (last ? ", last (no shim)" : ", fourth (shim)"));
      std::string layers = last ? list + "," + culprit
                                : names[0] + "," + names[1] + "," + names[2] + "," + culprit +
                                      list.substr(names[0].size() + names[1].size() + names[2].size() + 2);
      std::remove(s_.LayerCallsFile().c_str());
      ProbeResult r = RunProbe(
          s_, {"create-instance:layers=" + layers, "devices", "create-device:0", "destroy-device", "destroy-instance"});
      EXPECT_EQ(r.exit_status, 0) << r.Describe();
      if (instance) {
        EXPECT_EQ(CreateResult(r), "VK_ERROR_INITIALIZATION_FAILED") << r.Describe();
      } else {
        ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
        EXPECT_EQ(r.Step("create-device")["result"].str(), "VK_ERROR_INITIALIZATION_FAILED") << r.Describe();
      }
      bool cited = false, named = false;
      for (size_t pos = 0; (pos = r.err.find(rule, pos)) != std::string::npos; ++pos) {
        size_t bol = r.err.rfind('\n', pos), eol = r.err.find('\n', pos);
        std::string line = r.err.substr(bol == std::string::npos ? 0 : bol + 1,
                                        eol == std::string::npos ? std::string::npos : eol - bol - 1);
        cited = cited || line.find("ERROR") != std::string::npos;
        named = named || (line.find(culprit) != std::string::npos && line.find(manifest) != std::string::npos);
        for (const std::string& n : names) EXPECT_EQ(line.find(n + " "), std::string::npos) << line;
      }
      EXPECT_TRUE(cited) << "no ERROR line cites " << rule << "\n" << r.Describe();
      if (!last) {
        EXPECT_TRUE(named) << r.Describe();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ClobberCulprit,
    ::testing::Values(ClobberCase{"InstanceBetweenLayers", "clobber_instance", "LLP_LAYER_21", false},
                      ClobberCase{"InstanceAboveTheLoader", "clobber_instance", "LLP_LAYER_21", true},
                      ClobberCase{"DeviceBetweenLayers", "clobber_device", "LLP_LAYER_22", false},
                      ClobberCase{"DeviceAboveTheDriver", "clobber_device", "LLP_LAYER_22", true}),
    [](const ::testing::TestParamInfo<ClobberCase>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace vkt
