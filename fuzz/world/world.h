/*
 * The loader_world_fuzzer's world: what one input decodes into (fuzz/FRAMING.md), how it is laid
 * out on disk, and the policy oracle that checks the mocks' call records.
 *
 * Files (all under one private directory R made with mkdtemp under $TMPDIR at start-up, removed
 * at exit):
 *   R/lib/libvkl_fuzz_drv<s>.so          copy of the mock variant driver slot s uses (kept between
 *                                        inputs; replaced when the variant changes)
 *   R/lib/libvkl_fuzz_drv<s>.so.scenario the slot's generated mock scenario (rewritten per input)
 *   R/lib/libvkl_fuzz_drv<s>.so.calls    the mock's call records (deleted before each input)
 *   R/lib/libvkl_fuzz_lay<l>.so[.scenario|.calls]  the same for mock layer slot l
 *   R/w/...                              the world: manifests, HOME, XDG directories (created for
 *                                        each input and removed after it)
 * Paths are the same for every input on purpose: the loader caches drivers by manifest path and
 * stat, so a bounded set of paths keeps the cache bounded (see world_cleanup()).
 */
#ifndef VKL_FUZZ_WORLD_H
#define VKL_FUZZ_WORLD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "fuzz/fuzz_input.h"
#include "fuzz/world/mock_variants.h" /* generated (//fuzz:mock_variants_h, fuzz/build.sh) */

#define W_MAX_DRIVERS 12  /* capacity: 6 decoded slots + up to 6 clones (FRAMING.md "widen") */
#define W_WORLD_DRIVERS 6 /* the driver entries of the world framing */
#define W_MAX_PHYSDEVS 4
#define W_MAX_INJECT 4
#define W_MAX_APP_EXTS 8
#define W_MAX_APP_LAYERS 8 /* capacity; the world framing names at most W_WORLD_APP_LAYERS */
#define W_WORLD_APP_LAYERS 3
#define W_MAX_DEV_EXTS 4
#define W_LOCATIONS 8
#define W_PATH 1024
#define W_MAX_LAYERS 8 /* capacity (layer_chain_fuzzer); loader_world_fuzzer decodes at most 4 */
#define W_WORLD_LAYERS 4
#define W_LAYER_LOCATIONS 6
#define W_LAYER_NAMES 8 /* VK_LAYER_FUZZ_a..h; the world framing uses the first 4 */
#define W_WORLD_LAYER_NAMES 4
#define W_LAYER_EXTRA_ENV (1 + 2 * W_MAX_LAYERS) /* VK_ADD_IMPLICIT_LAYER_PATH, per-slot switches */
#define W_MAX_MFAIL 4                            /* malloc failure entries (FRAMING.md "mfail") */
#define W_MAX_EXTRA_METAS 32                     /* library-less meta layers VK_LAYER_FUZZ_m00.. (FRAMING.md "widen") */

/* The application's loader calls, as the malloc failure injection names them (FRAMING.md "mfail"). */
enum w_call {
    WC_EIEP,             /* vkEnumerateInstanceExtensionProperties */
    WC_EIV,              /* vkEnumerateInstanceVersion */
    WC_EILP,             /* vkEnumerateInstanceLayerProperties */
    WC_CREATE_INSTANCE,  /* vkCreateInstance */
    WC_EPD,              /* vkEnumeratePhysicalDevices */
    WC_GROUPS,           /* vkEnumeratePhysicalDeviceGroups */
    WC_EDEP,             /* vkEnumerateDeviceExtensionProperties */
    WC_EDLP,             /* vkEnumerateDeviceLayerProperties */
    WC_CREATE_DEVICE,    /* vkCreateDevice */
    WC_DESTROY_DEVICE,   /* vkDestroyDevice */
    WC_DESTROY_INSTANCE, /* vkDestroyInstance */
    WC_MESSENGER,        /* vkCreate/DestroyDebugUtilsMessengerEXT */
    WC_GPA,              /* vkGetInstanceProcAddr / vkGetDeviceProcAddr */
    WC_SURFACE,          /* vkCreateXcbSurfaceKHR, vkGetPhysicalDeviceSurfaceSupportKHR, vkDestroySurfaceKHR */
    WC_OTHER,            /* physical-device queries, queues, unknown functions */
    WC_COUNT,
    WC_ANY = WC_COUNT /* an mfail entry that applies to every call */
};

/* What a file of the world is instead of a regular file (FRAMING.md "widen"). */
enum w_file_kind {
    WF_REGULAR,  /* as generated */
    WF_FIFO,     /* a FIFO nobody writes to */
    WF_LOOP,     /* a symbolic link to itself (ELOOP) */
    WF_DIR,      /* an (empty) directory */
    WF_DEV_ZERO, /* a symbolic link to /dev/zero */
    WF_DANGLING, /* a symbolic link to a missing file */
    WF_LINK,     /* a symbolic link to the regular file (valid indirection) */
    WF_EMPTY,    /* an empty regular file */
    WF_KINDS
};

