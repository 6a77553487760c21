// The allocation-failure walk (LDP_LOADER_2): for N = 1, 2, ... the N-th allocation fails, over one
// round of every listed call (vkEnumerateInstanceVersion, vkEnumerateInstanceExtensionProperties,
// vkEnumerateInstanceLayerProperties, vkCreateInstance, vkEnumeratePhysicalDevices,
// vkEnumeratePhysicalDeviceGroups, vkEnumerateDeviceExtensionProperties, vkCreateDevice,
// vkDestroyDevice, vkDestroyInstance), until a round makes no more allocations than N. Each call
// returns VK_ERROR_OUT_OF_HOST_MEMORY or succeeds with exactly what it returns without a failure;
// a second round with no failure sees every driver and layer; the process never crashes.
//
// Two ways to fail: `malloc` itself (libvkt_mallocfail.so, allocations made directly by the loader;
// skipped under AddressSanitizer, which owns malloc there) and the application's pAllocator
// (vkprobe's create-instance alloc=fail:N: the N-th allocation request through the instance's
// callbacks; this walk also runs under --config=asan, where LeakSanitizer checks for leaks of
// malloc, and the counting allocator's balance checks the pAllocator ones).
#include <cstdlib>
#include <string>
#include <vector>

#include "conformance/loader/common.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

constexpr int kMaxSweep = 4000;

const char* const kOom = "VK_ERROR_OUT_OF_HOST_MEMORY";

std::vector<std::string> Round(const std::string& create_opts) {
  return {"version",
          "instance-extensions",
          "instance-layers",
          create_opts.empty() ? "create-instance" : "create-instance:" + create_opts,
          "devices",
          "groups",
          "device-extensions:0",
          "create-device:0",
          "destroy-device",
          "destroy-instance"};
}

// The member of each step's line that carries what the call returned.
std::string ContentKey(const std::string& step) {
  if (step == "version") return "version";
  if (step == "instance-extensions" || step == "device-extensions") return "extensions";
  if (step == "instance-layers") return "layers";
  if (step == "devices") return "devices";
  if (step == "groups") return "groups";
  return "";
}

// A step's content without the loader's handle values (the devices step prints each device's
// handle, an address that differs between runs).
std::string Stable(const std::string& dump) {
  // (std::regex trips GCC 12's -Wmaybe-uninitialized inside libstdc++ under --config=asan)
  static const std::string kKey = "\"handle\":\"";
  std::string out;
  size_t i = 0;
  for (size_t k; (k = dump.find(kKey, i)) != std::string::npos;) {
    out.append(dump, i, k - i);
    size_t end = dump.find('"', k + kKey.size());
    if (end == std::string::npos) return out;
    i = end + 1;
    if (i < dump.size() && dump[i] == ',') ++i;
  }
  return out + dump.substr(i);
}

bool IsResultKey(const std::string& k) { return k == "result" || k == "count_result" || k == "incomplete_result"; }

class OomWalk : public ::testing::Test {
 protected:
  // Two drivers (two devices), an implicit layer, an explicit layer the application enables.
  void World(bool several) {
    AddNamedDriver(s_, "wa");
    s_.WriteDriverManifest(Location::kXdgConfigHome, "wa");
    if (several) {
      AddNamedDriver(s_, "wb");
      s_.WriteDriverManifest(Location::kXdgConfigHome, "wb");
      AddMockLayer(s_, "VK_LAYER_VKT_walk_implicit", true);
      AddMockLayer(s_, "VK_LAYER_VKT_walk_explicit", false);
      layers_ = "layers=VK_LAYER_VKT_walk_explicit";
    }
    s_.SetEnv("VK_LOADER_DEBUG", "error");
  }
  std::string Opts(const std::string& alloc) const {
    if (layers_.empty()) return alloc;
    return alloc.empty() ? layers_ : layers_ + ";" + alloc;
  }
  // Lines of the steps (no messages / alloc lines).
  static std::vector<Json> StepLines(const ProbeResult& r) {
    std::vector<Json> out;
    for (const Json& j : r.lines) {
      std::string st = j["step"].str();
      if (st != "messages" && st != "alloc" && st != "setenv-repeat") out.push_back(j);
    }
    return out;
  }
  // Checks one probe run of two rounds against the reference (a run with no failure): `failed`
  // says whether the failure was injected at all.
  void Check(const ProbeResult& r, const std::vector<Json>& ref, const std::string& what) {
    SCOPED_TRACE(what);
    ASSERT_EQ(r.exit_status, 0) << r.Describe().substr(0, 4000);
    std::vector<Json> got = StepLines(r);
    ASSERT_EQ(got.size(), ref.size()) << r.Describe().substr(0, 4000);
    size_t half = got.size() / 2;
    bool devices_failed = false;
    for (size_t i = 0; i < got.size(); ++i) {
      const Json& g = got[i];
      const Json& w = ref[i];
      std::string step = g["step"].str();
      ASSERT_EQ(step, w["step"].str());
      bool second = i >= half;
      if (!second && g.has("error")) continue;  // an earlier call of the round failed (no instance)
      bool oom = false;
      for (const std::string& k : g.keys()) {
        if (!IsResultKey(k)) continue;
        std::string v = g[k].str();
        if (v == kOom && !second) {
          oom = true;
          continue;
        }
        EXPECT_EQ(v, w[k].str()) << (second ? "round 2 " : "round 1 ") << step << " " << k << "\n"
                                 << r.Describe().substr(0, 4000);
      }
      if (step == "devices" && oom) devices_failed = true;
      if (oom) continue;
      std::string key = ContentKey(step);
      // The probe prints group members as indices into the devices step's list: none after a
      // failed devices step, so only the number of groups can be compared then.
      if (step == "groups" && devices_failed && !second) key = "count";
      if (!key.empty()) {
        EXPECT_EQ(Stable(g[key].dump()), Stable(w[key].dump()))
            << (second ? "round 2 " : "round 1 ") << step << ": something missing after a failed allocation\n"
            << r.Describe().substr(0, 4000);
      }
    }
  }
  Sandbox s_;
  std::string layers_;
};

