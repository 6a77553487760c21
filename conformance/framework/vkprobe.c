/* vkprobe: a scripted Vulkan client for the loader-agnostic conformance suite.
 *
 *   vkprobe --loader=PATH [--driver-lib=PATH]... STEP...
 *
 * dlopens the loader under test, resolves vkGetInstanceProcAddr with dlsym and every other command
 * through it, runs the steps in order and prints one JSON object per line per step. Vulkan failures
 * are data: the exit status is 0 unless the command line is wrong (2) or the loader cannot be
 * dlopened (3). The program reads no environment variable itself (it must behave the same when run
 * set-uid); only the loader under test does. Step syntax: conformance/framework/README.md.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Surface create-info types only: the WSI steps pass fake handles that no mock dereferences. */
#define VK_USE_PLATFORM_XCB_KHR
#define VK_USE_PLATFORM_XLIB_KHR
#define VK_USE_PLATFORM_WAYLAND_KHR
#include <vulkan/vulkan.h>

#include "loader/vkl_gen_results.h"

#define MAX_PHYSDEVS 64
#define MAX_DRIVER_LIBS 16
#define MAX_LIST 128 /* names in one ext= or layers= list (layers_test enables 71 layers) */

/* ------------------------------------------------------------------------------------------ */
/* JSON output                                                                                 */

static bool g_first_field;

static void put_json_string(const char *s) {
  if (s == NULL) {
    fputs("null", stdout);
    return;
  }
  putchar('"');
  static const char kSpecial[] = "\"\\\n\r\t";
  static const char *const kEscaped[] = {"\\\"", "\\\\", "\\n", "\\r", "\\t"};
  for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
    const char *special = strchr(kSpecial, *p);
    if (special != NULL) {
      fputs(kEscaped[special - kSpecial], stdout);
    } else if (*p < 0x20) {
      printf("\\u%04x", *p);
    } else {
      putchar(*p);
    }
  }
  putchar('"');
}

static void put_key(const char *key) {
  if (!g_first_field) putchar(',');
  g_first_field = false;
  put_json_string(key);
  putchar(':');
}

static void obj_begin(const char *step) {
  putchar('{');
  g_first_field = true;
  put_key("step");
  put_json_string(step);
}

static void obj_end(void) {
  fputs("}\n", stdout);
  fflush(stdout);
}

static void kv_str(const char *key, const char *value) {
  put_key(key);
  put_json_string(value);
}

static void kv_int(const char *key, long long value) {
  put_key(key);
  printf("%lld", value);
}

static void kv_bool(const char *key, bool value) {
  put_key(key);
  fputs(value ? "true" : "false", stdout);
}

/* VkResult names come from vk.xml (tools/vkgen: loader/vkl_gen_results.h). */
static const char *result_name(VkResult r) {
  const char *n = vkl_gen_result_name(r);
  if (n != NULL) return n;
  static char buf[32];
  snprintf(buf, sizeof buf, "VK_RESULT_%d", (int)r);
  return buf;
}

static void kv_result(const char *key, VkResult r) { kv_str(key, result_name(r)); }

/* What a vkCreate* call gave: RESULT_KEY, its VkResult, and HANDLE_KEY, whether the handle is set. */
static void kv_created(const char *result_key, VkResult r, const char *handle_key, bool handle) {
  kv_result(result_key, r);
  kv_bool(handle_key, handle);
}

static void kv_version(const char *key, uint32_t v) {
  char buf[48];
  if (VK_API_VERSION_VARIANT(v) != 0) {
    snprintf(buf, sizeof buf, "%u.%u.%u.%u", VK_API_VERSION_VARIANT(v), VK_API_VERSION_MAJOR(v),
             VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
  } else {
    snprintf(buf, sizeof buf, "%u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
  }
  kv_str(key, buf);
}

/* Ends the current step's line with "error":MSG. */
static void end_error(const char *msg) {
  kv_str("error", msg);
  obj_end();
}

/* end_error(MSG) unless `ok`; returns `ok`. */
static bool need(bool ok, const char *msg) {
  if (!ok) end_error(msg);
  return ok;
}

static void emit_error(const char *step, const char *msg) {
  obj_begin(step);
  end_error(msg);
}

/* ------------------------------------------------------------------------------------------ */
/* Captured debug messages                                                                      */

struct message {
  char source[16]; /* "debug-utils" | "debug-report" */
  char severity[16];
  uint32_t types; /* debug-utils message types or debug-report flags */
  char *id_name;
  char *text;
  bool during_create; /* captured before vkCreateInstance returned */
};

static struct message *g_msgs;
static size_t g_msg_count, g_msg_cap;
static bool g_in_create;

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static void push_message(const char *source, const char *severity, uint32_t types, const char *id, const char *text) {
  if (g_msg_count == g_msg_cap) {
    size_t cap = g_msg_cap ? g_msg_cap * 2 : 64;
    struct message *n = realloc(g_msgs, cap * sizeof *n);
    if (n == NULL) return;
    g_msgs = n;
    g_msg_cap = cap;
  }
  struct message *m = &g_msgs[g_msg_count++];
  snprintf(m->source, sizeof m->source, "%s", source);
  snprintf(m->severity, sizeof m->severity, "%s", severity);
  m->types = types;
  m->id_name = dup_or_null(id);
  m->text = dup_or_null(text);
  m->during_create = g_in_create;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL utils_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT types,
                                                     const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
  const char *sev = "unknown";
  if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)
    sev = "error";
  else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT)
    sev = "warning";
  else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT)
    sev = "info";
  else if (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_VERBOSE_BIT_EXT)
    sev = "verbose";
  push_message("debug-utils", sev, types, data ? data->pMessageIdName : NULL, data ? data->pMessage : NULL);
  return VK_FALSE;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL report_callback(VkDebugReportFlagsEXT flags, VkDebugReportObjectTypeEXT type,
                                                      uint64_t object, size_t location, int32_t code,
                                                      const char *layer_prefix, const char *message, void *user) {
  const char *sev = "unknown";
  if (flags & VK_DEBUG_REPORT_ERROR_BIT_EXT)
    sev = "error";
  else if (flags & (VK_DEBUG_REPORT_WARNING_BIT_EXT | VK_DEBUG_REPORT_PERFORMANCE_WARNING_BIT_EXT))
    sev = "warning";
  else if (flags & VK_DEBUG_REPORT_INFORMATION_BIT_EXT)
    sev = "info";
  else if (flags & VK_DEBUG_REPORT_DEBUG_BIT_EXT)
    sev = "verbose";
  push_message("debug-report", sev, (uint32_t)flags, layer_prefix, message);
  return VK_FALSE;
}

/* ------------------------------------------------------------------------------------------ */
/* Counting allocation callbacks                                                                */

struct live_alloc {
  void *ptr;
  size_t size;
};

static struct {
  struct live_alloc *live;
  size_t live_count, live_cap;
  uint64_t allocations, reallocations, frees, null_frees, bad_frees, bad_reallocs, failed;
  uint64_t misaligned, peak_outstanding, bytes_outstanding;
} g_alloc_stats;

static bool g_alloc_used;
/* alloc=fail:N (create-instance): the N-th allocation or reallocation request made through the
 * counting callbacks since the process began fails (returns NULL), unless a later create-instance
 * with alloc=counting disarmed it first; 0 = none. */
static uint64_t g_alloc_fail_at, g_alloc_requests;
static bool g_alloc_injected;

static bool alloc_fail_now(void) {
  ++g_alloc_requests;
  if (g_alloc_fail_at == 0 || g_alloc_requests != g_alloc_fail_at) return false;
  g_alloc_injected = true;
  ++g_alloc_stats.failed;
  return true;
}

static ssize_t live_find(void *p) {
  for (size_t i = 0; i < g_alloc_stats.live_count; ++i)
    if (g_alloc_stats.live[i].ptr == p) return (ssize_t)i;
  return -1;
}

static bool live_add(void *p, size_t size) {
  if (g_alloc_stats.live_count == g_alloc_stats.live_cap) {
    size_t cap = g_alloc_stats.live_cap ? g_alloc_stats.live_cap * 2 : 256;
    struct live_alloc *n = realloc(g_alloc_stats.live, cap * sizeof *n);
    if (n == NULL) return false;
    g_alloc_stats.live = n;
    g_alloc_stats.live_cap = cap;
  }
  g_alloc_stats.live[g_alloc_stats.live_count++] = (struct live_alloc){p, size};
  g_alloc_stats.bytes_outstanding += size;
  if (g_alloc_stats.live_count > g_alloc_stats.peak_outstanding)
    g_alloc_stats.peak_outstanding = g_alloc_stats.live_count;
  return true;
}

static void live_remove(size_t i) {
  g_alloc_stats.bytes_outstanding -= g_alloc_stats.live[i].size;
  g_alloc_stats.live[i] = g_alloc_stats.live[--g_alloc_stats.live_count];
}

static void *raw_alloc(size_t size, size_t alignment) {
  if (alignment < sizeof(void *)) alignment = sizeof(void *);
  if ((alignment & (alignment - 1)) != 0) {
    ++g_alloc_stats.misaligned; /* not a power of two: a caller bug */
    return NULL;
  }
  void *p = NULL;
  if (posix_memalign(&p, alignment, size ? size : 1) != 0) return NULL;
  return p;
}

static VKAPI_ATTR void *VKAPI_CALL counting_alloc(void *user, size_t size, size_t alignment,
                                                  VkSystemAllocationScope scope) {
  ++g_alloc_stats.allocations;
  if (alloc_fail_now()) return NULL;
  void *p = raw_alloc(size, alignment);
  if (p == NULL || !live_add(p, size)) {
    free(p);
    ++g_alloc_stats.failed;
    return NULL;
  }
  return p;
}

static VKAPI_ATTR void VKAPI_CALL counting_free(void *user, void *mem) {
  if (mem == NULL) {
    ++g_alloc_stats.null_frees;
    return;
  }
  ssize_t i = live_find(mem);
  if (i < 0) {
    ++g_alloc_stats.bad_frees; /* never ours, or freed twice: do not touch it */
    return;
  }
  ++g_alloc_stats.frees;
  live_remove((size_t)i);
  free(mem);
}

static VKAPI_ATTR void *VKAPI_CALL counting_realloc(void *user, void *orig, size_t size, size_t alignment,
                                                    VkSystemAllocationScope scope) {
  if (orig == NULL) return counting_alloc(user, size, alignment, scope);
  if (size == 0) {
    counting_free(user, orig);
    return NULL;
  }
  ++g_alloc_stats.reallocations;
  if (alloc_fail_now()) return NULL;
  ssize_t i = live_find(orig);
  if (i < 0) {
    ++g_alloc_stats.bad_reallocs;
    return NULL;
  }
  void *p = raw_alloc(size, alignment);
  if (p == NULL) {
    ++g_alloc_stats.failed;
    return NULL;
  }
  size_t old = g_alloc_stats.live[i].size;
  memcpy(p, orig, old < size ? old : size);
  live_remove((size_t)i);
  free(orig);
  if (!live_add(p, size)) {
    free(p);
    ++g_alloc_stats.failed;
    return NULL;
  }
  return p;
}

static const VkAllocationCallbacks g_counting_callbacks = {
    .pUserData = NULL,
    .pfnAllocation = counting_alloc,
    .pfnReallocation = counting_realloc,
    .pfnFree = counting_free,
};

/* ------------------------------------------------------------------------------------------ */
/* State                                                                                        */

static void *g_loader;
static PFN_vkGetInstanceProcAddr g_gipa;
static VkInstance g_instance;
static const VkAllocationCallbacks *g_allocator;
static VkPhysicalDevice g_physdevs[MAX_PHYSDEVS];
static uint32_t g_physdev_count;
static bool g_physdevs_known;
static VkDevice g_device;
static int g_device_index = -1;
static const char *g_driver_libs[MAX_DRIVER_LIBS];
static int g_driver_lib_count;

static PFN_vkVoidFunction iproc(const char *name) { return g_gipa(g_instance, name); }

#define IPROC(type, name) ((type)iproc(name))
/* Declares `PFN_<cmd> var`: vkGetInstanceProcAddr(instance, "<cmd>") (NULL when the loader has none). */
#define GIPA_VAR(var, cmd, instance) PFN_##cmd var = (PFN_##cmd)g_gipa(instance, #cmd)
/* GIPA_VAR with the probe's instance. */
#define IPROC_VAR(var, cmd) GIPA_VAR(var, cmd, g_instance)

/* iproc(name), else iproc(alias) (the extension's name for a promoted command); `which` = the name
 * asked last. */
static PFN_vkVoidFunction iproc_or_alias(const char *name, const char *alias, const char **which) {
  PFN_vkVoidFunction fn = iproc(name);
  *which = name;
  if (fn == NULL) {
    fn = iproc(alias);
    *which = alias;
  }
  return fn;
}

/* Splits `s` (modified in place) on `sep`; returns the number of pieces (empty ones dropped). */
static int split(char *s, char sep, char **out, int max) {
  int n = 0;
  char *p = s;
  while (p && *p && n < max) {
    char *q = strchr(p, sep);
    if (q) *q = '\0';
    if (*p) out[n++] = p;
    p = q ? q + 1 : NULL;
  }
  return n;
}

static bool parse_uint(const char *s, unsigned long *out) {
  if (s == NULL || *s == '\0') return false;
  char *end = NULL;
  errno = 0;
  unsigned long v = strtoul(s, &end, 0);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

/* "1.1", "1.3.0", "0.1.2.3" (variant.major.minor.patch) or a plain integer ("0"). */
static bool parse_api(const char *s, uint32_t *out) {
  unsigned a = 0, b = 0, c = 0, d = 0;
  int n = sscanf(s, "%u.%u.%u.%u", &a, &b, &c, &d);
  if (n == 4) {
    *out = VK_MAKE_API_VERSION(a, b, c, d);
  } else if (n == 3) {
    *out = VK_MAKE_API_VERSION(0, a, b, c);
  } else if (n == 2) {
    *out = VK_MAKE_API_VERSION(0, a, b, 0);
  } else if (n == 1 && strchr(s, '.') == NULL) {
    *out = a;
  } else {
    return false;
  }
  return true;
}

static const char *device_type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_OTHER:
      return "other";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "unknown";
  }
}

/* Prints "extensions":[...] for an array of VkExtensionProperties. */
static void kv_extensions(const char *key, const VkExtensionProperties *e, uint32_t n) {
  put_key(key);
  putchar('[');
  for (uint32_t i = 0; i < n; ++i) {
    if (i) putchar(',');
    fputs("{\"name\":", stdout);
    put_json_string(e[i].extensionName);
    printf(",\"spec_version\":%u}", e[i].specVersion);
  }
  putchar(']');
}

/* Prints "result", "count" and "layers" for the second call of a vkEnumerate*LayerProperties pair
 * that returned `r`: the names, or with `versions` objects with the name and both versions. */
static void kv_layers(VkResult r, const VkLayerProperties *props, uint32_t got, bool versions) {
  kv_result("result", r);
  kv_int("count", got);
  put_key("layers");
  putchar('[');
  for (uint32_t i = 0; r == VK_SUCCESS && i < got; ++i) {
    if (i) putchar(',');
    if (!versions) {
      put_json_string(props[i].layerName);
      continue;
    }
    fputs("{\"name\":", stdout);
    put_json_string(props[i].layerName);
    putchar(',');
    g_first_field = true;
    kv_version("spec_version", props[i].specVersion);
    printf(",\"implementation_version\":%u}", props[i].implementationVersion);
  }
  putchar(']');
  g_first_field = false;
}

