// library_path.h: library_path resolved as dlopen resolves it (LLP_LAYER_20, LDP_DRIVER_4).
#include "conformance/checker_common/library_path.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>
#include <sys/auxv.h>

#include <string>

namespace {

std::string Expand(const char *path, const char *origin = "/opt/loader") {
    char out[4096];
    ckr_expand_library_path(path, origin, out, sizeof out, nullptr);
    return out;
}

// The directory libc was loaded from, as the dynamic linker names it.
std::string LibcPath() {
    Dl_info info{};
    EXPECT_NE(dladdr(reinterpret_cast<void *>(&snprintf), &info), 0);
    return info.dli_fname ? info.dli_fname : "";
}

TEST(LibraryPath, LibIsWhatTheDynamicLinkerUses) {
    std::string lib = ckr_dst_lib();
    ASSERT_FALSE(lib.empty());
    EXPECT_EQ(lib.find('$'), std::string::npos);
    // The dynamic linker itself agrees: "/$LIB/<libc's file name>" is the libc already loaded.
    std::string libc = LibcPath();
    std::string base = libc.substr(libc.rfind('/') + 1);
    void *via_token = dlopen(("/$LIB/" + base).c_str(), RTLD_LAZY | RTLD_NOLOAD);
    void *via_value = dlopen(("/" + lib + "/" + base).c_str(), RTLD_LAZY | RTLD_NOLOAD);
    ASSERT_NE(via_token, nullptr) << dlerror();
    EXPECT_EQ(via_token, via_value);
    dlclose(via_token);
    if (via_value) dlclose(via_value);
}

TEST(LibraryPath, PlatformIsTheAuxiliaryVectorsPlatform) {
    const char *p = reinterpret_cast<const char *>(getauxval(AT_PLATFORM));
    ASSERT_NE(p, nullptr);
    EXPECT_STREQ(ckr_dst_platform(), p);
}

TEST(LibraryPath, TokensExpandedInPathsWithASlash) {
    std::string lib = ckr_dst_lib(), plat = ckr_dst_platform();
    EXPECT_EQ(Expand("/usr/$LIB/mangohud/libMangoHud.so"), "/usr/" + lib + "/mangohud/libMangoHud.so");
    EXPECT_EQ(Expand("/usr/${LIB}/x.so"), "/usr/" + lib + "/x.so");
    EXPECT_EQ(Expand("/p/$PLATFORM/${PLATFORM}.so"), "/p/" + plat + "/" + plat + ".so");
    EXPECT_EQ(Expand("$ORIGIN/../lib/x.so"), "/opt/loader/../lib/x.so");
    EXPECT_EQ(Expand("${ORIGIN}/x.so"), "/opt/loader/x.so");
    char out[64];
    EXPECT_TRUE(ckr_expand_library_path("/usr/$LIB/a.so", nullptr, out, sizeof out, nullptr));
    EXPECT_FALSE(ckr_expand_library_path("/usr/lib/a.so", nullptr, out, sizeof out, nullptr));
}

TEST(LibraryPath, OtherTextKept) {
    // Not tokens: a longer name, an unknown one, an unclosed brace; a bare name is searched as is.
    EXPECT_EQ(Expand("/usr/$LIBX/a.so"), "/usr/$LIBX/a.so");
    EXPECT_EQ(Expand("/usr/$FOO/a.so"), "/usr/$FOO/a.so");
    EXPECT_EQ(Expand("/usr/${LIB/a.so"), "/usr/${LIB/a.so");
    EXPECT_EQ(Expand("lib$LIB.so"), "lib$LIB.so");
    EXPECT_EQ(Expand("/a$/b.so"), "/a$/b.so");
}

TEST(LibraryPath, UnknownOriginOrShortBufferLeavesThePath) {
    char out[16];
    const char *why = nullptr;
    EXPECT_FALSE(ckr_expand_library_path("$ORIGIN/x.so", nullptr, out, sizeof out, &why));
    EXPECT_STREQ(out, "$ORIGIN/x.so");
    ASSERT_NE(why, nullptr);
    EXPECT_FALSE(ckr_expand_library_path("/usr/$LIB/a-long-name.so", nullptr, out, sizeof out, &why));
    EXPECT_NE(why, nullptr);
}

} // namespace
