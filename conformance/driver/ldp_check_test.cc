// ldp-check against mock ICD configurations: for every failure (or warning) ldp-check claims to
// detect, a mock configuration committing exactly that violation, and the assertion that the
// targeted check reports it while every other check gives the same verdict as for the same mock
// configured well (differences a violation necessarily implies are listed per case, with why).
// Policy IDs are cited with VKT_POLICY (conformance/framework/policy.h).
#include <pty.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <vulkan/vulkan.h>

#include "conformance/checker_common/checker_output.h"
#include "conformance/driver/cts_versions.h"
#include "conformance/framework/json.h"
#include "conformance/framework/policy.h"
#include "conformance/framework/process.h"
#include "conformance/framework/sandbox.h"
#include "gtest/gtest.h"

namespace {

struct LdpRun : chk::CheckerRun {
    std::string Describe() const { return CheckerRun::Describe(false); }
};

// Runs ldp-check with `args` (plus --loader/--mock unless `raw`) and collects its output.
LdpRun LdpCheck(const std::vector<std::string> &args, bool json = true, bool raw = false,
                const std::map<std::string, std::string> &env = {}) {
    std::vector<std::string> argv = {vkt::Runfile("conformance/driver/ldp-check")};
    if (!raw) {
        argv.push_back("--loader=" + vkt::Runfile("loader/libvulkan.so.1"));
        argv.push_back("--mock=" + vkt::Runfile("mock_icd/libmock_icd_v7.so"));
        argv.push_back("--timeout=20");
    }
    if (json) argv.push_back("--format=json");
    for (const auto &a : args) argv.push_back(a);
    vkt::ProcessOptions options;
    options.env = env;
    LdpRun r;
    r.Collect(vkt::RunProcess(argv, options), json, "drivers");
    return r;
}

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

// One mock configuration: the variant, its scenario and its manifest.
struct Config {
    std::string variant = "v7";
    std::string scenario = "{}";
    std::string manifest_api = "1.3.0";
    std::string manifest_extra;    // extra JSON members of "ICD" (leading comma included)
    std::string manifest_text;     // whole manifest text instead (library path placeholder @LIB@)
    std::string manifest_testdata; // or a file of conformance/driver/testdata/ (same placeholder)
    std::string manifest_name = "driver.json";
    bool missing_library = false;
    bool duplicate_manifest = false;
    bool stale_sibling = false; // another manifest beside it names a library that does not exist
    // The library is also reachable under a second name (a hard link, with the scenario beside it)
    // that is LD_PRELOADed into ldp-check: dlopen of the manifest's path then returns the copy
    // already loaded under the other name (same inode), as in a process that loaded the driver
    // before.
    bool preload_hard_link = false;

    // A copy with one member changed, for the case table: V("v7", "{}").Set(&Config::missing_library, true).
    template <typename T, typename U> Config Set(T Config::*member, U &&value) const {
        Config c = *this;
        c.*member = std::forward<U>(value);
        return c;
    }
};

std::string Replace(std::string s, const std::string &from, const std::string &to) {
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
        s.replace(p, from.size(), to);
    return s;
}

// Writes the configuration into a fresh sandbox and returns the manifest path (and in *env the
// environment ldp-check needs for it).
std::string Materialise(vkt::Sandbox &sb, const Config &c, const std::string &name = "drv",
                        std::map<std::string, std::string> *env = nullptr) {
    const vkt::Driver &d = sb.AddDriver(name, c.variant, c.scenario);
    if (c.preload_hard_link && env != nullptr) {
        std::string other = d.dir + "/libpreloaded_copy.so";
        EXPECT_EQ(link(d.library.c_str(), other.c_str()), 0) << other;
        sb.WriteFile(other + ".scenario", c.scenario);
        (*env)["LD_PRELOAD"] = other;
        // An LD_PRELOADed library comes before the sanitizer runtime in the initial library list.
        const char *asan = getenv("ASAN_OPTIONS");
        (*env)["ASAN_OPTIONS"] = std::string(asan ? asan : "") + ":verify_asan_link_order=0";
    }
    std::string lib = c.missing_library ? d.dir + "/libnot_there.so" : d.library;
    std::string text = !c.manifest_testdata.empty()
                           ? vkt::ReadFileText(vkt::Runfile("conformance/driver/testdata/" + c.manifest_testdata))
                       : c.manifest_text.empty()
                           ? "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"@LIB@\", "
                             "\"api_version\": \"" +
                                 c.manifest_api + "\"" + c.manifest_extra + "}}\n"
                           : c.manifest_text;
    text = Replace(text, "@LIB@", lib);
    std::string path = sb.WriteManifest(vkt::Location::kLoose, c.manifest_name, text);
    if (c.duplicate_manifest) sb.WriteManifest(vkt::Location::kLoose, "zz_copy_of_driver.json", text);
    if (c.stale_sibling)
        sb.WriteManifest(vkt::Location::kLoose, "zz_stale.json",
                         "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" + d.dir +
                             "/libremoved_driver.so\", \"api_version\": \"1.3.0\"}}\n");
    return path;
}

LdpRun Check(const Config &c) {
    vkt::Sandbox sb;
    std::map<std::string, std::string> env;
    std::string manifest = Materialise(sb, c, "drv", &env);
    return LdpCheck({manifest}, true, false, env);
}

struct Case {
    std::string name;
    const char *policy;   // cited policy
    std::string id;       // check that must report the violation
    std::string expected; // fail or warn (or pass for a "must not flag" case)
    Config good, bad;
    std::map<std::string, std::string> also; // other IDs whose verdict necessarily changes, and to what
    bool others_not_testable = false;        // the violation makes the driver unusable for the rest
    std::string evidence_contains;           // a piece of evidence the report must show
    std::string reason_contains;             // a piece of the targeted check's reason

