/*
 * Release builds (tools/dist) run on any x86-64 Linux with glibc >= 2.31. Built on a newer glibc,
 * a few calls bind to symbol versions 2.31 does not have: stat/fstat/lstat/fstatat (GLIBC_2.33,
 * older glibc has them only as __xstat & co.), the dl* functions and pthread_once (GLIBC_2.34,
 * when libdl and libpthread moved into libc) and __libc_start_main (GLIBC_2.34). The release
 * targets link with -Wl,--wrap=NAME for each (tools/dist/BUILD, DIST_WRAP), which sends every
 * reference to __wrap_NAME here; these call the old versions, which newer glibc still provides
 * for old binaries. libdl.so.2 and libpthread.so.0 are kept in DT_NEEDED: on glibc < 2.34 the
 * old dl* and pthread_once versions live there. tools/dist/dist_test.sh checks with objdump that
 * nothing newer than GLIBC_2.31 is required.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/stat.h>

#define EXPORT_HIDDEN __attribute__((visibility("hidden")))

/* The pre-2.33 stat family (version GLIBC_2.2.5; _STAT_VER is 1 on x86-64). */
extern int __xstat(int ver, const char *path, struct stat *buf);
extern int __fxstat(int ver, int fd, struct stat *buf);
extern int __lxstat(int ver, const char *path, struct stat *buf);
extern int __fxstatat(int ver, int dirfd, const char *path, struct stat *buf, int flags);

EXPORT_HIDDEN int __wrap_stat(const char *path, struct stat *buf);
EXPORT_HIDDEN int __wrap_stat(const char *path, struct stat *buf) { return __xstat(1, path, buf); }
EXPORT_HIDDEN int __wrap_fstat(int fd, struct stat *buf);
EXPORT_HIDDEN int __wrap_fstat(int fd, struct stat *buf) { return __fxstat(1, fd, buf); }
EXPORT_HIDDEN int __wrap_lstat(const char *path, struct stat *buf);
EXPORT_HIDDEN int __wrap_lstat(const char *path, struct stat *buf) { return __lxstat(1, path, buf); }
EXPORT_HIDDEN int __wrap_fstatat(int dirfd, const char *path, struct stat *buf, int flags);
EXPORT_HIDDEN int __wrap_fstatat(int dirfd, const char *path, struct stat *buf, int flags) {
    return __fxstatat(1, dirfd, path, buf, flags);
}

/* The old versions, by name@version. */
void *vkl_old_dlopen(const char *file, int mode);
void *vkl_old_dlsym(void *handle, const char *name);
char *vkl_old_dlerror(void);
int vkl_old_dlclose(void *handle);
int vkl_old_dladdr(const void *addr, Dl_info *info);
int vkl_old_dlinfo(void *handle, int request, void *arg);
int vkl_old_pthread_once(pthread_once_t *once, void (*fn)(void));
__asm__(".symver vkl_old_dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver vkl_old_dlsym,dlsym@GLIBC_2.2.5");
__asm__(".symver vkl_old_dlerror,dlerror@GLIBC_2.2.5");
__asm__(".symver vkl_old_dlclose,dlclose@GLIBC_2.2.5");
__asm__(".symver vkl_old_dladdr,dladdr@GLIBC_2.2.5");
__asm__(".symver vkl_old_dlinfo,dlinfo@GLIBC_2.3.3");
__asm__(".symver vkl_old_pthread_once,pthread_once@GLIBC_2.2.5");

/* dlopen and dlsym(RTLD_NEXT) look at their caller: these wrappers live in the same object as
 * every caller, so the answer is the same. */
EXPORT_HIDDEN void *__wrap_dlopen(const char *file, int mode);
EXPORT_HIDDEN void *__wrap_dlopen(const char *file, int mode) { return vkl_old_dlopen(file, mode); }
EXPORT_HIDDEN void *__wrap_dlsym(void *handle, const char *name);
EXPORT_HIDDEN void *__wrap_dlsym(void *handle, const char *name) { return vkl_old_dlsym(handle, name); }
EXPORT_HIDDEN char *__wrap_dlerror(void);
EXPORT_HIDDEN char *__wrap_dlerror(void) { return vkl_old_dlerror(); }
EXPORT_HIDDEN int __wrap_dlclose(void *handle);
EXPORT_HIDDEN int __wrap_dlclose(void *handle) { return vkl_old_dlclose(handle); }
EXPORT_HIDDEN int __wrap_dladdr(const void *addr, Dl_info *info);
EXPORT_HIDDEN int __wrap_dladdr(const void *addr, Dl_info *info) { return vkl_old_dladdr(addr, info); }
EXPORT_HIDDEN int __wrap_dlinfo(void *handle, int request, void *arg);
EXPORT_HIDDEN int __wrap_dlinfo(void *handle, int request, void *arg) { return vkl_old_dlinfo(handle, request, arg); }
EXPORT_HIDDEN int __wrap_pthread_once(pthread_once_t *once, void (*fn)(void));
EXPORT_HIDDEN int __wrap_pthread_once(pthread_once_t *once, void (*fn)(void)) { return vkl_old_pthread_once(once, fn); }
