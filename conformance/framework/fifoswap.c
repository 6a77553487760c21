/*
 * libvkt_fifoswap.so: an LD_PRELOAD shim that renames a FIFO over a file right after the process
 * opened it without blocking: exactly between a loader's non-blocking check of a library path and
 * dlopen's own, blocking open(2) of it (the window RULE_ADVERSARIAL_INPUT asks a loader to survive;
 * conformance/loader/fifo/). No timing, no race: every run takes the same turn.
 *
 * Control, read from the environment:
 *   VKT_FIFOSWAP_PATH     the file watched.
 *   VKT_FIFOSWAP_FIFO     a FIFO; after the first open(2) of PATH with O_NONBLOCK, a hard link of
 *                         it is renamed over PATH.
 *   VKT_FIFOSWAP_RESTORE  (optional) a hard link of the original file; at the next open(2) of any
 *                         other file it is renamed back over PATH first, so that a later attempt
 *                         finds the library again (a loader that stats PATH sees it changed).
 *   VKT_FIFOSWAP_LOG      (optional) file to which "swapped" and "restored" are appended.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef int (*open_fn)(const char *, int, ...);

static int g_state; /* 0: not swapped yet; 1: FIFO in place; 2: restored (done) */

static void note(const char *what) {
  const char *log = getenv("VKT_FIFOSWAP_LOG");
  if (log == NULL) return;
  FILE *f = fopen(log, "a");
  if (f == NULL) return;
  fprintf(f, "%s\n", what);
  fclose(f);
}

/* Renames a fresh hard link of `src` over `path`: one atomic step, the path always exists. */
static int put(const char *src, const char *path) {
  char tmp[4096];
  if (snprintf(tmp, sizeof(tmp), "%s.fifoswap", path) >= (int)sizeof(tmp)) return -1;
  unlink(tmp);
  if (link(src, tmp) != 0) return -1;
  return rename(tmp, path);
}

static int watched(const char *path) {
  const char *w = getenv("VKT_FIFOSWAP_PATH");
  return w != NULL && path != NULL && strcmp(w, path) == 0;
}

static int around(const char *name, const char *path, int flags, mode_t mode) {
  open_fn real = (open_fn)dlsym(RTLD_NEXT, name);
  if (real == NULL) return -1;
  if (!watched(path) && g_state == 1) {
    const char *restore = getenv("VKT_FIFOSWAP_RESTORE");
    if (restore != NULL && put(restore, getenv("VKT_FIFOSWAP_PATH")) == 0) {
      g_state = 2;
      note("restored");
    }
  }
  int fd = real(path, flags, mode);
  if (watched(path) && g_state == 0 && (flags & O_NONBLOCK) != 0) {
    const char *fifo = getenv("VKT_FIFOSWAP_FIFO");
    if (fifo != NULL && put(fifo, path) == 0) {
      g_state = 1;
      note("swapped");
    }
  }
  return fd;
}

static mode_t mode_of(int flags, va_list ap) {
  return (flags & (O_CREAT | O_TMPFILE)) != 0 ? (mode_t)va_arg(ap, int) : 0;
}

__attribute__((visibility("default"))) int open(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = mode_of(flags, ap);
  va_end(ap);
  return around("open", path, flags, mode);
}

__attribute__((visibility("default"))) int open64(const char *path, int flags, ...) {
  va_list ap;
  va_start(ap, flags);
  mode_t mode = mode_of(flags, ap);
  va_end(ap);
  return around("open64", path, flags, mode);
}
