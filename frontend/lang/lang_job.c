/* One program built and run (lang_run.h): the job's phases, the
 * program's run spec (computed at the start, while the caller's program
 * is at hand; its files once the build is done), and the blocking form. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lang_impl.h"
#include "output.h"
#include "util.h"

static const char *const build_names[] = {
        [LANG_BUILD_NONE] = "none", [LANG_BUILD_COMPILED] = "compiled",
        [LANG_BUILD_CACHED] = "cached", [LANG_BUILD_COMPILE_ERROR] = "compile_error",
        [LANG_BUILD_SANDBOX_ERROR] = "error",
};

const char *lang_build_name(enum lang_build b)
{
        return (unsigned)b <= LANG_BUILD_SANDBOX_ERROR ? build_names[b] : "?";
}

cJSON *lang_build_json(const struct lang_build_info *b)
{
        cJSON *o = cJSON_CreateObject();

        if (!o)
                return NULL;
        cJSON_AddStringToObject(o, "status", lang_build_name(b->status));
        cJSON_AddBoolToObject(o, "cached", b->status == LANG_BUILD_CACHED || b->from_cache);
        cJSON_AddNumberToObject(o, "duration", (double)(long long)(b->duration_s * 1e4) / 1e4);
        cJSON_AddNumberToObject(o, "cpu", (double)(long long)(b->cpu_s * 1e4) / 1e4);
        cJSON_AddNumberToObject(o, "max_rss_kb", (double)b->max_rss_kb);
        if (b->detail[0])
                cJSON_AddStringToObject(o, "detail", b->detail);
        if (b->message) {
                char *safe = output_utf8_sanitize(b->message, strlen(b->message));
                cJSON_AddStringToObject(o, "message", safe ? safe : "");
                free(safe);
        }
        return o;
}

void lang_build_info_free(struct lang_build_info *b)
{
        free(b->message);
        b->message = NULL;
}

void lang_job_free(struct lang_job *job)
{
        if (!job)
                return;
        if (job->build_dir)
                sbx_rm_tree(job->build_dir);
        if (job->run_dir)
                sbx_rm_tree(job->run_dir);
        free(job->build_dir);
        free(job->run_dir);
        free(job->src_name);
        free(job->stdin_path);
        strvec_free(&job->compile_argv);
        strvec_free(&job->compile_env);
        strvec_free(&job->binds);
        strvec_free(&job->run_argv);
        strvec_free(&job->run_env);
        strvec_free(&job->run_files);
        lang_build_info_free(&job->build);
        free(job);
}

const struct lang_build_info *lang_job_build(const struct lang_job *job)
{
        return &job->build;
}

const struct run_spec *lang_job_run_spec(const struct lang_job *job)
{
        return job->phase == JOB_COMPILING ? NULL : &job->run_spec;
}

void lang_job_result(const struct lang_job *job, struct run_result *res)
{
        memset(res, 0, sizeof(*res));
        res->status = RUN_FAILED;
        res->returncode = 1;
        res->tier = sandbox_tier(job->ls->sb);
        snprintf(res->detail, sizeof(res->detail), "%s", job->build.detail);
}

/* The program's argv, env and binds, from the row and the caller's
 * limits; its files are added once they are in run_dir. */
static int run_prepare(struct lang_job *job, const struct lang_program *p, struct sbx_err *err)
{
        const struct lang_row *row = job->row;
        size_t i = lang_row_index(row);
        int64_t memory = p->memory_bytes ? p->memory_bytes : sandbox_memory_bytes(job->ls->sb);
        struct lang_argv_vars vars = {
                .tool = job->ls->tool[i].path, .run_tool = job->ls->run_tool[i].path,
                .src = job->src_name, .out = "prog", .dir = job->run_dir,
                .memory_bytes = memory, .timeout_ms = p->timeout_ms,
        };
        const struct lang_support *s = job->support;

        if (lang_argv_expand(row, false, &vars, &job->run_argv, err) < 0 ||
            lang_env_expand(row, false, job->run_dir, &job->run_env, err) < 0)
                return -1;
        if ((s && strvec_extend(&job->run_env, strvec_list(&s->run_env)) < 0) ||
            strvec_extend(&job->run_env, p->env_extra) < 0)
                return sbx_fail_oom(err, "run env");
        const char *const *binds = NULL;
        if (s && s->row->bind_run) {
                if (strvec_push(&job->binds, s->dir) < 0)
                        return sbx_fail_oom(err, "binds");
                binds = strvec_list(&job->binds);
        }
        if (p->stdin_path && !(job->stdin_path = strdup(p->stdin_path)))
                return sbx_fail_oom(err, "stdin");
        job->run_spec = (struct run_spec){
                .argv = job->run_argv.items, .workdir = job->run_dir, .private_workdir = true,
                .env_extra = strvec_list(&job->run_env),
                .timeout_ms = p->timeout_ms, .cpu_limit_s = p->cpu_limit_s,
                .memory_bytes = p->memory_bytes, .ro_binds = binds,
                .stdin_path = job->stdin_path, .stdin_data = p->stdin_data,
                .stdin_len = p->stdin_len,
                .stdout_fd = p->stdout_fd, .stdout_limit_bytes = p->stdout_limit_bytes,
        };
        return 0;
}

