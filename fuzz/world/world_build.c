/*
 * Writing a decoded world to disk and the environment: driver and layer manifests, mock scenarios,
 * special files (links, FIFOs, ...), meta layers and the environment variables (see world.h for the
 * layout); world_refresh() rewrites it between the runs of one input.
 */
#include "fuzz/world/world.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "fuzz/world/world_internal.h"
#include "loader/internal/env.h"

/* ------------------------------------------------------------------------------------------ */
/* A growable string                                                                           */

struct sb {
    char *p;
    size_t n, cap;
};

static void sb_add(struct sb *b, const char *s, size_t n) {
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 256) + n;
        char *p = realloc(b->p, cap);
        if (p == NULL) die("out of memory");
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}
static void sb_s(struct sb *b, const char *s) { sb_add(b, s, strlen(s)); }
static void sb_f(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_f(struct sb *b, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    sb_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}
/* JSON string literal */
static void sb_q(struct sb *b, const char *s) {
    sb_s(b, "\"");
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            sb_f(b, "\\%c", c);
        else if (c < 0x20)
            sb_f(b, "\\u%04x", c);
        else
            sb_add(b, (const char *)&c, 1);
    }
    sb_s(b, "\"");
}

/* A JSON string literal whose value ends in an escaped NUL (a "\u0000" escape) and `tail`: a
 * C reader that stops at the NUL sees only `s`. */
static void sb_q_nul(struct sb *b, const char *s, const char *tail) {
    sb_q(b, s);
    b->n--; /* drop the closing quote */
    b->p[b->n] = '\0';
    sb_s(b, "\\u0000");
    sb_s(b, tail);
    sb_s(b, "\"");
}

/* ------------------------------------------------------------------------------------------ */
/* Building                                                                                    */

/* A world path as the loader should see it: absolute, or relative to R in chdir mode. */
static void wpath(const struct world *w, char *out, const char *rel) {
    if (w->chdir_root)
        pathf(out, "w/%s", rel);
    else
        pathf(out, "%s/%s", g_wdir, rel);
}

static void gen_manifest(struct w_driver *d, struct sb *b) {
    uint8_t fmt = (uint8_t)d->manifest[0], api = (uint8_t)d->manifest[1], opt = (uint8_t)d->manifest[2];
    static const char *const fmts[8] = {"\"1.0.0\"", "\"1.0.1\"", "\"1.1.0\"", "\"1.0\"",
                                        "\"2.0.0\"", NULL,        "1",         "\"1.0.1 \""};
    sb_s(b, "{");
    if (fmts[fmt & 7]) sb_f(b, "\"file_format_version\": %s, ", fmts[fmt & 7]);
    if (opt & 0x10) sb_s(b, "\"vkl_fuzz_unknown\": {\"a\": [1, 2, null]}, ");
    if (d->nul == 2) sb_s(b, "\"ICD\\u0000x\": ");
    sb_s(b, (opt & 0x80) ? (d->nul == 2 ? "[{" : "\"ICD\": [{") : (d->nul == 2 ? "{" : "\"ICD\": {"));
    if (!(opt & 0x40)) {
        sb_s(b, "\"library_path\": ");
        if (d->nul == 1)
            sb_q_nul(b, d->lib_ref, "/nonexistent/evil.so");
        else
            sb_q(b, d->lib_ref);
        sb_s(b, ", ");
    }
    if (opt & 0x20) sb_s(b, "\"library_path\": \"/nonexistent/first_key_wins.so\", ");
    switch ((api >> 3) & 3) {
        case 0: sb_f(b, "\"api_version\": \"1.%u.%u\"", api & 7, (api >> 5) * 37); break;
        case 1: sb_f(b, "\"api_version\": \"0.1.%u.0\"", api & 7); break;
        case 2: sb_f(b, "\"api_version\": \"%u.0.0\"", (api & 1) ? 2 : 0); break;
        default: sb_f(b, "\"api_version\": \"1.%u\"", api & 7); break;
    }
    if (d->nul == 3) { /* "1.m.p\u0000" */
        b->n--;
        b->p[b->n] = '\0';
        sb_s(b, "\\u0000\"");
    }
    static const char *const arch[4] = {NULL, "\"64\"", "\"32\"", "\"amd64\""};
    if (arch[opt & 3]) sb_f(b, ", \"library_arch\": %s", arch[opt & 3]);
    static const char *const port[4] = {NULL, "false", "true", "\"true\""};
    if (port[(opt >> 2) & 3]) sb_f(b, ", \"is_portability_driver\": %s", port[(opt >> 2) & 3]);
    sb_s(b, (opt & 0x80) ? "}]}" : "}}");
    (void)fmt;
}

