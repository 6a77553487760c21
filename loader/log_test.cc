// Unit tests for loader/log.c: VK_LOADER_DEBUG parsing, the stderr line format, sinks.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include "loader/internal/log.h"
}

namespace {

uint32_t Parse(const std::string &s) { return vkl_log_parse_level(s.data(), s.size()); }

struct Captured {
    std::vector<std::pair<uint32_t, std::string>> lines;
    static void Emit(void *ctx, uint32_t flags, const char *line) {
        static_cast<Captured *>(ctx)->lines.emplace_back(flags, line);
    }
    vkl_log_sink sink() { return vkl_log_sink{&Captured::Emit, this}; }
};

std::string Format(uint32_t flags, const char *msg) {
    char buf[VKL_LOG_LINE_MAX];
    size_t n = vkl_log_format_line(buf, sizeof(buf), flags, msg);
    EXPECT_EQ(n, strlen(buf));
    return buf;
}

TEST(LogParseLevel, DocumentedWords) {
    EXPECT_EQ(Parse("error"), VKL_LOG_ERROR);
    EXPECT_EQ(Parse("warn"), VKL_LOG_WARN);
    EXPECT_EQ(Parse("info"), VKL_LOG_INFO);
    EXPECT_EQ(Parse("debug"), VKL_LOG_DEBUG);
    EXPECT_EQ(Parse("layer"), VKL_LOG_LAYER);
    EXPECT_EQ(Parse("driver"), VKL_LOG_DRIVER);
    EXPECT_EQ(Parse("all"), VKL_LOG_ALL);
}

TEST(LogParseLevel, CommaSeparatedAndEmptyWords) {
    EXPECT_EQ(Parse("warn,info"), VKL_LOG_WARN | VKL_LOG_INFO);
    EXPECT_EQ(Parse(",,driver,"), VKL_LOG_DRIVER);
    EXPECT_EQ(Parse("error,layer,driver"), VKL_LOG_ERROR | VKL_LOG_LAYER | VKL_LOG_DRIVER);
    EXPECT_EQ(Parse(""), 0u);
    EXPECT_EQ(Parse(","), 0u);
}

TEST(LogParseLevel, KhronosWordsPrefixesAndAliases) {
    // As the Khronos loader: any prefix of a word, in its order (all, warn, info, perf, error,
    // debug, layer, driver|implem|icd), and the undocumented perf / implem / icd.
    EXPECT_EQ(Parse("err"), VKL_LOG_ERROR);
    EXPECT_EQ(Parse("e"), VKL_LOG_ERROR);
    EXPECT_EQ(Parse("a"), VKL_LOG_ALL);
    EXPECT_EQ(Parse("w,i"), VKL_LOG_WARN | VKL_LOG_INFO);
    EXPECT_EQ(Parse("d"), VKL_LOG_DEBUG); // debug comes before driver
    EXPECT_EQ(Parse("dr"), VKL_LOG_DRIVER);
    EXPECT_EQ(Parse("l"), VKL_LOG_LAYER);
    EXPECT_EQ(Parse("perf"), VKL_LOG_PERF);
    EXPECT_EQ(Parse("icd"), VKL_LOG_DRIVER);
    EXPECT_EQ(Parse("implem"), VKL_LOG_DRIVER);
    EXPECT_EQ(Parse("imp"), VKL_LOG_DRIVER);
}

TEST(LogParseLevel, LongerUpperCaseOrPaddedTokensIgnored) {
    EXPECT_EQ(Parse("errors"), 0u);
    EXPECT_EQ(Parse("ERROR"), 0u);
    EXPECT_EQ(Parse(" error"), 0u);
    EXPECT_EQ(Parse("x"), 0u);
    EXPECT_EQ(Parse("bogus,warn,xyz"), VKL_LOG_WARN);
}

TEST(LogParseLevel, BufferNotNulTerminated) {
    const char buf[] = {'d', 'r', 'i', 'v', 'e', 'r', 'X', 'X'};
    EXPECT_EQ(vkl_log_parse_level(buf, 6), VKL_LOG_DRIVER);
    EXPECT_EQ(vkl_log_parse_level(buf, 8), 0u);
    EXPECT_EQ(vkl_log_parse_level(nullptr, 0), 0u);
}

TEST(LogFormat, SeverityOnlyPaddedToColumn32) {
    EXPECT_EQ(Format(VKL_LOG_ERROR, "loader_get_json: Failed to open JSON file /road/to/nowhere.json"),
              "[Vulkan Loader] ERROR:          loader_get_json: Failed to open JSON file "
              "/road/to/nowhere.json\n");
    EXPECT_EQ(Format(VKL_LOG_INFO, "m"), "[Vulkan Loader] INFO:           m\n");
    EXPECT_EQ(Format(VKL_LOG_WARN, "m"), "[Vulkan Loader] WARNING:        m\n");
    EXPECT_EQ(Format(VKL_LOG_DEBUG, "m"), "[Vulkan Loader] DEBUG:          m\n");
    EXPECT_EQ(Format(VKL_LOG_ERROR, "m").find('m'), 32u);
}

TEST(LogFormat, SeverityAndCategory) {
    EXPECT_EQ(Format(VKL_LOG_WARN | VKL_LOG_DRIVER, "Driver \"x.json\" ignored"),
              "[Vulkan Loader] WARNING | DRIVER: Driver \"x.json\" ignored\n");
    EXPECT_EQ(Format(VKL_LOG_DEBUG | VKL_LOG_LAYER, "m"), "[Vulkan Loader] DEBUG | LAYER:  m\n");
    EXPECT_EQ(Format(VKL_LOG_INFO | VKL_LOG_PERF | VKL_LOG_DRIVER, "m"), "[Vulkan Loader] INFO | PERF:    m\n");
    // first severity wins (ERROR, WARNING, INFO, DEBUG), first category (PERF, DRIVER, LAYER)
    EXPECT_EQ(Format(VKL_LOG_ERROR | VKL_LOG_WARN | VKL_LOG_DRIVER | VKL_LOG_LAYER, "m"),
              "[Vulkan Loader] ERROR | DRIVER: m\n");
}

TEST(LogFormat, CategoryOnlyAndNeither) {
    EXPECT_EQ(Format(VKL_LOG_LAYER, "m"), "[Vulkan Loader] LAYER:          m\n");
    EXPECT_EQ(Format(0, "m"), "[Vulkan Loader] :               m\n");
}

TEST(LogFormat, MessageCutAt511BytesOnUtf8Boundary) {
    std::string longmsg(600, 'a');
    std::string line = Format(VKL_LOG_ERROR, longmsg.c_str());
    EXPECT_EQ(line.size(), 32u + VKL_LOG_MAX_MESSAGE + 1);
    // "é" (2 bytes) straddling byte 511 is dropped whole
    std::string utf = std::string(510, 'b') + "\xc3\xa9" + "tail";
    line = Format(VKL_LOG_ERROR, utf.c_str());
    EXPECT_EQ(line, std::string("[Vulkan Loader] ERROR:          ") + std::string(510, 'b') + "\n");
}

TEST(LogFormat, SmallBufferTruncatesAndTerminates) {
    char buf[10];
    size_t n = vkl_log_format_line(buf, sizeof(buf), VKL_LOG_ERROR, "message");
    EXPECT_EQ(n, 9u);
    EXPECT_STREQ(buf, "[Vulkan L");
    EXPECT_EQ(vkl_log_format_line(nullptr, 0, VKL_LOG_ERROR, "x"), 0u);
}

TEST(Log, SinkAlwaysGetsMessageStderrFiltered) {
    vkl_log_set_level_for_testing(0);
    Captured cap;
    vkl_log_sink sink = cap.sink();
    testing::internal::CaptureStderr();
    vkl_log(&sink, VKL_LOG_INFO | VKL_LOG_DRIVER, "driver %s: %d", "x", 42);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
    ASSERT_EQ(cap.lines.size(), 1u);
    EXPECT_EQ(cap.lines[0].first, VKL_LOG_INFO | VKL_LOG_DRIVER);
    EXPECT_EQ(cap.lines[0].second, "driver x: 42"); // no header for sinks
}

TEST(Log, StderrWhenAnyBitOverlaps) {
    vkl_log_set_level_for_testing(VKL_LOG_DRIVER);
    testing::internal::CaptureStderr();
    vkl_log(nullptr, VKL_LOG_INFO | VKL_LOG_DRIVER, "a");
    vkl_log(nullptr, VKL_LOG_ERROR, "b"); // no DRIVER bit: filtered
    vkl_log(nullptr, VKL_LOG_DEBUG | VKL_LOG_LAYER, "c");
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "[Vulkan Loader] INFO | DRIVER:  a\n");

