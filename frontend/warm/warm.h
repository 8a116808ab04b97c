/* The warm backend (docs/warm.md): a pool of zygotes, one per run in
 * flight, each a sandbox of the session's tier running sbx's trusted
 * zygote, which forks every sample into fresh namespaces of its own. The
 * run engine (sandbox/run_warm.c) opens the pool with everything a zygote
 * needs, sends it runs and is told when one is to run cold; nothing here
 * calls back up. */
#ifndef SBX_WARM_H
#define SBX_WARM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct warm_pool;
struct warm_run;

/* The session's, fixed for the pool's life (copied by warm_pool_open). */
struct warm_params {
        /* The tier's argv that starts a zygote, and its environment. argv
         * NULL: no zygote can start, for the reason in unavailable, and
         * every run goes cold. */
        char *const *zygote_argv;
        char *const *zygote_env;
        const char *unavailable;
        int64_t lifetime_ms;            /* the tier's wall clock ends a zygote then */
        int stdout_fd;                  /* /dev/null: a zygote's stdout, a run's stdin without one */
        const char *tier;               /* the tier's name, for the reasons */
        const char *python;             /* the session's: runs of `PYTHON -I -B -c` go warm */
        const char *const *sources;     /* trusted sources a zygote compiles once, or NULL */
        size_t expect;                  /* zygotes started together (warm_pool_expect) */
        /* Every sample's limits besides its own timeout, cpu and memory. */
        long long fsize, nproc, nofile, tmpfs;
        /* The admin's ceilings (0: none): a run above them runs cold, where
         * the helper refuses it as it refuses any. */
        double max_timeout_s, max_cpu_s;
};

/* 0, or -1 when out of memory. */
int warm_pool_open(struct warm_pool **out, const struct warm_params *wp);
/* Ends every zygote and reaps it. */
void warm_pool_close(struct warm_pool *p);
/* workers: how many warm runs will be in flight at once; the first starts
 * that many zygotes together, so that their starts overlap. */
void warm_pool_expect(struct warm_pool *p, size_t workers);
/* How many runs went warm and cold, and the first reason one went cold
 * (NULL: none did). p may be NULL (no warm run was tried). */
void warm_pool_counts(const struct warm_pool *p, size_t *warm, size_t *cold, const char **why);
/* The live zygotes' pids added to keep[*n..max), for the orphan sweep to
 * keep. p may be NULL. */
void warm_pool_pids(const struct warm_pool *p, pid_t *keep, size_t *n, size_t max);

/* One run, as its cold run would be; borrowed until warm_run_free. */
struct warm_request {
        char *const *argv;
        const char *workdir;            /* private and under /tmp, or the run goes cold */
        bool private_workdir;
        const char *const *files;       /* in workdir, handed to the zygote as fds */
        int stdin_fd;                   /* the run's stdin (a sealed file), -1: /dev/null */
        char *const *env;               /* the run's, in order (a later NAME wins) */
        int64_t timeout_ms, cpu_s;
        long long memory;               /* its address space: -1 none */
        int64_t outlive_ms;             /* how long its zygote must live yet */
};

/* Sends rq to a zygote (one started when none is free): 1 when the run is
 * in flight (fds: the read ends of its stdout, stderr and status line), 0
 * when it is to run cold (*out NULL, the reason counted), -1 when out of
 * memory. */
int warm_run_start(struct warm_pool *p, const struct warm_request *rq,
                   struct warm_run **out, int fds[3]);
/* The run's fds are all at EOF without a status line: its zygote died, or
 * stalled past the run's backstop and was killed (warm_run_kill). Sends it
 * again to a fresh zygote (1, fds set), or gives up on warm runs for it
 * (0: run it cold). */
int warm_run_again(struct warm_run *w, int fds[3]);
/* The run's status line said setup-error: the zygote cannot isolate a
 * sample here (a host that refuses its mounts); warm runs are given up for
 * the session, and this one is to run cold. */
void warm_run_fail_setup(struct warm_run *w, const char *status_line);
/* Asks the run's zygote to kill the run (a kill message, sent without
 * waiting): the run ends soon after, its status line says it was killed,
 * and the zygote serves on. -1 when it could not be sent (warm_run_kill
 * then). */
int warm_run_cancel(struct warm_run *w);
/* Ends the run's zygote (a deadline passed, a stop, or it retires), never
 * waiting for its tier's process. */
void warm_run_kill(struct warm_run *w);
/* The run is over: its zygote serves the next one. */
void warm_run_release(struct warm_run *w);
void warm_run_free(struct warm_run *w);

#endif
