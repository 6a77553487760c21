// A real client on the mock driver (RULE_PHYSDEV_AGGREGATE): Debian's vulkaninfo (vulkan-tools) runs on a mock
// ICD through the loader under test, and what it reports -- the Vulkan Profiles JSON of
// `vulkaninfo --json=N` for each device, plus the text and summary reports -- matches the mock's
// scenario: device name, vendor and device IDs, Vulkan and driver versions, device type, device
// extensions, queue families, driver identity and PCI bus. vulkaninfo asks every instance and
// physical-device query it knows (and creates a device, images and buffers for its memory tables),
// so this also proves the mock answers all of them with well-formed values, through either loader.
//
// vulkaninfo is started through vkprobe's runner (RunProbe: cleared environment, sandboxed HOME and
// XDG directories, private mount namespace hiding the host's drivers and layers) with a two-line
// wrapper in place of the probe that drops the probe's arguments; the loader under test is put first
// on LD_LIBRARY_PATH under both names vulkaninfo dlopens (libvulkan.so, libvulkan.so.1). The test
// skips, saying why, when /usr/bin/vulkaninfo is absent: it is a real client, not part of the build.
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "conformance/loader/common.h"

namespace vkt {
namespace {

constexpr char kVulkaninfo[] = "/usr/bin/vulkaninfo";

// What the test expects of one scenario device.
struct Dev {
  std::string name;
  int vendor_id, device_id;
  std::string api;  // "M.m.p"
  int driver_version;
  std::string type;       // scenario spelling
  std::string type_enum;  // VkPhysicalDeviceType name
  std::vector<std::pair<std::string, int>> extensions;
  std::vector<std::pair<int, int>> families;  // flags, count
  std::vector<int> pci_bus;                   // empty: no VK_EXT_pci_bus_info
};

const std::vector<Dev>& Devices() {
  static const std::vector<Dev> devs = {
      {"Mock Info Discrete",
       4318,
       0x2204,
       "1.3.0",
       0x00401003,
       "discrete",
       "VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU",
       {{"VK_KHR_swapchain", 70}, {"VK_EXT_pci_bus_info", 2}, {"VK_KHR_device_group", 4}},
       {{7, 2}, {4, 1}, {2, 4}},
       {0, 3, 0, 0}},
      {"Mock Info Integrated",
       32902,
       0x9a49,
       "1.2.0",
       7,
       "integrated",
       "VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU",
       {{"VK_KHR_maintenance4", 2}},
       {{3, 1}},
       {}},
  };
  return devs;
}

std::string Scenario() {
  std::string s =
      "{\"api_version\":\"1.3.0\",\"instance_extensions\":[\"VK_KHR_get_physical_device_properties2\","
      "\"VK_KHR_device_group_creation\",\"VK_KHR_surface\",\"VK_EXT_debug_utils\"],\"physical_devices\":[";
  bool first = true;
  for (const Dev& d : Devices()) {
    s += first ? "{" : ",{";
    first = false;
    s += "\"name\":\"" + d.name + "\",\"vendor_id\":" + std::to_string(d.vendor_id) +
         ",\"device_id\":" + std::to_string(d.device_id) + ",\"api_version\":\"" + d.api +
         "\",\"driver_version\":" + std::to_string(d.driver_version) + ",\"device_type\":\"" + d.type +
         "\",\"driver_id\":3,\"conformance_version\":\"1.3.5.0\",\"extensions\":[";
    for (size_t i = 0; i < d.extensions.size(); ++i)
      s += std::string(i ? "," : "") + "{\"name\":\"" + d.extensions[i].first +
           "\",\"spec_version\":" + std::to_string(d.extensions[i].second) + "}";
    s += "],\"queue_families\":[";
    for (size_t i = 0; i < d.families.size(); ++i)
      s += std::string(i ? "," : "") + "{\"flags\":" + std::to_string(d.families[i].first) +
           ",\"count\":" + std::to_string(d.families[i].second) + "}";
    s += "]";
    if (!d.pci_bus.empty()) {
      s += ",\"pci_bus\":[";
      for (size_t i = 0; i < d.pci_bus.size(); ++i) s += (i ? "," : "") + std::to_string(d.pci_bus[i]);
      s += "]";
    }
    s += "}";
  }
  return s + "]}";
}

uint32_t ApiNumber(const std::string& v) {
  unsigned a = 0, b = 0, c = 0;
  sscanf(v.c_str(), "%u.%u.%u", &a, &b, &c);
  return (a << 22) | (b << 12) | c;
}

std::vector<std::string> QueueFlagNames(int flags) {
  static const std::pair<int, const char*> kBits[] = {{1, "VK_QUEUE_GRAPHICS_BIT"},
                                                      {2, "VK_QUEUE_COMPUTE_BIT"},
                                                      {4, "VK_QUEUE_TRANSFER_BIT"},
                                                      {8, "VK_QUEUE_SPARSE_BINDING_BIT"}};
  std::vector<std::string> out;
  for (const auto& b : kBits)
    if (flags & b.first) out.push_back(b.second);
  return out;
}

// The sanitizer runtimes this (instrumented) test process runs with, for LD_PRELOAD: under
// --config=asan our loader and the mock are instrumented but vulkaninfo is not, and ASan must be
// the first library of the process.
std::string SanitizerPreload() {
  std::string out;
  dl_iterate_phdr(
      [](struct dl_phdr_info* info, size_t, void* data) {
        std::string name = info->dlpi_name ? info->dlpi_name : "";
        if (name.find("libasan.so") != std::string::npos) *static_cast<std::string*>(data) = name;
        return 0;
      },
      &out);
  return out;
}

class VulkaninfoOnMock : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kVulkaninfo, X_OK) != 0)
      GTEST_SKIP() << kVulkaninfo << " is absent: this test runs the real client from Debian's "
                   << "vulkan-tools package (ci/bootstrap installs it)";
    s_.AddDriver("info", "v7_exports", Scenario());
    s_.SetEnv("VK_DRIVER_FILES", s_.WriteDriverManifest(Location::kLoose, "info"));
    // Host layers stay out (the mount namespace hides them too where it is available).
    s_.SetEnv("VK_LOADER_LAYERS_DISABLE", "~all~");
    s_.SetEnv("VK_LOADER_DEBUG", "error,warn");
    s_.SetEnv("XDG_RUNTIME_DIR", s_.root());
    // The loader under test under both names vulkaninfo tries (libvulkan.so first).
    std::string libdir = s_.root() + "/loader_under_test";
    ASSERT_TRUE(MakeDirs(libdir));
    for (const char* n : {"libvulkan.so", "libvulkan.so.1"})
      ASSERT_EQ(symlink(LoaderPath().c_str(), (libdir + "/" + n).c_str()), 0) << n;
    s_.SetEnv("LD_LIBRARY_PATH", libdir);
    std::string preload = SanitizerPreload();
    if (!preload.empty()) {
      s_.SetEnv("LD_PRELOAD", preload);
      s_.SetEnv("ASAN_OPTIONS", "detect_leaks=0:verify_asan_link_order=0");
    }
    // RunProbe passes "--loader=... --driver-lib=..." first: vulkaninfo's own arguments follow "--".
    wrapper_ = s_.root() + "/vulkaninfo.sh";
    s_.WriteFile(wrapper_, std::string("#!/bin/sh\nwhile [ $# -gt 0 ] && [ \"$1\" != -- ]; do shift; done\n"
                                       "shift\nexec ") +
                               kVulkaninfo + " \"$@\"\n");
    ASSERT_EQ(chmod(wrapper_.c_str(), 0755), 0);
  }

  ProbeResult Run(const std::vector<std::string>& args) {
    ProbeOptions o;
    o.probe = wrapper_;
    std::vector<std::string> steps = {"--"};
    steps.insert(steps.end(), args.begin(), args.end());
    return RunProbe(s_, steps, o);
  }

  Sandbox s_;
  std::string wrapper_;
};

