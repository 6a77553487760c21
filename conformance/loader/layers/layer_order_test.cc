// Where layers land in the chain when the layer variables and the override layer name them:
//  - VK_INSTANCE_LAYERS naming implicit layers (placed where the variable puts them, also when
//    their own disable_environment / enable_environment would keep them off; exact names only;
//    ignored when elevated),
//  - the override meta-layer's implicit components after every other implicit layer (LLP_LOADER_11),
//  - the per-application override layer (app_keys: the override applies only to the listed
//    executable),
//  - VK_LOADER_LAYERS_ENABLE forcing on an implicit layer whose enable_environment is unset.
// The mock layers record their calls in one shared file, so the chain order is observable.
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "conformance/framework/elevated.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

using V = std::vector<std::string>;

// One driver ("drv", device "drv-dev") found in XDG_CONFIG_HOME.
class OrderFixture : public OneDriverTest {
 protected:
  // A fresh record file, then create-instance (layers=app), a device on it, and teardown.
  ProbeResult Run(const std::string& app_layers = "", const ProbeOptions& o = ProbeOptions()) {
    std::remove(s_.LayerCallsFile().c_str());
    return RunProbe(s_,
                    {"instance-layers", app_layers.empty() ? "create-instance" : "create-instance:layers=" + app_layers,
                     "devices", "create-device:0", "destroy-device", "destroy-instance"},
                    o);
  }
  V Chain() { return s_.LayerCallOrder("vkCreateInstance"); }
  V DeviceChain() { return s_.LayerCallOrder("vkCreateDevice"); }
};

// ---- VK_INSTANCE_LAYERS naming implicit layers ----------------------------------------------

// Two implicit layers found in two locations (XDG_CONFIG_HOME before XDG_DATA_DIRS, so their
// implicit order is imp1, imp2) and two explicit layers.
class InstanceLayersImplicit : public OrderFixture {
 protected:
  void SetUp() override {
    OrderFixture::SetUp();
    AddMockLayer(s_, "VK_LAYER_MOCK_imp1", true, Location::kXdgConfigHome);
    AddMockLayer(s_, "VK_LAYER_MOCK_imp2", true, Location::kXdgDataDirs);
    AddMockLayer(s_, "VK_LAYER_MOCK_exp", false);
    AddMockLayer(s_, "VK_LAYER_MOCK_app", false);
  }
};

// "explicit:implicit": the explicit layer comes first (closer to the application), the named
// implicit layer where the variable puts it; the implicit layer it does not name stays in the
// implicit group, ahead of everything the variable places.
TEST_F(InstanceLayersImplicit, ImplicitLayerPlacedWhereTheVariableNamesIt) {
  VKT_POLICY("RULE_LYR_ENV_INSTANCE_LAYERS_IMPLICIT", "RULE_LYR_ENV_INSTANCE_LAYERS", "RULE_LYR_ORDER");
  ProbeResult base = Run();
  ASSERT_EQ(Chain(), (V{"VK_LAYER_MOCK_imp1", "VK_LAYER_MOCK_imp2"})) << "implicit order\n" << base.Describe();

  s_.SetEnv("VK_INSTANCE_LAYERS", "VK_LAYER_MOCK_exp:VK_LAYER_MOCK_imp2");
  ProbeResult r = Run();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  const V want = {"VK_LAYER_MOCK_imp1", "VK_LAYER_MOCK_exp", "VK_LAYER_MOCK_imp2"};
  EXPECT_EQ(Chain(), want) << r.Describe();
  EXPECT_EQ(DeviceChain(), want) << r.Describe();
  EXPECT_EQ(s_.LayerCallOrder("vkDestroyInstance"), want) << r.Describe();

  // Both implicit layers named, against their discovery order, around an explicit one, then the
  // application's layer; a name repeated by the application is a duplicate (first one wins).
  s_.SetEnv("VK_INSTANCE_LAYERS", "VK_LAYER_MOCK_imp2:VK_LAYER_MOCK_exp:VK_LAYER_MOCK_imp1");
  ProbeResult both = Run("VK_LAYER_MOCK_app,VK_LAYER_MOCK_imp2");
  ASSERT_EQ(CreateResult(both), "VK_SUCCESS") << both.Describe();
  const V want2 = {"VK_LAYER_MOCK_imp2", "VK_LAYER_MOCK_exp", "VK_LAYER_MOCK_imp1", "VK_LAYER_MOCK_app"};
  EXPECT_EQ(Chain(), want2) << both.Describe();
  EXPECT_EQ(DeviceChain(), want2) << both.Describe();
}

