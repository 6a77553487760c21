// Unit tests for loader/json.c: the opaque JSON API, error messages, limits.
#include <gtest/gtest.h>

#include <string>
#include <vector>

extern "C" {
#include "loader/internal/json.h"
}

namespace {

struct Parsed {
    VkResult result;
    vkl_json *root = nullptr;
    std::string err;
    explicit Parsed(const std::string &s) : Parsed(s.data(), s.size()) {}
    Parsed(const char *buf, size_t len) {
        char e[256] = "unchanged";
        result = vkl_json_parse(buf, len, &root, e, sizeof(e));
        err = e;
    }
    ~Parsed() { vkl_json_free(root); }
};

TEST(Json, ParsesObjectAndAccessors) {
    Parsed p(R"({"s": "str", "n": 1.5, "t": true, "f": false, "z": null,
                 "a": [1, "two", {"k": "v"}], "o": {"inner": "x"}})");
    ASSERT_EQ(p.result, VK_SUCCESS) << p.err;
    EXPECT_EQ(p.err, "");
    const vkl_json *r = p.root;
    EXPECT_TRUE(vkl_json_is_object(r));
    EXPECT_STREQ(vkl_json_string(vkl_json_get(r, "s")), "str");
    EXPECT_TRUE(vkl_json_is_number(vkl_json_get(r, "n")));
    EXPECT_DOUBLE_EQ(vkl_json_number(vkl_json_get(r, "n")), 1.5);
    EXPECT_TRUE(vkl_json_is_bool(vkl_json_get(r, "t")));
    EXPECT_TRUE(vkl_json_bool(vkl_json_get(r, "t")));
    EXPECT_TRUE(vkl_json_is_bool(vkl_json_get(r, "f")));
    EXPECT_FALSE(vkl_json_bool(vkl_json_get(r, "f")));
    EXPECT_TRUE(vkl_json_is_null(vkl_json_get(r, "z")));
    const vkl_json *a = vkl_json_get(r, "a");
    ASSERT_TRUE(vkl_json_is_array(a));
    EXPECT_EQ(vkl_json_array_size(a), 3u);
    const vkl_json *e0 = vkl_json_first(a);
    const vkl_json *e1 = vkl_json_next(e0);
    const vkl_json *e2 = vkl_json_next(e1);
    EXPECT_DOUBLE_EQ(vkl_json_number(e0), 1.0);
    EXPECT_STREQ(vkl_json_string(e1), "two");
    EXPECT_STREQ(vkl_json_string(vkl_json_get(e2, "k")), "v");
    EXPECT_EQ(vkl_json_next(e2), nullptr);
    EXPECT_EQ(vkl_json_key(e0), nullptr); // array elements have no key
    std::vector<const vkl_json *> seen;
    VKL_JSON_FOR_EACH(e, a) seen.push_back(e);
    EXPECT_EQ(seen, (std::vector<const vkl_json *>{e0, e1, e2}));
    const vkl_json *o = vkl_json_get(r, "o");
    EXPECT_EQ(vkl_json_object_size(o), 1u);
    const vkl_json *m = vkl_json_first(o);
    EXPECT_STREQ(vkl_json_string(m), "x");
    EXPECT_STREQ(vkl_json_key(m), "inner");
    EXPECT_EQ(vkl_json_next(m), nullptr);
    EXPECT_EQ(vkl_json_first(vkl_json_get(r, "empty_array_absent")), nullptr);
    EXPECT_EQ(vkl_json_object_size(r), 7u);
}

TEST(Json, WrongTypeAccessorsAreSafe) {
    Parsed p(R"({"n": 3, "s": "x"})");
    ASSERT_EQ(p.result, VK_SUCCESS);
    const vkl_json *n = vkl_json_get(p.root, "n");
    const vkl_json *s = vkl_json_get(p.root, "s");
    EXPECT_EQ(vkl_json_string(n), nullptr);
    EXPECT_FALSE(vkl_json_bool(s));
    EXPECT_DOUBLE_EQ(vkl_json_number(s), 0.0);
    EXPECT_EQ(vkl_json_array_size(s), 0u);
    EXPECT_EQ(vkl_json_first(n), nullptr); // a number has no elements
    EXPECT_EQ(vkl_json_first(s), nullptr); // nor has a string
    EXPECT_EQ(vkl_json_next(nullptr), nullptr);
    EXPECT_EQ(vkl_json_key(nullptr), nullptr);
    EXPECT_EQ(vkl_json_get(n, "x"), nullptr); // number is not an object
    EXPECT_EQ(vkl_json_get(nullptr, "x"), nullptr);
    EXPECT_EQ(vkl_json_get(p.root, nullptr), nullptr);
    EXPECT_EQ(vkl_json_get(p.root, "missing"), nullptr);
    EXPECT_FALSE(vkl_json_is_string(nullptr));
    EXPECT_EQ(vkl_json_object_size(nullptr), 0u);
}

