/* http_exec.h's table on the shared request executor (serve/serve_exec.h):
 * a /run_code request becomes a program job (its code in a fresh workdir,
 * run by the trusted driver's plain mode with its directory on sys.path,
 * as SandboxFusion's `python FILE.py`; warm through the session's zygotes
 * unless it sends or fetches files, which need a workdir of the host and
 * run cold), a /v1/serve request the executor's job for its --serve
 * request (run, run_argv, suite). Nothing here sets a run up itself. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "http.h"
#include "lang_run.h"
#include "output.h"
#include "serve.h"
#include "serve_exec.h"
#include "util.h"

#define PROGRAM_NAME    "program.py"

struct http_exec_sbx {
        struct http_exec_cfg cfg;
        struct serve_exec x;
        struct lang_session *lang;      /* builds, from the first program in a language */
};

struct http_job {
        struct http_exec_sbx *x;
        struct serve_job *job;
        const struct http_code_request *code;   /* /run_code's; NULL for /v1/serve */
};

static void job_free(struct http_job *j)
{
        serve_job_free(j->job);
        free(j);
}

/* Files in the workdir, beside the program. */
static int write_request_files(struct http_job *j, const struct http_code_request *rq,
                               struct sbx_err *err)
{
        for (size_t i = 0; i < rq->n_files; i++)
                if (strcmp(rq->files[i].name, PROGRAM_NAME) == 0)
                        return sbx_fail(err, 0, "files: '%s' is the name sbx gives the program",
                                        rq->files[i].name);
        auto_fd dirfd = open(serve_job_workdir(j->job), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dirfd < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", serve_job_workdir(j->job));
        return http_files_write(dirfd, rq->files, rq->n_files, err);
}

/* SandboxFusion's names of the languages lang/ builds and runs; python
 * is the driver's (NULL). */
static const char *const sf_languages[][2] = {
        { "cpp", "cpp" }, { "java", "java" }, { "nodejs", "js" }, { "go", "go" },
        { "go_test", "go-test" }, { "rust", "rust" },
};

static int language_of(const char *sf_name, const struct lang_row **row, struct sbx_err *err)
{
        *row = NULL;
        if (strcmp(sf_name, "python") == 0)
                return 0;
        for (size_t i = 0; i < sizeof(sf_languages) / sizeof(sf_languages[0]); i++)
                if (strcmp(sf_name, sf_languages[i][0]) == 0 && (*row = lang_find(sf_languages[i][1])))
                        return 0;
        return sbx_fail_code(err, SBX_EXIT_USAGE, 0, "language '%s': this server runs python, "
                             "cpp, java, nodejs, go, go_test and rust", sf_name);
}

static int start_code(void *ctx, const struct http_code_request *rq, struct http_job **out,
                      struct sbx_err *err)
{
        struct http_exec_sbx *x = ctx;
        const struct lang_row *language;
        struct http_job *j;

        if (language_of(rq->language, &language, err) < 0)
                return -1;
        if (!(j = calloc(1, sizeof(*j))))
                return sbx_fail_oom(err, "run_code");
        j->x = x;
        j->code = rq;
        struct serve_program p = {
                .code = rq->code, .code_len = rq->code_len,
                .stdin_data = rq->stdin_data, .stdin_len = rq->stdin_len,
                .timeout_ms = rq->run_timeout_ms, .memory_bytes = rq->memory_bytes,
                .dir_on_path = true, .host_workdir = rq->n_files > 0 || rq->n_fetch > 0,
                .language = language, .compile_timeout_ms = rq->compile_timeout_ms,
        };
        if (serve_job_program(&x->x, &p, &j->job, err) < 0 ||
            (rq->n_files && write_request_files(j, rq, err) < 0) ||
            serve_job_start(j->job, err) < 0) {
                job_free(j);
                return -1;
        }
        *out = j;
        return 0;
}

static int start_native(void *ctx, const char *json, size_t len, int max_jobs, int *jobs,
                        struct http_job **out, char **error_line, int *http_status)
{
        struct http_job *j = calloc(1, sizeof(*j));
        struct serve_request rq;
        struct sbx_err err = { 0 };
        cJSON *id = NULL;
        char why[512];

