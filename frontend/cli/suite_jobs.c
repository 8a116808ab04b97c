/* sbx-run --suite's jobs, the scheduler's callbacks (sched.h): a sample's
 * program written into a fresh workdir and run by the trusted driver, or
 * built and run by lang/ (a compiled language), or judged over one run a
 * test (io); its results line when its last run ended. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "suite_cli_internal.h"
#include "suite_ops.h"
#include "suite_score.h"
#include "util.h"

#define PROGRAM_NAME "program.py"

/* The run's wall backstop and CPU limit from the suite's timeout. */
struct limit_derived suite_limits(int64_t timeout_ms, size_t test_classes)
{
        return limit_derive(&(struct limit_ask){ .timeout_ms = timeout_ms, .suite = true,
                                                 .test_classes = test_classes });
}

/* Best effort: the workdir is the session's and sandbox_close removes what
 * is left, so a failure here costs disk space until the end, not a result. */
void remove_workdir(char **dir)
{
        if (*dir)
                sandbox_rmdtemp(*dir, PROGRAM_NAME);
        free(*dir);
        *dir = NULL;
}

static int write_program(const char *dir, const char *text, struct sbx_err *err)
{
        auto_free char *path = NULL;
        int fd;

        if (asprintf(&path, "%s/%s", dir, PROGRAM_NAME) < 0)
                return sbx_fail_oom(err, "program path");
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", path);
        if (sbx_write_all(fd, text, strlen(text)) < 0) {
                int e = errno;
                close(fd);
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, e, "%s", path);
        }
        if (close(fd) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", path);
        return 0;
}


/* A program in another language than Python (HumanEval-X's): built and run
 * by lang/ (suite_lang.c); a compile error the cache had ends the job at
 * once, its result written now. */
static int start_lang_job(struct suite_run *R, size_t job, const char *program, size_t units,
                          struct sbx_err *err, struct sbx_run **run)
{
        const struct suite_sample *smp = &R->suite.samples[job];
        struct limit_derived lim = suite_limits(R->timeout_ms, units);
        struct run_result res;
        int rc = suite_lang_start(&R->suite, smp, program, lim.wall_ms, lim.cpu_s, run, err);

        if (rc != 1)
                return rc;
        suite_lang_result(&R->suite, smp, &res);
        rc = suite_job_finish(R, job, &res, err);
        run_result_free(&res);
        return rc < 0 ? -1 : 1;
}

/* The sample's results line, as its verdict says. */
static int write_line(struct suite_run *R, size_t job, const struct verdict *v,
                      struct sbx_err *err)
{
        const struct suite_sample *smp = &R->suite.samples[job];
        cJSON *line = results_line_json(smp->fields, smp->index, smp->line, v, &R->meta);

        R->ran++;
        R->passed += v->passed;
        if (!line)
                return sbx_fail_oom(err, "results line");
        return results_append(&R->rf, job, line, err);
}

/* A sample judged over several runs is over: its line, then its state. */
static int judged(struct suite_run *R, size_t job, const struct verdict *v, struct sbx_err *err)
{
        int rc = write_line(R, job, v, err);

        R->suite.ops->judge_end(R->states[job]);
        R->states[job] = NULL;
        remove_workdir(&R->workdirs[job]);
        return rc;
}

/* 0 with *run, or 1: judged without a run (its line written). */
static int begin_judging(struct suite_run *R, size_t job, const char *path,
                         struct sbx_run **run, struct sbx_err *err)
{
        auto_free struct verdict *v = malloc(sizeof(*v));
        int rc;

        if (!v)
                return sbx_fail_oom(err, "verdict");
        rc = R->suite.ops->judge_begin(&R->suite, &R->suite.samples[job], R->sb, R->workdirs[job],
                                       path, &R->states[job], run, v, err);
        if (rc < 0)
                return -1;
        return rc == 1 ? 0 : judged(R, job, v, err) < 0 ? -1 : 1;
}

