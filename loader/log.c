/*
 * Loader logging (see loader/internal/log.h for the contract).
 */
#include "loader/internal/log.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "loader/internal/env.h"

static pthread_once_t g_log_once = PTHREAD_ONCE_INIT;
static _Atomic uint32_t g_log_level = 0;

/* The log words, one table for both readers. VK_LOADER_DEBUG: the documented words ([Arch] "Table of
 * Debug Environment Variables", [Dbg] "Loader Logging": error, warn, info, debug, layer, driver,
 * all) plus what the Khronos loader also takes (spec §1.5), so that a setting that works there
 * works here: any prefix of a word ("e", "err", "w", "a"), tried in the Khronos loader's order (so
 * "d" is debug, "i" info), and the undocumented perf and the driver aliases implem and icd. A token
 * longer than every word it starts, an upper-case or space-padded token, is ignored. The settings
 * file's stderr_log ([Set], settings.c) takes its words whole, validation included. */
enum { WORD_ENV = 1, WORD_SETTINGS = 2, WORD_BOTH = 3 };
static const struct level_word {
    const char *word;
    uint32_t bits;
    uint8_t readers;
} k_level_words[] = {
    {"all", VKL_LOG_ALL, WORD_BOTH},
    {"warn", VKL_LOG_WARN, WORD_BOTH},
    {"info", VKL_LOG_INFO, WORD_BOTH},
    {"perf", VKL_LOG_PERF, WORD_BOTH},
    {"error", VKL_LOG_ERROR, WORD_BOTH},
    {"debug", VKL_LOG_DEBUG, WORD_BOTH},
    {"layer", VKL_LOG_LAYER, WORD_BOTH},
    {"driver", VKL_LOG_DRIVER, WORD_BOTH},
    {"implem", VKL_LOG_DRIVER, WORD_ENV},
    {"icd", VKL_LOG_DRIVER, WORD_ENV},
    {"validation", VKL_LOG_VALIDATION, WORD_SETTINGS},
};

uint32_t vkl_log_word_bits(const char *w, size_t len, bool settings) {
    for (size_t i = 0; len > 0 && i < sizeof(k_level_words) / sizeof(k_level_words[0]); i++) {
        const struct level_word *k = &k_level_words[i];
        if (!(k->readers & (settings ? WORD_SETTINGS : WORD_ENV))) continue;
        size_t n = strlen(k->word);
        if ((settings ? len == n : len <= n) && memcmp(k->word, w, len) == 0) return k->bits;
    }
    return 0;
}

uint32_t vkl_log_parse_level(const char *value, size_t len) {
    uint32_t level = 0;
    if (value == NULL) return 0;
    size_t start = 0;
    while (start <= len) {
        size_t end = start;
        while (end < len && value[end] != ',') end++;
        level |= vkl_log_word_bits(value + start, end - start, false);
        start = end + 1;
    }
    return level;
}

/* RULE_ENV_ELEVATED_LOADER_DEBUG: VK_LOADER_DEBUG is honoured when elevated too. */
static void log_init_once(void) {
    /* VK_LOADER_DEBUG is a plain variable: honoured even when elevated (spec §2.2). */
    const char *value = vkl_getenv("VK_LOADER_DEBUG");
    uint32_t level = value != NULL ? vkl_log_parse_level(value, strlen(value)) : 0;
    atomic_store(&g_log_level, level);
}

void vkl_log_init(void) { pthread_once(&g_log_once, log_init_once); }

/* The settings file's stderr_log (settings.c), when non-zero, replaces VK_LOADER_DEBUG ([Set]). */
static _Atomic uint32_t g_settings_level = 0;
void vkl_log_set_settings_level(uint32_t mask) { atomic_store(&g_settings_level, mask); }

uint32_t vkl_log_level(void) {
    vkl_log_init();
    uint32_t from_settings = atomic_load(&g_settings_level);
    return from_settings != 0 ? from_settings : atomic_load(&g_log_level);
}

