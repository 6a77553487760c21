/* ldp-check: forked children with time limits, and the child-side report protocol. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conformance/driver/ldp_check.h"

static const char *const g_verdicts[LDP_VERDICT_COUNT] = {
    "pass", "fail", "warn", "not-applicable", "not-testable-here", "removed"};

const char *ldp_verdict_name(enum ldp_verdict v) { return (unsigned)v < LDP_VERDICT_COUNT ? g_verdicts[v] : "?"; }

bool ldp_verdict_parse(const char *s, enum ldp_verdict *out) {
    for (int i = 0; i < LDP_VERDICT_COUNT; i++) {
        if (strcmp(s, g_verdicts[i]) == 0) {
            *out = (enum ldp_verdict)i;
            return true;
        }
    }
    return false;
}

/* One protocol line: tag, space, text with newlines/tabs made safe, newline. One write(2). */
static void emit(int fd, char tag, const char *key, const char *fmt, va_list ap) {
    char buf[4096];
    int n = snprintf(buf, sizeof buf, "%c ", tag);
    if (key != NULL) n += snprintf(buf + n, sizeof buf - (size_t)n, "%s\t", key);
    size_t start = (size_t)n;
    vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    size_t len = strlen(buf);
    for (size_t i = start; i < len; i++) {
        if (buf[i] == '\n' || buf[i] == '\r' || (tag != 'V' && buf[i] == '\t')) buf[i] = ' ';
    }
    buf[len++] = '\n';
    ssize_t w;
    do {
        w = write(fd, buf, len);
    } while (w < 0 && errno == EINTR);
}

void ldp_evidence(struct ldp_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emit(c->fd, 'E', NULL, fmt, ap);
    va_end(ap);
}

void ldp_step(struct ldp_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emit(c->fd, 'S', NULL, fmt, ap);
    va_end(ap);
}

void ldp_verdict(struct ldp_ctx *c, enum ldp_verdict v, const char *fmt, ...) {
    char out[2400];
    int n = snprintf(out, sizeof out, "V %s\t", ldp_verdict_name(v));
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + n, sizeof out - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = strlen(out);
    for (size_t i = (size_t)n; i < len; i++)
        if (out[i] == '\n' || out[i] == '\r' || out[i] == '\t') out[i] = ' ';
    out[len++] = '\n';
    ssize_t r;
    do {
        r = write(c->fd, out, len);
    } while (r < 0 && errno == EINTR);
}

void ldp_result(struct ldp_ctx *c, const char *key, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    emit(c->fd, 'R', key, fmt, ap);
    va_end(ap);
}

