/* sbx-run-init's order (docs/warm.md): B0 makes the run's namespaces and
 * root, forks B1 (pid 1 of the run), confines itself and waits for it; B1
 * mounts the run's /proc, confines itself, says it is ready and reaps.
 * The zygote forks the candidate C into B0's namespaces once B1 is ready.
 * With --exec it is a cold bwrap run's pid 1 instead (exec.c). */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_init.h"

#define RUN_NAMESPACES (CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET | CLONE_NEWPID)

static int compare_ints(const void *a, const void *b)
{
        return *(const int *)a - *(const int *)b;
}

/* Every fd but the request's closed, the zygote's stdio too: the zygote
 * passes only these, and none of its own may reach the run. */
static void close_other_fds(const struct init_request *rq)
{
        int keep[3 + INIT_MAX_FILES] = { rq->info_fd, rq->end_fd, rq->bpf_fd };
        int n = 3;
        unsigned int from = 0;

        for (int i = 0; i < rq->nfiles; i++)
                keep[n++] = rq->files[i].fd;
        qsort(keep, (size_t)n, sizeof(keep[0]), compare_ints);
        for (int i = 0; i < n; i++) {
                if (keep[i] < 3)
                        init_die(0, "request: fd %d is one of stdio", keep[i]);
                if ((unsigned int)keep[i] > from && syscall(SYS_close_range, from, keep[i] - 1, 0) < 0)
                        init_die(errno, "close_range");
                from = (unsigned int)keep[i] + 1;
        }
        if (syscall(SYS_close_range, from, ~0U, 0) < 0)
                init_die(errno, "close_range");
}

/* Dispositions as a fresh init's: ignored signals survive exec, and a
 * blocked one would stay blocked in the run. */
static void default_signals(void)
{
        struct sigaction dfl = { .sa_handler = SIG_DFL };
        sigset_t none;

        for (int sig = 1; sig < NSIG; sig++)
                if (sig != SIGKILL && sig != SIGSTOP)
                        (void)sigaction(sig, &dfl, NULL);   /* EINVAL for glibc's own: left as they are */
        sigemptyset(&none);
        if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
                init_die(errno, "sigprocmask");
}

/* Dies with its parent; another parent: it died before (0: B1's, outside
 * its pid namespace, cannot be checked so: end_fd hangs up then). */
static void die_with_parent(pid_t parent)
{
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
                init_die(errno, "PR_SET_PDEATHSIG");
        if (parent && getppid() != parent)
                init_die(0, "its zygote (pid %d) is gone", (int)parent);
}

/* B1: pid 1 of the run. Non-dumpable first: the run's processes have its
 * uid, and /proc/1 and ptrace must stay out of their reach. */
static __attribute__((noreturn)) void run_init(const struct init_request *rq)
{
        if (prctl(PR_SET_DUMPABLE, 0) < 0)
                init_die(errno, "PR_SET_DUMPABLE");
        die_with_parent(0);     /* B0: it ends only when this does, or is killed */
        init_mount_proc();
        for (int i = 0; i < rq->nfiles; i++)
                close(rq->files[i].fd);
        init_confine(rq->bpf_fd);
        close(rq->bpf_fd);
        init_write_line("R\n");
        init_reap(rq->end_fd);
}

/* A stop (a scheduler's cancel, kill of the job) signals every process of
 * the job in no set order. B0's death would kill B1 and with it the sample
 * by SIGKILL, which reads as the sample's verdict; ignored here, the stop
 * reaches the sample itself, whose death by it sbx-run knows for a stop's
 * (run_finish.c). The zygote ends B0 with SIGKILL only. */
static void ignore_stop_signals(void)
{
        static const int stops[] = { SIGTERM, SIGINT, SIGHUP };
        struct sigaction ign = { .sa_handler = SIG_IGN };

        for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
                if (sigaction(stops[i], &ign, NULL) < 0)
                        init_die(errno, "ignore signal %d", stops[i]);
}

/* B0 after the fork: out of the run (not in its pid namespace: no sample
 * can name it, signal it or read its /proc), dumpable so that the zygote
 * may open its namespaces, reading nothing from anyone, without a
 * capability, able to do no more than wait. No seccomp filter: it would
 * guard no input (and cost a compile of the filter per run). */
static __attribute__((noreturn)) void wait_for_init(const struct init_request *rq, pid_t init)
{
        int status;

        ignore_stop_signals();
        for (int i = 0; i < rq->nfiles; i++)
                close(rq->files[i].fd);
        close(rq->end_fd);
        close(rq->bpf_fd);
        init_drop_privileges();
        while (waitpid(init, &status, 0) < 0)
                if (errno != EINTR)
                        init_die(errno, "wait for the run's init");
        _exit(WIFEXITED(status) ? WEXITSTATUS(status) : INIT_SETUP_EXIT);
}

int main(int argc, char **argv)
{
        struct init_request rq = { .info_fd = -1 };
        pid_t init;

        /* The name the run's ps and /proc/1/comm show, not the memfd's fd number. */
        (void)prctl(PR_SET_NAME, "sbx-run-init");
        if (argc > 1 && strcmp(argv[1], "--exec") == 0) {
                default_signals();
                init_exec(argv + 2);
        }
        init_parse(argc, argv, &rq);
        close_other_fds(&rq);
        default_signals();
        die_with_parent(rq.parent);
        if (unshare(RUN_NAMESPACES) < 0)
                init_die(errno, "unshare the run's namespaces");
        init_enter_namespaces(&rq);
        init_build_root(&rq);
        init = fork();
        if (init < 0)
                init_die(errno, "fork the run's init");
        if (init == 0)
                run_init(&rq);
        wait_for_init(&rq, init);
}
