/* llp-check: the check table and the manifest checks (LLP_LAYER_3, 6, 7, 8, 9, 20). Each check
 * function runs in its own forked child and ends with one verdict; docs/llp-check.md. */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance/checker_common/library_path.h"
#include "conformance/layer_check/llp_check.h"
#include "loader/internal/search_paths.h"
#include "loader/internal/strlist.h"

const struct llp_options *llp_opt;
const struct llp_manifest *llp_man;

const struct llp_check_def llp_checks[] = {
    {"LLP_LAYER_1", "workload_conformant",
     "the workload gives the application the same results with and without the layer", llp_check_conformant_stack, 2,
     true},
    {"LLP_LAYER_2", "workload_no_harm", "calls below the layer are valid, succeed, and include every application call",
     llp_check_no_harm, 2, true},
    {"LLP_LAYER_3", "manifest_naming", "layer names follow VK_LAYER_<AUTHOR>_<name>", llp_check_manifest_naming, 0,
     true},
    {"LLP_LAYER_4", "interface_negotiate_export", "exports vkNegotiateLoaderLayerInterfaceVersion (interface 2)",
     llp_check_negotiate_export, 1, true},
    {"LLP_LAYER_5", "interface_negotiation", "negotiation answers every offered interface version correctly",
     llp_check_negotiate_offers, 4, true},
    {"LLP_LAYER_6", "manifest_valid", "a well-formed manifest named *.json that the loader accepts",
     llp_check_manifest_valid, 0, false},
    {"LLP_LAYER_7", "manifest_meta_components", "every component of a meta-layer is installed",
     llp_check_meta_components, 0, true},
    {"LLP_LAYER_8", "manifest_meta_versions", "meta-layer components declare an API version >= the meta-layer's",
     llp_check_meta_versions, 0, true},
    {"LLP_LAYER_9", "manifest_implicit_disable", "an implicit layer declares disable_environment",
     llp_check_implicit_disable, 0, false},
    {"LLP_LAYER_10", "chain_handles_unwrapped", "handles passed down are the ones the layer below returned",
     llp_check_chain_handles, 1, true},
    {"LLP_LAYER_11", "driver_bundle_cts", "a layer shipped with a driver is conformance-tested with it",
     llp_check_untestable, 0, false},
    {"LLP_LAYER_12", "chain_instance_link", "vkCreateInstance advances the VkLayerInstanceCreateInfo link",
     llp_check_chain_instance_link, 1, true},
    {"LLP_LAYER_13", "chain_device_link", "vkCreateDevice advances the VkLayerDeviceCreateInfo link",
     llp_check_chain_device_link, 1, true},
    {"LLP_LAYER_14", "workload_alloc_callbacks", "the layer allocates through the application's allocation callbacks",
     llp_check_alloc_callbacks, 1, true},
    {"LLP_LAYER_15", "interface_instance_extensions", "vkEnumerateInstanceExtensionProperties: own name only",
     llp_check_instance_extensions, 2, true},
    {"LLP_LAYER_16", "chain_device_extensions", "vkEnumerateDeviceExtensionProperties: own extensions, else down",
     llp_check_chain_device_extensions, 1, true},
    {"LLP_LAYER_17", "chain_unknown_extensions", "vkCreateInstance survives extension names it does not know",
     llp_check_chain_unknown_extensions, 2, true},
    {"LLP_LAYER_18", "chain_disabled_commands", "vkGet*ProcAddr: NULL for commands of extensions not enabled",
     llp_check_chain_disabled_commands, 1, true},
    {"LLP_LAYER_19", "workload_dispatch_init", "dispatchable objects the layer creates carry the loader's dispatch",
     llp_check_dispatch_init, 1, true},
    {"LLP_LAYER_20", "manifest_stale", "the library exists, is the one loaded, and no other manifest names it",
     llp_check_stale, 1, true},
    {"LLP_LAYER_21", "chain_instance_untouched", "*pInstance untouched before calling down",
     llp_check_chain_instance_untouched, 1, true},
    {"LLP_LAYER_22", "chain_device_untouched", "*pDevice untouched before calling down",
     llp_check_chain_device_untouched, 1, true},
};
const size_t llp_check_count = sizeof llp_checks / sizeof llp_checks[0];

