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
 *  LDP_LOADER_6   vkCreateInstance never refuses an apiVersion (VK_ERROR_INCOMPATIBLE_DRIVER with no
 *                 driver called) while it loaded and accepted a driver: the loader reports 1.1+, and
 *                 the specification forbids that result for any apiVersion (readings.md)
 *  LDP_LOADER_10/11  a surface query reaches each driver with its own surface, or (interface < 3)
 *                 the loader's container; never another handle, never NULL; and (10) the query on
 *                 each listed physical device reaches the driver that reported it
 *  RULE_LYR_ORDER (oracle_check_chain, oracle_chain.c) the chain follows the activation order, implicit layers
 *                 among themselves in discovery order (search-path order, then file name)
 *  RULE_ADVERSARIAL_INPUT  a manifest that is a FIFO, a directory, a link loop, /dev/zero, empty or
 *                 holds a \u0000 escape in a string is never used (its driver or layer is never called)
 *  LDP_DRIVER_1   drivers are isolated (RTLD_LOCAL): corrupt_other_driver never finds another copy
 *  handles        the loader passes drivers only their own handles (no invalid_handle records)
 *  leaks          every driver instance/device created is destroyed exactly once
 *
 * The layer chain's order (oracle_check_chain) is oracle_chain.c; oracle_internal.h is what the two
 * share.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/world/oracle_internal.h"
#include "fuzz/world/world.h"
#include "loader/internal/json.h"
#include "loader/internal/manifest.h"
#include "loader/vkl_gen_results.h"

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

static void read_records(const char *path, uint32_t s, struct w_slot_recs *sr);

static void read_slot(const char *lib_abs, uint32_t s, struct w_slot_recs *sr) {
    char path[W_PATH + 8];
    snprintf(path, sizeof path, "%s.calls", lib_abs);
    read_records(path, s, sr);
}

static void push_rec(struct w_slot_recs *sr, const struct w_rec *r) {
    /* capacity: 64, then doubled whenever n reaches a power of two */
    if (sr->n == 0 || (sr->n >= 64 && (sr->n & (sr->n - 1)) == 0)) {
        size_t cap = sr->n ? sr->n * 2 : 64;
        struct w_rec *nr = realloc(sr->r, cap * sizeof(*nr));
        if (nr == NULL) abort();
        sr->r = nr;
    }
    sr->r[sr->n++] = *r;
}

/* The first layer slot named `name` (-1: none). */
int slot_of_name(const struct world *w, const char *name) {
    for (uint32_t i = 0; name != NULL && i < w->nlayers; i++)
        if (strcmp(w_layer_name(&w->l[i]), name) == 0) return (int)i;
    return -1;
}

struct w_records *oracle_read(const struct world *w) {
    struct w_records *rs = calloc(1, sizeof(*rs));
    if (rs == NULL) abort();
    for (uint32_t s = 0; s < w->ndrivers; s++) read_slot(w->d[s].lib_abs, s, &rs->s[s]);
    if (!w->chain_log) {
        for (uint32_t i = 0; i < w->nlayers; i++) read_slot(w->l[i].lib_abs, 100 + i, &rs->l[i]);
        return rs;
    }
    rs->chain_mode = true;
    read_records(world_chain_calls_path(), 100, &rs->chain);
    for (size_t k = 0; k < rs->chain.n; k++) {
        int slot = slot_of_name(w, vkl_json_string(vkl_json_get(rs->chain.r[k].root, "layer")));
        if (slot < 0)
            world_violation("harness", "a layer record names no layer of the world: call %s", rs->chain.r[k].call);
        rs->l[slot].file_exists = true;
        push_rec(&rs->l[slot], &rs->chain.r[k]);
    }
    return rs;
}

/* Reads one record file (s: for messages; layers are 100 + slot). */
static void read_records(const char *path, uint32_t s, struct w_slot_recs *sr) {
    {
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
                    world_violation("harness", "slot %u: unreadable call record '%.*s'", s, (int)(n > 200 ? 200 : n),
                                    line);
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
        for (size_t i = 0; i < rs->l[s].n && !rs->chain_mode; i++) vkl_json_free(rs->l[s].r[i].root);
        free(rs->l[s].r);
    }
    for (size_t i = 0; i < rs->chain.n; i++) vkl_json_free(rs->chain.r[i].root);
    free(rs->chain.r);
    free(rs);
}

size_t oracle_count(const struct w_records *rs, uint32_t slot) { return slot < W_MAX_DRIVERS ? rs->s[slot].n : 0; }

