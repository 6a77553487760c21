// Helpers shared by the driver-path conformance tests.
#ifndef VKT_LOADER_COMMON_H_
#define VKT_LOADER_COMMON_H_

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "conformance/framework/policy.h"
#include "conformance/framework/sandbox.h"
#include "gtest/gtest.h"

// VKT_ASAN: this test binary is built with AddressSanitizer (gcc defines __SANITIZE_ADDRESS__,
// clang answers __has_feature): the malloc-replacing allocation shim cannot run under it, and a
// preloaded file-system shim must tell it to accept its place in the library order.
#if defined(__SANITIZE_ADDRESS__)
#define VKT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VKT_ASAN 1
#endif
#endif

namespace vkt {

// Scenario whose physical devices carry the given names; `extra` is spliced into the object.
inline std::string DeviceScenario(const std::vector<std::string>& names, const std::string& extra = "") {
  std::string s = "{\"physical_devices\":[";
  for (size_t i = 0; i < names.size(); ++i)
    s += (i ? ",{\"name\":\"" : "{\"name\":\"") + names[i] + "\",\"device_id\":" + std::to_string(100 + i) + "}";
  s += "]";
  if (!extra.empty()) s += "," + extra;
  return s + "}";
}

// Driver `name` whose single physical device is named "<name>-dev".
inline const Driver& AddNamedDriver(Sandbox& s, const std::string& name, const std::string& variant = "v7_exports",
                                    const std::string& extra = "") {
  return s.AddDriver(name, variant, DeviceScenario({name + "-dev"}, extra));
}

// A test with a sandbox `s_` holding one driver, `driver` (device "<driver>-dev"), found in
// XDG_CONFIG_HOME: the setting most driver-path and layer fixtures start from.
class OneDriverTest : public ::testing::Test {
 protected:
  explicit OneDriverTest(std::string driver = "drv") : driver_(std::move(driver)) {}
  void SetUp() override {
    AddNamedDriver(s_, driver_);
    s_.WriteDriverManifest(Location::kXdgConfigHome, driver_);
  }
  Sandbox s_;

 private:
  std::string driver_;
};

inline std::vector<std::string> Sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// create-instance[:opts] + devices; the device names (empty when creation failed).
inline ProbeResult CreateAndEnumerate(const Sandbox& s, const std::string& opts = "") {
  return RunProbe(s, {opts.empty() ? "create-instance" : "create-instance:" + opts, "devices", "destroy-instance"});
}

inline std::string CreateResult(const ProbeResult& r) {
  return r.Step("create-instance")["result"].str("<no create-instance line>");
}

// Where `dirs` are named in `log`, each after the previous one ("the whole search, in order"):
// a directory's own mention is its path followed by the end of a line or a space, not a manifest
// path that starts with it. Returns the first directory not found after its predecessor ("" when
// every one was).
inline std::string FirstDirectoryNotNamedInOrder(const std::string& log, const std::vector<std::string>& dirs) {
  size_t last = 0;
  for (const std::string& d : dirs) {
    size_t pos = last;
    for (;;) {
      pos = log.find(d, pos);
      if (pos == std::string::npos) return d;
      char next = pos + d.size() < log.size() ? log[pos + d.size()] : '\n';
      if (next == '\n' || next == ' ') break;
      pos += d.size();
    }
    last = pos;
  }
  return "";
}

}  // namespace vkt

#endif  // VKT_LOADER_COMMON_H_
