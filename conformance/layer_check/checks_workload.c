/* llp-check: workload checks (LLP_LAYER_1, 2, 14, 19). The sandwich's workload grows a command
 * pool, a command buffer recorded and submitted, and (LLP_LAYER_14) counting allocation callbacks;
 * LLP_LAYER_1 and 2 compare a run with the layer against a control run of the recording layers
 * alone (docs/llp-check.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/layer_check/sandwich.h"

/* ---- LLP_LAYER_14 ---- */

static unsigned long proto_ul(const struct sandwich *s, const char *key) {
    char buf[64];
    size_t pos = 0;
    return llp_proto_next(s->proto, key, &pos, buf, sizeof buf) ? strtoul(buf, NULL, 10) : 0;
}

static void judge_alloc(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l, struct sandwich *s) {
    char buf[1300];
    size_t pos = 0;
    const char *name = l->props.layerName;
    if (llp_proto_next(s->proto, "alloc_error", &pos, buf, sizeof buf) != NULL) {
        llp_acc_add(a, l, LDP_NOT_TESTABLE, "the allocation probe cannot watch the layer: %s", buf);
        return;
    }
    pos = 0;
    if (llp_proto_next(s->proto, "alloc_cb_layer", &pos, buf, sizeof buf) == NULL) {
        llp_acc_add(a, l, LDP_NOT_TESTABLE, "the workload did not reach its end (vkCreateInstance %s)",
                    llp_res((VkResult)s->instance_result));
        return;
    }
    unsigned long cb = proto_ul(s, "alloc_cb_layer"), direct = proto_ul(s, "alloc_direct"),
                  foreign = proto_ul(s, "alloc_foreign"), leaked = proto_ul(s, "alloc_leaked_layer"),
                  patched = proto_ul(s, "alloc_patched");
    char callers[1300] = "-", detail[1300] = "-", first[400] = "";
    pos = 0;
    llp_proto_next(s->proto, "alloc_callers", &pos, callers, sizeof callers);
    pos = 0;
    llp_proto_next(s->proto, "alloc_direct_detail", &pos, detail, sizeof detail);
    pos = 0;
    llp_proto_next(s->proto, "alloc_foreign_first", &pos, first, sizeof first);
    ldp_evidence(c, "%s: the application's callbacks were called by (library, calls): %s", name, callers);
    ldp_evidence(c,
                 "%s: calls from the layer's code: %lu through the callbacks; %lu to its own allocation imports "
                 "(%s; %lu import slot(s) watched)",
                 name, cb, direct, detail, patched);
    if (foreign)
        ldp_evidence(c, "%s: %lu call(s) gave the callbacks a pointer they never returned; first: %s", name, foreign,
                     first);
    if (foreign && strstr(first, "(the layer under test)") != NULL) {
        llp_acc_add(a, l, LDP_FAIL,
                    "the layer handed the application's callbacks a pointer they never returned (%s): "
                    "memory from its own allocator released through pfnFree/pfnReallocation",
                    first);
    } else if (cb == 0 && direct == 0) {
        llp_acc_add(a, l, LDP_NOT_TESTABLE,
                    "no allocation by the layer's code could be seen while the instance and "
                    "device existed (neither through the callbacks nor through its imports)");
    } else if (cb == 0) {
        llp_acc_add(a, l, LDP_WARN,
                    "the application supplied allocation callbacks, yet the layer allocated %lu time(s) "
                    "with its own allocator (%s) and never through them",
                    direct, detail);
    } else if (direct > 0) {
        llp_acc_add(a, l, LDP_WARN,
                    "the layer allocated %lu time(s) through the application's callbacks but %lu time(s) "
                    "with its own allocator (%s)",
                    cb, direct, detail);
    } else if (leaked > 0) {
        llp_acc_add(a, l, LDP_WARN,
                    "the layer allocated through the application's callbacks, but %lu of those "
                    "allocations were still live after vkDestroyInstance",
                    leaked);
    } else {
        llp_acc_add(a, l, LDP_PASS,
                    "the layer allocated %lu time(s), all through the application's callbacks, and freed "
                    "them",
                    cb);
    }
}

void llp_check_alloc_callbacks(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct sandwich proto = {.commands = true, .allocator = true};
    llp_for_each_layer(c, &proto, judge_alloc);
}

/* ---- LLP_LAYER_19 ---- */

struct word_rec {
    char cmd[96], type[32], handle[32], word[32];
};

