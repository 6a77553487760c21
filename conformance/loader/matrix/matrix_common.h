// Shared pieces of the data-driven matrix tests (conformance/loader/matrix, conformance/loader/
// misbehave): TSV data files, per-cell directories that an unprivileged (uid 65534) probe can read,
// and the privileged probe copies (one set per test process).
#ifndef VKT_LOADER_MATRIX_COMMON_H_
#define VKT_LOADER_MATRIX_COMMON_H_

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "conformance/framework/elevated.h"
#include "conformance/framework/policy.h"
#include "conformance/framework/sandbox.h"
#include "conformance/loader/common.h"
#include "gtest/gtest.h"

namespace vkt {
namespace matrix {

// True when `id` is one of `known` (a test's kRules: the IDs its TSV rows may cite).
template <size_t N>
inline bool Lists(const char* const (&known)[N], const std::string& id) {
  return std::find_if(std::begin(known), std::end(known), [&](const char* k) { return id == k; }) != std::end(known);
}

// Empty when the row parsed and every ID it cites is one of `known`; else what is wrong with it.
template <size_t N>
inline std::string RowProblem(const std::map<std::string, std::string>& row, const std::vector<std::string>& rules,
                              const char* const (&known)[N], const std::string& data_file) {
  auto err = row.find("error");
  if (err != row.end()) return data_file + ": " + err->second;
  for (const std::string& id : rules)
    if (!Lists(known, id)) return data_file + " cites " + id + ", which its test's kRules lacks";
  return "";
}

// The helpers every loader test uses (conformance/loader/common.h), also under matrix::.
using ::vkt::CreateResult;
using ::vkt::DeviceScenario;
using ::vkt::Sorted;

using Row = std::map<std::string, std::string>;

// Rows of a tab-separated data file with one header line ('#' lines and blank lines skipped).
// A file that cannot be read gives one row {"cell": "DATA_FILE_MISSING", "error": ...}.
inline std::vector<Row> LoadTsv(const std::string& workspace_relative) {
  std::vector<Row> rows;
  std::ifstream in(Runfile(workspace_relative));
  if (!in) {
    rows.push_back({{"cell", "DATA_FILE_MISSING"}, {"error", "cannot read " + workspace_relative}});
    return rows;
  }
  std::vector<std::string> header;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    std::stringstream ss(line);
    std::string col;
    while (std::getline(ss, col, '\t')) cols.push_back(col);
    if (header.empty()) {
      header = cols;
      continue;
    }
    Row r;
    for (size_t i = 0; i < header.size(); ++i) r[header[i]] = i < cols.size() ? cols[i] : "";
    if (cols.size() != header.size())
      r["error"] = "row has " + std::to_string(cols.size()) + " columns, header " + std::to_string(header.size());
    rows.push_back(r);
  }
  return rows;
}

inline std::vector<std::string> Words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

// gtest parameter name of a row: its "cell" column.
struct CellName {
  std::string operator()(const ::testing::TestParamInfo<Row>& info) const {
    auto it = info.param.find("cell");
    return it == info.param.end() ? "row" + std::to_string(info.index) : it->second;
  }
};

// Per-process resources of elevated runs: a public directory with a copy of the loader under test
// and of vkprobe (plain and privileged), created on first use.
class Elevation {
 public:
  // nullptr, with `reason`, when elevated runs are impossible here.
  static Elevation* Get(std::string* reason) {
    static std::unique_ptr<Elevation> instance;
    static std::string why;
    static bool tried = false;
    if (!tried) {
      tried = true;
      why = ElevationUnavailableReason();
      if (why.empty()) {
        auto e = std::unique_ptr<Elevation>(new Elevation());
        if (e->dir_.path().empty()) {
          why = "mkdtemp under /tmp failed";
        } else if (!CopyFileMode(LoaderPath(), e->loader_ = e->dir_.path() + "/libvulkan.so.1", 0755)) {
          why = "cannot copy the loader under test " + LoaderPath();
        } else {
          instance = std::move(e);
        }
      }
    }
    if (!instance && reason) *reason = why;
    return instance.get();
  }
  const std::string& dir() const { return dir_.path(); }
  const std::string& loader() const { return loader_; }
  // The probe copy for `p` (created on first use); empty with `error` set on failure.
  std::string Probe(Privilege p, std::string* error) {
    auto it = probes_.find(p);
    if (it != probes_.end()) return it->second;
    std::string path = MakeProbeCopy(dir_.path(), p, error);
    if (!path.empty()) probes_[p] = path;
    return path;
  }
  // A fresh world-readable directory for one cell.
  std::string NewCellDir() {
    std::string d = dir_.path() + "/cell" + std::to_string(next_++);
    MakeDirs(d);
    chmod(d.c_str(), 0755);
    return d;
  }

