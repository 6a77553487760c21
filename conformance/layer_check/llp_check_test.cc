// llp-check against mock layer configurations: for every verdict llp-check claims, a layer that
// commits exactly that violation (the mock layer's misbehaviour switches, or the recording layer's
// "tested" role for wrapping without unwrapping, crashes and hangs), and the same layer configured
// well, which passes. Policy IDs are cited with VKT_POLICY (conformance/framework/policy.h).
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "conformance/checker_common/checker_output.h"
#include "conformance/framework/json.h"
#include "conformance/framework/policy.h"
#include "conformance/framework/process.h"
#include "conformance/framework/sandbox.h"
#include "gtest/gtest.h"

namespace {

struct LlpRun : chk::CheckerRun {
    std::string Describe() const { return CheckerRun::Describe(true); }
};

void WriteFile(const std::string &path, const std::string &text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

void CopyFile(const std::string &from, const std::string &to) {
    WriteFile(to, vkt::ReadFileText(from));
    chmod(to.c_str(), 0755);
}

std::string NewDir() {
    static int n = 0;
    std::string d = ::testing::TempDir() + "/llp_" + std::to_string(getpid()) + "_" + std::to_string(n++);
    mkdir(d.c_str(), 0755);
    return d;
}

// Runs llp-check with `args` (plus the companions and --format=json unless told otherwise).
LlpRun LlpCheck(const std::vector<std::string> &args, bool json = true,
                const std::map<std::string, std::string> &env = {}, const std::string &cwd = "") {
    std::vector<std::string> argv = {
        vkt::Runfile("conformance/layer_check/llp-check"), "--loader=" + vkt::Runfile("loader/libvulkan.so.1"),
        "--mock=" + vkt::Runfile("mock_icd/libmock_icd_v7.so"),
        "--recording-layer=" + vkt::Runfile("mock_layers/librecording_layer.so"), "--timeout=20"};
    if (json) argv.push_back("--format=json");
    for (const auto &a : args) argv.push_back(a);
    vkt::ProcessOptions options;
    options.env = env;
    options.cwd = cwd;
    LlpRun r;
    r.Collect(vkt::RunProcess(argv, options), json, "manifests");
    return r;
}

const char *kMockName = "VK_LAYER_LLPCHECK_mock";

std::string LayerManifest(const std::string &name, const std::string &lib, const std::string &extra = "",
                          const std::string &api = "1.3.0") {
    return "{\"file_format_version\": \"1.1.0\", \"layer\": {\"name\": \"" + name +
           "\", \"type\": \"INSTANCE\", \"library_path\": \"" + lib + "\", \"api_version\": \"" + api +
           "\", \"implementation_version\": \"1\", \"description\": \"llp-check test layer\"" + extra + "}}\n";
}

// A private copy of libmock_layer_<variant>.so with `scenario` (JSON members, the name is added)
// and its manifest; returns the manifest path.
std::string MockLayer(const std::string &dir, const std::string &variant, const std::string &scenario,
                      const std::string &manifest_extra = "", const std::string &name = kMockName) {
    std::string lib = dir + "/libmock.so";
    CopyFile(vkt::Runfile("mock_layers/libmock_layer_" + variant + ".so"), lib);
    WriteFile(lib + ".scenario", "{\"name\": \"" + name + "\"" + (scenario.empty() ? "" : ", " + scenario) + "}\n");
    std::string m = dir + "/mock.json";
    WriteFile(m, LayerManifest(name, lib, manifest_extra));
    return m;
}

// The recording layer in its "tested" role (a transparent layer) with switches in its .cfg file.
std::string TestedLayer(const std::string &dir, const std::string &cfg) {
    std::string lib = dir + "/libtested.so";
    CopyFile(vkt::Runfile("mock_layers/librecording_layer.so"), lib);
    if (!cfg.empty()) WriteFile(lib + ".cfg", cfg + "\n");
    std::string m = dir + "/tested.json";
    WriteFile(m, LayerManifest("VK_LAYER_LLPCHECK_tested", lib));
    return m;
}

void ExpectVerdict(const LlpRun &r, const std::string &id, const std::string &verdict, const std::string &reason_part,
                   const std::string &evidence_part = "") {
    ASSERT_TRUE(r.verdict.count(id)) << r.Describe();
    EXPECT_EQ(r.verdict.at(id), verdict) << r.Describe();
    EXPECT_NE(r.reason.at(id).find(reason_part), std::string::npos) << r.Describe();
    if (!evidence_part.empty()) {
        EXPECT_TRUE(r.EvidenceHas(id, evidence_part)) << r.Describe();
    }
}

// ------------------------------------------------------------------ conforming layers

TEST(LlpCheck, WellBehavedMockLayerPassesEveryCheck) {
    VKT_POLICY("LLP_LAYER_1", "LLP_LAYER_2", "LLP_LAYER_3", "LLP_LAYER_4", "LLP_LAYER_5", "LLP_LAYER_6", "LLP_LAYER_10",
               "LLP_LAYER_12", "LLP_LAYER_13", "LLP_LAYER_16", "LLP_LAYER_17", "LLP_LAYER_18", "LLP_LAYER_20",
               "LLP_LAYER_21", "LLP_LAYER_22");
    std::string dir = NewDir();
    LlpRun r = LlpCheck({MockLayer(dir, "v2", "")});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    for (const char *id : {"LLP_LAYER_1", "LLP_LAYER_2", "LLP_LAYER_3", "LLP_LAYER_4", "LLP_LAYER_5", "LLP_LAYER_6",
                           "LLP_LAYER_10", "LLP_LAYER_12", "LLP_LAYER_13", "LLP_LAYER_16", "LLP_LAYER_17",
                           "LLP_LAYER_18", "LLP_LAYER_20", "LLP_LAYER_21", "LLP_LAYER_22"})
        EXPECT_EQ(r.verdict[id], "pass") << id << "\n" << r.Describe();
    for (const char *id : {"LLP_LAYER_7", "LLP_LAYER_8", "LLP_LAYER_9", "LLP_LAYER_15"})
        EXPECT_EQ(r.verdict[id], "not-applicable") << id << "\n" << r.Describe();
    EXPECT_EQ(r.verdict["LLP_LAYER_11"], "not-testable-here") << r.Describe();
    // It creates no dispatchable object of its own; its scenario parser (cJSON, linked in) grows a
    // buffer with realloc while the instance exists.
    EXPECT_EQ(r.verdict["LLP_LAYER_19"], "not-testable-here") << r.Describe();
    EXPECT_EQ(r.verdict["LLP_LAYER_14"], "warn") << r.Describe();
    EXPECT_EQ(r.json["manifests"][0]["results"].size(), 22u) << r.out;
    // Every verdict has a reason.
    for (const auto &kv : r.reason) EXPECT_FALSE(kv.second.empty()) << kv.first;
    EXPECT_EQ(r.json["manifests"][0]["layers"][0].str(), kMockName);
}

TEST(LlpCheck, TransparentRecordingLayerPassesIncludingInstanceExtensionQueries) {
    VKT_POLICY("LLP_LAYER_15", "LLP_LAYER_10", "LLP_LAYER_16");
    std::string dir = NewDir();
    LlpRun r = LlpCheck({TestedLayer(dir, "")});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_15", "pass", "VK_ERROR_LAYER_NOT_PRESENT",
                  "vkEnumerateInstanceExtensionProperties(NULL) = VK_ERROR_LAYER_NOT_PRESENT");
    ExpectVerdict(r, "LLP_LAYER_10", "pass", "dispatchable ones and command pools");
}

// The sandwich also runs through another loader (--loader=): Debian's Khronos loader 1.3.239 answers
// a layer's next vkGetInstanceProcAddr, asked after vkCreateInstance, from the instance's chain-top
// dispatch, so a recording layer that asked then called the copy above itself until the stack
// overflowed, and every chain check blamed the layer ("the layer crashed"). It asks right after
// creation now. Needs Debian's libvulkan1 (ci/bootstrap installs it).
TEST(LlpCheck, TransparentLayerPassesTheChainChecksThroughDebiansLoader) {
    VKT_POLICY("LLP_LAYER_10", "LLP_LAYER_12", "LLP_LAYER_21");
    const std::string debian = "/usr/lib/x86_64-linux-gnu/libvulkan.so.1";
    if (access(debian.c_str(), R_OK) != 0) GTEST_SKIP() << debian << " is not installed (Debian's libvulkan1)";
    std::string dir = NewDir();
    LlpRun r = LlpCheck({"--loader=" + debian, "--check=LLP_LAYER_10,LLP_LAYER_12,LLP_LAYER_21", TestedLayer(dir, "")});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    for (const char *id : {"LLP_LAYER_10", "LLP_LAYER_12", "LLP_LAYER_21"}) {
        ASSERT_TRUE(r.verdict.count(id)) << id << "\n" << r.Describe();
        EXPECT_EQ(r.verdict.at(id), "pass") << id << "\n" << r.Describe();
        EXPECT_EQ(r.reason.at(id).find("crashed"), std::string::npos) << id << "\n" << r.Describe();
    }
}

TEST(LlpCheck, TransparentLayerKeepsTheWorkloadAndHasNothingToAllocateOrCreate) {
    VKT_POLICY("LLP_LAYER_1", "LLP_LAYER_2", "LLP_LAYER_14", "LLP_LAYER_19");
    std::string dir = NewDir();
    LlpRun r = LlpCheck({"--check=LLP_LAYER_1,LLP_LAYER_2,LLP_LAYER_14,LLP_LAYER_19", TestedLayer(dir, "")});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_1", "pass", "are the same with and without the layer",
                  "13 application-visible result(s) without the layer, 13 with it");
    ExpectVerdict(r, "LLP_LAYER_2", "pass", "0 call(s) of its own added");
    // The counting callbacks were used by the loader, never by this layer's code.
    ExpectVerdict(r, "LLP_LAYER_14", "not-testable-here", "no allocation by the layer's code", "libvulkan.so.1");
    ExpectVerdict(r, "LLP_LAYER_19", "not-testable-here", "created no dispatchable object of its own",
                  "0 of objects the application never had");
}

