// Tests of the mock ICD itself: the scenario keys and variants that exist for ldp-check's proofs
// (docs/ldp-check.md, "Proof").
#define VK_NO_PROTOTYPES 1

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <cjson/cJSON.h>
#include <gtest/gtest.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vulkan.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "mock_icd/mock_icd_ctl.h"
#include "mock_icd/mock_icd_test_util.h"

namespace mock_icd_test {
namespace {

// ---------------------------------------------------------------------------------------------
// Scenario keys and variants that exist for ldp-check's proofs (docs/ldp-check.md, "Proof").

TEST(HiddenFunctions, EveryProcAddrFunctionAnswersNullButExportsStay) {
    const char *hide =
        R"({"hidden_functions": ["vkEnumerateInstanceVersion", "vk_icdNegotiateLoaderICDInterfaceVersion",
                              "vkGetPhysicalDeviceProperties", "vkCreateCommandPool"]})";
    Mock plain("v7_exports", "");
    Mock m("v7_exports", hide);
    // NULL instance: the hidden global and interface names are NULL, the others still answered.
    EXPECT_NE(plain.Gipa()(nullptr, "vkEnumerateInstanceVersion"), nullptr);
    EXPECT_EQ(m.Gipa()(nullptr, "vkEnumerateInstanceVersion"), nullptr);
    EXPECT_NE(plain.Gipa()(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    EXPECT_EQ(m.Gipa()(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    EXPECT_NE(m.Gipa()(nullptr, "vkCreateInstance"), nullptr);
    EXPECT_NE(m.Gipa()(nullptr, "vkEnumerateInstanceExtensionProperties"), nullptr);
    // The exported symbol itself is not touched.
    EXPECT_NE(m.Sym<void *>("vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    uint32_t v = 7;
    ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 7u);

    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    // With an instance: vk_icdGetInstanceProcAddr and vk_icdGetPhysicalDeviceProcAddr.
    EXPECT_EQ(m.Gipa()(inst, "vkGetPhysicalDeviceProperties"), nullptr);
    EXPECT_NE(m.Gipa()(inst, "vkGetPhysicalDeviceFeatures"), nullptr);
    EXPECT_EQ(m.Gipa()(inst, "vkCreateCommandPool"), nullptr);
    auto gpdpa = m.Sym<PFN_vk_icdGetPhysicalDeviceProcAddr>("vk_icdGetPhysicalDeviceProcAddr");
    ASSERT_NE(gpdpa, nullptr);
    EXPECT_EQ(gpdpa(inst, "vkGetPhysicalDeviceProperties"), nullptr);
    EXPECT_NE(gpdpa(inst, "vkGetPhysicalDeviceFeatures"), nullptr);
    auto plain_gpdpa = plain.Sym<PFN_vk_icdGetPhysicalDeviceProcAddr>("vk_icdGetPhysicalDeviceProcAddr");
    EXPECT_NE(plain_gpdpa(VK_NULL_HANDLE, "vkGetPhysicalDeviceProperties"), nullptr);
    // vkGetDeviceProcAddr.
    auto pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 1u);
    VkDeviceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    VkDevice dev = VK_NULL_HANDLE;
    ASSERT_EQ(m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice")(pds[0], &ci, nullptr, &dev), VK_SUCCESS);
    auto gdpa = m.Proc<PFN_vkGetDeviceProcAddr>(inst, "vkGetDeviceProcAddr");
    ASSERT_NE(gdpa, nullptr);
    EXPECT_EQ(gdpa(dev, "vkCreateCommandPool"), nullptr);
    EXPECT_NE(gdpa(dev, "vkDestroyCommandPool"), nullptr);
    reinterpret_cast<PFN_vkDestroyDevice>(gdpa(dev, "vkDestroyDevice"))(dev, nullptr);
    // Every hidden lookup is still recorded, as not answered.
    bool seen_gipa = false, seen_gpdpa = false, seen_gdpa = false;
    for (auto &r : m.Records("vk_icdGetInstanceProcAddr"))
        if (r.Str("name") == "vkGetPhysicalDeviceProperties") {
            seen_gipa = true;
            EXPECT_FALSE(r.Bool("answered"));
        }
    for (auto &r : m.Records("vk_icdGetPhysicalDeviceProcAddr"))
        if (r.Str("name") == "vkGetPhysicalDeviceProperties") {
            seen_gpdpa = true;
            EXPECT_FALSE(r.Bool("answered"));
        }
    for (auto &r : m.Records("vkGetDeviceProcAddr"))
        if (r.Str("name") == "vkCreateCommandPool") {
            seen_gdpa = true;
            EXPECT_FALSE(r.Bool("answered"));
        }
    EXPECT_TRUE(seen_gipa && seen_gpdpa && seen_gdpa);
    m.DestroyInstance(inst);
}

TEST(HiddenFunctions, InterfaceFunctionsThroughGipaAndVkExports) {
    // v7: GPDPA only through vk_icdGetInstanceProcAddr(NULL, ...): hidden there too.
    Mock v7("v7", R"({"hidden_functions": ["vk_icdGetPhysicalDeviceProcAddr"]})");
    EXPECT_EQ(v7.Gipa()(nullptr, "vk_icdGetPhysicalDeviceProcAddr"), nullptr);
    EXPECT_NE(v7.Gipa()(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    // *vkexports: the exported vkCreateInstance stays and works; every lookup answers NULL.
    Mock vk("v7_vkexports", R"({"hidden_functions": ["vkCreateInstance"]})");
    EXPECT_EQ(vk.Sym<PFN_vkGetInstanceProcAddr>("vk_icdGetInstanceProcAddr")(nullptr, "vkCreateInstance"), nullptr);
    EXPECT_EQ(vk.Sym<PFN_vkGetInstanceProcAddr>("vkGetInstanceProcAddr")(nullptr, "vkCreateInstance"), nullptr);
    auto create = vk.Sym<PFN_vkCreateInstance>("vkCreateInstance");
    ASSERT_NE(create, nullptr);
    VkInstanceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(create(&ci, nullptr, &inst), VK_SUCCESS);
    vk.Sym<PFN_vkDestroyInstance>("vkDestroyInstance")(inst, nullptr);
}

TEST(HiddenFunctions, SchemaErrors) {
    Mock m("v7", "");
    EXPECT_EQ(m.LoadScenario(R"({"hidden_functions": "vkCreateInstance"})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"hidden_functions": [1]})"), -1);
    std::string many = R"({"hidden_functions": [)";
    for (int i = 0; i < 257; i++) many += std::string(i ? "," : "") + "\"vkFn" + std::to_string(i) + "\"";
    EXPECT_EQ(m.LoadScenario((many + "]}").c_str()), -1);
    // The scenario in force is unchanged by a rejected one.
    EXPECT_NE(m.Gipa()(nullptr, "vkCreateInstance"), nullptr);
    ASSERT_EQ(m.LoadScenario(R"({"hidden_functions": ["vkCreateInstance"]})"), 0);
    EXPECT_EQ(m.Gipa()(nullptr, "vkCreateInstance"), nullptr);
}

TEST(CrashIn, NamedCommandAbortsWithDevices) {
    const char *sc = R"({"crash_in": ["vkGetPhysicalDeviceMemoryProperties"]})";
    // In a child: the named command aborts, after a record naming it in the .calls file.
    std::string calls;
    {
        Mock m("v7", sc);
        VkInstance inst = VK_NULL_HANDLE;
        ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
        auto pds = m.PhysicalDevices(inst);
        ASSERT_EQ(pds.size(), 1u);
        VkPhysicalDeviceProperties p{};
        m.Proc<PFN_vkGetPhysicalDeviceProperties>(inst, "vkGetPhysicalDeviceProperties")(pds[0], &p); // not named
        auto mem = m.Proc<PFN_vkGetPhysicalDeviceMemoryProperties>(inst, "vkGetPhysicalDeviceMemoryProperties");
        ASSERT_NE(mem, nullptr);
        pid_t pid = fork();
        if (pid == 0) {
            VkPhysicalDeviceMemoryProperties mp{};
            mem(pds[0], &mp);
            _exit(0);
        }
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) << status;
        bool recorded = false;
        for (const std::string &line : m.CallsFileLines()) {
            Record r = ParseRecord(line);
            if (r.call() == "crash_in") {
                recorded = true;
                EXPECT_EQ(r.Str("function"), "vkGetPhysicalDeviceMemoryProperties");
            }
        }
        EXPECT_TRUE(recorded);
        m.DestroyInstance(inst);
    }
    // Without it the same call returns.
    Mock plain("v7", "");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(plain.CreateInstance(0, &inst), VK_SUCCESS);
    VkPhysicalDeviceMemoryProperties mp{};
    plain.Proc<PFN_vkGetPhysicalDeviceMemoryProperties>(inst, "vkGetPhysicalDeviceMemoryProperties")(
        plain.PhysicalDevices(inst)[0], &mp);
    EXPECT_GT(mp.memoryTypeCount, 0u);
    plain.DestroyInstance(inst);
    EXPECT_EQ(plain.LoadScenario(R"({"crash_in": "vkCreateDevice"})"), -1);
    EXPECT_EQ(plain.LoadScenario(R"({"crash_in": [3]})"), -1);
}

TEST(Negotiation, PerOfferAnswers) {
    Mock m("v7_exports", R"({"interface": {"per_offer": {"6": 4, "5": "VK_ERROR_INCOMPATIBLE_DRIVER"}}})");
    uint32_t v = 7;
    EXPECT_EQ(m.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 7u); // offers without an entry: min(offered, maximum)
    v = 6;
    EXPECT_EQ(m.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 4u); // a number: that version
    v = 5;
    EXPECT_EQ(m.Negotiate(&v), VK_ERROR_INCOMPATIBLE_DRIVER);
    EXPECT_EQ(v, 5u); // a result: *pVersion untouched
    v = 4;
    EXPECT_EQ(m.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 4u);
    auto recs = m.Records("vk_icdNegotiateLoaderICDInterfaceVersion");
    ASSERT_EQ(recs.size(), 4u);
    EXPECT_EQ(recs[1].Num("offered"), 6);
    EXPECT_EQ(recs[1].Num("returned"), 4);
    EXPECT_EQ(recs[2].Num("offered"), 5);
    EXPECT_EQ(recs[2].Str("result"), "VK_ERROR_INCOMPATIBLE_DRIVER");
    // report_version still has the last word.
    Mock r("v7_exports", R"({"interface": {"per_offer": {"6": 4}, "report_version": 3}})");
    v = 6;
    EXPECT_EQ(r.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 3u);
    // Schema: keys are offered versions, values numbers or VkResult names.
    EXPECT_EQ(m.LoadScenario(R"({"interface": {"per_offer": {"six": 4}}})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"interface": {"per_offer": {"6": "VK_NOT_A_RESULT"}}})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"interface": {"per_offer": [4]}})"), -1);
}

TEST(Negotiation, MaxThroughGipaLimitsOnlyTheGipaPath) {
    Mock m("v7_exports", R"({"interface": {"max_through_gipa": 6}})");
    uint32_t v = 7;
    ASSERT_EQ(m.Sym<PFN_vk_icdNegotiateLoaderICDInterfaceVersion>("vk_icdNegotiateLoaderICDInterfaceVersion")(&v),
              VK_SUCCESS);
    EXPECT_EQ(v, 7u);
    auto through_gipa = reinterpret_cast<PFN_vk_icdNegotiateLoaderICDInterfaceVersion>(
        m.Gipa()(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion"));
    ASSERT_NE(through_gipa, nullptr);
    v = 7;
    ASSERT_EQ(through_gipa(&v), VK_SUCCESS);
    EXPECT_EQ(v, 6u);
    v = 5;
    ASSERT_EQ(through_gipa(&v), VK_SUCCESS);
    EXPECT_EQ(v, 5u);
    auto recs = m.Records("vk_icdNegotiateLoaderICDInterfaceVersion");
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_FALSE(recs[0].Bool("through_gipa"));
    EXPECT_TRUE(recs[1].Bool("through_gipa"));
    EXPECT_EQ(recs[1].Num("returned"), 6);
    // Without the key both paths agree.
    Mock plain("v7_exports", "");
    auto plain_gipa = reinterpret_cast<PFN_vk_icdNegotiateLoaderICDInterfaceVersion>(
        plain.Gipa()(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion"));
    v = 7;
    ASSERT_EQ(plain_gipa(&v), VK_SUCCESS);
    EXPECT_EQ(v, 7u);
    EXPECT_EQ(m.LoadScenario(R"({"interface": {"max_through_gipa": "six"}})"), -1);
}

TEST(CreateInstance, IncompatibleForApi2Misbehaviour) {
    Mock m("v5", R"({"misbehave": {"incompatible_for_api_2": true}})");
    uint32_t v = 7;
    ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
    ASSERT_EQ(v, 5u);
    for (uint32_t api :
         {VK_API_VERSION_1_0, VK_API_VERSION_1_1, VK_MAKE_API_VERSION(0, 1, 4, 0), VK_MAKE_API_VERSION(0, 1, 9, 0)}) {
        VkInstance inst = VK_NULL_HANDLE;
        EXPECT_EQ(m.CreateInstance(api, &inst), VK_SUCCESS) << api;
        if (inst) m.DestroyInstance(inst);
    }
    VkInstance inst = VK_NULL_HANDLE;
    EXPECT_EQ(m.CreateInstance(VK_MAKE_API_VERSION(0, 2, 0, 0), &inst), VK_ERROR_INCOMPATIBLE_DRIVER);
    EXPECT_EQ(m.Records("vkCreateInstance").back().Str("result"), "VK_ERROR_INCOMPATIBLE_DRIVER");
    // Without it, 2.0 is accepted at interface 5.
    Mock plain("v5", "");
    v = 7;
    ASSERT_EQ(plain.Negotiate(&v), VK_SUCCESS);
    ASSERT_EQ(plain.CreateInstance(VK_MAKE_API_VERSION(0, 2, 0, 0), &inst), VK_SUCCESS);
    plain.DestroyInstance(inst);
}

TEST(Gipa, NullInstanceAnswersAllMisbehaviour) {
    const std::vector<const char *> non_global = {"vkEnumeratePhysicalDevices", "vkCreateDevice", "vkDestroyInstance",
                                                  "vkGetPhysicalDeviceProperties", "vkCreateCommandPool"};
    Mock plain("v7", "");
    Mock m("v7", R"({"misbehave": {"gipa_null_instance_answers_all": true}})");
    for (const char *name : non_global) {
        EXPECT_EQ(plain.Gipa()(nullptr, name), nullptr) << name;
        EXPECT_NE(m.Gipa()(nullptr, name), nullptr) << name;
    }
    // Unknown names and closed gates stay NULL; globals are unchanged.
    EXPECT_EQ(m.Gipa()(nullptr, "vkNotAFunction"), nullptr);
    EXPECT_EQ(m.Gipa()(nullptr, "vkCreateXcbSurfaceKHR"), nullptr); // no VK_KHR_xcb_surface offered
    EXPECT_NE(m.Gipa()(nullptr, "vkCreateInstance"), nullptr);
    // The answer is the real command.
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto enumerate = reinterpret_cast<PFN_vkEnumeratePhysicalDevices>(m.Gipa()(nullptr, "vkEnumeratePhysicalDevices"));
    uint32_t n = 0;
    EXPECT_EQ(enumerate(inst, &n, nullptr), VK_SUCCESS);
    EXPECT_EQ(n, 1u);
    m.DestroyInstance(inst);
}

TEST(Variants, V2NoGipaNegotiatesWithoutIcdGipa) {
    Mock m("v2_nogipa", R"({"api_version": "1.0.0"})");
    EXPECT_EQ(m.Sym<void *>("vk_icdGetInstanceProcAddr"), nullptr);
    EXPECT_EQ(m.Sym<void *>("vk_icdGetPhysicalDeviceProcAddr"), nullptr);
    EXPECT_NE(m.Sym<void *>("vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    for (const char *s : {"vkGetInstanceProcAddr", "vkCreateInstance", "vkEnumerateInstanceExtensionProperties"})
        EXPECT_NE(m.Sym<void *>(s), nullptr) << s;
    EXPECT_EQ(m.Sym<void *>("vkEnumeratePhysicalDevices"), nullptr); // only the three v0 exports
    uint32_t v = 7;
    ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 2u);
    EXPECT_EQ(m.Records("first_entry").at(0).Str("loader"), "negotiate");
    // The v0 exports still serve a loader that goes through them.
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_EQ(m.PhysicalDevices(inst).size(), 1u);
    m.DestroyInstance(inst);
    // The scenario can narrow it to interface 0, where the v0 exports are all a loader needs.
    Mock zero("v2_nogipa", R"({"api_version": "1.0.0", "interface": {"max": 0}})");
    v = 7;
    ASSERT_EQ(zero.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 0u);
}

// DT_SYMBOLIC, or DF_SYMBOLIC in DT_FLAGS, in the dynamic section of a loaded library.
bool LinkedSymbolic(void *handle) {
    struct link_map *lm = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || lm == nullptr || lm->l_ld == nullptr) return false;
    for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++)
        if (d->d_tag == DT_SYMBOLIC || (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_SYMBOLIC))) return true;
    return false;
}

TEST(Variants, VkExportsSymbolicBindsToItself) {
    Mock plain("v7_vkexports", "");
    Mock sym("v7_vkexports_symbolic", "");
    EXPECT_FALSE(LinkedSymbolic(plain.handle()));
    EXPECT_TRUE(LinkedSymbolic(sym.handle()));
    // Same exports and behaviour otherwise.
    for (const char *s :
         {"vkCreateInstance", "vkGetInstanceProcAddr", "vkEnumeratePhysicalDevices", "vkGetDeviceProcAddr"})
        EXPECT_NE(sym.Sym<void *>(s), nullptr) << s;
    EXPECT_EQ(sym.Sym<void *>("vk_icdNegotiateLoaderICDInterfaceVersion"), nullptr);
    uint32_t v = 7;
    ASSERT_EQ(sym.Negotiate(&v), VK_SUCCESS);
    EXPECT_EQ(v, 7u);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(sym.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_EQ(sym.PhysicalDevices(inst).size(), 1u);
    sym.DestroyInstance(inst);
}

TEST(Variants, NoneExportsOnlyTheControlFunctions) {
    Mock m("none", R"({"physical_devices": [{}, {}]})");
    for (const char *s :
         {"vk_icdNegotiateLoaderICDInterfaceVersion", "vk_icdGetInstanceProcAddr", "vk_icdGetPhysicalDeviceProcAddr",
          "vkGetInstanceProcAddr", "vkCreateInstance", "vkEnumerateInstanceExtensionProperties"})
        EXPECT_EQ(m.Sym<void *>(s), nullptr) << s;
    for (const char *s : {"mock_icd_ctl_load_scenario", "mock_icd_ctl_record_count", "mock_icd_ctl_record_get",
                          "mock_icd_ctl_reset", "mock_icd_ctl_set_result"})
        EXPECT_NE(m.Sym<void *>(s), nullptr) << s;
    // Nothing reached the driver, so nothing is recorded (not even a first entry).
    EXPECT_TRUE(m.Records().empty());
    EXPECT_EQ(m.LoadScenario(R"({"physical_devices": []})"), 0);
    EXPECT_EQ(m.LoadScenario("{not json"), -1);
}

} // namespace
} // namespace mock_icd_test
