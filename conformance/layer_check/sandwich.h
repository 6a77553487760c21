/* llp-check: the sandwich (checks_chain.c) shared by the chain checks and the workload checks
 * (checks_workload.c): the layer under test between two recording layers, in a probe grandchild,
 * through the reference loader; and the allocation probe (checks_alloc.c). */
#ifndef LLP_SANDWICH_H
#define LLP_SANDWICH_H

#include <limits.h>
#include <stdbool.h>

#include "conformance/layer_check/llp_check.h"

#define LLP_NO_RESULT 0x7fffffff /* the call did not return (the process died) */

struct sandwich {
    const struct vkl_layer_manifest *layer;
    bool inject;    /* the layer above adds an extension nobody knows (LLP_LAYER_17) */
    bool commands;  /* the workload also records and submits a command buffer (LLP_LAYER_1, 2, 19) */
    bool allocator; /* the application passes counting allocation callbacks (LLP_LAYER_14) */
    bool without;   /* the control run: the recording layers alone, the layer under test absent */
    char dir[PATH_MAX];
    /* results, filled by llp_run_sandwich */
    bool ran; /* the probe exited normally */
    /* Whose failure the probe's death is (when !ran): the layer, the control run (no layer), the
     * reference loader or the driver (by where it crashed). */
    enum { LLP_BLAME_NONE, LLP_BLAME_LAYER, LLP_BLAME_CONTROL, LLP_BLAME_LOADER, LLP_BLAME_DRIVER } blame;
    char failure[1200]; /* how the probe died, when !ran */
    int instance_result, device_result, device_count;
    char *above, *below; /* the recording layers' records */
    char *log;           /* the probe's stderr: the loader's error lines (VK_LOADER_DEBUG=error) */
    char *proto;         /* the probe's protocol text ("R key\tvalue" lines: app steps, allocations) */
};

typedef void (*llp_judge_fn)(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                             struct sandwich *s);

const char *llp_res(VkResult r);
void llp_run_sandwich(struct ldp_ctx *c, struct sandwich *s);
void llp_free_sandwich(struct sandwich *s);
/* Runs one sandwich per usable layer of the manifest (a copy of *proto, NULL: the plain workload)
 * and calls judge() for those whose probe exited normally. */
void llp_for_each_layer(struct ldp_ctx *c, const struct sandwich *proto, llp_judge_fn judge);
/* The value after "key " of the next record line (after *pos) with that key, or NULL. */
const char *llp_rec_next(const char *text, const char *key, size_t *pos, char *buf, size_t len);
const char *llp_rec_get(const char *text, const char *key, char *buf, size_t len);
/* The decimal integer a record or probe value starts with (written with %d or %u), into *out;
 * false, *out unchanged, when s is NULL or does not start with one that fits an int. */
bool llp_int(const char *s, int *out);
/* The value of the next "R key\t..." protocol line of a probe (after *pos), or NULL. */
const char *llp_proto_next(const char *proto, const char *key, size_t *pos, char *buf, size_t len);

/* ---- the allocation probe (checks_alloc.c), in the probe grandchild ---- */
/* Loads the layer's library first (RTLD_NOW) and redirects its imports of the C and C++
 * allocation functions to counters; returns false (with why) when that is impossible. */
bool llp_alloc_prepare(const char *library_path, char *why, size_t len);
/* The counting allocation callbacks the workload passes. */
const VkAllocationCallbacks *llp_alloc_callbacks(void);
/* Counting on (between vkCreateInstance and the end of vkDestroyInstance) or off. */
void llp_alloc_window(bool on);
/* Writes the counts as probe results ("alloc_*" keys). */
void llp_alloc_report(struct ldp_ctx *c);

#endif /* LLP_SANDWICH_H */
