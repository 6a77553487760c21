/* ldp-check: the checks. Each function runs in its own forked child (main.c / runner.c) and ends
 * with one verdict; docs/ldp-check.md describes what each one does. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vulkan/vk_icd.h>

#include "conformance/driver/cts_versions.h"
#include "conformance/driver/ldp_check.h"
#include "loader/internal/json.h"
#include "loader/internal/search_paths.h"
#include "loader/internal/strlist.h"

const struct ldp_registry *ldp_registry_global;

#define MOCK_DEVICE_NAME "ldp-check coexistence mock"
#define MM(v) VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), 0)

static const char *vs(uint32_t v, char *buf) {
    ldp_version_str(v, buf, 32);
    return buf;
}

static bool open_driver(struct ldp_ctx *c, uint32_t offer, struct ldp_drv *d) {
    char err[1200];
    int r = ldp_drv_open(c, offer, d, err, sizeof err);
    if (r == 0) return true;
    ldp_evidence(c, "%s", err);
    if (r == -2)
        ldp_verdict(c, LDP_NOT_TESTABLE, "the driver refuses interface version %u (see LDP_DRIVER_3)", offer);
    else
        ldp_verdict(c, LDP_NOT_TESTABLE, "the driver library cannot be used (see LDP_DRIVER_3 and LDP_DRIVER_4)");
    return false;
}

/* Instance at the driver's own major.minor (1.0 when it reports nothing newer). */
static bool make_instance(struct ldp_ctx *c, struct ldp_drv *d, const char *const *exts, uint32_t n, VkInstance *inst) {
    d->inst_api = MM(d->api);
    VkResult r = ldp_create_instance(c, d, d->inst_api, exts, n, inst);
    if (r == VK_SUCCESS && *inst != VK_NULL_HANDLE) return true;
    char v[32];
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER && d->inst_api > VK_API_VERSION_1_0) {
        /* A driver refusing its own version (see LDP_DRIVER_10): go on with 1.0. */
        ldp_evidence(c, "vkCreateInstance(apiVersion %s) -> %s; using apiVersion 1.0.0", vs(d->inst_api, v),
                     ldp_vkresult(r));
        d->inst_api = VK_API_VERSION_1_0;
        r = ldp_create_instance(c, d, d->inst_api, exts, n, inst);
        if (r == VK_SUCCESS && *inst != VK_NULL_HANDLE) return true;
    }
    ldp_evidence(c, "vkCreateInstance(apiVersion %s) -> %s", vs(MM(d->api), v), ldp_vkresult(r));
    ldp_verdict(c, LDP_NOT_TESTABLE, "vkCreateInstance failed with %s", ldp_vkresult(r));
    return false;
}

#define GET(d, inst, name) ((PFN_##name)ldp_gipa((d), (inst), #name))

static VkPhysicalDevice *physical_devices(struct ldp_ctx *c, struct ldp_drv *d, VkInstance inst, uint32_t *n,
                                          VkResult *res) {
    *n = 0;
    *res = VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkEnumeratePhysicalDevices epd = GET(d, inst, vkEnumeratePhysicalDevices);
    if (epd == NULL) return NULL;
    ldp_step(c, "vkEnumeratePhysicalDevices(count)");
    uint32_t count = 0;
    *res = epd(inst, &count, NULL);
    if (*res != VK_SUCCESS) return NULL;
    VkPhysicalDevice *pds = calloc(count + 1, sizeof(*pds));
    if (pds == NULL) return NULL;
    ldp_step(c, "vkEnumeratePhysicalDevices(array of %u)", count);
    *res = epd(inst, &count, pds);
    if (*res != VK_SUCCESS && *res != VK_INCOMPLETE) {
        free(pds);
        return NULL;
    }
    *n = count;
    return pds;
}

static VkExtensionProperties *device_extensions(struct ldp_ctx *c, struct ldp_drv *d, VkInstance inst,
                                                VkPhysicalDevice pd, uint32_t *n) {
    *n = 0;
    PFN_vkEnumerateDeviceExtensionProperties e = GET(d, inst, vkEnumerateDeviceExtensionProperties);
    if (e == NULL) return NULL;
    ldp_step(c, "vkEnumerateDeviceExtensionProperties(count)");
    uint32_t count = 0;
    if (e(pd, NULL, &count, NULL) != VK_SUCCESS || count == 0) return NULL;
    VkExtensionProperties *p = calloc(count, sizeof(*p));
    if (p == NULL) return NULL;
    ldp_step(c, "vkEnumerateDeviceExtensionProperties(array of %u)", count);
    VkResult r = e(pd, NULL, &count, p);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        free(p);
        return NULL;
    }
    *n = count;
    return p;
}

static void device_name(struct ldp_drv *d, VkInstance inst, VkPhysicalDevice pd, VkPhysicalDeviceProperties *out) {
    memset(out, 0, sizeof(*out));
    PFN_vkGetPhysicalDeviceProperties gp = GET(d, inst, vkGetPhysicalDeviceProperties);
    if (gp != NULL) gp(pd, out);
}

/* Whether the driver lists the instance extension name. */
static bool instance_has_ext(struct ldp_drv *d, const char *name) {
    uint32_t ne = 0;
    VkExtensionProperties *e = ldp_instance_extensions(d, &ne);
    bool has = ldp_has_ext(e, ne, name);
    free(e);
    return has;
}

/* vkCreateDevice with one queue of family 0 and nothing enabled (the caller names the step). */
static VkResult create_device_family0(PFN_vkCreateDevice cd, VkPhysicalDevice pd, VkDevice *dev) {
    float prio = 1.0f;
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = 0,
                                 .queueCount = 1,
                                 .pQueuePriorities = &prio};
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &q};
    *dev = VK_NULL_HANDLE;
    return cd(pd, &dci, NULL, dev);
}

/* Appends item to the comma-separated list (as much as fits in size). */
static void list_add(char *list, size_t size, const char *item) {
    strncat(list, list[0] ? ", " : "", size - strlen(list) - 1);
    strncat(list, item, size - strlen(list) - 1);
}

/* Asks vk_icdGetInstanceProcAddr(inst, name) for each of the n names (one step each) and lists in
 * list those it answers NULL for (want_null) or non-NULL for (!want_null). */
static void gipa_list(struct ldp_ctx *c, struct ldp_drv *d, VkInstance inst, const char *const *names, size_t n,
                      bool want_null, char *list, size_t size) {
    for (size_t i = 0; i < n; i++) {
        ldp_step(c, "vk_icdGetInstanceProcAddr(%s, \"%s\")", inst == VK_NULL_HANDLE ? "NULL" : "instance", names[i]);
        if ((ldp_gipa(d, inst, names[i]) == NULL) == want_null) list_add(list, size, names[i]);
    }
}

/* The verdict of a check that kept its first failure and first warning (NULL or "" when there is
 * none): FAIL with the failure, else WARN with the warning, else PASS with pass_fmt. */