/* Describes where a function pointer lives: "object" (file name of the ELF object holding it), and
 * "in_loader" / "in_driver" (index into --driver-lib, or -1). */
static void kv_pointer_origin(PFN_vkVoidFunction fn) {
  Dl_info info;
  memset(&info, 0, sizeof info);
  if (fn == NULL || dladdr((void *)fn, &info) == 0) {
    kv_str("object", NULL);
    return;
  }
  kv_str("object", info.dli_fname);
  Dl_info loader_info;
  void *loader_sym = dlsym(g_loader, "vkGetInstanceProcAddr");
  bool in_loader = loader_sym && dladdr(loader_sym, &loader_info) && loader_info.dli_fbase == info.dli_fbase;
  kv_bool("in_loader", in_loader);
  int driver = -1;
  for (int i = 0; i < g_driver_lib_count && driver < 0; ++i) {
    void *h = dlopen(g_driver_libs[i], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (h == NULL) continue;
    const char *probe_syms[] = {"vk_icdGetInstanceProcAddr", "vkGetInstanceProcAddr",
                                "vk_icdNegotiateLoaderICDInterfaceVersion", "mock_icd_ctl_reset"};
    for (size_t s = 0; s < sizeof probe_syms / sizeof probe_syms[0]; ++s) {
      void *sym = dlsym(h, probe_syms[s]);
      Dl_info di;
      if (sym && dladdr(sym, &di)) {
        if (di.dli_fbase == info.dli_fbase) driver = i;
        break;
      }
    }
    dlclose(h);
  }
  kv_int("in_driver", driver);
}

/* ------------------------------------------------------------------------------------------ */
/* Steps                                                                                        */

static void step_version(void) {
  obj_begin("version");
  GIPA_VAR(fn, vkEnumerateInstanceVersion, NULL);
  kv_bool("available", fn != NULL);
  if (fn) {
    uint32_t v = 0;
    VkResult r = fn(&v);
    kv_result("result", r);
    kv_version("version", v);
    kv_int("version_raw", v);
  }
  obj_end();
}

static void step_instance_extensions(const char *layer) {
  obj_begin("instance-extensions");
  kv_str("layer", layer);
  GIPA_VAR(fn, vkEnumerateInstanceExtensionProperties, NULL);
  if (!need(fn != NULL, "vkEnumerateInstanceExtensionProperties is NULL")) return;
  uint32_t count = 0;
  VkResult r = fn(layer, &count, NULL);
  kv_result("count_result", r);
  VkExtensionProperties *props = calloc(count ? count : 1, sizeof *props);
  uint32_t got = count;
  if (r == VK_SUCCESS) r = fn(layer, &got, props);
  kv_result("result", r);
  kv_int("count", got);
  kv_extensions("extensions", props, r == VK_SUCCESS || r == VK_INCOMPLETE ? got : 0);
  free(props);
  obj_end();
}

static void step_instance_layers(void) {
  obj_begin("instance-layers");
  GIPA_VAR(fn, vkEnumerateInstanceLayerProperties, NULL);
  if (!need(fn != NULL, "vkEnumerateInstanceLayerProperties is NULL")) return;
  uint32_t count = 0;
  VkResult r = fn(&count, NULL);
  VkLayerProperties *props = calloc(count ? count : 1, sizeof *props);
  uint32_t got = count;
  if (r == VK_SUCCESS) r = fn(&got, props);
  kv_layers(r, props, got, true);
  free(props);
  obj_end();
}

/* VK_LUNARG_direct_driver_loading: "direct" steps collect the VkDirectDriverLoadingListLUNARG the
 * next create-instance chains (and, unless no-ext, the extension it enables). */
#define MAX_DIRECT 16
static VkDirectDriverLoadingInfoLUNARG g_direct[MAX_DIRECT];
static uint32_t g_direct_count;
static bool g_direct_used, g_direct_no_ext, g_direct_null_drivers, g_direct_zero_count;
static VkDirectDriverLoadingModeLUNARG g_direct_mode = VK_DIRECT_DRIVER_LOADING_MODE_INCLUSIVE_LUNARG;

/* direct:LIB:MODE[:OPT,OPT...]  LIB: a driver library (dlopen'ed here, RTLD_NOW|RTLD_LOCAL, never
 * closed), "null" (an entry whose pfnGetInstanceProcAddr is NULL) or "none" (no entry); MODE:
 * inclusive, exclusive or a number; OPT: sym=NAME (the symbol passed, default
 * vk_icdGetInstanceProcAddr), no-ext, null-drivers, zero-count. */
static void step_direct(char *arg) {
  obj_begin("direct");
  char *pieces[3];
  int n = arg ? split(arg, ':', pieces, 3) : 0;
  if (!need(n >= 2, "expected LIB:MODE[:OPTS]")) return;
  const char *lib = pieces[0], *mode = pieces[1];
  const char *sym = "vk_icdGetInstanceProcAddr";
  char *opts[8];
  int nopts = n == 3 ? split(pieces[2], ',', opts, 8) : 0;
  for (int i = 0; i < nopts; ++i) {
    if (strncmp(opts[i], "sym=", 4) == 0) {
      sym = opts[i] + 4;
    } else if (strcmp(opts[i], "no-ext") == 0) {
      g_direct_no_ext = true;
    } else if (strcmp(opts[i], "null-drivers") == 0) {
      g_direct_null_drivers = true;
    } else if (strcmp(opts[i], "zero-count") == 0) {
      g_direct_zero_count = true;
    } else {
      end_error("unknown option");
      return;
    }
  }
  unsigned long num = 0;
  if (strcmp(mode, "inclusive") == 0) {
    g_direct_mode = VK_DIRECT_DRIVER_LOADING_MODE_INCLUSIVE_LUNARG;
  } else if (strcmp(mode, "exclusive") == 0) {
    g_direct_mode = VK_DIRECT_DRIVER_LOADING_MODE_EXCLUSIVE_LUNARG;
  } else if (parse_uint(mode, &num)) {
    g_direct_mode = (VkDirectDriverLoadingModeLUNARG)num;
  } else {
    end_error("bad mode");
    return;
  }
  g_direct_used = true;
  if (strcmp(lib, "none") != 0) {
    if (!need(g_direct_count < MAX_DIRECT, "too many direct drivers")) return;
    PFN_vkGetInstanceProcAddr fn = NULL;
    if (strcmp(lib, "null") != 0) {
      void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
      kv_bool("loaded", h != NULL);
      if (h == NULL) {
        end_error(dlerror());
        return;
      }
      void *p = dlsym(h, sym);
      memcpy(&fn, &p, sizeof fn);
      kv_bool("resolved", fn != NULL);
      /* The pointer as printf's %p writes it: a loader's log line may name it. */
      char text[32];
      snprintf(text, sizeof text, "%p", p);
      kv_str("pointer", text);
    }
    g_direct[g_direct_count++] = (VkDirectDriverLoadingInfoLUNARG){
        .sType = VK_STRUCTURE_TYPE_DIRECT_DRIVER_LOADING_INFO_LUNARG,
        .pfnGetInstanceProcAddr = (PFN_vkGetInstanceProcAddrLUNARG)fn,
    };
  }
  kv_int("entries", g_direct_count);
  obj_end();
}

static void step_create_instance(char *opts) {
  static char *exts[MAX_LIST], *layers[MAX_LIST];
  int ext_count = 0, layer_count = 0;
  bool with_app_info = true, portability = false, utils = false, report = false;
  uint32_t api = VK_API_VERSION_1_0;
  bool counting = false;
  char *pieces[16];
  int n = opts ? split(opts, ';', pieces, 16) : 0;
  for (int i = 0; i < n; ++i) {
    char *eq = strchr(pieces[i], '=');
    if (eq == NULL) {
      emit_error("create-instance", "option without '='");
      return;
    }
    *eq = '\0';
    const char *key = pieces[i];
    char *value = eq + 1;
    if (strcmp(key, "api") == 0) {
      if (strcmp(value, "none") == 0) {
        with_app_info = false;
      } else if (!parse_api(value, &api)) {
        emit_error("create-instance", "bad api version");
        return;
      }
    } else if (strcmp(key, "ext") == 0) {
      ext_count = split(value, ',', exts, MAX_LIST);
    } else if (strcmp(key, "layers") == 0) {
      layer_count = split(value, ',', layers, MAX_LIST);
    } else if (strcmp(key, "flags") == 0) {
      portability = strstr(value, "portability") != NULL;
    } else if (strcmp(key, "alloc") == 0) {
      counting = strcmp(value, "counting") == 0;
      if (counting) g_alloc_fail_at = 0; /* a later alloc=counting instance disarms alloc=fail:N */
      if (strncmp(value, "fail:", 5) == 0) {
        unsigned long nth = 0;
        if (!parse_uint(value + 5, &nth) || nth == 0) {
          emit_error("create-instance", "bad alloc=fail:N");
          return;
        }
        counting = true;
        g_alloc_fail_at = nth;
      }
    } else if (strcmp(key, "messenger") == 0) {
      utils = strstr(value, "debug-utils") != NULL;
      report = strstr(value, "debug-report") != NULL;
    } else {
      emit_error("create-instance", "unknown option");
      return;
    }
  }
  if (g_instance != VK_NULL_HANDLE) {
    emit_error("create-instance", "an instance already exists");
    return;
  }
  VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "vkprobe",
      .applicationVersion = 1,
      .pEngineName = "vkt",
      .engineVersion = 1,
      .apiVersion = api,
  };
  static VkDebugUtilsMessengerCreateInfoEXT utils_ci;
  static VkDebugReportCallbackCreateInfoEXT report_ci;
  const void *chain = NULL;
  if (report) {
    report_ci = (VkDebugReportCallbackCreateInfoEXT){
        .sType = VK_STRUCTURE_TYPE_DEBUG_REPORT_CALLBACK_CREATE_INFO_EXT,
        .pNext = chain,
        .flags = VK_DEBUG_REPORT_INFORMATION_BIT_EXT | VK_DEBUG_REPORT_WARNING_BIT_EXT |
                 VK_DEBUG_REPORT_PERFORMANCE_WARNING_BIT_EXT | VK_DEBUG_REPORT_ERROR_BIT_EXT |
                 VK_DEBUG_REPORT_DEBUG_BIT_EXT,
        .pfnCallback = report_callback,
    };
    chain = &report_ci;
  }
  if (utils) {
    utils_ci = (VkDebugUtilsMessengerCreateInfoEXT){
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .pNext = chain,
        .messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_VERBOSE_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_INFO_BIT_EXT |
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = utils_callback,
    };
    chain = &utils_ci;
  }
  static VkDirectDriverLoadingListLUNARG direct_list;
  if (g_direct_used) {
    direct_list = (VkDirectDriverLoadingListLUNARG){
        .sType = VK_STRUCTURE_TYPE_DIRECT_DRIVER_LOADING_LIST_LUNARG,
        .pNext = (void *)chain, /* the header declares it non-const */
        .mode = g_direct_mode,
        .driverCount = g_direct_zero_count ? 0 : g_direct_count,
        .pDrivers = g_direct_null_drivers ? NULL : g_direct,
    };
    chain = &direct_list;
    bool listed = false;
    for (int i = 0; i < ext_count; ++i)
      listed = listed || strcmp(exts[i], VK_LUNARG_DIRECT_DRIVER_LOADING_EXTENSION_NAME) == 0;
    if (!g_direct_no_ext && !listed && ext_count < MAX_LIST)
      exts[ext_count++] = (char *)VK_LUNARG_DIRECT_DRIVER_LOADING_EXTENSION_NAME;
  }
  VkInstanceCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pNext = chain,
      .flags = portability ? VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR : 0,
      .pApplicationInfo = with_app_info ? &app : NULL,
      .enabledLayerCount = (uint32_t)layer_count,
      .ppEnabledLayerNames = (const char *const *)layers,
      .enabledExtensionCount = (uint32_t)ext_count,
      .ppEnabledExtensionNames = (const char *const *)exts,
  };
  GIPA_VAR(create, vkCreateInstance, NULL);
  obj_begin("create-instance");
  if (!need(create != NULL, "vkCreateInstance is NULL")) return;
  g_allocator = counting ? &g_counting_callbacks : NULL;
  g_alloc_used = g_alloc_used || counting;
  VkInstance inst = VK_NULL_HANDLE;
  g_in_create = true;
  VkResult r = create(&ci, g_allocator, &inst);
  g_in_create = false;
  kv_result("result", r);
  if (with_app_info) kv_version("api", api);
  kv_bool("instance", inst != VK_NULL_HANDLE);
  if (g_direct_used) kv_int("direct_entries", g_direct_zero_count ? 0 : g_direct_count);
  obj_end();
  if (r == VK_SUCCESS) {
    g_instance = inst;
  } else {
    g_allocator = NULL;
  }
}

static bool need_instance(const char *step) {
  if (g_instance != VK_NULL_HANDLE) return true;
  emit_error(step, "no instance");
  return false;
}

static void step_devices(void) {
  if (!need_instance("devices")) return;
  IPROC_VAR(enumerate, vkEnumeratePhysicalDevices);
  IPROC_VAR(props_fn, vkGetPhysicalDeviceProperties);
  obj_begin("devices");
  if (!need(enumerate != NULL && props_fn != NULL,
            "vkEnumeratePhysicalDevices or vkGetPhysicalDeviceProperties is NULL")) {
    return;
  }
  uint32_t count = 0;
  VkResult r = enumerate(g_instance, &count, NULL);
  kv_result("count_result", r);
  kv_int("reported_count", count);
  if (r != VK_SUCCESS) {
    g_physdev_count = 0;
    obj_end();
    return;
  }
  if (count > 0) {
    /* The two-call idiom with a short array must give VK_INCOMPLETE. */
    VkPhysicalDevice *tmp = calloc(count, sizeof *tmp);
    uint32_t short_count = count - 1;
    VkResult ri = enumerate(g_instance, &short_count, tmp);
    kv_result("incomplete_result", ri);
    kv_int("incomplete_count", short_count);
    free(tmp);
  }
  uint32_t got = count < MAX_PHYSDEVS ? count : MAX_PHYSDEVS;
  r = enumerate(g_instance, &got, g_physdevs);
  kv_result("result", r);
  kv_int("count", got);
  g_physdev_count = (r == VK_SUCCESS || r == VK_INCOMPLETE) ? got : 0;
  g_physdevs_known = true;
  put_key("devices");
  putchar('[');
  for (uint32_t i = 0; i < g_physdev_count; ++i) {
    VkPhysicalDeviceProperties p;
    memset(&p, 0, sizeof p);
    props_fn(g_physdevs[i], &p);
    if (i) putchar(',');
    putchar('{');
    g_first_field = true;
    kv_int("index", i);
    {
      char handle[32]; /* the loader's handle, to compare across calls (hot-plug, issue 13) */
      snprintf(handle, sizeof handle, "%p", (void *)g_physdevs[i]);
      kv_str("handle", handle);
    }
    kv_str("name", p.deviceName);
    kv_version("api_version", p.apiVersion);
    kv_int("vendor_id", p.vendorID);
    kv_int("device_id", p.deviceID);
    kv_str("type", device_type_name(p.deviceType));
    kv_int("driver_version", p.driverVersion);
    putchar('}');
  }
  putchar(']');
  g_first_field = false;
  obj_end();
}