// ---- through malloc ------------------------------------------------------------------------------

class OomWalkMalloc : public OomWalk {
 protected:
  void SetUp() override {
#ifdef VKT_ASAN
    GTEST_SKIP() << "the allocation shim replaces malloc, which AddressSanitizer owns in this build; "
                    "the plain configuration runs these tests (the pAllocator walk runs here)";
#endif
  }
  void Walk(bool several) {
    World(several);
    std::vector<std::string> steps = Round(Opts("")), again = Round(Opts(""));
    steps.insert(steps.end(), again.begin(), again.end());
    ProbeResult base = RunProbe(s_, steps);
    ASSERT_EQ(base.exit_status, 0) << base.Describe();
    std::vector<Json> ref = StepLines(base);
    for (const Json& j : ref)
      for (const std::string& k : j.keys())
        if (IsResultKey(k) && k != "incomplete_result") {
          ASSERT_EQ(j[k].str(), "VK_SUCCESS") << base.Describe();
        }
    s_.SetEnv("LD_PRELOAD", Runfile("conformance/framework/libvkt_mallocfail.so"));
    s_.SetEnv("VKT_MALLOCFAIL_LIB", Basename(LoaderPath()));
    // How many allocations the first round makes: only those are failed (the shim counts from the
    // start of the process, and the second round must run without a failure).
    std::string total_file = s_.root() + "/mallocfail.total";
    s_.SetEnv("VKT_MALLOCFAIL_NTH", "1000000000");
    s_.SetEnv("VKT_MALLOCFAIL_TOTAL", total_file);
    ProbeResult first = RunProbe(s_, Round(Opts("")));
    ASSERT_EQ(first.exit_status, 0) << first.Describe();
    s_.UnsetEnv("VKT_MALLOCFAIL_TOTAL");
    int total = std::atoi(ReadFileText(total_file).substr(6).c_str());
    ASSERT_GT(total, 10) << "the shim counted too few of the loader's allocations: it is not being exercised";
    ASSERT_LE(total, kMaxSweep);
    RecordProperty("malloc_walked", total);
    int n = 1;
    for (; n <= total; ++n) {
      std::string report = s_.root() + "/mallocfail." + std::to_string(n);
      s_.SetEnv("VKT_MALLOCFAIL_NTH", std::to_string(n));
      s_.SetEnv("VKT_MALLOCFAIL_REPORT", report);
      ProbeResult r = RunProbe(s_, steps);
      ASSERT_FALSE(ReadFileText(report).empty()) << "allocation " << n << " of " << total << " never made";
      Check(r, ref, "malloc " + std::to_string(n) + " of " + std::to_string(total) + " failed");
      if (HasFailure()) break;
    }
  }
};

TEST_F(OomWalkMalloc, OneDriver) {
  VKT_POLICY("LDP_LOADER_2", "RULE_INST_ALLOCATOR");
  Walk(false);
}

TEST_F(OomWalkMalloc, SeveralDriversAndLayers) {
  VKT_POLICY("LDP_LOADER_2", "LLP_LOADER_1", "RULE_INST_ALLOCATOR");
  Walk(true);
}

// ---- through the application's pAllocator --------------------------------------------------------

class OomWalkAllocator : public OomWalk {
 protected:
  void Walk(bool several) {
    World(several);
    std::vector<std::string> steps = Round(Opts("alloc=counting")), again = Round(Opts("alloc=counting"));
    steps.insert(steps.end(), again.begin(), again.end());
    ProbeResult base = RunProbe(s_, steps);
    ASSERT_EQ(base.exit_status, 0) << base.Describe();
    std::vector<Json> ref = StepLines(base);
    ASSERT_EQ(base.Alloc()["outstanding"].num(), 0) << base.Describe();
    int64_t total = base.Alloc()["requests"].num();
    ASSERT_GT(total, 10) << "the loader makes too few allocations through pAllocator to walk";
    int n = 1;
    for (; n <= kMaxSweep; ++n) {
      steps[3] = "create-instance:" + Opts("alloc=fail:" + std::to_string(n));
      ProbeResult r = RunProbe(s_, steps);
      if (!r.Alloc()["injected"].boolean()) break;
      std::string what = "pAllocator request " + std::to_string(n) + " failed";
      Check(r, ref, what);
      EXPECT_EQ(r.Alloc()["outstanding"].num(), 0) << what << ": memory of the application's allocator leaked\n"
                                                   << r.Describe().substr(0, 4000);
      EXPECT_EQ(r.Alloc()["bad_frees"].num(), 0) << what << "\n" << r.Describe().substr(0, 4000);
      if (HasFailure()) break;
    }
    RecordProperty("pallocator_walked", n - 1);
    EXPECT_GE(n, total / 2) << "fewer requests than in the run without a failure";
    EXPECT_LE(n, kMaxSweep);
  }
};

TEST_F(OomWalkAllocator, OneDriver) {
  VKT_POLICY("RULE_INST_ALLOCATOR", "LDP_LOADER_2");
  Walk(false);
}

TEST_F(OomWalkAllocator, SeveralDriversAndLayers) {
  VKT_POLICY("RULE_INST_ALLOCATOR", "LDP_LOADER_2", "LLP_LOADER_1");
  Walk(true);
}

}  // namespace
}  // namespace vkt