// An implicit layer that its own variables keep off (disable_environment set, enable_environment
// unset) is enabled, at its place, when VK_INSTANCE_LAYERS names it -- the variable names a layer
// as an application does. Not named, it stays off.
TEST_F(InstanceLayersImplicit, NamedImplicitLayerOffByItsOwnVariablesIsEnabled) {
  VKT_POLICY("RULE_LYR_ENV_INSTANCE_LAYERS_IMPLICIT", "LLP_LOADER_6", "LLP_LOADER_7");
  AddMockLayer(s_, "VK_LAYER_MOCK_disabled", true, Location::kXdgDataHome);
  AddMockLayer(s_, "VK_LAYER_MOCK_gated", true, Location::kXdgDataHome, "v2_gpdpa",
               ", \"enable_environment\": {\"MOCK_ORDER_GATE\": \"on\"}");
  s_.SetEnv("DISABLE_VK_LAYER_MOCK_disabled", "1");
  ProbeResult off = Run();
  ASSERT_EQ(Chain(), (V{"VK_LAYER_MOCK_imp1", "VK_LAYER_MOCK_imp2"})) << off.Describe();

  s_.SetEnv("VK_INSTANCE_LAYERS", "VK_LAYER_MOCK_gated:VK_LAYER_MOCK_exp:VK_LAYER_MOCK_disabled");
  ProbeResult r = Run();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  const V want = {"VK_LAYER_MOCK_imp1", "VK_LAYER_MOCK_imp2", "VK_LAYER_MOCK_gated", "VK_LAYER_MOCK_exp",
                  "VK_LAYER_MOCK_disabled"};
  EXPECT_EQ(Chain(), want) << r.Describe();
  EXPECT_EQ(DeviceChain(), want) << r.Describe();
}

// VK_INSTANCE_LAYERS does not beat VK_LOADER_LAYERS_DISABLE: a filtered-out implicit layer is not
// available, so naming it enables nothing (the other named layer still comes).
TEST_F(InstanceLayersImplicit, NamedImplicitLayerFilteredOutStaysOff) {
  VKT_POLICY("RULE_LYR_ENV_INSTANCE_LAYERS_IMPLICIT", "RULE_LYR_FILTER_DISABLE");
  s_.SetEnv("VK_INSTANCE_LAYERS", "VK_LAYER_MOCK_exp:VK_LAYER_MOCK_imp2");
  s_.SetEnv("VK_LOADER_LAYERS_DISABLE", "VK_LAYER_MOCK_imp2");
  ProbeResult r = Run();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), (V{"VK_LAYER_MOCK_imp1", "VK_LAYER_MOCK_exp"})) << r.Describe();
}

// Names are matched whole: an implicit layer whose name is only part of a name the variable lists
// keeps its implicit place (the Khronos loader's newer sources test with strstr and then never
// chain such a layer).
TEST_F(InstanceLayersImplicit, OnlyWholeNamesArePlaced) {
  VKT_POLICY("RULE_LYR_ENV_INSTANCE_LAYERS_IMPLICIT", "RULE_LYR_ORDER");
  AddMockLayer(s_, "VK_LAYER_MOCK_imp2_long", false);
  s_.SetEnv("VK_INSTANCE_LAYERS", "VK_LAYER_MOCK_imp2_long");
  ProbeResult r = Run();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(), (V{"VK_LAYER_MOCK_imp1", "VK_LAYER_MOCK_imp2", "VK_LAYER_MOCK_imp2_long"})) << r.Describe();
}

