/*
 * util_fuzzer: the loader's shared map and "path beside a file" resolver (loader/internal/util.h),
 * pure functions, no files.
 *
 * Framing: a sequence of operations, each one byte (op % 4) followed by u8-length-prefixed strings
 * (a NUL inside a string ends it):
 *   0 s       vkl_map_put_str(s): an absent key is added with the operation's number as value
 *   1 s       vkl_map_find_str(s)
 *   2 s       vkl_map_add(s) (a second key of that text: found after the first, never instead)
 *   3 f r     vkl_path_beside(f, r)
 * Oracle: a reference model (a plain list of the keys in insertion order, searched linearly) gives
 * exactly the map's answer to every find and put (the first value of a key), and the count; the
 * map stays at most half full; a small map lives in the caller's 4 slots, so the move to the heap
 * is exercised. The resolver equals a reference written from util.h: `r` when absolute or when `f`
 * has no '/', else `f` up to and including its last '/' followed by `r`.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_input.h"
#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_target.h"
#include "loader/internal/util.h"

#define FZ_TARGET "util_fuzzer"

#define MAX_OPS 4096

struct model {
    char *key[MAX_OPS];
    uintptr_t value[MAX_OPS];
    size_t count;
};

/* The first value stored under a key equal to `s`, or 0. */
static uintptr_t model_find(const struct model *m, const char *s) {
    for (size_t i = 0; i < m->count; i++)
        if (strcmp(m->key[i], s) == 0) return m->value[i];
    return 0;
}

static char *ref_beside(const char *f, const char *r) {
    const char *slash = r[0] == '/' ? NULL : strrchr(f, '/');
    size_t dir = slash != NULL ? (size_t)(slash - f) + 1 : 0;
    char *out = malloc(dir + strlen(r) + 1);
    CHECK(out != NULL);
    memcpy(out, f, dir);
    strcpy(out + dir, r);
    return out;
}

static char *str8(struct fz_in *in) {
    size_t n;
    const uint8_t *p = fz_str8(in, &n);
    char *s = fz_cstr(p, n);
    CHECK(s != NULL);
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct fz_in in = {data, size};
    static struct model m; /* large: not on the stack */
    m.count = 0;
    struct vkl_map_slot local[4];
    struct vkl_map map;
    vkl_map_init(&map, local, 4, NULL, NULL, NULL);
    for (uintptr_t op = 1; in.n > 0 && op < MAX_OPS; op++) {
        uint8_t kind = fz_u8(&in) % 4;
        if (kind == 3) {
            char *f = str8(&in), *r = str8(&in);
            char *got = vkl_path_beside(f, r), *want = ref_beside(f, r);
            CHECK(got != NULL && strcmp(got, want) == 0);
            free(got);
            free(want);
            free(f);
            free(r);
            continue;
        }
        char *s = str8(&in);
        uintptr_t want = model_find(&m, s);
        if (kind == 1) {
            struct vkl_map_slot *slot = vkl_map_find_str(&map, s);
            CHECK(want == 0 ? slot == NULL : slot != NULL && (uintptr_t)slot->value == want);
            free(s);
            continue;
        }
        if (kind == 0 && want != 0) { /* present: put finds it and adds nothing */
            struct vkl_map_slot *slot = NULL;
            CHECK(vkl_map_put_str(&map, s, (void *)op, &slot) == VK_SUCCESS);
            CHECK(slot != NULL && (uintptr_t)slot->value == want && strcmp(slot->key, s) == 0);
            free(s);
            continue;
        }
        /* the map keeps the key: the model owns it */
        m.key[m.count] = s;
        m.value[m.count++] = op;
        if (kind == 0) {
            struct vkl_map_slot *slot = NULL;
            CHECK(vkl_map_put_str(&map, s, (void *)op, &slot) == VK_SUCCESS);
            CHECK(slot != NULL && (uintptr_t)slot->value == op);
        } else {
            CHECK(vkl_map_add(&map, vkl_hash_str(s), s, (void *)op) == VK_SUCCESS);
        }
        CHECK(map.count == m.count);
        CHECK(map.count * 2 <= map.cap);
        CHECK((map.slot == local) == (map.cap == 4));
    }
    /* every key finds the first value of its text */
    for (size_t i = 0; i < m.count; i++) {
        struct vkl_map_slot *slot = vkl_map_find_str(&map, m.key[i]);
        CHECK(slot != NULL && (uintptr_t)slot->value == model_find(&m, m.key[i]));
    }
    vkl_map_finish(&map);
    for (size_t i = 0; i < m.count; i++) free(m.key[i]);
    return 0;
}