    // The case table's (Cases()) way to set what differs from Row()'s defaults.
    Case &Check(const std::string &check_id) { return id = check_id, *this; }
    Case &Also(const std::map<std::string, std::string> &ids) { return also = ids, *this; }
    Case &OthersNotTestable() { return others_not_testable = true, *this; }
    Case &Evidence(const std::string &text) { return evidence_contains = text, *this; }
    Case &Reason(const std::string &text) { return reason_contains = text, *this; }
};

std::ostream &operator<<(std::ostream &o, const Case &c) { return o << c.name; }

Config V(const std::string &variant, const std::string &scenario, const std::string &api = "1.3.0") {
    Config c;
    c.variant = variant;
    c.scenario = scenario;
    c.manifest_api = api;
    return c;
}

// A case of the table: check `policy` reports `expected` for the `bad` configuration, and pass or
// not-applicable for `good` (the v7 mock, well configured, unless given); every other check keeps
// its verdict. Case's setters add the rest.
Case Row(const std::string &name, const char *policy, const std::string &expected, const Config &good,
         const Config &bad) {
    return Case{name, policy, policy, expected, good, bad, {}, false, "", ""};
}
Case Row(const std::string &name, const char *policy, const std::string &expected, const Config &bad) {
    return Row(name, policy, expected, V("v7", "{}"), bad);
}

// The v7 mock, well configured, with the manifest `text` (library path placeholder @LIB@).
Config ManifestText(const std::string &text) { return V("v7", "{}").Set(&Config::manifest_text, text); }

// IDs built at run time: a string literal equal to a policy ID counts as a citation in this file
// (coverage gate), and LDP_DRIVER_5 (untestable) / LDP_DRIVER_6 (removed) are not tested here.
std::string Id(int n) { return "LDP_DRIVER_" + std::to_string(n); }

const char *const kUnknownFn = "vkLdpCheckNonexistentFunctionEXT";
const std::string kApi10 = "{\"api_version\": \"1.0.0\", \"physical_devices\": [{\"api_version\": \"1.0.0\"}]";
const std::string kSurfaceExts = "\"instance_extensions\": [\"VK_KHR_surface\", \"VK_KHR_xcb_surface\"]";

// Verdict paths proven by the mock switches added for them (docs/ldp-check.md, "Proof"): each case
// names the verdict, a piece of its reason and an evidence line of the same check.
template <typename Add> void MoreCases(Add add) {
    // ---- LDP_DRIVER_3
    add(Row("Driver3IncompatibleAboveAcceptedOffer", "LDP_DRIVER_3", "fail", V("v7_exports", "{}"),
            V("v7_exports", R"({"interface": {"per_offer": {"6": "VK_ERROR_INCOMPATIBLE_DRIVER"}}})"))
            .Evidence("exported: offered 6 -> VK_ERROR_INCOMPATIBLE_DRIVER")
            .Reason("returns VK_ERROR_INCOMPATIBLE_DRIVER for offered 6 although it accepted 0"));
    add(Row("Driver3ChoiceIsNotMinOfOfferedAndMaximum", "LDP_DRIVER_3", "warn", V("v7_exports", "{}"),
            V("v7_exports", R"({"interface": {"per_offer": {"6": 4}}})"))
            .Evidence("exported: offered 6 -> VK_SUCCESS, version 4")
            .Reason("with offered 6 chose 4; the protocol answers min(offered, driver maximum 7) = 6"));
    add(Row("Driver3ExportAndGipaNegotiationDisagree", "LDP_DRIVER_3", "warn", V("v7_exports", "{}"),
            V("v7_exports", R"({"interface": {"max_through_gipa": 6}})"))
            .Evidence("through vk_icdGetInstanceProcAddr: minimum accepted offer 0, maximum interface 6")
            .Reason("choose different versions (7 and 6)"));
    // Negotiation exported but no vk_icdGetInstanceProcAddr: fine at interface 0 (the v0 exports
    // serve), a violation once it negotiates more. Nothing can use the driver then.
    add(Row("Driver3NegotiatesWithoutIcdGipa", "LDP_DRIVER_3", "fail",
            V("v2_nogipa", kApi10 + R"(, "interface": {"max": 0}})", "1.0.0"), V("v2_nogipa", kApi10 + "}", "1.0.0"))
            .Also({{"LDP_DRIVER_1", "pass"},
                   {"LDP_DRIVER_4", "pass"},
                   {"LINT_VK_EXPORTS", "warn"},
                   {"LINT_LOADER_MAGIC", "not-testable-here"},
                   {"LINT_GPDPA_NULL", "not-testable-here"},
                   {"LDP_DRIVER_9", "not-testable-here"},
                   {"LDP_DRIVER_10", "not-testable-here"}})
            .OthersNotTestable()
            .Evidence("exports: vk_icdNegotiateLoaderICDInterfaceVersion yes, vk_icdGetInstanceProcAddr no")
            .Reason("negotiates interface 2 but does not export vk_icdGetInstanceProcAddr"));
    add(Row("Driver3NoEntryPointAtAll", "LDP_DRIVER_3", "fail", V("none", "{}"))
            .Also({{"LDP_DRIVER_1", "pass"}, {"LDP_DRIVER_4", "pass"}, {"LINT_VK_EXPORTS", "pass"}})
            .OthersNotTestable()
            .Evidence("exports: vk_icdNegotiateLoaderICDInterfaceVersion no, vk_icdGetInstanceProcAddr no")
            .Reason("exports no loader/driver interface entry point"));
    add(Row("Driver3GlobalsMissingAfterNegotiation", "LDP_DRIVER_3", "fail",
            V("v7", R"({"hidden_functions": ["vkEnumerateInstanceExtensionProperties"]})"))
            // the lint asks the same question without negotiating first
            .Also({{"LINT_GLOBAL_NULL_INSTANCE", "fail"}})
            .Evidence("offered 7, then vk_icdGetInstanceProcAddr(NULL, ...): vkCreateInstance non-NULL, "
                      "vkEnumerateInstanceExtensionProperties NULL")
            .Reason("does not give vkCreateInstance and vkEnumerateInstanceExtensionProperties"));
    // ---- LDP_DRIVER_8
    add(Row("Driver8SurfaceFunctionMissing", "LDP_DRIVER_8", "fail", V("v7", "{" + kSurfaceExts + "}"),
            V("v7", "{" + kSurfaceExts + R"(, "hidden_functions": ["vkGetPhysicalDeviceSurfaceSupportKHR"]})"))
            .Evidence("interface 7: surface functions vk_icdGetInstanceProcAddr answers NULL for: "
                      "vkGetPhysicalDeviceSurfaceSupportKHR")
            .Reason("not queryable through vk_icdGetInstanceProcAddr: vkGetPhysicalDeviceSurfaceSupportKHR"));
    // ---- LDP_DRIVER_10
    add(Row("Driver10RefusesOnlyApi2", "LDP_DRIVER_10", "warn",
            V("v7", R"({"misbehave": {"incompatible_for_api_2": true}})"))
            .Evidence("interface 7: vkCreateInstance(apiVersion 2.0.0) -> VK_ERROR_INCOMPATIBLE_DRIVER")
            .Reason("refuses apiVersion 2.0.0 (every 1.x is accepted)"));
    // ---- LDP_DRIVER_11
    add(Row("Driver11DifferentFileLoaded", "LDP_DRIVER_11", "warn", V("v7", "{}").Set(&Config::preload_hard_link, true))
            .Evidence("/libpreloaded_copy.so")
            .Reason("/libpreloaded_copy.so was loaded"));
    // A stale manifest of another driver in the search directories: listed as evidence; the
    // driver under test is not at fault, so its verdict stays pass.
    add(Row("Driver11ListsStaleManifests", "LDP_DRIVER_11", "pass", V("v7", "{}").Set(&Config::stale_sibling, true))
            .Evidence("/libremoved_driver.so, which does not exist")
            .Reason("the library exists and matches the manifest"));
    // ---- LDP_DRIVER_12
    add(Row("Driver12RegistryOlderThanDriver", "LDP_DRIVER_12", "warn", V("v7", R"({"api_version": "1.3.900"})"),
            V("v7", R"({"api_version": "1.3.900", "instance_extensions": ["VK_KHR_get_physical_device_properties2", )"
                    R"("VK_MOCK_acme_surface"]})"))
            .Evidence("instance extension VK_MOCK_acme_surface: not in the registry (platform/WSI extension)")
            .Reason("is older than the driver (900); use --registry with a newer vk.xml"));
    // ---- interface lints
    add(Row("LintGipaNullInstanceAnswersNonGlobalNames", "LDP_DRIVER_3", "warn",
            V("v7", R"({"misbehave": {"gipa_null_instance_answers_all": true}})"))
            .Check("LINT_GIPA_NULL")
            .Evidence("NULL instance, non-global names answered: vkCreateDevice, vkDestroyInstance, "
                      "vkEnumeratePhysicalDevices, vkGetPhysicalDeviceProperties")
            .Reason("with a NULL instance it answers non-global names"));
    add(Row("LintGipaMissingRequiredCommand", "RULE_DRV_REQUIRED_ENTRYPOINTS", "fail",
            V("v7", R"({"hidden_functions": ["vkGetDeviceProcAddr"]})"))
            .Check("LINT_GIPA_NULL")
            .Evidence("instance, the 12 commands a loader requires: NULL for vkGetDeviceProcAddr")
            .Reason("is NULL for vkGetDeviceProcAddr, which a loader requires"));
    add(Row("LintGipaMissingRequiredPhysicalDeviceQuery", "RULE_DRV_REQUIRED_ENTRYPOINTS", "fail",
            V("v7", R"({"hidden_functions": ["vkGetPhysicalDeviceSparseImageFormatProperties"]})"))
            .Check("LINT_GIPA_NULL")
            .Evidence("NULL for vkGetPhysicalDeviceSparseImageFormatProperties")
            .Reason("is NULL for vkGetPhysicalDeviceSparseImageFormatProperties, which a loader requires"));
    add(Row("LintGlobalCreateInstanceMissing", "LDP_DRIVER_3", "fail",
            V("v7", R"({"hidden_functions": ["vkCreateInstance"]})"))
            .Check("LINT_GLOBAL_NULL_INSTANCE")
            // without vkCreateInstance nothing can be checked further; negotiation itself is fine
            // (LDP_DRIVER_7 and 11 only compare versions and files)
            .Also({{"LDP_DRIVER_1", "pass"},
                   {"LDP_DRIVER_3", "fail"},
                   {"LDP_DRIVER_4", "pass"},
                   {"LDP_DRIVER_7", "pass"},
                   {"LDP_DRIVER_11", "pass"},
                   {"LINT_VK_EXPORTS", "pass"}})
            .OthersNotTestable()
            .Evidence("NULL instance: vkCreateInstance -> NULL")
            .Reason("vkCreateInstance is not queryable with a NULL instance"));
}

std::vector<Case> Cases() {
    std::vector<Case> v;
    auto add = [&](Case c) { v.push_back(std::move(c)); };
    // ---- LDP_DRIVER_1
    add(Row("Driver1CorruptsOtherDriver", "LDP_DRIVER_1", "fail",
            V("v7", R"({"misbehave": {"corrupt_other_driver": true}})"))
            .Evidence("its devices are left out"));
    // ---- LDP_DRIVER_2
    add(Row("Driver2CrashWithZeroDevices", "LDP_DRIVER_2", "fail", V("v7", R"({"physical_devices": []})"),
            V("v7", R"({"physical_devices": [], "misbehave": {"crash_with_zero_devices": true}})"))
            .Evidence("vkEnumeratePhysicalDevices -> VK_SUCCESS, 0 devices"));
    // A driver that finds a device and aborts in one of its physical-device queries.
    add(Row("Driver2CrashInPhysicalDeviceQuery", "LDP_DRIVER_2", "fail",
            V("v7", R"({"crash_in": ["vkGetPhysicalDeviceSparseImageFormatProperties"]})"))
            .Evidence("vkEnumeratePhysicalDevices -> VK_SUCCESS, 1 devices")
            .Reason("killed by signal 6 (Aborted) during vkGetPhysicalDeviceSparseImageFormatProperties (device 0)"));
    // ---- LDP_DRIVER_3
    add(Row("Driver3ReturnsVersionAboveOffered", "LDP_DRIVER_3", "fail", V("v7_exports", "{}"),
            V("v7_exports", R"({"interface": {"report_version": 9}})"))
            // offered 4 it answers 9: the interface-4 check cannot run at 4.
            .Also({{"LDP_DRIVER_9", "not-applicable"}})
            .Evidence("offered 4 -> VK_SUCCESS, version 9"));
    add(Row("Driver3NegotiateReturnsError", "LDP_DRIVER_3", "fail", V("v7_exports", "{}"),
            V("v7_exports", R"({"interface": {"negotiate_result": "VK_ERROR_INITIALIZATION_FAILED"}})"))
            .Evidence("VK_ERROR_INITIALIZATION_FAILED"));
    add(Row("Driver3RefusesEveryVersion", "LDP_DRIVER_3", "fail", V("v7_exports", "{}"),
            V("v7_exports",
              R"({"results": {"vk_icdNegotiateLoaderICDInterfaceVersion": "VK_ERROR_INCOMPATIBLE_DRIVER"}})"))
            // no loader can load it: every check that loads the driver cannot run
            .Also({{"LDP_DRIVER_1", "pass"},
                   {"LDP_DRIVER_4", "pass"},
                   {"LDP_DRIVER_9", "not-applicable"},
                   {"LDP_DRIVER_11", "not-testable-here"},
                   {"LINT_VK_EXPORTS", "pass"}})
            .OthersNotTestable()
            .Evidence("offered 0 -> VK_ERROR_INCOMPATIBLE_DRIVER"));
    // at interface 5 a loader looks for vk_icdGetPhysicalDeviceProcAddr only among the exports
    add(Row("Driver3GipaOnlyNegotiationBelow7", "LDP_DRIVER_3", "fail", V("v7", R"({"interface": {"max": 5}})"))
            .Also({{"LINT_GPDPA_NULL", "not-applicable"}})
            .Evidence("through vk_icdGetInstanceProcAddr: offered 7 -> VK_SUCCESS, version 5"));
    add(Row("Driver3MinimumAboveOfferedIsFine", "LDP_DRIVER_3", "pass", V("v7_exports", "{}"),
            V("v7_exports", R"({"interface": {"min": 3}})"))
            .Evidence("offered 2 -> VK_ERROR_INCOMPATIBLE_DRIVER"));
    // ---- LDP_DRIVER_4
    add(Row("Driver4NotJson", "LDP_DRIVER_4", "fail",
            ManifestText(R"({"file_format_version": "1.0.0", "ICD": {"library_path": "@LIB@",, }})"))
            .OthersNotTestable()
            .Evidence("not valid JSON"));
    add(Row("Driver4MissingApiVersion", "LDP_DRIVER_4", "fail",
            ManifestText(R"({"file_format_version": "1.0.0", "ICD": {"library_path": "@LIB@"}})"))
            .OthersNotTestable()
            .Evidence("'ICD.api_version' is missing"));
    add(Row("Driver4BadVersionString", "LDP_DRIVER_4", "fail", V("v7", "{}", "1.3"))
            .OthersNotTestable()
            .Evidence("is not a major.minor.patch version"));
    add(Row("Driver4LibraryArchMismatch", "LDP_DRIVER_4", "fail",
            ManifestText(
                R"({"file_format_version": "1.0.1", "ICD": {"library_path": "@LIB@", "api_version": "1.3.0", "library_arch": "32"}})"))
            .OthersNotTestable()
            .Evidence("says 32-bit but the library is a 64-bit ELF file"));
    add(Row("Driver4NameNotJson", "LDP_DRIVER_4", "fail", V("v7", "{}").Set(&Config::manifest_name, "driver.txt"))
            .Evidence("does not end in \\\".json\\\""));
    // the loader's parser rejects the manifest too, so nothing else can run
    add(Row("Driver4PortabilityNotBool", "LDP_DRIVER_4", "fail",
            ManifestText(
                R"({"file_format_version": "1.0.1", "ICD": {"library_path": "@LIB@", "api_version": "1.3.0", "is_portability_driver": "no"}})"))
            .OthersNotTestable()
            .Evidence("'ICD.is_portability_driver' is a string, not a boolean"));
    // a 1.0.1 field in a 1.0.0 file
    add(Row("Driver4NewerFieldInOldFormat", "LDP_DRIVER_4", "warn",
            V("v7", "{}").Set(&Config::manifest_extra, ", \"library_arch\": \"64\""))
            .Evidence("file format 1.0.1 field"));
    // A file_format_version the interface document does not define (1.2.0): loaders parse it with
    // the fields they know and load the driver, so it is advisory; everything else is unchanged.
    add(Row("Driver4UnknownFileFormatVersion", "LDP_DRIVER_4", "warn",
            V("v7", "{}").Set(&Config::manifest_testdata, "unknown_file_format_version.json"))
            .Evidence("has unknown icd manifest file version 1.2.0")
            .Reason("'file_format_version' 1.2.0 is not one the interface document defines"));
    add(Row("Driver4And11MissingLibrary", "LDP_DRIVER_4", "fail", V("v7", "{}").Set(&Config::missing_library, true))
            .Also({{"LDP_DRIVER_11", "fail"}})
            .OthersNotTestable()
            .Evidence("does not exist"));
    // ---- LDP_DRIVER_7
    add(Row("Driver7Vulkan13AtInterface4", "LDP_DRIVER_7", "fail", V("v7_exports", R"({"interface": {"max": 5}})"),
            V("v7_exports", R"({"interface": {"max": 4}})"))
            .Also({{"LDP_DRIVER_10", "not-applicable"}})
            .Evidence("negotiated interface 4"));
    add(Row("Driver7Variant4", "LDP_DRIVER_7", "fail", V("v4", kApi10 + "}", "1.0.0"), V("v4", "{}"))
            .Evidence("manifest api_version 1.3.0"));
    // The manifest says 1.0 but the library's own vkEnumerateInstanceVersion says 1.1, at interface 4.
    add(Row("Driver7LibraryVersionAboveManifest", "LDP_DRIVER_7", "fail", V("v4", kApi10 + "}", "1.0.0"),
            V("v4", R"({"api_version": "1.1.0", "physical_devices": [{"api_version": "1.0.0"}]})", "1.0.0"))
            // the manifest no longer describes the library's version
            .Also({{"LDP_DRIVER_11", "warn"}})
            .Evidence("manifest api_version 1.0.0; vkEnumerateInstanceVersion 1.1.0")
            .Reason("supports Vulkan 1.1.0 but its highest interface version is 4"));
    // ---- LDP_DRIVER_8
    add(Row("Driver8SurfacesBelowInterface3", "LDP_DRIVER_8", "fail",
            V("v2", kApi10 + ", " + kSurfaceExts + "}", "1.0.0"),
            V("v2", kApi10 + ", " + kSurfaceExts + R"(, "misbehave": {"surface_without_interface_3": true}})", "1.0.0"))
            .Evidence("interface 2: surface creation through vk_icdGetInstanceProcAddr: vkCreateXcbSurfaceKHR"));
    add(Row("Driver8SurfacesExposedToOldLoader", "LDP_DRIVER_8", "warn", V("v7_exports", "{" + kSurfaceExts + "}"),
            V("v7_exports", "{" + kSurfaceExts + R"(, "misbehave": {"surface_without_interface_3": true}})"))
            .Evidence("offered 2 -> interface 2: surface creation vkCreateXcbSurfaceKHR"));
    // ---- LDP_DRIVER_9
    add(Row("Driver9Vulkan10AcceptsNewerApi", "LDP_DRIVER_9", "fail", V("v7", kApi10 + "}", "1.0.0"),
            V("v7", kApi10 + R"(, "misbehave": {"accept_any_api_version": true}})", "1.0.0"))
            .Evidence("vkCreateInstance(apiVersion 1.1.0) -> VK_SUCCESS"));
    add(Row("Driver9Vulkan13AcceptsNewerApi", "LDP_DRIVER_9", "warn",
            V("v7", R"({"misbehave": {"accept_any_api_version": true}})"))
            .Evidence("vkCreateInstance(apiVersion 1.4.0) -> VK_SUCCESS"));
    // ---- LDP_DRIVER_10
    add(Row("Driver10RefusesApiAt5", "LDP_DRIVER_10", "fail",
            V("v7", R"({"misbehave": {"incompatible_for_any_api_above_1_0": true}})"))
            .Evidence("vkCreateInstance(apiVersion 1.1.0) -> VK_ERROR_INCOMPATIBLE_DRIVER"));
    // ---- LDP_DRIVER_11
    add(Row("Driver11ManifestClaimsMoreThanLibrary", "LDP_DRIVER_11", "fail",
            V("v7", R"({"api_version": "1.1.0"})", "1.1.0"), V("v7", R"({"api_version": "1.1.0"})", "1.3.0"))
            .Evidence("manifest api_version 1.3.0, library vkEnumerateInstanceVersion 1.1.0"));
    add(Row("Driver11ManifestOlderThanLibrary", "LDP_DRIVER_11", "warn", V("v7", "{}", "1.3.0"), V("v7", "{}", "1.1.0"))
            .Evidence("manifest api_version 1.1.0, library vkEnumerateInstanceVersion 1.3.0"));
    add(Row("Driver11DuplicateManifest", "LDP_DRIVER_11", "warn", V("v7", "{}").Set(&Config::duplicate_manifest, true))
            .Evidence("zz_copy_of_driver.json names the same library"));
    // ---- LDP_DRIVER_12
    add(Row("Driver12UnpublishedExtension", "LDP_DRIVER_12", "warn",
            V("v7", R"({"misbehave": {"unpublished_extension": true}})"))
            .Evidence("instance extension VK_MOCK_unpublished_extension: not in the registry"));
    add(Row("Driver12UnpublishedPlatformInstanceExtension", "LDP_DRIVER_12", "fail",
            V("v7", R"({"instance_extensions": ["VK_KHR_get_physical_device_properties2", "VK_MOCK_acme_surface"]})"))
            .Evidence("VK_MOCK_acme_surface: not in the registry (platform/WSI extension)"));
    add(Row("Driver12UnpublishedPlatformDeviceExtension", "LDP_DRIVER_12", "fail",
            V("v7", R"({"physical_devices": [{"extensions": ["VK_MOCK_acme_swapchain"]}]})"))
            .Evidence("device 0 'Mock Device 0' extension VK_MOCK_acme_swapchain"));
    // ---- interface lints (LDP_DRIVER_3: the interface's requirements; vk exports: LDP_DRIVER_1 hazard)
    add(Row("LintNoLoaderMagic", "LDP_DRIVER_3", "fail", V("v7", R"({"misbehave": {"no_loader_magic": true}})"))
            .Check("LINT_LOADER_MAGIC")
            .Evidence("not ICD_LOADER_MAGIC"));
    add(Row("LintGpdpaAnswersEverything", "LDP_DRIVER_3", "fail",
            V("v7", R"({"misbehave": {"gpdpa_answers_everything": true}})"))
            .Check("LINT_GPDPA_NULL")
            .Evidence("non-NULL for: vkCreateInstance"));
    add(Row("LintGipaAnswersUnknownName", "LDP_DRIVER_3", "fail",
            V("v7", std::string(R"({"device_functions": [")") + kUnknownFn + "\"]}"))
            .Check("LINT_GIPA_NULL")
            .Evidence("unknown name with NULL and with an instance: answered"));
    // without vkEnumerateInstanceVersion the library's version cannot be compared any more
    add(Row("LintNoEnumerateInstanceVersion", "LDP_DRIVER_3", "warn",
            V("v7", R"({"expose_enumerate_instance_version": false})"))
            .Check("LINT_GLOBAL_NULL_INSTANCE")
            .Evidence("NULL instance: vkEnumerateInstanceVersion -> NULL"));
    add(Row("LintVkExportsWithoutBsymbolic", "LDP_DRIVER_1", "warn", V("v7_vkexports", "{}"))
            .Check("LINT_VK_EXPORTS")
            .Evidence("-Bsymbolic (DT_SYMBOLIC/DF_SYMBOLIC): no"));
    // The same exports linked with -Bsymbolic are what the interface document asks for: not flagged.
    add(Row("LintVkExportsWithBsymbolicPass", "LDP_DRIVER_1", "pass", V("v7_vkexports_symbolic", "{}"))
            .Check("LINT_VK_EXPORTS")
            .Evidence("-Bsymbolic (DT_SYMBOLIC/DF_SYMBOLIC): yes")
            .Reason("exports 10 standard vk* functions and is linked with -Bsymbolic"));
    MoreCases(add);
    return v;
}

class LdpCheckViolation : public ::testing::TestWithParam<Case> {};

TEST_P(LdpCheckViolation, ReportsExactlyThisViolation) {
    const Case &c = GetParam();
    VKT_POLICY(c.policy);
    LdpRun good = Check(c.good);
    LdpRun bad = Check(c.bad);
    ASSERT_TRUE(good.json.valid()) << good.out << good.err;
    ASSERT_TRUE(bad.json.valid()) << bad.out << bad.err;
    // The well-configured mock: nothing to report for the targeted check.
    EXPECT_TRUE(good.verdict[c.id] == "pass" || good.verdict[c.id] == "not-applicable") << good.Describe();
    for (const auto &kv : good.verdict) EXPECT_NE(kv.second, "fail") << kv.first << "\n" << good.Describe();
    // The violation: reported by the targeted check.
    EXPECT_EQ(bad.verdict[c.id], c.expected) << bad.Describe();
    if (!c.evidence_contains.empty()) {
        std::string all = bad.out;
        EXPECT_NE(all.find(c.evidence_contains), std::string::npos)
            << "evidence lacks '" << c.evidence_contains << "'\n"
            << bad.Describe();
    }
    if (!c.reason_contains.empty()) {
        EXPECT_NE(bad.reason[c.id].find(c.reason_contains), std::string::npos)
            << "reason lacks '" << c.reason_contains << "'\n"
            << bad.Describe();
        bool in_evidence = false; // and the evidence lines of that check are the ones shown
        for (const std::string &e : bad.evidence[c.id])
            in_evidence = in_evidence || e.find(c.evidence_contains) != std::string::npos;
        EXPECT_TRUE(in_evidence) << "evidence of " << c.id << " lacks '" << c.evidence_contains << "'\n"
                                 << bad.Describe();
    }
    // Every other check: the same verdict as for the well-configured mock.
    for (const auto &kv : good.verdict) {
        const std::string &id = kv.first;
        if (id == c.id) continue;
        auto also = c.also.find(id);
        if (also != c.also.end()) {
            EXPECT_EQ(bad.verdict[id], also->second) << id << "\n" << bad.Describe();
        } else if (c.others_not_testable && id != Id(6)) {
            EXPECT_EQ(bad.verdict[id], "not-testable-here") << id << "\n" << bad.Describe();
        } else {
            EXPECT_EQ(bad.verdict[id], kv.second) << id << "\n" << bad.Describe();
        }
    }
    bool any_fail = false;
    for (const auto &kv : bad.verdict) any_fail = any_fail || kv.second == "fail";
    EXPECT_EQ(bad.exit_status, any_fail ? 1 : 0) << bad.Describe();
}

INSTANTIATE_TEST_SUITE_P(Mock, LdpCheckViolation, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case> &i) { return i.param.name; });