static int tmp_fd(void) {
    const char *dir = getenv("TMPDIR");
    if (dir == NULL || *dir == '\0') dir = "/tmp";
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    char path[4096];
    snprintf(path, sizeof path, "%s/ldp-check.XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0) unlink(path);
    return fd;
}

static char *read_all(int fd) {
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) return strdup("");
    size_t cap = (size_t)st.st_size;
    if (cap > 8u * 1024u * 1024u) cap = 8u * 1024u * 1024u;
    char *buf = malloc(cap + 1);
    if (buf == NULL) return NULL;
    size_t got = 0;
    while (got < cap) {
        ssize_t n = pread(fd, buf + got, cap - got, (off_t)got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    return buf;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ldp_run_child(const struct ldp_ctx *parent, double timeout_s, bool new_group,
                   void (*fn)(struct ldp_ctx *c, void *arg), void *arg, struct ldp_child *out) {
    memset(out, 0, sizeof(*out));
    int ofd = tmp_fd(), efd = tmp_fd();
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    double start = now_s();
    fflush(stdout);
    fflush(stderr);
    pid_t pid = (ofd < 0 || efd < 0) ? -1 : fork();
    if (pid == 0) {
        if (new_group) setpgid(0, 0);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            dup2(devnull, STDOUT_FILENO);
        }
        dup2(efd, STDERR_FILENO);
        signal(SIGPIPE, SIG_DFL);
        struct ldp_ctx c = *parent;
        c.fd = ofd;
        fn(&c, arg);
        _exit(0);
    }
    if (devnull >= 0) close(devnull);
    if (pid < 0) {
        out->kind = LDP_SPAWN_FAILED;
        out->code = errno;
        out->out = strdup("");
        out->err = strdup("");
        if (ofd >= 0) close(ofd);
        if (efd >= 0) close(efd);
        return;
    }
    if (new_group) setpgid(pid, pid); /* both sides, so the group exists before we may kill it */
    int status = 0;
    bool timed_out = false;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) break;
        if (now_s() - start > timeout_s) {
            timed_out = true;
            if (new_group) kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            break;
        }
        struct timespec ts = {0, 2 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (new_group) kill(-pid, SIGKILL); /* leftovers: probes or processes the driver started */
    out->seconds = now_s() - start;
    if (timed_out) {
        out->kind = LDP_TIMED_OUT;
    } else if (WIFSIGNALED(status)) {
        out->kind = LDP_SIGNALED;
        out->code = WTERMSIG(status);
    } else {
        out->kind = LDP_EXITED;
        out->code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    out->out = read_all(ofd);
    out->err = read_all(efd);
    close(ofd);
    close(efd);
}

void ldp_child_free(struct ldp_child *ch) {
    free(ch->out);
    free(ch->err);
    ch->out = ch->err = NULL;
}

const char *ldp_child_next(const struct ldp_child *ch, const char *key, size_t *pos, char *buf, size_t len) {
    if (ch->out == NULL) return NULL;
    size_t klen = strlen(key);
    const char *p = ch->out + *pos;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t l = eol ? (size_t)(eol - p) : strlen(p);
        const char *next = eol ? eol + 1 : p + l;
        if (l > 2 + klen && p[0] == 'R' && p[1] == ' ' && strncmp(p + 2, key, klen) == 0 && p[2 + klen] == '\t') {
            size_t vl = l - 3 - klen;
            if (vl >= len) vl = len - 1;
            memcpy(buf, p + 3 + klen, vl);
            buf[vl] = '\0';
            *pos = (size_t)(next - ch->out);
            return buf;
        }
        p = next;
    }
    *pos = (size_t)(p - ch->out);
    return NULL;
}

const char *ldp_child_get(const struct ldp_child *ch, const char *key, char *buf, size_t len) {
    size_t pos = 0;
    return ldp_child_next(ch, key, &pos, buf, len);
}

/* Last "S" line of the protocol text (the call in progress). */
static void last_step(const char *text, char *buf, size_t len) {
    buf[0] = '\0';
    if (text == NULL) return;
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t l = eol ? (size_t)(eol - p) : strlen(p);
        if (l > 2 && p[0] == 'S' && p[1] == ' ') {
            size_t n = l - 2 < len - 1 ? l - 2 : len - 1;
            memcpy(buf, p + 2, n);
            buf[n] = '\0';
        }
        p = eol ? eol + 1 : p + l;
    }
}

const char *ldp_child_outcome(const struct ldp_child *ch) {
    switch (ch->kind) {
        case LDP_EXITED: return "exited";
        case LDP_SIGNALED: return "crashed";
        case LDP_TIMED_OUT: return "hung";
        case LDP_SPAWN_FAILED: return "could not be started";
    }
    return "failed";
}

void ldp_child_describe(const struct ldp_child *ch, char *buf, size_t len) {
    char step[1024];
    last_step(ch->out, step, sizeof step);
    const char *during = step[0] ? " during " : "";
    switch (ch->kind) {
        case LDP_EXITED: snprintf(buf, len, "exited with status %d%s%s", ch->code, during, step); break;
        case LDP_SIGNALED:
            snprintf(buf, len, "killed by signal %d (%s)%s%s", ch->code, strsignal(ch->code), during, step);
            break;
        case LDP_TIMED_OUT: snprintf(buf, len, "timed out after %.1f s%s%s", ch->seconds, during, step); break;
        case LDP_SPAWN_FAILED: snprintf(buf, len, "could not fork: %s", strerror(ch->code)); break;
    }
}

void ldp_probe(struct ldp_ctx *c, void (*fn)(struct ldp_ctx *c, void *arg), void *arg, struct ldp_child *out) {
    ldp_run_child(c, c->opt->timeout_s, false, fn, arg, out);
}

void ldp_forward_evidence(struct ldp_ctx *c, const struct ldp_child *ch, const char *prefix) {
    if (ch->out == NULL) return;
    for (const char *p = ch->out; *p;) {
        const char *eol = strchr(p, '\n');
        int l = eol ? (int)(eol - p) : (int)strlen(p);
        if (l > 2 && p[0] == 'E' && p[1] == ' ') ldp_evidence(c, "%s%.*s", prefix, l - 2, p + 2);
        p = eol ? eol + 1 : p + l;
    }
}
