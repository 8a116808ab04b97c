/* sched.c: sched_run with fake runs. The test links with
 * -Wl,--wrap=sbx_run_* (tests/tests.mk), so sched.c's calls reach the
 * __wrap_ functions below: a fake run has no fds, its deadline is now (the
 * loop never sleeps) and it ends after a few steps, or at once when killed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "sched.h"
#include "util.h"

#define MAX_JOBS 64

struct fake_run {
        size_t job;
        int steps_left;
        bool killed;
};

/* What the fakes and the callbacks saw. */
struct seen {
        struct fake_run runs[MAX_JOBS];
        size_t started[MAX_JOBS], n_started;    /* jobs in start order */
        int starts[MAX_JOBS], dones[MAX_JOBS], kills[MAX_JOBS];
        int inflight, max_inflight;
        size_t skip_job;                        /* start says "ended without a run" */
        size_t stop_signal_job;                 /* job + 1 whose result has stop_signal */
        bool stop_in_finish;                    /* ... and *stop is set as it ends */
        bool stop_after_grace;                  /* ... or once its hold has run out */
        bool held;                              /* that result was finished */
        size_t stop_after, fail_done_at;        /* dones before *stop / done's -1; 0: never */
        size_t n_done, started_at_stop;
        bool two_runs;                          /* even jobs go on with a second run */
        int nexts[MAX_JOBS];
        volatile sig_atomic_t *stop;
};

static struct seen S;

/* With stop_after_grace, the first poll after the held result ended is
 * a loaded machine's: the hold runs out before the loop wakes, and the stop
 * is what woke it. */
size_t __wrap_sbx_run_pollfds(const struct sbx_run *r, struct pollfd *pfds, size_t max)
{
        if (S.stop_after_grace && S.held && !*S.stop) {
                struct timespec ts = { 1, 200 * 1000 * 1000 };
                nanosleep(&ts, NULL);
                *S.stop = 1;
        }
        return 0;
}

int64_t __wrap_sbx_run_deadline_ms(const struct sbx_run *r)
{
        return sbx_now_ms();
}

int __wrap_sbx_run_step(struct sbx_run *r, const struct pollfd *pfds, size_t n)
{
        struct fake_run *f = (struct fake_run *)r;

        return f->killed || --f->steps_left <= 0;
}

void __wrap_sbx_run_finish(struct sbx_run *r, struct run_result *res)
{
        struct fake_run *f = (struct fake_run *)r;

        res->returncode = (int)f->job;
        res->stop_signal = S.stop_signal_job == f->job + 1;
        S.held |= res->stop_signal;
        if (res->stop_signal && S.stop_in_finish)
                *S.stop = 1;
        S.inflight--;
}

void __wrap_sbx_run_kill(struct sbx_run *r)
{
        struct fake_run *f = (struct fake_run *)r;

        f->killed = true;
        S.kills[f->job]++;
}

static int fake_start(void *ctx, size_t job, struct sbx_run **run, struct sbx_err *err)
{
        struct fake_run *f = &S.runs[job];

        S.starts[job]++;
        S.started[S.n_started++] = job;
        if (S.skip_job == job + 1)
                return 1;
        *f = (struct fake_run){ .job = job, .steps_left = 1 + (int)(job % 3) };
        if (++S.inflight > S.max_inflight)
                S.max_inflight = S.inflight;
        *run = (struct sbx_run *)f;
        return 0;
}

static int fake_done(void *ctx, size_t job, struct run_result *res, struct sbx_err *err)
{
        assert_int_equal(res->returncode, (int)job);    /* its own run's result */
        S.dones[job]++;
        S.n_done++;
        if (S.fail_done_at && S.n_done == S.fail_done_at)
                return sbx_fail(err, 0, "done failed on job %zu", job);
        if (S.stop_after && S.n_done == S.stop_after) {
                *S.stop = 1;
                S.started_at_stop = S.n_started;
        }
        return 0;
}

/* With two_runs, an even job is a compile then a run: its first run's
 * end starts its second in the same slot. */
static int fake_next(void *ctx, size_t job, struct run_result *res, struct sbx_run **run,
                     struct sbx_err *err)
{
        struct fake_run *f = &S.runs[job];

        S.nexts[job]++;
        if (!S.two_runs || job % 2 || S.nexts[job] > 1)
                return 0;
        run_result_free(res);
        *f = (struct fake_run){ .job = job, .steps_left = 2 };
        S.inflight++;
        *run = (struct sbx_run *)f;
        return 1;
}

