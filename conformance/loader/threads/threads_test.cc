// The loader's "Threads" requirements with layers: vkCreateDevice / vkDestroyDevice on one instance
// from many threads at once (the probe's threads-devices step), and a layer that calls back into
// the loader from inside its own vkCreateInstance / vkCreateDevice (mock layer "reenter"): the
// loader either lets the nested creation work or fails it with an ERROR line, and never deadlocks
// (docs/architecture.md "Concurrency", RULE_THREADS_REENTRY). Tagged "tsan": .ci/run runs this
// target under --config=tsan too, where any ThreadSanitizer report in the probe fails the test.
#include <signal.h>

#include <string>
#include <vector>

#include "conformance/loader/common.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

constexpr int kThreads = 8;
constexpr int kIterations = 50;
// The watchdog of the re-entry tests: the probe is killed (SIGKILL) when it has not finished by
// then, and the test fails as a deadlock. A pass takes well under a second (seconds under a
// sanitizer); this bounds a hang, it measures nothing.
constexpr int kWatchdogSeconds = 20;

std::vector<Json> CallsOf(const Sandbox& s, const std::string& layer, const std::string& call) {
  std::vector<Json> out;
  for (const Json& j : s.LayerCalls())
    if (j["layer"].str() == layer && j["call"].str() == call) out.push_back(j);
  return out;
}

TEST(Threads, DevicesCreatedAndDestroyedFromManyThreadsThroughLayers) {
  VKT_POLICY("LLP_LOADER_9", "LLP_LOADER_1");
  Sandbox s;
  AddNamedDriver(s, "thr");
  s.WriteDriverManifest(Location::kXdgDataDirs, "thr");
  // One implicit and one explicit layer: every device's chain runs through both.
  AddMockLayer(s, "VK_LAYER_VKT_thr_implicit", true);
  AddMockLayer(s, "VK_LAYER_VKT_thr_explicit", false);
  s.SetEnv("VK_LOADER_DEBUG", "error");  // 400 devices at "all" would write megabytes
  ProbeResult r = RunProbe(
      s, {"create-instance:layers=VK_LAYER_VKT_thr_explicit", "devices",
          "threads-devices:" + std::to_string(kThreads) + "," + std::to_string(kIterations), "destroy-instance"});
  ASSERT_EQ(r.exit_status, 0) << r.Describe();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  Json t = r.Step("threads-devices");
  ASSERT_TRUE(t.valid()) << r.Describe();
  const int64_t total = kThreads * kIterations;
  EXPECT_EQ(t["failed"].num(), 0) << t.dump();
  EXPECT_EQ(t["created"].num(), total) << t.dump();
  // Every device works: vkGetDeviceProcAddr answers, queue (0,0) carries the device's dispatch,
  // vkDeviceWaitIdle reaches the driver through the chain, and vkDestroyDevice came back.
  EXPECT_EQ(t["resolved"].num(), total) << t.dump();
  EXPECT_EQ(t["queues"].num(), total) << t.dump();
  EXPECT_EQ(t["idle_ok"].num(), total) << t.dump();
  EXPECT_EQ(t["destroyed"].num(), total) << t.dump();
  // Each layer saw each creation and destruction (LLP_LOADER_9: its link in every chain).
  for (const char* layer : {"VK_LAYER_VKT_thr_implicit", "VK_LAYER_VKT_thr_explicit"}) {
    std::vector<Json> created = CallsOf(s, layer, "vkCreateDevice");
    EXPECT_EQ(static_cast<int64_t>(created.size()), total) << layer;
    for (const Json& c : created) EXPECT_TRUE(c["link_info"].boolean()) << layer << ": " << c.dump();
    EXPECT_EQ(static_cast<int64_t>(CallsOf(s, layer, "vkDestroyDevice").size()), total) << layer;
  }
  EXPECT_FALSE(r.LogContains("ERROR")) << r.Describe();
}

// A layer's scenario members for "reenter" through the loader under test.
std::string Reenter(const std::string& what) {
  return "\"reenter\": {\"" + what + "\": true, \"loader\": \"" + LoaderPath() + "\"}";
}

// The nested creation either worked (0) or failed with VK_ERROR_INITIALIZATION_FAILED and an
// ERROR line naming the rule; never anything else.
void ExpectWorkedOrRefused(const ProbeResult& r, int64_t nested, const std::string& what) {
  if (nested == 0) return;
  EXPECT_EQ(nested, -3) << what << " failed with a result other than VK_ERROR_INITIALIZATION_FAILED\n" << r.Describe();
  EXPECT_FALSE(r.LogLines("ERROR").empty()) << what << " was refused without an ERROR line\n" << r.Describe();
}