static bool physdev_arg(const char *step, const char *arg, uint32_t *index) {
  unsigned long v = 0;
  bool by_name = arg != NULL && arg[0] == '@'; /* "@NAME": the device whose deviceName is NAME */
  if (!by_name && !parse_uint(arg, &v)) {
    emit_error(step, "bad physical-device index");
    return false;
  }
  if (!need_instance(step)) return false;
  if (!g_physdevs_known) {
    IPROC_VAR(enumerate, vkEnumeratePhysicalDevices);
    uint32_t got = MAX_PHYSDEVS;
    if (enumerate && enumerate(g_instance, &got, g_physdevs) >= 0) g_physdev_count = got;
    g_physdevs_known = true;
  }
  if (by_name) {
    IPROC_VAR(props_fn, vkGetPhysicalDeviceProperties);
    v = g_physdev_count;
    for (uint32_t i = 0; props_fn != NULL && i < g_physdev_count && v == g_physdev_count; ++i) {
      VkPhysicalDeviceProperties p;
      memset(&p, 0, sizeof p);
      props_fn(g_physdevs[i], &p);
      if (strcmp(p.deviceName, arg + 1) == 0) v = i;
    }
    if (v >= g_physdev_count) {
      emit_error(step, "no physical device of that name");
      return false;
    }
  }
  if (v >= g_physdev_count) {
    emit_error(step, "physical-device index out of range");
    return false;
  }
  *index = (uint32_t)v;
  return true;
}

/* N[,LAYER]: pLayerName is LAYER when given, else NULL. */
static void step_device_extensions(char *arg) {
  char *layer = arg ? strchr(arg, ',') : NULL;
  if (layer) *layer++ = '\0';
  uint32_t idx;
  if (!physdev_arg("device-extensions", arg, &idx)) return;
  IPROC_VAR(fn, vkEnumerateDeviceExtensionProperties);
  obj_begin("device-extensions");
  kv_int("index", idx);
  kv_str("layer", layer);
  uint32_t count = 0;
  VkResult r = fn(g_physdevs[idx], layer, &count, NULL);
  kv_result("count_result", r);
  VkExtensionProperties *props = calloc(count ? count : 1, sizeof *props);
  if (r == VK_SUCCESS && count > 0) {
    /* The two-call idiom with a short array must give VK_INCOMPLETE. */
    uint32_t short_count = count - 1;
    VkResult ri = fn(g_physdevs[idx], layer, &short_count, props);
    kv_result("incomplete_result", ri);
    kv_int("incomplete_count", short_count);
    memset(props, 0, count * sizeof *props);
  }
  uint32_t got = count;
  if (r == VK_SUCCESS) r = fn(g_physdevs[idx], layer, &got, props);
  kv_result("result", r);
  kv_int("count", got);
  kv_extensions("extensions", props, r == VK_SUCCESS ? got : 0);
  free(props);
  obj_end();
}

/* device-layers:N: vkEnumerateDeviceLayerProperties(pd[N]) (deprecated; the loader answers with
 * the instance's active layers). */
static void step_device_layers(char *arg) {
  uint32_t idx;
  if (!physdev_arg("device-layers", arg, &idx)) return;
  IPROC_VAR(fn, vkEnumerateDeviceLayerProperties);
  obj_begin("device-layers");
  kv_int("index", idx);
  if (!need(fn != NULL, "vkEnumerateDeviceLayerProperties is NULL")) return;
  uint32_t count = 0;
  VkResult r = fn(g_physdevs[idx], &count, NULL);
  kv_result("count_result", r);
  VkLayerProperties *props = calloc(count ? count : 1, sizeof *props);
  uint32_t got = count;
  if (r == VK_SUCCESS) r = fn(g_physdevs[idx], &got, props);
  kv_layers(r, props, got, false);
  free(props);
  obj_end();
}

static int physdev_index_of(VkPhysicalDevice pd) {
  for (uint32_t i = 0; i < g_physdev_count; ++i)
    if (g_physdevs[i] == pd) return (int)i;
  return -1;
}

/* Prints KEY: for each of the `n` groups the list of its members, as indices into the last `devices`
 * step's list or with `handles` as the handles' "%p" text. */
static void kv_group_members(const char *key, const VkPhysicalDeviceGroupProperties *g, uint32_t n, bool handles) {
  put_key(key);
  putchar('[');
  for (uint32_t i = 0; i < n; ++i) {
    if (i) putchar(',');
    putchar('[');
    for (uint32_t j = 0; j < g[i].physicalDeviceCount; ++j) {
      if (handles)
        printf("%s\"%p\"", j ? "," : "", (void *)g[i].physicalDevices[j]);
      else
        printf("%s%d", j ? "," : "", physdev_index_of(g[i].physicalDevices[j]));
    }
    putchar(']');
  }
  putchar(']');
}

/* groups[:pnext] -- with "pnext", each group's pNext points at a structure of the made-up sType
 * VKT_PROBE_PNEXT_STYPE (a driver that knows none of it leaves it alone): what a loader hands down. */
#define VKT_PROBE_PNEXT_STYPE 1000999000
static void step_groups(const char *arg) {
  if (!need_instance("groups")) return;
  bool with_pnext = arg != NULL && strcmp(arg, "pnext") == 0;
  const char *which = NULL;
  PFN_vkEnumeratePhysicalDeviceGroups fn = (PFN_vkEnumeratePhysicalDeviceGroups)iproc_or_alias(
      "vkEnumeratePhysicalDeviceGroups", "vkEnumeratePhysicalDeviceGroupsKHR", &which);
  obj_begin("groups");
  if (!need(fn != NULL, "vkEnumeratePhysicalDeviceGroups is NULL")) return;
  kv_str("function", which);
  uint32_t count = 0;
  VkResult r = fn(g_instance, &count, NULL);
  kv_result("count_result", r);
  VkPhysicalDeviceGroupProperties *g = calloc(count ? count : 1, sizeof *g);
  VkBaseOutStructure *chain = calloc(count ? count : 1, sizeof *chain);
  for (uint32_t i = 0; i < count; ++i) {
    g[i].sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
    chain[i].sType = (VkStructureType)VKT_PROBE_PNEXT_STYPE;
    if (with_pnext) g[i].pNext = &chain[i];
  }
  uint32_t got = count;
  if (r == VK_SUCCESS) r = fn(g_instance, &got, g);
  kv_result("result", r);
  kv_int("count", got);
  uint32_t shown = r == VK_SUCCESS ? got : 0;
  kv_group_members("groups", g, shown, false);
  /* The member handles themselves (the indices above are -1 for a handle the last `devices` step
   * did not return): compared across calls when devices come and go (issue 13). */
  kv_group_members("handles", g, shown, true);
  if (with_pnext) {
    bool kept = true;
    for (uint32_t i = 0; r == VK_SUCCESS && i < got; ++i) kept = kept && g[i].pNext == &chain[i];
    kv_bool("pnext_kept", kept);
  }
  free(chain);
  free(g);
  obj_end();
}

static void step_properties2(const char *arg) {
  uint32_t idx;
  if (!physdev_arg("properties2", arg, &idx)) return;
  const char *which = NULL;
  PFN_vkGetPhysicalDeviceProperties2 fn = (PFN_vkGetPhysicalDeviceProperties2)iproc_or_alias(
      "vkGetPhysicalDeviceProperties2", "vkGetPhysicalDeviceProperties2KHR", &which);
  obj_begin("properties2");
  kv_int("index", idx);
  if (!need(fn != NULL, "vkGetPhysicalDeviceProperties2 is NULL")) return;
  kv_str("function", which);
  VkPhysicalDeviceDriverProperties drv;
  memset(&drv, 0, sizeof drv);
  drv.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  VkPhysicalDeviceProperties2 p2;
  memset(&p2, 0, sizeof p2);
  p2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  p2.pNext = &drv;
  fn(g_physdevs[idx], &p2);
  kv_str("name", p2.properties.deviceName);
  kv_version("api_version", p2.properties.apiVersion);
  kv_int("vendor_id", p2.properties.vendorID);
  kv_int("device_id", p2.properties.deviceID);
  kv_int("driver_id", drv.driverID);
  kv_str("driver_name", drv.driverName);
  kv_str("driver_info", drv.driverInfo);
  char conf[64];
  snprintf(conf, sizeof conf, "%u.%u.%u.%u", drv.conformanceVersion.major, drv.conformanceVersion.minor,
           drv.conformanceVersion.subminor, drv.conformanceVersion.patch);
  kv_str("conformance_version", conf);
  obj_end();
}

static void step_create_device(char *arg) {
  char *pieces[4];
  int n = arg ? split(arg, ';', pieces, 4) : 0;
  static char *exts[MAX_LIST];
  int ext_count = 0;
  bool maintenance5 = false;
  for (int i = 1; i < n; ++i) {
    if (strncmp(pieces[i], "ext=", 4) == 0) {
      ext_count = split(pieces[i] + 4, ',', exts, MAX_LIST);
    } else if (strcmp(pieces[i], "maintenance5") == 0) {
      maintenance5 = true;
    } else {
      emit_error("create-device", "unknown option");
      return;
    }
  }
  uint32_t idx;
  if (!physdev_arg("create-device", n ? pieces[0] : "", &idx)) return;
  if (g_device != VK_NULL_HANDLE) {
    emit_error("create-device", "a device already exists");
    return;
  }
  IPROC_VAR(create, vkCreateDevice);
  float priority = 1.0f;
  VkDeviceQueueCreateInfo q = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = 0,
      .queueCount = 1,
      .pQueuePriorities = &priority,
  };
  /* ";maintenance5": VkPhysicalDeviceMaintenance5FeaturesKHR { maintenance5 = VK_TRUE } chained
   * (sType 1000470000, then pNext, then the VkBool32: written by layout, the headers may predate
   * the structure). */
  struct {
    VkStructureType sType;
    void *pNext;
    VkBool32 maintenance5;
  } m5 = {(VkStructureType)1000470000, NULL, VK_TRUE};
  VkDeviceCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .pNext = maintenance5 ? (const void *)&m5 : NULL,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &q,
      .enabledExtensionCount = (uint32_t)ext_count,
      .ppEnabledExtensionNames = (const char *const *)exts,
  };
  obj_begin("create-device");
  kv_int("index", idx);
  VkDevice dev = VK_NULL_HANDLE;
  VkResult r = create(g_physdevs[idx], &ci, g_allocator, &dev);
  kv_created("result", r, "device", dev != VK_NULL_HANDLE);
  obj_end();
  if (r == VK_SUCCESS) {
    g_device = dev;
    g_device_index = (int)idx;
  }
}

static PFN_vkGetDeviceProcAddr loader_gdpa(void) {
  return (PFN_vkGetDeviceProcAddr)g_gipa(g_instance, "vkGetDeviceProcAddr");
}

static void step_gipa(const char *name, bool force_null) {
  obj_begin(force_null ? "gipa-null" : "gipa");
  kv_str("name", name);
  VkInstance inst = force_null ? VK_NULL_HANDLE : g_instance;
  kv_bool("with_instance", inst != VK_NULL_HANDLE);
  PFN_vkVoidFunction fn = g_gipa(inst, name);
  kv_bool("non_null", fn != NULL);
  kv_pointer_origin(fn);
  obj_end();
}

/* The messenger the messenger step creates: errors and warnings, general and validation. */
static const VkDebugUtilsMessengerCreateInfoEXT kMessengerInfo = {
    .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
    .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
    .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
    .pfnUserCallback = utils_callback,
};

/* vkCreateDebugUtilsMessengerEXT on the instance (VK_EXT_debug_utils must be enabled), then
 * vkDestroyDebugUtilsMessengerEXT: {"step":"messenger","create":R,"non_null":bool}. */
static void step_messenger(void) {
  obj_begin("messenger");
  IPROC_VAR(create, vkCreateDebugUtilsMessengerEXT);
  IPROC_VAR(destroy, vkDestroyDebugUtilsMessengerEXT);
  kv_bool("available", g_instance != VK_NULL_HANDLE && create != NULL && destroy != NULL);
  if (g_instance != VK_NULL_HANDLE && create != NULL && destroy != NULL) {
    VkDebugUtilsMessengerEXT m = VK_NULL_HANDLE;
    VkResult r = create(g_instance, &kMessengerInfo, NULL, &m);
    kv_created("create", r, "non_null", m != VK_NULL_HANDLE);
    if (r == VK_SUCCESS) destroy(g_instance, m, NULL);
  }
  obj_end();
}

/* robust:CASE -- one command called with arguments the specification forbids (a NULL count
 * pointer, a count with a NULL array, a NULL name) or allows oddly (an empty layer name). Runs on
 * its own instance (created here when a case needs one; the first physical device). Emits
 * {"step":"robust","case":C,"result":R[,"count":N,"reference_count":M]}; a crash of the loader
 * shows as the probe's exit status. */
static void step_robust(const char *which) {
  obj_begin("robust");
  kv_str("case", which ? which : "");
  GIPA_VAR(create, vkCreateInstance, VK_NULL_HANDLE);
  GIPA_VAR(eie, vkEnumerateInstanceExtensionProperties, VK_NULL_HANDLE);
  GIPA_VAR(eil, vkEnumerateInstanceLayerProperties, VK_NULL_HANDLE);
  GIPA_VAR(eiv, vkEnumerateInstanceVersion, VK_NULL_HANDLE);
  const char *null_names[1] = {NULL};
  VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  VkInstance inst = VK_NULL_HANDLE;
  VkResult r = VK_SUCCESS;
  uint32_t n = 0, ref = 0;
  bool counted = false;
  const char *w = which ? which : "";
  if (strncmp(w, "create-instance-", 16) == 0) {
    if (strcmp(w, "create-instance-layers-null-array") == 0) ci.enabledLayerCount = 1;
    if (strcmp(w, "create-instance-extensions-null-array") == 0) ci.enabledExtensionCount = 2;
    if (strcmp(w, "create-instance-null-layer-name") == 0) {
      ci.enabledLayerCount = 1;
      ci.ppEnabledLayerNames = null_names;
    }
    if (strcmp(w, "create-instance-null-extension-name") == 0) {
      ci.enabledExtensionCount = 1;
      ci.ppEnabledExtensionNames = null_names;
    }
    r = create(&ci, NULL, &inst);
    kv_bool("instance", inst != VK_NULL_HANDLE);
  } else if (strcmp(w, "instance-extensions-null-count") == 0) {
    r = eie(NULL, NULL, NULL);
  } else if (strcmp(w, "instance-extensions-empty-layer-name") == 0) {
    eie(NULL, &ref, NULL);
    r = eie("", &n, NULL);
    counted = true;
  } else if (strcmp(w, "instance-layers-null-count") == 0) {
    r = eil(NULL, NULL);
  } else if (strcmp(w, "instance-version-null") == 0) {
    r = eiv(NULL);
  } else {
    r = create(&ci, NULL, &inst);
    if (r != VK_SUCCESS) {
      kv_result("setup", r);
      obj_end();
      return;
    }
    /* The commands on this step's own instance. */
#define INST_PROC(var, cmd) GIPA_VAR(var, cmd, inst)
    INST_PROC(epd, vkEnumeratePhysicalDevices);
    INST_PROC(epg, vkEnumeratePhysicalDeviceGroups);
    INST_PROC(ede, vkEnumerateDeviceExtensionProperties);
    INST_PROC(edl, vkEnumerateDeviceLayerProperties);
    INST_PROC(cd, vkCreateDevice);
    INST_PROC(dd, vkDestroyDevice);
#undef INST_PROC
    VkPhysicalDevice pd = VK_NULL_HANDLE;
    uint32_t one = 1;
    VkResult pr = epd(inst, &one, &pd);
    if (strcmp(w, "physical-devices-null-count") == 0) {
      r = epd(inst, NULL, NULL);
    } else if (strcmp(w, "groups-null-count") == 0) {
      r = epg ? epg(inst, NULL, NULL) : VK_ERROR_EXTENSION_NOT_PRESENT;
    } else if (pd == VK_NULL_HANDLE || (pr != VK_SUCCESS && pr != VK_INCOMPLETE)) {
      kv_result("setup", pr);
    } else if (strcmp(w, "device-extensions-null-count") == 0) {
      r = ede(pd, NULL, NULL, NULL);
    } else if (strcmp(w, "device-extensions-empty-layer-name") == 0) {
      ede(pd, NULL, &ref, NULL);
      r = ede(pd, "", &n, NULL);
      counted = true;
    } else if (strcmp(w, "device-layers-null-count") == 0) {
      r = edl(pd, NULL, NULL);
    } else if (strncmp(w, "create-device-", 14) == 0) {
      float prio = 1.0f;
      VkDeviceQueueCreateInfo q = {
          .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1, .pQueuePriorities = &prio};
      VkDeviceCreateInfo dci = {
          .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &q};
      if (strcmp(w, "create-device-extensions-null-array") == 0) dci.enabledExtensionCount = 1;
      /* device layers are deprecated and ignored by the specification: a count with NULL names too */
      if (strcmp(w, "create-device-layers-null-array") == 0) dci.enabledLayerCount = 3;
      if (strcmp(w, "create-device-null-extension-name") == 0) {
        dci.enabledExtensionCount = 1;
        dci.ppEnabledExtensionNames = null_names;
      }
      VkDevice dev = VK_NULL_HANDLE;
      r = cd(pd, &dci, NULL, &dev);
      if (r == VK_SUCCESS && dev != VK_NULL_HANDLE) dd(dev, NULL);
    } else {
      emit_error("robust", "unknown case");
    }
  }
  kv_result("result", r);
  if (counted) {
    kv_int("count", n);
    kv_int("reference_count", ref);
  }
  if (inst != VK_NULL_HANDLE) ((PFN_vkDestroyInstance)g_gipa(inst, "vkDestroyInstance"))(inst, NULL);
  obj_end();
}

