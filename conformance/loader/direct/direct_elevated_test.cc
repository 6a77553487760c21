// VK_LUNARG_direct_driver_loading works when the process is elevated ([Drv] "Driver Discovery
// using the VK_LUNARG_direct_driver_loading extension", spec §2): the driver comes from a pointer
// the application holds, nothing from the environment. A set-uid probe run by uid 65534 (the
// kernel sets AT_SECURE), as in conformance/loader/elevated (framework/README.md "Elevated
// privilege"): everything the unprivileged process reaches lives in a PublicDir under /tmp.
#include <sys/stat.h>

#include <fstream>
#include <string>
#include <vector>

#include "conformance/framework/elevated.h"
#include "conformance/loader/common.h"

namespace vkt {
namespace {

using Names = std::vector<std::string>;

TEST(DirectDriverElevated, ListedDriverStillLoads) {
  VKT_POLICY("LDP_LOADER_3", "RULE_DRV_DIRECT_LOADING", "RULE_ENV_ELEVATED", "LDP_LOADER_13");
  const std::string unavailable = ElevationUnavailableReason();
  if (!unavailable.empty()) GTEST_SKIP() << unavailable;
  PublicDir pub;
  ASSERT_FALSE(pub.path().empty()) << "mkdtemp under /tmp failed";
  const std::string dir = pub.path();
  ElevatedProbes probes;
  std::string error;
  ASSERT_TRUE(MakeElevatedProbes(dir, &probes, &error)) << error;

  // The direct driver (exports nothing a loader looks for) and a VK_DRIVER_FILES driver, which an
  // elevated process must ignore.
  auto add = [&](const std::string& name, const std::string& variant) {
    const std::string d = dir + "/drivers/" + name;
    MakeDirs(d);
    chmod(d.c_str(), 0777);  // the unprivileged process appends its .calls records here
    const std::string lib = d + "/libmock_icd_" + variant + ".so";
    EXPECT_TRUE(CopyFileMode(MockLibrary(variant), lib, 0755));
    std::ofstream(lib + ".scenario") << DeviceScenario({name + "-dev"});
    return lib;
  };
  const std::string direct_lib = add("dd", "v7_direct");
  const std::string files_lib = add("files", "v7_exports");
  const std::string manifest = dir + "/files.json";
  ManifestSpec m;
  m.library_path = files_lib;
  std::ofstream(manifest) << m.ToJson();
  chmod(manifest.c_str(), 0644);

  Sandbox s;
  s.SetEnv("VK_DRIVER_FILES", manifest);
  s.SetEnv("VK_LOADER_DISABLE_SELECT", "1");
  ProbeOptions o;
  o.uid = kNobodyUid;
  o.gid = kNogroupGid;
  o.loader = probes.loader;
  o.cwd = dir;
  o.driver_libs = {direct_lib, files_lib};
  const std::vector<std::string> steps = {"env-dump",
                                          "direct:" + direct_lib + ":inclusive:sym=mock_icd_direct_GetInstanceProcAddr",
                                          "create-instance", "devices", "destroy-instance"};

  // Control: without privilege, VK_DRIVER_FILES applies and the listed driver comes after it.
  o.probe = probes.plain_probe;
  ProbeResult control = RunProbe(s, steps, o);
  ASSERT_EQ(control.Step("env-dump")["at_secure"].num(), 0) << control.Describe();
  // unsorted: the environment's driver, then the listed one ([Drv]: direct drivers' devices after)
  EXPECT_EQ(control.DeviceNames(), (Names{"files-dev", "dd-dev"})) << control.Describe();

  o.probe = probes.setuid_probe;
  ProbeResult r = RunProbe(s, steps, o);
  ASSERT_EQ(r.Step("env-dump")["at_secure"].num(), 1) << "the kernel did not set AT_SECURE\n" << r.Describe();
  EXPECT_EQ(r.Step("create-instance")["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.DeviceNames(), Names{"dd-dev"}) << r.Describe();
}

}  // namespace
}  // namespace vkt
