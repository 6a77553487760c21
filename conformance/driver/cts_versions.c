/* The CTS release versions snapshot (cts_versions.h).
 *
 * Snapshot taken 2026-11-26 from the Khronos VK-GL-CTS repository's own tables of known
 * conformance versions, which its test dEQP-VK.api.driver_properties.conformance_version checks a
 * driver's conformanceVersion against:
 *   - external/vulkancts/modules/vulkan/api/vktApiDriverPropertiesTests.cpp, knownConformanceVersions
 *     as of the 1.3.1.0 release: every version 1.1.3.0 .. 1.3.1.0 (complete range A);
 *   - external/vulkancts/framework/vulkan/generated/vulkan/vkKnownConformanceVersions.inl at commit
 *     01458c9af94260eca41705177d4aeba3ef647caf: every version 1.3.9.0 .. 1.4.4.0 (complete range B).
 * Between the two ranges (after 1.3.1.0, before 1.3.9.0) only the release lines 1.3.1 .. 1.3.8 are
 * known here, not their patch levels. Versions before 1.1.3.0 and after 1.4.4.0 are outside the
 * snapshot. Update: append the new versions to k_releases and move the range bounds.
 */
#include <stdio.h>

#include "conformance/driver/cts_versions.h"

#define CV(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

const char ldp_cts_snapshot_source[] =
    "CTS release snapshot of 2026-11-26 (VK-GL-CTS known conformance versions: 1.1.3.0-1.3.1.0 and 1.3.9.0-1.4.4.0 "
    "complete, 1.3.1-1.3.8 release lines only)";

static const uint32_t k_releases[] = {
    /* range A */
    CV(1, 1, 3, 0),
    CV(1, 1, 3, 1),
    CV(1, 1, 3, 2),
    CV(1, 1, 3, 3),
    CV(1, 1, 4, 0),
    CV(1, 1, 4, 1),
    CV(1, 1, 4, 2),
    CV(1, 1, 4, 3),
    CV(1, 1, 5, 0),
    CV(1, 1, 5, 1),
    CV(1, 1, 5, 2),
    CV(1, 1, 6, 0),
    CV(1, 1, 6, 1),
    CV(1, 1, 6, 2),
    CV(1, 1, 6, 3),
    CV(1, 2, 0, 0),
    CV(1, 2, 0, 1),
    CV(1, 2, 0, 2),
    CV(1, 2, 1, 0),
    CV(1, 2, 1, 1),
    CV(1, 2, 1, 2),
    CV(1, 2, 2, 0),
    CV(1, 2, 2, 1),
    CV(1, 2, 2, 2),
    CV(1, 2, 3, 0),
    CV(1, 2, 3, 1),
    CV(1, 2, 3, 2),
    CV(1, 2, 3, 3),
    CV(1, 2, 4, 0),
    CV(1, 2, 4, 1),
    CV(1, 2, 5, 0),
    CV(1, 2, 5, 1),
    CV(1, 2, 5, 2),
    CV(1, 2, 6, 0),
    CV(1, 2, 6, 1),
    CV(1, 2, 6, 2),
    CV(1, 2, 7, 0),
    CV(1, 2, 7, 1),
    CV(1, 2, 7, 2),
    CV(1, 2, 8, 0),
    CV(1, 3, 0, 0),
    CV(1, 3, 1, 0),
    /* range B */
    CV(1, 3, 9, 0),
    CV(1, 3, 9, 1),
    CV(1, 3, 9, 2),
    CV(1, 3, 10, 0),
    CV(1, 4, 0, 0),
    CV(1, 4, 0, 1),
    CV(1, 4, 0, 2),
    CV(1, 4, 1, 0),
    CV(1, 4, 1, 1),
    CV(1, 4, 1, 2),
    CV(1, 4, 1, 3),
    CV(1, 4, 2, 0),
    CV(1, 4, 2, 1),
    CV(1, 4, 3, 0),
    CV(1, 4, 3, 1),
    CV(1, 4, 3, 2),
    CV(1, 4, 3, 3),
    CV(1, 4, 4, 0),
};

static const struct {
    uint32_t first, last;
} k_complete[] = {{CV(1, 1, 3, 0), CV(1, 3, 1, 0)}, {CV(1, 3, 9, 0), CV(1, 4, 4, 0)}};

enum ldp_cv_class ldp_cts_classify(unsigned major, unsigned minor, unsigned subminor, unsigned patch,
                                   uint32_t api_version, char *why, size_t why_len) {
    if (why_len > 0) why[0] = '\0';
    if (major == 0 && minor == 0 && subminor == 0 && patch == 0) {
        snprintf(why, why_len, "0.0.0.0: no conformance claimed");
        return LDP_CV_ZERO;
    }
    unsigned api_major = (api_version >> 22) & 0x7Fu, api_minor = (api_version >> 12) & 0x3FFu;
    if (major < api_major || (major == api_major && minor < api_minor)) {
        snprintf(why, why_len,
                 "conformanceVersion %u.%u.%u.%u is older than the device's Vulkan %u.%u: a CTS older than the API "
                 "version cannot have tested it (the CTS's own driver_properties.conformance_version test fails this)",
                 major, minor, subminor, patch, api_major, api_minor);
        return LDP_CV_BELOW_API;
    }
    uint32_t v =
        major > 255 || minor > 255 || subminor > 255 || patch > 255 ? UINT32_MAX : CV(major, minor, subminor, patch);
    size_t n = sizeof k_releases / sizeof k_releases[0];
    for (size_t i = 0; i < n; i++) {
        if (k_releases[i] == v) {
            snprintf(why, why_len, "%u.%u.%u.%u is a CTS release version", major, minor, subminor, patch);
            return LDP_CV_RELEASE;
        }
    }
    for (size_t i = 0; i < sizeof k_complete / sizeof k_complete[0]; i++) {
        if (v >= k_complete[i].first && v <= k_complete[i].last) {
            snprintf(why, why_len,
                     "%u.%u.%u.%u is no CTS release: the snapshot lists every release from %u.%u.%u.%u to %u.%u.%u.%u "
                     "and this is not one of them",
                     major, minor, subminor, patch, k_complete[i].first >> 24, (k_complete[i].first >> 16) & 255,
                     (k_complete[i].first >> 8) & 255, k_complete[i].first & 255, k_complete[i].last >> 24,
                     (k_complete[i].last >> 16) & 255, (k_complete[i].last >> 8) & 255, k_complete[i].last & 255);
            return LDP_CV_NOT_RELEASE;
        }
    }
    if (v > k_complete[0].last && v < k_complete[1].first) {
        /* 1.3.1.1 .. 1.3.8.x: every such version is on a release line 1.3.1 .. 1.3.8 */
        snprintf(why, why_len,
                 "1.3.%u is a CTS release line; whether patch level %u was released is not in the snapshot", subminor,
                 patch);
        return LDP_CV_LINE_ONLY;
    }
    if (v > k_releases[n - 1]) {
        snprintf(why, why_len,
                 "%u.%u.%u.%u is newer than the newest release in the snapshot (1.4.4.0): unverifiable here", major,
                 minor, subminor, patch);
        return LDP_CV_NEWER;
    }
    snprintf(why, why_len, "%u.%u.%u.%u is older than the snapshot covers (1.1.3.0): unverifiable here", major, minor,
             subminor, patch);
    return LDP_CV_OLDER;
}
