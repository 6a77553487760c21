/*
 * Release builds (tools/dist) run on any x86-64 Linux with glibc >= 2.31. Built on a newer glibc,
 * a few calls bind to symbol versions 2.31 does not have: stat/fstat/lstat/fstatat (GLIBC_2.33,
 * older glibc has them only as __xstat & co.), the dl* functions and pthread_once (GLIBC_2.34,
 * when libdl and libpthread moved into libc) and __libc_start_main (GLIBC_2.34). The release
 * targets link with -Wl,--wrap=NAME (tools/dist/BUILD, DIST_WRAP), which sends every reference to
 * __wrap_NAME here; these call the old entry points, which newer glibc still provides for old
 * binaries. Done for the stat family only; the GLIBC_2.34 symbols are still open (see BUILD).
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

