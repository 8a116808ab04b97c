/* sbx-run --suite's state (suite_cli.c) and its jobs (suite_jobs.c): the
 * scheduler's callbacks, which start each sample's run (or its compile, or
 * its first test), carry it on and write its results line. */
#ifndef SBX_SUITE_CLI_INTERNAL_H
#define SBX_SUITE_CLI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cli.h"
#include "results.h"
#include "sandbox.h"
#include "suite.h"

struct suite_run {
        struct cli_opts *opts;
        struct suite suite;
        struct sandbox *sb;
        struct results_file rf;
        struct result_meta meta;
        char **workdirs;                /* per sample, while its run is in flight */
        void **states;                  /* per sample judged over several runs (io), meanwhile */
        struct verdict **verdicts;      /* ... and its verdict, from next_job to finish_job */
        int64_t timeout_ms;
        bool *task_on;                  /* by task index: --tasks chose it (all without) */
        size_t selected, ran, passed, tasks_unrun;
        int64_t started_ms, last_progress_ms;
        bool progress;
};

/* The run's wall backstop and CPU limit from the suite's timeout. */
struct limit_derived suite_limits(int64_t timeout_ms, size_t test_classes);
/* Removes a sample's workdir (best effort) and clears *dir. */
void remove_workdir(char **dir);
/* sched_ops's start, next and done (sched.h), ctx a struct suite_run. */
int suite_job_start(void *vctx, size_t job, struct sbx_run **run, struct sbx_err *err);
int suite_job_next(void *vctx, size_t job, struct run_result *res, struct sbx_run **run,
                   struct sbx_err *err);
int suite_job_finish(void *vctx, size_t job, struct run_result *res, struct sbx_err *err);

#endif