// ---- the well-behaved mock passes everything ------------------------------------------------

TEST(LdpCheck, WellBehavedMockPassesEverything) {
    VKT_POLICY("LDP_DRIVER_1", "LDP_DRIVER_2", "LDP_DRIVER_3", "LDP_DRIVER_4", "LDP_DRIVER_7", "LDP_DRIVER_8",
               "LDP_DRIVER_9", "LDP_DRIVER_10", "LDP_DRIVER_11", "LDP_DRIVER_12");
    for (const char *variant : {"v7", "v7_exports"}) {
        Config c = V(variant, "{" + kSurfaceExts + "}");
        LdpRun r = Check(c);
        ASSERT_TRUE(r.json.valid()) << r.out << r.err;
        EXPECT_EQ(r.exit_status, 0) << r.Describe();
        std::map<std::string, std::string> want = {{"LDP_DRIVER_1", "pass"},      {"LDP_DRIVER_2", "pass"},
                                                   {"LDP_DRIVER_3", "pass"},      {"LDP_DRIVER_4", "pass"},
                                                   {Id(5), "not-testable-here"},  {Id(6), "removed"},
                                                   {"LDP_DRIVER_7", "pass"},      {"LDP_DRIVER_8", "pass"},
                                                   {"LDP_DRIVER_9", "pass"},      {"LDP_DRIVER_10", "pass"},
                                                   {"LDP_DRIVER_11", "pass"},     {"LDP_DRIVER_12", "pass"},
                                                   {"LINT_LOADER_MAGIC", "pass"}, {"LINT_GPDPA_NULL", "pass"},
                                                   {"LINT_GIPA_NULL", "pass"},    {"LINT_GLOBAL_NULL_INSTANCE", "pass"},
                                                   {"LINT_VK_EXPORTS", "pass"}};
        EXPECT_EQ(r.verdict, want) << variant << "\n" << r.Describe();
    }
}

