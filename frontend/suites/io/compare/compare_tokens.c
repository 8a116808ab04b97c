/* The token comparisons (lines, tokens, floats): both outputs are read
 * as whitespace-separated tokens, each counted with the line breaks before
 * it, so one pass in bounded memory decides: `lines` wants the same tokens
 * after the same number of line breaks (blank lines inside count,
 * trailing ones and trailing spaces do not), `tokens` only the same
 * tokens, `floats` numbers within the bounds. Whitespace is ASCII's
 * (space, \t, \n, \v, \f, \r). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

struct tok {
        char *buf;
        size_t len;
        bool more;              /* longer than the buffer: the rest is unread */
        long breaks;            /* line breaks between the previous token and this one */
        bool eof;               /* no token: the stream ended */
};

static bool is_space(int c)
{
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void next_tok(struct io_stream *s, struct tok *t)
{
        int c;

        t->len = 0;
        t->more = false;
        t->breaks = 0;
        while ((c = io_peek(s)) >= 0 && is_space(c)) {
                t->breaks += c == '\n';
                s->pos++;
        }
        t->eof = c < 0;
        while ((c = io_peek(s)) >= 0 && !is_space(c)) {
                if (t->len == IO_TOKEN_MAX_BYTES) {
                        t->more = true;
                        return;
                }
                t->buf[t->len++] = (char)c;
                s->pos++;
        }
}

/* The rest of two tokens longer than the buffer, byte for byte. */
static bool rest_equal(struct io_stream *a, struct io_stream *o)
{
        for (;;) {
                int x = io_peek(a), y = io_peek(o);
                bool xend = x < 0 || is_space(x), yend = y < 0 || is_space(y);
                if (xend || yend)
                        return xend && yend;
                if (x != y)
                        return false;
                a->pos++;
                o->pos++;
        }
}

static bool tok_equal(const struct io_compare *how, struct tok *a, struct tok *o,
                      struct io_stream *as, struct io_stream *os)
{
        double e, f;

        if (how->kind == IO_CMP_FLOATS && !a->more && io_number_strict(a->buf, a->len, &e))
                return !o->more && io_number_strict(o->buf, o->len, &f) &&
                       io_double_close(e, f, how->abs_tol, how->rel_tol);
        if (a->len != o->len || memcmp(a->buf, o->buf, a->len) != 0)
                return false;
        return a->more == o->more && (!a->more || rest_equal(as, os));
}

static void cut(char *dst, size_t size, const struct tok *t)
{
        size_t n = t->len < size - 1 ? t->len : size - 1;

        memcpy(dst, t->buf, n);
        dst[n] = '\0';
}

static int differ(struct io_diff *d, long line, long token, const struct tok *a,
                  const struct tok *o, const char *why)
{
        d->line = line;
        d->token = token;
        cut(d->expected, sizeof(d->expected), a);
        cut(d->found, sizeof(d->found), o);
        snprintf(d->why, sizeof(d->why), "%s", why);
        return 1;
}

static int compare_loop(const struct io_compare *how, struct io_stream *out,
                        struct io_stream *ans, struct tok *a, struct tok *o,
                        struct io_diff *d)
{
        long line = 1, token = 0;

        for (;;) {
                next_tok(ans, a);
                next_tok(out, o);
                line += a->breaks;
                token++;
                if (a->eof || o->eof) {
                        if (a->eof && o->eof)
                                return 0;
                        return differ(d, line, token, a, o, a->eof ? "output has more tokens"
                                      : "output ends early");
                }
                if (how->kind == IO_CMP_LINES && a->breaks != o->breaks)
                        return differ(d, line, token, a, o, o->breaks < a->breaks
                                      ? "output goes on where the line ends"
                                      : "output breaks the line early");
                if (!tok_equal(how, a, o, ans, out))
                        return differ(d, line, token, a, o, how->kind == IO_CMP_FLOATS
                                      ? "numbers or words differ" : "tokens differ");
        }
}

int io_compare_tokens(const struct io_compare *how, struct io_stream *out,
                      struct io_stream *ans, struct io_diff *d)
{
        auto_free char *abuf = malloc(IO_TOKEN_MAX_BYTES);
        auto_free char *obuf = malloc(IO_TOKEN_MAX_BYTES);
        struct tok a = { .buf = abuf }, o = { .buf = obuf };

        if (!abuf || !obuf) {
                out->error = ENOMEM;
                return -1;
        }
        return compare_loop(how, out, ans, &a, &o, d);
}
