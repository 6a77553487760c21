/*
 * ldp-check: the driver policy checker (docs/ldp-check.md).
 *
 * Process model: the parent parses options and manifests and never loads a driver. Every check
 * runs in a forked child (runner.c) with a time limit; a check may fork further "probe"
 * grandchildren when it needs a fresh process (interface negotiation is once per process). A
 * child reports through a line protocol written to an unlinked temporary file:
 *   "V <verdict>\t<reason>"  the verdict (the last one wins)
 *   "E <text>"               one evidence line
 *   "S <text>"               the call about to be made (only the last one is kept; it becomes
 *                            the evidence when the child crashes or hangs)
 *   "R <key>\t<value>"       a probe result read by the check that forked the probe
 */
#ifndef LDP_CHECK_H
#define LDP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vk_icd.h>
#include <vulkan/vulkan.h>

#include "loader/internal/manifest.h"

#define LDP_CHECK_VERSION "1.0.0"
#define LDP_MAX_OFFER 7u /* newest loader/driver interface the documents define */
#define LDP_UNKNOWN_FUNCTION "vkLdpCheckNonexistentFunctionEXT"

enum ldp_verdict { LDP_PASS, LDP_FAIL, LDP_WARN, LDP_NA, LDP_NOT_TESTABLE, LDP_REMOVED, LDP_VERDICT_COUNT };
const char *ldp_verdict_name(enum ldp_verdict v);
bool ldp_verdict_parse(const char *s, enum ldp_verdict *out);

struct ldp_options {
    double timeout_s;          /* per child process */
    const char *loader_path;   /* our libvulkan.so.1 (NULL: not found) */
    const char *mock_path;     /* libmock_icd_v7.so (NULL: not found) */
    const char *registry_path; /* vk.xml given with --registry (NULL: embedded list) */
    const char *tmp_dir;       /* session directory for the LDP_DRIVER_1 mock copy (lazy) */
};

/* What the parent knows about one driver before the checks run. */
struct ldp_driver {
    const char *manifest_path;
    bool manifest_ok;          /* vkl_icd_manifest_parse succeeded */
    char manifest_error[1400]; /* why the parent could not use it (manifest_too_big) */
    struct vkl_icd_manifest m;
    int elf_class;             /* 32, 64, or 0 when the library could not be inspected */
    bool library_missing;      /* absolute/relative path that cannot be stat'ed (does not exist, a
                                  symbolic link loop, ...): library_problem says which */
    bool library_not_regular;  /* it exists but is a directory, FIFO, device...: never opened */
    char library_problem[300]; /* "does not exist", "is a FIFO, not a regular file", ... */
    /* library_path as the manifest writes it when it has dynamic string tokens ($LIB, $PLATFORM,
     * $ORIGIN): m.library_path is then the file dlopen opens (checker_common/library_path.h), the
     * one every check stats and loads. Empty: no token. */
    char library_path_written[1024];
    /* The manifest as the parent read it (children inherit it; never read twice). NULL when it
     * is larger than VKL_MANIFEST_MAX_SIZE (manifest_error says so; LDP_DRIVER_4 fails). */
    const char *manifest_buf;
    size_t manifest_len;
    bool manifest_too_big;
    /* --package: library_path is the package's file_path (what the Fuchsia loader loads), not the
     * manifest's own; library_overridden says so, and loader_manifest is a manifest naming that
     * library for the reference loader (LDP_DRIVER_1). NULL: use manifest_path. */
    bool library_overridden;
    const char *loader_manifest;
};

struct ldp_ctx {
    const struct ldp_options *opt;
    const struct ldp_driver *drv;
    int fd; /* protocol output of this process */
};