/* bad-handle:CMD[:words] -- CMD called with a dispatchable handle the loader never made (a readable
 * 256-byte object: zeroed, or with ":words" filled with words that are not addresses, which a
 * check that follows a pointer read from the handle dies on); emits {"step":"bad-handle","command":CMD} and flushes
 * first, then calls: a loader that validates the handle ends the process (the test reads its exit status and stderr);
 * "returned" follows only when the call came back. Commands: vkDestroyInstance,
 * vkEnumeratePhysicalDevices, vkEnumeratePhysicalDeviceGroups (instance), vkCreateDevice,
 * vkEnumerateDeviceExtensionProperties, vkEnumerateDeviceLayerProperties (physical device) with
 * their real signatures; any other exported command with the handle first and zeros after it. */
static void step_bad_handle(const char *arg) {
  static _Alignas(16) unsigned char bogus[256];
  memset(bogus, 0, sizeof bogus);
  char cmd_buf[128];
  const char *cmd = arg;
  const char *colon = arg != NULL ? strchr(arg, ':') : NULL;
  if (colon != NULL && strcmp(colon + 1, "words") == 0 && (size_t)(colon - arg) < sizeof cmd_buf) {
    memcpy(cmd_buf, arg, (size_t)(colon - arg));
    cmd_buf[colon - arg] = '\0';
    cmd = cmd_buf;
    for (size_t i = 0; i < sizeof bogus / sizeof(uint64_t); i++) {
      uint64_t w = 0xA5A5A5A5A5A5A5A5ull ^ (uint64_t)i; /* non-canonical on x86-64: never an address */
      memcpy(bogus + i * sizeof w, &w, sizeof w);
    }
  }
  obj_begin("bad-handle");
  kv_str("command", cmd ? cmd : "");
  obj_end();
  fflush(stdout);
  VkInstance inst = (VkInstance)(void *)bogus;
  VkPhysicalDevice pd = (VkPhysicalDevice)(void *)bogus;
  uint32_t n = 0;
  VkResult r = VK_SUCCESS;
  const char *c = cmd ? cmd : "";
  if (strcmp(c, "vkDestroyInstance") == 0) {
    ((PFN_vkDestroyInstance)dlsym(g_loader, c))(inst, NULL);
  } else if (strcmp(c, "vkEnumeratePhysicalDevices") == 0) {
    r = ((PFN_vkEnumeratePhysicalDevices)dlsym(g_loader, c))(inst, &n, NULL);
  } else if (strcmp(c, "vkEnumeratePhysicalDeviceGroups") == 0) {
    r = ((PFN_vkEnumeratePhysicalDeviceGroups)dlsym(g_loader, c))(inst, &n, NULL);
  } else if (strcmp(c, "vkCreateDevice") == 0) {
    VkDeviceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    VkDevice dev = VK_NULL_HANDLE;
    r = ((PFN_vkCreateDevice)dlsym(g_loader, c))(pd, &ci, NULL, &dev);
  } else if (strcmp(c, "vkEnumerateDeviceExtensionProperties") == 0) {
    r = ((PFN_vkEnumerateDeviceExtensionProperties)dlsym(g_loader, c))(pd, NULL, &n, NULL);
  } else if (strcmp(c, "vkEnumerateDeviceLayerProperties") == 0) {
    r = ((PFN_vkEnumerateDeviceLayerProperties)dlsym(g_loader, c))(pd, &n, NULL);
  } else {
    /* Any other exported command whose first parameter is a dispatchable handle: called with the
     * bogus handle first and zeros after it. The loader must end the process on the handle before
     * it looks at anything else; one that does not validate crashes or returns (both visible). */
    void *sym = dlsym(g_loader, c);
    if (sym == NULL) {
      emit_error("bad-handle", "unknown command");
      return;
    }
    typedef uintptr_t (*generic_fn)(void *, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t);
    generic_fn fn;
    memcpy(&fn, &sym, sizeof fn);
    r = (VkResult)fn(bogus, 0, 0, 0, 0, 0);
  }
  obj_begin("bad-handle-returned");
  kv_result("returned", r);
  obj_end();
}

/* mock-scenario:N:JSON -- replaces the scenario of the N-th --driver-lib (a mock ICD the loader has
 * loaded) through its control API (mock_icd_ctl_load_scenario), between two calls: a driver that
 * changes, e.g. its instance extensions or Vulkan version, between two instances. Emits
 * {"step":"mock-scenario","driver":N,"loaded":bool,"result":0|-1}. */
static void step_mock_scenario(const char *arg) {
  obj_begin("mock-scenario");
  char *end = NULL;
  long n = arg ? strtol(arg, &end, 10) : -1;
  if (!need(arg != NULL && end != arg && *end == ':' && n >= 0 && n < g_driver_lib_count,
            "usage: mock-scenario:N:JSON"))
    return;
  kv_int("driver", (int)n);
  void *h = dlopen(g_driver_libs[n], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  kv_bool("loaded", h != NULL);
  int (*load)(const char *) = NULL;
  if (h != NULL) {
    void *sym = dlsym(h, "mock_icd_ctl_load_scenario");
    memcpy(&load, &sym, sizeof load);
  }
  kv_int("result", load != NULL ? load(end + 1) : -1);
  if (h != NULL) dlclose(h);
  obj_end();
}

/* The driver's own vkGetDeviceProcAddr, found without the loader's help. */
static PFN_vkGetDeviceProcAddr driver_gdpa(int driver) {
  void *h = dlopen(g_driver_libs[driver], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  if (h == NULL) return NULL;
  PFN_vkGetDeviceProcAddr fn = (PFN_vkGetDeviceProcAddr)dlsym(h, "vkGetDeviceProcAddr");
  if (fn == NULL) {
    PFN_vkGetInstanceProcAddr icd_gipa = (PFN_vkGetInstanceProcAddr)dlsym(h, "vk_icdGetInstanceProcAddr");
    if (icd_gipa == NULL) icd_gipa = (PFN_vkGetInstanceProcAddr)dlsym(h, "vkGetInstanceProcAddr");
    if (icd_gipa) fn = (PFN_vkGetDeviceProcAddr)icd_gipa(VK_NULL_HANDLE, "vkGetDeviceProcAddr");
  }
  dlclose(h); /* the loader still holds it: NOLOAD only took an extra reference */
  return fn;
}

static void step_gdpa(const char *name) {
  obj_begin("gdpa");
  kv_str("name", name);
  if (!need(g_device != VK_NULL_HANDLE, "no device")) return;
  PFN_vkGetDeviceProcAddr gdpa = loader_gdpa();
  PFN_vkVoidFunction fn = gdpa ? gdpa(g_device, name) : NULL;
  kv_bool("non_null", fn != NULL);
  kv_pointer_origin(fn);
  int equal = -1;
  bool driver_known = false;
  for (int i = 0; i < g_driver_lib_count; ++i) {
    PFN_vkGetDeviceProcAddr d = driver_gdpa(i);
    if (d == NULL) continue;
    driver_known = true;
    PFN_vkVoidFunction own = d(g_device, name);
    if (own != NULL && own == fn) equal = i;
  }
  kv_bool("driver_pointer_known", driver_known);
  kv_int("equals_driver", equal);
  obj_end();
}

/* The handle a command the loader does not know is called with: the current device, or physical
 * device PHYSDEV (an index or @NAME, as physdev_arg). False, with the step's error line, when
 * there is none. */
static bool unknown_target(const char *step, bool device, const char *physdev, void **handle) {
  if (!need_instance(step)) return false;
  if (!device) {
    uint32_t idx = 0;
    if (!physdev_arg(step, physdev, &idx)) return false;
    *handle = g_physdevs[idx];
    return true;
  }
  if (g_device == VK_NULL_HANDLE) {
    emit_error(step, "no device");
    return false;
  }
  *handle = g_device;
  return true;
}

/* Calls `fn` as uint32_t fn(handle, arg) (mock_icd_ctl.h's signature of the made-up commands). */
static uint32_t call_unknown(PFN_vkVoidFunction fn, void *handle, uint32_t arg) {
  typedef uint32_t (*unknown_fn)(void *, uint32_t);
  return ((unknown_fn)(void (*)(void))fn)(handle, arg);
}

/* Prints "returned": what each of the `count` pointers returned when called with `handle` and
 * `arg` (null for a NULL pointer); returns how many were called. */
static unsigned long kv_unknown_returns(const PFN_vkVoidFunction *fns, unsigned long count, void *handle,
                                        uint32_t arg) {
  unsigned long called = 0;
  put_key("returned");
  putchar('[');
  for (unsigned long i = 0; i < count; ++i) {
    if (i) putchar(',');
    if (fns[i] == NULL) {
      fputs("null", stdout);
      continue;
    }
    ++called;
    printf("%u", call_unknown(fns[i], handle, arg));
  }
  putchar(']');
  return called;
}

/* NAME,ARG[,via] for devices (via = gdpa|gipa); NAME,ARG[,N] for physical devices. */
static void step_call_unknown(char *arg, bool device) {
  const char *step = device ? "call-unknown-device" : "call-unknown-physdev";
  char *pieces[3];
  int n = arg ? split(arg, ',', pieces, 3) : 0;
  unsigned long x = 0;
  if (n < 2 || !parse_uint(pieces[1], &x)) {
    emit_error(step, "expected NAME,ARG");
    return;
  }
  void *handle = NULL;
  if (!unknown_target(step, device, n >= 3 ? pieces[2] : "0", &handle)) return;
  const char *via = "gipa";
  PFN_vkVoidFunction fn = NULL;
  if (device && (n < 3 || strcmp(pieces[2], "gdpa") == 0)) {
    via = "gdpa";
    PFN_vkGetDeviceProcAddr gdpa = loader_gdpa();
    fn = gdpa ? gdpa(g_device, pieces[0]) : NULL;
  } else {
    fn = g_gipa(g_instance, pieces[0]);
  }
  obj_begin(step);
  kv_str("name", pieces[0]);
  kv_str("via", via);
  kv_bool("non_null", fn != NULL);
  if (fn != NULL) kv_int("returned", call_unknown(fn, handle, (uint32_t)x));
  obj_end();
}

/* unknown-many:device|physdev,PREFIX,COUNT,ARG: resolves PREFIX0..PREFIX<COUNT-1> (all names first,
 * then calls), prints the returned values (null where the pointer was NULL). */
static void step_unknown_many(char *arg) {
  char *pieces[4];
  int n = arg ? split(arg, ',', pieces, 4) : 0;
  unsigned long count = 0, x = 0;
  if (n != 4 || !parse_uint(pieces[2], &count) || !parse_uint(pieces[3], &x) || count > 4096) {
    emit_error("unknown-many", "expected device|physdev,PREFIX,COUNT,ARG");
    return;
  }
  bool device = strcmp(pieces[0], "device") == 0;
  void *handle = NULL;
  if (!unknown_target("unknown-many", device, "0", &handle)) return;
  PFN_vkGetDeviceProcAddr gdpa = device ? loader_gdpa() : NULL;
  PFN_vkVoidFunction *fns = calloc(count ? count : 1, sizeof *fns);
  char name[256];
  for (unsigned long i = 0; i < count; ++i) {
    snprintf(name, sizeof name, "%s%lu", pieces[1], i);
    fns[i] = device ? (gdpa ? gdpa(g_device, name) : NULL) : g_gipa(g_instance, name);
  }
  obj_begin("unknown-many");
  kv_str("kind", device ? "device" : "physdev");
  kv_str("prefix", pieces[1]);
  kv_int("count", (long long)count);
  unsigned long resolved = kv_unknown_returns(fns, count, handle, (uint32_t)x);
  kv_int("resolved", (long long)resolved);
  free(fns);
  obj_end();
}

/* resolve-unknown:PREFIX,COUNT[,FIRST]: vkGetInstanceProcAddr(instance, PREFIX<FIRST+i>) for
 * i < COUNT, kept for call-resolved (so a name can be resolved before the device it is called on
 * exists). "null" lists the i of the NULL pointers. */
static PFN_vkVoidFunction *g_resolved;
static unsigned long g_resolved_count;

static void step_resolve_unknown(char *arg) {
  char *pieces[3];
  int n = arg ? split(arg, ',', pieces, 3) : 0;
  unsigned long count = 0, first_index = 0;
  if (n < 2 || !parse_uint(pieces[1], &count) || count > 4096 || (n == 3 && !parse_uint(pieces[2], &first_index))) {
    emit_error("resolve-unknown", "expected PREFIX,COUNT[,FIRST]");
    return;
  }
  if (!need_instance("resolve-unknown")) return;
  free(g_resolved);
  g_resolved = calloc(count ? count : 1, sizeof *g_resolved);
  g_resolved_count = g_resolved ? count : 0;
  char name[256];
  unsigned long resolved = 0;
  obj_begin("resolve-unknown");
  kv_str("prefix", pieces[0]);
  kv_int("count", (long long)g_resolved_count);
  put_key("null");
  putchar('[');
  bool first = true;
  for (unsigned long i = 0; i < g_resolved_count; ++i) {
    snprintf(name, sizeof name, "%s%lu", pieces[0], first_index + i);
    g_resolved[i] = g_gipa(g_instance, name);
    if (g_resolved[i] != NULL) {
      ++resolved;
    } else {
      printf(first ? "%lu" : ",%lu", i);
      first = false;
    }
  }
  putchar(']');
  kv_int("resolved", (long long)resolved);
  obj_end();
}

/* call-resolved:device|physdev[,ARG]: calls every pointer of the last resolve-unknown with the
 * current device / physical device 0; "returned" as in unknown-many. */
static void step_call_resolved(char *arg) {
  char *pieces[2];
  int n = arg ? split(arg, ',', pieces, 2) : 0;
  unsigned long x = 0;
  if (n < 1 || (n == 2 && !parse_uint(pieces[1], &x))) {
    emit_error("call-resolved", "expected device|physdev[,ARG]");
    return;
  }
  bool device = strcmp(pieces[0], "device") == 0;
  void *handle = NULL;
  if (!unknown_target("call-resolved", device, "0", &handle)) return;
  obj_begin("call-resolved");
  kv_str("kind", device ? "device" : "physdev");
  kv_unknown_returns(g_resolved, g_resolved_count, handle, (uint32_t)x);
  obj_end();
}

/* dispatch-words: the first pointer-sized word of the current VkDevice, of its queue (0,0) and of a
 * command buffer (through the loader's vkGetDeviceProcAddr): whether each is still
 * ICD_LOADER_MAGIC, NULL, and whether queue/command buffer carry the same word as the device. */
static void step_dispatch_words(void) {
  obj_begin("dispatch-words");
  if (!need(g_device != VK_NULL_HANDLE, "no device")) return;
  const uint64_t magic = 0x01CDC0DEu; /* ICD_LOADER_MAGIC (vk_icd.h) */
  PFN_vkGetDeviceProcAddr gdpa = loader_gdpa();
  uintptr_t dev_word = *(const uintptr_t *)(const void *)g_device;
  kv_bool("device_magic", dev_word == magic);
  kv_bool("device_null", dev_word == 0);
  PFN_vkGetDeviceQueue get_queue = gdpa ? (PFN_vkGetDeviceQueue)gdpa(g_device, "vkGetDeviceQueue") : NULL;
  VkQueue queue = VK_NULL_HANDLE;
  if (get_queue) get_queue(g_device, 0, 0, &queue);
  kv_bool("queue", queue != VK_NULL_HANDLE);
  if (queue != VK_NULL_HANDLE) {
    uintptr_t w = *(const uintptr_t *)(const void *)queue;
    kv_bool("queue_magic", w == magic);
    kv_bool("queue_same_as_device", w == dev_word);
  }
  PFN_vkCreateCommandPool create_pool = gdpa ? (PFN_vkCreateCommandPool)gdpa(g_device, "vkCreateCommandPool") : NULL;
  PFN_vkDestroyCommandPool destroy_pool =
      gdpa ? (PFN_vkDestroyCommandPool)gdpa(g_device, "vkDestroyCommandPool") : NULL;
  PFN_vkAllocateCommandBuffers alloc_cb =
      gdpa ? (PFN_vkAllocateCommandBuffers)gdpa(g_device, "vkAllocateCommandBuffers") : NULL;
  PFN_vkFreeCommandBuffers free_cb = gdpa ? (PFN_vkFreeCommandBuffers)gdpa(g_device, "vkFreeCommandBuffers") : NULL;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  if (create_pool && destroy_pool && alloc_cb && free_cb) {
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = 0};
    if (create_pool(g_device, &pci, g_allocator, &pool) == VK_SUCCESS) {
      VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = pool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                        .commandBufferCount = 1};
      if (alloc_cb(g_device, &ai, &cb) != VK_SUCCESS) cb = VK_NULL_HANDLE;
    }
  }
  kv_bool("command_buffer", cb != VK_NULL_HANDLE);
  if (cb != VK_NULL_HANDLE) {
    uintptr_t w = *(const uintptr_t *)(const void *)cb;
    kv_bool("command_buffer_magic", w == magic);
    kv_bool("command_buffer_same_as_device", w == dev_word);
    free_cb(g_device, pool, 1, &cb);
  }
  if (pool != VK_NULL_HANDLE) destroy_pool(g_device, pool, g_allocator);
  obj_end();
}

