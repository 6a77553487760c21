// Unit tests for loader/settings.c: the settings-file parser (every key, every rejection and its one
// log line), the search candidates, and the snapshot cache over real files under $TEST_TMPDIR.
#include <gtest/gtest.h>

#include <algorithm>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "loader/internal/env.h"
#include "loader/internal/settings.h"
#include "loader/internal/strlist.h"
}

namespace {

using Lines = std::vector<std::pair<uint32_t, std::string>>;

struct Result {
    VkResult result;
    vkl_settings s;
    Lines lines;
    ~Result() { vkl_settings_finish(&s); }
    // Lines that end with the settings rule tag and name the file (rejections and notes).
    size_t Tagged() const {
        size_t n = 0;
        for (auto &l : lines)
            if (l.second.find("[RULE_SETTINGS_FILE]") != std::string::npos) n++;
        return n;
    }
    bool Has(const std::string &text) const {
        for (auto &l : lines)
            if (l.second.find(text) != std::string::npos) return true;
        return false;
    }
};

void Emit(void *ctx, uint32_t flags, const char *line) { static_cast<Lines *>(ctx)->emplace_back(flags, line); }

constexpr const char *kPath = "/cfg/vulkan/loader_settings.d/vk_loader_settings.json";
constexpr const char *kExe = "/opt/app/bin/game";

std::unique_ptr<Result> Parse(const std::string &json, const char *exe = kExe) {
    auto r = std::make_unique<Result>();
    vkl_log_set_level_for_testing(0);
    vkl_log_sink sink{Emit, &r->lines};
    std::memset(&r->s, 0xAB, sizeof(r->s));
    r->result = vkl_settings_parse(kPath, json.data(), json.size(), exe, &sink, &r->s);
    return r;
}

std::string File(const std::string &settings_body) {
    return "{\"file_format_version\":\"1.0.0\",\"settings\":{" + settings_body + "}}";
}

std::string Uuid(int first) {
    std::string s = "[";
    for (int i = 0; i < 16; i++) s += (i ? "," : "") + std::to_string((first + i) & 0xff);
    return s + "]";
}

void ExpectZeroed(const vkl_settings &s) {
    vkl_settings zero;
    std::memset(&zero, 0, sizeof(zero));
    EXPECT_EQ(std::memcmp(&s, &zero, sizeof(s)), 0);
}

// ---- file level -------------------------------------------------------------------------------

TEST(SettingsParse, MinimalInactive) {
    auto r = Parse(File(""));
    ASSERT_EQ(r->result, VK_SUCCESS);
    EXPECT_FALSE(r->s.active);
    EXPECT_EQ(r->s.selected_index, 0);
    EXPECT_STREQ(r->s.file_path, kPath);
    EXPECT_TRUE(r->lines.empty());
}

TEST(SettingsParse, FileRejections) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"{", "not valid JSON"},
        {"[]", "top-level value has type array"},
        {"{\"settings\":{}}", "'file_format_version' is missing"},
        {"{\"file_format_version\":1,\"settings\":{}}", "'file_format_version' is not a string"},
        {"{\"file_format_version\":\"1.0.0\"}", "neither a 'settings' object nor a 'settings_array'"},
        {"{\"file_format_version\":\"1.0.0\",\"settings\":[]}", "neither a 'settings' object"},
        {"{\"file_format_version\":\"1.0.0\",\"settings_array\":{}}", "neither a 'settings' object"},
    };
    for (auto &c : cases) {
        SCOPED_TRACE(c.first);
        auto r = Parse(c.first);
        EXPECT_EQ(r->result, VK_ERROR_INITIALIZATION_FAILED);
        ExpectZeroed(r->s);
        ASSERT_EQ(r->lines.size(), 1u);
        EXPECT_NE(r->lines[0].second.find(kPath), std::string::npos) << r->lines[0].second;
        EXPECT_NE(r->lines[0].second.find(c.second), std::string::npos) << r->lines[0].second;
        EXPECT_NE(r->lines[0].second.find("[RULE_SETTINGS_FILE]"), std::string::npos);
    }
}

TEST(SettingsParse, EmbeddedNulRejectsTheFile) {
    auto r = Parse(File("\"layers\":[{\"control\":\"on\",\"name\":\"VK_LAYER_a\\u0000b\",\"path\":\"/l.json\"}]"));
    EXPECT_EQ(r->result, VK_ERROR_INITIALIZATION_FAILED);
    ASSERT_EQ(r->lines.size(), 1u);
    // Refused by the JSON module (json.h) or, failing that, by the settings parser itself.
    EXPECT_TRUE(r->Has("\\u0000") && r->Has("at line 1, column")) << r->lines[0].second;
    EXPECT_TRUE(r->Has(kPath));
    // An escaped backslash followed by "u0000" is not a NUL escape.
    auto ok = Parse(File("\"layers\":[{\"control\":\"on\",\"name\":\"a\\\\u0000\",\"path\":\"/l.json\"}]"));
    ASSERT_EQ(ok->result, VK_SUCCESS);
    EXPECT_STREQ(ok->s.layers[0].name, "a\\u0000");
}

