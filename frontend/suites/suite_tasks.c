/* Tasks and samples as tables: lookup by id (in the ids' natural order,
 * util/suite_jsonl.c) and a new sample slot. Calls nothing else of the
 * suite code. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/param.h>

#include "suite.h"

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
