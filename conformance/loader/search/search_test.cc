// Driver manifest discovery: search locations, environment overrides and filters.
#include <initializer_list>
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

// ---- helpers ---------------------------------------------------------------------------------

struct Placement {
  const char* driver;  // device "<driver>-dev"
  Location loc;
  int index;  // entry of a multi-directory location (XDG_*_DIRS)
};

// A sandbox, drivers placed in search locations, one create-instance + device enumeration.
class SearchTest : public ::testing::Test {
 protected:
  // Adds driver `name` and writes its manifest at `loc`; returns the manifest's path.
  std::string Install(const std::string& name, Location loc, int index = 0) {
    AddNamedDriver(s_, name);
    return s_.WriteDriverManifest(loc, name, index);
  }
  void Place(std::initializer_list<Placement> drivers) {
    for (const Placement& p : drivers) Install(p.driver, p.loc, p.index);
  }
  // Expects exactly the devices `want` (sorted; any order found) and none of `unloaded` loaded.
  ProbeResult ExpectDevices(const Names& want, const Names& unloaded = {}) {
    ProbeResult r = CreateAndEnumerate(s_);
    EXPECT_EQ(Sorted(r.DeviceNames()), want) << r.Describe();
    for (const std::string& n : unloaded) EXPECT_FALSE(s_.WasLoaded(n)) << n << " was loaded";
    return r;
  }
  // Expects instance creation to find no driver at all.
  void ExpectNoDriver(const Names& unloaded = {}) {
    ProbeResult r = CreateAndEnumerate(s_);
    EXPECT_EQ(CreateResult(r), "VK_ERROR_INCOMPATIBLE_DRIVER") << r.Describe();
    for (const std::string& n : unloaded) EXPECT_FALSE(s_.WasLoaded(n)) << n << " was loaded";
  }
  // Driver a alone at `loc`, found once `env` is removed (nullptr: nothing) or set to `value`.
  ProbeResult ExpectFoundAt(Location loc, const char* env = nullptr, const char* value = nullptr) {
    Install("a", loc);
    if (env && value) s_.SetEnv(env, value);
    if (env && !value) s_.UnsetEnv(env);
    return ExpectDevices({"a-dev"});
  }
  // a at `hidden`, b at `shown` (entry 0): only b is searched, a never loaded.
  void ExpectHides(Location shown, Location hidden) {
    Place({{"a", hidden, 0}, {"b", shown, 0}});
    ExpectDevices({"b-dev"}, {"a"});
  }
  // a and b in entries 0 and 1 of a multi-directory location: both found.
  void ExpectEveryEntry(Location loc) {
    Place({{"a", loc, 0}, {"b", loc, 1}});
    ExpectDevices({"a-dev", "b-dev"});
  }
  // a in the default search, b named by the list `variable`: the list replaces the search.
  void ExpectListReplacesSearch(const char* variable) {
    Install("a", Location::kXdgConfigHome);
    s_.SetEnv(variable, Install("b", Location::kLoose));
    ExpectDevices({"b-dev"}, {"a"});
  }
  // a named by the list `ignored`, b by the list `winner`: only b is loaded.
  void ExpectIgnoredUnder(const char* ignored, const char* winner) {
    s_.SetEnv(ignored, Install("a", Location::kLoose));
    s_.SetEnv(winner, Install("b", Location::kXdgDataDirs, 1));
    ExpectDevices({"b-dev"}, {"a"});
  }
  Sandbox s_;
};

class DriverSearch : public SearchTest {};
class DriverEnv : public SearchTest {};

// ---- default search locations ------------------------------------------------------------------

TEST_F(DriverSearch, XdgConfigHome) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  ProbeResult r = ExpectFoundAt(Location::kXdgConfigHome);
  ASSERT_EQ(r.exit_status, 0) << r.Describe();
}

TEST_F(DriverSearch, XdgDataHome) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  ExpectFoundAt(Location::kXdgDataHome);
}

TEST_F(DriverSearch, HomeConfigUsedWhenXdgConfigHomeUnset) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  ExpectFoundAt(Location::kHomeConfig, "XDG_CONFIG_HOME");
}

