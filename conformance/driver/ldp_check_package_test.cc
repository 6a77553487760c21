// ldp-check --package=DIR on mock Fuchsia-style ICD packages (meta/metadata/metadata.json, the
// Khronos manifest and the library it names): one package per rule RULE_ICDPKG_1..7 that breaks
// it, a good package that passes every rule and every driver check, and the metadata parser on
// buffers (conformance/driver/package.h).
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "conformance/checker_common/sarif_check.h"
#include "conformance/driver/package.h"
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

CheckRun LdpCheck(const std::vector<std::string> &args) {
    std::vector<std::string> argv = {vkt::Runfile("conformance/driver/ldp-check"),
                                     "--loader=" + vkt::Runfile("loader/libvulkan.so.1"),
                                     "--mock=" + vkt::Runfile("mock_icd/libmock_icd_v7.so"), "--timeout=20"};
    argv.insert(argv.end(), args.begin(), args.end());
    vkt::ProcessResult p = vkt::RunProcess(argv);
    return {p.status, p.out, p.err};
}

void MkdirP(const std::string &path) {
    for (size_t p = 1; p != std::string::npos; p = path.find('/', p + 1)) mkdir(path.substr(0, p).c_str(), 0755);
    mkdir(path.c_str(), 0755);
}

void Write(const std::string &path, const std::string &text) {
    MkdirP(path.substr(0, path.rfind('/')));
    std::ofstream f(path, std::ios::binary);
    f << text;
}

void CopyFile(const std::string &from, const std::string &to) { Write(to, vkt::ReadFileText(from)); }

const char kManifest[] =
    "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"libvulkan_mock.so\", \"api_version\": "
    "\"1.3.0\"}}\n";

// A package directory: metadata.json with `metadata` (no file when empty), the manifest at
// `manifest_rel` and the v7 mock at `library_rel` (each left out when empty).
std::string Package(const std::string &name, const std::string &metadata,
                    const std::string &library_rel = "lib/libvulkan_mock.so",
                    const std::string &manifest_rel = "meta/icd.d/libvulkan_mock.json") {
    std::string dir = ::testing::TempDir() + "/packages/" + name;
    MkdirP(dir);
    if (!metadata.empty()) Write(dir + "/meta/metadata/metadata.json", metadata);
    if (!manifest_rel.empty()) Write(dir + "/" + manifest_rel, kManifest);
    if (!library_rel.empty()) CopyFile(vkt::Runfile("mock_icd/libmock_icd_v7.so"), dir + "/" + library_rel);
    return dir;
}

std::string Meta(const std::string &file_path = "\"lib/libvulkan_mock.so\"",
                 const std::string &manifest_path = "\"meta/icd.d/libvulkan_mock.json\"",
                 const std::string &version = "1") {
    std::string s = "{";
    if (!file_path.empty()) s += "\"file_path\": " + file_path + ", ";
    s += "\"version\": " + version;
    if (!manifest_path.empty()) s += ", \"manifest_path\": " + manifest_path;
    return s + "}\n";
}

struct PackageRun {
    CheckRun run;
    vkt::Json json;
    std::map<std::string, std::string> rules; // RULE_ICDPKG_n -> verdict
    std::map<std::string, std::string> reason;
    size_t drivers = 0;
};

// --format=json --package=dir, with only LDP_DRIVER_4 of the driver checks (they have their own
// tests; the good package runs them all).
PackageRun Check(const std::string &dir, std::vector<std::string> extra = {"--check=LDP_DRIVER_4"}) {
    extra.push_back("--format=json");
    extra.push_back("--package=" + dir);
    PackageRun p;
    p.run = LdpCheck(extra);
    p.json = vkt::Json::Parse(p.run.out);
    if (!p.json.valid()) return p;
    p.drivers = p.json["drivers"].size();
    vkt::Json res = p.json["drivers"][0]["results"];
    for (size_t i = 0; i < res.size(); i++) {
        p.rules[res[i]["id"].str()] = res[i]["verdict"].str();
        p.reason[res[i]["id"].str()] = res[i]["reason"].str();
    }
    return p;
}

#define DUMP(p) (p).run.out << (p).run.err

