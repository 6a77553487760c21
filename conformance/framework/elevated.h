// Elevated privilege for real: helpers that make a copy of vkprobe set-uid root, set-gid root or
// file-capable and run it as an unprivileged user, so the kernel sets AT_SECURE for it.
// Used by conformance/loader/elevated and conformance/loader/matrix (README.md, "Elevated privilege").
#ifndef VKT_FRAMEWORK_ELEVATED_H_
#define VKT_FRAMEWORK_ELEVATED_H_

#include <sys/types.h>

#include <string>

namespace vkt {

constexpr uid_t kNobodyUid = 65534;
constexpr gid_t kNogroupGid = 65534;

enum class Privilege { kNormal, kSetuid, kSetgid, kFileCaps };
// "normal", "setuid", "setgid", "setcap".
std::string PrivilegeName(Privilege p);

// Copies a file and sets its mode; false on any error.
bool CopyFileMode(const std::string& from, const std::string& to, mode_t mode);

// A world-traversable scratch directory /tmp/vkt-elevated.XXXXXX (mode 0755), removed with its
// contents on destruction. $TEST_TMPDIR lies below /root (0700), which uid 65534 cannot traverse.
class PublicDir {
 public:
  PublicDir();
  ~PublicDir();
  PublicDir(const PublicDir&) = delete;
  PublicDir& operator=(const PublicDir&) = delete;
  const std::string& path() const { return path_; }  // empty when mkdtemp failed

 private:
  std::string path_;
};

// Empty when this process can run a privileged probe as uid/gid 65534 and get AT_SECURE; otherwise
// the reason (not root, cannot switch uid, no_new_privs, /tmp nosuid). Cached.
std::string ElevationUnavailableReason();

// Copies vkprobe to <dir>/vkprobe-<PrivilegeName(p)>, owned by root, and applies the privilege
// (04755, 02755, `setcap cap_net_raw+ep`; kNormal: a plain 0755 copy). Returns the path, or an
// empty string with `error` set.
std::string MakeProbeCopy(const std::string& dir, Privilege p, std::string* error);

// What a real set-uid run needs in the public directory `dir`: a set-uid probe, a plain probe (the
// control run) and a copy of the loader under test (<dir>/libvulkan.so.1). False with `error` set
// when one of them cannot be made.
struct ElevatedProbes {
  std::string setuid_probe, plain_probe, loader;
};
bool MakeElevatedProbes(const std::string& dir, ElevatedProbes* out, std::string* error);

}  // namespace vkt

#endif  // VKT_FRAMEWORK_ELEVATED_H_
