/* ldp-check: the checks that drive the driver through instances and devices: every query with zero
 * or more devices (LDP_DRIVER_2), beside the mock ICD through our loader (LDP_DRIVER_1), the
 * conformanceVersion it reports (LDP_DRIVER_5). */
#include "conformance/driver/checks_internal.h"

#define MOCK_DEVICE_NAME "ldp-check coexistence mock"

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

void check_zero_devices(struct ldp_ctx *c, void *arg) {
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

void check_coexistence(struct ldp_ctx *c, void *arg) {
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

void check_conformance_version(struct ldp_ctx *c, void *arg) {
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