static int rank(enum ldp_verdict v) {
    switch (v) {
        case LDP_FAIL: return 5;
        case LDP_WARN: return 4;
        case LDP_PASS: return 3;
        case LDP_NOT_TESTABLE: return 2;
        case LDP_NA: return 1;
        default: return 0;
    }
}

enum ldp_verdict llp_worse(enum ldp_verdict a, enum ldp_verdict b) { return rank(a) >= rank(b) ? a : b; }

void llp_check_untestable(struct ldp_ctx *c, void *arg) {
    (void)arg;
    ldp_verdict(c, LDP_NOT_TESTABLE,
                "needs the Vulkan CTS run against the driver the layer ships with; a black-box checker cannot "
                "tell which driver that is");
}

/* ---- LLP_LAYER_3 ---- */

void llp_check_manifest_naming(struct ldp_ctx *c, void *arg) {
    (void)arg;
    enum ldp_verdict v = LDP_PASS;
    char reason[1200] = "";
    for (uint32_t i = 0; i < llp_man->file.count; i++) {
        const char *n = llp_man->file.layers[i].props.layerName;
        const char *why = NULL;
        if (strncmp(n, "VK_LAYER_", 9) != 0) {
            why = "does not start with VK_LAYER_ (the loader warns)";
        } else {
            const char *rest = n + 9, *us = strchr(rest, '_');
            if (us == NULL || us == rest || us[1] == '\0') why = "has no VK_LAYER_<AUTHOR>_<name> author part";
            for (const char *p = rest; why == NULL && *p; p++)
                if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
                    why = "has characters other than letters, digits and '_'";
        }
        if (why != NULL) {
            ldp_evidence(c, "layer name \"%s\" %s", n, why);
            if (v == LDP_PASS) snprintf(reason, sizeof reason, "layer name \"%s\" %s", n, why);
            v = LDP_WARN;
        } else {
            ldp_evidence(c, "layer name \"%s\": VK_LAYER_<AUTHOR>_<name>", n);
        }
    }
    for (size_t i = 0; i < llp_man->log_count; i++)
        if (strstr(llp_man->log[i], "[LLP_LAYER_3]")) ldp_evidence(c, "loader: %s", llp_man->log[i]);
    if (v == LDP_PASS)
        ldp_verdict(c, LDP_PASS, "%u layer name(s) follow VK_LAYER_<AUTHOR>_<name>", llp_man->file.count);
    else
        ldp_verdict(c, v, "%s", reason);
}

/* ---- LLP_LAYER_6 ---- */

void llp_check_manifest_valid(struct ldp_ctx *c, void *arg) {
    (void)arg;
    const char *p = llp_man->path;
    size_t n = strlen(p);
    bool json_name = n >= 5 && strcmp(p + n - 5, ".json") == 0;
    if (llp_man->too_big) {
        ldp_verdict(
            c, LDP_FAIL,
            "manifest %s is %llu bytes, more than the %u-byte limit on a manifest file (loaders reject it unread)", p,
            llp_man->size, VKL_MANIFEST_MAX_SIZE);
        return;
    }
    int fails = 0, warns = 0;
    char first_fail[900] = "", first_warn[900] = "";
    for (size_t i = 0; i < llp_man->log_count; i++) {
        const char *l = llp_man->log[i];
        if (strstr(l, "[LLP_LAYER_3]") || strstr(l, "[LLP_LAYER_9]")) continue; /* their own checks */
        ldp_evidence(c, "loader: %s", l);
        bool skipped = strstr(l, "skipped") != NULL && strstr(l, "library_arch") == NULL;
        if (skipped) {
            if (!fails++) snprintf(first_fail, sizeof first_fail, "%s", l);
        } else if (strncmp(l, "WARN", 4) == 0 || strstr(l, "unknown layer manifest file version")) {
            if (!warns++) snprintf(first_warn, sizeof first_warn, "%s", l);
        }
    }
    if (!json_name) {
        ldp_verdict(c, LDP_FAIL, "the file name %s does not end in .json (loaders only read *.json files)", p);
        return;
    }
    if (llp_man->parse_result != VK_SUCCESS) {
        ldp_verdict(c, LDP_FAIL, "the loader's parser rejects the whole file: %s",
                    first_fail[0] ? first_fail : "not a usable layer manifest");
        return;
    }
    if (fails) {
        ldp_verdict(c, LDP_FAIL, "%d layer entr%s rejected: %s", fails, fails == 1 ? "y" : "ies", first_fail);
        return;
    }
    if (llp_man->file.count == 0) {
        ldp_verdict(c, llp_man->implicit ? LDP_NOT_TESTABLE : LDP_FAIL, "no layer of the manifest is usable%s",
                    llp_man->implicit ? " (see LLP_LAYER_9)" : "");
        return;
    }
    if (warns) {
        ldp_verdict(c, LDP_WARN, "accepted with %d warning(s): %s", warns, first_warn);
        return;
    }
    ldp_verdict(c, LDP_PASS, "well-formed: %u layer(s) accepted by the loader's parser", llp_man->file.count);
}

