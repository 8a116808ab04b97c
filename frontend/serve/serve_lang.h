/* A --serve run request in another language than Python (serve_lang.c). */
#ifndef SBX_SERVE_LANG_H
#define SBX_SERVE_LANG_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "sandbox.h"

struct lang_build_info;
struct lang_row;
struct lang_session;
struct lang_job;

/* A program, its limits with the server's defaults and caps applied;
 * borrowed during serve_lang_start only. */
struct serve_lang_program {
        const struct lang_row *row;
        const char *code;
        size_t code_len;
        char *const *env;                               /* NAME=VALUE, or NULL */
        const char *stdin_data;                         /* NULL: /dev/null */
        size_t stdin_len;
        int64_t timeout_ms, cpu_limit_s, memory_bytes;  /* memory 0: the session's */
        int64_t compile_timeout_ms;                     /* 0: the language's */
};

/* Opens *ls (the server's session of builds) at the first call, then
 * starts the program (lang_job_start: 0 with *run, 1 when it ended
 * without a run, -1 with err). */
int serve_lang_start(struct lang_session **ls, struct sandbox *sb,
                     const struct serve_lang_program *p, struct lang_job **job,
                     struct sbx_run **run, struct sbx_err *err);
/* lang_job_next and lang_job_result, for the server's loop. */
int serve_lang_next(struct lang_job *job, struct run_result *res, struct sbx_run **run,
                    struct sbx_err *err);
void serve_lang_result(const struct lang_job *job, struct run_result *res);
/* A result object gets "language" and "compile" (nothing for Python). */
void serve_lang_annotate(cJSON *o, const struct lang_row *row, const struct lang_job *job);
/* The job's build; NULL for no job. */
const struct lang_build_info *serve_lang_build(const struct lang_job *job);
void serve_lang_free(struct lang_job *job);
void serve_lang_close(struct lang_session *ls);

#endif
