/* The parts of ldp-check's checks shared between checks.c (the table, the helpers) and the
 * checks_*.c files that hold the checks. Internal to //conformance/driver:ldp_check_lib. */
#ifndef LDP_CHECKS_INTERNAL_H
#define LDP_CHECKS_INTERNAL_H

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vulkan/vk_icd.h>

#include "conformance/driver/cts_versions.h"
#include "conformance/driver/ldp_check.h"
#include "loader/internal/json.h"
#include "loader/internal/search_paths.h"
#include "loader/internal/strlist.h"

#define MM(v) VK_MAKE_API_VERSION(0, VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), 0)
#define GET(d, inst, name) ((PFN_##name)ldp_gipa((d), (inst), #name))

/* ---- Helpers (checks.c) ---- */

/* ldp_version_str(v) in buf (32 bytes); returns buf. */
const char *vs(uint32_t v, char *buf);
/* ldp_drv_open at interface `offer`; false with the NOT_TESTABLE verdict given when it fails. */
bool open_driver(struct ldp_ctx *c, uint32_t offer, struct ldp_drv *d);
/* Instance at the driver's own major.minor (1.0 when it reports nothing newer). */
bool make_instance(struct ldp_ctx *c, struct ldp_drv *d, const char *const *exts, uint32_t n, VkInstance *inst);
VkPhysicalDevice *physical_devices(struct ldp_ctx *c, struct ldp_drv *d, VkInstance inst, uint32_t *n, VkResult *res);
VkExtensionProperties *device_extensions(struct ldp_ctx *c, struct ldp_drv *d, VkInstance inst, VkPhysicalDevice pd,
                                         uint32_t *n);
void device_name(struct ldp_drv *d, VkInstance inst, VkPhysicalDevice pd, VkPhysicalDeviceProperties *out);
/* Whether the driver lists the instance extension name. */
bool instance_has_ext(struct ldp_drv *d, const char *name);
/* vkCreateDevice with one queue of family 0 and nothing enabled (the caller names the step). */
VkResult create_device_family0(PFN_vkCreateDevice cd, VkPhysicalDevice pd, VkDevice *dev);
/* Appends item to the comma-separated list (as much as fits in size). */
void list_add(char *list, size_t size, const char *item);
/* Asks vk_icdGetInstanceProcAddr(inst, name) for each of the n names (one step each) and lists in
 * list those it answers NULL for (want_null) or non-NULL for (!want_null). */
void gipa_list(struct ldp_ctx *c, struct ldp_drv *d, VkInstance inst, const char *const *names, size_t n,
               bool want_null, char *list, size_t size);
/* The verdict of a check that kept its first failure and first warning (NULL or "" when there is
 * none): FAIL with the failure, else WARN with the warning, else PASS with pass_fmt. */
void verdict_first(struct ldp_ctx *c, const char *fail, const char *warn, const char *pass_fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Whether a probe child crashed, hung or exited non-zero (then described in buf). */
bool probe_failed(const struct ldp_child *ch, char *buf, size_t len);
/* A probe child that reported key (why it could not use the driver) makes the check not testable:
 * true with the evidence (prefix and the report) and the verdict given and the child freed. */
bool probe_not_testable(struct ldp_ctx *c, struct ldp_child *ch, const char *key, char *buf, size_t len,
                        const char *prefix, const char *why);

/* ---- The checks, as ldp_checks[] names them ---- */

/* checks_manifest.c */
void check_manifest(struct ldp_ctx *c, void *arg);
void check_stale_manifest(struct ldp_ctx *c, void *arg);
/* checks_interface.c */
void check_negotiation(struct ldp_ctx *c, void *arg);
void check_api_needs_iface5(struct ldp_ctx *c, void *arg);
void check_own_surfaces(struct ldp_ctx *c, void *arg);
void check_iface4_rejects_api(struct ldp_ctx *c, void *arg);
void check_iface5_ignores_api(struct ldp_ctx *c, void *arg);
/* checks_devices.c */
void check_zero_devices(struct ldp_ctx *c, void *arg);
void check_coexistence(struct ldp_ctx *c, void *arg);
void check_conformance_version(struct ldp_ctx *c, void *arg);
/* checks_lints.c */
void check_unpublished_extensions(struct ldp_ctx *c, void *arg);
void lint_loader_magic(struct ldp_ctx *c, void *arg);
void lint_gpdpa_null(struct ldp_ctx *c, void *arg);
void lint_gipa_null(struct ldp_ctx *c, void *arg);
void lint_global_null_instance(struct ldp_ctx *c, void *arg);
void lint_vk_exports(struct ldp_ctx *c, void *arg);
void lint_untrusted_answers(struct ldp_ctx *c, void *arg);

#endif /* LDP_CHECKS_INTERNAL_H */
