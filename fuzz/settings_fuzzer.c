/*
 * settings_fuzzer: the loader settings-file parser (vkl_settings_parse) on buffers, no files.
 *
 * Framing (fuzz/FRAMING.md): byte 0 picks the executable path the parser compares with app_keys:
 *   0 "/opt/app/bin/game"   1 "/usr/bin/vkcube"   2 NULL (unknown executable)   3.. same as 0
 * The rest is the settings file, passed with its exact length.
 * Oracles (loader/internal/settings.h): a rejected file logs exactly one line naming it and
 * leaves *out zeroed; every rejection line names the file; on success the snapshot obeys the
 * documented shape (markers carry no name/path, other layer entries a non-empty name and path,
 * additional drivers a non-empty path, `active` exactly as [Set] defines it, no object selected =>
 * nothing parsed) and finish() may be called twice.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_target.h"
#include "fuzz/fuzz_input.h"
#include "loader/internal/log.h"
#include "loader/internal/settings.h"

#define FZ_TARGET "settings_fuzzer"

#define PATH "/home/u/.config/vulkan/loader_settings.d/vk_loader_settings.json"

struct sink_state {
    unsigned lines, file_rejections, tagged, tagged_named;
};

static void sink_emit(void *ctx, uint32_t flags, const char *line) {
    struct sink_state *s = ctx;
    CHECK_LOG_LINE(flags, line);
    s->lines++;
    size_t n = strlen(line);
    /* Messages are cut at VKL_LOG_MAX_MESSAGE bytes; a long quoted value may push the tag off. */
    bool whole = n + 8 <= VKL_LOG_MAX_MESSAGE;
    const char *tag = "[RULE_SETTINGS_FILE]";
    if (whole && n >= strlen(tag) && strcmp(line + n - strlen(tag), tag) == 0) {
        s->tagged++;
        /* The file's name comes right after the subsystem word, before any value. */
        static const char prefix[] = "settings file " PATH ": ";
        if (strncmp(line, prefix, strlen(prefix)) != 0) return;
        s->tagged_named++;
        /* A file rejection: one of the file-level reasons right after the name (values quoted
         * in other lines may contain anything, "file ignored" included). */
        static const char *const reasons[] = {"not valid JSON: ", "a string holds an embedded NUL",
                                              "top-level value has type ", "field 'file_format_version' ",
                                              "neither a 'settings' object"};
        const char *rest = line + strlen(prefix);
        for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++)
            if (strncmp(rest, reasons[i], strlen(reasons[i])) == 0 &&
                strcmp(line + n - strlen("; file ignored [RULE_SETTINGS_FILE]"),
                       "; file ignored [RULE_SETTINGS_FILE]") == 0)
                s->file_rejections++;
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    vkl_log_set_level_for_testing(0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct fz_in in = {data, size};
    const char *exe;
    switch (fz_u8(&in) % 4) {
        case 1: exe = "/usr/bin/vkcube"; break;
        case 2: exe = NULL; break;
        default: exe = "/opt/app/bin/game"; break;
    }
    size_t len;
    char *buf = fz_rest_copy(&in, &len);
    if (buf == NULL) return 0;

    struct sink_state st = {0};
    struct vkl_log_sink sink = {.emit = sink_emit, .ctx = &st};
    struct vkl_settings s;
    memset(&s, 0xa5, sizeof(s));
    VkResult r = vkl_settings_parse(PATH, buf, len, exe, &sink, &s);
    CHECK(st.tagged == st.tagged_named); /* every settings line names the file */
    if (r == VK_SUCCESS) {
        CHECK(st.file_rejections == 0);
        CHECK(s.file_path != NULL && strcmp(s.file_path, PATH) == 0);
        CHECK(s.selected_index >= -1);
        if (s.selected_index < 0) {
            CHECK(!s.active && s.layer_count == 0 && s.driver_count == 0 && s.device_count == 0 && s.stderr_log == 0);
        }
        CHECK(s.active == (s.stderr_log != 0 || s.has_layers || s.driver_count > 0 || s.has_device_configurations));
        CHECK(s.has_layers || s.layer_count == 0);
        for (uint32_t i = 0; i < s.layer_count; i++) {
            const struct vkl_settings_layer *l = &s.layers[i];
            CHECK(l->control <= VKL_SETTINGS_LAYER_UNORDERED);
            if (l->control == VKL_SETTINGS_LAYER_UNORDERED) {
                CHECK(l->name == NULL && l->path == NULL);
            } else {
                CHECK(l->name != NULL && l->name[0] != '\0' && l->path != NULL && l->path[0] != '\0');
            }
        }
        for (uint32_t i = 0; i < s.driver_count; i++) CHECK(s.drivers[i].path != NULL && s.drivers[i].path[0] != '\0');
        CHECK(s.has_device_configurations || s.device_count == 0);
        CHECK(vkl_settings_use_driver_env(&s) == !s.has_device_configurations || !s.active);
        vkl_settings_finish(&s);
        CHECK(fz_all_zero(&s, sizeof(s)));
        vkl_settings_finish(&s);
    } else {
        CHECK(r == VK_ERROR_INITIALIZATION_FAILED || r == VK_ERROR_OUT_OF_HOST_MEMORY);
        CHECK(fz_all_zero(&s, sizeof(s)));
        CHECK(st.file_rejections <= 1);
        if (r == VK_ERROR_INITIALIZATION_FAILED) CHECK(st.file_rejections == 1 && st.lines == 1);
        vkl_settings_finish(&s);
    }
    free(buf);
    return 0;
}
