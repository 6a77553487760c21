/*
 * The Khronos validation layer reports a deliberate API misuse to the application's debug-utils
 * messengers, through whichever loader library --loader names (real layers).
 *
 *   validation_messenger --loader=PATH [--enable=app|env] [--misuse=0|1]
 *
 * --enable=app: the application enables VK_LAYER_KHRONOS_validation in VkInstanceCreateInfo;
 * --enable=env: it enables no layer (the caller sets VK_INSTANCE_LAYERS).
 * The program creates an instance with VK_EXT_debug_utils and two messengers (one chained in
 * VkInstanceCreateInfo::pNext, one created with vkCreateDebugUtilsMessengerEXT), a device on the
 * first physical device, then a correct vkCreateBuffer (size 256) and, with --misuse=1, a buffer
 * of size 0 (VUID-VkBufferCreateInfo-size-00912). It prints one line per validation message and a
 * summary, and exits 0 when every step it ran worked (the caller judges the messages).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

struct counts {
  const char *phase;
  unsigned errors_correct; /* validation errors seen in the correct phase */
  unsigned errors_misuse;  /* validation errors seen in the misuse phase */
  unsigned messages;       /* any message at all, every phase */
};

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT types,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
  struct counts *c = user;
  (void)types;
  c->messages++;
  if ((severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) == 0) return VK_FALSE;
  if (strcmp(c->phase, "misuse") == 0) {
    c->errors_misuse++;
  } else {
    c->errors_correct++;
  }
  printf("message phase=%s id=%s\n", c->phase,
         data != NULL && data->pMessageIdName != NULL ? data->pMessageIdName : "(none)");
  return VK_FALSE;
}

#define FAIL(...)                                          \
  do {                                                     \
    fprintf(stderr, "validation_messenger: " __VA_ARGS__); \
    fputc('\n', stderr);                                   \
    return 2;                                              \
  } while (0)

int main(int argc, char **argv) {
  const char *loader = NULL, *enable = "app";
  int misuse = 1;
  for (int i = 1; i < argc; i++) {
    if (strncmp(argv[i], "--loader=", 9) == 0) {
      loader = argv[i] + 9;
    } else if (strncmp(argv[i], "--enable=", 9) == 0) {
      enable = argv[i] + 9;
    } else if (strncmp(argv[i], "--misuse=", 9) == 0) {
      misuse = atoi(argv[i] + 9);
    } else if (strcmp(argv[i], "--help") == 0) {
      printf("usage: %s --loader=PATH [--enable=app|env] [--misuse=0|1]\n", argv[0]);
      return 0;
    } else {
      FAIL("unknown argument %s (try --help)", argv[i]);
    }
  }
  if (loader == NULL) FAIL("--loader=PATH is required");
  if (strcmp(enable, "app") != 0 && strcmp(enable, "env") != 0) FAIL("--enable must be app or env");
  void *lib = dlopen(loader, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) FAIL("cannot load %s: %s", loader, dlerror());
  PFN_vkGetInstanceProcAddr gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
  if (gipa == NULL) FAIL("%s exports no vkGetInstanceProcAddr", loader);
  PFN_vkCreateInstance create_instance = (PFN_vkCreateInstance)gipa(NULL, "vkCreateInstance");

  struct counts create_counts = {.phase = "create"}, counts = {.phase = "correct"};
  VkDebugUtilsMessengerCreateInfoEXT chained = {
      .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
      .messageSeverity =
          VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT,
      .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
      .pfnUserCallback = on_message,
      .pUserData = &create_counts,
  };
  const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
  const char *exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                           .pApplicationName = "validation_messenger",
                           .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                             .pNext = &chained,
                             .pApplicationInfo = &app,
                             .enabledLayerCount = strcmp(enable, "app") == 0 ? 1 : 0,
                             .ppEnabledLayerNames = layers,
                             .enabledExtensionCount = 1,
                             .ppEnabledExtensionNames = exts};
  VkInstance inst = VK_NULL_HANDLE;
  VkResult r = create_instance(&ci, NULL, &inst);
  if (r != VK_SUCCESS) FAIL("vkCreateInstance returned %d", (int)r);

