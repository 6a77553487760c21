// A structural check of a SARIF 2.1.0 log against the OASIS SARIF 2.1.0 specification and its JSON
// schema (sarif-schema-2.1.0.json), for the objects the checkers write: required properties,
// types, enumerations, no properties the schema does not define ("additionalProperties": false),
// URI references, and the cross-references the specification requires (result.ruleIndex ->
// tool.driver.rules[i].id == result.ruleId, artifactLocation.index -> artifacts[i] with the same
// uri, originalUriBaseIds absolute and ending in '/'; kind other than "fail" only with level
// "none", SARIF 3.27.9/3.27.10). No network: written from the specification, test code only.
#ifndef CHK_SARIF_CHECK_H_
#define CHK_SARIF_CHECK_H_

#include <cctype>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "conformance/framework/json.h"

namespace chk {

class SarifChecker {
  public:
    // Every violation found, each with its JSON path; empty when the log is well-formed.
    std::vector<std::string> Check(const vkt::Json &log) {
        errors_.clear();
        if (!log.is_object()) return Err("$", "not a JSON object"), errors_;
        Keys(log, "$", {"$schema", "version", "runs", "inlineExternalProperties", "properties"});
        if (!log["version"].is_string() || log["version"].str() != "2.1.0") Err("$.version", "must be \"2.1.0\"");
        if (log.has("$schema") && !IsUriRef(log["$schema"])) Err("$.$schema", "not a URI");
        if (!log["runs"].is_array()) return Err("$.runs", "required array"), errors_;
        for (size_t r = 0; r < log["runs"].size(); r++) Run(log["runs"][r], "$.runs[" + std::to_string(r) + "]");
        return errors_;
    }

  private:
    std::vector<std::string> errors_;
    void Err(const std::string &path, const std::string &what) { errors_.push_back(path + ": " + what); }

    void Keys(const vkt::Json &o, const std::string &path, const std::set<std::string> &allowed) {
        for (const auto &k : o.keys())
            if (!allowed.count(k)) Err(path, "property '" + k + "' is not defined by SARIF 2.1.0");
        if (o.has("properties")) PropertyBag(o["properties"], path + ".properties");
    }

    void PropertyBag(const vkt::Json &p, const std::string &path) {
        if (!p.is_object()) return Err(path, "propertyBag must be an object");
        if (p.has("tags")) {
            if (!p["tags"].is_array()) return Err(path + ".tags", "must be an array");
            std::set<std::string> seen;
            for (size_t i = 0; i < p["tags"].size(); i++) {
                if (!p["tags"][i].is_string()) Err(path + ".tags", "tags must be strings");
                if (!seen.insert(p["tags"][i].str()).second) Err(path + ".tags", "tags must be unique");
            }
        }
    }

    static bool IsUriRef(const vkt::Json &v) {
        if (!v.is_string()) return false;
        const std::string s = v.str();
        static const std::string ok =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%";
        for (size_t i = 0; i < s.size(); i++) {
            if (ok.find(s[i]) == std::string::npos) return false;
            if (s[i] == '%' && (i + 2 >= s.size() || !isxdigit(static_cast<unsigned char>(s[i + 1])) ||
                                !isxdigit(static_cast<unsigned char>(s[i + 2]))))
                return false;
        }
        return true;
    }
    static bool IsAbsoluteUri(const std::string &s) {
        size_t colon = s.find(':');
        if (colon == std::string::npos || colon == 0 || !isalpha(static_cast<unsigned char>(s[0]))) return false;
        for (size_t i = 0; i < colon; i++)
            if (!isalnum(static_cast<unsigned char>(s[i])) && s[i] != '+' && s[i] != '-' && s[i] != '.') return false;
        return true;
    }
    static bool IsInt(const vkt::Json &v, int64_t min) {
        if (!v.is_number()) return false;
        std::string d = v.dump();
        return d.find_first_of(".eE") == std::string::npos && v.num() >= min;
    }

