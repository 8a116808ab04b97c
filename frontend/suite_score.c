/* From a run's result and the driver's report to a verdict (verdict.h),
 * in the reference harnesses' terms ("passed", "timed out", "failed: <msg>"). */
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "evalplus.h"
#include "suite.h"
#include "suite_score.h"

/* Why a program without an end marker failed. An exit status of 0 here means
 * it left before its checks finished (sys.exit(0), os._exit(0)...). */
static void no_marker_reason(const struct run_result *r, struct verdict *v)
{
        if (r->status == RUN_ERROR)
                verdict_set(v, VERDICT_FAILED, "sandbox error: %s", r->detail);
        else if (r->signal)
                verdict_set(v, VERDICT_FAILED, "killed by signal %d%s%s", r->signal,
                            r->detail[0] ? ", " : "", r->detail);
        else if (r->returncode == 0)
                verdict_set(v, VERDICT_FAILED, "program exited before its checks finished");
        else
                verdict_set(v, VERDICT_FAILED, "exit status %d%s%s", r->returncode,
                            r->detail[0] ? ", " : "", r->detail);
}

static void score_script(const struct run_result *r, const struct driver_report *rep,
                         struct verdict *v)
{
        if (r->status == RUN_TIMEOUT) {
                verdict_set(v, VERDICT_TIMED_OUT, NULL);
        } else if (rep->outcome == DRIVER_RETURNED && r->status == RUN_OK) {
                verdict_set(v, VERDICT_PASSED, NULL);
        } else if (rep->outcome == DRIVER_RAISED) {
                const char *msg = cJSON_GetStringValue(
                        cJSON_GetObjectItemCaseSensitive(rep->payload, "msg"));
                const char *type = cJSON_GetStringValue(
                        cJSON_GetObjectItemCaseSensitive(rep->payload, "type"));
                snprintf(v->exception, sizeof(v->exception), "%s", type ? type : "");
                verdict_set(v, VERDICT_FAILED, "%s", msg ? msg : "");
        } else {
                no_marker_reason(r, v);
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
        if (v->class_result == CLASSEVAL_CLASS_SUCCESS)
                verdict_set(v, VERDICT_PASSED, NULL);
        else if (r->status == RUN_TIMEOUT)
                verdict_set(v, VERDICT_TIMED_OUT, NULL);
        else if (rep->outcome != DRIVER_CLASSES)
                no_marker_reason(r, v);
        else
                verdict_set(v, VERDICT_FAILED, "%zu of %zu test classes succeeded", ok, n);
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
        } else {
                driver_parse(&r->out, &rep);
                if (s->def.kind == SUITE_CLASSEVAL)
                        score_classes(t, r, &rep, v);
                else
                        score_script(r, &rep, v);
                driver_report_free(&rep);
        }
        /* the words stay the scorer's; the summary counts it as an error */
        if (r->status == RUN_ERROR)
                v->kind = VERDICT_ERROR;
}
