/* A manifest's library_path as dlopen resolves it (library_path.h). */
#include "conformance/checker_common/library_path.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

static char g_lib[256], g_platform[128];
static bool g_done;

/* $LIB from dlopen itself: "/$LIB/<name that does not exist>" fails with the expanded path in
 * dlerror ("<path>: cannot open shared object file: ..."). */
static bool lib_from_dlopen(void) {
    char probe[128];
    snprintf(probe, sizeof probe, "/$LIB/checker-library-path-probe-%ld.so", (long)getpid());
    const char *tail = strrchr(probe, '/');
    dlerror();
    void *h = dlopen(probe, RTLD_LAZY | RTLD_LOCAL);
    if (h != NULL) { /* a file of that name exists: loaded; the value is not learnt this way */
        dlclose(h);
        return false;
    }
    const char *e = dlerror();
    const char *end = e ? strstr(e, tail) : NULL;
    if (e == NULL || e[0] != '/' || end == NULL || end <= e + 1 || (size_t)(end - e - 1) >= sizeof g_lib) return false;
    memcpy(g_lib, e + 1, (size_t)(end - e - 1));
    g_lib[end - e - 1] = '\0';
    return strchr(g_lib, '$') == NULL;
}

/* Fallback: the directory libc was loaded from, less the prefix ("/usr/lib64" -> "lib64"). */
static bool lib_from_libc(void) {
    Dl_info info;
    if (dladdr((void *)&snprintf, &info) == 0 || info.dli_fname == NULL || info.dli_fname[0] != '/') return false;
    const char *p = info.dli_fname;
    if (strncmp(p, "/usr/", 5) == 0) p += 4;
    const char *slash = strrchr(p, '/');
    if (slash == NULL || slash <= p + 1 || (size_t)(slash - p - 1) >= sizeof g_lib) return false;
    memcpy(g_lib, p + 1, (size_t)(slash - p - 1));
    g_lib[slash - p - 1] = '\0';
    return true;
}

static void compute(void) {
    if (g_done) return;
    g_done = true;
    if (!lib_from_dlopen() && !lib_from_libc()) g_lib[0] = '\0';
    const char *plat = (const char *)getauxval(AT_PLATFORM);
    snprintf(g_platform, sizeof g_platform, "%s", plat ? plat : "");
}

const char *ckr_dst_lib(void) {
    compute();
    return g_lib;
}

const char *ckr_dst_platform(void) {
    compute();
    return g_platform;
}

static bool ident_char(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

/* The length of token `name` at s (just after '$'), in the plain or the braced form; 0 if none. */
static size_t token_at(const char *s, const char *name) {
    size_t n = strlen(name);
    if (strncmp(s, name, n) == 0 && !ident_char(s[n])) return n;
    if (s[0] == '{' && strncmp(s + 1, name, n) == 0 && s[n + 1] == '}') return n + 2;
    return 0;
}

bool ckr_expand_library_path(const char *path, const char *origin, char *out, size_t len, const char **why) {
    if (why) *why = NULL;
    if (len == 0) return false;
    snprintf(out, len, "%s", path ? path : "");
    if (path == NULL || strchr(path, '/') == NULL || strchr(path, '$') == NULL) return false;
    static const char *const names[] = {"ORIGIN", "LIB", "PLATFORM"};
    const char *values[3] = {origin, ckr_dst_lib(), ckr_dst_platform()};
    char buf[4096];
    size_t o = 0;
    bool any = false;
    for (const char *s = path; *s;) {
        size_t t = 0;
        int which = -1;
        if (*s == '$')
            for (int k = 0; k < 3 && t == 0; k++)
                if ((t = token_at(s + 1, names[k])) != 0) which = k;
        const char *piece = s;
        size_t plen = 1;
        if (which >= 0) {
            if (values[which] == NULL || values[which][0] == '\0') {
                if (why)
                    *why = which == 0 ? "$ORIGIN: the loader's directory is unknown" : "the token's value is unknown";
                snprintf(out, len, "%s", path);
                return false;
            }
            piece = values[which];
            plen = strlen(piece);
            s += 1 + t;
            any = true;
        } else {
            s++;
        }
        if (o + plen >= sizeof buf) {
            if (why) *why = "the expanded path is too long";
            snprintf(out, len, "%s", path);
            return false;
        }
        memcpy(buf + o, piece, plen);
        o += plen;
    }
    buf[o] = '\0';
    if (o >= len) {
        if (why) *why = "the expanded path is too long";
        return false;
    }
    memcpy(out, buf, o + 1);
    return any;
}
