/*
 * loader_diff_fuzzer's comparison: the explainers (the deviations of
 * conformance/deviations/khronos.tsv as world predicates), and the comparison of what the two
 * loaders' children observed, where a difference no active explainer covers is a finding.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include "fuzz/world/diff_internal.h"
#include "fuzz/world/world.h"

/* ------------------------------------------------------------------------------------------ */
/* Explainers: the deviations of conformance/deviations/khronos.tsv, as world predicates        */

static bool env_set(const char *name) {
    const char *v = getenv(name);
    return v != NULL && *v;
}

static bool any_driver(const struct world *w, bool (*p)(const struct w_driver *d)) {
    for (uint32_t s = 0; s < w->ndrivers; s++)
        if (p(&w->d[s])) return true;
    return false;
}
static bool any_layer(const struct world *w, bool (*p)(const struct w_layer *l)) {
    for (uint32_t i = 0; i < w->nlayers; i++)
        if (p(&w->l[i])) return true;
    return false;
}

/* A manifest the Khronos loader may fail to parse as a whole (raw bytes: anything). */
static bool d_raw(const struct w_driver *d) { return d->raw_manifest; }
static bool x_raw_manifest(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_raw);
}
static bool d_v7(const struct w_driver *d) { return world_variant(d->variant)->max_interface == 7; }
static bool x_v7(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_v7);
}
static bool d_epd_fails(const struct w_driver *d) {
    if (d->sc.misbehave & (1u << 8)) return true;
    for (uint32_t i = 0; i < d->sc.inject_count; i++)
        if (d->sc.inject[i].cmd == 4 || d->sc.inject[i].cmd == 5) return true;
    return false;
}
static bool x_epd_fails(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_epd_fails);
}
static bool x_api_above_1_0(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return w->app_info && VK_API_VERSION_MINOR(w->api_version) > 0;
}
static bool d_no_magic(const struct w_driver *d) { return d->sc.misbehave & (1u << 1); }
static bool x_no_magic(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_no_magic);
}
static bool d_negotiation_odd(const struct w_driver *d) {
    for (uint32_t i = 0; i < d->sc.inject_count; i++) /* injected into vk_icdNegotiateLoaderICDInterfaceVersion */
        if (d->sc.inject[i].cmd == 0 && d->sc.inject[i].result != VK_SUCCESS) return true;
    return (d->sc.has_negotiate_result && d->sc.negotiate_result != VK_SUCCESS) ||
           (d->sc.has_report_version && d->sc.report_version > 7);
}
static bool x_negotiation_odd(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_negotiation_odd);
}
static bool d_incompatible_above_1_0(const struct w_driver *d) { return d->sc.misbehave & (1u << 3); }
static bool x_incompatible_above_1_0(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_incompatible_above_1_0);
}
static bool l_negotiation_odd(const struct w_layer *l) { return l->misbehave & 3u; }
static bool x_layer_negotiation(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_layer(w, l_negotiation_odd);
}
static bool x_elevated(const struct world *w, const struct d_ctx *c) {
    (void)w;
    return c->elevated;
}
static bool l_disable_empty(const struct w_layer *l) { return l->implicit && l->set_disable && l->odd_values; }
static bool x_disable_empty(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_layer(w, l_disable_empty);
}
static bool l_override(const struct w_layer *l) { return l->override_layer; }
static bool x_override(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_layer(w, l_override);
}
static bool l_clobber_instance(const struct w_layer *l) { return l->misbehave & (1u << 3); }
static bool x_clobber_instance(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_layer(w, l_clobber_instance);
}
static bool l_clobber_device(const struct w_layer *l) { return l->misbehave & (1u << 4); }
static bool x_clobber_device(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_layer(w, l_clobber_device);
}
static bool l_no_call_down(const struct w_layer *l) { return l->misbehave & (1u << 5); }
static bool x_no_call_down(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_layer(w, l_no_call_down);
}
static bool x_implicit_layer_path(const struct world *w, const struct d_ctx *c) {
    (void)w, (void)c;
    /* even empty: ours then searches no implicit directory at all */
    return getenv("VK_IMPLICIT_LAYER_PATH") != NULL || getenv("VK_ADD_IMPLICIT_LAYER_PATH") != NULL;
}
static bool x_enable_with_instance_layers(const struct world *w, const struct d_ctx *c) {
    (void)w, (void)c;
    return env_set("VK_LOADER_LAYERS_ENABLE");
}
static bool x_allow(const struct world *w, const struct d_ctx *c) {
    (void)w, (void)c;
    return env_set("VK_LOADER_LAYERS_ALLOW") && env_set("VK_LOADER_LAYERS_DISABLE");
}
static bool x_device_id_filter(const struct world *w, const struct d_ctx *c) {
    (void)w, (void)c;
    return env_set("VK_LOADER_DEVICE_ID_FILTER");
}
static bool l_implicit(const struct w_layer *l) { return l->implicit; }
static bool x_instance_layers_implicit(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return env_set("VK_INSTANCE_LAYERS") && any_layer(w, l_implicit);
}
static bool l_pre_instance(const struct w_layer *l) { return l->implicit && l->pre_instance; }
static bool x_pre_instance(const struct world *w, const struct d_ctx *c) {
    (void)c;
    unsigned n = 0;
    for (uint32_t i = 0; i < w->nlayers; i++) n += l_pre_instance(&w->l[i]);
    return n >= 2;
}
static bool x_direct_driver(const struct world *w, const struct d_ctx *c) {
    (void)c;
    for (uint32_t i = 0; i < w->app_ext_count; i++)
        if (w->app_ext[i] && strcmp(w->app_ext[i], "VK_LUNARG_direct_driver_loading") == 0) return true;
    return false;
}

/* A version field of a generated manifest: the number of dot-separated numbers of its string value,
 * or -1 absent, -2 not a string, -3 a string that is not only numbers and dots. */
