// The filter messages the Khronos loader prints (and that users and scripts grep for) come out in
// the same words through our loader (RULE_LOG_FORMAT: documented log wording); ours only add the rule tag.
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

// Each driver manifest found is named with the Khronos loader's "Found ICD manifest file <path>"
// (its users grep for that prefix and the file name on one line).
TEST(LoaderWording, FoundIcdManifestFile) {
  VKT_POLICY("RULE_LOG_FORMAT", "RULE_DRV_SEARCH_DIR_SCAN");
  Sandbox s;
  AddNamedDriver(s, "drv");
  std::string manifest = s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  s.SetEnv("VK_LOADER_DEBUG", "all");
  ProbeResult r = RunProbe(s, {"create-instance", "destroy-instance"});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_NE(OneLine(r, "Found ICD manifest file " + manifest), "") << r.err;
}

// A file that dlopen refuses before anything else: a 32-bit ELF header ("wrong ELF class: ELFCLASS32"
// from a 64-bit process), padded to the size of a 64-bit header so it is not "too short".
std::string Elf32Header() {
  std::string h(
      "\x7f"
      "ELF\x01\x01\x01",
      7);
  h.resize(16, '\0');
  h += std::string("\x03\x00\x03\x00\x01\x00\x00\x00", 8);  // ET_DYN, EM_386, EV_CURRENT
  h.resize(64, '\0');
  return h;
}

// The line of a severity ("ERROR", "INFO") holding `needle`: both loaders start a line with the
// severity word, after "[Vulkan Loader] " in the current format.
bool LoggedAs(const ProbeResult& r, const std::string& severity, const std::string& needle) {
  for (const std::string& l : r.LogLines(needle)) {
    size_t at = l.rfind("[Vulkan Loader] ", 0) == 0 ? 16 : 0;
    if (l.compare(at, severity.size(), severity) == 0) return true;
  }
  return false;
}

// A driver library of the other word size is expected where 32- and 64-bit drivers share the
// manifest directories: the dlopen error ("wrong ELF class") at INFO, not ERROR, as the Khronos
// loader logs it; the other drivers work.
TEST(LoaderWording, DriverOfTheOtherWordSizeIsInfo) {
  VKT_POLICY("RULE_LOG_FORMAT", "LDP_DRIVER_4");
  Sandbox s;
  AddNamedDriver(s, "drv");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  std::string lib = s.root() + "/elf32/libelf32_icd.so";
  s.WriteFile(lib, Elf32Header());
  s.WriteManifest(
      Location::kXdgConfigHome, "elf32.json",
      "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" + lib + "\", \"api_version\": \"1.3.0\"}}");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), std::vector<std::string>{"drv-dev"}) << r.Describe();
  EXPECT_TRUE(LoggedAs(r, "INFO", "wrong ELF class: ELFCLASS32")) << r.err;
  EXPECT_FALSE(LoggedAs(r, "ERROR", "wrong ELF class: ELFCLASS32")) << r.err;
}