void vkl_log_set_level_for_testing(uint32_t level) {
    vkl_log_init(); /* so a later first-use init cannot overwrite the forced level */
    atomic_store(&g_log_level, level);
}

/* Cuts `s` to at most `max` bytes without splitting a UTF-8 sequence; returns the new length. */
static size_t utf8_cut(const char *s, size_t len, size_t max) {
    if (len <= max) return len;
    /* A cut at `max` splits a character only when s[max] continues a well-formed sequence whose
     * lead byte lies at most 3 bytes back and whose length reaches past the cut: then cut before
     * that lead byte. Anything else (stray continuation bytes, invalid UTF-8) is cut as bytes, so
     * a run of continuation bytes never eats the whole message. */
    for (size_t back = 1; back <= 3 && back <= max; back++) {
        unsigned char c = (unsigned char)s[max - back + 1];
        if ((c & 0xC0u) != 0x80u) return max; /* s[max - back + 1] starts a character */
        unsigned char lead = (unsigned char)s[max - back];
        if ((lead & 0xC0u) == 0x80u) continue; /* keep looking for the lead byte */
        size_t seq = (lead & 0xE0u) == 0xC0u ? 2 : (lead & 0xF0u) == 0xE0u ? 3 : (lead & 0xF8u) == 0xF0u ? 4 : 0;
        /* the sequence covers s[max - back .. max - back + seq - 1]; it is split when that reaches s[max] */
        return (seq > back) ? max - back : max;
    }
    return max;
}

/* A trailing " [ID]" (no spaces inside, at most 64 bytes) of `s` (`len` bytes): its length, or 0. */
static size_t trailing_tag(const char *s, size_t len) {
    if (len < 3 || s[len - 1] != ']') return 0;
    for (size_t k = 2; k <= 64 && k < len; k++) {
        char c = s[len - k];
        if (c == ' ') return 0;
        if (c == '[') return s[len - k - 1] == ' ' ? k + 1 : 0;
    }
    return 0;
}

void vkl_log_cut_message(char out[VKL_LOG_MAX_MESSAGE + 1], const char *message) {
    size_t len = strlen(message);
    if (len <= VKL_LOG_MAX_MESSAGE) {
        memcpy(out, message, len + 1);
        return;
    }
    /* Long lines are paths; the rule ID at the end is what readers and tests look for: keep it
     * ("<head>... [ID]"). */
    size_t tag = trailing_tag(message, len);
    static const char ellipsis[] = "...";
    size_t head =
        utf8_cut(message, len, tag > 0 ? VKL_LOG_MAX_MESSAGE - tag - (sizeof(ellipsis) - 1) : VKL_LOG_MAX_MESSAGE);
    memcpy(out, message, head);
    if (tag > 0) {
        memcpy(out + head, ellipsis, sizeof(ellipsis) - 1);
        head += sizeof(ellipsis) - 1;
        memcpy(out + head, message + len - tag, tag);
        head += tag;
    }
    out[head] = '\0';
}

/* RULE_LOG_FORMAT */
size_t vkl_log_format_line(char *buf, size_t buf_len, uint32_t flags, const char *message) {
    if (buf == NULL || buf_len == 0) return 0;
    const char *sev = NULL;
    if (flags & VKL_LOG_ERROR)
        sev = "ERROR";
    else if (flags & VKL_LOG_WARN)
        sev = "WARNING";
    else if (flags & VKL_LOG_INFO)
        sev = "INFO";
    else if (flags & VKL_LOG_DEBUG)
        sev = "DEBUG";
    const char *cat = NULL;
    if (flags & VKL_LOG_PERF)
        cat = "PERF";
    else if (flags & VKL_LOG_DRIVER)
        cat = "DRIVER";
    else if (flags & VKL_LOG_LAYER)
        cat = "LAYER";

    char header[64];
    int n = snprintf(header, sizeof(header), "[Vulkan Loader] %s%s%s: ", sev ? sev : "", (sev && cat) ? " | " : "",
                     cat ? cat : "");
    size_t hlen = n > 0 ? (size_t)n : 0;
    /* Khronos log.c pads the header with spaces so messages start at column 32 (spec §7.11). */
    while (hlen < 32 && hlen + 1 < sizeof(header)) header[hlen++] = ' ';
    header[hlen] = '\0';

    if (message == NULL) message = "";
    size_t mlen = utf8_cut(message, strlen(message), VKL_LOG_MAX_MESSAGE);
    int w = snprintf(buf, buf_len, "%s%.*s\n", header, (int)mlen, message);
    if (w < 0) {
        buf[0] = '\0';
        return 0;
    }
    return (size_t)w < buf_len ? (size_t)w : buf_len - 1;
}