TEST(LlpCheck, OwnCommandBufferWithLoaderDataPassesAndIsCountedAsTheLayers) {
    VKT_POLICY("LLP_LAYER_19", "LLP_LAYER_2");
    std::string dir = NewDir();
    LlpRun r = LlpCheck({"--check=LLP_LAYER_19,LLP_LAYER_2", TestedLayer(dir, "own_command_buffer=set")});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_19", "pass", "2 use(s) of dispatchable objects the layer created itself");
    // Its own pool and command buffer are calls of its own below it, valid ones.
    ExpectVerdict(r, "LLP_LAYER_2", "pass", "call(s) of its own added");
}

TEST(LlpCheck, WrappingLayerSeenByTheWorkloadChecks) {
    // The mock layer's dispatchable wrappers: what reaches the layer below are the driver's queue and
    // command buffers, whose loader word nobody set (the loader stamps the wrappers the application
    // holds), and it offers no vkQueueWaitIdle / vkDeviceWaitIdle it could unwrap.
    VKT_POLICY("LLP_LAYER_19", "LLP_LAYER_1");
    std::string dir = NewDir();
    LlpRun r = LlpCheck({"--check=LLP_LAYER_19,LLP_LAYER_1", MockLayer(dir, "v2", "\"wrap_handles\": true")});
    EXPECT_EQ(r.exit_status, 1) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_19", "fail", "holds 0x1cdc0de", "the application never had this object");
    ExpectVerdict(r, "LLP_LAYER_1", "fail", "vkQueueWaitIdle VK_ERROR_DEVICE_LOST with the layer");
}

TEST(LlpCheck, WrappingLayerThatUnwrapsPasses) {
    VKT_POLICY("LLP_LAYER_10");
    std::string dir = NewDir();
    LlpRun r = LlpCheck({"--check=LLP_LAYER_10", MockLayer(dir, "v2", "\"wrap_handles\": true")});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_10", "pass", "were ones the layer below returned");
}

TEST(LlpCheck, ImplicitLayerRunsInTheSandwichWithItsDisableVariableSet) {
    VKT_POLICY("LLP_LAYER_9", "LLP_LAYER_12", "LLP_LAYER_16");
    std::string dir = NewDir();
    std::string m = MockLayer(dir, "v2", "", ", \"disable_environment\": {\"LLPCHECK_TEST_DISABLE\": \"1\"}");
    LlpRun r = LlpCheck({"--implicit", m}, true, {{"LLPCHECK_TEST_DISABLE", "1"}});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    EXPECT_TRUE(r.json["manifests"][0]["implicit"].boolean()) << r.out;
    ExpectVerdict(r, "LLP_LAYER_9", "pass", "declares disable_environment", "LLPCHECK_TEST_DISABLE");
    ExpectVerdict(r, "LLP_LAYER_12", "pass", "its own");
    // Its own name reached it between the recording layers: it sat between them.
    ExpectVerdict(r, "LLP_LAYER_16", "pass", "own name");
}

// ------------------------------------------------------------------ one violation each

struct Case {
    const char *name;
    const char *policy;
    const char *id;       // the check that must report it
    const char *verdict;  // fail / warn
    const char *variant;  // mock layer variant, or "tested" (recording layer), or "custom"
    const char *scenario; // mock scenario members / tested .cfg
    const char *manifest_extra;
    const char *reason;
    const char *evidence;
    const char *good_scenario = nullptr; // the conforming configuration, when not the plain layer
};

