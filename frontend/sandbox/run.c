/* One sandboxed run, whichever backend runs it: warm in a warm session
 * (run_warm.c), cold otherwise (run_cold.c) and when the warm backend
 * declines the run or gives it up, which is decided here and nowhere else;
 * each step drains its pipes and hands it to its backend; and the blocking
 * form. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "run_internal.h"
#include "sandbox_impl.h"
#include "trace.h"
#include "util.h"

static void run_link(struct sandbox *sb, struct sbx_run *r)
{
        r->next = sb->runs;
        sb->runs = r;
        sb->runs_in_flight++;
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

/* The run's address-space limit: the spec's (0: the session's; -1: none).
 * Who asks for one decides its bound: a compile's is its language row's,
 * a --serve or HTTP request's is clamped to the session's (serve_exec.c). */
static long long run_memory(const struct sandbox *sb, const struct run_spec *spec)
{
        return spec->memory_bytes ? spec->memory_bytes : sb->opts.memory_bytes;
}

/* A zygote's runs share its limits and binds. A run may lower its memory
 * warm (the zygote's run message carries it; the zygote's own hard limit is
 * the session's); more memory than the session's, or its own fsize, output
 * cap or read-only binds, go cold. */
static bool run_spec_own_limits(const struct sandbox *sb, const struct run_spec *spec)
{
        long long session = sb->opts.memory_bytes;
        bool more_memory = spec->memory_bytes && session >= 0 &&
                           (spec->memory_bytes < 0 || spec->memory_bytes > session);

        return more_memory || spec->fsize_bytes || spec->max_output_bytes ||
               (spec->ro_binds && spec->ro_binds[0]);
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
        r->backend = &cold_backend;
        r->data_fd = spec->workdir_data ? spec->data_fd : -1;
        r->stdin_fd = -1;
        r->stdout_file = spec->stdout_fd > 0 ? spec->stdout_fd : -1;
        r->stdout_limit = spec->stdout_limit_bytes > 0 ? spec->stdout_limit_bytes : 0;
        r->workdir = strdup(spec->workdir);
        run_limits(spec, &r->timeout_ms, &r->cpu_limit_s);
        r->memory_bytes = run_memory(sb, spec);
        r->fsize_bytes = spec->fsize_bytes ? spec->fsize_bytes : sb->opts.fsize_bytes;
        size_t cap = spec->max_output_bytes ? spec->max_output_bytes : sb->opts.max_output_bytes;
        output_capture_init(&r->out_cap, &r->res.out, cap);
        output_capture_init(&r->err_cap, &r->res.err, cap);
        return r;
}

/* stdout's file is rewritten when the run starts again (a lost warm
 * run): from where it was at the start, which must therefore be known. */
static int run_stdout_file(struct sbx_run *r, struct sbx_err *err)
{
        if (r->stdout_file < 0)
                return 0;
        r->stdout_start = lseek(r->stdout_file, 0, SEEK_CUR);
        if (r->stdout_start < 0)
                return sbx_fail(err, errno, "run: stdout's file (fd %d) is not a regular file",
                                r->stdout_file);
        return 0;
}

/* The cold backend runs r in place: at its start when the warm backend
 * declined it, or at a step when that gave it up. */
static int start_cold(struct sbx_run *r, const struct run_spec *spec, struct sbx_err *err)
{
        int rc = cold_backend.start(r, spec, err);

        if (rc == 1)
                r->backend = &cold_backend;
        return rc;
}

/* A warm run given up runs cold from its copied spec; when it cannot, the
 * run ends and its result says why (no program ran). */
static int fall_back_cold(struct sbx_run *r)
{
        struct sbx_err err = { 0 };

        run_reset_output(r);
        if (start_cold(r, run_warm_spec(r), &err) == 1)
                return 0;
        run_result_set_detail(&r->res, "cold run after a warm one: ", err.msg);
        r->killed = true;
        r->reaped = true;
        r->end_ms = sbx_now_ms();
        return 1;
}

int run_start_tier(struct sandbox *sb, const struct tier_ops *t,
                   const struct run_spec *spec, struct sbx_run **out,
                   struct sbx_err *err)
{
        struct sbx_run *r;
        int started = 0;

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
        if (run_stdin_open(r, spec, err) < 0 || run_stdout_file(r, err) < 0) {
                run_free(r);
                return -1;
        }
        if (r->workdir && sb->opts.warm && t == sb->tier && !spec->workdir_data &&
            !run_spec_own_limits(sb, spec) && (started = warm_backend.start(r, spec, err)) == 1)
                r->backend = &warm_backend;
        if (started == 0)
                started = start_cold(r, spec, err);
        if (started < 0) {
                run_free(r);
                return -1;
        }
        run_link(sb, r);
        *out = r;
        return 0;
}

int sandbox_print_argv(struct sandbox *sb, const struct run_spec *spec, FILE *fp)
{
        struct strvec env = { 0 }, argv = { 0 };
        int64_t timeout, cpu;
        int rc;

        run_limits(spec, &timeout, &cpu);
        rc = sb->tier ? run_build_argv(sb, sb->tier, spec, timeout, cpu, run_memory(sb, spec),
                                          &env, &argv) : -1;
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

int sbx_run_step(struct sbx_run *r, const struct pollfd *pfds, size_t n)
{
        run_drain(r);
        run_check_output_limit(r);
        switch (r->backend->step(r)) {
        case RUN_STEP_ENDED:
                return 1;
        case RUN_STEP_AGAIN:
                run_reset_output(r);
                return 0;
        case RUN_STEP_COLD:
                return fall_back_cold(r);
        case RUN_STEP_GOES_ON:
                break;
        }
        return 0;
}

void sbx_run_kill(struct sbx_run *r)
{
        if (!r->killed)
                r->interrupted = true;
        r->killed = true;
        r->backend->kill(r);
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

        if (run_start_tier(sb, t, spec, &r, err) < 0)
                return -1;
        sbx_run_wait(r, stop, res);
        return 0;
}

void sbx_run_wait(struct sbx_run *r, const volatile sig_atomic_t *stop,
                  struct run_result *res)
{
        struct pollfd pfds[4];

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
}