// ---- object selection -------------------------------------------------------------------------

TEST(SettingsParse, SettingsArrayPicksAppKeysThenFirstGlobal) {
    std::string json = "{\"file_format_version\":\"1.0.0\",\"settings_array\":["
                       "{\"app_keys\":[\"/other\"],\"stderr_log\":[\"error\"]},"
                       "{\"stderr_log\":[\"warn\"]},"
                       "{\"stderr_log\":[\"info\"]},"
                       "{\"app_keys\":[\"/x\",\"/opt/app/bin/game\"],\"stderr_log\":[\"debug\"]}]}";
    auto r = Parse(json);
    ASSERT_EQ(r->result, VK_SUCCESS);
    EXPECT_EQ(r->s.selected_index, 3);
    EXPECT_EQ(r->s.stderr_log, VKL_LOG_DEBUG);
    // Another executable: the first object without app_keys.
    auto g = Parse(json, "/usr/bin/vkcube");
    EXPECT_EQ(g->s.selected_index, 1);
    EXPECT_EQ(g->s.stderr_log, VKL_LOG_WARN);
    // Exact match only: a prefix or a different case does not select.
    auto p = Parse(json, "/opt/app/bin/gam");
    EXPECT_EQ(p->s.selected_index, 1);
}

TEST(SettingsParse, NoObjectForThisExecutable) {
    auto r = Parse("{\"file_format_version\":\"1.0.0\",\"settings_array\":[{\"app_keys\":[\"/a\"],"
                   "\"stderr_log\":[\"all\"]}]}");
    ASSERT_EQ(r->result, VK_SUCCESS);
    EXPECT_EQ(r->s.selected_index, -1);
    EXPECT_FALSE(r->s.active);
    EXPECT_TRUE(r->Has("no settings object applies to this executable"));
    auto s = Parse(File("\"app_keys\":[\"/a\"],\"stderr_log\":[\"all\"]"));
    EXPECT_EQ(s->s.selected_index, -1);
    EXPECT_FALSE(s->s.active);
    auto m = Parse(File("\"app_keys\":[\"/opt/app/bin/game\"],\"stderr_log\":[\"all\"]"));
    EXPECT_EQ(m->s.selected_index, 0);
    EXPECT_TRUE(m->s.active);
}

TEST(SettingsParse, MalformedAppKeysNeverSelect) {
    auto r = Parse("{\"file_format_version\":\"1.0.0\",\"settings_array\":["
                   "{\"app_keys\":\"/opt/app/bin/game\",\"stderr_log\":[\"error\"]},"
                   "{\"app_keys\":[1],\"stderr_log\":[\"error\"]},"
                   "7,"
                   "{\"stderr_log\":[\"warn\"]}]}");
    ASSERT_EQ(r->result, VK_SUCCESS);
    EXPECT_EQ(r->s.selected_index, 3);
    EXPECT_TRUE(r->Has("settings_array[0]: field 'app_keys' has type string"));
    EXPECT_TRUE(r->Has("settings_array[1]: app_keys[0] is not a string"));
    EXPECT_TRUE(r->Has("settings_array[2] is not an object"));
}

// ---- stderr_log / log_locations --------------------------------------------------------------

TEST(SettingsParse, StderrLog) {
    auto r = Parse(File("\"stderr_log\":[\"error\",\"driver\",\"bogus\"]"));
    ASSERT_EQ(r->result, VK_SUCCESS);
    EXPECT_EQ(r->s.stderr_log, VKL_LOG_ERROR | VKL_LOG_DRIVER);
    EXPECT_TRUE(r->s.active);
    EXPECT_TRUE(r->Has("stderr_log[2] is not a known log word"));
    EXPECT_EQ(Parse(File("\"stderr_log\":[\"all\"]"))->s.stderr_log, VKL_LOG_ALL);
    auto bad = Parse(File("\"stderr_log\":\"all\""));
    EXPECT_EQ(bad->s.stderr_log, 0u);
    EXPECT_FALSE(bad->s.active);
    EXPECT_TRUE(bad->Has("field 'stderr_log' has type string, expected array"));
    // Empty list: not active.
    EXPECT_FALSE(Parse(File("\"stderr_log\":[]"))->s.active);
}

TEST(SettingsParse, LogLocationsParsedAndIgnored) {
    auto r = Parse(File("\"log_locations\":[{\"destinations\":[\"/tmp/x.txt\"],\"filters\":[\"all\"]}]"));
    ASSERT_EQ(r->result, VK_SUCCESS);
    EXPECT_FALSE(r->s.active);
    EXPECT_TRUE(r->lines.empty());
    EXPECT_TRUE(Parse(File("\"log_locations\":3"))->Has("field 'log_locations' has type number"));
}