TEST(LdpCheckPackage, GoodPackagePassesEveryRuleAndEveryDriverCheck) {
    VKT_POLICY("RULE_ICDPKG_1", "RULE_ICDPKG_2", "RULE_ICDPKG_3", "RULE_ICDPKG_4", "RULE_ICDPKG_5", "RULE_ICDPKG_6",
               "RULE_ICDPKG_7", "LDP_DRIVER_1", "LDP_DRIVER_4");
    std::string dir = Package("good", Meta());
    PackageRun p = Check(dir, {});
    ASSERT_TRUE(p.json.valid()) << DUMP(p);
    EXPECT_EQ(p.run.status, 0) << DUMP(p);
    ASSERT_EQ(p.drivers, 2u) << DUMP(p);
    vkt::Json meta = p.json["drivers"][0];
    EXPECT_EQ(meta["manifest"].str(), dir + "/meta/metadata/metadata.json");
    EXPECT_EQ(meta["library"].str(), dir + "/lib/libvulkan_mock.so");
    ASSERT_EQ(p.rules.size(), 7u);
    for (int i = 1; i <= 7; i++) EXPECT_EQ(p.rules["RULE_ICDPKG_" + std::to_string(i)], "pass") << i << DUMP(p);
    // The driver checks ran on the package's manifest, with the package's library (file_path), not
    // the manifest's library_path (a bare name the loader service serves).
    vkt::Json drv = p.json["drivers"][1];
    EXPECT_EQ(drv["manifest"].str(), dir + "/meta/icd.d/libvulkan_mock.json");
    EXPECT_EQ(drv["library"].str(), dir + "/lib/libvulkan_mock.so");
    std::map<std::string, std::string> v;
    for (size_t i = 0; i < drv["results"].size(); i++)
        v[drv["results"][i]["id"].str()] = drv["results"][i]["verdict"].str();
    EXPECT_EQ(v.size(), 18u);
    for (const char *id : {"LDP_DRIVER_1", "LDP_DRIVER_2", "LDP_DRIVER_3", "LDP_DRIVER_4", "LDP_DRIVER_11"})
        EXPECT_EQ(v[id], "pass") << id << DUMP(p);
    EXPECT_NE(drv["results"][3]["evidence"].dump().find("ICD package: the library checked is the metadata's file_path"),
              std::string::npos)
        << DUMP(p);
}

TEST(LdpCheckPackage, Rule1MetadataMissingOrNotAnObject) {
    VKT_POLICY("RULE_ICDPKG_1");
    struct Case {
        const char *name;
        std::string metadata;
        const char *reason;
    } cases[] = {
        {"no_metadata", "", "does not exist"},
        {"not_json", "{\"version\": 1,", "not valid JSON"},
        {"array", "[1, 2]", "not an object"},
        {"empty", " ", "not valid JSON"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.name);
        std::string dir = Package(c.name, c.metadata == " " ? "" : c.metadata);
        if (c.metadata == " ") Write(dir + "/meta/metadata/metadata.json", "");
        PackageRun p = Check(dir);
        ASSERT_TRUE(p.json.valid()) << DUMP(p);
        EXPECT_EQ(p.run.status, 1) << DUMP(p);
        EXPECT_EQ(p.rules["RULE_ICDPKG_1"], "fail") << DUMP(p);
        EXPECT_NE(p.reason["RULE_ICDPKG_1"].find(c.reason), std::string::npos) << p.reason["RULE_ICDPKG_1"];
        for (int i = 2; i <= 7; i++) EXPECT_EQ(p.rules["RULE_ICDPKG_" + std::to_string(i)], "not-testable-here");
        EXPECT_EQ(p.drivers, 1u) << "no manifest to run the driver checks on";
    }
    // metadata.json a directory, and a FIFO: reported, never opened or waited on.
    std::string dir = Package("metadata_dir", "");
    MkdirP(dir + "/meta/metadata/metadata.json");
    PackageRun p = Check(dir);
    EXPECT_EQ(p.rules["RULE_ICDPKG_1"], "fail") << DUMP(p);
    EXPECT_NE(p.reason["RULE_ICDPKG_1"].find("a directory"), std::string::npos) << DUMP(p);
    dir = Package("metadata_fifo", "");
    MkdirP(dir + "/meta/metadata");
    ASSERT_EQ(mkfifo((dir + "/meta/metadata/metadata.json").c_str(), 0644), 0);
    p = Check(dir);
    EXPECT_EQ(p.rules["RULE_ICDPKG_1"], "fail") << DUMP(p);
    EXPECT_NE(p.reason["RULE_ICDPKG_1"].find("a FIFO"), std::string::npos) << DUMP(p);
}

