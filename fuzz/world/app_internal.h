/*
 * What the whole-loader harness (harness.c) and its application (app.c) share: the API check, the
 * allocation state and its failure injection around each loader call, and the observations the
 * allocation-failure oracle compares. Internal to fuzz/world/.
 */
#ifndef VKL_FUZZ_APP_INTERNAL_H
#define VKL_FUZZ_APP_INTERNAL_H

#include <stdbool.h>
#include <vulkan/vulkan.h>

#include "fuzz/world/world.h"

#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) world_violation("api", __VA_ARGS__);                                                              \
    } while (0)

/* ---- harness.c: allocation failures (malloc seam, the application's allocation callbacks) */
struct mf_state {
    const struct world *w; /* the injecting run's world, or NULL: no injection */
    unsigned call;         /* enum w_call of the armed call */
    unsigned count;        /* allocations since the call began */
    bool hit;              /* an allocation failed during the armed call */
    bool alloc_failed_before;
    unsigned total_hits; /* this run */
};
extern struct mf_state g_mf;
struct alloc_state {
    long live;
    unsigned calls;
    unsigned fail_at; /* 0 never */
    bool failed;
};
extern struct alloc_state g_alloc;
extern const VkAllocationCallbacks k_callbacks;

/* Around each of the application's loader calls: the malloc ordinals count from here. */
void mf_begin(unsigned call);
/* Did an allocation fail in the call just made (malloc, or the application's pAllocator)? */
bool mf_end(void);

/* ---- harness.c: observations, what the application saw per step */
enum { O_EIEP, O_EIV, O_EILP, O_CREATE, O_EPD, O_GROUPS, O_EDEP, O_CREATE_DEVICE, O_SURFACE, O_COUNT };
struct obs_slot {
    bool ran, injected;
    VkResult r;
    char what[768];
};
struct obs {
    struct obs_slot s[O_COUNT];
};
extern struct obs *g_obs; /* the running application's, or NULL */
void obs_set(int o, VkResult r, bool injected);
void obs_add(int o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- app.c */
extern bool g_layers_active; /* a mock layer ran in this run (oracle_layer_called) */
/* `inject`: this run injects the world's allocation failures (pAllocator and malloc); the others
 * of a comparison run none. `o` receives what the application saw (may be NULL). */
void run_app(const struct world *w, bool inject, struct obs *o);

#endif
