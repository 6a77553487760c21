/*
 * Decoding an input into a world (fuzz/FRAMING.md): the driver, layer, widening and
 * allocation-failure entries, and freeing what a decoded world holds.
 */
#include "fuzz/world/world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_input.h"
#include "fuzz/world/world_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* Decoding (FRAMING.md)                                                                       */

static char *str8(struct fz_in *in) {
    size_t n;
    const uint8_t *p = fz_str8(in, &n);
    return fz_cstr(p, n);
}

static uint32_t version_from(uint8_t a) {
    /* bits 0-1 minor 0..3, bit 2: patch 0 or 204, bits 3-7 == 31: a raw odd value */
    if ((a >> 3) == 31) return 0x00400000u | ((uint32_t)a << 24); /* variant/major garbage */
    return VK_MAKE_API_VERSION(0, 1, a & 3, (a & 4) ? 204 : 0);
}

static void decode_scenario(struct fz_in *in, struct w_scenario *sc) {
    uint8_t iface = fz_u8(in);
    sc->if_min = (iface & 0x0f) % 9;
    sc->if_max = (iface >> 4) % 9;
    if (sc->if_max == 0 && sc->if_min == 0) sc->if_max = 7; /* the common case: any */
    uint8_t f = fz_u8(in);
    sc->has_negotiate_result = f & 1;
    sc->has_report_version = f & 2;
    sc->hide_eiv = f & 4;
    sc->record_lookups = f & 8;
    sc->groups = f & 16;
    bool dev_funcs = f & 32, pd_funcs = f & 64;
    if (sc->has_negotiate_result) sc->negotiate_result = w_inject_results[fz_pick(in, 8)];
    if (sc->has_report_version) sc->report_version = fz_u8(in) % 10;
    sc->api_version = version_from(fz_u8(in));
    sc->inst_ext_mask = fz_u8(in);
    sc->pd_count = fz_pick(in, W_MAX_PHYSDEVS + 1);
    for (uint32_t i = 0; i < sc->pd_count; i++) {
        uint8_t d = fz_u8(in);
        sc->pd[i].api_version = VK_MAKE_API_VERSION(0, 1, d & 3, 0);
        sc->pd[i].ext_mask = (d >> 2) & 15;
        sc->pd[i].families = 1 + (d >> 6);
    }
    sc->inject_count = fz_pick(in, W_MAX_INJECT + 1);
    for (uint32_t i = 0; i < sc->inject_count; i++) {
        sc->inject[i].cmd = (uint8_t)fz_pick(in, 10);
        sc->inject[i].result = w_inject_results[fz_pick(in, 8)];
    }
    sc->misbehave = fz_u16(in) & 0x1ff;
    sc->dev_funcs = dev_funcs ? 1 + fz_pick(in, 3) : 0;
    sc->pd_funcs = pd_funcs ? 1 + fz_pick(in, 3) : 0;
}

static void decode_widen(struct fz_in *in, struct world *w);

