/* ldp-check: the table of checks (ldp_checks[]) and the helpers the checks share. Each check runs in
 * its own forked child (main.c / runner.c) and ends with one verdict; docs/ldp-check.md describes
 * what each one does. The checks are in checks_*.c (checks_internal.h). */
#include "conformance/driver/checks_internal.h"

const char *vs(uint32_t v, char *buf) {
    ldp_version_str(v, buf, 32);
    return buf;
}

bool open_driver(struct ldp_ctx *c, uint32_t offer, struct ldp_drv *d) {
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
bool make_instance(struct ldp_ctx *c, struct ldp_drv *d, const char *const *exts, uint32_t n, VkInstance *inst) {
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

VkPhysicalDevice *physical_devices(struct ldp_ctx *c, struct ldp_drv *d, VkInstance inst, uint32_t *n, VkResult *res) {
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
    uint32_t asked = count;
    *res = epd(inst, &count, pds);
    if (*res != VK_SUCCESS && *res != VK_INCOMPLETE) {
        free(pds);
        return NULL;
    }
    /* a driver that lies (LINT_UNTRUSTED_ANSWERS) must not break the other checks: the slack above
     * catches a write past the array, the count is cut to it, NULL handles are left out */
    if (count > asked) count = asked;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < count; i++)
        if (pds[i] != VK_NULL_HANDLE) pds[kept++] = pds[i];
    *n = kept;
    return pds;
}

VkExtensionProperties *device_extensions(struct ldp_ctx *c, struct ldp_drv *d, VkInstance inst, VkPhysicalDevice pd,
                                         uint32_t *n) {
    *n = 0;
    PFN_vkEnumerateDeviceExtensionProperties e = GET(d, inst, vkEnumerateDeviceExtensionProperties);
    if (e == NULL) return NULL;
    ldp_step(c, "vkEnumerateDeviceExtensionProperties(count)");
    uint32_t count = 0;
    if (e(pd, NULL, &count, NULL) != VK_SUCCESS || count == 0) return NULL;
    VkExtensionProperties *p = calloc((size_t)count + 1, sizeof(*p)); /* slack: see physical_devices */
    if (p == NULL) return NULL;
    ldp_step(c, "vkEnumerateDeviceExtensionProperties(array of %u)", count);
    uint32_t asked = count;
    VkResult r = e(pd, NULL, &count, p);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        free(p);
        return NULL;
    }
    if (count > asked) count = asked;
    for (uint32_t i = 0; i < count; i++) p[i].extensionName[VK_MAX_EXTENSION_NAME_SIZE - 1] = '\0';
    *n = count;
    return p;
}

void device_name(struct ldp_drv *d, VkInstance inst, VkPhysicalDevice pd, VkPhysicalDeviceProperties *out) {
    memset(out, 0, sizeof(*out));
    PFN_vkGetPhysicalDeviceProperties gp = GET(d, inst, vkGetPhysicalDeviceProperties);
    if (gp != NULL) gp(pd, out);
}

/* Whether the driver lists the instance extension name. */
bool instance_has_ext(struct ldp_drv *d, const char *name) {
    uint32_t ne = 0;
    VkExtensionProperties *e = ldp_instance_extensions(d, &ne);
    bool has = ldp_has_ext(e, ne, name);
    free(e);
    return has;
}

/* vkCreateDevice with one queue of family 0 and nothing enabled (the caller names the step). */
VkResult create_device_family0(PFN_vkCreateDevice cd, VkPhysicalDevice pd, VkDevice *dev) {
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
void list_add(char *list, size_t size, const char *item) {
    strncat(list, list[0] ? ", " : "", size - strlen(list) - 1);
    strncat(list, item, size - strlen(list) - 1);
}

/* Asks vk_icdGetInstanceProcAddr(inst, name) for each of the n names (one step each) and lists in
 * list those it answers NULL for (want_null) or non-NULL for (!want_null). */
void gipa_list(struct ldp_ctx *c, struct ldp_drv *d, VkInstance inst, const char *const *names, size_t n,
               bool want_null, char *list, size_t size) {
    for (size_t i = 0; i < n; i++) {
        ldp_step(c, "vk_icdGetInstanceProcAddr(%s, \"%s\")", inst == VK_NULL_HANDLE ? "NULL" : "instance", names[i]);
        if ((ldp_gipa(d, inst, names[i]) == NULL) == want_null) list_add(list, size, names[i]);
    }
}

/* The verdict of a check that kept its first failure and first warning (NULL or "" when there is
 * none): FAIL with the failure, else WARN with the warning, else PASS with pass_fmt. */
void verdict_first(struct ldp_ctx *c, const char *fail, const char *warn, const char *pass_fmt, ...) {
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
bool probe_failed(const struct ldp_child *ch, char *buf, size_t len) {
    if (ch->kind == LDP_EXITED && ch->code == 0) return false;
    ldp_child_describe(ch, buf, len);
    return true;
}

/* A probe child that reported key (why it could not use the driver) makes the check not testable:
 * true with the evidence (prefix and the report) and the verdict given and the child freed. */
bool probe_not_testable(struct ldp_ctx *c, struct ldp_child *ch, const char *key, char *buf, size_t len,
                        const char *prefix, const char *why) {
    if (ldp_child_get(ch, key, buf, len) == NULL) return false;
    ldp_evidence(c, "%s%s", prefix, buf);
    ldp_verdict(c, LDP_NOT_TESTABLE, "%s", why);
    ldp_child_free(ch);
    return true;
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
    {"LINT_UNTRUSTED_ANSWERS", "lint_untrusted_answers",
     "counts, arrays, device groups, names and handles keep to the protocol (drivers that lie)", lint_untrusted_answers,
     0, true},
};
const size_t ldp_check_count = sizeof ldp_checks / sizeof ldp_checks[0];
