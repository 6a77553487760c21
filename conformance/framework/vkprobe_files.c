/* vkprobe's test-only steps that change the process's surroundings between two Vulkan calls: files
 * written, replaced, changed or removed, a long environment variable set, the environment dumped. */
#include "conformance/framework/vkprobe_internal.h"

/* write-file:PATH:CONTENT: test-only; replaces the file's content in place (same inode) between two
 * Vulkan calls, e.g. to change a manifest the loader has already read. PATH must not contain ':'. */
void step_write_file(const char *arg) {
  obj_begin("write-file");
  const char *colon = arg ? strchr(arg, ':') : NULL;
  if (!need(colon != NULL && colon != arg, "expected PATH:CONTENT")) return;
  char path[4096];
  snprintf(path, sizeof path, "%.*s", (int)(colon - arg), arg);
  kv_str("path", path);
  FILE *f = fopen(path, "w");
  bool ok = f != NULL && fputs(colon + 1, f) >= 0;
  if (f != NULL && fclose(f) != 0) ok = false;
  kv_bool("ok", ok);
  obj_end();
}

/* replace-file:DST:SRC: test-only; copies SRC next to DST and renames it over DST (a new inode, as
 * package managers replace libraries), e.g. to change a driver library the loader has opened.
 * Neither path may contain ':'. */
void step_replace_file(const char *arg) {
  obj_begin("replace-file");
  const char *colon = arg ? strchr(arg, ':') : NULL;
  if (!need(colon != NULL && colon != arg && colon[1] != '\0', "expected DST:SRC")) return;
  char dst[4096], tmp[4200];
  snprintf(dst, sizeof dst, "%.*s", (int)(colon - arg), arg);
  snprintf(tmp, sizeof tmp, "%s.vkprobe-tmp", dst);
  kv_str("path", dst);
  FILE *in = fopen(colon + 1, "rb");
  FILE *out = in != NULL ? fopen(tmp, "wb") : NULL;
  bool ok = in != NULL && out != NULL;
  char buf[65536];
  size_t n;
  while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0) ok = fwrite(buf, 1, n, out) == n;
  if (in != NULL) fclose(in);
  if (out != NULL && fclose(out) != 0) ok = false;
  if (ok) ok = chmod(tmp, 0755) == 0 && rename(tmp, dst) == 0;
  kv_bool("ok", ok);
  obj_end();
}