/* ---- tables (FRAMING.md) ---- */
extern const char *const w_location_dirs[W_LOCATIONS]; /* relative to R/w */
extern const char *const w_stems[8];
extern const char *const w_inst_ext_names[8];
extern const char *const w_dev_ext_names[4];
extern const char *const w_inject_cmds[10];
extern const int32_t w_inject_results[8];
extern const char *const w_misbehave_names[9];
#define W_ENV_VARS 18
extern const char *const w_env_names[W_ENV_VARS];
extern const char *const w_layer_location_dirs[W_LAYER_LOCATIONS]; /* + "/explicit" or "/implicit" */
extern const char *const w_layer_names[W_LAYER_NAMES];
extern const char *const w_layer_misbehave_names[8];
#define W_OVERRIDE_LAYER_NAME "VK_LAYER_LUNARG_override"

struct w_scenario {
    uint32_t if_min, if_max;
    bool has_negotiate_result, has_report_version;
    int32_t negotiate_result;
    uint32_t report_version;
    bool hide_eiv, record_lookups;
    uint32_t api_version;
    uint8_t inst_ext_mask;
    uint32_t pd_count;
    struct {
        uint32_t api_version;
        uint8_t ext_mask;
        uint32_t families;
    } pd[W_MAX_PHYSDEVS];
    bool groups;
    uint32_t inject_count;
    struct {
        uint8_t cmd;
        int32_t result;
    } inject[W_MAX_INJECT];
    uint16_t misbehave;
    uint32_t dev_funcs, pd_funcs;
};

struct w_driver {
    uint32_t variant;  /* index into the available variants */
    uint32_t location; /* 0..7, w_location_dirs */
    uint32_t libform;  /* 0 absolute, 1 relative, 2 bare name, 3 missing file */
    uint32_t stem;
    bool raw_manifest;
    char *manifest; /* manifest bytes as written (malloc'd) */
    size_t manifest_len;
    char manifest_abs[W_PATH]; /* absolute path of the manifest file */
    char manifest_env[W_PATH]; /* the path as the loader sees it (relative in chdir mode) */
    char lib_abs[W_PATH];      /* this slot's library copy */
    char lib_ref[W_PATH];      /* the library_path written into a generated manifest */
    struct w_scenario sc;
    /* widen (FRAMING.md): the manifest's and the library's file kind, a \u0000 escape */
    uint8_t manifest_kind, lib_kind; /* enum w_file_kind */
    uint8_t nul;                     /* 0 none, 1 in library_path, 2 in the "ICD" key, 3 in api_version */
    int clone_of;                    /* -1, or the decoded slot this clone copies */
};

/* One mock layer slot (FRAMING.md "layers"). */
struct w_layer {
    uint32_t variant;  /* index into the available mock layer variants */
    uint32_t location; /* 0..5, w_layer_location_dirs */
    uint32_t libform;  /* 0 absolute, 1 relative, 2 bare name, 3 missing file */
    bool implicit, meta, override_layer;
    bool has_enable_env, has_disable_env, set_enable, set_disable, odd_values;
    uint32_t fmt_version; /* index into the file_format_version table */
    bool layers_array, pre_instance, renames;
    uint32_t api_minor;
    uint32_t name;                 /* w_layer_names index (the override layer has its own name) */
    uint8_t components, blacklist; /* masks over w_layer_names */
    uint8_t misbehave;             /* bits over w_layer_misbehave_names */
    bool wrap_handles, pre_add_extension, pre_add_layer, pre_no_call_down;
    uint32_t negotiate_version; /* with misbehave bit 1 */
    char *manifest;
    size_t manifest_len;
    char manifest_abs[W_PATH];
    char lib_abs[W_PATH];
    char lib_ref[W_PATH];
    char enable_var[48], disable_var[48];
    /* widen (FRAMING.md) */
    uint8_t manifest_kind, lib_kind; /* enum w_file_kind */
    uint8_t nul;                     /* 0 none, 1 in library_path, 2 in the name, 3 in the "layer" key */
};
const char *w_layer_name(const struct w_layer *l);

enum w_env_mode { W_ENV_DEFAULT, W_ENV_UNSET, W_ENV_EMPTY, W_ENV_VALUE };

