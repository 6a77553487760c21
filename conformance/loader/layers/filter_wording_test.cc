// The filter messages the Khronos loader prints (and that users and scripts grep for) come out in
// the same words through our loader (issue 14: documented log wording); ours only add the rule tag.
#include <string>
#include <vector>

#include "conformance/loader/common.h"
#include "conformance/loader/layers/layers_common.h"

namespace vkt {
namespace {

// The first stderr line containing `needle` (empty when none; a line may repeat once per call).
std::string OneLine(const ProbeResult& r, const std::string& needle) {
  std::vector<std::string> lines = r.LogLines(needle);
  return lines.empty() ? std::string() : lines[0];
}

// Two drivers, "keep" and "gone", the second disabled through VK_LOADER_DRIVERS_DISABLE.
void KeepAndDisabledDriver(Sandbox& s) {
  AddNamedDriver(s, "keep");
  AddNamedDriver(s, "gone");
  s.WriteDriverManifest(Location::kXdgConfigHome, "keep");
  s.WriteDriverManifest(Location::kXdgConfigHome, "gone");
  s.SetEnv("VK_LOADER_DRIVERS_DISABLE", "gone.json");
}

TEST(FilterWording, DriverFilters) {
  VKT_POLICY("RULE_DRV_FILTER_DISABLE", "RULE_DRV_FILTER_SELECT");
  Sandbox s;
  KeepAndDisabledDriver(s);
  ProbeResult r = CreateAndEnumerate(s);
  std::string line = OneLine(r, "ignored because it was disabled by env var 'VK_LOADER_DRIVERS_DISABLE'");
  EXPECT_NE(line.find("Driver \""), std::string::npos) << r.err;
  EXPECT_NE(line.find("gone.json\" ignored because"), std::string::npos) << r.err;

  s.UnsetEnv("VK_LOADER_DRIVERS_DISABLE");
  s.SetEnv("VK_LOADER_DRIVERS_SELECT", "keep.json");
  ProbeResult sel = CreateAndEnumerate(s);
  line = OneLine(sel, "ignored because not selected by env var 'VK_LOADER_DRIVERS_SELECT'");
  EXPECT_NE(line.find("gone.json\" ignored because not selected"), std::string::npos) << sel.err;
}

TEST(FilterWording, LayerFilters) {
  VKT_POLICY("RULE_LYR_FILTER_DISABLE", "RULE_LYR_FILTER_ENABLE");
  Sandbox s;
  AddNamedDriver(s, "drv");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  AddMockLayer(s, "VK_LAYER_VKT_word_explicit", false);
  AddMockLayer(s, "VK_LAYER_VKT_word_off", false);
  // An implicit layer that is off (enable_environment unset) until VK_LOADER_LAYERS_ENABLE forces it.
  AddMockLayer(s, "VK_LAYER_VKT_word_implicit", true, Location::kXdgDataDirs, "v2_gpdpa",
               ", \"enable_environment\": {\"ENABLE_VKT_WORD\": \"1\"}");
  s.SetEnv("VK_LOADER_LAYERS_ENABLE", "VK_LAYER_VKT_word_explicit,VK_LAYER_VKT_word_implicit");
  s.SetEnv("VK_LOADER_LAYERS_DISABLE", "VK_LAYER_VKT_word_off");
  ProbeResult r = RunProbe(s, {"instance-layers", "create-instance", "destroy-instance"});
  EXPECT_NE(OneLine(r, "Layer \"VK_LAYER_VKT_word_explicit\" forced enabled due to env var 'VK_LOADER_LAYERS_ENABLE'"),
            "")
      << r.err;
  EXPECT_NE(OneLine(r,
                    "Implicit layer \"VK_LAYER_VKT_word_implicit\" forced enabled due to env var "
                    "'VK_LOADER_LAYERS_ENABLE'."),
            "")
      << r.err;
  EXPECT_FALSE(r.LogLines("Layer \"VK_LAYER_VKT_word_off\" forced disabled because name matches filter of env var "
                          "'VK_LOADER_LAYERS_DISABLE'.")
                   .empty())
      << r.err;
}

// The other lines the Khronos loader's own tests and its users grep for (spec §2.2 / §7.12):
// "vkCreateInstance: Found no drivers!" (LDP_LOADER_1) and the call-stack line naming each layer
// put into an instance's chain, `Insert instance layer "<name>" (<library>)`.
TEST(LoaderWording, FoundNoDrivers) {
  VKT_POLICY("LDP_LOADER_1", "RULE_LOG_FORMAT");
  VKT_REQUIRE_ISOLATION();
  Sandbox s;
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(CreateResult(r), "VK_ERROR_INCOMPATIBLE_DRIVER") << r.Describe();
  EXPECT_NE(OneLine(r, "vkCreateInstance: Found no drivers!"), "") << r.err;
}

TEST(LoaderWording, InsertInstanceLayer) {
  VKT_POLICY("RULE_LOG_FORMAT");
  Sandbox s;
  AddNamedDriver(s, "drv");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  AddMockLayer(s, "VK_LAYER_VKT_word_chain", false);
  s.SetEnv("VK_INSTANCE_LAYERS", "VK_LAYER_VKT_word_chain");
  ProbeResult r = RunProbe(s, {"create-instance", "destroy-instance"});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  std::string line = OneLine(r, "Insert instance layer \"VK_LAYER_VKT_word_chain\" (");
  EXPECT_NE(line, "") << r.err;
  EXPECT_NE(line.find(".so)"), std::string::npos) << line;  // the library it loaded
}

// Each layer manifest found is named in the words the Khronos loader's own tests grep for (spec
// §7.12), with VK_LOADER_DEBUG=all (the Khronos loader writes the line at INFO).
TEST(LoaderWording, FoundManifestFile) {
  VKT_POLICY("RULE_LOG_FORMAT", "LLP_LOADER_1");
  Sandbox s;
  AddNamedDriver(s, "drv");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  std::string manifest = AddMockLayer(s, "VK_LAYER_VKT_word_found", false);
  s.SetEnv("VK_LOADER_DEBUG", "all");
  ProbeResult r = RunProbe(s, {"instance-layers", "create-instance", "destroy-instance"});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_NE(OneLine(r, "Found manifest file " + manifest), "") << r.err;
}

// The header of a line as spec §7.11 shows it: "[Vulkan Loader] <SEVERITY> | <CATEGORY>: ", the
// message from column 32 (the header padded with spaces) or right after a longer header.
TEST(LoaderWording, HeaderNamesSeverityAndCategory) {
  VKT_POLICY("RULE_LOG_FORMAT");
  Sandbox s;
  KeepAndDisabledDriver(s);
  s.SetEnv("VK_LOADER_DEBUG", "all");
  ProbeResult r = CreateAndEnumerate(s);
  // a WARNING | DRIVER line whose header is longer than 32 columns
  // (the documents' words first, the manifest's file name as [Drv] "Driver Disable Filtering" shows it;
  // what follows is ours: the path and the rule)
  std::string disabled = OneLine(r, "ignored because it was disabled by env var");
  EXPECT_EQ(disabled.rfind("[Vulkan Loader] WARNING | DRIVER: Driver \"gone.json\" ignored because it was disabled "
                           "by env var 'VK_LOADER_DRIVERS_DISABLE'",
                           0),
            0u)
      << disabled;
  // an ERROR line (no category) padded to column 32
  Sandbox none;
  ProbeResult n = CreateAndEnumerate(none);
  std::string line = OneLine(n, "Found no drivers!");
  EXPECT_EQ(line.rfind("[Vulkan Loader] ERROR", 0), 0u) << n.err;
  EXPECT_EQ(line.find("vkCreateInstance: Found no drivers!"), 32u) << line;
}

}  // namespace
}  // namespace vkt
