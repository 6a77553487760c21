// Unit tests for the directory listings of loader/fileio.c (vkl_dir_list) and the listing cache
// behind them (RULE_STARTUP_CACHE): what a listing holds, that an unchanged directory is answered
// from the cache, and that every change a search must see (an entry created, removed, renamed in
// or out, replaced by a FIFO) is seen at once, never a stale listing.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "loader/internal/fileio.h"
}

namespace {

using Listing = std::vector<std::pair<std::string, enum vkl_file_kind>>;

std::string TempDir(const char *name) {
    const char *base = getenv("TEST_TMPDIR");
    std::string t = std::string(base != nullptr ? base : "/tmp") + "/dircache_" + name + "_XXXXXX";
    std::vector<char> buf(t.begin(), t.end());
    buf.push_back('\0');
    EXPECT_NE(mkdtemp(buf.data()), nullptr);
    return std::string(buf.data());
}

void Touch(const std::string &path) {
    FILE *f = fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr) << path;
    fputs("{}", f);
    fclose(f);
}

// The listing and whether it came from the cache.
Listing List(const std::string &dir, const char *suffix, bool *from_cache) {
    uint64_t hits0 = 0, hits1 = 0;
    vkl_dir_cache_stats(&hits0, nullptr);
    struct vkl_dir_list l = {};
    EXPECT_EQ(vkl_dir_list(dir.c_str(), suffix, &l), VK_SUCCESS) << dir;
    vkl_dir_cache_stats(&hits1, nullptr);
    if (from_cache != nullptr) *from_cache = hits1 == hits0 + 1;
    Listing out;
    for (size_t i = 0; i < l.count; i++) out.emplace_back(l.items[i].name, l.items[i].kind);
    vkl_dir_list_free(&l);
    EXPECT_EQ(l.items, nullptr);
    EXPECT_EQ(l.count, 0u);
    return out;
}

class DirCache : public ::testing::Test {
  protected:
    void SetUp() override {
        vkl_dir_cache_clear();
        saved_ = vkl_dir_cache_settle_ns;
    }
    void TearDown() override {
        vkl_dir_cache_settle_ns = saved_;
        vkl_dir_cache_clear();
    }
    int64_t saved_ = 0;
};

TEST_F(DirCache, ListsSortedWithKindsAndSuffix) {
    std::string d = TempDir("list");
    Touch(d + "/b.json");
    Touch(d + "/a.json");
    Touch(d + "/c.txt");
    ASSERT_EQ(mkdir((d + "/sub.json").c_str(), 0755), 0);
    ASSERT_EQ(mkfifo((d + "/pipe.json").c_str(), 0644), 0);
    ASSERT_EQ(symlink("a.json", (d + "/link.json").c_str()), 0);
    Listing want = {{"a.json", VKL_FILE_REGULAR},
                    {"b.json", VKL_FILE_REGULAR},
                    {"link.json", VKL_FILE_MISSING}, // a symlink: the caller classifies it
                    {"pipe.json", VKL_FILE_OTHER},
                    {"sub.json", VKL_FILE_DIRECTORY}};
    EXPECT_EQ(List(d, ".json", nullptr), want);
    Listing all = List(d, nullptr, nullptr);
    ASSERT_EQ(all.size(), 6u);
    EXPECT_EQ(all[2].first, "c.txt");
}

