/* Fuchsia-style ICD packages: metadata.json and the rules RULE_ICDPKG_1..7 (package.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conformance/driver/package.h"
#include "loader/internal/json.h"

const struct ldp_check_def ldp_pkg_rules[LDP_PKG_RULE_COUNT] = {
    {"RULE_ICDPKG_1", "icdpkg_1_metadata", "package: meta/metadata/metadata.json is one JSON object", NULL, 0, false},
    {"RULE_ICDPKG_2", "icdpkg_2_version", "package: metadata version is 1", NULL, 0, false},
    {"RULE_ICDPKG_3", "icdpkg_3_paths_present", "package: file_path and manifest_path are both given", NULL, 0, false},
    {"RULE_ICDPKG_4", "icdpkg_4_paths_relative", "package: both paths are relative to the contents directory", NULL, 0,
     false},
    {"RULE_ICDPKG_5", "icdpkg_5_files_present", "package: the library and the manifest are files in the package", NULL,
     0, false},
    {"RULE_ICDPKG_6", "icdpkg_6_library_not_in_bin", "package: the library is not under bin/", NULL, 0, false},
    {"RULE_ICDPKG_7", "icdpkg_7_manifest_under_meta", "package: the manifest is under meta/ (advice)", NULL, 0, false},
};

static void copy_str(char *dst, size_t len, const char *src) { snprintf(dst, len, "%s", src ? src : ""); }

static enum ldp_pkg_field string_member(const struct vkl_json *root, const char *key, char **out, char *type,
                                        size_t type_len) {
    const struct vkl_json *n = vkl_json_get(root, key);
    *out = NULL;
    if (n == NULL) return LDP_PKG_ABSENT;
    copy_str(type, type_len, vkl_json_type_name(n));
    if (!vkl_json_is_string(n)) return LDP_PKG_WRONG_TYPE;
    *out = strdup(vkl_json_string(n));
    if (*out == NULL) return LDP_PKG_ABSENT; /* the caller reports out of memory */
    return (*out)[0] == '\0' ? LDP_PKG_EMPTY : LDP_PKG_OK;
}

bool ldp_pkg_meta_parse(const char *buf, size_t len, struct ldp_pkg_meta *out) {
    memset(out, 0, sizeof *out);
    struct vkl_json *root = NULL;
    VkResult r = vkl_json_parse(buf, len, &root, out->json_error, sizeof out->json_error);
    if (r == VK_ERROR_OUT_OF_HOST_MEMORY) return false;
    if (r != VK_SUCCESS) return true;
    out->json_ok = true;
    if (!vkl_json_is_object(root)) {
        copy_str(out->root_type, sizeof out->root_type, vkl_json_type_name(root));
        vkl_json_free(root);
        return true;
    }
    out->is_object = true;
    const struct vkl_json *v = vkl_json_get(root, "version");
    if (v == NULL) {
        out->version_state = LDP_PKG_ABSENT;
    } else {
        copy_str(out->version_type, sizeof out->version_type, vkl_json_type_name(v));
        if (!vkl_json_is_number(v)) {
            out->version_state = LDP_PKG_WRONG_TYPE;
        } else {
            out->version_state = LDP_PKG_OK;
            out->version = vkl_json_number(v);
            out->version_integral = isfinite(out->version) && floor(out->version) == out->version;
        }
    }
    bool oom = false;
    out->file_path_state =
        string_member(root, "file_path", &out->file_path, out->file_path_type, sizeof out->file_path_type);
    oom = oom || (out->file_path == NULL && vkl_json_is_string(vkl_json_get(root, "file_path")));
    out->manifest_path_state = string_member(root, "manifest_path", &out->manifest_path, out->manifest_path_type,
                                             sizeof out->manifest_path_type);
    oom = oom || (out->manifest_path == NULL && vkl_json_is_string(vkl_json_get(root, "manifest_path")));
    /* One pass over the members (an indexed walk was quadratic; RULE_ADVERSARIAL_INPUT). */
    VKL_JSON_FOR_EACH(m, root) {
        const char *key = vkl_json_key(m);
        if (key == NULL || strcmp(key, "version") == 0 || strcmp(key, "file_path") == 0 ||
            strcmp(key, "manifest_path") == 0)
            continue;
        if (out->unknown_keys++ == 0) copy_str(out->first_unknown_key, sizeof out->first_unknown_key, key);
    }
    vkl_json_free(root);
    if (oom) {
        ldp_pkg_meta_free(out);
        return false;
    }
    return true;
}

