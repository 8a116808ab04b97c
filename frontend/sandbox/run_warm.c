/* The warm backend's row (docs/warm.md): a run of the session's
 * `python -I -B -c` sent to a zygote of the session's pool (warm/, behind
 * warm.h), its status line read as the helper's whatever the tier. When
 * the pool declines the run or gives it up, run.c runs it cold. The pool
 * opens at the first warm run, handed everything a zygote needs: its argv
 * in the tier, its environment, the helper's defaults and ceilings, the
 * trusted sources. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "run_internal.h"
#include "sandbox_impl.h"
#include "trace.h"
#include "util.h"
#include "warm.h"
#include "zygote.h"

#define ZYGOTE_LIFETIME_MS  (3600LL * 1000)
#define ZYGOTE_NPROC_EXTRA  8           /* the zygote's two, B0, B1 and C count too */
#define ZYGOTE_MEMORY_EXTRA (64LL << 20) /* room for a sample's RLIMIT_AS (docs/warm.md) */
#define WARM_GRACE_MS       3000        /* the zygote's own clock ends the run first */
#define WARM_KILL_MS        2000        /* for a killed run's zygote to end it, else it is ended */

/* What a warm run needs again when its zygote dies, or to run cold: the
 * spec, copied, and the request the pool borrows. */
struct run_warm {
        struct strvec argv, files, env_extra, env;
        struct run_spec spec;
        char *workdir;
        struct warm_request rq;
        struct warm_run *w;
        bool kill_sent;                 /* its zygote was asked to kill it */
};

/* How long a zygote may live and what it may use: the helper's ceilings
 * bound them there; the samples' own limits are set per sample. */
static void zygote_params(const struct sandbox *sb, const struct helper_limits *deflt,
                          const struct helper_limits *max, struct zygote_params *zp)
{
        /* The helper's max_zygote_life; an older helper's zygote lives at
         * most its max_timeout, as any run there. */
        double ceiling_s = max->zygote_life_s > 0 ? max->zygote_life_s : max->timeout_s;

        zp->lifetime_ms = ZYGOTE_LIFETIME_MS;
        if (ceiling_s > 0 && ceiling_s * 1000 < zp->lifetime_ms)
                zp->lifetime_ms = (long long)(ceiling_s * 1000);
        zp->cpu_s = zp->lifetime_ms / 1000;
        if (max->cpu_s > 0 && max->cpu_s < zp->cpu_s)
                zp->cpu_s = (long long)max->cpu_s;
        zp->nproc = deflt->nproc > 0 ? deflt->nproc + ZYGOTE_NPROC_EXTRA : 0;
        if (max->nproc > 0 && zp->nproc > max->nproc)
                zp->nproc = max->nproc;
        zp->memory_bytes = sb->opts.memory_bytes < 0 ? -1 :
                           sb->opts.memory_bytes + ZYGOTE_MEMORY_EXTRA;
        if (max->memory > 0 && zp->memory_bytes > max->memory)
                zp->memory_bytes = max->memory;
}

/* Outside the helper a cold run inherits sbx-run's own soft limit (in a
 * user namespace of its own, where RLIMIT_NPROC counts): so does C. */
static long long inherited_limit(int resource)
{
        struct rlimit rl;

        if (getrlimit(resource, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1ULL << 31))
                return 1LL << 31;
        return (long long)rl.rlim_cur;
}

/* The pool, opened with the session's zygote argv and the samples' limits
 * (the helper's defaults are theirs too, nproc and nofile, as in a cold
 * run, which leaves them to the helper). */