static int version_parts(const char *manifest, const char *key, unsigned parts[5]) {
    if (manifest == NULL) return -1;
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\"", key);
    const char *p = strstr(manifest, pat);
    if (p == NULL) return -1;
    p += strlen(pat);
    while (*p == ' ' || *p == ':') p++;
    if (*p++ != '"') return -2;
    int n = 0;
    for (;;) {
        if (*p < '0' || *p > '9' || n == 5) return -3;
        unsigned v = 0;
        while (*p >= '0' && *p <= '9' && v < 100000u) v = v * 10u + (unsigned)(*p++ - '0');
        parts[n++] = v;
        if (*p == '"') return n;
        if (*p++ != '.') return -3;
    }
}
static int manifest_version_parts(const struct w_driver *d, const char *key, unsigned parts[5]) {
    return version_parts(d->manifest, key, parts);
}
static bool d_api_major_not_1(const struct w_driver *d) {
    unsigned v[5];
    int n = manifest_version_parts(d, "api_version", v);
    return (n == 3 && v[0] != 1) || (n == 4 && v[1] != 1);
}
static bool x_api_major_not_1(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_api_major_not_1);
}
/* "1.1", "1.0", "1.0.1 ": not "major.minor.patch" ([Drv], LDP_DRIVER_4): the Khronos loader reads them
 * leniently, ours skips the manifest. */
static bool d_api_not_3_parts(const struct w_driver *d) {
    unsigned v[5];
    int n = manifest_version_parts(d, "api_version", v);
    int f = manifest_version_parts(d, "file_format_version", v);
    return (n != -1 && n != -2 && n != 3 && n != 4) || (f != -1 && f != -2 && f != 3);
}
/* a file_format_version that is not a string (row FileFormatVersionNotString) */
static bool d_ffv_not_string(const struct w_driver *d) {
    unsigned v[5];
    return !d->raw_manifest && manifest_version_parts(d, "file_format_version", v) == -2;
}
static bool x_ffv_not_string(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_ffv_not_string);
}
static bool x_api_not_3_parts(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_api_not_3_parts);
}
static bool d_icd_array(const struct w_driver *d) {
    return !d->raw_manifest && d->manifest != NULL && strstr(d->manifest, "\"ICD\": [") != NULL;
}
static bool x_icd_array(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_icd_array);
}
/* Not a deviation: a mock that breaks LDP_DRIVER_2 on purpose (aborts in any call after it reported
 * no devices) makes the outcome depend on which calls a loader chooses to make; both are right. */
static bool d_crash_zero(const struct w_driver *d) { return (d->sc.misbehave & 1u) != 0; }
static bool x_crash_zero(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_crash_zero);
}

/* A string the Vulkan specification requires to be valid UTF-8 that holds control characters or
 * non-ASCII bytes: invalid usage (VUID-...-parameter), so any answer is allowed. The Khronos loader
 * validates such strings (VK_ERROR_EXTENSION_NOT_PRESENT / LAYER_NOT_PRESENT), ours looks them up. */
static bool odd_string(const char *s) {
    if (s == NULL) return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p >= 0x7f) return true;
    return false;
}
static bool x_odd_layer_name(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return odd_string(w->eiep_layer);
}
static bool x_odd_app_names(const struct world *w, const struct d_ctx *c) {
    (void)c;
    for (uint32_t i = 0; i < w->app_layer_count; i++)
        if (odd_string(w->app_layer[i])) return true;
    for (uint32_t i = 0; i < w->app_ext_count; i++)
        if (odd_string(w->app_ext[i])) return true;
    return false;
}
static bool x_odd_dev_names(const struct world *w, const struct d_ctx *c) {
    (void)c;
    for (uint32_t i = 0; i < w->dev_ext_count; i++)
        if (odd_string(w->dev_ext[i])) return true;
    return false;
}
/* Not a deviation (a reading): an extension nobody provides and no usable driver. The
 * specification lists both VK_ERROR_EXTENSION_NOT_PRESENT and VK_ERROR_INCOMPATIBLE_DRIVER and
 * orders neither; ours checks the extensions first, Khronos 1.3.239 the drivers. */
static bool x_ext_vs_driver(const struct world *w, const struct d_ctx *c) {
    (void)w;
    if (c->ours->create != VK_ERROR_EXTENSION_NOT_PRESENT || c->khr->create != VK_ERROR_INCOMPATIBLE_DRIVER)
        return false;
    for (uint32_t s = 0; s < W_MAX_DRIVERS; s++)
        if (c->khr->drv[s] & DRV_CI_OK) return false;
    return true;
}
static bool d_eiep_fails(const struct w_driver *d) {
    for (uint32_t i = 0; i < d->sc.inject_count; i++)
        if (d->sc.inject[i].cmd == 2 && d->sc.inject[i].result != VK_SUCCESS) return true;
    return false;
}
static bool x_eiep_fails(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_eiep_fails);
}
static bool x_same_name_layers(const struct world *w, const struct d_ctx *c) {
    (void)c;
    for (uint32_t i = 0; i < w->nlayers; i++)
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(w_layer_name(&w->l[i]), w_layer_name(&w->l[j])) == 0) return true;
    return false;
}
/* Khronos 1.3.239 sorts only when the instance can use vkGetPhysicalDeviceProperties2 (application
 * apiVersion 1.1+, or VK_KHR_get_physical_device_properties2 enabled); ours always sorts. */
