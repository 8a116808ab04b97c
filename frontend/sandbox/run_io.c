/* A run's pipes, read without blocking (stdout and stderr into their
 * capped captures, the tier's report into the status buffer), and what
 * was read dropped when the run starts again. Both backends' runs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_internal.h"
#include "sandbox_impl.h"
#include "trace.h"

#define READS_PER_STEP     64   /* per fd, so one flood cannot starve -j peers */

static void close_fd(int *fd)
{
        if (*fd >= 0)
                close(*fd);
        *fd = -1;
}

/* Reads what is there without blocking; closes the fd at EOF. */
static void drain(int *fd, struct output_capture *cap, char *status_buf,
                  size_t *status_len)
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

        drain(&r->out_fd, &r->out_cap, NULL, NULL);
        drain(&r->err_fd, &r->err_cap, NULL, NULL);
        drain(&r->status_fd, NULL, r->status_buf, &r->status_len);
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
}
