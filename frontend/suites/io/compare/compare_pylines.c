/* The line comparisons of two Python harnesses, streamed:
 *
 *   LiveCodeBench (lcb_runner/evaluation/testing_util.py, grade_stdio):
 *     lines = [l.strip() for l in out.strip().split("\n")], the same count
 *     on both sides, and each pair equal, or both lines' split() tokens
 *     read as Decimals and equal;
 *   SandboxFusion (sandbox/utils/testing.py, check_stdio_test_case):
 *     lines = out.strip().split("\n"), the same count, each pair equal
 *     once lower-cased and stripped, or both lines floats with
 *     abs(a - b) / max(abs(b), 1e-10) < 1e-5.
 *
 * Stripping the whole output and then each line is the same as dropping
 * the blank lines at both ends and stripping each line, so a line is read
 * as: the blank lines before it (which must agree, except at the very
 * start), then its tokens and the whitespace between them, which must
 * agree byte for byte for the lines to be equal as text. Whitespace is
 * what Python's str.isspace() calls whitespace, in UTF-8; lines end at
 * "\n" only, as split("\n") splits. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

struct pytok {
        char *buf;
        size_t len;
        bool more;              /* longer than the buffer: not all read */
};

/* Bytes of the whitespace character at the stream's position other than
 * "\n" (which ends a line), or 0. */
static size_t space_len(struct io_stream *s)
{
        size_t have = io_stream_fill(s, 3);
        const unsigned char *p = s->buf + s->pos;

        if (have == 0 || p[0] == '\n')
                return 0;
        if ((p[0] >= 0x09 && p[0] <= 0x0d) || (p[0] >= 0x1c && p[0] <= 0x20))
                return 1;
        if (have >= 2 && p[0] == 0xc2 && (p[1] == 0x85 || p[1] == 0xa0))
                return 2;
        if (have < 3)
                return 0;
        if ((p[0] == 0xe1 && p[1] == 0x9a && p[2] == 0x80) ||           /* U+1680 */
            (p[0] == 0xe2 && p[1] == 0x80 && (p[2] <= 0x8a || p[2] == 0xa8 ||
                                              p[2] == 0xa9 || p[2] == 0xaf)) ||
            (p[0] == 0xe2 && p[1] == 0x81 && p[2] == 0x9f) ||           /* U+205F */
            (p[0] == 0xe3 && p[1] == 0x80 && p[2] == 0x80))             /* U+3000 */
                return p[2] >= 0x80 ? 3 : 0;
        return 0;
}

static void skip_spaces(struct io_stream *s)
{
        size_t n;

        while ((n = space_len(s)) > 0)
                s->pos += n;
}

/* From the start of a line: past blank lines (counted) to the first
 * token of the next line that has one. 1 there, 0 at the end. */
static int line_start(struct io_stream *s, long *blanks)
{
        for (;;) {
                skip_spaces(s);
                int c = io_peek(s);
                if (c < 0)
                        return 0;
                if (c != '\n')
                        return 1;
                (*blanks)++;
                s->pos++;
        }
}

static bool at_token(struct io_stream *s)
{
        int c = io_peek(s);

        return c >= 0 && c != '\n' && space_len(s) == 0;
}

