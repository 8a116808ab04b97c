/* From a run's result and the driver's report to a verdict (verdict.h),
 * in the reference harnesses' terms ("passed", "timed out", "failed: <msg>"). */
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "suite.h"
#include "suite_ops.h"
#include "suite_score.h"

/* Why a program without an end marker failed. An exit status of 0 here means
 * it left before its checks finished (sys.exit(0), os._exit(0)...). */
void suite_score_no_marker(const struct run_result *r, struct verdict *v)
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

static void score_report(const struct run_result *r, const struct driver_report *rep,
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
                suite_score_no_marker(r, v);
        }
}

/* A program that runs top to bottom: it passed when the driver saw it return. */
void suite_score_script(const struct suite *s, const struct suite_task *t,
                        const struct run_result *r, struct verdict *v)
{
        struct driver_report rep;

        driver_parse(&r->out, &rep);
        score_report(r, &rep, v);
        driver_report_free(&rep);
}

void suite_score(const struct suite *s, const struct suite_sample *smp,
                 const struct run_result *r, struct verdict *v)
{
        memset(v, 0, sizeof(*v) - sizeof(v->counts_store));
        v->counts = v->counts_store;
        v->run = r;
        suite_lang_verdict(s, smp, v);
        s->ops->score(s, &s->tasks[smp->task], r, v);
        /* the words stay the scorer's; the summary counts it as an error */
        if (r->status == RUN_ERROR)
                v->kind = VERDICT_ERROR;
}
