// Tests of the mock ICD itself: physical devices (from the scenario, hot-plug), devices (loader
// magic, the generated core commands) and unknown functions.
#define VK_NO_PROTOTYPES 1

#include <dlfcn.h>

#include <cjson/cJSON.h>
#include <gtest/gtest.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vulkan.h>

#include <cstring>
#include <string>
#include <vector>

#include "mock_icd/mock_icd_ctl.h"
#include "mock_icd/mock_icd_test_util.h"

namespace mock_icd_test {
namespace {

// ---------------------------------------------------------------------------------------------
// Physical devices

constexpr const char *kTwoDevices = R"({
  // comments are allowed in scenarios
  "api_version": "1.3.0",
  "physical_devices": [
    {"name": "Alpha", "api_version": "1.2.0", "vendor_id": 4318, "device_id": 7, "device_type": "integrated",
     "extensions": [{"name": "VK_KHR_swapchain", "spec_version": 70}],
     "queue_families": [{"flags": 7, "count": 2}, {"flags": 4, "count": 1}],
     "driver_id": 9, "conformance_version": "1.3.5.1"},
    {"name": "Beta", "api_version": "1.0.0", "device_type": "cpu"}
  ],
  "groups": [[0, 1]]
})";

TEST(PhysicalDevices, FromScenario) {
    Mock m("v7", kTwoDevices);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(VK_API_VERSION_1_3, &inst), VK_SUCCESS);
    auto pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 2u);
    EXPECT_TRUE(HasMagic(pds[0]));
    EXPECT_TRUE(HasMagic(pds[1]));

    VkPhysicalDeviceProperties p{};
    m.Proc<PFN_vkGetPhysicalDeviceProperties>(inst, "vkGetPhysicalDeviceProperties")(pds[0], &p);
    EXPECT_STREQ(p.deviceName, "Alpha");
    EXPECT_EQ(p.vendorID, 4318u);
    EXPECT_EQ(p.deviceID, 7u);
    EXPECT_EQ(p.apiVersion, VK_API_VERSION_1_2);
    EXPECT_EQ(p.deviceType, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU);
    m.Proc<PFN_vkGetPhysicalDeviceProperties>(inst, "vkGetPhysicalDeviceProperties")(pds[1], &p);
    EXPECT_STREQ(p.deviceName, "Beta");
    EXPECT_EQ(p.deviceType, VK_PHYSICAL_DEVICE_TYPE_CPU);

    VkPhysicalDeviceDriverProperties driver{};
    driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
    VkPhysicalDeviceProperties2 p2{};
    p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    p2.pNext = &driver;
    auto props2 = m.Proc<PFN_vkGetPhysicalDeviceProperties2>(inst, "vkGetPhysicalDeviceProperties2");
    ASSERT_NE(props2, nullptr);
    ASSERT_NE(m.Gipa()(inst, "vkGetPhysicalDeviceProperties2KHR"), nullptr); // default instance extension
    props2(pds[0], &p2);
    EXPECT_STREQ(p2.properties.deviceName, "Alpha");
    EXPECT_EQ(driver.driverID, static_cast<VkDriverId>(9));
    EXPECT_EQ(driver.conformanceVersion.major, 1);
    EXPECT_EQ(driver.conformanceVersion.minor, 3);
    EXPECT_EQ(driver.conformanceVersion.subminor, 5);
    EXPECT_EQ(driver.conformanceVersion.patch, 1);

    uint32_t nq = 0;
    auto qfp = m.Proc<PFN_vkGetPhysicalDeviceQueueFamilyProperties>(inst, "vkGetPhysicalDeviceQueueFamilyProperties");
    qfp(pds[0], &nq, nullptr);
    ASSERT_EQ(nq, 2u);
    std::vector<VkQueueFamilyProperties> q(nq);
    qfp(pds[0], &nq, q.data());
    EXPECT_EQ(q[0].queueFlags, 7u);
    EXPECT_EQ(q[0].queueCount, 2u);
    EXPECT_EQ(q[1].queueFlags, 4u);

    auto groups = m.Proc<PFN_vkEnumeratePhysicalDeviceGroups>(inst, "vkEnumeratePhysicalDeviceGroups");
    ASSERT_NE(groups, nullptr);
    uint32_t ng = 0;
    ASSERT_EQ(groups(inst, &ng, nullptr), VK_SUCCESS);
    ASSERT_EQ(ng, 1u);
    VkPhysicalDeviceGroupProperties g{};
    g.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
    ASSERT_EQ(groups(inst, &ng, &g), VK_SUCCESS);
    EXPECT_EQ(g.physicalDeviceCount, 2u);
    EXPECT_EQ(g.physicalDevices[0], pds[0]);
    EXPECT_EQ(g.physicalDevices[1], pds[1]);
    EXPECT_EQ(m.Gipa()(inst, "vkEnumeratePhysicalDeviceGroupsKHR"), nullptr); // extension not listed

    auto dext = m.Proc<PFN_vkEnumerateDeviceExtensionProperties>(inst, "vkEnumerateDeviceExtensionProperties");
    uint32_t ne = 0;
    EXPECT_EQ(dext(pds[0], "VK_LAYER_x", &ne, nullptr), VK_ERROR_LAYER_NOT_PRESENT);
    ASSERT_EQ(dext(pds[0], nullptr, &ne, nullptr), VK_SUCCESS);
    ASSERT_EQ(ne, 1u);
    VkExtensionProperties e{};
    ASSERT_EQ(dext(pds[0], nullptr, &ne, &e), VK_SUCCESS);
    EXPECT_STREQ(e.extensionName, "VK_KHR_swapchain");
    EXPECT_EQ(e.specVersion, 70u);

    auto enum_recs = m.Records("vkEnumeratePhysicalDevices");
    ASSERT_EQ(enum_recs.size(), 2u);
    EXPECT_EQ(enum_recs[0].Str("count_in"), "<null>");
    EXPECT_EQ(enum_recs[0].Num("count_out"), 2);
    EXPECT_EQ(enum_recs[1].Num("count_in"), 2);
    auto dext_recs = m.Records("vkEnumerateDeviceExtensionProperties");
    ASSERT_EQ(dext_recs.size(), 3u);
    EXPECT_EQ(dext_recs[0].Str("layer"), "VK_LAYER_x");
    EXPECT_EQ(dext_recs[1].Str("layer"), "<null>");
    m.DestroyInstance(inst);
}

