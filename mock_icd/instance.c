/* Mock driver, global and instance commands: instances, physical-device enumeration and
 * groups (with hot-plug), debug-utils messengers. */
#include "mock_icd/mock_icd_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* Global commands                                                                              */

static void corrupt_other_driver(void) {
    /* LDP_DRIVER_1 violation: reach another mock through the global symbol namespace. This only
     * finds one when the loader dlopen'ed drivers with RTLD_GLOBAL. */
    void *fn = dlsym(RTLD_DEFAULT, "mock_icd_ctl_set_result");
    /* Compare load addresses, not function addresses: our own reference to an exported symbol
     * may itself be interposed by the other copy. */
    Dl_info mine, theirs;
    bool other =
        fn && dladdr((void *)&corrupt_other_driver, &mine) && dladdr(fn, &theirs) && mine.dli_fbase != theirs.dli_fbase;
    cJSON *o = rec_new("corrupt_other_driver");
    cJSON_AddBoolToObject(o, "found_other", other);
    rec_emit(o);
    if (other) {
        PFN_mock_icd_ctl_set_result set = (PFN_mock_icd_ctl_set_result)fn;
        set("vkEnumeratePhysicalDevices", VK_ERROR_INITIALIZATION_FAILED);
        set("vkCreateDevice", VK_ERROR_INITIALIZATION_FAILED);
    }
}

