/* What libcap-ng adds per run to the helper's capability drops, over its
 * raw prctl/capset calls (docs/performance.md). Each sample is a fresh
 * child in a user namespace of its own, so it starts, as the helper's
 * processes do, with every capability in every set; it empties them
 * (bounding, ambient, effective, permitted, inheritable) one way or the
 * other and reports the time, interleaved, ROUNDS (default 400) of each.
 * Build: cc -O2 -o capng-cost bench/lib/capng-bounding-cost.c -lcap-ng
 * (add -static for the static library); run as a user that may create
 * user namespaces. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cap-ng.h>

static double now_us(void)
{
        struct timespec t;

        clock_gettime(CLOCK_MONOTONIC, &t);
        return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int drop_raw(void)
{
        struct __user_cap_header_struct head = { _LINUX_CAPABILITY_VERSION_3, 0 };
        struct __user_cap_data_struct none[2] = { { 0 } };
        int cap = 0;

        while (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
                cap++;
        if (errno != EINVAL || prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
                return -1;
        return (int)syscall(SYS_capset, &head, none);
}

static int drop_capng(void)
{
        capng_clear(CAPNG_SELECT_ALL);
        return capng_apply(CAPNG_SELECT_ALL);
}

/* One child: a new user namespace, the drop timed, the microseconds back. */
static double sample(int (*drop)(void))
{
        int fds[2], status;
        double us = -1;
        pid_t pid;

        if (pipe(fds) < 0 || (pid = fork()) < 0)
                exit(1);
        if (pid == 0) {
                double t0;

                if (unshare(CLONE_NEWUSER) < 0)
                        _exit(9);
                t0 = now_us();
                if (drop() < 0)
                        _exit(2);
                us = now_us() - t0;
                _exit(write(fds[1], &us, sizeof(us)) == sizeof(us) ? 0 : 3);
        }
        close(fds[1]);
        if (read(fds[0], &us, sizeof(us)) != sizeof(us) || waitpid(pid, &status, 0) < 0 || status != 0)
                exit(4);
        close(fds[0]);
        return us;
}

static int cmp(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
        int rounds = argc > 1 ? atoi(argv[1]) : 400;
        double *raw = calloc(rounds, sizeof(double)), *ng = calloc(rounds, sizeof(double));

        if (!raw || !ng || rounds < 1)
                return 1;
        for (int i = 0; i < rounds; i++) {
                raw[i] = sample(drop_raw);
                ng[i] = sample(drop_capng);
        }
        qsort(raw, rounds, sizeof(double), cmp);
        qsort(ng, rounds, sizeof(double), cmp);
        printf("all sets emptied from full, in a fresh user namespace, %d interleaved children each:\n"
               "  raw prctl+capset: median %.1f us, p10 %.1f us\n  libcap-ng:        median %.1f us, p10 %.1f us\n",
               rounds, raw[rounds / 2], raw[rounds / 10], ng[rounds / 2], ng[rounds / 10]);
        return 0;
}