TEST(PhysicalDevices, FailEnumerateAndIncomplete) {
    Mock m("v7", R"({"physical_devices": [{}, {}, {}]})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto enumerate = m.Proc<PFN_vkEnumeratePhysicalDevices>(inst, "vkEnumeratePhysicalDevices");
    VkPhysicalDevice pds[3];
    uint32_t n = 2;
    EXPECT_EQ(enumerate(inst, &n, pds), VK_INCOMPLETE);
    EXPECT_EQ(n, 2u);
    ASSERT_EQ(m.LoadScenario(R"({"misbehave": {"fail_enumerate_physical_devices": true}})"), 0);
    n = 3;
    EXPECT_EQ(enumerate(inst, &n, pds), VK_ERROR_INITIALIZATION_FAILED);
    m.DestroyInstance(inst);
}

// Drivers that lie (RULE_DRV_UNTRUSTED_ANSWERS): each switch against the same mock without it.
TEST(PhysicalDevices, CountGrowsAndWritePastCountMisbehaviours) {
    Mock m("v7", R"({"physical_devices": [{}, {}]})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto enumerate = m.Proc<PFN_vkEnumeratePhysicalDevices>(inst, "vkEnumeratePhysicalDevices");
    VkPhysicalDevice pds[4] = {};
    uint32_t n = 2;
    ASSERT_EQ(enumerate(inst, &n, pds), VK_SUCCESS);
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(pds[2], VK_NULL_HANDLE);
    ASSERT_EQ(m.LoadScenario(R"({"misbehave": {"count_grows": true}})"), 0);
    n = 1;
    EXPECT_EQ(enumerate(inst, &n, pds), VK_SUCCESS); // not VK_INCOMPLETE
    EXPECT_EQ(n, 2u);                                // more than the array of 1
    ASSERT_EQ(m.LoadScenario(R"({"misbehave": {"write_past_count": true}})"), 0);
    n = 2;
    EXPECT_EQ(enumerate(inst, &n, pds), VK_SUCCESS);
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(pds[2]), 0xbad0bad0u); // one element past *pCount
    m.DestroyInstance(inst);
}

TEST(PhysicalDevices, LyingHandlesGroupsAndNamesMisbehaviours) {
    Mock m("v7", R"({"physical_devices": [{"name": "liar"}]})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(VK_API_VERSION_1_1, &inst), VK_SUCCESS);
    ASSERT_EQ(m.PhysicalDevices(inst).size(), 1u);
    ASSERT_EQ(
        m.LoadScenario(R"({"physical_devices": [{"name": "liar"}], "misbehave": {"null_physical_device": true}})"), 0);
    std::vector<VkPhysicalDevice> pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 2u);
    EXPECT_EQ(pds[1], VK_NULL_HANDLE);
    ASSERT_EQ(m.LoadScenario(R"({"misbehave": {"duplicate_physical_device": true}})"), 0);
    pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 2u);
    EXPECT_EQ(pds[1], pds[0]);
    auto groups = m.Proc<PFN_vkEnumeratePhysicalDeviceGroups>(inst, "vkEnumeratePhysicalDeviceGroups");
    ASSERT_NE(groups, nullptr);
    VkPhysicalDeviceGroupProperties g[2] = {};
    g[0].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
    uint32_t n = 1;
    ASSERT_EQ(m.LoadScenario(R"({"misbehave": {"group_too_large": true}})"), 0);
    ASSERT_EQ(groups(inst, &n, g), VK_SUCCESS);
    EXPECT_EQ(g[0].physicalDeviceCount, VK_MAX_DEVICE_GROUP_SIZE + 1);
    ASSERT_EQ(m.LoadScenario(R"({"misbehave": {"group_foreign_device": true}})"), 0);
    n = 1;
    ASSERT_EQ(groups(inst, &n, g), VK_SUCCESS);
    ASSERT_EQ(g[0].physicalDeviceCount, 2u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(g[0].physicalDevices[1]), 0xf0e1f0e1u);
    ASSERT_EQ(m.LoadScenario(R"({"misbehave": {"unterminated_names": true}})"), 0);
    pds = m.PhysicalDevices(inst);
    VkPhysicalDeviceProperties p;
    m.Proc<PFN_vkGetPhysicalDeviceProperties>(inst, "vkGetPhysicalDeviceProperties")(pds[0], &p);
    EXPECT_EQ(memchr(p.deviceName, 0, sizeof p.deviceName), nullptr);
    EXPECT_EQ(std::string(p.deviceName, 4), "liar");
    EXPECT_EQ(static_cast<unsigned char>(p.deviceName[4]), 0xC3u);
    m.DestroyInstance(inst);
}

