/* CodeContests rows (DeepMind's ContestProblem as JSON, the form its
 * Hugging Face copy has): `name`, `public_tests`, `private_tests`,
 * `generated_tests` (each {"input": [...], "output": [...]}), `time_limit`
 * ({"seconds", "nanos"}), `memory_limit_bytes`, and `solutions`
 * ({"language": [...], "solution": [...]}, language 3 = PYTHON3). Tests run
 * in that order: public, private, generated. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"

#define CODECONTESTS_PYTHON3    3       /* ContestProblem.Solution.Language */

static int read_group(cJSON *row, const char *key, const char *group,
                      const struct io_origin *at, struct io_problem *p,
                      struct sbx_err *err)
{
        cJSON *tests = cJSON_GetObjectItemCaseSensitive(row, key);
        cJSON *in, *out;

        if (!tests || cJSON_IsNull(tests))
                return 0;
        in = cJSON_GetObjectItemCaseSensitive(tests, "input");
        out = cJSON_GetObjectItemCaseSensitive(tests, "output");
        if (!cJSON_IsArray(in) || !cJSON_IsArray(out))
                return sbx_fail(err, 0, "%s:%ld: %s has no input and output lists",
                                at->path, at->line, key);
        if (cJSON_GetArraySize(in) != cJSON_GetArraySize(out))
                return sbx_fail(err, 0, "%s:%ld: %s has %d inputs but %d outputs", at->path,
                                at->line, key, cJSON_GetArraySize(in), cJSON_GetArraySize(out));
        for (in = in->child, out = out->child; in && out; in = in->next, out = out->next) {
                char *i_text = NULL, *o_text = NULL;
                size_t i_len = 0, o_len = 0;

                if (io_take_item_str(in, &i_text, &i_len, key, at, err) < 0)
                        return -1;
                if (io_take_item_str(out, &o_text, &o_len, key, at, err) < 0) {
                        free(i_text);
                        return -1;
                }
                if (io_add_test(p, i_text, i_len, o_text, o_len, group, at, err) < 0)
                        return -1;
        }
        return 0;
}

/* A number, or a string of digits (64-bit fields in some exports). */
static int read_count(const cJSON *v, double *out)
{
        char *end = NULL;

        if (!v || cJSON_IsNull(v)) {
                *out = 0;
                return 0;
        }
        if (cJSON_IsNumber(v))
                *out = v->valuedouble;
        else if (cJSON_IsString(v) && v->valuestring[0])
                *out = strtod(v->valuestring, &end);
        else
                return -1;
        if (cJSON_IsString(v) && *end)
                return -1;
        return isfinite(*out) && *out >= 0 && *out < 1e18 ? 0 : -1;
}

static int read_limits(const cJSON *row, const struct io_origin *at,
                       struct io_problem *p, struct sbx_err *err)
{
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(row, "time_limit");
        double sec = 0, nanos = 0, mem = 0;

        if (t && !cJSON_IsNull(t) &&
            (!cJSON_IsObject(t) ||
             read_count(cJSON_GetObjectItemCaseSensitive(t, "seconds"), &sec) < 0 ||
             read_count(cJSON_GetObjectItemCaseSensitive(t, "nanos"), &nanos) < 0))
                return sbx_fail(err, 0, "%s:%ld: time_limit is not {\"seconds\": N, \"nanos\": N}",
                                at->path, at->line);
        if (read_count(cJSON_GetObjectItemCaseSensitive(row, "memory_limit_bytes"), &mem) < 0)
                return sbx_fail(err, 0, "%s:%ld: memory_limit_bytes is not a number of bytes",
                                at->path, at->line);
        p->time_limit_ms = (int64_t)ceil(sec * 1000 + nanos / 1e6);
        p->memory_limit_bytes = (int64_t)mem;
        return 0;
}

/* The first Python 3 solution, as the reference --canonical runs. */
static int read_canonical(const cJSON *row, const struct io_origin *at,
                          struct io_problem *p, struct sbx_err *err)
{
        const cJSON *sols = cJSON_GetObjectItemCaseSensitive(row, "solutions");
        const cJSON *lang = cJSON_GetObjectItemCaseSensitive(sols, "language");
        const cJSON *code = cJSON_GetObjectItemCaseSensitive(sols, "solution");
        const cJSON *l, *c;

        if (!cJSON_IsArray(lang) || !cJSON_IsArray(code))
                return 0;
        for (l = lang->child, c = code->child; l && c; l = l->next, c = c->next) {
                bool py3 = cJSON_IsNumber(l) ? l->valueint == CODECONTESTS_PYTHON3
                           : cJSON_IsString(l) && strcmp(l->valuestring, "PYTHON3") == 0;
                if (!py3 || !cJSON_IsString(c))
                        continue;
                if (!(p->canonical = strdup(c->valuestring)))
                        return sbx_fail_oom(err, "%s:%ld: solutions", at->path, at->line);
                break;
        }
        return 0;
}

int io_read_codecontests(cJSON *row, const struct io_origin *at,
                         struct io_problem *p, struct sbx_err *err)
{
        p->compare.kind = IO_CMP_LINES;
        if (io_set_task_id(p, row, "name", at, err) < 0 ||
            read_limits(row, at, p, err) < 0 || read_canonical(row, at, p, err) < 0)
                return -1;
        if (read_group(row, "public_tests", "public", at, p, err) < 0 ||
            read_group(row, "private_tests", "private", at, p, err) < 0 ||
            read_group(row, "generated_tests", "generated", at, p, err) < 0)
                return -1;
        return 0;
}
