/* One sandboxed run: spawn through the session's tier, capture, enforce the
 * wall clock, reap, sweep what it left behind, and classify the result. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
#include "proc.h"
#include "run_internal.h"
#include "sandbox_impl.h"
#include "trace.h"
#include "util.h"
#include "warm.h"

#define READS_PER_STEP     64   /* per fd, so one flood cannot starve -j peers */
#define STATUS_MAX_BYTES   8192
#define KILL_RECHECK_MS    200
#define WARM_GRACE_MS      3000 /* the zygote's own clock ends the run first */

static void close_fd(int *fd)
{
        if (*fd >= 0)
                close(*fd);
        *fd = -1;
}

static int make_pipe(int fds[2], struct sbx_err *err)
{
        if (pipe2(fds, O_CLOEXEC) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "pipe");
        if (fcntl(fds[0], F_SETFL, O_NONBLOCK) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "fcntl");
        return 0;
}

static void run_link(struct sandbox *sb, struct sbx_run *r)
{
        r->next = sb->runs;
        sb->runs = r;
        sb->runs_in_flight++;
}

/* A memfd (the BPF program, a run's file) as a fresh open file: its own
 * offset, bwrap reads from 0. */
static int reopen_fd(int memfd, const char *what, struct sbx_err *err)
{
        char path[64];
        int fd;

        snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
        fd = open(path, O_RDONLY | O_CLOEXEC);
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
                .as_bytes = sb->opts.memory_bytes,
                .fsize_bytes = sb->opts.fsize_bytes,
                .nproc = r->tier->counts_nproc ? sb->nproc_limit : 0,
        };
        struct proc_spec ps = {
                .path = argv->items[0], .argv = argv->items, .envp = env->items,
                .chdir = r->tier->weak ? r->workdir : NULL,
                .stdin_fd = sb->devnull_fd, .stdout_fd = out_w, .stderr_fd = err_w,
                .extra_fd = { -1, -1 },
                .limits = r->tier->sets_own_limits ? NULL : &lim,
        };
        auto_fd bpf = -1, data = -1;
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

/* A cpu limit under the caller's hard RLIMIT_CPU (ulimit -t, Slurm), which
 * no run can raise: one second below it, so that its SIGXCPU (cpu-limit)
 * comes before the hard limit's SIGKILL. */
static int64_t cpu_under_caller(int64_t cpu_s)
{
        struct rlimit rl;

        if (getrlimit(RLIMIT_CPU, &rl) < 0 || rl.rlim_max == RLIM_INFINITY || (int64_t)rl.rlim_max > cpu_s)
                return cpu_s;
        return rl.rlim_max > 1 ? (int64_t)rl.rlim_max - 1 : 1;
}

/* The wall clock and cpu limit of a run: the spec's, else the defaults
 * (limit_derive, the one place for timeout arithmetic). */
static void run_limits(const struct run_spec *spec, int64_t *timeout_ms, int64_t *cpu_s)
{
        struct limit_derived lim = limit_derive(&(struct limit_ask){
                .timeout_ms = spec->timeout_ms, .cpu_s = spec->cpu_limit_s });

        *timeout_ms = lim.wall_ms;
        *cpu_s = cpu_under_caller(lim.cpu_s);
}

int run_build_argv(struct sandbox *sb, const struct tier_ops *t,
                   const struct run_spec *spec, int64_t timeout_ms,
                   int64_t cpu_limit_s, struct strvec *env, struct strvec *argv)
{
        struct run_params rp = {
                .workdir = spec->workdir, .private_workdir = spec->private_workdir,
                .workdir_files = spec->workdir_files, .workdir_data = spec->workdir_data,
                .timeout_ms = timeout_ms, .cpu_s = cpu_limit_s,
                .tmpfs_bytes = DEFAULT_WORKDIR_BYTES,
                .argv = spec->argv,
        };

        if (env_build((const char *const *)sb->env.items, spec->workdir,
                      spec->env_extra, env) < 0)
                return -1;
        rp.env = env->items;
        return tier_build_argv(t->id, &sb->prefix[t->id], &rp, argv);
}

/* A run not yet started: no fds, no pid, its limits and output caps set. */
static struct sbx_run *run_new(struct sandbox *sb, const struct tier_ops *t,
                               const struct run_spec *spec)
{
        struct sbx_run *r = calloc(1, sizeof(*r));

        if (!r)
                return NULL;
        r->sb = sb;
        r->tier = t;
        r->out_fd = r->err_fd = r->status_fd = r->pidfd = -1;
        r->pid = -1;
        r->zygote = -1;
        r->data_fd = spec->workdir_data ? spec->data_fd : -1;
        r->workdir = strdup(spec->workdir);
        run_limits(spec, &r->timeout_ms, &r->cpu_limit_s);
        output_capture_init(&r->out_cap, &r->res.out, sb->opts.max_output_bytes);
        output_capture_init(&r->err_cap, &r->res.err, sb->opts.max_output_bytes);
        return r;
}

