/*
 * Driver manifest parser and manifest file reading (see loader/internal/manifest.h).
 *
 * Where the Khronos loader is more lenient than [Drv] "Driver Manifest File Format", this parser
 * follows the document (spec §3.2 lists the Khronos behaviour):
 *  - file_format_version and ICD.api_version must be strings "major.minor.patch" (Khronos parses
 *    garbage as 0.0.0 and accepts a non-string api_version as a 1.0 driver);
 *  - is_portability_driver must be a JSON bool (Khronos treats anything but `true` as false);
 *  - an api_version whose major is not the loader's (1) is an incompatible API version
 *    (LDP_LOADER_4; Khronos only rejects a non-zero variant).
 * Kept from Khronos where the document is silent: a newer file_format_version is accepted with an
 * INFO line; a library_arch other than "32"/"64" is ignored (with a WARN line here); 1.0.1 fields
 * are honoured in a 1.0.0 file; unknown keys are ignored; a 4-part
 * "variant.major.minor.patch" api_version is understood so a non-zero variant can be reported.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader/internal/json.h"
#include "loader/internal/manifest.h"
#include "loader/internal/fileio.h"
#include "loader/internal/util.h"

#define MALFORMED VK_ERROR_INITIALIZATION_FAILED
#define INCOMPATIBLE VK_ERROR_INCOMPATIBLE_DRIVER

bool vkl_parse_version_string(const char *s, bool allow_variant, uint32_t *out_version) {
    uint32_t parts[4] = {0, 0, 0, 0};
    size_t nparts = 0;
    if (out_version) *out_version = 0;
    if (s == NULL) return false;
    const char *p = s;
    for (;;) {
        if (nparts == 4) return false;
        if (*p < '0' || *p > '9') return false; /* empty part, sign, space, other characters */
        uint32_t v = 0;
        while (*p >= '0' && *p <= '9') {
            v = v * 10u + (uint32_t)(*p - '0');
            if (v > 4095u) return false; /* largest field (patch) is 12 bits */
            p++;
        }
        parts[nparts++] = v;
        if (*p == '\0') break;
        if (*p != '.') return false;
        p++;
    }
    uint32_t variant = 0, major, minor, patch;
    if (nparts == 3) {
        major = parts[0], minor = parts[1], patch = parts[2];
    } else if (nparts == 4 && allow_variant) {
        variant = parts[0], major = parts[1], minor = parts[2], patch = parts[3];
    } else {
        return false;
    }
    if (variant > 7u || major > 127u || minor > 1023u || patch > 4095u) return false;
    if (out_version) *out_version = VK_MAKE_API_VERSION(variant, major, minor, patch);
    return true;
}

uint32_t vkl_version_string_variant(const char *s) {
    if (s == NULL || *s < '0' || *s > '9') return 0;
    uint32_t first = 0;
    const char *p = s;
    while (*p >= '0' && *p <= '9') {
        if (first < 1000u) first = first * 10u + (uint32_t)(*p - '0');
        p++;
    }
    size_t dots = 0;
    for (; *p != '\0'; p++)
        if (*p == '.') dots++;
    return dots >= 3 ? first : 0;
}

void vkl_icd_manifest_finish(struct vkl_icd_manifest *m) {
    if (m == NULL) return;
    free(m->manifest_path);
    free(m->library_path);
    memset(m, 0, sizeof(*m));
}

/* [Drv]: "If library_path specifies a relative pathname, it is relative to the path of the JSON
 * manifest file. If it specifies a filename, the library must live in the system's shared object
 * search path." Absolute paths are used verbatim (spec §3.3). */
/* RULE_DRV_LIBRARY_PATH_RELATIVE: absolute as is, with a slash relative to the manifest's
 * directory, a bare file name for the dynamic linker's search. */
static char *resolve_library_path(const char *manifest_path, const char *lib, bool *bare) {
    *bare = strchr(lib, '/') == NULL;
    return *bare ? vkl_strdup(lib) : vkl_path_beside(manifest_path, lib);
}

/* Fetches a required string field, logging the one rejection line when it is missing/wrong type. */
static VkResult required_string(const struct vkl_log_sink *log, const char *path, const struct vkl_json *obj,
                                const char *key, const char *field, const char **out) {
    const struct vkl_json *node = vkl_json_get(obj, key);
    *out = NULL;
    if (node == NULL) {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER, "driver manifest %s: field '%s' is missing [LDP_DRIVER_4]", path,
                field);
        return MALFORMED;
    }
    if (!vkl_json_is_string(node)) {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "driver manifest %s: field '%s' has type %s, expected string [LDP_DRIVER_4]", path, field,
                vkl_json_type_name(node));
        return MALFORMED;
    }
    *out = vkl_json_string(node);
    return VK_SUCCESS;
}

