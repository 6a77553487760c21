/*
 * An incompatible "cJSON" for the interposition test (cjson_interpose_test.cc): exports the
 * cJSON_* names a loader would import, with other signatures and other semantics (every parse
 * fails, every lookup finds nothing, a "tree" is a different struct; only cJSON_Delete forwards to
 * the real one, below). Loaded with LD_PRELOAD before
 * the loader, it wins every cJSON_* reference that is resolved through the dynamic linker's global
 * scope; a loader whose JSON parser is private (compiled in, hidden) never calls it.
 *
 * Every call is appended to $VKT_FAKE_CJSON_LOG as "NAME<TAB>OBJECT" (OBJECT: the file of the
 * caller, dladdr of the return address); the constructor writes "loaded<TAB>PID", proving the
 * library was in the process.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAKE_EXPORT __attribute__((visibility("default")))

/* Not cJSON's struct: a caller that trusted it would read garbage. */
struct fake_tree {
  unsigned magic;
};

static void note(const char *what, const void *caller) {
  const char *path = getenv("VKT_FAKE_CJSON_LOG");
  if (!path || !*path) return;
  Dl_info info;
  const char *obj = "?";
  if (caller && dladdr(caller, &info) && info.dli_fname) obj = info.dli_fname;
  char line[4096];
  int n = snprintf(line, sizeof line, "%s\t%s\n", what, obj);
  if (n < 0) return;
  if ((size_t)n >= sizeof line) n = (int)sizeof line - 1;
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t w = write(fd, line, (size_t)n);
  (void)w;
  close(fd);
}

#define CALLER __builtin_return_address(0)

__attribute__((constructor)) static void fake_cjson_loaded(void) {
  char pid[32];
  snprintf(pid, sizeof pid, "%ld", (long)getpid());
  const char *path = getenv("VKT_FAKE_CJSON_LOG");
  if (!path || !*path) return;
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[64];
  int n = snprintf(line, sizeof line, "loaded\t%s\n", pid);
  if (n > 0) {
    ssize_t w = write(fd, line, (size_t)n);
    (void)w;
  }
  close(fd);
}

FAKE_EXPORT struct fake_tree *cJSON_Parse(const char *text);
FAKE_EXPORT struct fake_tree *cJSON_ParseWithLength(const char *text, size_t len);
FAKE_EXPORT struct fake_tree *cJSON_ParseWithOpts(const char *text, const char **end, int require_nul);
FAKE_EXPORT struct fake_tree *cJSON_ParseWithLengthOpts(const char *text, size_t len, const char **end,
                                                        int require_nul);
FAKE_EXPORT void cJSON_Delete(struct fake_tree *tree);
FAKE_EXPORT struct fake_tree *cJSON_GetObjectItem(const struct fake_tree *o, const char *key);
FAKE_EXPORT struct fake_tree *cJSON_GetObjectItemCaseSensitive(const struct fake_tree *o, const char *key);
FAKE_EXPORT int cJSON_GetArraySize(const struct fake_tree *a);
FAKE_EXPORT struct fake_tree *cJSON_GetArrayItem(const struct fake_tree *a, int i);
FAKE_EXPORT int cJSON_IsString(const struct fake_tree *x);
FAKE_EXPORT int cJSON_IsNumber(const struct fake_tree *x);
FAKE_EXPORT int cJSON_IsObject(const struct fake_tree *x);
FAKE_EXPORT int cJSON_IsArray(const struct fake_tree *x);
FAKE_EXPORT int cJSON_IsBool(const struct fake_tree *x);
FAKE_EXPORT int cJSON_IsTrue(const struct fake_tree *x);
FAKE_EXPORT int cJSON_IsNull(const struct fake_tree *x);
FAKE_EXPORT const char *cJSON_GetErrorPtr(void);
FAKE_EXPORT const char *cJSON_GetStringValue(const struct fake_tree *x);
FAKE_EXPORT void cJSON_Minify(char *json);
FAKE_EXPORT const char *cJSON_Version(void);

struct fake_tree *cJSON_Parse(const char *text) {
  note("cJSON_Parse", CALLER);
  return NULL;
}
struct fake_tree *cJSON_ParseWithLength(const char *text, size_t len) {
  note("cJSON_ParseWithLength", CALLER);
  return NULL;
}
struct fake_tree *cJSON_ParseWithOpts(const char *text, const char **end, int require_nul) {
  note("cJSON_ParseWithOpts", CALLER);
  if (end) *end = text;
  return NULL;
}
struct fake_tree *cJSON_ParseWithLengthOpts(const char *text, size_t len, const char **end, int require_nul) {
  note("cJSON_ParseWithLengthOpts", CALLER);
  if (end) *end = text;
  return NULL;
}
/* The fake never makes a tree, so whatever reaches it here came from the real cJSON (a library that
 * builds JSON with cJSON_CreateObject & co., which are not faked, e.g. the mock driver's call
 * records): hand it back to the real cJSON_Delete, or it would leak. */
void cJSON_Delete(struct fake_tree *tree) {
  note("cJSON_Delete", CALLER);
  if (!tree) return;
  /* The real library is not in the global scope (the mock was dlopen'ed RTLD_LOCAL with it as a
   * dependency), so RTLD_NEXT would not find it: ask for it by name, if it is loaded at all. */
  void *h = dlopen("libcjson.so.1", RTLD_NOW | RTLD_NOLOAD);
  void (*real)(void *) = h ? (void (*)(void *))dlsym(h, "cJSON_Delete") : NULL;
  if (real) real(tree);
  if (h) dlclose(h);
}
struct fake_tree *cJSON_GetObjectItem(const struct fake_tree *o, const char *key) {
  note("cJSON_GetObjectItem", CALLER);
  return NULL;
}
struct fake_tree *cJSON_GetObjectItemCaseSensitive(const struct fake_tree *o, const char *key) {
  note("cJSON_GetObjectItemCaseSensitive", CALLER);
  return NULL;
}
int cJSON_GetArraySize(const struct fake_tree *a) {
  note("cJSON_GetArraySize", CALLER);
  return -1;
}
struct fake_tree *cJSON_GetArrayItem(const struct fake_tree *a, int i) {
  note("cJSON_GetArrayItem", CALLER);
  return NULL;
}
int cJSON_IsString(const struct fake_tree *x) {
  note("cJSON_IsString", CALLER);
  return 0;
}
int cJSON_IsNumber(const struct fake_tree *x) {
  note("cJSON_IsNumber", CALLER);
  return 0;
}
int cJSON_IsObject(const struct fake_tree *x) {
  note("cJSON_IsObject", CALLER);
  return 0;
}
int cJSON_IsArray(const struct fake_tree *x) {
  note("cJSON_IsArray", CALLER);
  return 0;
}
int cJSON_IsBool(const struct fake_tree *x) {
  note("cJSON_IsBool", CALLER);
  return 0;
}
int cJSON_IsTrue(const struct fake_tree *x) {
  note("cJSON_IsTrue", CALLER);
  return 0;
}
int cJSON_IsNull(const struct fake_tree *x) {
  note("cJSON_IsNull", CALLER);
  return 0;
}
const char *cJSON_GetErrorPtr(void) {
  note("cJSON_GetErrorPtr", CALLER);
  return "fake cJSON";
}
const char *cJSON_GetStringValue(const struct fake_tree *x) {
  note("cJSON_GetStringValue", CALLER);
  return NULL;
}
void cJSON_Minify(char *json) { note("cJSON_Minify", CALLER); }
const char *cJSON_Version(void) {
  note("cJSON_Version", CALLER);
  return "0.0.0-fake";
}
