// Tests of the mock ICD itself: its records and control API (mock_icd_ctl.h), scenario errors,
// reaching another driver through the global namespace, the vk* exports flavour, threads.
#define VK_NO_PROTOTYPES 1

#include <dlfcn.h>

#include <cjson/cJSON.h>
#include <gtest/gtest.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vulkan.h>

#include <string>
#include <thread>
#include <vector>

#include "mock_icd/mock_icd_ctl.h"
#include "mock_icd/mock_icd_test_util.h"

namespace mock_icd_test {
namespace {

// ---------------------------------------------------------------------------------------------
// Records, ctl, scenario errors

TEST(Records, CallsFileMatchesMemory) {
    Mock m("v7", "");
    uint32_t v = 7;
    ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(VK_API_VERSION_1_1, &inst), VK_SUCCESS);
    m.PhysicalDevices(inst);
    m.DestroyInstance(inst);
    auto lines = m.CallsFileLines();
    auto recs = m.Records();
    ASSERT_EQ(lines.size(), recs.size());
    std::vector<std::string> calls;
    for (auto &line : lines) calls.push_back(ParseRecord(line).call());
    EXPECT_EQ(calls.front(), "first_entry");
    EXPECT_EQ(calls[1], "vk_icdGetInstanceProcAddr");
    EXPECT_EQ(calls[2], "vk_icdNegotiateLoaderICDInterfaceVersion");
    EXPECT_EQ(calls.back(), "vkDestroyInstance");
    EXPECT_EQ(ParseRecord(lines[2]).Num("returned"), 7);
    auto *get = m.Sym<PFN_mock_icd_ctl_record_get>("mock_icd_ctl_record_get");
    EXPECT_EQ(std::string(get(2)), lines[2]);

    m.Reset();
    EXPECT_EQ(m.Records().size(), 0u);
    EXPECT_EQ(m.CallsFileLines().size(), lines.size()); // the file is never truncated
}

TEST(Records, SeveralCopiesAreIndependent) {
    Mock a("v7", R"({"physical_devices": [{}, {}]})");
    Mock b("v7", R"({"physical_devices": []})");
    VkInstance ia = VK_NULL_HANDLE, ib = VK_NULL_HANDLE;
    ASSERT_EQ(a.CreateInstance(0, &ia), VK_SUCCESS);
    ASSERT_EQ(b.CreateInstance(0, &ib), VK_SUCCESS);
    EXPECT_EQ(a.PhysicalDevices(ia).size(), 2u);
    EXPECT_EQ(b.PhysicalDevices(ib).size(), 0u);
    EXPECT_EQ(a.Records("vkCreateInstance").size(), 1u);
    EXPECT_EQ(b.Records("vkCreateInstance").size(), 1u);
    a.DestroyInstance(ia);
    b.DestroyInstance(ib);
}

TEST(Ctl, LoadScenarioAndReset) {
    Mock m("v7", R"({"physical_devices": [{}, {}]})");
    EXPECT_EQ(m.LoadScenario("{not json"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"physical_devices": 3})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"results": {"vkCreateDevice": "VK_NOT_A_RESULT"}})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"physical_devices": [{"device_type": "toaster"}]})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"groups": [[0, 5]]})"), -1);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_EQ(m.PhysicalDevices(inst).size(), 2u); // sidecar still in force
    m.DestroyInstance(inst);

    ASSERT_EQ(m.LoadScenario(R"({"physical_devices": [{}, {}, {}]})"), 0);
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_EQ(m.PhysicalDevices(inst).size(), 3u);
    // An instance keeps the devices of the scenario it was created with.
    ASSERT_EQ(m.LoadScenario(nullptr), 0);
    EXPECT_EQ(m.PhysicalDevices(inst).size(), 3u);
    m.DestroyInstance(inst);
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_EQ(m.PhysicalDevices(inst).size(), 1u); // defaults
    m.DestroyInstance(inst);

    m.Reset(); // back to the sidecar
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_EQ(m.PhysicalDevices(inst).size(), 2u);
    m.DestroyInstance(inst);
}

TEST(Ctl, BadSidecarIsRecordedAndDefaultsUsed) {
    Mock m("v7", "{\"physical_devices\": ");
    auto errs = m.Records("mock_icd_scenario_error");
    ASSERT_EQ(errs.size(), 1u);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_EQ(m.PhysicalDevices(inst).size(), 1u);
    m.DestroyInstance(inst);
}

// ---------------------------------------------------------------------------------------------
// LDP_DRIVER_1 misbehaviour: reaching another driver through the global namespace.

