// ldp-check's CI-facing output on mock drivers: --format=sarif (SARIF 2.1.0, checked structurally
// by chk::SarifChecker), --fail-on=warn / --fail-on=fail, and how a warn appears in JUnit.
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "conformance/checker_common/checker_output.h"
#include "conformance/framework/json.h"
#include "conformance/framework/policy.h"
#include "conformance/framework/process.h"
#include "conformance/framework/sandbox.h"
#include "gtest/gtest.h"

namespace {

struct CheckRun {
    int status = -1;
    std::string out, err;
};

CheckRun LdpCheck(const std::vector<std::string> &args, const std::string &cwd = "") {
    std::vector<std::string> argv = {vkt::Runfile("conformance/driver/ldp-check"),
                                     "--loader=" + vkt::Runfile("loader/libvulkan.so.1"),
                                     "--mock=" + vkt::Runfile("mock_icd/libmock_icd_v7.so"), "--timeout=20"};
    argv.insert(argv.end(), args.begin(), args.end());
    vkt::ProcessOptions options;
    options.cwd = cwd;
    vkt::ProcessResult p = vkt::RunProcess(argv, options);
    return {p.status, p.out, p.err};
}

// A v7 mock with `scenario`, its manifest named `name` in the sandbox's loose directory.
std::string Mock(vkt::Sandbox &sb, const std::string &name, const std::string &scenario) {
    const vkt::Driver &d = sb.AddDriver(name, "v7", scenario);
    return sb.WriteManifest(vkt::Location::kLoose, name + ".json",
                            "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" + d.library +
                                "\", \"api_version\": \"1.3.0\"}}\n");
}

const char kWarn10[] = R"({"misbehave": {"incompatible_for_api_2": true}})";             // LDP_DRIVER_10 warn
const char kFail10[] = R"({"misbehave": {"incompatible_for_any_api_above_1_0": true}})"; // LDP_DRIVER_10 fail

size_t Count(const std::string &s, const std::string &needle) {
    size_t n = 0;
    for (size_t p = s.find(needle); p != std::string::npos; p = s.find(needle, p + 1)) n++;
    return n;
}

// SARIF: every rule ldp-check knows (18, with the policy text and help), one result per fail or
// warn located at its manifest, I/O errors as notifications; valid per SARIF 2.1.0.
TEST(LdpCheckSarif, FindingsRulesAndLocations) {
    VKT_POLICY("LDP_DRIVER_10", "LDP_DRIVER_4");
    vkt::Sandbox sb;
    std::string warn = Mock(sb, "warn", kWarn10), fail = Mock(sb, "fail", kFail10);
    std::string missing = sb.root() + "/no such.json";
    CheckRun r = LdpCheck({"--format=sarif", "--check=LDP_DRIVER_4,LDP_DRIVER_10", warn, fail, missing});
    EXPECT_EQ(r.status, 2) << r.err; // the missing manifest is an I/O error
    vkt::Json log;
    ASSERT_NO_FATAL_FAILURE(chk::ParseValidSarif(r.out, &log));
    vkt::Json run = log["runs"][0];
    ASSERT_NO_FATAL_FAILURE(chk::ExpectSarifRules(run, "ldp-check", 18));
    vkt::Json rules = run["tool"]["driver"]["rules"];
    // The policy text comes from the policy table, with its source.
    chk::ExpectRuleText(rules[9], "At interface 5 or newer the driver must not fail", "LoaderDriverInterface.md");
    std::map<std::string, vkt::Json> by_uri;
    ASSERT_NO_FATAL_FAILURE(chk::SarifResultsByUri(run, 2, &by_uri));
    for (const auto &kv : by_uri) EXPECT_EQ(kv.second["ruleId"].str(), "LDP_DRIVER_10") << kv.first;
    ASSERT_TRUE(by_uri.count("file://" + warn)) << r.out;
    ASSERT_TRUE(by_uri.count("file://" + fail)) << r.out;
    EXPECT_EQ(by_uri["file://" + warn]["level"].str(), "warning");
    EXPECT_EQ(by_uri["file://" + fail]["level"].str(), "error");
    EXPECT_NE(by_uri["file://" + fail]["message"]["text"].str().find("VK_ERROR_INCOMPATIBLE_DRIVER"),
              std::string::npos);
    EXPECT_GT(by_uri["file://" + fail]["properties"]["evidence"].size(), 0u);
    chk::ExpectMissingFileNotification(run, "file://" + sb.root() + "/no%20such.json");
}

// A relative manifest path stays relative (against %SRCROOT%, the directory ldp-check ran in), so
// GitHub code scanning can place the finding on the file in the repository.
TEST(LdpCheckSarif, RelativeManifestPathIsRelativeToSrcRoot) {
    VKT_POLICY("LDP_DRIVER_10");
    vkt::Sandbox sb;
    std::string warn = Mock(sb, "warn", kWarn10);
    std::string dir = warn.substr(0, warn.rfind('/'));
    CheckRun r = LdpCheck({"--format=sarif", "--check=LDP_DRIVER_10", "warn.json"}, dir);
    EXPECT_EQ(r.status, 0) << r.err;
    vkt::Json log;
    ASSERT_NO_FATAL_FAILURE(chk::ParseValidSarif(r.out, &log));
    chk::ExpectRelativeToSrcRoot(log, "warn.json", dir);
}

// --fail-on=warn turns a warn into exit 1; the default (--fail-on=fail) does not. A fail exits 1
// either way; a bad value is a usage error.
TEST(LdpCheckFailOn, WarnFailsOnlyWhenAsked) {
    VKT_POLICY("LDP_DRIVER_10");
    vkt::Sandbox sb;
    std::string warn = Mock(sb, "warn", kWarn10), fail = Mock(sb, "fail", kFail10), good = Mock(sb, "good", "{}");
    for (const char *fmt : {"--format=table", "--format=json", "--format=junit", "--format=sarif"}) {
        SCOPED_TRACE(fmt);
        EXPECT_EQ(LdpCheck({fmt, "--check=LDP_DRIVER_10", warn}).status, 0);
        EXPECT_EQ(LdpCheck({fmt, "--fail-on=fail", "--check=LDP_DRIVER_10", warn}).status, 0);
        EXPECT_EQ(LdpCheck({fmt, "--fail-on=warn", "--check=LDP_DRIVER_10", warn}).status, 1);
        EXPECT_EQ(LdpCheck({fmt, "--fail-on=warn", "--check=LDP_DRIVER_10", good}).status, 0);
        EXPECT_EQ(LdpCheck({fmt, "--check=LDP_DRIVER_10", fail}).status, 1);
    }
    CheckRun bad = LdpCheck({"--fail-on=error", good});
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("unknown --fail-on 'error' (fail or warn)"), std::string::npos) << bad.err;
    EXPECT_EQ(LdpCheck({"--format=sarif2", good}).status, 2);
    // The SARIF log records the mode and the exit status.
    CheckRun s = LdpCheck({"--format=sarif", "--fail-on=warn", "--check=LDP_DRIVER_10", warn});
    chk::ExpectSarifFailOn(s.out, "warn", 1);
}