static bool parse_word(const char *v, struct word_rec *w) {
    return sscanf(v, "%95s %31s %31s %31s", w->cmd, w->type, w->handle, w->word) == 4;
}

static bool instance_level(const char *type) {
    return strcmp(type, "VkInstance") == 0 || strcmp(type, "VkPhysicalDevice") == 0;
}

static bool device_level(const char *type) {
    return strcmp(type, "VkDevice") == 0 || strcmp(type, "VkQueue") == 0 || strcmp(type, "VkCommandBuffer") == 0;
}

static bool above_saw(const char *above, const char *handle) {
    size_t pos = 0;
    char buf[300];
    struct word_rec w;
    while (llp_rec_next(above, "word", &pos, buf, sizeof buf) != NULL)
        if (parse_word(buf, &w) && strcmp(w.handle, handle) == 0) return true;
    return false;
}

static void judge_dispatch(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                           struct sandwich *s) {
    const char *name = l->props.layerName;
    char inst_word[32] = "", dev_word[32] = "", buf[300];
    struct word_rec w;
    size_t pos = 0;
    /* The loader's dispatch pointers: the first word of the instance and of the device as the
     * application's calls bring them to the layer above. */
    while (llp_rec_next(s->above, "word", &pos, buf, sizeof buf) != NULL) {
        if (!parse_word(buf, &w)) continue;
        if (strcmp(w.type, "VkInstance") == 0 && !inst_word[0]) snprintf(inst_word, sizeof inst_word, "%s", w.word);
        if (strcmp(w.type, "VkDevice") == 0 && !dev_word[0]) snprintf(dev_word, sizeof dev_word, "%s", w.word);
    }
    if (!inst_word[0]) {
        llp_acc_add(a, l, LDP_NOT_TESTABLE, "vkCreateInstance did not succeed through the layer (%s)",
                    llp_res((VkResult)s->instance_result));
        return;
    }
    ldp_evidence(c, "%s: the loader's dispatch: instance %s, device %s", name, inst_word,
                 dev_word[0] ? dev_word : "(no device)");
    int checked = 0, own = 0, bad = 0;
    char first[400] = "";
    pos = 0;
    while (llp_rec_next(s->below, "word", &pos, buf, sizeof buf) != NULL) {
        if (!parse_word(buf, &w)) continue;
        const char *expect = instance_level(w.type) ? inst_word : device_level(w.type) ? dev_word : NULL;
        if (expect == NULL || !expect[0]) continue;
        checked++;
        bool mine = !above_saw(s->above, w.handle);
        if (mine) own++;
        if (strcmp(w.word, expect) != 0) {
            if (!bad++)
                snprintf(first, sizeof first, "the %s %s passed to %s holds %s, not the loader's dispatch %s%s", w.type,
                         w.handle, w.cmd, w.word, expect,
                         mine ? " (an object of the layer's own: the application never had it)" : "");
            if (bad <= 8)
                ldp_evidence(c, "%s: the layer below's %s received %s %s whose first word is %s (expected %s)%s", name,
                             w.cmd, w.type, w.handle, w.word, expect,
                             mine ? "; the application never had this object" : "");
        }
    }
    ldp_evidence(c,
                 "%s: %d dispatchable handle use(s) below the layer checked, %d of objects the application never had",
                 name, checked, own);
    if (bad)
        llp_acc_add(a, l, LDP_FAIL,
                    "%d dispatchable handle use(s) below the layer without the loader's dispatch pointer "
                    "(first: %s): pfnSetInstanceLoaderData / pfnSetDeviceLoaderData was not called for an "
                    "object the layer created",
                    bad, first);
    else if (own == 0)
        llp_acc_add(a, l, LDP_NOT_TESTABLE,
                    "the layer created no dispatchable object of its own in the workload (every "
                    "handle below it was one the application had); the %d handle use(s) below it "
                    "carried the loader's dispatch",
                    checked);
    else
        llp_acc_add(a, l, LDP_PASS,
                    "%d use(s) of dispatchable objects the layer created itself reached the layer below "
                    "with the loader's dispatch pointer in their first word",
                    own);
}

void llp_check_dispatch_init(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct sandwich proto = {.commands = true};
    llp_for_each_layer(c, &proto, judge_dispatch);
}

/* ---- LLP_LAYER_1 / 2: the control run ---- */

static bool run_control(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                        struct sandwich *ctl) {
    memset(ctl, 0, sizeof *ctl);
    ctl->layer = l;
    ctl->commands = true;
    ctl->without = true;
    llp_run_sandwich(c, ctl);
    if (!ctl->ran) {
        llp_acc_add(a, l, LDP_NOT_TESTABLE, "the control run without the layer failed: %s", ctl->failure);
        return false;
    }
    return true;
}

