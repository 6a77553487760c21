// A small conformance test for run_report_test (tools/report/BUILD: report_probe_test): two cases
// that pass against our loader; against Debian's Khronos loader the first passes and the second is a
// listed deviation in conformance/deviations/khronos.tsv (the suite's own Instance test of that name
// checks the same rule), so a loader run under the name "khronos" shows DEVIATION, under any other
// name FAIL, and a loader that crashes on load fails both.
#include <string>

#include "conformance/framework/policy.h"
#include "conformance/framework/sandbox.h"
#include "gtest/gtest.h"

namespace vkt {
namespace {

ProbeResult CreateInstance(Sandbox& s) {
  s.AddDriver("a", "v7_exports", "{\"physical_devices\":[{\"name\":\"a-dev\",\"device_id\":100}]}");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  return RunProbe(s, {"create-instance", "devices", "destroy-instance"});
}

TEST(ReportProbe, OneDriverOneDevice) {
  VKT_POLICY("LDP_LOADER_3");
  Sandbox s;
  ProbeResult r = CreateInstance(s);
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  EXPECT_EQ(r.Step("create-instance")["result"].str(""), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames().size(), 1u) << r.Describe();
}

TEST(Instance, LogLinesUseLoaderPrefix) {
  VKT_POLICY("RULE_LOG_FORMAT");
  Sandbox s;
  ProbeResult r = CreateInstance(s);
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  EXPECT_TRUE(r.LogContains("[Vulkan Loader] INFO")) << r.Describe();
}

}  // namespace
}  // namespace vkt
