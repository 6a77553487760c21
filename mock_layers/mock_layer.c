/*
 * The mock Vulkan layer: one library built from four sources, compiled into one shared object per
 * export surface (variants.bzl); everything else is run-time configuration (README.md). This file:
 * the scenario (configuration), the call records, the per-object state (instance and device
 * records, handle wrapping and unwrapping) and the in-process control interface (mock_layer_ctl.h).
 * The commands are in mock_layer_instance.c and mock_layer_device.c, the proc addrs, negotiation,
 * exports and pre-instance functions in mock_layer_procaddr.c; the switches in mock_layer_internal.h.
 */
#include "mock_layers/mock_layer_internal.h"

pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static bool g_init;
static char g_self[PATH_MAX];
struct scenario g_sc;
static cJSON *g_doc;
static struct mock_records g_records = {.max = MAX_RECORDS};

static void scenario_defaults(void) {
    memset(&g_sc, 0, sizeof(g_sc));
    g_sc.negotiate_version = -1;
    mock_default_names(g_self, g_sc.name, sizeof(g_sc.name), g_sc.calls_file, sizeof(g_sc.calls_file));
}

static bool jbool(const cJSON *o, const char *k) { return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k)); }

/* The scenario's switches, each a member of the same name (true, or absent for false): members of
 * the scenario, and of its "misbehave" object. */
struct scenario_switch {
    const char *key;
    bool *flag;
};
/* clang-format off */
#define SWITCH(field) {#field, &g_sc.field}
static const struct scenario_switch k_switches[] = {
    SWITCH(wrap_handles), SWITCH(wrap_command_pools), SWITCH(tool), SWITCH(wrap_instance), SWITCH(call_globals),
    SWITCH(create_own_device), SWITCH(own_device_next_gipa), SWITCH(strict_handles),
    SWITCH(physdev_next_at_create)};
static const struct scenario_switch k_misbehave_switches[] = {
    SWITCH(fail_negotiation), SWITCH(no_advance_link), SWITCH(clobber_instance), SWITCH(clobber_device),
    SWITCH(no_call_down), SWITCH(fail_unknown_extensions), SWITCH(return_disabled_functions),
    SWITCH(fail_device_after_call_down), SWITCH(no_create_device)};
#undef SWITCH
/* clang-format on */

static void set_switches(const cJSON *o, const struct scenario_switch *s, size_t n) {
    for (size_t i = 0; i < n; i++) *s[i].flag = jbool(o, s[i].key);
}