static bool x_sort_without_gpdp2(const struct world *w, const struct d_ctx *c) {
    (void)c;
    if (w->app_info && VK_API_VERSION_MINOR(w->api_version) >= 1) return false;
    for (uint32_t i = 0; i < w->app_ext_count; i++)
        if (w->app_ext[i] && strcmp(w->app_ext[i], "VK_KHR_get_physical_device_properties2") == 0) return false;
    return true;
}
/* Khronos 1.3.239 dies with SIGSEGV in linux_read_sorted_physical_devices when it sorts (the
 * instance can use vkGetPhysicalDeviceProperties2) and a driver it treats as Vulkan 1.0 lacks
 * VK_KHR_get_physical_device_properties2 (seen 6 times on the GPU machine, 2026-11-26; no
 * conformance test yet). Predicate: that symptom, and a driver that may be a 1.0 one to Khronos (no
 * extension, no or failing vkEnumerateInstanceVersion, a v7 driver it uses as a legacy one). */
static bool d_maybe_1_0_or_no_gpdp2(const struct w_driver *d) {
    if ((d->sc.inst_ext_mask & 1u) == 0 || d->sc.hide_eiv || d_v7(d) || (d->sc.misbehave & (1u << 2))) return true;
    for (uint32_t i = 0; i < d->sc.pd_count && i < W_MAX_PHYSDEVS; i++) /* a Vulkan 1.0 device */
        if (VK_API_VERSION_MINOR(d->sc.pd[i].api_version) == 0) return true;
    for (uint32_t i = 0; i < d->sc.inject_count; i++) /* vkEnumerateInstanceVersion */
        if (d->sc.inject[i].cmd == 3) return true;
    return false;
}
static bool x_sort_crash(const struct world *w, const struct d_ctx *c) {
    /* the symptom: the Khronos child died with SIGSEGV between vkCreateInstance and the end of the
     * physical-device enumeration (its sort runs there) */
    return c->khr->status == 1000 + SIGSEGV && c->khr->stage == ST_CREATE && c->ours->status == 0 &&
           any_driver(w, d_maybe_1_0_or_no_gpdp2);
}

/* FRAMING.md "widen": a special file as a manifest or library, or a \u0000 escape in a manifest
 * string: the loader cannot use that manifest (world_*_unusable). */
static bool x_unusable_slot(const struct world *w, const struct d_ctx *c) {
    (void)c;
    for (uint32_t s = 0; s < w->ndrivers; s++)
        if (world_driver_unusable(&w->d[s]) || w->d[s].lib_kind != WF_REGULAR) return true;
    for (uint32_t i = 0; i < w->nlayers; i++)
        if (world_layer_unusable(&w->l[i]) || w->l[i].lib_kind != WF_REGULAR) return true;
    return false;
}
/* extra meta layers (FRAMING.md "widen"): Khronos 1.3.239 validates them by walking every path and
 * puts no bound on nesting (rows MetaScale.*) */
static bool x_extra_metas(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return w->nmetas > 0;
}

/* "is_portability_driver": "true" (a string): ours refuses the manifest ([Drv] a boolean,
 * LDP_DRIVER_4), Khronos 1.3.239 takes anything but `true` as false and loads the driver. */
static bool d_portability_not_bool(const struct w_driver *d) {
    return !d->raw_manifest && d->manifest != NULL && strstr(d->manifest, "\"is_portability_driver\": \"") != NULL;
}
static bool x_portability_not_bool(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_driver(w, d_portability_not_bool);
}
/* A layer manifest whose file_format_version is not "major.minor.patch" (the world's "1.0"): ours
 * skips the manifest, Khronos 1.3.239 reads it (row LayerFixture.ManifestTwoPartFormatVersionIsSkipped). */
static bool l_format_not_3_parts(const struct w_layer *l) {
    unsigned v[5];
    int n = version_parts(l->manifest, "file_format_version", v);
    return n != -1 && n != 3;
}
static bool x_layer_format_not_3_parts(const struct world *w, const struct d_ctx *c) {
    (void)c;
    return any_layer(w, l_format_not_3_parts);
}
/* Khronos 1.3.239 and a driver whose vkEnumeratePhysicalDeviceGroups fails: it returns that
 * driver's error to the application and loses the other drivers' groups (row
 * PhysicalDevices.DriverFailingGroupQueryDoesNotCrashOrHideDevices; driver_epd_failure masks
 * that), and in fuller worlds its vkEnumeratePhysicalDevices dies with SIGSEGV (the sorted-device
 * path reads the group array the failed call did not fill; GPU machine, 2026-11-26). Result-aware:
 * that symptom (the Khronos child killed by SIGSEGV after vkCreateInstance, in the physical-device
 * or group enumeration; ours ended normally) in a world with such a driver. */
static bool d_groups_fail(const struct w_driver *d) {
    for (uint32_t i = 0; i < d->sc.inject_count; i++)
        if (d->sc.inject[i].cmd == 5 && d->sc.inject[i].result != VK_SUCCESS) return true;
    return false;
}
static bool x_groups_fail_crash(const struct world *w, const struct d_ctx *c) {
    return c->khr->status == 1000 + SIGSEGV && (c->khr->stage == ST_CREATE || c->khr->stage == ST_PHYS) &&
           c->ours->status == 0 && any_driver(w, d_groups_fail);
}
/* Not a deviation (a reading, conformance/policies/readings.md "RULE_INST_UNKNOWN_EXT"): both
 * refused an application extension with VK_ERROR_EXTENSION_NOT_PRESENT and no driver received
 * vkCreateInstance; ours checks the extensions in its terminator, after the layers' vkCreateInstance
 * ran, Khronos 1.3.239 before building the chain. Widens no_driver_layer_chain to worlds with drivers. */
static bool x_ext_refused_after_layers(const struct world *w, const struct d_ctx *c) {
    (void)w;
    if (c->ours->create != VK_ERROR_EXTENSION_NOT_PRESENT || c->khr->create != VK_ERROR_EXTENSION_NOT_PRESENT)
        return false;
    for (uint32_t s = 0; s < W_MAX_DRIVERS; s++)
        if ((c->ours->drv[s] | c->khr->drv[s]) & DRV_CI) return false;
    return true;
}
/* Not a deviation (a reading, conformance/policies/readings.md "LLP_LOADER_3"): a name repeated in
 * VK_INSTANCE_LAYERS; ours chains the layer where the name first appears, Khronos 1.3.239 where it
 * last appears. */
