/* The threads-devices step: vkCreateDevice / vkDestroyDevice on the current instance from many
 * threads at once (the loader's "Threads" requirement: every exported command may be called from
 * any thread, docs/architecture.md "Concurrency"). */
#include <pthread.h>

#include "conformance/framework/vkprobe_internal.h"

#define MAX_THREADS 64

struct shared {
  pthread_barrier_t start;
  VkPhysicalDevice physdev;
  PFN_vkCreateDevice create;
  PFN_vkDestroyDevice destroy;
  PFN_vkGetDeviceProcAddr gdpa;
  unsigned long iterations;
};

struct worker {
  pthread_t thread;
  struct shared *sh;
  unsigned long created, failed, resolved, queues, idle_ok, destroyed;
  VkResult first_error;
};

/* One thread: create a device, resolve two device commands through the loader's
 * vkGetDeviceProcAddr (with layers: through the chain), fetch queue (0,0), wait for the device to
 * be idle, destroy it; `iterations` times. Counts what worked. */
static void *worker_main(void *p) {
  struct worker *w = p;
  struct shared *sh = w->sh;
  pthread_barrier_wait(&sh->start);
  float priority = 1.0f;
  VkDeviceQueueCreateInfo q = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = 0,
      .queueCount = 1,
      .pQueuePriorities = &priority,
  };
  VkDeviceCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &q,
  };
  for (unsigned long i = 0; i < sh->iterations; ++i) {
    VkDevice dev = VK_NULL_HANDLE;
    VkResult r = sh->create(sh->physdev, &ci, NULL, &dev);
    if (r != VK_SUCCESS || dev == VK_NULL_HANDLE) {
      if (w->failed++ == 0) w->first_error = r;
      continue;
    }
    w->created++;
    PFN_vkGetDeviceQueue get_queue = (PFN_vkGetDeviceQueue)sh->gdpa(dev, "vkGetDeviceQueue");
    PFN_vkDeviceWaitIdle wait_idle = (PFN_vkDeviceWaitIdle)sh->gdpa(dev, "vkDeviceWaitIdle");
    if (get_queue != NULL && wait_idle != NULL) w->resolved++;
    if (get_queue != NULL) {
      VkQueue queue = VK_NULL_HANDLE;
      get_queue(dev, 0, 0, &queue);
      /* The loader wrote the device's dispatch word into the queue (LDP_DRIVER_7 dispatchable
       * objects): a command on the queue reaches the same chain. */
      if (queue != VK_NULL_HANDLE && *(void **)(void *)queue == *(void **)(void *)dev) w->queues++;
    }
    if (wait_idle != NULL && wait_idle(dev) == VK_SUCCESS) w->idle_ok++;
    sh->destroy(dev, NULL);
    w->destroyed++;
  }
  return NULL;
}

/* threads-devices:THREADS,ITERATIONS[,N]: on physical device N (default 0) of the current instance.
 * Prints threads, iterations, created, failed, first_error (when any failed), resolved, queues,
 * idle_ok, destroyed (totals over every thread). */
void step_threads_devices(char *arg) {
  char *pieces[3];
  int n = split(arg, ',', pieces, 3);
  unsigned long threads = 0, iterations = 0;
  if (n < 2 || !parse_uint(pieces[0], &threads) || !parse_uint(pieces[1], &iterations) || threads == 0 ||
      threads > MAX_THREADS) {
    emit_error("threads-devices", "usage: threads-devices:THREADS(1-64),ITERATIONS[,N]");
    return;
  }
  uint32_t idx;
  if (!physdev_arg("threads-devices", n > 2 ? pieces[2] : "0", &idx)) return;
  struct shared sh = {.physdev = g_physdevs[idx], .iterations = iterations};
  IPROC_VAR(create, vkCreateDevice);
  IPROC_VAR(destroy, vkDestroyDevice);
  sh.create = create;
  sh.destroy = destroy;
  sh.gdpa = loader_gdpa();
  obj_begin("threads-devices");
  if (!need(create != NULL && destroy != NULL && sh.gdpa != NULL, "vkCreateDevice / vkDestroyDevice not resolved"))
    return;
  static struct worker workers[MAX_THREADS];
  memset(workers, 0, sizeof(workers));
  pthread_barrier_init(&sh.start, NULL, (unsigned)threads);
  unsigned long started = 0;
  for (unsigned long t = 0; t < threads; ++t) {
    workers[t].sh = &sh;
    if (pthread_create(&workers[t].thread, NULL, worker_main, &workers[t]) != 0) break;
    started++;
  }
  if (started != threads) {
    /* The barrier waits for every thread: without all of them, the started ones would never go. */
    fprintf(stderr, "vkprobe: pthread_create failed after %lu threads\n", started);
    _exit(4);
  }
  struct worker sum = {.first_error = VK_SUCCESS};
  for (unsigned long t = 0; t < threads; ++t) {
    pthread_join(workers[t].thread, NULL);
    sum.created += workers[t].created;
    sum.resolved += workers[t].resolved;
    sum.queues += workers[t].queues;
    sum.idle_ok += workers[t].idle_ok;
    sum.destroyed += workers[t].destroyed;
    if (workers[t].failed != 0 && sum.failed == 0) sum.first_error = workers[t].first_error;
    sum.failed += workers[t].failed;
  }
  pthread_barrier_destroy(&sh.start);
  kv_int("threads", (long long)threads);
  kv_int("iterations", (long long)iterations);
  kv_int("created", (long long)sum.created);
  kv_int("failed", (long long)sum.failed);
  if (sum.failed != 0) kv_result("first_error", sum.first_error);
  kv_int("resolved", (long long)sum.resolved);
  kv_int("queues", (long long)sum.queues);
  kv_int("idle_ok", (long long)sum.idle_ok);
  kv_int("destroyed", (long long)sum.destroyed);
  obj_end();
}
