// One failed allocation inside the loader either fails the call with VK_ERROR_OUT_OF_HOST_MEMORY
// or is absorbed, and never loses a driver or a layer: the same steps repeated afterwards see every
// driver and layer (LDP_LOADER_2, LLP_LOADER_1). libvkt_mallocfail.so (conformance/framework/mallocfail.c) fails the
// N-th allocation the loader makes itself; the tests sweep N over every allocation of the steps.
#include <fstream>
#include <string>
#include <vector>

#include "conformance/loader/common.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

constexpr int kMaxSweep = 3000;  // far more allocations than the steps make

class Oom : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef VKT_ASAN
    GTEST_SKIP() << "the allocation shim replaces malloc, which AddressSanitizer owns in this build; "
                    "the plain configuration runs these tests";
#endif
    AddNamedDriver(s_, "oa");
    AddNamedDriver(s_, "ob");
    s_.WriteDriverManifest(Location::kXdgConfigHome, "oa");
    s_.WriteDriverManifest(Location::kXdgConfigHome, "ob");
    s_.SetEnv("LD_PRELOAD", Runfile("conformance/framework/libvkt_mallocfail.so"));
    s_.SetEnv("VKT_MALLOCFAIL_LIB", Basename(LoaderPath()));
    s_.SetEnv("VK_LOADER_DEBUG", "error");
  }
  // Runs `steps` with the n-th allocation failing; false once n is past the last allocation.
  bool RunFailing(int n, const std::vector<std::string>& steps, ProbeResult* r) {
    std::string report = s_.root() + "/mallocfail." + std::to_string(n);
    s_.SetEnv("VKT_MALLOCFAIL_NTH", std::to_string(n));
    s_.SetEnv("VKT_MALLOCFAIL_REPORT", report);
    *r = RunProbe(s_, steps);
    return !ReadFileText(report).empty();
  }
  // Fails allocation n = 1, 2, ... (of `whose` allocations) while running `steps`, until n is past the
  // last one (at most kMaxSweep); `check(r)` judges each run, and the sweep stops at the first
  // failure. More than `min` allocations must have been failed in turn.
  template <typename Check>
  void Sweep(const std::vector<std::string>& steps, const std::string& whose, int min, Check check) {
    int n = 1;
    for (ProbeResult r; n <= kMaxSweep && RunFailing(n, steps, &r); ++n) {
      SCOPED_TRACE(whose + " allocation " + std::to_string(n) + " failed");
      check(r);
      if (HasFatalFailure()) return;
      if (HasFailure()) break;
    }
    EXPECT_GT(n, min) << "the shim failed too few of the " << whose << "'s allocations: it is not being exercised";
    EXPECT_LE(n, kMaxSweep);
  }
  // The loader's allocations swept over `steps`, three repetitions of the same calls: the process
  // ends normally, `one(r, i, &oom)` checks repetition i and sets oom when it met the failed
  // allocation (VK_ERROR_OUT_OF_HOST_MEMORY), which at most one repetition may.
  template <typename One>
  void SweepRepetitions(const std::vector<std::string>& steps, int min, One one) {
    Sweep(steps, "loader", min, [&](const ProbeResult& r) {
      ASSERT_EQ(r.exit_status, 0) << r.Describe().substr(0, 3000);
      int failures = 0;
      for (size_t i = 0; i < 3; ++i) {
        bool oom = false;
        one(r, i, &oom);
        if (HasFatalFailure()) return;
        failures += oom ? 1 : 0;
      }
      EXPECT_LE(failures, 1) << r.Describe().substr(0, 3000);
    });
  }
  Sandbox s_;
};

bool IsOom(const std::string& result) { return result == "VK_ERROR_OUT_OF_HOST_MEMORY"; }

TEST_F(Oom, NoDriverLostToOneFailedAllocation) {
  VKT_POLICY("LDP_LOADER_2");
  const std::vector<std::string> steps = {"create-instance", "devices", "destroy-instance",
                                          "create-instance", "devices", "destroy-instance",
                                          "create-instance", "devices", "destroy-instance"};
  SweepRepetitions(steps, 10, [](const ProbeResult& r, size_t i, bool* oom) {
    std::string created = r.Step("create-instance", i)["result"].str();
    if ((*oom = IsOom(created))) return;
    // Anything but success or the reported allocation failure is a driver lost or a failure
    // remembered (e.g. VK_ERROR_INCOMPATIBLE_DRIVER once both drivers were dropped).
    ASSERT_EQ(created, "VK_SUCCESS") << "instance " << i << "\n" << r.Describe().substr(0, 3000);
    Json devices = r.Step("devices", i);
    if ((*oom = IsOom(devices["count_result"].str()) || IsOom(devices["result"].str()))) return;
    EXPECT_EQ(Sorted(r.DeviceNames(i)), (Names{"oa-dev", "ob-dev"})) << "instance " << i << "\n"
                                                                     << r.Describe().substr(0, 3000);
  });
}

