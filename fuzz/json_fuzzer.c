/*
 * json_fuzzer: the JSON layer (loader/json.c over cJSON) on raw bytes, no files.
 *
 * Input: the whole input is the document, passed with its exact length (never NUL-terminated).
 * Oracles (abort on violation), from loader/internal/json.h:
 *  - failure leaves *out_root NULL and writes a NUL-terminated, non-empty reason into `err`,
 *    never more than err_len bytes (err_len varies with the input; the buffer is exactly that big);
 *  - inputs with an embedded NUL byte, empty inputs and inputs nested deeper than
 *    VKL_JSON_MAX_DEPTH are rejected;
 *  - on success every node is reachable through the accessors, sizes agree with indexing,
 *    vkl_json_get() returns the FIRST member with a key, type predicates are exclusive, and
 *    the same document parses the same way twice.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz_check.h"
#include "fuzz/fuzz_target.h"
#include "loader/internal/json.h"

#define FZ_TARGET "json_fuzzer"

static size_t g_nodes;

static int type_count(const struct vkl_json *n) {
    return vkl_json_is_null(n) + vkl_json_is_bool(n) + vkl_json_is_number(n) + vkl_json_is_string(n) +
           vkl_json_is_array(n) + vkl_json_is_object(n);
}

/* Members per object whose first-key-wins lookup is checked (walk). */
#define FIRST_WINS_CHECKED 64

static void walk(const struct vkl_json *n, unsigned depth) {
    CHECK(n != NULL);
    CHECK(depth <= VKL_JSON_MAX_DEPTH);
    CHECK(type_count(n) == 1);
    g_nodes++;
    const char *tn = vkl_json_type_name(n);
    CHECK(tn != NULL && strcmp(tn, "missing") != 0 && strcmp(tn, "invalid") != 0);
    if (vkl_json_is_string(n)) {
        const char *s = vkl_json_string(n);
        CHECK(s != NULL);
        (void)strlen(s);
    } else {
        CHECK(vkl_json_string(n) == NULL);
    }
    if (vkl_json_is_bool(n))
        (void)vkl_json_bool(n);
    else
        CHECK(!vkl_json_bool(n));
    if (!vkl_json_is_number(n)) CHECK(vkl_json_number(n) == 0.0);
    /* Member lookup on non-objects is NULL. */
    if (!vkl_json_is_object(n)) CHECK(vkl_json_get(n, "ICD") == NULL);
    if (!vkl_json_is_array(n)) CHECK(vkl_json_array_size(n) == 0);
    if (!vkl_json_is_array(n) && !vkl_json_is_object(n)) CHECK(vkl_json_first(n) == NULL);
    CHECK(vkl_json_next(NULL) == NULL && vkl_json_key(NULL) == NULL);

    if (vkl_json_is_array(n)) {
        size_t count = vkl_json_array_size(n), seen = 0;
        VKL_JSON_FOR_EACH(e, n) {
            CHECK(vkl_json_key(e) == NULL);
            walk(e, depth + 1);
            seen++;
        }
        CHECK(seen == count);
    }
    if (vkl_json_is_object(n)) {
        size_t count = vkl_json_object_size(n), i = 0;
        VKL_JSON_FOR_EACH(m, n) {
            const char *key = vkl_json_key(m);
            CHECK(key != NULL);
            /* First occurrence wins: the lookup finds member i only when no earlier member has
             * the same key. Checked for the first FIRST_WINS_CHECKED members of each object only,
             * so the target's own cost per input stays linear (RULE_ADVERSARIAL_INPUT: a slow
             * input must be the parser's finding, not the oracle's). */
            if (i < FIRST_WINS_CHECKED) {
                const struct vkl_json *first = vkl_json_get(n, key);
                CHECK(first != NULL);
                const struct vkl_json *earlier = vkl_json_first(n);
                while (earlier != m && strcmp(vkl_json_key(earlier), key) != 0) earlier = vkl_json_next(earlier);
                CHECK(first == earlier);
            }
            walk(m, depth + 1);
            i++;
        }
        CHECK(i == count);
    }
}

static bool has_nul(const uint8_t *d, size_t n) { return memchr(d, 0, n) != NULL; }

/* Depth by the documented rule: brackets outside strings. */
static size_t max_depth(const uint8_t *d, size_t n) {
    size_t depth = 0, max = 0;
    bool in_str = false;
    for (size_t i = 0; i < n; i++) {
        if (in_str) {
            if (d[i] == '\\')
                i++;
            else if (d[i] == '"')
                in_str = false;
        } else if (d[i] == '"') {
            in_str = true;
        } else if (d[i] == '[' || d[i] == '{') {
            if (++depth > max) max = depth;
        } else if ((d[i] == ']' || d[i] == '}') && depth > 0) {
            depth--;
        }
    }
    return max;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    /* Error buffer sizes 0..64 from the input length, allocated exactly (ASan sees overflows). */
    size_t err_len = size % 65;
    char *err = err_len ? malloc(err_len) : NULL;
    struct vkl_json *root = (struct vkl_json *)1;
    VkResult r = vkl_json_parse((const char *)data, size, &root, err, err_len);
    if (r == VK_SUCCESS) {
        CHECK(root != NULL);
        CHECK(size > 0 && !has_nul(data, size));
        CHECK(max_depth(data, size) <= VKL_JSON_MAX_DEPTH);
        g_nodes = 0;
        walk(root, 0);
        /* Deterministic: a second parse gives the same shape. */
        size_t nodes = g_nodes;
        struct vkl_json *again = NULL;
        CHECK(vkl_json_parse((const char *)data, size, &again, NULL, 0) == VK_SUCCESS);
        g_nodes = 0;
        walk(again, 0);
        CHECK(g_nodes == nodes);
        vkl_json_free(again);
        vkl_json_free(root);
    } else {
        CHECK(r == VK_ERROR_INITIALIZATION_FAILED || r == VK_ERROR_OUT_OF_HOST_MEMORY);
        CHECK(root == NULL);
        if (err_len > 0) {
            CHECK(memchr(err, '\0', err_len) != NULL);
            if (err_len > 1) CHECK(err[0] != '\0');
        }
    }
    if (size == 0 || has_nul(data, size)) CHECK(r != VK_SUCCESS);
    free(err);
    vkl_json_free(NULL);
    return 0;
}