static void verdict_first(struct ldp_ctx *c, const char *fail, const char *warn, const char *pass_fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void verdict_first(struct ldp_ctx *c, const char *fail, const char *warn, const char *pass_fmt, ...) {
    if (fail != NULL && fail[0]) {
        ldp_verdict(c, LDP_FAIL, "%s", fail);
    } else if (warn != NULL && warn[0]) {
        ldp_verdict(c, LDP_WARN, "%s", warn);
    } else {
        char pass[2400];
        va_list ap;
        va_start(ap, pass_fmt);
        vsnprintf(pass, sizeof pass, pass_fmt, ap);
        va_end(ap);
        ldp_verdict(c, LDP_PASS, "%s", pass);
    }
}

/* Whether a probe child crashed, hung or exited non-zero (then described in buf). */
static bool probe_failed(const struct ldp_child *ch, char *buf, size_t len) {
    if (ch->kind == LDP_EXITED && ch->code == 0) return false;
    ldp_child_describe(ch, buf, len);
    return true;
}

/* A probe child that reported key (why it could not use the driver) makes the check not testable:
 * true with the evidence (prefix and the report) and the verdict given and the child freed. */
static bool probe_not_testable(struct ldp_ctx *c, struct ldp_child *ch, const char *key, char *buf, size_t len,
                               const char *prefix, const char *why) {
    if (ldp_child_get(ch, key, buf, len) == NULL) return false;
    ldp_evidence(c, "%s%s", prefix, buf);
    ldp_verdict(c, LDP_NOT_TESTABLE, "%s", why);
    ldp_child_free(ch);
    return true;
}

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

static void check_manifest(struct ldp_ctx *c, void *arg) {
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
            FAIL("library_path %s %s", lib, c->drv->library_problem);
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
 * LDP_DRIVER_3: negotiation with every offered version
 * ============================================================================================== */

static void probe_exports(struct ldp_ctx *c, void *arg) {
    (void)arg;
    const char *lib = c->drv->m.library_path;
    ldp_step(c, "dlopen(%s)", lib);
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        ldp_result(c, "dlerror", "%s", e ? e : "unknown");
        return;
    }
    static const char *const names[] = {"vk_icdNegotiateLoaderICDInterfaceVersion",
                                        "vk_icdGetInstanceProcAddr",
                                        "vk_icdGetPhysicalDeviceProcAddr",
                                        "vkGetInstanceProcAddr",
                                        "vkCreateInstance",
                                        "vkEnumerateInstanceExtensionProperties"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        ldp_result(c, names[i], "%d", dlsym(h, names[i]) != NULL);
    PFN_vkGetInstanceProcAddr g = (PFN_vkGetInstanceProcAddr)dlsym(h, "vk_icdGetInstanceProcAddr");
    if (g != NULL) {
        ldp_step(c, "vk_icdGetInstanceProcAddr(NULL, \"vk_icdNegotiateLoaderICDInterfaceVersion\")");
        ldp_result(c, "negotiate_via_gipa", "%d",
                   g(VK_NULL_HANDLE, "vk_icdNegotiateLoaderICDInterfaceVersion") != NULL);
    }
}

struct neg_arg {
    uint32_t offer;
    bool via_gipa;
};

static void probe_negotiate(struct ldp_ctx *c, void *arg) {
    const struct neg_arg *a = arg;
    void *h = dlopen(c->drv->m.library_path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) return;
    PFN_vk_icdNegotiateLoaderICDInterfaceVersion neg = NULL;
    PFN_vkGetInstanceProcAddr g = (PFN_vkGetInstanceProcAddr)dlsym(h, "vk_icdGetInstanceProcAddr");
    if (a->via_gipa) {
        if (g != NULL) {
            ldp_step(c, "vk_icdGetInstanceProcAddr(NULL, \"vk_icdNegotiateLoaderICDInterfaceVersion\")");
            neg = (PFN_vk_icdNegotiateLoaderICDInterfaceVersion)g(VK_NULL_HANDLE,
                                                                  "vk_icdNegotiateLoaderICDInterfaceVersion");
        }
    } else {
        neg = (PFN_vk_icdNegotiateLoaderICDInterfaceVersion)dlsym(h, "vk_icdNegotiateLoaderICDInterfaceVersion");
    }
    if (neg == NULL) return;
    uint32_t v = a->offer;
    ldp_step(c, "vk_icdNegotiateLoaderICDInterfaceVersion(%u)", a->offer);
    VkResult r = neg(&v);
    ldp_result(c, "result", "%d", (int)r);
    ldp_result(c, "returned", "%u", v);
    if (r != VK_ERROR_INCOMPATIBLE_DRIVER) {
        PFN_vkGetInstanceProcAddr gipa = g ? g : (PFN_vkGetInstanceProcAddr)dlsym(h, "vkGetInstanceProcAddr");
        if (gipa != NULL) {
            ldp_step(c, "vk_icdGetInstanceProcAddr(NULL, \"vkCreateInstance\")");
            ldp_result(c, "create_instance", "%d", gipa(VK_NULL_HANDLE, "vkCreateInstance") != NULL);
            ldp_step(c, "vk_icdGetInstanceProcAddr(NULL, \"vkEnumerateInstanceExtensionProperties\")");
            ldp_result(c, "enumerate_extensions", "%d",
                       gipa(VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties") != NULL);
        }
    }
}

static int child_int(const struct ldp_child *ch, const char *key, int dflt) {
    char buf[64];
    const char *v = ldp_child_get(ch, key, buf, sizeof buf);
    if (v == NULL) return dflt;
    char *end = NULL;
    long n = strtol(v, &end, 10);
    return end != v ? (int)n : dflt;
}

static void check_negotiation(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_child ex;
    ldp_probe(c, probe_exports, NULL, &ex);
    char buf[1024];
    if (probe_failed(&ex, buf, sizeof buf)) {
        ldp_evidence(c, "loading the library and looking up its entry points: %s", buf);
        ldp_verdict(c, LDP_FAIL, "the driver %s while being loaded (%s)", ldp_child_outcome(&ex), buf);
        ldp_child_free(&ex);
        return;
    }
    if (probe_not_testable(c, &ex, "dlerror", buf, sizeof buf,
                           "dlopen: ", "the library cannot be loaded (see LDP_DRIVER_4)"))
        return;
    bool neg_exp = child_int(&ex, "vk_icdNegotiateLoaderICDInterfaceVersion", 0);
    bool icd_gipa = child_int(&ex, "vk_icdGetInstanceProcAddr", 0);
    bool via_gipa = child_int(&ex, "negotiate_via_gipa", 0);
    bool v0 = child_int(&ex, "vkGetInstanceProcAddr", 0) && child_int(&ex, "vkCreateInstance", 0) &&
              child_int(&ex, "vkEnumerateInstanceExtensionProperties", 0);
    ldp_evidence(c,
                 "exports: vk_icdNegotiateLoaderICDInterfaceVersion %s, vk_icdGetInstanceProcAddr %s, "
                 "vk_icdGetPhysicalDeviceProcAddr %s; negotiate through vk_icdGetInstanceProcAddr(NULL): %s",
                 neg_exp ? "yes" : "no", icd_gipa ? "yes" : "no",
                 child_int(&ex, "vk_icdGetPhysicalDeviceProcAddr", 0) ? "yes" : "no", via_gipa ? "yes" : "no");
    ldp_child_free(&ex);
    if (!neg_exp && !via_gipa) {
        if (icd_gipa) {
            ldp_verdict(c, LDP_PASS, "legacy interface 1 driver (vk_icdGetInstanceProcAddr, no negotiation function)");
        } else if (v0) {
            ldp_verdict(c, LDP_PASS,
                        "legacy interface 0 driver (exports vkGetInstanceProcAddr, vkCreateInstance, "
                        "vkEnumerateInstanceExtensionProperties)");
        } else {
            ldp_verdict(c, LDP_FAIL,
                        "exports no loader/driver interface entry point (no vk_icdGetInstanceProcAddr, "
                        "no negotiation function, not the interface-0 set)");
        }
        return;
    }
    int fails = 0, warns = 0;
    char fail_msg[700] = "", warn_msg[700] = "";
    int first_max = -1, any_max = -1;
    for (int mode = 0; mode < 2; mode++) {
        bool gipa_mode = mode == 1;
        if ((!gipa_mode && !neg_exp) || (gipa_mode && !via_gipa)) continue;
        const char *how = gipa_mode ? "through vk_icdGetInstanceProcAddr" : "exported";
        int result[8], returned[8];
        bool crashed = false;
        for (int offer = 7; offer >= 0; offer--) {
            struct neg_arg a = {(uint32_t)offer, gipa_mode};
            struct ldp_child ch;
            ldp_probe(c, probe_negotiate, &a, &ch);
            if (probe_failed(&ch, buf, sizeof buf)) {
                ldp_evidence(c, "%s: offered %d: %s", how, offer, buf);
                if (fails++ == 0)
                    snprintf(fail_msg, sizeof fail_msg, "negotiation (%s) with offered version %d: %.500s", how, offer,
                             buf);
                crashed = true;
                ldp_child_free(&ch);
                break;
            }
            result[offer] = child_int(&ch, "result", 1);
            returned[offer] = child_int(&ch, "returned", -1);
            ldp_evidence(c, "%s: offered %d -> %s, version %d", how, offer, ldp_vkresult((VkResult)result[offer]),
                         returned[offer]);
            if (result[offer] != VK_ERROR_INCOMPATIBLE_DRIVER &&
                (child_int(&ch, "create_instance", 0) == 0 || child_int(&ch, "enumerate_extensions", 0) == 0)) {
                if (offer == 7)
                    ldp_evidence(c,
                                 "%s: offered 7, then vk_icdGetInstanceProcAddr(NULL, ...): vkCreateInstance %s, "
                                 "vkEnumerateInstanceExtensionProperties %s",
                                 how, child_int(&ch, "create_instance", 0) ? "non-NULL" : "NULL",
                                 child_int(&ch, "enumerate_extensions", 0) ? "non-NULL" : "NULL");
                if (offer == 7 && fails++ == 0)
                    snprintf(fail_msg, sizeof fail_msg,
                             "after negotiating, vk_icdGetInstanceProcAddr(NULL, ...) does not "
                             "give vkCreateInstance and vkEnumerateInstanceExtensionProperties");
            }
            ldp_child_free(&ch);
        }
        if (crashed) continue;
        int min_ok = -1;
        for (int o = 0; o <= 7; o++) {
            if (result[o] != VK_SUCCESS && result[o] != VK_ERROR_INCOMPATIBLE_DRIVER) {
                if (fails++ == 0)
                    snprintf(fail_msg, sizeof fail_msg,
                             "negotiation (%s) with offered version %d returned %s (only VK_SUCCESS "
                             "or VK_ERROR_INCOMPATIBLE_DRIVER are allowed)",
                             how, o, ldp_vkresult((VkResult)result[o]));
            }
            if (result[o] == VK_SUCCESS && returned[o] > o) {
                if (fails++ == 0)
                    snprintf(fail_msg, sizeof fail_msg,
                             "negotiation (%s) with offered version %d wrote back version %d, above "
                             "the offered one",
                             how, o, returned[o]);
            }
            if (result[o] == VK_SUCCESS && min_ok < 0) min_ok = o;
        }
        if (min_ok < 0) {
            if (fails++ == 0)
                snprintf(fail_msg, sizeof fail_msg,
                         "negotiation (%s) refuses every offered version 0..7: no loader can load "
                         "the driver",
                         how);
            continue;
        }
        for (int o = min_ok + 1; o <= 7; o++) {
            if (result[o] == VK_ERROR_INCOMPATIBLE_DRIVER && fails++ == 0)
                snprintf(fail_msg, sizeof fail_msg,
                         "negotiation (%s) returns VK_ERROR_INCOMPATIBLE_DRIVER for offered %d although "
                         "it accepted %d (INCOMPATIBLE is only for versions below the driver's minimum)",
                         how, o, min_ok);
        }
        int max = result[7] == VK_SUCCESS ? returned[7] : -1;
        if (max >= 0 && max <= 7) {
            for (int o = min_ok; o <= 7; o++) {
                int want = o < max ? o : max;
                if (result[o] == VK_SUCCESS && returned[o] <= o && returned[o] != want && warns++ == 0)
                    snprintf(warn_msg, sizeof warn_msg,
                             "negotiation (%s) with offered %d chose %d; the protocol answers "
                             "min(offered, driver maximum %d) = %d",
                             how, o, returned[o], max, want);
            }
        }
        if (gipa_mode && !neg_exp && max >= 0 && max < 7 && fails++ == 0)
            snprintf(fail_msg, sizeof fail_msg,
                     "the negotiation function is only reachable through vk_icdGetInstanceProcAddr "
                     "(an interface-7 mechanism) but the driver chooses interface %d; below 7 it must be exported",
                     max);
        if (!icd_gipa && max > 0 && fails++ == 0)
            snprintf(fail_msg, sizeof fail_msg, "negotiates interface %d but does not export vk_icdGetInstanceProcAddr",
                     max);
        if (first_max < 0) first_max = max;
        if (any_max >= 0 && max != any_max && warns++ == 0)
            snprintf(warn_msg, sizeof warn_msg,
                     "the exported negotiation function and the one returned by "
                     "vk_icdGetInstanceProcAddr choose different versions (%d and %d)",
                     any_max, max);
        any_max = max;
        ldp_evidence(c, "%s: minimum accepted offer %d, maximum interface %d", how, min_ok, max);
    }
    verdict_first(c, fails > 0 ? fail_msg : NULL, warns > 0 ? warn_msg : NULL,
                  "negotiates interface %d; every offer 7..0 answered by the protocol (returned <= offered, "
                  "INCOMPATIBLE only below its minimum)",
                  first_max);
}

/* ================================================================================================
 * LDP_DRIVER_7: Vulkan >= 1.1 needs interface >= 5
 * ============================================================================================== */

static void check_api_needs_iface5(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    char a[32], b[32];
    uint32_t man = c->drv->m.api_version;
    ldp_evidence(c, "manifest api_version %s; vkEnumerateInstanceVersion %s; negotiated interface %u (offered %u)",
                 vs(man, a), d.has_eiv ? vs(d.api, b) : "not available", d.iface, LDP_MAX_OFFER);
    bool needs = MM(man) >= VK_API_VERSION_1_1 || (d.has_eiv && MM(d.api) >= VK_API_VERSION_1_1);
    if (!needs)
        ldp_verdict(c, LDP_PASS, "Vulkan 1.0 driver: any interface version is allowed");
    else if (d.iface < 5)
        ldp_verdict(c, LDP_FAIL,
                    "supports Vulkan %s but its highest interface version is %u (1.1 and newer need 5 or newer)",
                    MM(man) >= MM(d.api) || !d.has_eiv ? vs(man, a) : vs(d.api, b), d.iface);
    else
        ldp_verdict(c, LDP_PASS, "Vulkan >= 1.1 with interface version %u", d.iface);
}

/* ================================================================================================
 * LDP_DRIVER_8: own surfaces need interface >= 3 and every surface function
 * ============================================================================================== */

static const char *const k_surface_create[] = {
    "vkCreateXcbSurfaceKHR",
    "vkCreateXlibSurfaceKHR",
    "vkCreateWaylandSurfaceKHR",
    "vkCreateHeadlessSurfaceEXT",
    "vkCreateDisplayPlaneSurfaceKHR",
    "vkCreateDirectFBSurfaceEXT",
    "vkCreateWin32SurfaceKHR",
    "vkCreateAndroidSurfaceKHR",
    "vkCreateMetalSurfaceEXT",
    "vkCreateMacOSSurfaceMVK",
    "vkCreateIOSSurfaceMVK",
    "vkCreateScreenSurfaceQNX",
    "vkCreateImagePipeSurfaceFUCHSIA",
    "vkCreateStreamDescriptorSurfaceGGP",
    "vkCreateViSurfaceNN",
};
static const char *const k_surface_required[] = {
    "vkDestroySurfaceKHR",
    "vkGetPhysicalDeviceSurfaceSupportKHR",
    "vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
    "vkGetPhysicalDeviceSurfaceFormatsKHR",
    "vkGetPhysicalDeviceSurfacePresentModesKHR",
};

static void probe_surface(struct ldp_ctx *c, void *arg) {
    uint32_t offer = *(const uint32_t *)arg;
    struct ldp_drv d;
    char err[1024];
    int r = ldp_drv_open(c, offer, &d, err, sizeof err);
    if (r != 0) {
        ldp_result(c, "open", "%s", err);
        return;
    }
    ldp_result(c, "iface", "%u", d.iface);
    uint32_t ne = 0;
    VkExtensionProperties *e = ldp_instance_extensions(&d, &ne);
    const char *want[32];
    uint32_t nw = 0;
    for (uint32_t i = 0; i < ne && nw < 32; i++) {
        const char *n = e[i].extensionName;
        if (strcmp(n, "VK_KHR_surface") == 0 ||
            (strstr(n, "_surface") != NULL && strstr(n, "surface_") == NULL &&
             strcmp(n, "VK_EXT_display_surface_counter") != 0) ||
            strcmp(n, "VK_KHR_display") == 0)
            want[nw++] = n;
    }
    VkInstance inst;
    VkResult cr = ldp_create_instance(c, &d, MM(d.api), want, nw, &inst);
    if (cr != VK_SUCCESS) cr = ldp_create_instance(c, &d, VK_API_VERSION_1_0, want, nw, &inst);
    if (cr != VK_SUCCESS) cr = ldp_create_instance(c, &d, VK_API_VERSION_1_0, NULL, 0, &inst);
    if (cr != VK_SUCCESS) {
        ldp_result(c, "open", "vkCreateInstance failed with %s", ldp_vkresult(cr));
        free(e);
        return;
    }
    char list[2048] = "";
    gipa_list(c, &d, inst, k_surface_create, sizeof k_surface_create / sizeof k_surface_create[0], false, list,
              sizeof list);
    ldp_result(c, "create", "%s", list);
    char missing[2048] = "";
    gipa_list(c, &d, inst, k_surface_required, sizeof k_surface_required / sizeof k_surface_required[0], true, missing,
              sizeof missing);
    /* vkCreateSwapchainKHR: only when some device offers VK_KHR_swapchain. */
    uint32_t npd = 0;
    VkResult er;
    VkPhysicalDevice *pds = physical_devices(c, &d, inst, &npd, &er);
    bool swapchain = false;
    for (uint32_t i = 0; i < npd && !swapchain; i++) {
        uint32_t nde = 0;
        VkExtensionProperties *de = device_extensions(c, &d, inst, pds[i], &nde);
        swapchain = ldp_has_ext(de, nde, "VK_KHR_swapchain");
        free(de);
    }
    if (swapchain && ldp_gipa(&d, inst, "vkCreateSwapchainKHR") == NULL)
        list_add(missing, sizeof missing, "vkCreateSwapchainKHR");
    ldp_result(c, "missing", "%s", missing);
    free(pds);
    free(e);
}

static void check_own_surfaces(struct ldp_ctx *c, void *arg) {
    (void)arg;
    uint32_t offer = LDP_MAX_OFFER;
    struct ldp_child hi, lo;
    char buf[2048], buf2[2048];
    ldp_probe(c, probe_surface, &offer, &hi);
    if (probe_failed(&hi, buf, sizeof buf)) {
        ldp_verdict(c, LDP_FAIL, "the driver %s while its surface functions were queried: %s", ldp_child_outcome(&hi),
                    buf);
        ldp_child_free(&hi);
        return;
    }
    if (probe_not_testable(c, &hi, "open", buf, sizeof buf, "", "no instance to query surface functions with")) return;
    int iface = child_int(&hi, "iface", 0);
    const char *create = ldp_child_get(&hi, "create", buf, sizeof buf);
    const char *missing = ldp_child_get(&hi, "missing", buf2, sizeof buf2);
    ldp_evidence(c, "interface %d: surface creation through vk_icdGetInstanceProcAddr: %s", iface,
                 create && *create ? create : "none");
    if (create == NULL || *create == '\0') {
        ldp_verdict(c, LDP_NA,
                    "the driver does not create its own surfaces (no vkCreate*Surface* through "
                    "vk_icdGetInstanceProcAddr); the loader's surfaces are used");
        ldp_child_free(&hi);
        return;
    }
    if (iface < 3) {
        ldp_verdict(c, LDP_FAIL,
                    "exposes its own surface creation (%s) but its highest interface version is %d "
                    "(3 or newer is required)",
                    create, iface);
        ldp_child_free(&hi);
        return;
    }
    if (missing != NULL && *missing) {
        ldp_evidence(c, "interface %d: surface functions vk_icdGetInstanceProcAddr answers NULL for: %s", iface,
                     missing);
        ldp_verdict(c, LDP_FAIL,
                    "creates its own surfaces but these surface functions are not queryable through "
                    "vk_icdGetInstanceProcAddr: %s",
                    missing);
        ldp_child_free(&hi);
        return;
    }
    ldp_child_free(&hi);
    /* An older loader: interface 2 (exported negotiation) or legacy 1. */
    offer = 2;
    ldp_probe(c, probe_surface, &offer, &lo);
    enum ldp_verdict v = LDP_PASS;
    char reason[1200];
    snprintf(reason, sizeof reason, "creates its own surfaces at interface %d and every surface function is queryable",
             iface);
    if (probe_failed(&lo, buf, sizeof buf)) {
        v = LDP_FAIL;
        snprintf(reason, sizeof reason, "with a loader offering interface 2 the driver %s: %.900s",
                 ldp_child_outcome(&lo), buf);
    } else if (ldp_child_get(&lo, "open", buf, sizeof buf) != NULL) {
        ldp_evidence(c, "offered 2: %s", buf);
    } else {
        int lif = child_int(&lo, "iface", 0);
        const char *lc = ldp_child_get(&lo, "create", buf, sizeof buf);
        ldp_evidence(c, "offered 2 -> interface %d: surface creation %s", lif, lc && *lc ? lc : "none");
        if (lif < 3 && lc != NULL && *lc) {
            v = LDP_WARN;
            snprintf(reason, sizeof reason,
                     "at interface %d (a loader offering 2) it still exposes %s; such a loader "
                     "owns the surfaces (the Khronos loader logs an LDP_DRIVER_8 warning for this)",
                     lif, lc);
        }
    }
    ldp_child_free(&lo);
    ldp_verdict(c, v, "%s", reason);
}

/* ================================================================================================
 * LDP_DRIVER_9 / 10: apiVersion handling by interface
 * ============================================================================================== */

/* false (with the verdict given) when there is no vkCreateInstance to try apiVersions with. */
static bool have_create_instance(struct ldp_ctx *c, struct ldp_drv *d) {
    ldp_step(c, "vk_icdGetInstanceProcAddr(NULL, \"vkCreateInstance\")");
    if (ldp_gipa(d, VK_NULL_HANDLE, "vkCreateInstance") != NULL) return true;
    ldp_evidence(c, "interface %u: vk_icdGetInstanceProcAddr(NULL, \"vkCreateInstance\") -> NULL", d->iface);
    ldp_verdict(c, LDP_NOT_TESTABLE,
                "vkCreateInstance is not queryable with a NULL instance (see LINT_GLOBAL_NULL_INSTANCE)");
    return false;
}

static VkResult try_api(struct ldp_ctx *c, struct ldp_drv *d, uint32_t api) {
    VkInstance inst;
    VkResult r = ldp_create_instance(c, d, api, NULL, 0, &inst);
    char v[32];
    ldp_evidence(c, "interface %u: vkCreateInstance(apiVersion %s) -> %s", d->iface, vs(api, v), ldp_vkresult(r));
    if (r == VK_SUCCESS && inst != VK_NULL_HANDLE) {
        PFN_vkDestroyInstance di = GET(d, inst, vkDestroyInstance);
        ldp_step(c, "vkDestroyInstance");
        if (di) di(inst, NULL);
    }
    return r;
}

static void check_iface4_rejects_api(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_drv d;
    char err[1024], a[32], b[32];
    int r = ldp_drv_open(c, 4, &d, err, sizeof err);
    if (r == -2) {
        ldp_evidence(c, "%s", err);
        ldp_verdict(c, LDP_NA, "the driver refuses interface 4 and older (its minimum is above 4)");
        return;
    }
    if (r != 0) {
        ldp_evidence(c, "%s", err);
        ldp_verdict(c, LDP_NOT_TESTABLE, "the driver library cannot be used (see LDP_DRIVER_3 and LDP_DRIVER_4)");
        return;
    }
    ldp_evidence(c, "loader offering interface 4: %s, interface %u",
                 d.negotiated ? "negotiated" : "no exported negotiation (legacy)", d.iface);
    if (d.iface > 4) {
        ldp_verdict(c, LDP_NA, "offered 4, the driver chose %u (see LDP_DRIVER_3)", d.iface);
        return;
    }
    if (!have_create_instance(c, &d)) return;
    uint32_t own = MM(d.api);
    uint32_t above = VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(own), VK_API_VERSION_MINOR(own) + 1, 0);
    ldp_evidence(c, "driver version %s (%s)", vs(d.api, a), d.has_eiv ? "vkEnumerateInstanceVersion" : "manifest");
    VkResult res = try_api(c, &d, above);
    if (own >= VK_API_VERSION_1_1 && above != VK_API_VERSION_1_1) {
        VkResult r11 = try_api(c, &d, VK_API_VERSION_1_1);
        ldp_evidence(c,
                     "note: the interface document's table also asks a driver at interface <= 4 to refuse any "
                     "apiVersion above 1.0; apiVersion 1.1 -> %s (information only)",
                     ldp_vkresult(r11));
    }
    if (res == VK_ERROR_INCOMPATIBLE_DRIVER)
        ldp_verdict(c, LDP_PASS,
                    "at interface %u it refuses apiVersion %s (above its %s) with VK_ERROR_INCOMPATIBLE_DRIVER",
                    d.iface, vs(above, a), vs(own, b));
    else if (res == VK_SUCCESS && own >= VK_API_VERSION_1_1)
        ldp_verdict(c, LDP_WARN,
                    "at interface %u vkCreateInstance(apiVersion %s, above its own %s) succeeded; LDP_DRIVER_9 "
                    "asks for VK_ERROR_INCOMPATIBLE_DRIVER, but the Vulkan specification forbids that error "
                    "for drivers of Vulkan 1.1 and newer (a conflict only a loader older than interface 5 "
                    "can hit)",
                    d.iface, vs(above, a), vs(own, b));
    else
        ldp_verdict(c, LDP_FAIL,
                    "at interface %u vkCreateInstance(apiVersion %s, above its own %s) returned %s instead of "
                    "VK_ERROR_INCOMPATIBLE_DRIVER",
                    d.iface, vs(above, a), vs(own, b), ldp_vkresult(res));
}

static void check_iface5_ignores_api(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    if (d.iface < 5) {
        ldp_evidence(c, "offered %u, negotiated %u", LDP_MAX_OFFER, d.iface);
        ldp_verdict(c, LDP_NA, "the driver's highest interface version is %u (< 5)", d.iface);
        return;
    }
    if (!have_create_instance(c, &d)) return;
    uint32_t own = MM(d.api);
    uint32_t list[5] = {VK_API_VERSION_1_0, VK_API_VERSION_1_1,
                        VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(own), VK_API_VERSION_MINOR(own) + 1, 0),
                        VK_MAKE_API_VERSION(0, 1, 9, 0), VK_MAKE_API_VERSION(0, 2, 0, 0)};
    VkResult res[5];
    for (int i = 0; i < 5; i++) {
        bool dup = false;
        for (int k = 0; k < i; k++) dup = dup || list[k] == list[i];
        res[i] = dup ? res[0] : try_api(c, &d, list[i]);
        if (dup) res[i] = VK_SUCCESS;
    }
    char a[32];
    if (res[0] != VK_SUCCESS) {
        ldp_verdict(c, LDP_NOT_TESTABLE, "vkCreateInstance fails even with apiVersion 1.0 (%s)", ldp_vkresult(res[0]));
        return;
    }
    for (int i = 1; i < 4; i++) {
        if (res[i] == VK_ERROR_INCOMPATIBLE_DRIVER) {
            ldp_verdict(c, LDP_FAIL,
                        "at interface %u vkCreateInstance(apiVersion %s) returned VK_ERROR_INCOMPATIBLE_DRIVER "
                        "(from interface 5 the driver must ignore the apiVersion)",
                        d.iface, vs(list[i], a));
            return;
        }
    }
    if (res[4] == VK_ERROR_INCOMPATIBLE_DRIVER) {
        ldp_verdict(c, LDP_WARN, "at interface %u it refuses apiVersion 2.0.0 (every 1.x is accepted)", d.iface);
        return;
    }
    ldp_verdict(c, LDP_PASS, "at interface %u every apiVersion (1.0, 1.1, %s, 1.9, 2.0) is accepted", d.iface,
                vs(list[2], a));
}

/* ================================================================================================
 * LDP_DRIVER_2: every instance-level and physical-device query, with zero or more devices
 * ============================================================================================== */

static int exercise_physdev(struct ldp_ctx *c, struct ldp_drv *d, VkInstance inst, VkPhysicalDevice pd, uint32_t idx) {
    int calls = 0;
#define CALL(name, ...)                                                                                                \
    do {                                                                                                               \
        PFN_##name f_ = GET(d, inst, name);                                                                            \
        if (f_ != NULL) {                                                                                              \
            ldp_step(c, "%s (device %u)", #name, idx);                                                                 \
            f_(__VA_ARGS__);                                                                                           \
            calls++;                                                                                                   \
        }                                                                                                              \
    } while (0)
    VkPhysicalDeviceProperties props = {0}; /* apiVersion 0 when the driver has no vkGetPhysicalDeviceProperties */
    VkPhysicalDeviceFeatures feats;
    VkPhysicalDeviceMemoryProperties mem;
    VkFormatProperties fp;
    VkImageFormatProperties ifp;
    uint32_t n = 0;
    CALL(vkGetPhysicalDeviceProperties, pd, &props);
    CALL(vkGetPhysicalDeviceFeatures, pd, &feats);
    CALL(vkGetPhysicalDeviceMemoryProperties, pd, &mem);
    CALL(vkGetPhysicalDeviceQueueFamilyProperties, pd, &n, NULL);
    VkQueueFamilyProperties qf[64];
    if (n > 64) n = 64;
    CALL(vkGetPhysicalDeviceQueueFamilyProperties, pd, &n, qf);
    CALL(vkGetPhysicalDeviceFormatProperties, pd, VK_FORMAT_R8G8B8A8_UNORM, &fp);
    CALL(vkGetPhysicalDeviceFormatProperties, pd, VK_FORMAT_D32_SFLOAT, &fp);
    CALL(vkGetPhysicalDeviceImageFormatProperties, pd, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D,
         VK_IMAGE_TILING_OPTIMAL, VK_IMAGE_USAGE_SAMPLED_BIT, 0, &ifp);
    uint32_t sn = 0;
    CALL(vkGetPhysicalDeviceSparseImageFormatProperties, pd, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D,
         VK_SAMPLE_COUNT_1_BIT, VK_IMAGE_USAGE_SAMPLED_BIT, VK_IMAGE_TILING_OPTIMAL, &sn, NULL);
    uint32_t en = 0, ln = 0;
    CALL(vkEnumerateDeviceExtensionProperties, pd, NULL, &en, NULL);
    CALL(vkEnumerateDeviceLayerProperties, pd, &ln, NULL);
    if (d->inst_api >= VK_API_VERSION_1_1 && MM(props.apiVersion) >= VK_API_VERSION_1_1) {
        VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
        VkPhysicalDeviceMemoryProperties2 m2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
        VkFormatProperties2 fp2 = {.sType = VK_STRUCTURE_TYPE_FORMAT_PROPERTIES_2};
        VkPhysicalDeviceImageFormatInfo2 ii2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_IMAGE_FORMAT_INFO_2,
                                                .format = VK_FORMAT_R8G8B8A8_UNORM,
                                                .type = VK_IMAGE_TYPE_2D,
                                                .tiling = VK_IMAGE_TILING_OPTIMAL,
                                                .usage = VK_IMAGE_USAGE_SAMPLED_BIT};
        VkImageFormatProperties2 if2 = {.sType = VK_STRUCTURE_TYPE_IMAGE_FORMAT_PROPERTIES_2};
        VkPhysicalDeviceSparseImageFormatInfo2 si2 = {.sType =
                                                          VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SPARSE_IMAGE_FORMAT_INFO_2,
                                                      .format = VK_FORMAT_R8G8B8A8_UNORM,
                                                      .type = VK_IMAGE_TYPE_2D,
                                                      .samples = VK_SAMPLE_COUNT_1_BIT,
                                                      .usage = VK_IMAGE_USAGE_SAMPLED_BIT,
                                                      .tiling = VK_IMAGE_TILING_OPTIMAL};
        uint32_t qn = 0;
        CALL(vkGetPhysicalDeviceProperties2, pd, &p2);
        CALL(vkGetPhysicalDeviceFeatures2, pd, &f2);
        CALL(vkGetPhysicalDeviceMemoryProperties2, pd, &m2);
        CALL(vkGetPhysicalDeviceQueueFamilyProperties2, pd, &qn, NULL);
        CALL(vkGetPhysicalDeviceFormatProperties2, pd, VK_FORMAT_R8G8B8A8_UNORM, &fp2);
        CALL(vkGetPhysicalDeviceImageFormatProperties2, pd, &ii2, &if2);
        uint32_t sn2 = 0;
        CALL(vkGetPhysicalDeviceSparseImageFormatProperties2, pd, &si2, &sn2, NULL);
        VkPhysicalDeviceExternalBufferInfo ebi = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
                                                  .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                                  .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
        VkExternalBufferProperties ebp = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
        CALL(vkGetPhysicalDeviceExternalBufferProperties, pd, &ebi, &ebp);
        VkPhysicalDeviceExternalFenceInfo efi = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_FENCE_INFO,
                                                 .handleType = VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT};
        VkExternalFenceProperties efp = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_FENCE_PROPERTIES};
        CALL(vkGetPhysicalDeviceExternalFenceProperties, pd, &efi, &efp);
        VkPhysicalDeviceExternalSemaphoreInfo esi = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO,
                                                     .handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT};
        VkExternalSemaphoreProperties esp = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
        CALL(vkGetPhysicalDeviceExternalSemaphoreProperties, pd, &esi, &esp);
    }
    /* A device on queue family 0. */
    PFN_vkCreateDevice cd = GET(d, inst, vkCreateDevice);
    if (cd != NULL && n > 0) {
        VkDevice dev;
        ldp_step(c, "vkCreateDevice (device %u)", idx);
        VkResult r = create_device_family0(cd, pd, &dev);
        calls++;
        ldp_evidence(c, "device %u '%s': vkCreateDevice -> %s", idx, props.deviceName, ldp_vkresult(r));
        if (r == VK_SUCCESS && dev != VK_NULL_HANDLE) {
            PFN_vkGetDeviceProcAddr gdpa = GET(d, inst, vkGetDeviceProcAddr);
            if (gdpa != NULL) {
                PFN_vkGetDeviceQueue gq = (PFN_vkGetDeviceQueue)gdpa(dev, "vkGetDeviceQueue");
                PFN_vkDeviceWaitIdle wi = (PFN_vkDeviceWaitIdle)gdpa(dev, "vkDeviceWaitIdle");
                PFN_vkDestroyDevice dd = (PFN_vkDestroyDevice)gdpa(dev, "vkDestroyDevice");
                VkQueue queue = VK_NULL_HANDLE;
                ldp_step(c, "vkGetDeviceQueue (device %u)", idx);
                if (gq) gq(dev, 0, 0, &queue);
                ldp_step(c, "vkDeviceWaitIdle (device %u)", idx);
                if (wi) wi(dev);
                ldp_step(c, "vkDestroyDevice (device %u)", idx);
                if (dd) dd(dev, NULL);
                calls += 3;
            }
        }
    }
    return calls;
