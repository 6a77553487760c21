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

/* Arrays and objects: number of elements/members (0 for other types) and the i-th one (NULL when
 * out of range). For objects, vkl_json_member_at also returns the member's key through out_key
 * (may be NULL). Indexing walks a list: O(i). */
size_t vkl_json_array_size(const struct vkl_json *node);
const struct vkl_json *vkl_json_array_at(const struct vkl_json *node, size_t index);
size_t vkl_json_object_size(const struct vkl_json *node);
const struct vkl_json *vkl_json_member_at(const struct vkl_json *node, size_t index, const char **out_key);

#ifdef __cplusplus
}
#endif

#endif /* VKL_INTERNAL_JSON_H */
