/* Configurable mock Vulkan driver (ICD). One source, many export variants (variants.bzl).
 *
 * Compile-time (set by variants.bzl, never by hand):
 *   MOCK_ICD_MAX_INTERFACE   highest loader/driver interface version this build negotiates
 *   MOCK_ICD_EXPORT_NEGOTIATE exports vk_icdNegotiateLoaderICDInterfaceVersion
 *   MOCK_ICD_EXPORT_ICD_GIPA exports vk_icdGetInstanceProcAddr
 *   MOCK_ICD_HAS_GPDPA       has vk_icdGetPhysicalDeviceProcAddr (reachable through GIPA at v7)
 *   MOCK_ICD_EXPORT_GPDPA    exports vk_icdGetPhysicalDeviceProcAddr
 *   MOCK_ICD_EXPORT_VK       0: no vk* exports, 1: the three v0 exports, 2: the "vkexports" list
 * Everything else is the run-time scenario (README.md).
 */
#define VK_NO_PROTOTYPES 1
#define MOCK_ICD_BUILDING 1

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vulkan.h>

#include "loader/vkl_gen_results.h"
#include "mock_icd/mock_icd_ctl.h"

#ifndef MOCK_ICD_MAX_INTERFACE
#define MOCK_ICD_MAX_INTERFACE 7
#endif
#ifndef MOCK_ICD_EXPORT_NEGOTIATE
#define MOCK_ICD_EXPORT_NEGOTIATE 0
#endif
#ifndef MOCK_ICD_EXPORT_ICD_GIPA
#define MOCK_ICD_EXPORT_ICD_GIPA 0
#endif
#ifndef MOCK_ICD_HAS_GPDPA
#define MOCK_ICD_HAS_GPDPA 0
#endif
#ifndef MOCK_ICD_EXPORT_GPDPA
#define MOCK_ICD_EXPORT_GPDPA 0
#endif
#ifndef MOCK_ICD_EXPORT_VK
#define MOCK_ICD_EXPORT_VK 0
#endif

#if MOCK_ICD_EXPORT_GPDPA && !MOCK_ICD_HAS_GPDPA
#error "MOCK_ICD_EXPORT_GPDPA needs MOCK_ICD_HAS_GPDPA"
#endif

#define MOCK_EXPORT __attribute__((visibility("default")))
#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define UNPUBLISHED_EXTENSION "VK_MOCK_unpublished_extension"

/* ------------------------------------------------------------------------------------------ */
/* Scenario                                                                                     */

struct ext_cfg {
    char name[VK_MAX_EXTENSION_NAME_SIZE];
    uint32_t spec_version;
};

struct queue_family_cfg {
    VkQueueFlags flags;
    uint32_t count;
};

struct physdev_cfg {
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    uint32_t api_version, driver_version, vendor_id, device_id;
    VkPhysicalDeviceType type;
    struct ext_cfg *exts;
    uint32_t ext_count;
    struct queue_family_cfg *families;
    uint32_t family_count;
    VkDriverId driver_id;
    uint8_t conformance[4];
    bool has_pci_bus;
    uint32_t pci_bus[4]; /* domain, bus, device, function (VkPhysicalDevicePCIBusInfoPropertiesEXT) */
};

struct group_cfg {
    uint32_t *members;
    uint32_t count;
};

struct result_cfg {
    char *command;
    VkResult result;
};

struct misbehave_cfg {
    bool crash_with_zero_devices, no_loader_magic, gpdpa_answers_everything,
        incompatible_for_any_api_above_1_0, accept_any_api_version, unpublished_extension,
        surface_without_interface_3, corrupt_other_driver, fail_enumerate_physical_devices,
        incompatible_for_api_2, gipa_null_instance_answers_all;
};

/* interface.per_offer: the answer to one offered version. */
struct offer_cfg {
    uint32_t offer;
    bool is_result; /* true: `result` is returned, *pVersion untouched; false: VK_SUCCESS and `version` */
    VkResult result;
    uint32_t version;
};
#define MOCK_MAX_PER_OFFER 32

struct scenario {
    _Atomic int refs; /* instances and devices on several threads retain it */
    uint32_t if_min, if_max;
    bool has_negotiate_result, has_report_version;
    VkResult negotiate_result;
    uint32_t report_version;
    struct offer_cfg per_offer[MOCK_MAX_PER_OFFER];
    uint32_t per_offer_count;
    bool has_max_through_gipa;
    uint32_t max_through_gipa;
    uint32_t api_version;
    bool expose_eiv;
    bool record_lookups;
    struct ext_cfg *inst_exts;
    uint32_t inst_ext_count;
    struct physdev_cfg *pds;
    uint32_t pd_count;
    bool has_groups;
    struct group_cfg *groups;
    uint32_t group_count;
    struct result_cfg *results;
    uint32_t result_count;
    char **dev_funcs;
    uint32_t dev_func_count;
    char **pd_funcs;
    uint32_t pd_func_count;
    char **hidden; /* hidden_functions: every proc-addr lookup answers NULL */
    uint32_t hidden_count;
    char **crash_in; /* crash_in: instance-level / physical-device commands that abort */
    uint32_t crash_in_count;
    uint32_t *unplugged; /* unplugged: indices of an instance's devices hidden from enumeration */
    uint32_t unplugged_count;
    struct misbehave_cfg mb;
};

/* ------------------------------------------------------------------------------------------ */
/* Dispatchable and non-dispatchable objects                                                    */

struct mock_instance;
struct mock_device;

struct mock_physdev {
    VK_LOADER_DATA loader_data; /* must stay first */
    struct mock_instance *instance;
    uint32_t index;
    const struct physdev_cfg *cfg;
};

struct mock_messenger {
    struct mock_messenger *next;
};

struct mock_surface {
    struct mock_surface *next;
    const char *kind;
};

struct mock_instance {
    VK_LOADER_DATA loader_data; /* must stay first */
    struct mock_instance *next;
    struct scenario *sc; /* snapshot the physical devices come from */
    struct mock_physdev **pds;
    uint32_t pd_count;
    uint32_t api_version;
    bool reported_zero_devices;
    struct mock_messenger *messengers;
    struct mock_surface *surfaces;
};

struct mock_queue {
    VK_LOADER_DATA loader_data; /* must stay first */
    struct mock_device *device;
    uint32_t family, index;
};

struct mock_cmdbuf {
    VK_LOADER_DATA loader_data; /* must stay first */
    struct mock_cmdbuf *next;
    struct mock_pool *pool;
};

struct mock_pool {
    struct mock_pool *next;
    struct mock_device *device;
    uint32_t family;
    struct mock_cmdbuf *cmdbufs;
};

struct mock_image { /* images and buffers (vulkaninfo's memory-requirement probes) */
    struct mock_image *next;
    VkDeviceSize size;
    bool sparse;
};

struct mock_device {
    VK_LOADER_DATA loader_data; /* must stay first */
    struct mock_device *next;
    struct mock_image *images; /* images and buffers not yet destroyed */
    uint32_t api_version; /* of its physical device (which may be destroyed first by a bad app) */
    struct scenario *sc;
    struct mock_queue **queues;
    uint32_t queue_count;
    struct mock_pool *pools;
};

/* ------------------------------------------------------------------------------------------ */
/* Global state                                                                                 */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_inited;
static bool g_ctl_scenario; /* scenario came from mock_icd_ctl_load_scenario */
static char g_self_path[PATH_MAX];
static char g_calls_path[PATH_MAX + 16];
static char g_scenario_path[PATH_MAX + 16];
static struct scenario *g_sc;
static char **g_records;
static size_t g_record_count, g_record_cap;
static int g_negotiated = -1; /* -1: never negotiated */
static bool g_first_seen;
static bool g_legacy_gipa_first; /* first entry was vk_icdGetInstanceProcAddr (not for negotiate) */
static struct mock_instance *g_instances;
static struct mock_device *g_devices;
static char *g_dyn_pd_names[MOCK_ICD_UNKNOWN_SLOTS]; /* gpdpa_answers_everything slots */
static uint32_t g_dyn_pd_count;

static void ensure_init(void);

static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

/* ------------------------------------------------------------------------------------------ */
/* VkResult names                                                                               */

/* VkResult names come from vk.xml (tools/vkgen: loader/vkl_gen_results.h, compiled in). */
static const char *result_name(VkResult r) { return vkl_gen_result_name(r); }

static bool parse_result(const cJSON *v, VkResult *out) {
    if (cJSON_IsNumber(v)) {
        *out = (VkResult)v->valueint;
        return true;
    }
    return cJSON_IsString(v) && vkl_gen_result_from_name(v->valuestring, out);
}

/* ------------------------------------------------------------------------------------------ */
/* Records                                                                                      */

static cJSON *rec_new(const char *call) {
    cJSON *o = cJSON_CreateObject();
    if (o) cJSON_AddStringToObject(o, "call", call);
    return o;
}

static void rec_add_result(cJSON *o, VkResult r) {
    const char *n = result_name(r);
    if (n)
        cJSON_AddStringToObject(o, "result", n);
    else
        cJSON_AddNumberToObject(o, "result", (double)r);
}

static void rec_add_version(cJSON *o, const char *key, uint32_t v) {
    char buf[48];
    snprintf(buf, sizeof buf, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
             VK_API_VERSION_PATCH(v));
    cJSON_AddStringToObject(o, key, buf);
}

static void rec_add_strings(cJSON *o, const char *key, const char *const *names, uint32_t n) {
    cJSON *a = cJSON_AddArrayToObject(o, key);
    if (!a) return;
    for (uint32_t i = 0; i < n; i++) {
        cJSON_AddItemToArray(a, names && names[i] ? cJSON_CreateString(names[i]) : cJSON_CreateNull());
    }
}

static void rec_add_str_or_null(cJSON *o, const char *key, const char *s) {
    if (s)
        cJSON_AddStringToObject(o, key, s);
    else
        cJSON_AddNullToObject(o, key);
}

/* Takes ownership of `o`: keeps the line in memory and appends it to <library>.calls. */
static void rec_emit(cJSON *o) {
    if (!o) return;
    ensure_init();
    char *s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!s) return;
    size_t len = strlen(s);
    char *line = malloc(len + 2);
    if (line) {
        memcpy(line, s, len);
        line[len] = '\n';
        line[len + 1] = '\0';
        int fd = open(g_calls_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) {
            ssize_t w = write(fd, line, len + 1);
            (void)w;
            close(fd);
        }
        free(line);
    }
    pthread_mutex_lock(&g_lock);
    if (g_record_count == g_record_cap) {
        size_t cap = g_record_cap ? g_record_cap * 2 : 64;
        char **n = realloc(g_records, cap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&g_lock);
            cJSON_free(s);
            return;
        }
        g_records = n;
        g_record_cap = cap;
    }
    g_records[g_record_count++] = s;
    pthread_mutex_unlock(&g_lock);
}

static void records_clear(void) {
    for (size_t i = 0; i < g_record_count; i++) cJSON_free(g_records[i]);
    free(g_records);
    g_records = NULL;
    g_record_count = g_record_cap = 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Scenario parsing                                                                             */

static void scenario_free(struct scenario *sc) {
    if (!sc) return;
    free(sc->inst_exts);
    for (uint32_t i = 0; i < sc->pd_count; i++) {
        free(sc->pds[i].exts);
        free(sc->pds[i].families);
    }
    free(sc->pds);
    for (uint32_t i = 0; i < sc->group_count; i++) free(sc->groups[i].members);
    free(sc->groups);
    for (uint32_t i = 0; i < sc->result_count; i++) free(sc->results[i].command);
    free(sc->results);
    for (uint32_t i = 0; i < sc->dev_func_count; i++) free(sc->dev_funcs[i]);
    free(sc->dev_funcs);
    for (uint32_t i = 0; i < sc->pd_func_count; i++) free(sc->pd_funcs[i]);
    free(sc->pd_funcs);
    for (uint32_t i = 0; i < sc->hidden_count; i++) free(sc->hidden[i]);
    free(sc->hidden);
    for (uint32_t i = 0; i < sc->crash_in_count; i++) free(sc->crash_in[i]);
    free(sc->crash_in);
    free(sc->unplugged);
    free(sc);
}

static void scenario_release(struct scenario *sc) {
    if (sc && --sc->refs == 0) scenario_free(sc);
}

static void copy_name(char *dst, size_t cap, const char *src) {
    snprintf(dst, cap, "%s", src ? src : "");
}

static bool parse_version(const cJSON *v, uint32_t *out) {
    if (cJSON_IsNumber(v)) {
        *out = (uint32_t)v->valuedouble;
        return true;
    }
    if (!cJSON_IsString(v)) return false;
    unsigned a = 0, b = 0, c = 0;
    int n = sscanf(v->valuestring, "%u.%u.%u", &a, &b, &c);
    if (n < 2) return false;
    *out = VK_MAKE_API_VERSION(0, a, b, c);
    return true;
}

static bool parse_u32(const cJSON *v, uint32_t *out) {
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 4294967295.0) return false;
    *out = (uint32_t)v->valuedouble;
    return true;
}

static bool parse_bool(const cJSON *parent, const char *key, bool *out) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(parent, key);
    if (!v) return true;
    if (!cJSON_IsBool(v)) return false;
    *out = cJSON_IsTrue(v);
    return true;
}

static bool parse_exts(const cJSON *arr, struct ext_cfg **out, uint32_t *count) {
    if (!cJSON_IsArray(arr)) return false;
    int n = cJSON_GetArraySize(arr);
    struct ext_cfg *e = calloc((size_t)n + 1, sizeof *e);
    if (!e) return false;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        const cJSON *name = cJSON_IsString(it) ? it : cJSON_GetObjectItemCaseSensitive(it, "name");
        if (!cJSON_IsString(name)) {
            free(e);
            return false;
        }
        copy_name(e[i].name, sizeof e[i].name, name->valuestring);
        e[i].spec_version = 1;
        const cJSON *sv = cJSON_IsObject(it) ? cJSON_GetObjectItemCaseSensitive(it, "spec_version") : NULL;
        if (sv && !parse_u32(sv, &e[i].spec_version)) {
            free(e);
            return false;
        }
        i++;
    }
    free(*out);
    *out = e;
    *count = (uint32_t)n;
    return true;
}

static bool parse_names(const cJSON *arr, char ***out, uint32_t *count) {
    if (!cJSON_IsArray(arr)) return false;
    int n = cJSON_GetArraySize(arr);
    if ((unsigned)n > MOCK_ICD_UNKNOWN_SLOTS) return false;
    char **names = calloc((size_t)n + 1, sizeof *names);
    if (!names) return false;
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        if (!cJSON_IsString(it) || !(names[i] = strdup(it->valuestring))) {
            for (int j = 0; j < i; j++) free(names[j]);
            free(names);
            return false;
        }
        i++;
    }
    *out = names;
    *count = (uint32_t)n;
    return true;
}

static const struct {
    const char *name;
    VkPhysicalDeviceType type;
} k_device_types[] = {
    {"other", VK_PHYSICAL_DEVICE_TYPE_OTHER},
    {"integrated", VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU},
    {"discrete", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU},
    {"virtual", VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU},
    {"cpu", VK_PHYSICAL_DEVICE_TYPE_CPU},
};

static void physdev_defaults(struct physdev_cfg *pd, uint32_t index) {
    memset(pd, 0, sizeof *pd);
    snprintf(pd->name, sizeof pd->name, "Mock Device %u", index);
    pd->api_version = VK_MAKE_API_VERSION(0, 1, 3, 0);
    pd->driver_version = 1;
    pd->vendor_id = 4096;
    pd->device_id = index + 1;
    pd->type = VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
    pd->families = calloc(1, sizeof *pd->families);
    if (pd->families) {
        pd->families[0].flags = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT;
        pd->families[0].count = 1;
        pd->family_count = 1;
    }
    pd->driver_id = (VkDriverId)0;
}

static bool parse_physdev(const cJSON *o, struct physdev_cfg *pd) {
    if (!cJSON_IsObject(o)) return false;
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "name"))) {
        if (!cJSON_IsString(v)) return false;
        copy_name(pd->name, sizeof pd->name, v->valuestring);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "api_version")) && !parse_version(v, &pd->api_version))
        return false;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "driver_version")) && !parse_u32(v, &pd->driver_version))
        return false;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "vendor_id")) && !parse_u32(v, &pd->vendor_id)) return false;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "device_id")) && !parse_u32(v, &pd->device_id)) return false;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "device_type"))) {
        bool found = false;
        for (size_t i = 0; cJSON_IsString(v) && i < ARRAY_LEN(k_device_types); i++)
            if (strcmp(v->valuestring, k_device_types[i].name) == 0) {
                pd->type = k_device_types[i].type;
                found = true;
            }
        if (!found) return false;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "extensions")) && !parse_exts(v, &pd->exts, &pd->ext_count))
        return false;
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "queue_families"))) {
        if (!cJSON_IsArray(v)) return false;
        int n = cJSON_GetArraySize(v);
        struct queue_family_cfg *f = calloc((size_t)n + 1, sizeof *f);
        if (!f) return false;
        int i = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, v) {
            uint32_t flags = 0, count = 1;
            const cJSON *fl = cJSON_GetObjectItemCaseSensitive(it, "flags");
            const cJSON *ct = cJSON_GetObjectItemCaseSensitive(it, "count");
            if (!cJSON_IsObject(it) || (fl && !parse_u32(fl, &flags)) || (ct && !parse_u32(ct, &count))) {
                free(f);
                return false;
            }
            f[i].flags = flags;
            f[i].count = count;
            i++;
        }
        free(pd->families);
        pd->families = f;
        pd->family_count = (uint32_t)n;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "driver_id"))) {
        uint32_t id;
        if (!parse_u32(v, &id)) return false;
        pd->driver_id = (VkDriverId)id;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "conformance_version"))) {
        unsigned c[4] = {0, 0, 0, 0};
        if (!cJSON_IsString(v) || sscanf(v->valuestring, "%u.%u.%u.%u", &c[0], &c[1], &c[2], &c[3]) < 1)
            return false;
        for (int i = 0; i < 4; i++) pd->conformance[i] = (uint8_t)c[i];
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(o, "pci_bus"))) {
        if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 4) return false;
        for (int i = 0; i < 4; i++)
            if (!parse_u32(cJSON_GetArrayItem(v, i), &pd->pci_bus[i])) return false;
        pd->has_pci_bus = true;
    }
    return true;
}

