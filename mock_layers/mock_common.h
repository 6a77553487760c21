/*
 * What the mock layers (mock_layer.c, chassis_layer.c) share: finding their own file, reading the
 * scenario beside it (<library>.scenario), the default layer name and calls file, and appending one
 * record line to the calls file. Header-only (static functions), so each layer library stays one
 * object with its own copy and no new exported symbol.
 */
#ifndef MOCK_LAYERS_MOCK_COMMON_H
#define MOCK_LAYERS_MOCK_COMMON_H

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The path of the library holding `addr` ("" when dladdr cannot tell). */
static inline void mock_self_path(const void *addr, char *out, size_t len) {
    Dl_info info;
    if (len == 0) return;
    out[0] = '\0';
    if (dladdr(addr, &info) && info.dli_fname) snprintf(out, len, "%s", info.dli_fname);
}

/* The whole file as a NUL-terminated string (malloc'd), or NULL when it cannot be read. */
static inline char *mock_read_text(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *nb = realloc(buf, cap);
            if (nb == NULL) break;
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0) break;
    }
    fclose(f);
    if (buf != NULL) buf[len] = '\0';
    return buf;
}

/* <self>.scenario as text (malloc'd), or NULL when there is none. */
static inline char *mock_read_scenario(const char *self) {
    char path[4096 + 16];
    snprintf(path, sizeof(path), "%s.scenario", self);
    return mock_read_text(path);
}

/* name_len >= 1 and calls_len >= 7. The defaults every mock layer uses: the name is the library's file name without ".so..."; the
 * calls file is <self>.calls. */
static inline void mock_default_names(const char *self, char *name, size_t name_len, char *calls, size_t calls_len) {
    const char *base = strrchr(self, '/');
    base = base ? base + 1 : self;
    size_t bl = strlen(base) < name_len - 1 ? strlen(base) : name_len - 1;
    memcpy(name, base, bl);
    name[bl] = '\0';
    char *dot = strstr(name, ".so");
    if (dot) *dot = '\0';
    size_t sl = strlen(self) < calls_len - 7 ? strlen(self) : calls_len - 7;
    memcpy(calls, self, sl);
    memcpy(calls + sl, ".calls", 7);
}

/* Appends `line` and a newline to `path` in one write (O_APPEND: lines of several layers and
 * processes stay whole). */
static inline void mock_append_line(const char *path, const char *line) {
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    size_t n = strlen(line);
    char *buf = malloc(n + 1);
    if (buf != NULL) {
        memcpy(buf, line, n);
        buf[n] = '\n';
        ssize_t w = write(fd, buf, n + 1);
        (void)w;
        free(buf);
    }
    close(fd);
}

#endif /* MOCK_LAYERS_MOCK_COMMON_H */
