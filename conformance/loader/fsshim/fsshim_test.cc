// The loader under test reaches its files only through calls an interposing test framework sees
// (opendir/readdir, access, fopen) and its view of elevation agrees with secure_getenv: run it
// with libvkt_fsshim.so preloaded (conformance/framework/fsshim.c), which maps the fixed system
// directories and a fake $HOME to per-test folders, and check that the loader finds exactly the
// fake files and nothing of the host (no mount namespace: the host's own drivers and layers in
// /usr/share/vulkan are in plain view unless the shim hides them).
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "conformance/loader/common.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

// The fixed roots a Linux loader searches (spec §1.2); each is mapped to <sandbox>/fs/<tag>.
const char* const kRoots[][2] = {
    {"/etc/vulkan", "etc_vulkan"},
    {"/etc/xdg/vulkan", "etc_xdg_vulkan"},
    {"/usr/local/etc/vulkan", "usr_local_etc_vulkan"},
    {"/usr/local/share/vulkan", "usr_local_share_vulkan"},
    {"/usr/share/vulkan", "usr_share_vulkan"},
};
// A $HOME that does not exist on any host: only the shim can make it exist.
const char kFakeHome[] = "/vkt-fsshim-home";

class FsShim : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string map;
    for (const auto& r : kRoots) {
      std::string backing = s_.root() + "/fs/" + r[1];
      MakeDirs(backing);
      map += std::string(r[0]) + "=" + backing + ";";
    }
    MakeDirs(s_.root() + "/fs/home");
    map += std::string(kFakeHome) + "=" + s_.root() + "/fs/home";
    s_.SetEnv("LD_PRELOAD", Runfile("conformance/framework/libvkt_fsshim.so"));
#ifdef VKT_ASAN
    // The shim is preloaded ahead of the sanitizer runtime: fine for interposition (the shim's
    // functions call on to the runtime's), but ASan refuses to start unless told so.
    const char* asan = getenv("ASAN_OPTIONS");
    s_.SetEnv("ASAN_OPTIONS", std::string(asan != nullptr ? asan : "") + ":verify_asan_link_order=0");
#endif
    s_.SetEnv("VKT_FSSHIM_MAP", map);
    s_.SetEnv("VKT_FSSHIM_LOG", log_path());
    s_.SetEnv("HOME", kFakeHome);
    for (const char* v : {"XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_HOME", "XDG_DATA_DIRS"}) s_.UnsetEnv(v);
  }

  std::string log_path() const { return s_.root() + "/fsshim.log"; }
  // Backing folder of a path as the loader sees it (one of kRoots or kFakeHome).
  std::string Backing(const std::string& fake) const {
    for (const auto& r : kRoots) {
      std::string root = r[0];
      if (fake.compare(0, root.size(), root) == 0) return s_.root() + "/fs/" + r[1] + fake.substr(root.size());
    }
    std::string home = kFakeHome;
    if (fake.compare(0, home.size(), home) == 0) return s_.root() + "/fs/home" + fake.substr(home.size());
    ADD_FAILURE() << "not a mapped path: " << fake;
    return s_.root() + "/unmapped";
  }
  // Writes driver `name`'s manifest at the fake directory `dir` (absolute library path).
  void FakeDriver(const std::string& dir, const std::string& name) {
    AddNamedDriver(s_, name);
    s_.WriteFile(Backing(dir + "/" + name + ".json"), s_.ManifestFor(name).ToJson());
  }
  void FakeLayer(const std::string& dir, const std::string& name, bool implicit) {
    const Layer& l = s_.AddLayer(name, "v2_gpdpa");
    std::string members = implicit ? DisableEnv(name) : std::string();
    s_.WriteFile(Backing(dir + "/" + name + ".json"), LayerManifest("1.2.1", {LayerObject(name, l.library, members)}));
  }
  ProbeResult Run(const std::vector<std::string>& steps) {
    ProbeOptions o;
    o.isolate = false;  // the shim, not a mount namespace, is what hides the host
    return RunProbe(s_, steps, o);
  }
  // "CALL PATH" lines the shim logged.
  std::vector<std::string> ShimCalls() const {
    std::vector<std::string> out;
    std::ifstream in(log_path());
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }
  // A path in any spelling of it: "a//b" names the file "a/b" does (POSIX path resolution), and a
  // loader may join a directory and a suffix that both bring a '/' (the Khronos loader 1.4.360
  // opens "/etc/xdg/vulkan//loader_settings.d/vk_loader_settings.json").
  static std::string OneSlash(const std::string& s) {
    std::string out;
    for (char c : s)
      if (c != '/' || out.empty() || out.back() != '/') out += c;
    return out;
  }
  bool ShimSaw(const std::string& call, const std::string& path) const {
    for (const std::string& l : ShimCalls())
      if (OneSlash(l) == call + " " + OneSlash(path)) return true;
    return false;
  }

  Sandbox s_;
};

