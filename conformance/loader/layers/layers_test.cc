// Which layers the loader under test finds and loads: manifests of every file format version, every
// layer interface version and export variant (mock_layers/variants.bzl), the layer variables,
// implicit-layer gating and the filters. The mock layers record their calls in one shared file
// (Sandbox::LayerCalls), so the chain order is observable. The rest of //conformance/loader:layers_test:
// layer_composition_test.cc, pre_instance_test.cc, clobber_test.cc (and filter_wording_test.cc,
// meta_scale_test.cc).
#include <string>
#include <vector>

#include "conformance/loader/layers/layer_fixture.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

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

}  // namespace
}  // namespace vkt
