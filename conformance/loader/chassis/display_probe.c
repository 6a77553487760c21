/*
 * display_probe: the display and platform-surface workload of //conformance/loader/chassis:chassis_test,
 * run through any loader (RunProbe's conventions: `--loader=PATH`, `--driver-lib=` ignored, then the
 * arguments; one JSON object per line on stdout, each with its "step").
 *
 *   display_probe --loader=PATH [layers=A,B,...]
 *
 * Creates an instance (the layers enabled; VK_KHR_surface, VK_KHR_display,
 * VK_KHR_get_display_properties2, VK_EXT_direct_mode_display, VK_EXT_acquire_xlib_display and the
 * xcb, xlib, wayland and headless surface extensions) and on physical device 0:
 *
 *   "displays"  the display as each query returns it: VkDisplayPropertiesKHR::display,
 *               VkDisplayPlanePropertiesKHR::currentDisplay, VkDisplayProperties2KHR's,
 *               vkGetDisplayPlaneSupportedDisplaysKHR's, vkGetRandROutputDisplayEXT's; then each of
 *               them back down through vkAcquireXlibDisplayEXT (fake Display*: the mock driver never
 *               reads it), which the mock driver records with the display it received
 *   "modes"     the display mode from VkDisplayModePropertiesKHR (asked with the first display),
 *               VkDisplayModeProperties2KHR (with the VkDisplayProperties2KHR one) and
 *               vkCreateDisplayModeKHR (with the plane's); the plane capabilities asked with them;
 *               then each back down through vkCreateDisplayPlaneSurfaceKHR, which the mock driver
 *               records with the display mode it received
 *   "surface"   per platform (xcb, xlib, wayland, headless): create the surface (fake window-system
 *               handles), ask vkGetPhysicalDeviceSurfaceSupportKHR with it, destroy it
 *
 * Handles are printed as "0x..." strings (64-bit ids do not fit a JSON number's precision).
 */
#define VK_USE_PLATFORM_XCB_KHR
#define VK_USE_PLATFORM_XLIB_KHR
#define VK_USE_PLATFORM_WAYLAND_KHR
#include <dlfcn.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "loader/vkl_gen_results.h"

/* VK_EXT_acquire_xlib_display with its types spelled out (Display*, RROutput = XID): no Xrandr.h. */
typedef VkResult(VKAPI_PTR *probe_PFN_AcquireXlibDisplayEXT)(VkPhysicalDevice, void *, VkDisplayKHR);
typedef VkResult(VKAPI_PTR *probe_PFN_GetRandROutputDisplayEXT)(VkPhysicalDevice, void *, unsigned long,
                                                                VkDisplayKHR *);

static PFN_vkGetInstanceProcAddr g_gipa;
static VkInstance g_instance;

static void begin(const char *step) { printf("{\"step\":\"%s\"", step); }
static void end(void) {
  puts("}");
  fflush(stdout);
}
static void kv_str(const char *k, const char *v) { printf(",\"%s\":\"%s\"", k, v); }
static void kv_bool(const char *k, bool v) { printf(",\"%s\":%s", k, v ? "true" : "false"); }
static void kv_int(const char *k, long long v) { printf(",\"%s\":%lld", k, v); }
static void kv_handle(const char *k, uint64_t h) { printf(",\"%s\":\"0x%" PRIx64 "\"", k, h); }
static void kv_result(const char *k, VkResult r) {
  const char *name = vkl_gen_result_name(r);
  if (name != NULL)
    kv_str(k, name);
  else
    kv_int(k, (long long)r);
}

#define H(x) ((uint64_t)(uintptr_t)(x))
#define PROC(type, name) ((type)g_gipa(g_instance, name))
/* Declares `PFN_<cmd> var`, the command through the instance's GIPA. */
#define PROC_VAR(var, cmd) PFN_##cmd var = PROC(PFN_##cmd, #cmd)

static void *const kFakeDpy = (void *)(uintptr_t)0x7c0002;

