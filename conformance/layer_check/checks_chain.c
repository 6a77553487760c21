/* llp-check: chain checks (LLP_LAYER_10, 12, 13, 16, 17, 18, 21, 22). The layer under test runs
 * in a "sandwich" in a probe grandchild: the reference loader, VK_INSTANCE_LAYERS =
 * VK_LAYER_LLPCHECK_above : <layer> : VK_LAYER_LLPCHECK_below (two private copies of the recording
 * layer, mock_layers/recording_layer.c), the mock ICD below. A fixed workload (instance, physical
 * devices, their properties and queue families, a device, its queue, wait-idle, destroy) runs
 * through the loader; afterwards the check reads what the two recording layers wrote. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

#include "conformance/layer_check/llp_check.h"
#include "conformance/layer_check/sandwich.h"
#include "loader/vkl_gen_results.h"

const char *llp_res(VkResult r) {
    if ((int)r == LLP_NO_RESULT) return "no result (did not return)";
    const char *n = vkl_gen_result_name(r);
    return n ? n : "?";
}

static bool copy_file(const char *from, const char *to) {
    struct ldp_file f;
    size_t len = 0;
    char *data = ldp_file_read(from, 256u * 1024u * 1024u, &len, &f);
    if (data == NULL) return false;
    int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    bool ok = fd >= 0 && write(fd, data, len) == (ssize_t)len;
    if (fd >= 0) ok = close(fd) == 0 && ok;
    free(data);
    return ok;
}

static bool write_manifest(const char *path, const char *name, const char *lib) {
    FILE *f = fopen(path, "w");
    if (f == NULL) return false;
    fprintf(f,
            "{\"file_format_version\": \"1.1.0\", \"layer\": {\"name\": \"%s\", \"type\": \"INSTANCE\", "
            "\"library_path\": \"%s\", \"api_version\": \"1.3.0\", \"implementation_version\": \"1\", "
            "\"description\": \"llp-check recording layer\"}}\n",
            name, lib);
    return fclose(f) == 0;
}

static char *slurp(const char *path) {
    struct ldp_file f;
    size_t len = 0;
    char *s = ldp_file_read(path, 8u * 1024u * 1024u, &len, &f);
    return s ? s : strdup("");
}

/* Where a probe crashed: the library holding the faulting instruction, or, for a call through a
 * NULL (or wild) function pointer, the one holding the return address the call pushed. Written as
 * the probe result "crash_site" ("<library>" or "<library> (a call to <address>)") with one
 * write(2), then the signal's default action. Attributes a crash to the layer, the loader or the
 * driver truthfully instead of blaming the layer for every death of the process. */
static int g_crash_fd = -1;

