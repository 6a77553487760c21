// Drivers that lie: each row of liars.tsv loads a mock ICD that answers the count/array protocol,
// device groups, names, handles or the first word of its dispatchable objects falsely
// (mock_icd/README.md, misbehave switches) beside a good driver. The loader must survive with a defined result: no
// crash (ASan: no out-of-bounds access), the good device intact, sane VkResults, and a log line naming the lying driver
// (RULE_DRV_UNTRUSTED_ANSWERS; docs/ldp-check.md "Drivers that lie").
#include <limits.h>

#include <string>
#include <vector>

#include "conformance/loader/matrix/matrix_common.h"

namespace vkt {
namespace {

using matrix::Row;

// The IDs liars.tsv may cite.
const char* const kRules[] = {
    "LDP_DRIVER_1",
    "RULE_DRV_DISPATCHABLE_OBJECT",
    "RULE_DRV_UNTRUSTED_ANSWERS",
};

// A device name up to its first byte that is not printable ASCII (a lying driver's name goes on
// with bytes that are not UTF-8, and no NUL).
std::string AsciiPrefix(const std::string& s) {
  size_t i = 0;
  while (i < s.size() && s[i] >= 0x20 && s[i] < 0x7f) ++i;
  return s.substr(0, i);
}

class LyingDriver : public ::testing::TestWithParam<Row> {};

TEST_P(LyingDriver, BesideAGoodDriver) {
  Row row = GetParam();
  std::vector<std::string> rules = matrix::Words(row["rules"]);
  VKT_POLICY(rules);
  ASSERT_EQ(matrix::RowProblem(row, rules, kRules, "liars.tsv"), "");
  Sandbox s;
  s.AddDriver("bad", row["bad_variant"], "{" + row["scenario"] + "}");
  s.AddDriver("good", "v7_exports", matrix::DeviceScenario({"good-dev"}));
  s.WriteDriverManifest(Location::kXdgConfigHome, "bad");
  s.WriteDriverManifest(Location::kXdgConfigHome, "good");
  s.SetEnv("VK_LOADER_DEBUG", "error,warn");
  std::vector<std::string> steps = {row["create"].empty() ? "create-instance" : "create-instance:" + row["create"],
                                    "devices"};
  for (const std::string& step : matrix::Words(row["steps"])) steps.push_back(step);
  steps.push_back("create-device:" + row["device"]);
  for (const std::string& step : matrix::Words(row["device_steps"])) steps.push_back(step);
  steps.push_back("destroy-device");
  steps.push_back("destroy-instance");
  ProbeResult r = RunProbe(s, steps);
  ::testing::Test::RecordProperty("exit_status", r.exit_status);
  EXPECT_EQ(r.exit_status, 0) << "the probe did not survive the lying driver\n" << r.Describe();
  EXPECT_EQ(matrix::CreateResult(r), row["expect_create"]) << r.Describe();
  std::vector<std::string> names;
  for (const std::string& n : r.DeviceNames()) names.push_back(AsciiPrefix(n));
  EXPECT_EQ(matrix::Sorted(names), matrix::Sorted(matrix::Words(row["expect_devices"]))) << r.Describe();
  EXPECT_EQ(r.Step("create-device")["result"].str("<none>"), row["expect_device"]) << r.Describe();
  for (const std::string& want : matrix::Words(row["expect"])) {
    size_t dot = want.find('.'), eq = want.find('=');
    ASSERT_TRUE(dot != std::string::npos && eq != std::string::npos && dot < eq) << "bad expect word " << want;
    const std::string step = want.substr(0, dot), key = want.substr(dot + 1, eq - dot - 1), value = want.substr(eq + 1);
    Json v = r.Step(step)[key];
    std::string got = v.is_bool() ? (v.boolean() ? "true" : "false") : v.str("");
    if (got.empty()) got = std::to_string(v.num(-1));
    EXPECT_EQ(got, value) << want << "\n" << r.Describe();
  }
  const bool logged = r.LogContains("/bad/") || r.LogContains("bad.json");
  ::testing::Test::RecordProperty("culprit_logged", logged ? "yes" : "no");
  if (row["culprit"] == "logged") {
    EXPECT_TRUE(logged) << "the loader's warn/error log does not name the lying driver\n" << r.Describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Drivers, LyingDriver,
                         ::testing::ValuesIn(matrix::LoadTsv("conformance/loader/misbehave/liars.tsv")),
                         matrix::CellName());

// Case 6: a driver manifest whose library_path is longer than PATH_MAX (an absolute path naming the
// real library through 5000 leading slashes, and one that names nothing). The loader must not copy
// it into a PATH_MAX buffer: the driver is skipped with a log naming the manifest and the good
// driver keeps working (RULE_DRV_LIBRARY_LOAD_FAILURE, RULE_DRV_UNTRUSTED_ANSWERS).
class LongLibraryPath : public ::testing::TestWithParam<bool> {};

TEST_P(LongLibraryPath, DriverSkippedOthersKeepWorking) {
  VKT_POLICY("RULE_DRV_LIBRARY_LOAD_FAILURE", "RULE_DRV_UNTRUSTED_ANSWERS");
  Sandbox s;
  const Driver& bad = s.AddDriver("bad", "v7_exports", matrix::DeviceScenario({"bad-dev"}));
  s.AddDriver("good", "v7_exports", matrix::DeviceScenario({"good-dev"}));
  ManifestSpec spec = s.ManifestFor("bad");
  spec.library_path = GetParam() ? std::string(5000, '/') + bad.library.substr(1)
                                 : "/" + std::string(PATH_MAX + 100, 'x') + "/libmock_icd.so";
  ASSERT_GT(spec.library_path.size(), static_cast<size_t>(PATH_MAX));
  s.WriteManifest(Location::kXdgConfigHome, "bad.json", spec.ToJson());
  s.WriteDriverManifest(Location::kXdgConfigHome, "good");
  s.SetEnv("VK_LOADER_DEBUG", "error,warn");
  ProbeResult r =
      RunProbe(s, {"create-instance", "devices", "create-device:@good-dev", "destroy-device", "destroy-instance"});
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  EXPECT_EQ(matrix::CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), std::vector<std::string>{"good-dev"}) << r.Describe();
  EXPECT_EQ(r.Step("create-device")["result"].str("<none>"), "VK_SUCCESS") << r.Describe();
  EXPECT_TRUE(r.LogContains("bad.json")) << "the log does not name the manifest\n" << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Manifest, LongLibraryPath, ::testing::Bool(), [](const ::testing::TestParamInfo<bool>& i) {
  return std::string(i.param ? "ExistingLibrary" : "Nothing");
});

}  // namespace
}  // namespace vkt
