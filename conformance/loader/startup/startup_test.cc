// Start-up: the driver cache across pre-instance queries and repeated instances, manifests changed
// on disk between two calls, and VK_LOADER_DEBUG filtering of the loader's stderr log.
#include <sstream>
#include <cstdlib>
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

size_t CountCalls(const Sandbox& s, const std::string& driver, const std::string& call) {
  return s.CallsTo(driver, call).size();
}

// ---- RULE_STARTUP_CACHE -------------------------------------------------------------------------

// Global queries before vkCreateInstance do not open or negotiate a driver again: one first_entry
// (a fresh dlopen re-initialises the mock, which records first_entry again) and one negotiation.
TEST(StartupCache, PreInstanceQueriesNegotiateOnce) {
  VKT_POLICY("RULE_STARTUP_CACHE", "LDP_DRIVER_3");
  Sandbox s;
  AddNamedDriver(s, "a", "v7_exports");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(s, {"version", "instance-extensions", "instance-layers", "instance-extensions", "version",
                               "instance-extensions", "create-instance", "devices", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
  EXPECT_EQ(CountCalls(s, "a", "first_entry"), 1u) << ReadFileText(s.driver("a").calls);
  EXPECT_EQ(CountCalls(s, "a", "vk_icdNegotiateLoaderICDInterfaceVersion"), 1u) << ReadFileText(s.driver("a").calls);
  EXPECT_EQ(CountCalls(s, "a", "vkCreateInstance"), 1u);
}

// The cache keeps the library and its negotiated interface, not what the driver answers: its
// instance extensions and Vulkan version are asked again for each new instance (RULE_STARTUP_CACHE: a driver
// may change between instances). The mock's scenario is replaced in place (mock-scenario, for a
// loader that keeps the library loaded) and on disk (write-file, for one that loads it again).
std::string Scenario(const std::string& api, const std::vector<std::string>& exts) {
  std::string s = "{\"api_version\":\"" + api + "\",\"physical_devices\":[{\"name\":\"a-dev\",\"device_id\":100}]";
  s += ",\"instance_extensions\":[";
  for (size_t i = 0; i < exts.size(); ++i)
    s += (i ? ",{\"name\":\"" : "{\"name\":\"") + exts[i] + "\",\"spec_version\":1}";
  return s + "]}";
}

bool Lists(const ProbeResult& r, size_t nth, const std::string& ext) {
  Json e = r.Step("instance-extensions", nth)["extensions"];
  for (size_t i = 0; i < e.size(); ++i)
    if (e[i]["name"].str() == ext) return true;
  return false;
}

TEST(StartupCache, DriverExtensionsAskedAgainForEachInstance) {
  VKT_POLICY("RULE_STARTUP_CACHE", "LDP_LOADER_12");
  Sandbox s;
  const Driver& d = s.AddDriver("a", "v7_exports", Scenario("1.3.0", {}));
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  const std::string x = "VK_EXT_swapchain_colorspace";
  std::string later = Scenario("1.3.0", {x});
  ProbeResult r = RunProbe(s, {"instance-extensions", "create-instance:ext=" + x, "destroy-instance",
                               "write-file:" + d.scenario + ":" + later, "mock-scenario:0:" + later,
                               "instance-extensions", "create-instance:ext=" + x, "devices", "destroy-instance"});
  EXPECT_FALSE(Lists(r, 0, x)) << r.Describe();
  EXPECT_EQ(r.Step("create-instance", 0)["result"].str(), "VK_ERROR_EXTENSION_NOT_PRESENT") << r.Describe();
  EXPECT_TRUE(Lists(r, 1, x)) << r.Describe();
  EXPECT_EQ(r.Step("create-instance", 1)["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
}

TEST(StartupCache, DriverVersionAskedAgainForEachInstance) {
  VKT_POLICY("RULE_STARTUP_CACHE", "LDP_LOADER_6");
  Sandbox s;
  const Driver& d = s.AddDriver("a", "v7_exports", Scenario("1.0.0", {}));
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  std::string later = Scenario("1.3.0", {});
  // While the driver reports Vulkan 1.0 it receives apiVersion 1.0 for an application asking for
  // 1.1 (LDP_LOADER_6 read with the specification, LDP_LOADER_7); once it reports 1.3 the next
  // instance passes it 1.1 unchanged: the version was asked again, not cached.
  ProbeResult r = RunProbe(s, {"create-instance:api=1.1", "destroy-instance", "write-file:" + d.scenario + ":" + later,
                               "mock-scenario:0:" + later, "create-instance:api=1.1", "devices", "destroy-instance"});
  EXPECT_EQ(r.Step("create-instance", 0)["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("create-instance", 1)["result"].str(), "VK_SUCCESS") << r.Describe();
  std::vector<Json> ci = s.CallsTo("a", "vkCreateInstance");
  ASSERT_EQ(ci.size(), 2u) << r.Describe();
  EXPECT_EQ(ci[0]["api_version"].str().substr(0, 4), "1.0.") << ci[0].dump();
  EXPECT_EQ(ci[1]["api_version"].str().substr(0, 4), "1.1.") << ci[1].dump();
}

// Several vkCreateInstance/vkDestroyInstance cycles in one process reuse the opened, negotiated
// driver (docs/architecture.md: icd.c keeps the driver cache; no second dlopen).
TEST(StartupCache, RepeatedCreateInstanceNegotiatesOnce) {
  VKT_POLICY("RULE_STARTUP_CACHE");
  Sandbox s;
  AddNamedDriver(s, "a", "v7_exports");
  AddNamedDriver(s, "b", "v5");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  s.WriteDriverManifest(Location::kXdgConfigHome, "b");
  std::vector<std::string> steps;
  for (int i = 0; i < 3; ++i) {
    steps.push_back("instance-extensions");
    steps.push_back("create-instance");
    steps.push_back("devices");
    steps.push_back("destroy-instance");
  }
  ProbeResult r = RunProbe(s, steps);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(r.Step("create-instance", i)["result"].str(), "VK_SUCCESS") << r.Describe();
    EXPECT_EQ(Sorted(r.DeviceNames(i)), (Names{"a-dev", "b-dev"})) << r.Describe();
  }
  for (const char* d : {"a", "b"}) {
    EXPECT_EQ(CountCalls(s, d, "vkCreateInstance"), 3u) << d;
    EXPECT_EQ(CountCalls(s, d, "first_entry"), 1u) << d << "\n" << ReadFileText(s.driver(d).calls);
    EXPECT_EQ(CountCalls(s, d, "vk_icdNegotiateLoaderICDInterfaceVersion"), 1u) << d << "\n"
                                                                                << ReadFileText(s.driver(d).calls);
  }
}

// A manifest rewritten on disk between two instances is read again: the second instance uses the
// library the new text names. (The names differ in length so the rewrite also changes the size;
// a same-size rewrite within one file-system timestamp tick is undetectable by stat.)
TEST(StartupCache, ManifestChangedOnDiskIsReread) {
  VKT_POLICY("RULE_STARTUP_CACHE", "LDP_LOADER_2");
  Sandbox s;
  AddNamedDriver(s, "a", "v7_exports");
  AddNamedDriver(s, "bb", "v7_exports");
  std::string path = s.WriteManifest(Location::kXdgConfigHome, "gpu.json", s.ManifestFor("a").ToJson());
  ProbeResult r = RunProbe(s, {"instance-extensions", "create-instance", "devices", "destroy-instance",
                               "write-file:" + path + ":" + s.ManifestFor("bb").ToJson(), "instance-extensions",
                               "create-instance", "devices", "destroy-instance"});
  ASSERT_TRUE(r.Step("write-file")["ok"].boolean()) << r.Describe();
  EXPECT_EQ(r.DeviceNames(0), Names{"a-dev"}) << r.Describe();
  EXPECT_EQ(r.DeviceNames(1), Names{"bb-dev"}) << r.Describe();
  EXPECT_EQ(CountCalls(s, "bb", "vkCreateInstance"), 1u);
  EXPECT_EQ(CountCalls(s, "a", "vkCreateInstance"), 1u);
}

// A driver library replaced on disk (same manifest, new file renamed over the old one) between two
// vkCreateInstance calls is opened again: the cache compares the library's identity (device, inode,
// size, mtime) too. The replacement is another mock variant; the scenario sidecar (next to the
// path) keeps the device name, and the fresh dlopen records a second first_entry.
TEST(StartupCache, LibraryChangedOnDiskIsReopened) {
  VKT_POLICY("RULE_STARTUP_CACHE", "LDP_LOADER_2");
  Sandbox s;
  const std::string a_lib = AddNamedDriver(s, "a", "v7_exports").library;
  const std::string b_lib = AddNamedDriver(s, "b", "v5").library;  // only its library file is used
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = RunProbe(s, {"create-instance", "devices", "destroy-instance", "replace-file:" + a_lib + ":" + b_lib,
                               "create-instance", "devices", "destroy-instance"});
  ASSERT_TRUE(r.Step("replace-file")["ok"].boolean()) << r.Describe();
  EXPECT_EQ(r.DeviceNames(0), Names{"a-dev"}) << r.Describe();
  EXPECT_EQ(r.DeviceNames(1), Names{"a-dev"}) << r.Describe();
  EXPECT_EQ(CountCalls(s, "a", "first_entry"), 2u) << ReadFileText(s.driver("a").calls);
  EXPECT_EQ(CountCalls(s, "a", "vk_icdNegotiateLoaderICDInterfaceVersion"), 2u) << ReadFileText(s.driver("a").calls);
  EXPECT_EQ(CountCalls(s, "a", "vkCreateInstance"), 2u);
}

// A cached driver's library changed on disk after the last vkDestroyInstance, the way each tool
// changes a file. A new inode (install, mv: a linker, a package manager, a build writing a
// temporary file) leaves the loaded image intact: it is closed and the new file loaded (a second
// first_entry). The same inode written in place (cp, truncate + write, overwrite + truncate)
// changes the pages of the loaded MAP_PRIVATE image under it, and dlopen of the path would return
// that image: our loader never calls into it or closes it (its destructors are corrupt too), logs a
// WARNING naming the library and treats the driver as absent (RULE_ADVERSARIAL_INPUT). The Khronos
// loader closes every driver at vkDestroyInstance, so it simply loads the new file.
class LibraryChangedOnDisk : public ::testing::TestWithParam<const char*> {};

TEST_P(LibraryChangedOnDisk, ChangedImageNeverCalledOrClosed) {
  VKT_POLICY("RULE_STARTUP_CACHE", "RULE_ADVERSARIAL_INPUT");
  const std::string how = GetParam();
  const bool in_place = how == "cp" || how == "truncate" || how == "overwrite";
  Sandbox s;
  const std::string a_lib = AddNamedDriver(s, "a", "v7_exports").library;
  const std::string b_lib = AddNamedDriver(s, "b", "v5").library;  // only its library file is used
  AddNamedDriver(s, "keep", "v7_exports");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  s.WriteDriverManifest(Location::kXdgConfigHome, "keep");
  s.SetEnv("VK_LOADER_DEBUG", "warn");
  // An image written in place is abandoned with everything it allocated (its destructors must not
  // run): under AddressSanitizer, LeakSanitizer reports that memory by design, so not in this probe.
  const char* asan = getenv("ASAN_OPTIONS");
  if (in_place && asan != nullptr) s.SetEnv("ASAN_OPTIONS", std::string(asan) + ":detect_leaks=0");
  ProbeResult r =
      RunProbe(s, {"create-instance", "devices", "destroy-instance", "change-file:" + how + ":" + a_lib + ":" + b_lib,
                   "instance-extensions", "create-instance", "devices", "destroy-instance", "instance-extensions",
                   "create-instance", "devices", "destroy-instance"});
  ASSERT_EQ(r.exit_status, 0) << r.Describe();
  ASSERT_TRUE(r.Step("change-file")["ok"].boolean()) << r.Describe();
  // A new file may reuse the old inode number only once nothing maps the old file (the Khronos
  // loader has closed it); ours keeps the old image mapped, so the number stays taken.
  if (in_place || LoaderName() == "ours") {
    EXPECT_EQ(r.Step("change-file")["same_inode"].boolean(), in_place) << r.Describe();
  }
  EXPECT_EQ(Sorted(r.DeviceNames(0)), (Names{"a-dev", "keep-dev"})) << r.Describe();
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(r.Step("instance-extensions", i)["result"].str(), "VK_SUCCESS") << r.Describe();
  const std::string calls = ReadFileText(s.driver("a").calls);
  if (in_place && LoaderName() == "ours") {
    EXPECT_EQ(r.DeviceNames(1), Names{"keep-dev"}) << r.Describe();
    EXPECT_EQ(r.DeviceNames(2), Names{"keep-dev"}) << r.Describe();
    EXPECT_EQ(CountCalls(s, "a", "first_entry"), 1u) << calls;  // the new file was never loaded
    EXPECT_EQ(CountCalls(s, "a", "vkCreateInstance"), 1u) << calls;
    std::vector<std::string> warnings = r.LogLines(a_lib);
    ASSERT_FALSE(warnings.empty()) << r.Describe();
    EXPECT_NE(warnings[0].find("WARNING"), std::string::npos) << warnings[0];
    EXPECT_NE(warnings[0].find("in place"), std::string::npos) << warnings[0];
  } else {
    EXPECT_EQ(Sorted(r.DeviceNames(1)), (Names{"a-dev", "keep-dev"})) << r.Describe();
    EXPECT_EQ(Sorted(r.DeviceNames(2)), (Names{"a-dev", "keep-dev"})) << r.Describe();
    // Ours: the old image once, the new one once (kept for the third instance).
    if (LoaderName() == "ours") {
      EXPECT_EQ(CountCalls(s, "a", "first_entry"), 2u) << calls;
    }
    EXPECT_GE(CountCalls(s, "a", "first_entry"), 2u) << calls;
    EXPECT_EQ(CountCalls(s, "a", "vkCreateInstance"), 3u) << calls;
  }
}

INSTANTIATE_TEST_SUITE_P(Tools, LibraryChangedOnDisk, ::testing::Values("cp", "truncate", "overwrite", "install", "mv"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

// A manifest that was rejected and is then fixed on disk is accepted by the next call, and one
// that was accepted and is then broken is dropped.
TEST(StartupCache, ManifestFixedOrBrokenOnDiskIsReread) {
  VKT_POLICY("RULE_STARTUP_CACHE", "LDP_DRIVER_4");
  Sandbox s;
  AddNamedDriver(s, "a", "v7_exports");
  AddNamedDriver(s, "keep", "v7_exports");
  s.WriteDriverManifest(Location::kXdgConfigHome, "keep");
  // Parseable but invalid (no library_path) before and after: an unparseable file would trip a
  // different, known Khronos deviation (RULE_DRV_MANIFEST_MALFORMED).
  const std::string invalid = "{\"file_format_version\":\"1.0.0\",\"ICD\":{\"api_version\":\"1.3.0\"}}";
  std::string path = s.WriteManifest(Location::kXdgConfigHome, "a.json", invalid);
  ProbeResult r = RunProbe(
      s, {"create-instance", "devices", "destroy-instance", "write-file:" + path + ":" + s.ManifestFor("a").ToJson(),
          "create-instance", "devices", "destroy-instance", "write-file:" + path + ":" + invalid, "create-instance",
          "devices", "destroy-instance"});
  EXPECT_EQ(r.DeviceNames(0), Names{"keep-dev"}) << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames(1)), (Names{"a-dev", "keep-dev"})) << r.Describe();
  EXPECT_EQ(r.DeviceNames(2), Names{"keep-dev"}) << r.Describe();
}

// A manifest that vanished from disk no longer holds its driver: the next search drops the cached
// entry and closes the library, so a manifest that reappears later loads it afresh (the mock
// records a second first_entry). A cache that kept the entry would keep the library mapped and
// the second dlopen would return the old mapping (one first_entry).
TEST(StartupCache, VanishedManifestIsEvicted) {
  VKT_POLICY("RULE_STARTUP_CACHE", "LDP_LOADER_2");
  Sandbox s;
  AddNamedDriver(s, "a", "v7_exports");
  AddNamedDriver(s, "keep", "v7_exports");
  s.WriteDriverManifest(Location::kXdgConfigHome, "keep");
  const std::string json = s.ManifestFor("a").ToJson();
  std::string path = s.WriteManifest(Location::kXdgConfigHome, "a.json", json);
  ProbeResult r = RunProbe(
      s, {"create-instance", "devices", "destroy-instance", "remove-file:" + path, "create-instance", "devices",
          "destroy-instance", "write-file:" + path + ":" + json, "create-instance", "devices", "destroy-instance"});
  ASSERT_TRUE(r.Step("remove-file")["ok"].boolean()) << r.Describe();
  ASSERT_TRUE(r.Step("write-file")["ok"].boolean()) << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames(0)), (Names{"a-dev", "keep-dev"})) << r.Describe();
  EXPECT_EQ(r.DeviceNames(1), Names{"keep-dev"}) << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames(2)), (Names{"a-dev", "keep-dev"})) << r.Describe();
  EXPECT_GE(CountCalls(s, "a", "first_entry"), 2u) << ReadFileText(s.driver("a").calls);
  EXPECT_EQ(CountCalls(s, "a", "vkCreateInstance"), 2u);
}

// ---- RULE_LOG_FORMAT: VK_LOADER_DEBUG filtering ------------------------------------------------

// The loader's stderr lines (the probe writes nothing else there).
std::vector<std::string> LogLines(const ProbeResult& r) {
  std::vector<std::string> out;
  std::istringstream in(r.err);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(line);
  return out;
}

// A good driver plus a manifest whose library is missing (an ERROR | DRIVER line) and a
// VK_LOADER_DRIVERS_DISABLE'd one (a WARNING | DRIVER line).
class LoaderDebug : public ::testing::Test {
 protected:
  void SetUp() override {
    const Driver& bad = AddNamedDriver(s_, "missing", "v7_exports");
    AddNamedDriver(s_, "good", "v7_exports");
    AddNamedDriver(s_, "off", "v7_exports");
    ManifestSpec m = s_.ManifestFor("missing");
    m.library_path = bad.dir + "/libvkt_no_such_library.so";
    s_.WriteManifest(Location::kXdgConfigHome, "missing.json", m.ToJson());
    s_.WriteDriverManifest(Location::kXdgConfigHome, "good");
    s_.WriteDriverManifest(Location::kXdgConfigHome, "off");
    s_.SetEnv("VK_LOADER_DRIVERS_DISABLE", "off.json");
  }
  ProbeResult Run() {
    return RunProbe(s_, {"version", "instance-extensions", "create-instance", "devices", "create-device:0",
                         "destroy-device", "destroy-instance"});
  }
  Sandbox s_;
};

TEST_F(LoaderDebug, UnsetWritesNothing) {
  VKT_POLICY("RULE_LOG_FORMAT");
  s_.UnsetEnv("VK_LOADER_DEBUG");
  ProbeResult r = Run();
  ASSERT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
  EXPECT_EQ(r.err, "") << r.Describe();
}

TEST_F(LoaderDebug, ErrorShowsOnlyErrors) {
  VKT_POLICY("RULE_LOG_FORMAT");
  s_.SetEnv("VK_LOADER_DEBUG", "error");
  ProbeResult r = Run();
  ASSERT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
  std::vector<std::string> lines = LogLines(r);
  EXPECT_FALSE(lines.empty()) << "the missing library must be reported\n" << r.Describe();
  for (const std::string& l : lines) {
    EXPECT_NE(l.find("ERROR"), std::string::npos) << l;
    EXPECT_EQ(l.find("INFO"), std::string::npos) << l;
    EXPECT_EQ(l.find("WARNING"), std::string::npos) << l;
    EXPECT_EQ(l.find("DEBUG"), std::string::npos) << l;
  }
}

TEST_F(LoaderDebug, DriverShowsOnlyDriverLines) {
  VKT_POLICY("RULE_LOG_FORMAT");
  s_.SetEnv("VK_LOADER_DEBUG", "driver");
  ProbeResult r = Run();
  ASSERT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
  std::vector<std::string> lines = LogLines(r);
  EXPECT_FALSE(lines.empty()) << r.Describe();
  bool saw_disabled = false;
  for (const std::string& l : lines) {
    EXPECT_NE(l.find("DRIVER"), std::string::npos) << l;
    EXPECT_EQ(l.find("LAYER"), std::string::npos) << l;
    if (l.find("off.json") != std::string::npos) saw_disabled = true;
  }
  EXPECT_TRUE(saw_disabled) << "the disabled driver is a DRIVER message\n" << r.Describe();
}

TEST_F(LoaderDebug, WarnAndErrorCombine) {
  VKT_POLICY("RULE_LOG_FORMAT");
  s_.SetEnv("VK_LOADER_DEBUG", "warn,error");
  ProbeResult r = Run();
  ASSERT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
  bool saw_error = false, saw_warning = false;
  for (const std::string& l : LogLines(r)) {
    EXPECT_EQ(l.find("INFO"), std::string::npos) << l;
    EXPECT_EQ(l.find("DEBUG"), std::string::npos) << l;
    saw_error = saw_error || l.find("ERROR") != std::string::npos;
    saw_warning = saw_warning || l.find("WARNING") != std::string::npos;
  }
  EXPECT_TRUE(saw_error) << r.Describe();
  EXPECT_TRUE(saw_warning) << r.Describe();
}

}  // namespace
}  // namespace vkt