TEST(LdpCheck, LegacyInterfaceDriversPass) {
    VKT_POLICY("LDP_DRIVER_3");
    for (const char *variant : {"v0", "v2"}) {
        LdpRun r = Check(V(variant, kApi10 + "}", "1.0.0"));
        ASSERT_TRUE(r.json.valid()) << r.out << r.err;
        for (const auto &kv : r.verdict)
            EXPECT_NE(kv.second, "fail") << variant << " " << kv.first << "\n" << r.Describe();
        EXPECT_EQ(r.verdict["LDP_DRIVER_3"], "pass") << variant;
        EXPECT_EQ(r.verdict["LDP_DRIVER_10"], "not-applicable") << variant;
    }
}

// LDP_DRIVER_5 is untestable here (policies.tsv says why); ldp-check only shows the value, which
// this test checks without citing the policy.
TEST(LdpCheck, ConformanceVersionIsShown) {
    LdpRun r = Check(V("v7", R"({"physical_devices": [{"conformance_version": "1.3.5.0", "driver_id": 13}]})"));
    EXPECT_EQ(r.verdict[Id(5)], "not-testable-here") << r.Describe();
    EXPECT_NE(r.out.find("conformanceVersion 1.3.5.0"), std::string::npos) << r.out;
    EXPECT_NE(r.reason[Id(5)].find("claimed"), std::string::npos);
    LdpRun zero = Check(V("v7", "{}"));
    EXPECT_NE(zero.out.find("conformanceVersion 0.0.0.0"), std::string::npos) << zero.out;
    EXPECT_NE(zero.reason[Id(5)].find("0.0.0.0"), std::string::npos);
}

