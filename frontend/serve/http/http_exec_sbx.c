/* http_exec.h's table on the sandbox session: a /run_code request or a
 * --serve request becomes a run (sandbox.h) or a suite child (serve.h).
 * Python programs run through the fixed runner (http_runner.py) as
 * `python -I -B -c RUNNER PROGRAM ...` in a private workdir, the shape a
 * zygote runs warm (docs/warm.md); requests with files or fetch_files
 * run in a workdir of the host, cold, which the run may write and the
 * server reads back. This file is the seam the run engine's integration
 * replaces (docs/http.md). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "http.h"
#include "http_runner_text.h"
#include "limit.h"
#include "output.h"
#include "results.h"
#include "serve.h"
#include "serve_suite.h"
#include "util.h"

#define PROGRAM_NAME    "program.py"
#define STDIN_NAME      ".sbx_stdin"

struct http_exec_sbx {
        struct http_exec_cfg cfg;
};

enum job_kind { JOB_CODE, JOB_NATIVE_RUN, JOB_SUITE };

struct http_job {
        enum job_kind kind;
        struct http_exec_sbx *x;
        struct sbx_run *run;
        struct serve_suite *suite;
        struct serve_request rq;        /* native */
        const struct http_code_request *code;
        struct run_result res;
        char *dir;                      /* the run's workdir: ours */
        char *program;                  /* dir/program.py */
        char *stdin_path;
        char memory[24];
        int64_t suite_poll_ms;
};

static void job_free(struct http_job *j)
{
        if (j->suite)
                serve_suite_free(j->suite);
        if (j->dir)
                sbx_rm_tree(j->dir);
        free(j->dir);
        free(j->program);
        free(j->stdin_path);
        serve_request_free(&j->rq);
        run_result_free(&j->res);
        free(j);
}