static void displays_and_modes(VkPhysicalDevice pd) {
  PROC_VAR(props, vkGetPhysicalDeviceDisplayPropertiesKHR);
  PROC_VAR(planes, vkGetPhysicalDeviceDisplayPlanePropertiesKHR);
  PROC_VAR(props2, vkGetPhysicalDeviceDisplayProperties2KHR);
  PROC_VAR(supported, vkGetDisplayPlaneSupportedDisplaysKHR);
  probe_PFN_GetRandROutputDisplayEXT randr = PROC(probe_PFN_GetRandROutputDisplayEXT, "vkGetRandROutputDisplayEXT");
  probe_PFN_AcquireXlibDisplayEXT acquire = PROC(probe_PFN_AcquireXlibDisplayEXT, "vkAcquireXlibDisplayEXT");
  PROC_VAR(modes, vkGetDisplayModePropertiesKHR);
  PROC_VAR(modes2, vkGetDisplayModeProperties2KHR);
  PROC_VAR(create_mode, vkCreateDisplayModeKHR);
  PROC_VAR(caps, vkGetDisplayPlaneCapabilitiesKHR);
  PROC_VAR(caps2, vkGetDisplayPlaneCapabilities2KHR);
  PROC_VAR(create_surface, vkCreateDisplayPlaneSurfaceKHR);
  PROC_VAR(destroy_surface, vkDestroySurfaceKHR);
  bool resolved = props && planes && props2 && supported && randr && acquire && modes && modes2 && create_mode &&
                  caps && caps2 && create_surface && destroy_surface;
  begin("displays");
  kv_bool("resolved", resolved);
  if (!resolved) {
    end();
    return;
  }
  VkDisplayKHR d[5] = {VK_NULL_HANDLE};
  VkResult r[5];
  uint32_t n = 1;
  VkDisplayPropertiesKHR dp = {0};
  r[0] = props(pd, &n, &dp);
  d[0] = dp.display;
  n = 1;
  VkDisplayPlanePropertiesKHR pp = {0};
  r[1] = planes(pd, &n, &pp);
  d[1] = pp.currentDisplay;
  n = 1;
  VkDisplayProperties2KHR dp2 = {.sType = VK_STRUCTURE_TYPE_DISPLAY_PROPERTIES_2_KHR};
  r[2] = props2(pd, &n, &dp2);
  d[2] = dp2.displayProperties.display;
  n = 1;
  r[3] = supported(pd, 0, &n, &d[3]);
  r[4] = randr(pd, kFakeDpy, 0x55, &d[4]);
  static const char *const kFrom[5] = {"properties", "plane", "properties2", "supported", "randr"};
  char key[64];
  for (int i = 0; i < 5; i++) {
    snprintf(key, sizeof key, "%s_result", kFrom[i]);
    kv_result(key, r[i]);
    snprintf(key, sizeof key, "%s", kFrom[i]);
    kv_handle(key, H(d[i]));
  }
  for (int i = 0; i < 5; i++) {
    snprintf(key, sizeof key, "acquire_%s_result", kFrom[i]);
    kv_result(key, acquire(pd, kFakeDpy, d[i]));
  }
  end();

  begin("modes");
  VkDisplayModeKHR m[3] = {VK_NULL_HANDLE};
  VkResult mr[3];
  n = 1;
  VkDisplayModePropertiesKHR mp = {0};
  mr[0] = modes(pd, d[0], &n, &mp);
  m[0] = mp.displayMode;
  n = 1;
  VkDisplayModeProperties2KHR mp2 = {.sType = VK_STRUCTURE_TYPE_DISPLAY_MODE_PROPERTIES_2_KHR};
  mr[1] = modes2(pd, d[2], &n, &mp2);
  m[1] = mp2.displayModeProperties.displayMode;
  VkDisplayModeCreateInfoKHR mci = {.sType = VK_STRUCTURE_TYPE_DISPLAY_MODE_CREATE_INFO_KHR,
                                    .parameters = {.visibleRegion = {1920, 1080}, .refreshRate = 60000}};
  mr[2] = create_mode(pd, d[1], &mci, NULL, &m[2]);
  static const char *const kMode[3] = {"properties", "properties2", "created"};
  for (int i = 0; i < 3; i++) {
    snprintf(key, sizeof key, "%s_result", kMode[i]);
    kv_result(key, mr[i]);
    snprintf(key, sizeof key, "%s", kMode[i]);
    kv_handle(key, H(m[i]));
  }
  VkDisplayPlaneCapabilitiesKHR c = {0};
  kv_result("caps_result", caps(pd, m[0], 0, &c));
  VkDisplayPlaneInfo2KHR info = {.sType = VK_STRUCTURE_TYPE_DISPLAY_PLANE_INFO_2_KHR, .mode = m[1]};
  VkDisplayPlaneCapabilities2KHR c2 = {.sType = VK_STRUCTURE_TYPE_DISPLAY_PLANE_CAPABILITIES_2_KHR};
  kv_result("caps2_result", caps2(pd, &info, &c2));
  for (int i = 0; i < 3; i++) {
    VkDisplaySurfaceCreateInfoKHR sci = {
        .sType = VK_STRUCTURE_TYPE_DISPLAY_SURFACE_CREATE_INFO_KHR, .displayMode = m[i], .imageExtent = {1920, 1080}};
    VkSurfaceKHR s = VK_NULL_HANDLE;
    snprintf(key, sizeof key, "surface_%s_result", kMode[i]);
    kv_result(key, create_surface(g_instance, &sci, NULL, &s));
    if (s != VK_NULL_HANDLE) destroy_surface(g_instance, s, NULL);
  }
  end();
}

