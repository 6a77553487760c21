/* ldp-check: opening and reading the files a driver names (its manifest, its library) without
 * ever blocking on them. A manifest or library_path may name a FIFO (open(2) would wait for a
 * writer), a device (/dev/zero never ends) or a directory; those are reported, never read. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance/driver/ldp_check.h"

const char *ldp_file_type_name(unsigned mode) {
    switch (mode & S_IFMT) {
        case S_IFREG: return "a regular file";
        case S_IFDIR: return "a directory";
        case S_IFIFO: return "a FIFO";
        case S_IFCHR: return "a character device";
        case S_IFBLK: return "a block device";
        case S_IFSOCK: return "a socket";
        case S_IFLNK: return "a symbolic link";
        default: return "not a regular file";
    }
}

int ldp_file_open(const char *path, struct ldp_file *f) {
    memset(f, 0, sizeof(*f));
    struct stat st;
    /* stat first: a FIFO or device is never opened at all (opening some devices has effects). */
    if (path == NULL || stat(path, &st) != 0) {
        f->status = LDP_FILE_ERROR;
        f->err_no = path == NULL ? EINVAL : errno;
        return -1;
    }
    f->mode = (unsigned)st.st_mode;
    if (!S_ISREG(st.st_mode)) {
        f->status = LDP_FILE_NOT_REGULAR;
        return -1;
    }
    /* It may be replaced between stat and open: O_NONBLOCK keeps open(2) of a FIFO from waiting
     * for a writer (and is ignored for regular files), and fstat decides on what was opened. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        f->status = LDP_FILE_ERROR;
        f->err_no = errno;
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        f->status = LDP_FILE_ERROR;
        f->err_no = errno;
        close(fd);
        return -1;
    }
    f->mode = (unsigned)st.st_mode;
    if (!S_ISREG(st.st_mode)) {
        f->status = LDP_FILE_NOT_REGULAR;
        close(fd);
        return -1;
    }
    f->size = st.st_size > 0 ? (unsigned long long)st.st_size : 0;
    f->status = LDP_FILE_OK;
    return fd;
}

char *ldp_file_read(const char *path, size_t limit, size_t *out_len, struct ldp_file *f) {
    *out_len = 0;
    int fd = ldp_file_open(path, f);
    if (fd < 0) return NULL;
    if (f->size > limit) {
        f->status = LDP_FILE_TOO_BIG;
        close(fd);
        return NULL;
    }
    /* Up to limit + 1 bytes whatever st_size said: the file may grow, and /proc files say 0. */
    size_t cap = (size_t)f->size + 1, len = 0;
    char *buf = malloc(cap + 1);
    while (buf != NULL) {
        if (len == cap) {
            if (cap > limit) {
                f->status = LDP_FILE_TOO_BIG;
                f->size = len;
                break;
            }
            size_t ncap = cap > limit / 2 ? limit + 1 : cap * 2;
            char *g = realloc(buf, ncap + 1);
            if (g == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = g;
            cap = ncap;
        }
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            f->status = LDP_FILE_ERROR;
            f->err_no = errno;
            f->read_failed = true;
            break;
        }
        if (n == 0) break;
        len += (size_t)n;
    }
    close(fd);
    if (buf == NULL) {
        f->status = LDP_FILE_ERROR;
        f->err_no = ENOMEM;
        f->read_failed = true;
        return NULL;
    }
    if (f->status != LDP_FILE_OK) {
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    *out_len = len;
    return buf;
}
