/* sbx-run-init's one error path and its lines to the zygote: every phase
 * reports through here, and calls nothing else of sbx-run-init. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "run_init.h"

/* The one piece of process state besides the request: where a failure is
 * reported (the zygote turns an E line into the run's setup-error). */
static int report_fd = -1;

void init_report_to(int info_fd)
{
        report_fd = info_fd;
}

void init_write_line(const char *line)
{
        size_t len = strlen(line);

        if (report_fd < 0 || write(report_fd, line, len) != (ssize_t)len)
                _exit(INIT_SETUP_EXIT);      /* the zygote is gone or the pipe broken: nobody to tell */
}

void init_die(int errnum, const char *fmt, ...)
{
        char line[1024] = "E ";
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(line + 2, sizeof(line) - 4, fmt, ap) + 2;
        va_end(ap);
        if (n > (int)sizeof(line) - 4)
                n = (int)sizeof(line) - 4;
        if (errnum)
                n += snprintf(line + n, sizeof(line) - 2 - (size_t)n, ": %s", strerror(errnum));
        if (n > (int)sizeof(line) - 2)
                n = (int)sizeof(line) - 2;
        line[n] = '\n';
        line[n + 1] = '\0';
        /* no zygote to tell (--exec): on stderr, as the program's */
        if (report_fd < 0 || write(report_fd, line, (size_t)n + 1) < 0)
                (void)!dprintf(STDERR_FILENO, "sbx-run-init: %s", line + 2);
        _exit(INIT_SETUP_EXIT);
}