const Case kCases[] = {
    {"NameWithoutAuthor", "LLP_LAYER_3", "LLP_LAYER_3", "warn", "v2", "", "", "author part", "VK_LAYER_mock"},
    {"LegacyInterfaceWithoutNegotiate", "LLP_LAYER_4", "LLP_LAYER_4", "warn", "v1", "", "",
     "does not export vkNegotiateLoaderLayerInterfaceVersion", "not exported"},
    {"NegotiationRefused", "LLP_LAYER_5", "LLP_LAYER_5", "fail", "v2", "\"misbehave\": {\"fail_negotiation\": true}",
     "", "refuses interface 2", "VK_ERROR_INITIALIZATION_FAILED"},
    {"NegotiationAboveOffer", "LLP_LAYER_5", "LLP_LAYER_5", "fail", "v2", "\"misbehave\": {\"negotiate_version\": 3}",
     "", "wrote back 3", "offered 2: VK_SUCCESS, version 3"},
    {"HandlesNotUnwrapped", "LLP_LAYER_10", "LLP_LAYER_10", "fail", "tested", "wrap_no_unwrap", "", "not unwrapped",
     "a handle it never returned"},
    {"InstanceLinkNotAdvanced", "LLP_LAYER_12", "LLP_LAYER_12", "fail", "v2",
     "\"misbehave\": {\"no_advance_link\": true}", "", "not advanced", "pointing at itself"},
    {"DeviceLinkNotAdvanced", "LLP_LAYER_13", "LLP_LAYER_13", "fail", "v2",
     "\"misbehave\": {\"no_advance_link\": true}", "", "VkLayerDeviceCreateInfo", "pointing at itself"},
    {"InstanceExtensionsForOtherName", "LLP_LAYER_15", "LLP_LAYER_15", "fail", "v2_all", "", "",
     "another layer's name it returns VK_SUCCESS", "VK_LAYER_LLPCHECK_other"},
    {"DeviceExtensionsNotInManifest", "LLP_LAYER_16", "LLP_LAYER_16", "fail", "v2",
     "\"device_extension\": \"VK_EXT_llpcheck_undeclared\"", "", "VK_EXT_llpcheck_undeclared", "= VK_SUCCESS, 1"},
    {"UnknownExtensionRefused", "LLP_LAYER_17", "LLP_LAYER_17", "fail", "v2",
     "\"misbehave\": {\"fail_unknown_extensions\": true}", "", "VK_ERROR_EXTENSION_NOT_PRESENT",
     "without it: vkCreateInstance VK_SUCCESS"},
    {"DisabledCommandsAnswered", "LLP_LAYER_18", "LLP_LAYER_18", "fail", "v2",
     "\"misbehave\": {\"return_disabled_functions\": true}", "", "answered non-NULL", "vkCreateXcbSurfaceKHR"},
    {"InstanceClobbered", "LLP_LAYER_21", "LLP_LAYER_21", "fail", "v2", "\"misbehave\": {\"clobber_instance\": true}",
     "", "*pInstance before calling vkCreateInstance down", "overwrote *pInstance"},
    {"DeviceClobbered", "LLP_LAYER_22", "LLP_LAYER_22", "fail", "v2", "\"misbehave\": {\"clobber_device\": true}", "",
     "*pDevice before calling vkCreateDevice down", "overwrote *pDevice"},
    {"CrashInNegotiation", "LLP_LAYER_5", "LLP_LAYER_5", "fail", "tested",
     "crash_in=vkNegotiateLoaderLayerInterfaceVersion", "", "the negotiation killed by signal",
     "offer 2: killed by signal"},
    {"CrashInCreateDevice", "LLP_LAYER_13", "LLP_LAYER_13", "fail", "tested", "crash_in=vkCreateDevice", "",
     "killed by signal", "vkCreateDevice no result"},
    {"StepFailsOnlyWithTheLayer", "LLP_LAYER_1", "LLP_LAYER_1", "fail", "tested", "fail_in=vkQueueSubmit", "",
     "vkQueueSubmit VK_ERROR_DEVICE_LOST with the layer", "without the layer: vkQueueSubmit VK_SUCCESS"},
    {"InvalidCallBelowTheLayer", "LLP_LAYER_2", "LLP_LAYER_2", "fail", "tested", "bad_queue_index", "",
     "called the layer below invalidly", "index 1 was not created with the device"},
    {"CommandDroppedBeforeTheLayerBelow", "LLP_LAYER_2", "LLP_LAYER_2", "warn", "tested", "fail_in=vkQueueSubmit", "",
     "not an image of the application's",
     "vkQueueSubmit reached the layer below 1 time(s) without the layer, 0 with it"},
    {"AllocationCallbacksNeverUsed", "LLP_LAYER_14", "LLP_LAYER_14", "warn", "tested", "alloc=malloc", "",
     "never through them", "2 to its own allocation imports (malloc x2", "alloc=callbacks"},
    {"AllocationCallbacksPartlyUsed", "LLP_LAYER_14", "LLP_LAYER_14", "warn", "tested", "alloc=mixed", "",
     "2 time(s) through the application's callbacks but 1 time(s) with its own allocator", "libtested.so 2",
     "alloc=callbacks"},
    {"OwnPointerFreedThroughTheCallbacks", "LLP_LAYER_14", "LLP_LAYER_14", "fail", "tested", "alloc=free_mismatch", "",
     "a pointer they never returned", "called from libtested.so (the layer under test)", "alloc=callbacks"},
    {"OwnCommandBufferWithoutLoaderData", "LLP_LAYER_19", "LLP_LAYER_19", "fail", "tested", "own_command_buffer=unset",
     "", "pfnSetDeviceLoaderData was not called", "whose first word is 0x1cdc0de", "own_command_buffer=set"},
};

class Violation : public ::testing::TestWithParam<Case> {};

TEST_P(Violation, IsReportedByItsCheckAndTheWellConfiguredLayerPasses) {
    const Case &c = GetParam();
    VKT_POLICY(c.policy);
    std::string dir = NewDir();
    std::string m;
    std::string variant = c.variant;
    if (variant == "tested")
        m = TestedLayer(dir, c.scenario);
    else
        m = MockLayer(dir, variant, c.scenario, c.manifest_extra,
                      std::string(c.name) == "NameWithoutAuthor" ? "VK_LAYER_mock" : kMockName);
    LlpRun r = LlpCheck({std::string("--check=") + c.id, m});
    EXPECT_EQ(r.exit_status, std::string(c.verdict) == "fail" ? 1 : 0) << r.Describe();
    ExpectVerdict(r, c.id, c.verdict, c.reason, c.evidence);
    // The same layer without the switch.
    std::string good_dir = NewDir();
    std::string good = c.good_scenario != nullptr ? TestedLayer(good_dir, c.good_scenario)
                       : variant == "tested"      ? TestedLayer(good_dir, "")
                       : variant == "v2_all"      ? TestedLayer(good_dir, "")
                       : variant == "v1"          ? MockLayer(good_dir, "v2", "")
                                                  : MockLayer(good_dir, variant, "");
    LlpRun g = LlpCheck({std::string("--check=") + c.id, good});
    EXPECT_EQ(g.exit_status, 0) << g.Describe();
    EXPECT_EQ(g.verdict[c.id], "pass") << g.Describe();
}