TEST_F(DriverSearch, HomeLocalShareUsedWhenXdgDataHomeUnset) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  ExpectFoundAt(Location::kHomeLocalShare, "XDG_DATA_HOME");
}

TEST_F(DriverSearch, HomeConfigUsedWhenXdgConfigHomeEmpty) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  ExpectFoundAt(Location::kHomeConfig, "XDG_CONFIG_HOME", "");
}

TEST_F(DriverSearch, HomeConfigIgnoredWhenXdgConfigHomeSet) {
  VKT_POLICY("RULE_DRV_SEARCH_ORDER");
  ExpectHides(Location::kXdgConfigHome, Location::kHomeConfig);
}

TEST_F(DriverSearch, HomeLocalShareIgnoredWhenXdgDataHomeSet) {
  VKT_POLICY("RULE_DRV_SEARCH_ORDER");
  ExpectHides(Location::kXdgDataHome, Location::kHomeLocalShare);
}

TEST_F(DriverSearch, XdgConfigDirsEveryEntry) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  ExpectEveryEntry(Location::kXdgConfigDirs);
}

TEST_F(DriverSearch, XdgDataDirsEveryEntry) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  ExpectEveryEntry(Location::kXdgDataDirs);
}

TEST_F(DriverSearch, NoUserLocationsWithoutHomeAndXdg) {
  VKT_POLICY("RULE_DRV_SEARCH_ORDER", "LDP_LOADER_1");
  VKT_REQUIRE_ISOLATION();
  Install("a", Location::kHomeConfig);
  for (const char* v : {"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"}) s_.UnsetEnv(v);
  ExpectNoDriver();
}

// ---- fixed system directories (private mount namespace) ----------------------------------------

struct FixedCase {
  const char* name;
  Location loc;
  const char* unset;  // environment variable removed so the fallback applies (or nullptr)
};

class FixedDirSearch : public SearchTest, public ::testing::WithParamInterface<FixedCase> {};

TEST_P(FixedDirSearch, DriverFound) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  VKT_REQUIRE_ISOLATION();
  ProbeResult r = ExpectFoundAt(GetParam().loc, GetParam().unset);
  ASSERT_TRUE(r.isolated);
}

INSTANTIATE_TEST_SUITE_P(
    DriverSearch, FixedDirSearch,
    ::testing::Values(FixedCase{"Sysconfdir_etc", Location::kEtc, nullptr},
                      FixedCase{"XdgConfigDirsFallback_etc_xdg", Location::kEtcXdg, "XDG_CONFIG_DIRS"},
                      FixedCase{"XdgDataDirsFallback_usr_local_share", Location::kUsrLocalShare, "XDG_DATA_DIRS"},
                      FixedCase{"XdgDataDirsFallback_usr_share", Location::kUsrShare, "XDG_DATA_DIRS"}),
    [](const ::testing::TestParamInfo<FixedCase>& i) { return std::string(i.param.name); });

TEST_F(DriverSearch, XdgDataDirsSetHidesFallback) {
  VKT_POLICY("RULE_DRV_SEARCH_ORDER");
  VKT_REQUIRE_ISOLATION();
  ExpectHides(Location::kXdgDataDirs, Location::kUsrShare);
}

TEST_F(DriverSearch, XdgConfigDirsSetHidesEtcXdg) {
  VKT_POLICY("RULE_DRV_SEARCH_ORDER");
  VKT_REQUIRE_ISOLATION();
  ExpectHides(Location::kXdgConfigDirs, Location::kEtcXdg);
}

TEST_F(DriverSearch, HostDriversDoNotLeak) {
  VKT_POLICY("LDP_LOADER_1");
  VKT_REQUIRE_ISOLATION();
  s_.UnsetEnv("XDG_CONFIG_DIRS");
  s_.UnsetEnv("XDG_DATA_DIRS");
  ExpectNoDriver();
}

