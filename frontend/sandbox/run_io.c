/* A run's input and output, both backends': its stdin (run_spec.stdin_path
 * or stdin_data) as a file of the run's own, a sealed memfd (else an
 * unlinked file in the session's scratch root), so that the program reads
 * and seeks a file as a judge's program does, sees the same name in every
 * run (/proc/self/fd/0 names no test), and can neither change it nor reach
 * the host file it came from; its pipes, read without blocking (stdout and
 * stderr into their capped captures, stdout into its file too when the
 * spec has one, the tier's report into the status buffer), what was read
 * dropped when the run starts again, and stdout's limit. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_internal.h"
#include "sandbox_impl.h"
#include "trace.h"
#include "util.h"

#define READS_PER_STEP     64   /* per fd, so one flood cannot starve -j peers */

static void close_fd(int *fd)
{
        if (*fd >= 0)
                close(*fd);
        *fd = -1;
}

/* stdout's bytes to the caller's file too, up to its limit; a failed
 * write is remembered (the run is then an error) and ends the copy. */
static void to_file(struct sbx_run *r, const char *buf, size_t n)
{
        if (r->stdout_file < 0 || r->stdout_errno)
                return;
        if (r->stdout_limit > 0 && (int64_t)n > r->stdout_limit - r->stdout_filed)
                n = (size_t)(r->stdout_limit - r->stdout_filed);
        if (n > 0 && sbx_write_all(r->stdout_file, buf, n) < 0)
                r->stdout_errno = errno;
        else
                r->stdout_filed += (int64_t)n;
}

/* Reads what is there without blocking; closes the fd at EOF. With r,
 * stdout: also to its file. */
static void drain(int *fd, struct output_capture *cap, char *status_buf,
                  size_t *status_len, struct sbx_run *r)
{
        char buf[65536];

        for (int i = 0; *fd >= 0 && i < READS_PER_STEP; i++) {
                ssize_t n = read(*fd, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return;
                if (n <= 0) {
                        close_fd(fd);
                        return;
                }
                if (cap) {
                        output_capture_append(cap, buf, (size_t)n);
                        if (r)
                                to_file(r, buf, (size_t)n);
                } else {
                        size_t room = STATUS_MAX_BYTES - *status_len;
                        size_t take = (size_t)n < room ? (size_t)n : room;
                        memcpy(status_buf + *status_len, buf, take);
                        *status_len += take;
                }
        }
}

void run_drain(struct sbx_run *r)
{
        size_t had = r->status_len;

        drain(&r->out_fd, &r->out_cap, NULL, NULL, r);
        drain(&r->err_fd, &r->err_cap, NULL, NULL, NULL);
        drain(&r->status_fd, NULL, r->status_buf, &r->status_len, NULL);
        if (had == 0 && r->status_len > 0)
                sbx_trace("first status from the tier");
}

/* A lost warm run's output is dropped before it runs again (or cold). */
void run_reset_output(struct sbx_run *r)
{
        free(r->res.out.data);
        free(r->res.err.data);
        memset(&r->res.out, 0, sizeof(r->res.out));
        memset(&r->res.err, 0, sizeof(r->res.err));
        output_capture_init(&r->out_cap, &r->res.out, r->sb->opts.max_output_bytes);
        output_capture_init(&r->err_cap, &r->res.err, r->sb->opts.max_output_bytes);
        r->status_len = 0;
        if (r->stdout_file >= 0 && r->stdout_filed > 0 && !r->stdout_errno &&
            (ftruncate(r->stdout_file, r->stdout_start) < 0 ||
             lseek(r->stdout_file, r->stdout_start, SEEK_SET) < 0))
                r->stdout_errno = errno;
        r->stdout_filed = 0;
        r->output_limited = false;
}

/* The program is stopped as its backend stops it (cold: its tree killed;
 * warm: its zygote told to kill it), not by a closed pipe it might ignore; what it
 * wrote past the limit is drained and dropped. */
void run_check_output_limit(struct sbx_run *r)
{
        if (r->stdout_limit <= 0 || r->output_limited ||
            r->res.out.total <= (size_t)r->stdout_limit)
                return;
        r->output_limited = true;
        sbx_trace("output limit");
        if (!r->killed && !r->reaped) {
                r->killed = true;
                r->backend->kill(r);
        }
}

#define STDIN_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)

/* The regular file path, whole, into fd. */
static int copy_file(int fd, const char *path, struct sbx_err *err)
{
        auto_fd in = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        struct stat st;

        if (in < 0 || fstat(in, &st) < 0)
                return sbx_fail_code(err, SBX_EXIT_USAGE, errno, "stdin %s", path);
        if (!S_ISREG(st.st_mode))
                return sbx_fail_code(err, SBX_EXIT_USAGE, 0, "stdin %s: not a regular file", path);
        if (st.st_size > RUN_STDIN_MAX_BYTES)
                return sbx_fail_code(err, SBX_EXIT_USAGE, 0, "stdin %s: %lld bytes, more than %lld",
                                     path, (long long)st.st_size, RUN_STDIN_MAX_BYTES);
        if (sbx_copy_fd(fd, in, st.st_size) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "copying stdin %s", path);
        return 0;
}

int run_stdin_open(struct sbx_run *r, const struct run_spec *spec, struct sbx_err *err)
{
        char why[512] = "";
        auto_fd fd = -1;

        r->stdin_fd = -1;
        if (!spec->stdin_path && !spec->stdin_data)
                return 0;
        if (spec->stdin_path && spec->stdin_data)
                return sbx_fail(err, 0, "run: stdin from a file and from bytes at once");
        if (spec->stdin_data && spec->stdin_len > (size_t)RUN_STDIN_MAX_BYTES)
                return sbx_fail(err, 0, "stdin: %zu bytes, more than %lld", spec->stdin_len,
                                RUN_STDIN_MAX_BYTES);
        if ((fd = sandbox_private_file(r->sb, "sbx-stdin", true, why, sizeof(why))) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0, "stdin: %s", why);
        if (spec->stdin_path && copy_file(fd, spec->stdin_path, err) < 0)
                return -1;
        if (spec->stdin_data && sbx_write_all(fd, spec->stdin_data, spec->stdin_len) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "writing stdin");
        /* Not a memfd (EINVAL): the unlinked file no one else can open. */
        if (fcntl(fd, F_ADD_SEALS, STDIN_SEALS) < 0 && errno != EINVAL)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "sealing stdin");
        r->stdin_fd = take_fd(&fd);
        return 0;
}
