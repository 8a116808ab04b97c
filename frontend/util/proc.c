#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "output.h"
#include "proc.h"
#include "util.h"

extern char **environ;

/* Written by the vfork child, read by the parent once it resumes: the
 * memory is shared until exec, so no error pipe is needed. */
struct child_failure {
        int errnum;
        const char *step;
};

/* Never above the caller's own hard limit (ulimit, pam_limits, Slurm),
 * which an unprivileged process cannot raise: lowered to it, as the helper
 * does, instead of a run that cannot start. */
static int set_limit(int resource, long long soft, long long hard)
{
        struct rlimit caller, rl = {
                .rlim_cur = soft < 0 ? RLIM_INFINITY : (rlim_t)soft,
                .rlim_max = hard < 0 ? RLIM_INFINITY : (rlim_t)hard,
        };

        if (getrlimit(resource, &caller) < 0)
                return -1;
        if (rl.rlim_max > caller.rlim_max)
                rl.rlim_max = caller.rlim_max;
        if (rl.rlim_cur > rl.rlim_max)
                rl.rlim_cur = rl.rlim_max;
        return setrlimit(resource, &rl);
}

/* cpu: soft at the limit (SIGXCPU, which we report as cpu-limit), hard one
 * second later (SIGKILL if SIGXCPU is caught). */
static int apply_limits(const struct proc_limits *l)
{
        if (l->cpu_s > 0 && set_limit(RLIMIT_CPU, l->cpu_s, l->cpu_s + 1) < 0)
                return -1;
        if (l->as_bytes > 0 && set_limit(RLIMIT_AS, l->as_bytes, l->as_bytes) < 0)
                return -1;
        if (l->fsize_bytes > 0 &&
            set_limit(RLIMIT_FSIZE, l->fsize_bytes, l->fsize_bytes) < 0)
                return -1;
        if (l->nproc > 0 && set_limit(RLIMIT_NPROC, l->nproc, l->nproc) < 0)
                return -1;
        return set_limit(RLIMIT_CORE, 0, 0);
}

static int move_fd(int from, int to)
{
        if (from == to)         /* dup2 would keep O_CLOEXEC */
                return fcntl(to, F_SETFD, 0);
        return dup2(from, to) < 0 ? -1 : 0;
}

#define CHILD_FAIL(f, what) do { (f)->errnum = errno; (f)->step = (what); \
                                  _exit(127); } while (0)

/* Runs in the vfork child: only system calls, no allocation, nothing that
 * touches the parent's memory except *f. */
static __attribute__((noreturn)) void child_exec(const struct proc_spec *s,
                                                 struct child_failure *f)
{
        struct sigaction dfl = { .sa_handler = SIG_DFL };
        sigset_t none;
        int top = 2;

        for (int sig = 1; sig < NSIG; sig++)
                sigaction(sig, &dfl, NULL);     /* SIGKILL/STOP just fail */
        if (setsid() < 0)
                CHILD_FAIL(f, "setsid");
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                CHILD_FAIL(f, "prctl(PDEATHSIG)");
        if (s->limits && apply_limits(s->limits) < 0)
                CHILD_FAIL(f, "setrlimit");
        if (move_fd(s->stdin_fd, 0) < 0 || move_fd(s->stdout_fd, 1) < 0 ||
            move_fd(s->stderr_fd, 2) < 0)
                CHILD_FAIL(f, "dup2 stdio");
        for (int i = 0; i < 2; i++) {
                if (s->extra_fd[i] < 0) {
                        close(3 + i);   /* a gap below top: nothing inherited */
                        continue;
                }
                if (move_fd(s->extra_fd[i], 3 + i) < 0)
                        CHILD_FAIL(f, "dup2 extra fd");
                top = 3 + i;
        }
        if (s->data_fd > STDERR_FILENO) {
                if (move_fd(s->data_fd, 5) < 0)
                        CHILD_FAIL(f, "dup2 data fd");
                top = 5;
        } else {
                close(5);       /* a gap below the init fd: nothing inherited */
        }
        if (s->init_fd > STDERR_FILENO) {
                if (move_fd(s->init_fd, 6) < 0)
                        CHILD_FAIL(f, "dup2 init fd");
                top = 6;
        }
        if (close_range(top + 1, ~0U, 0) < 0)
                CHILD_FAIL(f, "close_range");
        if (s->chdir && chdir(s->chdir) < 0)
                CHILD_FAIL(f, "chdir");
        /* A fresh process's mask, not ours: a suite blocks SIGINT and
         * SIGTERM outside ppoll (tests/frontend/signal-state.t). */
        sigemptyset(&none);
        if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
                CHILD_FAIL(f, "sigprocmask");
        execve(s->path, s->argv, s->envp);
        CHILD_FAIL(f, "exec");
}