static void raw_manifest(struct w_driver *d, struct sb *b) {
    /* every "@LIB@" becomes the library path the placement computed */
    const char *p = d->manifest, *end = d->manifest + d->manifest_len;
    while (p < end) {
        const char *hit = memmem(p, (size_t)(end - p), "@LIB@", 5);
        if (hit == NULL) {
            sb_add(b, p, (size_t)(end - p));
            break;
        }
        sb_add(b, p, (size_t)(hit - p));
        sb_s(b, d->lib_ref);
        p = hit + 5;
    }
}

static void ext_array(struct sb *b, uint8_t mask, const char *const *names, int n) {
    sb_s(b, "[");
    bool first = true;
    for (int i = 0; i < n; i++) {
        if (!(mask & (1u << i))) continue;
        sb_f(b, "%s{\"name\": \"%s\", \"spec_version\": %d}", first ? "" : ", ", names[i], i + 1);
        first = false;
    }
    sb_s(b, "]");
}

static void gen_scenario(uint32_t slot, const struct w_scenario *sc, struct sb *b) {
    sb_f(b, "{\"interface\": {\"min\": %u, \"max\": %u", sc->if_min, sc->if_max);
    if (sc->has_negotiate_result) sb_f(b, ", \"negotiate_result\": %d", sc->negotiate_result);
    if (sc->has_report_version) sb_f(b, ", \"report_version\": %u", sc->report_version);
    sb_f(b, "},\n \"api_version\": %u,\n \"expose_enumerate_instance_version\": %s,\n", sc->api_version,
         sc->hide_eiv ? "false" : "true");
    sb_f(b, " \"record_lookups\": %s,\n \"instance_extensions\": ", sc->record_lookups ? "true" : "false");
    ext_array(b, sc->inst_ext_mask, w_inst_ext_names, 8);
    sb_s(b, ",\n \"physical_devices\": [");
    for (uint32_t i = 0; i < sc->pd_count; i++) {
        sb_f(b,
             "%s{\"name\": \"Fuzz Device %u.%u\", \"api_version\": %u, \"vendor_id\": %u, "
             "\"device_id\": %u, \"device_type\": \"%s\", \"extensions\": ",
             i ? ", " : "", slot, i, sc->pd[i].api_version, 0x10000u + slot, (slot << 8) | (i + 1),
             (i & 1) ? "integrated" : "discrete");
        ext_array(b, sc->pd[i].ext_mask, w_dev_ext_names, 4);
        sb_s(b, ", \"queue_families\": [");
        for (uint32_t f = 0; f < sc->pd[i].families; f++)
            sb_f(b, "%s{\"flags\": %u, \"count\": %u}", f ? ", " : "", f == 0 ? 7u : 4u, f + 1);
        sb_s(b, "]}");
    }
    sb_s(b, "]");
    if (sc->groups) {
        /* devices 0 and 1 together, the rest alone */
        sb_s(b, ",\n \"groups\": [");
        for (uint32_t i = 0; i < sc->pd_count; i++) {
            if (i == 1) continue;
            if (i == 0 && sc->pd_count > 1)
                sb_s(b, "[0, 1]");
            else
                sb_f(b, "%s[%u]", i ? ", " : "", i);
        }
        sb_s(b, "]");
    }
    if (sc->inject_count) {
        sb_s(b, ",\n \"results\": {");
        for (uint32_t i = 0; i < sc->inject_count; i++)
            sb_f(b, "%s\"%s\": %d", i ? ", " : "", w_inject_cmds[sc->inject[i].cmd], sc->inject[i].result);
        sb_s(b, "}");
    }
    if (sc->dev_funcs) {
        sb_s(b, ",\n \"device_functions\": [");
        for (uint32_t i = 0; i < sc->dev_funcs; i++) sb_f(b, "%s\"vkFuzzDeviceFunc%u\"", i ? ", " : "", i);
        sb_s(b, "]");
    }
    if (sc->pd_funcs) {
        sb_s(b, ",\n \"physdev_functions\": [");
        for (uint32_t i = 0; i < sc->pd_funcs; i++) sb_f(b, "%s\"vkFuzzPhysDevFunc%u\"", i ? ", " : "", i);
        sb_s(b, "]");
    }
    sb_s(b, ",\n \"misbehave\": {");
    for (int i = 0; i < 9; i++)
        sb_f(b, "%s\"%s\": %s", i ? ", " : "", w_misbehave_names[i], (sc->misbehave >> i) & 1 ? "true" : "false");
    sb_s(b, "}}\n");
}

