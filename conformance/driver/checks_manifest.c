/* ldp-check: the checks of the manifest and the library it names (LDP_DRIVER_4, LDP_DRIVER_11). */
#include "conformance/driver/checks_internal.h"

/* ================================================================================================
 * LDP_DRIVER_4: the manifest
 * ============================================================================================== */

struct capture {
    struct ldp_ctx *c;
    int lines;
};
static void capture_emit(void *ctx, uint32_t flags, const char *line) {
    struct capture *cap = ctx;
    const char *sev = (flags & VKL_LOG_ERROR)  ? "ERROR"
                      : (flags & VKL_LOG_WARN) ? "WARN"
                      : (flags & VKL_LOG_INFO) ? "INFO"
                                               : "DEBUG";
    if (flags & VKL_LOG_DEBUG) return;
    ldp_evidence(cap->c, "loader parser %s: %s", sev, line);
    cap->lines++;
}

/* ELF class of the library a manifest names (0 when unknown, e.g. a bare name). */
static int lib_class(const char *manifest, const char *lib) {
    if (lib == NULL || strchr(lib, '/') == NULL) return 0;
    char path[PATH_MAX * 2];
    const char *slash = strrchr(manifest, '/');
    if (lib[0] != '/' && slash != NULL)
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - manifest), manifest, lib);
    else
        snprintf(path, sizeof path, "%s", lib);
    struct ldp_elf e;
    char err[300];
    int cls = ldp_elf_inspect(path, &e, err, sizeof err) == 0 ? e.elf_class : 0;
    ldp_elf_free(&e);
    return cls;
}

/* One problem of the manifest, as evidence "KIND: ..."; the first of its kind is kept in first. */
static void manifest_problem(struct ldp_ctx *c, const char *kind, int *count, char *first, size_t len, const char *fmt,
                             ...) __attribute__((format(printf, 6, 7)));