#undef CALL
}

static int exercise_instance(struct ldp_ctx *c, struct ldp_drv *d, VkInstance inst, uint32_t *ndev) {
    int calls = 0;
    VkResult er;
    uint32_t n = 0;
    VkPhysicalDevice *pds = physical_devices(c, d, inst, &n, &er);
    calls += 2;
    ldp_evidence(c, "vkEnumeratePhysicalDevices -> %s, %u devices", ldp_vkresult(er), n);
    if (n == 0) {
        /* The array form with an empty array (what a loader does after a zero count). */
        PFN_vkEnumeratePhysicalDevices epd = GET(d, inst, vkEnumeratePhysicalDevices);
        VkPhysicalDevice dummy[1];
        uint32_t zero = 0;
        ldp_step(c, "vkEnumeratePhysicalDevices(array, count 0)");
        if (epd) epd(inst, &zero, dummy);
        calls++;
    }
    PFN_vkEnumeratePhysicalDeviceGroups epg = GET(d, inst, vkEnumeratePhysicalDeviceGroups);
    if (epg != NULL && d->inst_api >= VK_API_VERSION_1_1) {
        uint32_t gn = 0;
        ldp_step(c, "vkEnumeratePhysicalDeviceGroups(count)");
        VkResult gr = epg(inst, &gn, NULL);
        calls++;
        if (gr == VK_SUCCESS && gn < 64) {
            VkPhysicalDeviceGroupProperties g[64];
            for (uint32_t i = 0; i < gn; i++)
                g[i] = (VkPhysicalDeviceGroupProperties){.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES};
            ldp_step(c, "vkEnumeratePhysicalDeviceGroups(array of %u)", gn);
            gr = epg(inst, &gn, g);
            calls++;
        }
        ldp_evidence(c, "vkEnumeratePhysicalDeviceGroups -> %s, %u groups", ldp_vkresult(gr), gn);
    }
    static const char *const inst_names[] = {"vkDestroyInstance",
                                             "vkEnumeratePhysicalDevices",
                                             "vkGetPhysicalDeviceProperties",
                                             "vkCreateDevice",
                                             "vkGetDeviceProcAddr",
                                             "vkEnumerateDeviceExtensionProperties",
                                             "vkGetPhysicalDeviceSurfaceSupportKHR",
                                             "vkCreateDebugUtilsMessengerEXT"};
    for (size_t i = 0; i < sizeof inst_names / sizeof inst_names[0]; i++) {
        ldp_step(c, "vk_icdGetInstanceProcAddr(instance, \"%s\")", inst_names[i]);
        (void)ldp_gipa(d, inst, inst_names[i]);
        calls++;
    }
    uint32_t ne = 0;
    ldp_step(c, "vkEnumerateInstanceExtensionProperties");
    free(ldp_instance_extensions(d, &ne));
    calls++;
    for (uint32_t i = 0; i < n; i++) calls += exercise_physdev(c, d, inst, pds[i], i);
    free(pds);
    *ndev = n;
    return calls;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL quiet_messenger(VkDebugUtilsMessageSeverityFlagBitsEXT s,
                                                      VkDebugUtilsMessageTypeFlagsEXT t,
                                                      const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
    (void)s;
    (void)t;
    (void)data;
    (void)user;
    return VK_FALSE;
}

static void check_zero_devices(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    const char *exts[1];
    uint32_t nx = 0;
    if (instance_has_ext(&d, "VK_EXT_debug_utils")) exts[nx++] = "VK_EXT_debug_utils";
    int calls = 0;
    uint32_t ndev = 0;
    for (int round = 0; round < 2; round++) {
        VkInstance inst;
        if (!make_instance(c, &d, exts, nx, &inst)) return;
        PFN_vkDestroyDebugUtilsMessengerEXT dm = NULL;
        VkDebugUtilsMessengerEXT m = VK_NULL_HANDLE;
        if (nx > 0) {
            PFN_vkCreateDebugUtilsMessengerEXT cm = GET(&d, inst, vkCreateDebugUtilsMessengerEXT);
            dm = GET(&d, inst, vkDestroyDebugUtilsMessengerEXT);
            VkDebugUtilsMessengerCreateInfoEXT mi = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
                                                     .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
                                                     .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT,
                                                     .pfnUserCallback = quiet_messenger};
            if (cm != NULL && dm != NULL) {
                ldp_step(c, "vkCreateDebugUtilsMessengerEXT");
                if (cm(inst, &mi, NULL, &m) != VK_SUCCESS) m = VK_NULL_HANDLE;
                calls++;
            }
        }
        calls += exercise_instance(c, &d, inst, &ndev);
        if (m != VK_NULL_HANDLE) {
            ldp_step(c, "vkDestroyDebugUtilsMessengerEXT");
            dm(inst, m, NULL);
            calls++;
        }
        PFN_vkDestroyInstance di = GET(&d, inst, vkDestroyInstance);
        ldp_step(c, "vkDestroyInstance");
        if (di) di(inst, NULL);
        calls++;
        if (round == 0) ldp_evidence(c, "round 1: %d calls survived; creating a second instance", calls);
    }
    if (ndev == 0)
        ldp_verdict(c, LDP_PASS,
                    "found zero physical devices and survived every instance-level query (%d calls, two "
                    "instances)",
                    calls);
    else
        ldp_verdict(c, LDP_PASS,
                    "survived every instance-level and physical-device query on its %u devices (%d calls); "
                    "the zero-device case is not reachable here because it found devices",
                    ndev, calls);
}