// Elevated (a set-uid copy of the probe run by uid 65534): VK_INSTANCE_LAYERS is ignored
// (LLP_LOADER_13), so it neither moves an implicit layer nor enables one its own disable variable
// keeps off. The plain copy (the control) shows that the variable does both.
TEST(InstanceLayersImplicitElevated, IgnoredWhenElevated) {
  VKT_POLICY("RULE_LYR_ENV_INSTANCE_LAYERS_IMPLICIT", "LLP_LOADER_13", "RULE_ENV_ELEVATED_INSTANCE_LAYERS");
  const std::string unavailable = ElevationUnavailableReason();
  if (!unavailable.empty()) GTEST_SKIP() << unavailable;
  VKT_REQUIRE_ISOLATION();  // the driver and the layers live in /etc/vulkan
  PublicDir pub;
  ASSERT_FALSE(pub.path().empty());
  const std::string dir = pub.path();
  std::string error;
  ElevatedProbes copies;
  ASSERT_TRUE(MakeElevatedProbes(dir, &copies, &error)) << error;
  const std::string& setuid_probe = copies.setuid_probe;
  const std::string& plain_probe = copies.plain_probe;
  const std::string& loader = copies.loader;

  Sandbox s;
  MakeDirs(dir + "/drv");
  const std::string drv_lib = dir + "/drv/libmock_icd_v7_exports.so";
  ASSERT_TRUE(CopyFileMode(MockLibrary("v7_exports"), drv_lib, 0755));
  std::ofstream(drv_lib + ".scenario") << DeviceScenario({"sys-dev"});
  ManifestSpec m;
  m.library_path = drv_lib;
  s.WriteManifest(Location::kEtc, "sys.json", m.ToJson());

  // Layers (system manifests) recording into one world-writable file.
  const std::string calls = dir + "/layer_calls.jsonl";
  auto add_layer = [&](const std::string& name, bool implicit) {
    MakeDirs(dir + "/" + name);
    const std::string lib = dir + "/" + name + "/libmock_layer_v2_gpdpa.so";
    ASSERT_TRUE(CopyFileMode(MockLayerLibrary("v2_gpdpa"), lib, 0755));
    std::ofstream(lib + ".scenario") << "{\"name\":\"" + name + "\",\"calls_file\":\"" + calls + "\"}";
    s.WriteLayerManifest(Location::kEtc, implicit, name + ".json",
                         LayerManifest("1.2.1", {LayerObject(name, lib, implicit ? DisableEnv(name) : "")}));
  };
  add_layer("VK_LAYER_MOCK_sys_imp", true);
  add_layer("VK_LAYER_MOCK_sys_off", true);
  add_layer("VK_LAYER_MOCK_sys_exp", false);
  s.SetEnv("DISABLE_VK_LAYER_MOCK_sys_off", "1");
  s.SetEnv("VK_INSTANCE_LAYERS", "VK_LAYER_MOCK_sys_exp:VK_LAYER_MOCK_sys_imp:VK_LAYER_MOCK_sys_off");

  ProbeOptions o;
  o.uid = kNobodyUid;
  o.gid = kNogroupGid;
  o.loader = loader;
  o.cwd = dir;
  o.driver_libs = {drv_lib};
  const V steps = {"env-dump", "create-instance", "devices", "destroy-instance"};
  auto chain = [&]() {
    V out;
    std::ifstream in(calls);
    std::string line;
    while (std::getline(in, line)) {
      Json j = Json::Parse(line);
      if (j["call"].str() == "vkCreateInstance") out.push_back(j["layer"].str());
    }
    return out;
  };
  auto reset_calls = [&]() {
    std::ofstream(calls, std::ios::trunc).close();
    chmod(calls.c_str(), 0666);
  };

  reset_calls();
  o.probe = plain_probe;
  ProbeResult control = RunProbe(s, steps, o);
  ASSERT_EQ(control.Step("env-dump")["at_secure"].num(), 0) << control.Describe();
  ASSERT_EQ(CreateResult(control), "VK_SUCCESS") << control.Describe();
  EXPECT_EQ(chain(), (V{"VK_LAYER_MOCK_sys_exp", "VK_LAYER_MOCK_sys_imp", "VK_LAYER_MOCK_sys_off"}))
      << "control run\n"
      << control.Describe();

  reset_calls();
  o.probe = setuid_probe;
  ProbeResult r = RunProbe(s, steps, o);
  ASSERT_EQ(r.Step("env-dump")["at_secure"].num(), 1) << "the kernel did not set AT_SECURE\n" << r.Describe();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(chain(), V{"VK_LAYER_MOCK_sys_imp"}) << "VK_INSTANCE_LAYERS still acted while elevated\n" << r.Describe();
  EXPECT_EQ(r.DeviceNames(), V{"sys-dev"}) << r.Describe();
}

