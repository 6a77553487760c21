// Helpers the loader's own unit tests share: a file of the test's runfiles, a fresh directory under
// $TEST_TMPDIR, and a shell command that must succeed.
#ifndef VKL_LOADER_TEST_SUPPORT_H_
#define VKL_LOADER_TEST_SUPPORT_H_

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace vkl_test {

// `rel` (a workspace-relative path) in the test's runfiles.
inline std::string Runfile(const std::string &rel) {
    const char *srcdir = getenv("TEST_SRCDIR");
    const char *ws = getenv("TEST_WORKSPACE");
    return std::string(srcdir ? srcdir : ".") + "/" + (ws ? ws : "vk_loader_harness") + "/" + rel;
}

// A new directory "<$TEST_TMPDIR>/<prefix>_XXXXXX"; "" when it cannot be made.
inline std::string MakeTempDir(const std::string &prefix) {
    const char *tmp = getenv("TEST_TMPDIR");
    std::string base = std::string(tmp ? tmp : "/tmp") + "/" + prefix + "_XXXXXX";
    std::vector<char> b(base.begin(), base.end());
    b.push_back('\0');
    return mkdtemp(b.data()) != nullptr ? std::string(b.data()) : std::string();
}

inline void Sh(const std::string &c) { ASSERT_EQ(system(c.c_str()), 0) << c; }

} // namespace vkl_test

#endif // VKL_LOADER_TEST_SUPPORT_H_