TEST_F(FsShim, DriversFoundOnlyInTheFakeSystemDirectories) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  FakeDriver("/usr/share/vulkan/icd.d", "fsa");
  FakeDriver("/etc/vulkan/icd.d", "fsb");
  ProbeResult r = Run({"create-instance", "devices", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  // Exactly the two fake drivers: the host's drivers (lavapipe in /usr/share/vulkan/icd.d) are
  // behind the shim's mapping.
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"fsa-dev", "fsb-dev"})) << r.Describe();
  // The manifests were read through fopen, the directory listed through opendir.
  EXPECT_TRUE(ShimSaw("opendir", "/usr/share/vulkan/icd.d")) << ReadFileText(log_path());
  EXPECT_TRUE(ShimSaw("fopen", "/usr/share/vulkan/icd.d/fsa.json")) << ReadFileText(log_path());
  EXPECT_TRUE(ShimSaw("fopen", "/etc/vulkan/icd.d/fsb.json")) << ReadFileText(log_path());
}

TEST_F(FsShim, LayersFoundOnlyInTheFakeSystemDirectories) {
  VKT_POLICY("LLP_LOADER_1");
  FakeDriver("/usr/share/vulkan/icd.d", "fsdrv");
  FakeLayer("/usr/share/vulkan/explicit_layer.d", "VK_LAYER_VKT_fs_explicit", false);
  FakeLayer("/etc/vulkan/implicit_layer.d", "VK_LAYER_VKT_fs_implicit", true);
  ProbeResult r = Run({"instance-layers", "create-instance", "destroy-instance"});
  // Exactly the two fake layers: none of the host's (Mesa device-select, validation, ...).
  EXPECT_EQ(Sorted(LayerNames(r)), (Names{"VK_LAYER_VKT_fs_explicit", "VK_LAYER_VKT_fs_implicit"})) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_TRUE(ShimSaw("fopen", "/etc/vulkan/implicit_layer.d/VK_LAYER_VKT_fs_implicit.json"))
      << ReadFileText(log_path());
}

// A layer manifest the process may not read (EACCES from the shim's fopen: the tests run as root,
// which reads any file) is skipped with a WARNING naming the file, as an unreadable driver manifest
// is (LDP_DRIVER_4), instead of vanishing silently; the readable layer beside it still loads.
TEST_F(FsShim, UnreadableLayerManifestIsLogged) {
  VKT_POLICY("LLP_LAYER_6", "LLP_LOADER_1");
  FakeDriver("/usr/share/vulkan/icd.d", "fsdrv");
  FakeLayer("/usr/share/vulkan/explicit_layer.d", "VK_LAYER_VKT_fs_readable", false);
  FakeLayer("/usr/share/vulkan/explicit_layer.d", "VK_LAYER_VKT_fs_denied", false);
  const std::string denied = "/usr/share/vulkan/explicit_layer.d/VK_LAYER_VKT_fs_denied.json";
  s_.SetEnv("VKT_FSSHIM_EACCES", denied);
  // Errors and warnings: a loader may say it at either severity (the Khronos loader 1.4.360 writes an
  // ERROR "Failed to open JSON file <path>").
  s_.SetEnv("VK_LOADER_DEBUG", "error,warn");
  ProbeResult r = Run({"instance-layers", "create-instance", "destroy-instance"});
  // The loader asked for the file and was refused (our loader opens it; Debian's asks access() first).
  EXPECT_TRUE(ShimSaw("fopen-denied", denied) || ShimSaw("access-denied", denied)) << ReadFileText(log_path());
  EXPECT_EQ(LayerNames(r), Names{"VK_LAYER_VKT_fs_readable"}) << r.Describe();
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  // A line that names the file (ours: at WARNING, saying why and citing the policy).
  std::vector<std::string> lines = r.LogLines(denied);
  ASSERT_FALSE(lines.empty()) << "no log line names " << denied << "\n" << r.Describe();
  if (LoaderName() == "ours") {
    EXPECT_NE(lines[0].find("WARNING"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("layer manifest " + denied +
                            ": cannot be read (Permission denied); file skipped "
                            "[LLP_LAYER_6]"),
              std::string::npos)
        << lines[0];
  }
}

TEST_F(FsShim, UserDirectoryBelowFakeHomeFound) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  FakeDriver(std::string(kFakeHome) + "/.local/share/vulkan/icd.d", "fshome");
  ProbeResult r = Run({"create-instance", "devices", "destroy-instance"});
  EXPECT_EQ(r.DeviceNames(), Names{"fshome-dev"}) << r.Describe();
}

