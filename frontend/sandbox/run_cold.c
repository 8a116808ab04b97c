/* The cold backend: a run is a process of the session's tier (its tool's
 * argv around the program's), spawned with the run's pipes and limits,
 * reaped, and everything it left behind swept before its verdict. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proc.h"
#include "run_internal.h"
#include "sandbox_impl.h"
#include "trace.h"
#include "util.h"
#include "warm.h"

static int make_pipe(int fds[2], struct sbx_err *err)
{
        if (pipe2(fds, O_CLOEXEC) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "pipe");
        if (fcntl(fds[0], F_SETFL, O_NONBLOCK) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "fcntl");
        return 0;
}

/* A memfd (the BPF program, a run's file) as a fresh open file: its own
 * offset, bwrap reads from 0. */
static int reopen_fd(int memfd, const char *what, struct sbx_err *err)
{
        int fd = sbx_reopen_fd(memfd, O_RDONLY);

        if (fd < 0)
                sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "reopening %s", what);
        return fd;
}

static int run_spawn(struct sbx_run *r, const struct strvec *argv,
                     const struct strvec *env, struct sbx_err *err)
{
        struct sandbox *sb = r->sb;
        int out[2], errp[2], st[2] = { -1, -1 };

        if (make_pipe(out, err) < 0)
                return -1;
        r->out_fd = out[0];
        auto_fd out_w = out[1];
        if (make_pipe(errp, err) < 0)
                return -1;
        r->err_fd = errp[0];
        auto_fd err_w = errp[1];
        if (r->tier->status_fd) {       /* status, or the start marker */
                if (make_pipe(st, err) < 0)
                        return -1;
                r->status_fd = st[0];
        }
        auto_fd st_w = st[1];
        struct proc_limits lim = {
                .cpu_s = r->cpu_limit_s,
                .as_bytes = r->memory_bytes,
                .fsize_bytes = r->fsize_bytes,
                .nproc = r->tier->counts_nproc ? sb->nproc_limit : 0,
        };
        struct proc_spec ps = {
                .path = argv->items[0], .argv = argv->items, .envp = env->items,
                .chdir = r->tier->weak ? r->workdir : NULL,
                .stdin_fd = sb->devnull_fd, .stdout_fd = out_w, .stderr_fd = err_w,
                .extra_fd = { -1, -1 },
                .limits = r->tier->sets_own_limits ? NULL : &lim,
        };
        auto_fd bpf = -1, data = -1, in = -1;
        if (r->stdin_fd >= 0 && (ps.stdin_fd = in = reopen_fd(r->stdin_fd, "stdin", err)) < 0)
                return -1;
        if (r->tier->needs_seccomp && sb->seccomp_fd >= 0 &&
            (bpf = reopen_fd(sb->seccomp_fd, "the seccomp program", err)) < 0)
                return -1;
        if (r->tier->needs_seccomp)
                ps.extra_fd[0] = bpf;
        if (r->data_fd >= 0 && (ps.data_fd = data = reopen_fd(r->data_fd, "the program", err)) < 0)
                return -1;
        if (r->tier->status_fd)
                ps.extra_fd[r->tier->status_fd - CHILD_FD_EXTRA] = st_w;
        if (r->tier->runs_init)
                ps.init_fd = sb->init_fd;
        r->pid = proc_spawn(&ps, err);
        if (r->pid < 0)
                return -1;
        r->pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
        return 0;
}


int run_build_argv(struct sandbox *sb, const struct tier_ops *t,
                   const struct run_spec *spec, int64_t timeout_ms,
                   int64_t cpu_limit_s, long long memory_bytes,
                   struct strvec *env, struct strvec *argv)
{
        struct run_params rp = {
                .workdir = spec->workdir, .private_workdir = spec->private_workdir,
                .workdir_files = spec->workdir_files, .workdir_data = spec->workdir_data,
                .timeout_ms = timeout_ms, .cpu_s = cpu_limit_s,
                .tmpfs_bytes = DEFAULT_WORKDIR_BYTES,
                .argv = spec->argv,
                .fsize_bytes = spec->fsize_bytes,
                .ro_binds = spec->ro_binds,
        };