/* ---- layers ---- */

static void layer_dir_rel(const struct w_layer *l, char *out) {
    if (l->location < 2)
        pathf(out, "%s/%s", w_layer_location_dirs[l->location], l->implicit ? "implicit" : "explicit");
    else
        pathf(out, "%s/%s_layer.d", w_layer_location_dirs[l->location], l->implicit ? "implicit" : "explicit");
}

static void gen_layer_scenario(const struct world *w, const struct w_layer *l, struct sb *b) {
    sb_s(b, "{\"name\": ");
    sb_q(b, w_layer_name(l));
    if (w->chain_log) {
        sb_s(b, ",\n \"calls_file\": ");
        sb_q(b, world_chain_calls_path());
    }
    sb_f(b, ",\n \"wrap_handles\": %s", l->wrap_handles ? "true" : "false");
    sb_s(b, ",\n \"pre_instance\": {");
    bool first = true;
    if (l->pre_add_extension) {
        sb_s(b, "\"add_extension\": \"VK_EXT_fuzz_layer_extension\"");
        first = false;
    }
    if (l->pre_add_layer) {
        sb_f(b, "%s\"add_layer\": \"VK_LAYER_FUZZ_pre\"", first ? "" : ", ");
        first = false;
    }
    sb_f(b, "%s\"no_call_down\": %s}", first ? "" : ", ", l->pre_no_call_down ? "true" : "false");
    sb_s(b, ",\n \"misbehave\": {");
    first = true;
    for (int i = 0; i < 8; i++) {
        if (i == 1) {
            if (l->misbehave & 2) {
                sb_f(b, "%s\"negotiate_version\": %u", first ? "" : ", ", l->negotiate_version);
                first = false;
            }
            continue;
        }
        sb_f(b, "%s\"%s\": %s", first ? "" : ", ", w_layer_misbehave_names[i],
             (l->misbehave >> i) & 1 ? "true" : "false");
        first = false;
    }
    sb_s(b, "}}\n");
}

static void name_array(struct sb *b, uint8_t mask) {
    sb_s(b, "[");
    bool first = true;
    for (int i = 0; i < W_LAYER_NAMES; i++) {
        if (!(mask & (1u << i))) continue;
        sb_f(b, "%s\"%s\"", first ? "" : ", ", w_layer_names[i]);
        first = false;
    }
    sb_s(b, "]");
}

static void gen_layer_manifest(const struct w_layer *l, struct sb *b) {
    static const char *const versions[8] = {"1.0.0", "1.0.1", "1.1.0", "1.1.1", "1.1.2", "1.2.0", "1.2.1", "1.0"};
    sb_f(b, "{\"file_format_version\": \"%s\", ", versions[l->fmt_version & 7]);
    if (l->nul == 3)
        sb_s(b, l->layers_array ? "\"layers\\u0000\": [{" : "\"layer\\u0000\": {");
    else
        sb_s(b, l->layers_array ? "\"layers\": [{" : "\"layer\": {");
    sb_s(b, "\"name\": ");
    if (l->nul == 2 || (l->nul == 1 && l->meta))
        sb_q_nul(b, w_layer_name(l), "x");
    else
        sb_q(b, w_layer_name(l));
    sb_s(b, ", \"type\": \"GLOBAL\"");
    if (!l->meta) {
        sb_s(b, ", \"library_path\": ");
        if (l->nul == 1)
            sb_q_nul(b, l->lib_ref, "/nonexistent/evil.so");
        else
            sb_q(b, l->lib_ref);
    }
    sb_f(b,
         ", \"api_version\": \"1.%u.0\", \"implementation_version\": \"1\", "
         "\"description\": \"fuzz layer\"",
         l->api_minor);
    if (l->meta) {
        sb_s(b, ", \"component_layers\": ");
        name_array(b, l->components);
    }
    if (l->override_layer && l->blacklist) {
        sb_s(b, ", \"blacklisted_layers\": ");
        name_array(b, l->blacklist);
    }
    if (l->has_enable_env) sb_f(b, ", \"enable_environment\": {\"%s\": \"1\"}", l->enable_var);
    if (l->has_disable_env) sb_f(b, ", \"disable_environment\": {\"%s\": \"1\"}", l->disable_var);
    if (l->pre_instance)
        sb_s(b, ", \"pre_instance_functions\": {"
                "\"vkEnumerateInstanceExtensionProperties\": \"mock_layer_pre_EnumerateInstanceExtensionProperties\", "
                "\"vkEnumerateInstanceLayerProperties\": \"mock_layer_pre_EnumerateInstanceLayerProperties\", "
                "\"vkEnumerateInstanceVersion\": \"mock_layer_pre_EnumerateInstanceVersion\"}");
    if (l->renames)
        sb_s(b, ", \"functions\": {\"vkGetInstanceProcAddr\": \"MockLayer_GetInstanceProcAddr\", "
                "\"vkGetDeviceProcAddr\": \"MockLayer_GetDeviceProcAddr\", "
                "\"vkNegotiateLoaderLayerInterfaceVersion\": \"MockLayer_Negotiate\"}");
    sb_s(b, l->layers_array ? "}]}\n" : "}}\n");
}

