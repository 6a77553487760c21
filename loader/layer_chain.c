/*
 * Layer call chains: the instance chain (VkLayerInstanceCreateInfo, LLP_LOADER_8) with the
 * loader's terminators at the bottom, the device chain (VkLayerDeviceCreateInfo, LLP_LOADER_9)
 * with the driver at the bottom, the set-loader-data callbacks, and the layer answers of the
 * enumeration commands (the proc addrs at the bottom of the chain are terminator_gpa.c's).
 * [Lyr] "Layer Call Chains and Distributed Dispatch", "Layer Conventions and Rules"; spec §5.5.
 */
#include <stdlib.h>
#include <string.h>

#include "loader/internal/chain.h"
#include "loader/internal/device.h"
#include "loader/internal/instance.h"
#include "loader/internal/physdev.h"
#include "loader/internal/unknown_func.h"
#include "loader/internal/tls.h"

/* The loader instance / device creation in progress on this thread: the terminators compare the
 * handle they receive with it (LLP_LAYER_21/22). */
static VKL_TLS struct vkl_instance *t_creating_instance;
static VKL_TLS bool t_device_check;
/* What *pDevice holds while the device chain runs (LLP_LAYER_22: a layer must not replace it before
 * calling down). A layer may take it for a dispatchable object and write its first words (a
 * dispatch pointer, loader data) without replacing it: the sentinel has room for a handle-sized
 * object and more, so such a write lands in it and never in the thread's other loader state. */
static VKL_TLS struct { void *words[8]; } t_device_sentinel;
/* A link shim already logged the culprit of this creation: the bottom check only refuses. */
static VKL_TLS bool t_instance_culprit_named, t_device_culprit_named;

/* The loader device records vkl_term_CreateDevice made during the device-chain creation in progress
 * on this thread. A layer whose own work fails after its call down succeeded destroys the driver's
 * device through the chain (the next vkGetDeviceProcAddr's vkDestroyDevice: the driver's function,
 * which never returns to the loader) and fails vkCreateDevice; the loader then releases these
 * records itself. More than VKL_TERM_DEVICES_MAX (a layer calling down that often) are not tracked. */
#define VKL_TERM_DEVICES_MAX 8
struct term_devices {
    struct vkl_device *dev[VKL_TERM_DEVICES_MAX];
    uint32_t count;
};
static VKL_TLS struct term_devices *t_term_devices;

void vkl_layer_chain_note_device(struct vkl_device *dev) {
    struct term_devices *t = t_term_devices;
    if (t != NULL && t->count < VKL_TERM_DEVICES_MAX) t->dev[t->count++] = dev;
}

/* The device chain failed: every record the terminator made during it is unlinked and freed (the
 * driver's device is the layers' to destroy; the loader cannot tell whether they did). */
static void release_term_devices(struct vkl_instance *inst, const struct term_devices *made, VkResult r) {
    for (uint32_t i = 0; i < made->count; i++) {
        struct vkl_device *dev = made->dev[i];
        if (!vkl_device_unlink(inst, dev)) continue;
        vkl_log(&inst->log, VKL_LOG_INFO | VKL_LOG_LAYER,
                "vkCreateDevice: the layer chain returned %s (%d) after driver %s created its device; the "
                "loader's device record is released [LLP_LOADER_9]",
                vkl_result_str(r), (int)r, vkl_driver_name(dev->icd->driver));
        struct vkl_alloc a = dev->alloc;
        vkl_free(&a, dev);
    }
}

/* ------------------------------------------------------------------ loader-data callbacks */

static VKAPI_ATTR VkResult VKAPI_CALL set_instance_loader_data(VkInstance instance, void *object) {
    if (instance == VK_NULL_HANDLE || object == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    *(const void **)object = *(const void *const *)(const void *)instance;
    return VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL set_device_loader_data(VkDevice device, void *object) {
    if (device == VK_NULL_HANDLE || object == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    *(const void **)object = *(const void *const *)(const void *)device;
    return VK_SUCCESS;
}

/* ------------------------------------------------------------------ handles of the chain */

/* The VkInstance that level j of the chain knows (j = 0: the top layer, j = layer_lib_count: the
 * loader's terminators): the handle layer j returned from vkCreateInstance, recorded by the link
 * shim that called it (link_create_instance; the top layer's is the chain's handle). Asking a
 * layer's vkGetInstanceProcAddr / GPDPA with any other handle is asking it about an instance it
 * does not know: a layer that wraps VkInstance (GFXReconstruct) answers NULL then (LLP_LAYER_10 is
 * the layer's side; this is the loader's). A level not seen (no link shim was left for it) knows
 * what the nearest seen level below it returned: right unless a layer in between wrapped. */
static VkInstance level_handle(const struct vkl_instance *inst, uint32_t j) {
    for (uint32_t i = j; i < inst->layer_lib_count; i++)
        if (inst->layer_libs[i].instance_handle != VK_NULL_HANDLE) return inst->layer_libs[i].instance_handle;
    return (VkInstance)(void *)(uintptr_t)inst;
}

/* Whether `h` is a VkInstance of `inst`'s chain (the loader's own or one some level returned). */
static bool chain_knows_handle(const struct vkl_instance *inst, VkInstance h) {
    if (h == (VkInstance)(void *)(uintptr_t)inst || h == inst->chain_handle) return true;
    for (uint32_t i = 0; i < inst->layer_lib_count; i++)
        if (inst->layer_libs[i].instance_handle == h) return true;
    return false;
}

/* ------------------------------------------------------------------ link shims (LLP_LAYER_21/22)
 *
 * The checks at the bottom of the chain see that *pInstance / *pDevice was overwritten, not by
 * whom. So each link's pfnNextGetInstanceProcAddr is a loader shim standing for what lies below
 * that link: it answers every name as the real next element does, except vkCreateInstance and
 * vkCreateDevice, for which it returns a create shim that checks the handle before calling the
 * real next element. The layer that called the first failing shim is the culprit: the log line
 * names it and its manifest, and the shim refuses the creation there (VK_ERROR_INITIALIZATION_FAILED):
 * the layers below never see the bogus handle, and a layer below that answers without calling down
 * cannot turn the refusal into success. The shims come from fixed pools (one function per slot, so
 * no run-time code); when every slot is taken the links get the real pointers and only the bottom
 * check remains. */

#define LINK_SLOTS 64

struct link_slot {
    struct vkl_instance *inst; /* owner; NULL: free */
    uint32_t level;            /* the level it stands for: layer `level`, or the terminators (== layer count) */
    PFN_vkGetInstanceProcAddr next_gipa;
    const struct vkl_layer_manifest *instance_caller; /* calls down through it in vkCreateInstance */
    const struct vkl_layer_manifest *device_caller;   /* ... in vkCreateDevice (NULL: not in that chain) */
};
static struct link_slot g_link_slots[LINK_SLOTS];
static pthread_mutex_t g_link_lock = PTHREAD_MUTEX_INITIALIZER;

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL link_gipa(int k, VkInstance instance, const char *name);
static VKAPI_ATTR VkResult VKAPI_CALL link_create_instance(int k, const VkInstanceCreateInfo *ci,
                                                           const VkAllocationCallbacks *a, VkInstance *pInstance);
static VKAPI_ATTR VkResult VKAPI_CALL link_create_device(int k, VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                                         const VkAllocationCallbacks *a, VkDevice *pDevice);

/* LINK_FNS(id, k): the three shims of slot k, named by the token id. */
#define LINK_FNS(id, k)                                                                                                \
    static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL link_gipa_##id(VkInstance i, const char *n) {                      \
        return link_gipa((k), i, n);                                                                                   \
    }                                                                                                                  \
    static VKAPI_ATTR VkResult VKAPI_CALL link_ci_##id(const VkInstanceCreateInfo *c, const VkAllocationCallbacks *a,  \
                                                       VkInstance *p) {                                                \
        return link_create_instance((k), c, a, p);                                                                     \
    }                                                                                                                  \
    static VKAPI_ATTR VkResult VKAPI_CALL link_cd_##id(VkPhysicalDevice pd, const VkDeviceCreateInfo *c,               \
                                                       const VkAllocationCallbacks *a, VkDevice *p) {                  \
        return link_create_device((k), pd, c, a, p);                                                                   \
    }
