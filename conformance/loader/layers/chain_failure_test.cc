// Layer chains that fail or answer part-way (conformance/loader/layers), found by
// loader_world_fuzzer (fuzz/regressions/loader_world_fuzzer/):
// - a layer whose own work fails after its vkCreateDevice call down succeeded destroys the device
//   below through the chain (the next vkGetDeviceProcAddr's vkDestroyDevice, which never returns to
//   the loader) and fails: the loader's own record of that device must not outlive the failed call
//   (`app_allocation_not_freed_1`: one allocation through the application's callbacks leaked);
// - a layer that overwrote *pInstance before calling down (LLP_LAYER_21) above a layer that answers
//   vkCreateInstance without calling down: the loader's bottom check never runs, the answer comes
//   back up the chain with the overwritten handle, and the layers read its dispatch key
//   (`mock_layer_above_clobber_no_call_down_*`: the mock layer's clobbered handle was unreadable).
#include <cstdio>
#include <string>
#include <vector>

#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

using V = std::vector<std::string>;

class LayerChainFailure : public OneDriverTest {
 protected:
  std::string AddLayer(const std::string& name, const std::string& misbehave = "") {
    std::string members = misbehave.empty() ? "" : "\"misbehave\": {" + misbehave + "}";
    return AddMockLayer(s_, name, false, Location::kXdgDataDirs, "v2_gpdpa", "", members);
  }
  // The ERROR lines citing `rule`.
  static V ErrorLines(const ProbeResult& r, const std::string& rule) {
    V out;
    for (const std::string& line : r.LogLines(rule))
      if (line.find("ERROR") != std::string::npos) out.push_back(line);
    return out;
  }
};

// The failing layer alone and below a well-behaved one, with the application's counting allocator:
// vkCreateDevice fails with the layer's result, the driver's device was created and destroyed once,
// and once the instance is gone every allocation made through the callbacks has been freed. A
// second vkCreateDevice on the same instance fails the same way (the first left nothing behind that
// gets in its way).
TEST_F(LayerChainFailure, DeviceDestroyedByALayerAfterCallingDownLeavesNothingBehind) {
  VKT_POLICY("LLP_LOADER_9", "RULE_INST_ALLOCATOR");
  AddLayer("VK_LAYER_MOCK_failing", "\"fail_device_after_call_down\": true");
  AddLayer("VK_LAYER_MOCK_fine");
  for (const std::string& layers :
       {std::string("VK_LAYER_MOCK_failing"), std::string("VK_LAYER_MOCK_fine,VK_LAYER_MOCK_failing")}) {
    SCOPED_TRACE(layers);
    std::remove(s_.driver("drv").calls.c_str());
    std::remove(s_.LayerCallsFile().c_str());
    ProbeResult r = RunProbe(s_, {"create-instance:layers=" + layers + ";alloc=counting", "devices", "create-device:0",
                                  "create-device:0", "destroy-instance"});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
    ASSERT_EQ(r.Steps("create-device").size(), 2u) << r.Describe();
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(r.Step("create-device", i)["result"].str(), "VK_ERROR_OUT_OF_HOST_MEMORY") << r.Describe();
      EXPECT_FALSE(r.Step("create-device", i)["device"].boolean()) << r.Describe();
    }
    EXPECT_EQ(s_.CallsTo("drv", "vkCreateDevice").size(), 2u) << r.Describe();
    std::vector<Json> destroyed = s_.CallsTo("drv", "vkDestroyDevice");
    ASSERT_EQ(destroyed.size(), 2u) << r.Describe();
    for (const Json& d : destroyed) EXPECT_TRUE(d["valid"].boolean()) << d.dump();
    EXPECT_TRUE(s_.CallsTo("drv", "invalid_handle").empty()) << r.Describe();
    Json a = r.Alloc();
    EXPECT_TRUE(a["used"].boolean()) << r.Describe();
    EXPECT_EQ(a["outstanding"].num(), 0) << "allocations through the application's callbacks never freed\n"
                                         << r.Describe();
    EXPECT_EQ(a["bad_frees"].num(), 0) << r.Describe();
  }
}

// The layer that overwrote *pInstance sits above one that would answer vkCreateInstance itself.
// The link below the culprit refuses the call (the refusal must not depend on the call reaching the
// terminator): vkCreateInstance fails, the layer below never sees the bogus handle, nobody crashes,
// and the loader names the culprit and its manifest, the layer below it not.
TEST_F(LayerChainFailure, ClobberAboveALayerThatAnswersItself) {
  VKT_POLICY("LLP_LAYER_21");
  std::string manifest = AddLayer("VK_LAYER_MOCK_culprit", "\"clobber_instance\": true");
  AddLayer("VK_LAYER_MOCK_answers", "\"no_call_down\": true");
  ProbeResult r =
      RunProbe(s_, {"create-instance:layers=VK_LAYER_MOCK_culprit,VK_LAYER_MOCK_answers", "destroy-instance"});
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  EXPECT_EQ(r.Step("create-instance")["result"].str(), "VK_ERROR_INITIALIZATION_FAILED") << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder("vkCreateInstance"), (V{"VK_LAYER_MOCK_culprit"})) << r.Describe();
  V lines = ErrorLines(r, "LLP_LAYER_21");
  bool named = false;
  for (const std::string& line : lines) {
    named =
        named || (line.find("VK_LAYER_MOCK_culprit") != std::string::npos && line.find(manifest) != std::string::npos);
    EXPECT_EQ(line.find("VK_LAYER_MOCK_answers"), std::string::npos) << line;
  }
  EXPECT_TRUE(named) << "no ERROR line naming VK_LAYER_MOCK_culprit and " << manifest << "\n" << r.Describe();
  EXPECT_TRUE(s_.CallsTo("drv", "vkCreateInstance").empty()) << r.Describe();
}

// The layer that overwrote *pInstance also answers itself, below a well-behaved layer: that layer
// reads the dispatch key of the handle it got back (the probe survives), and the loader reports
// the foreign handle the chain returned.
TEST_F(LayerChainFailure, LayerAboveAClobberThatAnswersItself) {
  VKT_POLICY("LLP_LAYER_21");
  AddLayer("VK_LAYER_MOCK_above");
  AddLayer("VK_LAYER_MOCK_culprit", "\"clobber_instance\": true, \"no_call_down\": true");
  ProbeResult r =
      RunProbe(s_, {"create-instance:layers=VK_LAYER_MOCK_above,VK_LAYER_MOCK_culprit", "destroy-instance"});
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder("vkCreateInstance"), (V{"VK_LAYER_MOCK_above", "VK_LAYER_MOCK_culprit"})) << r.Describe();
  EXPECT_FALSE(ErrorLines(r, "LLP_LAYER_21").empty()) << r.Describe();
  EXPECT_TRUE(s_.CallsTo("drv", "vkCreateInstance").empty()) << r.Describe();
}

}  // namespace
}  // namespace vkt
