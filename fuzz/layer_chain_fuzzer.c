/*
 * layer_chain_fuzzer: the whole loader, in process, focused on the layer chain.
 *
 * Each input (fuzz/FRAMING.md "layer_chain_fuzzer") picks 1-2 well-behaved mock drivers and up to
 * 8 mock layers (explicit, implicit, meta, override; each a mock layer variant, i.e. an interface
 * version and export surface, with misbehaviour switches and wrap options from the mock layer's
 * scenario; same-name duplicates found in other places), the layer-ordering inputs
 * (VK_INSTANCE_LAYERS, VK_LOADER_LAYERS_ENABLE / _DISABLE / _ALLOW, the layers' enable/disable
 * variables, the application's layer list), then runs the application of loader_world_fuzzer
 * (fuzz/world/app.c): vkCreateInstance, physical devices, vkCreateDevice, commands and unknown
 * physical-device / device functions through the chain, destroy everything.
 *
 * Every layer slot appends its records to one file (world.chain_log), so besides every oracle of
 * loader_world_fuzzer (fuzz/world/oracle.c: LLP_LOADER_3/5/6/7/13, drivers' policies, allocation
 * leaks through the application's callbacks, no layer library left loaded) the chain oracle
 * (oracle_check_chain) checks the global order: duplicates collapse (LLP_LOADER_3), the chain order
 * follows the activation order (RULE_LYR_ORDER), a filtered-out layer records nothing
 * (RULE_LYR_FILTER_DISABLE), and in a well-behaved chain every layer sees vkCreateInstance,
 * vkDestroyInstance, vkCreateDevice and vkDestroyDevice exactly once each, in chain order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_target.h"
#include "fuzz/fuzz_input.h"
#include "fuzz/world/world.h"

/* indexes into w_env_names (world.c) */
enum { ENV_LAYERS_ENABLE = 13, ENV_LAYERS_DISABLE = 14, ENV_INSTANCE_LAYERS = 15, ENV_LAYERS_ALLOW = 16 };

/* A layer name byte: < 0xf0 one of the 8 fuzz names, 0xf0..0xf7 the override layer, else a name no
 * manifest has. */
static const char *chain_name(uint8_t b) {
    if (b < 0xf0) return w_layer_names[b % W_LAYER_NAMES];
    return b < 0xf8 ? W_OVERRIDE_LAYER_NAME : "VK_LAYER_FUZZ_missing";
}

/* A filter variable: mask over the 8 names, then one special token (FRAMING.md). */
static void decode_filter(struct fz_in *in, struct world *w, int var) {
    uint8_t mask = fz_u8(in), special = fz_u8(in) % 8;
    if (mask == 0 && special == 0) return; /* unset (the world's default for it) */
    static const char *const specials[8] = {NULL,     "~all~", "~implicit~",          "~explicit~",
                                            "*FUZZ*", "*",     W_OVERRIDE_LAYER_NAME, NULL};
    char buf[256] = "";
    size_t n = 0;
    for (int k = 0; k < W_LAYER_NAMES; k++)
        if (mask & (1u << k)) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n ? "," : "", w_layer_names[k]);
    if (specials[special]) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n ? "," : "", specials[special]);
    w->env_mode[var] = special == 7 && mask == 0 ? W_ENV_EMPTY : W_ENV_VALUE;
    if (w->env_mode[var] == W_ENV_VALUE) w->env_value[var] = strdup(buf);
}

/* A duplicate: everything but the variant, the place (location, library form) and the manifest
 * format comes from `o`. */
static void copy_behaviour(struct w_layer *l, const struct w_layer *o) {
    l->name = o->name;
    l->implicit = o->implicit;
    l->meta = o->meta;
    l->override_layer = o->override_layer;
    l->has_enable_env = o->has_enable_env;
    l->has_disable_env = o->has_disable_env;
    l->set_enable = o->set_enable;
    l->set_disable = o->set_disable;
    l->odd_values = o->odd_values;
    l->components = o->components;
    l->blacklist = o->blacklist;
    l->misbehave = o->misbehave;
    l->negotiate_version = o->negotiate_version;
    l->wrap_handles = o->wrap_handles;
    l->pre_instance = o->pre_instance;
    l->pre_add_extension = o->pre_add_extension;
    l->pre_add_layer = o->pre_add_layer;
    l->pre_no_call_down = o->pre_no_call_down;
}

