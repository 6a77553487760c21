/*
 * Opaque JSON tree (the only cJSON user is loader/json.c).
 *
 * Ownership: vkl_json_parse() returns a tree the caller frees with vkl_json_free(root). Every other
 * node pointer and every string returned is BORROWED from that tree and dies with it.
 * Thread-safety: parsing is reentrant (note: cJSON records the last error position in a process
 * global as a side effect; we never read it). A tree may be read from several threads at once.
 *
 * Object member lookup is CASE-SENSITIVE: JSON (RFC 8259) keys are case-sensitive and the driver
 * and layer interface documents spell every field name exactly. The Khronos loader's modified cJSON
 * compares keys case-insensitively (spec §3.2); we deliberately do not.
 * Duplicate keys: the first occurrence wins.
 */
#ifndef VKL_INTERNAL_JSON_H
#define VKL_INTERNAL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <vulkan/vulkan.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest document accepted (manifests are a few hundred bytes). */
#define VKL_JSON_MAX_SIZE (16u * 1024u * 1024u)
/* Deepest nesting of arrays/objects accepted; checked by a pre-scan before cJSON's recursive
 * parser runs, so hostile input can never exhaust the stack (cJSON's own limit is 1000). Real
 * manifests nest to depth 4-5. */
#define VKL_JSON_MAX_DEPTH 128

struct vkl_json;

/*
 * Parses `len` bytes at `buf` (need not be NUL-terminated). The whole buffer must be one JSON value
 * with optional surrounding whitespace. Rejected with VK_ERROR_INITIALIZATION_FAILED: empty input,
 * more than VKL_JSON_MAX_SIZE bytes, an embedded NUL byte, nesting deeper than VKL_JSON_MAX_DEPTH,
 * any syntax error, trailing garbage. On failure `err` (if non-NULL, `err_len` bytes) receives a
 * human-readable reason with line and column, e.g. "syntax error at line 3, column 7 near '}'".
 * VK_ERROR_OUT_OF_HOST_MEMORY when allocation fails. *out_root is NULL on failure.
 */
VkResult vkl_json_parse(const char *buf, size_t len, struct vkl_json **out_root, char *err, size_t err_len);

/* Frees a tree returned by vkl_json_parse (NULL is fine). Only call on the root. */
void vkl_json_free(struct vkl_json *root);

/* Member `key` of object `obj`, or NULL (also when obj is NULL or not an object). */
const struct vkl_json *vkl_json_get(const struct vkl_json *obj, const char *key);

/* Type tests; all return false for NULL. */
bool vkl_json_is_null(const struct vkl_json *node);
bool vkl_json_is_bool(const struct vkl_json *node);
bool vkl_json_is_number(const struct vkl_json *node);
bool vkl_json_is_string(const struct vkl_json *node);
bool vkl_json_is_array(const struct vkl_json *node);
bool vkl_json_is_object(const struct vkl_json *node);

/* "null", "bool", "number", "string", "array", "object" ("missing" for NULL) — for messages. */
const char *vkl_json_type_name(const struct vkl_json *node);

/* Value accessors. vkl_json_string returns NULL when not a string; vkl_json_bool false when not a
 * bool; vkl_json_number 0.0 when not a number. */
const char *vkl_json_string(const struct vkl_json *node);
bool vkl_json_bool(const struct vkl_json *node);
double vkl_json_number(const struct vkl_json *node);

/* Arrays and objects: number of elements/members (0 for other types). Counting walks the list:
 * O(n); call it once per array (e.g. to size an allocation), never per element. */
size_t vkl_json_array_size(const struct vkl_json *node);
size_t vkl_json_object_size(const struct vkl_json *node);

/*
 * Iteration, O(1) per step (RULE_ADVERSARIAL_INPUT: every walk over a document is linear in its
 * size; there is deliberately no "element at index i", which walks the list from its head and
 * made every loop over it quadratic). vkl_json_first: the first element of an array or the first
 * member of an object (NULL when empty, when `node` is NULL or of another type); vkl_json_next:
 * the element or member after `item` (NULL at the end or for NULL); vkl_json_key: the key of an
 * object member as the file spells it (NULL for an array element or NULL).
 *
 *     VKL_JSON_FOR_EACH(e, arr) { ... e ... }
 */
const struct vkl_json *vkl_json_first(const struct vkl_json *node);
const struct vkl_json *vkl_json_next(const struct vkl_json *item);
const char *vkl_json_key(const struct vkl_json *member);
#define VKL_JSON_FOR_EACH(item, node)                                                                                  \
    for (const struct vkl_json *item = vkl_json_first(node); item != NULL; item = vkl_json_next(item))

/* For tests (loader/json_linear_test.cc): the number of list nodes this thread's json calls have
 * visited so far (member lookups, counting, iteration steps). A parser over a document ten times
 * as large must visit about ten times as many nodes, never a hundred times. */
unsigned long long vkl_json_steps_for_testing(void);

#ifdef __cplusplus
}
#endif

#endif /* VKL_INTERNAL_JSON_H */
