/*
 * libvkt_fsshim.so: an LD_PRELOAD shim that gives the loader under test a fake file system, the
 * way the Khronos loader's own test framework does, and fakes elevated privileges.
 *
 * It interposes only the calls a loader is expected to use for its files (opendir, access, fopen,
 * fopen64) and for elevation (secure_getenv, geteuid, getegid). A loader that reaches its files
 * through other calls (stat, open) sees the host instead, and the conformance test
 * (conformance/loader/fsshim/) notices.
 *
 * Control, read once from the environment:
 *   VKT_FSSHIM_MAP       "FROM=TO;FROM=TO...": a path equal to FROM or below it (FROM + "/...")
 *                        is redirected to TO (+ the rest); first matching entry wins.
 *   VKT_FSSHIM_LOG       file to which every interposed call on a mapped path appends one line
 *                        "CALL PATH" (the path as the loader asked for it).
 *   VKT_FSSHIM_ELEVATED  "1": secure_getenv() answers NULL and the effective ids differ from the
 *                        real ones.
 *   VKT_FSSHIM_STDERR    file to which every byte written to stderr through fputs or fputc is
 *                        appended as well (the calls the documents name for loader log lines).
 *   VKT_FSSHIM_EACCES    "PATH;PATH...": fopen() of exactly these paths (as the loader asks for
 *                        them, before mapping), and access() asking for R_OK/W_OK/X_OK, fail with
 *                        EACCES, as for a file the process may not read (the tests run as root,
 *                        which reads any file); access(F_OK) still says it exists, as the kernel does.
 *   VKT_FSSHIM_OPENDIR_PREFIX  "1": opendir() of a mapped path that is not a directory opens the
 *                        nearest directory above it inside the mapping instead of failing, as the
 *                        Khronos loader's test framework does (its folder lookup matches any path
 *                        that starts with a faked folder). A loader must not take a file for a
 *                        directory because opendir() answered for it.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_MAPS 32

struct map {
  char *from, *to;
  size_t from_len;
};

static struct map g_maps[MAX_MAPS];
static size_t g_map_count;
static const char *g_log;
static const char *g_stderr_copy;
static int g_elevated;
static int g_opendir_prefix;
static const char *g_eacces;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void init(void) {
  const char *m = getenv("VKT_FSSHIM_MAP");
  g_log = getenv("VKT_FSSHIM_LOG");
  g_stderr_copy = getenv("VKT_FSSHIM_STDERR");
  const char *e = getenv("VKT_FSSHIM_ELEVATED");
  g_elevated = e != NULL && strcmp(e, "1") == 0;
  const char *op = getenv("VKT_FSSHIM_OPENDIR_PREFIX");
  g_opendir_prefix = op != NULL && strcmp(op, "1") == 0;
  g_eacces = getenv("VKT_FSSHIM_EACCES");
  if (m == NULL) return;
  char *copy = strdup(m);
  if (copy == NULL) return;
  char *save = NULL;
  for (char *tok = strtok_r(copy, ";", &save); tok != NULL && g_map_count < MAX_MAPS;
       tok = strtok_r(NULL, ";", &save)) {
    char *eq = strchr(tok, '=');
    if (eq == NULL || eq == tok) continue;
    *eq = '\0';
    g_maps[g_map_count].from = tok;
    g_maps[g_map_count].to = eq + 1;
    g_maps[g_map_count].from_len = strlen(tok);
    g_map_count++;
  }
  /* `copy` stays allocated for the life of the process: the table points into it. */
}

/* The redirected path in `buf`, or NULL when `path` is not mapped. */
static const char *mapped(const char *path, char *buf, size_t len) {
  pthread_once(&g_once, init);
  if (path == NULL) return NULL;
  for (size_t i = 0; i < g_map_count; i++) {
    const struct map *mp = &g_maps[i];
    if (strncmp(path, mp->from, mp->from_len) != 0) continue;
    const char *rest = path + mp->from_len;
    if (*rest != '\0' && *rest != '/') continue;
    if ((size_t)snprintf(buf, len, "%s%s", mp->to, rest) >= len) return NULL;
    return buf;
  }
  return NULL;
}

