/* vkprobe's dispatch steps: misuse the loader must survive (robust, bad-handle), driver scenarios
 * swapped between calls (mock-scenario), vkGetDeviceProcAddr, unknown (made-up) commands, the
 * dispatch words of dispatchable handles and command buffers. */
#include "conformance/framework/vkprobe_internal.h"

/* robust:CASE -- one command called with arguments the specification forbids (a NULL count
 * pointer, a count with a NULL array, a NULL name) or allows oddly (an empty layer name). Runs on
 * its own instance (created here when a case needs one; the first physical device). Emits
 * {"step":"robust","case":C,"result":R[,"count":N,"reference_count":M]}; a crash of the loader
 * shows as the probe's exit status. */
void step_robust(const char *which) {
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
void step_bad_handle(const char *arg) {
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
    /* a name the loader does not export (an extension's alias): from vkGetInstanceProcAddr, when a
     * create-instance step made an instance */
    if (sym == NULL && g_instance != VK_NULL_HANDLE) {
      PFN_vkVoidFunction f = g_gipa(g_instance, c);
      memcpy(&sym, &f, sizeof sym);
    }
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
void step_mock_scenario(const char *arg) {
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

void step_gdpa(const char *name) {
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

/* object-names -- vkSetDebugUtilsObjectNameEXT (from vkGetDeviceProcAddr) naming the instance, the
 * device's physical device and the device, with the application's handles:
 * {"step":"object-names","non_null":B,"instance":R,"physical_device":R,"device":R}. */
void step_object_names(void) {
  obj_begin("object-names");
  if (!need(g_device != VK_NULL_HANDLE && g_device_index >= 0, "no device")) return;
  PFN_vkGetDeviceProcAddr gdpa = loader_gdpa();
  PFN_vkSetDebugUtilsObjectNameEXT name =
      gdpa ? (PFN_vkSetDebugUtilsObjectNameEXT)gdpa(g_device, "vkSetDebugUtilsObjectNameEXT") : NULL;
  kv_bool("non_null", name != NULL);
  if (name == NULL) {
    obj_end();
    return;
  }
  VkDebugUtilsObjectNameInfoEXT info;
  memset(&info, 0, sizeof info);
  info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT;
  info.pObjectName = "vkprobe object";
  info.objectType = VK_OBJECT_TYPE_INSTANCE;
  info.objectHandle = (uint64_t)(uintptr_t)g_instance;
  kv_result("instance", name(g_device, &info));
  info.objectType = VK_OBJECT_TYPE_PHYSICAL_DEVICE;
  info.objectHandle = (uint64_t)(uintptr_t)g_physdevs[g_device_index];
  kv_result("physical_device", name(g_device, &info));
  info.objectType = VK_OBJECT_TYPE_DEVICE;
  info.objectHandle = (uint64_t)(uintptr_t)g_device;
  kv_result("device", name(g_device, &info));
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
void step_call_unknown(char *arg, bool device) {
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
void step_unknown_many(char *arg) {
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

void step_resolve_unknown(char *arg) {
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
void step_call_resolved(char *arg) {
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
void step_dispatch_words(void) {
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
void step_command_buffers(const char *arg) {
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