static void crash_handler(int sig, siginfo_t *si, void *ucv) {
    void *pc = NULL, *ret = NULL;
    if (si->si_code <= 0) { /* sent (kill, raise): no faulting instruction to name */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
#if defined(__x86_64__)
    const ucontext_t *uc = ucv;
    pc = (void *)uc->uc_mcontext.gregs[REG_RIP];
    ret = *(void **)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    const ucontext_t *uc = ucv;
    pc = (void *)uc->uc_mcontext.pc;
    ret = (void *)uc->uc_mcontext.regs[30];
#else
    (void)ucv;
#endif
    Dl_info info;
    char line[PATH_MAX + 128];
    int n;
    if (pc != NULL && dladdr(pc, &info) != 0 && info.dli_fname != NULL)
        n = snprintf(line, sizeof line, "R crash_site\t%s\n", info.dli_fname);
    else if (ret != NULL && dladdr(ret, &info) != 0 && info.dli_fname != NULL)
        n = snprintf(line, sizeof line, "R crash_site\t%s (a call to %p)\n", info.dli_fname, pc);
    else
        n = snprintf(line, sizeof line, "R crash_site\t? (at %p)\n", pc);
    if (g_crash_fd >= 0 && n > 0) {
        ssize_t w = write(g_crash_fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        (void)w;
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void watch_crashes(int fd) {
    g_crash_fd = fd;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
}

/* The workload, in the probe grandchild. Application-visible results are "app" probe results
 * ("<step> <value>"), compared between the runs with and without the layer (LLP_LAYER_1). */
#define APP(...) ldp_result(c, "app", __VA_ARGS__)
static void probe_workload(struct ldp_ctx *c, void *argp) {
    const struct sandwich *s = argp;
    const struct vkl_layer_manifest *l = s->layer;
    char p[PATH_MAX * 3 + 64];
    watch_crashes(c->fd);
    /* Capture layers write files into the working directory (GFXReconstruct's .gfxr): the probe's
     * private directory, removed with everything in it afterwards. */
    if (chdir(s->dir) != 0) ldp_evidence(c, "chdir(%s): %s", s->dir, strerror(errno));
    if (llp_opt->driver_manifest != NULL)
        snprintf(p, sizeof p, "%s", llp_opt->driver_manifest);
    else
        snprintf(p, sizeof p, "%s/icd.json", llp_opt->session_dir);
    setenv("VK_DRIVER_FILES", p, 1);
    unsetenv("VK_ICD_FILENAMES");
    unsetenv("VK_ADD_DRIVER_FILES");
    static const char *const unset[] = {
        "VK_ADD_LAYER_PATH",      "VK_ADD_IMPLICIT_LAYER_PATH", "VK_LOADER_LAYERS_ENABLE",  "VK_LOADER_LAYERS_DISABLE",
        "VK_LOADER_LAYERS_ALLOW", "VK_LOADER_DRIVERS_SELECT",   "VK_LOADER_DRIVERS_DISABLE"};
    for (size_t i = 0; i < sizeof unset / sizeof *unset; i++) unsetenv(unset[i]);
    if (s->without) {
        snprintf(p, sizeof p, "%s/above.json:%s/below.json", s->dir, s->dir);
        setenv("VK_LAYER_PATH", p, 1);
        setenv("VK_IMPLICIT_LAYER_PATH", "", 1);
    } else if (llp_man->implicit) {
        snprintf(p, sizeof p, "%s/above.json:%s/below.json", s->dir, s->dir);
        setenv("VK_LAYER_PATH", p, 1);
        setenv("VK_IMPLICIT_LAYER_PATH", llp_man->path, 1);
        if (l->enable_env != NULL) setenv(l->enable_env, l->enable_env_value ? l->enable_env_value : "1", 1);
        if (l->disable_env != NULL) unsetenv(l->disable_env);
    } else {
        snprintf(p, sizeof p, "%s/above.json:%s/below.json:%s", s->dir, s->dir, llp_man->path);
        setenv("VK_LAYER_PATH", p, 1);
        setenv("VK_IMPLICIT_LAYER_PATH", "", 1);
    }
    if (s->without)
        snprintf(p, sizeof p, "%s:%s", LLP_ABOVE_NAME, LLP_BELOW_NAME);
    else
        snprintf(p, sizeof p, "%s:%s:%s", LLP_ABOVE_NAME, l->props.layerName, LLP_BELOW_NAME);
    setenv("VK_INSTANCE_LAYERS", p, 1);
    setenv("LLPCHECK_UNDER_TEST", l->props.layerName, 1);
    setenv("VK_LOADER_DEBUG", "error", 1);
    if (s->inject)
        setenv("LLPCHECK_INJECT_EXTENSION", "1", 1);
    else
        unsetenv("LLPCHECK_INJECT_EXTENSION");

    const VkAllocationCallbacks *ac = NULL;
    if (s->allocator) {
        char why[600] = "";
        ldp_step(c, "dlopen(%s) and redirect its allocation imports", l->library_path);
        if (!llp_alloc_prepare(l->library_path, why, sizeof why)) ldp_result(c, "alloc_error", "%s", why);
        ac = llp_alloc_callbacks();
    }
    ldp_step(c, "dlopen(%s)", llp_opt->loader_path);
    void *loader = dlopen(llp_opt->loader_path, RTLD_NOW | RTLD_LOCAL);
    if (loader == NULL) {
        const char *e = dlerror();
        ldp_result(c, "loader_error", "%s", e ? e : "?");
        return;
    }
    PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)dlsym(loader, "vkGetInstanceProcAddr");
    if (gipa == NULL) return;
    PFN_vkCreateInstance create_instance = (PFN_vkCreateInstance)gipa(VK_NULL_HANDLE, "vkCreateInstance");
    VkApplicationInfo app = {
        VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "llp-check", 1, "llp-check", 1, VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, NULL, 0, &app, 0, NULL, 0, NULL};
    VkInstance inst = VK_NULL_HANDLE;
    ldp_step(c, "vkCreateInstance (layers %s)", p);
    if (s->allocator) llp_alloc_window(true);
    VkResult r = create_instance ? create_instance(&ici, ac, &inst) : VK_ERROR_INITIALIZATION_FAILED;
    ldp_result(c, "instance_result", "%d", (int)r);
    APP("vkCreateInstance %s", llp_res(r));
    if (r != VK_SUCCESS) {
        if (s->allocator) {
            llp_alloc_window(false);
            llp_alloc_report(c);
        }
        return;
    }
#define GET(type, name) type name = (type)gipa(inst, #name)
    GET(PFN_vkEnumeratePhysicalDevices, vkEnumeratePhysicalDevices);
    GET(PFN_vkGetPhysicalDeviceProperties, vkGetPhysicalDeviceProperties);
    GET(PFN_vkGetPhysicalDeviceQueueFamilyProperties, vkGetPhysicalDeviceQueueFamilyProperties);
    GET(PFN_vkCreateDevice, vkCreateDevice);
    GET(PFN_vkDestroyInstance, vkDestroyInstance);
    GET(PFN_vkGetDeviceProcAddr, vkGetDeviceProcAddr);
    uint32_t n = 0;
    VkPhysicalDevice pds[8];
    ldp_step(c, "vkEnumeratePhysicalDevices");
    if (vkEnumeratePhysicalDevices != NULL) {
        n = 8;
        r = vkEnumeratePhysicalDevices(inst, &n, pds);
        APP("vkEnumeratePhysicalDevices %s, %u", llp_res(r), r == VK_SUCCESS || r == VK_INCOMPLETE ? n : 0);
        if (r != VK_SUCCESS && r != VK_INCOMPLETE) n = 0;
    }
    ldp_result(c, "device_count", "%u", n);
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties props;
        memset(&props, 0, sizeof props);
        ldp_step(c, "vkGetPhysicalDeviceProperties(physical device %u)", i);
        if (vkGetPhysicalDeviceProperties) vkGetPhysicalDeviceProperties(pds[i], &props);
        APP("vkGetPhysicalDeviceProperties(%u) \"%.200s\" api %u.%u.%u vendor 0x%x device 0x%x type %d", i,
            props.deviceName, VK_API_VERSION_MAJOR(props.apiVersion), VK_API_VERSION_MINOR(props.apiVersion),
            VK_API_VERSION_PATCH(props.apiVersion), props.vendorID, props.deviceID, (int)props.deviceType);
        uint32_t qn = 0;
        ldp_step(c, "vkGetPhysicalDeviceQueueFamilyProperties(physical device %u)", i);
        if (vkGetPhysicalDeviceQueueFamilyProperties) vkGetPhysicalDeviceQueueFamilyProperties(pds[i], &qn, NULL);
        APP("vkGetPhysicalDeviceQueueFamilyProperties(%u) %u famil%s", i, qn, qn == 1 ? "y" : "ies");
    }
    if (n > 0 && vkCreateDevice != NULL) {
        float prio = 1.0f;
        VkDeviceQueueCreateInfo q = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, NULL, 0, 0, 1, &prio};
        VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, NULL, 0, 1, &q, 0, NULL, 0, NULL, NULL};
        VkDevice dev = VK_NULL_HANDLE;
        ldp_step(c, "vkCreateDevice(physical device 0)");
        r = vkCreateDevice(pds[0], &dci, ac, &dev);
        ldp_result(c, "device_result", "%d", (int)r);
        APP("vkCreateDevice %s", llp_res(r));
        if (r == VK_SUCCESS && vkGetDeviceProcAddr != NULL) {
#define DGET(type, name) type name = (type)vkGetDeviceProcAddr(dev, #name)
            PFN_vkGetDeviceQueue get_queue = (PFN_vkGetDeviceQueue)vkGetDeviceProcAddr(dev, "vkGetDeviceQueue");
            PFN_vkQueueWaitIdle queue_wait = (PFN_vkQueueWaitIdle)vkGetDeviceProcAddr(dev, "vkQueueWaitIdle");
            PFN_vkDeviceWaitIdle wait = (PFN_vkDeviceWaitIdle)vkGetDeviceProcAddr(dev, "vkDeviceWaitIdle");
            PFN_vkDestroyDevice destroy = (PFN_vkDestroyDevice)vkGetDeviceProcAddr(dev, "vkDestroyDevice");
            VkQueue queue = VK_NULL_HANDLE;
            ldp_step(c, "vkGetDeviceQueue(0, 0)");
            if (get_queue) get_queue(dev, 0, 0, &queue);
            APP("vkGetDeviceQueue(0, 0) %s", queue != VK_NULL_HANDLE ? "a queue" : "VK_NULL_HANDLE");
            VkCommandPool pool = VK_NULL_HANDLE;
            VkCommandBuffer cb = VK_NULL_HANDLE;
            DGET(PFN_vkCreateCommandPool, vkCreateCommandPool);
            DGET(PFN_vkDestroyCommandPool, vkDestroyCommandPool);
            DGET(PFN_vkAllocateCommandBuffers, vkAllocateCommandBuffers);
            DGET(PFN_vkFreeCommandBuffers, vkFreeCommandBuffers);
            DGET(PFN_vkBeginCommandBuffer, vkBeginCommandBuffer);
            DGET(PFN_vkEndCommandBuffer, vkEndCommandBuffer);
            DGET(PFN_vkQueueSubmit, vkQueueSubmit);
            if (s->commands && vkCreateCommandPool && vkDestroyCommandPool && vkAllocateCommandBuffers &&
                vkFreeCommandBuffers && vkBeginCommandBuffer && vkEndCommandBuffer && vkQueueSubmit) {
                VkCommandPoolCreateInfo pci = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, NULL, 0, 0};
                ldp_step(c, "vkCreateCommandPool");
                r = vkCreateCommandPool(dev, &pci, ac, &pool);
                APP("vkCreateCommandPool %s", llp_res(r));
                if (r == VK_SUCCESS) {
                    VkCommandBufferAllocateInfo ai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, NULL, pool,
                                                      VK_COMMAND_BUFFER_LEVEL_PRIMARY, 1};
                    ldp_step(c, "vkAllocateCommandBuffers");
                    r = vkAllocateCommandBuffers(dev, &ai, &cb);
                    APP("vkAllocateCommandBuffers %s", llp_res(r));
                    if (r != VK_SUCCESS) cb = VK_NULL_HANDLE;
                }
                if (cb != VK_NULL_HANDLE) {
                    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO, NULL, 0, NULL};
                    ldp_step(c, "vkBeginCommandBuffer");
                    APP("vkBeginCommandBuffer %s", llp_res(vkBeginCommandBuffer(cb, &bi)));
                    ldp_step(c, "vkEndCommandBuffer");
                    APP("vkEndCommandBuffer %s", llp_res(vkEndCommandBuffer(cb)));
                    if (queue != VK_NULL_HANDLE) {
                        VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO, NULL, 0, NULL, NULL, 1, &cb, 0, NULL};
                        ldp_step(c, "vkQueueSubmit");
                        APP("vkQueueSubmit %s", llp_res(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE)));
                    }
                }
            }
            ldp_step(c, "vkQueueWaitIdle");
            if (queue_wait && queue != VK_NULL_HANDLE) APP("vkQueueWaitIdle %s", llp_res(queue_wait(queue)));
            ldp_step(c, "vkDeviceWaitIdle");
            if (wait) APP("vkDeviceWaitIdle %s", llp_res(wait(dev)));
            if (cb != VK_NULL_HANDLE) {
                ldp_step(c, "vkFreeCommandBuffers");
                vkFreeCommandBuffers(dev, pool, 1, &cb);
            }
            if (pool != VK_NULL_HANDLE) {
                ldp_step(c, "vkDestroyCommandPool");
                vkDestroyCommandPool(dev, pool, ac);
            }
            ldp_step(c, "vkDestroyDevice");
            if (destroy) destroy(dev, ac);
