// The elevated-privilege matrix: every loader environment variable x setuid / setgid / setcap, each
// run as uid 65534 so the kernel sets AT_SECURE. Rows, expectations (the rule, and what Debian's
// Khronos loader does) and the meaning of the outcomes: elevated_matrix.tsv. The same table,
// rendered, is docs/elevated-matrix.md (tools/report/elevated_matrix.py).
//
// Each cell first runs a plain vkprobe copy as uid 65534 (control: the variable must have its
// effect), then the privileged copy as uid 65534, and classifies the variable as honoured /
// ignored / unsupported / moot. The outcome is recorded as the test property "observed".
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "conformance/loader/matrix/matrix_common.h"

namespace vkt {
namespace {

using matrix::Row;

// The IDs elevated_matrix.tsv may cite (read by the coverage gate; rows are checked against it).
const char* const kRules[] = {
    "RULE_ENV_ELEVATED_DRIVER_FILES",
    "RULE_ENV_ELEVATED_ICD_FILENAMES",
    "RULE_ENV_ELEVATED_ADD_DRIVER_FILES",
    "RULE_ENV_ELEVATED_DRIVERS_SELECT",
    "RULE_ENV_ELEVATED_DRIVERS_DISABLE",
    "RULE_ENV_ELEVATED_XDG_CONFIG_HOME",
    "RULE_ENV_ELEVATED_XDG_CONFIG_DIRS",
    "RULE_ENV_ELEVATED_XDG_DATA_HOME",
    "RULE_ENV_ELEVATED_XDG_DATA_DIRS",
    "RULE_ENV_ELEVATED_HOME",
    "RULE_ENV_ELEVATED_LOADER_DEBUG",
    "RULE_ENV_ELEVATED_LAYER_PATH",
    "RULE_ENV_ELEVATED_ADD_LAYER_PATH",
    "RULE_ENV_ELEVATED_IMPLICIT_LAYER_PATH",
    "RULE_ENV_ELEVATED_ADD_IMPLICIT_LAYER_PATH",
    "RULE_ENV_ELEVATED_INSTANCE_LAYERS",
    "RULE_ENV_ELEVATED_LAYERS_ENABLE",
    "RULE_ENV_ELEVATED_LAYERS_DISABLE",
    "RULE_ENV_ELEVATED_LAYERS_ALLOW",
    "RULE_ENV_ELEVATED_LAYER_ENABLE_ENV",
    "RULE_ENV_ELEVATED_LAYER_DISABLE_ENV",
    "RULE_ENV_ELEVATED_ID_FILTERS",
    "RULE_ENV_ELEVATED",
};

constexpr const char* kLayer = "VK_LAYER_MOCK_elevated";

std::string LayerManifest(const std::string& lib, bool implicit, const std::string& env_kv_enable,
                          const std::string& env_kv_disable) {
  std::string j = "{\"file_format_version\":\"1.1.2\",\"layer\":{\"name\":\"" + std::string(kLayer) +
                  "\",\"type\":\"GLOBAL\",\"library_path\":\"" + lib +
                  "\",\"api_version\":\"1.3.0\",\"implementation_version\":\"1\","
                  "\"description\":\"mock layer\"";
  if (implicit) {
    j += ",\"disable_environment\":{" +
         (env_kv_disable.empty() ? std::string("\"VKT_MOCK_NEVER_SET\":\"1\"") : env_kv_disable) + "}";
    if (!env_kv_enable.empty()) j += ",\"enable_environment\":{" + env_kv_enable + "}";
  }
  return j + "}}\n";
}

class ElevatedMatrix : public ::testing::TestWithParam<Row> {};

TEST_P(ElevatedMatrix, EnvVar) {
  Row row = GetParam();
  std::string observed;
  {
    VKT_POLICY(std::vector<std::string>{row["rule"], "RULE_ENV_ELEVATED"});
    ASSERT_EQ(row.count("error"), 0u) << row["error"];
    ASSERT_TRUE(matrix::Lists(kRules, row["rule"]))
        << "elevated_matrix.tsv cites " << row["rule"] << ", which kRules lacks";
    VKT_REQUIRE_ISOLATION();
    Sandbox s;
    std::string skip;
    matrix::Cell c(s, matrix::ParsePrivilege(row["privilege"]), &skip);
    if (!skip.empty()) GTEST_SKIP() << skip;
    const std::string var = row["var"];

    ManifestSpec ctl;
    ctl.library_path = c.AddDriver("ctl", "v7_exports");
    s.WriteManifest(Location::kEtc, "ctl.json", ctl.ToJson());
    c.EmptyUserBases();

    std::vector<std::string> steps = {"env-dump", "create-instance", "devices", "destroy-instance"};
    std::function<bool(const ProbeResult&)> effect;
    std::string layer_lib;
    auto layer_active = [&](const ProbeResult&) {
      return ReadFileText(layer_lib + ".calls").find("\"vkCreateInstance\"") != std::string::npos;
    };
    auto layer_listed = [&](const ProbeResult& r) {
      return r.Step("instance-layers").dump().find(kLayer) != std::string::npos;
    };
    auto has_device = [](const std::string& name) {
      return [name](const ProbeResult& r) {
        auto d = r.DeviceNames();
        return std::find(d.begin(), d.end(), name) != d.end();
      };
    };
    auto system_layer = [&](bool implicit, const std::string& en, const std::string& dis) {
      std::string dir = s.SystemBacking("/etc/vulkan") + (implicit ? "/implicit_layer.d" : "/explicit_layer.d");
      MakeDirs(dir);
      s.WriteFile(dir + "/mock.json", LayerManifest(layer_lib, implicit, en, dis));
    };
    bool is_layer = row["group"].find("layer") != std::string::npos;
    if (is_layer) {
      layer_lib = c.AddLayerLibrary("mock", "v2", std::string("{\"name\":\"") + kLayer + "\"}");
      steps = {"env-dump", "instance-layers", "create-instance", "destroy-instance"};
    }

    if (var == "VK_DRIVER_FILES" || var == "VK_ICD_FILENAMES" || var == "VK_ADD_DRIVER_FILES") {
      ManifestSpec m;
      m.library_path = c.AddDriver("m", "v7_exports");
      s.SetEnv(var, c.Write(c.Dir("loose") + "/m.json", m.ToJson()));
      effect = has_device("m-dev");
    } else if (var == "VK_LOADER_DRIVERS_SELECT" || var == "VK_LOADER_DRIVERS_DISABLE") {
      ManifestSpec m;
      m.library_path = c.AddDriver("m", "v7_exports");
      s.WriteManifest(Location::kEtc, "m.json", m.ToJson());
      s.SetEnv(var, var == "VK_LOADER_DRIVERS_SELECT" ? "m.json" : "ctl.json");
      effect = [&](const ProbeResult& r) { return !has_device("ctl-dev")(r); };
    } else if (var == "VK_LOADER_DEVICE_ID_FILTER" || var == "VK_LOADER_VENDOR_ID_FILTER" ||
               var == "VK_LOADER_DRIVER_ID_FILTER") {
      // An ID no device has: honoured, the filter hides the control driver's device.
      s.SetEnv(var, "0xdead");
      effect = [&](const ProbeResult& r) { return !has_device("ctl-dev")(r); };
    } else if (var.rfind("XDG_", 0) == 0 || var == "HOME") {
      ManifestSpec m;
      m.library_path = c.AddDriver("m", "v7_exports");
      std::string rel = var == "XDG_CONFIG_HOME"   ? "xdg_config_home"
                        : var == "XDG_CONFIG_DIRS" ? "xdg_config_dirs"
                        : var == "XDG_DATA_HOME"   ? "xdg_data_home"
                        : var == "XDG_DATA_DIRS"   ? "xdg_data_dirs"
                                                   : "home/.config";
      if (var == "HOME") s.UnsetEnv("XDG_CONFIG_HOME");
      c.Write(c.Dir(rel + "/vulkan/icd.d") + "/m.json", m.ToJson());
      effect = has_device("m-dev");
    } else if (var == "VK_LOADER_DEBUG") {
      s.SetEnv(var, "all");
      effect = [](const ProbeResult& r) { return r.LogContains("ctl.json"); };
    } else if (var == "VK_LAYER_PATH" || var == "VK_ADD_LAYER_PATH" || var == "VK_IMPLICIT_LAYER_PATH" ||
               var == "VK_ADD_IMPLICIT_LAYER_PATH") {
      bool implicit = var.find("IMPLICIT") != std::string::npos;
      std::string dir = c.Dir("loose_layers");
      c.Write(dir + "/mock.json", LayerManifest(layer_lib, implicit, "", ""));
      s.SetEnv(var, dir);
      effect = layer_listed;
    } else if (var == "VK_INSTANCE_LAYERS" || var == "VK_LOADER_LAYERS_ENABLE") {
      system_layer(false, "", "");
      s.SetEnv(var, kLayer);
      effect = layer_active;
    } else if (var == "VK_LOADER_LAYERS_DISABLE") {
      system_layer(true, "", "");
      s.SetEnv(var, kLayer);
      effect = [&](const ProbeResult& r) { return !layer_active(r); };
    } else if (var == "VK_LOADER_LAYERS_ALLOW") {
      system_layer(true, "", "");
      s.SetEnv("VK_LOADER_LAYERS_DISABLE", "~all~");
      s.SetEnv(var, kLayer);
      effect = layer_active;
    } else if (var == "enable_environment") {
      system_layer(true, "\"VKT_MOCK_ENABLE\":\"1\"", "");
      s.SetEnv("VKT_MOCK_ENABLE", "1");
      effect = layer_active;
    } else if (var == "disable_environment") {
      system_layer(true, "", "\"VKT_MOCK_DISABLE\":\"1\"");
      s.SetEnv("VKT_MOCK_DISABLE", "1");
      effect = [&](const ProbeResult& r) { return !layer_active(r); };
    } else {
      FAIL() << "elevated_matrix.tsv: unknown var " << var;
    }
    if (var != "VK_LOADER_DEBUG") s.SetEnv("VK_LOADER_DEBUG", "all");
    auto reset = [&] {
      for (const char* n : {"ctl", "m"})
        if (!c.DriverLib(n).empty()) unlink((c.DriverLib(n) + ".calls").c_str());
      if (!layer_lib.empty()) unlink((layer_lib + ".calls").c_str());
    };

    ProbeResult control = c.RunControl(steps);
    ASSERT_EQ(control.Step("env-dump")["at_secure"].num(), 0) << control.Describe();
    bool control_effect = effect(control);
    reset();
    ProbeResult r = c.Run(steps);
    ASSERT_EQ(r.Step("env-dump")["at_secure"].num(), 1) << "no AT_SECURE\n" << r.Describe();
    bool privileged_effect = effect(r);
    if (!control_effect) {
      observed = "unsupported";
    } else if (var == "VK_LOADER_LAYERS_ALLOW" && privileged_effect) {
      // Active with DISABLE=~all~ + ALLOW: tell "ALLOW honoured" from "DISABLE ignored".
      reset();
      s.UnsetEnv(var);
      ProbeResult d = c.Run(steps);
      observed = layer_active(d) ? "moot" : "honoured";
    } else {
      observed = privileged_effect ? "honoured" : "ignored";
    }
    ::testing::Test::RecordProperty("observed", observed);
    std::printf("[   VKT    ] %s %s: %s\n", var.c_str(), row["privilege"].c_str(), observed.c_str());
    EXPECT_EQ(observed, row["expected"]) << var << " under " << row["privilege"] << "\ncontrol:\n"
                                         << control.Describe() << "\nprivileged:\n"
                                         << r.Describe();
  }
  if (LoaderName() == "khronos" && !observed.empty()) {
    EXPECT_EQ(observed, row["khronos"]) << "elevated_matrix.tsv's khronos column is stale";
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    bool listed = FindDeviation(std::string(info->test_suite_name()) + "." + info->name()) != nullptr;
    EXPECT_EQ(listed, row["khronos"] != row["expected"])
        << "conformance/deviations/khronos.tsv must list exactly the cells whose khronos column "
           "differs from expected";
  }
}

INSTANTIATE_TEST_SUITE_P(Elevated, ElevatedMatrix,
                         ::testing::ValuesIn(matrix::LoadTsv("conformance/loader/matrix/elevated_matrix.tsv")),
                         matrix::CellName());

}  // namespace
}  // namespace vkt