 private:
  Elevation() = default;
  PublicDir dir_;
  std::string loader_;
  std::map<Privilege, std::string> probes_;
  int next_ = 0;
};

inline Privilege ParsePrivilege(const std::string& s) {
  if (s == "setuid") return Privilege::kSetuid;
  if (s == "setgid") return Privilege::kSetgid;
  if (s == "setcap") return Privilege::kFileCaps;
  return Privilege::kNormal;
}

// One cell's world: a Sandbox (child environment, fixed directories, probe output) plus a base
// directory for drivers, layers and manifests that the cell's probe can read. For privileged
// cells the base lies in the process's public directory and the probe runs as uid/gid 65534; for
// normal cells it is <sandbox>/cell and the probe runs as the test's user.
class Cell {
 public:
  // `error` non-empty: the cell cannot run here (skip with it).
  Cell(Sandbox& s, Privilege p, std::string* skip) : s_(s), privilege_(p) {
    if (p == Privilege::kNormal) {
      base_ = s.root() + "/cell";
      MakeDirs(base_);
      return;
    }
    std::string reason;
    Elevation* e = Elevation::Get(&reason);
    if (e == nullptr) {
      *skip = reason;
      return;
    }
    probe_ = e->Probe(p, &reason);
    if (probe_.empty()) {
      *skip = reason;
      return;
    }
    loader_ = e->loader();
    base_ = e->NewCellDir();
  }
  const std::string& base() const { return base_; }
  bool elevated() const { return privilege_ != Privilege::kNormal; }

