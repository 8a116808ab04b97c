/* APPS and TACO rows: `input_output`, a JSON string (or object) with
 * `inputs`, `outputs` and, for call-based problems, `fn_name`; TACO adds
 * `time_limit` ("1 second") and `memory_limit` ("256 megabytes"). Read as
 * APPS's eval/testing_util.py reads them: an input or output that is a
 * list of strings is its lines joined with "\n"; a call-based input is the
 * list of arguments, its output the value, both kept as JSON text. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "strbuf.h"

/* A string, or a list of strings joined with "\n": malloc'd. */
static int join_lines(cJSON *v, char **out, size_t *len, const char *what,
                      const struct io_origin *at, struct sbx_err *err)
{
        struct strbuf b = { 0 };
        const cJSON *item;
        bool first = true;

        if (cJSON_IsString(v))
                return io_take_item_str(v, out, len, what, at, err);
        if (!cJSON_IsArray(v))
                return sbx_fail(err, 0, "%s:%ld: %s is neither a string nor a list of strings",
                                at->path, at->line, what);
        cJSON_ArrayForEach(item, v) {
                if (!cJSON_IsString(item)) {
                        free(b.p);
                        return sbx_fail(err, 0, "%s:%ld: %s holds a list item that is not a string",
                                        at->path, at->line, what);
                }
                if (!first)
                        strbuf_add(&b, "\n");
                strbuf_add(&b, item->valuestring);
                first = false;
        }
        if (!(*out = strbuf_done(&b)))
                return sbx_fail_oom(err, "%s:%ld: %s", at->path, at->line, what);
        *len = b.len;
        return 0;
}

static int stdio_test(cJSON *in, cJSON *out, struct io_problem *p,
                      const struct io_origin *at, struct sbx_err *err);

static int call_test(cJSON *in, cJSON *out, struct io_problem *p,
                     const struct io_origin *at, struct sbx_err *err)
{
        size_t in_len = 0, out_len = 0;
        char *in_text, *out_text;

        if (p->call == IO_CALL_LCB)     /* one JSON argument a line, as text */
                return stdio_test(in, out, p, at, err);
        if (!cJSON_IsArray(in))
                return sbx_fail(err, 0, "%s:%ld: a call-based input is not a list of arguments",
                                at->path, at->line);
        in_text = io_print_json(in, &in_len);
        out_text = io_print_json(out, &out_len);
        if (!in_text || !out_text) {
                free(in_text);
                free(out_text);
                return sbx_fail_oom(err, "%s:%ld: call-based test", at->path, at->line);
        }
        return io_add_test(p, in_text, in_len, out_text, out_len, "", at, err);
}

static int stdio_test(cJSON *in, cJSON *out, struct io_problem *p,
                      const struct io_origin *at, struct sbx_err *err)
{
        size_t in_len = 0, out_len = 0;
        char *in_text = NULL, *out_text = NULL;

        if (join_lines(in, &in_text, &in_len, "an input", at, err) < 0)
                return -1;
        if (join_lines(out, &out_text, &out_len, "an output", at, err) < 0) {
                free(in_text);
                return -1;
        }
        return io_add_test(p, in_text, in_len, out_text, out_len, "", at, err);
}

static int read_fn_name(cJSON *io, const struct io_origin *at, struct io_problem *p,
                        struct sbx_err *err)
{
        size_t len;
        int rc = io_take_str(io, "fn_name", &p->fn_name, &len, at, err);

        if (rc < 0)
                return -1;
        if (rc == 1 && len == 0)
                return sbx_fail(err, 0, "%s:%ld: fn_name is empty", at->path, at->line);
        if (rc == 0)
                p->call = IO_CALL_NONE;
        else if (p->call == IO_CALL_NONE)
                p->call = IO_CALL_APPS;
        return 0;
}

int io_read_apps_io(cJSON *io, const struct io_origin *at, struct io_problem *p,
                    struct sbx_err *err)
{
        cJSON *inputs = cJSON_GetObjectItemCaseSensitive(io, "inputs");
        cJSON *outputs = cJSON_GetObjectItemCaseSensitive(io, "outputs");

