/* An input/output problem: building it test by test (what the readers
 * share), and freeing it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"

static void data_free(struct io_data *d)
{
        free(d->text);
        free(d->path);
}

void io_problem_free(struct io_problem *p)
{
        for (size_t i = 0; i < p->n_tests; i++) {
                data_free(&p->tests[i].input);
                data_free(&p->tests[i].output);
        }
        free(p->tests);
        free(p->task_id);
        free(p->checker);
        free(p->fn_name);
        free(p->starter_code);
        free(p->canonical);
        memset(p, 0, sizeof(*p));
}

int io_add_test(struct io_problem *p, char *input, size_t in_len,
                char *output, size_t out_len, const char *group,
                const struct io_origin *at, struct sbx_err *err)
{
        if (p->n_tests >= IO_MAX_TESTS) {
                free(input);
                free(output);
                return sbx_fail(err, 0, "%s:%ld: more than %d tests", at->path,
                                at->line, IO_MAX_TESTS);
        }
        if (p->n_tests == p->cap_tests) {
                size_t cap = p->cap_tests ? p->cap_tests * 2 : 16;
                struct io_test *t = realloc(p->tests, cap * sizeof(*t));
                if (!t) {
                        free(input);
                        free(output);
                        return sbx_fail_oom(err, "%s:%ld: tests", at->path, at->line);
                }
                p->tests = t;
                p->cap_tests = cap;
        }
        p->tests[p->n_tests++] = (struct io_test){
                .input = { .text = input, .len = in_len },
                .output = { .text = output, .len = out_len },
                .group = group,
        };
        return 0;
}

int io_take_item_str(cJSON *item, char **out, size_t *len, const char *what,
                     const struct io_origin *at, struct sbx_err *err)
{
        if (!cJSON_IsString(item) || !item->valuestring)
                return sbx_fail(err, 0, "%s:%ld: %s is not a string", at->path,
                                at->line, what);
        /* cJSON's strings are malloc'd (the default hooks) and freed only
         * when non-NULL: moving one out leaves nothing to double-free. */
        *out = item->valuestring;
        *len = strlen(*out);
        item->valuestring = NULL;
        return 0;
}

int io_take_str(cJSON *obj, const char *key, char **out, size_t *len,
                const struct io_origin *at, struct sbx_err *err)
{
        cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

        if (!item || cJSON_IsNull(item))
                return 0;
        if (io_take_item_str(item, out, len, key, at, err) < 0)
                return -1;
        return 1;
}

int io_set_task_id(struct io_problem *p, const cJSON *obj, const char *key,
                   const struct io_origin *at, struct sbx_err *err)
{
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(obj, "task_id");
        char num[32];

        if (!id && key)
                id = cJSON_GetObjectItemCaseSensitive(obj, key);
        if (cJSON_IsString(id) && id->valuestring && id->valuestring[0]) {
                p->task_id = strdup(id->valuestring);
        } else if (cJSON_IsNumber(id) && fabs(id->valuedouble) < 1e15 &&
                   id->valuedouble == floor(id->valuedouble)) {
                snprintf(num, sizeof(num), "%lld", (long long)id->valuedouble);
                p->task_id = strdup(num);
        } else if (!id || cJSON_IsNull(id)) {
                snprintf(num, sizeof(num), "%zu", at->index);
                p->task_id = strdup(num);
        } else {
                return sbx_fail(err, 0, "%s:%ld: %s is neither a string nor an integer",
                                at->path, at->line, id->string ? id->string : "task_id");
        }
        if (!p->task_id)
                return sbx_fail_oom(err, "%s:%ld: task id", at->path, at->line);
        return 0;
}

char *io_print_json(const cJSON *v, size_t *len)
{
        char *s = cJSON_PrintUnformatted(v);

        if (s)
                *len = strlen(s);
        return s;
}
