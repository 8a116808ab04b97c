/* The event loop behind -j: starts runs while slots are free, sleeps in
 * ppoll until output, exit or the nearest deadline, and steps every run. */
#include <errno.h>
#include <stdbool.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sched.h"
#include "util.h"

/* How long a result that may be a stop's (run_result.stop_signal) is held
 * back: a scheduler's cancel signals every process of the job, and ours can
 * come a little after the candidates' (later still on a loaded machine,
 * where the canceller itself is preempted between its kills). */
#define SCHED_STOP_GRACE_MS 1000

struct slot {
        struct sbx_run *run;    /* NULL = no run in flight */
        size_t job;
        size_t pfd_off, npfd;
        bool held;              /* run ended, result held until held_until */
        int64_t held_until;
        struct run_result held_res;
};

struct loop {
        struct slot *slots;
        struct pollfd *pfds;
        int parallel, inflight;
};

static int fill_slots(struct loop *L, const size_t *jobs, size_t n, size_t *next,
                      const struct sched_ops *ops, struct sbx_err *err)
{
        for (int i = 0; i < L->parallel && *next < n; i++) {
                if (L->slots[i].run || L->slots[i].held)
                        continue;
                struct sbx_run *run = NULL;
                size_t job = jobs[(*next)++];
                int rc = ops->start(ops->ctx, job, &run, err);
                if (rc < 0)
                        return -1;
                if (rc == 1) {
                        i--;            /* slot still free: try the next job */
                        continue;
                }
                L->slots[i].run = run;
                L->slots[i].job = job;
                L->inflight++;
        }
        return 0;
}

/* Poll timeout: until the nearest deadline, never negative. */
static int64_t collect_pfds(struct loop *L, size_t *npfd)
{
        int64_t nearest = INT64_MAX;

        *npfd = 0;
        for (int i = 0; i < L->parallel; i++) {
                struct slot *s = &L->slots[i];
                if (s->held && s->held_until < nearest)
                        nearest = s->held_until;
                if (!s->run)
                        continue;
                s->pfd_off = *npfd;
                s->npfd = sbx_run_pollfds(s->run, L->pfds + *npfd, SCHED_PFDS_PER_RUN);
                *npfd += s->npfd;
                int64_t d = sbx_run_deadline_ms(s->run);
                if (d < nearest)
                        nearest = d;
        }
        int64_t wait = nearest - sbx_now_ms();
        return wait < 0 ? 0 : wait;
}

/* The slot's run ended with res: to ops->done, or, with ops NULL (a stop),
 * dropped: resume runs it again. A result that may be the job's stop is
 * held back (SCHED_STOP_GRACE_MS) and dropped if the stop comes. */
static int settle(struct loop *L, struct slot *s, struct run_result *res,
                  const struct sched_ops *ops, struct sbx_err *err)
{
        int rc = 0;

        if (ops && res->stop_signal && !s->held) {
                s->held = true;
                s->held_until = sbx_now_ms() + SCHED_STOP_GRACE_MS;
                s->held_res = *res;
                return 0;
        }
        s->held = false;
        if (ops && ops->next) {
                struct sbx_run *run = NULL;
                int more = ops->next(ops->ctx, s->job, res, &run, err);
                if (more < 0)
                        rc = -1;
                if (more == 1) {        /* the slot's job goes on */
                        s->run = run;
                        return 0;
                }
        }
        L->inflight--;
        if (rc == 0 && ops && ops->done(ops->ctx, s->job, res, err) < 0)
                rc = -1;
        run_result_free(res);
        return rc;
}

/* Steps every run in flight and every held result whose time is up. */
static int step_all(struct loop *L, const struct sched_ops *ops, struct sbx_err *err)
{
        int rc = 0;

        for (int i = 0; i < L->parallel; i++) {
                struct slot *s = &L->slots[i];
                struct run_result res;
                if (s->held && (!ops || sbx_now_ms() >= s->held_until)) {
                        res = s->held_res;
                        if (settle(L, s, &res, rc == 0 ? ops : NULL, err) < 0)
                                rc = -1;
                        continue;
                }
                if (!s->run || sbx_run_step(s->run, L->pfds + s->pfd_off, s->npfd) != 1)
                        continue;
                memset(&res, 0, sizeof(res));
                sbx_run_finish(s->run, &res);
                s->run = NULL;
                if (settle(L, s, &res, rc == 0 ? ops : NULL, err) < 0)
                        rc = -1;
        }
        return rc;
}

/* On a stop: kill every run at once, then reap them; no result is kept for
 * them or for the held ones (resume runs them again). */
static void kill_all(struct loop *L)
{
        for (int i = 0; i < L->parallel; i++)
                if (L->slots[i].run)
                        sbx_run_kill(L->slots[i].run);
        while (L->inflight > 0) {
                size_t npfd;
                int64_t wait = collect_pfds(L, &npfd);
                poll(L->pfds, npfd, (int)(wait > 100 ? 100 : wait));
                step_all(L, NULL, NULL);
        }
}

int sched_run(const size_t *jobs, size_t n, int parallel, const struct sched_ops *ops,
              volatile sig_atomic_t *stop, const sigset_t *waitmask, struct sbx_err *err)
{
        struct loop L = { 0 };
        size_t next = 0;
        int rc = SCHED_DONE;

        if (parallel < 1 || parallel > SBX_JOBS_MAX)
                return sbx_fail(err, 0, "-j %d: must be 1..%d", parallel, SBX_JOBS_MAX);
        L.parallel = parallel;
        L.slots = calloc((size_t)parallel, sizeof(*L.slots));
        L.pfds = calloc((size_t)parallel * SCHED_PFDS_PER_RUN, sizeof(*L.pfds));
        if (!L.slots || !L.pfds) {
                free(L.slots);
                free(L.pfds);
                return sbx_fail_oom(err, "scheduler");
        }
        while (next < n || L.inflight > 0) {
                if (stop && *stop) {
                        rc = SCHED_STOPPED;
                        break;
                }
                if (fill_slots(&L, jobs, n, &next, ops, err) < 0) {
                        rc = -1;
                        break;
                }
                if (L.inflight == 0)
                        continue;
                size_t npfd;
                int64_t wait = collect_pfds(&L, &npfd);
                struct timespec ts = { wait / 1000, (wait % 1000) * 1000000 };
                if (ppoll(L.pfds, npfd, &ts, waitmask) < 0 && errno != EINTR) {
                        rc = sbx_fail(err, errno, "ppoll");
                        break;
                }
                /* Our stop is only delivered inside ppoll: one that came
                 * while a held result's time ran out (a loaded machine)
                 * must drop that result, not let step_all keep it. */
                if (stop && *stop) {
                        rc = SCHED_STOPPED;
                        break;
                }
                if (step_all(&L, ops, err) < 0) {
                        rc = -1;
                        break;
                }
                if (ops->tick)
                        ops->tick(ops->ctx);
        }
        kill_all(&L);
        free(L.slots);
        free(L.pfds);
        return rc;
}
