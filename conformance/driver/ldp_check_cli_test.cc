// ldp-check's command line: help and usage errors, output formats and files, colour on a terminal,
// unreadable input, --installed and --registry, and drivers that abort, crash or hang on load.
// Policy IDs are cited with VKT_POLICY (conformance/framework/policy.h).
#include <dlfcn.h>
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "conformance/checker_common/checker_output.h"
#include "conformance/driver/cts_versions.h"
#include "conformance/driver/ldp_check_test_util.h"
#include "conformance/framework/json.h"
#include "conformance/framework/policy.h"
#include "conformance/framework/process.h"
#include "conformance/framework/sandbox.h"
#include "gtest/gtest.h"

namespace ldp_test {
namespace {

// Runs ldp-check (table format) with stdout and stderr on a pseudo-terminal; returns what the
// terminal showed and sets *status to the exit status.
std::string LdpCheckOnTerminal(const std::vector<std::string> &args, const std::map<std::string, std::string> &env,
                               int *status) {
    std::vector<std::string> argv = {vkt::Runfile("conformance/driver/ldp-check"),
                                     "--loader=" + vkt::Runfile("loader/libvulkan.so.1"),
                                     "--mock=" + vkt::Runfile("mock_icd/libmock_icd_v7.so"), "--timeout=20"};
    for (const auto &a : args) argv.push_back(a);
    int master = -1;
    pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
    if (pid == 0) {
        unsetenv("NO_COLOR");
        for (const auto &kv : env) setenv(kv.first.c_str(), kv.second.c_str(), 1);
        std::vector<char *> cargv;
        for (auto &a : argv) cargv.push_back(const_cast<char *>(a.c_str()));
        cargv.push_back(nullptr);
        execv(cargv[0], cargv.data());
        _exit(127);
    }
    std::string out;
    if (pid < 0) {
        ADD_FAILURE() << "forkpty: " << strerror(errno);
        *status = -1;
        return out;
    }
    char buf[4096];
    for (;;) {
        ssize_t n = read(master, buf, sizeof buf);
        if (n > 0) {
            out.append(buf, static_cast<size_t>(n));
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else {
            break; // EIO once the child side is closed
        }
    }
    close(master);
    int st = 0;
    waitpid(pid, &st, 0);
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return out;
}

// ---- command line, formats, errors ----------------------------------------------------------

TEST(LdpCheckCli, HelpAndUsageErrors) {
    VKT_POLICY("LDP_DRIVER_4");
    LdpRun help = LdpCheck({"--help"}, false, true);
    EXPECT_EQ(help.exit_status, 0);
    EXPECT_NE(help.out.find("--installed"), std::string::npos);
    EXPECT_EQ(LdpCheck({}, false, true).exit_status, 2);
    LdpRun unknown = LdpCheck({"--frobnicate", "x.json"}, false, true);
    EXPECT_EQ(unknown.exit_status, 2);
    EXPECT_NE(unknown.err.find("unknown option"), std::string::npos) << unknown.err;
    EXPECT_EQ(LdpCheck({"--format=xml", "x.json"}, false, true).exit_status, 2);
    EXPECT_EQ(LdpCheck({"--timeout=0", "x.json"}, false, true).exit_status, 2);
    EXPECT_EQ(LdpCheck({"--check=LDP_DRIVER_99", "x.json"}, false, true).exit_status, 2);
    LdpRun missing = LdpCheck({"/nonexistent/driver.json"}, false);
    EXPECT_EQ(missing.exit_status, 2);
    EXPECT_NE(missing.err.find("/nonexistent/driver.json: No such file or directory"), std::string::npos)
        << missing.err;
}

// An installation without the companions LDP_DRIVER_1 needs (the reference loader, the mock ICD):
// an error of the run (exit 2, both named), not a not-testable-here verdict with exit 0. Leaving
// LDP_DRIVER_1 out runs the rest as usual.
TEST(LdpCheckCli, MissingCompanionsAreAnError) {
    VKT_POLICY("LDP_DRIVER_1");
    vkt::Sandbox sb;
    const std::string dir = sb.root() + "/companions";
    vkt::MakeDirs(dir);
    const std::string manifest = dir + "/mock.json";
    sb.WriteFile(manifest, "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" +
                               vkt::Runfile("mock_icd/libmock_icd_v7.so") + "\", \"api_version\": \"1.3.0\"}}");
    // No runfiles to find them in: the companions are missing.
    const std::map<std::string, std::string> env = {{"RUNFILES_DIR", dir + "/none"}, {"TEST_SRCDIR", dir + "/none"}};
    LdpRun all = LdpCheck({manifest}, false, true, env);
    EXPECT_EQ(all.exit_status, 2) << all.Describe();
    EXPECT_NE(all.err.find("LDP_DRIVER_1 needs the reference loader"), std::string::npos) << all.err;
    EXPECT_NE(all.err.find("the loader and the mock ICD not found"), std::string::npos) << all.err;
    LdpRun some = LdpCheck({"--check=LDP_DRIVER_4", manifest}, true, true, env);
    EXPECT_EQ(some.exit_status, 0) << some.Describe();
    EXPECT_EQ(some.verdict["LDP_DRIVER_4"], "pass") << some.Describe();
    // A --loader / --mock that does not exist is a usage error too (and never a crash of the checker).
    LdpRun bad_loader = LdpCheck({"--loader=" + dir + "/no-libvulkan.so.1", manifest}, false, true, env);
    EXPECT_EQ(bad_loader.exit_status, 2) << bad_loader.Describe();
    EXPECT_NE(bad_loader.err.find("no such file"), std::string::npos) << bad_loader.err;
    LdpRun bad_mock = LdpCheck({"--mock=" + dir + "/no-mock.so", manifest}, false, true, env);
    EXPECT_EQ(bad_mock.exit_status, 2) << bad_mock.Describe();
    // With the companions given, LDP_DRIVER_1 runs.
    LdpRun given = LdpCheck({"--check=LDP_DRIVER_1", manifest}, true, false, env);
    EXPECT_NE(given.exit_status, 2) << given.Describe();
    EXPECT_NE(given.verdict["LDP_DRIVER_1"], "not-testable-here") << given.Describe();
}

TEST(LdpCheckCli, UnreadableAndUnloadable) {
    VKT_POLICY("LDP_DRIVER_4");
    vkt::Sandbox sb;
    std::string dir = sb.root() + "/odd";
    vkt::MakeDirs(dir);
    // A "library" that is not an ELF file: LDP_DRIVER_4 fails with dlopen's own words.
    sb.WriteFile(dir + "/libfake.so", "this is not a shared object\n");
    sb.WriteFile(dir + "/fake.json", "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" + dir +
                                         "/libfake.so\", \"api_version\": \"1.3.0\"}}");
    LdpRun r = LdpCheck({dir + "/fake.json"});
    EXPECT_EQ(r.exit_status, 1);
    EXPECT_EQ(r.verdict["LDP_DRIVER_4"], "fail") << r.Describe();
    EXPECT_NE(r.reason["LDP_DRIVER_4"].find("cannot be loaded"), std::string::npos) << r.Describe();
    EXPECT_NE(r.reason["LDP_DRIVER_4"].find("libfake.so: file too short"), std::string::npos) << r.Describe();
    // A real library whose dependency is not installed: the dynamic linker's words name it.
    std::string dep = dir + "/libmissing_dep_icd.so";
    std::ifstream src(vkt::Runfile("conformance/driver/testdata/libmissing_dep_icd.so"), std::ios::binary);
    std::ofstream(dep, std::ios::binary) << src.rdbuf();
    sb.WriteFile(dir + "/dep.json", "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" + dep +
                                        "\", \"api_version\": \"1.3.0\"}}");
    LdpRun d = LdpCheck({dir + "/dep.json"});
    EXPECT_EQ(d.exit_status, 1) << d.Describe();
    EXPECT_EQ(d.verdict["LDP_DRIVER_4"], "fail") << d.Describe();
    EXPECT_NE(d.reason["LDP_DRIVER_4"].find("cannot be loaded: libldp_gone.so: cannot open shared object file"),
              std::string::npos)
        << d.Describe();
    EXPECT_EQ(d.verdict["LDP_DRIVER_3"], "not-testable-here") << d.Describe();
    // Hostile input never crashes the checker: empty file, binary garbage, deep nesting.
    sb.WriteFile(dir + "/empty.json", "");
    sb.WriteFile(dir + "/garbage.json", std::string("\x7f"
                                                    "ELF\x01\x02\xff\x00\x10",
                                                    9));
    sb.WriteFile(dir + "/deep.json", std::string(5000, '[') + std::string(5000, ']'));
    sb.WriteFile(dir + "/types.json", R"({"file_format_version": 1, "ICD": {"library_path": [], "api_version": {}}})");
    for (const char *f : {"empty.json", "garbage.json", "deep.json", "types.json"}) {
        LdpRun x = LdpCheck({dir + "/" + f});
        EXPECT_EQ(x.exit_status, 1) << f << x.err;
        EXPECT_EQ(x.verdict["LDP_DRIVER_4"], "fail") << f << "\n" << x.Describe();
    }
    // An unreadable manifest (only meaningful when not running as root).
    if (geteuid() != 0) {
        sb.WriteFile(dir + "/secret.json", "{}");
        chmod((dir + "/secret.json").c_str(), 0);
        LdpRun s = LdpCheck({dir + "/secret.json"}, false);
        EXPECT_EQ(s.exit_status, 2);
        EXPECT_NE(s.err.find("Permission denied"), std::string::npos) << s.err;
    }
}

TEST(LdpCheckCli, TableJunitOutputFileAndSubset) {
    VKT_POLICY("LDP_DRIVER_7", "LDP_DRIVER_10");
    vkt::Sandbox sb;
    std::string manifest = Materialise(sb, V("v7", R"({"misbehave": {"incompatible_for_any_api_above_1_0": true}})"));
    // Table, not a terminal: no colour, one row per selected check.
    LdpRun t = LdpCheck({"--check=LDP_DRIVER_10,ldp_driver_7_api_needs_iface5", manifest}, false);
    EXPECT_EQ(t.exit_status, 1);
    EXPECT_EQ(t.out.find("\033["), std::string::npos);
    EXPECT_NE(t.out.find("LDP_DRIVER_10              fail"), std::string::npos) << t.out;
    EXPECT_NE(t.out.find("LDP_DRIVER_7               pass"), std::string::npos) << t.out;
    EXPECT_EQ(t.out.find("LDP_DRIVER_3 "), std::string::npos) << t.out;
    // --color forces it.
    LdpRun col = LdpCheck({"--color", "--check=LDP_DRIVER_7", manifest}, false);
    EXPECT_NE(col.out.find("\033[32mpass"), std::string::npos) << col.out;
    // JUnit into a file: one testcase per check, the failure as <failure>.
    std::string file = sb.root() + "/report.xml";
    LdpRun j = LdpCheck({"--format=junit", "--output=" + file, manifest}, false);
    EXPECT_EQ(j.exit_status, 1);
    EXPECT_TRUE(j.out.empty()) << j.out;
    std::string xml = vkt::ReadFileText(file);
    EXPECT_NE(xml.find("<testsuites name=\"ldp-check\""), std::string::npos) << xml;
    size_t cases = 0;
    for (size_t p = xml.find("<testcase "); p != std::string::npos; p = xml.find("<testcase ", p + 1)) cases++;
    EXPECT_EQ(cases, 18u);
    EXPECT_NE(xml.find("name=\"LDP_DRIVER_10\" time="), std::string::npos);
    EXPECT_NE(xml.find("<failure message=\"at interface 7 vkCreateInstance(apiVersion 1.1.0)"), std::string::npos)
        << xml;
    EXPECT_NE(xml.find("<skipped message=\"removed: "), std::string::npos);
    // An unwritable output file is an I/O error.
    EXPECT_EQ(LdpCheck({"--output=/nonexistent/dir/x", manifest}, false).exit_status, 2);
}

// Colour is the default on a terminal only; NO_COLOR and --no-color turn it off there.
TEST(LdpCheckCli, ColourOnlyOnATerminal) {
    VKT_POLICY("LDP_DRIVER_7", "LDP_DRIVER_10");
    vkt::Sandbox sb;
    std::string manifest = Materialise(sb, V("v7", R"({"misbehave": {"incompatible_for_any_api_above_1_0": true}})"));
    int status = -1;
    std::string tty = LdpCheckOnTerminal({"--check=LDP_DRIVER_7,LDP_DRIVER_10", manifest}, {}, &status);
    EXPECT_EQ(status, 1) << tty;
    EXPECT_NE(tty.find("\033[32mpass"), std::string::npos) << tty;
    EXPECT_NE(tty.find("\033[1;31mfail"), std::string::npos) << tty;
    // On a terminal the progress line goes to stderr.
    EXPECT_NE(tty.find("checking " + manifest), std::string::npos) << tty;
    std::string no_color = LdpCheckOnTerminal({"--check=LDP_DRIVER_7", manifest}, {{"NO_COLOR", "1"}}, &status);
    EXPECT_EQ(status, 0) << no_color;
    EXPECT_NE(no_color.find("LDP_DRIVER_7"), std::string::npos) << no_color;
    EXPECT_EQ(no_color.find("\033["), std::string::npos) << no_color;
    std::string forced_off = LdpCheckOnTerminal({"--no-color", "--check=LDP_DRIVER_7", manifest}, {}, &status);
    EXPECT_NE(forced_off.find("LDP_DRIVER_7"), std::string::npos) << forced_off;
    EXPECT_EQ(forced_off.find("\033["), std::string::npos) << forced_off;
    // The JSON format never has colour, terminal or not.
    std::string json = LdpCheckOnTerminal({"--format=json", "--check=LDP_DRIVER_7", manifest}, {}, &status);
    EXPECT_NE(json.find("\"verdict\": \"pass\""), std::string::npos) << json;
    EXPECT_EQ(json.find("\033["), std::string::npos) << json;
}

// Input the checker cannot read is an I/O error (exit 2) with the reason, also as root: a
// directory, and a file whose read(2) fails (/proc/self/mem reads EIO at offset 0). The other
// manifests on the same command line are still checked.
TEST(LdpCheckCli, NotARegularFileAndReadErrors) {
    VKT_POLICY("LDP_DRIVER_4");
    vkt::Sandbox sb;
    std::string good = Materialise(sb, V("v7", "{}"));
    std::string dir = sb.root() + "/a_directory.json";
    vkt::MakeDirs(dir);
    LdpRun r = LdpCheck({"--check=LDP_DRIVER_4", dir, "/proc/self/mem", good});
    EXPECT_EQ(r.exit_status, 2) << r.Describe();
    EXPECT_NE(r.err.find(dir + ": not a regular file"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("/proc/self/mem: cannot be read: Input/output error"), std::string::npos) << r.err;
    ASSERT_EQ(r.json["drivers"].size(), 3u) << r.out;
    EXPECT_EQ(r.json["drivers"][0]["error"].str(), dir + ": not a regular file");
    EXPECT_EQ(r.json["drivers"][1]["error"].str(), "/proc/self/mem: cannot be read: Input/output error");
    EXPECT_EQ(r.json["drivers"][2]["results"][0]["verdict"].str(), "pass") << r.out;
    // The JUnit report shows them as errors.
    LdpRun j = LdpCheck({"--format=junit", "--check=LDP_DRIVER_4", dir, good}, false);
    EXPECT_EQ(j.exit_status, 2);
    EXPECT_NE(j.out.find("name=\"manifest\"><error message=\"" + dir + ": not a regular file\"/>"), std::string::npos)
        << j.out;
}

TEST(LdpCheckCli, InstalledUsesTheLoaderSearch) {
    VKT_POLICY("LDP_DRIVER_4", "LDP_DRIVER_11");
    vkt::Sandbox sb;
    Materialise(sb, V("v7", "{}"), "one");
    std::string dir = sb.IcdDir(vkt::Location::kLoose);
    LdpRun r = LdpCheck({"--installed", "--check=LDP_DRIVER_4"}, true, false, {{"VK_DRIVER_FILES", dir}});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    EXPECT_EQ(r.json["drivers"].size(), 1u) << r.out;
    EXPECT_EQ(r.json["drivers"][0]["manifest"].str(), dir + "/driver.json");
    EXPECT_EQ(r.verdict["LDP_DRIVER_4"], "pass");
}

// Without any VK_DRIVER_FILES-style override, --installed follows the default search: a manifest
// in $XDG_DATA_HOME/vulkan/icd.d is found, and with XDG_DATA_DIRS pointing into the sandbox the
// system's /usr/share/vulkan/icd.d is not searched.
TEST(LdpCheckCli, InstalledFollowsTheDefaultSearch) {
    VKT_POLICY("LDP_DRIVER_4", "LDP_DRIVER_11");
    vkt::Sandbox sb;
    const vkt::Driver &d = sb.AddDriver("xdg", "v7", "{}");
    std::string manifest = sb.WriteManifest(vkt::Location::kXdgDataHome, "xdg_driver.json",
                                            "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" +
                                                d.library + "\", \"api_version\": \"1.3.0\"}}");
    std::map<std::string, std::string> env = sb.env();
    env.erase("VK_LOADER_DEBUG");
    for (const char *k : {"VK_DRIVER_FILES", "VK_ICD_FILENAMES", "VK_ADD_DRIVER_FILES"}) env.erase(k);
    ASSERT_TRUE(env.count("XDG_DATA_HOME") && env.count("XDG_DATA_DIRS")) << "sandbox environment changed";
    LdpRun r = LdpCheck({"--installed", "--check=LDP_DRIVER_4"}, true, false, env);
    ASSERT_TRUE(r.json.valid()) << r.out << r.err;
    bool found = false;
    for (size_t i = 0; i < r.json["drivers"].size(); i++) {
        std::string m = r.json["drivers"][i]["manifest"].str();
        EXPECT_EQ(m.rfind("/usr/share/vulkan/icd.d/", 0), std::string::npos) << m;
        if (m == manifest) {
            found = true;
            EXPECT_EQ(r.json["drivers"][i]["results"][0]["verdict"].str(), "pass") << r.out;
        }
    }
    EXPECT_TRUE(found) << manifest << "\n" << r.out;
}

TEST(LdpCheckCli, RegistryOption) {
    VKT_POLICY("LDP_DRIVER_12");
    vkt::Sandbox sb;
    std::string manifest = Materialise(sb, V("v7", "{}"));
    // A registry without the mock's one instance extension: reported (advisory, not a platform one).
    // Vulkan SC's VK_HEADER_VERSION (newer registries define both) is not the registry's version.
    std::string xml = sb.root() + "/vk.xml";
    sb.WriteFile(xml,
                 "<registry><types><type api=\"vulkansc\" category=\"define\">#define <name>VK_HEADER_VERSION</name> 22"
                 "</type><type api=\"vulkan,vulkanbase\" category=\"define\">#define <name>VK_HEADER_VERSION</name> 500"
                 "</type></types>"
                 "<extensions><extension name=\"VK_KHR_surface\" supported=\"vulkan\"/></extensions></registry>");
    LdpRun r = LdpCheck({"--check=LDP_DRIVER_12", "--registry=" + xml, manifest});
    EXPECT_EQ(r.verdict["LDP_DRIVER_12"], "warn") << r.Describe();
    bool version_shown = false;
    for (const std::string &e : r.evidence["LDP_DRIVER_12"])
        version_shown = version_shown || e.find("VK_HEADER_VERSION 500,") != std::string::npos;
    EXPECT_TRUE(version_shown) << r.Describe();
    EXPECT_NE(r.out.find("VK_KHR_get_physical_device_properties2: not in the registry"), std::string::npos) << r.out;
    EXPECT_EQ(LdpCheck({"--registry=/nonexistent.xml", manifest}, false).exit_status, 2);
}

// A manifest at <sandbox>/<subdir>/<file> naming the test library conformance/driver/testdata/<lib>
// (libctor_abort_icd.so: its constructor aborts, or hangs with LDP_TEST_CTOR_HANG set;
// libhang_icd.so: negotiation hangs); returns its path.
std::string TestdataManifest(vkt::Sandbox &sb, const std::string &subdir, const std::string &file,
                             const std::string &lib = "libctor_abort_icd.so") {
    std::string dir = sb.root() + "/" + subdir;
    vkt::MakeDirs(dir);
    sb.WriteFile(dir + "/" + file, "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" +
                                       vkt::Runfile("conformance/driver/testdata/" + lib) +
                                       "\", \"api_version\": \"1.3.0\"}}");
    return dir + "/" + file;
}

// A library that kills any process loading it (its constructor aborts): ldp-check survives, since
// only its children load drivers, and every check that loads it fails with the signal.
TEST(LdpCheckCli, DriverThatAbortsOnLoadIsOnlyLoadedInChildren) {
    VKT_POLICY("LDP_DRIVER_4");
    vkt::Sandbox sb;
    LdpRun r = LdpCheck({TestdataManifest(sb, "ctor", "abort.json")});
    ASSERT_TRUE(r.json.valid()) << r.out << r.err;
    EXPECT_EQ(r.exit_status, 1) << r.Describe();
    EXPECT_EQ(r.verdict.size(), 18u) << r.Describe();
    for (const char *id : {"LDP_DRIVER_3", "LDP_DRIVER_4", "LDP_DRIVER_11"}) {
        EXPECT_EQ(r.verdict[id], "fail") << id << "\n" << r.Describe();
        // A plain build dies of SIGABRT; under AddressSanitizer (abort_on_error) the same.
        EXPECT_NE(r.reason[id].find("killed by signal 6"), std::string::npos) << id << "\n" << r.Describe();
        EXPECT_NE(r.reason[id].find("during dlopen("), std::string::npos) << id << "\n" << r.Describe();
    }
    // Reading the ELF file does not load it.
    EXPECT_EQ(r.verdict["LINT_VK_EXPORTS"], "pass") << r.Describe();
}

TEST(LdpCheckCli, HangingOrCrashingDriverIsAFindingNotACrash) {
    VKT_POLICY("LDP_DRIVER_3");
    vkt::Sandbox sb;
    const std::string manifest = TestdataManifest(sb, "hang", "hang.json", "libhang_icd.so");
    LdpRun h = LdpCheck({"--timeout=1", "--check=LDP_DRIVER_3,LDP_DRIVER_7", manifest});
    EXPECT_EQ(h.exit_status, 1) << h.Describe();
    EXPECT_EQ(h.verdict["LDP_DRIVER_3"], "fail") << h.Describe();
    EXPECT_NE(h.reason["LDP_DRIVER_3"].find("timed out after"), std::string::npos) << h.Describe();
    EXPECT_NE(h.reason["LDP_DRIVER_3"].find("during vk_icdNegotiateLoaderICDInterfaceVersion(7)"), std::string::npos)
        << h.Describe();
    EXPECT_EQ(h.verdict["LDP_DRIVER_7"], "fail") << h.Describe();
    EXPECT_NE(h.reason["LDP_DRIVER_7"].find("timed out"), std::string::npos) << h.Describe();
    LdpRun c =
        LdpCheck({"--check=LDP_DRIVER_3,LDP_DRIVER_7", manifest}, true, false, {{"LDP_TEST_HANG_ICD_CRASH", "1"}});
    EXPECT_EQ(c.exit_status, 1) << c.Describe();
    // A plain build reports "killed by signal 11"; under AddressSanitizer its SEGV handler turns the
    // crash into "exited with status 1". Either way the call in progress is named.
    EXPECT_EQ(c.verdict["LDP_DRIVER_3"], "fail") << c.Describe();
    EXPECT_NE(c.reason["LDP_DRIVER_3"].find("during vk_icdNegotiateLoaderICDInterfaceVersion(7)"), std::string::npos)
        << c.Describe();
    EXPECT_EQ(c.verdict["LDP_DRIVER_7"], "fail") << c.Describe();
    EXPECT_NE(c.reason["LDP_DRIVER_7"].find("during vk_icdNegotiateLoaderICDInterfaceVersion(7)"), std::string::npos)
        << c.Describe();
#if !defined(__SANITIZE_ADDRESS__)
    EXPECT_NE(c.reason["LDP_DRIVER_3"].find("killed by signal 11"), std::string::npos) << c.Describe();
#endif
}

// A driver whose library constructor never returns: every check that loads it ends at the time
// limit, and the reason says so ("timed out", "hung") instead of calling it a crash.
TEST(LdpCheckCli, DriverThatHangsOnLoadIsReportedAsTimedOut) {
    VKT_POLICY("LDP_DRIVER_4");
    vkt::Sandbox sb;
    const std::string manifest = TestdataManifest(sb, "ctor_hang", "hang.json");
    LdpRun r =
        LdpCheck({"--timeout=1", "--check=LDP_DRIVER_2,LDP_DRIVER_3,LDP_DRIVER_4,LDP_DRIVER_8,LDP_DRIVER_11", manifest},
                 true, false, {{"LDP_TEST_CTOR_HANG", "1"}});
    ASSERT_TRUE(r.json.valid()) << r.out << r.err;
    EXPECT_EQ(r.exit_status, 1) << r.Describe();
    // LDP_DRIVER_2/4/11: the check's own process hit the limit; 3 and 8: a probe did.
    for (const char *id : {"LDP_DRIVER_2", "LDP_DRIVER_3", "LDP_DRIVER_4", "LDP_DRIVER_8", "LDP_DRIVER_11"}) {
        EXPECT_EQ(r.verdict[id], "fail") << id << "\n" << r.Describe();
        EXPECT_NE(r.reason[id].find("timed out after"), std::string::npos) << id << "\n" << r.Describe();
        EXPECT_NE(r.reason[id].find("during dlopen("), std::string::npos) << id << "\n" << r.Describe();
        EXPECT_NE(r.reason[id].find("hung"), std::string::npos) << id << "\n" << r.Describe();
        EXPECT_EQ(r.reason[id].find("crashed"), std::string::npos) << id << "\n" << r.Describe();
    }
}

// LDP_DRIVER_11: library_path is what dlopen opens, its dynamic string tokens expanded ($LIB, as
// Debian's multiarch manifests may name /usr/$LIB/...): the library is found and the checks that
// load it run, instead of a "missing library" verdict for a manifest the loader uses.
TEST(LdpCheckCli, LibTokenInLibraryPathIsExpandedAsDlopenDoes) {
    VKT_POLICY("LDP_DRIVER_11", "LDP_DRIVER_3");
    Dl_info info{};
    ASSERT_NE(dladdr(reinterpret_cast<void *>(&snprintf), &info), 0);
    std::string libc = info.dli_fname; // e.g. /lib/x86_64-linux-gnu/libc.so.6
    std::string lib_dir = libc.substr(0, libc.rfind('/'));
    if (lib_dir.rfind("/usr/", 0) == 0) lib_dir = lib_dir.substr(4);
    vkt::Sandbox sb;
    const vkt::Driver &d = sb.AddDriver("libtoken", "v7", "{}");
    // glibc expands $LIB to the directory of its own libraries below / (lib/x86_64-linux-gnu on
    // Debian): the driver is copied to <base>/<that>/ and named as <base>/$LIB/libtoken.so.
    std::string base = d.dir + "/tok";
    std::string sub = base + lib_dir;
    std::string cmd = "mkdir -p '" + sub + "' && cp '" + d.library + "' '" + sub + "/libtoken.so' && cp '" + d.library +
                      ".scenario' '" + sub + "/libtoken.so.scenario'";
    ASSERT_EQ(system(cmd.c_str()), 0) << cmd;
    std::string named = base + "/$LIB/libtoken.so";
    std::string manifest = sb.WriteManifest(vkt::Location::kLoose, "token.json",
                                            "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" +
                                                named + "\", \"api_version\": \"1.3.0\"}}\n");
    LdpRun r = LdpCheck({"--check=LDP_DRIVER_11,LDP_DRIVER_3", manifest});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    EXPECT_EQ(r.verdict["LDP_DRIVER_11"], "pass") << r.Describe();
    EXPECT_EQ(r.verdict["LDP_DRIVER_3"], "pass") << r.Describe();
}

} // namespace
} // namespace ldp_test