int run_start_tier(struct sandbox *sb, const struct tier_ops *t,
                   const struct run_spec *spec, struct sbx_run **out,
                   struct sbx_err *err)
{
        struct strvec env = { 0 }, argv = { 0 };
        struct sbx_run *r;
        int rc = -1;

        if (!t)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0, "run: no tier chosen");
        if (!spec->argv || !spec->argv[0] || spec->argv[0][0] != '/' ||
            !spec->workdir || spec->workdir[0] != '/')
                return sbx_fail(err, 0, "run: argv[0] and workdir must be absolute paths");
        if (spec->workdir_data && (!t->binds_data || spec->data_fd < 0))
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, 0,
                                     "run: tier %s needs the program on the host", t->name);
        if (sandbox_tier_ready(sb, t->id, err) < 0)
                return -1;
        r = run_new(sb, t, spec);
        if (!r)
                return sbx_fail_oom(err, "out of memory");
        if (r->workdir && sb->opts.warm && t == sb->tier && !spec->workdir_data) {
                int warm = warm_run_start(sb, spec, r, err);
                if (warm < 0)
                        goto out;
                if (warm == 1) {
                        r->start_ms = sbx_now_ms();
                        r->deadline_ms = r->start_ms + r->timeout_ms + WARM_GRACE_MS;
                        sbx_trace("sent to a zygote");
                        goto linked;
                }
        }
        if (!r->workdir || run_build_argv(sb, t, spec, r->timeout_ms, r->cpu_limit_s,
                                          &env, &argv) < 0) {
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
linked:
        run_link(sb, r);
        *out = r;
        r = NULL;
        rc = 0;
out:
        if (r)
                run_free(r);
        strvec_free(&env);
        strvec_free(&argv);
        return rc;
}

int sandbox_print_argv(struct sandbox *sb, const struct run_spec *spec, FILE *fp)
{
        struct strvec env = { 0 }, argv = { 0 };
        int64_t timeout, cpu;
        int rc;

        run_limits(spec, &timeout, &cpu);
        rc = sb->tier ? run_build_argv(sb, sb->tier, spec, timeout, cpu, &env, &argv) : -1;
        for (size_t i = 0; rc == 0 && i < argv.len; i++)
                fprintf(fp, "%s\n", argv.items[i]);
        strvec_free(&env);
        strvec_free(&argv);
        return rc;
}

int sbx_run_start(struct sandbox *sb, const struct run_spec *spec,
                  struct sbx_run **out, struct sbx_err *err)
{
        return run_start_tier(sb, sb->tier, spec, out, err);
}

/* A cold run's status is read when it ends (every step drains it): its
 * few bytes never fill the pipe, and bwrap writes its child-pid object in
 * six pieces, each a wakeup of ours while it sets up. A warm run ends at
 * its pipes' EOF, without a pidfd (before Linux 5.3) the status is what
 * says the end is near, and SBX_TRACE times the first status. */
size_t sbx_run_pollfds(const struct sbx_run *r, struct pollfd *pfds, size_t max)
{
        bool status = r->warm || r->pidfd < 0 || sbx_trace_on();
        int fds[4] = { r->out_fd, r->err_fd, status ? r->status_fd : -1,
                       r->reaped ? -1 : r->pidfd };
        size_t n = 0;

        for (int i = 0; i < 4 && n < max; i++) {
                if (fds[i] < 0)
                        continue;
                pfds[n].fd = fds[i];
                pfds[n].events = POLLIN;
                pfds[n].revents = 0;
                n++;
        }
        return n;
}

int64_t sbx_run_deadline_ms(const struct sbx_run *r)
{
        return r->deadline_ms;
}

/* Reads what is there without blocking; closes the fd at EOF. */
static void drain(int *fd, struct output_capture *cap, char *status_buf,
                  size_t *status_len)
{
        char buf[65536];

        for (int i = 0; *fd >= 0 && i < READS_PER_STEP; i++) {
                ssize_t n = read(*fd, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0 && errno == EAGAIN)
                        return;
                if (n <= 0) {
                        close_fd(fd);
                        return;
                }
                if (cap) {
                        output_capture_append(cap, buf, (size_t)n);
                } else {
                        size_t room = STATUS_MAX_BYTES - *status_len;
                        size_t take = (size_t)n < room ? (size_t)n : room;
                        memcpy(status_buf + *status_len, buf, take);
                        *status_len += take;
                }
        }
}

static void drain_all(struct sbx_run *r)
{
        size_t had = r->status_len;

        drain(&r->out_fd, &r->out_cap, NULL, NULL);
        drain(&r->err_fd, &r->err_cap, NULL, NULL);
        drain(&r->status_fd, NULL, r->status_buf, &r->status_len);
        if (had == 0 && r->status_len > 0)
                sbx_trace("first status from the tier");
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
        warm_keep_pids(r->sb, keep, &nkeep, SBX_JOBS_MAX);
        proc_sweep_orphans(r->pid, all || !weak, true, keep, nkeep);
}