// LDP_DRIVER_5 as far as it goes offline (cts_versions.c): a claimed version older than the
// device's Vulkan version, or no CTS release inside the snapshot's complete ranges, fails; a
// release, a known release line with an unlisted patch, or a version outside the snapshot is only
// "plausible" (not-testable-here, the approval itself is unverifiable). Not cited: the policy row
// keeps its untestable_reason (approval needs Khronos' list).
TEST(LdpCheck, ConformanceVersionPlausibility) {
    struct Case {
        const char *cv;
        const char *api;
        const char *verdict;
        const char *reason;
    } cases[] = {
        {"1.3.0.0", "1.3.0", "not-testable-here", "a CTS release version"},
        {"1.3.5.7", "1.3.0", "not-testable-here", "not contradicted by the CTS release snapshot"},
        {"1.9.0.0", "1.3.0", "not-testable-here", "not contradicted"},
        {"1.2.3.9", "1.2.0", "fail", "is no CTS release"},
        {"1.2.8.0", "1.3.0", "fail", "older than the device's Vulkan 1.3"},
        {"1.3.9.3", "1.3.0", "fail", "every release from 1.3.9.0 to 1.4.4.0"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.cv);
        LdpRun r = Check(V("v7", std::string(R"({"physical_devices": [{"api_version": ")") + c.api +
                                     R"(", "conformance_version": ")" + c.cv + R"(", "driver_id": 13}]})"));
        EXPECT_EQ(r.verdict[Id(5)], c.verdict) << r.Describe();
        EXPECT_NE(r.reason[Id(5)].find(c.reason), std::string::npos) << r.reason[Id(5)];
        EXPECT_NE(r.out.find("CTS release snapshot of 2026-11-26"), std::string::npos) << r.out;
    }
}