/* ------------------------------------------------------------------------------------------ */
/* Record fields                                                                               */

static VkResult rec_result(const struct w_rec *r) {
    const struct vkl_json *v = vkl_json_get(r->root, "result");
    if (vkl_json_is_number(v)) return (VkResult)(int32_t)vkl_json_number(v);
    const char *s = vkl_json_string(v);
    if (s == NULL) return VK_RESULT_MAX_ENUM;
    VkResult res; /* names from vk.xml (tools/vkgen: loader/vkl_gen_results.h) */
    return vkl_gen_result_from_name(s, &res) ? res : VK_RESULT_MAX_ENUM; /* unknown: not VK_SUCCESS anyway */
}

bool rec_is(const struct w_rec *r, const char *call) { return strcmp(r->call, call) == 0; }

static bool rec_bool(const struct w_rec *r, const char *key) { return vkl_json_bool(vkl_json_get(r->root, key)); }

static double rec_num(const struct w_rec *r, const char *key, double dflt) {
    const struct vkl_json *v = vkl_json_get(r->root, key);
    return vkl_json_is_number(v) ? vkl_json_number(v) : dflt;
}

/* ------------------------------------------------------------------------------------------ */
/* Per-slot knowledge                                                                          */

static bool negotiation_rejected(const struct w_driver *d, const struct w_rec *r) {
    VkResult res = rec_result(r);
    double returned = rec_num(r, "returned", -1);
    if (res != VK_SUCCESS) return true;
    if (returned > 7) return true;
    /* negotiated only through vk_icdGetInstanceProcAddr (interface 7): an answer below 7 is refused */
    if (!world_variant(d->variant)->negotiate && returned < 7) return true;
    return false;
}

/* Did the loader get the driver's extension list? It asks twice (count, then array: icd.c) and
 * uses the list when the count query returned VK_SUCCESS and the array query VK_SUCCESS or
 * VK_INCOMPLETE. Injected results make either fail, so read the answer off the records. */
static bool loader_saw_extensions(const struct w_slot_recs *sr) {
    for (size_t i = 0; i < sr->n; i++) {
        if (!rec_is(&sr->r[i], "vkEnumerateInstanceExtensionProperties") || rec_result(&sr->r[i]) != VK_SUCCESS)
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
    if ((d->sc.misbehave & (1u << 5)) && strcmp(ext, "VK_MOCK_unpublished_extension") == 0) return true;
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
        if (world_driver_unusable(&w->d[j])) continue;
        if (vkl_icd_manifest_parse(w->d[j].manifest_env, w->d[j].manifest, w->d[j].manifest_len, NULL, &m) !=
            VK_SUCCESS)
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
        if (VK_API_VERSION_VARIANT(api) == 0 && VK_API_VERSION_MAJOR(api) == 1 && VK_API_VERSION_MINOR(api) == 0)
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
            world_violation("handles", "slot %u: the loader passed %s a %s the driver does not own", s,
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
            bool negotiate_lookup = (rec_is(r, "vk_icdGetInstanceProcAddr") || rec_is(r, "vkGetInstanceProcAddr")) &&
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
        if (rec_is(r, "vkCreateInstance") && vkl_json_array_size(vkl_json_get(r->root, "layers")) != 0)
            world_violation("LDP_LOADER_12", "slot %u: vkCreateInstance received %zu layer names", s,
                            vkl_json_array_size(vkl_json_get(r->root, "layers")));

        if (rec_is(r, "vkCreateInstance")) {
            /* LDP_LOADER_9 */
            const struct vkl_json *exts = vkl_json_get(r->root, "extensions");
            VKL_JSON_FOR_EACH(x, exts) {
                const char *e = vkl_json_string(x);
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
                                    s, VK_API_VERSION_MAJOR(raw), VK_API_VERSION_MINOR(raw), VK_API_VERSION_PATCH(raw),
                                    VK_API_VERSION_VARIANT(raw));
            }
            if (rec_result(r) == VK_SUCCESS) creates_ok++;
        }
        if (rec_is(r, "vkDestroyInstance") && !rec_bool(r, "null")) {
            if (!rec_bool(r, "valid"))
                world_violation("handles",
                                "slot %u: vkDestroyInstance of an instance the driver "
                                "does not own (double destroy?)",
                                s);
            destroys++;
        }
        if (rec_is(r, "vkCreateDevice") && rec_result(r) == VK_SUCCESS) dev_ok++;
        if (rec_is(r, "vkDestroyDevice")) {
            if (!rec_bool(r, "valid"))
                world_violation("handles",
                                "slot %u: vkDestroyDevice of a device the driver does "
                                "not own (double destroy?)",
                                s);
            dev_destroys++;
        }
    }
    if (g_layer_chaos) return;
    if (creates_ok != destroys)
        world_violation("leaks", "slot %u: %ld driver instances created, %ld destroyed", s, creates_ok, destroys);
    if (dev_ok != dev_destroys)
        world_violation("leaks", "slot %u: %ld driver devices created, %ld destroyed", s, dev_ok, dev_destroys);
}

