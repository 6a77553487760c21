/*
 * Release builds (tools/dist) run on any x86-64 Linux with glibc >= 2.31. Built on a newer glibc,
 * a few calls bind to symbol versions 2.31 does not have:
 *
 *   - stat/fstat/lstat/fstatat (GLIBC_2.33; older glibc has them only as __xstat & co.): the
 *     release targets link with -Wl,--wrap=NAME (tools/dist/BUILD, DIST_WRAP), which sends every
 *     reference to __wrap_NAME below, and these call the old entry points.
 *   - the dl* functions, pthread_once and the pthread calls of the loader's library guard
 *     (GLIBC_2.32/2.34, when libdl and libpthread moved into libc):
 *     --wrap cannot reach their old versions (ld applies the wrap to the versioned reference too,
 *     so name@GLIBC_2.2.5 becomes __wrap_name again: endless recursion). Instead this object
 *     DEFINES dlopen & co. (hidden, so never exported): the objects linked with it bind their
 *     references to these definitions rather than to libc.so.6, and each definition calls an
 *     alias that a .symver directive binds to the old version (dlopen@GLIBC_2.2.5, which glibc
 *     2.34+ keeps in libc.so.6 for old binaries, and which glibc < 2.34 has in libdl.so.2 /
 *     libpthread.so.0: both stay in DT_NEEDED, see DIST_LINKOPTS).
 *   - __libc_start_main (GLIBC_2.34): executables only, glibc_compat_exe.c.
 *
 * dlopen and dlsym(RTLD_NEXT) look at their caller's address to pick the calling object: these
 * definitions are linked into the same object as their callers, so the answer is unchanged.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
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

/* The old versions, under names of our own. */
extern void *vkl_old_dlopen(const char *file, int mode);
extern void *vkl_old_dlsym(void *handle, const char *name);
extern char *vkl_old_dlerror(void);
extern int vkl_old_dlclose(void *handle);
extern int vkl_old_dladdr(const void *addr, Dl_info *info);
extern int vkl_old_dlinfo(void *handle, int request, void *arg);
extern int vkl_old_pthread_once(pthread_once_t *once, void (*fn)(void));
__asm__(".symver vkl_old_dlopen, dlopen@GLIBC_2.2.5");
__asm__(".symver vkl_old_dlsym, dlsym@GLIBC_2.2.5");
__asm__(".symver vkl_old_dlerror, dlerror@GLIBC_2.2.5");
__asm__(".symver vkl_old_dlclose, dlclose@GLIBC_2.2.5");
__asm__(".symver vkl_old_dladdr, dladdr@GLIBC_2.2.5");
__asm__(".symver vkl_old_dlinfo, dlinfo@GLIBC_2.3.3");
__asm__(".symver vkl_old_pthread_once, pthread_once@GLIBC_2.2.5");
/* The loader's library guard (loader/library_guard.c): its watchdog thread. */
extern int vkl_old_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg);
extern int vkl_old_pthread_join(pthread_t thread, void **ret);
extern int vkl_old_pthread_kill(pthread_t thread, int sig);
extern int vkl_old_pthread_condattr_setclock(pthread_condattr_t *attr, clockid_t clock);
extern int vkl_old_pthread_attr_setstacksize(pthread_attr_t *attr, size_t size);
extern int vkl_old_pthread_sigmask(int how, const sigset_t *set, sigset_t *old);
__asm__(".symver vkl_old_pthread_create, pthread_create@GLIBC_2.2.5");
__asm__(".symver vkl_old_pthread_join, pthread_join@GLIBC_2.2.5");
__asm__(".symver vkl_old_pthread_kill, pthread_kill@GLIBC_2.2.5");
__asm__(".symver vkl_old_pthread_condattr_setclock, pthread_condattr_setclock@GLIBC_2.3.3");
__asm__(".symver vkl_old_pthread_attr_setstacksize, pthread_attr_setstacksize@GLIBC_2.2.5");
__asm__(".symver vkl_old_pthread_sigmask, pthread_sigmask@GLIBC_2.2.5");

EXPORT_HIDDEN void *dlopen(const char *file, int mode) { return vkl_old_dlopen(file, mode); }
EXPORT_HIDDEN void *dlsym(void *__restrict handle, const char *__restrict name) { return vkl_old_dlsym(handle, name); }
EXPORT_HIDDEN char *dlerror(void) { return vkl_old_dlerror(); }
EXPORT_HIDDEN int dlclose(void *handle) { return vkl_old_dlclose(handle); }
EXPORT_HIDDEN int dladdr(const void *addr, Dl_info *info) { return vkl_old_dladdr(addr, info); }
EXPORT_HIDDEN int dlinfo(void *__restrict handle, int request, void *__restrict arg) {
    return vkl_old_dlinfo(handle, request, arg);
}
EXPORT_HIDDEN int pthread_once(pthread_once_t *once, void (*fn)(void)) { return vkl_old_pthread_once(once, fn); }
EXPORT_HIDDEN int pthread_create(pthread_t *__restrict thread, const pthread_attr_t *__restrict attr,
                                 void *(*fn)(void *), void *__restrict arg) {
    return vkl_old_pthread_create(thread, attr, fn, arg);
}
EXPORT_HIDDEN int pthread_join(pthread_t thread, void **ret) { return vkl_old_pthread_join(thread, ret); }
EXPORT_HIDDEN int pthread_kill(pthread_t thread, int sig) { return vkl_old_pthread_kill(thread, sig); }
EXPORT_HIDDEN int pthread_condattr_setclock(pthread_condattr_t *attr, clockid_t clock) {
    return vkl_old_pthread_condattr_setclock(attr, clock);
}
EXPORT_HIDDEN int pthread_attr_setstacksize(pthread_attr_t *attr, size_t size) {
    return vkl_old_pthread_attr_setstacksize(attr, size);
}
EXPORT_HIDDEN int pthread_sigmask(int how, const sigset_t *__restrict set, sigset_t *__restrict old) {
    return vkl_old_pthread_sigmask(how, set, old);
}
