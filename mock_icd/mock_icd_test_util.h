// Helpers of the mock ICD's own tests (mock_icd_test.cc, mock_icd_device_test.cc,
// mock_icd_records_test.cc, mock_icd_proof_test.cc): a fresh dlopened copy of a variant (Mock) and
// its records.
#ifndef MOCK_ICD_MOCK_ICD_TEST_UTIL_H_
#define MOCK_ICD_MOCK_ICD_TEST_UTIL_H_

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES 1
#endif

#include <dlfcn.h>

#include <cjson/cJSON.h>
#include <gtest/gtest.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vulkan.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "mock_icd/mock_icd_ctl.h"

namespace mock_icd_test {

namespace fs = std::filesystem;

inline std::string RunfilesLibrary(const std::string &variant) {
    const char *srcdir = std::getenv("TEST_SRCDIR");
    const char *ws = std::getenv("TEST_WORKSPACE");
    return std::string(srcdir ? srcdir : ".") + "/" + (ws ? ws : "vk_loader_harness") + "/mock_icd/libmock_icd_" +
           variant + ".so";
}

inline std::string TestTmpDir() {
    const char *t = std::getenv("TEST_TMPDIR");
    return t ? t : "/tmp";
}

// One record (a JSON object) with convenient accessors.
struct Record {
    std::shared_ptr<cJSON> json;
    std::string call() const { return Str("call"); }
    const cJSON *Get(const char *key) const { return cJSON_GetObjectItemCaseSensitive(json.get(), key); }
    std::string Str(const char *key) const {
        const cJSON *v = Get(key);
        return cJSON_IsString(v) ? v->valuestring : (cJSON_IsNull(v) ? "<null>" : "<missing>");
    }
    double Num(const char *key) const {
        const cJSON *v = Get(key);
        return cJSON_IsNumber(v) ? v->valuedouble : -1;
    }
    bool Bool(const char *key) const { return cJSON_IsTrue(Get(key)); }
    std::vector<std::string> Strings(const char *key) const {
        std::vector<std::string> out;
        const cJSON *it;
        cJSON_ArrayForEach(it, Get(key)) out.push_back(cJSON_IsString(it) ? it->valuestring : "<null>");
        return out;
    }
};

inline Record ParseRecord(const std::string &line) {
    cJSON *j = cJSON_Parse(line.c_str());
    EXPECT_NE(j, nullptr) << "not JSON: " << line;
    return Record{std::shared_ptr<cJSON>(j, cJSON_Delete)};
}

class Mock {
  public:
    Mock(const std::string &variant, const std::string &scenario, int dlflags = RTLD_NOW | RTLD_LOCAL) {
        static int counter = 0;
        const testing::TestInfo *ti = testing::UnitTest::GetInstance()->current_test_info();
        dir_ = TestTmpDir() + "/" + ti->test_suite_name() + "." + ti->name() + "." + std::to_string(counter++);
        fs::create_directories(dir_);
        path_ = dir_ + "/libmock_icd_" + variant + ".so";
        fs::copy_file(RunfilesLibrary(variant), path_, fs::copy_options::overwrite_existing);
        if (!scenario.empty()) std::ofstream(path_ + ".scenario") << scenario;
        handle_ = dlopen(path_.c_str(), dlflags);
        EXPECT_NE(handle_, nullptr) << dlerror();
    }
    ~Mock() {
        if (handle_) dlclose(handle_);
    }
    Mock(const Mock &) = delete;
    Mock &operator=(const Mock &) = delete;

