/*
 * The chassis-mode mock layer (//mock_layers:libmock_layer_chassis.so; mock_layers/README.md,
 * "Chassis mode"). Modelled on the dispatch design of the Khronos validation layers: every instance,
 * physical-device and device command of vk.xml is intercepted by a generated function
 * (gen_chassis.py, chassis_gen.inc; the commands of platform extensions under their
 * VK_USE_PLATFORM_* guard, of which the platforms defined below are compiled) that runs
 *
 *     validate      may skip the call: the command is in the scenario's "invalid" list; the
 *                   message goes to every debug-utils messenger of the instance (those of
 *                   vkCreateInstance's pNext chain included); skipped when "skip" is "always", or
 *                   "callback" (default) and a callback returned VK_TRUE; a skipped command returns
 *                   VK_ERROR_VALIDATION_FAILED_EXT (void ones return)
 *     pre-record    counts the call
 *     dispatch      calls the next layer through the per-instance / per-device table, every
 *                   non-dispatchable handle unwrapped (parameters, arrays, input structures and
 *                   their pNext chains) when "wrap_handles" is on
 *     post-record   wraps the non-dispatchable handles returned in output parameters and as
 *                   members of the structures the driver filled (VkDisplayPropertiesKHR::display,
 *                   VkDisplayPlanePropertiesKHR::currentDisplay,
 *                   VkDisplayModePropertiesKHR::displayMode and their *2KHR forms) (ids, not
 *                   pointers: per layer name and run the same), forgets destroyed / freed ones, and
 *                   appends {"layer","call","result","unwrapped","wrapped"} to the calls file
 *
 * Wrapped handles live in a map per device (device objects) and per instance (surfaces, displays,
 * display modes and the like); an unwrap looks in the device's map, then its instance's; a value in
 * neither passes unchanged. A display or display mode keeps one id per instance however often the
 * driver returns it (ch_wrap_reuse). Not unwrapped: handles behind pointer members the
 * specification lets be ignored (noautovalidity) other than VkWriteDescriptorSet's descriptors (by
 * descriptorType, here), and members of platform structures. Not wrapped: handles in the pNext
 * chains of returned structures. Dispatchable handles are never wrapped.
 */
#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The platforms whose commands the chassis intercepts (the generated intercepts of the others
 * compile away): those the loader builds with (loader/BUILD PLATFORM_COPTS), from the system's
 * headers; the types are only passed through. */
#define VK_USE_PLATFORM_XCB_KHR
#define VK_USE_PLATFORM_XLIB_KHR
#define VK_USE_PLATFORM_XLIB_XRANDR_EXT
#define VK_USE_PLATFORM_WAYLAND_KHR
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include "loader/vkl_gen_results.h"
#include "mock_common/mock_common.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_INVALID 32
#define MAX_MESSENGERS 8

_Static_assert(sizeof(VkBuffer) == sizeof(uint64_t), "the chassis wraps 64-bit non-dispatchable handles");

/* ---- configuration ---- */

enum skip_mode { SKIP_CALLBACK, SKIP_ALWAYS, SKIP_NEVER };

static struct {
    char name[VK_MAX_EXTENSION_NAME_SIZE];
    char calls_file[4096];
    bool wrap_handles;
    bool no_unwrap; /* misbehave: wraps, but passes its wrapped handles down (LLP_LAYER_10) */
    bool record_calls;
    enum skip_mode skip;
    char invalid[MAX_INVALID][VK_MAX_EXTENSION_NAME_SIZE];
    int ninvalid;
} g_cfg;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_init;
static char g_self[4096];
static uint64_t g_salt; /* per layer name: wrapped ids of stacked chassis layers differ */

static void load_config(void) {
    memset(&g_cfg, 0, sizeof g_cfg);
    g_cfg.record_calls = true;
    mock_default_names(g_self, g_cfg.name, sizeof g_cfg.name, g_cfg.calls_file, sizeof g_cfg.calls_file);
    char *text = mock_read_scenario(g_self);
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    if (cJSON_IsObject(doc)) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "name");
        if (cJSON_IsString(v)) snprintf(g_cfg.name, sizeof g_cfg.name, "%s", v->valuestring);
        v = cJSON_GetObjectItemCaseSensitive(doc, "calls_file");
        if (cJSON_IsString(v)) snprintf(g_cfg.calls_file, sizeof g_cfg.calls_file, "%s", v->valuestring);
        g_cfg.wrap_handles = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(doc, "wrap_handles"));
        if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(doc, "record_calls"))) g_cfg.record_calls = false;
        v = cJSON_GetObjectItemCaseSensitive(doc, "skip");
        if (cJSON_IsString(v)) {
            if (strcmp(v->valuestring, "always") == 0) g_cfg.skip = SKIP_ALWAYS;
            if (strcmp(v->valuestring, "never") == 0) g_cfg.skip = SKIP_NEVER;
        }
        const cJSON *e;
        cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "invalid")) {
            if (cJSON_IsString(e) && g_cfg.ninvalid < MAX_INVALID)
                snprintf(g_cfg.invalid[g_cfg.ninvalid++], VK_MAX_EXTENSION_NAME_SIZE, "%s", e->valuestring);
        }
        const cJSON *mb = cJSON_GetObjectItemCaseSensitive(doc, "misbehave");
        g_cfg.no_unwrap = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(mb, "no_unwrap"));
    }
    cJSON_Delete(doc);
    uint32_t h = 2166136261u;
    for (const char *p = g_cfg.name; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    g_salt = 0xc4a5000000000000ull | ((uint64_t)(h & 0xffffu) << 32);
}

