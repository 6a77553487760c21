#include "conformance/framework/sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "gtest/gtest.h"

namespace vkt {
namespace {

constexpr const char* kWorkspace = "vk_loader_harness";
constexpr const char* kSystemLoader = "/usr/lib/x86_64-linux-gnu/libvulkan.so.1";

std::string g_loader_flag;

std::string GetEnv(const char* name) {
  const char* v = getenv(name);
  return v ? v : "";
}

std::string RealPath(const std::string& p) {
  char buf[PATH_MAX];
  if (realpath(p.c_str(), buf) == nullptr) return p;
  return buf;
}

bool Exists(const std::string& p) {
  struct stat st;
  return lstat(p.c_str(), &st) == 0;
}

std::string JsonEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// ---- mount-namespace setup (runs in the forked child only) -----------------------------------

// Writes a diagnostic to fd 2 without allocating.
void ChildSay(const char* what, const char* path) {
  char buf[512];
  int n = snprintf(buf, sizeof buf, "vkt-child: %s %s: %s\n", what, path ? path : "", strerror(errno));
  if (n > 0) (void)!write(2, buf, static_cast<size_t>(n));
}

// Makes `missing` (an absent directory below the existing `parent`) exist inside the private
// namespace without touching the host: a tmpfs is built at `stage` holding bind mounts of every
// entry of `parent` (symlinks recreated) plus the missing path, then moved over `parent`.
bool ShadowParent(const std::string& parent, const std::string& rest, const std::string& stage) {
  if (!MakeDirs(stage)) return ChildSay("mkdir", stage.c_str()), false;
  if (mount("tmpfs", stage.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0)
    return ChildSay("mount tmpfs", stage.c_str()), false;
  DIR* d = opendir(parent.c_str());
  if (d == nullptr) return ChildSay("opendir", parent.c_str()), false;
  bool ok = true;
  while (struct dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    std::string src = parent + "/" + name, dst = stage + "/" + name;
    struct stat st;
    if (lstat(src.c_str(), &st) != 0) continue;
    if (S_ISLNK(st.st_mode)) {
      char target[PATH_MAX];
      ssize_t n = readlink(src.c_str(), target, sizeof target - 1);
      if (n < 0) continue;
      target[n] = '\0';
      if (symlink(target, dst.c_str()) != 0) ok = false;
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      if (mkdir(dst.c_str(), st.st_mode & 07777) != 0) ok = false;
    } else {
      int fd = open(dst.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
      if (fd < 0)
        ok = false;
      else
        close(fd);
    }
    if (ok && mount(src.c_str(), dst.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) {
      ChildSay("bind", src.c_str());
      ok = false;
    }
  }
  closedir(d);
  if (!ok) return false;
  if (!MakeDirs(stage + "/" + rest)) return ChildSay("mkdir", rest.c_str()), false;
  if (mount(stage.c_str(), parent.c_str(), nullptr, MS_MOVE, nullptr) != 0)
    return ChildSay("move", parent.c_str()), false;
  return true;
}

// Private mount namespace; every fixed directory replaced by a bind mount of its sandbox backing.
bool SetupNamespace(const std::string& root) {
  if (unshare(CLONE_NEWNS) != 0) return ChildSay("unshare", nullptr), false;
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) return ChildSay("make-rprivate", "/"), false;
  int stage_index = 0;
  for (const std::string& fixed : FixedSystemDirs()) {
    if (!Exists(fixed)) {
      std::string parent = fixed;
      while (!Exists(parent)) parent = parent.substr(0, parent.rfind('/'));
      if (parent.empty()) return false;
      std::string rest = fixed.substr(parent.size() + 1);
      std::string stage = root + "/mnt/stage" + std::to_string(stage_index++);
      if (!ShadowParent(parent, rest, stage)) return false;
    }
    std::string backing = root + "/sys" + fixed;
    if (!MakeDirs(backing)) return ChildSay("mkdir", backing.c_str()), false;
    if (mount(backing.c_str(), fixed.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
      return ChildSay("bind", fixed.c_str()), false;
  }
  return true;
}

int WaitChild(pid_t pid, int timeout_seconds) {
  int status = 0;
  time_t deadline = time(nullptr) + timeout_seconds;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return -1;
    if (time(nullptr) > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return 128 + SIGKILL;
    }
    struct timespec ts = {0, 5 * 1000 * 1000};
    nanosleep(&ts, nullptr);
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

// ---- environment of the suite ------------------------------------------------------------------

std::string Runfile(const std::string& rel) {
  std::string base = GetEnv("TEST_SRCDIR");
  if (base.empty()) base = GetEnv("RUNFILES_DIR");
  if (base.empty()) {
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
      exe[n] = '\0';
      base = std::string(exe) + ".runfiles";
    }
  }
  std::string ws = GetEnv("TEST_WORKSPACE");
  if (ws.empty()) ws = kWorkspace;
  return base + "/" + ws + "/" + rel;
}

void SetLoaderFromArgs(int* argc, char** argv) {
  int out = 1;
  for (int i = 1; i < *argc; ++i) {
    if (strncmp(argv[i], "--loader=", 9) == 0) {
      g_loader_flag = argv[i] + 9;
    } else {
      argv[out++] = argv[i];
    }
  }
  *argc = out;
  argv[out] = nullptr;
}

std::string LoaderPath() {
  if (!g_loader_flag.empty()) return g_loader_flag;
  std::string env = GetEnv("VKT_LOADER");
  if (!env.empty()) return env;
  return Runfile("loader/libvulkan.so.1");
}

std::string LoaderName() {
  std::string name = GetEnv("VKT_LOADER_NAME");
  if (!name.empty()) return name;
  if (RealPath(LoaderPath()) == RealPath(kSystemLoader)) return "khronos";
  return "ours";
}

std::string ProbePath() { return Runfile("conformance/framework/vkprobe"); }

std::string MockLayerLibrary(const std::string& variant) {
  return Runfile("mock_layers/libmock_layer_" + variant + ".so");
}

std::string MockLibrary(const std::string& variant) { return Runfile("mock_icd/libmock_icd_" + variant + ".so"); }

const std::vector<std::string>& FixedSystemDirs() {
  static const std::vector<std::string> dirs = {"/etc/vulkan", "/etc/xdg/vulkan", "/usr/local/etc/vulkan",
                                                "/usr/share/vulkan", "/usr/local/share/vulkan"};
  return dirs;
}

bool IsFixedLocation(Location loc) {
  switch (loc) {
    case Location::kEtc:
    case Location::kEtcXdg:
    case Location::kUsrLocalEtc:
    case Location::kUsrLocalShare:
    case Location::kUsrShare:
      return true;
    default:
      return false;
  }
}

bool IsolationAvailable(std::string* reason) {
  static int cached = -1;
  static std::string cached_reason;
  if (cached < 0) {
    std::string base = GetEnv("TEST_TMPDIR");
    if (base.empty()) base = "/tmp";
    std::string tmpl = base + "/vkt-isolation-check.XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr) {
      cached = 0;
      cached_reason = "mkdtemp failed";
    } else {
      std::string root = buf.data();
      std::string errfile = root + "/err";
      pid_t pid = fork();
      if (pid == 0) {
        int fd = open(errfile.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) dup2(fd, 2);
        bool ok = SetupNamespace(root);
        // The namespace must hide the host's drivers.
        if (ok) {
          DIR* d = opendir("/usr/share/vulkan");
          if (d == nullptr) ok = false;
          while (ok && d) {
            struct dirent* e = readdir(d);
            if (e == nullptr) break;
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) ok = false;
          }
          if (d) closedir(d);
        }
        _exit(ok ? 0 : 1);
      }
      int rc = pid > 0 ? WaitChild(pid, 30) : -1;
      cached = rc == 0 ? 1 : 0;
      if (!cached) {
        cached_reason = ReadFileText(errfile);
        if (cached_reason.empty()) cached_reason = "child exited with " + std::to_string(rc);
        if (geteuid() != 0) cached_reason += " (not root and no usable user namespace)";
      }
    }
  }
  if (reason) *reason = cached_reason;
  return cached == 1;
}

// ---- files -------------------------------------------------------------------------------------

bool MakeDirs(const std::string& path) {
  if (path.empty()) return false;
  std::string cur;
  size_t pos = 0;
  while (pos != std::string::npos) {
    pos = path.find('/', pos + 1);
    cur = path.substr(0, pos);
    if (cur.empty()) continue;
    if (mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

static bool CopyFile(const std::string& from, const std::string& to, mode_t mode) {
  std::ifstream in(from, std::ios::binary);
  if (!in) return false;
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  out << in.rdbuf();
  out.close();
  return chmod(to.c_str(), mode) == 0;
}

// ---- manifests ---------------------------------------------------------------------------------

std::string ManifestSpec::ToJson() const {
  std::ostringstream o;
  o << "{\n  \"file_format_version\": \"" << JsonEscape(file_format_version) << "\",\n"
    << "  \"ICD\": {\n    \"library_path\": \"" << JsonEscape(library_path) << "\"";
  if (api_version) o << ",\n    \"api_version\": \"" << JsonEscape(*api_version) << "\"";
  if (library_arch) o << ",\n    \"library_arch\": \"" << JsonEscape(*library_arch) << "\"";
  if (is_portability_driver) o << ",\n    \"is_portability_driver\": " << (*is_portability_driver ? "true" : "false");
  o << "\n  }\n}\n";
  return o.str();
}

// ---- Sandbox -----------------------------------------------------------------------------------

Sandbox::Sandbox() {
  std::string base = GetEnv("TEST_TMPDIR");
  if (base.empty()) base = "/tmp";
  std::string name = "vkt";
  if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
    name = std::string(info->test_suite_name()) + "." + info->name();
    for (char& c : name)
      if (c == '/') c = '_';
  }
  std::string tmpl = base + "/" + name + ".XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) throw std::runtime_error("mkdtemp " + tmpl);
  root_ = buf.data();
  chmod(root_.c_str(), 0755);
  for (const char* d : {"/home", "/xdg/config_home", "/xdg/data_home", "/xdg/config_dirs/0", "/xdg/config_dirs/1",
                        "/xdg/data_dirs/0", "/xdg/data_dirs/1", "/drivers", "/loose", "/mnt"})
    MakeDirs(root_ + d);
  for (const std::string& fixed : FixedSystemDirs()) MakeDirs(root_ + "/sys" + fixed);
  env_["HOME"] = home();
  env_["XDG_CONFIG_HOME"] = xdg_config_home();
  env_["XDG_CONFIG_DIRS"] = xdg_config_dir(0) + ":" + xdg_config_dir(1);
  env_["XDG_DATA_HOME"] = xdg_data_home();
  env_["XDG_DATA_DIRS"] = xdg_data_dir(0) + ":" + xdg_data_dir(1);
  env_["VK_LOADER_DEBUG"] = "all";
}

Sandbox::~Sandbox() = default;  // $TEST_TMPDIR is cleaned by Bazel; kept for post-mortems.

std::string Sandbox::xdg_config_dir(int i) const { return root_ + "/xdg/config_dirs/" + std::to_string(i); }
std::string Sandbox::xdg_data_dir(int i) const { return root_ + "/xdg/data_dirs/" + std::to_string(i); }

std::string Sandbox::SystemBacking(const std::string& fixed_path) const { return root_ + "/sys" + fixed_path; }

std::string Sandbox::IcdDir(Location loc, int index) {
  std::string dir;
  switch (loc) {
    case Location::kXdgConfigHome:
      dir = xdg_config_home() + "/vulkan/icd.d";
      break;
    case Location::kHomeConfig:
      dir = home() + "/.config/vulkan/icd.d";
      break;
    case Location::kXdgConfigDirs:
      dir = xdg_config_dir(index) + "/vulkan/icd.d";
      break;
    case Location::kXdgDataHome:
      dir = xdg_data_home() + "/vulkan/icd.d";
      break;
    case Location::kHomeLocalShare:
      dir = home() + "/.local/share/vulkan/icd.d";
      break;
    case Location::kXdgDataDirs:
      dir = xdg_data_dir(index) + "/vulkan/icd.d";
      break;
    case Location::kEtc:
      dir = "/etc/vulkan/icd.d";
      break;
    case Location::kEtcXdg:
      dir = "/etc/xdg/vulkan/icd.d";
      break;
    case Location::kUsrLocalEtc:
      dir = "/usr/local/etc/vulkan/icd.d";
      break;
    case Location::kUsrLocalShare:
      dir = "/usr/local/share/vulkan/icd.d";
      break;
    case Location::kUsrShare:
      dir = "/usr/share/vulkan/icd.d";
      break;
    case Location::kLoose:
      dir = root_ + "/loose";
      break;
  }
  if (IsFixedLocation(loc)) {
    uses_fixed_dirs_ = true;
    MakeDirs(SystemBacking(dir));
  } else {
    MakeDirs(dir);
  }
  return dir;
}

const Driver& Sandbox::AddDriver(const std::string& name, const std::string& variant,
                                 const std::string& scenario_json) {
  Driver d;
  d.name = name;
  d.variant = variant;
  d.dir = root_ + "/drivers/" + name;
  d.library = d.dir + "/libmock_icd_" + variant + ".so";
  d.calls = d.library + ".calls";
  d.scenario = d.library + ".scenario";
  MakeDirs(d.dir);
  std::string src = MockLibrary(variant);
  if (!CopyFile(src, d.library, 0755)) throw std::runtime_error("cannot copy " + src);
  drivers_.push_back(d);
  if (!scenario_json.empty()) SetScenario(name, scenario_json);
  return drivers_.back();
}

const Driver& Sandbox::driver(const std::string& name) const {
  for (const Driver& d : drivers_)
    if (d.name == name) return d;
  throw std::runtime_error("no driver " + name);
}

void Sandbox::SetScenario(const std::string& name, const std::string& scenario_json) {
  WriteFile(driver(name).scenario, scenario_json);
}

ManifestSpec Sandbox::ManifestFor(const std::string& driver_name) const {
  ManifestSpec spec;
  spec.library_path = driver(driver_name).library;
  return spec;
}

void Sandbox::WriteFile(const std::string& path, const std::string& text) const {
  size_t slash = path.rfind('/');
  if (slash != std::string::npos) MakeDirs(path.substr(0, slash));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

std::string Sandbox::WriteManifest(Location loc, const std::string& file_name, const std::string& json_text,
                                   int index) {
  std::string dir = IcdDir(loc, index);
  std::string path = dir + "/" + file_name;
  WriteFile(IsFixedLocation(loc) ? SystemBacking(path) : path, json_text);
  return path;
}

std::string Sandbox::WriteDriverManifest(Location loc, const std::string& driver_name, int index) {
  return WriteManifest(loc, driver_name + ".json", ManifestFor(driver_name).ToJson(), index);
}

std::vector<Json> Sandbox::Calls(const std::string& driver_name) const {
  std::vector<Json> out;
  std::istringstream in(ReadFileText(driver(driver_name).calls));
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    out.push_back(Json::Parse(line));
  }
  return out;
}

std::vector<Json> Sandbox::CallsTo(const std::string& driver_name, const std::string& call) const {
  std::vector<Json> out;
  for (const Json& j : Calls(driver_name))
    if (j["call"].str() == call) out.push_back(j);
  return out;
}

bool Sandbox::WasLoaded(const std::string& driver_name) const { return !Calls(driver_name).empty(); }

// ---- layers ------------------------------------------------------------------------------------

std::string Sandbox::LayerDir(Location loc, bool implicit, int index) {
  const std::string sub = implicit ? "implicit_layer.d" : "explicit_layer.d";
  std::string dir = IcdDir(loc, index);  // creates the location's icd.d (harmless)
  if (loc == Location::kLoose) {
    dir += "/" + sub;
  } else {
    dir = dir.substr(0, dir.rfind('/')) + "/" + sub;
  }
  MakeDirs(IsFixedLocation(loc) ? SystemBacking(dir) : dir);
  return dir;
}

const Layer& Sandbox::AddLayer(const std::string& layer_name, const std::string& variant,
                               const std::string& scenario_members) {
  Layer l;
  l.name = layer_name;
  l.variant = variant;
  l.dir = root_ + "/layers/" + layer_name;
  l.library = l.dir + "/libmock_layer_" + variant + ".so";
  l.scenario = l.library + ".scenario";
  MakeDirs(l.dir);
  std::string src = MockLayerLibrary(variant);
  if (!CopyFile(src, l.library, 0755)) throw std::runtime_error("cannot copy " + src);
  WriteFile(l.scenario, "{\"name\":\"" + layer_name + "\",\"calls_file\":\"" + LayerCallsFile() + "\"" +
                            (scenario_members.empty() ? "" : "," + scenario_members) + "}");
  layers_.push_back(l);
  return layers_.back();
}

const Layer& Sandbox::layer(const std::string& layer_name) const {
  for (const Layer& l : layers_)
    if (l.name == layer_name) return l;
  throw std::runtime_error("no layer " + layer_name);
}

std::string Sandbox::WriteLayerManifest(Location loc, bool implicit, const std::string& file_name,
                                        const std::string& json_text, int index) {
  std::string path = LayerDir(loc, implicit, index) + "/" + file_name;
  WriteFile(IsFixedLocation(loc) ? SystemBacking(path) : path, json_text);
  return path;
}

std::vector<Json> Sandbox::LayerCalls() const {
  std::vector<Json> out;
  std::istringstream in(ReadFileText(LayerCallsFile()));
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(Json::Parse(line));
  return out;
}

std::vector<std::string> Sandbox::LayerCallOrder(const std::string& call) const {
  std::vector<std::string> out;
  for (const Json& j : LayerCalls())
    if (j["call"].str() == call) out.push_back(j["layer"].str());
  return out;
}

// ---- ProbeResult -------------------------------------------------------------------------------

Json ProbeResult::Step(const std::string& step, size_t nth) const {
  for (const Json& j : lines)
    if (j["step"].str() == step && nth-- == 0) return j;
  return Json();
}

std::vector<Json> ProbeResult::Steps(const std::string& step) const {
  std::vector<Json> out;
  for (const Json& j : lines)
    if (j["step"].str() == step) out.push_back(j);
  return out;
}

std::vector<std::string> ProbeResult::Messages(const std::string& source) const {
  std::vector<std::string> out;
  Json m = Step("messages")["messages"];
  for (size_t i = 0; i < m.size(); ++i)
    if (source.empty() || m[i]["source"].str() == source) out.push_back(m[i]["text"].str());
  return out;
}

bool ProbeResult::MessagesContain(const std::string& needle, const std::string& source) const {
  for (const std::string& m : Messages(source))
    if (m.find(needle) != std::string::npos) return true;
  return false;
}

bool ProbeResult::LogContains(const std::string& needle) const { return err.find(needle) != std::string::npos; }

std::vector<std::string> ProbeResult::LogLines(const std::string& needle) const {
  std::vector<std::string> out;
  for (size_t start = 0; start < err.size();) {
    size_t eol = err.find('\n', start);
    if (eol == std::string::npos) eol = err.size();
    std::string line = err.substr(start, eol - start);
    if (line.find(needle) != std::string::npos) out.push_back(line);
    start = eol + 1;
  }
  return out;
}

std::vector<std::string> ProbeResult::DeviceNames(size_t nth) const {
  std::vector<std::string> out;
  Json d = Step("devices", nth)["devices"];
  for (size_t i = 0; i < d.size(); ++i) out.push_back(d[i]["name"].str());
  return out;
}

std::string ProbeResult::Describe() const {
  std::ostringstream o;
  o << "exit " << exit_status << (isolated ? " (isolated)" : " (not isolated)") << "\n--- stdout\n" << out;
  std::string tail = err.size() > 6000 ? "...\n" + err.substr(err.size() - 6000) : err;
  o << "--- stderr (tail)\n" << tail;
  return o.str();
}

// ---- RunProbe ----------------------------------------------------------------------------------

ProbeResult RunProbe(const Sandbox& sandbox, const std::vector<std::string>& steps, const ProbeOptions& options) {
  static int counter = 0;
  ProbeResult result;
  std::string tag = sandbox.root() + "/probe" + std::to_string(counter++);
  std::string out_path = tag + ".out", err_path = tag + ".err";

  std::vector<std::string> args = {options.probe.empty() ? ProbePath() : options.probe,
                                   "--loader=" + (options.loader.empty() ? LoaderPath() : options.loader)};
  if (options.driver_libs.empty()) {
    for (const Driver& d : sandbox.drivers()) args.push_back("--driver-lib=" + d.library);
  } else {
    for (const std::string& l : options.driver_libs) args.push_back("--driver-lib=" + l);
  }
  args.insert(args.end(), steps.begin(), steps.end());

  std::vector<std::string> env;
  for (const auto& kv : sandbox.env()) env.push_back(kv.first + "=" + kv.second);
  // Sanitizer runtime options are not Vulkan state: pass them through.
  for (const char* v : {"ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS"})
    if (getenv(v) && !sandbox.env().count(v)) env.push_back(std::string(v) + "=" + getenv(v));

  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  bool isolate = options.isolate && IsolationAvailable();
  result.isolated = isolate;
  std::string cwd = options.cwd.empty() ? sandbox.root() : options.cwd;
  std::string root = sandbox.root();

  fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    result.err = "fork failed";
    return result;
  }
  if (pid == 0) {
    int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0 || err < 0) _exit(120);
    dup2(out, 1);
    dup2(err, 2);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    if (isolate && !SetupNamespace(root)) _exit(121);
    if (chdir(cwd.c_str()) != 0) _exit(122);
    if (options.gid) {
      if (setgroups(0, nullptr) != 0 || setgid(*options.gid) != 0) {
        ChildSay("setgid", nullptr);
        _exit(123);
      }
    }
    if (options.uid && setuid(*options.uid) != 0) {
      ChildSay("setuid", nullptr);
      _exit(124);
    }
    execve(argv[0], argv.data(), envp.data());
    ChildSay("execve", argv[0]);
    _exit(125);
  }
  result.exit_status = WaitChild(pid, options.timeout_seconds);
  result.out = ReadFileText(out_path);
  result.err = ReadFileText(err_path);
  // Under --config=asan/ubsan/tsan the probe (and our loader) are instrumented: a sanitizer report in
  // the child is a failure of the test even when the steps' results look right (most tests do not
  // look at the exit status or stderr).
  for (const char* marker :
       {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "SUMMARY: UndefinedBehaviorSanitizer",
        "WARNING: ThreadSanitizer", "FATAL: ThreadSanitizer", "Sanitizer has encountered a fatal error"}) {
    size_t at = result.err.find(marker);
    if (at == std::string::npos) continue;
    size_t from = result.err.rfind("=================", at);
    ADD_FAILURE() << "sanitizer report from the probe (" << err_path << "):\n"
                  << result.err.substr(from == std::string::npos ? at : from, 8000);
    break;
  }
  std::istringstream in(result.out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    result.lines.push_back(Json::Parse(line));
  }
  return result;
}

}  // namespace vkt