TEST_F(VulkaninfoOnMock, JsonProfileOfEachDeviceMatchesTheScenario) {
  VKT_POLICY("RULE_PHYSDEV_AGGREGATE");
  std::vector<std::string> seen;
  for (size_t gpu = 0; gpu < Devices().size(); ++gpu) {
    SCOPED_TRACE("--json=" + std::to_string(gpu));
    std::string out = s_.root() + "/gpu" + std::to_string(gpu) + ".json";
    ProbeResult r = Run({"--json=" + std::to_string(gpu), "-o", out});
    ASSERT_EQ(r.exit_status, 0) << r.Describe();
    Json doc = Json::Parse(ReadFileText(out));
    ASSERT_TRUE(doc.valid()) << "not JSON: " << out << "\n" << r.Describe();
    Json dev = doc["capabilities"]["device"];
    Json props = dev["properties"]["VkPhysicalDeviceProperties"];
    std::string name = props["deviceName"].str();
    const Dev* want = nullptr;
    for (const Dev& d : Devices())
      if (d.name == name) want = &d;
    ASSERT_NE(want, nullptr) << "unknown device " << name << " in " << doc.dump();
    seen.push_back(name);

    EXPECT_EQ(props["vendorID"].num(), want->vendor_id);
    EXPECT_EQ(props["deviceID"].num(), want->device_id);
    EXPECT_EQ(props["apiVersion"].num(), static_cast<int64_t>(ApiNumber(want->api)));
    EXPECT_EQ(props["driverVersion"].num(), want->driver_version);
    EXPECT_EQ(props["deviceType"].str(), want->type_enum);
    // Well-formed limits, not zeros.
    EXPECT_EQ(props["limits"]["maxImageDimension2D"].num(), 4096);
    EXPECT_GE(props["limits"]["maxBoundDescriptorSets"].num(), 4);
    // The profile's header names the device's Vulkan version.
    ASSERT_EQ(doc["profiles"].size(), 1u) << doc["profiles"].dump();
    Json profile = doc["profiles"][doc["profiles"].keys()[0]];
    EXPECT_EQ(profile["api-version"].str(), want->api) << profile.dump();

    Json exts = dev["extensions"];
    EXPECT_EQ(exts.size(), want->extensions.size()) << exts.dump();
    for (const auto& e : want->extensions) EXPECT_EQ(exts[e.first].num(), e.second) << e.first << " in " << exts.dump();

    Json fams = dev["queueFamiliesProperties"];
    ASSERT_EQ(fams.size(), want->families.size()) << fams.dump();
    for (size_t i = 0; i < want->families.size(); ++i) {
      Json f = fams[i]["VkQueueFamilyProperties"];
      EXPECT_EQ(f["queueCount"].num(), want->families[i].second) << f.dump();
      EXPECT_EQ(Sorted(f["queueFlags"].strings()), Sorted(QueueFlagNames(want->families[i].first))) << f.dump();
    }

    Json driver = dev["properties"]["VkPhysicalDeviceDriverProperties"];
    EXPECT_EQ(driver["driverName"].str(), "Mock ICD") << driver.dump();
    EXPECT_EQ(driver["conformanceVersion"]["major"].num(), 1) << driver.dump();
    EXPECT_EQ(driver["conformanceVersion"]["minor"].num(), 3) << driver.dump();
    EXPECT_EQ(driver["conformanceVersion"]["subminor"].num(), 5) << driver.dump();
    Json id = dev["properties"]["VkPhysicalDeviceIDProperties"];
    EXPECT_EQ(id["deviceUUID"].size(), 16u) << id.dump();
    if (!want->pci_bus.empty()) {
      Json pci = dev["properties"]["VkPhysicalDevicePCIBusInfoPropertiesEXT"];
      EXPECT_EQ(pci["pciBus"].num(), want->pci_bus[1]) << dev["properties"].keys().size();
    }
    // vulkaninfo's format table came from the mock's format queries.
    EXPECT_GT(dev["formats"].size(), 0u);
  }
  EXPECT_EQ(Sorted(seen), Sorted(std::vector<std::string>{Devices()[0].name, Devices()[1].name}));
  // The mock saw what vulkaninfo does: a device created, images for its memory tables.
  EXPECT_FALSE(s_.CallsTo("info", "vkCreateDevice").empty());
  EXPECT_TRUE(s_.CallsTo("info", "invalid_handle").empty());
}

TEST_F(VulkaninfoOnMock, TextAndSummaryReportEveryDevice) {
  VKT_POLICY("RULE_PHYSDEV_AGGREGATE");
  // The dynamic linker says which libvulkan vulkaninfo opened: the loader under test.
  s_.SetEnv("LD_DEBUG", "files");
  for (const char* mode : {"--summary", "--text"}) {
    SCOPED_TRACE(mode);
    ProbeResult r = Run({mode});
    ASSERT_EQ(r.exit_status, 0) << r.Describe();
    EXPECT_TRUE(r.LogContains("file=" + s_.root() + "/loader_under_test/libvulkan.so")) << r.Describe();
    for (const Dev& d : Devices()) {
      EXPECT_NE(r.out.find(d.name), std::string::npos) << d.name << "\n" << r.Describe();
    }
    EXPECT_NE(r.out.find("VK_KHR_device_group_creation"), std::string::npos) << r.Describe();
    EXPECT_NE(r.out.find("0x2204"), std::string::npos) << r.Describe();  // deviceID, in hex
  }
  EXPECT_TRUE(s_.CallsTo("info", "invalid_handle").empty());
}

}  // namespace
}  // namespace vkt
