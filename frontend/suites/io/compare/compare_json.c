/* A call-based problem's value (compare.h: json, json-apps): the runner
 * prints what the sample's function returned as JSON (json.dumps, a tuple
 * as a list, as both harnesses turn one), and it is compared with the
 * answer's JSON as Python's == compares the values the harnesses load:
 * numbers by value (1 == 1.0, and True == 1), strings, lists item by item,
 * objects key by key whatever their order, null only with null. Numbers
 * are doubles here: integers past 2^53 that Python tells apart are not. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "compare.h"
#include "strbuf.h"

/* The rest of the stream, at most IO_JSON_MAX_BYTES; NULL past it. */
static char *slurp(struct io_stream *s, size_t *len)
{
        struct strbuf b = { 0 };

        while (io_peek(s) >= 0) {
                size_t n = s->end - s->pos;
                if (b.len + n > (size_t)IO_JSON_MAX_BYTES) {
                        free(strbuf_done(&b));
                        return NULL;
                }
                strbuf_addn(&b, (const char *)s->buf + s->pos, n);
                s->pos = s->end;
        }
        *len = b.len;
        return strbuf_done(&b);
}

/* A number, or a bool as Python's int: *v set and true. */
static bool as_number(const cJSON *v, double *x)
{
        if (cJSON_IsNumber(v))
                *x = v->valuedouble;
        else if (cJSON_IsBool(v))
                *x = cJSON_IsTrue(v) ? 1 : 0;
        else
                return false;
        return true;
}

static bool same_value(const cJSON *a, const cJSON *b)
{
        double x, y;

        if (as_number(a, &x) && as_number(b, &y))
                return x == y;
        if ((a->type & 0xff) != (b->type & 0xff))
                return false;
        if (cJSON_IsNull(a))
                return true;
        if (cJSON_IsString(a))
                return strcmp(a->valuestring, b->valuestring) == 0;
        if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
                return false;
        if (cJSON_IsArray(a)) {
                for (a = a->child, b = b->child; a && b; a = a->next, b = b->next)
                        if (!same_value(a, b))
                                return false;
                return true;
        }
        for (const cJSON *k = a->child; k; k = k->next) {
                const cJSON *other = cJSON_GetObjectItemCaseSensitive(b, k->string);
                if (!other || !same_value(k, other))
                        return false;
        }
        return cJSON_IsObject(a);
}

static void excerpt(char *dst, size_t size, const char *text)
{
        snprintf(dst, size, "%.*s", (int)strcspn(text, "\n"), text);
}

int io_compare_json(enum io_compare_kind kind, struct io_stream *out,
                    struct io_stream *ans, struct io_diff *d)
{
        size_t olen = 0, alen = 0;
        char *otext = slurp(out, &olen), *atext = slurp(ans, &alen);
        cJSON *o = otext ? cJSON_ParseWithLength(otext, olen) : NULL;
        cJSON *a = atext ? cJSON_ParseWithLength(atext, alen) : NULL;
        int rc;

        d->line = 1;
        excerpt(d->expected, sizeof(d->expected), atext ? atext : "");
        excerpt(d->found, sizeof(d->found), otext ? otext : "");
        if (!a) {
                snprintf(d->why, sizeof(d->why), "the answer is not a JSON value");
                rc = -1;
        } else if (!o) {
                snprintf(d->why, sizeof(d->why), "the output is not a JSON value");
                rc = 1;
        } else {
                bool same = same_value(o, a) ||
                            (kind == IO_CMP_JSON_APPS && cJSON_IsArray(a) && a->child &&
                             same_value(o, a->child));
                snprintf(d->why, sizeof(d->why), "the values differ");
                rc = same ? 0 : 1;
        }
        cJSON_Delete(o);
        cJSON_Delete(a);
        free(otext);
        free(atext);
        return rc;
}
