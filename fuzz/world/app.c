/*
 * The application of the whole-loader fuzz targets (fuzz/FRAMING.md "What a world run does"): its
 * debug callbacks, the instance-level calls (extensions, layers, version, vkCreateInstance), the
 * physical devices, a device and its commands, unknown functions and surfaces, each checked as it
 * runs (CHECK) and observed for the allocation-failure oracle (harness.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "fuzz/world/app_internal.h"
#include "fuzz/world/world.h"

/* ------------------------------------------------------------------------------------------ */
/* Debug callbacks                                                                             */

static unsigned g_messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL utils_cb(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                               VkDebugUtilsMessageTypeFlagsEXT types,
                                               const VkDebugUtilsMessengerCallbackDataEXT *data, void *ud) {
    (void)types;
    CHECK(ud == (void *)&g_messages, "debug-utils callback with the wrong pUserData");
    CHECK(data != NULL && data->sType == VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT,
          "debug-utils callback data");
    CHECK(data->pMessage != NULL, "debug-utils callback without pMessage");
    CHECK(sev != 0 && (sev & (sev - 1)) == 0, "debug-utils callback severity 0x%x", (unsigned)sev);
    (void)strlen(data->pMessage);
    g_messages++;
    return VK_FALSE;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL report_cb(VkDebugReportFlagsEXT flags, VkDebugReportObjectTypeEXT type,
                                                uint64_t object, size_t location, int32_t code, const char *prefix,
                                                const char *msg, void *ud) {
    (void)flags, (void)type, (void)object, (void)location, (void)code;
    CHECK(ud == (void *)&g_messages, "debug-report callback with the wrong pUserData");
    CHECK(msg != NULL, "debug-report callback without a message");
    (void)strlen(msg);
    if (prefix) (void)strlen(prefix);
    g_messages++;
    return VK_FALSE;
}

/* ------------------------------------------------------------------------------------------ */
/* The application                                                                             */

/* `layer_ext`: an extension name the answer may hold more than once (NULL: none). */
static void check_ext_list(const VkExtensionProperties *p, uint32_t n, const char *layer_ext) {
    for (uint32_t i = 0; i < n; i++) {
        CHECK(memchr(p[i].extensionName, 0, VK_MAX_EXTENSION_NAME_SIZE) != NULL, "extension name not NUL-terminated");
        if (layer_ext != NULL && strcmp(p[i].extensionName, layer_ext) == 0) continue;
        for (uint32_t j = 0; j < i; j++)
            CHECK(strcmp(p[i].extensionName, p[j].extensionName) != 0, "extension %s listed twice", p[i].extensionName);
    }
}

/* The extension the mock layers' pre-instance vkEnumerateInstanceExtensionProperties append
 * (world_build.c), when two or more layers of the world do: each appends it to what the layers below
 * answered, and the loader returns the top layer's answer as it is ([Lyr] pre-instance
 * functions), so the name may come more than once. */
static const char *pre_instance_dup_ext(const struct world *w) {
    unsigned adders = 0;
    for (uint32_t i = 0; i < w->nlayers; i++) adders += w->l[i].pre_instance && w->l[i].pre_add_extension;
    return adders > 1 ? "VK_EXT_fuzz_layer_extension" : NULL;
}

/* Two-call enumeration of instance extensions, optionally with a short array. */
static void enumerate_instance_extensions(const struct world *w) {
    uint32_t n = 0;
    mf_begin(WC_EIEP);
    VkResult r = vkEnumerateInstanceExtensionProperties(w->eiep_layer, &n, NULL);
    bool inj = mf_end();
    if (r != VK_SUCCESS) {
        obs_set(O_EIEP, r, inj);
        return;
    }
    CHECK(n < 4096, "absurd extension count %u", n);
    uint32_t ask = (w->eiep_short && n > 0) ? n - 1 : n;
    VkExtensionProperties *p = calloc(n + 1, sizeof(*p));
    if (p == NULL) return;
    uint32_t got = ask;
    mf_begin(WC_EIEP);
    r = vkEnumerateInstanceExtensionProperties(w->eiep_layer, &got, p);
    inj |= mf_end();
    obs_set(O_EIEP, r, inj);
    CHECK(got <= ask, "vkEnumerateInstanceExtensionProperties wrote %u of %u", got, ask);
    if (r == VK_SUCCESS || r == VK_INCOMPLETE) {
        if (ask < n) CHECK(r == VK_INCOMPLETE, "short array without VK_INCOMPLETE");
        check_ext_list(p, got, w->eiep_layer == NULL ? pre_instance_dup_ext(w) : NULL);
        obs_add(O_EIEP, "%u of %u:", got, n);
        for (uint32_t i = 0; i < got; i++) obs_add(O_EIEP, " %s", p[i].extensionName);
    }
    free(p);
}

static void enumerate_instance_layers(void) {
    uint32_t n = 0;
    mf_begin(WC_EILP);
    VkResult r = vkEnumerateInstanceLayerProperties(&n, NULL);
    bool inj = mf_end();
    if (r != VK_SUCCESS || n == 0 || n > 4096) {
        obs_set(O_EILP, r, inj);
        obs_add(O_EILP, "%u", r == VK_SUCCESS ? n : 0);
        return;
    }
    VkLayerProperties *p = calloc(n, sizeof(*p));
    if (p == NULL) return;
    uint32_t got = n;
    mf_begin(WC_EILP);
    r = vkEnumerateInstanceLayerProperties(&got, p);
    inj |= mf_end();
    obs_set(O_EILP, r, inj);
    CHECK(got <= n, "vkEnumerateInstanceLayerProperties wrote %u of %u", got, n);
    if (r == VK_SUCCESS || r == VK_INCOMPLETE) {
        obs_add(O_EILP, "%u:", got);
        for (uint32_t i = 0; i < got; i++) {
            CHECK(memchr(p[i].layerName, 0, sizeof p[i].layerName) != NULL, "layer name not NUL-terminated");
            obs_add(O_EILP, " %s", p[i].layerName);
        }
    }
    free(p);
}

/* A mock layer's vkCreateInstance ran: layers may wrap handles or answer NULL for commands they
 * cannot unwrap (mock_layers/README.md), so the exact answers of unknown functions are not checked. */
bool g_layers_active;

static void call_unknown_physdev(VkInstance inst, VkPhysicalDevice pd, const VkPhysicalDeviceProperties *props,
                                 const struct world *w) {
    if (g_layers_active) return;
    /* device_id encodes (slot << 8) | (index + 1) (world_build.c); only call what that physical
     * device's driver serves: calling a command its driver lacks is a usage error the loader
     * answers with abort() by design (unknown_func.c). */
    uint32_t slot = props->deviceID >> 8;
    if (props->vendorID != 0x10000u + slot || slot >= w->ndrivers) return;
    const struct w_scenario *sc = &w->d[slot].sc;
    if (sc->misbehave & (1u << 2)) return; /* gpdpa_answers_everything renumbers pool slots */
    /* The loader asks vk_icdGetPhysicalDeviceProcAddr at interface >= 4 only; variants without one
     * (or v7 with it only behind vk_icdGetInstanceProcAddr at a lower interface) cannot serve. */
    struct w_records *rec = oracle_read(w);
    int iface = oracle_slot_interface(rec, slot);
    oracle_free(rec);
    const struct vkl_mock_icd_variant *v = world_variant(w->d[slot].variant);
    bool exported = v->gpdpa == VKL_MOCK_ICD_GPDPA_EXPORT;
    bool via_gipa = v->gpdpa == VKL_MOCK_ICD_GPDPA_GIPA;
    if (iface < 4 || !(exported || (via_gipa && iface >= 7))) return;
    for (uint32_t i = 0; i < sc->pd_funcs; i++) {
        char name[64];
        snprintf(name, sizeof name, "vkFuzzPhysDevFunc%u", i);
        mf_begin(WC_GPA);
        PFN_vkVoidFunction f = vkGetInstanceProcAddr(inst, name);
        /* The first lookup of an unknown name copies it into the instance (its slot) through the
         * application's allocator; vkGetInstanceProcAddr has no error code, so an injected
         * allocation failure (pAllocator or malloc) there legitimately reads NULL. */
        if (mf_end() && f == NULL) return;
        CHECK(f != NULL, "vkGetInstanceProcAddr(%s) is NULL although driver %u serves it", name, slot);
        uint32_t (*fn)(VkPhysicalDevice, uint32_t) = (uint32_t(*)(VkPhysicalDevice, uint32_t))f;
        uint32_t x = 7u + i;
        mf_begin(WC_OTHER);
        uint32_t got = fn(pd, x);
        mf_end();
        /* physical-device pool slot n returns x + 20000 + n (mock_icd/README.md): the loader's
         * trampoline and terminator must pass the call through to the driver's own function with
         * the driver's handle */
        CHECK(got == x + 20000u + i, "unknown physical-device function %s returned %u, expected %u", name, got,
              x + 20000u + i);
    }
}

static void run_device(const struct world *w, VkInstance inst, VkPhysicalDevice pd, const VkAllocationCallbacks *cb) {
    uint32_t nq = 0;
    mf_begin(WC_OTHER);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, NULL);
    mf_end();
    CHECK(nq < 1024, "absurd queue family count %u", nq);
    VkQueueFamilyProperties *qf = calloc(nq + 1, sizeof(*qf));
    if (qf == NULL) return;
    mf_begin(WC_OTHER);
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, qf);
    mf_end();

    uint32_t ne = 0;
    mf_begin(WC_EDEP);
    VkResult er = vkEnumerateDeviceExtensionProperties(pd, NULL, &ne, NULL);
    bool einj = mf_end();
    if (er == VK_SUCCESS && ne < 4096) {
        VkExtensionProperties *e = calloc(ne + 1, sizeof(*e));
        if (e) {
            mf_begin(WC_EDEP);
            er = vkEnumerateDeviceExtensionProperties(pd, NULL, &ne, e);
            einj |= mf_end();
            if (er == VK_SUCCESS || er == VK_INCOMPLETE) {
                check_ext_list(e, ne, NULL);
                obs_add(O_EDEP, "%u:", ne);
                for (uint32_t i = 0; i < ne; i++) obs_add(O_EDEP, " %s", e[i].extensionName);
            }
            free(e);
        }
    }
    obs_set(O_EDEP, er, einj);
    if (w->devext_with_layer) {
        uint32_t n2 = 0;
        mf_begin(WC_EDEP);
        vkEnumerateDeviceExtensionProperties(pd, w->lookup_name, &n2, NULL);
        mf_end();
    }
    uint32_t nl = 0;
    mf_begin(WC_EDLP);
    vkEnumerateDeviceLayerProperties(pd, &nl, NULL);
    mf_end();

    if (!w->create_device) {
        free(qf);
        return;
    }
    float prio[4] = {1.0f, 0.5f, 0.25f, 0.0f};
    VkDeviceQueueCreateInfo qci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
        .queueFamilyIndex = w->queue_family,
        .queueCount = w->queue_count,
        .pQueuePriorities = prio,
    };
    VkDeviceCreateInfo dci = {
        .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
        .queueCreateInfoCount = 1,
        .pQueueCreateInfos = &qci,
        .enabledExtensionCount = w->dev_ext_count,
        .ppEnabledExtensionNames = (const char *const *)w->dev_ext,
    };
    VkDevice dev = VK_NULL_HANDLE;
    mf_begin(WC_CREATE_DEVICE);
    VkResult r = vkCreateDevice(pd, &dci, cb, &dev);
    obs_set(O_CREATE_DEVICE, r, mf_end());
    g_world_app.device_attempted = true;
    g_world_app.create_device = r;
    if (r == VK_SUCCESS) {
        CHECK(dev != VK_NULL_HANDLE, "vkCreateDevice succeeded without a device");
        VkQueue q = VK_NULL_HANDLE;
        mf_begin(WC_OTHER);
        vkGetDeviceQueue(dev, w->queue_family, 0, &q);
        mf_end();
        mf_begin(WC_GPA);
        PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)vkGetDeviceProcAddr(dev, "vkDestroyDevice");
        CHECK(destroy != NULL, "vkGetDeviceProcAddr(vkDestroyDevice) is NULL");
        if (w->lookup_name) (void)vkGetDeviceProcAddr(dev, w->lookup_name);
        (void)vkGetDeviceProcAddr(dev, "vkCreateInstance"); /* must be NULL or harmless */
        (void)vkGetDeviceProcAddr(dev, "vkMockUnknownDeviceFunc0");
        mf_end();
        if (w->unknown_device_calls) {
            for (uint32_t i = 0; i < 3; i++) {
                char name[64];
                snprintf(name, sizeof name, "vkFuzzDeviceFunc%u", i);
                mf_begin(WC_GPA);
                PFN_vkVoidFunction f = vkGetDeviceProcAddr(dev, name);
                mf_end();
                if (f == NULL) continue;
                uint32_t (*fn)(VkDevice, uint32_t) = (uint32_t(*)(VkDevice, uint32_t))f;
                mf_begin(WC_OTHER);
                uint32_t got = fn(dev, 5u + i);
                mf_end();
                /* device slot n returns x + 10000 + n (mock_icd/README.md): the loader passes the
                 * call straight to the driver's own function */
                CHECK(g_layers_active || got == 5u + i + 10000u + i, "unknown device function %s returned %u", name,
                      got);
            }
        }
        mf_begin(WC_DESTROY_DEVICE);
        destroy(dev, cb);
        mf_end();
    } else {
        CHECK(dev == VK_NULL_HANDLE || r < 0, "vkCreateDevice failed but returned a device");
    }
    (void)inst;
    free(qf);
}

