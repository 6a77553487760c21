/*
 * The recording layer of llp-check (docs/llp-check.md): llp-check sandwiches the layer under test
 * between two copies of this library, one "above" (nearer the application) and one "below" (nearer
 * the driver). The copy's role comes from its own file name (dladdr): a name containing "above" is
 * the layer above, anything else the layer below. Records are appended, one write(2) per line, to
 * "<own file>.rec" as "<key> <value...>" text lines.
 *
 * Below: records what the layer under test passed down: the value of *pInstance / *pDevice on
 * entry to vkCreateInstance / vkCreateDevice (LLP_LAYER_21/22), whether the create-info link it
 * received is the one meant for the layer above it (its next vkGet*ProcAddr is this library's own:
 * the layer under test did not advance the link, LLP_LAYER_12/13; the stale link is then skipped
 * so the chain still works), the extensions it received (dropping the made-up one the layer above
 * may inject, LLP_LAYER_17), and for every command taking a dispatchable handle, and for the command
 * pool of vkAllocateCommandBuffers / vkFreeCommandBuffers / vkDestroyCommandPool (a non-dispatchable
 * handle), whether that handle is one this layer returned upward (LLP_LAYER_10). It answers NULL, without asking
 * further down, for the extension commands the probes below use (so what reaches the probing layer is the answer of the
 * layer under test alone).
 *
 * Above: records the *pInstance / *pDevice value it passes down (compared with the below copy's),
 * optionally injects a made-up instance extension (LLPCHECK_INJECT_EXTENSION=1, LLP_LAYER_17),
 * and after vkCreateInstance / before and after vkCreateDevice probes the layer under test through
 * its next pointers: vkGetInstanceProcAddr / vkGetDeviceProcAddr for commands of extensions that
 * are not enabled (LLP_LAYER_18) and vkEnumerateDeviceExtensionProperties with the layer's own
 * name (LLPCHECK_UNDER_TEST), the below copy's name and NULL (LLP_LAYER_16).
 *
 * Tested (a file name with neither "above" nor "below"): a transparent pass-through layer that the
 * llp-check tests use as a layer under test. Its name must start with VK_LAYER_LLPCHECK_tested (it
 * answers vkEnumerate{Instance,Device}ExtensionProperties for such names with no extensions and
 * VK_ERROR_LAYER_NOT_PRESENT for any other instance query, LLP_LAYER_15/16). "<own file>.cfg", when
 * present, holds switches, one per line:
 *   wrap_no_unwrap        vkEnumeratePhysicalDevices returns wrappers {loader word, handle below}
 *                         and passes them down unchanged (LLP_LAYER_10 violated)
 *   crash_in=vkCommand    raises SIGSEGV on entry to that command
 *   segv_in=vkCommand     faults on entry to that command (a store through NULL: the crash site is
 *                         this library, which llp-check names)
 *   hang_in=vkCommand     never returns from that command
 *   alloc=callbacks       keeps a per-instance and a per-device state block, allocated through the
 *                         application's VkAllocationCallbacks when given (LLP_LAYER_14 kept)
 *   alloc=malloc          ... always with malloc (the callbacks never used: LLP_LAYER_14 broken)
 *   alloc=mixed           ... through the callbacks, plus a scratch buffer from malloc (partly)
 *   alloc=free_mismatch   ... with malloc, released through the callbacks' pfnFree (a pointer the
 *                         callbacks never returned)
 *   own_command_buffer=set    in vkDeviceWaitIdle it makes a command pool and command buffer of its
 *                         own by calling down, sets the command buffer's loader data with the
 *                         loader's pfnSetDeviceLoaderData, records it (begin/end) and frees both
 *                         in vkDestroyDevice (LLP_LAYER_19 kept)
 *   own_command_buffer=unset  ... without pfnSetDeviceLoaderData (LLP_LAYER_19 broken)
 *   fail_in=vkCommand     returns an error from that command without calling down (LLP_LAYER_1)
 *   bad_queue_index       vkGetDeviceQueue asks the layer below for queue index + 1 (a queue that
 *                         was never created: an invalid call, LLP_LAYER_2)
 *
 * Both recording roles also record, for LLP_LAYER_19, the first word ("the loader's dispatch
 * pointer") of every dispatchable handle they receive ("word <command> <type> <handle> <word>"),
 * and for LLP_LAYER_1 / 2 the calls they see with their results ("call <command> <result>"). The
 * layer below checks the calls it receives against what it knows ("invalid <command> <why>"): a
 * queue that was never created, a command buffer submitted that was not ended or not begun again
 * after it was ended, command pools still alive at vkDestroyDevice.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#define EXPORT __attribute__((visibility("default")))

#define REC_INJECTED_EXTENSION "VK_LLPCHECK_unknown_extension"
#define REC_MAX_HANDLES 64

/* Names the probes ask for: commands of extensions the workload never enables. */
static const char *const g_instance_probe_names[] = {
    "vkCreateXcbSurfaceKHR",
    "vkCreateXlibSurfaceKHR",
    "vkCreateWaylandSurfaceKHR",
    "vkDestroySurfaceKHR",
    "vkGetPhysicalDeviceSurfaceSupportKHR",
    "vkCreateDebugReportCallbackEXT",
    "vkCreateHeadlessSurfaceEXT",
};
static const char *const g_device_probe_names[] = {
    "vkCreateSwapchainKHR",
    "vkQueuePresentKHR",
    "vkAcquireNextImageKHR",
    "vkCmdDrawMeshTasksEXT",
};