        if (memory_bytes != sb->opts.memory_bytes)
                rp.memory_bytes = memory_bytes; /* the prefix has the session's */
        if (env_build((const char *const *)sb->env.items, spec->workdir,
                      spec->env_extra, env) < 0)
                return -1;
        rp.env = env->items;
        return tier_build_argv(t->id, &sb->prefix[t->id], &rp, argv);
}

static int cold_start(struct sbx_run *r, const struct run_spec *spec, struct sbx_err *err)
{
        struct strvec env = { 0 }, argv = { 0 };
        const struct tier_ops *t = r->tier;
        int rc = -1;

        if (!r->workdir || run_build_argv(r->sb, t, spec, r->timeout_ms, r->cpu_limit_s,
                                          r->memory_bytes, &env, &argv) < 0) {
                sbx_fail_oom(err, "building argv and env");
                goto out;
        }
        /* the helper's own marks, on our time line; only its environment
         * gets it (it is cleared there), never the program's --env */
        if (t->passes_trace && sbx_trace_on() &&
            strvec_pushf(&env, "SBX_TRACE=%lld", sbx_trace_start_ns()) < 0) {
                sbx_fail_oom(err, "env");
                goto out;
        }
        sbx_trace("argv and env");
        r->start_ms = sbx_now_ms();
        r->deadline_ms = r->start_ms + r->timeout_ms + t->grace_ms;
        if (run_spawn(r, &argv, &env, err) < 0)
                goto out;
        sbx_trace("spawned");
        rc = 1;
out:
        strvec_free(&env);
        strvec_free(&argv);
        return rc;
}

/* Every other live run's pid is kept: the sweep reaps any zombie child
 * it is not told to keep, and a run whose exited child it reaped would
 * wait for its deadline and be recorded "timed out". -j is at most
 * SBX_JOBS_MAX, so the others fit; should they not, the sweep waits for
 * a later run's (the weak tiers' group is still killed now).
 * What is left of a run is killed in every tier. In the weak ones a run's
 * daemon is ours while it runs, so with others in flight only this run's
 * session and group go. In the strong ones nothing of a run in flight is
 * ever ours (each stays below its helper or bwrap, which we keep): a live
 * orphan escaped a run that ended (bwrap's own pid 1 did, rewritten by its
 * sample), and goes whichever run it was. */
static void sweep(struct sbx_run *r)
{
        pid_t keep[2 * SBX_JOBS_MAX];   /* runs and zygotes */
        size_t nkeep = 0;
        bool all = true, weak = r->tier->weak;

        for (struct sbx_run *o = r->sb->runs; o; o = o->next) {
                if (o == r)
                        continue;
                all = false;
                weak |= o->tier->weak;
                if (o->reaped || o->pid <= 0)
                        continue;
                if (nkeep == SBX_JOBS_MAX) {
                        if (r->tier->weak)
                                kill(-r->pid, SIGKILL);
                        return;
                }
                keep[nkeep++] = o->pid;
        }
        warm_pool_pids(r->sb->warm, keep, &nkeep, SBX_JOBS_MAX);
        proc_sweep_orphans(r->pid, all || !weak, true, keep, nkeep);
}

static enum run_step cold_step(struct sbx_run *r)
{
        struct rusage ru;
        int status;

        if (!r->reaped) {
                pid_t w = wait4(r->pid, &status, WNOHANG, &ru);
                if (w == r->pid) {
                        r->reaped = true;
                        r->wait_status = status;
                        r->ru = ru;
                        r->end_ms = sbx_now_ms();
                        sbx_trace("reaped");
                }
        }
        if (!r->reaped) {
                if (sbx_now_ms() >= r->deadline_ms) {
                        if (!r->killed)
                                r->killed_wall = true;
                        r->killed = true;
                        run_kill_tree(r);
                        r->deadline_ms = sbx_now_ms() + KILL_RECHECK_MS;
                }
                return RUN_STEP_GOES_ON;
        }
        /* Everything the run started must be gone before the verdict:
         * in the weak tiers nothing else guarantees it. */
        sweep(r);
        run_drain(r);
        sbx_trace("swept and drained");
        return RUN_STEP_ENDED;
}

const struct run_backend cold_backend = {
        .start = cold_start, .step = cold_step, .kill = run_kill_tree,
};