static const char *const k_file_kinds[WF_KINDS] = {
    "regular", "FIFO", "symbolic link loop", "directory", "link to /dev/zero", "dangling link", "link", "empty file"};
static const char *const k_nul_where[4] = {"", "library_path", "the \"ICD\"/\"layer\" key or name", "api_version"};

/* RULE_ADVERSARIAL_INPUT: a driver or layer whose only manifest the loader cannot use is never
 * called (a FIFO, a directory or /dev/zero read as a manifest; a string cut at a \u0000 escape). */
static void check_unusable(const struct world *w, const struct w_records *rs) {
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        const struct w_driver *d = &w->d[s];
        if (!world_driver_unusable(d) || !rs->s[s].file_exists) continue;
        world_violation("RULE_ADVERSARIAL_INPUT",
                        "driver slot %u was called although its manifest is %s%s%s (it must be rejected)", s,
                        d->manifest_kind != WF_REGULAR && d->manifest_kind != WF_LINK ? "a "
                                                                                      : "a manifest with a "
                                                                                        "\\u0000 escape in ",
                        d->manifest_kind != WF_REGULAR && d->manifest_kind != WF_LINK ? k_file_kinds[d->manifest_kind]
                                                                                      : k_nul_where[d->nul & 3],
                        "");
    }
    for (uint32_t i = 0; i < w->nlayers; i++) {
        const struct w_layer *l = &w->l[i];
        if (!world_layer_unusable(l) || !rs->l[i].file_exists || rs->l[i].n == 0) continue;
        bool other = false; /* chain mode: records go to the first slot of a name */
        for (uint32_t j = 0; j < w->nlayers && rs->chain_mode; j++)
            other |= j != i && !world_layer_unusable(&w->l[j]) && strcmp(w_layer_name(&w->l[j]), w_layer_name(l)) == 0;
        if (other) continue;
        world_violation(
            "RULE_ADVERSARIAL_INPUT",
            "layer slot %u (%s) was called although its manifest is %s%s (it must be rejected)", i, w_layer_name(l),
            l->manifest_kind != WF_REGULAR && l->manifest_kind != WF_LINK ? "a "
                                                                          : "a manifest with a \\u0000 escape in ",
            l->manifest_kind != WF_REGULAR && l->manifest_kind != WF_LINK ? k_file_kinds[l->manifest_kind]
                                                                          : k_nul_where[l->nul & 3]);
    }
}

/* LDP_LOADER_10/11: every surface query reaches a driver with its own surface (one it created) or,
 * below interface 3, the loader's VkIcdSurface container; the mock classifies the handle. */
static void check_surfaces(const struct world *w, const struct w_records *rs) {
    if (oracle_layer_called(w, rs, -1)) return; /* layers may wrap or replace handles */
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        const struct w_slot_recs *sr = &rs->s[s];
        for (size_t i = 0; i < sr->n; i++) {
            const struct w_rec *r = &sr->r[i];
            if (strncmp(r->call, "vkGetPhysicalDeviceSurface", 26) != 0) continue;
            const char *kind = vkl_json_string(vkl_json_get(r->root, "surface"));
            if (kind == NULL || strcmp(kind, "own") == 0 || strcmp(kind, "container") == 0) continue;
            world_violation(strcmp(kind, "null") == 0 ? "LDP_LOADER_10" : "LDP_LOADER_11",
                            "slot %u: %s received a %s surface handle (neither the driver's own surface nor, below "
                            "interface 3, the loader's container)",
                            s, r->call, kind);
        }
    }
}