static bool x_instance_layers_repeated(const struct world *w, const struct d_ctx *c) {
    (void)c;
    const char *v = getenv("VK_INSTANCE_LAYERS");
    if (v == NULL) return false;
    for (const char *p = v; *p;) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        /* a name the application enables too is named twice as well (Khronos 1.3.239 chains it at
         * the application's place, after the variable's; Khronos 1.4.360 and ours at the first) */
        for (uint32_t k = 0; len > 0 && k < w->app_layer_count; k++)
            if (w->app_layer[k] != NULL && strlen(w->app_layer[k]) == len && memcmp(p, w->app_layer[k], len) == 0)
                return true;
        for (const char *q = e ? e + 1 : NULL; len > 0 && q != NULL && *q;) {
            const char *f = strchr(q, ':');
            size_t ql = f ? (size_t)(f - q) : strlen(q);
            if (ql == len && memcmp(p, q, len) == 0) return true;
            q = f ? f + 1 : NULL;
        }
        if (e == NULL) break;
        p = e + 1;
    }
    return false;
}
/* Not a deviation (a reading): no driver got vkCreateInstance and both answered
 * VK_ERROR_INCOMPATIBLE_DRIVER; whether the layers' vkCreateInstance ran first is not specified
 * (ours builds the chain and fails in its terminator, Khronos 1.3.239 fails before the chain). */
static bool x_no_driver_chain(const struct world *w, const struct d_ctx *c) {
    (void)w;
    if (c->ours->create != VK_ERROR_INCOMPATIBLE_DRIVER || c->khr->create != VK_ERROR_INCOMPATIBLE_DRIVER) return false;
    for (uint32_t s = 0; s < W_MAX_DRIVERS; s++)
        if ((c->ours->drv[s] | c->khr->drv[s]) & DRV_CI) return false;
    return true;
}