TEST_F(Oom, NoLayerLostToOneFailedAllocation) {
  VKT_POLICY("LLP_LOADER_1");
  AddMockLayer(s_, "VK_LAYER_VKT_oom_implicit", true);
  AddMockLayer(s_, "VK_LAYER_VKT_oom_explicit", false);
  const Names want = {"VK_LAYER_VKT_oom_explicit", "VK_LAYER_VKT_oom_implicit"};
  SweepRepetitions({"instance-layers", "instance-layers", "instance-layers"}, 5,
                   [&want](const ProbeResult& r, size_t i, bool* oom) {
                     std::string result = r.Step("instance-layers", i)["result"].str();
                     if ((*oom = IsOom(result))) return;
                     ASSERT_EQ(result, "VK_SUCCESS") << "call " << i << "\n" << r.Describe().substr(0, 3000);
                     Names got;
                     Json layers = r.Step("instance-layers", i)["layers"];
                     for (size_t k = 0; k < layers.size(); ++k) got.push_back(layers[k]["name"].str());
                     EXPECT_EQ(Sorted(got), want) << "call " << i << "\n" << r.Describe().substr(0, 3000);
                   });
}

TEST_F(Oom, FailedAllocationsOfTheDynamicLinkerNeverAbortTheProcess) {
  VKT_POLICY("LDP_LOADER_2");
  // Thread-local variables of a dlopen()ed library are allocated by the dynamic linker at their
  // first use in each thread; when that allocation fails glibc ends the process with status 127
  // ("cannot allocate memory for thread-local data"). The loader must not depend on it: every
  // allocation ld.so makes is failed in turn, and the process must always end normally (0), or
  // report that the loader itself could not be dlopen()ed (vkprobe's exit status 3).
  s_.SetEnv("VKT_MALLOCFAIL_LIB", "ld-linux");
  Sweep({"create-instance", "devices", "destroy-instance"}, "dynamic linker", 3, [](const ProbeResult& r) {
    EXPECT_TRUE(r.exit_status == 0 || r.exit_status == 3) << r.Describe().substr(0, 3000);
  });
}

// A driver's dlopen that fails for lack of memory inside the dynamic linker is no verdict about
// the driver (RULE_STARTUP_CACHE caches only facts about its files): the call that met it reports
// VK_ERROR_OUT_OF_HOST_MEMORY (vkEnumerateInstanceExtensionProperties may not succeed without the
// driver's extensions, vkCreateInstance may not answer VK_ERROR_INCOMPATIBLE_DRIVER), and the next
// call finds the driver. Every allocation of the dynamic linker is failed in turn; each driver
// advertises an extension of its own, so a list without it shows a lost driver.
TEST_F(Oom, DynamicLinkerOutOfMemoryIsNotCachedAsADriverVerdict) {
  VKT_POLICY("RULE_STARTUP_CACHE", "LDP_LOADER_2");
  AddNamedDriver(s_, "oc", "v7_exports", "\"instance_extensions\":[\"VK_KHR_surface\"]");
  s_.WriteDriverManifest(Location::kXdgConfigHome, "oc");
  s_.SetEnv("VKT_MALLOCFAIL_LIB", "ld-linux");
  const std::vector<std::string> steps = {"instance-extensions", "create-instance", "devices", "destroy-instance",
                                          "instance-extensions", "create-instance", "devices", "destroy-instance"};
  int failed_driver_loads = 0;
  Sweep(steps, "dynamic linker", 3, [&failed_driver_loads](const ProbeResult& r) {
    if (r.exit_status == 3) return;  // vkprobe's dlopen of the loader itself failed
    ASSERT_EQ(r.exit_status, 0) << r.Describe().substr(0, 3000);
    // glibc 2.36 leaves a dependency whose version table it could not allocate half-loaded: every
    // later dlopen of the driver fails with "undefined symbol" in this process, which the loader
    // cannot tell from a driver that lacks the symbol. Such a run proves nothing either way.
    if (r.LogContains("undefined symbol")) return;
    if (r.LogContains("out of memory: tried again")) ++failed_driver_loads;
    bool oom = false;
    for (size_t i = 0; i < 2; ++i) {
      SCOPED_TRACE("repetition " + std::to_string(i));
      Json exts = r.Step("instance-extensions", i);
      if (IsOom(exts["count_result"].str()) || IsOom(exts["result"].str())) {
        EXPECT_FALSE(oom) << "two calls failed for one failed allocation\n" << r.Describe().substr(0, 3000);
        oom = true;
      } else {
        ASSERT_EQ(exts["result"].str(), "VK_SUCCESS") << r.Describe().substr(0, 3000);
        bool surface = false;
        for (size_t k = 0; k < exts["extensions"].size(); ++k)
          surface = surface || exts["extensions"][k]["name"].str() == "VK_KHR_surface";
        EXPECT_TRUE(surface) << "driver oc lost\n" << r.Describe().substr(0, 3000);
      }
      std::string created = r.Step("create-instance", i)["result"].str();
      if (IsOom(created)) {
        EXPECT_FALSE(oom) << "two calls failed for one failed allocation\n" << r.Describe().substr(0, 3000);
        oom = true;
        continue;
      }
      ASSERT_EQ(created, "VK_SUCCESS") << r.Describe().substr(0, 3000);
      Json devices = r.Step("devices", i);
      if (IsOom(devices["count_result"].str()) || IsOom(devices["result"].str())) continue;
      EXPECT_EQ(Sorted(r.DeviceNames(i)), (Names{"oa-dev", "ob-dev", "oc-dev"})) << r.Describe().substr(0, 3000);
    }
  });
  // The sweep must have failed some driver's dlopen, or it proved nothing.
  if (LoaderName() == "ours") {
    EXPECT_GT(failed_driver_loads, 0);
  }
}

}  // namespace
}  // namespace vkt
