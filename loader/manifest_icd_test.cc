// Unit tests for loader/manifest_icd.c: every driver-manifest rule and its one log line.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "loader/internal/manifest.h"
}

namespace {

constexpr uint32_t kWarnDrv = VKL_LOG_WARN | VKL_LOG_DRIVER;
constexpr uint32_t kInfoDrv = VKL_LOG_INFO | VKL_LOG_DRIVER;
constexpr uint32_t kErrDrv = VKL_LOG_ERROR | VKL_LOG_DRIVER;

struct Result {
    VkResult result;
    vkl_icd_manifest m;
    std::vector<std::pair<uint32_t, std::string>> lines;
    ~Result() { vkl_icd_manifest_finish(&m); }
};

void Emit(void *ctx, uint32_t flags, const char *line) {
    static_cast<std::vector<std::pair<uint32_t, std::string>> *>(ctx)->emplace_back(flags, line);
}

std::unique_ptr<Result> Parse(const std::string &json, const char *path = "/x/y.json") {
    auto r = std::make_unique<Result>();
    vkl_log_set_level_for_testing(0);
    vkl_log_sink sink{Emit, &r->lines};
    std::memset(&r->m, 0xAB, sizeof(r->m)); // must be zeroed on failure, filled on success
    r->result = vkl_icd_manifest_parse(path, json.data(), json.size(), &sink, &r->m);
    return r;
}

std::string Manifest(const std::string &ffv, const std::string &icd_body) {
    return "{\"file_format_version\": " + ffv + ", \"ICD\": {" + icd_body + "}}";
}

std::string Good(const std::string &extra = "") {
    return Manifest("\"1.0.1\"", "\"library_path\": \"/usr/lib/libdrv.so\", \"api_version\": \"1.3.250\"" + extra);
}

void ExpectZeroed(const vkl_icd_manifest &m) {
    vkl_icd_manifest zero;
    std::memset(&zero, 0, sizeof(zero));
    EXPECT_EQ(std::memcmp(&m, &zero, sizeof(m)), 0);
}

// Asserts a rejection with exactly one log line.
void ExpectRejected(const std::string &json, VkResult want, uint32_t flags, const std::string &line,
                    const char *path = "/x/y.json") {
    auto r = Parse(json, path);
    EXPECT_EQ(r->result, want) << json;
    ExpectZeroed(r->m);
    ASSERT_EQ(r->lines.size(), 1u) << json;
    EXPECT_EQ(r->lines[0].first, flags) << json;
    EXPECT_EQ(r->lines[0].second, line) << json;
}

TEST(IcdManifest, Valid100) {
    auto r = Parse(Manifest("\"1.0.0\"", "\"library_path\": \"/usr/lib/libdrv.so\", \"api_version\": \"1.3.250\""));
    ASSERT_EQ(r->result, VK_SUCCESS);
    EXPECT_TRUE(r->lines.empty());
    EXPECT_STREQ(r->m.manifest_path, "/x/y.json");
    EXPECT_STREQ(r->m.library_path, "/usr/lib/libdrv.so");
    EXPECT_EQ(r->m.file_format_version, VK_MAKE_API_VERSION(0, 1, 0, 0));
    EXPECT_EQ(r->m.api_version, VK_MAKE_API_VERSION(0, 1, 3, 250));
    EXPECT_EQ(r->m.library_arch, 0);
    EXPECT_FALSE(r->m.is_portability_driver);
    EXPECT_FALSE(r->m.library_path_is_bare_name);
}

TEST(IcdManifest, Valid101WithOptionalFields) {
    auto r = Parse(Good(", \"library_arch\": \"64\", \"is_portability_driver\": true"));
    ASSERT_EQ(r->result, VK_SUCCESS);
    EXPECT_TRUE(r->lines.empty());
    EXPECT_EQ(r->m.file_format_version, VK_MAKE_API_VERSION(0, 1, 0, 1));
    EXPECT_EQ(r->m.library_arch, 64);
    EXPECT_TRUE(r->m.is_portability_driver);
    auto f = Parse(Good(", \"is_portability_driver\": false"));
    ASSERT_EQ(f->result, VK_SUCCESS);
    EXPECT_FALSE(f->m.is_portability_driver);
}

TEST(IcdManifest, OptionalFieldsHonouredIn100AndUnknownKeysIgnored) {
    auto r = Parse(Manifest("\"1.0.0\"", "\"library_path\": \"a.so\", \"api_version\": \"1.0.0\", "
                                         "\"is_portability_driver\": true, \"whatever\": [1, {}]") +
                   "");
    ASSERT_EQ(r->result, VK_SUCCESS);
    EXPECT_TRUE(r->m.is_portability_driver);
}

TEST(IcdManifest, LibraryPathResolution) {
    auto rel = Parse(Manifest("\"1.0.0\"", "\"library_path\": \"./libdrv.so\", \"api_version\": "
                                           "\"1.1.0\""),
                     "/etc/vulkan/icd.d/drv.json");
    ASSERT_EQ(rel->result, VK_SUCCESS);
    EXPECT_STREQ(rel->m.library_path, "/etc/vulkan/icd.d/./libdrv.so");
    EXPECT_FALSE(rel->m.library_path_is_bare_name);

    auto sub = Parse(Manifest("\"1.0.0\"", "\"library_path\": \"../lib/x/libdrv.so\", \"api_version\": \"1.1.0\""),
                     "/opt/drv/share/drv.json");
    ASSERT_EQ(sub->result, VK_SUCCESS);
    EXPECT_STREQ(sub->m.library_path, "/opt/drv/share/../lib/x/libdrv.so");

    auto cwd = Parse(Manifest("\"1.0.0\"", "\"library_path\": \"lib/libdrv.so\", \"api_version\": \"1.1.0\""),
                     "drv.json"); // manifest relative to the CWD: library relative to the CWD too
    ASSERT_EQ(cwd->result, VK_SUCCESS);
    EXPECT_STREQ(cwd->m.library_path, "lib/libdrv.so");

    auto relmanifest =
        Parse(Manifest("\"1.0.0\"", "\"library_path\": \"./l.so\", \"api_version\": \"1.1.0\""), "sub/dir/drv.json");
    ASSERT_EQ(relmanifest->result, VK_SUCCESS);
    EXPECT_STREQ(relmanifest->m.library_path, "sub/dir/./l.so");

    auto root = Parse(Manifest("\"1.0.0\"", "\"library_path\": \"./l.so\", \"api_version\": "
                                            "\"1.1.0\""),
                      "/drv.json");
    ASSERT_EQ(root->result, VK_SUCCESS);
    EXPECT_STREQ(root->m.library_path, "/./l.so");

    auto abs = Parse(Manifest("\"1.0.0\"", "\"library_path\": \"/abs/libdrv.so\", \"api_version\": \"1.1.0\""),
                     "/etc/vulkan/icd.d/drv.json");
    ASSERT_EQ(abs->result, VK_SUCCESS);
    EXPECT_STREQ(abs->m.library_path, "/abs/libdrv.so");

    auto bare = Parse(Manifest("\"1.0.0\"", "\"library_path\": \"libvulkan_drv.so\", \"api_version\": \"1.1.0\""),
                      "/etc/vulkan/icd.d/drv.json");
    ASSERT_EQ(bare->result, VK_SUCCESS);
    EXPECT_STREQ(bare->m.library_path, "libvulkan_drv.so"); // left to dlopen's search
    EXPECT_TRUE(bare->m.library_path_is_bare_name);
}

TEST(IcdManifestRejects, NotJson) {
    auto r = Parse("{ not json", "/x/y.json");
    EXPECT_EQ(r->result, VK_ERROR_INITIALIZATION_FAILED);
    ExpectZeroed(r->m);
    ASSERT_EQ(r->lines.size(), 1u);
    EXPECT_EQ(r->lines[0].first, kErrDrv);
    EXPECT_EQ(r->lines[0].second, "driver manifest /x/y.json: not valid JSON: syntax error at line 1, column 4 near "
                                  "'ot json' [LDP_DRIVER_4]");
    ExpectRejected("", VK_ERROR_INITIALIZATION_FAILED, kErrDrv,
                   "driver manifest /x/y.json: not valid JSON: empty input [LDP_DRIVER_4]");
    ExpectRejected(std::string(1000, '['), VK_ERROR_INITIALIZATION_FAILED, kErrDrv,
                   "driver manifest /x/y.json: not valid JSON: nesting deeper than 128 levels at "
                   "line 1, column 129 [LDP_DRIVER_4]");
}

TEST(IcdManifestRejects, RootNotObject) {
    ExpectRejected("[1]", VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                   "driver manifest /x/y.json: top-level value has type array, expected object "
                   "[LDP_DRIVER_4]");
}

TEST(IcdManifestRejects, MissingFields) {
    ExpectRejected("{\"ICD\": {\"library_path\": \"a.so\", \"api_version\": \"1.0.0\"}}",
                   VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                   "driver manifest /x/y.json: field 'file_format_version' is missing "
                   "[LDP_DRIVER_4]");
    ExpectRejected("{\"file_format_version\": \"1.0.0\"}", VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                   "driver manifest /x/y.json: field 'ICD' is missing [LDP_DRIVER_4]");
    // keys are case-sensitive (Khronos: case-insensitive)
    ExpectRejected("{\"file_format_version\": \"1.0.0\", \"icd\": {\"library_path\": \"a.so\", "
                   "\"api_version\": \"1.0.0\"}}",
                   VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                   "driver manifest /x/y.json: field 'ICD' is missing [LDP_DRIVER_4]");
    ExpectRejected(Manifest("\"1.0.0\"", "\"api_version\": \"1.0.0\""), VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                   "driver manifest /x/y.json: field 'ICD.library_path' is missing [LDP_DRIVER_4]");
    ExpectRejected(Manifest("\"1.0.0\"", "\"library_path\": \"a.so\""), VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                   "driver manifest /x/y.json: field 'ICD.api_version' is missing [LDP_DRIVER_4]");
}

TEST(IcdManifestRejects, WrongTypes) {
    ExpectRejected(Manifest("1.0", "\"library_path\": \"a.so\", \"api_version\": \"1.0.0\""),
                   VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                   "driver manifest /x/y.json: field 'file_format_version' has type number, "
                   "expected string [LDP_DRIVER_4]");
    ExpectRejected("{\"file_format_version\": \"1.0.0\", \"ICD\": \"a.so\"}", VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                   "driver manifest /x/y.json: field 'ICD' has type string, expected object "
                   "[LDP_DRIVER_4]");
    ExpectRejected(Manifest("\"1.0.0\"", "\"library_path\": 7, \"api_version\": \"1.0.0\""),
                   VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                   "driver manifest /x/y.json: field 'ICD.library_path' has type number, expected "
                   "string [LDP_DRIVER_4]");
    // Khronos accepts a non-string api_version as a 1.0 driver; [Drv] requires the string.
    ExpectRejected(Manifest("\"1.0.0\"", "\"library_path\": \"a.so\", \"api_version\": 1.0"),
                   VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                   "driver manifest /x/y.json: field 'ICD.api_version' has type number, expected "
                   "string [LDP_DRIVER_4]");
    ExpectRejected(Good(", \"is_portability_driver\": \"true\""), VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                   "driver manifest /x/y.json: field 'ICD.is_portability_driver' has type string, "
                   "expected bool [LDP_DRIVER_4]");
    ExpectRejected(Good(", \"is_portability_driver\": 1"), VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                   "driver manifest /x/y.json: field 'ICD.is_portability_driver' has type number, "
                   "expected bool [LDP_DRIVER_4]");
    ExpectRejected(Good(", \"is_portability_driver\": null"), VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                   "driver manifest /x/y.json: field 'ICD.is_portability_driver' has type null, "
                   "expected bool [LDP_DRIVER_4]");
}

TEST(IcdManifestRejects, EmptyLibraryPath) {
    ExpectRejected(Manifest("\"1.0.0\"", "\"library_path\": \"\", \"api_version\": \"1.0.0\""),
                   VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                   "driver manifest /x/y.json: field 'ICD.library_path' is empty [LDP_DRIVER_4]");
}

TEST(IcdManifestRejects, BadApiVersionStrings) {
    for (const char *v : {"1.0", "1", "", "0.0.0.0.0", "a.b.c", "1..0", "1.0.0 ", " 1.0.0", "-1.0.0", "+1.0.0",
                          "1.2.3x", "1.1024.0", "1.0.4096", "128.0.0", "0x1.0.0", "1.0.99999999999"}) {
        ExpectRejected(Manifest("\"1.0.0\"", std::string("\"library_path\": \"a.so\", "
                                                         "\"api_version\": \"") +
                                                 v + "\""),
                       VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                       std::string("driver manifest /x/y.json: field 'ICD.api_version' value '") + v +
                           "' is not a version \"major.minor.patch\" [LDP_DRIVER_4]");
    }
}

TEST(IcdManifestRejects, BadFileFormatVersionStrings) {
    for (const char *v : {"1.0", "1.0.0.0", "x", "", "1.0.1-rc"}) {
        ExpectRejected(Manifest(std::string("\"") + v + "\"", "\"library_path\": \"a.so\", \"api_version\": \"1.0.0\""),
                       VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                       std::string("driver manifest /x/y.json: field 'file_format_version' value '") + v +
                           "' is not a version \"major.minor.patch\" [LDP_DRIVER_4]");
    }
}

TEST(IcdManifestRejects, NonZeroVariantIsIncompatible) {
    ExpectRejected(Manifest("\"1.0.0\"", "\"library_path\": \"a.so\", \"api_version\": \"1.1.0.0\""),
                   VK_ERROR_INCOMPATIBLE_DRIVER, kInfoDrv,
                   "loader_parse_icd_manifest: Driver's ICD JSON /x/y.json 'api_version' field contains a "
                   "non-zero variant value of 1.  Skipping ICD JSON. (value '1.1.0.0') [LDP_LOADER_4]");
    auto zero = Parse(Manifest("\"1.0.0\"", "\"library_path\": \"a.so\", \"api_version\": "
                                            "\"0.1.2.3\""));
    ASSERT_EQ(zero->result, VK_SUCCESS);
    EXPECT_EQ(zero->m.api_version, VK_MAKE_API_VERSION(0, 1, 2, 3));
}

TEST(IcdManifestRejects, OtherMajorIsIncompatible) {
    ExpectRejected(Manifest("\"1.0.0\"", "\"library_path\": \"a.so\", \"api_version\": \"2.0.0\""),
                   VK_ERROR_INCOMPATIBLE_DRIVER, kInfoDrv,
                   "driver manifest /x/y.json: field 'ICD.api_version' value '2.0.0' has major "
                   "version 2, the loader implements 1, driver skipped [LDP_LOADER_4]");
    ExpectRejected(Manifest("\"1.0.0\"", "\"library_path\": \"a.so\", \"api_version\": \"0.9.0\""),
                   VK_ERROR_INCOMPATIBLE_DRIVER, kInfoDrv,
                   "driver manifest /x/y.json: field 'ICD.api_version' value '0.9.0' has major "
                   "version 0, the loader implements 1, driver skipped [LDP_LOADER_4]");
}

TEST(IcdManifestRejects, LibraryArchMismatchIsIncompatible) {
    static_assert(sizeof(void *) == 8, "tests assume a 64-bit build");
    ExpectRejected(Good(", \"library_arch\": \"32\""), VK_ERROR_INCOMPATIBLE_DRIVER, kInfoDrv,
                   "loader_parse_icd_manifest: Driver library architecture doesn't match the current running "
                   "architecture, skipping this driver. driver manifest /x/y.json: field 'ICD.library_arch' is "
                   "\"32\" but the loader is 64-bit; driver skipped [RULE_DRV_LIBRARY_ARCH]");
}

TEST(IcdManifest, InvalidLibraryArchIsIgnoredWithWarning) {
    for (const char *v : {"x86_64", "", "64bit", "3264", " 64", "32 "}) {
        auto r = Parse(Good(std::string(", \"library_arch\": \"") + v + "\""));
        ASSERT_EQ(r->result, VK_SUCCESS) << v;
        EXPECT_EQ(r->m.library_arch, 0);
        ASSERT_EQ(r->lines.size(), 1u);
        EXPECT_EQ(r->lines[0].first, kWarnDrv);
        EXPECT_EQ(r->lines[0].second, std::string("driver manifest /x/y.json: field 'ICD.library_arch' value '") + v +
                                          "' is not \"32\" or \"64\", ignored [RULE_DRV_LIBRARY_ARCH]");
    }
    auto n = Parse(Good(", \"library_arch\": 32"));
    ASSERT_EQ(n->result, VK_SUCCESS);
    EXPECT_EQ(n->m.library_arch, 0);
    ASSERT_EQ(n->lines.size(), 1u);
    EXPECT_EQ(n->lines[0].second, "driver manifest /x/y.json: field 'ICD.library_arch' has type number, expected "
                                  "string, ignored [RULE_DRV_LIBRARY_ARCH]");
}

TEST(IcdManifest, NewerFileFormatAcceptedWithInfo) {
    for (const char *v : {"1.0.2", "1.1.0", "3.2.1", "100.222.111", "0.9.0"}) {
        auto r =
            Parse(Manifest(std::string("\"") + v + "\"", "\"library_path\": \"a.so\", \"api_version\": \"1.2.0\""));
        ASSERT_EQ(r->result, VK_SUCCESS) << v;
        ASSERT_EQ(r->lines.size(), 1u);
        EXPECT_EQ(r->lines[0].first, kInfoDrv);
        EXPECT_EQ(r->lines[0].second, std::string("loader_parse_icd_manifest: /x/y.json has unknown icd manifest file "
                                                  "version ") +
                                          v +
                                          ". May cause errors. Supported versions are 1.0.0 and 1.0.1; reading it as "
                                          "1.0.1 [RULE_DRV_MANIFEST_V1_0_1]");
        EXPECT_STREQ(r->m.library_path, "a.so");
    }
}

TEST(IcdManifest, BufferNotNulTerminatedAndNoSink) {
    std::string s = Good() + "TRAILING";
    vkl_icd_manifest m;
    vkl_log_set_level_for_testing(0);
    ASSERT_EQ(vkl_icd_manifest_parse("/m.json", s.data(), Good().size(), nullptr, &m), VK_SUCCESS);
    EXPECT_STREQ(m.library_path, "/usr/lib/libdrv.so");
    vkl_icd_manifest_finish(&m);
    vkl_icd_manifest_finish(&m); // twice is fine
    ExpectZeroed(m);
    vkl_icd_manifest_finish(nullptr);
    EXPECT_EQ(vkl_icd_manifest_parse("/m.json", s.data(), s.size(), nullptr, &m), VK_ERROR_INITIALIZATION_FAILED);
}

TEST(IcdManifest, RejectionsReachStderrThroughVkLoaderDebug) {
    vkl_log_set_level_for_testing(VKL_LOG_DRIVER);
    vkl_icd_manifest m;
    const std::string s = Manifest("\"1.0.0\"", "\"library_path\": \"a.so\"");
    testing::internal::CaptureStderr();
    EXPECT_EQ(vkl_icd_manifest_parse("/x/y.json", s.data(), s.size(), nullptr, &m), VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(testing::internal::GetCapturedStderr(),
              "[Vulkan Loader] WARNING | DRIVER: driver manifest /x/y.json: field "
              "'ICD.api_version' is missing [LDP_DRIVER_4]\n");
    vkl_log_set_level_for_testing(0);
}

TEST(VersionString, Parse) {
    uint32_t v = 1;
    EXPECT_TRUE(vkl_parse_version_string("1.2.3", false, &v));
    EXPECT_EQ(v, VK_MAKE_API_VERSION(0, 1, 2, 3));
    EXPECT_TRUE(vkl_parse_version_string("127.1023.4095", false, &v));
    EXPECT_EQ(v, VK_MAKE_API_VERSION(0, 127, 1023, 4095));
    EXPECT_TRUE(vkl_parse_version_string("7.1.0.0", true, &v));
    EXPECT_EQ(VK_API_VERSION_VARIANT(v), 7u);
    EXPECT_FALSE(vkl_parse_version_string("7.1.0.0", false, &v));
    EXPECT_EQ(v, 0u);
    EXPECT_TRUE(vkl_parse_version_string("01.002.0003", false, &v)); // decimal, leading zeros ok
    EXPECT_EQ(v, VK_MAKE_API_VERSION(0, 1, 2, 3));
    EXPECT_FALSE(vkl_parse_version_string(nullptr, true, &v));
    EXPECT_FALSE(vkl_parse_version_string("1.2.3.", true, &v));
    EXPECT_FALSE(vkl_parse_version_string(".1.2.3", true, &v));
}

// The variant the Khronos loader reads from four or more parts (its first), so that a string we
// refuse is also named in its sentence (LDP_DRIVER_4, LLP_LOADER_4).
TEST(VersionString, VariantAsTheKhronosLoaderReadsIt) {
    EXPECT_EQ(vkl_version_string_variant("1.0.01.1.0.0"), 1u);
    EXPECT_EQ(vkl_version_string_variant("3.1.2.0"), 3u);
    EXPECT_EQ(vkl_version_string_variant("0.1.2.0"), 0u);
    EXPECT_EQ(vkl_version_string_variant("1.2.3"), 0u);
    EXPECT_EQ(vkl_version_string_variant("x.1.2.3"), 0u);
    EXPECT_EQ(vkl_version_string_variant(nullptr), 0u);
}

// Strings the Khronos loader reads as a non-zero variant: its sentence leads our one line.
TEST(IcdManifestRejects, MalformedApiVersionWithAVariantInTheKhronosSentence) {
    for (const char *v : {"1.0.0.0.0", "8.1.0.0", "1.0.01.1.0.0"}) {
        std::string variant = std::string(v).substr(0, 1);
        ExpectRejected(Manifest("\"1.0.0\"", std::string("\"library_path\": \"a.so\", \"api_version\": \"") + v + "\""),
                       VK_ERROR_INITIALIZATION_FAILED, kWarnDrv,
                       "loader_parse_icd_manifest: Driver's ICD JSON /x/y.json 'api_version' field contains a non-zero "
                       "variant value of " +
                           variant + ".  Skipping ICD JSON. (field 'ICD.api_version' value '" + v +
                           "' is not a version \"major.minor.patch\") [LDP_DRIVER_4]");
    }
}

TEST(IcdManifestRejects, SixPartApiVersionNamedWithItsVariant) {
    const std::string s =
        R"({"file_format_version": "1.0.0", "ICD": {"library_path": "/lib/x.so", "api_version": "1.0.01.1.0.0"}})";
    vkl_log_set_level_for_testing(VKL_LOG_DRIVER | VKL_LOG_INFO | VKL_LOG_WARN);
    testing::internal::CaptureStderr();
    struct vkl_icd_manifest m;
    EXPECT_NE(vkl_icd_manifest_parse("/x/y.json", s.data(), s.size(), nullptr, &m), VK_SUCCESS);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("Driver's ICD JSON /x/y.json 'api_version' field contains a non-zero variant value of 1."),
              std::string::npos)
        << err;
    EXPECT_NE(err.find("is not a version"), std::string::npos) << err;
    vkl_log_set_level_for_testing(0);
}

std::string TmpDir() {
    const char *t = getenv("TEST_TMPDIR");
    return t ? t : "/tmp";
}

TEST(ReadFile, ReadsWholeFile) {
    std::string path = TmpDir() + "/read_file.json";
    std::string content = Good();
    FILE *f = fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    fwrite(content.data(), 1, content.size(), f);
    fclose(f);
    char *buf = nullptr;
    size_t len = 0;
    ASSERT_EQ(vkl_read_file(path.c_str(), &buf, &len), VK_SUCCESS);
    EXPECT_EQ(std::string(buf, len), content);
    EXPECT_EQ(buf[len], '\0');
    free(buf);

    path = TmpDir() + "/empty.json";
    f = fopen(path.c_str(), "wb");
    fclose(f);
    ASSERT_EQ(vkl_read_file(path.c_str(), &buf, &len), VK_SUCCESS);
    EXPECT_EQ(len, 0u);
    free(buf);
}

TEST(ReadFile, Failures) {
    char *buf = reinterpret_cast<char *>(0x1);
    size_t len = 5;
    EXPECT_EQ(vkl_read_file((TmpDir() + "/does-not-exist.json").c_str(), &buf, &len), VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(errno, ENOENT);
    EXPECT_EQ(buf, nullptr);
    EXPECT_EQ(len, 0u);
    EXPECT_EQ(vkl_read_file(TmpDir().c_str(), &buf, &len), VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(errno, EISDIR);
    // over the cap (sparse file: no disk used)
    std::string big = TmpDir() + "/big.json";
    int fd = open(big.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(ftruncate(fd, VKL_MANIFEST_MAX_SIZE + 1), 0);
    close(fd);
    EXPECT_EQ(vkl_read_file(big.c_str(), &buf, &len), VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(errno, EFBIG);
    unlink(big.c_str());
    EXPECT_EQ(vkl_read_file(nullptr, &buf, &len), VK_ERROR_INITIALIZATION_FAILED);
}

} // namespace
