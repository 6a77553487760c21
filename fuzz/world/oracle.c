/*
 * The policy oracle of loader_world_fuzzer: reads every mock copy's call records
 * (<library>.calls, one JSON object per line, mock_icd/README.md) and checks the loader/driver
 * interface policies the records can prove. Every violation aborts (world_violation).
 *
 *  LDP_LOADER_5   no call reaches a driver after a negotiation the loader must reject
 *  LDP_LOADER_9   vkCreateInstance passes a driver only extensions it advertised
 *  LDP_LOADER_7   a Vulkan 1.0 driver receives apiVersion 1.0 (or none)
 *  LDP_LOADER_12  no pLayerName / layer list reaches a driver
 *  LDP_LOADER_1   vkCreateInstance fails with VK_ERROR_INCOMPATIBLE_DRIVER exactly when no driver
 *                 could create an instance (and leaves no driver instance behind on failure)
 *  LDP_LOADER_13  an elevated world loads nothing from a user-controlled path
 *  LDP_DRIVER_1   drivers are isolated (RTLD_LOCAL): corrupt_other_driver never finds another copy
 *  handles        the loader passes drivers only their own handles (no invalid_handle records)
 *  leaks          every driver instance/device created is destroyed exactly once
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/world/world.h"
#include "loader/internal/json.h"
#include "loader/internal/manifest.h"

struct w_rec {
    const char *call;
    struct vkl_json *root;
};

struct w_slot_recs {
    bool file_exists;
    struct w_rec *r;
    size_t n;
};

struct w_records {
    struct w_slot_recs s[W_MAX_DRIVERS];
    struct w_slot_recs l[W_MAX_LAYERS]; /* the mock layers' records */
};

/* ------------------------------------------------------------------------------------------ */
/* Reading                                                                                     */