/* ================================================================================================
 * LDP_DRIVER_1: beside the mock ICD through our loader
 * ============================================================================================== */

struct coexist_arg {
    int mode; /* 0: mock alone, 1: driver + mock, 2: driver + mock pre-loaded RTLD_GLOBAL */
    char mock_lib[PATH_MAX];
    char mock_json[PATH_MAX];
};

static void probe_coexist(struct ldp_ctx *c, void *arg) {
    const struct coexist_arg *a = arg;
    char files[2 * PATH_MAX + 2];
    if (a->mode == 0)
        snprintf(files, sizeof files, "%s", a->mock_json);
    else
        snprintf(files, sizeof files, "%s:%s",
                 c->drv->loader_manifest ? c->drv->loader_manifest : c->drv->manifest_path, a->mock_json);
    setenv("VK_DRIVER_FILES", files, 1);
    static const char *const unset[] = {
        "VK_ICD_FILENAMES",   "VK_ADD_DRIVER_FILES", "VK_LOADER_DRIVERS_SELECT", "VK_LOADER_DRIVERS_DISABLE",
        "VK_INSTANCE_LAYERS", "VK_LAYER_PATH",       "VK_ADD_LAYER_PATH",        "VK_LOADER_LAYERS_ENABLE"};
    for (size_t i = 0; i < sizeof unset / sizeof unset[0]; i++) unsetenv(unset[i]);
    setenv("VK_LOADER_LAYERS_DISABLE", "~all~", 1);
    setenv("VK_LOADER_DEBUG", "error,warn", 1);
    if (a->mode == 2) {
        ldp_step(c, "dlopen(%s, RTLD_GLOBAL) (as an application's other graphics stack might)", a->mock_lib);
        if (dlopen(a->mock_lib, RTLD_NOW | RTLD_GLOBAL) == NULL) {
            ldp_result(c, "setup", "cannot pre-load the mock: %s", dlerror());
            return;
        }
    }
    ldp_step(c, "dlopen(%s)", c->opt->loader_path);
    void *vk = dlopen(c->opt->loader_path, RTLD_NOW | RTLD_LOCAL);
    if (vk == NULL) {
        ldp_result(c, "setup", "cannot load the reference loader: %s", dlerror());
        return;
    }
    PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)dlsym(vk, "vkGetInstanceProcAddr");
    PFN_vkCreateInstance ci = gipa ? (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance") : NULL;
    if (ci == NULL) {
        ldp_result(c, "setup", "the reference loader has no vkCreateInstance");
        return;
    }
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkInstance inst = VK_NULL_HANDLE;
    ldp_step(c, "vkCreateInstance through the reference loader");
    VkResult r = ci(&ici, NULL, &inst);
    ldp_result(c, "create_instance", "%s", ldp_vkresult(r));
    if (r != VK_SUCCESS) return;
#define LGET(name) ((PFN_##name)gipa(inst, #name))
    PFN_vkEnumeratePhysicalDevices epd = LGET(vkEnumeratePhysicalDevices);
    PFN_vkGetPhysicalDeviceProperties gp = LGET(vkGetPhysicalDeviceProperties);
    PFN_vkCreateDevice cd = LGET(vkCreateDevice);
    PFN_vkGetDeviceProcAddr gdpa = LGET(vkGetDeviceProcAddr);
    PFN_vkEnumeratePhysicalDeviceGroups epg = LGET(vkEnumeratePhysicalDeviceGroups);
    PFN_vkDestroyInstance di = LGET(vkDestroyInstance);
    uint32_t n = 0;
    ldp_step(c, "vkEnumeratePhysicalDevices(count)");
    r = epd(inst, &n, NULL);
    VkPhysicalDevice pds[64];
    if (n > 64) n = 64;
    if (r == VK_SUCCESS) {
        ldp_step(c, "vkEnumeratePhysicalDevices(array of %u)", n);
        r = epd(inst, &n, pds);
    }
    ldp_result(c, "enumerate", "%s", ldp_vkresult(r));
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) n = 0;
    ldp_result(c, "count", "%u", n);
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        ldp_step(c, "vkGetPhysicalDeviceProperties(device %u)", i);
        gp(pds[i], &p);
        ldp_result(c, "device", "%s|vendor 0x%x|device 0x%x|api %u.%u.%u|driver %u", p.deviceName, p.vendorID,
                   p.deviceID, VK_API_VERSION_MAJOR(p.apiVersion), VK_API_VERSION_MINOR(p.apiVersion),
                   VK_API_VERSION_PATCH(p.apiVersion), p.driverVersion);
        if (strcmp(p.deviceName, MOCK_DEVICE_NAME) != 0) continue;
        VkDevice dev;
        ldp_step(c, "vkCreateDevice on the mock's device");
        VkResult dr = create_device_family0(cd, pds[i], &dev);
        ldp_result(c, "create_device", "%s", ldp_vkresult(dr));
        if (dr == VK_SUCCESS) {
            PFN_vkGetDeviceQueue gq = (PFN_vkGetDeviceQueue)gdpa(dev, "vkGetDeviceQueue");
            PFN_vkDeviceWaitIdle wi = (PFN_vkDeviceWaitIdle)gdpa(dev, "vkDeviceWaitIdle");
            PFN_vkDestroyDevice dd = (PFN_vkDestroyDevice)gdpa(dev, "vkDestroyDevice");
            VkQueue queue = VK_NULL_HANDLE;
            ldp_step(c, "vkGetDeviceQueue / vkDeviceWaitIdle / vkDestroyDevice on the mock's device");
            gq(dev, 0, 0, &queue);
            ldp_result(c, "wait_idle", "%s", ldp_vkresult(wi(dev)));
            dd(dev, NULL);
        }
    }
    if (epg != NULL) {
        uint32_t gn = 0;
        ldp_step(c, "vkEnumeratePhysicalDeviceGroups(count)");
        VkResult gr = epg(inst, &gn, NULL);
        ldp_result(c, "groups", "%s %u", ldp_vkresult(gr), gn);
    }
    ldp_step(c, "vkDestroyInstance through the reference loader");
    di(inst, NULL);
    ldp_result(c, "done", "1");