// A layer library that cannot be opened: "Requested layer "<name>" was wrong bit-type" for one of
// the other word size, "failed to load" for anything else; "!" and ERROR when the application asked
// for the layer (vkCreateInstance fails), "." and INFO for an implicit layer (only skipped). Every
// layer is reported, also those after the first that fails.
TEST(LoaderWording, LayerLibraryThatCannotBeLoaded) {
  VKT_POLICY("RULE_LOG_FORMAT", "LLP_LAYER_6");
  Sandbox s;
  AddNamedDriver(s, "drv");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  std::string elf32 = s.root() + "/badlibs/libelf32_layer.so";
  std::string text = s.root() + "/badlibs/libtext_layer.so";
  s.WriteFile(elf32, Elf32Header());
  s.WriteFile(text, "not a shared object\n");
  s.WriteLayerManifest(Location::kXdgDataDirs, false, "wrong_explicit.json",
                       LayerManifest("1.2.1", {LayerObject("VK_LAYER_VKT_wrong_explicit", elf32)}));
  s.WriteLayerManifest(Location::kXdgDataDirs, false, "bad_explicit.json",
                       LayerManifest("1.2.1", {LayerObject("VK_LAYER_VKT_bad_explicit", text)}));
  s.WriteLayerManifest(Location::kXdgDataDirs, true, "wrong_implicit.json",
                       LayerManifest("1.2.1", {LayerObject("VK_LAYER_VKT_wrong_implicit", elf32,
                                                           DisableEnv("VK_LAYER_VKT_wrong_implicit"))}));
  s.WriteLayerManifest(Location::kXdgDataDirs, true, "bad_implicit.json",
                       LayerManifest("1.2.1", {LayerObject("VK_LAYER_VKT_bad_implicit", text,
                                                           DisableEnv("VK_LAYER_VKT_bad_implicit"))}));
  ProbeResult r = RunProbe(s, {"create-instance:layers=VK_LAYER_VKT_wrong_explicit", "create-instance",
                               "destroy-instance", "create-instance:layers=VK_LAYER_VKT_bad_explicit"});
  EXPECT_EQ(r.Step("create-instance", 0)["result"].str(), "VK_ERROR_LAYER_NOT_PRESENT") << r.Describe();
  EXPECT_EQ(r.Step("create-instance", 1)["result"].str(), "VK_SUCCESS") << r.Describe();
  EXPECT_EQ(r.Step("create-instance", 2)["result"].str(), "VK_ERROR_LAYER_NOT_PRESENT") << r.Describe();
  EXPECT_TRUE(LoggedAs(r, "ERROR", "Requested layer \"VK_LAYER_VKT_wrong_explicit\" was wrong bit-type!")) << r.err;
  EXPECT_TRUE(LoggedAs(r, "ERROR", "Requested layer \"VK_LAYER_VKT_bad_explicit\" failed to load!")) << r.err;
  EXPECT_TRUE(LoggedAs(r, "INFO", "Requested layer \"VK_LAYER_VKT_wrong_implicit\" was wrong bit-type.")) << r.err;
  EXPECT_TRUE(LoggedAs(r, "INFO", "Requested layer \"VK_LAYER_VKT_bad_implicit\" failed to load.")) << r.err;
}

// Two warnings the Khronos loader sends to the debug callbacks and its users look for: that
// VK_INSTANCE_LAYERS adds layers (with the variable's value), and that an active layer was built for
// an older Vulkan (major.minor) than the application asks for (RULE_LYR_ENV_INSTANCE_LAYERS,
// LLP_LOADER_4). A layer as new as the application's request draws no such line.
TEST(LoaderWording, InstanceLayersVariableAndOlderLayerWarn) {
  VKT_POLICY("RULE_LOG_FORMAT", "RULE_LYR_ENV_INSTANCE_LAYERS", "LLP_LOADER_4");
  Sandbox s;
  AddNamedDriver(s, "drv");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  const Layer& old_layer = s.AddLayer("VK_LAYER_VKT_word_old", "v2_gpdpa");
  s.WriteLayerManifest(Location::kXdgDataDirs, false, "old.json",
                       LayerManifest("1.2.1", {LayerObject("VK_LAYER_VKT_word_old", old_layer.library, "", "1.1.0")}));
  AddMockLayer(s, "VK_LAYER_VKT_word_new", false);
  s.SetEnv("VK_INSTANCE_LAYERS", "VK_LAYER_VKT_word_old:VK_LAYER_VKT_word_new");
  s.SetEnv("VK_LOADER_DEBUG", "warn");
  ProbeResult r = RunProbe(s, {"create-instance:api=1.3", "destroy-instance"});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_TRUE(LoggedAs(r, "WARNING",
                       "env var 'VK_INSTANCE_LAYERS' defined and adding layers \"VK_LAYER_VKT_word_old:"
                       "VK_LAYER_VKT_word_new\""))
      << r.err;
  EXPECT_TRUE(LoggedAs(r, "WARNING",
                       "Layer VK_LAYER_VKT_word_old uses API version 1.1 which is older than the application "
                       "specified API version of 1.3. May cause issues."))
      << r.err;
  EXPECT_TRUE(r.LogLines("Layer VK_LAYER_VKT_word_new uses API version").empty()) << r.err;
}

