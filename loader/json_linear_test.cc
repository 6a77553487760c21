// RULE_ADVERSARIAL_INPUT: every parser of a loader document (driver manifest, layer manifest,
// settings file) is linear in the size of what it reads. No timing: the json module counts the list
// nodes its callers make it visit (vkl_json_steps_for_testing), and a document with 10,000 entries in
// one array (or object) must cost at most 11 times what the same document with 1,000 entries costs.
// An index-based walk (element i found from the head of the list) costs 100 times as much.
// Every case also checks that the parser read all the entries, so a parser that stopped early (or
// skipped the field) cannot pass.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

extern "C" {
#include "loader/internal/json.h"
#include "loader/internal/layer.h"
#include "loader/internal/manifest.h"
#include "loader/internal/settings.h"
}

namespace {

constexpr const char *kExe = "/opt/app/bin/game";
constexpr size_t kSmall = 1000, kLarge = 10000;
constexpr double kMaxGrowth = 11.0;

void Ignore(void *, uint32_t, const char *) {}
const vkl_log_sink kSink{Ignore, nullptr};

// `n` comma-separated copies of item(i).
std::string Join(size_t n, const std::function<std::string(size_t)> &item) {
    std::string s;
    for (size_t i = 0; i < n; i++) s += (i ? "," : "") + item(i);
    return s;
}
std::string Q(const std::string &s) { return "\"" + s + "\""; }
std::string Strings(size_t n, const std::string &prefix) {
    return "[" + Join(n, [&](size_t i) { return Q(prefix + std::to_string(i)); }) + "]";
}
std::string Uuid() {
    return "[" + Join(16, [](size_t i) { return std::to_string(i); }) + "]";
}

// ---- settings file ----
std::string SettingsFile(const std::string &object_body) {
    return "{\"file_format_version\": \"1.0.0\", \"settings\": {" + object_body + "}}";
}

// Parses a settings document; `check` asserts what was read; returns the steps it cost.
unsigned long long SettingsSteps(const std::string &doc, const std::function<void(const vkl_settings &)> &check) {
    vkl_settings s;
    unsigned long long before = vkl_json_steps_for_testing();
    VkResult r = vkl_settings_parse("/cfg/vk_loader_settings.json", doc.data(), doc.size(), kExe, &kSink, &s);
    unsigned long long steps = vkl_json_steps_for_testing() - before;
    EXPECT_EQ(r, VK_SUCCESS);
    if (r == VK_SUCCESS) check(s);
    vkl_settings_finish(&s);
    return steps;
}

// ---- layer manifest ----
std::string LayerObject(const std::string &name, const std::string &extra) {
    return "{\"name\": " + Q(name) +
           ", \"type\": \"GLOBAL\", \"library_path\": \"./l.so\", \"api_version\": \"1.3.250\", "
           "\"implementation_version\": \"1\", \"description\": \"d\"" +
           extra + "}";
}
std::string LayerFile(const std::string &version, const std::string &layer_object) {
    return "{\"file_format_version\": " + Q(version) + ", \"layer\": " + layer_object + "}";
}
std::string DisableEnv() { return ", \"disable_environment\": {\"DISABLE_X\": \"1\"}"; }

unsigned long long LayerSteps(const std::string &doc, bool implicit,
                              const std::function<void(const vkl_layer_manifest_file &)> &check) {
    vkl_layer_manifest_file f{};
    unsigned long long before = vkl_json_steps_for_testing();
    VkResult r = vkl_layer_manifest_parse("/m/layer.json", doc.data(), doc.size(), implicit, &kSink, &f);
    unsigned long long steps = vkl_json_steps_for_testing() - before;
    EXPECT_EQ(r, VK_SUCCESS);
    if (r == VK_SUCCESS) check(f);
    vkl_layer_manifest_file_finish(&f);
    return steps;
}

// ---- driver manifest ----
unsigned long long DriverSteps(const std::string &doc) {
    vkl_icd_manifest m;
    unsigned long long before = vkl_json_steps_for_testing();
    VkResult r = vkl_icd_manifest_parse("/icd/d.json", doc.data(), doc.size(), &kSink, &m);
    unsigned long long steps = vkl_json_steps_for_testing() - before;
    EXPECT_EQ(r, VK_SUCCESS);
    EXPECT_STREQ(m.library_path, "/icd/./libd.so");
    vkl_icd_manifest_finish(&m);
    return steps;
}

struct Case {
    const char *field;
    // The steps for a document with `n` entries in the field (asserting what the parser read).
    std::function<unsigned long long(size_t n)> steps;
};

std::vector<Case> Cases() {
    std::vector<Case> c;
    // -- settings file ([Set]; settings.c reads each of these) --
    c.push_back({"settings.stderr_log", [](size_t n) {
                     const char *words[] = {"error", "warn", "info", "debug", "perf", "layer", "driver"};
                     std::string a = "[" + Join(n, [&](size_t i) { return Q(words[i % 7]); }) + "]";
                     return SettingsSteps(SettingsFile("\"stderr_log\": " + a), [](const vkl_settings &s) {
                         EXPECT_EQ(s.stderr_log, VKL_LOG_ERROR | VKL_LOG_WARN | VKL_LOG_INFO | VKL_LOG_DEBUG |
                                                     VKL_LOG_PERF | VKL_LOG_LAYER | VKL_LOG_DRIVER);
                     });
                 }});
    c.push_back({"settings.log_locations", [](size_t n) {
                     std::string a = "[" +
                                     Join(n,
                                          [](size_t i) {
                                              return "{\"destinations\": [\"/tmp/l" + std::to_string(i) +
                                                     "\"], \"filters\": [\"all\"]}";
                                          }) +
                                     "]";
                     return SettingsSteps(SettingsFile("\"stderr_log\": [\"error\"], \"log_locations\": " + a),
                                          [](const vkl_settings &s) { EXPECT_TRUE(s.active); });
                 }});
    c.push_back({"settings.layers", [](size_t n) {
                     std::string a = "[" +
                                     Join(n,
                                          [](size_t i) {
                                              return "{\"control\": \"on\", \"name\": \"VK_LAYER_l" +
                                                     std::to_string(i) + "\", \"path\": \"/l/" + std::to_string(i) +
                                                     ".json\"}";
                                          }) +
                                     "]";
                     return SettingsSteps(SettingsFile("\"layers\": " + a), [n](const vkl_settings &s) {
                         EXPECT_EQ(s.layer_count, n);
                         EXPECT_STREQ(s.layers[n - 1].name, ("VK_LAYER_l" + std::to_string(n - 1)).c_str());
                     });
                 }});
    c.push_back({"settings.additional_drivers", [](size_t n) {
                     std::string a =
                         "[" + Join(n, [](size_t i) { return "{\"path\": \"/d/" + std::to_string(i) + ".json\"}"; }) +
                         "]";
                     return SettingsSteps(SettingsFile("\"additional_drivers\": " + a), [n](const vkl_settings &s) {
                         EXPECT_EQ(s.driver_count, n);
                         EXPECT_STREQ(s.drivers[n - 1].path, ("/d/" + std::to_string(n - 1) + ".json").c_str());
                     });
                 }});
    c.push_back({"settings.device_configurations", [](size_t n) {
                     std::string a = "[" +
                                     Join(n,
                                          [](size_t i) {
                                              return "{\"deviceUUID\": " + Uuid() + ", \"driverUUID\": " + Uuid() +
                                                     ", \"driverVersion\": " + std::to_string(i) + "}";
                                          }) +
                                     "]";
                     return SettingsSteps(SettingsFile("\"device_configurations\": " + a), [n](const vkl_settings &s) {
                         EXPECT_EQ(s.device_count, n);
                         EXPECT_EQ(s.devices[n - 1].driver_version, n - 1);
                     });
                 }});
    c.push_back({"settings.app_keys", [](size_t n) {
                     // The executable is the last key: every key is read.
                     std::string keys = "[" + Join(n - 1, [](size_t i) { return Q("/other/" + std::to_string(i)); }) +
                                        ", " + Q(kExe) + "]";
                     return SettingsSteps(SettingsFile("\"app_keys\": " + keys + ", \"stderr_log\": [\"error\"]"),
                                          [](const vkl_settings &s) {
                                              EXPECT_EQ(s.selected_index, 0);
                                              EXPECT_EQ(s.stderr_log, VKL_LOG_ERROR);
                                          });
                 }});
    c.push_back({"settings.settings_array", [](size_t n) {
                     // n - 1 objects for other executables, then the one for this executable.
                     std::string a = "[" +
                                     Join(n - 1,
                                          [](size_t i) {
                                              return "{\"app_keys\": [\"/other/" + std::to_string(i) +
                                                     "\"], \"stderr_log\": [\"all\"]}";
                                          }) +
                                     ", {\"app_keys\": [" + Q(kExe) + "], \"stderr_log\": [\"warn\"]}]";
                     std::string doc = "{\"file_format_version\": \"1.0.0\", \"settings_array\": " + a + "}";
                     return SettingsSteps(doc, [n](const vkl_settings &s) {
                         EXPECT_EQ(s.selected_index, static_cast<int>(n - 1));
                         EXPECT_EQ(s.stderr_log, VKL_LOG_WARN);
                     });
                 }});

    // -- layer manifest ([Lyr] "Layer Manifest File Format") --
    c.push_back({"layer.layers", [](size_t n) {
                     std::string a =
                         "[" + Join(n, [](size_t i) { return LayerObject("VK_LAYER_l" + std::to_string(i), ""); }) +
                         "]";
                     std::string doc = "{\"file_format_version\": \"1.0.1\", \"layers\": " + a + "}";
                     return LayerSteps(doc, false, [n](const vkl_layer_manifest_file &f) {
                         ASSERT_EQ(f.count, n);
                         EXPECT_STREQ(f.layers[n - 1].props.layerName, ("VK_LAYER_l" + std::to_string(n - 1)).c_str());
                     });
                 }});
    c.push_back(
        {"layer.sibling_layer_keys", [](size_t n) {
             // 1.0.0: several sibling "layer" members, each one layer.
             std::string doc =
                 "{\"file_format_version\": \"1.0.0\", " +
                 Join(n, [](size_t i) { return "\"layer\": " + LayerObject("VK_LAYER_l" + std::to_string(i), ""); }) +
                 "}";
             return LayerSteps(doc, false, [n](const vkl_layer_manifest_file &f) { EXPECT_EQ(f.count, n); });
         }});
    c.push_back({"layer.component_layers", [](size_t n) {
                     std::string meta = "{\"name\": \"VK_LAYER_meta\", \"type\": \"GLOBAL\", \"api_version\": "
                                        "\"1.3.250\", \"implementation_version\": \"1\", \"description\": \"d\", "
                                        "\"component_layers\": " +
                                        Strings(n, "VK_LAYER_c") + "}";
                     return LayerSteps(LayerFile("1.1.1", meta), false, [n](const vkl_layer_manifest_file &f) {
                         ASSERT_EQ(f.count, 1u);
                         EXPECT_TRUE(f.layers[0].is_meta);
                         EXPECT_EQ(f.layers[0].component_layer_count, n);
                     });
                 }});
    for (const char *field : {"layer.instance_extensions", "layer.device_extensions"}) {
        std::string fs = std::string(field).substr(6); // after "layer."
        c.push_back({field, [fs](size_t n) {
                         std::string a = "[" +
                                         Join(n,
                                              [](size_t i) {
                                                  return "{\"name\": \"VK_EXT_e" + std::to_string(i) +
                                                         "\", \"spec_version\": \"1\"}";
                                              }) +
                                         "]";
                         std::string doc = LayerFile("1.0.0", LayerObject("VK_LAYER_a", ", \"" + fs + "\": " + a));
                         return LayerSteps(doc, false, [n, fs](const vkl_layer_manifest_file &f) {
                             ASSERT_EQ(f.count, 1u);
                             EXPECT_EQ(fs == "instance_extensions" ? f.layers[0].instance_extension_count
                                                                   : f.layers[0].device_extension_count,
                                       n);
                         });
                     }});
    }
    c.push_back({"layer.device_extensions.entrypoints", [](size_t n) {
                     std::string a =
                         "[{\"name\": \"VK_EXT_e\", \"spec_version\": \"1\", \"entrypoints\": " + Strings(n, "vkCmdE") +
                         "}]";
                     std::string doc = LayerFile("1.0.0", LayerObject("VK_LAYER_a", ", \"device_extensions\": " + a));
                     return LayerSteps(doc, false, [n](const vkl_layer_manifest_file &f) {
                         ASSERT_EQ(f.count, 1u);
                         ASSERT_EQ(f.layers[0].device_extension_count, 1u);
                         EXPECT_EQ(f.layers[0].device_extensions[0].entrypoint_count, n);
                     });
                 }});
    // The override layer's arrays (and app_keys), on an implicit layer as the input had them.
    for (const char *field : {"layer.override_paths", "layer.blacklisted_layers", "layer.app_keys"}) {
        std::string fs = std::string(field).substr(6); // after "layer."
        c.push_back({field, [fs](size_t n) {
                         std::string doc =
                             LayerFile("1.1.2", LayerObject("VK_LAYER_a",
                                                            DisableEnv() + ", \"" + fs + "\": " + Strings(n, "/x/")));
                         return LayerSteps(doc, true, [n, fs](const vkl_layer_manifest_file &f) {
                             ASSERT_EQ(f.count, 1u);
                             const vkl_layer_manifest &l = f.layers[0];
                             EXPECT_EQ(fs == "override_paths"       ? l.override_path_count
                                       : fs == "blacklisted_layers" ? l.blacklisted_layer_count
                                                                    : l.app_key_count,
                                       n);
                         });
                     }});
    }
    // Objects read by member: the first member of enable/disable_environment, three names of
    // functions and pre_instance_functions; n other members around them.
    c.push_back({"layer.enable_environment+disable_environment", [](size_t n) {
                     auto obj = [n](const std::string &first) {
                         return "{" + Q(first) + ": \"1\", " +
                                Join(n - 1, [](size_t i) { return Q("V" + std::to_string(i)) + ": \"1\""; }) + "}";
                     };
                     std::string extra = ", \"enable_environment\": " + obj("ENABLE_X") +
                                         ", \"disable_environment\": " + obj("DISABLE_X");
                     return LayerSteps(LayerFile("1.0.0", LayerObject("VK_LAYER_a", extra)), true,
                                       [](const vkl_layer_manifest_file &f) {
                                           ASSERT_EQ(f.count, 1u);
                                           EXPECT_STREQ(f.layers[0].enable_env, "ENABLE_X");
                                           EXPECT_STREQ(f.layers[0].disable_env, "DISABLE_X");
                                       });
                 }});
    c.push_back({"layer.functions+pre_instance_functions", [](size_t n) {
                     auto many = [n](const std::string &last) {
                         return "{" + Join(n - 1, [](size_t i) { return Q("vkF" + std::to_string(i)) + ": \"x\""; }) +
                                ", " + last + "}";
                     };
                     std::string extra =
                         DisableEnv() + ", \"functions\": " + many("\"vkGetInstanceProcAddr\": \"my_gipa\"") +
                         ", \"pre_instance_functions\": " + many("\"vkEnumerateInstanceVersion\": \"my_eiv\"");
                     return LayerSteps(LayerFile("1.1.2", LayerObject("VK_LAYER_a", extra)), true,
                                       [](const vkl_layer_manifest_file &f) {
                                           ASSERT_EQ(f.count, 1u);
                                           EXPECT_STREQ(f.layers[0].fn_get_instance_proc_addr, "my_gipa");
                                           EXPECT_STREQ(f.layers[0].pre_instance[2], "my_eiv");
                                       });
                 }});
    c.push_back({"layer.unknown_members", [](size_t n) {
                     std::string extra =
                         ", " + Join(n, [](size_t i) { return Q("unknown_" + std::to_string(i)) + ": [1]"; });
                     return LayerSteps(LayerFile("1.0.0", LayerObject("VK_LAYER_a", extra)), false,
                                       [](const vkl_layer_manifest_file &f) { EXPECT_EQ(f.count, 1u); });
                 }});

    // -- driver manifest ([Drv]: no arrays; objects with many members) --
    c.push_back({"driver.unknown_members", [](size_t n) {
                     std::string many = Join(n, [](size_t i) { return Q("k" + std::to_string(i)) + ": [0]"; });
                     return DriverSteps("{" + many + ", \"file_format_version\": \"1.0.1\", \"ICD\": {" + many +
                                        ", \"library_path\": \"./libd.so\", \"api_version\": \"1.3.0\"}}");
                 }});
    return c;
}

TEST(JsonLinear, EveryFieldOfEveryDocumentIsReadInLinearSteps) {
    for (const Case &k : Cases()) {
        SCOPED_TRACE(k.field);
        unsigned long long small = k.steps(kSmall);
        unsigned long long large = k.steps(kLarge);
        ASSERT_GT(small, 0u);
        double growth = static_cast<double>(large) / static_cast<double>(small);
        std::printf("%-45s %10llu steps (%zu) %12llu steps (%zu)  x%.1f\n", k.field, small, kSmall, large, kLarge,
                    growth);
        EXPECT_LE(growth, kMaxGrowth) << k.field << ": " << small << " steps for " << kSmall << " entries, " << large
                                      << " for " << kLarge;
    }
}

// The counter itself: iterating an array visits each element once; a member lookup visits the
// members up to the one found (the first of that name).
TEST(JsonLinear, StepCounterCountsNodeVisits) {
    const std::string doc = "{\"a\": [1, 2, 3, 4], \"b\": 1, \"a\": 2}";
    vkl_json *root = nullptr;
    ASSERT_EQ(vkl_json_parse(doc.data(), doc.size(), &root, nullptr, 0), VK_SUCCESS);
    unsigned long long s0 = vkl_json_steps_for_testing();
    const vkl_json *a = vkl_json_get(root, "a");
    EXPECT_EQ(vkl_json_steps_for_testing() - s0, 1u);
    EXPECT_TRUE(vkl_json_is_array(a));
    s0 = vkl_json_steps_for_testing();
    double sum = 0;
    VKL_JSON_FOR_EACH(e, a) sum += vkl_json_number(e);
    EXPECT_EQ(sum, 10.0);
    EXPECT_EQ(vkl_json_steps_for_testing() - s0, 5u); // first + four next
    s0 = vkl_json_steps_for_testing();
    EXPECT_EQ(vkl_json_get(root, "zz"), nullptr);
    EXPECT_EQ(vkl_json_steps_for_testing() - s0, 3u);
    vkl_json_free(root);
}

} // namespace