static void ensure_init(void) {
    pthread_mutex_lock(&g_lock);
    if (!g_init) {
        mock_self_path((const void *)&ensure_init, g_self, sizeof g_self);
        load_config();
        g_init = true;
    }
    pthread_mutex_unlock(&g_lock);
}

/* VkResult names from vk.xml (tools/vkgen: loader/vkl_gen_results.h, compiled in). */
static const char *result_name(VkResult r) { return vkl_gen_result_name(r); }

/* Appends {"layer": name, "call": call, ...extra} to the calls file. */
static void record(const char *call, cJSON *extra) {
    cJSON *o = extra ? extra : cJSON_CreateObject();
    if (o == NULL) return;
    if (g_cfg.record_calls) {
        cJSON_AddStringToObject(o, "layer", g_cfg.name);
        cJSON_AddStringToObject(o, "call", call);
        char *line = cJSON_PrintUnformatted(o);
        if (line != NULL) {
            pthread_mutex_lock(&g_lock);
            mock_append_line(g_cfg.calls_file, line);
            pthread_mutex_unlock(&g_lock);
            free(line);
        }
    }
    cJSON_Delete(o);
}

/* ---- handle maps (open addressing, key 0 empty) ---- */

struct ch_map {
    pthread_mutex_t lock;
    uint64_t *keys, *vals;
    size_t cap, count;
};

static void map_init(struct ch_map *m) {
    memset(m, 0, sizeof *m);
    pthread_mutex_init(&m->lock, NULL);
}

static void map_free(struct ch_map *m) {
    free(m->keys);
    free(m->vals);
    pthread_mutex_destroy(&m->lock);
}

static size_t map_slot(uint64_t k, size_t cap) { return (size_t)((k * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1); }

static void map_put_locked(struct ch_map *m, uint64_t k, uint64_t v);

static bool map_grow(struct ch_map *m) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    uint64_t *ok = m->keys, *ov = m->vals;
    size_t ocap = m->cap;
    m->keys = calloc(ncap, sizeof(uint64_t));
    m->vals = calloc(ncap, sizeof(uint64_t));
    if (m->keys == NULL || m->vals == NULL) {
        free(m->keys);
        free(m->vals);
        m->keys = ok;
        m->vals = ov;
        return false;
    }
    m->cap = ncap;
    m->count = 0;
    for (size_t i = 0; i < ocap; i++)
        if (ok[i] != 0) map_put_locked(m, ok[i], ov[i]);
    free(ok);
    free(ov);
    return true;
}

static void map_put_locked(struct ch_map *m, uint64_t k, uint64_t v) {
    if ((m->count + 1) * 2 > m->cap && !map_grow(m)) return;
    size_t i = map_slot(k, m->cap);
    while (m->keys[i] != 0 && m->keys[i] != k) i = (i + 1) & (m->cap - 1);
    if (m->keys[i] == 0) m->count++;
    m->keys[i] = k;
    m->vals[i] = v;
}

static bool map_get_locked(const struct ch_map *m, uint64_t k, uint64_t *v) {
    if (m->cap == 0) return false;
    for (size_t i = map_slot(k, m->cap); m->keys[i] != 0; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == k) {
            *v = m->vals[i];
            return true;
        }
    }
    return false;
}

static bool map_get(struct ch_map *m, uint64_t k, uint64_t *v) {
    pthread_mutex_lock(&m->lock);
    bool found = map_get_locked(m, k, v);
    pthread_mutex_unlock(&m->lock);
    return found;
}

/* Removes k (re-inserting the rest of its cluster). */
static bool map_erase(struct ch_map *m, uint64_t k) {
    bool found = false;
    pthread_mutex_lock(&m->lock);
    if (m->cap != 0) {
        size_t i = map_slot(k, m->cap);
        while (m->keys[i] != 0 && m->keys[i] != k) i = (i + 1) & (m->cap - 1);
        if (m->keys[i] == k) {
            found = true;
            m->keys[i] = 0;
            m->count--;
            for (size_t j = (i + 1) & (m->cap - 1); m->keys[j] != 0; j = (j + 1) & (m->cap - 1)) {
                uint64_t rk = m->keys[j], rv = m->vals[j];
                m->keys[j] = 0;
                m->count--;
                map_put_locked(m, rk, rv);
            }
        }
    }
    pthread_mutex_unlock(&m->lock);
    return found;
}

/* ---- dispatch objects ---- */

