/* A --serve run request in another language than Python (serve_lang.c). */
#ifndef SBX_SERVE_LANG_H
#define SBX_SERVE_LANG_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "sandbox.h"
#include "serve_request.h"

struct lang_session;
struct lang_job;

/* A program's limits, the server's defaults and caps applied. */
struct serve_lang_limits {
        int64_t timeout_ms, cpu_limit_s, memory_bytes;  /* memory 0: the session's */
        int64_t compile_timeout_ms;                     /* 0: the language's */
};

/* Opens *ls (the server's session of builds) at the first call, then
 * starts rq's program (lang_job_start: 0 with *run, 1 when it ended
 * without a run, -1 with err). rq must outlive the job. */
int serve_lang_start(struct lang_session **ls, struct sandbox *sb,
                     const struct serve_request *rq, const struct serve_lang_limits *lim,
                     struct lang_job **job, struct sbx_run **run, struct sbx_err *err);
/* lang_job_next and lang_job_result, for the server's loop. */
int serve_lang_next(struct lang_job *job, struct run_result *res, struct sbx_run **run,
                    struct sbx_err *err);
void serve_lang_result(const struct lang_job *job, struct run_result *res);
/* A result object gets "language" and "compile" (nothing for Python). */
void serve_lang_annotate(cJSON *o, const struct serve_request *rq, const struct lang_job *job);
void serve_lang_free(struct lang_job *job);
void serve_lang_close(struct lang_session *ls);

#endif