    void Message(const vkt::Json &m, const std::string &path) {
        if (!m.is_object()) return Err(path, "message must be an object");
        Keys(m, path, {"text", "markdown", "id", "arguments", "properties"});
        if (!m.has("text") && !m.has("id")) Err(path, "message needs text or id");
        if (m.has("text") && !m["text"].is_string()) Err(path + ".text", "must be a string");
    }
    void MultiformatString(const vkt::Json &m, const std::string &path) {
        if (!m.is_object()) return Err(path, "multiformatMessageString must be an object");
        Keys(m, path, {"text", "markdown", "properties"});
        if (!m["text"].is_string()) Err(path + ".text", "required string");
        if (m.has("markdown") && !m["markdown"].is_string()) Err(path + ".markdown", "must be a string");
    }
    void Level(const vkt::Json &v, const std::string &path) {
        static const std::set<std::string> levels = {"none", "note", "warning", "error"};
        if (!v.is_string() || !levels.count(v.str())) Err(path, "level must be none, note, warning or error");
    }

    // artifactLocation; `artifacts` to resolve index against (may be invalid Json).
    void ArtifactLocation(const vkt::Json &a, const std::string &path, const vkt::Json &artifacts) {
        if (!a.is_object()) return Err(path, "artifactLocation must be an object");
        Keys(a, path, {"uri", "uriBaseId", "index", "description", "properties"});
        if (a.has("uri") && !IsUriRef(a["uri"])) Err(path + ".uri", "not a URI reference: " + a["uri"].dump());
        if (a.has("uriBaseId") && !a["uriBaseId"].is_string()) Err(path + ".uriBaseId", "must be a string");
        if (a.has("uri") && !a.has("uriBaseId") && !IsAbsoluteUri(a["uri"].str()))
            Err(path + ".uri", "a relative URI needs a uriBaseId");
        if (a.has("index")) {
            if (!IsInt(a["index"], -1)) {
                Err(path + ".index", "must be an integer >= -1");
            } else if (artifacts.valid() && a["index"].num() >= 0) {
                size_t i = static_cast<size_t>(a["index"].num());
                if (i >= artifacts.size())
                    Err(path + ".index", "no such artifact");
                else if (a.has("uri") && artifacts[i]["location"]["uri"].str() != a["uri"].str())
                    Err(path + ".index", "artifact " + std::to_string(i) + " has another uri");
            }
        }
    }

    void Region(const vkt::Json &r, const std::string &path) {
        if (!r.is_object()) return Err(path, "region must be an object");
        Keys(r, path,
             {"startLine", "startColumn", "endLine", "endColumn", "charOffset", "charLength", "byteOffset",
              "byteLength", "snippet", "message", "sourceLanguage", "properties"});
        for (const char *k : {"startLine", "startColumn", "endLine", "endColumn"})
            if (r.has(k) && !IsInt(r[k], 1)) Err(path + "." + k, "must be an integer >= 1");
    }

    void Location(const vkt::Json &l, const std::string &path, const vkt::Json &artifacts) {
        if (!l.is_object()) return Err(path, "location must be an object");
        Keys(l, path,
             {"id", "physicalLocation", "logicalLocations", "message", "annotations", "relationships", "properties"});
        if (l.has("message")) Message(l["message"], path + ".message");
        if (!l.has("physicalLocation")) return;
        const vkt::Json p = l["physicalLocation"];
        const std::string pp = path + ".physicalLocation";
        if (!p.is_object()) return Err(pp, "must be an object");
        Keys(p, pp, {"address", "artifactLocation", "region", "contextRegion", "properties"});
        if (!p.has("address") && !p.has("artifactLocation")) Err(pp, "needs address or artifactLocation");
        if (p.has("artifactLocation")) ArtifactLocation(p["artifactLocation"], pp + ".artifactLocation", artifacts);
        if (p.has("region")) Region(p["region"], pp + ".region");
    }