// ---- the override layer's implicit components (LLP_LOADER_11) -------------------------------

// The override layer and two implicit components in XDG_CONFIG_HOME (searched before
// XDG_DATA_DIRS), an explicit component between them in its component_layers, and one more
// implicit layer in XDG_DATA_DIRS: discovery order puts the components first.
class OverrideComponents : public OrderFixture {
 protected:
  void SetUp() override {
    OrderFixture::SetUp();
    AddMockLayer(s_, "VK_LAYER_MOCK_comp_a", true, Location::kXdgConfigHome);
    AddMockLayer(s_, "VK_LAYER_MOCK_comp_b", true, Location::kXdgConfigHome);
    AddMockLayer(s_, "VK_LAYER_MOCK_comp_exp", false, Location::kXdgDataDirs);
    AddMockLayer(s_, "VK_LAYER_MOCK_other", true, Location::kXdgDataDirs);
    s_.WriteLayerManifest(Location::kXdgConfigHome, true, "override.json",
                          LayerManifest("1.2.1", {LayerObject("VK_LAYER_LUNARG_override", "",
                                                              ", \"component_layers\": [\"VK_LAYER_MOCK_comp_b\", "
                                                              "\"VK_LAYER_MOCK_comp_exp\", \"VK_LAYER_MOCK_comp_a\"]" +
                                                                  DisableEnv("VK_LAYER_LUNARG_override"))}));
  }
};

// With the override active its components, implicit ones included, come after every other implicit
// layer, in component_layers order; with it disabled the same implicit layers are ordinary implicit
// layers and keep their discovery place, ahead of VK_LAYER_MOCK_other.
TEST_F(OverrideComponents, ImplicitComponentsAfterEveryOtherImplicitLayer) {
  VKT_POLICY("LLP_LOADER_11", "RULE_LYR_OVERRIDE", "RULE_LYR_META");
  ProbeResult r = Run();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  const V want = {"VK_LAYER_MOCK_other", "VK_LAYER_MOCK_comp_b", "VK_LAYER_MOCK_comp_exp", "VK_LAYER_MOCK_comp_a"};
  EXPECT_EQ(Chain(), want) << r.Describe();
  EXPECT_EQ(DeviceChain(), want) << r.Describe();

  s_.SetEnv("DISABLE_VK_LAYER_LUNARG_override", "1");
  ProbeResult off = Run();
  ASSERT_EQ(CreateResult(off), "VK_SUCCESS") << off.Describe();
  V chain = Chain();
  ASSERT_EQ(chain.size(), 3u) << off.Describe();
  EXPECT_EQ(Sorted(V(chain.begin(), chain.begin() + 2)), (V{"VK_LAYER_MOCK_comp_a", "VK_LAYER_MOCK_comp_b"}))
      << off.Describe();
  EXPECT_EQ(chain[2], "VK_LAYER_MOCK_other") << off.Describe();
}

