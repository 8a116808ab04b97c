/* From a run's result and the driver's report to a verdict, in the
 * reference harnesses' terms ("passed", "timed out", "failed: <msg>"). */
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "evalplus.h"
#include "suite.h"
#include "suite_score.h"

/* Why a program without an end marker failed. An exit status of 0 here means
 * it left before its checks finished (sys.exit(0), os._exit(0)...). */
static void no_marker_reason(const struct run_result *r, char *out, size_t n)
{
        if (r->status == RUN_ERROR)
                snprintf(out, n, "failed: sandbox error: %s", r->detail);
        else if (r->signal)
                snprintf(out, n, "failed: killed by signal %d%s%s", r->signal,
                         r->detail[0] ? ", " : "", r->detail);
        else if (r->returncode == 0)
                snprintf(out, n, "failed: program exited before its checks finished");
        else
                snprintf(out, n, "failed: exit status %d%s%s", r->returncode,
                         r->detail[0] ? ", " : "", r->detail);
}

static void score_script(const struct run_result *r, const struct driver_report *rep,
                         struct verdict *v)
{
        if (r->status == RUN_TIMEOUT) {
                snprintf(v->result, sizeof(v->result), "timed out");
        } else if (rep->outcome == DRIVER_RETURNED && r->status == RUN_OK) {
                v->passed = true;
                snprintf(v->result, sizeof(v->result), "passed");
        } else if (rep->outcome == DRIVER_RAISED) {
                const char *msg = cJSON_GetStringValue(
                        cJSON_GetObjectItemCaseSensitive(rep->payload, "msg"));
                const char *type = cJSON_GetStringValue(
                        cJSON_GetObjectItemCaseSensitive(rep->payload, "type"));
                snprintf(v->exception, sizeof(v->exception), "%s", type ? type : "");
                snprintf(v->result, sizeof(v->result), "failed: %s", msg ? msg : "");
        } else {
                no_marker_reason(r, v->result, sizeof(v->result));
        }
}

/* ClassEval: counts per test class from the driver; a class it did not
 * report (the process died, timed out, or never reached it) is 0/0/0,
 * which ClassEval's rules score as an error. */
static void score_classes(const struct suite_task *t, const struct run_result *r,
                          const struct driver_report *rep, struct verdict *v)
{
        enum classeval_answer answers[CLASSEVAL_MAX_TEST_CLASSES];
        size_t ok = 0, n = t->n_test_classes;

        v->n_classes = n;
        v->class_names = t->test_classes;
        for (size_t i = 0; i < n; i++) {
                const cJSON *c = rep->outcome == DRIVER_CLASSES && r->status != RUN_TIMEOUT
                        ? cJSON_GetObjectItemCaseSensitive(rep->payload, t->test_classes[i])
                        : NULL;
                struct classeval_counts *k = &v->counts[i];
                memset(k, 0, sizeof(*k));
                if (cJSON_IsArray(c) && cJSON_GetArraySize(c) == 3) {
                        k->tests_run = cJSON_GetArrayItem(c, 0)->valueint;
                        k->errors = cJSON_GetArrayItem(c, 1)->valueint;
                        k->failures = cJSON_GetArrayItem(c, 2)->valueint;
                }
                answers[i] = classeval_test_answer(k);
                ok += answers[i] == CLASSEVAL_SUCCESS;
        }
        v->class_result = classeval_class_result(answers, n);
        v->passed = v->class_result == CLASSEVAL_CLASS_SUCCESS;
        if (v->passed)
                snprintf(v->result, sizeof(v->result), "passed");
        else if (r->status == RUN_TIMEOUT)
                snprintf(v->result, sizeof(v->result), "timed out");
        else if (rep->outcome != DRIVER_CLASSES)
                no_marker_reason(r, v->result, sizeof(v->result));
        else
                snprintf(v->result, sizeof(v->result), "failed: %zu of %zu test classes succeeded",
                         ok, n);
}

void suite_score(const struct suite *s, const struct suite_task *t,
                 const struct run_result *r, struct verdict *v)
{
        struct driver_report rep;

        memset(v, 0, sizeof(*v) - sizeof(v->counts_store));
        v->counts = v->counts_store;
        v->run = r;
        if (s->evalplus) {
                evalplus_score(s, (size_t)(t - s->tasks), r, v);
                return;
        }
        driver_parse(&r->out, &rep);
        if (s->def.kind == SUITE_CLASSEVAL)
                score_classes(t, r, &rep, v);
        else
                score_script(r, &rep, v);
        driver_report_free(&rep);
}
