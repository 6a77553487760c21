// Unit tests for loader/discovery.c (and strlist.c): path lists, the default search
// directories in documented order, and driver-manifest discovery with every env-var interaction.
#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "loader/internal/discovery.h"
#include "loader/internal/env.h"
#include "loader/internal/search_paths.h"
}

namespace {

using Strings = std::vector<std::string>;

Strings ToVec(const vkl_strlist &l) { return Strings(l.items, l.items + l.count); }

Strings Split(const std::string &s, char sep = ':') {
    vkl_strlist l = VKL_STRLIST_INIT;
    EXPECT_EQ(vkl_path_list_split(s.data(), s.size(), sep, &l), VK_SUCCESS);
    Strings v = ToVec(l);
    vkl_strlist_finish(&l);
    return v;
}

TEST(StrList, AppendUniqueContainsFinish) {
    vkl_strlist l = VKL_STRLIST_INIT;
    for (int i = 0; i < 20; i++) ASSERT_EQ(vkl_strlist_append(&l, std::to_string(i).c_str()), VK_SUCCESS);
    EXPECT_EQ(l.count, 20u);
    EXPECT_TRUE(vkl_strlist_contains(&l, "19"));
    EXPECT_FALSE(vkl_strlist_contains(&l, "20"));
    ASSERT_EQ(vkl_strlist_append_unique(&l, "5"), VK_SUCCESS);
    EXPECT_EQ(l.count, 20u);
    ASSERT_EQ(vkl_strlist_append_unique(&l, "new"), VK_SUCCESS);
    EXPECT_EQ(l.count, 21u);
    ASSERT_EQ(vkl_strlist_append_n(&l, "abcdef", 3), VK_SUCCESS);
    EXPECT_STREQ(l.items[21], "abc");
    vkl_strlist_finish(&l);
    EXPECT_EQ(l.count, 0u);
    EXPECT_EQ(l.items, nullptr);
    vkl_strlist_finish(&l);
    vkl_strlist_finish(nullptr);
}

TEST(PathListSplit, DropsEmptyEntries) {
    EXPECT_EQ(Split("/a:/b"), (Strings{"/a", "/b"}));
    EXPECT_EQ(Split("::/a::/b:"), (Strings{"/a", "/b"}));
    EXPECT_EQ(Split(""), Strings{});
    EXPECT_EQ(Split(":"), Strings{});
    EXPECT_EQ(Split("/a:/a"), (Strings{"/a", "/a"})); // duplicates kept
    EXPECT_EQ(Split("a;b:c", ';'), (Strings{"a", "b:c"}));
    const char buf[] = {'/', 'x', ':', '/', 'y', 'Z'};
    vkl_strlist l = VKL_STRLIST_INIT;
    ASSERT_EQ(vkl_path_list_split(buf, 5, ':', &l), VK_SUCCESS);
    EXPECT_EQ(ToVec(l), (Strings{"/x", "/y"}));
    ASSERT_EQ(vkl_path_list_split(nullptr, 0, ':', &l), VK_SUCCESS);
    EXPECT_EQ(l.count, 2u); // appends, never clears
    vkl_strlist_finish(&l);
}

Strings Dirs(const vkl_search_env &env, const char *suffix = VKL_ICD_SUFFIX) {
    vkl_strlist l = VKL_STRLIST_INIT;
    EXPECT_EQ(vkl_search_dirs_build(&env, suffix, &l), VK_SUCCESS);
    Strings v = ToVec(l);
    vkl_strlist_finish(&l);
    return v;
}

TEST(SearchDirs, EveryLocationInDocumentedOrder) {
    vkl_search_env env{"/xch", "/home/me", "/c1:/c2", "/xdh", "/d1:/d2", "/sysconf", "/extra"};
    EXPECT_EQ(Dirs(env), (Strings{"/xch/vulkan/icd.d", "/c1/vulkan/icd.d", "/c2/vulkan/icd.d", "/sysconf/vulkan/icd.d",
                                  "/extra/vulkan/icd.d", "/xdh/vulkan/icd.d", "/d1/vulkan/icd.d", "/d2/vulkan/icd.d"}));
    EXPECT_EQ(Dirs(env, VKL_IMPLICIT_LAYER_SUFFIX)[0], "/xch/vulkan/implicit_layer.d");
    EXPECT_EQ(Dirs(env, VKL_EXPLICIT_LAYER_SUFFIX)[7], "/d2/vulkan/explicit_layer.d");
}

TEST(SearchDirs, DocumentExampleForUserMe) {
    // [Drv] "Example Linux Driver Search Path" (SYSCONFDIR /usr/local/etc, EXTRASYSCONFDIR /etc)
    vkl_search_env env{nullptr, "/home/me", nullptr, nullptr, nullptr, "/usr/local/etc", "/etc"};
    EXPECT_EQ(Dirs(env),
              (Strings{"/home/me/.config/vulkan/icd.d", "/etc/xdg/vulkan/icd.d", "/usr/local/etc/vulkan/icd.d",
                       "/etc/vulkan/icd.d", "/home/me/.local/share/vulkan/icd.d", "/usr/local/share/vulkan/icd.d",
                       "/usr/share/vulkan/icd.d"}));
}

TEST(SearchDirs, EmptyXdgVariablesFallBack) {
    vkl_search_env env{"", "/home/me", "", "", "", "/etc", nullptr};
    EXPECT_EQ(Dirs(env), (Strings{"/home/me/.config/vulkan/icd.d", "/etc/xdg/vulkan/icd.d", "/etc/vulkan/icd.d",
                                  "/home/me/.local/share/vulkan/icd.d", "/usr/local/share/vulkan/icd.d",
                                  "/usr/share/vulkan/icd.d"}));
}

// Both XDG_*_DIRS unset: each fallback list is a source with no second part (a NULL pointer and
// length 0), whose ':' are counted without forming NULL + 0 (undefined behaviour that clang's
// UBSan reports as "applying zero offset to null pointer"; .bazelrc --config=ubsan-clang).
TEST(SearchDirs, UnsetXdgDirsUseBothFallbackLists) {
    vkl_search_env env{nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
    EXPECT_EQ(Dirs(env),
              (Strings{"/etc/xdg/vulkan/icd.d", "/usr/local/share/vulkan/icd.d", "/usr/share/vulkan/icd.d"}));
}

TEST(SearchDirs, NoHomeSkipsUserLocations) {
    vkl_search_env env{nullptr, nullptr, nullptr, nullptr, nullptr, "/etc", nullptr};
    EXPECT_EQ(Dirs(env), (Strings{"/etc/xdg/vulkan/icd.d", "/etc/vulkan/icd.d", "/usr/local/share/vulkan/icd.d",
                                  "/usr/share/vulkan/icd.d"}));
    vkl_search_env empty_home{nullptr, "", nullptr, nullptr, nullptr, "/etc", nullptr};
    EXPECT_EQ(Dirs(empty_home), Dirs(env));
    // XDG home without HOME still works
    vkl_search_env xdg_only{"/xch", nullptr, nullptr, nullptr, nullptr, "/etc", nullptr};
    EXPECT_EQ(Dirs(xdg_only)[0], "/xch/vulkan/icd.d");
    EXPECT_EQ(Dirs(xdg_only).size(), 5u);
}

TEST(SearchDirs, XdgHomeBeatsHome) {
    vkl_search_env env{"/xch", "/home/me", nullptr, "/xdh", nullptr, nullptr, nullptr};
    Strings d = Dirs(env);
    for (const auto &s : d) EXPECT_EQ(s.find("/home/me"), std::string::npos) << s;
}

TEST(SearchDirs, DuplicatesAndTrailingSlashes) {
    vkl_search_env env{"/etc/xdg/", "/home/me/", "/etc/xdg:/etc/xdg//:/etc", nullptr, "/usr/share/:/usr/share:/",
                       "/etc",      "/etc/"};
    EXPECT_EQ(Dirs(env), (Strings{"/etc/xdg/vulkan/icd.d", "/etc/vulkan/icd.d", "/home/me/.local/share/vulkan/icd.d",
                                  "/usr/share/vulkan/icd.d", "/vulkan/icd.d"}));
}

TEST(SearchDirs, SysconfdirEmptyOrNullSkipped) {
    vkl_search_env env{nullptr, nullptr, "/c", nullptr, "/d", "", nullptr};
    EXPECT_EQ(Dirs(env), (Strings{"/c/vulkan/icd.d", "/d/vulkan/icd.d"}));
}

// The documented algorithm written plainly (one std::string per directory, a linear duplicate
// check), against which the compact implementation (bases kept once, de-duplicated by a hash
// index past 16) is compared on random inputs.
Strings ReferenceDirs(const vkl_search_env &env, const std::string &suffix) {
    Strings out;
    auto add = [&](std::string base) {
        while (base.size() > 1 && base.back() == '/') base.pop_back();
        std::string d = base == "/" ? "/" + suffix : base + "/" + suffix;
        if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
    };
    auto set = [](const char *v) { return v != nullptr && v[0] != '\0'; };
    auto home = [&](const char *xdg, const char *rel) {
        if (set(xdg)) return add(xdg);
        if (!set(env.home)) return;
        std::string h = env.home;
        while (h.size() > 1 && h.back() == '/') h.pop_back();
        add(h + "/" + rel);
    };
    auto list = [&](const char *v, const char *fallback) {
        std::string s = set(v) ? v : fallback;
        size_t start = 0;
        while (start <= s.size()) {
            size_t end = s.find(':', start);
            if (end == std::string::npos) end = s.size();
            if (end > start) add(s.substr(start, end - start));
            start = end + 1;
        }
    };
    home(env.xdg_config_home, ".config");
    list(env.xdg_config_dirs, VKL_FALLBACK_CONFIG_DIRS);
    if (set(env.sysconfdir)) add(env.sysconfdir);
    if (set(env.extrasysconfdir)) add(env.extrasysconfdir);
    home(env.xdg_data_home, ".local/share");
    list(env.xdg_data_dirs, VKL_FALLBACK_DATA_DIRS);
    return out;
}

// Random values: entries from a small vocabulary (repeats, trailing and doubled '/', the root,
// relative ones), lists of 0 to 60 entries (past the plain-scan limit of 16), unset or empty.
struct RandomEnv {
    std::string v[7];
    bool null[7];
    vkl_search_env env;
    explicit RandomEnv(std::mt19937 &rng) {
        static const char *const kWords[] = {
            "/a",  "/a/",  "/a//", "/",        "//",         "/b/c",        "/b/c/",
            "rel", "rel/", "/etc", "/etc/xdg", "/usr/share", "/usr/share/", "/home/me/.config"};
        auto pick = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
        auto word = [&]() -> std::string {
            if (pick(3) == 0) return "/n" + std::to_string(pick(40)) + (pick(4) == 0 ? "/" : "");
            return kWords[pick(sizeof(kWords) / sizeof(kWords[0]))];
        };
        for (int i = 0; i < 7; i++) {
            null[i] = pick(5) == 0;
            bool list = i == 2 || i == 4;
            if (!list) {
                v[i] = pick(6) == 0 ? "" : word();
                continue;
            }
            size_t n = pick(4) == 0 ? pick(61) : pick(6);
            for (size_t k = 0; k < n; k++)
                v[i] += (k ? (pick(8) == 0 ? "::" : ":") : (pick(8) == 0 ? ":" : "")) + word();
        }
        const char *p[7];
        for (int i = 0; i < 7; i++) p[i] = null[i] ? nullptr : v[i].c_str();
        env = vkl_search_env{p[0], p[1], p[2], p[3], p[4], p[5], p[6]};
    }
};

TEST(SearchDirs, RandomInputsMatchTheDocumentedAlgorithm) {
    std::mt19937 rng(18);
    for (int round = 0; round < 2000; round++) {
        RandomEnv r(rng);
        for (const char *suffix : {VKL_ICD_SUFFIX, VKL_IMPLICIT_LAYER_SUFFIX, VKL_EXPLICIT_LAYER_SUFFIX})
            ASSERT_EQ(Dirs(r.env, suffix), ReferenceDirs(r.env, suffix))
                << "round " << round << " config dirs '" << r.v[2] << "' data dirs '" << r.v[4] << "'";
    }
}

// vkl_search_dirs_build appends: a directory already in the list is not added again.
TEST(SearchDirs, BuildSkipsWhatTheListAlreadyHolds) {
    vkl_search_env env{nullptr, nullptr, "/c", nullptr, "/d", "", nullptr};
    vkl_strlist l = VKL_STRLIST_INIT;
    ASSERT_EQ(vkl_strlist_append(&l, "/d/vulkan/icd.d"), VK_SUCCESS);
    ASSERT_EQ(vkl_search_dirs_build(&env, VKL_ICD_SUFFIX, &l), VK_SUCCESS);
    EXPECT_EQ(ToVec(l), (Strings{"/d/vulkan/icd.d", "/c/vulkan/icd.d"}));
    vkl_strlist_finish(&l);
}

// ---- process environment ----

const char *const kVars[] = {"VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES", "XDG_CONFIG_HOME",
                             "XDG_CONFIG_DIRS", "XDG_DATA_HOME",    "XDG_DATA_DIRS",       "HOME"};

void Emit(void *ctx, uint32_t flags, const char *line) {
    static_cast<std::vector<std::pair<uint32_t, std::string>> *>(ctx)->emplace_back(flags, line);
}

class DriverSearch : public testing::Test {
  protected:
    std::string root_;
    std::vector<std::pair<std::string, std::string>> saved_;
    std::vector<std::pair<uint32_t, std::string>> lines_;

    void SetUp() override {
        for (const char *v : kVars) {
            const char *val = getenv(v);
            saved_.emplace_back(v, val ? std::string("=") + val : "");
            unsetenv(v);
        }
        const char *t = getenv("TEST_TMPDIR");
        root_ = std::string(t ? t : "/tmp") + "/ds_" + testing::UnitTest::GetInstance()->current_test_info()->name();
        Mkdir(root_);
        vkl_env_set_elevated_for_testing(0);
        vkl_env_reset_log_once_for_testing();
        vkl_log_set_level_for_testing(0);
        // Keep the host's XDG locations out; /etc (SYSCONFDIR) may still hold host drivers, so
        // results are compared after filtering to our tree (Ours()).
        Set("HOME", root_ + "/home");
        Set("XDG_CONFIG_DIRS", root_ + "/cd1:" + root_ + "/cd2");
        Set("XDG_DATA_DIRS", root_ + "/dd1");
    }
    void TearDown() override {
        for (auto &kv : saved_) {
            if (kv.second.empty())
                unsetenv(kv.first.c_str());
            else
                setenv(kv.first.c_str(), kv.second.c_str() + 1, 1);
        }
        vkl_env_set_elevated_for_testing(-1);
    }
    static void Mkdir(const std::string &p) {
        std::string cur;
        for (size_t i = 1; i <= p.size(); i++) {
            if (i == p.size() || p[i] == '/') mkdir(p.substr(0, i).c_str(), 0755);
        }
    }
    std::string File(const std::string &rel) {
        std::string p = root_ + "/" + rel;
        Mkdir(p.substr(0, p.rfind('/')));
        FILE *f = fopen(p.c_str(), "w");
        EXPECT_NE(f, nullptr);
        if (f) {
            fputs("{}", f);
            fclose(f);
        }
        return p;
    }
    void Set(const char *var, const std::string &val) { setenv(var, val.c_str(), 1); }
    Strings Search(bool ours_only = true) {
        vkl_log_sink sink{Emit, &lines_};
        vkl_strlist l = VKL_STRLIST_INIT;
        EXPECT_EQ(vkl_discover(VKL_DISCOVER_DRIVERS, nullptr, &sink, &l), VK_SUCCESS);
        Strings all = ToVec(l);
        vkl_strlist_finish(&l);
        if (!ours_only) return all;
        Strings ours;
        for (auto &s : all)
            if (s.rfind(root_, 0) == 0) ours.push_back(s.substr(root_.size() + 1));
        return ours;
    }
    Strings Lines(uint32_t mask) {
        Strings v;
        for (auto &l : lines_)
            if (l.first & mask) v.push_back(l.second);
        return v;
    }
};

TEST_F(DriverSearch, DefaultLocationsInOrderSortedWithinDirectory) {
    File("home/.config/vulkan/icd.d/b.json");
    File("home/.config/vulkan/icd.d/a.json");
    File("home/.config/vulkan/icd.d/notes.txt");
    File("home/.config/vulkan/icd.d/upper.JSON");         // case-sensitive ".json"
    Mkdir(root_ + "/home/.config/vulkan/icd.d/dir.json"); // a directory is not a manifest
    File("cd2/vulkan/icd.d/c2.json");
    File("cd1/vulkan/icd.d/c1.json");
    File("home/.local/share/vulkan/icd.d/d.json");
    File("dd1/vulkan/icd.d/e.json");
    EXPECT_EQ(Search(), (Strings{"home/.config/vulkan/icd.d/a.json", "home/.config/vulkan/icd.d/b.json",
                                 "cd1/vulkan/icd.d/c1.json", "cd2/vulkan/icd.d/c2.json",
                                 "home/.local/share/vulkan/icd.d/d.json", "dd1/vulkan/icd.d/e.json"}));
    Strings dbg = Lines(VKL_LOG_DEBUG);
    bool found = false;
    for (auto &l : dbg)
        if (l == "driver search: Found ICD manifest file " + root_ + "/home/.config/vulkan/icd.d/a.json") found = true;
    EXPECT_TRUE(found);
    EXPECT_TRUE(Lines(VKL_LOG_WARN | VKL_LOG_INFO | VKL_LOG_ERROR).empty());
    // Every directory searched is named before what it holds ("searching", then "Found manifest file"
    // or "skipping" lines), missing ones included: the DEBUG log is the whole search.
    size_t searching = 0, home_dir = dbg.size(), a_json = dbg.size();
    for (size_t i = 0; i < dbg.size(); i++) {
        const std::string &l = dbg[i];
        bool known = l.rfind("driver search: searching ", 0) == 0 ||
                     l.rfind("driver search: Found ICD manifest file ", 0) == 0 ||
                     l.rfind("driver search: skipping ", 0) == 0;
        EXPECT_TRUE(known) << l;
        if (l.rfind("driver search: searching ", 0) == 0) searching++;
        if (l == "driver search: searching " + root_ + "/home/.config/vulkan/icd.d") home_dir = i;
        if (l == "driver search: Found ICD manifest file " + root_ + "/home/.config/vulkan/icd.d/a.json") a_json = i;
    }
    EXPECT_LT(home_dir, a_json);
    EXPECT_GE(searching, 6u); // home config, cd1, cd2, SYSCONFDIR, home data, dd1 at least
}

TEST_F(DriverSearch, XdgHomesOverrideHome) {
    File("xch/vulkan/icd.d/x.json");
    File("home/.config/vulkan/icd.d/h.json");
    File("xdh/vulkan/icd.d/y.json");
    Set("XDG_CONFIG_HOME", root_ + "/xch");
    Set("XDG_DATA_HOME", root_ + "/xdh");
    EXPECT_EQ(Search(), (Strings{"xch/vulkan/icd.d/x.json", "xdh/vulkan/icd.d/y.json"}));
}

TEST_F(DriverSearch, AddDriverFilesSearchedFirst) {
    File("home/.config/vulkan/icd.d/default.json");
    std::string extra = File("extra/one.json");
    File("extradir/z.json");
    File("extradir/y.json");
    Set("VK_ADD_DRIVER_FILES", extra + "::" + root_ + "/extradir");
    EXPECT_EQ(Search(), (Strings{"extra/one.json", "extradir/y.json", "extradir/z.json",
                                 "home/.config/vulkan/icd.d/default.json"}));
}

TEST_F(DriverSearch, DriverFilesReplacesSearchAndIgnoresAddAndIcdFilenames) {
    File("home/.config/vulkan/icd.d/default.json");
    std::string a = File("over/a.json");
    File("overdir/b.json");
    std::string add = File("add/add.json");
    std::string old = File("old/old.json");
    Set("VK_DRIVER_FILES", a + ":" + root_ + "/overdir");
    Set("VK_ADD_DRIVER_FILES", add);
    Set("VK_ICD_FILENAMES", old);
    EXPECT_EQ(Search(false), (Strings{a, root_ + "/overdir/b.json"})); // nothing from /etc either
    EXPECT_EQ(Lines(VKL_LOG_INFO), (Strings{"env VK_ICD_FILENAMES: ignored because VK_DRIVER_FILES is set "
                                            "[RULE_DRV_ENV_ICD_FILENAMES_DEPRECATED]",
                                            "env VK_ADD_DRIVER_FILES: ignored because VK_DRIVER_FILES is set "
                                            "[RULE_DRV_ENV_ADD_DRIVER_FILES]"}));
}

TEST_F(DriverSearch, IcdFilenamesUsedWhenDriverFilesUnset) {
    File("home/.config/vulkan/icd.d/default.json");
    std::string old = File("old/old.json");
    std::string add = File("add/add.json");
    Set("VK_ICD_FILENAMES", old);
    Set("VK_ADD_DRIVER_FILES", add);
    EXPECT_EQ(Search(false), (Strings{old}));
    EXPECT_EQ(Lines(VKL_LOG_INFO), (Strings{"env VK_ADD_DRIVER_FILES: ignored because VK_ICD_FILENAMES is set "
                                            "[RULE_DRV_ENV_ADD_DRIVER_FILES]"}));
}

TEST_F(DriverSearch, EmptyDriverFilesIsAnEmptyOverride) {
    File("home/.config/vulkan/icd.d/default.json");
    Set("VK_DRIVER_FILES", "");
    Set("VK_ICD_FILENAMES", File("old/old.json"));
    EXPECT_EQ(Search(false), Strings{});
    Strings info = Lines(VKL_LOG_INFO);
    ASSERT_EQ(info.size(), 2u);
    EXPECT_EQ(info[1], "env VK_DRIVER_FILES: set but empty, no driver manifests are searched "
                       "[RULE_DRV_ENV_DRIVER_FILES_OVERRIDE]");
}

TEST_F(DriverSearch, MissingEntries) {
    std::string a = File("over/a.json");
    Set("VK_DRIVER_FILES", root_ + "/nope.json:" + root_ + "/nodir:" + a + ":" + a);
    EXPECT_EQ(Search(false), (Strings{a})); // duplicates collapse
    Strings dbg = Lines(VKL_LOG_DEBUG);
    ASSERT_EQ(dbg.size(), 4u);
    EXPECT_EQ(dbg[0], "driver search: searching " + root_ + "/nodir from VK_DRIVER_FILES");
    EXPECT_EQ(dbg[1], "driver search VK_DRIVER_FILES: skipping directory " + root_ +
                          "/nodir (No such file or directory) [RULE_DRV_SEARCH_DIR_SCAN]");
    EXPECT_EQ(dbg[2], "driver search: Found ICD manifest file " + a);
    EXPECT_EQ(dbg[3], "driver search: skipping " + a + " (already found)");
    Strings warn = Lines(VKL_LOG_WARN);
    ASSERT_EQ(warn.size(), 1u);
    EXPECT_EQ(warn[0], "driver search VK_DRIVER_FILES: manifest " + root_ +
                           "/nope.json: cannot be used (No such file or directory) "
                           "[RULE_DRV_SEARCH_DIR_SCAN]");
}

TEST_F(DriverSearch, RelativeEntriesAreRelativeToCwd) {
    File("cwd/rel.json");
    char old[4096];
    ASSERT_NE(getcwd(old, sizeof(old)), nullptr);
    ASSERT_EQ(chdir((root_ + "/cwd").c_str()), 0);
    Set("VK_DRIVER_FILES", "rel.json:.");
    Strings got = Search(false);
    ASSERT_EQ(chdir(old), 0);
    EXPECT_EQ(got, (Strings{"rel.json", "./rel.json"})); // same file, different strings
}

TEST_F(DriverSearch, ElevatedIgnoresEveryUserPath) {
    File("home/.config/vulkan/icd.d/default.json");
    File("cd1/vulkan/icd.d/c1.json");
    File("dd1/vulkan/icd.d/e.json");
    Set("VK_DRIVER_FILES", File("over/a.json"));
    Set("VK_ADD_DRIVER_FILES", File("add/add.json"));
    vkl_env_set_elevated_for_testing(1);
    EXPECT_EQ(Search(), Strings{}); // only SYSCONFDIR and the fallback dirs remain
    vkl_search_env env;
    ASSERT_EQ(vkl_search_env_from_process(&env), VK_SUCCESS);
    EXPECT_EQ(env.home, nullptr);
    EXPECT_EQ(env.xdg_config_dirs, nullptr);
    EXPECT_EQ(env.xdg_data_dirs, nullptr);
    EXPECT_STREQ(env.sysconfdir, VKL_SYSCONFDIR);
}

TEST_F(DriverSearch, SearchEnvFromProcess) {
    Set("XDG_CONFIG_HOME", "/xch");
    Set("XDG_DATA_HOME", "/xdh");
    vkl_search_env env;
    ASSERT_EQ(vkl_search_env_from_process(&env), VK_SUCCESS);
    EXPECT_STREQ(env.xdg_config_home, "/xch");
    EXPECT_STREQ(env.xdg_data_home, "/xdh");
    EXPECT_EQ(std::string(env.home), root_ + "/home");
    EXPECT_STREQ(env.sysconfdir, "/etc");
#ifndef VKL_EXTRASYSCONFDIR
    EXPECT_EQ(env.extrasysconfdir, nullptr);
#endif
}

// The shared search-directory list (vkl_search_dirs_acquire) is rebuilt whenever one of the five
// variables changes, set, unset or emptied; an unchanged environment shares one list; a list
// held across a change stays valid and unchanged for its holder.
TEST_F(DriverSearch, SearchDirsCacheFollowsTheEnvironment) {
    Set("XDG_CONFIG_HOME", "/a");
    const vkl_search_dirs *a = vkl_search_dirs_acquire(VKL_ICD_SUFFIX);
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(ToVec(a->dirs)[0], "/a/vulkan/icd.d");
    const vkl_search_dirs *a2 = vkl_search_dirs_acquire(VKL_ICD_SUFFIX);
    EXPECT_EQ(a2, a); // unchanged environment: shared
    vkl_search_dirs_release(a2);
    const vkl_search_dirs *layers = vkl_search_dirs_acquire(VKL_EXPLICIT_LAYER_SUFFIX);
    ASSERT_NE(layers, nullptr);
    EXPECT_EQ(ToVec(layers->dirs)[0], "/a/vulkan/explicit_layer.d"); // one list per suffix
    vkl_search_dirs_release(layers);

    Set("XDG_CONFIG_HOME", "/b");
    const vkl_search_dirs *b = vkl_search_dirs_acquire(VKL_ICD_SUFFIX);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(ToVec(b->dirs)[0], "/b/vulkan/icd.d");
    EXPECT_EQ(ToVec(a->dirs)[0], "/a/vulkan/icd.d"); // the old holder's list is intact
    vkl_search_dirs_release(a);
    vkl_search_dirs_release(b);

    Set("XDG_CONFIG_HOME", ""); // empty: $HOME/.config
    const vkl_search_dirs *c = vkl_search_dirs_acquire(VKL_ICD_SUFFIX);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(ToVec(c->dirs)[0], root_ + "/home/.config/vulkan/icd.d");
    vkl_search_dirs_release(c);
    Set("XDG_DATA_DIRS", "/d1:/d2");
    const vkl_search_dirs *d = vkl_search_dirs_acquire(VKL_ICD_SUFFIX);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(ToVec(d->dirs).back(), "/d2/vulkan/icd.d");
    vkl_search_dirs_release(d);
}

// The lists handed out by vkl_search_dirs_acquire (kept in the cache when small, written for each
// holder when large) and the directories vkl_discover searches equal vkl_search_dirs_build's
// for the same environment, for every suffix.
TEST_F(DriverSearch, AcquiredListsEqualBuiltOnesSmallAndLarge) {
    for (size_t n : {size_t{3}, size_t{40}, size_t{3000}}) {
        std::string dirs;
        for (size_t i = 0; i < n; i++) dirs += (i ? ":" : "") + root_ + "/x/" + std::to_string(i % (n / 3 + 1)) + "/";
        Set("XDG_DATA_DIRS", dirs);
        vkl_search_env env;
        ASSERT_EQ(vkl_search_env_from_process(&env), VK_SUCCESS);
        for (const char *suffix : {VKL_ICD_SUFFIX, VKL_IMPLICIT_LAYER_SUFFIX, VKL_EXPLICIT_LAYER_SUFFIX}) {
            Strings want = Dirs(env, suffix);
            EXPECT_EQ(want, ReferenceDirs(env, suffix));
            const vkl_search_dirs *a = vkl_search_dirs_acquire(suffix);
            const vkl_search_dirs *b = vkl_search_dirs_acquire(suffix); // held together
            ASSERT_NE(a, nullptr);
            ASSERT_NE(b, nullptr);
            EXPECT_EQ(ToVec(a->dirs), want) << n;
            EXPECT_EQ(ToVec(b->dirs), want) << n;
            vkl_search_dirs_release(a);
            EXPECT_EQ(ToVec(b->dirs), want) << n; // still valid for its holder
            vkl_search_dirs_release(b);
        }
    }
}

// vkl_discover's default directories are what acquire + vkl_manifest_search_entry /
// vkl_layer_manifest_search_entry over the list finds, with the same log lines (every directory
// named), for both kinds, including bases longer than its stack buffer.
TEST_F(DriverSearch, ScanEqualsTheLoopOverTheAcquiredList) {
    std::string long_base =
        root_ + "/" + std::string(200, 'l') + "/" + std::string(200, 'm') + "/" + std::string(200, 'n');
    File("dd1/vulkan/icd.d/b.json");
    File("dd1/vulkan/icd.d/a.json");
    File("dd2/vulkan/explicit_layer.d/l.json");
    File(long_base.substr(root_.size() + 1) + "/vulkan/icd.d/long.json");
    for (size_t absent : {size_t{0}, size_t{600}}) { // a kept list; one too long to keep (~40 KiB)
        std::string dirs = root_ + "/dd1:" + root_ + "/dd2/:" + long_base + ":" + root_ + "/dd1";
        for (size_t i = 0; i < absent; i++) dirs += ":" + root_ + "/absent/" + std::to_string(i);
        Set("XDG_DATA_DIRS", dirs);
        for (bool layers : {false, true}) {
            {
                const char *suffix = layers ? VKL_EXPLICIT_LAYER_SUFFIX : VKL_ICD_SUFFIX;
                std::vector<std::pair<uint32_t, std::string>> scan_lines, loop_lines;
                vkl_log_sink scan_sink{Emit, &scan_lines}, loop_sink{Emit, &loop_lines};
                vkl_strlist scanned = VKL_STRLIST_INIT, looped = VKL_STRLIST_INIT;
                ASSERT_EQ(vkl_discover(layers ? VKL_DISCOVER_EXPLICIT_LAYERS : VKL_DISCOVER_DRIVERS, nullptr,
                                       &scan_sink, &scanned),
                          VK_SUCCESS);
                const vkl_search_dirs *d = vkl_search_dirs_acquire(suffix);
                ASSERT_NE(d, nullptr);
                for (size_t i = 0; i < d->dirs.count; i++)
                    ASSERT_EQ(layers ? vkl_layer_manifest_search_entry(&loop_sink, d->dirs.items[i], nullptr, &looped)
                                     : vkl_manifest_search_entry(&loop_sink, d->dirs.items[i], nullptr, &looped),
                              VK_SUCCESS);
                vkl_search_dirs_release(d);
                EXPECT_EQ(ToVec(scanned), ToVec(looped));
                EXPECT_EQ(scan_lines, loop_lines);
                std::string what = layers ? "layer search: searching " : "driver search: searching ";
                // (a line is cut at VKL_LOG_MAX_MESSAGE bytes: the long directory's line is matched by
                // its start)
                EXPECT_TRUE(std::any_of(scan_lines.begin(), scan_lines.end(), [&](const auto &l) {
                    return l.second.rfind(what + root_ + "/" + std::string(200, 'l'), 0) == 0;
                }));
                Strings found = ToVec(scanned);
                ASSERT_FALSE(found.empty());
                if (suffix == std::string(VKL_ICD_SUFFIX))
                    EXPECT_EQ(Strings(found.end() - std::min<size_t>(3, found.size()), found.end()),
                              (Strings{root_ + "/dd1/vulkan/icd.d/a.json", root_ + "/dd1/vulkan/icd.d/b.json",
                                       long_base + "/vulkan/icd.d/long.json"}));
                else
                    EXPECT_EQ(found.back(), root_ + "/dd2/vulkan/explicit_layer.d/l.json");
                vkl_strlist_finish(&scanned);
                vkl_strlist_finish(&looped);
            }
        }
    }
}

// Heap in proportion to XDG_DATA_DIRS (docs/performance.md, "Round six"). The bytes live (glibc's
// count of heap and mmap'd blocks) once the directory lists of the three suffixes have been
// acquired and released (what the cache keeps), and while one is held, grow by at most the entry's
// own bytes in the value plus a small constant per entry. Entries of 10 bytes ("/x/000123:"): the
// cache keeps 18 bytes per entry (the value copied once, an 8-byte base), a held list 42 more (a
// pointer and "/x/000123/<suffix>"). The code before (one allocated string per directory per
// suffix, its pointer and hash slot, a copy of the value per suffix) kept 196 bytes per entry here.
size_t LiveHeap() {
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

TEST_F(DriverSearch, HeapPerXdgDataDirsEntryIsBounded) {
    static const char *const kSuffixes[] = {VKL_ICD_SUFFIX, VKL_IMPLICIT_LAYER_SUFFIX, VKL_EXPLICIT_LAYER_SUFFIX};
    {
        size_t before = LiveHeap();
        void *probe = malloc(1 << 20);
        bool counted = LiveHeap() >= before + (1 << 20);
        free(probe);
        // Under AddressSanitizer malloc is not glibc's and mallinfo2 counts nothing.
        if (!counted) GTEST_SKIP() << "mallinfo2 does not count this process's allocations";
    }
    auto measure = [&](size_t n, size_t *kept, size_t *held) {
        std::string dirs;
        char entry[32];
        for (size_t i = 0; i < n; i++) {
            snprintf(entry, sizeof(entry), "/x/%06zu", i);
            dirs += (i ? ":" : "") + std::string(entry);
        }
        Set("XDG_DATA_DIRS", "/y"); // a different value: the lists of the last size are dropped
        for (const char *suffix : kSuffixes) vkl_search_dirs_release(vkl_search_dirs_acquire(suffix));
        size_t base = LiveHeap();
        Set("XDG_DATA_DIRS", dirs); // setenv's copy is counted in both sizes alike
        size_t env_bytes = LiveHeap() - base;
        for (const char *suffix : kSuffixes) {
            const vkl_search_dirs *d = vkl_search_dirs_acquire(suffix);
            ASSERT_NE(d, nullptr);
            ASSERT_GT(d->dirs.count, n); // the n entries and the fixture's other locations
            vkl_search_dirs_release(d);
        }
        *kept = LiveHeap() - base - env_bytes;
        const vkl_search_dirs *d = vkl_search_dirs_acquire(VKL_EXPLICIT_LAYER_SUFFIX);
        *held = LiveHeap() - base - env_bytes;
        vkl_search_dirs_release(d);
    };
    size_t kept1 = 0, held1 = 0, kept2 = 0, held2 = 0;
    ASSERT_NO_FATAL_FAILURE(measure(1000, &kept1, &held1));
    ASSERT_NO_FATAL_FAILURE(measure(2000, &kept2, &held2));
    double kept = (double)(kept2 - kept1) / 1000, held = (double)(held2 - held1) / 1000;
    RecordProperty("kept_bytes_per_entry", std::to_string(kept));
    RecordProperty("held_bytes_per_entry", std::to_string(held));
    EXPECT_LE(kept, 10 + 16) << "bytes kept per 10-byte entry";
    EXPECT_LE(held, 10 + 16 + 60) << "bytes per 10-byte entry while a list is held";
}

} // namespace
