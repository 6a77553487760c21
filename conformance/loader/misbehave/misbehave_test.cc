// Misbehaviour matrix: each mock ICD misbehaviour switch (mock_icd/README.md) in a driver loaded
// beside a well-behaved one. The loader must keep the good driver working and, where it can see
// the fault, name the culprit in its log. Rows and expectations: misbehave.tsv.
#include <algorithm>
#include <string>
#include <vector>

#include "conformance/loader/matrix/matrix_common.h"

namespace vkt {
namespace {

using matrix::Row;

// The IDs misbehave.tsv may cite (read by the coverage gate; rows are checked against it).
const char* const kRules[] = {
    "LDP_DRIVER_1",
    "LDP_DRIVER_2",
    "LDP_DRIVER_3",
    "LDP_DRIVER_8",
    "LDP_DRIVER_9",
    "LDP_DRIVER_10",
    "LDP_DRIVER_12",
    "LDP_LOADER_1",
    "LDP_LOADER_5",
    "LDP_LOADER_6",
    "RULE_DRV_ZERO_DEVICE_UNLOAD",
    "RULE_DRV_DISPATCHABLE_OBJECT",
    "RULE_GIPA_SPEC",
    "RULE_INST_UNKNOWN_EXT",
    "RULE_PHYSDEV_AGGREGATE",
};

class DriverMisbehaviour : public ::testing::TestWithParam<Row> {};

TEST_P(DriverMisbehaviour, BesideAGoodDriver) {
  Row row = GetParam();
  std::vector<std::string> rules = matrix::Words(row["rules"]);
  VKT_POLICY(rules);
  ASSERT_EQ(matrix::RowProblem(row, rules, kRules, "misbehave.tsv"), "");
  Sandbox s;
  // A scenario that sets physical_devices itself is used as it is; otherwise bad has "bad-dev".
  s.AddDriver("bad", row["bad_variant"],
              row["scenario"].find("\"physical_devices\"") != std::string::npos
                  ? "{" + row["scenario"] + "}"
                  : matrix::DeviceScenario({"bad-dev"}, row["scenario"]));
  s.AddDriver("good", "v7_exports", matrix::DeviceScenario({"good-dev"}));
  s.WriteDriverManifest(Location::kXdgConfigHome, "bad");
  s.WriteDriverManifest(Location::kXdgConfigHome, "good");
  s.SetEnv("VK_LOADER_DEBUG", "error,warn");
  std::vector<std::string> steps = {row["create"].empty() ? "create-instance" : "create-instance:" + row["create"],
                                    "devices"};
  if (row["good_device"] != "-") {
    steps.push_back("create-device:@good-dev");
    steps.push_back("destroy-device");
  }
  steps.push_back("destroy-instance");
  ProbeResult r = RunProbe(s, steps);
  ::testing::Test::RecordProperty("exit_status", r.exit_status);
  EXPECT_EQ(r.exit_status, 0) << "the probe did not survive the misbehaving driver\n" << r.Describe();
  EXPECT_EQ(matrix::CreateResult(r), row["expect_create"]) << r.Describe();
  std::vector<std::string> want = matrix::Words(row["expect_devices"]);
  if (want == std::vector<std::string>{"-"}) want.clear();
  EXPECT_EQ(matrix::Sorted(r.DeviceNames()), matrix::Sorted(want)) << r.Describe();
  if (row["good_device"] != "-") {
    EXPECT_EQ(r.Step("create-device")["result"].str("<none>"), row["good_device"]) << r.Describe();
  }
  const bool logged = r.LogContains("/bad/") || r.LogContains("bad.json");
  ::testing::Test::RecordProperty("culprit_logged", logged ? "yes" : "no");
  if (row["culprit"] == "logged") {
    EXPECT_TRUE(logged) << "the loader's warn/error log does not name the bad driver\n" << r.Describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Drivers, DriverMisbehaviour,
                         ::testing::ValuesIn(matrix::LoadTsv("conformance/loader/misbehave/misbehave.tsv")),
                         matrix::CellName());

}  // namespace
}  // namespace vkt