/* A 1.0.0 manifest needs file_format_version and ICD.library_path / ICD.api_version
 * (RULE_DRV_MANIFEST_V1_0_0); anything unreadable, not JSON or of the wrong shape is rejected
 * with a log line and costs only this driver (RULE_DRV_MANIFEST_MALFORMED). */
VkResult vkl_icd_manifest_parse(const char *manifest_path, const char *buf, size_t len, const struct vkl_log_sink *log,
                                struct vkl_icd_manifest *out) {
    VkResult result = MALFORMED;
    struct vkl_json *root = NULL;
    struct vkl_icd_manifest m;
    char err[160];
    const char *str = NULL;
    const char *path = manifest_path ? manifest_path : "(unnamed)";

    memset(&m, 0, sizeof(m));
    if (out) memset(out, 0, sizeof(*out));
    if (out == NULL) goto out;

    result = vkl_json_parse(buf, len, &root, err, sizeof(err));
    if (result == VK_ERROR_OUT_OF_HOST_MEMORY) goto out;
    if (result != VK_SUCCESS) {
        /* LDP_DRIVER_4: "A driver must have a valid JSON manifest file" */
        vkl_log(log, VKL_LOG_ERROR | VKL_LOG_DRIVER, "driver manifest %s: not valid JSON: %s [LDP_DRIVER_4]", path,
                err);
        result = MALFORMED;
        goto out;
    }
    result = MALFORMED;
    if (!vkl_json_is_object(root)) {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "driver manifest %s: top-level value has type %s, expected object [LDP_DRIVER_4]", path,
                vkl_json_type_name(root));
        goto out;
    }

    /* file_format_version: required string "major.minor.patch". */
    if (required_string(log, path, root, "file_format_version", "file_format_version", &str) != VK_SUCCESS) goto out;
    if (!vkl_parse_version_string(str, false, &m.file_format_version)) {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "driver manifest %s: field 'file_format_version' value '%s' is not a version "
                "\"major.minor.patch\" [LDP_DRIVER_4]",
                path, str);
        goto out;
    }
    if (m.file_format_version != VK_MAKE_API_VERSION(0, 1, 0, 0) &&
        m.file_format_version != VK_MAKE_API_VERSION(0, 1, 0, 1)) {
        /* [Drv]: "Supported versions are: 1.0.0 and 1.0.1." The Khronos loader reads unknown
         * versions anyway with an INFO line (tests DriverManifest.UnknownManifestVersion); so do
         * we, with the 1.0.1 field set. Not a rejection, so not the one-line-per-rejection rule. */
        vkl_log(log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                "loader_parse_icd_manifest: %s has unknown icd manifest file version %s. May cause errors. "
                "Supported versions are 1.0.0 and 1.0.1; reading it as 1.0.1 [RULE_DRV_MANIFEST_V1_0_1]",
                path, str);
    }

    /* ICD: required object. */
    const struct vkl_json *icd = vkl_json_get(root, "ICD");
    if (icd == NULL) {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER, "driver manifest %s: field 'ICD' is missing [LDP_DRIVER_4]", path);
        goto out;
    }
    if (!vkl_json_is_object(icd)) {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "driver manifest %s: field 'ICD' has type %s, expected object [LDP_DRIVER_4]", path,
                vkl_json_type_name(icd));
        goto out;
    }

    /* ICD.library_path: required, non-empty string. */
    const char *lib = NULL;
    if (required_string(log, path, icd, "library_path", "ICD.library_path", &lib) != VK_SUCCESS) goto out;
    if (lib[0] == '\0') {
        vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                "driver manifest %s: field 'ICD.library_path' is empty [LDP_DRIVER_4]", path);
        goto out;
    }

    /* ICD.api_version: required string "major.minor.patch" (a "variant.major.minor.patch" form is
     * understood only to report the variant). */
    if (required_string(log, path, icd, "api_version", "ICD.api_version", &str) != VK_SUCCESS) goto out;
    if (!vkl_parse_version_string(str, true, &m.api_version)) {
        /* where the Khronos loader reads a non-zero variant from it, its sentence leads the line */
        uint32_t variant = vkl_version_string_variant(str);
        if (variant != 0)
            vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "loader_parse_icd_manifest: Driver's ICD JSON %s 'api_version' field contains a non-zero variant "
                    "value of %u.  Skipping ICD JSON. (field 'ICD.api_version' value '%s' is not a version "
                    "\"major.minor.patch\") [LDP_DRIVER_4]",
                    path, variant, str);
        else
            vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "driver manifest %s: field 'ICD.api_version' value '%s' is not a version "
                    "\"major.minor.patch\" [LDP_DRIVER_4]",
                    path, str);
        goto out;
    }

    /* ICD.library_arch (1.0.1, optional): "The only valid values are "32" and "64"." It is only a
     * hint that lets the loader skip a library without opening it; an invalid hint is ignored with
     * a warning (RULE_DRV_LIBRARY_ARCH: "other values are ignored") and dlopen decides. */
    const struct vkl_json *arch = vkl_json_get(icd, "library_arch");
    if (arch != NULL) {
        const char *a = vkl_json_string(arch);
        if (a != NULL && strcmp(a, "32") == 0) {
            m.library_arch = 32;
        } else if (a != NULL && strcmp(a, "64") == 0) {
            m.library_arch = 64;
        } else if (a != NULL) {
            vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "driver manifest %s: field 'ICD.library_arch' value '%s' is not \"32\" or "
                    "\"64\", ignored [RULE_DRV_LIBRARY_ARCH]",
                    path, a);
        } else {
            vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "driver manifest %s: field 'ICD.library_arch' has type %s, expected string, "
                    "ignored [RULE_DRV_LIBRARY_ARCH]",
                    path, vkl_json_type_name(arch));
        }
    }

    /* ICD.is_portability_driver (1.0.1, optional bool; absent = false). */
    const struct vkl_json *port = vkl_json_get(icd, "is_portability_driver");
    if (port != NULL) {
        if (!vkl_json_is_bool(port)) {
            vkl_log(log, VKL_LOG_WARN | VKL_LOG_DRIVER,
                    "driver manifest %s: field 'ICD.is_portability_driver' has type %s, expected "
                    "bool [LDP_DRIVER_4]",
                    path, vkl_json_type_name(port));
            goto out;
        }
        m.is_portability_driver = vkl_json_bool(port);
    }

    /* The manifest is well-formed; now the compatibility checks (skip without loading). */
    result = INCOMPATIBLE;
    /* RULE_DRV_MANIFEST_API_VARIANT */
    if (VK_API_VERSION_VARIANT(m.api_version) != 0) {
        /* LDP_LOADER_4: a non-zero variant is not a Vulkan implementation. */
        vkl_log(log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                "loader_parse_icd_manifest: Driver's ICD JSON %s 'api_version' field contains a non-zero variant "
                "value of %u.  Skipping ICD JSON. (value '%s') [LDP_LOADER_4]",
                path, VK_API_VERSION_VARIANT(m.api_version), str);
        goto out;
    }
    if (VK_API_VERSION_MAJOR(m.api_version) != VK_API_VERSION_MAJOR(VK_HEADER_VERSION_COMPLETE)) {
        /* LDP_LOADER_4: "must not load a Vulkan driver which defines an API version that is
         * incompatible with itself". A different major version is incompatible by definition; the
         * Khronos loader does not check this (spec §6.2). */
        vkl_log(log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                "driver manifest %s: field 'ICD.api_version' value '%s' has major version %u, "
                "the loader implements %u, driver skipped [LDP_LOADER_4]",
                path, str, VK_API_VERSION_MAJOR(m.api_version), VK_API_VERSION_MAJOR(VK_HEADER_VERSION_COMPLETE));
        goto out;
    }
    if (m.library_arch != 0 && m.library_arch != (int)(sizeof(void *) * CHAR_BIT)) {
        /* [Drv] 1.0.1: library_arch "allows the loader to quickly determine if the architecture of
         * the driver matches that of the running application" — skip without dlopen. */
        vkl_log(log, VKL_LOG_INFO | VKL_LOG_DRIVER,
                "loader_parse_icd_manifest: Driver library architecture doesn't match the current running "
                "architecture, skipping this driver. driver manifest %s: field 'ICD.library_arch' is \"%d\" but the "
                "loader is %d-bit; driver skipped [RULE_DRV_LIBRARY_ARCH]",
                path, m.library_arch, (int)(sizeof(void *) * CHAR_BIT));
        goto out;
    }

    result = VK_ERROR_OUT_OF_HOST_MEMORY;
    m.manifest_path = vkl_strdup(path);
    m.library_path = resolve_library_path(path, lib, &m.library_path_is_bare_name);
    if (m.manifest_path == NULL || m.library_path == NULL) goto out;

    *out = m;
    memset(&m, 0, sizeof(m));
    result = VK_SUCCESS;

out:
    vkl_icd_manifest_finish(&m);
    vkl_json_free(root);
    return result;
}

VkResult vkl_read_file(const char *path, char **out_buf, size_t *out_len) {
    return vkl_file_read(path, VKL_FILE_MISSING, VKL_MANIFEST_MAX_SIZE, out_buf, out_len, NULL);
}
