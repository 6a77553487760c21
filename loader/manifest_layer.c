/*
 * Layer manifest parser ([Lyr] "Layer Manifest File Format" and "Layer Manifest File Version
 * History"; spec §4.1-4.3). Buffer in, `struct vkl_layer_manifest_file` out.
 *
 * Every rejection is one log line: "layer manifest <file>: [layer <name>: ]<what> [<RULE>]".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader/internal/json.h"
#include "loader/internal/layer.h"
#include "loader/internal/manifest.h"
#include "loader/internal/util.h"

#define V(maj, min, pat) VK_MAKE_API_VERSION(0, maj, min, pat)
#define CAT VKL_LOG_LAYER
#define SKIP VK_ERROR_INCOMPATIBLE_DRIVER /* internal: this layer is skipped, the file goes on */

/* Same resolution as driver manifests ([Lyr] "library_path": relative to the manifest's
 * directory when it contains a '/', a bare name searched by dlopen, absolute verbatim). */
static char *resolve_library_path(const char *manifest_path, const char *lib) {
    return strchr(lib, '/') == NULL ? vkl_strdup(lib) : vkl_path_beside(manifest_path, lib);
}

static void free_strv(char **v, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

static void free_exts(struct vkl_layer_extension *e, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) free_strv(e[i].entrypoints, e[i].entrypoint_count);
    free(e);
}

void vkl_layer_manifest_finish(struct vkl_layer_manifest *l) {
    if (l == NULL) return;
    free(l->manifest_path);
    free(l->library_path);
    free(l->fn_get_instance_proc_addr);
    free(l->fn_get_device_proc_addr);
    free(l->fn_negotiate);
    free_exts(l->instance_extensions, l->instance_extension_count);
    free_exts(l->device_extensions, l->device_extension_count);
    free(l->enable_env);
    free(l->enable_env_value);
    free(l->disable_env);
    free(l->disable_env_value);
    free_strv(l->component_layers, l->component_layer_count);
    free_strv(l->override_paths, l->override_path_count);
    free_strv(l->blacklisted_layers, l->blacklisted_layer_count);
    free_strv(l->app_keys, l->app_key_count);
    for (int i = 0; i < VKL_PRE_INSTANCE_FN_COUNT; i++) free(l->pre_instance[i]);
    memset(l, 0, sizeof(*l));
}

void vkl_layer_manifest_file_finish(struct vkl_layer_manifest_file *f) {
    if (f == NULL) return;
    for (uint32_t i = 0; i < f->count; i++) vkl_layer_manifest_finish(&f->layers[i]);
    free(f->layers);
    f->layers = NULL;
    f->count = 0;
}

/* Context for the messages of one layer. */
struct ctx {
    const struct vkl_log_sink *log;
    const char *path;
    const char *name; /* "" until known */
    uint32_t version;
    bool implicit;
};

#define LAYER_FMT "layer manifest %s: layer %s: "

static VkResult req_string(const struct ctx *c, const struct vkl_json *obj, const char *key, const char **out) {
    const struct vkl_json *n = vkl_json_get(obj, key);
    *out = NULL;
    if (n == NULL) {
        vkl_log(c->log, VKL_LOG_WARN | CAT, LAYER_FMT "field '%s' is missing; layer skipped [LLP_LAYER_6]", c->path,
                c->name, key);
        return SKIP;
    }
    if (!vkl_json_is_string(n)) {
        vkl_log(c->log, VKL_LOG_WARN | CAT,
                LAYER_FMT "field '%s' has type %s, expected string; layer skipped [LLP_LAYER_6]", c->path, c->name, key,
                vkl_json_type_name(n));
        return SKIP;
    }
    *out = vkl_json_string(n);
    return VK_SUCCESS;
}