/* VkXcbSurfaceCreateInfoKHR without <xcb/xcb.h>: the loader and the mocks only store the
 * connection and window (never used). */
struct fz_xcb_surface_ci {
    VkStructureType sType;
    const void *pNext;
    VkFlags flags;
    void *connection;
    uint32_t window;
};
typedef VkResult(VKAPI_PTR *fz_pfn_create_xcb)(VkInstance, const struct fz_xcb_surface_ci *,
                                               const VkAllocationCallbacks *, VkSurfaceKHR *);

/* LDP_LOADER_10/11: one surface, queried on every physical device (the oracle reads which handle
 * each driver received, oracle_check_final). */
static void run_surface(const struct world *w, VkInstance inst, const VkPhysicalDevice *pds, uint32_t n,
                        const VkAllocationCallbacks *cb) {
    if (!w->surface) return;
    mf_begin(WC_GPA);
    fz_pfn_create_xcb create = (fz_pfn_create_xcb)vkGetInstanceProcAddr(inst, "vkCreateXcbSurfaceKHR");
    PFN_vkDestroySurfaceKHR destroy = (PFN_vkDestroySurfaceKHR)vkGetInstanceProcAddr(inst, "vkDestroySurfaceKHR");
    PFN_vkGetPhysicalDeviceSurfaceSupportKHR support =
        (PFN_vkGetPhysicalDeviceSurfaceSupportKHR)vkGetInstanceProcAddr(inst, "vkGetPhysicalDeviceSurfaceSupportKHR");
    mf_end();
    if (create == NULL || destroy == NULL || support == NULL) {
        /* a layer that answered vkCreateInstance without calling down leaves those dispatch slots
         * empty, and vkGetInstanceProcAddr then rightly answers NULL (CommandsTheChainLacksAreNull) */
        CHECK(g_layers_active, "VK_KHR_surface and VK_KHR_xcb_surface are enabled but vkGetInstanceProcAddr gives no "
                               "vkCreateXcbSurfaceKHR / vkDestroySurfaceKHR / vkGetPhysicalDeviceSurfaceSupportKHR");
        return;
    }
    struct fz_xcb_surface_ci ci = {
        .sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
        .connection = (void *)(uintptr_t)0x5ca1ab1e,
        .window = 42,
    };
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    mf_begin(WC_SURFACE);
    VkResult r = create(inst, &ci, cb, &surface);
    bool inj = mf_end();
    obs_set(O_SURFACE, r, inj);
    if (r != VK_SUCCESS) return;
    /* With layers the pointer may be a layer's, and a misbehaving one (return_disabled_functions
     * answers any KHR name with an unrelated function, an LLP_LAYER_18 violation) "succeeds" without
     * the loader in the call: only the loader's own answer must carry a surface. */
    CHECK(surface != VK_NULL_HANDLE || g_layers_active, "vkCreateXcbSurfaceKHR succeeded without a surface");
    if (surface == VK_NULL_HANDLE) return;
    for (uint32_t i = 0; i < n && i < 8; i++) {
        VkBool32 ok = VK_FALSE;
        mf_begin(WC_SURFACE);
        VkResult sr = support(pds[i], 0, surface, &ok);
        bool qinj = mf_end(); /* an injected malloc or pAllocator failure */
        inj |= qinj;
        obs_add(O_SURFACE, " %d/%u", (int)sr, (unsigned)ok);
        g_world_app.surface_result[i] = sr;
        g_world_app.surface_injected[i] = qinj;
    }
    g_world_app.surface_queried = true;
    obs_set(O_SURFACE, r, inj);
    mf_begin(WC_SURFACE);
    destroy(inst, surface, cb);
    mf_end();
}

