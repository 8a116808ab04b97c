#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

void output_capture_init(struct output_capture *c, struct run_output *out,
                         size_t max)
{
        memset(c, 0, sizeof(*c));
        memset(out, 0, sizeof(*out));
        c->out = out;
        c->max = max;
}

/* Grows geometrically but never past max + 1 (room for the NUL): a flood
 * costs at most max bytes of our memory. */
static int reserve(struct output_capture *c, size_t need)
{
        size_t cap = c->data_cap ? c->data_cap : 4096;
        char *data;

        if (need <= c->data_cap)
                return 0;
        while (cap < need)
                cap *= 2;
        if (cap > c->max + 1)
                cap = c->max + 1;
        data = realloc(c->out->data, cap);
        if (!data) {
                c->failed_errno = errno;
                return -1;
        }
        c->out->data = data;
        c->data_cap = cap;
        return 0;
}

static void ring_append(struct output_capture *c, const char *buf, size_t n)
{
        char *ring = c->out->tail;

        if (n >= OUTPUT_TAIL_BYTES) {
                memcpy(ring, buf + n - OUTPUT_TAIL_BYTES, OUTPUT_TAIL_BYTES);
                c->ring_pos = 0;
                return;
        }
        size_t first = OUTPUT_TAIL_BYTES - c->ring_pos;
        if (first > n)
                first = n;
        memcpy(ring + c->ring_pos, buf, first);
        memcpy(ring, buf + first, n - first);
        c->ring_pos = (c->ring_pos + n) % OUTPUT_TAIL_BYTES;
}

void output_capture_append(struct output_capture *c, const char *buf, size_t n)
{
        struct run_output *out = c->out;
        size_t room = c->max - out->len;
        size_t take = n < room ? n : room;

        if (take && reserve(c, out->len + take + 1) == 0) {
                memcpy(out->data + out->len, buf, take);
                out->len += take;
        }
        if (take < n)
                out->truncated = true;
        ring_append(c, buf, n);
        out->total += n;
}

void output_capture_finish(struct output_capture *c)
{
        struct run_output *out = c->out;
        char lin[OUTPUT_TAIL_BYTES];

        if (reserve(c, out->len + 1) == 0)
                out->data[out->len] = '\0';
        if (out->total >= OUTPUT_TAIL_BYTES) {
                /* the ring is full: oldest byte sits at ring_pos */
                size_t first = OUTPUT_TAIL_BYTES - c->ring_pos;
                memcpy(lin, out->tail + c->ring_pos, first);
                memcpy(lin + first, out->tail, c->ring_pos);
                memcpy(out->tail, lin, OUTPUT_TAIL_BYTES);
                out->tail_len = OUTPUT_TAIL_BYTES;
        } else {
                out->tail_len = out->total;
        }
        out->tail[out->tail_len] = '\0';
}