#undef LGET
}

/* Mock device lines of a probe (devices named MOCK_DEVICE_NAME), joined. */
static void mock_devices(const struct ldp_child *ch, char *out, size_t len, int *others) {
    out[0] = '\0';
    *others = 0;
    size_t pos = 0;
    char buf[512];
    const char *v;
    while ((v = ldp_child_next(ch, "device", &pos, buf, sizeof buf)) != NULL) {
        if (strncmp(v, MOCK_DEVICE_NAME "|", strlen(MOCK_DEVICE_NAME) + 1) == 0) {
            strncat(out, v, len - strlen(out) - 1);
            strncat(out, ";", len - strlen(out) - 1);
        } else {
            (*others)++;
        }
    }
}

static int count_bad_calls(const char *calls_path, char *first, size_t len) {
    char *text = NULL;
    size_t n = 0;
    first[0] = '\0';
    if (vkl_read_file(calls_path, &text, &n) != VK_SUCCESS) return 0;
    int bad = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        bool is_bad = strstr(line, "\"call\":\"invalid_handle\"") != NULL ||
                      ((strstr(line, "\"call\":\"vkEnumeratePhysicalDevices\"") ||
                        strstr(line, "\"call\":\"vkCreateDevice\"") || strstr(line, "\"call\":\"vkCreateInstance\"")) &&
                       strstr(line, "\"result\":\"VK_ERROR") != NULL);
        if (is_bad && bad++ == 0) snprintf(first, len, "%s", line);
    }
    free(text);
    return bad;
}

