// Driver manifest formats, malformed manifests and library_path resolution.
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

TEST(DriverManifest, Version1_0_0) {
  VKT_POLICY("RULE_DRV_MANIFEST_V1_0_0", "LDP_DRIVER_4");
  Sandbox s;
  AddNamedDriver(s, "a");
  ManifestSpec m = s.ManifestFor("a");
  m.file_format_version = "1.0.0";
  s.WriteManifest(Location::kXdgConfigHome, "a.json", m.ToJson());
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
}

TEST(DriverManifest, Version1_0_1WithArchAndPortabilityFalse) {
  VKT_POLICY("RULE_DRV_MANIFEST_V1_0_1", "RULE_DRV_LIBRARY_ARCH", "LDP_DRIVER_4");
  Sandbox s;
  AddNamedDriver(s, "a");
  ManifestSpec m = s.ManifestFor("a");
  m.file_format_version = "1.0.1";
  m.library_arch = "64";
  m.is_portability_driver = false;
  s.WriteManifest(Location::kXdgConfigHome, "a.json", m.ToJson());
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
}

TEST(DriverManifest, UnknownNewerFileFormatVersionStillLoaded) {
  VKT_POLICY("RULE_DRV_MANIFEST_V1_0_1", "LDP_LOADER_2");
  Sandbox s;
  AddNamedDriver(s, "a");
  ManifestSpec m = s.ManifestFor("a");
  m.file_format_version = "1.2.0";
  std::string path = s.WriteManifest(Location::kXdgConfigHome, "a.json", m.ToJson());
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
  // The Khronos loader's sentence, naming the manifest.
  EXPECT_FALSE(r.LogLines("loader_parse_icd_manifest: " + path +
                          " has unknown icd manifest file version 1.2.0. May cause errors.")
                   .empty())
      << r.err;
}

// LDP_LOADER_7: a manifest that says Vulkan 1.1 while the driver's vkEnumerateInstanceVersion
// answers 1.0, or is missing: the driver is used as a Vulkan 1.0 driver, with a warning in the
// Khronos loader's words naming the library.
struct Api11Case {
  const char* name;
  const char* scenario;  // spliced into the device scenario
  const char* sentence;
};

class DriverManifestApi11 : public ::testing::TestWithParam<Api11Case> {};

TEST_P(DriverManifestApi11, TreatedAsVulkan10WithAWarning) {
  VKT_POLICY("LDP_LOADER_7");
  Sandbox s;
  const Driver& d = AddNamedDriver(s, "a", "v7_exports", GetParam().scenario);
  ManifestSpec m = s.ManifestFor("a");
  m.api_version = "1.1.0";
  s.WriteManifest(Location::kXdgConfigHome, "a.json", m.ToJson());
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
  const std::string line = "Manifest ICD for \"" + d.library + "\" contained a 1.1 or greater API version, but " +
                           GetParam().sentence + ", treating as a 1.0 ICD";
  bool warned = false;
  for (const std::string& l : r.LogLines(line)) warned = warned || l.find("WARNING") != std::string::npos;
  EXPECT_TRUE(warned) << r.err;
}

INSTANTIATE_TEST_SUITE_P(DriverManifest, DriverManifestApi11,
                         ::testing::Values(Api11Case{"EnumerateInstanceVersionSays10", "\"api_version\":\"1.0.0\"",
                                                     "vkEnumerateInstanceVersion returned 1.0"},
                                           Api11Case{"NoEnumerateInstanceVersion",
                                                     "\"expose_enumerate_instance_version\":false",
                                                     "does not support vkEnumerateInstanceVersion"}),
                         [](const ::testing::TestParamInfo<Api11Case>& i) { return std::string(i.param.name); });

TEST(DriverManifest, LibraryArchMismatchSkipped) {
  VKT_POLICY("RULE_DRV_LIBRARY_ARCH", "RULE_DRV_MANIFEST_V1_0_1");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "good");
  ManifestSpec m = s.ManifestFor("a");
  m.file_format_version = "1.0.1";
  m.library_arch = "32";
  s.WriteManifest(Location::kXdgConfigHome, "a.json", m.ToJson());
  s.WriteDriverManifest(Location::kXdgConfigHome, "good");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
  EXPECT_FALSE(s.WasLoaded("a"));
}

