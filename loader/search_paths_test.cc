// Unit tests for loader/search_paths.c (and strlist.c): path lists, the default search
// directories in documented order, and driver-manifest discovery with every env-var interaction.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

extern "C" {
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
        EXPECT_EQ(vkl_driver_manifest_files(&sink, &l), VK_SUCCESS);
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
        if (l == "driver search: found manifest " + root_ + "/home/.config/vulkan/icd.d/a.json") found = true;
    EXPECT_TRUE(found);
    EXPECT_TRUE(Lines(VKL_LOG_WARN | VKL_LOG_INFO | VKL_LOG_ERROR).empty());
    // Every directory searched is named before what it holds ("searching", then "found manifest"
    // or "skipping" lines), missing ones included: the DEBUG log is the whole search.
    size_t searching = 0, home_dir = dbg.size(), a_json = dbg.size();
    for (size_t i = 0; i < dbg.size(); i++) {
        const std::string &l = dbg[i];
        bool known = l.rfind("driver search: searching ", 0) == 0 ||
                     l.rfind("driver search: found manifest ", 0) == 0 || l.rfind("driver search: skipping ", 0) == 0;
        EXPECT_TRUE(known) << l;
        if (l.rfind("driver search: searching ", 0) == 0) searching++;
        if (l == "driver search: searching " + root_ + "/home/.config/vulkan/icd.d") home_dir = i;
        if (l == "driver search: found manifest " + root_ + "/home/.config/vulkan/icd.d/a.json") a_json = i;
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
    EXPECT_EQ(dbg[2], "driver search: found manifest " + a);
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

} // namespace
