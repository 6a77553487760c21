/*
 * Standalone replay driver: runs LLVMFuzzerTestOneInput once on every file named on the command
 * line or found in a directory named on the command line (recursively, sorted by name; files and
 * directories whose names start with '.' or "README" are skipped). No libFuzzer needed: this is how
 * `bazel test //...` replays every seed and every regression input in the normal build, and how a
 * crash file is reproduced under gdb or valgrind.
 *
 *   replay_main [--expect-min=N] PATH...
 *
 * Calls LLVMFuzzerInitialize first when the target defines it. Exits 0 after replaying everything
 * (a crashing input aborts the process, which is the failure signal); exits 1 when a PATH does not
 * exist or fewer than N inputs were replayed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

static size_t g_replayed;

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (buf == NULL) {
            fclose(f);
            fprintf(stderr, "replay: out of memory reading %s\n", path);
            return -1;
        }
        if (len == cap) {
            uint8_t *nbuf = realloc(buf, cap * 2);
            if (nbuf == NULL) free(buf);
            buf = nbuf;
            cap *= 2;
            continue;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        if (n == 0) break;
        len += n;
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        fprintf(stderr, "replay: read error on %s\n", path);
        return -1;
    }
    /* An exact-size heap copy, so ASan sees reads past the end of the input. */
    uint8_t *exact = malloc(len ? len : 1);
    if (exact == NULL) {
        free(buf);
        return -1;
    }
    if (len) memcpy(exact, buf, len);
    free(buf);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    LLVMFuzzerTestOneInput(exact, len);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    free(exact);
    double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
    fprintf(stderr, "replay: %s (%zu bytes, %.1f ms)\n", path, len, ms);
    g_replayed++;
    return 0;
}

static int skip_name(const char *name) { return name[0] == '.' || strncmp(name, "README", 6) == 0; }

static int cmp_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int replay_path(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) return replay_file(path);
    DIR *d = opendir(path);
    if (d == NULL) {
        fprintf(stderr, "replay: cannot open directory %s: %s\n", path, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (skip_name(de->d_name)) continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nn = realloc(names, cap * sizeof(*nn));
            if (nn == NULL) break;
            names = nn;
        }
        names[n] = strdup(de->d_name);
        if (names[n] != NULL) n++;
    }
    closedir(d);
    if (n > 1) qsort(names, n, sizeof(*names), cmp_names);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(path) + 1 + strlen(names[i]) + 1;
        char *full = malloc(len);
        if (full != NULL) {
            snprintf(full, len, "%s/%s", path, names[i]);
            if (replay_path(full) != 0) rc = -1;
            free(full);
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv) {
    size_t expect_min = 0;
    if (LLVMFuzzerInitialize != NULL) LLVMFuzzerInitialize(&argc, &argv);
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--expect-min=", 13) == 0) {
            expect_min = (size_t)strtoul(argv[i] + 13, NULL, 10);
            continue;
        }
        if (replay_path(argv[i]) != 0) rc = 1;
    }
    fprintf(stderr, "replay: %zu inputs replayed\n", g_replayed);
    if (g_replayed < expect_min) {
        fprintf(stderr, "replay: expected at least %zu inputs\n", expect_min);
        rc = 1;
    }
    return rc;
}
