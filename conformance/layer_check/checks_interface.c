/* llp-check: interface checks (LLP_LAYER_4, 5, 15). The library is dlopen'ed only in probe
 * grandchildren, one per attempt, and called directly as a loader would. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conformance/layer_check/llp_check.h"
#include "conformance/layer_check/sandwich.h"
#include "loader/vkl_gen_results.h"

#define LLP_STD_NEGOTIATE "vkNegotiateLoaderLayerInterfaceVersion"

static const char *res(VkResult r) {
    const char *n = vkl_gen_result_name(r);
    return n ? n : "?";
}

struct iface_arg {
    const struct vkl_layer_manifest *layer;
    uint32_t offer;
};

static const char *negotiate_name(const struct vkl_layer_manifest *l) {
    return l->fn_negotiate ? l->fn_negotiate : LLP_STD_NEGOTIATE;
}

static const char *gipa_name(const struct vkl_layer_manifest *l) {
    return l->fn_get_instance_proc_addr ? l->fn_get_instance_proc_addr : "vkGetInstanceProcAddr";
}

static void *open_layer(struct ldp_ctx *c, const struct vkl_layer_manifest *l) {
    ldp_step(c, "dlopen(%s)", l->library_path);
    void *h = dlopen(l->library_path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        ldp_result(c, "dlerror", "%s", e ? e : "?");
    }
    return h;
}

static void probe_exports(struct ldp_ctx *c, void *argp) {
    const struct iface_arg *a = argp;
    void *h = open_layer(c, a->layer);
    if (h == NULL) return;
    ldp_result(c, "negotiate", "%d", dlsym(h, negotiate_name(a->layer)) != NULL);
    ldp_result(c, "gipa", "%d", dlsym(h, gipa_name(a->layer)) != NULL);
    ldp_result(c, "gpdpa", "%d", dlsym(h, "vk_layerGetPhysicalDeviceProcAddr") != NULL);
    ldp_result(c, "eiep", "%d", dlsym(h, "vkEnumerateInstanceExtensionProperties") != NULL);
}

static void probe_offer(struct ldp_ctx *c, void *argp) {
    const struct iface_arg *a = argp;
    void *h = open_layer(c, a->layer);
    if (h == NULL) return;
    PFN_vkNegotiateLoaderLayerInterfaceVersion neg =
        (PFN_vkNegotiateLoaderLayerInterfaceVersion)dlsym(h, negotiate_name(a->layer));
    if (neg == NULL) return;
    VkNegotiateLayerInterface v;
    memset(&v, 0, sizeof v);
    v.sType = LAYER_NEGOTIATE_INTERFACE_STRUCT;
    v.loaderLayerInterfaceVersion = a->offer;
    ldp_step(c, "%s(loaderLayerInterfaceVersion = %u)", negotiate_name(a->layer), a->offer);
    VkResult r = neg(&v);
    ldp_result(c, "result", "%d", (int)r);
    ldp_result(c, "version", "%u", v.loaderLayerInterfaceVersion);
    ldp_result(c, "gipa", "%d", v.pfnGetInstanceProcAddr != NULL);
    ldp_result(c, "gdpa", "%d", v.pfnGetDeviceProcAddr != NULL);
}

/* Runs the export probe for layer l; returns false (after a verdict-worthy note) when the library
 * cannot be loaded. */
struct exports {
    bool loaded, negotiate, gipa, gpdpa, eiep;
    char why[1200];
};

/* Whether a probe child crashed, hung or exited non-zero (then described in d). */
static bool probe_failed(const struct ldp_child *ch, char *d, size_t len) {
    if (ch->kind == LDP_EXITED && ch->code == 0) return false;
    ldp_child_describe(ch, d, len);
    return true;
}

static void get_exports(struct ldp_ctx *c, const struct vkl_layer_manifest *l, struct exports *e) {
    memset(e, 0, sizeof *e);
    struct iface_arg a = {l, 0};
    struct ldp_child ch;
    ldp_probe(c, probe_exports, &a, &ch);
    char buf[1200], d[1000];
    if (probe_failed(&ch, d, sizeof d)) {
        snprintf(e->why, sizeof e->why, "loading %s %s", l->library_path, d);
    } else if (ldp_child_get(&ch, "dlerror", buf, sizeof buf) != NULL) {
        snprintf(e->why, sizeof e->why, "dlopen(%.300s) failed: %.800s", l->library_path, buf);
    } else {
        e->loaded = true;
        e->negotiate = ldp_child_get(&ch, "negotiate", buf, sizeof buf) && buf[0] == '1';
        e->gipa = ldp_child_get(&ch, "gipa", buf, sizeof buf) && buf[0] == '1';
        e->gpdpa = ldp_child_get(&ch, "gpdpa", buf, sizeof buf) && buf[0] == '1';
        e->eiep = ldp_child_get(&ch, "eiep", buf, sizeof buf) && buf[0] == '1';
    }
    ldp_child_free(&ch);
}

