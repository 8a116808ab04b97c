/* Warm suites' zygote pool (docs/warm.md): start a zygote in the session's
 * tier from the argv the engine handed down, hand it what it needs once
 * (warm_init.c), and replace it when it dies or nears its end of life.
 * warm_run.c sends it one sample at a time. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "trace.h"
#include "warm_init.h"
#include "warm_pool.h"

#define ZYGOTE_MARGIN_MS    5000        /* no run may end after its zygote */
#define ZYGOTE_END_MS       5000        /* for the tier's process, once its zygote is killed */

/* The pool keeps its own copy of what the session handed it. */
static int copy_params(struct warm_pool *p, const struct warm_params *wp)
{
        const char *const *lists[] = { (const char *const *)wp->zygote_argv,
                                       (const char *const *)wp->zygote_env, wp->sources };
        struct strvec *into[] = { &p->argv, &p->env, &p->sources };
        const char *strs[] = { wp->unavailable, wp->tier, wp->python };
        char **copies[] = { &p->unavailable, &p->tier, &p->python };

        p->wp = *wp;
        p->expect = wp->expect;
        for (size_t i = 0; i < 3; i++) {
                if (strvec_extend(into[i], lists[i]) < 0 ||
                    (strs[i] && !(*copies[i] = strdup(strs[i]))))
                        return -1;
        }
        p->wp.zygote_argv = wp->zygote_argv ? p->argv.items : NULL;
        p->wp.zygote_env = p->env.items;
        p->wp.sources = (const char *const *)p->sources.items;
        p->wp.unavailable = p->unavailable;
        p->wp.tier = p->tier;
        p->wp.python = p->python;
        return 0;
}

int warm_pool_open(struct warm_pool **out, const struct warm_params *wp)
{
        struct warm_pool *p = calloc(1, sizeof(*p));

        if (!p)
                return -1;
        if (copy_params(p, wp) < 0) {
                warm_pool_close(p);
                return -1;
        }
        *out = p;
        return 0;
}

void warm_go_cold(struct warm_pool *p, bool for_good, const char *why)
{
        p->cold++;
        if (!p->cold_why[0])
                snprintf(p->cold_why, sizeof(p->cold_why), "%.500s", why);
        p->off |= for_good;
}

static int pool_add_ending(struct warm_pool *p, pid_t pid)
{
        if (p->n_ending == p->cap_ending) {
                size_t cap = p->cap_ending ? 2 * p->cap_ending : 8;
                pid_t *grown = realloc(p->ending, cap * sizeof(*grown));
                if (!grown)
                        return -1;
                p->ending = grown;
                p->cap_ending = cap;
        }
        p->ending[p->n_ending++] = pid;
        return 0;
}

/* The zygote itself is killed (with it every run of its pid namespace),
 * then the tier's process, which ends with it, is reaped when it has
 * ended: now, or later (warm_pool_reap). In the helper tier that process
 * is the root-owned helper, which our kill cannot reach (EPERM) and which
 * takes its time to end after its zygote: waiting for it here would hold
 * every other run of the session (a server's clients) meanwhile. */
void warm_zygote_end(struct warm_pool *p, struct zygote *z)
{
        if (z->pid <= 0)
                return;
        close(z->ctl);
        if (z->pidfd >= 0) {
                (void)syscall(SYS_pidfd_send_signal, z->pidfd, SIGKILL, NULL, 0);
                close(z->pidfd);
        }
        kill(z->pid, SIGKILL);
        if (waitpid(z->pid, NULL, WNOHANG) != z->pid && pool_add_ending(p, z->pid) < 0 &&
            proc_reap_within(z->pid, ZYGOTE_END_MS) < 0)
                sbx_trace("zygote's tier process left to the sweep");
        z->pid = z->pidfd = -1;
        z->busy = z->starting = false;
}

void warm_pool_reap(struct warm_pool *p)
{
        for (size_t i = 0; p && i < p->n_ending;) {
                pid_t w = waitpid(p->ending[i], NULL, WNOHANG);
                if (w == p->ending[i] || (w < 0 && errno == ECHILD))
                        p->ending[i] = p->ending[--p->n_ending];
                else
                        i++;
        }
}

/* At the pool's end: the ended zygotes' tier processes, ZYGOTE_END_MS
 * for them all; one that does not end is left to the orphan sweep. */
static void pool_reap_ending(struct warm_pool *p)
{
        int64_t until = sbx_now_ms() + ZYGOTE_END_MS;

        for (size_t i = 0; i < p->n_ending; i++) {
                int64_t left = until - sbx_now_ms();
                if (proc_reap_within(p->ending[i], left > 0 ? (int)left : 0) < 0)
                        sbx_trace("zygote's tier process left to the sweep");
        }
        p->n_ending = 0;
}