struct ch_entry {
    const char *name;
    size_t offset;
    PFN_vkVoidFunction fn;
};

struct ch_messenger {
    VkDebugUtilsMessengerEXT handle; /* VK_NULL_HANDLE: from vkCreateInstance's pNext chain */
    VkDebugUtilsMessageSeverityFlagsEXT severity;
    VkDebugUtilsMessageTypeFlagsEXT types;
    PFN_vkDebugUtilsMessengerCallbackEXT callback;
    void *user;
};

#define CHASSIS_GEN_TABLES
#include "mock_layers/chassis_gen.inc"
#undef CHASSIS_GEN_TABLES

struct ch_fix;
static void ch_fix_write_descriptor_set(struct ch_fix *f, VkWriteDescriptorSet *s);
static size_t ch_stype_size(VkStructureType t);
static bool ch_fix_node(struct ch_fix *f, void *node);
static bool ch_stype_has_handles(VkStructureType t);
static const void *ch_fix_chain(struct ch_fix *f, const void *next);

struct ch_inst;
struct ch_dev;
static struct ch_inst *ch_inst_of(const void *dispatchable);
static struct ch_dev *ch_dev_of(const void *dispatchable);
static bool ch_validate(struct ch_inst *in, const char *command);
static void ch_pre_record(struct ch_inst *in, const char *command);
static void ch_post_record(struct ch_inst *in, const char *command, const struct ch_fix *f, bool has_result,
                           VkResult r);

/* One call's unwrapping: the copies it made, what it unwrapped and wrapped. */
struct ch_block {
    struct ch_block *next;
    max_align_t data[];
};
struct ch_fix {
    struct ch_inst *in;
    struct ch_dev *d;
    bool on;
    struct ch_block *blocks;
    unsigned unwrapped, wrapped, forgotten;
};

static void ch_fix_begin(struct ch_fix *f, struct ch_inst *in, struct ch_dev *d);
static void ch_fix_end(struct ch_fix *f);
static void *ch_alloc(struct ch_fix *f, size_t size);
static uint64_t ch_unwrap(struct ch_fix *f, uint64_t h);
static const void *ch_unwrap_array(struct ch_fix *f, const void *p, size_t n);
static const void *ch_fix_top_chain(struct ch_fix *f, const void *p, size_t size, size_t n);
static void ch_wrap_array(struct ch_fix *f, void *p, size_t n);
static void ch_wrap_reuse(struct ch_fix *f, void *p, size_t n);
static void ch_forget(struct ch_fix *f, uint64_t h);
static void ch_forget_array(struct ch_fix *f, const void *p, size_t n);

struct ch_inst {
    struct ch_inst *next_obj;
    const void *key;
    VkInstance handle;
    PFN_vkGetInstanceProcAddr next_gipa;
    PFN_vkDestroyInstance destroy;
    PFN_vkCreateDevice create_device;
    PFN_vkEnumerateDeviceExtensionProperties enum_device_extensions;
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger;
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger;
    struct ch_inst_table next;
    struct ch_map map;  /* wrapped id -> the handle below; its lock also guards rmap */
    struct ch_map rmap; /* displays and display modes: the handle below -> its one wrapped id */
    struct ch_messenger messengers[MAX_MESSENGERS];
    int nmessengers;
    atomic_ulong calls;
};

struct ch_dev {
    struct ch_dev *next_obj;
    const void *key;
    VkDevice handle;
    struct ch_inst *inst;
    PFN_vkGetDeviceProcAddr next_gdpa;
    PFN_vkDestroyDevice destroy;
    struct ch_dev_table next;
    struct ch_map map;
};

#include "mock_layers/chassis_gen.inc"

static struct ch_inst *g_insts;
static struct ch_dev *g_devs;

static const void *key_of(const void *h) { return h ? *(const void *const *)h : NULL; }

static struct ch_inst *ch_inst_of(const void *h) {
    const void *k = key_of(h);
    struct ch_inst *found = NULL;
    pthread_mutex_lock(&g_lock);
    for (struct ch_inst *i = g_insts; i && !found; i = i->next_obj)
        if (i->key == k) found = i;
    /* A physical device whose first word is not its instance's: the newest instance. */
    if (found == NULL) found = g_insts;
    pthread_mutex_unlock(&g_lock);
    return found;
}

static struct ch_dev *ch_dev_of(const void *h) {
    const void *k = key_of(h);
    struct ch_dev *found = NULL;
    pthread_mutex_lock(&g_lock);
    for (struct ch_dev *d = g_devs; d && !found; d = d->next_obj)
        if (d->key == k) found = d;
    pthread_mutex_unlock(&g_lock);
    return found;
}

/* ---- the phases ---- */

static bool is_invalid(const char *command) {
    for (int i = 0; i < g_cfg.ninvalid; i++)
        if (strcmp(g_cfg.invalid[i], command) == 0) return true;
    return false;
}

/* Reports through every messenger that takes validation errors; true when a callback asked to
 * skip the call. No lock is held while the application's callbacks run. */