TEST(PhysicalDevices, CrashWithZeroDevicesMisbehaviour) {
    Mock m("v7", R"({"physical_devices": [], "api_version": "1.1.0",
                     "misbehave": {"crash_with_zero_devices": true}})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto enumerate = m.Proc<PFN_vkEnumeratePhysicalDevices>(inst, "vkEnumeratePhysicalDevices");
    auto groups = m.Proc<PFN_vkEnumeratePhysicalDeviceGroups>(inst, "vkEnumeratePhysicalDeviceGroups");
    uint32_t n = 0;
    ASSERT_EQ(enumerate(inst, &n, nullptr), VK_SUCCESS);
    ASSERT_EQ(n, 0u);
    uint32_t ng = 0;
    EXPECT_EQ(groups(inst, &ng, nullptr), VK_SUCCESS); // not yet: no array call reported zero
    VkPhysicalDevice none[1];
    ASSERT_EQ(enumerate(inst, &n, none), VK_SUCCESS);
    EXPECT_DEATH(groups(inst, &ng, nullptr), "");
    m.DestroyInstance(inst); // still allowed
}

// Hot-plug: "unplugged" of the scenario in force at each enumeration hides devices of an existing
// instance (indices into its devices); their handles come back unchanged when plugged in again.
TEST(PhysicalDevices, UnpluggedFollowsTheCurrentScenario) {
    Mock m("v7", R"({"api_version": "1.1.0", "physical_devices": [{"name": "A"}, {"name": "B"}, {"name": "C"}],
                     "groups": [[0, 1], [2]]})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(VK_API_VERSION_1_1, &inst), VK_SUCCESS);
    auto all = m.PhysicalDevices(inst);
    ASSERT_EQ(all.size(), 3u);
    auto groups = m.Proc<PFN_vkEnumeratePhysicalDeviceGroups>(inst, "vkEnumeratePhysicalDeviceGroups");
    ASSERT_NE(groups, nullptr);
    auto group_members = [&]() {
        uint32_t n = 0;
        EXPECT_EQ(groups(inst, &n, nullptr), VK_SUCCESS);
        std::vector<VkPhysicalDeviceGroupProperties> g(n);
        for (auto &x : g) x.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
        EXPECT_EQ(groups(inst, &n, g.data()), VK_SUCCESS);
        std::vector<std::vector<VkPhysicalDevice>> out;
        for (uint32_t i = 0; i < n; i++) {
            out.emplace_back(g[i].physicalDevices, g[i].physicalDevices + g[i].physicalDeviceCount);
            EXPECT_EQ(g[i].subsetAllocation, g[i].physicalDeviceCount > 1 ? VK_TRUE : VK_FALSE);
        }
        return out;
    };
    using Groups = std::vector<std::vector<VkPhysicalDevice>>;
    EXPECT_EQ(group_members(), (Groups{{all[0], all[1]}, {all[2]}}));

    // The replacing scenario's own devices do not matter to the existing instance.
    ASSERT_EQ(m.LoadScenario(R"({"api_version": "1.1.0", "unplugged": [1]})"), 0);
    EXPECT_EQ(m.PhysicalDevices(inst), (std::vector<VkPhysicalDevice>{all[0], all[2]}));
    EXPECT_EQ(group_members(), (Groups{{all[0]}, {all[2]}}));
    auto recs = m.Records("vkEnumeratePhysicalDevices");
    ASSERT_FALSE(recs.empty());
    EXPECT_EQ(recs.back().Num("unplugged"), 1);
    EXPECT_EQ(recs.back().Num("count_out"), 2);

    // A short array gives VK_INCOMPLETE over the devices present.
    auto enumerate = m.Proc<PFN_vkEnumeratePhysicalDevices>(inst, "vkEnumeratePhysicalDevices");
    VkPhysicalDevice one[1];
    uint32_t n = 1;
    EXPECT_EQ(enumerate(inst, &n, one), VK_INCOMPLETE);
    EXPECT_EQ(one[0], all[0]);

    ASSERT_EQ(m.LoadScenario(R"({"api_version": "1.1.0", "unplugged": [2, 0]})"), 0);
    EXPECT_EQ(m.PhysicalDevices(inst), (std::vector<VkPhysicalDevice>{all[1]}));
    EXPECT_EQ(group_members(), (Groups{{all[1]}})); // the group of C alone is gone

    // An unplugged device still answers queries (the handle stays valid).
    VkPhysicalDeviceProperties p{};
    m.Proc<PFN_vkGetPhysicalDeviceProperties>(inst, "vkGetPhysicalDeviceProperties")(all[0], &p);
    EXPECT_STREQ(p.deviceName, "A");

    ASSERT_EQ(m.LoadScenario(R"({"api_version": "1.1.0", "unplugged": [0, 1, 2, 99]})"), 0);
    EXPECT_TRUE(m.PhysicalDevices(inst).empty());
    EXPECT_TRUE(group_members().empty());

    ASSERT_EQ(m.LoadScenario(R"({"api_version": "1.1.0", "unplugged": []})"), 0);
    EXPECT_EQ(m.PhysicalDevices(inst), all);
    EXPECT_EQ(group_members(), (Groups{{all[0], all[1]}, {all[2]}}));

    EXPECT_EQ(m.LoadScenario(R"({"unplugged": 1})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"unplugged": ["x"]})"), -1);
    EXPECT_EQ(m.LoadScenario(R"({"unplugged": [-1]})"), -1);
    m.DestroyInstance(inst);
}

// ---------------------------------------------------------------------------------------------
// Devices

