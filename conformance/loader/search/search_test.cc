// Driver manifest discovery: search locations, environment overrides and filters.
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

// ---- default search locations ------------------------------------------------------------------

TEST(DriverSearch, XdgConfigHome) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  ProbeResult r = CreateAndEnumerate(s);
  ASSERT_EQ(r.exit_status, 0) << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
}

TEST(DriverSearch, HomeConfigUsedWhenXdgConfigHomeUnset) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(Location::kHomeConfig, "a");
  s.UnsetEnv("XDG_CONFIG_HOME");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
}

TEST(DriverSearch, HomeConfigUsedWhenXdgConfigHomeEmpty) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(Location::kHomeConfig, "a");
  s.SetEnv("XDG_CONFIG_HOME", "");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
}

TEST(DriverSearch, HomeConfigIgnoredWhenXdgConfigHomeSet) {
  VKT_POLICY("RULE_DRV_SEARCH_ORDER");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  s.WriteDriverManifest(Location::kHomeConfig, "a");
  s.WriteDriverManifest(Location::kXdgConfigHome, "b");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"b-dev"}) << r.Describe();
  EXPECT_FALSE(s.WasLoaded("a"));
}

TEST(DriverSearch, XdgConfigDirsEveryEntry) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  s.WriteDriverManifest(Location::kXdgConfigDirs, "a", 0);
  s.WriteDriverManifest(Location::kXdgConfigDirs, "b", 1);
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"a-dev", "b-dev"})) << r.Describe();
}

TEST(DriverSearch, XdgDataHome) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(Location::kXdgDataHome, "a");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
}

TEST(DriverSearch, HomeLocalShareUsedWhenXdgDataHomeUnset) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(Location::kHomeLocalShare, "a");
  s.UnsetEnv("XDG_DATA_HOME");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
}

TEST(DriverSearch, HomeLocalShareIgnoredWhenXdgDataHomeSet) {
  VKT_POLICY("RULE_DRV_SEARCH_ORDER");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  s.WriteDriverManifest(Location::kHomeLocalShare, "a");
  s.WriteDriverManifest(Location::kXdgDataHome, "b");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"b-dev"}) << r.Describe();
  EXPECT_FALSE(s.WasLoaded("a"));
}

TEST(DriverSearch, XdgDataDirsEveryEntry) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  s.WriteDriverManifest(Location::kXdgDataDirs, "a", 0);
  s.WriteDriverManifest(Location::kXdgDataDirs, "b", 1);
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"a-dev", "b-dev"})) << r.Describe();
}

TEST(DriverSearch, NoUserLocationsWithoutHomeAndXdg) {
  VKT_POLICY("RULE_DRV_SEARCH_ORDER", "LDP_LOADER_1");
  VKT_REQUIRE_ISOLATION();
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(Location::kHomeConfig, "a");
  s.UnsetEnv("HOME");
  s.UnsetEnv("XDG_CONFIG_HOME");
  s.UnsetEnv("XDG_DATA_HOME");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(CreateResult(r), "VK_ERROR_INCOMPATIBLE_DRIVER") << r.Describe();
}

// ---- fixed system directories (private mount namespace) ----------------------------------------

struct FixedCase {
  const char* name;
  Location loc;
  const char* unset;  // environment variable removed so the fallback applies (or nullptr)
};

class FixedDirSearch : public ::testing::TestWithParam<FixedCase> {};

TEST_P(FixedDirSearch, DriverFound) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  VKT_REQUIRE_ISOLATION();
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(GetParam().loc, "a");
  if (GetParam().unset) s.UnsetEnv(GetParam().unset);
  ProbeResult r = CreateAndEnumerate(s);
  ASSERT_TRUE(r.isolated);
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(
    DriverSearch, FixedDirSearch,
    ::testing::Values(FixedCase{"Sysconfdir_etc", Location::kEtc, nullptr},
                      FixedCase{"XdgConfigDirsFallback_etc_xdg", Location::kEtcXdg, "XDG_CONFIG_DIRS"},
                      FixedCase{"XdgDataDirsFallback_usr_local_share", Location::kUsrLocalShare, "XDG_DATA_DIRS"},
                      FixedCase{"XdgDataDirsFallback_usr_share", Location::kUsrShare, "XDG_DATA_DIRS"}),
    [](const ::testing::TestParamInfo<FixedCase>& i) { return std::string(i.param.name); });