/* The suite's timeout applies to each of a run's units when the row counts
 * them (ClassEval: its test classes; limit_derive adds the imports' slack). */
int suite_job_start(void *vctx, size_t job, struct sbx_run **run, struct sbx_err *err)
{
        struct suite_run *R = vctx;
        const struct suite_ops *ops = R->suite.ops;
        const struct suite_sample *smp = &R->suite.samples[job];
        const struct suite_task *t = &R->suite.tasks[smp->task];
        auto_free char *program = suite_build_program(&R->suite, smp, err);
        auto_free char *path = NULL;
        static const char *const files[] = { PROGRAM_NAME, NULL };
        struct driver_argv a;
        struct run_spec spec = { 0 };
        size_t units = ops->timeout_units ? ops->timeout_units(t) : 0;

        if (!program)
                return -1;
        if (suite_language(&R->suite))
                return start_lang_job(R, job, program, units, err, run);
        if (!(R->workdirs[job] = sandbox_mkdtemp(R->sb, err)))
                return -1;
        if (write_program(R->workdirs[job], program, err) < 0 ||
            asprintf(&path, "%s/%s", R->workdirs[job], PROGRAM_NAME) < 0)
                return -1;
        if (ops->judge_begin)
                return begin_judging(R, job, path, run, err);
        if (ops->start)
                return ops->start(&R->suite, smp, R->sb, R->workdirs[job], path, run, err);
        driver_argv_init(&a, sandbox_python(R->sb));
        if (!ops->driver_args)
                driver_argv_script(&a, path);
        else if (ops->driver_args(&R->suite, smp, path, R->timeout_ms, &a, err) < 0)
                return -1;
        struct limit_derived lim = suite_limits(R->timeout_ms, units);
        spec.timeout_ms = lim.wall_ms;
        spec.cpu_limit_s = lim.cpu_s;
        spec.argv = (char *const *)a.argv;
        spec.workdir = R->workdirs[job];
        spec.private_workdir = true;
        spec.workdir_files = files;
        return sbx_run_start(R->sb, &spec, run, err);
}

/* A job's run ended. A compiled sample's compile goes on with its run
 * (suite_lang.c). A sample judged over several runs (io): each run's end
 * goes to its kind, which starts the next (1: res is ours to free) or has
 * judged it (0: its verdict waits for suite_job_finish, which the scheduler
 * calls next). */
int suite_job_next(void *vctx, size_t job, struct run_result *res, struct sbx_run **run,
                    struct sbx_err *err)
{
        struct suite_run *R = vctx;
        int rc;

        if (suite_language(&R->suite))
                return suite_lang_next(&R->suite, &R->suite.samples[job], res, run, err);
        if (!R->suite.ops->judge_step)
                return 0;
        if (!(R->verdicts[job] = malloc(sizeof(*R->verdicts[job]))))
                return sbx_fail_oom(err, "verdict");
        rc = R->suite.ops->judge_step(R->states[job], res, run, R->verdicts[job], err);
        if (rc != 0) {
                free(R->verdicts[job]);
                R->verdicts[job] = NULL;
        }
        if (rc == 1)
                run_result_free(res);
        return rc;
}

int suite_job_finish(void *vctx, size_t job, struct run_result *res, struct sbx_err *err)
{
        struct suite_run *R = vctx;
        const struct suite_sample *smp = &R->suite.samples[job];
        auto_free struct verdict *v = NULL;
        int rc;

        if (R->suite.ops->judge_step) {
                v = R->verdicts[job];
                R->verdicts[job] = NULL;
                return judged(R, job, v, err);
        }
        if (!(v = malloc(sizeof(*v))))
                return sbx_fail_oom(err, "verdict");
        remove_workdir(&R->workdirs[job]);
        suite_score(&R->suite, smp, res, v);
        rc = write_line(R, job, v, err);
        suite_lang_release(&R->suite, smp);     /* the verdict's compile strings were its */
        return rc;
}