static void note(const char *call, const char *path) {
  if (g_log == NULL) return;
  /* open(2) directly: the shim must not recurse into its own fopen. */
  int fd = open(g_log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[4200];
  int n = snprintf(line, sizeof(line), "%s %s\n", call, path);
  if (n > 0 && (size_t)n < sizeof(line)) {
    ssize_t w = write(fd, line, (size_t)n);
    (void)w;
  }
  close(fd);
}

static void *next(const char *name) { return dlsym(RTLD_NEXT, name); }

/* Whether `path` is one of VKT_FSSHIM_EACCES's entries (then errno is EACCES). */
static int denied(const char *call, const char *path) {
  pthread_once(&g_once, init);
  if (g_eacces == NULL || path == NULL) return 0;
  size_t n = strlen(path);
  for (const char *p = g_eacces; *p != '\0';) {
    const char *end = strchr(p, ';');
    size_t len = end != NULL ? (size_t)(end - p) : strlen(p);
    if (len == n && n > 0 && strncmp(p, path, n) == 0) {
      char what[64];
      snprintf(what, sizeof(what), "%s-denied", call);
      note(what, path);
      errno = EACCES;
      return 1;
    }
    if (end == NULL) break;
    p = end + 1;
  }
  return 0;
}

#define REDIRECT(call, path)                                             \
  char redirect_buf_[4096];                                              \
  const char *m_ = mapped((path), redirect_buf_, sizeof(redirect_buf_)); \
  if (m_ != NULL) {                                                      \
    note(call, path);                                                    \
    path = m_;                                                           \
  }

__attribute__((visibility("default"))) DIR *opendir(const char *path) {
  REDIRECT("opendir", path);
  DIR *(*real)(const char *) = (DIR * (*)(const char *)) next("opendir");
  DIR *d = real(path);
  if (d != NULL || m_ == NULL || !g_opendir_prefix) return d;
  /* Prefix mode: the nearest directory above the mapped path (never above the mapped root). */
  char up[4096];
  snprintf(up, sizeof(up), "%s", m_);
  size_t root = 0;
  for (size_t i = 0; i < g_map_count; i++) {
    size_t n = strlen(g_maps[i].to);
    if (strncmp(up, g_maps[i].to, n) == 0 && n > root) root = n;
  }
  for (char *slash = strrchr(up, '/'); slash != NULL && (size_t)(slash - up) >= root; slash = strrchr(up, '/')) {
    *slash = '\0';
    if ((d = real(up)) != NULL) return d;
  }
  return NULL;
}

__attribute__((visibility("default"))) int access(const char *path, int mode) {
  /* Existence (F_OK) of an unreadable file in a searchable directory is no secret to the kernel:
   * only a check that asks for permissions is refused. */
  if ((mode & (R_OK | W_OK | X_OK)) != 0 && denied("access", path)) return -1;
  REDIRECT("access", path);
  int (*real)(const char *, int) = (int (*)(const char *, int))next("access");
  return real(path, mode);
}

__attribute__((visibility("default"))) FILE *fopen(const char *path, const char *mode) {
  if (denied("fopen", path)) return NULL;
  REDIRECT("fopen", path);
  FILE *(*real)(const char *, const char *) = (FILE * (*)(const char *, const char *)) next("fopen");
  return real(path, mode);
}

__attribute__((visibility("default"))) FILE *fopen64(const char *path, const char *mode) {
  if (denied("fopen", path)) return NULL;
  REDIRECT("fopen", path);
  FILE *(*real)(const char *, const char *) = (FILE * (*)(const char *, const char *)) next("fopen64");
  return real(path, mode);
}

__attribute__((visibility("default"))) char *secure_getenv(const char *name) {
  pthread_once(&g_once, init);
  if (g_elevated) return NULL;
  return getenv(name);
}

__attribute__((visibility("default"))) uid_t geteuid(void) {
  pthread_once(&g_once, init);
  return g_elevated ? getuid() + 1 : getuid();
}

__attribute__((visibility("default"))) gid_t getegid(void) {
  pthread_once(&g_once, init);
  return g_elevated ? getgid() + 1 : getgid();
}

/* A copy of what reaches stderr through fputs/fputc (open(2) and write(2): no stdio recursion). */
static void copy_stderr(FILE *stream, const char *text, size_t len) {
  pthread_once(&g_once, init);
  if (g_stderr_copy == NULL || stream != stderr || len == 0) return;
  int fd = open(g_stderr_copy, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  ssize_t w = write(fd, text, len);
  (void)w;
  close(fd);
}

__attribute__((visibility("default"))) int fputs(const char *text, FILE *stream) {
  copy_stderr(stream, text, strlen(text));
  int (*real)(const char *, FILE *) = (int (*)(const char *, FILE *))next("fputs");
  return real(text, stream);
}

__attribute__((visibility("default"))) int fputc(int c, FILE *stream) {
  char ch = (char)c;
  copy_stderr(stream, &ch, 1);
  int (*real)(int, FILE *) = (int (*)(int, FILE *))next("fputc");
  return real(c, stream);
}
