// Per-test sandboxes and the vkprobe runner of the loader-agnostic conformance suite.
// README.md in this directory describes the layout and the isolation model.
#ifndef VKT_FRAMEWORK_SANDBOX_H_
#define VKT_FRAMEWORK_SANDBOX_H_

#include <sys/types.h>

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "conformance/framework/json.h"

namespace vkt {

// ---- the environment of the suite ------------------------------------------------------------

// Path of a file in this workspace's runfiles (e.g. "mock_icd/libmock_icd_v7.so").
std::string Runfile(const std::string& workspace_relative);
// The loader under test: --loader=PATH (see SetLoaderFromArgs), else $VKT_LOADER, else our
// //loader:libvulkan.so.1 from the runfiles.
std::string LoaderPath();
// "khronos" when $VKT_LOADER_NAME says so or LoaderPath() resolves to Debian's system loader;
// $VKT_LOADER_NAME when set; "ours" otherwise.
std::string LoaderName();
// vkprobe from the runfiles.
std::string ProbePath();
// Path of //mock_icd:libmock_icd_<variant>.so in the runfiles.
std::string MockLibrary(const std::string& variant);
// Path of //mock_layers:libmock_layer_<variant>.so in the runfiles (the test target must list
// //mock_layers:all_variants in its data).
std::string MockLayerLibrary(const std::string& variant);
// Consumes --loader=PATH from argv (called by the suite's main before gtest sees the flags).
void SetLoaderFromArgs(int* argc, char** argv);

// Whether a child can get a private mount namespace with the fixed system Vulkan directories
// replaced (cached; `reason` says why not).
bool IsolationAvailable(std::string* reason = nullptr);

// The fixed directories the child's mount namespace replaces with sandbox directories.
const std::vector<std::string>& FixedSystemDirs();

// Where a driver manifest can be put.
enum class Location {
  kXdgConfigHome,   // $XDG_CONFIG_HOME/vulkan/icd.d
  kHomeConfig,      // $HOME/.config/vulkan/icd.d
  kXdgConfigDirs,   // <XDG_CONFIG_DIRS entry `index`>/vulkan/icd.d
  kXdgDataHome,     // $XDG_DATA_HOME/vulkan/icd.d
  kHomeLocalShare,  // $HOME/.local/share/vulkan/icd.d
  kXdgDataDirs,     // <XDG_DATA_DIRS entry `index`>/vulkan/icd.d
  kEtc,             // /etc/vulkan/icd.d             (SYSCONFDIR of Debian's build; needs isolation)
  kEtcXdg,          // /etc/xdg/vulkan/icd.d         (XDG_CONFIG_DIRS fallback; needs isolation)
  kUsrLocalEtc,     // /usr/local/etc/vulkan/icd.d   (CMake's default SYSCONFDIR; needs isolation)
  kUsrLocalShare,   // /usr/local/share/vulkan/icd.d (XDG_DATA_DIRS fallback; needs isolation)
  kUsrShare,        // /usr/share/vulkan/icd.d       (XDG_DATA_DIRS fallback; needs isolation)
  kLoose,           // <sandbox>/loose/ (for VK_DRIVER_FILES & co.)
};
bool IsFixedLocation(Location loc);

// Driver manifest builder (file format 1.0.0 / 1.0.1).
struct ManifestSpec {
  std::string file_format_version = "1.0.0";
  std::string library_path;                          // absolute, relative or bare
  std::optional<std::string> api_version = "1.3.0";  // nullopt: key left out
  std::optional<std::string> library_arch;           // 1.0.1
  std::optional<bool> is_portability_driver;         // 1.0.1
  std::string ToJson() const;
};

struct Driver {
  std::string name;
  std::string variant;
  std::string dir;       // <sandbox>/drivers/<name>
  std::string library;   // <dir>/libmock_icd_<variant>.so (a copy)
  std::string calls;     // <library>.calls
  std::string scenario;  // <library>.scenario
};

// A mock layer copied into the sandbox (mock_layers/README.md).
struct Layer {
  std::string name;  // the layer name (also the mock's record name)
  std::string variant;
  std::string dir;       // <sandbox>/layers/<name>
  std::string library;   // <dir>/libmock_layer_<variant>.so (a copy)
  std::string scenario;  // <library>.scenario
};

struct ProbeOptions {
  bool isolate = true;       // private mount namespace when available
  std::optional<uid_t> uid;  // drop to this uid/gid before exec (elevated tests)
  std::optional<gid_t> gid;
  std::string probe;                     // default ProbePath()
  std::string loader;                    // default LoaderPath()
  std::string cwd;                       // default the sandbox root
  std::vector<std::string> driver_libs;  // default every sandbox driver's library
  int timeout_seconds = 120;
};

struct ProbeResult {
  int exit_status = -1;   // exit code, or 128+signal
  bool isolated = false;  // ran in a private mount namespace
  std::vector<Json> lines;
  std::string out;
  std::string err;

