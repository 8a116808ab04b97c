#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "encoding.h"

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

/* utf8_seq_len, but a NUL byte is replaced too: the sanitized text is a C
 * string. */
static size_t seq_len_no_nul(const unsigned char *p, size_t n)
{
        return p[0] ? utf8_seq_len(p, n) : 0;
}

char *output_utf8_sanitize(const char *buf, size_t len)
{
        static const char replacement[] = "\xef\xbf\xbd";
        const unsigned char *p = (const unsigned char *)buf;
        char *out = malloc(len * 3 + 1), *o = out;

        if (!out)
                return NULL;
        for (size_t i = 0; i < len;) {
                size_t n = seq_len_no_nul(p + i, len - i);
                if (n == 0) {
                        memcpy(o, replacement, 3);
                        o += 3;
                        i++;
                        continue;
                }
                memcpy(o, p + i, n);
                o += n;
                i += n;
        }
        *o = '\0';
        return out;
}

/* The code point of the valid sequence of n bytes at p. */
static unsigned utf8_code_point(const unsigned char *p, size_t n)
{
        unsigned cp = n == 1 ? p[0] : n == 2 ? p[0] & 0x1f : n == 3 ? p[0] & 0x0f : p[0] & 0x07;

        for (size_t i = 1; i < n; i++)
                cp = (cp << 6) | (p[i] & 0x3f);
        return cp;
}

/* What a terminal acts on rather than shows: C0 and C1 controls, DEL, and
 * the bidirectional overrides and isolates ("Trojan Source"). */
static bool terminal_acts_on(unsigned cp, bool keep_lines)
{
        if (keep_lines && (cp == '\n' || cp == '\t'))
                return false;
        return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) ||
               (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

static char *escape_one(char *o, unsigned cp)
{
        static const char named[][3] = { ['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t" };

        if (cp < sizeof(named) / sizeof(named[0]) && named[cp][0])
                return o + sprintf(o, "%s", named[cp]);
        if (cp <= 0xff)
                return o + sprintf(o, "\\x%02x", cp);
        return o + sprintf(o, "\\u%04x", cp);
}

char *output_terminal_escape(const char *buf, size_t len, bool keep_lines)
{
        const unsigned char *p = (const unsigned char *)buf;
        /* the longest escape, "\u202e", is 6 bytes for a 3-byte sequence */
        char *out = malloc(len * 4 + 1), *o = out;

        if (!out)
                return NULL;
        for (size_t i = 0; i < len;) {
                size_t n = utf8_seq_len(p + i, len - i);
                unsigned cp = n ? utf8_code_point(p + i, n) : p[i];

                if (n == 0 || terminal_acts_on(cp, keep_lines)) {
                        o = escape_one(o, cp);
                        i += n ? n : 1;
                        continue;
                }
                memcpy(o, p + i, n);
                o += n;
                i += n;
        }
        *o = '\0';
        return out;
}
