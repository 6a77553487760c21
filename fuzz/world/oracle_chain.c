/*
 * The layer chain oracle (layer_chain_fuzzer, chain_log worlds): the order of the layers in the
 * instance and device chains against the activation order (RULE_LYR_ORDER), implicit layers in
 * discovery order (search-path order, then file name), and which layers must have run.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/world/oracle_internal.h"
#include "fuzz/world/world.h"
#include "loader/internal/json.h"

/* ------------------------------------------------------------------------------------------ */
/* The layer chain (layer_chain_fuzzer, chain_log worlds)                                      */

/* A position in the activation order (docs/architecture.md, RULE_LYR_ORDER): class 0 implicit,
 * 1 VK_INSTANCE_LAYERS, 2 VK_LOADER_LAYERS_ENABLE, 3 the application; then the index in that
 * list, then the index among a meta layer's components. Every layer that ran gets the range of
 * the positions any source could have given it; A above B in the chain is a violation only when
 * the lowest position of A lies after the highest of B, so no source left unmodelled (a meta
 * layer named twice, an override layer) can raise a false alarm. */
struct chain_pos {
    uint32_t lo, hi;
    bool any;
};
#define CHAIN_KEY(cls, idx, sub) (((uint32_t)(cls) << 16) | ((uint32_t)(idx) << 8) | (uint32_t)(sub))

static void pos_add(struct chain_pos *p, uint32_t lo, uint32_t hi) {
    if (!p->any || lo < p->lo) p->lo = lo;
    if (!p->any || hi > p->hi) p->hi = hi;
    p->any = true;
}

static int name_index(const char *name) {
    for (int k = 0; k < W_LAYER_NAMES; k++)
        if (strcmp(w_layer_names[k], name) == 0) return k;
    return strcmp(name, W_OVERRIDE_LAYER_NAME) == 0 ? W_LAYER_NAMES : -1;
}

/* Name k (W_LAYER_NAMES: the override layer) as a source of class `cls` at list index `idx`:
 * the layer itself, or, where k names a meta layer, its components (nested metas: anywhere in
 * the meta's span). */
static void pos_source(const struct world *w, struct chain_pos pos[W_LAYER_NAMES + 1], int k, uint32_t cls,
                       uint32_t idx) {
    const char *name = k == W_LAYER_NAMES ? W_OVERRIDE_LAYER_NAME : w_layer_names[k];
    int metas = 0;
    for (uint32_t i = 0; i < w->nlayers; i++) {
        const struct w_layer *l = &w->l[i];
        if (strcmp(w_layer_name(l), name) != 0) continue;
        if (!l->meta) {
            pos_add(&pos[k], CHAIN_KEY(cls, idx, 0), CHAIN_KEY(cls, idx, 0));
            continue;
        }
        metas++;
    }
    if (metas == 0) return;
    for (uint32_t i = 0; i < w->nlayers; i++) {
        const struct w_layer *l = &w->l[i];
        if (!l->meta || strcmp(w_layer_name(l), name) != 0) continue;
        uint32_t sub = 0;
        for (int c = 0; c < W_LAYER_NAMES; c++) {
            if (!(l->components & (1u << c))) continue;
            sub++;
            bool nested = false;
            for (uint32_t j = 0; j < w->nlayers; j++)
                nested |= w->l[j].meta && strcmp(w_layer_name(&w->l[j]), w_layer_names[c]) == 0;
            if (nested || metas > 1 || k == W_LAYER_NAMES) {
                pos_add(&pos[c], CHAIN_KEY(cls, idx, 0), CHAIN_KEY(cls, idx, 255));
                /* and whatever the nested meta holds, anywhere in this span */
                for (int d = 0; d < W_LAYER_NAMES && nested; d++)
                    pos_add(&pos[d], CHAIN_KEY(cls, idx, 0), CHAIN_KEY(cls, idx, 255));
            } else {
                pos_add(&pos[c], CHAIN_KEY(cls, idx, sub), CHAIN_KEY(cls, idx, sub));
            }
        }
    }
}

