/*
 * loader_diff_fuzzer's application, run in a forked child against one loader (dlopen()ed):
 * instance extensions and layers, vkEnumerateInstanceVersion, vkCreateInstance, the physical
 * devices and their groups, device extensions and vkCreateDevice; what it observes goes into the
 * shared mapping (struct d_obs) for the parent to compare.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include "fuzz/world/diff_internal.h"
#include "fuzz/world/world.h"

/* ------------------------------------------------------------------------------------------ */
/* The application (in the child)                                                              */

static PFN_vkGetInstanceProcAddr g_gipa;
static unsigned g_messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL utils_cb(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                               VkDebugUtilsMessageTypeFlagsEXT types,
                                               const VkDebugUtilsMessengerCallbackDataEXT *data, void *ud) {
    (void)sev, (void)types, (void)data, (void)ud;
    g_messages++;
    return VK_FALSE;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL report_cb(VkDebugReportFlagsEXT flags, VkDebugReportObjectTypeEXT type,
                                                uint64_t object, size_t location, int32_t code, const char *prefix,
                                                const char *msg, void *ud) {
    (void)flags, (void)type, (void)object, (void)location, (void)code, (void)prefix, (void)msg, (void)ud;
    g_messages++;
    return VK_FALSE;
}

static int cmp_name(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

static void list_store(struct d_list *L, const char *const *names, size_t stride, uint32_t n) {
    L->count = n;
    uint32_t k = n < D_MAX_NAMES ? n : D_MAX_NAMES;
    for (uint32_t i = 0; i < k; i++) {
        const char *s = (const char *)names + i * stride;
        size_t len = strnlen(s, VK_MAX_EXTENSION_NAME_SIZE - 1);
        memcpy(L->name[i], s, len);
        L->name[i][len] = '\0';
    }
    qsort(L->name, k, sizeof L->name[0], cmp_name);
}

typedef VkResult (*ext_fn)(void *ctx, const char *layer, uint32_t *n, VkExtensionProperties *p);

static void ext_list(struct d_list *L, ext_fn fn, void *ctx, const char *layer) {
    uint32_t n = 0;
    L->result = fn(ctx, layer, &n, NULL);
    L->result2 = D_NOT_RUN;
    if (L->result != VK_SUCCESS || n > 4096) return;
    VkExtensionProperties *p = calloc(n + 1, sizeof *p);
    if (p == NULL) return;
    uint32_t got = n;
    L->result2 = fn(ctx, layer, &got, p);
    if (L->result2 == VK_SUCCESS || L->result2 == VK_INCOMPLETE)
        list_store(L, (const char *const *)(void *)p[0].extensionName, sizeof *p, got <= n ? got : n);
    free(p);
}

static VkResult global_eiep(void *ctx, const char *layer, uint32_t *n, VkExtensionProperties *p) {
    return ((PFN_vkEnumerateInstanceExtensionProperties)ctx)(layer, n, p);
}

struct dev_ctx {
    PFN_vkEnumerateDeviceExtensionProperties fn;
    VkPhysicalDevice pd;
};
static VkResult dev_edep(void *ctx, const char *layer, uint32_t *n, VkExtensionProperties *p) {
    struct dev_ctx *c = ctx;
    return c->fn(c->pd, layer, n, p);
}

#define GIPA(inst, name) g_gipa((inst), (name))

static void run_physdevs(const struct world *w, struct d_obs *o, VkInstance inst) {
    PFN_vkEnumeratePhysicalDevices epd = (PFN_vkEnumeratePhysicalDevices)GIPA(inst, "vkEnumeratePhysicalDevices");
    PFN_vkGetPhysicalDeviceProperties props =
        (PFN_vkGetPhysicalDeviceProperties)GIPA(inst, "vkGetPhysicalDeviceProperties");
    o->epd = o->epd2 = D_NO_FUNCTION;
    o->groups = D_NOT_RUN;
    o->create_device = D_NOT_RUN;
    o->edep.result = o->edep.result2 = D_NOT_RUN;
    if (epd == NULL || props == NULL) return;
    uint32_t n = 0;
    o->epd = epd(inst, &n, NULL);
    o->epd2 = D_NOT_RUN;
    if (o->epd != VK_SUCCESS || n == 0 || n > 1024) return;
    VkPhysicalDevice *pds = calloc(n, sizeof *pds);
    if (pds == NULL) return;
    uint32_t got = n;
    o->epd2 = epd(inst, &got, pds);
    if ((o->epd2 != VK_SUCCESS && o->epd2 != VK_INCOMPLETE) || got > n) got = 0;
    o->npd = got;
    for (uint32_t i = 0; i < got && i < D_MAX_PD; i++) {
        VkPhysicalDeviceProperties p;
        memset(&p, 0, sizeof p);
        props(pds[i], &p);
        o->pd[i].vendor = p.vendorID;
        o->pd[i].device = p.deviceID;
        o->pd[i].api = p.apiVersion;
        memcpy(o->pd[i].name, p.deviceName, sizeof p.deviceName);
        o->pd[i].name[sizeof o->pd[i].name - 1] = '\0';
    }
    o->stage = ST_PHYS;

    if (w->enum_groups) {
        bool allowed = w->api_version >= VK_API_VERSION_1_1;
        for (uint32_t i = 0; i < w->app_ext_count && !allowed; i++)
            allowed = w->app_ext[i] && strcmp(w->app_ext[i], "VK_KHR_device_group_creation") == 0;
        PFN_vkEnumeratePhysicalDeviceGroups groups =
            (PFN_vkEnumeratePhysicalDeviceGroups)GIPA(inst, "vkEnumeratePhysicalDeviceGroups");
        if (allowed && groups == NULL) o->groups = D_NO_FUNCTION;
        if (allowed && groups != NULL) {
            uint32_t ng = 0;
            o->groups = groups(inst, &ng, NULL);
            if (o->groups == VK_SUCCESS && ng > 0 && ng < 1024) {
                VkPhysicalDeviceGroupProperties *g = calloc(ng, sizeof *g);
                if (g != NULL) {
                    for (uint32_t i = 0; i < ng; i++) g[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
                    uint32_t gg = ng;
                    o->groups = groups(inst, &gg, g);
                    if ((o->groups == VK_SUCCESS || o->groups == VK_INCOMPLETE) && gg <= ng) {
                        o->ngroups = gg;
                        for (uint32_t i = 0; i < gg && i < D_MAX_GROUPS; i++) {
                            o->group_size[i] =
                                (uint8_t)(g[i].physicalDeviceCount > 255 ? 255 : g[i].physicalDeviceCount);
                            for (uint32_t k = 0; k < 4; k++) {
                                o->group_member[i][k] = -1;
                                if (k >= g[i].physicalDeviceCount || k >= VK_MAX_DEVICE_GROUP_SIZE) continue;
                                for (uint32_t j = 0; j < got && j < 127; j++)
                                    if (pds[j] == g[i].physicalDevices[k]) o->group_member[i][k] = (int8_t)j;
                            }
                        }
                    }
                    free(g);
                }
            }
        }
    }

    if (got == 0) {
        free(pds);
        return;
    }
    VkPhysicalDevice pd = pds[w->pd_choice % got];
    o->device_stage = true;
    struct dev_ctx dc = {
        .fn = (PFN_vkEnumerateDeviceExtensionProperties)GIPA(inst, "vkEnumerateDeviceExtensionProperties"),
        .pd = pd,
    };
    if (dc.fn != NULL) ext_list(&o->edep, dev_edep, &dc, NULL);
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)GIPA(inst, "vkCreateDevice");
    PFN_vkGetDeviceProcAddr gdpa = (PFN_vkGetDeviceProcAddr)GIPA(inst, "vkGetDeviceProcAddr");
    if (w->create_device && create != NULL) {
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
        o->create_device = create(pd, &dci, NULL, &dev);
        if (o->create_device == VK_SUCCESS && dev != VK_NULL_HANDLE) {
            PFN_vkDestroyDevice destroy = gdpa ? (PFN_vkDestroyDevice)gdpa(dev, "vkDestroyDevice") : NULL;
            if (destroy == NULL) destroy = (PFN_vkDestroyDevice)GIPA(inst, "vkDestroyDevice");
            if (destroy != NULL) destroy(dev, NULL);
        }
    }
    o->stage = ST_DEVICE;
    free(pds);
}

static void run_app(const struct world *w, struct d_obs *o, void *lib) {
    g_gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
    if (g_gipa == NULL) _exit(3);
    PFN_vkEnumerateInstanceExtensionProperties eiep =
        (PFN_vkEnumerateInstanceExtensionProperties)GIPA(VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties");
    PFN_vkEnumerateInstanceLayerProperties eilp =
        (PFN_vkEnumerateInstanceLayerProperties)GIPA(VK_NULL_HANDLE, "vkEnumerateInstanceLayerProperties");
    PFN_vkEnumerateInstanceVersion eiv =
        (PFN_vkEnumerateInstanceVersion)GIPA(VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)GIPA(VK_NULL_HANDLE, "vkCreateInstance");
    if (eiep == NULL || eilp == NULL || eiv == NULL || create == NULL) _exit(4);

    o->eiep_layer.result = o->eiep_layer.result2 = D_NOT_RUN;
    o->create = D_NOT_RUN;
    ext_list(&o->eiep, global_eiep, (void *)eiep, NULL);
    if (w->eiep_layer != NULL) ext_list(&o->eiep_layer, global_eiep, (void *)eiep, w->eiep_layer);
    uint32_t v = 0;
    o->eiv = eiv(&v);
    {
        uint32_t n = 0;
        o->eilp.result = eilp(&n, NULL);
        o->eilp.result2 = D_NOT_RUN;
        if (o->eilp.result == VK_SUCCESS && n <= 4096) {
            VkLayerProperties *p = calloc(n + 1, sizeof *p);
            if (p != NULL) {
                uint32_t got = n;
                o->eilp.result2 = eilp(&got, p);
                if (o->eilp.result2 == VK_SUCCESS || o->eilp.result2 == VK_INCOMPLETE)
                    list_store(&o->eilp, (const char *const *)(void *)p[0].layerName, sizeof *p, got <= n ? got : n);
                free(p);
            }
        }
    }
    o->stage = ST_PRE;

    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "loader_diff_fuzzer",
        .applicationVersion = 1,
        .pEngineName = "vkl",
        .engineVersion = 1,
        .apiVersion = w->api_version,
    };
    VkDebugReportCallbackCreateInfoEXT rci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT,
        .flags = 0x1f,
        .pfnCallback = report_cb,
    };
    VkDebugUtilsMessengerCreateInfoEXT uci = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .pNext = w->dbg_report_pnext ? &rci : NULL,
        .messageSeverity = w->msg_severity,
        .messageType = w->msg_types,
        .pfnUserCallback = utils_cb,
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
    VkInstance inst = VK_NULL_HANDLE;
    o->create = create(&ci, NULL, &inst);
    o->stage = ST_CREATE;
    if (o->create != VK_SUCCESS || inst == VK_NULL_HANDLE) {
        o->stage = ST_DONE;
        return;
    }
    run_physdevs(w, o, inst);
    PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)GIPA(inst, "vkDestroyInstance");
    if (destroy != NULL) destroy(inst, NULL);
    o->stage = ST_DONE;
}

void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));
static void child_death(void) { _exit(86); }

void run_child(const struct world *w, int side) {
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGALRM, SIGTERM, SIGINT, SIGUSR1, SIGUSR2};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], SIG_DFL);
    /* libFuzzer's death callback would write a crash file for this (child) input */
    if (__sanitizer_set_death_callback != NULL) __sanitizer_set_death_callback(child_death);
    char log[W_PATH + 32];
    snprintf(log, sizeof log, "%s/diff_%s.log", world_root(), k_side_name[side]);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
    }
    alarm(g_timeout_s);
    void *lib = __real_dlopen(g_loader[side], RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "cannot load %s: %s\n", g_loader[side], dlerror());
        _exit(2);
    }
    struct d_obs *o = &g_sh->obs[side];
    run_app(w, o, lib);
    if (side == SIDE_OURS && g_cntrs != NULL) memcpy(g_sh->cov, g_cntrs, g_sh->cov_size);
    _exit(0);
}
