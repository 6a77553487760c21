/*
 * Opaque JSON tree over cJSON (see loader/internal/json.h). The only file that includes cJSON.
 * A `struct vkl_json *` is a `cJSON *` in disguise; nothing outside this file may rely on that.
 * RULE_PRIVATE_JSON_PARSER: that cJSON is compiled into libvulkan.so.1 from Debian's source package
 * with hidden visibility (@cjson_loader, third_party/cjson_loader.BUILD), so the loader imports no
 * cJSON symbol an application's own cJSON could interpose and exports none.
 */
#include "loader/internal/json.h"
#include "loader/internal/tls.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if CJSON_NESTING_LIMIT < VKL_JSON_MAX_DEPTH
#error "cJSON's nesting limit is below ours: the depth pre-scan would not be the only limit"
#endif

/* List nodes visited by this thread (vkl_json_steps_for_testing). */
static VKL_TLS unsigned long long t_steps;

static const cJSON *cj(const struct vkl_json *node) { return (const cJSON *)node; }
static const struct vkl_json *vj(const cJSON *node) { return (const struct vkl_json *)node; }

static void set_err(char *err, size_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t err_len, const char *fmt, ...) {
    if (err == NULL || err_len == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

/* 1-based line and column of byte `offset`. */
static void line_col(const char *buf, size_t offset, size_t *line, size_t *col) {
    size_t l = 1, c = 1;
    for (size_t i = 0; i < offset; i++) {
        if (buf[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

/*
 * Checks nesting depth without recursion, skipping string contents (brackets inside strings do not
 * count), and finds the escape \u0000 inside strings: it would decode to a NUL that silently ends
 * the string for every C consumer ("lib.so\u0000/evil" read as "lib.so"), so no loader document
 * may contain one. Only these two things are checked here; syntax is cJSON's job. *deep_at gets the
 * offset of the bracket that exceeds the limit and *nul_at that of the escape's backslash, each
 * SIZE_MAX when absent.
 */
/* RULE_ADVERSARIAL_INPUT: nesting depth and NUL bytes, found before cJSON sees the text. */
/* cJSON reports a failed allocation like a syntax error (NULL). Its allocations go through
 * json_malloc, which notes a failure for the parse in progress: parses are serialized by
 * parse_lock, so the flag needs no other synchronisation. The hooks are this library's own: cJSON
 * is compiled in with hidden visibility (RULE_PRIVATE_JSON_PARSER), so no other cJSON user sees
 * them. A failure is then VK_ERROR_OUT_OF_HOST_MEMORY, never "malformed": a manifest must not
 * vanish because memory ran short (LDP_LOADER_2). */
static pthread_mutex_t parse_lock = PTHREAD_MUTEX_INITIALIZER;
static bool parse_oom; /* guarded by parse_lock */

static void *json_malloc(size_t n) {
    void *p = malloc(n);
    if (p == NULL) parse_oom = true;
    return p;
}

static void json_hooks_install(void) {
    cJSON_Hooks hooks = {.malloc_fn = json_malloc, .free_fn = free};
    cJSON_InitHooks(&hooks);
}

static void pre_scan(const char *buf, size_t len, size_t *deep_at, size_t *nul_at) {
    size_t depth = 0;
    int in_string = 0;
    *deep_at = *nul_at = SIZE_MAX;
    for (size_t i = 0; i < len; i++) {
        char ch = buf[i];
        if (in_string) {
            if (ch == '\\') {
                if (i + 5 < len && buf[i + 1] == 'u' && memcmp(buf + i + 2, "0000", 4) == 0 && *nul_at == SIZE_MAX)
                    *nul_at = i;
                i++; /* skip the escaped character */
            } else if (ch == '"') {
                in_string = 0;
            }
            continue;
        }
        if (ch == '"') {
            in_string = 1;
        } else if (ch == '[' || ch == '{') {
            if (++depth > VKL_JSON_MAX_DEPTH && *deep_at == SIZE_MAX) *deep_at = i;
        } else if ((ch == ']' || ch == '}') && depth > 0) {
            depth--;
        }
    }
}

VkResult vkl_json_parse(const char *buf, size_t len, struct vkl_json **out_root, char *err, size_t err_len) {
    VkResult result = VK_ERROR_INITIALIZATION_FAILED;
    char *copy = NULL;
    cJSON *root = NULL;

    if (out_root) *out_root = NULL;
    set_err(err, err_len, "%s", "");
    if (out_root == NULL || (buf == NULL && len != 0)) {
        set_err(err, err_len, "invalid arguments");
        goto out;
    }
    if (len == 0) {
        set_err(err, err_len, "empty input");
        goto out;
    }
    if (len > VKL_JSON_MAX_SIZE) {
        set_err(err, err_len, "input is %zu bytes, more than the %u byte limit", len, (unsigned)VKL_JSON_MAX_SIZE);
        goto out;
    }
    const char *nul = memchr(buf, '\0', len);
    if (nul != NULL) {
        size_t line, col;
        line_col(buf, (size_t)(nul - buf), &line, &col);
        set_err(err, err_len, "embedded NUL byte at line %zu, column %zu", line, col);
        goto out;
    }
    size_t deep, nul_escape;
    pre_scan(buf, len, &deep, &nul_escape);
    if (deep != SIZE_MAX) {
        size_t line, col;
        line_col(buf, deep, &line, &col);
        set_err(err, err_len, "nesting deeper than %d levels at line %zu, column %zu", VKL_JSON_MAX_DEPTH, line, col);
        goto out;
    }
    if (nul_escape != SIZE_MAX) {
        size_t line, col;
        line_col(buf, nul_escape, &line, &col);
        set_err(err, err_len,
                "string with an embedded NUL (escape \\u0000) at line %zu, column %zu: it would cut the "
                "string short",
                line, col);
        goto out;
    }

    /* cJSON 1.7's "require null terminated" check needs the NUL inside the given length, so parse a
     * NUL-terminated copy of len + 1 bytes: trailing garbage after the value is then an error. */
    copy = malloc(len + 1);
    if (copy == NULL) {
        result = VK_ERROR_OUT_OF_HOST_MEMORY;
        set_err(err, err_len, "out of memory");
        goto out;
    }
    memcpy(copy, buf, len);
    copy[len] = '\0';

    const char *end = NULL;
    /* cJSON_ParseWithLengthOpts writes cJSON's process-wide error position (cJSON_GetErrorPtr) on
     * every call: serialize parses so instances created on several threads do not race on it. */
    static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;
    pthread_once(&hooks_once, json_hooks_install);
    pthread_mutex_lock(&parse_lock);
    parse_oom = false;
    root = cJSON_ParseWithLengthOpts(copy, len + 1, &end, 1);
    bool oom = parse_oom;
    pthread_mutex_unlock(&parse_lock);
    if (root == NULL && oom) {
        result = VK_ERROR_OUT_OF_HOST_MEMORY;
        set_err(err, err_len, "out of memory");
        goto out;
    }
    if (root == NULL) {
        size_t pos = (end != NULL && end >= copy && end <= copy + len) ? (size_t)(end - copy) : 0;
        size_t line, col;
        line_col(copy, pos, &line, &col);
        if (pos >= len) {
            set_err(err, err_len, "unexpected end of input at line %zu, column %zu", line, col);
        } else {
            char near[17];
            size_t n = 0;
            for (size_t i = pos; i < len && n < sizeof(near) - 1 && copy[i] != '\n'; i++)
                near[n++] = (copy[i] >= 0x20 && copy[i] < 0x7f) ? copy[i] : '?';
            near[n] = '\0';
            set_err(err, err_len, "syntax error at line %zu, column %zu near '%s'", line, col, near);
        }
        goto out;
    }
    *out_root = (struct vkl_json *)root;
    root = NULL;
    result = VK_SUCCESS;

out:
    cJSON_Delete(root);
    free(copy);
    return result;
}

void vkl_json_free(struct vkl_json *root) { cJSON_Delete((cJSON *)root); }

const struct vkl_json *vkl_json_get(const struct vkl_json *obj, const char *key) {
    if (!cJSON_IsObject(cj(obj)) || key == NULL) return NULL;
    /* Case-sensitive by choice (json.h); the Khronos loader is case-insensitive here. The first
     * member of that name wins (cJSON_GetObjectItemCaseSensitive's walk, counted for the tests). */
    for (const cJSON *c = cj(obj)->child; c != NULL; c = c->next) {
        t_steps++;
        if (c->string != NULL && strcmp(c->string, key) == 0) return vj(c);
    }
    return NULL;
}

bool vkl_json_is_null(const struct vkl_json *n) { return n != NULL && cJSON_IsNull(cj(n)); }
bool vkl_json_is_bool(const struct vkl_json *n) { return n != NULL && cJSON_IsBool(cj(n)); }
bool vkl_json_is_number(const struct vkl_json *n) { return n != NULL && cJSON_IsNumber(cj(n)); }
bool vkl_json_is_string(const struct vkl_json *n) { return n != NULL && cJSON_IsString(cj(n)); }
bool vkl_json_is_array(const struct vkl_json *n) { return n != NULL && cJSON_IsArray(cj(n)); }
bool vkl_json_is_object(const struct vkl_json *n) { return n != NULL && cJSON_IsObject(cj(n)); }

const char *vkl_json_type_name(const struct vkl_json *n) {
    if (n == NULL) return "missing";
    if (vkl_json_is_null(n)) return "null";
    if (vkl_json_is_bool(n)) return "bool";
    if (vkl_json_is_number(n)) return "number";
    if (vkl_json_is_string(n)) return "string";
    if (vkl_json_is_array(n)) return "array";
    if (vkl_json_is_object(n)) return "object";
    return "invalid";
}

const char *vkl_json_string(const struct vkl_json *n) { return vkl_json_is_string(n) ? cj(n)->valuestring : NULL; }

bool vkl_json_bool(const struct vkl_json *n) { return n != NULL && cJSON_IsTrue(cj(n)); }

double vkl_json_number(const struct vkl_json *n) { return vkl_json_is_number(n) ? cj(n)->valuedouble : 0.0; }

static size_t child_count(const cJSON *node) {
    size_t count = 0;
    for (const cJSON *c = node->child; c != NULL; c = c->next) count++;
    t_steps += count;
    return count;
}

size_t vkl_json_array_size(const struct vkl_json *n) { return vkl_json_is_array(n) ? child_count(cj(n)) : 0; }

size_t vkl_json_object_size(const struct vkl_json *n) { return vkl_json_is_object(n) ? child_count(cj(n)) : 0; }

const struct vkl_json *vkl_json_first(const struct vkl_json *n) {
    if (!vkl_json_is_array(n) && !vkl_json_is_object(n)) return NULL;
    t_steps++;
    return vj(cj(n)->child);
}

const struct vkl_json *vkl_json_next(const struct vkl_json *item) {
    if (item == NULL) return NULL;
    t_steps++;
    return vj(cj(item)->next);
}

const char *vkl_json_key(const struct vkl_json *member) { return member != NULL ? cj(member)->string : NULL; }

unsigned long long vkl_json_steps_for_testing(void) { return t_steps; }
