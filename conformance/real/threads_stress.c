/* threads_stress: 16 threads (default) hammer the loader under test at once. Each thread, ITER
 * times: creates its own instance, enumerates and queries physical devices, creates a device,
 * resolves and calls device commands (queue, wait-idle, command pool and buffers), destroys it all;
 * and in between calls physical-device commands and creates/destroys devices on one instance shared
 * by all threads, plus global commands. Meant for ThreadSanitizer (--config=tsan, conformance/real
 * threads_test.sh) and, in the normal build, as a plain stress test.
 *
 *   threads_stress --loader=PATH [--threads=N] [--iterations=N]
 * Exit 0 when every Vulkan call succeeded; prints one summary line.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

static PFN_vkGetInstanceProcAddr g_gipa;
static VkInstance g_shared;
static int g_iterations = 20;
static atomic_int g_failures;
static atomic_int g_calls;

#define FAIL_IF(cond, what)                                                     \
  do {                                                                          \
    atomic_fetch_add(&g_calls, 1);                                              \
    if (cond) {                                                                 \
      fprintf(stderr, "threads_stress: %s failed (line %d)\n", what, __LINE__); \
      atomic_fetch_add(&g_failures, 1);                                         \
      return false;                                                             \
    }                                                                           \
  } while (0)

#define IPROC(inst, type, name) ((type)g_gipa(inst, name))

static bool create_instance(VkInstance *out) {
  PFN_vkCreateInstance create = IPROC(NULL, PFN_vkCreateInstance, "vkCreateInstance");
  VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_1};
  VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
  FAIL_IF(create == NULL || create(&ci, NULL, out) != VK_SUCCESS, "vkCreateInstance");
  return true;
}

/* Queries physical device 0 of `inst`, creates a device on it, exercises device dispatch. */
static bool use_instance(VkInstance inst) {
  PFN_vkEnumeratePhysicalDevices enumerate = IPROC(inst, PFN_vkEnumeratePhysicalDevices, "vkEnumeratePhysicalDevices");
  uint32_t n = 0;
  FAIL_IF(enumerate(inst, &n, NULL) != VK_SUCCESS || n == 0, "vkEnumeratePhysicalDevices (count)");
  VkPhysicalDevice pds[8];
  if (n > 8) n = 8;
  VkResult r = enumerate(inst, &n, pds);
  FAIL_IF(r != VK_SUCCESS && r != VK_INCOMPLETE, "vkEnumeratePhysicalDevices");
  VkPhysicalDeviceProperties props;
  IPROC(inst, PFN_vkGetPhysicalDeviceProperties, "vkGetPhysicalDeviceProperties")(pds[0], &props);
  VkPhysicalDeviceProperties2 props2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  PFN_vkGetPhysicalDeviceProperties2 p2 =
      IPROC(inst, PFN_vkGetPhysicalDeviceProperties2, "vkGetPhysicalDeviceProperties2");
  if (p2 != NULL) p2(pds[0], &props2);
  uint32_t qn = 0;
  IPROC(inst, PFN_vkGetPhysicalDeviceQueueFamilyProperties, "vkGetPhysicalDeviceQueueFamilyProperties")
  (pds[0], &qn, NULL);
  FAIL_IF(qn == 0, "vkGetPhysicalDeviceQueueFamilyProperties");
  uint32_t en = 0;
  FAIL_IF(IPROC(inst, PFN_vkEnumerateDeviceExtensionProperties, "vkEnumerateDeviceExtensionProperties")(
              pds[0], NULL, &en, NULL) != VK_SUCCESS,
          "vkEnumerateDeviceExtensionProperties");

  float prio = 1.0f;
  VkDeviceQueueCreateInfo q = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueCount = 1, .pQueuePriorities = &prio};
  VkDeviceCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .queueCreateInfoCount = 1, .pQueueCreateInfos = &q};
  VkDevice dev = VK_NULL_HANDLE;
  FAIL_IF(IPROC(inst, PFN_vkCreateDevice, "vkCreateDevice")(pds[0], &dci, NULL, &dev) != VK_SUCCESS, "vkCreateDevice");
  PFN_vkGetDeviceProcAddr gdpa = IPROC(inst, PFN_vkGetDeviceProcAddr, "vkGetDeviceProcAddr");
