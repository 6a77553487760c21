// Every layer variable with real elevated privilege: vkprobe made set-uid root and run by uid 65534,
// so the kernel sets AT_SECURE (as conformance/loader/elevated does for the driver variables).
// Each case runs a plain copy of the probe first (the control: the variable works) and then the
// set-uid copy (the variable must not let the unprivileged user change the layers).
//
// Everything the unprivileged process reaches (probe, loader, mock driver and layers, manifests
// named by the variables, the shared call-record file) lives in a fresh world-traversable
// directory under /tmp; the system layers and the driver are in /etc/vulkan of the child's private
// mount namespace (SYSCONFDIR is searched whether elevated or not).
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "conformance/framework/elevated.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

struct VarCase {
  const char* var;
  // What the control run must show (the variable works) and the elevated run must not.
  bool implicit;      // the layer is implicit (else the application or the variable enables it)
  bool system;        // the layer's manifest is a system one (/etc/vulkan); else named by the variable
  bool app_enables;   // the application asks for the layer
  const char* value;  // for filters/VK_INSTANCE_LAYERS; empty: the manifest directory
  bool disables;      // the variable removes the layer (control: absent; elevated: present)
};

class ElevatedLayers : public ::testing::TestWithParam<VarCase> {};

TEST_P(ElevatedLayers, UserControlledLayerChoiceIgnored) {
  VKT_POLICY("LLP_LOADER_13", "RULE_ENV_ELEVATED", "RULE_LYR_ENV_LAYER_PATH", "RULE_LYR_ENV_IMPLICIT_LAYER_PATH",
             "RULE_LYR_ENV_INSTANCE_LAYERS", "RULE_LYR_FILTER_ENABLE", "RULE_LYR_FILTER_DISABLE");
  const std::string unavailable = ElevationUnavailableReason();
  if (!unavailable.empty()) GTEST_SKIP() << unavailable;
  VKT_REQUIRE_ISOLATION();  // the driver and the system layers live in /etc/vulkan
  PublicDir pub;
  ASSERT_FALSE(pub.path().empty());
  const VarCase& c = GetParam();
  const std::string dir = pub.path();

  std::string error;
  ElevatedProbes copies;
  ASSERT_TRUE(MakeElevatedProbes(dir, &copies, &error)) << error;
  const std::string& probe = copies.setuid_probe;
  const std::string& plain = copies.plain_probe;
  const std::string& loader = copies.loader;

  Sandbox s;
  // The driver: a system manifest pointing into the public directory.
  MakeDirs(dir + "/drv");
  chmod((dir + "/drv").c_str(), 0777);
  const std::string drv_lib = dir + "/drv/libmock_icd_v7_exports.so";
  ASSERT_TRUE(CopyFileMode(MockLibrary("v7_exports"), drv_lib, 0755));
  std::ofstream(drv_lib + ".scenario") << DeviceScenario({"sys-dev"});
  ManifestSpec m;
  m.library_path = drv_lib;
  s.WriteManifest(Location::kEtc, "sys.json", m.ToJson());

  // The layer and its record file (world-writable: the unprivileged probe appends to it).
  const std::string name = "VK_LAYER_MOCK_elevated";
  const std::string calls = dir + "/layer_calls.jsonl";
  MakeDirs(dir + "/layer");
  const std::string lib = dir + "/layer/libmock_layer_v2_gpdpa.so";
  ASSERT_TRUE(CopyFileMode(MockLayerLibrary("v2_gpdpa"), lib, 0755));
  std::ofstream(lib + ".scenario") << "{\"name\":\"" + name + "\",\"calls_file\":\"" + calls + "\"}";
  auto reset_calls = [&]() {
    std::ofstream(calls, std::ios::trunc).close();
    chmod(calls.c_str(), 0666);
  };
  const std::string manifest =
      LayerManifest("1.2.1", {LayerObject(name, lib, c.implicit ? DisableEnv(name) : std::string())});
  std::string value = c.value;
  if (c.system) {
    s.WriteLayerManifest(Location::kEtc, c.implicit, name + ".json", manifest);
  } else {
    MakeDirs(dir + "/manifests");
    std::ofstream(dir + "/manifests/" + name + ".json") << manifest;
    value = dir + "/manifests";
  }
  s.SetEnv(c.var, value);

  ProbeOptions o;
  o.uid = kNobodyUid;
  o.gid = kNogroupGid;
  o.loader = loader;
  o.cwd = dir;
  o.driver_libs = {drv_lib};
  const std::vector<std::string> steps = {
      "env-dump", c.app_enables ? "create-instance:layers=" + name : std::string("create-instance"), "devices",
      "destroy-instance"};
  auto chained = [&]() {
    std::string text = ReadFileText(calls);
    return text.find("\"vkCreateInstance\"") != std::string::npos;
  };

  reset_calls();
  o.probe = plain;
  ProbeResult control = RunProbe(s, steps, o);
  ASSERT_EQ(control.Step("env-dump")["at_secure"].num(), 0) << control.Describe();
  ASSERT_EQ(CreateResult(control), "VK_SUCCESS") << control.Describe();
  ASSERT_EQ(chained(), !c.disables) << "control run: " << c.var << " did not act\n" << control.Describe();

  reset_calls();
  o.probe = probe;
  ProbeResult r = RunProbe(s, steps, o);
  ASSERT_EQ(r.Step("env-dump")["at_secure"].num(), 1) << "the kernel did not set AT_SECURE\n" << r.Describe();
  EXPECT_EQ(chained(), c.disables) << c.var << " still acted while elevated\n" << r.Describe();
  if (c.app_enables && !c.system) {
    // The application's layer was only reachable through the ignored variable.
    EXPECT_EQ(CreateResult(r), "VK_ERROR_LAYER_NOT_PRESENT") << r.Describe();
  } else {
    EXPECT_EQ(r.DeviceNames(), std::vector<std::string>{"sys-dev"}) << r.Describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Vars, ElevatedLayers,
                         ::testing::Values(VarCase{"VK_LAYER_PATH", false, false, true, "", false},
                                           VarCase{"VK_ADD_LAYER_PATH", false, false, true, "", false},
                                           VarCase{"VK_IMPLICIT_LAYER_PATH", true, false, false, "", false},
                                           VarCase{"VK_ADD_IMPLICIT_LAYER_PATH", true, false, false, "", false},
                                           VarCase{"VK_INSTANCE_LAYERS", false, true, false, "VK_LAYER_MOCK_elevated",
                                                   false},
                                           VarCase{"VK_LOADER_LAYERS_ENABLE", false, true, false, "*_elevated", false},
                                           VarCase{"VK_LOADER_LAYERS_DISABLE", true, true, false, "~all~", true}),
                         [](const ::testing::TestParamInfo<VarCase>& i) { return std::string(i.param.var); });

}  // namespace
}  // namespace vkt
