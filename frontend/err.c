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