TEST_F(FsShim, ElevationFakedThroughSecureGetenvHidesUserDirectories) {
  VKT_POLICY("LDP_LOADER_13", "RULE_ENV_ELEVATED");
  FakeDriver(std::string(kFakeHome) + "/.local/share/vulkan/icd.d", "fsuser");
  FakeDriver("/usr/share/vulkan/icd.d", "fssys");
  s_.SetEnv("VKT_FSSHIM_ELEVATED", "1");
  ProbeResult r = Run({"create-instance", "devices", "destroy-instance"});
  // HOME is read through secure_getenv, which the shim answers with NULL: only the system
  // directory's driver is found.
  EXPECT_EQ(r.DeviceNames(), Names{"fssys-dev"}) << r.Describe();
}

TEST_F(FsShim, ElevationFakedHidesDriverEnvironmentVariables) {
  VKT_POLICY("LDP_LOADER_13");
  FakeDriver("/usr/share/vulkan/icd.d", "fssys2");
  AddNamedDriver(s_, "fsenv");
  std::string loose = s_.root() + "/loose/fsenv.json";
  s_.WriteFile(loose, s_.ManifestFor("fsenv").ToJson());
  s_.SetEnv("VK_DRIVER_FILES", loose);
  s_.SetEnv("VKT_FSSHIM_ELEVATED", "1");
  ProbeResult r = Run({"create-instance", "devices", "destroy-instance"});
  EXPECT_EQ(r.DeviceNames(), Names{"fssys2-dev"}) << r.Describe();
  s_.UnsetEnv("VKT_FSSHIM_ELEVATED");
  ProbeResult plain = Run({"create-instance", "devices", "destroy-instance"});
  EXPECT_EQ(plain.DeviceNames(), Names{"fsenv-dev"}) << plain.Describe();
}

// The settings file (docs/settings.md) is found in the fake locations too, and a user location is
// ignored when the process is elevated (as secure_getenv says), a system location is not.
TEST_F(FsShim, SettingsFileInUserLocationIgnoredWhenElevated) {
  VKT_POLICY("RULE_SETTINGS_FILE", "LDP_LOADER_13", "LDP_LOADER_3");
  FakeDriver("/usr/share/vulkan/icd.d", "fsbase");
  AddNamedDriver(s_, "fsextra");
  std::string extra = s_.root() + "/loose/fsextra.json";
  s_.WriteFile(extra, s_.ManifestFor("fsextra").ToJson());
  s_.WriteFile(
      Backing(std::string(kFakeHome) + "/.config/vulkan/loader_settings.d/vk_loader_settings.json"),
      "{\"file_format_version\": \"1.0.0\", \"settings\": {\"additional_drivers\": [{\"path\": \"" + extra + "\"}]}}");
  ProbeResult plain = Run({"create-instance", "devices", "destroy-instance"});
  EXPECT_EQ(Sorted(plain.DeviceNames()), (Names{"fsbase-dev", "fsextra-dev"})) << plain.Describe();
  s_.SetEnv("VKT_FSSHIM_ELEVATED", "1");
  ProbeResult elevated = Run({"create-instance", "devices", "destroy-instance"});
  EXPECT_EQ(elevated.DeviceNames(), Names{"fsbase-dev"}) << elevated.Describe();
}