static int scenario_apply(const char *text) {
    cJSON *doc = cJSON_Parse(text);
    if (doc == NULL || !cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return -1;
    }
    cJSON_Delete(g_doc);
    g_doc = doc;
    scenario_defaults();
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(doc, "name");
    if (cJSON_IsString(n)) snprintf(g_sc.name, sizeof(g_sc.name), "%s", n->valuestring);
    const cJSON *cf = cJSON_GetObjectItemCaseSensitive(doc, "calls_file");
    if (cJSON_IsString(cf)) snprintf(g_sc.calls_file, sizeof(g_sc.calls_file), "%s", cf->valuestring);
    const cJSON *ic = cJSON_GetObjectItemCaseSensitive(doc, "intercept");
    g_sc.intercept = cJSON_IsArray(ic) ? (cJSON *)ic : NULL;
    set_switches(doc, k_switches, sizeof(k_switches) / sizeof(k_switches[0]));
    if (g_sc.strict_handles) g_sc.wrap_instance = g_sc.wrap_handles = true;
    const cJSON *ax = cJSON_GetObjectItemCaseSensitive(doc, "add_device_extension");
    if (cJSON_IsString(ax))
        snprintf(g_sc.add_device_extension, sizeof(g_sc.add_device_extension), "%s", ax->valuestring);
    const cJSON *df = cJSON_GetObjectItemCaseSensitive(doc, "device_functions");
    int slot = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, df) {
        if (slot < FN_SLOTS && cJSON_IsString(e))
            snprintf(g_sc.device_functions[slot++], sizeof(g_sc.device_functions[0]), "%s", e->valuestring);
    }
    const cJSON *pf = cJSON_GetObjectItemCaseSensitive(doc, "physdev_functions");
    slot = 0;
    cJSON_ArrayForEach(e, pf) {
        if (slot < FN_SLOTS && cJSON_IsString(e))
            snprintf(g_sc.physdev_functions[slot++], sizeof(g_sc.physdev_functions[0]), "%s", e->valuestring);
    }
    const cJSON *inj = cJSON_GetObjectItemCaseSensitive(doc, "inject_device_extension");
    if (cJSON_IsString(inj))
        snprintf(g_sc.inject_device_extension, sizeof(g_sc.inject_device_extension), "%s", inj->valuestring);
    const cJSON *dx = cJSON_GetObjectItemCaseSensitive(doc, "device_extension");
    if (cJSON_IsString(dx)) snprintf(g_sc.device_extension, sizeof(g_sc.device_extension), "%s", dx->valuestring);
    const cJSON *ix = cJSON_GetObjectItemCaseSensitive(doc, "instance_extension");
    if (cJSON_IsString(ix)) snprintf(g_sc.instance_extension, sizeof(g_sc.instance_extension), "%s", ix->valuestring);
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(doc, "pre_instance_version");
    if (cJSON_IsNumber(pv)) g_sc.pre_instance_version = (uint32_t)pv->valuedouble;
    const cJSON *pre = cJSON_GetObjectItemCaseSensitive(doc, "pre_instance");
    const cJSON *pe = cJSON_GetObjectItemCaseSensitive(pre, "add_extension");
    if (cJSON_IsString(pe)) snprintf(g_sc.pre_add_extension, sizeof(g_sc.pre_add_extension), "%s", pe->valuestring);
    const cJSON *pl = cJSON_GetObjectItemCaseSensitive(pre, "add_layer");
    if (cJSON_IsString(pl)) snprintf(g_sc.pre_add_layer, sizeof(g_sc.pre_add_layer), "%s", pl->valuestring);
    g_sc.pre_no_call_down = jbool(pre, "no_call_down");
    const cJSON *re = cJSON_GetObjectItemCaseSensitive(doc, "reenter");
    g_sc.reenter_instance = jbool(re, "instance");
    g_sc.reenter_device = jbool(re, "device");
    const cJSON *rl = cJSON_GetObjectItemCaseSensitive(re, "loader");
    if (cJSON_IsString(rl)) snprintf(g_sc.reenter_loader, sizeof(g_sc.reenter_loader), "%s", rl->valuestring);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "misbehave");
    set_switches(m, k_misbehave_switches, sizeof(k_misbehave_switches) / sizeof(k_misbehave_switches[0]));
    const cJSON *nv = cJSON_GetObjectItemCaseSensitive(m, "negotiate_version");
    if (cJSON_IsNumber(nv)) g_sc.negotiate_version = (int)nv->valuedouble;
    return 0;
}

static void load_sidecar(void) {
    scenario_defaults();
    char *buf = mock_read_scenario(g_self);
    if (buf != NULL) {
        scenario_apply(buf);
        free(buf);
    }
}

void ensure_init(void) {
    if (g_init) return;
    g_init = true;
    mock_self_path((const void *)&ensure_init, g_self, sizeof(g_self));
    load_sidecar();
}

__attribute__((destructor)) static void mock_layer_fini(void) {
    mock_records_clear(&g_records);
    cJSON_Delete(g_doc);
    g_doc = NULL;
}

/* Appends {"layer":name,"call":call,...extra} to memory and to the calls file. Lock held. */
void record(const char *call, cJSON *extra) {
    cJSON *o = extra ? extra : cJSON_CreateObject();
    if (o == NULL) return;
    cJSON_AddStringToObject(o, "layer", g_sc.name);
    cJSON_AddStringToObject(o, "call", call);
    char *line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (line == NULL) return;
    mock_append_line(g_sc.calls_file, line);
    mock_records_add(&g_records, line);
}

void rec(const char *call) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    record(call, NULL);
    pthread_mutex_unlock(&g_lock);
}

bool intercepts(const char *name) {
    if (g_sc.intercept == NULL) return true;
    const cJSON *e;
    cJSON_ArrayForEach(e, g_sc.intercept) if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0) return true;
    return false;
}