/* Spawns a zygote into slot z; zygote_ready then waits for it. */
static int zygote_spawn(struct warm_pool *p, struct zygote *z, char *why, size_t whylen)
{
        struct sbx_err err = { 0 };
        int sv[2] = { -1, -1 };

        /* SO_PASSCRED: the ready message then says who the zygote is */
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
            setsockopt(sv[0], SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int)) < 0) {
                snprintf(why, whylen, "socketpair: %s", strerror(errno));
                if (sv[0] >= 0) {
                        close(sv[0]);
                        close(sv[1]);
                }
                return -1;
        }
        struct proc_spec ps = {
                .path = p->wp.zygote_argv[0], .argv = p->wp.zygote_argv,
                .envp = p->wp.zygote_env,
                .stdin_fd = sv[1], .stdout_fd = p->wp.stdout_fd, .stderr_fd = STDERR_FILENO,
                .extra_fd = { -1, -1 },
        };
        pid_t pid = proc_spawn(&ps, &err);
        close(sv[1]);
        if (pid < 0) {
                snprintf(why, whylen, "%.200s", err.msg);
                close(sv[0]);
                return -1;
        }
        *z = (struct zygote){ .pid = pid, .pidfd = -1, .ctl = sv[0], .starting = true,
                              .expires_ms = sbx_now_ms() + p->wp.lifetime_ms - ZYGOTE_MARGIN_MS };
        sbx_trace("zygote spawned");
        return 0;
}

/* A spawned zygote's ready line read and its init sent; else it is ended. */
static int zygote_ready(struct warm_pool *p, struct zygote *z, char *why, size_t whylen)
{
        z->starting = false;
        if (!warm_wait_ready(z->ctl, &z->pidfd) || warm_send_init(z->ctl, p->wp.sources) < 0) {
                snprintf(why, whylen, "the zygote did not start in tier %s (its stderr says why)",
                         p->wp.tier);
                warm_zygote_end(p, z);
                return -1;
        }
        sbx_trace("zygote ready");
        return 0;
}

/* Room for n slots in the pool; new ones free. */
static int pool_reserve(struct warm_pool *p, size_t n)
{
        if (n <= p->n)
                return 0;
        struct zygote *grown = realloc(p->z, n * sizeof(*grown));
        if (!grown)
                return -1;
        p->z = grown;
        while (p->n < n)
                p->z[p->n++] = (struct zygote){ .pid = -1, .pidfd = -1, .ctl = -1 };
        return 0;
}

/* The zygote in slot i spawned, and with it the others the pool expects
 * (warm_pool_expect) in free slots, so that their starts (the tier's, the
 * interpreter's, each ~0.1 s) overlap instead of each waiting for the one
 * before; then slot i's made ready. */
static struct zygote *zygote_start(struct warm_pool *p, size_t i, char *why, size_t whylen)
{
        char ignored[256];

        if (zygote_spawn(p, &p->z[i], why, whylen) < 0)
                return NULL;
        size_t live = 0;
        for (size_t k = 0; k < p->n; k++)
                live += p->z[k].pid > 0;
        for (size_t k = 0; k < p->n && live < p->expect; k++)
                if (p->z[k].pid <= 0 && zygote_spawn(p, &p->z[k], ignored, sizeof(ignored)) == 0)
                        live++;         /* one that fails is started again when a run needs it */
        return zygote_ready(p, &p->z[i], why, whylen) < 0 ? NULL : &p->z[i];
}

struct zygote *warm_zygote_for(struct warm_pool *p, int64_t run_ms, char *why, size_t whylen)
{
        int64_t now = sbx_now_ms();
        size_t free_slot = SIZE_MAX;

        warm_pool_reap(p);
        if (pool_reserve(p, p->expect) < 0) {
                snprintf(why, whylen, "out of memory");
                return NULL;
        }
        for (size_t i = 0; i < p->n; i++) {
                struct zygote *z = &p->z[i];
                if (z->pid > 0 && !z->busy && z->expires_ms < now + run_ms)
                        warm_zygote_end(p, z);  /* too old for this run */
                if (z->pid > 0 && !z->busy)
                        return z->starting && zygote_ready(p, z, why, whylen) < 0 ? NULL : z;
                if (z->pid <= 0 && free_slot == SIZE_MAX)
                        free_slot = i;
        }
        if (free_slot == SIZE_MAX) {
                free_slot = p->n;
                if (pool_reserve(p, p->n + 1) < 0) {
                        snprintf(why, whylen, "out of memory");
                        return NULL;
                }
        }
        return zygote_start(p, free_slot, why, whylen);
}

void warm_pool_expect(struct warm_pool *p, size_t workers)
{
        p->expect = workers;
}

void warm_pool_pids(const struct warm_pool *p, pid_t *keep, size_t *n, size_t max)
{
        for (size_t i = 0; p && i < p->n && *n < max; i++)
                if (p->z[i].pid > 0)
                        keep[(*n)++] = p->z[i].pid;
        for (size_t i = 0; p && i < p->n_ending && *n < max; i++)
                keep[(*n)++] = p->ending[i];
}

void warm_pool_close(struct warm_pool *p)
{
        if (!p)
                return;
        for (size_t i = 0; i < p->n; i++)
                warm_zygote_end(p, &p->z[i]);
        pool_reap_ending(p);
        free(p->ending);
        free(p->z);
        strvec_free(&p->argv);
        strvec_free(&p->env);
        strvec_free(&p->sources);
        free(p->unavailable);
        free(p->tier);
        free(p->python);
        free(p);
}

void warm_pool_counts(const struct warm_pool *p, size_t *warm, size_t *cold, const char **why)
{
        *warm = p ? p->warm : 0;
        *cold = p ? p->cold : 0;
        *why = p && p->cold_why[0] ? p->cold_why : NULL;
}