// The documented order: XDG_CONFIG_HOME, XDG_CONFIG_DIRS..., SYSCONFDIR (/etc), XDG_DATA_HOME,
// XDG_DATA_DIRS... Observed as the order in which the loader's log first names each manifest
// (VK_LOADER_DEBUG=all).
TEST_F(DriverSearch, Order) {
  VKT_POLICY("RULE_DRV_SEARCH_ORDER", "LDP_LOADER_2");
  VKT_REQUIRE_ISOLATION();
  std::vector<std::string> manifests;
  const Placement order[] = {{"d1", Location::kXdgConfigHome, 0}, {"d2", Location::kXdgConfigDirs, 0},
                             {"d3", Location::kXdgConfigDirs, 1}, {"d4", Location::kEtc, 0},
                             {"d5", Location::kXdgDataHome, 0},   {"d6", Location::kXdgDataDirs, 0},
                             {"d7", Location::kXdgDataDirs, 1}};
  for (const Placement& o : order) manifests.push_back(Install(o.driver, o.loc, o.index));
  ProbeResult r = CreateAndEnumerate(s_);
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
TEST_F(DriverSearch, DebugLogNamesEveryDirectoryInOrder) {
  VKT_POLICY("RULE_DRV_SEARCH_ORDER", "RULE_LOG_FORMAT");
  VKT_REQUIRE_ISOLATION();
  const std::string manifest = Install("d", Location::kXdgDataHome);
  std::vector<std::string> dirs = {s_.IcdDir(Location::kXdgConfigHome),    s_.IcdDir(Location::kXdgConfigDirs, 0),
                                   s_.IcdDir(Location::kXdgConfigDirs, 1), "/etc/vulkan/icd.d",
                                   s_.IcdDir(Location::kXdgDataHome),      s_.IcdDir(Location::kXdgDataDirs, 0),
                                   s_.IcdDir(Location::kXdgDataDirs, 1)};
  s_.SetEnv("VK_LOADER_DEBUG", "driver");
  ProbeResult r = ExpectDevices({"d-dev"});
  EXPECT_EQ(FirstDirectoryNotNamedInOrder(r.err, dirs), "") << "never named after the previous directory\n" << r.err;
  EXPECT_NE(r.err.find(manifest), std::string::npos) << r.err;
}

TEST_F(DriverSearch, NonJsonFilesIgnored) {
  VKT_POLICY("RULE_DRV_SEARCH_DIR_SCAN", "LDP_DRIVER_4");
  AddNamedDriver(s_, "a");
  AddNamedDriver(s_, "b");
  s_.WriteManifest(Location::kXdgConfigHome, "a.txt", s_.ManifestFor("a").ToJson());
  s_.WriteManifest(Location::kXdgConfigHome, "b.json", s_.ManifestFor("b").ToJson());
  ExpectDevices({"b-dev"}, {"a"});
}

// ---- environment overrides ---------------------------------------------------------------------

TEST_F(DriverEnv, DriverFilesReplacesSearch) {
  VKT_POLICY("RULE_DRV_ENV_DRIVER_FILES_OVERRIDE", "LDP_LOADER_3");
  ExpectListReplacesSearch("VK_DRIVER_FILES");
}

TEST_F(DriverEnv, DriverFilesDirectory) {
  VKT_POLICY("RULE_DRV_ENV_DRIVER_FILES_OVERRIDE", "LDP_LOADER_3");
  Place({{"a", Location::kLoose, 0}, {"b", Location::kLoose, 0}});
  s_.SetEnv("VK_DRIVER_FILES", s_.IcdDir(Location::kLoose));
  ExpectDevices({"a-dev", "b-dev"});
}

TEST_F(DriverEnv, DriverFilesListOfFileAndDirectory) {
  VKT_POLICY("RULE_DRV_ENV_DRIVER_FILES_OVERRIDE", "LDP_LOADER_3");
  std::string file = Install("a", Location::kXdgDataDirs, 1);
  Install("b", Location::kLoose);
  s_.SetEnv("VK_DRIVER_FILES", file + ":" + s_.IcdDir(Location::kLoose));
  s_.UnsetEnv("XDG_DATA_DIRS");
  ExpectDevices({"a-dev", "b-dev"});
}

// Set but empty: an override with no entries (spec 1.3 item 5), so no driver at all.
TEST_F(DriverEnv, DriverFilesSetButEmptyMeansNoDrivers) {
  VKT_POLICY("RULE_DRV_ENV_DRIVER_FILES_OVERRIDE", "LDP_LOADER_1");
  Install("a", Location::kXdgConfigHome);
  s_.SetEnv("VK_DRIVER_FILES", "");
  ExpectNoDriver({"a"});
}

// Relative entries are opened relative to the working directory (spec 1.3 item 6); the probe runs
// in the sandbox root unless ProbeOptions::cwd says otherwise.
TEST_F(DriverEnv, DriverFilesRelativeToWorkingDirectory) {
  VKT_POLICY("RULE_DRV_ENV_DRIVER_FILES_OVERRIDE", "LDP_LOADER_3");
  std::string fa = Install("a", Location::kLoose);
  Install("b", Location::kLoose);
  Install("c", Location::kXdgConfigHome);
  ASSERT_EQ(fa.compare(0, s_.root().size() + 1, s_.root() + "/"), 0) << fa;
  std::string rel_a = fa.substr(s_.root().size() + 1);  // e.g. loose/a.json
  std::string rel_dir = rel_a.substr(0, rel_a.rfind('/'));
  // A relative file, and a relative directory with a "./" prefix (holding a and b).
  s_.SetEnv("VK_DRIVER_FILES", rel_a);
  ExpectDevices({"a-dev"});
  s_.SetEnv("VK_DRIVER_FILES", "./" + rel_dir);
  ExpectDevices({"a-dev", "b-dev"});
  // From another working directory the same relative entry names nothing.
  s_.SetEnv("VK_DRIVER_FILES", rel_a);
  ProbeOptions o;
  o.cwd = s_.home();
  ProbeResult elsewhere = RunProbe(s_, {"create-instance", "devices", "destroy-instance"}, o);
  EXPECT_EQ(CreateResult(elsewhere), "VK_ERROR_INCOMPATIBLE_DRIVER") << elsewhere.Describe();
  EXPECT_FALSE(s_.WasLoaded("c"));
}

TEST_F(DriverEnv, IcdFilenamesUsedWhenDriverFilesUnset) {
  VKT_POLICY("RULE_DRV_ENV_ICD_FILENAMES_DEPRECATED", "LDP_LOADER_3");
  ExpectListReplacesSearch("VK_ICD_FILENAMES");
}

TEST_F(DriverEnv, IcdFilenamesIgnoredWhenDriverFilesSet) {
  VKT_POLICY("RULE_DRV_ENV_ICD_FILENAMES_DEPRECATED", "RULE_DRV_ENV_DRIVER_FILES_OVERRIDE");
  ExpectIgnoredUnder("VK_ICD_FILENAMES", "VK_DRIVER_FILES");
}

TEST_F(DriverEnv, AddDriverFilesAddsAndComesFirst) {
  VKT_POLICY("RULE_DRV_ENV_ADD_DRIVER_FILES", "LDP_LOADER_3");
  std::string ma = Install("a", Location::kXdgConfigHome);
  std::string mb = Install("b", Location::kLoose);
  s_.SetEnv("VK_ADD_DRIVER_FILES", mb);
  ProbeResult r = ExpectDevices({"a-dev", "b-dev"});
  size_t pa = r.err.find(ma), pb = r.err.find(mb);
  ASSERT_NE(pa, std::string::npos) << r.Describe();
  ASSERT_NE(pb, std::string::npos) << r.Describe();
  EXPECT_LT(pb, pa) << "VK_ADD_DRIVER_FILES entries are searched before the defaults";
}

TEST_F(DriverEnv, AddDriverFilesDirectory) {
  VKT_POLICY("RULE_DRV_ENV_ADD_DRIVER_FILES", "LDP_LOADER_3");
  Install("a", Location::kLoose);
  s_.SetEnv("VK_ADD_DRIVER_FILES", s_.IcdDir(Location::kLoose));
  ExpectDevices({"a-dev"});
}

TEST_F(DriverEnv, AddDriverFilesIgnoredUnderDriverFiles) {
  VKT_POLICY("RULE_DRV_ENV_ADD_DRIVER_FILES", "RULE_DRV_ENV_DRIVER_FILES_OVERRIDE");
  ExpectIgnoredUnder("VK_ADD_DRIVER_FILES", "VK_DRIVER_FILES");
}

TEST_F(DriverEnv, AddDriverFilesIgnoredUnderIcdFilenames) {
  VKT_POLICY("RULE_DRV_ENV_ADD_DRIVER_FILES", "RULE_DRV_ENV_ICD_FILENAMES_DEPRECATED");
  ExpectIgnoredUnder("VK_ADD_DRIVER_FILES", "VK_ICD_FILENAMES");
}

// ---- VK_LOADER_DRIVERS_SELECT / VK_LOADER_DRIVERS_DISABLE ---------------------------------------

class DriverFilter : public SearchTest {
 protected:
  void SetUp() override {
    for (const char* n : {"alpha", "beta", "gamma"}) Install(n, Location::kXdgConfigHome);
  }
  // VK_LOADER_DRIVERS_SELECT=`value` leaves exactly the devices `want`.
  void ExpectSelected(const char* value, const Names& want) {
    s_.SetEnv("VK_LOADER_DRIVERS_SELECT", value);
    ExpectDevices(want);
  }
};

TEST_F(DriverFilter, SelectExactName) {
  VKT_POLICY("RULE_DRV_FILTER_SELECT", "RULE_DRV_FILTER_GLOB");
  ExpectSelected("beta.json", {"beta-dev"});
}

TEST_F(DriverFilter, SelectPrefixGlob) {
  VKT_POLICY("RULE_DRV_FILTER_SELECT", "RULE_DRV_FILTER_GLOB");
  ExpectSelected("al*", {"alpha-dev"});
}

TEST_F(DriverFilter, SelectSuffixAndSubstringGlobs) {
  VKT_POLICY("RULE_DRV_FILTER_SELECT", "RULE_DRV_FILTER_GLOB");
  ExpectSelected("*ta.json,*amm*", {"beta-dev", "gamma-dev"});
}

TEST_F(DriverFilter, SelectIsCaseInsensitive) {
  VKT_POLICY("RULE_DRV_FILTER_SELECT", "RULE_DRV_FILTER_GLOB");
  ExpectSelected("GAMMA.JSON", {"gamma-dev"});
}

TEST_F(DriverFilter, SelectMatchesManifestFileNameNotLibrary) {
  VKT_POLICY("RULE_DRV_FILTER_SELECT", "RULE_DRV_FILTER_GLOB");
  ExpectSelected("libmock*", {});
}

TEST_F(DriverFilter, SelectWholeStringDoesNotMatchLonger) {
  VKT_POLICY("RULE_DRV_FILTER_GLOB");
  ExpectSelected("alpha", {});
}

TEST_F(DriverFilter, DisableGlob) {
  VKT_POLICY("RULE_DRV_FILTER_DISABLE", "RULE_DRV_FILTER_GLOB");
  s_.SetEnv("VK_LOADER_DRIVERS_DISABLE", "*eta*");
  ExpectDevices({"alpha-dev", "gamma-dev"}, {"beta"});
}

TEST_F(DriverFilter, DisableAllThenSelectReenables) {
  VKT_POLICY("RULE_DRV_FILTER_DISABLE", "RULE_DRV_FILTER_SELECT");
  s_.SetEnv("VK_LOADER_DRIVERS_DISABLE", "~all~");
  ExpectSelected("gamma*", {"gamma-dev"});
}

TEST_F(DriverFilter, DisableEverythingGivesIncompatibleDriver) {
  VKT_POLICY("RULE_DRV_FILTER_DISABLE", "LDP_LOADER_1");
  s_.SetEnv("VK_LOADER_DRIVERS_DISABLE", "*");
  ExpectNoDriver();
}

TEST_F(DriverFilter, FiltersApplyToDriverFiles) {
  VKT_POLICY("RULE_DRV_FILTER_DISABLE", "RULE_DRV_ENV_DRIVER_FILES_OVERRIDE");
  s_.SetEnv("VK_DRIVER_FILES", s_.IcdDir(Location::kXdgConfigHome));
  s_.SetEnv("VK_LOADER_DRIVERS_DISABLE", "alpha.json");
  ExpectDevices({"beta-dev", "gamma-dev"});
}

}  // namespace
}  // namespace vkt
