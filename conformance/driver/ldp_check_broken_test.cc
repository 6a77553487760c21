// ldp-check never crashes or hangs on a broken manifest: every broken shape alone, after a valid
// manifest and through --installed, in every output format, with a well-formed report.
// Policy IDs are cited with VKT_POLICY (conformance/framework/policy.h).
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <vulkan/vulkan.h>

#include "conformance/checker_common/checker_output.h"
#include "conformance/driver/ldp_check_test_util.h"
#include "conformance/framework/json.h"
#include "conformance/framework/policy.h"
#include "conformance/framework/process.h"
#include "conformance/framework/sandbox.h"
#include "gtest/gtest.h"

namespace ldp_test {
namespace {

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
    ASSERT_EQ(want.size(), 18u) << ref.out;

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
                        EXPECT_EQ(a.at("tests"), "18") << show;
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
} // namespace ldp_test
