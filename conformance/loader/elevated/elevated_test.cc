// Elevated privilege for real: vkprobe made set-uid / set-gid / file-capable and run by an
// unprivileged uid, so the kernel sets AT_SECURE. User-controlled paths must then be ignored.
//
// Everything the unprivileged process must reach (probe, loader, mock copies, manifests) is copied
// into a fresh mkdtemp directory under /tmp with mode 0755: $TEST_TMPDIR lives below /root (0700),
// which uid 65534 cannot traverse. The directory is removed at the end of the test.
#include <ftw.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

constexpr uid_t kNobody = 65534;
constexpr gid_t kNogroup = 65534;

enum class Mode { kSetuid, kSetgid, kFileCaps };

std::string ModeName(Mode m) {
  switch (m) {
    case Mode::kSetuid: return "setuid";
    case Mode::kSetgid: return "setgid";
    case Mode::kFileCaps: return "filecaps";
  }
  return "?";
}

bool Copy(const std::string& from, const std::string& to, mode_t mode) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  if (!in || !out) return false;
  out << in.rdbuf();
  out.close();
  return chmod(to.c_str(), mode) == 0;
}

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) { return remove(path); }

// A world-traversable scratch directory under /tmp, removed on destruction.
class PublicDir {
 public:
  PublicDir() {
    char tmpl[] = "/tmp/vkt-elevated.XXXXXX";
    if (mkdtemp(tmpl) != nullptr) {
      path_ = tmpl;
      chmod(path_.c_str(), 0755);
    }
  }
  ~PublicDir() {
    if (!path_.empty()) nftw(path_.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

bool NoNewPrivs() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("NoNewPrivs:", 0) == 0) return line.find('1') != std::string::npos;
  return false;
}

int RunSetcap(const std::string& file) {
  pid_t pid = fork();
  if (pid == 0) {
    const char* setcap = access("/sbin/setcap", X_OK) == 0 ? "/sbin/setcap" : "/usr/sbin/setcap";
    execl(setcap, setcap, "cap_net_raw+ep", file.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Whether this process may become uid/gid 65534 (not inside a user namespace that maps only
// root, as Bazel's linux-sandbox sets up).
bool CanSwitchUid() {
  pid_t pid = fork();
  if (pid == 0) {
    bool ok = setgroups(0, nullptr) == 0 && setgid(kNogroup) == 0 && setuid(kNobody) == 0;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

class ElevatedPrivilege : public ::testing::TestWithParam<Mode> {};

TEST_P(ElevatedPrivilege, UserPathsIgnored) {
  VKT_POLICY("LDP_LOADER_13", "RULE_ENV_ELEVATED", "RULE_DRV_ENV_DRIVER_FILES_OVERRIDE",
             "RULE_DRV_ENV_ADD_DRIVER_FILES", "RULE_DRV_SEARCH_ORDER");
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create a set-uid/set-gid/capable probe";
  if (!CanSwitchUid())
    GTEST_SKIP() << "cannot switch to uid 65534 (a user namespace mapping only root, e.g. Bazel's "
                    "linux-sandbox: the target is tagged no-sandbox for that reason)";
  if (NoNewPrivs()) GTEST_SKIP() << "no_new_privs is set: the kernel would ignore the privilege bits";
  PublicDir pub;
  ASSERT_FALSE(pub.path().empty()) << "mkdtemp under /tmp failed";
  struct statvfs fs;
  ASSERT_EQ(statvfs(pub.path().c_str(), &fs), 0);
  if (fs.f_flag & ST_NOSUID) GTEST_SKIP() << "/tmp is mounted nosuid";
  const Mode mode = GetParam();
  const std::string dir = pub.path();

  // Probe copies: one privileged, one plain (the control run).
  const std::string probe = dir + "/vkprobe-" + ModeName(mode), plain = dir + "/vkprobe-plain";
  ASSERT_TRUE(Copy(ProbePath(), probe, 0755));
  ASSERT_TRUE(Copy(ProbePath(), plain, 0755));
  ASSERT_EQ(chown(probe.c_str(), 0, 0), 0);
  if (mode == Mode::kSetuid) {
    ASSERT_EQ(chmod(probe.c_str(), 04755), 0);
  } else if (mode == Mode::kSetgid) {
    ASSERT_EQ(chmod(probe.c_str(), 02755), 0);
  } else {
    int rc = RunSetcap(probe);
    if (rc != 0) GTEST_SKIP() << "setcap cap_net_raw+ep failed (exit " << rc << ")";
  }
  const std::string loader = dir + "/libvulkan.so.1";
  ASSERT_TRUE(Copy(LoaderPath(), loader, 0755));

  // Sandbox for the environment, fixed directories and stdout/stderr; the drivers and manifests
  // themselves live in the public directory.
  Sandbox s;
  std::vector<std::string> libs;
  auto add_driver = [&](const std::string& name) {
    std::string d = dir + "/drivers/" + name;
    MakeDirs(d);
    chmod(d.c_str(), 0777);  // the unprivileged process appends its .calls records here
    std::string lib = d + "/libmock_icd_v7_exports.so";
    EXPECT_TRUE(Copy(MockLibrary("v7_exports"), lib, 0755));
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
  ASSERT_TRUE(Copy(xdg_manifest, xdg_home + "/vulkan/icd.d/xdg.json", 0644));
  s.SetEnv("XDG_CONFIG_HOME", xdg_home);
  s.SetEnv("HOME", dir);
  bool isolated = IsolationAvailable();
  if (isolated) {
    // A system driver, which elevated processes still load (positive control).
    std::string sys_manifest = add_driver("system");
    s.WriteManifest(Location::kUsrShare, "system.json", ReadFileText(sys_manifest));
  }

  ProbeOptions o;
  o.uid = kNobody;
  o.gid = kNogroup;
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
  EXPECT_EQ(env["uid"].num(), kNobody);
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
                         ::testing::Values(Mode::kSetuid, Mode::kSetgid, Mode::kFileCaps),
                         [](const ::testing::TestParamInfo<Mode>& i) { return ModeName(i.param); });

}  // namespace
}  // namespace vkt
