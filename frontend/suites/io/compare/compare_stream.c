/* The two sides of a comparison as streams (compare.h): a buffer in
 * memory, read in place, or an fd read a buffer at a time, so that outputs
 * of many megabytes compare without being held. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"

void io_stream_mem(struct io_stream *s, const char *data, size_t len, const char *name)
{
        *s = (struct io_stream){ .buf = (const unsigned char *)data, .end = len,
                                 .fd = -1, .name = name };
}

int io_stream_fd_buf(struct io_stream *s, int fd, const char *name, size_t cap,
                     struct sbx_err *err)
{
        *s = (struct io_stream){ .fd = fd, .name = name, .cap = cap < 8 ? 8 : cap };
        if (!(s->own = malloc(s->cap)))
                return sbx_fail_oom(err, "%s: stream buffer", name);
        s->buf = s->own;
        return 0;
}

int io_stream_fd(struct io_stream *s, int fd, const char *name, struct sbx_err *err)
{
        return io_stream_fd_buf(s, fd, name, IO_STREAM_BUF_BYTES, err);
}

void io_stream_done(struct io_stream *s)
{
        free(s->own);
        s->own = NULL;
        s->buf = NULL;
        s->pos = s->end = 0;
}

/* Keeps the unread bytes (at most a few: callers ask for n <= 4) and
 * reads behind them until n are there, EOF, or an error (s->error). */
size_t io_stream_fill(struct io_stream *s, size_t n)
{
        size_t have = s->end - s->pos;

        if (have >= n || s->fd < 0 || s->error)
                return have;
        memmove(s->own, s->own + s->pos, have);
        s->consumed += s->pos;
        s->pos = 0;
        s->end = have;
        while (s->end < n) {
                ssize_t r = read(s->fd, s->own + s->end, s->cap - s->end);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        s->error = errno;
                if (r <= 0)
                        break;
                s->end += (size_t)r;
        }
        return s->end - s->pos;
}