/* Writes the layer slots' libraries, scenarios and manifests; fills the world's default layer
 * path variables into val[] (indexes of w_env_names) and extra[] (VK_ADD_IMPLICIT_LAYER_PATH). */
static void build_layers(struct world *w, char *val[W_ENV_VARS], char **add_implicit);
static void set_extra_env(int i, const char *name, const char *value);

static void set_env(int i, const char *name, const char *value) {
    unsetenv(name);
    free(g_env_buf[i]);
    g_env_buf[i] = NULL;
    if (value == NULL) return;
    size_t n = strlen(name) + 1 + strlen(value) + 1;
    g_env_buf[i] = malloc(n);
    if (g_env_buf[i] == NULL) die("out of memory");
    snprintf(g_env_buf[i], n, "%s=%s", name, value);
    /* putenv keeps our buffer (no copy): setenv would keep every distinct value forever. */
    if (putenv(g_env_buf[i]) != 0) die("putenv");
}

/* Replaces `path` (the regular file just written there, or nothing) by a file of `kind` (FRAMING.md
 * "widen"). WF_LINK moves the bytes to `real` and links `path` to it. */
static void make_special(const char *path, uint8_t kind, const char *real) {
    switch (kind) {
        case WF_REGULAR: return;
        case WF_EMPTY:
            if (truncate(path, 0) != 0) write_file(path, "", 0);
            return;
        case WF_LINK:
            if (real == NULL || rename(path, real) != 0 || symlink(real, path) != 0)
                die("link %s: %s", path, strerror(errno));
            return;
        default: break;
    }
    unlink(path);
    int rc = 0;
    switch (kind) {
        case WF_FIFO: rc = mkfifo(path, 0644); break;
        case WF_LOOP: rc = symlink(path, path); break; /* itself: ELOOP */
        case WF_DIR: rc = mkdir(path, 0755); break;
        case WF_DEV_ZERO: rc = symlink("/dev/zero", path); break;
        case WF_DANGLING: rc = symlink("/nonexistent/vkl_fuzz_missing", path); break;
        default: break;
    }
    if (rc != 0) die("special file %s: %s", path, strerror(errno));
}

/* A library_path of a special kind: R/w/special/<name> (WF_LINK: a link to the slot's copy). */
static void special_lib(uint8_t kind, const char *name, const char *lib_abs, char *lib_ref) {
    pathf(lib_ref, "%s/special/%s", g_wdir, name);
    if (kind == WF_LINK) {
        if (symlink(lib_abs, lib_ref) != 0) die("symlink %s: %s", lib_ref, strerror(errno));
        /* A mock finds its sidecar files beside the path it was loaded from (<self>.scenario,
         * <self>.calls: mock_common.h): link them to the slot's, or the library runs the default
         * scenario and its records are lost (a false LDP_LOADER_1 "no driver instance alive"). */
        static const char *const sidecars[] = {".scenario", ".calls"};
        for (size_t i = 0; i < sizeof sidecars / sizeof sidecars[0]; i++) {
            char from[W_PATH + 16], to[W_PATH + 16];
            snprintf(from, sizeof from, "%s%s", lib_abs, sidecars[i]);
            snprintf(to, sizeof to, "%s%s", lib_ref, sidecars[i]);
            if (symlink(from, to) != 0) die("symlink %s: %s", to, strerror(errno));
        }
    } else {
        write_file(lib_ref, "", 0);
        make_special(lib_ref, kind, NULL);
    }
}