static const struct sched_ops ops = { .start = fake_start, .done = fake_done, .next = fake_next };

static int run(const size_t *jobs, size_t n, int parallel, volatile sig_atomic_t *stop,
               struct sbx_err *err)
{
        sigset_t mask;

        sigemptyset(&mask);
        return sched_run(jobs, n, parallel, &ops, stop, &mask, err);
}

/* Jobs 0..MAX_JOBS-1, in order: the tests take the first n. */
static const size_t *in_order(void)
{
        static size_t jobs[MAX_JOBS];

        for (size_t i = 0; i < MAX_JOBS; i++)
                jobs[i] = i;
        return jobs;
}

static int reset(void **state)
{
        memset(&S, 0, sizeof(S));
        return 0;
}

static void jobs_start_in_the_order_given_and_each_ends_once(void **state)
{
        static const size_t jobs[] = { 7, 2, 9, 0, 4, 1, 8, 3, 6, 5 };
        size_t n = sizeof(jobs) / sizeof(jobs[0]);
        struct sbx_err err = { 0 };

        assert_int_equal(run(jobs, n, 3, NULL, &err), SCHED_DONE);
        assert_int_equal(S.n_started, n);
        for (size_t i = 0; i < n; i++) {
                assert_int_equal(S.started[i], jobs[i]);
                assert_int_equal(S.starts[jobs[i]], 1);
                assert_int_equal(S.dones[jobs[i]], 1);
                assert_int_equal(S.kills[jobs[i]], 0);
        }
        assert_int_equal(S.inflight, 0);
}

static void at_most_j_runs_are_in_flight(void **state)
{
        const size_t *jobs = in_order();
        struct sbx_err err = { 0 };

        for (int j = 1; j <= 8; j *= 2) {
                reset(state);
                assert_int_equal(run(jobs, 40, j, NULL, &err), SCHED_DONE);
                assert_int_equal(S.max_inflight, j);    /* filled, never past it */
                assert_int_equal(S.n_done, 40);
        }
        reset(state);
        assert_int_equal(run(jobs, 3, 8, NULL, &err), SCHED_DONE);
        assert_int_equal(S.max_inflight, 3);
}

static void a_job_that_ends_without_a_run_frees_its_slot(void **state)
{
        static const size_t jobs[] = { 0, 1, 2, 3 };
        struct sbx_err err = { 0 };

        S.skip_job = 2 + 1;
        assert_int_equal(run(jobs, 4, 1, NULL, &err), SCHED_DONE);
        assert_int_equal(S.starts[2], 1);
        assert_int_equal(S.dones[2], 0);        /* its result is the caller's */
        assert_int_equal(S.n_done, 3);
}

static void a_stop_kills_the_runs_in_flight_and_starts_no_more(void **state)
{
        const size_t *jobs = in_order();
        volatile sig_atomic_t stop = 0;
        struct sbx_err err = { 0 };

        S.stop = &stop;
        S.stop_after = 5;
        assert_int_equal(run(jobs, 20, 4, &stop, &err), SCHED_STOPPED);
        /* the runs that ended in the same wakeup are recorded too */
        assert_true(S.n_done >= 5 && S.n_done <= 5 + 3);
        assert_int_equal(S.n_started, S.started_at_stop);
        int killed = 0;
        for (size_t i = 0; i < S.n_started; i++) {
                size_t job = S.started[i];
                assert_int_equal(S.dones[job] + S.kills[job], 1);  /* one or the other */
                killed += S.kills[job];
        }
        assert_int_equal(killed, (int)(S.n_started - S.n_done));
        assert_true(killed > 0);
        assert_int_equal(S.inflight, 0);        /* every killed run was finished */
}

static void a_stop_before_the_first_start_runs_nothing(void **state)
{
        static const size_t jobs[] = { 0, 1 };
        volatile sig_atomic_t stop = 1;
        struct sbx_err err = { 0 };

        assert_int_equal(run(jobs, 2, 2, &stop, &err), SCHED_STOPPED);
        assert_int_equal(S.n_started, 0);
}

static void a_failing_done_stops_with_its_error(void **state)
{
        const size_t *jobs = in_order();
        struct sbx_err err = { 0 };

        S.fail_done_at = 2;
        assert_int_equal(run(jobs, 10, 3, NULL, &err), -1);
        assert_non_null(strstr(err.msg, "done failed"));
        assert_int_equal(S.inflight, 0);        /* the rest were killed and reaped */
        assert_true(S.n_started < 10);
}