    vkl_log_set_level_for_testing(VKL_LOG_WARN);
    testing::internal::CaptureStderr();
    vkl_log(nullptr, VKL_LOG_WARN | VKL_LOG_LAYER, "d");
    vkl_log(nullptr, VKL_LOG_INFO | VKL_LOG_LAYER, "e");
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "[Vulkan Loader] WARNING | LAYER: d\n");

    vkl_log_set_level_for_testing(VKL_LOG_ALL);
    EXPECT_EQ(vkl_log_level(), VKL_LOG_ALL);
    vkl_log_sink empty{nullptr, nullptr}; // a sink without emit is ignored
    testing::internal::CaptureStderr();
    vkl_log(&empty, VKL_LOG_DEBUG, "f");
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "[Vulkan Loader] DEBUG:          f\n");
    vkl_log_set_level_for_testing(0);
}

TEST(Log, LongFormattedMessageIsCut) {
    vkl_log_set_level_for_testing(0);
    Captured cap;
    vkl_log_sink sink = cap.sink();
    std::string big(5000, 'z');
    vkl_log(&sink, VKL_LOG_ERROR, "%s", big.c_str());
    ASSERT_EQ(cap.lines.size(), 1u);
    EXPECT_EQ(cap.lines[0].second, std::string(VKL_LOG_MAX_MESSAGE, 'z'));
}