static void loader_log(struct ldp_ctx *c, const struct ldp_child *ch, const char *label) {
    int shown = 0;
    for (const char *p = ch->err; p && *p && shown < 6;) {
        const char *eol = strchr(p, '\n');
        int l = eol ? (int)(eol - p) : (int)strlen(p);
        bool layer_line = memmem(p, (size_t)l, "| LAYER", 7) != NULL;
        if (l > 0 && strncmp(p, "[Vulkan Loader]", 15) == 0 && !layer_line) {
            ldp_evidence(c, "%s loader log: %.*s", label, l, p);
            shown++;
        }
        p = eol ? eol + 1 : p + l;
    }
}

static void check_coexistence(struct ldp_ctx *c, void *arg) {
    (void)arg;
    if (c->opt->loader_path == NULL || c->opt->mock_path == NULL || c->opt->tmp_dir == NULL) {
        ldp_verdict(c, LDP_NOT_TESTABLE, "needs the reference loader and the mock ICD (--loader=PATH, --mock=PATH); %s",
                    c->opt->loader_path == NULL ? "loader not found"
                    : c->opt->mock_path == NULL ? "mock not found"
                                                : "no temporary directory");
        return;
    }
    struct coexist_arg a;
    snprintf(a.mock_lib, sizeof a.mock_lib, "%s/libldp_check_mock.so", c->opt->tmp_dir);
    snprintf(a.mock_json, sizeof a.mock_json, "%s/ldp_check_mock.json", c->opt->tmp_dir);
    char calls[PATH_MAX + 8];
    snprintf(calls, sizeof calls, "%s.calls", a.mock_lib);
    static const char *const labels[] = {"mock alone", "driver + mock", "driver + mock pre-loaded RTLD_GLOBAL"};
    char base_devs[4096] = "", buf[2048];
    char fail[1500] = "";
    for (int mode = 0; mode < 3 && !fail[0]; mode++) {
        a.mode = mode;
        unlink(calls);
        struct ldp_child ch;
        ldp_probe(c, probe_coexist, &a, &ch);
        const char *label = labels[mode];
        if (ch.kind != LDP_EXITED || ch.code != 0 || ldp_child_get(&ch, "done", buf, sizeof buf) == NULL) {
            ldp_child_describe(&ch, buf, sizeof buf);
            if (ldp_child_get(&ch, "setup", buf + 1000, 1000) != NULL) {
                ldp_evidence(c, "%s: %s", label, buf + 1000);
                ldp_verdict(c, LDP_NOT_TESTABLE, "set-up failed: %s", buf + 1000);
                ldp_child_free(&ch);
                return;
            }
            char cr[1000] = "";
            ldp_child_get(&ch, "create_instance", cr, sizeof cr);
            loader_log(c, &ch, label);
            if (mode == 0) {
                ldp_evidence(c, "%s: %s (vkCreateInstance %s)", label, buf, cr[0] ? cr : "not reached");
                ldp_verdict(c, LDP_NOT_TESTABLE, "the reference loader with the mock alone did not work: %s", buf);
                ldp_child_free(&ch);
                return;
            }
            if (cr[0] && strcmp(cr, "VK_SUCCESS") != 0)
                snprintf(fail, sizeof fail,
                         "%s: vkCreateInstance through the loader returned %s (the mock alone: VK_SUCCESS)", label, cr);
            else
                snprintf(fail, sizeof fail, "%s: the process %.1000s", label, buf);
            ldp_child_free(&ch);
            break;
        }
        char devs[4096], enumr[128] = "", cdev[128] = "", wait[128] = "", groups[128] = "";
        int others = 0;
        mock_devices(&ch, devs, sizeof devs, &others);
        ldp_child_get(&ch, "enumerate", enumr, sizeof enumr);
        ldp_child_get(&ch, "create_device", cdev, sizeof cdev);
        ldp_child_get(&ch, "wait_idle", wait, sizeof wait);
        ldp_child_get(&ch, "groups", groups, sizeof groups);
        char bad_line[600];
        int bad = count_bad_calls(calls, bad_line, sizeof bad_line);
        ldp_evidence(c,
                     "%s: vkEnumeratePhysicalDevices %s; mock devices [%s]; other devices %d; mock vkCreateDevice %s, "
                     "vkDeviceWaitIdle %s; groups %s; bad mock call records %d",
                     label, enumr, devs, others, cdev[0] ? cdev : "not reached", wait[0] ? wait : "-",
                     groups[0] ? groups : "-", bad);
        loader_log(c, &ch, label);
        ldp_child_free(&ch);
        if (mode == 0) {
            if (devs[0] == '\0' || strcmp(cdev, "VK_SUCCESS") != 0) {
                ldp_verdict(c, LDP_NOT_TESTABLE,
                            "the reference loader with the mock alone did not show the mock's device");
                return;
            }
            snprintf(base_devs, sizeof base_devs, "%s", devs);
            continue;
        }
        if (strcmp(enumr, "VK_SUCCESS") != 0)
            snprintf(fail, sizeof fail, "%s: vkEnumeratePhysicalDevices returned %s", label, enumr);
        else if (strcmp(devs, base_devs) != 0)
            snprintf(fail, sizeof fail, "%s: the mock's devices changed from [%.600s] to [%.600s]", label, base_devs,
                     devs);
        else if (strcmp(cdev, "VK_SUCCESS") != 0 || strcmp(wait, "VK_SUCCESS") != 0)
            snprintf(fail, sizeof fail, "%s: vkCreateDevice/vkDeviceWaitIdle on the mock's device returned %s/%s",
                     label, cdev, wait[0] ? wait : "-");
        else if (bad > 0)
            snprintf(fail, sizeof fail, "%s: the mock recorded %d failed or invalid calls, e.g. %s", label, bad,
                     bad_line);
    }
    unlink(calls);
    if (fail[0])
        ldp_verdict(c, LDP_FAIL, "the mock ICD misbehaved with this driver loaded beside it; %s", fail);
    else
        ldp_verdict(c, LDP_PASS,
                    "the mock ICD's devices, vkCreateDevice and call records are unchanged with this driver "
                    "loaded beside it through the reference loader (also with the mock pre-loaded RTLD_GLOBAL)");
}

/* ================================================================================================
 * LDP_DRIVER_5: conformanceVersion
 * ============================================================================================== */

static void check_conformance_version(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    bool has_khr2 = instance_has_ext(&d, "VK_KHR_get_physical_device_properties2");
    bool khr2 = MM(d.api) < VK_API_VERSION_1_1 && has_khr2;
    const char *exts[1] = {"VK_KHR_get_physical_device_properties2"};
    uint32_t nx = khr2 ? 1 : 0;
    VkInstance inst;
    if (!make_instance(c, &d, exts, nx, &inst)) return;
    uint32_t n = 0;
    VkResult er;
    VkPhysicalDevice *pds = physical_devices(c, &d, inst, &n, &er);
    PFN_vkGetPhysicalDeviceProperties2 gp2 =
        khr2 ? (PFN_vkGetPhysicalDeviceProperties2)ldp_gipa(&d, inst, "vkGetPhysicalDeviceProperties2KHR")
             : GET(&d, inst, vkGetPhysicalDeviceProperties2);
    if (!khr2 && d.inst_api < VK_API_VERSION_1_1) gp2 = NULL;
    int shown = 0, claimed = 0, implausible = 0, releases = 0;
    char first_bad[900] = "";
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        device_name(&d, inst, pds[i], &p);
        uint32_t nde = 0;
        VkExtensionProperties *de = device_extensions(c, &d, inst, pds[i], &nde);
        bool ok =
            gp2 != NULL && (MM(p.apiVersion) >= VK_API_VERSION_1_2 || ldp_has_ext(de, nde, "VK_KHR_driver_properties"));
        free(de);
        if (!ok) {
            ldp_evidence(c,
                         "device %u '%s': VkPhysicalDeviceDriverProperties not available (needs Vulkan 1.2 or "
                         "VK_KHR_driver_properties)",
                         i, p.deviceName);
            continue;
        }
        VkPhysicalDeviceDriverProperties dp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
        VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &dp};
        ldp_step(c, "vkGetPhysicalDeviceProperties2 (device %u)", i);
        gp2(pds[i], &p2);
        VkConformanceVersion cv = dp.conformanceVersion;
        ldp_evidence(c, "device %u '%s': driverID %d, driverName '%s', driverInfo '%s', conformanceVersion %u.%u.%u.%u",
                     i, p.deviceName, (int)dp.driverID, dp.driverName, dp.driverInfo, cv.major, cv.minor, cv.subminor,
                     cv.patch);
        shown++;
        if (cv.major || cv.minor || cv.subminor || cv.patch) {
            claimed++;
            char why[600];
            enum ldp_cv_class k =
                ldp_cts_classify(cv.major, cv.minor, cv.subminor, cv.patch, p.apiVersion, why, sizeof why);
            ldp_evidence(c, "device %u: %s", i, why);
            if (k == LDP_CV_BELOW_API || k == LDP_CV_NOT_RELEASE) {
                if (implausible++ == 0)
                    snprintf(first_bad, sizeof first_bad, "device %u '%s': %s", i, p.deviceName, why);
            } else if (k == LDP_CV_RELEASE) {
                releases++;
            }
        }
    }
    free(pds);
    if (claimed > 0) ldp_evidence(c, "%s", ldp_cts_snapshot_source);
    if (n == 0)
        ldp_verdict(c, LDP_NOT_TESTABLE, "no physical devices here, so no conformanceVersion to read");
    else if (shown == 0)
        ldp_verdict(c, LDP_NOT_TESTABLE, "no device reports VkPhysicalDeviceDriverProperties");
    else if (implausible > 0)
        ldp_verdict(c, LDP_FAIL, "a conformance version is claimed that no approved submission can have: %s%s",
                    first_bad, implausible > 1 ? " (and more, see evidence)" : "");
    else if (claimed == 0)
        ldp_verdict(c, LDP_NOT_TESTABLE,
                    "reports 0.0.0.0 (no claim); whether Khronos approved a claimed version needs "
                    "the conformant-products list, which is not available offline");
    else
        ldp_verdict(
            c, LDP_NOT_TESTABLE,
            "a conformance version is claimed (shown as evidence) and is plausible (%s, not older than the API "
            "version); whether Khronos approved the submission needs the conformant-products list, which is not "
            "available offline",
            releases == claimed ? "a CTS release version" : "not contradicted by the CTS release snapshot");
}