// ---- layers ----------------------------------------------------------------------------------

TEST(SettingsParse, Layers) {
    auto r = Parse(File("\"layers\":["
                        "{\"control\":\"on\",\"name\":\"VK_LAYER_a\",\"path\":\"/l/a.json\"},"
                        "{\"control\":\"unordered_layer_location\"},"
                        "{\"control\":\"off\",\"name\":\"VK_LAYER_b\",\"path\":\"/l/b.json\","
                        "\"treat_as_implicit_manifest\":true},"
                        "{\"control\":\"auto\",\"name\":\"VK_LAYER_c\",\"path\":\"rel/c.json\"},"
                        "{\"control\":\"sometimes\",\"name\":\"VK_LAYER_d\",\"path\":\"/l/d.json\"}]"));
    ASSERT_EQ(r->result, VK_SUCCESS);
    ASSERT_TRUE(r->s.has_layers);
    EXPECT_TRUE(r->s.active);
    ASSERT_EQ(r->s.layer_count, 5u);
    EXPECT_EQ(r->s.layers[0].control, VKL_SETTINGS_LAYER_ON);
    EXPECT_STREQ(r->s.layers[0].name, "VK_LAYER_a");
    EXPECT_STREQ(r->s.layers[0].path, "/l/a.json");
    EXPECT_FALSE(r->s.layers[0].treat_as_implicit_manifest);
    EXPECT_EQ(r->s.layers[1].control, VKL_SETTINGS_LAYER_UNORDERED);
    EXPECT_EQ(r->s.layers[1].name, nullptr);
    EXPECT_EQ(r->s.layers[2].control, VKL_SETTINGS_LAYER_OFF);
    EXPECT_TRUE(r->s.layers[2].treat_as_implicit_manifest);
    EXPECT_EQ(r->s.layers[3].control, VKL_SETTINGS_LAYER_AUTO);
    EXPECT_STREQ(r->s.layers[3].path, "/cfg/vulkan/loader_settings.d/rel/c.json"); // relative to the file
    EXPECT_EQ(r->s.layers[4].control, VKL_SETTINGS_LAYER_AUTO);                    // unknown control => auto
    EXPECT_TRUE(r->Has("layers[4]: control \"sometimes\" is not on, off, auto or unordered_layer_location"));
    EXPECT_EQ(r->lines.size(), 1u);
}

// A relative layer or driver path is relative to the settings file's own directory (not to the
// working directory); an absolute one is kept as written (docs/settings.md "Relative paths").
TEST(SettingsParse, RelativePathsAreRelativeToTheFile) {
    auto r = Parse(File("\"layers\":["
                        "{\"control\":\"on\",\"name\":\"VK_LAYER_a\",\"path\":\"a.json\"},"
                        "{\"control\":\"auto\",\"name\":\"VK_LAYER_b\",\"path\":\"../layers/b.json\"},"
                        "{\"control\":\"off\",\"name\":\"VK_LAYER_c\",\"path\":\"/abs/c.json\"}],"
                        "\"additional_drivers\":[{\"path\":\"./icd.json\"},{\"path\":\"drivers\"},"
                        "{\"path\":\"/abs/icd.json\"}]"));
    ASSERT_EQ(r->result, VK_SUCCESS);
    ASSERT_EQ(r->s.layer_count, 3u);
    EXPECT_STREQ(r->s.layers[0].path, "/cfg/vulkan/loader_settings.d/a.json");
    EXPECT_STREQ(r->s.layers[1].path, "/cfg/vulkan/loader_settings.d/../layers/b.json");
    EXPECT_STREQ(r->s.layers[2].path, "/abs/c.json");
    ASSERT_EQ(r->s.driver_count, 3u);
    EXPECT_STREQ(r->s.drivers[0].path, "/cfg/vulkan/loader_settings.d/./icd.json");
    EXPECT_STREQ(r->s.drivers[1].path, "/cfg/vulkan/loader_settings.d/drivers");
    EXPECT_STREQ(r->s.drivers[2].path, "/abs/icd.json");
    EXPECT_TRUE(r->lines.empty());
    // A file named without a directory: its directory is the working directory, the path stays.
    vkl_settings s;
    const std::string text = File("\"additional_drivers\":[{\"path\":\"icd.json\"}]");
    ASSERT_EQ(vkl_settings_parse("vk_loader_settings.json", text.data(), text.size(), kExe, nullptr, &s), VK_SUCCESS);
    ASSERT_EQ(s.driver_count, 1u);
    EXPECT_STREQ(s.drivers[0].path, "icd.json");
    vkl_settings_finish(&s);
}