// Naming the components or the override layer in VK_INSTANCE_LAYERS does not move them ahead of the
// other implicit layers: the override keeps its LLP_LOADER_11 place.
TEST_F(OverrideComponents, InstanceLayersDoNotMoveTheOverride) {
  VKT_POLICY("LLP_LOADER_11", "RULE_LYR_ENV_INSTANCE_LAYERS_IMPLICIT");
  s_.SetEnv("VK_INSTANCE_LAYERS", "VK_LAYER_MOCK_comp_a:VK_LAYER_LUNARG_override");
  ProbeResult r = Run();
  ASSERT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(Chain(),
            (V{"VK_LAYER_MOCK_other", "VK_LAYER_MOCK_comp_b", "VK_LAYER_MOCK_comp_exp", "VK_LAYER_MOCK_comp_a"}))
      << r.Describe();
}

// ---- per-application override (app_keys) ----------------------------------------------------

// Two copies of the probe: the override's app_keys list one (by its real path, which
// /proc/self/exe gives) and not the other.
class OverrideAppKeys : public OrderFixture {
 protected:
  void SetUp() override {
    OrderFixture::SetUp();
    listed_ = CopyProbe("listed");
    other_ = CopyProbe("other");
    AddMockLayer(s_, "VK_LAYER_MOCK_for_app", false);
    AddMockLayer(s_, "VK_LAYER_MOCK_for_all", false);
    AddMockLayer(s_, "VK_LAYER_MOCK_kept_from_app", false);
  }
  std::string CopyProbe(const std::string& sub) {
    const std::string d = s_.root() + "/apps/" + sub;
    MakeDirs(d);
    const std::string p = d + "/vkprobe";
    EXPECT_TRUE(CopyFileMode(ProbePath(), p, 0755)) << p;
    char real[PATH_MAX];
    return realpath(p.c_str(), real) != nullptr ? std::string(real) : p;
  }
  // The app-specific override (XDG_CONFIG_HOME): component for_app, blacklists kept_from_app.
  void WriteAppOverride() {
    const std::string members =
        ", \"component_layers\": [\"VK_LAYER_MOCK_for_app\"], "
        "\"blacklisted_layers\": [\"VK_LAYER_MOCK_kept_from_app\"], "
        "\"app_keys\": [\"" +
        listed_ + "\"]" + DisableEnv("VK_LAYER_LUNARG_override");
    s_.WriteLayerManifest(Location::kXdgConfigHome, true, "override_app.json",
                          LayerManifest("1.2.1", {LayerObject("VK_LAYER_LUNARG_override", "", members)}));
  }
  // The global override (XDG_DATA_DIRS): component for_all.
  void WriteGlobalOverride() {
    s_.WriteLayerManifest(Location::kXdgDataDirs, true, "override_global.json",
                          LayerManifest("1.2.1", {LayerObject("VK_LAYER_LUNARG_override", "",
                                                              ", \"component_layers\": [\"VK_LAYER_MOCK_for_all\"]" +
                                                                  DisableEnv("VK_LAYER_LUNARG_override"))}));
  }
  ProbeResult RunAs(const std::string& probe, const std::string& app_layers = "") {
    ProbeOptions o;
    o.probe = probe;
    return Run(app_layers, o);
  }
  std::string listed_, other_;
};

// Only the listed executable gets the app-specific override (its component and its blacklist); the
// other one gets the global override instead.
TEST_F(OverrideAppKeys, AppSpecificOverrideOnlyForTheListedExecutable) {
  VKT_POLICY("RULE_LYR_OVERRIDE", "LLP_LOADER_12");
  WriteAppOverride();
  WriteGlobalOverride();
  ProbeResult listed = RunAs(listed_);
  ASSERT_EQ(CreateResult(listed), "VK_SUCCESS") << listed.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_for_app"}) << listed.Describe();
  EXPECT_FALSE(Contains(LayerNames(listed), "VK_LAYER_MOCK_kept_from_app")) << listed.Describe();

  ProbeResult other = RunAs(other_);
  ASSERT_EQ(CreateResult(other), "VK_SUCCESS") << other.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_for_all"}) << other.Describe();
  EXPECT_TRUE(Contains(LayerNames(other), "VK_LAYER_MOCK_kept_from_app")) << other.Describe();
  ProbeResult other_app = RunAs(other_, "VK_LAYER_MOCK_kept_from_app");
  EXPECT_EQ(CreateResult(other_app), "VK_SUCCESS") << "not blacklisted for this executable\n" << other_app.Describe();
}

