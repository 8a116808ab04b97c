/* Error reporting for the frontend library: errors travel back through an
 * out-parameter (as in libcrun), and only the CLI turns them into messages
 * and exit codes. Nothing in the library calls exit(). */
#ifndef SBX_ERR_H
#define SBX_ERR_H

#include <stdarg.h>

#include "cleanup.h"        /* auto_free, auto_fd: most callers want them */

/* Exit codes of sbx-run (man/sbx-run.1, EXIT STATUS); a signal N gives 128+N. */
enum {
        SBX_EXIT_OK = 0,        /* passed, or a suite ran to its end */
        SBX_EXIT_FAILED = 1,    /* the program failed or timed out */
        SBX_EXIT_USAGE = 2,     /* bad usage or bad input */
        SBX_EXIT_SANDBOX = 3,   /* sandbox could not be set up / tier missing / out of memory */
};

struct sbx_err {
        int exit_code;          /* one of SBX_EXIT_*, chosen by whoever failed */
        int errnum;             /* errno at failure, 0 if none */
        char msg[1024];
};

/* Records the failure (message + strerror(errnum) when errnum != 0) with
 * exit code SBX_EXIT_USAGE unless the caller sets another; returns -1. */
int sbx_fail(struct sbx_err *err, int errnum, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
/* Same, with an explicit exit code. */
int sbx_fail_code(struct sbx_err *err, int exit_code, int errnum,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Out of memory: "WHAT: Cannot allocate memory", always SBX_EXIT_SANDBOX
 * (the host could not run it; the input was not at fault, and a retry
 * elsewhere may pass). Returns -1. */
int sbx_fail_oom(struct sbx_err *err, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
/* Puts context before a recorded message ("--shard auto: " + msg), cut to
 * fit; exit code and errno stay. Returns -1, so `return sbx_err_wrap(...)`. */
int sbx_err_wrap(struct sbx_err *err, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

#endif
