/* The library guard (internal/library_guard.h): a dlopen blocked in open(2) on a FIFO is
 * interrupted (RULE_ADVERSARIAL_INPUT). */
#include "loader/internal/library_guard.h"

#include "loader/internal/tls.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

int64_t vkl_library_guard_limit_ns = 1000000000;

/* A watchdog with no load for this long ends, so a process that loaded its drivers keeps no
 * thread of ours (a single-threaded process may then unshare(2), for one). */
static const int64_t IDLE_NS = 100000000;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static struct vkl_library_guard_load *g_loads;
static int64_t g_last_activity;
static pthread_t g_thread;
static bool g_thread_live;    /* g_thread exists and has not been joined */
static bool g_thread_exiting; /* it left its loop: join it before starting another */
static bool g_stop;
static uint64_t g_interrupted, g_threads;
static VKL_TLS pid_t t_tid;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A forked child has only the forking thread: no watchdog, no other thread's loads, a new tid. */
static void after_fork_child(void) {
    pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
    g_mu = fresh;
    g_loads = NULL;
    g_thread_live = false;
    g_thread_exiting = false;
    g_stop = false;
    t_tid = 0;
}

static void init_once(void) {
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&g_cv, &a);
    pthread_condattr_destroy(&a);
    pthread_atfork(NULL, NULL, after_fork_child);
}

/* Reads a small /proc file of this process into buf (NUL-terminated); false on failure. Raw
 * system calls: the loading thread holds the dynamic linker's lock, and an interposed open (a
 * test framework's, which looks up the next definition with dlsym) would wait for that lock. */
static bool read_proc(const char *path, char *buf, size_t len) {
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = (ssize_t)syscall(SYS_read, fd, buf, len - 1);
    syscall(SYS_close, fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    return true;
}

/* True when `remote` (an address in this process that another thread passed to open(2)) holds
 * the library path of `l`: read through the kernel (process_vm_readv), which reports an address
 * that is no longer mapped instead of faulting, and which no sanitizer watches (the string is
 * ld.so's, and may be freed the moment the open returns). When the kernel refuses that read
 * (a seccomp filter, say), true: the thread sits in an interruptible open inside our dlopen. */
static bool opens_library(const struct vkl_library_guard_load *l, uintptr_t remote) {
    char buf[PATH_MAX];
    struct iovec local = {.iov_base = buf, .iov_len = sizeof(buf) - 1};
    /* Up to the end of the page first: a read that crosses into an unmapped page fails whole. */
    size_t first = 4096 - (remote & 4095);
    struct iovec from = {.iov_base = (void *)remote, .iov_len = first < sizeof(buf) - 1 ? first : sizeof(buf) - 1};
    ssize_t n = process_vm_readv(getpid(), &local, 1, &from, 1, 0);
    if (n < 0) return errno == ENOSYS || errno == EPERM;
    if ((size_t)n == first && memchr(buf, '\0', (size_t)n) == NULL) {
        struct iovec local2 = {.iov_base = buf + n, .iov_len = sizeof(buf) - 1 - (size_t)n};
        struct iovec from2 = {.iov_base = (void *)(remote + (size_t)n), .iov_len = sizeof(buf) - 1 - (size_t)n};
        ssize_t m = process_vm_readv(getpid(), &local2, 1, &from2, 1, 0);
        if (m > 0) n += m;
    }
    buf[n] = '\0';
    if (strchr(l->path, '/') != NULL) return strcmp(buf, l->path) == 0;
    /* A bare name: ld.so opens it in each directory it searches. */
    size_t bl = strlen(buf), pl = strlen(l->path);
    return bl > pl && buf[bl - pl - 1] == '/' && strcmp(buf + bl - pl, l->path) == 0;
}

/* True when the loading thread sits in an interruptible sleep inside open(2)/openat(2) of the
 * library's path: a FIFO without a writer (wait_for_partner). Slow disks and network or FUSE
 * file systems sleep uninterruptibly ('D') and are left alone. */
static bool blocked_opening(const struct vkl_library_guard_load *l) {
    char path[64], buf[512];
    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)l->tid);
    if (!read_proc(path, buf, sizeof(buf))) return false;
    const char *close_paren = strrchr(buf, ')');
    if (close_paren == NULL || close_paren[1] != ' ' || close_paren[2] != 'S') return false;
    snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)l->tid);
    if (!read_proc(path, buf, sizeof(buf))) return false;
    char *end = NULL;
    long nr = strtol(buf, &end, 10);
    if (end == buf) return false;
    unsigned long long args[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        char *next = NULL;
        args[i] = strtoull(end, &next, 16);
        if (next == end) return false;
        end = next;
    }
    uintptr_t name;
    if (nr == SYS_openat) name = (uintptr_t)args[1]; // NOLINT(bugprone-branch-clone): openat2 reads it too
#ifdef SYS_open
    else if (nr == SYS_open)
        name = (uintptr_t)args[0];
#endif
#ifdef SYS_openat2
    else if (nr == SYS_openat2)
        name = (uintptr_t)args[1];
#endif
    else
        return false;
    return name != 0 && opens_library(l, name);
}

/* Bit n-1 of the thread's blocked-signal mask set means signal n is blocked. */
static bool signal_blocked(pid_t tid, int sig) {
    char path[64], buf[2048];
    snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
    if (!read_proc(path, buf, sizeof(buf))) return true;
    const char *p = strstr(buf, "\nSigBlk:");
    if (p == NULL) return true;
    unsigned long long mask = strtoull(p + 8, NULL, 16);
    return sig > 64 || (mask >> (sig - 1)) & 1;
}

static void guard_signal(int sig) { (void)sig; }