INSTANTIATE_TEST_SUITE_P(LlpCheck, Violation, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case> &i) { return std::string(i.param.name); });

// The policy IDs the table above may cite (the coverage gate reads string literals when
// VKT_POLICY gets a non-literal).
const char *const kCitedByTable[] = {"LLP_LAYER_1",  "LLP_LAYER_2",  "LLP_LAYER_14", "LLP_LAYER_19",
                                     "LLP_LAYER_3",  "LLP_LAYER_4",  "LLP_LAYER_5",  "LLP_LAYER_10",
                                     "LLP_LAYER_12", "LLP_LAYER_13", "LLP_LAYER_15", "LLP_LAYER_16",
                                     "LLP_LAYER_17", "LLP_LAYER_18", "LLP_LAYER_21", "LLP_LAYER_22"};
TEST(LlpCheck, CaseTableCitesKnownIds) {
    for (const Case &c : kCases) {
        bool known = false;
        for (const char *id : kCitedByTable) known = known || std::string(id) == c.policy;
        EXPECT_TRUE(known) << c.policy;
    }
}

TEST(LlpCheck, HangIsATimedOutFailNotACrashOfTheChecker) {
    VKT_POLICY("LLP_LAYER_12");
    std::string dir = NewDir();
    LlpRun r = LlpCheck({"--timeout=2", "--check=LLP_LAYER_12", TestedLayer(dir, "hang_in=vkCreateInstance")});
    EXPECT_EQ(r.exit_status, 1) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_12", "fail", "timed out");
    EXPECT_NE(r.reason["LLP_LAYER_12"].find("hung"), std::string::npos) << r.Describe();
    EXPECT_NE(r.reason["LLP_LAYER_12"].find("vkCreateInstance"), std::string::npos) << r.Describe();
}

// LLP_LAYER_20: library_path is what dlopen opens, dynamic string tokens expanded (Debian's MangoHud
// and vkBasalt manifests name /usr/$LIB/...): the layer is found, and the chain checks run it.
TEST(LlpCheck, LibTokenInLibraryPathIsExpandedAsDlopenDoes) {
    VKT_POLICY("LLP_LAYER_20", "LLP_LAYER_12");
    Dl_info info{};
    ASSERT_NE(dladdr(reinterpret_cast<void *>(&snprintf), &info), 0);
    std::string libc = info.dli_fname; // e.g. /lib/x86_64-linux-gnu/libc.so.6
    std::string lib_dir = libc.substr(0, libc.rfind('/'));
    if (lib_dir.rfind("/usr/", 0) == 0) lib_dir = lib_dir.substr(4);
    std::string dir = NewDir();
    std::string sub = dir;
    for (size_t p = 1; p <= lib_dir.size(); p = lib_dir.find('/', p) + 1) {
        size_t e = lib_dir.find('/', p);
        sub = dir + lib_dir.substr(0, e == std::string::npos ? lib_dir.size() : e);
        mkdir(sub.c_str(), 0755);
        if (e == std::string::npos) break;
    }
    CopyFile(vkt::Runfile("mock_layers/libmock_layer_v2.so"), sub + "/libmock.so");
    WriteFile(sub + "/libmock.so.scenario", std::string("{\"name\": \"") + kMockName + "\"}\n");
    std::string m = dir + "/mock.json";
    WriteFile(m, LayerManifest(kMockName, dir + "/$LIB/libmock.so"));
    LlpRun r = LlpCheck({"--check=LLP_LAYER_20,LLP_LAYER_12", m});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_20", "pass", "present and loaded as named", "as dlopen expands it");
    ExpectVerdict(r, "LLP_LAYER_12", "pass", "received its own");
}

// --deadline: checks cut short or never started by the overall limit are not-testable-here, not a
// hang of the layer (a fail).
TEST(LlpCheck, DeadlineStopsTheRunWithoutBlamingTheLayer) {
    VKT_POLICY("LLP_LAYER_12", "LLP_LAYER_13");
    std::string dir = NewDir();
    LlpRun r =
        LlpCheck({"--deadline=2", "--check=LLP_LAYER_12,LLP_LAYER_13", TestedLayer(dir, "hang_in=vkCreateInstance")});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_12", "not-testable-here", "--deadline of 2 s passed while it ran");
    ExpectVerdict(r, "LLP_LAYER_13", "not-testable-here", "not run: the overall --deadline of 2 s had passed");
    LlpRun bad = LlpCheck({"--deadline=0", TestedLayer(dir, "")});
    EXPECT_EQ(bad.exit_status, 2);
}

// --driver: a driver that crashes without any layer is reported as the driver's failure (the control
// run goes first), never as a crash of the layer under test.
TEST(LlpCheck, DriverCrashWithoutTheLayerIsNotTheLayersFail) {
    VKT_POLICY("LLP_LAYER_12", "LLP_LAYER_13");
    std::string dir = NewDir();
    std::string icd = dir + "/libmock_icd_v7.so";
    CopyFile(vkt::Runfile("mock_icd/libmock_icd_v7.so"), icd);
    WriteFile(icd + ".scenario", "{\"crash_in\": [\"vkCreateDevice\"]}\n");
    WriteFile(dir + "/icd.json", "{\"file_format_version\": \"1.0.0\", \"ICD\": {\"library_path\": \"" + icd +
                                     "\", \"api_version\": \"1.3.0\"}}\n");
    LlpRun r = LlpCheck({"--driver=" + dir + "/icd.json", "--check=LLP_LAYER_12,LLP_LAYER_13", TestedLayer(dir, "")});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    for (const char *id : {"LLP_LAYER_12", "LLP_LAYER_13"}) {
        ExpectVerdict(r, id, "not-testable-here", "the driver fails without the layer");
        EXPECT_NE(r.reason[id].find("the control run"), std::string::npos) << r.Describe();
        EXPECT_EQ(r.reason[id].find("the layer crashed"), std::string::npos) << r.Describe();
    }
}

// LLP_LAYER_18 passes only when both halves ran: with vkCreateDevice failing in the layer, its
// vkGetDeviceProcAddr was never probed.
TEST(LlpCheck, DisabledCommandsNeedTheDeviceHalfToPass) {
    VKT_POLICY("LLP_LAYER_18");
    std::string dir = NewDir();
    LlpRun r = LlpCheck({"--check=LLP_LAYER_18", TestedLayer(dir, "fail_in=vkCreateDevice")});
    ExpectVerdict(r, "LLP_LAYER_18", "not-testable-here", "the device half never ran");
}