static bool g_init, g_above, g_tested;
static bool g_wrap_no_unwrap;
static char g_crash_in[256], g_hang_in[256], g_fail_in[256], g_segv_in[256];
static int g_alloc_mode; /* 0 none, 1 callbacks, 2 malloc, 3 mixed, 4 free_mismatch */
static int g_own_cb;     /* 0 none, 1 with pfnSetDeviceLoaderData, 2 without */
static bool g_bad_queue_index;
static PFN_vkSetDeviceLoaderData g_set_device_loader_data;
/* tested role, alloc=: the state blocks and how they were allocated */
static void *g_inst_state, *g_dev_state, *g_scratch;
static VkAllocationCallbacks g_inst_alloc, g_dev_alloc;
static bool g_inst_has_alloc, g_dev_has_alloc;
/* tested role, own_command_buffer=: its own objects */
static VkCommandPool g_own_pool;
static VkCommandBuffer g_own_cbuf;
/* below role: queues created (family, count), command buffer states, live command pools */
#define REC_MAX_FAMILIES 16
static uint32_t g_family_queues[REC_MAX_FAMILIES];
struct cb_state {
    VkCommandBuffer cb;
    int state; /* 0 initial, 1 recording, 2 executable */
};
static struct cb_state g_cbs[REC_MAX_HANDLES];
static size_t g_cb_count;
static int g_live_pools;
static char g_rec_path[4200];
static PFN_vkGetInstanceProcAddr g_next_gipa;
static PFN_vkGetDeviceProcAddr g_next_gdpa;
/* The next link's instance commands this copy intercepts, asked right after vkCreateInstance
 * returned (defined with the entry table below). Asked later, Debian's loader 1.3.239 answers a
 * layer's next vkGetInstanceProcAddr from the instance's chain-top dispatch: the copy above this
 * one, so calling it recursed until the stack overflowed. */
static void next_inst_snapshot(VkInstance instance);
static PFN_vkVoidFunction next_inst(VkInstance instance, const char *name);
static VkInstance g_instance;
static VkDevice g_device;
static void *g_known[REC_MAX_HANDLES];
static size_t g_known_count;

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL rec_GetInstanceProcAddr(VkInstance instance, const char *pName);

/* Answered by this copy's vkGetInstanceProcAddr for REC_IDENTITY_NAME: a link whose next
 * vkGetInstanceProcAddr gives this very function leads to this copy, even when the loader puts its
 * own shim functions in the links (ours does, to name the layer that breaks LLP_LAYER_21/22). */
#define REC_IDENTITY_NAME "vkLlpCheckRecordingIdentity"
static VKAPI_ATTR void VKAPI_CALL rec_identity(void) {}

static bool leads_to_me(PFN_vkGetInstanceProcAddr next_gipa, VkInstance instance) {
    /* Only the copy below asks: what lies under it is the loader's terminator, which answers NULL
     * for the made-up name (a layer's vkGetInstanceProcAddr need not cope with one and a NULL
     * instance; Khronos validation crashes on it). */
    if (g_above || g_tested) return false;
    return next_gipa == rec_GetInstanceProcAddr ||
           (next_gipa != NULL && next_gipa(instance, REC_IDENTITY_NAME) == (PFN_vkVoidFunction)rec_identity);
}
VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL rec_GetDeviceProcAddr(VkDevice device, const char *pName);

static void init(void) {
    if (g_init) return;
    g_init = true;
    Dl_info info;
    const char *file = "librecording_layer.so";
    if (dladdr((void *)&init, &info) != 0 && info.dli_fname != NULL) file = info.dli_fname;
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    g_above = strstr(base, "above") != NULL;
    g_tested = !g_above && strstr(base, "below") == NULL;
    snprintf(g_rec_path, sizeof g_rec_path, "%s.rec", file);
    if (!g_tested) return;
    char cfg[4200];
    snprintf(cfg, sizeof cfg, "%s.cfg", file);
    FILE *f = fopen(cfg, "r");
    if (f == NULL) return;
    char line[256];
    while (fgets(line, sizeof line, f) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strcmp(line, "wrap_no_unwrap") == 0) g_wrap_no_unwrap = true;
        if (strncmp(line, "crash_in=", 9) == 0) snprintf(g_crash_in, sizeof g_crash_in, "%s", line + 9);
        if (strncmp(line, "segv_in=", 8) == 0) snprintf(g_segv_in, sizeof g_segv_in, "%s", line + 8);
        if (strncmp(line, "hang_in=", 8) == 0) snprintf(g_hang_in, sizeof g_hang_in, "%s", line + 8);
        if (strncmp(line, "fail_in=", 8) == 0) snprintf(g_fail_in, sizeof g_fail_in, "%s", line + 8);
        if (strcmp(line, "alloc=callbacks") == 0) g_alloc_mode = 1;
        if (strcmp(line, "alloc=malloc") == 0) g_alloc_mode = 2;
        if (strcmp(line, "alloc=mixed") == 0) g_alloc_mode = 3;
        if (strcmp(line, "alloc=free_mismatch") == 0) g_alloc_mode = 4;
        if (strcmp(line, "own_command_buffer=set") == 0) g_own_cb = 1;
        if (strcmp(line, "own_command_buffer=unset") == 0) g_own_cb = 2;
        if (strcmp(line, "bad_queue_index") == 0) g_bad_queue_index = true;
    }
    fclose(f);
}

/* Tested role: the crash / hang switches. A variable, so the compiler cannot see the NULL store. */
static volatile uintptr_t g_null_address;
static void enter(const char *cmd) {
    init();
    if (!g_tested) return;
    if (strcmp(g_crash_in, cmd) == 0) raise(SIGSEGV);
    if (strcmp(g_segv_in, cmd) == 0) *(volatile int *)(uintptr_t)g_null_address = 1;
    if (strcmp(g_hang_in, cmd) == 0)
        for (;;) pause();
}

/* Tested role, fail_in=: this command fails without calling down. */
static bool failing(const char *cmd) {
    init();
    return g_tested && strcmp(g_fail_in, cmd) == 0;
}