TEST(SettingsParse, LayerOn) {
    auto r = Parse(File("\"layers\":["
                        "{\"control\":\"on\",\"name\":\"VK_LAYER_on\",\"path\":\"/a.json\"},"
                        "{\"control\":\"unordered_layer_location\"},"
                        "{\"control\":\"auto\",\"name\":\"VK_LAYER_auto\",\"path\":\"/b.json\"},"
                        "{\"control\":\"off\",\"name\":\"VK_LAYER_off\",\"path\":\"/c.json\"}]"));
    ASSERT_EQ(r->result, VK_SUCCESS);
    EXPECT_TRUE(vkl_settings_layer_on(&r->s, "VK_LAYER_on"));
    EXPECT_FALSE(vkl_settings_layer_on(&r->s, "VK_LAYER_auto"));
    EXPECT_FALSE(vkl_settings_layer_on(&r->s, "VK_LAYER_off"));
    EXPECT_FALSE(vkl_settings_layer_on(&r->s, "VK_LAYER_other"));
    EXPECT_FALSE(vkl_settings_layer_on(nullptr, "VK_LAYER_on"));
    auto none = Parse(File("\"stderr_log\":[\"error\"]"));
    EXPECT_FALSE(vkl_settings_layer_on(&none->s, "VK_LAYER_on"));
}

TEST(SettingsParse, EmptyLayersIsActive) {
    auto r = Parse(File("\"layers\":[]"));
    ASSERT_EQ(r->result, VK_SUCCESS);
    EXPECT_TRUE(r->s.has_layers);
    EXPECT_EQ(r->s.layer_count, 0u);
    EXPECT_TRUE(r->s.active);
}

TEST(SettingsParse, OneMalformedLayerDiscardsTheSection) {
    const std::string good = "{\"control\":\"on\",\"name\":\"VK_LAYER_a\",\"path\":\"/a.json\"},";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"5", "layers[1] is not an object"},
        {"{\"name\":\"VK_LAYER_b\",\"path\":\"/b.json\"}", "layers[1]: field 'control' is missing"},
        {"{\"control\":1,\"name\":\"VK_LAYER_b\",\"path\":\"/b.json\"}", "layers[1]: field 'control' is not a string"},
        {"{\"control\":\"on\",\"path\":\"/b.json\"}", "layers[1]: field 'name' is missing"},
        {"{\"control\":\"on\",\"name\":\"\",\"path\":\"/b.json\"}", "layers[1]: field 'name' is empty"},
        {"{\"control\":\"off\",\"name\":\"VK_LAYER_b\"}", "layers[1]: field 'path' is missing"},
        {"{\"control\":\"auto\",\"name\":\"VK_LAYER_b\",\"path\":[]}", "layers[1]: field 'path' is not a string"},
        {"{\"control\":\"on\",\"name\":\"VK_LAYER_b\",\"path\":\"/b.json\",\"treat_as_implicit_manifest\":\"yes\"}",
         "layers[1]: field 'treat_as_implicit_manifest' is not a bool"},
    };
    for (auto &c : cases) {
        SCOPED_TRACE(c.first);
        auto r = Parse(File("\"stderr_log\":[\"error\"],\"layers\":[" + good + c.first + "]"));
        ASSERT_EQ(r->result, VK_SUCCESS);
        EXPECT_FALSE(r->s.has_layers);
        EXPECT_EQ(r->s.layer_count, 0u);
        EXPECT_EQ(r->s.stderr_log, VKL_LOG_ERROR); // the rest of the file still applies
        ASSERT_EQ(r->lines.size(), 1u);
        EXPECT_TRUE(r->Has(c.second)) << r->lines[0].second;
        EXPECT_TRUE(r->Has("the whole 'layers' section is ignored"));
        EXPECT_TRUE(r->Has(kPath));
    }
    auto t = Parse(File("\"layers\":{}"));
    EXPECT_FALSE(t->s.has_layers);
    EXPECT_FALSE(t->s.active);
    EXPECT_TRUE(t->Has("field 'layers' has type object, expected array"));
}

// ---- additional drivers ---------------------------------------------------------------------

TEST(SettingsParse, AdditionalDrivers) {
    auto r = Parse(File("\"additional_drivers_use_exclusively\":true,"
                        "\"additional_drivers\":[{\"path\":\"/d/a.json\"},{\"path\":\"/d/b.json\"}]"));
    ASSERT_EQ(r->result, VK_SUCCESS);
    EXPECT_TRUE(r->s.active);
    EXPECT_TRUE(r->s.additional_drivers_use_exclusively);
    ASSERT_EQ(r->s.driver_count, 2u);
    EXPECT_STREQ(r->s.drivers[0].path, "/d/a.json");
    EXPECT_STREQ(r->s.drivers[1].path, "/d/b.json");
    EXPECT_TRUE(r->lines.empty());
    // An empty list: nothing to add, not active by itself.
    EXPECT_FALSE(Parse(File("\"additional_drivers\":[]"))->s.active);
}

