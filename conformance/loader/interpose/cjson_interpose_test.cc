// The loader's JSON parser is private (RULE_PRIVATE_JSON_PARSER): an application that loads its own,
// incompatible cJSON before the loader (here LD_PRELOAD of libfake_cjson.so: every parse fails,
// other signatures) does not change how the loader reads driver manifests. The mock driver imports
// cJSON from Debian's libcjson.so.1, so the same process shows the interposition is real: the fake
// sees the mock's calls and the mock loses its scenario (its device falls back to the default name).
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

struct LogLine {
  std::string what, object;
};

std::vector<LogLine> ReadLog(const std::string& path) {
  std::vector<LogLine> lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    size_t tab = line.find('\t');
    if (tab == std::string::npos) continue;
    lines.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return lines;
}

std::string Basename(const std::string& p) {
  size_t slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// LD_PRELOAD of the fake, its call log, and (under AddressSanitizer) no complaint that the
// sanitizer runtime is not first in the initial library list.
void PreloadFake(Sandbox& s, const std::string& log) {
  s.SetEnv("LD_PRELOAD", Runfile("conformance/loader/interpose/libfake_cjson.so"));
  s.SetEnv("VKT_FAKE_CJSON_LOG", log);
  const char* asan = getenv("ASAN_OPTIONS");
  s.SetEnv("ASAN_OPTIONS", std::string(asan && *asan ? std::string(asan) + ":" : "") + "verify_asan_link_order=0");
}

TEST(PrivateJsonParser, IncompatibleCjsonLoadedFirstChangesNothing) {
  VKT_POLICY("RULE_PRIVATE_JSON_PARSER");
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  const std::string log = s.root() + "/fake_cjson.log";
  PreloadFake(s, log);
  ProbeResult r = CreateAndEnumerate(s);
  std::vector<LogLine> lines = ReadLog(log);
  std::ostringstream all;
  for (const LogLine& l : lines) all << l.what << "\t" << l.object << "\n";

  // The fake was in the probe's process.
  bool loaded = false;
  for (const LogLine& l : lines) loaded |= l.what == "loaded";
  ASSERT_TRUE(loaded) << "LD_PRELOAD did not load the fake cJSON\n" << r.Describe();

  // The loader read the manifest and loaded the driver it names.
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << all.str() << r.Describe();
  EXPECT_TRUE(s.WasLoaded("a")) << r.Describe();
  EXPECT_EQ(r.DeviceNames().size(), 1u) << r.Describe();

  // Nothing of the loader called the fake.
  const std::string loader = Basename(LoaderPath());
  for (const LogLine& l : lines) {
    if (l.what == "loaded") continue;
    EXPECT_NE(Basename(l.object), loader) << "the loader called the application's " << l.what << "\n" << all.str();
    EXPECT_EQ(l.object.find("libvulkan"), std::string::npos) << l.what << " from " << l.object;
  }

  // Control: the mock driver imports cJSON, so the fake took its scenario parse, and the mock ran on
  // its defaults ("Mock Device 0" instead of the scenario's "a-dev").
  bool mock_called = false;
  for (const LogLine& l : lines)
    mock_called |= l.what.rfind("cJSON_Parse", 0) == 0 && l.object.find("libmock_icd") != std::string::npos;
  EXPECT_TRUE(mock_called) << "the control failed: the mock's cJSON calls did not reach the fake\n" << all.str();
  EXPECT_EQ(r.DeviceNames(), std::vector<std::string>{"Mock Device 0"}) << r.Describe();
}

// The same driver without the fake: the scenario's device name (the control above is the fake's doing).
TEST(PrivateJsonParser, WithoutTheFakeTheMockReadsItsScenario) {
  VKT_POLICY("RULE_PRIVATE_JSON_PARSER");
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = CreateAndEnumerate(s);
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), std::vector<std::string>{"a-dev"}) << r.Describe();
}

}  // namespace
}  // namespace vkt