void ldp_pkg_meta_free(struct ldp_pkg_meta *m) {
    free(m->file_path);
    free(m->manifest_path);
    m->file_path = m->manifest_path = NULL;
}

const char *ldp_pkg_path_problem(const char *p) {
    if (p == NULL || *p == '\0') return "is empty";
    if (p[0] == '/') return "is absolute (it must be relative to the package's contents directory)";
    if (strchr(p, '\\') != NULL) return "contains a backslash (package paths use '/')";
    for (const char *s = p;;) {
        const char *e = strchr(s, '/');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        if (n == 0) return "has an empty component ('//' or a trailing '/')";
        if (n == 1 && s[0] == '.') return "has a '.' component (package paths are canonical)";
        if (n == 2 && s[0] == '.' && s[1] == '.') return "has a '..' component (it would leave the package)";
        if (e == NULL) break;
        s = e + 1;
    }
    return NULL;
}

bool ldp_pkg_path_under_bin(const char *p) { return p != NULL && strncmp(p, "bin/", 4) == 0; }

/* ---- evaluation ---- */

static void set(struct ldp_pkg_result *r, enum ldp_verdict v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set(struct ldp_pkg_result *r, enum ldp_verdict v, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reason, sizeof r->reason, fmt, ap);
    va_end(ap);
    r->verdict = v;
}

static void ev(struct ldp_pkg_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ev(struct ldp_pkg_result *r, const char *fmt, ...) {
    if (r->nevidence >= sizeof r->evidence / sizeof r->evidence[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->evidence[r->nevidence++], sizeof r->evidence[0], fmt, ap);
    va_end(ap);
}

static const char *field_problem(enum ldp_pkg_field s, const char *type, char *buf, size_t len) {
    switch (s) {
        case LDP_PKG_ABSENT: return "is missing";
        case LDP_PKG_EMPTY: return "is an empty string";
        case LDP_PKG_WRONG_TYPE: snprintf(buf, len, "is a %s, not a string", type); return buf;
        default: return NULL;
    }
}

/* Is the regular file DIR/rel inside the package? 0 yes; else *why says what it is. */
static int file_in_package(const char *dir_real, const char *dir, const char *rel, char *why, size_t why_len,
                           char *full, size_t full_len) {
    snprintf(full, full_len, "%s/%s", dir, rel);
    struct stat st;
    if (stat(full, &st) != 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR)
            snprintf(why, why_len, "does not exist");
        else
            snprintf(why, why_len, "cannot be reached (%s)", strerror(e));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "is %s, not a regular file", ldp_file_type_name((unsigned)st.st_mode));
        return -1;
    }
    char real[PATH_MAX];
    if (dir_real != NULL && realpath(full, real) != NULL) {
        size_t n = strlen(dir_real);
        if (strncmp(real, dir_real, n) != 0 || (real[n] != '/' && !(n == 1 && dir_real[0] == '/'))) {
            snprintf(why, why_len, "resolves to %.200s, outside the package (a symbolic link leaving it)", real);
            return -1;
        }
    }
    return 0;
}