    void Run(const vkt::Json &run, const std::string &path) {
        if (!run.is_object()) return Err(path, "run must be an object");
        Keys(run, path,
             {"tool",
              "invocations",
              "conversion",
              "language",
              "versionControlProvenance",
              "originalUriBaseIds",
              "artifacts",
              "logicalLocations",
              "graphs",
              "results",
              "automationDetails",
              "runAggregates",
              "baselineGuid",
              "redactionTokens",
              "defaultEncoding",
              "defaultSourceLanguage",
              "newlineSequences",
              "columnKind",
              "externalPropertyFileReferences",
              "threadFlowLocations",
              "taxonomies",
              "addresses",
              "translations",
              "policies",
              "webRequests",
              "webResponses",
              "specialLocations",
              "properties"});
        const vkt::Json tool = run["tool"];
        if (!tool.is_object()) return Err(path + ".tool", "required object");
        Keys(tool, path + ".tool", {"driver", "extensions", "properties"});
        const vkt::Json d = tool["driver"];
        const std::string dp = path + ".tool.driver";
        if (!d.is_object()) return Err(dp, "required object");
        Keys(d, dp,
             {"guid",
              "name",
              "organization",
              "product",
              "productSuite",
              "shortDescription",
              "fullDescription",
              "fullName",
              "version",
              "semanticVersion",
              "dottedQuadFileVersion",
              "releaseDateUtc",
              "downloadUri",
              "informationUri",
              "globalMessageStrings",
              "notifications",
              "rules",
              "taxa",
              "locations",
              "language",
              "contents",
              "isComprehensive",
              "localizedDataSemanticVersion",
              "minimumRequiredLocalizedDataSemanticVersion",
              "associatedComponent",
              "translationMetadata",
              "supportedTaxonomies",
              "properties"});
        if (!d["name"].is_string() || d["name"].str().empty()) Err(dp + ".name", "required non-empty string");
        for (const char *k : {"version", "semanticVersion"})
            if (d.has(k) && !d[k].is_string()) Err(dp + "." + k, "must be a string");
        if (d.has("informationUri") && !IsUriRef(d["informationUri"])) Err(dp + ".informationUri", "not a URI");
        std::vector<std::string> rule_ids;
        if (d.has("rules")) {
            if (!d["rules"].is_array()) Err(dp + ".rules", "must be an array");
            std::set<std::string> ids;
            for (size_t i = 0; i < d["rules"].size(); i++) {
                const vkt::Json r = d["rules"][i];
                const std::string rp = dp + ".rules[" + std::to_string(i) + "]";
                if (!r.is_object()) {
                    Err(rp, "must be an object");
                    rule_ids.push_back("");
                    continue;
                }
                Keys(r, rp,
                     {"id", "deprecatedIds", "guid", "deprecatedGuids", "name", "deprecatedNames", "shortDescription",
                      "fullDescription", "messageStrings", "defaultConfiguration", "helpUri", "help", "relationships",
                      "properties"});
                if (!r["id"].is_string() || r["id"].str().empty()) Err(rp + ".id", "required non-empty string");
                if (!ids.insert(r["id"].str()).second) Err(rp + ".id", "duplicate rule id " + r["id"].str());
                rule_ids.push_back(r["id"].str());
                if (r.has("name") && !r["name"].is_string()) Err(rp + ".name", "must be a string");
                for (const char *k : {"shortDescription", "fullDescription", "help"})
                    if (r.has(k)) MultiformatString(r[k], rp + "." + k);
                if (r.has("helpUri") && !IsUriRef(r["helpUri"])) Err(rp + ".helpUri", "not a URI");
                if (r.has("defaultConfiguration")) {
                    const vkt::Json c = r["defaultConfiguration"];
                    Keys(c, rp + ".defaultConfiguration", {"enabled", "level", "rank", "parameters", "properties"});
                    if (c.has("level")) Level(c["level"], rp + ".defaultConfiguration.level");
                    if (c.has("enabled") && !c["enabled"].is_bool())
                        Err(rp + ".defaultConfiguration.enabled", "must be bool");
                }
            }
        }
        if (run.has("originalUriBaseIds")) {
            const vkt::Json b = run["originalUriBaseIds"];
            if (!b.is_object()) Err(path + ".originalUriBaseIds", "must be an object");
            for (const auto &k : b.keys()) {
                const std::string bp = path + ".originalUriBaseIds." + k;
                ArtifactLocation(b[k], bp, vkt::Json());
                std::string u = b[k]["uri"].str();
                if (!b[k].has("uriBaseId") && (!IsAbsoluteUri(u) || u.empty() || u.back() != '/'))
                    Err(bp + ".uri", "must be an absolute URI ending in '/' (SARIF 3.14.14)");
            }
        }
        const vkt::Json artifacts = run["artifacts"];
        if (run.has("artifacts")) {
            if (!artifacts.is_array()) Err(path + ".artifacts", "must be an array");
            static const std::set<std::string> roles = {"analysisTarget",
                                                        "attachment",
                                                        "responseFile",
                                                        "resultFile",
                                                        "standardStream",
                                                        "tracedFile",
                                                        "unmodified",
                                                        "modified",
                                                        "added",
                                                        "deleted",
                                                        "renamed",
                                                        "uncontrolled",
                                                        "driver",
                                                        "extension",
                                                        "translation",
                                                        "taxonomy",
                                                        "policy",
                                                        "referencedOnCommandLine",
                                                        "memoryContents",
                                                        "directory",
                                                        "userSpecifiedConfiguration",
                                                        "toolSpecifiedConfiguration",
                                                        "debugOutputFile"};
            for (size_t i = 0; i < artifacts.size(); i++) {
                const vkt::Json a = artifacts[i];
                const std::string ap = path + ".artifacts[" + std::to_string(i) + "]";
                Keys(a, ap,
                     {"location", "parentIndex", "offset", "length", "roles", "mimeType", "contents", "encoding",
                      "sourceLanguage", "hashes", "lastModifiedTimeUtc", "description", "properties"});
                if (a.has("location")) ArtifactLocation(a["location"], ap + ".location", artifacts);
                for (size_t k = 0; k < a["roles"].size(); k++)
                    if (!roles.count(a["roles"][k].str())) Err(ap + ".roles", "unknown role " + a["roles"][k].dump());
            }
        }
        if (run.has("invocations")) {
            if (!run["invocations"].is_array()) Err(path + ".invocations", "must be an array");
            for (size_t i = 0; i < run["invocations"].size(); i++) {
                const vkt::Json inv = run["invocations"][i];
                const std::string ip = path + ".invocations[" + std::to_string(i) + "]";
                Keys(inv, ip,
                     {"commandLine",
                      "arguments",
                      "responseFiles",
                      "startTimeUtc",
                      "endTimeUtc",
                      "exitCode",
                      "ruleConfigurationOverrides",
                      "notificationConfigurationOverrides",
                      "toolExecutionNotifications",
                      "toolConfigurationNotifications",
                      "exitCodeDescription",
                      "exitSignalName",
                      "exitSignalNumber",
                      "processStartFailureMessage",
                      "executionSuccessful",
                      "machine",
                      "account",
                      "processId",
                      "executableLocation",
                      "workingDirectory",
                      "environmentVariables",
                      "stdin",
                      "stdout",
                      "stderr",
                      "stdoutStderr",
                      "properties"});
                if (!inv["executionSuccessful"].is_bool()) Err(ip + ".executionSuccessful", "required boolean");
                if (inv.has("exitCode") && !IsInt(inv["exitCode"], INT32_MIN))
                    Err(ip + ".exitCode", "must be an integer");
                for (const char *k : {"toolExecutionNotifications", "toolConfigurationNotifications"}) {
                    for (size_t n = 0; n < inv[k].size(); n++) {
                        const vkt::Json no = inv[k][n];
                        const std::string np = ip + "." + k + "[" + std::to_string(n) + "]";
                        Keys(no, np,
                             {"locations", "message", "level", "threadId", "timeUtc", "exception", "descriptor",
                              "associatedRule", "properties"});
                        Message(no["message"], np + ".message");
                        if (no.has("level")) Level(no["level"], np + ".level");
                        for (size_t l = 0; l < no["locations"].size(); l++)
                            Location(no["locations"][l], np + ".locations[" + std::to_string(l) + "]", artifacts);
                    }
                }
            }
        }
        if (run.has("results")) {
            if (!run["results"].is_array()) return Err(path + ".results", "must be an array");
            static const std::set<std::string> kinds = {"notApplicable", "pass", "fail",
                                                        "review",        "open", "informational"};
            for (size_t i = 0; i < run["results"].size(); i++) {
                const vkt::Json r = run["results"][i];
                const std::string rp = path + ".results[" + std::to_string(i) + "]";
                if (!r.is_object()) {
                    Err(rp, "must be an object");
                    continue;
                }
                Keys(r, rp,
                     {"ruleId",
                      "ruleIndex",
                      "rule",
                      "kind",
                      "level",
                      "message",
                      "analysisTarget",
                      "locations",
                      "guid",
                      "correlationGuid",
                      "occurrenceCount",
                      "partialFingerprints",
                      "fingerprints",
                      "stacks",
                      "codeFlows",
                      "graphs",
                      "graphTraversals",
                      "relatedLocations",
                      "suppressions",
                      "baselineState",
                      "rank",
                      "attachments",
                      "hostedViewerUri",
                      "workItemUris",
                      "provenance",
                      "fixes",
                      "taxa",
                      "webRequest",
                      "webResponse",
                      "properties"});
                Message(r["message"], rp + ".message");
                if (r.has("ruleId") && !r["ruleId"].is_string()) Err(rp + ".ruleId", "must be a string");
                if (r.has("ruleIndex")) {
                    if (!IsInt(r["ruleIndex"], -1)) {
                        Err(rp + ".ruleIndex", "must be an integer >= -1");
                    } else if (r["ruleIndex"].num() >= 0) {
                        size_t k = static_cast<size_t>(r["ruleIndex"].num());
                        if (k >= rule_ids.size())
                            Err(rp + ".ruleIndex", "no such rule");
                        else if (r.has("ruleId") && rule_ids[k] != r["ruleId"].str())
                            Err(rp + ".ruleIndex",
                                "rules[" + std::to_string(k) + "].id is not the ruleId (SARIF 3.27.6)");
                    }
                }
                if (!r.has("ruleId") && !r.has("ruleIndex") && !r.has("rule"))
                    Err(rp, "needs ruleId, ruleIndex or rule");
                if (r.has("kind") && (!r["kind"].is_string() || !kinds.count(r["kind"].str())))
                    Err(rp + ".kind", "unknown kind " + r["kind"].dump());
                if (r.has("level")) Level(r["level"], rp + ".level");
                if (r.has("kind") && r["kind"].str() != "fail" && r.has("level") && r["level"].str() != "none")
                    Err(rp, "a kind other than \"fail\" needs level \"none\" (SARIF 3.27.9)");
                if (r.has("locations")) {
                    if (!r["locations"].is_array()) Err(rp + ".locations", "must be an array");
                    for (size_t l = 0; l < r["locations"].size(); l++)
                        Location(r["locations"][l], rp + ".locations[" + std::to_string(l) + "]", artifacts);
                }
                for (const char *k : {"partialFingerprints", "fingerprints"}) {
                    if (!r.has(k)) continue;
                    if (!r[k].is_object()) Err(rp + "." + k, "must be an object");
                    for (const auto &fk : r[k].keys())
                        if (!r[k][fk].is_string()) Err(rp + "." + k + "." + fk, "must be a string");
                }
            }
        }
    }
};

} // namespace chk

#endif // CHK_SARIF_CHECK_H_