/* A lost warm run's output is dropped before it runs again. */
static void reset_output(struct sbx_run *r)
{
        free(r->res.out.data);
        free(r->res.err.data);
        memset(&r->res.out, 0, sizeof(r->res.out));
        memset(&r->res.err, 0, sizeof(r->res.err));
        output_capture_init(&r->out_cap, &r->res.out, r->sb->opts.max_output_bytes);
        output_capture_init(&r->err_cap, &r->res.err, r->sb->opts.max_output_bytes);
        r->status_len = 0;
}

/* A warm run that cannot stay warm runs cold, in place. */
static int respawn_cold(struct sbx_run *r)
{
        const struct run_spec *spec = warm_run_spec(r);
        struct strvec env = { 0 }, argv = { 0 };
        struct sbx_err err = { 0 };
        int rc = run_build_argv(r->sb, r->tier, spec, r->timeout_ms, r->cpu_limit_s, &env, &argv);

        reset_output(r);
        r->start_ms = sbx_now_ms();
        r->deadline_ms = r->start_ms + r->timeout_ms + r->tier->grace_ms;
        if (rc == 0)
                rc = run_spawn(r, &argv, &env, &err);
        strvec_free(&env);
        strvec_free(&argv);
        if (rc < 0)
                run_result_set_detail(&r->res, "cold run after a warm one: ", err.msg);
        return rc;
}

/* A warm run ends when its pipes are at EOF; without a status line its
 * zygote died, or stalled past the backstop (the zygote's own clock ends a
 * run first) and was killed: neither is the sample's verdict, nor may it
 * be the next one's. Again on another zygote (1), or cold. */
static int step_warm(struct sbx_run *r)
{
        drain_all(r);
        if (r->out_fd >= 0 || r->err_fd >= 0 || r->status_fd >= 0) {
                if (sbx_now_ms() >= r->deadline_ms) {
                        r->stalled |= !r->killed;
                        r->killed_wall |= !r->killed;
                        r->killed = true;
                        warm_run_kill(r);
                        r->deadline_ms = sbx_now_ms() + KILL_RECHECK_MS;
                }
                return 0;
        }
        r->status_buf[r->status_len] = '\0';
        bool lost = r->status_len == 0;
        if ((!r->killed || (r->stalled && lost)) && (lost || strstr(r->status_buf, "\"setup-error\""))) {
                if (!lost)
                        warm_run_fail_setup(r, r->status_buf);
                reset_output(r);
                r->killed = r->killed_wall = r->stalled = false;
                if (lost && warm_run_again(r) == 1) {
                        r->start_ms = sbx_now_ms();
                        r->deadline_ms = r->start_ms + r->timeout_ms + WARM_GRACE_MS;
                        return 0;
                }
                warm_run_release(r);
                if (respawn_cold(r) == 0)
                        return 0;
                r->killed = true;       /* the result says why: no program ran */
        }
        if (strstr(r->status_buf, ",\"zygote_retires\":true}")) {
                sbx_trace("zygote retired");    /* at half its CPU limit, after this run */
                warm_run_kill(r);
        } else {
                warm_run_release(r);
        }
        r->reaped = true;
        r->end_ms = sbx_now_ms();
        return 1;
}

int sbx_run_step(struct sbx_run *r, const struct pollfd *pfds, size_t n)
{
        struct rusage ru;
        int status;

        if (r->warm && r->pid < 0)
                return step_warm(r);
        drain_all(r);
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
                return 0;
        }
        /* Everything the run started must be gone before the verdict:
         * in the weak tiers nothing else guarantees it. */
        sweep(r);
        drain_all(r);
        sbx_trace("swept and drained");
        return 1;
}

void sbx_run_kill(struct sbx_run *r)
{
        if (!r->killed)
                r->interrupted = true;
        r->killed = true;
        if (r->warm && r->pid < 0)
                warm_run_kill(r);
        run_kill_tree(r);
}

int sbx_run_sync(struct sandbox *sb, const struct run_spec *spec,
                 const volatile sig_atomic_t *stop, struct run_result *res,
                 struct sbx_err *err)
{
        return run_tier_sync(sb, sb->tier, spec, stop, res, err);
}

int run_tier_sync(struct sandbox *sb, const struct tier_ops *t,
                  const struct run_spec *spec, const volatile sig_atomic_t *stop,
                  struct run_result *res, struct sbx_err *err)
{
        struct sbx_run *r;
        struct pollfd pfds[4];

        if (run_start_tier(sb, t, spec, &r, err) < 0)
                return -1;
        for (;;) {
                size_t n = sbx_run_pollfds(r, pfds, 4);
                int64_t wait = sbx_run_deadline_ms(r) - sbx_now_ms();
                if (wait < 0)
                        wait = 0;
                if (stop && *stop)
                        sbx_run_kill(r);
                /* a poll error (EINTR) only means: step and look again */
                (void)poll(pfds, n, (int)(wait > 1000 ? 1000 : wait));
                if (sbx_run_step(r, pfds, n))
                        break;
        }
        sbx_run_finish(r, res);
        return 0;
}