TEST_F(DirCache, MissingDirectoryFails) {
    struct vkl_dir_list l = {};
    errno = 0;
    EXPECT_EQ(vkl_dir_list("/nonexistent-vkl-dir-cache/x", ".json", &l), VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(errno, ENOENT);
    EXPECT_EQ(l.count, 0u);
}

TEST_F(DirCache, UnchangedDirectoryComesFromTheCache) {
    std::string d = TempDir("hit");
    Touch(d + "/a.json");
    Touch(d + "/b.json");
    bool cached = true;
    // The directory was written just now: with the default settle time (2 s) nothing is kept.
    Listing first = List(d, ".json", &cached);
    EXPECT_FALSE(cached);
    ASSERT_EQ(first.size(), 2u);
    // Without a settle time a listing is kept once the coarse clock has moved past the times.
    vkl_dir_cache_settle_ns = 0;
    usleep(30 * 1000);
    EXPECT_EQ(List(d, ".json", &cached), first);
    EXPECT_FALSE(cached); // read again: nothing was kept before
    EXPECT_EQ(List(d, ".json", &cached), first);
    EXPECT_TRUE(cached);
    // Another suffix is another listing.
    Listing all = List(d, nullptr, &cached);
    EXPECT_FALSE(cached);
    EXPECT_EQ(all, first);
}

TEST_F(DirCache, RecentDirectoryIsNeverKept) {
    std::string d = TempDir("recent");
    Touch(d + "/a.json");
    bool cached = true;
    for (int i = 0; i < 3; i++) {
        EXPECT_EQ(List(d, ".json", &cached).size(), 1u);
        EXPECT_FALSE(cached) << "a directory changed within the last 2 s must be read again";
    }
}

// Every change a search must see, each right after a cached listing.
TEST_F(DirCache, EveryChangeIsSeenAtOnce) {
    vkl_dir_cache_settle_ns = 0;
    std::string d = TempDir("change");
    Touch(d + "/a.json");
    auto settle = [&]() {
        usleep(30 * 1000);
        bool cached = false;
        List(d, ".json", &cached); // read (and kept)
        List(d, ".json", &cached);
        EXPECT_TRUE(cached);
    };
    bool cached = true;
    struct Step {
        const char *what;
        std::function<void()> change;
        Listing want;
    };
    std::string outside = TempDir("outside");
    Touch(outside + "/moved.json");
    std::vector<Step> steps = {
        {"create", [&] { Touch(d + "/b.json"); }, {{"a.json", VKL_FILE_REGULAR}, {"b.json", VKL_FILE_REGULAR}}},
        {"remove", [&] { ASSERT_EQ(unlink((d + "/a.json").c_str()), 0); }, {{"b.json", VKL_FILE_REGULAR}}},
        {"rename within",
         [&] { ASSERT_EQ(rename((d + "/b.json").c_str(), (d + "/c.json").c_str()), 0); },
         {{"c.json", VKL_FILE_REGULAR}}},
        {"rename in",
         [&] { ASSERT_EQ(rename((outside + "/moved.json").c_str(), (d + "/m.json").c_str()), 0); },
         {{"c.json", VKL_FILE_REGULAR}, {"m.json", VKL_FILE_REGULAR}}},
        {"FIFO renamed over an entry",
         [&] {
             ASSERT_EQ(mkfifo((outside + "/p").c_str(), 0644), 0);
             ASSERT_EQ(rename((outside + "/p").c_str(), (d + "/m.json").c_str()), 0);
         },
         {{"c.json", VKL_FILE_REGULAR}, {"m.json", VKL_FILE_OTHER}}},
        {"rename out",
         [&] { ASSERT_EQ(rename((d + "/m.json").c_str(), (outside + "/gone").c_str()), 0); },
         {{"c.json", VKL_FILE_REGULAR}}},
    };
    for (const Step &s : steps) {
        SCOPED_TRACE(s.what);
        settle();
        s.change();
        EXPECT_EQ(List(d, ".json", &cached), s.want);
        EXPECT_FALSE(cached);
    }
    // The directory itself replaced by another at the same path.
    settle();
    std::string aside = d + ".aside";
    ASSERT_EQ(rename(d.c_str(), aside.c_str()), 0);
    ASSERT_EQ(mkdir(d.c_str(), 0755), 0);
    Touch(d + "/new.json");
    EXPECT_EQ(List(d, ".json", &cached), (Listing{{"new.json", VKL_FILE_REGULAR}}));
    EXPECT_FALSE(cached);
}

TEST_F(DirCache, ClearDropsEverything) {
    vkl_dir_cache_settle_ns = 0;
    std::string d = TempDir("clear");
    Touch(d + "/a.json");
    usleep(30 * 1000);
    bool cached = false;
    List(d, ".json", &cached);
    List(d, ".json", &cached);
    EXPECT_TRUE(cached);
    vkl_dir_cache_clear();
    List(d, ".json", &cached);
    EXPECT_FALSE(cached);
}

} // namespace
