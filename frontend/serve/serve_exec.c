/* The request executor (serve_exec.h): a program written into a fresh
 * workdir and run by the trusted driver's plain mode, warm where the
 * session is; run_argv in the caller's directory; a suite as a child
 * sbx-run. One job's setup, steps and answer, for both servers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "driver.h"
#include "results.h"
#include "serve_exec.h"
#include "serve_lang.h"
#include "serve_suite.h"
#include "util.h"

#define PROGRAM_NAME    "program.py"

struct serve_job {
        const struct serve_exec *x;
        struct serve_request rq;        /* a request's (type 0: a program's) */
        struct serve_program prog;      /* a program's: its limits and env */
        struct sbx_run *run;
        struct serve_suite *suite;
        struct lang_job *lang;          /* a run request in another language */
        struct run_result res;
        bool ended;
        bool unanswered;                /* ended without a run, its answer not yet given */
        bool failed;                    /* answered with an error line */
        char *dir;                      /* a program's workdir: ours */
        char *program;
};

const char *serve_job_workdir(const struct serve_job *j)
{
        return j->dir;
}

const struct run_result *serve_job_result(const struct serve_job *j)
{
        return j->ended && !j->rq.type ? &j->res : NULL;
}

const struct lang_build_info *serve_job_build(const struct serve_job *j)
{
        return serve_lang_build(j->lang);
}

void serve_job_free(struct serve_job *j)
{
        if (!j)
                return;
        if (j->suite)
                serve_suite_free(j->suite);
        if (j->run) {
                sbx_run_kill(j->run);
                sbx_run_finish(j->run, &j->res);
        }
        serve_lang_free(j->lang);
        if (j->dir)
                sbx_rm_tree(j->dir);
        free(j->dir);
        free(j->program);
        serve_request_free(&j->rq);
        run_result_free(&j->res);
        free(j);
}

/* A request's timeout, or the default; cut to the server's maximum. */
static int64_t timeout_of(const struct serve_exec *x, int64_t asked)
{
        int64_t t = asked > 0 ? asked : x->default_timeout_ms > 0 ? x->default_timeout_ms :
                    DEFAULT_TIMEOUT_MS;

        return x->max_timeout_ms > 0 && t > x->max_timeout_ms ? x->max_timeout_ms : t;
}

/* --cpu, or the timeout's (as a single run's); cut to the server's
 * maximum (the helper's ceiling, past which it refuses the run). */