  // Points HOME and every XDG search base at empty directories of the cell (user locations that
  // hold nothing unless the cell puts a manifest there).
  void EmptyUserBases() {
    s_.SetEnv("HOME", Dir("home"));
    s_.SetEnv("XDG_CONFIG_HOME", Dir("xdg_config_home"));
    s_.SetEnv("XDG_DATA_HOME", Dir("xdg_data_home"));
    s_.SetEnv("XDG_CONFIG_DIRS", Dir("xdg_config_dirs"));
    s_.SetEnv("XDG_DATA_DIRS", Dir("xdg_data_dirs"));
  }
  // Creates <base>/<rel> (0755) and returns it.
  std::string Dir(const std::string& rel) {
    std::string d = base_ + "/" + rel;
    MakeDirs(d);
    return d;
  }
  // Copies mock driver `variant` to <base>/drivers/<name>/ with a scenario naming its one device
  // "<name>-dev" (+ `extra` keys); returns the library path. The directory is world-writable so an
  // unprivileged probe can append the call records.
  std::string AddDriver(const std::string& name, const std::string& variant, const std::string& extra = "") {
    std::string d = Dir("drivers/" + name);
    chmod(d.c_str(), 0777);
    std::string lib = d + "/libmock_icd_" + variant + ".so";
    CopyFileMode(MockLibrary(variant), lib, 0755);
    std::ofstream(lib + ".scenario") << DeviceScenario({name + "-dev"}, extra);
    libs_.push_back(lib);
    driver_libs_[name] = lib;
    return lib;
  }
  // Copies mock layer `variant` to <base>/layers/<name>/ with the given scenario JSON.
  std::string AddLayerLibrary(const std::string& name, const std::string& variant, const std::string& scenario) {
    std::string d = Dir("layers/" + name);
    chmod(d.c_str(), 0777);
    std::string lib = d + "/libmock_layer_" + variant + ".so";
    CopyFileMode(Runfile("mock_layers/libmock_layer_" + variant + ".so"), lib, 0755);
    std::ofstream(lib + ".scenario") << scenario;
    return lib;
  }
  std::string DriverLib(const std::string& name) const {
    auto it = driver_libs_.find(name);
    return it == driver_libs_.end() ? "" : it->second;
  }
  bool DriverCalled(const std::string& name) const { return !ReadFileText(DriverLib(name) + ".calls").empty(); }
  // Writes a file (creating its directory) and returns its path.
  std::string Write(const std::string& path, const std::string& text) {
    MakeDirs(path.substr(0, path.rfind('/')));
    std::ofstream(path) << text;
    return path;
  }
  // The same steps through a plain (unprivileged) vkprobe copy, still as uid 65534: the control
  // run of a privileged cell (for normal cells the same as Run).
  ProbeResult RunControl(const std::vector<std::string>& steps) const {
    if (!elevated()) return Run(steps);
    std::string error;
    ProbeOptions o;
    o.driver_libs = libs_;
    o.cwd = base_;
    o.uid = kNobodyUid;
    o.gid = kNogroupGid;
    o.probe = Elevation::Get(nullptr)->Probe(Privilege::kNormal, &error);
    o.loader = loader_;
    o.timeout_seconds = 60;
    return RunProbe(s_, steps, o);
  }
  ProbeResult Run(const std::vector<std::string>& steps) const {
    ProbeOptions o;
    o.driver_libs = libs_;
    o.cwd = base_;
    if (elevated()) {
      o.uid = kNobodyUid;
      o.gid = kNogroupGid;
      o.probe = probe_;
      o.loader = loader_;
    }
    o.timeout_seconds = 60;
    return RunProbe(s_, steps, o);
  }

 private:
  Sandbox& s_;
  Privilege privilege_;
  std::string base_, probe_, loader_;
  std::vector<std::string> libs_;
  std::map<std::string, std::string> driver_libs_;
};

// Base fixture of a TSV-driven matrix test: row_ is the cell's row (the parameter), s_ its sandbox.
class CellTest : public ::testing::TestWithParam<Row> {
 protected:
  // The IDs the row cites (column "rules"), for VKT_POLICY.
  std::vector<std::string> Rules() { return Words(row_["rules"]); }
  // The row's cell, built in s_ with the row's privilege. nullptr when the test must stop: the row
  // is wrong (RowProblem against `known`; the test has failed) or the cell cannot run here (no
  // private mount namespace for the fixed directories, or no way to elevate the probe; skipped).
  template <size_t N>
  Cell* OpenCell(const char* const (&known)[N], const std::string& data_file) {
    const std::string problem = RowProblem(row_, Rules(), known, data_file);
    if (!problem.empty()) {
      ADD_FAILURE() << problem;
      return nullptr;
    }
    std::string skip;
    if (!IsolationAvailable(&skip))
      skip = "no private mount namespace: " + skip;
    else
      cell_.reset(new Cell(s_, ParsePrivilege(row_["privilege"]), &skip));
    if (!skip.empty()) {
      [&skip] { GTEST_SKIP() << skip; }();
      return nullptr;
    }
    return cell_.get();
  }
  // The control driver "ctl" (interface 7, every export), manifest in /etc/vulkan/icd.d: a fixed
  // directory every cell searches, with or without privileges.
  void AddControlDriver(Cell* c) {
    ManifestSpec ctl;
    ctl.library_path = c->AddDriver("ctl", "v7_exports");
    s_.WriteManifest(Location::kEtc, "ctl.json", ctl.ToJson());
  }
  Row row_ = GetParam();
  Sandbox s_;
  std::unique_ptr<Cell> cell_;
};

}  // namespace matrix
}  // namespace vkt

#endif  // VKT_LOADER_MATRIX_COMMON_H_