/* LDP_LOADER_10: the surface the loader created is usable with every driver: the application's
 * vkGetPhysicalDeviceSurfaceSupportKHR on each physical device it listed reaches the driver that
 * reported that device, for that device (the mock records its index), whenever that driver
 * advertised VK_KHR_surface to the loader (the mock exposes its surface queries then). Not checked:
 * layers ran (they may answer or wrap), a query during which an allocation failure was injected
 * (VK_ERROR_OUT_OF_HOST_MEMORY without reaching the driver is right), a driver that exposes surface
 * functions without the extension (surface_without_interface_3), a device of no world slot. Which
 * handle the driver received is check_surfaces' business. */
static void check_surface_reach(const struct world *w, const struct w_records *rs) {
    if (!g_world_app.surface_queried || oracle_layer_called(w, rs, -1)) return;
    for (uint32_t i = 0; i < g_world_app.npd && i < 8; i++) {
        uint32_t slot = g_world_app.pd_vendor[i] - 0x10000u, dev = g_world_app.pd_device[i];
        if (slot >= w->ndrivers || (dev >> 8) != slot || (dev & 0xffu) == 0) continue;
        uint32_t index = (dev & 0xffu) - 1;
        const struct w_driver *d = &w->d[slot];
        const struct w_slot_recs *sr = &rs->s[slot];
        if (g_world_app.surface_injected[i] || (d->sc.misbehave & (1u << 6))) continue;
        if (!advertises(d, loader_saw_extensions(sr), "VK_KHR_surface")) continue;
        /* LDP_LOADER_11: a driver at interface 3 or later that made no surface of its own (it lacks
         * the platform's extension, or its creation failed) is answered for by the loader, never
         * given a handle it did not create. */
        int iface = -1;
        bool own_surface = false;
        for (size_t k = 0; k < sr->n; k++) {
            const char *name = sr->r[k].call;
            if (rec_is(&sr->r[k], "vkCreateInstance") && rec_result(&sr->r[k]) == VK_SUCCESS)
                iface = (int)rec_num(&sr->r[k], "interface", -1);
            size_t len = name != NULL ? strlen(name) : 0;
            if (len > 18 && strncmp(name, "vkCreate", 8) == 0 && strcmp(name + len - 10, "SurfaceKHR") == 0 &&
                rec_result(&sr->r[k]) == VK_SUCCESS)
                own_surface = true;
        }
        if (iface >= 3 && !own_surface) continue;
        bool reached = false;
        for (size_t k = 0; k < sr->n && !reached; k++)
            reached = rec_is(&sr->r[k], "vkGetPhysicalDeviceSurfaceSupportKHR") &&
                      rec_num(&sr->r[k], "physical_device", -1) == (double)index;
        if (!reached)
            world_violation("LDP_LOADER_10",
                            "vkGetPhysicalDeviceSurfaceSupportKHR on listed device %u (driver slot %u, its device %u; "
                            "the application got %d) never reached that driver, which advertised VK_KHR_surface",
                            i, slot, index, (int)g_world_app.surface_result[i]);
    }
}

void oracle_check_final(const struct world *w, const struct w_records *rs) {
    g_layer_chaos = oracle_layer_called(w, rs, 2) || oracle_layer_called(w, rs, 5) || oracle_layer_called(w, rs, 3) ||
                    oracle_layer_called(w, rs, 4);
    for (uint32_t s = 0; s < w->ndrivers; s++) check_slot(w, s, &rs->s[s]);
    check_unusable(w, rs);
    check_surfaces(w, rs);
    check_surface_reach(w, rs);
}

/* LDP_LOADER_6, read with the Vulkan specification (conformance/policies/readings.md): a loader that
 * reports instance version 1.1 or more must not return VK_ERROR_INCOMPATIBLE_DRIVER for any
 * apiVersion, so it never refuses one without calling a driver while it loaded and accepted a
 * driver (a Vulkan 1.0 driver receives 1.0, LDP_LOADER_7, checked elsewhere). Checked where the
 * records say enough: no layer ran, the drivers' versions are known. */
