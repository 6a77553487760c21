// Policy citations and known-deviation handling for conformance tests.
//
//   TEST(DriverSearch, XdgConfigHome) {
//     VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
//     ...
//   }
//
// A data-driven test may pass a std::vector<std::string> instead: VKT_POLICY(cell.rules).
//
// VKT_POLICY must be the first statement of a test body. It records the property
// policies="<space-separated IDs>" and, when the loader under test has a deviations file
// (conformance/deviations/<LoaderName()>.tsv) listing the test, turns the test's failures into an
// "expected deviation" (property deviation=...), and fails a listed test that passes ("stale
// deviation").
#ifndef VKT_FRAMEWORK_POLICY_H_
#define VKT_FRAMEWORK_POLICY_H_

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace testing {
class ScopedFakeTestPartResultReporter;
class TestPartResultArray;
}  // namespace testing

namespace vkt {

struct Deviation {
  std::string test_glob;  // "Suite.Name" glob (fnmatch)
  std::string rule;       // policy / rule ID it contradicts
  std::string reason;     // one sentence
};

// Entries of conformance/deviations/<loader>.tsv (empty when none).
const std::vector<Deviation>& DeviationsFor(const std::string& loader_name);
// The deviation listing `full_test_name` for the loader under test, or nullptr.
const Deviation* FindDeviation(const std::string& full_test_name);

class PolicyScope {
 public:
  PolicyScope(std::initializer_list<const char*> ids);
  // For tests whose cells come from a data file: VKT_POLICY(cell.rules) with a vector of IDs. The
  // coverage gate then counts every ID string literal of the test file (keep the file's table of
  // the IDs its data file may use, and check the data against it).
  explicit PolicyScope(const std::vector<std::string>& ids);
  ~PolicyScope();
  PolicyScope(const PolicyScope&) = delete;
  PolicyScope& operator=(const PolicyScope&) = delete;

 private:
  const Deviation* deviation_ = nullptr;
  std::unique_ptr<::testing::TestPartResultArray> results_;
  std::unique_ptr<::testing::ScopedFakeTestPartResultReporter> reporter_;
};

}  // namespace vkt

#define VKT_POLICY(...) ::vkt::PolicyScope vkt_policy_scope_({__VA_ARGS__})

#endif  // VKT_FRAMEWORK_POLICY_H_