TEST(Device, CreateWithLoaderMagic) {
    Mock m("v7", kTwoDevices);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto pds = m.PhysicalDevices(inst);
    float prio[2] = {1.0f, 0.5f};
    VkDeviceQueueCreateInfo qci[2] = {};
    qci[0].sType = qci[1].sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qci[0].queueFamilyIndex = 0;
    qci[0].queueCount = 2;
    qci[0].pQueuePriorities = prio;
    qci[1].queueFamilyIndex = 1;
    qci[1].queueCount = 1;
    qci[1].pQueuePriorities = prio;
    const char *exts[] = {"VK_KHR_swapchain"};
    VkDeviceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    ci.queueCreateInfoCount = 2;
    ci.pQueueCreateInfos = qci;
    ci.enabledExtensionCount = 1;
    ci.ppEnabledExtensionNames = exts;
    auto create = m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice");
    VkDevice dev = VK_NULL_HANDLE;
    ASSERT_EQ(create(pds[0], &ci, nullptr, &dev), VK_SUCCESS);
    EXPECT_TRUE(HasMagic(dev));

    auto gdpa = m.Proc<PFN_vkGetDeviceProcAddr>(inst, "vkGetDeviceProcAddr");
    auto get_queue = reinterpret_cast<PFN_vkGetDeviceQueue>(gdpa(dev, "vkGetDeviceQueue"));
    VkQueue q = VK_NULL_HANDLE, q2 = VK_NULL_HANDLE;
    get_queue(dev, 0, 1, &q);
    ASSERT_NE(q, nullptr);
    EXPECT_TRUE(HasMagic(q));
    auto get_queue2 = reinterpret_cast<PFN_vkGetDeviceQueue2>(gdpa(dev, "vkGetDeviceQueue2"));
    ASSERT_NE(get_queue2, nullptr); // device is 1.2
    VkDeviceQueueInfo2 qi{};
    qi.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_INFO_2;
    qi.queueFamilyIndex = 0;
    qi.queueIndex = 1;
    get_queue2(dev, &qi, &q2);
    EXPECT_EQ(q, q2);
    EXPECT_EQ(reinterpret_cast<PFN_vkQueueWaitIdle>(gdpa(dev, "vkQueueWaitIdle"))(q), VK_SUCCESS);
    EXPECT_EQ(reinterpret_cast<PFN_vkDeviceWaitIdle>(gdpa(dev, "vkDeviceWaitIdle"))(dev), VK_SUCCESS);

    VkCommandPoolCreateInfo pci{};
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    VkCommandPool pool = VK_NULL_HANDLE;
    ASSERT_EQ(reinterpret_cast<PFN_vkCreateCommandPool>(gdpa(dev, "vkCreateCommandPool"))(dev, &pci, nullptr, &pool),
              VK_SUCCESS);
    VkCommandBufferAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = pool;
    ai.commandBufferCount = 3;
    VkCommandBuffer cbs[3] = {};
    ASSERT_EQ(reinterpret_cast<PFN_vkAllocateCommandBuffers>(gdpa(dev, "vkAllocateCommandBuffers"))(dev, &ai, cbs),
              VK_SUCCESS);
    for (auto cb : cbs) EXPECT_TRUE(HasMagic(cb));
    reinterpret_cast<PFN_vkCmdFillBuffer>(gdpa(dev, "vkCmdFillBuffer"))(cbs[0], VK_NULL_HANDLE, 0, 64, 7);
    reinterpret_cast<PFN_vkFreeCommandBuffers>(gdpa(dev, "vkFreeCommandBuffers"))(dev, pool, 1, cbs);
    // The other two go with the pool; a second pool goes with the device.
    reinterpret_cast<PFN_vkDestroyCommandPool>(gdpa(dev, "vkDestroyCommandPool"))(dev, pool, nullptr);
    ASSERT_EQ(reinterpret_cast<PFN_vkCreateCommandPool>(gdpa(dev, "vkCreateCommandPool"))(dev, &pci, nullptr, &pool),
              VK_SUCCESS);
    ASSERT_EQ(reinterpret_cast<PFN_vkAllocateCommandBuffers>(gdpa(dev, "vkAllocateCommandBuffers"))(
                  dev, (ai.commandPool = pool, &ai), cbs),
              VK_SUCCESS);

    EXPECT_EQ(gdpa(dev, "vkCreateInstance"), nullptr);
    EXPECT_EQ(gdpa(dev, "vkGetPhysicalDeviceProperties"), nullptr);
    reinterpret_cast<PFN_vkDestroyDevice>(gdpa(dev, "vkDestroyDevice"))(dev, nullptr);

    auto recs = m.Records("vkCreateDevice");
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].Strings("extensions"), std::vector<std::string>{"VK_KHR_swapchain"});
    const cJSON *queues = recs[0].Get("queues");
    ASSERT_EQ(cJSON_GetArraySize(queues), 2);
    EXPECT_EQ(cJSON_GetObjectItem(cJSON_GetArrayItem(queues, 0), "count")->valueint, 2);
    EXPECT_EQ(cJSON_GetObjectItem(cJSON_GetArrayItem(queues, 1), "family")->valueint, 1);
    auto fill = m.Records("vkCmdFillBuffer");
    ASSERT_EQ(fill.size(), 1u);
    EXPECT_TRUE(fill[0].Bool("valid"));
    EXPECT_EQ(fill[0].Num("data"), 7);
    EXPECT_TRUE(m.Records("vkDestroyDevice").at(0).Bool("valid"));

    // Unknown extension / bad queue family.
    EXPECT_EQ(create(pds[1], &ci, nullptr, &dev), VK_ERROR_EXTENSION_NOT_PRESENT);
    ci.enabledExtensionCount = 0;
    EXPECT_EQ(create(pds[1], &ci, nullptr, &dev), VK_ERROR_INITIALIZATION_FAILED);
    m.DestroyInstance(inst);
}