/* ---- LLP_LAYER_9 ---- */

void llp_check_implicit_disable(struct ldp_ctx *c, void *arg) {
    (void)arg;
    if (!llp_man->implicit) {
        ldp_verdict(c, LDP_NA, "explicit layer manifest (not under implicit_layer.d; --implicit forces it)");
        return;
    }
    if (llp_man->parse_result != VK_SUCCESS) {
        ldp_verdict(c, LDP_NOT_TESTABLE, "the manifest is rejected (see LLP_LAYER_6)");
        return;
    }
    int missing = 0;
    char first[900] = "";
    for (size_t i = 0; i < llp_man->log_count; i++) {
        if (strstr(llp_man->log[i], "[LLP_LAYER_9]") == NULL) continue;
        ldp_evidence(c, "loader: %s", llp_man->log[i]);
        if (!missing++) snprintf(first, sizeof first, "%s", llp_man->log[i]);
    }
    for (uint32_t i = 0; i < llp_man->file.count; i++) {
        const struct vkl_layer_manifest *l = &llp_man->file.layers[i];
        ldp_evidence(c, "%s: disable_environment {\"%s\": \"%s\"}", l->props.layerName,
                     l->disable_env ? l->disable_env : "", l->disable_env_value ? l->disable_env_value : "");
    }
    if (missing)
        ldp_verdict(c, LDP_FAIL, "implicit layer without a usable disable_environment (loaders skip it): %s", first);
    else
        ldp_verdict(c, LDP_PASS, "every implicit layer declares disable_environment");
}

/* ---- other manifests: the default search, the manifest's own directory, the command line ---- */

struct other {
    char *path;
    struct vkl_layer_manifest_file file;
};

static void add_dir_entries(const char *entry, struct vkl_strlist *files) {
    vkl_layer_manifest_search_entry(NULL, entry, NULL, files);
}

/* Every other layer manifest a loader could see beside this one, parsed (implicit locations as
 * implicit). *count entries; free with free_others. */
static struct other *scan_others(size_t *count) {
    struct vkl_strlist files = VKL_STRLIST_INIT, implicit_files = VKL_STRLIST_INIT;
    const struct vkl_search_dirs *d = vkl_search_dirs_acquire(VKL_IMPLICIT_LAYER_SUFFIX);
    for (size_t i = 0; d != NULL && i < d->dirs.count; i++) add_dir_entries(d->dirs.items[i], &implicit_files);
    vkl_search_dirs_release(d);
    d = vkl_search_dirs_acquire(VKL_EXPLICIT_LAYER_SUFFIX);
    for (size_t i = 0; d != NULL && i < d->dirs.count; i++) add_dir_entries(d->dirs.items[i], &files);
    vkl_search_dirs_release(d);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", llp_man->path);
    char *slash = strrchr(dir, '/');
    if (slash != NULL) {
        *slash = '\0';
        add_dir_entries(dir[0] ? dir : "/", llp_man->implicit ? &implicit_files : &files);
    } else {
        add_dir_entries(".", llp_man->implicit ? &implicit_files : &files);
    }
    for (size_t i = 0; i < llp_opt->manifest_count; i++) {
        struct stat st;
        if (stat(llp_opt->manifests[i], &st) == 0 && S_ISREG(st.st_mode))
            vkl_strlist_append(&files, llp_opt->manifests[i]);
    }
    size_t total = files.count + implicit_files.count;
    struct other *o = calloc(total ? total : 1, sizeof *o);
    size_t n = 0;
    char self[PATH_MAX], rp[PATH_MAX], rq[PATH_MAX];
    bool have_self = realpath(llp_man->path, self) != NULL;
    for (size_t i = 0; o != NULL && i < total; i++) {
        bool implicit = i < implicit_files.count;
        const char *p = implicit ? implicit_files.items[i] : files.items[i - implicit_files.count];
        if (realpath(p, rp) == NULL) continue;
        if (have_self && strcmp(self, rp) == 0) continue;
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++) dup = realpath(o[k].path, rq) != NULL && strcmp(rp, rq) == 0;
        if (dup) continue;
        struct ldp_file f;
        size_t len = 0;
        char *buf = ldp_file_read(p, VKL_MANIFEST_MAX_SIZE, &len, &f);
        if (buf == NULL) continue;
        if (vkl_layer_manifest_parse(p, buf, len, implicit, NULL, &o[n].file) == VK_SUCCESS) {
            llp_expand_library_paths(&o[n].file, NULL);
            o[n++].path = strdup(p);
        }
        free(buf);
    }
    vkl_strlist_finish(&files);
    vkl_strlist_finish(&implicit_files);
    *count = n;
    return o;
}