void instance_free(struct mock_instance *inst) {
    for (uint32_t k = 0; k < inst->pd_count; k++) free(inst->pds[k]);
    free(inst->pds);
    while (inst->messengers) {
        struct mock_messenger *m = inst->messengers;
        inst->messengers = m->next;
        free(m);
    }
    while (inst->surfaces) {
        struct mock_surface *s = inst->surfaces;
        inst->surfaces = s->next;
        free(s);
    }
    scenario_release(inst->sc);
    free(inst);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_CreateInstance(const VkInstanceCreateInfo *ci, const VkAllocationCallbacks *alloc,
                                                   VkInstance *out) {
    struct scenario *sc = sc_now();
    int iface = effective_interface();
    uint32_t requested = (ci && ci->pApplicationInfo) ? ci->pApplicationInfo->apiVersion : 0;
    uint32_t effective = requested ? requested : VK_API_VERSION_1_0;
    VkResult r = VK_SUCCESS;
    if (!ci || !out) {
        r = VK_ERROR_INITIALIZATION_FAILED;
    } else if (iface <= 4) {
        /* LDP_DRIVER_9: reject what we cannot support. */
        if (!sc->mb.accept_any_api_version && major_minor(effective) > major_minor(sc->api_version))
            r = VK_ERROR_INCOMPATIBLE_DRIVER;
    } else {
        /* LDP_DRIVER_10: never INCOMPATIBLE for the API version. */
        if (sc->mb.incompatible_for_any_api_above_1_0 && major_minor(effective) > VK_API_VERSION_1_0)
            r = VK_ERROR_INCOMPATIBLE_DRIVER;
        if (sc->mb.incompatible_for_api_2 && VK_API_VERSION_MAJOR(effective) >= 2) r = VK_ERROR_INCOMPATIBLE_DRIVER;
    }
    for (uint32_t i = 0; r == VK_SUCCESS && i < ci->enabledExtensionCount; i++) {
        const char *e = ci->ppEnabledExtensionNames[i];
        if (!e || (!has_ext(sc->inst_exts, sc->inst_ext_count, e) &&
                   !(sc->mb.unpublished_extension && strcmp(e, UNPUBLISHED_EXTENSION) == 0)))
            r = VK_ERROR_EXTENSION_NOT_PRESENT;
    }
    VkResult inj = injected("vkCreateInstance");
    if (inj < 0) r = inj;
    struct mock_instance *inst = NULL;
    if (r == VK_SUCCESS) {
        inst = calloc(1, sizeof *inst);
        if (inst) inst->pds = calloc(sc->pd_count + 1, sizeof *inst->pds);
        if (!inst || !inst->pds) {
            free(inst);
            inst = NULL;
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    if (inst) {
        set_magic(inst);
        inst->api_version = effective;
        inst->sc = sc;
        sc->refs++;
        for (uint32_t k = 0; k < sc->pd_count; k++) {
            struct mock_physdev *pd = calloc(1, sizeof *pd);
            if (!pd) {
                r = VK_ERROR_OUT_OF_HOST_MEMORY;
                break;
            }
            set_magic(pd);
            pd->instance = inst;
            pd->index = k;
            pd->cfg = &sc->pds[k];
            inst->pds[inst->pd_count++] = pd;
        }
        if (r != VK_SUCCESS) {
            instance_free(inst);
            inst = NULL;
        } else {
            pthread_mutex_lock(&g_lock);
            inst->next = g_instances;
            g_instances = inst;
            pthread_mutex_unlock(&g_lock);
            *out = (VkInstance)inst;
            if (inj > 0) r = inj;
        }
    }
    cJSON *o = rec_new("vkCreateInstance");
    rec_add_version(o, "api_version", requested);
    cJSON_AddNumberToObject(o, "api_version_raw", requested);
    if (ci) {
        rec_add_strings(o, "extensions", ci->ppEnabledExtensionNames, ci->enabledExtensionCount);
        rec_add_strings(o, "layers", ci->ppEnabledLayerNames, ci->enabledLayerCount);
        cJSON_AddNumberToObject(o, "flags", ci->flags);
        rec_add_str_or_null(o, "app_name", ci->pApplicationInfo ? ci->pApplicationInfo->pApplicationName : NULL);
        rec_add_str_or_null(o, "engine_name", ci->pApplicationInfo ? ci->pApplicationInfo->pEngineName : NULL);
    }
    cJSON_AddBoolToObject(o, "allocator", alloc != NULL);
    cJSON_AddNumberToObject(o, "interface", iface);
    rec_add_result(o, r);
    rec_emit(o);
    if (inst && sc->mb.corrupt_other_driver) corrupt_other_driver();
    return r;
}

VKAPI_ATTR void VKAPI_CALL mock_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc) {
    cJSON *o = rec_new("vkDestroyInstance");
    cJSON_AddBoolToObject(o, "null", instance == VK_NULL_HANDLE);
    pthread_mutex_lock(&g_lock);
    struct mock_instance **pp = &g_instances;
    while (*pp && (void *)*pp != (void *)instance) pp = &(*pp)->next;
    struct mock_instance *inst = *pp;
    if (inst) *pp = inst->next;
    pthread_mutex_unlock(&g_lock);
    cJSON_AddBoolToObject(o, "valid", inst != NULL || instance == VK_NULL_HANDLE);
    rec_emit(o);
    if (inst) instance_free(inst);
}

VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateInstanceExtensionProperties(const char *layer, uint32_t *count,
                                                                         VkExtensionProperties *props) {
    struct scenario *sc = sc_now();
    cJSON *o = rec_new("vkEnumerateInstanceExtensionProperties");
    rec_add_str_or_null(o, "layer", layer);
    VkResult r = enumerate_extension_list("vkEnumerateInstanceExtensionProperties", layer, sc->inst_exts,
                                          sc->inst_ext_count, count, props, false);
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateInstanceVersion(uint32_t *version) {
    VkResult r = injected("vkEnumerateInstanceVersion");
    if (r >= 0 && version) *version = sc_now()->api_version;
    if (!version) r = VK_ERROR_INITIALIZATION_FAILED;
    cJSON *o = rec_new("vkEnumerateInstanceVersion");
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

/* ------------------------------------------------------------------------------------------ */
/* Instance commands                                                                            */

/* Hot-plug (RULE_PHYSDEV_AGGREGATE): whether device `index` of an instance is present, by the CURRENT scenario's
 * "unplugged" (read at every enumeration, so a scenario replaced between two calls unplugs or plugs
 * back devices of an existing instance). */
static bool plugged_in(uint32_t index) {
    const struct scenario *sc = sc_now();
    for (uint32_t i = 0; i < sc->unplugged_count; i++)
        if (sc->unplugged[i] == index) return false;
    return true;
}

/* One reported group: indices into the instance's devices. */
struct group_view {
    uint32_t members[VK_MAX_DEVICE_GROUP_SIZE];
    uint32_t count;
};

/* The instance's groups (its scenario's "groups", else one per device) without unplugged members,
 * empty groups dropped; at most `cap`. Returns how many. */
static uint32_t group_views(const struct mock_instance *inst, struct group_view *views, uint32_t cap) {
    const struct scenario *sc = inst->sc;
    uint32_t n = 0;
    uint32_t groups = sc->has_groups ? sc->group_count : inst->pd_count;
    for (uint32_t g = 0; g < groups && n < cap; g++) {
        struct group_view *v = &views[n];
        v->count = 0;
        uint32_t members = sc->has_groups ? sc->groups[g].count : 1;
        for (uint32_t m = 0; m < members && v->count < VK_MAX_DEVICE_GROUP_SIZE; m++) {
            uint32_t idx = sc->has_groups ? sc->groups[g].members[m] : g;
            if (idx < inst->pd_count && plugged_in(idx)) v->members[v->count++] = idx;
        }
        if (v->count > 0) n++;
    }
    return n;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_EnumeratePhysicalDevices(VkInstance instance, uint32_t *count,
                                                             VkPhysicalDevice *out) {
    struct mock_instance *inst = find_instance(instance);
    cJSON *o = rec_new("vkEnumeratePhysicalDevices");
    if (count && out)
        cJSON_AddNumberToObject(o, "count_in", *count);
    else
        cJSON_AddNullToObject(o, "count_in");
    VkResult r = VK_SUCCESS;
    if (!inst || !count) {
        r = VK_ERROR_INITIALIZATION_FAILED;
        if (!inst) cJSON_AddBoolToObject(o, "invalid_instance", true);
    } else if (sc_now()->mb.fail_enumerate_physical_devices) {
        r = VK_ERROR_INITIALIZATION_FAILED;
    } else if ((r = injected("vkEnumeratePhysicalDevices")) < 0) {
        /* injected failure */
    } else {
        VkResult inj = r;
        /* Hot-plug: the devices the current scenario's "unplugged" hides are left out; their handles
         * stay valid and come back, unchanged, when they are plugged in again. */
        uint32_t present = 0;
        for (uint32_t i = 0; i < inst->pd_count; i++) present += plugged_in(i) ? 1 : 0;
        /* null_physical_device / duplicate_physical_device: one more entry after the devices, NULL or
         * the first device's handle again. */
        const struct misbehave_cfg *mb = &sc_now()->mb;
        bool extra = (mb->null_physical_device || mb->duplicate_physical_device) && present > 0;
        if (extra) present++;
        if (!out) {
            *count = present;
        } else {
            uint32_t given = *count, n = 0;
            for (uint32_t i = 0; i < inst->pd_count && n < *count; i++)
                if (plugged_in(i)) out[n++] = (VkPhysicalDevice)inst->pds[i];
            if (extra && n < *count) out[n++] = mb->null_physical_device ? VK_NULL_HANDLE : out[0];
            *count = n;
            r = n < present ? VK_INCOMPLETE : inj;
            VkPhysicalDevice past = (VkPhysicalDevice)(uintptr_t)0xbad0bad0u; /* never a handle of this mock */
            r = liar_after_fill("vkEnumeratePhysicalDevices", out, sizeof *out, given, count, r, &past);
        }
        if (present == 0 && out) inst->reported_zero_devices = true;
        cJSON_AddNumberToObject(o, "count_out", *count);
        if (sc_now()->unplugged_count > 0) cJSON_AddNumberToObject(o, "unplugged", inst->pd_count - present);
    }
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_EnumeratePhysicalDeviceGroups(VkInstance instance, uint32_t *count,
                                                                  VkPhysicalDeviceGroupProperties *props) {
    struct mock_instance *inst = find_instance(instance);
    maybe_crash(inst, "vkEnumeratePhysicalDeviceGroups");
    cJSON *o = rec_new("vkEnumeratePhysicalDeviceGroups");
    VkResult r = VK_SUCCESS;
    if (!inst || !count) {
        r = VK_ERROR_INITIALIZATION_FAILED;
    } else if ((r = injected("vkEnumeratePhysicalDeviceGroups")) < 0) {
        /* injected failure */
    } else {
        /* Hot-plug: unplugged devices leave their groups; a group left empty is not reported. */
        uint32_t cap = inst->sc->has_groups ? inst->sc->group_count : inst->pd_count;
        struct group_view *views = calloc((size_t)cap + 1, sizeof *views);
        uint32_t total = views ? group_views(inst, views, cap) : 0;
        VkResult inj = views ? r : VK_ERROR_OUT_OF_HOST_MEMORY;
        if (!views) {
            r = inj;
            *count = 0;
        } else if (!props) {
            *count = total;
        } else {
            uint32_t n = *count < total ? *count : total;
            /* The sType of the first structure of each group's pNext chain the caller passed (0:
             * none): a loader must hand the application's chains down. */
            cJSON *chains = cJSON_AddArrayToObject(o, "pnext_stypes");
            for (uint32_t g = 0; g < n; g++) {
                const VkBaseOutStructure *next = (const VkBaseOutStructure *)props[g].pNext;
                cJSON_AddItemToArray(chains, cJSON_CreateNumber(next != NULL ? (double)next->sType : 0));
            }
            uint32_t given = *count;
            const struct misbehave_cfg *mb = &sc_now()->mb;
            for (uint32_t g = 0; g < n; g++) {
                VkPhysicalDeviceGroupProperties *p = &props[g];
                memset(p->physicalDevices, 0, sizeof p->physicalDevices);
                p->physicalDeviceCount = views[g].count;
                for (uint32_t m = 0; m < views[g].count; m++)
                    p->physicalDevices[m] = (VkPhysicalDevice)inst->pds[views[g].members[m]];
                p->subsetAllocation = p->physicalDeviceCount > 1 ? VK_TRUE : VK_FALSE;
            }
            if (n > 0 && mb->group_too_large) {
                /* the first group claims VK_MAX_DEVICE_GROUP_SIZE + 1 members; the array holds 32 */
                for (uint32_t m = props[0].physicalDeviceCount; m < VK_MAX_DEVICE_GROUP_SIZE; m++)
                    props[0].physicalDevices[m] = props[0].physicalDevices[0];
                props[0].physicalDeviceCount = VK_MAX_DEVICE_GROUP_SIZE + 1;
            }
            if (n > 0 && mb->group_foreign_device && props[0].physicalDeviceCount < VK_MAX_DEVICE_GROUP_SIZE)
                /* a member this driver's vkEnumeratePhysicalDevices never returned */
                props[0].physicalDevices[props[0].physicalDeviceCount++] = (VkPhysicalDevice)(uintptr_t)0xf0e1f0e1u;
            *count = n;
            r = n < total ? VK_INCOMPLETE : inj;
            VkPhysicalDeviceGroupProperties past;
            memset(&past, 0, sizeof past);
            past.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
            past.physicalDeviceCount = 1;
            past.physicalDevices[0] = (VkPhysicalDevice)(uintptr_t)0xbad0bad0u;
            r = liar_after_fill("vkEnumeratePhysicalDeviceGroups", props, sizeof *props, given, count, r, &past);
        }
        free(views);
        cJSON_AddNumberToObject(o, "count_out", *count);
    }
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

VKAPI_ATTR VkResult VKAPI_CALL mock_CreateDebugUtilsMessengerEXT(VkInstance instance,
                                                                 const VkDebugUtilsMessengerCreateInfoEXT *ci,
                                                                 const VkAllocationCallbacks *alloc,
                                                                 VkDebugUtilsMessengerEXT *out) {
    struct mock_instance *inst = find_instance(instance);
    maybe_crash(inst, "vkCreateDebugUtilsMessengerEXT");
    VkResult r = injected("vkCreateDebugUtilsMessengerEXT");
    struct mock_messenger *m = NULL;
    if (!inst || !ci || !out) r = VK_ERROR_INITIALIZATION_FAILED;
    if (r >= 0) {
        m = calloc(1, sizeof *m);
        if (!m) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
        } else {
            pthread_mutex_lock(&g_lock);
            m->next = inst->messengers;
            inst->messengers = m;
            pthread_mutex_unlock(&g_lock);
            *out = (VkDebugUtilsMessengerEXT)(void *)m;
        }
    }
    cJSON *o = rec_new("vkCreateDebugUtilsMessengerEXT");
    if (ci) {
        cJSON_AddNumberToObject(o, "severity", ci->messageSeverity);
        cJSON_AddNumberToObject(o, "type", ci->messageType);
    }
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

VKAPI_ATTR void VKAPI_CALL mock_DestroyDebugUtilsMessengerEXT(VkInstance instance, VkDebugUtilsMessengerEXT messenger,
                                                              const VkAllocationCallbacks *alloc) {
    struct mock_instance *inst = find_instance(instance);
    maybe_crash(inst, "vkDestroyDebugUtilsMessengerEXT");
    bool found = false;
    pthread_mutex_lock(&g_lock);
    if (inst) {
        for (struct mock_messenger **pp = &inst->messengers; *pp; pp = &(*pp)->next) {
            if ((void *)*pp == (void *)messenger) {
                struct mock_messenger *m = *pp;
                *pp = m->next;
                free(m);
                found = true;
                break;
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
    cJSON *o = rec_new("vkDestroyDebugUtilsMessengerEXT");
    cJSON_AddBoolToObject(o, "valid", found || messenger == VK_NULL_HANDLE);
    rec_emit(o);
}