TEST(SettingsParse, OneMalformedDriverDiscardsAll) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"{}", "additional_drivers[1]: field 'path' is missing"},
        {"{\"path\":3}", "additional_drivers[1]: field 'path' is not a string"},
        {"{\"path\":\"\"}", "additional_drivers[1]: field 'path' is empty"},
        {"\"/d/b.json\"", "additional_drivers[1] is not an object"},
    };
    for (auto &c : cases) {
        SCOPED_TRACE(c.first);
        auto r = Parse(File("\"additional_drivers\":[{\"path\":\"/d/a.json\"}," + c.first + "]"));
        ASSERT_EQ(r->result, VK_SUCCESS);
        EXPECT_EQ(r->s.driver_count, 0u);
        EXPECT_FALSE(r->s.active);
        ASSERT_EQ(r->lines.size(), 1u);
        EXPECT_TRUE(r->Has(c.second)) << r->lines[0].second;
        EXPECT_TRUE(r->Has("all additional_drivers are ignored"));
    }
    auto e = Parse(File("\"additional_drivers_use_exclusively\":1,\"additional_drivers\":[{\"path\":\"/a.json\"}]"));
    EXPECT_FALSE(e->s.additional_drivers_use_exclusively);
    EXPECT_TRUE(e->Has("'additional_drivers_use_exclusively' has type number, expected bool"));
}

// ---- device configurations -------------------------------------------------------------------

TEST(SettingsParse, DeviceConfigurations) {
    auto r = Parse(File("\"device_configurations\":[{\"deviceUUID\":" + Uuid(1) + ",\"driverUUID\":" + Uuid(100) +
                        ",\"driverVersion\":4294967295,\"deviceName\":\"GPU A\",\"driverName\":\"drv\"},"
                        "{\"deviceUUID\":" +
                        Uuid(0) + ",\"driverUUID\":" + Uuid(240) + ",\"driverVersion\":0}]"));
    ASSERT_EQ(r->result, VK_SUCCESS);
    EXPECT_TRUE(r->s.has_device_configurations);
    EXPECT_TRUE(r->s.active);
    ASSERT_EQ(r->s.device_count, 2u);
    EXPECT_EQ(r->s.devices[0].device_uuid[0], 1);
    EXPECT_EQ(r->s.devices[0].device_uuid[15], 16);
    EXPECT_EQ(r->s.devices[0].driver_uuid[0], 100);
    EXPECT_EQ(r->s.devices[0].driver_version, 4294967295u);
    EXPECT_STREQ(r->s.devices[0].device_name, "GPU A");
    EXPECT_STREQ(r->s.devices[0].driver_name, "drv");
    EXPECT_EQ(r->s.devices[1].driver_uuid[15], (240 + 15) & 0xff);
    EXPECT_EQ(r->s.devices[1].device_name, nullptr);
    EXPECT_TRUE(r->lines.empty());
    EXPECT_FALSE(vkl_settings_use_driver_env(&r->s));
}

TEST(SettingsParse, MalformedDeviceEntriesSkippedOneByOne) {
    std::string good = "{\"deviceUUID\":" + Uuid(1) + ",\"driverUUID\":" + Uuid(2) + ",\"driverVersion\":7}";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"1", "device_configurations[0] is not an object"},
        {"{\"driverUUID\":" + Uuid(2) + ",\"driverVersion\":7}", "[0]: field 'deviceUUID' is not an array of 16"},
        {"{\"deviceUUID\":[1,2,3],\"driverUUID\":" + Uuid(2) + ",\"driverVersion\":7}", "field 'deviceUUID'"},
        {"{\"deviceUUID\":" + Uuid(1) + ",\"driverUUID\":[256,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],\"driverVersion\":7}",
         "field 'driverUUID'"},
        {"{\"deviceUUID\":" + Uuid(1) + ",\"driverUUID\":[1.5,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0],\"driverVersion\":7}",
         "field 'driverUUID'"},
        {"{\"deviceUUID\":" + Uuid(1) + ",\"driverUUID\":" + Uuid(2) + "}", "field 'driverVersion' is missing"},
        {"{\"deviceUUID\":" + Uuid(1) + ",\"driverUUID\":" + Uuid(2) + ",\"driverVersion\":-1}",
         "field 'driverVersion' is not an integer"},
        {"{\"deviceUUID\":" + Uuid(1) + ",\"driverUUID\":" + Uuid(2) + ",\"driverVersion\":4294967296}",
         "field 'driverVersion' is not an integer"},
        {"{\"deviceUUID\":" + Uuid(1) + ",\"driverUUID\":" + Uuid(2) + ",\"driverVersion\":\"7\"}",
         "field 'driverVersion' is not an integer"},
        {"{\"deviceUUID\":" + Uuid(1) + ",\"driverUUID\":" + Uuid(2) + ",\"driverVersion\":7,\"deviceName\":1}",
         "field 'deviceName' is not a string"},
    };
    for (auto &c : cases) {
        SCOPED_TRACE(c.first);
        auto r = Parse(File("\"device_configurations\":[" + c.first + "," + good + "]"));
        ASSERT_EQ(r->result, VK_SUCCESS);
        EXPECT_TRUE(r->s.has_device_configurations);
        ASSERT_EQ(r->s.device_count, 1u); // the good one kept
        EXPECT_EQ(r->s.devices[0].driver_version, 7u);
        ASSERT_EQ(r->lines.size(), 1u);
        EXPECT_TRUE(r->Has(c.second)) << r->lines[0].second;
        EXPECT_TRUE(r->Has("entry skipped"));
    }
    // Present but every entry bad: still "present" (no device can match later).
    auto none = Parse(File("\"device_configurations\":[]"));
    EXPECT_TRUE(none->s.has_device_configurations);
    EXPECT_TRUE(none->s.active);
    auto wrong = Parse(File("\"device_configurations\":{}"));
    EXPECT_FALSE(wrong->s.has_device_configurations);
    EXPECT_FALSE(wrong->s.active);
}

