// Loader behaviour through chains of chassis-mode mock layers (mock_layers/chassis_layer.c): every
// command intercepted through generated dispatch, each layer running validate / pre-record /
// dispatch / post-record. With "wrap_handles" each layer hands the layer above its own ids for the
// non-dispatchable handles it returns and unwraps them (parameters and members of input
// structures) before calling down; the mock driver accepts only its own command pool in
// vkAllocateCommandBuffers, so a command buffer allocated through three wrapping layers proves that
// every layer received its own link (LLP_LOADER_8/9) and unwrapped (LLP_LAYER_10).
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

using V = std::vector<std::string>;

class ChassisChain : public ::testing::Test {
 protected:
  void SetUp() override {
    AddNamedDriver(s_, "drv");
    s_.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  }
  // An explicit chassis layer `name` with `members` in its scenario.
  void AddChassis(const std::string& name, const std::string& members) {
    const Layer& l = s_.AddLayer(name, "chassis", members);
    s_.WriteLayerManifest(Location::kXdgDataDirs, false, name + ".json",
                          "{\"file_format_version\": \"1.1.0\", \"layer\": {\"name\": \"" + name +
                              "\", \"type\": \"GLOBAL\", \"library_path\": \"" + l.library +
                              "\", \"api_version\": \"1.3.0\", \"implementation_version\": \"1\", "
                              "\"description\": \"chassis\"}}");
  }
  ProbeResult Run(const std::string& create_opts) {
    return RunProbe(s_, {"create-instance:" + create_opts, "devices", "create-device:@drv-dev", "command-buffers",
                         "destroy-device", "destroy-instance"});
  }
  // The records of `layer` for `call`.
  std::vector<Json> Records(const std::string& layer, const std::string& call) {
    std::vector<Json> out;
    for (const Json& j : s_.LayerCalls())
      if (j["layer"].str() == layer && j["call"].str() == call) out.push_back(j);
    return out;
  }
  Sandbox s_;
};