TEST(Json, TypeNames) {
    Parsed p(R"({"z": null, "b": true, "n": 1, "s": "", "a": [], "o": {}})");
    ASSERT_EQ(p.result, VK_SUCCESS);
    EXPECT_STREQ(vkl_json_type_name(vkl_json_get(p.root, "z")), "null");
    EXPECT_STREQ(vkl_json_type_name(vkl_json_get(p.root, "b")), "bool");
    EXPECT_STREQ(vkl_json_type_name(vkl_json_get(p.root, "n")), "number");
    EXPECT_STREQ(vkl_json_type_name(vkl_json_get(p.root, "s")), "string");
    EXPECT_STREQ(vkl_json_type_name(vkl_json_get(p.root, "a")), "array");
    EXPECT_STREQ(vkl_json_type_name(vkl_json_get(p.root, "o")), "object");
    EXPECT_STREQ(vkl_json_type_name(nullptr), "missing");
}

TEST(Json, KeysAreCaseSensitiveFirstDuplicateWins) {
    Parsed p(R"({"ICD": 1, "dup": "first", "dup": "second"})");
    ASSERT_EQ(p.result, VK_SUCCESS);
    EXPECT_NE(vkl_json_get(p.root, "ICD"), nullptr);
    EXPECT_EQ(vkl_json_get(p.root, "icd"), nullptr);
    EXPECT_EQ(vkl_json_get(p.root, "Icd"), nullptr);
    EXPECT_STREQ(vkl_json_string(vkl_json_get(p.root, "dup")), "first");
}

TEST(Json, BufferNeedNotBeNulTerminated) {
    const std::string s = R"({"a": "b"}GARBAGE)";
    Parsed p(s.data(), 10);
    ASSERT_EQ(p.result, VK_SUCCESS) << p.err;
    EXPECT_STREQ(vkl_json_string(vkl_json_get(p.root, "a")), "b");
}

TEST(Json, ScalarsAndWhitespaceAtTopLevel) {
    Parsed p("  \n[1]\n  ");
    ASSERT_EQ(p.result, VK_SUCCESS);
    EXPECT_TRUE(vkl_json_is_array(p.root));
    Parsed q("\"x\"");
    ASSERT_EQ(q.result, VK_SUCCESS);
    EXPECT_STREQ(vkl_json_string(q.root), "x");
}