static struct scenario *scenario_defaults(void) {
    struct scenario *sc = calloc(1, sizeof *sc);
    if (!sc) return NULL;
    sc->refs = 1;
    sc->if_min = 0;
    sc->if_max = MOCK_ICD_MAX_INTERFACE;
    sc->api_version = VK_MAKE_API_VERSION(0, 1, 3, 0);
    sc->expose_eiv = true;
    sc->record_lookups = true;
    sc->inst_exts = calloc(1, sizeof *sc->inst_exts);
    sc->pds = calloc(1, sizeof *sc->pds);
    if (!sc->inst_exts || !sc->pds) {
        scenario_free(sc);
        return NULL;
    }
    copy_name(sc->inst_exts[0].name, sizeof sc->inst_exts[0].name, "VK_KHR_get_physical_device_properties2");
    sc->inst_exts[0].spec_version = 2;
    sc->inst_ext_count = 1;
    physdev_defaults(&sc->pds[0], 0);
    sc->pd_count = 1;
    return sc;
}

/* Parses `json` over the defaults. Returns NULL and sets *err on failure. */
static struct scenario *scenario_parse(const char *json, const char **err) {
    struct scenario *sc = scenario_defaults();
    if (!sc) {
        *err = "out of memory";
        return NULL;
    }
    if (!json) return sc;
    char *copy = strdup(json);
    if (!copy) {
        *err = "out of memory";
        scenario_free(sc);
        return NULL;
    }
    cJSON_Minify(copy); /* strips the // comments the README example uses */
    cJSON *root = cJSON_Parse(copy);
    free(copy);
    const cJSON *v, *it;
    *err = NULL;
    if (!cJSON_IsObject(root)) {
        *err = "not a JSON object";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "interface"))) {
        const cJSON *x;
        if (!cJSON_IsObject(v)) {
            *err = "interface";
            goto fail;
        }
        if ((x = cJSON_GetObjectItemCaseSensitive(v, "min")) && !parse_u32(x, &sc->if_min)) *err = "interface.min";
        if ((x = cJSON_GetObjectItemCaseSensitive(v, "max")) && !parse_u32(x, &sc->if_max)) *err = "interface.max";
        if ((x = cJSON_GetObjectItemCaseSensitive(v, "negotiate_result"))) {
            if (!parse_result(x, &sc->negotiate_result)) *err = "interface.negotiate_result";
            sc->has_negotiate_result = true;
        }
        if ((x = cJSON_GetObjectItemCaseSensitive(v, "report_version"))) {
            if (!parse_u32(x, &sc->report_version)) *err = "interface.report_version";
            sc->has_report_version = true;
        }
        if ((x = cJSON_GetObjectItemCaseSensitive(v, "max_through_gipa"))) {
            if (!parse_u32(x, &sc->max_through_gipa)) *err = "interface.max_through_gipa";
            sc->has_max_through_gipa = true;
        }
        if ((x = cJSON_GetObjectItemCaseSensitive(v, "per_offer"))) {
            const cJSON *po;
            if (!cJSON_IsObject(x) || cJSON_GetArraySize(x) > MOCK_MAX_PER_OFFER) *err = "interface.per_offer";
            cJSON_ArrayForEach(po, x) {
                if (*err) break;
                struct offer_cfg *o = &sc->per_offer[sc->per_offer_count];
                char *end = NULL;
                unsigned long off = strtoul(po->string, &end, 10);
                if (po->string[0] < '0' || po->string[0] > '9' || *end != '\0' || off > UINT32_MAX) {
                    *err = "interface.per_offer (keys: offered versions)";
                    break;
                }
                o->offer = (uint32_t)off;
                o->is_result = cJSON_IsString(po);
                if (o->is_result ? !parse_result(po, &o->result) : !parse_u32(po, &o->version)) {
                    *err = "interface.per_offer (values: a version number or a VkResult name)";
                    break;
                }
                sc->per_offer_count++;
            }
        }
        if (*err) goto fail;
        sc->if_max = min_u32(sc->if_max, MOCK_ICD_MAX_INTERFACE);
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "api_version")) && !parse_version(v, &sc->api_version)) {
        *err = "api_version";
        goto fail;
    }
    if (!parse_bool(root, "expose_enumerate_instance_version", &sc->expose_eiv)) {
        *err = "expose_enumerate_instance_version";
        goto fail;
    }
    if (!parse_bool(root, "record_lookups", &sc->record_lookups)) {
        *err = "record_lookups";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "instance_extensions")) &&
        !parse_exts(v, &sc->inst_exts, &sc->inst_ext_count)) {
        *err = "instance_extensions";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "physical_devices"))) {
        if (!cJSON_IsArray(v)) {
            *err = "physical_devices";
            goto fail;
        }
        for (uint32_t i = 0; i < sc->pd_count; i++) {
            free(sc->pds[i].exts);
            free(sc->pds[i].families);
        }
        free(sc->pds);
        sc->pd_count = 0;
        int n = cJSON_GetArraySize(v);
        sc->pds = calloc((size_t)n + 1, sizeof *sc->pds);
        if (!sc->pds) {
            *err = "out of memory";
            goto fail;
        }
        cJSON_ArrayForEach(it, v) {
            physdev_defaults(&sc->pds[sc->pd_count], sc->pd_count);
            sc->pd_count++;
            if (!parse_physdev(it, &sc->pds[sc->pd_count - 1])) {
                *err = "physical_devices[]";
                goto fail;
            }
        }
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "groups"))) {
        if (!cJSON_IsArray(v)) {
            *err = "groups";
            goto fail;
        }
        int n = cJSON_GetArraySize(v);
        sc->groups = calloc((size_t)n + 1, sizeof *sc->groups);
        if (!sc->groups) {
            *err = "out of memory";
            goto fail;
        }
        sc->has_groups = true;
        cJSON_ArrayForEach(it, v) {
            struct group_cfg *g = &sc->groups[sc->group_count++];
            int m = cJSON_IsArray(it) ? cJSON_GetArraySize(it) : -1;
            if (m < 1 || m > (int)VK_MAX_DEVICE_GROUP_SIZE || !(g->members = calloc((size_t)m, sizeof(uint32_t)))) {
                *err = "groups[]";
                goto fail;
            }
            const cJSON *idx;
            cJSON_ArrayForEach(idx, it) {
                if (!parse_u32(idx, &g->members[g->count]) || g->members[g->count] >= sc->pd_count) {
                    *err = "groups[][] (index out of range)";
                    goto fail;
                }
                g->count++;
            }
        }
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "results"))) {
        if (!cJSON_IsObject(v)) {
            *err = "results";
            goto fail;
        }
        int n = cJSON_GetArraySize(v);
        sc->results = calloc((size_t)n + 1, sizeof *sc->results);
        if (!sc->results) {
            *err = "out of memory";
            goto fail;
        }
        cJSON_ArrayForEach(it, v) {
            struct result_cfg *r = &sc->results[sc->result_count];
            if (!parse_result(it, &r->result) || !(r->command = strdup(it->string))) {
                *err = "results{} (unknown VkResult name?)";
                goto fail;
            }
            sc->result_count++;
        }
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "device_functions")) &&
        !parse_names(v, &sc->dev_funcs, &sc->dev_func_count)) {
        *err = "device_functions (strings, at most 256)";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "physdev_functions")) &&
        !parse_names(v, &sc->pd_funcs, &sc->pd_func_count)) {
        *err = "physdev_functions (strings, at most 256)";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "hidden_functions")) &&
        !parse_names(v, &sc->hidden, &sc->hidden_count)) {
        *err = "hidden_functions (strings, at most 256)";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "crash_in")) &&
        !parse_names(v, &sc->crash_in, &sc->crash_in_count)) {
        *err = "crash_in (strings, at most 256)";
        goto fail;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "unplugged"))) {
        /* Indices into an instance's devices, which may come from an earlier scenario: not checked
         * against this scenario's physical_devices. */
        int n = cJSON_IsArray(v) ? cJSON_GetArraySize(v) : -1;
        if (n < 0 || n > (int)MOCK_ICD_UNKNOWN_SLOTS || !(sc->unplugged = calloc((size_t)n + 1, sizeof(uint32_t)))) {
            *err = "unplugged (device indices, at most 256)";
            goto fail;
        }
        cJSON_ArrayForEach(it, v) {
            if (!parse_u32(it, &sc->unplugged[sc->unplugged_count])) {
                *err = "unplugged[] (device indices)";
                goto fail;
            }
            sc->unplugged_count++;
        }
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(root, "misbehave"))) {
        struct misbehave_cfg *m = &sc->mb;
        if (!cJSON_IsObject(v) || !parse_bool(v, "crash_with_zero_devices", &m->crash_with_zero_devices) ||
            !parse_bool(v, "no_loader_magic", &m->no_loader_magic) ||
            !parse_bool(v, "gpdpa_answers_everything", &m->gpdpa_answers_everything) ||
            !parse_bool(v, "incompatible_for_any_api_above_1_0", &m->incompatible_for_any_api_above_1_0) ||
            !parse_bool(v, "accept_any_api_version", &m->accept_any_api_version) ||
            !parse_bool(v, "unpublished_extension", &m->unpublished_extension) ||
            !parse_bool(v, "surface_without_interface_3", &m->surface_without_interface_3) ||
            !parse_bool(v, "corrupt_other_driver", &m->corrupt_other_driver) ||
            !parse_bool(v, "fail_enumerate_physical_devices", &m->fail_enumerate_physical_devices) ||
            !parse_bool(v, "incompatible_for_api_2", &m->incompatible_for_api_2) ||
            !parse_bool(v, "gipa_null_instance_answers_all", &m->gipa_null_instance_answers_all)) {
            *err = "misbehave";
            goto fail;
        }
    }
    cJSON_Delete(root);
    return sc;
fail:
    if (!*err) *err = "invalid";
    cJSON_Delete(root);
    scenario_free(sc);
    return NULL;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 4096) {
            cap = cap ? cap * 2 : 8192;
            char *n = realloc(buf, cap);
            if (!n) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = n;
        }
        size_t r = fread(buf + len, 1, cap - len - 1, f);
        len += r;
        if (r == 0) break;
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

/* Loads the sidecar (or defaults) into g_sc; called with g_lock held. Returns an error text to
 * record (after the lock is dropped) or NULL. */
static const char *load_sidecar_locked(void) {
    const char *err = NULL;
    char *text = read_file(g_scenario_path);
    struct scenario *sc = scenario_parse(text, &err);
    free(text);
    if (!sc) {
        const char *ignored = NULL;
        sc = scenario_parse(NULL, &ignored);
    }
    if (sc) { /* out of memory: keep what is in force */
        scenario_release(g_sc);
        g_sc = sc;
    }
    g_ctl_scenario = false;
    return err;
}

/* Never takes g_lock once initialised, so it may run with g_lock held. */
static void ensure_init(void) {
    if (__atomic_load_n(&g_inited, __ATOMIC_ACQUIRE)) return;
    const char *err = NULL;
    pthread_mutex_lock(&g_lock);
    if (!g_inited) {
        Dl_info info;
        memset(&info, 0, sizeof info);
        if (dladdr((void *)&ensure_init, &info) && info.dli_fname)
            copy_name(g_self_path, sizeof g_self_path, info.dli_fname);
        else
            copy_name(g_self_path, sizeof g_self_path, "mock_icd");
        snprintf(g_calls_path, sizeof g_calls_path, "%s.calls", g_self_path);
        snprintf(g_scenario_path, sizeof g_scenario_path, "%s.scenario", g_self_path);
        err = load_sidecar_locked();
        __atomic_store_n(&g_inited, true, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&g_lock);
    if (err) {
        cJSON *o = rec_new("mock_icd_scenario_error");
        cJSON_AddStringToObject(o, "file", g_scenario_path);
        cJSON_AddStringToObject(o, "error", err);
        rec_emit(o);
    }
}

static struct scenario *sc_now(void) {
    ensure_init();
    return g_sc;
}

/* Injected result of `cmd`; VK_SUCCESS when none. */
static VkResult injected(const char *cmd) {
    struct scenario *sc = sc_now();
    for (uint32_t i = 0; i < sc->result_count; i++)
        if (strcmp(sc->results[i].command, cmd) == 0) return sc->results[i].result;
    return VK_SUCCESS;
}

static bool has_ext(const struct ext_cfg *e, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(e[i].name, name) == 0) return true;
    return false;
}

static bool inst_ext(const char *name) {
    struct scenario *sc = sc_now();
    return has_ext(sc->inst_exts, sc->inst_ext_count, name);
}

static uint32_t major_minor(uint32_t v) {
    return VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), 0);
}

/* The interface version the mock believes it runs under. */
static int effective_interface(void) {
    if (g_negotiated >= 0) return g_negotiated;
    return g_legacy_gipa_first ? 1 : 0;
}

static void set_magic(void *obj) {
    VK_LOADER_DATA *ld = obj;
    ld->loaderMagic = sc_now()->mb.no_loader_magic ? 0 : ICD_LOADER_MAGIC;
}

/* First call into the driver: which kind of loader is talking to us (driver doc, "Interfacing
 * With Legacy Drivers or Loaders"). */
static void note_entry(const char *entry, const char *name) {
    ensure_init();
    pthread_mutex_lock(&g_lock);
    bool first = !g_first_seen;
    g_first_seen = true;
    pthread_mutex_unlock(&g_lock);
    if (!first) return;
    const char *loader;
    if (strcmp(entry, "vk_icdNegotiateLoaderICDInterfaceVersion") == 0) {
        loader = "negotiate";
    } else if (strcmp(entry, "vk_icdGetInstanceProcAddr") == 0) {
        if (name && strcmp(name, "vk_icdNegotiateLoaderICDInterfaceVersion") == 0) {
            loader = "v7";
        } else {
            loader = "legacy_v1";
            g_legacy_gipa_first = true;
        }
    } else {
        loader = "v0";
    }
    cJSON *o = rec_new("first_entry");
    cJSON_AddStringToObject(o, "entry", entry);
    rec_add_str_or_null(o, "name", name);
    cJSON_AddStringToObject(o, "loader", loader);
    rec_emit(o);
}

/* ------------------------------------------------------------------------------------------ */
/* Handle lookup (the loader under test may hand us the wrong handle: never trust it)           */

static struct mock_instance *find_instance_locked(VkInstance h) {
    for (struct mock_instance *i = g_instances; i; i = i->next)
        if ((void *)i == (void *)h) return i;
    return NULL;
}

static struct mock_instance *find_instance(VkInstance h) {
    pthread_mutex_lock(&g_lock);
    struct mock_instance *r = find_instance_locked(h);
    pthread_mutex_unlock(&g_lock);
    return r;
}

static struct mock_physdev *find_physdev_locked(VkPhysicalDevice h) {
    for (struct mock_instance *i = g_instances; i; i = i->next)
        for (uint32_t k = 0; k < i->pd_count; k++)
            if ((void *)i->pds[k] == (void *)h) return i->pds[k];
    return NULL;
}

static struct mock_physdev *find_physdev(VkPhysicalDevice h) {
    pthread_mutex_lock(&g_lock);
    struct mock_physdev *r = find_physdev_locked(h);
    pthread_mutex_unlock(&g_lock);
    return r;
}

static struct mock_device *find_device_locked(VkDevice h) {
    for (struct mock_device *d = g_devices; d; d = d->next)
        if ((void *)d == (void *)h) return d;
    return NULL;
}

static struct mock_device *find_device(VkDevice h) {
    pthread_mutex_lock(&g_lock);
    struct mock_device *r = find_device_locked(h);
    pthread_mutex_unlock(&g_lock);
    return r;
}

static struct mock_queue *find_queue_locked(const void *h) {
    for (struct mock_device *d = g_devices; d; d = d->next)
        for (uint32_t k = 0; k < d->queue_count; k++)
            if ((const void *)d->queues[k] == h) return d->queues[k];
    return NULL;
}

static struct mock_queue *find_queue(const void *h) {
    pthread_mutex_lock(&g_lock);
    struct mock_queue *r = find_queue_locked(h);
    pthread_mutex_unlock(&g_lock);
    return r;
}

static struct mock_cmdbuf *find_cmdbuf_locked(const void *h) {
    for (struct mock_device *d = g_devices; d; d = d->next)
        for (struct mock_pool *p = d->pools; p; p = p->next)
            for (struct mock_cmdbuf *c = p->cmdbufs; c; c = c->next)
                if ((const void *)c == h) return c;
    return NULL;
}

static struct mock_cmdbuf *find_cmdbuf(const void *h) {
    pthread_mutex_lock(&g_lock);
    struct mock_cmdbuf *r = find_cmdbuf_locked(h);
    pthread_mutex_unlock(&g_lock);
    return r;
}

static void rec_invalid_handle(const char *call, const char *what) {
    cJSON *o = rec_new("invalid_handle");
    cJSON_AddStringToObject(o, "function", call);
    cJSON_AddStringToObject(o, "handle", what);
    rec_emit(o);
}

/* LDP_DRIVER_2 violations: any instance-level call after reporting zero devices aborts
 * (misbehave.crash_with_zero_devices); a command named in crash_in aborts whatever the device count. */
static void maybe_crash(struct mock_instance *inst, const char *call) {
    if (inst && inst->reported_zero_devices && sc_now()->mb.crash_with_zero_devices) {
        cJSON *o = rec_new("crash_with_zero_devices");
        cJSON_AddStringToObject(o, "function", call);
        rec_emit(o);
        abort();
    }
    const struct scenario *sc = inst ? inst->sc : sc_now();
    for (uint32_t i = 0; i < sc->crash_in_count; i++) {
        if (strcmp(sc->crash_in[i], call) == 0) {
            cJSON *o = rec_new("crash_in");
            cJSON_AddStringToObject(o, "function", call);
            rec_emit(o);
            abort();
        }
    }
}

/* ------------------------------------------------------------------------------------------ */
/* Negotiation                                                                                  */

/* through_gipa: called through the pointer vk_icdGetInstanceProcAddr(NULL, ...) returned (where
 * interface.max_through_gipa applies) rather than the export. */
