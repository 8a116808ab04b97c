/* The run: the supervisor (outside) clones init into new namespaces and makes
 * the network one, which init joins; init builds the root, forks the
 * candidate and reaps everything; the candidate drops to the caller and execs.
 * Init and the candidate fill in the outcome they share with the supervisor
 * (a MAP_SHARED page, gone at exec): die()'s message, nproc_mode, the status. */
#include <linux/capability.h>
#include <linux/sched.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>

#include "helper.h"
#include "seccomp_bpf.h"

/* The network namespace is the supervisor's (make_net). */
#define NS_FLAGS (CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)
/* What the zygote needs in its own user namespace (docs/warm.md) */
#define ZYGOTE_CAPS (1ULL << CAP_SYS_ADMIN | 1ULL << CAP_NET_ADMIN | 1ULL << CAP_SETPCAP)

struct run {
        const struct request *rq;
        const struct config *cfg;
        const struct caller *who;
        struct outcome *out;    /* shared with init and the candidate */
        int host_proc;          /* the host's /proc, for the rlimit fallback */
        int net_ready[2];       /* supervisor -> init: its net namespace; hung up once it is gone */
        struct run_cgroup cg;
        long long trace_ns;     /* SBX_TRACE's base, else 0 */
};

/* Init dies with the supervisor. Credential changes reset the death signal,
 * so it is set after each; a hung-up socketpair: the supervisor died before. */
static void exit_if_orphaned(const struct run *run)
{
        struct pollfd pfd = { .fd = run->net_ready[0], .events = 0 };

        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                die_errno("PR_SET_PDEATHSIG");
        if (poll(&pfd, 1, 0) < 0 || (pfd.revents & POLLHUP))
                _exit(SBX_EXIT_SETUP);
}

/* PATH, HOME, TMPDIR, then the --env pairs; a later NAME replaces an earlier. */
static void build_env(const struct request *rq, char **envp, char *home_var)
{
        size_t n = 3;

        envp[0] = "PATH=/usr/bin:/bin";
        envp[1] = home_var;
        envp[2] = "TMPDIR=/tmp";
        for (size_t i = 0, j; i < rq->n_env; i++) {
                for (j = 0; j < n && strncmp(envp[j], rq->env[i], strcspn(rq->env[i], "=") + 1); j++)
                        ;
                envp[j] = (char *)rq->env[i];
                n += j == n;
        }
        envp[n] = NULL;
}

/* RLIMIT_NPROC counts per user namespace (Linux >= 5.14): in one of our own
 * the cap is this run's (init writes the id maps meanwhile and says 'u' when
 * done). Refused one, init answers 'c' once we are in a pids cgroup, else the
 * cap is per uid, on top of what the caller already runs. */
static char cap_process_count(const struct run *run, int init_sock)
{
        rlim_t nproc = run->rq->limit[LIM_NPROC];
        char mode = unshare(CLONE_NEWUSER) == 0 ? 'u' : 'r';

        /* Its capabilities are only ever those of a user namespace of its own. */
        if (mode != 'u' && run->rq->zygote)
                die_errno("--zygote needs unprivileged user namespaces, refused here");
        if (write(init_sock, &mode, 1) != 1 || (mode != 'u' && read(init_sock, &mode, 1) != 1))
                die("init did not answer");
        if (mode == 'c')
                return mode;    /* pids.max caps the run; RLIMIT_NPROC stays unlimited */
        if (mode == 'u')
                privs_clear_caps(run->rq->zygote ? ZYGOTE_CAPS : 0);
        else
                nproc += (rlim_t)limits_count_processes(run->host_proc, run->who->uid);
        limits_set(RLIMIT_NPROC, "nproc", nproc, nproc);
        return mode;
}