TEST(LdpCtsVersions, Classify) {
    char why[600];
    EXPECT_EQ(ldp_cts_classify(0, 0, 0, 0, VK_API_VERSION_1_3, why, sizeof why), LDP_CV_ZERO);
    EXPECT_EQ(ldp_cts_classify(1, 1, 3, 0, VK_API_VERSION_1_1, why, sizeof why), LDP_CV_RELEASE);
    EXPECT_EQ(ldp_cts_classify(1, 4, 4, 0, VK_MAKE_API_VERSION(0, 1, 4, 0), why, sizeof why), LDP_CV_RELEASE);
    EXPECT_EQ(ldp_cts_classify(1, 3, 1, 1, VK_API_VERSION_1_3, why, sizeof why), LDP_CV_LINE_ONLY)
        << why; // lavapipe 22.3
    EXPECT_EQ(ldp_cts_classify(1, 3, 8, 3, VK_API_VERSION_1_3, why, sizeof why), LDP_CV_LINE_ONLY);
    EXPECT_EQ(ldp_cts_classify(1, 2, 4, 2, VK_API_VERSION_1_2, why, sizeof why), LDP_CV_NOT_RELEASE);
    EXPECT_EQ(ldp_cts_classify(1, 3, 9, 3, VK_API_VERSION_1_3, why, sizeof why), LDP_CV_NOT_RELEASE);
    EXPECT_EQ(ldp_cts_classify(1, 4, 5, 0, VK_MAKE_API_VERSION(0, 1, 4, 0), why, sizeof why), LDP_CV_NEWER);
    EXPECT_EQ(ldp_cts_classify(2, 0, 0, 0, VK_MAKE_API_VERSION(0, 1, 4, 0), why, sizeof why), LDP_CV_NEWER);
    EXPECT_EQ(ldp_cts_classify(1, 0, 2, 0, VK_API_VERSION_1_0, why, sizeof why), LDP_CV_OLDER);
    EXPECT_EQ(ldp_cts_classify(1, 1, 6, 0, VK_API_VERSION_1_2, why, sizeof why), LDP_CV_BELOW_API);
    EXPECT_NE(std::string(why).find("older than the device's Vulkan 1.2"), std::string::npos) << why;
    EXPECT_EQ(ldp_cts_classify(1, 300, 0, 0, VK_API_VERSION_1_3, why, sizeof why), LDP_CV_NEWER);
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
    EXPECT_EQ(cases, 17u);
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
    EXPECT_EQ(r.verdict.size(), 17u) << r.Describe();
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

// ---- never a crash: every broken manifest shape, alone and after a valid manifest --------------

// One ldp-check run in its own process group, killed (with the group) after limit_s seconds, so
// a checker that hangs fails the test instead of hanging it.
using Bounded = vkt::ProcessResult;

Bounded RunLdpCheckBounded(const std::vector<std::string> &args, const std::map<std::string, std::string> &env,
                           double limit_s = 180) {
    std::vector<std::string> argv = {vkt::Runfile("conformance/driver/ldp-check"),
                                     "--loader=" + vkt::Runfile("loader/libvulkan.so.1"),
                                     "--mock=" + vkt::Runfile("mock_icd/libmock_icd_v7.so"), "--timeout=10"};
    for (const auto &a : args) argv.push_back(a);
    vkt::ProcessOptions options;
    options.env = env;
    options.timeout_s = limit_s;
    return vkt::RunProcess(argv, options);
}

// Whether `s` is well-formed UTF-8 (no overlong forms, surrogates or code points above U+10FFFF);
// *where: the offset of the first bad byte.
bool IsUtf8(const std::string &s, size_t *where) {
    size_t i = 0;
    while (i < s.size()) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        size_t extra = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 4;
        if (extra == 4 || i + extra >= s.size()) { // a bad lead byte, or the sequence is cut off
            *where = i;
            return false;
        }
        uint32_t cp = extra == 0 ? c : extra == 1 ? (c & 0x1Fu) : extra == 2 ? (c & 0x0Fu) : (c & 0x07u);
        for (size_t k = 1; k <= extra; k++) {
            unsigned char cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xC0) != 0x80) {
                *where = i;
                return false;
            }
            cp = (cp << 6) | (cc & 0x3Fu);
        }
        static const uint32_t kMin[4] = {0, 0x80, 0x800, 0x10000};
        if (cp < kMin[extra] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            *where = i;
            return false;
        }
        i += extra + 1;
    }
    return true;
}

std::string XmlUnescape(const std::string &v) {
    static const std::pair<const char *, char> kEntities[] = {
        {"&lt;", '<'}, {"&gt;", '>'}, {"&amp;", '&'}, {"&quot;", '"'}, {"&apos;", '\''}};
    std::string out;
    for (size_t i = 0; i < v.size();) {
        bool done = false;
        for (const auto &e : kEntities) {
            size_t l = strlen(e.first);
            if (v.compare(i, l, e.first) == 0) {
                out += e.second;
                i += l;
                done = true;
                break;
            }
        }
        if (!done) out += v[i++];
    }
    return out;
}

// Text or an attribute value: no '<', and every '&' starts one of the five predefined entities.
bool XmlCharsOk(const std::string &t) {
    if (t.find('<') != std::string::npos) return false;
    for (size_t p = t.find('&'); p != std::string::npos; p = t.find('&', p + 1)) {
        bool ok = false;
        for (const char *e : {"&lt;", "&gt;", "&amp;", "&quot;", "&apos;"}) ok = ok || t.compare(p, strlen(e), e) == 0;
        if (!ok) return false;
    }
    return true;
}

struct XmlElement {
    std::string name;
    std::map<std::string, std::string> attrs; // unescaped
};

// Well-formedness of the JUnit report, enough to trust what it says: the XML declaration, one root
// <testsuites>, every element closed in order, attributes quoted and escaped, text escaped, valid
// UTF-8. Returns the start tags in document order (empty and *why set when it is not well formed).
std::vector<XmlElement> ParseJunit(const std::string &xml, std::string *why) {
    std::vector<XmlElement> elements;
    const std::string decl = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    size_t bad = 0;
    if (!IsUtf8(xml, &bad)) {
        *why = "not UTF-8 at byte " + std::to_string(bad);
        return {};
    }
    if (xml.compare(0, decl.size(), decl) != 0) {
        *why = "no XML declaration";
        return {};
    }
    std::vector<std::string> open;
    bool had_root = false;
    size_t pos = decl.size();
    while (pos < xml.size()) {
        size_t lt = xml.find('<', pos);
        std::string text = xml.substr(pos, lt == std::string::npos ? std::string::npos : lt - pos);
        if (!XmlCharsOk(text) || text.find('>') != std::string::npos ||
            (open.empty() && text.find_first_not_of(" \t\r\n") != std::string::npos)) {
            *why = "bad text at offset " + std::to_string(pos);
            return {};
        }
        if (lt == std::string::npos) break;
        size_t gt = xml.find('>', lt);
        if (gt == std::string::npos) {
            *why = "unterminated tag at offset " + std::to_string(lt);
            return {};
        }
        std::string tag = xml.substr(lt + 1, gt - lt - 1);
        pos = gt + 1;
        if (!tag.empty() && tag[0] == '/') {
            if (open.empty() || open.back() != tag.substr(1)) {
                *why = "</" + tag.substr(1) + "> closes " + (open.empty() ? "nothing" : open.back());
                return {};
            }
            open.pop_back();
            continue;
        }
        bool self_closing = !tag.empty() && tag.back() == '/';
        if (self_closing) tag.pop_back();
        XmlElement e;
        size_t i = tag.find_first_of(" \t\n");
        e.name = tag.substr(0, i);
        if (e.name.empty() || e.name.find_first_of("<&\"'=") != std::string::npos) {
            *why = "bad element name at offset " + std::to_string(lt);
            return {};
        }
        while (i != std::string::npos && i < tag.size()) {
            i = tag.find_first_not_of(" \t\n", i);
            if (i == std::string::npos) break;
            size_t eq = tag.find('=', i);
            if (eq == std::string::npos || eq + 1 >= tag.size() || tag[eq + 1] != '"') {
                *why = "unquoted attribute in <" + e.name + "> at offset " + std::to_string(lt);
                return {};
            }
            size_t close = tag.find('"', eq + 2);
            if (close == std::string::npos) {
                *why = "unterminated attribute in <" + e.name + ">";
                return {};
            }
            std::string value = tag.substr(eq + 2, close - eq - 2);
            if (!XmlCharsOk(value)) {
                *why = "unescaped attribute value in <" + e.name + ">: " + value;
                return {};
            }
            e.attrs[tag.substr(i, eq - i)] = XmlUnescape(value);
            i = close + 1;
        }
        if (open.empty()) {
            if (had_root || e.name != "testsuites") {
                *why = "a second root or a root other than <testsuites>: <" + e.name + ">";
                return {};
            }
            had_root = true;
        }
        elements.push_back(e);
        if (!self_closing) open.push_back(e.name);
    }
    if (!open.empty() || !had_root) {
        *why = open.empty() ? "no root element" : "<" + open.back() + "> is not closed";
        return {};
    }
    return elements;
}

