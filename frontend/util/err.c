#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int sbx_fail_oom(struct sbx_err *err, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        fail_v(err, SBX_EXIT_SANDBOX, ENOMEM, fmt, ap);
        va_end(ap);
        return -1;
}

int sbx_err_wrap(struct sbx_err *err, const char *fmt, ...)
{
        char prefix[sizeof(err->msg)];
        va_list ap;
        int n;

        if (!err)
                return -1;
        va_start(ap, fmt);
        n = vsnprintf(prefix, sizeof(prefix), fmt, ap);
        va_end(ap);
        if (n <= 0)
                return -1;
        size_t plen = strnlen(prefix, sizeof(err->msg) - 1);
        size_t keep = strnlen(err->msg, sizeof(err->msg) - 1);
        if (keep > sizeof(err->msg) - 1 - plen)
                keep = sizeof(err->msg) - 1 - plen;
        memmove(err->msg + plen, err->msg, keep);
        memcpy(err->msg, prefix, plen);
        err->msg[plen + keep] = '\0';
        return -1;
}