/* An array of strings (non-strings are a schema error: the layer is skipped). */
static VkResult string_array(const struct ctx *c, const struct vkl_json *node, const char *field, char ***out,
                             uint32_t *out_n) {
    *out = NULL;
    *out_n = 0;
    if (!vkl_json_is_array(node)) {
        vkl_log(c->log, VKL_LOG_WARN | CAT,
                LAYER_FMT "field '%s' has type %s, expected array of strings; layer skipped [LLP_LAYER_6]", c->path,
                c->name, field, vkl_json_type_name(node));
        return SKIP;
    }
    size_t n = vkl_json_array_size(node);
    if (n == 0) return VK_SUCCESS;
    char **v = calloc(n, sizeof(char *));
    if (v == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    /* RULE_ADVERSARIAL_INPUT: one pass over the list (an indexed walk was quadratic). */
    size_t i = 0;
    for (const struct vkl_json *e = vkl_json_first(node); e != NULL && i < n; e = vkl_json_next(e), i++) {
        if (!vkl_json_is_string(e)) {
            vkl_log(c->log, VKL_LOG_WARN | CAT,
                    LAYER_FMT "field '%s[%zu]' has type %s, expected string; layer skipped [LLP_LAYER_6]", c->path,
                    c->name, field, i, vkl_json_type_name(e));
            free_strv(v, (uint32_t)i);
            return SKIP;
        }
        v[i] = vkl_strdup(vkl_json_string(e));
        if (v[i] == NULL) {
            free_strv(v, (uint32_t)i);
            return VK_ERROR_OUT_OF_HOST_MEMORY;
        }
    }
    *out = v;
    *out_n = (uint32_t)n;
    return VK_SUCCESS;
}

/* spec_version: a decimal string as the documents show; a JSON number is accepted too. */
static bool parse_u32(const struct vkl_json *n, uint32_t *out) {
    if (vkl_json_is_number(n)) {
        double d = vkl_json_number(n);
        if (d < 0 || d > 4294967295.0 || d != (double)(uint32_t)d) return false;
        *out = (uint32_t)d;
        return true;
    }
    const char *s = vkl_json_string(n);
    if (s == NULL || *s == '\0') return false;
    unsigned long long v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return false;
        v = v * 10 + (unsigned)(*p - '0');
        if (v > 0xffffffffull) return false;
    }
    *out = (uint32_t)v;
    return true;
}

