/*
 * llp-check: the layer policy checker (docs/llp-check.md).
 *
 * Same process model as ldp-check (conformance/driver/ldp_check.h, whose runner, report protocol
 * and non-blocking file reader it links): the parent parses options and manifests and never loads a
 * layer; every check runs in a forked child with a time limit, and checks that need a fresh process
 * per attempt (negotiation per offer, one sandwich per layer) fork probe grandchildren.
 */
#ifndef LLP_CHECK_H
#define LLP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conformance/driver/ldp_check.h"
#include "loader/internal/layer.h"

#define LLP_CHECK_VERSION "1.0.0"
/* Names of the two recording layers llp-check puts around the layer under test. */
#define LLP_ABOVE_NAME "VK_LAYER_LLPCHECK_above"
#define LLP_BELOW_NAME "VK_LAYER_LLPCHECK_below"
#define LLP_INJECTED_EXTENSION "VK_LLPCHECK_unknown_extension"

struct llp_options {
    double timeout_s;
    const char *loader_path;     /* our libvulkan.so.1 */
    const char *icd_path;        /* libmock_icd_v7.so */
    const char *recording_path;  /* librecording_layer.so */
    const char *session_dir;     /* temporary directory: mock ICD copy + manifest (NULL: none) */
    const char *driver_manifest; /* --driver: a real driver's manifest under the sandwich (NULL: the mock) */
    bool force_implicit;         /* --implicit: treat the given manifests as implicit layers */
    /* Every manifest given on the command line or found by --installed (components of meta-layers,
     * stale duplicates are looked for among these and the default search directories). */
    const char *const *manifests;
    size_t manifest_count;
};

/* What the parent knows about one manifest before the checks run. */
struct llp_manifest {
    const char *path;
    bool implicit;
    const char *buf; /* the file as read once by the parent (NULL: too big) */
    size_t len;
    bool too_big;
    unsigned long long size;
    VkResult parse_result;
    struct vkl_layer_manifest_file file; /* accepted layers */
    char **log;                          /* the parser's log lines, "LEVEL: text" */
    size_t log_count;
    /* Per accepted layer: its library_path as written when that has dynamic string tokens ($LIB,
     * $PLATFORM, $ORIGIN), NULL otherwise; the layer's library_path is then the file dlopen opens. */
    char **library_path_written;
};

/* Replaces each layer's library_path by the file dlopen opens for it (conformance/checker_common/
 * library_path.h; $ORIGIN: the directory of the loader, which calls dlopen); the text as written
 * goes to written[i] (an array of file->count entries, NULL entries when unchanged) unless written
 * is NULL. */
void llp_expand_library_paths(struct vkl_layer_manifest_file *file, char ***written);

/* The manifest and options of the run; set by the parent before forking a check. */
extern const struct llp_options *llp_opt;
extern const struct llp_manifest *llp_man;

struct llp_check_def {
    const char *id;    /* LLP_LAYER_n */
    const char *name;  /* check name */
    const char *title; /* one line */
    void (*fn)(struct ldp_ctx *c, void *arg);
    int probes;       /* probe grandchildren per layer of the manifest (time budget) */
    bool needs_parse; /* not-testable-here when the manifest was rejected as a whole */
};
extern const struct llp_check_def llp_checks[];
extern const size_t llp_check_count;

/* Helpers shared by the check files (checks_*.c). */
void llp_check_manifest_naming(struct ldp_ctx *c, void *arg);
void llp_check_manifest_valid(struct ldp_ctx *c, void *arg);
void llp_check_meta_components(struct ldp_ctx *c, void *arg);
void llp_check_meta_versions(struct ldp_ctx *c, void *arg);
void llp_check_implicit_disable(struct ldp_ctx *c, void *arg);
void llp_check_stale(struct ldp_ctx *c, void *arg);
void llp_check_negotiate_export(struct ldp_ctx *c, void *arg);
void llp_check_negotiate_offers(struct ldp_ctx *c, void *arg);
void llp_check_instance_extensions(struct ldp_ctx *c, void *arg);
void llp_check_untestable(struct ldp_ctx *c, void *arg);
void llp_check_chain_handles(struct ldp_ctx *c, void *arg);
void llp_check_chain_instance_link(struct ldp_ctx *c, void *arg);
void llp_check_chain_device_link(struct ldp_ctx *c, void *arg);
void llp_check_chain_device_extensions(struct ldp_ctx *c, void *arg);
void llp_check_chain_unknown_extensions(struct ldp_ctx *c, void *arg);
void llp_check_chain_disabled_commands(struct ldp_ctx *c, void *arg);
void llp_check_chain_instance_untouched(struct ldp_ctx *c, void *arg);
void llp_check_chain_device_untouched(struct ldp_ctx *c, void *arg);
void llp_check_conformant_stack(struct ldp_ctx *c, void *arg);
void llp_check_no_harm(struct ldp_ctx *c, void *arg);
void llp_check_alloc_callbacks(struct ldp_ctx *c, void *arg);
void llp_check_dispatch_init(struct ldp_ctx *c, void *arg);

/* The SARIF texts of a rule (rules.c): the policy with its source (from policies.tsv) and what fails
 * or warns and what to change. NULL when unknown. */
void llp_rule_texts(const char *id, const char **text, const char **help);

/* Verdict order for combining several layers of one manifest: fail > warn > pass > not-testable
 * > not-applicable. */
enum ldp_verdict llp_worse(enum ldp_verdict a, enum ldp_verdict b);

/* Accumulates one verdict over the layers of a manifest (the worst wins, its reason kept; prefixed
 * with the layer's name when the manifest has several). */
struct llp_acc {
    enum ldp_verdict v;
    bool any;
    char reason[1500];
};
void llp_acc_add(struct llp_acc *a, const struct vkl_layer_manifest *l, enum ldp_verdict v, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void llp_acc_end(struct ldp_ctx *c, struct llp_acc *a);
/* false (with a not-applicable / not-testable-here entry) for a meta-layer or a missing library. */
bool llp_usable(struct llp_acc *a, const struct vkl_layer_manifest *l);

#endif /* LLP_CHECK_H */