__attribute__((noreturn)) static void candidate_main(const struct run *run, int init_sock)
{
        const char *start = run->rq->workdir ? run->rq->workdir : run->who->home;
        char *envp[SBX_MAX_ENV + 4], home_var[4200];
        sigset_t none;
        char mode;

        if (setsid() < 0)
                die_errno("setsid");
        /* The caller's ignored or blocked signals survive exec: none may shield SIGXCPU or SIGPIPE. */
        for (int sig = 1; sig < NSIG; sig++)
                signal(sig, SIG_DFL);
        sigemptyset(&none);
        if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
                die_errno("sigprocmask");
        limits_apply_rlimits(run->rq);
        privs_drop_to(run->who);
        mode = cap_process_count(run, init_sock);
        if (chdir(start) < 0 && (run->rq->workdir || chdir(start = "/") < 0))
                die_errno("chdir %s", start);
        umask(022);
        snprintf(home_var, sizeof(home_var), "HOME=%s", start);
        build_env(run->rq, envp, home_var);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
                die_errno("no_new_privs");
        /* Every fd but 0-2 goes at exec. */
        if (syscall(SYS_close_range, 3, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
                die_errno("close_range");
        /* Not the zygote's: it denies the unshare and mount it needs; its
         * per-sample children install it before any sample code runs. */
        if (!run->rq->zygote && sbx_seccomp_install() < 0)
                die_errno("seccomp filter");
        /* Init's 'u': the id maps are there, the program sees its own uid. */
        if (mode == 'u' && read(init_sock, &mode, 1) != 1)
                die("init did not write the id maps");
        trace_mark(run->trace_ns, "candidate exec");
        execvpe(run->rq->argv[0], run->rq->argv, envp);
        die_errno("cannot execute %s", run->rq->argv[0]);
}

static void write_proc_file(pid_t cpid, const char *file, const char *text)
{
        char path[64];

        snprintf(path, sizeof(path), "/proc/%d/%s", (int)cpid, file);
        if (write_file_at(AT_FDCWD, path, text) < 0)
                die_errno("write %s", path);
}

/* The candidate's user namespace maps only the caller's uid and gid; without
 * one, the candidate goes into a pids cgroup of its own if one is delegated. */
static void init_cap_candidate(struct run *run, pid_t cpid, int cand_sock)
{
        char mode, map[64];

        if (read(cand_sock, &mode, 1) != 1)
                return;                 /* it died, and die() said why */
        if (mode == 'u') {
                write_proc_file(cpid, "setgroups", "deny");
                snprintf(map, sizeof(map), "%u %u 1", (unsigned)run->who->uid, (unsigned)run->who->uid);
                write_proc_file(cpid, "uid_map", map);
                snprintf(map, sizeof(map), "%u %u 1", (unsigned)run->who->gid, (unsigned)run->who->gid);
                write_proc_file(cpid, "gid_map", map);
        } else if (run->cfg->pids_cgroup[0] && run_cgroup_enter_pids(&run->cg, cpid, run->rq->limit[LIM_NPROC])) {
                mode = 'c';
        } else if (run->cfg->pids_cgroup[0]) {
                size_t n = strlen(run->out->message);

                snprintf(run->out->message + n, sizeof(run->out->message) - n, "%spids_cgroup %s: %s: nproc_mode rlimit",
                         n ? "; " : "", run->cg.path, run->cg.why);
        }
        if (write(cand_sock, &mode, 1) != 1)
                die_errno("signal the candidate");
        snprintf(run->out->nproc_mode, sizeof(run->out->nproc_mode), "%s",
                 mode == 'u' ? "userns" : mode == 'c' ? "cgroup" : "rlimit");
}

static double cpu_seconds(const struct rusage *ru)
{
        return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) + (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6;
}

/* Pid 1 reaps orphans; when the candidate ends, everything else goes too.
 * Then the tree's usage (what wait4 of init says) and a "d" let the
 * supervisor answer before our exit tears the namespaces down (0.6 ms). */
static bool init_reap(const struct run *run, pid_t cpid)
{
        struct rusage self, kids;
        int status;
        pid_t pid;

        while ((pid = waitpid(-1, &status, 0)) > 0 || errno == EINTR) {
                if (pid == cpid) {
                        run->out->wait_status = status;
                        kill(-1, SIGKILL);
                }
        }
        trace_mark(run->trace_ns, "init reaped the run");
        run->out->reaped = true;
        if (getrusage(RUSAGE_SELF, &self) < 0 || getrusage(RUSAGE_CHILDREN, &kids) < 0)
                return false;   /* the supervisor's wait4 measures it */
        run->out->cpu_s = cpu_seconds(&self) + cpu_seconds(&kids);
        run->out->max_rss_kb = self.ru_maxrss > kids.ru_maxrss ? self.ru_maxrss : kids.ru_maxrss;
        return write(run->net_ready[0], "d", 1) == 1;
}

/* First, so that every page of the run (its tmpfs too) is charged there. */
static void init_enter_memory_cgroup(struct run *run)
{
        if (run->cfg->memory_cgroup[0] && run_cgroup_enter_memory(&run->cg, run->rq->limit[LIM_MEMORY]))
                run->out->memory_peak = 0;      /* the supervisor reads the real one */
        else if (run->cfg->memory_cgroup[0])
                snprintf(run->out->message, sizeof(run->out->message), "memory_cgroup %s: %s: RLIMIT_AS only",
                         run->cg.path, run->cg.why);
}

/* The supervisor's network namespace, an fd over the pair made before the clone: no pid to stand in. */
static void join_net(const struct run *run)
{
        union { struct cmsghdr head; char buf[CMSG_SPACE(sizeof(int))]; } ctl;
        struct iovec iov = { .iov_base = (char[1]){ 0 }, .iov_len = 1 };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
        auto_fd net = -1;

        if (recvmsg(run->net_ready[0], &msg, MSG_CMSG_CLOEXEC) != 1 || msg.msg_controllen < CMSG_LEN(sizeof(net)) ||
            ctl.head.cmsg_type != SCM_RIGHTS || ctl.head.cmsg_len != CMSG_LEN(sizeof(net)))
                die("no network namespace from the supervisor");
        memcpy(&net, CMSG_DATA(&ctl.head), sizeof(net));
        if (setns(net, CLONE_NEWNET) < 0)
                die_errno("join the sandbox's network namespace");
}

__attribute__((noreturn)) static void init_main(struct run *run)
{
        int sock[2];            /* init <-> candidate, for the user namespace maps */
        pid_t cpid;

        die_report_to(-1, run->out);
        trace_mark(run->trace_ns, "init in the namespaces");
        close(run->net_ready[1]);       /* else a dead supervisor's end stays open */
        if (run->rq->status_fd >= 0)
                close(run->rq->status_fd);
        exit_if_orphaned(run);
        umask(0);
        init_enter_memory_cgroup(run);
        if (sethostname("sbx", 3) < 0)
                die_errno("sethostname");
        limits_ipc_namespace(run->rq);
        mounts_build_root(run->rq, run->cfg, run->who);
        trace_mark(run->trace_ns, "mounts");
        join_net(run);
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock) < 0)
                die_errno("socketpair");
        cpid = fork();
        if (cpid < 0)
                die_errno("fork");
        if (cpid == 0) {
                close(sock[0]);
                candidate_main(run, sock[1]);
        }
        close(sock[1]);
        /* The run's OOM killer kills the candidate's tree before init, which
         * reports (raising needs no CAP_SYS_RESOURCE; lowering would). */
        if (run->cg.has_init)
                write_proc_file(cpid, "oom_score_adj", "1000");
        init_cap_candidate(run, cpid, sock[0]);
        close(run->host_proc);
        close_fdp(&run->cg.dir);
        close_fdp(&run->cg.host_ns);
        /* Out of the candidate's reach, and able to do no more than reap. */
        privs_become_root(run->who->uid);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || sbx_seccomp_install() < 0)
                die_errno("confine init");
        exit_if_orphaned(run);
        init_reap(run, cpid);
        _exit(0);
}