// What vulkaninfo does with a device: images and buffers only to ask for their memory requirements.
TEST(Device, ImagesAndBuffersAnswerMemoryRequirements) {
    Mock m("v7", R"({"api_version": "1.1.0"})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(VK_API_VERSION_1_1, &inst), VK_SUCCESS);
    auto pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 1u);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci{};
    qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkDeviceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &qci;
    VkDevice dev = VK_NULL_HANDLE;
    ASSERT_EQ(m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice")(pds[0], &ci, nullptr, &dev), VK_SUCCESS);
    auto gdpa = m.Proc<PFN_vkGetDeviceProcAddr>(inst, "vkGetDeviceProcAddr");
    auto create_image = reinterpret_cast<PFN_vkCreateImage>(gdpa(dev, "vkCreateImage"));
    auto destroy_image = reinterpret_cast<PFN_vkDestroyImage>(gdpa(dev, "vkDestroyImage"));
    auto image_reqs = reinterpret_cast<PFN_vkGetImageMemoryRequirements>(gdpa(dev, "vkGetImageMemoryRequirements"));
    auto image_reqs2 = reinterpret_cast<PFN_vkGetImageMemoryRequirements2>(gdpa(dev, "vkGetImageMemoryRequirements2"));
    auto sparse_reqs =
        reinterpret_cast<PFN_vkGetImageSparseMemoryRequirements>(gdpa(dev, "vkGetImageSparseMemoryRequirements"));
    auto create_buffer = reinterpret_cast<PFN_vkCreateBuffer>(gdpa(dev, "vkCreateBuffer"));
    auto destroy_buffer = reinterpret_cast<PFN_vkDestroyBuffer>(gdpa(dev, "vkDestroyBuffer"));
    auto buffer_reqs = reinterpret_cast<PFN_vkGetBufferMemoryRequirements>(gdpa(dev, "vkGetBufferMemoryRequirements"));
    ASSERT_TRUE(create_image && destroy_image && image_reqs && image_reqs2 && sparse_reqs && create_buffer &&
                destroy_buffer && buffer_reqs);

    VkImageCreateInfo ici{};
    ici.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO;
    ici.imageType = VK_IMAGE_TYPE_2D;
    ici.format = VK_FORMAT_R8G8B8A8_UNORM;
    ici.extent = {8, 8, 1};
    ici.mipLevels = ici.arrayLayers = 1;
    ici.samples = VK_SAMPLE_COUNT_1_BIT;
    VkImage image = VK_NULL_HANDLE;
    ASSERT_EQ(create_image(dev, &ici, nullptr, &image), VK_SUCCESS);
    ASSERT_NE(image, VK_NULL_HANDLE);
    VkMemoryRequirements req{};
    image_reqs(dev, image, &req);
    EXPECT_EQ(req.size, 256u); // 8 x 8 x 4 bytes
    EXPECT_EQ(req.alignment, 256u);
    EXPECT_EQ(req.memoryTypeBits, 1u); // the one memory type
    VkImageMemoryRequirementsInfo2 info2{};
    info2.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2;
    info2.image = image;
    VkMemoryRequirements2 req2{};
    req2.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2;
    image_reqs2(dev, &info2, &req2);
    EXPECT_EQ(req2.memoryRequirements.size, 256u);
    uint32_t nsparse = 5;
    sparse_reqs(dev, image, &nsparse, nullptr);
    EXPECT_EQ(nsparse, 0u);
    destroy_image(dev, image, nullptr);
    image_reqs(dev, image, &req); // destroyed: no memory type, recorded
    EXPECT_EQ(req.memoryTypeBits, 0u);
    EXPECT_EQ(m.Records("invalid_handle").size(), 1u);

    VkBufferCreateInfo bci{};
    bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bci.size = 1000;
    VkBuffer buffer = VK_NULL_HANDLE;
    ASSERT_EQ(create_buffer(dev, &bci, nullptr, &buffer), VK_SUCCESS);
    buffer_reqs(dev, buffer, &req);
    EXPECT_EQ(req.size, 1024u);
    EXPECT_EQ(req.memoryTypeBits, 1u);
    // Left for vkDestroyDevice to free (LeakSanitizer checks it).
    VkImage leftover = VK_NULL_HANDLE;
    ASSERT_EQ(create_image(dev, &ici, nullptr, &leftover), VK_SUCCESS);
    destroy_buffer(dev, buffer, nullptr);
    m.Proc<PFN_vkDestroyDevice>(inst, "vkDestroyDevice")(dev, nullptr);
    m.DestroyInstance(inst);
}

// Every core 1.0-1.3 device command a layer may call below itself is answered (the no-op ones
// generated from vk.xml by tools/vkgen/vkgen_mock.py): fresh distinct non-zero handles, success,
// zero-filled outputs; the hand-written commands keep their implementation; memory maps to host
// memory; commands of a newer core version than the device's are not answered.
TEST(Device, GeneratedCoreCommands) {
    Mock m("v7", R"({"physical_devices": [{"api_version": "1.3.0"}, {"api_version": "1.1.0"}],
                     "results": {"vkCreateSemaphore": "VK_ERROR_OUT_OF_DEVICE_MEMORY"}})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(VK_API_VERSION_1_3, &inst), VK_SUCCESS);
    auto pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 2u);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci{};
    qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkDeviceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &qci;
    VkDevice dev = VK_NULL_HANDLE, dev11 = VK_NULL_HANDLE;
    auto create_device = m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice");
    ASSERT_EQ(create_device(pds[0], &ci, nullptr, &dev), VK_SUCCESS);
    ASSERT_EQ(create_device(pds[1], &ci, nullptr, &dev11), VK_SUCCESS);
    auto gdpa = m.Proc<PFN_vkGetDeviceProcAddr>(inst, "vkGetDeviceProcAddr");

    for (const char *name :
         {"vkCreateFence", "vkWaitForFences", "vkCreateGraphicsPipelines", "vkCmdDraw", "vkCmdPipelineBarrier",
          "vkCreateRenderPass", "vkAllocateDescriptorSets", "vkQueueSubmit2", "vkCmdBeginRendering",
          "vkGetDeviceBufferMemoryRequirements", "vkCreateSemaphore", "vkGetEventStatus"})
        EXPECT_NE(gdpa(dev, name), nullptr) << name;
    EXPECT_NE(m.Gipa()(inst, "vkGetPhysicalDeviceExternalBufferProperties"), nullptr);
    // 1.2 and 1.3 commands on a 1.1 device: not answered; 1.0 and 1.1 ones are.
    EXPECT_EQ(gdpa(dev11, "vkQueueSubmit2"), nullptr);
    EXPECT_EQ(gdpa(dev11, "vkCreateRenderPass2"), nullptr);
    EXPECT_NE(gdpa(dev11, "vkCreateFence"), nullptr);
    EXPECT_NE(gdpa(dev11, "vkTrimCommandPool"), nullptr);
    // Not core: still NULL.
    EXPECT_EQ(gdpa(dev, "vkCmdDrawMeshTasksEXT"), nullptr);

    auto create_fence = reinterpret_cast<PFN_vkCreateFence>(gdpa(dev, "vkCreateFence"));
    VkFenceCreateInfo fci{};
    fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    VkFence f1 = VK_NULL_HANDLE, f2 = VK_NULL_HANDLE;
    ASSERT_EQ(create_fence(dev, &fci, nullptr, &f1), VK_SUCCESS);
    ASSERT_EQ(create_fence(dev, &fci, nullptr, &f2), VK_SUCCESS);
    EXPECT_NE(f1, VK_NULL_HANDLE);
    EXPECT_NE(f2, VK_NULL_HANDLE);
    EXPECT_NE(f1, f2);
    EXPECT_EQ(reinterpret_cast<PFN_vkWaitForFences>(gdpa(dev, "vkWaitForFences"))(dev, 1, &f1, VK_TRUE, ~0ull),
              VK_SUCCESS);
    // The first vk.xml success code, and injected results.
    EXPECT_EQ(reinterpret_cast<PFN_vkGetEventStatus>(gdpa(dev, "vkGetEventStatus"))(dev, VK_NULL_HANDLE), VK_EVENT_SET);
    VkSemaphoreCreateInfo sci{};
    sci.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
    VkSemaphore sem = VK_NULL_HANDLE;
    EXPECT_EQ(reinterpret_cast<PFN_vkCreateSemaphore>(gdpa(dev, "vkCreateSemaphore"))(dev, &sci, nullptr, &sem),
              VK_ERROR_OUT_OF_DEVICE_MEMORY);
    EXPECT_EQ(sem, VK_NULL_HANDLE);

    // Arrays of handles: one distinct handle each.
    VkDescriptorSetAllocateInfo dsai{};
    dsai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    dsai.descriptorSetCount = 3;
    VkDescriptorSet sets[4] = {};
    ASSERT_EQ(reinterpret_cast<PFN_vkAllocateDescriptorSets>(gdpa(dev, "vkAllocateDescriptorSets"))(dev, &dsai, sets),
              VK_SUCCESS);
    EXPECT_TRUE(sets[0] && sets[1] && sets[2]);
    EXPECT_TRUE(sets[0] != sets[1] && sets[1] != sets[2] && sets[0] != sets[2]);
    EXPECT_EQ(sets[3], VK_NULL_HANDLE);

    // Extensible outputs: zero-filled, sType and pNext kept.
    VkMemoryRequirements2 req2{};
    req2.sType = VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2;
    req2.memoryRequirements.size = 77;
    VkBufferCreateInfo bci{};
    bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bci.size = 16;
    VkDeviceBufferMemoryRequirements dbmr{};
    dbmr.sType = VK_STRUCTURE_TYPE_DEVICE_BUFFER_MEMORY_REQUIREMENTS;
    dbmr.pCreateInfo = &bci;
    reinterpret_cast<PFN_vkGetDeviceBufferMemoryRequirements>(gdpa(dev, "vkGetDeviceBufferMemoryRequirements"))(
        dev, &dbmr, &req2);
    EXPECT_EQ(req2.sType, VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2);
    EXPECT_EQ(req2.memoryRequirements.size, 0u);
    // Count/array pairs: nothing.
    size_t data_size = 99;
    EXPECT_EQ(reinterpret_cast<PFN_vkGetPipelineCacheData>(gdpa(dev, "vkGetPipelineCacheData"))(dev, VK_NULL_HANDLE,
                                                                                                &data_size, nullptr),
              VK_SUCCESS);
    EXPECT_EQ(data_size, 0u);

    // Device memory maps to writable host memory.
    VkMemoryAllocateInfo mai{};
    mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    mai.allocationSize = 4096;
    VkDeviceMemory mem = VK_NULL_HANDLE;
    ASSERT_EQ(reinterpret_cast<PFN_vkAllocateMemory>(gdpa(dev, "vkAllocateMemory"))(dev, &mai, nullptr, &mem),
              VK_SUCCESS);
    void *p = nullptr;
    ASSERT_EQ(reinterpret_cast<PFN_vkMapMemory>(gdpa(dev, "vkMapMemory"))(dev, mem, 0, VK_WHOLE_SIZE, 0, &p),
              VK_SUCCESS);
    ASSERT_NE(p, nullptr);
    memset(p, 0xab, 4096);
    reinterpret_cast<PFN_vkUnmapMemory>(gdpa(dev, "vkUnmapMemory"))(dev, mem);
    reinterpret_cast<PFN_vkFreeMemory>(gdpa(dev, "vkFreeMemory"))(dev, mem, nullptr);

    // Hand-written commands keep their implementation: command buffers are the mock's objects.
    VkCommandPoolCreateInfo pci{};
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    VkCommandPool pool = VK_NULL_HANDLE;
    ASSERT_EQ(reinterpret_cast<PFN_vkCreateCommandPool>(gdpa(dev, "vkCreateCommandPool"))(dev, &pci, nullptr, &pool),
              VK_SUCCESS);
    VkCommandBufferAllocateInfo cai{};
    cai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cai.commandPool = pool;
    cai.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    ASSERT_EQ(reinterpret_cast<PFN_vkAllocateCommandBuffers>(gdpa(dev, "vkAllocateCommandBuffers"))(dev, &cai, &cb),
              VK_SUCCESS);
    EXPECT_TRUE(HasMagic(cb));
    reinterpret_cast<PFN_vkCmdDraw>(gdpa(dev, "vkCmdDraw"))(cb, 3, 1, 0, 0);
    VkCommandBufferBeginInfo bi{};
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    reinterpret_cast<PFN_vkBeginCommandBuffer>(gdpa(dev, "vkBeginCommandBuffer"))(cb, &bi);
    EXPECT_EQ(m.Records("vkBeginCommandBuffer").size(), 1u);
    m.Proc<PFN_vkDestroyDevice>(inst, "vkDestroyDevice")(dev, nullptr);
    m.Proc<PFN_vkDestroyDevice>(inst, "vkDestroyDevice")(dev11, nullptr);
    m.DestroyInstance(inst);
}