const struct explainer k_explainers[] = {
    {"driver_group_query_fails_crash", "RULE_PHYSDEV_AGGREGATE", O_ALL, x_groups_fail_crash,
     "a driver whose vkEnumeratePhysicalDeviceGroups fails: Khronos 1.3.239 dies with SIGSEGV in "
     "vkEnumeratePhysicalDevices (fuller worlds) or returns the driver's error and loses the other drivers' groups"},
    {"layer_manifest_format_not_major_minor_patch", "RULE_LYR_MANIFEST_V1_0_0", O_ALL & ~O_STATUS,
     x_layer_format_not_3_parts,
     "a layer manifest whose file_format_version has two parts (\"1.0\"): ours skips the manifest, Khronos "
     "1.3.239 reads it and lists the layer"},
    {"sort_with_a_1_0_driver_without_properties2", "RULE_PHYSDEV_SORT", O_ALL, x_sort_crash,
     "Khronos 1.3.239 sorting the physical devices of a driver without VK_KHR_get_physical_device_properties2 "
     "(one it treats as Vulkan 1.0): SIGSEGV in linux_read_sorted_physical_devices"},
    {"manifest_portability_not_bool", "LDP_DRIVER_4", O_ALL & ~O_STATUS, x_portability_not_bool,
     "a driver manifest with \"is_portability_driver\": \"true\" (a string): ours skips the manifest, Khronos "
     "1.3.239 reads it as false and loads the driver"},
    {"extension_refused_after_layers", NULL, O_CHAIN, x_ext_refused_after_layers,
     "not a deviation (a reading): both loaders refused an application extension "
     "(VK_ERROR_EXTENSION_NOT_PRESENT) and no driver received vkCreateInstance; ours ran the layers' "
     "vkCreateInstance first (its terminator checks the extensions), Khronos 1.3.239 did not"},
    {"instance_layers_repeated_name", NULL, O_CHAIN, x_instance_layers_repeated,
     "not a deviation (a reading): a name repeated in VK_INSTANCE_LAYERS, or named there and by the "
     "application; ours (and Khronos 1.4.360) chain the layer at its first place, Khronos 1.3.239 at its last"},
    {"no_driver_layer_chain", NULL, O_CHAIN, x_no_driver_chain,
     "not a deviation (a reading): no driver received vkCreateInstance and both loaders answered "
     "VK_ERROR_INCOMPATIBLE_DRIVER; ours ran the layers' vkCreateInstance first, Khronos 1.3.239 did not"},
    {"special_file_or_nul_escape", "RULE_DRV_MANIFEST_MALFORMED", O_ALL, x_unusable_slot,
     "a manifest or library that is a special file (loop, directory, dangling link, empty file) or a manifest "
     "string with a \\u0000 escape (FRAMING.md \"widen\"): Khronos 1.3.239 reports a manifest it cannot parse as "
     "out of memory for the whole call, truncates at the escape (row Adversarial.InvalidUtf8AndNulBytesInStrings)"},
    {"extra_meta_layers", "LLP_LOADER_10", O_ALL, x_extra_metas,
     "library-less meta layers in chains, ladders or cycles: Khronos 1.3.239 validates meta layers differently "
     "(rows MetaScale.*)"},
    {"invalid_usage_layer_name", NULL, O_LAYER_EXT, x_odd_layer_name,
     "not a deviation: vkEnumerateInstanceExtensionProperties with a pLayerName holding control characters or "
     "non-ASCII bytes (invalid usage; Khronos 1.3.239 answers VK_ERROR_EXTENSION_NOT_PRESENT, ours "
     "VK_ERROR_LAYER_NOT_PRESENT)"},
    {"invalid_usage_app_names", NULL, O_ALL & ~O_STATUS & ~O_PRE_EXT & ~O_LAYER_EXT & ~O_PRE_LAYERS & ~O_EIV,
     x_odd_app_names, "not a deviation: layer or extension names in VkInstanceCreateInfo that are not valid strings"},
    {"invalid_usage_device_names", NULL, O_DEVICE | O_CHAIN | O_DRIVERS, x_odd_dev_names,
     "not a deviation: extension names in VkDeviceCreateInfo that are not valid strings"},
    {"unsupported_extension_and_no_driver", NULL, O_CREATE, x_ext_vs_driver,
     "not a deviation (a reading): an extension nobody provides and no usable driver: ours answers "
     "VK_ERROR_EXTENSION_NOT_PRESENT, Khronos 1.3.239 VK_ERROR_INCOMPATIBLE_DRIVER; the specification allows both"},
    {"driver_eiep_fails", "RULE_INST_EXT_AGGREGATE", O_ALL & ~O_STATUS, x_eiep_fails,
     "a driver whose vkEnumerateInstanceExtensionProperties fails: Khronos 1.3.239 fails the whole enumeration "
     "and vkCreateInstance (VK_ERROR_INCOMPATIBLE_DRIVER) instead of taking the driver as one without extensions"},
    {"same_name_layer_manifests", "LLP_LOADER_3", O_PRE_LAYERS, x_same_name_layers,
     "two layer manifests with one name: Khronos 1.3.239 lists the name twice in vkEnumerateInstanceLayerProperties"},
    {"sort_without_properties2", "RULE_PHYSDEV_SORT", O_PHYS | O_DEVICE | O_GROUPS | O_DRIVERS | O_CHAIN,
     x_sort_without_gpdp2,
     "an instance that cannot use vkGetPhysicalDeviceProperties2 (Vulkan 1.0, no VK_KHR_get_physical_device_"
     "properties2): Khronos 1.3.239 does not sort the physical devices, ours does"},
    {"driver_breaks_LDP_DRIVER_2", NULL, O_ALL, x_crash_zero,
     "not a deviation: a mock driver with crash_with_zero_devices aborts in whatever call a loader makes after "
     "it reported no devices (Khronos 1.3.239 calls its vkEnumeratePhysicalDeviceGroups, ours does not)"},
    {"manifest_api_major_not_1", "LDP_LOADER_4", O_ALL & ~O_STATUS, x_api_major_not_1,
     "a driver manifest api_version whose major is not 1 (0.0.0, 2.0.0): Khronos 1.3.239 loads the driver"},
    {"manifest_version_not_major_minor_patch", "LDP_DRIVER_4", O_ALL & ~O_STATUS, x_api_not_3_parts,
     "a driver manifest api_version or file_format_version that is not \"major.minor.patch\" (\"1.1\", "
     "\"1.0.1 \"): Khronos 1.3.239 reads it leniently and loads the driver; ours skips the manifest"},
    {"manifest_file_format_version_not_string", "RULE_DRV_MANIFEST_MALFORMED", O_ALL & ~O_STATUS, x_ffv_not_string,
     "a driver manifest whose file_format_version is a number: Khronos 1.3.239 only warns and loads the driver"},
    {"manifest_icd_array", "RULE_DRV_MANIFEST_MALFORMED", O_ALL, x_icd_array,
     "a driver manifest whose ICD is an array of objects: Khronos 1.3.239 dies with SIGSEGV"},
    {"raw_driver_manifest", "RULE_DRV_MANIFEST_MALFORMED", O_ALL, x_raw_manifest,
     "a raw driver manifest: Khronos 1.3.239 fails the whole call (VK_ERROR_OUT_OF_HOST_MEMORY) or crashes on one "
     "it cannot parse instead of skipping the file"},
    {"interface_7_driver", "RULE_DRV_IFACE_V7", O_ALL & ~O_STATUS, x_v7,
     "a v7 mock variant: Khronos 1.3.239 never negotiates through vk_icdGetInstanceProcAddr and uses such a driver as "
     "a legacy interface-1 driver"},
    {"driver_epd_failure", "RULE_PHYSDEV_AGGREGATE", O_PHYS | O_DEVICE | O_GROUPS | O_DRIVERS, x_epd_fails,
     "a driver whose vkEnumeratePhysicalDevices(Groups) fails: Khronos 1.3.239 fails the whole enumeration"},
    {"app_api_above_1_0", "LDP_LOADER_6", O_CREATE | O_PHYS | O_DEVICE | O_GROUPS | O_DRIVERS, x_api_above_1_0,
     "the application asks for Vulkan 1.1+: Khronos 1.3.239 never checks it against the drivers' versions"},
    {"driver_incompatible_above_1_0", "LDP_LOADER_6", O_CREATE | O_PHYS | O_DEVICE | O_GROUPS | O_DRIVERS,
     x_incompatible_above_1_0, "a driver refusing any API above 1.0 (same rows as app_api_above_1_0)"},
    {"driver_without_loader_magic", "RULE_DRV_DISPATCHABLE_OBJECT", O_ALL, x_no_magic,
     "a driver whose dispatchable objects lack ICD_LOADER_MAGIC: Khronos 1.3.239 does not check it"},
    {"driver_negotiation_odd", "LDP_LOADER_5", O_ALL, x_negotiation_odd,
     "a driver whose negotiation fails (forced, or a result injected into it) or answers above 7: Khronos 1.3.239 "
     "refuses only VK_ERROR_INCOMPATIBLE_DRIVER and still uses the others"},
    {"layer_negotiation_odd", "LLP_LOADER_5", O_ALL, x_layer_negotiation,
     "a layer whose negotiation fails or answers above the offer: Khronos 1.3.239 may still load it"},
    {"elevated_world", "LLP_LOADER_13", 0, x_elevated,
     "an elevated world: Khronos 1.3.239 reads secure_getenv's answer for a real set-uid process only, so both "
     "loaders run the world unelevated (nothing to explain; the flag is recorded)"},
    {"implicit_disable_empty", "LLP_LOADER_7", O_ALL & ~O_STATUS, x_disable_empty,
     "an implicit layer's disable_environment set to the empty string: Khronos 1.3.239 disables the layer"},
    {"override_layer", "LLP_LOADER_11", O_CHAIN | O_CREATE | O_PHYS | O_DEVICE | O_GROUPS | O_DRIVERS, x_override,
     "the override meta-layer: Khronos 1.3.239 keeps its components in discovery order"},
    {"layer_clobbers_instance", "LLP_LAYER_21", O_ALL, x_clobber_instance,
     "a layer that overwrites *pInstance: Khronos 1.3.239 does not check it (SIGSEGV or a bogus handle)"},
    {"layer_clobbers_device", "LLP_LAYER_22", O_ALL, x_clobber_device,
     "a layer that overwrites *pDevice: Khronos 1.3.239 dies in vkCreateDevice"},
    {"layer_no_call_down", "RULE_GIPA_SPEC", O_ALL, x_no_call_down,
     "a layer answering vkCreateInstance without calling down: Khronos 1.3.239 returns trampolines over empty "
     "dispatch slots"},
    {"implicit_layer_path", "RULE_LYR_ENV_IMPLICIT_LAYER_PATH", O_ALL & ~O_STATUS, x_implicit_layer_path,
     "VK_IMPLICIT_LAYER_PATH / VK_ADD_IMPLICIT_LAYER_PATH set: Khronos 1.3.239 predates both"},
    {"layers_enable_order", "RULE_LYR_ORDER", O_CHAIN, x_enable_with_instance_layers,
     "VK_LOADER_LAYERS_ENABLE: Khronos 1.3.239 chains its matches before the VK_INSTANCE_LAYERS ones"},
    {"layers_allow", "RULE_LYR_FILTER_ALLOW", O_ALL & ~O_STATUS, x_allow,
     "VK_LOADER_LAYERS_ALLOW with DISABLE: Khronos 1.3.239 does not exempt the allowed layers"},
    {"device_id_filter", "RULE_PHYSDEV_ID_FILTER", O_PHYS | O_DEVICE | O_GROUPS | O_DRIVERS, x_device_id_filter,
     "VK_LOADER_DEVICE_ID_FILTER: Khronos 1.3.239 predates it"},
    {"instance_layers_implicit", "RULE_LYR_ENV_INSTANCE_LAYERS_IMPLICIT", O_ALL & ~O_STATUS, x_instance_layers_implicit,
     "VK_INSTANCE_LAYERS with implicit layers in the world: Khronos 1.3.239 neither moves nor enables the implicit "
     "layers it names"},
    {"pre_instance_order", "RULE_LYR_PRE_INSTANCE", O_PRE_EXT | O_LAYER_EXT | O_PRE_LAYERS | O_EIV, x_pre_instance,
     "two implicit layers with pre-instance functions: Khronos 1.3.239 chains them in the reverse order"},
    {"direct_driver_loading", "RULE_DRV_DIRECT_LOADING", O_ALL & ~O_STATUS, x_direct_driver,
     "the application enables VK_LUNARG_direct_driver_loading, which Khronos 1.3.239 does not implement"},
};
#define N_EXPLAINERS (sizeof k_explainers / sizeof k_explainers[0])
const size_t k_n_explainers = N_EXPLAINERS;