static int64_t cpu_of(const struct serve_exec *x, int64_t timeout_ms)
{
        int64_t cpu = limit_derive(&(struct limit_ask){ .timeout_ms = timeout_ms,
                                                        .cpu_s = x->cpu_limit_s }).cpu_s;

        return x->max_cpu_s > 0 && cpu > x->max_cpu_s ? x->max_cpu_s : cpu;
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

/* The workdir and the program in it. */
static int make_workdir(struct serve_job *j, const struct serve_program *p, struct sbx_err *err)
{
        if (!(j->dir = sandbox_mkdtemp(j->x->sb, err)))
                return -1;
        return write_file(j->dir, PROGRAM_NAME, p->code, p->code_len, &j->program, err);
}

int serve_job_program(const struct serve_exec *x, const struct serve_program *p,
                      struct serve_job **out, struct sbx_err *err)
{
        struct serve_job *j = calloc(1, sizeof(*j));

        if (!j)
                return sbx_fail_oom(err, "a run");
        j->x = x;
        j->prog = *p;
        if (p->language && p->host_workdir) {
                free(j);
                return sbx_fail_code(err, SBX_EXIT_USAGE, 0, "files with a program in %s: only "
                                     "a Python program's workdir is the host's", p->language->name);
        }
        if (p->language)                /* lang/ makes its own directories */
                goto done;
        j->prog.code = NULL;
        if (make_workdir(j, p, err) < 0) {
                serve_job_free(j);
                return -1;
        }
done:
        *out = j;
        return 0;
}

/* A request's memory lowers the session's, never raises it (the engine
 * gives a run what its spec asks: a compile's may be more). 0: the
 * session's. */
static int64_t request_memory(const struct sandbox *sb, long long asked)
{
        long long session = sandbox_memory_bytes(sb);

        return asked > 0 && (session < 0 || asked < session) ? asked : 0;
}

/* A program in another language: built (cached) then run, two runs of
 * the job; a compile error the cache had is answered without a run. */
static int start_lang(struct serve_job *j, struct sbx_err *err)
{
        const struct serve_exec *x = j->x;
        const struct serve_program *p = &j->prog;
        int64_t timeout = timeout_of(x, p->timeout_ms);
        struct serve_lang_program lp = {
                .row = p->language, .code = p->code, .code_len = p->code_len, .env = p->env,
                .stdin_data = p->stdin_data, .stdin_len = p->stdin_len,
                .timeout_ms = timeout, .cpu_limit_s = cpu_of(x, timeout),
                .memory_bytes = request_memory(x->sb, p->memory_bytes),
                .compile_timeout_ms = p->compile_timeout_ms ? p->compile_timeout_ms
                                                            : x->compile_timeout_ms,
        };
        int rc = x->lang ? serve_lang_start(x->lang, x->sb, &lp, &j->lang, &j->run, err)
                         : sbx_fail(err, 0, "internal: no session of builds");

        j->prog.code = NULL;            /* borrowed until now */
        if (rc == 1) {
                serve_lang_result(j->lang, &j->res);
                j->ended = true;
                j->unanswered = true;
        }
        return rc < 0 ? -1 : 0;
}

int serve_job_start(struct serve_job *j, struct sbx_err *err)
{
        const struct serve_exec *x = j->x;
        const struct serve_program *p = &j->prog;
        const char *files[] = { PROGRAM_NAME, NULL };
        struct driver_argv a;
        int64_t timeout = timeout_of(x, p->timeout_ms);

        if (p->language)
                return start_lang(j, err);
        driver_argv_init(&a, sandbox_python(x->sb));
        driver_argv_plain(&a, j->program, p->dir_on_path);
        struct run_spec spec = {
                .argv = (char *const *)a.argv, .workdir = j->dir,
                .private_workdir = !p->host_workdir,
                .workdir_files = p->host_workdir ? NULL : files,
                .env_extra = (const char *const *)p->env, .timeout_ms = timeout,
                .cpu_limit_s = cpu_of(x, timeout), .memory_bytes = request_memory(x->sb, p->memory_bytes),
                .stdin_data = p->stdin_data, .stdin_len = p->stdin_len,
        };
        return sbx_run_start(x->sb, &spec, &j->run, err);
}

static int start_argv(struct serve_job *j, struct sbx_err *err)
{
        struct serve_request *rq = &j->rq;
        auto_free char *workdir = realpath(rq->workdir, NULL);
        auto_free char *arg0 = sandbox_resolve_argv0(j->x->sb, rq->argv[0]);
        struct stat st;

        if (!workdir || stat(workdir, &st) < 0 || !S_ISDIR(st.st_mode))
                return sbx_fail(err, errno, "workdir %s: not a directory", rq->workdir);
        if (!arg0)
                return sbx_fail(err, 0, "%s: not found (give an absolute path, or a name in %s)",
                                rq->argv[0], SANDBOX_PATH);
        char *saved = rq->argv[0];
        int64_t timeout = timeout_of(j->x, rq->timeout_ms);
        rq->argv[0] = arg0;
        struct run_spec spec = {
                .argv = rq->argv, .workdir = workdir, .private_workdir = false,
                .env_extra = (const char *const *)rq->env, .timeout_ms = timeout,
                .cpu_limit_s = cpu_of(j->x, timeout), .memory_bytes = request_memory(j->x->sb, rq->memory_bytes),
                .stdin_data = rq->stdin_text, .stdin_len = rq->stdin_len,
        };
        int rc = sbx_run_start(j->x->sb, &spec, &j->run, err);
        rq->argv[0] = saved;
        return rc;
}

/* A run request: its code as a program of the session's, sys.path as -I
 * makes it (the program's directory is not on it). */
static int start_run(struct serve_job *j, struct sbx_err *err)
{
        const struct serve_request *rq = &j->rq;
        struct serve_program p = {
                .code = rq->code, .code_len = rq->code_len, .env = rq->env,
                .stdin_data = rq->stdin_text, .stdin_len = rq->stdin_len,
                .timeout_ms = rq->timeout_ms, .memory_bytes = rq->memory_bytes,
                .language = rq->language, .compile_timeout_ms = rq->compile_timeout_ms,
        };

        j->prog = p;
        if (!p.language && make_workdir(j, &p, err) < 0)
                return -1;
        return serve_job_start(j, err);
}

static int start_request(struct serve_job *j, struct sbx_err *err)
{
        const struct serve_exec *x = j->x;

        switch (j->rq.type) {
        case SERVE_RUN:
                return start_run(j, err);
        case SERVE_RUN_ARGV:
                return start_argv(j, err);
        case SERVE_SUITE:
                return serve_suite_start(&j->suite, &j->rq, x->self, x->suite_args, x->sb, err);
        }
        return sbx_fail(err, 0, "internal: unhandled request type");
}

int serve_job_request(const struct serve_exec *x, struct serve_request *rq,
                      struct serve_job **out, struct sbx_err *err)
{
        struct serve_job *j = calloc(1, sizeof(*j));

        if (!j)
                return sbx_fail_oom(err, "a request");
        j->x = x;
        j->rq = *rq;
        if (start_request(j, err) < 0) {
                memset(&j->rq, 0, sizeof(j->rq));       /* still the caller's */
                serve_job_free(j);
                return -1;
        }
        memset(rq, 0, sizeof(*rq));
        *out = j;
        return 0;
}

size_t serve_job_pollfds(const struct serve_job *j, struct pollfd *pfds, size_t max)
{
        if (j->suite)
                return max >= 2 ? serve_suite_pollfds(j->suite, pfds) : 0;
        return j->run ? sbx_run_pollfds(j->run, pfds, max) : 0;
}

/* A suite's results file grows without a wakeup of its own. */
#define SUITE_POLL_MS 200

int64_t serve_job_deadline_ms(const struct serve_job *j)
{
        if (j->suite)
                return sbx_now_ms() + SUITE_POLL_MS;
        return j->run ? sbx_run_deadline_ms(j->run) : sbx_now_ms();
}

/* A run request's answer: the run's result with its id. */
static void emit_result(struct serve_job *j, void (*emit)(void *, char *), void *ctx)
{
        auto_free char *summary = run_result_summary(&j->res);
        cJSON *o = run_result_to_json(&j->res, summary);

        if (!o) {
                emit(ctx, serve_error_line(j->rq.id, "out of memory building the result"));
                return;
        }
        cJSON_AddItemToObject(o, "id", cJSON_Duplicate(j->rq.id, false));
        cJSON_AddStringToObject(o, "type", "result");
        serve_lang_annotate(o, j->prog.language, j->lang);
        emit(ctx, cJSON_PrintUnformatted(o));
        cJSON_Delete(o);
}

/* A built program's compile ended: true when its run started in the job.
 * An error is answered here. */
static bool lang_goes_on(struct serve_job *j, void (*emit)(void *, char *), void *ctx)
{
        struct sbx_err err = { 0 };
        int rc = serve_lang_next(j->lang, &j->res, &j->run, &err);

        if (rc < 0) {
                j->failed = true;
                emit(ctx, serve_error_line(j->rq.id, err.msg));
        }
        return rc == 1;
}

int serve_job_step(struct serve_job *j, const struct pollfd *pfds, size_t n,
                   void (*emit)(void *, char *), void *ctx)
{
        if (j->unanswered) {
                j->unanswered = false;
                if (j->rq.type)
                        emit_result(j, emit, ctx);
        }
        if (j->ended)
                return 1;
        if (j->suite) {
                j->ended = serve_suite_step(j->suite, emit, ctx) == 1;
                return j->ended;
        }
        if (!j->run || sbx_run_step(j->run, pfds, n) != 1)
                return !j->run;
        sbx_run_finish(j->run, &j->res);
        j->run = NULL;
        if (j->lang && lang_goes_on(j, emit, ctx))
                return 0;
        j->ended = true;
        if (j->rq.type && !j->failed)
                emit_result(j, emit, ctx);
        return 1;
}

void serve_job_kill(struct serve_job *j)
{
        if (j->suite)
                serve_suite_kill(j->suite);
        else if (j->run)
                sbx_run_kill(j->run);
}
