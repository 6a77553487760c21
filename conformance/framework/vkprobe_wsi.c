/* vkprobe's WSI steps: surfaces with fake platform handles, surface queries, swapchains, the
 * null-count idiom, display queries, tool properties, surface capabilities 2, Xlib displays. */
#include "conformance/framework/vkprobe_internal.h"

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

void step_create_surface(const char *arg) {
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

void step_surface_queries(const char *arg) {
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

void step_create_swapchain(void) {
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
void step_null_count(const char *cmd) {
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

void step_destroy_surface(void) {
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
void step_display_queries(const char *arg) {
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
void step_tool_properties(char *arg) {
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
    kv_int("reported_count", n);
    if (n > 8) n = 8; /* a count above the array (a driver that lies, passed through) */
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

/* surface-formats2:N: vkGetPhysicalDeviceSurfaceFormats2KHR with the current surface, the two
 * calls, the array on the heap holding exactly the count the first call gave (a loader writing
 * past it is a heap overflow the sanitizers see): formats up to the count the fill call gave back,
 * at most the array's. */
void step_surface_formats2(const char *arg) {
  uint32_t idx;
  if (!physdev_arg("surface-formats2", arg ? arg : "", &idx)) return;
  IPROC_VAR(fn, vkGetPhysicalDeviceSurfaceFormats2KHR);
  obj_begin("surface-formats2");
  kv_int("index", idx);
  kv_bool("resolved", fn != NULL);
  if (fn != NULL) {
    VkPhysicalDeviceSurfaceInfo2KHR info = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SURFACE_INFO_2_KHR,
                                            .surface = g_surface};
    uint32_t n = 0;
    kv_result("count_result", fn(g_physdevs[idx], &info, &n, NULL));
    kv_int("count", n);
    if (n > 64) n = 64;
    uint32_t cap = n;
    VkSurfaceFormat2KHR *f = calloc(cap ? cap : 1, sizeof *f);
    if (!need(f != NULL, "out of memory")) return;
    init_stype(f, cap, sizeof *f, VK_STRUCTURE_TYPE_SURFACE_FORMAT_2_KHR);
    kv_result("result", fn(g_physdevs[idx], &info, &n, f));
    kv_int("reported_count", n);
    put_key("formats");
    putchar('[');
    for (uint32_t i = 0; i < n && i < cap; ++i) printf("%s%d", i ? "," : "", (int)f[i].surfaceFormat.format);
    putchar(']');
    free(f);
  }
  obj_end();
}

/* surface-caps2ext:N: vkGetPhysicalDeviceSurfaceCapabilities2EXT with the current surface. */
void step_surface_caps2ext(const char *arg) {
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
void step_surface_caps2(char *arg) {
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
void step_xlib_display(const char *arg) {
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