/* Before a manifest path gets its tombstone: whatever special file is there goes first. */
void unspecial(const char *path, uint8_t kind) {
    if (kind == WF_REGULAR || kind == WF_EMPTY) return;
    if (kind == WF_DIR)
        rmdir(path);
    else
        unlink(path);
}

static void list_add(struct sb *b, const char *entry) {
    if (b->n) sb_s(b, ":");
    sb_s(b, entry);
}

void world_build(struct world *w) {
    if (g_root_pid != getpid()) make_root(); /* a forked child (AFL++): its own R */
    g_generation++;
    rm_rf(g_wdir);
    for (int l = 0; l < W_LOCATIONS; l++) {
        char p[W_PATH];
        pathf(p, "%s/%s", g_wdir, w_location_dirs[l]);
        mkdir_p(p);
    }
    {
        char p[W_PATH];
        pathf(p, "%s/xdg_config_dirs/b", g_wdir);
        mkdir_p(p);
        pathf(p, "%s/special", g_wdir);
        mkdir_p(p);
    }

    /* libraries and scenarios */
    for (uint32_t s = 0; s < W_MAX_DRIVERS; s++) {
        char lib[W_PATH], side[W_PATH];
        pathf(lib, "%s/lib/libvkl_fuzz_drv%u.so", g_root_real, s);
        pathf(side, "%s.calls", lib);
        unlink(side);
        pathf(side, "%s.scenario", lib);
        if (s >= w->ndrivers) {
            /* unused slots leave nothing behind that a manifest could reach */
            unlink(side);
            unlink(lib);
            g_slot_variant[s] = -1;
            continue;
        }
        struct w_driver *d = &w->d[s];
        pathf(d->lib_abs, "%s", lib);
        if (g_slot_variant[s] != (int)d->variant || !exists(lib)) {
            char from[W_PATH];
            pathf(from, "%s/libmock_icd_%s.so", g_mock_dir, g_variants[d->variant]->name);
            unlink(lib); /* a new inode: never rewrite a file that might still be mapped */
            copy_file(from, lib);
            g_slot_variant[s] = (int)d->variant;
        }
        struct sb b = {0};
        gen_scenario(s, &d->sc, &b);
        write_file(side, b.p, b.n);
        free(b.p);
    }

    /* manifests */
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        struct w_driver *d = &w->d[s];
        const char *dir = w_location_dirs[d->location];
        char rel[W_PATH];
        pathf(rel, "%s/%s_%u.json", dir, w_stems[d->stem], s);
        pathf(d->manifest_abs, "%s/%s", g_wdir, rel);
        wpath(w, d->manifest_env, rel);
        switch (d->libform) {
            case 0: pathf(d->lib_ref, "%s", d->lib_abs); break;
            case 1: {
                /* from R/w/<dir>/ up to R, then lib/ */
                char up[W_PATH] = "../";
                for (const char *c = dir; *c; c++)
                    if (*c == '/') strcat(up, "../");
                pathf(d->lib_ref, "%s../lib/libvkl_fuzz_drv%u.so", up, s);
                break;
            }
            case 2: pathf(d->lib_ref, "libvkl_fuzz_drv%u.so", s); break;
            default: pathf(d->lib_ref, "%s/lib/missing_drv%u.so", g_root_real, s); break;
        }
        if (d->lib_kind != WF_REGULAR) {
            char name[32];
            snprintf(name, sizeof name, "drv%u.so", s);
            special_lib(d->lib_kind, name, d->lib_abs, d->lib_ref);
        }
        struct sb b = {0};
        if (d->raw_manifest)
            raw_manifest(d, &b);
        else
            gen_manifest(d, &b);
        write_file(d->manifest_abs, b.p ? b.p : "", b.n);
        {
            char real[W_PATH];
            pathf(real, "%s/special/drv%u.json", g_wdir, s);
            make_special(d->manifest_abs, d->manifest_kind, real);
        }
        /* keep the bytes actually written, for the oracle */
        free(d->manifest);
        d->manifest = b.p ? b.p : strdup("");
        d->manifest_len = b.n;
    }

    /* environment: the world's defaults, then the input's overrides */
    char *val[W_ENV_VARS] = {NULL};
    struct sb drv = {0}, icd = {0}, add = {0};
    bool dir_listed = false, add_listed = false;
    char p[W_PATH];
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        switch (w->d[s].location) {
            case 0: list_add(&drv, w->d[s].manifest_env); break;
            case 1:
                if (!dir_listed) wpath(w, p, w_location_dirs[1]), list_add(&drv, p);
                dir_listed = true;
                break;
            case 2: list_add(&icd, w->d[s].manifest_env); break;
            case 3:
                if (!add_listed) wpath(w, p, w_location_dirs[3]), list_add(&add, p);
                add_listed = true;
                break;
            default: break;
        }
    }
    val[0] = drv.p;
    val[1] = icd.p;
    val[2] = add.p;
    wpath(w, p, "home");
    val[5] = strdup(p);
    wpath(w, p, "xdg_config_home");
    val[6] = strdup(p);
    {
        struct sb l = {0};
        wpath(w, p, "xdg_config_dirs/a");
        list_add(&l, p);
        wpath(w, p, "xdg_config_dirs/b");
        list_add(&l, p);
        val[7] = l.p;
    }
    wpath(w, p, "xdg_data_dirs/a");
    val[9] = strdup(p);
    char *add_implicit = NULL;
    build_layers(w, val, &add_implicit);
    for (int i = 0; i < W_ENV_VARS; i++) {
        if (w->env_mode[i] == W_ENV_DEFAULT) continue;
        free(val[i]);
        val[i] = NULL;
        if (w->env_mode[i] == W_ENV_EMPTY) {
            val[i] = strdup("");
        } else if (w->env_mode[i] == W_ENV_VALUE && w->env_value[i] != NULL) {
            if (w->env_value[i][0] == '\x01') {
                struct sb l = {0};
                uint8_t mask = (uint8_t)w->env_value[i][1];
                for (int b = 0; b < W_LOCATIONS; b++)
                    if (mask & (1u << b)) wpath(w, p, w_location_dirs[b]), list_add(&l, p);
                val[i] = l.p ? l.p : strdup("");
            } else {
                /* "@W@" stands for the world directory */
                struct sb l = {0};
                const char *s = w->env_value[i];
                wpath(w, p, "");
                p[strlen(p) - 1] = '\0'; /* no trailing '/' */
                for (;;) {
                    const char *hit = strstr(s, "@W@");
                    if (hit == NULL) {
                        sb_s(&l, s);
                        break;
                    }
                    sb_add(&l, s, (size_t)(hit - s));
                    sb_s(&l, p);
                    s = hit + 3;
                }
                val[i] = l.p ? l.p : strdup("");
            }
        }
    }
    for (int i = 0; i < W_ENV_VARS; i++) {
        set_env(i, w_env_names[i], val[i]);
        free(val[i]);
    }
    /* layer variables outside the input's environment table */
    set_extra_env(0, "VK_ADD_IMPLICIT_LAYER_PATH", add_implicit);
    free(add_implicit);
    for (uint32_t i = 0; i < W_MAX_LAYERS; i++) {
        char en[48], dis[48];
        snprintf(en, sizeof en, "VKL_FUZZ_LAYER_ENABLE_%u", i);
        snprintf(dis, sizeof dis, "VKL_FUZZ_LAYER_DISABLE_%u", i);
        const struct w_layer *l = &w->l[i];
        bool used = i < w->nlayers;
        set_extra_env(1 + 2 * (int)i, en, used && l->set_enable ? (l->odd_values ? "0" : "1") : NULL);
        set_extra_env(2 + 2 * (int)i, dis, used && l->set_disable ? (l->odd_values ? "" : "1") : NULL);
    }
    /* Never let an input keep libraries mapped (the cache cleanup relies on dlclose). */
    unsetenv("VK_LOADER_DISABLE_DYNAMIC_LIBRARY_UNLOADING");

    vkl_env_set_elevated_for_testing(w->elevated ? 1 : 0);
    if (w->chdir_root && chdir(g_root_real) != 0) die("chdir %s: %s", g_root_real, strerror(errno));
}