#undef DGET
        }
    }
    ldp_step(c, "vkDestroyInstance");
    if (vkDestroyInstance) vkDestroyInstance(inst, ac);
    if (s->allocator) {
        llp_alloc_window(false);
        llp_alloc_report(c);
    }
    ldp_step(c, "workload done");
    ldp_result(c, "done", "1");
#undef GET
}
#undef APP

/* The probe directory is private (mkdtemp): every file in it goes, the layer's own files too. */
static void rm_probe_dir(const char *dir) {
    if (getenv("LLP_CHECK_KEEP_PROBES") != NULL) return; /* debugging: keep the records */
    DIR *d = opendir(dir);
    char p[PATH_MAX + 300];
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    if (d != NULL) closedir(d);
    rmdir(dir);
}

static bool same_file(const char *a, const char *b) {
    char ra[PATH_MAX], rb[PATH_MAX];
    if (a == NULL || b == NULL) return false;
    if (strcmp(a, b) == 0) return true;
    return realpath(a, ra) != NULL && realpath(b, rb) != NULL && strcmp(ra, rb) == 0;
}

/* The library named first in a crash_site value ("<library>[ (a call to ...)]"). */
static bool site_is(const char *site, const char *lib) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", site);
    char *sp = strstr(path, " (");
    if (sp != NULL) *sp = '\0';
    if (same_file(path, lib)) return true;
    /* The loader and the mock run from private copies / runfiles: compare file names too. */
    const char *a = strrchr(path, '/'), *b = lib ? strrchr(lib, '/') : NULL;
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* Who the process's death is attributed to: the run without the layer (control) is never the
 * layer's; a crash inside the reference loader or the driver is theirs (s->blame says so, and the
 * chain checks report it as not-testable-here rather than a fail of the layer). */