TEST_F(FsShim, SettingsFileInSystemLocationUsedWhenElevated) {
  VKT_POLICY("RULE_SETTINGS_FILE", "LDP_LOADER_3");
  FakeDriver("/usr/share/vulkan/icd.d", "fsbase2");
  AddNamedDriver(s_, "fsextra2");
  std::string extra = s_.root() + "/loose/fsextra2.json";
  s_.WriteFile(extra, s_.ManifestFor("fsextra2").ToJson());
  s_.WriteFile(
      Backing("/etc/xdg/vulkan/loader_settings.d/vk_loader_settings.json"),
      "{\"file_format_version\": \"1.0.0\", \"settings\": {\"additional_drivers\": [{\"path\": \"" + extra + "\"}]}}");
  s_.SetEnv("VKT_FSSHIM_ELEVATED", "1");
  ProbeResult r = Run({"create-instance", "devices", "destroy-instance"});
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"fsbase2-dev", "fsextra2-dev"})) << r.Describe();
  EXPECT_TRUE(ShimSaw("fopen", "/etc/xdg/vulkan/loader_settings.d/vk_loader_settings.json"))
      << ReadFileText(log_path());
}

// Log lines reach stderr through fputs/fputc (spec §7.11; RULE_LOG_FORMAT), so a framework that
// interposes them (as the shim does here) sees every line the loader writes: each loader line of
// the child's stderr is also in the shim's copy of what passed through those two calls.
TEST_F(FsShim, LoaderLogLinesGoThroughFputsAndFputc) {
  VKT_POLICY("RULE_LOG_FORMAT");
  FakeDriver("/usr/share/vulkan/icd.d", "fslog");
  FakeLayer("/usr/share/vulkan/implicit_layer.d", "VK_LAYER_VKT_fs_log", true);
  std::string copy = s_.root() + "/stderr_copy.txt";
  s_.SetEnv("VKT_FSSHIM_STDERR", copy);
  s_.SetEnv("VK_LOADER_DEBUG", "all");
  ProbeResult r = Run({"create-instance", "devices", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  std::string through = ReadFileText(copy);
  std::vector<std::string> loader_lines;
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);) {
    // ours: "[Vulkan Loader] SEV | CAT: ..."; Khronos 1.3.239: "SEV:  ..." / "SEV | CAT:  ..."
    bool ours = line.rfind("[Vulkan Loader] ", 0) == 0;
    bool older = false;
    for (const char* sev : {"ERROR", "WARNING", "INFO", "DEBUG", "LAYER", "DRIVER"})
      if (line.rfind(std::string(sev) + ":", 0) == 0 || line.rfind(std::string(sev) + " | ", 0) == 0) older = true;
    if (ours || older) loader_lines.push_back(line);
  }
  ASSERT_GE(loader_lines.size(), 5u) << r.err;
  size_t missing = 0;
  for (const std::string& l : loader_lines)
    if (through.find(l + "\n") == std::string::npos) {
      if (++missing <= 3) ADD_FAILURE() << "written to stderr without fputs/fputc: " << l;
    }
  EXPECT_EQ(missing, 0u) << loader_lines.size() << " loader lines";
}

