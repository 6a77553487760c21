#include "conformance/framework/elevated.h"

#include <ftw.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <mutex>

#include "conformance/framework/sandbox.h"

namespace vkt {
namespace {

int RemoveEntry(const char* path, const struct stat*, int, struct FTW*) { return remove(path); }

bool NoNewPrivs() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("NoNewPrivs:", 0) == 0) return line.find('1') != std::string::npos;
  return false;
}

// Whether this process may become uid/gid 65534 (not inside a user namespace that maps only root,
// as Bazel's linux-sandbox sets up).
bool CanSwitchUid() {
  pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    bool ok = setgroups(0, nullptr) == 0 && setgid(kNogroupGid) == 0 && setuid(kNobodyUid) == 0;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int RunSetcap(const std::string& file) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const char* setcap = access("/sbin/setcap", X_OK) == 0 ? "/sbin/setcap" : "/usr/sbin/setcap";
    execl(setcap, setcap, "cap_net_raw+ep", file.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string PrivilegeName(Privilege p) {
  switch (p) {
    case Privilege::kNormal:
      return "normal";
    case Privilege::kSetuid:
      return "setuid";
    case Privilege::kSetgid:
      return "setgid";
    case Privilege::kFileCaps:
      return "setcap";
  }
  return "?";
}

bool CopyFileMode(const std::string& from, const std::string& to, mode_t mode) {
  {
    std::ifstream in(from, std::ios::binary);
    std::ofstream out(to, std::ios::binary | std::ios::trunc);
    if (!in || !out) return false;
    out << in.rdbuf();
    if (!out) return false;
  }
  return chmod(to.c_str(), mode) == 0;
}

PublicDir::PublicDir() {
  char tmpl[] = "/tmp/vkt-elevated.XXXXXX";
  if (mkdtemp(tmpl) != nullptr) {
    path_ = tmpl;
    chmod(path_.c_str(), 0755);
  }
}

PublicDir::~PublicDir() {
  if (!path_.empty()) nftw(path_.c_str(), RemoveEntry, 16, FTW_DEPTH | FTW_PHYS);
}

std::string ElevationUnavailableReason() {
  static std::once_flag once;
  static std::string reason;
  std::call_once(once, [] {
    if (geteuid() != 0) {
      reason = "needs root to create a set-uid/set-gid/capable probe";
    } else if (!CanSwitchUid()) {
      reason =
          "cannot switch to uid 65534 (a user namespace mapping only root, e.g. Bazel's "
          "linux-sandbox: such targets are tagged no-sandbox)";
    } else if (NoNewPrivs()) {
      reason = "no_new_privs is set: the kernel would ignore the privilege bits";
    } else {
      struct statvfs fs;
      if (statvfs("/tmp", &fs) != 0)
        reason = "cannot statvfs /tmp";
      else if (fs.f_flag & ST_NOSUID)
        reason = "/tmp is mounted nosuid";
    }
  });
  return reason;
}

std::string MakeProbeCopy(const std::string& dir, Privilege p, std::string* error) {
  const std::string probe = dir + "/vkprobe-" + PrivilegeName(p);
  if (!CopyFileMode(ProbePath(), probe, 0755)) {
    *error = "cannot copy vkprobe to " + probe;
    return "";
  }
  if (chown(probe.c_str(), 0, 0) != 0) {
    *error = "chown root " + probe + " failed";
    return "";
  }
  int rc = 0;
  switch (p) {
    case Privilege::kNormal:
      break;
    case Privilege::kSetuid:
      rc = chmod(probe.c_str(), 04755);
      break;
    case Privilege::kSetgid:
      rc = chmod(probe.c_str(), 02755);
      break;
    case Privilege::kFileCaps:
      rc = RunSetcap(probe);
      break;
  }
  if (rc != 0) {
    *error = "cannot make " + probe + " " + PrivilegeName(p) + " (status " + std::to_string(rc) + ")";
    return "";
  }
  return probe;
}

bool MakeElevatedProbes(const std::string& dir, ElevatedProbes* out, std::string* error) {
  out->setuid_probe = MakeProbeCopy(dir, Privilege::kSetuid, error);
  if (out->setuid_probe.empty()) return false;
  out->plain_probe = MakeProbeCopy(dir, Privilege::kNormal, error);
  if (out->plain_probe.empty()) return false;
  out->loader = dir + "/libvulkan.so.1";
  if (!CopyFileMode(LoaderPath(), out->loader, 0755)) {
    *error = "cannot copy the loader to " + out->loader;
    return false;
  }
  return true;
}

}  // namespace vkt