// JUnit: a warn is <skipped message="warn: ..."> by default (visible, not failing), a
// <failure type="warn"> with --fail-on=warn; every suite has the verdict counts as properties.
TEST(LdpCheckJunit, WarnIsVisible) {
    VKT_POLICY("LDP_DRIVER_10");
    vkt::Sandbox sb;
    std::string warn = Mock(sb, "warn", kWarn10);
    CheckRun d = LdpCheck({"--format=junit", "--check=LDP_DRIVER_4,LDP_DRIVER_10", warn});
    EXPECT_EQ(d.status, 0) << d.err;
    EXPECT_NE(d.out.find("tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"1\">"), std::string::npos) << d.out;
    EXPECT_NE(d.out.find("<skipped message=\"warn: at interface 7 it refuses apiVersion 2.0.0"), std::string::npos)
        << d.out;
    EXPECT_NE(d.out.find("<property name=\"verdict.warn\" value=\"1\"/>"), std::string::npos) << d.out;
    EXPECT_NE(d.out.find("<property name=\"verdict.pass\" value=\"1\"/>"), std::string::npos) << d.out;
    CheckRun w = LdpCheck({"--format=junit", "--fail-on=warn", "--check=LDP_DRIVER_4,LDP_DRIVER_10", warn});
    EXPECT_EQ(w.status, 1);
    EXPECT_NE(w.out.find("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\">"), std::string::npos) << w.out;
    EXPECT_NE(w.out.find("<failure message=\"warn: at interface 7 it refuses apiVersion 2.0.0"), std::string::npos)
        << w.out;
    EXPECT_NE(w.out.find("type=\"warn\"/>"), std::string::npos) << w.out;
    EXPECT_EQ(Count(w.out, "<failure "), 1u);
}

} // namespace