static void blame(struct sandwich *s, const char *how, const char *site, bool hung) {
    const char *layer_lib = s->layer ? s->layer->library_path : NULL;
    const char *driver = llp_opt->driver_manifest != NULL ? llp_opt->driver_manifest : llp_opt->icd_path;
    s->blame = LLP_BLAME_LAYER;
    if (s->without) {
        s->blame = LLP_BLAME_CONTROL;
        snprintf(s->failure, sizeof s->failure,
                 "the control run (the recording layers alone, without the layer under test) %s%s%s: the driver (%s) "
                 "or the loader %s, not the layer",
                 how, site[0] ? " in " : "", site, driver, hung ? "hung" : "crashed");
    } else if (!hung && site[0] && layer_lib != NULL && site_is(site, layer_lib)) {
        snprintf(s->failure, sizeof s->failure, "the sandwich's process %s in %s (the layer crashed)", how, site);
    } else if (!hung && site[0] && site_is(site, llp_opt->loader_path)) {
        s->blame = LLP_BLAME_LOADER;
        snprintf(s->failure, sizeof s->failure,
                 "the sandwich's process %s in the reference loader (%s), not in the layer's library", how, site);
    } else if (!hung && site[0] && llp_opt->driver_manifest == NULL && site_is(site, llp_opt->icd_path)) {
        s->blame = LLP_BLAME_DRIVER;
        snprintf(s->failure, sizeof s->failure, "the sandwich's process %s in the mock driver (%s), not in the layer",
                 how, site);
    } else if (hung) {
        snprintf(s->failure, sizeof s->failure, "the sandwich's process %s (the layer hung)", how);
    } else {
        snprintf(s->failure, sizeof s->failure, "the sandwich's process %s%s%s (the layer crashed)", how,
                 site[0] ? " in " : "", site);
    }
}

