/* The compat objects (glibc_compat.c, glibc_compat_exe.c) linked as the release binaries link
 * them: constructors run exactly once, and dlopen / dlsym / dlerror / dladdr / dlinfo / dlclose,
 * pthread_once and the stat family work through the old symbol versions. Exit 0 on success; each
 * failure prints what went wrong. */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

static int g_ctor_runs;
static int g_ctor_argc = -1;
static int g_once_runs;

__attribute__((constructor)) static void count_ctor(int argc, char **argv, char **envp) {
    (void)argv;
    (void)envp;
    g_ctor_runs++;
    g_ctor_argc = argc;
}

static void once_fn(void) { g_once_runs++; }

static int g_fail;
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "FAIL %s: ", #cond);                                                                       \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            g_fail = 1;                                                                                                \
        }                                                                                                              \
    } while (0)

int main(int argc, char **argv) {
    CHECK(g_ctor_runs == 1, "the constructor ran %d times (want exactly 1)", g_ctor_runs);
    CHECK(g_ctor_argc == argc, "the constructor saw argc %d, main %d", g_ctor_argc, argc);

    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, once_fn);
    pthread_once(&once, once_fn);
    CHECK(g_once_runs == 1, "pthread_once ran its function %d times", g_once_runs);

    void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL, "dlopen(libm.so.6): %s", dlerror());
    if (h != NULL) {
        double (*cosine)(double) = (double (*)(double))dlsym(h, "cos");
        CHECK(cosine != NULL && cosine(0.0) == 1.0, "dlsym(cos)");
        struct link_map *lm = NULL;
        CHECK(dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL && strstr(lm->l_name, "libm") != NULL,
              "dlinfo(RTLD_DI_LINKMAP)");
        Dl_info info;
        CHECK(dladdr((void *)cosine, &info) != 0 && info.dli_fname != NULL && strstr(info.dli_fname, "libm") != NULL,
              "dladdr(cos)");
        CHECK(dlsym(h, "vkl_no_such_symbol") == NULL, "dlsym of a missing symbol");
        const char *e = dlerror();
        CHECK(e != NULL && strstr(e, "vkl_no_such_symbol") != NULL, "dlerror after a failed dlsym: %s",
              e ? e : "(null)");
        CHECK(dlclose(h) == 0, "dlclose");
    }
    CHECK(dlopen("libvkl_no_such_library.so", RTLD_NOW) == NULL && dlerror() != NULL, "dlopen of a missing library");
    /* RTLD_DEFAULT from the executable itself */
    CHECK(dlsym(RTLD_DEFAULT, "printf") != NULL, "dlsym(RTLD_DEFAULT, printf)");

    struct stat a, b, c, d;
    CHECK(stat(argv[0], &a) == 0 && S_ISREG(a.st_mode) && a.st_size > 0, "stat");
    CHECK(lstat(argv[0], &b) == 0, "lstat");
    int fd = open(argv[0], O_RDONLY);
    CHECK(fd >= 0 && fstat(fd, &c) == 0 && c.st_ino == a.st_ino && c.st_size == a.st_size, "fstat");
    if (fd >= 0) close(fd);
    CHECK(fstatat(AT_FDCWD, argv[0], &d, 0) == 0 && d.st_ino == a.st_ino, "fstatat");
    CHECK(stat("/vkl/no/such/file", &a) != 0, "stat of a missing file");
    if (!g_fail) printf("ok\n");
    return g_fail;
}