TEST(SettingsParse, FinishTwiceAndNullOut) {
    auto r = Parse(File("\"layers\":[{\"control\":\"on\",\"name\":\"VK_LAYER_a\",\"path\":\"/a.json\"}]"));
    vkl_settings_finish(&r->s);
    ExpectZeroed(r->s);
    vkl_settings_finish(&r->s);
    vkl_settings_finish(nullptr);
    std::string j = File("");
    EXPECT_EQ(vkl_settings_parse(kPath, j.data(), j.size(), kExe, nullptr, nullptr), VK_ERROR_INITIALIZATION_FAILED);
}

TEST(SettingsParse, LogWords) {
    EXPECT_EQ(vkl_settings_log_word("warn"), VKL_LOG_WARN);
    EXPECT_EQ(vkl_settings_log_word("layer"), VKL_LOG_LAYER);
    EXPECT_EQ(vkl_settings_log_word("perf"), VKL_LOG_PERF);
    EXPECT_EQ(vkl_settings_log_word("war"), 0u);
    EXPECT_EQ(vkl_settings_log_word(nullptr), 0u);
}

// ---- search candidates ----------------------------------------------------------------------

std::vector<std::string> Candidates(const vkl_search_env &env) {
    vkl_strlist l = VKL_STRLIST_INIT;
    EXPECT_EQ(vkl_settings_candidates(&env, &l), VK_SUCCESS);
    std::vector<std::string> v(l.items, l.items + l.count);
    vkl_strlist_finish(&l);
    return v;
}

const std::string kTail = "/vulkan/loader_settings.d/vk_loader_settings.json";

TEST(SettingsSearch, OrderAndEveryDirsEntry) {
    vkl_search_env env{};
    env.xdg_config_home = "/ch";
    env.xdg_data_home = "/dh/";
    env.home = "/home/u";
    env.xdg_config_dirs = "/c1:/c2";
    env.xdg_data_dirs = "/d1::/d2";
    env.sysconfdir = "/etc";
    auto v = Candidates(env);
    std::vector<std::string> want = {"/ch" + kTail,  "/dh" + kTail, "/c1" + kTail, "/c2" + kTail,
                                     "/etc" + kTail, "/d1" + kTail, "/d2" + kTail};
    EXPECT_EQ(v, want);
}

TEST(SettingsSearch, HomeFallbacksAndDefaults) {
    vkl_search_env env{};
    env.home = "/home/u";
    env.xdg_config_home = "";
    env.sysconfdir = "/etc";
    auto v = Candidates(env);
    std::vector<std::string> want = {"/home/u/.config" + kTail,  "/home/u/.local/share" + kTail,
                                     "/etc/xdg" + kTail,         "/etc" + kTail,
                                     "/usr/local/share" + kTail, "/usr/share" + kTail};
    EXPECT_EQ(v, want);
}

TEST(SettingsSearch, NoUserLocationsWithoutHomeOrXdg) {
    // What an elevated process sees: vkl_getenv hides HOME and XDG_* (env.h).
    vkl_search_env env{};
    env.sysconfdir = "/etc";
    auto v = Candidates(env);
    ASSERT_FALSE(v.empty());
    EXPECT_EQ(v[0], "/etc/xdg" + kTail);
}