// The re-entering layer, implicit (the nested creation loads it again, and it does not re-enter a
// second time) or explicit (enabled by the application: the nested creation has no layers).
ProbeResult RunReentering(Sandbox& s, bool implicit, const std::string& what) {
  AddNamedDriver(s, "re");
  s.WriteDriverManifest(Location::kXdgDataDirs, "re");
  AddMockLayer(s, "VK_LAYER_VKT_reenter", implicit, Location::kXdgDataDirs, "v2_gpdpa", "", Reenter(what));
  ProbeOptions o;
  o.timeout_seconds = kWatchdogSeconds;
  return RunProbe(s,
                  {implicit ? "create-instance" : "create-instance:layers=VK_LAYER_VKT_reenter", "devices",
                   "create-device:0", "dispatch-words", "destroy-device", "destroy-instance"},
                  o);
}

TEST(LayerReentry, LayerCreatesAnInstanceInsideItsVkCreateInstance) {
  VKT_POLICY("LLP_LOADER_8", "RULE_THREADS_REENTRY");
  for (bool implicit : {true, false}) {
    SCOPED_TRACE(implicit ? "implicit layer" : "explicit layer");
    Sandbox s;
    ProbeResult r = RunReentering(s, implicit, "instance");
    ASSERT_NE(r.exit_status, 128 + SIGKILL)
        << "deadlock: the probe was still running after " << kWatchdogSeconds << " s (watchdog)\n"
        << r.Describe();
    ASSERT_EQ(r.exit_status, 0) << r.Describe();
    std::vector<Json> re = CallsOf(s, "VK_LAYER_VKT_reenter", "reenter_instance");
    ASSERT_EQ(re.size(), 1u) << r.Describe();
    ASSERT_TRUE(re[0]["loader_found"].boolean()) << re[0].dump();
    ExpectWorkedOrRefused(r, re[0]["instance"].num(), "the nested vkCreateInstance");
    // The outer instance is not harmed either way.
    EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
    EXPECT_EQ(r.DeviceNames(), std::vector<std::string>{"re-dev"}) << r.Describe();
    EXPECT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
    // Ours lets the nested creation work: it shares no lock with the outer creation (none is held
    // while layers run) and puts the outer creation's per-thread state aside (RULE_THREADS_REENTRY).
    if (LoaderName() == "ours") {
      EXPECT_EQ(re[0]["instance"].num(), 0) << re[0].dump() << "\n" << r.Describe();
      EXPECT_TRUE(r.LogLines("ERROR").empty()) << r.Describe();
    }
  }
}

TEST(LayerReentry, LayerCreatesADeviceInsideItsVkCreateDevice) {
  VKT_POLICY("LLP_LOADER_9", "RULE_THREADS_REENTRY");
  for (bool implicit : {true, false}) {
    SCOPED_TRACE(implicit ? "implicit layer" : "explicit layer");
    Sandbox s;
    ProbeResult r = RunReentering(s, implicit, "device");
    ASSERT_NE(r.exit_status, 128 + SIGKILL)
        << "deadlock: the probe was still running after " << kWatchdogSeconds << " s (watchdog)\n"
        << r.Describe();
    ASSERT_EQ(r.exit_status, 0) << r.Describe();
    std::vector<Json> re = CallsOf(s, "VK_LAYER_VKT_reenter", "reenter_device");
    ASSERT_EQ(re.size(), 1u) << r.Describe();
    ASSERT_TRUE(re[0]["loader_found"].boolean()) << re[0].dump();
    ExpectWorkedOrRefused(r, re[0]["instance"].num(), "the nested vkCreateInstance");
    if (re[0]["instance"].num() == 0) {
      EXPECT_EQ(re[0]["physical_devices"].num(), 0) << re[0].dump();
      ExpectWorkedOrRefused(r, re[0]["device"].num(), "the nested vkCreateDevice");
      if (re[0]["device"].num() == 0) {
        EXPECT_TRUE(re[0]["gdpa"].boolean()) << re[0].dump();
        EXPECT_TRUE(re[0]["queue"].boolean()) << re[0].dump();
      }
    }
    // The outer device is not harmed either way: created, and its queue carries its dispatch.
    EXPECT_EQ(r.Step("create-device")["result"].str(), "VK_SUCCESS") << r.Describe();
    EXPECT_TRUE(r.Step("dispatch-words")["queue_same_as_device"].boolean()) << r.Describe();
    if (LoaderName() == "ours") {
      EXPECT_EQ(re[0]["instance"].num(), 0) << re[0].dump() << "\n" << r.Describe();
      EXPECT_EQ(re[0]["device"].num(), 0) << re[0].dump() << "\n" << r.Describe();
      EXPECT_TRUE(r.LogLines("ERROR").empty()) << r.Describe();
    }
  }
}

}  // namespace
}  // namespace vkt
