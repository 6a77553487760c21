// The layer matrix: layer manifest version x layer export variant (interface 0/1/2, with and
// without negotiation / GPDPA, renamed exports) x layer path/filter variable x privilege. Every
// cell and its expected outcome is a row of layer_matrix.tsv (see its header, written by
// gen_layer_matrix.py); this file only knows how to build a cell and check it.
//
// Two mock layers append their calls to one shared file, so the order of their vkCreateInstance
// records is the chain order: "L" (the layer under test, VK_LAYER_MOCK_matrix_L) and the control
// layer "C" (VK_LAYER_MOCK_matrix_C) in a fixed system directory. The fixed directories come from
// the private mount namespace (VKT_REQUIRE_ISOLATION); privileged cells run a set-uid / set-gid /
// capable copy of vkprobe as uid 65534 (matrix_common.h, conformance/framework/elevated.h).
#include <sys/stat.h>

#include <string>
#include <vector>

#include "conformance/loader/matrix/matrix_common.h"

namespace vkt {
namespace {

using matrix::CreateResult;
using matrix::Row;

// The IDs layer_matrix.tsv may cite (the coverage gate reads this table; the test checks every
// row against it).
const char* const kRules[] = {
    "RULE_LYR_MANIFEST_V1_0_0",
    "RULE_LYR_MANIFEST_V1_0_1",
    "RULE_LYR_MANIFEST_V1_1_0",
    "RULE_LYR_MANIFEST_V1_1_1",
    "RULE_LYR_MANIFEST_V1_1_2",
    "RULE_LYR_MANIFEST_V1_2_0",
    "RULE_LYR_MANIFEST_V1_2_1",
    "RULE_LYR_IFACE_V0",
    "RULE_LYR_IFACE_V1",
    "RULE_LYR_IFACE_V2",
    "RULE_LYR_ENV_LAYER_PATH",
    "RULE_LYR_ENV_IMPLICIT_LAYER_PATH",
    "RULE_LYR_ENV_INSTANCE_LAYERS",
    "RULE_LYR_FILTER_ENABLE",
    "RULE_LYR_FILTER_DISABLE",
    "RULE_LYR_FILTER_ALLOW",
    "RULE_LYR_ORDER",
    "LLP_LOADER_6",
    "LLP_LOADER_7",
    "LLP_LOADER_13",
    "RULE_ENV_ELEVATED",
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
};

constexpr const char* kL = "VK_LAYER_MOCK_matrix_L";
constexpr const char* kC = "VK_LAYER_MOCK_matrix_C";

// The layer object of the manifest, in the form manifest version `mv` allows: one "layer" object
// (1.0.0) or a "layers" array (1.0.1 and later); renamed exports through "functions"; library_arch
// from 1.2.1.
std::string Manifest(const std::string& mv, const std::string& name, const std::string& lib, const std::string& variant,
                     const std::string& extra) {
  std::string o = "{\"name\":\"" + name + "\",\"type\":\"GLOBAL\",\"library_path\":\"" + lib +
                  "\",\"api_version\":\"1.3.0\",\"implementation_version\":\"1\",\"description\":\"matrix\"";
  if (variant == "v1_renamed")
    o += ",\"functions\":{\"vkGetInstanceProcAddr\":\"MockLayer_GetInstanceProcAddr\","
         "\"vkGetDeviceProcAddr\":\"MockLayer_GetDeviceProcAddr\"}";
  if (variant == "v2_renamed")
    o += ",\"functions\":{\"vkNegotiateLoaderLayerInterfaceVersion\":\"MockLayer_Negotiate\"}";
  if (mv == "1.2.1") o += ",\"library_arch\":\"64\"";
  o += extra + "}";
  std::string head = "{\"file_format_version\":\"" + mv + "\",";
  if (mv == "1.0.0") return head + "\"layer\":" + o + "}\n";
  return head + "\"layers\":[" + o + "]}\n";
}

// Layer names in the order of their vkCreateInstance records ("L C"), "-" when none.
std::string Chain(const std::string& calls_file) {
  std::string text = ReadFileText(calls_file), out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    Json j = Json::Parse(text.substr(pos, nl - pos));
    pos = nl + 1;
    if (!j.valid() || j["call"].str() != "vkCreateInstance") continue;
    std::string who = j["layer"].str() == kL ? "L" : j["layer"].str() == kC ? "C" : j["layer"].str();
    out += (out.empty() ? "" : " ") + who;
  }
  return out.empty() ? "-" : out;
}

class LayerMatrix : public matrix::CellTest {};

TEST_P(LayerMatrix, Cell) {
  VKT_POLICY(Rules());
  matrix::Cell* c = OpenCell(kRules, "layer_matrix.tsv");
  if (c == nullptr) return;  // failed (a wrong row) or skipped (cannot run here)
  const std::string var = row_["var"], mv = row_["manifest"], variant = row_["variant"];
  AddControlDriver(c);
  // Every user search base inside the cell directory (empty unless the cell puts L there).
  c->EmptyUserBases();
  s_.SetEnv("VK_LOADER_DEBUG", "all");

  std::string calls_dir = c->Dir("calls");
  chmod(calls_dir.c_str(), 0777);  // the unprivileged probe's layers append here
  const std::string calls = calls_dir + "/calls.jsonl";
  auto scenario = [&](const char* name) {
    return std::string("{\"name\":\"") + name + "\",\"calls_file\":\"" + calls + "\"}";
  };
  std::string l_lib = c->AddLayerLibrary("L", variant, scenario(kL));
  std::string c_lib = c->AddLayerLibrary("C", "v2", scenario(kC));

  const bool l_explicit = var == "VK_LAYER_PATH" || var == "VK_ADD_LAYER_PATH" || var == "VK_INSTANCE_LAYERS" ||
                          var == "VK_LOADER_LAYERS_ENABLE";
  auto system_dir = [&](bool implicit) {
    std::string d = s_.SystemBacking("/etc/vulkan") + (implicit ? "/implicit_layer.d" : "/explicit_layer.d");
    MakeDirs(d);
    return d;
  };
  const std::string disable_l = ",\"disable_environment\":{\"VKT_MATRIX_L_OFF\":\"1\"}";
  const std::string disable_c = ",\"disable_environment\":{\"VKT_MATRIX_C_OFF\":\"1\"}";
  // C: implicit beside an explicit L, explicit (requested by the application) beside an implicit L.
  s_.WriteFile(system_dir(l_explicit) + "/c.json", Manifest("1.1.2", kC, c_lib, "v2", l_explicit ? disable_c : ""));
  std::string create = l_explicit ? "create-instance" : std::string("create-instance:layers=") + kC;

  if (var == "VK_LAYER_PATH" || var == "VK_ADD_LAYER_PATH" || var == "VK_IMPLICIT_LAYER_PATH" ||
      var == "VK_ADD_IMPLICIT_LAYER_PATH") {
    std::string dir = c->Dir("loose_layers");
    c->Write(dir + "/l.json", Manifest(mv, kL, l_lib, variant, l_explicit ? "" : disable_l));
    s_.SetEnv(var, dir);
    if (l_explicit) create = std::string("create-instance:layers=") + kL;
  } else if (var == "VK_INSTANCE_LAYERS" || var == "VK_LOADER_LAYERS_ENABLE") {
    s_.WriteFile(system_dir(false) + "/l.json", Manifest(mv, kL, l_lib, variant, ""));
    s_.SetEnv(var, kL);
  } else if (var == "VK_LOADER_LAYERS_DISABLE") {
    s_.WriteFile(system_dir(true) + "/l.json", Manifest(mv, kL, l_lib, variant, disable_l));
    s_.SetEnv(var, kL);
  } else if (var == "VK_LOADER_LAYERS_ALLOW") {
    s_.WriteFile(system_dir(true) + "/l.json", Manifest(mv, kL, l_lib, variant, disable_l));
    s_.SetEnv("VK_LOADER_LAYERS_DISABLE", "~implicit~");
    s_.SetEnv(var, kL);
  } else if (var == "enable_environment") {
    s_.WriteFile(system_dir(true) + "/l.json",
                 Manifest(mv, kL, l_lib, variant, disable_l + ",\"enable_environment\":{\"VKT_MATRIX_L_ON\":\"1\"}"));
    s_.SetEnv("VKT_MATRIX_L_ON", "1");
  } else if (var == "disable_environment") {
    s_.WriteFile(system_dir(true) + "/l.json", Manifest(mv, kL, l_lib, variant, disable_l));
    s_.SetEnv("VKT_MATRIX_L_OFF", "1");
  } else {
    FAIL() << "layer_matrix.tsv: unknown var " << var;
  }

  ProbeResult r = c->Run({"env-dump", create, "destroy-instance"});
  ASSERT_EQ(r.Step("env-dump")["at_secure"].num(), c->elevated() ? 1 : 0) << "AT_SECURE not as the cell needs\n"
                                                                          << r.Describe();
  EXPECT_EQ(CreateResult(r), row_["result"]) << r.Describe();
  EXPECT_EQ(Chain(calls), row_["chain"]) << "layer chain (first = closest to the application)\n"
                                         << ReadFileText(calls) << r.Describe();
  if (LoaderName() == "ours" && row_["log"] != "-") {
    // VK_LOADER_LAYERS_ALLOW is only read after the DISABLE it qualifies, so its cells name DISABLE.
    std::string logged = var == "VK_LOADER_LAYERS_ALLOW" ? "VK_LOADER_LAYERS_DISABLE" : var;
    std::string needle =
        "env " + logged + ": ignored because the process runs with elevated privileges [" + row_["log"] + "]";
    EXPECT_TRUE(r.LogContains(needle)) << "no log line: " << needle << "\n" << r.Describe();
  }
}

INSTANTIATE_TEST_SUITE_P(Layers, LayerMatrix,
                         ::testing::ValuesIn(matrix::LoadTsv("conformance/loader/matrix/layer_matrix.tsv")),
                         matrix::CellName());

}  // namespace
}  // namespace vkt
