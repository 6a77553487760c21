// ldp-check on a real driver: Mesa's lavapipe (mesa-vulkan-drivers). Asserts no crash and a sane
// report (one verdict per check, each with a reason); what lavapipe passes and fails is recorded
// in docs/ldp-check-reports/ and explained in docs/ldp-check.md.
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "conformance/framework/json.h"
#include "conformance/framework/policy.h"
#include "conformance/framework/process.h"
#include "conformance/framework/sandbox.h"
#include "gtest/gtest.h"

namespace {

const char kLavapipe[] = "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json";

struct Out {
    int status = -1;
    std::string out;
};

Out RunTool(const std::vector<std::string> &extra) {
    std::vector<std::string> argv = {vkt::Runfile("conformance/driver/ldp-check"),
                                     "--loader=" + vkt::Runfile("loader/libvulkan.so.1"),
                                     "--mock=" + vkt::Runfile("mock_icd/libmock_icd_v7.so"), "--timeout=60"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    vkt::ProcessResult p = vkt::RunProcess(argv);
    return {p.status, p.out};
}

TEST(LdpCheckRealDriver, Lavapipe) {
    VKT_POLICY("LDP_DRIVER_1", "LDP_DRIVER_2", "LDP_DRIVER_3", "LDP_DRIVER_4", "LDP_DRIVER_7", "LDP_DRIVER_12");
    struct stat st;
    if (stat(kLavapipe, &st) != 0) GTEST_SKIP() << kLavapipe << " is not installed";
    Out o = RunTool({"--format=json", kLavapipe});
    ASSERT_TRUE(o.status == 0 || o.status == 1) << "exit " << o.status << "\n" << o.out;
    vkt::Json j = vkt::Json::Parse(o.out);
    ASSERT_TRUE(j.valid()) << o.out;
    ASSERT_EQ(j["drivers"].size(), 1u);
    vkt::Json results = j["drivers"][0]["results"];
    ASSERT_EQ(results.size(), 18u) << o.out;
    std::set<std::string> verdicts = {"pass", "fail", "warn", "not-applicable", "not-testable-here", "removed"};
    bool any_fail = false;
    for (size_t i = 0; i < results.size(); i++) {
        std::string id = results[i]["id"].str(), v = results[i]["verdict"].str();
        EXPECT_TRUE(verdicts.count(v)) << id << " " << v;
        EXPECT_FALSE(results[i]["reason"].str().empty()) << id;
        // No check may end in a crash or time-out of its process for this driver.
        EXPECT_EQ(results[i]["reason"].str().find("the check's process"), std::string::npos)
            << id << ": " << results[i]["reason"].str();
        any_fail = any_fail || v == "fail";
        if (id == "LDP_DRIVER_6") {
            EXPECT_EQ(v, "removed");
        }
        // What any working driver must show here.
        if (id == "LDP_DRIVER_3" || id == "LDP_DRIVER_4" || id == "LDP_DRIVER_7" || id == "LDP_DRIVER_1" ||
            id == "LDP_DRIVER_2") {
            EXPECT_EQ(v, "pass") << id << ": " << results[i]["reason"].str();
        }
    }
    EXPECT_EQ(o.status, any_fail ? 1 : 0);
    Out table = RunTool({kLavapipe});
    EXPECT_EQ(table.status, o.status);
    EXPECT_NE(table.out.find("== " + std::string(kLavapipe)), std::string::npos) << table.out;
    EXPECT_NE(table.out.find("summary:"), std::string::npos) << table.out;
}

} // namespace