/* ================================================================================================
 * LDP_DRIVER_11: the manifest's library exists and is the one it describes; stale manifests
 * ============================================================================================== */

static void check_stale_manifest(struct ldp_ctx *c, void *arg) {
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
        ldp_verdict(c, LDP_FAIL, "library_path %s %s: the manifest was left behind or not updated", m->library_path,
                    c->drv->library_problem);
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

/* ================================================================================================
 * LDP_DRIVER_12: extensions against the registry
 * ============================================================================================== */

static void check_unpublished_extensions(struct ldp_ctx *c, void *arg) {
    (void)arg;
    const struct ldp_registry *reg = ldp_registry_global;
    if (reg == NULL || reg->count == 0) {
        ldp_verdict(c, LDP_NOT_TESTABLE, "no Vulkan registry (--registry=PATH)");
        return;
    }
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    ldp_evidence(c, "registry: %s, VK_HEADER_VERSION %u, %zu extensions", reg->source, reg->header_version, reg->count);
    uint32_t ne = 0;
    VkExtensionProperties *ie = ldp_instance_extensions(&d, &ne);
    int fails = 0, warns = 0, total_dev = 0;
    char fail[800] = "", warn[800] = "";
    bool newer_driver =
        VK_API_VERSION_PATCH(d.api) > reg->header_version && MM(d.api) >= MM(VK_MAKE_API_VERSION(0, 1, 3, 0));
    for (int pass = 0; pass < 2; pass++) {
        /* pass 0: instance extensions; pass 1: device extensions of every device */
        VkInstance inst = VK_NULL_HANDLE;
        uint32_t npd = pass ? 0 : 1;
        VkPhysicalDevice *pds = NULL;
        if (pass == 1) {
            if (!make_instance(c, &d, NULL, 0, &inst)) {
                free(ie);
                return;
            }
            VkResult er;
            pds = physical_devices(c, &d, inst, &npd, &er);
        }
        for (uint32_t di = 0; di < npd; di++) {
            uint32_t n = ne;
            VkExtensionProperties *e = ie;
            char where[300] = "instance";
            if (pass == 1) {
                VkPhysicalDeviceProperties p;
                device_name(&d, inst, pds[di], &p);
                e = device_extensions(c, &d, inst, pds[di], &n);
                snprintf(where, sizeof where, "device %u '%s'", di, p.deviceName);
                total_dev += (int)n;
            }
            for (uint32_t i = 0; i < n; i++) {
                const char *name = e[i].extensionName;
                const struct ldp_registry_ext *re = ldp_registry_find(reg, name);
                if (re != NULL && re->published) continue;
                bool platform = (re != NULL && re->platform != NULL) || ldp_looks_like_platform_extension(name);
                const char *what = re == NULL ? "not in the registry" : "reserved/disabled in the registry";
                ldp_evidence(c, "%s extension %s: %s%s", where, name, what,
                             platform ? " (platform/WSI extension)" : "");
                if (platform && !(re == NULL && newer_driver)) {
                    if (fails++ == 0)
                        snprintf(fail, sizeof fail, "%s exposes the unpublished platform extension %s (%s)", where,
                                 name, what);
                } else if (warns++ == 0) {
                    if (re == NULL && newer_driver)
                        snprintf(warn, sizeof warn,
                                 "%s extension %s is not in the registry, which (header %u) is older than "
                                 "the driver (%u); use --registry with a newer vk.xml",
                                 where, name, reg->header_version, VK_API_VERSION_PATCH(d.api));
                    else
                        snprintf(warn, sizeof warn, "%s exposes %s, %s (not a platform extension, so advisory)", where,
                                 name, what);
                }
            }
            if (pass == 1) free(e);
        }
        free(pds);
        if (inst != VK_NULL_HANDLE) {
            PFN_vkDestroyInstance dinst = GET(&d, inst, vkDestroyInstance);
            if (dinst) dinst(inst, NULL);
        }
    }
    free(ie);
    ldp_evidence(c, "%u instance extensions, %d device extensions checked", ne, total_dev);
    verdict_first(c, fails ? fail : NULL, warns ? warn : NULL,
                  "all %u instance and %d device extensions are published in the registry", ne, total_dev);
}

/* ================================================================================================
 * Interface lints
 * ============================================================================================== */

static bool magic_ok(const void *obj) {
    uintptr_t w;
    memcpy(&w, obj, sizeof w);
    return (w & 0xffffffffu) == ICD_LOADER_MAGIC;
}

static void lint_loader_magic(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    if (d.iface < 2) {
        ldp_verdict(c, LDP_NA, "interface %u: ICD_LOADER_MAGIC is required from interface 2", d.iface);
        return;
    }
    VkInstance inst;
    if (!make_instance(c, &d, NULL, 0, &inst)) return;
    int checked = 0;
    char bad[800] = "";
#define MAGIC(obj, what)                                                                                               \
    do {                                                                                                               \
        checked++;                                                                                                     \
        if (!magic_ok((const void *)(obj)) && !bad[0]) {                                                               \
            uintptr_t w_;                                                                                              \
            memcpy(&w_, (const void *)(obj), sizeof w_);                                                               \
            snprintf(bad, sizeof bad, "%s %p starts with 0x%llx, not ICD_LOADER_MAGIC 0x%x", what,                     \
                     (const void *)(obj), (unsigned long long)w_, ICD_LOADER_MAGIC);                                   \
        }                                                                                                              \
    } while (0)
    MAGIC(inst, "VkInstance");
    uint32_t n = 0;
    VkResult er;
    VkPhysicalDevice *pds = physical_devices(c, &d, inst, &n, &er);
    for (uint32_t i = 0; i < n; i++) MAGIC(pds[i], "VkPhysicalDevice");
    if (n > 0) {
        PFN_vkCreateDevice cd = GET(&d, inst, vkCreateDevice);
        PFN_vkGetDeviceProcAddr gdpa = GET(&d, inst, vkGetDeviceProcAddr);
        VkDevice dev = VK_NULL_HANDLE;
        ldp_step(c, "vkCreateDevice");
        if (cd != NULL && gdpa != NULL && create_device_family0(cd, pds[0], &dev) == VK_SUCCESS) {
            MAGIC(dev, "VkDevice");
            PFN_vkGetDeviceQueue gq = (PFN_vkGetDeviceQueue)gdpa(dev, "vkGetDeviceQueue");
            PFN_vkCreateCommandPool ccp = (PFN_vkCreateCommandPool)gdpa(dev, "vkCreateCommandPool");
            PFN_vkAllocateCommandBuffers acb = (PFN_vkAllocateCommandBuffers)gdpa(dev, "vkAllocateCommandBuffers");
            PFN_vkDestroyCommandPool dcp = (PFN_vkDestroyCommandPool)gdpa(dev, "vkDestroyCommandPool");
            PFN_vkDestroyDevice dd = (PFN_vkDestroyDevice)gdpa(dev, "vkDestroyDevice");
            VkQueue queue = VK_NULL_HANDLE;
            ldp_step(c, "vkGetDeviceQueue");
            if (gq) gq(dev, 0, 0, &queue);
            if (queue != VK_NULL_HANDLE) MAGIC(queue, "VkQueue");
            VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = 0};
            VkCommandPool pool = VK_NULL_HANDLE;
            ldp_step(c, "vkCreateCommandPool / vkAllocateCommandBuffers");
            if (ccp && acb && ccp(dev, &pci, NULL, &pool) == VK_SUCCESS) {
                VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                                  .commandPool = pool,
                                                  .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                                  .commandBufferCount = 1};
                VkCommandBuffer cb = VK_NULL_HANDLE;
                if (acb(dev, &ai, &cb) == VK_SUCCESS && cb != VK_NULL_HANDLE) MAGIC(cb, "VkCommandBuffer");
                if (dcp) dcp(dev, pool, NULL);
            }
            ldp_step(c, "vkDestroyDevice");
            if (dd) dd(dev, NULL);
        }
    }
    free(pds);
#undef MAGIC
    ldp_evidence(c, "%d dispatchable objects checked (instance, %u physical devices%s)", checked, n,
                 n > 0 ? ", device, queue, command buffer" : "");
    if (bad[0])
        ldp_verdict(c, LDP_FAIL, "%s (dispatchable objects must start with ICD_LOADER_MAGIC from interface 2)", bad);
    else
        ldp_verdict(c, LDP_PASS, "every dispatchable object checked (%d) starts with ICD_LOADER_MAGIC", checked);
}

static void lint_gpdpa_null(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    if (d.gpdpa == NULL) {
        ldp_verdict(c, LDP_NA, "no vk_icdGetPhysicalDeviceProcAddr at interface %u (it is optional)", d.iface);
        return;
    }
    VkInstance inst;
    if (!make_instance(c, &d, NULL, 0, &inst)) return;
    static const char *const names[] = {"vkCreateInstance",
                                        "vkEnumerateInstanceExtensionProperties",
                                        "vkDestroyInstance",
                                        "vkEnumeratePhysicalDevices",
                                        "vkEnumeratePhysicalDeviceGroups",
                                        "vkGetDeviceProcAddr",
                                        "vkDestroyDevice",
                                        "vkGetDeviceQueue",
                                        "vkQueueSubmit",
                                        "vkCreateBuffer",
                                        "vkCmdDraw",
                                        "vkCreateCommandPool",
                                        LDP_UNKNOWN_FUNCTION};
    char bad[1500] = "";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        ldp_step(c, "vk_icdGetPhysicalDeviceProcAddr(instance, \"%s\")", names[i]);
        if (d.gpdpa(inst, names[i]) != NULL) list_add(bad, sizeof bad, names[i]);
    }
    ldp_step(c, "vk_icdGetPhysicalDeviceProcAddr(instance, \"vkGetPhysicalDeviceProperties\")");
    ldp_evidence(c, "vk_icdGetPhysicalDeviceProcAddr (%s): vkGetPhysicalDeviceProperties -> %s",
                 d.gpdpa_exported ? "exported" : "through vk_icdGetInstanceProcAddr",
                 d.gpdpa(inst, "vkGetPhysicalDeviceProperties") ? "non-NULL" : "NULL");
    if (bad[0])
        ldp_evidence(c, "non-NULL for: %s", bad);
    else
        ldp_evidence(c, "NULL for all %zu non-physical-device/unknown names", sizeof names / sizeof names[0]);
    if (bad[0])
        ldp_verdict(c, LDP_FAIL,
                    "vk_icdGetPhysicalDeviceProcAddr answers names that are not physical-device commands: %s", bad);
    else
        ldp_verdict(c, LDP_PASS,
                    "vk_icdGetPhysicalDeviceProcAddr returns NULL for instance, device, global and unknown names");
}