static bool report(struct ch_inst *in, const char *command, int *reached) {
    struct ch_messenger ms[MAX_MESSENGERS];
    int n = 0;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; in != NULL && i < in->nmessengers; i++) ms[n++] = in->messengers[i];
    pthread_mutex_unlock(&g_lock);
    char text[512];
    snprintf(text, sizeof text, "%s: %s: the chassis' validation found this call invalid (scenario \"invalid\")",
             g_cfg.name, command);
    VkDebugUtilsMessengerCallbackDataEXT data = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CALLBACK_DATA_EXT,
        .pMessageIdName = "CHASSIS-invalid-call",
        .messageIdNumber = 0x43484153,
        .pMessage = text,
    };
    bool skip = false;
    *reached = 0;
    for (int i = 0; i < n; i++) {
        if (!(ms[i].severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ||
            !(ms[i].types & VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT) || ms[i].callback == NULL)
            continue;
        (*reached)++;
        if (ms[i].callback(VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
                           VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT, &data, ms[i].user) == VK_TRUE)
            skip = true;
    }
    return skip;
}

static bool ch_validate(struct ch_inst *in, const char *command) {
    if (!is_invalid(command)) return false;
    int reached = 0;
    bool asked = report(in, command, &reached);
    bool skip = g_cfg.skip == SKIP_ALWAYS || (g_cfg.skip == SKIP_CALLBACK && asked);
    cJSON *o = cJSON_CreateObject();
    if (o != NULL) {
        cJSON_AddStringToObject(o, "command", command);
        cJSON_AddNumberToObject(o, "messengers", reached);
        cJSON_AddBoolToObject(o, "callback_skip", asked);
        cJSON_AddBoolToObject(o, "skipped", skip);
    }
    record("validate", o);
    return skip;
}

static void ch_pre_record(struct ch_inst *in, const char *command) {
    (void)command;
    if (in != NULL) atomic_fetch_add(&in->calls, 1);
}

static void ch_post_record(struct ch_inst *in, const char *command, const struct ch_fix *f, bool has_result,
                           VkResult r) {
    (void)in;
    cJSON *o = cJSON_CreateObject();
    if (o != NULL) {
        if (has_result) cJSON_AddStringToObject(o, "result", result_name(r));
        cJSON_AddNumberToObject(o, "unwrapped", f->unwrapped);
        cJSON_AddNumberToObject(o, "wrapped", f->wrapped);
        if (f->forgotten) cJSON_AddNumberToObject(o, "forgotten", f->forgotten);
    }
    record(command, o);
}

/* ---- unwrapping and wrapping ---- */

static void ch_fix_begin(struct ch_fix *f, struct ch_inst *in, struct ch_dev *d) {
    memset(f, 0, sizeof *f);
    f->in = in;
    f->d = d;
    f->on = g_cfg.wrap_handles;
}

static void ch_fix_end(struct ch_fix *f) {
    while (f->blocks) {
        struct ch_block *b = f->blocks;
        f->blocks = b->next;
        free(b);
    }
}

static void *ch_alloc(struct ch_fix *f, size_t size) {
    struct ch_block *b = malloc(sizeof *b + size);
    if (b == NULL) return NULL;
    b->next = f->blocks;
    f->blocks = b;
    return b->data;
}

static uint64_t ch_unwrap(struct ch_fix *f, uint64_t h) {
    if (!f->on || h == 0 || g_cfg.no_unwrap) return h;
    uint64_t v;
    if ((f->d != NULL && map_get(&f->d->map, h, &v)) || (f->in != NULL && map_get(&f->in->map, h, &v))) {
        f->unwrapped++;
        return v;
    }
    return h;
}

static const void *ch_unwrap_array(struct ch_fix *f, const void *p, size_t n) {
    if (!f->on || p == NULL || n == 0) return p;
    uint64_t *c = ch_alloc(f, n * sizeof(uint64_t));
    if (c == NULL) return p;
    memcpy(c, p, n * sizeof(uint64_t));
    for (size_t i = 0; i < n; i++) c[i] = ch_unwrap(f, c[i]);
    return c;
}

static bool chain_needs(const void *next) {
    int guard = 0;
    for (const VkBaseInStructure *n = next; n != NULL && guard < 64; n = n->pNext, guard++)
        if (ch_stype_has_handles(n->sType)) return true;
    return false;
}

static const void *ch_fix_chain(struct ch_fix *f, const void *next) {
    if (!f->on || next == NULL || !chain_needs(next)) return next;
    const VkBaseInStructure *n = next;
    size_t size = ch_stype_size(n->sType);
    if (size == 0) return next; /* a structure unknown here: the rest of the chain stays as it is */
    VkBaseOutStructure *c = ch_alloc(f, size);
    if (c == NULL) return next;
    memcpy(c, n, size);
    if (!ch_fix_node(f, c)) c->pNext = (VkBaseOutStructure *)ch_fix_chain(f, n->pNext);
    return c;
}