/* command-buffers[:export]: device-level work on g_device: vkGetDeviceQueue (and vkGetDeviceQueue2
 * when offered) for family 0 index 0, a command pool on family 0, two primary command buffers each
 * begun, given one vkCmdFillBuffer (data 7 and 8) and ended, one vkQueueSubmit of both, then freed
 * and the pool destroyed. Commands come from the loader's vkGetDeviceProcAddr, or with "export" from
 * the loader's exported symbols (dlsym), whose trampolines dispatch through the objects' first word. */
static void step_command_buffers(const char *arg) {
  bool exported = arg != NULL && strcmp(arg, "export") == 0;
  obj_begin("command-buffers");
  kv_str("via", exported ? "export" : "gdpa");
  if (!need(g_device != VK_NULL_HANDLE, "no device")) return;
  PFN_vkGetDeviceProcAddr gdpa = loader_gdpa();
#define CB_PROC(type, name) \
  type name##_fn = exported ? (type)dlsym(g_loader, #name) : gdpa ? (type)gdpa(g_device, #name) : NULL
  CB_PROC(PFN_vkGetDeviceQueue, vkGetDeviceQueue);
  CB_PROC(PFN_vkGetDeviceQueue2, vkGetDeviceQueue2);
  CB_PROC(PFN_vkCreateCommandPool, vkCreateCommandPool);
  CB_PROC(PFN_vkDestroyCommandPool, vkDestroyCommandPool);
  CB_PROC(PFN_vkAllocateCommandBuffers, vkAllocateCommandBuffers);
  CB_PROC(PFN_vkFreeCommandBuffers, vkFreeCommandBuffers);
  CB_PROC(PFN_vkBeginCommandBuffer, vkBeginCommandBuffer);
  CB_PROC(PFN_vkCmdFillBuffer, vkCmdFillBuffer);
  CB_PROC(PFN_vkEndCommandBuffer, vkEndCommandBuffer);
  CB_PROC(PFN_vkQueueSubmit, vkQueueSubmit);
#undef CB_PROC
  const uintptr_t dev_word = *(const uintptr_t *)(const void *)g_device;
  VkQueue queue = VK_NULL_HANDLE, queue2 = VK_NULL_HANDLE;
  if (vkGetDeviceQueue_fn) vkGetDeviceQueue_fn(g_device, 0, 0, &queue);
  kv_bool("queue", queue != VK_NULL_HANDLE);
  if (queue != VK_NULL_HANDLE)
    kv_bool("queue_dispatch_same_as_device", *(const uintptr_t *)(const void *)queue == dev_word);
  kv_bool("queue2_offered", vkGetDeviceQueue2_fn != NULL);
  if (vkGetDeviceQueue2_fn) {
    VkDeviceQueueInfo2 qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_INFO_2, .queueFamilyIndex = 0, .queueIndex = 0};
    vkGetDeviceQueue2_fn(g_device, &qi, &queue2);
    kv_bool("queue2", queue2 != VK_NULL_HANDLE);
    kv_bool("queue2_same_as_queue", queue2 == queue);
  }
  bool all = vkCreateCommandPool_fn && vkDestroyCommandPool_fn && vkAllocateCommandBuffers_fn &&
             vkFreeCommandBuffers_fn && vkBeginCommandBuffer_fn && vkCmdFillBuffer_fn && vkEndCommandBuffer_fn &&
             vkQueueSubmit_fn;
  kv_bool("commands", all);
  if (!all || queue == VK_NULL_HANDLE) {
    obj_end();
    return;
  }
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = 0};
  VkResult r = vkCreateCommandPool_fn(g_device, &pci, g_allocator, &pool);
  kv_result("create_pool", r);
  if (r != VK_SUCCESS) {
    obj_end();
    return;
  }
  VkCommandBuffer cbs[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 2};
  r = vkAllocateCommandBuffers_fn(g_device, &ai, cbs);
  kv_result("allocate", r);
  if (r == VK_SUCCESS) {
    bool same = true;
    for (int i = 0; i < 2; i++)
      same = same && cbs[i] != VK_NULL_HANDLE && *(const uintptr_t *)(const void *)cbs[i] == dev_word;
    kv_bool("command_buffer_dispatch_same_as_device", same);
    VkResult begin = VK_SUCCESS, end = VK_SUCCESS;
    for (uint32_t i = 0; i < 2; i++) {
      VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      VkResult b = vkBeginCommandBuffer_fn(cbs[i], &bi);
      if (b != VK_SUCCESS) begin = b;
      vkCmdFillBuffer_fn(cbs[i], VK_NULL_HANDLE, 0, 64, 7 + i);
      VkResult e = vkEndCommandBuffer_fn(cbs[i]);
      if (e != VK_SUCCESS) end = e;
    }
    kv_result("begin", begin);
    kv_result("end", end);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 2, .pCommandBuffers = cbs};
    kv_result("submit", vkQueueSubmit_fn(queue, 1, &si, VK_NULL_HANDLE));
    vkFreeCommandBuffers_fn(g_device, pool, 2, cbs);
  }
  vkDestroyCommandPool_fn(g_device, pool, g_allocator);
  obj_end();
}

/* write-file:PATH:CONTENT: test-only; replaces the file's content in place (same inode) between two
 * Vulkan calls, e.g. to change a manifest the loader has already read. PATH must not contain ':'. */
static void step_write_file(const char *arg) {
  obj_begin("write-file");
  const char *colon = arg ? strchr(arg, ':') : NULL;
  if (!need(colon != NULL && colon != arg, "expected PATH:CONTENT")) return;
  char path[4096];
  snprintf(path, sizeof path, "%.*s", (int)(colon - arg), arg);
  kv_str("path", path);
  FILE *f = fopen(path, "w");
  bool ok = f != NULL && fputs(colon + 1, f) >= 0;
  if (f != NULL && fclose(f) != 0) ok = false;
  kv_bool("ok", ok);
  obj_end();
}

/* replace-file:DST:SRC: test-only; copies SRC next to DST and renames it over DST (a new inode, as
 * package managers replace libraries), e.g. to change a driver library the loader has opened.
 * Neither path may contain ':'. */
static void step_replace_file(const char *arg) {
  obj_begin("replace-file");
  const char *colon = arg ? strchr(arg, ':') : NULL;
  if (!need(colon != NULL && colon != arg && colon[1] != '\0', "expected DST:SRC")) return;
  char dst[4096], tmp[4200];
  snprintf(dst, sizeof dst, "%.*s", (int)(colon - arg), arg);
  snprintf(tmp, sizeof tmp, "%s.vkprobe-tmp", dst);
  kv_str("path", dst);
  FILE *in = fopen(colon + 1, "rb");
  FILE *out = in != NULL ? fopen(tmp, "wb") : NULL;
  bool ok = in != NULL && out != NULL;
  char buf[65536];
  size_t n;
  while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, out) == n;
  if (in != NULL) fclose(in);
  if (out != NULL && fclose(out) != 0) ok = false;
  if (ok) ok = chmod(tmp, 0755) == 0 && rename(tmp, dst) == 0;
  kv_bool("ok", ok);
  obj_end();
}