void ldp_pkg_evaluate(const char *dir, struct ldp_pkg_report *out) {
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < LDP_PKG_RULE_COUNT; i++) out->rules[i].verdict = LDP_NOT_TESTABLE;
    snprintf(out->metadata_path, sizeof out->metadata_path, "%s/%s", dir, LDP_PKG_METADATA_REL);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        out->io_error = true;
        if (stat(dir, &st) != 0)
            snprintf(out->error, sizeof out->error, "--package=%s: %s", dir, strerror(errno));
        else
            snprintf(out->error, sizeof out->error, "--package=%s: is %s, not a directory", dir,
                     ldp_file_type_name((unsigned)st.st_mode));
        return;
    }
    struct ldp_pkg_result *r1 = &out->rules[0], *r2 = &out->rules[1], *r3 = &out->rules[2], *r4 = &out->rules[3],
                          *r5 = &out->rules[4], *r6 = &out->rules[5], *r7 = &out->rules[6];
    const char *later = "metadata.json is unusable (see RULE_ICDPKG_1)";
    /* RULE_ICDPKG_1 */
    struct ldp_file f;
    size_t len = 0;
    char *buf = ldp_file_read(out->metadata_path, LDP_PKG_METADATA_MAX, &len, &f);
    struct ldp_pkg_meta m;
    bool have_meta = false;
    if (buf == NULL) {
        if (f.status == LDP_FILE_NOT_REGULAR)
            set(r1, LDP_FAIL, "%s is %s, not a regular file", out->metadata_path, ldp_file_type_name(f.mode));
        else if (f.status == LDP_FILE_TOO_BIG)
            set(r1, LDP_FAIL, "%s is %llu bytes, more than the %u bytes allowed for metadata.json", out->metadata_path,
                f.size, LDP_PKG_METADATA_MAX);
        else if (f.err_no == ENOENT || f.err_no == ENOTDIR)
            set(r1, LDP_FAIL, "%s does not exist (the metadata directory of an ICD package is meta/metadata/)",
                out->metadata_path);
        else
            set(r1, LDP_FAIL, "%s cannot be read: %s", out->metadata_path, strerror(f.err_no ? f.err_no : EIO));
    } else if (!ldp_pkg_meta_parse(buf, len, &m)) {
        set(r1, LDP_FAIL, "out of memory reading %s", out->metadata_path);
    } else {
        have_meta = true;
        if (!m.json_ok)
            set(r1, LDP_FAIL, "%s is not valid JSON: %s", out->metadata_path, m.json_error);
        else if (!m.is_object)
            set(r1, LDP_FAIL, "%s holds a JSON %s, not an object", out->metadata_path, m.root_type);
        else
            set(r1, LDP_PASS, "%s is a JSON object", out->metadata_path);
        if (m.unknown_keys > 0)
            ev(r1, "%zu member(s) the metadata version 1 does not define, first '%s' (ignored)", m.unknown_keys,
               m.first_unknown_key);
    }
    free(buf);
    if (r1->verdict != LDP_PASS) {
        for (size_t i = 1; i < LDP_PKG_RULE_COUNT; i++) set(&out->rules[i], LDP_NOT_TESTABLE, "%s", later);
        if (have_meta) ldp_pkg_meta_free(&m);
        return;
    }
    /* RULE_ICDPKG_2 */
    if (m.version_state == LDP_PKG_ABSENT)
        set(r2, LDP_FAIL, "'version' is missing (metadata version 1 needs \"version\": 1)");
    else if (m.version_state == LDP_PKG_WRONG_TYPE)
        set(r2, LDP_FAIL, "'version' is a %s, not the number 1", m.version_type);
    else if (!m.version_integral || m.version != 1.0)
        set(r2, LDP_FAIL, "'version' is %g; this is metadata version 1, which must say 1", m.version);
    else
        set(r2, LDP_PASS, "'version' is 1");
    /* RULE_ICDPKG_3 */
    char b1[64], b2[64];
    const char *fp_bad = field_problem(m.file_path_state, m.file_path_type, b1, sizeof b1);
    const char *mp_bad = field_problem(m.manifest_path_state, m.manifest_path_type, b2, sizeof b2);
    if (fp_bad && mp_bad)
        set(r3, LDP_FAIL, "'file_path' %s and 'manifest_path' %s", fp_bad, mp_bad);
    else if (fp_bad)
        set(r3, LDP_FAIL, "'file_path' (the driver library) %s", fp_bad);
    else if (mp_bad)
        set(r3, LDP_FAIL, "'manifest_path' (the Khronos ICD manifest) %s", mp_bad);
    else
        set(r3, LDP_PASS, "file_path '%s', manifest_path '%s'", m.file_path, m.manifest_path);
    /* RULE_ICDPKG_4 (each path that RULE_ICDPKG_3 accepted) */
    const char *fp_lex = fp_bad ? NULL : ldp_pkg_path_problem(m.file_path);
    const char *mp_lex = mp_bad ? NULL : ldp_pkg_path_problem(m.manifest_path);
    if (fp_bad && mp_bad)
        set(r4, LDP_NOT_TESTABLE, "neither path is given (see RULE_ICDPKG_3)");
    else if (fp_lex && mp_lex)
        set(r4, LDP_FAIL, "file_path '%s' %s; manifest_path '%s' %s", m.file_path, fp_lex, m.manifest_path, mp_lex);
    else if (fp_lex)
        set(r4, LDP_FAIL, "file_path '%s' %s", m.file_path, fp_lex);
    else if (mp_lex)
        set(r4, LDP_FAIL, "manifest_path '%s' %s", m.manifest_path, mp_lex);
    else if (fp_bad || mp_bad)
        set(r4, LDP_PASS, "%s '%s' is relative to the contents directory (the other path is not given)",
            fp_bad ? "manifest_path" : "file_path", fp_bad ? m.manifest_path : m.file_path);
    else
        set(r4, LDP_PASS, "both paths are relative to the contents directory and stay inside it");
    /* RULE_ICDPKG_5 */
    bool fp_ok = !fp_bad && !fp_lex, mp_ok = !mp_bad && !mp_lex;
    char dir_real_buf[PATH_MAX];
    const char *dir_real = realpath(dir, dir_real_buf);
    char fwhy[300] = "", mwhy[300] = "", ffull[PATH_MAX + 8] = "", mfull[PATH_MAX + 8] = "";
    bool f_there = fp_ok && file_in_package(dir_real, dir, m.file_path, fwhy, sizeof fwhy, ffull, sizeof ffull) == 0;
    bool m_there =
        mp_ok && file_in_package(dir_real, dir, m.manifest_path, mwhy, sizeof mwhy, mfull, sizeof mfull) == 0;
    if (!fp_ok && !mp_ok)
        set(r5, LDP_NOT_TESTABLE, "no usable path to look up (see RULE_ICDPKG_3, RULE_ICDPKG_4)");
    else if (fp_ok && !f_there && mp_ok && !m_there)
        set(r5, LDP_FAIL, "the library %s %s; the manifest %s %s", ffull, fwhy, mfull, mwhy);
    else if (fp_ok && !f_there)
        set(r5, LDP_FAIL, "the library %s %s", ffull, fwhy);
    else if (mp_ok && !m_there)
        set(r5, LDP_FAIL, "the manifest %s %s", mfull, mwhy);
    else if (!fp_ok || !mp_ok)
        set(r5, LDP_PASS, "the %s %s is a file in the package (the other path is unusable)",
            fp_ok ? "library" : "manifest", fp_ok ? ffull : mfull);
    else
        set(r5, LDP_PASS, "the library and the manifest are regular files in the package");
    /* RULE_ICDPKG_6 */
    if (fp_bad)
        set(r6, LDP_NOT_TESTABLE, "no file_path (see RULE_ICDPKG_3)");
    else if (ldp_pkg_path_under_bin(m.file_path))
        set(r6, LDP_FAIL, "file_path '%s' is under bin/, where the loader does not load ICD libraries from",
            m.file_path);
    else
        set(r6, LDP_PASS, "file_path '%s' is not under bin/", m.file_path);
    /* RULE_ICDPKG_7 */
    if (mp_bad)
        set(r7, LDP_NOT_TESTABLE, "no manifest_path (see RULE_ICDPKG_3)");
    else if (strncmp(m.manifest_path, "meta/", 5) != 0)
        set(r7, LDP_WARN, "manifest_path '%s' is not under meta/ (small files are stored most efficiently there)",
            m.manifest_path);
    else
        set(r7, LDP_PASS, "manifest_path '%s' is under meta/", m.manifest_path);
    if (mp_ok && m_there && fp_ok) {
        out->manifest = strdup(mfull);
        out->library = strdup(ffull);
        if (out->manifest == NULL || out->library == NULL) {
            free(out->manifest);
            free(out->library);
            out->manifest = out->library = NULL;
        }
    }
    ldp_pkg_meta_free(&m);
}

void ldp_pkg_report_free(struct ldp_pkg_report *r) {
    free(r->manifest);
    free(r->library);
    r->manifest = r->library = NULL;
}
