/* vkprobe: a scripted Vulkan client for the loader-agnostic conformance suite.
 *
 *   vkprobe --loader=PATH [--driver-lib=PATH]... STEP...
 *
 * dlopens the loader under test, resolves vkGetInstanceProcAddr with dlsym and every other command
 * through it, runs the steps in order and prints one JSON object per line per step. Vulkan failures
 * are data: the exit status is 0 unless the command line is wrong (2) or the loader cannot be
 * dlopened (3). The program reads no environment variable itself (it must behave the same when run
 * set-uid); only the loader under test does. Step syntax: conformance/framework/README.md.
 *
 * This file: the probe's state, the step table and main(). The steps and the output are in
 * vkprobe_*.c, by kind (vkprobe_internal.h).
 */
#include "conformance/framework/vkprobe_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* State                                                                                        */

void *g_loader;
PFN_vkGetInstanceProcAddr g_gipa;
VkInstance g_instance;
const VkAllocationCallbacks *g_allocator;
VkPhysicalDevice g_physdevs[MAX_PHYSDEVS];
uint32_t g_physdev_count;
bool g_physdevs_known;
VkDevice g_device;
int g_device_index = -1;
const char *g_driver_libs[MAX_DRIVER_LIBS];
int g_driver_lib_count;

PFN_vkVoidFunction iproc(const char *name) { return g_gipa(g_instance, name); }

/* iproc(name), else iproc(alias) (the extension's name for a promoted command); `which` = the name
 * asked last. */
PFN_vkVoidFunction iproc_or_alias(const char *name, const char *alias, const char **which) {
  PFN_vkVoidFunction fn = iproc(name);
  *which = name;
  if (fn == NULL) {
    fn = iproc(alias);
    *which = alias;
  }
  return fn;
}

/* Splits `s` (modified in place) on `sep`; returns the number of pieces (empty ones dropped). */
int split(char *s, char sep, char **out, int max) {
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

bool parse_uint(const char *s, unsigned long *out) {
  if (s == NULL || *s == '\0') return false;
  char *end = NULL;
  errno = 0;
  unsigned long v = strtoul(s, &end, 0);
  if (errno != 0 || *end != '\0') return false;
  *out = v;
  return true;
}

/* "1.1", "1.3.0", "0.1.2.3" (variant.major.minor.patch) or a plain integer ("0"). */
bool parse_api(const char *s, uint32_t *out) {
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

const char *device_type_name(VkPhysicalDeviceType t) {
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
    {.name = "external-queries", .text = step_external_queries, .or_empty = false},
    {.name = "queue-families", .text = step_queue_families, .or_empty = false},
    {.name = "create-device", .edit = step_create_device, .or_empty = true},
    {.name = "threads-devices", .edit = step_threads_devices, .or_empty = true},
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
    {.name = "object-names", .run = step_object_names, .or_empty = false},
    {.name = "surface-caps2ext", .text = step_surface_caps2ext, .or_empty = false},
    {.name = "surface-formats2", .text = step_surface_formats2, .or_empty = false},
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