/* The implicit-layer search list of the reference loader (docs/architecture.md "Layers",
 * loader/layer.c, spec §1.2 / [Lyr] "Linux Layer Discovery"): VK_IMPLICIT_LAYER_PATH alone when it
 * is set (even empty); otherwise VK_ADD_IMPLICIT_LAYER_PATH's entries, then $XDG_CONFIG_HOME (or
 * $HOME/.config), $XDG_CONFIG_DIRS, the system configuration directories, $XDG_DATA_HOME (or
 * $HOME/.local/share), $XDG_DATA_DIRS, each with /vulkan/implicit_layer.d. Only the entries that
 * can hold a world manifest matter, so the system directories and the XDG fallbacks are left out
 * (they lie outside the world). Entries are resolved as the loader saw them (relative ones against
 * R in chdir mode); `*n` counts what was stored. */
#define W_SEARCH_MAX 48
#define W_SEARCH_PATH (3 * W_PATH)
static void split_into(const char *list, const char *suffix, bool split, const struct world *w,
                       char out[][W_SEARCH_PATH], size_t *n) {
    for (const char *p = list; p != NULL && *p && *n < W_SEARCH_MAX;) {
        const char *e = split ? strchr(p, ':') : NULL;
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > 0 && len < W_PATH / 2) {
            char rel[W_PATH];
            snprintf(rel, sizeof rel, "%.*s%s", (int)len, p, suffix);
            if (rel[0] == '/')
                snprintf(out[*n], W_SEARCH_PATH, "%s", rel);
            else
                snprintf(out[*n], W_SEARCH_PATH, "%s/%s", w->chdir_root ? world_root() : ".", rel);
            (*n)++;
        }
        if (e == NULL) break;
        p = e + 1;
    }
}
static size_t implicit_search_list(const struct world *w, char out[W_SEARCH_MAX][W_SEARCH_PATH]) {
    size_t n = 0;
    const char *ov = getenv("VK_IMPLICIT_LAYER_PATH");
    if (ov != NULL) {
        split_into(ov, "", true, w, out, &n);
        return n;
    }
    split_into(getenv("VK_ADD_IMPLICIT_LAYER_PATH"), "", true, w, out, &n);
    static const char sfx[] = "/vulkan/implicit_layer.d";
    const char *home = getenv("HOME"), *v;
    char buf[W_PATH];
    if ((v = getenv("XDG_CONFIG_HOME")) != NULL && *v) {
        split_into(v, sfx, false, w, out, &n); /* one directory, ':' and all */
    } else if (home != NULL && *home) {
        snprintf(buf, sizeof buf, "%s/.config", home);
        split_into(buf, sfx, false, w, out, &n);
    }
    if ((v = getenv("XDG_CONFIG_DIRS")) != NULL && *v) split_into(v, sfx, true, w, out, &n);
    if ((v = getenv("XDG_DATA_HOME")) != NULL && *v) {
        split_into(v, sfx, false, w, out, &n);
    } else if (home != NULL && *home) {
        snprintf(buf, sizeof buf, "%s/.local/share", home);
        split_into(buf, sfx, false, w, out, &n);
    }
    if ((v = getenv("XDG_DATA_DIRS")) != NULL && *v) split_into(v, sfx, true, w, out, &n);
    return n;
}

/* Each implicit slot's place in the discovery order of the implicit layers, 0 first (rank[i]; -1:
 * not implicit, or not known). Discovery goes through the search list in order, and within a
 * directory through the file names in strcmp order (loader/fileio.c sorts the listing; [Drv] leaves
 * it to readdir). The first entry that finds a manifest decides its place. Unknown: an elevated
 * world (the path variables are ignored: nothing of the world is found), a list that may have been
 * cut, a manifest no entry finds. */
