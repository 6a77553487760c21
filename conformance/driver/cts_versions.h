/* LDP_DRIVER_5 offline: is a reported conformanceVersion one a Vulkan CTS release could have
 * produced? A snapshot of the CTS's own list of release versions (cts_versions.c says where it
 * comes from and when it was taken). Whether Khronos APPROVED a submission at that version stays
 * unverifiable offline (the conformant-products list). */
#ifndef LDP_CTS_VERSIONS_H
#define LDP_CTS_VERSIONS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ldp_cv_class {
    LDP_CV_ZERO,        /* 0.0.0.0: no claim */
    LDP_CV_RELEASE,     /* exactly a CTS release version of the snapshot */
    LDP_CV_LINE_ONLY,   /* a release line the snapshot knows (major.minor.subminor), but its patch
                           levels are not in the snapshot: the patch is unverifiable */
    LDP_CV_NOT_RELEASE, /* inside a range the snapshot lists completely, and no release: implausible */
    LDP_CV_NEWER,       /* newer than the newest release of the snapshot: unverifiable */
    LDP_CV_OLDER,       /* older than the snapshot covers: unverifiable */
    LDP_CV_BELOW_API,   /* major.minor below the driver's own API version (the CTS's own
                           driver_properties.conformance_version test fails such a driver) */
};

/* Classifies major.minor.subminor.patch against the snapshot and the device's apiVersion
 * (VK_MAKE_API_VERSION). why gets one sentence saying what was compared with what. */
enum ldp_cv_class ldp_cts_classify(unsigned major, unsigned minor, unsigned subminor, unsigned patch,
                                   uint32_t api_version, char *why, size_t why_len);

/* The snapshot's date and source, for reports. */
extern const char ldp_cts_snapshot_source[];

#ifdef __cplusplus
}
#endif

#endif /* LDP_CTS_VERSIONS_H */