        *error_line = NULL;
        if (!j) {
                *http_status = 500;
                *error_line = serve_error_line(NULL, "out of memory");
                return -1;
        }
        j->x = ctx;
        if (serve_parse_request(json, len, &rq, &id, why, sizeof(why)) < 0) {
                *http_status = 400;
                *error_line = serve_error_line(id, why);
                cJSON_Delete(id);
                free(j);
                return -1;
        }
        /* a suite's samples count against the server's runs */
        if (rq.type == SERVE_SUITE && (rq.jobs <= 0 || rq.jobs > max_jobs))
                rq.jobs = max_jobs;
        *jobs = rq.type == SERVE_SUITE ? rq.jobs : 1;
        if (serve_job_request(&j->x->x, &rq, &j->job, &err) < 0) {
                *http_status = err.exit_code == SBX_EXIT_USAGE ? 400 : 500;
                *error_line = serve_error_line(rq.id, err.msg);
                serve_request_free(&rq);
                free(j);
                return -1;
        }
        *out = j;
        return 0;
}

static size_t job_pollfds(struct http_job *j, struct pollfd *pfds, size_t max)
{
        return serve_job_pollfds(j->job, pfds, max);
}

static int64_t job_deadline(const struct http_job *j)
{
        return serve_job_deadline_ms(j->job);
}

static int job_step(struct http_job *j, const struct pollfd *pfds, size_t n,
                    http_emit_fn emit, void *ctx)
{
        return serve_job_step(j->job, pfds, n, emit, ctx);
}

static char *text_of(const struct run_output *o)
{
        return output_utf8_sanitize(o->data ? o->data : "", o->len);
}

/* sbx's run result as SandboxFusion's run step. */
static void code_result(const struct run_result *r, struct http_code_result *res)
{
        struct http_step_result *s = &res->run;

        s->present = true;
        s->execution_time_s = r->duration_s;
        s->out = text_of(&r->out);
        s->err = text_of(&r->err);
        snprintf(res->tier, sizeof(res->tier), "%s", tier_name(r->tier));
        if (r->status == RUN_ERROR || r->never_started || r->stop_signal) {
                s->status = HTTP_STEP_ERROR;
                free(s->err);
                s->err = strdup(r->stop_signal ? "the run was stopped by a signal sbx never sends "
                                "(the server's process group was signalled)" : r->detail);
        } else if (r->status == RUN_TIMEOUT) {
                s->status = HTTP_STEP_TIME_LIMIT;
        } else {
                s->status = HTTP_STEP_FINISHED;
                s->has_return_code = true;
                s->return_code = r->returncode;
        }
}

/* A built program's compile as SandboxFusion's compile step: a compile
 * error (the compiler's message its stderr; ended by a limit: a time
 * limit, or an error with the limit named) leaves no run step. Nothing
 * for a language not compiled (nodejs's compile_result is null). */
static bool compile_result(const struct lang_build_info *b, struct http_code_result *res)
{
        struct http_step_result *s = &res->compile;
        const char *msg = b && b->message ? b->message : "";

        if (!b || b->status == LANG_BUILD_NONE)
                return true;
        s->present = true;
        s->execution_time_s = b->duration_s;
        s->out = strdup("");
        s->err = output_utf8_sanitize(msg, strlen(msg));
        switch (b->status) {
        case LANG_BUILD_COMPILE_ERROR:
                if (strncmp(b->detail, "timeout", 7) == 0) {
                        s->status = HTTP_STEP_TIME_LIMIT;
                        return false;
                }
                s->status = HTTP_STEP_FINISHED;
                s->has_return_code = true;
                s->return_code = 1;
                return false;
        case LANG_BUILD_SANDBOX_ERROR:
                s->status = HTTP_STEP_ERROR;
                free(s->err);
                s->err = strdup(b->detail[0] ? b->detail : "the compile could not run");
                return false;
        default:
                s->status = HTTP_STEP_FINISHED;
                s->has_return_code = true;
                return true;
        }
}

static void fetch_files(struct http_job *j, struct http_code_result *res)
{
        const char *dir = serve_job_workdir(j->job);
        auto_fd dirfd = dir ? open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;

        if (dirfd < 0 || http_files_fetch(dirfd, j->code->fetch, j->code->n_fetch,
                                          j->x->cfg.max_fetch_bytes, &res->files, &res->n_files,
                                          &res->message) < 0)
                res->message = strdup("fetch_files: the run's directory is gone");
}

static void job_finish(struct http_job *j, struct http_code_result *res)
{
        const struct run_result *r = serve_job_result(j->job);

        memset(res, 0, sizeof(*res));
        if (j->code && r && compile_result(serve_job_build(j->job), res)) {
                code_result(r, res);
                if (j->code->n_fetch && res->run.status != HTTP_STEP_ERROR)
                        fetch_files(j, res);
        }
        job_free(j);
}

static void job_kill(struct http_job *j)
{
        serve_job_kill(j->job);
}

int http_exec_sbx_open(struct http_exec_ops *ops, const struct http_exec_cfg *cfg)
{
        struct http_exec_sbx *x = calloc(1, sizeof(*x));

        if (!x)
                return -1;
        x->cfg = *cfg;
        x->x = (struct serve_exec){
                .sb = cfg->sb, .self = cfg->sbx_run, .suite_args = cfg->suite_args,
                .default_timeout_ms = cfg->default_timeout_ms,
                .max_timeout_ms = cfg->max_timeout_ms, .cpu_limit_s = cfg->cpu_limit_s,
                .max_cpu_s = cfg->max_cpu_s, .lang = &x->lang,
        };
        *ops = (struct http_exec_ops){
                .ctx = x, .start_code = start_code, .start_native = start_native,
                .pollfds = job_pollfds, .deadline_ms = job_deadline, .step = job_step,
                .finish = job_finish, .kill = job_kill,
        };
        return 0;
}

void http_exec_sbx_close(struct http_exec_ops *ops)
{
        struct http_exec_sbx *x = ops->ctx;

        if (x)
                lang_session_close(x->lang);
        free(ops->ctx);
        ops->ctx = NULL;
}