// A segmentation fault is attributed to the library whose code faulted.
TEST(LlpCheck, CrashNamesTheLibraryThatFaulted) {
    VKT_POLICY("LLP_LAYER_13");
    std::string dir = NewDir();
#if defined(__SANITIZE_ADDRESS__)
    // The sanitizer runtime, linked into llp-check and the sandwich's process, takes SIGSEGV
    // itself (a report and exit status 1) before llp-check's handler can name the faulting
    // library; the plain build (`bazel test //...`) checks the attribution.
    GTEST_SKIP() << "AddressSanitizer handles SIGSEGV in the probe process; checked in the plain build";
#endif
    LlpRun r = LlpCheck({"--check=LLP_LAYER_13", TestedLayer(dir, "segv_in=vkCreateDevice")});
    ExpectVerdict(r, "LLP_LAYER_13", "fail", "libtested.so (the layer crashed)");
}

TEST(LlpCheck, NoExportedInstanceEnumerationIsNotApplicable) {
    VKT_POLICY("LLP_LAYER_15");
    std::string dir = NewDir();
    LlpRun r = LlpCheck({"--check=LLP_LAYER_15", MockLayer(dir, "v2", "")});
    ExpectVerdict(r, "LLP_LAYER_15", "not-applicable", "no exported vkEnumerateInstanceExtensionProperties");
}

TEST(LlpCheck, DeclaredDeviceExtensionPasses) {
    VKT_POLICY("LLP_LAYER_16");
    std::string dir = NewDir();
    LlpRun r =
        LlpCheck({"--check=LLP_LAYER_16",
                  MockLayer(dir, "v2", "\"device_extension\": \"VK_EXT_llpcheck_x\"",
                            ", \"device_extensions\": [{\"name\": \"VK_EXT_llpcheck_x\", \"spec_version\": \"1\"}]")});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_16", "pass", "its 1 manifest extension", "VK_EXT_llpcheck_x");
}

TEST(LlpCheck, LibraryWithoutAnyEntryPointFailsExport) {
    VKT_POLICY("LLP_LAYER_4");
    std::string dir = NewDir();
    std::string lib = dir + "/libnothing.so";
    CopyFile(vkt::Runfile("mock_icd/libmock_icd_v7.so"), lib); // exports vk_icd* only
    std::string m = dir + "/nothing.json";
    WriteFile(m, LayerManifest("VK_LAYER_LLPCHECK_nothing", lib));
    LlpRun r = LlpCheck({"--check=LLP_LAYER_4", m});
    EXPECT_EQ(r.exit_status, 1) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_4", "fail", "no loader can use it");
}

TEST(LlpCheck, EveryLayerOfAMultiLayerManifestIsSandwichedAndNamedInTheReason) {
    VKT_POLICY("LLP_LAYER_12", "LLP_LAYER_21");
    std::string dir = NewDir();
    std::string mock = dir + "/libmock.so", tested = dir + "/libtested.so";
    CopyFile(vkt::Runfile("mock_layers/libmock_layer_v2.so"), mock);
    WriteFile(mock + ".scenario", "{\"name\": \"VK_LAYER_LLPCHECK_mock\", \"misbehave\": {\"no_advance_link\": true}}");
    CopyFile(vkt::Runfile("mock_layers/librecording_layer.so"), tested);
    auto entry = [](const std::string &name, const std::string &lib) {
        return "{\"name\": \"" + name + "\", \"type\": \"INSTANCE\", \"library_path\": \"" + lib +
               "\", \"api_version\": \"1.3.0\", \"implementation_version\": \"1\", \"description\": \"d\"}";
    };
    WriteFile(dir + "/two.json", "{\"file_format_version\": \"1.0.1\", \"layers\": [" +
                                     entry("VK_LAYER_LLPCHECK_tested", tested) + ", " + entry(kMockName, mock) + "]}");
    LlpRun r = LlpCheck({"--check=LLP_LAYER_12,LLP_LAYER_21", dir + "/two.json"});
    EXPECT_EQ(r.exit_status, 1) << r.Describe();
    ASSERT_EQ(r.json["manifests"][0]["layers"].size(), 2u) << r.out;
    ExpectVerdict(r, "LLP_LAYER_12", "fail", "VK_LAYER_LLPCHECK_mock: in vkCreateInstance",
                  "VK_LAYER_LLPCHECK_tested: the layer below received VkLayerInstanceCreateInfo link of its own");
    ExpectVerdict(r, "LLP_LAYER_21", "pass", "unchanged", "VK_LAYER_LLPCHECK_mock: *pInstance on entry");
}

// ------------------------------------------------------------------ the installed validation layer

// docs/llp-check-reports/ records llp-check's report on the Khronos validation layer installed
// here; a fresh run must give the same verdict for every check, so the report stays true.
TEST(LlpCheckInstalled, ValidationLayerVerdictsMatchTheRecordedReport) {
    VKT_POLICY("LLP_LAYER_14", "LLP_LAYER_18");
    const std::string manifest = "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json";
    struct stat st;
    if (stat(manifest.c_str(), &st) != 0)
        GTEST_SKIP() << manifest << " is not installed (Debian: vulkan-validationlayers)";
    vkt::Json recorded =
        vkt::Json::Parse(vkt::ReadFileText(vkt::Runfile("docs/llp-check-reports/VK_LAYER_KHRONOS_validation.json")));
    ASSERT_EQ(recorded["manifests"][0]["manifest"].str(), manifest);
    vkt::Json want = recorded["manifests"][0]["results"];
    ASSERT_GT(want.size(), 0u);
    LlpRun r = LlpCheck({"--timeout=60", manifest});
    ASSERT_EQ(r.json["manifests"][0]["manifest"].str(), manifest) << r.Describe();
    EXPECT_EQ(r.verdict.size(), want.size()) << r.Describe();
    for (size_t i = 0; i < want.size(); i++) {
        std::string id = want[i]["id"].str();
        ASSERT_TRUE(r.verdict.count(id)) << id << "\n" << r.Describe();
        EXPECT_EQ(r.verdict.at(id), want[i]["verdict"].str())
            << id << ": recorded \"" << want[i]["reason"].str() << "\", now \"" << r.reason.at(id)
            << "\" (re-run llp-check and update docs/llp-check-reports/)";
    }
    EXPECT_EQ(r.exit_status, recorded["manifests"][0]["summary"]["fail"].num() > 0 ? 1 : 0) << r.Describe();
}

// ------------------------------------------------------------------ manifest policies

TEST(LlpCheckManifest, NotJsonFailsAndChecksNeedingItAreNotTestable) {
    VKT_POLICY("LLP_LAYER_6");
    std::string dir = NewDir();
    WriteFile(dir + "/bad.json", "{ \"file_format_version\": \"1.1.0\", \"layer\": ");
    LlpRun r = LlpCheck({dir + "/bad.json"});
    EXPECT_EQ(r.exit_status, 1) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_6", "fail", "rejects the whole file", "not valid JSON");
    EXPECT_EQ(r.verdict["LLP_LAYER_12"], "not-testable-here") << r.Describe();
}

