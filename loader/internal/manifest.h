/*
 * Driver (ICD) manifest parsing ([Drv] "Driver Manifest File Format", spec §3.1-3.3) and the thin
 * file-reading layer for manifests.
 *
 * Ownership: vkl_icd_manifest_parse fills caller storage; the strings inside are owned by the
 * struct and released by vkl_icd_manifest_finish. vkl_read_file returns a malloc'd buffer the
 * caller free()s. Thread-safety: all functions are reentrant (no shared state); logging goes
 * through vkl_log (thread-safe).
 */
#ifndef VKL_INTERNAL_MANIFEST_H
#define VKL_INTERNAL_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "loader/internal/log.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest manifest file read (same cap as the JSON parser). */
#define VKL_MANIFEST_MAX_SIZE (16u * 1024u * 1024u)

/* Newest driver manifest file format the documents define ([Drv]: 1.0.0 and 1.0.1). */
#define VKL_ICD_MANIFEST_NEWEST_VERSION VK_MAKE_API_VERSION(0, 1, 0, 1)

struct vkl_icd_manifest {
    char *manifest_path;            /* copy of the path given to the parser */
    char *library_path;             /* resolved: absolute verbatim; relative (contains '/') joined to
                                       the manifest's directory; bare name kept for dlopen's search */
    uint32_t file_format_version;   /* VK_MAKE_API_VERSION(0, maj, min, patch) as written */
    uint32_t api_version;           /* VK_MAKE_API_VERSION(0, maj, min, patch); variant is always 0 */
    int library_arch;               /* 0 absent, 32 or 64 */
    bool is_portability_driver;     /* absent = false */
    bool library_path_is_bare_name; /* no '/' in library_path: dlopen searches the system paths */
};

/*
 * Parses one driver manifest: `len` bytes at `buf` (need not be NUL-terminated), read from
 * `manifest_path` (used for messages and relative library_path resolution; not opened).
 * Results:
 *  VK_SUCCESS                     *out filled.
 *  VK_ERROR_INITIALIZATION_FAILED malformed manifest [LDP_DRIVER_4]: not JSON (ERROR|DRIVER line),
 *                                 root not an object, a required field missing, a field of the
 * wrong type, a version string not "maj.min.patch", empty library_path (WARN|DRIVER line).
 *  VK_ERROR_INCOMPATIBLE_DRIVER   well-formed but must not be loaded (INFO|DRIVER line):
 *                                 api_version variant != 0 or major != 1 [LDP_LOADER_4];
 *                                 library_arch differs from the loader's pointer size
 *                                 [RULE_DRV_LIBRARY_ARCH].
 *  VK_ERROR_OUT_OF_HOST_MEMORY.
 * Every rejection logs exactly one line naming the file, the field and the rule, e.g.
 *   "driver manifest /x/y.json: field 'ICD.api_version' is missing [LDP_DRIVER_4]".
 * Not rejections: a file_format_version other than 1.0.0/1.0.1 is accepted with one INFO|DRIVER
 * line (as the Khronos loader does) and parsed with the 1.0.1 field set [RULE_DRV_MANIFEST_V1_0_1];
 * a library_arch that is not the string "32" or "64" is ignored (library_arch = 0) with one
 * WARN|DRIVER line [RULE_DRV_LIBRARY_ARCH]. `log` may be NULL (stderr only). On failure *out is
 * zeroed.
 */
VkResult vkl_icd_manifest_parse(const char *manifest_path, const char *buf, size_t len, const struct vkl_log_sink *log,
                                struct vkl_icd_manifest *out);

/* Frees the strings and zeroes *manifest (NULL fine; calling twice is fine). */
void vkl_icd_manifest_finish(struct vkl_icd_manifest *manifest);

/*
 * Parses a version string "maj.min.patch" (or "variant.maj.min.patch") strictly: decimal digits
 * only, no sign/space/empty part, major <= 127, minor <= 1023, patch <= 4095, variant <= 7.
 * Returns false on anything else. Pure; exposed for the layer-manifest parser and tests.
 */
bool vkl_parse_version_string(const char *s, bool allow_variant, uint32_t *out_version);

/*
 * The variant the Khronos loader reads from a version string of four or more dot-separated parts
 * (it takes the first four and the first as the variant); 0 for fewer parts or a first part that
 * is not a decimal number. Only to name, in its words, why a string vkl_parse_version_string
 * refuses is skipped (LDP_DRIVER_4, LLP_LOADER_4). Pure; linear in the string.
 */
uint32_t vkl_version_string_variant(const char *s);

/*
 * Reads a whole regular file into a malloc'd buffer (NUL-terminated for convenience; *out_len
 * excludes the NUL). VK_ERROR_INITIALIZATION_FAILED when it cannot be opened or read, is not a
 * regular file or exceeds VKL_MANIFEST_MAX_SIZE (errno tells which); VK_ERROR_OUT_OF_HOST_MEMORY.
 * Does not log (the caller knows the context). Out parameters are zeroed on failure.
 */
VkResult vkl_read_file(const char *path, char **out_buf, size_t *out_len);

#ifdef __cplusplus
}
#endif

#endif /* VKL_INTERNAL_MANIFEST_H */