/* Reads the whole of `path` into a malloc'd buffer (*len bytes); NULL on failure. */
static char *slurp(const char *path, size_t *len) {
  FILE *in = fopen(path, "rb");
  if (in == NULL) return NULL;
  char *buf = NULL;
  size_t cap = 0, n = 0, got = 0;
  bool ok = true;
  do {
    if (n == cap) {
      char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);
      if (nb == NULL) {
        ok = false;
        break;
      }
      buf = nb;
    }
    got = fread(buf + n, 1, cap - n, in);
    n += got;
  } while (got > 0);
  if (ferror(in)) ok = false;
  fclose(in);
  if (!ok) {
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

static bool write_all(int fd, const char *buf, size_t len) {
  while (len > 0) {
    ssize_t w = write(fd, buf, len);
    if (w <= 0) return false;
    buf += w;
    len -= (size_t)w;
  }
  return true;
}

/* change-file:HOW:DST:SRC: test-only; gives DST the bytes of SRC the way a tool does, between two
 * Vulkan calls (e.g. a driver library the loader keeps loaded). HOW: "cp" (open(O_TRUNC) + write:
 * same inode, as cp(1) over an existing file), "truncate" (ftruncate to 0, then write: same inode),
 * "overwrite" (write from offset 0, then ftruncate to the new length: same inode, as dd
 * conv=notrunc), "install" (unlink, then create: a new inode, as install(1) and most linkers),
 * "mv" (a copy written next to DST, then renamed over it: a new inode, as mv(1) and build systems
 * that write a temporary file). Prints whether DST kept its inode. Neither path may contain ':'. */
static void step_change_file(const char *arg) {
  obj_begin("change-file");
  const char *c1 = arg ? strchr(arg, ':') : NULL;
  const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  if (!need(c1 != NULL && c2 != NULL && c2[1] != '\0', "expected HOW:DST:SRC")) return;
  char how[32], dst[4096], tmp[4200];
  snprintf(how, sizeof how, "%.*s", (int)(c1 - arg), arg);
  snprintf(dst, sizeof dst, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
  kv_str("how", how);
  kv_str("path", dst);
  size_t len = 0;
  char *bytes = slurp(c2 + 1, &len);
  struct stat before, after;
  bool ok = bytes != NULL && stat(dst, &before) == 0;
  if (ok && strcmp(how, "cp") == 0) {
    int fd = open(dst, O_WRONLY | O_TRUNC | O_CLOEXEC);
    ok = fd >= 0 && write_all(fd, bytes, len);
    if (fd >= 0 && close(fd) != 0) ok = false;
  } else if (ok && (strcmp(how, "truncate") == 0 || strcmp(how, "overwrite") == 0)) {
    bool first = strcmp(how, "truncate") == 0;
    int fd = open(dst, O_WRONLY | O_CLOEXEC);
    ok = fd >= 0 && (!first || ftruncate(fd, 0) == 0) && write_all(fd, bytes, len) &&
         (first || ftruncate(fd, (off_t)len) == 0);
    if (fd >= 0 && close(fd) != 0) ok = false;
  } else if (ok && (strcmp(how, "install") == 0 || strcmp(how, "mv") == 0)) {
    bool mv = strcmp(how, "mv") == 0;
    snprintf(tmp, sizeof tmp, "%s.vkprobe-mv", dst);
    const char *target = mv ? tmp : dst;
    ok = mv || unlink(dst) == 0;
    int fd = ok ? open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755) : -1;
    ok = fd >= 0 && write_all(fd, bytes, len);
    if (fd >= 0 && close(fd) != 0) ok = false;
    if (ok && mv) ok = rename(tmp, dst) == 0;
  } else if (ok) {
    ok = need(false, "HOW is one of cp, truncate, overwrite, install, mv");
    free(bytes);
    return;
  }
  free(bytes);
  if (ok) ok = stat(dst, &after) == 0;
  kv_bool("ok", ok);
  if (ok) kv_bool("same_inode", before.st_dev == after.st_dev && before.st_ino == after.st_ino);
  obj_end();
}

/* remove-file:PATH: test-only; deletes PATH between two Vulkan calls, e.g. a manifest the loader
 * already read. */
static void step_remove_file(const char *arg) {
  obj_begin("remove-file");
  kv_str("path", arg);
  kv_bool("ok", arg != NULL && *arg != '\0' && unlink(arg) == 0);
  obj_end();
}

/* ---- WSI: surfaces with fake platform handles, queries, swapchains ---- */

/* The two-call idiom on a local array: FN(ARGS..., &N, NULL) printed as COUNT_KEY, then N capped at
 * the array's length and FN(ARGS..., &N, ARRAY) printed as RESULT_KEY. */
#define TWO_CALL(count_key, result_key, n, array, fn, ...)          \
  do {                                                              \
    kv_result(count_key, fn(__VA_ARGS__, &(n), NULL));              \
    uint32_t cap_ = (uint32_t)(sizeof(array) / sizeof((array)[0])); \
    if ((n) > cap_) (n) = cap_;                                     \
    kv_result(result_key, fn(__VA_ARGS__, &(n), (array)));          \
  } while (0)

/* Zeroes `count` output structures of `size` bytes at `array` and sets the sType (the first member)
 * of each. */
static void init_stype(void *array, size_t count, size_t size, VkStructureType type) {
  memset(array, 0, count * size);
  for (size_t i = 0; i < count; ++i) memcpy((char *)array + i * size, &type, sizeof type);
}
static VkSurfaceKHR g_surface;

/* create-surface:KIND[,export]: KIND's vkCreate*Surface* through GIPA, or with ",export" the
 * loader's exported symbol (dlsym), which must also work when GIPA would answer NULL. */
static PFN_vkVoidFunction surface_proc(const char *name, bool exported) {
  return exported ? (PFN_vkVoidFunction)dlsym(g_loader, name) : iproc(name);
}

/* resolved = whether CMD (a vkCreate*Surface* command, through surface_proc) is there; when it is,
 * r = CMD(g_instance, &CI, g_allocator, &surface). */
#define CREATE_SURFACE(cmd, ci)                                                  \
  do {                                                                           \
    PFN_##cmd f = (PFN_##cmd)surface_proc(#cmd, exported);                       \
    if ((resolved = f != NULL)) r = f(g_instance, &(ci), g_allocator, &surface); \
  } while (0)

static void step_create_surface(const char *arg) {
  char kind[32] = "";
  bool exported = false;
  if (arg != NULL) {
    snprintf(kind, sizeof kind, "%s", arg);
    char *comma = strchr(kind, ',');
    if (comma != NULL) {
      exported = strcmp(comma + 1, "export") == 0;
      *comma = '\0';
    }
  }
  obj_begin("create-surface");
  kv_str("kind", kind);
  kv_bool("export", exported);
  if (!need(g_instance != VK_NULL_HANDLE, "no instance")) return;
  VkSurfaceKHR surface = VK_NULL_HANDLE;
  VkResult r = VK_ERROR_FEATURE_NOT_PRESENT;
  bool resolved = false;
  if (strcmp(kind, "headless") == 0) {
    VkHeadlessSurfaceCreateInfoEXT ci = {.sType = VK_STRUCTURE_TYPE_HEADLESS_SURFACE_CREATE_INFO_EXT};
    CREATE_SURFACE(vkCreateHeadlessSurfaceEXT, ci);
  } else if (strcmp(kind, "xcb") == 0) {
    VkXcbSurfaceCreateInfoKHR ci = {.sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
                                    .connection = (xcb_connection_t *)(uintptr_t)0x7c0001,
                                    .window = 0x4242};
    CREATE_SURFACE(vkCreateXcbSurfaceKHR, ci);
  } else if (strcmp(kind, "xlib") == 0) {
    VkXlibSurfaceCreateInfoKHR ci = {.sType = VK_STRUCTURE_TYPE_XLIB_SURFACE_CREATE_INFO_KHR,
                                     .dpy = (Display *)(uintptr_t)0x7c0002,
                                     .window = 0x4243};
    CREATE_SURFACE(vkCreateXlibSurfaceKHR, ci);
  } else if (strcmp(kind, "wayland") == 0) {
    VkWaylandSurfaceCreateInfoKHR ci = {.sType = VK_STRUCTURE_TYPE_WAYLAND_SURFACE_CREATE_INFO_KHR,
                                        .display = (struct wl_display *)(uintptr_t)0x7c0003,
                                        .surface = (struct wl_surface *)(uintptr_t)0x7c0004};
    CREATE_SURFACE(vkCreateWaylandSurfaceKHR, ci);
  } else if (strcmp(kind, "display") == 0) {
    /* A made-up display mode handle: the loader passes it through without looking at it. */
    VkDisplaySurfaceCreateInfoKHR ci = {.sType = VK_STRUCTURE_TYPE_DISPLAY_SURFACE_CREATE_INFO_KHR,
                                        .displayMode = (VkDisplayModeKHR)(uintptr_t)0x7c0005,
                                        .planeIndex = 1,
                                        .transform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
                                        .globalAlpha = 1.0f,
                                        .alphaMode = VK_DISPLAY_PLANE_ALPHA_OPAQUE_BIT_KHR,
                                        .imageExtent = {640, 480}};
    CREATE_SURFACE(vkCreateDisplayPlaneSurfaceKHR, ci);
  } else {
    end_error("unknown kind (headless, xcb, xlib, wayland, display)");
    return;
  }
  kv_bool("resolved", resolved);
  if (resolved) kv_result("result", r);
  kv_bool("surface", surface != VK_NULL_HANDLE);
  obj_end();
  if (resolved && r == VK_SUCCESS) g_surface = surface;
}
#undef CREATE_SURFACE

static void step_surface_queries(const char *arg) {
  uint32_t idx;
  if (!physdev_arg("surface-queries", arg ? arg : "", &idx)) return;
  IPROC_VAR(support, vkGetPhysicalDeviceSurfaceSupportKHR);
  IPROC_VAR(caps, vkGetPhysicalDeviceSurfaceCapabilitiesKHR);
  IPROC_VAR(formats, vkGetPhysicalDeviceSurfaceFormatsKHR);
  IPROC_VAR(modes, vkGetPhysicalDeviceSurfacePresentModesKHR);
  obj_begin("surface-queries");
  kv_int("index", idx);
  kv_bool("resolved", support && caps && formats && modes);
  if (support && caps && formats && modes) {
    VkPhysicalDevice pd = g_physdevs[idx];
    VkBool32 ok = VK_FALSE;
    kv_result("support_result", support(pd, 0, g_surface, &ok));
    kv_bool("supported", ok == VK_TRUE);
    VkSurfaceCapabilitiesKHR c;
    memset(&c, 0, sizeof c);
    kv_result("capabilities_result", caps(pd, g_surface, &c));
    kv_int("min_image_count", c.minImageCount);
    uint32_t n = 0;
    VkSurfaceFormatKHR fmts[16];
    TWO_CALL("formats_count_result", "formats_result", n, fmts, formats, pd, g_surface);
    kv_int("format_count", n);
    uint32_t m = 0;
    VkPresentModeKHR pms[16];
    TWO_CALL("present_modes_count_result", "present_modes_result", m, pms, modes, pd, g_surface);
    kv_int("present_mode_count", m);
  }
  obj_end();
}

static void step_create_swapchain(void) {
  obj_begin("create-swapchain");
  if (!need(g_device != VK_NULL_HANDLE, "no device")) return;
  PFN_vkGetDeviceProcAddr gdpa = loader_gdpa();
  PFN_vkCreateSwapchainKHR create = (PFN_vkCreateSwapchainKHR)gdpa(g_device, "vkCreateSwapchainKHR");
  PFN_vkDestroySwapchainKHR destroy = (PFN_vkDestroySwapchainKHR)gdpa(g_device, "vkDestroySwapchainKHR");
  kv_bool("resolved", create != NULL && destroy != NULL);
  if (create != NULL && destroy != NULL) {
    VkSwapchainCreateInfoKHR ci = {
        .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
        .surface = g_surface,
        .minImageCount = 2,
        .imageFormat = VK_FORMAT_B8G8R8A8_UNORM,
        .imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR,
        .imageExtent = {640, 480},
        .imageArrayLayers = 1,
        .imageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT,
        .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
        .preTransform = VK_SURFACE_TRANSFORM_IDENTITY_BIT_KHR,
        .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
        .presentMode = VK_PRESENT_MODE_FIFO_KHR,
        .clipped = VK_TRUE,
    };
    VkSwapchainKHR sc = VK_NULL_HANDLE;
    VkResult r = create(g_device, &ci, NULL, &sc);
    kv_created("result", r, "swapchain", sc != VK_NULL_HANDLE);
    if (r == VK_SUCCESS) destroy(g_device, sc, NULL);
  }
  obj_end();
}

/* null-count:CMD -- the exported command CMD (dlsym on the loader: the exported trampoline) called
 * with a NULL count pointer and a NULL array, on the probe's instance, first physical device,
 * device and surface (earlier steps); the display a mode query needs is asked here, other object
 * handles (image, swapchain, pipeline cache) are VK_NULL_HANDLE: the loader must refuse the NULL
 * count before anything looks at them. Emits {"step":"null-count","command":C,"resolved":bool[,"result":R]} ("result"
 * for the commands that return a VkResult); a crash shows as the probe's exit status. */
#define NC_FN(T, name) ((T)dlsym(g_loader, name))
static void step_null_count(const char *cmd) {
  obj_begin("null-count");
  const char *c = cmd ? cmd : "";
  kv_str("command", c);
  if (!need(g_instance != VK_NULL_HANDLE && g_physdevs_known && g_physdev_count != 0,
            "needs an instance and its physical devices"))
    return;
  VkPhysicalDevice pd = g_physdevs[0];
  void *sym = dlsym(g_loader, c);
  kv_bool("resolved", sym != NULL);
  if (sym == NULL) {
    obj_end();
    return;
  }
  bool has_result = true;
  VkResult r = VK_SUCCESS;
  PFN_vkGetDeviceProcAddr gdpa = loader_gdpa();
  if (strcmp(c, "vkGetPhysicalDeviceQueueFamilyProperties") == 0) {
    ((PFN_vkGetPhysicalDeviceQueueFamilyProperties)sym)(pd, NULL, NULL);
    has_result = false;
  } else if (strcmp(c, "vkGetPhysicalDeviceQueueFamilyProperties2") == 0) {
    ((PFN_vkGetPhysicalDeviceQueueFamilyProperties2)sym)(pd, NULL, NULL);
    has_result = false;
  } else if (strcmp(c, "vkGetPhysicalDeviceSparseImageFormatProperties") == 0) {
    ((PFN_vkGetPhysicalDeviceSparseImageFormatProperties)sym)(pd, VK_FORMAT_R8G8B8A8_UNORM, VK_IMAGE_TYPE_2D,
                                                              VK_SAMPLE_COUNT_1_BIT, VK_IMAGE_USAGE_SAMPLED_BIT,
                                                              VK_IMAGE_TILING_OPTIMAL, NULL, NULL);
    has_result = false;
  } else if (strcmp(c, "vkGetPhysicalDeviceSparseImageFormatProperties2") == 0) {
    VkPhysicalDeviceSparseImageFormatInfo2 info = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SPARSE_IMAGE_FORMAT_INFO_2,
        .format = VK_FORMAT_R8G8B8A8_UNORM,
        .type = VK_IMAGE_TYPE_2D,
        .samples = VK_SAMPLE_COUNT_1_BIT,
        .usage = VK_IMAGE_USAGE_SAMPLED_BIT,
        .tiling = VK_IMAGE_TILING_OPTIMAL};
    ((PFN_vkGetPhysicalDeviceSparseImageFormatProperties2)sym)(pd, &info, NULL, NULL);
    has_result = false;
  } else if (strcmp(c, "vkGetPhysicalDeviceToolProperties") == 0) {
    r = ((PFN_vkGetPhysicalDeviceToolProperties)sym)(pd, NULL, NULL);
  } else if (strcmp(c, "vkGetPhysicalDeviceDisplayPropertiesKHR") == 0) {
    r = ((PFN_vkGetPhysicalDeviceDisplayPropertiesKHR)sym)(pd, NULL, NULL);
  } else if (strcmp(c, "vkGetPhysicalDeviceDisplayPlanePropertiesKHR") == 0) {
    r = ((PFN_vkGetPhysicalDeviceDisplayPlanePropertiesKHR)sym)(pd, NULL, NULL);
  } else if (strcmp(c, "vkGetPhysicalDeviceDisplayProperties2KHR") == 0) {
    r = ((PFN_vkGetPhysicalDeviceDisplayProperties2KHR)sym)(pd, NULL, NULL);
  } else if (strcmp(c, "vkGetPhysicalDeviceDisplayPlaneProperties2KHR") == 0) {
    r = ((PFN_vkGetPhysicalDeviceDisplayPlaneProperties2KHR)sym)(pd, NULL, NULL);
  } else if (strcmp(c, "vkGetDisplayPlaneSupportedDisplaysKHR") == 0) {
    r = ((PFN_vkGetDisplayPlaneSupportedDisplaysKHR)sym)(pd, 0, NULL, NULL);
  } else if (strcmp(c, "vkGetDisplayModePropertiesKHR") == 0 || strcmp(c, "vkGetDisplayModeProperties2KHR") == 0) {
    /* a real display of the device (VK_KHR_display), so only the count is wrong */
    PFN_vkGetPhysicalDeviceDisplayPropertiesKHR props =
        NC_FN(PFN_vkGetPhysicalDeviceDisplayPropertiesKHR, "vkGetPhysicalDeviceDisplayPropertiesKHR");
    VkDisplayPropertiesKHR dp = {0};
    uint32_t one = 1;
    VkResult pr = props != NULL ? props(pd, &one, &dp) : VK_ERROR_EXTENSION_NOT_PRESENT;
    if ((pr != VK_SUCCESS && pr != VK_INCOMPLETE) || one == 0) {
      kv_result("setup", pr);
      obj_end();
      return;
    }
    if (strcmp(c, "vkGetDisplayModePropertiesKHR") == 0)
      r = ((PFN_vkGetDisplayModePropertiesKHR)sym)(pd, dp.display, NULL, NULL);
    else
      r = ((PFN_vkGetDisplayModeProperties2KHR)sym)(pd, dp.display, NULL, NULL);
  } else if (strcmp(c, "vkGetPhysicalDeviceSurfaceFormatsKHR") == 0) {
    r = ((PFN_vkGetPhysicalDeviceSurfaceFormatsKHR)sym)(pd, g_surface, NULL, NULL);
  } else if (strcmp(c, "vkGetPhysicalDeviceSurfaceFormats2KHR") == 0) {
    VkPhysicalDeviceSurfaceInfo2KHR si = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SURFACE_INFO_2_KHR,
                                          .surface = g_surface};
    r = ((PFN_vkGetPhysicalDeviceSurfaceFormats2KHR)sym)(pd, &si, NULL, NULL);
  } else if (strcmp(c, "vkGetPhysicalDeviceSurfacePresentModesKHR") == 0) {
    r = ((PFN_vkGetPhysicalDeviceSurfacePresentModesKHR)sym)(pd, g_surface, NULL, NULL);
  } else if (strcmp(c, "vkGetPhysicalDevicePresentRectanglesKHR") == 0) {
    r = ((PFN_vkGetPhysicalDevicePresentRectanglesKHR)sym)(pd, g_surface, NULL, NULL);
  } else if (g_device == VK_NULL_HANDLE || gdpa == NULL) {
    end_error("needs a device (create-device)");
    return;
  } else if (strcmp(c, "vkGetImageSparseMemoryRequirements") == 0) {
    ((PFN_vkGetImageSparseMemoryRequirements)sym)(g_device, VK_NULL_HANDLE, NULL, NULL);
    has_result = false;
  } else if (strcmp(c, "vkGetImageSparseMemoryRequirements2") == 0) {
    VkImageSparseMemoryRequirementsInfo2 info = {.sType = VK_STRUCTURE_TYPE_IMAGE_SPARSE_MEMORY_REQUIREMENTS_INFO_2};
    ((PFN_vkGetImageSparseMemoryRequirements2)sym)(g_device, &info, NULL, NULL);
    has_result = false;
  } else if (strcmp(c, "vkGetDeviceImageSparseMemoryRequirements") == 0) {
    VkImageCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                             .imageType = VK_IMAGE_TYPE_2D,
                             .format = VK_FORMAT_R8G8B8A8_UNORM,
                             .extent = {16, 16, 1},
                             .mipLevels = 1,
                             .arrayLayers = 1,
                             .samples = VK_SAMPLE_COUNT_1_BIT,
                             .usage = VK_IMAGE_USAGE_SAMPLED_BIT};
    VkDeviceImageMemoryRequirements info = {.sType = VK_STRUCTURE_TYPE_DEVICE_IMAGE_MEMORY_REQUIREMENTS,
                                            .pCreateInfo = &ici};
    ((PFN_vkGetDeviceImageSparseMemoryRequirements)sym)(g_device, &info, NULL, NULL);
    has_result = false;
  } else if (strcmp(c, "vkGetPipelineCacheData") == 0) {
    r = ((PFN_vkGetPipelineCacheData)sym)(g_device, VK_NULL_HANDLE, NULL, NULL);
  } else if (strcmp(c, "vkGetSwapchainImagesKHR") == 0) {
    r = ((PFN_vkGetSwapchainImagesKHR)sym)(g_device, VK_NULL_HANDLE, NULL, NULL);
  } else {
    end_error("not a count/array command this step knows");
    return;
  }
  if (has_result) kv_result("result", r);
  obj_end();
}
#undef NC_FN