TEST(DriverSearch, XdgDataDirsSetHidesFallback) {
  VKT_POLICY("RULE_DRV_SEARCH_ORDER");
  VKT_REQUIRE_ISOLATION();
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  s.WriteDriverManifest(Location::kUsrShare, "a");
  s.WriteDriverManifest(Location::kXdgDataDirs, "b", 0);
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"b-dev"}) << r.Describe();
  EXPECT_FALSE(s.WasLoaded("a"));
}

TEST(DriverSearch, XdgConfigDirsSetHidesEtcXdg) {
  VKT_POLICY("RULE_DRV_SEARCH_ORDER");
  VKT_REQUIRE_ISOLATION();
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  s.WriteDriverManifest(Location::kEtcXdg, "a");
  s.WriteDriverManifest(Location::kXdgConfigDirs, "b", 0);
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"b-dev"}) << r.Describe();
  EXPECT_FALSE(s.WasLoaded("a"));
}

TEST(DriverSearch, HostDriversDoNotLeak) {
  VKT_POLICY("LDP_LOADER_1");
  VKT_REQUIRE_ISOLATION();
  Sandbox s;
  s.UnsetEnv("XDG_CONFIG_DIRS");
  s.UnsetEnv("XDG_DATA_DIRS");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(CreateResult(r), "VK_ERROR_INCOMPATIBLE_DRIVER") << r.Describe();
}

// The documented order: XDG_CONFIG_HOME, XDG_CONFIG_DIRS..., SYSCONFDIR (/etc), XDG_DATA_HOME,
// XDG_DATA_DIRS... Observed as the order in which the loader's log first names each manifest
// (VK_LOADER_DEBUG=all).
TEST(DriverSearch, Order) {
  VKT_POLICY("RULE_DRV_SEARCH_ORDER", "LDP_LOADER_2");
  VKT_REQUIRE_ISOLATION();
  Sandbox s;
  std::vector<std::string> manifests;
  struct {
    const char* name;
    Location loc;
    int index;
  } order[] = {{"d1", Location::kXdgConfigHome, 0}, {"d2", Location::kXdgConfigDirs, 0},
               {"d3", Location::kXdgConfigDirs, 1}, {"d4", Location::kEtc, 0},
               {"d5", Location::kXdgDataHome, 0},   {"d6", Location::kXdgDataDirs, 0},
               {"d7", Location::kXdgDataDirs, 1}};
  for (const auto& o : order) {
    AddNamedDriver(s, o.name);
    manifests.push_back(s.WriteDriverManifest(o.loc, o.name, o.index));
  }
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames().size(), 7u) << r.Describe();
  size_t last = 0;
  for (const std::string& m : manifests) {
    size_t pos = r.err.find(m);
    ASSERT_NE(pos, std::string::npos) << m << " never logged\n" << r.Describe();
    EXPECT_GT(pos, last) << m << " logged out of order\n" << r.Describe();
    last = pos;
  }
}

// With VK_LOADER_DEBUG=driver the log names every directory searched, in search order, whether it
// holds a manifest, is empty or does not exist, and then the manifest found: a user asking "why is
// my driver not found" sees the whole search.
TEST(DriverSearch, DebugLogNamesEveryDirectoryInOrder) {
  VKT_POLICY("RULE_DRV_SEARCH_ORDER", "RULE_LOG_FORMAT");
  VKT_REQUIRE_ISOLATION();
  Sandbox s;
  AddNamedDriver(s, "d");
  const std::string manifest = s.WriteDriverManifest(Location::kXdgDataHome, "d");
  std::vector<std::string> dirs = {s.IcdDir(Location::kXdgConfigHome),    s.IcdDir(Location::kXdgConfigDirs, 0),
                                   s.IcdDir(Location::kXdgConfigDirs, 1), "/etc/vulkan/icd.d",
                                   s.IcdDir(Location::kXdgDataHome),      s.IcdDir(Location::kXdgDataDirs, 0),
                                   s.IcdDir(Location::kXdgDataDirs, 1)};
  s.SetEnv("VK_LOADER_DEBUG", "driver");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"d-dev"}) << r.Describe();
  EXPECT_EQ(FirstDirectoryNotNamedInOrder(r.err, dirs), "") << "never named after the previous directory\n" << r.err;
  EXPECT_NE(r.err.find(manifest), std::string::npos) << r.err;
}