    template <typename T> T Sym(const char *name) const { return reinterpret_cast<T>(dlsym(handle_, name)); }
    // The GIPA a loader would use: vk_icdGetInstanceProcAddr, else the exported vkGetInstanceProcAddr.
    PFN_vkGetInstanceProcAddr Gipa() const {
        auto g = Sym<PFN_vkGetInstanceProcAddr>("vk_icdGetInstanceProcAddr");
        return g ? g : Sym<PFN_vkGetInstanceProcAddr>("vkGetInstanceProcAddr");
    }
    template <typename T> T Proc(VkInstance instance, const char *name) const {
        return reinterpret_cast<T>(Gipa()(instance, name));
    }
    VkResult Negotiate(uint32_t *version) const {
        auto n = Sym<PFN_vk_icdNegotiateLoaderICDInterfaceVersion>("vk_icdNegotiateLoaderICDInterfaceVersion");
        if (!n)
            n = Proc<PFN_vk_icdNegotiateLoaderICDInterfaceVersion>(nullptr, "vk_icdNegotiateLoaderICDInterfaceVersion");
        EXPECT_NE(n, nullptr);
        return n ? n(version) : VK_ERROR_INITIALIZATION_FAILED;
    }
    VkResult CreateInstance(uint32_t api_version, VkInstance *out, std::vector<const char *> exts = {}) const {
        VkApplicationInfo app{};
        app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
        app.pApplicationName = "mock_icd_test";
        app.apiVersion = api_version;
        VkInstanceCreateInfo ci{};
        ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
        ci.pApplicationInfo = &app;
        ci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
        ci.ppEnabledExtensionNames = exts.data();
        return Proc<PFN_vkCreateInstance>(nullptr, "vkCreateInstance")(&ci, nullptr, out);
    }
    void DestroyInstance(VkInstance instance) const {
        Proc<PFN_vkDestroyInstance>(instance, "vkDestroyInstance")(instance, nullptr);
    }
    std::vector<VkPhysicalDevice> PhysicalDevices(VkInstance instance) const {
        auto enumerate = Proc<PFN_vkEnumeratePhysicalDevices>(instance, "vkEnumeratePhysicalDevices");
        uint32_t n = 0;
        EXPECT_EQ(enumerate(instance, &n, nullptr), VK_SUCCESS);
        std::vector<VkPhysicalDevice> pds(n);
        EXPECT_EQ(enumerate(instance, &n, pds.data()), VK_SUCCESS);
        pds.resize(n);
        return pds;
    }

    std::vector<Record> Records() const {
        std::vector<Record> out;
        size_t n = Sym<PFN_mock_icd_ctl_record_count>("mock_icd_ctl_record_count")();
        auto get = Sym<PFN_mock_icd_ctl_record_get>("mock_icd_ctl_record_get");
        for (size_t i = 0; i < n; i++) out.push_back(ParseRecord(get(i)));
        EXPECT_EQ(get(n), nullptr);
        return out;
    }
    std::vector<Record> Records(const std::string &call) const {
        std::vector<Record> out;
        for (auto &r : Records())
            if (r.call() == call) out.push_back(r);
        return out;
    }
    std::vector<std::string> CallsFileLines() const {
        std::ifstream f(path_ + ".calls");
        std::vector<std::string> lines;
        for (std::string line; std::getline(f, line);) lines.push_back(line);
        return lines;
    }
    int LoadScenario(const char *json) const {
        return Sym<PFN_mock_icd_ctl_load_scenario>("mock_icd_ctl_load_scenario")(json);
    }
    void Reset() const { Sym<PFN_mock_icd_ctl_reset>("mock_icd_ctl_reset")(); }
    void SetResult(const char *cmd, VkResult r) const {
        Sym<PFN_mock_icd_ctl_set_result>("mock_icd_ctl_set_result")(cmd, r);
    }

    const std::string &path() const { return path_; }
    void *handle() const { return handle_; }

  private:
    std::string dir_, path_;
    void *handle_ = nullptr;
};

inline bool HasMagic(const void *obj) {
    return (reinterpret_cast<const VK_LOADER_DATA *>(obj)->loaderMagic & 0xffffffff) == ICD_LOADER_MAGIC;
}

} // namespace mock_icd_test

#endif // MOCK_ICD_MOCK_ICD_TEST_UTIL_H_