static void set_extra_env(int i, const char *name, const char *value) {
    unsetenv(name);
    free(g_extra_env_buf[i]);
    g_extra_env_buf[i] = NULL;
    if (value == NULL) return;
    size_t n = strlen(name) + 1 + strlen(value) + 1;
    g_extra_env_buf[i] = malloc(n);
    if (g_extra_env_buf[i] == NULL) die("out of memory");
    snprintf(g_extra_env_buf[i], n, "%s=%s", name, value);
    if (putenv(g_extra_env_buf[i]) != 0) die("putenv");
}

void world_refresh(struct world *w, bool reload) {
    unlink(world_chain_calls_path());
    struct timespec times[2];
    times[0].tv_sec = times[1].tv_sec = (time_t)(500000000 + g_generation);
    times[0].tv_nsec = times[1].tv_nsec = 0;
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        char p[W_PATH + 16];
        snprintf(p, sizeof p, "%s.calls", w->d[s].lib_abs);
        unlink(p);
        if (reload && (w->d[s].manifest_kind == WF_REGULAR || w->d[s].manifest_kind == WF_LINK ||
                       w->d[s].manifest_kind == WF_EMPTY))
            utimensat(AT_FDCWD, w->d[s].manifest_abs, times, 0);
    }
    for (uint32_t i = 0; i < w->nlayers; i++) {
        char p[W_PATH + 16];
        snprintf(p, sizeof p, "%s.calls", w->l[i].lib_abs);
        unlink(p);
        if (reload && (w->l[i].manifest_kind == WF_REGULAR || w->l[i].manifest_kind == WF_LINK ||
                       w->l[i].manifest_kind == WF_EMPTY))
            utimensat(AT_FDCWD, w->l[i].manifest_abs, times, 0);
    }
    for (uint32_t k = 0; k < w->nmetas && reload; k++) {
        char p[W_PATH];
        meta_path(w, k, p);
        utimensat(AT_FDCWD, p, times, 0);
    }
}