TEST_F(ChassisChain, ThreeWrappingLayersUnwrapAtEveryLevel) {
  VKT_POLICY("LLP_LAYER_10", "LLP_LOADER_8", "LLP_LOADER_9");
  const V names = {"VK_LAYER_CHASSIS_a", "VK_LAYER_CHASSIS_b", "VK_LAYER_CHASSIS_c"};
  for (const auto& n : names) AddChassis(n, "\"wrap_handles\": true");
  ProbeResult r = Run("layers=VK_LAYER_CHASSIS_a,VK_LAYER_CHASSIS_b,VK_LAYER_CHASSIS_c");
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  ASSERT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
  Json cb = r.Step("command-buffers");
  EXPECT_EQ(cb["create_pool"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(cb["allocate"].str(), "VK_SUCCESS") << r.Describe();  // the driver got its own pool
  EXPECT_EQ(cb["begin"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(cb["submit"].str(), "VK_SUCCESS") << r.Describe();
  // Records are written after the call down returned: the layer nearest the driver first.
  EXPECT_EQ(s_.LayerCallOrder("vkCreateInstance"), (V{names[2], names[1], names[0]}));
  EXPECT_EQ(s_.LayerCallOrder("vkCreateDevice"), (V{names[2], names[1], names[0]}));
  for (const auto& n : names) {
    SCOPED_TRACE(n);
    // Each layer wrapped the pool it got from below, unwrapped it in the allocate-info structure,
    // in vkFreeCommandBuffers and vkDestroyCommandPool, and forgot it.
    std::vector<Json> create = Records(n, "vkCreateCommandPool");
    ASSERT_EQ(create.size(), 1u);
    EXPECT_EQ(create[0]["wrapped"].num(), 1);
    std::vector<Json> alloc = Records(n, "vkAllocateCommandBuffers");
    ASSERT_EQ(alloc.size(), 1u);
    EXPECT_EQ(alloc[0]["unwrapped"].num(), 1);
    EXPECT_EQ(alloc[0]["result"].str(), "VK_SUCCESS");
    std::vector<Json> freed = Records(n, "vkFreeCommandBuffers");
    ASSERT_EQ(freed.size(), 1u);
    EXPECT_EQ(freed[0]["unwrapped"].num(), 1);
    std::vector<Json> destroy = Records(n, "vkDestroyCommandPool");
    ASSERT_EQ(destroy.size(), 1u);
    EXPECT_EQ(destroy[0]["unwrapped"].num(), 1);
    EXPECT_EQ(destroy[0]["forgotten"].num(), 1);
    std::vector<Json> dev = Records(n, "vkDestroyDevice");
    ASSERT_EQ(dev.size(), 1u);
    EXPECT_EQ(dev[0]["wrapped_left"].num(), 0);
    // Commands of the workload that carry no handle of ours still ran through the chassis.
    EXPECT_EQ(Records(n, "vkQueueSubmit").size(), 1u);
    EXPECT_EQ(Records(n, "vkCmdFillBuffer").size(), 2u);
  }
}

// The validate phase: a command the scenario calls invalid is reported to the application's
// debug-utils messenger (chained into vkCreateInstance, reaching the layer in the pNext chain the
// loader passes down) and, with "skip": "always", never reaches the layer below.
TEST_F(ChassisChain, ValidatePhaseReportsThroughDebugUtilsAndSkips) {
  VKT_POLICY("LLP_LOADER_8");
  AddChassis("VK_LAYER_CHASSIS_top", "\"invalid\": [\"vkCreateCommandPool\"], \"skip\": \"always\"");
  AddChassis("VK_LAYER_CHASSIS_low", "");
  ProbeResult r = Run("layers=VK_LAYER_CHASSIS_top,VK_LAYER_CHASSIS_low;ext=VK_EXT_debug_utils;messenger=debug-utils");
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("command-buffers")["create_pool"].str(), "VK_ERROR_VALIDATION_FAILED_EXT") << r.Describe();
  EXPECT_TRUE(
      r.MessagesContain("VK_LAYER_CHASSIS_top: vkCreateCommandPool: the chassis' validation found this call "
                        "invalid"))
      << r.Describe();
  std::vector<Json> v = Records("VK_LAYER_CHASSIS_top", "validate");
  ASSERT_EQ(v.size(), 1u) << r.Describe();
  EXPECT_EQ(v[0]["command"].str(), "vkCreateCommandPool");
  EXPECT_EQ(v[0]["messengers"].num(), 1);
  EXPECT_TRUE(v[0]["skipped"].boolean());
  EXPECT_TRUE(Records("VK_LAYER_CHASSIS_top", "vkCreateCommandPool").empty());  // no post-record
  EXPECT_TRUE(Records("VK_LAYER_CHASSIS_low", "vkCreateCommandPool").empty());  // never called down
}

// "skip": "callback" (the default): the call is skipped only when a callback returns VK_TRUE;
// the probe's returns VK_FALSE, so the message is delivered and the call goes down.
TEST_F(ChassisChain, ValidatePhaseSkipsOnlyWhenTheCallbackAsks) {
  VKT_POLICY("LLP_LOADER_8");
  AddChassis("VK_LAYER_CHASSIS_top", "\"invalid\": [\"vkCreateCommandPool\"]");
  ProbeResult r = Run("layers=VK_LAYER_CHASSIS_top;ext=VK_EXT_debug_utils;messenger=debug-utils");
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("command-buffers")["create_pool"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_TRUE(r.MessagesContain("vkCreateCommandPool: the chassis' validation found this call invalid"))
      << r.Describe();
  std::vector<Json> v = Records("VK_LAYER_CHASSIS_top", "validate");
  ASSERT_EQ(v.size(), 1u) << r.Describe();
  EXPECT_FALSE(v[0]["callback_skip"].boolean(true));
  EXPECT_FALSE(v[0]["skipped"].boolean(true));
  EXPECT_EQ(Records("VK_LAYER_CHASSIS_top", "vkCreateCommandPool").size(), 1u);
}

}  // namespace
}  // namespace vkt
