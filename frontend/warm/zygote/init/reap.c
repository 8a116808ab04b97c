/* B1, pid 1 of the run, confined: reaps every process the run orphans
 * until the zygote hangs up end_fd (C has ended, or the zygote died), then
 * kills what is left, reaps it, and says what they cost. Only SIGCHLD has
 * a handler: every other signal a sample sends pid 1 from inside the run
 * is dropped by the kernel (an init's default disposition), and SIGCHLD
 * only wakes it to reap. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_init.h"

static void on_sigchld(int sig)
{
        (void)sig;
}

static void reap_exited(void)
{
        while (waitpid(-1, NULL, WNOHANG) > 0)
                ;
}

static void wait_for_end(int end_fd)
{
        struct sigaction wake = { .sa_handler = on_sigchld };
        struct pollfd p = { .fd = end_fd, .events = POLLIN };
        sigset_t chld, none;

        sigemptyset(&none);
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        /* Blocked but while in ppoll: no SIGCHLD is missed between a reap and the wait. */
        if (sigprocmask(SIG_BLOCK, &chld, NULL) < 0 || sigaction(SIGCHLD, &wake, NULL) < 0)
                init_die(errno, "SIGCHLD");
        for (;;) {
                reap_exited();
                int n = ppoll(&p, 1, NULL, &none);

                if (n > 0)
                        return;
                if (n < 0 && errno != EINTR)
                        init_die(errno, "wait for the run's end");
        }
}

void init_reap(int end_fd)
{
        struct rusage kids;
        char line[96];

        wait_for_end(end_fd);
        if (kill(-1, SIGKILL) < 0 && errno != ESRCH)
                init_die(errno, "kill the run");
        while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
                ;
        if (errno != ECHILD)
                init_die(errno, "reap the run");
        if (getrusage(RUSAGE_CHILDREN, &kids) < 0)
                init_die(errno, "getrusage");
        snprintf(line, sizeof(line), "W %.6f %ld\n",
                 (double)(kids.ru_utime.tv_sec + kids.ru_stime.tv_sec) +
                 (double)(kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) / 1e6,
                 kids.ru_maxrss);
        init_write_line(line);
        _exit(0);
}