static void step_destroy_surface(void) {
  obj_begin("destroy-surface");
  PFN_vkDestroySurfaceKHR fn =
      g_instance != VK_NULL_HANDLE ? IPROC(PFN_vkDestroySurfaceKHR, "vkDestroySurfaceKHR") : NULL;
  kv_bool("called", fn != NULL && g_surface != VK_NULL_HANDLE);
  if (fn != NULL && g_surface != VK_NULL_HANDLE) fn(g_instance, g_surface, g_allocator);
  g_surface = VK_NULL_HANDLE;
  obj_end();
}

/* ---- emulated queries (conformance/loader/wsi/emulate_test.cc) ---- */

/* Splits "N;OPT" (a copy) into the device part and the option (NULL when none). */
static const char *split_opt(char *arg) {
  char *semi = strchr(arg, ';');
  if (semi == NULL) return NULL;
  *semi = '\0';
  return semi + 1;
}

/* display-queries:N: the VK_KHR_display queries and their VK_KHR_get_display_properties2 forms on
 * device N (every command resolved through GIPA; a NULL one is reported as not resolved). */
static void step_display_queries(const char *arg) {
  uint32_t idx;
  if (!physdev_arg("display-queries", arg ? arg : "", &idx)) return;
  VkPhysicalDevice pd = g_physdevs[idx];
  IPROC_VAR(props, vkGetPhysicalDeviceDisplayPropertiesKHR);
  IPROC_VAR(planes, vkGetPhysicalDeviceDisplayPlanePropertiesKHR);
  IPROC_VAR(supported, vkGetDisplayPlaneSupportedDisplaysKHR);
  IPROC_VAR(modes, vkGetDisplayModePropertiesKHR);
  IPROC_VAR(caps, vkGetDisplayPlaneCapabilitiesKHR);
  IPROC_VAR(create_mode, vkCreateDisplayModeKHR);
  IPROC_VAR(props2, vkGetPhysicalDeviceDisplayProperties2KHR);
  IPROC_VAR(planes2, vkGetPhysicalDeviceDisplayPlaneProperties2KHR);
  IPROC_VAR(modes2, vkGetDisplayModeProperties2KHR);
  IPROC_VAR(caps2, vkGetDisplayPlaneCapabilities2KHR);
  obj_begin("display-queries");
  kv_int("index", idx);
  kv_bool("resolved", props && planes && supported && modes && caps && create_mode);
  kv_bool("resolved2", props2 && planes2 && modes2 && caps2);
  VkDisplayKHR display = VK_NULL_HANDLE;
  if (props && planes && supported && modes && caps && create_mode) {
    uint32_t n = 0;
    VkDisplayPropertiesKHR d[4];
    memset(d, 0, sizeof d);
    TWO_CALL("displays_count_result", "displays_result", n, d, props, pd);
    kv_int("display_count", n);
    kv_str("display_name", n > 0 ? d[0].displayName : NULL);
    kv_int("display_width", n > 0 ? d[0].physicalResolution.width : 0);
    if (n > 0) display = d[0].display;
    uint32_t p = 0;
    VkDisplayPlanePropertiesKHR pl[4];
    TWO_CALL("planes_count_result", "planes_result", p, pl, planes, pd);
    kv_int("plane_count", p);
    kv_bool("plane_display_matches", p > 0 && pl[0].currentDisplay == display && display != VK_NULL_HANDLE);
    uint32_t s = 0;
    kv_result("supported_result", supported(pd, 0, &s, NULL));
    kv_int("supported_count", s);
    uint32_t m = 0;
    VkDisplayModePropertiesKHR mp[4];
    memset(mp, 0, sizeof mp);
    TWO_CALL("modes_count_result", "modes_result", m, mp, modes, pd, display);
    kv_int("mode_count", m);
    kv_int("refresh_rate", m > 0 ? mp[0].parameters.refreshRate : 0);
    VkDisplayPlaneCapabilitiesKHR c;
    memset(&c, 0xab, sizeof c);
    kv_result("plane_caps_result", caps(pd, m > 0 ? mp[0].displayMode : VK_NULL_HANDLE, 0, &c));
    kv_int("plane_caps_max_dst_width", c.maxDstExtent.width);
    kv_int("plane_caps_alpha", c.supportedAlpha);
    VkDisplayModeCreateInfoKHR mci = {.sType = VK_STRUCTURE_TYPE_DISPLAY_MODE_CREATE_INFO_KHR,
                                      .parameters = {.visibleRegion = {1920, 1080}, .refreshRate = 60000}};
    VkDisplayModeKHR created = VK_NULL_HANDLE;
    kv_result("create_mode_result", create_mode(pd, display, &mci, NULL, &created));
  }
  if (props2 && planes2 && modes2 && caps2) {
    uint32_t n = 0;
    VkDisplayProperties2KHR d[4];
    init_stype(d, 4, sizeof d[0], VK_STRUCTURE_TYPE_DISPLAY_PROPERTIES_2_KHR);
    TWO_CALL("displays2_count_result", "displays2_result", n, d, props2, pd);
    kv_int("display2_count", n);
    kv_str("display2_name", n > 0 ? d[0].displayProperties.displayName : NULL);
    kv_int("display2_width", n > 0 ? d[0].displayProperties.physicalResolution.width : 0);
    kv_bool("display2_stype_kept", d[0].sType == VK_STRUCTURE_TYPE_DISPLAY_PROPERTIES_2_KHR);
    VkDisplayKHR display2 = n > 0 ? d[0].displayProperties.display : VK_NULL_HANDLE;
    uint32_t p = 0;
    VkDisplayPlaneProperties2KHR pl[4];
    init_stype(pl, 4, sizeof pl[0], VK_STRUCTURE_TYPE_DISPLAY_PLANE_PROPERTIES_2_KHR);
    TWO_CALL("planes2_count_result", "planes2_result", p, pl, planes2, pd);
    kv_int("plane2_count", p);
    kv_bool("plane2_display_matches",
            p > 0 && pl[0].displayPlaneProperties.currentDisplay == display2 && display2 != VK_NULL_HANDLE);
    uint32_t m = 0;
    VkDisplayModeProperties2KHR mp[4];
    init_stype(mp, 4, sizeof mp[0], VK_STRUCTURE_TYPE_DISPLAY_MODE_PROPERTIES_2_KHR);
    TWO_CALL("modes2_count_result", "modes2_result", m, mp, modes2, pd, display2);
    kv_int("mode2_count", m);
    kv_int("refresh_rate2", m > 0 ? mp[0].displayModeProperties.parameters.refreshRate : 0);
    VkDisplayPlaneInfo2KHR info = {.sType = VK_STRUCTURE_TYPE_DISPLAY_PLANE_INFO_2_KHR,
                                   .mode = m > 0 ? mp[0].displayModeProperties.displayMode : VK_NULL_HANDLE,
                                   .planeIndex = 0};
    VkDisplayPlaneCapabilities2KHR c = {.sType = VK_STRUCTURE_TYPE_DISPLAY_PLANE_CAPABILITIES_2_KHR};
    memset(&c.capabilities, 0xab, sizeof c.capabilities);
    kv_result("plane_caps2_result", caps2(pd, &info, &c));
    kv_int("plane_caps2_max_dst_width", c.capabilities.maxDstExtent.width);
    kv_int("plane_caps2_alpha", c.capabilities.supportedAlpha);
  }
  obj_end();
}

/* tool-properties:N[;ext]: vkGetPhysicalDeviceToolProperties (or its EXT alias) on device N. */
static void step_tool_properties(char *arg) {
  const char *opt = split_opt(arg);
  bool ext = opt != NULL && strcmp(opt, "ext") == 0;
  uint32_t idx;
  if (!physdev_arg("tool-properties", arg, &idx)) return;
  const char *name = ext ? "vkGetPhysicalDeviceToolPropertiesEXT" : "vkGetPhysicalDeviceToolProperties";
  PFN_vkGetPhysicalDeviceToolProperties fn = IPROC(PFN_vkGetPhysicalDeviceToolProperties, name);
  obj_begin("tool-properties");
  kv_int("index", idx);
  kv_str("command", name);
  kv_bool("resolved", fn != NULL);
  if (fn != NULL) {
    uint32_t n = 0xdead;
    kv_result("count_result", fn(g_physdevs[idx], &n, NULL));
    kv_int("count", n);
    VkPhysicalDeviceToolProperties t[8];
    init_stype(t, 8, sizeof t[0], VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TOOL_PROPERTIES);
    if (n > 8) n = 8;
    kv_result("result", fn(g_physdevs[idx], &n, t));
    put_key("tools");
    putchar('[');
    for (uint32_t i = 0; i < n; ++i) {
      if (i) putchar(',');
      put_json_string(t[i].name);
    }
    putchar(']');
  }
  obj_end();
}

static void kv_caps(const VkSurfaceCapabilitiesKHR *c) {
  kv_int("min_image_count", c->minImageCount);
  kv_int("max_image_count", c->maxImageCount);
  kv_int("min_extent_width", c->minImageExtent.width);
  kv_int("max_extent_width", c->maxImageExtent.width);
}

/* surface-caps2ext:N: vkGetPhysicalDeviceSurfaceCapabilities2EXT with the current surface. */
static void step_surface_caps2ext(const char *arg) {
  uint32_t idx;
  if (!physdev_arg("surface-caps2ext", arg ? arg : "", &idx)) return;
  IPROC_VAR(fn, vkGetPhysicalDeviceSurfaceCapabilities2EXT);
  obj_begin("surface-caps2ext");
  kv_int("index", idx);
  kv_bool("resolved", fn != NULL);
  if (fn != NULL) {
    VkSurfaceCapabilities2EXT c;
    memset(&c, 0xab, sizeof c);
    c.sType = VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_2_EXT;
    c.pNext = NULL;
    kv_result("result", fn(g_physdevs[idx], g_surface, &c));
    kv_int("min_image_count", c.minImageCount);
    kv_int("max_image_count", c.maxImageCount);
    kv_int("max_extent_width", c.maxImageExtent.width);
    kv_int("usage", c.supportedUsageFlags);
    kv_int("counters", c.supportedSurfaceCounters);
    kv_bool("stype_kept", c.sType == VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_2_EXT && c.pNext == NULL);
  }
  obj_end();
}

/* surface-caps2:N[;MODE[,COUNT]]: vkGetPhysicalDeviceSurfaceCapabilities2KHR with the current surface;
 * with MODE (a VkPresentModeKHR number) a VkSurfacePresentModeEXT is chained into pSurfaceInfo and
 * VkSurfacePresentModeCompatibilityEXT + VkSurfacePresentScalingCapabilitiesEXT into the result;
 * COUNT is the compatibility array's capacity ("null": a NULL array, the count query; default 8).
 * Outputs are pre-filled with 0xab bytes so untouched fields show. */
static void step_surface_caps2(char *arg) {
  const char *opt = split_opt(arg);
  uint32_t idx;
  if (!physdev_arg("surface-caps2", arg, &idx)) return;
  IPROC_VAR(fn, vkGetPhysicalDeviceSurfaceCapabilities2KHR);
  bool with_mode = false, null_array = false;
  unsigned long mode = 0, cap = 8;
  if (opt != NULL) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", opt);
    char *comma = strchr(buf, ',');
    if (comma != NULL) {
      *comma = '\0';
      if (strcmp(comma + 1, "null") == 0)
        null_array = true;
      else if (!parse_uint(comma + 1, &cap) || cap > 8)
        cap = 8;
    }
    with_mode = parse_uint(buf, &mode);
  }
  obj_begin("surface-caps2");
  kv_int("index", idx);
  kv_bool("resolved", fn != NULL);
  if (fn != NULL) {
    VkSurfacePresentModeEXT pm = {.sType = VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_EXT,
                                  .presentMode = (VkPresentModeKHR)mode};
    VkPhysicalDeviceSurfaceInfo2KHR info = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SURFACE_INFO_2_KHR,
                                            .pNext = with_mode ? &pm : NULL,
                                            .surface = g_surface};
    VkPresentModeKHR modes[8];
    for (int i = 0; i < 8; ++i) modes[i] = (VkPresentModeKHR)0x7777;
    VkSurfacePresentScalingCapabilitiesEXT scaling;
    memset(&scaling, 0xab, sizeof scaling);
    scaling.sType = VK_STRUCTURE_TYPE_SURFACE_PRESENT_SCALING_CAPABILITIES_EXT;
    scaling.pNext = NULL;
    VkSurfacePresentModeCompatibilityEXT compat = {.sType = VK_STRUCTURE_TYPE_SURFACE_PRESENT_MODE_COMPATIBILITY_EXT,
                                                   .pNext = &scaling,
                                                   .presentModeCount = null_array ? 0 : (uint32_t)cap,
                                                   .pPresentModes = null_array ? NULL : modes};
    VkSurfaceCapabilities2KHR c = {.sType = VK_STRUCTURE_TYPE_SURFACE_CAPABILITIES_2_KHR,
                                   .pNext = with_mode ? &compat : NULL};
    kv_result("result", fn(g_physdevs[idx], &info, &c));
    kv_caps(&c.surfaceCapabilities);
    if (with_mode) {
      kv_int("compat_count", compat.presentModeCount);
      put_key("compat_modes");
      putchar('[');
      uint32_t shown = null_array ? 0 : (compat.presentModeCount < cap ? compat.presentModeCount : (uint32_t)cap);
      for (uint32_t i = 0; i < shown; ++i) printf("%s%d", i ? "," : "", (int)modes[i]);
      putchar(']');
      kv_int("first_slot", null_array ? -1 : (int)modes[0]);
      kv_int("scaling", scaling.supportedPresentScaling);
      kv_int("gravity_x", scaling.supportedPresentGravityX);
      kv_int("gravity_y", scaling.supportedPresentGravityY);
      kv_int("min_scaled_width", scaling.minScaledImageExtent.width);
      kv_int("max_scaled_width", scaling.maxScaledImageExtent.width);
    }
  }
  obj_end();
}

