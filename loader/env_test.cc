// Unit tests for loader/env.c: the one environment reader and elevated-privilege handling.
#include <gtest/gtest.h>
#include <sys/auxv.h>

#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "loader/internal/env.h"
#include "loader/internal/log.h"
}

// A test framework's way of faking elevation (the Khronos loader's interposes secure_getenv and
// turns it on and off between tests): this definition in the test executable interposes glibc's for
// the loader code linked into it. Off, it answers like glibc's in an unelevated process.
static bool g_fake_secure_getenv_hides = false;
extern "C" char *secure_getenv(const char *name) { return g_fake_secure_getenv_hides ? nullptr : getenv(name); }

namespace {

const char *const kSecure[] = {
    "VK_DRIVER_FILES",
    "VK_ICD_FILENAMES",
    "VK_ADD_DRIVER_FILES",
    "VK_LAYER_PATH",
    "VK_ADD_LAYER_PATH",
    "VK_IMPLICIT_LAYER_PATH",
    "VK_ADD_IMPLICIT_LAYER_PATH",
    "VK_LOADER_DRIVERS_SELECT",
    "VK_LOADER_DRIVERS_DISABLE",
    "VK_LOADER_LAYERS_ENABLE",
    "VK_LOADER_LAYERS_DISABLE",
    "VK_LOADER_LAYERS_ALLOW",
    "VK_LOADER_DEVICE_ID_FILTER",
    "VK_LOADER_VENDOR_ID_FILTER",
    "VK_LOADER_DRIVER_ID_FILTER",
    "XDG_CONFIG_HOME",
    "XDG_CONFIG_DIRS",
    "XDG_DATA_HOME",
    "XDG_DATA_DIRS",
    "HOME",
};

// Plain variables stay live when elevated (spec §2.2).
const char *const kPlain[] = {
    "VK_INSTANCE_LAYERS",
    "VK_LOADER_DEBUG",
    "VK_LOADER_DISABLE_INST_EXT_FILTER",
    "VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING",
    "VK_LOADER_DEVICE_SELECT",
    "VK_LOADER_DISABLE_SELECT",
    "PATH",
};

class EnvTest : public testing::Test {
  protected:
    void SetUp() override {
        vkl_env_reset_log_once_for_testing();
        vkl_log_set_level_for_testing(0);
    }
    void TearDown() override {
        vkl_env_set_elevated_for_testing(-1);
        vkl_log_set_level_for_testing(0);
        for (const char *n : kSecure)
            if (std::string(n) != "HOME" && std::string(n) != "XDG_DATA_DIRS") unsetenv(n);
    }
};

TEST_F(EnvTest, SecureListIsExactlyTheDocumentedSet) {
    for (const char *n : kSecure) EXPECT_TRUE(vkl_env_is_secure_var(n)) << n;
    for (const char *n : kPlain) EXPECT_FALSE(vkl_env_is_secure_var(n)) << n;
    EXPECT_FALSE(vkl_env_is_secure_var(nullptr));
    EXPECT_FALSE(vkl_env_is_secure_var("vk_driver_files")); // names are case-sensitive
}

TEST_F(EnvTest, RealElevationComesFromAtSecure) {
    vkl_env_set_elevated_for_testing(-1);
    EXPECT_EQ(vkl_env_is_elevated(), getauxval(AT_SECURE) != 0);
    EXPECT_FALSE(vkl_env_is_elevated()); // the test runner is not set-uid
}

TEST_F(EnvTest, NotElevatedReturnsValues) {
    vkl_env_set_elevated_for_testing(0);
    EXPECT_FALSE(vkl_env_is_elevated());
    setenv("VK_DRIVER_FILES", "/a.json", 1);
    ASSERT_NE(vkl_getenv("VK_DRIVER_FILES"), nullptr);
    EXPECT_STREQ(vkl_getenv("VK_DRIVER_FILES"), "/a.json");
    setenv("VK_ADD_DRIVER_FILES", "", 1);
    ASSERT_NE(vkl_getenv("VK_ADD_DRIVER_FILES"), nullptr); // set-but-empty stays visible
    EXPECT_STREQ(vkl_getenv("VK_ADD_DRIVER_FILES"), "");
    unsetenv("VK_LAYER_PATH");
    EXPECT_EQ(vkl_getenv("VK_LAYER_PATH"), nullptr);
    EXPECT_EQ(vkl_getenv(nullptr), nullptr);
}

TEST_F(EnvTest, ElevatedSuppressesEverySecureVariable) {
    vkl_env_set_elevated_for_testing(1);
    EXPECT_TRUE(vkl_env_is_elevated());
    for (const char *n : kSecure) {
        std::string saved = getenv(n) ? getenv(n) : "";
        bool had = getenv(n) != nullptr;
        setenv(n, "/somewhere", 1);
        EXPECT_EQ(vkl_getenv(n), nullptr) << n;
        if (had)
            setenv(n, saved.c_str(), 1);
        else
            unsetenv(n);
    }
}

TEST_F(EnvTest, ElevatedKeepsPlainVariables) {
    vkl_env_set_elevated_for_testing(1);
    setenv("VK_INSTANCE_LAYERS", "VK_LAYER_x", 1);
    setenv("VK_LOADER_DEBUG", "all", 1);
    EXPECT_STREQ(vkl_getenv("VK_INSTANCE_LAYERS"), "VK_LAYER_x");
    EXPECT_STREQ(vkl_getenv("VK_LOADER_DEBUG"), "all");
    unsetenv("VK_INSTANCE_LAYERS");
    unsetenv("VK_LOADER_DEBUG");
}

TEST_F(EnvTest, ElevatedLogsOncePerVariable) {
    vkl_env_set_elevated_for_testing(1);
    vkl_log_set_level_for_testing(VKL_LOG_WARN);
    setenv("VK_DRIVER_FILES", "/evil.json", 1);
    setenv("VK_LAYER_PATH", "/evil", 1);
    unsetenv("VK_ADD_LAYER_PATH");
    testing::internal::CaptureStderr();
    EXPECT_EQ(vkl_getenv("VK_DRIVER_FILES"), nullptr);
    EXPECT_EQ(vkl_getenv("VK_DRIVER_FILES"), nullptr);
    EXPECT_EQ(vkl_getenv("VK_LAYER_PATH"), nullptr);
    EXPECT_EQ(vkl_getenv("VK_ADD_LAYER_PATH"), nullptr); // unset: nothing to report
    EXPECT_EQ(testing::internal::GetCapturedStderr(),
              "[Vulkan Loader] WARNING | DRIVER: env VK_DRIVER_FILES: ignored because the process "
              "runs with elevated privileges [LDP_LOADER_13]\n"
              "[Vulkan Loader] WARNING | LAYER: env VK_LAYER_PATH: ignored because the process runs "
              "with elevated privileges [LLP_LOADER_13]\n");
}

TEST_F(EnvTest, ElevatedLogTagsSearchBasesAndFilters) {
    vkl_env_set_elevated_for_testing(1);
    vkl_log_set_level_for_testing(VKL_LOG_WARN);
    setenv("XDG_CONFIG_HOME", "/x", 1);
    setenv("VK_LOADER_LAYERS_DISABLE", "~all~", 1);
    testing::internal::CaptureStderr();
    EXPECT_EQ(vkl_getenv("XDG_CONFIG_HOME"), nullptr);
    EXPECT_EQ(vkl_getenv("VK_LOADER_LAYERS_DISABLE"), nullptr);
    EXPECT_EQ(testing::internal::GetCapturedStderr(),
              "[Vulkan Loader] WARNING | DRIVER: env XDG_CONFIG_HOME: ignored because the process "
              "runs with elevated privileges [RULE_ENV_ELEVATED]\n"
              "[Vulkan Loader] WARNING | LAYER: env VK_LOADER_LAYERS_DISABLE: ignored because the "
              "process runs with elevated privileges [RULE_ENV_ELEVATED]\n");
}

TEST_F(EnvTest, ElevatedLogOnceUnderConcurrency) {
    vkl_env_set_elevated_for_testing(1);
    vkl_log_set_level_for_testing(VKL_LOG_WARN);
    setenv("VK_ADD_DRIVER_FILES", "/evil", 1);
    testing::internal::CaptureStderr();
    std::vector<std::thread> threads;
    for (int i = 0; i < 8; i++)
        threads.emplace_back([] {
            for (int j = 0; j < 100; j++) EXPECT_EQ(vkl_getenv("VK_ADD_DRIVER_FILES"), nullptr);
        });
    for (auto &t : threads) t.join();
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(err, "[Vulkan Loader] WARNING | DRIVER: env VK_ADD_DRIVER_FILES: ignored because the "
                   "process runs with elevated privileges [LDP_LOADER_13]\n");
}

TEST_F(EnvTest, ElevatedLogIsFilteredByVkLoaderDebug) {
    vkl_env_set_elevated_for_testing(1);
    vkl_log_set_level_for_testing(VKL_LOG_ERROR);
    setenv("VK_ICD_FILENAMES", "/evil.json", 1);
    testing::internal::CaptureStderr();
    EXPECT_EQ(vkl_getenv("VK_ICD_FILENAMES"), nullptr);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST_F(EnvTest, TestHookRestoresRealAnswer) {
    vkl_env_set_elevated_for_testing(1);
    EXPECT_TRUE(vkl_env_is_elevated());
    vkl_env_set_elevated_for_testing(0);
    EXPECT_FALSE(vkl_env_is_elevated());
    vkl_env_set_elevated_for_testing(-1);
    EXPECT_EQ(vkl_env_is_elevated(), getauxval(AT_SECURE) != 0);
}

// vkl_getenv_id(id) is vkl_getenv(name) for every secure variable, set, set-but-empty and unset,
// elevated or not (the ids follow env.c's table; a wrong order would read another variable).
// The table of enum vkl_env_id, in order.
const char *const kNames[VKL_ENV_ID_COUNT] = {
    "XDG_CONFIG_HOME",
    "HOME",
    "XDG_CONFIG_DIRS",
    "XDG_DATA_HOME",
    "XDG_DATA_DIRS",
    "VK_DRIVER_FILES",
    "VK_ICD_FILENAMES",
    "VK_ADD_DRIVER_FILES",
    "VK_LOADER_DRIVERS_SELECT",
    "VK_LOADER_DRIVERS_DISABLE",
    "VK_LOADER_DEVICE_ID_FILTER",
    "VK_LOADER_VENDOR_ID_FILTER",
    "VK_LOADER_DRIVER_ID_FILTER",
    "VK_LAYER_PATH",
    "VK_ADD_LAYER_PATH",
    "VK_IMPLICIT_LAYER_PATH",
    "VK_ADD_IMPLICIT_LAYER_PATH",
    "VK_LOADER_LAYERS_ENABLE",
    "VK_LOADER_LAYERS_DISABLE",
    "VK_LOADER_LAYERS_ALLOW",
};

TEST_F(EnvTest, IdReadsAreNameReads) {
    std::string home = getenv("HOME") ? getenv("HOME") : "";
    std::string data_dirs = getenv("XDG_DATA_DIRS") ? getenv("XDG_DATA_DIRS") : "";
    for (int elevated = 0; elevated <= 1; elevated++) {
        vkl_env_set_elevated_for_testing(elevated);
        for (int id = 0; id < VKL_ENV_ID_COUNT; id++) {
            const char *n = kNames[id];
            std::string value = std::string("/v/") + n;
            setenv(n, value.c_str(), 1);
            const char *by_id = vkl_getenv_id(static_cast<vkl_env_id>(id));
            if (elevated) {
                EXPECT_EQ(by_id, nullptr) << n;
            } else {
                ASSERT_NE(by_id, nullptr) << n;
                EXPECT_STREQ(by_id, value.c_str()) << n;
                EXPECT_STREQ(by_id, vkl_getenv(n)) << n;
            }
            setenv(n, "", 1);
            by_id = vkl_getenv_id(static_cast<vkl_env_id>(id));
            if (elevated) {
                EXPECT_EQ(by_id, nullptr) << n;
            } else {
                ASSERT_NE(by_id, nullptr) << n;
                EXPECT_STREQ(by_id, "") << n;
            }
            unsetenv(n);
            EXPECT_EQ(vkl_getenv_id(static_cast<vkl_env_id>(id)), nullptr) << n;
        }
    }
    EXPECT_EQ(vkl_getenv_id(VKL_ENV_ID_COUNT), nullptr);
    setenv("HOME", home.c_str(), 1);
    setenv("XDG_DATA_DIRS", data_dirs.c_str(), 1);
}

// Inside a call scope a secure variable is read once: a change made during the scope is seen only
// by the next scope; outside a scope every read is fresh. Plain variables are never held.
TEST_F(EnvTest, ScopeReadsEachSecureVariableOnce) {
    vkl_env_set_elevated_for_testing(0);
    setenv("VK_LAYER_PATH", "/first", 1);
    setenv("VK_INSTANCE_LAYERS", "A", 1);
    vkl_env_scope_begin();
    EXPECT_STREQ(vkl_getenv("VK_LAYER_PATH"), "/first");
    setenv("VK_LAYER_PATH", "/second", 1);
    unsetenv("VK_ADD_LAYER_PATH");
    EXPECT_EQ(vkl_getenv_id(VKL_ENV_VK_ADD_LAYER_PATH), nullptr);
    setenv("VK_ADD_LAYER_PATH", "/added", 1);
    setenv("VK_INSTANCE_LAYERS", "B", 1);
    vkl_env_scope_begin(); // nested: the outer scope's values
    EXPECT_STREQ(vkl_getenv("VK_LAYER_PATH"), "/first");
    EXPECT_STREQ(vkl_getenv_id(VKL_ENV_VK_LAYER_PATH), "/first");
    EXPECT_EQ(vkl_getenv("VK_ADD_LAYER_PATH"), nullptr);
    vkl_env_scope_end();
    EXPECT_STREQ(vkl_getenv("VK_LAYER_PATH"), "/first");
    EXPECT_STREQ(vkl_getenv("VK_INSTANCE_LAYERS"), "B"); // plain: always read afresh
    vkl_env_scope_end();
    EXPECT_STREQ(vkl_getenv("VK_LAYER_PATH"), "/second");
    EXPECT_STREQ(vkl_getenv("VK_ADD_LAYER_PATH"), "/added");
    vkl_env_scope_begin(); // a new scope reads again
    EXPECT_STREQ(vkl_getenv_id(VKL_ENV_VK_LAYER_PATH), "/second");
    vkl_env_scope_end();
    vkl_env_scope_end(); // unbalanced end: ignored
    unsetenv("VK_INSTANCE_LAYERS");
}

// A scope learns in one pass over the environment which secure variables are set: each name is
// found (the value read through secure_getenv), and a name that only shares a prefix or a length
// with one, or differs in its last byte, is not taken for it.
TEST_F(EnvTest, ScopeSeesExactlyTheSecureVariablesSetWhenItBegins) {
    vkl_env_set_elevated_for_testing(0);
    std::string home = getenv("HOME") ? getenv("HOME") : "";
    std::string data_dirs = getenv("XDG_DATA_DIRS") ? getenv("XDG_DATA_DIRS") : "";
    for (int id = 0; id < VKL_ENV_ID_COUNT; id++) unsetenv(kNames[id]);
    for (int id = 0; id < VKL_ENV_ID_COUNT; id++) {
        std::string n = kNames[id];
        std::string value = "/s/" + n;
        setenv(n.c_str(), value.c_str(), 1);
        vkl_env_scope_begin();
        for (int other = 0; other < VKL_ENV_ID_COUNT; other++) {
            const char *v = vkl_getenv_id(static_cast<vkl_env_id>(other));
            if (other == id) {
                EXPECT_STREQ(v, value.c_str()) << n;
            } else {
                EXPECT_EQ(v, nullptr) << kNames[other] << " while only " << n << " is set";
            }
        }
        vkl_env_scope_end();
        unsetenv(n.c_str());
        std::string last_changed = n.substr(0, n.size() - 1) + (n.back() == 'Z' ? "Y" : "Z");
        std::vector<std::string> near = {n + "X", n.substr(0, n.size() - 1), last_changed, "_" + n};
        for (const auto &m : near) setenv(m.c_str(), "/near", 1);
        vkl_env_scope_begin();
        EXPECT_EQ(vkl_getenv_id(static_cast<vkl_env_id>(id)), nullptr) << n;
        vkl_env_scope_end();
        for (const auto &m : near) unsetenv(m.c_str());
    }
    setenv("HOME", home.c_str(), 1);
    setenv("XDG_DATA_DIRS", data_dirs.c_str(), 1);
}

// Elevation is asked once per call scope, never remembered for the process: an interposed
// secure_getenv that starts or stops hiding variables between calls is followed at the next call,
// and within one call the answer stays what it was when first asked.
TEST_F(EnvTest, ElevationFollowsAnInterposedSecureGetenvBetweenScopes) {
    if (getauxval(AT_SECURE) != 0) GTEST_SKIP() << "the test process itself runs elevated (AT_SECURE)";
    vkl_env_set_elevated_for_testing(-1);
    setenv("VK_LAYER_PATH", "/interposed", 1);
    for (int round = 0; round < 2; round++) {
        g_fake_secure_getenv_hides = false;
        vkl_env_scope_begin();
        EXPECT_FALSE(vkl_env_is_elevated());
        EXPECT_STREQ(vkl_getenv_id(VKL_ENV_VK_LAYER_PATH), "/interposed");
        vkl_env_scope_end();
        g_fake_secure_getenv_hides = true;
        vkl_env_scope_begin();
        EXPECT_TRUE(vkl_env_is_elevated()) << "round " << round;
        EXPECT_EQ(vkl_getenv_id(VKL_ENV_VK_LAYER_PATH), nullptr);
        g_fake_secure_getenv_hides = false; // changed inside the call: seen at the next one
        EXPECT_TRUE(vkl_env_is_elevated());
        vkl_env_scope_end();
        EXPECT_FALSE(vkl_env_is_elevated()); // outside a scope: asked afresh
        EXPECT_STREQ(vkl_getenv_id(VKL_ENV_VK_LAYER_PATH), "/interposed");
    }
    unsetenv("VK_LAYER_PATH");
}

// With no secure variable in the environment the scope has nothing of its own to read through
// secure_getenv: elevation is still what the interposer says (the probe of the first variable).
TEST_F(EnvTest, ElevationWithNoSecureVariableSetFollowsTheInterposer) {
    if (getauxval(AT_SECURE) != 0) GTEST_SKIP() << "the test process itself runs elevated (AT_SECURE)";
    vkl_env_set_elevated_for_testing(-1);
    std::vector<std::pair<std::string, std::string>> saved;
    for (int id = 0; id < VKL_ENV_ID_COUNT; id++)
        if (const char *v = getenv(kNames[id])) saved.emplace_back(kNames[id], v);
    for (int id = 0; id < VKL_ENV_ID_COUNT; id++) unsetenv(kNames[id]);
    setenv("VKL_ENV_TEST_PLAIN", "x", 1); // the environment is never empty here
    for (bool hides : {true, false, true}) {
        g_fake_secure_getenv_hides = hides;
        vkl_env_scope_begin();
        EXPECT_EQ(vkl_env_is_elevated(), hides);
        vkl_env_scope_end();
    }
    g_fake_secure_getenv_hides = false;
    unsetenv("VKL_ENV_TEST_PLAIN");
    for (const auto &kv : saved) setenv(kv.first.c_str(), kv.second.c_str(), 1);
}

// A scope reuses the previous scope's look at the names only while the environment is unchanged:
// every way of changing it between two calls (a new variable, a new value, putenv, unsetenv, a
// value set back to an earlier one) is seen by the next scope.
TEST_F(EnvTest, ScopeSeesEveryChangeOfTheEnvironmentBetweenScopes) {
    vkl_env_set_elevated_for_testing(0);
    auto in_scope = []() {
        vkl_env_scope_begin();
        const char *v = vkl_getenv_id(VKL_ENV_VK_ADD_LAYER_PATH);
        std::string r = v ? v : "<unset>";
        vkl_env_scope_end();
        return r;
    };
    unsetenv("VK_ADD_LAYER_PATH");
    EXPECT_EQ(in_scope(), "<unset>");
    EXPECT_EQ(in_scope(), "<unset>");
    setenv("VK_ADD_LAYER_PATH", "/a", 1);
    EXPECT_EQ(in_scope(), "/a");
    EXPECT_EQ(in_scope(), "/a");
    setenv("VK_ADD_LAYER_PATH", "/b", 1);
    EXPECT_EQ(in_scope(), "/b");
    static char put[] = "VK_ADD_LAYER_PATH=/put";
    putenv(put);
    EXPECT_EQ(in_scope(), "/put");
    unsetenv("VK_ADD_LAYER_PATH");
    EXPECT_EQ(in_scope(), "<unset>");
    setenv("VK_ADD_LAYER_PATH", "/a", 1); // glibc may hand back the string it made for "/a"
    EXPECT_EQ(in_scope(), "/a");
    setenv("VKL_ENV_TEST_OTHER", "1", 1); // another variable added: the array grows
    EXPECT_EQ(in_scope(), "/a");
    unsetenv("VK_ADD_LAYER_PATH");
    EXPECT_EQ(in_scope(), "<unset>");
    unsetenv("VKL_ENV_TEST_OTHER");
}

// The scope is per thread: another thread's reads are fresh while this one holds a scope.
TEST_F(EnvTest, ScopeIsPerThread) {
    vkl_env_set_elevated_for_testing(0);
    setenv("VK_LAYER_PATH", "/first", 1);
    vkl_env_scope_begin();
    EXPECT_STREQ(vkl_getenv("VK_LAYER_PATH"), "/first");
    setenv("VK_LAYER_PATH", "/second", 1);
    std::string seen;
    std::thread t([&] {
        const char *v = vkl_getenv("VK_LAYER_PATH");
        seen = v ? v : "";
    });
    t.join();
    EXPECT_EQ(seen, "/second");
    EXPECT_STREQ(vkl_getenv("VK_LAYER_PATH"), "/first");
    vkl_env_scope_end();
}

} // namespace