static int pool_open(struct sandbox *sb, struct sbx_err *err)
{
        struct helper_limits deflt, max;
        struct strvec argv = { 0 }, env = { 0 };
        char *zargv[] = { sb->python, "-I", "-B", "-c", (char *)sbx_zygote_source, NULL };
        struct zygote_params zp = { .env = sb->env.items, .argv = zargv };
        struct sbx_err e = { 0 };
        char why[300] = "";

        sandbox_helper_limits(sb, &deflt, &max);
        zygote_params(sb, &deflt, &max, &zp);
        if (!sb->tier->build_zygote)
                snprintf(why, sizeof(why), "tier %s cannot start a zygote", sb->tier->name);
        else if (sandbox_zygote_argv(sb, &zp, &argv, &e) < 0 ||
                 env_build((const char *const *)sb->env.items, "/tmp", NULL, &env) < 0)
                snprintf(why, sizeof(why), "warm runs given up: %.250s",
                         e.msg[0] ? e.msg : "out of memory");
        struct warm_params wp = {
                .zygote_argv = why[0] ? NULL : argv.items, .zygote_env = env.items,
                .unavailable = why, .lifetime_ms = zp.lifetime_ms, .stdout_fd = sb->devnull_fd,
                .tier = sb->tier->name, .python = sb->python, .sources = sb->opts.warm_sources,
                .expect = sb->warm_expect,
                .fsize = sb->opts.fsize_bytes,
                .nproc = deflt.nproc > 0 ? deflt.nproc : inherited_limit(RLIMIT_NPROC),
                .nofile = deflt.nofile > 0 ? deflt.nofile : inherited_limit(RLIMIT_NOFILE),
                .tmpfs = DEFAULT_WORKDIR_BYTES,
                .max_timeout_s = max.timeout_s, .max_cpu_s = max.cpu_s,
        };
        int rc = warm_pool_open(&sb->warm, &wp);
        strvec_free(&argv);
        strvec_free(&env);
        return rc < 0 ? sbx_fail_oom(err, "warm pool") : 0;
}

void run_warm_free(struct run_warm *st)
{
        if (!st)
                return;
        warm_run_free(st->w);
        strvec_free(&st->argv);
        strvec_free(&st->files);
        strvec_free(&st->env_extra);
        strvec_free(&st->env);
        free(st->workdir);
        free(st);
}

static struct run_warm *spec_copy(const struct run_spec *spec)
{
        struct run_warm *st = calloc(1, sizeof(*st));

        if (!st || strvec_extend(&st->argv, (const char *const *)spec->argv) < 0 ||
            strvec_extend(&st->files, spec->workdir_files) < 0 ||
            strvec_extend(&st->env_extra, spec->env_extra) < 0 || !(st->workdir = strdup(spec->workdir))) {
                run_warm_free(st);
                return NULL;
        }
        st->spec = *spec;
        st->spec.stdin_path = st->spec.stdin_data = NULL;      /* in the run's stdin_fd */
        st->spec.argv = st->argv.items;
        st->spec.workdir = st->workdir;
        st->spec.workdir_files = (const char *const *)st->files.items;
        st->spec.env_extra = (const char *const *)st->env_extra.items;
        return st;
}

const struct run_spec *run_warm_spec(const struct sbx_run *r)
{
        return &r->warm->spec;
}

/* The environment a cold run gets in the helper: PATH, HOME and TMPDIR
 * first, then the session's and the run's pairs. */
static int run_env(const struct sandbox *sb, struct run_warm *st)
{
        const struct run_spec *spec = &st->spec;
        struct strvec env = { 0 };
        int rc = -1;

        if (strvec_push(&st->env, "PATH=" SANDBOX_PATH) == 0 &&
            strvec_pushf(&st->env, "HOME=%s", spec->workdir) == 0 &&
            strvec_push(&st->env, "TMPDIR=/tmp") == 0 &&
            env_build((const char *const *)sb->env.items, spec->workdir, spec->env_extra, &env) == 0 &&
            strvec_extend(&st->env, (const char *const *)env.items) == 0)
                rc = 0;
        strvec_free(&env);
        return rc;
}

static void in_flight(struct sbx_run *r, const int fds[3])
{
        r->out_fd = fds[0];
        r->err_fd = fds[1];
        r->status_fd = fds[2];
        r->start_ms = sbx_now_ms();
        r->deadline_ms = r->start_ms + r->timeout_ms + WARM_GRACE_MS;
}