/* Input structures without handles of their own whose pNext chains may hold some. */
static const void *ch_fix_top_chain(struct ch_fix *f, const void *p, size_t size, size_t n) {
    if (!f->on || p == NULL || n == 0) return p;
    bool need = false;
    for (size_t i = 0; i < n && !need; i++)
        need = chain_needs(((const VkBaseInStructure *)(const void *)((const char *)p + i * size))->pNext);
    if (!need) return p;
    char *c = ch_alloc(f, size * n);
    if (c == NULL) return p;
    memcpy(c, p, size * n);
    for (size_t i = 0; i < n; i++) {
        VkBaseOutStructure *s = (VkBaseOutStructure *)(void *)(c + i * size);
        s->pNext = (VkBaseOutStructure *)ch_fix_chain(f, s->pNext);
    }
    return c;
}

static atomic_ulong g_next_id = 1;

static void ch_wrap_array(struct ch_fix *f, void *p, size_t n) {
    if (!f->on || p == NULL) return;
    struct ch_map *m = f->d ? &f->d->map : f->in ? &f->in->map : NULL;
    if (m == NULL) return;
    uint64_t *h = p;
    for (size_t i = 0; i < n; i++) {
        if (h[i] == 0) continue;
        uint64_t id = g_salt | (uint64_t)atomic_fetch_add(&g_next_id, 1);
        pthread_mutex_lock(&m->lock);
        map_put_locked(m, id, h[i]);
        pthread_mutex_unlock(&m->lock);
        h[i] = id;
        f->wrapped++;
    }
}

/* Displays and display modes (gen_chassis.py REUSED_HANDLES), returned by queries rather than
 * created: a handle below keeps the one id it got first in the instance (the queries return the
 * same display again, and the application compares them), in the instance's map whichever command
 * returned it. */
static void ch_wrap_reuse(struct ch_fix *f, void *p, size_t n) {
    if (!f->on || p == NULL || f->in == NULL) return;
    struct ch_inst *in = f->in;
    uint64_t *h = p;
    for (size_t i = 0; i < n; i++) {
        if (h[i] == 0) continue;
        uint64_t id;
        pthread_mutex_lock(&in->map.lock);
        if (!map_get_locked(&in->rmap, h[i], &id)) {
            id = g_salt | (uint64_t)atomic_fetch_add(&g_next_id, 1);
            map_put_locked(&in->map, id, h[i]);
            map_put_locked(&in->rmap, h[i], id);
        }
        pthread_mutex_unlock(&in->map.lock);
        h[i] = id;
        f->wrapped++;
    }
}

static void ch_forget(struct ch_fix *f, uint64_t h) {
    if (!f->on || h == 0) return;
    if ((f->d != NULL && map_erase(&f->d->map, h)) || (f->in != NULL && map_erase(&f->in->map, h))) f->forgotten++;
}

static void ch_forget_array(struct ch_fix *f, const void *p, size_t n) {
    if (p == NULL) return;
    for (size_t i = 0; i < n; i++) ch_forget(f, ((const uint64_t *)p)[i]);
}

/* VkWriteDescriptorSet: only the array its descriptorType names is read (the others may be
 * anything). */
static void ch_fix_write_descriptor_set(struct ch_fix *f, VkWriteDescriptorSet *s) {
    s->dstSet = (VkDescriptorSet)(uintptr_t)ch_unwrap(f, (uint64_t)(uintptr_t)s->dstSet);
    switch (s->descriptorType) {
        case VK_DESCRIPTOR_TYPE_SAMPLER:
        case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
        case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
        case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE:
        case VK_DESCRIPTOR_TYPE_INPUT_ATTACHMENT:
            s->pImageInfo = chf_arr_VkDescriptorImageInfo(f, s->pImageInfo, s->descriptorCount);
            break;
        case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
        case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER:
            s->pTexelBufferView = (const VkBufferView *)ch_unwrap_array(f, s->pTexelBufferView, s->descriptorCount);
            break;
        case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
        case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER:
        case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC:
        case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC:
            s->pBufferInfo = chf_arr_VkDescriptorBufferInfo(f, s->pBufferInfo, s->descriptorCount);
            break;
        default: break;
    }
    s->pNext = ch_fix_chain(f, s->pNext);
}

/* ---- the hand-written commands: chain set-up, introspection, messengers ---- */

static void *find_link(const void *chain, VkStructureType type) {
    for (const VkBaseInStructure *n = chain; n != NULL; n = n->pNext)
        if (n->sType == type && ((const VkLayerInstanceCreateInfo *)(const void *)n)->function == VK_LAYER_LINK_INFO)
            return (void *)(uintptr_t)n;
    return NULL;
}

static void fill_table(void *table, const struct ch_entry *e, size_t n, PFN_vkVoidFunction (*get)(void *, const char *),
                       void *obj) {
    for (size_t i = 0; i < n; i++) {
        PFN_vkVoidFunction *slot = (PFN_vkVoidFunction *)(void *)((char *)table + e[i].offset);
        if (*slot == NULL) *slot = get(obj, e[i].name);
    }
}

