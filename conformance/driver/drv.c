/* ldp-check: loading a driver the way a loader of a given interface version would (children). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/driver/ldp_check.h"
#include "loader/vkl_gen_results.h"

/* VkResult names come from vk.xml (tools/vkgen: loader/vkl_gen_results.h). */
const char *ldp_vkresult(VkResult r) {
    const char *n = vkl_gen_result_name(r);
    if (n != NULL) return n;
    static __thread char buf[32];
    snprintf(buf, sizeof buf, "VkResult(%d)", (int)r);
    return buf;
}

void ldp_version_str(uint32_t v, char *buf, size_t len) {
    if (VK_API_VERSION_VARIANT(v) != 0)
        snprintf(buf, len, "%u.%u.%u.%u", VK_API_VERSION_VARIANT(v), VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                 VK_API_VERSION_PATCH(v));
    else
        snprintf(buf, len, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
}

static void *sym(void *lib, const char *name) { return dlsym(lib, name); }

PFN_vkVoidFunction ldp_gipa(struct ldp_drv *d, VkInstance inst, const char *name) {
    return d->gipa != NULL ? d->gipa(inst, name) : NULL;
}

int ldp_drv_open(struct ldp_ctx *c, uint32_t offer, struct ldp_drv *d, char *err, size_t err_len) {
    memset(d, 0, sizeof(*d));
    d->offered = offer;
    d->neg_result = VK_SUCCESS;
    const char *path = c->drv->m.library_path;
    ldp_step(c, "dlopen(%s)", path);
    d->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (d->lib == NULL) {
        const char *e = dlerror();
        snprintf(err, err_len, "dlopen(%s) failed: %s", path, e ? e : "unknown error");
        return -1;
    }
    d->negotiate =
        (PFN_vk_icdNegotiateLoaderICDInterfaceVersion)sym(d->lib, "vk_icdNegotiateLoaderICDInterfaceVersion");
    d->negotiate_exported = d->negotiate != NULL;
    d->icd_gipa = (PFN_vkGetInstanceProcAddr)sym(d->lib, "vk_icdGetInstanceProcAddr");
    d->gpdpa = (PFN_vk_icdGetPhysicalDeviceProcAddr)sym(d->lib, "vk_icdGetPhysicalDeviceProcAddr");
    d->gpdpa_exported = d->gpdpa != NULL;
    if (offer < 2) d->negotiate = NULL; /* loaders before interface 2 do not know the function */
    if (d->negotiate == NULL && offer >= 7 && d->icd_gipa != NULL) {
        ldp_step(c, "vk_icdGetInstanceProcAddr(NULL, \"vk_icdNegotiateLoaderICDInterfaceVersion\")");
        d->negotiate = (PFN_vk_icdNegotiateLoaderICDInterfaceVersion)d->icd_gipa(
            VK_NULL_HANDLE, "vk_icdNegotiateLoaderICDInterfaceVersion");
        d->negotiate_via_gipa = d->negotiate != NULL;
    }
    if (d->negotiate != NULL) {
        uint32_t v = offer;
        ldp_step(c, "vk_icdNegotiateLoaderICDInterfaceVersion(%u)", offer);
        d->neg_result = d->negotiate(&v);
        d->negotiated = true;
        if (d->neg_result == VK_ERROR_INCOMPATIBLE_DRIVER) {
            snprintf(err, err_len, "vk_icdNegotiateLoaderICDInterfaceVersion(%u) returned %s", offer,
                     ldp_vkresult(d->neg_result));
            return -2;
        }
        d->iface = v;
    } else if (d->icd_gipa != NULL) {
        d->iface = 1;
    } else {
        d->iface = 0;
    }
    if (d->icd_gipa != NULL) {
        d->gipa = d->icd_gipa;
    } else {
        d->gipa = (PFN_vkGetInstanceProcAddr)sym(d->lib, "vkGetInstanceProcAddr");
        if (d->gipa == NULL || (d->negotiate != NULL && d->iface != 0)) {
            snprintf(err, err_len,
                     "%s exports neither vk_icdGetInstanceProcAddr nor (for interface 0) "
                     "vkGetInstanceProcAddr",
                     path);
            d->gipa = NULL;
            return -1;
        }
    }
    if (d->iface >= 7 && d->icd_gipa != NULL) {
        PFN_vk_icdGetPhysicalDeviceProcAddr g =
            (PFN_vk_icdGetPhysicalDeviceProcAddr)d->icd_gipa(VK_NULL_HANDLE, "vk_icdGetPhysicalDeviceProcAddr");
        if (g != NULL) d->gpdpa = g;
    }
    if (d->iface < 4) d->gpdpa = NULL; /* only used from interface 4 */

    d->api = c->drv->m.api_version;
    ldp_step(c, "vkGetInstanceProcAddr(NULL, \"vkEnumerateInstanceVersion\")");
    PFN_vkEnumerateInstanceVersion eiv =
        (PFN_vkEnumerateInstanceVersion)ldp_gipa(d, VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
    if (eiv != NULL) {
        uint32_t v = 0;
        ldp_step(c, "vkEnumerateInstanceVersion");
        if (eiv(&v) == VK_SUCCESS) {
            d->api = v;
            d->has_eiv = true;
        }
    }
    return 0;
}

VkResult ldp_create_instance(struct ldp_ctx *c, struct ldp_drv *d, uint32_t api, const char *const *exts,
                             uint32_t ext_count, VkInstance *out) {
    *out = VK_NULL_HANDLE;
    PFN_vkCreateInstance ci = (PFN_vkCreateInstance)ldp_gipa(d, VK_NULL_HANDLE, "vkCreateInstance");
    if (ci == NULL) return VK_ERROR_INITIALIZATION_FAILED;
    VkApplicationInfo app = {
        .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
        .pApplicationName = "ldp-check",
        .pEngineName = "ldp-check",
        .apiVersion = api,
    };
    VkInstanceCreateInfo ici = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pApplicationInfo = &app,
        .enabledExtensionCount = ext_count,
        .ppEnabledExtensionNames = exts,
    };
    char v[32];
    ldp_version_str(api, v, sizeof v);
    ldp_step(c, "vkCreateInstance(apiVersion %s, %u extensions)", v, ext_count);
    return ci(&ici, NULL, out);
}

VkExtensionProperties *ldp_instance_extensions(struct ldp_drv *d, uint32_t *count) {
    *count = 0;
    PFN_vkEnumerateInstanceExtensionProperties e = (PFN_vkEnumerateInstanceExtensionProperties)ldp_gipa(
        d, VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties");
    if (e == NULL) return NULL;
    uint32_t n = 0;
    if (e(NULL, &n, NULL) != VK_SUCCESS || n == 0) return NULL;
    /* A driver that lies (LINT_UNTRUSTED_ANSWERS reports it) must not break the other checks: one
     * element of slack, the count cut to the array, every name terminated within its array. */
    uint32_t asked = n;
    VkExtensionProperties *p = calloc((size_t)n + 1, sizeof(*p));
    if (p == NULL) return NULL;
    VkResult r = e(NULL, &n, p);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
        free(p);
        return NULL;
    }
    if (n > asked) n = asked;
    for (uint32_t i = 0; i < n; i++) p[i].extensionName[VK_MAX_EXTENSION_NAME_SIZE - 1] = '\0';
    *count = n;
    return p;
}

bool ldp_has_ext(const VkExtensionProperties *e, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(e[i].extensionName, name) == 0) return true;
    return false;
}