#define MAX_STEPS 64
struct steps {
    char v[MAX_STEPS][300];
    int n;
};

static void app_steps(const struct sandwich *s, struct steps *st) {
    size_t pos = 0;
    st->n = 0;
    while (st->n < MAX_STEPS && llp_proto_next(s->proto, "app", &pos, st->v[st->n], sizeof st->v[st->n]) != NULL)
        st->n++;
}

/* "vkCreateDevice VK_SUCCESS" -> the command part ("vkCreateDevice"), for matching steps. */
static void step_name(const char *v, char *out, size_t len) {
    size_t n = strcspn(v, " ");
    snprintf(out, len, "%.*s", (int)n, v);
}

static bool step_ok(const char *v) { return strstr(v, "VK_ERROR") == NULL && strstr(v, "VK_NULL_HANDLE") == NULL; }

static void judge_conformant(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                             struct sandwich *s) {
    const char *name = l->props.layerName;
    struct sandwich ctl;
    if (!run_control(c, a, l, &ctl)) {
        llp_free_sandwich(&ctl);
        return;
    }
    struct steps *with = malloc(sizeof *with), *without = malloc(sizeof *without);
    if (with == NULL || without == NULL) {
        free(with);
        free(without);
        llp_free_sandwich(&ctl);
        return;
    }
    app_steps(s, with);
    app_steps(&ctl, without);
    ldp_evidence(c, "%s: %d application-visible result(s) without the layer, %d with it", name, without->n, with->n);
    int broke = -1, changed = -1;
    for (int i = 0; i < without->n; i++) {
        const char *w = i < with->n ? with->v[i] : "(not reached)";
        char na[96], nb[96];
        step_name(without->v[i], na, sizeof na);
        step_name(w, nb, sizeof nb);
        if (strcmp(without->v[i], w) == 0) continue;
        ldp_evidence(c, "%s: without the layer: %s; with it: %s", name, without->v[i], w);
        if (broke < 0 && step_ok(without->v[i]) && (strcmp(na, nb) != 0 || !step_ok(w))) broke = i;
        if (changed < 0) changed = i;
    }
    if (broke >= 0)
        llp_acc_add(a, l, LDP_FAIL,
                    "a step that succeeds without the layer does not with it: %s without, %s with the layer",
                    without->v[broke], broke < with->n ? with->v[broke] : "not reached");
    else if (changed >= 0)
        llp_acc_add(a, l, LDP_WARN,
                    "an application-visible result changes with the layer: %s without, %s with it (a layer "
                    "may change results deliberately; check that this one is meant)",
                    without->v[changed], changed < with->n ? with->v[changed] : "not reached");
    else if (with->n > without->n)
        llp_acc_add(a, l, LDP_WARN, "the workload went further with the layer than without it (%d steps against %d)",
                    with->n, without->n);
    else
        llp_acc_add(a, l, LDP_PASS,
                    "all %d application-visible results of the workload are the same with and without the "
                    "layer",
                    without->n);
    free(with);
    free(without);
    llp_free_sandwich(&ctl);
}

void llp_check_conformant_stack(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct sandwich proto = {.commands = true};
    llp_for_each_layer(c, &proto, judge_conformant);
}

/* Per-command tallies of the layer below's "call <command> <result>" records. */
#define MAX_CMDS 48
struct tally {
    char cmd[MAX_CMDS][96];
    int calls[MAX_CMDS], errors[MAX_CMDS];
    int n;
};

static void tally_calls(const char *below, struct tally *t) {
    memset(t, 0, sizeof *t);
    size_t pos = 0;
    char buf[300];
    while (llp_rec_next(below, "call", &pos, buf, sizeof buf) != NULL) {
        char cmd[96], num[16];
        int r = 0;
        if (sscanf(buf, "%95s %15s", cmd, num) != 2 || !llp_int(num, &r)) continue;
        int i = 0;
        while (i < t->n && strcmp(t->cmd[i], cmd) != 0) i++;
        if (i == t->n) {
            if (t->n == MAX_CMDS) continue;
            snprintf(t->cmd[t->n++], sizeof t->cmd[0], "%s", cmd);
        }
        t->calls[i]++;
        if (r < 0) t->errors[i]++;
    }
}