TEST(JsonErrors, EmptyInput) {
    Parsed p("", 0);
    EXPECT_EQ(p.result, VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(p.root, nullptr);
    EXPECT_EQ(p.err, "empty input");
    Parsed w("   ");
    EXPECT_EQ(w.result, VK_ERROR_INITIALIZATION_FAILED);
}

TEST(JsonErrors, TrailingGarbage) {
    Parsed p("{} x");
    EXPECT_EQ(p.result, VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(p.root, nullptr);
    EXPECT_EQ(p.err, "syntax error at line 1, column 4 near 'x'");
    Parsed q("{}{}");
    EXPECT_EQ(q.result, VK_ERROR_INITIALIZATION_FAILED);
}

TEST(JsonErrors, SyntaxErrorReportsLineAndColumn) {
    Parsed p("{\n  \"a\": ,\n}");
    EXPECT_EQ(p.result, VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_NE(p.err.find("line 2"), std::string::npos) << p.err;
    EXPECT_EQ(p.err.rfind("syntax error at line 2, column ", 0), 0u) << p.err;
}

TEST(JsonErrors, UnexpectedEnd) {
    for (const char *s : {"{\"a\": ", "[1, 2"}) {
        Parsed p(s);
        EXPECT_EQ(p.result, VK_ERROR_INITIALIZATION_FAILED) << s;
        EXPECT_EQ(p.err.rfind("unexpected end of input at line 1, column ", 0), 0u) << p.err;
    }
    // cJSON reports an unterminated string just after its opening quote
    Parsed u("{\"a\": \"unterminated");
    EXPECT_EQ(u.result, VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(u.err, "syntax error at line 1, column 8 near 'unterminated'");
}

TEST(JsonErrors, EmbeddedNul) {
    const char buf[] = {'{', '"', 'a', '"', ':', '\0', '1', '}'};
    Parsed p(buf, sizeof(buf));
    EXPECT_EQ(p.result, VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(p.err, "embedded NUL byte at line 1, column 6");
}

TEST(JsonErrors, NulEscapeInAValueIsRejected) {
    // "good.so\u0000/evil/lib.so" would read as "good.so" through every C string API (RULE_ADVERSARIAL_INPUT).
    Parsed p("{\"library_path\": \"good.so\\u0000/evil/lib.so\"}");
    EXPECT_EQ(p.result, VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(p.root, nullptr);
    EXPECT_EQ(p.err, "string with an embedded NUL (escape \\u0000) at line 1, column 26: it would cut the string "
                     "short");
}

TEST(JsonErrors, NulEscapeInAKeyIsRejected) {
    Parsed p("{\n  \"ICD\\u0000x\": {}\n}");
    EXPECT_EQ(p.result, VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_NE(p.err.find("line 2, column 7"), std::string::npos) << p.err;
}

TEST(Json, OtherEscapesAndAnEscapedBackslashBeforeU0000AreFine) {
    // "\\u0000" is a backslash followed by the six characters u0000: no NUL.
    Parsed a("{\"k\": \"a\\\\u0000b\", \"t\": \"\\u0001\\u00e9\\n\"}");
    ASSERT_EQ(a.result, VK_SUCCESS) << a.err;
    EXPECT_STREQ(vkl_json_string(vkl_json_get(a.root, "k")), "a\\u0000b");
    // Outside strings the six characters are a syntax error, reported by the parser.
    Parsed b("[1, \\u0000]");
    EXPECT_EQ(b.result, VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(b.err.find("embedded NUL"), std::string::npos) << b.err;
}

TEST(JsonErrors, SizeLimit) {
    std::string big(VKL_JSON_MAX_SIZE + 1, ' ');
    big[0] = '0';
    Parsed p(big);
    EXPECT_EQ(p.result, VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(p.err, "input is 16777217 bytes, more than the 16777216 byte limit");
}

TEST(JsonErrors, DepthBombs) {
    {
        Parsed p(std::string(100000, '['));
        EXPECT_EQ(p.result, VK_ERROR_INITIALIZATION_FAILED);
        EXPECT_EQ(p.err, "nesting deeper than 128 levels at line 1, column 129");
    }
    {
        Parsed p(std::string(100000, '[') + std::string(100000, ']'));
        EXPECT_EQ(p.result, VK_ERROR_INITIALIZATION_FAILED);
    }
    {
        std::string s;
        for (int i = 0; i < 50000; i++) s += "{\"a\":";
        Parsed p(s);
        EXPECT_EQ(p.result, VK_ERROR_INITIALIZATION_FAILED);
        EXPECT_NE(p.err.find("nesting deeper than 128"), std::string::npos);
    }
}

TEST(Json, DepthLimitBoundary) {
    Parsed ok(std::string(VKL_JSON_MAX_DEPTH, '[') + std::string(VKL_JSON_MAX_DEPTH, ']'));
    EXPECT_EQ(ok.result, VK_SUCCESS) << ok.err;
    Parsed bad(std::string(VKL_JSON_MAX_DEPTH + 1, '[') + std::string(VKL_JSON_MAX_DEPTH + 1, ']'));
    EXPECT_EQ(bad.result, VK_ERROR_INITIALIZATION_FAILED);
}

TEST(Json, BracketsInsideStringsDoNotCountTowardsDepth) {
    Parsed p("[\"" + std::string(1000, '[') + "\\\"" + std::string(1000, '{') + "\"]");
    ASSERT_EQ(p.result, VK_SUCCESS) << p.err;
    EXPECT_EQ(std::string(vkl_json_string(vkl_json_first(p.root))).size(), 2001u);
}

TEST(JsonErrors, NullErrBufferAndBadArgs) {
    vkl_json *root = reinterpret_cast<vkl_json *>(0x1);
    EXPECT_EQ(vkl_json_parse("[", 1, &root, nullptr, 0), VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(root, nullptr);
    EXPECT_EQ(vkl_json_parse(nullptr, 4, &root, nullptr, 0), VK_ERROR_INITIALIZATION_FAILED);
    char err[8];
    EXPECT_EQ(vkl_json_parse("[", 1, nullptr, err, sizeof(err)), VK_ERROR_INITIALIZATION_FAILED);
    // err is truncated to its buffer and stays terminated
    EXPECT_EQ(vkl_json_parse(std::string(200, '[').c_str(), 200, &root, err, sizeof(err)),
              VK_ERROR_INITIALIZATION_FAILED);
    EXPECT_EQ(std::string(err), "nesting");
    vkl_json_free(nullptr);
}

} // namespace