/* xlib-display:N: VK_EXT_acquire_xlib_display on device N with a fake Display* (0x7c0002, never
 * dereferenced by the mocks) and RandR output 0x55: vkGetRandROutputDisplayEXT, then
 * vkAcquireXlibDisplayEXT with the display it returned. The types are spelled out (Display*,
 * RROutput = XID) so vkprobe needs no Xrandr header. */
typedef VkResult(VKAPI_PTR *probe_PFN_GetRandROutputDisplayEXT)(VkPhysicalDevice, void *, unsigned long,
                                                                VkDisplayKHR *);
typedef VkResult(VKAPI_PTR *probe_PFN_AcquireXlibDisplayEXT)(VkPhysicalDevice, void *, VkDisplayKHR);
static void step_xlib_display(const char *arg) {
  uint32_t idx;
  if (!physdev_arg("xlib-display", arg ? arg : "", &idx)) return;
  probe_PFN_GetRandROutputDisplayEXT randr = (probe_PFN_GetRandROutputDisplayEXT)iproc("vkGetRandROutputDisplayEXT");
  probe_PFN_AcquireXlibDisplayEXT acquire = (probe_PFN_AcquireXlibDisplayEXT)iproc("vkAcquireXlibDisplayEXT");
  obj_begin("xlib-display");
  kv_int("index", idx);
  kv_bool("resolved_randr", randr != NULL);
  kv_bool("resolved_acquire", acquire != NULL);
  void *dpy = (void *)(uintptr_t)0x7c0002;
  VkDisplayKHR display = (VkDisplayKHR)(uintptr_t)0x1234;
  if (randr != NULL) {
    kv_result("randr_result", randr(g_physdevs[idx], dpy, 0x55, &display));
    kv_int("display", (long long)(uintptr_t)display);
  }
  if (acquire != NULL) kv_result("acquire_result", acquire(g_physdevs[idx], dpy, display));
  obj_end();
}

static void step_destroy_device(void) {
  obj_begin("destroy-device");
  if (!need(g_device != VK_NULL_HANDLE, "no device")) return;
  IPROC_VAR(fn, vkDestroyDevice);
  if (fn) fn(g_device, g_allocator);
  g_device = VK_NULL_HANDLE;
  g_device_index = -1;
  kv_bool("called", fn != NULL);
  obj_end();
}

static void step_destroy_instance(void) {
  obj_begin("destroy-instance");
  if (!need(g_instance != VK_NULL_HANDLE, "no instance")) return;
  IPROC_VAR(fn, vkDestroyInstance);
  if (fn) fn(g_instance, g_allocator);
  kv_bool("called", fn != NULL);
  g_instance = VK_NULL_HANDLE;
  g_allocator = NULL;
  g_physdev_count = 0;
  g_physdevs_known = false;
  obj_end();
}

/* setenv-repeat:NAME:COUNT:PIECE (test-only): setenv(NAME, PIECE written COUNT times), each '#' of
 * PIECE replaced by the repetition's index; for values longer than execve allows one string
 * (128 KiB), e.g. VK_INSTANCE_LAYERS with 100,000 entries or 1 MB values. Prints `length`. */
static void step_setenv_repeat(const char *arg) {
  obj_begin("setenv-repeat");
  const char *c1 = arg ? strchr(arg, ':') : NULL;
  const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  char count_text[32];
  unsigned long count = 0;
  if (!need(c2 != NULL && c1 != arg && (size_t)(c2 - c1 - 1) < sizeof count_text,
            "usage: setenv-repeat:NAME:COUNT:PIECE"))
    return;
  memcpy(count_text, c1 + 1, (size_t)(c2 - c1 - 1));
  count_text[c2 - c1 - 1] = '\0';
  const char *piece = c2 + 1;
  size_t plen = strlen(piece), hashes = 0;
  for (size_t i = 0; i < plen; ++i) hashes += piece[i] == '#';
  char *name = strndup(arg, (size_t)(c1 - arg));
  char *value = NULL;
  if (parse_uint(count_text, &count) && name != NULL) value = malloc(count * (plen + hashes * 20) + 1);
  if (value == NULL) {
    kv_str("error", "bad count or out of memory");
  } else {
    size_t len = 0;
    for (unsigned long k = 0; k < count; ++k)
      for (size_t i = 0; i < plen; ++i) {
        if (piece[i] == '#')
          len += (size_t)sprintf(value + len, "%lu", k);
        else
          value[len++] = piece[i];
      }
    value[len] = '\0';
    kv_str("name", name);
    kv_int("length", (long long)len);
    kv_bool("set", setenv(name, value, 1) == 0);
  }
  free(value);
  free(name);
  obj_end();
}

static void step_env_dump(void) {
  static const char *const vars[] = {"HOME",
                                     "XDG_CONFIG_HOME",
                                     "XDG_CONFIG_DIRS",
                                     "XDG_DATA_HOME",
                                     "XDG_DATA_DIRS",
                                     "VK_DRIVER_FILES",
                                     "VK_ICD_FILENAMES",
                                     "VK_ADD_DRIVER_FILES",
                                     "VK_LOADER_DRIVERS_SELECT",
                                     "VK_LOADER_DRIVERS_DISABLE",
                                     "VK_LOADER_DEBUG"};
  obj_begin("env-dump");
  kv_int("at_secure", (long long)getauxval(AT_SECURE));
  kv_int("uid", getuid());
  kv_int("euid", geteuid());
  kv_int("gid", getgid());
  kv_int("egid", getegid());
  put_key("vars");
  putchar('{');
  g_first_field = true;
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) {
    /* Diagnostic only: shows what the loader can see through getenv and secure_getenv. */
    put_key(vars[i]);
    printf("{\"set\":%s,\"secure_visible\":%s}", getenv(vars[i]) ? "true" : "false",
           secure_getenv(vars[i]) ? "true" : "false");
  }
  putchar('}');
  g_first_field = false;
  obj_end();
}

static void emit_messages(void) {
  obj_begin("messages");
  kv_int("count", (long long)g_msg_count);
  put_key("messages");
  putchar('[');
  for (size_t i = 0; i < g_msg_count; ++i) {
    if (i) putchar(',');
    putchar('{');
    g_first_field = true;
    kv_str("source", g_msgs[i].source);
    kv_str("severity", g_msgs[i].severity);
    kv_int("types", g_msgs[i].types);
    kv_str("id", g_msgs[i].id_name);
    kv_str("text", g_msgs[i].text);
    kv_bool("during_create", g_msgs[i].during_create);
    putchar('}');
  }
  putchar(']');
  g_first_field = false;
  obj_end();
}

static void emit_alloc_stats(void) {
  obj_begin("alloc");
  kv_bool("used", g_alloc_used);
  kv_int("allocations", (long long)g_alloc_stats.allocations);
  kv_int("reallocations", (long long)g_alloc_stats.reallocations);
  kv_int("frees", (long long)g_alloc_stats.frees);
  kv_int("null_frees", (long long)g_alloc_stats.null_frees);
  kv_int("bad_frees", (long long)g_alloc_stats.bad_frees);
  kv_int("bad_reallocs", (long long)g_alloc_stats.bad_reallocs);
  kv_int("failed", (long long)g_alloc_stats.failed);
  kv_int("misaligned_requests", (long long)g_alloc_stats.misaligned);
  kv_int("outstanding", (long long)g_alloc_stats.live_count);
  kv_int("outstanding_bytes", (long long)g_alloc_stats.bytes_outstanding);
  kv_int("peak_outstanding", (long long)g_alloc_stats.peak_outstanding);
  kv_int("requests", (long long)g_alloc_requests);
  kv_int("fail_at", (long long)g_alloc_fail_at);
  kv_bool("injected", g_alloc_injected);
  obj_end();
}

static void step_gipa_instance(const char *name) { step_gipa(name, false); }
static void step_gipa_null(const char *name) { step_gipa(name, true); }
static void step_call_unknown_device(char *arg) { step_call_unknown(arg, true); }
static void step_call_unknown_physdev(char *arg) { step_call_unknown(arg, false); }

/* The steps: NAME or NAME:ARG on the command line. Each row sets one of `run` (no argument),
 * `text` (the argument as given: NULL when there is none) or `edit` (a copy the step may modify,
 * freed after it: NULL when there is no argument); `or_empty` passes "" instead of NULL. */
struct step {
  const char *name;
  void (*run)(void);
  void (*text)(const char *arg);
  void (*edit)(char *arg);
  bool or_empty;
};

static const struct step kSteps[] = {
    {.name = "version", .run = step_version, .or_empty = false},
    {.name = "instance-extensions", .text = step_instance_extensions, .or_empty = false},
    {.name = "instance-layers", .run = step_instance_layers, .or_empty = false},
    {.name = "create-instance", .edit = step_create_instance, .or_empty = false},
    {.name = "devices", .run = step_devices, .or_empty = false},
    {.name = "device-extensions", .edit = step_device_extensions, .or_empty = true},
    {.name = "groups", .text = step_groups, .or_empty = false},
    {.name = "properties2", .text = step_properties2, .or_empty = false},
    {.name = "create-device", .edit = step_create_device, .or_empty = true},
    {.name = "gipa", .text = step_gipa_instance, .or_empty = true},
    {.name = "gipa-null", .text = step_gipa_null, .or_empty = true},
    {.name = "gdpa", .text = step_gdpa, .or_empty = true},
    {.name = "call-unknown-device", .edit = step_call_unknown_device, .or_empty = true},
    {.name = "call-unknown-physdev", .edit = step_call_unknown_physdev, .or_empty = true},
    {.name = "unknown-many", .edit = step_unknown_many, .or_empty = true},
    {.name = "destroy-device", .run = step_destroy_device, .or_empty = false},
    {.name = "destroy-instance", .run = step_destroy_instance, .or_empty = false},
    {.name = "env-dump", .run = step_env_dump, .or_empty = false},
    {.name = "resolve-unknown", .edit = step_resolve_unknown, .or_empty = true},
    {.name = "call-resolved", .edit = step_call_resolved, .or_empty = true},
    {.name = "dispatch-words", .run = step_dispatch_words, .or_empty = false},
    {.name = "command-buffers", .text = step_command_buffers, .or_empty = false},
    {.name = "write-file", .text = step_write_file, .or_empty = false},
    {.name = "replace-file", .text = step_replace_file, .or_empty = false},
    {.name = "change-file", .text = step_change_file, .or_empty = false},
    {.name = "remove-file", .text = step_remove_file, .or_empty = false},
    {.name = "device-layers", .edit = step_device_layers, .or_empty = true},
    {.name = "create-surface", .text = step_create_surface, .or_empty = false},
    {.name = "surface-queries", .text = step_surface_queries, .or_empty = false},
    {.name = "create-swapchain", .run = step_create_swapchain, .or_empty = false},
    {.name = "destroy-surface", .run = step_destroy_surface, .or_empty = false},
    {.name = "messenger", .run = step_messenger, .or_empty = false},
    {.name = "robust", .text = step_robust, .or_empty = false},
    {.name = "null-count", .text = step_null_count, .or_empty = false},
    {.name = "bad-handle", .text = step_bad_handle, .or_empty = false},
    {.name = "direct", .edit = step_direct, .or_empty = false},
    {.name = "mock-scenario", .text = step_mock_scenario, .or_empty = false},
    {.name = "display-queries", .text = step_display_queries, .or_empty = false},
    {.name = "tool-properties", .edit = step_tool_properties, .or_empty = true},
    {.name = "surface-caps2ext", .text = step_surface_caps2ext, .or_empty = false},
    {.name = "surface-caps2", .edit = step_surface_caps2, .or_empty = true},
    {.name = "xlib-display", .text = step_xlib_display, .or_empty = false},
    {.name = "setenv-repeat", .text = step_setenv_repeat, .or_empty = false},
};

static int usage(const char *msg) {
  fprintf(stderr,
          "vkprobe: %s\nusage: vkprobe --loader=PATH [--driver-lib=PATH]... STEP...\n"
          "see conformance/framework/README.md for the steps\n",
          msg);
  return 2;
}

static bool is_step(const char *name, const char *step, const char **arg) {
  size_t n = strlen(name);
  if (strncmp(step, name, n) != 0) return false;
  if (step[n] == '\0') {
    *arg = NULL;
    return true;
  }
  if (step[n] == ':') {
    *arg = step + n + 1;
    return true;
  }
  return false;
}

static const struct step *find_step(const char *text, const char **arg) {
  for (size_t k = 0; k < sizeof kSteps / sizeof kSteps[0]; ++k)
    if (is_step(kSteps[k].name, text, arg)) return &kSteps[k];
  return NULL;
}

static void run_step(const struct step *step, const char *arg) {
  if (arg == NULL && step->or_empty) arg = "";
  if (step->run != NULL) {
    step->run();
  } else if (step->text != NULL) {
    step->text(arg);
  } else {
    char *copy = arg != NULL ? strdup(arg) : NULL;
    step->edit(copy);
    free(copy);
  }
}

int main(int argc, char **argv) {
  const char *loader = NULL;
  int first_step = argc;
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--loader=", 9) == 0) {
      loader = argv[i] + 9;
    } else if (strncmp(argv[i], "--driver-lib=", 13) == 0) {
      if (g_driver_lib_count == MAX_DRIVER_LIBS) return usage("too many --driver-lib");
      g_driver_libs[g_driver_lib_count++] = argv[i] + 13;
    } else if (strncmp(argv[i], "--", 2) == 0) {
      return usage("unknown option");
    } else {
      first_step = i;
      break;
    }
  }
  if (loader == NULL || *loader == '\0') return usage("--loader=PATH is required");
  for (int i = first_step; i < argc; ++i) {
    const char *arg;
    if (find_step(argv[i], &arg) == NULL) {
      fprintf(stderr, "vkprobe: unknown step '%s'\n", argv[i]);
      return usage("unknown step");
    }
  }

  g_loader = dlopen(loader, RTLD_NOW | RTLD_LOCAL);
  if (g_loader == NULL) {
    emit_error("load", dlerror());
    return 3;
  }
  g_gipa = (PFN_vkGetInstanceProcAddr)dlsym(g_loader, "vkGetInstanceProcAddr");
  if (g_gipa == NULL) {
    emit_error("load", "vkGetInstanceProcAddr not exported");
    return 3;
  }

  for (int i = first_step; i < argc; ++i) {
    const char *arg = NULL;
    const struct step *step = find_step(argv[i], &arg);
    run_step(step, arg);
  }
  emit_messages();
  emit_alloc_stats();
  /* Sanitizer builds run LeakSanitizer at exit; its tracer must be able to ptrace this process.
   * A set-gid run (real gid != effective gid) is neither traceable by itself nor dumpable, so
   * LeakSanitizer would die with "fatal error" and check nothing. All Vulkan work is done: make
   * the group ids uniform (the effective one) and the process dumpable again. */
  if (getegid() != getgid()) {
    gid_t g = getegid();
    if (setresgid(g, g, g) == 0) (void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
  }
  /* The loader is not dlclosed: a live instance may still reference it (results are data). */
  return 0;
}