TEST(DriverSearch, NonJsonFilesIgnored) {
  VKT_POLICY("RULE_DRV_SEARCH_DIR_SCAN", "LDP_DRIVER_4");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  s.WriteManifest(Location::kXdgConfigHome, "a.txt", s.ManifestFor("a").ToJson());
  s.WriteManifest(Location::kXdgConfigHome, "b.json", s.ManifestFor("b").ToJson());
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"b-dev"}) << r.Describe();
  EXPECT_FALSE(s.WasLoaded("a"));
}

// ---- environment overrides ---------------------------------------------------------------------

TEST(DriverEnv, DriverFilesReplacesSearch) {
  VKT_POLICY("RULE_DRV_ENV_DRIVER_FILES_OVERRIDE", "LDP_LOADER_3");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  s.SetEnv("VK_DRIVER_FILES", s.WriteDriverManifest(Location::kLoose, "b"));
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"b-dev"}) << r.Describe();
  EXPECT_FALSE(s.WasLoaded("a"));
}

TEST(DriverEnv, DriverFilesDirectory) {
  VKT_POLICY("RULE_DRV_ENV_DRIVER_FILES_OVERRIDE", "LDP_LOADER_3");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  s.WriteDriverManifest(Location::kLoose, "a");
  s.WriteDriverManifest(Location::kLoose, "b");
  s.SetEnv("VK_DRIVER_FILES", s.IcdDir(Location::kLoose));
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"a-dev", "b-dev"})) << r.Describe();
}

TEST(DriverEnv, DriverFilesListOfFileAndDirectory) {
  VKT_POLICY("RULE_DRV_ENV_DRIVER_FILES_OVERRIDE", "LDP_LOADER_3");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  std::string file = s.WriteDriverManifest(Location::kXdgDataDirs, "a", 1);
  s.WriteDriverManifest(Location::kLoose, "b");
  s.SetEnv("VK_DRIVER_FILES", file + ":" + s.IcdDir(Location::kLoose));
  s.UnsetEnv("XDG_DATA_DIRS");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"a-dev", "b-dev"})) << r.Describe();
}

// Set but empty: an override with no entries (spec 1.3 item 5), so no driver at all.
TEST(DriverEnv, DriverFilesSetButEmptyMeansNoDrivers) {
  VKT_POLICY("RULE_DRV_ENV_DRIVER_FILES_OVERRIDE", "LDP_LOADER_1");
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  s.SetEnv("VK_DRIVER_FILES", "");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(CreateResult(r), "VK_ERROR_INCOMPATIBLE_DRIVER") << r.Describe();
  EXPECT_FALSE(s.WasLoaded("a"));
}

// Relative entries are opened relative to the working directory (spec 1.3 item 6); the probe runs
// in the sandbox root unless ProbeOptions::cwd says otherwise.
TEST(DriverEnv, DriverFilesRelativeToWorkingDirectory) {
  VKT_POLICY("RULE_DRV_ENV_DRIVER_FILES_OVERRIDE", "LDP_LOADER_3");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  AddNamedDriver(s, "c");
  s.WriteDriverManifest(Location::kXdgConfigHome, "c");
  std::string fa = s.WriteDriverManifest(Location::kLoose, "a");
  s.WriteDriverManifest(Location::kLoose, "b");
  ASSERT_EQ(fa.compare(0, s.root().size() + 1, s.root() + "/"), 0) << fa;
  std::string rel_a = fa.substr(s.root().size() + 1);  // e.g. loose/a.json
  std::string rel_dir = rel_a.substr(0, rel_a.rfind('/'));
  // A relative file, and a relative directory with a "./" prefix (holding a and b).
  s.SetEnv("VK_DRIVER_FILES", rel_a);
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
  s.SetEnv("VK_DRIVER_FILES", "./" + rel_dir);
  ProbeResult dir = CreateAndEnumerate(s);
  EXPECT_EQ(Sorted(dir.DeviceNames()), (Names{"a-dev", "b-dev"})) << dir.Describe();
  // From another working directory the same relative entry names nothing.
  s.SetEnv("VK_DRIVER_FILES", rel_a);
  ProbeOptions o;
  o.cwd = s.home();
  ProbeResult elsewhere = RunProbe(s, {"create-instance", "devices", "destroy-instance"}, o);
  EXPECT_EQ(CreateResult(elsewhere), "VK_ERROR_INCOMPATIBLE_DRIVER") << elsewhere.Describe();
  EXPECT_FALSE(s.WasLoaded("c"));
}