/* ---- child-side reporting (report lines are single write(2) calls) ---- */
void ldp_evidence(struct ldp_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ldp_step(struct ldp_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ldp_verdict(struct ldp_ctx *c, enum ldp_verdict v, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ldp_result(struct ldp_ctx *c, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- runner ---- */
enum ldp_exit_kind { LDP_EXITED, LDP_SIGNALED, LDP_TIMED_OUT, LDP_SPAWN_FAILED };
struct ldp_child {
    enum ldp_exit_kind kind;
    int code;  /* exit status or signal number */
    char *out; /* protocol text (NUL-terminated) */
    char *err; /* the child's stderr (NUL-terminated) */
    double seconds;
};
/* Runs fn(c, arg) in a forked child whose protocol fd is a fresh temporary file; stdout goes to
 * /dev/null, stderr to a second temporary file. new_group: the child leads its own process group
 * (top-level checks), which is killed as a whole afterwards. Never fails: a failed fork is
 * reported as LDP_SPAWN_FAILED. */
void ldp_run_child(const struct ldp_ctx *parent, double timeout_s, bool new_group,
                   void (*fn)(struct ldp_ctx *c, void *arg), void *arg, struct ldp_child *out);
void ldp_child_free(struct ldp_child *ch);
/* Value of the first "R key\t..." line, or NULL (pointer into a static buffer per call slot). */
const char *ldp_child_get(const struct ldp_child *ch, const char *key, char *buf, size_t len);
/* Iterates "R key\t..." lines: returns the value after *pos and advances it, or NULL. */
const char *ldp_child_next(const struct ldp_child *ch, const char *key, size_t *pos, char *buf, size_t len);
/* "crashed" (signal), "hung" (timed out), "exited" (non-zero status), "could not be started". */
const char *ldp_child_outcome(const struct ldp_child *ch);
/* "killed by signal 11 (Segmentation fault) during <last step>", "timed out after 30.0 s during
 * <last step>" and the like. */
void ldp_child_describe(const struct ldp_child *ch, char *buf, size_t len);
/* A probe: runs fn in a grandchild with the check's time limit; crashes become evidence. */
void ldp_probe(struct ldp_ctx *c, void (*fn)(struct ldp_ctx *c, void *arg), void *arg, struct ldp_child *out);
/* Copies the "E" lines of a probe into c's evidence with a prefix. */
void ldp_forward_evidence(struct ldp_ctx *c, const struct ldp_child *ch, const char *prefix);

/* ---- driver access (children only) ---- */
struct ldp_drv {
    void *lib;
    PFN_vkGetInstanceProcAddr gipa;     /* vk_icdGetInstanceProcAddr, or exported vkGetInstanceProcAddr (v0) */
    PFN_vkGetInstanceProcAddr icd_gipa; /* exported vk_icdGetInstanceProcAddr or NULL */
    PFN_vk_icdNegotiateLoaderICDInterfaceVersion negotiate; /* the one used */
    bool negotiate_exported, negotiate_via_gipa;
    PFN_vk_icdGetPhysicalDeviceProcAddr gpdpa;
    bool gpdpa_exported;
    uint32_t offered;
    uint32_t iface;      /* negotiated (or 1 / 0 for legacy drivers) */
    VkResult neg_result; /* VK_SUCCESS when no negotiation happened */
    bool negotiated;
    uint32_t api; /* vkEnumerateInstanceVersion, else the manifest's api_version */
    bool has_eiv;
    uint32_t inst_api; /* apiVersion of the instance make_instance() created */
};
/* Opens the library like a loader of interface `offer` would (offer >= 7: negotiate exported or
 * through vk_icdGetInstanceProcAddr(NULL); 2..6: exported negotiate only; <= 1: no negotiation).
 * 0: usable; -1: cannot be loaded / no entry points (msg in err); -2: negotiation refused. */
int ldp_drv_open(struct ldp_ctx *c, uint32_t offer, struct ldp_drv *d, char *err, size_t err_len);
PFN_vkVoidFunction ldp_gipa(struct ldp_drv *d, VkInstance inst, const char *name);
VkResult ldp_create_instance(struct ldp_ctx *c, struct ldp_drv *d, uint32_t api, const char *const *exts,
                             uint32_t ext_count, VkInstance *out);
/* Instance extensions (malloc'd, *count) of the driver; NULL with count 0 on failure. */
VkExtensionProperties *ldp_instance_extensions(struct ldp_drv *d, uint32_t *count);
bool ldp_has_ext(const VkExtensionProperties *e, uint32_t n, const char *name);
const char *ldp_vkresult(VkResult r);
void ldp_version_str(uint32_t v, char *buf, size_t len);

/* ---- files a driver names (files.c): never blocks on a FIFO or device ---- */
enum ldp_file_status {
    LDP_FILE_OK,
    LDP_FILE_ERROR,       /* stat, open or read failed: err_no */
    LDP_FILE_NOT_REGULAR, /* a directory, FIFO, device, socket: not read (mode says which) */
    LDP_FILE_TOO_BIG,     /* larger than the limit (size: its size, at least limit + 1) */
};
struct ldp_file {
    enum ldp_file_status status;
    int err_no;
    bool read_failed;        /* LDP_FILE_ERROR from read(2) rather than stat/open */
    unsigned mode;           /* st_mode when stat succeeded */
    unsigned long long size; /* st_size */
};
/* stat, then open(O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) only if it is a regular file,
 * then fstat again (it may have been replaced). The fd, or -1 with f->status. */
int ldp_file_open(const char *path, struct ldp_file *f);
/* The whole regular file (malloc'd, NUL-terminated, *len without the NUL) if it has at most
 * `limit` bytes; NULL with f->status otherwise. */
char *ldp_file_read(const char *path, size_t limit, size_t *len, struct ldp_file *f);
/* "a directory", "a FIFO", "a character device", ... */
const char *ldp_file_type_name(unsigned mode);

/* ---- ELF ---- */
struct ldp_elf {
    int elf_class; /* 32/64 */
    int machine;
    bool is_dyn;
    bool symbolic; /* DT_SYMBOLIC or DF_SYMBOLIC */
    bool have_symbols;
    char **vk_exports;
    size_t vk_export_count; /* defined, default-visibility vk* (not vk_icd*) */
    size_t self_referenced; /* of those, referenced by own dynamic relocs */
};
int ldp_elf_inspect(const char *path, struct ldp_elf *out, char *err, size_t err_len);
void ldp_elf_free(struct ldp_elf *e);
/* Resolves a manifest library path the way dlopen would for bare names is impossible without
 * loading; this only answers absolute / relative paths (NULL for bare names). */

/* ---- registry ---- */
struct ldp_registry_ext {
    const char *name;
    bool published;       /* "vulkan" among supported= */
    const char *platform; /* platform= attribute or NULL */
};
struct ldp_registry {
    const struct ldp_registry_ext *exts;
    size_t count;
    unsigned header_version;
    const char *source; /* "embedded (vk.xml at build time)" or the path */
    void *owned;        /* storage for a run-time loaded registry */
};
int ldp_registry_load(const char *path, struct ldp_registry *out, char *err, size_t err_len);
const struct ldp_registry_ext *ldp_registry_find(const struct ldp_registry *r, const char *name);
void ldp_registry_free(struct ldp_registry *r);
bool ldp_looks_like_platform_extension(const char *name);

/* ---- checks ---- */
struct ldp_check_def {
    const char *id;                           /* LDP_DRIVER_n or LINT_* */
    const char *name;                         /* policies.tsv ldp_check column */
    const char *title;                        /* one line */
    void (*fn)(struct ldp_ctx *c, void *arg); /* NULL: removed policy */
    int probes;         /* probe grandchildren it may fork (time budget: (1 + probes) * timeout) */
    bool needs_library; /* not-testable-here when the library is unusable */
};
extern const struct ldp_check_def ldp_checks[];
extern const size_t ldp_check_count;
/* The policy text (policies.tsv, or the lint's own) and the help of a check, for the SARIF rules;
 * NULL when unknown (rules.c). */
void ldp_rule_texts(const char *id, const char **text, const char **help);

#endif /* LDP_CHECK_H */
