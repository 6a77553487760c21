// ldp-check against mock ICD configurations: for every failure (or warning) ldp-check claims to
// detect, a mock configuration committing exactly that violation, and the assertion that the
// targeted check reports it while every other check gives the same verdict as for the same mock
// configured well (differences a violation necessarily implies are listed per case, with why).
// Also: the well-behaved mock passes everything, and the conformance version shown. The command
// line is tested in ldp_check_cli_test.cc, broken manifests in ldp_check_broken_test.cc.
// Policy IDs are cited with VKT_POLICY (conformance/framework/policy.h).
#include <map>
#include <string>
#include <utility>
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
    // ---- drivers that lie (LINT_UNTRUSTED_ANSWERS; docs/ldp-check.md "Drivers that lie")
    const char *const untrusted = "RULE_DRV_UNTRUSTED_ANSWERS";
    auto liar = [&](const char *name, const char *sw, const char *evidence) {
        return Row(name, untrusted, "fail", V("v7", std::string(R"({"misbehave": {")") + sw + "\": true}}"))
            .Check("LINT_UNTRUSTED_ANSWERS")
            .Evidence(evidence)
            .Reason(evidence);
    };
    add(liar("LintUntrustedCountGrows", "count_grows", "a count larger than the array instead of VK_INCOMPLETE"));
    add(liar("LintUntrustedWritePastCount", "write_past_count", "wrote past the 1 elements it was given"));
    add(liar("LintUntrustedGroupTooLarge", "group_too_large", "has physicalDeviceCount 33 (1..32)"));
    add(liar("LintUntrustedGroupForeignDevice", "group_foreign_device",
             "is not a device vkEnumeratePhysicalDevices returned"));
    // its extra extension VK_MOCK_unterminated_... is in no registry: LDP_DRIVER_12's advisory warning
    add(liar("LintUntrustedUnterminatedNames", "unterminated_names", "has no terminating NUL")
            .Also({{"LDP_DRIVER_12", "warn"}}));
    add(liar("LintUntrustedNullPhysicalDevice", "null_physical_device", "returned a NULL handle"));
    add(liar("LintUntrustedDuplicatePhysicalDevice", "duplicate_physical_device",
             "returned a handle it had already returned"));
    // case 6: library_path longer than PATH_MAX (the library itself, behind 5000 slashes)
    add(Row("Driver4LibraryPathLongerThanPathMax", "LDP_DRIVER_4", "fail",
            ManifestText("{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" +
                         std::string(5000, '/') + "@LIB@\", \"api_version\": \"1.3.0\"}}"))
            .Also({{"LDP_DRIVER_11", "fail"}})
            .OthersNotTestable()
            .Evidence("cannot be reached (File name too long)")
            .Reason("cannot be reached (File name too long)"));
    add(liar("LintUntrustedNullDevice", "null_device", "vkCreateDevice returned VK_SUCCESS and a NULL VkDevice"));
    // the queries a loader may pass straight through: tools, and formats and present modes on a
    // headless surface (lie_in keeps the other fill calls honest; the first finding is the tools')
    const std::string surfaces =
        R"("instance_extensions": ["VK_KHR_surface", "VK_EXT_headless_surface"], "lie_in": )"
        R"(["vkGetPhysicalDeviceSurfaceFormatsKHR", "vkGetPhysicalDeviceSurfacePresentModesKHR", )"
        R"("vkGetPhysicalDeviceToolProperties"])";
    for (const char *sw : {"count_grows", "write_past_count"}) {
        const bool grows = std::string(sw) == "count_grows";
        add(Row(grows ? "LintUntrustedCountGrowsFormatsModesTools" : "LintUntrustedWritePastCountFormatsModesTools",
                untrusted, "fail", V("v7", "{" + surfaces + "}"),
                V("v7", "{" + surfaces + R"(, "misbehave": {")" + sw + "\": true}}"))
                .Check("LINT_UNTRUSTED_ANSWERS")
                .Evidence(grows ? "vkGetPhysicalDeviceSurfacePresentModesKHR reported 2 elements in an array of 1"
                                : "vkGetPhysicalDeviceSurfaceFormatsKHR wrote past the 1 elements it was given")
                .Reason(grows ? "vkGetPhysicalDeviceToolProperties reported 2 elements in an array of 1"
                              : "vkGetPhysicalDeviceToolProperties wrote past the 1 elements it was given"));
    }
    // its extra extension VK_MOCK_not_utf8_... is in no registry: LDP_DRIVER_12's advisory warning
    add(liar("LintUntrustedNonUtf8Names", "non_utf8_names", "is not valid UTF-8").Also({{"LDP_DRIVER_12", "warn"}}));
    // the driver's own device layer, named as its extra extension: a finding too (as evidence)
    add(liar("LintUntrustedUnterminatedLayerName", "unterminated_names",
             "vkEnumerateDeviceLayerProperties: device 0 layerName 0 'VK_MOCK_unterminated_")
            .Also({{"LDP_DRIVER_12", "warn"}})
            .Reason("has no terminating NUL"));
    // a VkQueue / VkCommandBuffer whose first word is not ICD_LOADER_MAGIC
    add(Row("LintQueueWithoutLoaderMagic", "LDP_DRIVER_3", "fail",
            V("v7", R"({"misbehave": {"queue_without_magic": true}})"))
            .Check("LINT_LOADER_MAGIC")
            .Evidence("VkQueue")
            .Reason("starts with 0xbadcafe0badcafe, not ICD_LOADER_MAGIC"));
    add(Row("LintCommandBufferWithoutLoaderMagic", "LDP_DRIVER_3", "fail",
            V("v7", R"({"misbehave": {"command_buffer_without_magic": true}})"))
            .Check("LINT_LOADER_MAGIC")
            .Evidence("VkCommandBuffer")
            .Reason("starts with 0xbadcafe0badcafe, not ICD_LOADER_MAGIC"));
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
                                                   {"LINT_VK_EXPORTS", "pass"},   {"LINT_UNTRUSTED_ANSWERS", "pass"}};
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

} // namespace
} // namespace ldp_test