/* Names only one loader lists by design, dropped from both sides' lists before comparing, with the
 * rule of the deviation row that documents each (active while the row is listed). */
static const struct {
    const char *name, *rule;
} k_loader_only_names[] = {
    {"VK_LUNARG_direct_driver_loading", "RULE_DRV_DIRECT_LOADING"},
};

bool g_active[N_EXPLAINERS];

/* ------------------------------------------------------------------------------------------ */
/* Comparison                                                                                  */

const struct world *g_w;
struct d_ctx g_ctx;

static void print_list(const char *what, const struct d_list *L) {
    fprintf(stderr, "    %s: result %d/%d, %u:", what, L->result, L->result2, L->count);
    for (uint32_t i = 0; i < L->count && i < D_MAX_NAMES; i++) fprintf(stderr, " %s", L->name[i]);
    fprintf(stderr, "\n");
}

static void print_status(int st) {
    if (st == 0)
        fprintf(stderr, "exited normally");
    else if (st >= 1000)
        fprintf(stderr, "killed by signal %d%s", st - 1000, st - 1000 == SIGALRM ? " (timeout)" : "");
    else
        fprintf(stderr, "exit status %d%s", st, st == 86 ? " (sanitizer report)" : "");
}

void print_obs(int side) {
    const struct d_obs *o = &g_sh->obs[side];
    fprintf(stderr, "  %s (%s): ", k_side_name[side], g_loader[side]);
    print_status(o->status);
    fprintf(stderr, ", stage %u\n", o->stage);
    print_list("instance extensions", &o->eiep);
    if (g_w->eiep_layer) print_list("extensions of the named layer", &o->eiep_layer);
    print_list("instance layers", &o->eilp);
    fprintf(stderr, "    vkEnumerateInstanceVersion %d, vkCreateInstance %d\n", o->eiv, o->create);
    fprintf(stderr, "    vkEnumeratePhysicalDevices %d/%d, %u devices:", o->epd, o->epd2, o->npd);
    for (uint32_t i = 0; i < o->npd && i < D_MAX_PD; i++)
        fprintf(stderr, " [%x:%x %s api %u.%u]", o->pd[i].vendor, o->pd[i].device, o->pd[i].name,
                VK_API_VERSION_MAJOR(o->pd[i].api), VK_API_VERSION_MINOR(o->pd[i].api));
    fprintf(stderr, "\n    groups %d, %u:", o->groups, o->ngroups);
    for (uint32_t i = 0; i < o->ngroups && i < D_MAX_GROUPS; i++)
        fprintf(stderr, " {%u: %d %d %d %d}", o->group_size[i], o->group_member[i][0], o->group_member[i][1],
                o->group_member[i][2], o->group_member[i][3]);
    fprintf(stderr, "\n");
    if (o->device_stage) {
        print_list("device extensions", &o->edep);
        fprintf(stderr, "    vkCreateDevice %d\n", o->create_device);
    }
    fprintf(stderr, "    drivers (CI, CI ok, CD, CD ok):");
    for (uint32_t s = 0; s < g_w->ndrivers; s++) fprintf(stderr, " slot%u=%x", s, o->drv[s]);
    fprintf(stderr, "\n    instance chain:");
    for (uint32_t i = 0; i < o->nchain_inst; i++) fprintf(stderr, " %s", o->chain_inst[i]);
    fprintf(stderr, "\n    device chain:");
    for (uint32_t i = 0; i < o->nchain_dev; i++) fprintf(stderr, " %s", o->chain_dev[i]);
    fprintf(stderr, "\n");
}

