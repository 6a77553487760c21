/*
 * The library guard: a dlopen that blocks in open(2) on a FIFO is interrupted.
 *
 * RULE_ADVERSARIAL_INPUT: the loader checks a library path without blocking (fileio.c), but glibc's
 * dlopen then opens the path again with its own blocking open(2), which no caller can make
 * non-blocking. A FIFO renamed over the path in between (or a FIFO where ld.so searches a
 * dependency) blocks that open until a writer appears, which may be never. Around each dlopen the
 * loader registers the load; a watchdog thread (one per burst of loads, gone after 100 ms without
 * a load) looks at any load older than 1 s: when its thread sits in an interruptible open(2) of the
 * library's own path, the watchdog sends that thread a real-time signal whose disposition it set,
 * for this moment only, to a handler that does nothing and does not restart system calls. The
 * open fails with EINTR, dlopen fails, and the loader goes on without that library.
 * docs/architecture.md "File access" gives the limits.
 */
#ifndef VKL_INTERNAL_LIBRARY_GUARD_H
#define VKL_INTERNAL_LIBRARY_GUARD_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* One registered load, on the loading thread's stack. Fields are the guard's. */
struct vkl_library_guard_load {
    struct vkl_library_guard_load *next;
    const char *path; /* as given to dlopen */
    pthread_t thread;
    pid_t tid;
    int64_t check_at_ns; /* CLOCK_MONOTONIC */
    int sig;             /* signal sent (0: none) */
    struct sigaction old;
    bool interrupted;
};

/* Registers the calling thread's dlopen of `path` (about to start). */
void vkl_library_guard_begin(struct vkl_library_guard_load *load, const char *path);
/* Ends it; true when the watchdog interrupted it (the caller's dlopen most likely failed with
 * EINTR). Puts back the signal's disposition, after taking any signal still pending. */
bool vkl_library_guard_end(struct vkl_library_guard_load *load);

/* How long a load may sit in open(2) before it is interrupted (default 1 s; tests may lower it). */
extern int64_t vkl_library_guard_limit_ns;
/* Loads interrupted since the process began, and watchdog threads started. */
void vkl_library_guard_stats(uint64_t *interrupted, uint64_t *threads);

#endif