static PFN_vkGetInstanceProcAddr g_fill_gipa;
static PFN_vkGetDeviceProcAddr g_fill_gdpa;
static PFN_vkVoidFunction fill_gipa(void *obj, const char *name) { return g_fill_gipa((VkInstance)obj, name); }
static PFN_vkVoidFunction fill_gdpa(void *obj, const char *name) { return g_fill_gdpa((VkDevice)obj, name); }

static void record_result(const char *call, VkResult r) {
    cJSON *o = cJSON_CreateObject();
    if (o != NULL) cJSON_AddStringToObject(o, "result", result_name(r));
    record(call, o);
}

static VKAPI_ATTR VkResult VKAPI_CALL chassis_CreateInstance(const VkInstanceCreateInfo *ci,
                                                             const VkAllocationCallbacks *a, VkInstance *pInstance) {
    ensure_init();
    if (ci == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    VkLayerInstanceCreateInfo *link = find_link(ci->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
    if (link == NULL || link->u.pLayerInfo == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkCreateInstance create = (PFN_vkCreateInstance)next_gipa(VK_NULL_HANDLE, "vkCreateInstance");
    if (create == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    VkResult r = create(ci, a, pInstance);
    if (r != VK_SUCCESS) {
        record_result("vkCreateInstance", r);
        return r;
    }
    struct ch_inst *in = calloc(1, sizeof *in);
    if (in == NULL) {
        PFN_vkDestroyInstance destroy = (PFN_vkDestroyInstance)next_gipa(*pInstance, "vkDestroyInstance");
        if (destroy) destroy(*pInstance, a);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    in->key = key_of(*pInstance);
    in->handle = *pInstance;
    in->next_gipa = next_gipa;
    in->destroy = (PFN_vkDestroyInstance)next_gipa(*pInstance, "vkDestroyInstance");
    in->create_device = (PFN_vkCreateDevice)next_gipa(*pInstance, "vkCreateDevice");
    in->enum_device_extensions =
        (PFN_vkEnumerateDeviceExtensionProperties)next_gipa(*pInstance, "vkEnumerateDeviceExtensionProperties");
    in->create_messenger = (PFN_vkCreateDebugUtilsMessengerEXT)next_gipa(*pInstance, "vkCreateDebugUtilsMessengerEXT");
    in->destroy_messenger =
        (PFN_vkDestroyDebugUtilsMessengerEXT)next_gipa(*pInstance, "vkDestroyDebugUtilsMessengerEXT");
    map_init(&in->map);
    map_init(&in->rmap);
    /* The messengers of vkCreateInstance's pNext chain live as long as the instance. */
    for (const VkBaseInStructure *n = ci->pNext; n != NULL; n = n->pNext) {
        if (n->sType != VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT || in->nmessengers >= MAX_MESSENGERS)
            continue;
        const VkDebugUtilsMessengerCreateInfoEXT *m = (const VkDebugUtilsMessengerCreateInfoEXT *)(const void *)n;
        in->messengers[in->nmessengers++] =
            (struct ch_messenger){VK_NULL_HANDLE, m->messageSeverity, m->messageType, m->pfnUserCallback, m->pUserData};
    }
    pthread_mutex_lock(&g_lock);
    g_fill_gipa = next_gipa;
    fill_table(&in->next, ch_inst_entries, sizeof ch_inst_entries / sizeof ch_inst_entries[0], fill_gipa, *pInstance);
    in->next_obj = g_insts;
    g_insts = in;
    pthread_mutex_unlock(&g_lock);
    cJSON *o = cJSON_CreateObject();
    if (o != NULL) {
        cJSON_AddStringToObject(o, "result", result_name(r));
        cJSON_AddBoolToObject(o, "wrap_handles", g_cfg.wrap_handles);
        cJSON_AddNumberToObject(o, "messengers", in->nmessengers);
    }
    record("vkCreateInstance", o);
    return r;
}

static VKAPI_ATTR void VKAPI_CALL chassis_DestroyInstance(VkInstance instance, const VkAllocationCallbacks *a) {
    if (instance == VK_NULL_HANDLE) return;
    const void *k = key_of(instance);
    struct ch_inst *in = NULL;
    pthread_mutex_lock(&g_lock);
    for (struct ch_inst **pp = &g_insts; *pp; pp = &(*pp)->next_obj) {
        if ((*pp)->key == k) {
            in = *pp;
            *pp = in->next_obj;
            break;
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (in == NULL) return;
    if (in->destroy) in->destroy(instance, a);
    cJSON *o = cJSON_CreateObject();
    if (o != NULL) cJSON_AddNumberToObject(o, "calls", (double)atomic_load(&in->calls));
    record("vkDestroyInstance", o);
    map_free(&in->map);
    map_free(&in->rmap);
    free(in);
}

static VKAPI_ATTR VkResult VKAPI_CALL chassis_CreateDevice(VkPhysicalDevice pd, const VkDeviceCreateInfo *ci,
                                                           const VkAllocationCallbacks *a, VkDevice *pDevice) {
    struct ch_inst *in = ch_inst_of(pd);
    VkLayerDeviceCreateInfo *link = find_link(ci ? ci->pNext : NULL, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
    if (in == NULL || link == NULL || link->u.pLayerInfo == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    if (ch_validate(in, "vkCreateDevice")) return VK_ERROR_VALIDATION_FAILED_EXT;
    ch_pre_record(in, "vkCreateDevice");
    PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
    PFN_vkGetDeviceProcAddr next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
    PFN_vkCreateDevice create = (PFN_vkCreateDevice)next_gipa(in->handle, "vkCreateDevice");
    if (create == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    link->u.pLayerInfo = link->u.pLayerInfo->pNext;
    VkResult r = create(pd, ci, a, pDevice);
    if (r != VK_SUCCESS) {
        record_result("vkCreateDevice", r);
        return r;
    }
    struct ch_dev *d = calloc(1, sizeof *d);
    if (d == NULL) {
        PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)next_gdpa(*pDevice, "vkDestroyDevice");
        if (destroy) destroy(*pDevice, a);
        return VK_ERROR_OUT_OF_HOST_MEMORY;
    }
    d->key = key_of(*pDevice);
    d->handle = *pDevice;
    d->inst = in;
    d->next_gdpa = next_gdpa;
    d->destroy = (PFN_vkDestroyDevice)next_gdpa(*pDevice, "vkDestroyDevice");
    map_init(&d->map);
    pthread_mutex_lock(&g_lock);
    g_fill_gdpa = next_gdpa;
    fill_table(&d->next, ch_dev_entries, sizeof ch_dev_entries / sizeof ch_dev_entries[0], fill_gdpa, *pDevice);
    d->next_obj = g_devs;
    g_devs = d;
    pthread_mutex_unlock(&g_lock);
    record_result("vkCreateDevice", r);
    return r;
}

static VKAPI_ATTR void VKAPI_CALL chassis_DestroyDevice(VkDevice device, const VkAllocationCallbacks *a) {
    if (device == VK_NULL_HANDLE) return;
    const void *k = key_of(device);
    struct ch_dev *d = NULL;
    pthread_mutex_lock(&g_lock);
    for (struct ch_dev **pp = &g_devs; *pp; pp = &(*pp)->next_obj) {
        if ((*pp)->key == k) {
            d = *pp;
            *pp = d->next_obj;
            break;
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (d == NULL) return;
    if (d->destroy) d->destroy(device, a);
    cJSON *o = cJSON_CreateObject();
    if (o != NULL) cJSON_AddNumberToObject(o, "wrapped_left", (double)d->map.count);
    record("vkDestroyDevice", o);
    map_free(&d->map);
    free(d);
}

static VKAPI_ATTR VkResult VKAPI_CALL chassis_EnumerateDeviceExtensionProperties(VkPhysicalDevice pd, const char *layer,
                                                                                 uint32_t *pCount,
                                                                                 VkExtensionProperties *props) {
    ensure_init();
    if (layer != NULL && strcmp(layer, g_cfg.name) == 0) {
        if (pCount == NULL) return VK_ERROR_INITIALIZATION_FAILED;
        *pCount = 0;
        return VK_SUCCESS;
    }
    struct ch_inst *in = ch_inst_of(pd);
    if (in == NULL || in->enum_device_extensions == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    return in->enum_device_extensions(pd, layer, pCount, props);
}

static void own_props(VkLayerProperties *p) {
    memset(p, 0, sizeof *p);
    snprintf(p->layerName, sizeof p->layerName, "%s", g_cfg.name);
    p->specVersion = VK_API_VERSION_1_3;
    p->implementationVersion = 1;
    snprintf(p->description, sizeof p->description, "chassis-mode mock layer");
}

static VKAPI_ATTR VkResult VKAPI_CALL chassis_EnumerateDeviceLayerProperties(VkPhysicalDevice pd, uint32_t *pCount,
                                                                             VkLayerProperties *props) {
    (void)pd;
    ensure_init();
    if (pCount == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    if (props == NULL) {
        *pCount = 1;
        return VK_SUCCESS;
    }
    if (*pCount < 1) return VK_INCOMPLETE;
    own_props(props);
    *pCount = 1;
    return VK_SUCCESS;
}

static VKAPI_ATTR VkResult VKAPI_CALL chassis_CreateDebugUtilsMessengerEXT(VkInstance instance,
                                                                           const VkDebugUtilsMessengerCreateInfoEXT *ci,
                                                                           const VkAllocationCallbacks *a,
                                                                           VkDebugUtilsMessengerEXT *pMessenger) {
    struct ch_inst *in = ch_inst_of(instance);
    if (in == NULL || in->create_messenger == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    VkResult r = in->create_messenger(instance, ci, a, pMessenger);
    if (r == VK_SUCCESS && ci != NULL) {
        pthread_mutex_lock(&g_lock);
        if (in->nmessengers < MAX_MESSENGERS)
            in->messengers[in->nmessengers++] = (struct ch_messenger){*pMessenger, ci->messageSeverity, ci->messageType,
                                                                      ci->pfnUserCallback, ci->pUserData};
        pthread_mutex_unlock(&g_lock);
    }
    record_result("vkCreateDebugUtilsMessengerEXT", r);
    return r;
}

static VKAPI_ATTR void VKAPI_CALL chassis_DestroyDebugUtilsMessengerEXT(VkInstance instance, VkDebugUtilsMessengerEXT m,
                                                                        const VkAllocationCallbacks *a) {
    struct ch_inst *in = ch_inst_of(instance);
    if (in == NULL || in->destroy_messenger == NULL) return;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < in->nmessengers; i++) {
        if (m != VK_NULL_HANDLE && in->messengers[i].handle == m) {
            in->messengers[i] = in->messengers[--in->nmessengers];
            break;
        }
    }
    pthread_mutex_unlock(&g_lock);
    in->destroy_messenger(instance, m, a);
    record("vkDestroyDebugUtilsMessengerEXT", NULL);
}

/* ---- vkGet*ProcAddr ---- */

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL chassis_GetInstanceProcAddr(VkInstance instance, const char *name);
static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL chassis_GetDeviceProcAddr(VkDevice device, const char *name);

#define FN(x) ((PFN_vkVoidFunction)(x))

static const struct ch_entry *find_entry(const struct ch_entry *e, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (strcmp(e[i].name, name) == 0) return &e[i];
    return NULL;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL chassis_GetInstanceProcAddr(VkInstance instance, const char *name) {
    ensure_init();
    if (name == NULL) return NULL;
    if (strcmp(name, "vkGetInstanceProcAddr") == 0) return FN(chassis_GetInstanceProcAddr);
    if (strcmp(name, "vkCreateInstance") == 0) return FN(chassis_CreateInstance);
    if (instance == VK_NULL_HANDLE) return NULL;
    struct ch_inst *in = ch_inst_of(instance);
    if (in == NULL) return NULL;
    PFN_vkVoidFunction below = in->next_gipa(instance, name);
    /* Only what the layer below offers for this instance (LLP_LAYER_18). */
    if (below == NULL) return NULL;
    static const struct {
        const char *name;
        PFN_vkVoidFunction fn;
    } own[] = {
        {"vkDestroyInstance", FN(chassis_DestroyInstance)},
        {"vkCreateDevice", FN(chassis_CreateDevice)},
        {"vkDestroyDevice", FN(chassis_DestroyDevice)},
        {"vkGetDeviceProcAddr", FN(chassis_GetDeviceProcAddr)},
        {"vkEnumerateDeviceExtensionProperties", FN(chassis_EnumerateDeviceExtensionProperties)},
        {"vkEnumerateDeviceLayerProperties", FN(chassis_EnumerateDeviceLayerProperties)},
        {"vkCreateDebugUtilsMessengerEXT", FN(chassis_CreateDebugUtilsMessengerEXT)},
        {"vkDestroyDebugUtilsMessengerEXT", FN(chassis_DestroyDebugUtilsMessengerEXT)},
    };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
        if (strcmp(own[i].name, name) == 0) return own[i].fn;
    const struct ch_entry *e = find_entry(ch_inst_entries, sizeof ch_inst_entries / sizeof ch_inst_entries[0], name);
    if (e == NULL) e = find_entry(ch_dev_entries, sizeof ch_dev_entries / sizeof ch_dev_entries[0], name);
    return e ? e->fn : below;
}

static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL chassis_GetDeviceProcAddr(VkDevice device, const char *name) {
    if (name == NULL || device == VK_NULL_HANDLE) return NULL;
    if (strcmp(name, "vkGetDeviceProcAddr") == 0) return FN(chassis_GetDeviceProcAddr);
    struct ch_dev *d = ch_dev_of(device);
    if (d == NULL) return NULL;
    PFN_vkVoidFunction below = d->next_gdpa(device, name);
    if (below == NULL) return NULL;
    if (strcmp(name, "vkDestroyDevice") == 0) return FN(chassis_DestroyDevice);
    const struct ch_entry *e = find_entry(ch_dev_entries, sizeof ch_dev_entries / sizeof ch_dev_entries[0], name);
    return e ? e->fn : below;
}

/* ---- exports ---- */

EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface *ni) {
    ensure_init();
    if (ni == NULL || ni->sType != LAYER_NEGOTIATE_INTERFACE_STRUCT) return VK_ERROR_INITIALIZATION_FAILED;
    if (ni->loaderLayerInterfaceVersion >= 2) {
        ni->pfnGetInstanceProcAddr = chassis_GetInstanceProcAddr;
        ni->pfnGetDeviceProcAddr = chassis_GetDeviceProcAddr;
        ni->pfnGetPhysicalDeviceProcAddr = NULL;
        ni->loaderLayerInterfaceVersion = 2;
    }
    return VK_SUCCESS;
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char *name) {
    return chassis_GetInstanceProcAddr(instance, name);
}

EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char *name) {
    return chassis_GetDeviceProcAddr(device, name);
}
