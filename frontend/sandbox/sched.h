/* The suite scheduler: one event loop over up to -j runs in flight (poll
 * over every run's fds, the nearest deadline as the timeout), no thread or
 * blocking wait per child. */
#ifndef SBX_SCHED_H
#define SBX_SCHED_H

#include <signal.h>
#include <stddef.h>

#include "limit.h"
#include "sandbox.h"

#define SCHED_PFDS_PER_RUN 8

struct sched_ops {
        void *ctx;
        /* Starts job i. Returns 0 with *run set, 1 when the job ended without
         * a run (its result is already recorded), -1 to stop with err. */
        int (*start)(void *ctx, size_t job, struct sbx_run **run, struct sbx_err *err);
        /* The job's run ended; res is the caller's to free. -1 stops. */
        int (*done)(void *ctx, size_t job, struct run_result *res, struct sbx_err *err);
        /* Called after each wakeup (progress display); may be NULL. */
        void (*tick)(void *ctx);
        /* A job of more than one run (a compile, then the program): its
         * run ended with res. 1: it goes on with *run in the same slot
         * (res was the job's to free), 0: res is the job's last, to done,
         * -1 stops with err. NULL: every job is one run. */
        int (*next)(void *ctx, size_t job, struct run_result *res, struct sbx_run **run,
                    struct sbx_err *err);
};

enum sched_outcome {
        SCHED_DONE = 0,
        SCHED_STOPPED = 1,      /* *stop was set: runs in flight were killed */
};

/* Runs jobs[0..n) with at most parallel (1..SBX_JOBS_MAX) in flight. stop is polled between
 * wakeups; waitmask is the signal mask during ppoll (so a signal blocked
 * elsewhere wakes the loop without a race). Returns SCHED_DONE,
 * SCHED_STOPPED or -1 with err. */
int sched_run(const size_t *jobs, size_t n, int parallel, const struct sched_ops *ops,
              volatile sig_atomic_t *stop, const sigset_t *waitmask, struct sbx_err *err);

#endif
