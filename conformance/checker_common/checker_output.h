// What the policy checkers' tests (conformance/driver/ldp_check*_test.cc,
// conformance/layer_check/llp_check_test.cc) read from a checker's output, shared by them: the
// verdicts of a --format=json report, and the assertions on a --format=sarif log (well-formed per
// chk::SarifChecker, the rule list, results located at their manifests, I/O errors as
// notifications, relative locations against %SRCROOT%, the --fail-on mode). Test code only.
// The assertion helpers use googletest's fatal assertions: call them inside
// ASSERT_NO_FATAL_FAILURE(...) where the test must stop when one fails.
#ifndef CHK_CHECKER_OUTPUT_H_
#define CHK_CHECKER_OUTPUT_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "conformance/framework/json.h"
#include "conformance/framework/process.h"

namespace chk {

// One run of a checker: its exit status and output and, for --format=json, the report and the
// verdict, reason and evidence of every result of its first subject, by policy ID.
struct CheckerRun {
    int exit_status = -1;
    std::string out, err;
    vkt::Json json;
    std::map<std::string, std::string> verdict, reason;
    std::map<std::string, std::vector<std::string>> evidence;

    // Takes the exit status and output of the checker's process `p`; with `json`, parses the
    // report too (ParseJsonReport(subjects)).
    void Collect(const vkt::ProcessResult &p, bool json, const std::string &subjects);
    // Parses `out` as the JSON report and fills verdict/reason/evidence from
    // json[subjects][0]["results"] ("drivers" for ldp-check, "manifests" for llp-check).
    void ParseJsonReport(const std::string &subjects);
    // The exit status, every verdict with its reason (and, when asked, its evidence lines) and the
    // start of stderr: the message of a failed assertion.
    std::string Describe(bool with_evidence) const;
    // Whether a line of the evidence of `id` contains `text`.
    bool EvidenceHas(const std::string &id, const std::string &text) const;
};

// Parses `out` as a SARIF log into *log (fatal failure when it is not JSON) and adds a failure for
// every violation chk::SarifChecker finds.
void ParseValidSarif(const std::string &out, vkt::Json *log);

// run.tool.driver is named `tool` and has `count` rules (fatal when not), each with a short
// description, and a full description and help of more than 40 characters; with `id_prefix`, rule
// i has the ID id_prefix + (i + 1).
void ExpectSarifRules(const vkt::Json &run, const std::string &tool, size_t count, const std::string &id_prefix = "");

// The rule's full description holds `text` and names the document it comes from, `source`.
void ExpectRuleText(const vkt::Json &rule, const std::string &text, const std::string &source);

// run.results has `count` results (fatal when not), each with ruleIndex pointing at the rule named
// by its ruleId; *by_uri gets them by the URI of their first location.
void SarifResultsByUri(const vkt::Json &run, size_t count, std::map<std::string, vkt::Json> *by_uri);

// The run's invocation failed with exit status 2, its first tool execution notification saying
// "No such file or directory" at `uri`.
void ExpectMissingFileNotification(const vkt::Json &run, const std::string &uri);

// The first result of the log is located at the relative `uri` against %SRCROOT%, which is
// file://`dir`/.
void ExpectRelativeToSrcRoot(const vkt::Json &log, const std::string &uri, const std::string &dir);

// The SARIF log in `out` records --fail-on=`mode` and the exit status `exit_code`.
void ExpectSarifFailOn(const std::string &out, const std::string &mode, int exit_code);

} // namespace chk

#endif // CHK_CHECKER_OUTPUT_H_
