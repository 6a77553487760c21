#include "conformance/framework/policy.h"

#include <fnmatch.h>
#include <stdlib.h>

#include <fstream>
#include <map>
#include <sstream>

#include "conformance/framework/sandbox.h"
#include "gtest/gtest-spi.h"
#include "gtest/gtest.h"

namespace vkt {

const std::vector<Deviation>& DeviationsFor(const std::string& loader_name) {
  static std::map<std::string, std::vector<Deviation>> cache;
  auto it = cache.find(loader_name);
  if (it != cache.end()) return it->second;
  std::vector<Deviation>& list = cache[loader_name];
  const char* override_path = getenv("VKT_DEVIATIONS");
  std::string path = override_path ? override_path : Runfile("conformance/deviations/" + loader_name + ".tsv");
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string col;
    while (std::getline(ss, col, '\t')) cols.push_back(col);
    if (cols.size() < 3 || cols[0] == "test") continue;  // header / malformed
    list.push_back({cols[0], cols[1], cols[2]});
  }
  return list;
}

const Deviation* FindDeviation(const std::string& full_test_name) {
  for (const Deviation& d : DeviationsFor(LoaderName()))
    if (fnmatch(d.test_glob.c_str(), full_test_name.c_str(), 0) == 0) return &d;
  return nullptr;
}

PolicyScope::PolicyScope(std::initializer_list<const char*> ids)
    : PolicyScope(std::vector<std::string>(ids.begin(), ids.end())) {}

PolicyScope::PolicyScope(const std::vector<std::string>& ids) {
  std::string joined;
  for (const std::string& id : ids) {
    if (!joined.empty()) joined += ' ';
    joined += id;
  }
  ::testing::Test::RecordProperty("policies", joined);
  ::testing::Test::RecordProperty("loader", LoaderName());
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (info == nullptr) return;
  deviation_ = FindDeviation(std::string(info->test_suite_name()) + "." + info->name());
  if (deviation_ != nullptr) {
    results_ = std::make_unique<::testing::TestPartResultArray>();
    reporter_ = std::make_unique<::testing::ScopedFakeTestPartResultReporter>(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, results_.get());
  }
}

PolicyScope::~PolicyScope() {
  if (deviation_ == nullptr) return;
  reporter_.reset();  // restore the real reporter
  int failures = 0;
  std::string skip_message;
  std::ostringstream details;
  for (int i = 0; i < results_->size(); ++i) {
    const ::testing::TestPartResult& r = results_->GetTestPartResult(i);
    if (r.skipped()) {
      skip_message = r.message();
    } else if (r.failed()) {
      ++failures;
      details << (r.file_name() ? r.file_name() : "?") << ":" << r.line_number() << ": " << r.summary() << "\n";
    }
  }
  std::string what = deviation_->rule + ": " + deviation_->reason;
  if (failures > 0) {
    ::testing::Test::RecordProperty("deviation", what);
    std::printf("[ DEVIATION ] expected deviation of loader '%s' (%s)\n%s", LoaderName().c_str(), what.c_str(),
                details.str().c_str());
    return;
  }
  if (!skip_message.empty()) {
    [&] { GTEST_SKIP() << skip_message; }();
    return;
  }
  ADD_FAILURE() << "stale deviation: this test is listed in conformance/deviations/" << LoaderName() << ".tsv ("
                << deviation_->test_glob << ", " << what << ") but it passes against " << LoaderPath()
                << "; remove the entry.";
}

}  // namespace vkt
