// The driver matrix: manifest version x driver interface version x path/filter variable x
// privilege. Every cell and its expected outcome is a row of driver_matrix.tsv (see its header);
// this file only knows how to build a cell and check it.
//
// Each cell holds the driver under test "m" (placed so that only the cell's variable makes it
// visible) and a well-behaved control driver "ctl" in /etc/vulkan/icd.d, a fixed directory
// searched with or without privileges (so every cell needs the private mount namespace). Privileged
// cells run a set-uid-root copy of vkprobe as uid 65534 (conformance/framework/elevated.h).
#include <algorithm>
#include <string>
#include <vector>

#include "conformance/loader/matrix/matrix_common.h"

namespace vkt {
namespace {

using matrix::CreateResult;
using matrix::Row;
using matrix::Sorted;

// The IDs driver_matrix.tsv may cite (the coverage gate reads this table; the test checks every
// row against it).
const char* const kRules[] = {
    "RULE_DRV_MANIFEST_V1_0_0",
    "RULE_DRV_MANIFEST_V1_0_1",
    "RULE_DRV_IFACE_V0",
    "RULE_DRV_IFACE_V1",
    "RULE_DRV_IFACE_V2",
    "RULE_DRV_IFACE_V3",
    "RULE_DRV_IFACE_V4",
    "RULE_DRV_IFACE_V5",
    "RULE_DRV_IFACE_V6",
    "RULE_DRV_IFACE_V7",
    "RULE_DRV_ENV_DRIVER_FILES_OVERRIDE",
    "RULE_DRV_ENV_ICD_FILENAMES_DEPRECATED",
    "RULE_DRV_ENV_ADD_DRIVER_FILES",
    "RULE_ENV_XDG_CONFIG_HOME",
    "RULE_ENV_XDG_DATA_HOME",
    "RULE_ENV_XDG_CONFIG_DIRS",
    "RULE_ENV_XDG_DATA_DIRS",
    "RULE_ENV_HOME",
    "RULE_DRV_FILTER_SELECT",
    "RULE_DRV_FILTER_DISABLE",
    "RULE_ENV_ELEVATED",
    "LDP_LOADER_13",
    "RULE_ENV_ELEVATED_DRIVER_FILES",
    "RULE_ENV_ELEVATED_ICD_FILENAMES",
    "RULE_ENV_ELEVATED_ADD_DRIVER_FILES",
    "RULE_ENV_ELEVATED_XDG_CONFIG_HOME",
    "RULE_ENV_ELEVATED_XDG_DATA_HOME",
    "RULE_ENV_ELEVATED_XDG_CONFIG_DIRS",
    "RULE_ENV_ELEVATED_XDG_DATA_DIRS",
    "RULE_ENV_ELEVATED_HOME",
    "RULE_ENV_ELEVATED_DRIVERS_SELECT",
    "RULE_ENV_ELEVATED_DRIVERS_DISABLE",
};

class DriverMatrix : public matrix::CellTest {};

TEST_P(DriverMatrix, Cell) {
  VKT_POLICY(Rules());
  matrix::Cell* c = OpenCell(kRules, "driver_matrix.tsv");
  if (c == nullptr) return;  // failed (a wrong row) or skipped (cannot run here)
  const std::string var = row_["var"];
  const bool filter = var == "VK_LOADER_DRIVERS_SELECT" || var == "VK_LOADER_DRIVERS_DISABLE";
  ManifestSpec m;
  m.file_format_version = row_["manifest"];
  m.library_path = c->AddDriver("m", row_["variant"]);
  if (m.file_format_version == "1.0.1") m.library_arch = "64";
  AddControlDriver(c);

  // Every search base inside the cell directory (empty unless the cell puts m there).
  c->EmptyUserBases();
  std::string where;
  if (var == "VK_DRIVER_FILES" || var == "VK_ICD_FILENAMES" || var == "VK_ADD_DRIVER_FILES") {
    where = c->Dir("loose");
    s_.SetEnv(var, where + "/m.json");
  } else if (var == "XDG_CONFIG_HOME") {
    where = c->Dir("xdg_config_home/vulkan/icd.d");
  } else if (var == "XDG_DATA_HOME") {
    where = c->Dir("xdg_data_home/vulkan/icd.d");
  } else if (var == "XDG_CONFIG_DIRS") {
    where = c->Dir("xdg_config_dirs/vulkan/icd.d");
  } else if (var == "XDG_DATA_DIRS") {
    where = c->Dir("xdg_data_dirs/vulkan/icd.d");
  } else if (var == "HOME_CONFIG") {
    s_.UnsetEnv("XDG_CONFIG_HOME");
    where = c->Dir("home/.config/vulkan/icd.d");
  } else if (var == "HOME_DATA") {
    s_.UnsetEnv("XDG_DATA_HOME");
    where = c->Dir("home/.local/share/vulkan/icd.d");
  } else if (var == "VK_LOADER_DRIVERS_SELECT") {
    s_.SetEnv(var, "m.json");
  } else if (var == "VK_LOADER_DRIVERS_DISABLE") {
    s_.SetEnv(var, "ctl.json");
  } else {
    FAIL() << "driver_matrix.tsv: unknown var " << var;
  }
  if (filter)
    s_.WriteManifest(Location::kEtc, "m.json", m.ToJson());
  else
    c->Write(where + "/m.json", m.ToJson());

  ProbeResult r = c->Run({"env-dump", "create-instance", "devices", "destroy-instance"});
  ASSERT_EQ(r.Step("env-dump")["at_secure"].num(), c->elevated() ? 1 : 0) << "AT_SECURE not as the cell needs\n"
                                                                          << r.Describe();
  std::vector<std::string> want;
  for (const std::string& d : matrix::Words(row_["devices"])) want.push_back(d + "-dev");
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Sorted(r.DeviceNames()), Sorted(want)) << r.Describe();
  if (std::find(want.begin(), want.end(), "m-dev") == want.end()) {
    EXPECT_FALSE(c->DriverCalled("m")) << "driver m was called although " << var << " must not reach it here\n"
                                       << r.Describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Drivers, DriverMatrix,
                         ::testing::ValuesIn(matrix::LoadTsv("conformance/loader/matrix/driver_matrix.tsv")),
                         matrix::CellName());

}  // namespace
}  // namespace vkt
