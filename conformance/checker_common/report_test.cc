// The shared report writers on hand-made subjects: SARIF 2.1.0 validated structurally, JUnit's warn
// representation under --fail-on=fail and --fail-on=warn, the exit status rule and file URIs.
#include "conformance/checker_common/report.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "conformance/checker_common/sarif_check.h"
#include "conformance/framework/json.h"
#include "gtest/gtest.h"

namespace {

const chk_rule kRules[] = {
    {"POL_1", "pol_1_name", "first rule", "The first policy (source: here).", "Fix the first thing."},
    {"POL_2", "", "second rule", "", ""},
    {"LINT_X", "lint_x", "a lint", "A lint.", "Advice."},
};

struct Fixture {
    std::vector<const char *> ev = {"call(x) = 1", "bytes \xff\xfe not UTF-8"};
    std::vector<chk_result> a, b;
    std::vector<chk_subject> subjects;
    chk_tool tool{"demo-check", "9.8.7", "https://example.invalid/docs", kRules, 3, CHK_FAIL_ON_FAIL};
    Fixture() {
        a = {{0, CHK_PASS, "fine", nullptr, 0, 0.1},
             {1, CHK_WARN, "advisory <thing> & \"quote\"", ev.data(), ev.size(), 0.2},
             {2, CHK_NOT_TESTABLE, "no device", nullptr, 0, 0.0}};
        b = {{0, CHK_FAIL, "broken", ev.data(), 1, 1.5}, {2, CHK_REMOVED, "withdrawn", nullptr, 0, 0.0}};
        subjects = {{"/abs/dir with space/drv.json", "/abs/libdrv.so", nullptr, a.data(), a.size()},
                    {"rel/drv2.json", nullptr, nullptr, b.data(), b.size()}};
    }
};

std::string Capture(const std::function<void(FILE *)> &fn) {
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fn(f);
    fclose(f);
    std::string s(buf, len);
    free(buf);
    return s;
}

size_t Count(const std::string &s, const std::string &needle) {
    size_t n = 0;
    for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) n++;
    return n;
}

TEST(ChkReport, VerdictNamesAndFailOn) {
    EXPECT_STREQ(chk_verdict_name(CHK_NOT_TESTABLE), "not-testable-here");
    chk_fail_on f;
    EXPECT_TRUE(chk_fail_on_parse("warn", &f));
    EXPECT_EQ(f, CHK_FAIL_ON_WARN);
    EXPECT_TRUE(chk_fail_on_parse("fail", &f));
    EXPECT_EQ(f, CHK_FAIL_ON_FAIL);
    EXPECT_FALSE(chk_fail_on_parse("error", &f));
    EXPECT_FALSE(chk_fail_on_parse("", &f));
    EXPECT_FALSE(chk_fail_on_parse(nullptr, &f));
    EXPECT_TRUE(chk_verdict_fails(CHK_FAIL, CHK_FAIL_ON_FAIL));
    EXPECT_FALSE(chk_verdict_fails(CHK_WARN, CHK_FAIL_ON_FAIL));
    EXPECT_TRUE(chk_verdict_fails(CHK_WARN, CHK_FAIL_ON_WARN));
    EXPECT_FALSE(chk_verdict_fails(CHK_NOT_TESTABLE, CHK_FAIL_ON_WARN));
}

TEST(ChkReport, ExitStatus) {
    Fixture fx;
    EXPECT_EQ(chk_exit_status(&fx.tool, fx.subjects.data(), 1), 0); // pass, warn, not-testable
    fx.tool.fail_on = CHK_FAIL_ON_WARN;
    EXPECT_EQ(chk_exit_status(&fx.tool, fx.subjects.data(), 1), 1);
    fx.tool.fail_on = CHK_FAIL_ON_FAIL;
    EXPECT_EQ(chk_exit_status(&fx.tool, fx.subjects.data(), 2), 1);
    fx.subjects[0].error = "gone";
    EXPECT_EQ(chk_exit_status(&fx.tool, fx.subjects.data(), 2), 2);
}