// library_arch naming the other word size: the driver or layer is skipped without dlopen, with the
// Khronos loader's sentences.
TEST(LoaderWording, DriverLibraryArchMismatch) {
  VKT_POLICY("RULE_LOG_FORMAT", "RULE_DRV_LIBRARY_ARCH");
  Sandbox s;
  AddNamedDriver(s, "a");
  AddNamedDriver(s, "good");
  ManifestSpec m = s.ManifestFor("a");
  m.file_format_version = "1.0.1";
  m.library_arch = sizeof(void*) == 8 ? "32" : "64";
  s.WriteManifest(Location::kXdgConfigHome, "a.json", m.ToJson());
  s.WriteDriverManifest(Location::kXdgConfigHome, "good");
  ProbeResult r = CreateAndEnumerate(s);
  EXPECT_EQ(r.DeviceNames(), std::vector<std::string>{"good-dev"}) << r.Describe();
  EXPECT_TRUE(LoggedAs(r, "INFO",
                       "loader_parse_icd_manifest: Driver library architecture doesn't match the current running "
                       "architecture, skipping this driver"))
      << r.err;
}

TEST(LoaderWording, LayerLibraryArchMismatch) {
  VKT_POLICY("RULE_LOG_FORMAT", "RULE_LYR_MANIFEST_V1_2_1");
  Sandbox s;
  AddNamedDriver(s, "drv");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  std::string manifest = AddMockLayer(s, "VK_LAYER_VKT_word_arch", false, Location::kXdgDataDirs, "v2_gpdpa",
                                      sizeof(void*) == 8 ? ", \"library_arch\": \"32\"" : ", \"library_arch\": \"64\"");
  ProbeResult r = RunProbe(s, {"create-instance:layers=VK_LAYER_VKT_word_arch"});
  EXPECT_EQ(CreateResult(r), "VK_ERROR_LAYER_NOT_PRESENT") << r.Describe();
  EXPECT_TRUE(LoggedAs(r, "INFO",
                       "The library architecture in layer " + manifest +
                           " doesn't match the current running architecture, skipping this layer"))
      << r.err;
}

// A layer manifest of a file_format_version the loader does not know is read anyway, with the
// Khronos loader's sentence naming the manifest.
TEST(LoaderWording, LayerManifestUnknownVersion) {
  VKT_POLICY("RULE_LOG_FORMAT", "RULE_LYR_MANIFEST_V1_2_1");
  Sandbox s;
  AddNamedDriver(s, "drv");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  std::string manifest =
      AddMockLayer(s, "VK_LAYER_VKT_word_version", false, Location::kXdgDataDirs, "v2_gpdpa", "", "", "3.2.1");
  ProbeResult r = RunProbe(s, {"instance-layers"});
  EXPECT_TRUE(LoggedAs(r, "INFO",
                       "loader_add_layer_properties: " + manifest +
                           " has unknown layer manifest file version 3.2.1.  May cause errors."))
      << r.err;
}

// Meta-layers the loader drops, in the Khronos loader's sentences: a component that is not
// installed, and a meta-layer naming itself among its components.
TEST(LoaderWording, InvalidMetaLayers) {
  VKT_POLICY("RULE_LOG_FORMAT", "LLP_LAYER_7", "LLP_LOADER_10");
  Sandbox s;
  AddNamedDriver(s, "drv");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  s.WriteLayerManifest(Location::kXdgDataDirs, false, "missing.json",
                       LayerManifest("1.1.1", {LayerObject("VK_LAYER_VKT_meta_missing", "",
                                                           ", \"component_layers\": [\"VK_LAYER_VKT_not_here\"]")}));
  s.WriteLayerManifest(Location::kXdgDataDirs, false, "self.json",
                       LayerManifest("1.1.1", {LayerObject("VK_LAYER_VKT_meta_self", "",
                                                           ", \"component_layers\": [\"VK_LAYER_VKT_meta_self\"]")}));
  ProbeResult r = RunProbe(s, {"instance-layers"});
  EXPECT_TRUE(LayerNames(r).empty()) << r.Describe();
  EXPECT_TRUE(LoggedAs(r, "WARNING",
                       "verify_meta_layer_component_layers: Meta-layer VK_LAYER_VKT_meta_missing can't find component "
                       "layer VK_LAYER_VKT_not_here at index "
                       "0.  Skipping this layer."))
      << r.err;
  EXPECT_TRUE(LoggedAs(r, "WARNING",
                       "verify_meta_layer_component_layers: Meta-layer VK_LAYER_VKT_meta_self lists itself in its "
                       "component layer list at index 0.  "
                       "Skipping this layer."))
      << r.err;
}

