/*
 * Loader logging: VK_LOADER_DEBUG parsing, the one-line stderr format, and sinks.
 *
 * Every loader message is one line, `<subsystem> <object>: <what happened> [<POLICY-ID>]`, logged
 * where the condition is detected with vkl_log(). A message carries one severity bit
 * (VKL_LOG_ERROR / WARN / INFO / DEBUG) plus optional category bits (PERF / DRIVER / LAYER).
 *
 * Two destinations:
 *  - stderr, when (flags & level) != 0, level being the VK_LOADER_DEBUG mask (any overlapping bit,
 *    so VK_LOADER_DEBUG=driver prints every DRIVER message whatever its severity, and =warn prints
 *    every warning whatever its category);
 *  - the optional sink (an instance's debug messengers), ALWAYS, unfiltered: the sink applies
 *    its own messenger severity/type filter.
 *
 * Thread-safety: every function here may be called from any thread. VK_LOADER_DEBUG is read once
 * (pthread_once) on first use or at vkl_log_init(); the level is then an atomic.
 */
#ifndef VKL_INTERNAL_LOG_H
#define VKL_INTERNAL_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Same bit values as the Khronos loader (and the spec §1.5). */
#define VKL_LOG_INFO 0x01u
#define VKL_LOG_WARN 0x02u
#define VKL_LOG_PERF 0x04u
#define VKL_LOG_ERROR 0x08u
#define VKL_LOG_DEBUG 0x10u
#define VKL_LOG_LAYER 0x20u
#define VKL_LOG_DRIVER 0x40u
/* A valid-usage violation the loader detects: a debug-utils messenger receives it as a
 * VALIDATION (and GENERAL) message, as from the Khronos loader; stderr shows no category. */
#define VKL_LOG_VALIDATION 0x80u
#define VKL_LOG_ALL 0xffffffffu

/* Longest message (without the header) kept, in bytes; longer ones are cut at a UTF-8 boundary. */
#define VKL_LOG_MAX_MESSAGE 511
/* Room for one path in a message before the cut (PATH_MAX). */
#define VKL_LOG_FULL_PATH_ROOM 4096
/* Size a buffer for vkl_log_format_line() must have to never truncate. */
#define VKL_LOG_LINE_MAX (64 + VKL_LOG_MAX_MESSAGE + 2)

/*
 * Parses a VK_LOADER_DEBUG value (`value`, `len` bytes, need not be NUL-terminated) into a mask.
 * Comma-separated words, each compared EXACTLY (whole word, case-sensitive, as listed) with the
 * documented words error, warn, info, debug, layer, driver, all ([Arch]/[Dbg] tables). Unknown
 * words (including
 * prefixes such as "err" and the Khronos-only aliases perf/implem/icd, which the Khronos loader
 * accepts but the documents do not list) are ignored; empty words are skipped; no whitespace
 * trimming. "all" sets every bit. Pure function.
 */
uint32_t vkl_log_parse_level(const char *value, size_t len);
/* The bits of one log word (`len` bytes at `w`, no NUL needed), or 0: the one table of words
 * (log.c). settings == false: VK_LOADER_DEBUG's reading (any prefix of a word, the Khronos loader's
 * order); true: the settings file's stderr_log (whole words). */
uint32_t vkl_log_word_bits(const char *w, size_t len, bool settings);

/* Reads VK_LOADER_DEBUG once (through vkl_getenv; it is not a secure variable, so it is honoured
 * when elevated). Idempotent and thread-safe; vkl_log() calls it itself on first use. */
void vkl_log_init(void);

/* The current VK_LOADER_DEBUG mask (after vkl_log_init). */
uint32_t vkl_log_level(void);

/* The settings file's stderr_log (settings.c): when `mask` is non-zero it replaces the
 * VK_LOADER_DEBUG mask for stderr. */
void vkl_log_set_settings_level(uint32_t mask);

/* A destination besides stderr. `emit` receives the message WITHOUT the "[Vulkan Loader] ..."
 * header (what a debug-utils messenger shows as pMessage) and is called for every message. The
 * line pointer is only valid during the call. Called with no loader lock held by log.c. */
struct vkl_log_sink {
    void (*emit)(void *ctx, uint32_t flags, const char *line);
    void *ctx;
};

/* Whether a line with `flags` would be printed or sent to `sink`: callers test it before computing
 * costly arguments (strerror) of lines that are usually filtered out. */
bool vkl_log_wants(const struct vkl_log_sink *sink, uint32_t flags);

/*
 * Formats one message (printf format) and sends it to stderr (if it passes VK_LOADER_DEBUG) and to
 * `sink` (if non-NULL and its `emit` is non-NULL); with neither, nothing is formatted. Never
 * fails; never allocates (fixed stack buffers).
 */
void vkl_log(const struct vkl_log_sink *sink, uint32_t flags, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void vkl_logv(const struct vkl_log_sink *sink, uint32_t flags, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/*
 * Writes the stderr form of one message into `buf` (`buf_len` bytes, always NUL-terminated when
 * buf_len > 0) and returns the length written. Format (spec §7.11, Khronos log.c):
 *   "[Vulkan Loader] " SEV [" | " CAT] ": " padded with spaces to column 32, message, "\n"
 * SEV is the first of ERROR, WARNING, INFO, DEBUG present in flags; CAT the first of PERF, DRIVER,
 * LAYER. With no severity bit the header is "[Vulkan Loader] CAT: "; with neither, "[Vulkan Loader]
 * : ". Example: "[Vulkan Loader] ERROR:          msg\n", "[Vulkan Loader] WARNING | DRIVER: msg\n".
 * The message is cut to VKL_LOG_MAX_MESSAGE bytes. Pure function, exposed for tests.
 */
size_t vkl_log_format_line(char *buf, size_t buf_len, uint32_t flags, const char *message);

/* Copies `message` into `out`, cut to VKL_LOG_MAX_MESSAGE bytes at a UTF-8 boundary; a cut message
 * that ends with a rule ID " [ID]" keeps it: "<head>... [ID]". Pure function, exposed for tests. */
void vkl_log_cut_message(char out[VKL_LOG_MAX_MESSAGE + 1], const char *message);

/* Robust arguments of the exported commands (never a crash on a NULL the specification forbids).
 * vkl_null_count: logs that `cmd` got a NULL count / version pointer (naming its Valid Usage ID)
 * and returns VK_ERROR_OUT_OF_HOST_MEMORY (-1), the one failure every such command may return.
 * vkl_null_count_param: the same for the count parameter `param` of `cmd` (the generated
 * trampolines of every command with a count/array pair call it; a void command passes false and
 * ignores the result).
 * vkl_names_present: whether `names` holds `count` non-NULL strings; logs the VUID otherwise. */
int vkl_null_count(const char *cmd);
int vkl_null_count_param(const char *cmd, const char *param, bool returns_result);
bool vkl_names_present(const char *cmd, const char *field, const char *const *names, uint32_t count);

/* TEST ONLY: forces the VK_LOADER_DEBUG mask (marks the one-time init as done first). */
void vkl_log_set_level_for_testing(uint32_t level);

#ifdef __cplusplus
}
#endif

#endif /* VKL_INTERNAL_LOG_H */