static void manifest_problem(struct ldp_ctx *c, const char *kind, int *count, char *first, size_t len, const char *fmt,
                             ...) {
    char m[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    ldp_evidence(c, "%s: %s", kind, m);
    if ((*count)++ == 0) snprintf(first, len, "%s", m);
}

void check_manifest(struct ldp_ctx *c, void *arg) {
    (void)arg;
    const char *path = c->drv->manifest_path;
    int fails = 0, warns = 0;
    char first_fail[600] = "", first_warn[600] = "";
#define FAIL(...) manifest_problem(c, "FAIL", &fails, first_fail, sizeof first_fail, __VA_ARGS__)
#define WARN(...) manifest_problem(c, "WARN", &warns, first_warn, sizeof first_warn, __VA_ARGS__)
    size_t pl = strlen(path);
    if (pl < 5 || strcmp(path + pl - 5, ".json") != 0)
        FAIL("file name %s does not end in \".json\" (a loader scanning a directory never reads it)", path);
    /* The parent read the manifest once, without blocking and at most VKL_MANIFEST_MAX_SIZE bytes;
     * this process inherited the buffer (the file is not opened again). */
    const char *buf = c->drv->manifest_buf;
    size_t len = c->drv->manifest_len;
    if (buf == NULL) {
        const char *why = c->drv->manifest_too_big ? c->drv->manifest_error : "the manifest could not be read";
        ldp_evidence(c, "FAIL: %s", why);
        ldp_verdict(c, LDP_FAIL, "%s%s", why, fails > 0 ? " (and more, see evidence)" : "");
        return;
    }
    /* The loader's own parser first (its log lines are the evidence of a rejection). */
    struct capture cap = {c, 0};
    struct vkl_log_sink sink = {.emit = capture_emit, .ctx = &cap};
    struct vkl_icd_manifest m;
    VkResult pr = vkl_icd_manifest_parse(path, buf, len, &sink, &m);
    if (pr == VK_SUCCESS) {
        ldp_evidence(c, "loader parser: accepted (library_path %s, api_version %u.%u.%u)", m.library_path,
                     VK_API_VERSION_MAJOR(m.api_version), VK_API_VERSION_MINOR(m.api_version),
                     VK_API_VERSION_PATCH(m.api_version));
        if (c->drv->library_path_written[0])
            ldp_evidence(c, "library_path %s is %s as dlopen expands it", c->drv->library_path_written,
                         c->drv->m.library_path);
        if (c->drv->library_overridden)
            ldp_evidence(c,
                         "ICD package: the library checked is the metadata's file_path %s (the manifest's "
                         "library_path names what the loader service serves)",
                         c->drv->m.library_path);
        vkl_icd_manifest_finish(&m);
    } else {
        FAIL("the loader's manifest parser rejects it (%s)", ldp_vkresult(pr));
    }
    /* Stricter checks of our own on the JSON tree. */
    struct vkl_json *root = NULL;
    char jerr[256];
    if (vkl_json_parse(buf, len, &root, jerr, sizeof jerr) != VK_SUCCESS) {
        FAIL("not valid JSON: %s", jerr);
    } else if (!vkl_json_is_object(root)) {
        FAIL("the top-level JSON value is %s, not an object", vkl_json_type_name(root));
    } else {
        const struct vkl_json *ffv = vkl_json_get(root, "file_format_version");
        uint32_t ffv_v = 0;
        if (ffv == NULL) {
            FAIL("'file_format_version' is missing");
        } else if (!vkl_json_is_string(ffv)) {
            FAIL("'file_format_version' is a %s, not a string", vkl_json_type_name(ffv));
        } else if (!vkl_parse_version_string(vkl_json_string(ffv), false, &ffv_v)) {
            FAIL("'file_format_version' \"%s\" is not a major.minor.patch version", vkl_json_string(ffv));
        } else if (ffv_v != VK_MAKE_API_VERSION(0, 1, 0, 0) && ffv_v != VK_MAKE_API_VERSION(0, 1, 0, 1)) {
            WARN("'file_format_version' %s is not one the interface document defines (1.0.0, 1.0.1)",
                 vkl_json_string(ffv));
        }
        const struct vkl_json *icd = vkl_json_get(root, "ICD");
        if (icd == NULL) {
            FAIL("the 'ICD' object is missing");
        } else if (!vkl_json_is_object(icd)) {
            FAIL("'ICD' is a %s, not an object", vkl_json_type_name(icd));
        } else {
            const struct vkl_json *lp = vkl_json_get(icd, "library_path");
            if (lp == NULL)
                FAIL("'ICD.library_path' is missing");
            else if (!vkl_json_is_string(lp))
                FAIL("'ICD.library_path' is a %s, not a string", vkl_json_type_name(lp));
            else if (vkl_json_string(lp)[0] == '\0')
                FAIL("'ICD.library_path' is empty");
            const struct vkl_json *av = vkl_json_get(icd, "api_version");
            uint32_t api = 0;
            if (av == NULL)
                FAIL("'ICD.api_version' is missing");
            else if (!vkl_json_is_string(av))
                FAIL("'ICD.api_version' is a %s, not a string", vkl_json_type_name(av));
            else if (!vkl_parse_version_string(vkl_json_string(av), false, &api))
                FAIL("'ICD.api_version' \"%s\" is not a major.minor.patch version", vkl_json_string(av));
            else if (VK_API_VERSION_MAJOR(api) != 1)
                FAIL("'ICD.api_version' %s: Vulkan major version must be 1", vkl_json_string(av));
            const struct vkl_json *arch = vkl_json_get(icd, "library_arch");
            if (arch != NULL) {
                if (ffv_v == VK_MAKE_API_VERSION(0, 1, 0, 0))
                    WARN("'ICD.library_arch' is a file format 1.0.1 field but the file says 1.0.0");
                const char *a = vkl_json_string(arch);
                if (a == NULL || (strcmp(a, "32") != 0 && strcmp(a, "64") != 0))
                    FAIL("'ICD.library_arch' must be the string \"32\" or \"64\" (is %s%s%s)",
                         a ? "\"" : vkl_json_type_name(arch), a ? a : "", a ? "\"" : "");
                else if (lib_class(path, vkl_json_string(vkl_json_get(icd, "library_path"))) != 0 &&
                         (strcmp(a, "64") == 0 ? 64 : 32) !=
                             lib_class(path, vkl_json_string(vkl_json_get(icd, "library_path"))))
                    FAIL("'ICD.library_arch' says %s-bit but the library is a %d-bit ELF file", a,
                         lib_class(path, vkl_json_string(vkl_json_get(icd, "library_path"))));
            }
            const struct vkl_json *port = vkl_json_get(icd, "is_portability_driver");
            if (port != NULL) {
                if (ffv_v == VK_MAKE_API_VERSION(0, 1, 0, 0))
                    WARN("'ICD.is_portability_driver' is a file format 1.0.1 field but the file says 1.0.0");
                if (!vkl_json_is_bool(port))
                    FAIL("'ICD.is_portability_driver' is a %s, not a boolean", vkl_json_type_name(port));
            }
        }
        vkl_json_free(root);
    }
    /* The library: exists, ELF of our class, loadable. */
    if (c->drv->manifest_ok) {
        const char *lib = c->drv->m.library_path;
        if (c->drv->library_missing || c->drv->library_not_regular) {
            /* never dlopen'ed: a FIFO would block the dynamic linker's open(2) */
            /* a path longer than PATH_MAX would fill the reason: its first 200 bytes, then why */
            FAIL("library_path %.*s%s %s", strlen(lib) > PATH_MAX ? 200 : PATH_MAX, lib,
                 strlen(lib) > PATH_MAX ? "..." : "", c->drv->library_problem);
        } else {
            if (c->drv->elf_class != 0 && c->drv->elf_class != (int)(sizeof(void *) * 8))
                ldp_evidence(c, "library is %d-bit; this ldp-check is %d-bit and cannot load it", c->drv->elf_class,
                             (int)(sizeof(void *) * 8));
            ldp_step(c, "dlopen(%s)", lib);
            void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
            if (h == NULL) {
                const char *e = dlerror();
                FAIL("library %s cannot be loaded: %s", lib, e ? e : "unknown dlerror");
            } else {
                ldp_evidence(c, "dlopen(%s): loaded", lib);
            }
        }
    }
    if (fails > 0)
        ldp_verdict(c, LDP_FAIL, "%s%s", first_fail, fails > 1 ? " (and more, see evidence)" : "");
    else if (warns > 0)
        ldp_verdict(c, LDP_WARN, "%s", first_warn);
    else
        ldp_verdict(c, LDP_PASS, "well-formed manifest; the library it names loads");
#undef FAIL
#undef WARN
}

/* ================================================================================================
 * LDP_DRIVER_11: the manifest's library exists and is the one it describes; stale manifests
 * ============================================================================================== */

void check_stale_manifest(struct ldp_ctx *c, void *arg) {
    (void)arg;
    const struct vkl_icd_manifest *m = &c->drv->m;
    char a[32], b[32];
    int warns = 0;
    char warn[1200] = "";
    /* Other manifests of the default search directories (and the manifest's own directory). */
    struct vkl_search_env env;
    struct vkl_strlist dirs = VKL_STRLIST_INIT, files = VKL_STRLIST_INIT;
    vkl_search_env_from_process(&env);
    vkl_search_dirs_build(&env, VKL_ICD_SUFFIX, &dirs);
    char own_dir[PATH_MAX];
    snprintf(own_dir, sizeof own_dir, "%s", c->drv->manifest_path);
    char *slash = strrchr(own_dir, '/');
    if (slash != NULL) {
        *slash = '\0';
        vkl_strlist_append_unique(&dirs, own_dir[0] ? own_dir : "/");
    } else {
        vkl_strlist_append_unique(&dirs, ".");
    }
    for (size_t i = 0; i < dirs.count; i++) vkl_manifest_search_entry(NULL, dirs.items[i], NULL, &files);
    char own_real[PATH_MAX] = "", mreal[PATH_MAX] = "";
    bool have_own = !m->library_path_is_bare_name && realpath(m->library_path, own_real) != NULL;
    if (realpath(c->drv->manifest_path, mreal) == NULL) snprintf(mreal, sizeof mreal, "%s", c->drv->manifest_path);
    int stale = 0;
    size_t others = 0;
    for (size_t i = 0; i < files.count; i++) {
        char r[PATH_MAX];
        if (realpath(files.items[i], r) != NULL && strcmp(r, mreal) == 0) continue;
        others++;
        size_t len = 0;
        struct ldp_file f;
        char *buf = ldp_file_read(files.items[i], VKL_MANIFEST_MAX_SIZE, &len, &f); /* never blocks */
        if (buf == NULL) continue;
        struct vkl_icd_manifest om;
        if (vkl_icd_manifest_parse(files.items[i], buf, len, NULL, &om) == VK_SUCCESS) {
            struct stat st;
            if (!om.library_path_is_bare_name && stat(om.library_path, &st) != 0) {
                ldp_evidence(c, "stale manifest in the search path: %s names %s, which does not exist", files.items[i],
                             om.library_path);
                stale++;
            } else if (have_own && !om.library_path_is_bare_name && realpath(om.library_path, r) != NULL &&
                       strcmp(r, own_real) == 0) {
                ldp_evidence(c, "%s names the same library %s", files.items[i], own_real);
                if (warns++ == 0)
                    snprintf(warn, sizeof warn,
                             "another manifest, %s, names the same library (a loader finding both "
                             "loads the driver twice; an old copy left behind by an upgrade?)",
                             files.items[i]);
            }
            vkl_icd_manifest_finish(&om);
        }
        free(buf);
    }
    ldp_evidence(c, "%zu other manifests scanned in %zu directories; %d stale", others, dirs.count, stale);
    vkl_strlist_finish(&dirs);
    vkl_strlist_finish(&files);
    if (c->drv->library_missing) {
        ldp_verdict(c, LDP_FAIL, "library_path %.*s%s %s: the manifest was left behind or not updated",
                    strlen(m->library_path) > PATH_MAX ? 200 : PATH_MAX, m->library_path,
                    strlen(m->library_path) > PATH_MAX ? "..." : "", c->drv->library_problem);
        return;
    }
    if (c->drv->library_not_regular) {
        /* not dlopen'ed: a FIFO would block the dynamic linker's open(2) */
        ldp_verdict(c, LDP_FAIL, "library_path %s %s: no driver library there", m->library_path,
                    c->drv->library_problem);
        return;
    }
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    struct link_map *lm = NULL;
    if (dlinfo(d.lib, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL && lm->l_name != NULL) {
        char loaded[PATH_MAX];
        ldp_evidence(c, "library loaded from %s", lm->l_name);
        if (have_own && realpath(lm->l_name, loaded) != NULL && strcmp(loaded, own_real) != 0 && warns++ == 0)
            snprintf(warn, sizeof warn, "the manifest names %.500s but %.500s was loaded", own_real, loaded);
    }
    if (!d.has_eiv) {
        ldp_evidence(c,
                     "no vkEnumerateInstanceVersion: the library's version cannot be compared with the manifest's %s",
                     vs(m->api_version, a));
    } else {
        ldp_evidence(c, "manifest api_version %s, library vkEnumerateInstanceVersion %s", vs(m->api_version, a),
                     vs(d.api, b));
        if (MM(m->api_version) > MM(d.api)) {
            ldp_verdict(c, LDP_FAIL,
                        "the manifest claims Vulkan %s but the library reports %s: the manifest does not "
                        "describe this library (stale after an update?)",
                        vs(m->api_version, a), vs(d.api, b));
            return;
        }
        if (MM(m->api_version) < MM(d.api) && warns++ == 0)
            snprintf(warn, sizeof warn,
                     "manifest api_version %s is older than the library's %s (manifest not updated "
                     "with the library?)",
                     vs(m->api_version, a), vs(d.api, b));
    }
    verdict_first(c, NULL, warns > 0 ? warn : NULL,
                  "the library exists and matches the manifest; no other manifest names it");
}
