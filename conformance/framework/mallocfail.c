/*
 * libvkt_mallocfail.so: an LD_PRELOAD shim that makes exactly one allocation of the loader under
 * test fail, to prove that an allocation failure is reported (VK_ERROR_OUT_OF_HOST_MEMORY) and
 * never costs a driver or a layer for the rest of the process (conformance/loader/oom/).
 *
 * Only allocations called directly from the library whose path contains $VKT_MALLOCFAIL_LIB are
 * counted (malloc, calloc, realloc, strdup, strndup; the caller is told apart by its return
 * address). The $VKT_MALLOCFAIL_NTH-th of them returns NULL with errno ENOMEM; all others, and
 * every allocation of other objects, succeed. When the failure is injected the shim writes one line
 * to $VKT_MALLOCFAIL_REPORT ("injected N"), so a test sweeping N knows when it has gone past the
 * last allocation. With $VKT_MALLOCFAIL_TOTAL set, the shim writes the number of allocations it
 * counted ("total K") to that file when the process ends, so a test can first learn how many
 * allocations some steps make (VKT_MALLOCFAIL_NTH larger than that) and then fail only those. The
 * real allocator is glibc's (__libc_malloc and friends), so the shim needs no
 * dlsym and cannot recurse.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static atomic_ulong g_count;
static _Thread_local int t_inside; /* dladdr may allocate: do not count ourselves */

static int target_caller(const void *ra) {
  static const char *lib;
  static unsigned long nth;
  static int ready;
  if (!ready) {
    lib = getenv("VKT_MALLOCFAIL_LIB");
    const char *n = getenv("VKT_MALLOCFAIL_NTH");
    nth = n != NULL ? strtoul(n, NULL, 10) : 0;
    ready = 1;
  }
  if (lib == NULL || nth == 0 || t_inside) return 0;
  t_inside = 1;
  Dl_info info;
  int hit = dladdr(ra, &info) != 0 && info.dli_fname != NULL && strstr(info.dli_fname, lib) != NULL;
  t_inside = 0;
  if (!hit) return 0;
  unsigned long k = atomic_fetch_add(&g_count, 1) + 1;
  if (k != nth) return 0;
  const char *report = getenv("VKT_MALLOCFAIL_REPORT");
  if (report != NULL) {
    int fd = open(report, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd >= 0) {
      char line[64];
      int len = snprintf(line, sizeof(line), "injected %lu\n", k);
      if (len > 0) {
        ssize_t w = write(fd, line, (size_t)len);
        (void)w;
      }
      close(fd);
    }
  }
  return 1;
}

__attribute__((destructor)) static void write_total(void) {
  const char *path = getenv("VKT_MALLOCFAIL_TOTAL");
  if (path == NULL) return;
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[64];
  int len = snprintf(line, sizeof(line), "total %lu\n", (unsigned long)atomic_load(&g_count));
  if (len > 0) {
    ssize_t w = write(fd, line, (size_t)len);
    (void)w;
  }
  close(fd);
}

#define RA __builtin_extract_return_addr(__builtin_return_address(0))
#define EXPORT __attribute__((visibility("default")))

EXPORT void *malloc(size_t n) {
  if (target_caller(RA)) {
    errno = ENOMEM;
    return NULL;
  }
  return __libc_malloc(n);
}

EXPORT void *calloc(size_t n, size_t m) {
  if (target_caller(RA)) {
    errno = ENOMEM;
    return NULL;
  }
  return __libc_calloc(n, m);
}

EXPORT void *realloc(void *p, size_t n) {
  if (target_caller(RA)) {
    errno = ENOMEM;
    return NULL;
  }
  return __libc_realloc(p, n);
}

EXPORT void free(void *p) { __libc_free(p); }

EXPORT char *strdup(const char *s) {
  if (target_caller(RA)) {
    errno = ENOMEM;
    return NULL;
  }
  size_t n = strlen(s) + 1;
  char *d = __libc_malloc(n);
  if (d != NULL) memcpy(d, s, n);
  return d;
}

EXPORT char *strndup(const char *s, size_t max) {
  if (target_caller(RA)) {
    errno = ENOMEM;
    return NULL;
  }
  size_t n = strnlen(s, max);
  char *d = __libc_malloc(n + 1);
  if (d != NULL) {
    memcpy(d, s, n);
    d[n] = '\0';
  }
  return d;
}