const char *world_chain_calls_path(void) {
    static char p[W_PATH];
    pathf(p, "%s/lib/layer_chain.calls", g_root_real);
    return p;
}

/* The extra meta layers VK_LAYER_FUZZ_m00.. (FRAMING.md "widen"): a chain, a ladder (each names the
 * next two: exponentially many paths), a cycle, or masks; the last (or, with masks, every) one may
 * also name a world layer. Manifests only: meta layers have no library. */
static void meta_dir(const struct world *w, char *out) {
    uint32_t loc = ((w->meta_shape >> 3) & 7) % W_LAYER_LOCATIONS;
    struct w_layer probe;
    memset(&probe, 0, sizeof probe);
    probe.location = loc;
    probe.implicit = w->meta_shape & 4;
    char rel[W_PATH];
    layer_dir_rel(&probe, rel);
    pathf(out, "%s/%s", g_wdir, rel);
}

void meta_path(const struct world *w, uint32_t k, char *out) {
    char dir[W_PATH];
    meta_dir(w, dir);
    pathf(out, "%s/fuzz_meta_%02u.json", dir, k);
}

static void build_metas(struct world *w, uint32_t loc, bool implicit) {
    (void)loc;
    char dir[W_PATH];
    meta_dir(w, dir);
    mkdir_p(dir);
    uint32_t n = w->nmetas, shape = w->meta_shape & 3;
    for (uint32_t k = 0; k < n; k++) {
        struct sb b = {0};
        char name[24], comp[24];
        world_meta_name(k, name);
        sb_s(&b, "{\"file_format_version\": \"1.1.2\", \"layer\": {\"name\": ");
        sb_q(&b, name);
        sb_s(&b, ", \"type\": \"GLOBAL\", \"api_version\": \"1.0.0\", \"implementation_version\": \"1\", "
                 "\"description\": \"fuzz meta\", \"component_layers\": [");
        bool first = true;
#define COMP(nm)                                                                                                       \
    do {                                                                                                               \
        if (!first) sb_s(&b, ", ");                                                                                    \
        sb_q(&b, nm);                                                                                                  \
        first = false;                                                                                                 \
    } while (0)
        if (shape == 3) {
            for (uint32_t bit = 0; bit < 8; bit++)
                if (w->meta_masks[k] & (1u << bit)) {
                    world_meta_name((k + 1 + bit) % n, comp);
                    COMP(comp);
                }
        } else {
            if (k + 1 < n) {
                world_meta_name(k + 1, comp);
                COMP(comp);
            }
            if (shape == 1 && k + 2 < n) {
                world_meta_name(k + 2, comp);
                COMP(comp);
            }
            if (shape == 2 && k + 1 == n) {
                world_meta_name(0, comp);
                COMP(comp);
            }
        }
        if (w->meta_leaf < W_WORLD_LAYER_NAMES && (k + 1 == n || shape == 3)) COMP(w_layer_names[w->meta_leaf]);
#undef COMP
        sb_s(&b, "]");
        if (implicit) sb_s(&b, ", \"disable_environment\": {\"VKL_FUZZ_META_DISABLE\": \"1\"}");
        sb_s(&b, "}}\n");
        char path[W_PATH];
        meta_path(w, k, path);
        write_file(path, b.p, b.n);
        free(b.p);
    }
}