static void implicit_ranks(const struct world *w, int rank[W_MAX_LAYERS]) {
    for (uint32_t i = 0; i < W_MAX_LAYERS; i++) rank[i] = -1;
    if (w->elevated) return;
    static char list[W_SEARCH_MAX][W_SEARCH_PATH];
    size_t n = implicit_search_list(w, list);
    if (n >= W_SEARCH_MAX) return;
    char *real[W_SEARCH_MAX];
    for (size_t j = 0; j < n; j++) real[j] = realpath(list[j], NULL);
    uint32_t entry[W_MAX_LAYERS];
    const char *file[W_MAX_LAYERS];
    bool known[W_MAX_LAYERS] = {false};
    for (uint32_t i = 0; i < w->nlayers; i++) {
        const struct w_layer *l = &w->l[i];
        if (!l->implicit) continue;
        char dir[W_PATH];
        snprintf(dir, sizeof dir, "%s", l->manifest_abs);
        char *slash = strrchr(dir, '/');
        if (slash == NULL) continue;
        *slash = '\0';
        file[i] = l->manifest_abs + (slash + 1 - dir);
        char *rdir = realpath(dir, NULL), *rfile = realpath(l->manifest_abs, NULL);
        for (size_t j = 0; j < n && rdir != NULL; j++) {
            if (real[j] == NULL) continue; /* missing: nothing to find there, for the loader too */
            if (strcmp(real[j], rdir) == 0 || (rfile != NULL && strcmp(real[j], rfile) == 0)) {
                entry[i] = (uint32_t)j;
                known[i] = true;
                break;
            }
        }
        free(rdir);
        free(rfile);
    }
    for (size_t j = 0; j < n; j++) free(real[j]);
    for (uint32_t i = 0; i < w->nlayers; i++) {
        if (!known[i]) continue;
        int r = 0;
        for (uint32_t o = 0; o < w->nlayers; o++)
            if (o != i && known[o] && (entry[o] < entry[i] || (entry[o] == entry[i] && strcmp(file[o], file[i]) < 0)))
                r++;
        rank[i] = r;
    }
}

/* The filter variables as the harness writes them (tokens: names, ~all~, ~implicit~, ~explicit~,
 * *FUZZ*), read back from the environment; elevated worlds read them as unset (secure variables). */
static bool filter_has(const struct world *w, const char *var, const char *name, int implicit) {
    const char *v = w->elevated ? NULL : getenv(var);
    if (v == NULL || v[0] == '\0') return false;
    const char *p = v;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if ((n == 5 && memcmp(p, "~all~", 5) == 0) || (n == 1 && p[0] == '*') || (n == 2 && memcmp(p, "**", 2) == 0))
            return true;
        if (implicit == 1 && n == 10 && memcmp(p, "~implicit~", 10) == 0) return true;
        if (implicit == 0 && n == 10 && memcmp(p, "~explicit~", 10) == 0) return true;
        if (n == 6 && memcmp(p, "*FUZZ*", 6) == 0 && strstr(name, "FUZZ") != NULL) return true;
        if (n == strlen(name) && memcmp(p, name, n) == 0) return true;
        if (e == NULL) break;
        p = e + 1;
    }
    return false;
}

/* Is every manifest named `name` filtered out (RULE_LYR_FILTER_DISABLE: disabled and not allowed,
 * and not matched by VK_LOADER_LAYERS_ENABLE)? */
static bool filtered_out_everywhere(const struct world *w, const char *name) {
    bool seen = false;
    for (uint32_t i = 0; i < w->nlayers; i++) {
        const struct w_layer *l = &w->l[i];
        if (strcmp(w_layer_name(l), name) != 0) continue;
        seen = true;
        if (filter_has(w, "VK_LOADER_LAYERS_ENABLE", name, -1)) return false;
        if (!filter_has(w, "VK_LOADER_LAYERS_DISABLE", name, l->implicit ? 1 : 0)) return false;
        if (filter_has(w, "VK_LOADER_LAYERS_ALLOW", name, -1)) return false;
    }
    return seen;
}

/* The names of the records of `call`, in order (n: how many). */
static size_t chain_calls(const struct w_records *rs, const char *call, const char **out, size_t cap) {
    size_t n = 0;
    for (size_t k = 0; k < rs->chain.n; k++) {
        if (!rec_is(&rs->chain.r[k], call)) continue;
        if (n < cap) out[n] = vkl_json_string(vkl_json_get(rs->chain.r[k].root, "layer"));
        n++;
    }
    return n;
}

static void print_chain(const char *what, const char *const *names, size_t n) {
    fprintf(stderr, "  %s:", what);
    for (size_t i = 0; i < n; i++) fprintf(stderr, " %s", names[i] ? names[i] : "?");
    fprintf(stderr, "\n");
}

/* The records of `call` must be exactly the chain (each layer once, in chain order); with `prefix`,
 * a prefix of it (a create that failed part-way down). */
