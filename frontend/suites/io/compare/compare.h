/* Comparing a program's output with a test's expected output, the ways the
 * judges and harnesses do, in bounded memory: both sides are read as
 * streams (a buffer in memory, or a file read 64 KiB at a time), so
 * outputs of many megabytes compare in linear time without being held.
 *
 *   exact          byte for byte
 *   lines          (default) tokens line by line: spaces and tabs between
 *                  tokens, trailing whitespace and trailing blank lines
 *                  ignored (testlib's lcmp, plus its check that nothing is
 *                  left over)
 *   tokens         tokens, line breaks anywhere (testlib's wcmp)
 *   floats         tokens; a token the answer has as a number must be a
 *                  number within abs_tol or rel_tol of it (testlib's
 *                  doubleCompare, one eps for both in "floats:EPS"), any
 *                  other token equal (DMOJ's mixed lines)
 *   lcb            LiveCodeBench's grade_stdio: whole output stripped, lines
 *                  stripped, equal, or their tokens equal as Decimals
 *   sandboxfusion  SandboxFusion's check_stdio_test_case: whole output
 *                  stripped, lines lower-cased and stripped, equal, or both
 *                  one float within a relative 1e-5
 *   json           a call-based problem's value (the runner prints the call's
 *                  result as JSON): equal as Python's == finds the values
 *                  (1 == 1.0 == true, lists, dicts by key), as
 *                  LiveCodeBench's grade_call_based; numbers as doubles
 *   json-apps      the same, or equal to the answer's first item when the
 *                  answer is a non-empty list (APPS's testing_util)
 *   checker        a checker program decides (checker.c; testlib's
 *                  `checker input output answer` and exit codes)
 *
 * lcb and sandboxfusion strip what Python's str.strip() strips (ASCII
 * whitespace, \x1c-\x1f and the Unicode spaces, in UTF-8), compare bytes
 * (sandboxfusion lower-cases ASCII letters only) and read numbers written
 * in ASCII digits; tokens longer than IO_TOKEN_MAX_BYTES are compared as
 * text, never as numbers. */
#ifndef SBX_IO_COMPARE_H
#define SBX_IO_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"

/* How a test's output is judged (below). */
enum io_compare_kind {
        IO_CMP_LINES = 0,       /* tokens line by line, trailing blanks ignored (default) */
        IO_CMP_EXACT,           /* byte for byte */
        IO_CMP_TOKENS,          /* tokens, line breaks anywhere (testlib's wcmp) */
        IO_CMP_FLOATS,          /* tokens; numbers within abs_tol or rel_tol */
        IO_CMP_LCB,             /* LiveCodeBench's grade_stdio */
        IO_CMP_SANDBOXFUSION,   /* SandboxFusion's check_stdio_test_case */
        IO_CMP_JSON,            /* a call's value: equal as Python values (LiveCodeBench) */
        IO_CMP_JSON_APPS,       /* ... or the answer's first item (APPS's testing_util) */
        IO_CMP_CHECKER,         /* a checker program, testlib's convention */
        IO_CMP_KINDS,
};

struct io_compare {
        enum io_compare_kind kind;
        double abs_tol, rel_tol;        /* IO_CMP_FLOATS */
};

#define IO_STREAM_BUF_BYTES     (64 << 10)
#define IO_TOKEN_MAX_BYTES      (64 << 10)      /* longer: never a number */
#define IO_FLOATS_DEFAULT_EPS   1e-6            /* testlib's rcmp6 */
#define IO_SANDBOXFUSION_REL    1e-5            /* testing.py's float_equal */

/* One side of a comparison. Memory streams read data in place. */
struct io_stream {
        const unsigned char *buf;
        size_t pos, end;
        unsigned char *own;             /* fd streams: the buffer, owned */
        size_t cap;                     /* its size */
        int fd;                         /* -1 for memory */
        int error;                      /* errno of a failed read, else 0 */
        uint64_t consumed;              /* bytes before buf[0] */
        const char *name;               /* "output", "answer": for messages */
};

void io_stream_mem(struct io_stream *s, const char *data, size_t len, const char *name);
/* Reads fd from where it is; the fd stays the caller's. */
int io_stream_fd(struct io_stream *s, int fd, const char *name, struct sbx_err *err);
/* The same with a buffer of cap bytes (>= 8; tests use small ones). */
int io_stream_fd_buf(struct io_stream *s, int fd, const char *name, size_t cap,
                     struct sbx_err *err);