TEST(Misbehave, CorruptOtherDriverOnlyThroughGlobalNamespace) {
    const char *attacker_sc = R"({"misbehave": {"corrupt_other_driver": true}})";
    {
        Mock victim("v7", "");
        Mock attacker("v7", attacker_sc);
        VkInstance inst = VK_NULL_HANDLE;
        ASSERT_EQ(attacker.CreateInstance(0, &inst), VK_SUCCESS);
        auto rec = attacker.Records("corrupt_other_driver");
        ASSERT_EQ(rec.size(), 1u);
        EXPECT_FALSE(rec[0].Bool("found_other"));
        attacker.DestroyInstance(inst);
    }
    {
        Mock victim("v7", "", RTLD_NOW | RTLD_GLOBAL);
        Mock attacker("v7", attacker_sc);
        VkInstance inst = VK_NULL_HANDLE, vi = VK_NULL_HANDLE;
        ASSERT_EQ(attacker.CreateInstance(0, &inst), VK_SUCCESS);
        EXPECT_TRUE(attacker.Records("corrupt_other_driver").at(0).Bool("found_other"));
        ASSERT_EQ(victim.CreateInstance(0, &vi), VK_SUCCESS);
        uint32_t n = 0;
        EXPECT_EQ(victim.Proc<PFN_vkEnumeratePhysicalDevices>(vi, "vkEnumeratePhysicalDevices")(vi, &n, nullptr),
                  VK_ERROR_INITIALIZATION_FAILED);
        attacker.DestroyInstance(inst);
        victim.DestroyInstance(vi);
    }
}

TEST(Variants, VkExportsFlavourWorksWithoutGipa) {
    Mock m("v5_vkexports", R"({"physical_devices": [{"name": "Exported"}]})");
    auto create = m.Sym<PFN_vkCreateInstance>("vkCreateInstance");
    auto enumerate = m.Sym<PFN_vkEnumeratePhysicalDevices>("vkEnumeratePhysicalDevices");
    auto props = m.Sym<PFN_vkGetPhysicalDeviceProperties>("vkGetPhysicalDeviceProperties");
    auto destroy = m.Sym<PFN_vkDestroyInstance>("vkDestroyInstance");
    ASSERT_TRUE(create && enumerate && props && destroy);
    EXPECT_EQ(m.Sym<void *>("vk_icdGetPhysicalDeviceProcAddr"), nullptr);
    VkInstanceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(create(&ci, nullptr, &inst), VK_SUCCESS);
    VkPhysicalDevice pd = VK_NULL_HANDLE;
    uint32_t n = 1;
    ASSERT_EQ(enumerate(inst, &n, &pd), VK_SUCCESS);
    VkPhysicalDeviceProperties p{};
    props(pd, &p);
    EXPECT_STREQ(p.deviceName, "Exported");
    destroy(inst, nullptr);
    auto first = m.Records("first_entry");
    ASSERT_EQ(first.size(), 1u);
    EXPECT_EQ(first[0].Str("entry"), "vkCreateInstance");
    EXPECT_EQ(first[0].Str("loader"), "v0");
}

TEST(Threads, ConcurrentCreateDestroy) {
    Mock m("v7", R"({"physical_devices": [{}, {}], "record_lookups": false})");
    auto worker = [&m] {
        for (int it = 0; it < 50; it++) {
            VkInstance inst = VK_NULL_HANDLE;
            ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
            auto pds = m.PhysicalDevices(inst);
            ASSERT_EQ(pds.size(), 2u);
            VkDeviceCreateInfo ci{};
            ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
            VkDevice dev = VK_NULL_HANDLE;
            ASSERT_EQ(m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice")(pds[it % 2], &ci, nullptr, &dev), VK_SUCCESS);
            auto gdpa = m.Proc<PFN_vkGetDeviceProcAddr>(inst, "vkGetDeviceProcAddr");
            VkCommandPoolCreateInfo pci{};
            pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
            VkCommandPool pool = VK_NULL_HANDLE;
            ASSERT_EQ(
                reinterpret_cast<PFN_vkCreateCommandPool>(gdpa(dev, "vkCreateCommandPool"))(dev, &pci, nullptr, &pool),
                VK_SUCCESS);
            VkCommandBufferAllocateInfo ai{};
            ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
            ai.commandPool = pool;
            ai.commandBufferCount = 2;
            VkCommandBuffer cbs[2];
            ASSERT_EQ(
                reinterpret_cast<PFN_vkAllocateCommandBuffers>(gdpa(dev, "vkAllocateCommandBuffers"))(dev, &ai, cbs),
                VK_SUCCESS);
            reinterpret_cast<PFN_vkCmdFillBuffer>(gdpa(dev, "vkCmdFillBuffer"))(cbs[1], VK_NULL_HANDLE, 0, 4, 1);
            reinterpret_cast<PFN_vkDestroyDevice>(gdpa(dev, "vkDestroyDevice"))(dev, nullptr);
            m.DestroyInstance(inst);
        }
    };
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; i++) threads.emplace_back(worker);
    for (auto &t : threads) t.join();
    EXPECT_EQ(m.Records("vkCreateInstance").size(), 200u);
    for (auto &r : m.Records("vkCmdFillBuffer")) EXPECT_TRUE(r.Bool("valid"));
    EXPECT_EQ(m.CallsFileLines().size(), m.Records().size());
}

} // namespace
} // namespace mock_icd_test