// One broken shape: what ldp-check must say about it.
struct Broken {
    std::string name;
    int exit_status;      // 1: an LDP_DRIVER_4 fail; 2: an I/O error of that manifest
    bool found_by_search; // the loader's search lists it (it skips what is not a regular file)
    std::string reason;   // in the LDP_DRIVER_4 reason (exit 1) or the error (exit 2)
};

std::ostream &operator<<(std::ostream &o, const Broken &b) { return o << b.name; }

std::vector<Broken> BrokenShapes() {
    return {
        {"MissingLibrary", 1, true, "libnot_there.so does not exist"},
        {"DirectoryAsLibrary", 1, true, "is a directory, not a regular file"},
        {"UnreadableManifest", 2, true, "cannot be read: Input/output error"}, // read(2) fails, root or not
        {"UnreadableLibrary", 1, true, "cannot be loaded"},                    // mode 000, not an ELF file
        {"FifoAsLibrary", 1, true, "is a FIFO, not a regular file"},
        {"FifoAsManifest", 2, false, "not a regular file"},
        {"DevZeroAsLibrary", 1, true, "/dev/zero is a character device, not a regular file"},
        {"HugeManifest", 1, true, "bytes, more than the 16777216-byte (16 MiB) limit"},
        {"DeeplyNestedJson", 1, true, "the loader's manifest parser rejects it"},
        {"InvalidUtf8", 1, true, "does not exist"},
        {"DuplicateKeys", 1, true, "libfirst_not_there.so does not exist"}, // the first occurrence wins
        {"WrongTypes", 1, true, "the loader's manifest parser rejects it"},
        {"RelativeLibraryPath", 1, true, "no/such/dir/libdriver.so does not exist"},
        {"SymlinkLoopAsLibrary", 1, true, "cannot be reached (Too many levels of symbolic links)"},
        {"SymlinkLoopAsManifest", 2, false, "Too many levels of symbolic links"},
    };
}

std::string IcdJson(const std::string &library_path) {
    return "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" + library_path +
           "\", \"api_version\": \"1.3.0\"}}\n";
}

// Writes the broken shape into its own directory (so LDP_DRIVER_11's scan of the good manifest's
// directory never sees it) and returns its manifest path.
std::string MakeBroken(vkt::Sandbox &sb, const std::string &shape, const std::string &good_library) {
    std::string dir = sb.root() + "/broken_" + shape;
    vkt::MakeDirs(dir);
    std::string m = dir + "/" + shape + ".json";
    if (shape == "MissingLibrary") {
        sb.WriteFile(m, IcdJson(dir + "/libnot_there.so"));
    } else if (shape == "DirectoryAsLibrary") {
        vkt::MakeDirs(dir + "/libdir.so");
        sb.WriteFile(m, IcdJson(dir + "/libdir.so"));
    } else if (shape == "UnreadableManifest") {
        EXPECT_EQ(symlink("/proc/self/mem", m.c_str()), 0) << strerror(errno);
    } else if (shape == "UnreadableLibrary") {
        sb.WriteFile(dir + "/libsecret.so", "not readable, and not a shared object either\n");
        chmod((dir + "/libsecret.so").c_str(), 0);
        sb.WriteFile(m, IcdJson(dir + "/libsecret.so"));
    } else if (shape == "FifoAsLibrary") {
        EXPECT_EQ(mkfifo((dir + "/libfifo.so").c_str(), 0644), 0) << strerror(errno);
        sb.WriteFile(m, IcdJson(dir + "/libfifo.so"));
    } else if (shape == "FifoAsManifest") {
        EXPECT_EQ(mkfifo(m.c_str(), 0644), 0) << strerror(errno);
    } else if (shape == "DevZeroAsLibrary") {
        sb.WriteFile(m, IcdJson("/dev/zero"));
    } else if (shape == "HugeManifest") {
        // a valid manifest padded with whitespace to 17 MiB (the limit is 16 MiB)
        std::string text = IcdJson(good_library);
        text.resize(17u * 1024u * 1024u, ' ');
        sb.WriteFile(m, text);
    } else if (shape == "DeeplyNestedJson") {
        sb.WriteFile(m, "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" + good_library +
                            "\", \"api_version\": \"1.3.0\", \"x\": " + std::string(100000, '[') +
                            std::string(100000, ']') + "}}");
    } else if (shape == "InvalidUtf8") {
        // in the file name and in library_path: the JSON and JUnit reports must stay UTF-8
        m = dir + "/bad_\xff\xfe_name.json";
        sb.WriteFile(m, IcdJson(dir + "/lib\xc3\x28\xed\xa0\x80\xf8.so"));
    } else if (shape == "DuplicateKeys") {
        sb.WriteFile(m, "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" + dir +
                            "/libfirst_not_there.so\", \"api_version\": \"1.3.0\", \"library_path\": \"" +
                            good_library + "\"}, \"ICD\": {\"library_path\": \"" + good_library +
                            "\", \"api_version\": \"1.3.0\"}}");
    } else if (shape == "WrongTypes") {
        sb.WriteFile(
            m, R"({"file_format_version": 1, "ICD": {"library_path": [], "api_version": {}, "library_arch": 64}})");
    } else if (shape == "RelativeLibraryPath") {
        sb.WriteFile(m, IcdJson("no/such/dir/libdriver.so"));
    } else if (shape == "SymlinkLoopAsLibrary") {
        EXPECT_EQ(symlink((dir + "/libloop_b.so").c_str(), (dir + "/libloop_a.so").c_str()), 0);
        EXPECT_EQ(symlink((dir + "/libloop_a.so").c_str(), (dir + "/libloop_b.so").c_str()), 0);
        sb.WriteFile(m, IcdJson(dir + "/libloop_a.so"));
    } else if (shape == "SymlinkLoopAsManifest") {
        EXPECT_EQ(symlink((dir + "/loop_b.json").c_str(), m.c_str()), 0);
        EXPECT_EQ(symlink(m.c_str(), (dir + "/loop_b.json").c_str()), 0);
    } else {
        ADD_FAILURE() << "unknown shape " << shape;
    }
    return m;
}

std::string Pad(std::string s, size_t n) {
    if (s.size() < n) s.resize(n, ' ');
    return s;
}

class LdpCheckBrokenManifest : public ::testing::TestWithParam<Broken> {};

