/* One run's result as a JSON object: what --json prints and --serve
 * answers (with the request's "id" and "type" added). */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "results.h"

/* Program output is arbitrary bytes; JSON strings are UTF-8 without NUL. */
static void add_output(cJSON *o, const char *key, const char *data, size_t len)
{
        char *safe = output_utf8_sanitize(data ? data : "", data ? len : 0);

        cJSON_AddStringToObject(o, key, safe ? safe : "");
        free(safe);
}

/* The --json object (also --serve's result, with "id" and "type" added). */
cJSON *run_result_to_json(const struct run_result *res, const char *summary)
{
        cJSON *o = cJSON_CreateObject();

        if (!o)
                return NULL;
        cJSON_AddBoolToObject(o, "passed", res->status == RUN_OK);
        cJSON_AddStringToObject(o, "status", run_status_name(res->status));
        cJSON_AddNumberToObject(o, "returncode", res->returncode);
        cJSON_AddNumberToObject(o, "signal", res->signal);
        cJSON_AddNumberToObject(o, "duration", res->duration_s);
        cJSON_AddNumberToObject(o, "cpu", res->cpu_s);
        cJSON_AddNumberToObject(o, "max_rss_kb", (double)res->max_rss_kb);
        add_output(o, "stdout", res->out.data, res->out.len);
        add_output(o, "stderr", res->err.data, res->err.len);
        cJSON_AddBoolToObject(o, "truncated", res->out.truncated || res->err.truncated);
        add_output(o, "summary", summary, summary ? strlen(summary) : 0);
        cJSON_AddStringToObject(o, "tier", tier_name(res->tier));
        cJSON_AddStringToObject(o, "detail", res->detail);
        /* past the cap, the end of the stream (where an end-of-checks marker
         * or the traceback sits) is still there */
        if (res->out.truncated)
                add_output(o, "stdout_tail", res->out.tail, res->out.tail_len);
        if (res->err.truncated)
                add_output(o, "stderr_tail", res->err.tail, res->err.tail_len);
        return o;
}
