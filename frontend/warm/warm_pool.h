/* The pool's state, shared by warm.c (the zygotes) and warm_run.c (the
 * runs sent to them). Private to warm/. */
#ifndef SBX_WARM_POOL_H
#define SBX_WARM_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"
#include "warm.h"

struct zygote {
        pid_t pid;              /* the tier's process; -1: the slot is free */
        int pidfd;              /* the zygote itself, once ready; -1: none */
        int ctl;                /* our end of its control socket */
        int64_t expires_ms;     /* the tier's wall clock ends it then */
        bool busy;
        bool starting;          /* spawned; its ready line not read, its init not sent */
};

struct warm_pool {
        struct warm_params wp;  /* its lists point into the strvecs below */
        struct strvec argv, env, sources;
        char *unavailable, *tier, *python;
        struct zygote *z;
        size_t n;
        size_t expect;          /* zygotes started together (warm_pool_expect) */
        bool off;               /* warm runs given up for the session */
        /* The tier processes of ended zygotes, not yet reaped: ending one
         * never waits (in the helper tier that process is root's, which our
         * kill cannot reach; it ends after its zygote, in its own time). */
        pid_t *ending;
        size_t n_ending, cap_ending;
        size_t warm, cold;
        char cold_why[512];
};

/* A run goes cold: counted, the first reason kept; for_good gives warm
 * runs up for the session. */
void warm_go_cold(struct warm_pool *p, bool for_good, const char *why);
/* A free zygote that lives run_ms yet, started when there is none; NULL
 * with why. */
struct zygote *warm_zygote_for(struct warm_pool *p, int64_t run_ms, char *why, size_t whylen);
/* Kills the zygote; its slot is free at once, its tier's process reaped
 * later (warm_pool_reap), never waited for here. */
void warm_zygote_end(struct warm_pool *p, struct zygote *z);
/* Reaps the ended zygotes' tier processes that have ended (WNOHANG). */
void warm_pool_reap(struct warm_pool *p);

#endif