        if (!cJSON_IsObject(io))
                return sbx_fail(err, 0, "%s:%ld: input_output is not an object", at->path, at->line);
        if (!cJSON_IsArray(inputs) || !cJSON_IsArray(outputs))
                return sbx_fail(err, 0, "%s:%ld: input_output has no inputs and outputs lists",
                                at->path, at->line);
        if (cJSON_GetArraySize(inputs) != cJSON_GetArraySize(outputs))
                return sbx_fail(err, 0, "%s:%ld: input_output has %d inputs but %d outputs",
                                at->path, at->line, cJSON_GetArraySize(inputs),
                                cJSON_GetArraySize(outputs));
        if (read_fn_name(io, at, p, err) < 0)
                return -1;
        for (cJSON *in = inputs->child, *out = outputs->child; in && out;
             in = in->next, out = out->next) {
                int rc = p->fn_name ? call_test(in, out, p, at, err)
                                    : stdio_test(in, out, p, at, err);
                if (rc < 0)
                        return -1;
        }
        return 0;
}

/* TACO's "2 seconds", "1.5 second", "256 megabytes", "None". Returns the
 * value in units of `unit` (1 for seconds in ms: 1000), 0 for none, -1
 * when unreadable. */
static int64_t parse_quantity(const char *s, const char *const *units,
                              const double *scale)
{
        char *end;
        double v;

        if (!s || !*s || strcmp(s, "None") == 0)
                return 0;
        errno = 0;
        v = strtod(s, &end);
        if (errno || end == s || !isfinite(v) || v < 0 || v > 1e15)
                return -1;
        while (*end == ' ')
                end++;
        for (size_t i = 0; units[i]; i++)
                if (strcmp(end, units[i]) == 0)
                        return v * scale[i] <= 1e15 ? (int64_t)ceil(v * scale[i]) : -1;
        return -1;
}

static int read_taco_limits(const cJSON *row, const struct io_origin *at,
                            struct io_problem *p, struct sbx_err *err)
{
        static const char *const time_units[] = { "second", "seconds", "s", "", NULL };
        static const double time_scale[] = { 1000, 1000, 1000, 1000 };
        static const char *const mem_units[] = { "megabyte", "megabytes", "MB",
                                                 "kilobytes", "gigabytes", NULL };
        static const double mem_scale[] = { 1 << 20, 1 << 20, 1 << 20, 1 << 10, 1 << 30 };
        const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "time_limit"));
        const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "memory_limit"));

        if ((p->time_limit_ms = parse_quantity(t, time_units, time_scale)) < 0)
                return sbx_fail(err, 0, "%s:%ld: time_limit \"%.40s\" is not a time in seconds",
                                at->path, at->line, t);
        if ((p->memory_limit_bytes = parse_quantity(m, mem_units, mem_scale)) < 0)
                return sbx_fail(err, 0, "%s:%ld: memory_limit \"%.40s\" is not a size in megabytes",
                                at->path, at->line, m);
        return 0;
}

/* APPS's `solutions`: a JSON string holding a list of programs. */
static int read_solutions(cJSON *row, const struct io_origin *at, struct io_problem *p,
                          struct sbx_err *err)
{
        const char *text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(row, "solutions"));
        cJSON *list, *first;

        if (!text || !*text)
                return 0;
        if (!(list = cJSON_Parse(text)))
                return sbx_fail(err, 0, "%s:%ld: solutions is not a JSON list", at->path, at->line);
        first = cJSON_IsArray(list) ? cJSON_GetArrayItem(list, 0) : NULL;
        if (cJSON_IsString(first) && !(p->canonical = strdup(first->valuestring))) {
                cJSON_Delete(list);
                return sbx_fail_oom(err, "%s:%ld: solutions", at->path, at->line);
        }
        cJSON_Delete(list);
        return 0;
}

int io_read_apps(cJSON *row, const struct io_origin *at, struct io_problem *p,
                 struct sbx_err *err)
{
        cJSON *io = cJSON_GetObjectItemCaseSensitive(row, "input_output");
        cJSON *parsed = NULL;
        size_t len;
        int rc;

        p->prelude = IO_PRELUDE_APPS;
        p->compare.kind = IO_CMP_LINES;
        if (io_set_task_id(p, row, "problem_id", at, err) < 0 ||
            read_taco_limits(row, at, p, err) < 0 || read_solutions(row, at, p, err) < 0 ||
            io_take_str(row, "starter_code", &p->starter_code, &len, at, err) < 0)
                return -1;
        if (cJSON_IsString(io)) {
                if (!(parsed = cJSON_Parse(io->valuestring)))
                        return sbx_fail(err, 0, "%s:%ld: input_output is not valid JSON",
                                        at->path, at->line);
                io = parsed;
        }
        rc = io_read_apps_io(io, at, p, err);
        cJSON_Delete(parsed);
        return rc;
}