static VkResult extensions(const struct ctx *c, const struct vkl_json *node, const char *field, bool device,
                           struct vkl_layer_extension **out, uint32_t *out_n) {
    *out = NULL;
    *out_n = 0;
    if (node == NULL) return VK_SUCCESS;
    if (!vkl_json_is_array(node)) {
        vkl_log(c->log, VKL_LOG_WARN | CAT,
                LAYER_FMT "field '%s' has type %s, expected array; layer skipped [LLP_LAYER_6]", c->path, c->name,
                field, vkl_json_type_name(node));
        return SKIP;
    }
    size_t n = vkl_json_array_size(node);
    if (n == 0) return VK_SUCCESS;
    struct vkl_layer_extension *v = calloc(n, sizeof(*v));
    if (v == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    uint32_t k = 0;
    VkResult r = VK_SUCCESS;
    size_t i = 0;
    for (const struct vkl_json *e = vkl_json_first(node); e != NULL && i < n; e = vkl_json_next(e), i++) {
        const char *name = vkl_json_string(vkl_json_get(e, "name"));
        uint32_t spec = 0;
        const struct vkl_json *sv = vkl_json_get(e, "spec_version");
        if (name == NULL || strlen(name) >= VK_MAX_EXTENSION_NAME_SIZE || (sv != NULL && !parse_u32(sv, &spec))) {
            /* One bad element does not make the layer unusable (spec §4.3: element skipped). */
            vkl_log(c->log, VKL_LOG_WARN | CAT,
                    LAYER_FMT "field '%s[%zu]' needs a string 'name' (< %d bytes) and a numeric 'spec_version'; "
                              "entry ignored [LLP_LAYER_6]",
                    c->path, c->name, field, i, VK_MAX_EXTENSION_NAME_SIZE);
            continue;
        }
        memcpy(v[k].props.extensionName, name, strlen(name) + 1);
        v[k].props.specVersion = spec;
        const struct vkl_json *eps = vkl_json_get(e, "entrypoints");
        if (device && eps != NULL) {
            r = string_array(c, eps, "device_extensions.entrypoints", &v[k].entrypoints, &v[k].entrypoint_count);
            if (r != VK_SUCCESS) {
                k++;
                goto out;
            }
        }
        k++;
    }
out:
    if (r != VK_SUCCESS) {
        free_exts(v, k);
        return r;
    }
    *out = v;
    *out_n = k;
    return VK_SUCCESS;
}

/* enable_environment / disable_environment: an object whose FIRST member (name -> value string)
 * is the variable ([Lyr] table; spec §4.3). Returns false when absent or unusable. */
static VkResult env_pair(const struct ctx *c, const struct vkl_json *obj, const char *field, char **name, char **value,
                         bool *usable) {
    *usable = false;
    const struct vkl_json *n = vkl_json_get(obj, field);
    if (n == NULL) return VK_SUCCESS;
    const struct vkl_json *m = vkl_json_is_object(n) ? vkl_json_first(n) : NULL;
    const char *key = vkl_json_key(m);
    if (m == NULL || !vkl_json_is_string(m) || key == NULL || key[0] == '\0') {
        vkl_log(c->log, VKL_LOG_WARN | CAT,
                LAYER_FMT "field '%s' must be an object whose first member maps a variable name to a string; "
                          "field ignored [LLP_LAYER_6]",
                c->path, c->name, field);
        return VK_SUCCESS;
    }
    *name = vkl_strdup(key);
    *value = vkl_strdup(vkl_json_string(m));
    if (*name == NULL || *value == NULL) return VK_ERROR_OUT_OF_HOST_MEMORY;
    *usable = true;
    return VK_SUCCESS;
}

static void version_warn(const struct ctx *c, const char *field, uint32_t need, const char *rule) {
    if (c->version >= need) return;
    vkl_log(c->log, VKL_LOG_WARN | CAT,
            LAYER_FMT "field '%s' needs file_format_version %u.%u.%u or newer (file says %u.%u.%u); used anyway [%s]",
            c->path, c->name, field, VK_API_VERSION_MAJOR(need), VK_API_VERSION_MINOR(need), VK_API_VERSION_PATCH(need),
            VK_API_VERSION_MAJOR(c->version), VK_API_VERSION_MINOR(c->version), VK_API_VERSION_PATCH(c->version), rule);
}

static VkResult parse_layer(struct ctx *c, const struct vkl_json *obj, struct vkl_layer_manifest *l) {
    VkResult r = VK_SUCCESS;
    const char *s;
    memset(l, 0, sizeof(*l));
    c->name = "(unnamed)";
    if (!vkl_json_is_object(obj)) {
        vkl_log(c->log, VKL_LOG_WARN | CAT,
                "layer manifest %s: a layer entry has type %s, expected object [LLP_LAYER_6]", c->path,
                vkl_json_type_name(obj));
        return SKIP;
    }
    if ((r = req_string(c, obj, "name", &s)) != VK_SUCCESS) goto out;
    if (strlen(s) >= VK_MAX_EXTENSION_NAME_SIZE || s[0] == '\0') {
        vkl_log(c->log, VKL_LOG_WARN | CAT,
                "layer manifest %s: field 'name' is empty or longer than %d bytes; layer skipped [LLP_LAYER_6]",
                c->path, VK_MAX_EXTENSION_NAME_SIZE - 1);
        r = SKIP;
        goto out;
    }
    memcpy(l->props.layerName, s, strlen(s) + 1);
    c->name = l->props.layerName;
    if (strncmp(s, "VK_LAYER_", 9) != 0)
        vkl_log(c->log, VKL_LOG_WARN | CAT,
                LAYER_FMT "field 'name' does not follow the VK_LAYER_<AUTHOR>_<name> convention [LLP_LAYER_3]", c->path,
                c->name);

    if ((r = req_string(c, obj, "type", &s)) != VK_SUCCESS) goto out;
    if (strcmp(s, "INSTANCE") != 0 && strcmp(s, "GLOBAL") != 0) {
        vkl_log(c->log, VKL_LOG_WARN | CAT,
                LAYER_FMT "field 'type' is \"%s\"; only INSTANCE and GLOBAL are loaded (device layers are "
                          "deprecated); layer skipped [LLP_LAYER_6]",
                c->path, c->name, s);
        r = SKIP;
        goto out;
    }

    if ((r = req_string(c, obj, "api_version", &s)) != VK_SUCCESS) goto out;
    if (!vkl_parse_version_string(s, true, &l->props.specVersion)) {
        /* where the Khronos loader reads a non-zero variant from it, its sentence leads the line */
        uint32_t variant = vkl_version_string_variant(s);
        if (variant != 0)
            vkl_log(c->log, VKL_LOG_WARN | CAT,
                    "Layer \"%s\" has an 'api_version' field which contains a non-zero variant value of %u.  Skipping "
                    "Layer. (layer manifest %s: field 'api_version' \"%s\" is not a maj.min.patch version) "
                    "[LLP_LAYER_6]",
                    c->name, variant, c->path, s);
        else
            vkl_log(c->log, VKL_LOG_WARN | CAT,
                    LAYER_FMT "field 'api_version' \"%s\" is not a maj.min.patch version; layer skipped [LLP_LAYER_6]",
                    c->path, c->name, s);
        r = SKIP;
        goto out;
    }
    if (VK_API_VERSION_VARIANT(l->props.specVersion) != 0) {
        vkl_log(c->log, VKL_LOG_INFO | CAT,
                "Layer \"%s\" has an 'api_version' field which contains a non-zero variant value of %u.  Skipping "
                "Layer. layer manifest %s: field 'api_version' \"%s\" names Vulkan variant %u, not Vulkan; "
                "layer skipped [LLP_LOADER_4]",
                c->name, VK_API_VERSION_VARIANT(l->props.specVersion), c->path, s,
                VK_API_VERSION_VARIANT(l->props.specVersion));
        r = SKIP;
        goto out;
    }

    if ((r = req_string(c, obj, "implementation_version", &s)) != VK_SUCCESS) goto out;
    const struct vkl_json *iv = vkl_json_get(obj, "implementation_version");
    if (!parse_u32(iv, &l->props.implementationVersion)) {
        vkl_log(c->log, VKL_LOG_WARN | CAT,
                LAYER_FMT "field 'implementation_version' \"%s\" is not a decimal number; layer skipped [LLP_LAYER_6]",
                c->path, c->name, s);
        r = SKIP;
        goto out;
    }

    if ((r = req_string(c, obj, "description", &s)) != VK_SUCCESS) goto out;
    if (strlen(s) >= VK_MAX_DESCRIPTION_SIZE) {
        vkl_log(c->log, VKL_LOG_WARN | CAT,
                LAYER_FMT "field 'description' is longer than %d bytes; layer skipped [LLP_LAYER_6]", c->path, c->name,
                VK_MAX_DESCRIPTION_SIZE - 1);
        r = SKIP;
        goto out;
    }
    memcpy(l->props.description, s, strlen(s) + 1);

    /* library_path xor component_layers (meta-layers, 1.1.1). */
    const struct vkl_json *lib = vkl_json_get(obj, "library_path");
    const struct vkl_json *comps = vkl_json_get(obj, "component_layers");
    if (lib != NULL && comps != NULL) {
        vkl_log(c->log, VKL_LOG_WARN | CAT,
                LAYER_FMT "has both 'library_path' and 'component_layers'; layer skipped [RULE_LYR_MANIFEST_V1_1_1]",
                c->path, c->name);
        r = SKIP;
        goto out;
    }
    if (lib == NULL && comps == NULL) {
        vkl_log(c->log, VKL_LOG_WARN | CAT,
                LAYER_FMT "field 'library_path' is missing (and no 'component_layers'); layer skipped [LLP_LAYER_6]",
                c->path, c->name);
        r = SKIP;
        goto out;
    }
    if (lib != NULL) {
        if ((r = req_string(c, obj, "library_path", &s)) != VK_SUCCESS) goto out;
        if (s[0] == '\0') {
            vkl_log(c->log, VKL_LOG_WARN | CAT, LAYER_FMT "field 'library_path' is empty; layer skipped [LLP_LAYER_6]",
                    c->path, c->name);
            r = SKIP;
            goto out;
        }
        if ((l->library_path = resolve_library_path(c->path, s)) == NULL) goto oom;
    } else {
        version_warn(c, "component_layers", V(1, 1, 1), "RULE_LYR_MANIFEST_V1_1_1");
        if ((r = string_array(c, comps, "component_layers", &l->component_layers, &l->component_layer_count)) !=
            VK_SUCCESS)
            goto out;
        l->is_meta = true;
    }

    /* functions: renames. The negotiate rename exists from 1.1.0 (RULE_LYR_MANIFEST_V1_1_0). */
    const struct vkl_json *fns = vkl_json_get(obj, "functions");
    if (fns != NULL) {
        if (!vkl_json_is_object(fns)) {
            vkl_log(c->log, VKL_LOG_WARN | CAT,
                    LAYER_FMT "field 'functions' has type %s, expected object; layer skipped [LLP_LAYER_6]", c->path,
                    c->name, vkl_json_type_name(fns));
            r = SKIP;
            goto out;
        }
        static const char *const keys[3] = {"vkGetInstanceProcAddr", "vkGetDeviceProcAddr",
                                            "vkNegotiateLoaderLayerInterfaceVersion"};
        char **dst[3] = {&l->fn_get_instance_proc_addr, &l->fn_get_device_proc_addr, &l->fn_negotiate};
        for (int i = 0; i < 3; i++) {
            const struct vkl_json *f = vkl_json_get(fns, keys[i]);
            if (f == NULL) continue;
            if (!vkl_json_is_string(f) || vkl_json_string(f)[0] == '\0') {
                vkl_log(c->log, VKL_LOG_WARN | CAT,
                        LAYER_FMT "field 'functions.%s' must be a non-empty string; layer skipped [LLP_LAYER_6]",
                        c->path, c->name, keys[i]);
                r = SKIP;
                goto out;
            }
            if (i == 2 && c->version < V(1, 1, 0)) {
                /* INFO: real manifests (Mesa's device_select) carry it at 1.0.0 with the default
                 * name, which changes nothing. */
                vkl_log(c->log, VKL_LOG_INFO | CAT,
                        LAYER_FMT "field 'functions.%s' needs file_format_version 1.1.0; ignored "
                                  "[RULE_LYR_MANIFEST_V1_1_0]",
                        c->path, c->name, keys[i]);
                continue;
            }
            if ((*dst[i] = vkl_strdup(vkl_json_string(f))) == NULL) goto oom;
        }
    }

    if ((r = extensions(c, vkl_json_get(obj, "instance_extensions"), "instance_extensions", false,
                        &l->instance_extensions, &l->instance_extension_count)) != VK_SUCCESS)
        goto out;
    if ((r = extensions(c, vkl_json_get(obj, "device_extensions"), "device_extensions", true, &l->device_extensions,
                        &l->device_extension_count)) != VK_SUCCESS)
        goto out;

    bool enable_ok, disable_ok;
    if ((r = env_pair(c, obj, "enable_environment", &l->enable_env, &l->enable_env_value, &enable_ok)) != VK_SUCCESS)
        goto out;
    if ((r = env_pair(c, obj, "disable_environment", &l->disable_env, &l->disable_env_value, &disable_ok)) !=
        VK_SUCCESS)
        goto out;
    (void)enable_ok;
    if (c->implicit && !disable_ok) {
        vkl_log(c->log, VKL_LOG_WARN | CAT,
                LAYER_FMT "field 'disable_environment' is missing or unusable; implicit layer skipped [LLP_LAYER_9]",
                c->path, c->name);
        r = SKIP;
        goto out;
    }

    /* Override-layer fields ([Lyr] "Override Meta-Layer"); parsed on any layer, used only by the
     * active override layer. */
    const struct vkl_json *f;
    if ((f = vkl_json_get(obj, "override_paths")) != NULL) {
        if (c->version < V(1, 1, 0)) /* the Khronos loader's sentence, at its threshold; ours follows */
            vkl_log(c->log, VKL_LOG_WARN | CAT,
                    "Layer \"%s\" contains meta-layer-specific override paths, but using older JSON file version. "
                    "[RULE_LYR_OVERRIDE]",
                    c->name);
        version_warn(c, "override_paths", V(1, 1, 1), "RULE_LYR_OVERRIDE");
        if ((r = string_array(c, f, "override_paths", &l->override_paths, &l->override_path_count)) != VK_SUCCESS)
            goto out;
    }
    if ((f = vkl_json_get(obj, "blacklisted_layers")) != NULL) {
        if ((r = string_array(c, f, "blacklisted_layers", &l->blacklisted_layers, &l->blacklisted_layer_count)) !=
            VK_SUCCESS)
            goto out;
    }
    if ((f = vkl_json_get(obj, "app_keys")) != NULL) {
        if ((r = string_array(c, f, "app_keys", &l->app_keys, &l->app_key_count)) != VK_SUCCESS) goto out;
    }

    /* pre_instance_functions: implicit layers, 1.1.2 (RULE_LYR_MANIFEST_V1_1_2). */
    if ((f = vkl_json_get(obj, "pre_instance_functions")) != NULL) {
        if (!c->implicit || c->version < V(1, 1, 2) || !vkl_json_is_object(f)) {
            vkl_log(c->log, VKL_LOG_WARN | CAT,
                    LAYER_FMT "field 'pre_instance_functions' %s; ignored [RULE_LYR_MANIFEST_V1_1_2]", c->path, c->name,
                    !c->implicit              ? "is only honoured for implicit layers"
                    : c->version < V(1, 1, 2) ? "needs file_format_version 1.1.2"
                                              : "is not an object");
        } else {
            static const char *const keys[VKL_PRE_INSTANCE_FN_COUNT] = {"vkEnumerateInstanceExtensionProperties",
                                                                        "vkEnumerateInstanceLayerProperties",
                                                                        "vkEnumerateInstanceVersion"};
            for (int i = 0; i < VKL_PRE_INSTANCE_FN_COUNT; i++) {
                const char *sym = vkl_json_string(vkl_json_get(f, keys[i]));
                if (sym == NULL || sym[0] == '\0') continue;
                if ((l->pre_instance[i] = vkl_strdup(sym)) == NULL) goto oom;
            }
        }
    }

    /* library_arch (1.2.1): "32" or "64"; the other word size is skipped. */
    if ((f = vkl_json_get(obj, "library_arch")) != NULL) {
        const char *arch = vkl_json_string(f);
        int bits = (int)(sizeof(void *) * 8);
        if (arch != NULL && (strcmp(arch, "32") == 0 || strcmp(arch, "64") == 0)) {
            l->library_arch = arch[0] == '3' ? 32 : 64;
            if (l->library_arch != bits) {
                vkl_log(c->log, VKL_LOG_INFO | CAT,
                        "The library architecture in layer %s doesn't match the current running architecture, "
                        "skipping this layer. layer %s: field 'library_arch' is \"%s\" but the loader is %d-bit "
                        "[RULE_LYR_MANIFEST_V1_2_1]",
                        c->path, c->name, arch, bits);
                r = SKIP;
                goto out;
            }
        } else {
            vkl_log(c->log, VKL_LOG_WARN | CAT,
                    LAYER_FMT "field 'library_arch' must be \"32\" or \"64\"; ignored [RULE_LYR_MANIFEST_V1_2_1]",
                    c->path, c->name);
        }
    }
    if ((l->manifest_path = vkl_strdup(c->path)) == NULL) goto oom;
    l->file_format_version = c->version;
    l->is_implicit = c->implicit;
    return VK_SUCCESS;
oom:
    r = VK_ERROR_OUT_OF_HOST_MEMORY;
out:
    vkl_layer_manifest_finish(l);
    return r;
}

static bool known_version(uint32_t v) {
    static const uint32_t known[] = {V(1, 0, 0), V(1, 0, 1), V(1, 1, 0), V(1, 1, 1),
                                     V(1, 1, 2), V(1, 2, 0), V(1, 2, 1)};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
        if (known[i] == v) return true;
    return false;
}

/* RULE_LYR_MANIFEST_V1_0_0 (the required fields), RULE_LYR_MANIFEST_V1_2_0 (1.2.x parsed like
 * 1.1.x, unknown keys ignored). */
VkResult vkl_layer_manifest_parse(const char *path, const char *buf, size_t len, bool implicit,
                                  const struct vkl_log_sink *log, struct vkl_layer_manifest_file *out) {
    struct vkl_json *root = NULL;
    char err[160];
    VkResult r;
    memset(out, 0, sizeof(*out));
    struct ctx c = {.log = log, .path = path, .name = "", .implicit = implicit};

    r = vkl_json_parse(buf, len, &root, err, sizeof(err));
    if (r == VK_ERROR_OUT_OF_HOST_MEMORY) goto out;
    if (r != VK_SUCCESS) {
        vkl_log(log, VKL_LOG_ERROR | CAT, "layer manifest %s: not valid JSON (%s); file skipped [LLP_LAYER_6]", path,
                err);
        goto out;
    }
    r = VK_ERROR_INITIALIZATION_FAILED;
    if (!vkl_json_is_object(root)) {
        vkl_log(log, VKL_LOG_WARN | CAT, "layer manifest %s: top level has type %s, expected object [LLP_LAYER_6]",
                path, vkl_json_type_name(root));
        goto out;
    }
    const struct vkl_json *fv = vkl_json_get(root, "file_format_version");
    if (!vkl_json_is_string(fv) || !vkl_parse_version_string(vkl_json_string(fv), false, &c.version)) {
        vkl_log(log, VKL_LOG_WARN | CAT,
                "layer manifest %s: field 'file_format_version' is %s; expected a \"maj.min.patch\" string; file "
                "skipped [LLP_LAYER_6]",
                path, fv == NULL ? "missing" : "not a version string");
        goto out;
    }
    if (!known_version(c.version))
        vkl_log(log, VKL_LOG_INFO | CAT,
                "loader_add_layer_properties: %s has unknown layer manifest file version %s.  May cause errors. "
                "Parsed with the 1.2.1 field set [RULE_LYR_MANIFEST_V1_2_1]",
                path, vkl_json_string(fv));

    /* Collect the layer objects: `layers` (1.0.1) or one or more sibling `layer` keys. */
    const struct vkl_json *layers = vkl_json_get(root, "layers");
    size_t n = 0;
    const struct vkl_json **objs = NULL;
    if (layers != NULL) {
        if (!vkl_json_is_array(layers)) {
            vkl_log(log, VKL_LOG_WARN | CAT,
                    "layer manifest %s: field 'layers' has type %s, expected array [LLP_LAYER_6]", path,
                    vkl_json_type_name(layers));
            goto out;
        }
        if (c.version < V(1, 0, 1))
            vkl_log(log, VKL_LOG_WARN | CAT,
                    "layer manifest %s: field 'layers' needs file_format_version 1.0.1; used anyway "
                    "[RULE_LYR_MANIFEST_V1_0_1]",
                    path);
        n = vkl_json_array_size(layers);
        objs = calloc(n ? n : 1, sizeof(*objs));
        if (objs == NULL) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
            goto out;
        }
        size_t i = 0;
        for (const struct vkl_json *e = vkl_json_first(layers); e != NULL && i < n; e = vkl_json_next(e)) objs[i++] = e;
    } else {
        size_t members = vkl_json_object_size(root);
        objs = calloc(members ? members : 1, sizeof(*objs));
        if (objs == NULL) {
            r = VK_ERROR_OUT_OF_HOST_MEMORY;
            goto out;
        }
        VKL_JSON_FOR_EACH(m, root) {
            const char *key = vkl_json_key(m);
            if (n < members && key != NULL && strcmp(key, "layer") == 0) objs[n++] = m;
        }
        if (n == 0) {
            vkl_log(log, VKL_LOG_WARN | CAT, "layer manifest %s: field 'layer' (or 'layers') is missing [LLP_LAYER_6]",
                    path);
            free(objs);
            goto out;
        }
        if (n > 1 && c.version >= V(1, 0, 1)) {
            /* 1.0.1 replaced sibling `layer` keys by the `layers` array. */
            vkl_log(log, VKL_LOG_WARN | CAT,
                    "layer manifest %s: %zu sibling 'layer' fields; from file_format_version 1.0.1 use 'layers'; "
                    "file skipped [RULE_LYR_MANIFEST_V1_0_1]",
                    path, n);
            free(objs);
            goto out;
        }
    }

    out->layers = calloc(n ? n : 1, sizeof(*out->layers));
    if (out->layers == NULL) {
        free(objs);
        r = VK_ERROR_OUT_OF_HOST_MEMORY;
        goto out;
    }
    r = VK_SUCCESS;
    for (size_t i = 0; i < n; i++) {
        VkResult lr = parse_layer(&c, objs[i], &out->layers[out->count]);
        if (lr == VK_ERROR_OUT_OF_HOST_MEMORY) {
            r = lr;
            break;
        }
        if (lr == VK_SUCCESS) out->count++;
    }
    free(objs);
out:
    vkl_json_free(root);
    if (r != VK_SUCCESS) vkl_layer_manifest_file_finish(out);
    return r;
}