/* Accumulates one verdict over the layers of a manifest. */
void llp_acc_add(struct llp_acc *a, const struct vkl_layer_manifest *l, enum ldp_verdict v, const char *fmt, ...) {
    char text[1200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (!a->any || llp_worse(a->v, v) != a->v) {
        if (llp_man->file.count > 1)
            snprintf(a->reason, sizeof a->reason, "%s: %s", l->props.layerName, text);
        else
            snprintf(a->reason, sizeof a->reason, "%s", text);
        a->v = v;
    }
    a->any = true;
}

void llp_acc_end(struct ldp_ctx *c, struct llp_acc *a) {
    if (!a->any) {
        ldp_verdict(c, LDP_NOT_TESTABLE, "no layer of the manifest was checked");
        return;
    }
    ldp_verdict(c, a->v, "%s", a->reason);
}

/* Common per-layer preamble: meta-layers have no library; a library that cannot be used makes the
 * interface checks not-testable. */
bool llp_usable(struct llp_acc *a, const struct vkl_layer_manifest *l) {
    if (l->is_meta) {
        llp_acc_add(a, l, LDP_NA, "a meta-layer has no library of its own (check its components' manifests)");
        return false;
    }
    struct stat st;
    if (strchr(l->library_path, '/') != NULL && (stat(l->library_path, &st) != 0 || !S_ISREG(st.st_mode))) {
        llp_acc_add(a, l, LDP_NOT_TESTABLE, "the library %s is missing or not a regular file (see LLP_LAYER_20)",
                    l->library_path);
        return false;
    }
    return true;
}

/* One interface check on one layer whose library loads, with its exports. */
typedef void (*layer_check_fn)(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                               const struct exports *e);

/* Runs fn on every layer of the manifest that is usable (llp_usable) and whose library loads (the
 * others are not testable; why is evidence too when show_why), then gives the verdict. */
static void each_loaded_layer(struct ldp_ctx *c, bool show_why, layer_check_fn fn) {
    struct llp_acc a = {0};
    for (uint32_t i = 0; i < llp_man->file.count; i++) {
        const struct vkl_layer_manifest *l = &llp_man->file.layers[i];
        if (!llp_usable(&a, l)) continue;
        struct exports e;
        get_exports(c, l, &e);
        if (!e.loaded) {
            if (show_why) ldp_evidence(c, "%s", e.why);
            llp_acc_add(&a, l, LDP_NOT_TESTABLE, "%s (see LLP_LAYER_20)", e.why);
            continue;
        }
        fn(c, &a, l, &e);
    }
    llp_acc_end(c, &a);
}

/* ---- LLP_LAYER_4 ---- */

static void negotiate_export(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                             const struct exports *e) {
    ldp_evidence(c, "%s: %s %s, %s %s, vk_layerGetPhysicalDeviceProcAddr %s", l->props.layerName, negotiate_name(l),
                 e->negotiate ? "exported" : "not exported", gipa_name(l), e->gipa ? "exported" : "not exported",
                 e->gpdpa ? "exported" : "not exported");
    if (e->negotiate)
        llp_acc_add(a, l, LDP_PASS, "exports %s", negotiate_name(l));
    else if (e->gpdpa)
        llp_acc_add(a, l, LDP_FAIL,
                    "exports vk_layerGetPhysicalDeviceProcAddr (an interface-2 entry point) but not %s, which a loader "
                    "needs to use interface 2",
                    negotiate_name(l));
    else if (e->gipa)
        llp_acc_add(a, l, LDP_WARN,
                    "does not export %s: loaders use it through the legacy interface 0/1 (%s) and it cannot use "
                    "interface 2",
                    negotiate_name(l), gipa_name(l));
    else
        llp_acc_add(a, l, LDP_FAIL, "exports neither %s nor %s: no loader can use it", negotiate_name(l), gipa_name(l));
}

void llp_check_negotiate_export(struct ldp_ctx *c, void *arg) {
    (void)arg;
    each_loaded_layer(c, true, negotiate_export);
}

/* ---- LLP_LAYER_5 ---- */

static const uint32_t g_offers[] = {2, 3, 7};

static void negotiate_offers(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                             const struct exports *e) {
    if (!e->negotiate) {
        llp_acc_add(a, l, LDP_NA, "no %s: legacy interface 0/1 (see LLP_LAYER_4)", negotiate_name(l));
        return;
    }
    bool accepted_lower = false;
    char chosen[200] = "";
    size_t clen = 0;
    enum ldp_verdict lv = LDP_PASS;
    char why[1200] = "";
#define BAD(verdict, ...)                                                                                              \
    do {                                                                                                               \
        if (lv == LDP_PASS || llp_worse(lv, verdict) != lv) snprintf(why, sizeof why, __VA_ARGS__);                    \
        lv = llp_worse(lv, verdict);                                                                                   \
    } while (0)
    for (size_t k = 0; k < sizeof g_offers / sizeof g_offers[0]; k++) {
        uint32_t offer = g_offers[k];
        struct iface_arg pa = {l, offer};
        struct ldp_child ch;
        ldp_probe(c, probe_offer, &pa, &ch);
        char buf[200], d[1000];
        if (probe_failed(&ch, d, sizeof d)) {
            ldp_evidence(c, "offer %u: %s", offer, d);
            BAD(LDP_FAIL, "offered interface %u, the negotiation %s (the layer %s)", offer, d,
                ch.kind == LDP_TIMED_OUT ? "hung" : "crashed");
            ldp_child_free(&ch);
            continue;
        }
        int r = 1;
        llp_int(ldp_child_get(&ch, "result", buf, sizeof buf), &r);
        uint32_t ver = ldp_child_get(&ch, "version", buf, sizeof buf) ? (uint32_t)strtoul(buf, NULL, 10) : 0;
        bool gipa = ldp_child_get(&ch, "gipa", buf, sizeof buf) && buf[0] == '1';
        ldp_child_free(&ch);
        ldp_evidence(c, "%s: offered %u: %s, version %u, pfnGetInstanceProcAddr %s", l->props.layerName, offer,
                     res((VkResult)r), ver, gipa ? "set" : "NULL");
        if (r == VK_SUCCESS) {
            clen += (size_t)snprintf(chosen + clen, sizeof chosen - clen, "%s%u->%u", clen ? ", " : "", offer, ver);
            if (ver > offer)
                BAD(LDP_FAIL, "offered interface %u, it wrote back %u: a layer may only lower the version", offer, ver);
            else if (ver >= 2 && !gipa && !e->gipa)
                BAD(LDP_FAIL,
                    "offered interface %u, it chose %u without filling pfnGetInstanceProcAddr (and exports no %s)",
                    offer, ver, gipa_name(l));
            else if (ver < 2)
                BAD(e->gipa ? LDP_WARN : LDP_FAIL, "offered interface %u, it chose the legacy interface %u%s", offer,
                    ver, e->gipa ? "" : " without exporting vkGetInstanceProcAddr");
            if (offer == 2) accepted_lower = true;
        } else if (r == VK_ERROR_INITIALIZATION_FAILED) {
            clen += (size_t)snprintf(chosen + clen, sizeof chosen - clen, "%s%u->refused", clen ? ", " : "", offer);
            if (offer == 2)
                BAD(LDP_FAIL, "refuses interface 2, the version current loaders offer: they do not load it");
            else if (accepted_lower)
                BAD(LDP_FAIL,
                    "refuses interface %u after accepting 2: offered a newer version, a layer must answer "
                    "with the newest version it supports",
                    offer);
        } else {
            BAD(LDP_FAIL,
                "offered interface %u, it returned %s (only VK_SUCCESS or VK_ERROR_INITIALIZATION_FAILED "
                "are defined)",
                offer, res((VkResult)r));
        }
    }
#undef BAD
    if (lv == LDP_PASS)
        llp_acc_add(a, l, LDP_PASS, "offers 2, 3, 7 answered correctly (%s)", chosen);
    else
        llp_acc_add(a, l, lv, "%s", why);
}

void llp_check_negotiate_offers(struct ldp_ctx *c, void *arg) {
    (void)arg;
    each_loaded_layer(c, false, negotiate_offers);
}

/* ---- LLP_LAYER_15 ---- */

static void probe_eiep(struct ldp_ctx *c, void *argp) {
    const struct iface_arg *a = argp;
    void *h = open_layer(c, a->layer);
    if (h == NULL) return;
    PFN_vkEnumerateInstanceExtensionProperties f =
        (PFN_vkEnumerateInstanceExtensionProperties)dlsym(h, "vkEnumerateInstanceExtensionProperties");
    if (f == NULL) return;
    const char *names[3] = {a->layer->props.layerName, "VK_LAYER_LLPCHECK_other", NULL};
    const char *tags[3] = {"own", "other", "null"};
    for (int i = 0; i < 3; i++) {
        uint32_t count = 0;
        ldp_step(c, "vkEnumerateInstanceExtensionProperties(%s, count)", names[i] ? names[i] : "NULL");
        VkResult r = f(names[i], &count, NULL);
        char list[900] = "";
        size_t len = 0;
        if (r == VK_SUCCESS && count > 0 && count < 512) {
            VkExtensionProperties *p = calloc(count, sizeof *p);
            ldp_step(c, "vkEnumerateInstanceExtensionProperties(%s, %u)", names[i] ? names[i] : "NULL", count);
            if (p != NULL && f(names[i], &count, p) == VK_SUCCESS)
                for (uint32_t k = 0; k < count && len + 80 < sizeof list; k++)
                    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k ? "," : "", p[k].extensionName);
            free(p);
        }
        char key[32];
        snprintf(key, sizeof key, "%s_result", tags[i]);
        ldp_result(c, key, "%d", (int)r);
        snprintf(key, sizeof key, "%s_list", tags[i]);
        ldp_result(c, key, "%s", list);
    }
}

