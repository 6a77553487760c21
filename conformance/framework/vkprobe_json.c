/* vkprobe's output: the one-JSON-object-per-line writer and the kv_* printers of Vulkan data
 * (results, versions, extension and layer lists, where a function pointer lives). */
#include "conformance/framework/vkprobe_internal.h"

/* ------------------------------------------------------------------------------------------ */
/* JSON output                                                                                 */

bool g_first_field;

void put_json_string(const char *s) {
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

/* Length of the valid UTF-8 sequence at p (at most `left` bytes), 0 when it is not one. */
static size_t utf8_len(const unsigned char *p, size_t left) {
  size_t n = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 0;
  if (n == 0 || n > left || (n == 2 && *p < 0xC2)) return 0;
  for (size_t i = 1; i < n; ++i)
    if ((p[i] & 0xC0) != 0x80) return 0;
  return n;
}

/* A name from a fixed-size array of `max` bytes (deviceName, extensionName, layerName): read up to
 * the first NUL but never past the array, since a driver that lies may leave out the NUL; bytes
 * that are not UTF-8 are written as \u00XX, so the line stays valid JSON. */
void put_json_name(const char *s, size_t max) {
  putchar('"');
  const unsigned char *p = (const unsigned char *)s;
  size_t len = 0;
  while (len < max && p[len] != 0) len++;
  for (size_t i = 0; i < len;) {
    size_t n = utf8_len(p + i, len - i);
    if (n == 0) {
      printf("\\u%04x", p[i]);
      i++;
    } else if (n > 1) {
      fwrite(p + i, 1, n, stdout);
      i += n;
    } else {
      if (p[i] == '"' || p[i] == '\\')
        printf("\\%c", p[i]);
      else if (p[i] < 0x20)
        printf("\\u%04x", p[i]);
      else
        putchar(p[i]);
      i++;
    }
  }
  putchar('"');
}

void kv_name(const char *key, const char *value, size_t max) {
  put_key(key);
  put_json_name(value, max);
}

void put_key(const char *key) {
  if (!g_first_field) putchar(',');
  g_first_field = false;
  put_json_string(key);
  putchar(':');
}

void obj_begin(const char *step) {
  putchar('{');
  g_first_field = true;
  put_key("step");
  put_json_string(step);
}

void obj_end(void) {
  fputs("}\n", stdout);
  fflush(stdout);
}

void kv_str(const char *key, const char *value) {
  put_key(key);
  put_json_string(value);
}

void kv_int(const char *key, long long value) {
  put_key(key);
  printf("%lld", value);
}

void kv_bool(const char *key, bool value) {
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

void kv_result(const char *key, VkResult r) { kv_str(key, result_name(r)); }

/* What a vkCreate* call gave: RESULT_KEY, its VkResult, and HANDLE_KEY, whether the handle is set. */
void kv_created(const char *result_key, VkResult r, const char *handle_key, bool handle) {
  kv_result(result_key, r);
  kv_bool(handle_key, handle);
}

void kv_version(const char *key, uint32_t v) {
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
void end_error(const char *msg) {
  kv_str("error", msg);
  obj_end();
}

/* end_error(MSG) unless `ok`; returns `ok`. */
bool need(bool ok, const char *msg) {
  if (!ok) end_error(msg);
  return ok;
}

void emit_error(const char *step, const char *msg) {
  obj_begin(step);
  end_error(msg);
}

/* Prints "extensions":[...] for an array of VkExtensionProperties. */
void kv_extensions(const char *key, const VkExtensionProperties *e, uint32_t n) {
  put_key(key);
  putchar('[');
  for (uint32_t i = 0; i < n; ++i) {
    if (i) putchar(',');
    fputs("{\"name\":", stdout);
    put_json_name(e[i].extensionName, sizeof e[i].extensionName);
    printf(",\"spec_version\":%u}", e[i].specVersion);
  }
  putchar(']');
}

/* Prints "result", "count" and "layers" for the second call of a vkEnumerate*LayerProperties pair
 * that returned `r`: the names, or with `versions` objects with the name and both versions. */
void kv_layers(VkResult r, const VkLayerProperties *props, uint32_t got, bool versions) {
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
void kv_pointer_origin(PFN_vkVoidFunction fn) {
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
