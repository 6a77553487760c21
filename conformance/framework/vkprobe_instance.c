/* vkprobe's instance and device steps: version, extensions and layers, VK_LUNARG_direct_driver_loading,
 * create-instance, devices, groups, properties2, create-device, gipa, messenger, and the destroy
 * steps. */
#include "conformance/framework/vkprobe_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* Steps                                                                                        */

void step_version(void) {
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

void step_instance_extensions(const char *layer) {
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

void step_instance_layers(void) {
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
void step_direct(char *arg) {
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

void step_create_instance(char *opts) {
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

bool need_instance(const char *step) {
  if (g_instance != VK_NULL_HANDLE) return true;
  emit_error(step, "no instance");
  return false;
}

void step_devices(void) {
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
      char handle[32]; /* the loader's handle, to compare across calls (hot-plug) */
      snprintf(handle, sizeof handle, "%p", (void *)g_physdevs[i]);
      kv_str("handle", handle);
    }
    kv_name("name", p.deviceName, sizeof p.deviceName);
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

bool physdev_arg(const char *step, const char *arg, uint32_t *index) {
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
      if (strncmp(p.deviceName, arg + 1, sizeof p.deviceName) == 0) v = i;
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
void step_device_extensions(char *arg) {
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
void step_device_layers(char *arg) {
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
void step_groups(const char *arg) {
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
   * did not return): compared across calls when devices come and go. */
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

/* queue-families:N: vkGetPhysicalDeviceQueueFamilyProperties2 (KHR fallback) through GIPA, the
 * count and then an array of exactly that many: "count", "families" ([{flags, count}]). */
void step_queue_families(const char *arg) {
  uint32_t idx;
  if (!physdev_arg("queue-families", arg, &idx)) return;
  const char *which = NULL;
  PFN_vkGetPhysicalDeviceQueueFamilyProperties2 fn = (PFN_vkGetPhysicalDeviceQueueFamilyProperties2)iproc_or_alias(
      "vkGetPhysicalDeviceQueueFamilyProperties2", "vkGetPhysicalDeviceQueueFamilyProperties2KHR", &which);
  obj_begin("queue-families");
  kv_int("index", idx);
  if (!need(fn != NULL, "vkGetPhysicalDeviceQueueFamilyProperties2 is NULL")) return;
  kv_str("function", which);
  uint32_t count = 0;
  fn(g_physdevs[idx], &count, NULL);
  kv_int("reported_count", count);
  VkQueueFamilyProperties2 *q = calloc(count ? count : 1, sizeof *q);
  for (uint32_t i = 0; i < count; ++i) q[i].sType = VK_STRUCTURE_TYPE_QUEUE_FAMILY_PROPERTIES_2;
  uint32_t got = count;
  fn(g_physdevs[idx], &got, q);
  kv_int("count", got);
  put_key("families");
  putchar('[');
  for (uint32_t i = 0; i < got && i < count; ++i)
    printf("%s{\"flags\":%u,\"count\":%u}", i ? "," : "", q[i].queueFamilyProperties.queueFlags,
           q[i].queueFamilyProperties.queueCount);
  putchar(']');
  free(q);
  obj_end();
}

void step_properties2(const char *arg) {
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
  kv_name("name", p2.properties.deviceName, sizeof p2.properties.deviceName);
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

/* external-queries:<i>: the Vulkan 1.1 external buffer, semaphore and fence capability queries
 * for the opaque-fd handle type; each reports its feature flags (0 when nothing is supported). */
void step_external_queries(const char *arg) {
  uint32_t idx;
  if (!physdev_arg("external-queries", arg, &idx)) return;
  PFN_vkGetPhysicalDeviceExternalBufferProperties buf =
      (PFN_vkGetPhysicalDeviceExternalBufferProperties)iproc("vkGetPhysicalDeviceExternalBufferProperties");
  PFN_vkGetPhysicalDeviceExternalSemaphoreProperties sem =
      (PFN_vkGetPhysicalDeviceExternalSemaphoreProperties)iproc("vkGetPhysicalDeviceExternalSemaphoreProperties");
  PFN_vkGetPhysicalDeviceExternalFenceProperties fence =
      (PFN_vkGetPhysicalDeviceExternalFenceProperties)iproc("vkGetPhysicalDeviceExternalFenceProperties");
  obj_begin("external-queries");
  kv_int("index", idx);
  if (!need(buf != NULL && sem != NULL && fence != NULL, "an external capability query is NULL")) return;
  VkPhysicalDeviceExternalBufferInfo bi;
  memset(&bi, 0, sizeof bi);
  bi.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO;
  bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  bi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalBufferProperties bp;
  memset(&bp, 0xff, sizeof bp); /* a field the answer leaves alone shows as all ones */
  bp.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES;
  bp.pNext = NULL;
  buf(g_physdevs[idx], &bi, &bp);
  kv_int("buffer_features", bp.externalMemoryProperties.externalMemoryFeatures);
  kv_int("buffer_compatible", bp.externalMemoryProperties.compatibleHandleTypes);
  VkPhysicalDeviceExternalSemaphoreInfo si;
  memset(&si, 0, sizeof si);
  si.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO;
  si.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalSemaphoreProperties sp;
  memset(&sp, 0xff, sizeof sp);
  sp.sType = VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES;
  sp.pNext = NULL;
  sem(g_physdevs[idx], &si, &sp);
  kv_int("semaphore_features", sp.externalSemaphoreFeatures);
  VkPhysicalDeviceExternalFenceInfo fi;
  memset(&fi, 0, sizeof fi);
  fi.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_FENCE_INFO;
  fi.handleType = VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkExternalFenceProperties fp;
  memset(&fp, 0xff, sizeof fp);
  fp.sType = VK_STRUCTURE_TYPE_EXTERNAL_FENCE_PROPERTIES;
  fp.pNext = NULL;
  fence(g_physdevs[idx], &fi, &fp);
  kv_int("fence_features", fp.externalFenceFeatures);
  obj_end();
}

void step_create_device(char *arg) {
  char *pieces[4];
  int n = arg ? split(arg, ';', pieces, 4) : 0;
  static char *exts[MAX_LIST];
  static char *layers[MAX_LIST]; /* ";layers=a,b": the deprecated device layer list */
  int ext_count = 0, layer_count = 0;
  bool maintenance5 = false;
  for (int i = 1; i < n; ++i) {
    if (strncmp(pieces[i], "ext=", 4) == 0) {
      ext_count = split(pieces[i] + 4, ',', exts, MAX_LIST);
    } else if (strncmp(pieces[i], "layers=", 7) == 0) {
      layer_count = split(pieces[i] + 7, ',', layers, MAX_LIST);
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
      .enabledLayerCount = (uint32_t)layer_count,
      .ppEnabledLayerNames = layer_count > 0 ? (const char *const *)layers : NULL,
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

PFN_vkGetDeviceProcAddr loader_gdpa(void) { return (PFN_vkGetDeviceProcAddr)g_gipa(g_instance, "vkGetDeviceProcAddr"); }

void step_gipa(const char *name, bool force_null) {
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
void step_messenger(void) {
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

void step_destroy_device(void) {
  obj_begin("destroy-device");
  if (!need(g_device != VK_NULL_HANDLE, "no device")) return;
  IPROC_VAR(fn, vkDestroyDevice);
  if (fn) fn(g_device, g_allocator);
  g_device = VK_NULL_HANDLE;
  g_device_index = -1;
  kv_bool("called", fn != NULL);
  obj_end();
}

void step_destroy_instance(void) {
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