/* "a,b,c" holds exactly the manifest's instance extensions (order free). */
static bool same_set(const char *list, const struct vkl_layer_extension *ext, uint32_t n) {
    uint32_t seen = 0;
    char *copy = strdup(list), *save = NULL;
    bool ok = copy != NULL;
    for (char *t = ok ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        bool found = false;
        for (uint32_t i = 0; i < n && !found; i++) found = strcmp(ext[i].props.extensionName, t) == 0;
        if (!found) ok = false;
        seen++;
    }
    free(copy);
    return ok && seen == n;
}

static void instance_extensions(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                                const struct exports *e) {
    if (!e->eiep) {
        llp_acc_add(
            a, l, LDP_NA,
            "no exported vkEnumerateInstanceExtensionProperties: loaders answer for the layer from its manifest's "
            "instance_extensions");
        return;
    }
    struct iface_arg pa = {l, 0};
    struct ldp_child ch;
    ldp_probe(c, probe_eiep, &pa, &ch);
    char d[1000];
    if (probe_failed(&ch, d, sizeof d)) {
        llp_acc_add(a, l, LDP_FAIL, "vkEnumerateInstanceExtensionProperties: the process %s", d);
        ldp_child_free(&ch);
        return;
    }
    char b1[64], b2[64], b3[64], list[1000];
    int own = 1, other = 1, null = 1;
    llp_int(ldp_child_get(&ch, "own_result", b1, sizeof b1), &own);
    llp_int(ldp_child_get(&ch, "other_result", b2, sizeof b2), &other);
    llp_int(ldp_child_get(&ch, "null_result", b3, sizeof b3), &null);
    if (ldp_child_get(&ch, "own_list", list, sizeof list) == NULL) list[0] = '\0';
    ldp_child_free(&ch);
    ldp_evidence(c, "%s: vkEnumerateInstanceExtensionProperties(\"%s\") = %s [%s]", l->props.layerName,
                 l->props.layerName, res((VkResult)own), list);
    ldp_evidence(c, "%s: vkEnumerateInstanceExtensionProperties(\"VK_LAYER_LLPCHECK_other\") = %s", l->props.layerName,
                 res((VkResult)other));
    ldp_evidence(c, "%s: vkEnumerateInstanceExtensionProperties(NULL) = %s", l->props.layerName, res((VkResult)null));
    if (own != VK_SUCCESS)
        llp_acc_add(a, l, LDP_FAIL, "asked for its own name it returns %s", res((VkResult)own));
    else if (!same_set(list, l->instance_extensions, l->instance_extension_count))
        llp_acc_add(a, l, LDP_FAIL,
                    "asked for its own name it lists [%s], its manifest declares %u instance extension(s)", list,
                    l->instance_extension_count);
    else if (other != VK_ERROR_LAYER_NOT_PRESENT)
        llp_acc_add(a, l, LDP_FAIL, "asked for another layer's name it returns %s, not VK_ERROR_LAYER_NOT_PRESENT",
                    res((VkResult)other));
    else if (null != VK_ERROR_LAYER_NOT_PRESENT)
        llp_acc_add(a, l, LDP_FAIL, "asked with a NULL layer name it returns %s, not VK_ERROR_LAYER_NOT_PRESENT",
                    res((VkResult)null));
    else
        llp_acc_add(a, l, LDP_PASS,
                    "own name: its %u manifest extension(s); other names and NULL: VK_ERROR_LAYER_NOT_PRESENT",
                    l->instance_extension_count);
}

void llp_check_instance_extensions(struct ldp_ctx *c, void *arg) {
    (void)arg;
    each_loaded_layer(c, false, instance_extensions);
}