void io_stream_done(struct io_stream *s);

/* Ensures n bytes (n <= 4) are buffered when the stream has them; returns
 * how many are. */
size_t io_stream_fill(struct io_stream *s, size_t n);

static inline int io_peek(struct io_stream *s)
{
        if (s->pos == s->end && io_stream_fill(s, 1) == 0)
                return -1;
        return s->buf[s->pos];
}

static inline int io_get(struct io_stream *s)
{
        int c = io_peek(s);

        if (c >= 0)
                s->pos++;
        return c;
}

/* Where the outputs first differ, for the result line. */
struct io_diff {
        long line;                      /* 1-based line of the answer, 0 if unknown */
        long token;                     /* 1-based token of the answer, 0 if unknown */
        char expected[48], found[48];   /* excerpts, cut */
        char why[96];                   /* "expected 3 tokens, found 4", ... */
};

/* 0 the same, 1 different (d says where), -1 a stream could not be read
 * (err set): the judge's failure, not the program's. Not for checkers. */
int io_compare_streams(const struct io_compare *how, struct io_stream *out,
                       struct io_stream *ans, struct io_diff *d, struct sbx_err *err);
/* The same for two buffers. */
int io_compare_mem(const struct io_compare *how, const char *out, size_t out_len,
                   const char *ans, size_t ans_len, struct io_diff *d, struct sbx_err *err);

/* "lines", "exact", "tokens", "floats", "floats:EPS",
 * "floats:abs=A,rel=R", "lcb", "sandboxfusion", "checker". */
int io_compare_parse(const char *spec, struct io_compare *how, struct sbx_err *err);
const char *io_compare_name(enum io_compare_kind k);

/* ---- the comparators, one file each kind (compare_*.c) ---- */
int io_compare_exact(struct io_stream *out, struct io_stream *ans, struct io_diff *d);
int io_compare_tokens(const struct io_compare *how, struct io_stream *out,
                      struct io_stream *ans, struct io_diff *d);
int io_compare_pylines(enum io_compare_kind kind, struct io_stream *out,
                       struct io_stream *ans, struct io_diff *d);
/* Both sides read whole (at most IO_JSON_MAX_BYTES) and parsed: 0, 1, or
 * -1 when the answer is not JSON (the problem's data, not the program). */
#define IO_JSON_MAX_BYTES       (64LL << 20)
int io_compare_json(enum io_compare_kind kind, struct io_stream *out,
                    struct io_stream *ans, struct io_diff *d);

/* ---- numbers (compare_number.c) ---- */

/* A token as testlib's readDouble takes it ([+-]digits[.digits][e[+-]digits],
 * or [+-].digits...): 1 and *v set, else 0. */
int io_number_strict(const char *s, size_t n, double *v);
/* testlib's doubleCompare with separate absolute and relative bounds. */
bool io_double_close(double expected, double found, double abs_tol, double rel_tol);
/* Python's float(s) syntax (underscores between digits, inf, infinity,
 * nan, any case; s already stripped): 1 and *v set, else 0. */
int io_number_pyfloat(const char *s, size_t n, double *v);
/* SandboxFusion's float_equal(a, b): abs(a - b) / max(abs(b), 1e-10) < 1e-5,
 * with Python's max (a NaN first argument wins). */
bool io_sandboxfusion_float_equal(double a, double b);

/* A Decimal as Python's decimal module reads a token (underscores
 * dropped anywhere, as its constructor does): 1 when s parses, else 0.
 * s is rewritten in place (d->digits points into it). Equal values
 * compare equal (1.50 == 1.5, -0 == 0, 1e2 == 100); a NaN equals nothing;
 * exponents past +-10^17 do not parse. */
struct io_decimal {
        int kind;                       /* 0 finite, 1 infinity, 2 NaN */
        bool negative;
        const char *digits;             /* significant digits, no leading/trailing 0 */
        size_t n_digits;                /* 0: the value is zero */
        int64_t exponent;               /* value = digits * 10^exponent */
};
int io_decimal_parse(char *s, size_t n, struct io_decimal *d);
bool io_decimal_equal(const struct io_decimal *a, const struct io_decimal *b);

#endif