struct alloc_cb alloc_from(const VkAllocationCallbacks *a) {
    struct alloc_cb r = {.app = a != NULL && a->pfnAllocation != NULL && a->pfnFree != NULL};
    if (r.app) r.cb = *a;
    return r;
}
void *obj_alloc(const struct alloc_cb *a, size_t size, VkSystemAllocationScope scope) {
    void *p = a->app ? a->cb.pfnAllocation(a->cb.pUserData, size, 16, scope) : malloc(size);
    if (p != NULL) memset(p, 0, size);
    return p;
}
void obj_free(const struct alloc_cb *a, void *p) {
    if (p == NULL) return;
    if (a->app)
        a->cb.pfnFree(a->cb.pUserData, p);
    else
        free(p);
}

struct inst_data g_inst[MAX_OBJECTS];
struct dev_data g_dev[MAX_OBJECTS];

void *key_of(const void *h) { return *(void *const *)h; }

_Static_assert(offsetof(struct inst_data, key) == 0 && offsetof(struct dev_data, key) == 0, "key first");
/* Copies `rec` (size bytes, a struct inst_data or dev_data) into the first free record (NULL key)
 * of `table` (MAX_OBJECTS of them), under the lock; with none free the object is not tracked. */
void store_record(void *table, size_t size, const void *rec) {
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < MAX_OBJECTS; i++) {
        char *slot = (char *)table + (size_t)i * size;
        if (key_of(slot) != NULL) continue;
        memcpy(slot, rec, size);
        break;
    }
    pthread_mutex_unlock(&g_lock);
}

/* clobber_instance / clobber_device: what the layer writes into *pInstance / *pDevice before
 * calling down (LLP_LAYER_21/22). A readable, aligned dummy object, not a raw bogus value: once a
 * create call returns VK_SUCCESS, layers (this one included, when a layer below answered without
 * calling down, so the loader never refused) read the first word of *pInstance / *pDevice as the
 * created object's dispatch key. That first word (0xbad1bad1 / 0xbad2bad2) is no dispatch pointer
 * of the loader's, and the rest is zero. Read-only: a loader that writes its dispatch pointer or
 * anything else into it faults. A loader must refuse it by comparing handles, never by reading it. */
const uintptr_t g_clobbered_instance[64] = {0xbad1bad1u};
const uintptr_t g_clobbered_device[64] = {0xbad2bad2u};

struct inst_data *inst_find(const void *h) {
    if (g_sc.strict_handles) {
        /* strict_handles: its own instance and physical-device wrappers only, found by address (the
         * way a layer reaches its state through its wrapper); any other handle is foreign. */
        for (int i = 0; i < MAX_OBJECTS; i++) {
            if (g_inst[i].key == NULL) continue;
            if ((const void *)g_inst[i].inst_wrapper == h) return &g_inst[i];
            for (uint32_t k = 0; k < g_inst[i].pd_count; k++)
                if ((const void *)g_inst[i].pds[k] == h) return &g_inst[i];
        }
        return NULL;
    }
    void *k = key_of(h);
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (g_inst[i].key == k) return &g_inst[i];
    return NULL;
}
/* A handle that is one of the layer's device wrappers finds that wrapper's record first: a copy of
 * the library that sits twice in one device chain (a layer above that does not advance the link
 * info, LLP_LAYER_13) holds two records under the same dispatch key, and the outer wrapper must
 * not be passed down as if it were the inner one. Anything else goes by its dispatch key. */
struct dev_data *dev_find(const void *h) {
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (g_dev[i].key != NULL && g_dev[i].wrapped != NULL && (const void *)g_dev[i].wrapped == h) return &g_dev[i];
    if (g_sc.strict_handles) return NULL; /* its own device wrappers only */
    void *k = key_of(h);
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (g_dev[i].key == k) return &g_dev[i];
    return NULL;
}

/* The handle the layer below knows for `pd` (LLP_LAYER_10: unwrap before calling down). */
VkPhysicalDevice unwrap_pd(const struct inst_data *d, VkPhysicalDevice pd) {
    if (d == NULL || !d->wrap) return pd;
    for (uint32_t i = 0; i < d->pd_count; i++)
        if ((VkPhysicalDevice)(void *)d->pds[i] == pd) return d->pds[i]->real;
    return pd;
}
static VkDevice unwrap_dev(const struct dev_data *d, VkDevice device) {
    return d != NULL && d->wrapped != NULL && (VkDevice)(void *)d->wrapped == device ? d->wrapped->real : device;
}