TEST(LlpCheckManifest, FileNameNotJson) {
    VKT_POLICY("LLP_LAYER_6");
    std::string dir = NewDir();
    std::string m = MockLayer(dir, "v2", "");
    std::string txt = dir + "/mock.txt";
    CopyFile(m, txt);
    LlpRun r = LlpCheck({"--check=LLP_LAYER_6", txt});
    EXPECT_EQ(r.exit_status, 1) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_6", "fail", "does not end in .json");
}

TEST(LlpCheckManifest, MissingFieldRejectsTheLayer) {
    VKT_POLICY("LLP_LAYER_6");
    std::string dir = NewDir();
    WriteFile(
        dir + "/m.json",
        "{\"file_format_version\": \"1.1.0\", \"layer\": {\"name\": \"VK_LAYER_LLPCHECK_x\", \"type\": \"INSTANCE\", "
        "\"library_path\": \"libx.so\", \"implementation_version\": \"1\", \"description\": \"d\"}}");
    LlpRun r = LlpCheck({"--check=LLP_LAYER_6", dir + "/m.json"});
    EXPECT_EQ(r.exit_status, 1) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_6", "fail", "api_version", "layer skipped [LLP_LAYER_6]");
}

TEST(LlpCheckManifest, ImplicitWithoutDisableEnvironment) {
    VKT_POLICY("LLP_LAYER_9");
    std::string dir = NewDir();
    std::string m = MockLayer(dir, "v2", "");
    LlpRun r = LlpCheck({"--implicit", m});
    EXPECT_EQ(r.exit_status, 1) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_9", "fail", "disable_environment", "[LLP_LAYER_9]");
    // The same manifest as an explicit layer: not applicable.
    LlpRun e = LlpCheck({"--check=LLP_LAYER_9", m});
    ExpectVerdict(e, "LLP_LAYER_9", "not-applicable", "explicit");
}

std::string MetaManifest(const std::string &name, const std::vector<std::string> &components,
                         const std::string &api = "1.3.0") {
    std::string list;
    for (const auto &c : components) list += (list.empty() ? "\"" : ", \"") + c + "\"";
    return "{\"file_format_version\": \"1.1.2\", \"layer\": {\"name\": \"" + name +
           "\", \"type\": \"GLOBAL\", \"api_version\": \"" + api +
           "\", \"implementation_version\": \"1\", \"description\": \"meta\", \"component_layers\": [" + list + "]}}\n";
}

TEST(LlpCheckManifest, MetaLayerComponents) {
    VKT_POLICY("LLP_LAYER_7", "LLP_LAYER_8");
    std::string dir = NewDir();
    MockLayer(dir, "v2", ""); // VK_LAYER_LLPCHECK_mock, api 1.3.0, in the meta-layer's directory
    WriteFile(dir + "/meta.json", MetaManifest("VK_LAYER_LLPCHECK_meta", {kMockName}));
    LlpRun good = LlpCheck({"--check=LLP_LAYER_7,LLP_LAYER_8,LLP_LAYER_12", dir + "/meta.json"});
    EXPECT_EQ(good.exit_status, 0) << good.Describe();
    ExpectVerdict(good, "LLP_LAYER_7", "pass", "1 component", "component VK_LAYER_LLPCHECK_mock");
    ExpectVerdict(good, "LLP_LAYER_8", "pass", ">= the meta-layer's");
    ExpectVerdict(good, "LLP_LAYER_12", "not-applicable", "meta-layer");

    WriteFile(dir + "/meta.json", MetaManifest("VK_LAYER_LLPCHECK_meta", {kMockName, "VK_LAYER_LLPCHECK_missing"}));
    LlpRun missing = LlpCheck({"--check=LLP_LAYER_7", dir + "/meta.json"});
    EXPECT_EQ(missing.exit_status, 1) << missing.Describe();
    ExpectVerdict(missing, "LLP_LAYER_7", "fail", "VK_LAYER_LLPCHECK_missing", "not found");

    WriteFile(dir + "/meta.json", MetaManifest("VK_LAYER_LLPCHECK_meta", {kMockName}, "1.4.0"));
    LlpRun older = LlpCheck({"--check=LLP_LAYER_8", dir + "/meta.json"});
    EXPECT_EQ(older.exit_status, 1) << older.Describe();
    ExpectVerdict(older, "LLP_LAYER_8", "fail", "older than meta-layer");

    LlpRun plain = LlpCheck({"--check=LLP_LAYER_7", dir + "/mock.json"});
    ExpectVerdict(plain, "LLP_LAYER_7", "not-applicable", "not a meta-layer");
}

TEST(LlpCheckManifest, StaleManifests) {
    VKT_POLICY("LLP_LAYER_20");
    std::string dir = NewDir();
    std::string m = MockLayer(dir, "v2", "");
    LlpRun good = LlpCheck({"--check=LLP_LAYER_20", m});
    EXPECT_EQ(good.exit_status, 0) << good.Describe();
    ExpectVerdict(good, "LLP_LAYER_20", "pass", "loaded as named", "loaded " + dir + "/libmock.so");

    // A second manifest for the same layer, left behind by an upgrade (its library is gone).
    WriteFile(dir + "/old.json", LayerManifest(kMockName, dir + "/libmock_old.so"));
    LlpRun dup = LlpCheck({"--check=LLP_LAYER_20", m});
    EXPECT_EQ(dup.exit_status, 0) << dup.Describe();
    ExpectVerdict(dup, "LLP_LAYER_20", "warn", "also declared by " + dir + "/old.json", "which does not exist");

    // The stale manifest itself: its library does not exist.
    LlpRun stale = LlpCheck({"--check=LLP_LAYER_20", dir + "/old.json"});
    EXPECT_EQ(stale.exit_status, 1) << stale.Describe();
    ExpectVerdict(stale, "LLP_LAYER_20", "fail", "does not exist");
    // Checks that need the library say why they cannot run.
    LlpRun chain = LlpCheck({"--check=LLP_LAYER_4,LLP_LAYER_12", dir + "/old.json"});
    ExpectVerdict(chain, "LLP_LAYER_12", "not-testable-here", "LLP_LAYER_20");
}

// ------------------------------------------------------------------ command line and outputs