TEST(ChkReport, PathUri) {
    char buf[256];
    ASSERT_TRUE(chk_path_uri("/usr/share/vulkan/icd.d/x y.json", buf, sizeof buf));
    EXPECT_STREQ(buf, "file:///usr/share/vulkan/icd.d/x%20y.json");
    ASSERT_TRUE(chk_path_uri("icd/a:b%#?\xc3\xa9.json", buf, sizeof buf));
    EXPECT_STREQ(buf, "icd/a%3Ab%25%23%3F%C3%A9.json");
    EXPECT_FALSE(chk_path_uri("/a/very/long/path", buf, 8));
    EXPECT_EQ(std::string(buf).size(), 7u);
}

TEST(ChkReport, SarifIsStructurallyValid) {
    Fixture fx;
    fx.subjects.push_back({"/missing.json", nullptr, "/missing.json: No such file or directory", nullptr, 0});
    std::string text = Capture([&](FILE *f) { chk_write_sarif(f, &fx.tool, fx.subjects.data(), 3, "/work dir"); });
    vkt::Json log = vkt::Json::Parse(text);
    ASSERT_TRUE(log.valid()) << text;
    chk::SarifChecker checker;
    std::vector<std::string> errors = checker.Check(log);
    for (const auto &e : errors) ADD_FAILURE() << e;
    vkt::Json run = log["runs"][0];
    // One rule per rule the tool knows, with its texts.
    ASSERT_EQ(run["tool"]["driver"]["rules"].size(), 3u);
    EXPECT_EQ(run["tool"]["driver"]["name"].str(), "demo-check");
    EXPECT_EQ(run["tool"]["driver"]["rules"][0]["fullDescription"]["text"].str(), "The first policy (source: here).");
    EXPECT_EQ(run["tool"]["driver"]["rules"][0]["help"]["text"].str(), "Fix the first thing.");
    EXPECT_FALSE(run["tool"]["driver"]["rules"][1].has("name"));                       // an empty name is left out
    EXPECT_EQ(run["tool"]["driver"]["rules"][1]["help"]["text"].str(), "second rule"); // falls back to the title
    // One result per finding (warn, fail); pass / not-testable / removed are counted, not reported.
    ASSERT_EQ(run["results"].size(), 2u) << text;
    EXPECT_EQ(run["results"][0]["ruleId"].str(), "POL_2");
    EXPECT_EQ(run["results"][0]["level"].str(), "warning");
    EXPECT_EQ(run["results"][0]["message"]["text"].str(), "advisory <thing> & \"quote\"");
    EXPECT_EQ(run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].str(),
              "file:///abs/dir%20with%20space/drv.json");
    EXPECT_EQ(run["results"][0]["properties"]["evidence"][1].str(), "bytes \xef\xbf\xbd\xef\xbf\xbd not UTF-8");
    EXPECT_EQ(run["results"][1]["ruleId"].str(), "POL_1");
    EXPECT_EQ(run["results"][1]["level"].str(), "error");
    vkt::Json rel = run["results"][1]["locations"][0]["physicalLocation"]["artifactLocation"];
    EXPECT_EQ(rel["uri"].str(), "rel/drv2.json");
    EXPECT_EQ(rel["uriBaseId"].str(), "%SRCROOT%");
    EXPECT_EQ(run["originalUriBaseIds"]["%SRCROOT%"]["uri"].str(), "file:///work%20dir/");
    // The I/O error is a tool execution notification; the run did not succeed.
    EXPECT_FALSE(run["invocations"][0]["executionSuccessful"].boolean(true));
    EXPECT_EQ(run["invocations"][0]["exitCode"].num(), 2);
    EXPECT_EQ(run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"].str(),
              "/missing.json: No such file or directory");
    EXPECT_EQ(run["properties"]["verdicts"]["pass"].num(), 1);
    EXPECT_EQ(run["properties"]["verdicts"]["removed"].num(), 1);
}