static int write_file(const char *dir, const char *name, const char *data, size_t len,
                      char **path, struct sbx_err *err)
{
        if (asprintf(path, "%s/%s", dir, name) < 0) {
                *path = NULL;
                return sbx_fail_oom(err, "%s", name);
        }
        auto_fd fd = open(*path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 || sbx_write_all(fd, data, len) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", *path);
        return 0;
}

/* The program (and its stdin) in a fresh workdir of the session's. */
static int make_workdir(struct http_job *j, const char *code, size_t code_len,
                        const char *stdin_data, size_t stdin_len, struct sbx_err *err)
{
        if (!(j->dir = sandbox_mkdtemp(j->x->cfg.sb, err)))
                return -1;
        if (write_file(j->dir, PROGRAM_NAME, code, code_len, &j->program, err) < 0)
                return -1;
        if (stdin_data && write_file(j->dir, STDIN_NAME, stdin_data, stdin_len, &j->stdin_path, err) < 0)
                return -1;
        return 0;
}

/* A run's CPU limit: --cpu, or the timeout's (as a single run's), never
 * above the helper's ceiling, which would refuse the run. */
static int64_t cpu_for(const struct http_exec_sbx *x, int64_t timeout_ms)
{
        int64_t cpu = x->cfg.cpu_limit_s ? x->cfg.cpu_limit_s :
                      (timeout_ms + 999) / 1000 + DEFAULT_CPU_SLACK_S;

        return x->cfg.max_cpu_s > 0 && cpu > x->cfg.max_cpu_s ? x->cfg.max_cpu_s : cpu;
}

/* python -I -B -c RUNNER PROGRAM STDIN MEMORY MODE, the runner's argv. */
static int start_python(struct http_job *j, bool private_workdir, const char *mode,
                        int64_t timeout_ms, char *const *env, struct sbx_err *err)
{
        const char *files[] = { PROGRAM_NAME, j->stdin_path ? STDIN_NAME : NULL, NULL };
        char *argv[] = { (char *)sandbox_python(j->x->cfg.sb), "-I", "-B", "-c",
                         (char *)http_runner_py, j->program, j->stdin_path ? j->stdin_path : "",
                         j->memory, (char *)mode, NULL };
        struct run_spec spec = {
                .argv = argv, .workdir = j->dir, .private_workdir = private_workdir,
                .workdir_files = private_workdir ? files : NULL,
                .env_extra = (const char *const *)env, .timeout_ms = timeout_ms,
                .cpu_limit_s = cpu_for(j->x, timeout_ms),
        };

        if (!j->memory[0])
                strcpy(j->memory, "0");
        return sbx_run_start(j->x->cfg.sb, &spec, &j->run, err);
}

static bool reserved_name(const char *name)
{
        return strcmp(name, PROGRAM_NAME) == 0 || strcmp(name, STDIN_NAME) == 0;
}

/* Files in the workdir, beside the program and its stdin. */
static int write_request_files(struct http_job *j, const struct http_code_request *rq,
                               struct sbx_err *err)
{
        for (size_t i = 0; i < rq->n_files; i++)
                if (reserved_name(rq->files[i].name))
                        return sbx_fail(err, 0, "files: '%s' is the name sbx gives the program "
                                        "or its stdin", rq->files[i].name);
        auto_fd dirfd = open(j->dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (dirfd < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", j->dir);
        return http_files_write(dirfd, rq->files, rq->n_files, err);
}

static int start_code(void *ctx, const struct http_code_request *rq, struct http_job **out,
                      struct sbx_err *err)
{
        struct http_exec_sbx *x = ctx;
        struct http_job *j = calloc(1, sizeof(*j));

        if (!j)
                return sbx_fail_oom(err, "run_code");
        j->kind = JOB_CODE;
        j->x = x;
        j->code = rq;
        if (strcmp(rq->language, "python") != 0) {
                job_free(j);
                return sbx_fail(err, 0, "language '%s': this server runs python only", rq->language);
        }
        /* a memory limit at or above the session's is the session's */
        long long session = x->cfg.memory_bytes;
        if (rq->memory_bytes > 0 && (session <= 0 || rq->memory_bytes < session))
                snprintf(j->memory, sizeof(j->memory), "%lld", rq->memory_bytes);
        /* a host workdir (cold) only where the request needs one */
        bool private_workdir = rq->n_files == 0 && rq->n_fetch == 0;
        if (make_workdir(j, rq->code, rq->code_len, rq->stdin_data, rq->stdin_len, err) < 0 ||
            write_request_files(j, rq, err) < 0 ||
            start_python(j, private_workdir, "path", rq->run_timeout_ms, NULL, err) < 0) {
                job_free(j);
                return -1;
        }
        *out = j;
        return 0;
}

static int64_t native_timeout(const struct http_exec_sbx *x, const struct serve_request *rq)
{
        int64_t t = rq->timeout_ms > 0 ? rq->timeout_ms : x->cfg.default_timeout_ms;

        return t > x->cfg.max_timeout_ms ? x->cfg.max_timeout_ms : t;
}

static int start_argv(struct http_job *j, struct sbx_err *err)
{
        struct serve_request *rq = &j->rq;
        auto_free char *workdir = realpath(rq->workdir, NULL);
        auto_free char *arg0 = sandbox_resolve_argv0(j->x->cfg.sb, rq->argv[0]);
        struct stat st;

        if (!workdir || stat(workdir, &st) < 0 || !S_ISDIR(st.st_mode))
                return sbx_fail(err, errno, "workdir %s: not a directory", rq->workdir);
        if (!arg0)
                return sbx_fail(err, 0, "%s: not found (give an absolute path, or a name in %s)",
                                rq->argv[0], SANDBOX_PATH);
        char *saved = rq->argv[0];
        rq->argv[0] = arg0;
        struct run_spec spec = {
                .argv = rq->argv, .workdir = workdir, .env_extra = (const char *const *)rq->env,
                .timeout_ms = native_timeout(j->x, rq),
                .cpu_limit_s = cpu_for(j->x, native_timeout(j->x, rq)),
        };
        int rc = sbx_run_start(j->x->cfg.sb, &spec, &j->run, err);
        rq->argv[0] = saved;
        return rc;
}

static int start_native_job(struct http_job *j, struct sbx_err *err)
{
        struct http_exec_sbx *x = j->x;

        switch (j->rq.type) {
        case SERVE_RUN:
                j->kind = JOB_NATIVE_RUN;
                return make_workdir(j, j->rq.code, j->rq.code_len, NULL, 0, err) < 0 ? -1 :
                       start_python(j, true, "isolated", native_timeout(x, &j->rq), j->rq.env, err);
        case SERVE_RUN_ARGV:
                j->kind = JOB_NATIVE_RUN;
                return start_argv(j, err);
        case SERVE_SUITE:
                j->kind = JOB_SUITE;
                return serve_suite_start(&j->suite, &j->rq, x->cfg.sbx_run, x->cfg.suite_args,
                                         x->cfg.sb, err);
        }
        return sbx_fail(err, 0, "internal: unhandled request type");
}

static int start_native(void *ctx, const char *json, size_t len, struct http_job **out,
                        char **error_line, int *http_status)
{
        struct http_job *j = calloc(1, sizeof(*j));
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
        if (serve_parse_request(json, len, &j->rq, &id, why, sizeof(why)) < 0) {
                *http_status = 400;
                *error_line = serve_error_line(id, why);
                cJSON_Delete(id);
                free(j);
                return -1;
        }
        if (start_native_job(j, &err) < 0) {
                *http_status = err.exit_code == SBX_EXIT_USAGE ? 400 : 500;
                *error_line = serve_error_line(j->rq.id, err.msg);
                job_free(j);
                return -1;
        }
        *out = j;
        return 0;
}

static size_t job_pollfds(struct http_job *j, struct pollfd *pfds, size_t max)
{
        if (j->suite)
                return max >= 2 ? serve_suite_pollfds(j->suite, pfds) : 0;
        return j->run ? sbx_run_pollfds(j->run, pfds, max) : 0;
}

/* A suite's results file grows without a wakeup of its own. */
#define SUITE_POLL_MS 200

static int64_t job_deadline(const struct http_job *j)
{
        if (j->suite)
                return sbx_now_ms() + SUITE_POLL_MS;
        return j->run ? sbx_run_deadline_ms(j->run) : 0;
}

static void emit_result(struct http_job *j, http_emit_fn emit, void *ctx)
{
        auto_free char *summary = run_result_summary(&j->res);
        cJSON *o = run_result_to_json(&j->res, summary);

        if (!o) {
                emit(ctx, serve_error_line(j->rq.id, "out of memory building the result"));
                return;
        }
        cJSON_AddItemToObject(o, "id", cJSON_Duplicate(j->rq.id, false));
        cJSON_AddStringToObject(o, "type", "result");
        emit(ctx, cJSON_PrintUnformatted(o));
        cJSON_Delete(o);
}

static int job_step(struct http_job *j, const struct pollfd *pfds, size_t n,
                    http_emit_fn emit, void *ctx)
{
        if (j->suite)
                return serve_suite_step(j->suite, emit, ctx);
        if (!j->run)
                return 1;
        if (sbx_run_step(j->run, pfds, n) != 1)
                return 0;
        sbx_run_finish(j->run, &j->res);
        j->run = NULL;
        if (j->kind == JOB_NATIVE_RUN)
                emit_result(j, emit, ctx);
        return 1;
}

static char *text_of(const struct run_output *o)
{
        return output_utf8_sanitize(o->data ? o->data : "", o->len);
}

/* sbx's run result as SandboxFusion's run step. */
static void code_result(struct http_job *j, struct http_code_result *res)
{
        const struct run_result *r = &j->res;
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

static void fetch_files(struct http_job *j, struct http_code_result *res)
{
        auto_fd dirfd = open(j->dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

        if (dirfd < 0 || http_files_fetch(dirfd, j->code->fetch, j->code->n_fetch,
                                          j->x->cfg.max_fetch_bytes, &res->files, &res->n_files,
                                          &res->message) < 0)
                res->message = strdup("fetch_files: the run's directory is gone");
}

static void job_finish(struct http_job *j, struct http_code_result *res)
{
        memset(res, 0, sizeof(*res));
        if (j->kind == JOB_CODE) {
                code_result(j, res);
                if (j->code->n_fetch && res->run.status != HTTP_STEP_ERROR)
                        fetch_files(j, res);
        }
        job_free(j);
}

static void job_kill(struct http_job *j)
{
        if (j->suite)
                serve_suite_kill(j->suite);
        else if (j->run)
                sbx_run_kill(j->run);
}

int http_exec_sbx_open(struct http_exec_ops *ops, const struct http_exec_cfg *cfg)
{
        struct http_exec_sbx *x = calloc(1, sizeof(*x));

        if (!x)
                return -1;
        x->cfg = *cfg;
        *ops = (struct http_exec_ops){
                .ctx = x, .start_code = start_code, .start_native = start_native,
                .pollfds = job_pollfds, .deadline_ms = job_deadline, .step = job_step,
                .finish = job_finish, .kill = job_kill,
        };
        return 0;
}

void http_exec_sbx_close(struct http_exec_ops *ops)
{
        free(ops->ctx);
        ops->ctx = NULL;
}
