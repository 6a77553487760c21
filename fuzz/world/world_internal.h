/*
 * What the world harness's sources share (world.c, world_decode.c, world_build.c): the mock
 * variants and paths found at start-up, the per-slot state kept between inputs, and the small
 * file helpers. Internal to fuzz/world/; the targets use world.h.
 */
#ifndef VKL_FUZZ_WORLD_INTERNAL_H
#define VKL_FUZZ_WORLD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "fuzz/world/world.h"

/* ---- world.c: the variants the world uses, the root, state kept between inputs */
extern const struct vkl_mock_layer_variant *g_layer_variants[];
extern size_t g_layer_variant_count;
extern char g_mock_layer_dir[W_PATH];
extern int g_layer_slot_variant[W_MAX_LAYERS];
extern char *g_extra_env_buf[W_LAYER_EXTRA_ENV];
extern const struct vkl_mock_icd_variant *g_variants[];
extern size_t g_variant_count;
extern char g_mock_dir[W_PATH];
extern char g_root_real[W_PATH];
extern char g_wdir[W_PATH]; /* R/w */
extern int g_slot_variant[W_MAX_DRIVERS];
extern char *g_env_buf[W_ENV_VARS];
extern uint64_t g_generation;
extern pid_t g_root_pid; /* the process that created R: only it removes R */

/* ---- world.c: small file helpers (each dies on failure) */
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void pathf(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mkdir_p(const char *path);
void write_file(const char *path, const void *data, size_t len);
void copy_file(const char *from, const char *to);
void rm_rf(const char *path);
bool exists(const char *path);
void make_root(void);

/* ---- world_build.c */
void unspecial(const char *path, uint8_t kind);
void meta_path(const struct world *w, uint32_t k, char *out);

#endif