static void chain_decode(const uint8_t *data, size_t size, struct world *w) {
    struct fz_in in = {data, size};
    memset(w, 0, sizeof(*w));
    w->chain_log = true;
    uint8_t flags = fz_u8(&in);
    w->use_allocator = flags & 1;
    w->create_device = flags & 2;
    w->app_info = flags & 4;
    w->api_version = w->app_info ? VK_API_VERSION_1_3 : 0;
    bool unknown = flags & 8;
    w->unknown_physdev_calls = w->unknown_device_calls = unknown;
    w->elevated = flags & 16;
    w->chdir_root = flags & 32;
    bool alloc_fail = flags & 64;
    bool debug_utils = flags & 128;

    /* drivers: well-behaved scenarios, generated manifests */
    w->ndrivers = 1 + fz_pick(&in, 2);
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        struct w_driver *d = &w->d[s];
        d->variant = fz_pick(&in, (uint32_t)world_variant_count());
        uint8_t place = fz_u8(&in);
        d->location = place & 7;
        d->libform = (place >> 3) & 3;
        uint8_t pd = fz_u8(&in);
        d->manifest = malloc(4);
        if (d->manifest) {
            d->manifest[0] = 0; /* file_format_version 1.0.0 */
            d->manifest[1] = 3; /* api_version 1.3.0 */
            d->manifest[2] = 0;
            d->manifest[3] = '\0';
            d->manifest_len = 3;
        }
        struct w_scenario *sc = &d->sc;
        sc->if_min = 0;
        sc->if_max = 7;
        sc->api_version = VK_MAKE_API_VERSION(0, 1, 3, 0);
        sc->inst_ext_mask = debug_utils ? (1u << 3) | 1u : 1u;
        sc->pd_count = 1 + (pd & 1);
        for (uint32_t i = 0; i < sc->pd_count; i++) {
            sc->pd[i].api_version = VK_MAKE_API_VERSION(0, 1, (pd >> 1) & 3, 0);
            sc->pd[i].families = 1;
        }
        sc->dev_funcs = sc->pd_funcs = unknown ? 2 : 0;
    }

    /* layers; a duplicate takes its name and behaviour from an earlier slot, keeps its own
     * variant, place and manifest format. Slots that share a name by chance are made duplicates of
     * the first slot with that name: the records carry only the name, so same-name slots must
     * behave alike for the oracle to know what the one the loader used did. */
    w->nlayers = fz_pick(&in, W_MAX_LAYERS + 1);
    for (uint32_t i = 0; i < w->nlayers; i++) {
        struct w_layer *l = &w->l[i];
        uint8_t dup = fz_u8(&in);
        world_decode_layer(&in, l, true);
        if ((dup & 0x80) && i > 0) copy_behaviour(l, &w->l[(dup & 0x7f) % i]);
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(w_layer_name(&w->l[j]), w_layer_name(l)) == 0) {
                copy_behaviour(l, &w->l[j]);
                break;
            }
    }
    if (world_layer_variant_count() == 0) w->nlayers = 0;

    /* ordering inputs */
    uint8_t il = fz_u8(&in);
    if (il != 0) {
        char buf[512] = "";
        size_t n = 0;
        for (uint32_t i = 0, cnt = 1 + (il - 1u) % 4; i < cnt; i++)
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n ? ":" : "", chain_name(fz_u8(&in)));
        w->env_mode[ENV_INSTANCE_LAYERS] = W_ENV_VALUE;
        w->env_value[ENV_INSTANCE_LAYERS] = strdup(buf);
    }
    decode_filter(&in, w, ENV_LAYERS_ENABLE);
    decode_filter(&in, w, ENV_LAYERS_DISABLE);
    decode_filter(&in, w, ENV_LAYERS_ALLOW);

    /* the application */
    w->app_layer_count = fz_pick(&in, W_MAX_APP_LAYERS + 1);
    for (uint32_t i = 0; i < w->app_layer_count; i++) w->app_layer[i] = strdup(chain_name(fz_u8(&in)));
    w->pd_choice = fz_u8(&in);
    if (alloc_fail) w->alloc_fail_at = fz_u8(&in);
    /* malloc failures of the loader (FRAMING.md "mfail"), trailing like the world's */
    world_decode_mfail(&in, w);
    w->ndecoded = w->ndrivers;
    for (uint32_t s = 0; s < W_MAX_DRIVERS; s++) w->d[s].clone_of = -1;
    w->queue_count = 1;
    w->msg_severity = 0x1111u;
    w->msg_types = 7;
    if (debug_utils) {
        w->app_ext_count = 1;
        w->app_ext[0] = strdup("VK_EXT_debug_utils");
        w->app_messenger = w->dbg_utils_pnext = true;
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) { return world_fuzz_initialize(argc, argv, "layer_chain_fuzzer"); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return world_fuzz_one(data, size, chain_decode, oracle_check_chain);
}
