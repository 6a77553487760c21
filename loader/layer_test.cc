// Unit tests for loader/layer.c: discovery, the parse cache, filters, implicit gating, meta-layers,
// the override layer, activation order and negotiation.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "loader/test_support.h"

extern "C" {
#include "loader/internal/env.h"
#include "loader/internal/layer.h"
}

namespace {

using Lines = std::vector<std::pair<uint32_t, std::string>>;
void Emit(void *ctx, uint32_t flags, const char *line) { static_cast<Lines *>(ctx)->emplace_back(flags, line); }

const char *kVars[] = {"VK_LAYER_PATH",
                       "VK_ADD_LAYER_PATH",
                       "VK_IMPLICIT_LAYER_PATH",
                       "VK_ADD_IMPLICIT_LAYER_PATH",
                       "VK_INSTANCE_LAYERS",
                       "VK_LOADER_LAYERS_ENABLE",
                       "VK_LOADER_LAYERS_DISABLE",
                       "VK_LOADER_LAYERS_ALLOW",
                       "XDG_CONFIG_HOME",
                       "XDG_CONFIG_DIRS",
                       "XDG_DATA_HOME",
                       "XDG_DATA_DIRS",
                       "HOME",
                       "LT_EN",
                       "LT_DIS",
                       "LT_DIS2"};

class LayerTest : public ::testing::Test {
  protected:
    void SetUp() override {
        root_ = vkl_test::MakeTempDir("layer_test");
        ASSERT_FALSE(root_.empty());
        for (const char *v : kVars) unsetenv(v);
        // Keep the host's layers out: every default location points into the sandbox.
        setenv("HOME", (root_ + "/home").c_str(), 1);
        setenv("XDG_CONFIG_DIRS", (root_ + "/etcxdg").c_str(), 1);
        setenv("XDG_DATA_DIRS", (root_ + "/share").c_str(), 1);
        vkl_log_set_level_for_testing(0);
        vkl_env_set_elevated_for_testing(0);
        sink_ = {Emit, &lines_};
    }
    void TearDown() override {
        for (const char *v : kVars) unsetenv(v);
        vkl_env_set_elevated_for_testing(-1);
        vkl_layers_cache_flush_for_testing();
        std::string cmd = "rm -rf '" + root_ + "'";
        ASSERT_EQ(system(cmd.c_str()), 0);
    }
    void Mkdirs(const std::string &d) {
        std::string cmd = "mkdir -p '" + d + "'";
        ASSERT_EQ(system(cmd.c_str()), 0);
    }
    std::string Write(const std::string &rel, const std::string &text) {
        std::string p = root_ + "/" + rel;
        Mkdirs(p.substr(0, p.rfind('/')));
        std::ofstream(p) << text;
        return p;
    }
    static std::string L(const std::string &name, const std::string &extra = "", const std::string &api = "1.3.0",
                         bool meta = false) {
        return "{\"name\": \"" + name + "\", \"type\": \"GLOBAL\", " +
               (meta ? std::string() : "\"library_path\": \"lib" + name + ".so\", ") + "\"api_version\": \"" + api +
               "\", \"implementation_version\": \"1\", \"description\": \"d\"" + extra + "}";
    }
    static std::string F(const std::string &layer, const std::string &ver = "1.2.1") {
        return "{\"file_format_version\": \"" + ver + "\", \"layer\": " + layer + "}";
    }
    static std::string Imp(const std::string &name, const std::string &extra = "") {
        return F(L(name, ", \"disable_environment\": {\"DIS_" + name + "\": \"1\"}" + extra));
    }
    std::vector<std::string> Names(const vkl_layer_set &s) {
        std::vector<std::string> v;
        for (uint32_t i = 0; i < s.count; i++) v.push_back(s.layers[i]->props.layerName);
        return v;
    }
    std::vector<std::string> Active(const std::vector<const char *> &app = {}, VkResult want = VK_SUCCESS) {
        vkl_layer_set s;
        EXPECT_EQ(vkl_layers_acquire(&sink_, &s), VK_SUCCESS);
        const vkl_layer_manifest **list = nullptr;
        uint32_t n = 0;
        EXPECT_EQ(vkl_layers_activate(&s, app.data(), (uint32_t)app.size(), &sink_, &list, &n), want);
        std::vector<std::string> v;
        for (uint32_t i = 0; i < n; i++) v.push_back(list[i]->props.layerName);
        free(list);
        vkl_layers_release(&s);
        return v;
    }
    std::vector<std::string> Available() {
        vkl_layer_set s;
        EXPECT_EQ(vkl_layers_acquire(&sink_, &s), VK_SUCCESS);
        auto v = Names(s);
        vkl_layers_release(&s);
        return v;
    }
    bool Logged(const std::string &needle) {
        for (auto &l : lines_)
            if (l.second.find(needle) != std::string::npos) return true;
        return false;
    }
    using V = std::vector<std::string>;
    std::string root_;
    Lines lines_;
    vkl_log_sink sink_;
};

// RULE_LYR_SEARCH_ORDER: default locations, XDG order, implicit before explicit.
TEST_F(LayerTest, DefaultSearchLocations) {
    Write("home/.config/vulkan/explicit_layer.d/a.json", F(L("VK_LAYER_home_cfg")));
    Write("etcxdg/vulkan/explicit_layer.d/b.json", F(L("VK_LAYER_xdg_cfg")));
    Write("home/.local/share/vulkan/explicit_layer.d/c.json", F(L("VK_LAYER_home_data")));
    Write("share/vulkan/explicit_layer.d/d.json", F(L("VK_LAYER_data")));
    Write("share/vulkan/implicit_layer.d/e.json", Imp("VK_LAYER_imp"));
    EXPECT_EQ(Available(),
              (V{"VK_LAYER_imp", "VK_LAYER_home_cfg", "VK_LAYER_xdg_cfg", "VK_LAYER_home_data", "VK_LAYER_data"}));
    // Layer search lines are LAYER lines that say so (not the driver search's words).
    bool found = false;
    for (auto &l : lines_) {
        EXPECT_EQ(l.second.find("driver search"), std::string::npos) << l.second;
        if (l.second.find("layer search: Found manifest file") != std::string::npos) {
            found = true;
            EXPECT_TRUE(l.first & VKL_LOG_LAYER) << l.second;
            EXPECT_FALSE(l.first & VKL_LOG_DRIVER) << l.second;
        }
    }
    EXPECT_TRUE(found);
}

// RULE_LYR_ENV_LAYER_PATH / RULE_LYR_ENV_IMPLICIT_LAYER_PATH, LLP_LOADER_2.
TEST_F(LayerTest, EnvPaths) {
    Write("share/vulkan/explicit_layer.d/d.json", F(L("VK_LAYER_default")));
    std::string f1 = Write("p1/x.json", F(L("VK_LAYER_p1")));
    Write("p2/y.json", F(L("VK_LAYER_p2")));
    setenv("VK_ADD_LAYER_PATH", (root_ + "/p2").c_str(), 1);
    EXPECT_EQ(Available(), (V{"VK_LAYER_p2", "VK_LAYER_default"}));
    setenv("VK_LAYER_PATH", (f1 + ":" + root_ + "/nonexistent").c_str(), 1);
    EXPECT_EQ(Available(), (V{"VK_LAYER_p1"}));
    EXPECT_TRUE(Logged("env VK_ADD_LAYER_PATH: ignored because VK_LAYER_PATH is set"));
    unsetenv("VK_LAYER_PATH");
    unsetenv("VK_ADD_LAYER_PATH");
    Write("i1/x.json", Imp("VK_LAYER_i1"));
    Write("i2/x.json", Imp("VK_LAYER_i2"));
    setenv("VK_ADD_IMPLICIT_LAYER_PATH", (root_ + "/i2").c_str(), 1);
    EXPECT_EQ(Available(), (V{"VK_LAYER_i2", "VK_LAYER_default"}));
    setenv("VK_IMPLICIT_LAYER_PATH", (root_ + "/i1").c_str(), 1);
    EXPECT_EQ(Available(), (V{"VK_LAYER_i1", "VK_LAYER_default"}));
    // Layers found through VK_LAYER_PATH are explicit even when they look implicit.
    unsetenv("VK_IMPLICIT_LAYER_PATH");
    unsetenv("VK_ADD_IMPLICIT_LAYER_PATH");
    setenv("VK_LAYER_PATH", (root_ + "/i1").c_str(), 1);
    vkl_layer_set s;
    ASSERT_EQ(vkl_layers_acquire(&sink_, &s), VK_SUCCESS);
    ASSERT_EQ(s.count, 1u);
    EXPECT_FALSE(s.layers[0]->is_implicit);
    vkl_layers_release(&s);
}

// LLP_LOADER_13: every path variable is ignored when elevated.
TEST_F(LayerTest, ElevatedIgnoresPathVariables) {
    Write("p1/x.json", F(L("VK_LAYER_p1")));
    Write("i1/x.json", Imp("VK_LAYER_i1"));
    setenv("VK_LAYER_PATH", (root_ + "/p1").c_str(), 1);
    setenv("VK_IMPLICIT_LAYER_PATH", (root_ + "/i1").c_str(), 1);
    EXPECT_EQ(Available(), (V{"VK_LAYER_i1", "VK_LAYER_p1"}));
    vkl_env_set_elevated_for_testing(1);
    for (auto &n : Available()) EXPECT_TRUE(n != "VK_LAYER_p1" && n != "VK_LAYER_i1") << n;
}

TEST_F(LayerTest, ParseCacheAndChangedManifests) {
    std::string p = Write("p1/x.json", F(L("VK_LAYER_p1")));
    setenv("VK_LAYER_PATH", (root_ + "/p1").c_str(), 1);
    uint32_t before = vkl_layers_parse_count_for_testing();
    EXPECT_EQ(Available(), (V{"VK_LAYER_p1"}));
    EXPECT_EQ(Available(), (V{"VK_LAYER_p1"}));
    EXPECT_EQ(Available(), (V{"VK_LAYER_p1"}));
    EXPECT_EQ(vkl_layers_parse_count_for_testing(), before + 1);
    Write("p1/x.json", F(L("VK_LAYER_p1_changed_name")));
    EXPECT_EQ(Available(), (V{"VK_LAYER_p1_changed_name"}));
    EXPECT_EQ(vkl_layers_parse_count_for_testing(), before + 2);
    // A broken manifest is parsed once and its line repeated to each caller.
    Write("p1/x.json", "{broken");
    lines_.clear();
    EXPECT_EQ(Available(), V{});
    EXPECT_TRUE(Logged("not valid JSON"));
    lines_.clear();
    EXPECT_EQ(Available(), V{});
    EXPECT_TRUE(Logged("not valid JSON"));
    EXPECT_EQ(vkl_layers_parse_count_for_testing(), before + 3);
}

TEST_F(LayerTest, DuplicateNamesFirstWins) {
    Write("share/vulkan/implicit_layer.d/a.json", Imp("VK_LAYER_dup"));
    Write("share/vulkan/explicit_layer.d/a.json", F(L("VK_LAYER_dup")));
    vkl_layer_set s;
    ASSERT_EQ(vkl_layers_acquire(&sink_, &s), VK_SUCCESS);
    ASSERT_EQ(s.count, 1u);
    EXPECT_TRUE(s.layers[0]->is_implicit);
    vkl_layers_release(&s);
    EXPECT_TRUE(Logged("[LLP_LOADER_3]"));
}

// LLP_LOADER_6 / LLP_LOADER_7
TEST_F(LayerTest, ImplicitEnableDisableEnvironment) {
    Write("share/vulkan/implicit_layer.d/a.json",
          F(L("VK_LAYER_gated", ", \"enable_environment\": {\"LT_EN\": \"on\"}, \"disable_environment\": {\"LT_DIS\": "
                                "\"1\"}")));
    EXPECT_EQ(Active(), V{});
    setenv("LT_EN", "off", 1);
    EXPECT_EQ(Active(), V{});
    setenv("LT_EN", "on", 1);
    EXPECT_EQ(Active(), V{"VK_LAYER_gated"});
    setenv("LT_DIS", "", 1); // [Lyr]: only a non-empty value disables
    EXPECT_EQ(Active(), V{"VK_LAYER_gated"});
    setenv("LT_DIS", "0", 1);
    EXPECT_EQ(Active(), V{});
    EXPECT_TRUE(Logged("disabled by env var 'LT_DIS' [LLP_LOADER_7]"));
    // Still listed by enumeration.
    EXPECT_EQ(Available(), V{"VK_LAYER_gated"});
}

// RULE_LYR_FILTER_DISABLE / ENABLE / ALLOW
TEST_F(LayerTest, Filters) {
    Write("share/vulkan/implicit_layer.d/a.json", Imp("VK_LAYER_imp_a"));
    Write("share/vulkan/explicit_layer.d/b.json", F(L("VK_LAYER_exp_b")));
    Write("share/vulkan/explicit_layer.d/c.json", F(L("VK_LAYER_exp_c")));
    setenv("VK_LOADER_LAYERS_DISABLE", "~all~", 1);
    EXPECT_EQ(Available(), V{});
    setenv("VK_LOADER_LAYERS_ALLOW", "*_b", 1);
    EXPECT_EQ(Available(), V{"VK_LAYER_exp_b"});
    EXPECT_EQ(Active(), V{}); // ALLOW does not enable
    setenv("VK_LOADER_LAYERS_DISABLE", "~implicit~", 1);
    unsetenv("VK_LOADER_LAYERS_ALLOW");
    EXPECT_EQ(Available(), (V{"VK_LAYER_exp_b", "VK_LAYER_exp_c"}));
    setenv("VK_LOADER_LAYERS_DISABLE", "~explicit~", 1);
    EXPECT_EQ(Available(), V{"VK_LAYER_imp_a"});
    setenv("VK_LOADER_LAYERS_ENABLE", "vk_layer_EXP_C", 1); // case-insensitive, beats DISABLE
    EXPECT_EQ(Available(), (V{"VK_LAYER_imp_a", "VK_LAYER_exp_c"}));
    EXPECT_EQ(Active(), (V{"VK_LAYER_imp_a", "VK_LAYER_exp_c"}));
    EXPECT_TRUE(Logged("forced enabled due to env var 'VK_LOADER_LAYERS_ENABLE'"));
    // A disabled layer requested by the application is not present.
    EXPECT_EQ(Active({"VK_LAYER_exp_b"}, VK_ERROR_LAYER_NOT_PRESENT), V{});
    // Filters are secure variables: ignored when elevated.
    // (XDG_DATA_DIRS is secure too, so only the host's system layers are seen; none is filtered.)
    setenv("VK_LOADER_LAYERS_DISABLE", "~all~", 1);
    unsetenv("VK_LOADER_LAYERS_ENABLE");
    vkl_env_set_elevated_for_testing(1);
    lines_.clear();
    Available();
    EXPECT_FALSE(Logged("disabled by env var 'VK_LOADER_LAYERS_DISABLE'"));
}

TEST_F(LayerTest, ImplicitForcedEnabledByFilter) {
    Write("share/vulkan/implicit_layer.d/a.json",
          F(L("VK_LAYER_gated", ", \"enable_environment\": {\"LT_EN\": \"on\"}, \"disable_environment\": {\"LT_DIS\": "
                                "\"1\"}")));
    setenv("VK_LOADER_LAYERS_ENABLE", "VK_LAYER_gated", 1);
    EXPECT_EQ(Active(), V{"VK_LAYER_gated"});
    setenv("LT_DIS", "1", 1); // the layer's own disable variable still wins
    EXPECT_EQ(Active(), V{});
}

// RULE_LYR_ORDER, RULE_LYR_ENV_INSTANCE_LAYERS(_IMPLICIT), LLP_LOADER_3: an implicit layer that
// VK_INSTANCE_LAYERS names comes where the variable puts it.
TEST_F(LayerTest, ActivationOrderAndDedupe) {
    Write("share/vulkan/implicit_layer.d/a.json", Imp("VK_LAYER_imp1"));
    Write("share/vulkan/implicit_layer.d/b.json", Imp("VK_LAYER_imp2"));
    Write("share/vulkan/explicit_layer.d/c.json", F(L("VK_LAYER_e1")));
    Write("share/vulkan/explicit_layer.d/d.json", F(L("VK_LAYER_e2")));
    Write("share/vulkan/explicit_layer.d/e.json", F(L("VK_LAYER_e3")));
    Write("share/vulkan/explicit_layer.d/f.json", F(L("VK_LAYER_e4")));
    setenv("VK_INSTANCE_LAYERS", "VK_LAYER_e2:VK_LAYER_nope:VK_LAYER_imp1", 1);
    setenv("VK_LOADER_LAYERS_ENABLE", "*e3", 1);
    EXPECT_EQ(Active({"VK_LAYER_e1", "VK_LAYER_e2", "VK_LAYER_e4", "VK_LAYER_e1"}),
              (V{"VK_LAYER_imp2", "VK_LAYER_e2", "VK_LAYER_imp1", "VK_LAYER_e3", "VK_LAYER_e1", "VK_LAYER_e4"}));
    EXPECT_TRUE(Logged("Layer \"VK_LAYER_nope\" was not found but was requested by env var VK_INSTANCE_LAYERS!"));
    EXPECT_TRUE(Logged("[LLP_LOADER_3]"));
    EXPECT_EQ(Active({"VK_LAYER_missing"}, VK_ERROR_LAYER_NOT_PRESENT), V{});
}

// Decision (docs/architecture.md): VK_INSTANCE_LAYERS is ignored when elevated (LLP_LOADER_13).
TEST_F(LayerTest, InstanceLayersIgnoredWhenElevated) {
    Write("share/vulkan/explicit_layer.d/c.json", F(L("VK_LAYER_e1")));
    setenv("XDG_DATA_DIRS", (root_ + "/share").c_str(), 1);
    setenv("VK_INSTANCE_LAYERS", "VK_LAYER_e1", 1);
    EXPECT_EQ(Active(), V{"VK_LAYER_e1"});
    vkl_env_set_elevated_for_testing(1);
    // XDG_DATA_DIRS is secure too, so put the layer where an elevated process looks: impossible
    // in a unit test; the env var decision is visible in the log either way.
    lines_.clear();
    Active();
    EXPECT_TRUE(Logged("env VK_INSTANCE_LAYERS: ignored because the process runs with elevated privileges"));
}

// RULE_LYR_META, LLP_LAYER_7, LLP_LAYER_8, LLP_LOADER_10
TEST_F(LayerTest, MetaLayers) {
    Write("share/vulkan/explicit_layer.d/a.json",
          F(L("VK_LAYER_c1", ", \"instance_extensions\": [{\"name\": \"VK_EXT_one\", \"spec_version\": \"1\"}]")));
    Write("share/vulkan/explicit_layer.d/b.json",
          F(L("VK_LAYER_c2", ", \"instance_extensions\": [{\"name\": \"VK_EXT_two\", \"spec_version\": \"2\"}]")));
    Write("share/vulkan/explicit_layer.d/m1.json",
          F(L("VK_LAYER_meta", ", \"component_layers\": [\"VK_LAYER_c2\", \"VK_LAYER_c1\"]", "1.3.0", true)));
    Write("share/vulkan/explicit_layer.d/m2.json",
          F(L("VK_LAYER_meta_missing", ", \"component_layers\": [\"VK_LAYER_c1\", \"VK_LAYER_none\"]", "1.3.0", true)));
    Write("share/vulkan/explicit_layer.d/m3.json",
          F(L("VK_LAYER_meta_new", ", \"component_layers\": [\"VK_LAYER_old\"]", "1.3.0", true)));
    Write("share/vulkan/explicit_layer.d/o.json", F(L("VK_LAYER_old", "", "1.1.0")));
    Write("share/vulkan/explicit_layer.d/n.json",
          F(L("VK_LAYER_nested", ", \"component_layers\": [\"VK_LAYER_meta\", \"VK_LAYER_c1\"]", "1.3.0", true)));
    auto avail = Available();
    EXPECT_EQ(avail, (V{"VK_LAYER_c1", "VK_LAYER_c2", "VK_LAYER_meta", "VK_LAYER_nested", "VK_LAYER_old"}));
    EXPECT_TRUE(Logged("can't find component layer VK_LAYER_none at index 1.  Skipping this layer. [LLP_LAYER_7]"));
    EXPECT_TRUE(Logged("[LLP_LAYER_8]"));
    EXPECT_EQ(Active({"VK_LAYER_nested"}), (V{"VK_LAYER_c2", "VK_LAYER_c1"}));
    vkl_layer_set s;
    ASSERT_EQ(vkl_layers_acquire(&sink_, &s), VK_SUCCESS);
    VkExtensionProperties *e = nullptr;
    uint32_t n = 0;
    ASSERT_EQ(vkl_layer_extensions(&s, vkl_layer_set_find(&s, "VK_LAYER_meta"), false, &e, &n), VK_SUCCESS);
    ASSERT_EQ(n, 2u);
    EXPECT_STREQ(e[0].extensionName, "VK_EXT_two");
    free(e);
    vkl_layers_release(&s);
}

TEST_F(LayerTest, MetaCyclesAndDepthNeverOverflow) {
    Write("share/vulkan/explicit_layer.d/a.json",
          F(L("VK_LAYER_ma", ", \"component_layers\": [\"VK_LAYER_mb\"]", "1.3.0", true)));
    Write("share/vulkan/explicit_layer.d/b.json",
          F(L("VK_LAYER_mb", ", \"component_layers\": [\"VK_LAYER_ma\"]", "1.3.0", true)));
    Write("share/vulkan/explicit_layer.d/self.json",
          F(L("VK_LAYER_self", ", \"component_layers\": [\"VK_LAYER_self\"]", "1.3.0", true)));
    // A chain of 40 nested meta-layers.
    Write("share/vulkan/explicit_layer.d/z.json", F(L("VK_LAYER_leaf")));
    for (int i = 0; i < 40; i++) {
        std::string next = i == 0 ? "VK_LAYER_leaf" : "VK_LAYER_d" + std::to_string(i - 1);
        Write("share/vulkan/explicit_layer.d/d" + std::to_string(i) + ".json",
              F(L("VK_LAYER_d" + std::to_string(i), ", \"component_layers\": [\"" + next + "\"]", "1.3.0", true)));
    }
    auto avail = Available();
    for (auto &n : avail) {
        EXPECT_NE(n, "VK_LAYER_ma");
        EXPECT_NE(n, "VK_LAYER_mb");
        EXPECT_NE(n, "VK_LAYER_self");
        EXPECT_NE(n, "VK_LAYER_d39");
    }
    EXPECT_TRUE(Logged("closes the cycle"));
    // The Khronos loader's sentences: a longer cycle, and a meta-layer naming itself.
    EXPECT_TRUE(Logged("recursively references itself through its component layers"));
    EXPECT_TRUE(Logged("Meta-layer VK_LAYER_self lists itself in its component layer list at index 0.  Skipping this "
                       "layer."));
    EXPECT_TRUE(Logged("nested deeper than"));
    EXPECT_NE(std::find(avail.begin(), avail.end(), "VK_LAYER_d3"), avail.end());
}

// RULE_LYR_OVERRIDE, LLP_LOADER_11, LLP_LOADER_12
TEST_F(LayerTest, OverrideLayer) {
    Write("share/vulkan/implicit_layer.d/0override.json",
          F(L("VK_LAYER_LUNARG_override",
              ", \"component_layers\": [\"VK_LAYER_comp\", \"VK_LAYER_imp_comp\"], \"disable_environment\": "
              "{\"DIS_OV\": \"1\"}, \"blacklisted_layers\": [\"VK_LAYER_black\", \"VK_LAYER_imp_black\"], "
              "\"override_paths\": [\"" +
                  root_ + "/ovpaths\"]",
              "1.3.0", true)));
    Write("share/vulkan/implicit_layer.d/1.json",
          F(L("VK_LAYER_imp_comp", ", \"disable_environment\": {\"LT_DIS2\": \"1\"}")));
    Write("share/vulkan/implicit_layer.d/2.json", Imp("VK_LAYER_imp_other"));
    Write("share/vulkan/implicit_layer.d/3.json", Imp("VK_LAYER_imp_black"));
    Write("share/vulkan/explicit_layer.d/x.json", F(L("VK_LAYER_not_searched")));
    Write("ovpaths/a.json", F(L("VK_LAYER_comp")));
    Write("ovpaths/b.json", F(L("VK_LAYER_black")));
    setenv("VK_LAYER_PATH", (root_ + "/share/vulkan/explicit_layer.d").c_str(), 1);
    setenv("LT_DIS2", "1", 1); // a component ignores its disable variable
    EXPECT_EQ(Available(), (V{"VK_LAYER_LUNARG_override", "VK_LAYER_imp_comp", "VK_LAYER_imp_other", "VK_LAYER_comp"}));
    EXPECT_TRUE(Logged("[LLP_LOADER_12]"));
    EXPECT_EQ(Active(), (V{"VK_LAYER_imp_other", "VK_LAYER_comp", "VK_LAYER_imp_comp"}));
    EXPECT_EQ(Active({"VK_LAYER_black"}, VK_ERROR_LAYER_NOT_PRESENT), V{});
    // Disabled override: normal search again.
    setenv("DIS_OV", "1", 1);
    auto v = Available();
    EXPECT_NE(std::find(v.begin(), v.end(), "VK_LAYER_not_searched"), v.end());
}

TEST_F(LayerTest, OverrideAppKeys) {
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    ASSERT_GT(n, 0);
    exe[n] = '\0';
    Write("share/vulkan/implicit_layer.d/a.json",
          "{\"file_format_version\": \"1.2.0\", \"layers\": [" +
              L("VK_LAYER_LUNARG_override",
                ", \"component_layers\": [\"VK_LAYER_g\"], \"disable_environment\": {\"D\": \"1\"}", "1.3.0", true) +
              ", " +
              L("VK_LAYER_LUNARG_override",
                ", \"component_layers\": [\"VK_LAYER_s\"], \"disable_environment\": {\"D\": \"1\"}, \"app_keys\": "
                "[\"" +
                    std::string(exe) + "\"]",
                "1.3.0", true) +
              "]}");
    Write("share/vulkan/explicit_layer.d/g.json", F(L("VK_LAYER_g")));
    Write("share/vulkan/explicit_layer.d/s.json", F(L("VK_LAYER_s")));
    // The override layer whose app_keys name this executable beats the global one.
    EXPECT_EQ(Active(), V{"VK_LAYER_s"});
    EXPECT_EQ(Available().size(), 3u);
}

// Negotiation (RULE_LYR_IFACE_V0/V1/V2, LLP_LOADER_5) through a symbol map.
std::map<std::string, PFN_vkVoidFunction> *g_syms;
PFN_vkVoidFunction Lookup(void *, const char *name) {
    auto it = g_syms->find(name);
    return it == g_syms->end() ? nullptr : it->second;
}
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL FakeGipa(VkInstance, const char *) { return nullptr; }
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL FakeGipa2(VkInstance, const char *) { return nullptr; }
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL FakeGdpa(VkDevice, const char *) { return nullptr; }
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL FakeGpdpa(VkInstance, const char *) { return nullptr; }
uint32_t g_offered, g_answer;
VkResult g_neg_result;
VKAPI_ATTR VkResult VKAPI_CALL FakeNegotiate(VkNegotiateLayerInterface *ni) {
    g_offered = ni->loaderLayerInterfaceVersion;
    EXPECT_EQ(ni->sType, LAYER_NEGOTIATE_INTERFACE_STRUCT);
    ni->loaderLayerInterfaceVersion = g_answer;
    if (g_answer >= 2) {
        ni->pfnGetInstanceProcAddr = FakeGipa2;
        ni->pfnGetDeviceProcAddr = FakeGdpa;
        ni->pfnGetPhysicalDeviceProcAddr = FakeGpdpa;
    }
    return g_neg_result;
}

TEST_F(LayerTest, Negotiation) {
    std::map<std::string, PFN_vkVoidFunction> syms;
    g_syms = &syms;
    vkl_layer_manifest m{};
    std::strcpy(m.props.layerName, "VK_LAYER_neg");
    vkl_layer_lib lib;
    // v0: <layerName>GetInstanceProcAddr
    syms["VK_LAYER_negGetInstanceProcAddr"] = (PFN_vkVoidFunction)FakeGipa;
    ASSERT_TRUE(vkl_layer_negotiate(&m, Lookup, nullptr, &sink_, &lib));
    EXPECT_EQ(lib.interface_version, 0u);
    // v1: exported vkGetInstanceProcAddr
    syms["vkGetInstanceProcAddr"] = (PFN_vkVoidFunction)FakeGipa;
    syms["vkGetDeviceProcAddr"] = (PFN_vkVoidFunction)FakeGdpa;
    ASSERT_TRUE(vkl_layer_negotiate(&m, Lookup, nullptr, &sink_, &lib));
    EXPECT_EQ(lib.interface_version, 1u);
    EXPECT_EQ((void *)lib.gipa, (void *)FakeGipa);
    EXPECT_EQ(lib.gpdpa, nullptr);
    // Renamed functions
    char gipa_name[] = "MyGipa";
    m.fn_get_instance_proc_addr = gipa_name;
    syms["MyGipa"] = (PFN_vkVoidFunction)FakeGipa2;
    ASSERT_TRUE(vkl_layer_negotiate(&m, Lookup, nullptr, &sink_, &lib));
    EXPECT_EQ((void *)lib.gipa, (void *)FakeGipa2);
    m.fn_get_instance_proc_addr = nullptr;
    // v2
    syms["vkNegotiateLoaderLayerInterfaceVersion"] = (PFN_vkVoidFunction)FakeNegotiate;
    g_answer = 2;
    g_neg_result = VK_SUCCESS;
    ASSERT_TRUE(vkl_layer_negotiate(&m, Lookup, nullptr, &sink_, &lib));
    EXPECT_EQ(g_offered, 2u);
    EXPECT_EQ(lib.interface_version, 2u);
    EXPECT_EQ((void *)lib.gipa, (void *)FakeGipa2);
    EXPECT_EQ((void *)lib.gpdpa, (void *)FakeGpdpa);
    // negotiated down to 1: exported functions
    g_answer = 1;
    ASSERT_TRUE(vkl_layer_negotiate(&m, Lookup, nullptr, &sink_, &lib));
    EXPECT_EQ(lib.interface_version, 1u);
    EXPECT_EQ((void *)lib.gipa, (void *)FakeGipa);
    // failure: not loaded even though vkGetInstanceProcAddr is exported (LLP_LOADER_5)
    g_neg_result = VK_ERROR_INITIALIZATION_FAILED;
    EXPECT_FALSE(vkl_layer_negotiate(&m, Lookup, nullptr, &sink_, &lib));
    EXPECT_TRUE(Logged("interface negotiation failed, layer not loaded [LLP_LOADER_5]"));
    // too new
    g_neg_result = VK_SUCCESS;
    g_answer = 3;
    EXPECT_FALSE(vkl_layer_negotiate(&m, Lookup, nullptr, &sink_, &lib));
    // nothing at all
    syms.clear();
    EXPECT_FALSE(vkl_layer_negotiate(&m, Lookup, nullptr, &sink_, &lib));
    g_syms = nullptr;
}

} // namespace