  // The n-th line whose "step" is `step` (invalid Json when absent).
  Json Step(const std::string& step, size_t nth = 0) const;
  std::vector<Json> Steps(const std::string& step) const;
  // Text of every debug-utils / debug-report message the probe captured (`source` filter optional).
  std::vector<std::string> Messages(const std::string& source = "") const;
  bool MessagesContain(const std::string& needle, const std::string& source = "") const;
  Json Alloc() const { return Step("alloc"); }
  // Loader log lines on stderr containing `needle`.
  bool LogContains(const std::string& needle) const;
  // The stderr lines containing `needle`, in order (without their newline).
  std::vector<std::string> LogLines(const std::string& needle) const;
  // Device names from the "devices" step (empty when it failed).
  std::vector<std::string> DeviceNames(size_t nth = 0) const;
  std::string Describe() const;  // for assertion messages
};

class Sandbox {
 public:
  Sandbox();
  ~Sandbox();
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  const std::string& root() const { return root_; }
  std::string home() const { return root_ + "/home"; }
  std::string xdg_config_home() const { return root_ + "/xdg/config_home"; }
  std::string xdg_data_home() const { return root_ + "/xdg/data_home"; }
  std::string xdg_config_dir(int i) const;
  std::string xdg_data_dir(int i) const;

  // Directory (as the loader sees it) for manifests at `loc`; created on demand.
  std::string IcdDir(Location loc, int index = 0);
  // Host path backing a fixed system directory inside the child's namespace.
  std::string SystemBacking(const std::string& fixed_path) const;
  bool uses_fixed_dirs() const { return uses_fixed_dirs_; }

  // A driver: copies the mock variant into drivers/<name>/ and writes its scenario (JSON text;
  // empty: the mock's defaults).
  const Driver& AddDriver(const std::string& name, const std::string& variant, const std::string& scenario_json = "");
  const Driver& driver(const std::string& name) const;
  const std::deque<Driver>& drivers() const { return drivers_; }
  void SetScenario(const std::string& name, const std::string& scenario_json);

  // Manifest text pointing at the driver's absolute library path.
  ManifestSpec ManifestFor(const std::string& driver_name) const;
  // Writes `json_text` as <IcdDir(loc,index)>/<file_name>; returns the path the loader sees.
  std::string WriteManifest(Location loc, const std::string& file_name, const std::string& json_text, int index = 0);
  // Shorthand: WriteManifest(loc, <driver>.json, ManifestFor(driver).ToJson()).
  std::string WriteDriverManifest(Location loc, const std::string& driver_name, int index = 0);
  // Writes any file (absolute path inside the sandbox).
  void WriteFile(const std::string& path, const std::string& text) const;

  // Child environment (HOME, XDG_* and VK_LOADER_DEBUG=all are set by default).
  void SetEnv(const std::string& key, const std::string& value) { env_[key] = value; }
  void UnsetEnv(const std::string& key) { env_.erase(key); }
  const std::map<std::string, std::string>& env() const { return env_; }

  // Call records of a driver (one Json per line of <library>.calls; none when never loaded).
  std::vector<Json> Calls(const std::string& driver_name) const;
  std::vector<Json> CallsTo(const std::string& driver_name, const std::string& call) const;
  bool WasLoaded(const std::string& driver_name) const;

  // ---- layers ----
  // Directory (as the loader sees it) for implicit or explicit layer manifests at `loc`: the
  // location's vulkan/implicit_layer.d or vulkan/explicit_layer.d (kLoose: <sandbox>/loose/
  // implicit_layer.d or explicit_layer.d); created on demand.
  std::string LayerDir(Location loc, bool implicit, int index = 0);
  // Copies the mock layer variant into layers/<layer_name>/ and writes its scenario:
  // {"name": layer_name, "calls_file": LayerCallsFile()} plus `scenario_members` (JSON object
  // members without braces, e.g. "\"misbehave\": {...}").
  const Layer& AddLayer(const std::string& layer_name, const std::string& variant,
                        const std::string& scenario_members = "");
  const Layer& layer(const std::string& layer_name) const;
  // Writes `json_text` as <LayerDir(loc, implicit, index)>/<file_name>; returns the loader's path.
  std::string WriteLayerManifest(Location loc, bool implicit, const std::string& file_name,
                                 const std::string& json_text, int index = 0);
  // Every mock layer of the sandbox appends its records here, so the order across layers shows.
  std::string LayerCallsFile() const { return root_ + "/layer_calls.jsonl"; }
  std::vector<Json> LayerCalls() const;
  // The layer name of every record of `call` (e.g. "vkCreateInstance"), in call order.
  std::vector<std::string> LayerCallOrder(const std::string& call) const;

 private:
  std::string root_;
  std::map<std::string, std::string> env_;
  std::deque<Driver> drivers_;  // deque: AddDriver references stay valid
  std::deque<Layer> layers_;    // deque: AddLayer references stay valid
  bool uses_fixed_dirs_ = false;
};

// Runs vkprobe in a child (cleared environment, private mount namespace when available).
ProbeResult RunProbe(const Sandbox& sandbox, const std::vector<std::string>& steps,
                     const ProbeOptions& options = ProbeOptions());

// Makes directories like mkdir -p (mode 0755).
bool MakeDirs(const std::string& path);
std::string ReadFileText(const std::string& path);
std::string Basename(const std::string& path);

}  // namespace vkt

// In a test body: skip when the fixed system directories cannot be replaced.
#define VKT_REQUIRE_ISOLATION()                                                                                  \
  do {                                                                                                           \
    std::string vkt_reason_;                                                                                     \
    if (!::vkt::IsolationAvailable(&vkt_reason_)) GTEST_SKIP() << "no private mount namespace: " << vkt_reason_; \
  } while (0)

#endif  // VKT_FRAMEWORK_SANDBOX_H_