void world_decode(const uint8_t *data, size_t size, struct world *w) {
    struct fz_in in = {data, size};
    memset(w, 0, sizeof(*w));
    uint8_t flags = fz_u8(&in);
    w->elevated = flags & 1;
    w->chdir_root = flags & 2;
    w->use_allocator = flags & 4;
    w->dbg_utils_pnext = flags & 8;
    w->dbg_report_pnext = flags & 16;
    w->app_info = flags & 32;
    w->enum_groups = flags & 64;
    w->create_device = flags & 128;
    w->ndrivers = fz_pick(&in, W_MAX_DRIVERS + 1);
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        struct w_driver *d = &w->d[s];
        d->variant = fz_pick(&in, (uint32_t)g_variant_count);
        uint8_t place = fz_u8(&in);
        d->location = place & 7;
        d->libform = (place >> 3) & 3;
        d->stem = place >> 5;
        uint8_t mode = fz_u8(&in);
        d->raw_manifest = mode & 1;
        if (d->raw_manifest) {
            size_t n;
            const uint8_t *p = fz_str16(&in, &n);
            d->manifest = malloc(n + 1);
            if (d->manifest) {
                memcpy(d->manifest, p, n);
                d->manifest[n] = '\0';
                d->manifest_len = n;
            }
        } else {
            /* generated: three option bytes, kept in the manifest field until build time */
            d->manifest = malloc(4);
            if (d->manifest) {
                d->manifest[0] = (char)fz_u8(&in);
                d->manifest[1] = (char)fz_u8(&in);
                d->manifest[2] = (char)fz_u8(&in);
                d->manifest[3] = '\0';
                d->manifest_len = 3;
            }
        }
        decode_scenario(&in, &d->sc);
    }
    uint32_t nenv = fz_pick(&in, 8);
    for (uint32_t i = 0; i < nenv; i++) {
        uint32_t v = fz_pick(&in, W_ENV_VARS);
        uint32_t mode = fz_pick(&in, 4);
        free(w->env_value[v]);
        w->env_value[v] = NULL;
        if (mode == 0) {
            w->env_mode[v] = W_ENV_UNSET;
        } else if (mode == 1) {
            w->env_mode[v] = W_ENV_EMPTY;
        } else if (mode == 2) {
            /* a ':' list of world locations; stored as "\x01<mask>" and expanded at build time */
            w->env_mode[v] = W_ENV_VALUE;
            w->env_value[v] = malloc(3);
            if (w->env_value[v]) {
                w->env_value[v][0] = '\x01';
                w->env_value[v][1] = (char)(fz_u8(&in) | 0); /* may be 0: an empty list */
                w->env_value[v][2] = '\0';
            }
        } else {
            w->env_mode[v] = W_ENV_VALUE;
            w->env_value[v] = str8(&in);
        }
    }
    /* application */
    uint8_t api = fz_u8(&in);
    static const uint32_t apis[6] = {0,
                                     VK_API_VERSION_1_0,
                                     VK_API_VERSION_1_1,
                                     VK_API_VERSION_1_2,
                                     VK_API_VERSION_1_3,
                                     VK_MAKE_API_VERSION(0, 1, 4, 0)};
    w->api_version = api < 6 ? apis[api] : api < 250 ? apis[api % 6] : fz_u32(&in);
    uint8_t iflags = fz_u8(&in);
    w->inst_flags =
        ((iflags & 1) ? VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR : 0) | ((iflags & 0x80) ? 0x10u : 0);
    w->app_ext_count = fz_pick(&in, W_MAX_APP_EXTS + 1);
    for (uint32_t i = 0; i < w->app_ext_count; i++) {
        uint8_t e = fz_u8(&in);
        if (e < 8)
            w->app_ext[i] = strdup(w_inst_ext_names[e]);
        else if (e < 0xf0)
            w->app_ext[i] = strdup(e % 3 == 0   ? "VK_MOCK_unpublished_extension"
                                   : e % 3 == 1 ? "VK_KHR_wayland_surface"
                                                : w_inst_ext_names[e % 8]);
        else
            w->app_ext[i] = str8(&in);
    }
    w->app_layer_count = fz_pick(&in, W_WORLD_APP_LAYERS + 1);
    for (uint32_t i = 0; i < w->app_layer_count; i++) w->app_layer[i] = str8(&in);
    uint8_t q = fz_u8(&in);
    if (q & 1) w->eiep_layer = str8(&in);
    w->eiep_short = q & 2;
    w->pd_short = q & 4;
    w->devext_with_layer = q & 8;
    w->app_messenger = q & 16;
    w->unknown_physdev_calls = q & 32;
    w->unknown_device_calls = q & 64;
    w->pd_choice = fz_u8(&in);
    w->queue_family = fz_u8(&in) % 6;
    w->queue_count = 1 + fz_pick(&in, 3);
    w->dev_ext_count = fz_pick(&in, W_MAX_DEV_EXTS + 1);
    for (uint32_t i = 0; i < w->dev_ext_count; i++) {
        uint8_t e = fz_u8(&in);
        w->dev_ext[i] = e < 0xf0 ? strdup(w_dev_ext_names[e % 4]) : str8(&in);
    }
    w->alloc_fail_at = fz_u8(&in);
    uint8_t m = fz_u8(&in);
    w->msg_severity =
        (m & 15)
            ? (uint32_t)(((m & 1) ? 0x1 : 0) | ((m & 2) ? 0x10 : 0) | ((m & 4) ? 0x100 : 0) | ((m & 8) ? 0x1000 : 0))
            : 0x1111u;
    w->msg_types = (m >> 4) & 15 ? (m >> 4) & 15 : 7;
    w->lookup_name = str8(&in);
    /* layers (FRAMING.md): after the application, so inputs without them have none */
    w->nlayers = fz_pick(&in, W_WORLD_LAYERS + 1);
    for (uint32_t i = 0; i < w->nlayers; i++) world_decode_layer(&in, &w->l[i], false);
    /* Without the mock layers (an old bundle) the world has none. */
    if (g_layer_variant_count == 0) w->nlayers = 0;
    w->ndecoded = w->ndrivers;
    for (uint32_t s = 0; s < W_MAX_DRIVERS; s++) w->d[s].clone_of = -1;
    /* malloc failures, then the widening: trailing, so every older input decodes as before */
    world_decode_mfail(&in, w);
    decode_widen(&in, w);
}