TEST(Device, NoLoaderMagicMisbehaviour) {
    Mock m("v7", R"({"misbehave": {"no_loader_magic": true}})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    EXPECT_FALSE(HasMagic(inst));
    auto pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 1u);
    EXPECT_FALSE(HasMagic(pds[0]));
    VkDeviceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    VkDevice dev = VK_NULL_HANDLE;
    ASSERT_EQ(m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice")(pds[0], &ci, nullptr, &dev), VK_SUCCESS);
    EXPECT_FALSE(HasMagic(dev));
    // Not destroyed on purpose: dlclose must free it (checked by LeakSanitizer under --config=asan).
}

// queue_without_magic / command_buffer_without_magic: only those objects lack ICD_LOADER_MAGIC.
TEST(Device, QueueAndCommandBufferWithoutMagicMisbehaviours) {
    Mock m("v7", R"({"misbehave": {"queue_without_magic": true, "command_buffer_without_magic": true}})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 1u);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo q{};
    q.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    q.queueCount = 1;
    q.pQueuePriorities = &prio;
    VkDeviceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &q;
    VkDevice dev = VK_NULL_HANDLE;
    ASSERT_EQ(m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice")(pds[0], &ci, nullptr, &dev), VK_SUCCESS);
    EXPECT_TRUE(HasMagic(dev));
    auto gdpa = m.Proc<PFN_vkGetDeviceProcAddr>(inst, "vkGetDeviceProcAddr");
    VkQueue queue = VK_NULL_HANDLE;
    reinterpret_cast<PFN_vkGetDeviceQueue>(gdpa(dev, "vkGetDeviceQueue"))(dev, 0, 0, &queue);
    ASSERT_NE(queue, nullptr);
    uintptr_t word = 0;
    memcpy(&word, queue, sizeof word);
    EXPECT_EQ(word, static_cast<uintptr_t>(0x0badcafe0badcafeull));
    VkCommandPoolCreateInfo pci{};
    pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    VkCommandPool pool = VK_NULL_HANDLE;
    ASSERT_EQ(reinterpret_cast<PFN_vkCreateCommandPool>(gdpa(dev, "vkCreateCommandPool"))(dev, &pci, nullptr, &pool),
              VK_SUCCESS);
    VkCommandBufferAllocateInfo ai{};
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = pool;
    ai.commandBufferCount = 1;
    VkCommandBuffer cb = VK_NULL_HANDLE;
    ASSERT_EQ(reinterpret_cast<PFN_vkAllocateCommandBuffers>(gdpa(dev, "vkAllocateCommandBuffers"))(dev, &ai, &cb),
              VK_SUCCESS);
    EXPECT_FALSE(HasMagic(cb));
    reinterpret_cast<PFN_vkDestroyCommandPool>(gdpa(dev, "vkDestroyCommandPool"))(dev, pool, nullptr);
    reinterpret_cast<PFN_vkDestroyDevice>(gdpa(dev, "vkDestroyDevice"))(dev, nullptr);
    m.DestroyInstance(inst);
}

// non_utf8_names: terminated names that are not UTF-8; lie_in scopes count_grows to the named query.
TEST(PhysicalDevices, NonUtf8NamesAndLieInMisbehaviours) {
    Mock m("v7", R"({"physical_devices": [{"name": "liar"}], "misbehave": {"non_utf8_names": true}})");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto pds = m.PhysicalDevices(inst);
    ASSERT_EQ(pds.size(), 1u);
    VkPhysicalDeviceProperties p{};
    m.Proc<PFN_vkGetPhysicalDeviceProperties>(inst, "vkGetPhysicalDeviceProperties")(pds[0], &p);
    EXPECT_STREQ(p.deviceName, "liar\xC3\x28");
    ASSERT_EQ(
        m.LoadScenario(R"({"lie_in": ["vkGetPhysicalDeviceToolProperties"], "misbehave": {"count_grows": true}})"), 0);
    auto tools = m.Proc<PFN_vkGetPhysicalDeviceToolProperties>(inst, "vkGetPhysicalDeviceToolProperties");
    ASSERT_NE(tools, nullptr);
    VkPhysicalDeviceToolProperties t[2] = {};
    uint32_t n = 1;
    EXPECT_EQ(tools(pds[0], &n, t), VK_SUCCESS);
    EXPECT_EQ(n, 2u); // lies here
    auto enumerate = m.Proc<PFN_vkEnumeratePhysicalDevices>(inst, "vkEnumeratePhysicalDevices");
    VkPhysicalDevice one[2] = {};
    n = 1;
    EXPECT_EQ(enumerate(inst, &n, one), VK_SUCCESS);
    EXPECT_EQ(n, 1u); // not here
    m.DestroyInstance(inst);
}

TEST(Device, InvalidHandlesAreRecordedNotDereferenced) {
    Mock m("v7", "");
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    int bogus[16] = {};
    VkPhysicalDeviceProperties p{};
    m.Proc<PFN_vkGetPhysicalDeviceProperties>(inst, "vkGetPhysicalDeviceProperties")(
        reinterpret_cast<VkPhysicalDevice>(bogus), &p);
    auto recs = m.Records("invalid_handle");
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].Str("function"), "vkGetPhysicalDeviceProperties");
    m.DestroyInstance(inst);
}

// ---------------------------------------------------------------------------------------------
// Unknown functions

TEST(UnknownFunctions, DeviceSlots) {
    std::string scenario = R"({"device_functions": [)";
    for (int i = 0; i < 256; i++)
        scenario += (i ? ",\"" : "\"") + std::string("vkMockUnknownDeviceFunc") + std::to_string(i) + "\"";
    scenario += "]}";
    Mock m("v7", scenario);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto pds = m.PhysicalDevices(inst);
    VkDeviceCreateInfo ci{};
    ci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    VkDevice dev = VK_NULL_HANDLE;
    ASSERT_EQ(m.Proc<PFN_vkCreateDevice>(inst, "vkCreateDevice")(pds[0], &ci, nullptr, &dev), VK_SUCCESS);
    auto gdpa = m.Proc<PFN_vkGetDeviceProcAddr>(inst, "vkGetDeviceProcAddr");
    auto f17 = reinterpret_cast<PFN_mock_icd_unknown_device_func>(gdpa(dev, "vkMockUnknownDeviceFunc17"));
    auto f255 = reinterpret_cast<PFN_mock_icd_unknown_device_func>(gdpa(dev, "vkMockUnknownDeviceFunc255"));
    ASSERT_NE(f17, nullptr);
    ASSERT_NE(f255, nullptr);
    EXPECT_NE(reinterpret_cast<void *>(f17), reinterpret_cast<void *>(f255));
    EXPECT_EQ(gdpa(dev, "vkMockUnknownDeviceFunc256"), nullptr);
    // The GIPA answers them too (the loader may look device functions up at instance level).
    EXPECT_EQ(reinterpret_cast<void *>(m.Gipa()(inst, "vkMockUnknownDeviceFunc17")), reinterpret_cast<void *>(f17));
    EXPECT_EQ(f17(dev, 5), MOCK_ICD_UNKNOWN_DEVICE_RESULT(17, 5));
    EXPECT_EQ(f255(dev, 1), 10256u);
    auto recs = m.Records("vkMockUnknownDeviceFunc17");
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].Num("slot"), 17);
    EXPECT_EQ(recs[0].Num("arg"), 5);
    EXPECT_EQ(recs[0].Str("handle"), "device");
    reinterpret_cast<PFN_vkDestroyDevice>(gdpa(dev, "vkDestroyDevice"))(dev, nullptr);
    m.DestroyInstance(inst);
}