static void lint_gipa_null(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    char fail[800] = "", warn[800] = "";
    ldp_step(c, "vk_icdGetInstanceProcAddr(NULL, \"%s\")", LDP_UNKNOWN_FUNCTION);
    if (ldp_gipa(&d, VK_NULL_HANDLE, LDP_UNKNOWN_FUNCTION) != NULL)
        snprintf(fail, sizeof fail, "vk_icdGetInstanceProcAddr(NULL, \"%s\") is not NULL", LDP_UNKNOWN_FUNCTION);
    static const char *const non_global[] = {"vkCreateDevice", "vkDestroyInstance", "vkEnumeratePhysicalDevices",
                                             "vkGetPhysicalDeviceProperties", "vkCmdDraw"};
    char ng[600] = "";
    gipa_list(c, &d, VK_NULL_HANDLE, non_global, sizeof non_global / sizeof non_global[0], false, ng, sizeof ng);
    ldp_evidence(c, "NULL instance, non-global names answered: %s", ng[0] ? ng : "none");
    if (ng[0])
        snprintf(warn, sizeof warn,
                 "with a NULL instance it answers non-global names (%s); the Vulkan spec leaves this "
                 "undefined, NULL is expected",
                 ng);
    VkInstance inst;
    if (!make_instance(c, &d, NULL, 0, &inst)) return;
    ldp_step(c, "vk_icdGetInstanceProcAddr(instance, \"%s\")", LDP_UNKNOWN_FUNCTION);
    if (ldp_gipa(&d, inst, LDP_UNKNOWN_FUNCTION) != NULL && !fail[0])
        snprintf(fail, sizeof fail,
                 "vk_icdGetInstanceProcAddr(instance, \"%s\") is not NULL (unknown names must give NULL)",
                 LDP_UNKNOWN_FUNCTION);
    ldp_evidence(c, "unknown name with NULL and with an instance: %s", fail[0] ? "answered" : "NULL");
    /* The commands every loader looks up after vkCreateInstance; without one the Khronos loader and
     * ours drop the driver with a warning (RULE_DRV_REQUIRED_ENTRYPOINTS). */
    static const char *const required[] = {"vkDestroyInstance",
                                           "vkEnumeratePhysicalDevices",
                                           "vkGetPhysicalDeviceFeatures",
                                           "vkGetPhysicalDeviceFormatProperties",
                                           "vkGetPhysicalDeviceImageFormatProperties",
                                           "vkGetPhysicalDeviceProperties",
                                           "vkGetPhysicalDeviceQueueFamilyProperties",
                                           "vkGetPhysicalDeviceMemoryProperties",
                                           "vkGetDeviceProcAddr",
                                           "vkCreateDevice",
                                           "vkEnumerateDeviceExtensionProperties",
                                           "vkGetPhysicalDeviceSparseImageFormatProperties"};
    char missing[800] = "";
    gipa_list(c, &d, inst, required, sizeof required / sizeof required[0], true, missing, sizeof missing);
    ldp_evidence(c, "instance, the %zu commands a loader requires: %s%s", sizeof required / sizeof required[0],
                 missing[0] ? "NULL for " : "all answered", missing);
    if (missing[0] && !fail[0])
        snprintf(fail, sizeof fail,
                 "vk_icdGetInstanceProcAddr(instance, ...) is NULL for %s, which a loader requires "
                 "(loaders drop such a driver)",
                 missing);
    verdict_first(c, fail, warn,
                  "NULL for unknown names (NULL instance and instance) and for non-global names with a NULL "
                  "instance; every command a loader requires is answered");
}

static void lint_global_null_instance(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct ldp_drv d;
    if (!open_driver(c, LDP_MAX_OFFER, &d)) return;
    static const char *const names[] = {"vkCreateInstance", "vkEnumerateInstanceExtensionProperties",
                                        "vkEnumerateInstanceVersion", "vkEnumerateInstanceLayerProperties",
                                        "vkGetInstanceProcAddr"};
    bool have[5];
    for (int i = 0; i < 5; i++) {
        ldp_step(c, "vk_icdGetInstanceProcAddr(NULL, \"%s\")", names[i]);
        have[i] = ldp_gipa(&d, VK_NULL_HANDLE, names[i]) != NULL;
        ldp_evidence(c, "NULL instance: %s -> %s", names[i], have[i] ? "non-NULL" : "NULL");
    }
    char a[32];
    if (!have[0] || !have[1])
        ldp_verdict(c, LDP_FAIL, "%s is not queryable with a NULL instance (required of every driver)",
                    !have[0] ? "vkCreateInstance" : "vkEnumerateInstanceExtensionProperties");
    else if (!have[2] && MM(c->drv->m.api_version) >= VK_API_VERSION_1_1)
        ldp_verdict(c, LDP_WARN,
                    "the manifest says Vulkan %s but vkEnumerateInstanceVersion is not queryable with a NULL "
                    "instance, so loaders treat the driver as Vulkan 1.0",
                    vs(c->drv->m.api_version, a));
    else
        ldp_verdict(c, LDP_PASS, "the global commands are queryable with a NULL instance");
}

static void lint_vk_exports(struct ldp_ctx *c, void *arg) {
    (void)arg;
    const char *lib = c->drv->m.library_path;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", lib);
    if (c->drv->m.library_path_is_bare_name) {
        ldp_step(c, "dlopen(%s)", lib);
        void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
        struct link_map *lm = NULL;
        if (h == NULL || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || lm == NULL) {
            ldp_verdict(c, LDP_NOT_TESTABLE, "the library cannot be located (see LDP_DRIVER_4)");
            return;
        }
        snprintf(path, sizeof path, "%s", lm->l_name);
    }
    struct ldp_elf e;
    char err[600];
    if (ldp_elf_inspect(path, &e, err, sizeof err) != 0 || !e.have_symbols) {
        ldp_evidence(c, "%s", err[0] ? err : "no dynamic symbol table found");
        ldp_verdict(c, LDP_NOT_TESTABLE, "cannot read the library's dynamic symbols");
        ldp_elf_free(&e);
        return;
    }
    char list[1500] = "";
    for (size_t i = 0; i < e.vk_export_count && strlen(list) < 1200; i++) list_add(list, sizeof list, e.vk_exports[i]);
    ldp_evidence(c,
                 "%s: %zu exported vk* functions%s%s; -Bsymbolic (DT_SYMBOLIC/DF_SYMBOLIC): %s; exported vk* "
                 "functions the library references through its own dynamic relocations: %zu",
                 path, e.vk_export_count, e.vk_export_count ? ": " : "", list, e.symbolic ? "yes" : "no",
                 e.self_referenced);
    if (e.vk_export_count == 0)
        ldp_verdict(c, LDP_PASS, "exports no standard vk* functions");
    else if (e.symbolic)
        ldp_verdict(c, LDP_PASS, "exports %zu standard vk* functions and is linked with -Bsymbolic", e.vk_export_count);
    else
        ldp_verdict(c, LDP_WARN,
                    "exports %zu standard vk* functions without -Bsymbolic (%zu of them interposable from its own "
                    "code); advisory since LDP_DRIVER_6 was removed, but the interface document still asks "
                    "for -Bsymbolic when official names are exported",
                    e.vk_export_count, e.self_referenced);
    ldp_elf_free(&e);
}

const struct ldp_check_def ldp_checks[] = {
    {"LDP_DRIVER_1", "ldp_driver_1_coexistence",
     "beside the mock ICD through the reference loader, the mock stays intact", check_coexistence, 3, true},
    {"LDP_DRIVER_2", "ldp_driver_2_zero_devices", "every instance/physical-device query survives (zero devices too)",
     check_zero_devices, 0, true},
    {"LDP_DRIVER_3", "ldp_driver_3_negotiation", "interface negotiation with every offered version 7..0",
     check_negotiation, 17, true},
    {"LDP_DRIVER_4", "ldp_driver_4_manifest", "well-formed .json manifest naming a loadable library of the right class",
     check_manifest, 0, false},
    {"LDP_DRIVER_5", "ldp_driver_5_conformance_version", "reported conformanceVersion (information)",
     check_conformance_version, 0, true},
    {"LDP_DRIVER_6", "", "removed policy (formerly: no exported standard vk* entry points)", NULL, 0, false},
    {"LDP_DRIVER_7", "ldp_driver_7_api_needs_iface5", "Vulkan >= 1.1 needs interface >= 5", check_api_needs_iface5, 0,
     true},
    {"LDP_DRIVER_8", "ldp_driver_8_own_surfaces", "own surfaces need interface >= 3 and every surface function",
     check_own_surfaces, 2, true},
    {"LDP_DRIVER_9", "ldp_driver_9_iface4_rejects_api", "at interface <= 4 an unsupported apiVersion is refused",
     check_iface4_rejects_api, 0, true},
    {"LDP_DRIVER_10", "ldp_driver_10_iface5_ignores_api", "at interface >= 5 the apiVersion is not refused",
     check_iface5_ignores_api, 0, true},
    {"LDP_DRIVER_11", "ldp_driver_11_stale_manifest", "the library exists and is the one the manifest describes",
     check_stale_manifest, 0, false},
    {"LDP_DRIVER_12", "ldp_driver_12_unpublished_extensions", "every exposed extension is published in vk.xml",
     check_unpublished_extensions, 0, true},
    {"LINT_LOADER_MAGIC", "lint_loader_magic", "dispatchable objects start with ICD_LOADER_MAGIC", lint_loader_magic, 0,
     true},
    {"LINT_GPDPA_NULL", "lint_gpdpa_null", "vk_icdGetPhysicalDeviceProcAddr: NULL for non-physical-device names",
     lint_gpdpa_null, 0, true},
    {"LINT_GIPA_NULL", "lint_gipa_null",
     "vk_icdGetInstanceProcAddr: NULL for unknown names, the loader's required commands answered", lint_gipa_null, 0,
     true},
    {"LINT_GLOBAL_NULL_INSTANCE", "lint_global_null_instance", "global commands queryable with a NULL instance",
     lint_global_null_instance, 0, true},
    {"LINT_VK_EXPORTS", "lint_vk_exports_bsymbolic", "exported standard vk* symbols need -Bsymbolic (advisory)",
     lint_vk_exports, 0, true},
};
const size_t ldp_check_count = sizeof ldp_checks / sizeof ldp_checks[0];