/* A candidate killed by SIGTERM may be the job's stop reaching the
 * candidates before sbx-run: its result waits out the grace, then counts. */
static void a_result_that_may_be_a_stop_is_held_then_kept(void **state)
{
        const size_t *jobs = in_order();
        struct sbx_err err = { 0 };

        S.stop_signal_job = 1 + 1;
        int64_t t0 = sbx_now_ms();
        assert_int_equal(run(jobs, 4, 1, NULL, &err), SCHED_DONE);
        assert_true(sbx_now_ms() - t0 >= 1000);
        assert_int_equal(S.n_done, 4);
        assert_int_equal(S.dones[1], 1);
        assert_int_equal(S.max_inflight, 1);    /* its slot stayed taken */
}

/* ... and is dropped when the stop comes: --resume runs it again. */
static void a_stop_during_the_hold_drops_the_held_result(void **state)
{
        const size_t *jobs = in_order();
        volatile sig_atomic_t stop = 0;
        struct sbx_err err = { 0 };

        S.stop = &stop;
        S.stop_signal_job = 2 + 1;
        S.stop_in_finish = true;
        assert_int_equal(run(jobs, 6, 1, &stop, &err), SCHED_STOPPED);
        assert_int_equal(S.dones[0] + S.dones[1], 2);
        assert_int_equal(S.dones[2], 0);
        assert_int_equal(S.n_started, 3);
        assert_int_equal(S.inflight, 0);
}

/* ... also when the stop is seen only after the hold ran out (the signal
 * is delivered in ppoll, and a loaded machine wakes the loop late). */
static void a_stop_seen_after_the_hold_ran_out_still_drops_it(void **state)
{
        static const size_t jobs[] = { 0, 1 };
        volatile sig_atomic_t stop = 0;
        struct sbx_err err = { 0 };

        S.stop = &stop;
        S.stop_signal_job = 0 + 1;
        S.stop_after_grace = true;
        assert_int_equal(run(jobs, 2, 2, &stop, &err), SCHED_STOPPED);
        assert_int_equal(S.dones[0], 0);
        assert_int_equal(S.inflight, 0);
}

/* A job of two runs (a compile, then the program) keeps its slot between
 * them, and only its last run's result is done; the others are one run. */
static void a_job_goes_on_with_its_next_run_in_its_slot(void **state)
{
        const size_t *jobs = in_order();
        struct sbx_err err = { 0 };

        S.two_runs = true;
        assert_int_equal(run(jobs, 10, 2, NULL, &err), SCHED_DONE);
        assert_int_equal(S.n_done, 10);
        for (size_t j = 0; j < 10; j++) {
                assert_int_equal(S.dones[j], 1);
                assert_int_equal(S.starts[j], 1);
                assert_int_equal(S.nexts[j], j % 2 ? 1 : 2);
        }
        assert_int_equal(S.max_inflight, 2);
        assert_int_equal(S.inflight, 0);
}

static void j_outside_one_to_the_ceiling_is_refused(void **state)
{
        static const size_t jobs[] = { 0 };
        struct sbx_err err = { 0 };

        assert_int_equal(run(jobs, 1, 0, NULL, &err), -1);
        assert_int_equal(run(jobs, 1, SBX_JOBS_MAX + 1, NULL, &err), -1);
        assert_non_null(strstr(err.msg, "-j"));
        assert_int_equal(S.n_started, 0);
        assert_int_equal(run(jobs, 1, SBX_JOBS_MAX, NULL, &err), SCHED_DONE);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup(jobs_start_in_the_order_given_and_each_ends_once, reset),
                cmocka_unit_test_setup(at_most_j_runs_are_in_flight, reset),
                cmocka_unit_test_setup(a_job_that_ends_without_a_run_frees_its_slot, reset),
                cmocka_unit_test_setup(a_stop_kills_the_runs_in_flight_and_starts_no_more, reset),
                cmocka_unit_test_setup(a_stop_before_the_first_start_runs_nothing, reset),
                cmocka_unit_test_setup(a_failing_done_stops_with_its_error, reset),
                cmocka_unit_test_setup(a_result_that_may_be_a_stop_is_held_then_kept, reset),
                cmocka_unit_test_setup(a_stop_during_the_hold_drops_the_held_result, reset),
                cmocka_unit_test_setup(a_stop_seen_after_the_hold_ran_out_still_drops_it, reset),
                cmocka_unit_test_setup(a_job_goes_on_with_its_next_run_in_its_slot, reset),
                cmocka_unit_test_setup(j_outside_one_to_the_ceiling_is_refused, reset),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
