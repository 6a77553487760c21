/*
 * What loader_diff_fuzzer's sources share (diff.c, diff_app.c, diff_compare.c): what a child
 * observes (struct d_obs, in the shared mapping), the loaders, the explainers' table and the
 * functions one file calls in another. Internal to fuzz/world/.
 */
#ifndef VKL_FUZZ_DIFF_INTERNAL_H
#define VKL_FUZZ_DIFF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "fuzz/world/world.h"

/* ------------------------------------------------------------------------------------------ */
/* Observations                                                                                */

#define D_MAX_NAMES 48
#define D_MAX_PD 8
#define D_MAX_GROUPS 8
#define D_MAX_CHAIN 16
#define D_NO_FUNCTION 1000 /* "vkGetInstanceProcAddr answered NULL" in a result field */
#define D_NOT_RUN 1001

enum { SIDE_OURS, SIDE_KHR, SIDES };
extern const char *const k_side_name[SIDES];

/* Stages a child completed (a crash leaves the earlier ones valid). */
enum { ST_START, ST_PRE, ST_CREATE, ST_PHYS, ST_DEVICE, ST_DONE };

struct d_list {
    int32_t result;                                     /* the count query's */
    int32_t result2;                                    /* the array call's */
    uint32_t count;                                     /* entries the array call wrote */
    char name[D_MAX_NAMES][VK_MAX_EXTENSION_NAME_SIZE]; /* sorted */
};

struct d_pd {
    uint32_t vendor, device, api;
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
};

struct d_obs {
    uint32_t stage;
    int status; /* parent: 0 clean exit, 1000+signal, exit code otherwise */
    struct d_list eiep, eiep_layer, eilp;
    int32_t eiv;
    int32_t create;
    int32_t epd, epd2;
    uint32_t npd;
    struct d_pd pd[D_MAX_PD];
    int32_t groups;
    uint32_t ngroups;
    uint8_t group_size[D_MAX_GROUPS];
    int8_t group_member[D_MAX_GROUPS][4]; /* index into pd[], -1 unknown */
    bool device_stage;
    struct d_list edep;
    int32_t create_device;
    /* parent, from the records */
    uint8_t drv[W_MAX_DRIVERS]; /* DRV_* bits */
    uint32_t nchain_inst, nchain_dev;
    char chain_inst[D_MAX_CHAIN][64];
    char chain_dev[D_MAX_CHAIN][64];
};
enum { DRV_CI = 1, DRV_CI_OK = 2, DRV_CD = 4, DRV_CD_OK = 8 };

struct d_shared {
    struct d_obs obs[SIDES];
    size_t cov_size;
    uint8_t cov[]; /* our loader's coverage counters, from the child */
};

/* What an explainer may consult beyond the world. */
struct d_ctx {
    bool elevated;                  /* the input asked for an elevated world (run unelevated, see below) */
    bool alloc_fail;                /* the input asked for an allocation failure (not injected here) */
    const struct d_obs *ours, *khr; /* what each side observed */
};

void *__real_dlopen(const char *file, int mode); /* diff_stubs.c: the C library's dlopen */

/* ---- diff.c */
extern struct d_shared *g_sh;
extern char g_loader[SIDES][W_PATH];
extern uint8_t *g_cntrs; /* our loader's __sancov_cntrs in this process (NULL: not instrumented) */
extern bool g_verbose;
extern unsigned g_timeout_s;
extern char g_deviations_path[W_PATH];
bool rule_listed(const char *rule);
char *slurp(const char *path, size_t *len);

/* ---- diff_app.c */
void run_child(const struct world *w, int side);

/* ---- diff_compare.c: the explainers */
/* What an application observes, in the order the run produces it. */
enum {
    O_STATUS = 1u << 0,     /* how the child ended */
    O_PRE_EXT = 1u << 1,    /* vkEnumerateInstanceExtensionProperties(NULL) */
    O_LAYER_EXT = 1u << 2,  /* vkEnumerateInstanceExtensionProperties(layer) */
    O_PRE_LAYERS = 1u << 3, /* vkEnumerateInstanceLayerProperties */
    O_EIV = 1u << 4,        /* vkEnumerateInstanceVersion's result */
    O_CREATE = 1u << 5,     /* vkCreateInstance's result, and everything after it */
    O_PHYS = 1u << 6,       /* the physical devices, their order, groups, and everything after */
    O_DEVICE = 1u << 7,     /* device extensions, vkCreateDevice */
    O_DRIVERS = 1u << 8,    /* which drivers received vkCreateInstance / vkCreateDevice */
    O_CHAIN = 1u << 9,      /* which layers were chained, in which order */
    O_GROUPS = 1u << 10,    /* vkEnumeratePhysicalDeviceGroups */
};
#define O_ALL 0xffffffffu

typedef bool (*explain_fn)(const struct world *w, const struct d_ctx *c);

struct explainer {
    const char *name;
    const char *rule; /* active only while khronos.tsv lists this rule (NULL: always) */
    uint32_t masks;   /* observables whose difference it explains */
    explain_fn applies;
    const char *what;
};

extern const struct explainer k_explainers[];
extern const size_t k_n_explainers;
extern bool g_active[]; /* per explainer: its rule is listed in khronos.tsv (or it has none) */

/* ---- diff_compare.c: the comparison */
extern const struct world *g_w;
extern struct d_ctx g_ctx;
void print_obs(int side);
void print_log_tail(int side);
void finding(const char *what, uint32_t obs) __attribute__((noreturn));
void compare(const struct world *w);

#endif