static void rec(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void rec(const char *fmt, ...) {
    init();
    if (g_tested) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    size_t len = (size_t)n < sizeof buf - 1 ? (size_t)n : sizeof buf - 2;
    buf[len++] = '\n';
    int fd = open(g_rec_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    ssize_t w;
    do {
        w = write(fd, buf, len);
    } while (w < 0 && errno == EINTR);
    close(fd);
}

static void remember(const void *h) {
    for (size_t i = 0; i < g_known_count; i++)
        if (g_known[i] == h) return;
    if (g_known_count < REC_MAX_HANDLES) g_known[g_known_count++] = (void *)h;
}

static int known(const void *h) {
    for (size_t i = 0; i < g_known_count; i++)
        if (g_known[i] == h) return 1;
    return 0;
}

/* Below: a dispatchable handle received from the layer under test must be one we returned. */
static bool check_handle_t(const char *cmd, const char *type, const void *h) {
    enter(cmd);
    if (g_tested) return true;
    if (g_above) {
        /* what the application (through the loader) handed the layer under test */
        if (h != NULL) rec("word %s %s %p %p", cmd, type, h, *(void *const *)h);
        return true;
    }
    int k = known(h);
    rec("handle %s %d %p", cmd, k, h);
    if (k) rec("word %s %s %p %p", cmd, type, h, *(void *const *)h);
    return k != 0; /* an unknown handle is never passed further down (it would crash the driver) */
}

/* Below: a command pool received from the layer under test must be one we returned (the same
 * "handle" record as for dispatchable handles; no dispatch word). */
static bool check_pool(const char *cmd, VkCommandPool pool) {
    if (g_tested || g_above || pool == VK_NULL_HANDLE) return true;
    int k = known((const void *)pool);
    rec("handle %s %d %p", cmd, k, (const void *)pool);
    return k != 0;
}

/* Tested role, alloc=: the layer's own state block for an instance or a device. */
static void *state_alloc(const VkAllocationCallbacks *a, size_t size) {
    if ((g_alloc_mode == 1 || g_alloc_mode == 3) && a != NULL && a->pfnAllocation != NULL)
        return a->pfnAllocation(a->pUserData, size, 16, VK_SYSTEM_ALLOCATION_SCOPE_OBJECT);
    return malloc(size);
}
static void state_free(const VkAllocationCallbacks *a, bool has, void *p) {
    if (p == NULL) return;
    if ((g_alloc_mode == 1 || g_alloc_mode == 3 || g_alloc_mode == 4) && has && a->pfnFree != NULL)
        a->pfnFree(a->pUserData, p);
    else
        free(p);
}

static bool is_probe_name(const char *name, bool device) {
    const char *const *names = device ? g_device_probe_names : g_instance_probe_names;
    size_t n = device ? sizeof g_device_probe_names / sizeof *names : sizeof g_instance_probe_names / sizeof *names;
    for (size_t i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0) return true;
    return false;
}

/* ---------------------------------------------------------------- instance */

static VKAPI_ATTR VkResult VKAPI_CALL rec_CreateInstance(const VkInstanceCreateInfo *ci,
                                                         const VkAllocationCallbacks *alloc, VkInstance *pInstance) {
    enter("vkCreateInstance");
    if (failing("vkCreateInstance")) return VK_ERROR_INITIALIZATION_FAILED;
    rec("create_instance_entry %p", pInstance ? (void *)*pInstance : NULL);
    VkLayerInstanceCreateInfo *link = (VkLayerInstanceCreateInfo *)ci->pNext;
    while (link != NULL &&
           !(link->sType == VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerInstanceCreateInfo *)link->pNext;
    if (link == NULL || link->u.pLayerInfo == NULL) {
        rec("instance_link missing");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkLayerInstanceLink *mine = link->u.pLayerInfo;
    int own = leads_to_me(mine->pfnNextGetInstanceProcAddr, VK_NULL_HANDLE);
    rec("instance_link_stale %d", own);
    if (own) {
        /* The layer above did not advance the link: this one was its own; ours is the next. */
        if (mine->pNext == NULL) return VK_ERROR_INITIALIZATION_FAILED;
        mine = mine->pNext;
    }
    PFN_vkGetInstanceProcAddr next_gipa = mine->pfnNextGetInstanceProcAddr;
    link->u.pLayerInfo = mine->pNext;
    PFN_vkCreateInstance next_create = (PFN_vkCreateInstance)next_gipa(VK_NULL_HANDLE, "vkCreateInstance");
    if (next_create == NULL) return VK_ERROR_INITIALIZATION_FAILED;

    /* Extensions: the above copy may add a made-up one; the below copy records and drops it. */
    VkInstanceCreateInfo copy = *ci;
    const char *names[256];
    uint32_t n = 0;
    bool inject = g_above && getenv("LLPCHECK_INJECT_EXTENSION") != NULL;
    for (uint32_t i = 0; i < ci->enabledExtensionCount && n < 255; i++) {
        const char *e = ci->ppEnabledExtensionNames[i];
        if (g_above || g_tested) {
            names[n++] = e;
            continue;
        }
        rec("instance_extension %s", e);
        if (strcmp(e, REC_INJECTED_EXTENSION) == 0) continue; /* nothing below knows it */
        names[n++] = e;
    }
    if (inject) names[n++] = REC_INJECTED_EXTENSION;
    copy.enabledExtensionCount = n;
    copy.ppEnabledExtensionNames = n ? names : NULL;
    VkResult r = next_create(&copy, alloc, pInstance);
    rec("create_instance_result %d", (int)r);
    rec("call vkCreateInstance %d", (int)r);
    if (r != VK_SUCCESS || pInstance == NULL) return r;
    g_instance = *pInstance;
    if (g_tested && g_alloc_mode != 0) {
        g_inst_has_alloc = alloc != NULL;
        if (alloc != NULL) g_inst_alloc = *alloc;
        g_inst_state = state_alloc(alloc, 512);
        if (g_inst_state != NULL) memset(g_inst_state, 0, 512);
        if (g_alloc_mode == 3) g_scratch = malloc(256);
    }
    g_next_gipa = next_gipa;
    next_inst_snapshot(g_instance);
    if (!g_above && !g_tested) remember(g_instance);
    if (g_above) {
        for (size_t i = 0; i < sizeof g_instance_probe_names / sizeof *g_instance_probe_names; i++) {
            PFN_vkVoidFunction f = next_gipa(g_instance, g_instance_probe_names[i]);
            rec("gipa_probe %s %d", g_instance_probe_names[i], f != NULL);
        }
    }
    return r;
}

static VKAPI_ATTR void VKAPI_CALL rec_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc) {
    if (!check_handle_t("vkDestroyInstance", "VkInstance", instance)) return;
    if (g_tested && g_alloc_mode != 0) {
        state_free(&g_inst_alloc, g_inst_has_alloc, g_inst_state);
        g_inst_state = NULL;
        free(g_scratch);
        g_scratch = NULL;
    }
    PFN_vkDestroyInstance f = (PFN_vkDestroyInstance)next_inst(instance, "vkDestroyInstance");
    if (f != NULL) f(instance, alloc);
    rec("destroy_instance");
    rec("call vkDestroyInstance 0");
}

/* Tested role, wrap_no_unwrap: one wrapper per physical device below (the same one on every
 * call), whose first word is the loader's dispatch word copied from the handle below. Never
 * unwrapped: that is the violation. */
struct pd_wrapper {
    void *loader_word;
    VkPhysicalDevice below;
};
static struct pd_wrapper g_wrappers[REC_MAX_HANDLES];
static size_t g_wrapper_count;

static VkPhysicalDevice wrap_pd(VkPhysicalDevice below) {
    for (size_t i = 0; i < g_wrapper_count; i++)
        if (g_wrappers[i].below == below) return (VkPhysicalDevice)&g_wrappers[i];
    if (g_wrapper_count == REC_MAX_HANDLES) return below;
    struct pd_wrapper *w = &g_wrappers[g_wrapper_count++];
    w->loader_word = *(void **)below;
    w->below = below;
    return (VkPhysicalDevice)w;
}

static VKAPI_ATTR VkResult VKAPI_CALL rec_EnumeratePhysicalDevices(VkInstance instance, uint32_t *pCount,
                                                                   VkPhysicalDevice *pDevices) {
    if (!check_handle_t("vkEnumeratePhysicalDevices", "VkInstance", instance)) return VK_ERROR_INITIALIZATION_FAILED;
    if (failing("vkEnumeratePhysicalDevices")) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkEnumeratePhysicalDevices f =
        (PFN_vkEnumeratePhysicalDevices)next_inst(instance, "vkEnumeratePhysicalDevices");
    if (f == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    VkResult r = f(instance, pCount, pDevices);
    rec("call vkEnumeratePhysicalDevices%s %d", pDevices ? "" : "(count)", (int)r);
    if ((r == VK_SUCCESS || r == VK_INCOMPLETE) && pDevices != NULL && g_tested && g_wrap_no_unwrap)
        for (uint32_t i = 0; i < *pCount; i++) pDevices[i] = wrap_pd(pDevices[i]);
    if ((r == VK_SUCCESS || r == VK_INCOMPLETE) && pDevices != NULL && !g_above && !g_tested)
        for (uint32_t i = 0; i < *pCount; i++) {
            remember(pDevices[i]);
            rec("physical_device %p", (void *)pDevices[i]);
        }
    return r;
}

static VKAPI_ATTR void VKAPI_CALL rec_GetPhysicalDeviceProperties(VkPhysicalDevice pd, VkPhysicalDeviceProperties *p) {
    if (!check_handle_t("vkGetPhysicalDeviceProperties", "VkPhysicalDevice", pd)) {
        memset(p, 0, sizeof *p);
        return;
    }
    PFN_vkGetPhysicalDeviceProperties f =
        (PFN_vkGetPhysicalDeviceProperties)next_inst(g_instance, "vkGetPhysicalDeviceProperties");
    if (f != NULL) f(pd, p);
    rec("call vkGetPhysicalDeviceProperties 0");
}

static VKAPI_ATTR void VKAPI_CALL rec_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice pd, uint32_t *pCount,
                                                                             VkQueueFamilyProperties *p) {
    if (!check_handle_t("vkGetPhysicalDeviceQueueFamilyProperties", "VkPhysicalDevice", pd)) {
        *pCount = 0;
        return;
    }
    PFN_vkGetPhysicalDeviceQueueFamilyProperties f =
        (PFN_vkGetPhysicalDeviceQueueFamilyProperties)next_inst(g_instance, "vkGetPhysicalDeviceQueueFamilyProperties");
    if (f != NULL)
        f(pd, pCount, p);
    else
        *pCount = 0;
    rec("call vkGetPhysicalDeviceQueueFamilyProperties 0");
}

static VKAPI_ATTR VkResult VKAPI_CALL rec_EnumerateDeviceExtensionProperties(VkPhysicalDevice pd,
                                                                             const char *pLayerName, uint32_t *pCount,
                                                                             VkExtensionProperties *p) {
    init();
    if (!g_above) {
        rec("edep_layer %s", pLayerName ? pLayerName : "(null)");
        if (!check_handle_t("vkEnumerateDeviceExtensionProperties", "VkPhysicalDevice", pd))
            return VK_ERROR_INITIALIZATION_FAILED;
        const char *own = g_tested ? "VK_LAYER_LLPCHECK_tested" : "VK_LAYER_LLPCHECK_below";
        if (pLayerName != NULL && strncmp(pLayerName, own, strlen(own)) == 0) {
            *pCount = 0; /* ours: no extensions */
            return VK_SUCCESS;
        }
    }
    PFN_vkEnumerateDeviceExtensionProperties f =
        (PFN_vkEnumerateDeviceExtensionProperties)next_inst(g_instance, "vkEnumerateDeviceExtensionProperties");
    if (f == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    return f(pd, pLayerName, pCount, p);
}

/* Above: vkEnumerateDeviceExtensionProperties of the layer under test with a layer name. */
static void probe_edep(VkPhysicalDevice pd, const char *tag, const char *layer) {
    PFN_vkEnumerateDeviceExtensionProperties f =
        (PFN_vkEnumerateDeviceExtensionProperties)next_inst(g_instance, "vkEnumerateDeviceExtensionProperties");
    if (f == NULL) {
        rec("edep_probe %s missing", tag);
        return;
    }
    uint32_t count = 0;
    VkResult r = f(pd, layer, &count, NULL);
    char list[700] = "";
    size_t len = 0;
    if (r == VK_SUCCESS && count > 0 && count < 256) {
        VkExtensionProperties *props = calloc(count, sizeof *props);
        if (props != NULL && f(pd, layer, &count, props) == VK_SUCCESS) {
            for (uint32_t i = 0; i < count && len + 80 < sizeof list; i++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? "," : "", props[i].extensionName);
        }
        free(props);
    }
    rec("edep_probe %s %d %u %s", tag, (int)r, count, len ? list : "-");
}

/* ---------------------------------------------------------------- device */

static VKAPI_ATTR VkResult VKAPI_CALL rec_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                                       const VkAllocationCallbacks *alloc, VkDevice *pDevice) {
    init();
    if (failing("vkCreateDevice")) return VK_ERROR_INITIALIZATION_FAILED;
    rec("create_device_entry %p", pDevice ? (void *)*pDevice : NULL);
    if (!check_handle_t("vkCreateDevice", "VkPhysicalDevice", pd)) return VK_ERROR_INITIALIZATION_FAILED;
    if (g_above) {
        const char *under = getenv("LLPCHECK_UNDER_TEST");
        if (under != NULL) probe_edep(pd, "own", under);
        probe_edep(pd, "other", "VK_LAYER_LLPCHECK_below");
        probe_edep(pd, "null", NULL);
    }
    VkLayerDeviceCreateInfo *link = (VkLayerDeviceCreateInfo *)ci->pNext;
    while (link != NULL &&
           !(link->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && link->function == VK_LAYER_LINK_INFO))
        link = (VkLayerDeviceCreateInfo *)link->pNext;
    if (link == NULL || link->u.pLayerInfo == NULL) {
        rec("device_link missing");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    if (g_tested) {
        /* the loader's pfnSetDeviceLoaderData, for objects of its own (own_command_buffer=set) */
        for (const VkLayerDeviceCreateInfo *d = ci->pNext; d != NULL; d = d->pNext)
            if (d->sType == VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO && d->function == VK_LOADER_DATA_CALLBACK)
                g_set_device_loader_data = d->u.pfnSetDeviceLoaderData;
    }
    VkLayerDeviceLink *mine = link->u.pLayerInfo;
    int own = mine->pfnNextGetDeviceProcAddr == rec_GetDeviceProcAddr ||
              leads_to_me(mine->pfnNextGetInstanceProcAddr, g_instance);
    rec("device_link_stale %d", own);
    if (own) {
        if (mine->pNext == NULL) return VK_ERROR_INITIALIZATION_FAILED;
        mine = mine->pNext;
    }
    PFN_vkGetInstanceProcAddr next_gipa = mine->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr next_gdpa = mine->pfnNextGetDeviceProcAddr;
    link->u.pLayerInfo = mine->pNext;
    PFN_vkCreateDevice next_create = (PFN_vkCreateDevice)next_gipa(g_instance, "vkCreateDevice");
    if (next_create == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    if (!g_above && !g_tested)
        for (uint32_t i = 0; i < ci->enabledExtensionCount; i++)
            rec("device_extension %s", ci->ppEnabledExtensionNames[i]);
    VkResult r = next_create(pd, ci, alloc, pDevice);
    rec("create_device_result %d", (int)r);
    rec("call vkCreateDevice %d", (int)r);
    if (r != VK_SUCCESS || pDevice == NULL) return r;
    g_device = *pDevice;
    g_next_gdpa = next_gdpa;
    if (!g_above && !g_tested) {
        remember(g_device);
        memset(g_family_queues, 0, sizeof g_family_queues);
        for (uint32_t i = 0; i < ci->queueCreateInfoCount; i++)
            if (ci->pQueueCreateInfos[i].queueFamilyIndex < REC_MAX_FAMILIES)
                g_family_queues[ci->pQueueCreateInfos[i].queueFamilyIndex] += ci->pQueueCreateInfos[i].queueCount;
    }
    if (g_tested && g_alloc_mode != 0) {
        g_dev_has_alloc = alloc != NULL;
        if (alloc != NULL) g_dev_alloc = *alloc;
        g_dev_state = state_alloc(alloc, 1024);
        if (g_dev_state != NULL) memset(g_dev_state, 0, 1024);
    }
    if (g_above) {
        for (size_t i = 0; i < sizeof g_device_probe_names / sizeof *g_device_probe_names; i++) {
            PFN_vkVoidFunction f = next_gdpa(g_device, g_device_probe_names[i]);
            rec("gdpa_probe %s %d", g_device_probe_names[i], f != NULL);
        }
    }
    return r;
}

static VKAPI_ATTR void VKAPI_CALL rec_DestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc) {
    if (!check_handle_t("vkDestroyDevice", "VkDevice", device)) return;
    if (g_tested && g_own_pool != VK_NULL_HANDLE && g_next_gdpa != NULL) {
        PFN_vkDestroyCommandPool dp = (PFN_vkDestroyCommandPool)g_next_gdpa(device, "vkDestroyCommandPool");
        if (dp != NULL) dp(device, g_own_pool, NULL);
        g_own_pool = VK_NULL_HANDLE;
        g_own_cbuf = VK_NULL_HANDLE;
    }
    if (g_tested && g_alloc_mode != 0) {
        state_free(&g_dev_alloc, g_dev_has_alloc, g_dev_state);
        g_dev_state = NULL;
    }
    if (!g_above && !g_tested && g_live_pools > 0)
        rec("invalid vkDestroyDevice %d command pool(s) of the device were not destroyed", g_live_pools);
    PFN_vkDestroyDevice f = g_next_gdpa ? (PFN_vkDestroyDevice)g_next_gdpa(device, "vkDestroyDevice") : NULL;
    if (f != NULL) f(device, alloc);
    rec("destroy_device");
    rec("call vkDestroyDevice 0");
}

static VKAPI_ATTR void VKAPI_CALL rec_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index,
                                                     VkQueue *pQueue) {
    if (!check_handle_t("vkGetDeviceQueue", "VkDevice", device)) {
        *pQueue = VK_NULL_HANDLE;
        return;
    }
    if (g_tested && g_bad_queue_index) index++;
    if (!g_above && !g_tested && (family >= REC_MAX_FAMILIES || index >= g_family_queues[family])) {
        rec("invalid vkGetDeviceQueue queue family %u index %u was not created with the device (%u queue(s) in that "
            "family)",
            family, index, family < REC_MAX_FAMILIES ? g_family_queues[family] : 0);
        *pQueue = VK_NULL_HANDLE; /* never passed on to the driver */
        rec("call vkGetDeviceQueue -1");
        return;
    }
    PFN_vkGetDeviceQueue f = g_next_gdpa ? (PFN_vkGetDeviceQueue)g_next_gdpa(device, "vkGetDeviceQueue") : NULL;
    if (f != NULL)
        f(device, family, index, pQueue);
    else
        *pQueue = VK_NULL_HANDLE;
    rec("call vkGetDeviceQueue %d", *pQueue != VK_NULL_HANDLE ? 0 : -1);
    if (!g_above && !g_tested && *pQueue != VK_NULL_HANDLE) remember(*pQueue);
}

static void make_own_command_buffer(VkDevice device);

static VKAPI_ATTR VkResult VKAPI_CALL rec_DeviceWaitIdle(VkDevice device) {
    if (!check_handle_t("vkDeviceWaitIdle", "VkDevice", device)) return VK_ERROR_DEVICE_LOST;
    if (failing("vkDeviceWaitIdle")) return VK_ERROR_DEVICE_LOST;
    if (g_tested && g_own_cb != 0 && g_own_pool == VK_NULL_HANDLE) make_own_command_buffer(device);
    PFN_vkDeviceWaitIdle f = g_next_gdpa ? (PFN_vkDeviceWaitIdle)g_next_gdpa(device, "vkDeviceWaitIdle") : NULL;
    VkResult r = f != NULL ? f(device) : VK_ERROR_DEVICE_LOST;
    rec("call vkDeviceWaitIdle %d", (int)r);
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL rec_QueueWaitIdle(VkQueue queue) {
    if (!check_handle_t("vkQueueWaitIdle", "VkQueue", queue)) return VK_ERROR_DEVICE_LOST;
    if (failing("vkQueueWaitIdle")) return VK_ERROR_DEVICE_LOST;
    PFN_vkQueueWaitIdle f = g_next_gdpa ? (PFN_vkQueueWaitIdle)g_next_gdpa(g_device, "vkQueueWaitIdle") : NULL;
    VkResult r = f != NULL ? f(queue) : VK_ERROR_DEVICE_LOST;
    rec("call vkQueueWaitIdle %d", (int)r);
    return r;
}

/* ---------------------------------------------------------------- command pools and buffers */

static struct cb_state *cb_find(VkCommandBuffer cb) {
    for (size_t i = 0; i < g_cb_count; i++)
        if (g_cbs[i].cb == cb) return &g_cbs[i];
    return NULL;
}

static VKAPI_ATTR VkResult VKAPI_CALL rec_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *ci,
                                                            const VkAllocationCallbacks *alloc, VkCommandPool *pPool) {
    if (!check_handle_t("vkCreateCommandPool", "VkDevice", device)) return VK_ERROR_INITIALIZATION_FAILED;
    if (failing("vkCreateCommandPool")) return VK_ERROR_OUT_OF_HOST_MEMORY;
    PFN_vkCreateCommandPool f =
        g_next_gdpa ? (PFN_vkCreateCommandPool)g_next_gdpa(device, "vkCreateCommandPool") : NULL;
    VkResult r = f != NULL ? f(device, ci, alloc, pPool) : VK_ERROR_INITIALIZATION_FAILED;
    rec("call vkCreateCommandPool %d", (int)r);
    if (r == VK_SUCCESS && !g_above && !g_tested) {
        g_live_pools++;
        remember((const void *)*pPool);
    }
    return r;
}

static VKAPI_ATTR void VKAPI_CALL rec_DestroyCommandPool(VkDevice device, VkCommandPool pool,
                                                         const VkAllocationCallbacks *alloc) {
    if (!check_handle_t("vkDestroyCommandPool", "VkDevice", device) || !check_pool("vkDestroyCommandPool", pool))
        return;
    PFN_vkDestroyCommandPool f =
        g_next_gdpa ? (PFN_vkDestroyCommandPool)g_next_gdpa(device, "vkDestroyCommandPool") : NULL;
    if (f != NULL) f(device, pool, alloc);
    rec("call vkDestroyCommandPool 0");
    if (pool != VK_NULL_HANDLE && !g_above && !g_tested && g_live_pools > 0) g_live_pools--;
}

static VKAPI_ATTR VkResult VKAPI_CALL rec_AllocateCommandBuffers(VkDevice device,
                                                                 const VkCommandBufferAllocateInfo *info,
                                                                 VkCommandBuffer *pCbs) {
    if (!check_handle_t("vkAllocateCommandBuffers", "VkDevice", device) ||
        !check_pool("vkAllocateCommandBuffers", info != NULL ? info->commandPool : VK_NULL_HANDLE))
        return VK_ERROR_INITIALIZATION_FAILED;
    if (failing("vkAllocateCommandBuffers")) return VK_ERROR_OUT_OF_HOST_MEMORY;
    PFN_vkAllocateCommandBuffers f =
        g_next_gdpa ? (PFN_vkAllocateCommandBuffers)g_next_gdpa(device, "vkAllocateCommandBuffers") : NULL;
    VkResult r = f != NULL ? f(device, info, pCbs) : VK_ERROR_INITIALIZATION_FAILED;
    rec("call vkAllocateCommandBuffers %d", (int)r);
    if (r == VK_SUCCESS && info != NULL && !g_above && !g_tested)
        for (uint32_t i = 0; i < info->commandBufferCount; i++) {
            remember(pCbs[i]);
            if (g_cb_count < REC_MAX_HANDLES) g_cbs[g_cb_count++] = (struct cb_state){pCbs[i], 0};
        }
    return r;
}

static VKAPI_ATTR void VKAPI_CALL rec_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                                         const VkCommandBuffer *pCbs) {
    if (!check_handle_t("vkFreeCommandBuffers", "VkDevice", device) || !check_pool("vkFreeCommandBuffers", pool))
        return;
    for (uint32_t i = 0; i < count; i++)
        if (pCbs[i] != VK_NULL_HANDLE && !check_handle_t("vkFreeCommandBuffers", "VkCommandBuffer", pCbs[i])) return;
    PFN_vkFreeCommandBuffers f =
        g_next_gdpa ? (PFN_vkFreeCommandBuffers)g_next_gdpa(device, "vkFreeCommandBuffers") : NULL;
    if (f != NULL) f(device, pool, count, pCbs);
    rec("call vkFreeCommandBuffers 0");
}

static VKAPI_ATTR VkResult VKAPI_CALL rec_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info) {
    if (!check_handle_t("vkBeginCommandBuffer", "VkCommandBuffer", cb)) return VK_ERROR_INITIALIZATION_FAILED;
    if (failing("vkBeginCommandBuffer")) return VK_ERROR_OUT_OF_HOST_MEMORY;
    struct cb_state *st = g_above || g_tested ? NULL : cb_find(cb);
    if (st != NULL && st->state == 1) rec("invalid vkBeginCommandBuffer %p is already recording", (void *)cb);
    PFN_vkBeginCommandBuffer f =
        g_next_gdpa ? (PFN_vkBeginCommandBuffer)g_next_gdpa(g_device, "vkBeginCommandBuffer") : NULL;
    VkResult r = f != NULL ? f(cb, info) : VK_ERROR_INITIALIZATION_FAILED;
    rec("call vkBeginCommandBuffer %d", (int)r);
    if (st != NULL && r == VK_SUCCESS) st->state = 1;
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL rec_EndCommandBuffer(VkCommandBuffer cb) {
    if (!check_handle_t("vkEndCommandBuffer", "VkCommandBuffer", cb)) return VK_ERROR_INITIALIZATION_FAILED;
    if (failing("vkEndCommandBuffer")) return VK_ERROR_OUT_OF_HOST_MEMORY;
    struct cb_state *st = g_above || g_tested ? NULL : cb_find(cb);
    if (st != NULL && st->state != 1) rec("invalid vkEndCommandBuffer %p is not recording", (void *)cb);
    PFN_vkEndCommandBuffer f = g_next_gdpa ? (PFN_vkEndCommandBuffer)g_next_gdpa(g_device, "vkEndCommandBuffer") : NULL;
    VkResult r = f != NULL ? f(cb) : VK_ERROR_INITIALIZATION_FAILED;
    rec("call vkEndCommandBuffer %d", (int)r);
    if (st != NULL && r == VK_SUCCESS) st->state = 2;
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL rec_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                                      VkFence fence) {
    if (!check_handle_t("vkQueueSubmit", "VkQueue", queue)) return VK_ERROR_DEVICE_LOST;
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t j = 0; j < submits[i].commandBufferCount; j++) {
            VkCommandBuffer cb = submits[i].pCommandBuffers[j];
            if (!check_handle_t("vkQueueSubmit", "VkCommandBuffer", cb)) return VK_ERROR_DEVICE_LOST;
            struct cb_state *st = g_above || g_tested ? NULL : cb_find(cb);
            if (st != NULL && st->state != 2)
                rec("invalid vkQueueSubmit command buffer %p is not in the executable state", (void *)cb);
        }
    if (failing("vkQueueSubmit")) return VK_ERROR_DEVICE_LOST;
    PFN_vkQueueSubmit f = g_next_gdpa ? (PFN_vkQueueSubmit)g_next_gdpa(g_device, "vkQueueSubmit") : NULL;
    VkResult r = f != NULL ? f(queue, count, submits, fence) : VK_ERROR_DEVICE_LOST;
    rec("call vkQueueSubmit %d", (int)r);
    return r;
}

/* Tested role, own_command_buffer=: a command pool and command buffer of its own, made by calling
 * down (the loader's trampolines never see them, so nothing but the layer can set their loader
 * data), recorded through the chain so the layer below receives the command buffer. */
static void make_own_command_buffer(VkDevice device) {
    if (g_next_gdpa == NULL) return;
    PFN_vkCreateCommandPool cp = (PFN_vkCreateCommandPool)g_next_gdpa(device, "vkCreateCommandPool");
    PFN_vkAllocateCommandBuffers ac = (PFN_vkAllocateCommandBuffers)g_next_gdpa(device, "vkAllocateCommandBuffers");
    PFN_vkBeginCommandBuffer bc = (PFN_vkBeginCommandBuffer)g_next_gdpa(device, "vkBeginCommandBuffer");
    PFN_vkEndCommandBuffer ec = (PFN_vkEndCommandBuffer)g_next_gdpa(device, "vkEndCommandBuffer");
    if (cp == NULL || ac == NULL || bc == NULL || ec == NULL) return;
    VkCommandPoolCreateInfo pci = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL, 0, 0};
    if (cp(device, &pci, NULL, &g_own_pool) != VK_SUCCESS) {
        g_own_pool = VK_NULL_HANDLE;
        return;
    }
    VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, g_own_pool,
                                      VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
    if (ac(device, &ai, &g_own_cbuf) != VK_SUCCESS) return;
    if (g_own_cb == 1 && g_set_device_loader_data != NULL) g_set_device_loader_data(device, g_own_cbuf);
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL, 0, NULL};
    if (bc(g_own_cbuf, &bi) == VK_SUCCESS) ec(g_own_cbuf);
}