/* Slots 8b .. 8b+7, named <b><0..7>. */
/* The macro below stays as written: clang-format 14 does not settle on its body. */
/* clang-format off */
#define LINK_FNS8(b) LINK_FNS(b##0, b * 8 + 0) LINK_FNS(b##1, b * 8 + 1) LINK_FNS(b##2, b * 8 + 2) \
    LINK_FNS(b##3, b * 8 + 3) LINK_FNS(b##4, b * 8 + 4) LINK_FNS(b##5, b * 8 + 5) LINK_FNS(b##6, b * 8 + 6) \
    LINK_FNS(b##7, b * 8 + 7)
/* clang-format on */
LINK_FNS8(0)
LINK_FNS8(1)
LINK_FNS8(2)
LINK_FNS8(3)
LINK_FNS8(4)
LINK_FNS8(5)
LINK_FNS8(6)
LINK_FNS8(7)
#define LINK_ROW(b, f) f##b##0, f##b##1, f##b##2, f##b##3, f##b##4, f##b##5, f##b##6, f##b##7
#define LINK_TABLE(f)                                                                                                  \
    {                                                                                                                  \
        LINK_ROW(0, f), LINK_ROW(1, f), LINK_ROW(2, f), LINK_ROW(3, f), LINK_ROW(4, f), LINK_ROW(5, f),                \
            LINK_ROW(6, f), LINK_ROW(7, f)                                                                             \
    }
static const PFN_vkGetInstanceProcAddr g_link_gipa[LINK_SLOTS] = LINK_TABLE(link_gipa_);
static const PFN_vkCreateInstance g_link_ci[LINK_SLOTS] = LINK_TABLE(link_ci_);
static const PFN_vkCreateDevice g_link_cd[LINK_SLOTS] = LINK_TABLE(link_cd_);

static const char *culprit_name(const struct vkl_layer_manifest *m) { return m ? m->props.layerName : "?"; }
static const char *culprit_path(const struct vkl_layer_manifest *m) {
    return m && m->manifest_path ? m->manifest_path : "?";
}

/* Layer `level` of `inst` (NULL at the terminators' level). */
static const struct vkl_layer_manifest *level_manifest(const struct vkl_instance *inst, uint32_t level) {
    return level < inst->layer_lib_count ? inst->layer_libs[level].manifest : NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL link_gipa(int k, VkInstance instance, const char *name) {
    const struct link_slot *s = &g_link_slots[k];
    /* The next level is asked with the handle it knows: a caller passes the handle it knows below
     * itself, which is another level's when a layer in between is left out of the device chain (no
     * vkGetDeviceProcAddr) or wrapped the instance. Handles of other instances pass unchanged. */
    if (instance != VK_NULL_HANDLE && chain_knows_handle(s->inst, instance)) instance = level_handle(s->inst, s->level);
    PFN_vkVoidFunction f = s->next_gipa(instance, name);
    if (name == NULL) return f;
    bool ci = strcmp(name, "vkCreateInstance") == 0, cd = !ci && strcmp(name, "vkCreateDevice") == 0;
    if (f == NULL && ((ci && t_creating_instance == s->inst) || (cd && t_device_check))) {
        /* The layer above cannot call down: the creation in progress fails in that layer. */
        vkl_log(&s->inst->log, VKL_LOG_ERROR | VKL_LOG_LAYER,
                "%s: layer %s (manifest %s) gives no %s through its vkGetInstanceProcAddr; the layer above it "
                "cannot call down [%s]",
                name, culprit_name(level_manifest(s->inst, s->level)), culprit_path(level_manifest(s->inst, s->level)),
                name, ci ? "LLP_LOADER_8" : "LLP_LOADER_9");
        return NULL;
    }
    if (f == NULL) return NULL;
    if (ci) return (PFN_vkVoidFunction)g_link_ci[k];
    if (cd) return (PFN_vkVoidFunction)g_link_cd[k];
    return f;
}

static VKAPI_ATTR VkResult VKAPI_CALL link_create_instance(int k, const VkInstanceCreateInfo *ci,
                                                           const VkAllocationCallbacks *a, VkInstance *pInstance) {
    const struct link_slot *s = &g_link_slots[k];
    VkInstance expected = (VkInstance)(void *)s->inst;
    if (t_creating_instance == s->inst && *pInstance != expected) {
        if (!t_instance_culprit_named)
            vkl_log(&s->inst->log, VKL_LOG_ERROR | VKL_LOG_LAYER,
                    "vkCreateInstance: layer %s (manifest %s) overwrote *pInstance before calling down the chain; "
                    "instance creation refused [LLP_LAYER_21]",
                    culprit_name(s->instance_caller), culprit_path(s->instance_caller));
        t_instance_culprit_named = true;
        /* Refused here, not only at the terminator: a layer below that answers without calling
         * down would otherwise turn the refusal into VK_SUCCESS with a bogus handle. */
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    PFN_vkCreateInstance next = (PFN_vkCreateInstance)s->next_gipa(expected, "vkCreateInstance");
    if (next == NULL) {
        vkl_log(&s->inst->log, VKL_LOG_ERROR | VKL_LOG_LAYER,
                "vkCreateInstance: layer %s (manifest %s) gives no vkCreateInstance through its "
                "vkGetInstanceProcAddr; instance creation refused [LLP_LOADER_8]",
                culprit_name(level_manifest(s->inst, s->level)), culprit_path(level_manifest(s->inst, s->level)));
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkResult r = next(ci, a, pInstance);
    /* What this level returned is the handle its vkGetInstanceProcAddr knows from now on (its own
     * wrapper when it wrapped). Only from a chain that reached the loader: a handle a layer wrote
     * without calling down is refused elsewhere (LLP_LAYER_21). */
    if (r == VK_SUCCESS && t_creating_instance == s->inst && s->inst->terminator_reached &&
        s->level < s->inst->layer_lib_count)
        s->inst->layer_libs[s->level].instance_handle = *pInstance;
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL link_create_device(int k, VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                                         const VkAllocationCallbacks *a, VkDevice *pDevice) {
    const struct link_slot *s = &g_link_slots[k];
    if (t_device_check && *pDevice != (VkDevice)(void *)&t_device_sentinel) {
        if (!t_device_culprit_named)
            vkl_log(&s->inst->log, VKL_LOG_ERROR | VKL_LOG_LAYER,
                    "vkCreateDevice: layer %s (manifest %s) overwrote *pDevice before calling down the chain; "
                    "device creation refused [LLP_LAYER_22]",
                    culprit_name(s->device_caller), culprit_path(s->device_caller));
        t_device_culprit_named = true;
        return VK_ERROR_INITIALIZATION_FAILED; /* refused here (see link_create_instance) */
    }
    /* Asked with the instance handle that level knows (a wrapping layer knows only its wrapper). */
    PFN_vkCreateDevice next = (PFN_vkCreateDevice)s->next_gipa(level_handle(s->inst, s->level), "vkCreateDevice");
    if (next == NULL) {
        vkl_log(&s->inst->log, VKL_LOG_ERROR | VKL_LOG_LAYER,
                "vkCreateDevice: layer %s (manifest %s) gives no vkCreateDevice through its vkGetInstanceProcAddr; "
                "device creation refused [LLP_LOADER_9]",
                culprit_name(level_manifest(s->inst, s->level)), culprit_path(level_manifest(s->inst, s->level)));
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    return next(pd, ci, a, pDevice);
}

/* Claims the slots of `inst` (callee j = 1..n). Lock-free readers only see slots of live chains. */
static void link_slots_claim(struct vkl_instance *inst) {
    uint32_t n = inst->layer_lib_count;
    inst->link_slots = vkl_calloc(&inst->alloc, (n + 1) * sizeof(int), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
    if (inst->link_slots == NULL) return;
    pthread_mutex_lock(&g_link_lock);
    const struct vkl_layer_manifest *dev_caller = NULL;
    int k = 0;
    for (uint32_t j = 0; j <= n; j++) {
        if (j > 0) {
            while (k < LINK_SLOTS && g_link_slots[k].inst != NULL) k++;
            if (k == LINK_SLOTS) {
                inst->link_slots[j] = -1;
            } else {
                struct link_slot *s = &g_link_slots[k];
                s->inst = inst;
                s->level = j;
                s->next_gipa = j < n ? inst->layer_libs[j].gipa : vkl_term_GetInstanceProcAddr;
                s->instance_caller = inst->layer_libs[j - 1].manifest;
                s->device_caller = dev_caller;
                inst->link_slots[j] = k;
            }
        }
        /* The device chain skips layers without vkGetDeviceProcAddr. */
        if (j < n && inst->layer_libs[j].gdpa != NULL) dev_caller = inst->layer_libs[j].manifest;
    }
    pthread_mutex_unlock(&g_link_lock);
    if (k == LINK_SLOTS)
        vkl_log(&inst->log, VKL_LOG_DEBUG | VKL_LOG_LAYER,
                "vkCreateInstance: no link shim left; a layer that overwrites *pInstance / *pDevice will not be named");
}

static void link_slots_release(struct vkl_instance *inst) {
    if (inst->link_slots == NULL) return;
    pthread_mutex_lock(&g_link_lock);
    for (uint32_t j = 1; j <= inst->layer_lib_count; j++)
        if (inst->link_slots[j] >= 0) memset(&g_link_slots[inst->link_slots[j]], 0, sizeof(g_link_slots[0]));
    pthread_mutex_unlock(&g_link_lock);
    vkl_free(&inst->alloc, inst->link_slots);
    inst->link_slots = NULL;
}

/* What link gets as pfnNextGetInstanceProcAddr for "what lies below layer j - 1". */
static PFN_vkGetInstanceProcAddr link_next_gipa(const struct vkl_instance *inst, uint32_t j) {
    if (inst->link_slots != NULL && inst->link_slots[j] >= 0) return g_link_gipa[inst->link_slots[j]];
    return j < inst->layer_lib_count ? inst->layer_libs[j].gipa : vkl_term_GetInstanceProcAddr;
}

/* Layer-created devices (VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK), defined with the device chain. */
static VKAPI_ATTR VkResult VKAPI_CALL layer_create_device(VkInstance instance, VkPhysicalDevice physicalDevice,
                                                          const VkDeviceCreateInfo *pCreateInfo,
                                                          const VkAllocationCallbacks *pAllocator, VkDevice *pDevice,
                                                          PFN_vkGetInstanceProcAddr layerGIPA,
                                                          PFN_vkGetDeviceProcAddr *nextGDPA);
static VKAPI_ATTR void VKAPI_CALL layer_destroy_device(VkDevice device, const VkAllocationCallbacks *pAllocator,
                                                       PFN_vkDestroyDevice destroyFunction);

/* ------------------------------------------------------------------ instance chain */

static VKL_TLS PFN_vkGetInstanceProcAddr t_fill_gipa;
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL fill_gipa(VkInstance instance, const char *name) {
    return instance == VK_NULL_HANDLE ? NULL : t_fill_gipa(instance, name);
}

static bool app_requested(const VkInstanceCreateInfo *ci, const char *name) {
    for (uint32_t i = 0; i < ci->enabledLayerCount; i++)
        if (ci->ppEnabledLayerNames[i] != NULL && strcmp(ci->ppEnabledLayerNames[i], name) == 0) return true;
    return false;
}

/* The shown list (vkl_layers_activate_shown) without the layers that failed to load. */
static VkResult keep_shown(struct vkl_instance *inst, const struct vkl_layer_manifest **shown, uint32_t count) {
    if (count == 0) return VK_SUCCESS;
    inst->shown_layers = vkl_calloc(&inst->alloc, count * sizeof(*shown), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
    if (inst->shown_layers == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t lib = 0; /* both lists keep activation order: one pass */
    for (uint32_t i = 0; i < count; i++) {
        if (!shown[i]->is_meta) {
            while (lib < inst->layer_lib_count && inst->layer_libs[lib].manifest != shown[i]) lib++;
            if (lib == inst->layer_lib_count) continue; /* not loaded */
        }
        inst->shown_layers[inst->shown_layer_count++] = shown[i];
    }
    return VK_SUCCESS;
}

VkResult vkl_layer_chain_prepare(struct vkl_instance *inst, const VkInstanceCreateInfo *ci) {
    const struct vkl_layer_manifest **list = NULL, **shown = NULL;
    uint32_t n = 0, shown_count = 0;
    VkResult r = vkl_layers_acquire(&inst->log, &inst->layer_set);
    if (r != VK_SUCCESS) goto out;
    inst->layer_set_held = true;
    r = vkl_layers_activate_shown(&inst->layer_set, ci->ppEnabledLayerNames, ci->enabledLayerCount, &inst->log, &list,
                                  &n, &shown, &shown_count);
    if (r != VK_SUCCESS || n == 0) goto out;
    inst->layer_libs = vkl_calloc(&inst->alloc, n * sizeof(*inst->layer_libs), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
    if (inst->layer_libs == NULL) {
        r = VK_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        struct vkl_layer_lib *lib = &inst->layer_libs[inst->layer_lib_count];
        bool requested = app_requested(ci, list[i]->props.layerName);
        if (vkl_layer_lib_load(list[i], requested, &inst->log, lib) != VK_SUCCESS) {
            /* An application layer that cannot be loaded fails vkCreateInstance (LLP_LAYER_6);
             * others are skipped. The remaining layers are still tried, so that one call reports
             * every layer that cannot be loaded; the libraries loaded are released on failure. */
            if (requested) r = VK_ERROR_LAYER_NOT_PRESENT;
            continue;
        }
        if (r == VK_SUCCESS)
            vkl_log(&inst->log, VKL_LOG_INFO | VKL_LOG_LAYER, "Insert instance layer \"%s\" (%s)",
                    list[i]->props.layerName, list[i]->library_path);
        inst->layer_lib_count++;
    }
    if (r == VK_SUCCESS) r = keep_shown(inst, shown, shown_count);
    /* A layer built for an older Vulkan than the application asks for may not know the newer
     * commands it is handed: warned, as the Khronos loader warns (major.minor compared). */
    for (uint32_t i = 0; r == VK_SUCCESS && i < inst->layer_lib_count; i++) {
        uint32_t lv = inst->layer_libs[i].manifest->props.specVersion, av = inst->app_api_version;
        uint32_t lmm = VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(lv), VK_API_VERSION_MINOR(lv), 0);
        uint32_t amm = VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(av), VK_API_VERSION_MINOR(av), 0);
        if (lmm < amm)
            vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_LAYER,
                    "Layer %s uses API version %u.%u which is older than the application specified API version of "
                    "%u.%u. May cause issues. [LLP_LOADER_4]",
                    inst->layer_libs[i].manifest->props.layerName, VK_API_VERSION_MAJOR(lv), VK_API_VERSION_MINOR(lv),
                    VK_API_VERSION_MAJOR(av), VK_API_VERSION_MINOR(av));
    }
out:
    free(list);
    free(shown);
    return r;
}

void vkl_layer_chain_finish(struct vkl_instance *inst) {
    link_slots_release(inst);
    for (uint32_t i = 0; i < inst->layer_lib_count; i++) vkl_layer_lib_unload(&inst->layer_libs[i]);
    vkl_free(&inst->alloc, inst->layer_libs);
    inst->layer_libs = NULL;
    inst->layer_lib_count = 0;
    vkl_free(&inst->alloc, inst->shown_layers);
    inst->shown_layers = NULL;
    inst->shown_layer_count = 0;
    if (inst->layer_set_held) vkl_layers_release(&inst->layer_set);
    inst->layer_set_held = false;
}

bool vkl_layer_chain_has_extension(const struct vkl_instance *inst, const char *ext) {
    for (uint32_t i = 0; i < inst->layer_lib_count; i++) {
        const struct vkl_layer_manifest *m = inst->layer_libs[i].manifest;
        for (uint32_t k = 0; k < m->instance_extension_count; k++)
            if (strcmp(m->instance_extensions[k].props.extensionName, ext) == 0) return true;
    }
    return false;
}

const struct vkl_layer_manifest *vkl_layer_chain_device_extension_owner(const struct vkl_instance *inst,
                                                                        const char *ext) {
    for (uint32_t i = 0; i < inst->layer_lib_count; i++) {
        const struct vkl_layer_manifest *m = inst->layer_libs[i].manifest;
        for (uint32_t k = 0; k < m->device_extension_count; k++)
            if (strcmp(m->device_extensions[k].props.extensionName, ext) == 0) return m;
    }
    return NULL;
}

/* Whether `name` is an entrypoint of any active layer's device extension (its manifest's
 * device_extensions). */
static bool has_device_entrypoint(const struct vkl_instance *inst, const char *name) {
    for (uint32_t i = 0; i < inst->layer_lib_count; i++) {
        const struct vkl_layer_manifest *m = inst->layer_libs[i].manifest;
        for (uint32_t k = 0; k < m->device_extension_count; k++)
            for (uint32_t e = 0; e < m->device_extensions[k].entrypoint_count; e++)
                if (strcmp(m->device_extensions[k].entrypoints[e], name) == 0) return true;
    }
    return false;
}

VkResult vkl_layer_chain_create_instance(struct vkl_instance *inst, const VkInstanceCreateInfo *pCreateInfo,
                                         const VkAllocationCallbacks *pAllocator, VkInstance *pInstance) {
    uint32_t n = inst->layer_lib_count;
    *pInstance = (VkInstance)(void *)inst;
    if (n == 0) {
        /* No layers: an instance a layer creates from inside another instance's chain on this thread
         * (RULE_THREADS_REENTRY) is not that chain's, so its terminator does not check against it. */
        struct vkl_instance *outer_creating = t_creating_instance;
        bool outer_named = t_instance_culprit_named;
        t_creating_instance = NULL;
        t_instance_culprit_named = false;
        VkResult lr = vkl_term_CreateInstance(pCreateInfo, pAllocator, pInstance);
        t_creating_instance = outer_creating;
        t_instance_culprit_named = outer_named;
        return lr;
    }

    VkResult r;
    VkLayerInstanceLink *links = vkl_calloc(&inst->alloc, n * sizeof(*links), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (links == NULL) {
        r = VK_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    link_slots_claim(inst);
    /* Link i describes what lies below layer i. A layer without GPDPA is skipped by the
     * physical-device link (the next one down that has it answers). */
    PFN_GetPhysicalDeviceProcAddr below_gpdpa = vkl_term_GetPhysicalDeviceProcAddr;
    for (uint32_t i = n; i-- > 0;) {
        links[i].pNext = i + 1 < n ? &links[i + 1] : NULL;
        links[i].pfnNextGetInstanceProcAddr = link_next_gipa(inst, i + 1);
        links[i].pfnNextGetPhysicalDeviceProcAddr = below_gpdpa;
        if (inst->layer_libs[i].gpdpa != NULL) below_gpdpa = inst->layer_libs[i].gpdpa;
    }
    VkLayerInstanceCreateInfo chain = {.sType = VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO,
                                       .pNext = pCreateInfo->pNext,
                                       .function = VK_LAYER_LINK_INFO};
    chain.u.pLayerInfo = &links[0];
    VkLayerInstanceCreateInfo devcb = {.sType = VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO,
                                       .pNext = &chain,
                                       .function = VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK};
    devcb.u.layerDevice.pfnLayerCreateDevice = layer_create_device;
    devcb.u.layerDevice.pfnLayerDestroyDevice = layer_destroy_device;
    VkLayerInstanceCreateInfo data = {
        .sType = VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO, .pNext = &devcb, .function = VK_LOADER_DATA_CALLBACK};
    data.u.pfnSetInstanceLoaderData = set_instance_loader_data;
    /* The layers see the application's create info, its ppEnabledLayerNames unchanged (not the
     * expanded list of loaded layers): a layer tells from it whether the application named it or it
     * runs as an implicit layer, as under the Khronos loader. */
    VkInstanceCreateInfo ci = *pCreateInfo;
    ci.pNext = &data;

    /* The instance's dispatch key is fixed before any layer sees the handle. */
    inst->disp = &inst->chain_disp;
    /* The create function is fetched with the instance handle, as layers written for the Khronos
     * loader expect ([Lyr] "Layer Conventions and Rules"). */
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)inst->layer_libs[0].gipa(*pInstance, "vkCreateInstance");
    if (create == NULL) {
        vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_LAYER,
                "layer %s: vkGetInstanceProcAddr gives no vkCreateInstance [LLP_LOADER_8]",
                inst->layer_libs[0].manifest->props.layerName);
        r = VK_ERROR_INITIALIZATION_FAILED;
        goto out;
    }
    /* A layer may create an instance of its own from inside this chain, on this thread
     * (RULE_THREADS_REENTRY): the nested creation restores the outer one's state when it returns. */
    struct vkl_instance *outer_creating = t_creating_instance;
    bool outer_instance_named = t_instance_culprit_named;
    t_creating_instance = inst;
    t_instance_culprit_named = false;
    r = create(&ci, pAllocator, pInstance);
    t_creating_instance = outer_creating;
    t_instance_culprit_named = outer_instance_named;
    if (r == VK_ERROR_EXTENSION_NOT_PRESENT)
        vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_LAYER,
                "vkCreateInstance: a layer returned VK_ERROR_EXTENSION_NOT_PRESENT for extensions the loader "
                "validated [LLP_LAYER_17]");
    if (r != VK_SUCCESS) goto out;
    /* A layer may replace *pInstance after its call down returned (wrapping it for the layers
     * above and the application): legal, LLP_LAYER_21 forbids it only before calling down. The
     * application keeps the loader's handle; every call into the chain passes the chain's. */
    if (*pInstance != (VkInstance)(void *)inst && !inst->terminator_reached) {
        /* Not a wrapper of the loader's instance: nothing reached the loader, so the handle is what
         * a layer wrote into *pInstance before answering without calling down. */
        vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_LAYER,
                "vkCreateInstance: the layer chain returned a VkInstance the loader never created (a layer "
                "overwrote *pInstance and answered without calling down); the loader keeps its own [LLP_LAYER_21]");
        *pInstance = (VkInstance)(void *)inst;
    }
    if (*pInstance != (VkInstance)(void *)inst) {
        vkl_log(&inst->log, VKL_LOG_INFO | VKL_LOG_LAYER,
                "vkCreateInstance: the layer chain returned its own VkInstance %p (a layer wrapped it after calling "
                "down); the loader dispatches through it",
                (void *)*pInstance);
        inst->chain_handle = *pInstance;
        *pInstance = (VkInstance)(void *)inst;
    }
    inst->layer_libs[0].instance_handle = inst->chain_handle; /* the top level's */
    /* Global commands never dispatch through the chain, and layers (Mesa's device_select among
     * them) may crash on vkGetInstanceProcAddr(NULL, ...) for them: the fill gets NULL there. */
    t_fill_gipa = inst->layer_libs[0].gipa;
    vkl_gen_instance_dispatch_fill(&inst->chain_disp, fill_gipa, inst->chain_handle);
    t_fill_gipa = NULL;
    /* Commands no layer or terminator answers stay unsupported; the instance functions the
     * trampolines always need fall back to the terminators. */
    if (inst->chain_disp.DestroyInstance == NULL) {
        /* vkDestroyInstance then gives the terminator the loader's own handle (instance.c), never a
         * layer's wrapper. */
        vkl_log(&inst->log, VKL_LOG_WARN | VKL_LOG_LAYER,
                "vkCreateInstance: layer %s gives no vkDestroyInstance; the layers will not see the instance "
                "destroyed [LLP_LOADER_8]",
                inst->layer_libs[0].manifest->props.layerName);
        inst->chain_disp.DestroyInstance = vkl_term_DestroyInstance;
    }
out:
    vkl_free(&inst->alloc, links);
    return r;
}

/* Called by vkl_term_CreateInstance: false when a layer replaced *pInstance before calling down. */
bool vkl_layer_chain_check_instance(VkInstance *pInstance) {
    struct vkl_instance *expected = t_creating_instance;
    if (expected == NULL || *pInstance == (VkInstance)(void *)expected) return true;
    if (t_instance_culprit_named) return false; /* a link shim named the layer */
    vkl_log(&expected->log, VKL_LOG_ERROR | VKL_LOG_LAYER,
            "vkCreateInstance: a layer overwrote *pInstance before calling down the chain; instance creation "
            "refused [LLP_LAYER_21]");
    return false;
}

/* ------------------------------------------------------------------ device chain */

/* vkl_term_CreateDevice for a device chain without layers, refusing a physical device that is not
 * one of the terminators' (a layer that is left out of the device chain wrapped it: the layers
 * that could unwrap it are not in the chain). */
static VkResult create_device_at_terminator(struct vkl_instance *inst, VkPhysicalDevice pd,
                                            const VkDeviceCreateInfo *pCreateInfo,
                                            const VkAllocationCallbacks *pAllocator, VkDevice *pDevice) {
    if (!vkl_physdev_is_term(inst, pd)) {
        vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_LAYER,
                "vkCreateDevice: no layer takes part in the device chain and physical device %p is not the "
                "loader's (a layer without vkGetDeviceProcAddr wrapped it); device creation refused [LLP_LOADER_9]",
                (void *)pd);
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    return vkl_term_CreateDevice(pd, pCreateInfo, pAllocator, pDevice);
}

/* The device chain of layers first..layer_lib_count-1 (first == 0: the application's, every layer)
 * over the driver of `term_pd` (the physical device as layer `first` sees it). On success the
 * device's dispatch comes from the top layer's GDPA and *top_gdpa (when given) is that GDPA (the
 * driver's through the loader when no layer takes part). */
static VkResult create_device_chain(struct vkl_instance *inst, uint32_t first, VkPhysicalDevice term_pd,
                                    const VkDeviceCreateInfo *pCreateInfo, const VkAllocationCallbacks *pAllocator,
                                    VkDevice *pDevice, PFN_vkGetDeviceProcAddr *top_gdpa) {
    uint32_t n = 0;
    VkResult r;
    uint32_t cap = inst->layer_lib_count > 0 ? inst->layer_lib_count : 1;
    VkLayerDeviceLink *links = vkl_calloc(&inst->alloc, cap * sizeof(*links), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    struct vkl_layer_lib **libs = vkl_calloc(&inst->alloc, cap * sizeof(*libs), VK_SYSTEM_ALLOCATION_SCOPE_COMMAND);
    if (top_gdpa != NULL) *top_gdpa = vkl_term_GetDeviceProcAddr;
    if (links == NULL || libs == NULL) {
        r = VK_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    for (uint32_t i = first; i < inst->layer_lib_count; i++) {
        if (inst->layer_libs[i].gdpa == NULL) {
            vkl_log(&inst->log, VKL_LOG_INFO | VKL_LOG_LAYER,
                    "vkCreateDevice: layer %s has no vkGetDeviceProcAddr; "
                    "left out of the device chain",
                    inst->layer_libs[i].manifest->props.layerName);
            continue;
        }
        libs[n++] = &inst->layer_libs[i];
    }
    for (uint32_t i = 0; i < n; i++) {
        links[i].pNext = i + 1 < n ? &links[i + 1] : NULL;
        links[i].pfnNextGetInstanceProcAddr =
            link_next_gipa(inst, i + 1 < n ? (uint32_t)(libs[i + 1] - inst->layer_libs) : inst->layer_lib_count);
        links[i].pfnNextGetDeviceProcAddr = i + 1 < n ? libs[i + 1]->gdpa : vkl_term_GetDeviceProcAddr;
    }
    if (n == 0) { /* no layer takes part: the terminator, with a physical device of its own only */
        r = create_device_at_terminator(inst, term_pd, pCreateInfo, pAllocator, pDevice);
        goto out;
    }
    /* The first layer of the device chain is asked with the VkInstance its level returned, also when
     * layers above it are left out (no vkGetDeviceProcAddr) or the chain starts below the
     * application (a layer's own device). */
    uint32_t top = (uint32_t)(libs[0] - inst->layer_libs);
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)libs[0]->gipa(level_handle(inst, top), "vkCreateDevice");
    if (create == NULL) {
        /* Never around the layer to the driver: the physical device the layer was to get is its
         * own (a wrapper, maybe), which the loader's terminator does not know. */
        vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_LAYER,
                "vkCreateDevice: layer %s (manifest %s) gives no vkCreateDevice through its vkGetInstanceProcAddr; "
                "device creation refused [LLP_LOADER_9]",
                culprit_name(libs[0]->manifest), culprit_path(libs[0]->manifest));
        r = VK_ERROR_INITIALIZATION_FAILED;
        goto out;
    }
    VkLayerDeviceCreateInfo chain = {.sType = VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO,
                                     .pNext = pCreateInfo->pNext,
                                     .function = VK_LAYER_LINK_INFO};
    chain.u.pLayerInfo = &links[0];
    VkLayerDeviceCreateInfo data = {
        .sType = VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO, .pNext = &chain, .function = VK_LOADER_DATA_CALLBACK};
    data.u.pfnSetDeviceLoaderData = set_device_loader_data;
    VkDeviceCreateInfo ci = *pCreateInfo;
    ci.pNext = &data;
    *pDevice = (VkDevice)(void *)&t_device_sentinel;
    /* As for instances: a device a layer creates from inside this chain (RULE_THREADS_REENTRY) runs
     * its own check and gives this one back its state. */
    bool outer_check = t_device_check, outer_named = t_device_culprit_named;
    t_device_check = true;
    t_device_culprit_named = false;
    struct term_devices made = {.count = 0};
    struct term_devices *outer = t_term_devices;
    t_term_devices = &made;
    r = create(term_pd, &ci, pAllocator, pDevice);
    t_term_devices = outer;
    t_device_check = outer_check;
    t_device_culprit_named = outer_named;
    if (r != VK_SUCCESS) {
        release_term_devices(inst, &made, r);
        goto out;
    }
    /* The device dispatch now comes from the top layer's vkGetDeviceProcAddr. */
    struct vkl_device *dev = vkl_device_from_handle(*pDevice);
    pthread_mutex_lock(&inst->lock);
    vkl_gen_device_dispatch_fill(&dev->disp.gen, libs[0]->gdpa, *pDevice);
    if (dev->disp.gen.GetDeviceProcAddr == NULL) dev->disp.gen.GetDeviceProcAddr = libs[0]->gdpa;
    memset(dev->disp.unknown, 0, sizeof(dev->disp.unknown));
    dev->chain_handle = *pDevice; /* the top layer's GDPA is asked with the handle it returned */
    vkl_unknown_fill_device(inst, dev);
    dev->layered = true;
    pthread_mutex_unlock(&inst->lock);
    if (top_gdpa != NULL) *top_gdpa = libs[0]->gdpa;
out:
    vkl_free(&inst->alloc, links);
    vkl_free(&inst->alloc, libs);
    return r;
}

VkResult vkl_layer_chain_create_device(struct vkl_instance *inst, VkPhysicalDevice term_pd,
                                       const VkDeviceCreateInfo *pCreateInfo, const VkAllocationCallbacks *pAllocator,
                                       VkDevice *pDevice) {
    return create_device_chain(inst, 0, term_pd, pCreateInfo, pAllocator, pDevice, NULL);
}

/* ------------------------------------------------------------------ layer-created devices
 *
 * VK_LOADER_LAYER_CREATE_DEVICE_CALLBACK ([Lyr] "Layer Created Devices"): the loader hands every
 * layer's vkCreateInstance a pfnLayerCreateDevice / pfnLayerDestroyDevice pair, so a layer can make
 * a VkDevice of its own through the loader: the loader builds the device chain of the layers below
 * the caller (named by layerGIPA: the pfnNextGetInstanceProcAddr the layer was given; NULL: the whole
 * chain, as for the application) over the driver, keeps its device record, and returns the chain's
 * vkGetDeviceProcAddr in *nextGDPA, through which the layer calls the device. physicalDevice is the
 * handle the caller uses below itself (with a NULL instance: an application physical device). */

/* Index of the first layer of the chain a layer-created device goes through, from layerGIPA: the
 * calling layer's own vkGetInstanceProcAddr (the Khronos loader's reading: the layers below the
 * caller), or the pfnNextGetInstanceProcAddr the caller was given (a link shim standing for what lies
 * below it, or the loader's terminator); NULL: every layer. UINT32_MAX when `gipa` is none of them. */
static uint32_t first_layer_for_gipa(const struct vkl_instance *inst, PFN_vkGetInstanceProcAddr gipa) {
    if (gipa == NULL) return 0;
    for (uint32_t i = 0; i < inst->layer_lib_count; i++)
        if (inst->layer_libs[i].gipa == gipa) return i + 1;
    for (uint32_t j = 1; inst->link_slots != NULL && j <= inst->layer_lib_count; j++)
        if (inst->link_slots[j] >= 0 && g_link_gipa[inst->link_slots[j]] == gipa) return j;
    return gipa == vkl_term_GetInstanceProcAddr ? inst->layer_lib_count : UINT32_MAX;
}

/* The loader instance behind a link shim pointer (NULL when `gipa` is no shim of a live chain). */
static struct vkl_instance *instance_of_link(PFN_vkGetInstanceProcAddr gipa) {
    for (int k = 0; gipa != NULL && k < LINK_SLOTS; k++)
        if (g_link_gipa[k] == gipa) return g_link_slots[k].inst;
    return NULL;
}

static VKAPI_ATTR VkResult VKAPI_CALL layer_create_device(VkInstance instance, VkPhysicalDevice physicalDevice,
                                                          const VkDeviceCreateInfo *pCreateInfo,
                                                          const VkAllocationCallbacks *pAllocator, VkDevice *pDevice,
                                                          PFN_vkGetInstanceProcAddr layerGIPA,
                                                          PFN_vkGetDeviceProcAddr *nextGDPA) {
    if (physicalDevice == VK_NULL_HANDLE || pCreateInfo == NULL || pDevice == NULL)
        return VK_ERROR_INITIALIZATION_FAILED;
    /* The instance: from the link shim when layerGIPA is one, else from the handle (the loader's own,
     * which the layers below any wrapping layer know), else from an application physical device. */
    struct vkl_instance *inst = instance_of_link(layerGIPA);
    VkPhysicalDevice below = physicalDevice;
    if (instance == VK_NULL_HANDLE) {
        /* An application physical device: the chain starts with the handle the top layer knows. */
        const struct vkl_physdev_tramp *t = (const struct vkl_physdev_tramp *)(const void *)physicalDevice;
        if (inst == NULL) inst = t->instance;
        below = t->next;
    } else if (inst == NULL) {
        inst = vkl_chain_instance(instance); /* the loader's own handle, or a layer's wrapper of it */
    }
    uint32_t first = first_layer_for_gipa(inst, layerGIPA);
    if (first == UINT32_MAX) {
        vkl_log(&inst->log, VKL_LOG_ERROR | VKL_LOG_LAYER,
                "pfnLayerCreateDevice: layerGIPA is no vkGetInstanceProcAddr of this instance's chain; device not "
                "created [RULE_LYR_CREATE_DEVICE_CALLBACK]");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    vkl_log(&inst->log, VKL_LOG_INFO | VKL_LOG_LAYER,
            "pfnLayerCreateDevice: a layer creates a device through the %u layer(s) below it "
            "[RULE_LYR_CREATE_DEVICE_CALLBACK]",
            inst->layer_lib_count - first);
    *pDevice = VK_NULL_HANDLE;
    PFN_vkGetDeviceProcAddr gdpa = vkl_term_GetDeviceProcAddr;
    VkResult r;
    /* A layer may call this inside its own vkCreateDevice: the checks of the outer creation
     * (LLP_LAYER_22) are set aside meanwhile. */
    bool outer_check = t_device_check, outer_named = t_device_culprit_named;
    struct term_devices *outer_made = t_term_devices;
    t_device_check = false;
    t_term_devices = NULL;
    const VkDeviceCreateInfo *outer_requested = vkl_device_set_requested(pCreateInfo); /* the layer's own */
    if (first == inst->layer_lib_count) {
        r = create_device_at_terminator(inst, below, pCreateInfo, pAllocator, pDevice);
    } else {
        r = create_device_chain(inst, first, below, pCreateInfo, pAllocator, pDevice, &gdpa);
    }
    t_device_check = outer_check;
    t_device_culprit_named = outer_named;
    t_term_devices = outer_made;
    vkl_device_set_requested(outer_requested);
    if (r == VK_SUCCESS && nextGDPA != NULL) *nextGDPA = gdpa;
    return r;
}

static VKAPI_ATTR void VKAPI_CALL layer_destroy_device(VkDevice device, const VkAllocationCallbacks *pAllocator,
                                                       PFN_vkDestroyDevice destroyFunction) {
    if (device == VK_NULL_HANDLE) return;
    struct vkl_device *dev = vkl_device_from_handle(device);
    struct vkl_instance *inst = dev->instance;
    PFN_vkDestroyDevice destroy = destroyFunction != NULL ? destroyFunction : dev->disp.gen.DestroyDevice;
    if (destroy != NULL) destroy(device, pAllocator);
    if (vkl_device_unlink(inst, dev)) {
        struct vkl_alloc a = dev->alloc;
        vkl_free(&a, dev);
    }
}

void vkl_layer_chain_device_suspend(struct vkl_chain_device_state *saved) {
    saved->check = t_device_check;
    saved->named = t_device_culprit_named;
    saved->made = t_term_devices;
    t_device_check = false;
    t_device_culprit_named = false;
    t_term_devices = NULL;
}

void vkl_layer_chain_device_resume(const struct vkl_chain_device_state *saved) {
    t_device_check = saved->check;
    t_device_culprit_named = saved->named;
    t_term_devices = saved->made;
}

bool vkl_layer_chain_check_device(VkDevice *pDevice) {
    if (!t_device_check) return true;
    t_device_check = false;
    if (*pDevice == (VkDevice)(void *)&t_device_sentinel) return true;
    if (t_device_culprit_named) return false; /* a link shim named the layer */
    vkl_log(NULL, VKL_LOG_ERROR | VKL_LOG_LAYER,
            "vkCreateDevice: a layer overwrote *pDevice before calling down the chain; device creation refused "
            "[LLP_LAYER_22]");
    return false;
}

/* ------------------------------------------------------------------ unknown functions
 *
 * What the unknown-function registry (unknown_func.c) asks of the chain, handed to it as
 * vkl_layer_chain_unknown (struct vkl_unknown_chain): the registry never calls this file by name,
 * and this file never reads the registry's slots. */

static PFN_vkVoidFunction unknown_physdev_top(struct vkl_instance *inst, const char *name) {
    /* The top layer that has a GPDPA answers (passing down to vkl_term_GetPhysicalDeviceProcAddr). */
    for (uint32_t i = 0; i < inst->layer_lib_count; i++) {
        if (inst->layer_libs[i].gpdpa == NULL) continue;
        return inst->layer_libs[i].gpdpa(level_handle(inst, i), name);
    }
    return NULL;
}

static bool unknown_knows_physdev(struct vkl_instance *inst, const char *name) {
    for (uint32_t i = 0; i < inst->layer_lib_count; i++)
        if (inst->layer_libs[i].gpdpa != NULL && inst->layer_libs[i].gpdpa(level_handle(inst, i), name) != NULL)
            return true;
    return false;
}

static bool unknown_knows_device(struct vkl_instance *inst, const char *name) {
    if (has_device_entrypoint(inst, name)) return true;
    /* ... or the top layer's vkGetInstanceProcAddr answers it (asking down its chain): a layer may
     * implement a device command no manifest lists ([Arch] "Loader Handling of Unknown Functions";
     * the Khronos loader asks its first layer too). The slot is then resolved per device through the
     * chain's vkGetDeviceProcAddr, for devices created before or after. */
    return inst->layer_lib_count > 0 && inst->layer_libs[0].gipa != NULL &&
           inst->layer_libs[0].gipa(inst->chain_handle, name) != NULL;
}

const struct vkl_unknown_chain vkl_layer_chain_unknown = {
    .knows_physdev = unknown_knows_physdev,
    .physdev_top = unknown_physdev_top,
    .knows_device = unknown_knows_device,
};