/* Takes the lock (the caller releases it): the layer's record of `device` (NULL: none), and in
 * *below the handle to pass down. */
struct dev_data *dev_lock(VkDevice device, VkDevice *below) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    struct dev_data *d = dev_find(device);
    *below = unwrap_dev(d, device);
    return d;
}

/* wrap_instance: the handle the layer below knows for `instance`; records in `o` whether the loader
 * (or the layer above) passed the layer's own wrapper ("instance_unwrapped"), as it must. A layer
 * that wraps without checking would dereference whatever it was given as its wrapper; the mock
 * falls back to its own record instead, so that the test reports the defect rather than crashing. */
VkInstance unwrap_inst(const struct inst_data *d, VkInstance instance, cJSON *o) {
    if (d == NULL || d->inst_wrapper == NULL) return instance;
    bool mine = (VkInstance)(void *)d->inst_wrapper == instance;
    if (o != NULL) cJSON_AddBoolToObject(o, "instance_unwrapped", mine);
    return d->instance;
}

/* The layer's record of `instance` (NULL: none); records `call` (with "instance_unwrapped" when
 * wrapping) and gives the handle to pass down in *below. Takes and releases the lock. */
struct inst_data *inst_enter(VkInstance instance, const char *call, VkInstance *below) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    struct inst_data *d = inst_find(instance);
    cJSON *o = cJSON_CreateObject();
    *below = unwrap_inst(d, instance, o);
    if (d == NULL && g_sc.strict_handles) cJSON_AddBoolToObject(o, "foreign_handle", true);
    record(call, o);
    pthread_mutex_unlock(&g_lock);
    return d;
}

/* The wrapper of `real` (created on first sight, same wrapper on every later enumeration).
 * Lock held. VK_NULL_HANDLE when out of room or memory. */
VkPhysicalDevice wrap_pd(struct inst_data *d, VkPhysicalDevice real) {
    for (uint32_t i = 0; i < d->pd_count; i++)
        if (d->pds[i]->real == real) return (VkPhysicalDevice)(void *)d->pds[i];
    if (d->pd_count >= MAX_WRAPPED_PDS) return VK_NULL_HANDLE;
    struct wrapped_pd *w = obj_alloc(&d->alloc, sizeof(*w), VK_SYSTEM_ALLOCATION_SCOPE_INSTANCE);
    if (w == NULL) return VK_NULL_HANDLE;
    w->real = real;
    /* The loader's dispatch pointer in the first word (LLP_LAYER_19); without the callback, the
     * word the loader put into the handle below. */
    if (d->set_loader_data == NULL || d->set_loader_data(d->instance, w) != VK_SUCCESS) w->loader_data = key_of(real);
    d->pds[d->pd_count++] = w;
    return (VkPhysicalDevice)(void *)w;
}

/* ------------------------------------------------------------------ ctl */

EXPORT int mock_layer_ctl_load_scenario(const char *json) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    int r = 0;
    if (json == NULL) {
        cJSON_Delete(g_doc);
        g_doc = NULL;
        scenario_defaults();
    } else {
        r = scenario_apply(json);
    }
    pthread_mutex_unlock(&g_lock);
    return r;
}
EXPORT void mock_layer_ctl_reset(void) {
    pthread_mutex_lock(&g_lock);
    ensure_init();
    mock_records_clear(&g_records);
    cJSON_Delete(g_doc);
    g_doc = NULL;
    load_sidecar();
    pthread_mutex_unlock(&g_lock);
}
EXPORT size_t mock_layer_ctl_record_count(void) {
    pthread_mutex_lock(&g_lock);
    size_t n = mock_records_count(&g_records);
    pthread_mutex_unlock(&g_lock);
    return n;
}
EXPORT const char *mock_layer_ctl_record_get(size_t i) {
    pthread_mutex_lock(&g_lock);
    const char *s = mock_records_get(&g_records, i);
    pthread_mutex_unlock(&g_lock);
    return s;
}