/* Prepares the probe directory, runs the workload in a probe, reads the records. */
void llp_run_sandwich(struct ldp_ctx *c, struct sandwich *s) {
    s->ran = false;
    s->blame = LLP_BLAME_NONE;
    s->instance_result = s->device_result = LLP_NO_RESULT;
    s->device_count = 0;
    s->above = s->below = NULL;
    snprintf(s->dir, sizeof s->dir, "%s/probe.XXXXXX", llp_opt->session_dir);
    if (mkdtemp(s->dir) == NULL) {
        snprintf(s->failure, sizeof s->failure, "cannot create a probe directory: %s", strerror(errno));
        return;
    }
    char above[PATH_MAX + 64], below[PATH_MAX + 64], m[PATH_MAX + 64];
    snprintf(above, sizeof above, "%s/libllp_rec_above.so", s->dir);
    snprintf(below, sizeof below, "%s/libllp_rec_below.so", s->dir);
    bool ok = copy_file(llp_opt->recording_path, above) && copy_file(llp_opt->recording_path, below);
    snprintf(m, sizeof m, "%s/above.json", s->dir);
    ok = ok && write_manifest(m, LLP_ABOVE_NAME, above);
    snprintf(m, sizeof m, "%s/below.json", s->dir);
    ok = ok && write_manifest(m, LLP_BELOW_NAME, below);
    if (!ok) {
        snprintf(s->failure, sizeof s->failure, "cannot prepare the recording layers in %.900s: %s", s->dir,
                 strerror(errno));
        rm_probe_dir(s->dir);
        return;
    }
    struct ldp_child ch;
    ldp_probe(c, probe_workload, s, &ch);
    char buf[1200];
    if (ch.kind != LDP_EXITED || ch.code != 0) {
        char d[1000], site[PATH_MAX + 64] = "";
        ldp_child_describe(&ch, d, sizeof d);
        ldp_child_get(&ch, "crash_site", site, sizeof site);
        blame(s, d, site, ch.kind == LDP_TIMED_OUT);
    } else if (ldp_child_get(&ch, "loader_error", buf, sizeof buf) != NULL) {
        snprintf(s->failure, sizeof s->failure, "the reference loader cannot be loaded: %.900s", buf);
    } else {
        s->ran = true;
    }
    llp_int(ldp_child_get(&ch, "instance_result", buf, sizeof buf), &s->instance_result);
    llp_int(ldp_child_get(&ch, "device_result", buf, sizeof buf), &s->device_result);
    llp_int(ldp_child_get(&ch, "device_count", buf, sizeof buf), &s->device_count);
    s->log = strdup(ch.err ? ch.err : "");
    s->proto = strdup(ch.out ? ch.out : "");
    ldp_child_free(&ch);
    char rec[PATH_MAX + 80];
    snprintf(rec, sizeof rec, "%s.rec", above);
    s->above = slurp(rec);
    snprintf(rec, sizeof rec, "%s.rec", below);
    s->below = slurp(rec);
    rm_probe_dir(s->dir);
}

void llp_free_sandwich(struct sandwich *s) {
    free(s->above);
    free(s->below);
    free(s->log);
    free(s->proto);
    s->above = s->below = s->log = s->proto = NULL;
}

/* The value after "key " of the first record line (after *pos) with that key, or NULL. */
const char *llp_rec_next(const char *text, const char *key, size_t *pos, char *buf, size_t len) {
    size_t klen = strlen(key);
    const char *p = text ? text + *pos : NULL;
    while (p && *p) {
        const char *eol = strchr(p, '\n');
        size_t l = eol ? (size_t)(eol - p) : strlen(p);
        const char *next = eol ? eol + 1 : p + l;
        if (l > klen && strncmp(p, key, klen) == 0 && p[klen] == ' ') {
            size_t vl = l - klen - 1 < len - 1 ? l - klen - 1 : len - 1;
            memcpy(buf, p + klen + 1, vl);
            buf[vl] = '\0';
            *pos = (size_t)(next - text);
            return buf;
        }
        p = next;
    }
    return NULL;
}

const char *llp_rec_get(const char *text, const char *key, char *buf, size_t len) {
    size_t pos = 0;
    return llp_rec_next(text, key, &pos, buf, len);
}

bool llp_int(const char *s, int *out) {
    if (s == NULL) return false;
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || errno == ERANGE || v < INT_MIN || v > INT_MAX) return false;
    *out = (int)v;
    return true;
}

const char *llp_proto_next(const char *proto, const char *key, size_t *pos, char *buf, size_t len) {
    struct ldp_child ch;
    memset(&ch, 0, sizeof ch);
    ch.out = (char *)(uintptr_t)(proto ? proto : "");
    return ldp_child_next(&ch, key, pos, buf, len);
}

/* Runs one sandwich per layer of the manifest and calls judge() for the layers that could run. */
void llp_for_each_layer(struct ldp_ctx *c, const struct sandwich *proto, llp_judge_fn judge) {
    struct llp_acc a = {0};
    bool driver_checked = false;
    char driver_failure[1300] = "";
    for (uint32_t i = 0; i < llp_man->file.count; i++) {
        const struct vkl_layer_manifest *l = &llp_man->file.layers[i];
        if (!llp_usable(&a, l)) continue;
        struct sandwich s;
        memset(&s, 0, sizeof s);
        if (proto != NULL) s = *proto;
        s.layer = l;
        /* --driver: a real driver may itself crash or hang; the control run (no layer) first, so
         * that is reported as the driver's failure and not as the layer's. */
        if (llp_opt->driver_manifest != NULL && !driver_checked) {
            driver_checked = true;
            struct sandwich ctl;
            memset(&ctl, 0, sizeof ctl);
            ctl.layer = l;
            ctl.without = true;
            llp_run_sandwich(c, &ctl);
            if (!ctl.ran) snprintf(driver_failure, sizeof driver_failure, "%s", ctl.failure);
            llp_free_sandwich(&ctl);
        }
        if (driver_failure[0]) {
            ldp_evidence(c, "%s", driver_failure);
            llp_acc_add(&a, l, LDP_NOT_TESTABLE, "the driver fails without the layer: %s", driver_failure);
            continue;
        }
        llp_run_sandwich(c, &s);
        ldp_evidence(c, "%s: workload: vkCreateInstance %s, %d physical device(s), vkCreateDevice %s",
                     l->props.layerName, llp_res((VkResult)s.instance_result), s.device_count,
                     s.device_count ? llp_res((VkResult)s.device_result) : "not called");
        if (!s.ran && s.blame != LLP_BLAME_LAYER)
            llp_acc_add(&a, l, LDP_NOT_TESTABLE, "%s", s.failure);
        else if (!s.ran)
            llp_acc_add(&a, l, LDP_FAIL, "%s", s.failure);
        else
            judge(c, &a, l, &s);
        llp_free_sandwich(&s);
    }
    llp_acc_end(c, &a);
}