/* run_dir's files, bound read-only into the run's private workdir. */
static int run_start(struct lang_job *job, struct sbx_run **run, struct sbx_err *err)
{
        DIR *d = opendir(job->run_dir);
        struct dirent *e;

        if (!d)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", job->run_dir);
        while ((e = readdir(d)))
                if (e->d_name[0] != '.' && strvec_push(&job->run_files, e->d_name) < 0) {
                        closedir(d);
                        return sbx_fail_oom(err, "files");
                }
        closedir(d);
        job->run_spec.workdir_files = strvec_list(&job->run_files);
        job->phase = JOB_RUNNING;
        return sbx_run_start(job->ls->sb, &job->run_spec, run, err);
}

static int job_new(struct lang_session *ls, const struct lang_program *p,
                   struct lang_job **out, struct sbx_err *err)
{
        const struct lang_row *row = p->row;
        struct lang_job *job;

        if (lang_session_prepare(ls, row, err) < 0)
                return -1;
        int64_t memory = p->memory_bytes ? p->memory_bytes : sandbox_memory_bytes(ls->sb);
        if (lang_check_memory(row, memory, err) < 0)
                return -1;
        if (!(job = calloc(1, sizeof(*job))))
                return sbx_fail_oom(err, "job");
        job->ls = ls;
        job->row = row;
        job->support = ls->support[lang_row_index(row)];
        job->src_name = strdup(p->source_name && lang_source_name_ok(row, p->source_name)
                               ? p->source_name : row->source_name);
        *out = job;
        if (!job->src_name)
                return sbx_fail_oom(err, "job");
        if (!(job->run_dir = sandbox_mkdtemp(ls->sb, err)) || run_prepare(job, p, err) < 0)
                return -1;
        return 0;
}

int lang_job_start(struct lang_session *ls, const struct lang_program *p,
                   struct lang_job **jobp, struct sbx_run **run, struct sbx_err *err)
{
        struct lang_job *job = NULL;
        int rc = -1;

        *jobp = NULL;
        if (job_new(ls, p, &job, err) < 0)
                goto out;
        if (!job->row->compile_argv) {
                if (lang_write_source(job->run_dir, job->src_name, p->source, p->source_len,
                                      err) == 0)
                        rc = run_start(job, run, err);
                goto out;
        }
        lang_compile_key(job, p);
        if (!lang_compile_lookup(job))
                rc = lang_compile_start(job, p, run, err);
        else if (job->build.status == LANG_BUILD_COMPILE_ERROR)
                rc = 1, job->phase = JOB_DONE;
        else
                rc = run_start(job, run, err);
out:
        if (rc < 0)
                lang_job_free(job);
        else
                *jobp = job;
        return rc;
}

int lang_job_next(struct lang_job *job, struct run_result *res, struct sbx_run **run,
                  struct sbx_err *err)
{
        if (job->phase != JOB_COMPILING) {
                job->phase = JOB_DONE;
                return 0;
        }
        int rc = lang_compile_finish(job, res, err);
        if (rc == 1) {
                run_result_free(res);
                return run_start(job, run, err) < 0 ? -1 : 1;
        }
        if (rc < 0)
                run_result_free(res);
        job->phase = JOB_DONE;
        return rc;
}

int lang_build_and_run(struct lang_session *ls, const struct lang_program *p,
                       const volatile sig_atomic_t *stop, struct lang_build_info *build,
                       struct run_result *res, struct sbx_err *err)
{
        struct lang_job *job;
        struct sbx_run *run = NULL;
        int rc = lang_job_start(ls, p, &job, &run, err);

        memset(build, 0, sizeof(*build));
        memset(res, 0, sizeof(*res));
        if (rc == 1)
                lang_job_result(job, res);
        while (rc == 0 || rc == 1) {
                if (rc == 1 && !run)
                        break;
                sbx_run_wait(run, stop, res);
                run = NULL;
                rc = lang_job_next(job, res, &run, err);
                if (rc == 0)
                        break;
                memset(res, 0, sizeof(*res));
        }
        if (rc >= 0 && job) {
                *build = job->build;
                job->build.message = NULL;      /* moved */
        }
        lang_job_free(job);
        return rc < 0 ? -1 : 0;
}