static void free_others(struct other *o, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(o[i].path);
        vkl_layer_manifest_file_finish(&o[i].file);
    }
    free(o);
}

/* The layer named `name`: first in this manifest, then the others. */
static const struct vkl_layer_manifest *find_layer(const char *name, const struct other *o, size_t n,
                                                   const char **where) {
    for (uint32_t i = 0; i < llp_man->file.count; i++)
        if (strcmp(llp_man->file.layers[i].props.layerName, name) == 0) {
            *where = llp_man->path;
            return &llp_man->file.layers[i];
        }
    for (size_t k = 0; k < n; k++)
        for (uint32_t i = 0; i < o[k].file.count; i++)
            if (strcmp(o[k].file.layers[i].props.layerName, name) == 0) {
                *where = o[k].path;
                return &o[k].file.layers[i];
            }
    return NULL;
}

static bool any_meta(void) {
    for (uint32_t i = 0; i < llp_man->file.count; i++)
        if (llp_man->file.layers[i].is_meta) return true;
    return false;
}

/* ---- LLP_LAYER_7 / LLP_LAYER_8 ---- */

static void meta_check(struct ldp_ctx *c, bool versions) {
    if (!any_meta()) {
        ldp_verdict(c, LDP_NA, "not a meta-layer (no component_layers)");
        return;
    }
    size_t n = 0;
    struct other *o = scan_others(&n);
    ldp_evidence(c, "%zu other layer manifest(s) searched for components", n);
    int missing = 0, older = 0, found = 0;
    char first[900] = "";
    for (uint32_t i = 0; i < llp_man->file.count; i++) {
        const struct vkl_layer_manifest *m = &llp_man->file.layers[i];
        if (!m->is_meta) continue;
        uint32_t mv = m->props.specVersion;
        for (uint32_t k = 0; k < m->component_layer_count; k++) {
            const char *where = NULL;
            const struct vkl_layer_manifest *comp = find_layer(m->component_layers[k], o, n, &where);
            if (comp == NULL) {
                ldp_evidence(c, "%s: component %s: not found", m->props.layerName, m->component_layers[k]);
                if (!versions && !missing++)
                    snprintf(first, sizeof first, "meta-layer %s names component %s, which no layer manifest declares",
                             m->props.layerName, m->component_layers[k]);
                continue;
            }
            found++;
            uint32_t cv = comp->props.specVersion;
            bool old = VK_API_VERSION_MAJOR(cv) < VK_API_VERSION_MAJOR(mv) ||
                       (VK_API_VERSION_MAJOR(cv) == VK_API_VERSION_MAJOR(mv) &&
                        VK_API_VERSION_MINOR(cv) < VK_API_VERSION_MINOR(mv));
            ldp_evidence(c, "%s (api %u.%u): component %s (api %u.%u) in %s", m->props.layerName,
                         VK_API_VERSION_MAJOR(mv), VK_API_VERSION_MINOR(mv), m->component_layers[k],
                         VK_API_VERSION_MAJOR(cv), VK_API_VERSION_MINOR(cv), where);
            if (versions && old && !older++)
                snprintf(first, sizeof first,
                         "component %s declares api_version %u.%u, older than meta-layer %s's %u.%u",
                         m->component_layers[k], VK_API_VERSION_MAJOR(cv), VK_API_VERSION_MINOR(cv), m->props.layerName,
                         VK_API_VERSION_MAJOR(mv), VK_API_VERSION_MINOR(mv));
        }
    }
    free_others(o, n);
    if (!versions) {
        if (missing)
            ldp_verdict(c, LDP_FAIL, "%s (loaders drop the meta-layer)", first);
        else
            ldp_verdict(c, LDP_PASS, "all %d component(s) found", found);
    } else {
        if (older)
            ldp_verdict(c, LDP_FAIL, "%s (loaders drop the meta-layer)", first);
        else if (found == 0)
            ldp_verdict(c, LDP_NOT_TESTABLE, "no component was found (see LLP_LAYER_7)");
        else
            ldp_verdict(c, LDP_PASS, "every component found declares an API major.minor >= the meta-layer's");
    }
}

