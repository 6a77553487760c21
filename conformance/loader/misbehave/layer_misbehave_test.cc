// Layer misbehaviour matrix: each mock layer misbehaviour switch (mock_layers/README.md) in a layer
// enabled beside a well-behaved layer, over two drivers. Where the loader can see the fault it must
// refuse it (and say so in its log); where it cannot, the layer's own answer reaches the
// application unchanged. Rows and expectations: layer_misbehave.tsv.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "conformance/loader/matrix/matrix_common.h"

namespace vkt {
namespace {

using matrix::Row;
using V = std::vector<std::string>;

// The IDs layer_misbehave.tsv may cite (read by the coverage gate; rows are checked against it).
const char* const kRules[] = {
    "LLP_LAYER_5",  "LLP_LAYER_12", "LLP_LAYER_13", "LLP_LAYER_17", "LLP_LAYER_18",
    "LLP_LAYER_21", "LLP_LAYER_22", "LLP_LOADER_5", "LLP_LOADER_8", "LLP_LOADER_9",
};

const char kBad[] = "VK_LAYER_MOCK_bad";
const char kGood[] = "VK_LAYER_MOCK_good";

// "bad" / "good" -> the layer name.
std::string LayerName(const std::string& short_name) { return short_name == "bad" ? kBad : kGood; }

// An explicit or implicit layer manifest (file format 1.2.1) for `l`.
void WriteLayer(Sandbox& s, const Layer& l, bool implicit) {
  std::string o = "{\"file_format_version\": \"1.2.1\", \"layer\": {\"name\": \"" + l.name +
                  "\", \"type\": \"GLOBAL\", \"library_path\": \"" + l.library +
                  "\", \"api_version\": \"1.3.0\", \"implementation_version\": \"1\", "
                  "\"description\": \"mock layer\"";
  if (implicit) o += ", \"disable_environment\": {\"DISABLE_" + l.name + "\": \"1\"}";
  o += "}}";
  s.WriteLayerManifest(Location::kXdgDataDirs, implicit, l.name + ".json", o);
}

// Expected chain from a TSV cell ("bad good", "-").
V ChainOf(const std::string& cell) {
  V out;
  for (const std::string& w : matrix::Words(cell))
    if (w != "-") out.push_back(LayerName(w));
  return out;
}

class LayerMisbehaviour : public ::testing::TestWithParam<Row> {};

TEST_P(LayerMisbehaviour, BesideAGoodLayer) {
  Row row = GetParam();
  std::vector<std::string> rules = matrix::Words(row["rules"]);
  VKT_POLICY(rules);
  ASSERT_EQ(matrix::RowProblem(row, rules, kRules, "layer_misbehave.tsv"), "");
  Sandbox s;
  s.AddDriver("drv1", "v7_exports", matrix::DeviceScenario({"drv1-dev"}));
  s.AddDriver("drv2", "v7_exports", matrix::DeviceScenario({"drv2-dev"}));
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv1");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv2");
  const Layer& bad = s.AddLayer(kBad, row["bad_variant"], row["scenario"]);
  const Layer& good = s.AddLayer(kGood, "v2_gpdpa");
  WriteLayer(s, bad, row["implicit"] == "bad");
  WriteLayer(s, good, row["implicit"] == "good");
  s.SetEnv("VK_LOADER_DEBUG", "error,warn");
  // Debian's Khronos loader (1.3.239) leaks its instance (~830 KB) when a layer answers
  // vkCreateInstance without calling down; the row's behaviour is still checked, but LeakSanitizer
  // is off for that one probe of that one loader (sanitizer builds only; listed in
  // conformance/deviations/khronos.tsv's header, which cannot hold sanitizer-only deviations).
  if (LoaderName() == "khronos" && row["switch"] == "no_call_down" && getenv("ASAN_OPTIONS") != nullptr) {
    s.SetEnv("ASAN_OPTIONS", std::string(getenv("ASAN_OPTIONS")) + ":detect_leaks=0");
    ::testing::Test::RecordProperty("khronos_leak_check", "off");
  }

  std::string opts;
  for (const std::string& w : matrix::Words(row["app_layers"]))
    if (w != "-") opts += (opts.empty() ? "layers=" : ",") + LayerName(w);
  if (!row["create"].empty()) opts += (opts.empty() ? "" : ";") + row["create"];
  std::vector<std::string> steps = {opts.empty() ? "create-instance" : "create-instance:" + opts, "devices"};
  if (row["gipa"] != "-") steps.push_back("gipa:" + row["gipa"]);
  if (row["good_device"] != "-") {
    steps.push_back("create-device:@drv1-dev");
    steps.push_back("destroy-device");
  }
  steps.push_back("destroy-instance");
  ProbeResult r = RunProbe(s, steps);

  ::testing::Test::RecordProperty("exit_status", r.exit_status);
  EXPECT_EQ(r.exit_status, 0) << "the probe did not survive the misbehaving layer\n" << r.Describe();
  EXPECT_EQ(matrix::CreateResult(r), row["expect_create"]) << r.Describe();
  EXPECT_EQ(s.LayerCallOrder("vkCreateInstance"), ChainOf(row["expect_chain"])) << r.Describe();
  V want = matrix::Words(row["expect_devices"]);
  if (want == V{"-"}) want.clear();
  EXPECT_EQ(matrix::Sorted(r.DeviceNames()), matrix::Sorted(want)) << r.Describe();
  if (row["good_device"] != "-") {
    EXPECT_EQ(r.Step("create-device")["result"].str("<none>"), row["good_device"]) << r.Describe();
    EXPECT_EQ(s.LayerCallOrder("vkCreateDevice"), ChainOf(row["expect_device_chain"])) << r.Describe();
    if (row["good_device"] == "VK_SUCCESS") {
      // The device reached the driver below the layers, and went away again.
      EXPECT_EQ(s.CallsTo("drv1", "vkCreateDevice").size(), 1u) << r.Describe();
      EXPECT_EQ(s.CallsTo("drv1", "vkDestroyDevice").size(), 1u) << r.Describe();
    }
  }
  if (row["gipa"] != "-") {
    EXPECT_EQ(r.Step("gipa")["non_null"].boolean() ? "non_null" : "null", row["expect_gipa"])
        << "vkGetInstanceProcAddr(instance, " << row["gipa"] << ")\n"
        << r.Describe();
  }
  const bool logged = r.LogContains(kBad) || r.LogContains("/" + std::string(kBad) + "/");
  ::testing::Test::RecordProperty("culprit_logged", logged ? "yes" : "no");
  if (row["culprit"] == "logged") {
    EXPECT_TRUE(logged) << "the loader's warn/error log does not name the bad layer\n" << r.Describe();
  }
  if (row["culprit"] == "named") {
    // One line names the culprit and the rule it broke.
    ASSERT_NE(row["log"], "-") << "a \"named\" row needs the rule in its log column";
    bool named = false;
    for (const std::string& line : r.LogLines(row["log"])) named = named || line.find(kBad) != std::string::npos;
    ::testing::Test::RecordProperty("culprit_named", named ? "yes" : "no");
    EXPECT_TRUE(named) << "no warn/error line names " << kBad << " together with " << row["log"] << "\n"
                       << r.Describe();
  }
  if (row["log"] != "-") {
    EXPECT_TRUE(r.LogContains(row["log"])) << "the warn/error log lacks \"" << row["log"] << "\"\n" << r.Describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Layers, LayerMisbehaviour,
                         ::testing::ValuesIn(matrix::LoadTsv("conformance/loader/misbehave/layer_misbehave.tsv")),
                         matrix::CellName());

}  // namespace
}  // namespace vkt