TEST(LdpCheckPackage, Rule2VersionMustBeOne) {
    VKT_POLICY("RULE_ICDPKG_2");
    for (const std::string &v : {std::string("2"), std::string("\"1\""), std::string("1.5"), std::string("0")}) {
        SCOPED_TRACE(v);
        PackageRun p = Check(Package("version_" + std::to_string(std::hash<std::string>()(v)),
                                     Meta("\"lib/libvulkan_mock.so\"", "\"meta/icd.d/libvulkan_mock.json\"", v)));
        EXPECT_EQ(p.run.status, 1) << DUMP(p);
        EXPECT_EQ(p.rules["RULE_ICDPKG_2"], "fail") << DUMP(p);
        EXPECT_EQ(p.rules["RULE_ICDPKG_3"], "pass"); // the rest is still checked
        EXPECT_EQ(p.drivers, 2u);
    }
    PackageRun p = Check(Package("version_missing", "{\"file_path\": \"lib/libvulkan_mock.so\", \"manifest_path\": "
                                                    "\"meta/icd.d/libvulkan_mock.json\"}"));
    EXPECT_EQ(p.rules["RULE_ICDPKG_2"], "fail") << DUMP(p);
    EXPECT_NE(p.reason["RULE_ICDPKG_2"].find("missing"), std::string::npos);
}

TEST(LdpCheckPackage, Rule3BothPathsGiven) {
    VKT_POLICY("RULE_ICDPKG_3");
    struct Case {
        const char *name;
        std::string meta;
        const char *reason;
    } cases[] = {
        {"no_file_path", Meta("", "\"meta/icd.d/libvulkan_mock.json\""), "'file_path' (the driver library) is missing"},
        {"no_manifest_path", Meta("\"lib/libvulkan_mock.so\"", ""),
         "'manifest_path' (the Khronos ICD manifest) is missing"},
        {"number_path", Meta("7", "\"meta/icd.d/libvulkan_mock.json\""), "is a number, not a string"},
        {"empty_path", Meta("\"lib/libvulkan_mock.so\"", "\"\""), "is an empty string"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.name);
        PackageRun p = Check(Package(c.name, c.meta));
        EXPECT_EQ(p.run.status, 1) << DUMP(p);
        EXPECT_EQ(p.rules["RULE_ICDPKG_3"], "fail") << DUMP(p);
        EXPECT_NE(p.reason["RULE_ICDPKG_3"].find(c.reason), std::string::npos) << p.reason["RULE_ICDPKG_3"];
        EXPECT_EQ(p.drivers, 1u) << "the driver checks need both paths";
    }
}

TEST(LdpCheckPackage, Rule4PathsRelativeToContents) {
    VKT_POLICY("RULE_ICDPKG_4");
    struct Case {
        const char *name;
        std::string file_path;
        const char *reason;
    } cases[] = {
        {"absolute", "\"/usr/lib/libvulkan_mock.so\"", "is absolute"},
        {"dotdot", "\"lib/../../outside/libvulkan_mock.so\"", "'..' component"},
        {"dot", "\"./lib/libvulkan_mock.so\"", "'.' component"},
        {"double_slash", "\"lib//libvulkan_mock.so\"", "empty component"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.name);
        PackageRun p = Check(Package(std::string("rel_") + c.name, Meta(c.file_path)));
        EXPECT_EQ(p.run.status, 1) << DUMP(p);
        EXPECT_EQ(p.rules["RULE_ICDPKG_4"], "fail") << DUMP(p);
        EXPECT_NE(p.reason["RULE_ICDPKG_4"].find(c.reason), std::string::npos) << p.reason["RULE_ICDPKG_4"];
        EXPECT_EQ(p.drivers, 1u);
    }
}

