// The checkers' tests' reading of reports and SARIF logs (checker_output.h).
#include "conformance/checker_common/checker_output.h"

#include <sstream>

#include "conformance/checker_common/sarif_check.h"
#include "gtest/gtest.h"

namespace chk {

void CheckerRun::Collect(const vkt::ProcessResult &p, bool json, const std::string &subjects) {
    exit_status = p.status;
    out = p.out;
    err = p.err;
    if (json) ParseJsonReport(subjects);
}

void CheckerRun::ParseJsonReport(const std::string &subjects) {
    json = vkt::Json::Parse(out);
    vkt::Json results = json[subjects][0]["results"];
    for (size_t i = 0; i < results.size(); i++) {
        std::string id = results[i]["id"].str();
        verdict[id] = results[i]["verdict"].str();
        reason[id] = results[i]["reason"].str();
        evidence[id] = results[i]["evidence"].strings();
    }
}

std::string CheckerRun::Describe(bool with_evidence) const {
    std::ostringstream o;
    o << "exit " << exit_status << "\n";
    for (const auto &kv : verdict) {
        o << "  " << kv.first << " = " << kv.second << ": " << reason.at(kv.first) << "\n";
        if (with_evidence)
            for (const auto &e : evidence.at(kv.first)) o << "      | " << e << "\n";
    }
    o << "stderr: " << err.substr(0, 2000);
    return o.str();
}

bool CheckerRun::EvidenceHas(const std::string &id, const std::string &text) const {
    auto it = evidence.find(id);
    if (it == evidence.end()) return false;
    for (const auto &e : it->second)
        if (e.find(text) != std::string::npos) return true;
    return false;
}

void ParseValidSarif(const std::string &out, vkt::Json *log) {
    *log = vkt::Json::Parse(out);
    ASSERT_TRUE(log->valid()) << out;
    SarifChecker checker;
    for (const auto &e : checker.Check(*log)) ADD_FAILURE() << e << "\n" << out;
}

void ExpectSarifRules(const vkt::Json &run, const std::string &tool, size_t count, const std::string &id_prefix) {
    EXPECT_EQ(run["tool"]["driver"]["name"].str(), tool);
    vkt::Json rules = run["tool"]["driver"]["rules"];
    ASSERT_EQ(rules.size(), count) << run.dump();
    for (size_t i = 0; i < rules.size(); i++) {
        SCOPED_TRACE(rules[i]["id"].str());
        if (!id_prefix.empty()) {
            EXPECT_EQ(rules[i]["id"].str(), id_prefix + std::to_string(i + 1));
        }
        EXPECT_FALSE(rules[i]["shortDescription"]["text"].str().empty());
        EXPECT_GT(rules[i]["fullDescription"]["text"].str().size(), 40u);
        EXPECT_GT(rules[i]["help"]["text"].str().size(), 40u);
    }
}

void ExpectRuleText(const vkt::Json &rule, const std::string &text, const std::string &source) {
    EXPECT_NE(rule["fullDescription"]["text"].str().find(text), std::string::npos) << rule.dump();
    EXPECT_NE(rule["fullDescription"]["text"].str().find(source), std::string::npos) << rule.dump();
}

void SarifResultsByUri(const vkt::Json &run, size_t count, std::map<std::string, vkt::Json> *by_uri) {
    ASSERT_EQ(run["results"].size(), count) << run.dump();
    vkt::Json rules = run["tool"]["driver"]["rules"];
    for (size_t i = 0; i < count; i++) {
        vkt::Json res = run["results"][i];
        EXPECT_EQ(rules[static_cast<size_t>(res["ruleIndex"].num())]["id"].str(), res["ruleId"].str());
        (*by_uri)[res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].str()] = res;
    }
}

void ExpectMissingFileNotification(const vkt::Json &run, const std::string &uri) {
    vkt::Json inv = run["invocations"][0];
    EXPECT_FALSE(inv["executionSuccessful"].boolean(true));
    EXPECT_EQ(inv["exitCode"].num(), 2);
    EXPECT_NE(inv["toolExecutionNotifications"][0]["message"]["text"].str().find("No such file or directory"),
              std::string::npos)
        << inv.dump();
    EXPECT_EQ(inv["toolExecutionNotifications"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].str(),
              uri);
}

void ExpectRelativeToSrcRoot(const vkt::Json &log, const std::string &uri, const std::string &dir) {
    vkt::Json loc = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    EXPECT_EQ(loc["uri"].str(), uri) << log.dump();
    EXPECT_EQ(loc["uriBaseId"].str(), "%SRCROOT%");
    EXPECT_EQ(log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"].str(), "file://" + dir + "/");
}

void ExpectSarifFailOn(const std::string &out, const std::string &mode, int exit_code) {
    vkt::Json log = vkt::Json::Parse(out);
    EXPECT_EQ(log["runs"][0]["properties"]["failOn"].str(), mode) << out;
    EXPECT_EQ(log["runs"][0]["invocations"][0]["exitCode"].num(), exit_code);
}

} // namespace chk