TEST(DriverManifest, RelativeLibraryPathIsRelativeToManifest) {
  VKT_POLICY("RULE_DRV_LIBRARY_PATH_RELATIVE");
  Sandbox s;
  const Driver& d = AddNamedDriver(s, "a");
  ManifestSpec m = s.ManifestFor("a");
  // <root>/xdg/config_home/vulkan/icd.d -> <root>/drivers/a/<lib>
  m.library_path = "../../../../drivers/a/" + Basename(d.library);
  s.WriteManifest(Location::kXdgConfigHome, "a.json", m.ToJson());
  ProbeOptions o;
  o.cwd = s.home();  // the loader must not resolve against the working directory
  ProbeResult r = RunProbe(s, {"create-instance", "devices"}, o);
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
}

TEST(DriverManifest, BareLibraryNameUsesDynamicLinkerSearch) {
  VKT_POLICY("RULE_DRV_LIBRARY_PATH_RELATIVE");
  Sandbox s;
  const Driver& d = AddNamedDriver(s, "a");
  ManifestSpec m = s.ManifestFor("a");
  m.library_path = Basename(d.library);
  s.WriteManifest(Location::kXdgConfigHome, "a.json", m.ToJson());
  s.SetEnv("LD_LIBRARY_PATH", d.dir);
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
}

// LDP_LOADER_4: a manifest api_version of another Vulkan major version ("2.0.0") or a non-zero
// variant (a non-Vulkan API) is an API the loader cannot work with: the driver is not loaded (not
// even opened), and a sibling keeps working. The Khronos loader rejects only the variant.
struct ApiCase {
  const char* name;
  const char* api_version;
};

class IncompatibleManifestApi : public ::testing::TestWithParam<ApiCase> {};

TEST_P(IncompatibleManifestApi, DriverNotLoadedOthersWork) {
  VKT_POLICY("LDP_LOADER_4", "LDP_DRIVER_1");
  Sandbox s;
  AddNamedDriver(s, "other", "v7_exports");
  AddNamedDriver(s, "good", "v7_exports");
  ManifestSpec m = s.ManifestFor("other");
  m.api_version = GetParam().api_version;
  s.WriteManifest(Location::kXdgConfigHome, "other.json", m.ToJson());
  s.WriteDriverManifest(Location::kXdgConfigHome, "good");
  ProbeResult r = RunProbe(s, {"instance-extensions", "create-instance:api=1.1", "devices", "destroy-instance"});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
  EXPECT_FALSE(s.WasLoaded("other")) << ReadFileText(s.driver("other").calls);
}

INSTANTIATE_TEST_SUITE_P(DriverManifest, IncompatibleManifestApi,
                         ::testing::Values(ApiCase{"Major2", "2.0.0"}, ApiCase{"Major0", "0.9.0"},
                                           ApiCase{"Variant1", "1.1.3.0"}, ApiCase{"Variant7", "7.1.0.0"}),
                         [](const ::testing::TestParamInfo<ApiCase>& i) { return std::string(i.param.name); });

// Every class of malformed manifest is skipped, and a well-formed sibling keeps working.
struct Malformed {
  const char* name;
  const char* rule;
  const char* text;  // %LIB% is replaced by the broken driver's absolute library path
};

class MalformedManifest : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedManifest, SkippedOthersKeepWorking) {
  VKT_POLICY("RULE_DRV_MANIFEST_MALFORMED", "LDP_DRIVER_4", "LDP_LOADER_2", GetParam().rule);
  Sandbox s;
  const Driver& bad = AddNamedDriver(s, "bad");
  AddNamedDriver(s, "good");
  std::string text = GetParam().text;
  size_t pos = text.find("%LIB%");
  if (pos != std::string::npos) text.replace(pos, 5, bad.library);
  s.WriteManifest(Location::kXdgConfigHome, "bad.json", text);
  s.WriteDriverManifest(Location::kXdgConfigHome, "good");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.exit_status, 0) << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"good-dev"}) << r.Describe();
  EXPECT_FALSE(s.WasLoaded("bad"));
}

