// Implicit layers' pre-instance functions (pre_instance_functions, manifest file format 1.1.2)
// intercepting vkEnumerateInstanceExtensionProperties, vkEnumerateInstanceLayerProperties and
// vkEnumerateInstanceVersion through the loader under test.
#include <vulkan/vk_layer.h>

#include <string>
#include <vector>

#include "conformance/loader/layers/layer_fixture.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

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

}  // namespace
}  // namespace vkt