TEST(LdpCheckPackage, Rule5FilesPresentInThePackage) {
    VKT_POLICY("RULE_ICDPKG_5", "LDP_DRIVER_4");
    // The library is missing: the rule fails, and the driver checks run on the manifest and report
    // the missing library too.
    std::string dir = Package("no_library", Meta(), "");
    PackageRun p = Check(dir);
    EXPECT_EQ(p.run.status, 1) << DUMP(p);
    EXPECT_EQ(p.rules["RULE_ICDPKG_5"], "fail") << DUMP(p);
    EXPECT_NE(p.reason["RULE_ICDPKG_5"].find(dir + "/lib/libvulkan_mock.so does not exist"), std::string::npos)
        << DUMP(p);
    ASSERT_EQ(p.drivers, 2u);
    EXPECT_EQ(p.json["drivers"][1]["results"][0]["verdict"].str(), "fail") << DUMP(p);
    // The manifest is missing: no driver checks.
    p = Check(Package("no_manifest", Meta(), "lib/libvulkan_mock.so", ""));
    EXPECT_EQ(p.rules["RULE_ICDPKG_5"], "fail") << DUMP(p);
    EXPECT_NE(p.reason["RULE_ICDPKG_5"].find("the manifest"), std::string::npos);
    EXPECT_EQ(p.drivers, 1u);
    // A symbolic link that leaves the package.
    dir = Package("symlink_out", Meta(), "");
    MkdirP(dir + "/lib");
    ASSERT_EQ(symlink(vkt::Runfile("mock_icd/libmock_icd_v7.so").c_str(), (dir + "/lib/libvulkan_mock.so").c_str()), 0);
    p = Check(dir);
    EXPECT_EQ(p.rules["RULE_ICDPKG_5"], "fail") << DUMP(p);
    EXPECT_NE(p.reason["RULE_ICDPKG_5"].find("outside the package"), std::string::npos) << DUMP(p);
    // A directory where the library should be.
    dir = Package("library_dir", Meta(), "");
    MkdirP(dir + "/lib/libvulkan_mock.so");
    p = Check(dir);
    EXPECT_EQ(p.rules["RULE_ICDPKG_5"], "fail") << DUMP(p);
    EXPECT_NE(p.reason["RULE_ICDPKG_5"].find("a directory"), std::string::npos) << DUMP(p);
}

TEST(LdpCheckPackage, Rule6LibraryNotUnderBin) {
    VKT_POLICY("RULE_ICDPKG_6");
    PackageRun p = Check(Package("in_bin", Meta("\"bin/libvulkan_mock.so\""), "bin/libvulkan_mock.so"));
    EXPECT_EQ(p.run.status, 1) << DUMP(p);
    EXPECT_EQ(p.rules["RULE_ICDPKG_6"], "fail") << DUMP(p);
    EXPECT_EQ(p.rules["RULE_ICDPKG_5"], "pass");
    // Anywhere else is fine, also a directory merely named like bin.
    p = Check(Package("in_binaries", Meta("\"binaries/libvulkan_mock.so\""), "binaries/libvulkan_mock.so"));
    EXPECT_EQ(p.rules["RULE_ICDPKG_6"], "pass") << DUMP(p);
    EXPECT_EQ(p.run.status, 0) << DUMP(p);
}

TEST(LdpCheckPackage, Rule7ManifestOutsideMetaWarns) {
    VKT_POLICY("RULE_ICDPKG_7");
    std::string dir = Package("manifest_not_meta", Meta("\"lib/libvulkan_mock.so\"", "\"icd.d/libvulkan_mock.json\""),
                              "lib/libvulkan_mock.so", "icd.d/libvulkan_mock.json");
    PackageRun p = Check(dir);
    EXPECT_EQ(p.rules["RULE_ICDPKG_7"], "warn") << DUMP(p);
    EXPECT_EQ(p.run.status, 0) << "a warning does not fail the run by default\n" << DUMP(p);
    p = Check(dir, {"--check=LDP_DRIVER_4", "--fail-on=warn"});
    EXPECT_EQ(p.run.status, 1) << DUMP(p);
}

TEST(LdpCheckPackage, NotADirectoryIsAnIoError) {
    VKT_POLICY("RULE_ICDPKG_1");
    PackageRun p = Check(::testing::TempDir() + "/packages/none_here");
    EXPECT_EQ(p.run.status, 2) << DUMP(p);
    EXPECT_NE(p.run.err.find("--package="), std::string::npos) << DUMP(p);
    ASSERT_TRUE(p.json.valid()) << DUMP(p);
    EXPECT_TRUE(p.json["drivers"][0].has("error"));
}