TEST(LlpCheckCli, HelpUsageErrorsAndMissingFiles) {
    VKT_POLICY("LLP_LAYER_6");
    LlpRun h = LlpCheck({"--help"}, false);
    EXPECT_EQ(h.exit_status, 0);
    EXPECT_NE(h.out.find("--installed"), std::string::npos) << h.out;
    EXPECT_NE(h.out.find("LAYER_MANIFEST"), std::string::npos) << h.out;
    EXPECT_EQ(LlpCheck({"--bogus"}, false).exit_status, 2);
    EXPECT_EQ(LlpCheck({}, false).exit_status, 2);
    EXPECT_EQ(LlpCheck({"--check=NOPE", "x.json"}, false).exit_status, 2);
    EXPECT_EQ(LlpCheck({"--format=xml", "x.json"}, false).exit_status, 2);
    // A missing manifest is an I/O error (2), the other manifest is still checked.
    std::string dir = NewDir();
    std::string m = MockLayer(dir, "v2", "");
    LlpRun r = LlpCheck({"--check=LLP_LAYER_6", dir + "/nope.json", m}, false);
    EXPECT_EQ(r.exit_status, 2) << r.out << r.err;
    EXPECT_NE(r.out.find("ERROR: " + dir + "/nope.json"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("LLP_LAYER_6    pass"), std::string::npos) << r.out;
    LlpRun list = LlpCheck({"--list-checks"}, false);
    EXPECT_NE(list.out.find("chain_instance_link"), std::string::npos) << list.out;
}

TEST(LlpCheckCli, JunitAndTableReports) {
    VKT_POLICY("LLP_LAYER_12");
    std::string dir = NewDir();
    std::string m = MockLayer(dir, "v2", "\"misbehave\": {\"no_advance_link\": true}");
    LlpRun j = LlpCheck({"--format=junit", "--check=LLP_LAYER_12,LLP_LAYER_7", m}, false);
    EXPECT_EQ(j.exit_status, 1);
    EXPECT_NE(j.out.find("<testsuites name=\"llp-check\" tests=\"2\" failures=\"1\""), std::string::npos) << j.out;
    EXPECT_NE(j.out.find("<testcase classname=\"llp-check.mock.json\" name=\"LLP_LAYER_12\""), std::string::npos)
        << j.out;
    EXPECT_NE(j.out.find("<failure message="), std::string::npos) << j.out;
    EXPECT_NE(j.out.find("<skipped message=\"not-applicable"), std::string::npos) << j.out;
    std::string out = dir + "/report.txt";
    LlpRun t = LlpCheck({"--format=table", "--output=" + out, "--check=LLP_LAYER_12", m}, false);
    EXPECT_EQ(t.exit_status, 1);
    std::string text = vkt::ReadFileText(out);
    EXPECT_NE(text.find("LLP_LAYER_12   fail"), std::string::npos) << text;
    EXPECT_NE(text.find("summary: 0 pass, 1 fail"), std::string::npos) << text;
    EXPECT_EQ(text.find("\033["), std::string::npos) << "no colour into a file";
    EXPECT_EQ(LlpCheck({"--output=" + dir + "/no/such/dir/x", m}, false).exit_status, 2);
}

TEST(LlpCheckCli, InstalledFindsImplicitAndExplicitManifests) {
    VKT_POLICY("LLP_LAYER_9");
    std::string explicit_dir = NewDir(), implicit_dir = NewDir(), empty = NewDir();
    MockLayer(explicit_dir, "v2", "");
    MockLayer(implicit_dir, "v2", "", ", \"disable_environment\": {\"LLPCHECK_OFF\": \"1\"}", "VK_LAYER_LLPCHECK_imp");
    LlpRun r = LlpCheck({"--installed", "--check=LLP_LAYER_9,LLP_LAYER_6"}, true,
                        {{"VK_LAYER_PATH", explicit_dir},
                         {"VK_IMPLICIT_LAYER_PATH", implicit_dir},
                         {"HOME", empty},
                         {"XDG_CONFIG_DIRS", empty},
                         {"XDG_DATA_DIRS", empty}});
    EXPECT_EQ(r.exit_status, 0) << r.out << r.err;
    vkt::Json ms = r.json["manifests"];
    ASSERT_EQ(ms.size(), 2u) << r.out;
    EXPECT_EQ(ms[0]["manifest"].str(), implicit_dir + "/mock.json");
    EXPECT_TRUE(ms[0]["implicit"].boolean());
    EXPECT_EQ(ms[0]["results"][1]["verdict"].str(), "pass") << r.out; // LLP_LAYER_9
    EXPECT_EQ(ms[1]["manifest"].str(), explicit_dir + "/mock.json");
    EXPECT_FALSE(ms[1]["implicit"].boolean());
}

// ------------------------------------------------------------------ the chassis-mode mock layer

// The chassis layer (mock_layers/chassis_layer.c: every command intercepted through generated
// dispatch) wrapping its non-dispatchable handles: every chain and workload check passes; its own
// state is allocated with malloc, so LLP_LAYER_14 warns (as the validation layers' does).
TEST(LlpCheckChassis, WrappingChassisPassesTheChainChecks) {
    VKT_POLICY("LLP_LAYER_10", "LLP_LAYER_1", "LLP_LAYER_2");
    std::string dir = NewDir();
    std::string m = MockLayer(dir, "chassis", "\"wrap_handles\": true");
    LlpRun r = LlpCheck({m});
    EXPECT_EQ(r.exit_status, 0) << r.Describe();
    for (const char *id :
         {"LLP_LAYER_1", "LLP_LAYER_2", "LLP_LAYER_4", "LLP_LAYER_5", "LLP_LAYER_10", "LLP_LAYER_12", "LLP_LAYER_13",
          "LLP_LAYER_16", "LLP_LAYER_17", "LLP_LAYER_18", "LLP_LAYER_21", "LLP_LAYER_22"})
        EXPECT_EQ(r.verdict[id], "pass") << id << "\n" << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_10", "pass", "command pools");
    EXPECT_EQ(r.verdict["LLP_LAYER_14"], "warn") << r.Describe();
}

// The same layer passing its wrapped command pool down (misbehave.no_unwrap): the layer below
// receives an id it never returned (LLP_LAYER_10), and the driver refuses the pool (LLP_LAYER_1).
TEST(LlpCheckChassis, ChassisPassingWrappedHandlesDownFails) {
    VKT_POLICY("LLP_LAYER_10", "LLP_LAYER_1");
    std::string dir = NewDir();
    std::string m = MockLayer(dir, "chassis", "\"wrap_handles\": true, \"misbehave\": {\"no_unwrap\": true}");
    LlpRun r = LlpCheck({"--check=LLP_LAYER_10,LLP_LAYER_1", m});
    EXPECT_EQ(r.exit_status, 1) << r.Describe();
    ExpectVerdict(r, "LLP_LAYER_10", "fail", "not unwrapped", "vkAllocateCommandBuffers received 0xc4a5");
    ExpectVerdict(r, "LLP_LAYER_1", "fail", "vkAllocateCommandBuffers VK_ERROR_INITIALIZATION_FAILED with the layer");
}

// ------------------------------------------------------------------ CI output: SARIF, --fail-on

// A layer named without its author part (LLP_LAYER_3 warn), a manifest that is not JSON
// (LLP_LAYER_6 fail), a well-named layer (both pass).
struct CiManifests {
    std::string dir, warn, fail, good;
};
CiManifests MakeCiManifests() {
    CiManifests m;
    m.dir = NewDir();
    std::string w = NewDir(), g = NewDir();
    m.warn = MockLayer(w, "v2", "", "", "VK_LAYER_mock");
    m.good = MockLayer(g, "v2", "");
    m.fail = m.dir + "/bad.json";
    WriteFile(m.fail, "{ \"file_format_version\": \"1.1.0\", \"layer\": ");
    return m;
}

// SARIF: every rule llp-check knows (22, with the policy text from the policy table and the help),
// one result per fail or warn located at its manifest, I/O errors as notifications; valid per
// SARIF 2.1.0 (the same structural check as ldp-check's SARIF).
TEST(LlpCheckSarif, FindingsRulesAndLocations) {
    VKT_POLICY("LLP_LAYER_3", "LLP_LAYER_6");
    CiManifests m = MakeCiManifests();
    std::string missing = m.dir + "/no such.json";
    LlpRun r = LlpCheck({"--format=sarif", "--check=LLP_LAYER_3,LLP_LAYER_6", m.warn, m.fail, missing}, false);
    EXPECT_EQ(r.exit_status, 2) << r.err; // the missing manifest is an I/O error
    vkt::Json log;
    ASSERT_NO_FATAL_FAILURE(chk::ParseValidSarif(r.out, &log));
    vkt::Json run = log["runs"][0];
    ASSERT_NO_FATAL_FAILURE(chk::ExpectSarifRules(run, "llp-check", 22, "LLP_LAYER_"));
    vkt::Json rules = run["tool"]["driver"]["rules"];
    // The policy text comes from the policy table, with its source.
    chk::ExpectRuleText(rules[19], "Uninstalling or upgrading a layer must remove", "LoaderLayerInterface.md");
    std::map<std::string, vkt::Json> by_uri;
    ASSERT_NO_FATAL_FAILURE(chk::SarifResultsByUri(run, 2, &by_uri));
    ASSERT_TRUE(by_uri.count("file://" + m.warn)) << r.out;
    ASSERT_TRUE(by_uri.count("file://" + m.fail)) << r.out;
    EXPECT_EQ(by_uri["file://" + m.warn]["ruleId"].str(), "LLP_LAYER_3");
    EXPECT_EQ(by_uri["file://" + m.warn]["level"].str(), "warning");
    EXPECT_NE(by_uri["file://" + m.warn]["message"]["text"].str().find("author part"), std::string::npos);
    EXPECT_EQ(by_uri["file://" + m.fail]["ruleId"].str(), "LLP_LAYER_6");
    EXPECT_EQ(by_uri["file://" + m.fail]["level"].str(), "error");
    EXPECT_GT(by_uri["file://" + m.fail]["properties"]["evidence"].size(), 0u) << r.out;
    chk::ExpectMissingFileNotification(run, "file://" + m.dir + "/no%20such.json");
}

// A relative manifest path stays relative (against %SRCROOT%, the directory llp-check ran in).
TEST(LlpCheckSarif, RelativeManifestPathIsRelativeToSrcRoot) {
    VKT_POLICY("LLP_LAYER_3");
    CiManifests m = MakeCiManifests();
    std::string dir = m.warn.substr(0, m.warn.rfind('/'));
    LlpRun r = LlpCheck({"--format=sarif", "--check=LLP_LAYER_3", "mock.json"}, false, {}, dir);
    EXPECT_EQ(r.exit_status, 0) << r.err;
    vkt::Json log;
    ASSERT_NO_FATAL_FAILURE(chk::ParseValidSarif(r.out, &log));
    char *real = realpath(dir.c_str(), nullptr); // the test's temporary directory may have a "//"
    ASSERT_NE(real, nullptr);
    chk::ExpectRelativeToSrcRoot(log, "mock.json", real);
    free(real);
}

// --fail-on=warn turns a warn into exit 1 in every format; the default (--fail-on=fail) does not. A
// fail exits 1 either way; a bad value is a usage error.
TEST(LlpCheckFailOn, WarnFailsOnlyWhenAsked) {
    VKT_POLICY("LLP_LAYER_3", "LLP_LAYER_6");
    CiManifests m = MakeCiManifests();
    for (const char *fmt : {"--format=table", "--format=json", "--format=junit", "--format=sarif"}) {
        SCOPED_TRACE(fmt);
        EXPECT_EQ(LlpCheck({fmt, "--check=LLP_LAYER_3", m.warn}, false).exit_status, 0);
        EXPECT_EQ(LlpCheck({fmt, "--fail-on=fail", "--check=LLP_LAYER_3", m.warn}, false).exit_status, 0);
        EXPECT_EQ(LlpCheck({fmt, "--fail-on=warn", "--check=LLP_LAYER_3", m.warn}, false).exit_status, 1);
        EXPECT_EQ(LlpCheck({fmt, "--fail-on=warn", "--check=LLP_LAYER_3,LLP_LAYER_6", m.good}, false).exit_status, 0);
        EXPECT_EQ(LlpCheck({fmt, "--check=LLP_LAYER_6", m.fail}, false).exit_status, 1);
    }
    LlpRun bad = LlpCheck({"--fail-on=error", m.good}, false);
    EXPECT_EQ(bad.exit_status, 2);
    EXPECT_NE(bad.err.find("unknown --fail-on 'error' (fail or warn)"), std::string::npos) << bad.err;
    EXPECT_EQ(LlpCheck({"--format=sarif2", m.good}, false).exit_status, 2);
    // The SARIF log and the JSON report record the mode; SARIF the exit status.
    LlpRun s = LlpCheck({"--format=sarif", "--fail-on=warn", "--check=LLP_LAYER_3", m.warn}, false);
    chk::ExpectSarifFailOn(s.out, "warn", 1);
    LlpRun j = LlpCheck({"--fail-on=warn", "--check=LLP_LAYER_3", m.warn});
    EXPECT_EQ(j.json["fail_on"].str(), "warn") << j.out;
    EXPECT_EQ(j.json["manifests"][0]["summary"]["warn"].num(), 1) << j.out;
}

// JUnit: a warn is <skipped message="warn: ..."> by default, a <failure type="warn"> with
// --fail-on=warn.
TEST(LlpCheckFailOn, JunitWarnIsSkippedOrAFailure) {
    VKT_POLICY("LLP_LAYER_3");
    CiManifests m = MakeCiManifests();
    LlpRun d = LlpCheck({"--format=junit", "--check=LLP_LAYER_3,LLP_LAYER_6", m.warn}, false);
    EXPECT_EQ(d.exit_status, 0) << d.err;
    EXPECT_NE(d.out.find("tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"1\">"), std::string::npos) << d.out;
    EXPECT_NE(d.out.find("<skipped message=\"warn: "), std::string::npos) << d.out;
    EXPECT_NE(d.out.find("<property name=\"verdict.warn\" value=\"1\"/>"), std::string::npos) << d.out;
    LlpRun w = LlpCheck({"--format=junit", "--fail-on=warn", "--check=LLP_LAYER_3,LLP_LAYER_6", m.warn}, false);
    EXPECT_EQ(w.exit_status, 1);
    EXPECT_NE(w.out.find("tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\">"), std::string::npos) << w.out;
    EXPECT_NE(w.out.find("type=\"warn\"/>"), std::string::npos) << w.out;
}

} // namespace