void world_decode_mfail(struct fz_in *in, struct world *w) {
    w->mfail_count = fz_pick(in, W_MAX_MFAIL + 1);
    for (uint32_t i = 0; i < w->mfail_count; i++) {
        uint8_t c = fz_u8(in);
        uint16_t nth = fz_u16(in);
        w->mfail[i].call = (uint8_t)((c & 15) < WC_COUNT ? (c & 15) : WC_ANY);
        w->mfail[i].from_on = c & 0x80;
        w->mfail[i].nth = nth ? nth : 1;
    }
}

void world_meta_name(uint32_t k, char out[24]) { snprintf(out, 24, "VK_LAYER_FUZZ_m%02u", k % 100); }

bool world_driver_unusable(const struct w_driver *d) {
    return d->manifest_kind != WF_REGULAR && d->manifest_kind != WF_LINK ? true : d->raw_manifest ? false : d->nul != 0;
}

bool world_layer_unusable(const struct w_layer *l) {
    return (l->manifest_kind != WF_REGULAR && l->manifest_kind != WF_LINK) || l->nul != 0;
}

/* FRAMING.md "widen": driver clones, special files, extra meta layers, \u0000 escapes, a surface. */
static void decode_widen(struct fz_in *in, struct world *w) {
    uint32_t clones = fz_pick(in, W_MAX_DRIVERS - W_WORLD_DRIVERS + 1);
    if (w->ndecoded == 0) clones = 0;
    for (uint32_t k = 0; k < clones && w->ndrivers < W_MAX_DRIVERS; k++) {
        uint32_t from = k % w->ndecoded, s = w->ndrivers++;
        struct w_driver *d = &w->d[s];
        *d = w->d[from];
        d->clone_of = (int)from;
        d->manifest = malloc(w->d[from].manifest_len + 1);
        if (d->manifest) memcpy(d->manifest, w->d[from].manifest, w->d[from].manifest_len + 1);
    }
    uint32_t nft = fz_pick(in, 9);
    for (uint32_t i = 0; i < nft; i++) {
        uint8_t t = fz_u8(in), kind = (uint8_t)fz_pick(in, WF_KINDS);
        bool layer = t & 0x80, lib = t & 0x40;
        uint32_t n = layer ? w->nlayers : w->ndrivers;
        if (n == 0) continue;
        uint32_t slot = (t & 15) % n;
        if (layer) {
            if (lib)
                w->l[slot].lib_kind = kind;
            else
                w->l[slot].manifest_kind = kind;
        } else {
            if (lib)
                w->d[slot].lib_kind = kind;
            else
                w->d[slot].manifest_kind = kind;
        }
    }
    w->nmetas = fz_pick(in, W_MAX_EXTRA_METAS + 1);
    if (w->nmetas > 0) {
        w->meta_shape = fz_u8(in);
        w->meta_leaf = fz_u8(in);
        if ((w->meta_shape & 3) == 3)
            for (uint32_t k = 0; k < w->nmetas; k++) w->meta_masks[k] = fz_u8(in);
    }
    uint32_t nnul = fz_pick(in, 5);
    for (uint32_t i = 0; i < nnul; i++) {
        uint8_t t = fz_u8(in);
        uint8_t where = (uint8_t)((t >> 4) & 3 ? (t >> 4) & 3 : 1);
        bool layer = t & 0x80;
        uint32_t n = layer ? w->nlayers : w->ndrivers;
        if (n == 0) continue;
        if (layer)
            w->l[(t & 15) % n].nul = where;
        else
            w->d[(t & 15) % n].nul = where;
    }
    w->surface = fz_u8(in) & 1;
    /* the surface needs VK_KHR_surface and VK_KHR_xcb_surface (table entries 1 and 2) */
    for (int e = 1; e <= 2 && w->surface; e++) {
        bool have = false;
        for (uint32_t i = 0; i < w->app_ext_count; i++)
            have |= w->app_ext[i] && strcmp(w->app_ext[i], w_inst_ext_names[e]) == 0;
        if (have) continue;
        if (w->app_ext_count == W_MAX_APP_EXTS) {
            w->surface = false;
            break;
        }
        w->app_ext[w->app_ext_count++] = strdup(w_inst_ext_names[e]);
    }
}