#define DPROC(type, name) ((type)gdpa(dev, name))
  VkQueue queue = VK_NULL_HANDLE;
  DPROC(PFN_vkGetDeviceQueue, "vkGetDeviceQueue")(dev, 0, 0, &queue);
  bool ok = queue != VK_NULL_HANDLE;
  ok = ok && DPROC(PFN_vkQueueWaitIdle, "vkQueueWaitIdle")(queue) == VK_SUCCESS;
  VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  VkCommandPool pool = VK_NULL_HANDLE;
  ok = ok && DPROC(PFN_vkCreateCommandPool, "vkCreateCommandPool")(dev, &pci, NULL, &pool) == VK_SUCCESS;
  VkCommandBuffer cbs[4] = {0};
  VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                    .commandPool = pool,
                                    .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                    .commandBufferCount = 4};
  ok = ok && DPROC(PFN_vkAllocateCommandBuffers, "vkAllocateCommandBuffers")(dev, &ai, cbs) == VK_SUCCESS;
  if (ok) DPROC(PFN_vkFreeCommandBuffers, "vkFreeCommandBuffers")(dev, pool, 4, cbs);
  if (pool != VK_NULL_HANDLE) DPROC(PFN_vkDestroyCommandPool, "vkDestroyCommandPool")(dev, pool, NULL);
  ok = ok && DPROC(PFN_vkDeviceWaitIdle, "vkDeviceWaitIdle")(dev) == VK_SUCCESS;
#undef DPROC
  IPROC(inst, PFN_vkDestroyDevice, "vkDestroyDevice")(dev, NULL);
  FAIL_IF(!ok, "device dispatch");
  return true;
}

static void *worker(void *arg) {
  (void)arg;
  for (int i = 0; i < g_iterations; ++i) {
    uint32_t n = 0;
    PFN_vkEnumerateInstanceExtensionProperties ext =
        IPROC(NULL, PFN_vkEnumerateInstanceExtensionProperties, "vkEnumerateInstanceExtensionProperties");
    if (ext == NULL || ext(NULL, &n, NULL) != VK_SUCCESS) atomic_fetch_add(&g_failures, 1);
    VkInstance inst = VK_NULL_HANDLE;
    if (create_instance(&inst)) {
      use_instance(inst);
      IPROC(inst, PFN_vkDestroyInstance, "vkDestroyInstance")(inst, NULL);
    }
    use_instance(g_shared);
  }
  return NULL;
}

int main(int argc, char **argv) {
  const char *loader = NULL;
  int threads = 16;
  for (int i = 1; i < argc; ++i) {
    if (strncmp(argv[i], "--loader=", 9) == 0)
      loader = argv[i] + 9;
    else if (strncmp(argv[i], "--threads=", 10) == 0)
      threads = atoi(argv[i] + 10);
    else if (strncmp(argv[i], "--iterations=", 13) == 0)
      g_iterations = atoi(argv[i] + 13);
    else {
      fprintf(stderr, "usage: threads_stress --loader=PATH [--threads=N] [--iterations=N]\n");
      return 2;
    }
  }
  if (loader == NULL || threads < 1 || threads > 256 || g_iterations < 1) {
    fprintf(stderr, "threads_stress: --loader=PATH required; 1..256 threads\n");
    return 2;
  }
  void *lib = dlopen(loader, RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    fprintf(stderr, "threads_stress: %s\n", dlerror());
    return 3;
  }
  g_gipa = (PFN_vkGetInstanceProcAddr)dlsym(lib, "vkGetInstanceProcAddr");
  if (g_gipa == NULL || !create_instance(&g_shared)) return 1;
  pthread_t tid[256];
  for (int i = 0; i < threads; ++i)
    if (pthread_create(&tid[i], NULL, worker, NULL) != 0) return 1;
  for (int i = 0; i < threads; ++i) pthread_join(tid[i], NULL);
  IPROC(g_shared, PFN_vkDestroyInstance, "vkDestroyInstance")(g_shared, NULL);
  int failures = atomic_load(&g_failures);
  printf("threads_stress: %d threads x %d iterations, %d checked calls, %d failures\n", threads, g_iterations,
         atomic_load(&g_calls), failures);
  /* The loader stays loaded: drivers' atexit handlers may still run. */
  return failures == 0 ? 0 : 1;
}