TEST(UnknownFunctions, PhysicalDeviceSlotsThroughGpdpa) {
    Mock m("v4_gpdpa", R"({"physdev_functions": ["vkMockUnknownPhysDevFunc0", "vkMockUnknownPhysDevFunc1"],
                           "device_functions": ["vkMockUnknownDeviceFunc0"]})");
    uint32_t v = 7;
    ASSERT_EQ(m.Negotiate(&v), VK_SUCCESS);
    VkInstance inst = VK_NULL_HANDLE;
    ASSERT_EQ(m.CreateInstance(0, &inst), VK_SUCCESS);
    auto pds = m.PhysicalDevices(inst);
    auto gpdpa = m.Sym<PFN_vk_icdGetPhysicalDeviceProcAddr>("vk_icdGetPhysicalDeviceProcAddr");
    ASSERT_NE(gpdpa, nullptr);
    EXPECT_NE(gpdpa(inst, "vkGetPhysicalDeviceProperties"), nullptr);
    EXPECT_EQ(gpdpa(inst, "vkCreateInstance"), nullptr);
    EXPECT_EQ(gpdpa(inst, "vkMockUnknownDeviceFunc0"), nullptr);
    EXPECT_EQ(gpdpa(inst, "vkMockSomethingElse"), nullptr);
    auto f1 = reinterpret_cast<PFN_mock_icd_unknown_physdev_func>(gpdpa(inst, "vkMockUnknownPhysDevFunc1"));
    ASSERT_NE(f1, nullptr);
    EXPECT_EQ(f1(pds[0], 3), MOCK_ICD_UNKNOWN_PHYSDEV_RESULT(1, 3));
    auto recs = m.Records("vkMockUnknownPhysDevFunc1");
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].Str("handle"), "physical_device");
    auto lookups = m.Records("vk_icdGetPhysicalDeviceProcAddr");
    ASSERT_EQ(lookups.size(), 5u);
    EXPECT_FALSE(lookups[1].Bool("answered"));

    // Misbehaviour: GPDPA answers everything (device functions, unknown names).
    ASSERT_EQ(m.LoadScenario(R"({"physdev_functions": ["vkMockUnknownPhysDevFunc0"],
                                 "device_functions": ["vkMockUnknownDeviceFunc0"],
                                 "misbehave": {"gpdpa_answers_everything": true}})"),
              0);
    EXPECT_NE(gpdpa(inst, "vkMockUnknownDeviceFunc0"), nullptr);
    EXPECT_NE(gpdpa(inst, "vkDestroyInstance"), nullptr);
    auto any = reinterpret_cast<PFN_mock_icd_unknown_physdev_func>(gpdpa(inst, "vkMockSomethingElse"));
    ASSERT_NE(any, nullptr);
    EXPECT_EQ(any(pds[0], 0), MOCK_ICD_UNKNOWN_PHYSDEV_RESULT(1, 0)); // first slot after the scenario's
    EXPECT_EQ(m.Records("vkMockSomethingElse").size(), 1u);
    m.DestroyInstance(inst);
}

} // namespace
} // namespace mock_icd_test