// The settings file in the system locations of the search (spec 7.10, docs/settings.md): with
// XDG_CONFIG_DIRS and XDG_DATA_DIRS unset, the XDG_CONFIG_DIRS fallback (/etc/xdg), then
// SYSCONFDIR (/etc), then the XDG_DATA_DIRS fallbacks (/usr/local/share, then /usr/share), each
// <base>/vulkan/loader_settings.d; the first file found wins. Files are added from the last
// location to the first, and each adds its own driver (manifest outside every search location),
// so the devices show which file was used.
TEST_F(FsShim, SettingsFileInSysconfdirAndDataDirsFallbacksFound) {
  VKT_POLICY("RULE_SETTINGS_FILE", "LDP_LOADER_3", "RULE_ENV_XDG_DATA_DIRS", "RULE_ENV_XDG_CONFIG_DIRS");
  FakeDriver("/usr/share/vulkan/icd.d", "fsbase3");
  const char* const bases[][2] = {
      {"/usr/share", "fsusr"}, {"/usr/local/share", "fslocal"}, {"/etc", "fsetc"}, {"/etc/xdg", "fsxdg"}};
  for (const auto& base : bases) {
    const std::string where = base[0], name = base[1];
    AddNamedDriver(s_, name);
    std::string m = s_.root() + "/loose/" + name + ".json";
    s_.WriteFile(m, s_.ManifestFor(name).ToJson());
    std::string settings = where + "/vulkan/loader_settings.d/vk_loader_settings.json";
    s_.WriteFile(
        Backing(settings),
        "{\"file_format_version\": \"1.0.0\", \"settings\": {\"additional_drivers\": [{\"path\": \"" + m + "\"}]}}");
    ProbeResult r = Run({"create-instance", "devices", "destroy-instance"});
    EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << where << "\n" << r.Describe();
    EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"fsbase3-dev", name + "-dev"})) << where << "\n" << r.Describe();
    EXPECT_TRUE(ShimSaw("fopen", settings)) << where << "\n" << ReadFileText(log_path());
  }
}

// An interposed opendir() that answers for any path under a faked folder (the Khronos loader's own
// test framework matches folders by prefix) must not make the loader take a file for a directory:
// a path the real file system cannot open is asked through fopen() first (docs/architecture.md
// "File access"). Before, the settings file was dropped as "Is a directory" and a manifest reached
// through a symlink (readdir says DT_LNK, so the loader asks what it is) was skipped.
TEST_F(FsShim, OpendirAnsweringForFilesDoesNotHideSettingsFile) {
  VKT_POLICY("RULE_SETTINGS_FILE", "LDP_LOADER_3");
  s_.SetEnv("VKT_FSSHIM_OPENDIR_PREFIX", "1");
  FakeDriver("/usr/share/vulkan/icd.d", "fsbase4");
  AddNamedDriver(s_, "fsextra4");
  std::string extra = s_.root() + "/loose/fsextra4.json";
  s_.WriteFile(extra, s_.ManifestFor("fsextra4").ToJson());
  std::string settings = "/etc/xdg/vulkan/loader_settings.d/vk_loader_settings.json";
  s_.WriteFile(Backing(settings),
               "{\"file_format_version\": \"1.0.0\", \"settings\": {\"additional_drivers\": "
               "[{\"path\": \"" +
                   extra + "\"}]}}");
  s_.SetEnv("VK_LOADER_DEBUG", "all");
  ProbeResult r = Run({"create-instance", "devices", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames()), (Names{"fsbase4-dev", "fsextra4-dev"})) << r.Describe();
  EXPECT_EQ(r.err.find("Is a directory"), std::string::npos) << r.err;
  EXPECT_TRUE(ShimSaw("fopen", settings)) << ReadFileText(log_path());
}

TEST_F(FsShim, OpendirAnsweringForFilesDoesNotHideSymlinkedManifest) {
  VKT_POLICY("LDP_LOADER_2", "RULE_DRV_SEARCH_ORDER");
  s_.SetEnv("VKT_FSSHIM_OPENDIR_PREFIX", "1");
  AddNamedDriver(s_, "fslinked");
  std::string target = s_.root() + "/loose/fslinked.json";
  s_.WriteFile(target, s_.ManifestFor("fslinked").ToJson());
  std::string link = Backing("/usr/share/vulkan/icd.d/fslinked.json");
  MakeDirs(Backing("/usr/share/vulkan/icd.d"));
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0) << link;
  ProbeResult r = Run({"create-instance", "devices", "destroy-instance"});
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"fslinked-dev"}) << r.Describe();
  EXPECT_TRUE(ShimSaw("fopen", "/usr/share/vulkan/icd.d/fslinked.json")) << ReadFileText(log_path());
}

}  // namespace
}  // namespace vkt