// Duplicates dropped (the first one kept), trailing '/' trimmed, "/" and "//" the same root, over
// lists long enough for the look-up table to grow several times: the candidates equal a plain
// reference (split, trim, compare with every earlier one).
TEST(SettingsSearch, DuplicatesDroppedInLongListsAsTheReferenceDoes) {
    std::vector<std::string> entries;
    for (int i = 0; i < 3000; i++) {
        int k = (i * 7919) % 1200; // every base appears more than once, in scattered order
        std::string e = "/b" + std::to_string(k);
        if (i % 3 == 0) e += "/";
        if (i % 5 == 0) e += "//";
        entries.push_back(e);
        if (i % 500 == 0) entries.push_back(i % 1000 == 0 ? "/" : "//");
        if (i % 250 == 0) entries.push_back("");
    }
    std::string data_dirs;
    for (size_t i = 0; i < entries.size(); i++) data_dirs += (i ? ":" : "") + entries[i];
    vkl_search_env env{};
    env.xdg_config_home = "/b7/";
    env.home = "/home/u";
    env.xdg_config_dirs = "/b3:/c:/c/";
    env.sysconfdir = "/etc";
    env.xdg_data_dirs = data_dirs.c_str();
    // the reference
    std::vector<std::string> bases = {"/b7/", "/home/u/.local/share", "/b3", "/c", "/c/", "/etc"};
    bases.insert(bases.end(), entries.begin(), entries.end());
    std::vector<std::string> want;
    for (std::string b : bases) {
        while (b.size() > 1 && b.back() == '/') b.pop_back();
        if (b.empty()) continue;
        std::string p = (b == "/" ? "" : b) + kTail;
        if (std::find(want.begin(), want.end(), p) == want.end()) want.push_back(p);
    }
    EXPECT_EQ(want.size(), 1200u + 4u); // 1,200 /bN (b3 and b7 among them), home, /c, /etc, the root
    EXPECT_EQ(Candidates(env), want);
}

// ---- the snapshot cache over real files --------------------------------------------------------

class SettingsAcquire : public ::testing::Test {
  protected:
    std::string root_;
    void SetUp() override {
        const char *t = std::getenv("TEST_TMPDIR");
        ASSERT_NE(t, nullptr);
        root_ = std::string(t) + "/settings_acquire_" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
        ASSERT_EQ(system(("rm -rf '" + root_ + "' && mkdir -p '" + root_ + "'").c_str()), 0);
        setenv("XDG_CONFIG_HOME", (root_ + "/ch").c_str(), 1);
        setenv("XDG_DATA_HOME", (root_ + "/dh").c_str(), 1);
        setenv("XDG_CONFIG_DIRS", (root_ + "/cd0:" + root_ + "/cd1").c_str(), 1);
        setenv("XDG_DATA_DIRS", (root_ + "/dd0").c_str(), 1);
        setenv("HOME", (root_ + "/home").c_str(), 1);
        vkl_settings_cache_flush_for_testing();
        vkl_log_set_level_for_testing(0);
    }
    void TearDown() override {
        vkl_env_set_elevated_for_testing(-1);
        vkl_settings_cache_flush_for_testing();
        vkl_log_set_settings_level(0);
    }
    void Write(const std::string &base, const std::string &content) {
        std::string dir = root_ + "/" + base + "/vulkan/loader_settings.d";
        ASSERT_EQ(system(("mkdir -p '" + dir + "'").c_str()), 0);
        std::ofstream(dir + "/vk_loader_settings.json") << content;
    }
};

TEST_F(SettingsAcquire, NoneFound) { EXPECT_EQ(vkl_settings_acquire(nullptr), nullptr); }

TEST_F(SettingsAcquire, FirstExistingWinsAndSecondDirsEntrySearched) {
    Write("cd1", File("\"stderr_log\":[\"error\"]"));
    const vkl_settings *s = vkl_settings_acquire(nullptr);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->stderr_log, VKL_LOG_ERROR);
    EXPECT_EQ(vkl_log_level(), VKL_LOG_ERROR); // stderr_log replaces VK_LOADER_DEBUG
    vkl_settings_release(s);
    Write("dh", File("\"stderr_log\":[\"warn\"]"));
    s = vkl_settings_acquire(nullptr);
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->stderr_log, VKL_LOG_WARN);
    EXPECT_NE(std::string(s->file_path).find("/dh/"), std::string::npos);
    vkl_settings_release(s);
}

