/* The mock driver's global state (defined here and only here; declared in
 * mock_icd_internal.h), initialisation, the scenario in force, first-entry detection, handle lookup. */
#include "mock_icd/mock_icd_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* Global state (declared in mock_icd_internal.h)                                               */

pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
bool g_inited;
bool g_ctl_scenario; /* scenario came from mock_icd_ctl_load_scenario */
char g_self_path[PATH_MAX];
char g_calls_path[PATH_MAX + 16];
char g_scenario_path[PATH_MAX + 16];
struct scenario *g_sc;
struct mock_records g_records; /* unbounded */
int g_negotiated = -1;         /* -1: never negotiated */
bool g_first_seen;
bool g_legacy_gipa_first; /* first entry was vk_icdGetInstanceProcAddr (not for negotiate) */
struct mock_instance *g_instances;
struct mock_device *g_devices;
char *g_dyn_pd_names[MOCK_ICD_UNKNOWN_SLOTS]; /* gpdpa_answers_everything slots */
uint32_t g_dyn_pd_count;
uint32_t g_next_swapchain; /* swapchain handles are numbers: 0x5C000000 + n */

/* Loads the sidecar (or defaults) into g_sc; called with g_lock held. Returns an error text to
 * record (after the lock is dropped) or NULL. */
const char *load_sidecar_locked(void) {
    const char *err = NULL;
    char *text = mock_read_text(g_scenario_path);
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
void ensure_init(void) {
    if (__atomic_load_n(&g_inited, __ATOMIC_ACQUIRE)) return;
    const char *err = NULL;
    pthread_mutex_lock(&g_lock);
    if (!g_inited) {
        mock_self_path((const void *)&ensure_init, g_self_path, sizeof g_self_path);
        if (g_self_path[0] == '\0') copy_name(g_self_path, sizeof g_self_path, "mock_icd");
        mock_sidecar_path(g_self_path, ".calls", g_calls_path, sizeof g_calls_path);
        mock_sidecar_path(g_self_path, ".scenario", g_scenario_path, sizeof g_scenario_path);
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

struct scenario *sc_now(void) {
    ensure_init();
    return g_sc;
}

/* Injected result of `cmd`; VK_SUCCESS when none. */
VkResult injected(const char *cmd) {
    struct scenario *sc = sc_now();
    for (uint32_t i = 0; i < sc->result_count; i++)
        if (strcmp(sc->results[i].command, cmd) == 0) return sc->results[i].result;
    return VK_SUCCESS;
}

bool has_ext(const struct ext_cfg *e, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(e[i].name, name) == 0) return true;
    return false;
}

bool inst_ext(const char *name) {
    struct scenario *sc = sc_now();
    return has_ext(sc->inst_exts, sc->inst_ext_count, name);
}

uint32_t major_minor(uint32_t v) { return VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), 0); }

/* The interface version the mock believes it runs under. */
int effective_interface(void) {
    if (g_negotiated >= 0) return g_negotiated;
    return g_legacy_gipa_first ? 1 : 0;
}

void set_magic(void *obj) {
    VK_LOADER_DATA *ld = obj;
    ld->loaderMagic = sc_now()->mb.no_loader_magic ? 0 : ICD_LOADER_MAGIC;
}

void set_foreign_first_word(void *obj) { memcpy(obj, &(uintptr_t){FOREIGN_FIRST_WORD}, sizeof(uintptr_t)); }

/* First call into the driver: which kind of loader is talking to us (driver doc, "Interfacing
 * With Legacy Drivers or Loaders"). */
void note_entry(const char *entry, const char *name) {
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

struct mock_instance *find_instance(VkInstance h) {
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

struct mock_physdev *find_physdev(VkPhysicalDevice h) {
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

struct mock_device *find_device(VkDevice h) {
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

struct mock_queue *find_queue(const void *h) {
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

struct mock_cmdbuf *find_cmdbuf(const void *h) {
    pthread_mutex_lock(&g_lock);
    struct mock_cmdbuf *r = find_cmdbuf_locked(h);
    pthread_mutex_unlock(&g_lock);
    return r;
}

void rec_invalid_handle(const char *call, const char *what) {
    cJSON *o = rec_new("invalid_handle");
    cJSON_AddStringToObject(o, "function", call);
    cJSON_AddStringToObject(o, "handle", what);
    rec_emit(o);
}

/* LDP_DRIVER_2 violations: any instance-level call after reporting zero devices aborts
 * (misbehave.crash_with_zero_devices); a command named in crash_in aborts whatever the device count. */
void maybe_crash(struct mock_instance *inst, const char *call) {
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