static void read_tok(struct io_stream *s, struct pytok *t, bool lower)
{
        t->len = 0;
        t->more = false;
        while (at_token(s)) {
                if (t->len == IO_TOKEN_MAX_BYTES) {
                        t->more = true;
                        return;
                }
                char c = (char)s->buf[s->pos++];
                t->buf[t->len++] = (lower && c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
        }
}

/* The rest of two equal-so-far tokens longer than the buffer. */
static bool rest_equal(struct io_stream *a, struct io_stream *o, bool lower)
{
        for (;;) {
                bool x = at_token(a), y = at_token(o);
                if (!x || !y)
                        return x == y;
                int ca = a->buf[a->pos++], co = o->buf[o->pos++];
                if (lower && ca >= 'A' && ca <= 'Z')
                        ca += 'a' - 'A';
                if (lower && co >= 'A' && co <= 'Z')
                        co += 'a' - 'A';
                if (ca != co)
                        return false;
        }
}

/* Both at whitespace inside a line (maybe none): consumes both runs and
 * says whether they were the same characters. */
static bool runs_equal(struct io_stream *a, struct io_stream *o)
{
        bool same = true;

        for (;;) {
                size_t na = space_len(a), no = space_len(o);
                if (na == 0 && no == 0)
                        return same;
                if (na != no || memcmp(a->buf + a->pos, o->buf + o->pos, na) != 0)
                        same = false;
                a->pos += na;
                o->pos += no;
        }
}

struct line_state {
        enum io_compare_kind kind;
        struct pytok a, o;
        bool text_same;         /* the stripped lines are equal so far */
        bool numbers_same;      /* LCB: the Decimal tokens are equal so far */
        bool first_floats;      /* SandboxFusion: the first tokens are equal floats */
        long tokens;
        struct io_diff seen;    /* the last tokens as read, for the diff */
};

/* An excerpt of a token before Decimal parsing rewrites it. */
static void keep(char *dst, size_t size, const struct pytok *t)
{
        size_t n = t->len < size - 1 ? t->len : size - 1;

        memcpy(dst, t->buf, n);
        dst[n] = '\0';
}

static void compare_pair(struct line_state *ls, struct io_stream *ans, struct io_stream *out)
{
        struct pytok *a = &ls->a, *o = &ls->o;
        bool sf = ls->kind == IO_CMP_SANDBOXFUSION;
        double x, y;

        read_tok(ans, a, sf);
        read_tok(out, o, sf);
        ls->tokens++;
        keep(ls->seen.expected, sizeof(ls->seen.expected), a);
        keep(ls->seen.found, sizeof(ls->seen.found), o);
        bool same = a->len == o->len && memcmp(a->buf, o->buf, a->len) == 0 &&
                    a->more == o->more && (!a->more || rest_equal(ans, out, sf));
        ls->text_same = ls->text_same && same;
        if (sf && ls->tokens == 1)
                ls->first_floats = !a->more && !o->more &&
                                   io_number_pyfloat(a->buf, a->len, &x) &&
                                   io_number_pyfloat(o->buf, o->len, &y) &&
                                   io_sandboxfusion_float_equal(y, x);
        if (ls->numbers_same) {
                struct io_decimal da, dob;
                ls->numbers_same = !a->more && !o->more &&
                                   io_decimal_parse(a->buf, a->len, &da) &&
                                   io_decimal_parse(o->buf, o->len, &dob) &&
                                   io_decimal_equal(&dob, &da);
        }
}

static void note(struct io_diff *d, const struct line_state *ls, long line,
                 const char *why)
{
        d->line = line;
        d->token = ls->tokens;
        memcpy(d->expected, ls->seen.expected, sizeof(d->expected));
        memcpy(d->found, ls->seen.found, sizeof(d->found));
        snprintf(d->why, sizeof(d->why), "%s", why);
}

/* Both at a line's first token: 0 when the lines are equal (both then at
 * their "\n" or end), 1 when not. */
static int compare_line(struct line_state *ls, struct io_stream *ans,
                        struct io_stream *out, long line, struct io_diff *d)
{
        ls->text_same = true;
        ls->numbers_same = ls->kind == IO_CMP_LCB;
        ls->first_floats = false;
        ls->tokens = 0;
        for (;;) {
                compare_pair(ls, ans, out);
                bool ws_same = runs_equal(ans, out);
                bool more_a = at_token(ans), more_o = at_token(out);
                if (more_a != more_o) {
                        note(d, ls, line, more_o ? "the line has more tokens than expected"
                                                 : "the line has fewer tokens than expected");
                        return 1;
                }
                if (!more_a)
                        break;
                ls->text_same = ls->text_same && ws_same;
                ls->first_floats = false;
                if (!ls->text_same && !ls->numbers_same) {
                        note(d, ls, line, "the lines differ");
                        return 1;
                }
        }
        if (ls->text_same || ls->numbers_same || ls->first_floats)
                return 0;
        note(d, ls, line, "the lines differ");
        return 1;
}

static int compare_all(struct line_state *ls, struct io_stream *out,
                       struct io_stream *ans, struct io_diff *d)
{
        long ignored = 0, line = 0;
        int has_a = line_start(ans, &ignored), has_o = line_start(out, &ignored);

        for (;;) {
                long ba = 0, bo = 0;
                if (line > 0) {
                        has_a = line_start(ans, &ba);
                        has_o = line_start(out, &bo);
                }
                line += 1 + ba;
                if (!has_a || !has_o) {
                        if (has_a == has_o)
                                return 0;
                        d->line = line;
                        snprintf(d->why, sizeof(d->why), "%s", has_a ? "output has fewer lines"
                                 : "output has more lines");
                        return 1;
                }
                if (ba != bo) {
                        d->line = line - ba + (bo < ba ? bo : ba);
                        snprintf(d->why, sizeof(d->why), "a blank line differs");
                        return 1;
                }
                if (compare_line(ls, ans, out, line, d))
                        return 1;
                if (io_peek(ans) == '\n')
                        ans->pos++;
                if (io_peek(out) == '\n')
                        out->pos++;
        }
}

int io_compare_pylines(enum io_compare_kind kind, struct io_stream *out,
                       struct io_stream *ans, struct io_diff *d)
{
        auto_free char *abuf = malloc(IO_TOKEN_MAX_BYTES);
        auto_free char *obuf = malloc(IO_TOKEN_MAX_BYTES);
        struct line_state ls = { .kind = kind, .a.buf = abuf, .o.buf = obuf };

        if (!abuf || !obuf) {
                out->error = ENOMEM;
                return -1;
        }
        return compare_all(&ls, out, ans, d);
}