struct world {
    /* flags byte */
    bool elevated, chdir_root, use_allocator, dbg_utils_pnext, dbg_report_pnext, app_info, enum_groups, create_device;
    uint32_t ndrivers;
    struct w_driver d[W_MAX_DRIVERS];
    /* environment overrides (W_ENV_DEFAULT = the world's default for that variable) */
    enum w_env_mode env_mode[W_ENV_VARS];
    char *env_value[W_ENV_VARS];
    /* application */
    uint32_t api_version;
    VkInstanceCreateFlags inst_flags;
    uint32_t app_ext_count;
    char *app_ext[W_MAX_APP_EXTS];
    uint32_t app_layer_count;
    char *app_layer[W_MAX_APP_LAYERS];
    char *eiep_layer; /* pLayerName for vkEnumerateInstanceExtensionProperties, or NULL */
    bool eiep_short, pd_short, devext_with_layer, app_messenger, unknown_physdev_calls, unknown_device_calls;
    uint32_t pd_choice, queue_family, queue_count;
    uint32_t dev_ext_count;
    char *dev_ext[W_MAX_DEV_EXTS];
    uint32_t alloc_fail_at; /* 0 = never */
    uint32_t msg_severity, msg_types;
    char *lookup_name; /* looked up with vkGetInstanceProcAddr / vkGetDeviceProcAddr */
    /* layers (appended after the application: inputs without them decode to none) */
    uint32_t nlayers;
    struct w_layer l[W_MAX_LAYERS];
    /* layer_chain_fuzzer: every layer slot appends its records to one file, R/lib/layer_chain.calls,
     * so the oracle sees the global call order; records are attributed to the first slot with the
     * record's layer name (the chain decoder gives same-name slots the same behaviour). */
    bool chain_log;
    /* malloc/calloc/realloc/strdup/strndup failures of the loader (FRAMING.md "mfail"): entry i
     * fails the nth (1-based) allocation, counted from the start of each application call of kind
     * `call` (enum w_call; WC_ANY: every call), and with `from_on` every later one of that call too. */
    uint32_t mfail_count;
    struct {
        uint8_t call;
        uint16_t nth;
        bool from_on;
    } mfail[W_MAX_MFAIL];
    /* widen (FRAMING.md): clones of the decoded drivers, extra library-less meta layers */
    uint32_t ndecoded;  /* driver slots decoded from driver entries (the rest are clones) */
    uint32_t nmetas;    /* VK_LAYER_FUZZ_m00.. */
    uint8_t meta_shape; /* bits 0-1 chain/ladder/cycle/masks, bit 2 implicit, bits 3-5 location */
    uint8_t meta_leaf;  /* < 4: the last meta's extra component VK_LAYER_FUZZ_a..d, else none */
    uint8_t meta_masks[W_MAX_EXTRA_METAS];
    bool surface; /* create an xcb surface and query it on every physical device */
};
/* The name of extra meta layer k ("VK_LAYER_FUZZ_m00".."m31"). */
void world_meta_name(uint32_t k, char out[24]);
/* Would the loader be unable to use the manifest of driver slot s / layer slot l at all (a special
 * file, or a \u0000 escape)? Such a slot must never be called. */
bool world_driver_unusable(const struct w_driver *d);
bool world_layer_unusable(const struct w_layer *l);

/* ---- world.c (tables, start-up, cleanup), world_decode.c (decoding), world_build.c (building) ---- */
extern const char *g_world_fuzzer_name; /* for messages; set by world_fuzz_initialize */
/* Start-up: finds the mock variants (VKL_FUZZ_MOCK_DIR, runfiles, or next to the executable),
 * makes R. Returns false (after printing why) when the mocks cannot be found. */
bool world_init(const char *argv0);
const char *world_root(void); /* R */
void world_remove_root(void); /* rm -rf R if this process created it (also on a crash: the sanitizer death callback) */
const char *world_dir(void);  /* R/w */
size_t world_variant_count(void);
const char *world_variant_name(uint32_t v);
size_t world_layer_variant_count(void); /* 0 when the mock layers were not found */
const char *world_layer_variant_name(uint32_t v);
/* What an available variant is (mock_variants.h, generated from the variants.bzl tables): read its
 * features here, never from its name. */
const struct vkl_mock_icd_variant *world_variant(uint32_t v);
const struct vkl_mock_layer_variant *world_layer_variant(uint32_t v);
/* Decodes an input (never fails: missing bytes read as zero). */
void world_decode(const uint8_t *data, size_t size, struct world *w);
/* One layer entry of the framing (variant place kind fmt name comps misbehave sflags). `wide`
 * (layer_chain_fuzzer): name % W_LAYER_NAMES, an 8-bit component mask, and the misbehave byte
 * selects at most two switches (FRAMING.md). */