static void platform_surface(VkPhysicalDevice pd, const char *kind) {
  VkSurfaceKHR s = VK_NULL_HANDLE;
  VkResult r = VK_ERROR_EXTENSION_NOT_PRESENT;
  bool resolved = false;
  if (strcmp(kind, "xcb") == 0) {
    PROC_VAR(f, vkCreateXcbSurfaceKHR);
    VkXcbSurfaceCreateInfoKHR ci = {.sType = VK_STRUCTURE_TYPE_XCB_SURFACE_CREATE_INFO_KHR,
                                    .connection = (xcb_connection_t *)(uintptr_t)0x7c0001,
                                    .window = 0x42};
    if ((resolved = f != NULL)) r = f(g_instance, &ci, NULL, &s);
  } else if (strcmp(kind, "xlib") == 0) {
    PROC_VAR(f, vkCreateXlibSurfaceKHR);
    VkXlibSurfaceCreateInfoKHR ci = {
        .sType = VK_STRUCTURE_TYPE_XLIB_SURFACE_CREATE_INFO_KHR, .dpy = (Display *)kFakeDpy, .window = 0x43};
    if ((resolved = f != NULL)) r = f(g_instance, &ci, NULL, &s);
  } else if (strcmp(kind, "wayland") == 0) {
    PROC_VAR(f, vkCreateWaylandSurfaceKHR);
    VkWaylandSurfaceCreateInfoKHR ci = {.sType = VK_STRUCTURE_TYPE_WAYLAND_SURFACE_CREATE_INFO_KHR,
                                        .display = (struct wl_display *)(uintptr_t)0x7c0003,
                                        .surface = (struct wl_surface *)(uintptr_t)0x7c0004};
    if ((resolved = f != NULL)) r = f(g_instance, &ci, NULL, &s);
  } else {
    PROC_VAR(f, vkCreateHeadlessSurfaceEXT);
    VkHeadlessSurfaceCreateInfoEXT ci = {.sType = VK_STRUCTURE_TYPE_HEADLESS_SURFACE_CREATE_INFO_EXT};
    if ((resolved = f != NULL)) r = f(g_instance, &ci, NULL, &s);
  }
  begin("surface");
  kv_str("kind", kind);
  kv_bool("resolved", resolved);
  kv_result("create_result", r);
  kv_handle("surface", H(s));
  PROC_VAR(support, vkGetPhysicalDeviceSurfaceSupportKHR);
  PROC_VAR(destroy, vkDestroySurfaceKHR);
  if (s != VK_NULL_HANDLE && support != NULL && destroy != NULL) {
    VkBool32 ok = VK_FALSE;
    kv_result("support_result", support(pd, 0, s, &ok));
    kv_bool("supported", ok == VK_TRUE);
    destroy(g_instance, s, NULL);
  }
  end();
}

int main(int argc, char **argv) {
  const char *loader = NULL;
  char *layers = NULL;
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--loader=", 9) == 0) loader = argv[i] + 9;
    if (strncmp(argv[i], "layers=", 7) == 0) layers = argv[i] + 7;
  }
  void *lib = loader ? dlopen(loader, RTLD_NOW | RTLD_LOCAL) : NULL;
  g_gipa = lib ? (PFN_vkGetInstanceProcAddr)(uintptr_t)dlsym(lib, "vkGetInstanceProcAddr") : NULL;
  if (g_gipa == NULL) {
    begin("create-instance");
    kv_str("error", "no loader");
    end();
    return 1;
  }
  const char *layer_names[8];
  uint32_t nlayers = 0;
  for (char *tok = layers ? strtok(layers, ",") : NULL; tok && nlayers < 8; tok = strtok(NULL, ","))
    layer_names[nlayers++] = tok;
  static const char *const kExts[] = {
      "VK_KHR_surface",
      "VK_KHR_display",
      "VK_KHR_get_display_properties2",
      "VK_EXT_direct_mode_display",
      "VK_EXT_acquire_xlib_display",
      "VK_KHR_xcb_surface",
      "VK_KHR_xlib_surface",
      "VK_KHR_wayland_surface",
      "VK_EXT_headless_surface",
  };
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                             .pApplicationInfo = &app,
                             .enabledLayerCount = nlayers,
                             .ppEnabledLayerNames = layer_names,
                             .enabledExtensionCount = sizeof kExts / sizeof kExts[0],
                             .ppEnabledExtensionNames = kExts};
  PFN_vkCreateInstance create = (PFN_vkCreateInstance)g_gipa(VK_NULL_HANDLE, "vkCreateInstance");
  VkResult r = create ? create(&ci, NULL, &g_instance) : VK_ERROR_INITIALIZATION_FAILED;
  begin("create-instance");
  kv_result("result", r);
  end();
  if (r != VK_SUCCESS) return 1;
  PROC_VAR(enumerate, vkEnumeratePhysicalDevices);
  VkPhysicalDevice pd = VK_NULL_HANDLE;
  uint32_t n = 1;
  r = enumerate ? enumerate(g_instance, &n, &pd) : VK_ERROR_INITIALIZATION_FAILED;
  begin("devices");
  kv_result("result", r);
  kv_int("count", n);
  end();
  if (r >= 0 && n > 0) {
    displays_and_modes(pd);
    static const char *const kKinds[] = {"xcb", "xlib", "wayland", "headless"};
    for (size_t i = 0; i < sizeof kKinds / sizeof kKinds[0]; i++) platform_surface(pd, kKinds[i]);
  }
  PROC_VAR(destroy, vkDestroyInstance);
  if (destroy) destroy(g_instance, NULL);
  begin("destroy-instance");
  kv_bool("called", destroy != NULL);
  end();
  dlclose(lib);
  return 0;
}