/* Reads the whole of `path` into a malloc'd buffer (*len bytes); NULL on failure. */
static char *slurp(const char *path, size_t *len) {
  FILE *in = fopen(path, "rb");
  if (in == NULL) return NULL;
  char *buf = NULL;
  size_t cap = 0, n = 0, got = 0;
  bool ok = true;
  do {
    if (n == cap) {
      char *nb = realloc(buf, cap = cap ? cap * 2 : 65536);
      if (nb == NULL) {
        ok = false;
        break;
      }
      buf = nb;
    }
    got = fread(buf + n, 1, cap - n, in);
    n += got;
  } while (got > 0);
  if (ferror(in)) ok = false;
  fclose(in);
  if (!ok) {
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

static bool write_all(int fd, const char *buf, size_t len) {
  while (len > 0) {
    ssize_t w = write(fd, buf, len);
    if (w <= 0) return false;
    buf += w;
    len -= (size_t)w;
  }
  return true;
}

/* change-file:HOW:DST:SRC: test-only; gives DST the bytes of SRC the way a tool does, between two
 * Vulkan calls (e.g. a driver library the loader keeps loaded). HOW: "cp" (open(O_TRUNC) + write:
 * same inode, as cp(1) over an existing file), "truncate" (ftruncate to 0, then write: same inode),
 * "overwrite" (write from offset 0, then ftruncate to the new length: same inode, as dd
 * conv=notrunc), "install" (unlink, then create: a new inode, as install(1) and most linkers),
 * "mv" (a copy written next to DST, then renamed over it: a new inode, as mv(1) and build systems
 * that write a temporary file). Prints whether DST kept its inode. Neither path may contain ':'. */
void step_change_file(const char *arg) {
  obj_begin("change-file");
  const char *c1 = arg ? strchr(arg, ':') : NULL;
  const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  if (!need(c1 != NULL && c2 != NULL && c2[1] != '\0', "expected HOW:DST:SRC")) return;
  char how[32], dst[4096], tmp[4200];
  snprintf(how, sizeof how, "%.*s", (int)(c1 - arg), arg);
  snprintf(dst, sizeof dst, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
  kv_str("how", how);
  kv_str("path", dst);
  size_t len = 0;
  char *bytes = slurp(c2 + 1, &len);
  struct stat before, after;
  bool ok = bytes != NULL && stat(dst, &before) == 0;
  if (ok && strcmp(how, "cp") == 0) {
    int fd = open(dst, O_WRONLY | O_TRUNC | O_CLOEXEC);
    ok = fd >= 0 && write_all(fd, bytes, len);
    if (fd >= 0 && close(fd) != 0) ok = false;
  } else if (ok && (strcmp(how, "truncate") == 0 || strcmp(how, "overwrite") == 0)) {
    bool first = strcmp(how, "truncate") == 0;
    int fd = open(dst, O_WRONLY | O_CLOEXEC);
    ok = fd >= 0 && (!first || ftruncate(fd, 0) == 0) && write_all(fd, bytes, len) &&
         (first || ftruncate(fd, (off_t)len) == 0);
    if (fd >= 0 && close(fd) != 0) ok = false;
  } else if (ok && (strcmp(how, "install") == 0 || strcmp(how, "mv") == 0)) {
    bool mv = strcmp(how, "mv") == 0;
    snprintf(tmp, sizeof tmp, "%s.vkprobe-mv", dst);
    const char *target = mv ? tmp : dst;
    ok = mv || unlink(dst) == 0;
    int fd = ok ? open(target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755) : -1;
    ok = fd >= 0 && write_all(fd, bytes, len);
    if (fd >= 0 && close(fd) != 0) ok = false;
    if (ok && mv) ok = rename(tmp, dst) == 0;
  } else if (ok) {
    ok = need(false, "HOW is one of cp, truncate, overwrite, install, mv");
    free(bytes);
    return;
  }
  free(bytes);
  if (ok) ok = stat(dst, &after) == 0;
  kv_bool("ok", ok);
  if (ok) kv_bool("same_inode", before.st_dev == after.st_dev && before.st_ino == after.st_ino);
  obj_end();
}

/* remove-file:PATH: test-only; deletes PATH between two Vulkan calls, e.g. a manifest the loader
 * already read. */
void step_remove_file(const char *arg) {
  obj_begin("remove-file");
  kv_str("path", arg);
  kv_bool("ok", arg != NULL && *arg != '\0' && unlink(arg) == 0);
  obj_end();
}

/* setenv-repeat:NAME:COUNT:PIECE (test-only): setenv(NAME, PIECE written COUNT times), each '#' of
 * PIECE replaced by the repetition's index; for values longer than execve allows one string
 * (128 KiB), e.g. VK_INSTANCE_LAYERS with 100,000 entries or 1 MB values. Prints `length`. */
void step_setenv_repeat(const char *arg) {
  obj_begin("setenv-repeat");
  const char *c1 = arg ? strchr(arg, ':') : NULL;
  const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  char count_text[32];
  unsigned long count = 0;
  if (!need(c2 != NULL && c1 != arg && (size_t)(c2 - c1 - 1) < sizeof count_text,
            "usage: setenv-repeat:NAME:COUNT:PIECE"))
    return;
  memcpy(count_text, c1 + 1, (size_t)(c2 - c1 - 1));
  count_text[c2 - c1 - 1] = '\0';
  const char *piece = c2 + 1;
  size_t plen = strlen(piece), hashes = 0;
  for (size_t i = 0; i < plen; ++i) hashes += piece[i] == '#';
  char *name = strndup(arg, (size_t)(c1 - arg));
  char *value = NULL;
  if (parse_uint(count_text, &count) && name != NULL) value = malloc(count * (plen + hashes * 20) + 1);
  if (value == NULL) {
    kv_str("error", "bad count or out of memory");
  } else {
    size_t len = 0;
    for (unsigned long k = 0; k < count; ++k)
      for (size_t i = 0; i < plen; ++i) {
        if (piece[i] == '#')
          len += (size_t)sprintf(value + len, "%lu", k);
        else
          value[len++] = piece[i];
      }
    value[len] = '\0';
    kv_str("name", name);
    kv_int("length", (long long)len);
    kv_bool("set", setenv(name, value, 1) == 0);
  }
  free(value);
  free(name);
  obj_end();
}

void step_env_dump(void) {
  static const char *const vars[] = {"HOME",
                                     "XDG_CONFIG_HOME",
                                     "XDG_CONFIG_DIRS",
                                     "XDG_DATA_HOME",
                                     "XDG_DATA_DIRS",
                                     "VK_DRIVER_FILES",
                                     "VK_ICD_FILENAMES",
                                     "VK_ADD_DRIVER_FILES",
                                     "VK_LOADER_DRIVERS_SELECT",
                                     "VK_LOADER_DRIVERS_DISABLE",
                                     "VK_LOADER_DEBUG"};
  obj_begin("env-dump");
  kv_int("at_secure", (long long)getauxval(AT_SECURE));
  kv_int("uid", getuid());
  kv_int("euid", geteuid());
  kv_int("gid", getgid());
  kv_int("egid", getegid());
  put_key("vars");
  putchar('{');
  g_first_field = true;
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) {
    /* Diagnostic only: shows what the loader can see through getenv and secure_getenv. */
    put_key(vars[i]);
    printf("{\"set\":%s,\"secure_visible\":%s}", getenv(vars[i]) ? "true" : "false",
           secure_getenv(vars[i]) ? "true" : "false");
  }
  putchar('}');
  g_first_field = false;
  obj_end();
}