static void build_layers(struct world *w, char *val[W_ENV_VARS], char **add_implicit) {
    unlink(world_chain_calls_path());
    for (uint32_t i = 0; i < W_MAX_LAYERS; i++) {
        char lib[W_PATH], side[W_PATH];
        pathf(lib, "%s/lib/libvkl_fuzz_lay%u.so", g_root_real, i);
        pathf(side, "%s.calls", lib);
        unlink(side);
        pathf(side, "%s.scenario", lib);
        if (i >= w->nlayers) {
            unlink(side);
            unlink(lib);
            g_layer_slot_variant[i] = -1;
            continue;
        }
        struct w_layer *l = &w->l[i];
        pathf(l->lib_abs, "%s", lib);
        snprintf(l->enable_var, sizeof l->enable_var, "VKL_FUZZ_LAYER_ENABLE_%u", i);
        snprintf(l->disable_var, sizeof l->disable_var, "VKL_FUZZ_LAYER_DISABLE_%u", i);
        if (g_layer_slot_variant[i] != (int)l->variant || !exists(lib)) {
            char from[W_PATH];
            pathf(from, "%s/libmock_layer_%s.so", g_mock_layer_dir, g_layer_variants[l->variant]->name);
            unlink(lib);
            copy_file(from, lib);
            g_layer_slot_variant[i] = (int)l->variant;
        }
        struct sb b = {0};
        gen_layer_scenario(w, l, &b);
        write_file(side, b.p, b.n);
        free(b.p);

        char dir[W_PATH], abs_dir[W_PATH];
        layer_dir_rel(l, dir);
        pathf(abs_dir, "%s/%s", g_wdir, dir);
        mkdir_p(abs_dir);
        pathf(l->manifest_abs, "%s/fuzz_layer_%u.json", abs_dir, i);
        switch (l->libform) {
            case 0: pathf(l->lib_ref, "%s", l->lib_abs); break;
            case 1: {
                /* relative to the manifest's directory: from R/w/<dir>/ up to R, then lib/ */
                char up[W_PATH] = "../";
                for (const char *c = dir; *c; c++)
                    if (*c == '/') strcat(up, "../");
                pathf(l->lib_ref, "%s../lib/libvkl_fuzz_lay%u.so", up, i);
                break;
            }
            case 2: pathf(l->lib_ref, "libvkl_fuzz_lay%u.so", i); break;
            default: pathf(l->lib_ref, "%s/lib/missing_lay%u.so", g_root_real, i); break;
        }
        if (l->lib_kind != WF_REGULAR) {
            char name[32];
            snprintf(name, sizeof name, "lay%u.so", i);
            special_lib(l->lib_kind, name, l->lib_abs, l->lib_ref);
        }
        struct sb m = {0};
        gen_layer_manifest(l, &m);
        write_file(l->manifest_abs, m.p, m.n);
        {
            char real[W_PATH];
            pathf(real, "%s/special/lay%u.json", g_wdir, i);
            make_special(l->manifest_abs, l->manifest_kind, real);
        }
        free(l->manifest);
        l->manifest = m.p;
        l->manifest_len = m.n;
    }
    /* default layer path variables: the directories of the slots placed at locations 0 and 1 */
    bool used[2][2] = {{false, false}, {false, false}}; /* [location][implicit] */
    for (uint32_t i = 0; i < w->nlayers; i++)
        if (w->l[i].location < 2) used[w->l[i].location][w->l[i].implicit] = true;
    if (w->nmetas > 0) {
        uint32_t loc = ((w->meta_shape >> 3) & 7) % W_LAYER_LOCATIONS;
        bool implicit = w->meta_shape & 4;
        build_metas(w, loc, implicit);
        if (loc < 2) used[loc][implicit] = true;
    }
    char p[W_PATH];
    if (used[0][0]) wpath(w, p, "env/layer_path/explicit"), val[10] = strdup(p);
    if (used[1][0]) wpath(w, p, "env/add_layer_path/explicit"), val[11] = strdup(p);
    if (used[0][1]) wpath(w, p, "env/layer_path/implicit"), val[12] = strdup(p);
    if (used[1][1]) wpath(w, p, "env/add_layer_path/implicit"), *add_implicit = strdup(p);
}
