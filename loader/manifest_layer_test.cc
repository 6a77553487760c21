// Unit tests for loader/manifest_layer.c: every layer-manifest version and rule, one log line each.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "loader/internal/layer.h"
}

namespace {

using Lines = std::vector<std::pair<uint32_t, std::string>>;

struct Result {
    VkResult result;
    vkl_layer_manifest_file f{};
    Lines lines;
    ~Result() { vkl_layer_manifest_file_finish(&f); }
    const vkl_layer_manifest &L(uint32_t i = 0) const { return f.layers[i]; }
    bool Logged(const std::string &needle) const {
        for (auto &l : lines)
            if (l.second.find(needle) != std::string::npos) return true;
        return false;
    }
};

void Emit(void *ctx, uint32_t flags, const char *line) { static_cast<Lines *>(ctx)->emplace_back(flags, line); }

std::unique_ptr<Result> Parse(const std::string &json, bool implicit = false, const char *path = "/m/d/x.json") {
    auto r = std::make_unique<Result>();
    vkl_log_set_level_for_testing(0);
    vkl_log_sink sink{Emit, &r->lines};
    r->result = vkl_layer_manifest_parse(path, json.data(), json.size(), implicit, &sink, &r->f);
    return r;
}

std::string Layer(const std::string &extra = "", const std::string &name = "VK_LAYER_test_a",
                  const std::string &lib = "\"library_path\": \"./liba.so\"") {
    return "{\"name\": \"" + name + "\", \"type\": \"GLOBAL\", " + lib + (lib.empty() ? "" : ", ") +
           "\"api_version\": \"1.3.250\", \"implementation_version\": \"7\", \"description\": \"desc\"" + extra + "}";
}
std::string File(const std::string &ver, const std::string &layer) {
    return "{\"file_format_version\": \"" + ver + "\", \"layer\": " + layer + "}";
}

// RULE_LYR_MANIFEST_V1_0_0: the basic fields.
TEST(LayerManifest, V100Basic) {
    auto r = Parse(File("1.0.0", Layer()));
    ASSERT_EQ(r->result, VK_SUCCESS);
    ASSERT_EQ(r->f.count, 1u);
    EXPECT_STREQ(r->L().props.layerName, "VK_LAYER_test_a");
    EXPECT_EQ(r->L().props.specVersion, VK_MAKE_API_VERSION(0, 1, 3, 250));
    EXPECT_EQ(r->L().props.implementationVersion, 7u);
    EXPECT_STREQ(r->L().props.description, "desc");
    EXPECT_STREQ(r->L().library_path, "/m/d/./liba.so");
    EXPECT_STREQ(r->L().manifest_path, "/m/d/x.json");
    EXPECT_FALSE(r->L().is_meta);
    EXPECT_TRUE(r->lines.empty());
}

TEST(LayerManifest, LibraryPathForms) {
    auto abs = Parse(File("1.0.0", Layer("", "VK_LAYER_a", "\"library_path\": \"/abs/l.so\"")));
    EXPECT_STREQ(abs->L().library_path, "/abs/l.so");
    auto bare = Parse(File("1.0.0", Layer("", "VK_LAYER_a", "\"library_path\": \"libl.so\"")));
    EXPECT_STREQ(bare->L().library_path, "libl.so");
    auto empty = Parse(File("1.0.0", Layer("", "VK_LAYER_a", "\"library_path\": \"\"")));
    EXPECT_EQ(empty->f.count, 0u);
    EXPECT_TRUE(empty->Logged("'library_path' is empty"));
}

TEST(LayerManifest, MissingFieldsSkipLayerWithOneLine) {
    const std::vector<std::pair<std::string, std::string>> fields = {
        {"name", "\"VK_LAYER_a\""},          {"type", "\"GLOBAL\""},
        {"library_path", "\"a.so\""},        {"api_version", "\"1.0.0\""},
        {"implementation_version", "\"1\""}, {"description", "\"d\""}};
    for (size_t skip = 0; skip < fields.size(); skip++) {
        std::string l = "{";
        for (size_t i = 0; i < fields.size(); i++) {
            if (i == skip) continue;
            if (l.size() > 1) l += ", ";
            l += "\"" + fields[i].first + "\": " + fields[i].second;
        }
        l += "}";
        auto r = Parse(File("1.0.0", l));
        SCOPED_TRACE(fields[skip].first);
        ASSERT_EQ(r->result, VK_SUCCESS) << l;
        EXPECT_EQ(r->f.count, 0u);
        ASSERT_EQ(r->lines.size(), 1u);
        EXPECT_NE(r->lines[0].second.find("field '" + fields[skip].first + "' is missing"), std::string::npos);
        EXPECT_NE(r->lines[0].second.find("[LLP_LAYER_6]"), std::string::npos);
        EXPECT_NE(r->lines[0].second.find("/m/d/x.json"), std::string::npos);
        EXPECT_TRUE(r->lines[0].first & VKL_LOG_LAYER);
    }
}

TEST(LayerManifest, WrongTypes) {
    auto r = Parse(File("1.0.0", "{\"name\": 5, \"type\": \"GLOBAL\"}"));
    EXPECT_EQ(r->f.count, 0u);
    EXPECT_TRUE(r->Logged("field 'name' has type number"));
    auto r2 = Parse(File("1.0.0", Layer(", \"functions\": []")));
    EXPECT_EQ(r2->f.count, 0u);
    EXPECT_TRUE(r2->Logged("'functions' has type array"));
}

TEST(LayerManifest, FileLevelRejections) {
    auto notjson = Parse("{nope");
    EXPECT_EQ(notjson->result, VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_TRUE(notjson->Logged("not valid JSON"));
    auto arr = Parse("[]");
    EXPECT_EQ(arr->result, VK_ERROR_INITIALIZATION_FAILED);
    auto nover = Parse("{\"layer\": " + Layer() + "}");
    EXPECT_EQ(nover->result, VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_TRUE(nover->Logged("'file_format_version' is missing"));
    auto nolayer = Parse("{\"file_format_version\": \"1.0.0\"}");
    EXPECT_EQ(nolayer->result, VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_TRUE(nolayer->Logged("'layer' (or 'layers') is missing"));
    for (auto *r : {notjson.get(), arr.get(), nover.get(), nolayer.get()}) {
        EXPECT_EQ(r->lines.size(), 1u);
        EXPECT_TRUE(r->Logged("[LLP_LAYER_6]"));
    }
}

TEST(LayerManifest, UnknownVersionAcceptedWithInfo) {
    auto r = Parse(File("3.2.1", Layer()));
    ASSERT_EQ(r->f.count, 1u);
    ASSERT_EQ(r->lines.size(), 1u);
    EXPECT_TRUE(r->lines[0].first & VKL_LOG_INFO);
    EXPECT_TRUE(r->Logged("has unknown layer manifest file version 3.2.1.  May cause errors."));
}

// RULE_LYR_MANIFEST_V1_0_1: `layers` arrays; sibling `layer` keys.
TEST(LayerManifest, V101LayersArray) {
    auto r = Parse("{\"file_format_version\": \"1.0.1\", \"layers\": [" + Layer() + ", " +
                   Layer("", "VK_LAYER_test_b") + ", 7, " + Layer("", "VK_LAYER_test_c") + "]}");
    ASSERT_EQ(r->result, VK_SUCCESS);
    ASSERT_EQ(r->f.count, 3u);
    EXPECT_STREQ(r->L(1).props.layerName, "VK_LAYER_test_b");
    EXPECT_STREQ(r->L(2).props.layerName, "VK_LAYER_test_c");
    EXPECT_TRUE(r->Logged("a layer entry has type number"));
    auto old = Parse("{\"file_format_version\": \"1.0.0\", \"layers\": [" + Layer() + "]}");
    EXPECT_EQ(old->f.count, 1u);
    EXPECT_TRUE(old->Logged("[RULE_LYR_MANIFEST_V1_0_1]"));
}

TEST(LayerManifest, SiblingLayerKeys) {
    std::string two = "{\"layer\": " + Layer() + ", \"layer\": " + Layer("", "VK_LAYER_test_b");
    auto v100 = Parse(two + ", \"file_format_version\": \"1.0.0\"}");
    EXPECT_EQ(v100->f.count, 2u);
    auto v101 = Parse(two + ", \"file_format_version\": \"1.0.1\"}");
    EXPECT_EQ(v101->result, VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_TRUE(v101->Logged("2 sibling 'layer' fields"));
}

TEST(LayerManifest, TypeRules) {
    auto inst = Parse(File("1.0.0", "{\"name\": \"VK_LAYER_a\", \"type\": \"INSTANCE\", \"library_path\": \"a.so\", "
                                    "\"api_version\": \"1.0.0\", \"implementation_version\": \"1\", "
                                    "\"description\": \"d\"}"));
    EXPECT_EQ(inst->f.count, 1u);
    auto dev = Parse(File("1.0.0", "{\"name\": \"VK_LAYER_a\", \"type\": \"DEVICE\", \"library_path\": \"a.so\", "
                                   "\"api_version\": \"1.0.0\", \"implementation_version\": \"1\", "
                                   "\"description\": \"d\"}"));
    EXPECT_EQ(dev->f.count, 0u);
    EXPECT_TRUE(dev->Logged("device layers are deprecated"));
}

TEST(LayerManifest, NameRules) {
    auto bad = Parse(File("1.0.0", Layer("", "MyLayer")));
    EXPECT_EQ(bad->f.count, 1u); // warning only
    ASSERT_EQ(bad->lines.size(), 1u);
    EXPECT_TRUE(bad->lines[0].first & VKL_LOG_WARN);
    EXPECT_TRUE(bad->Logged("[LLP_LAYER_3]"));
    auto longname = Parse(File("1.0.0", Layer("", "VK_LAYER_" + std::string(300, 'x'))));
    EXPECT_EQ(longname->f.count, 0u);
    EXPECT_TRUE(longname->Logged("longer than 255"));
}

TEST(LayerManifest, ApiVersionVariantRejected) {
    auto r = Parse(File("1.0.0", "{\"name\": \"VK_LAYER_a\", \"type\": \"GLOBAL\", \"library_path\": \"a.so\", "
                                 "\"api_version\": \"1.1.3.0\", \"implementation_version\": \"1\", "
                                 "\"description\": \"d\"}"));
    EXPECT_EQ(r->f.count, 0u);
    EXPECT_TRUE(r->Logged("[LLP_LOADER_4]"));
}

// RULE_LYR_MANIFEST_V1_0_0 functions renames, RULE_LYR_MANIFEST_V1_1_0 negotiate rename.
TEST(LayerManifest, FunctionsMapping) {
    std::string fns = ", \"functions\": {\"vkGetInstanceProcAddr\": \"MyGIPA\", \"vkGetDeviceProcAddr\": \"MyGDPA\", "
                      "\"vkNegotiateLoaderLayerInterfaceVersion\": \"MyNeg\"}";
    auto v110 = Parse(File("1.1.0", Layer(fns)));
    ASSERT_EQ(v110->f.count, 1u);
    EXPECT_STREQ(v110->L().fn_get_instance_proc_addr, "MyGIPA");
    EXPECT_STREQ(v110->L().fn_get_device_proc_addr, "MyGDPA");
    EXPECT_STREQ(v110->L().fn_negotiate, "MyNeg");
    auto v100 = Parse(File("1.0.1", Layer(fns)));
    ASSERT_EQ(v100->f.count, 1u);
    EXPECT_STREQ(v100->L().fn_get_instance_proc_addr, "MyGIPA");
    EXPECT_EQ(v100->L().fn_negotiate, nullptr);
    EXPECT_TRUE(v100->Logged("[RULE_LYR_MANIFEST_V1_1_0]"));
}

TEST(LayerManifest, Extensions) {
    auto r = Parse(File("1.0.0", Layer(", \"instance_extensions\": [{\"name\": \"VK_EXT_i\", \"spec_version\": \"3\"}, "
                                       "{\"spec_version\": \"1\"}], \"device_extensions\": [{\"name\": \"VK_EXT_d\", "
                                       "\"spec_version\": 2, \"entrypoints\": [\"vkCmdA\", \"vkCmdB\"]}]")));
    ASSERT_EQ(r->f.count, 1u);
    ASSERT_EQ(r->L().instance_extension_count, 1u);
    EXPECT_STREQ(r->L().instance_extensions[0].props.extensionName, "VK_EXT_i");
    EXPECT_EQ(r->L().instance_extensions[0].props.specVersion, 3u);
    ASSERT_EQ(r->L().device_extension_count, 1u);
    EXPECT_EQ(r->L().device_extensions[0].props.specVersion, 2u);
    ASSERT_EQ(r->L().device_extensions[0].entrypoint_count, 2u);
    EXPECT_STREQ(r->L().device_extensions[0].entrypoints[1], "vkCmdB");
    EXPECT_TRUE(r->Logged("instance_extensions[1]"));
}

// LLP_LAYER_9: implicit layers need disable_environment.
TEST(LayerManifest, ImplicitNeedsDisableEnvironment) {
    auto none = Parse(File("1.0.0", Layer()), true);
    EXPECT_EQ(none->f.count, 0u);
    ASSERT_EQ(none->lines.size(), 1u);
    EXPECT_TRUE(none->Logged("[LLP_LAYER_9]"));
    auto bad = Parse(File("1.0.0", Layer(", \"disable_environment\": {\"X\": 1}")), true);
    EXPECT_EQ(bad->f.count, 0u);
    EXPECT_TRUE(bad->Logged("[LLP_LAYER_9]"));
    auto ok = Parse(File("1.0.0", Layer(", \"disable_environment\": {\"DIS_A\": \"1\"}, \"enable_environment\": "
                                        "{\"EN_A\": \"yes\", \"EN_B\": \"no\"}")),
                    true);
    ASSERT_EQ(ok->f.count, 1u);
    EXPECT_TRUE(ok->L().is_implicit);
    EXPECT_STREQ(ok->L().disable_env, "DIS_A");
    EXPECT_STREQ(ok->L().disable_env_value, "1");
    EXPECT_STREQ(ok->L().enable_env, "EN_A");
    EXPECT_STREQ(ok->L().enable_env_value, "yes");
    auto expl = Parse(File("1.0.0", Layer()), false);
    EXPECT_EQ(expl->f.count, 1u);
}

// RULE_LYR_MANIFEST_V1_1_1: meta-layers.
TEST(LayerManifest, MetaLayers) {
    auto m =
        Parse(File("1.1.1", Layer(", \"component_layers\": [\"VK_LAYER_x\", \"VK_LAYER_y\"]", "VK_LAYER_meta", "")));
    ASSERT_EQ(m->f.count, 1u);
    EXPECT_TRUE(m->L().is_meta);
    EXPECT_EQ(m->L().library_path, nullptr);
    ASSERT_EQ(m->L().component_layer_count, 2u);
    EXPECT_STREQ(m->L().component_layers[1], "VK_LAYER_y");
    EXPECT_TRUE(m->lines.empty());
    auto empty = Parse(File("1.1.1", Layer(", \"component_layers\": []", "VK_LAYER_meta", "")));
    EXPECT_EQ(empty->f.count, 1u);
    auto both = Parse(File("1.1.1", Layer(", \"component_layers\": [\"VK_LAYER_x\"]")));
    EXPECT_EQ(both->f.count, 0u);
    EXPECT_TRUE(both->Logged("both 'library_path' and 'component_layers'"));
    auto old = Parse(File("1.1.0", Layer(", \"component_layers\": [\"VK_LAYER_x\"]", "VK_LAYER_meta", "")));
    EXPECT_EQ(old->f.count, 1u);
    EXPECT_TRUE(old->Logged("[RULE_LYR_MANIFEST_V1_1_1]"));
    auto nonstr = Parse(File("1.1.1", Layer(", \"component_layers\": [1]", "VK_LAYER_meta", "")));
    EXPECT_EQ(nonstr->f.count, 0u);
}

TEST(LayerManifest, OverrideFields) {
    auto r = Parse(File("1.1.1", Layer(", \"component_layers\": [\"VK_LAYER_x\"], \"override_paths\": [\"/p1\", "
                                       "\"/p2\"], \"blacklisted_layers\": [\"VK_LAYER_bad\"], \"app_keys\": "
                                       "[\"/usr/bin/app\"], \"disable_environment\": {\"D\": \"1\"}",
                                       "VK_LAYER_LUNARG_override", "")),
                   true);
    ASSERT_EQ(r->f.count, 1u);
    EXPECT_EQ(r->L().override_path_count, 2u);
    EXPECT_STREQ(r->L().override_paths[1], "/p2");
    EXPECT_EQ(r->L().blacklisted_layer_count, 1u);
    EXPECT_EQ(r->L().app_key_count, 1u);
}

// override_paths in a file older than 1.1.1: used, with the Khronos loader's sentence (its users
// grep for it) besides ours (RULE_LYR_OVERRIDE).
TEST(LayerManifest, OverridePathsInAnOlderFileNamedInTheKhronosSentence) {
    auto r = Parse(File("1.0.1", Layer(", \"component_layers\": [\"VK_LAYER_x\"], \"override_paths\": [\"/p1\"], "
                                       "\"disable_environment\": {\"D\": \"1\"}",
                                       "VK_LAYER_LUNARG_override", "")),
                   true);
    ASSERT_EQ(r->f.count, 1u);
    EXPECT_EQ(r->L().override_path_count, 1u);
    EXPECT_TRUE(r->Logged("Layer \"VK_LAYER_LUNARG_override\" contains meta-layer-specific override paths, but using "
                          "older JSON file version."));
    EXPECT_TRUE(r->Logged("field 'override_paths' needs file_format_version 1.1.1"));
}

// RULE_LYR_MANIFEST_V1_1_2: pre_instance_functions.
TEST(LayerManifest, PreInstanceFunctions) {
    std::string pre = ", \"disable_environment\": {\"D\": \"1\"}, \"pre_instance_functions\": "
                      "{\"vkEnumerateInstanceExtensionProperties\": \"PreExt\", \"vkEnumerateInstanceVersion\": "
                      "\"PreVer\"}";
    auto ok = Parse(File("1.1.2", Layer(pre)), true);
    ASSERT_EQ(ok->f.count, 1u);
    EXPECT_STREQ(ok->L().pre_instance[VKL_PRE_ENUM_INSTANCE_EXTENSIONS], "PreExt");
    EXPECT_EQ(ok->L().pre_instance[VKL_PRE_ENUM_INSTANCE_LAYERS], nullptr);
    EXPECT_STREQ(ok->L().pre_instance[VKL_PRE_ENUM_INSTANCE_VERSION], "PreVer");
    auto old = Parse(File("1.1.1", Layer(pre)), true);
    ASSERT_EQ(old->f.count, 1u);
    EXPECT_EQ(old->L().pre_instance[VKL_PRE_ENUM_INSTANCE_EXTENSIONS], nullptr);
    EXPECT_TRUE(old->Logged("needs file_format_version 1.1.2"));
    auto expl = Parse(File("1.1.2", Layer(pre)), false);
    ASSERT_EQ(expl->f.count, 1u);
    EXPECT_EQ(expl->L().pre_instance[VKL_PRE_ENUM_INSTANCE_EXTENSIONS], nullptr);
    EXPECT_TRUE(expl->Logged("only honoured for implicit layers"));
}

// RULE_LYR_MANIFEST_V1_2_0: documentation fields ignored.
TEST(LayerManifest, V120UnknownKeysIgnored) {
    auto r = Parse(File("1.2.0", Layer(", \"introduction\": \"x\", \"url\": \"https://x\", \"platforms\": "
                                       "[\"LINUX\"], \"status\": \"STABLE\", \"features\": {\"settings\": []}")));
    EXPECT_EQ(r->f.count, 1u);
    EXPECT_TRUE(r->lines.empty());
}

// RULE_LYR_MANIFEST_V1_2_1: library_arch.
TEST(LayerManifest, V121LibraryArch) {
    const char *mine = sizeof(void *) == 8 ? "64" : "32";
    const char *other = sizeof(void *) == 8 ? "32" : "64";
    auto ok = Parse(File("1.2.1", Layer(std::string(", \"library_arch\": \"") + mine + "\"")));
    ASSERT_EQ(ok->f.count, 1u);
    EXPECT_EQ(ok->L().library_arch, (int)sizeof(void *) * 8);
    auto skip = Parse(File("1.2.1", Layer(std::string(", \"library_arch\": \"") + other + "\"")));
    EXPECT_EQ(skip->f.count, 0u);
    EXPECT_TRUE(skip->Logged("[RULE_LYR_MANIFEST_V1_2_1]"));
    // The Khronos loader's sentence, naming the manifest.
    EXPECT_TRUE(skip->Logged("The library architecture in layer "));
    EXPECT_TRUE(skip->Logged(" doesn't match the current running architecture, skipping this layer"));
    auto weird = Parse(File("1.2.1", Layer(", \"library_arch\": \"x86\"")));
    EXPECT_EQ(weird->f.count, 1u);
    EXPECT_EQ(weird->L().library_arch, 0);
}

TEST(LayerManifest, RejectedLayerDoesNotHideOthers) {
    auto r = Parse("{\"file_format_version\": \"1.0.1\", \"layers\": [" + Layer("", "VK_LAYER_a") + ", " +
                       Layer(", \"disable_environment\": {\"D\": \"1\"}", "VK_LAYER_b") + "]}",
                   true);
    ASSERT_EQ(r->f.count, 1u);
    EXPECT_STREQ(r->L().props.layerName, "VK_LAYER_b");
    EXPECT_EQ(r->lines.size(), 1u);
}

TEST(LayerManifest, HostileInputNeverCrashes) {
    std::string deep(100000, '[');
    auto r = Parse(deep);
    EXPECT_EQ(r->result, VK_ERROR_INITIALIZATION_FAILED);
    auto r2 = Parse(std::string("{\"file_format_version\":\"1.0.0\",\"layer\":{\"name\":\"VK_LAYER_\0x\"}}", 55));
    EXPECT_NE(r2->result, VK_SUCCESS);
}

} // namespace