/* ---- LLP_LAYER_12 / 13 ---- */

static void judge_link(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l, struct sandwich *s,
                       bool device) {
    char buf[64];
    const char *stale = llp_rec_get(s->below, device ? "device_link_stale" : "instance_link_stale", buf, sizeof buf);
    const char *cmd = device ? "vkCreateDevice" : "vkCreateInstance";
    const char *info = device ? "VkLayerDeviceCreateInfo" : "VkLayerInstanceCreateInfo";
    if (stale == NULL) {
        int r = device ? s->device_result : s->instance_result;
        if (device && s->instance_result != VK_SUCCESS)
            llp_acc_add(a, l, LDP_NOT_TESTABLE, "vkCreateInstance failed (%s)", llp_res((VkResult)s->instance_result));
        else if (device && s->device_count == 0)
            llp_acc_add(a, l, LDP_NOT_TESTABLE, "no physical device reached the application");
        else
            llp_acc_add(a, l, LDP_NOT_TESTABLE,
                        "%s never reached the layer below (%s returned %s): the layer did not call down", cmd, cmd,
                        llp_res((VkResult)r));
        return;
    }
    ldp_evidence(c, "%s: the layer below received %s link %s", l->props.layerName, info,
                 stale[0] == '1' ? "pointing at itself (the layer's own link)" : "of its own");
    if (stale[0] == '1')
        llp_acc_add(a, l, LDP_FAIL,
                    "in %s the layer below received the layer's own %s link (its pfnNextGet*ProcAddr was the layer "
                    "below itself): the link was not advanced before calling down",
                    cmd, info);
    else
        llp_acc_add(a, l, LDP_PASS, "%s: the layer below received its own %s link", cmd, info);
}

static void judge_instance_link(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                                struct sandwich *s) {
    judge_link(c, a, l, s, false);
}
static void judge_device_link(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                              struct sandwich *s) {
    judge_link(c, a, l, s, true);
}

void llp_check_chain_instance_link(struct ldp_ctx *c, void *arg) {
    (void)arg;
    llp_for_each_layer(c, NULL, judge_instance_link);
}
void llp_check_chain_device_link(struct ldp_ctx *c, void *arg) {
    (void)arg;
    llp_for_each_layer(c, NULL, judge_device_link);
}

/* ---- LLP_LAYER_21 / 22 ---- */

static void judge_untouched(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                            struct sandwich *s, bool device) {
    const char *key = device ? "create_device_entry" : "create_instance_entry";
    const char *cmd = device ? "vkCreateDevice" : "vkCreateInstance";
    const char *what = device ? "*pDevice" : "*pInstance";
    char above[64], below[64];
    const char *va = llp_rec_get(s->above, key, above, sizeof above);
    const char *vb = llp_rec_get(s->below, key, below, sizeof below);
    /* The reference loader checks the handle in its link shims and refuses the creation before
     * the layer below sees it, logging the culprit: that line is the evidence. */
    const char *tag = device ? "[LLP_LAYER_22]" : "[LLP_LAYER_21]";
    const char *line = s->log ? strstr(s->log, tag) : NULL;
    if (va != NULL && vb == NULL && line != NULL) {
        const char *bol = line;
        while (bol > s->log && bol[-1] != '\n') bol--;
        ldp_evidence(c, "loader: %.*s", (int)(line - bol + (int)strlen(tag)), bol);
        llp_acc_add(a, l, LDP_FAIL,
                    "the layer wrote %s before calling %s down: the reference loader refused the "
                    "creation before the layer below was called (%s returned %s)",
                    what, cmd, cmd, llp_res((VkResult)(device ? s->device_result : s->instance_result)));
        return;
    }
    if (va == NULL || vb == NULL) {
        if (device && s->device_count == 0)
            llp_acc_add(a, l, LDP_NOT_TESTABLE, "no physical device reached the application");
        else
            llp_acc_add(a, l, LDP_NOT_TESTABLE, "%s did not reach %s (the layer did not call down)", cmd,
                        va == NULL ? "the layer above" : "the layer below");
        return;
    }
    ldp_evidence(c, "%s: %s on entry to %s: %s in the layer above, %s in the layer below", l->props.layerName, what,
                 cmd, va, vb);
    if (strcmp(va, vb) != 0)
        llp_acc_add(a, l, LDP_FAIL,
                    "%s was %s when the layer was called and %s when the layer below was: the layer wrote "
                    "%s before calling down",
                    what, va, vb, what);
    else
        llp_acc_add(a, l, LDP_PASS, "%s reached the layer below unchanged (%s)", what, va);
}

static void judge_instance_untouched(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                                     struct sandwich *s) {
    judge_untouched(c, a, l, s, false);
}
static void judge_device_untouched(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                                   struct sandwich *s) {
    judge_untouched(c, a, l, s, true);
}

void llp_check_chain_instance_untouched(struct ldp_ctx *c, void *arg) {
    (void)arg;
    llp_for_each_layer(c, NULL, judge_instance_untouched);
}
void llp_check_chain_device_untouched(struct ldp_ctx *c, void *arg) {
    (void)arg;
    llp_for_each_layer(c, NULL, judge_device_untouched);
}

/* ---- LLP_LAYER_10 ---- */