void vkl_logv(const struct vkl_log_sink *sink, uint32_t flags, const char *fmt, va_list ap) {
    uint32_t level = vkl_log_level();
    bool to_stderr = (flags & level) != 0;
    bool to_sink = sink != NULL && sink->emit != NULL;
    if (!to_stderr && !to_sink) return;

    /* Format into a buffer large enough for two full paths, so the byte after the cut is known,
     * the cut can land on a UTF-8 sequence boundary, and the trailing rule ID survives it. */
    char full[2 * VKL_LOG_FULL_PATH_ROOM + VKL_LOG_MAX_MESSAGE + 1];
    int n = vsnprintf(full, sizeof(full), fmt, ap);
    if (n < 0) full[0] = '\0';
    char message[VKL_LOG_MAX_MESSAGE + 1];
    vkl_log_cut_message(message, full);

    if (to_stderr) {
        char line[VKL_LOG_LINE_MAX];
        vkl_log_format_line(line, sizeof(line), flags, message);
        /* One fputs per line so concurrent lines do not interleave mid-line (stdio locks the
         * stream per call). Khronos writes to stderr although [Dbg] says stdout (spec §1.5). */
        fputs(line, stderr);
    }
    if (to_sink) sink->emit(sink->ctx, flags, message);
}

bool vkl_log_wants(const struct vkl_log_sink *sink, uint32_t flags) {
    return (flags & vkl_log_level()) != 0 || (sink != NULL && sink->emit != NULL);
}

void vkl_log(const struct vkl_log_sink *sink, uint32_t flags, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vkl_logv(sink, flags, fmt, ap);
    va_end(ap);
}

/* RULE_INST_ROBUST_ARGUMENTS: a NULL count pointer, a count with a NULL array or a NULL name. */
int vkl_null_count_param(const char *cmd, const char *param, bool returns_result) {
    vkl_log(NULL, VKL_LOG_ERROR, "%s: %s is NULL [VUID-%s-%s-parameter]; %s", cmd, param, cmd, param,
            returns_result ? "returning VK_ERROR_OUT_OF_HOST_MEMORY" : "the call does nothing");
    return -1; /* VK_ERROR_OUT_OF_HOST_MEMORY (log.h does not include vulkan.h) */
}

int vkl_null_count(const char *cmd) {
    return vkl_null_count_param(cmd, strcmp(cmd, "vkEnumerateInstanceVersion") == 0 ? "pApiVersion" : "pPropertyCount",
                                true);
}

bool vkl_names_present(const char *cmd, const char *field, const char *const *names, uint32_t count) {
    const char *st = strcmp(cmd, "vkCreateDevice") == 0 ? "VkDeviceCreateInfo" : "VkInstanceCreateInfo";
    if (names == NULL) {
        vkl_log(NULL, VKL_LOG_ERROR, "%s: %s is NULL with a count of %u [VUID-%s-%s-parameter]", cmd, field, count, st,
                field);
        return false;
    }
    for (uint32_t i = 0; i < count; i++) {
        if (names[i] == NULL) {
            vkl_log(NULL, VKL_LOG_ERROR, "%s: %s[%u] is NULL [VUID-%s-%s-parameter]", cmd, field, i, st, field);
            return false;
        }
    }
    return true;
}