static int warm_start(struct sbx_run *r, const struct run_spec *spec, struct sbx_err *err)
{
        struct sandbox *sb = r->sb;
        struct run_warm *st;
        int fds[3], rc;

        if (!sb->warm && pool_open(sb, err) < 0)
                return -1;
        if (!(st = spec_copy(spec)) || run_env(sb, st) < 0) {
                run_warm_free(st);
                return sbx_fail_oom(err, "warm run");
        }
        st->rq = (struct warm_request){
                .argv = st->spec.argv, .workdir = st->spec.workdir,
                .private_workdir = spec->private_workdir, .files = st->spec.workdir_files,
                .stdin_fd = r->stdin_fd,
                .env = st->env.items, .timeout_ms = r->timeout_ms, .cpu_s = r->cpu_limit_s,
                .memory = r->memory_bytes,
                .outlive_ms = r->timeout_ms + r->tier->grace_ms,
        };
        rc = warm_run_start(sb->warm, &st->rq, &st->w, fds);
        if (rc <= 0) {
                run_warm_free(st);
                return rc < 0 ? sbx_fail_oom(err, "warm run") : 0;
        }
        r->warm = st;
        in_flight(r, fds);
        sbx_trace("sent to a zygote");
        return 1;
}

/* A warm run ends when its pipes are at EOF; without a status line its
 * zygote died, or stalled past the backstop (the zygote's own clock ends a
 * run first) and was killed: neither is the sample's verdict, nor may it
 * be the next one's. Again on another zygote, or cold. */
static enum run_step warm_step(struct sbx_run *r)
{
        struct warm_run *w = r->warm->w;
        int fds[3];

        if (r->out_fd >= 0 || r->err_fd >= 0 || r->status_fd >= 0) {
                if (sbx_now_ms() >= r->deadline_ms) {
                        r->stalled |= !r->killed;
                        r->killed_wall |= !r->killed;
                        r->killed = true;
                        warm_run_kill(w);
                        r->deadline_ms = sbx_now_ms() + KILL_RECHECK_MS;
                }
                return RUN_STEP_GOES_ON;
        }
        r->status_buf[r->status_len] = '\0';
        bool lost = r->status_len == 0;
        if ((!r->killed || (r->stalled && lost)) && (lost || strstr(r->status_buf, "\"setup-error\""))) {
                if (!lost)
                        warm_run_fail_setup(w, r->status_buf);
                r->killed = r->killed_wall = r->stalled = false;
                if (lost && warm_run_again(w, fds) == 1) {
                        in_flight(r, fds);
                        return RUN_STEP_AGAIN;
                }
                warm_run_release(w);
                return RUN_STEP_COLD;
        }
        if (strstr(r->status_buf, ",\"zygote_retires\":true}")) {
                sbx_trace("zygote retired");    /* at half its CPU limit, after this run */
                warm_run_kill(w);
        } else {
                warm_run_release(w);
        }
        r->reaped = true;
        r->end_ms = sbx_now_ms();
        return RUN_STEP_ENDED;
}

/* Never waits: the run's zygote is asked to kill it (the run ends when
 * the zygote's status line says so, and the zygote serves on); when it
 * cannot be asked, or does not end the run within WARM_KILL_MS (warm_step
 * at the deadline), the zygote is ended, its tier's process reaped later. */
static void warm_kill(struct sbx_run *r)
{
        struct run_warm *st = r->warm;

        if (!st->kill_sent && warm_run_cancel(st->w) == 0) {
                int64_t by = sbx_now_ms() + WARM_KILL_MS;
                st->kill_sent = true;
                if (by < r->deadline_ms)
                        r->deadline_ms = by;
                sbx_trace("kill sent to the zygote");
                return;
        }
        warm_run_kill(st->w);
}

const struct run_backend warm_backend = {
        .start = warm_start, .step = warm_step, .kill = warm_kill,
        .classify = helper_classify,
};

void sandbox_warm_expect(struct sandbox *sb, size_t workers)
{
        if (!sb->opts.warm)
                return;
        sb->warm_expect = workers;
        if (sb->warm)
                warm_pool_expect(sb->warm, workers);
}

void sandbox_warm_counts(const struct sandbox *sb, size_t *warm, size_t *cold, const char **why)
{
        warm_pool_counts(sb->warm, warm, cold, why);
}