void print_log_tail(int side) {
    char p[W_PATH + 32];
    snprintf(p, sizeof p, "%s/diff_%s.log", world_root(), k_side_name[side]);
    size_t n;
    char *buf = slurp(p, &n);
    if (buf == NULL || n == 0) {
        free(buf);
        return;
    }
    const char *start = n > 3000 ? buf + n - 3000 : buf;
    fprintf(stderr, "  %s child's output (last %zu bytes):\n%s\n", k_side_name[side], strlen(start), start);
    free(buf);
}

static void print_world_summary(const struct world *w) {
    fprintf(stderr, "world: elevated(asked)=%d chdir=%d drivers=%u layers=%u api=0x%x app_info=%d\n", g_ctx.elevated,
            w->chdir_root, w->ndrivers, w->nlayers, w->api_version, w->app_info);
    for (uint32_t s = 0; s < w->ndrivers; s++) {
        const struct w_driver *d = &w->d[s];
        fprintf(stderr, "  driver %u: variant %s, location %u, libform %u, %s, if %u..%u, misbehave 0x%x, %u devices\n",
                s, world_variant_name(d->variant), d->location, d->libform, d->raw_manifest ? "raw" : "generated",
                d->sc.if_min, d->sc.if_max, d->sc.misbehave, d->sc.pd_count);
        for (uint32_t i = 0; i < d->sc.inject_count; i++)
            fprintf(stderr, "    inject: %s -> %d\n", w_inject_cmds[d->sc.inject[i].cmd % 10], d->sc.inject[i].result);
        fprintf(stderr, "    manifest %s: %.*s\n", d->manifest_abs,
                (int)(d->manifest_len > 300 ? 300 : d->manifest_len), d->manifest ? d->manifest : "");
        char p[W_PATH + 16];
        snprintf(p, sizeof p, "%s.scenario", d->lib_abs);
        size_t n;
        char *sc = slurp(p, &n);
        if (sc) fprintf(stderr, "    scenario: %.*s\n", (int)(n > 600 ? 600 : n), sc);
        free(sc);
    }
    for (uint32_t i = 0; i < w->nlayers; i++) {
        const struct w_layer *l = &w->l[i];
        fprintf(stderr, "  layer %u: %s, variant %s, %s%s%s, location %u, misbehave 0x%x\n    manifest: %.*s\n", i,
                w_layer_name(l), world_layer_variant_name(l->variant), l->implicit ? "implicit" : "explicit",
                l->meta ? " meta" : "", l->override_layer ? " override" : "", l->location, l->misbehave,
                (int)(l->manifest_len > 400 ? 400 : l->manifest_len), l->manifest ? l->manifest : "");
    }
    fprintf(stderr, "  application: %u layers:", w->app_layer_count);
    for (uint32_t i = 0; i < w->app_layer_count; i++)
        fprintf(stderr, " %s", w->app_layer[i] ? w->app_layer[i] : "(null)");
    fprintf(stderr, "; %u extensions:", w->app_ext_count);
    for (uint32_t i = 0; i < w->app_ext_count; i++) fprintf(stderr, " %s", w->app_ext[i] ? w->app_ext[i] : "(null)");
    fprintf(stderr, "; flags 0x%x\n", w->inst_flags);
    if (w->eiep_layer)
        fprintf(stderr, "  vkEnumerateInstanceExtensionProperties layer name: \"%s\" (%zu bytes)\n", w->eiep_layer,
                strlen(w->eiep_layer));
    for (int i = 0; i < W_ENV_VARS; i++) {
        const char *v = getenv(w_env_names[i]);
        if (v) fprintf(stderr, "  %s=%s\n", w_env_names[i], v);
    }
    const char *v = getenv("VK_ADD_IMPLICIT_LAYER_PATH");
    if (v) fprintf(stderr, "  VK_ADD_IMPLICIT_LAYER_PATH=%s\n", v);
}

/* The first active explainer whose predicate holds for this world and whose masks cover `obs`. */
static const struct explainer *explained(uint32_t obs) {
    for (size_t i = 0; i < N_EXPLAINERS; i++)
        if (g_active[i] && (k_explainers[i].masks & obs) && k_explainers[i].applies(g_w, &g_ctx))
            return &k_explainers[i];
    return NULL;
}

void finding(const char *what, uint32_t obs) {
    fprintf(stderr, "\n==== loader_diff_fuzzer: UNEXPLAINED DIFFERENCE [%s] (observable 0x%x)\n", what, obs);
    print_world_summary(g_w);
    for (int s = 0; s < SIDES; s++) print_obs(s);
    for (int s = 0; s < SIDES; s++) print_log_tail(s);
    fprintf(stderr, "deviations table: %s\n", g_deviations_path);
    world_remove_root();
    abort();
}