static void run_instance(const struct world *w, VkInstance inst, const VkAllocationCallbacks *cb) {
    mf_begin(WC_GPA);
    CHECK(vkGetInstanceProcAddr(inst, "vkDestroyInstance") != NULL, "no vkDestroyInstance");
    if (w->lookup_name) (void)vkGetInstanceProcAddr(inst, w->lookup_name);
    mf_end();

    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    PFN_vkCreateDebugUtilsMessengerEXT create_m = NULL;
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_m = NULL;
    bool utils_enabled = false;
    for (uint32_t i = 0; i < w->app_ext_count; i++)
        utils_enabled |= w->app_ext[i] && strcmp(w->app_ext[i], "VK_EXT_debug_utils") == 0;
    if (w->app_messenger && utils_enabled) {
        mf_begin(WC_GPA);
        create_m = (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkCreateDebugUtilsMessengerEXT");
        destroy_m = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(inst, "vkDestroyDebugUtilsMessengerEXT");
        mf_end();
        if (create_m && destroy_m) {
            VkDebugUtilsMessengerCreateInfoEXT mci = {
                .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
                .messageSeverity = w->msg_severity,
                .messageType = w->msg_types,
                .pfnUserCallback = utils_cb,
                .pUserData = &g_messages,
            };
            mf_begin(WC_MESSENGER);
            if (create_m(inst, &mci, cb, &messenger) != VK_SUCCESS) messenger = VK_NULL_HANDLE;
            mf_end();
        }
    }

    uint32_t n = 0;
    mf_begin(WC_EPD);
    VkResult r = vkEnumeratePhysicalDevices(inst, &n, NULL);
    bool pinj = mf_end();
    obs_set(O_EPD, r, pinj);
    VkPhysicalDevice *pds = NULL;
    if (r == VK_SUCCESS && n > 0) {
        CHECK(n < 1024, "absurd physical device count %u", n);
        pds = calloc(n, sizeof(*pds));
        if (pds == NULL) goto out;
        uint32_t ask = (w->pd_short && n > 1) ? n - 1 : n;
        uint32_t got = ask;
        mf_begin(WC_EPD);
        r = vkEnumeratePhysicalDevices(inst, &got, pds);
        pinj |= mf_end();
        obs_set(O_EPD, r, pinj);
        obs_add(O_EPD, "%u of %u:", got, n);
        CHECK(got <= ask, "vkEnumeratePhysicalDevices wrote %u of %u", got, ask);
        if (r == VK_SUCCESS || r == VK_INCOMPLETE) {
            if (ask < n && r == VK_SUCCESS) CHECK(got == ask, "short array, VK_SUCCESS, %u", got);
            for (uint32_t i = 0; i < got; i++) {
                CHECK(pds[i] != VK_NULL_HANDLE, "NULL physical device");
                for (uint32_t j = 0; j < i; j++) CHECK(pds[i] != pds[j], "physical device listed twice");
            }
            n = got;
        } else {
            n = 0;
        }
    } else {
        n = 0;
    }

    for (uint32_t i = 0; i < n && i < 8; i++) {
        VkPhysicalDeviceProperties props;
        memset(&props, 0, sizeof props);
        mf_begin(WC_OTHER);
        vkGetPhysicalDeviceProperties(pds[i], &props);
        mf_end();
        CHECK(memchr(props.deviceName, 0, sizeof props.deviceName) != NULL, "deviceName not terminated");
        obs_add(O_EPD, " %x:%x", props.vendorID, props.deviceID);
        g_world_app.pd_vendor[i] = props.vendorID;
        g_world_app.pd_device[i] = props.deviceID;
        g_world_app.npd = i + 1;
        VkPhysicalDeviceFeatures feats;
        VkPhysicalDeviceMemoryProperties mem;
        mf_begin(WC_OTHER);
        vkGetPhysicalDeviceFeatures(pds[i], &feats);
        vkGetPhysicalDeviceMemoryProperties(pds[i], &mem);
        mf_end();
        if (w->unknown_physdev_calls) call_unknown_physdev(inst, pds[i], &props, w);
    }

    if (w->enum_groups) {
        bool allowed = w->api_version >= VK_API_VERSION_1_1;
        for (uint32_t i = 0; i < w->app_ext_count && !allowed; i++)
            allowed = w->app_ext[i] && strcmp(w->app_ext[i], "VK_KHR_device_group_creation") == 0;
        mf_begin(WC_GPA);
        PFN_vkEnumeratePhysicalDeviceGroups groups =
            (PFN_vkEnumeratePhysicalDeviceGroups)vkGetInstanceProcAddr(inst, "vkEnumeratePhysicalDeviceGroups");
        mf_end();
        if (allowed && groups != NULL) {
            uint32_t ng = 0;
            mf_begin(WC_GROUPS);
            VkResult gr = groups(inst, &ng, NULL);
            bool ginj = mf_end();
            obs_set(O_GROUPS, gr, ginj);
            obs_add(O_GROUPS, "%u", gr == VK_SUCCESS ? ng : 0);
            if (gr == VK_SUCCESS && ng > 0 && ng < 1024) {
                VkPhysicalDeviceGroupProperties *g = calloc(ng, sizeof(*g));
                if (g) {
                    for (uint32_t i = 0; i < ng; i++) g[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
                    uint32_t got = ng;
                    mf_begin(WC_GROUPS);
                    gr = groups(inst, &got, g);
                    ginj |= mf_end();
                    obs_set(O_GROUPS, gr, ginj);
                    if (gr == VK_SUCCESS || gr == VK_INCOMPLETE) {
                        CHECK(got <= ng, "vkEnumeratePhysicalDeviceGroups wrote %u of %u", got, ng);
                        obs_add(O_GROUPS, " %u:", got);
                        for (uint32_t i = 0; i < got; i++) {
                            obs_add(O_GROUPS, " %u", g[i].physicalDeviceCount);
                            CHECK(g[i].physicalDeviceCount >= 1 && g[i].physicalDeviceCount <= VK_MAX_DEVICE_GROUP_SIZE,
                                  "group %u has %u devices", i, g[i].physicalDeviceCount);
                            for (uint32_t k = 0; k < g[i].physicalDeviceCount; k++)
                                CHECK(g[i].physicalDevices[k] != VK_NULL_HANDLE, "NULL device in group");
                        }
                    }
                    free(g);
                }
            }
        }
    }

    run_surface(w, inst, pds, n, cb);
    if (n > 0) run_device(w, inst, pds[w->pd_choice % n], cb);

out:
    mf_begin(WC_MESSENGER);
    if (messenger != VK_NULL_HANDLE) destroy_m(inst, messenger, cb);
    mf_end();
    free(pds);
}

struct world_app_result g_world_app;

/* `inject`: this run injects the world's allocation failures (pAllocator and malloc); the others
 * of a comparison run none. `o` receives what the application saw (may be NULL). */
void run_app(const struct world *w, bool inject, struct obs *o) {
    memset(&g_world_app, 0, sizeof g_world_app);
    g_world_app.create_instance = VK_RESULT_MAX_ENUM;
    const VkAllocationCallbacks *cb = w->use_allocator ? &k_callbacks : NULL;
    memset(&g_alloc, 0, sizeof g_alloc);
    g_alloc.fail_at = w->use_allocator && inject ? w->alloc_fail_at : 0;
    memset(&g_mf, 0, sizeof g_mf);
    g_mf.w = inject && w->mfail_count > 0 ? w : NULL;
    g_obs = o;

    enumerate_instance_extensions(w);
    uint32_t v = 0;
    mf_begin(WC_EIV);
    VkResult vr = vkEnumerateInstanceVersion(&v);
    bool vinj = mf_end();
    obs_set(O_EIV, vr, vinj);
    obs_add(O_EIV, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
    CHECK((vr == VK_SUCCESS && VK_API_VERSION_MAJOR(v) == 1) || (vinj && vr == VK_ERROR_OUT_OF_HOST_MEMORY),
          "vkEnumerateInstanceVersion: %d, version %u.%u", (int)vr, VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v));
    enumerate_instance_layers();
    mf_begin(WC_GPA);
    CHECK(vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkCreateInstance") != NULL, "GIPA(NULL, vkCreateInstance)");
    mf_end();

    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = g_world_fuzzer_name,
        .applicationVersion = 1,
        .pEngineName = "vkl",
        .engineVersion = 1,
        .apiVersion = w->api_version,
    };
    VkDebugReportCallbackCreateInfoEXT rci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT,
        .flags = 0x1f,
        .pfnCallback = report_cb,
        .pUserData = &g_messages,
    };
    VkDebugUtilsMessengerCreateInfoEXT uci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .pNext = w->dbg_report_pnext ? &rci : NULL,
        .messageSeverity = w->msg_severity,
        .messageType = w->msg_types,
        .pfnUserCallback = utils_cb,
        .pUserData = &g_messages,
    };
    const void *pnext = w->dbg_utils_pnext ? (const void *)&uci : w->dbg_report_pnext ? (const void *)&rci : NULL;
    VkInstanceCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = pnext,
        .flags = w->inst_flags,
        .pApplicationInfo = w->app_info ? &app : NULL,
        .enabledLayerCount = w->app_layer_count,
        .ppEnabledLayerNames = (const char *const *)w->app_layer,
        .enabledExtensionCount = w->app_ext_count,
        .ppEnabledExtensionNames = (const char *const *)w->app_ext,
    };

    struct w_records *before = oracle_read(w);
    VkInstance inst = VK_NULL_HANDLE;
    mf_begin(WC_CREATE_INSTANCE);
    VkResult r = vkCreateInstance(&ci, cb, &inst);
    bool cinj = mf_end();
    obs_set(O_CREATE, r, cinj);
    g_world_app.create_instance = r;
    struct w_records *after = oracle_read(w);
    bool oom_possible = g_alloc.failed || cinj;
    for (uint32_t s = 0; s < w->ndrivers; s++)
        for (uint32_t i = 0; i < w->d[s].sc.inject_count; i++)
            oom_possible |= w->d[s].sc.inject[i].result == VK_ERROR_OUT_OF_HOST_MEMORY;
    g_layers_active = oracle_layer_called(w, after, -1);
    oracle_check_create(w, before, after, r, oom_possible);
    oracle_free(before);
    oracle_free(after);

    if (r == VK_SUCCESS) {
        CHECK(inst != VK_NULL_HANDLE, "vkCreateInstance succeeded without an instance");
        run_instance(w, inst, cb);
        mf_begin(WC_DESTROY_INSTANCE);
        vkDestroyInstance(inst, cb);
        mf_end();
    } else {
        CHECK(inst == VK_NULL_HANDLE, "vkCreateInstance failed (%d) but returned an instance", (int)r);
    }
    if (w->use_allocator)
        CHECK(g_alloc.live == 0,
              "%ld allocations made through the application's callbacks were never "
              "freed",
              g_alloc.live);
    g_obs = NULL;
    g_mf.w = NULL;
}