TEST_F(SettingsAcquire, ReReadWhenChangedAndSnapshotOutlivesIt) {
    Write("ch", File("\"stderr_log\":[\"error\"]"));
    const vkl_settings *a = vkl_settings_acquire(nullptr);
    ASSERT_NE(a, nullptr);
    const vkl_settings *same = vkl_settings_acquire(nullptr);
    EXPECT_EQ(a, same); // unchanged file: the cached snapshot
    vkl_settings_release(same);
    Write("ch", File("\"stderr_log\":[\"info\",\"warn\"]"));
    const vkl_settings *b = vkl_settings_acquire(nullptr);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->stderr_log, VKL_LOG_INFO | VKL_LOG_WARN);
    EXPECT_EQ(a->stderr_log, VKL_LOG_ERROR); // the old snapshot is still readable
    vkl_settings_release(a);
    vkl_settings_release(b);
    // Removed: no settings, and the stderr_log override is gone.
    ASSERT_EQ(unlink((root_ + "/ch/vulkan/loader_settings.d/vk_loader_settings.json").c_str()), 0);
    EXPECT_EQ(vkl_settings_acquire(nullptr), nullptr);
    EXPECT_EQ(vkl_log_level(), 0u);
}

TEST_F(SettingsAcquire, ElevatedIgnoresUserLocations) {
    Write("ch", File("\"stderr_log\":[\"error\"]"));
    Write("dh", File("\"stderr_log\":[\"error\"]"));
    Write("home/.config", File("\"stderr_log\":[\"error\"]"));
    vkl_env_set_elevated_for_testing(1);
    EXPECT_EQ(vkl_settings_acquire(nullptr), nullptr);
    vkl_env_set_elevated_for_testing(0);
    const vkl_settings *s = vkl_settings_acquire(nullptr);
    EXPECT_NE(s, nullptr);
    vkl_settings_release(s);
}

// Inside a call scope (vkCreateInstance) the file is searched once: every acquire on this thread
// gets the scope's snapshot, whatever happens to the file meanwhile; after the outermost end the
// search is back.
TEST_F(SettingsAcquire, ScopeSearchesOnce) {
    Write("ch", File("\"stderr_log\":[\"error\"]"));
    Lines lines;
    vkl_log_sink sink{Emit, &lines};
    auto searches = [&lines]() {
        size_t n = 0;
        for (auto &l : lines) n += l.second.find("settings search: no file") != std::string::npos;
        return n;
    };
    ASSERT_EQ(unlink((root_ + "/ch/vulkan/loader_settings.d/vk_loader_settings.json").c_str()), 0);
    Write("dd0", File("\"stderr_log\":[\"error\"]")); // the last candidate: every other one is tried first
    const vkl_settings *outer = vkl_settings_scope_begin(&sink);
    ASSERT_NE(outer, nullptr);
    const size_t once = searches();
    EXPECT_GT(once, 0u);
    ASSERT_EQ(unlink((root_ + "/dd0/vulkan/loader_settings.d/vk_loader_settings.json").c_str()), 0);
    const vkl_settings *inner = vkl_settings_acquire(&sink);
    EXPECT_EQ(inner, outer); // no search, the call's snapshot although the file is gone
    const vkl_settings *nested = vkl_settings_scope_begin(&sink);
    EXPECT_EQ(nested, outer);
    vkl_settings_scope_end();
    const vkl_settings *still = vkl_settings_acquire(&sink);
    EXPECT_EQ(still, outer); // the outer scope is still open
    EXPECT_EQ(searches(), once);
    vkl_settings_release(still);
    vkl_settings_release(nested);
    vkl_settings_release(inner);
    vkl_settings_scope_end();
    EXPECT_EQ(outer->stderr_log, VKL_LOG_ERROR); // the caller's reference keeps it readable
    vkl_settings_release(outer);
    EXPECT_EQ(vkl_settings_acquire(&sink), nullptr); // searched again: the file is gone
    EXPECT_GT(searches(), once);
    // A scope with no settings file: NULL throughout, and no search inside it.
    lines.clear();
    EXPECT_EQ(vkl_settings_scope_begin(&sink), nullptr);
    const size_t empty_once = searches();
    EXPECT_EQ(vkl_settings_acquire(&sink), nullptr);
    EXPECT_EQ(searches(), empty_once);
    vkl_settings_scope_end();
    vkl_settings_scope_end(); // an unmatched end is harmless
}

TEST_F(SettingsAcquire, MalformedOrInactiveFileGivesNothing) {
    Write("ch", "{ not json");
    Lines lines;
    vkl_log_sink sink{Emit, &lines};
    EXPECT_EQ(vkl_settings_acquire(&sink), nullptr);
    bool named = false;
    for (auto &l : lines) named = named || l.second.find("not valid JSON") != std::string::npos;
    EXPECT_TRUE(named);
    Write("ch", File("\"log_locations\":[]"));
    EXPECT_EQ(vkl_settings_acquire(nullptr), nullptr);
    // A malformed first file is not skipped in favour of a later one: the first existing wins.
    Write("ch", "[]");
    Write("dh", File("\"stderr_log\":[\"error\"]"));
    EXPECT_EQ(vkl_settings_acquire(nullptr), nullptr);
}

} // namespace