// A cut line keeps its trailing rule ID (long lines are paths; tests and readers look for the ID).
TEST(Log, CutMessageKeepsRuleId) {
    vkl_log_set_level_for_testing(0);
    Captured cap;
    vkl_log_sink sink = cap.sink();
    std::string p1 = "/" + std::string(300, 'a'), p2 = "/" + std::string(300, 'b');
    vkl_log(&sink, VKL_LOG_WARN, "layer X: manifest %s ignored, already found in %s [LLP_LOADER_3]", p1.c_str(),
            p2.c_str());
    ASSERT_EQ(cap.lines.size(), 1u);
    const std::string &m = cap.lines[0].second;
    EXPECT_EQ(m.size(), (size_t)VKL_LOG_MAX_MESSAGE);
    EXPECT_EQ(m.substr(0, 30), ("layer X: manifest " + p1).substr(0, 30));
    const std::string tail = "... [LLP_LOADER_3]";
    EXPECT_EQ(m.substr(m.size() - tail.size()), tail);
    // A path longer than the whole message still leaves the ID.
    std::string huge = "/" + std::string(4000, 'c');
    vkl_log(&sink, VKL_LOG_WARN, "x %s: unreadable [RULE_X]", huge.c_str());
    EXPECT_EQ(cap.lines.back().second.substr(cap.lines.back().second.size() - 12), "... [RULE_X]");
    // Brackets that are not a trailing ID are cut like any text; short lines are untouched.
    char out[VKL_LOG_MAX_MESSAGE + 1];
    vkl_log_cut_message(out, (std::string(600, 'q') + " [has space]").c_str());
    EXPECT_EQ(std::string(out), std::string(VKL_LOG_MAX_MESSAGE, 'q'));
    vkl_log_cut_message(out, "short [ID]");
    EXPECT_EQ(std::string(out), "short [ID]");
}

