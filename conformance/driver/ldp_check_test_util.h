// Helpers of the ldp-check tests (ldp_check_test.cc, ldp_check_cli_test.cc,
// ldp_check_broken_test.cc): running ldp-check, and mock configurations written into a sandbox.
#ifndef VKT_DRIVER_LDP_CHECK_TEST_UTIL_H_
#define VKT_DRIVER_LDP_CHECK_TEST_UTIL_H_

#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "conformance/checker_common/checker_output.h"
#include "conformance/framework/process.h"
#include "conformance/framework/sandbox.h"
#include "gtest/gtest.h"

namespace ldp_test {

struct LdpRun : chk::CheckerRun {
    std::string Describe() const { return CheckerRun::Describe(false); }
};

// Runs ldp-check with `args` (plus --loader/--mock unless `raw`) and collects its output.
inline LdpRun LdpCheck(const std::vector<std::string> &args, bool json = true, bool raw = false,
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

inline std::string Replace(std::string s, const std::string &from, const std::string &to) {
    for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size()))
        s.replace(p, from.size(), to);
    return s;
}

// Writes the configuration into a fresh sandbox and returns the manifest path (and in *env the
// environment ldp-check needs for it).
inline std::string Materialise(vkt::Sandbox &sb, const Config &c, const std::string &name = "drv",
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

inline Config V(const std::string &variant, const std::string &scenario, const std::string &api = "1.3.0") {
    Config c;
    c.variant = variant;
    c.scenario = scenario;
    c.manifest_api = api;
    return c;
}

} // namespace ldp_test

#endif // VKT_DRIVER_LDP_CHECK_TEST_UTIL_H_