static char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL) {
        if (n + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (nb == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        if (r == 0) break;
        n += r;
    }
    fclose(f);
    if (buf) buf[n] = '\0';
    *len = n;
    return buf;
}

static void read_slot(const char *lib_abs, uint32_t s, struct w_slot_recs *sr);

struct w_records *oracle_read(const struct world *w) {
    struct w_records *rs = calloc(1, sizeof(*rs));
    if (rs == NULL) abort();
    for (uint32_t s = 0; s < w->ndrivers; s++) read_slot(w->d[s].lib_abs, s, &rs->s[s]);
    for (uint32_t i = 0; i < w->nlayers; i++) read_slot(w->l[i].lib_abs, 100 + i, &rs->l[i]);
    return rs;
}

/* Reads <lib_abs>.calls (slot: for messages; layers are 100 + slot). */
static void read_slot(const char *lib_abs, uint32_t s, struct w_slot_recs *sr) {
    {
        char path[W_PATH + 8];
        snprintf(path, sizeof path, "%s.calls", lib_abs);
        size_t len = 0;
        char *text = slurp(path, &len);
        if (text == NULL) return;
        sr->file_exists = true;
        size_t cap = 0;
        for (char *line = text; *line;) {
            char *nl = strchr(line, '\n');
            size_t n = nl ? (size_t)(nl - line) : strlen(line);
            if (n > 0) {
                struct vkl_json *root = NULL;
                if (vkl_json_parse(line, n, &root, NULL, 0) != VK_SUCCESS)
                    world_violation("harness", "slot %u: unreadable call record '%.*s'", s,
                                    (int)(n > 200 ? 200 : n), line);
                if (sr->n == cap) {
                    cap = cap ? cap * 2 : 64;
                    struct w_rec *nr = realloc(sr->r, cap * sizeof(*nr));
                    if (nr == NULL) abort();
                    sr->r = nr;
                }
                sr->r[sr->n].root = root;
                sr->r[sr->n].call = vkl_json_string(vkl_json_get(root, "call"));
                if (sr->r[sr->n].call == NULL) sr->r[sr->n].call = "";
                sr->n++;
            }
            if (nl == NULL) break;
            line = nl + 1;
        }
        free(text);
    }
}

void oracle_free(struct w_records *rs) {
    if (rs == NULL) return;
    for (int s = 0; s < W_MAX_DRIVERS; s++) {
        for (size_t i = 0; i < rs->s[s].n; i++) vkl_json_free(rs->s[s].r[i].root);
        free(rs->s[s].r);
    }
    for (int s = 0; s < W_MAX_LAYERS; s++) {
        for (size_t i = 0; i < rs->l[s].n; i++) vkl_json_free(rs->l[s].r[i].root);
        free(rs->l[s].r);
    }
    free(rs);
}

size_t oracle_count(const struct w_records *rs, uint32_t slot) {
    return slot < W_MAX_DRIVERS ? rs->s[slot].n : 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Record fields                                                                               */

static const struct {
    const char *name;
    VkResult value;
} k_results[] = {
    {"VK_SUCCESS", VK_SUCCESS},
    {"VK_NOT_READY", VK_NOT_READY},
    {"VK_TIMEOUT", VK_TIMEOUT},
    {"VK_EVENT_SET", VK_EVENT_SET},
    {"VK_EVENT_RESET", VK_EVENT_RESET},
    {"VK_INCOMPLETE", VK_INCOMPLETE},
    {"VK_ERROR_OUT_OF_HOST_MEMORY", VK_ERROR_OUT_OF_HOST_MEMORY},
    {"VK_ERROR_OUT_OF_DEVICE_MEMORY", VK_ERROR_OUT_OF_DEVICE_MEMORY},
    {"VK_ERROR_INITIALIZATION_FAILED", VK_ERROR_INITIALIZATION_FAILED},
    {"VK_ERROR_DEVICE_LOST", VK_ERROR_DEVICE_LOST},
    {"VK_ERROR_MEMORY_MAP_FAILED", VK_ERROR_MEMORY_MAP_FAILED},
    {"VK_ERROR_LAYER_NOT_PRESENT", VK_ERROR_LAYER_NOT_PRESENT},
    {"VK_ERROR_EXTENSION_NOT_PRESENT", VK_ERROR_EXTENSION_NOT_PRESENT},
    {"VK_ERROR_FEATURE_NOT_PRESENT", VK_ERROR_FEATURE_NOT_PRESENT},
    {"VK_ERROR_INCOMPATIBLE_DRIVER", VK_ERROR_INCOMPATIBLE_DRIVER},
    {"VK_ERROR_TOO_MANY_OBJECTS", VK_ERROR_TOO_MANY_OBJECTS},
    {"VK_ERROR_FORMAT_NOT_SUPPORTED", VK_ERROR_FORMAT_NOT_SUPPORTED},
    {"VK_ERROR_FRAGMENTED_POOL", VK_ERROR_FRAGMENTED_POOL},
    {"VK_ERROR_UNKNOWN", VK_ERROR_UNKNOWN},
};

static VkResult rec_result(const struct w_rec *r) {
    const struct vkl_json *v = vkl_json_get(r->root, "result");
    if (vkl_json_is_number(v)) return (VkResult)(int32_t)vkl_json_number(v);
    const char *s = vkl_json_string(v);
    if (s == NULL) return VK_RESULT_MAX_ENUM;
    for (size_t i = 0; i < sizeof k_results / sizeof k_results[0]; i++)
        if (strcmp(k_results[i].name, s) == 0) return k_results[i].value;
    return VK_RESULT_MAX_ENUM; /* a name we do not know: not VK_SUCCESS anyway */
}

static bool rec_is(const struct w_rec *r, const char *call) { return strcmp(r->call, call) == 0; }

static bool rec_bool(const struct w_rec *r, const char *key) {
    return vkl_json_bool(vkl_json_get(r->root, key));
}

static double rec_num(const struct w_rec *r, const char *key, double dflt) {
    const struct vkl_json *v = vkl_json_get(r->root, key);
    return vkl_json_is_number(v) ? vkl_json_number(v) : dflt;
}

/* ------------------------------------------------------------------------------------------ */
/* Per-slot knowledge                                                                          */

static bool variant_exports_negotiate(const char *v) {
    if (strcmp(v, "v0") == 0 || strcmp(v, "v1") == 0) return false;
    if (strncmp(v, "v7", 2) == 0) return strstr(v, "_exports") != NULL;
    return true;
}

static bool negotiation_rejected(const struct w_driver *d, const struct w_rec *r) {
    VkResult res = rec_result(r);
    double returned = rec_num(r, "returned", -1);
    if (res != VK_SUCCESS) return true;
    if (returned > 7) return true;
    if (!variant_exports_negotiate(world_variant_name(d->variant)) && returned < 7) return true;
    return false;
}

/* Did the loader get the driver's extension list? It asks twice (count, then array: icd.c) and
 * uses the list when the count query returned VK_SUCCESS and the array query VK_SUCCESS or
 * VK_INCOMPLETE. Injected results make either fail, so read the answer off the records. */
static bool loader_saw_extensions(const struct w_slot_recs *sr) {
    for (size_t i = 0; i < sr->n; i++) {
        if (!rec_is(&sr->r[i], "vkEnumerateInstanceExtensionProperties") ||
            rec_result(&sr->r[i]) != VK_SUCCESS)
            continue;
        for (size_t j = i + 1; j < sr->n; j++) {
            if (!rec_is(&sr->r[j], "vkEnumerateInstanceExtensionProperties")) continue;
            VkResult r = rec_result(&sr->r[j]);
            if (r == VK_SUCCESS || r == VK_INCOMPLETE) return true;
            break;
        }
    }
    return false;
}

/* Is `ext` in the list the driver advertised to the loader? */
static bool advertises(const struct w_driver *d, bool saw_list, const char *ext) {
    if (!saw_list) return false;
    for (int i = 0; i < 8; i++)
        if ((d->sc.inst_ext_mask & (1u << i)) && strcmp(w_inst_ext_names[i], ext) == 0) return true;
    if ((d->sc.misbehave & (1u << 5)) && strcmp(ext, "VK_MOCK_unpublished_extension") == 0)
        return true;
    return false;
}

/* Resolves a manifest's library path to a world slot, or -1. */
static int lib_slot(const struct world *w, const struct vkl_icd_manifest *m) {
    char buf[W_PATH * 2];
    const char *lib = m->library_path;
    if (m->library_path_is_bare_name) {
        snprintf(buf, sizeof buf, "%s/lib/%s", world_root(), lib);
    } else if (lib[0] != '/') {
        /* relative to the working directory the loader had: R in chdir mode */
        snprintf(buf, sizeof buf, "%s/%s", w->chdir_root ? world_root() : ".", lib);
    } else {
        snprintf(buf, sizeof buf, "%s", lib);
    }
    char *real = realpath(buf, NULL);
    if (real == NULL) return -1;
    int slot = -1;
    for (uint32_t s = 0; s < w->ndrivers; s++)
        if (strcmp(real, w->d[s].lib_abs) == 0) slot = (int)s;
    free(real);
    return slot;
}

/* 1 when every accepted manifest naming the slot makes it a Vulkan 1.0 driver, 0 when every one
 * makes it newer, -1 when unknown or mixed. */
static int slot_is_1_0(const struct world *w, uint32_t slot, const struct w_slot_recs *sr) {
    int verdict = -2;
    const struct w_scenario *sc = &w->d[slot].sc;
    /* What vkEnumerateInstanceVersion told the loader: read off the records (none: not exposed). */
    bool eiv_ok = false, eiv_called = false;
    for (size_t i = 0; i < sr->n; i++)
        if (rec_is(&sr->r[i], "vkEnumerateInstanceVersion")) {
            eiv_called = true;
            eiv_ok = rec_result(&sr->r[i]) == VK_SUCCESS;
        }
    for (uint32_t j = 0; j < w->ndrivers; j++) {
        struct vkl_icd_manifest m;
        if (vkl_icd_manifest_parse(w->d[j].manifest_env, w->d[j].manifest, w->d[j].manifest_len,
                                   NULL, &m) != VK_SUCCESS)
            continue;
        if (lib_slot(w, &m) != (int)slot) {
            vkl_icd_manifest_finish(&m);
            continue;
        }
        uint32_t api = m.api_version;
        vkl_icd_manifest_finish(&m);
        if (VK_API_VERSION_MINOR(api) >= 1 || VK_API_VERSION_MAJOR(api) > 1) {
            if (!eiv_called || !eiv_ok || sc->hide_eiv)
                api = VK_API_VERSION_1_0;
            else
                api = sc->api_version;
        }
        int v;
        if (VK_API_VERSION_VARIANT(api) == 0 && VK_API_VERSION_MAJOR(api) == 1 &&
            VK_API_VERSION_MINOR(api) == 0)
            v = 1;
        else if (VK_API_VERSION_VARIANT(api) == 0 && VK_API_VERSION_MAJOR(api) == 1)
            v = 0;
        else
            v = -1;
        verdict = verdict == -2 ? v : verdict == v ? v : -1;
    }
    return verdict == -2 ? -1 : verdict;
}

/* ------------------------------------------------------------------------------------------ */
/* Checks                                                                                      */

static bool g_layer_chaos; /* a misbehaving layer ran: driver instance counts are its doing */

static void check_slot(const struct world *w, uint32_t s, const struct w_slot_recs *sr) {
    const struct w_driver *d = &w->d[s];
    bool rejected = false;
    size_t rejected_at = 0;
    long creates_ok = 0, destroys = 0, dev_ok = 0, dev_destroys = 0;
    int is_1_0 = -1;
    bool is_1_0_known = false;
    bool saw_list = loader_saw_extensions(sr);
    for (size_t i = 0; i < sr->n; i++) {
        const struct w_rec *r = &sr->r[i];
        if (rec_is(r, "mock_icd_scenario_error"))
            world_violation("harness", "slot %u: the mock rejected the generated scenario", s);
        if (rec_is(r, "invalid_handle"))
            world_violation("handles",
                            "slot %u: the loader passed %s a %s the driver does not own", s,
                            vkl_json_string(vkl_json_get(r->root, "function")),
                            vkl_json_string(vkl_json_get(r->root, "handle")));
        if (rec_is(r, "corrupt_other_driver") && rec_bool(r, "found_other"))
            world_violation("LDP_DRIVER_1",
                            "slot %u: another driver's symbols are visible in the global namespace "
                            "(drivers must be loaded RTLD_LOCAL)",
                            s);

        /* LDP_LOADER_5 */
        if (rec_is(r, "vk_icdNegotiateLoaderICDInterfaceVersion")) {
            if (negotiation_rejected(d, r)) {
                rejected = true;
                rejected_at = i;
            } else {
                rejected = false;
            }
            continue;
        }
        if (rejected && !rec_is(r, "first_entry")) {
            const char *name = vkl_json_string(vkl_json_get(r->root, "name"));
            bool negotiate_lookup = (rec_is(r, "vk_icdGetInstanceProcAddr") ||
                                     rec_is(r, "vkGetInstanceProcAddr")) &&
                                    name && strcmp(name, "vk_icdNegotiateLoaderICDInterfaceVersion") == 0;
            if (!negotiate_lookup)
                world_violation("LDP_LOADER_5",
                                "slot %u (%s): %s called after the negotiation in record %zu, which "
                                "the loader must reject",
                                s, world_variant_name(d->variant), r->call, rejected_at);
        }

        /* LDP_LOADER_12 */
        if ((rec_is(r, "vkEnumerateInstanceExtensionProperties") ||
             rec_is(r, "vkEnumerateDeviceExtensionProperties")) &&
            !vkl_json_is_null(vkl_json_get(r->root, "layer")))
            world_violation("LDP_LOADER_12", "slot %u: %s received pLayerName \"%s\"", s, r->call,
                            vkl_json_string(vkl_json_get(r->root, "layer")));
        if (rec_is(r, "vkCreateInstance") &&
            vkl_json_array_size(vkl_json_get(r->root, "layers")) != 0)
            world_violation("LDP_LOADER_12", "slot %u: vkCreateInstance received %zu layer names", s,
                            vkl_json_array_size(vkl_json_get(r->root, "layers")));

        if (rec_is(r, "vkCreateInstance")) {
            /* LDP_LOADER_9 */
            const struct vkl_json *exts = vkl_json_get(r->root, "extensions");
            for (size_t k = 0; k < vkl_json_array_size(exts); k++) {
                const char *e = vkl_json_string(vkl_json_array_at(exts, k));
                if (e == NULL || !advertises(d, saw_list, e))
                    world_violation("LDP_LOADER_9",
                                    "slot %u: vkCreateInstance received extension %s, which the "
                                    "driver did not advertise",
                                    s, e ? e : "(null)");
            }
            /* LDP_LOADER_7 */
            if (!is_1_0_known) {
                is_1_0 = slot_is_1_0(w, s, sr);
                is_1_0_known = true;
            }
            if (is_1_0 == 1) {
                uint32_t raw = (uint32_t)rec_num(r, "api_version_raw", 0);
                if (raw != 0 && !(VK_API_VERSION_VARIANT(raw) == 0 && VK_API_VERSION_MAJOR(raw) == 1 &&
                                  VK_API_VERSION_MINOR(raw) == 0))
                    world_violation("LDP_LOADER_7",
                                    "slot %u: a Vulkan 1.0 driver received apiVersion %u.%u.%u "
                                    "(variant %u)",
                                    s, VK_API_VERSION_MAJOR(raw), VK_API_VERSION_MINOR(raw),
                                    VK_API_VERSION_PATCH(raw), VK_API_VERSION_VARIANT(raw));
            }
            if (rec_result(r) == VK_SUCCESS) creates_ok++;
        }
        if (rec_is(r, "vkDestroyInstance") && !rec_bool(r, "null")) {
            if (!rec_bool(r, "valid"))
                world_violation("handles", "slot %u: vkDestroyInstance of an instance the driver "
                                           "does not own (double destroy?)", s);
            destroys++;
        }
        if (rec_is(r, "vkCreateDevice") && rec_result(r) == VK_SUCCESS) dev_ok++;
        if (rec_is(r, "vkDestroyDevice")) {
            if (!rec_bool(r, "valid"))
                world_violation("handles", "slot %u: vkDestroyDevice of a device the driver does "
                                           "not own (double destroy?)", s);
            dev_destroys++;
        }
    }
    if (g_layer_chaos) return;
    if (creates_ok != destroys)
        world_violation("leaks", "slot %u: %ld driver instances created, %ld destroyed", s,
                        creates_ok, destroys);
    if (dev_ok != dev_destroys)
        world_violation("leaks", "slot %u: %ld driver devices created, %ld destroyed", s, dev_ok,
                        dev_destroys);
}

void oracle_check_final(const struct world *w, const struct w_records *rs) {
    g_layer_chaos = oracle_layer_called(w, rs, 2) || oracle_layer_called(w, rs, 5) ||
                    oracle_layer_called(w, rs, 3) || oracle_layer_called(w, rs, 4);
    for (uint32_t s = 0; s < w->ndrivers; s++) check_slot(w, s, &rs->s[s]);
}

void oracle_check_create(const struct world *w, const struct w_records *before,
                         const struct w_records *after, VkResult result, bool oom_possible) {
    (void)before;
    /* A layer in the chain decides what vkCreateInstance returns once it is called: one that
     * answers without calling down (no_call_down) succeeds with no driver instance, one that
     * clobbers *pInstance or fails makes it fail with its own result. Those results are the
     * layer's (mock_layers/README.md); what stays checked is that a failure leaves no driver
     * instance alive and that VK_ERROR_INCOMPATIBLE_DRIVER means no driver created one. */
    bool layer_called = oracle_layer_called(w, after, -1);
    bool layer_short_circuit = oracle_layer_called(w, after, 5) || oracle_layer_called(w, after, 2);
    long ok = 0, destroyed = 0;
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        for (size_t i = before->s[s].n; i < after->s[s].n; i++) {
            const struct w_rec *r = &after->s[s].r[i];
            if (rec_is(r, "vkCreateInstance") && rec_result(r) == VK_SUCCESS) ok++;
            if (rec_is(r, "vkDestroyInstance") && !rec_bool(r, "null") && rec_bool(r, "valid"))
                destroyed++;
        }
    }
    long live = ok - destroyed;
    switch ((int)result) {
        case VK_SUCCESS:
            if (live < 1 && !layer_short_circuit)
                world_violation("LDP_LOADER_1",
                                "vkCreateInstance returned VK_SUCCESS but no driver instance is "
                                "alive (%ld created, %ld destroyed)",
                                ok, destroyed);
            break;
        case VK_ERROR_INCOMPATIBLE_DRIVER:
            if (ok != 0)
                world_violation("LDP_LOADER_1",
                                "vkCreateInstance returned VK_ERROR_INCOMPATIBLE_DRIVER although "
                                "%ld driver(s) created an instance",
                                ok);
            break;
        case VK_ERROR_OUT_OF_HOST_MEMORY:
            if (!oom_possible)
                world_violation("LDP_LOADER_1",
                                "vkCreateInstance returned VK_ERROR_OUT_OF_HOST_MEMORY with no "
                                "allocation failure anywhere");
            /* fall through */
        case VK_ERROR_EXTENSION_NOT_PRESENT:
        case VK_ERROR_LAYER_NOT_PRESENT:
            if (live != 0)
                world_violation("leaks",
                                "vkCreateInstance failed with %d but left %ld driver instance(s) "
                                "alive",
                                (int)result, live);
            break;
        default:
            if (!layer_called)
                world_violation("LDP_LOADER_1", "vkCreateInstance returned the unexpected result %d",
                                (int)result);
            if (live != 0 && !layer_short_circuit)
                world_violation("leaks",
                                "vkCreateInstance failed with %d (a layer's answer) but left %ld "
                                "driver instance(s) alive",
                                (int)result, live);
    }
}

int oracle_slot_interface(const struct w_records *rs, uint32_t slot) {
    int iface = -1;
    if (slot >= W_MAX_DRIVERS) return -1;
    for (size_t i = 0; i < rs->s[slot].n; i++) {
        const struct w_rec *r = &rs->s[slot].r[i];
        if (rec_is(r, "vkCreateInstance") && rec_result(r) == VK_SUCCESS)
            iface = (int)rec_num(r, "interface", -1);
    }
    return iface;
}

void oracle_check_elevated(const struct world *w, const struct w_records *rs) {
    if (!w->elevated) return;
    if (g_world_dlopen_attempts != 0)
        world_violation("LDP_LOADER_13",
                        "elevated: the loader tried to load %u librar%s from the user-controlled "
                        "world (last: %s)",
                        g_world_dlopen_attempts, g_world_dlopen_attempts == 1 ? "y" : "ies",
                        g_world_dlopen_last);
    for (uint32_t s = 0; s < w->ndrivers; s++)
        if (rs->s[s].file_exists)
            world_violation("LDP_LOADER_13", "elevated: the driver in slot %u (a user path) was called",
                            s);
    /* every layer location of the world is a user path (VK_*LAYER_PATH, XDG_*, HOME) */
    for (uint32_t i = 0; i < w->nlayers; i++)
        if (rs->l[i].file_exists)
            world_violation("LLP_LOADER_13",
                            "elevated: the layer %s in slot %u (%s, a user path) was called",
                            w_layer_name(&w->l[i]), i, w->l[i].manifest_abs);
}

/* ------------------------------------------------------------------------------------------ */
/* Layers                                                                                      */

static size_t count_calls(const struct w_slot_recs *sr, const char *call) {
    size_t n = 0;
    for (size_t i = 0; i < sr->n; i++) n += rec_is(&sr->r[i], call);
    return n;
}

bool oracle_layer_called(const struct world *w, const struct w_records *rs, int bit) {
    for (uint32_t i = 0; i < w->nlayers; i++) {
        if (bit >= 0 && !((w->l[i].misbehave >> bit) & 1)) continue;
        if (count_calls(&rs->l[i], "vkCreateInstance") > 0) return true;
    }
    return false;
}

/* Is `name` enabled some way other than the implicit-layer switches: named by the application,
 * possibly by VK_INSTANCE_LAYERS or VK_LOADER_LAYERS_ENABLE (any value: not modelled), or a
 * component of a meta layer of the world? */
static bool enabled_otherwise(const struct world *w, const char *name) {
    for (uint32_t i = 0; i < w->app_layer_count; i++)
        if (w->app_layer[i] && strcmp(w->app_layer[i], name) == 0) return true;
    if (getenv("VK_INSTANCE_LAYERS") != NULL || getenv("VK_LOADER_LAYERS_ENABLE") != NULL) return true;
    for (uint32_t i = 0; i < w->nlayers; i++) {
        const struct w_layer *m = &w->l[i];
        if (!m->meta) continue;
        for (int k = 0; k < W_LAYER_NAMES; k++)
            if ((m->components & (1u << k)) && strcmp(w_layer_names[k], name) == 0) return true;
    }
    return false;
}

void oracle_check_layers(const struct world *w, const struct w_records *rs) {
    bool chaos = oracle_layer_called(w, rs, 2); /* no_advance_link: a layer below runs twice */
    for (uint32_t i = 0; i < w->nlayers; i++) {
        const struct w_layer *l = &w->l[i];
        const struct w_slot_recs *sr = &rs->l[i];
        const char *name = w_layer_name(l);
        size_t creates = count_calls(sr, "vkCreateInstance");

        /* LLP_LOADER_5: after a negotiation the loader must reject, nothing more of the layer */
        bool rejected = false;
        size_t at = 0;
        for (size_t k = 0; k < sr->n; k++) {
            const struct w_rec *r = &sr->r[k];
            if (rec_is(r, "vkNegotiateLoaderLayerInterfaceVersion")) {
                rejected = (l->misbehave & 1) || ((l->misbehave & 2) && l->negotiate_version > 2);
                at = k;
                continue;
            }
            if (rejected)
                world_violation("LLP_LOADER_5",
                                "layer %s (slot %u, %s): %s called after the negotiation in record "
                                "%zu, which the loader must reject",
                                name, i, world_layer_variant_name(l->variant), r->call, at);
        }

        /* LLP_LOADER_3: one vkCreateInstance per layer per instance (the run creates one) */
        if (creates > 1 && !chaos)
            world_violation("LLP_LOADER_3",
                            "layer %s (slot %u): vkCreateInstance reached %zu times for one instance "
                            "(duplicates must collapse)",
                            name, i, creates);
        /* ... and of several manifests with one name, at most one is used */
        for (uint32_t j = 0; j < i && creates > 0; j++)
            if (strcmp(w_layer_name(&w->l[j]), name) == 0 && count_calls(&rs->l[j], "vkCreateInstance") > 0)
                world_violation("LLP_LOADER_3",
                                "layer %s: the manifests of slots %u and %u (same name) were both "
                                "used",
                                name, j, i);

        /* LLP_LOADER_6/7: an implicit layer runs only while its enable variable holds, never while
         * its disable variable is set (non-empty) -- unless something else enables it */
        if (creates == 0 || !l->implicit || l->meta || enabled_otherwise(w, name)) continue;
        if (l->has_enable_env) {
            const char *v = getenv(l->enable_var);
            if (v == NULL || strcmp(v, "1") != 0)
                world_violation("LLP_LOADER_6",
                                "implicit layer %s (slot %u) ran although its enable_environment %s "
                                "is %s%s%s",
                                name, i, l->enable_var, v ? "\"" : "unset", v ? v : "", v ? "\"" : "");
        }
        if (l->has_disable_env) {
            const char *v = getenv(l->disable_var);
            if (v != NULL && v[0] != '\0')
                world_violation("LLP_LOADER_7",
                                "implicit layer %s (slot %u) ran although its disable_environment %s "
                                "is set to \"%s\"",
                                name, i, l->disable_var, v);
        }
    }
}