TEST(DriverEnv, IcdFilenamesUsedWhenDriverFilesUnset) {
  VKT_POLICY("RULE_DRV_ENV_ICD_FILENAMES_DEPRECATED", "LDP_LOADER_3");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  s.SetEnv("VK_ICD_FILENAMES", s.WriteDriverManifest(Location::kLoose, "b"));
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"b-dev"}) << r.Describe();
  EXPECT_FALSE(s.WasLoaded("a"));
}

TEST(DriverEnv, IcdFilenamesIgnoredWhenDriverFilesSet) {
  VKT_POLICY("RULE_DRV_ENV_ICD_FILENAMES_DEPRECATED", "RULE_DRV_ENV_DRIVER_FILES_OVERRIDE");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  s.SetEnv("VK_ICD_FILENAMES", s.WriteDriverManifest(Location::kLoose, "a"));
  s.SetEnv("VK_DRIVER_FILES", s.WriteDriverManifest(Location::kXdgDataDirs, "b", 1));
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"b-dev"}) << r.Describe();
  EXPECT_FALSE(s.WasLoaded("a"));
}

TEST(DriverEnv, AddDriverFilesAddsAndComesFirst) {
  VKT_POLICY("RULE_DRV_ENV_ADD_DRIVER_FILES", "LDP_LOADER_3");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  std::string ma = s.WriteDriverManifest(Location::kXdgConfigHome, "a");
  std::string mb = s.WriteDriverManifest(Location::kLoose, "b");
  s.SetEnv("VK_ADD_DRIVER_FILES", mb);
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"a-dev", "b-dev"})) << r.Describe();
  size_t pa = r.err.find(ma), pb = r.err.find(mb);
  ASSERT_NE(pa, std::string::npos) << r.Describe();
  ASSERT_NE(pb, std::string::npos) << r.Describe();
  EXPECT_LT(pb, pa) << "VK_ADD_DRIVER_FILES entries are searched before the defaults";
}

TEST(DriverEnv, AddDriverFilesDirectory) {
  VKT_POLICY("RULE_DRV_ENV_ADD_DRIVER_FILES", "LDP_LOADER_3");
  Sandbox s;
  AddNamedDriver(s, "a");
  s.WriteDriverManifest(Location::kLoose, "a");
  s.SetEnv("VK_ADD_DRIVER_FILES", s.IcdDir(Location::kLoose));
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"a-dev"}) << r.Describe();
}

TEST(DriverEnv, AddDriverFilesIgnoredUnderDriverFiles) {
  VKT_POLICY("RULE_DRV_ENV_ADD_DRIVER_FILES", "RULE_DRV_ENV_DRIVER_FILES_OVERRIDE");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  s.SetEnv("VK_ADD_DRIVER_FILES", s.WriteDriverManifest(Location::kLoose, "a"));
  s.SetEnv("VK_DRIVER_FILES", s.WriteDriverManifest(Location::kXdgDataDirs, "b", 1));
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"b-dev"}) << r.Describe();
  EXPECT_FALSE(s.WasLoaded("a"));
}

TEST(DriverEnv, AddDriverFilesIgnoredUnderIcdFilenames) {
  VKT_POLICY("RULE_DRV_ENV_ADD_DRIVER_FILES", "RULE_DRV_ENV_ICD_FILENAMES_DEPRECATED");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "b");
  s.SetEnv("VK_ADD_DRIVER_FILES", s.WriteDriverManifest(Location::kLoose, "a"));
  s.SetEnv("VK_ICD_FILENAMES", s.WriteDriverManifest(Location::kXdgDataDirs, "b", 1));
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), Names{"b-dev"}) << r.Describe();
  EXPECT_FALSE(s.WasLoaded("a"));
}

// ---- VK_LOADER_DRIVERS_SELECT / VK_LOADER_DRIVERS_DISABLE ---------------------------------------

class DriverFilter : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* n : {"alpha", "beta", "gamma"}) {
      AddNamedDriver(s_, n);
      s_.WriteDriverManifest(Location::kXdgConfigHome, n);
    }
  }
  Names Run() {
    ProbeResult r = CreateAndEnumerate(s_);
    last_ = r.Describe();
    return Sorted(r.DeviceNames());
  }
  Sandbox s_;
  std::string last_;
};

