/* The io suites' section of the summary, from the results lines alone (so
 * that a run, --resume and merge agree): how many samples got each
 * verdict, and how many test runs there were and passed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io_summary.h"
#include "io_verdict.h"
#include "util.h"

struct io_tally {
        double verdicts[IO_VERDICTS];
        double tests_run, tests_passed;
};

static void *begin(size_t max_tasks)
{
        return calloc(1, sizeof(struct io_tally));
}

static int add_task(void *state, cJSON *const *lines, size_t n)
{
        struct io_tally *t = state;

        for (size_t i = 0; i < n; i++) {
                const char *v = json_get_str(lines[i], "verdict", NULL);
                for (int k = 0; v && k < IO_VERDICTS; k++)
                        t->verdicts[k] += strcmp(v, io_verdict_name((enum io_verdict)k)) == 0;
                t->tests_run += json_get_num(lines[i], "tests_run", 0);
                t->tests_passed += json_get_num(lines[i], "tests_passed", 0);
        }
        return 0;
}

static void finish(void *state, cJSON *sum, const struct summary_opts *o)
{
        struct io_tally *t = state;
        cJSON *io = cJSON_AddObjectToObject(sum, "io");
        cJSON *v = io ? cJSON_AddObjectToObject(io, "verdicts") : NULL;

        for (int k = 0; v && k < IO_VERDICTS; k++)
                if (t->verdicts[k] > 0)
                        cJSON_AddNumberToObject(v, io_verdict_name((enum io_verdict)k), t->verdicts[k]);
        if (io) {
                cJSON_AddNumberToObject(io, "tests_run", t->tests_run);
                cJSON_AddNumberToObject(io, "tests_passed", t->tests_passed);
        }
}

const struct summary_extra io_summary = { begin, add_task, finish, free };

void io_summary_print(FILE *fp, const cJSON *sum)
{
        const cJSON *io = cJSON_GetObjectItemCaseSensitive(sum, "io"), *k;

        if (!io)
                return;
        fprintf(fp, "  io verdicts:");
        cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(io, "verdicts"))
                fprintf(fp, " %s %.0f", k->string, k->valuedouble);
        fprintf(fp, "; %.0f test runs, %.0f passed\n", json_get_num(io, "tests_run", 0),
                json_get_num(io, "tests_passed", 0));
}