static void check_api_version(const struct world *w, const struct w_records *before, const struct w_records *after,
                              VkResult result) {
    if (oracle_layer_called(w, after, -1)) return;
    uint32_t want = w->app_info ? w->api_version : 0;
    uint32_t called = 0, accepted_unused = 0, unused_slot = 0;
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        bool got_create = false;
        for (size_t i = before->s[s].n; i < after->s[s].n; i++)
            if (rec_is(&after->s[s].r[i], "vkCreateInstance")) got_create = true;
        if (got_create) {
            called++;
            continue;
        }
        /* a Vulkan 1.x driver the loader loaded and accepted (its last negotiation succeeded at
         * interface >= 5, it answered the extension query) but never asked to create an instance */
        const struct w_slot_recs *sr = &after->s[s];
        const struct w_driver *d = &w->d[s];
        if (slot_is_1_0(w, s, sr) < 0 || d->sc.misbehave != 0 || d->sc.inject_count != 0 || world_driver_unusable(d))
            continue;
        bool accepted = false;
        for (size_t i = 0; i < sr->n; i++)
            if (rec_is(&sr->r[i], "vk_icdNegotiateLoaderICDInterfaceVersion"))
                accepted = !negotiation_rejected(d, &sr->r[i]) && rec_num(&sr->r[i], "returned", -1) >= 5;
        if (!accepted || !loader_saw_extensions(sr)) continue;
        /* a portability driver is a candidate only with the flag and the extension: not modelled */
        if (strstr(d->manifest ? d->manifest : "", "portability") != NULL) continue;
        accepted_unused++;
        unused_slot = s;
    }
    if (result == VK_ERROR_INCOMPATIBLE_DRIVER && called == 0 && accepted_unused > 0)
        world_violation("LDP_LOADER_6",
                        "vkCreateInstance refused apiVersion %u.%u.%u (VK_ERROR_INCOMPATIBLE_DRIVER, no driver called) "
                        "although driver slot %u is a driver at interface >= 5 the loader accepted: a loader "
                        "reporting Vulkan 1.1+ must not return that result for any apiVersion",
                        VK_API_VERSION_MAJOR(want), VK_API_VERSION_MINOR(want), VK_API_VERSION_PATCH(want),
                        unused_slot);
}

void oracle_check_create(const struct world *w, const struct w_records *before, const struct w_records *after,
                         VkResult result, bool oom_possible) {
    (void)before;
    /* A layer in the chain decides what vkCreateInstance returns once it is called: one that
     * answers without calling down (no_call_down) succeeds with no driver instance, one that
     * clobbers *pInstance or fails makes it fail with its own result. Those results are the
     * layer's (mock_layers/README.md); what stays checked is that a failure leaves no driver
     * instance alive and that VK_ERROR_INCOMPATIBLE_DRIVER means no driver created one. */
    bool layer_called = oracle_layer_called(w, after, -1);
    bool layer_short_circuit = oracle_layer_called(w, after, 5) || oracle_layer_called(w, after, 2);
    if (!oom_possible) check_api_version(w, before, after, result);
    long ok = 0, destroyed = 0;
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        for (size_t i = before->s[s].n; i < after->s[s].n; i++) {
            const struct w_rec *r = &after->s[s].r[i];
            if (rec_is(r, "vkCreateInstance") && rec_result(r) == VK_SUCCESS) ok++;
            if (rec_is(r, "vkDestroyInstance") && !rec_bool(r, "null") && rec_bool(r, "valid")) destroyed++;
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
                world_violation("LDP_LOADER_1", "vkCreateInstance returned VK_ERROR_OUT_OF_HOST_MEMORY with no "
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
                world_violation("LDP_LOADER_1", "vkCreateInstance returned the unexpected result %d", (int)result);
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
        if (rec_is(r, "vkCreateInstance") && rec_result(r) == VK_SUCCESS) iface = (int)rec_num(r, "interface", -1);
    }
    return iface;
}

void oracle_check_elevated(const struct world *w, const struct w_records *rs) {
    if (!w->elevated) return;
    if (g_world_dlopen_attempts != 0)
        world_violation("LDP_LOADER_13",
                        "elevated: the loader tried to load %u librar%s from the user-controlled "
                        "world (last: %s)",
                        g_world_dlopen_attempts, g_world_dlopen_attempts == 1 ? "y" : "ies", g_world_dlopen_last);
    for (uint32_t s = 0; s < w->ndrivers; s++)
        if (rs->s[s].file_exists)
            world_violation("LDP_LOADER_13", "elevated: the driver in slot %u (a user path) was called", s);
    /* every layer location of the world is a user path (VK_*LAYER_PATH, XDG_*, HOME) */
    for (uint32_t i = 0; i < w->nlayers; i++)
        if (rs->l[i].file_exists)
            world_violation("LLP_LOADER_13", "elevated: the layer %s in slot %u (%s, a user path) was called",
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
    /* the widening's extra meta layers may name one world layer (FRAMING.md "widen") */
    if (w->nmetas > 0 && w->meta_leaf < W_WORLD_LAYER_NAMES && strcmp(w_layer_names[w->meta_leaf], name) == 0)
        return true;
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