// Meta-layers in the Khronos loader's sentences, which its users grep for: the removal of an invalid
// one, a component older than the meta-layer, a meta-layer among the components, and each component
// extension the meta-layer offers (DEBUG).
TEST(LoaderWording, MetaLayerSentences) {
  VKT_POLICY("RULE_LOG_FORMAT", "LLP_LAYER_7", "LLP_LAYER_8", "RULE_LYR_META");
  Sandbox s;
  AddNamedDriver(s, "drv");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  AddMockLayer(s, "VK_LAYER_VKT_comp_dev", false, Location::kXdgDataDirs, "v2_gpdpa",
               ", \"device_extensions\": [{\"name\": \"VK_EXT_vkt_comp_ext\", \"spec_version\": \"1\"}]", "", "1.2.1");
  const Layer& old = s.AddLayer("VK_LAYER_VKT_comp_old", "v2_gpdpa");
  s.WriteLayerManifest(Location::kXdgDataDirs, false, "old.json",
                       LayerManifest("1.2.1", {LayerObject(old.name, old.library, "", "1.1.0")}));
  s.WriteLayerManifest(
      Location::kXdgDataDirs, false, "metas.json",
      LayerManifest(
          "1.1.1", {LayerObject("VK_LAYER_VKT_meta_inner", "", ", \"component_layers\": [\"VK_LAYER_VKT_comp_dev\"]"),
                    LayerObject("VK_LAYER_VKT_meta_outer", "", ", \"component_layers\": [\"VK_LAYER_VKT_meta_inner\"]"),
                    LayerObject("VK_LAYER_VKT_meta_newer", "", ", \"component_layers\": [\"VK_LAYER_VKT_comp_old\"]",
                                "1.3.0")}));
  ProbeResult r = RunProbe(s, {"instance-layers"});
  EXPECT_TRUE(LoggedAs(r, "WARNING",
                       "verify_meta_layer_component_layers: Meta-layer uses API version 1.3, but component layer 0 has "
                       "API version 1.1 that is lower.  Skipping this layer."))
      << r.err;
  EXPECT_TRUE(LoggedAs(
      r, "DEBUG", "Removing meta-layer VK_LAYER_VKT_meta_newer from instance layer list since it appears invalid."))
      << r.err;
  EXPECT_TRUE(LoggedAs(r, "INFO",
                       "verify_meta_layer_component_layers: Adding meta-layer VK_LAYER_VKT_meta_outer which also "
                       "contains meta-layer VK_LAYER_VKT_meta_inner"))
      << r.err;
  EXPECT_TRUE(LoggedAs(r, "DEBUG",
                       "Meta-layer VK_LAYER_VKT_meta_inner component layer VK_LAYER_VKT_comp_dev adding device "
                       "extension VK_EXT_vkt_comp_ext"))
      << r.err;
}

// A layer VK_INSTANCE_LAYERS names that is not installed: an ERROR line in the Khronos loader's
// words; vkCreateInstance goes on without it.
TEST(LoaderWording, InstanceLayersNamesAMissingLayer) {
  VKT_POLICY("RULE_LOG_FORMAT", "RULE_LYR_ENV_INSTANCE_LAYERS");
  Sandbox s;
  AddNamedDriver(s, "drv");
  s.WriteDriverManifest(Location::kXdgConfigHome, "drv");
  s.SetEnv("VK_INSTANCE_LAYERS", "VK_LAYER_VKT_i_dont_exist");
  ProbeResult r = RunProbe(s, {"create-instance", "destroy-instance"});
  EXPECT_EQ(CreateResult(r), "VK_SUCCESS") << r.Describe();
  EXPECT_TRUE(LoggedAs(r, "ERROR",
                       "Layer \"VK_LAYER_VKT_i_dont_exist\" was not found but was requested by env var "
                       "VK_INSTANCE_LAYERS!"))
      << r.err;
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