void world_decode_layer(struct fz_in *in, struct w_layer *l, bool wide);
/* The trailing malloc-failure field (FRAMING.md "mfail"), shared by the world and chain framings. */
void world_decode_mfail(struct fz_in *in, struct world *w);
/* The shared record file of a chain_log world. */
const char *world_chain_calls_path(void);
void world_free(struct world *w);
/* Writes the world (manifests, scenarios, library copies) and the environment. */
void world_build(struct world *w);
/* After the run: invalidates the loader's driver cache entries for this world's manifests,
 * unloads the mock copies, removes R/w, restores the working directory. */
void world_cleanup(struct world *w);
/* Between two application runs in one world: removes the call records and, with `reload`, gives
 * every manifest a new mtime (same bytes), so the loader's caches reload everything as for a fresh
 * world. */
void world_refresh(struct world *w, bool reload);

/* ---- oracle.c (oracle_check_chain: oracle_chain.c) ---- */
struct w_records; /* the parsed call records of every slot */
struct w_records *oracle_read(const struct world *w);
void oracle_free(struct w_records *r);
/* Number of records per slot (for checkpoints). */
size_t oracle_count(const struct w_records *r, uint32_t slot);
/* LDP_LOADER_1 on the records appended since `before`, given vkCreateInstance's result. */
void oracle_check_create(const struct world *w, const struct w_records *before, const struct w_records *after,
                         VkResult result, bool oom_possible);
/* Every per-slot invariant at the end of the run (after vkDestroyInstance). */
void oracle_check_final(const struct world *w, const struct w_records *r);
/* The interface version the driver in `slot` ran its last successful vkCreateInstance under, or -1. */
int oracle_slot_interface(const struct w_records *r, uint32_t slot);
/* Did any mock layer's vkCreateInstance run (records in `r`)? With `misbehave_bit` >= 0, only
 * layers whose scenario sets that misbehaviour count. */
bool oracle_layer_called(const struct world *w, const struct w_records *r, int misbehave_bit);
/* The layer invariants (LLP_LOADER_3/5/6/7) at the end of the run. */
void oracle_check_layers(const struct world *w, const struct w_records *r);
/* LDP_LOADER_13 / LLP_LOADER_13 and the dlopen log. */
void oracle_check_elevated(const struct world *w, const struct w_records *r);
/* layer_chain_fuzzer (chain_log worlds): LLP_LOADER_3 over the global record order, the chain
 * order (RULE_LYR_ORDER), filtered layers never called (RULE_LYR_FILTER_DISABLE), and every layer
 * of a well-behaved chain seeing vkCreate/DestroyInstance and vkCreate/DestroyDevice exactly once
 * each, in chain order. */
void oracle_check_chain(const struct world *w, const struct w_records *r);

/* ---- harness.c and app.c: the harness shared by the whole-loader targets ---- */
/* What the application (app.c) saw (for the oracles). */
struct world_app_result {
    VkResult create_instance;
    bool device_attempted;
    VkResult create_device;
    /* LDP_LOADER_10 (oracle_check_final): the physical devices the application listed (at most 8;
     * vendor 0x10000 + driver slot, device (slot << 8) | (index + 1), world_build.c) and, when it created
     * a surface, what vkGetPhysicalDeviceSurfaceSupportKHR returned for each */
    uint32_t npd;
    uint32_t pd_vendor[8], pd_device[8];
    bool surface_queried; /* the surface was created and every listed device queried */
    VkResult surface_result[8];
    bool surface_injected[8]; /* an allocation failure was injected during that query */
};
extern struct world_app_result g_world_app;
/* LLVMFuzzerInitialize of a whole-loader target named `fuzzer` (messages carry the name). */
int world_fuzz_initialize(int *argc, char ***argv, const char *fuzzer);
/* One input: decode, build the world, run the application, the common oracles, then `extra` (may
 * be NULL) on the final records, cleanup. */
typedef void (*world_decode_fn)(const uint8_t *data, size_t size, struct world *w);
typedef void (*world_check_fn)(const struct world *w, const struct w_records *r);
int world_fuzz_one(const uint8_t *data, size_t size, world_decode_fn decode, world_check_fn extra);

/* ---- harness.c: the dlopen seam ---- */
/* Paths the loader tried to dlopen during this input that lie in R (or bare names mapped there). */
extern unsigned g_world_dlopen_attempts;
extern unsigned g_world_dlopen_blocked;
extern char g_world_dlopen_last[W_PATH];
/* The C library's dlopen behind the -Wl,--wrap=dlopen seam (diff_stubs.c defines it for
 * loader_diff_fuzzer; elsewhere the linker provides it). */
void *__real_dlopen(const char *file, int mode);

/* Aborts with a policy-violation message (printed with the world summary). */
__attribute__((noreturn, format(printf, 2, 3))) void world_violation(const char *policy, const char *fmt, ...);

#endif /* VKL_FUZZ_WORLD_H */