static void judge_handles(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                          struct sandwich *s) {
    size_t pos = 0;
    char buf[300];
    int good = 0, bad = 0;
    char first[300] = "";
    while (llp_rec_next(s->below, "handle", &pos, buf, sizeof buf) != NULL) {
        /* "<command> <known 0|1> <pointer>" */
        char cmd[128] = "", num[16] = "", ptr[64] = "";
        int known = 0;
        if (sscanf(buf, "%127s %15s %63s", cmd, num, ptr) != 3 || !llp_int(num, &known)) continue;
        if (known) {
            good++;
        } else {
            if (!bad++) snprintf(first, sizeof first, "%s received %s", cmd, ptr);
            ldp_evidence(c, "%s: the layer below's %s received %s, a handle it never returned", l->props.layerName, cmd,
                         ptr);
        }
    }
    if (bad)
        llp_acc_add(a, l, LDP_FAIL,
                    "%d handle(s) passed down were not ones the layer below returned (first: %s): "
                    "a wrapped handle was not unwrapped",
                    bad, first);
    else if (good == 0)
        llp_acc_add(a, l, LDP_NOT_TESTABLE, "no handle reached the layer below");
    else
        llp_acc_add(a, l, LDP_PASS,
                    "all %d handles passed down (dispatchable ones and command pools) were ones the layer "
                    "below returned",
                    good);
}

void llp_check_chain_handles(struct ldp_ctx *c, void *arg) {
    (void)arg;
    /* With the command-buffer part of the workload: command pools reach the layer below too. */
    struct sandwich proto = {.commands = true};
    llp_for_each_layer(c, &proto, judge_handles);
}

/* ---- LLP_LAYER_16 ---- */