/* ---------------------------------------------------------------- lookups */

#define ENTRY(n)                                                                                                       \
    { "vk" #n, (PFN_vkVoidFunction)rec_##n }
struct entry {
    const char *name;
    PFN_vkVoidFunction fn;
};
static const struct entry g_instance_entries[] = {
    ENTRY(CreateInstance),
    ENTRY(DestroyInstance),
    ENTRY(EnumeratePhysicalDevices),
    ENTRY(GetPhysicalDeviceProperties),
    ENTRY(GetPhysicalDeviceQueueFamilyProperties),
    ENTRY(EnumerateDeviceExtensionProperties),
    ENTRY(CreateDevice),
    ENTRY(GetInstanceProcAddr),
};
static const struct entry g_device_entries[] = {
    ENTRY(GetDeviceProcAddr),  ENTRY(DestroyDevice),      ENTRY(GetDeviceQueue),     ENTRY(DeviceWaitIdle),
    ENTRY(QueueWaitIdle),      ENTRY(CreateCommandPool),  ENTRY(DestroyCommandPool), ENTRY(AllocateCommandBuffers),
    ENTRY(FreeCommandBuffers), ENTRY(BeginCommandBuffer), ENTRY(EndCommandBuffer),   ENTRY(QueueSubmit),
};

static PFN_vkVoidFunction find(const struct entry *e, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(e[i].name, name) == 0) return e[i].fn;
    return NULL;
}