pid_t proc_spawn(const struct proc_spec *spec, struct sbx_err *err)
{
        struct child_failure failure = { 0, NULL };
        sigset_t all, old;
        pid_t pid;

        /* no handler of ours may run in the child while it shares our memory */
        sigfillset(&all);
        if (sigprocmask(SIG_SETMASK, &all, &old) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "sigprocmask");
        pid = vfork();
        if (pid == 0)
                child_exec(spec, &failure);
        int saved = errno;
        sigprocmask(SIG_SETMASK, &old, NULL);
        if (pid < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, saved, "vfork");
        if (failure.step) {
                waitpid(pid, NULL, 0);
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, failure.errnum,
                                     "%s %s", failure.step, spec->path);
        }
        return pid;
}

int proc_capture(char *const *argv, char *const *envp, struct run_output *out,
                 size_t max_bytes, struct sbx_err *err)
{
        struct output_capture cap;
        int pipefd[2];
        char buf[65536];
        int status;

        output_capture_init(&cap, out, max_bytes);
        auto_fd devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (devnull < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "/dev/null");
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno, "pipe");
        auto_fd rd = pipefd[0];
        auto_fd wr = pipefd[1];
        struct proc_spec spec = {
                .path = argv[0], .argv = argv, .envp = envp ? envp : environ,
                .stdin_fd = devnull, .stdout_fd = wr, .stderr_fd = wr,
                .extra_fd = { -1, -1 },
        };
        pid_t pid = proc_spawn(&spec, err);
        if (pid < 0)
                return -1;
        close(wr);
        wr = -1;
        for (;;) {
                ssize_t n = read(rd, buf, sizeof(buf));
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                output_capture_append(&cap, buf, (size_t)n);
        }
        output_capture_finish(&cap);
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        return sbx_fail_code(err, SBX_EXIT_SANDBOX, errno,
                                             "waitpid %s", argv[0]);
        return status;
}

char *proc_find_exe(const char *name, const char *search_path)
{
        char *path, *save = NULL, *dir, *found = NULL;

        if (strchr(name, '/'))
                return access(name, X_OK) == 0 ? realpath(name, NULL) : NULL;
        if (!search_path)
                search_path = getenv("PATH");
        if (!search_path)
                search_path = "/usr/bin:/bin";
        path = strdup(search_path);
        for (dir = path ? strtok_r(path, ":", &save) : NULL; dir && !found;
             dir = strtok_r(NULL, ":", &save)) {
                char *cand = NULL;
                if (dir[0] != '/' || asprintf(&cand, "%s/%s", dir, name) < 0)
                        continue;
                if (access(cand, X_OK) == 0)
                        found = cand;
                else
                        free(cand);
        }
        free(path);
        return found;
}

static bool is_kept(pid_t pid, const pid_t *keep, size_t nkeep)
{
        for (size_t i = 0; i < nkeep; i++)
                if (keep[i] == pid)
                        return true;
        return false;
}

static int read_stat_ids(pid_t pid, char *state, pid_t *ppid, pid_t *pgrp, pid_t *sid)
{
        char path[64], buf[512];
        ssize_t n;

        snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
        auto_fd fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || (n = read(fd, buf, sizeof(buf) - 1)) <= 0)
                return -1;
        buf[n] = '\0';
        /* comm may hold spaces and parens: fields resume after the last ')' */
        char *p = strrchr(buf, ')');
        int pp, pg, s;
        char st;
        if (!p || sscanf(p + 1, " %c %d %d %d", &st, &pp, &pg, &s) != 4)
                return -1;
        *state = st;
        *ppid = pp;
        *pgrp = pg;
        *sid = s;
        return 0;
}

/* Our children, from /proc/self/task/<tid>/children (cheap), or, on a
 * kernel without CONFIG_PROC_CHILDREN, a scan of /proc for ppid == us. */