static int tally_find(const struct tally *t, const char *cmd) {
    for (int i = 0; i < t->n; i++)
        if (strcmp(t->cmd[i], cmd) == 0) return i;
    return -1;
}

static bool in_control(const char *control_below, const char *line) {
    size_t pos = 0;
    char buf[400];
    while (llp_rec_next(control_below, "invalid", &pos, buf, sizeof buf) != NULL)
        if (strcmp(buf, line) == 0) return true;
    return false;
}

static void judge_no_harm(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                          struct sandwich *s) {
    const char *name = l->props.layerName;
    struct sandwich ctl;
    if (!run_control(c, a, l, &ctl)) {
        llp_free_sandwich(&ctl);
        return;
    }
    /* invalid calls the layer below received (not also in the control run: those are the workload's) */
    int invalid = 0;
    char first_invalid[400] = "", buf[400];
    size_t pos = 0;
    while (llp_rec_next(s->below, "invalid", &pos, buf, sizeof buf) != NULL) {
        if (in_control(ctl.below, buf)) continue;
        if (!invalid++) snprintf(first_invalid, sizeof first_invalid, "%s", buf);
        ldp_evidence(c, "%s: the layer below received an invalid call: %s", name, buf);
    }
    struct tally *tw = malloc(sizeof *tw), *tc = malloc(sizeof *tc);
    if (tw == NULL || tc == NULL) {
        free(tw);
        free(tc);
        llp_free_sandwich(&ctl);
        return;
    }
    tally_calls(s->below, tw);
    tally_calls(ctl.below, tc);
    int failed = -1, missing = -1, extra = 0;
    for (int i = 0; i < tw->n; i++) {
        int j = tally_find(tc, tw->cmd[i]);
        int ctl_errors = j >= 0 ? tc->errors[j] : 0;
        if (tw->errors[i] > ctl_errors && failed < 0) failed = i;
        if (j < 0 || tw->calls[i] > tc->calls[j]) extra += tw->calls[i] - (j >= 0 ? tc->calls[j] : 0);
    }
    for (int j = 0; j < tc->n; j++) {
        int i = tally_find(tw, tc->cmd[j]);
        int got = i >= 0 ? tw->calls[i] : 0;
        if (got < tc->calls[j]) {
            ldp_evidence(c, "%s: %s reached the layer below %d time(s) without the layer, %d with it", name, tc->cmd[j],
                         tc->calls[j], got);
            if (missing < 0) missing = j;
        }
    }
    /* device extensions the layer added on its way down (a failing vkCreateDevice is often one the
     * driver does not support) */
    pos = 0;
    while (llp_rec_next(s->below, "device_extension", &pos, buf, sizeof buf) != NULL) {
        size_t cpos = 0;
        char cbuf[400];
        bool also = false;
        while (!also && llp_rec_next(ctl.below, "device_extension", &cpos, cbuf, sizeof cbuf) != NULL)
            also = strcmp(cbuf, buf) == 0;
        if (!also)
            ldp_evidence(c, "%s: the layer added the device extension %s to vkCreateDevice on its way down", name, buf);
    }
    ldp_evidence(c, "%s: the layer below saw %d kind(s) of call with the layer, %d without; %d call(s) more with it",
                 name, tw->n, tc->n, extra);
    if (invalid)
        llp_acc_add(a, l, LDP_FAIL, "the layer called the layer below invalidly %d time(s) (first: %s)", invalid,
                    first_invalid);
    else if (failed >= 0)
        llp_acc_add(a, l, LDP_FAIL,
                    "below the layer, %s failed %d time(s) (%d without the layer): the layer made the layer "
                    "below or the driver fail",
                    tw->cmd[failed], tw->errors[failed],
                    tally_find(tc, tw->cmd[failed]) >= 0 ? tc->errors[tally_find(tc, tw->cmd[failed])] : 0);
    else if (missing >= 0)
        llp_acc_add(a, l, LDP_WARN,
                    "the call stream below the layer is not an image of the application's: %s reached the "
                    "layer below fewer times with the layer than without it (the layer answered or "
                    "dropped it)",
                    tc->cmd[missing]);
    else
        llp_acc_add(a, l, LDP_PASS,
                    "every call of the workload reached the layer below, valid and successful as without the "
                    "layer (%d call(s) of its own added)",
                    extra);
    free(tw);
    free(tc);
    llp_free_sandwich(&ctl);
}

void llp_check_no_harm(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct sandwich proto = {.commands = true};
    llp_for_each_layer(c, &proto, judge_no_harm);
}