#define N_INSTANCE_ENTRIES (sizeof g_instance_entries / sizeof *g_instance_entries)
static PFN_vkVoidFunction g_next_inst_fns[N_INSTANCE_ENTRIES];

static void next_inst_snapshot(VkInstance instance) {
    for (size_t i = 0; i < N_INSTANCE_ENTRIES; i++)
        g_next_inst_fns[i] = g_next_gipa != NULL ? g_next_gipa(instance, g_instance_entries[i].name) : NULL;
}

static PFN_vkVoidFunction next_inst(VkInstance instance, const char *name) {
    for (size_t i = 0; i < N_INSTANCE_ENTRIES; i++)
        if (strcmp(g_instance_entries[i].name, name) == 0) return g_next_inst_fns[i];
    return g_next_gipa != NULL ? g_next_gipa(instance, name) : NULL;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL rec_GetInstanceProcAddr(VkInstance instance, const char *pName) {
    init();
    if (pName == NULL) return NULL;
    if (strcmp(pName, REC_IDENTITY_NAME) == 0) return (PFN_vkVoidFunction)rec_identity;
    PFN_vkVoidFunction f = find(g_instance_entries, sizeof g_instance_entries / sizeof *g_instance_entries, pName);
    if (f == NULL) f = find(g_device_entries, sizeof g_device_entries / sizeof *g_device_entries, pName);
    if (f != NULL) return f;
    if (!g_above && !g_tested && (is_probe_name(pName, false) || is_probe_name(pName, true))) return NULL;
    if (instance == VK_NULL_HANDLE || g_next_gipa == NULL) return NULL;
    return g_next_gipa(instance, pName);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL rec_GetDeviceProcAddr(VkDevice device, const char *pName) {
    init();
    if (pName == NULL) return NULL;
    PFN_vkVoidFunction f = find(g_device_entries, sizeof g_device_entries / sizeof *g_device_entries, pName);
    if (f != NULL) return f;
    if (!g_above && !g_tested && is_probe_name(pName, true)) return NULL;
    if (g_next_gdpa == NULL) return NULL;
    return g_next_gdpa(device, pName);
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *pName) {
    return rec_GetInstanceProcAddr(instance, pName);
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *pName) {
    return rec_GetDeviceProcAddr(device, pName);
}

/* Introspection (interface-0 style, ignored by loaders at interface 2): LLP_LAYER_15 as the policy
 * asks, for the tested role's names. */
EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceExtensionProperties(const char *pLayerName, uint32_t *pCount,
                                                                             VkExtensionProperties *pProps) {
    (void)pProps;
    if (pLayerName == NULL || strncmp(pLayerName, "VK_LAYER_LLPCHECK_tested", 24) != 0)
        return VK_ERROR_LAYER_NOT_PRESENT;
    *pCount = 0;
    return VK_SUCCESS;
}

EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *v) {
    enter("vkNegotiateLoaderLayerInterfaceVersion");
    if (v == NULL || v->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) return VK_ERROR_INITIALIZATION_FAILED;
    if (v->loaderLayerInterfaceVersion >= 2) {
        v->loaderLayerInterfaceVersion = 2;
        v->pfnGetInstanceProcAddr = rec_GetInstanceProcAddr;
        v->pfnGetDeviceProcAddr = rec_GetDeviceProcAddr;
        v->pfnGetPhysicalDeviceProcAddr = NULL;
    }
    rec("negotiated %u", v->loaderLayerInterfaceVersion);
    return VK_SUCCESS;
}