// Every shape, alone, after a valid manifest (the well-behaved v7 mock) and through --installed
// (VK_DRIVER_FILES naming both), in every output format: ldp-check never dies of a signal or hangs,
// exits 1 (an LDP_DRIVER_4 fail) or 2 (an I/O error of that manifest) as documented, keeps the valid
// manifest's verdicts, and writes a report that parses and lists every manifest.
TEST_P(LdpCheckBrokenManifest, NeverACrash) {
    VKT_POLICY("LDP_DRIVER_4", "LDP_DRIVER_11");
    const Broken &shape = GetParam();
    vkt::Sandbox sb;
    std::string good = Materialise(sb, V("v7", "{}"));
    std::string broken = MakeBroken(sb, shape.name, sb.driver("drv").library);
    // The valid manifest alone: the verdicts every later run must repeat for it.
    Bounded ref = RunLdpCheckBounded({"--format=json", good}, {});
    ASSERT_FALSE(ref.timed_out) << "ldp-check hung on the valid manifest alone";
    ASSERT_EQ(ref.status, 0) << ref.out << ref.err;
    vkt::Json refj = vkt::Json::Parse(ref.out);
    ASSERT_TRUE(refj.valid()) << ref.out;
    std::map<std::string, std::string> want;
    vkt::Json rr = refj["drivers"][0]["results"];
    for (size_t i = 0; i < rr.size(); i++) want[rr[i]["id"].str()] = rr[i]["verdict"].str();
    ASSERT_EQ(want.size(), 17u) << ref.out;

    struct Mode {
        const char *name;
        std::vector<std::string> args;
        std::map<std::string, std::string> env;
        std::vector<std::string> manifests; // what the report must list, in this order
        int exit_status;
    };
    std::vector<Mode> modes = {
        {"alone", {broken}, {}, {broken}, shape.exit_status},
        {"after a valid manifest", {good, broken}, {}, {good, broken}, shape.exit_status},
        {"--installed",
         {"--installed"},
         {{"VK_DRIVER_FILES", good + ":" + broken}},
         shape.found_by_search ? std::vector<std::string>{good, broken} : std::vector<std::string>{good},
         shape.found_by_search ? shape.exit_status : 0},
    };
    for (const Mode &mode : modes) {
        for (const char *format : {"table", "json", "junit"}) {
            std::vector<std::string> args = {std::string("--format=") + format};
            args.insert(args.end(), mode.args.begin(), mode.args.end());
            Bounded r = RunLdpCheckBounded(args, mode.env);
            std::string what = shape.name + ", " + mode.name + ", --format=" + format;
            std::string show = what + "\nexit " + std::to_string(r.status) + " after " + std::to_string(r.seconds) +
                               " s\nstderr: " + r.err.substr(0, 3000) + "\nstdout: " + r.out.substr(0, 6000);
            ASSERT_FALSE(r.timed_out) << "ldp-check hung: " << show;
            EXPECT_LT(r.status, 128) << "ldp-check died of a signal: " << show;
            EXPECT_EQ(r.status, mode.exit_status) << show;
            bool has_good = mode.manifests.front() == good;
            bool has_broken = mode.manifests.back() == broken;
            if (shape.exit_status == 2 && has_broken) {
                EXPECT_NE(r.err.find(shape.reason), std::string::npos)
                    << "stderr lacks '" << shape.reason << "': " << show;
            }
            if (strcmp(format, "json") == 0) {
                size_t bad = 0;
                EXPECT_TRUE(IsUtf8(r.out, &bad)) << "byte " << bad << ": " << show;
                vkt::Json j = vkt::Json::Parse(r.out);
                ASSERT_TRUE(j.valid()) << show;
                ASSERT_EQ(j["drivers"].size(), mode.manifests.size()) << show;
                for (size_t d = 0; d < mode.manifests.size(); d++) {
                    vkt::Json drv = j["drivers"][d];
                    if (mode.manifests[d] == good) {
                        EXPECT_EQ(drv["manifest"].str(), good) << show;
                        EXPECT_FALSE(drv["error"].valid()) << show;
                        std::map<std::string, std::string> got;
                        for (size_t i = 0; i < drv["results"].size(); i++)
                            got[drv["results"][i]["id"].str()] = drv["results"][i]["verdict"].str();
                        EXPECT_EQ(got, want) << "the valid manifest's verdicts changed: " << show;
                    } else if (shape.exit_status == 2) {
                        EXPECT_NE(drv["error"].str().find(shape.reason), std::string::npos) << show;
                    } else {
                        EXPECT_FALSE(drv["error"].valid()) << show;
                        bool found = false;
                        for (size_t i = 0; i < drv["results"].size(); i++) {
                            if (drv["results"][i]["id"].str() != "LDP_DRIVER_4") continue;
                            found = true;
                            EXPECT_EQ(drv["results"][i]["verdict"].str(), "fail") << show;
                            EXPECT_NE(drv["results"][i]["reason"].str().find(shape.reason), std::string::npos)
                                << "reason lacks '" << shape.reason << "': " << show;
                        }
                        EXPECT_TRUE(found) << show;
                    }
                }
            } else if (strcmp(format, "junit") == 0) {
                std::string why;
                std::vector<XmlElement> els = ParseJunit(r.out, &why);
                ASSERT_FALSE(els.empty()) << "JUnit not well formed: " << why << "\n" << show;
                std::vector<const XmlElement *> suites;
                for (const XmlElement &e : els)
                    if (e.name == "testsuite") suites.push_back(&e);
                ASSERT_EQ(suites.size(), mode.manifests.size()) << show;
                for (size_t d = 0; d < suites.size(); d++) {
                    const std::map<std::string, std::string> &a = suites[d]->attrs;
                    if (mode.manifests[d] == good) {
                        EXPECT_EQ(a.at("name"), good) << show;
                        EXPECT_EQ(a.at("tests"), "17") << show;
                        EXPECT_EQ(a.at("failures"), "0") << show;
                        EXPECT_EQ(a.at("errors"), "0") << show;
                    } else {
                        EXPECT_FALSE(a.at("name").empty()) << show;
                        EXPECT_EQ(a.at("errors"), shape.exit_status == 2 ? "1" : "0") << show;
                        if (shape.exit_status == 1) {
                            EXPECT_NE(a.at("failures"), "0") << show;
                        }
                    }
                }
                // The valid manifest's verdicts, one testcase each (its <system-out> starts with the verdict).
                if (has_good) {
                    std::string base = good.substr(good.rfind('/') + 1);
                    for (const auto &kv : want) {
                        std::string tc = "<testcase classname=\"ldp-check." + base + "\" name=\"" + kv.first + "\"";
                        size_t p = r.out.find(tc);
                        ASSERT_NE(p, std::string::npos) << tc << "\n" << show;
                        size_t so = r.out.find("<system-out>", p);
                        ASSERT_NE(so, std::string::npos) << show;
                        EXPECT_EQ(r.out.compare(so + 12, kv.second.size() + 2, kv.second + ": "), 0) << kv.first << "\n"
                                                                                                     << show;
                    }
                }
            } else {
                for (const std::string &m : mode.manifests)
                    EXPECT_NE(r.out.find("\n== " + m + "\n"), std::string::npos) << m << "\n" << show;
                if (has_good) {
                    size_t start = r.out.find("\n== " + good + "\n");
                    size_t end = r.out.find("\n== ", start + 4);
                    std::string section =
                        r.out.substr(start, end == std::string::npos ? std::string::npos : end - start);
                    for (const auto &kv : want)
                        EXPECT_NE(section.find("\n   " + Pad(kv.first, 26) + " " + Pad(kv.second, 18) + " "),
                                  std::string::npos)
                            << kv.first << " " << kv.second << "\n"
                            << show;
                    EXPECT_EQ(section.find("ERROR:"), std::string::npos) << show;
                }
                if (has_broken) {
                    size_t start = r.out.find("\n== " + broken + "\n");
                    std::string section = start == std::string::npos ? "" : r.out.substr(start);
                    if (shape.exit_status == 2) {
                        EXPECT_NE(section.find("   ERROR: "), std::string::npos) << show;
                    } else {
                        EXPECT_NE(section.find("\n   " + Pad("LDP_DRIVER_4", 26) + " " + Pad("fail", 18) + " "),
                                  std::string::npos)
                            << show;
                    }
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Shapes, LdpCheckBrokenManifest, ::testing::ValuesIn(BrokenShapes()),
                         [](const ::testing::TestParamInfo<Broken> &i) { return i.param.name; });

} // namespace