static bool same_set(const char *list, const struct vkl_layer_extension *ext, uint32_t n) {
    if (strcmp(list, "-") == 0) return n == 0;
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

static void judge_device_extensions(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                                    struct sandwich *s) {
    char own[900], other[200], null[200];
    /* "edep_probe <tag> <result> <count> <list>" lines of the layer above */
    size_t pos = 0;
    char buf[900];
    own[0] = other[0] = null[0] = '\0';
    while (llp_rec_next(s->above, "edep_probe", &pos, buf, sizeof buf) != NULL) {
        if (strncmp(buf, "own ", 4) == 0) snprintf(own, sizeof own, "%s", buf + 4);
        if (strncmp(buf, "other ", 6) == 0) snprintf(other, sizeof other, "%.190s", buf + 6);
        if (strncmp(buf, "null ", 5) == 0) snprintf(null, sizeof null, "%.190s", buf + 5);
    }
    if (!own[0]) {
        llp_acc_add(a, l, LDP_NOT_TESTABLE, "vkCreateDevice did not reach the layer above%s",
                    s->device_count == 0 ? " (no physical device)" : "");
        return;
    }
    int r = 0, n = 0;
    char rs[16] = "", ns[16] = "", list[800] = "-";
    sscanf(own, "%15s %15s %799s", rs, ns, list);
    llp_int(rs, &r);
    llp_int(ns, &n);
    unsigned count = (unsigned)n;
    ldp_evidence(c, "%s: vkEnumerateDeviceExtensionProperties(\"%s\") = %s, %u: %s", l->props.layerName,
                 l->props.layerName, llp_res((VkResult)r), count, list);
    bool other_down = false, null_down = false;
    pos = 0;
    while (llp_rec_next(s->below, "edep_layer", &pos, buf, sizeof buf) != NULL) {
        if (strcmp(buf, LLP_BELOW_NAME) == 0) other_down = true;
        if (strcmp(buf, "(null)") == 0) null_down = true;
    }
    ldp_evidence(c, "%s: vkEnumerateDeviceExtensionProperties(\"%s\") %s the layer below; with NULL %s",
                 l->props.layerName, LLP_BELOW_NAME, other_down ? "reached" : "did not reach",
                 null_down ? "reached it" : "did not");
    bool own_down = false;
    pos = 0;
    while (llp_rec_next(s->below, "edep_layer", &pos, buf, sizeof buf) != NULL)
        if (strcmp(buf, l->props.layerName) == 0) own_down = true;
    if (r != VK_SUCCESS && own_down && l->device_extension_count == 0)
        /* Loaders answer a query naming a layer from its manifest and never call the layer with
         * its own name, so applications do not see this; a layer that declares no device
         * extensions loses nothing. */
        llp_acc_add(
            a, l, LDP_WARN,
            "asked for its own name it passes the call down (the layer below answers %s) instead of listing its "
            "own (zero) device extensions; loaders answer such queries from the manifest",
            llp_res((VkResult)r));
    else if (r != VK_SUCCESS)
        llp_acc_add(a, l, LDP_FAIL, "asked for its own name, vkEnumerateDeviceExtensionProperties returns %s%s",
                    llp_res((VkResult)r), own_down ? " (it passed the call down)" : "");
    else if (!same_set(list, l->device_extensions, l->device_extension_count))
        llp_acc_add(a, l, LDP_FAIL,
                    "asked for its own name it lists [%s]; its manifest declares %u device extension(s)",
                    strcmp(list, "-") == 0 ? "" : list, l->device_extension_count);
    else if (!other_down)
        llp_acc_add(a, l, LDP_FAIL, "asked for another layer's name (%s) it did not pass the call down",
                    LLP_BELOW_NAME);
    else if (!null_down)
        llp_acc_add(a, l, LDP_FAIL, "asked with a NULL layer name it did not pass the call down");
    else
        llp_acc_add(a, l, LDP_PASS, "own name: its %u manifest extension(s); another name and NULL passed down",
                    l->device_extension_count);
}

void llp_check_chain_device_extensions(struct ldp_ctx *c, void *arg) {
    (void)arg;
    llp_for_each_layer(c, NULL, judge_device_extensions);
}

/* ---- LLP_LAYER_18 ---- */

/* Why no device reached the layer above, from the workload's results. */
static const char *device_why(const struct sandwich *s) {
    static char why[200];
    if (s->device_count == 0)
        snprintf(why, sizeof why, "no physical device reached the application");
    else if (s->device_result != VK_SUCCESS)
        snprintf(why, sizeof why, "vkCreateDevice through the layer returned %s", llp_res((VkResult)s->device_result));
    else
        snprintf(why, sizeof why, "vkCreateDevice did not reach the layer above's probe");
    return why;
}

static void judge_disabled(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                           struct sandwich *s) {
    int asked = 0, asked_device = 0, answered = 0;
    char first[200] = "";
    static const char *const keys[2] = {"gipa_probe", "gdpa_probe"};
    for (int k = 0; k < 2; k++) {
        size_t pos = 0;
        char buf[300];
        while (llp_rec_next(s->above, keys[k], &pos, buf, sizeof buf) != NULL) {
            char name[200] = "", num[16] = "";
            int nonnull = 0;
            if (sscanf(buf, "%199s %15s", name, num) != 2 || !llp_int(num, &nonnull)) continue;
            asked++;
            if (k) asked_device++;
            if (nonnull) {
                if (!answered++) snprintf(first, sizeof first, "%s", name);
                ldp_evidence(c, "%s: %s(%s) answered non-NULL; its extension is not enabled", l->props.layerName,
                             k ? "vkGetDeviceProcAddr" : "vkGetInstanceProcAddr", name);
            }
        }
    }
    if (answered)
        llp_acc_add(a, l, LDP_FAIL, "%d command(s) of extensions that are not enabled answered non-NULL (first: %s)",
                    answered, first);
    else if (asked == 0)
        llp_acc_add(a, l, LDP_NOT_TESTABLE, "vkCreateInstance did not succeed through the layer");
    else if (asked_device == 0)
        /* A pass needs both halves of the probe: without a device its vkGetDeviceProcAddr was never asked. */
        llp_acc_add(a, l, LDP_NOT_TESTABLE,
                    "vkGetInstanceProcAddr answered NULL for all %d instance commands, but the device half never ran: "
                    "%s",
                    asked, device_why(s));
    else
        llp_acc_add(a, l, LDP_PASS, "NULL for all %d commands of extensions that are not enabled", asked);
}

void llp_check_chain_disabled_commands(struct ldp_ctx *c, void *arg) {
    (void)arg;
    llp_for_each_layer(c, NULL, judge_disabled);
}

/* ---- LLP_LAYER_17 ---- */

static void judge_unknown_ext(struct ldp_ctx *c, struct llp_acc *a, const struct vkl_layer_manifest *l,
                              struct sandwich *s) {
    char buf[300];
    size_t pos = 0;
    bool down = false;
    while (llp_rec_next(s->below, "instance_extension", &pos, buf, sizeof buf) != NULL)
        if (strcmp(buf, LLP_INJECTED_EXTENSION) == 0) down = true;
    ldp_evidence(c, "%s: with %s enabled by the layer above: vkCreateInstance %s; the name %s the layer below",
                 l->props.layerName, LLP_INJECTED_EXTENSION, llp_res((VkResult)s->instance_result),
                 down ? "reached" : "did not reach");
    if (s->instance_result == VK_SUCCESS) {
        llp_acc_add(a, l, LDP_PASS, "vkCreateInstance succeeds with an extension name the layer does not know (%s)",
                    LLP_INJECTED_EXTENSION);
        return;
    }
    /* The control: the same sandwich without the made-up name. */
    struct sandwich ctl;
    memset(&ctl, 0, sizeof ctl);
    ctl.layer = l;
    llp_run_sandwich(c, &ctl);
    ldp_evidence(c, "%s: without it: vkCreateInstance %s%s%s", l->props.layerName,
                 llp_res((VkResult)ctl.instance_result), ctl.ran ? "" : "; then ", ctl.ran ? "" : ctl.failure);
    /* Only vkCreateInstance of the run without the made-up name matters: it returned (the process
     * may have died later, e.g. in vkCreateDevice, which does not concern this policy). */
    if (ctl.instance_result == VK_SUCCESS)
        llp_acc_add(a, l, LDP_FAIL,
                    "vkCreateInstance fails with %s when an extension it does not know (%s) is enabled, and "
                    "succeeds without it",
                    llp_res((VkResult)s->instance_result), LLP_INJECTED_EXTENSION);
    else if (ctl.instance_result == LLP_NO_RESULT)
        llp_acc_add(a, l, LDP_NOT_TESTABLE,
                    "the run without the made-up extension did not get through vkCreateInstance: %s",
                    ctl.ran ? "no result recorded" : ctl.failure);
    else
        llp_acc_add(a, l, LDP_NOT_TESTABLE,
                    "vkCreateInstance through the layer fails even without unknown extensions (%s)",
                    llp_res((VkResult)ctl.instance_result));
    llp_free_sandwich(&ctl);
}

void llp_check_chain_unknown_extensions(struct ldp_ctx *c, void *arg) {
    (void)arg;
    struct sandwich proto = {.inject = true};
    llp_for_each_layer(c, &proto, judge_unknown_ext);
}
