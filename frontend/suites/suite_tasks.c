/* Tasks and samples as tables: task ids as strings, their natural order,
 * lookup by id, and a new sample slot. Calls nothing else of the suite code. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>

#include "suite.h"

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

static int cmp_task_ptr(const void *a, const void *b)
{
        const struct suite_task *const *x = a, *const *y = b;
        return strcmp((*x)->task_id, (*y)->task_id);
}

struct suite_task *suite_find_task(const struct suite *s, const char *task_id)
{
        struct suite_task key = { .task_id = (char *)task_id }, *kp = &key;
        struct suite_task **hit = bsearch(&kp, s->by_id, s->n_tasks,
                                          sizeof(*s->by_id), cmp_task_ptr);
        return hit ? *hit : NULL;
}

/* by_id, sorted for suite_find_task; a task_id given twice is an error
 * that names both lines. */
int suite_index_tasks(struct suite *s, struct sbx_err *err)
{
        const char *path = s->problems_path;

        if (!(s->by_id = calloc(s->n_tasks + 1, sizeof(*s->by_id))))
                return sbx_fail_oom(err, "%s", path);
        for (size_t i = 0; i < s->n_tasks; i++)
                s->by_id[i] = &s->tasks[i];
        qsort(s->by_id, s->n_tasks, sizeof(*s->by_id), cmp_task_ptr);
        for (size_t i = 1; i < s->n_tasks; i++)
                if (strcmp(s->by_id[i - 1]->task_id, s->by_id[i]->task_id) == 0)
                        return sbx_fail(err, 0, "%s:%ld: duplicate task_id \"%s\" (first at line %ld)",
                                        path, MAX(s->by_id[i - 1]->line, s->by_id[i]->line),
                                        s->by_id[i]->task_id,
                                        MIN(s->by_id[i - 1]->line, s->by_id[i]->line));
        return 0;
}

struct suite_sample *suite_new_sample(struct suite *s, struct sbx_err *err)
{
        struct suite_sample *n = realloc(s->samples, (s->n_samples + 1) * sizeof(*n));

        if (!n) {
                sbx_fail_oom(err, "samples");
                return NULL;
        }
        s->samples = n;
        n = &s->samples[s->n_samples];
        memset(n, 0, sizeof(*n));
        n->index = s->n_samples++;
        n->predict_index = -1;
        return n;
}
