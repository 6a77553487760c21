// Layers that break the rules (LLP_LAYER_21, LLP_LAYER_22): a layer that overwrites the instance or
// device handle is refused and named in the log, also deep in a chain longer than the loader's link
// shims, and commands a chain lacks are NULL.
#include <cstdio>
#include <string>
#include <vector>

#include "conformance/loader/layers/layer_fixture.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

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
