/* What vkprobe records beside the steps' results: debug messages captured by its debug-utils and
 * debug-report callbacks, and the counting allocation callbacks; the two closing lines that print
 * them ("messages", "alloc"). */
#include "conformance/framework/vkprobe_internal.h"

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
bool g_in_create;

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

VKAPI_ATTR VkBool32 VKAPI_CALL utils_callback(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
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

VKAPI_ATTR VkBool32 VKAPI_CALL report_callback(VkDebugReportFlagsEXT flags, VkDebugReportObjectTypeEXT type,
                                               uint64_t object, size_t location, int32_t code, const char *layer_prefix,
                                               const char *message, void *user) {
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

bool g_alloc_used;
/* alloc=fail:N (create-instance): the N-th allocation or reallocation request made through the
 * counting callbacks since the process began fails (returns NULL), unless a later create-instance
 * with alloc=counting disarmed it first; 0 = none. */
uint64_t g_alloc_fail_at;
static uint64_t g_alloc_requests;
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

const VkAllocationCallbacks g_counting_callbacks = {
    .pUserData = NULL,
    .pfnAllocation = counting_alloc,
    .pfnReallocation = counting_realloc,
    .pfnFree = counting_free,
};

void emit_messages(void) {
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

void emit_alloc_stats(void) {
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
