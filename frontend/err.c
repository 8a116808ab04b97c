#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"

static int fail_v(struct sbx_err *err, int exit_code, int errnum,
                  const char *fmt, va_list ap)
{
        size_t len;

        if (!err)
                return -1;
        err->exit_code = exit_code;
        err->errnum = errnum;
        vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
        len = strlen(err->msg);
        if (errnum && len < sizeof(err->msg))
                snprintf(err->msg + len, sizeof(err->msg) - len, ": %s",
                         strerror(errnum));
        return -1;
}

int sbx_fail(struct sbx_err *err, int errnum, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        fail_v(err, SBX_EXIT_USAGE, errnum, fmt, ap);
        va_end(ap);
        return -1;
}

int sbx_fail_code(struct sbx_err *err, int exit_code, int errnum,
                  const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        fail_v(err, exit_code, errnum, fmt, ap);
        va_end(ap);
        return -1;
}

int sbx_write_all(int fd, const void *data, size_t len)
{
        const char *p = data;

        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        return n == 0 ? (errno = EIO, -1) : -1;
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

int sbx_mkdir_p(const char *path)
{
        char *buf = strdup(path);
        int rc = 0;

        if (!buf)
                return -1;
        for (char *p = buf + 1; *p && rc == 0; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(buf, 0700) < 0 && errno != EEXIST)
                        rc = -1;
                *p = '/';
        }
        if (rc == 0 && mkdir(buf, 0700) < 0 && errno != EEXIST)
                rc = -1;
        int saved = errno;
        free(buf);
        errno = saved;
        return rc;
}