static size_t list_children(pid_t *out, size_t max)
{
        char path[64], buf[8192];
        pid_t self = getpid();
        size_t n = 0;
        ssize_t len;

        snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)self, (int)self);
        auto_fd fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
                if ((len = read(fd, buf, sizeof(buf) - 1)) <= 0)
                        return 0;
                buf[len] = '\0';
                for (char *save = NULL, *tok = strtok_r(buf, " \n", &save);
                     tok && n < max; tok = strtok_r(NULL, " \n", &save))
                        out[n++] = (pid_t)atoi(tok);
                return n;
        }
        DIR *d = opendir("/proc");
        struct dirent *e;
        pid_t ppid, pgrp, sid;
        char state;
        while (d && (e = readdir(d)) && n < max) {
                pid_t pid = (pid_t)atoi(e->d_name);
                if (pid > 0 && read_stat_ids(pid, &state, &ppid, &pgrp, &sid) == 0 && ppid == self)
                        out[n++] = pid;
        }
        if (d)
                closedir(d);
        return n;
}

#define SWEEP_KILL_WAIT_MS 1000  /* for a killed orphan to end: then the next sweep's */

/* One pass over our children: reaps dead orphans (a tier's own helper
 * processes re-parent to us as subreaper; left unreaped they pile up over a
 * suite), and with kill_live kills and reaps the matching live ones; one
 * that is not ours to kill (a setuid helper's) is left to end by itself. */
static int sweep_once(pid_t run_pid, bool all, bool kill_live,
                      const pid_t *keep, size_t nkeep)
{
        pid_t kids[1024], my_sid = getsid(0);
        size_t n = list_children(kids, 1024);
        int killed = 0;

        for (size_t i = 0; i < n; i++) {
                pid_t pid = kids[i], ppid, pgrp, sid;
                char state;
                if (pid <= 0 || is_kept(pid, keep, nkeep) ||
                    read_stat_ids(pid, &state, &ppid, &pgrp, &sid) < 0)
                        continue;
                if (state == 'Z' && sid != my_sid) {
                        waitpid(pid, NULL, WNOHANG);
                        continue;
                }
                if (!kill_live || sid == my_sid)
                        continue;
                if (!all && pgrp != run_pid && sid != run_pid)
                        continue;
                /* counted once reaped: its children are then ours, for the next pass */
                if (kill(pid, SIGKILL) == 0 && proc_reap_within(pid, SWEEP_KILL_WAIT_MS) == 0)
                        killed++;
        }
        return killed;
}

int proc_reap_within(pid_t pid, int max_ms)
{
        int64_t until = sbx_now_ms() + max_ms;
        auto_fd pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
        struct pollfd p = { .fd = pidfd, .events = POLLIN };

        for (;;) {
                pid_t w = waitpid(pid, NULL, WNOHANG);
                int64_t left = until - sbx_now_ms();

                if (w == pid || (w < 0 && errno != EINTR))
                        return w == pid || errno == ECHILD ? 0 : -1;
                if (left <= 0)
                        return -1;
                /* without a pidfd (Linux < 5.3), a look every 10 ms */
                if (pidfd < 0)
                        nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
                else
                        (void)poll(&p, 1, (int)left);
        }
}

void proc_reap_ending(int max_ms)
{
        pid_t my_sid = getsid(0);
        int64_t until = sbx_now_ms() + max_ms;

        for (;;) {
                pid_t kids[1024], ppid, pgrp, sid;
                size_t n = list_children(kids, 1024), ending = 0;
                char state;
                for (size_t i = 0; i < n; i++) {
                        if (read_stat_ids(kids[i], &state, &ppid, &pgrp, &sid) < 0 || sid == my_sid)
                                continue;
                        if (state == 'Z')
                                waitpid(kids[i], NULL, WNOHANG);
                        else
                                ending++;
                }
                if (!ending || sbx_now_ms() >= until)
                        return;
                nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
        }
}

int proc_sweep_orphans(pid_t run_pid, bool all, bool kill_live,
                       const pid_t *keep, size_t nkeep)
{
        int total = 0, n;

        /* killing one orphan re-parents its children to us: repeat */
        for (int round = 0; round < 64; round++) {
                if (run_pid > 0 && kill_live)
                        kill(-run_pid, SIGKILL);
                n = sweep_once(run_pid, all, kill_live, keep, nkeep);
                total += n;
                if (n == 0)
                        break;
        }
        return total;
}
