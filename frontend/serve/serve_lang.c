/* --serve run requests in another language than Python ("language"): the
 * program is built (from the compile cache when it was built before) and
 * run by lang/ (lang_run.h) in the server's session, two runs in the job's
 * slot; the answer is the run's result with "language" and "compile". */
#include <stdlib.h>
#include <string.h>

#include "lang_run.h"
#include "serve_lang.h"

int serve_lang_start(struct lang_session **ls, struct sandbox *sb,
                     const struct serve_lang_program *p, struct lang_job **job,
                     struct sbx_run **run, struct sbx_err *err)
{
        struct lang_opts o;
        struct lang_program lp = {
                .row = p->row, .source = p->code, .source_len = p->code_len,
                .timeout_ms = p->timeout_ms, .cpu_limit_s = p->cpu_limit_s,
                .memory_bytes = p->memory_bytes, .compile_timeout_ms = p->compile_timeout_ms,
                .env_extra = (const char *const *)p->env,
                .stdin_data = p->stdin_data, .stdin_len = p->stdin_len,
        };

        /* the session of builds: at the first request that needs one */
        if (!*ls && (lang_opts_init(&o, err) < 0 || lang_session_open(ls, sb, &o, err) < 0))
                return -1;
        return lang_job_start(*ls, &lp, job, run, err);
}

int serve_lang_next(struct lang_job *job, struct run_result *res, struct sbx_run **run,
                    struct sbx_err *err)
{
        return lang_job_next(job, res, run, err);
}

void serve_lang_result(const struct lang_job *job, struct run_result *res)
{
        lang_job_result(job, res);
}

void serve_lang_annotate(cJSON *o, const struct lang_row *row, const struct lang_job *job)
{
        if (!row || !job)
                return;
        cJSON_AddStringToObject(o, "language", row->name);
        cJSON_AddItemToObject(o, "compile", lang_build_json(lang_job_build(job)));
}

const struct lang_build_info *serve_lang_build(const struct lang_job *job)
{
        return job ? lang_job_build(job) : NULL;
}

void serve_lang_free(struct lang_job *job)
{
        lang_job_free(job);
}

void serve_lang_close(struct lang_session *ls)
{
        lang_session_close(ls);
}