// The checker itself must catch what it claims to: a few broken logs.
TEST(ChkReport, SarifCheckerRejectsBrokenLogs) {
    chk::SarifChecker c;
    auto errs = [&](const std::string &text) { return c.Check(vkt::Json::Parse(text)); };
    const std::string driver = R"("tool": {"driver": {"name": "t", "rules": [{"id": "A"}, {"id": "B"}]}})";
    EXPECT_TRUE(errs(R"({"version": "2.1.0", "runs": [{)" + driver + "}]}").empty());
    EXPECT_FALSE(errs(R"({"version": "2.0.0", "runs": [{)" + driver + "}]}").empty());
    EXPECT_FALSE(errs(R"({"version": "2.1.0"})").empty());
    EXPECT_FALSE(errs(R"({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]})").empty());
    EXPECT_FALSE(errs(R"({"version": "2.1.0", "runs": [{)" + driver + R"(, "results": [{"ruleId": "A"}]}]})").empty());
    EXPECT_FALSE(errs(R"({"version": "2.1.0", "runs": [{)" + driver +
                      R"(, "results": [{"ruleId": "A", "ruleIndex": 1, "message": {"text": "m"}}]}]})")
                     .empty());
    EXPECT_FALSE(errs(R"({"version": "2.1.0", "runs": [{)" + driver +
                      R"(, "results": [{"ruleId": "A", "level": "fatal", "message": {"text": "m"}}]}]})")
                     .empty());
    EXPECT_FALSE(
        errs(R"({"version": "2.1.0", "runs": [{)" + driver +
             R"(, "results": [{"ruleId": "A", "kind": "pass", "level": "error", "message": {"text": "m"}}]}]})")
            .empty());
    EXPECT_FALSE(errs(R"({"version": "2.1.0", "runs": [{)" + driver +
                      R"(, "results": [{"ruleId": "A", "message": {"text": "m"}, "locations": [{"physicalLocation":
                    {"artifactLocation": {"uri": "a b.json", "uriBaseId": "X"}}}]}]}]})")
                     .empty());
    EXPECT_FALSE(errs(R"({"version": "2.1.0", "runs": [{)" + driver + R"(, "colour": "red"}]})").empty());
}

TEST(ChkReport, JunitWarnIsSkippedByDefaultAndAFailureWithFailOnWarn) {
    Fixture fx;
    std::string x = Capture([&](FILE *f) { chk_write_junit(f, &fx.tool, fx.subjects.data(), 2); });
    EXPECT_NE(x.find("<testsuites name=\"demo-check\" tests=\"5\" failures=\"1\" errors=\"0\" skipped=\"3\">"),
              std::string::npos)
        << x;
    EXPECT_NE(x.find("<skipped message=\"warn: advisory &lt;thing&gt; &amp; &quot;quote&quot;\"/>"), std::string::npos)
        << x;
    EXPECT_NE(x.find("<failure message=\"broken\" type=\"fail\"/>"), std::string::npos) << x;
    EXPECT_NE(x.find("<property name=\"verdict.warn\" value=\"1\"/>"), std::string::npos) << x;
    EXPECT_NE(x.find("<property name=\"fail-on\" value=\"fail\"/>"), std::string::npos) << x;
    EXPECT_EQ(Count(x, "<testcase "), 5u);
    EXPECT_EQ(x.find("\xff"), std::string::npos);
    fx.tool.fail_on = CHK_FAIL_ON_WARN;
    std::string w = Capture([&](FILE *f) { chk_write_junit(f, &fx.tool, fx.subjects.data(), 2); });
    EXPECT_NE(w.find("tests=\"5\" failures=\"2\" errors=\"0\" skipped=\"2\">"), std::string::npos) << w;
    EXPECT_NE(w.find("<failure message=\"warn: advisory &lt;thing&gt;"), std::string::npos) << w;
    EXPECT_NE(w.find("type=\"warn\"/>"), std::string::npos) << w;
    EXPECT_EQ(w.find("<skipped message=\"warn:"), std::string::npos) << w;
}

} // namespace