/* Under g_mu. The first real-time signal, from the top, that nobody handles (SIG_DFL) and the
 * loading thread does not block gets a do-nothing handler without SA_RESTART, for this load only
 * (vkl_library_guard_end puts the old one back); then the thread is sent it. */
static void interrupt(struct vkl_library_guard_load *l) {
    if (l->sig == 0) {
        for (int s = SIGRTMAX; s >= SIGRTMIN && l->sig == 0; s--) {
            struct sigaction cur;
            if (sigaction(s, NULL, &cur) != 0 || cur.sa_handler != SIG_DFL || (cur.sa_flags & SA_SIGINFO) != 0 ||
                signal_blocked(l->tid, s))
                continue;
            struct sigaction sa;
            memset(&sa, 0, sizeof(sa));
            sa.sa_handler = guard_signal;
            sigfillset(&sa.sa_mask);
            if (sigaction(s, &sa, &l->old) != 0) continue;
            if (l->old.sa_handler != SIG_DFL || (l->old.sa_flags & SA_SIGINFO) != 0) {
                sigaction(s, &l->old, NULL); /* someone took it just now */
                continue;
            }
            l->sig = s;
        }
        if (l->sig == 0) return;
    }
    if (pthread_kill(l->thread, l->sig) == 0 && !l->interrupted) {
        l->interrupted = true;
        g_interrupted++;
    }
}

static void *watchdog(void *arg) {
    (void)arg;
    pthread_mutex_lock(&g_mu);
    while (!g_stop) {
        int64_t t = now_ns(), wake = g_last_activity + IDLE_NS;
        if (g_loads == NULL && t >= wake) break;
        for (struct vkl_library_guard_load *l = g_loads; l != NULL; l = l->next) {
            if (t >= l->check_at_ns) {
                l->check_at_ns = t + vkl_library_guard_limit_ns;
                if (blocked_opening(l)) interrupt(l);
            }
            if (l->check_at_ns < wake || wake <= t) wake = l->check_at_ns;
        }
        struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000), .tv_nsec = (long)(wake % 1000000000)};
        pthread_cond_timedwait(&g_cv, &g_mu, &ts);
    }
    g_thread_exiting = true;
    pthread_mutex_unlock(&g_mu);
    return NULL;
}

/* Under g_mu. With every signal blocked, so the thread never runs an application's handler. */
static void start_watchdog(void) {
    if (g_thread_exiting) {
        pthread_join(g_thread, NULL);
        g_thread_live = false;
        g_thread_exiting = false;
    }
    if (g_thread_live) return;
    pthread_attr_t a;
    if (pthread_attr_init(&a) != 0) return;
    pthread_attr_setstacksize(&a, 256 * 1024);
    sigset_t all, prev;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &prev);
    if (pthread_create(&g_thread, &a, watchdog, NULL) == 0) {
        g_thread_live = true;
        g_threads++;
    }
    pthread_sigmask(SIG_SETMASK, &prev, NULL);
    pthread_attr_destroy(&a);
}

void vkl_library_guard_begin(struct vkl_library_guard_load *load, const char *path) {
    pthread_once(&g_once, init_once);
    if (t_tid == 0) t_tid = (pid_t)syscall(SYS_gettid);
    memset(load, 0, sizeof(*load));
    load->path = path != NULL ? path : "";
    load->thread = pthread_self();
    load->tid = t_tid;
    int64_t t = now_ns();
    load->check_at_ns = t + vkl_library_guard_limit_ns;
    pthread_mutex_lock(&g_mu);
    load->next = g_loads;
    g_loads = load;
    g_last_activity = t;
    start_watchdog();
    pthread_mutex_unlock(&g_mu);
}

bool vkl_library_guard_end(struct vkl_library_guard_load *load) {
    pthread_mutex_lock(&g_mu);
    for (struct vkl_library_guard_load **p = &g_loads; *p != NULL; p = &(*p)->next) {
        if (*p == load) {
            *p = load->next;
            break;
        }
    }
    g_last_activity = now_ns();
    if (load->sig != 0) {
        /* Take every instance still pending for this thread before the old disposition (SIG_DFL,
         * which ends the process for a real-time signal) is back. */
        sigset_t one, prev;
        sigemptyset(&one);
        sigaddset(&one, load->sig);
        pthread_sigmask(SIG_BLOCK, &one, &prev);
        struct timespec zero = {0, 0};
        while (sigtimedwait(&one, NULL, &zero) == load->sig) {
        }
        sigaction(load->sig, &load->old, NULL);
        pthread_sigmask(SIG_SETMASK, &prev, NULL);
        load->sig = 0;
    }
    bool interrupted = load->interrupted;
    pthread_mutex_unlock(&g_mu);
    return interrupted;
}

void vkl_library_guard_stats(uint64_t *interrupted, uint64_t *threads) {
    pthread_mutex_lock(&g_mu);
    if (interrupted != NULL) *interrupted = g_interrupted;
    if (threads != NULL) *threads = g_threads;
    pthread_mutex_unlock(&g_mu);
}

/* At exit or when libvulkan.so.1 is unloaded: no thread may go on running code of ours. */
__attribute__((destructor)) static void library_guard_shutdown(void) {
    pthread_mutex_lock(&g_mu);
    bool live = g_thread_live;
    if (live) {
        g_stop = true;
        pthread_cond_broadcast(&g_cv);
    }
    pthread_mutex_unlock(&g_mu);
    if (!live) return;
    pthread_join(g_thread, NULL);
    pthread_mutex_lock(&g_mu);
    g_thread_live = false;
    g_thread_exiting = false;
    g_stop = false;
    pthread_mutex_unlock(&g_mu);
}