// Without a global override, an executable the app_keys do not list gets no override at all: no
// component, no blacklist, and no VK_LAYER_LUNARG_override in the layer list.
TEST_F(OverrideAppKeys, NoOverrideForAnUnlistedExecutable) {
  VKT_POLICY("RULE_LYR_OVERRIDE", "LLP_LOADER_12");
  WriteAppOverride();
  ProbeResult listed = RunAs(listed_);
  ASSERT_EQ(CreateResult(listed), "VK_SUCCESS") << listed.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_for_app"}) << listed.Describe();
  EXPECT_TRUE(Contains(LayerNames(listed), "VK_LAYER_LUNARG_override")) << listed.Describe();

  ProbeResult other = RunAs(other_);
  ASSERT_EQ(CreateResult(other), "VK_SUCCESS") << other.Describe();
  EXPECT_EQ(Chain(), V{}) << other.Describe();
  EXPECT_FALSE(Contains(LayerNames(other), "VK_LAYER_LUNARG_override")) << other.Describe();
  EXPECT_TRUE(Contains(LayerNames(other), "VK_LAYER_MOCK_kept_from_app")) << other.Describe();
}

// ---- VK_LOADER_LAYERS_ENABLE on a gated implicit layer --------------------------------------

// An implicit layer whose enable_environment variable is unset is off; VK_LOADER_LAYERS_ENABLE
// (name or glob) forces it on, in the implicit group (ahead of an explicit layer the same filter
// forces on); its own disable variable still beats the filter.
TEST_F(OrderFixture, EnableFilterForcesGatedImplicitLayerOn) {
  VKT_POLICY("RULE_LYR_FILTER_ENABLE", "LLP_LOADER_6", "LLP_LOADER_7", "RULE_LYR_ORDER");
  AddMockLayer(s_, "VK_LAYER_MOCK_first", true, Location::kXdgConfigHome);
  AddMockLayer(s_, "VK_LAYER_MOCK_gated", true, Location::kXdgDataDirs, "v2_gpdpa",
               ", \"enable_environment\": {\"MOCK_ENABLE_GATE\": \"1\"}");
  AddMockLayer(s_, "VK_LAYER_MOCK_forced_exp", false);
  ProbeResult off = Run();
  ASSERT_EQ(CreateResult(off), "VK_SUCCESS") << off.Describe();
  EXPECT_EQ(Chain(), V{"VK_LAYER_MOCK_first"}) << "gate unset: off\n" << off.Describe();

  s_.SetEnv("VK_LOADER_LAYERS_ENABLE", "VK_LAYER_MOCK_gated");
  ProbeResult named = Run();
  EXPECT_EQ(Chain(), (V{"VK_LAYER_MOCK_first", "VK_LAYER_MOCK_gated"})) << named.Describe();

  s_.SetEnv("VK_LOADER_LAYERS_ENABLE", "*_forced_exp,*GATED");
  ProbeResult glob = Run();
  const V want = {"VK_LAYER_MOCK_first", "VK_LAYER_MOCK_gated", "VK_LAYER_MOCK_forced_exp"};
  EXPECT_EQ(Chain(), want) << glob.Describe();
  EXPECT_EQ(DeviceChain(), want) << glob.Describe();

  s_.SetEnv("DISABLE_VK_LAYER_MOCK_gated", "1");
  ProbeResult disabled = Run();
  EXPECT_EQ(Chain(), (V{"VK_LAYER_MOCK_first", "VK_LAYER_MOCK_forced_exp"})) << disabled.Describe();
}

}  // namespace
}  // namespace vkt
