// Elevated privilege for real: vkprobe made set-uid / set-gid / file-capable and run by an
// unprivileged uid, so the kernel sets AT_SECURE. User-controlled paths must then be ignored.
//
// Everything the unprivileged process must reach (probe, loader, mock copies, manifests) is copied
// into a fresh mkdtemp directory under /tmp with mode 0755: $TEST_TMPDIR lives below /root (0700),
// which uid 65534 cannot traverse. The directory is removed at the end of the test.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "conformance/framework/elevated.h"
#include "conformance/loader/common.h"

namespace vkt {
namespace {

// Parameter names as before ("filecaps" rather than the framework's "setcap").
std::string ParamName(Privilege p) { return p == Privilege::kFileCaps ? "filecaps" : PrivilegeName(p); }

class ElevatedPrivilege : public ::testing::TestWithParam<Privilege> {};

TEST_P(ElevatedPrivilege, UserPathsIgnored) {
  VKT_POLICY("LDP_LOADER_13", "RULE_ENV_ELEVATED", "RULE_DRV_ENV_DRIVER_FILES_OVERRIDE",
             "RULE_DRV_ENV_ADD_DRIVER_FILES", "RULE_DRV_SEARCH_ORDER");
  const std::string unavailable = ElevationUnavailableReason();
  if (!unavailable.empty()) GTEST_SKIP() << unavailable;
  PublicDir pub;
  ASSERT_FALSE(pub.path().empty()) << "mkdtemp under /tmp failed";
  const Privilege mode = GetParam();
  const std::string dir = pub.path();

  // Probe copies: one privileged, one plain (the control run).
  std::string error;
  const std::string probe = MakeProbeCopy(dir, mode, &error);
  if (probe.empty() && mode == Privilege::kFileCaps) GTEST_SKIP() << error;
  ASSERT_FALSE(probe.empty()) << error;
  const std::string plain = dir + "/vkprobe-plain";
  ASSERT_TRUE(CopyFileMode(ProbePath(), plain, 0755));
  const std::string loader = dir + "/libvulkan.so.1";
  ASSERT_TRUE(CopyFileMode(LoaderPath(), loader, 0755));

  // Sandbox for the environment, fixed directories and stdout/stderr; the drivers and manifests
  // themselves live in the public directory.
  Sandbox s;
  std::vector<std::string> libs;
  auto add_driver = [&](const std::string& name) {
    std::string d = dir + "/drivers/" + name;
    MakeDirs(d);
    chmod(d.c_str(), 0777);  // the unprivileged process appends its .calls records here
    std::string lib = d + "/libmock_icd_v7_exports.so";
    EXPECT_TRUE(CopyFileMode(MockLibrary("v7_exports"), lib, 0755));
    std::ofstream(lib + ".scenario") << DeviceScenario({name + "-dev"});
    libs.push_back(lib);
    std::string manifest = dir + "/manifests/" + name + "/" + name + ".json";
    MakeDirs(dir + "/manifests/" + name);
    ManifestSpec m;
    m.library_path = lib;
    std::ofstream(manifest) << m.ToJson();
    return manifest;
  };
  auto loaded = [&](const std::string& name) {
    return !ReadFileText(dir + "/drivers/" + name + "/libmock_icd_v7_exports.so.calls").empty();
  };
  auto clear_calls = [&]() {
    for (const char* n : {"files", "add", "xdg", "system"})
      unlink((dir + "/drivers/" + n + "/libmock_icd_v7_exports.so.calls").c_str());
  };
  s.SetEnv("VK_DRIVER_FILES", add_driver("files"));
  s.SetEnv("VK_ADD_DRIVER_FILES", add_driver("add"));
  std::string xdg_manifest = add_driver("xdg");
  std::string xdg_home = dir + "/xdg_config_home";
  MakeDirs(xdg_home + "/vulkan/icd.d");
  ASSERT_TRUE(CopyFileMode(xdg_manifest, xdg_home + "/vulkan/icd.d/xdg.json", 0644));
  s.SetEnv("XDG_CONFIG_HOME", xdg_home);
  s.SetEnv("HOME", dir);
  bool isolated = IsolationAvailable();
  if (isolated) {
    // A system driver, which elevated processes still load (positive control).
    std::string sys_manifest = add_driver("system");
    s.WriteManifest(Location::kUsrShare, "system.json", ReadFileText(sys_manifest));
  }

  ProbeOptions o;
  o.uid = kNobodyUid;
  o.gid = kNogroupGid;
  o.loader = loader;
  o.cwd = dir;
  o.driver_libs = libs;
  const std::vector<std::string> steps = {"env-dump", "create-instance", "devices", "destroy-instance"};

  // Control: the same run without privilege bits honours VK_DRIVER_FILES.
  o.probe = plain;
  ProbeResult control = RunProbe(s, steps, o);
  ASSERT_EQ(control.Step("env-dump")["at_secure"].num(), 0) << control.Describe();
  ASSERT_EQ(control.DeviceNames(), std::vector<std::string>{"files-dev"}) << control.Describe();
  clear_calls();

  o.probe = probe;
  ProbeResult r = RunProbe(s, steps, o);
  Json env = r.Step("env-dump");
  ASSERT_EQ(env["at_secure"].num(), 1) << "the kernel did not set AT_SECURE\n" << r.Describe();
  EXPECT_EQ(env["uid"].num(), kNobodyUid);
  EXPECT_FALSE(loaded("files")) << "VK_DRIVER_FILES honoured while elevated\n" << r.Describe();
  EXPECT_FALSE(loaded("add")) << "VK_ADD_DRIVER_FILES honoured while elevated\n" << r.Describe();
  EXPECT_FALSE(loaded("xdg")) << "XDG_CONFIG_HOME honoured while elevated\n" << r.Describe();
  if (isolated) {
    EXPECT_EQ(r.DeviceNames(), std::vector<std::string>{"system-dev"}) << r.Describe();
  } else {
    std::printf("[   VKT    ] no mount namespace: system-directory control not run\n");
  }
}

INSTANTIATE_TEST_SUITE_P(Probe, ElevatedPrivilege,
                         ::testing::Values(Privilege::kSetuid, Privilege::kSetgid, Privilege::kFileCaps),
                         [](const ::testing::TestParamInfo<Privilege>& i) { return ParamName(i.param); });

}  // namespace
}  // namespace vkt