TEST_F(DriverFilter, SelectExactName) {
  VKT_POLICY("RULE_DRV_FILTER_SELECT", "RULE_DRV_FILTER_GLOB");
  s_.SetEnv("VK_LOADER_DRIVERS_SELECT", "beta.json");
  EXPECT_EQ(Run(), Names{"beta-dev"}) << last_;
}

TEST_F(DriverFilter, SelectPrefixGlob) {
  VKT_POLICY("RULE_DRV_FILTER_SELECT", "RULE_DRV_FILTER_GLOB");
  s_.SetEnv("VK_LOADER_DRIVERS_SELECT", "al*");
  EXPECT_EQ(Run(), Names{"alpha-dev"}) << last_;
}

TEST_F(DriverFilter, SelectSuffixAndSubstringGlobs) {
  VKT_POLICY("RULE_DRV_FILTER_SELECT", "RULE_DRV_FILTER_GLOB");
  s_.SetEnv("VK_LOADER_DRIVERS_SELECT", "*ta.json,*amm*");
  EXPECT_EQ(Run(), (Names{"beta-dev", "gamma-dev"})) << last_;
}

TEST_F(DriverFilter, SelectIsCaseInsensitive) {
  VKT_POLICY("RULE_DRV_FILTER_SELECT", "RULE_DRV_FILTER_GLOB");
  s_.SetEnv("VK_LOADER_DRIVERS_SELECT", "GAMMA.JSON");
  EXPECT_EQ(Run(), Names{"gamma-dev"}) << last_;
}

TEST_F(DriverFilter, SelectMatchesManifestFileNameNotLibrary) {
  VKT_POLICY("RULE_DRV_FILTER_SELECT", "RULE_DRV_FILTER_GLOB");
  s_.SetEnv("VK_LOADER_DRIVERS_SELECT", "libmock*");
  EXPECT_EQ(Run(), Names{}) << last_;
}

TEST_F(DriverFilter, SelectWholeStringDoesNotMatchLonger) {
  VKT_POLICY("RULE_DRV_FILTER_GLOB");
  s_.SetEnv("VK_LOADER_DRIVERS_SELECT", "alpha");
  EXPECT_EQ(Run(), Names{}) << last_;
}

TEST_F(DriverFilter, DisableGlob) {
  VKT_POLICY("RULE_DRV_FILTER_DISABLE", "RULE_DRV_FILTER_GLOB");
  s_.SetEnv("VK_LOADER_DRIVERS_DISABLE", "*eta*");
  EXPECT_EQ(Run(), (Names{"alpha-dev", "gamma-dev"})) << last_;
  EXPECT_FALSE(s_.WasLoaded("beta"));
}

TEST_F(DriverFilter, DisableAllThenSelectReenables) {
  VKT_POLICY("RULE_DRV_FILTER_DISABLE", "RULE_DRV_FILTER_SELECT");
  s_.SetEnv("VK_LOADER_DRIVERS_DISABLE", "~all~");
  s_.SetEnv("VK_LOADER_DRIVERS_SELECT", "gamma*");
  EXPECT_EQ(Run(), Names{"gamma-dev"}) << last_;
}

TEST_F(DriverFilter, DisableEverythingGivesIncompatibleDriver) {
  VKT_POLICY("RULE_DRV_FILTER_DISABLE", "LDP_LOADER_1");
  s_.SetEnv("VK_LOADER_DRIVERS_DISABLE", "*");
  ProbeResult r = CreateAndEnumerate(s_);
  EXPECT_EQ(CreateResult(r), "VK_ERROR_INCOMPATIBLE_DRIVER") << r.Describe();
}

TEST_F(DriverFilter, FiltersApplyToDriverFiles) {
  VKT_POLICY("RULE_DRV_FILTER_DISABLE", "RULE_DRV_ENV_DRIVER_FILES_OVERRIDE");
  s_.SetEnv("VK_DRIVER_FILES", s_.IcdDir(Location::kXdgConfigHome));
  s_.SetEnv("VK_LOADER_DRIVERS_DISABLE", "alpha.json");
  EXPECT_EQ(Run(), (Names{"beta-dev", "gamma-dev"})) << last_;
}

}  // namespace
}  // namespace vkt
