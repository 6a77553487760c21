// Unit tests for loader/filter.c: glob filters and the driver select/disable decision.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

extern "C" {
#include "loader/internal/filter.h"
}

namespace {

vkl_filter Parse(const std::string &s) {
    vkl_filter f;
    vkl_filter_parse(s.data(), s.size(), &f);
    return f;
}

bool Match(const std::string &filter, const char *name) {
    vkl_filter f = Parse(filter);
    return vkl_filter_match(&f, name);
}

TEST(Filter, ExactWholeName) {
    EXPECT_TRUE(Match("VK_LAYER_KHRONOS_validation", "VK_LAYER_KHRONOS_validation"));
    EXPECT_FALSE(Match("VK_LAYER_KHRONOS_validation", "VK_LAYER_KHRONOS_validation2"));
    EXPECT_FALSE(Match("VK_LAYER_KHRONOS_validation", "VK_LAYER_KHRONOS_validatio"));
    EXPECT_FALSE(Match("a", ""));
}

TEST(Filter, CaseInsensitive) {
    EXPECT_TRUE(Match("Bob", "bob"));
    EXPECT_TRUE(Match("bob", "BOB"));
    EXPECT_TRUE(Match("BOB*", "bobcat"));
    EXPECT_TRUE(Match("*CAT", "bobcat"));
    EXPECT_TRUE(Match("*OBC*", "BobCat"));
}

TEST(Filter, PrefixSuffixSubstring) {
    EXPECT_TRUE(Match("intel*", "intel_icd.x86_64.json"));
    EXPECT_FALSE(Match("intel*", "my_intel_icd.json"));
    EXPECT_TRUE(Match("*.x86_64.json", "intel_icd.x86_64.json"));
    EXPECT_FALSE(Match("*.x86_64.json", "intel_icd.i686.json"));
    EXPECT_TRUE(Match("*icd*", "intel_icd.json"));
    EXPECT_TRUE(Match("*intel_icd.json*", "intel_icd.json")); // substring may be the whole name
    EXPECT_FALSE(Match("*radeon*", "intel_icd.json"));
    EXPECT_TRUE(Match("intel_icd.json*", "intel_icd.json")); // prefix may be the whole name
    EXPECT_TRUE(Match("*intel_icd.json", "intel_icd.json"));
}

// The byte-set pre-check of substring tokens (filter.c) rejects only names that lack a byte of the
// token: case-folded bytes, bytes above 127 and a token whose every byte the name has but not in
// that order all still go through the scan.
TEST(Filter, SubstringByteSetCheck) {
    EXPECT_TRUE(Match("*XyZ*", "vk_layer_xyz_1"));
    EXPECT_TRUE(Match("*xyz*", "VK_LAYER_XYZ_1"));
    EXPECT_FALSE(Match("*xyq*", "VK_LAYER_XYZ_1"));
    EXPECT_FALSE(Match("*zyx*", "VK_LAYER_XYZ_1")); // every byte present, not as a run
    EXPECT_TRUE(Match("*\xc3\xa9t\xc3\xa9*", "VK_LAYER_\xc3\xa9t\xc3\xa9"));
    EXPECT_FALSE(Match("*\xc3\xa9*", "VK_LAYER_et"));
    // Several tokens: the second matches after the first was rejected by the check.
    EXPECT_TRUE(Match("*q*,*ay*", "VK_LAYER_a"));
    EXPECT_FALSE(Match("*q*,*ab*", "VK_LAYER_a"));
}

TEST(Filter, InteriorStarIsLiteral) {
    EXPECT_FALSE(Match("in*el", "intel"));
    EXPECT_TRUE(Match("in*el", "in*el"));
    EXPECT_TRUE(Match("***", "a*b")); // substring "*"
    EXPECT_FALSE(Match("***", "ab"));
}

TEST(Filter, MatchAllTokens) {
    for (const char *t : {"~all~", "*", "**", "~ALL~", "x,*"}) {
        vkl_filter f = Parse(t);
        EXPECT_TRUE(f.active) << t;
        EXPECT_TRUE(f.match_all) << t;
        EXPECT_TRUE(vkl_filter_match(&f, "anything.json")) << t;
        EXPECT_TRUE(vkl_filter_match(&f, "a")) << t; // Khronos quirk (~all~ vs short names) not kept
    }
}

TEST(Filter, SpecialLayerTokens) {
    vkl_filter f = Parse("~implicit~,~explicit~,~bogus~");
    EXPECT_TRUE(f.active);
    EXPECT_FALSE(f.match_all);
    EXPECT_TRUE(f.implicit_layers);
    EXPECT_TRUE(f.explicit_layers);
    EXPECT_EQ(f.count, 0u);
    EXPECT_FALSE(vkl_filter_match(&f, "~implicit~"));
    EXPECT_FALSE(vkl_filter_match(&f, "VK_LAYER_x"));
    vkl_filter g = Parse("~Implicit~");
    EXPECT_TRUE(g.implicit_layers);
    EXPECT_FALSE(g.explicit_layers);
}

TEST(Filter, EmptyValuesAreInactive) {
    for (const char *t : {"", ",", ",,,"}) {
        vkl_filter f = Parse(t);
        EXPECT_FALSE(f.active) << t;
        EXPECT_FALSE(vkl_filter_match(&f, "x")) << t;
    }
    vkl_filter n;
    vkl_filter_parse(nullptr, 0, &n);
    EXPECT_FALSE(n.active);
    EXPECT_FALSE(vkl_filter_match(nullptr, "x"));
    EXPECT_FALSE(vkl_filter_match(&n, nullptr));
}

TEST(Filter, CommaListEmptyTokensAndSpacesLiteral) {
    vkl_filter f = Parse(",a,,b*,");
    EXPECT_EQ(f.count, 2u);
    EXPECT_TRUE(vkl_filter_match(&f, "a"));
    EXPECT_TRUE(vkl_filter_match(&f, "bcd"));
    EXPECT_FALSE(Match("a, b", "b")); // " b" keeps its space
    EXPECT_TRUE(Match("a, b", " b"));
}

TEST(Filter, SeventeenTokensKeepsSixteen) {
    std::string v;
    for (int i = 0; i < 17; i++) v += (i ? "," : "") + std::string("name") + std::to_string(i);
    vkl_filter f = Parse(v);
    EXPECT_EQ(f.count, 16u);
    EXPECT_EQ(f.dropped, 1u);
    EXPECT_TRUE(vkl_filter_match(&f, "name0"));
    EXPECT_TRUE(vkl_filter_match(&f, "name15"));
    EXPECT_FALSE(vkl_filter_match(&f, "name16"));
    // special tokens do not use name slots
    vkl_filter g = Parse(v + ",~all~");
    EXPECT_TRUE(g.match_all);
}

TEST(Filter, LongTokenCutTo255) {
    std::string name(300, 'a');
    EXPECT_FALSE(Match(name, name.c_str())); // exact token cut to 255 no longer equals 300 chars
    EXPECT_TRUE(Match(name, name.substr(0, 255).c_str()));
    EXPECT_TRUE(Match(name + "*", name.c_str())); // a cut prefix token stays a prefix token
    vkl_filter f = Parse(name + "*");
    EXPECT_EQ(f.tokens[0].kind, VKL_FILTER_PREFIX);
    EXPECT_EQ(f.tokens[0].len, 255u);
}

TEST(Filter, BufferNotNulTerminated) {
    const char buf[] = {'a', 'b', 'c', 'x', 'y'};
    vkl_filter f;
    vkl_filter_parse(buf, 3, &f);
    EXPECT_TRUE(vkl_filter_match(&f, "abc"));
    EXPECT_FALSE(vkl_filter_match(&f, "abcxy"));
}

TEST(Basename, AfterLastSlash) {
    EXPECT_STREQ(vkl_path_basename("/usr/share/vulkan/icd.d/intel_icd.x86_64.json"), "intel_icd.x86_64.json");
    EXPECT_STREQ(vkl_path_basename("rel.json"), "rel.json");
    EXPECT_STREQ(vkl_path_basename("dir/"), "");
}

enum vkl_driver_filter_result Check(const char *select, const char *disable, const char *path) {
    vkl_filter s, d;
    vkl_filter_parse(select, select ? strlen(select) : 0, &s);
    vkl_filter_parse(disable, disable ? strlen(disable) : 0, &d);
    return vkl_driver_filter_check(&s, &d, path);
}

TEST(DriverFilter, NoFiltersKeep) {
    EXPECT_EQ(Check(nullptr, nullptr, "/a/intel_icd.json"), VKL_DRIVER_KEEP);
    EXPECT_EQ(vkl_driver_filter_check(nullptr, nullptr, "/a/b.json"), VKL_DRIVER_KEEP);
    EXPECT_EQ(Check("", "", "/a/intel_icd.json"), VKL_DRIVER_KEEP);
}

TEST(DriverFilter, MatchesManifestBasenameOnly) {
    EXPECT_EQ(Check("intel*", nullptr, "/usr/share/vulkan/icd.d/intel_icd.json"), VKL_DRIVER_KEEP);
    // the directory does not count
    EXPECT_EQ(Check("*icd.d*", nullptr, "/usr/share/vulkan/icd.d/intel_icd.json"), VKL_DRIVER_NOT_SELECTED);
    EXPECT_EQ(Check(nullptr, "*vulkan*", "/usr/share/vulkan/icd.d/intel_icd.json"), VKL_DRIVER_KEEP);
}

TEST(DriverFilter, SelectOnly) {
    EXPECT_EQ(Check("radeon*", nullptr, "/d/intel_icd.json"), VKL_DRIVER_NOT_SELECTED);
    EXPECT_EQ(Check("radeon*", nullptr, "/d/radeon_icd.json"), VKL_DRIVER_KEEP);
    EXPECT_EQ(Check("~all~", nullptr, "/d/x.json"), VKL_DRIVER_KEEP);
    EXPECT_EQ(Check("**", nullptr, "/d/x.json"), VKL_DRIVER_KEEP);
    // an active select that cannot match anything selects nothing
    EXPECT_EQ(Check("~implicit~", nullptr, "/d/x.json"), VKL_DRIVER_NOT_SELECTED);
}

TEST(DriverFilter, DisableOnly) {
    EXPECT_EQ(Check(nullptr, "radeon*", "/d/radeon_icd.json"), VKL_DRIVER_DISABLED);
    EXPECT_EQ(Check(nullptr, "radeon*", "/d/intel_icd.json"), VKL_DRIVER_KEEP);
    EXPECT_EQ(Check(nullptr, "*", "/d/intel_icd.json"), VKL_DRIVER_DISABLED);
}

TEST(DriverFilter, SelectReEnablesDisabled) {
    EXPECT_EQ(Check("intel*", "~all~", "/d/intel_icd.json"), VKL_DRIVER_KEEP);
    EXPECT_EQ(Check("intel*", "~all~", "/d/radeon_icd.json"), VKL_DRIVER_DISABLED);
    EXPECT_EQ(Check("intel*", "radeon*", "/d/lvp_icd.json"), VKL_DRIVER_NOT_SELECTED);
    EXPECT_EQ(Check("*icd*", "*intel*", "/d/intel_icd.json"), VKL_DRIVER_KEEP);
}

} // namespace
