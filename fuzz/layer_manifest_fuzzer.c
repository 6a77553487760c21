/*
 * layer_manifest_fuzzer: the layer-manifest parser (vkl_layer_manifest_parse) on buffers, no files:
 * every file format version, `layer` and `layers`, meta-layers (component_layers), the override
 * layer (override_paths, blacklisted_layers, app_keys), pre_instance_functions, functions renames,
 * extensions with entrypoints, enable/disable_environment.
 *
 * Framing: byte 0 = options: bit 0 implicit (else explicit), bits 1-2 the manifest path the
 * parser is told (absolute, relative, bare, in the root directory; never NULL: the contract
 * does not allow it). The rest is the manifest (exact length).
 * Oracles (loader/internal/layer.h): on failure the output is empty and exactly one rejection line
 * names the file (unless the line was cut by the log length limit); on success every accepted
 * layer is self-consistent: a NUL-terminated non-empty name and description within their arrays,
 * API version variant 0, exactly one of library_path / component_layers (is_meta agrees), implicit
 * layers have a disable_environment, arrays and counts agree, library_arch 0 or this word size,
 * and the file can be finished twice.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_target.h"
#include "fuzz/fuzz_input.h"
#include "loader/internal/layer.h"
#include "loader/internal/log.h"

#define FZ_TARGET "layer_manifest_fuzzer"

struct sink_state {
    unsigned lines, errors, truncated;
};

static void sink_emit(void *ctx, uint32_t flags, const char *line) {
    struct sink_state *s = ctx;
    CHECK(line != NULL);
    s->lines++;
    /* Every loader line ends with its rule tag ("... [LDP_DRIVER_4]"). Messages are cut at
     * VKL_LOG_MAX_MESSAGE bytes, further back over what looks like UTF-8 continuation bytes, so a
     * long path or value can push the tag off the end: such a line cannot be classified. */
    size_t n = strlen(line);
    if (n == 0 || line[n - 1] != ']') s->truncated++;
    if (flags & (VKL_LOG_ERROR | VKL_LOG_WARN)) s->errors++;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    vkl_log_set_level_for_testing(0);
    return 0;
}

static void check_str_array(char **a, uint32_t n) {
    CHECK(n == 0 || a != NULL);
    for (uint32_t i = 0; i < n; i++) {
        CHECK(a[i] != NULL);
        (void)strlen(a[i]);
    }
}

static void check_exts(const struct vkl_layer_extension *e, uint32_t n, bool device) {
    if (n > 0) CHECK(e != NULL);
    for (uint32_t i = 0; i < n; i++) {
        CHECK(memchr(e[i].props.extensionName, 0, VK_MAX_EXTENSION_NAME_SIZE) != NULL);
        if (!device) CHECK(e[i].entrypoint_count == 0);
        check_str_array(e[i].entrypoints, e[i].entrypoint_count);
    }
}

static void check_layer(const struct vkl_layer_manifest *l, bool implicit, const char *path) {
    CHECK(l->manifest_path != NULL);
    CHECK(strcmp(l->manifest_path, path) == 0);
    CHECK(l->is_implicit == implicit);
    CHECK(memchr(l->props.layerName, 0, VK_MAX_EXTENSION_NAME_SIZE) != NULL);
    CHECK(l->props.layerName[0] != '\0');
    CHECK(memchr(l->props.description, 0, VK_MAX_DESCRIPTION_SIZE) != NULL);
    CHECK(VK_API_VERSION_VARIANT(l->props.specVersion) == 0);
    CHECK(l->is_meta == (l->library_path == NULL));
    /* A meta-layer may have no components: vkconfig's override layer with an empty
     * component_layers list only blacklists or redirects. */
    if (!l->is_meta) {
        CHECK(l->library_path[0] != '\0');
        CHECK(l->component_layer_count == 0);
    }
    check_str_array(l->component_layers, l->component_layer_count);
    check_str_array(l->override_paths, l->override_path_count);
    check_str_array(l->blacklisted_layers, l->blacklisted_layer_count);
    check_str_array(l->app_keys, l->app_key_count);
    if (implicit) CHECK(l->disable_env != NULL && l->disable_env[0] != '\0');
    if (l->enable_env != NULL) CHECK(l->enable_env_value != NULL);
    if (l->disable_env != NULL) CHECK(l->disable_env_value != NULL);
    CHECK(l->library_arch == 0 || l->library_arch == (int)(sizeof(void *) * 8));
    check_exts(l->instance_extensions, l->instance_extension_count, false);
    check_exts(l->device_extensions, l->device_extension_count, true);
    for (int i = 0; i < VKL_PRE_INSTANCE_FN_COUNT; i++)
        if (l->pre_instance[i] != NULL) (void)strlen(l->pre_instance[i]);
    if (l->fn_get_instance_proc_addr) (void)strlen(l->fn_get_instance_proc_addr);
    if (l->fn_get_device_proc_addr) (void)strlen(l->fn_get_device_proc_addr);
    if (l->fn_negotiate) (void)strlen(l->fn_negotiate);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct fz_in in = {data, size};
    uint8_t opt = fz_u8(&in);
    bool implicit = opt & 1;
    static const char *const paths[4] = {"/usr/share/vulkan/implicit_layer.d/VkLayer_fuzz.json",
                                         "layers/VkLayer_fuzz.json", "VkLayer_fuzz.json", "/VkLayer_fuzz.json"};
    const char *path = paths[(opt >> 1) & 3];
    size_t len;
    char *buf = fz_rest_copy(&in, &len);
    if (buf == NULL) return 0;

    struct sink_state st = {0};
    struct vkl_log_sink sink = {.emit = sink_emit, .ctx = &st};
    struct vkl_layer_manifest_file f;
    memset(&f, 0xa5, sizeof(f));
    VkResult r = vkl_layer_manifest_parse(path, buf, len, implicit, &sink, &f);
    if (r == VK_SUCCESS) {
        CHECK(f.count == 0 || f.layers != NULL);
        for (uint32_t i = 0; i < f.count; i++) check_layer(&f.layers[i], implicit, path);
    } else {
        CHECK(r == VK_ERROR_INITIALIZATION_FAILED || r == VK_ERROR_OUT_OF_HOST_MEMORY);
        CHECK(f.count == 0 && f.layers == NULL);
        if (r == VK_ERROR_INITIALIZATION_FAILED && st.truncated == 0) CHECK(st.errors >= 1);
    }
    vkl_layer_manifest_file_finish(&f);
    CHECK(f.count == 0 && f.layers == NULL);
    vkl_layer_manifest_file_finish(&f);
    free(buf);
    return 0;
}
