/*
 * What the mocks share: the mock driver (mock_icd/) and the mock layers (mock_layers/mock_layer*.c,
 * chassis_layer.c) find their own file, read the scenario beside it (<library>.scenario), append
 * one record line per call to <library>.calls (or a file the scenario names), and keep the records
 * in memory for their control API (mock_icd_ctl_record_* / mock_layer_ctl_record_*).
 *
 * Header-only (static inline functions): each mock library stays self-contained, with its own copy
 * and no new exported symbol. No locking here: the callers hold their own lock where they need one.
 */
#ifndef MOCK_COMMON_MOCK_COMMON_H
#define MOCK_COMMON_MOCK_COMMON_H

#include <dlfcn.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The path of the library holding `addr` ("" when dladdr cannot tell). */
static inline void mock_self_path(const void *addr, char *out, size_t len) {
    Dl_info info;
    if (len == 0) return;
    out[0] = '\0';
    memset(&info, 0, sizeof info);
    if (dladdr(addr, &info) && info.dli_fname) snprintf(out, len, "%s", info.dli_fname);
}

/* "<self><suffix>" into `out` (the sidecar files: ".scenario", ".calls"). */
static inline void mock_sidecar_path(const char *self, const char *suffix, char *out, size_t len) {
    snprintf(out, len, "%s%s", self, suffix);
}

/* The whole file as a NUL-terminated string (malloc'd), or NULL when it cannot be read (or memory
 * runs out). */
static inline char *mock_read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 4096) {
            cap = cap ? cap * 2 : 8192;
            char *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0) break;
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

/* <self>.scenario as text (malloc'd), or NULL when there is none. */
static inline char *mock_read_scenario(const char *self) {
    char path[4096 + 16];
    mock_sidecar_path(self, ".scenario", path, sizeof path);
    return mock_read_text(path);
}

/* name_len >= 1 and calls_len >= 7. The defaults every mock layer uses: the name is the library's file name without
 * ".so..."; the calls file is <self>.calls. */
static inline void mock_default_names(const char *self, char *name, size_t name_len, char *calls, size_t calls_len) {
    const char *base = strrchr(self, '/');
    base = base ? base + 1 : self;
    size_t bl = strlen(base) < name_len - 1 ? strlen(base) : name_len - 1;
    memcpy(name, base, bl);
    name[bl] = '\0';
    char *dot = strstr(name, ".so");
    if (dot) *dot = '\0';
    size_t sl = strlen(self) < calls_len - 7 ? strlen(self) : calls_len - 7;
    snprintf(calls, calls_len, "%.*s.calls", (int)sl, self);
}

/* Appends `line` and a newline to `path` in one write (O_APPEND: lines of several mocks and
 * processes stay whole). */
static inline void mock_append_line(const char *path, const char *line) {
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    size_t n = strlen(line);
    char *buf = malloc(n + 1);
    if (buf != NULL) {
        /* NOLINTNEXTLINE(bugprone-not-null-terminated-result): a line for write(), not a C string */
        memcpy(buf, line, n);
        buf[n] = '\n';
        ssize_t w = write(fd, buf, n + 1);
        (void)w;
        free(buf);
    }
    close(fd);
}

/* The records a mock keeps in memory for its control API: malloc'd lines (cJSON_PrintUnformatted's,
 * with cJSON's default allocator), in call order. `max` 0: unbounded; else lines past `max` are
 * dropped. Zero-initialised is empty. */
struct mock_records {
    char **lines;
    size_t count, cap, max;
};

/* Takes ownership of `line` (freed when it is not kept). Returns whether it was kept. */
static inline bool mock_records_add(struct mock_records *r, char *line) {
    if (line == NULL) return false;
    if (r->max != 0 && r->count >= r->max) {
        free(line);
        return false;
    }
    if (r->count == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        char **n = realloc(r->lines, cap * sizeof *n);
        if (n == NULL) {
            free(line);
            return false;
        }
        r->lines = n;
        r->cap = cap;
    }
    r->lines[r->count++] = line;
    return true;
}

static inline size_t mock_records_count(const struct mock_records *r) { return r->count; }

/* Line `i`, or NULL when i >= count. */
static inline const char *mock_records_get(const struct mock_records *r, size_t i) {
    return i < r->count ? r->lines[i] : NULL;
}

/* Frees every line (the limit stays). */
static inline void mock_records_clear(struct mock_records *r) {
    for (size_t i = 0; i < r->count; i++) free(r->lines[i]);
    free(r->lines);
    r->lines = NULL;
    r->count = r->cap = 0;
}

#endif /* MOCK_COMMON_MOCK_COMMON_H */