/* A difference in `obs`: explained (returns true: the caller skips what depends on it) or fatal. */
static bool differ(const char *what, uint32_t obs) {
    const struct explainer *x = explained(obs);
    if (x == NULL) finding(what, obs);
    if (g_verbose)
        fprintf(stderr, "loader_diff_fuzzer: %s differs, explained by %s (%s)\n", what, x->name,
                x->rule ? x->rule : "not a deviation");
    return true;
}

static bool name_dropped(const char *name) {
    for (size_t i = 0; i < sizeof k_loader_only_names / sizeof k_loader_only_names[0]; i++)
        if (strcmp(name, k_loader_only_names[i].name) == 0 && rule_listed(k_loader_only_names[i].rule)) return true;
    return false;
}

static bool lists_equal(const struct d_list *a, const struct d_list *b) {
    if (a->result != b->result || a->result2 != b->result2) return false;
    uint32_t i = 0, j = 0, na = a->count < D_MAX_NAMES ? a->count : D_MAX_NAMES,
             nb = b->count < D_MAX_NAMES ? b->count : D_MAX_NAMES;
    for (;;) {
        while (i < na && name_dropped(a->name[i])) i++;
        while (j < nb && name_dropped(b->name[j])) j++;
        if (i == na || j == nb) return i == na && j == nb;
        if (strcmp(a->name[i], b->name[j]) != 0) return false;
        i++, j++;
    }
}

void compare(const struct world *w) {
    const struct d_obs *a = &g_sh->obs[SIDE_OURS], *b = &g_sh->obs[SIDE_KHR];
    g_w = w;
    g_ctx.ours = a;
    g_ctx.khr = b;
    /* our child must end cleanly whatever Khronos does, unless the world makes a mock abort */
    if (a->status != b->status) {
        differ("how the child ended", O_STATUS);
        return;
    }
    uint32_t stage = a->stage < b->stage ? a->stage : b->stage;
    if (stage >= ST_PRE) {
        if (!lists_equal(&a->eiep, &b->eiep)) differ("vkEnumerateInstanceExtensionProperties", O_PRE_EXT);
        if (w->eiep_layer && !lists_equal(&a->eiep_layer, &b->eiep_layer))
            differ("vkEnumerateInstanceExtensionProperties(layer)", O_LAYER_EXT);
        if (!lists_equal(&a->eilp, &b->eilp)) differ("vkEnumerateInstanceLayerProperties", O_PRE_LAYERS);
        if (a->eiv != b->eiv) differ("vkEnumerateInstanceVersion result", O_EIV);
    } else if (a->stage != b->stage) {
        differ("progress through the application", O_STATUS);
        return;
    }
    if (stage < ST_CREATE) return;
    if (a->create != b->create) {
        differ("vkCreateInstance result", O_CREATE);
        return;
    }
    bool chain_same = a->nchain_inst == b->nchain_inst;
    for (uint32_t i = 0; chain_same && i < a->nchain_inst; i++)
        chain_same = strcmp(a->chain_inst[i], b->chain_inst[i]) == 0;
    if (!chain_same) differ("layers chained by vkCreateInstance", O_CHAIN);
    for (uint32_t s = 0; s < w->ndrivers; s++)
        if ((a->drv[s] & (DRV_CI | DRV_CI_OK)) != (b->drv[s] & (DRV_CI | DRV_CI_OK))) {
            differ("drivers that received vkCreateInstance", O_DRIVERS);
            break;
        }
    if (a->create != VK_SUCCESS) return;
    if (stage < ST_PHYS && a->stage != b->stage) {
        differ("progress after vkCreateInstance", O_STATUS);
        return;
    }
    bool pd_same = a->epd == b->epd && a->epd2 == b->epd2 && a->npd == b->npd;
    for (uint32_t i = 0; pd_same && i < a->npd && i < D_MAX_PD; i++)
        pd_same = a->pd[i].vendor == b->pd[i].vendor && a->pd[i].device == b->pd[i].device &&
                  strcmp(a->pd[i].name, b->pd[i].name) == 0;
    if (!pd_same) {
        differ("physical devices (results, identity, order)", O_PHYS);
        return;
    }
    bool groups_same = a->groups == b->groups && a->ngroups == b->ngroups;
    for (uint32_t i = 0; groups_same && i < a->ngroups && i < D_MAX_GROUPS; i++)
        groups_same = a->group_size[i] == b->group_size[i] &&
                      memcmp(a->group_member[i], b->group_member[i], sizeof a->group_member[i]) == 0;
    if (!groups_same) differ("physical device groups", O_GROUPS);
    if (a->device_stage != b->device_stage) {
        differ("device stage reached", O_DEVICE);
        return;
    }
    if (!a->device_stage) return;
    if (!lists_equal(&a->edep, &b->edep)) differ("vkEnumerateDeviceExtensionProperties", O_DEVICE);
    if (a->create_device != b->create_device) {
        differ("vkCreateDevice result", O_DEVICE);
        return;
    }
    bool dchain_same = a->nchain_dev == b->nchain_dev;
    for (uint32_t i = 0; dchain_same && i < a->nchain_dev; i++)
        dchain_same = strcmp(a->chain_dev[i], b->chain_dev[i]) == 0;
    if (!dchain_same) differ("layers chained by vkCreateDevice", O_CHAIN);
    for (uint32_t s = 0; s < w->ndrivers; s++)
        if ((a->drv[s] & (DRV_CD | DRV_CD_OK)) != (b->drv[s] & (DRV_CD | DRV_CD_OK))) {
            differ("drivers that received vkCreateDevice", O_DRIVERS);
            break;
        }
}