/* The costliest namespace to create (a loopback device, sysctl tables): made
 * here while init builds the mounts, and handed to init (join_net). */
static void make_net(const struct run *run)
{
        struct ifreq lo = { .ifr_name = "lo", .ifr_flags = IFF_UP | IFF_RUNNING };
        union { struct cmsghdr head; char buf[CMSG_SPACE(sizeof(int))]; } ctl = { .head = {
                .cmsg_len = CMSG_LEN(sizeof(int)), .cmsg_level = SOL_SOCKET, .cmsg_type = SCM_RIGHTS } };
        struct iovec iov = { .iov_base = "n", .iov_len = 1 };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
        auto_fd sock = -1, net = -1;

        if (unshare(CLONE_NEWNET) < 0)
                die_errno("create the sandbox's network namespace");
        sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (sock < 0 || ioctl(sock, SIOCSIFFLAGS, &lo) < 0)
                die_errno("bring up loopback");
        if ((net = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0)
                die_errno("open the sandbox's network namespace");
        memcpy(CMSG_DATA(&ctl.head), &net, sizeof(net));
        /* Init may have died already (die() said why): no SIGPIPE, go on to reap it. */
        if (sendmsg(run->net_ready[1], &msg, MSG_NOSIGNAL) != 1 && errno != EPIPE)
                die_errno("hand init the network namespace");
        trace_mark(run->trace_ns, "supervisor: net namespace");
}

static double seconds_since(const struct timespec *start)
{
        struct timespec now;

        clock_gettime(CLOCK_MONOTONIC, &now);
        return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Waits for init until the wall-clock limit, then kills it (and the whole
 * pid namespace), and reaps it: its rusage covers the run. Init's "d" ends
 * the wait unless a cgroup is to be emptied: init then finishes its exit
 * alone, reaped by the caller's subreaper or pid 1. True on timeout. */
static bool wait_for_init(const struct run *run, pid_t pid, int pidfd, const struct timespec *start)
{
        struct pollfd pfd[2] = { { .fd = pidfd, .events = POLLIN }, { .fd = run->net_ready[1], .events = POLLIN } };
        bool timed_out = true;
        struct rusage ru;
        double left_ms;
        int rc, status;

        while (timed_out && (left_ms = (double)run->rq->limit[LIM_TIMEOUT] - seconds_since(start) * 1000.0) > 0) {
                rc = poll(pfd, 2, poll_timeout_ms(left_ms));
                timed_out = rc <= 0;
                if (rc < 0 && errno != EINTR)
                        die_errno("poll");
        }
        run->out->wall_s = seconds_since(start);
        if (timed_out && syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) < 0)
                die_errno("kill the sandbox");
        if (!timed_out && !run->cg.path && (pfd[1].revents & POLLIN) && read(run->net_ready[1], (char[1]){ 0 }, 1) == 1)
                return false;
        while (wait4(pid, &status, 0, &ru) < 0)
                if (errno != EINTR)
                        die_errno("wait for the sandbox");
        run->out->cpu_s = cpu_seconds(&ru);
        run->out->max_rss_kb = ru.ru_maxrss;
        return timed_out;
}

static void classify(const struct request *rq, bool timed_out, struct outcome *out)
{
        if (timed_out) {
                out->status = "timeout";
                out->signal = SIGKILL;
        } else if (!out->reaped || out->setup_failed) {
                out->status = "setup-error";
                if (!out->setup_failed)
                        snprintf(out->message, sizeof(out->message), "sandbox init died");
                out->helper_exit = SBX_EXIT_SETUP;
                return;
        } else if (WIFEXITED(out->wait_status)) {
                out->status = "exited";
                out->helper_exit = out->exit_code = WEXITSTATUS(out->wait_status);
                return;
        } else {
                out->signal = WTERMSIG(out->wait_status);
                out->status = "signaled";
                if (out->signal == SIGKILL && out->oom_killed)
                        out->status = "memory-limit";
                else if (out->signal == SIGXCPU ||
                    (out->signal == SIGKILL && out->cpu_s * 1000.0 >= (double)rq->limit[LIM_CPU]))
                        out->status = "cpu-limit";
                /* A guess: an RLIMIT_AS failure leaves no trace but a crash near the limit. */
                else if ((out->signal == SIGSEGV || out->signal == SIGABRT || out->signal == SIGBUS) &&
                         rq->limit[LIM_MEMORY] != SBX_LIMIT_NONE &&
                         (uint64_t)out->max_rss_kb * 1024 >= rq->limit[LIM_MEMORY] / 2)
                        out->status = "memory-limit";
        }
        out->helper_exit = 128 + out->signal;
}

static void write_status(const struct request *rq, const struct caller *who, const struct outcome *out)
{
        char line[3 * SBX_ERRLEN], prog[256], user[256], dir[1024];
        int n = outcome_format(out, line, sizeof(line));

        if (rq->status_fd >= 0 && write(rq->status_fd, line, (size_t)n) != n)
                fprintf(stderr, "sbx-helper: writing the status: %s\n", strerror(errno));
        /* Every caller-chosen string escaped: no newline or ESC forges a record. */
        json_write_string(prog, sizeof(prog), rq->argv[0]);
        json_write_string(user, sizeof(user), who->name);
        json_write_string(dir, sizeof(dir), rq->workdir ? rq->workdir : who->home);
        openlog("sbx-helper", LOG_PID, LOG_AUTHPRIV);
        syslog(LOG_INFO, "user=\"%s\" program=\"%s\" workdir=\"%s\" outcome=%s exit=%d",
               user, prog, dir, out->status, out->helper_exit);
}

void supervise_run(const struct request *rq, const struct config *cfg, const struct caller *who,
                   long long trace_ns)
{
        struct outcome *out = mmap(NULL, sizeof(*out), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        struct run run = { .rq = rq, .cfg = cfg, .who = who, .out = out, .trace_ns = trace_ns };
        int pidfd = -1;
        struct timespec start;
        bool timed_out;
        pid_t pid;

        if (out == MAP_FAILED || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, run.net_ready) < 0 ||
            (run.host_proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
                die_errno("set up the sandbox's outcome, its socketpair and /proc");
        *out = (struct outcome){ .status = "setup-error", .nproc_mode = "none", .memory_peak = -1 };
        run_cgroup_open(&run.cg, cfg->memory_cgroup[0] ? cfg->memory_cgroup : cfg->pids_cgroup);
        /* A caller's SIG_IGN for SIGCHLD would reap init before we wait for it. */
        if (signal(SIGCHLD, SIG_DFL) == SIG_ERR)
                die_errno("reset SIGCHLD");
        /* The frontend's death ends the sandbox; the ppid check closes the race. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != who->parent)
                die("the calling process is gone");
        clock_gettime(CLOCK_MONOTONIC, &start);
        /* clone, not clone3: Docker's default seccomp profile answers clone3
         * with ENOSYS. With CLONE_PIDFD the pidfd comes back through the
         * parent_tid argument (x86-64 order: flags, stack, ptid, ctid, tls). */
        pid = (pid_t)syscall(SYS_clone, NS_FLAGS | CLONE_PIDFD | SIGCHLD, NULL, &pidfd, NULL, 0);
        if (pid < 0)
                die_errno("create the sandbox namespaces");
        if (pid == 0)
                init_main(&run);
        close(run.net_ready[0]);
        make_net(&run);
        timed_out = wait_for_init(&run, pid, pidfd, &start);
        trace_mark(trace_ns, "the run's end known");
        /* The whole pid namespace is gone (and init too, with a cgroup: it is empty). */
        if (out->memory_peak == 0)
                run_cgroup_memory_stats(&run.cg, &out->memory_peak, &out->oom_killed);
        run_cgroup_remove(&run.cg, out->message, sizeof(out->message));
        classify(rq, timed_out, out);
        write_status(rq, who, out);
        _exit(out->helper_exit);         /* nothing is buffered; skip the libraries' exit handlers */
}