void llp_check_meta_components(struct ldp_ctx *c, void *arg) {
    (void)arg;
    meta_check(c, false);
}

void llp_check_meta_versions(struct ldp_ctx *c, void *arg) {
    (void)arg;
    meta_check(c, true);
}

/* ---- LLP_LAYER_20 ---- */

struct loaded_probe {
    const char *lib;
};

static void probe_loaded_file(struct ldp_ctx *c, void *arg) {
    const struct loaded_probe *p = arg;
    ldp_step(c, "dlopen(%s)", p->lib);
    void *h = dlopen(p->lib, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        ldp_result(c, "dlerror", "%s", e ? e : "?");
        return;
    }
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL && lm->l_name != NULL)
        ldp_result(c, "loaded", "%s", lm->l_name);
}

void llp_check_stale(struct ldp_ctx *c, void *arg) {
    (void)arg;
    enum ldp_verdict v = LDP_PASS;
    char reason[1200] = "";
#define SET(verdict, ...)                                                                                              \
    do {                                                                                                               \
        if (llp_worse(v, verdict) != v || v == LDP_PASS) snprintf(reason, sizeof reason, __VA_ARGS__);                 \
        v = llp_worse(v, verdict);                                                                                     \
    } while (0)
    size_t n = 0;
    struct other *o = scan_others(&n);
    ldp_evidence(c, "%zu other layer manifest(s) in the search directories, %s's directory and the command line", n,
                 llp_man->path);
    int libraries = 0;
    for (uint32_t i = 0; i < llp_man->file.count; i++) {
        const struct vkl_layer_manifest *m = &llp_man->file.layers[i];
        const char *name = m->props.layerName;
        /* Another manifest declaring the same layer: one of the two is left over. */
        for (size_t k = 0; k < n; k++)
            for (uint32_t j = 0; j < o[k].file.count; j++)
                if (strcmp(o[k].file.layers[j].props.layerName, name) == 0) {
                    const char *ol = o[k].file.layers[j].library_path;
                    struct stat st;
                    bool gone = ol != NULL && strchr(ol, '/') != NULL && stat(ol, &st) != 0;
                    ldp_evidence(c, "%s is also declared by %s (library %s%s)", name, o[k].path,
                                 ol ? ol : "none: meta-layer", gone ? ", which does not exist" : "");
                    SET(LDP_WARN,
                        "layer %s is also declared by %s%s: a manifest left behind by an upgrade or uninstall", name,
                        o[k].path, gone ? " (whose library is gone)" : "");
                }
        if (m->library_path == NULL) continue; /* meta-layer */
        libraries++;
        const char *lib = m->library_path;
        if (llp_man->library_path_written != NULL && llp_man->library_path_written[i] != NULL)
            ldp_evidence(c, "%s: library_path %s is %s as dlopen expands it", name, llp_man->library_path_written[i],
                         lib);
        if (strchr(lib, '/') == NULL) {
            ldp_evidence(c, "%s: library_path %s is a bare name (found through the dynamic linker's search)", name,
                         lib);
        } else {
            struct stat st;
            if (stat(lib, &st) != 0) {
                int e = errno;
                ldp_evidence(c, "%s: library %s: %s", name, lib, strerror(e));
                SET(LDP_FAIL, "layer %s: the library %s %s (a stale manifest)", name, lib,
                    e == ENOENT || e == ENOTDIR ? "does not exist" : strerror(e));
                continue;
            }
            if (!S_ISREG(st.st_mode)) {
                SET(LDP_FAIL, "layer %s: the library %s is %s, not a regular file", name, lib,
                    ldp_file_type_name((unsigned)st.st_mode));
                continue;
            }
        }
        /* Which file the dynamic linker really loads for that name (in a probe). */
        struct loaded_probe lp = {lib};
        struct ldp_child ch;
        ldp_probe(c, probe_loaded_file, &lp, &ch);
        char buf[PATH_MAX + 64];
        const char *loaded = ldp_child_get(&ch, "loaded", buf, sizeof buf);
        char err[500];
        const char *dl = ldp_child_get(&ch, "dlerror", err, sizeof err);
        if (ch.kind != LDP_EXITED) {
            char d[600];
            ldp_child_describe(&ch, d, sizeof d);
            ldp_evidence(c, "%s: loading the library: %s", name, d);
            SET(LDP_FAIL, "layer %s: loading %s %s", name, lib, d);
        } else if (dl != NULL) {
            ldp_evidence(c, "%s: dlopen: %s", name, dl);
            SET(LDP_FAIL, "layer %s: the library %s cannot be loaded: %s", name, lib, dl);
        } else if (loaded != NULL) {
            char a[PATH_MAX], b[PATH_MAX];
            bool same = strchr(lib, '/') == NULL ||
                        (realpath(lib, a) != NULL && realpath(loaded, b) != NULL && strcmp(a, b) == 0);
            ldp_evidence(c, "%s: dlopen(%s) loaded %s", name, lib, loaded);
            if (!same) SET(LDP_WARN, "layer %s: dlopen(%s) loaded a different file, %s", name, lib, loaded);
        }
        ldp_child_free(&ch);
        /* Other manifests naming the same library file. */
        char self[PATH_MAX], other[PATH_MAX];
        if (strchr(lib, '/') != NULL && realpath(lib, self) != NULL) {
            for (size_t k = 0; k < n; k++)
                for (uint32_t j = 0; j < o[k].file.count; j++) {
                    const char *ol = o[k].file.layers[j].library_path;
                    if (ol == NULL || strcmp(o[k].file.layers[j].props.layerName, name) == 0) continue;
                    if (realpath(ol, other) != NULL && strcmp(self, other) == 0) {
                        ldp_evidence(c, "%s: library also named by %s (layer %s)", name, o[k].path,
                                     o[k].file.layers[j].props.layerName);
                        SET(LDP_WARN, "the library %s is also named by %s (layer %s): a manifest left behind?", lib,
                            o[k].path, o[k].file.layers[j].props.layerName);
                    }
                }
        }
    }
#undef SET
    free_others(o, n);
    if (v == LDP_PASS)
        ldp_verdict(
            c, LDP_PASS,
            "%d librar%s present and loaded as named; no other manifest declares the layer or names the library",
            libraries, libraries == 1 ? "y" : "ies");
    else
        ldp_verdict(c, v, "%s", reason);
}

void llp_expand_library_paths(struct vkl_layer_manifest_file *file, char ***written) {
    char origin[PATH_MAX] = "";
    if (llp_opt != NULL && llp_opt->loader_path != NULL) {
        const char *slash = strrchr(llp_opt->loader_path, '/');
        if (slash != NULL)
            snprintf(origin, sizeof origin, "%.*s", (int)(slash - llp_opt->loader_path), llp_opt->loader_path);
    }
    if (written != NULL) *written = file->count ? calloc(file->count, sizeof **written) : NULL;
    for (uint32_t i = 0; i < file->count; i++) {
        struct vkl_layer_manifest *l = &file->layers[i];
        char out[PATH_MAX];
        char *copy = NULL;
        if (l->library_path == NULL ||
            !ckr_expand_library_path(l->library_path, origin[0] ? origin : NULL, out, sizeof out, NULL) ||
            (copy = strdup(out)) == NULL)
            continue;
        if (written != NULL && *written != NULL)
            (*written)[i] = l->library_path;
        else
            free(l->library_path);
        l->library_path = copy;
    }
}
