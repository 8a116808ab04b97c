/* From a problem and a sample to the program text: the suite kind's
 * builder (suite_ops.h; docs/suites.md gives the formulas and their
 * sources), and the pieces the builders share. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"
#include "suite.h"
#include "suite_ops.h"
#include "util.h"


char *suite_program_done(struct strbuf *b, struct sbx_err *err)
{
        char *text = strbuf_done(b);

        if (!text)
                sbx_fail_oom(err, "building program");
        return text;
}

/* A problem field as program text: strings as they are, lists of strings
 * one per line (MBPP's test_list), anything else as JSON. */
bool suite_add_field_text(struct strbuf *b, const cJSON *v)
{
        const cJSON *it;

        if (cJSON_IsString(v)) {
                strbuf_add(b, v->valuestring);
                return true;
        }
        if (cJSON_IsArray(v)) {
                bool first = true;
                cJSON_ArrayForEach(it, v) {
                        if (!cJSON_IsString(it))
                                goto as_json;
                }
                cJSON_ArrayForEach(it, v) {
                        if (!first)
                                strbuf_add(b, "\n");
                        strbuf_add(b, it->valuestring);
                        first = false;
                }
                return true;
        }
as_json:;
        char *j = cJSON_PrintUnformatted(v);
        if (!j)
                return false;
        strbuf_add(b, j);
        free(j);
        return true;
}

char *suite_field_not_string(const struct suite *s, const struct suite_task *t,
                             struct sbx_err *err)
{
        return sbx_fail(err, 0, "%s:%ld: task %s: a required field is not a string",
                        s->problems_path, t->line, t->task_id), NULL;
}

char *suite_build_program(const struct suite *s, const struct suite_sample *smp,
                          struct sbx_err *err)
{
        return s->ops->build_program(s, smp, err);
}