INSTANTIATE_TEST_SUITE_P(
    DriverManifest, MalformedManifest,
    ::testing::Values(
        Malformed{"EmptyFile", "RULE_DRV_MANIFEST_MALFORMED", ""},
        Malformed{"NotJson", "RULE_DRV_MANIFEST_MALFORMED", "this is { not json"},
        Malformed{"Truncated", "RULE_DRV_MANIFEST_MALFORMED",
                  "{\"file_format_version\":\"1.0.0\",\"ICD\":{\"library_path\":\"%LIB%\""},
        Malformed{"TopLevelArray", "RULE_DRV_MANIFEST_MALFORMED", "[1,2,3]"},
        Malformed{"MissingFileFormatVersion", "RULE_DRV_MANIFEST_MALFORMED",
                  "{\"ICD\":{\"library_path\":\"%LIB%\",\"api_version\":\"1.3.0\"}}"},
        Malformed{"FileFormatVersionNotString", "RULE_DRV_MANIFEST_MALFORMED",
                  "{\"file_format_version\":1,\"ICD\":{\"library_path\":\"%LIB%\",\"api_version\":"
                  "\"1.3.0\"}}"},
        // "\u0000" would cut the string short: the library path below reads as the good
        // library's path to any C consumer, the key as "ICD" (RULE_ADVERSARIAL_INPUT).
        Malformed{"NulEscapeInLibraryPath", "RULE_DRV_MANIFEST_MALFORMED",
                  "{\"file_format_version\":\"1.0.0\",\"ICD\":{\"library_path\":\"%LIB%\\u0000/evil/lib.so\","
                  "\"api_version\":\"1.3.0\"}}"},
        Malformed{"NulEscapeInIcdKey", "RULE_DRV_MANIFEST_MALFORMED",
                  "{\"file_format_version\":\"1.0.0\",\"ICD\\u0000x\":{\"library_path\":\"%LIB%\","
                  "\"api_version\":\"1.3.0\"}}"},
        Malformed{"MissingIcdObject", "RULE_DRV_MANIFEST_MALFORMED", "{\"file_format_version\":\"1.0.0\"}"},
        Malformed{"IcdNotObject", "RULE_DRV_MANIFEST_MALFORMED",
                  "{\"file_format_version\":\"1.0.0\",\"ICD\":\"%LIB%\"}"},
        Malformed{"MissingLibraryPath", "RULE_DRV_MANIFEST_MALFORMED",
                  "{\"file_format_version\":\"1.0.0\",\"ICD\":{\"api_version\":\"1.3.0\"}}"},
        Malformed{"EmptyLibraryPath", "RULE_DRV_MANIFEST_MALFORMED",
                  "{\"file_format_version\":\"1.0.0\",\"ICD\":{\"library_path\":\"\","
                  "\"api_version\":\"1.3.0\"}}"},
        Malformed{"MissingApiVersion", "RULE_DRV_MANIFEST_MALFORMED",
                  "{\"file_format_version\":\"1.0.0\",\"ICD\":{\"library_path\":\"%LIB%\"}}"},
        Malformed{"NonZeroApiVariant", "RULE_DRV_MANIFEST_API_VARIANT",
                  "{\"file_format_version\":\"1.0.0\",\"ICD\":{\"library_path\":\"%LIB%\","
                  "\"api_version\":\"1.1.3.0\"}}"},
        Malformed{"LibraryDoesNotExist", "RULE_DRV_LIBRARY_LOAD_FAILURE",
                  "{\"file_format_version\":\"1.0.0\",\"ICD\":{\"library_path\":\"%LIB%.missing\","
                  "\"api_version\":\"1.3.0\"}}"},
        Malformed{"LibraryNotAnElf", "RULE_DRV_LIBRARY_LOAD_FAILURE",
                  "{\"file_format_version\":\"1.0.0\",\"ICD\":{\"library_path\":\"%LIB%.scenario\","
                  "\"api_version\":\"1.3.0\"}}"},
        // Found by loader_diff_fuzzer (docs/fuzzing.md "Differential fuzzing"): "1.1" is not
        // "major.minor.patch", and an ICD that is an array of objects is not an ICD object.
        Malformed{"ApiVersionTwoParts", "LDP_DRIVER_4",
                  "{\"file_format_version\":\"1.0.0\",\"ICD\":{\"library_path\":\"%LIB%\","
                  "\"api_version\":\"1.1\"}}"},
        Malformed{"PortabilityDriverNotBool", "LDP_DRIVER_4",
                  "{\"file_format_version\":\"1.0.1\",\"ICD\":{\"library_path\":\"%LIB%\","
                  "\"api_version\":\"1.3.0\",\"is_portability_driver\":\"true\"}}"},
        Malformed{"IcdArray", "RULE_DRV_MANIFEST_MALFORMED",
                  "{\"file_format_version\":\"1.0.1\",\"ICD\":[{\"library_path\":\"%LIB%\","
                  "\"api_version\":\"1.3.0\"}]}"}),
    [](const ::testing::TestParamInfo<Malformed>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace vkt