TEST(LdpCheckPackage, SarifListsThePackageRules) {
    VKT_POLICY("RULE_ICDPKG_6");
    std::string dir = Package("sarif_bin", Meta("\"bin/libvulkan_mock.so\""), "bin/libvulkan_mock.so");
    CheckRun r = LdpCheck({"--format=sarif", "--check=LDP_DRIVER_4", "--package=" + dir});
    EXPECT_EQ(r.status, 1) << r.err;
    vkt::Json log = vkt::Json::Parse(r.out);
    ASSERT_TRUE(log.valid()) << r.out;
    chk::SarifChecker checker;
    for (const auto &e : checker.Check(log)) ADD_FAILURE() << e << "\n" << r.out;
    vkt::Json run = log["runs"][0];
    vkt::Json rules = run["tool"]["driver"]["rules"];
    ASSERT_EQ(rules.size(), 25u) << r.out; // 18 checks + 7 package rules
    EXPECT_EQ(rules[18]["id"].str(), "RULE_ICDPKG_1");
    EXPECT_NE(rules[23]["fullDescription"]["text"].str().find("does not place its driver library under bin/"),
              std::string::npos)
        << rules[23].dump();
    ASSERT_EQ(run["results"].size(), 1u) << r.out;
    EXPECT_EQ(run["results"][0]["ruleId"].str(), "RULE_ICDPKG_6");
    EXPECT_EQ(run["results"][0]["ruleIndex"].num(), 23);
    EXPECT_EQ(run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].str(),
              "file://" + dir + "/meta/metadata/metadata.json");
}

// The parser on buffers.
TEST(LdpPackageParser, Buffers) {
    VKT_POLICY("RULE_ICDPKG_1", "RULE_ICDPKG_2", "RULE_ICDPKG_3", "RULE_ICDPKG_4", "RULE_ICDPKG_6");
    struct ldp_pkg_meta m;
    std::string good =
        "{\"file_path\": \"lib/x.so\", \"version\": 1, \"manifest_path\": \"meta/x.json\", \"extra\": 0}";
    ASSERT_TRUE(ldp_pkg_meta_parse(good.data(), good.size(), &m));
    EXPECT_TRUE(m.json_ok && m.is_object);
    EXPECT_EQ(m.version_state, LDP_PKG_OK);
    EXPECT_EQ(m.version, 1.0);
    EXPECT_TRUE(m.version_integral);
    EXPECT_STREQ(m.file_path, "lib/x.so");
    EXPECT_STREQ(m.manifest_path, "meta/x.json");
    EXPECT_EQ(m.unknown_keys, 1u);
    EXPECT_STREQ(m.first_unknown_key, "extra");
    ldp_pkg_meta_free(&m);
    // Not NUL-terminated: only len bytes count.
    std::string cut = good + "garbage";
    ASSERT_TRUE(ldp_pkg_meta_parse(cut.data(), good.size(), &m));
    EXPECT_TRUE(m.is_object);
    ldp_pkg_meta_free(&m);
    ASSERT_TRUE(ldp_pkg_meta_parse(cut.data(), cut.size(), &m));
    EXPECT_FALSE(m.json_ok);
    EXPECT_NE(std::string(m.json_error).find("line 1"), std::string::npos) << m.json_error;
    ldp_pkg_meta_free(&m);
    std::string types = "{\"version\": \"1\", \"file_path\": null, \"manifest_path\": \"\"}";
    ASSERT_TRUE(ldp_pkg_meta_parse(types.data(), types.size(), &m));
    EXPECT_EQ(m.version_state, LDP_PKG_WRONG_TYPE);
    EXPECT_STREQ(m.version_type, "string");
    EXPECT_EQ(m.file_path_state, LDP_PKG_WRONG_TYPE);
    EXPECT_EQ(m.manifest_path_state, LDP_PKG_EMPTY);
    ldp_pkg_meta_free(&m);
    // Duplicate keys: the first wins (the loader's JSON layer).
    std::string dup = "{\"version\": 1, \"version\": 2}";
    ASSERT_TRUE(ldp_pkg_meta_parse(dup.data(), dup.size(), &m));
    EXPECT_EQ(m.version, 1.0);
    EXPECT_EQ(m.file_path_state, LDP_PKG_ABSENT);
    ldp_pkg_meta_free(&m);

    EXPECT_EQ(ldp_pkg_path_problem("lib/libx.so"), nullptr);
    EXPECT_EQ(ldp_pkg_path_problem("a/b.c/..x"), nullptr);
    for (const char *bad : {"", "/lib/x.so", "lib/../x.so", "..", "./x", "lib/", "a//b", "a\\b"})
        EXPECT_NE(ldp_pkg_path_problem(bad), nullptr) << bad;
    EXPECT_TRUE(ldp_pkg_path_under_bin("bin/x.so"));
    EXPECT_FALSE(ldp_pkg_path_under_bin("lib/bin/x.so"));
    EXPECT_FALSE(ldp_pkg_path_under_bin("binx/x.so"));
}

} // namespace
