/* The comparison's spec ("floats:1e-6"), the choice of comparator, and
 * the exact one. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"

static const char *const kind_names[IO_CMP_KINDS] = {
        [IO_CMP_LINES] = "lines",
        [IO_CMP_EXACT] = "exact",
        [IO_CMP_TOKENS] = "tokens",
        [IO_CMP_FLOATS] = "floats",
        [IO_CMP_LCB] = "lcb",
        [IO_CMP_SANDBOXFUSION] = "sandboxfusion",
        [IO_CMP_JSON] = "json",
        [IO_CMP_JSON_APPS] = "json-apps",
        [IO_CMP_CHECKER] = "checker",
};

const char *io_compare_name(enum io_compare_kind k)
{
        return (unsigned)k < IO_CMP_KINDS ? kind_names[k] : "?";
}

/* Up to sizeof(out)-1 bytes of what is left, for an excerpt (consumes them). */
static void excerpt(struct io_stream *s, char *out, size_t size)
{
        size_t k = 0;
        int c;

        while (k + 1 < size && (c = io_get(s)) >= 0 && c != '\n')
                out[k++] = (char)c;
        out[k] = '\0';
}

/* Byte for byte, a buffer at a time; the first difference's line. */
int io_compare_exact(struct io_stream *out, struct io_stream *ans, struct io_diff *d)
{
        long line = 1;

        for (;;) {
                int a = io_peek(ans), o = io_peek(out);
                if (a < 0 || o < 0 || a != o) {
                        if (a == o)
                                return 0;
                        d->line = line;
                        snprintf(d->why, sizeof(d->why), "%s", a < 0 ? "output is longer"
                                 : o < 0 ? "output is shorter" : "bytes differ");
                        excerpt(ans, d->expected, sizeof(d->expected));
                        excerpt(out, d->found, sizeof(d->found));
                        return 1;
                }
                size_t n = ans->end - ans->pos;
                if (out->end - out->pos < n)
                        n = out->end - out->pos;
                const unsigned char *p = ans->buf + ans->pos, *q = out->buf + out->pos;
                size_t same = 0;
                while (same < n && p[same] == q[same])
                        same++;
                for (size_t i = 0; i < same; i++)
                        line += p[i] == '\n';
                ans->pos += same;
                out->pos += same;
        }
}

int io_compare_streams(const struct io_compare *how, struct io_stream *out,
                       struct io_stream *ans, struct io_diff *d, struct sbx_err *err)
{
        int rc;

        memset(d, 0, sizeof(*d));
        switch (how->kind) {
        case IO_CMP_EXACT:
                rc = io_compare_exact(out, ans, d);
                break;
        case IO_CMP_LINES:
        case IO_CMP_TOKENS:
        case IO_CMP_FLOATS:
                rc = io_compare_tokens(how, out, ans, d);
                break;
        case IO_CMP_LCB:
        case IO_CMP_SANDBOXFUSION:
                rc = io_compare_pylines(how->kind, out, ans, d);
                break;
        case IO_CMP_JSON:
        case IO_CMP_JSON_APPS:
                rc = io_compare_json(how->kind, out, ans, d);
                if (rc < 0 && !out->error && !ans->error)
                        return sbx_fail(err, 0, "the answer is not JSON: %s", d->why);
                break;
        default:
                return sbx_fail(err, 0, "comparison %s is not a stream comparison",
                                io_compare_name(how->kind));
        }
        if (out->error || ans->error) {
                struct io_stream *bad = out->error ? out : ans;
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, bad->error, "read the %s", bad->name);
        }
        return rc;
}

int io_compare_mem(const struct io_compare *how, const char *out, size_t out_len,
                   const char *ans, size_t ans_len, struct io_diff *d, struct sbx_err *err)
{
        struct io_stream o, a;

        io_stream_mem(&o, out, out_len, "output");
        io_stream_mem(&a, ans, ans_len, "answer");
        return io_compare_streams(how, &o, &a, d, err);
}

static int parse_tol(const char *s, double *v)
{
        char *end;

        errno = 0;
        *v = strtod(s, &end);
        return (errno || end == s || *end || !isfinite(*v) || *v < 0) ? -1 : 0;
}

/* "EPS" (both bounds, as testlib) or "abs=A,rel=R" (either may be left out). */
static int parse_floats(const char *arg, struct io_compare *how)
{
        char buf[128];

        if (strlen(arg) >= sizeof(buf))
                return -1;
        if (!strchr(arg, '=')) {
                if (parse_tol(arg, &how->abs_tol) < 0)
                        return -1;
                how->rel_tol = how->abs_tol;
                return 0;
        }
        how->abs_tol = how->rel_tol = 0;
        strcpy(buf, arg);
        for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
                if (strncmp(kv, "abs=", 4) == 0 && parse_tol(kv + 4, &how->abs_tol) == 0)
                        continue;
                if (strncmp(kv, "rel=", 4) == 0 && parse_tol(kv + 4, &how->rel_tol) == 0)
                        continue;
                return -1;
        }
        return 0;
}

int io_compare_parse(const char *spec, struct io_compare *how, struct sbx_err *err)
{
        const char *colon = strchr(spec, ':');
        size_t n = colon ? (size_t)(colon - spec) : strlen(spec);

        for (int k = 0; k < IO_CMP_KINDS; k++) {
                if (strlen(kind_names[k]) != n || strncmp(spec, kind_names[k], n) != 0)
                        continue;
                *how = (struct io_compare){ .kind = (enum io_compare_kind)k };
                if (k == IO_CMP_FLOATS) {
                        how->abs_tol = how->rel_tol = IO_FLOATS_DEFAULT_EPS;
                        if (colon && parse_floats(colon + 1, how) < 0)
                                break;
                        return 0;
                }
                if (colon)
                        break;
                return 0;
        }
        return sbx_fail(err, 0, "comparison \"%.60s\": expected lines, exact, tokens, floats, "
                        "floats:EPS, floats:abs=A,rel=R, lcb, sandboxfusion, json, json-apps "
                        "or checker", spec);
}