static VkResult negotiate_impl(uint32_t *pVersion, bool through_gipa) {
    note_entry("vk_icdNegotiateLoaderICDInterfaceVersion", NULL);
    struct scenario *sc = sc_now();
    uint32_t max = min_u32(sc->if_max, MOCK_ICD_MAX_INTERFACE);
    if (through_gipa && sc->has_max_through_gipa) max = min_u32(max, sc->max_through_gipa);
    VkResult r;
    cJSON *o = rec_new("vk_icdNegotiateLoaderICDInterfaceVersion");
    if (!pVersion) {
        cJSON_AddNullToObject(o, "offered");
        r = VK_ERROR_INITIALIZATION_FAILED;
        rec_add_result(o, r);
        rec_emit(o);
        return r;
    }
    uint32_t offered = *pVersion;
    cJSON_AddNumberToObject(o, "offered", offered);
    if (offered < sc->if_min || sc->if_min > max) {
        r = VK_ERROR_INCOMPATIBLE_DRIVER;
    } else {
        *pVersion = offered < max ? offered : max;
        r = VK_SUCCESS;
    }
    for (uint32_t i = 0; i < sc->per_offer_count; i++) {
        const struct offer_cfg *po = &sc->per_offer[i];
        if (po->offer != offered) continue;
        if (po->is_result) {
            r = po->result;
        } else {
            *pVersion = po->version;
            r = VK_SUCCESS;
        }
    }
    if (sc->has_report_version) *pVersion = sc->report_version;
    if (sc->has_negotiate_result) r = sc->negotiate_result;
    VkResult inj = injected("vk_icdNegotiateLoaderICDInterfaceVersion");
    if (inj != VK_SUCCESS) r = inj;
    /* The loader takes any result but INCOMPATIBLE as success (spec §5.2): mirror that. */
    if (r != VK_ERROR_INCOMPATIBLE_DRIVER) g_negotiated = (int)*pVersion;
    cJSON_AddNumberToObject(o, "returned", *pVersion);
    cJSON_AddBoolToObject(o, "through_gipa", through_gipa);
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

__attribute__((unused)) static VKAPI_ATTR VkResult VKAPI_CALL mock_negotiate(uint32_t *pVersion) {
    return negotiate_impl(pVersion, false);
}

__attribute__((unused)) static VKAPI_ATTR VkResult VKAPI_CALL mock_negotiate_through_gipa(uint32_t *pVersion) {
    return negotiate_impl(pVersion, true);
}

/* ------------------------------------------------------------------------------------------ */
/* Global commands                                                                              */

static void corrupt_other_driver(void) {
    /* LDP_DRIVER_1 violation: reach another mock through the global symbol namespace. This only
     * finds one when the loader dlopen'ed drivers with RTLD_GLOBAL. */
    void *fn = dlsym(RTLD_DEFAULT, "mock_icd_ctl_set_result");
    /* Compare load addresses, not function addresses: our own reference to an exported symbol
     * may itself be interposed by the other copy. */
    Dl_info mine, theirs;
    bool other = fn && dladdr((void *)&corrupt_other_driver, &mine) && dladdr(fn, &theirs) &&
                 mine.dli_fbase != theirs.dli_fbase;
    cJSON *o = rec_new("corrupt_other_driver");
    cJSON_AddBoolToObject(o, "found_other", other);
    rec_emit(o);
    if (other) {
        PFN_mock_icd_ctl_set_result set = (PFN_mock_icd_ctl_set_result)fn;
        set("vkEnumeratePhysicalDevices", VK_ERROR_INITIALIZATION_FAILED);
        set("vkCreateDevice", VK_ERROR_INITIALIZATION_FAILED);
    }
}

static void destroy_device_objects(struct mock_device *d);

static void instance_free(struct mock_instance *inst) {
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

static VKAPI_ATTR VkResult VKAPI_CALL mock_CreateInstance(const VkInstanceCreateInfo *ci,
                                                          const VkAllocationCallbacks *alloc,
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

static VKAPI_ATTR void VKAPI_CALL mock_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc) {
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

static VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateInstanceExtensionProperties(const char *layer,
                                                                                uint32_t *count,
                                                                                VkExtensionProperties *props) {
    struct scenario *sc = sc_now();
    cJSON *o = rec_new("vkEnumerateInstanceExtensionProperties");
    rec_add_str_or_null(o, "layer", layer);
    VkResult r = VK_SUCCESS;
    if (layer) {
        r = VK_ERROR_LAYER_NOT_PRESENT;
    } else if (!count) {
        r = VK_ERROR_INITIALIZATION_FAILED;
    } else {
        uint32_t total = sc->inst_ext_count + (sc->mb.unpublished_extension ? 1 : 0);
        VkResult inj = injected("vkEnumerateInstanceExtensionProperties");
        if (inj < 0) {
            r = inj;
        } else if (!props) {
            *count = total;
        } else {
            uint32_t n = *count < total ? *count : total;
            for (uint32_t i = 0; i < n; i++) {
                memset(&props[i], 0, sizeof props[i]);
                if (i < sc->inst_ext_count) {
                    copy_name(props[i].extensionName, sizeof props[i].extensionName, sc->inst_exts[i].name);
                    props[i].specVersion = sc->inst_exts[i].spec_version;
                } else {
                    copy_name(props[i].extensionName, sizeof props[i].extensionName, UNPUBLISHED_EXTENSION);
                    props[i].specVersion = 1;
                }
            }
            *count = n;
            r = n < total ? VK_INCOMPLETE : (inj > 0 ? inj : VK_SUCCESS);
        }
    }
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateInstanceVersion(uint32_t *version) {
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

/* Hot-plug (issue 13): whether device `index` of an instance is present, by the CURRENT scenario's
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

static VKAPI_ATTR VkResult VKAPI_CALL mock_EnumeratePhysicalDevices(VkInstance instance, uint32_t *count,
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
        if (!out) {
            *count = present;
        } else {
            uint32_t n = 0;
            for (uint32_t i = 0; i < inst->pd_count && n < *count; i++)
                if (plugged_in(i)) out[n++] = (VkPhysicalDevice)inst->pds[i];
            *count = n;
            r = n < present ? VK_INCOMPLETE : inj;
        }
        if (present == 0 && out) inst->reported_zero_devices = true;
        cJSON_AddNumberToObject(o, "count_out", *count);
        if (sc_now()->unplugged_count > 0) cJSON_AddNumberToObject(o, "unplugged", inst->pd_count - present);
    }
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_EnumeratePhysicalDeviceGroups(VkInstance instance, uint32_t *count,
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
             * none): a loader must hand the application's chains down (issue 13). */
            cJSON *chains = cJSON_AddArrayToObject(o, "pnext_stypes");
            for (uint32_t g = 0; g < n; g++) {
                const VkBaseOutStructure *next = (const VkBaseOutStructure *)props[g].pNext;
                cJSON_AddItemToArray(chains, cJSON_CreateNumber(next != NULL ? (double)next->sType : 0));
            }
            for (uint32_t g = 0; g < n; g++) {
                VkPhysicalDeviceGroupProperties *p = &props[g];
                memset(p->physicalDevices, 0, sizeof p->physicalDevices);
                p->physicalDeviceCount = views[g].count;
                for (uint32_t m = 0; m < views[g].count; m++)
                    p->physicalDevices[m] = (VkPhysicalDevice)inst->pds[views[g].members[m]];
                p->subsetAllocation = p->physicalDeviceCount > 1 ? VK_TRUE : VK_FALSE;
            }
            *count = n;
            r = n < total ? VK_INCOMPLETE : inj;
        }
        free(views);
        cJSON_AddNumberToObject(o, "count_out", *count);
    }
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_CreateDebugUtilsMessengerEXT(VkInstance instance,
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

static VKAPI_ATTR void VKAPI_CALL mock_DestroyDebugUtilsMessengerEXT(VkInstance instance,
                                                                    VkDebugUtilsMessengerEXT messenger,
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

/* Surfaces: answered when the scenario lists VK_KHR_surface and the interface is >= 3 (the driver
 * then owns its surfaces), or below 3 with misbehave.surface_without_interface_3 (LDP_DRIVER_8).
 * The create-info type differs per platform but is only read as an opaque pointer. */
static VkResult create_surface_ex(const char *call, VkInstance instance, const void *ci,
                                  const VkDisplaySurfaceCreateInfoKHR *display, VkSurfaceKHR *out) {
    struct mock_instance *inst = find_instance(instance);
    maybe_crash(inst, call);
    VkResult r = injected(call);
    if (!inst || !out) r = VK_ERROR_INITIALIZATION_FAILED;
    if (r >= 0) {
        struct mock_surface *s = calloc(1, sizeof *s);
        if (!s) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
        } else {
            s->kind = call;
            pthread_mutex_lock(&g_lock);
            s->next = inst->surfaces;
            inst->surfaces = s;
            pthread_mutex_unlock(&g_lock);
            *out = (VkSurfaceKHR)(void *)s;
        }
    }
    cJSON *o = rec_new(call);
    cJSON_AddNumberToObject(o, "interface", effective_interface());
    if (display != NULL) { /* the handles the loader passed through */
        cJSON_AddNumberToObject(o, "display_mode", (double)(uint64_t)(uintptr_t)display->displayMode);
        cJSON_AddNumberToObject(o, "plane_index", (double)display->planeIndex);
    }
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

static VkResult create_surface(const char *call, VkInstance instance, const void *ci, VkSurfaceKHR *out) {
    return create_surface_ex(call, instance, ci, NULL, out);
}

/* What kind of surface handle the loader handed us: "own" (one this mock created and has not
 * destroyed), "container" (below interface 3 the loader's VkIcdSurface*: only then is the handle
 * read, as VkIcdSurfaceBase, adding "platform"), "foreign" (anything else at interface >= 3; never
 * dereferenced) or "null". LDP_LOADER_10/11. */
static void rec_add_surface(cJSON *o, VkSurfaceKHR surface) {
    const char *kind = "null";
    if (surface != VK_NULL_HANDLE) {
        bool own = false;
        pthread_mutex_lock(&g_lock);
        for (struct mock_instance *i = g_instances; i && !own; i = i->next)
            for (struct mock_surface *s = i->surfaces; s && !own; s = s->next) own = (void *)s == (void *)surface;
        pthread_mutex_unlock(&g_lock);
        if (own) {
            kind = "own";
        } else if (effective_interface() < 3) {
            kind = "container";
            cJSON_AddNumberToObject(o, "platform", ((const VkIcdSurfaceBase *)(uintptr_t)surface)->platform);
        } else {
            kind = "foreign";
        }
    }
    cJSON_AddStringToObject(o, "surface", kind);
}

#define SURFACE_CREATE(name)                                                                              \
    static VKAPI_ATTR VkResult VKAPI_CALL mock_##name(VkInstance instance, const void *ci,                \
                                                      const VkAllocationCallbacks *alloc, VkSurfaceKHR *out) { \
        return create_surface("vk" #name, instance, ci, out);                                             \
    }
SURFACE_CREATE(CreateXlibSurfaceKHR)
SURFACE_CREATE(CreateXcbSurfaceKHR)
SURFACE_CREATE(CreateWaylandSurfaceKHR)
SURFACE_CREATE(CreateHeadlessSurfaceEXT)

/* VK_KHR_display: the display mode handle the loader passed through is recorded too. */
static VKAPI_ATTR VkResult VKAPI_CALL mock_CreateDisplayPlaneSurfaceKHR(VkInstance instance,
                                                                       const VkDisplaySurfaceCreateInfoKHR *ci,
                                                                       const VkAllocationCallbacks *alloc,
                                                                       VkSurfaceKHR *out) {
    (void)alloc;
    return create_surface_ex("vkCreateDisplayPlaneSurfaceKHR", instance, ci, ci, out);
}

static VKAPI_ATTR void VKAPI_CALL mock_DestroySurfaceKHR(VkInstance instance, VkSurfaceKHR surface,
                                                         const VkAllocationCallbacks *alloc) {
    struct mock_instance *inst = find_instance(instance);
    bool found = false;
    pthread_mutex_lock(&g_lock);
    if (inst) {
        for (struct mock_surface **pp = &inst->surfaces; *pp; pp = &(*pp)->next) {
            if ((void *)*pp == (void *)surface) {
                struct mock_surface *s = *pp;
                *pp = s->next;
                free(s);
                found = true;
                break;
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
    cJSON *o = rec_new("vkDestroySurfaceKHR");
    cJSON_AddBoolToObject(o, "valid", found || surface == VK_NULL_HANDLE);
    rec_emit(o);
}

/* ------------------------------------------------------------------------------------------ */
/* Physical-device commands                                                                     */

#define GET_PD(call, ret)                                        \
    struct mock_physdev *pd = find_physdev(physicalDevice);      \
    if (!pd) {                                                   \
        rec_invalid_handle(call, "VkPhysicalDevice");            \
        return ret;                                              \
    }                                                            \
    maybe_crash(pd->instance, call)

/* The limits every device reports: the Vulkan specification's required minimums (maximums for the
 * "smaller is better" limits), with the optional features they belong to (tessellation, geometry,
 * sparse, wide lines, ...) left off, so that vulkaninfo and applications see well-formed values. */
static void fill_limits(VkPhysicalDeviceLimits *l) {
    memset(l, 0, sizeof *l);
    l->maxImageDimension1D = 4096;
    l->maxImageDimension2D = 4096;
    l->maxImageDimension3D = 256;
    l->maxImageDimensionCube = 4096;
    l->maxImageArrayLayers = 256;
    l->maxTexelBufferElements = 65536;
    l->maxUniformBufferRange = 16384;
    l->maxStorageBufferRange = 1u << 27;
    l->maxPushConstantsSize = 128;
    l->maxMemoryAllocationCount = 4096;
    l->maxSamplerAllocationCount = 4000;
    l->bufferImageGranularity = 131072;
    l->maxBoundDescriptorSets = 4;
    l->maxPerStageDescriptorSamplers = 16;
    l->maxPerStageDescriptorUniformBuffers = 12;
    l->maxPerStageDescriptorStorageBuffers = 4;
    l->maxPerStageDescriptorSampledImages = 16;
    l->maxPerStageDescriptorStorageImages = 4;
    l->maxPerStageDescriptorInputAttachments = 4;
    l->maxPerStageResources = 128;
    l->maxDescriptorSetSamplers = 96;
    l->maxDescriptorSetUniformBuffers = 72;
    l->maxDescriptorSetUniformBuffersDynamic = 8;
    l->maxDescriptorSetStorageBuffers = 24;
    l->maxDescriptorSetStorageBuffersDynamic = 4;
    l->maxDescriptorSetSampledImages = 96;
    l->maxDescriptorSetStorageImages = 24;
    l->maxDescriptorSetInputAttachments = 4;
    l->maxVertexInputAttributes = 16;
    l->maxVertexInputBindings = 16;
    l->maxVertexInputAttributeOffset = 2047;
    l->maxVertexInputBindingStride = 2048;
    l->maxVertexOutputComponents = 64;
    l->maxFragmentInputComponents = 64;
    l->maxFragmentOutputAttachments = 4;
    l->maxFragmentCombinedOutputResources = 4;
    l->maxComputeSharedMemorySize = 16384;
    l->maxComputeWorkGroupCount[0] = l->maxComputeWorkGroupCount[1] = l->maxComputeWorkGroupCount[2] = 65535;
    l->maxComputeWorkGroupInvocations = 128;
    l->maxComputeWorkGroupSize[0] = 128;
    l->maxComputeWorkGroupSize[1] = 128;
    l->maxComputeWorkGroupSize[2] = 64;
    l->subPixelPrecisionBits = 4;
    l->subTexelPrecisionBits = 4;
    l->mipmapPrecisionBits = 4;
    l->maxDrawIndexedIndexValue = (1u << 24) - 1;
    l->maxDrawIndirectCount = 1;
    l->maxSamplerLodBias = 2.0f;
    l->maxSamplerAnisotropy = 1.0f;
    l->maxViewports = 1;
    l->maxViewportDimensions[0] = l->maxViewportDimensions[1] = 4096;
    l->viewportBoundsRange[0] = -8192.0f;
    l->viewportBoundsRange[1] = 8191.0f;
    l->minMemoryMapAlignment = 64;
    l->minTexelBufferOffsetAlignment = 256;
    l->minUniformBufferOffsetAlignment = 256;
    l->minStorageBufferOffsetAlignment = 256;
    l->minTexelOffset = -8;
    l->maxTexelOffset = 7;
    l->maxFramebufferWidth = 4096;
    l->maxFramebufferHeight = 4096;
    l->maxFramebufferLayers = 256;
    l->framebufferColorSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
    l->framebufferDepthSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
    l->framebufferStencilSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
    l->framebufferNoAttachmentsSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
    l->maxColorAttachments = 4;
    l->sampledImageColorSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
    l->sampledImageIntegerSampleCounts = VK_SAMPLE_COUNT_1_BIT;
    l->sampledImageDepthSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
    l->sampledImageStencilSampleCounts = VK_SAMPLE_COUNT_1_BIT | VK_SAMPLE_COUNT_4_BIT;
    l->storageImageSampleCounts = VK_SAMPLE_COUNT_1_BIT;
    l->maxSampleMaskWords = 1;
    l->timestampComputeAndGraphics = VK_TRUE;
    l->timestampPeriod = 1.0f;
    l->discreteQueuePriorities = 2;
    l->pointSizeRange[0] = l->pointSizeRange[1] = 1.0f;
    l->lineWidthRange[0] = l->lineWidthRange[1] = 1.0f;
    l->standardSampleLocations = VK_TRUE;
    l->optimalBufferCopyOffsetAlignment = 1;
    l->optimalBufferCopyRowPitchAlignment = 1;
    l->nonCoherentAtomSize = 64;
}

static void fill_properties(const struct mock_physdev *pd, VkPhysicalDeviceProperties *p) {
    const struct physdev_cfg *c = pd->cfg;
    memset(p, 0, sizeof *p);
    p->apiVersion = c->api_version;
    p->driverVersion = c->driver_version;
    p->vendorID = c->vendor_id;
    p->deviceID = c->device_id;
    p->deviceType = c->type;
    copy_name(p->deviceName, sizeof p->deviceName, c->name);
    for (uint32_t i = 0; i < VK_UUID_SIZE; i++) p->pipelineCacheUUID[i] = (uint8_t)(pd->index + i);
    fill_limits(&p->limits);
}

/* The Vulkan 1.1 subgroup and multiview answers every device gives (Properties2 chains). */
#define MOCK_SUBGROUP_SIZE 32u
#define MOCK_MAX_ALLOCATION ((VkDeviceSize)1 << 30)

static void fill_device_uuid(const struct mock_physdev *pd, uint8_t *device_uuid, uint8_t *driver_uuid) {
    for (uint32_t i = 0; i < VK_UUID_SIZE; i++) {
        device_uuid[i] = (uint8_t)(0xD0 + pd->index + i);
        driver_uuid[i] = (uint8_t)(0x1C + i);
    }
}

static void fill_driver_identity(const struct mock_physdev *pd, VkDriverId *id, char *name, char *info,
                                 VkConformanceVersion *conformance) {
    *id = pd->cfg->driver_id;
    copy_name(name, VK_MAX_DRIVER_NAME_SIZE, "Mock ICD");
    copy_name(info, VK_MAX_DRIVER_INFO_SIZE, "vk-loader-harness mock driver");
    conformance->major = pd->cfg->conformance[0];
    conformance->minor = pd->cfg->conformance[1];
    conformance->subminor = pd->cfg->conformance[2];
    conformance->patch = pd->cfg->conformance[3];
}

static VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceProperties(VkPhysicalDevice physicalDevice,
                                                                   VkPhysicalDeviceProperties *p) {
    GET_PD("vkGetPhysicalDeviceProperties", );
    if (p) fill_properties(pd, p);
}

static VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceProperties2(VkPhysicalDevice physicalDevice,
                                                                    VkPhysicalDeviceProperties2 *p) {
    GET_PD("vkGetPhysicalDeviceProperties2", );
    if (!p) return;
    fill_properties(pd, &p->properties);
    for (VkBaseOutStructure *s = p->pNext; s; s = s->pNext) {
        if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES) {
            VkPhysicalDeviceDriverProperties *d = (VkPhysicalDeviceDriverProperties *)s;
            fill_driver_identity(pd, &d->driverID, d->driverName, d->driverInfo, &d->conformanceVersion);
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES) {
            VkPhysicalDeviceIDProperties *id = (VkPhysicalDeviceIDProperties *)s;
            fill_device_uuid(pd, id->deviceUUID, id->driverUUID);
            memset(id->deviceLUID, 0, sizeof id->deviceLUID);
            id->deviceNodeMask = 0;
            id->deviceLUIDValid = VK_FALSE;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES) {
            /* The same answers as the individual structures (vulkaninfo prints both). */
            VkPhysicalDeviceVulkan11Properties *v = (VkPhysicalDeviceVulkan11Properties *)s;
            fill_device_uuid(pd, v->deviceUUID, v->driverUUID);
            memset(v->deviceLUID, 0, sizeof v->deviceLUID);
            v->deviceNodeMask = 0;
            v->deviceLUIDValid = VK_FALSE;
            v->subgroupSize = MOCK_SUBGROUP_SIZE;
            v->subgroupSupportedStages = VK_SHADER_STAGE_COMPUTE_BIT;
            v->subgroupSupportedOperations = VK_SUBGROUP_FEATURE_BASIC_BIT;
            v->subgroupQuadOperationsInAllStages = VK_FALSE;
            v->pointClippingBehavior = VK_POINT_CLIPPING_BEHAVIOR_ALL_CLIP_PLANES;
            v->maxMultiviewViewCount = 6;
            v->maxMultiviewInstanceIndex = (1u << 27) - 1;
            v->protectedNoFault = VK_FALSE;
            v->maxPerSetDescriptors = 1024;
            v->maxMemoryAllocationSize = MOCK_MAX_ALLOCATION;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES) {
            VkPhysicalDeviceVulkan12Properties *v = (VkPhysicalDeviceVulkan12Properties *)s;
            fill_driver_identity(pd, &v->driverID, v->driverName, v->driverInfo, &v->conformanceVersion);
            v->denormBehaviorIndependence = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL;
            v->roundingModeIndependence = VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_ALL;
            v->maxUpdateAfterBindDescriptorsInAllPools = 0;
            v->supportedDepthResolveModes = VK_RESOLVE_MODE_SAMPLE_ZERO_BIT;
            v->supportedStencilResolveModes = VK_RESOLVE_MODE_SAMPLE_ZERO_BIT;
            v->maxTimelineSemaphoreValueDifference = (1u << 31) - 1;
            v->framebufferIntegerColorSampleCounts = VK_SAMPLE_COUNT_1_BIT;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES) {
            VkPhysicalDeviceVulkan13Properties *v = (VkPhysicalDeviceVulkan13Properties *)s;
            v->minSubgroupSize = v->maxSubgroupSize = MOCK_SUBGROUP_SIZE;
            v->maxComputeWorkgroupSubgroups = 4;
            v->requiredSubgroupSizeStages = VK_SHADER_STAGE_COMPUTE_BIT;
            v->maxInlineUniformBlockSize = 256;
            v->maxPerStageDescriptorInlineUniformBlocks = 4;
            v->maxDescriptorSetInlineUniformBlocks = 4;
            v->maxInlineUniformTotalSize = 256;
            v->maxBufferSize = MOCK_MAX_ALLOCATION;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES) {
            VkPhysicalDeviceSubgroupProperties *g = (VkPhysicalDeviceSubgroupProperties *)s;
            g->subgroupSize = MOCK_SUBGROUP_SIZE;
            g->supportedStages = VK_SHADER_STAGE_COMPUTE_BIT;
            g->supportedOperations = VK_SUBGROUP_FEATURE_BASIC_BIT;
            g->quadOperationsInAllStages = VK_FALSE;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES) {
            VkPhysicalDeviceMaintenance3Properties *m = (VkPhysicalDeviceMaintenance3Properties *)s;
            m->maxPerSetDescriptors = 1024;
            m->maxMemoryAllocationSize = MOCK_MAX_ALLOCATION;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_4_PROPERTIES) {
            ((VkPhysicalDeviceMaintenance4Properties *)s)->maxBufferSize = MOCK_MAX_ALLOCATION;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MULTIVIEW_PROPERTIES) {
            VkPhysicalDeviceMultiviewProperties *m = (VkPhysicalDeviceMultiviewProperties *)s;
            m->maxMultiviewViewCount = 6;
            m->maxMultiviewInstanceIndex = (1u << 27) - 1;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_POINT_CLIPPING_PROPERTIES) {
            ((VkPhysicalDevicePointClippingProperties *)s)->pointClippingBehavior =
                VK_POINT_CLIPPING_BEHAVIOR_ALL_CLIP_PLANES;
        } else if (s->sType == VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT && pd->cfg->has_pci_bus) {
            VkPhysicalDevicePCIBusInfoPropertiesEXT *b = (VkPhysicalDevicePCIBusInfoPropertiesEXT *)s;
            b->pciDomain = pd->cfg->pci_bus[0];
            b->pciBus = pd->cfg->pci_bus[1];
            b->pciDevice = pd->cfg->pci_bus[2];
            b->pciFunction = pd->cfg->pci_bus[3];
        }
    }
}

static VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFeatures(VkPhysicalDevice physicalDevice,
                                                                 VkPhysicalDeviceFeatures *f) {
    GET_PD("vkGetPhysicalDeviceFeatures", );
    if (!f) return;
    memset(f, 0, sizeof *f);
    f->robustBufferAccess = VK_TRUE; /* the one feature every Vulkan 1.x device must support */
}

static VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFeatures2(VkPhysicalDevice physicalDevice,
                                                                  VkPhysicalDeviceFeatures2 *f) {
    GET_PD("vkGetPhysicalDeviceFeatures2", );
    if (!f) return;
    memset(&f->features, 0, sizeof f->features);
    f->features.robustBufferAccess = VK_TRUE;
}

static VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFormatProperties(VkPhysicalDevice physicalDevice,
                                                                         VkFormat format, VkFormatProperties *p) {
    GET_PD("vkGetPhysicalDeviceFormatProperties", );
    if (!p) return;
    memset(p, 0, sizeof *p);
    if (format != VK_FORMAT_UNDEFINED) {
        p->optimalTilingFeatures = VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT | VK_FORMAT_FEATURE_TRANSFER_SRC_BIT |
                                   VK_FORMAT_FEATURE_TRANSFER_DST_BIT;
        p->bufferFeatures = VK_FORMAT_FEATURE_VERTEX_BUFFER_BIT;
    }
}

static VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceFormatProperties2(VkPhysicalDevice physicalDevice,
                                                                          VkFormat format, VkFormatProperties2 *p) {
    if (p) mock_GetPhysicalDeviceFormatProperties(physicalDevice, format, &p->formatProperties);
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceImageFormatProperties(
    VkPhysicalDevice physicalDevice, VkFormat format, VkImageType type, VkImageTiling tiling,
    VkImageUsageFlags usage, VkImageCreateFlags flags, VkImageFormatProperties *p) {
    GET_PD("vkGetPhysicalDeviceImageFormatProperties", VK_ERROR_INITIALIZATION_FAILED);
    VkResult r = injected("vkGetPhysicalDeviceImageFormatProperties");
    if (r < 0) return r;
    if (format == VK_FORMAT_UNDEFINED) return VK_ERROR_FORMAT_NOT_SUPPORTED;
    if (p) {
        memset(p, 0, sizeof *p);
        p->maxExtent = (VkExtent3D){4096, type == VK_IMAGE_TYPE_1D ? 1u : 4096u, type == VK_IMAGE_TYPE_3D ? 256u : 1u};
        p->maxMipLevels = 13;
        p->maxArrayLayers = 256;
        p->sampleCounts = VK_SAMPLE_COUNT_1_BIT;
        p->maxResourceSize = 1u << 30;
    }
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceImageFormatProperties2(
    VkPhysicalDevice physicalDevice, const VkPhysicalDeviceImageFormatInfo2 *info, VkImageFormatProperties2 *p) {
    if (!info || !p) return VK_ERROR_INITIALIZATION_FAILED;
    return mock_GetPhysicalDeviceImageFormatProperties(physicalDevice, info->format, info->type, info->tiling,
                                                       info->usage, info->flags, &p->imageFormatProperties);
}

static VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceQueueFamilyProperties(VkPhysicalDevice physicalDevice,
                                                                              uint32_t *count,
                                                                              VkQueueFamilyProperties *p) {
    GET_PD("vkGetPhysicalDeviceQueueFamilyProperties", );
    if (!count) return;
    const struct physdev_cfg *c = pd->cfg;
    if (!p) {
        *count = c->family_count;
        return;
    }
    uint32_t n = *count < c->family_count ? *count : c->family_count;
    for (uint32_t i = 0; i < n; i++) {
        memset(&p[i], 0, sizeof p[i]);
        p[i].queueFlags = c->families[i].flags;
        p[i].queueCount = c->families[i].count;
        p[i].timestampValidBits = 64;
        p[i].minImageTransferGranularity = (VkExtent3D){1, 1, 1};
    }
    *count = n;
}

static VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceQueueFamilyProperties2(VkPhysicalDevice physicalDevice,
                                                                               uint32_t *count,
                                                                               VkQueueFamilyProperties2 *p) {
    if (!count) return;
    if (!p) {
        mock_GetPhysicalDeviceQueueFamilyProperties(physicalDevice, count, NULL);
        return;
    }
    uint32_t n = *count;
    VkQueueFamilyProperties tmp[64];
    if (n > 64) n = 64;
    mock_GetPhysicalDeviceQueueFamilyProperties(physicalDevice, &n, tmp);
    for (uint32_t i = 0; i < n; i++) p[i].queueFamilyProperties = tmp[i];
    *count = n;
}

/* Memory types every device reports (and every resource accepts). */
static uint32_t mock_memory_type_count(void) { return 1; }

static VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceMemoryProperties(VkPhysicalDevice physicalDevice,
                                                                         VkPhysicalDeviceMemoryProperties *p) {
    GET_PD("vkGetPhysicalDeviceMemoryProperties", );
    if (!p) return;
    memset(p, 0, sizeof *p);
    p->memoryTypeCount = mock_memory_type_count();
    p->memoryTypes[0].propertyFlags = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    p->memoryTypes[0].heapIndex = 0;
    p->memoryHeapCount = 1;
    p->memoryHeaps[0].size = (VkDeviceSize)1 << 30;
    p->memoryHeaps[0].flags = VK_MEMORY_HEAP_DEVICE_LOCAL_BIT;
}

static VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceMemoryProperties2(VkPhysicalDevice physicalDevice,
                                                                          VkPhysicalDeviceMemoryProperties2 *p) {
    if (p) mock_GetPhysicalDeviceMemoryProperties(physicalDevice, &p->memoryProperties);
}

static VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceSparseImageFormatProperties(
    VkPhysicalDevice physicalDevice, VkFormat format, VkImageType type, VkSampleCountFlagBits samples,
    VkImageUsageFlags usage, VkImageTiling tiling, uint32_t *count, VkSparseImageFormatProperties *p) {
    GET_PD("vkGetPhysicalDeviceSparseImageFormatProperties", );
    if (count) *count = 0;
}

static VKAPI_ATTR void VKAPI_CALL mock_GetPhysicalDeviceSparseImageFormatProperties2(
    VkPhysicalDevice physicalDevice, const VkPhysicalDeviceSparseImageFormatInfo2 *info, uint32_t *count,
    VkSparseImageFormatProperties2 *p) {
    GET_PD("vkGetPhysicalDeviceSparseImageFormatProperties2", );
    if (count) *count = 0;
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateDeviceExtensionProperties(VkPhysicalDevice physicalDevice,
                                                                              const char *layer, uint32_t *count,
                                                                              VkExtensionProperties *props) {
    GET_PD("vkEnumerateDeviceExtensionProperties", VK_ERROR_INITIALIZATION_FAILED);
    const struct physdev_cfg *c = pd->cfg;
    bool unpublished = sc_now()->mb.unpublished_extension;
    cJSON *o = rec_new("vkEnumerateDeviceExtensionProperties");
    cJSON_AddNumberToObject(o, "physical_device", pd->index);
    rec_add_str_or_null(o, "layer", layer);
    VkResult r = VK_SUCCESS;
    if (layer) {
        r = VK_ERROR_LAYER_NOT_PRESENT;
    } else if (!count) {
        r = VK_ERROR_INITIALIZATION_FAILED;
    } else if ((r = injected("vkEnumerateDeviceExtensionProperties")) < 0) {
        /* injected failure */
    } else {
        uint32_t total = c->ext_count + (unpublished ? 1 : 0);
        if (!props) {
            *count = total;
        } else {
            uint32_t n = *count < total ? *count : total;
            for (uint32_t i = 0; i < n; i++) {
                memset(&props[i], 0, sizeof props[i]);
                if (i < c->ext_count) {
                    copy_name(props[i].extensionName, sizeof props[i].extensionName, c->exts[i].name);
                    props[i].specVersion = c->exts[i].spec_version;
                } else {
                    copy_name(props[i].extensionName, sizeof props[i].extensionName, UNPUBLISHED_EXTENSION);
                    props[i].specVersion = 1;
                }
            }
            *count = n;
            if (n < total) r = VK_INCOMPLETE;
        }
    }
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_EnumerateDeviceLayerProperties(VkPhysicalDevice physicalDevice,
                                                                          uint32_t *count, VkLayerProperties *p) {
    GET_PD("vkEnumerateDeviceLayerProperties", VK_ERROR_INITIALIZATION_FAILED);
    cJSON *o = rec_new("vkEnumerateDeviceLayerProperties");
    rec_emit(o);
    if (count) *count = 0;
    return VK_SUCCESS;
}

static void rec_surface_query(const char *call, const struct mock_physdev *pd, VkSurfaceKHR surface) {
    cJSON *o = rec_new(call);
    cJSON_AddNumberToObject(o, "physical_device", pd->index);
    rec_add_surface(o, surface);
    rec_emit(o);
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceSupportKHR(VkPhysicalDevice physicalDevice,
                                                                              uint32_t family, VkSurfaceKHR surface,
                                                                              VkBool32 *supported) {
    GET_PD("vkGetPhysicalDeviceSurfaceSupportKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_surface_query("vkGetPhysicalDeviceSurfaceSupportKHR", pd, surface);
    if (supported) *supported = family < pd->cfg->family_count ? VK_TRUE : VK_FALSE;
    return injected("vkGetPhysicalDeviceSurfaceSupportKHR");
}

/* The surface capabilities every surface query reports. */
static void mock_fill_surface_caps(VkSurfaceCapabilitiesKHR *caps) {
    memset(caps, 0, sizeof *caps);
    caps->minImageCount = 1;
    caps->maxImageCount = 3;
    caps->currentExtent = (VkExtent2D){640, 480};
    caps->minImageExtent = (VkExtent2D){1, 1};
    caps->maxImageExtent = (VkExtent2D){4096, 4096};
    caps->maxImageArrayLayers = 1;
    caps->supportedTransforms = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
    caps->currentTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
    caps->supportedCompositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    caps->supportedUsageFlags = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceCapabilitiesKHR(VkPhysicalDevice physicalDevice,
                                                                                   VkSurfaceKHR surface,
                                                                                   VkSurfaceCapabilitiesKHR *caps) {
    GET_PD("vkGetPhysicalDeviceSurfaceCapabilitiesKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_surface_query("vkGetPhysicalDeviceSurfaceCapabilitiesKHR", pd, surface);
    if (caps) mock_fill_surface_caps(caps);
    return injected("vkGetPhysicalDeviceSurfaceCapabilitiesKHR");
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceFormatsKHR(VkPhysicalDevice physicalDevice,
                                                                              VkSurfaceKHR surface, uint32_t *count,
                                                                              VkSurfaceFormatKHR *formats) {
    GET_PD("vkGetPhysicalDeviceSurfaceFormatsKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_surface_query("vkGetPhysicalDeviceSurfaceFormatsKHR", pd, surface);
    if (!count) return VK_ERROR_INITIALIZATION_FAILED;
    if (!formats) {
        *count = 1;
        return VK_SUCCESS;
    }
    if (*count == 0) return VK_INCOMPLETE;
    formats[0].format = VK_FORMAT_B8G8R8A8_UNORM;
    formats[0].colorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
    *count = 1;
    return VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfacePresentModesKHR(VkPhysicalDevice physicalDevice,
                                                                                   VkSurfaceKHR surface,
                                                                                   uint32_t *count,
                                                                                   VkPresentModeKHR *modes) {
    GET_PD("vkGetPhysicalDeviceSurfacePresentModesKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_surface_query("vkGetPhysicalDeviceSurfacePresentModesKHR", pd, surface);
    if (!count) return VK_ERROR_INITIALIZATION_FAILED;
    if (!modes) {
        *count = 1;
        return VK_SUCCESS;
    }
    if (*count == 0) return VK_INCOMPLETE;
    modes[0] = VK_PRESENT_MODE_FIFO_KHR;
    *count = 1;
    return VK_SUCCESS;
}

/* ---- VK_KHR_display / VK_KHR_get_display_properties2 (one display, plane and mode per device) ---- */
/* Handles are numbers derived from the device index; nothing is allocated. */
#define MOCK_DISPLAY(pd) ((VkDisplayKHR)(uintptr_t)(0xd1500u + (pd)->index))
#define MOCK_DISPLAY_MODE(pd) ((VkDisplayModeKHR)(uintptr_t)(0xd1600u + (pd)->index))

static void rec_display_call(const char *call, const struct mock_physdev *pd) {
    cJSON *o = rec_new(call);
    cJSON_AddNumberToObject(o, "physical_device", pd->index);
    rec_emit(o);
}

static void fill_display(const struct mock_physdev *pd, VkDisplayPropertiesKHR *p) {
    memset(p, 0, sizeof *p);
    p->display = MOCK_DISPLAY(pd);
    p->displayName = "Mock Display";
    p->physicalDimensions = (VkExtent2D){520, 290};
    p->physicalResolution = (VkExtent2D){1920, 1080};
    p->supportedTransforms = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR;
}

static void fill_plane(const struct mock_physdev *pd, VkDisplayPlanePropertiesKHR *p) {
    p->currentDisplay = MOCK_DISPLAY(pd);
    p->currentStackIndex = 0;
}

static void fill_mode(const struct mock_physdev *pd, VkDisplayModePropertiesKHR *p) {
    p->displayMode = MOCK_DISPLAY_MODE(pd);
    p->parameters.visibleRegion = (VkExtent2D){1920, 1080};
    p->parameters.refreshRate = 60000;
}

static void fill_plane_caps(VkDisplayPlaneCapabilitiesKHR *c) {
    memset(c, 0, sizeof *c);
    c->supportedAlpha = VK_DISPLAY_PLANE_ALPHA_OPAQUE_BIT_KHR;
    c->maxSrcExtent = (VkExtent2D){1920, 1080};
    c->maxDstExtent = (VkExtent2D){1920, 1080};
    c->minDstExtent = (VkExtent2D){1, 1};
}

/* Two-call idiom over one element: `fill(i)` writes element i of `out`. */
#define ONE_ELEMENT(count, out, fill)    \
    do {                                 \
        if (!(count)) return VK_ERROR_INITIALIZATION_FAILED; \
        if (!(out)) {                    \
            *(count) = 1;                \
            return VK_SUCCESS;           \
        }                                \
        if (*(count) == 0) return VK_INCOMPLETE; \
        fill;                            \
        *(count) = 1;                    \
        return VK_SUCCESS;               \
    } while (0)

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceDisplayPropertiesKHR(VkPhysicalDevice physicalDevice,
                                                                                 uint32_t *count,
                                                                                 VkDisplayPropertiesKHR *out) {
    GET_PD("vkGetPhysicalDeviceDisplayPropertiesKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetPhysicalDeviceDisplayPropertiesKHR", pd);
    ONE_ELEMENT(count, out, fill_display(pd, &out[0]));
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceDisplayProperties2KHR(VkPhysicalDevice physicalDevice,
                                                                                  uint32_t *count,
                                                                                  VkDisplayProperties2KHR *out) {
    GET_PD("vkGetPhysicalDeviceDisplayProperties2KHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetPhysicalDeviceDisplayProperties2KHR", pd);
    ONE_ELEMENT(count, out, fill_display(pd, &out[0].displayProperties));
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceDisplayPlanePropertiesKHR(VkPhysicalDevice physicalDevice,
                                                                                      uint32_t *count,
                                                                                      VkDisplayPlanePropertiesKHR *out) {
    GET_PD("vkGetPhysicalDeviceDisplayPlanePropertiesKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetPhysicalDeviceDisplayPlanePropertiesKHR", pd);
    ONE_ELEMENT(count, out, fill_plane(pd, &out[0]));
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceDisplayPlaneProperties2KHR(
    VkPhysicalDevice physicalDevice, uint32_t *count, VkDisplayPlaneProperties2KHR *out) {
    GET_PD("vkGetPhysicalDeviceDisplayPlaneProperties2KHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetPhysicalDeviceDisplayPlaneProperties2KHR", pd);
    ONE_ELEMENT(count, out, fill_plane(pd, &out[0].displayPlaneProperties));
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayPlaneSupportedDisplaysKHR(VkPhysicalDevice physicalDevice,
                                                                               uint32_t plane, uint32_t *count,
                                                                               VkDisplayKHR *out) {
    GET_PD("vkGetDisplayPlaneSupportedDisplaysKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetDisplayPlaneSupportedDisplaysKHR", pd);
    if (plane != 0 && count) {
        *count = 0;
        return VK_SUCCESS;
    }
    ONE_ELEMENT(count, out, out[0] = MOCK_DISPLAY(pd));
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayModePropertiesKHR(VkPhysicalDevice physicalDevice,
                                                                       VkDisplayKHR display, uint32_t *count,
                                                                       VkDisplayModePropertiesKHR *out) {
    GET_PD("vkGetDisplayModePropertiesKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetDisplayModePropertiesKHR", pd);
    (void)display;
    ONE_ELEMENT(count, out, fill_mode(pd, &out[0]));
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayModeProperties2KHR(VkPhysicalDevice physicalDevice,
                                                                        VkDisplayKHR display, uint32_t *count,
                                                                        VkDisplayModeProperties2KHR *out) {
    GET_PD("vkGetDisplayModeProperties2KHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetDisplayModeProperties2KHR", pd);
    (void)display;
    ONE_ELEMENT(count, out, fill_mode(pd, &out[0].displayModeProperties));
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_CreateDisplayModeKHR(VkPhysicalDevice physicalDevice, VkDisplayKHR display,
                                                                const VkDisplayModeCreateInfoKHR *ci,
                                                                const VkAllocationCallbacks *alloc,
                                                                VkDisplayModeKHR *out) {
    GET_PD("vkCreateDisplayModeKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkCreateDisplayModeKHR", pd);
    (void)display;
    (void)ci;
    (void)alloc;
    if (out) *out = MOCK_DISPLAY_MODE(pd);
    return injected("vkCreateDisplayModeKHR");
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayPlaneCapabilitiesKHR(VkPhysicalDevice physicalDevice,
                                                                          VkDisplayModeKHR mode, uint32_t plane,
                                                                          VkDisplayPlaneCapabilitiesKHR *caps) {
    GET_PD("vkGetDisplayPlaneCapabilitiesKHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetDisplayPlaneCapabilitiesKHR", pd);
    (void)mode;
    (void)plane;
    if (caps) fill_plane_caps(caps);
    return VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetDisplayPlaneCapabilities2KHR(VkPhysicalDevice physicalDevice,
                                                                           const VkDisplayPlaneInfo2KHR *info,
                                                                           VkDisplayPlaneCapabilities2KHR *caps) {
    GET_PD("vkGetDisplayPlaneCapabilities2KHR", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetDisplayPlaneCapabilities2KHR", pd);
    (void)info;
    if (caps) fill_plane_caps(&caps->capabilities);
    return VK_SUCCESS;
}

/* ---- VK_EXT_acquire_xlib_display (types spelled out: the mock does not include Xrandr.h) ---- */
static VKAPI_ATTR VkResult VKAPI_CALL mock_AcquireXlibDisplayEXT(VkPhysicalDevice physicalDevice, void *dpy,
                                                                 VkDisplayKHR display) {
    GET_PD("vkAcquireXlibDisplayEXT", VK_ERROR_INITIALIZATION_FAILED);
    VkResult r = injected("vkAcquireXlibDisplayEXT");
    cJSON *o = rec_new("vkAcquireXlibDisplayEXT");
    cJSON_AddNumberToObject(o, "physical_device", pd->index);
    cJSON_AddNumberToObject(o, "dpy", (double)(uintptr_t)dpy);
    cJSON_AddNumberToObject(o, "display", (double)(uintptr_t)display);
    cJSON_AddBoolToObject(o, "own_display", display == MOCK_DISPLAY(pd));
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetRandROutputDisplayEXT(VkPhysicalDevice physicalDevice, void *dpy,
                                                                    unsigned long rr_output, VkDisplayKHR *out) {
    GET_PD("vkGetRandROutputDisplayEXT", VK_ERROR_INITIALIZATION_FAILED);
    VkResult r = injected("vkGetRandROutputDisplayEXT");
    cJSON *o = rec_new("vkGetRandROutputDisplayEXT");
    cJSON_AddNumberToObject(o, "physical_device", pd->index);
    cJSON_AddNumberToObject(o, "dpy", (double)(uintptr_t)dpy);
    cJSON_AddNumberToObject(o, "rr_output", (double)rr_output);
    rec_add_result(o, r);
    rec_emit(o);
    if (out && r >= 0) *out = MOCK_DISPLAY(pd);
    return r;
}

/* ---- vkGetPhysicalDeviceToolProperties (and the VK_EXT_tooling_info alias): one tool ---- */
static VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceToolProperties(VkPhysicalDevice physicalDevice,
                                                                           uint32_t *count,
                                                                           VkPhysicalDeviceToolProperties *out) {
    GET_PD("vkGetPhysicalDeviceToolProperties", VK_ERROR_INITIALIZATION_FAILED);
    rec_display_call("vkGetPhysicalDeviceToolProperties", pd);
    ONE_ELEMENT(count, out, {
        void *next = out[0].pNext;
        memset(&out[0], 0, sizeof out[0]);
        out[0].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TOOL_PROPERTIES;
        out[0].pNext = next;
        copy_name(out[0].name, sizeof out[0].name, "Mock Driver Tool");
        copy_name(out[0].version, sizeof out[0].version, "1");
        out[0].purposes = VK_TOOL_PURPOSE_VALIDATION_BIT;
        copy_name(out[0].description, sizeof out[0].description, "a tool inside the mock driver");
    });
}

/* ---- vkGetPhysicalDeviceSurfaceCapabilities2EXT / 2KHR ---- */
static VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceCapabilities2EXT(VkPhysicalDevice physicalDevice,
                                                                                    VkSurfaceKHR surface,
                                                                                    VkSurfaceCapabilities2EXT *caps) {
    GET_PD("vkGetPhysicalDeviceSurfaceCapabilities2EXT", VK_ERROR_INITIALIZATION_FAILED);
    rec_surface_query("vkGetPhysicalDeviceSurfaceCapabilities2EXT", pd, surface);
    if (caps) {
        VkSurfaceCapabilitiesKHR c;
        mock_fill_surface_caps(&c);
        caps->minImageCount = c.minImageCount;
        caps->maxImageCount = c.maxImageCount;
        caps->currentExtent = c.currentExtent;
        caps->minImageExtent = c.minImageExtent;
        caps->maxImageExtent = c.maxImageExtent;
        caps->maxImageArrayLayers = c.maxImageArrayLayers;
        caps->supportedTransforms = c.supportedTransforms;
        caps->currentTransform = c.currentTransform;
        caps->supportedCompositeAlpha = c.supportedCompositeAlpha;
        caps->supportedUsageFlags = c.supportedUsageFlags;
        caps->supportedSurfaceCounters = VK_SURFACE_COUNTER_VBLANK_BIT_EXT;
    }
    return injected("vkGetPhysicalDeviceSurfaceCapabilities2EXT");
}

/* With VK_EXT_surface_maintenance1 listed the mock fills its structs: FIFO and FIFO_RELAXED are
 * compatible, one-to-one scaling with minimum gravity. The record says which present mode was asked. */
static VKAPI_ATTR VkResult VKAPI_CALL mock_GetPhysicalDeviceSurfaceCapabilities2KHR(
    VkPhysicalDevice physicalDevice, const VkPhysicalDeviceSurfaceInfo2KHR *info, VkSurfaceCapabilities2KHR *caps) {
    GET_PD("vkGetPhysicalDeviceSurfaceCapabilities2KHR", VK_ERROR_INITIALIZATION_FAILED);
    cJSON *o = rec_new("vkGetPhysicalDeviceSurfaceCapabilities2KHR");
    cJSON_AddNumberToObject(o, "physical_device", pd->index);
    rec_add_surface(o, info ? info->surface : VK_NULL_HANDLE);
    const VkSurfacePresentModeEXT *mode = NULL;
    for (const VkBaseInStructure *p = info ? info->pNext : NULL; p; p = p->pNext)
        if (p->sType == VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_EXT) mode = (const VkSurfacePresentModeEXT *)(const void *)p;
    if (mode)
        cJSON_AddNumberToObject(o, "present_mode", mode->presentMode);
    else
        cJSON_AddNullToObject(o, "present_mode");
    rec_emit(o);
    if (!caps) return VK_ERROR_INITIALIZATION_FAILED;
    mock_fill_surface_caps(&caps->surfaceCapabilities);
    if (inst_ext("VK_EXT_surface_maintenance1")) {
        for (VkBaseOutStructure *p = caps->pNext; p; p = p->pNext) {
            if (p->sType == VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_COMPATIBILITY_EXT) {
                VkSurfacePresentModeCompatibilityEXT *c = (VkSurfacePresentModeCompatibilityEXT *)(void *)p;
                static const VkPresentModeKHR modes[] = {VK_PRESENT_MODE_FIFO_KHR, VK_PRESENT_MODE_FIFO_RELAXED_KHR};
                if (!c->pPresentModes) {
                    c->presentModeCount = 2;
                } else {
                    uint32_t n = c->presentModeCount < 2 ? c->presentModeCount : 2;
                    for (uint32_t i = 0; i < n; i++) c->pPresentModes[i] = modes[i];
                    c->presentModeCount = n;
                }
            } else if (p->sType == VK_STRUCTURE_TYPE_SURFACE_PRESENT_SCALING_CAPABILITIES_EXT) {
                VkSurfacePresentScalingCapabilitiesEXT *s = (VkSurfacePresentScalingCapabilitiesEXT *)(void *)p;
                s->supportedPresentScaling = VK_PRESENT_SCALING_ONE_TO_ONE_BIT_EXT;
                s->supportedPresentGravityX = VK_PRESENT_GRAVITY_MIN_BIT_EXT;
                s->supportedPresentGravityY = VK_PRESENT_GRAVITY_MIN_BIT_EXT;
                s->minScaledImageExtent = (VkExtent2D){2, 2};
                s->maxScaledImageExtent = (VkExtent2D){2048, 2048};
            }
        }
    }
    return injected("vkGetPhysicalDeviceSurfaceCapabilities2KHR");
}

/* ------------------------------------------------------------------------------------------ */
/* Device                                                                                       */

static void device_free(struct mock_device *d) {
    destroy_device_objects(d);
    for (uint32_t k = 0; k < d->queue_count; k++) free(d->queues[k]);
    free(d->queues);
    scenario_release(d->sc);
    free(d);
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_CreateDevice(VkPhysicalDevice physicalDevice, const VkDeviceCreateInfo *ci,
                                                        const VkAllocationCallbacks *alloc, VkDevice *out) {
    GET_PD("vkCreateDevice", VK_ERROR_INITIALIZATION_FAILED);
    const struct physdev_cfg *c = pd->cfg;
    bool unpublished = sc_now()->mb.unpublished_extension;
    VkResult r = VK_SUCCESS;
    uint32_t total_queues = 0;
    if (!ci || !out) {
        r = VK_ERROR_INITIALIZATION_FAILED;
    } else {
        for (uint32_t i = 0; i < ci->enabledExtensionCount; i++) {
            const char *e = ci->ppEnabledExtensionNames[i];
            if (!e || (!has_ext(c->exts, c->ext_count, e) && !(unpublished && strcmp(e, UNPUBLISHED_EXTENSION) == 0)))
                r = VK_ERROR_EXTENSION_NOT_PRESENT;
        }
        for (uint32_t i = 0; r == VK_SUCCESS && i < ci->queueCreateInfoCount; i++) {
            const VkDeviceQueueCreateInfo *q = &ci->pQueueCreateInfos[i];
            if (q->queueFamilyIndex >= c->family_count || q->queueCount == 0 ||
                q->queueCount > c->families[q->queueFamilyIndex].count)
                r = VK_ERROR_INITIALIZATION_FAILED;
            else
                total_queues += q->queueCount;
        }
    }
    VkResult inj = injected("vkCreateDevice");
    if (inj < 0) r = inj;
    struct mock_device *d = NULL;
    if (r == VK_SUCCESS) {
        d = calloc(1, sizeof *d);
        if (d) d->queues = calloc(total_queues + 1, sizeof *d->queues);
        if (!d || !d->queues) {
            free(d);
            d = NULL;
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    if (d) {
        set_magic(d);
        d->api_version = pd->cfg->api_version;
        d->sc = pd->instance->sc;
        d->sc->refs++;
        for (uint32_t i = 0; i < ci->queueCreateInfoCount; i++) {
            const VkDeviceQueueCreateInfo *q = &ci->pQueueCreateInfos[i];
            for (uint32_t k = 0; k < q->queueCount; k++) {
                struct mock_queue *mq = calloc(1, sizeof *mq);
                if (!mq) {
                    r = VK_ERROR_OUT_OF_HOST_MEMORY;
                    continue;
                }
                set_magic(mq);
                mq->device = d;
                mq->family = q->queueFamilyIndex;
                mq->index = k;
                d->queues[d->queue_count++] = mq;
            }
        }
        if (r != VK_SUCCESS) {
            device_free(d);
            d = NULL;
        } else {
            pthread_mutex_lock(&g_lock);
            d->next = g_devices;
            g_devices = d;
            pthread_mutex_unlock(&g_lock);
            *out = (VkDevice)d;
            if (inj > 0) r = inj;
        }
    }
    cJSON *o = rec_new("vkCreateDevice");
    cJSON_AddNumberToObject(o, "physical_device", pd->index);
    if (ci) {
        rec_add_strings(o, "extensions", ci->ppEnabledExtensionNames, ci->enabledExtensionCount);
        rec_add_strings(o, "layers", ci->ppEnabledLayerNames, ci->enabledLayerCount);
        cJSON *qa = cJSON_AddArrayToObject(o, "queues");
        for (uint32_t i = 0; qa && i < ci->queueCreateInfoCount; i++) {
            cJSON *q = cJSON_CreateObject();
            cJSON_AddNumberToObject(q, "family", ci->pQueueCreateInfos[i].queueFamilyIndex);
            cJSON_AddNumberToObject(q, "count", ci->pQueueCreateInfos[i].queueCount);
            cJSON_AddItemToArray(qa, q);
        }
    }
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

static void destroy_device_objects(struct mock_device *d) {
    while (d->images) {
        struct mock_image *im = d->images;
        d->images = im->next;
        free(im);
    }
    while (d->pools) {
        struct mock_pool *p = d->pools;
        d->pools = p->next;
        while (p->cmdbufs) {
            struct mock_cmdbuf *cb = p->cmdbufs;
            p->cmdbufs = cb->next;
            free(cb);
        }
        free(p);
    }
}

static VKAPI_ATTR void VKAPI_CALL mock_DestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc) {
    pthread_mutex_lock(&g_lock);
    struct mock_device **pp = &g_devices;
    while (*pp && (void *)*pp != (void *)device) pp = &(*pp)->next;
    struct mock_device *d = *pp;
    if (d) *pp = d->next;
    pthread_mutex_unlock(&g_lock);
    cJSON *o = rec_new("vkDestroyDevice");
    cJSON_AddBoolToObject(o, "valid", d != NULL || device == VK_NULL_HANDLE);
    rec_emit(o);
    if (d) device_free(d);
}

static struct mock_queue *get_queue(struct mock_device *d, uint32_t family, uint32_t index) {
    for (uint32_t k = 0; k < d->queue_count; k++)
        if (d->queues[k]->family == family && d->queues[k]->index == index) return d->queues[k];
    return NULL;
}

static VKAPI_ATTR void VKAPI_CALL mock_GetDeviceQueue(VkDevice device, uint32_t family, uint32_t index,
                                                      VkQueue *out) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle("vkGetDeviceQueue", "VkDevice");
        return;
    }
    if (out) *out = (VkQueue)get_queue(d, family, index);
}

static VKAPI_ATTR void VKAPI_CALL mock_GetDeviceQueue2(VkDevice device, const VkDeviceQueueInfo2 *info, VkQueue *out) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle("vkGetDeviceQueue2", "VkDevice");
        return;
    }
    if (out && info) *out = (VkQueue)get_queue(d, info->queueFamilyIndex, info->queueIndex);
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_DeviceWaitIdle(VkDevice device) {
    if (!find_device(device)) {
        rec_invalid_handle("vkDeviceWaitIdle", "VkDevice");
        return VK_ERROR_DEVICE_LOST;
    }
    return injected("vkDeviceWaitIdle");
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_QueueWaitIdle(VkQueue queue) {
    if (!find_queue(queue)) {
        rec_invalid_handle("vkQueueWaitIdle", "VkQueue");
        return VK_ERROR_DEVICE_LOST;
    }
    return injected("vkQueueWaitIdle");
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_CreateCommandPool(VkDevice device, const VkCommandPoolCreateInfo *ci,
                                                             const VkAllocationCallbacks *alloc, VkCommandPool *out) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle("vkCreateCommandPool", "VkDevice");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkResult r = injected("vkCreateCommandPool");
    if (r < 0) return r;
    if (!ci || !out) return VK_ERROR_INITIALIZATION_FAILED;
    struct mock_pool *p = calloc(1, sizeof *p);
    if (!p) return VK_ERROR_OUT_OF_HOST_MEMORY;
    p->device = d;
    p->family = ci->queueFamilyIndex;
    pthread_mutex_lock(&g_lock);
    p->next = d->pools;
    d->pools = p;
    pthread_mutex_unlock(&g_lock);
    *out = (VkCommandPool)(void *)p;
    return r;
}

static struct mock_pool *find_pool(struct mock_device *d, VkCommandPool pool, struct mock_pool ***link) {
    for (struct mock_pool **pp = &d->pools; *pp; pp = &(*pp)->next)
        if ((void *)*pp == (void *)pool) {
            if (link) *link = pp;
            return *pp;
        }
    return NULL;
}

static VKAPI_ATTR void VKAPI_CALL mock_DestroyCommandPool(VkDevice device, VkCommandPool pool,
                                                          const VkAllocationCallbacks *alloc) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle("vkDestroyCommandPool", "VkDevice");
        return;
    }
    struct mock_pool **link = NULL;
    pthread_mutex_lock(&g_lock);
    struct mock_pool *p = find_pool(d, pool, &link);
    if (p) *link = p->next;
    pthread_mutex_unlock(&g_lock);
    if (!p) return;
    while (p->cmdbufs) {
        struct mock_cmdbuf *cb = p->cmdbufs;
        p->cmdbufs = cb->next;
        free(cb);
    }
    free(p);
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_AllocateCommandBuffers(VkDevice device,
                                                                  const VkCommandBufferAllocateInfo *info,
                                                                  VkCommandBuffer *out) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle("vkAllocateCommandBuffers", "VkDevice");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkResult r = injected("vkAllocateCommandBuffers");
    if (r < 0) return r;
    pthread_mutex_lock(&g_lock);
    struct mock_pool *p = info ? find_pool(d, info->commandPool, NULL) : NULL;
    if (!p || !out) {
        pthread_mutex_unlock(&g_lock);
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    for (uint32_t i = 0; i < info->commandBufferCount; i++) {
        struct mock_cmdbuf *cb = calloc(1, sizeof *cb);
        if (!cb) {
            for (uint32_t k = 0; k < i; k++) {
                /* undo: the newest buffers are at the head of the list */
                struct mock_cmdbuf *h = p->cmdbufs;
                p->cmdbufs = h->next;
                free(h);
                out[k] = VK_NULL_HANDLE;
            }
            pthread_mutex_unlock(&g_lock);
            return VK_ERROR_OUT_OF_HOST_MEMORY;
        }
        set_magic(cb);
        cb->pool = p;
        cb->next = p->cmdbufs;
        p->cmdbufs = cb;
        out[i] = (VkCommandBuffer)cb;
    }
    pthread_mutex_unlock(&g_lock);
    return r;
}

static VKAPI_ATTR void VKAPI_CALL mock_FreeCommandBuffers(VkDevice device, VkCommandPool pool, uint32_t count,
                                                          const VkCommandBuffer *cbs) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle("vkFreeCommandBuffers", "VkDevice");
        return;
    }
    pthread_mutex_lock(&g_lock);
    struct mock_pool *p = find_pool(d, pool, NULL);
    for (uint32_t i = 0; p && cbs && i < count; i++) {
        for (struct mock_cmdbuf **pp = &p->cmdbufs; *pp; pp = &(*pp)->next) {
            if ((void *)*pp == (void *)cbs[i]) {
                struct mock_cmdbuf *cb = *pp;
                *pp = cb->next;
                free(cb);
                break;
            }
        }
    }
    pthread_mutex_unlock(&g_lock);
}

static VKAPI_ATTR void VKAPI_CALL mock_CmdFillBuffer(VkCommandBuffer cb, VkBuffer buffer, VkDeviceSize offset,
                                                     VkDeviceSize size, uint32_t data) {
    cJSON *o = rec_new("vkCmdFillBuffer");
    cJSON_AddBoolToObject(o, "valid", find_cmdbuf(cb) != NULL);
    cJSON_AddNumberToObject(o, "offset", (double)offset);
    cJSON_AddNumberToObject(o, "size", (double)size);
    cJSON_AddNumberToObject(o, "data", data);
    rec_emit(o);
}

/* Recording and submission: recorded only, with whether each handle is the mock's own (a layer that
 * wraps queues or command buffers must unwrap them before calling down, LLP_LAYER_10). */
static VKAPI_ATTR VkResult VKAPI_CALL mock_BeginCommandBuffer(VkCommandBuffer cb, const VkCommandBufferBeginInfo *info) {
    (void)info;
    bool valid = find_cmdbuf(cb) != NULL;
    cJSON *o = rec_new("vkBeginCommandBuffer");
    cJSON_AddBoolToObject(o, "valid", valid);
    rec_emit(o);
    if (!valid) rec_invalid_handle("vkBeginCommandBuffer", "VkCommandBuffer");
    return valid ? VK_SUCCESS : VK_ERROR_INITIALIZATION_FAILED;
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_EndCommandBuffer(VkCommandBuffer cb) {
    bool valid = find_cmdbuf(cb) != NULL;
    cJSON *o = rec_new("vkEndCommandBuffer");
    cJSON_AddBoolToObject(o, "valid", valid);
    rec_emit(o);
    if (!valid) rec_invalid_handle("vkEndCommandBuffer", "VkCommandBuffer");
    return valid ? VK_SUCCESS : VK_ERROR_INITIALIZATION_FAILED;
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo *submits,
                                                       VkFence fence) {
    (void)fence;
    bool valid = find_queue(queue) != NULL;
    uint32_t n = 0;
    bool cbs_valid = true;
    for (uint32_t i = 0; submits != NULL && i < count; i++)
        for (uint32_t k = 0; k < submits[i].commandBufferCount; k++, n++)
            cbs_valid = cbs_valid && find_cmdbuf(submits[i].pCommandBuffers[k]) != NULL;
    cJSON *o = rec_new("vkQueueSubmit");
    cJSON_AddBoolToObject(o, "valid", valid);
    cJSON_AddNumberToObject(o, "command_buffers", n);
    cJSON_AddBoolToObject(o, "command_buffers_valid", cbs_valid);
    rec_emit(o);
    if (!valid) rec_invalid_handle("vkQueueSubmit", "VkQueue");
    if (!cbs_valid) rec_invalid_handle("vkQueueSubmit", "VkCommandBuffer");
    return valid && cbs_valid ? injected("vkQueueSubmit") : VK_ERROR_DEVICE_LOST;
}

/* Images and buffers: what vulkaninfo creates to ask for memory requirements (its "memory types
 * supporting each image format" table). Not recorded; the size is the bytes of the extent at 4
 * bytes a texel (buffers: their size), rounded up to the 256-byte alignment; every memory type. */
#define MOCK_RESOURCE_ALIGNMENT 256u

static VkResult create_resource(const char *call, VkDevice device, VkDeviceSize size, bool sparse, uint64_t *out) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle(call, "VkDevice");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkResult r = injected(call);
    if (r < 0) return r;
    if (!out) return VK_ERROR_INITIALIZATION_FAILED;
    struct mock_image *im = calloc(1, sizeof *im);
    if (!im) return VK_ERROR_OUT_OF_HOST_MEMORY;
    im->size = (size + MOCK_RESOURCE_ALIGNMENT - 1) / MOCK_RESOURCE_ALIGNMENT * MOCK_RESOURCE_ALIGNMENT;
    if (im->size == 0) im->size = MOCK_RESOURCE_ALIGNMENT;
    im->sparse = sparse;
    pthread_mutex_lock(&g_lock);
    im->next = d->images;
    d->images = im;
    pthread_mutex_unlock(&g_lock);
    *out = (uint64_t)(uintptr_t)im;
    return r;
}

static void destroy_resource(const char *call, VkDevice device, uint64_t handle) {
    struct mock_device *d = find_device(device);
    if (!d) {
        rec_invalid_handle(call, "VkDevice");
        return;
    }
    pthread_mutex_lock(&g_lock);
    for (struct mock_image **pp = &d->images; *pp; pp = &(*pp)->next) {
        if ((uint64_t)(uintptr_t)*pp == handle) {
            struct mock_image *im = *pp;
            *pp = im->next;
            free(im);
            break;
        }
    }
    pthread_mutex_unlock(&g_lock);
}

/* The resource's memory requirements; false for a handle that is not one of the device's. */
static bool resource_requirements(VkDevice device, uint64_t handle, VkMemoryRequirements *req, bool *sparse) {
    memset(req, 0, sizeof *req);
    struct mock_device *d = find_device(device);
    if (!d) return false;
    bool found = false;
    pthread_mutex_lock(&g_lock);
    for (struct mock_image *im = d->images; im; im = im->next) {
        if ((uint64_t)(uintptr_t)im == handle) {
            req->size = im->size;
            if (sparse) *sparse = im->sparse;
            found = true;
        }
    }
    pthread_mutex_unlock(&g_lock);
    req->alignment = MOCK_RESOURCE_ALIGNMENT;
    req->memoryTypeBits = found ? (1u << mock_memory_type_count()) - 1u : 0u;
    return found;
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_CreateImage(VkDevice device, const VkImageCreateInfo *ci,
                                                       const VkAllocationCallbacks *alloc, VkImage *out) {
    (void)alloc;
    if (!ci) return VK_ERROR_INITIALIZATION_FAILED;
    VkDeviceSize size = (VkDeviceSize)ci->extent.width * ci->extent.height * ci->extent.depth * ci->arrayLayers * 4u;
    uint64_t h = 0;
    VkResult r = create_resource("vkCreateImage", device, size, (ci->flags & VK_IMAGE_CREATE_SPARSE_BINDING_BIT) != 0,
                                 &h);
    if (r >= 0 && out) *out = (VkImage)(uintptr_t)h;
    return r;
}

static VKAPI_ATTR void VKAPI_CALL mock_DestroyImage(VkDevice device, VkImage image, const VkAllocationCallbacks *alloc) {
    (void)alloc;
    destroy_resource("vkDestroyImage", device, (uint64_t)(uintptr_t)image);
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_CreateBuffer(VkDevice device, const VkBufferCreateInfo *ci,
                                                        const VkAllocationCallbacks *alloc, VkBuffer *out) {
    (void)alloc;
    if (!ci) return VK_ERROR_INITIALIZATION_FAILED;
    uint64_t h = 0;
    VkResult r = create_resource("vkCreateBuffer", device, ci->size, (ci->flags & VK_BUFFER_CREATE_SPARSE_BINDING_BIT) != 0,
                                 &h);
    if (r >= 0 && out) *out = (VkBuffer)(uintptr_t)h;
    return r;
}

static VKAPI_ATTR void VKAPI_CALL mock_DestroyBuffer(VkDevice device, VkBuffer buffer, const VkAllocationCallbacks *alloc) {
    (void)alloc;
    destroy_resource("vkDestroyBuffer", device, (uint64_t)(uintptr_t)buffer);
}

static VKAPI_ATTR void VKAPI_CALL mock_GetImageMemoryRequirements(VkDevice device, VkImage image,
                                                                  VkMemoryRequirements *req) {
    VkMemoryRequirements tmp;
    if (!resource_requirements(device, (uint64_t)(uintptr_t)image, &tmp, NULL))
        rec_invalid_handle("vkGetImageMemoryRequirements", find_device(device) ? "VkImage" : "VkDevice");
    if (req) *req = tmp;
}

static VKAPI_ATTR void VKAPI_CALL mock_GetBufferMemoryRequirements(VkDevice device, VkBuffer buffer,
                                                                   VkMemoryRequirements *req) {
    VkMemoryRequirements tmp;
    if (!resource_requirements(device, (uint64_t)(uintptr_t)buffer, &tmp, NULL))
        rec_invalid_handle("vkGetBufferMemoryRequirements", find_device(device) ? "VkBuffer" : "VkDevice");
    if (req) *req = tmp;
}

static VKAPI_ATTR void VKAPI_CALL mock_GetImageMemoryRequirements2(VkDevice device,
                                                                   const VkImageMemoryRequirementsInfo2 *info,
                                                                   VkMemoryRequirements2 *req) {
    if (info && req) mock_GetImageMemoryRequirements(device, info->image, &req->memoryRequirements);
}

static VKAPI_ATTR void VKAPI_CALL mock_GetBufferMemoryRequirements2(VkDevice device,
                                                                    const VkBufferMemoryRequirementsInfo2 *info,
                                                                    VkMemoryRequirements2 *req) {
    if (info && req) mock_GetBufferMemoryRequirements(device, info->buffer, &req->memoryRequirements);
}

/* The mock has no sparse support (sparseBinding is off): no sparse requirements. */
static VKAPI_ATTR void VKAPI_CALL mock_GetImageSparseMemoryRequirements(VkDevice device, VkImage image, uint32_t *count,
                                                                        VkSparseImageMemoryRequirements *req) {
    (void)image;
    (void)req;
    if (!find_device(device)) rec_invalid_handle("vkGetImageSparseMemoryRequirements", "VkDevice");
    if (count) *count = 0;
}

/* VK_KHR_device_group with VK_KHR_swapchain (what vulkaninfo's device-group section asks): every
 * device presents only its own images (each group member is its own device here). */
static VKAPI_ATTR VkResult VKAPI_CALL mock_GetDeviceGroupPresentCapabilitiesKHR(VkDevice device,
                                                                               VkDeviceGroupPresentCapabilitiesKHR *caps) {
    if (!find_device(device)) {
        rec_invalid_handle("vkGetDeviceGroupPresentCapabilitiesKHR", "VkDevice");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    VkResult r = injected("vkGetDeviceGroupPresentCapabilitiesKHR");
    if (r < 0 || !caps) return caps ? r : VK_ERROR_INITIALIZATION_FAILED;
    memset(caps->presentMask, 0, sizeof caps->presentMask);
    caps->presentMask[0] = 1u;
    caps->modes = VK_DEVICE_GROUP_PRESENT_MODE_LOCAL_BIT_KHR;
    return r;
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetDeviceGroupSurfacePresentModesKHR(VkDevice device, VkSurfaceKHR surface,
                                                                               VkDeviceGroupPresentModeFlagsKHR *modes) {
    (void)surface;
    if (!find_device(device)) {
        rec_invalid_handle("vkGetDeviceGroupSurfacePresentModesKHR", "VkDevice");
        return VK_ERROR_INITIALIZATION_FAILED;
    }
    if (modes) *modes = VK_DEVICE_GROUP_PRESENT_MODE_LOCAL_BIT_KHR;
    return injected("vkGetDeviceGroupSurfacePresentModesKHR");
}

/* Swapchains: recorded only (what surface handle the driver received, LDP_LOADER_11); the handle is
 * an opaque number, nothing is allocated. */
static VKAPI_ATTR VkResult VKAPI_CALL mock_CreateSwapchainKHR(VkDevice device, const VkSwapchainCreateInfoKHR *ci,
                                                              const VkAllocationCallbacks *alloc,
                                                              VkSwapchainKHR *out) {
    (void)alloc;
    static uint32_t next_swapchain;
    VkResult r = injected("vkCreateSwapchainKHR");
    bool valid = find_device(device) != NULL;
    if (!valid || !ci || !out) r = VK_ERROR_INITIALIZATION_FAILED;
    if (r >= 0) {
        pthread_mutex_lock(&g_lock);
        uint32_t n = ++next_swapchain;
        pthread_mutex_unlock(&g_lock);
        *out = (VkSwapchainKHR)(uintptr_t)(0x5C000000u + n);
    }
    cJSON *o = rec_new("vkCreateSwapchainKHR");
    cJSON_AddBoolToObject(o, "valid", valid);
    rec_add_surface(o, ci ? ci->surface : VK_NULL_HANDLE);
    rec_add_result(o, r);
    rec_emit(o);
    return r;
}

static VKAPI_ATTR void VKAPI_CALL mock_DestroySwapchainKHR(VkDevice device, VkSwapchainKHR swapchain,
                                                           const VkAllocationCallbacks *alloc) {
    (void)alloc;
    cJSON *o = rec_new("vkDestroySwapchainKHR");
    cJSON_AddBoolToObject(o, "valid", find_device(device) != NULL);
    cJSON_AddBoolToObject(o, "null", swapchain == VK_NULL_HANDLE);
    rec_emit(o);
}

/* ------------------------------------------------------------------------------------------ */
/* Unknown-function pool                                                                        */

static const char *handle_kind(const void *h) {
    if (find_device((VkDevice)(uintptr_t)h)) return "device";
    if (find_queue(h)) return "queue";
    if (find_cmdbuf(h)) return "command_buffer";
    if (find_physdev((VkPhysicalDevice)(uintptr_t)h)) return "physical_device";
    if (find_instance((VkInstance)(uintptr_t)h)) return "instance";
    return "unknown";
}

static uint32_t unknown_call(bool device, uint32_t slot, void *h, uint32_t x) {
    struct scenario *sc = sc_now();
    const char *name = NULL;
    if (device) {
        if (slot < sc->dev_func_count) name = sc->dev_funcs[slot];
    } else if (slot < sc->pd_func_count) {
        name = sc->pd_funcs[slot];
    } else if (slot - sc->pd_func_count < g_dyn_pd_count) {
        name = g_dyn_pd_names[slot - sc->pd_func_count];
    }
    cJSON *o = rec_new(name ? name : (device ? "unknown_device_slot" : "unknown_physdev_slot"));
    cJSON_AddNumberToObject(o, "slot", slot);
    cJSON_AddNumberToObject(o, "arg", x);
    cJSON_AddStringToObject(o, "handle", handle_kind(h));
    rec_emit(o);
    return device ? MOCK_ICD_UNKNOWN_DEVICE_RESULT(slot, x) : MOCK_ICD_UNKNOWN_PHYSDEV_RESULT(slot, x);
}

#define MOCK_H16(M, p) \
    M(p##0) M(p##1) M(p##2) M(p##3) M(p##4) M(p##5) M(p##6) M(p##7) \
    M(p##8) M(p##9) M(p##a) M(p##b) M(p##c) M(p##d) M(p##e) M(p##f)
#define MOCK_H256(M) \
    MOCK_H16(M, 0) MOCK_H16(M, 1) MOCK_H16(M, 2) MOCK_H16(M, 3) MOCK_H16(M, 4) MOCK_H16(M, 5) \
    MOCK_H16(M, 6) MOCK_H16(M, 7) MOCK_H16(M, 8) MOCK_H16(M, 9) MOCK_H16(M, a) MOCK_H16(M, b) \
    MOCK_H16(M, c) MOCK_H16(M, d) MOCK_H16(M, e) MOCK_H16(M, f)

#define MOCK_DEV_FN(n) \
    static uint32_t VKAPI_CALL mock_unknown_dev_##n(void *h, uint32_t x) { return unknown_call(true, 0x##n, h, x); }
#define MOCK_PD_FN(n) \
    static uint32_t VKAPI_CALL mock_unknown_pd_##n(void *h, uint32_t x) { return unknown_call(false, 0x##n, h, x); }
#define MOCK_DEV_ENTRY(n) (PFN_vkVoidFunction)mock_unknown_dev_##n,
#define MOCK_PD_ENTRY(n) (PFN_vkVoidFunction)mock_unknown_pd_##n,

MOCK_H256(MOCK_DEV_FN)
MOCK_H256(MOCK_PD_FN)
static const PFN_vkVoidFunction k_dev_pool[] = {MOCK_H256(MOCK_DEV_ENTRY)};
static const PFN_vkVoidFunction k_pd_pool[] = {MOCK_H256(MOCK_PD_ENTRY)};
_Static_assert(sizeof k_dev_pool / sizeof k_dev_pool[0] == MOCK_ICD_UNKNOWN_SLOTS, "device pool size");
_Static_assert(sizeof k_pd_pool / sizeof k_pd_pool[0] == MOCK_ICD_UNKNOWN_SLOTS, "physdev pool size");

static PFN_vkVoidFunction lookup_unknown_device(const char *name) {
    struct scenario *sc = sc_now();
    for (uint32_t i = 0; i < sc->dev_func_count; i++)
        if (strcmp(sc->dev_funcs[i], name) == 0) return k_dev_pool[i];
    return NULL;
}

static PFN_vkVoidFunction lookup_unknown_physdev(const char *name) {
    struct scenario *sc = sc_now();
    for (uint32_t i = 0; i < sc->pd_func_count; i++)
        if (strcmp(sc->pd_funcs[i], name) == 0) return k_pd_pool[i];
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* Proc-address tables                                                                          */

enum cmd_kind { K_GLOBAL, K_INSTANCE, K_PHYSDEV, K_DEVICE };
enum cmd_gate {
    G_ALWAYS,
    G_EIV,            /* expose_enumerate_instance_version */
    G_CORE11,         /* scenario api_version or some physical device >= 1.1 */
    G_GPDP2_KHR,      /* VK_KHR_get_physical_device_properties2 in instance_extensions */
    G_GROUP_KHR,      /* VK_KHR_device_group_creation in instance_extensions */
    G_DEBUG_UTILS,    /* VK_EXT_debug_utils in instance_extensions */
    G_SURFACE,        /* see create_surface */
    G_SURFACE_QUERY,  /* VK_KHR_surface listed (any interface: below 3 the driver reads the loader's container), or the misbehaviour */
    G_SURFACE_XLIB,   /* G_SURFACE and VK_KHR_xlib_surface */
    G_SURFACE_XCB,    /* G_SURFACE and VK_KHR_xcb_surface */
    G_SURFACE_WAYLAND,/* G_SURFACE and VK_KHR_wayland_surface */
    G_SURFACE_HEADLESS,/* G_SURFACE and VK_EXT_headless_surface */
    G_SURFACE_DISPLAY, /* G_SURFACE and VK_KHR_display */
    G_DISPLAY,         /* VK_KHR_display in instance_extensions (the display queries) */
    G_DISPLAY2,        /* VK_KHR_get_display_properties2 in instance_extensions */
    G_XLIB_DISPLAY,    /* VK_EXT_acquire_xlib_display in instance_extensions */
    G_SURFACE_CAPS2EXT,/* VK_EXT_display_surface_counter in instance_extensions */
    G_SURFACE_CAPS2KHR,/* VK_KHR_get_surface_capabilities2 in instance_extensions */
    G_CORE13,          /* scenario api_version or some physical device >= 1.3 */
    G_TOOLING_EXT,     /* some physical device lists VK_EXT_tooling_info */
};

struct cmd {
    const char *name;
    PFN_vkVoidFunction fn;
    enum cmd_kind kind;
    enum cmd_gate gate;
};

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_GetInstanceProcAddr(VkInstance instance, const char *name);
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_GetDeviceProcAddr(VkDevice device, const char *name);

static const struct cmd k_cmds[] = {
    {"vkGetInstanceProcAddr", (PFN_vkVoidFunction)mock_GetInstanceProcAddr, K_GLOBAL, G_ALWAYS},
    {"vkCreateInstance", (PFN_vkVoidFunction)mock_CreateInstance, K_GLOBAL, G_ALWAYS},
    {"vkEnumerateInstanceExtensionProperties", (PFN_vkVoidFunction)mock_EnumerateInstanceExtensionProperties,
     K_GLOBAL, G_ALWAYS},
    {"vkEnumerateInstanceVersion", (PFN_vkVoidFunction)mock_EnumerateInstanceVersion, K_GLOBAL, G_EIV},
    {"vkDestroyInstance", (PFN_vkVoidFunction)mock_DestroyInstance, K_INSTANCE, G_ALWAYS},
    {"vkEnumeratePhysicalDevices", (PFN_vkVoidFunction)mock_EnumeratePhysicalDevices, K_INSTANCE, G_ALWAYS},
    {"vkEnumeratePhysicalDeviceGroups", (PFN_vkVoidFunction)mock_EnumeratePhysicalDeviceGroups, K_INSTANCE,
     G_CORE11},
    {"vkEnumeratePhysicalDeviceGroupsKHR", (PFN_vkVoidFunction)mock_EnumeratePhysicalDeviceGroups, K_INSTANCE,
     G_GROUP_KHR},
    {"vkCreateDebugUtilsMessengerEXT", (PFN_vkVoidFunction)mock_CreateDebugUtilsMessengerEXT, K_INSTANCE,
     G_DEBUG_UTILS},
    {"vkDestroyDebugUtilsMessengerEXT", (PFN_vkVoidFunction)mock_DestroyDebugUtilsMessengerEXT, K_INSTANCE,
     G_DEBUG_UTILS},
    {"vkCreateXlibSurfaceKHR", (PFN_vkVoidFunction)mock_CreateXlibSurfaceKHR, K_INSTANCE, G_SURFACE_XLIB},
    {"vkCreateXcbSurfaceKHR", (PFN_vkVoidFunction)mock_CreateXcbSurfaceKHR, K_INSTANCE, G_SURFACE_XCB},
    {"vkCreateWaylandSurfaceKHR", (PFN_vkVoidFunction)mock_CreateWaylandSurfaceKHR, K_INSTANCE, G_SURFACE_WAYLAND},
    {"vkCreateHeadlessSurfaceEXT", (PFN_vkVoidFunction)mock_CreateHeadlessSurfaceEXT, K_INSTANCE,
     G_SURFACE_HEADLESS},
    {"vkCreateDisplayPlaneSurfaceKHR", (PFN_vkVoidFunction)mock_CreateDisplayPlaneSurfaceKHR, K_INSTANCE,
     G_SURFACE_DISPLAY},
    {"vkDestroySurfaceKHR", (PFN_vkVoidFunction)mock_DestroySurfaceKHR, K_INSTANCE, G_SURFACE},
    {"vkGetPhysicalDeviceProperties", (PFN_vkVoidFunction)mock_GetPhysicalDeviceProperties, K_PHYSDEV, G_ALWAYS},
    {"vkGetPhysicalDeviceFeatures", (PFN_vkVoidFunction)mock_GetPhysicalDeviceFeatures, K_PHYSDEV, G_ALWAYS},
    {"vkGetPhysicalDeviceFormatProperties", (PFN_vkVoidFunction)mock_GetPhysicalDeviceFormatProperties, K_PHYSDEV,
     G_ALWAYS},
    {"vkGetPhysicalDeviceImageFormatProperties", (PFN_vkVoidFunction)mock_GetPhysicalDeviceImageFormatProperties,
     K_PHYSDEV, G_ALWAYS},
    {"vkGetPhysicalDeviceQueueFamilyProperties", (PFN_vkVoidFunction)mock_GetPhysicalDeviceQueueFamilyProperties,
     K_PHYSDEV, G_ALWAYS},
    {"vkGetPhysicalDeviceMemoryProperties", (PFN_vkVoidFunction)mock_GetPhysicalDeviceMemoryProperties, K_PHYSDEV,
     G_ALWAYS},
    {"vkGetPhysicalDeviceSparseImageFormatProperties",
     (PFN_vkVoidFunction)mock_GetPhysicalDeviceSparseImageFormatProperties, K_PHYSDEV, G_ALWAYS},
#define PROPS2(base)                                                                                 \
    {"vk" #base, (PFN_vkVoidFunction)mock_##base, K_PHYSDEV, G_CORE11},                              \
    {"vk" #base "KHR", (PFN_vkVoidFunction)mock_##base, K_PHYSDEV, G_GPDP2_KHR}
    PROPS2(GetPhysicalDeviceProperties2),
    PROPS2(GetPhysicalDeviceFeatures2),
    PROPS2(GetPhysicalDeviceFormatProperties2),
    PROPS2(GetPhysicalDeviceImageFormatProperties2),
    PROPS2(GetPhysicalDeviceQueueFamilyProperties2),
    PROPS2(GetPhysicalDeviceMemoryProperties2),
    PROPS2(GetPhysicalDeviceSparseImageFormatProperties2),
#undef PROPS2
    {"vkEnumerateDeviceExtensionProperties", (PFN_vkVoidFunction)mock_EnumerateDeviceExtensionProperties, K_PHYSDEV,
     G_ALWAYS},
    {"vkEnumerateDeviceLayerProperties", (PFN_vkVoidFunction)mock_EnumerateDeviceLayerProperties, K_PHYSDEV,
     G_ALWAYS},
    {"vkCreateDevice", (PFN_vkVoidFunction)mock_CreateDevice, K_PHYSDEV, G_ALWAYS},
    {"vkGetPhysicalDeviceSurfaceSupportKHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceSurfaceSupportKHR, K_PHYSDEV,
     G_SURFACE_QUERY},
    {"vkGetPhysicalDeviceSurfaceCapabilitiesKHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceSurfaceCapabilitiesKHR,
     K_PHYSDEV, G_SURFACE_QUERY},
    {"vkGetPhysicalDeviceSurfaceFormatsKHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceSurfaceFormatsKHR, K_PHYSDEV,
     G_SURFACE_QUERY},
    {"vkGetPhysicalDeviceSurfacePresentModesKHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceSurfacePresentModesKHR,
     K_PHYSDEV, G_SURFACE_QUERY},
    {"vkGetPhysicalDeviceDisplayPropertiesKHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceDisplayPropertiesKHR,
     K_PHYSDEV, G_DISPLAY},
    {"vkGetPhysicalDeviceDisplayPlanePropertiesKHR",
     (PFN_vkVoidFunction)mock_GetPhysicalDeviceDisplayPlanePropertiesKHR, K_PHYSDEV, G_DISPLAY},
    {"vkGetDisplayPlaneSupportedDisplaysKHR", (PFN_vkVoidFunction)mock_GetDisplayPlaneSupportedDisplaysKHR, K_PHYSDEV,
     G_DISPLAY},
    {"vkGetDisplayModePropertiesKHR", (PFN_vkVoidFunction)mock_GetDisplayModePropertiesKHR, K_PHYSDEV, G_DISPLAY},
    {"vkCreateDisplayModeKHR", (PFN_vkVoidFunction)mock_CreateDisplayModeKHR, K_PHYSDEV, G_DISPLAY},
    {"vkGetDisplayPlaneCapabilitiesKHR", (PFN_vkVoidFunction)mock_GetDisplayPlaneCapabilitiesKHR, K_PHYSDEV,
     G_DISPLAY},
    {"vkGetPhysicalDeviceDisplayProperties2KHR", (PFN_vkVoidFunction)mock_GetPhysicalDeviceDisplayProperties2KHR,
     K_PHYSDEV, G_DISPLAY2},
    {"vkGetPhysicalDeviceDisplayPlaneProperties2KHR",
     (PFN_vkVoidFunction)mock_GetPhysicalDeviceDisplayPlaneProperties2KHR, K_PHYSDEV, G_DISPLAY2},
    {"vkGetDisplayModeProperties2KHR", (PFN_vkVoidFunction)mock_GetDisplayModeProperties2KHR, K_PHYSDEV, G_DISPLAY2},
    {"vkGetDisplayPlaneCapabilities2KHR", (PFN_vkVoidFunction)mock_GetDisplayPlaneCapabilities2KHR, K_PHYSDEV,
     G_DISPLAY2},
    {"vkAcquireXlibDisplayEXT", (PFN_vkVoidFunction)mock_AcquireXlibDisplayEXT, K_PHYSDEV, G_XLIB_DISPLAY},
    {"vkGetRandROutputDisplayEXT", (PFN_vkVoidFunction)mock_GetRandROutputDisplayEXT, K_PHYSDEV, G_XLIB_DISPLAY},
    {"vkGetPhysicalDeviceToolProperties", (PFN_vkVoidFunction)mock_GetPhysicalDeviceToolProperties, K_PHYSDEV,
     G_CORE13},
    {"vkGetPhysicalDeviceToolPropertiesEXT", (PFN_vkVoidFunction)mock_GetPhysicalDeviceToolProperties, K_PHYSDEV,
     G_TOOLING_EXT},
    {"vkGetPhysicalDeviceSurfaceCapabilities2EXT",
     (PFN_vkVoidFunction)mock_GetPhysicalDeviceSurfaceCapabilities2EXT, K_PHYSDEV, G_SURFACE_CAPS2EXT},
    {"vkGetPhysicalDeviceSurfaceCapabilities2KHR",
     (PFN_vkVoidFunction)mock_GetPhysicalDeviceSurfaceCapabilities2KHR, K_PHYSDEV, G_SURFACE_CAPS2KHR},
    {"vkGetDeviceProcAddr", (PFN_vkVoidFunction)mock_GetDeviceProcAddr, K_DEVICE, G_ALWAYS},
    {"vkDestroyDevice", (PFN_vkVoidFunction)mock_DestroyDevice, K_DEVICE, G_ALWAYS},
    {"vkGetDeviceQueue", (PFN_vkVoidFunction)mock_GetDeviceQueue, K_DEVICE, G_ALWAYS},
    {"vkGetDeviceQueue2", (PFN_vkVoidFunction)mock_GetDeviceQueue2, K_DEVICE, G_CORE11},
    {"vkDeviceWaitIdle", (PFN_vkVoidFunction)mock_DeviceWaitIdle, K_DEVICE, G_ALWAYS},
    {"vkQueueWaitIdle", (PFN_vkVoidFunction)mock_QueueWaitIdle, K_DEVICE, G_ALWAYS},
    {"vkCreateCommandPool", (PFN_vkVoidFunction)mock_CreateCommandPool, K_DEVICE, G_ALWAYS},
    {"vkDestroyCommandPool", (PFN_vkVoidFunction)mock_DestroyCommandPool, K_DEVICE, G_ALWAYS},
    {"vkAllocateCommandBuffers", (PFN_vkVoidFunction)mock_AllocateCommandBuffers, K_DEVICE, G_ALWAYS},
    {"vkFreeCommandBuffers", (PFN_vkVoidFunction)mock_FreeCommandBuffers, K_DEVICE, G_ALWAYS},
    {"vkCmdFillBuffer", (PFN_vkVoidFunction)mock_CmdFillBuffer, K_DEVICE, G_ALWAYS},
    {"vkBeginCommandBuffer", (PFN_vkVoidFunction)mock_BeginCommandBuffer, K_DEVICE, G_ALWAYS},
    {"vkEndCommandBuffer", (PFN_vkVoidFunction)mock_EndCommandBuffer, K_DEVICE, G_ALWAYS},
    {"vkQueueSubmit", (PFN_vkVoidFunction)mock_QueueSubmit, K_DEVICE, G_ALWAYS},
    {"vkCreateImage", (PFN_vkVoidFunction)mock_CreateImage, K_DEVICE, G_ALWAYS},
    {"vkDestroyImage", (PFN_vkVoidFunction)mock_DestroyImage, K_DEVICE, G_ALWAYS},
    {"vkCreateBuffer", (PFN_vkVoidFunction)mock_CreateBuffer, K_DEVICE, G_ALWAYS},
    {"vkDestroyBuffer", (PFN_vkVoidFunction)mock_DestroyBuffer, K_DEVICE, G_ALWAYS},
    {"vkGetImageMemoryRequirements", (PFN_vkVoidFunction)mock_GetImageMemoryRequirements, K_DEVICE, G_ALWAYS},
    {"vkGetBufferMemoryRequirements", (PFN_vkVoidFunction)mock_GetBufferMemoryRequirements, K_DEVICE, G_ALWAYS},
    {"vkGetImageMemoryRequirements2", (PFN_vkVoidFunction)mock_GetImageMemoryRequirements2, K_DEVICE, G_CORE11},
    {"vkGetBufferMemoryRequirements2", (PFN_vkVoidFunction)mock_GetBufferMemoryRequirements2, K_DEVICE, G_CORE11},
    {"vkGetImageSparseMemoryRequirements", (PFN_vkVoidFunction)mock_GetImageSparseMemoryRequirements, K_DEVICE,
     G_ALWAYS},
    {"vkGetDeviceGroupPresentCapabilitiesKHR", (PFN_vkVoidFunction)mock_GetDeviceGroupPresentCapabilitiesKHR,
     K_DEVICE, G_ALWAYS},
    {"vkGetDeviceGroupSurfacePresentModesKHR", (PFN_vkVoidFunction)mock_GetDeviceGroupSurfacePresentModesKHR,
     K_DEVICE, G_ALWAYS},
    {"vkCreateSwapchainKHR", (PFN_vkVoidFunction)mock_CreateSwapchainKHR, K_DEVICE, G_SURFACE_QUERY},
    {"vkDestroySwapchainKHR", (PFN_vkVoidFunction)mock_DestroySwapchainKHR, K_DEVICE, G_SURFACE_QUERY},
};

static bool any_11(void) {
    struct scenario *sc = sc_now();
    if (major_minor(sc->api_version) >= VK_API_VERSION_1_1) return true;
    for (uint32_t i = 0; i < sc->pd_count; i++)
        if (major_minor(sc->pds[i].api_version) >= VK_API_VERSION_1_1) return true;
    return false;
}

static bool any_13(void) {
    struct scenario *sc = sc_now();
    if (major_minor(sc->api_version) >= VK_API_VERSION_1_3) return true;
    for (uint32_t i = 0; i < sc->pd_count; i++)
        if (major_minor(sc->pds[i].api_version) >= VK_API_VERSION_1_3) return true;
    return false;
}

static bool any_device_ext(const char *name) {
    struct scenario *sc = sc_now();
    for (uint32_t i = 0; i < sc->pd_count; i++)
        if (has_ext(sc->pds[i].exts, sc->pds[i].ext_count, name)) return true;
    return false;
}

static bool surface_allowed(void) {
    struct scenario *sc = sc_now();
    if (sc->mb.surface_without_interface_3) return true;
    return inst_ext("VK_KHR_surface") && effective_interface() >= 3;
}

static bool gate_open(enum cmd_gate g) {
    switch (g) {
    case G_ALWAYS: return true;
    case G_EIV: return sc_now()->expose_eiv;
    case G_CORE11: return any_11();
    case G_GPDP2_KHR: return inst_ext("VK_KHR_get_physical_device_properties2");
    case G_GROUP_KHR: return inst_ext("VK_KHR_device_group_creation");
    case G_DEBUG_UTILS: return inst_ext("VK_EXT_debug_utils");
    case G_SURFACE: return surface_allowed();
    case G_SURFACE_QUERY: return inst_ext("VK_KHR_surface") || sc_now()->mb.surface_without_interface_3;
    /* The surface misbehaviour exposes every platform's create function. */
    case G_SURFACE_XLIB: return surface_allowed() && (sc_now()->mb.surface_without_interface_3 || inst_ext("VK_KHR_xlib_surface"));
    case G_SURFACE_XCB: return surface_allowed() && (sc_now()->mb.surface_without_interface_3 || inst_ext("VK_KHR_xcb_surface"));
    case G_SURFACE_WAYLAND:
        return surface_allowed() && (sc_now()->mb.surface_without_interface_3 || inst_ext("VK_KHR_wayland_surface"));
    case G_SURFACE_HEADLESS:
        return surface_allowed() && (sc_now()->mb.surface_without_interface_3 || inst_ext("VK_EXT_headless_surface"));
    case G_SURFACE_DISPLAY:
        return surface_allowed() && (sc_now()->mb.surface_without_interface_3 || inst_ext("VK_KHR_display"));
    case G_DISPLAY: return inst_ext("VK_KHR_display");
    case G_DISPLAY2: return inst_ext("VK_KHR_get_display_properties2");
    case G_XLIB_DISPLAY: return inst_ext("VK_EXT_acquire_xlib_display");
    case G_SURFACE_CAPS2EXT: return inst_ext("VK_EXT_display_surface_counter");
    case G_SURFACE_CAPS2KHR: return inst_ext("VK_KHR_get_surface_capabilities2");
    case G_CORE13: return any_13();
    case G_TOOLING_EXT: return any_device_ext("VK_EXT_tooling_info");
    }
    return false;
}

static const struct cmd *find_cmd(const char *name) {
    for (size_t i = 0; i < ARRAY_LEN(k_cmds); i++)
        if (strcmp(k_cmds[i].name, name) == 0) return gate_open(k_cmds[i].gate) ? &k_cmds[i] : NULL;
    return NULL;
}

#if MOCK_ICD_HAS_GPDPA
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_GetPhysicalDeviceProcAddr(VkInstance instance, const char *name);
#endif

static PFN_vkVoidFunction icd_interface_lookup(const char *name) {
#if MOCK_ICD_MAX_INTERFACE >= 7
    if (strcmp(name, "vk_icdNegotiateLoaderICDInterfaceVersion") == 0)
        return (PFN_vkVoidFunction)mock_negotiate_through_gipa;
#if MOCK_ICD_HAS_GPDPA
    if (strcmp(name, "vk_icdGetPhysicalDeviceProcAddr") == 0) return (PFN_vkVoidFunction)mock_GetPhysicalDeviceProcAddr;
#endif
#endif
    (void)name;
    return NULL;
}

/* hidden_functions: names every proc-addr function answers NULL for. */
static bool hidden(const char *name) {
    struct scenario *sc = sc_now();
    for (uint32_t i = 0; i < sc->hidden_count; i++)
        if (strcmp(sc->hidden[i], name) == 0) return true;
    return false;
}

static PFN_vkVoidFunction gipa_impl(const char *entry, VkInstance instance, const char *name) {
    note_entry(entry, name);
    PFN_vkVoidFunction fn = NULL;
    if (name && hidden(name)) {
        /* answered NULL */
    } else if (name) {
        if (instance == VK_NULL_HANDLE) {
            const struct cmd *c = find_cmd(name);
            if (c && (c->kind == K_GLOBAL || sc_now()->mb.gipa_null_instance_answers_all)) fn = c->fn;
            if (!fn) fn = icd_interface_lookup(name);
        } else {
            const struct cmd *c = find_cmd(name);
            if (c) fn = c->fn;
            if (!fn) fn = lookup_unknown_device(name);
            if (!fn) fn = lookup_unknown_physdev(name);
        }
    }
    if (sc_now()->record_lookups) {
        cJSON *o = rec_new(entry);
        rec_add_str_or_null(o, "name", name);
        cJSON_AddBoolToObject(o, "instance_null", instance == VK_NULL_HANDLE);
        cJSON_AddBoolToObject(o, "answered", fn != NULL);
        rec_emit(o);
    }
    return fn;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_GetInstanceProcAddr(VkInstance instance, const char *name) {
    return gipa_impl("vkGetInstanceProcAddr", instance, name);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_icd_GetInstanceProcAddr(VkInstance instance, const char *name) {
    return gipa_impl("vk_icdGetInstanceProcAddr", instance, name);
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_GetDeviceProcAddr(VkDevice device, const char *name) {
    PFN_vkVoidFunction fn = NULL;
    struct mock_device *d = find_device(device);
    if (name && d && !hidden(name)) {
        const struct cmd *c = find_cmd(name);
        if (c && c->kind == K_DEVICE) {
            fn = c->fn;
            if (c->gate == G_CORE11 && major_minor(d->api_version) < VK_API_VERSION_1_1) fn = NULL;
        }
        if (!fn) fn = lookup_unknown_device(name);
    }
    if (sc_now()->record_lookups) {
        cJSON *o = rec_new("vkGetDeviceProcAddr");
        rec_add_str_or_null(o, "name", name);
        cJSON_AddBoolToObject(o, "valid_device", d != NULL);
        cJSON_AddBoolToObject(o, "answered", fn != NULL);
        rec_emit(o);
    }
    return fn;
}

#if MOCK_ICD_HAS_GPDPA
static PFN_vkVoidFunction dynamic_physdev_slot(const char *name) {
    struct scenario *sc = sc_now();
    PFN_vkVoidFunction fn = NULL;
    pthread_mutex_lock(&g_lock);
    for (uint32_t i = 0; i < g_dyn_pd_count && !fn; i++)
        if (strcmp(g_dyn_pd_names[i], name) == 0) fn = k_pd_pool[sc->pd_func_count + i];
    if (!fn && sc->pd_func_count + g_dyn_pd_count < MOCK_ICD_UNKNOWN_SLOTS) {
        char *copy = strdup(name);
        if (copy) {
            g_dyn_pd_names[g_dyn_pd_count] = copy;
            fn = k_pd_pool[sc->pd_func_count + g_dyn_pd_count];
            g_dyn_pd_count++;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return fn;
}

/* vk_icdGetPhysicalDeviceProcAddr: the physical-device commands we implement plus the scenario's
 * physdev_functions; NULL for anything else (misbehave.gpdpa_answers_everything: everything). */
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_GetPhysicalDeviceProcAddr(VkInstance instance, const char *name) {
    PFN_vkVoidFunction fn = NULL;
    if (name && !hidden(name)) {
        const struct cmd *c = find_cmd(name);
        if (c && c->kind == K_PHYSDEV) fn = c->fn;
        if (!fn) fn = lookup_unknown_physdev(name);
        if (!fn && sc_now()->mb.gpdpa_answers_everything) {
            if (c) fn = c->fn;
            if (!fn) fn = lookup_unknown_device(name);
            if (!fn) fn = dynamic_physdev_slot(name);
        }
    }
    if (sc_now()->record_lookups) {
        cJSON *o = rec_new("vk_icdGetPhysicalDeviceProcAddr");
        rec_add_str_or_null(o, "name", name);
        cJSON_AddBoolToObject(o, "answered", fn != NULL);
        rec_emit(o);
    }
    return fn;
}
#endif

/* ------------------------------------------------------------------------------------------ */
/* Exports (the variant decides which exist; the version script makes them the only ones)       */

#if MOCK_ICD_EXPORT_NEGOTIATE
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vk_icdNegotiateLoaderICDInterfaceVersion(uint32_t *pVersion) {
    return mock_negotiate(pVersion);
}
#endif

#if MOCK_ICD_EXPORT_ICD_GIPA
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_icdGetInstanceProcAddr(VkInstance instance,
                                                                                const char *name) {
    return mock_icd_GetInstanceProcAddr(instance, name);
}
#elif MOCK_ICD_MAX_INTERFACE >= 7
/* variants.bzl: an interface-7 build without the standard export (v7_direct) offers its
 * vk_icdGetInstanceProcAddr only under a name no loader looks for, so only an application that
 * passes this pointer through VK_LUNARG_direct_driver_loading can use the driver. It records under
 * the standard name: to the loader it is vk_icdGetInstanceProcAddr. */
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL mock_icd_direct_GetInstanceProcAddr(VkInstance instance,
                                                                                          const char *name) {
    return mock_icd_GetInstanceProcAddr(instance, name);
}
#else
/* Keeps -Wunused-function quiet in builds that do not export it. */
__attribute__((unused)) static void *const k_unused_icd_gipa = (void *)mock_icd_GetInstanceProcAddr;
#endif

#if MOCK_ICD_EXPORT_GPDPA
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vk_icdGetPhysicalDeviceProcAddr(VkInstance instance,
                                                                                      const char *name) {
    return mock_GetPhysicalDeviceProcAddr(instance, name);
}
#endif

#if MOCK_ICD_EXPORT_VK >= 1
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name) {
    return mock_GetInstanceProcAddr(instance, name);
}
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkCreateInstance(const VkInstanceCreateInfo *ci,
                                                            const VkAllocationCallbacks *alloc, VkInstance *out) {
    note_entry("vkCreateInstance", NULL);
    return mock_CreateInstance(ci, alloc, out);
}
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateInstanceExtensionProperties(const char *layer, uint32_t *count,
                                                                                  VkExtensionProperties *props) {
    note_entry("vkEnumerateInstanceExtensionProperties", NULL);
    return mock_EnumerateInstanceExtensionProperties(layer, count, props);
}
#endif

#if MOCK_ICD_EXPORT_VK >= 2
MOCK_EXPORT VKAPI_ATTR void VKAPI_CALL vkDestroyInstance(VkInstance instance, const VkAllocationCallbacks *alloc) {
    note_entry("vkDestroyInstance", NULL);
    mock_DestroyInstance(instance, alloc);
}
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumeratePhysicalDevices(VkInstance instance, uint32_t *count,
                                                                      VkPhysicalDevice *out) {
    note_entry("vkEnumeratePhysicalDevices", NULL);
    return mock_EnumeratePhysicalDevices(instance, count, out);
}
MOCK_EXPORT VKAPI_ATTR void VKAPI_CALL vkGetPhysicalDeviceProperties(VkPhysicalDevice physicalDevice,
                                                                     VkPhysicalDeviceProperties *p) {
    note_entry("vkGetPhysicalDeviceProperties", NULL);
    mock_GetPhysicalDeviceProperties(physicalDevice, p);
}
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkEnumerateDeviceExtensionProperties(VkPhysicalDevice physicalDevice,
                                                                                const char *layer, uint32_t *count,
                                                                                VkExtensionProperties *props) {
    note_entry("vkEnumerateDeviceExtensionProperties", NULL);
    return mock_EnumerateDeviceExtensionProperties(physicalDevice, layer, count, props);
}
MOCK_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkCreateDevice(VkPhysicalDevice physicalDevice,
                                                          const VkDeviceCreateInfo *ci,
                                                          const VkAllocationCallbacks *alloc, VkDevice *out) {
    note_entry("vkCreateDevice", NULL);
    return mock_CreateDevice(physicalDevice, ci, alloc, out);
}
MOCK_EXPORT VKAPI_ATTR void VKAPI_CALL vkDestroyDevice(VkDevice device, const VkAllocationCallbacks *alloc) {
    note_entry("vkDestroyDevice", NULL);
    mock_DestroyDevice(device, alloc);
}
MOCK_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name) {
    note_entry("vkGetDeviceProcAddr", NULL);
    return mock_GetDeviceProcAddr(device, name);
}
#endif

/* ------------------------------------------------------------------------------------------ */
/* ctl                                                                                          */

MOCK_ICD_CTL_API int mock_icd_ctl_load_scenario(const char *json) {
    ensure_init();
    const char *err = NULL;
    struct scenario *sc = scenario_parse(json, &err);
    if (!sc) return -1;
    pthread_mutex_lock(&g_lock);
    scenario_release(g_sc);
    g_sc = sc;
    g_ctl_scenario = true;
    for (uint32_t i = 0; i < g_dyn_pd_count; i++) free(g_dyn_pd_names[i]);
    g_dyn_pd_count = 0;
    pthread_mutex_unlock(&g_lock);
    return 0;
}

MOCK_ICD_CTL_API void mock_icd_ctl_reset(void) {
    ensure_init();
    pthread_mutex_lock(&g_lock);
    const char *err = load_sidecar_locked();
    records_clear();
    for (uint32_t i = 0; i < g_dyn_pd_count; i++) free(g_dyn_pd_names[i]);
    g_dyn_pd_count = 0;
    g_negotiated = -1;
    g_first_seen = false;
    g_legacy_gipa_first = false;
    pthread_mutex_unlock(&g_lock);
    if (err) {
        cJSON *o = rec_new("mock_icd_scenario_error");
        cJSON_AddStringToObject(o, "file", g_scenario_path);
        cJSON_AddStringToObject(o, "error", err);
        rec_emit(o);
    }
}

MOCK_ICD_CTL_API size_t mock_icd_ctl_record_count(void) {
    ensure_init();
    pthread_mutex_lock(&g_lock);
    size_t n = g_record_count;
    pthread_mutex_unlock(&g_lock);
    return n;
}

MOCK_ICD_CTL_API const char *mock_icd_ctl_record_get(size_t i) {
    ensure_init();
    pthread_mutex_lock(&g_lock);
    const char *s = i < g_record_count ? g_records[i] : NULL;
    pthread_mutex_unlock(&g_lock);
    return s;
}

MOCK_ICD_CTL_API void mock_icd_ctl_set_result(const char *command, VkResult r) {
    if (!command) return;
    ensure_init();
    pthread_mutex_lock(&g_lock);
    struct scenario *sc = g_sc;
    uint32_t i = 0;
    while (i < sc->result_count && strcmp(sc->results[i].command, command) != 0) i++;
    if (i < sc->result_count) {
        if (r == VK_SUCCESS) {
            free(sc->results[i].command);
            sc->results[i] = sc->results[--sc->result_count];
        } else {
            sc->results[i].result = r;
        }
    } else if (r != VK_SUCCESS) {
        struct result_cfg *n = realloc(sc->results, (sc->result_count + 1) * sizeof *n);
        char *copy = strdup(command);
        if (n) sc->results = n;
        if (n && copy) {
            sc->results[sc->result_count].command = copy;
            sc->results[sc->result_count].result = r;
            sc->result_count++;
        } else {
            free(copy);
        }
    }
    pthread_mutex_unlock(&g_lock);
}

/* dlclose: free everything so LeakSanitizer stays quiet in tests that load and unload copies. */
__attribute__((destructor)) static void mock_icd_fini(void) {
    while (g_devices) {
        struct mock_device *d = g_devices;
        g_devices = d->next;
        device_free(d);
    }
    while (g_instances) {
        struct mock_instance *i = g_instances;
        g_instances = i->next;
        instance_free(i);
    }
    records_clear();
    for (uint32_t i = 0; i < g_dyn_pd_count; i++) free(g_dyn_pd_names[i]);
    g_dyn_pd_count = 0;
    scenario_release(g_sc);
    g_sc = NULL;
    g_inited = false;
}