static void check_sequence(const struct w_records *rs, const char *call, const char *const *chain, size_t n,
                           bool prefix) {
    const char *got[2 * (W_MAX_LAYERS + 1)];
    size_t m = chain_calls(rs, call, got, sizeof got / sizeof got[0]);
    bool ok = prefix ? m <= n : m == n;
    for (size_t i = 0; ok && i < m; i++) ok = got[i] != NULL && strcmp(got[i], chain[i]) == 0;
    if (ok) return;
    print_chain("chain (vkCreateInstance order)", chain, n);
    print_chain(call, got, m < sizeof got / sizeof got[0] ? m : sizeof got / sizeof got[0]);
    world_violation("RULE_LYR_ORDER",
                    "%s reached the layers %s: %zu calls for a chain of %zu layers, or out of chain order", call,
                    prefix ? "beyond a prefix of the chain" : "other than once each in chain order", m, n);
}

void oracle_check_chain(const struct world *w, const struct w_records *rs) {
    if (!rs->chain_mode) return;
    const char *chain[2 * (W_MAX_LAYERS + 1)];
    size_t n = chain_calls(rs, "vkCreateInstance", chain, sizeof chain / sizeof chain[0]);
    size_t shown = n < sizeof chain / sizeof chain[0] ? n : sizeof chain / sizeof chain[0];
    bool chaos = oracle_layer_called(w, rs, 2);         /* no_advance_link: the layer below runs twice */
    const char *trace = getenv("VKL_FUZZ_CHAIN_TRACE"); /* =1: print every chain (triage) */
    if (trace != NULL && trace[0] == '1') {
        fprintf(stderr, "layer_chain: vkCreateInstance %d, device %s %d\n", (int)g_world_app.create_instance,
                g_world_app.device_attempted ? "attempted" : "not attempted", (int)g_world_app.create_device);
        print_chain("chain", chain, shown);
        const char *calls[2 * (W_MAX_LAYERS + 1)];
        static const char *const shown_calls[] = {"vkDestroyInstance", "vkCreateDevice", "vkDestroyDevice"};
        for (size_t c = 0; c < 3; c++) {
            size_t m = chain_calls(rs, shown_calls[c], calls, sizeof calls / sizeof calls[0]);
            print_chain(shown_calls[c], calls, m < sizeof calls / sizeof calls[0] ? m : sizeof calls / sizeof calls[0]);
        }
    }

    /* LLP_LOADER_3: duplicates collapse, whatever enabled them how often */
    for (size_t i = 0; i < shown && !chaos; i++)
        for (size_t j = 0; j < i; j++)
            if (chain[i] && chain[j] && strcmp(chain[i], chain[j]) == 0) {
                print_chain("chain (vkCreateInstance order)", chain, shown);
                world_violation("LLP_LOADER_3", "layer %s is in the chain twice (positions %zu and %zu)", chain[i], j,
                                i);
            }
    if (chaos || n > W_MAX_LAYERS + 1) return;

    /* filtered-out layers are never loaded: no record at all, not even a negotiation */
    for (int k = 0; k < W_LAYER_NAMES; k++) {
        const char *name = w_layer_names[k];
        if (!filtered_out_everywhere(w, name)) continue;
        for (size_t r = 0; r < rs->chain.n; r++) {
            const char *who = vkl_json_string(vkl_json_get(rs->chain.r[r].root, "layer"));
            if (who && strcmp(who, name) == 0)
                world_violation("RULE_LYR_FILTER_DISABLE",
                                "layer %s is filtered out by VK_LOADER_LAYERS_DISABLE (not allowed, not enabled) "
                                "but recorded %s",
                                name, rs->chain.r[r].call);
        }
    }

    /* the activation order (RULE_LYR_ORDER): implicit, VK_INSTANCE_LAYERS, ENABLE, application */
    struct chain_pos pos[W_LAYER_NAMES + 1];
    memset(pos, 0, sizeof pos);
    /* implicit layers among themselves: discovery order (implicit_ranks); a slot whose place in it
     * is not known may be anywhere in the implicit group */
    int rank[W_MAX_LAYERS];
    implicit_ranks(w, rank);
    for (uint32_t i = 0; i < w->nlayers; i++) {
        const struct w_layer *l = &w->l[i];
        if (!l->implicit) continue;
        int k = name_index(w_layer_name(l));
        if (k < 0) continue;
        if (rank[i] >= 0) {
            pos_source(w, pos, k, 0, (uint32_t)rank[i]);
        } else {
            pos_source(w, pos, k, 0, 0);
            pos_add(&pos[k], CHAIN_KEY(0, 0, 0), CHAIN_KEY(0, 255, 255));
            /* a meta layer's components too (nested meta layers: every name) */
            bool nested = false;
            for (uint32_t j = 0; j < w->nlayers && l->meta; j++)
                nested |= w->l[j].meta && (l->components & (1u << (w->l[j].name % W_LAYER_NAMES)));
            for (int c = 0; c < W_LAYER_NAMES && l->meta; c++)
                if (nested || (l->components & (1u << c))) pos_add(&pos[c], CHAIN_KEY(0, 0, 0), CHAIN_KEY(0, 255, 255));
        }
    }
    /* an implicit extra meta layer (FRAMING.md "widen") may place its leaf anywhere among them */
    if (w->nmetas > 0 && w->meta_leaf < W_LAYER_NAMES)
        pos_add(&pos[w->meta_leaf], CHAIN_KEY(0, 0, 0), CHAIN_KEY(0, 255, 255));
    /* the override layer's components (and blacklisted ones) are class-0 material wherever listed */
    const char *il = w->elevated ? NULL : getenv("VK_INSTANCE_LAYERS");
    if (il != NULL) {
        uint32_t idx = 0;
        for (const char *p = il; *p && idx < 200;) {
            const char *e = strchr(p, ':');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            char name[64];
            if (len > 0 && len < sizeof name) {
                memcpy(name, p, len);
                name[len] = '\0';
                int k = name_index(name);
                if (k >= 0) pos_source(w, pos, k, 1, idx);
            }
            idx++;
            if (e == NULL) break;
            p = e + 1;
        }
    }
    for (int k = 0; k <= W_LAYER_NAMES; k++) {
        const char *name = k == W_LAYER_NAMES ? W_OVERRIDE_LAYER_NAME : w_layer_names[k];
        if (filter_has(w, "VK_LOADER_LAYERS_ENABLE", name, -1)) {
            /* explicit layers (discovery order) and forced-on implicit ones (class 0) */
            pos_source(w, pos, k, 2, 0);
            pos_add(&pos[k], CHAIN_KEY(0, 0, 0), CHAIN_KEY(2, 255, 255));
        }
    }
    for (uint32_t i = 0; i < w->app_layer_count; i++) {
        int k = w->app_layer[i] ? name_index(w->app_layer[i]) : -1;
        if (k >= 0) pos_source(w, pos, k, 3, i);
    }
    /* an override layer anywhere makes its components implicit-class material too */
    for (uint32_t i = 0; i < w->nlayers; i++)
        if (w->l[i].override_layer) pos_source(w, pos, W_LAYER_NAMES, 0, 255);

    for (size_t j = 0; j < n; j++) {
        int kb = chain[j] ? name_index(chain[j]) : -1;
        if (kb < 0) continue;
        for (size_t i = 0; i < j; i++) {
            int ka = chain[i] ? name_index(chain[i]) : -1;
            if (ka < 0 || !pos[ka].any || !pos[kb].any) continue;
            if (pos[ka].lo > pos[kb].hi) {
                print_chain("chain (vkCreateInstance order, application side first)", chain, n);
                world_violation("RULE_LYR_ORDER",
                                "layer %s (position class %u, index %u) is above layer %s (class %u, index %u) in "
                                "the chain: implicit layers, then VK_INSTANCE_LAYERS, then VK_LOADER_LAYERS_ENABLE, "
                                "then the application's list",
                                chain[i], pos[ka].lo >> 16, (pos[ka].lo >> 8) & 255, chain[j], pos[kb].hi >> 16,
                                (pos[kb].hi >> 8) & 255);
            }
        }
    }

    /* A well-behaved chain: every layer sees every create/destroy exactly once, in chain order. */
    for (size_t i = 0; i < n; i++) {
        int slot = slot_of_name(w, chain[i]);
        if (slot < 0 || w->l[slot].misbehave != 0) return;
    }
    if (g_world_app.create_instance != VK_SUCCESS || n == 0) return;
    check_sequence(rs, "vkDestroyInstance", chain, n, false);
    if (g_world_app.device_attempted) {
        bool ok = g_world_app.create_device == VK_SUCCESS;
        check_sequence(rs, "vkCreateDevice", chain, n, !ok);
        check_sequence(rs, "vkDestroyDevice", chain, ok ? n : 0, false);
    }
}
