/* ldp-check: the checks of the loader/driver interface version: negotiation (LDP_DRIVER_3) and what
 * each version requires (LDP_DRIVER_7, LDP_DRIVER_8, LDP_DRIVER_9 / 10). */
#include "conformance/driver/checks_internal.h"

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

void check_negotiation(struct ldp_ctx *c, void *arg) {
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

void check_api_needs_iface5(struct ldp_ctx *c, void *arg) {
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

void check_own_surfaces(struct ldp_ctx *c, void *arg) {
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

void check_iface4_rejects_api(struct ldp_ctx *c, void *arg) {
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

void check_iface5_ignores_api(struct ldp_ctx *c, void *arg) {
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
