/*
 * A tiny byte reader for structured fuzz inputs (header-only, C11). Reading past the end yields
 * zeros / empty strings, so every input, including the empty one, decodes to something valid;
 * the documented framings (fuzz/FRAMING.md) are built on it.
 */
#ifndef VKL_FUZZ_INPUT_H
#define VKL_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct fz_in {
    const uint8_t *p;
    size_t n;
};

static inline uint8_t fz_u8(struct fz_in *in) {
    if (in->n == 0) return 0;
    uint8_t v = in->p[0];
    in->p++;
    in->n--;
    return v;
}

/* Little-endian. */
static inline uint16_t fz_u16(struct fz_in *in) {
    uint16_t lo = fz_u8(in);
    return (uint16_t)(lo | (uint16_t)(fz_u8(in) << 8));
}

static inline uint32_t fz_u32(struct fz_in *in) {
    uint32_t lo = fz_u16(in);
    return lo | ((uint32_t)fz_u16(in) << 16);
}

static inline int fz_bool(struct fz_in *in) { return fz_u8(in) & 1; }

/* A byte reduced modulo n (n > 0). */
static inline uint32_t fz_pick(struct fz_in *in, uint32_t n) { return n ? fz_u8(in) % n : 0; }

/* Borrows `len` bytes (fewer when the input ends first); *out_len gets the length borrowed. */
static inline const uint8_t *fz_bytes(struct fz_in *in, size_t len, size_t *out_len) {
    if (len > in->n) len = in->n;
    const uint8_t *p = in->p;
    in->p += len;
    in->n -= len;
    *out_len = len;
    return p;
}

/* A u8-length-prefixed byte string. */
static inline const uint8_t *fz_str8(struct fz_in *in, size_t *out_len) { return fz_bytes(in, fz_u8(in), out_len); }

/* A u16-length-prefixed byte string. */
static inline const uint8_t *fz_str16(struct fz_in *in, size_t *out_len) { return fz_bytes(in, fz_u16(in), out_len); }

/* Everything that is left. */
static inline const uint8_t *fz_rest(struct fz_in *in, size_t *out_len) { return fz_bytes(in, in->n, out_len); }

/* Copies a byte string into a fresh NUL-terminated heap string cut at the first NUL byte (the
 * loader only ever sees C strings). Returns NULL on allocation failure. */
#include <stdlib.h>
static inline char *fz_cstr(const uint8_t *p, size_t len) {
    const void *nul = memchr(p, 0, len);
    if (nul != NULL) len = (size_t)((const uint8_t *)nul - p);
    char *s = malloc(len + 1);
    if (s == NULL) return NULL;
    memcpy(s, p, len);
    s[len] = '\0';
    return s;
}

/* Everything that is left, copied to a heap buffer of exactly that size (one byte when nothing is
 * left), so that a read past the end is caught; *out_len gets the length. NULL when out of memory. */
static inline char *fz_rest_copy(struct fz_in *in, size_t *out_len) {
    const uint8_t *p = fz_rest(in, out_len);
    char *buf = malloc(*out_len ? *out_len : 1);
    if (buf != NULL) memcpy(buf, p, *out_len);
    return buf;
}

#endif /* VKL_FUZZ_INPUT_H */