void world_decode_layer(struct fz_in *in, struct w_layer *l, bool wide) {
    l->variant = fz_pick(in, (uint32_t)(g_layer_variant_count ? g_layer_variant_count : 1));
    uint8_t place = fz_u8(in);
    l->location = (place & 7) % W_LAYER_LOCATIONS;
    l->libform = (place >> 3) & 3;
    uint8_t kind = fz_u8(in);
    l->implicit = kind & 1;
    l->meta = kind & 2;
    l->override_layer = kind & 4;
    if (l->override_layer) l->implicit = l->meta = true;
    l->has_enable_env = kind & 8;
    l->has_disable_env = kind & 16;
    l->set_enable = kind & 32;
    l->set_disable = kind & 64;
    l->odd_values = kind & 128;
    uint8_t fmt = fz_u8(in);
    l->fmt_version = fmt & 7;
    l->layers_array = fmt & 8;
    l->api_minor = (fmt >> 4) & 3;
    l->pre_instance = fmt & 64;
    l->renames = fmt & 128;
    l->name = fz_pick(in, wide ? W_LAYER_NAMES : W_WORLD_LAYER_NAMES);
    uint8_t comps = fz_u8(in);
    l->components = wide && !l->override_layer ? comps : comps & 15;
    l->blacklist = comps >> 4;
    uint8_t mb = fz_u8(in);
    /* wide: bit 7 clear = well-behaved; else switch mb & 7, and with bit 6 also (mb >> 3) & 7 */
    l->misbehave = !wide          ? mb
                   : !(mb & 0x80) ? 0
                                  : (uint8_t)((1u << (mb & 7)) | ((mb & 0x40) ? 1u << ((mb >> 3) & 7) : 0));
    uint8_t sf = fz_u8(in);
    l->wrap_handles = sf & 1;
    l->pre_add_extension = sf & 4;
    l->pre_add_layer = sf & 8;
    l->pre_no_call_down = sf & 16;
    l->negotiate_version = sf >> 6;
}

void world_free(struct world *w) {
    for (uint32_t s = 0; s < W_MAX_DRIVERS; s++) free(w->d[s].manifest);
    for (uint32_t i = 0; i < W_MAX_LAYERS; i++) free(w->l[i].manifest);
    for (int i = 0; i < W_ENV_VARS; i++) free(w->env_value[i]);
    for (uint32_t i = 0; i < W_MAX_APP_EXTS; i++) free(w->app_ext[i]);
    for (uint32_t i = 0; i < W_MAX_APP_LAYERS; i++) free(w->app_layer[i]);
    for (uint32_t i = 0; i < W_MAX_DEV_EXTS; i++) free(w->dev_ext[i]);
    free(w->eiep_layer);
    free(w->lookup_name);
    memset(w, 0, sizeof(*w));
}