// Cuts fall on UTF-8 character boundaries, but invalid UTF-8 (stray continuation bytes) is cut as
// bytes: a run of continuation bytes must not make the cut step back over the whole message.
TEST(Log, CutInvalidUtf8KeepsFullLength) {
    char out[VKL_LOG_MAX_MESSAGE + 1];
    const size_t M = VKL_LOG_MAX_MESSAGE;
    // 600 continuation bytes: nothing to step back to, cut at the limit.
    vkl_log_cut_message(out, std::string(600, '\x80').c_str());
    EXPECT_EQ(strlen(out), M);
    // ASCII then stray continuation bytes across the cut: no character is split, cut at the limit.
    std::string s = std::string(M - 1, 'a') + std::string(100, '\xbf');
    vkl_log_cut_message(out, s.c_str());
    EXPECT_EQ(std::string(out), s.substr(0, M));
    // An over-long run after a real lead byte is not a character either.
    s = std::string(M - 5, 'a') + "\xc3" + std::string(100, '\x80');
    vkl_log_cut_message(out, s.c_str());
    EXPECT_EQ(strlen(out), M);
    // The stderr line format uses the same cut.
    std::string line = Format(VKL_LOG_ERROR, std::string(700, '\x80').c_str());
    EXPECT_EQ(line.size(), 32 + M + 1);
}

TEST(Log, CutValidUtf8AtCharacterBoundary) {
    char out[VKL_LOG_MAX_MESSAGE + 1];
    const size_t M = VKL_LOG_MAX_MESSAGE;
    // A 2-byte character straddling the cut is dropped whole.
    std::string s = std::string(M - 1, 'a') + "\xc3\xa9" + "tail";
    vkl_log_cut_message(out, s.c_str());
    EXPECT_EQ(std::string(out), std::string(M - 1, 'a'));
    // A 2-byte character ending exactly at the cut is kept.
    s = std::string(M - 2, 'a') + "\xc3\xa9" + "tail";
    vkl_log_cut_message(out, s.c_str());
    EXPECT_EQ(std::string(out), std::string(M - 2, 'a') + "\xc3\xa9");
    // A 4-byte character whose first byte is 2 before the cut.
    s = std::string(M - 2, 'a') + "\xf0\x9f\x98\x80" + "tail";
    vkl_log_cut_message(out, s.c_str());
    EXPECT_EQ(std::string(out), std::string(M - 2, 'a'));
    // A 3-byte character whose last byte is the last one kept.
    s = std::string(M - 3, 'a') + "\xe2\x82\xac" + "tail";
    vkl_log_cut_message(out, s.c_str());
    EXPECT_EQ(std::string(out), std::string(M - 3, 'a') + "\xe2\x82\xac");
}

// vkl_log_init reads VK_LOADER_DEBUG once per process: check it in a fresh process (the
// "threadsafe" death-test style re-executes the test binary).
TEST(LogDeathTest, InitReadsVkLoaderDebugOnce) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            setenv("VK_LOADER_DEBUG", "warn,driver", 1);
            vkl_log_init();
            setenv("VK_LOADER_DEBUG", "all", 1); // read once: later changes do not count
            vkl_log_init();
            std::exit(vkl_log_level() == (VKL_LOG_WARN | VKL_LOG_DRIVER) ? 7 : 1);
        },
        testing::ExitedWithCode(7), "");
    EXPECT_EXIT(
        {
            unsetenv("VK_LOADER_DEBUG");
            std::exit(vkl_log_level() == 0 ? 7 : 1); // first use initialises; unset = nothing
        },
        testing::ExitedWithCode(7), "");
}

} // namespace
