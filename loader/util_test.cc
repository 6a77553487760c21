// The loader's shared helpers (loader/internal/util.h): hash, map, strdup, path resolver, unload
// rule, stable sort.
#include "loader/internal/util.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "loader/internal/env.h"

namespace {

TEST(UtilHash, DependsOnEveryByteAndTheLength) {
    const char a[] = "0123456789abcdefXYZ";
    for (size_t n = 0; n < sizeof(a) - 1; n++) EXPECT_NE(vkl_hash(a, n), vkl_hash(a, n + 1)) << n;
    char b[sizeof(a)];
    memcpy(b, a, sizeof(a));
    for (size_t i = 0; i + 1 < sizeof(a); i++) {
        b[i] ^= 1;
        EXPECT_NE(vkl_hash(a, sizeof(a) - 1), vkl_hash(b, sizeof(a) - 1)) << i;
        b[i] ^= 1;
    }
    EXPECT_EQ(vkl_hash_str("layer"), vkl_hash("layer", 5));
    EXPECT_EQ(vkl_hash(nullptr, 0), vkl_hash("", 0));
}

TEST(UtilMap, StringsInTheCallersSlotsThenOnTheHeap) {
    vkl_map_slot local[8];
    vkl_map m;
    vkl_map_init(&m, local, 8, nullptr, nullptr, nullptr);
    std::vector<std::string> keys;
    for (int i = 0; i < 1000; i++) keys.push_back("VK_LAYER_" + std::to_string(i));
    for (size_t i = 0; i < keys.size(); i++) {
        vkl_map_slot *s = nullptr;
        ASSERT_EQ(vkl_map_put_str(&m, keys[i].c_str(), reinterpret_cast<void *>(i + 1), &s), VK_SUCCESS);
        ASSERT_NE(s, nullptr);
        EXPECT_EQ(s->value, reinterpret_cast<void *>(i + 1));
        if (i < 3) {
            EXPECT_EQ(m.slot, local) << "a small map stays in the caller slots";
        }
    }
    EXPECT_NE(m.slot, local);
    EXPECT_EQ(m.count, keys.size());
    EXPECT_LE(m.count * 2, m.cap);
    // A second put of an equal key (another pointer) finds the first value and adds nothing.
    std::string again = keys[500];
    vkl_map_slot *s = nullptr;
    ASSERT_EQ(vkl_map_put_str(&m, again.c_str(), reinterpret_cast<void *>(7), &s), VK_SUCCESS);
    EXPECT_EQ(s->value, reinterpret_cast<void *>(501));
    EXPECT_EQ(m.count, keys.size());
    for (size_t i = 0; i < keys.size(); i++) {
        vkl_map_slot *f = vkl_map_find_str(&m, keys[i].c_str());
        ASSERT_NE(f, nullptr);
        EXPECT_EQ(f->value, reinterpret_cast<void *>(i + 1));
    }
    EXPECT_EQ(vkl_map_find_str(&m, "VK_LAYER_1000"), nullptr);
    vkl_map_finish(&m);
    EXPECT_EQ(vkl_map_find_str(&m, "VK_LAYER_1"), nullptr);
}

TEST(UtilMap, EmptyMapWithoutSlotsAllocatesOnFirstAdd) {
    vkl_map m;
    vkl_map_init(&m, nullptr, 0, nullptr, nullptr, nullptr);
    EXPECT_EQ(vkl_map_find_str(&m, "x"), nullptr);
    ASSERT_EQ(vkl_map_put_str(&m, "x", nullptr, nullptr), VK_SUCCESS);
    EXPECT_NE(vkl_map_find_str(&m, "x"), nullptr);
    vkl_map_finish(&m);
}

TEST(UtilMap, AddKeepsDuplicatesAndFindReturnsTheFirst) {
    vkl_map_slot local[4];
    vkl_map m;
    vkl_map_init(&m, local, 4, nullptr, nullptr, nullptr);
    ASSERT_EQ(vkl_map_add(&m, vkl_hash_str("a"), "a", reinterpret_cast<void *>(1)), VK_SUCCESS);
    ASSERT_EQ(vkl_map_add(&m, vkl_hash_str("a"), "a", reinterpret_cast<void *>(2)), VK_SUCCESS);
    EXPECT_EQ(m.count, 2u);
    EXPECT_EQ(vkl_map_find_str(&m, "a")->value, reinterpret_cast<void *>(1));
    vkl_map_finish(&m);
}

// Removal keeps every other key reachable: clustered hashes (few home slots, runs that wrap past
// the end of the table) and keys removed in an order unlike the insertion's, checked against a
// std::set after every step; a removed key's slot is reused by the next insertion.
TEST(UtilMap, RemoveKeepsTheOtherKeysOfItsProbeRun) {
    std::vector<int> keys(200);
    vkl_map m;
    vkl_map_init(&m, nullptr, 0, vkl_map_eq_ptr, nullptr, nullptr);
    // Seven home slots, the first ones at the end of the table: the runs wrap past it.
    auto hash_of = [&keys](const int *k) { return static_cast<uint64_t>((k - keys.data()) % 7) * 37u + ~0ull - 5u; };
    std::set<const int *> present;
    for (const int &k : keys) {
        ASSERT_EQ(vkl_map_add(&m, hash_of(&k), &k, const_cast<int *>(&k)), VK_SUCCESS);
        present.insert(&k);
    }
    for (size_t step = 0; step < keys.size(); step++) {
        const int *k = &keys[(step * 67) % keys.size()];
        vkl_map_slot *s = vkl_map_find(&m, hash_of(k), k);
        ASSERT_NE(s, nullptr);
        vkl_map_remove(&m, s);
        present.erase(k);
        ASSERT_EQ(m.count, present.size());
        for (const int &o : keys) {
            vkl_map_slot *f = vkl_map_find(&m, hash_of(&o), &o);
            ASSERT_EQ(f != nullptr, present.count(&o) == 1) << "step " << step;
            if (f != nullptr) {
                EXPECT_EQ(f->value, &o);
            }
        }
    }
    size_t cap = m.cap;
    ASSERT_EQ(vkl_map_add(&m, hash_of(&keys[0]), &keys[0], nullptr), VK_SUCCESS);
    EXPECT_EQ(m.cap, cap);
    EXPECT_NE(vkl_map_find(&m, hash_of(&keys[0]), &keys[0]), nullptr);
    vkl_map_finish(&m);
}

// Keys added twice: removing the first makes a lookup find the second.
TEST(UtilMap, RemoveTheFirstOfTwoEqualKeys) {
    vkl_map_slot local[4];
    vkl_map m;
    vkl_map_init(&m, local, 4, nullptr, nullptr, nullptr);
    ASSERT_EQ(vkl_map_add(&m, vkl_hash_str("a"), "a", reinterpret_cast<void *>(1)), VK_SUCCESS);
    ASSERT_EQ(vkl_map_add(&m, vkl_hash_str("a"), "a", reinterpret_cast<void *>(2)), VK_SUCCESS);
    vkl_map_remove(&m, vkl_map_find_str(&m, "a"));
    EXPECT_EQ(m.count, 1u);
    EXPECT_EQ(vkl_map_find_str(&m, "a")->value, reinterpret_cast<void *>(2));
    vkl_map_remove(&m, vkl_map_find_str(&m, "a"));
    EXPECT_EQ(vkl_map_find_str(&m, "a"), nullptr);
    vkl_map_finish(&m);
}

// Keys that stand for text the caller keeps (an index), compared through the context.
struct Texts {
    std::vector<std::string> v;
};
bool IndexEq(const vkl_map_slot *stored, const void *key, const void *ctx) {
    const Texts *t = static_cast<const Texts *>(ctx);
    return t->v[reinterpret_cast<uintptr_t>(stored->key) - 1] == *static_cast<const std::string *>(key);
}

TEST(UtilMap, TokenKeysWithTheCallersEquality) {
    Texts t;
    vkl_map m;
    vkl_map_init(&m, nullptr, 0, IndexEq, &t, nullptr);
    for (int i = 0; i < 100; i++) {
        std::string s = "/dir/" + std::to_string(i % 37);
        uint64_t h = vkl_hash(s.data(), s.size());
        if (vkl_map_find(&m, h, &s) != nullptr) continue;
        t.v.push_back(s);
        ASSERT_EQ(vkl_map_add(&m, h, reinterpret_cast<const void *>(t.v.size()), nullptr), VK_SUCCESS);
    }
    EXPECT_EQ(t.v.size(), 37u);
    EXPECT_EQ(m.count, 37u);
    vkl_map_finish(&m);
}

TEST(UtilMap, SpansOfTheCallersText) {
    const char text[] = "/a:/b:/a:/a/:/b";
    vkl_map m;
    vkl_map_init(&m, nullptr, 0, vkl_map_eq_span, nullptr, nullptr);
    // "/a" at 0 and 6, "/b" at 3 and 13, "/a/" at 9 (its first 2 bytes equal "/a": another length)
    const size_t off[] = {0, 3, 6, 9, 13}, len[] = {2, 2, 2, 3, 2};
    size_t added = 0;
    for (int i = 0; i < 5; i++) {
        if (vkl_map_find_span(&m, text + off[i], len[i]) != nullptr) continue;
        ASSERT_EQ(vkl_map_add_span(&m, text + off[i], len[i]), VK_SUCCESS);
        added++;
    }
    EXPECT_EQ(added, 3u);
    EXPECT_EQ(vkl_map_find_span(&m, "/b", 2)->key, static_cast<const void *>(text + 3));
    EXPECT_EQ(vkl_map_find_span(&m, "/c", 2), nullptr);
    vkl_map_finish(&m);
}

TEST(UtilMap, PointerKeys) {
    int objs[300];
    vkl_map m;
    vkl_map_init(&m, nullptr, 0, vkl_map_eq_ptr, nullptr, nullptr);
    for (int &o : objs) ASSERT_EQ(vkl_map_add(&m, vkl_hash_ptr(&o), &o, &o), VK_SUCCESS);
    for (int &o : objs) EXPECT_EQ(vkl_map_find(&m, vkl_hash_ptr(&o), &o)->value, &o);
    int other;
    EXPECT_EQ(vkl_map_find(&m, vkl_hash_ptr(&other), &other), nullptr);
    vkl_map_finish(&m);
}

// Tables beyond the caller's slots come from the given callbacks; a failing allocation leaves the
// map as it was.
struct Counting {
    int allocs = 0, frees = 0;
    bool fail = false;
};
void *VKAPI_PTR Alloc(void *ud, size_t size, size_t, VkSystemAllocationScope) {
    Counting *c = static_cast<Counting *>(ud);
    if (c->fail) return nullptr;
    c->allocs++;
    return malloc(size);
}
void *VKAPI_PTR Realloc(void *, void *p, size_t size, size_t, VkSystemAllocationScope) { return realloc(p, size); }
void VKAPI_PTR Free(void *ud, void *p) {
    if (p != nullptr) static_cast<Counting *>(ud)->frees++;
    free(p);
}

TEST(UtilMap, GrowsThroughTheCallbacksAndSurvivesTheirFailure) {
    Counting c;
    VkAllocationCallbacks cb = {&c, Alloc, Realloc, Free, nullptr, nullptr};
    vkl_map_slot local[4];
    vkl_map m;
    vkl_map_init(&m, local, 4, nullptr, nullptr, &cb);
    ASSERT_EQ(vkl_map_put_str(&m, "a", nullptr, nullptr), VK_SUCCESS);
    ASSERT_EQ(vkl_map_put_str(&m, "b", nullptr, nullptr), VK_SUCCESS);
    EXPECT_EQ(c.allocs, 0);
    c.fail = true;
    EXPECT_EQ(vkl_map_put_str(&m, "c", nullptr, nullptr), VK_ERROR_OUT_OF_HOST_MEMORY);
    EXPECT_EQ(m.count, 2u);
    EXPECT_NE(vkl_map_find_str(&m, "a"), nullptr);
    EXPECT_EQ(vkl_map_find_str(&m, "c"), nullptr);
    c.fail = false;
    ASSERT_EQ(vkl_map_put_str(&m, "c", nullptr, nullptr), VK_SUCCESS);
    EXPECT_EQ(c.allocs, 1);
    vkl_map_finish(&m);
    EXPECT_EQ(c.frees, 1);
}

TEST(UtilStrdup, CopiesAndKeepsNull) {
    char *d = vkl_strdup("abc");
    ASSERT_NE(d, nullptr);
    EXPECT_STREQ(d, "abc");
    free(d);
    EXPECT_EQ(vkl_strdup(nullptr), nullptr);
}

std::string Beside(const char *file, const char *rel) {
    char *p = vkl_path_beside(file, rel);
    std::string s = p != nullptr ? p : "(null)";
    free(p);
    return s;
}

TEST(UtilPathBeside, RelativeToTheDirectoryOfTheFile) {
    EXPECT_EQ(Beside("/etc/vulkan/icd.d/x.json", "../lib/libx.so"), "/etc/vulkan/icd.d/../lib/libx.so");
    EXPECT_EQ(Beside("/etc/vulkan/icd.d/x.json", "libx.so"), "/etc/vulkan/icd.d/libx.so");
    EXPECT_EQ(Beside("/etc/vulkan/icd.d/x.json", "/abs/libx.so"), "/abs/libx.so");
    EXPECT_EQ(Beside("x.json", "sub/libx.so"), "sub/libx.so");
    EXPECT_EQ(Beside("/x.json", "libx.so"), "/libx.so");
    EXPECT_EQ(Beside("dir/", "a"), "dir/a");
    EXPECT_EQ(Beside("/a/b.json", ""), "/a/");
}

TEST(UtilUnload, OnlyTheValueOneKeepsLibraries) {
    unsetenv("VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING");
    EXPECT_TRUE(vkl_library_unload_allowed());
    setenv("VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING", "1", 1);
    EXPECT_FALSE(vkl_library_unload_allowed());
    setenv("VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING", "0", 1);
    EXPECT_TRUE(vkl_library_unload_allowed());
    setenv("VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING", "11", 1);
    EXPECT_TRUE(vkl_library_unload_allowed());
    unsetenv("VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING");
}

int ByKey(const void *a, const void *b, void *) {
    int x = static_cast<const std::pair<int, int> *>(a)->first, y = static_cast<const std::pair<int, int> *>(b)->first;
    return x < y ? -1 : x > y;
}

TEST(UtilSort, StableLikeStdStableSort) {
    std::mt19937 rng(7);
    for (size_t n : {0u, 1u, 2u, 3u, 5u, 16u, 17u, 100u, 1000u, 1025u}) {
        std::vector<std::pair<int, int>> v(n), scratch(n);
        for (size_t i = 0; i < n; i++) v[i] = {static_cast<int>(rng() % 10), static_cast<int>(i)};
        std::vector<std::pair<int, int>> want = v;
        std::stable_sort(want.begin(), want.end(),
                         [](const std::pair<int, int> &a, const std::pair<int, int> &b) { return a.first < b.first; });
        vkl_sort_stable(v.data(), n, sizeof(v[0]), ByKey, nullptr, scratch.data());
        EXPECT_EQ(v, want) << n;
    }
}

} // namespace