#define IPROC(name) PFN_##name p##name = (PFN_##name)gipa(inst, #name)
  IPROC(vkDestroyInstance);
  IPROC(vkCreateDebugUtilsMessengerEXT);
  IPROC(vkDestroyDebugUtilsMessengerEXT);
  IPROC(vkEnumeratePhysicalDevices);
  IPROC(vkGetPhysicalDeviceQueueFamilyProperties);
  IPROC(vkCreateDevice);
  IPROC(vkGetDeviceProcAddr);
  if (pvkCreateDebugUtilsMessengerEXT == NULL) FAIL("vkCreateDebugUtilsMessengerEXT is NULL");

  VkDebugUtilsMessengerCreateInfoEXT mci = chained;
  mci.pNext = NULL;
  mci.pUserData = &counts;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  r = pvkCreateDebugUtilsMessengerEXT(inst, &mci, NULL, &messenger);
  if (r != VK_SUCCESS) FAIL("vkCreateDebugUtilsMessengerEXT returned %d", (int)r);

  uint32_t n = 1;
  VkPhysicalDevice pd = VK_NULL_HANDLE;
  r = pvkEnumeratePhysicalDevices(inst, &n, &pd);
  if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) FAIL("no physical device (%d)", (int)r);
  uint32_t nq = 0;
  pvkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, NULL);
  if (nq == 0) FAIL("no queue family");
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = 0,
                                 .queueCount = 1,
                                 .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci};
  VkDevice dev = VK_NULL_HANDLE;
  r = pvkCreateDevice(pd, &dci, NULL, &dev);
  if (r != VK_SUCCESS) FAIL("vkCreateDevice returned %d", (int)r);
  PFN_vkCreateBuffer create_buffer = (PFN_vkCreateBuffer)pvkGetDeviceProcAddr(dev, "vkCreateBuffer");
  PFN_vkDestroyBuffer destroy_buffer = (PFN_vkDestroyBuffer)pvkGetDeviceProcAddr(dev, "vkDestroyBuffer");
  PFN_vkDestroyDevice destroy_device = (PFN_vkDestroyDevice)pvkGetDeviceProcAddr(dev, "vkDestroyDevice");
  if (create_buffer == NULL || destroy_buffer == NULL || destroy_device == NULL) FAIL("device functions missing");

  VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                            .size = 256,
                            .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                            .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
  VkBuffer buf = VK_NULL_HANDLE;
  r = create_buffer(dev, &bci, NULL, &buf);
  if (r != VK_SUCCESS) FAIL("correct vkCreateBuffer returned %d", (int)r);
  destroy_buffer(dev, buf, NULL);

  if (misuse) {
    counts.phase = "misuse";
    bci.size = 0; /* VUID-VkBufferCreateInfo-size-00912: size must be greater than 0 */
    buf = VK_NULL_HANDLE;
    r = create_buffer(dev, &bci, NULL, &buf);
    printf("misuse vkCreateBuffer(size=0) returned %d\n", (int)r);
    if (r == VK_SUCCESS && buf != VK_NULL_HANDLE) destroy_buffer(dev, buf, NULL);
    counts.phase = "correct";
  }

  destroy_device(dev, NULL);
  pvkDestroyDebugUtilsMessengerEXT(inst, messenger, NULL);
  pvkDestroyInstance(inst, NULL);
  printf("summary: enable=%s errors_correct=%u errors_misuse=%u create_destroy_errors=%u messages=%u\n", enable,
         counts.errors_correct, counts.errors_misuse, create_counts.errors_correct, counts.messages);
  dlclose(lib);
  return 0;
}
